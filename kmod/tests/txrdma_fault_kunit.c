// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite txrdma_fault: the fault-injection rule (txrdma_fault.c)
 * against what lib/fault-inject.c does with the same attributes: off by
 * default, times (one, several, unlimited), space spent by size,
 * interval, probability (exact over a uniform draw), their order, and
 * the counters a test reads back.
 */
#include <kunit/test.h>

#include "../txrdma_fault.h"

static void armed(struct txrdma_fault_attr *a, u32 prob, s32 times)
{
	txrdma_fault_attr_init(a);
	a->probability = prob;
	a->times = times;
}

static void fault_off_by_default(struct kunit *test)
{
	struct txrdma_fault_attr a;
	u32 i;

	txrdma_fault_attr_init(&a);
	KUNIT_EXPECT_EQ(test, a.probability, 0U);
	KUNIT_EXPECT_EQ(test, a.interval, 1U);
	KUNIT_EXPECT_EQ(test, a.times, 1);
	KUNIT_EXPECT_EQ(test, a.space, 0U);
	KUNIT_EXPECT_FALSE(test, txrdma_fault_armed(&a));
	for (i = 0; i < 1000; i++)
		KUNIT_EXPECT_FALSE(test, txrdma_fault_decide(&a, 1, 0));
	/* an unarmed point counts nothing */
	KUNIT_EXPECT_EQ(test, a.calls, 0ULL);
	KUNIT_EXPECT_EQ(test, a.injected, 0ULL);
	KUNIT_EXPECT_EQ(test, a.times, 1);
}

static void fault_times_counts_down(struct kunit *test)
{
	struct txrdma_fault_attr a;
	u32 i, n = 0;

	armed(&a, 100, 3);
	KUNIT_EXPECT_TRUE(test, txrdma_fault_armed(&a));
	for (i = 0; i < 10; i++)
		n += txrdma_fault_decide(&a, 1, i);
	KUNIT_EXPECT_EQ(test, n, 3U);
	KUNIT_EXPECT_EQ(test, a.times, 0);
	KUNIT_EXPECT_EQ(test, a.injected, 3ULL);
	/* spent: off again, without a lock */
	KUNIT_EXPECT_FALSE(test, txrdma_fault_armed(&a));
	/* the calls after the last failure were not counted */
	KUNIT_EXPECT_EQ(test, a.calls, 3ULL);
}

static void fault_times_unlimited(struct kunit *test)
{
	struct txrdma_fault_attr a;
	u32 i, n = 0;

	armed(&a, 100, -1);
	for (i = 0; i < 10000; i++)
		n += txrdma_fault_decide(&a, 1, i * 7919);
	KUNIT_EXPECT_EQ(test, n, 10000U);
	KUNIT_EXPECT_EQ(test, a.times, -1);
	KUNIT_EXPECT_EQ(test, a.injected, 10000ULL);
}

static void fault_probability_exact(struct kunit *test)
{
	struct txrdma_fault_attr a;
	u32 p, r, n;

	/* over every residue of the draw, exactly p of 100 fail */
	for (p = 1; p <= 100; p++) {
		armed(&a, p, -1);
		n = 0;
		for (r = 0; r < 100; r++)
			n += txrdma_fault_decide(&a, 1, 1000 * 100 + r);
		KUNIT_EXPECT_EQ_MSG(test, n, p, "probability %u", p);
	}
	/* the low draws fail: 29 < 30, 30 is not */
	armed(&a, 30, -1);
	KUNIT_EXPECT_TRUE(test, txrdma_fault_decide(&a, 1, 29));
	KUNIT_EXPECT_FALSE(test, txrdma_fault_decide(&a, 1, 30));
	/* a probability past 100 (not writable, but) fails every call */
	armed(&a, 250, -1);
	KUNIT_EXPECT_TRUE(test, txrdma_fault_decide(&a, 1, 99));
	KUNIT_EXPECT_TRUE(test, txrdma_fault_decide(&a, 1, U32_MAX));
}

