// SPDX-License-Identifier: GPL-2.0-only
/*
 * The rings of an open file: setup, mmap, poll(2), and the processing
 * of one ring by the poller (txrdma_poller.c).
 *
 * Memory: one physically contiguous, zeroed area (at most 4 MiB for the
 * largest rings) that the process maps whole.  It is pinned kernel
 * memory, so it is charged like a region: to the pinned-bytes quota of
 * the caller's tenant (no tenant: -EPERM; over the limit: -EDQUOT), and
 * to its memory cgroup (GFP_KERNEL_ACCOUNT).  The indices
 * sit on cache lines of their own (the process writes the SQ tail and
 * the CQ head, the poller the others), then the SQE array and the CQE
 * array, each page aligned.  The kernel keeps its own copy of the sizes
 * and of the indices it owns; the shared ones are outputs, and what the
 * process writes is checked by txrdma_ringmath.c before use.
 *
 * Lifetime: a mapping holds the struct file, so release (and the
 * freeing) only happens once every mapping is gone, and the poller has
 * dropped the ring from its list before that.
 */
#include <linux/mm.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "txrdma_endpoint.h"
#include "txrdma_region.h"
#include "txrdma_ringmath.h"
#include "txrdma_ringfile.h"
#include "txrdma_tenant.h"
#include "txrdma_trace.h"

/* where the index words live in the mapping */
enum {
	TXRDMA_OFF_SQ_HEAD	= 0,
	TXRDMA_OFF_SQ_TAIL	= 64,
	TXRDMA_OFF_SQ_FLAGS	= 128,
	TXRDMA_OFF_SQ_DROPPED	= 132,
	TXRDMA_OFF_CQ_HEAD	= 192,
	TXRDMA_OFF_CQ_TAIL	= 256,
	TXRDMA_OFF_CQ_OVERFLOW	= 260,
	TXRDMA_OFF_SQ_MASK	= 320,
	TXRDMA_OFF_SQ_ENTRIES	= 324,
	TXRDMA_OFF_CQ_MASK	= 328,
	TXRDMA_OFF_CQ_ENTRIES	= 332,
};

/* the rings' mmap offset: region ids start at 1, so 0 is free */
#define TXRDMA_RING_MMAP_OFFSET	0ULL

static DEFINE_MUTEX(txrdma_ring_setup_lock);

static void txrdma_ring_uncharge(struct txrdma_ring *ring)
{
	struct txrdma_tenant *t = ring->tenant;

	spin_lock_bh(&t->lock);
	txrdma_quota_uncharge(&t->quota, TXRDMA_RES_PINNED, ring->len);
	spin_unlock_bh(&t->lock);
	txrdma_tenant_put(t);
}

static u32 *txrdma_ring_word(struct txrdma_ring *ring, u32 off)
{
	return (u32 *)((u8 *)ring->mem + off);
}

