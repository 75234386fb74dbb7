/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A libraft struct raft_io whose RPCs travel on the transaction layer's
 * transport (lib/txn/txn_transport.h): txrdma endpoint pairs, or TCP
 * for comparison and for hosts without RDMA.  Raft itself (elections,
 * replication, commitment) is libraft's; this file gives it a network,
 * a clock and a log store.  See txraft_io.c for the design.
 *
 * Use, on one thread:
 *
 *	struct txraft_io *x;
 *	txraft_io_new(&x, self_id, max_msg);
 *	txn_transport_open(&t, backend, ..., &txraft_io_transport_cb, x, ...);
 *	(add the peers to t: their transport node ids are their raft ids)
 *	txraft_io_attach(x, t);
 *	raft_init(&raft, txraft_io_raft(x), &fsm, self_id, address);
 *	raft_bootstrap(&raft, &conf) (a new cluster), raft_start(&raft);
 *	for (;;) txraft_io_poll(x, timeout_ms);
 *
 * Log store: txraft_store below, in memory or behind a write-ahead
 * file.  A server whose store was in memory only must not restart with
 * its old id (it would have forgotten its vote and what it
 * acknowledged): it rejoins as a new member.
 */
#ifndef TXRAFT_IO_H
#define TXRAFT_IO_H

#include <stdbool.h>
#include <stdint.h>

#include <raft.h>

#include "txn_transport.h"

struct txraft_io;
struct txraft_store;

/* counters, never reset */
struct txraft_io_stats {
	uint64_t msgs_out, msgs_in;	/* transport messages */
	uint64_t split;			/* AppendEntries sent in parts */
	uint64_t bad_in;		/* received messages that failed a check */
	uint64_t snapshots_in;		/* InstallSnapshot messages taken */
	uint64_t send_fail;		/* sends the transport refused */
	uint64_t appended;		/* entries stored */
	uint64_t leader_downs;		/* the leader's Downs acted on */
	uint64_t ticks;
	uint64_t hurried;		/* candidates' timers cut after a Down */
	uint64_t stood;			/* stood, refusing a pre-vote */
	uint64_t retried;		/* refused appends retried at once */
	uint64_t commit_clamped;	/* leader_commit cut to what an append covers */
};

/* The callbacks to open the transport with, @ctx the txraft_io. */
extern const struct txn_transport_cb txraft_io_transport_cb;

/*
 * What a server persists (term, vote, log, last snapshot), apart from
 * its raft_io so that it outlives one: a server that restarts on the
 * same store is a server that crashed and came back.
 * txraft_store_new(): in memory only (the process's lifetime).
 * txraft_store_open(): also in the write-ahead file @path (created if
 * need be, replayed if not): every change is synced before libraft is
 * told it is done (txraft_store.c); TXRAFT_STORE_NOSYNC skips the
 * syncs (tests: a process crash loses nothing, a host crash may).
 * Return: 0, -EINVAL, -ENOMEM, -EBADMSG (the file is damaged before
 * its last record), -EIO or another errno of open(2).
 */
#define TXRAFT_STORE_NOSYNC	(1U << 0)

struct txraft_store_stats {
	uint64_t records;	/* written and replayed */
	uint64_t syncs;		/* write+fdatasync, or pwritev2(RWF_DSYNC) */
	uint64_t flushes;	/* group commits of gathered records */
	uint64_t compactions;	/* the file rewritten after a snapshot */
	uint64_t torn_bytes;	/* cut off a torn last record at open */
};

int txraft_store_new(struct txraft_store **sp);
int txraft_store_open(struct txraft_store **sp, const char *path,
		      unsigned int flags);
void txraft_store_stats(const struct txraft_store *s,
			struct txraft_store_stats *st);
void txraft_store_free(struct txraft_store *s);	/* not while an io has it */
/*
 * The errno of the first write, sync or rename of its file that failed
 * (after which every change fails with RAFT_IOERR), and in *@what the
 * call's name; 0 (*@what NULL) while none has.  A server whose libraft
 * turned unavailable says why with it.
 */
int txraft_store_error(const struct txraft_store *s, const char **what);
/* its log: index of the first entry, the count, one entry (or NULL) */
raft_index txraft_store_start(const struct txraft_store *s);
size_t txraft_store_count(const struct txraft_store *s);
const struct raft_entry *txraft_store_entry(const struct txraft_store *s,
					    raft_index index);

