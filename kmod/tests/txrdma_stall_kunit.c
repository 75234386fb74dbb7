// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite txrdma_stall: stall logs (merging, eviction, reports and
 * their placement on the receiver's clock, bounds on what a peer may
 * report) and the explanation of a Down, first case by case and then
 * end to end: two BFD sessions (txrdma_bfd.c) on one simulated clock,
 * one host stalled or the link between them cut, each Down explained
 * as the module explains it when the session is Up again.
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

static void stall_track_down_up(struct kunit *test)
{
	struct txrdma_stall_track t = {};
	struct txrdma_stall_verdict v;

	txrdma_stall_bounds(&t.up, 80 * MS, 4, 20 * MS, 4);
	/* no Down: nothing to say */
	KUNIT_EXPECT_FALSE(test, txrdma_stall_up(&t, T0, &v));
	/* a Down, then the peer's report of its stall, then Up */
	txrdma_stall_add(&t.peer, T0 + 100 * MS, 150 * MS);
	txrdma_stall_down(&t, T0 + 60 * MS, false, false);
	/* the bounds taken at the Down are the ones used */
	txrdma_stall_bounds(&t.up, 800 * MS, 4, 200 * MS, 4);
	KUNIT_ASSERT_TRUE(test, txrdma_stall_up(&t, T0 + 300 * MS, &v));
	KUNIT_EXPECT_EQ(test, v.cause, (u8)TXRDMA_PEER_DOWN_PEER_STALL);
	KUNIT_EXPECT_EQ(test, v.stall_ns, 150 * MS);
	KUNIT_EXPECT_EQ(test, v.down_ns, 240 * MS);
	/* once */
	KUNIT_EXPECT_FALSE(test, txrdma_stall_up(&t, T0 + 301 * MS, &v));
	/* an administrative Down is not explained */
	txrdma_stall_down(&t, T0 + 500 * MS, true, false);
	KUNIT_EXPECT_FALSE(test, txrdma_stall_up(&t, T0 + 600 * MS, &v));
	/* nor one followed by AdminDown here */
	txrdma_stall_down(&t, T0 + 700 * MS, false, false);
	txrdma_stall_admin(&t);
	KUNIT_EXPECT_FALSE(test, txrdma_stall_up(&t, T0 + 800 * MS, &v));
	/* without any stall: unexplained */
	txrdma_stall_bounds(&t.up, 80 * MS, 4, 20 * MS, 4);
	txrdma_stall_down(&t, T0 + 2000 * MS, false, false);
	KUNIT_ASSERT_TRUE(test, txrdma_stall_up(&t, T0 + 2100 * MS, &v));
	KUNIT_EXPECT_EQ(test, v.cause, (u8)TXRDMA_PEER_DOWN_UNEXPLAINED);
	KUNIT_EXPECT_EQ(test, v.stall_ns, 0ULL);
	/* ours, ended up to one of the peer's intervals before the Down */
	txrdma_stall_add(&t.own, T0 + 2980 * MS, 70 * MS);
	txrdma_stall_down(&t, T0 + 2980 * MS + 20 * MS +
			  TXRDMA_STALL_SLACK_NS, false, false);
	KUNIT_ASSERT_TRUE(test, txrdma_stall_up(&t, T0 + 3100 * MS, &v));
	KUNIT_EXPECT_EQ(test, v.cause, (u8)TXRDMA_PEER_DOWN_LOCAL_STALL);
	txrdma_stall_down(&t, T0 + 2980 * MS + 20 * MS +
			  TXRDMA_STALL_SLACK_NS + 1, false, false);
	KUNIT_ASSERT_TRUE(test, txrdma_stall_up(&t, T0 + 3100 * MS, &v));
	KUNIT_EXPECT_EQ(test, v.cause, (u8)TXRDMA_PEER_DOWN_UNEXPLAINED);
	/*
	 * the peer's word that it declared us Down comes later: up to its
	 * detection of us (4 x 20 ms) and one of its intervals after our
	 * stall, as seen in two TCG guests (a 64.5 ms stall, the word
	 * about 60 ms after it)
	 */
	txrdma_stall_add(&t.own, T0 + 4000 * MS, 65 * MS);
	txrdma_stall_down(&t, T0 + 4060 * MS, false, true);
	KUNIT_ASSERT_TRUE(test, txrdma_stall_up(&t, T0 + 4100 * MS, &v));
	KUNIT_EXPECT_EQ(test, v.cause, (u8)TXRDMA_PEER_DOWN_LOCAL_STALL);
	KUNIT_EXPECT_EQ(test, v.stall_ns, 65 * MS);
	txrdma_stall_down(&t, T0 + 4000 * MS + 80 * MS + 20 * MS +
			  TXRDMA_STALL_SLACK_NS, false, true);
	KUNIT_ASSERT_TRUE(test, txrdma_stall_up(&t, T0 + 4200 * MS, &v));
	KUNIT_EXPECT_EQ(test, v.cause, (u8)TXRDMA_PEER_DOWN_LOCAL_STALL);
	txrdma_stall_down(&t, T0 + 4000 * MS + 80 * MS + 20 * MS +
			  TXRDMA_STALL_SLACK_NS + 1, false, true);
	KUNIT_ASSERT_TRUE(test, txrdma_stall_up(&t, T0 + 4200 * MS, &v));
	KUNIT_EXPECT_EQ(test, v.cause, (u8)TXRDMA_PEER_DOWN_UNEXPLAINED);
	/* our own detection, 60 ms after the stall: not the stall's doing */
	txrdma_stall_down(&t, T0 + 4060 * MS, false, false);
	KUNIT_ASSERT_TRUE(test, txrdma_stall_up(&t, T0 + 4200 * MS, &v));
	KUNIT_EXPECT_EQ(test, v.cause, (u8)TXRDMA_PEER_DOWN_UNEXPLAINED);
	/* nor a stall shorter than the peer's detection needs, heard or not */
	txrdma_stall_add(&t.own, T0 + 5000 * MS, 50 * MS);
	txrdma_stall_down(&t, T0 + 5010 * MS, false, true);
	KUNIT_ASSERT_TRUE(test, txrdma_stall_up(&t, T0 + 5100 * MS, &v));
	KUNIT_EXPECT_EQ(test, v.cause, (u8)TXRDMA_PEER_DOWN_UNEXPLAINED);
}