long txrdma_ioctl_ring_setup(struct txrdma_file *tf, void __user *uarg)
{
	struct txrdma_ring_setup p;
	struct txrdma_ring *ring;
	size_t sq_off, cq_off, len;
	u32 sqn, cqn;
	int ret;

	if (copy_from_user(&p, uarg, sizeof(p)))
		return -EFAULT;
	if (p.flags || p.ops || memchr_inv(p.resv, 0, sizeof(p.resv)) ||
	    memchr_inv(&p.sq_off, 0, sizeof(p.sq_off)) ||
	    memchr_inv(&p.cq_off, 0, sizeof(p.cq_off)) ||
	    p.mmap_offset || p.mmap_len)
		return -EINVAL;
	ret = txrdma_ring_entries(p.sq_entries, &sqn);
	if (ret)
		return ret;
	ret = txrdma_ring_entries(p.cq_entries ?:
				  min(2 * sqn, TXRDMA_RING_MAX_ENTRIES), &cqn);
	if (ret)
		return ret;
	if (cqn < sqn)
		return -EINVAL;

	sq_off = PAGE_SIZE;
	cq_off = sq_off + PAGE_ALIGN(sqn * sizeof(struct txrdma_sqe));
	len = cq_off + PAGE_ALIGN(cqn * sizeof(struct txrdma_cqe));
	ring = kzalloc(sizeof(*ring), GFP_KERNEL_ACCOUNT);
	if (!ring)
		return -ENOMEM;
	ring->tenant = txrdma_tenant_get_current();
	if (IS_ERR(ring->tenant)) {
		ret = PTR_ERR(ring->tenant);
		kfree(ring);
		return ret;
	}
	spin_lock_bh(&ring->tenant->lock);
	/* a tenant being deleted takes no more charges */
	ret = ring->tenant->dead ? -EPERM :
	      txrdma_quota_charge(&ring->tenant->quota, TXRDMA_RES_PINNED, len);
	spin_unlock_bh(&ring->tenant->lock);
	if (ret) {
		txrdma_tenant_put(ring->tenant);
		kfree(ring);
		return ret;
	}
	ring->len = len;
	/* up to 4 MiB contiguous: may fail under fragmentation, quietly */
	ring->mem = alloc_pages_exact(len, GFP_KERNEL_ACCOUNT | __GFP_ZERO |
				      __GFP_NOWARN);
	if (!ring->mem) {
		ret = -ENOMEM;
		goto out_uncharge;
	}
	ring->tf = tf;
	ring->sq_entries = sqn;
	ring->cq_entries = cqn;
	ring->sq_head = txrdma_ring_word(ring, TXRDMA_OFF_SQ_HEAD);
	ring->sq_tail = txrdma_ring_word(ring, TXRDMA_OFF_SQ_TAIL);
	ring->sq_flags = txrdma_ring_word(ring, TXRDMA_OFF_SQ_FLAGS);
	ring->sq_dropped = txrdma_ring_word(ring, TXRDMA_OFF_SQ_DROPPED);
	ring->cq_head = txrdma_ring_word(ring, TXRDMA_OFF_CQ_HEAD);
	ring->cq_tail = txrdma_ring_word(ring, TXRDMA_OFF_CQ_TAIL);
	ring->cq_overflow = txrdma_ring_word(ring, TXRDMA_OFF_CQ_OVERFLOW);
	*txrdma_ring_word(ring, TXRDMA_OFF_SQ_MASK) = sqn - 1;
	*txrdma_ring_word(ring, TXRDMA_OFF_SQ_ENTRIES) = sqn;
	*txrdma_ring_word(ring, TXRDMA_OFF_CQ_MASK) = cqn - 1;
	*txrdma_ring_word(ring, TXRDMA_OFF_CQ_ENTRIES) = cqn;
	ring->sqes = (void *)((u8 *)ring->mem + sq_off);
	ring->cqes = (void *)((u8 *)ring->mem + cq_off);
	INIT_LIST_HEAD(&ring->poll_node);
	init_waitqueue_head(&ring->wait);
	mutex_init(&ring->lock);
	xa_init(&ring->eps);
	spin_lock_init(&ring->cq_lock);

	p.sq_entries = sqn;
	p.cq_entries = cqn;
	/* what the poller executes today; the rest is -EOPNOTSUPP */
	p.ops = BIT(TXRDMA_OP_NOP) | BIT(TXRDMA_OP_SEND) |
		BIT(TXRDMA_OP_READ) | BIT(TXRDMA_OP_WRITE);
	p.mmap_offset = TXRDMA_RING_MMAP_OFFSET;
	p.mmap_len = len;
	p.sq_off = (struct txrdma_sq_offsets) {
		.head		= TXRDMA_OFF_SQ_HEAD,
		.tail		= TXRDMA_OFF_SQ_TAIL,
		.ring_mask	= TXRDMA_OFF_SQ_MASK,
		.ring_entries	= TXRDMA_OFF_SQ_ENTRIES,
		.flags		= TXRDMA_OFF_SQ_FLAGS,
		.dropped	= TXRDMA_OFF_SQ_DROPPED,
		.sqes		= sq_off,
	};
	p.cq_off = (struct txrdma_cq_offsets) {
		.head		= TXRDMA_OFF_CQ_HEAD,
		.tail		= TXRDMA_OFF_CQ_TAIL,
		.ring_mask	= TXRDMA_OFF_CQ_MASK,
		.ring_entries	= TXRDMA_OFF_CQ_ENTRIES,
		.overflow	= TXRDMA_OFF_CQ_OVERFLOW,
		.cqes		= cq_off,
	};
	if (copy_to_user(uarg, &p, sizeof(p))) {
		ret = -EFAULT;
		goto out_free;
	}
	/*
	 * One ring per file; a racing second setup loses cleanly.  The
	 * ring is complete before it is published (release), and readers
	 * of tf->ring (acquire) take no lock.
	 */
	mutex_lock(&txrdma_ring_setup_lock);
	if (tf->ring) {
		mutex_unlock(&txrdma_ring_setup_lock);
		ret = -EBUSY;
		goto out_free;
	}
	/*
	 * On a poller before anyone can see it: an endpoint that joins at
	 * once must find the ring's poller to move it to its device's
	 */
	txrdma_poller_add(ring);
	/* pairs with txrdma_file_ring(): the ring is complete when seen */
	smp_store_release(&tf->ring, ring);
	mutex_unlock(&txrdma_ring_setup_lock);
	return 0;

out_free:
	free_pages_exact(ring->mem, ring->len);
out_uncharge:
	txrdma_ring_uncharge(ring);
	kfree(ring);
	return ret;
}

