/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A participant of presumed-abort two-phase commit, as a pure state
 * machine (txn_sm.h says what that means; txn_part.c says why it is
 * safe).  A PREPARE raises TXN_EV_PREPARE; the application prepares
 * and answers with txn_part_vote().  A decision raises TXN_EV_DECIDE;
 * the application applies it and says so with txn_part_applied(), and
 * the participant ACKs a COMMIT and forgets the transaction.
 *
 * What the application owes (safety depends on it):
 *  - before txn_part_vote(yes): its prepared state is durable, with the
 *    transaction's id (it is what txn_part_restore() is fed from);
 *  - before txn_part_applied(): the decision is applied durably (a
 *    COMMIT is ACKed then, and the coordinator forgets it for good);
 *  - after a restart, before any record: txn_part_restore() for each
 *    transaction it prepared and has not applied a decision for.
 *
 * Usage:
 *	struct txn_part_cfg cfg = { .self = 2, .max_txns = 1024,
 *		.inquire_timeout_ns = ... };
 *	void *mem = malloc(txn_part_memsize(&cfg));
 *	txn_part_init(&p, &cfg, &ops, ctx, mem, txn_part_memsize(&cfg));
 */
#ifndef TXN_PART_H
#define TXN_PART_H

#include <stddef.h>
#include <stdint.h>

#include "txn_sm.h"

struct txn_part_cfg {
	uint32_t self;			/* this node (not 0) */
	uint32_t max_txns;		/* transactions held, at least 1 */
	uint64_t inquire_timeout_ns;	/* between INQUIREs, > 0 */
};

enum txn_part_phase {
	TXN_PP_PREPARING = 1,	/* TXN_EV_PREPARE raised, no vote yet */
	TXN_PP_IN_DOUBT,	/* voted yes: waits for the decision */
	TXN_PP_DECIDING,	/* TXN_EV_DECIDE raised, not applied yet */
	TXN_PP_ABORTED,		/* voted no: remembered so that a resent
				 * PREPARE gets no again, until ABORT */
};

/* counters, never reset */
struct txn_part_stats {
	uint64_t prepares;	/* TXN_EV_PREPARE raised */
	uint64_t votes_yes, votes_no;
	uint64_t unilateral;	/* aborted on our own: coordinator Down */
	uint64_t commits, aborts;	/* TXN_EV_DECIDE raised, by decision */
	uint64_t acks, inquiries, restored;
	uint64_t full;		/* PREPAREs refused (no vote) for room */
	uint64_t resent;	/* votes resent to a resent PREPARE */
	uint64_t stale;		/* duplicates of what is in hand */
	uint64_t unknown;	/* decisions for transactions not held */
	uint64_t ignored;	/* records not from the transaction's
				 * coordinator, not naming us, of a wrong
				 * type, or that no correct peer sends */
};

/* a transaction held, for txn_part_get() and txn_part_walk() */
struct txn_part_info {
	struct txn_id id;
	uint32_t slot;
	uint8_t phase;		/* enum txn_part_phase */
	uint8_t parked;		/* coordinator Down: no INQUIRE until Up */
	uint8_t decision;	/* DECIDING: TXRDMA_TXN_COMMIT or _ABORT */
	uint32_t reason;	/* ABORTED: the no vote's reason */
	uint64_t deadline;	/* TXN_NEVER when no timer */
};

/* Internal: a transaction's state beside its table slot. */
struct txn_part_txn {
	uint32_t reason;
	uint8_t phase, parked, decision;
};

struct txn_part {
	struct txn_tab tab;
	struct txn_part_txn *tx;
	struct txn_part_cfg cfg;
	const struct txn_ops *ops;
	void *ctx;
	struct txn_part_stats stats;
};

/* Bytes of memory txn_part_init() needs for @cfg, 0 when @cfg is bad. */
size_t txn_part_memsize(const struct txn_part_cfg *cfg);

/*
 * Start a participant in @mem (@len bytes, 8-byte aligned, at least
 * txn_part_memsize(); no destroy: the caller frees it).  @ops->send and
 * ->event are required, ->log is not used.
 * Return: 0; -EINVAL for a bad @cfg, @ops or @mem.
 */
