// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A participant of presumed-abort two-phase commit (txn_part.h); the
 * coordinator's side and the transport's guarantees are in txn_coord.c.
 *
 * A participant may abort on its own only before it votes yes; after a
 * yes it is in doubt and must do what the coordinator decides, however
 * long that takes.  The rules, and why each holds:
 *
 * 1. Yes is a promise: the application made its prepared state durable
 *    before voting (txn_part.h), and after a restart hands every such
 *    transaction back (txn_part_restore()).  So an in-doubt transaction
 *    is never lost, and one the participant does not hold after a
 *    restart was either never voted yes on or already applied.
 *
 * 2. A decision for a transaction not held is one already applied and
 *    forgotten (rule 1; the coordinator resent it, or a reply to an old
 *    INQUIRE crossed the first): a COMMIT is ACKed again, so the
 *    coordinator can forget it; an ABORT needs nothing (presumed abort:
 *    the coordinator did not wait for it).
 *
 * 3. A no, once said, stays no.  After a no vote (the application's, or
 *    ours when the coordinator goes Down before the vote) the
 *    transaction is kept, ABORTED, so that a resent PREPARE (the
 *    coordinator's vote timer crossed our vote, or our vote was lost)
 *    gets the same no and not a fresh TXN_EV_PREPARE that the
 *    application might answer yes: it was told the transaction is
 *    aborted.  It is dropped when the coordinator's ABORT comes (the
 *    coordinator sends ABORT to no voters too); FIFO order means every
 *    PREPARE sent before that ABORT has arrived by then, and none is sent
 *    after it.  Until then it inquires like an in-doubt one, so that a
 *    lost ABORT does not leave it forever.  A restart forgets it, with
 *    the application's own memory of the no: a PREPARE resent after that
 *    is new to both and may be answered yes (nothing was applied).
 *
 * 4. In doubt: INQUIRE every inquire_timeout_ns, while the coordinator
 *    is not Down; at once when it comes Up (or at a restore).  A
 *    coordinator that is still collecting votes does not answer; it
 *    resends PREPARE to those it has no vote from, and we resend our
 *    vote.  Down of the coordinator never changes what we hold in doubt,
 *    it only parks the inquiries: being wrong about Down is then only
 *    slower.
 *
 * 5. Only the transaction's coordinator (id.coord) speaks for it: a
 *    PREPARE or decision from any other node is ignored, as is a PREPARE
 *    that does not name us, and a COMMIT for a transaction we did not
 *    vote yes on (a correct coordinator never sends it).
 *
 * When full (max_txns held) a new PREPARE is answered no and nothing is
 * held: the application never saw it, so a later resend may still be
 * answered yes (rule 3's concern does not arise).
 *
 * A decision raises TXN_EV_DECIDE and the transaction waits, DECIDING,
 * for txn_part_applied(): the ACK of a COMMIT must not leave before the
 * COMMIT is durable here, since the coordinator forgets it on the last
 * ACK and would then answer ABORT (txn_coord.c, rule 2).  Memory is the
 * caller's, as in txn_coord.c, for the same reasons.
 */
#include <string.h>

#include "txn_part.h"

enum { Q_INQUIRE };

static size_t align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

static int cfg_ok(const struct txn_part_cfg *cfg)
{
	return cfg && cfg->self && cfg->max_txns &&
	       cfg->max_txns <= (1u << 24) && cfg->inquire_timeout_ns;
}

size_t txn_part_memsize(const struct txn_part_cfg *cfg)
{
	if (!cfg_ok(cfg))
		return 0;
	return align8(txn_tab_memsize(cfg->max_txns)) +
	       align8((size_t)cfg->max_txns * sizeof(struct txn_part_txn));
}

int txn_part_init(struct txn_part *p, const struct txn_part_cfg *cfg,
		  const struct txn_ops *ops, void *ctx, void *mem, size_t len)
{
	size_t need = txn_part_memsize(cfg);
	uint8_t *m = mem;

	if (!need || !ops || !ops->send || !ops->event || !mem ||
	    (uintptr_t)mem % 8 || len < need)
		return -EINVAL;
	*p = (struct txn_part) { .cfg = *cfg, .ops = ops, .ctx = ctx };
	txn_tab_init(&p->tab, cfg->max_txns, m);
	m += align8(txn_tab_memsize(cfg->max_txns));
	p->tx = (struct txn_part_txn *)m;
	return 0;
}

static void send_rec(struct txn_part *p, uint8_t type, uint8_t flags,
		     uint32_t arg, const struct txn_id *id)
{
	struct txn_rec r = {
		.type	= type,
		.flags	= flags,
		.id	= *id,
		.arg	= arg,
	};

	p->ops->send(p->ctx, id->coord, &r);
}

static void send_vote(struct txn_part *p, const struct txn_id *id,
		      uint32_t reason)
{
	send_rec(p, TXRDMA_TXN_VOTE, reason ? 0 : TXRDMA_TXN_F_YES, reason,
		 id);
}

static void inquire(struct txn_part *p, uint32_t i)
{
	send_rec(p, TXRDMA_TXN_INQUIRE, 0, 0, &p->tab.s[i].id);
	p->stats.inquiries++;
	txn_tab_arm(&p->tab, i, Q_INQUIRE, p->cfg.inquire_timeout_ns);
}

static void report(struct txn_part *p, uint8_t type, uint8_t decision,
		  uint8_t why, const struct txn_id *id,
		  const struct txn_rec *r)
{
	struct txn_event ev = {
		.type		= type,
		.decision	= decision,
		.why		= why,
		.node		= id->coord,
		.id		= *id,
		.rec		= r,
	};

	p->ops->event(p->ctx, &ev);
}

static int ignored(struct txn_part *p)
{
	p->stats.ignored++;
	return -EPROTO;
}

static int on_prepare(struct txn_part *p, const struct txn_rec *r)
{
	struct txn_part_txn *tx;
	unsigned int k;
	uint32_t i;

	for (k = 0; k < r->nparts; k++)
		if (txn_rec_part(r, k) == p->cfg.self)
			break;
	if (k == r->nparts)
		return ignored(p);
	i = txn_tab_find(&p->tab, &r->id);
	if (i == TXN_NIL) {
		i = txn_tab_add(&p->tab, &r->id);
		if (i == TXN_NIL) {
			p->stats.full++;
			send_vote(p, &r->id, TXN_REASON_FULL);
			return -ENOSPC;
		}
		p->tx[i] = (struct txn_part_txn) { .phase = TXN_PP_PREPARING };
		p->stats.prepares++;
		report(p, TXN_EV_PREPARE, 0, TXN_WHY_NONE, &r->id, r);
		return 0;
	}
	tx = &p->tx[i];
	switch (tx->phase) {
	case TXN_PP_IN_DOUBT:
		send_vote(p, &r->id, 0);
		p->stats.resent++;
		return 0;
	case TXN_PP_ABORTED:
		send_vote(p, &r->id, tx->reason);
		p->stats.resent++;
		return 0;
	default:
		/* PREPARING: the application is on it; DECIDING: past it */
		p->stats.stale++;
		return -EALREADY;
	}
}

static void decide(struct txn_part *p, uint32_t i, uint8_t decision)
{
	struct txn_part_txn *tx = &p->tx[i];

	txn_tab_disarm(&p->tab, i);
	tx->phase = TXN_PP_DECIDING;
	tx->decision = decision;
	tx->parked = 0;
	if (decision == TXRDMA_TXN_COMMIT)
		p->stats.commits++;
	else
		p->stats.aborts++;
	report(p, TXN_EV_DECIDE, decision, TXN_WHY_NONE, &p->tab.s[i].id,
	      NULL);
}

static int on_decision(struct txn_part *p, const struct txn_rec *r)
{
	uint32_t i = txn_tab_find(&p->tab, &r->id);
	struct txn_part_txn *tx;

	if (i == TXN_NIL) {
		p->stats.unknown++;
		if (r->type != TXRDMA_TXN_COMMIT)
			return -ENOENT;
		send_rec(p, TXRDMA_TXN_ACK, 0, TXRDMA_TXN_COMMIT, &r->id);
		p->stats.acks++;
		return 0;
	}
	tx = &p->tx[i];
	switch (tx->phase) {
	case TXN_PP_IN_DOUBT:
		decide(p, i, r->type);
		return 0;
	case TXN_PP_PREPARING:
		/* COMMIT without our yes: no correct coordinator sends it */
		if (r->type == TXRDMA_TXN_COMMIT)
			return ignored(p);
		decide(p, i, r->type);
		return 0;
	case TXN_PP_ABORTED:
		if (r->type == TXRDMA_TXN_COMMIT)
			return ignored(p);
		txn_tab_del(&p->tab, i);	/* rule 3: no PREPARE follows */
		return 0;
	default:
		p->stats.stale++;
		return -EALREADY;
	}
}

int txn_part_on_rec(struct txn_part *p, uint32_t from,
		    const struct txn_rec *r, uint64_t now)
{
	txn_tab_clock(&p->tab, now);
	if (from != r->id.coord)
		return ignored(p);
	switch (r->type) {
	case TXRDMA_TXN_PREPARE:
		return on_prepare(p, r);
	case TXRDMA_TXN_COMMIT:
	case TXRDMA_TXN_ABORT:
		return on_decision(p, r);
	default:
		return ignored(p);
	}
}

int txn_part_learned(struct txn_part *p, const struct txn_id *id,
		     uint8_t decision, uint64_t now)
{
	struct txn_rec r = { .type = decision, .id = *id };

	if (decision != TXRDMA_TXN_COMMIT && decision != TXRDMA_TXN_ABORT)
		return -EINVAL;
	txn_tab_clock(&p->tab, now);
	if (txn_tab_find(&p->tab, id) == TXN_NIL)
		return -ENOENT;	/* nothing held: nothing to ACK either */
	return on_decision(p, &r);
}

int txn_part_vote(struct txn_part *p, const struct txn_id *id, int yes,
		  uint32_t reason, uint64_t now)
{
	struct txn_part_txn *tx;
	uint32_t i;

	if (!yes && !reason)
		return -EINVAL;
	i = txn_tab_find(&p->tab, id);
	if (i == TXN_NIL)
		return -ENOENT;
	tx = &p->tx[i];
	if (tx->phase != TXN_PP_PREPARING)
		return -EALREADY;
	txn_tab_clock(&p->tab, now);
	if (yes) {
		tx->phase = TXN_PP_IN_DOUBT;
		p->stats.votes_yes++;
		send_vote(p, id, 0);
	} else {
		tx->phase = TXN_PP_ABORTED;
		tx->reason = reason;
		p->stats.votes_no++;
		send_vote(p, id, reason);
	}
	txn_tab_arm(&p->tab, i, Q_INQUIRE, p->cfg.inquire_timeout_ns);
	return 0;
}

int txn_part_applied(struct txn_part *p, const struct txn_id *id,
		     uint64_t now)
{
	uint32_t i = txn_tab_find(&p->tab, id);
	struct txn_id aid;

	if (i == TXN_NIL)
		return -ENOENT;
	if (p->tx[i].phase == TXN_PP_ABORTED)
		return 0;
	if (p->tx[i].phase != TXN_PP_DECIDING)
		return -EINVAL;
	txn_tab_clock(&p->tab, now);
	aid = *id;
	if (p->tx[i].decision == TXRDMA_TXN_COMMIT) {
		send_rec(p, TXRDMA_TXN_ACK, 0, TXRDMA_TXN_COMMIT, &aid);
		p->stats.acks++;
	}
	txn_tab_del(&p->tab, i);
	return 0;
}

void txn_part_peer(struct txn_part *p, uint32_t node, int up, uint64_t now)
{
	struct txn_part_txn *tx;
	struct txn_slot *s;
	uint32_t i;

	txn_tab_clock(&p->tab, now);
	for (i = 0; i < p->tab.cap; i++) {
		s = &p->tab.s[i];
		tx = &p->tx[i];
		if (!s->used || s->id.coord != node)
			continue;
		if (up) {
			if (tx->parked) {
				tx->parked = 0;
				inquire(p, i);
			}
			continue;
		}
		switch (tx->phase) {
		case TXN_PP_PREPARING:
			/* rule 3: a no of our own, kept */
			tx->phase = TXN_PP_ABORTED;
			tx->reason = TXN_REASON_DOWN;
			tx->parked = 1;
			p->stats.unilateral++;
			send_vote(p, &s->id, TXN_REASON_DOWN);
			report(p, TXN_EV_DECIDE, TXRDMA_TXN_ABORT, TXN_WHY_DOWN,
			      &s->id, NULL);
			break;
		case TXN_PP_IN_DOUBT:
		case TXN_PP_ABORTED:
			tx->parked = 1;
			txn_tab_disarm(&p->tab, i);
			break;
		default:
			break;
		}
	}
}

void txn_part_tick(struct txn_part *p, uint64_t now)
{
	uint32_t i;

	txn_tab_clock(&p->tab, now);
	while ((i = txn_tab_due(&p->tab)) != TXN_NIL) {
		txn_tab_disarm(&p->tab, i);
		/* only in doubt or ABORTED ones are armed, never parked */
		inquire(p, i);
	}
}

uint64_t txn_part_next_deadline(const struct txn_part *p)
{
	return txn_tab_next(&p->tab);
}

int txn_part_restore(struct txn_part *p, const struct txn_id *id,
		     uint64_t now)
{
	uint32_t i;

	if (!id || !id->coord || !id->epoch || !id->seq)
		return -EINVAL;
	if (txn_tab_find(&p->tab, id) != TXN_NIL)
		return -EEXIST;
	i = txn_tab_add(&p->tab, id);
	if (i == TXN_NIL)
		return -ENOSPC;
	txn_tab_clock(&p->tab, now);
	p->tx[i] = (struct txn_part_txn) { .phase = TXN_PP_IN_DOUBT };
	p->stats.restored++;
	inquire(p, i);
	return 0;
}

static void info_of(const struct txn_part *p, uint32_t i,
		    struct txn_part_info *info)
{
	const struct txn_part_txn *tx = &p->tx[i];
	const struct txn_slot *s = &p->tab.s[i];

	*info = (struct txn_part_info) {
		.id		= s->id,
		.slot		= i,
		.phase		= tx->phase,
		.parked		= tx->parked,
		.decision	= tx->decision,
		.reason		= tx->reason,
		.deadline	= s->q ? s->when : TXN_NEVER,
	};
}

int txn_part_get(const struct txn_part *p, const struct txn_id *id,
		 struct txn_part_info *info)
{
	uint32_t i = txn_tab_find(&p->tab, id);

	if (i == TXN_NIL)
		return -ENOENT;
	info_of(p, i, info);
	return 0;
}

uint32_t txn_part_walk(const struct txn_part *p,
		       void (*fn)(void *arg, const struct txn_part_info *info),
		       void *arg)
{
	struct txn_part_info info;
	struct txn_tab_iter it;
	uint32_t i, n = 0;

	txn_tab_iter_init(&p->tab, &it);
	while ((i = txn_tab_iter_next(&p->tab, &it)) != TXN_NIL) {
		info_of(p, i, &info);
		fn(arg, &info);
		n++;
	}
	for (i = 0; i < p->tab.cap; i++)
		if (p->tab.s[i].used && !p->tab.s[i].q) {
			info_of(p, i, &info);
			fn(arg, &info);
			n++;
		}
	return n;
}
