// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite txrdma_pool: a peer's QP pool fills to min, never exceeds
 * max, grows on misses and shrinks when idle, replaces QPs that error,
 * backs off after failures and empties at once when the peer is down.
 */
#include <kunit/test.h>
#include <linux/limits.h>

#include "../txrdma_pool.h"

#define MS	(1000ULL * 1000)
#define SEC	(1000 * MS)
#define T0	(5000 * MS)	/* clocks never start at 0 */

/* connect everything the pool asks for, successfully */
static u32 fill(struct txrdma_pool *p, u64 now)
{
	u32 n = txrdma_pool_to_connect(p, now), i;

	for (i = 0; i < n; i++)
		txrdma_pool_connected(p);
	return n;
}

static void pool_cfg(struct kunit *test)
{
	const char *why = NULL;

	KUNIT_EXPECT_EQ(test, txrdma_pool_cfg_check(0, 1, &why), 0);
	KUNIT_EXPECT_EQ(test, txrdma_pool_cfg_check(4, 4, &why), 0);
	KUNIT_EXPECT_EQ(test, txrdma_pool_cfg_check(0, 0, &why), -EINVAL);
	KUNIT_EXPECT_NOT_NULL(test, why);
	KUNIT_EXPECT_EQ(test, txrdma_pool_cfg_check(5, 4, &why), -EINVAL);
	KUNIT_EXPECT_EQ(test, txrdma_pool_cfg_check(1, 1025, &why), -EINVAL);
	KUNIT_EXPECT_EQ(test, txrdma_pool_cfg_check(1024, 1024, &why), 0);
}

static void pool_fills_to_min_when_up(struct kunit *test)
{
	struct txrdma_pool p;

	txrdma_pool_init(&p, 4, 8, T0);
	/* nothing while the peer is not up */
	KUNIT_EXPECT_EQ(test, txrdma_pool_to_connect(&p, T0), 0U);
	txrdma_pool_peer_up(&p, T0);
	KUNIT_EXPECT_EQ(test, txrdma_pool_to_connect(&p, T0), 4U);
	KUNIT_EXPECT_EQ(test, p.connecting, 4U);
	/* attempts in flight count: no duplicates */
	KUNIT_EXPECT_EQ(test, txrdma_pool_to_connect(&p, T0), 0U);
	txrdma_pool_connected(&p);
	txrdma_pool_connected(&p);
	KUNIT_EXPECT_EQ(test, p.ready, 2U);
	KUNIT_EXPECT_EQ(test, txrdma_pool_to_connect(&p, T0), 0U);
	txrdma_pool_connected(&p);
	txrdma_pool_connected(&p);
	KUNIT_EXPECT_EQ(test, p.ready, 4U);
	KUNIT_EXPECT_EQ(test, p.connecting, 0U);
	KUNIT_EXPECT_EQ(test, txrdma_pool_next_event(&p, T0), U64_MAX);
}

static void pool_take_and_give_back(struct kunit *test)
{
	struct txrdma_pool p;
	int i;

	txrdma_pool_init(&p, 2, 4, T0);
	txrdma_pool_peer_up(&p, T0);
	fill(&p, T0);
	KUNIT_EXPECT_EQ(test, txrdma_pool_take(&p, T0), 0);
	KUNIT_EXPECT_EQ(test, p.ready, 1U);
	KUNIT_EXPECT_EQ(test, p.in_use, 1U);
	/* lending below min refills to min, within max */
	KUNIT_EXPECT_EQ(test, fill(&p, T0), 1U);
	for (i = 0; i < 2; i++)
		KUNIT_EXPECT_EQ(test, txrdma_pool_take(&p, T0), 0);
	KUNIT_EXPECT_EQ(test, p.in_use, 3U);
	KUNIT_EXPECT_EQ(test, fill(&p, T0), 1U);	/* 4 alive: full */
	KUNIT_EXPECT_EQ(test, txrdma_pool_take(&p, T0), 0);
	KUNIT_EXPECT_EQ(test, fill(&p, T0), 0U);
	KUNIT_EXPECT_EQ(test, txrdma_pool_take(&p, T0), -EAGAIN);
	KUNIT_EXPECT_EQ(test, p.misses, 1ULL);
	txrdma_pool_give_back(&p);
	KUNIT_EXPECT_EQ(test, p.ready, 1U);
	KUNIT_EXPECT_EQ(test, p.takes, 4ULL);
}

