/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A node of the transaction layer: what database code calls.  It joins
 * a coordinator (txn_coord.h) and a participant (txn_part.h) to a
 * transport (txn_transport.h: txrdma endpoints or TCP): records to one
 * node leave in one batch per turn, records that arrive go to the
 * machine they are for, liveness goes to both, and their deadlines are
 * kept by txn_node_poll().
 *
 * A process that coordinates transactions and takes part in others'
 * runs one node:
 *
 *	txn_node_open(&n, &cfg, transport, &hooks, ctx);
 *	for (;;) {
 *		txn_node_begin(n, branches, 2, user, &id);  // as needed
 *		txn_node_poll(n, 10);                       // runs hooks
 *	}
 *
 * and answers its hooks: a COMMIT decision to make durable (log, then
 * txn_node_logged()), a PREPARE to vote on (txn_node_vote()), a
 * decision to apply (txn_node_applied()), the outcome of its own
 * transaction (TXN_EV_DONE).  Answers may be given inside the hook or
 * later.  One thread per node.
 */
#ifndef TXN_NODE_H
#define TXN_NODE_H

#include <stdbool.h>
#include <stdint.h>

#include "txn_coord.h"
#include "txn_part.h"
#include "txn_transport.h"

struct txn_node;

struct txn_node_hooks {
	/*
	 * Make "COMMIT @id, participants @nodes[@n]" durable (a replicated
	 * log plugs in here), then call txn_node_logged(), at once or
	 * later; no COMMIT record leaves before.  NULL: decisions are not
	 * logged (a coordinator that restarts forgets them: for tests and
	 * benchmarks only).
	 */
	void (*log)(void *ctx, const struct txn_id *id, const uint32_t *nodes,
		    uint16_t n);
	/*
	 * An event of either machine (txn_sm.h): TXN_EV_DONE with @user as
	 * given to txn_node_begin(); TXN_EV_FORGET; TXN_EV_PREPARE (answer
	 * with txn_node_vote()); TXN_EV_DECIDE (answer with
	 * txn_node_applied()).  @ev is valid during the call only.
	 */
	void (*event)(void *ctx, const struct txn_event *ev, void *user);
};

struct txn_node_cfg {
	uint32_t self;		/* this node, not 0 */
	uint32_t epoch;		/* this incarnation: higher on each restart */
	uint32_t window;	/* own transactions in flight */
	uint16_t max_parts;	/* participants per transaction */
	uint16_t vote_retries;
	uint32_t max_txns;	/* others' transactions held */
	uint32_t max_batch;	/* bytes per message: the transport's limit
				 * or less, at least 4 KiB */
	uint64_t vote_timeout_ns, ack_timeout_ns, inquire_timeout_ns;
};

struct txn_node_stats {
	uint64_t batches_out, records_out, batches_in, records_in;
	uint64_t bad_batches;	/* refused by the wire reader */
	uint64_t lost;		/* batches a transport refused (peer down,
				 * or full twice): the protocol resends */
	uint64_t deferred;	/* batches held for a full transport */
};

/*
 * The callbacks to open a transport with (its ctx NULL): they are the
 * node's, and txn_node_open() points the transport's ctx at the node.
 */
extern const struct txn_transport_cb txn_node_transport_cb;

/*
 * Open a node on @t, whose callbacks it takes over (the caller still
 * closes @t, after txn_node_close()).  Return: 0 and *@np, or -EINVAL,
 * -ENOMEM.
 */
int txn_node_open(struct txn_node **np, const struct txn_node_cfg *cfg,
		  struct txn_transport *t, const struct txn_node_hooks *h,
		  void *ctx);
void txn_node_close(struct txn_node *n);

/* txn_coord_begin(), with @user handed back with TXN_EV_DONE. */
int txn_node_begin(struct txn_node *n, const struct txn_branch *br,
		   uint16_t nbr, void *user, struct txn_id *id);
int txn_node_logged(struct txn_node *n, const struct txn_id *id);
int txn_node_vote(struct txn_node *n, const struct txn_id *id, bool yes,
		  uint32_t reason);
int txn_node_applied(struct txn_node *n, const struct txn_id *id);

/*
 * Batch the caller's own calls: between txn_node_cork() and
 * txn_node_uncork() begin, vote, applied and logged leave their
 * records in the batches, and the uncork sends them (a coordinator
 * that begins a window of transactions sends each participant one
 * message).  Calls made from a hook need no cork: the poll that ran the
 * hook sends their records when it returns.  Corks nest; a poll sends
 * what is batched even while corked.
 */
void txn_node_cork(struct txn_node *n);
void txn_node_uncork(struct txn_node *n);

/* txn_part_learned(): a decision from the dead coordinator's log */
int txn_node_learned(struct txn_node *n, const struct txn_id *id,
		     uint8_t decision);

/* after a restart, before the first poll (see txn_coord.h, txn_part.h) */
int txn_node_restore_commit(struct txn_node *n, const struct txn_id *id,
			    const uint32_t *nodes, uint16_t nn);
int txn_node_restore_prepared(struct txn_node *n, const struct txn_id *id);

/*
 * Run the transport for up to @timeout_ms (less when a deadline comes
 * first; 0: do not wait, -1: until something happens or a deadline)
 * and fire the machines' deadlines.  Return: messages that arrived, or
 * the transport's negative errno.
 */
int txn_node_poll(struct txn_node *n, int timeout_ms);

/*
 * For a caller's own event loop: the transport's fd (readable when
 * txn_node_poll() has messages to take) and how long the loop may wait
 * before a deadline of the machines is due (milliseconds, rounded up;
 * -1 when none is pending).  Call txn_node_poll(n, 0) when either
 * fires.
 */
int txn_node_fd(const struct txn_node *n);
int txn_node_timeout_ms(const struct txn_node *n);

const struct txn_coord *txn_node_coord(const struct txn_node *n);
const struct txn_part *txn_node_part(const struct txn_node *n);
void txn_node_stats(const struct txn_node *n, struct txn_node_stats *s);

#endif /* TXN_NODE_H */
