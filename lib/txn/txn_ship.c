// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Log shipping over txrdma: txn_log.c's writer, reader and merger,
 * moved by real asynchronous RDMA WRITEs on endpoint pairs.  See
 * txn_ship.h for the interface, uapi/linux/txrdma_tlog.h for the bytes,
 * txn_ship_proto.c for the WRITE plan, the feedback rule and the
 * messages, which this glue runs.
 *
 * The shape.  One endpoint pair per writer, between the writer's host
 * and the reader's.  The reader makes one region per writer, the ring
 * at its start, exports exactly the ring to that writer's pair with
 * WRITE access (nothing else of the reader's memory is reachable), and
 * tells the writer the region and the ring's size in a RING message on
 * the pair.  txrdma_ep_export() returns only once the writer's module
 * stored the export, so the writer, reading the RING message, finds
 * it in txrdma_ep_exports() and checks it there before its first WRITE.
 * The writer's stage (txn_log.h: its copy of the ring, entries built at
 * the offset they take in the reader's ring) is a region of its own, so
 * a WRITE is "stage region, offset X" to "ring region, offset X".
 *
 * WRITE batching.  Appending only builds bytes in the stage; a flush
 * queues what was appended since the last one in the WRITE plan
 * (txn_ship_proto.c), which merges ranges that touch and hands out
 * WRITEs of at most max_write bytes.  WRITEs are posted without waiting
 * for any: each takes an SQE, and at most max_inflight (and never more
 * than the SQ holds) are posted and not completed, so the CQ, twice the
 * SQ, cannot overflow with the ship as its only user.  What does not fit
 * stays in the plan and is posted by a later flush or poll, as
 * completions free SQEs.  A completion only frees its SQE slot and
 * counts: nothing waits for it, and no byte of the stage is released by
 * it (below).
 *
 * The ordering this rests on.  An RDMA WRITE's bytes become visible at
 * the reader in no promised order: within one WRITE, and between WRITEs
 * posted one after the other, a later byte may land before an earlier
 * one, and the completion the writer sees says nothing about what the
 * reader's CPU sees yet.  That is exactly why txn_log's reader checks a
 * CRC32C over every entry (and the entry's position against the one
 * due) and never consumes a partly written entry: it says "not yet" and
 * looks again.  Nothing here tells the reader that a WRITE completed,
 * and nothing needs to: the bytes prove themselves.  The reader counts
 * the entries whose header it saw, at the position due, before the
 * whole entry checked out (txn_ship_reader_stats: "incomplete").
 *
 * Reusing stage bytes.  The writer changes a byte of the stage only at
 * an offset whose previous lap the reader said it consumed (txn_log
 * enforces it: -ENOSPC otherwise), never because a WRITE completed.  A
 * WRITE still in flight that copies such an offset (or a retransmission
 * of one, which RC may place again) copies the next lap's bytes to the
 * place they are for; a torn copy of them fails the CRC until the next
 * lap's own WRITE lands.  Bytes the reader has not consumed are never
 * touched, so what any WRITE copies there is what it was posted for.
 *
 * Consumed-position feedback.  The reader tells each writer, in a
 * FEEDBACK message on the writer's pair, the position up to which it
 * consumed the writer's log (and the clock it merged: every writer's
 * entries delivered, which a writer observes with TXN_SHIP_F_OBSERVE so
 * that its later entries follow them).  When is the feedback rule's
 * (txn_ship_proto.c): after every quarter ring consumed (fb_every), and
 * when idle once fb_idle_us passed since the last message.
 * txn_ship_reader_feedback() reports at once (the end of a stream).
 *
 * A delivered entry's payload is read in place in the ring, so the
 * reader reports an entry consumed only once the caller is done with
 * it: at its next call (next, poll or feedback), which releases the
 * entry the previous next returned.
 *
 * Errors.  Negative errno values.  A writer's protocol or WRITE error is
 * sticky: every later call returns it (a WRITE that failed leaves a hole
 * in the reader's ring that nothing fills; the pair must be rebuilt, a
 * new writer resuming as txrdma_tlog.h says).  A reader's SEND error is
 * returned by the poll that reaps it and is not sticky: the last
 * FEEDBACK of a stream may complete with -ECONNRESET when its writer,
 * having read it, closed the pair first; a merge error (-EPROTO) is.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <endian.h>

#include <txrdma.h>

