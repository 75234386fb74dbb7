// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite txrdma_frame_accept: the receiver's one verdict on a
 * completed write (txrdma_frame_accept()).  A sender that follows the
 * credit rules, driven through many wraps of a small ring, gets every
 * frame accepted, with a PAD exactly where it skipped the ring's end;
 * credit updates are taken when they can be true; and each thing a
 * broken or hostile sender can do wrong gets its own verdict: CRC, a
 * sequence error, or a protocol error.
 */
#include <kunit/test.h>
#include <linux/string.h>

#include "../txrdma_frame.h"

#define UNITS	16		/* the receive ring */
#define EP	0x0a0b0c0d	/* ours */
#define PEER	0x01020304	/* the sender's */
#define EPOCH	7
#define MAX_LEN	((UNITS / 2) * TXRDMA_FRAME_UNIT - TXRDMA_FRAME_HDR_LEN)
#define SENT	8		/* units we placed in the sender's ring */

/* A sender and our receiver, as both modules keep them. */
struct sim {
	u8 ring[UNITS * TXRDMA_FRAME_UNIT];
	struct txrdma_credit_tx stx;	/* the sender's view of our ring */
	struct txrdma_credit_rx crx;	/* ours */
	struct txrdma_credit_tx ctx;	/* our sends into the sender's ring */
	u32 tx_seq;			/* the sender's next */
	u32 rx_seq;			/* our next */
	u32 report;			/* what the sender reports released */
	bool learn_peer;
	u32 max_len;
};

static struct sim *sim_new(struct kunit *test)
{
	struct sim *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_EQ(test, txrdma_credit_tx_init(&s->stx, UNITS), 0);
	KUNIT_ASSERT_EQ(test, txrdma_credit_rx_init(&s->crx, UNITS), 0);
	KUNIT_ASSERT_EQ(test, txrdma_credit_tx_init(&s->ctx, 64), 0);
	s->ctx.head = SENT;
	s->max_len = MAX_LEN;
	return s;
}

/* Write frame @f with a patterned payload at @unit; its byte_len. */
static u32 put_frame(struct sim *s, u32 unit, const struct txrdma_frame *f)
{
	u8 *at = s->ring + unit * TXRDMA_FRAME_UNIT;
	u32 i;

	for (i = 0; i < f->len; i++)
		at[TXRDMA_FRAME_HDR_LEN + i] = (u8)(f->seq * 31 + i);
	txrdma_frame_encode(f, at + TXRDMA_FRAME_HDR_LEN, at);
	return TXRDMA_FRAME_HDR_LEN + f->len;
}

static struct txrdma_frame next_frame(struct sim *s, u32 len)
{
	return (struct txrdma_frame) {
		.type = TXRDMA_FRAME_MSG, .src_ep = PEER, .dst_ep = EP,
		.seq = s->tx_seq, .len = len, .consumed = s->report,
		.epoch = EPOCH,
	};
}

static enum txrdma_frame_verdict verdict(struct sim *s, bool with_imm,
					 u32 imm, u32 byte_len,
					 struct txrdma_frame_in *in)
{
	const struct txrdma_frame_rx rx = {
		.units = s->ring, .ep = EP, .peer_ep = PEER, .epoch = EPOCH,
		.seq = s->rx_seq, .max_len = s->max_len,
		.learn_peer = s->learn_peer, .crx = &s->crx, .ctx = &s->ctx,
	};

	return txrdma_frame_accept(&rx, with_imm, imm, byte_len, in);
}

/* What the receiver does after an ACCEPT verdict: cannot fail. */
static void apply(struct kunit *test, struct sim *s,
		  const struct txrdma_frame_in *in)
{
	KUNIT_EXPECT_EQ(test, txrdma_credit_rx_frame(&s->crx, in->unit,
						     in->units), 0);
	KUNIT_EXPECT_EQ(test, txrdma_credit_tx_update(&s->ctx, in->released),
			0);
	s->rx_seq++;
}

/* Our process releases all; the sender hears of it. */
static void release_all(struct kunit *test, struct sim *s)
{
	KUNIT_ASSERT_EQ(test, txrdma_credit_rx_release(&s->crx, s->crx.tail),
			0);
	KUNIT_ASSERT_EQ(test, txrdma_credit_tx_update(&s->stx,
						      s->crx.consumed), 0);
}

