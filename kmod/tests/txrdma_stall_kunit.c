// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite txrdma_stall: stall logs (merging, eviction, reports and
 * their placement on the receiver's clock, bounds on what a peer may
 * report) and the explanation of a Down, first case by case and then
 * end to end: two BFD sessions (txrdma_bfd.c) on one simulated clock,
 * each host reading its own clock, probes taking time on the way, one
 * host stalled, its reports held up, or the link between them cut, each
 * Down explained as the module explains it when the session is Up
 * again.
 */
#include <kunit/test.h>
#include <linux/limits.h>
#include <linux/prandom.h>
#include <linux/string.h>
#include <linux/time64.h>

#include <linux/txrdma.h>

#include "../txrdma_bfd.h"
#include "../txrdma_stall.h"

#define MS		(NSEC_PER_MSEC)
#define US		(NSEC_PER_USEC)
/* a clock that does not start at 0 */
#define T0		(1000ULL * NSEC_PER_SEC + 12345)

static unsigned int used(const struct txrdma_stall_log *log)
{
	unsigned int i, n = 0;

	for (i = 0; i < TXRDMA_STALL_LOG_LEN; i++)
		n += !!log->s[i].len_ns;
	return n;
}

/* the entry that contains @at, or NULL */
static const struct txrdma_stall *entry_at(const struct txrdma_stall_log *log,
					   u64 at)
{
	unsigned int i;

	for (i = 0; i < TXRDMA_STALL_LOG_LEN; i++) {
		const struct txrdma_stall *e = &log->s[i];

		if (e->len_ns && (s64)(at - (e->end_ns - e->len_ns)) >= 0 &&
		    (s64)(e->end_ns - at) >= 0)
			return e;
	}
	return NULL;
}

static void stall_add_merges(struct kunit *test)
{
	struct txrdma_stall_log log = {};
	const struct txrdma_stall *e;

	txrdma_stall_add(&log, T0 + 100 * MS, 0);
	KUNIT_EXPECT_EQ(test, used(&log), 0U);
	/* [T0+20, T0+100] */
	txrdma_stall_add(&log, T0 + 100 * MS, 80 * MS);
	/* another timer of the same host, late for the same stall */
	txrdma_stall_add(&log, T0 + 101 * MS, 60 * MS);
	KUNIT_EXPECT_EQ(test, used(&log), 1U);
	e = entry_at(&log, T0 + 50 * MS);
	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_EXPECT_EQ(test, e->end_ns, T0 + 101 * MS);
	KUNIT_EXPECT_EQ(test, e->len_ns, 81 * MS);
	/* touching counts as overlapping: [T0+10, T0+20] */
	txrdma_stall_add(&log, T0 + 20 * MS, 10 * MS);
	KUNIT_EXPECT_EQ(test, used(&log), 1U);
	KUNIT_EXPECT_EQ(test, entry_at(&log, T0 + 50 * MS)->len_ns, 91 * MS);
	/* inside it: nothing changes */
	txrdma_stall_add(&log, T0 + 60 * MS, 5 * MS);
	KUNIT_EXPECT_EQ(test, used(&log), 1U);
	KUNIT_EXPECT_EQ(test, entry_at(&log, T0 + 50 * MS)->len_ns, 91 * MS);
	/* apart: a second entry */
	txrdma_stall_add(&log, T0 + 300 * MS, 10 * MS);
	KUNIT_EXPECT_EQ(test, used(&log), 2U);
}

static void stall_add_evicts_oldest(struct kunit *test)
{
	struct txrdma_stall_log log = {};
	unsigned int i;

	/* out of order: the one that ended first gives way */
	for (i = 0; i < TXRDMA_STALL_LOG_LEN; i++)
		txrdma_stall_add(&log, T0 + (i ^ 3) * 100 * MS + 50 * MS,
				 10 * MS);
	KUNIT_EXPECT_EQ(test, used(&log), (unsigned int)TXRDMA_STALL_LOG_LEN);
	txrdma_stall_add(&log, T0 + 5000 * MS, 10 * MS);
	KUNIT_EXPECT_EQ(test, used(&log), (unsigned int)TXRDMA_STALL_LOG_LEN);
	/* i ^ 3 == 0 was i == 3: ended at T0 + 50 ms, gone */
	KUNIT_EXPECT_NULL(test, entry_at(&log, T0 + 45 * MS));
	KUNIT_EXPECT_NOT_NULL(test, entry_at(&log, T0 + 145 * MS));
	KUNIT_EXPECT_NOT_NULL(test, entry_at(&log, T0 + 4995 * MS));
	/* one older than every entry is dropped, not logged */
	txrdma_stall_add(&log, T0 + 20 * MS, 10 * MS);
	KUNIT_EXPECT_NULL(test, entry_at(&log, T0 + 15 * MS));
	KUNIT_EXPECT_NOT_NULL(test, entry_at(&log, T0 + 145 * MS));
}

static void stall_heard_repeats(struct kunit *test)
{
	struct txrdma_stall_log log = {};
	struct txrdma_stall_wire w = { .len_us = 180000, .ago_us = 3000 };
	const struct txrdma_stall *e;

	/* the same stall in three probes, the second held up on the way */
	KUNIT_EXPECT_EQ(test, txrdma_stall_heard(&log, &w, T0), 180 * MS);
	w.ago_us = 23000;
	txrdma_stall_heard(&log, &w, T0 + 20 * MS + 4 * MS);
	w.ago_us = 43000;
	txrdma_stall_heard(&log, &w, T0 + 40 * MS);
	KUNIT_EXPECT_EQ(test, used(&log), 1U);
	e = entry_at(&log, T0 - 100 * MS);
	KUNIT_ASSERT_NOT_NULL(test, e);
	/* the earliest end, the length unchanged */
	KUNIT_EXPECT_EQ(test, e->end_ns, T0 - 3 * MS);
	KUNIT_EXPECT_EQ(test, e->len_ns, 180 * MS);
	/* a longer report overlapping it (the peer's record grew): union */
	w = (struct txrdma_stall_wire){ .len_us = 50000, .ago_us = 1000 };
	txrdma_stall_heard(&log, &w, T0 + 40 * MS);
	KUNIT_EXPECT_EQ(test, used(&log), 1U);
	KUNIT_EXPECT_EQ(test, entry_at(&log, T0)->end_ns, T0 + 39 * MS);
	KUNIT_EXPECT_EQ(test, entry_at(&log, T0)->len_ns, 222 * MS);
}

