// SPDX-License-Identifier: GPL-2.0-only
/*
 * The pollers: kernel threads that consume every ring's submissions,
 * the SQPOLL pattern of io_uring.  While there is work a poller loops;
 * after poll_idle_us without any it sets TXRDMA_SQ_F_NEED_WAKEUP in
 * every ring it serves, and sleeps unless a submission slipped in
 * meanwhile.  A process stores its SQ tail, issues a full barrier and
 * then reads the flags; the poller stores the flags, issues a full
 * barrier and then reads every tail: one of the two always sees the
 * other, so no submission waits for a poller that went to sleep.  An
 * idle host burns no CPU.
 *
 * One poller per RDMA device, plus a default one (thread txrdma-poll)
 * for rings that have no endpoint pair yet.  A ring moves to the poller
 * of the device of its first pair (txrdma_poller_bind()) and stays
 * there; when the device goes, its rings go back to the default poller.
 * Which poller a ring has changes only under txrdma_pollers_lock; kicks
 * read it under RCU, and a poller's thread is stopped only after no
 * ring points to it any more and an RCU grace period has passed.
 *
 * Module parameters: poll_cpu (-1: the device's NUMA node, or any CPU;
 * else the CPU the default poller runs on and every device's poller
 * starts on; TXRDMA_CMD_DEV_SET moves a device's) and poll_idle_us (how
 * long a poller spins without work, default 200).
 */
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/sched/clock.h>
#include <linux/sched/isolation.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/topology.h>

#include "txrdma_inject.h"
#include "txrdma_poller.h"
#include "txrdma_ringmath.h"
#include "txrdma_ringfile.h"

static int poll_cpu = -1;
module_param(poll_cpu, int, 0444);
MODULE_PARM_DESC(poll_cpu,
		 "CPU the data path pollers start on (-1: device's node, any)");

static unsigned int poll_idle_us = 200;
module_param(poll_idle_us, uint, 0644);
MODULE_PARM_DESC(poll_idle_us,
		 "microseconds a poller spins without work before it sleeps");

/* which poller each ring has (txrdma_ring.poller) */
static DEFINE_MUTEX(txrdma_pollers_lock);
static struct txrdma_poller *txrdma_poller_default;

/*
 * One pass over every ring of @p, class by class (txrdma_ringmath.c:
 * priority classes): the SQEs of class 0 of every ring, then those of
 * class 1, and so on, each with its class's budget.  Returns how many
 * SQEs it consumed.
 */
static int txrdma_poller_pass(struct txrdma_poller *p)
{
	struct txrdma_ring *ring;
	int n = 0;
	u8 cls;

	mutex_lock(&p->lock);
	for (cls = 0; cls < TXRDMA_PRIO_CLASSES; cls++) {
		list_for_each_entry(ring, &p->rings, poll_node) {
			mutex_lock(&ring->lock);
			/* credits in class 0's turn, after its SQEs (ring_process) */
			n += txrdma_ring_process(ring, cls,
						 txrdma_class_budget(cls));
			mutex_unlock(&ring->lock);
			/* the list stays valid: removal takes the same mutex */
			cond_resched();
		}
	}
	if (n) {
		WRITE_ONCE(p->passes, p->passes + 1);
		WRITE_ONCE(p->sqes, p->sqes + n);
	}
	mutex_unlock(&p->lock);
	return n;
}

static void txrdma_ring_set_wakeup(struct txrdma_ring *ring, bool on)
{
	u32 f = READ_ONCE(*ring->sq_flags);

	f = on ? f | TXRDMA_SQ_F_NEED_WAKEUP : f & ~TXRDMA_SQ_F_NEED_WAKEUP;
	WRITE_ONCE(*ring->sq_flags, f);
}

/* Caller holds p->lock. */
static void txrdma_poller_set_wakeup(struct txrdma_poller *p, bool on)
{
	struct txrdma_ring *ring;

	p->asleep = on;
	list_for_each_entry(ring, &p->rings, poll_node)
		txrdma_ring_set_wakeup(ring, on);
}