/* The file's ring, or NULL; it lives until the file is released. */
static struct txrdma_ring *txrdma_file_ring(struct txrdma_file *tf)
{
	/* pairs with the release in txrdma_ioctl_ring_setup() */
	return smp_load_acquire(&tf->ring);
}

/*
 * The doorbell: the process saw TXRDMA_SQ_F_NEED_WAKEUP.  The poller is
 * asleep, so the submissions (and credits owed) are served right here,
 * in the caller's context, as io_uring does without SQPOLL: a message
 * sent to an idle host costs no thread wake-up.  The poller is kicked
 * for what this pass could not finish (a budget's worth, or SQEs that
 * wait for credits or tokens), and when the process is streaming: its
 * doorbells came quicker than the poller sleeps, several in a row
 * (txrdma_doorbell_streak()); woken then, the poller takes the next
 * submissions without a doorbell (the steady state of a stream makes no
 * system call).
 */
long txrdma_ioctl_ring_enter(struct txrdma_file *tf)
{
	struct txrdma_ring *ring = txrdma_file_ring(tf);
	bool more;
	u64 now;

	if (!ring)
		return -ENXIO;
	mutex_lock(&ring->lock);
	/*
	 * The scheduler's clock: a heuristic needs no global time, and it
	 * is a TSC read where ktime may be a device access (hpet)
	 */
	now = local_clock();
	more = txrdma_doorbell_streak(&ring->doorbell, now,
				      txrdma_poller_idle_ns());
	/* the caller's own time: credits, then every class in ring order */
	txrdma_ring_process(ring, TXRDMA_RING_ANY_CLASS,
			    txrdma_class_budget(0));
	more |= txrdma_ring_pending(ring) || READ_ONCE(ring->blocked);
	mutex_unlock(&ring->lock);
	trace_txrdma_doorbell(ring->tenant->id, more);
	if (more)
		txrdma_poller_kick(ring);
	return 0;
}

int txrdma_ring_mmap(struct txrdma_file *tf, struct vm_area_struct *vma)
{
	struct txrdma_ring *ring = txrdma_file_ring(tf);

	if (!ring)
		return -ENXIO;
	if (!(vma->vm_flags & VM_SHARED) ||
	    vma->vm_end - vma->vm_start != ring->len)
		return -EINVAL;
	vma->vm_flags |= VM_DONTEXPAND | VM_DONTDUMP;
	return remap_pfn_range(vma, vma->vm_start,
			       page_to_pfn(virt_to_page(ring->mem)),
			       ring->len, vma->vm_page_prot);
}

