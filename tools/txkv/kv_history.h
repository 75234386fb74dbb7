/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A checker of txkv's client history: is what the clients saw
 * committed strictly serializable?  Pure logic, host-tested.
 *
 * txkv's transactions are optimistic: each write is conditional on the
 * version the transaction read, and a committed write moves a record
 * from that version to the next (a write adds 2, txn_vrec.h).  So a
 * committed transaction names, for every record it wrote, the edge
 * "version v -> v + 2" it made.  The history is strictly serializable
 * when:
 *  1. every record's committed edges form one chain from its first
 *     version to the version its replicas hold at the end: no version
 *     written twice (a lost update: two commits from one read), none
 *     skipped (a write applied that no client saw commit, or a commit
 *     no replica applied), none left over;
 *  2. "B wrote the version A wrote next" (A precedes B) has no cycle:
 *     a serial order of all the transactions exists;
 *  3. that order agrees with real time: a transaction that began after
 *     another ended never precedes it (checked on every precedence
 *     edge, and on the serial order's chains of them).
 * Read-only records (items) never change and need no check.
 */
#ifndef KV_HISTORY_H
#define KV_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* one record a committed transaction wrote */
struct kv_hist_write {
	uint32_t shard, index;
	uint64_t from;		/* the version it read (and the log checked) */
};

struct kv_history;

int kv_hist_new(struct kv_history **hp);
void kv_hist_free(struct kv_history *h);

/*
 * A transaction the client saw commit: began at @start, its outcome
 * known at @end (any clock, the same for all), its @nw writes.
 * Return: 0, -EINVAL, -ENOMEM.
 */
int kv_hist_add(struct kv_history *h, uint64_t start, uint64_t end,
		const struct kv_hist_write *w, unsigned int nw);

size_t kv_hist_count(const struct kv_history *h);

/*
 * Check the history.  @first(ctx, shard, index): the version a record
 * had before any transaction (the load); @final(ctx, shard, index): the
 * version it has at the end (a replica after every decision applied).
 * Return: 0 when strictly serializable; else -EPROTO with the first
 * violation described in @why (@cap bytes).  -ENOMEM.
 */
int kv_hist_check(struct kv_history *h,
		  uint64_t (*first)(void *ctx, uint32_t shard, uint32_t index),
		  uint64_t (*final)(void *ctx, uint32_t shard, uint32_t index),
		  void *ctx, char *why, size_t cap);

#endif /* KV_HISTORY_H */
