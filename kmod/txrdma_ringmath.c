// SPDX-License-Identifier: GPL-2.0-only
/*
 * Ring arithmetic and SQE checks: see txrdma_ringmath.h.
 *
 * A process can write anything into its rings.  A tail that claims more
 * entries than the ring holds, a head ahead of what the kernel produced
 * or an SQE with a bad field must turn into an error the process sees
 * (a flag, a counter, an error CQE), never into the kernel reading
 * outside the ring or trusting a length.
 */
#include <linux/errno.h>
#include <linux/log2.h>
#include <linux/minmax.h>

#include "txrdma_ringmath.h"

static_assert(sizeof(struct txrdma_sqe) == 64);
static_assert(sizeof(struct txrdma_cqe) == 32);
static_assert(sizeof(struct txrdma_sq_offsets) == 48);
static_assert(sizeof(struct txrdma_cq_offsets) == 40);
static_assert(sizeof(struct txrdma_ring_setup) == 152);

/**
 * txrdma_ring_entries() - the ring size for a request
 * @wanted: entries asked for, 1..TXRDMA_RING_MAX_ENTRIES
 * @entries: rounded up to a power of two, at least the minimum
 *
 * Return: 0 or -EINVAL (0 or more than the maximum).
 */
int txrdma_ring_entries(u32 wanted, u32 *entries)
{
	if (!wanted || wanted > TXRDMA_RING_MAX_ENTRIES)
		return -EINVAL;
	*entries = max_t(u32, roundup_pow_of_two(wanted),
			 TXRDMA_RING_MIN_ENTRIES);
	return 0;
}

/**
 * txrdma_sq_pending() - SQEs the process published
 * @khead: the kernel's own head
 * @utail: the tail as the process wrote it
 * @entries: ring size
 * @n: how many entries to consume, never more than @entries
 *
 * Return: 0, or -EINVAL when @utail is behind @khead or more than a
 * ring ahead: garbage, and @n is 0 (the kernel waits for a sane tail).
 */
int txrdma_sq_pending(u32 khead, u32 utail, u32 entries, u32 *n)
{
	u32 d = utail - khead;

	if (d > entries) {
		*n = 0;
		return -EINVAL;
	}
	*n = d;
	return 0;
}

/**
 * txrdma_cq_space() - free CQ entries
 * @ktail: the kernel's own tail
 * @uhead: the head as the process wrote it
 * @entries: ring size
 * @space: entries the kernel may produce now
 *
 * Return: 0, or -EINVAL when @uhead is ahead of @ktail or more than a
 * ring behind: garbage, and @space is 0 (completions wait, or count as
 * overflow, rather than overwrite what the process may not have read).
 */
int txrdma_cq_space(u32 ktail, u32 uhead, u32 entries, u32 *space)
{
	u32 used = ktail - uhead;

	if (used > entries) {
		*space = 0;
		return -EINVAL;
	}
	*space = entries - used;
	return 0;
}

/**
 * txrdma_range_ok() - does [off, off + len) lie within [0, size)?
 * @off: start
 * @len: bytes; 0 is allowed at any off <= size
 * @size: the object's size
 *
 * Written so that no addition can overflow.
 */
bool txrdma_range_ok(u64 off, u64 len, u64 size)
{
	return off <= size && len <= size - off;
}

/**
 * txrdma_sqe_check() - the checks an SQE passes before it is looked up
 * @sqe: a copy of the entry (read once from shared memory)
 *
 * Region ids, offsets and the endpoint are checked against the
 * process's objects by the caller; this rejects what no valid SQE has.
 *
 * Return: 0 or -EINVAL.
 */