#include "txn_clock.h"
#include "txn_ship.h"

#define INFLIGHT_DEFAULT	32
#define RING_WAIT_MS_DEFAULT	10000
#define FB_SLOT		256	/* bytes per FEEDBACK send slot */
#define FB_SLOTS	4	/* FEEDBACKs in flight per writer */

_Static_assert(TXN_SHIP_MSG_MAX <= FB_SLOT, "a message fits a slot");
_Static_assert(TXRDMA_TLOG_MAX_CLOCK < 256 && FB_SLOTS <= 8,
	       "writer and slot fit a byte each of user_data");

/* ---- shared glue ------------------------------------------------------ */

/* bytes of a module-owned region holding @n: whole 2 MiB pages */
static uint64_t region_bytes(uint64_t n)
{
	return (n + TXRDMA_REGION_HUGE_SIZE - 1) &
	       ~(uint64_t)(TXRDMA_REGION_HUGE_SIZE - 1);
}

static bool ours(const struct txrdma_cqe *cqe, uint8_t op)
{
	return (cqe->user_data >> 32) == TXN_SHIP_UD_TAG && cqe->opcode == op;
}

/* ---- the writer ------------------------------------------------------- */

struct txn_ship_writer {
	struct txrdma_ctx *ctx;
	struct txrdma_sq *sq;
	struct txrdma_cq *cq;
	struct txrdma_rx *rx;
	uint32_t ep;
	uint32_t ring_region;
	uint32_t flags;
	uint32_t max_inflight;
	struct txrdma_region stage;
	struct txn_log_writer log;
	struct txn_ship_plan plan;
	struct txn_ship_writer_stats st;
	int err;		/* sticky */
};

/* wait for the RING message on @rx until @deadline (us) */
static int ring_msg(struct txn_ship_writer *w, uint64_t deadline,
		    struct txn_ship_msg *m)
{
	struct pollfd pfd = { .fd = txrdma_fd(w->ctx), .events = POLLIN };
	const void *buf;
	uint32_t len;
	int rc;

	for (;;) {
		rc = txrdma_rx_peek(w->rx, &buf, &len);
		if (rc < 0)
			return rc;
		if (rc) {
			rc = txn_ship_msg_decode(buf, len, m);
			txrdma_rx_release(w->rx);
			if (rc || m->type != TXN_SHIP_RING)
				return -EPROTO;
			return 0;
		}
		if (txn_clock_us() >= deadline)
			return -ETIMEDOUT;
		if (txrdma_sq_needs_wakeup(w->sq))
			txrdma_rings_enter(w->ctx);
		poll(&pfd, 1, 10);
	}
}

/* Is [0, @size) of region @region exported to @ep with WRITE access? */
static int ring_exported(struct txn_ship_writer *w, uint32_t region,
			 uint64_t size)
{
	struct txrdma_ep_exports x;
	unsigned int i;
	int rc;

	rc = txrdma_ep_exports(w->ctx, w->ep, &x);
	if (rc)
		return rc;
	for (i = 0; i < x.nimported && i < TXRDMA_EP_MAX_EXPORTS; i++)
		if (x.imported[i].region == region && !x.imported[i].off &&
		    x.imported[i].len >= size &&
		    (x.imported[i].access & TXRDMA_EXPORT_WRITE))
			return 0;
	return -EPROTO;
}

/*
 * Open writer @cfg->id of a group of @cfg->nwriters on endpoint @ep of
 * @ctx (its rings @sq and @cq; @rx the pair's receive ring, which
 * carries the reader's messages only from now on).  Waits up to
 * @cfg->timeout_ms for the reader's RING message, checks that the ring
 * is exported to the pair with WRITE access, and makes the stage (a
 * region as large as the ring).
 * Return: 0 and *@wp; -EINVAL (arguments); -ETIMEDOUT (no RING); the
 * pair's error (txrdma_rx_peek()); -EPROTO (a message that is not a
 * RING for this writer of this group, or a ring not exported so); the
 * errors of txrdma_ep_exports() and txrdma_region_create(); -ENOMEM.
 */