static void pool_grows_on_misses_shrinks_when_idle(struct kunit *test)
{
	struct txrdma_pool p;
	int i;

	txrdma_pool_init(&p, 1, 4, T0);
	txrdma_pool_peer_up(&p, T0);
	fill(&p, T0);
	KUNIT_EXPECT_EQ(test, txrdma_pool_take(&p, T0), 0);
	fill(&p, T0);
	KUNIT_EXPECT_EQ(test, txrdma_pool_take(&p, T0), 0);
	/* empty now: a miss asks for one more ready QP above min */
	KUNIT_EXPECT_EQ(test, txrdma_pool_take(&p, T0), -EAGAIN);
	KUNIT_EXPECT_EQ(test, p.want_extra, 1U);
	KUNIT_EXPECT_EQ(test, fill(&p, T0), 2U);
	/* more misses never push past max */
	for (i = 0; i < 10; i++)
		txrdma_pool_take(&p, T0);
	KUNIT_EXPECT_LE(test, p.ready + p.in_use + p.connecting, 4U);
	fill(&p, T0);
	KUNIT_EXPECT_EQ(test, p.ready + p.in_use, 4U);
	for (i = 0; i < 4; i++)
		txrdma_pool_give_back(&p);
	KUNIT_EXPECT_EQ(test, p.ready, 4U);
	/* not idle long enough: nothing closes */
	KUNIT_EXPECT_EQ(test, txrdma_pool_to_close(&p, T0 + TXRDMA_POOL_IDLE_NS - 1),
			0U);
	KUNIT_EXPECT_EQ(test, txrdma_pool_next_event(&p, T0),
			T0 + TXRDMA_POOL_IDLE_NS);
	/* idle: back to min */
	KUNIT_EXPECT_EQ(test, txrdma_pool_to_close(&p, T0 + TXRDMA_POOL_IDLE_NS),
			3U);
	KUNIT_EXPECT_EQ(test, p.ready, 1U);
	KUNIT_EXPECT_EQ(test, p.closing, 3U);
	KUNIT_EXPECT_EQ(test, p.want_extra, 0U);
	for (i = 0; i < 3; i++)
		txrdma_pool_closed(&p);
	KUNIT_EXPECT_EQ(test, p.closing, 0U);
	KUNIT_EXPECT_EQ(test, fill(&p, T0 + TXRDMA_POOL_IDLE_NS), 0U);
}

static void pool_error_replaced(struct kunit *test)
{
	struct txrdma_pool p;

	txrdma_pool_init(&p, 2, 2, T0);
	txrdma_pool_peer_up(&p, T0);
	fill(&p, T0);
	KUNIT_EXPECT_EQ(test, txrdma_pool_take(&p, T0), 0);
	/* the lent one errors: never lent again, a replacement comes */
	txrdma_pool_qp_error(&p, true);
	KUNIT_EXPECT_EQ(test, p.in_use, 0U);
	KUNIT_EXPECT_EQ(test, p.closing, 1U);
	KUNIT_EXPECT_EQ(test, p.errors, 1ULL);
	KUNIT_EXPECT_EQ(test, fill(&p, T0), 1U);
	/* a ready one errors */
	txrdma_pool_qp_error(&p, false);
	KUNIT_EXPECT_EQ(test, p.ready, 1U);
	KUNIT_EXPECT_EQ(test, fill(&p, T0), 1U);
	KUNIT_EXPECT_EQ(test, p.ready, 2U);
	KUNIT_EXPECT_EQ(test, p.closing, 2U);
}

