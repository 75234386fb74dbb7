// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Host tests of txkv's shard state machine (kv_shard.c): commands built
 * and checked, votes, locks, atomic commits, late and repeated
 * commands, and that replicas agree byte for byte, through snapshots
 * too.  Run under ASan and UBSan by `make check`.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <txn_vrec.h>

#include "tap.h"
#include "../kv_shard.h"

#define CAP	64
#define NREC	32
#define MAXP	8

struct shard {
	struct kv_shard *s;
	void *table;
	size_t size;
};

static void shard_open(struct shard *sh)
{
	sh->size = txn_vrec_table_size(CAP, NREC);
	sh->table = aligned_alloc(64, (sh->size + 63) & ~(size_t)63);
	TAP_CHECK(sh->table);
	TAP_CHECK_INT(kv_shard_new(&sh->s, sh->table, sh->size, CAP, NREC,
				   MAXP), 0);
}

static void shard_close(struct shard *sh)
{
	kv_shard_free(sh->s);
	free(sh->table);
}

static uint8_t cmdbuf[1 << 16];

/* apply op on @id with writes (index, expect, value string) */
static int run(struct shard *sh, uint8_t op, uint64_t seq,
	       const struct kv_write *w, unsigned int nw)
{
	struct txn_id id = { 7, 1, seq };
	size_t n = kv_cmd_build(cmdbuf, sizeof(cmdbuf), op, &id, w, nw);

	TAP_CHECK(n > 0);
	return kv_shard_apply(sh->s, cmdbuf, n);
}

#define W(i, e, str) { (i), (uint32_t)strlen(str), (e), (str) }

static uint64_t ver(struct shard *sh, uint32_t i)
{
	const void *v;
	uint64_t version = 0;
	uint32_t len;

	TAP_CHECK_INT(kv_shard_get(sh->s, i, &version, &v, &len), 0);
	return version;
}

static bool val_is(struct shard *sh, uint32_t i, const char *str)
{
	const void *v;
	uint64_t version;
	uint32_t len;

	return !kv_shard_get(sh->s, i, &version, &v, &len) &&
	       len == strlen(str) && !memcmp(v, str, len);
}

static void test_cmd_format(void)
{
	struct kv_write w[2] = { W(3, 0, "abc"), W(5, 2, "12345678") };
	struct txn_id id = { 1, 2, 3 };
	struct kv_cmd_write cw;
	struct kv_cmd_hdr h;
	const void *v;
	uint8_t b[256];
	size_t n;

	n = kv_cmd_build(b, sizeof(b), KV_OP_PREPARE, &id, w, 2);
	TAP_CHECK_INT(n, 24 + 16 + 8 + 16 + 8);
	TAP_CHECK_INT(kv_cmd_size(w, 2), n);
	TAP_CHECK_INT(kv_cmd_check(b, n, NREC, CAP, &h), 0);
	TAP_CHECK(h.op == KV_OP_PREPARE && h.nw == 2 && h.coord == 1 &&
		  h.epoch == 2 && h.seq == 3);
	kv_cmd_write_at(b, 1, &cw, &v);
	TAP_CHECK(cw.index == 5 && cw.len == 8 && cw.expect == 2 &&
		  !memcmp(v, "12345678", 8));
	/* what cannot be built */
	TAP_CHECK_INT(kv_cmd_build(b, n - 1, KV_OP_PREPARE, &id, w, 2), 0);
	TAP_CHECK_INT(kv_cmd_build(b, sizeof(b), KV_OP_COMMIT, &id, w, 2), 0);
	TAP_CHECK_INT(kv_cmd_build(b, sizeof(b), KV_OP_PUT, &id, w, 0), 0);
	TAP_CHECK_INT(kv_cmd_build(b, sizeof(b), 9, &id, w, 1), 0);
	TAP_CHECK_INT(kv_cmd_build(b, sizeof(b), KV_OP_PUT, &id, w,
				   KV_MAX_WRITES + 1), 0);
	/* what a reader refuses: every byte is checked */
	n = kv_cmd_build(b, sizeof(b), KV_OP_PREPARE, &id, w, 2);
	TAP_CHECK_INT(kv_cmd_check(b, n - 8, NREC, CAP, NULL), -EINVAL);
	TAP_CHECK_INT(kv_cmd_check(b, n, 5, CAP, NULL), -EINVAL);
	TAP_CHECK_INT(kv_cmd_check(b, n, NREC, 7, NULL), -EINVAL);
	b[1] = 1;				/* resv */
	TAP_CHECK_INT(kv_cmd_check(b, n, NREC, CAP, NULL), -EINVAL);
	b[1] = 0;
	b[24 + 16 + 3] = 'x';			/* padding after "abc" */
	TAP_CHECK_INT(kv_cmd_check(b, n, NREC, CAP, NULL), -EINVAL);
	b[24 + 16 + 3] = 0;
	b[4]++;					/* length field */
	TAP_CHECK_INT(kv_cmd_check(b, n, NREC, CAP, NULL), -EINVAL);
	b[4]--;
	TAP_CHECK_INT(kv_cmd_check(b, n, NREC, CAP, NULL), 0);
	w[1].index = 3;				/* a record twice */
	n = kv_cmd_build(b, sizeof(b), KV_OP_PREPARE, &id, w, 2);
	TAP_CHECK_INT(kv_cmd_check(b, n, NREC, CAP, NULL), -EINVAL);
	n = kv_cmd_build(b, sizeof(b), KV_OP_COMMIT, &id, NULL, 0);
	TAP_CHECK_INT(n, 24);
	TAP_CHECK_INT(kv_cmd_check(b, n, NREC, CAP, &h), 0);
	b[2] = 1;				/* COMMIT with a write */
	TAP_CHECK_INT(kv_cmd_check(b, n, NREC, CAP, NULL), -EINVAL);
}

