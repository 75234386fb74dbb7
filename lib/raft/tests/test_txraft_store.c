// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The Raft store's write-ahead file (lib/raft/txraft_store.c) on the
 * host, under ASan and UBSan, in a temporary directory:
 *  - what a store holds (term, vote, entries byte for byte, snapshot)
 *    is what a store opened on its file holds, after appends,
 *    truncations and snapshots (the file rewritten);
 *  - a last record cut short at every possible byte (a crash in the
 *    middle of a write) is dropped, and everything before it kept; the
 *    file goes on from there;
 *  - a damaged record before others makes the open fail (-EBADMSG)
 *    instead of dropping what follows;
 *  - bad arguments are refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../txraft_io.h"
#include "../txraft_store.h"
#include "tap.h"
#include "txn_test.h"

static char dir[64], path[128];

static struct raft_entry entry(raft_term term, unsigned int k, size_t len)
{
	static uint8_t buf[16][8192];
	uint8_t *b = buf[k % 16];
	size_t i;

	for (i = 0; i < len; i++)
		b[i] = (uint8_t)mix(k * 977 + (uint32_t)i);
	return (struct raft_entry) { .term = term, .type = RAFT_COMMAND,
				     .buf = { .base = b, .len = len } };
}

/* @a and @b hold the same state */
static void check_same(const struct txraft_store *a,
		       const struct txraft_store *b)
{
	raft_index i;

	TAP_CHECK_INT(a->term, b->term);
	TAP_CHECK_INT(a->vote, b->vote);
	TAP_CHECK_INT(a->start, b->start);
	TAP_CHECK_INT(a->n, b->n);
	for (i = a->start; i < a->start + a->n && i < b->start + b->n; i++) {
		const struct raft_entry *x = txraft_store_entry(a, i);
		const struct raft_entry *y = txraft_store_entry(b, i);

		TAP_CHECK(x->term == y->term && x->type == y->type &&
			  x->buf.len == y->buf.len &&
			  !memcmp(x->buf.base, y->buf.base, x->buf.len));
	}
	TAP_CHECK(!a->snap == !b->snap);
	if (a->snap && b->snap) {
		TAP_CHECK_INT(a->snap->index, b->snap->index);
		TAP_CHECK_INT(a->snap->term, b->snap->term);
		TAP_CHECK_INT(a->snap->configuration_index,
			      b->snap->configuration_index);
		TAP_CHECK_INT(a->snap->configuration.n,
			      b->snap->configuration.n);
		TAP_CHECK_INT(a->snap->bufs[0].len, b->snap->bufs[0].len);
		TAP_CHECK(!memcmp(a->snap->bufs[0].base, b->snap->bufs[0].base,
				  a->snap->bufs[0].len));
	}
}

static struct raft_snapshot *snapshot(raft_index index, raft_term term)
{
	static char data[300];
	struct raft_snapshot src = { .index = index, .term = term,
				     .configuration_index = 1 };
	struct raft_buffer b[2] = { { data, 100 }, { data + 100, 200 } };
	struct raft_snapshot *s;

	memset(data, 0x3c, sizeof(data));
	raft_configuration_init(&src.configuration);
	raft_configuration_add(&src.configuration, 1, "one", RAFT_VOTER);
	raft_configuration_add(&src.configuration, 2, "two", RAFT_VOTER);
	src.bufs = b;
	src.n_bufs = 2;
	s = txraft_snapshot_copy(&src);
	raft_configuration_close(&src.configuration);
	return s;
}

static void test_reopen(void)
{
	struct txraft_store *a, *b;
	struct txraft_store_stats st;
	unsigned int k;

	unlink(path);
	TAP_CHECK_INT(txraft_store_open(&a, path, TXRAFT_STORE_NOSYNC), 0);
	TAP_CHECK_INT(txraft_store_set_term(a, 3), 0);
	TAP_CHECK_INT(txraft_store_set_vote(a, 2), 0);
	for (k = 0; k < 40; k++) {
		struct raft_entry e = entry(3, k, 1 + k * 97 % 5000);

		TAP_CHECK_INT(txraft_store_append(a, &e, 1), 0);
	}
	TAP_CHECK_INT(txraft_store_truncate(a, 31), 0);	/* 1..30 left */
	for (k = 40; k < 50; k++) {
		struct raft_entry e = entry(4, k, 64);

		TAP_CHECK_INT(txraft_store_append(a, &e, 1), 0);
	}
	TAP_CHECK_INT(txraft_store_set_term(a, 4), 0);
	TAP_CHECK_INT(txraft_store_open(&b, path, TXRAFT_STORE_NOSYNC), 0);
	check_same(a, b);
	txraft_store_free(b);

	/* a snapshot at 35 keeping 5: the file is rewritten */
	TAP_CHECK_INT(txraft_store_snapshot(a, snapshot(35, 4), 5), 0);
	TAP_CHECK_INT(a->start, 31);
	txraft_store_stats(a, &st);
	TAP_CHECK_INT(st.compactions, 1);
	for (k = 50; k < 55; k++) {
		struct raft_entry e = entry(4, k, 200);

		TAP_CHECK_INT(txraft_store_append(a, &e, 1), 0);
	}
	TAP_CHECK_INT(txraft_store_open(&b, path, TXRAFT_STORE_NOSYNC), 0);
	check_same(a, b);
	txraft_store_free(b);

	/* an installed snapshot: the log starts after it */
	TAP_CHECK_INT(txraft_store_snapshot(a, snapshot(100, 5), 0), 0);
	TAP_CHECK_INT(a->start, 101);
	TAP_CHECK_INT(a->n, 0);
	TAP_CHECK_INT(txraft_store_open(&b, path, TXRAFT_STORE_NOSYNC), 0);
	check_same(a, b);
	txraft_store_free(b);
	txraft_store_free(a);
}