static void stall_covering_bounds(struct kunit *test)
{
	struct txrdma_stall_log log = {};
	u64 slack = TXRDMA_STALL_SLACK_NS;
	struct txrdma_stall s;

	/* [T0+100, T0+280] */
	txrdma_stall_add(&log, T0 + 280 * MS, 180 * MS);
	/* it must have begun min_len (less the slack) before the Down */
	KUNIT_EXPECT_TRUE(test, txrdma_stall_covering(&log, T0 + 160 * MS -
						      slack, 60 * MS, 0, &s));
	KUNIT_EXPECT_FALSE(test, txrdma_stall_covering(&log, T0 + 160 * MS -
						       slack - 1, 60 * MS, 0,
						       &s));
	/* and ended no more than end_slack before it */
	KUNIT_EXPECT_TRUE(test, txrdma_stall_covering(&log, T0 + 290 * MS,
						      60 * MS, 10 * MS, &s));
	KUNIT_EXPECT_FALSE(test, txrdma_stall_covering(&log, T0 + 290 * MS + 1,
						       60 * MS, 10 * MS, &s));
	/* too short to have caused it */
	KUNIT_EXPECT_TRUE(test, txrdma_stall_covering(&log, T0 + 280 * MS,
						      180 * MS, 0, &s));
	KUNIT_EXPECT_FALSE(test, txrdma_stall_covering(&log, T0 + 280 * MS,
						       180 * MS + 1, 0, &s));
	/* the longest of those covering wins, whatever the order */
	memset(&log, 0, sizeof(log));
	txrdma_stall_add(&log, T0 + 250 * MS, 70 * MS);
	txrdma_stall_add(&log, T0 + 170 * MS, 100 * MS);
	txrdma_stall_add(&log, T0 + 265 * MS, 10 * MS);
	KUNIT_EXPECT_EQ(test, used(&log), 3U);
	KUNIT_ASSERT_TRUE(test, txrdma_stall_covering(&log, T0 + 255 * MS,
						      5 * MS, 90 * MS, &s));
	KUNIT_EXPECT_EQ(test, s.len_ns, 100 * MS);
	KUNIT_ASSERT_TRUE(test, txrdma_stall_covering(&log, T0 + 255 * MS,
						      5 * MS, 10 * MS, &s));
	KUNIT_EXPECT_EQ(test, s.len_ns, 70 * MS);
}

static void stall_report_latest_long(struct kunit *test)
{
	struct txrdma_stall_log mine = {};
	struct txrdma_stall_wire w;
	/* the peer's clock is far from ours */
	u64 b = 7 * NSEC_PER_SEC;

	txrdma_stall_report(&mine, b, 55 * MS, &w);
	KUNIT_EXPECT_EQ(test, w.len_us, 0U);
	KUNIT_EXPECT_EQ(test, w.ago_us, 0U);
	/* short ones only: the longest */
	txrdma_stall_add(&mine, b - 500 * MS, 30 * MS);
	txrdma_stall_add(&mine, b - 300 * MS, 10 * MS);
	txrdma_stall_report(&mine, b, 55 * MS, &w);
	KUNIT_EXPECT_EQ(test, w.len_us, 30000U);
	KUNIT_EXPECT_EQ(test, w.ago_us, 500000U);
	/* long ones: the latest, not the longest */
	txrdma_stall_add(&mine, b - 900 * MS, 200 * MS + 999);
	txrdma_stall_add(&mine, b - 3 * MS, 80 * MS);
	txrdma_stall_report(&mine, b, 55 * MS, &w);
	KUNIT_EXPECT_EQ(test, w.len_us, 80000U);
	KUNIT_EXPECT_EQ(test, w.ago_us, 3000U);
	txrdma_stall_report(&mine, b, 81 * MS, &w);
	KUNIT_EXPECT_EQ(test, w.len_us, 200000U);
	KUNIT_EXPECT_EQ(test, w.ago_us, 900000U);
	/* ages out at TXRDMA_STALL_REPORT_NS, inclusive */
	txrdma_stall_report(&mine, b - 900 * MS + TXRDMA_STALL_REPORT_NS,
			    81 * MS, &w);
	KUNIT_EXPECT_EQ(test, w.len_us, 200000U);
	txrdma_stall_report(&mine, b - 900 * MS + TXRDMA_STALL_REPORT_NS + 1,
			    81 * MS, &w);
	KUNIT_EXPECT_EQ(test, w.len_us, 80000U);
	/* a stall that ends in the future is not reported */
	memset(&mine, 0, sizeof(mine));
	txrdma_stall_add(&mine, b + MS, 100 * MS);
	txrdma_stall_report(&mine, b, 0, &w);
	KUNIT_EXPECT_EQ(test, w.len_us, 0U);
	/* the wire's cap: U32_MAX is never sent */
	memset(&mine, 0, sizeof(mine));
	txrdma_stall_add(&mine, b - MS, 5000ULL * NSEC_PER_SEC);
	txrdma_stall_report(&mine, b, 0, &w);
	KUNIT_EXPECT_EQ(test, w.len_us, (u32)TXRDMA_STALL_WIRE_MAX_US);
}

static void stall_heard_bounds(struct kunit *test)
{
	struct txrdma_stall_log log = {};
	struct txrdma_stall_wire w;
	const struct txrdma_stall *e;

	/* nothing to report */
	w = (struct txrdma_stall_wire){ .len_us = 0, .ago_us = 5 };
	KUNIT_EXPECT_EQ(test, txrdma_stall_heard(&log, &w, T0), 0ULL);
	/* older than any report may be: the sender's nonsense */
	w = (struct txrdma_stall_wire){
		.len_us = 1000,
		.ago_us = TXRDMA_STALL_REPORT_NS / US + 1,
	};
	KUNIT_EXPECT_EQ(test, txrdma_stall_heard(&log, &w, T0), 0ULL);
	w.ago_us = U32_MAX;
	KUNIT_EXPECT_EQ(test, txrdma_stall_heard(&log, &w, T0), 0ULL);
	/* the cap is not a length */
	w = (struct txrdma_stall_wire){ .len_us = U32_MAX, .ago_us = 0 };
	KUNIT_EXPECT_EQ(test, txrdma_stall_heard(&log, &w, T0), 0ULL);
	KUNIT_EXPECT_EQ(test, used(&log), 0U);
	/* the longest a report can say, at the oldest age: kept, no wrap */
	w = (struct txrdma_stall_wire){
		.len_us = TXRDMA_STALL_WIRE_MAX_US,
		.ago_us = TXRDMA_STALL_REPORT_NS / US,
	};
	KUNIT_EXPECT_EQ(test, txrdma_stall_heard(&log, &w, T0),
			(u64)TXRDMA_STALL_WIRE_MAX_US * US);
	e = entry_at(&log, T0 - 3 * NSEC_PER_SEC);
	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_EXPECT_EQ(test, e->end_ns, T0 - TXRDMA_STALL_REPORT_NS);
}

