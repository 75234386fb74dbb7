// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What a txkv node does when a shard's leader changes under running
 * transactions (kv_node.c has the rest of the node).
 *
 * A participant of two-phase commit here is a node, but what it
 * prepared lives in a shard's replicated log: when the node dies, the
 * shard's next leader holds every PREPARE the old one got committed,
 * and nobody tells it the decisions.  The coordinator keeps sending
 * them to the dead node; the records those transactions locked stay
 * locked.  So a node that leads a shard looks, every FO_TICK_NS, for
 * orphans: transactions prepared in the shard that no kv_pend of its
 * own handles.  It asks each one's coordinator (KV_RD_ASK over the read
 * service) and proposes the answer, COMMIT or ABORT, through the
 * shard's log.
 *
 * Why the coordinator's answer is right.  It is txn_coord's own rule
 * for INQUIRE (txn_coord.c): a transaction it holds in TXN_CP_ACKING is
 * committed; one it holds while voting or logging is undecided (no
 * answer: we ask again); one it issued and no longer holds was aborted
 * or was ACKed by every participant.  The last case cannot be an
 * orphan: a participant ACKs only after the COMMIT is applied through
 * each of its shards' logs (kv_node.c, pend_settle()), so once our
 * replica has applied every entry committed before our term, a
 * transaction that is still prepared was not ACKed for this shard.
 * That is why orphans are looked for only after a barrier of ours went
 * through in the current term (led_term), and why an answer is used
 * only in the term it was asked in.  A COMMIT or ABORT that reaches the
 * log twice (the old leader's and ours) is applied once: the second
 * finds nothing prepared (KV_UNKNOWN).
 *
 * The old participant, if it is alive, may hold the same transaction
 * in P_STUCK (it lost the shard before its decision was logged).  Once
 * its own replica shows the transaction no longer prepared on every
 * shard it holds, the log has a decision, and it ACKs: the coordinator
 * then forgets the transaction instead of resending forever.
 *
 * The coordinator's own death.  Each client logs its decisions in a
 * decision log of its own (a Raft group it leads), and is fenced from
 * it for good once the log's term moves past the one it began in
 * (kv_fo_fenced(): txn_log() proposes nothing any more, the client
 * stops).  So the node that leads client c's log in the current term
 * can answer for c whenever c is not itself unfenced: whatever c
 * logged is in the log once a barrier of the current term went
 * through (Raft's leader completeness), and c logs nothing more;
 * COMMIT if the log holds the transaction, else ABORT.  The barrier is
 * proposed after the question arrived (as a ReadIndex would): a
 * deposed leader that still believes it leads cannot get one through,
 * so it never answers from a log that moved on without it.  Orphans
 * are asked of their coordinator and of its log's leader.  The dead
 * coordinator's participants are alive and hold their yes votes
 * (P_VOTED) with no decision coming: a vote older than VOTED_WAIT_NS
 * is asked about as an orphan is, and the answer goes to the
 * participant machine (txn_node_learned()) as the coordinator's record
 * would.  The dead coordinator's COMMITs stay held in its log (no one
 * collects their ACKs to forget them).
 */
#include <endian.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <txn_coord.h>

#include "kv_node_int.h"

#define FO_TICK_NS	(50 * MS)
#define ASK_AGAIN_NS	(200 * MS)
/* a yes vote this old without a decision: its coordinator may be dead */
#define VOTED_WAIT_NS	(500 * MS)

/* KV_RD_ASK and KV_RD_TOLD, little-endian */
struct kv_rd_ask {
	uint32_t magic;
	uint32_t shard;
	uint32_t coord, epoch;
	uint64_t seq;
	uint32_t decision;	/* TOLD: TXRDMA_TXN_COMMIT or _ABORT */
	uint32_t resv;
};

static bool same_id(const struct txn_id *a, const struct txn_id *b)
{
	return a->coord == b->coord && a->epoch == b->epoch &&
	       a->seq == b->seq;
}

static uint64_t term_of(const struct kv_node *n, uint32_t s)
{
	return n->grp[s].raft.current_term;
}

/* does a kv_pend of ours handle (@id, @s)? (P_STUCK ones do not) */
static struct kv_pend *pend_of(struct kv_node *n, const struct txn_id *id,
			       uint32_t s)
{
	unsigned int i, k;

	for (i = 0; i < MAX_TXNS; i++) {
		struct kv_pend *p = &n->pend[i];

		if (!p->used || p->phase == P_STUCK || !same_id(&p->id, id))
			continue;
		for (k = 0; k < p->nsh; k++)
			if (p->shard[k] == s)
				return p;
	}
	return NULL;
}

static struct kv_orphan *orphan_find(struct kv_node *n,
				     const struct txn_id *id, uint32_t s)
{
	unsigned int i;

	for (i = 0; i < KV_ORPHANS; i++) {
		struct kv_orphan *o = &n->orphan[i];

		if (o->used && o->shard == s && same_id(&o->id, id))
			return o;
	}
	return NULL;
}

/* a question for a decision log (its client's), waiting for a barrier */
struct kv_ask_q {
	uint32_t from, shard;
	struct txn_id id;
	bool ready;		/* the barrier under way covers it */
};

static void told(struct kv_node *n, uint32_t to, uint32_t s,
		 const struct txn_id *id, uint32_t decision);

bool kv_fo_fenced(const struct kv_node *n)
{
	unsigned int g = g_dlog(n);

	return !leads(n, g) || term_of(n, g) != n->client_term;
}

/* drop the questions of client @c's log (@ready: those covered only) */
static void askq_drop(struct kv_node *n, uint32_t c, bool ready)
{
	unsigned int i, k = 0;

	for (i = 0; i < n->naskq; i++) {
		struct kv_ask_q *q = &n->askq[i];

		if (q->id.coord == c && (!ready || q->ready))
			continue;
		n->askq[k++] = *q;
	}
	n->naskq = k;
}

struct kv_dlog_barrier {
	struct raft_barrier req;
	struct kv_node *n;
	uint32_t c;		/* whose log */
	uint64_t term;
};

static void dlog_barrier_done(struct raft_barrier *req, int status)
{
	struct kv_dlog_barrier *b = (struct kv_dlog_barrier *)req;
	struct kv_node *n = b->n;
	uint32_t c = b->c;
	unsigned int g = g_dlog_of(n, c), i;
	uint64_t term = b->term;

	n->dlog_barrier_busy[c] = false;
	free(b);
	if (!status && leads(n, g) && term_of(n, g) == term) {
		/* the questions that came before the barrier was proposed */
		for (i = 0; i < n->naskq; i++) {
			struct kv_ask_q *q = &n->askq[i];

			if (q->id.coord != c || !q->ready)
				continue;
			told(n, q->from, q->shard, &q->id,
			     txraft_dlog_holds(n->grp[g].dlog, &q->id) ?
			     TXRDMA_TXN_COMMIT : TXRDMA_TXN_ABORT);
		}
	}
	/* answered, or not the leader after all: the askers ask again */
	askq_drop(n, c, true);
}

/* a barrier on each log we lead for the questions queued for it */
static void dlog_barrier(struct kv_node *n)
{
	unsigned int i;
	uint32_t c;

	for (c = 1; c <= n->cfg.nclients; c++) {
		unsigned int g = g_dlog_of(n, c);
		struct kv_dlog_barrier *b;
		bool any = false;

		if (n->dlog_barrier_busy[c] || !leads(n, g))
			continue;
		for (i = 0; i < n->naskq && !any; i++)
			any = n->askq[i].id.coord == c;
		if (!any)
			continue;
		b = calloc(1, sizeof(*b));
		if (!b)
			return;
		b->n = n;
		b->c = c;
		b->term = term_of(n, g);
		if (raft_barrier(&n->grp[g].raft, &b->req, dlog_barrier_done)) {
			free(b);
			continue;
		}
		n->dlog_barrier_busy[c] = true;
		for (i = 0; i < n->naskq; i++)
			if (n->askq[i].id.coord == c)
				n->askq[i].ready = true;
	}
}

static void ask_to(struct kv_node *n, struct kv_orphan *o, uint32_t to)
{
	struct kv_rd_ask q = {
		.magic = htole32(KV_RD_ASK), .shard = htole32(o->shard),
		.coord = htole32(o->id.coord), .epoch = htole32(o->id.epoch),
		.seq = htole64(o->id.seq),
	};

	n->st.asks++;
	if (to == n->cfg.self)
		kv_fo_msg(n, n->cfg.self, &q, sizeof(q));
	else
		txn_transport_send(n->rd_t, to, &q, sizeof(q));
}

/* its coordinator, and its decision log's leader if another */
static void ask(struct kv_node *n, struct kv_orphan *o)
{
	uint32_t dl = has_dlog(n, o->id.coord) ?
		      kv_node_leader(n, g_dlog_of(n, o->id.coord)) : 0;

	o->asked_ns = now_ns();
	ask_to(n, o, o->id.coord);
	if (dl && dl != o->id.coord)
		ask_to(n, o, dl);
}

struct scan {
	struct kv_node *n;
	uint32_t s;
	bool full;
};

static void scan_one(void *ctx, const struct txn_id *id)
{
	struct scan *sc = ctx;
	struct kv_node *n = sc->n;
	struct kv_orphan *o;
	struct kv_pend *p;
	unsigned int i;

	p = pend_of(n, id, sc->s);
	if (p && (p->phase != P_VOTED ||
		  now_ns() - p->voted_ns < VOTED_WAIT_NS))
		return;
	o = orphan_find(n, id, sc->s);
	if (o) {
		if (!o->proposing && now_ns() - o->asked_ns >= ASK_AGAIN_NS)
			ask(n, o);
		return;
	}
	for (i = 0; i < KV_ORPHANS && n->orphan[i].used; i++)
		;
	if (i == KV_ORPHANS) {
		sc->full = true;	/* the rest at a later tick */
		return;
	}
	o = &n->orphan[i];
	memset(o, 0, sizeof(*o));
	o->used = true;
	o->shard = sc->s;
	o->id = *id;
	o->term = term_of(n, sc->s);
	n->st.orphans++;
	ask(n, o);
}

/* is @id prepared on shard @s of our replica? */
struct find {
	const struct txn_id *id;
	bool found;
};

static void find_one(void *ctx, const struct txn_id *id)
{
	struct find *f = ctx;

	if (same_id(f->id, id))
		f->found = true;
}

static bool prepared_here(const struct kv_node *n, const struct txn_id *id,
			  uint32_t s)
{
	struct find f = { id, false };

	kv_shard_prepared(n->shard[s], find_one, &f);
	return f.found;
}

/*
 * A P_STUCK transaction: we lost a shard before its decision was
 * logged there.  Once no shard of ours holds it prepared any more, the
 * logs applied a decision (the coordinator's, through the next
 * leader): ACK it.
 */
static void stuck_check(struct kv_node *n)
{
	unsigned int i, k;

	for (i = 0; i < MAX_TXNS; i++) {
		struct kv_pend *p = &n->pend[i];

		if (!p->used || p->phase != P_STUCK)
			continue;
		for (k = 0; k < p->nsh; k++)
			if (prepared_here(n, &p->id, p->shard[k]))
				break;
		if (k < p->nsh)
			continue;
		txn_node_applied(n->txn, &p->id);
		n->st.stuck_acked++;
		p->used = false;
	}
}

/*
 * Every group led as preferred, seen from here, or PLACING_MAX_NS since
 * the node was opened: steady timeouts.
 */
static void steady_check(struct kv_node *n, uint64_t now)
{
	unsigned int g;

	for (g = 0; g < n->ngroups && now - n->opened_ns < PLACING_MAX_NS; g++)
		if (n->cfg.prefer[g] && kv_node_leader(n, g) != n->cfg.prefer[g])
			return;
	for (g = 0; g < n->ngroups; g++)
		raft_set_election_timeout(&n->grp[g].raft,
					  kv_election_ms(n, g));
	n->steady = true;
}

void kv_fo_tick(struct kv_node *n)
{
	uint64_t now = now_ns();
	uint32_t s, i, c;

	if (now < n->fo_next_ns)
		return;
	n->fo_next_ns = now + FO_TICK_NS;
	if (!n->steady)
		steady_check(n, now);
	/* a client whose log moved on stops (its txn_log() refuses too) */
	if (n->client && !n->client_failed && kv_fo_fenced(n)) {
		n->client_failed = true;
		n->cst.log_failed++;
		kv_node_client_stop(n);
	}
	/* the questions for logs we no longer lead go to the next leader */
	for (c = 1; c <= n->cfg.nclients; c++)
		if (!leads(n, g_dlog_of(n, c)) && !n->dlog_barrier_busy[c])
			askq_drop(n, c, false);
	dlog_barrier(n);
	for (s = 0; s < n->cfg.no.nshard; s++) {
		struct scan sc = { n, s, false };

		if (!leads(n, s)) {
			n->led_term[s] = 0;
			continue;
		}
		if (n->led_term[s] != term_of(n, s)) {
			/* all before our term applied first: see above */
			kv_fo_barrier(n, s);
			continue;
		}
		kv_shard_prepared(n->shard[s], scan_one, &sc);
	}
	/* answers of an older term, or for shards we lost, are no use */
	for (i = 0; i < KV_ORPHANS; i++) {
		struct kv_orphan *o = &n->orphan[i];

		if (o->used && !o->proposing &&
		    (!leads(n, o->shard) || term_of(n, o->shard) != o->term ||
		     !prepared_here(n, &o->id, o->shard)))
			o->used = false;
	}
	stuck_check(n);
}

void kv_fo_barrier_done(struct kv_node *n, uint32_t s, uint64_t term)
{
	if (s < n->cfg.no.nshard && leads(n, s) && term_of(n, s) == term)
		n->led_term[s] = term;
}

static void resolved(struct raft_apply *req, int status, void *result)
{
	struct kv_orphan *o = (struct kv_orphan *)((char *)req -
						   offsetof(struct kv_orphan,
							    req));
	struct kv_node *n = o->n;

	(void)result;
	o->proposing = false;
	if (status) {
		/* leadership lost: the next leader asks again */
		n->st.apply_failed++;
		o->used = false;
		return;
	}
	if (o->op == KV_OP_COMMIT)
		n->st.resolved_commit++;
	else
		n->st.resolved_abort++;
	o->used = false;
}

static void propose_answer(struct kv_node *n, struct kv_orphan *o,
			   uint8_t op)
{
	struct raft_buffer b;
	size_t len;

	if (n->closing)
		return;
	b.base = raft_malloc(sizeof(struct kv_cmd_hdr));
	if (!b.base)
		return;		/* asked again at a later tick */
	len = kv_cmd_build(b.base, sizeof(struct kv_cmd_hdr), op, &o->id,
			   NULL, 0);
	b.len = len;
	o->n = n;
	o->op = op;
	if (!len || raft_apply(&n->grp[o->shard].raft, &o->req, &b, 1,
			       resolved)) {
		raft_free(b.base);
		n->st.apply_failed++;
		return;
	}
	o->proposing = true;
}

/* the coordinator: what it knows of one of its transactions */
static uint32_t decision_of(struct kv_node *n, const struct txn_id *id)
{
	const struct txn_coord *c = txn_node_coord(n->txn);
	struct txn_coord_info info;

	if (!txn_coord_get(c, id, &info))
		return info.phase == TXN_CP_ACKING ? TXRDMA_TXN_COMMIT : 0;
	/* not held: aborted, or ACKed by all (then no orphan asks) */
	if (id->seq && id->seq <= c->seq)
		return TXRDMA_TXN_ABORT;
	return 0;	/* an id we never issued: no answer is a lie */
}

static void told(struct kv_node *n, uint32_t to, uint32_t s,
		 const struct txn_id *id, uint32_t decision)
{
	struct kv_rd_ask m = {
		.magic = htole32(KV_RD_TOLD), .shard = htole32(s),
		.coord = htole32(id->coord), .epoch = htole32(id->epoch),
		.seq = htole64(id->seq), .decision = htole32(decision),
	};

	n->st.answers++;
	if (to == n->cfg.self)
		kv_fo_msg(n, to, &m, sizeof(m));
	else
		txn_transport_send(n->rd_t, to, &m, sizeof(m));
}

static void on_ask(struct kv_node *n, uint32_t from, uint32_t s,
		   const struct txn_id *id)
{
	bool ours = id->coord == n->cfg.self && id->epoch == n->cfg.epoch;
	uint32_t d;

	if (ours && !(n->client && kv_fo_fenced(n) &&
		      leads(n, g_dlog(n)))) {
		/* our coordinator's own rule, fenced or not */
		d = decision_of(n, id);
		if (d)
			told(n, from, s, id, d);
		return;
	}
	if (!has_dlog(n, id->coord) || !leads(n, g_dlog_of(n, id->coord)) ||
	    from > n->cfg.nnodes)
		return;
	/* the log answers, after a barrier proposed from now on */
	if (n->naskq == n->askq_cap) {
		unsigned int cap = n->askq_cap ? 2 * n->askq_cap : 16;
		struct kv_ask_q *q;

		if (cap > KV_ORPHANS * KV_MAX_NODES)
			return;		/* asked again later */
		q = realloc(n->askq, cap * sizeof(*q));
		if (!q)
			return;
		n->askq = q;
		n->askq_cap = cap;
	}
	n->askq[n->naskq++] = (struct kv_ask_q){ from, s, *id, false };
	dlog_barrier(n);
}

void kv_fo_msg(struct kv_node *n, uint32_t from, const void *msg, size_t len)
{
	struct kv_rd_ask m;
	struct txn_id id;
	struct kv_orphan *o;
	uint32_t s;

	if (len != sizeof(m))
		return;
	memcpy(&m, msg, sizeof(m));
	s = le32toh(m.shard);
	id = (struct txn_id){ le32toh(m.coord), le32toh(m.epoch),
			      le64toh(m.seq) };
	if (s >= n->cfg.no.nshard || m.resv || !id.coord || !id.seq)
		return;
	if (le32toh(m.magic) == KV_RD_ASK) {
		if (!m.decision)
			on_ask(n, from, s, &id);
		return;
	}
	if (le32toh(m.magic) != KV_RD_TOLD)
		return;
	o = orphan_find(n, &id, s);
	if (!o || o->proposing || !leads(n, s) || term_of(n, s) != o->term)
		return;
	if (pend_of(n, &id, s)) {
		/*
		 * Ours, voted yes, its coordinator silent: the decision goes
		 * to our participant machine as the coordinator's would
		 * (TXN_EV_DECIDE, applied through the logs, then ACKed)
		 */
		uint32_t d = le32toh(m.decision);

		if (d == TXRDMA_TXN_COMMIT || d == TXRDMA_TXN_ABORT) {
			if (!txn_node_learned(n->txn, &id, (uint8_t)d))
				n->st.learned++;
			o->used = false;
		}
		return;
	}
	switch (le32toh(m.decision)) {
	case TXRDMA_TXN_COMMIT:
		propose_answer(n, o, KV_OP_COMMIT);
		break;
	case TXRDMA_TXN_ABORT:
		propose_answer(n, o, KV_OP_ABORT);
		break;
	default:
		break;
	}
}