static void test_prepare_commit(void)
{
	struct kv_write w[2] = { W(1, 0, "one"), W(2, 0, "two") };
	struct shard sh;
	struct txn_id who;

	shard_open(&sh);
	TAP_CHECK_INT(run(&sh, KV_OP_PUT, 0, w, 2), KV_YES);
	TAP_CHECK(ver(&sh, 1) == 2 && ver(&sh, 2) == 2);
	TAP_CHECK(val_is(&sh, 1, "one") && val_is(&sh, 2, "two"));

	/* PREPARE against the versions read: locked, nothing written */
	w[0] = (struct kv_write)W(1, 2, "uno");
	w[1] = (struct kv_write)W(2, 2, "dos");
	TAP_CHECK_INT(run(&sh, KV_OP_PREPARE, 10, w, 2), KV_YES);
	TAP_CHECK(kv_shard_locked(sh.s, 1, &who) && who.seq == 10);
	TAP_CHECK(kv_shard_locked(sh.s, 2, NULL));
	TAP_CHECK(!kv_shard_locked(sh.s, 3, NULL));
	TAP_CHECK(val_is(&sh, 1, "one") && ver(&sh, 1) == 2);
	/* a retry gets the same vote and takes nothing more */
	TAP_CHECK_INT(run(&sh, KV_OP_PREPARE, 10, w, 2), KV_YES);
	/* another transaction on a locked record: no, and no lock taken */
	w[0] = (struct kv_write)W(3, 0, "tres");
	w[1] = (struct kv_write)W(2, 2, "zwei");
	TAP_CHECK_INT(run(&sh, KV_OP_PREPARE, 11, w, 2), KV_NO_LOCKED);
	TAP_CHECK(!kv_shard_locked(sh.s, 3, NULL));
	TAP_CHECK_INT(run(&sh, KV_OP_PUT, 12, w, 2), KV_NO_LOCKED);
	TAP_CHECK(ver(&sh, 3) == 0);

	/* COMMIT writes both, as one, and unlocks */
	TAP_CHECK_INT(run(&sh, KV_OP_COMMIT, 10, NULL, 0), KV_YES);
	TAP_CHECK(val_is(&sh, 1, "uno") && val_is(&sh, 2, "dos"));
	TAP_CHECK(ver(&sh, 1) == 4 && ver(&sh, 2) == 4);
	TAP_CHECK(!kv_shard_locked(sh.s, 1, NULL) &&
		  !kv_shard_locked(sh.s, 2, NULL));
	/* a repeated COMMIT changes nothing; a late PREPARE is refused */
	TAP_CHECK_INT(run(&sh, KV_OP_COMMIT, 10, NULL, 0), KV_UNKNOWN);
	TAP_CHECK(ver(&sh, 1) == 4);
	w[0] = (struct kv_write)W(1, 4, "late");
	TAP_CHECK_INT(run(&sh, KV_OP_PREPARE, 10, w, 1), KV_NO_DECIDED);
	TAP_CHECK(!kv_shard_locked(sh.s, 1, NULL));

	/* stale: the version read is no longer the record's */
	w[0] = (struct kv_write)W(1, 2, "old");
	TAP_CHECK_INT(run(&sh, KV_OP_PREPARE, 13, w, 1), KV_NO_STALE);
	TAP_CHECK_INT(run(&sh, KV_OP_PUT, 13, w, 1), KV_NO_STALE);
	TAP_CHECK(val_is(&sh, 1, "uno") && !kv_shard_locked(sh.s, 1, NULL));
	shard_close(&sh);
}