int txn_part_init(struct txn_part *p, const struct txn_part_cfg *cfg,
		  const struct txn_ops *ops, void *ctx, void *mem, size_t len);

/*
 * A record from @from (checked by the wire reader): PREPARE, COMMIT and
 * ABORT of the transaction's coordinator (@from == id.coord) are acted
 * on, anything else is ignored and counted.  A decision for a
 * transaction not held (already applied, or we restarted) is ACKed if
 * it is a COMMIT.  When max_txns are held a new PREPARE is answered no
 * (TXN_REASON_FULL), holding nothing.
 * Return: 0 when it was used; -EALREADY for a duplicate; -ENOENT for an
 * ABORT of a transaction not held; -ENOSPC for a PREPARE refused for
 * room; -EPROTO for one ignored.
 */
int txn_part_on_rec(struct txn_part *p, uint32_t from,
		    const struct txn_rec *r, uint64_t now);

/*
 * The application's vote on a TXN_EV_PREPARE: yes (@reason ignored;
 * the prepared state must be durable already), or no with @reason not
 * 0 (the application drops the transaction).
 * Return: 0; -ENOENT when not held; -EALREADY when no vote is awaited
 * (voted, or decided meanwhile: TXN_EV_DECIDE says what); -EINVAL for
 * no without a reason.
 */
int txn_part_vote(struct txn_part *p, const struct txn_id *id, int yes,
		  uint32_t reason, uint64_t now);

/*
 * The decision of a TXN_EV_DECIDE is applied durably: a COMMIT is
 * ACKed, the transaction forgotten.  After an ABORT decided on our own
 * (why TXN_WHY_DOWN) it does nothing and returns 0: the participant
 * holds that transaction until the coordinator's ABORT.
 * Return: 0; -ENOENT when not held; -EINVAL when not decided.
 */
int txn_part_applied(struct txn_part *p, const struct txn_id *id,
		     uint64_t now);

/*
 * @decision (TXRDMA_TXN_COMMIT or _ABORT) of @id, learnt from where the
 * coordinator made it durable rather than from the coordinator (which
 * died: its replicated decision log, read by whoever leads it now).
 * Acted on as the coordinator's record would be (TXN_EV_DECIDE); the
 * caller vouches that it is the decision.  Return: 0; -EINVAL for
 * another @decision; -ENOENT when @id is not held; -EALREADY when
 * decided already; -EPROTO for a COMMIT of one not voted yes.
 */
int txn_part_learned(struct txn_part *p, const struct txn_id *id,
		     uint8_t decision, uint64_t now);

/*
 * Liveness of peer @node, as the coordinator of transactions held (it
 * may be wrong: only progress depends on it).  Down: a transaction not
 * voted on yet aborts on our own (a no vote goes out, TXN_EV_DECIDE with
 * TXN_WHY_DOWN), the others stop inquiring.  Up: those inquire at once.
 */
void txn_part_peer(struct txn_part *p, uint32_t node, int up, uint64_t now);

/* Act on every deadline that has come by @now. */
void txn_part_tick(struct txn_part *p, uint64_t now);

/* The earliest deadline pending, TXN_NEVER when none. */
uint64_t txn_part_next_deadline(const struct txn_part *p);

/*
 * After a restart, before any record: take back @id, which the
 * application prepared durably and has not applied a decision for.  It
 * is in doubt: INQUIRE goes to its coordinator (@id->coord) at once and
 * every inquire_timeout_ns until a decision comes.
 * Return: 0; -EINVAL for a bad id; -EEXIST when held; -ENOSPC when
 * max_txns are held.
 */
int txn_part_restore(struct txn_part *p, const struct txn_id *id,
		     uint64_t now);

/* Return: 0 with @id's state in @info; -ENOENT when not held. */
int txn_part_get(const struct txn_part *p, const struct txn_id *id,
		 struct txn_part_info *info);

/*
 * Call @fn for each transaction held: those with a deadline first, in
 * the order they will fire, then the others by slot.  @fn must not call
 * into @p.  Return: how many.
 */
uint32_t txn_part_walk(const struct txn_part *p,
		       void (*fn)(void *arg, const struct txn_part_info *info),
		       void *arg);

#endif /* TXN_PART_H */