static off_t file_size(void)
{
	struct stat st;

	return stat(path, &st) ? -1 : st.st_size;
}

static void test_torn_tail(void)
{
	struct txraft_store *a, *b;
	struct txraft_store_stats st;
	off_t full, before, cut;
	unsigned int k, bad = 0, tried = 0;
	uint8_t *whole;
	int fd;

	unlink(path);
	TAP_CHECK_INT(txraft_store_open(&a, path, TXRAFT_STORE_NOSYNC), 0);
	TAP_CHECK_INT(txraft_store_set_term(a, 7), 0);
	for (k = 0; k < 5; k++) {
		struct raft_entry e = entry(7, k, 300);

		TAP_CHECK_INT(txraft_store_append(a, &e, 1), 0);
	}
	before = file_size();
	{
		struct raft_entry e = entry(7, 5, 300);

		TAP_CHECK_INT(txraft_store_append(a, &e, 1), 0);
	}
	full = file_size();
	txraft_store_free(a);
	/* the whole file, to write back cut short */
	whole = malloc((size_t)full);
	fd = open(path, O_RDONLY);
	TAP_CHECK(whole && fd >= 0 && pread(fd, whole, (size_t)full, 0) == full);
	close(fd);
	/* every cut inside the last record: it goes, the rest stays */
	for (cut = before; whole && cut < full; cut++) {
		fd = open(path, O_WRONLY | O_TRUNC);
		if (fd < 0 || write(fd, whole, (size_t)cut) != cut) {
			close(fd);
			break;
		}
		close(fd);
		tried++;
		if (txraft_store_open(&b, path, TXRAFT_STORE_NOSYNC)) {
			bad++;
			continue;
		}
		if (b->n != 5 || b->term != 7 || file_size() != before)
			bad++;
		txraft_store_stats(b, &st);
		if (st.torn_bytes != (uint64_t)(cut - before))
			bad++;
		txraft_store_free(b);
	}
	free(whole);
	TAP_CHECK_INT(tried, (unsigned int)(full - before));
	TAP_CHECK_INT(bad, 0);
	/* and it goes on from there */
	TAP_CHECK_INT(txraft_store_open(&b, path, TXRAFT_STORE_NOSYNC), 0);
	{
		struct raft_entry e = entry(7, 6, 10);

		TAP_CHECK_INT(txraft_store_append(b, &e, 1), 0);
	}
	txraft_store_free(b);
	TAP_CHECK_INT(txraft_store_open(&b, path, TXRAFT_STORE_NOSYNC), 0);
	TAP_CHECK_INT(b->n, 6);
	txraft_store_free(b);
}

static void test_damage(void)
{
	struct txraft_store *a, *b = NULL;
	unsigned int k;
	int fd;
	char c;

	unlink(path);
	TAP_CHECK_INT(txraft_store_open(&a, path, TXRAFT_STORE_NOSYNC), 0);
	for (k = 0; k < 4; k++) {
		struct raft_entry e = entry(1, k, 100);

		TAP_CHECK_INT(txraft_store_append(a, &e, 1), 0);
	}
	txraft_store_free(a);
	/* a byte of the first record's payload: three good records follow */
	fd = open(path, O_RDWR);
	TAP_CHECK(fd >= 0);
	TAP_CHECK(pread(fd, &c, 1, 40) == 1);
	c ^= 1;
	TAP_CHECK(pwrite(fd, &c, 1, 40) == 1);
	close(fd);
	TAP_CHECK_INT(txraft_store_open(&b, path, TXRAFT_STORE_NOSYNC), -EBADMSG);
}

static void test_bad_args(void)
{
	struct txraft_store *s;

	TAP_CHECK_INT(txraft_store_open(&s, NULL, 0), -EINVAL);
	TAP_CHECK_INT(txraft_store_open(&s, "", 0), -EINVAL);
	TAP_CHECK_INT(txraft_store_open(&s, path, 0x80), -EINVAL);
	TAP_CHECK_INT(txraft_store_open(&s, "/nonexistent-dir/x", 0), -ENOENT);
}

static const struct tap_test tests[] = {
	TAP_TEST(test_reopen, "term, vote, entries, truncation and snapshots survive a reopen"),
	TAP_TEST(test_torn_tail, "a last record cut at every byte is dropped, the rest kept, and the file goes on"),
	TAP_TEST(test_damage, "a damaged record before others fails the open (-EBADMSG)"),
	TAP_TEST(test_bad_args, "bad arguments are refused"),
};

int main(void)
{
	int rc;

	snprintf(dir, sizeof(dir), "/tmp/txraft-store-XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof(path), "%s/wal", dir);
	rc = TAP_MAIN(tests);
	unlink(path);
	rmdir(dir);
	return rc;
}
