// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libraft's raft_io on the transaction layer's transport.
 *
 * libraft is an event-driven engine: it asks its raft_io to send,
 * append, truncate and store snapshots, and expects each asynchronous
 * request's callback later, from the same loop, never from inside the
 * call (its state is mid-update then).  So every request is done or
 * handed to the transport at once and its completion queued;
 * txraft_io_poll() runs the transport (whose message callback decodes
 * and delivers RPCs), then the queued completions in order, then the
 * tick.  Closing is the same: raft_close() asks, the next poll
 * completes what was queued (with its real status: each request was
 * done when made) and only then calls libraft back, which frees its
 * state.
 *
 * Sending: a message is encoded once into the transport's message (the
 * transport copies it into its registered send buffer or socket queue);
 * an AppendEntries longer than the transport takes leaves as several,
 * each a valid AppendEntries of its own (prev_log_index and
 * prev_log_term of the entry before its first), which Raft accepts in
 * order as it would accept them from two heartbeats.  A message the
 * transport refuses (peer down, queue full) completes with
 * RAFT_NOCONNECTION: Raft resends what matters.
 *
 * Receiving: a message is taken only from a transport node that is a
 * named peer and only with the same server id in its header, and only
 * when every check of txraft_wire_decode() passes (entries' CRC32C
 * included); anything else is dropped and counted, never half
 * delivered.
 *
 * Log store: entries are copied into memory the store owns (libraft
 * keeps its own references and frees its buffers when it likes), so a
 * load hands back fresh copies in one batch, as libraft's own store
 * does.  Appends are gathered and written to the store's file by one
 * flush per poll before any of them completes (txraft_store.c: group
 * commit, and a leader's write in parallel with its sends).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <linux/txrdma_raft.h>

#include "txraft_io.h"
#include "txraft_store.h"
#include "txraft_wire.h"

enum pending_kind {
	P_APPEND,
	P_SEND,
	P_SNAPSHOT_PUT,
	P_SNAPSHOT_GET,
};

struct pending {
	struct pending *next;
	enum pending_kind kind;
	int status;
	union {
		struct raft_io_append *append;
		struct raft_io_send *send;
		struct raft_io_snapshot_put *put;
		struct raft_io_snapshot_get *get;
	};
};

struct peer_name {
	uint64_t id;
	char *address;
	uint64_t heard_ms;	/* io_now() of its last message, 0: never */
	uint64_t up_ms;		/* io_now() when its peer last came up */
};

struct txraft_io {
	struct raft_io io;
	struct txn_transport *t;
	uint64_t self;
	uint32_t max_msg;
	void *scratch;		/* one encoded or realigned message */
	size_t scratch_cap;
	struct txraft_store *s;
	bool own_store;
	uint64_t (*clock)(void *ctx);
	void *clock_ctx;

	unsigned int tick_ms;
	uint64_t next_tick;
	raft_io_tick_cb tick;
	raft_io_recv_cb recv;

	struct pending *head, *tail;
	raft_io_close_cb close_cb;
	bool closing, closed;

	struct peer_name *peers;
	size_t npeers;
	uint64_t rnd;
	struct raft *watch;		/* txraft_io_watch_leader() */
	unsigned int stagger_ms;
	unsigned int rank;		/* among the voters left, at the Down */
	uint64_t hurry_until;		/* hurry_election() until then, 0: not */
	uint64_t behind_from;		/* pre-vote candidate, log behind ours */
	struct txraft_io_stats st;
};

static struct txraft_io *io_of(struct raft_io *io)
{
	return io->impl;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static uint64_t io_now(const struct txraft_io *x)
{
	return x->clock ? x->clock(x->clock_ctx) : now_ms();
}

static void queue(struct txraft_io *x, struct pending *p)
{
	p->next = NULL;
	if (x->tail)
		x->tail->next = p;
	else
		x->head = p;
	x->tail = p;
}

static int queue_new(struct txraft_io *x, enum pending_kind kind, void *req,
		     int status)
{
	struct pending *p = calloc(1, sizeof(*p));

	if (!p)
		return RAFT_NOMEM;
	p->kind = kind;
	p->status = status;
	p->append = req;	/* the union: every member a request pointer */
	queue(x, p);
	return 0;
}

/* a buffer of at least @len bytes, 8-byte aligned (malloc's are 16) */
static void *scratch(struct txraft_io *x, size_t len)
{
	void *p;

	if (len <= x->scratch_cap)
		return x->scratch;
	p = realloc(x->scratch, len);
	if (!p)
		return NULL;
	x->scratch = p;
	x->scratch_cap = len;
	return p;
}

/* ---- raft_io methods ---------------------------------------------- */

static int m_init(struct raft_io *io, raft_id id, const char *address)
{
	(void)address;
	return id == io_of(io)->self ? 0 : RAFT_BADID;
}

static void m_close(struct raft_io *io, raft_io_close_cb cb)
{
	struct txraft_io *x = io_of(io);

	/* completed in the next poll: never inside libraft's own call */
	x->closing = true;
	x->close_cb = cb;
}

static int m_load(struct raft_io *io, raft_term *term, raft_id *voted_for,
		  struct raft_snapshot **snapshot, raft_index *start_index,
		  struct raft_entry *entries[], size_t *n_entries)
{
	struct txraft_io *x = io_of(io);
	struct raft_entry *es = NULL;
	size_t i, total = 0, off = 0;
	char *batch = NULL;

	*snapshot = NULL;
	if (x->s->snap) {
		*snapshot = txraft_snapshot_copy(x->s->snap);
		if (!*snapshot)
			return RAFT_NOMEM;
	}
	if (x->s->n) {
		for (i = 0; i < x->s->n; i++)
			total += x->s->log[i].buf.len;
		es = raft_calloc(x->s->n, sizeof(*es));
		batch = raft_malloc(total ? total : 1);
		if (!es || !batch) {
			raft_free(es);
			raft_free(batch);
			txraft_snapshot_free(*snapshot);
			*snapshot = NULL;
			return RAFT_NOMEM;
		}
		for (i = 0; i < x->s->n; i++) {
			es[i] = x->s->log[i];
			es[i].batch = batch;
			es[i].buf.base = batch + off;
			memcpy(batch + off, x->s->log[i].buf.base,
			       x->s->log[i].buf.len);
			off += x->s->log[i].buf.len;
		}
	}
	*term = x->s->term;
	*voted_for = x->s->vote;
	*start_index = x->s->start;
	*entries = es;
	*n_entries = x->s->n;
	return 0;
}

static int m_start(struct raft_io *io, unsigned int msecs,
		   raft_io_tick_cb tick, raft_io_recv_cb recv)
{
	struct txraft_io *x = io_of(io);

	if (!msecs)
		return RAFT_INVALID;
	x->tick_ms = msecs;
	x->tick = tick;
	x->recv = recv;
	x->next_tick = io_now(x) + msecs;
	return 0;
}

/* a configuration entry of @term at the log's end */
static int append_conf(struct txraft_io *x, raft_term term,
		       const struct raft_configuration *conf)
{
	struct raft_entry e = { .term = term, .type = RAFT_CHANGE };
	int rv;

	rv = raft_configuration_encode(conf, &e.buf);
	if (rv)
		return rv;
	rv = txraft_store_append(x->s, &e, 1);
	if (!rv)
		x->st.appended++;
	raft_free(e.buf.base);
	return rv;
}

static int m_bootstrap(struct raft_io *io, const struct raft_configuration *conf)
{
	struct txraft_io *x = io_of(io);
	int rv;

	if (x->s->term || x->s->n || x->s->snap)
		return RAFT_CANTBOOTSTRAP;
	rv = append_conf(x, 1, conf);
	if (rv)
		return rv;
	return txraft_store_set_term(x->s, 1);
}

static int m_recover(struct raft_io *io, const struct raft_configuration *conf)
{
	struct txraft_io *x = io_of(io);

	/* as libraft's own store: the new configuration, last in the log */
	return append_conf(x, x->s->term, conf);
}

static int m_set_term(struct raft_io *io, raft_term term)
{
	return txraft_store_set_term(io_of(io)->s, term);
}

static int m_set_vote(struct raft_io *io, raft_id server_id)
{
	return txraft_store_set_vote(io_of(io)->s, server_id);
}

/* encode @m and hand it to the transport: 0 or a RAFT_* status */
static int send_one(struct txraft_io *x, const struct raft_message *m)
{
	size_t len = txraft_wire_size(m);
	void *buf;
	long n;
	int ret;

	if (!len)
		return RAFT_INVALID;
	if (len > x->max_msg)
		return RAFT_TOOBIG;
	buf = scratch(x, len);
	if (!buf)
		return RAFT_NOMEM;
	n = txraft_wire_encode(m, x->self, buf, len);
	if (n < 0)
		return RAFT_INVALID;
	ret = txn_transport_send(x->t, (uint32_t)m->server_id, buf, (size_t)n);
	if (ret) {
		x->st.send_fail++;
		return ret == -ENOMEM ? RAFT_NOMEM : RAFT_NOCONNECTION;
	}
	x->st.msgs_out++;
	return 0;
}

static raft_index min_index(raft_index a, raft_index b)
{
	return a < b ? a : b;
}

/*
 * An AppendEntries in parts that each fit the transport: entries
 * [first, first + k) with the entry before first as prev.
 */
static int send_entries(struct txraft_io *x, const struct raft_message *m)
{
	const struct raft_append_entries *ae = &m->append_entries;
	struct raft_message part = *m;
	unsigned int first = 0, k;
	int rv;

	rv = send_one(x, m);
	if (rv != RAFT_TOOBIG)
		return rv;
	x->st.split++;
	while (first < ae->n_entries) {
		part.append_entries.entries = ae->entries + first;
		part.append_entries.prev_log_index = ae->prev_log_index + first;
		part.append_entries.prev_log_term = first ?
			ae->entries[first - 1].term : ae->prev_log_term;
		/* as many as fit: the size grows with every entry */
		for (k = 1; first + k <= ae->n_entries; k++) {
			part.append_entries.n_entries = k;
			if (txraft_wire_size(&part) > x->max_msg)
				break;
		}
		if (k == 1)
			return RAFT_TOOBIG;	/* one entry alone is too long */
		part.append_entries.n_entries = k - 1;
		/*
		 * A part vouches only for what it carries: the follower
		 * may commit no further (clamp_commit(), receiving side)
		 */
		part.append_entries.leader_commit =
			min_index(ae->leader_commit,
				  part.append_entries.prev_log_index + k - 1);
		rv = send_one(x, &part);
		if (rv)
			return rv;
		first += k - 1;
	}
	return 0;
}

static void stand_now(struct txraft_io *x);

static int m_send(struct raft_io *io, struct raft_io_send *req,
		  const struct raft_message *message, raft_io_send_cb cb)
{
	struct txraft_io *x = io_of(io);
	int status;

	if (x->closing)
		return RAFT_CANCELED;
	if (!message->server_id || message->server_id > UINT32_MAX)
		return RAFT_INVALID;
	if (message->type == RAFT_IO_REQUEST_VOTE_RESULT &&
	    !message->request_vote_result.vote_granted &&
	    message->request_vote_result.pre_vote == raft_tribool_true &&
	    message->server_id == x->behind_from)
		stand_now(x);
	x->behind_from = 0;
	req->cb = cb;
	if (message->type == RAFT_IO_APPEND_ENTRIES)
		status = send_entries(x, message);
	else
		status = send_one(x, message);
	return queue_new(x, P_SEND, req, status);
}

static int m_append(struct raft_io *io, struct raft_io_append *req,
		    const struct raft_entry entries[], unsigned int n,
		    raft_io_append_cb cb)
{
	struct txraft_io *x = io_of(io);
	struct pending *p;
	int rv;

	if (x->closing)
		return RAFT_CANCELED;
	/* its completion's memory first: a stored append always completes */
	p = calloc(1, sizeof(*p));
	if (!p)
		return RAFT_NOMEM;
	/*
	 * In memory now; into the file (synced) by the flush before its
	 * completion, together with every other append of this poll.
	 * libraft sends a leader's new entries to the followers after
	 * this returns, so they travel while the leader writes its own.
	 */
	rv = txraft_store_append(x->s, entries, n);
	if (rv) {
		free(p);
		return rv;
	}
	x->st.appended += n;
	req->cb = cb;
	p->kind = P_APPEND;
	p->append = req;
	queue(x, p);
	return 0;
}

static int m_truncate(struct raft_io *io, raft_index index)
{
	return txraft_store_truncate(io_of(io)->s, index);
}

static int m_snapshot_put(struct raft_io *io, unsigned int trailing,
			  struct raft_io_snapshot_put *req,
			  const struct raft_snapshot *snapshot,
			  raft_io_snapshot_put_cb cb)
{
	struct txraft_io *x = io_of(io);
	struct raft_snapshot *s;
	struct pending *p;
	int rv;

	if (x->closing)
		return RAFT_CANCELED;
	p = calloc(1, sizeof(*p));
	s = txraft_snapshot_copy(snapshot);
	if (!p || !s) {
		free(p);
		txraft_snapshot_free(s);
		return RAFT_NOMEM;
	}
	/* the store takes the copy (and rewrites its file) */
	rv = txraft_store_snapshot(x->s, s, trailing);
	if (rv) {
		free(p);
		return rv;
	}
	req->cb = cb;
	p->kind = P_SNAPSHOT_PUT;
	p->put = req;
	queue(x, p);
	return 0;
}

static int m_snapshot_get(struct raft_io *io, struct raft_io_snapshot_get *req,
			  raft_io_snapshot_get_cb cb)
{
	struct txraft_io *x = io_of(io);

	if (x->closing)
		return RAFT_CANCELED;
	req->cb = cb;
	return queue_new(x, P_SNAPSHOT_GET, req, 0);
}

static raft_time m_time(struct raft_io *io)
{
	return io_now(io_of(io));
}

static int m_random(struct raft_io *io, int min, int max)
{
	struct txraft_io *x = io_of(io);

	/* xorshift64*: election timeouts spread per server */
	x->rnd ^= x->rnd >> 12;
	x->rnd ^= x->rnd << 25;
	x->rnd ^= x->rnd >> 27;
	if (max <= min)
		return min;
	return min + (int)((x->rnd * 0x2545f4914f6cdd1dULL >> 33) %
			   (uint64_t)(max - min));
}

/* ---- the loop ----------------------------------------------------- */

static void complete(struct txraft_io *x, struct pending *p, bool cancel)
{
	int status = cancel ? RAFT_CANCELED : p->status;

	switch (p->kind) {
	case P_APPEND:
		if (p->append->cb)
			p->append->cb(p->append, status);
		break;
	case P_SEND:
		if (p->send->cb)
			p->send->cb(p->send, status);
		break;
	case P_SNAPSHOT_PUT:
		if (p->put->cb)
			p->put->cb(p->put, status);
		break;
	case P_SNAPSHOT_GET: {
		struct raft_snapshot *s = NULL;

		if (!cancel) {
			s = x->s->snap ? txraft_snapshot_copy(x->s->snap) : NULL;
			if (x->s->snap && !s)
				status = RAFT_NOMEM;
			else if (!x->s->snap)
				status = RAFT_NOTFOUND;
		}
		p->get->cb(p->get, s, status);
		break;
	}
	}
	free(p);
}

/*
 * The write-ahead file could not be written: stop the process.  Its
 * memory is ahead of its file, which only a restart (a replay of the
 * file) puts right, and a sync that failed is not retried (PostgreSQL's
 * lesson: the kernel may have dropped the pages it failed to write).
 * Nor can libraft be told: it handles one failed append of a leader,
 * but a second one in the same group (window 32 gives dozens) trips its
 * own assertion in logTruncate (libraft 0.15, appendLeaderCb), so a
 * failed group commit would abort there anyway, later and less clearly.
 */
static void flush_failed(struct txraft_io *x)
{
	const char *what;
	int err = txraft_store_error(x->s, &what);

	fprintf(stderr, "txraft: server %llu: its write-ahead file could not be written (%s: %s); stopping, as after a failed fsync: restart it on its file\n",
		(unsigned long long)x->self, what ? what : "unknown call",
		err ? strerror(err) : "unknown error");
	abort();
}

/*
 * Complete what is queued, in order.  Appends were only gathered in
 * the store: one flush makes all of them durable first (group
 * commit), and they complete with its status.  Completions may queue
 * more (libraft answers a stored AppendEntries from its callback):
 * those are taken in a round of their own, flushed before they
 * complete.
 */
static void run_pending(struct txraft_io *x, bool cancel)
{
	struct pending *p, *list;
	int flushed;

	while ((list = x->head)) {
		x->head = x->tail = NULL;
		flushed = 0;
		for (p = list; p && !cancel; p = p->next) {
			if (p->kind == P_APPEND) {
				flushed = txraft_store_flush(x->s);
				if (flushed)
					flush_failed(x);
				break;
			}
		}
		while ((p = list)) {
			list = p->next;
			if (p->kind == P_APPEND)
				p->status = flushed;
			complete(x, p, cancel);
		}
	}
}

/*
 * A follower refused this leader's AppendEntries (its log does not hold
 * the previous entry): libraft moves its next index back and retries,
 * but a follower in probe state (every follower of a new leader) gets
 * at most one AppendEntries per heartbeat interval, and the refused one
 * was just sent, so the corrected one waited a heartbeat, up to two
 * with the tick's phase.  After a failover whose followers' logs
 * differed, that was 20-40 ms before the new leader's first commit in
 * the guests.  Marking the last send as long ago lets the retry leave
 * with this result, as Raft's "decrement nextIndex and retry" reads;
 * when libraft finds the refusal stale it sends nothing, and the next
 * tick sends a heartbeat early.  Which AppendEntries is sent when is
 * the leader's to choose: safety is untouched.  raft.h makes the
 * progress array public; libraft 0.15's progress.c uses last_send
 * only to pace probes and heartbeats.
 */
static void retry_at_once(struct txraft_io *x, raft_id from, raft_term term)
{
	struct raft *r = x->watch;
	unsigned int i;

	if (!r || raft_state(r) != RAFT_LEADER || term != r->current_term ||
	    !r->leader_state.progress)
		return;
	for (i = 0; i < r->configuration.n; i++)
		if (r->configuration.servers[i].id == from) {
			r->leader_state.progress[i].last_send = 0;
			x->st.retried++;
		}
}

/*
 * Raft's rule for a follower (Figure 2 of the paper): "if leaderCommit
 * > commitIndex, set commitIndex = min(leaderCommit, index of last new
 * entry)", the last entry this AppendEntries vouches for.  libraft 0.15
 * takes min(leader_commit, last_stored) instead when every entry of the
 * message is already in the log (replicationAppend(), n == 0, and so
 * for a heartbeat).  A deposed leader keeps a tail of its own term that
 * no majority stored; while the new leader sends it entries that match
 * its log up to a point before that tail's end, it would commit and
 * apply the whole tail, which the new leader's log replaces.  Seen in
 * the raft suite (libraft then stops on "new index conflicts with
 * committed entry", the replicas already diverged): send_entries()
 * cuts a catch-up into parts that each carry the leader's commit.
 * Cutting leader_commit to prev_log_index + n_entries before libraft
 * sees the message restores the paper's rule.  libraft's own messages
 * (probes, pipelined appends, heartbeats) all reach the leader's last
 * index, so only parts other than the last are cut: a follower commits
 * no later than before.  send_entries() cuts its parts the same way,
 * for receivers that do not (counted here as well when one arrives).
 */
static void clamp_commit(struct txraft_io *x, struct raft_append_entries *ae)
{
	raft_index covered = ae->prev_log_index + ae->n_entries;

	if (ae->leader_commit > covered) {
		ae->leader_commit = covered;
		x->st.commit_clamped++;
	}
}

/*
 * Whether @rv's candidate has a log behind this server's, by Raft's
 * up-to-date rule (last term, then last index), and this server is a
 * voter: the refusal that stand_now() may answer.  libraft refuses a
 * pre-vote for other reasons too (a term behind, a leader still
 * known, not a voter), and in those the refuser may have the shorter
 * log.  Reads the public struct raft_log as libraft's log.c does.
 */
static bool candidate_behind(const struct raft *r,
			     const struct raft_request_vote *rv)
{
	const struct raft_log *l = &r->log;
	size_t n = l->back >= l->front ? l->back - l->front :
		   l->size - l->front + l->back;
	/* logLastIndex() and logLastTerm() of libraft's log.c */
	raft_index last = l->offset + n;
	raft_term term = n ? l->entries[(l->back ? l->back : l->size) - 1].term
		       : last && last == l->snapshot.last_index ?
			 l->snapshot.last_term : 0;
	unsigned int i;
	bool voter = false;

	for (i = 0; i < r->configuration.n; i++)
		if (r->configuration.servers[i].id == r->id)
			voter = r->configuration.servers[i].role == RAFT_VOTER;
	return voter && (rv->last_log_term < term ||
			 (rv->last_log_term == term &&
			  rv->last_log_index < last));
}

static void on_msg(void *ctx, uint32_t node, const void *msg, size_t len)
{
	struct txraft_io *x = ctx;
	struct raft_message m;
	const char *addr = NULL;
	size_t i;

	if (!x->recv || x->closing)
		return;
	for (i = 0; i < x->npeers; i++)
		if (x->peers[i].id == node)
			addr = x->peers[i].address;
	/* the transport's messages are ours for the call; realign if need be */
	if ((uintptr_t)msg & 7) {
		void *a = scratch(x, len);

		if (!a) {
			x->st.bad_in++;
			return;
		}
		memcpy(a, msg, len);
		msg = a;
	}
	if (!addr || txraft_wire_decode(msg, len, &m)) {
		x->st.bad_in++;
		return;
	}
	if (m.server_id != node) {
		/* a node speaks only for itself */
		txraft_wire_release(&m);
		x->st.bad_in++;
		return;
	}
	/*
	 * An answer to this leader's appends is what flow control counts
	 * as heard (txraft_io_lag()): a follower cut off from them still
	 * sends pre-votes, and must not hold the leader back by them.
	 */
	for (i = 0; m.type == RAFT_IO_APPEND_ENTRIES_RESULT && i < x->npeers;
	     i++)
		if (x->peers[i].id == node)
			x->peers[i].heard_ms = io_now(x);
	m.server_address = addr;
	if (m.type == RAFT_IO_APPEND_ENTRIES)
		clamp_commit(x, &m.append_entries);
	x->behind_from = 0;
	if (m.type == RAFT_IO_REQUEST_VOTE && m.request_vote.pre_vote &&
	    x->watch && candidate_behind(x->watch, &m.request_vote))
		x->behind_from = m.server_id;
	if (m.type == RAFT_IO_APPEND_ENTRIES_RESULT &&
	    m.append_entries_result.rejected)
		retry_at_once(x, m.server_id, m.append_entries_result.term);
	x->st.msgs_in++;
	if (m.type == RAFT_IO_INSTALL_SNAPSHOT)
		x->st.snapshots_in++;
	/* libraft takes the message's memory */
	x->recv(&x->io, &m);
	x->behind_from = 0;	/* its answer, if any, went out in recv */
}

/*
 * The transport says the leader this follower knows went down (txrdma:
 * the module's liveness Down, about 80 ms after the last probe; TCP:
 * its connection closed).  Without this, libraft waits out its
 * election timeout, 1-2 times election_timeout since the leader's last
 * message, and another follower that still remembers the leader
 * refuses to vote until its own timeout has passed too (leader
 * stickiness).  So: forget the leader, as libraft's own conversion to
 * candidate does, and let the election timer expire after a stagger
 * that grows with this server's rank among the other voters (lowest id
 * first), so that two followers of a dead leader do not split the vote
 * by starting together.
 *
 * Safety does not depend on it: Raft's terms and votes decide, and a
 * timeout or a forgotten leader is something any follower may see.  A
 * wrong Down (a leader that only stalled) makes this follower ask for
 * pre-votes; the other followers, which still hear the leader, refuse
 * them (they know a leader), and its term does not change.  That needs
 * pre-vote (raft_set_pre_vote()): without it the follower would stand
 * for a new term at once, and its RequestVote would depose the live
 * leader, so then a Down is left to the election timeout.  Only when
 * most of the cluster lost the leader does a new one take over, which
 * is what a Down of a live leader on every side should mean.
 *
 * This reads and writes struct raft fields that raft.h makes public
 * (follower_state, election_timer_start) the way libraft 0.15's
 * convert.c and election.c use them.
 */
static void leader_down(struct txraft_io *x, uint32_t node)
{
	struct raft *r = x->watch;
	unsigned int i, rank = 0;
	uint64_t now, due;

	/* without pre-vote a wrong Down would depose a live leader */
	if (!r->pre_vote || raft_state(r) != RAFT_FOLLOWER ||
	    r->follower_state.current_leader.id != node)
		return;
	for (i = 0; i < r->configuration.n; i++) {
		const struct raft_server *v = &r->configuration.servers[i];

		if (v->role == RAFT_VOTER && v->id != node && v->id < x->self)
			rank++;
	}
	now = io_now(x);
	due = now + (uint64_t)rank * x->stagger_ms;
	x->rank = rank;
	x->hurry_until = now + r->election_timeout;
	r->follower_state.current_leader.id = 0;
	raft_free(r->follower_state.current_leader.address);
	r->follower_state.current_leader.address = NULL;
	if (due - r->election_timer_start <
	    r->follower_state.randomized_election_timeout)
		r->follower_state.randomized_election_timeout =
			(unsigned int)(due - r->election_timer_start);
	/* libraft checks its timer on a tick: make one due then */
	if (x->tick && x->next_tick > due)
		x->next_tick = due;
	x->st.leader_downs++;
}

/*
 * After a Down of its leader, until a leader is known again or one
 * election timeout has passed: a candidate that has not won asks again
 * after a short retry, half the stagger times its rank + 1, not after
 * a whole randomized election timeout (1-2 s).  Two cases made that
 * wait, both seen when leader guests were killed: the first follower's
 * pre-vote is refused by one whose own Down comes tens of ms later (it
 * still knows the leader), and two followers whose Downs come close
 * together both win their pre-votes and split the real vote.  Asking
 * again is what a timed-out candidate does anyway (a pre-vote again,
 * or a new term after a won pre-vote), so Raft's safety is untouched;
 * the ranks keep two candidates' retries apart, the lower one first,
 * and a higher term from it makes the other a follower that can vote.
 * Once a leader is known the follower's timeout is drawn afresh, so
 * the one leader_down() shortened does not outlive the Down.
 */
static void hurry_election(struct txraft_io *x, uint64_t now)
{
	struct raft *r = x->watch;
	unsigned int retry;
	uint64_t due;

	if (!x->hurry_until)
		return;
	if (raft_state(r) == RAFT_LEADER ||
	    (raft_state(r) == RAFT_FOLLOWER &&
	     r->follower_state.current_leader.id)) {
		x->hurry_until = 0;
		if (raft_state(r) == RAFT_FOLLOWER)
			r->follower_state.randomized_election_timeout =
				(unsigned int)m_random(&x->io,
						       (int)r->election_timeout,
						       2 * (int)r->election_timeout);
		return;
	}
	if (now >= x->hurry_until) {
		x->hurry_until = 0;
		return;
	}
	if (raft_state(r) != RAFT_CANDIDATE)
		return;
	/* at least 10 ms apart, whatever the stagger: no storm of asks */
	retry = (x->rank + 1) * (x->stagger_ms > 20 ? x->stagger_ms / 2 : 10);
	if (r->candidate_state.randomized_election_timeout > retry) {
		r->candidate_state.randomized_election_timeout = retry;
		x->st.hurried++;
	}
	due = r->election_timer_start + retry;
	if (x->tick && x->next_tick > due)
		x->next_tick = due;
}

/*
 * This follower, its leader Down and no new one known, refuses a
 * candidate's pre-vote whose log is behind its own (Raft's up-to-date
 * rule; on_msg() compares them, candidate_behind()).  A refusal only
 * for another reason (the candidate's term behind, this server no
 * voter) does not count: then the refuser may have the shorter log.
 * So the candidate cannot win this vote however often it asks
 * (its hurried retries), and this follower, whose log is the longer,
 * is the one that can: it stands now instead of after its stagger.
 * Seen when leader guests were killed: the follower ranked first was
 * a few entries short and the other waited out its 50 ms.  Standing is
 * what its election timer would make it do anyway; terms and votes
 * decide as always.
 */
static void stand_now(struct txraft_io *x)
{
	struct raft *r = x->watch;
	uint64_t now;

	if (!r || !x->hurry_until || raft_state(r) != RAFT_FOLLOWER ||
	    r->follower_state.current_leader.id)
		return;
	now = io_now(x);
	if (now >= x->hurry_until)
		return;
	if (now - r->election_timer_start <
	    r->follower_state.randomized_election_timeout) {
		r->follower_state.randomized_election_timeout =
			(unsigned int)(now - r->election_timer_start);
		x->st.stood++;
	}
	if (x->tick && x->next_tick > now)
		x->next_tick = now;
}

static void on_peer(void *ctx, uint32_t node, bool up)
{
	struct txraft_io *x = ctx;
	size_t i;

	for (i = 0; up && i < x->npeers; i++)
		if (x->peers[i].id == node)
			x->peers[i].up_ms = io_now(x);
	/* otherwise Raft's own timeouts and retries cover a lost peer */
	if (!up && x->watch && !x->closing)
		leader_down(x, node);
}

const struct txn_transport_cb txraft_io_transport_cb = {
	.msg = on_msg,
	.peer = on_peer,
};

int txraft_io_poll(struct txraft_io *x, int timeout_ms)
{
	uint64_t now;
	int n = 0, wait = timeout_ms;

	if (x->closed)
		return 0;
	if (x->closing) {
		/*
		 * Every request was done when it was made (appends gathered,
		 * flushed here; sends handed over): they complete as they
		 * are, not cancelled.  libraft 0.15 follows a leader's
		 * failed append into request state its close has already
		 * cleared.
		 */
		run_pending(x, false);
		x->closed = true;
		if (x->close_cb)
			x->close_cb(&x->io);
		return 0;
	}
	/* before the wait: a candidate's timer, new since, is cut first */
	if (x->watch)
		hurry_election(x, io_now(x));
	if (x->head)
		wait = 0;
	else if (x->tick) {
		now = io_now(x);
		if (x->next_tick <= now)
			wait = 0;
		else if (wait < 0 || (uint64_t)wait > x->next_tick - now)
			wait = (int)(x->next_tick - now);
	}
	if (x->t) {
		n = txn_transport_poll(x->t, wait);
		if (n < 0)
			return n;
	}
	run_pending(x, false);
	if (x->tick && !x->closing) {
		now = io_now(x);
		if (now >= x->next_tick) {
			/* one tick for however long we were away */
			x->next_tick = now + x->tick_ms;
			x->st.ticks++;
			x->tick(&x->io);
		}
	}
	return n;
}

/* ---- set-up ------------------------------------------------------- */

int txraft_io_new(struct txraft_io **xp, uint64_t self, uint32_t max_msg,
		  struct txraft_store *store)
{
	struct txraft_io *x;
	int ret;

	if (!self || self > UINT32_MAX ||
	    max_msg < sizeof(struct txrdma_raft_hdr) + 256 ||
	    (store && store->in_use))
		return -EINVAL;
	x = calloc(1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	if (!store) {
		ret = txraft_store_new(&store);
		if (ret) {
			free(x);
			return ret;
		}
		x->own_store = true;
	}
	store->in_use = true;
	x->s = store;
	x->self = self;
	x->max_msg = max_msg;
	x->rnd = 0x9e3779b97f4a7c15ULL ^ (self * 0xbf58476d1ce4e5b9ULL) ^
		 now_ms();
	x->io.version = 1;
	x->io.impl = x;
	x->io.init = m_init;
	x->io.close = m_close;
	x->io.load = m_load;
	x->io.start = m_start;
	x->io.bootstrap = m_bootstrap;
	x->io.recover = m_recover;
	x->io.set_term = m_set_term;
	x->io.set_vote = m_set_vote;
	x->io.send = m_send;
	x->io.append = m_append;
	x->io.truncate = m_truncate;
	x->io.snapshot_put = m_snapshot_put;
	x->io.snapshot_get = m_snapshot_get;
	x->io.time = m_time;
	x->io.random = m_random;
	*xp = x;
	return 0;
}

void txraft_io_watch_leader(struct txraft_io *x, struct raft *r,
			    unsigned int stagger_ms)
{
	x->watch = r;
	x->stagger_ms = stagger_ms;
}

void txraft_io_set_clock(struct txraft_io *x, uint64_t (*now)(void *ctx),
			 void *ctx)
{
	x->clock = now;
	x->clock_ctx = ctx;
	/* a schedule that is replayed draws the same timeouts */
	x->rnd = 0x9e3779b97f4a7c15ULL ^ (x->self * 0xbf58476d1ce4e5b9ULL) ^
		 io_now(x);
	if (!x->rnd)
		x->rnd = 1;
}

int txraft_io_add_peer(struct txraft_io *x, uint64_t id, const char *address)
{
	struct peer_name *p;
	size_t i;

	if (!id || id > UINT32_MAX || id == x->self || !address ||
	    strlen(address) > TXRDMA_RAFT_MAX_ADDR)
		return -EINVAL;
	for (i = 0; i < x->npeers; i++)
		if (x->peers[i].id == id)
			return -EEXIST;
	p = realloc(x->peers, (x->npeers + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	x->peers = p;
	p[x->npeers] = (struct peer_name){ .id = id };
	p[x->npeers].address = strdup(address);
	if (!p[x->npeers].address)
		return -ENOMEM;
	x->npeers++;
	return 0;
}

void txraft_io_attach(struct txraft_io *x, struct txn_transport *t)
{
	x->t = t;
}

struct raft_io *txraft_io_raft(struct txraft_io *x)
{
	return &x->io;
}

bool txraft_io_closed(const struct txraft_io *x)
{
	return x->closed;
}

int txraft_io_timeout_ms(const struct txraft_io *x)
{
	uint64_t now;

	if (x->closed)
		return -1;
	if (x->head || x->closing)
		return 0;
	if (!x->tick)
		return -1;
	now = io_now(x);
	return x->next_tick <= now ? 0 : (int)(x->next_tick - now);
}

void txraft_io_stats(const struct txraft_io *x, struct txraft_io_stats *s)
{
	*s = x->st;
}

/*
 * Whether @id sent a message, or its peer came up, within the last @ms:
 * one whose pair was just made again has had no time to answer yet, and
 * counts (its match index is what it last acknowledged).
 */
static bool heard_within(const struct txraft_io *x, raft_id id, uint64_t ms)
{
	uint64_t now = io_now(x), last;
	size_t i;

	for (i = 0; i < x->npeers; i++) {
		if (x->peers[i].id != id)
			continue;
		last = x->peers[i].heard_ms > x->peers[i].up_ms ?
		       x->peers[i].heard_ms : x->peers[i].up_ms;
		return last && now - last <= ms;
	}
	return false;
}

uint64_t txraft_io_lag(const struct txraft_io *x)
{
	struct raft *r = x->watch;
	raft_index last, lag = 0, m;
	unsigned int i;

	if (!r || raft_state(r) != RAFT_LEADER || !r->leader_state.progress ||
	    !x->t)
		return 0;
	last = raft_last_index(r);
	for (i = 0; i < r->configuration.n; i++) {
		const struct raft_server *v = &r->configuration.servers[i];

		if (v->id == x->self || v->role != RAFT_VOTER ||
		    !txn_transport_peer_up(x->t, (uint32_t)v->id) ||
		    !heard_within(x, v->id, r->election_timeout))
			continue;
		m = r->leader_state.progress[i].match_index;
		if (m < last && last - m > lag)
			lag = last - m;
	}
	return lag;
}

void txraft_io_free(struct txraft_io *x)
{
	size_t i;

	if (!x)
		return;
	run_pending(x, true);
	x->s->in_use = false;
	if (x->own_store)
		txraft_store_free(x->s);
	for (i = 0; i < x->npeers; i++)
		free(x->peers[i].address);
	free(x->peers);
	free(x->scratch);
	free(x);
}
