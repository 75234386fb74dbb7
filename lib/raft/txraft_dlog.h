/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A two-phase-commit coordinator's decision log, replicated by Raft:
 * what txn_node_hooks.log (lib/txn/txn_node.h) plugs into so that a
 * COMMIT decision is committed by a majority of the log's servers
 * before any COMMIT record leaves, and a coordinator that dies is
 * replaced, on another server, by one that finds every decision not
 * yet forgotten.  See txraft_dlog.c.
 *
 * Each server of the Raft group runs the log's state machine:
 *
 *	txraft_dlog_new(&d);
 *	raft_init(&raft, io, txraft_dlog_fsm(d), id, address);
 *
 * The coordinator runs where the group's leader is:
 *
 *	hooks.log:    txraft_dlog_commit(d, &raft, id, nodes, n, done, ctx);
 *	              done(ctx, id, 0) -> txn_node_logged(node, id)
 *	TXN_EV_FORGET: txraft_dlog_forget(d, &raft, id);
 *	taking over (a new epoch): txraft_dlog_walk(d, restore, node), each
 *	              -> txn_node_restore_commit()
 */
#ifndef TXRAFT_DLOG_H
#define TXRAFT_DLOG_H

#include <stddef.h>
#include <stdint.h>

#include <raft.h>

#include "txn_wire.h"

struct txraft_dlog;

struct txraft_dlog_stats {
	uint64_t commits, forgets;	/* records applied */
	uint64_t duplicates;		/* COMMIT of one held, FORGET of none */
	uint64_t bad;			/* commands that were not a record */
};

/* Return: 0, -ENOMEM. */
int txraft_dlog_new(struct txraft_dlog **dp);
/* after raft_close() has called back */
void txraft_dlog_free(struct txraft_dlog *d);

/* The state machine to give raft_init(). */
struct raft_fsm *txraft_dlog_fsm(struct txraft_dlog *d);

/*
 * Propose "COMMIT @id over @nodes[@n]" through @r (this server must
 * lead).  @done(ctx, id, status) once it is committed and applied here
 * (status 0: a majority holds it; send the COMMITs now) or failed (a
 * RAFT_* error, e.g. RAFT_LEADERSHIPLOST: nothing may be sent; the
 * coordinator must step down, and whoever leads next finds the COMMIT
 * if it was committed after all).  Return: 0 (@done will be called),
 * -EINVAL (bad @id or @nodes), -ENOMEM, or raft_apply()'s RAFT_* code,
 * positive (e.g. RAFT_NOTLEADER); @done is not called then.
 */
int txraft_dlog_commit(struct txraft_dlog *d, struct raft *r,
		       const struct txn_id *id, const uint32_t *nodes,
		       uint16_t n,
		       void (*done)(void *ctx, const struct txn_id *id,
				    int status),
		       void *ctx);

/*
 * Propose "FORGET @id" (every participant ACKed it).  Nobody waits for
 * it: a FORGET lost with a leader only means the next coordinator
 * resends a COMMIT that is ACKed again.  Return: as txraft_dlog_commit.
 */
int txraft_dlog_forget(struct txraft_dlog *d, struct raft *r,
		       const struct txn_id *id);

/* Is @id held (a COMMIT applied here, not forgotten)? */
bool txraft_dlog_holds(const struct txraft_dlog *d, const struct txn_id *id);
size_t txraft_dlog_count(const struct txraft_dlog *d);

/*
 * Call @fn for each COMMIT held (in no particular order): what a new
 * coordinator takes back.  @fn must not change @d.  Return: how many.
 */
size_t txraft_dlog_walk(const struct txraft_dlog *d,
			void (*fn)(void *arg, const struct txn_id *id,
				   const uint32_t *nodes, uint16_t n),
			void *arg);

void txraft_dlog_stats(const struct txraft_dlog *d,
		       struct txraft_dlog_stats *st);

#endif /* TXRAFT_DLOG_H */
