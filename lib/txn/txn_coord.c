// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The coordinator of presumed-abort two-phase commit (txn_coord.h).
 *
 * What the transport gives, and all that safety rests on: per directed
 * pair of nodes, records arrive in the order they were sent, are never
 * duplicated by the network, and may be lost (a connection fails with
 * records in flight); a crash loses a node's volatile state and what was
 * queued to and from it.  Duplicates come only from our own resends.
 * Liveness events (Down/Up) may be wrong and only ever decide when to
 * give up or resend, never what is decided.
 *
 * The rules, and why each holds:
 *
 * 1. COMMIT is decided only when every participant voted yes, and no
 *    COMMIT record leaves before the caller's log says the decision is
 *    durable (txn_coord_logged()).  A participant votes yes only once
 *    its prepared state is durable (txn_part.h), so when any participant
 *    applies COMMIT, every participant can still apply it, and the
 *    decision survives our crash.
 *
 * 2. Presumed abort: an ABORT is neither logged nor ACKed.  The ABORT
 *    records are sent once and the transaction is forgotten at once; a
 *    participant that missed one asks (INQUIRE), and a coordinator that
 *    does not know a transaction of its own answers ABORT.  That answer
 *    is only safe if no COMMIT that we forgot can be asked about:
 *    a COMMIT is forgotten only when every participant ACKed it, and a
 *    participant ACKs only after it applied the COMMIT and dropped the
 *    transaction, after which it never asks again (it learnt the answer).
 *    Its INQUIREs and votes sent before the ACK arrive before the ACK
 *    (FIFO), while we still hold the COMMIT and answer with it.  After a
 *    restart, the caller hands back (txn_coord_restore()) every COMMIT of
 *    its log that was never forgotten, before any record is read: an
 *    older epoch's transaction we do not hold then was aborted or fully
 *    ACKed, the same two cases.  Ids we never issued (a later epoch, or
 *    a sequence number we have not reached) get no answer: a correct
 *    peer never sends them, and ABORT for an id we may yet issue would
 *    be a lie.
 *
 * 3. INQUIRE while undecided (still voting, or logging) gets no answer:
 *    the decision is not known, and it will be sent to every participant
 *    when it is.  Once logged, INQUIRE gets COMMIT.  A vote for a
 *    transaction we do not hold gets ABORT (rule 2): it is a participant
 *    that prepared after we aborted, and it can drop its state now
 *    rather than at its next inquiry.
 *
 * 4. Down of a participant that has not voted aborts the transaction at
 *    once: a clear outcome, never a hang on a peer that may not come
 *    back.  One that voted yes is prepared durably and does not block
 *    the decision, only its ACK, which is collected after DONE: the
 *    transaction goes on, and nothing is sent to that participant
 *    (parked) until Up, when its decision is resent at once.  Down while
 *    logging or ACKing cannot change the decision: it only parks.
 *    Resends: PREPARE to non-voters every vote_timeout_ns, vote_retries
 *    times, then ABORT; COMMIT to participants that have not ACKed (and
 *    are not parked) every ack_timeout_ns, without end: a prepared
 *    participant holds its locks until it learns the decision.
 *
 * 5. Ids: {self, epoch, seq from 1}; the caller gives every restart an
 *    epoch above all earlier ones, so no id is ever issued twice, and a
 *    record about an older epoch's transaction can never be confused
 *    with a new one.
 *
 * The caller learns the outcome once (TXN_EV_DONE): for COMMIT as soon
 * as it is logged (the participants will all apply it, however long the
 * ACKs take), for ABORT at once.  A COMMIT keeps its window slot until
 * the last ACK (TXN_EV_FORGET, when the log may trim it): the window
 * bounds what a coordinator must remember, including what it restores.
 * A COMMIT whose log write fails cannot be turned into an ABORT (a
 * replicated log may still commit it): the caller restarts instead.
 *
 * Memory is the caller's, sized at init (no allocation, as in
 * txn_wire.c); every pointer in struct txn_coord points into it, so a
 * copy of both is a copy of the coordinator, which the model checker
 * uses to explore states.  Callbacks run synchronously: each function
 * changes its state first and raises an event last, so a handler that
 * calls back in (txn_sm.h says which calls may) finds a consistent
 * machine.
 */
#include <string.h>

#include "txn_coord.h"

enum { Q_VOTE, Q_ACK };

static size_t align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

