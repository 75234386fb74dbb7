/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the two-phase-commit state machines share (txn_coord.h, the
 * coordinator; txn_part.h, the participant): the effects they hand to
 * their caller, the events they report, and the table that holds their
 * transactions in flight.
 *
 * Both machines are pure: no I/O, no thread, no clock read, no
 * allocation.  Time comes in as `now` (nanoseconds of a monotonic clock,
 * never going back), memory is the caller's (sized by *_memsize()), and
 * every effect goes out through struct txn_ops, synchronously, from
 * inside the call that caused it.
 *
 * Calling back in from a callback: an event handler may call the
 * "answer" functions of the machine that raised it (txn_coord_begin(),
 * txn_coord_logged(); txn_part_vote(), txn_part_applied()), and log() may
 * call txn_coord_logged() at once (a log that is durable on return).
 * send() must only queue the record (the transport flushes its batches
 * after the call), and no callback may call *_on_rec(), *_peer(),
 * *_tick(), *_restore() or *_init().
 */
#ifndef TXN_SM_H
#define TXN_SM_H

#include <errno.h>
#include <stdint.h>

#include "txn_wire.h"

/* *_next_deadline(): nothing pending */
#define TXN_NEVER	UINT64_MAX

/* the reasons in no votes that the machines cast themselves */
#define TXN_REASON_FULL	ENOSPC		/* participant: no room for it */
#define TXN_REASON_DOWN	ENOTCONN	/* participant: coordinator Down */

/* why an ABORT: struct txn_event.why */
enum txn_why {
	TXN_WHY_NONE,
	TXN_WHY_VOTE,		/* a participant voted no (.reason) */
	TXN_WHY_TIMEOUT,	/* a participant never voted, retries spent */
	TXN_WHY_DOWN,		/* coordinator: a participant went Down before
				 * voting; participant: the coordinator did */
	TXN_WHY_MAX
};

enum txn_event_type {
	/*
	 * Coordinator: the outcome is final for the caller (.decision,
	 * and for an ABORT .why, .node and .reason).  The payloads given
	 * to txn_coord_begin() are free from here on.  A COMMIT still
	 * collects ACKs in the background (and holds its window slot).
	 */
	TXN_EV_DONE = 1,
	/*
	 * Coordinator: every participant ACKed this COMMIT: the log entry
	 * handed to txn_ops.log() (or restored) may be trimmed.
	 */
	TXN_EV_FORGET,
	/*
	 * Participant: prepare .rec (its participants by txn_rec_part(),
	 * its data; valid during the callback only), coordinator .node;
	 * answer with txn_part_vote().
	 */
	TXN_EV_PREPARE,
	/*
	 * Participant: apply .decision, then call txn_part_applied().
	 * .why TXN_WHY_DOWN: the participant aborted on its own (the
	 * coordinator went Down before the vote); txn_part_vote() then
	 * fails with -EALREADY.
	 */
	TXN_EV_DECIDE,
};

struct txn_event {
	uint8_t type;		/* enum txn_event_type */
	uint8_t decision;	/* TXRDMA_TXN_COMMIT or TXRDMA_TXN_ABORT */
	uint8_t why;		/* ABORT: enum txn_why */
	uint32_t node;		/* DONE: the participant behind an ABORT;
				 * PREPARE, DECIDE: the coordinator */
	uint32_t reason;	/* why TXN_WHY_VOTE: the no vote's reason */
	struct txn_id id;
	const struct txn_rec *rec;	/* PREPARE: the record */
};

struct txn_ops {
	/*
	 * Queue record @r to @node (a batch per node, flushed after the
	 * call).  @r and what it points at are valid during the call
	 * only: copy them (txn_writer_add() does).
	 */
	void (*send)(void *ctx, uint32_t node, const struct txn_rec *r);
	/*
	 * Coordinator only: make "COMMIT @id, participants @nodes[@n]"
	 * durable, then call txn_coord_logged() (at once or later).  The
	 * arguments are valid during the call only.
	 */
	void (*log)(void *ctx, const struct txn_id *id, const uint32_t *nodes,
		    uint16_t n);
	/* report @ev (valid during the call only) */
	void (*event)(void *ctx, const struct txn_event *ev);
};

/*
 * Internal to lib/txn (public only so that the machines' structs can be
 * embedded): the table of transactions in flight.  A slot per
 * transaction, found by id through a hash; a free slot is always the
 * lowest free one, so what the machines do never depends on the order
 * of earlier frees.  A slot may wait on one of TXN_TAB_QUEUES timer
 * queues; every deadline put on a queue is the time of the call plus
 * that queue's fixed timeout, so each queue is in deadline order by
 * construction: arming, disarming and finding the next due one are
 * O(1), with no heap.
 */
#define TXN_NIL		UINT32_MAX
#define TXN_TAB_QUEUES	2

struct txn_slot {
	struct txn_id id;
	uint64_t when;		/* deadline, when armed */
	uint32_t hnext;		/* next slot in its hash chain */
	uint32_t tprev, tnext;	/* neighbours in its timer queue */
	uint8_t q;		/* queue + 1 when armed, else 0 */
	uint8_t used;
};

struct txn_tab {
	struct txn_slot *s;
	uint32_t *bucket;	/* chain heads, mask + 1 of them */
	uint64_t *free;		/* a bit per slot: free */
	uint32_t cap, used, mask;
	uint32_t first[TXN_TAB_QUEUES], last[TXN_TAB_QUEUES];
	uint64_t now;		/* the latest time given: never goes back */
};

/* a walk over the armed slots in the order they fire */
struct txn_tab_iter {
	uint32_t at[TXN_TAB_QUEUES];
};

size_t txn_tab_memsize(uint32_t cap);
void txn_tab_init(struct txn_tab *t, uint32_t cap, void *mem);
void txn_tab_clock(struct txn_tab *t, uint64_t now);
uint32_t txn_tab_find(const struct txn_tab *t, const struct txn_id *id);
uint32_t txn_tab_add(struct txn_tab *t, const struct txn_id *id);
void txn_tab_del(struct txn_tab *t, uint32_t i);
void txn_tab_arm(struct txn_tab *t, uint32_t i, unsigned int q,
		 uint64_t timeout);
void txn_tab_disarm(struct txn_tab *t, uint32_t i);
uint32_t txn_tab_due(const struct txn_tab *t);
uint64_t txn_tab_next(const struct txn_tab *t);
void txn_tab_iter_init(const struct txn_tab *t, struct txn_tab_iter *it);
uint32_t txn_tab_iter_next(const struct txn_tab *t, struct txn_tab_iter *it);

#endif /* TXN_SM_H */