int txn_ship_writer_open(struct txn_ship_writer **wp, struct txrdma_ctx *ctx,
			 struct txrdma_sq *sq, struct txrdma_cq *cq,
			 uint32_t ep, struct txrdma_rx *rx,
			 const struct txn_ship_writer_cfg *cfg)
{
	struct txn_ship_writer *w;
	struct txn_ship_msg m;
	uint64_t deadline;
	int rc;

	if (!wp || !ctx || !sq || !cq || !rx || !cfg || !cfg->nwriters ||
	    cfg->nwriters > TXRDMA_TLOG_MAX_CLOCK || cfg->id >= cfg->nwriters ||
	    (cfg->flags & ~TXN_SHIP_F_OBSERVE) ||
	    cfg->max_write > TXRDMA_SQE_MAX_LEN)
		return -EINVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	*w = (struct txn_ship_writer) {
		.ctx		= ctx,
		.sq		= sq,
		.cq		= cq,
		.rx		= rx,
		.ep		= ep,
		.flags		= cfg->flags,
		.max_inflight	= cfg->max_inflight ? cfg->max_inflight :
				  INFLIGHT_DEFAULT,
	};
	if (w->max_inflight > sq->ring_entries)
		w->max_inflight = sq->ring_entries;
	deadline = txn_clock_us() + 1000ull * (cfg->timeout_ms ? cfg->timeout_ms :
					 RING_WAIT_MS_DEFAULT);
	rc = ring_msg(w, deadline, &m);
	if (rc)
		goto out;
	if (m.writer != cfg->id || m.nclock != cfg->nwriters) {
		rc = -EPROTO;
		goto out;
	}
	rc = ring_exported(w, m.region, m.val);
	if (rc)
		goto out;
	w->ring_region = m.region;
	rc = txrdma_region_create(ctx, region_bytes(m.val), 0, &w->stage);
	if (rc)
		goto out;
	rc = txn_log_writer_init(&w->log, cfg->id, cfg->nwriters, m.val,
				 w->stage.addr);
	if (!rc)
		rc = txn_ship_plan_init(&w->plan, m.val, cfg->max_write);
	if (rc) {
		/* a ring too small for the group: the reader's mistake */
		rc = rc == -EINVAL ? -EPROTO : rc;
		txrdma_region_destroy(ctx, &w->stage);
		goto out;
	}
	*wp = w;
	return 0;
out:
	free(w);
	return rc;
}

/*
 * Append an entry (txn_log_append()): built in the stage, sent by a
 * later flush.  Return: 0; -ENOSPC when the reader has not consumed
 * enough (poll, then again); -EMSGSIZE (more than half the ring);
 * -EINVAL; the writer's sticky error.
 */
int txn_ship_writer_append(struct txn_ship_writer *w, const void *payload,
			   uint32_t len, struct txn_log_entry *e)
{
	int rc;

	if (w->err)
		return w->err;
	rc = txn_log_append(&w->log, payload, len, e);
	if (rc == -ENOSPC)
		w->st.full++;
	if (rc)
		return rc;
	w->st.entries++;
	w->st.bytes += len;
	return 0;
}

/* post what the plan holds, within the SQ and max_inflight */
static int post(struct txn_ship_writer *w)
{
	struct txn_ship_range r;
	int n = 0;

	while (w->plan.n && w->st.inflight < w->max_inflight) {
		struct txrdma_sqe *sqe = txrdma_get_sqe(w->sq);

		if (!sqe) {
			w->st.sq_full++;
			break;
		}
		txn_ship_plan_next(&w->plan, &r);
		txrdma_prep_write(sqe, w->ep, w->stage.id, r.off, (uint32_t)r.len,
				  w->ring_region, r.off,
				  (uint64_t)TXN_SHIP_UD_TAG << 32 | r.len);
		w->st.inflight++;
		n++;
	}
	if (n)
		txrdma_submit(w->ctx, w->sq);
	return n;
}

/*
 * Hand out what was appended since the last flush and post WRITEs for
 * it, as many as the SQ and max_inflight allow now (the rest goes with
 * a later flush or poll).  Never waits.  Return: WRITEs posted; the
 * sticky error.
 */
int txn_ship_writer_flush(struct txn_ship_writer *w)
{
	struct txn_log_piece piece[2];
	unsigned int n;
	int rc;

	if (w->err)
		return w->err;
	n = txn_log_writer_flush(&w->log, piece);
	rc = txn_ship_plan_add(&w->plan, piece, n);
	if (rc)
		return w->err = rc;	/* cannot happen: txn_ship_proto.c */
	return post(w);
}

