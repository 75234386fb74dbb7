// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite txrdma_quota: limits are exact, refusals change nothing
 * but their counter, and sums cannot wrap.
 */
#include <kunit/test.h>
#include <linux/limits.h>

#include "../txrdma_quota.h"

static void quota_starts_unlimited(struct kunit *test)
{
	struct txrdma_quota q;
	int r;

	txrdma_quota_init(&q);
	for (r = 0; r < TXRDMA_NR_RES; r++) {
		KUNIT_EXPECT_EQ(test, q.limit[r], U64_MAX);
		KUNIT_EXPECT_EQ(test, q.used[r], 0ULL);
		KUNIT_EXPECT_EQ(test, txrdma_quota_charge(&q, r, U64_MAX), 0);
	}
	KUNIT_EXPECT_TRUE(test, txrdma_quota_in_use(&q));
}

/* N objects fit, N+1 does not, and the refusal leaves use unchanged. */
static void quota_limit_is_exact(struct kunit *test)
{
	struct txrdma_quota q;
	int i;

	txrdma_quota_init(&q);
	txrdma_quota_set_limit(&q, TXRDMA_RES_QPS, 8);
	for (i = 0; i < 8; i++)
		KUNIT_EXPECT_EQ(test, txrdma_quota_charge(&q, TXRDMA_RES_QPS, 1),
				0);
	KUNIT_EXPECT_EQ(test, txrdma_quota_charge(&q, TXRDMA_RES_QPS, 1),
			-EDQUOT);
	KUNIT_EXPECT_EQ(test, q.used[TXRDMA_RES_QPS], 8ULL);
	KUNIT_EXPECT_EQ(test, q.refused[TXRDMA_RES_QPS], 1ULL);
	/* other resources are not touched */
	KUNIT_EXPECT_EQ(test, q.refused[TXRDMA_RES_PINNED], 0ULL);
	/* release one, one fits again */
	KUNIT_EXPECT_EQ(test, txrdma_quota_uncharge(&q, TXRDMA_RES_QPS, 1), 0);
	KUNIT_EXPECT_EQ(test, txrdma_quota_charge(&q, TXRDMA_RES_QPS, 1), 0);
	for (i = 0; i < 8; i++)
		txrdma_quota_uncharge(&q, TXRDMA_RES_QPS, 1);
	KUNIT_EXPECT_FALSE(test, txrdma_quota_in_use(&q));
}

static void quota_bytes_exact(struct kunit *test)
{
	struct txrdma_quota q;

	txrdma_quota_init(&q);
	txrdma_quota_set_limit(&q, TXRDMA_RES_PINNED, 4ULL << 20);
	KUNIT_EXPECT_EQ(test, txrdma_quota_charge(&q, TXRDMA_RES_PINNED,
						  2ULL << 20), 0);
	KUNIT_EXPECT_EQ(test, txrdma_quota_charge(&q, TXRDMA_RES_PINNED,
						  (2ULL << 20) + 1), -EDQUOT);
	KUNIT_EXPECT_EQ(test, txrdma_quota_charge(&q, TXRDMA_RES_PINNED,
						  2ULL << 20), 0);
	KUNIT_EXPECT_EQ(test, q.used[TXRDMA_RES_PINNED], 4ULL << 20);
	/* a zero-size charge always fits, even when full */
	KUNIT_EXPECT_EQ(test, txrdma_quota_charge(&q, TXRDMA_RES_PINNED, 0), 0);
}