static int cfg_ok(const struct txn_coord_cfg *cfg)
{
	return cfg && cfg->self && cfg->epoch && cfg->window &&
	       cfg->window <= (1u << 24) && cfg->max_parts &&
	       cfg->max_parts <= TXRDMA_TXN_MAX_PARTS &&
	       cfg->vote_timeout_ns && cfg->ack_timeout_ns;
}

size_t txn_coord_memsize(const struct txn_coord_cfg *cfg)
{
	if (!cfg_ok(cfg))
		return 0;
	return align8(txn_tab_memsize(cfg->window)) +
	       align8((size_t)cfg->window * sizeof(struct txn_coord_txn)) +
	       align8((size_t)cfg->window * cfg->max_parts * sizeof(uint32_t));
}

int txn_coord_init(struct txn_coord *c, const struct txn_coord_cfg *cfg,
		   const struct txn_ops *ops, void *ctx, void *mem,
		   size_t len)
{
	size_t need = txn_coord_memsize(cfg);
	uint8_t *p = mem;

	if (!need || !ops || !ops->send || !ops->log || !ops->event ||
	    !mem || (uintptr_t)mem % 8 || len < need)
		return -EINVAL;
	*c = (struct txn_coord) { .cfg = *cfg, .ops = ops, .ctx = ctx };
	txn_tab_init(&c->tab, cfg->window, p);
	p += align8(txn_tab_memsize(cfg->window));
	c->tx = (struct txn_coord_txn *)p;
	p += align8((size_t)cfg->window * sizeof(struct txn_coord_txn));
	c->nodes = (uint32_t *)p;
	return 0;
}

static uint64_t all(uint16_t n)
{
	return n >= 64 ? ~0ULL : (1ULL << n) - 1;
}

static uint32_t *nodes_of(const struct txn_coord *c, uint32_t i)
{
	return c->nodes + (size_t)i * c->cfg.max_parts;
}

static int part_index(const struct txn_coord *c, uint32_t i, uint32_t node)
{
	const uint32_t *nodes = nodes_of(c, i);
	int k;

	for (k = 0; k < c->tx[i].nparts; k++)
		if (nodes[k] == node)
			return k;
	return -1;
}

/* participants not 0, each once: what begin() and restore() accept */
static int nodes_ok(const uint32_t *nodes, size_t stride, uint16_t n,
		    uint16_t max)
{
	const uint8_t *p = (const uint8_t *)nodes;
	uint32_t a, b;
	uint16_t j, k;

	if (!nodes || !n || n > max)
		return 0;
	for (k = 0; k < n; k++) {
		memcpy(&a, p + k * stride, sizeof(a));
		if (!a)
			return 0;
		for (j = 0; j < k; j++) {
			memcpy(&b, p + j * stride, sizeof(b));
			if (a == b)
				return 0;
		}
	}
	return 1;
}

static void send_rec(struct txn_coord *c, uint32_t node, uint8_t type,
		     const struct txn_id *id)
{
	struct txn_rec r = { .type = type, .id = *id };

	c->ops->send(c->ctx, node, &r);
}

static void send_prepare(struct txn_coord *c, uint32_t i, uint16_t k)
{
	const struct txn_coord_txn *tx = &c->tx[i];
	struct txn_rec r = {
		.type		= TXRDMA_TXN_PREPARE,
		.nparts		= tx->nparts,
		.id		= c->tab.s[i].id,
		.parts		= nodes_of(c, i),
		.data		= tx->br[k].data,
		.data_len	= tx->br[k].len,
	};

	c->ops->send(c->ctx, nodes_of(c, i)[k], &r);
}

/* COMMIT to each participant that has not ACKed and is not parked */
static unsigned int send_commits(struct txn_coord *c, uint32_t i)
{
	const struct txn_coord_txn *tx = &c->tx[i];
	uint64_t to = all(tx->nparts) & ~tx->acked & ~tx->parked;
	unsigned int k, n = 0;

	for (k = 0; k < tx->nparts; k++)
		if (to & (1ULL << k)) {
			send_rec(c, nodes_of(c, i)[k], TXRDMA_TXN_COMMIT,
				 &c->tab.s[i].id);
			n++;
		}
	return n;
}

static void done(struct txn_coord *c, const struct txn_id *id,
		 uint8_t decision, uint8_t why, uint32_t node, uint32_t reason)
{
	struct txn_event ev = {
		.type		= TXN_EV_DONE,
		.decision	= decision,
		.why		= why,
		.node		= node,
		.reason		= reason,
		.id		= *id,
	};

	c->ops->event(c->ctx, &ev);
}

