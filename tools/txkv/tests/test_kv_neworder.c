// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Host tests of txkv's new-order workload (kv_neworder.c) run against
 * real shards (kv_shard.c): orders planned across shards, read,
 * prepared in interleaved batches (so that they conflict), committed
 * or aborted by their votes, and the final records checked against
 * the client's tally; and that the check catches an order lost or
 * applied against its outcome.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <txn_vrec.h>

#include "tap.h"
#include "../kv_history.h"
#include "../kv_neworder.h"

#define NSHARD	2
#define BATCH	8

static const struct kv_no_cfg cfg = { .nshard = NSHARD, .ndist = 10,
				      .nitem = 200 };

struct db {
	struct kv_shard *s[NSHARD];
	void *table[NSHARD];
};

static uint8_t cmd[1 << 14];
static uint64_t seq;

static int apply(struct db *db, uint32_t shard, uint8_t op,
		 const struct txn_id *id, const struct kv_write *w,
		 unsigned int nw)
{
	size_t n = kv_cmd_build(cmd, sizeof(cmd), op, id, w, nw);

	TAP_CHECK(n > 0);
	return kv_shard_apply(db->s[shard], cmd, n);
}

static void db_open(struct db *db)
{
	uint32_t nrec = kv_no_nrec(&cfg), sh, idx, n, len;
	size_t size = txn_vrec_table_size(KV_NO_CAP, nrec);
	uint8_t val[KV_NO_CAP];
	unsigned int k;

	for (sh = 0; sh < NSHARD; sh++) {
		db->table[sh] = aligned_alloc(64, (size + 63) & ~(size_t)63);
		TAP_CHECK_INT(kv_shard_new(&db->s[sh], db->table[sh], size,
					   KV_NO_CAP, nrec, 64), 0);
	}
	/* load: one PUT per record */
	for (k = KV_NO_DISTRICT; k <= KV_NO_STOCK; k++) {
		uint32_t count = k == KV_NO_DISTRICT ? cfg.ndist : cfg.nitem;

		for (n = 0; n < count; n++) {
			struct txn_id id = { 1, 1, ++seq };
			struct kv_write w;

			kv_no_initial(&cfg, k, n, val, &len);
			kv_no_where(&cfg, k, n, &sh, &idx);
			w = (struct kv_write){ idx, len, 0, val };
			TAP_CHECK_INT(apply(db, sh, KV_OP_PUT, &id, &w, 1),
				      KV_YES);
		}
	}
}

static void db_close(struct db *db)
{
	uint32_t sh;

	for (sh = 0; sh < NSHARD; sh++) {
		kv_shard_free(db->s[sh]);
		free(db->table[sh]);
	}
}

static void get(struct db *db, enum kv_no_kind k, uint32_t n,
		uint64_t *ver, const void **v, uint32_t *len)
{
	uint32_t sh, idx;

	kv_no_where(&cfg, k, n, &sh, &idx);
	TAP_CHECK_INT(kv_shard_get(db->s[sh], idx, ver, v, len), 0);
}

/* what a coordinator reads one-sided before it prepares */
static void read_order(struct db *db, const struct kv_no_plan *p,
		       struct kv_no_seen *seen)
{
	const void *v;
	uint64_t ver;
	uint32_t len;
	unsigned int i;

	get(db, KV_NO_DISTRICT, p->district, &seen->dist_ver, &v, &len);
	TAP_CHECK_INT(kv_no_get_district(v, len, &seen->dist), 0);
	for (i = 0; i < KV_NO_LINES; i++) {
		get(db, KV_NO_ITEM, p->item[i], &ver, &v, &len);
		TAP_CHECK_INT(kv_no_get_item(v, len, &seen->item[i]), 0);
		get(db, KV_NO_STOCK, p->item[i], &seen->stock_ver[i], &v,
		    &len);
		TAP_CHECK_INT(kv_no_get_stock(v, len, &seen->stock[i]), 0);
	}
}

static struct db *hist_db;

static uint64_t v_load(void *ctx, uint32_t shard, uint32_t index)
{
	(void)ctx;
	(void)shard;
	(void)index;
	return 2;
}

static uint64_t v_final(void *ctx, uint32_t shard, uint32_t index)
{
	const void *v;
	uint64_t ver = 0;
	uint32_t len;

	(void)ctx;
	kv_shard_get(hist_db->s[shard], index, &ver, &v, &len);
	return ver;
}

/* a committed order's writes, each from the version it read */
static void hist_commit(struct kv_history *h, const struct kv_no_plan *p,
			const struct kv_no_seen *seen, uint64_t start,
			uint64_t end)
{
	struct kv_hist_write w[KV_NO_LINES + 1];
	unsigned int nw = kv_no_hist_writes(&cfg, p, seen, w);

	TAP_CHECK_INT(kv_hist_add(h, start, end, w, nw), 0);
}

/* check every record against @t: the number that disagree */
static unsigned int check_all(struct db *db, const struct kv_no_tally *t)
{
	char why[160];
	unsigned int bad = kv_no_check_shards(t,
		(const struct kv_shard *const *)db->s, why, sizeof(why));

	if (bad)
		tap_diag("%s", why);
	return bad;
}

