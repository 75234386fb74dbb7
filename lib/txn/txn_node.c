// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A node of the transaction layer: the pure machines (txn_coord.c,
 * txn_part.c) joined to a transport and a clock.
 *
 * Batching.  The machines emit one record at a time (txn_ops.send); the
 * node appends it to that destination's batch and sends every batch
 * that has records at the end of the call that produced them (a poll,
 * a begin, a vote...).  So a coordinator's PREPAREs of many
 * transactions to one participant, or a participant's votes and ACKs,
 * share one message, and no record waits for more than the call it was
 * made in: batching never adds latency, it only takes what is there.
 * A call made from a hook is part of the txn_node_poll() that ran the
 * hook: a participant that votes inside its PREPARE hook on a batch of
 * forty PREPAREs sends one batch of forty votes when the poll ends,
 * not forty messages.  Between txn_node_cork() and txn_node_uncork()
 * the caller's own calls batch the same way (begin many, send once).
 * A batch that fills up mid-call is sent at once and a new one started.
 * Records to one node keep their order (one batch at a time, one
 * connection per pair).
 *
 * Losses.  When the transport refuses a batch (the peer is down, or
 * its queue stays full) the records are dropped and counted: the
 * protocol resends what matters on its timers, and a peer that is
 * down is reported down to both machines by the transport itself.  A
 * full queue is given one more chance at the next flush first.
 *
 * Ourselves.  A node may take part in its own transaction (a branch to
 * cfg.self): records to ourselves never reach the transport.  Each is
 * kept as a batch of one, in order, and read back by on_msg() when the
 * batches are sent, as if it had come back from the network; records
 * that reading makes for ourselves join the same queue and are read in
 * the same pass, and calls from the hooks it runs are held for it as a
 * poll's are.
 *
 * Time.  Deadlines are the machines'; txn_node_poll() sleeps in the
 * transport no longer than until the earliest of them, then fires
 * them.  The clock is CLOCK_MONOTONIC_COARSE in nanoseconds.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "txn_clock.h"
#include "txn_node.h"

#define MIN_BATCH	4096

struct outq {
	uint32_t node;
	bool held;		/* a full batch the transport refused once */
	struct txn_writer w;
	uint8_t *buf;
};

/* @user of own transactions until DONE: open addressing on seq */
struct user_ent {
	uint64_t seq;		/* 0: empty */
	void *user;
};

struct txn_node {
	struct txn_coord coord;
	struct txn_part part;
	struct txn_transport *t;
	struct txn_node_hooks h;
	void *ctx;
	struct txn_node_cfg cfg;
	void *cmem, *pmem;
	struct outq *q;
	unsigned int nq, capq, lastq;
	struct user_ent *users;
	uint32_t users_mask;
	struct txn_node_stats st;
	/* > 0: calls leave their records for the poll or uncork to send */
	unsigned int hold;
	/* records to ourselves, oldest first; being read back */
	struct selfrec *self_head, *self_tail;
	bool in_self;
};

struct selfrec {
	struct selfrec *next;
	size_t len;
	uint8_t buf[];
};

/*
 * The machines' clock: deadlines of milliseconds and more, read on
 * every call and poll.  The coarse clock (the last tick's time) is read
 * from the vDSO's page without touching the clocksource: a precise read
 * may be a system call (a TCG guest's HPET), and that cost more than a
 * transaction's records in txn_bench.  A deadline fires within a tick
 * (1-10 ms) of its time.
 */
static uint64_t now_ns(void)
{
	return txn_clock_ns(CLOCK_MONOTONIC_COARSE);
}

/* ---- users ---------------------------------------------------------- */

static uint32_t user_home(const struct txn_node *n, uint64_t seq)
{
	return (uint32_t)(seq * 0x9e3779b97f4a7c15ull >> 32) & n->users_mask;
}

static void user_put(struct txn_node *n, uint64_t seq, void *user)
{
	uint32_t i = user_home(n, seq);

	while (n->users[i].seq)
		i = (i + 1) & n->users_mask;
	n->users[i].seq = seq;
	n->users[i].user = user;
}