/* ABORT to every participant not parked, forget, report */
static void abort_txn(struct txn_coord *c, uint32_t i, uint8_t why,
		      uint32_t node, uint32_t reason)
{
	const struct txn_coord_txn *tx = &c->tx[i];
	struct txn_id id = c->tab.s[i].id;
	uint16_t k;

	/* a no voter too: it holds the transaction until it hears ABORT */
	for (k = 0; k < tx->nparts; k++)
		if (!(tx->parked & (1ULL << k)))
			send_rec(c, nodes_of(c, i)[k], TXRDMA_TXN_ABORT, &id);
	txn_tab_del(&c->tab, i);
	c->stats.aborted[why]++;
	done(c, &id, TXRDMA_TXN_ABORT, why, node, reason);
}

int txn_coord_begin(struct txn_coord *c, const struct txn_branch *br,
		    uint16_t n, uint64_t now, struct txn_id *id)
{
	struct txn_coord_txn *tx;
	struct txn_id nid;
	uint32_t i;
	uint16_t k;

	if (!br || !nodes_ok(&br->node, sizeof(*br), n, c->cfg.max_parts))
		return -EINVAL;
	for (k = 0; k < n; k++)
		if ((br[k].len && !br[k].data) ||
		    br[k].len > UINT32_MAX - 4 * TXRDMA_TXN_MAX_PARTS)
			return -EINVAL;
	if (c->tab.used == c->tab.cap)
		return -EBUSY;
	txn_tab_clock(&c->tab, now);
	nid = (struct txn_id) {
		.coord	= c->cfg.self,
		.epoch	= c->cfg.epoch,
		.seq	= c->seq + 1,
	};
	i = txn_tab_add(&c->tab, &nid);
	c->seq++;
	tx = &c->tx[i];
	*tx = (struct txn_coord_txn) {
		.br		= br,
		.nparts		= n,
		.retries	= c->cfg.vote_retries,
		.phase		= TXN_CP_VOTING,
	};
	for (k = 0; k < n; k++)
		nodes_of(c, i)[k] = br[k].node;
	for (k = 0; k < n; k++)
		send_prepare(c, i, k);
	txn_tab_arm(&c->tab, i, Q_VOTE, c->cfg.vote_timeout_ns);
	c->stats.begun++;
	if (id)
		*id = nid;
	return 0;
}

static int ignored(struct txn_coord *c)
{
	c->stats.ignored++;
	return -EPROTO;
}

/* a record about a transaction not held: rule 2 */
static int unknown(struct txn_coord *c, uint32_t from,
		   const struct txn_rec *r)
{
	if (r->id.epoch > c->cfg.epoch ||
	    (r->id.epoch == c->cfg.epoch && r->id.seq > c->seq))
		return ignored(c);
	if (r->type == TXRDMA_TXN_ACK) {
		/* a participant ACKs each COMMIT it gets, resends too */
		c->stats.unknown++;
		return -ENOENT;
	}
	if (r->type == TXRDMA_TXN_INQUIRE)
		c->stats.inquiries++;
	send_rec(c, from, TXRDMA_TXN_ABORT, &r->id);
	c->stats.answers++;
	return 0;
}

static void start_log(struct txn_coord *c, uint32_t i)
{
	struct txn_coord_txn *tx = &c->tx[i];
	struct txn_id id = c->tab.s[i].id;

	txn_tab_disarm(&c->tab, i);
	tx->phase = TXN_CP_LOGGING;
	/* last: the caller may call txn_coord_logged() from in there */
	c->ops->log(c->ctx, &id, nodes_of(c, i), tx->nparts);
}

static int on_vote(struct txn_coord *c, uint32_t i, int k,
		   const struct txn_rec *r, uint32_t from)
{
	struct txn_coord_txn *tx = &c->tx[i];
	uint64_t bit = 1ULL << k;

	if (tx->phase != TXN_CP_VOTING || (tx->voted & bit)) {
		/* a resend crossed our decision, or a second answer */
		c->stats.stale++;
		return -EALREADY;
	}
	tx->voted |= bit;
	if (!(r->flags & TXRDMA_TXN_F_YES)) {
		c->stats.votes_no++;
		abort_txn(c, i, TXN_WHY_VOTE, from, r->arg);
		return 0;
	}
	c->stats.votes_yes++;
	tx->yes |= bit;
	if (tx->voted == all(tx->nparts))
		start_log(c, i);
	return 0;
}