static void stall_bounds_values(struct kunit *test)
{
	struct txrdma_stall_bounds b;
	u64 slack = TXRDMA_STALL_SLACK_NS;

	/* defaults: 4 x 20 ms both ways */
	txrdma_stall_bounds(&b, 80 * MS, 4, 20 * MS, 4);
	KUNIT_EXPECT_EQ(test, b.peer_tx_ns, 20 * MS);
	KUNIT_EXPECT_EQ(test, b.peer_min_ns, 60 * MS - slack);
	KUNIT_EXPECT_EQ(test, b.local_min_ns, 60 * MS - slack);
	KUNIT_EXPECT_EQ(test, b.peer_detect_ns, 80 * MS);
	/* the peer detects us with our multiplier and our interval */
	txrdma_stall_bounds(&b, 8 * 10 * MS, 8, 30 * MS, 3);
	KUNIT_EXPECT_EQ(test, b.peer_tx_ns, 10 * MS);
	KUNIT_EXPECT_EQ(test, b.peer_min_ns, 70 * MS - slack);
	KUNIT_EXPECT_EQ(test, b.local_min_ns, 60 * MS - slack);
	KUNIT_EXPECT_EQ(test, b.peer_detect_ns, 90 * MS);
	/* multipliers of 0 and 1, short intervals: no underflow */
	txrdma_stall_bounds(&b, 2 * MS, 0, 1 * MS, 1);
	KUNIT_EXPECT_EQ(test, b.peer_tx_ns, 2 * MS);
	KUNIT_EXPECT_EQ(test, b.peer_min_ns, 0ULL);
	KUNIT_EXPECT_EQ(test, b.local_min_ns, 0ULL);
}

static void stall_clock_map(struct kunit *test)
{
	struct txrdma_stall_clock c = {};
	/* the peer's clock: ours plus 400 s, the offset wrapped */
	u64 off = (u64)0 - 400ULL * NSEC_PER_SEC, peer = T0 - off;
	const u32 disc = 0x1234;

	/* nothing heard: a probe left when it arrived */
	KUNIT_EXPECT_EQ(test, txrdma_stall_clock_sent(&c, peer, T0), T0);
	/* ways of 3, 1 and 9 ms: the quickest one is the map's error */
	txrdma_stall_clock_sample(&c, disc, peer, T0 + 3 * MS);
	txrdma_stall_clock_sample(&c, disc, peer + 20 * MS, T0 + 21 * MS);
	txrdma_stall_clock_sample(&c, disc, peer + 40 * MS, T0 + 49 * MS);
	KUNIT_EXPECT_EQ(test, c.wins, 1);
	KUNIT_EXPECT_EQ(test,
			txrdma_stall_clock_sent(&c, peer + 40 * MS,
						T0 + 49 * MS),
			T0 + 41 * MS);
	/* never after the arrival (a peer whose clock jumped ahead) */
	KUNIT_EXPECT_EQ(test,
			txrdma_stall_clock_sent(&c, peer + 90 * MS,
						T0 + 60 * MS),
			T0 + 60 * MS);
	/* nor more than a report's life before it (one that jumped back) */
	KUNIT_EXPECT_EQ(test,
			txrdma_stall_clock_sent(&c, peer - 100ULL * NSEC_PER_SEC,
						T0 + 60 * MS),
			T0 + 60 * MS - TXRDMA_STALL_REPORT_NS);
	/* a clock read out of order counts in the current window */
	txrdma_stall_clock_sample(&c, disc, peer + 1 * MS, T0 + 1 * MS);
	KUNIT_EXPECT_EQ(test, c.wins, 1);
	KUNIT_EXPECT_EQ(test, txrdma_stall_clock_sent(&c, peer, T0 + 5 * MS),
			T0);
	/* a new window keeps the one before: the least is still 0 ms */
	txrdma_stall_clock_sample(&c, disc, peer + 1100 * MS, T0 + 1105 * MS);
	KUNIT_EXPECT_EQ(test, c.wins, 2);
	KUNIT_EXPECT_EQ(test,
			txrdma_stall_clock_sent(&c, peer + 1100 * MS,
						T0 + 1105 * MS),
			T0 + 1100 * MS);
	/* and forgets it a window later: the least is now 5 ms */
	txrdma_stall_clock_sample(&c, disc, peer + 2150 * MS, T0 + 2160 * MS);
	KUNIT_EXPECT_EQ(test,
			txrdma_stall_clock_sent(&c, peer + 2150 * MS,
						T0 + 2160 * MS),
			T0 + 2155 * MS);
	/*
	 * after a gap (a long stall of the peer) the window before stays:
	 * the slow probe that ends the stall is placed by the fast ones
	 */
	txrdma_stall_clock_sample(&c, disc, peer + 9000 * MS, T0 + 9300 * MS);
	KUNIT_EXPECT_EQ(test, c.wins, 2);
	KUNIT_EXPECT_EQ(test,
			txrdma_stall_clock_sent(&c, peer + 9000 * MS,
						T0 + 9300 * MS),
			T0 + 9010 * MS);
	/* a restarted peer (a new discriminator), on another clock */
	txrdma_stall_clock_sample(&c, disc + 1, 7 * MS, T0 + 9340 * MS);
	KUNIT_EXPECT_EQ(test, c.wins, 1);
	KUNIT_EXPECT_EQ(test, txrdma_stall_clock_sent(&c, 27 * MS,
						      T0 + 9362 * MS),
			T0 + 9360 * MS);
}

