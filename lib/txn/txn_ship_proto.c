// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What the writer and the reader of a shipped log agree on: the WRITE
 * plan, the feedback rule and the messages.  See txn_ship_proto.h for
 * the interface, txn_ship.c for the glue that runs them over txrdma.
 *
 * Why a file of its own, and its name.  The three are the rules both
 * ends of a ship rest on: which WRITEs bring a writer's bytes into the
 * reader's ring, when the reader answers, and the bytes of its answer.
 * None of them touches a context, an endpoint or a ring of libtxrdma,
 * so they live apart from the glue, include nothing of it, and a host
 * without RDMA tests them alone and as the whole path, WRITEs landing
 * in any order included (tests/test_txn_ship.c).  Not "plan": the plan
 * is one of three; "proto", because together they are the protocol
 * between a writer and its reader, less the transport that carries it.
 *
 * The WRITE plan.  A writer's flush asks txn_log_writer_flush() for what
 * was appended since the last one (at most two ranges: the ring's end
 * splits a batch, and the bytes a PAD skips are never written) and
 * queues the ranges in a plan.  The plan merges a range with the one
 * before it when they touch, and hands out WRITEs of at most max_write
 * bytes (64 KiB by default, never more than an SQE can carry): many
 * small entries become one WRITE, a large batch several, so the reader
 * sees the first bytes of a batch before its last were sent and the NIC
 * moves big transfers.  A range never crosses the ring's end (a WRITE
 * is "stage, offset X" to "ring, offset X", and both end there).  The
 * plan never holds more than two ranges: what was handed out and not
 * posted lies within the bytes the reader has not consumed, at most one
 * ring, which spans at most one wrap.  It has room for four, and adding
 * is all or nothing, so a caller that breaks that rule gets -EOVERFLOW
 * and an unchanged plan, not a lost range.
 *
 * The feedback rule.  The reader tells each writer the position up to
 * which it consumed the writer's log, but not per entry: a SEND and its
 * completion per entry would cost the reader as many operations as the
 * writer made entries, and the writer as many receives, which undoes the
 * batching of the WRITEs.  Instead after every quarter ring consumed
 * (every): a writer that heard last at position C may append up to
 * C + ring, so with a message per quarter it has at least three
 * quarters of the ring to fill while the next message travels, and
 * never stalls unless the reader falls behind by most of a ring; a
 * smaller step buys nothing but messages, a half ring would let a
 * writer stall for a round trip whenever a batch is large.  The step
 * alone is not enough: a writer may stop appending with less than a
 * quarter unreported, or an entry may not fit while the reader has
 * consumed less than a quarter since it last said so (a large entry
 * behind a PAD).  So an idle reader (nothing deliverable) also reports
 * what is new once idle_us passed since its last message: at most one
 * message per writer per idle_us, whatever the entry rate.  The rule
 * takes the time as an argument, so its tests need no clock.
 *
 * The messages.  Two, reader to writer on the writer's pair: RING once
 * (the region and size of the writer's ring), FEEDBACK many (the
 * consumed position and the merged clock); little-endian, a fixed
 * 24-byte header, then for FEEDBACK one word per clock component.  A
 * writer computes with what a message says (where to WRITE, how much
 * it may append), so the decoder accepts only exactly a message: the
 * magic, a known type, 1..TXRDMA_TLOG_MAX_CLOCK components, the writer
 * below them, the length the type and components give, a ring size
 * txn_log can use, an 8-aligned position; anything else is -EPROTO.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include <linux/txrdma_ring.h>	/* TXRDMA_SQE_MAX_LEN */

#include "txn_ship_proto.h"
#include "txn_log.h"		/* struct txn_log_piece, pure too */

#define ALIGN8		TXRDMA_TLOG_ALIGN
#define MSG_HDR		sizeof(struct txn_ship_msg_hdr)

_Static_assert(sizeof(struct txn_ship_msg_hdr) == 24, "txn_ship_msg_hdr");

/* ---- the plan -------------------------------------------------------- */

/*
 * A plan for a ring of @ring_size bytes, WRITEs of at most @max_write
 * (0: TXN_SHIP_MAX_WRITE_DEFAULT).  Return: 0, -EINVAL.
 */
int txn_ship_plan_init(struct txn_ship_plan *p, uint64_t ring_size,
		       uint64_t max_write)
{
	if (!max_write)
		max_write = TXN_SHIP_MAX_WRITE_DEFAULT;
	if (!ring_size || ring_size % ALIGN8 || ring_size > TXRDMA_TLOG_MAX_RING ||
	    max_write > TXRDMA_SQE_MAX_LEN)
		return -EINVAL;
	*p = (struct txn_ship_plan) {
		.ring_size	= ring_size,
		.max_write	= max_write,
	};
	return 0;
}

/*
 * Queue @n pieces of txn_log_writer_flush(), in order.  Return: 0;
 * -EINVAL for a piece past the ring's end; -EOVERFLOW when they would
 * need more than TXN_SHIP_PLAN_RANGES ranges (not for pieces of one
 * writer's flushes: see the top); nothing changed on error.
 */
int txn_ship_plan_add(struct txn_ship_plan *p,
		      const struct txn_log_piece *piece, unsigned int n)
{
	struct txn_ship_plan q = *p;
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct txn_ship_range *last = q.n ? &q.r[q.n - 1] : NULL;
		uint64_t off = piece[i].off, len = piece[i].len;

		if (off > q.ring_size || len > q.ring_size - off)
			return -EINVAL;
		if (!len)
			continue;
		if (last && last->off + last->len == off) {
			last->len += len;
		} else {
			if (q.n == TXN_SHIP_PLAN_RANGES)
				return -EOVERFLOW;
			q.r[q.n++] = (struct txn_ship_range) {
				.off = off, .len = len,
			};
		}
		q.bytes += len;
	}
	*p = q;
	return 0;
}

