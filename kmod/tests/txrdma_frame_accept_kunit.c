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
#define BIG	64		/* a ring for writes of many frames */
#define HUGE	2048		/* one for the largest write */
#define EP	0x0a0b0c0d	/* ours */
#define PEER	0x01020304	/* the sender's */
#define EPOCH	7
#define MAX_LEN	((UNITS / 2) * TXRDMA_FRAME_UNIT - TXRDMA_FRAME_HDR_LEN)
#define SENT	8		/* units we placed in the sender's ring */

/* A sender and our receiver, as both modules keep them. */
struct sim {
	u8 ring[HUGE * TXRDMA_FRAME_UNIT];	/* crx.ring_units used */
	struct txrdma_credit_tx stx;	/* the sender's view of our ring */
	struct txrdma_credit_rx crx;	/* ours */
	struct txrdma_credit_tx ctx;	/* our sends into the sender's ring */
	u32 tx_seq;			/* the sender's next */
	u32 rx_seq;			/* our next */
	u32 report;			/* what the sender reports released */
	u32 peer_ep;			/* the sender we know */
	bool learn_peer;
	u32 max_len;
	u32 ahead_max;			/* 0: our process reads no frame ahead */
};

/* A receive ring of @units; our process takes frames up to half of it. */
static struct sim *sim_new_ring(struct kunit *test, u32 units)
{
	struct sim *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_LE(test, units, (u32)HUGE);
	KUNIT_ASSERT_EQ(test, txrdma_credit_tx_init(&s->stx, units), 0);
	KUNIT_ASSERT_EQ(test, txrdma_credit_rx_init(&s->crx, units), 0);
	KUNIT_ASSERT_EQ(test, txrdma_credit_tx_init(&s->ctx, 64), 0);
	s->ctx.head = SENT;
	s->max_len = (units / 2) * TXRDMA_FRAME_UNIT - TXRDMA_FRAME_HDR_LEN;
	s->ahead_max = TXRDMA_RX_AHEAD_MAX_PAYLOAD;
	s->peer_ep = PEER;
	return s;
}

static struct sim *sim_new(struct kunit *test)
{
	return sim_new_ring(test, UNITS);
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
	u32 ring = s->crx.ring_units, due = s->crx.tail & (ring - 1);

	return s->crx.tail + (unit == due ? 0 : ring - due);
}

static struct txrdma_frame next_frame(struct sim *s, u32 len)
{
	return (struct txrdma_frame) {
		.type = TXRDMA_FRAME_MSG, .src_ep = PEER, .dst_ep = EP,
		.seq = s->tx_seq, .len = len, .consumed = s->report,
		.epoch = EPOCH,
	};
}

/* What our receiver knows now. */
static struct txrdma_frame_rx rx_of(const struct sim *s)
{
	return (struct txrdma_frame_rx) {
		.units = s->ring, .ep = EP, .peer_ep = s->peer_ep,
		.epoch = EPOCH, .seq = s->rx_seq, .max_len = s->max_len,
		.ahead_max = s->ahead_max,
		.learn_peer = s->learn_peer, .crx = &s->crx, .ctx = &s->ctx,
	};
}