static void pool_backoff(struct kunit *test)
{
	struct txrdma_pool p;
	u64 now = T0;
	int i;

	txrdma_pool_init(&p, 3, 3, T0);
	txrdma_pool_peer_up(&p, T0);
	KUNIT_EXPECT_EQ(test, txrdma_pool_to_connect(&p, now), 3U);
	for (i = 0; i < 3; i++)
		txrdma_pool_connect_failed(&p, now);
	KUNIT_EXPECT_EQ(test, p.failures, 3ULL);
	/* three failures: 10, 20, 40 ms */
	KUNIT_EXPECT_EQ(test, p.backoff_ns, 40 * MS);
	KUNIT_EXPECT_EQ(test, txrdma_pool_to_connect(&p, now + 40 * MS - 1),
			0U);
	KUNIT_EXPECT_EQ(test, txrdma_pool_next_event(&p, now),
			now + 40 * MS);
	/* after the wait, one probe, not a burst */
	now += 40 * MS;
	KUNIT_EXPECT_EQ(test, txrdma_pool_to_connect(&p, now), 1U);
	/* the backoff is capped at 1 s */
	for (i = 0; i < 20; i++) {
		txrdma_pool_connect_failed(&p, now);
		now = p.retry_at_ns;
		KUNIT_EXPECT_EQ(test, txrdma_pool_to_connect(&p, now), 1U);
	}
	KUNIT_EXPECT_EQ(test, p.backoff_ns, TXRDMA_POOL_BACKOFF_MAX_NS);
	/* a success resets it and the rest follows at once */
	txrdma_pool_connected(&p);
	KUNIT_EXPECT_EQ(test, p.backoff_ns, 0ULL);
	KUNIT_EXPECT_EQ(test, txrdma_pool_to_connect(&p, now), 2U);
}

static void pool_peer_down_and_up(struct kunit *test)
{
	struct txrdma_pool p;

	txrdma_pool_init(&p, 2, 4, T0);
	txrdma_pool_peer_up(&p, T0);
	fill(&p, T0);
	txrdma_pool_take(&p, T0);
	fill(&p, T0);
	KUNIT_EXPECT_EQ(test, txrdma_pool_peer_down(&p, T0 + 20 * SEC), 3U);
	KUNIT_EXPECT_EQ(test, p.ready + p.in_use, 0U);
	KUNIT_EXPECT_EQ(test, p.closing, 3U);
	KUNIT_EXPECT_EQ(test, txrdma_pool_take(&p, T0), -ENOTCONN);
	KUNIT_EXPECT_EQ(test, txrdma_pool_to_connect(&p, T0), 0U);
	/* failures while down leave a backoff that up clears */
	txrdma_pool_connect_failed(&p, T0 + 20 * SEC);
	txrdma_pool_peer_up(&p, T0 + 21 * SEC);
	KUNIT_EXPECT_EQ(test, txrdma_pool_to_connect(&p, T0 + 21 * SEC), 2U);
}

/* Flaps hold the refill back, doubling; a stable Up resets the hold. */
static void pool_flap_dampening(struct kunit *test)
{
	struct txrdma_pool p;
	u64 t = T0;

	txrdma_pool_init(&p, 2, 4, t);
	txrdma_pool_peer_up(&p, t);
	KUNIT_EXPECT_EQ(test, txrdma_pool_to_connect(&p, t), 2U);
	txrdma_pool_connected(&p);
	txrdma_pool_connected(&p);
	/* down after 1 s up: a flap, the next refill waits 100 ms */
	t += SEC;
	KUNIT_EXPECT_EQ(test, txrdma_pool_peer_down(&p, t), 2U);
	txrdma_pool_closed(&p);
	txrdma_pool_closed(&p);
	txrdma_pool_peer_up(&p, t);
	KUNIT_EXPECT_EQ(test, txrdma_pool_to_connect(&p, t + 100 * MS - 1), 0U);
	KUNIT_EXPECT_EQ(test, txrdma_pool_next_event(&p, t), t + 100 * MS);
	KUNIT_EXPECT_EQ(test, txrdma_pool_to_connect(&p, t + 100 * MS), 2U);
	txrdma_pool_connected(&p);
	txrdma_pool_connected(&p);
	/* another flap doubles it; the cap is 5 s */
	txrdma_pool_peer_down(&p, t + SEC);
	KUNIT_EXPECT_EQ(test, p.hold_ns, 200 * MS);
	while (p.hold_ns < 5 * SEC) {
		txrdma_pool_peer_up(&p, t);
		txrdma_pool_peer_down(&p, t);
	}
	KUNIT_EXPECT_EQ(test, p.hold_ns, 5 * SEC);
	/* an Up that lasts 10 s clears it for the next time */
	txrdma_pool_peer_up(&p, t);
	txrdma_pool_peer_down(&p, t + 10 * SEC);
	KUNIT_EXPECT_EQ(test, p.hold_ns, 0ULL);
	txrdma_pool_peer_up(&p, t + 11 * SEC);
	KUNIT_EXPECT_EQ(test, txrdma_pool_to_connect(&p, t + 11 * SEC), 2U);
	/* a second down while down changes nothing */
	txrdma_pool_peer_down(&p, t + 21 * SEC);
	KUNIT_EXPECT_EQ(test, p.hold_ns, 0ULL);
	txrdma_pool_peer_down(&p, t + 22 * SEC);
	KUNIT_EXPECT_EQ(test, p.hold_ns, 0ULL);
}

