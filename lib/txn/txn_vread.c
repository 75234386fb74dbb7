// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Consistent one-sided reads over a txrdma endpoint pair.  See
 * txn_vread.h for the interface, txn_vrec.c for why a copy can be
 * trusted; this is the part that moves the bytes.
 *
 * One read.  A record is one slot in the writer's exported memory.  Its
 * copy is one RDMA READ of the whole slot (header, payload up to the
 * capacity, trailer) into our scratch area; when the READ's CQE says it
 * moved every byte, txn_vrec_check() decides on the copy alone: the
 * value of version V, or "may be torn, READ again".  The retry is a new
 * READ of the whole slot, never a patch of the old copy: the checks
 * speak of one READ's bytes, and bytes of two READs are no READ's.
 * txn_vrec_retry_next() bounds the attempts, so that a slot that keeps
 * changing (or is broken in a field that changes, a CRC that never
 * matches) ends in -EBUSY instead of a reader spinning for ever.  The
 * whole slot, not header + @len bytes, because the length is known only
 * from the copy itself; a second READ after the header would again be
 * two READs' bytes.
 *
 * Several records as of one instant (FaRM's version vectors, uapi
 * "Version vectors").  The READs of all the slots are posted together
 * (one round trip for the lot), each copy is checked, and only the torn
 * ones are READ again (a record's copy stands alone: it is the value of
 * its version whenever it was taken).  Once every copy was accepted, the
 * version word of each slot is READ again, and txn_vrec_validate()
 * compares.  Those re-READs are 8-byte READs of the header's version
 * word, not whole slots: the rule needs only the version (a write makes
 * it odd before it changes a payload byte, and versions only grow), a
 * whole slot would move up to its capacity again for 8 bytes of
 * information (READs of up to 4 KiB over rxe cost their bytes), and it
 * would have to be checked again, with retries of its own, for nothing.
 * A torn 8-byte word is covered by the rule too.  The re-READs are posted
 * only after the last copy's CQE was reaped, which orders them after
 * every copy without TXRDMA_SQE_F_FENCE; posting them fenced behind the
 * copies would save a round trip when no copy is torn, at the price of
 * re-READs wasted on every retry: a later step if round trips matter.
 * A record that changed is reported, not read again: the caller knows
 * whether it wants a new attempt (a read-only transaction) or an abort.
 *
 * Completions.  A reader posts its READs and reaps the CQ until their
 * CQEs came, spinning for spin_us (a READ over a NIC completes in a few
 * microseconds), then sleeping in poll(2) on the context's descriptor,
 * which is readable while CQEs wait (and ringing the doorbell if the
 * kernel's poller sleeps), bounded by timeout_ms.  Its READs are tagged
 * (TXN_VREAD_UD_MAGIC and a sequence number in user_data); other CQEs go
 * to the caller's callback.  A READ whose CQE did not come in time may
 * still place its bytes later, over the next read's copy, and that
 * would be worse than torn: a valid copy of another slot, accepted as
 * this one's.  So a timed-out READ stays counted in flight, and a read
 * first waits until none is (txn_vread_cqe() lets a caller whose own
 * loop reaps the CQ account for them); a late CQE of an old batch is
 * known by its sequence number and only counted down.
 *
 * READ errors are returned as the CQE gives them and never retried here:
 * -EPERM or -EFAULT is a wrong slot or export, -ENOTCONN and its kin a
 * pair that is gone; none of them is a torn copy.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <time.h>

#include "txn_clock.h"
#include "txn_vread.h"

#define UD_SHIFT		40
#define SEQ_MASK		((1ULL << UD_SHIFT) - 1)
#define DEFAULT_TIMEOUT_MS	1000
#define DEFAULT_SPIN_US		20
#define NAP_MAX_MS		10

#if defined(__x86_64__) || defined(__i386__)
#define cpu_relax()	__builtin_ia32_pause()
#elif defined(__aarch64__)
#define cpu_relax()	__asm__ __volatile__("yield" ::: "memory")
#else
#define cpu_relax()	do { } while (0)
#endif

/* one READ to post */
struct op {
	uint32_t region;	/* remote */
	uint32_t len;
	uint64_t roff;		/* in the remote region */
	uint64_t loff;		/* in the scratch area */
};

enum wait_for { W_BATCH, W_IDLE, W_SQ };

static bool cap_ok(uint32_t cap)
{
	return cap >= 8 && cap <= TXRDMA_VREC_MAX_CAP && !(cap % 8);
}

int txn_vread_init(struct txn_vread *r, const struct txn_vread_cfg *cfg)
{
	if (!r || !cfg || !cfg->sq || !cfg->cq || !cfg->local_addr ||
	    (uintptr_t)cfg->local_addr % 8 || cfg->local_off % 8 ||
	    cfg->local_len < 8)
		return -EINVAL;
	memset(r, 0, sizeof(*r));
	r->cfg = *cfg;
	if (!r->cfg.timeout_ms)
		r->cfg.timeout_ms = DEFAULT_TIMEOUT_MS;
	if (!r->cfg.spin_us)
		r->cfg.spin_us = DEFAULT_SPIN_US;
	if (!r->cfg.max_attempts)
		r->cfg.max_attempts = TXN_VREC_RETRY_DEFAULT;
	txn_vrec_retry_init(&r->retry, r->cfg.max_attempts);
	return 0;
}

bool txn_vread_cqe(struct txn_vread *r, const struct txrdma_cqe *cqe)
{
	uint64_t seq;

	if (cqe->user_data >> UD_SHIFT != TXN_VREAD_UD_MAGIC)
		return false;
	if (r->inflight)
		r->inflight--;
	seq = cqe->user_data & SEQ_MASK;
	if (r->res && ((seq - r->base) & SEQ_MASK) < r->n) {
		r->res[(seq - r->base) & SEQ_MASK] = cqe->res;
		r->done++;
	}
	return true;
}

/* Take every CQE waiting: ours counted, the others passed on. */
static void reap(struct txn_vread *r)
{
	struct txrdma_cqe *cqe;

	while ((cqe = txrdma_peek_cqe(r->cfg.cq))) {
		struct txrdma_cqe c = *cqe;

		/* released first: the callback may post and reap itself */
		txrdma_cq_advance(r->cfg.cq, 1);
		if (txn_vread_cqe(r, &c))
			continue;
		r->st.other_cqes++;
		if (r->cfg.other_cqe)
			r->cfg.other_cqe(r->cfg.other_arg, &c);
	}
}

static bool satisfied(struct txn_vread *r, enum wait_for w, unsigned int k)
{
	switch (w) {
	case W_BATCH:
		return r->done >= r->n;
	case W_IDLE:
		return !r->inflight;
	default:
		return txrdma_sq_space_left(r->cfg.sq) >= k;
	}
}

/*
 * Sleep until the kernel may have something for us, at most @left_ns
 * (and NAP_MAX_MS).  Without a context (a test's fake kernel serves the
 * rings) there is no descriptor: nap 100 us.
 */
static void nap(struct txn_vread *r, uint64_t left_ns)
{
	struct timespec ts = { 0, 100000 };
	struct pollfd pfd;
	uint64_t ms = left_ns / 1000000 + 1;

	if (!r->cfg.ctx) {
		nanosleep(&ts, NULL);
		return;
	}
	if (txrdma_sq_needs_wakeup(r->cfg.sq))
		txrdma_rings_enter(r->cfg.ctx);
	pfd = (struct pollfd){ .fd = txrdma_fd(r->cfg.ctx), .events = POLLIN };
	poll(&pfd, 1, ms < NAP_MAX_MS ? (int)ms : NAP_MAX_MS);
}

/* Reap until @w holds, spinning first, then sleeping; or -ETIMEDOUT. */
static int wait_until(struct txn_vread *r, enum wait_for w, unsigned int k)
{
	uint64_t start = txn_clock_ns(CLOCK_MONOTONIC), t;
	uint64_t spin_end = start + (uint64_t)r->cfg.spin_us * 1000;
	uint64_t end = start + (uint64_t)r->cfg.timeout_ms * 1000000;

	for (;;) {
		reap(r);
		if (satisfied(r, w, k))
			return 0;
		t = txn_clock_ns(CLOCK_MONOTONIC);
		if (t >= end) {
			r->st.timeouts++;
			return -ETIMEDOUT;
		}
		if (t >= spin_end)
			nap(r, end - t);
		else
			cpu_relax();
	}
}

/*
 * Post @n READs together, wait for all their CQEs, and check what they
 * say.  Return: 0 when each moved its length; the first READ error;
 * -EIO for a short one; -ETIMEDOUT; the doorbell's error.
 */
static int post(struct txn_vread *r, const struct op *ops, unsigned int n,
		int32_t *res)
{
	unsigned int i;
	int err;

	/* a READ of an earlier call may still write into the scratch area */
	err = wait_until(r, W_IDLE, 0);
	if (!err)
		err = wait_until(r, W_SQ, n);
	if (err)
		return err;
	r->base = r->seq;
	r->n = n;
	r->done = 0;
	r->res = res;
	for (i = 0; i < n; i++) {
		struct txrdma_sqe *sqe = txrdma_get_sqe(r->cfg.sq);

		/* W_SQ saw room for all: only we hand out SQEs meanwhile */
		txrdma_prep_read(sqe, r->cfg.ep, r->cfg.local_region,
				 r->cfg.local_off + ops[i].loff, ops[i].len,
				 ops[i].region, ops[i].roff,
				 TXN_VREAD_UD_MAGIC << UD_SHIFT |
				 (r->seq & SEQ_MASK));
		r->seq++;
	}
	r->inflight += n;
	r->st.posted += n;
	if (r->cfg.ctx) {
		err = txrdma_submit(r->cfg.ctx, r->cfg.sq);
		err = err < 0 ? err : 0;
	} else {
		txrdma_sq_flush(r->cfg.sq);
	}
	/* published even when the doorbell failed: their CQEs will come */
	if (!err)
		err = wait_until(r, W_BATCH, 0);
	r->n = 0;
	r->res = NULL;
	if (err)
		return err;
	for (i = 0; i < n; i++) {
		if (res[i] < 0) {
			r->st.errors++;
			if (!err)
				err = res[i];
		} else if ((uint32_t)res[i] != ops[i].len) {
			r->st.errors++;
			if (!err)
				err = -EIO;
		}
	}
	return err;
}

static const void *scratch(const struct txn_vread *r, uint64_t off)
{
	return (const unsigned char *)r->cfg.local_addr + off;
}

int txn_vread_one(struct txn_vread *r, const struct txn_vread_slot *slot,
		  struct txn_vrec_view *view)
{
	struct op op;
	int32_t res;
	int err;

	if (!r || !slot || !view || !cap_ok(slot->cap))
		return -EINVAL;
	op = (struct op){
		.region = slot->region,
		.len = (uint32_t)TXRDMA_VREC_SLOT_SIZE(slot->cap),
		.roff = slot->off,
		.loff = 0,
	};
	if (op.len > r->cfg.local_len)
		return -ENOSPC;
	do {
		err = post(r, &op, 1, &res);
		if (!err)
			err = txn_vrec_check(scratch(r, 0), slot->cap, view);
		/* any result but -EAGAIN ends the read (and resets it) */
		err = txn_vrec_retry_next(&r->retry, err);
		if (err == -EAGAIN)
			r->st.retries++;
	} while (err == -EAGAIN);
	if (!err)
		r->st.reads++;
	else if (err == -EBUSY)
		r->st.gave_up++;
	return err;
}

int txn_vread_multi(struct txn_vread *r, const struct txn_vread_slot *slots,
		    unsigned int n, struct txn_vrec_view *views,
		    uint64_t *changed)
{
	unsigned int todo[TXN_VREAD_MAX_MULTI], tries[TXN_VREAD_MAX_MULTI];
	uint64_t first[TXN_VREAD_MAX_MULTI], reread[TXN_VREAD_MAX_MULTI];
	uint64_t loff[TXN_VREAD_MAX_MULTI], total = 0, vers;
	struct op ops[TXN_VREAD_MAX_MULTI];
	int32_t res[TXN_VREAD_MAX_MULTI];
	unsigned int i, k, ntodo, kept;
	int err;

	if (!r || !slots || !views || !n || n > TXN_VREAD_MAX_MULTI ||
	    n > r->cfg.sq->ring_entries)
		return -EINVAL;
	/* copies one after the other (slot sizes are multiples of 8),
	 * then the n version words
	 */
	for (i = 0; i < n; i++) {
		if (!cap_ok(slots[i].cap))
			return -EINVAL;
		loff[i] = total;
		total += TXRDMA_VREC_SLOT_SIZE(slots[i].cap);
		todo[i] = i;
		tries[i] = 0;
	}
	vers = total;
	total += 8ULL * n;
	if (total > r->cfg.local_len)
		return -ENOSPC;

	for (ntodo = n; ntodo; ntodo = kept) {
		for (k = 0; k < ntodo; k++) {
			i = todo[k];
			ops[k] = (struct op){
				.region = slots[i].region,
				.len = (uint32_t)TXRDMA_VREC_SLOT_SIZE(slots[i].cap),
				.roff = slots[i].off,
				.loff = loff[i],
			};
		}
		err = post(r, ops, ntodo, res);
		if (err)
			return err;
		kept = 0;
		for (k = 0; k < ntodo; k++) {
			i = todo[k];
			err = txn_vrec_check(scratch(r, loff[i]), slots[i].cap,
					     &views[i]);
			if (!err) {
				first[i] = views[i].version;
				continue;
			}
			if (err != -EAGAIN)
				return err;
			if (++tries[i] >= r->cfg.max_attempts) {
				r->st.gave_up++;
				return -EBUSY;
			}
			r->st.retries++;
			todo[kept++] = i;
		}
	}

	/* every copy's CQE was reaped: the version words again */
	for (i = 0; i < n; i++)
		ops[i] = (struct op){
			.region = slots[i].region,
			.len = 8,
			.roff = slots[i].off + TXRDMA_VREC_VERSION_OFF,
			.loff = vers + 8ULL * i,
		};
	err = post(r, ops, n, res);
	if (err)
		return err;
	/* as they came (little-endian): txn_vrec_validate() converts */
	memcpy(reread, scratch(r, vers), 8ULL * n);
	err = txn_vrec_validate(first, reread, n, changed);
	if (err < 0)
		return err;
	r->st.multi++;
	r->st.reads += n;
	if (err) {
		r->st.multi_conflicts++;
		r->st.changed += (uint64_t)err;
	}
	return err;
}