static enum txrdma_frame_verdict verdict(struct sim *s, bool with_imm,
					 u32 imm, u32 byte_len,
					 struct txrdma_frame_in *in)
{
	const struct txrdma_frame_rx rx = rx_of(s);

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

/*
 * Writes of several frames: the sender coalesced SENDs that were in its
 * SQ together into one WRITE_WITH_IMM, the frames contiguous in our
 * ring, each at a unit boundary with zeroes before the next, the last
 * ending the write.  The receiver judges the first
 * (txrdma_frame_accept()), applies it, and asks about the next at the
 * unit after it (txrdma_frame_accept_at()) while bytes are left.
 */
#define BATCH_MAX	10	/* frames of the writes the tests draw */
#define WALK_MAX	(TXRDMA_FRAME_WRITE_FRAMES + 1)	/* one too many */

/* A frame of a write: its payload's bytes, its TXRDMA_FRAME_F_*. */
struct bf {
	u32 len;
	u8 flags;
};

/*
 * A write as the sender lays it out: @n frames @b from @unit, after the
 * @skip units at the ring's end it skipped; frame i at @at[i], taking
 * @units[i]; @byte_len ends with the last frame.  @edit, when set,
 * changes frame @edit_at (its header's fields, the unit its trailer
 * names) before it is written.
 */
struct batch {
	struct bf b[WALK_MAX];
	unsigned int n;
	u32 unit, skip, byte_len;
	u32 at[WALK_MAX];
	u32 units[WALK_MAX];
	void (*edit)(struct txrdma_frame *f, u32 *start);
	unsigned int edit_at;
};

/* A frame's bytes, by the uapi's rule: header, payload, trailer. */
static u32 bf_bytes(const struct bf *b)
{
	return TXRDMA_FRAME_HDR_LEN + b->len +
	       (b->flags & TXRDMA_FRAME_F_TRAILER ? TXRDMA_FRAME_TRAILER_LEN :
						    0);
}

/*
 * Lay @bt out as the sender places it: the first frame where it is due,
 * or at unit 0 when it does not fit before the ring's end; the others
 * right after it.  Return: whether the write fits before the ring's end
 * and in the credits our process left.
 */
static bool plan_batch(const struct sim *s, struct batch *bt)
{
	u32 ring = s->crx.ring_units, due = s->crx.tail & (ring - 1), end;
	unsigned int i;

	for (i = 0; i < bt->n; i++)
		bt->units[i] = DIV_ROUND_UP(bf_bytes(&bt->b[i]),
					    TXRDMA_FRAME_UNIT);
	bt->skip = due + bt->units[0] > ring ? ring - due : 0;
	bt->unit = bt->skip ? 0 : due;
	end = bt->unit;
	for (i = 0; i < bt->n; i++) {
		bt->at[i] = end;
		end += bt->units[i];
	}
	bt->byte_len = (bt->at[bt->n - 1] - bt->unit) * TXRDMA_FRAME_UNIT +
		       bf_bytes(&bt->b[bt->n - 1]);
	return end <= ring &&
	       s->crx.tail - s->crx.consumed + bt->skip + end - bt->unit <=
	       ring;
}

/*
 * Lay @bt out (plan_batch()) and write it there: whatever the ring held
 * overwritten with a pattern, then each frame (its trailer naming where
 * it starts, free-running), zeroes to the next one.  Return: whether it
 * fits, as plan_batch().
 */
static bool put_batch(struct kunit *test, struct sim *s, struct batch *bt)
{
	bool fits = plan_batch(s, bt);
	u32 start = s->crx.tail + bt->skip, end, flen;
	unsigned int i;
	u8 *at;

	end = bt->at[bt->n - 1] + bt->units[bt->n - 1];
	KUNIT_ASSERT_LE(test, end, (u32)HUGE);
	memset(s->ring + bt->unit * TXRDMA_FRAME_UNIT, 0xa5,
	       (end - bt->unit) * TXRDMA_FRAME_UNIT);
	for (i = 0; i < bt->n; i++) {
		struct txrdma_frame f = next_frame(s, bt->b[i].len);
		u32 unit = start + bt->at[i] - bt->unit;

		at = s->ring + bt->at[i] * TXRDMA_FRAME_UNIT;
		f.flags = bt->b[i].flags;
		if (bt->edit && i == bt->edit_at)
			bt->edit(&f, &unit);
		flen = put_frame(s, bt->at[i], &f);
		if (f.flags & TXRDMA_FRAME_F_TRAILER) {
			txrdma_frame_trailer(at, unit, at + flen);
			flen += TXRDMA_FRAME_TRAILER_LEN;
		}
		s->tx_seq++;
		if (i + 1 < bt->n)
			memset(at + flen, 0,
			       bt->units[i] * TXRDMA_FRAME_UNIT - flen);
	}
	return fits;
}

/* The verdicts on a write, in turn; the frames accepted and applied. */
struct walk {
	enum txrdma_frame_verdict v[WALK_MAX];
	struct txrdma_frame_in in[WALK_MAX];
	unsigned int n;			/* verdicts */
	unsigned int accepted;
};

/*
 * What txrdma_rx_done() does with a write of @byte_len at @unit: the
 * verdict on its first frame; while one is accepted, apply it (the
 * sender learned, if we had to) and ask about the next frame at the
 * unit after it, with the bytes left.  A refusal changes nothing.
 */
static void walk_batch(struct kunit *test, struct sim *s, u32 unit,
		       u32 byte_len, struct walk *w)
{
	struct txrdma_frame_rx rx = rx_of(s);
	struct txrdma_credit_rx crx = s->crx;
	struct txrdma_credit_tx ctx = s->ctx;
	struct txrdma_frame_in *in = w->in;
	enum txrdma_frame_verdict v;

	memset(w, 0, sizeof(*w));
	v = txrdma_frame_accept(&rx, true, txrdma_imm_frame(unit), byte_len,
				in);
	for (;;) {
		w->v[w->n++] = v;
		if (v != TXRDMA_FRAME_ACCEPT && v != TXRDMA_FRAME_ACCEPT_PAD)
			break;
		apply(test, s, in);
		if (s->learn_peer) {
			s->peer_ep = in->f.src_ep;
			s->learn_peer = false;
		}
		w->accepted++;
		if (!in->rest)
			return;
		KUNIT_ASSERT_LT(test, w->n, (unsigned int)WALK_MAX);
		rx = rx_of(s);
		rx.index = w->accepted;
		crx = s->crx;
		ctx = s->ctx;
		v = txrdma_frame_accept_at(&rx, in->unit + in->units, in->rest,
					   in + 1);
		in++;
	}
	KUNIT_EXPECT_EQ(test, memcmp(&crx, &s->crx, sizeof(crx)), 0);
	KUNIT_EXPECT_EQ(test, memcmp(&ctx, &s->ctx, sizeof(ctx)), 0);
}

/*
 * Every frame of @bt accepted in turn, where and as large as the sender
 * laid it out, with the bytes after it; the ring's tail past them all
 * (and the skipped end), the sequence past each.
 */
static void expect_batch(struct kunit *test, const struct sim *s,
			 const struct batch *bt, const struct walk *w,
			 u32 tail, u32 seq)
{
	u32 ring = s->crx.ring_units, units = 0, rest;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, w->n, bt->n);
	KUNIT_EXPECT_EQ(test, w->accepted, bt->n);
	for (i = 0; i < bt->n; i++) {
		units += bt->units[i];
		rest = i + 1 < bt->n ?
		       bt->byte_len - units * TXRDMA_FRAME_UNIT : 0;
		KUNIT_EXPECT_EQ_MSG(test, w->v[i], i || !bt->skip ?
				    TXRDMA_FRAME_ACCEPT :
				    TXRDMA_FRAME_ACCEPT_PAD,
				    "frame %u of %u", i, bt->n);
		KUNIT_EXPECT_EQ_MSG(test, w->in[i].unit, bt->at[i],
				    "frame %u of %u", i, bt->n);
		KUNIT_EXPECT_EQ_MSG(test, w->in[i].units, bt->units[i],
				    "frame %u of %u", i, bt->n);
		KUNIT_EXPECT_EQ_MSG(test, w->in[i].rest, rest,
				    "frame %u of %u", i, bt->n);
		KUNIT_EXPECT_EQ(test, w->in[i].f.len, bt->b[i].len);
		KUNIT_EXPECT_EQ(test, w->in[i].f.flags, bt->b[i].flags);
		KUNIT_EXPECT_EQ(test, w->in[i].f.seq, seq + i);
		KUNIT_EXPECT_EQ(test, w->in[i].released, s->report);
		/* fewer bytes left after each, none after the last */
		if (i)
			KUNIT_EXPECT_LT(test, w->in[i].rest, w->in[i - 1].rest);
	}
	if (bt->skip)
		KUNIT_EXPECT_EQ(test, w->in[0].pad_at, ring - bt->skip);
	KUNIT_EXPECT_EQ(test, s->crx.tail, tail + bt->skip + units);
	KUNIT_EXPECT_EQ(test, s->rx_seq, seq + bt->n);
}