/*
 * While a flap holds the refill back, a take that finds nothing (a
 * session waiting for its path) still gets one QP connected, once; a
 * failure's backoff is not bypassed.
 */
static void pool_hold_yields_to_a_waiter(struct kunit *test)
{
	struct txrdma_pool p;
	u64 t = T0;

	txrdma_pool_init(&p, 2, 4, t);
	txrdma_pool_peer_up(&p, t);
	txrdma_pool_peer_down(&p, t + SEC);	/* a flap: hold 100 ms */
	txrdma_pool_peer_up(&p, t + SEC);
	t += SEC;
	KUNIT_EXPECT_EQ(test, txrdma_pool_to_connect(&p, t), 0U);
	KUNIT_EXPECT_EQ(test, txrdma_pool_next_event(&p, t), t + 100 * MS);
	KUNIT_EXPECT_EQ(test, txrdma_pool_take(&p, t + MS), -EAGAIN);
	/* the waiter's QP now, not the refill */
	KUNIT_EXPECT_EQ(test, txrdma_pool_next_event(&p, t + MS), t + MS);
	KUNIT_EXPECT_EQ(test, txrdma_pool_to_connect(&p, t + MS), 1U);
	KUNIT_EXPECT_EQ(test, txrdma_pool_to_connect(&p, t + MS), 0U);
	KUNIT_EXPECT_EQ(test, txrdma_pool_next_event(&p, t + MS), t + 100 * MS);
	txrdma_pool_connected(&p);
	KUNIT_EXPECT_EQ(test, txrdma_pool_take(&p, t + 2 * MS), 0);
	/* the rest when the hold is over: min plus the miss */
	KUNIT_EXPECT_EQ(test, txrdma_pool_to_connect(&p, t + 99 * MS), 0U);
	KUNIT_EXPECT_EQ(test, txrdma_pool_to_connect(&p, t + 100 * MS), 3U);

	/* after a failure the backoff holds, waiter or not */
	txrdma_pool_init(&p, 2, 4, t);
	txrdma_pool_peer_up(&p, t);
	KUNIT_EXPECT_EQ(test, txrdma_pool_to_connect(&p, t), 2U);
	txrdma_pool_connect_failed(&p, t);
	txrdma_pool_connect_failed(&p, t);
	KUNIT_EXPECT_EQ(test, txrdma_pool_take(&p, t + MS), -EAGAIN);
	KUNIT_EXPECT_EQ(test, txrdma_pool_to_connect(&p, t + MS), 0U);
	/* and a Down forgets the waiter */
	txrdma_pool_peer_down(&p, t + 2 * MS);
	KUNIT_EXPECT_FALSE(test, p.wanted);

	/* the waiter's attempt fails: the hold stands, no second one */
	t += SEC;
	txrdma_pool_peer_up(&p, t);		/* hold 100 ms again */
	KUNIT_EXPECT_EQ(test, txrdma_pool_take(&p, t), -EAGAIN);
	KUNIT_EXPECT_EQ(test, txrdma_pool_to_connect(&p, t), 1U);
	txrdma_pool_connect_failed(&p, t + MS);
	KUNIT_EXPECT_EQ(test, txrdma_pool_to_connect(&p, t + 20 * MS), 0U);
	KUNIT_EXPECT_EQ(test, txrdma_pool_next_event(&p, t + 20 * MS),
			t + 100 * MS);
	/* then one attempt, as after any failure */
	KUNIT_EXPECT_EQ(test, txrdma_pool_to_connect(&p, t + 100 * MS), 1U);

	/* never past max: every QP lent, a waiter gets none during a hold */
	txrdma_pool_init(&p, 2, 2, t);
	txrdma_pool_peer_up(&p, t);
	KUNIT_EXPECT_EQ(test, txrdma_pool_to_connect(&p, t), 2U);
	txrdma_pool_connected(&p);
	txrdma_pool_connected(&p);
	KUNIT_EXPECT_EQ(test, txrdma_pool_take(&p, t), 0);
	KUNIT_EXPECT_EQ(test, txrdma_pool_take(&p, t), 0);
	txrdma_pool_peer_down(&p, t + SEC);	/* a flap, both closed */
	txrdma_pool_closed(&p);
	txrdma_pool_closed(&p);
	txrdma_pool_peer_up(&p, t + SEC);
	KUNIT_EXPECT_EQ(test, txrdma_pool_take(&p, t + SEC), -EAGAIN);
	KUNIT_EXPECT_EQ(test, txrdma_pool_to_connect(&p, t + SEC), 1U);
	txrdma_pool_connected(&p);
	KUNIT_EXPECT_EQ(test, txrdma_pool_take(&p, t + SEC), 0);
	KUNIT_EXPECT_EQ(test, txrdma_pool_to_connect(&p, t + SEC), 0U);
	KUNIT_EXPECT_EQ(test, txrdma_pool_take(&p, t + SEC), -EAGAIN);
	KUNIT_EXPECT_EQ(test, txrdma_pool_to_connect(&p, t + SEC), 1U);
	txrdma_pool_connected(&p);
	KUNIT_EXPECT_EQ(test, txrdma_pool_take(&p, t + SEC), 0);
	/* two lent: max */
	KUNIT_EXPECT_EQ(test, txrdma_pool_take(&p, t + SEC), -EAGAIN);
	KUNIT_EXPECT_EQ(test, txrdma_pool_to_connect(&p, t + SEC), 0U);
}