static void test_abort_and_full(void)
{
	struct kv_shard_stats st;
	struct kv_write w = W(0, 0, "x");
	struct shard sh;
	unsigned int i;

	shard_open(&sh);
	w.value = "v";
	w.len = 1;
	TAP_CHECK_INT(run(&sh, KV_OP_PREPARE, 1, &w, 1), KV_YES);
	TAP_CHECK_INT(run(&sh, KV_OP_ABORT, 1, NULL, 0), KV_YES);
	TAP_CHECK(!kv_shard_locked(sh.s, 0, NULL) && ver(&sh, 0) == 0);
	/* an ABORT that overtook its PREPARE refuses the PREPARE later */
	TAP_CHECK_INT(run(&sh, KV_OP_ABORT, 2, NULL, 0), KV_UNKNOWN);
	TAP_CHECK_INT(run(&sh, KV_OP_PREPARE, 2, &w, 1), KV_NO_DECIDED);
	TAP_CHECK(!kv_shard_locked(sh.s, 0, NULL));
	/* at most MAXP prepared: the next is refused and locks nothing */
	for (i = 0; i < MAXP; i++) {
		w.index = i;
		TAP_CHECK_INT(run(&sh, KV_OP_PREPARE, 100 + i, &w, 1), KV_YES);
	}
	w.index = MAXP;
	TAP_CHECK_INT(run(&sh, KV_OP_PREPARE, 200, &w, 1), KV_NO_FULL);
	TAP_CHECK(!kv_shard_locked(sh.s, MAXP, NULL));
	TAP_CHECK_INT(run(&sh, KV_OP_COMMIT, 103, NULL, 0), KV_YES);
	TAP_CHECK_INT(run(&sh, KV_OP_PREPARE, 200, &w, 1), KV_YES);
	/* a malformed command is counted and changes nothing */
	memset(cmdbuf, 0xff, 64);
	TAP_CHECK_INT(kv_shard_apply(sh.s, cmdbuf, 64), KV_MALFORMED);
	kv_shard_stats(sh.s, &st);
	TAP_CHECK_INT(st.res[KV_MALFORMED], 1);
	TAP_CHECK_INT(st.res[KV_NO_FULL], 1);
	TAP_CHECK_INT(st.res[KV_NO_DECIDED], 1);
	TAP_CHECK_INT(st.writes, 1);
	shard_close(&sh);
}

struct walk {
	uint64_t seq[MAXP];
	unsigned int n;
};

static void walk_fn(void *ctx, const struct txn_id *id)
{
	struct walk *wk = ctx;

	if (wk->n < MAXP)
		wk->seq[wk->n++] = id->seq;
}