/* Write @bt (it must fit) and walk it: all accepted. */
static void batch_ok(struct kunit *test, struct sim *s, struct batch *bt,
		     struct walk *w)
{
	u32 tail = s->crx.tail, seq = s->rx_seq;

	KUNIT_ASSERT_TRUE(test, put_batch(test, s, bt));
	walk_batch(test, s, bt->unit, bt->byte_len, w);
	expect_batch(test, s, bt, w, tail, seq);
}

/* The first @ok frames accepted, the next one refused with @v. */
static void expect_refused(struct kunit *test, const struct walk *w,
			   unsigned int ok, enum txrdma_frame_verdict v,
			   const char *what)
{
	KUNIT_EXPECT_EQ_MSG(test, w->accepted, ok, "%s", what);
	KUNIT_ASSERT_EQ_MSG(test, w->n, ok + 1, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, w->v[ok], v, "%s", what);
}

/* Our process takes everything: credits for a whole ring. */
static void take_all(struct kunit *test, struct sim *s)
{
	KUNIT_ASSERT_EQ(test, txrdma_credit_rx_release(&s->crx, s->crx.tail),
			0);
}

/* A receiver @tail units into the stream whose process took them all. */
static void sim_at(struct sim *s, u32 tail)
{
	s->crx.tail = tail;
	s->crx.consumed = tail;
	s->crx.reported = tail;
}

/* Payload sizes, and the units a frame takes without a trailer and with. */
static const struct {
	u32 len, units, units_trailer;
} sizes[] = {
	{ 0, 1, 1 }, { 1, 1, 1 }, { 24, 1, 1 }, { 25, 1, 2 }, { 31, 1, 2 },
	{ 32, 1, 2 }, { 33, 2, 2 }, { 63, 2, 2 }, { 64, 2, 2 }, { 100, 3, 3 },
	{ 1000, 17, 17 },
};

static const u8 flag_sets[] = {
	0, TXRDMA_FRAME_F_DATA_CRC,
	TXRDMA_FRAME_F_DATA_CRC | TXRDMA_FRAME_F_TRAILER,
};

/*
 * @n frames of the sizes from the @r-th on, with the @m-th flag set
 * (past the last: each in turn).
 */
static void fill_sizes(struct batch *bt, unsigned int n, unsigned int r,
		       unsigned int m)
{
	unsigned int i;

	*bt = (struct batch) { .n = n };
	for (i = 0; i < n; i++)
		bt->b[i] = (struct bf) {
			.len = sizes[(r + i) % ARRAY_SIZE(sizes)].len,
			.flags = flag_sets[m < ARRAY_SIZE(flag_sets) ? m :
					   i % ARRAY_SIZE(flag_sets)],
		};
}

/* The next report the sender makes: never back, never past what we sent. */
static void next_report(struct sim *s, u32 step)
{
	s->report = min_t(u32, s->report + step, SENT);
}