/* Take the next WRITE into @w: true, or false when nothing is pending. */
bool txn_ship_plan_next(struct txn_ship_plan *p, struct txn_ship_range *w)
{
	struct txn_ship_range *f = &p->r[0];

	if (!p->n)
		return false;
	w->off = f->off;
	w->len = f->len < p->max_write ? f->len : p->max_write;
	f->off += w->len;
	f->len -= w->len;
	p->bytes -= w->len;
	if (!f->len) {
		p->n--;
		memmove(p->r, p->r + 1, p->n * sizeof(p->r[0]));
	}
	return true;
}

/* ---- the feedback rule ------------------------------------------------ */

/*
 * A reader's rule for one writer's ring of @ring_size bytes: a message
 * after @every bytes consumed (0: a quarter ring), or when idle once
 * @idle_us passed (0: TXN_SHIP_IDLE_US_DEFAULT).  Return: 0, -EINVAL.
 */
int txn_ship_fb_init(struct txn_ship_fb *f, uint64_t ring_size,
		     uint64_t every, uint64_t idle_us)
{
	if (!ring_size || ring_size % ALIGN8 || every > ring_size)
		return -EINVAL;
	if (!every)
		every = ring_size / 4 ? ring_size / 4 : ALIGN8;
	*f = (struct txn_ship_fb) {
		.every		= every,
		.idle_us	= idle_us ? idle_us : TXN_SHIP_IDLE_US_DEFAULT,
	};
	return 0;
}

/* Should the reader, consumed up to @consumed, tell the writer now? */
bool txn_ship_fb_due(const struct txn_ship_fb *f, uint64_t consumed,
		     bool idle, uint64_t now_us)
{
	if (consumed <= f->sent)
		return false;
	if (consumed - f->sent >= f->every)
		return true;
	return idle && now_us - f->sent_us >= f->idle_us;
}

/* The reader told the writer @consumed at @now_us. */
void txn_ship_fb_sent(struct txn_ship_fb *f, uint64_t consumed,
		      uint64_t now_us)
{
	f->sent = consumed;
	f->sent_us = now_us;
}

/* ---- messages --------------------------------------------------------- */

static size_t msg_len(unsigned int type, unsigned int nclock)
{
	return MSG_HDR + (type == TXN_SHIP_FEEDBACK ?
			  (size_t)nclock * sizeof(uint64_t) : 0);
}

/*
 * Encode @m into @buf (@cap bytes).  Return: its length, or 0 when @m
 * is not a message (type, nclock, writer) or @cap is too small.
 */
size_t txn_ship_msg_encode(void *buf, size_t cap, const struct txn_ship_msg *m)
{
	struct txn_ship_msg_hdr h;
	size_t len;
	unsigned int i;

	if ((m->type != TXN_SHIP_RING && m->type != TXN_SHIP_FEEDBACK) ||
	    !m->nclock || m->nclock > TXRDMA_TLOG_MAX_CLOCK ||
	    m->writer >= m->nclock)
		return 0;
	len = msg_len(m->type, m->nclock);
	if (cap < len)
		return 0;
	h = (struct txn_ship_msg_hdr) {
		.magic	= htole32(TXN_SHIP_MAGIC),
		.type	= htole16((uint16_t)m->type),
		.nclock	= htole16((uint16_t)m->nclock),
		.writer	= htole32(m->writer),
		.region	= htole32(m->region),
		.val	= htole64(m->val),
	};
	memcpy(buf, &h, sizeof(h));
	if (m->type == TXN_SHIP_FEEDBACK)
		for (i = 0; i < m->nclock; i++) {
			uint64_t v = htole64(m->clock[i]);

			memcpy((uint8_t *)buf + MSG_HDR + i * sizeof(v), &v,
			       sizeof(v));
		}
	return len;
}

/*
 * Decode the @len bytes at @buf.  Return: 0; -EPROTO when they are not
 * a message: magic, type, nclock (1..TXRDMA_TLOG_MAX_CLOCK), writer
 * (below nclock), length; RING: a ring size txn_log can use (a
 * multiple of 8, at most TXRDMA_TLOG_MAX_RING); FEEDBACK: region 0, a
 * position that is a multiple of 8.
 */
int txn_ship_msg_decode(const void *buf, size_t len, struct txn_ship_msg *m)
{
	struct txn_ship_msg_hdr h;
	unsigned int i;

	if (len < MSG_HDR)
		return -EPROTO;
	memcpy(&h, buf, sizeof(h));
	*m = (struct txn_ship_msg) {
		.type	= le16toh(h.type),
		.nclock	= le16toh(h.nclock),
		.writer	= le32toh(h.writer),
		.region	= le32toh(h.region),
		.val	= le64toh(h.val),
	};
	if (le32toh(h.magic) != TXN_SHIP_MAGIC ||
	    (m->type != TXN_SHIP_RING && m->type != TXN_SHIP_FEEDBACK) ||
	    !m->nclock || m->nclock > TXRDMA_TLOG_MAX_CLOCK ||
	    m->writer >= m->nclock || len != msg_len(m->type, m->nclock))
		return -EPROTO;
	if (m->type == TXN_SHIP_RING)
		return !m->val || m->val % ALIGN8 ||
		       m->val > TXRDMA_TLOG_MAX_RING ? -EPROTO : 0;
	if (m->region || m->val % ALIGN8)
		return -EPROTO;
	for (i = 0; i < m->nclock; i++) {
		uint64_t v;

		memcpy(&v, (const uint8_t *)buf + MSG_HDR + i * sizeof(v),
		       sizeof(v));
		m->clock[i] = le64toh(v);
	}
	return 0;
}
