// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite txrdma_credit: a sender never overruns the receiver's
 * ring, frames never wrap and both sides agree on where each starts,
 * credits come back piggybacked or in updates, a peer or a process
 * that reports nonsense is refused without changing anything, a process
 * that reads ahead of the tail gets credits back only for what arrived,
 * and all of it holds across the wrap of the 32-bit counters.
 */
#include <kunit/test.h>
#include <linux/string.h>

#include "../txrdma_credit.h"

static void credit_init(struct kunit *test)
{
	struct txrdma_credit_tx c;
	struct txrdma_credit_rx r;

	KUNIT_EXPECT_EQ(test, txrdma_credit_tx_init(&c, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, txrdma_credit_tx_init(&c, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, txrdma_credit_tx_init(&c, 24), -EINVAL);
	KUNIT_EXPECT_EQ(test, txrdma_credit_tx_init(&c, 1U << 31), -EINVAL);
	KUNIT_EXPECT_EQ(test, txrdma_credit_tx_init(&c, 1U << 30), 0);
	KUNIT_EXPECT_EQ(test, txrdma_credit_tx_init(&c, 2), 0);
	KUNIT_EXPECT_EQ(test, txrdma_credit_tx_free(&c), 2U);
	KUNIT_EXPECT_EQ(test, txrdma_credit_rx_init(&r, 3), -EINVAL);
	KUNIT_EXPECT_EQ(test, txrdma_credit_rx_init(&r, 16), 0);
}

static void credit_stall_and_skip(struct kunit *test)
{
	struct txrdma_credit_tx c;
	u32 unit = 99;
	int i;

	KUNIT_ASSERT_EQ(test, txrdma_credit_tx_init(&c, 16), 0);
	for (i = 0; i < 5; i++) {
		KUNIT_ASSERT_EQ(test, txrdma_credit_place(&c, 3, &unit), 0);
		KUNIT_EXPECT_EQ(test, unit, (u32)i * 3);
	}
	KUNIT_EXPECT_EQ(test, txrdma_credit_tx_free(&c), 1U);
	/* 3 units at 15 would wrap: skip 1, which needs 4 credits */
	KUNIT_EXPECT_EQ(test, txrdma_credit_place(&c, 3, &unit), -ENOSPC);
	KUNIT_EXPECT_EQ(test, c.stalls, 1ULL);
	KUNIT_EXPECT_EQ(test, c.head, 15U);
	KUNIT_EXPECT_EQ(test, txrdma_credit_place(&c, 1, &unit), 0);
	KUNIT_EXPECT_EQ(test, unit, 15U);
	KUNIT_EXPECT_EQ(test, txrdma_credit_place(&c, 1, &unit), -ENOSPC);
	KUNIT_EXPECT_EQ(test, txrdma_credit_tx_update(&c, 3), 0);
	KUNIT_EXPECT_EQ(test, txrdma_credit_place(&c, 3, &unit), 0);
	KUNIT_EXPECT_EQ(test, unit, 0U);
	KUNIT_EXPECT_EQ(test, txrdma_credit_tx_free(&c), 0U);
	/* never fits: more than half the ring, or nothing */
	KUNIT_EXPECT_EQ(test, txrdma_credit_place(&c, 9, &unit), -EMSGSIZE);
	KUNIT_EXPECT_EQ(test, txrdma_credit_place(&c, 0, &unit), -EMSGSIZE);
	KUNIT_EXPECT_EQ(test, c.stalls, 2ULL);
}

static void credit_bad_updates(struct kunit *test)
{
	struct txrdma_credit_tx c;
	u32 unit;

	KUNIT_ASSERT_EQ(test, txrdma_credit_tx_init(&c, 16), 0);
	KUNIT_ASSERT_EQ(test, txrdma_credit_place(&c, 4, &unit), 0);
	KUNIT_EXPECT_EQ(test, txrdma_credit_tx_update(&c, 5), -EPROTO);
	KUNIT_EXPECT_EQ(test, txrdma_credit_tx_update(&c, 2), 0);
	KUNIT_EXPECT_EQ(test, txrdma_credit_tx_update(&c, 1), -EPROTO);
	KUNIT_EXPECT_EQ(test, txrdma_credit_tx_update(&c, 2), 0);
	KUNIT_EXPECT_EQ(test, c.released, 2U);
	KUNIT_EXPECT_EQ(test, txrdma_credit_tx_update(&c, 4), 0);
	KUNIT_EXPECT_EQ(test, txrdma_credit_tx_free(&c), 16U);
}

static void credit_rx_checks(struct kunit *test)
{
	struct txrdma_credit_rx r;

	KUNIT_ASSERT_EQ(test, txrdma_credit_rx_init(&r, 16), 0);
	KUNIT_EXPECT_EQ(test, txrdma_credit_rx_frame(&r, 1, 3), -EPROTO);
	KUNIT_EXPECT_EQ(test, txrdma_credit_rx_frame(&r, 0, 0), -EPROTO);
	KUNIT_EXPECT_EQ(test, txrdma_credit_rx_frame(&r, 0, 9), -EPROTO);
	KUNIT_EXPECT_EQ(test, r.tail, 0U);
	KUNIT_EXPECT_EQ(test, txrdma_credit_rx_frame(&r, 0, 8), 0);
	KUNIT_EXPECT_EQ(test, txrdma_credit_rx_frame(&r, 8, 7), 0);
	/* 2 at 15 must skip to 0: but 0 is still held by the process */
	KUNIT_EXPECT_EQ(test, txrdma_credit_rx_frame(&r, 0, 2), -ENOSPC);
	KUNIT_EXPECT_EQ(test, txrdma_credit_rx_frame(&r, 15, 2), -EPROTO);
	KUNIT_EXPECT_EQ(test, r.tail, 15U);
	/*
	 * the process releases; garbage heads are refused: ahead of the
	 * tail where the process does not read ahead (ahead only by a
	 * ring, 15 + 16, where it does), or behind the last release
	 */
	KUNIT_EXPECT_EQ(test, txrdma_credit_rx_release(&r, 16), -EINVAL);
	r.ahead = true;
	KUNIT_EXPECT_EQ(test, txrdma_credit_rx_release(&r, 32), -EINVAL);
	r.ahead = false;
	KUNIT_EXPECT_EQ(test, txrdma_credit_rx_release(&r, 0xffffffff),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, r.consumed, 0U);
	KUNIT_EXPECT_FALSE(test, txrdma_credit_rx_should_update(&r));
	KUNIT_EXPECT_EQ(test, txrdma_credit_rx_release(&r, 3), 0);
	KUNIT_EXPECT_FALSE(test, txrdma_credit_rx_should_update(&r));
	KUNIT_EXPECT_EQ(test, txrdma_credit_rx_release(&r, 8), 0);
	KUNIT_EXPECT_TRUE(test, txrdma_credit_rx_should_update(&r));
	KUNIT_EXPECT_EQ(test, txrdma_credit_rx_release(&r, 7), -EINVAL);
	KUNIT_EXPECT_EQ(test, txrdma_credit_rx_report(&r), 8U);
	KUNIT_EXPECT_FALSE(test, txrdma_credit_rx_should_update(&r));
	KUNIT_EXPECT_EQ(test, txrdma_credit_rx_frame(&r, 0, 2), 0);
	KUNIT_EXPECT_EQ(test, r.tail, 18U);
	/* less than a quarter, but everything that arrived: update too */
	KUNIT_EXPECT_EQ(test, txrdma_credit_rx_release(&r, 17), 0);
	KUNIT_EXPECT_TRUE(test, txrdma_credit_rx_should_update(&r));
	KUNIT_EXPECT_EQ(test, txrdma_credit_rx_report(&r), 17U);
	KUNIT_EXPECT_FALSE(test, txrdma_credit_rx_should_update(&r));
	/*
	 * One unit unreported of 16: the sender sees 15 free, enough for
	 * any frame (at most 8) and the tail it may skip: not due
	 */
	KUNIT_EXPECT_EQ(test, txrdma_credit_rx_release(&r, 18), 0);
	KUNIT_EXPECT_FALSE(test, txrdma_credit_rx_should_update(&r));
	/* two are: 14 free could hold back a frame of 8 after a skip of 7 */
	KUNIT_EXPECT_EQ(test, txrdma_credit_rx_frame(&r, 2, 1), 0);
	KUNIT_EXPECT_EQ(test, txrdma_credit_rx_release(&r, 19), 0);
	KUNIT_EXPECT_TRUE(test, txrdma_credit_rx_should_update(&r));
	KUNIT_EXPECT_EQ(test, txrdma_credit_rx_report(&r), 19U);
	KUNIT_EXPECT_FALSE(test, txrdma_credit_rx_should_update(&r));
	/* frames of at most 2 units: 14 free is plenty, 3 unreported too */
	txrdma_credit_rx_max_frame(&r, 2);
	KUNIT_EXPECT_EQ(test, r.max_units, 2U);
	txrdma_credit_rx_max_frame(&r, 9);	/* never raised */
	KUNIT_EXPECT_EQ(test, r.max_units, 2U);
	/* and a frame above it is refused, nothing changed */
	KUNIT_EXPECT_EQ(test, txrdma_credit_rx_frame(&r, 3, 3), -EPROTO);
	KUNIT_EXPECT_EQ(test, r.tail, 19U);
	KUNIT_EXPECT_EQ(test, txrdma_credit_rx_frame(&r, 3, 2), 0);
	KUNIT_EXPECT_EQ(test, txrdma_credit_rx_frame(&r, 5, 1), 0);
	KUNIT_EXPECT_EQ(test, txrdma_credit_rx_release(&r, 22), 0);
	KUNIT_EXPECT_FALSE(test, txrdma_credit_rx_should_update(&r));
	/* a quarter is always due */
	KUNIT_EXPECT_EQ(test, txrdma_credit_rx_frame(&r, 6, 1), 0);
	KUNIT_EXPECT_EQ(test, txrdma_credit_rx_release(&r, 23), 0);
	KUNIT_EXPECT_TRUE(test, txrdma_credit_rx_should_update(&r));
}

/* A receiver of @ring units: @tail arrived, @consumed released. */
static struct txrdma_credit_rx rx_at(u32 ring, u32 tail, u32 consumed)
{
	return (struct txrdma_credit_rx) {
		.ring_units = ring, .tail = tail, .consumed = consumed,
		.reported = consumed, .max_units = ring / 2, .ahead = true,
	};
}

/* @consumed refused, and @r exactly as it was. */
static void expect_release_refused(struct kunit *test,
				   struct txrdma_credit_rx *r, u32 consumed)
{
	struct txrdma_credit_rx was = *r;

	KUNIT_EXPECT_EQ_MSG(test, txrdma_credit_rx_release(r, consumed),
			    -EINVAL, "head %u tail %u", consumed, r->tail);
	KUNIT_EXPECT_EQ(test, memcmp(&was, r, sizeof(was)), 0);
}

/*
 * A process that reads ahead releases frames before they arrive: a
 * head up to a ring ahead of the tail counts as far as the tail; the
 * rest is taken by a later release, once the frames arrived.
 */
static void credit_rx_release_ahead(struct kunit *test)
{
	/* the ring's start, so the walk below skips where it says */
	static const u32 starts[] = { 0, 0x3f0, 0x7ffffff0, 0xfffffff0 };
	struct txrdma_credit_rx r;
	u32 t;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(starts); i++) {
		t = starts[i];
		r = rx_at(16, t, t);
		/* 5 units arrive */
		KUNIT_ASSERT_EQ(test, txrdma_credit_rx_frame(&r, 0, 5), 0);
		KUNIT_ASSERT_EQ(test, r.tail, t + 5);
		/* one ahead, a ring ahead: released up to the tail */
		KUNIT_EXPECT_EQ(test, txrdma_credit_rx_release(&r, t + 6), 0);
		KUNIT_EXPECT_EQ(test, r.consumed, t + 5);
		KUNIT_EXPECT_EQ(test, txrdma_credit_rx_release(&r, t + 5 + 16),
				0);
		KUNIT_EXPECT_EQ(test, r.consumed, t + 5);
		KUNIT_EXPECT_EQ(test, r.tail, t + 5);
		/* one more is garbage; so is behind the release */
		expect_release_refused(test, &r, t + 5 + 17);
		expect_release_refused(test, &r, t + 4);
		expect_release_refused(test, &r, t + 5 + 0x80000000);
		/* never credits for what did not arrive */
		KUNIT_EXPECT_EQ(test, txrdma_credit_rx_report(&r), t + 5);
		/* 8 arrive; the same head again takes them all */
		KUNIT_ASSERT_EQ(test, txrdma_credit_rx_frame(&r, 5, 8), 0);
		KUNIT_EXPECT_EQ(test, txrdma_credit_rx_release(&r, t + 21), 0);
		KUNIT_EXPECT_EQ(test, r.consumed, t + 13);
		/* the bound moved with the tail: 13 + 16 */
		KUNIT_EXPECT_EQ(test, txrdma_credit_rx_release(&r, t + 29), 0);
		KUNIT_EXPECT_EQ(test, r.consumed, t + 13);
		expect_release_refused(test, &r, t + 30);
		/* 5 arrive after a skip of 3 to the ring's start: counted */
		KUNIT_ASSERT_EQ(test, txrdma_credit_rx_frame(&r, 0, 5), 0);
		KUNIT_ASSERT_EQ(test, r.tail, t + 21);
		KUNIT_EXPECT_EQ(test, txrdma_credit_rx_release(&r, t + 29), 0);
		KUNIT_EXPECT_EQ(test, r.consumed, t + 21);
		/* the last 8: the head is where the tail is */
		KUNIT_ASSERT_EQ(test, txrdma_credit_rx_frame(&r, 5, 8), 0);
		KUNIT_EXPECT_EQ(test, txrdma_credit_rx_release(&r, t + 29), 0);
		KUNIT_EXPECT_EQ(test, r.consumed, t + 29);
		KUNIT_EXPECT_EQ(test, txrdma_credit_rx_report(&r), t + 29);
		expect_release_refused(test, &r, t + 28);
	}
}

/* txrdma_credit_rx_clamp(): never past the tail, in serial arithmetic */
static void credit_rx_clamp(struct kunit *test)
{
	static const u32 tails[] = { 0, 7, 0x7fffffff, 0x80000000,
				     0xfffffffe, 0xffffffff };
	struct txrdma_credit_rx r;
	unsigned int i;
	u32 t;

	for (i = 0; i < ARRAY_SIZE(tails); i++) {
		t = tails[i];
		r = rx_at(16, t, t - 16);
		/* behind or at the tail: as it is */
		KUNIT_EXPECT_EQ(test, txrdma_credit_rx_clamp(&r, t), t);
		KUNIT_EXPECT_EQ(test, txrdma_credit_rx_clamp(&r, t - 1), t - 1);
		KUNIT_EXPECT_EQ(test, txrdma_credit_rx_clamp(&r, t - 16),
				t - 16);
		/* ahead, across 2^32 too: the tail */
		KUNIT_EXPECT_EQ(test, txrdma_credit_rx_clamp(&r, t + 1), t);
		KUNIT_EXPECT_EQ(test, txrdma_credit_rx_clamp(&r, t + 2), t);
		KUNIT_EXPECT_EQ(test, txrdma_credit_rx_clamp(&r, t + 16), t);
		KUNIT_EXPECT_EQ(test, txrdma_credit_rx_clamp(&r, t + 0x7fffffff),
				t);
		/* half the counter away is behind (release refuses it) */
		KUNIT_EXPECT_EQ(test, txrdma_credit_rx_clamp(&r, t + 0x80000000),
				t + 0x80000000);
		/* it only computes */
		KUNIT_EXPECT_EQ(test, r.tail, t);
		KUNIT_EXPECT_EQ(test, r.consumed, t - 16);
	}
	/* the wrap itself: a tail just below 2^32, a head just above */
	r = rx_at(16, 0xfffffffc, 0xfffffff0);
	KUNIT_EXPECT_EQ(test, txrdma_credit_rx_clamp(&r, 3), 0xfffffffcU);
	KUNIT_EXPECT_EQ(test, txrdma_credit_rx_clamp(&r, 0xfffffffd),
			0xfffffffcU);
	r = rx_at(16, 2, 0xfffffff8);
	KUNIT_EXPECT_EQ(test, txrdma_credit_rx_clamp(&r, 0xffffffff),
			0xffffffffU);
	KUNIT_EXPECT_EQ(test, txrdma_credit_rx_clamp(&r, 0), 0U);
	KUNIT_EXPECT_EQ(test, txrdma_credit_rx_clamp(&r, 18), 2U);
}

/*
 * The update rule never deadlocks: whenever everything that arrived is
 * released and no update is due, the sender (once the credits already
 * reported reach it) can place any frame it may send at any position,
 * skip included.  Exhaustive over small rings, every frame bound and
 * every count of unreported units; and a ping-pong on a big ring is not
 * charged an update per message.
 */
static void credit_rx_due_never_stalls(struct kunit *test)
{
	static const u32 rings[] = { 2, 4, 16, 64 };
	u32 i, ring, max, u, units, pos, skip;

	for (i = 0; i < ARRAY_SIZE(rings); i++) {
		ring = rings[i];
		for (max = 1; max <= ring / 2; max++) {
			for (u = 0; u <= ring; u++) {
				/* tail == consumed: everything released */
				if (txrdma_credit_rx_due(ring, max, 1000 + u,
							 1000 + u, 1000))
					continue;
				KUNIT_EXPECT_LT(test, u, ring / 4 ?: 1);
				for (units = 1; units <= max; units++) {
					for (pos = 0; pos < ring; pos++) {
						skip = pos + units > ring ?
						       ring - pos : 0;
						KUNIT_ASSERT_LE(test,
								skip + units,
								ring - u);
					}
				}
			}
			/* nothing unreported is never due */
			KUNIT_EXPECT_FALSE(test, txrdma_credit_rx_due(ring, max,
								      7, 7, 7));
		}
	}
	/*
	 * 4096 units, 64 KiB payloads (1,025 units): a ping of 1 unit is
	 * not charged an update; only the quarter is
	 */
	KUNIT_EXPECT_FALSE(test, txrdma_credit_rx_due(4096, 1025, 11, 11, 10));
	KUNIT_EXPECT_FALSE(test, txrdma_credit_rx_due(4096, 1025, 1033, 1033,
						      10));
	KUNIT_EXPECT_TRUE(test, txrdma_credit_rx_due(4096, 1025, 1034, 1034,
						     10));
	/* frames of half the ring: 2 units unreported may hold one back */
	KUNIT_EXPECT_FALSE(test, txrdma_credit_rx_due(4096, 2048, 11, 11, 10));
	KUNIT_EXPECT_TRUE(test, txrdma_credit_rx_due(4096, 2048, 12, 12, 10));
	/* not all released: only the quarter */
	KUNIT_EXPECT_FALSE(test, txrdma_credit_rx_due(4096, 2048, 2000, 1000,
						      10));
	KUNIT_EXPECT_TRUE(test, txrdma_credit_rx_due(4096, 2048, 2000, 1034,
						     10));
}

/*
 * A session's receiver (every_empty): its sender completes each SEND
 * only when it hears of the release, so every release that empties the
 * ring is due, however small; one that does not empty it waits for the
 * quarter, as any other; nothing unreported is never due.
 */
static void credit_rx_due_every_empty(struct kunit *test)
{
	struct txrdma_credit_rx r;

	KUNIT_ASSERT_EQ(test, txrdma_credit_rx_init(&r, 4096), 0);
	txrdma_credit_rx_max_frame(&r, 1025);
	KUNIT_EXPECT_EQ(test, txrdma_credit_rx_due_units(&r), 1025U);
	r.every_empty = true;
	KUNIT_EXPECT_EQ(test, txrdma_credit_rx_due_units(&r), 0U);
	KUNIT_EXPECT_FALSE(test, txrdma_credit_rx_should_update(&r));
	/* one unit arrived: not released, not due */
	KUNIT_EXPECT_EQ(test, txrdma_credit_rx_frame(&r, 0, 1), 0);
	KUNIT_EXPECT_FALSE(test, txrdma_credit_rx_should_update(&r));
	/* released: the ring is empty, due (not without every_empty) */
	KUNIT_EXPECT_EQ(test, txrdma_credit_rx_release(&r, 1), 0);
	KUNIT_EXPECT_TRUE(test, txrdma_credit_rx_should_update(&r));
	r.every_empty = false;
	KUNIT_EXPECT_FALSE(test, txrdma_credit_rx_should_update(&r));
	r.every_empty = true;
	KUNIT_EXPECT_EQ(test, txrdma_credit_rx_report(&r), 1U);
	KUNIT_EXPECT_FALSE(test, txrdma_credit_rx_should_update(&r));
	/* two more arrive, one is released: not empty, not a quarter */
	KUNIT_EXPECT_EQ(test, txrdma_credit_rx_frame(&r, 1, 1), 0);
	KUNIT_EXPECT_EQ(test, txrdma_credit_rx_frame(&r, 2, 1), 0);
	KUNIT_EXPECT_EQ(test, txrdma_credit_rx_release(&r, 2), 0);
	KUNIT_EXPECT_FALSE(test, txrdma_credit_rx_should_update(&r));
	KUNIT_EXPECT_EQ(test, txrdma_credit_rx_release(&r, 3), 0);
	KUNIT_EXPECT_TRUE(test, txrdma_credit_rx_should_update(&r));
	/*
	 * not empty, but TXRDMA_CREDIT_SESSION_UNITS released unreported:
	 * due (the process may hold its next frame while the sender
	 * waits with every slot on frames released before it)
	 */
	KUNIT_EXPECT_EQ(test, txrdma_credit_rx_report(&r), 3U);
	KUNIT_EXPECT_EQ(test, txrdma_credit_rx_frame(&r, 3, 31), 0);
	KUNIT_EXPECT_EQ(test, txrdma_credit_rx_frame(&r, 34, 2), 0);
	KUNIT_EXPECT_EQ(test, txrdma_credit_rx_release(&r, 34), 0);
	KUNIT_EXPECT_FALSE(test, txrdma_credit_rx_should_update(&r));
	KUNIT_EXPECT_EQ(test, txrdma_credit_rx_release(&r, 35), 0);
	KUNIT_EXPECT_TRUE(test, txrdma_credit_rx_should_update(&r));
	r.every_empty = false;
	KUNIT_EXPECT_FALSE(test, txrdma_credit_rx_should_update(&r));
	r.every_empty = true;
	/* the rule itself: max_units 0 is "every empty ring" */
	KUNIT_EXPECT_TRUE(test, txrdma_credit_rx_due(4096, 0, 11, 11, 10));
	KUNIT_EXPECT_FALSE(test, txrdma_credit_rx_due(4096, 0, 11, 11, 11));
	KUNIT_EXPECT_FALSE(test, txrdma_credit_rx_due(4096, 0, 12, 11, 10));
	KUNIT_EXPECT_TRUE(test, txrdma_credit_rx_due(4096, 0, 2000, 1034,
						     10));
}

static u32 lcg(u32 *s)
{
	*s = *s * 1664525 + 1013904223;
	return *s >> 8;
}

/*
 * A sender and a receiver joined by a perfect wire, random frame sizes,
 * a process that releases at random and credits returned at random in
 * frames or updates; starting near the 32-bit wrap.
 */
static void credit_model(struct kunit *test, u32 start)
{
	struct txrdma_credit_tx c;
	struct txrdma_credit_rx r;
	u32 seed = 42, placed = 0, stalls = 0, wire_units = 0;
	u32 unit, units, back;
	int i, ret;

	KUNIT_ASSERT_EQ(test, txrdma_credit_tx_init(&c, 64), 0);
	KUNIT_ASSERT_EQ(test, txrdma_credit_rx_init(&r, 64), 0);
	r.ahead = true;
	c.head = start;
	c.released = start;
	r.tail = start;
	r.consumed = start;
	r.reported = start;
	for (i = 0; i < 200000; i++) {
		switch (lcg(&seed) % 4) {
		case 0:
		case 1:
			units = 1 + lcg(&seed) % 32;
			ret = txrdma_credit_place(&c, units, &unit);
			if (ret == -ENOSPC) {
				stalls++;
				break;
			}
			KUNIT_ASSERT_EQ(test, ret, 0);
			KUNIT_ASSERT_LE(test, unit + units, 64U);
			KUNIT_ASSERT_EQ(test,
					txrdma_credit_rx_frame(&r, unit, units),
					0);
			KUNIT_ASSERT_EQ(test, r.tail, c.head);
			KUNIT_ASSERT_LE(test, r.tail - r.consumed, 64U);
			wire_units += units;
			placed++;
			break;
		case 2:
			/* the process releases part of what it holds */
			ret = txrdma_credit_rx_release(&r, r.consumed +
				lcg(&seed) % (r.tail - r.consumed + 1));
			KUNIT_ASSERT_EQ(test, ret, 0);
			break;
		case 3:
			/* credits come back: in a frame, or by update */
			if (!(lcg(&seed) % 2) &&
			    !txrdma_credit_rx_should_update(&r))
				break;
			/* an update carries 31 bits: unwrap like the module */
			back = txrdma_credit_rx_report(&r) & 0x7fffffff;
			back = txrdma_credit_unwrap31(c.released, back);
			KUNIT_ASSERT_EQ(test, txrdma_credit_tx_update(&c, back),
					0);
			break;
		}
	}
	KUNIT_EXPECT_GT(test, placed, 10000U);
	KUNIT_EXPECT_GT(test, stalls, 100U);
	KUNIT_EXPECT_EQ(test, (u64)stalls, c.stalls);
	KUNIT_EXPECT_LE(test, wire_units, c.head - start);
}

static void credit_model_zero(struct kunit *test)
{
	credit_model(test, 0);
}

static void credit_model_wrap(struct kunit *test)
{
	credit_model(test, 0xffffff00);
}

/*
 * The kernel's side of a process that reads ahead: its head runs up to
 * a ring ahead of the tail and is taken again after every frame that
 * arrives (txrdma_rx_take_ahead()).  The receiver never counts more
 * released than arrived, takes the whole head once the frames are
 * there, and the sender, paid only what was counted, never overruns
 * it; from near the 32-bit wrap.
 */
static void credit_model_ahead(struct kunit *test)
{
	const u32 start = 0xfffff000;
	struct txrdma_credit_tx c;
	struct txrdma_credit_rx r;
	u32 seed = 7, head = start, ahead = 0, caught = 0;
	u32 unit, units, back;
	int i, ret;

	KUNIT_ASSERT_EQ(test, txrdma_credit_tx_init(&c, 64), 0);
	KUNIT_ASSERT_EQ(test, txrdma_credit_rx_init(&r, 64), 0);
	r.ahead = true;
	c.head = start;
	c.released = start;
	r.tail = start;
	r.consumed = start;
	r.reported = start;
	for (i = 0; i < 100000; i++) {
		switch (lcg(&seed) % 4) {
		case 0:
		case 1:
			units = 1 + lcg(&seed) % 32;
			ret = txrdma_credit_place(&c, units, &unit);
			if (ret == -ENOSPC)
				break;
			KUNIT_ASSERT_EQ(test, ret, 0);
			KUNIT_ASSERT_EQ(test,
					txrdma_credit_rx_frame(&r, unit, units),
					0);
			/* published: the head is taken again */
			if (head != r.consumed) {
				KUNIT_ASSERT_EQ(test,
						txrdma_credit_rx_release(&r,
									 head),
						0);
				caught += head == r.consumed;
			}
			break;
		case 2:
			/* the process moves on, up to a ring past the tail */
			head += lcg(&seed) % (r.tail + 64 - head + 1);
			ahead += (s32)(head - r.tail) > 0;
			KUNIT_ASSERT_EQ(test, txrdma_credit_rx_release(&r, head),
					0);
			/* and one more would be garbage */
			KUNIT_ASSERT_EQ(test,
					txrdma_credit_rx_release(&r, r.tail + 65),
					-EINVAL);
			break;
		case 3:
			back = txrdma_credit_rx_report(&r) & 0x7fffffff;
			back = txrdma_credit_unwrap31(c.released, back);
			KUNIT_ASSERT_EQ(test, txrdma_credit_tx_update(&c, back),
					0);
			break;
		}
		/* released: the head, as far as frames arrived */
		KUNIT_ASSERT_EQ(test, r.consumed,
				(s32)(head - r.tail) > 0 ? r.tail : head);
		KUNIT_ASSERT_LE(test, r.tail - r.consumed, 64U);
		KUNIT_ASSERT_EQ(test, r.tail, c.head);
	}
	/* both happened often: ahead of the tail, and caught up by it */
	KUNIT_EXPECT_GT(test, ahead, 1000U);
	KUNIT_EXPECT_GT(test, caught, 1000U);
	/* and the counters went through 2^32 */
	KUNIT_EXPECT_GT(test, r.tail - start, 0x1000U);
}

static void credit_unwrap(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, txrdma_credit_unwrap31(10, 15), 15U);
	KUNIT_EXPECT_EQ(test, txrdma_credit_unwrap31(0x7ffffff0, 5),
			0x80000005U);
	KUNIT_EXPECT_EQ(test, txrdma_credit_unwrap31(0xfffffff0, 0x7ffffff8),
			0xfffffff8U);
	KUNIT_EXPECT_EQ(test, txrdma_credit_unwrap31(0xfffffff0, 3), 3U);
}

static struct kunit_case txrdma_credit_cases[] = {
	KUNIT_CASE(credit_init),
	KUNIT_CASE(credit_stall_and_skip),
	KUNIT_CASE(credit_bad_updates),
	KUNIT_CASE(credit_rx_checks),
	KUNIT_CASE(credit_rx_release_ahead),
	KUNIT_CASE(credit_rx_clamp),
	KUNIT_CASE(credit_rx_due_never_stalls),
	KUNIT_CASE(credit_rx_due_every_empty),
	KUNIT_CASE(credit_model_zero),
	KUNIT_CASE(credit_model_wrap),
	KUNIT_CASE(credit_model_ahead),
	KUNIT_CASE(credit_unwrap),
	{}
};

static struct kunit_suite txrdma_credit_suite = {
	.name = "txrdma_credit",
	.test_cases = txrdma_credit_cases,
};

kunit_test_suite(txrdma_credit_suite);
