// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Transaction records on the wire (lib/txn/txn_wire.c), on the host
 * under ASan and UBSan:
 *  - every record type round-trips through a batch, byte for byte where
 *    the uapi pins the bytes (a PREPARE's layout checked by hand);
 *  - the writer refuses what the wire does not allow and what does not
 *    fit, and writes nothing then;
 *  - the reader refuses a batch that breaks any rule (each header field,
 *    each record rule, padding, lengths one off either way), whole;
 *  - random batches round-trip, and every single-byte change of one
 *    either reads back as a valid batch or is refused; truncations are
 *    refused; random bytes are refused or read without a fault.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../txn_wire.h"
#include "tap.h"

#define BUF	65536

static uint8_t buf[BUF];

static struct txn_rec rec(uint8_t type, uint64_t seq)
{
	struct txn_rec r = {
		.type	= type,
		.id	= { .coord = 7, .epoch = 3, .seq = seq },
	};

	if (type == TXRDMA_TXN_VOTE)
		r.flags = TXRDMA_TXN_F_YES;
	if (type == TXRDMA_TXN_ACK)
		r.arg = TXRDMA_TXN_COMMIT;
	return r;
}

static bool rec_eq(const struct txn_rec *a, const struct txn_rec *b)
{
	unsigned int i;

	if (a->type != b->type || a->flags != b->flags ||
	    a->nparts != b->nparts || a->id.coord != b->id.coord ||
	    a->id.epoch != b->id.epoch || a->id.seq != b->id.seq ||
	    a->arg != b->arg || a->data_len != b->data_len)
		return false;
	for (i = 0; i < a->nparts; i++)
		if (((const uint32_t *)a->parts)[i] != txn_rec_part(b, i))
			return false;
	return !a->data_len || !memcmp(a->data, b->data, a->data_len);
}

static void test_layout(void)
{
	static const uint32_t parts[] = { 0x11, 0x22 };
	struct txn_rec r = rec(TXRDMA_TXN_PREPARE, 0x0102030405060708ULL);
	static const uint8_t want[] = {
		0x54, 0x58, 0x4e, 0x31,	1, 0, 1, 0,	/* magic, version, count */
		48, 0, 0, 0,		0, 0, 0, 0,	/* len, resv */
		1, 0, 2, 0,		11, 0, 0, 0,	/* PREPARE, nparts, len */
		7, 0, 0, 0,		3, 0, 0, 0,	/* coord, epoch */
		8, 7, 6, 5, 4, 3, 2, 1,			/* seq */
		0, 0, 0, 0,		0, 0, 0, 0,	/* arg, resv */
		0x11, 0, 0, 0,		0x22, 0, 0, 0,	/* participants */
		'a', 'b', 'c', 0, 0, 0, 0, 0,		/* data, padding */
	};
	struct txn_writer w;
	size_t n;

	r.nparts = 2;
	r.parts = parts;
	r.data = "abc";
	r.data_len = 3;
	memset(buf, 0xa5, sizeof(buf));
	txn_writer_init(&w, buf, sizeof(buf));
	TAP_CHECK_INT(txn_writer_add(&w, &r), 0);
	n = txn_writer_finish(&w);
	TAP_CHECK_INT(n, sizeof(want));
	TAP_CHECK(!memcmp(buf, want, sizeof(want)));
	TAP_CHECK_INT(txn_rec_size(2, 3), 48);
}

/* one record of each type, with data where the type takes it */
static size_t all_types(struct txn_rec *out)
{
	static const uint32_t parts[] = { 5, 6, 9 };
	size_t n = 0;

	out[n] = rec(TXRDMA_TXN_PREPARE, 1);
	out[n].nparts = 3;
	out[n].parts = parts;
	out[n].data = "payload of the prepare";
	out[n++].data_len = 22;
	out[n] = rec(TXRDMA_TXN_PREPARE, 2);	/* ids only */
	out[n].nparts = 1;
	out[n++].parts = parts;
	out[n++] = rec(TXRDMA_TXN_VOTE, 1);
	out[n] = rec(TXRDMA_TXN_VOTE, 2);	/* a no, with a reason */
	out[n].flags = 0;
	out[n++].arg = 28;
	out[n++] = rec(TXRDMA_TXN_COMMIT, 1);
	out[n++] = rec(TXRDMA_TXN_ABORT, 2);
	out[n++] = rec(TXRDMA_TXN_ACK, 1);
	out[n] = rec(TXRDMA_TXN_ACK, 2);
	out[n++].arg = TXRDMA_TXN_ABORT;
	out[n++] = rec(TXRDMA_TXN_INQUIRE, UINT64_MAX);
	return n;
}

static size_t write_all(const struct txn_rec *r, size_t n)
{
	struct txn_writer w;
	size_t i;

	txn_writer_init(&w, buf, sizeof(buf));
	for (i = 0; i < n; i++)
		if (txn_writer_add(&w, &r[i]))
			return 0;
	return txn_writer_finish(&w);
}

static void test_round_trip(void)
{
	struct txn_rec r[16], got;
	struct txn_reader rd;
	size_t n = all_types(r), len, i = 0;

	len = write_all(r, n);
	TAP_CHECK(len > 0);
	TAP_CHECK_INT(len % TXRDMA_TXN_ALIGN, 0);
	TAP_CHECK_INT(txn_reader_init(&rd, buf, len), 0);
	while (txn_reader_next(&rd, &got) == 1) {
		TAP_CHECK(i < n && rec_eq(&r[i], &got));
		i++;
	}
	TAP_CHECK_INT(i, n);
	TAP_CHECK_INT(txn_reader_next(&rd, &got), 0);
}

static void test_writer_refuses(void)
{
	static const uint32_t parts[TXRDMA_TXN_MAX_PARTS + 1];
	struct txn_rec bad[32];
	struct txn_writer w;
	size_t n = 0, i;

	bad[n++] = (struct txn_rec){ .type = 0, .id = { 1, 1, 1 } };
	bad[n++] = (struct txn_rec){ .type = 7, .id = { 1, 1, 1 } };
	bad[n] = rec(TXRDMA_TXN_COMMIT, 1);
	bad[n++].id.coord = 0;
	bad[n] = rec(TXRDMA_TXN_COMMIT, 1);
	bad[n++].id.epoch = 0;
	bad[n++] = rec(TXRDMA_TXN_COMMIT, 0);
	bad[n] = rec(TXRDMA_TXN_COMMIT, 1);
	bad[n++].flags = 1;
	bad[n] = rec(TXRDMA_TXN_COMMIT, 1);
	bad[n++].arg = 1;
	bad[n] = rec(TXRDMA_TXN_COMMIT, 1);
	bad[n].data = "x";
	bad[n++].data_len = 1;
	bad[n] = rec(TXRDMA_TXN_ABORT, 1);
	bad[n].nparts = 1;
	bad[n++].parts = parts;
	bad[n] = rec(TXRDMA_TXN_PREPARE, 1);	/* no participant */
	bad[n++].nparts = 0;
	bad[n] = rec(TXRDMA_TXN_PREPARE, 1);
	bad[n].nparts = TXRDMA_TXN_MAX_PARTS + 1;
	bad[n++].parts = parts;
	bad[n] = rec(TXRDMA_TXN_PREPARE, 1);	/* ids missing */
	bad[n++].nparts = 2;
	bad[n] = rec(TXRDMA_TXN_VOTE, 1);	/* yes with a reason */
	bad[n++].arg = 5;
	bad[n] = rec(TXRDMA_TXN_VOTE, 1);	/* no without one */
	bad[n++].flags = 0;
	bad[n] = rec(TXRDMA_TXN_VOTE, 1);
	bad[n++].flags = 2 | TXRDMA_TXN_F_YES;
	bad[n] = rec(TXRDMA_TXN_ACK, 1);
	bad[n++].arg = TXRDMA_TXN_PREPARE;
	bad[n] = rec(TXRDMA_TXN_INQUIRE, 1);
	bad[n++].data_len = 4;			/* and no data */
	memset(buf, 0x5a, sizeof(buf));
	txn_writer_init(&w, buf, sizeof(buf));
	for (i = 0; i < n; i++) {
		if (!TAP_CHECK_INT(txn_writer_add(&w, &bad[i]), -EINVAL))
			tap_diag("record %zu", i);
	}
	/* nothing written, nothing counted */
	TAP_CHECK_INT(w.count, 0);
	TAP_CHECK_INT(txn_writer_finish(&w), 0);
	TAP_CHECK(buf[16] == 0x5a && buf[sizeof(buf) - 1] == 0x5a);
}

static void test_writer_full(void)
{
	struct txn_rec r = rec(TXRDMA_TXN_COMMIT, 1);
	struct txn_reader rd;
	struct txn_writer w;
	size_t len;
	int i;

	/* room for the header and two records, exactly */
	memset(buf, 0x77, sizeof(buf));
	txn_writer_init(&w, buf, 16 + 2 * 32);
	TAP_CHECK_INT(txn_writer_add(&w, &r), 0);
	TAP_CHECK_INT(txn_writer_add(&w, &r), 0);
	TAP_CHECK_INT(txn_writer_add(&w, &r), -ENOSPC);
	TAP_CHECK_INT(buf[16 + 2 * 32], 0x77);
	len = txn_writer_finish(&w);
	TAP_CHECK_INT(len, 80);
	TAP_CHECK_INT(txn_reader_init(&rd, buf, len), 0);
	/* a buffer smaller than the batch header */
	txn_writer_init(&w, buf, 8);
	TAP_CHECK_INT(txn_writer_add(&w, &r), -ENOSPC);
	/* the most records a batch counts */
	txn_writer_init(&w, buf, sizeof(buf));
	for (i = 0; i < 2047; i++)
		if (txn_writer_add(&w, &r))
			break;
	TAP_CHECK_INT(i, 2047);
	TAP_CHECK_INT(txn_writer_add(&w, &r), -ENOSPC);	/* 64 KiB full */
}

/* the reader refuses @len bytes of buf: @want */
static bool refused(size_t len, int want)
{
	struct txn_reader rd;
	struct txn_rec r;
	int ret = txn_reader_init(&rd, buf, len);

	/* nothing to read from a refused batch */
	return ret == want && txn_reader_next(&rd, &r) == 0;
}

static void test_reader_refuses(void)
{
	struct txn_rec r[16];
	size_t n = all_types(r), len, at, i;
	static uint8_t save[BUF];
	struct txn_reader rd;
	struct {
		size_t off;
		uint8_t v;
		const char *what;
	} cases[] = {
		{ 0, 0x55, "magic" }, { 4, 2, "version" }, { 4, 0, "version 0" },
		{ 5, 1, "batch flags" }, { 6, 0, "count low byte 0" },
		{ 7, 1, "count too high" }, { 12, 1, "batch resv" },
		{ 16, 0, "type 0" }, { 16, 9, "type 9" },
		{ 17, 2, "PREPARE flags" }, { 18, 0, "nparts 0" },
		{ 18, 200, "nparts past the ids" }, { 20, 200, "len past the batch" },
		{ 24, 0, "coord 0" }, { 28, 0, "epoch 0" },
		{ 40, 1, "PREPARE arg" }, { 44, 1, "rec resv" },
	};

	len = write_all(r, n);
	TAP_CHECK(len > 0);
	memcpy(save, buf, len);
	for (i = 0; i < TAP_ARRAY_SIZE(cases); i++) {
		memcpy(buf, save, len);
		buf[cases[i].off] = cases[i].v;
		if (!TAP_CHECK(refused(len, -EPROTO) || refused(len, -EMSGSIZE)))
			tap_diag("%s", cases[i].what);
	}
	/* seq 0 (the first record's seq is at 32..39) */
	memcpy(buf, save, len);
	memset(buf + 32, 0, 8);
	TAP_CHECK(refused(len, -EPROTO));
	/* a padding byte of the first record (22 bytes of data after 12) */
	memcpy(buf, save, len);
	at = 16 + 32 + 12 + 22;
	TAP_CHECK_INT(buf[at], 0);
	buf[at] = 1;
	TAP_CHECK(refused(len, -EPROTO));
	/* the batch's length one off either way, and bytes after it */
	memcpy(buf, save, len);
	TAP_CHECK(refused(len - 1, -EMSGSIZE));
	TAP_CHECK(refused(len + 1, -EMSGSIZE));
	TAP_CHECK(refused(8, -EMSGSIZE));
	TAP_CHECK(refused(0, -EMSGSIZE));
	/* a count one short leaves bytes no record holds */
	memcpy(buf, save, len);
	buf[6]--;
	TAP_CHECK(refused(len, -EPROTO));
	/* len and count agree, but the records end early */
	memcpy(buf, save, len);
	buf[8] += 8;
	memset(buf + len, 0, 8);
	TAP_CHECK(refused(len + 8, -EPROTO));
	/* the original is read */
	memcpy(buf, save, len);
	TAP_CHECK_INT(txn_reader_init(&rd, buf, len), 0);
}

static uint64_t rng_state = 0x20261202;

static uint32_t rnd(void)
{
	rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)(rng_state >> 33);
}

