// SPDX-License-Identifier: GPL-2.0-only
/*
 * The poller: a kernel thread that consumes every ring's submissions,
 * the SQPOLL pattern of io_uring.  While there is work it loops; after
 * poll_idle_us without any it sets TXRDMA_SQ_F_NEED_WAKEUP in every
 * ring, and sleeps unless a submission slipped in meanwhile.  A process
 * stores its SQ tail, issues a full barrier and then reads the flags;
 * the poller stores the flags, issues a full barrier and then reads
 * every tail: one of the two always sees the other, so no submission
 * waits for a poller that went to sleep.  An idle host burns no CPU.
 *
 * Module parameters: poll_cpu (-1: any CPU; else the CPU it is bound
 * to) and poll_idle_us (how long it spins without work, default 200).
 */
#include <linux/cpumask.h>
#include <linux/kthread.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/sched.h>

#include "txrdma_endpoint.h"
#include "txrdma_ring.h"
#include "txrdma_rings.h"

static int poll_cpu = -1;
module_param(poll_cpu, int, 0444);
MODULE_PARM_DESC(poll_cpu, "CPU the data path poller runs on (-1: any)");

static unsigned int poll_idle_us = 200;
module_param(poll_idle_us, uint, 0644);
MODULE_PARM_DESC(poll_idle_us,
		 "microseconds the poller spins without work before it sleeps");

static DEFINE_MUTEX(txrdma_poller_lock);
static LIST_HEAD(txrdma_poller_rings);
static struct task_struct *txrdma_poller_task;
static atomic_t txrdma_poller_kicked = ATOMIC_INIT(0);
/* NEED_WAKEUP is set in every ring (txrdma_poller_lock) */
static bool txrdma_poller_asleep;

/*
 * One pass over every ring, class by class (txrdma_ring.c: priority
 * classes): the SQEs of class 0 of every ring, then those of class 1,
 * and so on, each with its class's budget.  Returns how many SQEs it
 * consumed.
 */
static int txrdma_poller_pass(void)
{
	struct txrdma_ring *ring;
	int n = 0;
	u8 cls;

	mutex_lock(&txrdma_poller_lock);
	for (cls = 0; cls < TXRDMA_PRIO_CLASSES; cls++) {
		list_for_each_entry(ring, &txrdma_poller_rings, poll_node) {
			mutex_lock(&ring->lock);
			/* credits first: a peer may wait for them to send */
			if (!cls)
				txrdma_msg_ring_credits(ring);
			n += txrdma_ring_process(ring, cls,
						 txrdma_class_budget(cls));
			mutex_unlock(&ring->lock);
			/* the list stays valid: removal takes the same mutex */
			cond_resched();
		}
	}
	mutex_unlock(&txrdma_poller_lock);
	return n;
}

static void txrdma_ring_set_wakeup(struct txrdma_ring *ring, bool on)
{
	u32 f = READ_ONCE(*ring->sq_flags);

	f = on ? f | TXRDMA_SQ_F_NEED_WAKEUP : f & ~TXRDMA_SQ_F_NEED_WAKEUP;
	WRITE_ONCE(*ring->sq_flags, f);
}

/* Caller holds txrdma_poller_lock. */
static void txrdma_poller_set_wakeup(bool on)
{
	struct txrdma_ring *ring;

	txrdma_poller_asleep = on;
	list_for_each_entry(ring, &txrdma_poller_rings, poll_node)
		txrdma_ring_set_wakeup(ring, on);
}

/* Sleep until kicked, unless a ring has work after NEED_WAKEUP is set. */
static void txrdma_poller_sleep(void)
{
	struct txrdma_ring *ring;
	u64 wake = U64_MAX, w, now;
	bool work = false;

	mutex_lock(&txrdma_poller_lock);
	txrdma_poller_set_wakeup(true);
	/* pairs with the process's barrier between its tail and the flags */
	smp_mb();
	list_for_each_entry(ring, &txrdma_poller_rings, poll_node) {
		mutex_lock(&ring->lock);
		work |= txrdma_ring_pending(ring);
		w = txrdma_ring_wake_ns(ring);
		if (w)
			wake = min(wake, w);
		mutex_unlock(&ring->lock);
	}
	mutex_unlock(&txrdma_poller_lock);
	/*
	 * A doorbell rung after the check above sets the kick before it
	 * wakes us: seen here, or it finds us asleep and wakes us.
	 */
	set_current_state(TASK_INTERRUPTIBLE);
	if (!work && !atomic_xchg(&txrdma_poller_kicked, 0) &&
	    !kthread_should_stop()) {
		now = ktime_get_ns();
		/* a ring throttled by its tenant's buckets: until tokens come */
		if (wake != U64_MAX)
			schedule_timeout(nsecs_to_jiffies((s64)(wake - now) > 0 ?
							  wake - now : 0) + 1);
		else
			schedule();
	}
	__set_current_state(TASK_RUNNING);
	atomic_set(&txrdma_poller_kicked, 0);
	mutex_lock(&txrdma_poller_lock);
	txrdma_poller_set_wakeup(false);
	mutex_unlock(&txrdma_poller_lock);
}

static int txrdma_poller_fn(void *unused)
{
	u64 last_work = ktime_get_ns();

	while (!kthread_should_stop()) {
		if (txrdma_poller_pass()) {
			last_work = ktime_get_ns();
			cond_resched();
			continue;
		}
		if (ktime_get_ns() - last_work <
		    (u64)READ_ONCE(poll_idle_us) * NSEC_PER_USEC) {
			cond_resched();
			cpu_relax();
			continue;
		}
		txrdma_poller_sleep();
		last_work = ktime_get_ns();
	}
	return 0;
}

/* The doorbell. */
void txrdma_poller_kick(void)
{
	atomic_set(&txrdma_poller_kicked, 1);
	wake_up_process(txrdma_poller_task);
}

void txrdma_poller_add(struct txrdma_ring *ring)
{
	mutex_lock(&txrdma_poller_lock);
	list_add_tail(&ring->poll_node, &txrdma_poller_rings);
	/* a sleeping poller must be rung for this ring's first SQE too */
	txrdma_ring_set_wakeup(ring, txrdma_poller_asleep);
	mutex_unlock(&txrdma_poller_lock);
}

/* After this the poller never touches @ring again. */
void txrdma_poller_del(struct txrdma_ring *ring)
{
	mutex_lock(&txrdma_poller_lock);
	list_del_init(&ring->poll_node);
	mutex_unlock(&txrdma_poller_lock);
}

int txrdma_poller_init(void)
{
	struct task_struct *t;

	if (poll_cpu >= 0 && (poll_cpu >= nr_cpu_ids || !cpu_online(poll_cpu))) {
		pr_err("txrdma: poll_cpu=%d is not an online CPU\n", poll_cpu);
		return -EINVAL;
	}
	t = kthread_create(txrdma_poller_fn, NULL, "txrdma-poll");
	if (IS_ERR(t))
		return PTR_ERR(t);
	if (poll_cpu >= 0)
		kthread_bind(t, poll_cpu);
	txrdma_poller_task = t;
	wake_up_process(t);
	return 0;
}

void txrdma_poller_exit(void)
{
	kthread_stop(txrdma_poller_task);
}