static void test_plan(void)
{
	struct kv_no_plan p;
	uint64_t rng = 1;
	unsigned int i, j, k;
	uint32_t sh0, sh1, idx;

	for (i = 0; i < 10000; i++) {
		kv_no_plan(&cfg, &rng, &p);
		TAP_CHECK(p.district < cfg.ndist);
		kv_no_where(&cfg, KV_NO_STOCK, p.item[0], &sh0, &idx);
		kv_no_where(&cfg, KV_NO_STOCK, p.item[1], &sh1, &idx);
		TAP_CHECK(sh0 != sh1);		/* always distributed */
		for (j = 0; j < KV_NO_LINES; j++) {
			TAP_CHECK(p.item[j] < cfg.nitem);
			TAP_CHECK(p.qty[j] >= 1 && p.qty[j] <= 10);
			for (k = 0; k < j; k++)
				TAP_CHECK(p.item[k] != p.item[j]);
		}
	}
	/* records land inside their shard's table, each index once */
	{
		uint32_t nrec = kv_no_nrec(&cfg);
		uint8_t *used = calloc(NSHARD * nrec, 1);

		for (k = KV_NO_DISTRICT; k <= KV_NO_STOCK; k++) {
			uint32_t count = k == KV_NO_DISTRICT ? cfg.ndist :
				cfg.nitem;

			for (j = 0; j < count; j++) {
				kv_no_where(&cfg, k, j, &sh0, &idx);
				TAP_CHECK(sh0 < NSHARD && idx < nrec);
				TAP_CHECK(!used[sh0 * nrec + idx]++);
			}
		}
		free(used);
	}
}

static void test_orders(void)
{
	struct kv_no_plan p[BATCH];
	struct kv_no_seen seen[BATCH];
	struct kv_write w[KV_NO_LINES + 1];
	uint8_t vals[(KV_NO_LINES + 1) * KV_NO_CAP];
	struct kv_no_tally t;
	struct kv_history *h;
	char why[256];
	struct db db;
	uint64_t rng = 7, amount, aborted = 0;
	unsigned int round, i;
	uint32_t sh;

	db_open(&db);
	hist_db = &db;
	TAP_CHECK_INT(kv_hist_new(&h), 0);
	TAP_CHECK_INT(kv_no_tally_init(&t, &cfg), 0);
	TAP_CHECK_INT(check_all(&db, &t), 0);
	for (round = 0; round < 500; round++) {
		bool yes[BATCH];
		struct txn_id id[BATCH];

		/* a batch read at once, then prepared: some conflict */
		for (i = 0; i < BATCH; i++) {
			kv_no_plan(&cfg, &rng, &p[i]);
			read_order(&db, &p[i], &seen[i]);
			id[i] = (struct txn_id){ 2, 1, ++seq };
			yes[i] = true;
		}
		for (i = 0; i < BATCH; i++) {
			for (sh = 0; sh < NSHARD; sh++) {
				unsigned int n = kv_no_writes(&cfg, &p[i],
							      &seen[i], sh, w,
							      vals, &amount);

				if (n && apply(&db, sh, KV_OP_PREPARE, &id[i],
					       w, n) != KV_YES)
					yes[i] = false;
			}
		}
		/* decisions, in another order than the prepares */
		for (i = BATCH; i-- > 0;) {
			for (sh = 0; sh < NSHARD; sh++)
				apply(&db, sh, yes[i] ? KV_OP_COMMIT :
				      KV_OP_ABORT, &id[i], NULL, 0);
			if (yes[i]) {
				kv_no_tally_commit(&t, &p[i]);
				/* a batch overlaps in time; batches do not */
				hist_commit(h, &p[i], &seen[i], 10 * round,
					    10 * round + 5);
			} else {
				aborted++;
			}
		}
	}
	tap_diag("%llu orders committed, %llu aborted by conflicts",
		 (unsigned long long)t.committed, (unsigned long long)aborted);
	TAP_CHECK(t.committed > 1000 && aborted > 100);
	TAP_CHECK_INT(check_all(&db, &t), 0);
	TAP_CHECK_INT(kv_hist_check(h, v_load, v_final, NULL, why,
				    sizeof(why)), 0);
	tap_diag("history: %s", why);
	for (sh = 0; sh < NSHARD; sh++)
		for (i = 0; i < kv_no_nrec(&cfg); i++)
			TAP_CHECK(!kv_shard_locked(db.s[sh], i, NULL));

	/* the check sees a committed order lost... */
	t.item_qty[p[0].item[0]] += 1;
	TAP_CHECK(check_all(&db, &t) > 0);
	t.item_qty[p[0].item[0]] -= 1;
	t.dist_orders[3]++;
	TAP_CHECK(check_all(&db, &t) > 0);
	t.dist_orders[3]--;
	TAP_CHECK_INT(check_all(&db, &t), 0);

	/* ...and one applied on one shard only */
	kv_no_plan(&cfg, &rng, &p[0]);
	read_order(&db, &p[0], &seen[0]);
	{
		struct txn_id x = { 2, 1, ++seq };
		unsigned int n = kv_no_writes(&cfg, &p[0], &seen[0], 0, w,
					      vals, &amount);

		TAP_CHECK_INT(apply(&db, 0, KV_OP_PUT, &x, w, n), KV_YES);
	}
	TAP_CHECK(check_all(&db, &t) > 0);
	/* the history sees that write too: no commit made it */
	TAP_CHECK_INT(kv_hist_check(h, v_load, v_final, NULL, why,
				    sizeof(why)), -EPROTO);
	tap_diag("after a write no client saw commit: %s", why);
	kv_hist_free(h);
	kv_no_tally_free(&t);
	db_close(&db);
}

static const struct tap_test tests[] = {
	TAP_TEST(test_plan, "orders span two shards, distinct items, records placed once"),
	TAP_TEST(test_orders, "4,000 orders on two shards: the records agree with the committed ones"),
};

int main(void)
{
	return TAP_MAIN(tests);
}