int txrdma_sqe_check(const struct txrdma_sqe *sqe)
{
	if (sqe->opcode >= TXRDMA_OP_LAST ||
	    (sqe->flags & ~TXRDMA_SQE_F_ALL) ||
	    sqe->prio >= TXRDMA_PRIO_CLASSES ||
	    sqe->resv1 || sqe->resv2[0] || sqe->resv2[1])
		return -EINVAL;
	switch (sqe->opcode) {
	case TXRDMA_OP_NOP:
		/* a NOP has nothing to order */
		if (sqe->len || sqe->local_region || sqe->local_off ||
		    sqe->remote_region || sqe->remote_off ||
		    (sqe->flags & (TXRDMA_SQE_F_FENCE |
				   TXRDMA_SQE_F_IDEMPOTENT)))
			return -EINVAL;
		break;
	case TXRDMA_OP_SEND:
		/* a session's SEND arrives once anyway: never run twice */
		if (sqe->len > TXRDMA_FRAME_MAX_PAYLOAD ||
		    sqe->remote_region || sqe->remote_off ||
		    (sqe->flags & TXRDMA_SQE_F_IDEMPOTENT))
			return -EINVAL;
		break;
	case TXRDMA_OP_READ:
	case TXRDMA_OP_WRITE:
		/*
		 * a zero-length one-sided operation moves nothing; a longer
		 * one than cqe->res can report is refused too
		 */
		if (!sqe->len || sqe->len > TXRDMA_SQE_MAX_LEN)
			return -EINVAL;
		break;
	}
	return 0;
}

/*
 * Priority classes.  The poller serves its rings class by class in every
 * pass: first each ring's SQEs of class 0, then of class 1, and so on,
 * each ring up to txrdma_class_budget() SQEs in its class's turn.  A
 * less urgent class is slowed by the more urgent ones (a smaller share
 * of every pass) but never starved: it has its turn in every pass.
 * Order within a ring is always kept: a ring's turn ends at the first
 * SQE of another class, which waits for its own class's turn (of this
 * pass, or the next one for a more urgent class).
 */

/**
 * txrdma_sqe_class() - the class an SQE is served in
 * @tenant_prio: its tenant's enum txrdma_prio
 * @sqe_prio: sqe->prio as the process wrote it
 *
 * The less urgent of the two: a process may lower its own SQEs (bulk
 * copies beside commit messages) but never raise them above what the
 * administrator gave its tenant.  A @sqe_prio out of range gives the
 * tenant's class; txrdma_sqe_check() refuses the SQE when it is served.
 *
 * Return: 0 (most urgent) .. TXRDMA_PRIO_CLASSES - 1.
 */
u8 txrdma_sqe_class(u8 tenant_prio, u8 sqe_prio)
{
	u8 cls = min_t(u8, tenant_prio, TXRDMA_PRIO_CLASSES - 1);

	if (sqe_prio < TXRDMA_PRIO_CLASSES && sqe_prio > cls)
		cls = sqe_prio;
	return cls;
}

/**
 * txrdma_class_budget() - SQEs one ring may consume in a class's turn
 * @cls: the class, < TXRDMA_PRIO_CLASSES
 *
 * A quarter of the class before it: when every class has work, a pass
 * consumes 256 SQEs of class 0 for every 64, 16 and 4 of classes 1..3.
 * Class 0's budget is what every ring had before classes existed, so a
 * pass stays bounded and rings of one class still take turns.
 */
u32 txrdma_class_budget(u8 cls)
{
	if (cls >= TXRDMA_PRIO_CLASSES)
		cls = TXRDMA_PRIO_CLASSES - 1;
	return 256U >> (2 * cls);
}

/**
 * txrdma_doorbell_streak() - should this doorbell hand the ring to the poller?
 * @db: the ring's doorbell history (updated)
 * @now_ns: when this doorbell rang
 * @idle_ns: how long a poller spins without work (poll_idle_us)
 *
 * A doorbell is served in the caller's own time.  A process that rings
 * TXRDMA_DOORBELL_STREAK times in a row, each within @idle_ns of the one
 * before, is streaming: a poller woken then would not have slept between
 * its submissions, so it takes them over and the stream goes on with no
 * system call.  One quick doorbell is not a stream: a ping-pong whose
 * round trip sometimes beats @idle_ns would otherwise keep the poller
 * spinning beside the processes it serves, which costs every round trip
 * more than the doorbells it saves when CPUs are few.
 *
 * Return: true when the poller should take over (every doorbell of the
 * streak from the TXRDMA_DOORBELL_STREAK'th on).
 */
bool txrdma_doorbell_streak(struct txrdma_doorbell *db, u64 now_ns,
			    u64 idle_ns)
{
	bool quick = db->last_ns && now_ns - db->last_ns < idle_ns;

	db->last_ns = now_ns;
	if (!quick) {
		db->streak = 0;
		return false;
	}
	if (db->streak < TXRDMA_DOORBELL_STREAK)
		db->streak++;
	return db->streak >= TXRDMA_DOORBELL_STREAK;
}
