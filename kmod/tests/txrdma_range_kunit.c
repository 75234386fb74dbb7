// SPDX-License-Identifier: GPL-2.0-only
/* KUnit: byte-range arithmetic of exports and rings (txrdma_range.h). */
#include <kunit/test.h>
#include <linux/limits.h>

#include "../txrdma_range.h"

static void range_valid_edges(struct kunit *test)
{
	KUNIT_EXPECT_FALSE(test, txrdma_range_valid(0, 0));
	KUNIT_EXPECT_TRUE(test, txrdma_range_valid(0, 1));
	KUNIT_EXPECT_TRUE(test, txrdma_range_valid(0, U64_MAX));
	/* the last byte is U64_MAX: allowed; one more wraps */
	KUNIT_EXPECT_TRUE(test, txrdma_range_valid(U64_MAX, 1));
	KUNIT_EXPECT_FALSE(test, txrdma_range_valid(U64_MAX, 2));
	KUNIT_EXPECT_TRUE(test, txrdma_range_valid(1, U64_MAX));
	KUNIT_EXPECT_FALSE(test, txrdma_range_valid(2, U64_MAX));
	KUNIT_EXPECT_FALSE(test, txrdma_range_valid(U64_MAX - 2, 4));
}

static void range_overlap_cases(struct kunit *test)
{
	/* touching is not overlapping */
	KUNIT_EXPECT_FALSE(test, txrdma_range_overlap(0, 64, 64, 64));
	KUNIT_EXPECT_FALSE(test, txrdma_range_overlap(64, 64, 0, 64));
	KUNIT_EXPECT_TRUE(test, txrdma_range_overlap(0, 65, 64, 64));
	KUNIT_EXPECT_TRUE(test, txrdma_range_overlap(64, 64, 0, 65));
	/* containment either way, and equality */
	KUNIT_EXPECT_TRUE(test, txrdma_range_overlap(0, 4096, 100, 1));
	KUNIT_EXPECT_TRUE(test, txrdma_range_overlap(100, 1, 0, 4096));
	KUNIT_EXPECT_TRUE(test, txrdma_range_overlap(7, 9, 7, 9));
	/* ranges that end at U64_MAX, where off + len would wrap to 0 */
	KUNIT_EXPECT_TRUE(test, txrdma_range_overlap(U64_MAX, 1, 1, U64_MAX));
	/* [0, U64_MAX) ends one byte short of U64_MAX */
	KUNIT_EXPECT_FALSE(test, txrdma_range_overlap(U64_MAX, 1, 0, U64_MAX));
	KUNIT_EXPECT_TRUE(test, txrdma_range_overlap(U64_MAX - 1, 2,
						     U64_MAX, 1));
	KUNIT_EXPECT_FALSE(test, txrdma_range_overlap(0, 1, U64_MAX, 1));
}

static void range_within_cases(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, txrdma_range_within(100, 10, 100, 10));
	KUNIT_EXPECT_TRUE(test, txrdma_range_within(105, 5, 100, 10));
	/* a byte before, a byte after */
	KUNIT_EXPECT_FALSE(test, txrdma_range_within(99, 10, 100, 10));
	KUNIT_EXPECT_FALSE(test, txrdma_range_within(101, 10, 100, 10));
	KUNIT_EXPECT_FALSE(test, txrdma_range_within(100, 11, 100, 10));
	/* empty at the end: within; past the end: not */
	KUNIT_EXPECT_TRUE(test, txrdma_range_within(110, 0, 100, 10));
	KUNIT_EXPECT_FALSE(test, txrdma_range_within(111, 0, 100, 10));
	/* lengths that would wrap a sum */
	KUNIT_EXPECT_FALSE(test, txrdma_range_within(105, U32_MAX, 100, 10));
	KUNIT_EXPECT_FALSE(test, txrdma_range_within(U64_MAX, 2, 0,
						     U64_MAX));
	KUNIT_EXPECT_TRUE(test, txrdma_range_within(U64_MAX - 1, 1, 0,
						    U64_MAX));
	KUNIT_EXPECT_FALSE(test, txrdma_range_within(0, 1, 1, U64_MAX - 1));
}

static struct kunit_case txrdma_range_cases[] = {
	KUNIT_CASE(range_valid_edges),
	KUNIT_CASE(range_overlap_cases),
	KUNIT_CASE(range_within_cases),
	{}
};

static struct kunit_suite txrdma_range_suite = {
	.name = "txrdma_range",
	.test_cases = txrdma_range_cases,
};

kunit_test_suite(txrdma_range_suite);
