// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite txrdma_tbucket: token bucket arithmetic with an injected
 * clock.  Every expectation is an exact token count or wait time.
 */
#include <kunit/test.h>
#include <linux/limits.h>
#include <linux/prandom.h>
#include <linux/time64.h>

#include "../txrdma_tbucket.h"

#define MS	(NSEC_PER_MSEC)

static void tb_starts_full(struct kunit *test)
{
	struct txrdma_tb tb;

	txrdma_tb_init(&tb, 1000, 100, 0);
	KUNIT_EXPECT_TRUE(test, txrdma_tb_take(&tb, 0, 100));
	KUNIT_EXPECT_FALSE(test, txrdma_tb_take(&tb, 0, 1));
	KUNIT_EXPECT_EQ(test, tb.tokens, 0);
}

static void tb_refill_rate(struct kunit *test)
{
	struct txrdma_tb tb;

	txrdma_tb_init(&tb, 1000, 100, 0);
	KUNIT_ASSERT_TRUE(test, txrdma_tb_take(&tb, 0, 100));
	/* 1000/s: 10 ms earns 10 tokens, 10 ms minus 1 ns earns 9 */
	txrdma_tb_refill(&tb, 10 * MS - 1);
	KUNIT_EXPECT_EQ(test, tb.tokens, 9);
	txrdma_tb_refill(&tb, 10 * MS);
	KUNIT_EXPECT_EQ(test, tb.tokens, 10);
	/* never above the burst */
	txrdma_tb_refill(&tb, 10 * NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, tb.tokens, 100);
	KUNIT_EXPECT_EQ(test, tb.rem, 0ULL);
}

/* Many small refills must credit exactly what one large refill does. */
static void tb_no_drift(struct kunit *test)
{
	struct txrdma_tb a, b;
	u64 now = 0;
	int i;

	/* 7 tokens/s: each 1/3 s step leaves a fraction behind */
	txrdma_tb_init(&a, 7, 1000000, 0);
	txrdma_tb_init(&b, 7, 1000000, 0);
	a.tokens = 0;
	b.tokens = 0;
	for (i = 0; i < 3000; i++) {
		now += NSEC_PER_SEC / 3 + (i % 5);	/* uneven steps */
		txrdma_tb_refill(&a, now);
	}
	txrdma_tb_refill(&b, now);
	KUNIT_EXPECT_EQ(test, a.tokens, b.tokens);
	KUNIT_EXPECT_EQ(test, a.rem, b.rem);
	/* and the total is floor(now * 7 / 1e9) */
	KUNIT_EXPECT_EQ(test, (u64)a.tokens, div64_u64(now * 7, NSEC_PER_SEC));
}

static void tb_no_drift_random(struct kunit *test)
{
	struct rnd_state rnd;
	struct txrdma_tb a, b;
	u64 now = 12345;
	int i;

	prandom_seed_state(&rnd, 42);
	/* 1.5 GB/s: exercises both halves of the split rate */
	txrdma_tb_init(&a, 1500000003ULL, S64_MAX, now);
	txrdma_tb_init(&b, 1500000003ULL, S64_MAX, now);
	a.tokens = 0;
	b.tokens = 0;
	for (i = 0; i < 10000; i++) {
		now += prandom_u32_state(&rnd) % (3 * NSEC_PER_SEC);
		txrdma_tb_refill(&a, now);
	}
	txrdma_tb_refill(&b, now);
	KUNIT_EXPECT_EQ(test, a.tokens, b.tokens);
	KUNIT_EXPECT_EQ(test, a.rem, b.rem);
}

static void tb_zero_rate(struct kunit *test)
{
	struct txrdma_tb tb;

	txrdma_tb_init(&tb, 0, 5, 0);
	KUNIT_EXPECT_TRUE(test, txrdma_tb_take(&tb, 0, 5));
	KUNIT_EXPECT_FALSE(test, txrdma_tb_take(&tb, 1000 * NSEC_PER_SEC, 1));
	KUNIT_EXPECT_EQ(test, txrdma_tb_wait_ns(&tb, 2000 * NSEC_PER_SEC, 1),
			U64_MAX);
	/* zero burst and zero rate: nothing ever, not even size 0 waits */
	txrdma_tb_init(&tb, 0, 0, 0);
	KUNIT_EXPECT_TRUE(test, txrdma_tb_take(&tb, 0, 0));
}