__poll_t txrdma_ring_poll(struct txrdma_file *tf, struct file *file,
			  poll_table *wait)
{
	struct txrdma_ring *ring = txrdma_file_ring(tf);

	if (!ring)
		return EPOLLERR;
	poll_wait(file, &ring->wait, wait);
	/* completions the process has not consumed yet */
	if (READ_ONCE(*ring->cq_head) != smp_load_acquire(ring->cq_tail))
		return EPOLLIN | EPOLLRDNORM;
	/* messages published in an endpoint's receive ring */
	if (txrdma_rx_ring_readable(ring))
		return EPOLLIN | EPOLLRDNORM;
	/*
	 * Nothing to read, but SQEs the sleeping poller held back for a
	 * full CQ can go now that the process reaped: a process that waits
	 * here must not need to remember the doorbell.
	 */
	if (READ_ONCE(*ring->sq_flags) & TXRDMA_SQ_F_NEED_WAKEUP) {
		bool pending;

		mutex_lock(&ring->lock);
		pending = txrdma_ring_pending(ring);
		mutex_unlock(&ring->lock);
		if (pending)
			txrdma_poller_kick(ring);
	}
	return 0;
}

void txrdma_ring_release(struct txrdma_file *tf)
{
	struct txrdma_ring *ring = tf->ring;

	if (!ring)
		return;
	txrdma_poller_del(ring);
	/* every endpoint of the file left before (txrdma_eps_file_release) */
	WARN_ON_ONCE(!xa_empty(&ring->eps));
	xa_destroy(&ring->eps);
	mutex_destroy(&ring->lock);
	free_pages_exact(ring->mem, ring->len);
	txrdma_ring_uncharge(ring);
	kfree(ring);
	tf->ring = NULL;
}

/*
 * Could the poller make progress?  SQEs are waiting and the CQ has room
 * (SQEs held back by a full CQ wait for the process to reap and ring
 * the doorbell; impossible indices wait for the process to fix them).
 */
bool txrdma_ring_pending(struct txrdma_ring *ring)
{
	u32 n, space;

	if (txrdma_tx_ring_owes(ring))
		return true;	/* credits owed to a peer */
	if (READ_ONCE(ring->blocked))
		/* a credit update or completion kicks us, or tokens come */
		return ring->wake_ns &&
		       (s64)(ktime_get_ns() - ring->wake_ns) >= 0;
	return !txrdma_sq_pending(ring->khead, READ_ONCE(*ring->sq_tail),
				  ring->sq_entries, &n) && n &&
	       !txrdma_cq_space(ring->ktail, READ_ONCE(*ring->cq_head),
				ring->cq_entries, &space) &&
	       space > READ_ONCE(ring->cq_reserved);
}

/* When a ring blocked on its tenant's buckets may go on (0: not so). */
u64 txrdma_ring_wake_ns(struct txrdma_ring *ring)
{
	return READ_ONCE(ring->blocked) ? ring->wake_ns : 0;
}

/* One more operation in flight will post a CQE: keep a slot for it. */
void txrdma_ring_reserve(struct txrdma_ring *ring)
{
	spin_lock_bh(&ring->cq_lock);
	ring->cq_reserved++;
	spin_unlock_bh(&ring->cq_lock);
}

/*
 * @n operations in flight at once will post a CQE each: keep slots for
 * them if the CQ ring has room beside those kept already (an imported
 * session's SENDs).  Return: 0, or -ENOSPC (nothing kept).
 */
int txrdma_ring_reserve_n(struct txrdma_ring *ring, u32 n)
{
	u32 space;
	int ret = -ENOSPC;

	spin_lock_bh(&ring->cq_lock);
	if (!txrdma_cq_space(ring->ktail, READ_ONCE(*ring->cq_head),
			     ring->cq_entries, &space) &&
	    space >= ring->cq_reserved + n) {
		ring->cq_reserved += n;
		ret = 0;
	}
	spin_unlock_bh(&ring->cq_lock);
	return ret;
}

