// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Host tests of txkv's history checker (kv_history.c): serializable
 * histories pass, and each kind of violation is caught and named: a
 * lost update, a write over a version never committed, a replica that
 * holds more or less than what committed, a cycle of precedence, an
 * order against real time.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "../kv_history.h"

/* records 0..7 of shard 0; first version 2, final as set by the test */
static uint64_t finals[8];

static uint64_t first_v(void *ctx, uint32_t shard, uint32_t index)
{
	(void)ctx;
	(void)shard;
	(void)index;
	return 2;
}

static uint64_t final_v(void *ctx, uint32_t shard, uint32_t index)
{
	(void)ctx;
	(void)shard;
	return finals[index];
}

static void add(struct kv_history *h, uint64_t start, uint64_t end,
		uint32_t r0, uint64_t v0, int r1, uint64_t v1)
{
	struct kv_hist_write w[2] = { { 0, r0, v0 }, { 0, (uint32_t)r1, v1 } };

	TAP_CHECK_INT(kv_hist_add(h, start, end, w, r1 < 0 ? 1 : 2), 0);
}

static int check(struct kv_history *h, const char *want)
{
	char why[256];
	int ret = kv_hist_check(h, first_v, final_v, NULL, why, sizeof(why));

	tap_diag("%s", why);
	if (want)
		TAP_CHECK(strstr(why, want) != NULL);
	return ret;
}

static void test_serializable(void)
{
	struct kv_history *h;
	unsigned int i;

	TAP_CHECK_INT(kv_hist_new(&h), 0);
	/* overlapping in time, chained by versions: fine */
	add(h, 0, 10, 0, 2, 1, 2);
	add(h, 5, 20, 0, 4, -1, 0);
	add(h, 15, 30, 1, 4, 0, 6);
	add(h, 40, 50, 2, 2, -1, 0);
	finals[0] = 8;
	finals[1] = 6;
	finals[2] = 4;
	TAP_CHECK_INT(check(h, "strictly serializable"), 0);
	TAP_CHECK_INT(kv_hist_count(h), 4);
	/* bad input changes nothing */
	TAP_CHECK_INT(kv_hist_add(h, 9, 8, (struct kv_hist_write[1]){ 0 }, 1),
		      -EINVAL);
	TAP_CHECK_INT(kv_hist_add(h, 1, 2, NULL, 1), -EINVAL);
	TAP_CHECK_INT(kv_hist_count(h), 4);
	kv_hist_free(h);

	/* a long serial history, added out of order */
	TAP_CHECK_INT(kv_hist_new(&h), 0);
	for (i = 1000; i-- > 0;)
		add(h, 10 * i, 10 * i + 5, i % 8, 2 + 2 * (i / 8), -1, 0);
	for (i = 0; i < 8; i++)
		finals[i] = 2 + 2 * 125;
	TAP_CHECK_INT(check(h, NULL), 0);
	kv_hist_free(h);
}

static void test_violations(void)
{
	struct kv_history *h;

	/* two commits from one read of record 0 */
	TAP_CHECK_INT(kv_hist_new(&h), 0);
	add(h, 0, 10, 0, 2, -1, 0);
	add(h, 0, 10, 0, 2, -1, 0);
	finals[0] = 6;
	TAP_CHECK_INT(check(h, "lost update"), -EPROTO);
	kv_hist_free(h);

	/* a write over version 4, which no commit made */
	TAP_CHECK_INT(kv_hist_new(&h), 0);
	add(h, 0, 10, 0, 4, -1, 0);
	finals[0] = 6;
	TAP_CHECK_INT(check(h, "never committed"), -EPROTO);
	kv_hist_free(h);

	/* the replica holds a write no client saw commit, or lost one */
	TAP_CHECK_INT(kv_hist_new(&h), 0);
	add(h, 0, 10, 0, 2, -1, 0);
	finals[0] = 6;
	TAP_CHECK_INT(check(h, "replica holds version 6"), -EPROTO);
	finals[0] = 2;
	TAP_CHECK_INT(check(h, "replica holds version 2"), -EPROTO);
	finals[0] = 4;
	TAP_CHECK_INT(check(h, NULL), 0);
	kv_hist_free(h);

	/* A before B on record 0, B before A on record 1 */
	TAP_CHECK_INT(kv_hist_new(&h), 0);
	add(h, 0, 10, 0, 2, 1, 4);
	add(h, 0, 10, 1, 2, 0, 4);
	finals[0] = 6;
	finals[1] = 6;
	TAP_CHECK_INT(check(h, "cycle"), -EPROTO);
	kv_hist_free(h);

	/* B began after A ended, yet A wrote over B's version */
	TAP_CHECK_INT(kv_hist_new(&h), 0);
	add(h, 0, 10, 0, 4, -1, 0);	/* A */
	add(h, 20, 30, 0, 2, -1, 0);	/* B */
	finals[0] = 6;
	TAP_CHECK_INT(check(h, "real-time"), -EPROTO);
	kv_hist_free(h);

	/* the same through a chain: B -> C on record 1, C -> A on 0 */
	TAP_CHECK_INT(kv_hist_new(&h), 0);
	add(h, 0, 10, 0, 4, -1, 0);	/* A */
	add(h, 20, 30, 1, 2, -1, 0);	/* B */
	add(h, 5, 40, 1, 4, 0, 2);	/* C: overlaps both */
	finals[0] = 6;
	finals[1] = 6;
	TAP_CHECK_INT(check(h, "real-time"), -EPROTO);
	kv_hist_free(h);
}

static const struct tap_test tests[] = {
	TAP_TEST(test_serializable, "serializable histories pass, concurrent or serial, any order added"),
	TAP_TEST(test_violations, "lost update, unseen version, replica drift, cycle, real-time order: each caught"),
};

int main(void)
{
	return TAP_MAIN(tests);
}