static void quota_no_wrap(struct kunit *test)
{
	struct txrdma_quota q;

	txrdma_quota_init(&q);
	txrdma_quota_set_limit(&q, TXRDMA_RES_PINNED, U64_MAX - 1);
	KUNIT_EXPECT_EQ(test, txrdma_quota_charge(&q, TXRDMA_RES_PINNED, 10),
			0);
	/* 10 + (U64_MAX - 5) wraps to 4: must be refused, not admitted */
	KUNIT_EXPECT_EQ(test, txrdma_quota_charge(&q, TXRDMA_RES_PINNED,
						  U64_MAX - 5), -EDQUOT);
	KUNIT_EXPECT_EQ(test, q.used[TXRDMA_RES_PINNED], 10ULL);
	/* unlimited: a charge that would wrap is still refused */
	txrdma_quota_set_limit(&q, TXRDMA_RES_PINNED, U64_MAX);
	KUNIT_EXPECT_EQ(test, txrdma_quota_charge(&q, TXRDMA_RES_PINNED,
						  U64_MAX), -EDQUOT);
}

static void quota_charge_all_is_atomic(struct kunit *test)
{
	u64 n[TXRDMA_NR_RES] = {
		[TXRDMA_RES_QPS]	= 1,
		[TXRDMA_RES_ENDPOINTS]	= 1,
		[TXRDMA_RES_PINNED]	= 4096,
		[TXRDMA_RES_LISTENERS]	= 1,
	};
	struct txrdma_quota q;

	txrdma_quota_init(&q);
	txrdma_quota_set_limit(&q, TXRDMA_RES_PINNED, 8192);
	KUNIT_EXPECT_EQ(test, txrdma_quota_charge_all(&q, n), 0);
	KUNIT_EXPECT_EQ(test, txrdma_quota_charge_all(&q, n), 0);
	/* the third fails on pinned: the others stay at 2 */
	KUNIT_EXPECT_EQ(test, txrdma_quota_charge_all(&q, n), -EDQUOT);
	KUNIT_EXPECT_EQ(test, q.used[TXRDMA_RES_QPS], 2ULL);
	KUNIT_EXPECT_EQ(test, q.used[TXRDMA_RES_ENDPOINTS], 2ULL);
	KUNIT_EXPECT_EQ(test, q.used[TXRDMA_RES_PINNED], 8192ULL);
	KUNIT_EXPECT_EQ(test, q.used[TXRDMA_RES_LISTENERS], 2ULL);
	KUNIT_EXPECT_EQ(test, q.refused[TXRDMA_RES_PINNED], 1ULL);
	KUNIT_EXPECT_EQ(test, q.refused[TXRDMA_RES_QPS], 0ULL);
	KUNIT_EXPECT_EQ(test, q.refused[TXRDMA_RES_LISTENERS], 0ULL);

	/* the last resource is checked too: a full listener quota */
	txrdma_quota_set_limit(&q, TXRDMA_RES_PINNED, U64_MAX);
	txrdma_quota_set_limit(&q, TXRDMA_RES_LISTENERS, 2);
	KUNIT_EXPECT_EQ(test, txrdma_quota_charge_all(&q, n), -EDQUOT);
	KUNIT_EXPECT_EQ(test, q.refused[TXRDMA_RES_LISTENERS], 1ULL);
	KUNIT_EXPECT_EQ(test, q.used[TXRDMA_RES_QPS], 2ULL);
	KUNIT_EXPECT_EQ(test, q.used[TXRDMA_RES_PINNED], 8192ULL);
	/* and a resource not asked for is not checked: 0 listeners fit */
	n[TXRDMA_RES_LISTENERS] = 0;
	KUNIT_EXPECT_EQ(test, txrdma_quota_charge_all(&q, n), 0);
	KUNIT_EXPECT_EQ(test, q.used[TXRDMA_RES_LISTENERS], 2ULL);
	KUNIT_EXPECT_EQ(test, q.used[TXRDMA_RES_QPS], 3ULL);
}