/* A frame the sender placed by the rules, well formed: accepted. */
static void accept_stream(struct kunit *test)
{
	struct sim *s = sim_new(test);
	unsigned int i, pads = 0, waits = 0;
	u32 rnd = 0x20261202;

	for (i = 0; i < 2000; i++) {
		struct txrdma_frame_in in;
		struct txrdma_frame f;
		enum txrdma_frame_verdict v;
		u32 len, unit, due, byte_len;
		int ret;

		rnd = rnd * 1103515245 + 12345;
		len = (rnd >> 8) % (MAX_LEN + 1);
		ret = txrdma_credit_place(&s->stx, txrdma_frame_units(len),
					  &unit);
		if (ret == -ENOSPC) {
			waits++;
			release_all(test, s);
			ret = txrdma_credit_place(&s->stx,
						  txrdma_frame_units(len),
						  &unit);
		}
		KUNIT_ASSERT_EQ(test, ret, 0);
		s->report = (s->report + (i & 1)) % (SENT + 1);
		if (s->report < s->ctx.released)
			s->report = s->ctx.released;
		f = next_frame(s, len);
		byte_len = put_frame(s, unit, &f);
		s->tx_seq++;
		due = s->crx.tail & (UNITS - 1);
		v = verdict(s, true, txrdma_imm_frame(unit), byte_len, &in);
		if (unit == due) {
			KUNIT_ASSERT_EQ(test, v, TXRDMA_FRAME_ACCEPT);
		} else {
			KUNIT_ASSERT_EQ(test, v, TXRDMA_FRAME_ACCEPT_PAD);
			KUNIT_EXPECT_EQ(test, unit, 0U);
			KUNIT_EXPECT_EQ(test, in.pad_at, due);
			pads++;
		}
		KUNIT_EXPECT_EQ(test, in.unit, unit);
		KUNIT_EXPECT_EQ(test, in.units, txrdma_frame_units(len));
		KUNIT_EXPECT_EQ(test, in.f.len, len);
		KUNIT_EXPECT_EQ(test, in.f.seq, s->rx_seq);
		KUNIT_EXPECT_EQ(test, in.released, s->report);
		apply(test, s, &in);
		/* the receiver's tail is where the sender's head is */
		KUNIT_EXPECT_EQ(test, s->crx.tail, s->stx.head);
	}
	/* the walk went round the ring many times, and waited */
	KUNIT_EXPECT_GT(test, pads, 50U);
	KUNIT_EXPECT_GT(test, waits, 50U);
}

static void accept_pad_header(struct kunit *test)
{
	u8 hdr[TXRDMA_FRAME_HDR_LEN];
	struct txrdma_frame_hdr *h = (void *)hdr;

	memset(hdr, 0xa5, sizeof(hdr));
	txrdma_frame_pad(hdr, 3);
	KUNIT_EXPECT_EQ(test, h->type, (u8)TXRDMA_FRAME_PAD);
	KUNIT_EXPECT_EQ(test, h->version, (u8)TXRDMA_FRAME_VERSION);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(h->len), 3U * TXRDMA_FRAME_UNIT);
	/* zeroes, never what the memory held */
	KUNIT_EXPECT_EQ(test, h->flags, 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(h->seq), 0U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(h->crc), 0U);
}