static void pool_resize(struct kunit *test)
{
	const char *why = NULL;
	struct txrdma_pool p;

	txrdma_pool_init(&p, 4, 8, T0);
	txrdma_pool_peer_up(&p, T0);
	fill(&p, T0);
	KUNIT_EXPECT_EQ(test, txrdma_pool_set(&p, 5, 2, &why), -EINVAL);
	KUNIT_EXPECT_EQ(test, p.min, 4U);
	KUNIT_EXPECT_EQ(test, txrdma_pool_set(&p, 1, 2, &why), 0);
	/* above the new max: two close at once, not after idling */
	KUNIT_EXPECT_EQ(test, txrdma_pool_to_close(&p, T0), 2U);
	KUNIT_EXPECT_EQ(test, p.ready, 2U);
}

static void pool_clock_wrap(struct kunit *test)
{
	struct txrdma_pool p;
	u64 start = U64_MAX - 5 * MS;

	txrdma_pool_init(&p, 1, 1, start);
	txrdma_pool_peer_up(&p, start);
	KUNIT_EXPECT_EQ(test, txrdma_pool_to_connect(&p, start), 1U);
	txrdma_pool_connect_failed(&p, start);
	/* the retry time wraps past 0: still honoured */
	KUNIT_EXPECT_EQ(test, txrdma_pool_to_connect(&p, start + 9 * MS), 0U);
	KUNIT_EXPECT_EQ(test, txrdma_pool_to_connect(&p, start + 10 * MS), 1U);
}

/* The acceptor never connects: it takes what the initiator opens, to max */
static void pool_accept_up_to_max(struct kunit *test)
{
	struct txrdma_pool p;
	int i;

	txrdma_pool_init(&p, 1, 3, T0);
	txrdma_pool_peer_up(&p, T0);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, txrdma_pool_accept(&p), 0);
	KUNIT_EXPECT_EQ(test, p.connecting, 3U);
	KUNIT_EXPECT_EQ(test, txrdma_pool_accept(&p), -ENOSPC);
	KUNIT_EXPECT_EQ(test, p.connecting, 3U);
	/* established or lent, they still count against max */
	txrdma_pool_connected(&p);
	txrdma_pool_connected(&p);
	KUNIT_EXPECT_EQ(test, txrdma_pool_accept(&p), -ENOSPC);
	KUNIT_EXPECT_EQ(test, txrdma_pool_take(&p, T0), 0);
	KUNIT_EXPECT_EQ(test, txrdma_pool_accept(&p), -ENOSPC);
	KUNIT_EXPECT_EQ(test, p.ready + p.in_use + p.connecting, 3U);
	/* closing ones do not: a replacement may come in */
	txrdma_pool_qp_error(&p, true);
	KUNIT_EXPECT_EQ(test, txrdma_pool_accept(&p), 0);
	KUNIT_EXPECT_EQ(test, txrdma_pool_accept(&p), -ENOSPC);
	KUNIT_EXPECT_EQ(test, p.closing, 1U);

	/* max 1: one, then full */
	txrdma_pool_init(&p, 0, 1, T0);
	KUNIT_EXPECT_EQ(test, txrdma_pool_accept(&p), 0);
	KUNIT_EXPECT_EQ(test, txrdma_pool_accept(&p), -ENOSPC);
}

