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
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
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
	/* a term change flushes what was gathered before it */
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
	TAP_CHECK_INT(txraft_store_flush(a), 0);
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
	TAP_CHECK_INT(txraft_store_flush(a), 0);
	before = file_size();
	{
		struct raft_entry e = entry(7, 5, 300);

		TAP_CHECK_INT(txraft_store_append(a, &e, 1), 0);
	}
	TAP_CHECK_INT(txraft_store_flush(a), 0);
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
	TAP_CHECK_INT(txraft_store_flush(b), 0);
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
	TAP_CHECK_INT(txraft_store_flush(a), 0);
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

/*
 * Group commit: appends and truncations reach the file only with a
 * flush, all of them in one write; what was not flushed is lost as
 * in a crash; a failed flush fails everything after it.
 */
static void test_group_commit(void)
{
	struct txraft_store *a, *b;
	struct txraft_store_stats st;
	off_t size;
	unsigned int k;
	int full;

	unlink(path);
	TAP_CHECK_INT(txraft_store_open(&a, path, 0), 0);	/* synced */
	TAP_CHECK_INT(txraft_store_set_term(a, 2), 0);
	size = file_size();
	for (k = 0; k < 10; k++) {
		struct raft_entry e = entry(2, k, 1000);

		TAP_CHECK_INT(txraft_store_append(a, &e, 1), 0);
	}
	TAP_CHECK_INT(txraft_store_truncate(a, 9), 0);	/* 1..8 left */
	TAP_CHECK(file_size() == size);		/* gathered only */
	txraft_store_stats(a, &st);
	TAP_CHECK_INT(st.flushes, 1);		/* the term's */
	TAP_CHECK_INT(txraft_store_flush(a), 0);
	TAP_CHECK_INT(txraft_store_flush(a), 0);	/* nothing to do */
	txraft_store_stats(a, &st);
	TAP_CHECK_INT(st.flushes, 2);		/* 11 records, one write */
	TAP_CHECK_INT(st.syncs, 2);
	TAP_CHECK(file_size() > size + 10 * 1000);
	TAP_CHECK_INT(txraft_store_open(&b, path, TXRAFT_STORE_NOSYNC), 0);
	check_same(a, b);
	TAP_CHECK_INT(b->n, 8);
	txraft_store_free(b);

	/* gathered, then the process dies: the file has what was flushed */
	for (k = 10; k < 15; k++) {
		struct raft_entry e = entry(2, k, 100);

		TAP_CHECK_INT(txraft_store_append(a, &e, 1), 0);
	}
	txraft_store_crash(a);
	TAP_CHECK_INT(txraft_store_flush(a), 0);
	TAP_CHECK_INT(a->n, 13);
	txraft_store_free(a);
	TAP_CHECK_INT(txraft_store_open(&a, path, 0), 0);
	TAP_CHECK_INT(a->n, 8);
	TAP_CHECK_INT(a->term, 2);

	/* a flush that fails (the disk is full) fails all that follows */
	full = open("/dev/full", O_WRONLY);
	TAP_CHECK(full >= 0);
	if (full >= 0) {
		struct raft_entry e = entry(2, 20, 100);
		const char *what = "x";

		TAP_CHECK(dup2(full, a->fd) == a->fd);
		close(full);
		TAP_CHECK_INT(txraft_store_error(a, &what), 0);
		TAP_CHECK(!what);
		TAP_CHECK_INT(txraft_store_append(a, &e, 1), 0);
		TAP_CHECK_INT(txraft_store_flush(a), RAFT_IOERR);
		/* which call failed, and why, for the server to say */
		TAP_CHECK_INT(txraft_store_error(a, &what), ENOSPC);
		TAP_CHECK(what && !strcmp(what, "pwritev2"));
		TAP_CHECK_INT(txraft_store_flush(a), RAFT_IOERR);
		TAP_CHECK_INT(txraft_store_append(a, &e, 1), RAFT_IOERR);
		TAP_CHECK_INT(txraft_store_set_term(a, 3), RAFT_IOERR);
		TAP_CHECK_INT(txraft_store_set_vote(a, 1), RAFT_IOERR);
		TAP_CHECK_INT(txraft_store_truncate(a, 2), RAFT_IOERR);
		TAP_CHECK_INT(a->term, 2);
	}
	txraft_store_free(a);
	/* the file holds what the last good flush wrote */
	TAP_CHECK_INT(txraft_store_open(&b, path, TXRAFT_STORE_NOSYNC), 0);
	TAP_CHECK_INT(b->n, 8);
	TAP_CHECK_INT(b->term, 2);
	txraft_store_free(b);
}