/*
 * Take completion @cqe, if it is one of this writer's WRITEs (for a
 * caller whose CQ has other users; else txn_ship_writer_poll() reaps).
 * Return: 1 when it was; 0 when not ours; a failed WRITE's error
 * (sticky), -EIO for a short one.
 */
int txn_ship_writer_cqe(struct txn_ship_writer *w,
			const struct txrdma_cqe *cqe)
{
	uint32_t len = (uint32_t)cqe->user_data;

	if (!ours(cqe, TXRDMA_OP_WRITE) || cqe->ep != w->ep ||
	    !w->st.inflight)
		return 0;
	w->st.inflight--;
	if (cqe->res < 0)
		return w->err = w->err ? w->err : cqe->res;
	if ((uint32_t)cqe->res != len)
		return w->err = w->err ? w->err : -EIO;
	w->st.writes++;
	w->st.write_bytes += len;
	return 1;
}

/* a FEEDBACK: the reader's consumed position, its clock */
static int feedback(struct txn_ship_writer *w, const void *buf, uint32_t len)
{
	struct txn_ship_msg m;

	if (txn_ship_msg_decode(buf, len, &m) || m.type != TXN_SHIP_FEEDBACK ||
	    m.writer != w->log.id || m.nclock != w->log.nclock)
		return -EPROTO;
	if (txn_log_writer_consumed(&w->log, m.val))
		return -EPROTO;
	if ((w->flags & TXN_SHIP_F_OBSERVE) &&
	    txn_log_observe(&w->log, m.clock, m.nclock))
		return -EPROTO;
	w->st.feedbacks++;
	return 0;
}

/*
 * Reap every completion of the CQ (those not this writer's are dropped
 * and counted: use txn_ship_writer_cqe() when the CQ is shared), take
 * the reader's FEEDBACKs, post what waits, ring the doorbell if the
 * kernel's poller sleeps.  Never waits: sleep in poll(2) on
 * txrdma_fd() between calls (completions and messages wake it).
 * Return: how many things happened (completions, messages, WRITEs
 * posted), 0 for none; the sticky error: a failed WRITE's, the pair's
 * (txrdma_rx_peek()), -EPROTO for a message that is not a FEEDBACK for
 * this writer or one that says what cannot be (a position behind an
 * earlier one or beyond what was handed out; a clock claiming more of
 * this writer's entries than it appended).
 */
int txn_ship_writer_poll(struct txn_ship_writer *w)
{
	struct txrdma_cqe *cqe;
	const void *buf;
	uint32_t len;
	int n = 0, rc;

	while ((cqe = txrdma_peek_cqe(w->cq))) {
		rc = txn_ship_writer_cqe(w, cqe);
		txrdma_cq_advance(w->cq, 1);
		if (!rc)
			w->st.foreign++;
		n++;
	}
	while (!w->err && (rc = txrdma_rx_peek(w->rx, &buf, &len))) {
		if (rc < 0) {
			w->err = rc;
			break;
		}
		rc = feedback(w, buf, len);
		txrdma_rx_release(w->rx);
		if (rc)
			w->err = rc;
		n++;
	}
	if (w->err)
		return w->err;
	n += post(w);
	if (txrdma_sq_needs_wakeup(w->sq))
		txrdma_rings_enter(w->ctx);
	return n;
}

/* Everything appended was flushed, posted and completed. */
bool txn_ship_writer_idle(const struct txn_ship_writer *w)
{
	return w->log.flushed == w->log.pos && !w->plan.n && !w->st.inflight;
}

void txn_ship_writer_stats(const struct txn_ship_writer *w,
			   struct txn_ship_writer_stats *s)
{
	*s = w->st;
	s->pos = w->log.pos;
	s->flushed = w->log.flushed;
	s->consumed = w->log.consumed;
	s->pending = w->plan.bytes;
}

/* The writer's vector clock (nwriters components). */
const uint64_t *txn_ship_writer_clock(const struct txn_ship_writer *w)
{
	return w->log.clock;
}

/*
 * Free the writer and its stage.  The pair stays the caller's.
 * Return: 0; -EBUSY while WRITEs are in flight (they read the stage:
 * poll until they completed, after txrdma_ep_destroy() too, which
 * completes them with -ECANCELED), nothing freed.
 */
int txn_ship_writer_close(struct txn_ship_writer *w)
{
	if (!w)
		return 0;
	if (w->st.inflight)
		return -EBUSY;
	txrdma_region_destroy(w->ctx, &w->stage);
	free(w);
	return 0;
}

