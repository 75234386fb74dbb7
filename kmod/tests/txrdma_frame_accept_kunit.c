// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite txrdma_frame_accept: the receiver's one verdict on a
 * completed write (txrdma_frame_accept()).  A sender that follows the
 * credit rules, driven through many wraps of a small ring, gets every
 * frame accepted, with a PAD exactly where it skipped the ring's end,
 * frames with a trailer too (which counts in their units: placement and
 * credits are checked on those, and which must name the free-running
 * unit the frame starts at); credit updates are taken when they can be
 * true; and each thing a
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
	u32 ahead_max;			/* 0: our process reads no frame ahead */
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
	s->ahead_max = TXRDMA_RX_AHEAD_MAX_PAYLOAD;
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

/*
 * Write frame @f with a trailer (and the payload's CRC, its condition)
 * at @unit, as a sender writes it for a process that reads ahead, the
 * trailer naming @start (free-running); its byte_len.
 */
static u32 put_frame_trailer(struct sim *s, u32 unit, struct txrdma_frame *f,
			     u32 start)
{
	u8 *at = s->ring + unit * TXRDMA_FRAME_UNIT;

	f->flags = TXRDMA_FRAME_F_DATA_CRC | TXRDMA_FRAME_F_TRAILER;
	put_frame(s, unit, f);
	txrdma_frame_trailer(at, start, at + TXRDMA_FRAME_HDR_LEN + f->len);
	return TXRDMA_FRAME_HDR_LEN + f->len + TXRDMA_FRAME_TRAILER_LEN;
}

/*
 * Where a frame at @unit starts, free-running, by the placement rule:
 * at the tail, or past the ring's end the sender skipped.
 */
