/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What a Raft server persists (term, vote, log, last snapshot), for
 * lib/raft's own files: the store's fields and the changes txraft_io.c
 * makes to them.  Each change is made durable before it returns when
 * the store has a file (txraft_store_open()): see txraft_store.c.
 */
#ifndef TXRAFT_STORE_H
#define TXRAFT_STORE_H

#include <stdbool.h>
#include <stddef.h>

#include <raft.h>

#include "txraft_io.h"

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
	char *path;
	struct txraft_store_stats st;
};

/* Return: 0 or a RAFT_* error (RAFT_NOMEM, RAFT_IOERR) */
int txraft_store_set_term(struct txraft_store *s, raft_term term);
int txraft_store_set_vote(struct txraft_store *s, raft_id vote);
int txraft_store_append(struct txraft_store *s, const struct raft_entry *es,
			unsigned int n);
int txraft_store_truncate(struct txraft_store *s, raft_index index);
/* @snap: a copy (txraft_snapshot_copy()) the store takes */
int txraft_store_snapshot(struct txraft_store *s, struct raft_snapshot *snap,
			  unsigned int trailing);

struct raft_snapshot *txraft_snapshot_copy(const struct raft_snapshot *src);
void txraft_snapshot_free(struct raft_snapshot *s);

#endif /* TXRAFT_STORE_H */