/*
 * 2, 3 and 10 frames of every size in turn, with neither the CRC over
 * the payload nor a trailer, with the CRC, with both, and mixed: all
 * accepted, in the units the table says.
 */
static void accept_batch_sizes(struct kunit *test)
{
	static const unsigned int counts[] = { 2, 3, BATCH_MAX };
	struct sim *s = sim_new_ring(test, BIG);
	unsigned int c, m, r, i, k, pads = 0;
	struct batch bt;
	struct walk w;

	for (c = 0; c < ARRAY_SIZE(counts); c++)
		for (m = 0; m <= ARRAY_SIZE(flag_sets); m++)
			for (r = 0; r < ARRAY_SIZE(sizes); r++) {
				fill_sizes(&bt, counts[c], r, m);
				take_all(test, s);
				/*
				 * one that would cross the ring's end: the
				 * frames before it filled the ring to there
				 */
				if (!plan_batch(s, &bt))
					sim_at(s, ALIGN(s->crx.tail, BIG));
				batch_ok(test, s, &bt, &w);
				for (i = 0; i < bt.n; i++) {
					k = (r + i) % ARRAY_SIZE(sizes);
					KUNIT_EXPECT_EQ(test, w.in[i].units,
							bt.b[i].flags &
							TXRDMA_FRAME_F_TRAILER ?
							sizes[k].units_trailer :
							sizes[k].units);
				}
				pads += !!bt.skip;
				next_report(s, c & 1);
			}
	/* some of them after a skip */
	KUNIT_EXPECT_GT(test, pads, 0U);
}

/*
 * A sender that coalesces what its SQ holds, our process taking some of
 * it between writes: many laps of the ring in writes of 1 to BATCH_MAX
 * frames (as many as fit before the ring's end and in the credits), some
 * after a skip: all accepted.
 */
static void accept_batch_stream(struct kunit *test)
{
	struct sim *s = sim_new_ring(test, BIG);
	unsigned int i, pads = 0, many = 0;
	u32 rnd = 0x20261204, held;
	struct batch bt;
	struct walk w;

	for (i = 0; i < 1000; i++) {
		rnd = rnd * 1103515245 + 12345;
		held = s->crx.tail - s->crx.consumed;
		KUNIT_ASSERT_EQ(test, txrdma_credit_rx_release(&s->crx,
							       s->crx.consumed +
							       (rnd >> 8) %
							       (held + 1)), 0);
		fill_sizes(&bt, 1 + (rnd >> 16) % BATCH_MAX,
			   (rnd >> 20) % ARRAY_SIZE(sizes),
			   (rnd >> 26) % (ARRAY_SIZE(flag_sets) + 1));
		while (bt.n > 1 && !plan_batch(s, &bt))
			bt.n--;
		if (!plan_batch(s, &bt))
			take_all(test, s);
		batch_ok(test, s, &bt, &w);
		pads += !!bt.skip;
		many += bt.n > 2;
		next_report(s, rnd >> 31);
	}
	KUNIT_EXPECT_GT(test, s->crx.tail, 20U * BIG);
	KUNIT_EXPECT_GT(test, pads, 20U);
	KUNIT_EXPECT_GT(test, many, 100U);
}

/*
 * A write after a skip: its first frame, at unit 0, is ACCEPT_PAD, the
 * others ACCEPT, each trailer naming where its frame starts past the
 * skipped end, across 2^32 too.  The same write where the ring's end had
 * room for its first frame: refused, nothing taken.
 */
static void accept_batch_pad(struct kunit *test)
{
	static const u32 tails[] = { 3 * BIG - 2, 0xfffffffe };
	static const struct bf b[] = {
		{ 100, TXRDMA_FRAME_F_DATA_CRC | TXRDMA_FRAME_F_TRAILER },
		{ 0, 0 },
		{ 33, TXRDMA_FRAME_F_DATA_CRC },
		{ 1000, TXRDMA_FRAME_F_DATA_CRC | TXRDMA_FRAME_F_TRAILER },
	};
	/* where each starts, the units it takes, the bytes after them */
	static const u32 want[][3] = {
		{ 0, 3, 1232 }, { 3, 1, 1168 }, { 4, 2, 1040 }, { 6, 17, 0 },
	};
	struct batch bt = { .n = ARRAY_SIZE(b) };
	unsigned int t, i;
	struct sim *s;
	struct walk w;

	memcpy(bt.b, b, sizeof(b));
	for (t = 0; t < ARRAY_SIZE(tails); t++) {
		s = sim_new_ring(test, BIG);
		sim_at(s, tails[t]);
		batch_ok(test, s, &bt, &w);
		KUNIT_EXPECT_EQ(test, w.v[0], TXRDMA_FRAME_ACCEPT_PAD);
		KUNIT_EXPECT_EQ(test, w.in[0].pad_at, BIG - 2U);
		KUNIT_EXPECT_EQ(test, bt.byte_len, 6U * 64 + 1040);
		for (i = 0; i < ARRAY_SIZE(b); i++) {
			KUNIT_EXPECT_EQ(test, w.in[i].unit, want[i][0]);
			KUNIT_EXPECT_EQ(test, w.in[i].units, want[i][1]);
			KUNIT_EXPECT_EQ(test, w.in[i].rest, want[i][2]);
			if (b[i].flags & TXRDMA_FRAME_F_TRAILER)
				KUNIT_EXPECT_EQ(test, w.in[i].f.trailer_unit,
						tails[t] + 2 + want[i][0]);
		}
		KUNIT_EXPECT_EQ(test, s->crx.tail, tails[t] + 2 + 6 + 17);

		/* a ring's end with room for the first frame: no skip */
		s = sim_new_ring(test, BIG);
		sim_at(s, tails[t]);
		put_batch(test, s, &bt);
		sim_at(s, tails[t] - 2);
		walk_batch(test, s, 0, bt.byte_len, &w);
		expect_refused(test, &w, 0, TXRDMA_FRAME_ERR_PROTO, "no skip");
	}
}