/*
 * A raft_io for server @self (not 0, at most UINT32_MAX: it is also its
 * transport node id) on a transport whose messages take at most
 * @max_msg bytes (the backend's limit; AppendEntries longer than that
 * leave in parts), keeping its state in @store (NULL: a store of its
 * own, freed with it; else one no other io has).  Return: 0 and *@xp,
 * -EINVAL, -ENOMEM.
 */
int txraft_io_new(struct txraft_io **xp, uint64_t self, uint32_t max_msg,
		  struct txraft_store *store);

/*
 * The clock libraft's timers run on, in milliseconds (default:
 * CLOCK_MONOTONIC): a simulation injects its own.  Also seeds the
 * random election timeouts from @self and the clock's reading.
 */
void txraft_io_set_clock(struct txraft_io *x, uint64_t (*now)(void *ctx),
			 void *ctx);

/*
 * Name peer @id (its transport node id too) and the address libraft
 * reports for it (raft_leader()).  Messages from transport nodes that
 * are not named peers are dropped.  Return: 0, -EINVAL, -EEXIST,
 * -ENOMEM.
 */
int txraft_io_add_peer(struct txraft_io *x, uint64_t id, const char *address);

/*
 * Let the transport's peer Down events cut the wait for an election:
 * when the leader that @r (raft_init()'d on this io) follows goes down,
 * @r forgets it and its election timer expires after @stagger_ms times
 * its rank among the other voters (0 for the lowest id), not after
 * 1-2 election timeouts; until a leader is known again (at most one
 * election timeout), a candidate that has not won asks again after
 * (rank + 1) * @stagger_ms / 2 (at least (rank + 1) * 10 ms), so a
 * refused or split vote does not wait out a timeout either; and a
 * follower that refuses a pre-vote meanwhile stands at once (the
 * candidate's log is behind its own).  As leader, @r resends a refused
 * AppendEntries at once instead of a heartbeat later.  Safety stays
 * Raft's (terms and votes): a wrong Down only makes this follower ask
 * for pre-votes that followers still hearing the leader refuse.  The
 * Down rules act only while @r has pre-vote on (raft_set_pre_vote()).
 * See txraft_io.c.  NULL: off.
 */
void txraft_io_watch_leader(struct txraft_io *x, struct raft *r,
			    unsigned int stagger_ms);

/* The transport, opened with txraft_io_transport_cb and @x as ctx. */
void txraft_io_attach(struct txraft_io *x, struct txn_transport *t);

/* What raft_init() takes. */
struct raft_io *txraft_io_raft(struct txraft_io *x);

/*
 * Run what is due: the transport's I/O and messages (waiting up to
 * @timeout_ms, less when a tick is due sooner), completions of
 * appends and sends, and libraft's tick.  Return: messages delivered,
 * or a negative errno from the transport.
 */
int txraft_io_poll(struct txraft_io *x, int timeout_ms);

/*
 * For a caller's own event loop over several raft_ios (and other
 * work): how long it may sleep on the transport's fd before
 * txraft_io_poll(x, 0) is due for libraft's tick or for work already
 * queued, in milliseconds; 0: now; -1: no deadline (closed, or not
 * started).
 */
int txraft_io_timeout_ms(const struct txraft_io *x);

/* raft_close() has called back: the raft_io is closed. */
bool txraft_io_closed(const struct txraft_io *x);

void txraft_io_stats(const struct txraft_io *x, struct txraft_io_stats *s);

/*
 * For a leader's flow control: how many entries the follower furthest
 * behind lacks of the leader's log (the leader's last index less
 * libraft's match index for it), among the voters whose transport peer
 * is up and that answered an AppendEntries, or whose peer came up,
 * within the election timeout (a live follower answers every
 * heartbeat; one whose host is up but whose raft has stopped,
 * unavailable after a failed write say, or that the leader's appends
 * no longer reach, answers none and must not hold the others back).
 * A majority commits without the slowest follower, so a slow one can
 * fall behind without bound; if the leader then dies and that
 * follower is the one left, the new leader must send it the whole
 * backlog before it commits anything.  A leader that proposes only
 * while this is under a bound keeps every live follower within reach
 * (as MySQL group replication's flow control bounds a member's queue),
 * at the price of the slowest live follower's pace, and of a pause
 * while one that rejoins far behind catches up (libraft sends it a
 * snapshot when the entries it lacks are gone).  0 when the watched
 * raft (txraft_io_watch_leader()) is not leading, none is watched, or
 * no transport is attached.
 */
uint64_t txraft_io_lag(const struct txraft_io *x);

/*
 * Free @x after raft_close() has called back (the raft_io is closed);
 * the transport is the caller's.
 */
void txraft_io_free(struct txraft_io *x);

#endif /* TXRAFT_IO_H */