static void test_prepared_walk(void)
{
	struct kv_write w = { 0, 1, 0, "p" };
	struct walk wk = { .n = 0 };
	struct shard sh;

	shard_open(&sh);
	w.index = 4;
	TAP_CHECK_INT(run(&sh, KV_OP_PREPARE, 40, &w, 1), KV_YES);
	w.index = 5;
	TAP_CHECK_INT(run(&sh, KV_OP_PREPARE, 50, &w, 1), KV_YES);
	w.index = 6;
	TAP_CHECK_INT(run(&sh, KV_OP_PREPARE, 60, &w, 1), KV_YES);
	TAP_CHECK_INT(run(&sh, KV_OP_ABORT, 40, NULL, 0), KV_YES);
	w.index = 7;	/* takes the freed slot, prepared last */
	TAP_CHECK_INT(run(&sh, KV_OP_PREPARE, 70, &w, 1), KV_YES);
	TAP_CHECK_INT(kv_shard_prepared(sh.s, walk_fn, &wk), 3);
	TAP_CHECK(wk.n == 3 && wk.seq[0] == 50 && wk.seq[1] == 60 &&
		  wk.seq[2] == 70);
	shard_close(&sh);
}

/* a random stream of commands over few records, many conflicts */
static size_t random_cmd(uint64_t *rng, uint8_t *b, size_t cap,
			 struct shard *ref)
{
	struct kv_write w[4];
	char vals[4][CAP];
	struct txn_id id;
	unsigned int nw, i, op;
	uint64_t r;

	*rng = *rng * 6364136223846793005ULL + 1442695040888963407ULL;
	r = *rng >> 16;
	op = r % 10;
	id = (struct txn_id){ 3, 1, (r >> 8) % 24 };
	if (op >= 8)
		return kv_cmd_build(b, cap, op == 8 ? KV_OP_COMMIT :
				    KV_OP_ABORT, &id, NULL, 0);
	nw = 1 + (r >> 16) % 4;
	for (i = 0; i < nw; i++) {
		uint32_t idx = (uint32_t)((r >> (20 + 4 * i)) % 6) + 6 * i;
		uint32_t len = (uint32_t)((r >> (36 + i)) % CAP);

		memset(vals[i], 'a' + (int)((r >> (40 + i)) % 26), len);
		w[i] = (struct kv_write){ idx, len, 0, vals[i] };
		/* half expect the version the reference shows now */
		if ((r >> (50 + i)) & 1)
			w[i].expect = ver(ref, idx);
	}
	return kv_cmd_build(b, cap, op < 5 ? KV_OP_PREPARE : KV_OP_PUT, &id,
			    w, nw);
}

static void test_replicas_agree(void)
{
	struct shard a, b, c;
	uint64_t rng = 42;
	unsigned int i, yes = 0, no = 0, restored = 0;
	void *snap = NULL;
	size_t snaplen = 0;

	shard_open(&a);
	shard_open(&b);
	shard_open(&c);
	for (i = 0; i < 20000; i++) {
		size_t n = random_cmd(&rng, cmdbuf, sizeof(cmdbuf), &a);
		int ra, rb;

		TAP_CHECK(n > 0);
		ra = kv_shard_apply(a.s, cmdbuf, n);
		rb = kv_shard_apply(b.s, cmdbuf, n);
		if (ra != rb) {
			TAP_CHECK_INT(ra, rb);
			break;
		}
		ra ? no++ : yes++;
		if (i == 7777) {
			TAP_CHECK_INT(kv_shard_snapshot(a.s, &snap, &snaplen),
				      0);
			TAP_CHECK_INT(kv_shard_restore(c.s, snap, snaplen), 0);
			restored = i;
		}
		if (restored && i > restored &&
		    kv_shard_apply(c.s, cmdbuf, n) != ra) {
			TAP_CHECK(!"the restored replica voted otherwise");
			break;
		}
	}
	tap_diag("%u yes, %u no", yes, no);
	TAP_CHECK(yes > 1000 && no > 1000);
	TAP_CHECK(!memcmp(a.table, b.table, a.size));
	TAP_CHECK(!memcmp(a.table, c.table, a.size));
	for (i = 0; i < NREC; i++) {
		struct txn_id x, y;
		bool la = kv_shard_locked(a.s, i, &x);

		TAP_CHECK(la == kv_shard_locked(c.s, i, &y));
		TAP_CHECK(!la || (x.seq == y.seq));
	}
	free(snap);
	shard_close(&a);
	shard_close(&b);
	shard_close(&c);
}

