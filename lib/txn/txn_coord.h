/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The coordinator of presumed-abort two-phase commit, as a pure state
 * machine (txn_sm.h says what that means; txn_coord.c says why it is
 * safe).  A transaction: txn_coord_begin() sends PREPARE to each
 * participant; all vote yes -> txn_ops.log() gets the COMMIT; once the
 * caller says it is durable (txn_coord_logged()) COMMIT goes out, the
 * caller gets TXN_EV_DONE, and the ACKs are collected in the background
 * (then TXN_EV_FORGET).  A no vote, a participant Down before voting or
 * no vote after every retry -> ABORT to each participant and TXN_EV_DONE
 * at once; an ABORT is neither logged nor ACKed.
 *
 * Usage:
 *	struct txn_coord_cfg cfg = { .self = 1, .epoch = e, .window = 256,
 *		.max_parts = 8, .vote_timeout_ns = ..., ... };
 *	void *mem = malloc(txn_coord_memsize(&cfg));
 *	txn_coord_init(&c, &cfg, &ops, ctx, mem, txn_coord_memsize(&cfg));
 *	for each COMMIT in the log not yet forgotten:
 *		txn_coord_restore(&c, &id, nodes, n, now);
 *	then feed it records, peer events and ticks; arm a timer for
 *	txn_coord_next_deadline() after each call.
 */
#ifndef TXN_COORD_H
#define TXN_COORD_H

#include <stddef.h>
#include <stdint.h>

#include "txn_sm.h"

/*
 * One participant of a transaction and its payload.  The array given
 * to txn_coord_begin() and every @data in it must stay valid and
 * unchanged until the transaction's TXN_EV_DONE (PREPAREs are resent
 * from them), as io_uring's buffers until their completion.
 */
struct txn_branch {
	uint32_t node;		/* not 0; each node once per transaction */
	uint32_t len;
	const void *data;
};

struct txn_coord_cfg {
	uint32_t self;		/* this node (not 0) */
	uint32_t epoch;		/* this incarnation (not 0): a new one, higher
				 * than any before, on every restart */
	uint32_t window;	/* transactions in flight, at least 1 */
	uint16_t max_parts;	/* participants per transaction,
				 * 1..TXRDMA_TXN_MAX_PARTS */
	uint16_t vote_retries;	/* PREPARE resends to non-voters before ABORT */
	uint64_t vote_timeout_ns;	/* between PREPARE resends, > 0 */
	uint64_t ack_timeout_ns;	/* between COMMIT resends, > 0 */
};

enum txn_coord_phase {
	TXN_CP_VOTING = 1,	/* PREPAREs out, collecting votes */
	TXN_CP_LOGGING,		/* every vote yes, the log writes the COMMIT */
	TXN_CP_ACKING,		/* COMMIT out, collecting ACKs */
};

/* counters, never reset */
struct txn_coord_stats {
	uint64_t begun;
	uint64_t committed;	/* DONE with COMMIT */
	uint64_t aborted[TXN_WHY_MAX];	/* DONE with ABORT, by why */
	uint64_t restored;
	uint64_t forgotten;	/* every ACK in */
	uint64_t votes_yes, votes_no, acks, inquiries;
	uint64_t prepare_resends, commit_resends;
	uint64_t answers;	/* decisions sent to one who asked or voted
				 * late (INQUIRE, vote for an unknown txn) */
	uint64_t stale;		/* duplicate or late votes and ACKs */
	uint64_t unknown;	/* ACKs for transactions not held */
	uint64_t ignored;	/* records of another coordinator, from a
				 * non-participant, of a wrong type, or that
				 * no correct peer sends */
};

/* a transaction in flight, for txn_coord_get() and txn_coord_walk() */
struct txn_coord_info {
	struct txn_id id;
	uint32_t slot;		/* where it is held (scans go in this order) */
	uint8_t phase;		/* enum txn_coord_phase */
	uint16_t nparts;
	uint16_t retries;	/* PREPARE resends left */
	uint64_t voted, yes;	/* bit i: participant i voted; voted yes */
	uint64_t acked;		/* bit i: participant i ACKed the COMMIT */
	uint64_t parked;	/* bit i: participant i Down: nothing sent */
	uint64_t deadline;	/* TXN_NEVER when no timer */
};