static u32 start_of(const struct sim *s, u32 unit)
{
	u32 due = s->crx.tail & (UNITS - 1);

	return s->crx.tail + (unit == due ? 0 : UNITS - due);
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
		.ahead_max = s->ahead_max,
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

/*
 * A frame the sender placed by the rules, well formed: accepted.  With
 * @trailers, every other frame whose payload and trailer fit MAX_LEN
 * carries a trailer (the sender's rule), placed by its units with it.
 */
static void stream(struct kunit *test, bool trailers)
{
	struct sim *s = sim_new(test);
	unsigned int i, pads = 0, waits = 0, with = 0;
	u32 rnd = 0x20261202;

	for (i = 0; i < 2000; i++) {
		struct txrdma_frame_in in;
		struct txrdma_frame f;
		enum txrdma_frame_verdict v;
		u32 len, unit, due, byte_len, units;
		bool trailer;
		int ret;

		rnd = rnd * 1103515245 + 12345;
		len = (rnd >> 8) % (MAX_LEN + 1);
		trailer = trailers && (i & 1) &&
			  len + TXRDMA_FRAME_TRAILER_LEN <= MAX_LEN;
		units = txrdma_frame_units(len + (trailer ?
					   TXRDMA_FRAME_TRAILER_LEN : 0));
		ret = txrdma_credit_place(&s->stx, units, &unit);
		if (ret == -ENOSPC) {
			waits++;
			release_all(test, s);
			ret = txrdma_credit_place(&s->stx, units, &unit);
		}
		KUNIT_ASSERT_EQ(test, ret, 0);
		s->report = (s->report + (i & 1)) % (SENT + 1);
		if (s->report < s->ctx.released)
			s->report = s->ctx.released;
		f = next_frame(s, len);
		if (trailer) {
			/* the sender's count: its head less the frame */
			byte_len = put_frame_trailer(s, unit, &f,
						     s->stx.head - units);
			with++;
		} else {
			byte_len = put_frame(s, unit, &f);
		}
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
		KUNIT_EXPECT_EQ(test, in.units, units);
		KUNIT_EXPECT_EQ(test, in.f.len, len);
		KUNIT_EXPECT_EQ(test, in.f.flags, f.flags);
		KUNIT_EXPECT_EQ(test, in.f.seq, s->rx_seq);
		KUNIT_EXPECT_EQ(test, in.released, s->report);
		apply(test, s, &in);
		/* the receiver's tail is where the sender's head is */
		KUNIT_EXPECT_EQ(test, s->crx.tail, s->stx.head);
	}
	/* the walk went round the ring many times, and waited */
	KUNIT_EXPECT_GT(test, pads, 50U);
	KUNIT_EXPECT_GT(test, waits, 50U);
	KUNIT_EXPECT_EQ(test, with > 500, trailers);
}

static void accept_stream(struct kunit *test)
{
	stream(test, false);
}

static void accept_stream_trailer(struct kunit *test)
{
	stream(test, true);
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

/*
 * The verdict on frame @f written at @unit, with a trailer that names
 * where the placement rule puts it, or without one; a verdict changes
 * nothing.
 */
static enum txrdma_frame_verdict try_frame(struct kunit *test, struct sim *s,
					   u32 unit, bool trailer,
					   struct txrdma_frame f,
					   struct txrdma_frame_in *in)
{
	struct txrdma_credit_rx crx = s->crx;
	enum txrdma_frame_verdict v;
	u32 byte_len;

	byte_len = trailer ? put_frame_trailer(s, unit, &f,
					       start_of(s, unit)) :
			     put_frame(s, unit, &f);
	v = verdict(s, true, txrdma_imm_frame(unit), byte_len, in);
	KUNIT_EXPECT_EQ(test, memcmp(&crx, &s->crx, sizeof(crx)), 0);
	return v;
}

/*
 * The trailer counts in a frame's units: 32 + 24 + 8 bytes are one
 * unit, 32 + 25 + 8 two; accepted where due, with those units.
 */
static void accept_trailer_units(struct kunit *test)
{
	static const struct {
		u32 len, units;
	} cases[] = {
		/* the largest a sender puts a trailer on: half the ring */
		{ MAX_LEN - TXRDMA_FRAME_TRAILER_LEN, UNITS / 2 },
		{ 89, 3 }, { 88, 2 }, { 25, 2 }, { 24, 1 }, { 0, 1 },
	};
	struct sim *s = sim_new(test);
	struct txrdma_frame_in in;
	struct txrdma_frame f;
	unsigned int i;
	u32 unit, tail;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		/* our process took all: room for any frame */
		KUNIT_ASSERT_EQ(test, txrdma_credit_rx_release(&s->crx,
							       s->crx.tail),
				0);
		tail = s->crx.tail;
		unit = tail & (UNITS - 1);
		/* this walk never needs a skip: due is where it goes */
		KUNIT_ASSERT_LE(test, unit + cases[i].units, (u32)UNITS);
		f = next_frame(s, cases[i].len);
		KUNIT_EXPECT_EQ_MSG(test, try_frame(test, s, unit, true, f,
						    &in),
				    TXRDMA_FRAME_ACCEPT, "len %u",
				    cases[i].len);
		KUNIT_EXPECT_EQ_MSG(test, in.units, cases[i].units, "len %u",
				    cases[i].len);
		KUNIT_EXPECT_EQ(test, in.f.len, cases[i].len);
		KUNIT_EXPECT_EQ(test, in.f.flags, TXRDMA_FRAME_F_DATA_CRC |
				TXRDMA_FRAME_F_TRAILER);
		apply(test, s, &in);
		s->tx_seq++;
		KUNIT_EXPECT_EQ(test, s->crx.tail, tail + cases[i].units);
	}
}

/*
 * Placement with the trailer's units: in the last unit of the ring a
 * frame of 25 bytes fits without a trailer, and with one must skip to
 * unit 0 (ACCEPT_PAD there; refused in the last unit).
 */
static void accept_trailer_placement(struct kunit *test)
{
	struct sim *s = sim_new(test);
	struct txrdma_frame_in in;
	struct txrdma_frame f;
	u32 byte_len;

	s->crx.tail = UNITS - 1;
	s->crx.consumed = UNITS - 1;
	s->crx.reported = UNITS - 1;
	f = next_frame(s, 25);
	KUNIT_EXPECT_EQ(test, try_frame(test, s, UNITS - 1, false, f, &in),
			TXRDMA_FRAME_ACCEPT);
	KUNIT_EXPECT_EQ(test, in.units, 1U);
	/*
	 * its bytes would leave the ring (refused before they are read:
	 * written at 0, so this test does not write past the ring either)
	 */
	byte_len = put_frame_trailer(s, 0, &f, UNITS - 1);
	KUNIT_EXPECT_EQ(test, verdict(s, true, txrdma_imm_frame(UNITS - 1),
				      byte_len, &in), TXRDMA_FRAME_ERR_PROTO);
	KUNIT_EXPECT_EQ(test, try_frame(test, s, 0, true, f, &in),
			TXRDMA_FRAME_ACCEPT_PAD);
	KUNIT_EXPECT_EQ(test, in.units, 2U);
	KUNIT_EXPECT_EQ(test, in.pad_at, UNITS - 1U);
	apply(test, s, &in);
	KUNIT_EXPECT_EQ(test, s->crx.tail, UNITS + 2U);
	/* 24 bytes and the trailer are one unit: no skip */
	s->tx_seq++;
	s->crx.tail = 2 * UNITS - 1;
	s->crx.consumed = 2 * UNITS - 1;
	f = next_frame(s, 24);
	KUNIT_EXPECT_EQ(test, try_frame(test, s, UNITS - 1, true, f, &in),
			TXRDMA_FRAME_ACCEPT);
	KUNIT_EXPECT_EQ(test, try_frame(test, s, 0, true, f, &in),
			TXRDMA_FRAME_ERR_PROTO);
}

/*
 * Credits and the frame bound with the trailer's units: one unit free
 * takes 24 bytes with a trailer and 25 without, not 25 with one; a
 * sender limited to frames of one unit likewise.
 */
static void accept_trailer_credit(struct kunit *test)
{
	struct sim *s = sim_new(test);
	struct txrdma_frame_in in;
	struct txrdma_frame f;
	u32 due;

	/* our process holds 15 of 16 units */
	s->crx.tail = 20;
	s->crx.consumed = 5;
	s->crx.reported = 5;
	due = 20 & (UNITS - 1);
	f = next_frame(s, 24);
	KUNIT_EXPECT_EQ(test, try_frame(test, s, due, true, f, &in),
			TXRDMA_FRAME_ACCEPT);
	KUNIT_EXPECT_EQ(test, in.units, 1U);
	f = next_frame(s, 25);
	KUNIT_EXPECT_EQ(test, try_frame(test, s, due, false, f, &in),
			TXRDMA_FRAME_ACCEPT);
	KUNIT_EXPECT_EQ(test, try_frame(test, s, due, true, f, &in),
			TXRDMA_FRAME_ERR_PROTO);
	/* with the unit back, it fits */
	KUNIT_ASSERT_EQ(test, txrdma_credit_rx_release(&s->crx, 6), 0);
	KUNIT_EXPECT_EQ(test, try_frame(test, s, due, true, f, &in),
			TXRDMA_FRAME_ACCEPT);
	KUNIT_EXPECT_EQ(test, in.units, 2U);

	/* a sender whose frames may take one unit (our process's limit) */
	s = sim_new(test);
	txrdma_credit_rx_max_frame(&s->crx, 1);
	f = next_frame(s, 25);
	KUNIT_EXPECT_EQ(test, try_frame(test, s, 0, false, f, &in),
			TXRDMA_FRAME_ACCEPT);
	KUNIT_EXPECT_EQ(test, try_frame(test, s, 0, true, f, &in),
			TXRDMA_FRAME_ERR_PROTO);
	f = next_frame(s, 24);
	KUNIT_EXPECT_EQ(test, try_frame(test, s, 0, true, f, &in),
			TXRDMA_FRAME_ACCEPT);

	/* half the ring is the bound: with the trailer, 473 bytes pass it */
	s = sim_new(test);
	f = next_frame(s, MAX_LEN - TXRDMA_FRAME_TRAILER_LEN + 1);
	KUNIT_EXPECT_EQ(test, try_frame(test, s, 0, false, f, &in),
			TXRDMA_FRAME_ACCEPT);
	KUNIT_EXPECT_EQ(test, in.units, UNITS / 2U);
	KUNIT_EXPECT_EQ(test, try_frame(test, s, 0, true, f, &in),
			TXRDMA_FRAME_ERR_PROTO);
}

/*
 * The trailer names the lap: a stale frame of an earlier lap (the same
 * sequence number modulo 2^32, a good CRC) differs only there.  Where
 * the frame is due, and at unit 0 after a skip, across 2^32 too.
 */
static void accept_trailer_lap(struct kunit *test)
{
	static const u32 tails[] = {
		3 * UNITS + 5, 3 * UNITS + 15, 0xfffffffa, 0xffffffff,
	};
	struct sim *s;
	struct txrdma_frame_in in;
	struct txrdma_frame f;
	u32 byte_len, tail, due, unit, start, wrong[5];
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(tails); i++) {
		s = sim_new(test);
		tail = tails[i];
		s->crx.tail = tail;
		s->crx.consumed = tail;
		s->crx.reported = tail;
		due = tail & (UNITS - 1);
		/* 2 units: at 15 it must skip to 0 */
		f = next_frame(s, 40);
		unit = due + 2 <= UNITS ? due : 0;
		start = start_of(s, unit);
		KUNIT_EXPECT_EQ(test, start, unit ? tail : tail + UNITS - due);
		byte_len = put_frame_trailer(s, unit, &f, start);
		KUNIT_EXPECT_EQ_MSG(test, verdict(s, true,
						  txrdma_imm_frame(unit),
						  byte_len, &in),
				    unit == due ? TXRDMA_FRAME_ACCEPT :
						  TXRDMA_FRAME_ACCEPT_PAD,
				    "tail %u", tail);
		KUNIT_EXPECT_EQ(test, in.f.trailer_unit, start);
		/*
		 * the laps before and after, the unit masked (the
		 * immediate data), the tail without the skip, one off
		 */
		wrong[0] = start - UNITS;
		wrong[1] = start + UNITS;
		wrong[2] = start & (UNITS - 1);
		wrong[3] = start + 1;
		wrong[4] = unit == due ? start - 1 : tail;
		for (j = 0; j < ARRAY_SIZE(wrong); j++) {
			enum txrdma_frame_verdict v;

			if (wrong[j] == start)
				continue;
			put_frame_trailer(s, unit, &f, wrong[j]);
			v = verdict(s, true, txrdma_imm_frame(unit), byte_len,
				    &in);
			KUNIT_EXPECT_EQ_MSG(test, v, TXRDMA_FRAME_ERR_PROTO,
					    "tail %u trailer %u", tail,
					    wrong[j]);
		}
	}
}