static void tb_unlimited(struct kunit *test)
{
	struct txrdma_tb tb;
	int i;

	txrdma_tb_init(&tb, TXRDMA_TB_UNLIMITED, 10, 0);
	for (i = 0; i < 100; i++)
		KUNIT_EXPECT_TRUE(test, txrdma_tb_take(&tb, 0, U64_MAX));
	KUNIT_EXPECT_EQ(test, txrdma_tb_wait_ns(&tb, 0, U64_MAX), 0ULL);
}

/* A request larger than the burst goes through from a full bucket only
 * and leaves a debt, so the long-run rate still holds.
 */
static void tb_request_over_burst(struct kunit *test)
{
	struct txrdma_tb tb;

	txrdma_tb_init(&tb, 1000, 100, 0);
	KUNIT_ASSERT_TRUE(test, txrdma_tb_take(&tb, 0, 1));
	KUNIT_EXPECT_FALSE(test, txrdma_tb_take(&tb, 0, 250));
	/* refilled to full after 1 ms */
	KUNIT_EXPECT_EQ(test, txrdma_tb_wait_ns(&tb, 0, 250), 1 * MS);
	KUNIT_EXPECT_TRUE(test, txrdma_tb_take(&tb, 1 * MS, 250));
	KUNIT_EXPECT_EQ(test, tb.tokens, -150);
	/* the next 1-token request waits for the 151 missing tokens */
	KUNIT_EXPECT_EQ(test, txrdma_tb_wait_ns(&tb, 1 * MS, 1), 151 * MS);
	KUNIT_EXPECT_FALSE(test, txrdma_tb_take(&tb, 152 * MS - 1, 1));
	KUNIT_EXPECT_TRUE(test, txrdma_tb_take(&tb, 152 * MS, 1));
	/* a request of U64_MAX is bounded, never wraps tokens positive */
	txrdma_tb_init(&tb, 1000, 100, 0);
	KUNIT_EXPECT_TRUE(test, txrdma_tb_take(&tb, 0, U64_MAX));
	KUNIT_EXPECT_LT(test, tb.tokens, 0LL);
	KUNIT_EXPECT_FALSE(test, txrdma_tb_take(&tb, NSEC_PER_SEC, 1));
}

static void tb_clock_backwards(struct kunit *test)
{
	struct txrdma_tb tb;

	txrdma_tb_init(&tb, 1000, 100, 50 * MS);
	tb.tokens = 0;
	/* going back credits nothing and rebases */
	txrdma_tb_refill(&tb, 10 * MS);
	KUNIT_EXPECT_EQ(test, tb.tokens, 0);
	KUNIT_EXPECT_EQ(test, tb.last_ns, 10 * MS);
	/* time then counts from the new base, not the old one */
	txrdma_tb_refill(&tb, 15 * MS);
	KUNIT_EXPECT_EQ(test, tb.tokens, 5);
	/* the same instant twice credits nothing */
	txrdma_tb_refill(&tb, 15 * MS);
	KUNIT_EXPECT_EQ(test, tb.tokens, 5);
}

static void tb_clock_wrap(struct kunit *test)
{
	struct txrdma_tb tb;
	u64 start = U64_MAX - 500 * MS + 1;

	txrdma_tb_init(&tb, 1000, 10000, start);
	tb.tokens = 0;
	/* 500 ms before the wrap, 500 ms after: one second, 1000 tokens */
	txrdma_tb_refill(&tb, 500 * MS);
	KUNIT_EXPECT_EQ(test, tb.tokens, 1000);
}

static void tb_saturation(struct kunit *test)
{
	struct txrdma_tb tb;

	/* products that overflow 64 bits saturate at the burst */
	txrdma_tb_init(&tb, U64_MAX - 1, U64_MAX, 0);
	KUNIT_EXPECT_EQ(test, tb.burst, (u64)S64_MAX);
	tb.tokens = S64_MIN + 1;
	txrdma_tb_refill(&tb, (u64)S64_MAX);
	KUNIT_EXPECT_EQ(test, tb.tokens, S64_MAX);
	/* waiting for more than 2^64 ns saturates too */
	txrdma_tb_init(&tb, 1, S64_MAX, 0);
	tb.tokens = 0;
	KUNIT_EXPECT_EQ(test, txrdma_tb_wait_ns(&tb, 0, U64_MAX), U64_MAX);
}