static void fault_interval_every_nth(struct kunit *test)
{
	struct txrdma_fault_attr a;
	u32 i;

	armed(&a, 100, -1);
	a.interval = 4;
	for (i = 1; i <= 40; i++)
		KUNIT_EXPECT_EQ_MSG(test, txrdma_fault_decide(&a, 1, 0),
				    i % 4 == 0, "call %u", i);
	KUNIT_EXPECT_EQ(test, a.injected, 10ULL);
	KUNIT_EXPECT_EQ(test, a.count, 40ULL);
	/* interval 0 is each call, as 1 */
	armed(&a, 100, -1);
	a.interval = 0;
	for (i = 0; i < 5; i++)
		KUNIT_EXPECT_TRUE(test, txrdma_fault_decide(&a, 1, 0));
}

static void fault_space_by_size(struct kunit *test)
{
	struct txrdma_fault_attr a;

	armed(&a, 100, -1);
	a.space = 10;
	/* 10 > 4: pass, 6 left; 6 > 4: pass, 2 left; 2 > 4 is not: fail */
	KUNIT_EXPECT_FALSE(test, txrdma_fault_decide(&a, 4, 0));
	KUNIT_EXPECT_EQ(test, a.space, 6U);
	KUNIT_EXPECT_FALSE(test, txrdma_fault_decide(&a, 4, 0));
	KUNIT_EXPECT_EQ(test, a.space, 2U);
	KUNIT_EXPECT_TRUE(test, txrdma_fault_decide(&a, 4, 0));
	/* as lib/fault-inject.c: what is left stays, and covers a smaller call */
	KUNIT_EXPECT_EQ(test, a.space, 2U);
	KUNIT_EXPECT_FALSE(test, txrdma_fault_decide(&a, 1, 0));
	KUNIT_EXPECT_EQ(test, a.space, 1U);
	KUNIT_EXPECT_TRUE(test, txrdma_fault_decide(&a, 1, 0));
	/* a size of 0 costs 1: a zero-length frame still spends budget */
	armed(&a, 100, -1);
	a.space = 3;
	KUNIT_EXPECT_FALSE(test, txrdma_fault_decide(&a, 0, 0));
	KUNIT_EXPECT_FALSE(test, txrdma_fault_decide(&a, 0, 0));
	KUNIT_EXPECT_TRUE(test, txrdma_fault_decide(&a, 0, 0));
	/* calls that the budget covered are seen, not counted for interval */
	KUNIT_EXPECT_EQ(test, a.calls, 3ULL);
	KUNIT_EXPECT_EQ(test, a.count, 1ULL);
}

static void fault_order_of_tests(struct kunit *test)
{
	struct txrdma_fault_attr a;
	u32 i, first = 0;

	/*
	 * space first, then interval, then the draw, then times: the
	 * first failure of (space 6, interval 3, times 2) is the 8th call
	 * (5 covered, then the 3rd counted), the second the 11th.
	 */
	armed(&a, 100, 2);
	a.space = 6;		/* 6 > 1 five times: calls 1..5 pass */
	a.interval = 3;
	for (i = 1; i <= 20; i++) {
		if (txrdma_fault_decide(&a, 1, 0) && !first)
			first = i;
	}
	KUNIT_EXPECT_EQ(test, first, 8U);
	KUNIT_EXPECT_EQ(test, a.injected, 2ULL);
	KUNIT_EXPECT_EQ(test, a.times, 0);
	/* a draw that says no leaves times alone */
	armed(&a, 50, 1);
	KUNIT_EXPECT_FALSE(test, txrdma_fault_decide(&a, 1, 77));
	KUNIT_EXPECT_EQ(test, a.times, 1);
	KUNIT_EXPECT_TRUE(test, txrdma_fault_decide(&a, 1, 12));
	KUNIT_EXPECT_EQ(test, a.times, 0);
}

static struct kunit_case txrdma_fault_cases[] = {
	KUNIT_CASE(fault_off_by_default),
	KUNIT_CASE(fault_times_counts_down),
	KUNIT_CASE(fault_times_unlimited),
	KUNIT_CASE(fault_probability_exact),
	KUNIT_CASE(fault_interval_every_nth),
	KUNIT_CASE(fault_space_by_size),
	KUNIT_CASE(fault_order_of_tests),
	{}
};

static struct kunit_suite txrdma_fault_suite = {
	.name = "txrdma_fault",
	.test_cases = txrdma_fault_cases,
};

kunit_test_suite(txrdma_fault_suite);

MODULE_LICENSE("GPL");