/* Every resource has its own name, as netlink and the admin tool show. */
static void quota_res_names(struct kunit *test)
{
	int r, s;

	KUNIT_EXPECT_STREQ(test, txrdma_res_name(TXRDMA_RES_QPS), "qps");
	KUNIT_EXPECT_STREQ(test, txrdma_res_name(TXRDMA_RES_ENDPOINTS),
			   "endpoints");
	KUNIT_EXPECT_STREQ(test, txrdma_res_name(TXRDMA_RES_PINNED), "pinned");
	KUNIT_EXPECT_STREQ(test, txrdma_res_name(TXRDMA_RES_LISTENERS),
			   "listeners");
	KUNIT_EXPECT_EQ(test, TXRDMA_NR_RES, 4);
	for (r = 0; r < TXRDMA_NR_RES; r++) {
		KUNIT_ASSERT_NOT_NULL(test, txrdma_res_name(r));
		KUNIT_EXPECT_STRNEQ(test, txrdma_res_name(r), "unknown");
		for (s = 0; s < r; s++)
			KUNIT_EXPECT_STRNEQ(test, txrdma_res_name(r),
					    txrdma_res_name(s));
	}
	KUNIT_EXPECT_STREQ(test, txrdma_res_name(TXRDMA_NR_RES), "unknown");
}

static void quota_lower_below_use(struct kunit *test)
{
	struct txrdma_quota q;

	txrdma_quota_init(&q);
	txrdma_quota_set_limit(&q, TXRDMA_RES_ENDPOINTS, 5);
	txrdma_quota_charge(&q, TXRDMA_RES_ENDPOINTS, 3);
	/* lowering below use is reported and keeps what is in use */
	KUNIT_EXPECT_TRUE(test, txrdma_quota_set_limit(&q, TXRDMA_RES_ENDPOINTS,
						       2));
	KUNIT_EXPECT_EQ(test, q.used[TXRDMA_RES_ENDPOINTS], 3ULL);
	KUNIT_EXPECT_EQ(test, txrdma_quota_charge(&q, TXRDMA_RES_ENDPOINTS, 1),
			-EDQUOT);
	/* after releases below the limit, charges fit again */
	txrdma_quota_uncharge(&q, TXRDMA_RES_ENDPOINTS, 2);
	KUNIT_EXPECT_EQ(test, txrdma_quota_charge(&q, TXRDMA_RES_ENDPOINTS, 1),
			0);
	KUNIT_EXPECT_FALSE(test, txrdma_quota_set_limit(&q,
							TXRDMA_RES_ENDPOINTS,
							2));
}

static void quota_bad_input(struct kunit *test)
{
	struct txrdma_quota q;

	txrdma_quota_init(&q);
	KUNIT_EXPECT_EQ(test, txrdma_quota_charge(&q, TXRDMA_NR_RES, 1),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, txrdma_quota_uncharge(&q, TXRDMA_NR_RES, 1),
			-EINVAL);
	/* giving back more than taken clamps at 0 and says so */
	txrdma_quota_charge(&q, TXRDMA_RES_QPS, 2);
	KUNIT_EXPECT_EQ(test, txrdma_quota_uncharge(&q, TXRDMA_RES_QPS, 3),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, q.used[TXRDMA_RES_QPS], 0ULL);
	KUNIT_EXPECT_STREQ(test, txrdma_res_name(TXRDMA_RES_PINNED), "pinned");
	KUNIT_EXPECT_STREQ(test, txrdma_res_name(TXRDMA_NR_RES), "unknown");
}

static struct kunit_case txrdma_quota_cases[] = {
	KUNIT_CASE(quota_starts_unlimited),
	KUNIT_CASE(quota_limit_is_exact),
	KUNIT_CASE(quota_bytes_exact),
	KUNIT_CASE(quota_no_wrap),
	KUNIT_CASE(quota_charge_all_is_atomic),
	KUNIT_CASE(quota_lower_below_use),
	KUNIT_CASE(quota_bad_input),
	KUNIT_CASE(quota_res_names),
	{}
};

static struct kunit_suite txrdma_quota_suite = {
	.name = "txrdma_quota",
	.test_cases = txrdma_quota_cases,
};

kunit_test_suite(txrdma_quota_suite);

MODULE_LICENSE("GPL");