/* take @seq's user out (backward-shift deletion keeps probes short) */
static void *user_take(struct txn_node *n, uint64_t seq)
{
	uint32_t i = user_home(n, seq), j;
	void *user;

	while (n->users[i].seq != seq) {
		if (!n->users[i].seq)
			return NULL;
		i = (i + 1) & n->users_mask;
	}
	user = n->users[i].user;
	for (j = (i + 1) & n->users_mask; n->users[j].seq;
	     j = (j + 1) & n->users_mask) {
		uint32_t home = user_home(n, n->users[j].seq);

		/* can entry j move into the hole at i? */
		if (((j - home) & n->users_mask) >=
		    ((j - i) & n->users_mask)) {
			n->users[i] = n->users[j];
			i = j;
		}
	}
	n->users[i].seq = 0;
	n->users[i].user = NULL;
	return user;
}

/* ---- batches -------------------------------------------------------- */

static struct outq *outq_of(struct txn_node *n, uint32_t node)
{
	struct outq *q;
	unsigned int i;

	if (n->lastq < n->nq && n->q[n->lastq].node == node)
		return &n->q[n->lastq];
	for (i = 0; i < n->nq; i++)
		if (n->q[i].node == node) {
			n->lastq = i;
			return &n->q[i];
		}
	if (n->nq == n->capq) {
		unsigned int cap = n->capq ? 2 * n->capq : 8;

		q = realloc(n->q, cap * sizeof(*q));
		if (!q)
			return NULL;
		n->q = q;
		n->capq = cap;
	}
	q = &n->q[n->nq];
	memset(q, 0, sizeof(*q));
	q->buf = malloc(n->cfg.max_batch);
	if (!q->buf)
		return NULL;
	q->node = node;
	txn_writer_init(&q->w, q->buf, n->cfg.max_batch);
	n->lastq = n->nq++;
	return q;
}

/* send @q's batch; keep it once when the transport is full */
static void outq_send(struct txn_node *n, struct outq *q, bool must)
{
	uint16_t count = q->w.count;
	size_t len;
	int ret;

	if (!count)
		return;
	len = txn_writer_finish(&q->w);
	ret = txn_transport_send(n->t, q->node, q->buf, len);
	if (ret == -ENOBUFS && !must && !q->held) {
		/* finish() only wrote the head: records may still join */
		q->held = true;
		n->st.deferred++;
		return;
	}
	if (ret) {
		n->st.lost++;
	} else {
		n->st.batches_out++;
		n->st.records_out += count;
	}
	q->held = false;
	txn_writer_init(&q->w, q->buf, n->cfg.max_batch);
}

static void on_msg(void *ctx, uint32_t from, const void *msg, size_t len);

/* a record to ourselves: a batch of its own, at the queue's tail */
static void self_add(struct txn_node *n, const struct txn_rec *r)
{
	size_t cap = txn_rec_size(r->nparts, r->data_len) + 64;
	struct selfrec *e = malloc(sizeof(*e) + cap);
	struct txn_writer w;

	if (!e) {
		n->st.lost++;
		return;
	}
	txn_writer_init(&w, e->buf, cap);
	if (txn_writer_add(&w, r)) {
		free(e);
		n->st.lost++;
		return;
	}
	e->len = txn_writer_finish(&w);
	e->next = NULL;
	if (n->self_tail)
		n->self_tail->next = e;
	else
		n->self_head = e;
	n->self_tail = e;
}

/* read our records to ourselves back, those it makes included */
static void self_deliver(struct txn_node *n)
{
	struct selfrec *e;

	if (n->in_self)
		return;		/* the pass under way takes them */
	n->in_self = true;
	n->hold++;
	while ((e = n->self_head)) {
		n->self_head = e->next;
		if (!n->self_head)
			n->self_tail = NULL;
		n->st.batches_out++;
		n->st.records_out++;
		on_msg(n, n->cfg.self, e->buf, e->len);
		free(e);
	}
	n->hold--;
	n->in_self = false;
}

static void flush(struct txn_node *n)
{
	unsigned int i;

	self_deliver(n);
	for (i = 0; i < n->nq; i++)
		outq_send(n, &n->q[i], false);
}

/* the end of a call: send, unless a poll or a cork around it will */
static void call_done(struct txn_node *n)
{
	if (!n->hold)
		flush(n);
}

static void op_send(void *ctx, uint32_t node, const struct txn_rec *r)
{
	struct txn_node *n = ctx;
	struct outq *q;

	if (node == n->cfg.self) {
		self_add(n, r);
		return;
	}
	q = outq_of(n, node);
	if (!q) {
		n->st.lost++;
		return;
	}
	/* a batch held for a full transport takes more records meanwhile */
	if (txn_writer_add(&q->w, r) == -ENOSPC) {
		outq_send(n, q, true);
		if (txn_writer_add(&q->w, r))
			n->st.lost++;	/* larger than a batch: cannot be */
	}
}