static void pool_accept_accounting(struct kunit *test)
{
	struct txrdma_pool p;

	txrdma_pool_init(&p, 2, 4, T0);
	txrdma_pool_peer_up(&p, T0);
	KUNIT_ASSERT_EQ(test, txrdma_pool_accept(&p), 0);
	KUNIT_ASSERT_EQ(test, txrdma_pool_accept(&p), 0);
	KUNIT_ASSERT_EQ(test, txrdma_pool_accept(&p), 0);
	KUNIT_EXPECT_EQ(test, p.connecting, 3U);
	KUNIT_EXPECT_EQ(test, p.ready, 0U);
	/* accepted attempts end like initiated ones */
	txrdma_pool_connected(&p);
	KUNIT_EXPECT_EQ(test, p.connecting, 2U);
	KUNIT_EXPECT_EQ(test, p.ready, 1U);
	txrdma_pool_connect_failed(&p, T0);
	KUNIT_EXPECT_EQ(test, p.connecting, 1U);
	KUNIT_EXPECT_EQ(test, p.ready, 1U);
	KUNIT_EXPECT_EQ(test, p.failures, 1ULL);
	txrdma_pool_connected(&p);
	KUNIT_EXPECT_EQ(test, p.connecting, 0U);
	KUNIT_EXPECT_EQ(test, p.ready, 2U);
	KUNIT_EXPECT_EQ(test, p.backoff_ns, 0ULL);
	/* the failure freed its slot */
	KUNIT_EXPECT_EQ(test, txrdma_pool_accept(&p), 0);
	KUNIT_EXPECT_EQ(test, txrdma_pool_accept(&p), 0);
	KUNIT_EXPECT_EQ(test, txrdma_pool_accept(&p), -ENOSPC);
	txrdma_pool_connected(&p);
	txrdma_pool_connected(&p);
	KUNIT_EXPECT_EQ(test, p.ready, 4U);
	KUNIT_EXPECT_EQ(test, p.connecting, 0U);
	/* lent out and handed back like any ready QP */
	KUNIT_EXPECT_EQ(test, txrdma_pool_take(&p, T0), 0);
	KUNIT_EXPECT_EQ(test, p.in_use, 1U);
	txrdma_pool_give_back(&p);
	KUNIT_EXPECT_EQ(test, p.ready, 4U);
}

/* The acceptor's demand, learned from its probes, makes us connect more */
static void pool_remote_want_raises_target(struct kunit *test)
{
	struct txrdma_pool p;

	txrdma_pool_init(&p, 1, 8, T0);
	txrdma_pool_peer_up(&p, T0);
	KUNIT_EXPECT_EQ(test, fill(&p, T0), 1U);
	KUNIT_EXPECT_EQ(test, txrdma_pool_next_event(&p, T0), U64_MAX);
	txrdma_pool_set_remote_want(&p, 4);
	/* our own want is unchanged; it is what we advertise */
	KUNIT_EXPECT_EQ(test, txrdma_pool_want(&p), 1U);
	KUNIT_EXPECT_EQ(test, txrdma_pool_next_event(&p, T0 + MS), T0 + MS);
	KUNIT_EXPECT_EQ(test, txrdma_pool_to_connect(&p, T0 + MS), 3U);
	KUNIT_EXPECT_EQ(test, txrdma_pool_to_connect(&p, T0 + MS), 0U);
	txrdma_pool_connected(&p);
	txrdma_pool_connected(&p);
	txrdma_pool_connected(&p);
	KUNIT_EXPECT_EQ(test, p.ready, 4U);
	/* a remote want below ours changes nothing */
	txrdma_pool_set_remote_want(&p, 0);
	KUNIT_EXPECT_EQ(test, fill(&p, T0 + MS), 0U);
	/* and our own demand still counts when it is the larger */
	txrdma_pool_init(&p, 3, 8, T0);
	txrdma_pool_peer_up(&p, T0);
	txrdma_pool_set_remote_want(&p, 2);
	KUNIT_EXPECT_EQ(test, fill(&p, T0), 3U);
	/* the remote want obeys the backoff like our own */
	txrdma_pool_set_remote_want(&p, 6);
	KUNIT_EXPECT_EQ(test, txrdma_pool_to_connect(&p, T0), 3U);
	txrdma_pool_connect_failed(&p, T0);
	txrdma_pool_connect_failed(&p, T0);
	txrdma_pool_connect_failed(&p, T0);
	KUNIT_EXPECT_EQ(test, txrdma_pool_next_event(&p, T0),
			p.retry_at_ns);
	KUNIT_EXPECT_EQ(test, txrdma_pool_to_connect(&p, T0), 0U);
	KUNIT_EXPECT_EQ(test, txrdma_pool_to_connect(&p, p.retry_at_ns), 1U);
	/* nothing while the peer is down, whatever the other end wants */
	txrdma_pool_peer_down(&p, T0 + 10 * MS);
	KUNIT_EXPECT_EQ(test, txrdma_pool_to_connect(&p, T0 + 10 * MS), 0U);
}