/* Sleep until kicked, unless a ring has work after NEED_WAKEUP is set. */
static void txrdma_poller_sleep(struct txrdma_poller *p)
{
	struct txrdma_ring *ring;
	u64 wake = U64_MAX, w, now;
	bool work = false;

	mutex_lock(&p->lock);
	txrdma_poller_set_wakeup(p, true);
	/* pairs with the process's barrier between its tail and the flags */
	smp_mb();
	list_for_each_entry(ring, &p->rings, poll_node) {
		mutex_lock(&ring->lock);
		work |= txrdma_ring_pending(ring);
		w = txrdma_ring_wake_ns(ring);
		if (w)
			wake = min(wake, w);
		mutex_unlock(&ring->lock);
	}
	mutex_unlock(&p->lock);
	/*
	 * A doorbell rung after the check above sets the kick before it
	 * wakes us: seen here, or it finds us asleep and wakes us.
	 */
	set_current_state(TASK_INTERRUPTIBLE);
	if (!work && !atomic_xchg(&p->kicked, 0) && !kthread_should_stop()) {
		WRITE_ONCE(p->sleeps, p->sleeps + 1);
		now = ktime_get_ns();
		/* a ring throttled by its tenant's buckets: until tokens come */
		if (wake != U64_MAX)
			schedule_timeout(nsecs_to_jiffies((s64)(wake - now) > 0 ?
							  wake - now : 0) + 1);
		else
			schedule();
	}
	__set_current_state(TASK_RUNNING);
	atomic_set(&p->kicked, 0);
	mutex_lock(&p->lock);
	txrdma_poller_set_wakeup(p, false);
	mutex_unlock(&p->lock);
}

/*
 * The idle spin reads the clock on every empty pass: the scheduler's
 * clock (a TSC read), not ktime, which with the hpet clocksource (TCG
 * guests mark the TSC unstable) is a device access that takes QEMU's
 * lock on every pass and slows every other vCPU's device access.  A
 * migration between passes may skew it by less than a tick: the idle
 * window is a heuristic.
 */
static int txrdma_poller_fn(void *data)
{
	struct txrdma_poller *p = data;
	u64 last_work = local_clock();

	while (!kthread_should_stop()) {
		/* a data path that does not run (fault injection) */
		if (txrdma_fault(TXRDMA_FAULT_STALL, 1))
			fsleep(txrdma_fault_delay_us(TXRDMA_FAULT_STALL));
		if (txrdma_poller_pass(p)) {
			last_work = local_clock();
			cond_resched();
			continue;
		}
		if (local_clock() - last_work < txrdma_poller_idle_ns()) {
			cond_resched();
			cpu_relax();
			continue;
		}
		txrdma_poller_sleep(p);
		last_work = local_clock();
	}
	return 0;
}

/* How long a poller spins without work before it sleeps. */
u64 txrdma_poller_idle_ns(void)
{
	return (u64)READ_ONCE(poll_idle_us) * NSEC_PER_USEC;
}

static void txrdma_poller_wake(struct txrdma_poller *p)
{
	atomic_set(&p->kicked, 1);
	wake_up_process(p->task);
}

/**
 * txrdma_poller_kick() - the doorbell: wake the poller that serves @ring
 * @ring: a ring that is alive (any context)
 */
void txrdma_poller_kick(struct txrdma_ring *ring)
{
	struct txrdma_poller *p;

	rcu_read_lock();
	p = rcu_dereference(ring->poller);
	if (p)
		txrdma_poller_wake(p);
	rcu_read_unlock();
}

/* Caller holds txrdma_pollers_lock: put @ring on @p's list. */
static void txrdma_poller_attach(struct txrdma_poller *p,
				 struct txrdma_ring *ring)
{
	mutex_lock(&p->lock);
	list_add_tail(&ring->poll_node, &p->rings);
	WRITE_ONCE(p->nr_rings, p->nr_rings + 1);
	/* a sleeping poller must be rung for this ring's next SQE too */
	txrdma_ring_set_wakeup(ring, p->asleep);
	rcu_assign_pointer(ring->poller, p);
	mutex_unlock(&p->lock);
}