static void stall_track_down_up(struct kunit *test)
{
	struct txrdma_stall_track t = {};
	struct txrdma_stall_verdict v;
	u64 word;

	txrdma_stall_bounds(&t.up, 80 * MS, 4, 20 * MS, 4);
	/* no Down: nothing to say */
	KUNIT_EXPECT_FALSE(test, txrdma_stall_up(&t, T0, &v));
	/* a Down, then the peer's report of its stall, then Up */
	txrdma_stall_add(&t.peer, T0 + 100 * MS, 150 * MS);
	txrdma_stall_down(&t, T0 + 60 * MS,
			  TXRDMA_STALL_DETECTED, 0);
	/* the bounds taken at the Down are the ones used */
	txrdma_stall_bounds(&t.up, 800 * MS, 4, 200 * MS, 4);
	KUNIT_ASSERT_TRUE(test, txrdma_stall_up(&t, T0 + 300 * MS, &v));
	KUNIT_EXPECT_EQ(test, v.cause, (u8)TXRDMA_PEER_DOWN_PEER_STALL);
	KUNIT_EXPECT_EQ(test, v.stall_ns, 150 * MS);
	KUNIT_EXPECT_EQ(test, v.down_ns, 240 * MS);
	/* once */
	KUNIT_EXPECT_FALSE(test, txrdma_stall_up(&t, T0 + 301 * MS, &v));
	/* an administrative Down is not explained */
	txrdma_stall_down(&t, T0 + 500 * MS, TXRDMA_STALL_ADMIN, 0);
	KUNIT_EXPECT_FALSE(test, txrdma_stall_up(&t, T0 + 600 * MS, &v));
	/* nor one followed by AdminDown here */
	txrdma_stall_down(&t, T0 + 700 * MS,
			  TXRDMA_STALL_DETECTED, 0);
	txrdma_stall_admin(&t);
	KUNIT_EXPECT_FALSE(test, txrdma_stall_up(&t, T0 + 800 * MS, &v));
	/* without any stall: unexplained */
	txrdma_stall_bounds(&t.up, 80 * MS, 4, 20 * MS, 4);
	txrdma_stall_down(&t, T0 + 2000 * MS,
			  TXRDMA_STALL_DETECTED, 0);
	KUNIT_ASSERT_TRUE(test, txrdma_stall_up(&t, T0 + 2100 * MS, &v));
	KUNIT_EXPECT_EQ(test, v.cause, (u8)TXRDMA_PEER_DOWN_UNEXPLAINED);
	KUNIT_EXPECT_EQ(test, v.stall_ns, 0ULL);
	/* ours, ended up to one of the peer's intervals before the Down */
	txrdma_stall_add(&t.own, T0 + 2980 * MS, 70 * MS);
	txrdma_stall_down(&t, T0 + 2980 * MS + 20 * MS +
			  TXRDMA_STALL_SLACK_NS, TXRDMA_STALL_DETECTED, 0);
	KUNIT_ASSERT_TRUE(test, txrdma_stall_up(&t, T0 + 3100 * MS, &v));
	KUNIT_EXPECT_EQ(test, v.cause, (u8)TXRDMA_PEER_DOWN_LOCAL_STALL);
	txrdma_stall_down(&t, T0 + 2980 * MS + 20 * MS +
			  TXRDMA_STALL_SLACK_NS + 1, TXRDMA_STALL_DETECTED, 0);
	KUNIT_ASSERT_TRUE(test, txrdma_stall_up(&t, T0 + 3100 * MS, &v));
	KUNIT_EXPECT_EQ(test, v.cause, (u8)TXRDMA_PEER_DOWN_UNEXPLAINED);
	/*
	 * the peer's word that it declared us Down is judged by when it
	 * left the peer: up to its detection of us (4 x 20 ms) and one of
	 * its intervals after our stall
	 */
	txrdma_stall_add(&t.own, T0 + 4000 * MS, 65 * MS);
	txrdma_stall_down(&t, T0 + 4060 * MS, TXRDMA_STALL_HEARD,
			  T0 + 4060 * MS);
	KUNIT_ASSERT_TRUE(test, txrdma_stall_up(&t, T0 + 4100 * MS, &v));
	KUNIT_EXPECT_EQ(test, v.cause, (u8)TXRDMA_PEER_DOWN_LOCAL_STALL);
	KUNIT_EXPECT_EQ(test, v.stall_ns, 65 * MS);
	word = T0 + 4000 * MS + 80 * MS + 20 * MS + TXRDMA_STALL_SLACK_NS;
	txrdma_stall_down(&t, word, TXRDMA_STALL_HEARD, word);
	KUNIT_ASSERT_TRUE(test, txrdma_stall_up(&t, T0 + 4200 * MS, &v));
	KUNIT_EXPECT_EQ(test, v.cause, (u8)TXRDMA_PEER_DOWN_LOCAL_STALL);
	txrdma_stall_down(&t, word + 1, TXRDMA_STALL_HEARD, word + 1);
	KUNIT_ASSERT_TRUE(test, txrdma_stall_up(&t, T0 + 4200 * MS, &v));
	KUNIT_EXPECT_EQ(test, v.cause, (u8)TXRDMA_PEER_DOWN_UNEXPLAINED);
	/* the word's way back does not count: it arrived 300 ms late */
	txrdma_stall_down(&t, word + 300 * MS, TXRDMA_STALL_HEARD, word);
	KUNIT_ASSERT_TRUE(test, txrdma_stall_up(&t, T0 + 4500 * MS, &v));
	KUNIT_EXPECT_EQ(test, v.cause, (u8)TXRDMA_PEER_DOWN_LOCAL_STALL);
	KUNIT_EXPECT_EQ(test, v.down_ns, T0 + 4500 * MS - word - 300 * MS);
	/* a peer that restarted: no stall takes the blame */
	txrdma_stall_down(&t, T0 + 4060 * MS, TXRDMA_STALL_RESTART,
			  T0 + 4060 * MS);
	KUNIT_ASSERT_TRUE(test, txrdma_stall_up(&t, T0 + 4100 * MS, &v));
	KUNIT_EXPECT_EQ(test, v.cause, (u8)TXRDMA_PEER_DOWN_RESTART);
	KUNIT_EXPECT_EQ(test, v.stall_ns, 0ULL);
	/* our own detection, 60 ms after the stall: not the stall's doing */
	txrdma_stall_down(&t, T0 + 4060 * MS,
			  TXRDMA_STALL_DETECTED, 0);
	KUNIT_ASSERT_TRUE(test, txrdma_stall_up(&t, T0 + 4200 * MS, &v));
	KUNIT_EXPECT_EQ(test, v.cause, (u8)TXRDMA_PEER_DOWN_UNEXPLAINED);
	/* nor a stall shorter than the peer's detection needs, heard or not */
	txrdma_stall_add(&t.own, T0 + 5000 * MS, 50 * MS);
	txrdma_stall_down(&t, T0 + 5010 * MS, TXRDMA_STALL_HEARD,
			  T0 + 5010 * MS);
	KUNIT_ASSERT_TRUE(test, txrdma_stall_up(&t, T0 + 5100 * MS, &v));
	KUNIT_EXPECT_EQ(test, v.cause, (u8)TXRDMA_PEER_DOWN_UNEXPLAINED);
	/*
	 * the peer's stall, ended up to one of its intervals before our
	 * detection expired (the probes around it came slower than the
	 * quickest way it is placed by: CI saw a 60.4 ms stall so)
	 */
	txrdma_stall_add(&t.peer, T0 + 6000 * MS, 61 * MS);
	txrdma_stall_down(&t, T0 + 6000 * MS + 20 * MS +
			  TXRDMA_STALL_SLACK_NS, TXRDMA_STALL_DETECTED, 0);
	KUNIT_ASSERT_TRUE(test, txrdma_stall_up(&t, T0 + 6100 * MS, &v));
	KUNIT_EXPECT_EQ(test, v.cause, (u8)TXRDMA_PEER_DOWN_PEER_STALL);
	KUNIT_EXPECT_EQ(test, v.stall_ns, 61 * MS);
	txrdma_stall_down(&t, T0 + 6000 * MS + 20 * MS +
			  TXRDMA_STALL_SLACK_NS + 1, TXRDMA_STALL_DETECTED, 0);
	KUNIT_ASSERT_TRUE(test, txrdma_stall_up(&t, T0 + 6100 * MS, &v));
	KUNIT_EXPECT_EQ(test, v.cause, (u8)TXRDMA_PEER_DOWN_UNEXPLAINED);
	/* ... and long enough: 55 ms (80 less an interval and the slack) */
	txrdma_stall_add(&t.peer, T0 + 7000 * MS, 54 * MS);
	txrdma_stall_down(&t, T0 + 7010 * MS, TXRDMA_STALL_DETECTED, 0);
	KUNIT_ASSERT_TRUE(test, txrdma_stall_up(&t, T0 + 7100 * MS, &v));
	KUNIT_EXPECT_EQ(test, v.cause, (u8)TXRDMA_PEER_DOWN_UNEXPLAINED);
}