/*
 * A write that would run past the ring's end, its first frames good and
 * in the ring: refused before a frame of it is taken.  Up to the ring's
 * end, all accepted; a byte_len inside the ring that leaves bytes after
 * the last frame: that frame refused.
 */
static void accept_batch_past_end(struct kunit *test)
{
	static const struct {
		u32 byte_len;
		unsigned int ok;
		enum txrdma_frame_verdict v;
	} cases[] = {
		{ 2 * 64 + 95, 2, TXRDMA_FRAME_ACCEPT },
		{ 4 * 64, 1, TXRDMA_FRAME_ERR_PROTO },
		{ 4 * 64 + 1, 0, TXRDMA_FRAME_ERR_PROTO },
		{ 4 * 64 + TXRDMA_FRAME_HDR_LEN, 0, TXRDMA_FRAME_ERR_PROTO },
		{ 5 * 64, 0, TXRDMA_FRAME_ERR_PROTO },
	};
	/* at 60: 2 units and 2 units, to the ring's end */
	static const struct bf b[] = {
		{ 33, TXRDMA_FRAME_F_DATA_CRC }, { 63, 0 },
	};
	struct batch bt = { .n = ARRAY_SIZE(b) };
	unsigned int i;
	struct sim *s;
	struct walk w;

	memcpy(bt.b, b, sizeof(b));
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		s = sim_new_ring(test, BIG);
		sim_at(s, 2 * BIG - 4);
		KUNIT_ASSERT_TRUE(test, put_batch(test, s, &bt));
		KUNIT_ASSERT_EQ(test, bt.unit, BIG - 4U);
		KUNIT_ASSERT_EQ(test, bt.byte_len, cases[0].byte_len);
		walk_batch(test, s, bt.unit, cases[i].byte_len, &w);
		if (cases[i].v == TXRDMA_FRAME_ACCEPT) {
			KUNIT_EXPECT_EQ(test, w.accepted, cases[i].ok);
			KUNIT_EXPECT_EQ(test, w.n, cases[i].ok);
		} else {
			expect_refused(test, &w, cases[i].ok, cases[i].v,
				       "past the end");
		}
		if (w.accepted) {
			KUNIT_EXPECT_EQ(test, w.in[0].unit, BIG - 4U);
			KUNIT_EXPECT_EQ(test, w.in[0].units, 2U);
			KUNIT_EXPECT_EQ(test, w.in[0].rest,
					cases[i].byte_len - 2 * 64);
		}
		KUNIT_EXPECT_EQ(test, s->crx.tail,
				2U * BIG - 4 + 2 * w.accepted);
	}
}

/*
 * A write larger than the sender's credits, though its first frames fit
 * them: refused before a frame of it is taken; where due, and at unit 0
 * after a skip (which counts).
 */
static void accept_batch_credits(struct kunit *test)
{
	/* 17, 3, 2, 2 and 1 units */
	static const struct bf b[] = {
		{ 1000, 0 }, { 100, TXRDMA_FRAME_F_DATA_CRC }, { 64, 0 },
		{ 33, TXRDMA_FRAME_F_DATA_CRC | TXRDMA_FRAME_F_TRAILER },
		{ 0, 0 },
	};
	static const struct {
		u32 tail, held;
		unsigned int n;
		enum txrdma_frame_verdict v;
	} cases[] = {
		/* due 36: 40 held */
		{ 100, 40, 4, TXRDMA_FRAME_ACCEPT },
		{ 100, 40, 5, TXRDMA_FRAME_ERR_PROTO },
		{ 100, 39, 5, TXRDMA_FRAME_ACCEPT },
		/* due 60: a skip of 4 */
		{ 124, 40, 2, TXRDMA_FRAME_ACCEPT_PAD },
		{ 124, 40, 3, TXRDMA_FRAME_ERR_PROTO },
		{ 124, 38, 3, TXRDMA_FRAME_ACCEPT_PAD },
	};
	unsigned int i;
	struct batch bt;
	struct sim *s;
	struct walk w;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		s = sim_new_ring(test, BIG);
		sim_at(s, cases[i].tail);
		s->crx.consumed -= cases[i].held;
		s->crx.reported -= cases[i].held;
		bt = (struct batch) { .n = cases[i].n };
		memcpy(bt.b, b, sizeof(b));
		if (cases[i].v != TXRDMA_FRAME_ERR_PROTO) {
			batch_ok(test, s, &bt, &w);
			KUNIT_EXPECT_EQ(test, w.v[0], cases[i].v);
			continue;
		}
		KUNIT_EXPECT_FALSE(test, put_batch(test, s, &bt));
		/* the first frame alone is within the credits */
		KUNIT_EXPECT_LE(test, cases[i].held + bt.skip + 17, (u32)BIG);
		walk_batch(test, s, bt.unit, bt.byte_len, &w);
		expect_refused(test, &w, 0, cases[i].v, "credits");
		KUNIT_EXPECT_EQ(test, s->crx.tail, cases[i].tail);
	}
}