/* Internal: a transaction's state beside its table slot. */
struct txn_coord_txn {
	const struct txn_branch *br;	/* the caller's, until DONE */
	uint64_t voted, yes, acked, parked;
	uint16_t nparts, retries;
	uint8_t phase;
};

struct txn_coord {
	struct txn_tab tab;
	struct txn_coord_txn *tx;	/* window of them */
	uint32_t *nodes;		/* max_parts per slot */
	struct txn_coord_cfg cfg;
	const struct txn_ops *ops;
	void *ctx;
	uint64_t seq;			/* the last issued */
	struct txn_coord_stats stats;
};

/* Bytes of memory txn_coord_init() needs for @cfg, 0 when @cfg is bad. */
size_t txn_coord_memsize(const struct txn_coord_cfg *cfg);

/*
 * Start a coordinator in @mem (@len bytes, 8-byte aligned, at least
 * txn_coord_memsize(); the caller frees it after the last call, there
 * is no destroy).  @ops->send, ->log and ->event are all required.
 * Return: 0; -EINVAL for a bad @cfg, @ops or @mem.
 */
int txn_coord_init(struct txn_coord *c, const struct txn_coord_cfg *cfg,
		   const struct txn_ops *ops, void *ctx, void *mem,
		   size_t len);

/*
 * Begin a transaction over @br[@n] (see struct txn_branch for how long
 * they must live): PREPAREs are sent, its id goes to @id.
 * Return: 0; -EINVAL for bad input (n 0 or over max_parts, a node 0 or
 * twice, data NULL with a length); -EBUSY when the window is full.
 * Nothing changes on an error.
 */
int txn_coord_begin(struct txn_coord *c, const struct txn_branch *br,
		    uint16_t n, uint64_t now, struct txn_id *id);

/*
 * A record from @from (checked by the wire reader): VOTE, ACK and
 * INQUIRE are acted on; anything else is ignored and counted.
 * Return: 0 when it was used (or answered); -EALREADY for a duplicate
 * or late one; -ENOENT for an ACK of a transaction not held; -EPROTO
 * for one ignored (see stats.ignored).
 */
int txn_coord_on_rec(struct txn_coord *c, uint32_t from,
		     const struct txn_rec *r, uint64_t now);

/*
 * The COMMIT that txn_ops.log() got for @id is durable: COMMIT goes
 * out, TXN_EV_DONE is reported.
 * Return: 0; -ENOENT when @id is not held; -EINVAL when it is not
 * being logged.
 */
int txn_coord_logged(struct txn_coord *c, const struct txn_id *id,
		     uint64_t now);

/*
 * Liveness of peer @node (it may be wrong: only progress depends on it).
 * Down: every transaction still voting for which @node has not voted
 * aborts; others stop sending to @node.  Up: decisions not ACKed by
 * @node are resent at once.  The coordinator keeps no table of nodes:
 * a transaction begun with a node that is Down just times out.
 */
void txn_coord_peer(struct txn_coord *c, uint32_t node, int up,
		    uint64_t now);

/* Act on every deadline that has come by @now. */
void txn_coord_tick(struct txn_coord *c, uint64_t now);

/* The earliest deadline pending, TXN_NEVER when none. */
uint64_t txn_coord_next_deadline(const struct txn_coord *c);

/*
 * After a restart (a new epoch), before any record: take back a COMMIT
 * of an earlier epoch that the log holds and that was never forgotten
 * (TXN_EV_FORGET).  COMMIT is resent to @nodes[@n] until each ACKs; no
 * TXN_EV_DONE is reported for it.
 * Return: 0; -EINVAL for a bad id (another coordinator, not an earlier
 * epoch) or participants; -EEXIST when held; -EBUSY when the window is
 * full.
 */
int txn_coord_restore(struct txn_coord *c, const struct txn_id *id,
		      const uint32_t *nodes, uint16_t n, uint64_t now);

/* Return: 0 with @id's state in @info; -ENOENT when not held. */
int txn_coord_get(const struct txn_coord *c, const struct txn_id *id,
		  struct txn_coord_info *info);

/*
 * Call @fn for each transaction held: those with a deadline first, in
 * the order they will fire, then the others by slot.  @fn must not call
 * into @c.  Return: how many.
 */
uint32_t txn_coord_walk(const struct txn_coord *c,
			void (*fn)(void *arg,
				   const struct txn_coord_info *info),
			void *arg);

#endif /* TXN_COORD_H */