/*
 * Two hosts on one simulated clock, 1 ms steps, as the module runs them
 * (txrdma_liveness.c): a host in its stall does nothing; probes sent to
 * it wait and are taken when it runs again, before its timer.  Its
 * timer then fires late: the stall is excused and logged, and the
 * timer yields 1 ms before it ticks.  A cut link drops every probe, a
 * held one delivers them all when it ends (RC retransmits).  Each host
 * has a clock of its own (host 1's starts just before its wrap), and a
 * probe takes a way: a base delay, random jitter, and an extra delay
 * for probes a host sends in a chosen interval.  Jitter is random
 * (seeded), so phases vary.
 */
#define SIM_QLEN	128

struct sim_pkt {
	struct txrdma_bfd_pkt p;
	struct txrdma_stall_wire w;
	u64 tx;			/* the sender's clock */
	u64 arrive;		/* the simulation's clock */
};

struct sim_host {
	struct txrdma_bfd bfd;
	struct txrdma_stall_track t;
	u64 off;		/* its clock: the simulation's plus this */
	u64 stall_from, stall_to;
	u64 deadline;		/* its clock */
	bool yielded;
	struct sim_pkt q[SIM_QLEN];	/* to it, by arrival */
	unsigned int qn;
	u8 down_diag;
	unsigned int downs, verdicts;
	struct txrdma_stall_verdict v;
	/* probes it sends in [slow_from, slow_to) take slow_ns more */
	u64 slow_from, slow_to, slow_ns;
};

struct sim {
	struct sim_host h[2];
	u64 cut_from, cut_to;
	bool hold;		/* a cut delivers late instead of dropping */
	u64 delay_ns, jitter_ns;
	u64 now;		/* the next step */
	struct rnd_state rnd;
};

static bool sim_stalled(const struct sim_host *h, u64 now)
{
	return now >= h->stall_from && now < h->stall_to;
}

static void sim_bounds(struct sim_host *h)
{
	if (h->bfd.state == TXRDMA_BFD_UP)
		txrdma_stall_bounds(&h->t.up, h->bfd.detect_ns,
				    h->bfd.remote_mult, h->bfd.tx_interval_ns,
				    h->bfd.cfg.detect_mult);
}

/* as txrdma_peer_explain_locked(), on the host's clock @now */
static void sim_state(struct sim_host *h, u8 old, u32 ev, u64 now)
{
	u8 how = TXRDMA_STALL_DETECTED;

	if (h->bfd.state == old)
		return;
	if (old == TXRDMA_BFD_UP) {
		h->downs++;
		h->down_diag = h->bfd.diag;
		if (h->bfd.diag == TXRDMA_BFD_DIAG_ADMIN_DOWN ||
		    h->bfd.remote_state == TXRDMA_BFD_ADMIN_DOWN)
			how = TXRDMA_STALL_ADMIN;
		else if (ev & TXRDMA_BFD_EV_RESTART)
			how = TXRDMA_STALL_RESTART;
		else if (h->bfd.diag == TXRDMA_BFD_DIAG_NEIGHBOR_DOWN)
			how = TXRDMA_STALL_HEARD;
		txrdma_stall_down(&h->t, now, how, h->t.sent_ns);
	}
	if (h->bfd.state == TXRDMA_BFD_ADMIN_DOWN)
		txrdma_stall_admin(&h->t);
	if (h->bfd.state != TXRDMA_BFD_UP)
		return;
	sim_bounds(h);
	h->verdicts += txrdma_stall_up(&h->t, now, &h->v);
}

/* as txrdma_ctrl_rx_done(): @now is the simulation's clock */
static void sim_rx(struct sim *sim, int to, const struct sim_pkt *k,
		   u64 now)
{
	struct sim_host *h = &sim->h[to];
	u64 local = now + h->off;
	u8 old = h->bfd.state;
	u32 ev;

	sim_bounds(h);
	ev = txrdma_bfd_rx(&h->bfd, &k->p, local);
	if (!(ev & TXRDMA_BFD_EV_DROP)) {
		txrdma_stall_clock_sample(&h->t.clock, k->p.my_disc, k->tx,
					  local);
		h->t.sent_ns = txrdma_stall_clock_sent(&h->t.clock, k->tx,
						       local);
		txrdma_stall_heard(&h->t.peer, &k->w, h->t.sent_ns);
	}
	sim_state(h, old, ev, local);
}

static void sim_tx(struct kunit *test, struct sim *sim, int from, u64 now)
{
	struct sim_host *h = &sim->h[from], *o = &sim->h[!from];
	u64 local = now + h->off;
	struct sim_pkt k;

	txrdma_bfd_build_tx(&h->bfd, &k.p, local,
			    prandom_u32_state(&sim->rnd));
	txrdma_stall_report(&h->t.own, local, h->t.up.local_min_ns, &k.w);
	k.tx = local;
	k.arrive = now + sim->delay_ns;
	if (sim->jitter_ns)
		k.arrive += prandom_u32_state(&sim->rnd) % sim->jitter_ns;
	if (now >= h->slow_from && now < h->slow_to)
		k.arrive += h->slow_ns;
	if (now >= sim->cut_from && now < sim->cut_to) {
		if (!sim->hold)
			return;
		k.arrive = max(k.arrive, sim->cut_to);
	}
	/* RC: in order */
	if (o->qn && o->q[o->qn - 1].arrive > k.arrive)
		k.arrive = o->q[o->qn - 1].arrive;
	if (!o->qn && k.arrive <= now && !sim_stalled(o, now)) {
		sim_rx(sim, !from, &k, now);
		return;
	}
	KUNIT_ASSERT_LT(test, o->qn, (unsigned int)SIM_QLEN);
	o->q[o->qn++] = k;
}