static void forget(struct txn_coord *c, uint32_t i)
{
	struct txn_event ev = {
		.type	= TXN_EV_FORGET,
		.id	= c->tab.s[i].id,
	};

	txn_tab_del(&c->tab, i);
	c->stats.forgotten++;
	c->ops->event(c->ctx, &ev);
}

static int on_ack(struct txn_coord *c, uint32_t i, int k,
		  const struct txn_rec *r)
{
	struct txn_coord_txn *tx = &c->tx[i];
	uint64_t bit = 1ULL << k;

	/* nobody ACKs an ABORT, nor a COMMIT not yet sent */
	if (r->arg != TXRDMA_TXN_COMMIT || tx->phase != TXN_CP_ACKING)
		return ignored(c);
	if (tx->acked & bit) {
		c->stats.stale++;
		return -EALREADY;
	}
	tx->acked |= bit;
	c->stats.acks++;
	if (tx->acked == all(tx->nparts))
		forget(c, i);
	else if (!(all(tx->nparts) & ~tx->acked & ~tx->parked))
		txn_tab_disarm(&c->tab, i);	/* the rest are parked */
	return 0;
}

int txn_coord_on_rec(struct txn_coord *c, uint32_t from,
		     const struct txn_rec *r, uint64_t now)
{
	uint32_t i;
	int k;

	txn_tab_clock(&c->tab, now);
	if (r->id.coord != c->cfg.self)
		return ignored(c);
	if (r->type != TXRDMA_TXN_VOTE && r->type != TXRDMA_TXN_ACK &&
	    r->type != TXRDMA_TXN_INQUIRE)
		return ignored(c);
	i = txn_tab_find(&c->tab, &r->id);
	if (i == TXN_NIL)
		return unknown(c, from, r);
	k = part_index(c, i, from);
	if (k < 0)
		return ignored(c);
	switch (r->type) {
	case TXRDMA_TXN_VOTE:
		return on_vote(c, i, k, r, from);
	case TXRDMA_TXN_ACK:
		return on_ack(c, i, k, r);
	default:
		c->stats.inquiries++;
		/* undecided: no answer (rule 3), the decision will come */
		if (c->tx[i].phase == TXN_CP_ACKING) {
			send_rec(c, from, TXRDMA_TXN_COMMIT, &r->id);
			c->stats.answers++;
		}
		return 0;
	}
}

int txn_coord_logged(struct txn_coord *c, const struct txn_id *id,
		     uint64_t now)
{
	struct txn_coord_txn *tx;
	struct txn_id nid;
	uint32_t i;

	i = txn_tab_find(&c->tab, id);
	if (i == TXN_NIL)
		return -ENOENT;
	tx = &c->tx[i];
	if (tx->phase != TXN_CP_LOGGING)
		return -EINVAL;
	txn_tab_clock(&c->tab, now);
	nid = *id;
	tx->phase = TXN_CP_ACKING;
	tx->br = NULL;		/* the caller's, after DONE */
	if (send_commits(c, i))
		txn_tab_arm(&c->tab, i, Q_ACK, c->cfg.ack_timeout_ns);
	c->stats.committed++;
	done(c, &nid, TXRDMA_TXN_COMMIT, TXN_WHY_NONE, 0, 0);
	return 0;
}

void txn_coord_peer(struct txn_coord *c, uint32_t node, int up,
		    uint64_t now)
{
	uint64_t last = c->seq, bit, left;
	struct txn_coord_txn *tx;
	struct txn_slot *s;
	uint32_t i;
	int k;

	txn_tab_clock(&c->tab, now);
	for (i = 0; i < c->tab.cap; i++) {
		s = &c->tab.s[i];
		tx = &c->tx[i];
		/* skip what a DONE handler began during this scan */
		if (!s->used || (s->id.epoch == c->cfg.epoch &&
				 s->id.seq > last))
			continue;
		k = part_index(c, i, node);
		if (k < 0)
			continue;
		bit = 1ULL << k;
		if (!up) {
			if (tx->phase == TXN_CP_VOTING && !(tx->voted & bit)) {
				abort_txn(c, i, TXN_WHY_DOWN, node, 0);
				continue;
			}
			tx->parked |= bit;
			left = all(tx->nparts) & ~tx->acked & ~tx->parked;
			if (tx->phase == TXN_CP_ACKING && !left)
				txn_tab_disarm(&c->tab, i);
			continue;
		}
		if (!(tx->parked & bit))
			continue;
		tx->parked &= ~bit;
		if (tx->phase == TXN_CP_ACKING && !(tx->acked & bit)) {
			send_rec(c, node, TXRDMA_TXN_COMMIT, &s->id);
			c->stats.commit_resends++;
			if (!s->q)
				txn_tab_arm(&c->tab, i, Q_ACK,
					    c->cfg.ack_timeout_ns);
		}
	}
}