/* Caller holds cq_lock: write one CQE and publish it. */
static void txrdma_ring_put_cqe(struct txrdma_ring *ring, u64 user_data,
				int res, u32 ep, u8 opcode)
{
	struct txrdma_cqe *cqe;

	cqe = &ring->cqes[ring->ktail & (ring->cq_entries - 1)];
	*cqe = (struct txrdma_cqe) {
		.user_data	= user_data,
		.res		= res,
		.ep		= ep,
		.opcode		= opcode,
	};
	ring->ktail++;
	/* the entry is visible before the tail that covers it */
	smp_store_release(ring->cq_tail, ring->ktail);
}

/**
 * txrdma_ring_complete() - an operation in flight finished
 * @ring: its ring (a slot was reserved for it)
 * @user_data: of its SQE
 * @res: bytes or -errno
 * @ep: endpoint id
 * @opcode: of its SQE
 * @silent: success of an SQE with TXRDMA_SQE_F_NO_CQE: no CQE
 *
 * Process or softirq context.
 */
void txrdma_ring_complete(struct txrdma_ring *ring, u64 user_data, int res,
			  u32 ep, u8 opcode, bool silent)
{
	spin_lock_bh(&ring->cq_lock);
	ring->cq_reserved--;
	if (!silent)
		txrdma_ring_put_cqe(ring, user_data, res, ep, opcode);
	spin_unlock_bh(&ring->cq_lock);
	if (!silent && wq_has_sleeper(&ring->wait))
		wake_up_interruptible_poll(&ring->wait, EPOLLIN | EPOLLRDNORM);
}

static int txrdma_ring_exec(struct txrdma_ring *ring,
			    const struct txrdma_sqe *sqe)
{
	int ret = txrdma_sqe_check(sqe);

	if (ret)
		return ret;
	if (sqe->opcode == TXRDMA_OP_NOP)
		return 0;
	if (sqe->opcode == TXRDMA_OP_SEND)
		return txrdma_tx_send(ring, sqe);
	return txrdma_tx_rw(ring, sqe);
}

/* An SQE of @prio waits: the turn is @cls's and the SQE is of another. */
static bool txrdma_ring_not_turn(u8 cls, u8 tprio, u8 prio)
{
	return cls != TXRDMA_RING_ANY_CLASS &&
	       txrdma_sqe_class(tprio, prio) != cls;
}

/*
 * txrdma_ring_process()'s SQEs: each copied out of shared memory once,
 * checked and executed; its completion (an error always, success
 * unless NO_CQE) is written before the SQ head moves past it.  When
 * the CQ is full the remaining SQEs wait there: nothing is lost and
 * nothing overwritten.  Return: the number of SQEs consumed.
 */