static void sim_run(struct kunit *test, struct sim *sim, u64 until)
{
	u64 now, local, late;
	unsigned int i, n;
	int k;
	u32 ev;
	u8 old;

	for (now = sim->now; now < until; now += MS) {
		for (k = 0; k < 2; k++) {
			struct sim_host *h = &sim->h[k];

			if (sim_stalled(h, now))
				continue;
			for (n = 0; n < h->qn && h->q[n].arrive <= now; n++)
				sim_rx(sim, k, &h->q[n], now);
			for (i = n; i < h->qn; i++)
				h->q[i - n] = h->q[i];
			h->qn -= n;
			local = now + h->off;
			if ((s64)(local - h->deadline) < 0)
				continue;
			late = local - h->deadline;
			if (late > 2 * MS) {
				txrdma_bfd_excuse_stall(&h->bfd, local, late);
				txrdma_stall_add(&h->t.own, local, late);
				if (!h->yielded) {
					h->yielded = true;
					h->deadline = local + MS;
					continue;
				}
			}
			h->yielded = false;
			old = h->bfd.state;
			sim_bounds(h);
			ev = txrdma_bfd_tick(&h->bfd, local);
			sim_state(h, old, ev, local);
			if (ev & TXRDMA_BFD_EV_TX_NOW)
				sim_tx(test, sim, k, now);
			h->deadline = txrdma_bfd_next_deadline(&h->bfd);
		}
	}
	sim->now = now;
}

/* host 1's clock: 1 s before its wrap when the simulation starts */
#define SIM_OFF1	((u64)0 - T0 - NSEC_PER_SEC)

/*
 * Both Up, settled, at sim->now; @mult: each host's multiplier;
 * @delay_ns, @jitter_ns: each probe's way
 */
static void sim_init_way(struct kunit *test, struct sim *sim,
			 const u8 mult[2], u64 seed, u64 delay_ns,
			 u64 jitter_ns)
{
	struct txrdma_bfd_cfg cfg;
	int k;

	memset(sim, 0, sizeof(*sim));
	sim->now = T0;
	sim->delay_ns = delay_ns;
	sim->jitter_ns = jitter_ns;
	sim->h[1].off = SIM_OFF1;
	prandom_seed_state(&sim->rnd, seed);
	for (k = 0; k < 2; k++) {
		txrdma_bfd_cfg_default(&cfg);
		cfg.detect_mult = mult[k];
		KUNIT_ASSERT_EQ(test,
				txrdma_bfd_init(&sim->h[k].bfd, &cfg,
						0x0a0a0a0aU + k,
						T0 + sim->h[k].off), 0);
		sim->h[k].deadline = T0 + sim->h[k].off;
	}
	sim_run(test, sim, T0 + 500 * MS);
	KUNIT_ASSERT_EQ(test, sim->h[0].bfd.state, TXRDMA_BFD_UP);
	KUNIT_ASSERT_EQ(test, sim->h[1].bfd.state, TXRDMA_BFD_UP);
	KUNIT_ASSERT_EQ(test, sim->h[0].downs + sim->h[1].downs, 0U);
}

static void sim_init(struct kunit *test, struct sim *sim, const u8 mult[2],
		     u64 seed)
{
	sim_init_way(test, sim, mult, seed, 0, 0);
}

/* @h went Down once, and that Down was explained once, by @cause */
static void sim_expect_one(struct kunit *test, const struct sim_host *h,
			   u8 cause)
{
	KUNIT_EXPECT_EQ(test, h->downs, 1U);
	KUNIT_EXPECT_EQ(test, h->verdicts, 1U);
	KUNIT_EXPECT_EQ(test, h->v.cause, cause);
}

static const u8 mult_default[2] = { 4, 4 };

static void stall_sim_peer_stalls(struct kunit *test)
{
	struct sim *sim = kunit_kzalloc(test, sizeof(*sim), GFP_KERNEL);
	u64 at;

	KUNIT_ASSERT_NOT_NULL(test, sim);
	sim_init(test, sim, mult_default, 1);
	at = sim->now + 7 * MS;
	/* B does not run for 180 ms: A declares it dead, then hears why */
	sim->h[1].stall_from = at;
	sim->h[1].stall_to = at + 180 * MS;
	sim_run(test, sim, at + 2 * NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, sim->h[0].downs, 1U);
	KUNIT_EXPECT_EQ(test, sim->h[0].verdicts, 1U);
	KUNIT_EXPECT_EQ(test, sim->h[0].down_diag,
			(u8)TXRDMA_BFD_DIAG_DETECT_EXPIRED);
	KUNIT_EXPECT_EQ(test, sim->h[1].down_diag,
			(u8)TXRDMA_BFD_DIAG_NEIGHBOR_DOWN);
	KUNIT_EXPECT_EQ(test, sim->h[0].v.cause,
			(u8)TXRDMA_PEER_DOWN_PEER_STALL);
	/* B's timer measured at most the stall, at least the bound */
	KUNIT_EXPECT_GE(test, sim->h[0].v.stall_ns, 60 * MS);
	KUNIT_EXPECT_LE(test, sim->h[0].v.stall_ns, 180 * MS);
	/* B went Down when A told it so, and knows its own stall did it */
	KUNIT_EXPECT_EQ(test, sim->h[1].downs, 1U);
	KUNIT_EXPECT_EQ(test, sim->h[1].verdicts, 1U);
	KUNIT_EXPECT_EQ(test, sim->h[1].v.cause,
			(u8)TXRDMA_PEER_DOWN_LOCAL_STALL);
	KUNIT_EXPECT_EQ(test, sim->h[1].bfd.state, TXRDMA_BFD_UP);
}

static void stall_sim_cut_unexplained(struct kunit *test)
{
	struct sim *sim = kunit_kzalloc(test, sizeof(*sim), GFP_KERNEL);
	u64 at;

	KUNIT_ASSERT_NOT_NULL(test, sim);
	sim_init(test, sim, mult_default, 2);
	at = sim->now + 7 * MS;
	/* the link is cut for 180 ms, both hosts run */
	sim->cut_from = at;
	sim->cut_to = at + 180 * MS;
	sim_run(test, sim, at + 2 * NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, sim->h[0].down_diag,
			(u8)TXRDMA_BFD_DIAG_DETECT_EXPIRED);
	KUNIT_EXPECT_EQ(test, sim->h[1].down_diag,
			(u8)TXRDMA_BFD_DIAG_DETECT_EXPIRED);
	sim_expect_one(test, &sim->h[0], TXRDMA_PEER_DOWN_UNEXPLAINED);
	sim_expect_one(test, &sim->h[1], TXRDMA_PEER_DOWN_UNEXPLAINED);
	KUNIT_EXPECT_EQ(test, sim->h[0].v.stall_ns, 0ULL);
}