/*
 * Through the raft_io: an append completes only once its entries are
 * in the file (a second store opened on it from the callback finds
 * them), and the appends of one poll share one flush.
 */
static size_t file_entries_at_cb[4];
static unsigned int n_cbs;

static void append_cb(struct raft_io_append *req, int status)
{
	struct txraft_store *b;

	(void)req;
	TAP_CHECK_INT(status, 0);
	if (n_cbs < 4 && !txraft_store_open(&b, path, TXRAFT_STORE_NOSYNC)) {
		file_entries_at_cb[n_cbs] = b->n;
		txraft_store_free(b);
	}
	n_cbs++;
}

static void test_io_durable_first(void)
{
	struct raft_io_append req[3];
	struct txraft_store_stats st;
	struct txraft_store *a;
	struct txraft_io *x;
	struct raft_io *io;
	struct raft_entry e[3];
	unsigned int k;

	unlink(path);
	TAP_CHECK_INT(txraft_store_open(&a, path, TXRAFT_STORE_NOSYNC), 0);
	TAP_CHECK_INT(txraft_io_new(&x, 1, 65536, a), 0);
	io = txraft_io_raft(x);
	TAP_CHECK_INT(io->init(io, 1, "one"), 0);
	for (k = 0; k < 3; k++)
		e[k] = entry(1, k, 500);
	TAP_CHECK_INT(io->append(io, &req[0], e, 2, append_cb), 0);
	TAP_CHECK_INT(io->append(io, &req[1], &e[2], 1, append_cb), 0);
	TAP_CHECK_INT(n_cbs, 0);		/* never inside the call */
	TAP_CHECK_INT(txraft_io_poll(x, 0), 0);
	TAP_CHECK_INT(n_cbs, 2);
	TAP_CHECK_INT(file_entries_at_cb[0], 3);	/* all three, flushed */
	TAP_CHECK_INT(file_entries_at_cb[1], 3);
	txraft_store_stats(a, &st);
	TAP_CHECK_INT(st.flushes, 1);
	TAP_CHECK_INT(io->append(io, &req[2], e, 1, append_cb), 0);
	TAP_CHECK_INT(txraft_io_poll(x, 0), 0);
	TAP_CHECK_INT(file_entries_at_cb[2], 4);
	txraft_store_stats(a, &st);
	TAP_CHECK_INT(st.flushes, 2);
	txraft_io_free(x);
	txraft_store_free(a);
}

/*
 * Through the raft_io: a group commit that fails stops the process
 * (abort, saying why) rather than report failed appends that libraft
 * 0.15 cannot take as a group.  In a child: two appends, the file
 * replaced by /dev/full, a poll.
 */
static void test_io_flush_fails(void)
{
	int status = 0;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	TAP_CHECK(pid >= 0);
	if (!pid) {
		struct raft_io_append req[2];
		struct txraft_store *a;
		struct txraft_io *x;
		struct raft_io *io;
		struct raft_entry e[2] = { entry(1, 0, 100), entry(1, 1, 100) };
		int full = open("/dev/full", O_WRONLY);

		unlink(path);
		if (full < 0 || txraft_store_open(&a, path, 0) ||
		    txraft_io_new(&x, 1, 65536, a))
			_exit(10);
		io = txraft_io_raft(x);
		if (io->init(io, 1, "one") ||
		    io->append(io, &req[0], &e[0], 1, append_cb) ||
		    io->append(io, &req[1], &e[1], 1, append_cb) ||
		    dup2(full, a->fd) != a->fd)
			_exit(11);
		txraft_io_poll(x, 0);
		_exit(12);	/* went on after a failed group commit */
	}
	TAP_CHECK(waitpid(pid, &status, 0) == pid);
	TAP_CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
	if (!WIFSIGNALED(status))
		tap_diag("child exited %d", WEXITSTATUS(status));
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
	TAP_TEST(test_group_commit, "appends reach the file with one flush, unflushed ones die with the process, a failed flush fails all after it and says which call failed with which errno"),
	TAP_TEST(test_io_durable_first, "an append completes only once its entries are in the file; one flush per poll"),
	TAP_TEST(test_io_flush_fails, "a group commit that fails stops the process (SIGABRT), never a group of failed appends"),
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
