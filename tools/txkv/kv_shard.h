/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One shard of txkv, the example database: a table of versioned records
 * (uapi/linux/txrdma_vrec.h) that remote readers fetch with one RDMA
 * READ each, changed only by commands applied in the order of the
 * shard's replicated log (Raft), so that every replica holds the same
 * bytes, versions included.  Pure logic: no I/O, no clock; the table's
 * memory is the caller's (a registered region it exports read-only).
 *
 * Transactions are optimistic, as in FaRM: a coordinator reads records
 * one-sided (record index, version, value), computes new values, and
 * asks each shard it writes to PREPARE: "these records still have the
 * versions I read; lock them and keep these new values".  The shard's
 * answer is the result of applying the PREPARE command from its log:
 * every replica computes the same vote, so a new leader knows what the
 * old one voted.  COMMIT writes the kept values (all records of the
 * transaction change as one: every slot made odd before any is
 * rewritten), ABORT drops them; both unlock.  PUT is a PREPARE and its
 * COMMIT in one command, for a transaction that writes one shard only
 * (and for loading).
 *
 * A command (little-endian, 8-byte aligned pieces):
 *	struct kv_cmd_hdr (24 bytes): op, write count, total length, txn id
 *	PREPARE, PUT: @nw writes, each struct kv_cmd_write (16 bytes)
 *	followed by its value padded to 8 bytes
 *	COMMIT, ABORT: nothing more
 * A record's expected version 0 means "do not check" (a blind write).
 */
#ifndef KV_SHARD_H
#define KV_SHARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <txn_wire.h>

enum kv_op {
	KV_OP_PREPARE = 1,
	KV_OP_COMMIT = 2,
	KV_OP_ABORT = 3,
	KV_OP_PUT = 4,
};

struct kv_cmd_hdr {
	uint8_t op;
	uint8_t resv;		/* 0 */
	uint16_t nw;		/* writes (PREPARE, PUT: 1..KV_MAX_WRITES) */
	uint32_t len;		/* the whole command, bytes */
	uint32_t coord;		/* struct txn_id, little-endian */
	uint32_t epoch;
	uint64_t seq;
};

struct kv_cmd_write {
	uint32_t index;		/* record in the shard */
	uint32_t len;		/* value bytes, <= the shard's capacity */
	uint64_t expect;	/* version read, 0: do not check */
};

#define KV_MAX_WRITES	64
#define KV_PAD(n)	(((size_t)(n) + 7) & ~(size_t)7)

/* what a command's application says: a vote for PREPARE */
enum kv_res {
	KV_YES = 0,		/* PREPARE locked, PUT written, COMMIT and
				 * ABORT applied */
	KV_NO_LOCKED,		/* a record is locked by another transaction */
	KV_NO_STALE,		/* a record's version is not the one read */
	KV_NO_FULL,		/* as many transactions prepared as allowed */
	KV_NO_DECIDED,		/* a PREPARE after its own decision: late */
	KV_UNKNOWN,		/* COMMIT/ABORT of a transaction not prepared
				 * here (a retry, or presumed abort): nothing
				 * changes */
	KV_MALFORMED,		/* refused by kv_cmd_check(): nothing changes */
	KV_RES_MAX
};

const char *kv_res_name(int res);

/* a write of a command being built */
struct kv_write {
	uint32_t index;
	uint32_t len;
	uint64_t expect;
	const void *value;
};

/*
 * Bytes of a command with @nw writes of @w (0 for bad input), and the
 * command built into @buf (@cap bytes): its length, or 0 when @buf is
 * too small or the input is bad.
 */
size_t kv_cmd_size(const struct kv_write *w, unsigned int nw);
size_t kv_cmd_build(void *buf, size_t cap, uint8_t op,
		    const struct txn_id *id, const struct kv_write *w,
		    unsigned int nw);

/*
 * Check a command for a shard of @nrec records of capacity @cap: 0 and
 * its header (host-endian) in @h, or -EINVAL.  Record indexes are
 * checked against @nrec, lengths against @cap, duplicates refused.
 */
int kv_cmd_check(const void *cmd, size_t len, uint32_t nrec, uint32_t cap,
		 struct kv_cmd_hdr *h);

/* write @i of a checked command (host-endian), its value in *@value */
void kv_cmd_write_at(const void *cmd, unsigned int i, struct kv_cmd_write *w,
		     const void **value);

struct kv_shard_stats {
	uint64_t applied;		/* commands, malformed ones included */
	uint64_t res[KV_RES_MAX];	/* by result */
	uint64_t writes;		/* records rewritten */
};

struct kv_shard;

/*
 * A shard of @nrec records of capacity @cap (a multiple of 8) in the
 * table @table of @size bytes (8-byte aligned, txn_vrec_table_size()
 * at least: the caller's memory, outliving the shard), holding at most
 * @max_prep prepared transactions.  The table is initialised (every
 * record empty, version 0).  Return: 0 and *@sp, -EINVAL, -ENOMEM.
 */
int kv_shard_new(struct kv_shard **sp, void *table, size_t size, uint32_t cap,
		 uint32_t nrec, uint32_t max_prep);
void kv_shard_free(struct kv_shard *s);

/*
 * Apply the next command of the log.  Return: a kv_res.  Deterministic:
 * the same commands in the same order give every replica the same
 * table bytes, locks and answers.
 */
int kv_shard_apply(struct kv_shard *s, const void *cmd, size_t len);

/* record @index as it is now: 0 and its version/value, or -EINVAL */
int kv_shard_get(const struct kv_shard *s, uint32_t index, uint64_t *version,
		 const void **value, uint32_t *len);

/* the transaction holding record @index locked, false if none */
bool kv_shard_locked(const struct kv_shard *s, uint32_t index,
		     struct txn_id *id);

/*
 * The prepared transactions, for a new leader to tell its participant
 * machine (txn_node_restore_prepared()): @fn on each, in the order they
 * were prepared (@fn NULL: only count them).  Return: how many.
 */
unsigned int kv_shard_prepared(const struct kv_shard *s,
			       void (*fn)(void *ctx, const struct txn_id *id),
			       void *ctx);

/*
 * Snapshots, for libraft (its fsm snapshot/restore): the shard's whole
 * state in one buffer.  kv_shard_snapshot(): 0 with *@buf (malloc'd)
 * and *@len, or -ENOMEM.  kv_shard_restore(): replace the state with a
 * snapshot of a shard of the same geometry; -EINVAL (nothing changed)
 * when it is not one.
 */
int kv_shard_snapshot(const struct kv_shard *s, void **buf, size_t *len);
int kv_shard_restore(struct kv_shard *s, const void *buf, size_t len);

void kv_shard_stats(const struct kv_shard *s, struct kv_shard_stats *st);

#endif /* KV_SHARD_H */