/* ---- the reader ------------------------------------------------------- */

struct rstream {
	bool attached;
	uint32_t ep;
	struct txrdma_region r;	/* ring at 0, send slots after it */
	struct txn_ship_fb fb;
	uint64_t done;		/* the caller is done up to here */
	unsigned int busy;	/* send slots in flight, a bit each */
	bool inc_seen;		/* inc_pos was counted incomplete */
	uint64_t inc_pos;
};

struct txn_ship_reader {
	struct txrdma_ctx *ctx;
	struct txrdma_sq *sq;
	struct txrdma_cq *cq;
	struct txn_ship_reader_cfg cfg;
	struct txn_log_merge m;
	struct rstream s[TXRDMA_TLOG_MAX_CLOCK];
	struct txn_ship_reader_stats st;
	int err;		/* sticky: the merge's */
};

/*
 * Open a reader of @cfg->nwriters writers' rings of @cfg->ring_size
 * bytes on @ctx (its rings @sq and @cq).  Return: 0 and *@rp; -EINVAL
 * (arguments, or a ring txn_log cannot use for the group); -ENOMEM.
 */
int txn_ship_reader_open(struct txn_ship_reader **rp, struct txrdma_ctx *ctx,
			 struct txrdma_sq *sq, struct txrdma_cq *cq,
			 const struct txn_ship_reader_cfg *cfg)
{
	struct txn_ship_reader *r;
	struct txn_ship_fb fb;
	unsigned int i;
	int rc;

	if (!rp || !ctx || !sq || !cq || !cfg ||
	    txn_ship_fb_init(&fb, cfg->ring_size, cfg->fb_every,
			     cfg->fb_idle_us) ||
	    cfg->ring_size < 2 * txn_log_entry_size(cfg->nwriters, 0))
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->ctx = ctx;
	r->sq = sq;
	r->cq = cq;
	r->cfg = *cfg;
	rc = txn_log_merge_init(&r->m, cfg->nwriters);
	if (rc) {
		free(r);
		return rc;
	}
	for (i = 0; i < cfg->nwriters; i++)
		r->s[i].fb = fb;
	*rp = r;
	return 0;
}

/* SEND @m to writer @wi from a free slot: 1, or 0 when none is free */
static int send_msg(struct txn_ship_reader *r, unsigned int wi,
		    const struct txn_ship_msg *m)
{
	struct rstream *s = &r->s[wi];
	struct txrdma_sqe *sqe;
	unsigned int slot;
	uint64_t off;
	size_t len;

	for (slot = 0; slot < FB_SLOTS && (s->busy & (1u << slot)); slot++)
		;
	if (slot == FB_SLOTS)
		return 0;
	sqe = txrdma_get_sqe(r->sq);
	if (!sqe)
		return 0;
	off = r->cfg.ring_size + slot * FB_SLOT;
	len = txn_ship_msg_encode((uint8_t *)s->r.addr + off, FB_SLOT, m);
	txrdma_prep_send(sqe, s->ep, s->r.id, off, (uint32_t)len,
			 (uint64_t)TXN_SHIP_UD_TAG << 32 | wi << 8 | slot);
	txrdma_submit(r->ctx, r->sq);
	s->busy |= 1u << slot;
	return 1;
}

/*
 * Writer @writer's pair is endpoint @ep: make its ring (a region of
 * its own, zeroed), export the ring to the pair with WRITE access, and
 * send the writer the RING message (its completion is reaped by poll).
 * Return: 0; -EINVAL (no such writer); -EEXIST (attached already);
 * -EBUSY (no SQE free: poll, then again); the errors of
 * txrdma_region_create() and txrdma_ep_export() (nothing is left then).
 */