static void pool_remote_want_capped_by_max(struct kunit *test)
{
	const char *why = NULL;
	struct txrdma_pool p;

	txrdma_pool_init(&p, 1, 4, T0);
	txrdma_pool_peer_up(&p, T0);
	txrdma_pool_set_remote_want(&p, 100);
	KUNIT_EXPECT_EQ(test, txrdma_pool_want(&p), 1U);
	KUNIT_EXPECT_EQ(test, fill(&p, T0), 4U);
	KUNIT_EXPECT_EQ(test, txrdma_pool_to_connect(&p, T0), 0U);
	KUNIT_EXPECT_EQ(test, p.ready, 4U);
	/* lent QPs count against max too */
	KUNIT_EXPECT_EQ(test, txrdma_pool_take(&p, T0), 0);
	KUNIT_EXPECT_EQ(test, txrdma_pool_take(&p, T0), 0);
	KUNIT_EXPECT_EQ(test, txrdma_pool_to_connect(&p, T0), 0U);
	/* a smaller max after a resize caps it again */
	txrdma_pool_give_back(&p);
	txrdma_pool_give_back(&p);
	txrdma_pool_set_remote_want(&p, U32_MAX);
	KUNIT_EXPECT_EQ(test, txrdma_pool_to_connect(&p, T0), 0U);
	KUNIT_ASSERT_EQ(test, txrdma_pool_set(&p, 1, 2, &why), 0);
	KUNIT_EXPECT_EQ(test, txrdma_pool_to_close(&p, T0), 2U);
	KUNIT_EXPECT_EQ(test, p.ready, 2U);
	KUNIT_EXPECT_EQ(test, txrdma_pool_to_connect(&p, T0), 0U);
}

/* Idle shrinking gives back our growth, never what the other end wants */
static void pool_remote_want_keeps_idle(struct kunit *test)
{
	u64 idle = T0 + TXRDMA_POOL_IDLE_NS;
	struct txrdma_pool p;
	int i;

	txrdma_pool_init(&p, 1, 8, T0);
	txrdma_pool_peer_up(&p, T0);
	txrdma_pool_set_remote_want(&p, 4);
	KUNIT_EXPECT_EQ(test, fill(&p, T0), 4U);
	/* our own misses push above the remote want */
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ(test, txrdma_pool_take(&p, T0), 0);
	for (i = 0; i < 5; i++)
		KUNIT_EXPECT_EQ(test, txrdma_pool_take(&p, T0), -EAGAIN);
	KUNIT_EXPECT_EQ(test, p.want_extra, 5U);
	KUNIT_EXPECT_EQ(test, txrdma_pool_want(&p), 6U);
	KUNIT_EXPECT_EQ(test, fill(&p, T0), 4U);	/* 8 alive: max */
	for (i = 0; i < 4; i++)
		txrdma_pool_give_back(&p);
	KUNIT_EXPECT_EQ(test, p.ready, 8U);
	KUNIT_EXPECT_EQ(test, txrdma_pool_to_close(&p, idle - 1), 0U);
	/* idle: our growth goes, the remote want stays */
	KUNIT_EXPECT_EQ(test, txrdma_pool_to_close(&p, idle), 4U);
	KUNIT_EXPECT_EQ(test, p.ready, 4U);
	KUNIT_EXPECT_EQ(test, p.want_extra, 0U);
	KUNIT_EXPECT_EQ(test, txrdma_pool_to_close(&p, idle + 1), 0U);
	KUNIT_EXPECT_EQ(test, txrdma_pool_to_connect(&p, idle + 1), 0U);
	/* the other end wants fewer: down to its want, then to our min */
	txrdma_pool_set_remote_want(&p, 2);
	KUNIT_EXPECT_EQ(test, txrdma_pool_to_close(&p, idle + 2), 2U);
	KUNIT_EXPECT_EQ(test, p.ready, 2U);
	txrdma_pool_set_remote_want(&p, 0);
	KUNIT_EXPECT_EQ(test, txrdma_pool_to_close(&p, idle + 3), 1U);
	KUNIT_EXPECT_EQ(test, p.ready, 1U);
	KUNIT_EXPECT_EQ(test, p.closing, 7U);
}