/* Explicit updates: taken only when they can be true. */
static void accept_credit(struct kunit *test)
{
	struct sim *s = sim_new(test);
	struct txrdma_frame_in in;

	KUNIT_EXPECT_EQ(test, verdict(s, true, txrdma_imm_credit(5), 0, &in),
			TXRDMA_FRAME_CREDIT);
	KUNIT_EXPECT_EQ(test, in.released, 5U);
	KUNIT_ASSERT_EQ(test, txrdma_credit_tx_update(&s->ctx, in.released),
			0);
	/* all we placed: fine; more than we placed: no */
	KUNIT_EXPECT_EQ(test, verdict(s, true, txrdma_imm_credit(SENT), 0,
				      &in), TXRDMA_FRAME_CREDIT);
	KUNIT_EXPECT_EQ(test, verdict(s, true, txrdma_imm_credit(SENT + 1), 0,
				      &in), TXRDMA_FRAME_ERR_PROTO);
	/* backwards (unwraps to far ahead): no */
	KUNIT_EXPECT_EQ(test, verdict(s, true, txrdma_imm_credit(4), 0, &in),
			TXRDMA_FRAME_ERR_PROTO);
	/* the same value again: nothing new, but true */
	KUNIT_EXPECT_EQ(test, verdict(s, true, txrdma_imm_credit(5), 0, &in),
			TXRDMA_FRAME_CREDIT);
}

/* One good frame of @len at unit 0, then @mutate, then its verdict. */
struct bad_case {
	const char *what;
	enum txrdma_frame_verdict want;
	void (*mutate)(struct sim *s, struct txrdma_frame *f, u32 *unit,
		       u32 *byte_len, bool *with_imm);
	bool reencode;		/* mutate changed @f: write it again */
};

static void m_no_imm(struct sim *s, struct txrdma_frame *f, u32 *unit,
		     u32 *byte_len, bool *with_imm)
{
	*with_imm = false;
}

static void m_unit_out(struct sim *s, struct txrdma_frame *f, u32 *unit,
		       u32 *byte_len, bool *with_imm)
{
	*unit = UNITS;
}

static void m_past_end(struct sim *s, struct txrdma_frame *f, u32 *unit,
		       u32 *byte_len, bool *with_imm)
{
	/* a 2-unit frame in the last unit: its bytes would leave the ring */
	*unit = UNITS - 1;
}

static void m_short(struct sim *s, struct txrdma_frame *f, u32 *unit,
		    u32 *byte_len, bool *with_imm)
{
	*byte_len = TXRDMA_FRAME_HDR_LEN - 4;
}

static void m_long(struct sim *s, struct txrdma_frame *f, u32 *unit,
		   u32 *byte_len, bool *with_imm)
{
	*byte_len += 1;
}

static void m_flip(struct sim *s, struct txrdma_frame *f, u32 *unit,
		   u32 *byte_len, bool *with_imm)
{
	s->ring[offsetof(struct txrdma_frame_hdr, seq)] ^= 0x10;
}

static void m_dst(struct sim *s, struct txrdma_frame *f, u32 *unit,
		  u32 *byte_len, bool *with_imm)
{
	f->dst_ep = EP + 1;
}

static void m_src(struct sim *s, struct txrdma_frame *f, u32 *unit,
		  u32 *byte_len, bool *with_imm)
{
	f->src_ep = PEER + 1;
}

static void m_src_learn(struct sim *s, struct txrdma_frame *f, u32 *unit,
			u32 *byte_len, bool *with_imm)
{
	f->src_ep = PEER + 1;
	s->learn_peer = true;
}

static void m_epoch(struct sim *s, struct txrdma_frame *f, u32 *unit,
		    u32 *byte_len, bool *with_imm)
{
	f->epoch = EPOCH + 2;
}

static void m_max_len(struct sim *s, struct txrdma_frame *f, u32 *unit,
		      u32 *byte_len, bool *with_imm)
{
	s->max_len = f->len - 1;
}

static void m_dup(struct sim *s, struct txrdma_frame *f, u32 *unit,
		  u32 *byte_len, bool *with_imm)
{
	s->rx_seq = f->seq + 1;
}

static void m_gap(struct sim *s, struct txrdma_frame *f, u32 *unit,
		  u32 *byte_len, bool *with_imm)
{
	f->seq += 2;
}

static void m_misplaced(struct sim *s, struct txrdma_frame *f, u32 *unit,
			u32 *byte_len, bool *with_imm)
{
	*unit = 2;
}

static void m_overrun(struct sim *s, struct txrdma_frame *f, u32 *unit,
		      u32 *byte_len, bool *with_imm)
{
	/* the ring is full of frames our process still holds */
	s->crx.tail = UNITS;
}