/*
 * Bytes after a frame that are not a whole header at the next unit:
 * ending in the zeroes after it, or fewer than a header after them.
 * That frame is refused, those before it accepted.  A whole header of
 * zeroes after it is no frame either: its CRC fails.
 */
static void accept_batch_rest(struct kunit *test)
{
	/* 72 bytes of 128, 80 of 128, 64 of 64, 1032 of 1088 */
	static const struct bf frames[] = {
		{ 40, 0 },
		{ 40, TXRDMA_FRAME_F_DATA_CRC | TXRDMA_FRAME_F_TRAILER },
		{ 32, 0 },
		{ 1000, TXRDMA_FRAME_F_DATA_CRC },
	};
	unsigned int i, p;
	u32 extra, end;
	struct batch bt;
	struct sim *s;
	struct walk w;

	for (i = 0; i < ARRAY_SIZE(frames); i++) {
		/* the first of a write, or the second after one unit */
		for (p = 0; p < 2; p++) {
			bt = (struct batch) { .n = p + 1 };
			bt.b[0] = (struct bf) { 10, 0 };
			bt.b[p] = frames[i];
			for (extra = 1;; extra++) {
				s = sim_new_ring(test, BIG);
				put_batch(test, s, &bt);
				end = (bt.at[p] + bt.units[p]) *
				      TXRDMA_FRAME_UNIT;
				if (bt.byte_len + extra >=
				    end + TXRDMA_FRAME_HDR_LEN)
					break;
				walk_batch(test, s, 0, bt.byte_len + extra,
					   &w);
				expect_refused(test, &w, p,
					       TXRDMA_FRAME_ERR_PROTO, "rest");
				if (p)
					KUNIT_EXPECT_EQ(test, w.in[0].rest,
							bt.byte_len + extra -
							64);
			}
			/* all the zeroes a unit holds, as a header */
			memset(s->ring + end, 0, TXRDMA_FRAME_HDR_LEN);
			walk_batch(test, s, 0, end + TXRDMA_FRAME_HDR_LEN, &w);
			expect_refused(test, &w, p + 1, TXRDMA_FRAME_ERR_CRC,
				       "zeroes");
			KUNIT_EXPECT_EQ(test, w.in[p].rest,
					(u32)TXRDMA_FRAME_HDR_LEN);
		}
	}
}

/*
 * The second frame of a write of three is wrong, one way each; the first
 * is accepted, the second refused with its verdict (or, unchanged, all
 * three accepted).  @edit changes it before it is written, @flip then
 * flips @mask in its @off-th byte.
 */
struct batch_bad {
	const char *what;
	enum txrdma_frame_verdict want;
	void (*edit)(struct txrdma_frame *f, u32 *start);
	bool flip;
	u32 off;
	u8 mask;
};

static void e_gap(struct txrdma_frame *f, u32 *start)
{
	f->seq++;
}

static void e_dup(struct txrdma_frame *f, u32 *start)
{
	f->seq--;
}

static void e_dst(struct txrdma_frame *f, u32 *start)
{
	f->dst_ep = EP + 1;
}

static void e_src(struct txrdma_frame *f, u32 *start)
{
	f->src_ep = PEER + 1;
}

static void e_epoch(struct txrdma_frame *f, u32 *start)
{
	f->epoch = EPOCH - 1;
}

static void e_report_back(struct txrdma_frame *f, u32 *start)
{
	f->consumed--;
}

static void e_report_ahead(struct txrdma_frame *f, u32 *start)
{
	f->consumed = SENT + 1;
}

static void e_flag(struct txrdma_frame *f, u32 *start)
{
	f->flags |= 0x80;
}

static void e_trailer_alone(struct txrdma_frame *f, u32 *start)
{
	f->flags = TXRDMA_FRAME_F_TRAILER;
}

static void e_pad(struct txrdma_frame *f, u32 *start)
{
	f->type = TXRDMA_FRAME_PAD;
}

static void e_lap_behind(struct txrdma_frame *f, u32 *start)
{
	*start -= BIG;
}

static void e_lap_ahead(struct txrdma_frame *f, u32 *start)
{
	*start += BIG;
}