/* Caller holds txrdma_pollers_lock: take @ring off @p's list. */
static void txrdma_poller_detach(struct txrdma_poller *p,
				 struct txrdma_ring *ring)
{
	mutex_lock(&p->lock);
	list_del_init(&ring->poll_node);
	WRITE_ONCE(p->nr_rings, p->nr_rings - 1);
	mutex_unlock(&p->lock);
}

/* A new ring: the default poller serves it until it has a pair. */
void txrdma_poller_add(struct txrdma_ring *ring)
{
	mutex_lock(&txrdma_pollers_lock);
	txrdma_poller_attach(txrdma_poller_default, ring);
	mutex_unlock(&txrdma_pollers_lock);
}

/**
 * txrdma_poller_bind() - a pair of @ring runs on @p's device
 * @ring: the ring (its file is in an ioctl: not released meanwhile)
 * @p: the device's poller, referenced by the caller
 *
 * The ring's first pair decides: a ring the default poller serves
 * moves to @p; one that a device's poller serves already stays there.
 */
void txrdma_poller_bind(struct txrdma_ring *ring, struct txrdma_poller *p)
{
	struct txrdma_poller *from;

	mutex_lock(&txrdma_pollers_lock);
	from = rcu_dereference_protected(ring->poller,
					 lockdep_is_held(&txrdma_pollers_lock));
	if (from != txrdma_poller_default || p->dead) {
		mutex_unlock(&txrdma_pollers_lock);
		return;
	}
	txrdma_poller_detach(from, ring);
	txrdma_poller_attach(p, ring);
	/*
	 * SQEs published while the ring was on neither list.  Under the
	 * lock: txrdma_poller_destroy() cannot stop the thread meanwhile.
	 */
	txrdma_poller_wake(p);
	mutex_unlock(&txrdma_pollers_lock);
}

/* After this no poller touches @ring again. */
void txrdma_poller_del(struct txrdma_ring *ring)
{
	struct txrdma_poller *p;

	mutex_lock(&txrdma_pollers_lock);
	p = rcu_dereference_protected(ring->poller,
				      lockdep_is_held(&txrdma_pollers_lock));
	if (p) {
		txrdma_poller_detach(p, ring);
		RCU_INIT_POINTER(ring->poller, NULL);
	}
	mutex_unlock(&txrdma_pollers_lock);
}

/*
 * The CPUs a poller may run on: the one an administrator chose (an
 * isolated CPU too: a core set aside for polling is a deployment of its
 * own), else the housekeeping CPUs of its device's node, else every
 * housekeeping CPU (never isolcpus/nohz_full ones, like other kthreads).
 */
static void txrdma_poller_mask(int cpu, int node, struct cpumask *mask)
{
	const struct cpumask *hk = housekeeping_cpumask(HK_TYPE_KTHREAD);

	if (cpu >= 0) {
		cpumask_copy(mask, cpumask_of(cpu));
		return;
	}
	if (node != NUMA_NO_NODE &&
	    cpumask_and(mask, cpumask_of_node(node), hk) &&
	    cpumask_intersects(mask, cpu_online_mask))
		return;
	cpumask_copy(mask, hk);
}

static bool txrdma_poller_cpu_ok(int cpu)
{
	return cpu == -1 || (cpu >= 0 && cpu < nr_cpu_ids && cpu_online(cpu));
}

/**
 * txrdma_poller_set_cpu() - where a poller runs
 * @p: the poller
 * @cpu: an online CPU, or -1 for its device's NUMA node (any CPU if the
 *	device has none)
 *
 * Return: 0, or -EINVAL for a CPU that is not online.
 */
int txrdma_poller_set_cpu(struct txrdma_poller *p, int cpu)
{
	cpumask_var_t mask;
	int ret;

	if (!txrdma_poller_cpu_ok(cpu))
		return -EINVAL;
	if (!alloc_cpumask_var(&mask, GFP_KERNEL))
		return -ENOMEM;
	txrdma_poller_mask(cpu, p->node, mask);
	ret = set_cpus_allowed_ptr(p->task, mask);
	free_cpumask_var(mask);
	if (!ret)
		WRITE_ONCE(p->cpu, cpu);
	return ret;
}