void txn_coord_tick(struct txn_coord *c, uint64_t now)
{
	struct txn_coord_txn *tx;
	unsigned int sent;
	uint32_t i;
	uint16_t k;

	txn_tab_clock(&c->tab, now);
	while ((i = txn_tab_due(&c->tab)) != TXN_NIL) {
		tx = &c->tx[i];
		txn_tab_disarm(&c->tab, i);
		if (tx->phase == TXN_CP_ACKING) {
			sent = send_commits(c, i);
			c->stats.commit_resends += sent;
			if (sent)
				txn_tab_arm(&c->tab, i, Q_ACK,
					    c->cfg.ack_timeout_ns);
			continue;
		}
		if (tx->phase != TXN_CP_VOTING)
			continue;
		if (!tx->retries) {
			k = (uint16_t)__builtin_ctzll(~tx->voted);
			abort_txn(c, i, TXN_WHY_TIMEOUT, nodes_of(c, i)[k], 0);
			continue;
		}
		tx->retries--;
		for (k = 0; k < tx->nparts; k++)
			if (!(tx->voted & (1ULL << k))) {
				send_prepare(c, i, k);
				c->stats.prepare_resends++;
			}
		txn_tab_arm(&c->tab, i, Q_VOTE, c->cfg.vote_timeout_ns);
	}
}

uint64_t txn_coord_next_deadline(const struct txn_coord *c)
{
	return txn_tab_next(&c->tab);
}

int txn_coord_restore(struct txn_coord *c, const struct txn_id *id,
		      const uint32_t *nodes, uint16_t n, uint64_t now)
{
	uint32_t i;
	uint16_t k;

	if (!id || id->coord != c->cfg.self || !id->epoch ||
	    id->epoch >= c->cfg.epoch || !id->seq ||
	    !nodes_ok(nodes, sizeof(*nodes), n, c->cfg.max_parts))
		return -EINVAL;
	if (txn_tab_find(&c->tab, id) != TXN_NIL)
		return -EEXIST;
	if (c->tab.used == c->tab.cap)
		return -EBUSY;
	txn_tab_clock(&c->tab, now);
	i = txn_tab_add(&c->tab, id);
	c->tx[i] = (struct txn_coord_txn) {
		.nparts	= n,
		.phase	= TXN_CP_ACKING,
	};
	for (k = 0; k < n; k++)
		nodes_of(c, i)[k] = nodes[k];
	send_commits(c, i);
	txn_tab_arm(&c->tab, i, Q_ACK, c->cfg.ack_timeout_ns);
	c->stats.restored++;
	return 0;
}

static void info_of(const struct txn_coord *c, uint32_t i,
		    struct txn_coord_info *info)
{
	const struct txn_coord_txn *tx = &c->tx[i];
	const struct txn_slot *s = &c->tab.s[i];

	*info = (struct txn_coord_info) {
		.id		= s->id,
		.slot		= i,
		.phase		= tx->phase,
		.nparts		= tx->nparts,
		.retries	= tx->retries,
		.voted		= tx->voted,
		.yes		= tx->yes,
		.acked		= tx->acked,
		.parked		= tx->parked,
		.deadline	= s->q ? s->when : TXN_NEVER,
	};
}

int txn_coord_get(const struct txn_coord *c, const struct txn_id *id,
		  struct txn_coord_info *info)
{
	uint32_t i = txn_tab_find(&c->tab, id);

	if (i == TXN_NIL)
		return -ENOENT;
	info_of(c, i, info);
	return 0;
}

uint32_t txn_coord_walk(const struct txn_coord *c,
			void (*fn)(void *arg,
				   const struct txn_coord_info *info),
			void *arg)
{
	struct txn_coord_info info;
	struct txn_tab_iter it;
	uint32_t i, n = 0;

	txn_tab_iter_init(&c->tab, &it);
	while ((i = txn_tab_iter_next(&c->tab, &it)) != TXN_NIL) {
		info_of(c, i, &info);
		fn(arg, &info);
		n++;
	}
	for (i = 0; i < c->tab.cap; i++)
		if (c->tab.s[i].used && !c->tab.s[i].q) {
			info_of(c, i, &info);
			fn(arg, &info);
			n++;
		}
	return n;
}