static void e_one_off(struct txrdma_frame *f, u32 *start)
{
	*start += 1;
}

static void e_masked(struct txrdma_frame *f, u32 *start)
{
	*start &= BIG - 1;
}

/* the second frame's bytes: its header, 40 of payload, its trailer */
#define HDR_AT(field)	offsetof(struct txrdma_frame_hdr, field)
#define TRAILER_AT(field)	(TXRDMA_FRAME_HDR_LEN + 40 + \
				 offsetof(struct txrdma_frame_trailer, field))

static const struct batch_bad batch_bad_cases[] = {
	{ "none", TXRDMA_FRAME_ACCEPT },
	{ "payload", TXRDMA_FRAME_ERR_CRC, NULL, true,
	  TXRDMA_FRAME_HDR_LEN + 39, 0x40 },
	{ "header seq", TXRDMA_FRAME_ERR_CRC, NULL, true, HDR_AT(seq), 0x01 },
	{ "header dst", TXRDMA_FRAME_ERR_CRC, NULL, true, HDR_AT(dst_ep),
	  0x80 },
	{ "header type", TXRDMA_FRAME_ERR_CRC, NULL, true, HDR_AT(type), 0x02 },
	{ "header crc", TXRDMA_FRAME_ERR_CRC, NULL, true, HDR_AT(crc), 0x10 },
	{ "len within the write", TXRDMA_FRAME_ERR_CRC, NULL, true,
	  HDR_AT(len), 0x10 },
	{ "len past the write", TXRDMA_FRAME_ERR_PROTO, NULL, true,
	  HDR_AT(len) + 1, 0x40 },
	{ "trailer seq", TXRDMA_FRAME_ERR_PROTO, NULL, true, TRAILER_AT(seq),
	  0x01 },
	{ "trailer unit", TXRDMA_FRAME_ERR_PROTO, NULL, true,
	  TRAILER_AT(unit), 0x01 },
	{ "gap", TXRDMA_FRAME_ERR_SEQ, e_gap },
	{ "duplicate", TXRDMA_FRAME_ERR_SEQ, e_dup },
	{ "not ours", TXRDMA_FRAME_ERR_PROTO, e_dst },
	{ "another sender", TXRDMA_FRAME_ERR_PROTO, e_src },
	{ "old epoch", TXRDMA_FRAME_ERR_PROTO, e_epoch },
	{ "report back", TXRDMA_FRAME_ERR_PROTO, e_report_back },
	{ "report ahead", TXRDMA_FRAME_ERR_PROTO, e_report_ahead },
	{ "unknown flag", TXRDMA_FRAME_ERR_PROTO, e_flag },
	{ "trailer without the CRC", TXRDMA_FRAME_ERR_PROTO, e_trailer_alone },
	{ "a PAD", TXRDMA_FRAME_ERR_PROTO, e_pad },
	{ "trailer a lap behind", TXRDMA_FRAME_ERR_PROTO, e_lap_behind },
	{ "trailer a lap ahead", TXRDMA_FRAME_ERR_PROTO, e_lap_ahead },
	{ "trailer one off", TXRDMA_FRAME_ERR_PROTO, e_one_off },
	{ "trailer masked", TXRDMA_FRAME_ERR_PROTO, e_masked },
};

static void accept_batch_refuses(struct kunit *test)
{
	/* at 3: 3, 2 and 1 units; 362 bytes */
	static const struct bf b[] = {
		{ 100, TXRDMA_FRAME_F_DATA_CRC },
		{ 40, TXRDMA_FRAME_F_DATA_CRC | TXRDMA_FRAME_F_TRAILER },
		{ 10, 0 },
	};
	const u32 tail = 5 * BIG + 3;
	unsigned int i;
	struct batch bt;
	struct sim *s;
	struct walk w;

	for (i = 0; i < ARRAY_SIZE(batch_bad_cases); i++) {
		const struct batch_bad *c = &batch_bad_cases[i];

		s = sim_new_ring(test, BIG);
		sim_at(s, tail);
		s->report = 5;
		bt = (struct batch) {
			.n = ARRAY_SIZE(b), .edit = c->edit, .edit_at = 1,
		};
		memcpy(bt.b, b, sizeof(b));
		KUNIT_ASSERT_TRUE(test, put_batch(test, s, &bt));
		KUNIT_ASSERT_EQ(test, bt.byte_len, 362U);
		if (c->flip)
			s->ring[6 * TXRDMA_FRAME_UNIT + c->off] ^= c->mask;
		walk_batch(test, s, 3, 362, &w);
		if (c->want == TXRDMA_FRAME_ACCEPT) {
			KUNIT_EXPECT_EQ_MSG(test, w.accepted, 3U, "%s",
					    c->what);
			KUNIT_EXPECT_EQ(test, w.in[1].unit, 6U);
			KUNIT_EXPECT_EQ(test, w.in[1].units, 2U);
			KUNIT_EXPECT_EQ(test, w.in[1].rest, 42U);
			KUNIT_EXPECT_EQ(test, w.in[2].unit, 8U);
			KUNIT_EXPECT_EQ(test, w.in[2].units, 1U);
			KUNIT_EXPECT_EQ(test, w.in[2].rest, 0U);
		} else {
			expect_refused(test, &w, 1, c->want, c->what);
		}
		KUNIT_EXPECT_EQ(test, w.in[0].unit, 3U);
		KUNIT_EXPECT_EQ(test, w.in[0].units, 3U);
		KUNIT_EXPECT_EQ(test, w.in[0].rest, 170U);
		KUNIT_EXPECT_EQ(test, s->crx.tail, tail + (w.accepted > 1 ?
							   6 : 3));
		KUNIT_EXPECT_EQ(test, s->rx_seq, w.accepted);
	}
}