static void stall_sim_cut_after_stall(struct kunit *test)
{
	struct sim *sim = kunit_kzalloc(test, sizeof(*sim), GFP_KERNEL);
	u64 at, t;

	KUNIT_ASSERT_NOT_NULL(test, sim);
	sim_init(test, sim, mult_default, 3);
	at = sim->now + 7 * MS;
	/* B stalls 180 ms: a Down, explained, and Up again */
	sim->h[1].stall_from = at;
	sim->h[1].stall_to = at + 180 * MS;
	for (t = at; sim->h[0].verdicts + sim->h[1].verdicts < 2;
	     t += 10 * MS) {
		KUNIT_ASSERT_LT(test, t, at + 1800 * MS);
		sim_run(test, sim, t);
	}
	KUNIT_EXPECT_EQ(test, sim->h[0].v.cause,
			(u8)TXRDMA_PEER_DOWN_PEER_STALL);
	/*
	 * While B still reports that stall, the link is cut; then B stalls
	 * again during the cut's silence, shorter than a detection: neither
	 * may excuse the cut.
	 */
	sim->cut_from = t + 20 * MS;
	sim->cut_to = t + 200 * MS;
	sim->h[1].stall_from = t + 60 * MS;
	sim->h[1].stall_to = t + 120 * MS;
	sim_run(test, sim, sim->cut_to + 2 * NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, sim->h[0].downs, 2U);
	KUNIT_EXPECT_EQ(test, sim->h[1].downs, 2U);
	KUNIT_EXPECT_EQ(test, sim->h[0].verdicts, 2U);
	KUNIT_EXPECT_EQ(test, sim->h[0].v.cause,
			(u8)TXRDMA_PEER_DOWN_UNEXPLAINED);
	KUNIT_EXPECT_EQ(test, sim->h[1].v.cause,
			(u8)TXRDMA_PEER_DOWN_UNEXPLAINED);
}

/*
 * Every stall length from below the bound to well above a detection,
 * at 10 phases each, with default and with unequal multipliers, and
 * with probes that take 1-4 ms on the way: a stall too short causes no
 * Down, and every Down a stall caused is explained on both sides, by
 * the right side's stall.
 */
static void sim_sweep(struct kunit *test, const u8 mult[2], u64 delay_ns,
		      u64 jitter_ns)
{
	struct sim *base = kunit_kzalloc(test, sizeof(*base), GFP_KERNEL);
	struct sim *sim = kunit_kzalloc(test, sizeof(*sim), GFP_KERNEL);
	unsigned int len_ms, phase, downs = 0, bad = 0;
	/* A detects B with B's multiplier, at 20 ms intervals */
	unsigned int detect_ms = 20 * mult[1];

	KUNIT_ASSERT_NOT_NULL(test, base);
	KUNIT_ASSERT_NOT_NULL(test, sim);
	sim_init_way(test, base, mult, 4, delay_ns, jitter_ns);
	for (len_ms = detect_ms - 30; len_ms <= detect_ms + 50; len_ms++) {
		for (phase = 0; phase < 20; phase += 2) {
			u64 at;

			*sim = *base;
			prandom_seed_state(&sim->rnd, len_ms * 100 + phase);
			at = sim->now + phase * MS;
			sim->h[1].stall_from = at;
			sim->h[1].stall_to = at + len_ms * MS;
			sim_run(test, sim, at + 1500 * MS);
			if (len_ms < detect_ms - 25)
				KUNIT_EXPECT_EQ_MSG(test, sim->h[0].downs, 0U,
						    "stall %u ms", len_ms);
			if (!sim->h[0].downs && !sim->h[1].downs)
				continue;
			downs++;
			if (sim->h[0].downs != 1 || sim->h[1].downs != 1 ||
			    sim->h[0].verdicts != 1 ||
			    sim->h[1].verdicts != 1 ||
			    sim->h[0].v.cause != TXRDMA_PEER_DOWN_PEER_STALL ||
			    sim->h[1].v.cause != TXRDMA_PEER_DOWN_LOCAL_STALL) {
				bad++;
				KUNIT_FAIL(test,
					   "stall %u ms phase %u: downs %u/%u verdicts %u/%u causes %u/%u",
					   len_ms, phase, sim->h[0].downs,
					   sim->h[1].downs,
					   sim->h[0].verdicts,
					   sim->h[1].verdicts,
					   sim->h[0].v.cause,
					   sim->h[1].v.cause);
			}
		}
	}
	kunit_info(test, "mult %u/%u, way %llu+%llu us: %u runs with a Down, %u misread",
		   mult[0], mult[1], delay_ns / US, jitter_ns / US, downs,
		   bad);
	/* the sweep reached stalls that do cause Downs */
	KUNIT_EXPECT_GT(test, downs, 300U);
}

static void stall_sim_sweep(struct kunit *test)
{
	static const u8 unequal[2] = { 8, 3 };

	sim_sweep(test, mult_default, 0, 0);
	sim_sweep(test, unequal, 0, 0);
	/* probes that take 1-4 ms: the map's error is the quickest way */
	sim_sweep(test, mult_default, 1 * MS, 3 * MS);
}

static void stall_sim_short_stall_no_down(struct kunit *test)
{
	struct sim *sim = kunit_kzalloc(test, sizeof(*sim), GFP_KERNEL);
	u64 at;

	KUNIT_ASSERT_NOT_NULL(test, sim);
	sim_init(test, sim, mult_default, 5);
	at = sim->now + 7 * MS;
	/* shorter than the detection time minus an interval */
	sim->h[1].stall_from = at;
	sim->h[1].stall_to = at + 50 * MS;
	sim_run(test, sim, at + 2 * NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, sim->h[0].downs, 0U);
	KUNIT_EXPECT_EQ(test, sim->h[1].downs, 0U);
	/* and B said so: A logged it */
	KUNIT_EXPECT_EQ(test, used(&sim->h[0].t.peer), 1U);
	KUNIT_EXPECT_GE(test, sim->h[0].t.peer.s[0].len_ns, 30 * MS);
}

/*
 * B stalls; the probes it sends in the first 5 ms after the stall take
 * an extra @slow_ms on the way, so its first reports of the stall (and
 * its first probes) arrive late.  Each side must still see the stall
 * where it was: A's Down is B's stall, B's is its own.
 */