/* What an acceptor advertises: min plus its demand, capped at max */
static void pool_want(struct kunit *test)
{
	const char *why = NULL;
	struct txrdma_pool p;
	int i;

	txrdma_pool_init(&p, 2, 4, T0);
	KUNIT_EXPECT_EQ(test, txrdma_pool_want(&p), 2U);
	txrdma_pool_peer_up(&p, T0);
	KUNIT_EXPECT_EQ(test, txrdma_pool_take(&p, T0), -EAGAIN);
	KUNIT_EXPECT_EQ(test, txrdma_pool_want(&p), 3U);
	for (i = 0; i < 10; i++)
		txrdma_pool_take(&p, T0);
	KUNIT_EXPECT_EQ(test, p.want_extra, 2U);
	KUNIT_EXPECT_EQ(test, txrdma_pool_want(&p), 4U);
	/* the other end's want is not ours to advertise */
	txrdma_pool_set_remote_want(&p, 1);
	KUNIT_EXPECT_EQ(test, txrdma_pool_want(&p), 4U);
	/* a resize caps it */
	KUNIT_ASSERT_EQ(test, txrdma_pool_set(&p, 1, 2, &why), 0);
	KUNIT_EXPECT_EQ(test, txrdma_pool_want(&p), 2U);
	/* idle: back to min */
	txrdma_pool_to_close(&p, T0 + TXRDMA_POOL_IDLE_NS);
	KUNIT_EXPECT_EQ(test, txrdma_pool_want(&p), 1U);
	/* min 0: an acceptor that wants nothing until asked */
	txrdma_pool_init(&p, 0, 4, T0);
	KUNIT_EXPECT_EQ(test, txrdma_pool_want(&p), 0U);
	/* down: demand is forgotten */
	txrdma_pool_peer_up(&p, T0);
	txrdma_pool_take(&p, T0);
	KUNIT_EXPECT_EQ(test, txrdma_pool_want(&p), 1U);
	txrdma_pool_peer_down(&p, T0 + 10 * MS);
	KUNIT_EXPECT_EQ(test, txrdma_pool_want(&p), 0U);
}

static struct kunit_case txrdma_pool_cases[] = {
	KUNIT_CASE(pool_cfg),
	KUNIT_CASE(pool_fills_to_min_when_up),
	KUNIT_CASE(pool_take_and_give_back),
	KUNIT_CASE(pool_grows_on_misses_shrinks_when_idle),
	KUNIT_CASE(pool_error_replaced),
	KUNIT_CASE(pool_backoff),
	KUNIT_CASE(pool_peer_down_and_up),
	KUNIT_CASE(pool_flap_dampening),
	KUNIT_CASE(pool_hold_yields_to_a_waiter),
	KUNIT_CASE(pool_resize),
	KUNIT_CASE(pool_clock_wrap),
	KUNIT_CASE(pool_accept_up_to_max),
	KUNIT_CASE(pool_accept_accounting),
	KUNIT_CASE(pool_remote_want_raises_target),
	KUNIT_CASE(pool_remote_want_capped_by_max),
	KUNIT_CASE(pool_remote_want_keeps_idle),
	KUNIT_CASE(pool_want),
	{}
};

static struct kunit_suite txrdma_pool_suite = {
	.name = "txrdma_pool",
	.test_cases = txrdma_pool_cases,
};

kunit_test_suite(txrdma_pool_suite);

MODULE_LICENSE("GPL");