void txrdma_poller_info(struct txrdma_poller *p,
			struct txrdma_poller_info *info)
{
	/* a snapshot without p->lock: the thread holds it for whole passes */
	*info = (struct txrdma_poller_info) {
		.cpu	= READ_ONCE(p->cpu),
		.pid	= task_pid_nr(p->task),
		.rings	= READ_ONCE(p->nr_rings),
		.passes	= READ_ONCE(p->passes),
		.sqes	= READ_ONCE(p->sqes),
		.sleeps	= READ_ONCE(p->sleeps),
	};
}

static void txrdma_poller_free(struct kref *ref)
{
	kfree(container_of(ref, struct txrdma_poller, ref));
}

struct txrdma_poller *txrdma_poller_get(struct txrdma_poller *p)
{
	kref_get(&p->ref);
	return p;
}

/* Any context: the thread was stopped before the last reference goes. */
void txrdma_poller_put(struct txrdma_poller *p)
{
	kref_put(&p->ref, txrdma_poller_free);
}

static struct txrdma_poller *txrdma_poller_new(const char *name, int node)
{
	int cpu = READ_ONCE(poll_cpu);
	struct txrdma_poller *p;
	struct task_struct *t;

	p = kzalloc_node(sizeof(*p), GFP_KERNEL, node);
	if (!p)
		return ERR_PTR(-ENOMEM);
	kref_init(&p->ref);
	mutex_init(&p->lock);
	INIT_LIST_HEAD(&p->rings);
	atomic_set(&p->kicked, 0);
	p->node = node;
	t = kthread_create_on_node(txrdma_poller_fn, p, node, "%s", name);
	if (IS_ERR(t)) {
		kfree(p);
		return ERR_CAST(t);
	}
	p->task = t;
	/* a CPU that went offline since the module was loaded: anywhere */
	if (txrdma_poller_set_cpu(p, cpu) && cpu >= 0)
		txrdma_poller_set_cpu(p, -1);
	wake_up_process(t);
	return p;
}

/**
 * txrdma_poller_create() - the poller of a new device
 * @dev_name: the device's name (the thread is txrdma/<name>)
 * @node: its NUMA node, or NUMA_NO_NODE
 *
 * Return: the poller (one reference: the device's) or ERR_PTR.
 */
struct txrdma_poller *txrdma_poller_create(const char *dev_name, int node)
{
	char name[TASK_COMM_LEN + 16];

	snprintf(name, sizeof(name), "txrdma/%s", dev_name);
	return txrdma_poller_new(name, node);
}

/**
 * txrdma_poller_destroy() - a device goes: stop its poller
 * @p: the poller; the caller's reference is dropped
 *
 * Its rings go back to the default poller (their pairs went with the
 * device; the rings still work).  Endpoints that still reference @p
 * find it dead and leave their ring where it is.
 */
void txrdma_poller_destroy(struct txrdma_poller *p)
{
	struct txrdma_poller *d = txrdma_poller_default;
	struct txrdma_ring *ring, *next;

	mutex_lock(&txrdma_pollers_lock);
	p->dead = true;
	list_for_each_entry_safe(ring, next, &p->rings, poll_node) {
		txrdma_poller_detach(p, ring);
		txrdma_poller_attach(d, ring);
	}
	mutex_unlock(&txrdma_pollers_lock);
	txrdma_poller_wake(d);
	/* no kick can still see @p: its thread may go */
	synchronize_rcu();
	kthread_stop(p->task);
	txrdma_poller_put(p);
}

int txrdma_poller_init(void)
{
	struct txrdma_poller *p;

	if (!txrdma_poller_cpu_ok(poll_cpu)) {
		pr_err("txrdma: poll_cpu=%d is not an online CPU\n", poll_cpu);
		return -EINVAL;
	}
	p = txrdma_poller_new("txrdma-poll", NUMA_NO_NODE);
	if (IS_ERR(p))
		return PTR_ERR(p);
	txrdma_poller_default = p;
	return 0;
}

/* After every device's poller and every file (so every ring) is gone. */
void txrdma_poller_exit(void)
{
	struct txrdma_poller *p = txrdma_poller_default;

	WARN_ON_ONCE(!list_empty(&p->rings));
	kthread_stop(p->task);
	txrdma_poller_default = NULL;
	txrdma_poller_put(p);
}