/*
 * Two hosts on one simulated clock, 1 ms steps, as the module runs them
 * (txrdma_liveness.c): a host in its stall does nothing; probes sent to
 * it wait and are taken when it runs again, before its timer.  Its
 * timer then fires late: the stall is excused and logged, and the
 * timer yields 1 ms before it ticks.  A cut link drops every probe.
 * Jitter is random (seeded), so phases vary.
 */
#define SIM_QLEN	64

struct sim_host {
	struct txrdma_bfd bfd;
	struct txrdma_stall_track t;
	u64 stall_from, stall_to;
	u64 deadline;
	bool yielded;
	struct txrdma_bfd_pkt q[SIM_QLEN];
	struct txrdma_stall_wire qw[SIM_QLEN];
	unsigned int qn;
	u8 down_diag;
	unsigned int downs, verdicts;
	struct txrdma_stall_verdict v;
};

struct sim {
	struct sim_host h[2];
	u64 cut_from, cut_to;
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

/* as txrdma_peer_explain_locked() */
static void sim_state(struct sim_host *h, u8 old, u64 now)
{
	if (h->bfd.state == old)
		return;
	if (old == TXRDMA_BFD_UP) {
		h->downs++;
		h->down_diag = h->bfd.diag;
		txrdma_stall_down(&h->t, now,
				  h->bfd.diag == TXRDMA_BFD_DIAG_ADMIN_DOWN ||
				  h->bfd.remote_state == TXRDMA_BFD_ADMIN_DOWN,
				  h->bfd.diag == TXRDMA_BFD_DIAG_NEIGHBOR_DOWN);
	}
	if (h->bfd.state == TXRDMA_BFD_ADMIN_DOWN)
		txrdma_stall_admin(&h->t);
	if (h->bfd.state != TXRDMA_BFD_UP)
		return;
	sim_bounds(h);
	h->verdicts += txrdma_stall_up(&h->t, now, &h->v);
}

static void sim_rx(struct sim *sim, int to, const struct txrdma_bfd_pkt *p,
		   const struct txrdma_stall_wire *w, u64 now)
{
	struct sim_host *h = &sim->h[to];
	u8 old = h->bfd.state;
	u32 ev;

	sim_bounds(h);
	ev = txrdma_bfd_rx(&h->bfd, p, now);
	if (!(ev & TXRDMA_BFD_EV_DROP))
		txrdma_stall_heard(&h->t.peer, w, now);
	sim_state(h, old, now);
}

static void sim_tx(struct kunit *test, struct sim *sim, int from, u64 now)
{
	struct sim_host *h = &sim->h[from], *o = &sim->h[!from];
	struct txrdma_stall_wire w;
	struct txrdma_bfd_pkt p;

	txrdma_bfd_build_tx(&h->bfd, &p, now, prandom_u32_state(&sim->rnd));
	txrdma_stall_report(&h->t.own, now, h->t.up.local_min_ns, &w);
	if (now >= sim->cut_from && now < sim->cut_to)
		return;
	if (sim_stalled(o, now)) {
		KUNIT_ASSERT_LT(test, o->qn, (unsigned int)SIM_QLEN);
		o->q[o->qn] = p;
		o->qw[o->qn++] = w;
		return;
	}
	sim_rx(sim, !from, &p, &w, now);
}

static void sim_run(struct kunit *test, struct sim *sim, u64 until)
{
	u64 now, late;
	unsigned int i;
	int k;
	u32 ev;
	u8 old;

	for (now = sim->now; now < until; now += MS) {
		for (k = 0; k < 2; k++) {
			struct sim_host *h = &sim->h[k];

			if (sim_stalled(h, now))
				continue;
			for (i = 0; i < h->qn; i++)
				sim_rx(sim, k, &h->q[i], &h->qw[i], now);
			h->qn = 0;
			if (now < h->deadline)
				continue;
			late = now - h->deadline;
			if (late > 2 * MS) {
				txrdma_bfd_excuse_stall(&h->bfd, now, late);
				txrdma_stall_add(&h->t.own, now, late);
				if (!h->yielded) {
					h->yielded = true;
					h->deadline = now + MS;
					continue;
				}
			}
			h->yielded = false;
			old = h->bfd.state;
			sim_bounds(h);
			ev = txrdma_bfd_tick(&h->bfd, now);
			sim_state(h, old, now);
			if (ev & TXRDMA_BFD_EV_TX_NOW)
				sim_tx(test, sim, k, now);
			h->deadline = txrdma_bfd_next_deadline(&h->bfd);
		}
	}
	sim->now = now;
}

/* both Up, settled, at sim->now; @mult: each host's multiplier */
static void sim_init(struct kunit *test, struct sim *sim, const u8 mult[2],
		     u64 seed)
{
	struct txrdma_bfd_cfg cfg;
	int k;

	memset(sim, 0, sizeof(*sim));
	sim->now = T0;
	prandom_seed_state(&sim->rnd, seed);
	for (k = 0; k < 2; k++) {
		txrdma_bfd_cfg_default(&cfg);
		cfg.detect_mult = mult[k];
		KUNIT_ASSERT_EQ(test, txrdma_bfd_init(&sim->h[k].bfd, &cfg,
						      0x0a0a0a0aU + k, T0), 0);
		sim->h[k].deadline = T0;
	}
	sim_run(test, sim, T0 + 500 * MS);
	KUNIT_ASSERT_EQ(test, sim->h[0].bfd.state, TXRDMA_BFD_UP);
	KUNIT_ASSERT_EQ(test, sim->h[1].bfd.state, TXRDMA_BFD_UP);
	KUNIT_ASSERT_EQ(test, sim->h[0].downs + sim->h[1].downs, 0U);
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
	KUNIT_EXPECT_EQ(test, sim->h[0].downs, 1U);
	KUNIT_EXPECT_EQ(test, sim->h[1].downs, 1U);
	KUNIT_EXPECT_EQ(test, sim->h[0].down_diag,
			(u8)TXRDMA_BFD_DIAG_DETECT_EXPIRED);
	KUNIT_EXPECT_EQ(test, sim->h[1].down_diag,
			(u8)TXRDMA_BFD_DIAG_DETECT_EXPIRED);
	KUNIT_EXPECT_EQ(test, sim->h[0].verdicts, 1U);
	KUNIT_EXPECT_EQ(test, sim->h[1].verdicts, 1U);
	KUNIT_EXPECT_EQ(test, sim->h[0].v.cause,
			(u8)TXRDMA_PEER_DOWN_UNEXPLAINED);
	KUNIT_EXPECT_EQ(test, sim->h[1].v.cause,
			(u8)TXRDMA_PEER_DOWN_UNEXPLAINED);
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
 * at 10 phases each, with default and with unequal multipliers: a
 * stall too short causes no Down, and every Down a stall caused is
 * explained on both sides, by the right side's stall.
 */
static void sim_sweep(struct kunit *test, const u8 mult[2])
{
	struct sim *base = kunit_kzalloc(test, sizeof(*base), GFP_KERNEL);
	struct sim *sim = kunit_kzalloc(test, sizeof(*sim), GFP_KERNEL);
	unsigned int len_ms, phase, downs = 0, bad = 0;
	/* A detects B with B's multiplier, at 20 ms intervals */
	unsigned int detect_ms = 20 * mult[1];

	KUNIT_ASSERT_NOT_NULL(test, base);
	KUNIT_ASSERT_NOT_NULL(test, sim);
	sim_init(test, base, mult, 4);
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
	kunit_info(test, "mult %u/%u: %u runs with a Down, %u misread",
		   mult[0], mult[1], downs, bad);
	/* the sweep reached stalls that do cause Downs */
	KUNIT_EXPECT_GT(test, downs, 300U);
}

static void stall_sim_sweep(struct kunit *test)
{
	static const u8 unequal[2] = { 8, 3 };

	sim_sweep(test, mult_default);
	sim_sweep(test, unequal);
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

static struct kunit_case txrdma_stall_cases[] = {
	KUNIT_CASE(stall_add_merges),
	KUNIT_CASE(stall_add_evicts_oldest),
	KUNIT_CASE(stall_heard_repeats),
	KUNIT_CASE(stall_covering_bounds),
	KUNIT_CASE(stall_report_latest_long),
	KUNIT_CASE(stall_heard_bounds),
	KUNIT_CASE(stall_bounds_values),
	KUNIT_CASE(stall_track_down_up),
	KUNIT_CASE(stall_sim_peer_stalls),
	KUNIT_CASE(stall_sim_cut_unexplained),
	KUNIT_CASE(stall_sim_cut_after_stall),
	KUNIT_CASE(stall_sim_sweep),
	KUNIT_CASE(stall_sim_short_stall_no_down),
	{}
};

static struct kunit_suite txrdma_stall_suite = {
	.name = "txrdma_stall",
	.test_cases = txrdma_stall_cases,
};

kunit_test_suite(txrdma_stall_suite);

MODULE_LICENSE("GPL");