static void tb_wait_exact(struct kunit *test)
{
	struct txrdma_tb tb;
	u64 w;

	txrdma_tb_init(&tb, 3, 10, 0);
	tb.tokens = 0;
	/* 3/s: one token after ceil(1e9 / 3) ns */
	w = txrdma_tb_wait_ns(&tb, 0, 1);
	KUNIT_EXPECT_EQ(test, w, 333333334ULL);
	KUNIT_EXPECT_FALSE(test, txrdma_tb_take(&tb, w - 1, 1));
	KUNIT_EXPECT_TRUE(test, txrdma_tb_take(&tb, w, 1));
	KUNIT_EXPECT_EQ(test, txrdma_tb_wait_ns(&tb, w, 0), 0ULL);
}

static void tb_set_keeps_earned(struct kunit *test)
{
	struct txrdma_tb tb;

	txrdma_tb_init(&tb, 1000, 1000, 0);
	tb.tokens = 0;
	/* 100 ms at the old rate is earned before the change */
	txrdma_tb_set(&tb, 10, 1000, 100 * MS);
	KUNIT_EXPECT_EQ(test, tb.tokens, 100);
	txrdma_tb_refill(&tb, 200 * MS);
	KUNIT_EXPECT_EQ(test, tb.tokens, 101);
	/* lowering the burst drops tokens above it */
	txrdma_tb_set(&tb, 10, 50, 200 * MS);
	KUNIT_EXPECT_EQ(test, tb.tokens, 50);
}

/* a refund restores exactly what was taken, never above the burst */
static void tb_refund(struct kunit *test)
{
	struct txrdma_tb tb;

	txrdma_tb_init(&tb, 1000, 100, 0);
	KUNIT_ASSERT_TRUE(test, txrdma_tb_take(&tb, 0, 60));
	KUNIT_EXPECT_EQ(test, tb.tokens, 40);
	txrdma_tb_refund(&tb, 60);
	KUNIT_EXPECT_EQ(test, tb.tokens, 100);
	txrdma_tb_refund(&tb, 5);
	KUNIT_EXPECT_EQ(test, tb.tokens, 100);
	/* an oversized request left a debt: the refund pays it back */
	KUNIT_ASSERT_TRUE(test, txrdma_tb_take(&tb, 0, 250));
	KUNIT_EXPECT_EQ(test, tb.tokens, -150);
	txrdma_tb_refund(&tb, 250);
	KUNIT_EXPECT_EQ(test, tb.tokens, 100);
	/* unlimited buckets ignore it */
	txrdma_tb_init(&tb, TXRDMA_TB_UNLIMITED, 100, 0);
	txrdma_tb_refund(&tb, U64_MAX);
	KUNIT_EXPECT_TRUE(test, txrdma_tb_take(&tb, 0, U64_MAX));
}

static struct kunit_case txrdma_tbucket_cases[] = {
	KUNIT_CASE(tb_refund),
	KUNIT_CASE(tb_starts_full),
	KUNIT_CASE(tb_refill_rate),
	KUNIT_CASE(tb_no_drift),
	KUNIT_CASE(tb_no_drift_random),
	KUNIT_CASE(tb_zero_rate),
	KUNIT_CASE(tb_unlimited),
	KUNIT_CASE(tb_request_over_burst),
	KUNIT_CASE(tb_clock_backwards),
	KUNIT_CASE(tb_clock_wrap),
	KUNIT_CASE(tb_saturation),
	KUNIT_CASE(tb_wait_exact),
	KUNIT_CASE(tb_set_keeps_earned),
	{}
};

static struct kunit_suite txrdma_tbucket_suite = {
	.name = "txrdma_tbucket",
	.test_cases = txrdma_tbucket_cases,
};

kunit_test_suite(txrdma_tbucket_suite);

MODULE_LICENSE("GPL");