static int txrdma_ring_process_sqes(struct txrdma_ring *ring, u8 cls,
				    u32 budget)
{
	u8 tprio = READ_ONCE(ring->tenant->prio);
	const struct txrdma_sqe *head;
	u32 utail, pending, space, n = 0;
	bool woke = false;

	/* pairs with the process's release of its tail: SQEs are written */
	utail = smp_load_acquire(ring->sq_tail);
	if (txrdma_sq_pending(ring->khead, utail, ring->sq_entries,
			      &pending)) {
		if (!(READ_ONCE(*ring->sq_flags) & TXRDMA_SQ_F_GARBAGE))
			ring->garbage++;
		WRITE_ONCE(*ring->sq_flags,
			   READ_ONCE(*ring->sq_flags) | TXRDMA_SQ_F_GARBAGE);
		return 0;
	}
	if (!pending) {
		WRITE_ONCE(ring->blocked, false);
		ring->wake_ns = 0;
		return 0;
	}
	/* a bounded share per pass, so that every ring gets its turn */
	pending = min_t(u32, pending, budget);
	/* the head waits for its own class's turn: nothing to do now */
	head = &ring->sqes[ring->khead & (ring->sq_entries - 1)];
	if (txrdma_ring_not_turn(cls, tprio, READ_ONCE(head->prio)))
		return 0;
	WRITE_ONCE(ring->blocked, false);
	ring->wake_ns = 0;
	while (n < pending) {
		struct txrdma_sqe sqe;
		u32 reserved;
		int res, bad;

		/* completions move ktail and cq_reserved together */
		spin_lock_bh(&ring->cq_lock);
		bad = txrdma_cq_space(ring->ktail, READ_ONCE(*ring->cq_head),
				      ring->cq_entries, &space);
		reserved = ring->cq_reserved;
		spin_unlock_bh(&ring->cq_lock);
		if (bad) {
			ring->garbage++;
			WRITE_ONCE(*ring->sq_flags, READ_ONCE(*ring->sq_flags) |
				   TXRDMA_SQ_F_GARBAGE);
			break;
		}
		/* room for this SQE's CQE beside those promised */
		if (space <= reserved)
			break;
		memcpy(&sqe, &ring->sqes[ring->khead & (ring->sq_entries - 1)],
		       sizeof(sqe));
		/* decided on the copy: what is executed is what was classed */
		if (txrdma_ring_not_turn(cls, tprio, sqe.prio))
			break;
		res = txrdma_ring_exec(ring, &sqe);
		if (res == TXRDMA_EXEC_BLOCKED) {
			/* stays at the head: order within the ring is kept */
			WRITE_ONCE(ring->blocked, true);
			break;
		}
		/* malformed (not merely failed) entries are counted */
		if (res == -EINVAL || res == -ENOENT || res == -EFAULT ||
		    res == -EMSGSIZE || res == -EPERM) {
			ring->bad_sqes++;
			WRITE_ONCE(*ring->sq_dropped,
				   READ_ONCE(*ring->sq_dropped) + 1);
		}
		if (res != TXRDMA_EXEC_ASYNC &&
		    (res < 0 || !(sqe.flags & TXRDMA_SQE_F_NO_CQE))) {
			spin_lock_bh(&ring->cq_lock);
			txrdma_ring_put_cqe(ring, sqe.user_data, res, sqe.ep,
					    sqe.opcode);
			spin_unlock_bh(&ring->cq_lock);
			woke = true;
		}
		ring->khead++;
		/* the SQE was copied: the process may reuse its slot */
		smp_store_release(ring->sq_head, ring->khead);
		n++;
	}
	/* what the SQEs queued goes to the QPs now, a chain per endpoint */
	txrdma_tx_ring_flush(ring);
	ring->submitted += n;
	if (woke && wq_has_sleeper(&ring->wait))
		wake_up_interruptible_poll(&ring->wait, EPOLLIN | EPOLLRDNORM);
	return n;
}

/**
 * txrdma_ring_process() - consume what the process submitted
 * @ring: a ring of the poller's list; caller holds ring->lock
 * @cls: the class whose turn it is: stop at an SQE of another class
 *	(txrdma_sqe_class()), which waits for its own class's turn;
 *	TXRDMA_RING_ANY_CLASS serves every class in ring order
 * @budget: at most this many SQEs
 *
 * The SQEs (txrdma_ring_process_sqes()), then the credits owed to peers,
 * in the first class's turn (or with every class): a peer may wait for
 * them to send what the process waits for.  After the SQEs, because a
 * SEND among them carries what the process released (a ping-pong's
 * reply does), and an explicit update then goes only when none did: a
 * session's receiver, due at every release that empties its ring,
 * would otherwise send one ahead of every reply.
 *
 * Return: the number of SQEs consumed.
 */
int txrdma_ring_process(struct txrdma_ring *ring, u8 cls, u32 budget)
{
	int n = txrdma_ring_process_sqes(ring, cls, budget);

	if (!cls || cls == TXRDMA_RING_ANY_CLASS)
		txrdma_tx_ring_credits(ring);
	return n;
}