static void op_log(void *ctx, const struct txn_id *id, const uint32_t *nodes,
		   uint16_t nn)
{
	struct txn_node *n = ctx;

	if (n->h.log)
		n->h.log(n->ctx, id, nodes, nn);
	else
		txn_coord_logged(&n->coord, id, now_ns());
}

static void op_event(void *ctx, const struct txn_event *ev)
{
	struct txn_node *n = ctx;
	void *user = NULL;

	if (ev->type == TXN_EV_DONE)
		user = user_take(n, ev->id.seq);
	n->h.event(n->ctx, ev, user);
}

static const struct txn_ops node_ops = {
	.send	= op_send,
	.log	= op_log,
	.event	= op_event,
};

/* ---- the transport's callbacks -------------------------------------- */

static void on_msg(void *ctx, uint32_t from, const void *msg, size_t len)
{
	struct txn_node *n = ctx;
	struct txn_reader rd;
	struct txn_rec r;
	uint64_t now;

	if (txn_reader_init(&rd, msg, len)) {
		n->st.bad_batches++;
		return;
	}
	n->st.batches_in++;
	now = now_ns();
	while (txn_reader_next(&rd, &r) > 0) {
		n->st.records_in++;
		switch (r.type) {
		case TXRDMA_TXN_VOTE:
		case TXRDMA_TXN_ACK:
		case TXRDMA_TXN_INQUIRE:
			txn_coord_on_rec(&n->coord, from, &r, now);
			break;
		default:
			txn_part_on_rec(&n->part, from, &r, now);
			break;
		}
	}
}

static void on_peer(void *ctx, uint32_t node, bool up)
{
	struct txn_node *n = ctx;
	uint64_t now = now_ns();

	txn_coord_peer(&n->coord, node, up, now);
	txn_part_peer(&n->part, node, up, now);
}

const struct txn_transport_cb txn_node_transport_cb = {
	.msg	= on_msg,
	.peer	= on_peer,
};

/* ---- the API -------------------------------------------------------- */

int txn_node_open(struct txn_node **np, const struct txn_node_cfg *cfg,
		  struct txn_transport *t, const struct txn_node_hooks *h,
		  void *ctx)
{
	struct txn_coord_cfg cc;
	struct txn_part_cfg pc;
	struct txn_node *n;
	size_t cl, pl;
	uint32_t cap;

	if (!np || !cfg || !t || !h || !h->event ||
	    cfg->max_batch < MIN_BATCH)
		return -EINVAL;
	cc = (struct txn_coord_cfg) {
		.self = cfg->self, .epoch = cfg->epoch,
		.window = cfg->window, .max_parts = cfg->max_parts,
		.vote_retries = cfg->vote_retries,
		.vote_timeout_ns = cfg->vote_timeout_ns,
		.ack_timeout_ns = cfg->ack_timeout_ns,
	};
	pc = (struct txn_part_cfg) {
		.self = cfg->self, .max_txns = cfg->max_txns,
		.inquire_timeout_ns = cfg->inquire_timeout_ns,
	};
	cl = txn_coord_memsize(&cc);
	pl = txn_part_memsize(&pc);
	/* a PREPARE with max_parts ids and no data must fit a batch */
	if (!cl || !pl || cfg->window > (1u << 24) ||
	    txn_rec_size(cfg->max_parts, 0) +
	    sizeof(struct txrdma_txn_batch) > cfg->max_batch)
		return -EINVAL;
	n = calloc(1, sizeof(*n));
	if (!n)
		return -ENOMEM;
	for (cap = 4; cap < 2 * cfg->window; cap *= 2)
		;
	n->users = calloc(cap, sizeof(*n->users));
	n->users_mask = cap - 1;
	n->cmem = aligned_alloc(8, (cl + 7) & ~(size_t)7);
	n->pmem = aligned_alloc(8, (pl + 7) & ~(size_t)7);
	if (!n->users || !n->cmem || !n->pmem)
		goto nomem;
	n->t = t;
	n->h = *h;
	n->ctx = ctx;
	n->cfg = *cfg;
	if (txn_coord_init(&n->coord, &cc, &node_ops, n, n->cmem, cl) ||
	    txn_part_init(&n->part, &pc, &node_ops, n, n->pmem, pl)) {
		txn_node_close(n);
		return -EINVAL;
	}
	t->cb.msg = on_msg;
	t->cb.peer = on_peer;
	t->ctx = n;
	*np = n;
	return 0;
nomem:
	txn_node_close(n);
	return -ENOMEM;
}