/* a random record that the wire allows, data in @store */
static struct txn_rec random_rec(uint32_t *parts, uint8_t *store)
{
	struct txn_rec r = rec(1 + rnd() % 6, 1 + rnd());
	uint32_t i;

	r.id.coord = 1 + rnd();
	r.id.epoch = 1 + rnd() % 5;
	if (r.type == TXRDMA_TXN_PREPARE) {
		r.nparts = 1 + rnd() % 4;
		for (i = 0; i < r.nparts; i++)
			parts[i] = rnd();
		r.parts = parts;
		r.data_len = rnd() % 3 ? rnd() % 100 : 0;
		for (i = 0; i < r.data_len; i++)
			store[i] = (uint8_t)rnd();
		r.data = r.data_len ? store : NULL;
	} else if (r.type == TXRDMA_TXN_VOTE && rnd() % 2) {
		r.flags = 0;
		r.arg = 1 + rnd() % 100;
	} else if (r.type == TXRDMA_TXN_ACK && rnd() % 2) {
		r.arg = TXRDMA_TXN_ABORT;
	}
	return r;
}

static void test_random(void)
{
	static uint32_t parts[32][4];
	static uint8_t store[32][100];
	unsigned int round, flips = 0, taken = 0, bad = 0, mism = 0;
	struct txn_rec r[32], got;
	struct txn_reader rd;
	struct txn_writer w;
	static uint8_t copy[BUF];
	size_t n, len, i, k;

	for (round = 0; round < 2000; round++) {
		n = 1 + rnd() % 32;
		txn_writer_init(&w, buf, sizeof(buf));
		for (i = 0; i < n; i++) {
			r[i] = random_rec(parts[i], store[i]);
			if (txn_writer_add(&w, &r[i]))
				bad++;
		}
		len = txn_writer_finish(&w);
		if (txn_reader_init(&rd, buf, len)) {
			bad++;
			continue;
		}
		for (i = 0; txn_reader_next(&rd, &got) == 1; i++)
			if (i >= n || !rec_eq(&r[i], &got))
				mism++;
		if (i != n)
			mism++;
		/* one byte changed: refused, or a batch that reads whole */
		memcpy(copy, buf, len);
		for (k = 0; k < 8; k++) {
			size_t at = rnd() % len;
			int ret;

			memcpy(buf, copy, len);
			buf[at] ^= (uint8_t)(1 + rnd() % 255);
			ret = txn_reader_init(&rd, buf, len);
			flips++;
			if (!ret) {
				taken++;
				while (txn_reader_next(&rd, &got) == 1)
					TAP_CHECK(txn_rec_check(&got) == 0);
			}
		}
		/* every truncation is refused */
		memcpy(buf, copy, len);
		TAP_CHECK(txn_reader_init(&rd, buf, rnd() % len) != 0);
	}
	tap_diag("2000 random batches; %u one-byte changes, %u of them still a valid batch (data, ids, seqs)",
		 flips, taken);
	TAP_CHECK_INT(bad, 0);
	TAP_CHECK_INT(mism, 0);
	/* random bytes with a good header: refused, or read without fault */
	for (round = 0; round < 20000; round++) {
		struct txrdma_txn_batch b = {
			.magic = htole32(TXRDMA_TXN_MAGIC),
			.version = TXRDMA_TXN_VERSION,
			.count = htole16(1 + rnd() % 4),
		};

		len = sizeof(b) + 8 * (rnd() % 40);
		b.len = htole32((uint32_t)(len - sizeof(b)));
		memcpy(buf, &b, sizeof(b));
		for (i = sizeof(b); i < len; i++)
			buf[i] = rnd() % 4 ? 0 : (uint8_t)rnd();
		if (!txn_reader_init(&rd, buf, len))
			while (txn_reader_next(&rd, &got) == 1)
				TAP_CHECK(txn_rec_check(&got) == 0);
	}
}

static const struct tap_test tests[] = {
	TAP_TEST(test_layout, "a PREPARE's bytes are the uapi's"),
	TAP_TEST(test_round_trip, "every record type round-trips"),
	TAP_TEST(test_writer_refuses, "the writer refuses what the wire does not allow"),
	TAP_TEST(test_writer_full, "the writer refuses what does not fit"),
	TAP_TEST(test_reader_refuses, "the reader refuses a broken batch whole"),
	TAP_TEST(test_random, "random batches, changed bytes, truncations, noise"),
};

int main(void)
{
	return TAP_MAIN(tests);
}