int txn_ship_reader_attach(struct txn_ship_reader *r, unsigned int writer,
			   uint32_t ep)
{
	struct rstream *s;
	struct txrdma_export_info x;
	struct txn_ship_msg m;
	int rc;

	if (writer >= r->cfg.nwriters)
		return -EINVAL;
	s = &r->s[writer];
	if (s->attached)
		return -EEXIST;
	if (!txrdma_sq_space_left(r->sq))
		return -EBUSY;
	rc = txrdma_region_create(r->ctx, region_bytes(r->cfg.ring_size +
						       FB_SLOTS * FB_SLOT),
				  0, &s->r);
	if (rc)
		return rc;
	x = (struct txrdma_export_info) {
		.region	= s->r.id,
		.access	= TXRDMA_EXPORT_WRITE,
		.off	= 0,
		.len	= r->cfg.ring_size,
	};
	rc = txrdma_ep_export(r->ctx, ep, &x, r->cfg.timeout_ms);
	if (!rc)
		rc = txn_log_merge_attach(&r->m, writer, s->r.addr,
					  r->cfg.ring_size);
	if (rc) {
		txrdma_region_destroy(r->ctx, &s->r);
		return rc;
	}
	s->ep = ep;
	s->attached = true;
	m = (struct txn_ship_msg) {
		.type	= TXN_SHIP_RING,
		.nclock	= r->cfg.nwriters,
		.writer	= writer,
		.region	= s->r.id,
		.val	= r->cfg.ring_size,
	};
	send_msg(r, writer, &m);	/* a free slot and SQE: checked */
	return 0;
}

/* the caller is done with every entry delivered so far */
static void release_all(struct txn_ship_reader *r)
{
	unsigned int i;

	for (i = 0; i < r->cfg.nwriters; i++)
		r->s[i].done = txn_log_merge_consumed(&r->m, i);
}

/* tell writer @wi how far it was consumed: 1 sent, 0 deferred */
static int tell(struct txn_ship_reader *r, unsigned int wi, uint64_t now)
{
	struct rstream *s = &r->s[wi];
	struct txn_ship_msg m = {
		.type	= TXN_SHIP_FEEDBACK,
		.nclock	= r->cfg.nwriters,
		.writer	= wi,
		.val	= s->done,
	};

	memcpy(m.clock, r->m.delivered, sizeof(m.clock));
	if (!send_msg(r, wi, &m)) {
		r->st.fb_busy++;
		return 0;
	}
	txn_ship_fb_sent(&s->fb, s->done, now);
	r->st.feedbacks++;
	return 1;
}

/* FEEDBACK to every writer whose rule says so */
static void feedback_due(struct txn_ship_reader *r, bool idle)
{
	uint64_t now = idle ? txn_clock_us() : 0;
	unsigned int i;

	for (i = 0; i < r->cfg.nwriters; i++) {
		struct rstream *s = &r->s[i];

		if (!s->attached || !txn_ship_fb_due(&s->fb, s->done, idle, now))
			continue;
		if (!idle)
			now = txn_clock_us();
		tell(r, i, now);
	}
}

/*
 * Nothing was deliverable: count the entries seen due but not whole
 * (their header at the position due, the rest still arriving).
 */
static void count_incomplete(struct txn_ship_reader *r)
{
	unsigned int i;

	for (i = 0; i < r->cfg.nwriters; i++) {
		const struct txn_log_stream *ls = &r->m.s[i];
		struct rstream *s = &r->s[i];
		struct txrdma_tlog_hdr h;
		uint64_t off;

		if (!s->attached || ls->held)
			continue;
		off = ls->rd.pos % r->cfg.ring_size;
		if (r->cfg.ring_size - off < sizeof(h))
			continue;
		memcpy(&h, (const uint8_t *)s->r.addr + off, sizeof(h));
		if (le32toh(h.magic) != TXRDMA_TLOG_MAGIC ||
		    le64toh(h.pos) != ls->rd.pos)
			continue;
		r->st.retries++;
		if (!s->inc_seen || s->inc_pos != ls->rd.pos) {
			r->st.incomplete++;
			s->inc_seen = true;
			s->inc_pos = ls->rd.pos;
		}
	}
}

/*
 * The next entry in causal order (txn_log_merge()), in @e, its payload
 * in the ring until the next call of any txn_ship_reader_*() (which
 * releases it to its writer).  Sends the FEEDBACKs that are due.
 * Never waits (a WRITE gives the reader no event: call again, sleeping
 * a little when it keeps returning 0).  Return: 1 with @e; 0 when
 * nothing is deliverable yet; -EPROTO (sticky) when a ring breaks the
 * format's rules.
 */
int txn_ship_reader_next(struct txn_ship_reader *r, struct txn_log_entry *e)
{
	int rc;

	if (r->err)
		return r->err;
	release_all(r);
	rc = txn_log_merge(&r->m, e);
	if (rc < 0)
		return r->err = rc;
	if (rc) {
		r->st.entries++;
		r->st.bytes += e->len;
	} else {
		count_incomplete(r);
	}
	feedback_due(r, !rc);
	return rc;
}