/*
 * A connector that has not learned its peer: the first frame of a
 * write names it, the next must come from it.
 */
static void accept_batch_learn(struct kunit *test)
{
	struct batch bt;
	struct sim *s;
	struct walk w;

	s = sim_new_ring(test, BIG);
	s->learn_peer = true;
	s->peer_ep = 0;
	fill_sizes(&bt, 3, 0, ARRAY_SIZE(flag_sets));
	batch_ok(test, s, &bt, &w);
	KUNIT_EXPECT_EQ(test, s->peer_ep, (u32)PEER);

	s = sim_new_ring(test, BIG);
	s->learn_peer = true;
	s->peer_ep = 0;
	fill_sizes(&bt, 3, 0, ARRAY_SIZE(flag_sets));
	bt.edit = e_src;
	bt.edit_at = 1;
	put_batch(test, s, &bt);
	walk_batch(test, s, bt.unit, bt.byte_len, &w);
	expect_refused(test, &w, 1, TXRDMA_FRAME_ERR_PROTO, "learned");
	KUNIT_EXPECT_EQ(test, s->peer_ep, (u32)PEER);
}

/*
 * What one completion makes the receiver check is bounded: at most
 * TXRDMA_FRAME_WRITE_FRAMES frames (one more is refused after those are
 * taken), and no more bytes than
 * the largest frame alone (a write one byte longer is refused whole).
 */
static void accept_batch_limits(struct kunit *test)
{
	const u32 half = 512 * TXRDMA_FRAME_UNIT;
	struct batch bt;
	struct walk w;
	unsigned int n, i;
	struct sim *s;

	for (n = TXRDMA_FRAME_WRITE_FRAMES; n <= WALK_MAX; n++) {
		s = sim_new_ring(test, BIG);
		bt = (struct batch) { .n = n };
		for (i = 0; i < n; i++)
			bt.b[i] = (struct bf) { .len = i % 2 ? 0 : 20 };
		KUNIT_ASSERT_TRUE(test, put_batch(test, s, &bt));
		if (n == TXRDMA_FRAME_WRITE_FRAMES) {
			walk_batch(test, s, bt.unit, bt.byte_len, &w);
			expect_batch(test, s, &bt, &w, 0, 0);
		} else {
			walk_batch(test, s, bt.unit, bt.byte_len, &w);
			expect_refused(test, &w, TXRDMA_FRAME_WRITE_FRAMES,
				       TXRDMA_FRAME_ERR_PROTO, "a frame too many");
		}
	}
	/* two frames, exactly the largest frame's bytes: taken */
	s = sim_new_ring(test, HUGE);
	bt = (struct batch) { .n = 2 };
	bt.b[0].len = half - TXRDMA_FRAME_HDR_LEN;
	bt.b[1].len = TXRDMA_FRAME_WRITE_BYTES - half - TXRDMA_FRAME_HDR_LEN;
	batch_ok(test, s, &bt, &w);
	KUNIT_EXPECT_EQ(test, bt.byte_len, TXRDMA_FRAME_WRITE_BYTES);
	/* one byte more: refused before a frame is read */
	s = sim_new_ring(test, HUGE);
	bt.b[1].len++;
	KUNIT_ASSERT_TRUE(test, put_batch(test, s, &bt));
	KUNIT_EXPECT_EQ(test, bt.byte_len, TXRDMA_FRAME_WRITE_BYTES + 1);
	walk_batch(test, s, bt.unit, bt.byte_len, &w);
	expect_refused(test, &w, 0, TXRDMA_FRAME_ERR_PROTO, "too long");
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
	KUNIT_CASE(accept_batch_sizes),
	KUNIT_CASE(accept_batch_stream),
	KUNIT_CASE(accept_batch_pad),
	KUNIT_CASE(accept_batch_past_end),
	KUNIT_CASE(accept_batch_credits),
	KUNIT_CASE(accept_batch_rest),
	KUNIT_CASE(accept_batch_refuses),
	KUNIT_CASE(accept_batch_learn),
	KUNIT_CASE(accept_batch_limits),
	{}
};

static struct kunit_suite txrdma_frame_accept_suite = {
	.name = "txrdma_frame_accept",
	.test_cases = txrdma_frame_accept_cases,
};

kunit_test_suite(txrdma_frame_accept_suite);