void txn_node_close(struct txn_node *n)
{
	unsigned int i;

	if (!n)
		return;
	while (n->self_head) {
		struct selfrec *e = n->self_head;

		n->self_head = e->next;
		free(e);
	}
	for (i = 0; i < n->nq; i++)
		free(n->q[i].buf);
	free(n->q);
	free(n->users);
	free(n->cmem);
	free(n->pmem);
	free(n);
}

int txn_node_begin(struct txn_node *n, const struct txn_branch *br,
		   uint16_t nbr, void *user, struct txn_id *id)
{
	struct txn_id tid;
	int ret;

	/* the user is put first: an ABORT may come inside the call */
	user_put(n, n->coord.seq + 1, user);
	ret = txn_coord_begin(&n->coord, br, nbr, now_ns(), &tid);
	if (ret) {
		user_take(n, n->coord.seq + 1);
		return ret;
	}
	if (id)
		*id = tid;
	call_done(n);
	return 0;
}

int txn_node_logged(struct txn_node *n, const struct txn_id *id)
{
	int ret = txn_coord_logged(&n->coord, id, now_ns());

	call_done(n);
	return ret;
}

int txn_node_vote(struct txn_node *n, const struct txn_id *id, bool yes,
		  uint32_t reason)
{
	int ret = txn_part_vote(&n->part, id, yes, reason, now_ns());

	call_done(n);
	return ret;
}

int txn_node_applied(struct txn_node *n, const struct txn_id *id)
{
	int ret = txn_part_applied(&n->part, id, now_ns());

	call_done(n);
	return ret;
}

int txn_node_learned(struct txn_node *n, const struct txn_id *id,
		     uint8_t decision)
{
	int ret = txn_part_learned(&n->part, id, decision, now_ns());

	call_done(n);
	return ret;
}

int txn_node_restore_commit(struct txn_node *n, const struct txn_id *id,
			    const uint32_t *nodes, uint16_t nn)
{
	int ret = txn_coord_restore(&n->coord, id, nodes, nn, now_ns());

	call_done(n);
	return ret;
}

int txn_node_restore_prepared(struct txn_node *n, const struct txn_id *id)
{
	int ret = txn_part_restore(&n->part, id, now_ns());

	call_done(n);
	return ret;
}

static void tick(struct txn_node *n)
{
	uint64_t now = now_ns();

	txn_coord_tick(&n->coord, now);
	txn_part_tick(&n->part, now);
	flush(n);
}

int txn_node_timeout_ms(const struct txn_node *n)
{
	uint64_t next = txn_coord_next_deadline(&n->coord), now, ms;

	if (txn_part_next_deadline(&n->part) < next)
		next = txn_part_next_deadline(&n->part);
	if (next == TXN_NEVER)
		return -1;
	now = now_ns();
	ms = next > now ? (next - now + 999999) / 1000000 : 0;
	return ms > INT32_MAX ? INT32_MAX : (int)ms;
}

int txn_node_fd(const struct txn_node *n)
{
	return txn_transport_fd(n->t);
}

int txn_node_poll(struct txn_node *n, int timeout_ms)
{
	int ret, due;

	tick(n);
	due = txn_node_timeout_ms(n);
	if (due >= 0 && (timeout_ms < 0 || due < timeout_ms))
		timeout_ms = due;
	n->hold++;
	ret = txn_transport_poll(n->t, timeout_ms);
	n->hold--;
	tick(n);	/* sends what the messages and their hooks made */
	return ret;
}

void txn_node_cork(struct txn_node *n)
{
	n->hold++;
}

void txn_node_uncork(struct txn_node *n)
{
	if (n->hold && !--n->hold)
		flush(n);
}

const struct txn_coord *txn_node_coord(const struct txn_node *n)
{
	return &n->coord;
}

const struct txn_part *txn_node_part(const struct txn_node *n)
{
	return &n->part;
}

void txn_node_stats(const struct txn_node *n, struct txn_node_stats *s)
{
	*s = n->st;
}