/* What the frame's own check refuses reaches the verdict as such. */
static void accept_trailer_refuses(struct kunit *test)
{
	struct sim *s = sim_new(test);
	struct txrdma_frame_in in;
	struct txrdma_frame f = next_frame(s, 40);
	struct txrdma_frame_trailer *t;
	u8 *at = s->ring;
	u32 byte_len;

	byte_len = put_frame_trailer(s, 0, &f, 0);
	t = (void *)(at + TXRDMA_FRAME_HDR_LEN + 40);
	KUNIT_EXPECT_EQ(test, verdict(s, true, 0, byte_len, &in),
			TXRDMA_FRAME_ACCEPT);
	/* written before the trailer: not the frame's whole */
	KUNIT_EXPECT_EQ(test, verdict(s, true, 0, byte_len -
				      TXRDMA_FRAME_TRAILER_LEN, &in),
			TXRDMA_FRAME_ERR_PROTO);
	t->seq = cpu_to_le32(f.seq + 1);
	KUNIT_EXPECT_EQ(test, verdict(s, true, 0, byte_len, &in),
			TXRDMA_FRAME_ERR_PROTO);
	/* the next lap's unit 0 */
	txrdma_frame_trailer(at, UNITS, t);
	KUNIT_EXPECT_EQ(test, verdict(s, true, 0, byte_len, &in),
			TXRDMA_FRAME_ERR_PROTO);
	txrdma_frame_trailer(at, 0, t);
	/* the payload is under the CRC */
	at[TXRDMA_FRAME_HDR_LEN + 39] ^= 0x40;
	KUNIT_EXPECT_EQ(test, verdict(s, true, 0, byte_len, &in),
			TXRDMA_FRAME_ERR_CRC);
	at[TXRDMA_FRAME_HDR_LEN + 39] ^= 0x40;
	/* a trailer without the payload's CRC (the header's checks out) */
	f.flags = TXRDMA_FRAME_F_TRAILER;
	txrdma_frame_encode(&f, at + TXRDMA_FRAME_HDR_LEN, at);
	KUNIT_EXPECT_EQ(test, verdict(s, true, 0, byte_len, &in),
			TXRDMA_FRAME_ERR_PROTO);
	f.flags |= TXRDMA_FRAME_F_DATA_CRC;
	txrdma_frame_encode(&f, at + TXRDMA_FRAME_HDR_LEN, at);
	KUNIT_EXPECT_EQ(test, verdict(s, true, 0, byte_len, &in),
			TXRDMA_FRAME_ACCEPT);
	/*
	 * Only where our process asked for trailers, and within the size
	 * it reads ahead: a process that does not read ahead would count
	 * the trailer's units wrong, one that does would take a frame we
	 * refuse
	 */
	s->ahead_max = 0;
	KUNIT_EXPECT_EQ(test, verdict(s, true, 0, byte_len, &in),
			TXRDMA_FRAME_ERR_PROTO);
	s->ahead_max = 39;
	KUNIT_EXPECT_EQ(test, verdict(s, true, 0, byte_len, &in),
			TXRDMA_FRAME_ERR_PROTO);
	s->ahead_max = 40;
	KUNIT_EXPECT_EQ(test, verdict(s, true, 0, byte_len, &in),
			TXRDMA_FRAME_ACCEPT);
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
	KUNIT_CASE(accept_stream_trailer),
	KUNIT_CASE(accept_trailer_units),
	KUNIT_CASE(accept_trailer_placement),
	KUNIT_CASE(accept_trailer_credit),
	KUNIT_CASE(accept_trailer_lap),
	KUNIT_CASE(accept_trailer_refuses),
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