static void m_too_big(struct sim *s, struct txrdma_frame *f, u32 *unit,
		      u32 *byte_len, bool *with_imm)
{
	/* more than half the ring, though our process takes it */
	f->len = (UNITS / 2) * TXRDMA_FRAME_UNIT;
	*byte_len = TXRDMA_FRAME_HDR_LEN + f->len;
	s->max_len = f->len;
}

static void m_report_ahead(struct sim *s, struct txrdma_frame *f, u32 *unit,
			   u32 *byte_len, bool *with_imm)
{
	f->consumed = SENT + 1;
}

static void m_report_back(struct sim *s, struct txrdma_frame *f, u32 *unit,
			  u32 *byte_len, bool *with_imm)
{
	s->ctx.released = 3;
	f->consumed = 2;
}

static const struct bad_case bad_cases[] = {
	{ "no immediate", TXRDMA_FRAME_ERR_PROTO, m_no_imm },
	{ "unit outside", TXRDMA_FRAME_ERR_PROTO, m_unit_out },
	{ "past the end", TXRDMA_FRAME_ERR_PROTO, m_past_end },
	{ "shorter than a header", TXRDMA_FRAME_ERR_PROTO, m_short },
	{ "length disagrees", TXRDMA_FRAME_ERR_PROTO, m_long },
	{ "header bit flipped", TXRDMA_FRAME_ERR_CRC, m_flip },
	{ "not ours", TXRDMA_FRAME_ERR_PROTO, m_dst, true },
	{ "another sender", TXRDMA_FRAME_ERR_PROTO, m_src, true },
	{ "first frame names it", TXRDMA_FRAME_ACCEPT, m_src_learn, true },
	{ "old epoch", TXRDMA_FRAME_ERR_PROTO, m_epoch, true },
	{ "above max_len", TXRDMA_FRAME_ERR_PROTO, m_max_len },
	{ "duplicate", TXRDMA_FRAME_ERR_SEQ, m_dup },
	{ "gap", TXRDMA_FRAME_ERR_SEQ, m_gap, true },
	{ "not where due", TXRDMA_FRAME_ERR_PROTO, m_misplaced },
	{ "overruns credits", TXRDMA_FRAME_ERR_PROTO, m_overrun },
	{ "above half the ring", TXRDMA_FRAME_ERR_PROTO, m_too_big, true },
	{ "report ahead", TXRDMA_FRAME_ERR_PROTO, m_report_ahead, true },
	{ "report back", TXRDMA_FRAME_ERR_PROTO, m_report_back, true },
};

static void accept_refuses(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad_cases); i++) {
		const struct bad_case *c = &bad_cases[i];
		struct sim *s = sim_new(test);
		struct txrdma_credit_rx crx;
		struct txrdma_credit_tx ctx;
		struct txrdma_frame_in in;
		struct txrdma_frame f = next_frame(s, 40);	/* 2 units */
		bool with_imm = true;
		u32 unit = 0, byte_len;

		byte_len = put_frame(s, unit, &f);
		c->mutate(s, &f, &unit, &byte_len, &with_imm);
		if (c->reencode)
			put_frame(s, 0, &f);
		crx = s->crx;
		ctx = s->ctx;
		KUNIT_EXPECT_EQ_MSG(test, verdict(s, with_imm,
						  txrdma_imm_frame(unit),
						  byte_len, &in),
				    c->want, "%s", c->what);
		/* a verdict is only a verdict */
		KUNIT_EXPECT_EQ_MSG(test, memcmp(&crx, &s->crx, sizeof(crx)), 0,
				    "%s", c->what);
		KUNIT_EXPECT_EQ_MSG(test, memcmp(&ctx, &s->ctx, sizeof(ctx)), 0,
				    "%s", c->what);
	}
}

static struct kunit_case txrdma_frame_accept_cases[] = {
	KUNIT_CASE(accept_stream),
	KUNIT_CASE(accept_pad_header),
	KUNIT_CASE(accept_credit),
	KUNIT_CASE(accept_refuses),
	{}
};

static struct kunit_suite txrdma_frame_accept_suite = {
	.name = "txrdma_frame_accept",
	.test_cases = txrdma_frame_accept_cases,
};

kunit_test_suite(txrdma_frame_accept_suite);