/*
 * Take completion @cqe if it is one of this reader's SENDs.  Return: 1
 * when it was; 0 when not ours; the SEND's error (not sticky).
 */
int txn_ship_reader_cqe(struct txn_ship_reader *r,
			const struct txrdma_cqe *cqe)
{
	unsigned int wi = (cqe->user_data >> 8) & 0xff;
	unsigned int slot = cqe->user_data & 0xff;
	struct rstream *s;

	if (!ours(cqe, TXRDMA_OP_SEND) || wi >= r->cfg.nwriters ||
	    slot >= FB_SLOTS)
		return 0;
	s = &r->s[wi];
	if (!s->attached || s->ep != cqe->ep || !(s->busy & (1u << slot)))
		return 0;
	s->busy &= ~(1u << slot);
	return cqe->res < 0 ? cqe->res : 1;
}

/*
 * Release the entry last delivered, reap every completion of the CQ
 * (those not this reader's are dropped and counted: use
 * txn_ship_reader_cqe() when the CQ is shared), send the FEEDBACKs an
 * idle reader owes, ring the doorbell if the kernel's poller sleeps.
 * Return: completions reaped; the first SEND error among them; the
 * sticky error.
 */
int txn_ship_reader_poll(struct txn_ship_reader *r)
{
	struct txrdma_cqe *cqe;
	int n = 0, rc, first = 0;

	if (r->err)
		return r->err;
	while ((cqe = txrdma_peek_cqe(r->cq))) {
		rc = txn_ship_reader_cqe(r, cqe);
		txrdma_cq_advance(r->cq, 1);
		if (!rc)
			r->st.foreign++;
		else if (rc < 0 && !first)
			first = rc;
		n++;
	}
	release_all(r);
	feedback_due(r, true);
	if (txrdma_sq_needs_wakeup(r->sq))
		txrdma_rings_enter(r->ctx);
	return first ? first : n;
}

/*
 * Release the entry last delivered and tell every writer now what is
 * new (the end of a stream).  Return: FEEDBACKs sent; -EAGAIN when one
 * had to wait for a send slot or an SQE (poll, then again); the sticky
 * error.
 */
int txn_ship_reader_feedback(struct txn_ship_reader *r)
{
	uint64_t now = txn_clock_us();
	unsigned int i;
	int n = 0, late = 0;

	if (r->err)
		return r->err;
	release_all(r);
	for (i = 0; i < r->cfg.nwriters; i++) {
		struct rstream *s = &r->s[i];

		if (!s->attached || s->done == s->fb.sent)
			continue;
		if (tell(r, i, now))
			n++;
		else
			late = 1;
	}
	return late ? -EAGAIN : n;
}

/* No SEND of the reader is in flight. */
bool txn_ship_reader_idle(const struct txn_ship_reader *r)
{
	unsigned int i;

	for (i = 0; i < r->cfg.nwriters; i++)
		if (r->s[i].busy)
			return false;
	return true;
}

/* How far writer @writer's log was consumed (delivered). */
uint64_t txn_ship_reader_consumed(const struct txn_ship_reader *r,
				  unsigned int writer)
{
	return txn_log_merge_consumed(&r->m, writer);
}

/* The clock merged: entries of each writer delivered (nwriters). */
const uint64_t *txn_ship_reader_clock(const struct txn_ship_reader *r)
{
	return r->m.delivered;
}

void txn_ship_reader_stats(const struct txn_ship_reader *r,
			   struct txn_ship_reader_stats *s)
{
	*s = r->st;
}

/*
 * Free the reader and its rings (an export holds the memory until its
 * pair ends or is revoked, so a writer's WRITE still in flight lands
 * harmlessly).  The pairs stay the caller's.  Return: 0; -EBUSY while
 * one of its SENDs is in flight (poll), nothing freed.
 */
int txn_ship_reader_close(struct txn_ship_reader *r)
{
	unsigned int i;

	if (!r)
		return 0;
	if (!txn_ship_reader_idle(r))
		return -EBUSY;
	for (i = 0; i < r->cfg.nwriters; i++)
		if (r->s[i].attached)
			txrdma_region_destroy(r->ctx, &r->s[i].r);
	free(r);
	return 0;
}