static void test_restore_refuses(void)
{
	struct kv_write w[2] = { W(1, 0, "one"), W(2, 0, "two") };
	struct shard a, b, c;
	uint8_t *snap, *bad;
	size_t len, i, refused = 0;
	uint8_t *before;

	shard_open(&a);
	shard_open(&b);
	TAP_CHECK_INT(run(&a, KV_OP_PUT, 0, w, 2), KV_YES);
	w[0].expect = 2;
	TAP_CHECK_INT(run(&a, KV_OP_PREPARE, 5, w, 1), KV_YES);
	TAP_CHECK_INT(run(&a, KV_OP_ABORT, 6, NULL, 0), KV_UNKNOWN);
	TAP_CHECK_INT(kv_shard_snapshot(a.s, (void **)&snap, &len), 0);
	/* b holds something of its own, which a refusal must keep */
	w[1] = (struct kv_write)W(9, 0, "mine");
	TAP_CHECK_INT(run(&b, KV_OP_PUT, 0, &w[1], 1), KV_YES);
	before = malloc(b.size);
	memcpy(before, b.table, b.size);
	bad = malloc(len);
	/* truncated anywhere */
	for (i = 0; i < len; i += 7)
		refused += kv_shard_restore(b.s, snap, i) == -EINVAL;
	TAP_CHECK_INT(refused, (len + 6) / 7);
	/* a flipped byte in a value: its record's CRC refuses it */
	memcpy(bad, snap, len);
	bad[32 + TXRDMA_VREC_TABLE_SLOT_OFF(CAP, 1) + TXRDMA_VREC_PAYLOAD_OFF] ^= 1;
	TAP_CHECK_INT(kv_shard_restore(b.s, bad, len), -EINVAL);
	TAP_CHECK(!memcmp(before, b.table, b.size));
	TAP_CHECK(val_is(&b, 9, "mine"));
	/* the real one restores: a's state, the late PREPARE refused */
	TAP_CHECK_INT(kv_shard_restore(b.s, snap, len), 0);
	TAP_CHECK(!memcmp(a.table, b.table, a.size));
	TAP_CHECK(kv_shard_locked(b.s, 1, NULL));
	TAP_CHECK_INT(run(&b, KV_OP_PREPARE, 6, &w[1], 1), KV_NO_DECIDED);
	TAP_CHECK_INT(run(&b, KV_OP_COMMIT, 5, NULL, 0), KV_YES);
	TAP_CHECK(val_is(&b, 1, "one") && ver(&b, 1) == 4);
	/*
	 * Flipped bytes (on a third shard: what is taken replaces its
	 * state): every header byte is refused
	 */
	shard_open(&c);
	/* any header byte, any prepared or decision byte flipped */
	refused = 0;
	for (i = 0; i < len; i++) {
		size_t tend = 32 + a.size;

		if (i >= 32 && i < tend)
			continue;	/* table bytes: below */
		memcpy(bad, snap, len);
		bad[i] ^= 0x80;
		if (kv_shard_restore(c.s, bad, len) == -EINVAL)
			refused++;
		else
			TAP_CHECK(i >= 32);	/* the header is all checked */
	}
	/* the rest are ids and values: any may be valid */
	tap_diag("%zu of %zu bytes outside the table refused", refused,
		 len - a.size);
	shard_close(&c);
	free(before);
	free(bad);
	free(snap);
	shard_close(&a);
	shard_close(&b);
}

static const struct tap_test tests[] = {
	TAP_TEST(test_cmd_format, "commands: built, read back, every bad byte refused"),
	TAP_TEST(test_prepare_commit, "PREPARE locks against the versions read, COMMIT writes all as one"),
	TAP_TEST(test_abort_and_full, "ABORT unlocks, late PREPAREs and a full set refused, malformed counted"),
	TAP_TEST(test_prepared_walk, "prepared transactions walked in prepare order"),
	TAP_TEST(test_replicas_agree, "replicas applying one log agree byte for byte, through a snapshot"),
	TAP_TEST(test_restore_refuses, "a damaged snapshot is refused and changes nothing"),
};

int main(void)
{
	return TAP_MAIN(tests);
}