static void sim_slow_report(struct kunit *test, unsigned int stall_ms,
			    unsigned int slow_ms, u64 seed)
{
	struct sim *sim = kunit_kzalloc(test, sizeof(*sim), GFP_KERNEL);
	u64 at;

	KUNIT_ASSERT_NOT_NULL(test, sim);
	sim_init_way(test, sim, mult_default, seed, 1 * MS, 2 * MS);
	at = sim->now + 7 * MS;
	sim->h[1].stall_from = at;
	sim->h[1].stall_to = at + stall_ms * MS;
	sim->h[1].slow_from = sim->h[1].stall_to;
	sim->h[1].slow_to = sim->h[1].stall_to + 5 * MS;
	sim->h[1].slow_ns = slow_ms * MS;
	sim_run(test, sim, at + 2 * NSEC_PER_SEC);
	KUNIT_EXPECT_EQ_MSG(test, sim->h[0].downs, 1U, "stall %u slow %u",
			    stall_ms, slow_ms);
	KUNIT_EXPECT_EQ(test, sim->h[0].verdicts, 1U);
	KUNIT_EXPECT_EQ_MSG(test, sim->h[0].v.cause,
			    (u8)TXRDMA_PEER_DOWN_PEER_STALL,
			    "stall %u slow %u", stall_ms, slow_ms);
	KUNIT_EXPECT_EQ(test, sim->h[1].downs, 1U);
	KUNIT_EXPECT_EQ(test, sim->h[1].verdicts, 1U);
	KUNIT_EXPECT_EQ_MSG(test, sim->h[1].v.cause,
			    (u8)TXRDMA_PEER_DOWN_LOCAL_STALL,
			    "stall %u slow %u", stall_ms, slow_ms);
}

static void stall_sim_report_delayed(struct kunit *test)
{
	/* as in CI: a 60.6 ms stall, its report 20 ms late */
	sim_slow_report(test, 70, 20, 6);
	sim_slow_report(test, 70, 60, 7);
	sim_slow_report(test, 180, 150, 8);
}

/*
 * A stalls 100 ms; B declares it Down after 80 ms (A's multiplier 4),
 * and B's probes that say so take 150 ms more on the way back: they
 * reach A before its own detection of B expires (B's multiplier 8:
 * 160 ms), but later than the allowance after A's stall (an interval,
 * the slack and B's detection of A: 105 ms).  Judged by when the word
 * left B, A's Down is still its own stall's doing; judged by its
 * arrival it would not be.
 */
static void stall_sim_word_delayed(struct kunit *test)
{
	struct sim *sim = kunit_kzalloc(test, sizeof(*sim), GFP_KERNEL);
	static const u8 mult[2] = { 4, 8 };
	u64 at;

	KUNIT_ASSERT_NOT_NULL(test, sim);
	sim_init_way(test, sim, mult, 9, 1 * MS, 2 * MS);
	at = sim->now + 7 * MS;
	sim->h[0].stall_from = at;
	sim->h[0].stall_to = at + 100 * MS;
	sim->h[1].slow_from = at + 50 * MS;
	sim->h[1].slow_to = sim->h[0].stall_to;
	sim->h[1].slow_ns = 150 * MS;
	sim_run(test, sim, at + 2 * NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, sim->h[0].downs, 1U);
	KUNIT_EXPECT_EQ(test, sim->h[0].down_diag,
			(u8)TXRDMA_BFD_DIAG_NEIGHBOR_DOWN);
	/* the word arrived past the allowance */
	KUNIT_EXPECT_GT(test, sim->h[0].t.down_at_ns - sim->h[0].off,
			sim->h[0].stall_to + 105 * MS);
	KUNIT_EXPECT_EQ(test, sim->h[0].verdicts, 1U);
	KUNIT_EXPECT_EQ(test, sim->h[0].v.cause,
			(u8)TXRDMA_PEER_DOWN_LOCAL_STALL);
	KUNIT_EXPECT_EQ(test, sim->h[1].verdicts, 1U);
	KUNIT_EXPECT_EQ(test, sim->h[1].v.cause,
			(u8)TXRDMA_PEER_DOWN_PEER_STALL);
}

/*
 * The link holds every probe for 150 ms and then delivers them (RC
 * retransmits), both hosts running.  B (multiplier 8) detects A's
 * silence at 80 ms; A (detecting B in 160 ms) hears B's word only
 * when the link delivers it: a signalled Down, judged at the word's
 * departure.  Unexplained on both sides.
 */
static void stall_sim_held_cut_unexplained(struct kunit *test)
{
	struct sim *sim = kunit_kzalloc(test, sizeof(*sim), GFP_KERNEL);
	static const u8 mult[2] = { 4, 8 };
	u64 at;

	KUNIT_ASSERT_NOT_NULL(test, sim);
	sim_init_way(test, sim, mult, 10, 1 * MS, 2 * MS);
	at = sim->now + 7 * MS;
	sim->cut_from = at;
	sim->cut_to = at + 150 * MS;
	sim->hold = true;
	sim_run(test, sim, at + 2 * NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, sim->h[0].down_diag,
			(u8)TXRDMA_BFD_DIAG_NEIGHBOR_DOWN);
	KUNIT_EXPECT_EQ(test, sim->h[1].down_diag,
			(u8)TXRDMA_BFD_DIAG_DETECT_EXPIRED);
	/* the word is placed when it left, inside the cut */
	KUNIT_EXPECT_LT(test, sim->h[0].t.word_ns - sim->h[0].off,
			sim->cut_to);
	sim_expect_one(test, &sim->h[0], TXRDMA_PEER_DOWN_UNEXPLAINED);
	sim_expect_one(test, &sim->h[1], TXRDMA_PEER_DOWN_UNEXPLAINED);
}

/*
 * B does not run for 1.5 s, and its first probes after take 40 ms more:
 * the map made before the stall still places its report.
 */
static void stall_sim_long_stall_slow(struct kunit *test)
{
	sim_slow_report(test, 1500, 40, 11);
}

static struct kunit_case txrdma_stall_cases[] = {
	KUNIT_CASE(stall_add_merges),
	KUNIT_CASE(stall_add_evicts_oldest),
	KUNIT_CASE(stall_heard_repeats),
	KUNIT_CASE(stall_covering_bounds),
	KUNIT_CASE(stall_report_latest_long),
	KUNIT_CASE(stall_heard_bounds),
	KUNIT_CASE(stall_bounds_values),
	KUNIT_CASE(stall_clock_map),
	KUNIT_CASE(stall_track_down_up),
	KUNIT_CASE(stall_sim_peer_stalls),
	KUNIT_CASE(stall_sim_cut_unexplained),
	KUNIT_CASE(stall_sim_cut_after_stall),
	KUNIT_CASE(stall_sim_sweep),
	KUNIT_CASE(stall_sim_short_stall_no_down),
	KUNIT_CASE(stall_sim_report_delayed),
	KUNIT_CASE(stall_sim_word_delayed),
	KUNIT_CASE(stall_sim_held_cut_unexplained),
	KUNIT_CASE(stall_sim_long_stall_slow),
	{}
};

static struct kunit_suite txrdma_stall_suite = {
	.name = "txrdma_stall",
	.test_cases = txrdma_stall_cases,
};

kunit_test_suite(txrdma_stall_suite);

MODULE_LICENSE("GPL");
