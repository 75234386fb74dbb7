/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What a Raft server persists (term, vote, log, last snapshot), for
 * lib/raft's own files: the store's fields and the changes txraft_io.c
 * makes to them.  With a file (txraft_store_open()), a term or vote is
 * durable when its call returns; appends and truncations are gathered
 * and made durable together by txraft_store_flush() (group commit):
 * see txraft_store.c.
 */
#ifndef TXRAFT_STORE_H
#define TXRAFT_STORE_H

#include <stdbool.h>
#include <stddef.h>

#include <raft.h>

#include "txraft_io.h"

/* records gathered for one write */
struct txraft_wbuf {
	uint8_t *p;
	size_t len, cap;
};

struct txraft_store {
	raft_term term;
	raft_id vote;
	struct raft_entry *log;	/* log[i] is index start + i */
	size_t n, cap;
	raft_index start;
	struct raft_snapshot *snap;
	bool in_use;		/* an io has it */
	int fd;			/* the write-ahead file, or -1 */
	bool nosync;		/* TXRAFT_STORE_NOSYNC */
	bool no_rwf_dsync;	/* pwritev2 refused RWF_DSYNC: fdatasync */
	bool failed;		/* a flush failed: every change fails now */
	bool crashed;		/* txraft_store_crash(): writes are lost */
	int err;		/* errno of the first failed file call */
	const char *err_what;	/* that call */
	struct txraft_wbuf pend;	/* gathered, not yet flushed */
	char *path;
	struct txraft_store_stats st;
};

/*
 * Return: 0 or a RAFT_* error (RAFT_NOMEM, RAFT_IOERR; RAFT_IOERR for
 * everything once a flush has failed).  A term or vote is flushed
 * before the call returns; an append or truncation only once
 * txraft_store_flush() has returned 0 after it.
 */
int txraft_store_set_term(struct txraft_store *s, raft_term term);
int txraft_store_set_vote(struct txraft_store *s, raft_id vote);
int txraft_store_append(struct txraft_store *s, const struct raft_entry *es,
			unsigned int n);
int txraft_store_truncate(struct txraft_store *s, raft_index index);
/* every change made so far into the file, durably, in one write */
int txraft_store_flush(struct txraft_store *s);
/*
 * Tests: the process dies now.  What was not flushed is lost, and
 * nothing is written any more (flushes succeed and write nothing),
 * while the io closes before the store is freed and opened again.
 */
void txraft_store_crash(struct txraft_store *s);
/* @snap: a copy (txraft_snapshot_copy()) the store takes */
int txraft_store_snapshot(struct txraft_store *s, struct raft_snapshot *snap,
			  unsigned int trailing);

struct raft_snapshot *txraft_snapshot_copy(const struct raft_snapshot *src);
void txraft_snapshot_free(struct raft_snapshot *s);

#endif /* TXRAFT_STORE_H */
