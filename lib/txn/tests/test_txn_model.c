// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * An exhaustive model checker for the two-phase-commit machines
 * (lib/txn/txn_coord.c, txn_part.c): the real code, not a model of it,
 * driven through every interleaving of a small world.
 *
 * The world: one coordinator (node 1), 1..3 participants (nodes 2..4),
 * one transaction (or two over two participants, to show they do not
 * interfere), a FIFO channel per direction per pair.  Its state is the
 * machines' memory (caller-owned, so a copy of the world is a copy of
 * every machine), the channels, and what the applications and the log
 * made durable.  Actions enabled in a state:
 *  - deliver the head of a channel (through the wire writer and
 *    reader), or lose it (budget: any single record may go, a superset
 *    of "a failed connection loses what was in flight");
 *  - a node's timer fires (budget, or any number);
 *  - a participant's application votes yes (its prepared state made
 *    durable first) or no on a PREPARE it holds, or applies a decision
 *    (durably); the coordinator's log makes a COMMIT durable;
 *  - a node is told a peer is Down (right or wrong: budget) or Up;
 *  - the coordinator crashes and restarts (a new epoch; every COMMIT
 *    its log holds and never forgot is restored; a write in flight made
 *    it or not, both explored), or a participant does (its prepared and
 *    applied states are durable, the rest, its no votes too, is lost);
 *    a crash empties the channels to and from the node (budgets).
 * A channel holds a few records; a send to a full one is lost.  That
 * only adds losses, which are allowed anyway, and every check on what
 * is sent is made at send time, so a dropped record is still checked.
 *
 * Time is abstract and per node: a node's clock jumps to its next
 * deadline when its timer fires, and never moves otherwise.  With one
 * transaction a node has at most one timer, and "it may fire at any
 * point" is all a real clock adds.  With two, timers a node arms
 * between two of its firings fire together (conf.steps lets the clock
 * step a unit at a time to separate them; it is too dear to be on).
 *
 * Checked in every state, and on every record and event as it happens:
 *  - no participant applies COMMIT while another applies ABORT or
 *    aborted on its own, nor a decision unlike one it applied before;
 *  - COMMIT is applied, sent or reported DONE only once the log holds
 *    it; the coordinator never sends or reports ABORT for a transaction
 *    whose COMMIT is (or may become) durable;
 *  - a yes vote leaves only from a participant whose prepared state is
 *    durable, an ACK of COMMIT only from one that applied it, a FORGET
 *    only when every participant applied the COMMIT;
 *  - the DONE decision equals what every participant applies;
 *  - a PREPARE reaches the application at most once (unless it crashed
 *    and forgot it), never after it applied a decision or said no.
 * Progress, from every state: a fault-free continuation (deliver
 * everything, the applications vote yes and apply, the log completes,
 * peers come Up, timers fire; no loss, no crash) must reach quiescence
 * (no record in flight, no timer, nothing held anywhere) within
 * PROG_STEPS, with every participant having applied the logged COMMIT,
 * or none a COMMIT, and DONE reported unless the coordinator crashed
 * before it could be.  States whose continuation quiesced are
 * remembered: a continuation stops at the first one it meets.
 *
 * The search: depth first, over a set of 64-bit hashes of canonical
 * state encodings (hash compaction: a collision could hide a state,
 * with odds about n^2 / 2^65).  The encoding holds what the machines'
 * behaviour depends on, read through txn_*_walk() in timer order:
 * deadlines relative to the node's clock, never a counter or an
 * absolute time.  Two reductions, both sound for these properties:
 * participants are interchangeable, so their parts of the encoding are
 * sorted (states equal up to a renaming are one); and budgets left are
 * kept beside the hash, not in it, so that a state reached again with
 * no more of any budget than before is not explored again (it can only
 * do less).  A violation prints the trace of actions that leads to it,
 * shortened to the actions it needs, and fails the test.
 *
 * TXN_MODEL="np nt losses downs ccrash pcrash timers cap steps" runs one
 * configuration of one's choosing (e.g. deeper bounds, by hand).
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "../txn_coord.h"
#include "../txn_part.h"
#include "tap.h"

#define NP_MAX		3
#define NT_MAX		2
#define CAP		4	/* records a channel holds, at most */
#define TIMEOUT		2	/* every timeout, in abstract time units */
#define PROG_STEPS	400
#define MAX_ACTS	96	/* enabled() gives at most 53 */
#define COORD		1
#define PNODE(i)	(2u + (i))

enum { LOG_NONE, LOG_PENDING, LOG_DURABLE, LOG_TRIMMED };
enum { OUT_NONE, OUT_COMMIT, OUT_ABORT, OUT_LOCAL };

struct msg {
	uint8_t type, flags, txn, epoch;
	uint32_t arg;
};

struct chan {
	uint8_t n;
	struct msg m[CAP];
};

struct world {
	struct txn_coord c;
	uint64_t cmem[48];
	struct txn_part p[NP_MAX];
	uint64_t pmem[NP_MAX][24];
	uint64_t now[1 + NP_MAX];	/* each node's clock */
	struct chan ch[2][NP_MAX];	/* [0][i]: to Pi, [1][i]: from Pi */
	uint8_t epoch;
	uint8_t log[NT_MAX];		/* the coordinator's durable log */
	uint8_t done[NT_MAX];		/* DONE reported: its decision */
	uint8_t done_lost[NT_MAX];	/* the coordinator crashed before */
	uint8_t out[NP_MAX][NT_MAX];	/* what Pi's application applied */
	uint8_t prepared[NP_MAX][NT_MAX];	/* durable prepared state */
	uint8_t cview[NP_MAX];		/* coordinator told Pi is Down */
	uint8_t pview[NP_MAX];		/* Pi told the coordinator is Down */
	uint8_t losses, downs, ccrash, pcrash;	/* budgets left */
	uint8_t timers;			/* timer firings left, 255: any */
};

enum act_kind {
	A_DELIVER, A_LOSE, A_TIMER, A_STEP, A_YES, A_NO, A_APPLY, A_LOG,
	A_CDOWN, A_CUP, A_PDOWN, A_PUP, A_CCRASH, A_PCRASH,
};

struct act {
	uint8_t kind, a, b;	/* DELIVER, LOSE: dir, i; TIMER, STEP: node;
				 * YES, NO, APPLY: i, txn; LOG: txn;
				 * *DOWN, *UP, PCRASH: i; CCRASH: b = the
				 * pending log writes that made it */
};

struct conf {
	const char *name;
	int np, nt;
	uint8_t losses, downs, ccrash, pcrash;
	uint8_t timers;		/* timer firings explored, 0: any number */
	uint8_t cap;		/* records a channel holds, <= CAP */
	int steps;		/* clocks may step (two transactions) */
};

static struct world W;
static const struct conf *K;
static char why[512];
static const int node_ctx[1 + NP_MAX] = { 0, 1, 2, 3 };
static const char *const pdata[NP_MAX] = { "p-two", "p-three", "p-four" };
static const uint32_t pnodes[NP_MAX] = { 2, 3, 4 };
static struct txn_branch branches[NP_MAX];

static struct {
	uint64_t overflows, continuations, cont_steps;
	uint64_t quiescent[NT_MAX][2];	/* by transaction: commit, abort */
} st;

static void violate(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static void violate(const char *fmt, ...)
{
	va_list ap;

	if (why[0])
		return;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
}

static struct txn_id tid(int t, uint8_t epoch)
{
	return (struct txn_id) { .coord = COORD, .epoch = epoch,
				 .seq = (uint64_t)t + 1 };
}

/* the transaction a record is about, -1 if none of ours */
static int txn_of(const struct txn_id *id)
{
	if (id->coord != COORD || id->epoch != 1 || !id->seq ||
	    id->seq > (uint64_t)K->nt)
		return -1;
	return (int)(id->seq - 1);
}

/* ---- the callbacks: every effect is checked as it happens ---- */

static void push(struct chan *ch, const struct msg *m)
{
	if (ch->n == K->cap) {
		st.overflows++;
		return;
	}
	ch->m[ch->n++] = *m;
}

static void check_prepare(const struct txn_rec *r, int i, int wire)
{
	int k;

	if (r->nparts != K->np || r->data_len != strlen(pdata[i]) ||
	    memcmp(r->data, pdata[i], r->data_len))
		violate("PREPARE to P%d with the wrong payload", i + 1);
	for (k = 0; k < K->np; k++) {
		uint32_t n = wire ? txn_rec_part(r, (unsigned int)k) :
				    ((const uint32_t *)r->parts)[k];

		if (n != pnodes[k])
			violate("PREPARE with the wrong participants");
	}
}

static void m_send(void *ctx, uint32_t node, const struct txn_rec *r)
{
	int from = *(const int *)ctx, t = txn_of(&r->id), i;
	struct msg m;

	if (txn_rec_check(r) || t < 0 || r->id.epoch != 1) {
		violate("node %d sent a bad record", from);
		return;
	}
	m = (struct msg) {
		.type = r->type, .flags = r->flags, .txn = (uint8_t)t,
		.epoch = (uint8_t)r->id.epoch, .arg = r->arg,
	};
	if (from == 0) {
		i = (int)node - 2;
		if (i < 0 || i >= K->np) {
			violate("coordinator sent to node %u", node);
			return;
		}
		if (r->type == TXRDMA_TXN_COMMIT && W.log[t] != LOG_DURABLE)
			violate("COMMIT t%d sent before it was logged", t);
		if (r->type == TXRDMA_TXN_ABORT && W.log[t] != LOG_NONE)
			violate("ABORT t%d sent, its COMMIT (being) logged", t);
		if (r->type == TXRDMA_TXN_PREPARE)
			check_prepare(r, i, 0);
		if (r->type != TXRDMA_TXN_PREPARE &&
		    r->type != TXRDMA_TXN_COMMIT && r->type != TXRDMA_TXN_ABORT)
			violate("coordinator sent type %u", r->type);
		push(&W.ch[0][i], &m);
		return;
	}
	i = from - 1;
	if (node != COORD) {
		violate("P%d sent to node %u", i + 1, node);
		return;
	}
	if (r->type == TXRDMA_TXN_VOTE && (r->flags & TXRDMA_TXN_F_YES) &&
	    !W.prepared[i][t])
		violate("P%d voted yes on t%d, not prepared durably", i + 1, t);
	if (r->type == TXRDMA_TXN_ACK &&
	    (r->arg != TXRDMA_TXN_COMMIT || W.out[i][t] != OUT_COMMIT))
		violate("P%d ACKed t%d without applying COMMIT", i + 1, t);
	push(&W.ch[1][i], &m);
}

static void m_log(void *ctx, const struct txn_id *id, const uint32_t *nodes,
		  uint16_t n)
{
	int t = txn_of(id), k;

	(void)ctx;
	if (t < 0 || W.log[t] != LOG_NONE || n != K->np) {
		violate("a bad log write");
		return;
	}
	for (k = 0; k < n; k++)
		if (nodes[k] != pnodes[k])
			violate("log write with the wrong participants");
	W.log[t] = LOG_PENDING;
}

static void m_event(void *ctx, const struct txn_event *ev)
{
	int from = *(const int *)ctx, t = txn_of(&ev->id), i, j;

	if (t < 0) {
		violate("event about a transaction not ours");
		return;
	}
	if (from == 0) {
		if (ev->type == TXN_EV_DONE) {
			if (W.done[t])
				violate("DONE t%d twice", t);
			if (ev->decision == TXRDMA_TXN_COMMIT &&
			    W.log[t] != LOG_DURABLE)
				violate("DONE COMMIT t%d not logged", t);
			if (ev->decision == TXRDMA_TXN_ABORT &&
			    W.log[t] != LOG_NONE)
				violate("DONE ABORT t%d, COMMIT logged", t);
			W.done[t] = ev->decision;
		} else if (ev->type == TXN_EV_FORGET) {
			if (W.log[t] != LOG_DURABLE)
				violate("FORGET t%d not logged", t);
			for (j = 0; j < K->np; j++)
				if (W.out[j][t] != OUT_COMMIT)
					violate("FORGET t%d, P%d not applied",
						t, j + 1);
			W.log[t] = LOG_TRIMMED;
		} else {
			violate("coordinator raised event %u", ev->type);
		}
		return;
	}
	i = from - 1;
	if (ev->type == TXN_EV_PREPARE) {
		if (W.out[i][t] != OUT_NONE)
			violate("P%d got t%d's PREPARE after its outcome",
				i + 1, t);
		check_prepare(ev->rec, i, 1);
	} else if (ev->type == TXN_EV_DECIDE) {
		if (ev->why == TXN_WHY_DOWN) {
			if (ev->decision != TXRDMA_TXN_ABORT ||
			    W.out[i][t] != OUT_NONE)
				violate("P%d aborted t%d on its own, wrongly",
					i + 1, t);
			W.out[i][t] = OUT_LOCAL;
		} else if (ev->decision == TXRDMA_TXN_COMMIT &&
			   (W.out[i][t] == OUT_LOCAL ||
			    W.out[i][t] == OUT_ABORT ||
			    (W.log[t] != LOG_DURABLE &&
			     W.log[t] != LOG_TRIMMED))) {
			violate("P%d told COMMIT t%d wrongly", i + 1, t);
		} else if (ev->decision == TXRDMA_TXN_ABORT &&
			   W.out[i][t] == OUT_COMMIT) {
			violate("P%d told ABORT t%d after COMMIT", i + 1, t);
		}
	} else {
		violate("participant raised event %u", ev->type);
	}
}

static const struct txn_ops ops = {
	.send	= m_send,
	.log	= m_log,
	.event	= m_event,
};

/* ---- the world ---- */

static struct txn_coord_cfg coord_cfg(uint32_t epoch)
{
	return (struct txn_coord_cfg) {
		.self		= COORD,
		.epoch		= epoch,
		.window		= (uint32_t)K->nt,
		.max_parts	= (uint16_t)K->np,
		.vote_retries	= 1,
		.vote_timeout_ns = TIMEOUT,
		.ack_timeout_ns	= TIMEOUT,
	};
}

static void coord_start(uint32_t epoch)
{
	struct txn_coord_cfg cfg = coord_cfg(epoch);

	if (txn_coord_memsize(&cfg) > sizeof(W.cmem) ||
	    txn_coord_init(&W.c, &cfg, &ops, (void *)&node_ctx[0], W.cmem,
			   sizeof(W.cmem)))
		violate("coordinator init");
}

static void part_start(int i)
{
	struct txn_part_cfg cfg = {
		.self			= PNODE(i),
		.max_txns		= (uint32_t)K->nt,
		.inquire_timeout_ns	= TIMEOUT,
	};

	if (txn_part_memsize(&cfg) > sizeof(W.pmem[i]) ||
	    txn_part_init(&W.p[i], &cfg, &ops, (void *)&node_ctx[1 + i],
			  W.pmem[i], sizeof(W.pmem[i])))
		violate("participant init");
}

static void world_init(void)
{
	struct txn_id id;
	int i, t;

	memset(&W, 0, sizeof(W));
	W.epoch = 1;
	W.losses = K->losses;
	W.downs = K->downs;
	W.ccrash = K->ccrash;
	W.pcrash = K->pcrash;
	W.timers = K->timers ? K->timers : 255;
	for (i = 0; i < K->np; i++) {
		branches[i] = (struct txn_branch) {
			.node = pnodes[i],
			.len = (uint32_t)strlen(pdata[i]),
			.data = pdata[i],
		};
		part_start(i);
	}
	coord_start(1);
	for (t = 0; t < K->nt; t++)
		if (txn_coord_begin(&W.c, branches, (uint16_t)K->np, 0, &id) ||
		    txn_of(&id) != t)
			violate("begin");
}

static int phase_of(int i, int t)
{
	struct txn_part_info info;
	struct txn_id id = tid(t, 1);

	return txn_part_get(&W.p[i], &id, &info) ? 0 : info.phase;
}

static uint64_t deadline_of(int x)
{
	return x ? txn_part_next_deadline(&W.p[x - 1]) :
		   txn_coord_next_deadline(&W.c);
}

static int enabled(struct act *a)
{
	int n = 0, d, i, t, x;
	uint64_t dl;
	unsigned int mask, pending = 0;

	for (d = 0; d < 2; d++)
		for (i = 0; i < K->np; i++) {
			if (!W.ch[d][i].n)
				continue;
			a[n++] = (struct act) { A_DELIVER, (uint8_t)d, (uint8_t)i };
			if (W.losses)
				a[n++] = (struct act) { A_LOSE, (uint8_t)d,
							(uint8_t)i };
		}
	for (t = 0; t < K->nt; t++)
		if (W.log[t] == LOG_PENDING) {
			a[n++] = (struct act) { A_LOG, (uint8_t)t, 0 };
			pending |= 1u << t;
		}
	for (i = 0; i < K->np; i++)
		for (t = 0; t < K->nt; t++) {
			switch (phase_of(i, t)) {
			case TXN_PP_PREPARING:
				a[n++] = (struct act) { A_YES, (uint8_t)i,
							(uint8_t)t };
				a[n++] = (struct act) { A_NO, (uint8_t)i,
							(uint8_t)t };
				break;
			case TXN_PP_DECIDING:
				a[n++] = (struct act) { A_APPLY, (uint8_t)i,
							(uint8_t)t };
				break;
			}
		}
	for (i = 0; i < K->np; i++) {
		if (W.cview[i])
			a[n++] = (struct act) { A_CUP, (uint8_t)i, 0 };
		if (W.pview[i])
			a[n++] = (struct act) { A_PUP, (uint8_t)i, 0 };
	}
	for (x = 0; x <= K->np; x++) {
		dl = deadline_of(x);
		if (dl == TXN_NEVER)
			continue;
		if (W.timers)
			a[n++] = (struct act) { A_TIMER, (uint8_t)x, 0 };
		if (K->steps && dl - W.now[x] >= 2)
			a[n++] = (struct act) { A_STEP, (uint8_t)x, 0 };
	}
	if (W.downs)
		for (i = 0; i < K->np; i++) {
			if (!W.cview[i])
				a[n++] = (struct act) { A_CDOWN, (uint8_t)i, 0 };
			if (!W.pview[i])
				a[n++] = (struct act) { A_PDOWN, (uint8_t)i, 0 };
		}
	if (W.ccrash)
		for (mask = 0; mask <= pending; mask++)
			if (!(mask & ~pending))
				a[n++] = (struct act) { A_CCRASH, 0,
							(uint8_t)mask };
	if (W.pcrash)
		for (i = 0; i < K->np; i++)
			a[n++] = (struct act) { A_PCRASH, (uint8_t)i, 0 };
	return n;
}

/* the records handed to a machine come through the wire */
static struct txn_rec to_rec(const struct msg *m, int i, uint8_t *buf,
			     size_t len)
{
	struct txn_rec r = {
		.type	= m->type,
		.flags	= m->flags,
		.id	= tid(m->txn, m->epoch),
		.arg	= m->arg,
	}, out = { 0 };
	struct txn_reader rd;
	struct txn_writer w;

	if (m->type == TXRDMA_TXN_PREPARE) {
		r.nparts = (uint16_t)K->np;
		r.parts = pnodes;
		r.data = pdata[i];
		r.data_len = (uint32_t)strlen(pdata[i]);
	}
	txn_writer_init(&w, buf, len);
	if (txn_writer_add(&w, &r) ||
	    txn_reader_init(&rd, buf, txn_writer_finish(&w)) ||
	    txn_reader_next(&rd, &out) != 1)
		violate("a record the wire refuses");
	return out;
}

static void pop(struct chan *ch)
{
	memmove(&ch->m[0], &ch->m[1], (ch->n - 1u) * sizeof(ch->m[0]));
	ch->n--;
}

static void expect(int ret, const char *what)
{
	if (ret)
		violate("%s returned %d", what, ret);
}

static void apply(const struct act *a)
{
	uint8_t buf[256];
	struct txn_part_info info;
	struct txn_id id;
	struct txn_rec r;
	int i = a->a, t = a->b;

	switch (a->kind) {
	case A_DELIVER:
		r = to_rec(&W.ch[a->a][a->b].m[0], a->b, buf, sizeof(buf));
		pop(&W.ch[a->a][a->b]);
		if (a->a == 0)
			txn_part_on_rec(&W.p[a->b], COORD, &r, W.now[1 + a->b]);
		else
			txn_coord_on_rec(&W.c, PNODE(a->b), &r, W.now[0]);
		break;
	case A_LOSE:
		pop(&W.ch[a->a][a->b]);
		W.losses--;
		break;
	case A_TIMER:
		/* the fault-free continuation fires timers beyond the budget */
		if (W.timers && W.timers != 255)
			W.timers--;
		if (deadline_of(i) > W.now[i])
			W.now[i] = deadline_of(i);
		if (i)
			txn_part_tick(&W.p[i - 1], W.now[i]);
		else
			txn_coord_tick(&W.c, W.now[0]);
		break;
	case A_STEP:
		W.now[i]++;
		break;
	case A_YES:
		W.prepared[i][t] = 1;	/* durable before the vote */
		id = tid(t, 1);
		expect(txn_part_vote(&W.p[i], &id, 1, 0, W.now[1 + i]),
		       "vote yes");
		break;
	case A_NO:
		W.out[i][t] = OUT_LOCAL;
		id = tid(t, 1);
		expect(txn_part_vote(&W.p[i], &id, 0, 1, W.now[1 + i]),
		       "vote no");
		break;
	case A_APPLY:
		id = tid(t, 1);
		if (txn_part_get(&W.p[i], &id, &info)) {
			violate("apply: not held");
			break;
		}
		if (info.decision == TXRDMA_TXN_COMMIT) {
			if (W.out[i][t] == OUT_LOCAL || W.out[i][t] == OUT_ABORT)
				violate("P%d applies COMMIT t%d after ABORT",
					i + 1, t);
			if (W.log[t] != LOG_DURABLE && W.log[t] != LOG_TRIMMED)
				violate("P%d applies COMMIT t%d not logged",
					i + 1, t);
			W.out[i][t] = OUT_COMMIT;
		} else {
			if (W.out[i][t] == OUT_COMMIT)
				violate("P%d applies ABORT t%d after COMMIT",
					i + 1, t);
			W.out[i][t] = OUT_ABORT;
		}
		W.prepared[i][t] = 0;
		expect(txn_part_applied(&W.p[i], &id, W.now[1 + i]), "applied");
		break;
	case A_LOG:
		W.log[i] = LOG_DURABLE;
		id = tid(i, 1);
		expect(txn_coord_logged(&W.c, &id, W.now[0]), "logged");
		break;
	case A_CDOWN:
		W.downs--;
		W.cview[i] = 1;
		txn_coord_peer(&W.c, PNODE(i), 0, W.now[0]);
		break;
	case A_CUP:
		W.cview[i] = 0;
		txn_coord_peer(&W.c, PNODE(i), 1, W.now[0]);
		break;
	case A_PDOWN:
		W.downs--;
		W.pview[i] = 1;
		txn_part_peer(&W.p[i], COORD, 0, W.now[1 + i]);
		break;
	case A_PUP:
		W.pview[i] = 0;
		txn_part_peer(&W.p[i], COORD, 1, W.now[1 + i]);
		break;
	case A_CCRASH:
		W.ccrash--;
		for (t = 0; t < K->nt; t++) {
			if (W.log[t] == LOG_PENDING)
				W.log[t] = (a->b >> t) & 1 ? LOG_DURABLE :
							     LOG_NONE;
			if (!W.done[t])
				W.done_lost[t] = 1;
		}
		for (i = 0; i < K->np; i++) {
			W.ch[0][i].n = W.ch[1][i].n = 0;
			W.cview[i] = 0;
		}
		W.epoch++;
		coord_start(W.epoch);
		for (t = 0; t < K->nt; t++) {
			if (W.log[t] != LOG_DURABLE)
				continue;
			id = tid(t, 1);
			expect(txn_coord_restore(&W.c, &id, pnodes,
						 (uint16_t)K->np, W.now[0]),
			       "coordinator restore");
		}
		break;
	case A_PCRASH:
		W.pcrash--;
		W.ch[0][i].n = W.ch[1][i].n = 0;
		W.pview[i] = 0;
		part_start(i);
		for (t = 0; t < K->nt; t++) {
			/* the application's no is forgotten with it */
			if (W.out[i][t] == OUT_LOCAL)
				W.out[i][t] = OUT_NONE;
			if (!W.prepared[i][t])
				continue;
			id = tid(t, 1);
			expect(txn_part_restore(&W.p[i], &id, W.now[1 + i]),
			       "participant restore");
		}
		break;
	}
}

/* the invariants over a whole state */
static void check_state(void)
{
	int i, j, t, d;

	for (t = 0; t < K->nt; t++) {
		for (i = 0; i < K->np; i++) {
			if (W.out[i][t] != OUT_COMMIT)
				continue;
			if (W.log[t] != LOG_DURABLE && W.log[t] != LOG_TRIMMED)
				violate("P%d applied COMMIT t%d, not logged",
					i + 1, t);
			for (j = 0; j < K->np; j++)
				if (W.out[j][t] == OUT_ABORT ||
				    W.out[j][t] == OUT_LOCAL)
					violate("t%d: P%d COMMIT, P%d ABORT",
						t, i + 1, j + 1);
			if (W.done[t] == TXRDMA_TXN_ABORT)
				violate("t%d: DONE ABORT, P%d COMMIT", t,
					i + 1);
		}
		if (W.done[t] == TXRDMA_TXN_COMMIT)
			for (i = 0; i < K->np; i++)
				if (W.out[i][t] == OUT_ABORT ||
				    W.out[i][t] == OUT_LOCAL)
					violate("t%d: DONE COMMIT, P%d ABORT",
						t, i + 1);
		for (d = 0; d < 2; d++)
			for (i = 0; i < K->np; i++)
				for (j = 0; j < W.ch[d][i].n; j++)
					if (W.ch[d][i].m[j].txn == t &&
					    W.ch[d][i].m[j].type ==
					    TXRDMA_TXN_COMMIT &&
					    W.log[t] != LOG_DURABLE &&
					    W.log[t] != LOG_TRIMMED)
						violate("COMMIT t%d in flight, "
							"not logged", t);
	}
}

/* ---- canonical encoding ---- */

struct enc {
	uint8_t b[400];
	size_t n;
	uint64_t now;		/* the clock deadlines are taken against */
	int ntx;		/* coordinator transactions walked */
	uint64_t bits[NT_MAX][4];	/* their voted, yes, acked, parked */
};

static inline void put(struct enc *e, uint64_t v)
{
	if (v > 0xff || e->n == sizeof(e->b)) {
		violate("encoding: %llu does not fit", (unsigned long long)v);
		return;
	}
	e->b[e->n++] = (uint8_t)v;
}

static void put_deadline(struct enc *e, uint64_t dl)
{
	if (dl == TXN_NEVER)
		put(e, 0);
	else if (dl <= e->now)
		violate("a deadline in the past");
	else
		put(e, dl - e->now);
}

static void enc_coord(void *arg, const struct txn_coord_info *in)
{
	struct enc *e = arg;

	put(e, (uint64_t)in->id.seq);
	put(e, in->id.epoch);
	put(e, in->slot);
	put(e, in->phase);
	put(e, in->retries);
	put_deadline(e, in->deadline);
	if (e->ntx < NT_MAX) {
		e->bits[e->ntx][0] = in->voted;
		e->bits[e->ntx][1] = in->yes;
		e->bits[e->ntx][2] = in->acked;
		e->bits[e->ntx][3] = in->parked;
	}
	e->ntx++;
}

static void enc_part(void *arg, const struct txn_part_info *in)
{
	struct enc *e = arg;

	put(e, (uint64_t)in->id.seq);
	put(e, in->id.epoch);
	put(e, in->slot);
	put(e, in->phase);
	put(e, in->parked);
	put(e, in->decision);
	put(e, in->reason);
	put_deadline(e, in->deadline);
}

/* what participant @i is, including what the coordinator holds of it */
struct blk {
	uint8_t b[128];
	size_t n;
};

static void enc_participant(struct enc *e, struct blk *out, int i)
{
	size_t start = e->n;
	int d, j, t, k;

	for (t = 0; t < K->nt; t++) {
		put(e, W.out[i][t]);
		put(e, W.prepared[i][t]);
	}
	put(e, W.cview[i]);
	put(e, W.pview[i]);
	for (d = 0; d < 2; d++) {
		put(e, W.ch[d][i].n);
		for (j = 0; j < W.ch[d][i].n; j++) {
			const struct msg *m = &W.ch[d][i].m[j];

			put(e, m->type);
			put(e, m->flags);
			put(e, m->txn);
			put(e, m->epoch);
			put(e, m->arg);
		}
	}
	for (t = 0; t < e->ntx && t < NT_MAX; t++)
		for (k = 0; k < 4; k++)
			put(e, (e->bits[t][k] >> i) & 1);
	e->now = W.now[1 + i];
	put(e, txn_part_walk(&W.p[i], enc_part, e));
	/* moved out of the way: the blocks are sorted, then appended */
	out->n = e->n - start;
	if (out->n > sizeof(out->b)) {
		violate("participant encoding too long");
		out->n = sizeof(out->b);
	}
	memcpy(out->b, e->b + start, out->n);
	e->n = start;
}

static int blk_cmp(const struct blk *a, const struct blk *b)
{
	if (a->n != b->n)
		return a->n < b->n ? -1 : 1;
	return memcmp(a->b, b->b, a->n);
}

/*
 * The state, canonically: what it is made of, deadlines relative to
 * each node's clock, never a counter, an absolute time or a budget left
 * (see budgets()).  Participants are interchangeable (their payloads
 * are only checked, every invariant treats them alike), so their blocks
 * are sorted: states that differ by a renaming of participants are one.
 */
static void encode(struct enc *e)
{
	struct blk part[NP_MAX];
	const struct blk *order[NP_MAX], *tmp;
	int i, j, t;

	e->n = 0;
	e->ntx = 0;
	put(e, W.epoch);
	for (t = 0; t < K->nt; t++) {
		put(e, W.log[t]);
		put(e, W.done[t]);
		put(e, W.done_lost[t]);
	}
	e->now = W.now[0];
	put(e, txn_coord_walk(&W.c, enc_coord, e));
	for (i = 0; i < K->np; i++) {
		enc_participant(e, &part[i], i);
		order[i] = &part[i];
		for (j = i; j > 0 && blk_cmp(order[j - 1], order[j]) > 0; j--) {
			tmp = order[j - 1];
			order[j - 1] = order[j];
			order[j] = tmp;
		}
	}
	for (i = 0; i < K->np; i++) {
		if (e->n + order[i]->n > sizeof(e->b)) {
			violate("encoding too long");
			return;
		}
		memcpy(e->b + e->n, order[i]->b, order[i]->n);
		e->n += order[i]->n;
	}
}

static uint64_t hash(const struct enc *e)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ e->n, v;
	size_t i;

	for (i = 0; i < e->n; i += 8) {
		v = 0;
		memcpy(&v, e->b + i, e->n - i < 8 ? e->n - i : 8);
		h ^= v;
		h *= 0xbf58476d1ce4e5b9ULL;
		h ^= h >> 31;
		h *= 0x94d049bb133111ebULL;
		h ^= h >> 29;
	}
	return h ? h : 1;
}

/*
 * The budgets left, a byte each.  They are not in the encoding: a state
 * seen before with at least as much of every budget left has done all
 * that this one can (subsumption), so the set keeps, per state, the
 * budget vectors it was reached with.
 */
static uint64_t budgets(void)
{
	return (uint64_t)W.losses | (uint64_t)W.downs << 8 |
	       (uint64_t)W.ccrash << 16 | (uint64_t)W.pcrash << 24 |
	       (uint64_t)W.timers << 32;
}

static int covers(uint64_t u, uint64_t v)
{
	int k;

	for (k = 0; k < 64; k += 8)
		if (((u >> k) & 0xff) < ((v >> k) & 0xff))
			return 0;
	return 1;
}

/* ---- a set of state hashes (open addressing, linear probing) ---- */

struct ent {
	uint64_t key, val;	/* key 0: empty */
};

struct set {
	struct ent *v;
	size_t cap, n;
};

static void set_insert(struct set *s, uint64_t key, uint64_t val);

/*
 * The tables are mapped, not malloc'ed: ASan would keep every outgrown
 * one in its quarantine, hundreds of MB on a host others share.
 */
static void set_grow(struct set *s)
{
	struct set bigger = { .cap = s->cap ? s->cap * 2 : 1 << 16 };
	size_t i;

	bigger.v = mmap(NULL, bigger.cap * sizeof(*bigger.v),
			PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			-1, 0);
	if (bigger.v == MAP_FAILED)
		abort();
	for (i = 0; i < s->cap; i++)
		if (s->v[i].key)
			set_insert(&bigger, s->v[i].key, s->v[i].val);
	if (s->cap)
		munmap(s->v, s->cap * sizeof(*s->v));
	*s = bigger;
}

static void set_insert(struct set *s, uint64_t key, uint64_t val)
{
	size_t i;

	if ((s->n + 1) * 2 > s->cap)
		set_grow(s);
	for (i = key & (s->cap - 1); s->v[i].key; i = (i + 1) & (s->cap - 1))
		;
	s->v[i] = (struct ent) { key, val };
	s->n++;
}

static int set_has(const struct set *s, uint64_t key)
{
	size_t i;

	if (!s->cap)
		return 0;
	for (i = key & (s->cap - 1); s->v[i].key; i = (i + 1) & (s->cap - 1))
		if (s->v[i].key == key)
			return 1;
	return 0;
}

/* 1 when (key, budgets) is new: not covered by a visit before */
static int set_visit(struct set *s, uint64_t key, uint64_t val)
{
	size_t i;

	if (s->cap)
		for (i = key & (s->cap - 1); s->v[i].key;
		     i = (i + 1) & (s->cap - 1))
			if (s->v[i].key == key && covers(s->v[i].val, val))
				return 0;
	set_insert(s, key, val);
	return 1;
}

static void set_free(struct set *s)
{
	if (s->cap)
		munmap(s->v, s->cap * sizeof(*s->v));
	*s = (struct set) { 0 };
}

/* ---- progress ---- */

/* the fault-free continuation's next action; 0 when there is none */
static int next_fair(struct act *a)
{
	int d, i, t, x;

	for (d = 0; d < 2; d++)
		for (i = 0; i < K->np; i++)
			if (W.ch[d][i].n) {
				*a = (struct act) { A_DELIVER, (uint8_t)d,
						    (uint8_t)i };
				return 1;
			}
	for (t = 0; t < K->nt; t++)
		if (W.log[t] == LOG_PENDING) {
			*a = (struct act) { A_LOG, (uint8_t)t, 0 };
			return 1;
		}
	for (i = 0; i < K->np; i++)
		for (t = 0; t < K->nt; t++)
			switch (phase_of(i, t)) {
			case TXN_PP_PREPARING:
				*a = (struct act) { A_YES, (uint8_t)i,
						    (uint8_t)t };
				return 1;
			case TXN_PP_DECIDING:
				*a = (struct act) { A_APPLY, (uint8_t)i,
						    (uint8_t)t };
				return 1;
			}
	for (i = 0; i < K->np; i++) {
		if (W.cview[i]) {
			*a = (struct act) { A_CUP, (uint8_t)i, 0 };
			return 1;
		}
		if (W.pview[i]) {
			*a = (struct act) { A_PUP, (uint8_t)i, 0 };
			return 1;
		}
	}
	for (x = 0; x <= K->np; x++)
		if (deadline_of(x) != TXN_NEVER) {
			*a = (struct act) { A_TIMER, (uint8_t)x, 0 };
			return 1;
		}
	return 0;
}

static void count_part(void *arg, const struct txn_part_info *info)
{
	(void)info;
	++*(int *)arg;
}

static void count_coord(void *arg, const struct txn_coord_info *info)
{
	(void)info;
	++*(int *)arg;
}

/* nothing left to do without faults: check the outcome */
static void check_quiescent(void)
{
	int held = 0, i, t, commit;

	txn_coord_walk(&W.c, count_coord, &held);
	for (i = 0; i < K->np; i++)
		txn_part_walk(&W.p[i], count_part, &held);
	if (held)
		violate("quiescent with %d transactions still held", held);
	for (t = 0; t < K->nt; t++) {
		if (W.log[t] == LOG_DURABLE)
			violate("quiescent: t%d's COMMIT never forgotten", t);
		commit = W.log[t] == LOG_TRIMMED;
		for (i = 0; i < K->np; i++)
			if (commit && W.out[i][t] != OUT_COMMIT)
				violate("quiescent: t%d committed, P%d did "
					"not apply it", t, i + 1);
		if (!W.done[t] && !W.done_lost[t])
			violate("quiescent: t%d without DONE", t);
		if (W.done[t] && W.done[t] != (commit ? TXRDMA_TXN_COMMIT :
							TXRDMA_TXN_ABORT))
			violate("quiescent: t%d's DONE says otherwise", t);
	}
}

static struct set good;		/* states whose continuation quiesces */
static int in_progress;		/* the violation came from a continuation */
static struct act fair_trace[PROG_STEPS];
static int fair_len;

/*
 * Run the fault-free continuation from W (changing it), whose hash is
 * @h; the states it passes are good when it quiesces (or meets a good
 * one).  A failure is left in why[].
 */
static void progress(uint64_t h)
{
	static uint64_t path[PROG_STEPS + 1];
	struct enc e;
	struct act a;
	int n = 0, k;

	st.continuations++;
	fair_len = 0;
	path[0] = h;
	in_progress = 1;
	while (!set_has(&good, path[n])) {
		if (!next_fair(&a)) {
			check_quiescent();
			break;
		}
		if (n == PROG_STEPS) {
			violate("no quiescence after %d fault-free steps",
				PROG_STEPS);
			return;
		}
		fair_trace[fair_len++] = a;
		apply(&a);
		st.cont_steps++;
		check_state();
		encode(&e);
		if (why[0])
			return;
		path[++n] = hash(&e);
	}
	if (why[0])
		return;
	in_progress = 0;
	for (k = 0; k <= n; k++)
		if (!set_has(&good, path[k]))
			set_insert(&good, path[k], 0);
}

/* ---- traces ---- */

static const char *const tname[] = {
	[TXRDMA_TXN_PREPARE] = "PREPARE", [TXRDMA_TXN_VOTE] = "VOTE",
	[TXRDMA_TXN_COMMIT] = "COMMIT", [TXRDMA_TXN_ABORT] = "ABORT",
	[TXRDMA_TXN_ACK] = "ACK", [TXRDMA_TXN_INQUIRE] = "INQUIRE",
};

/* @a in the current state W */
static void describe(const struct act *a, char *s, size_t len)
{
	const struct msg *m;

	switch (a->kind) {
	case A_DELIVER:
	case A_LOSE:
		m = &W.ch[a->a][a->b].m[0];
		snprintf(s, len, "%s %s P%d: %s%s t%u (epoch %u)",
			 a->kind == A_LOSE ? "lose" : "deliver",
			 a->a ? "from" : "to", a->b + 1, tname[m->type],
			 m->type == TXRDMA_TXN_VOTE ? (m->flags ? " yes" :
						       " no") : "",
			 m->txn, m->epoch);
		break;
	case A_TIMER:
		snprintf(s, len, "timer fires at %s", a->a ? "P" : "C");
		if (a->a)
			snprintf(s + strlen(s), len - strlen(s), "%d", a->a);
		break;
	case A_STEP:
		snprintf(s, len, "clock steps at node %d", a->a + 1);
		break;
	case A_YES:
	case A_NO:
		snprintf(s, len, "P%d's application votes %s on t%d", a->a + 1,
			 a->kind == A_YES ? "yes" : "no", a->b);
		break;
	case A_APPLY:
		snprintf(s, len, "P%d's application applies t%d's decision",
			 a->a + 1, a->b);
		break;
	case A_LOG:
		snprintf(s, len, "the log makes t%d's COMMIT durable", a->a);
		break;
	case A_CDOWN:
	case A_CUP:
		snprintf(s, len, "coordinator told P%d is %s", a->a + 1,
			 a->kind == A_CDOWN ? "Down" : "Up");
		break;
	case A_PDOWN:
	case A_PUP:
		snprintf(s, len, "P%d told the coordinator is %s", a->a + 1,
			 a->kind == A_PDOWN ? "Down" : "Up");
		break;
	case A_CCRASH:
		snprintf(s, len, "coordinator crashes and restarts (log "
			 "writes in flight that made it: %#x)", a->b);
		break;
	case A_PCRASH:
		snprintf(s, len, "P%d crashes and restarts", a->a + 1);
		break;
	}
}

static int same(const struct act *a, const struct act *b)
{
	return a->kind == b->kind && a->a == b->a && a->b == b->b;
}

/*
 * Replay @tr[@n] from the start, skipping actions that are not enabled
 * (those applied go to @done, @ndone), printing them when @print; then
 * the fault-free continuation when @cont.  Return: 1 when it ends in the
 * violation @want, else 0.
 */
static int replay(const struct act *tr, int n, int cont, int print,
		  const char *want, struct act *done, int *ndone)
{
	struct act en[MAX_ACTS];
	struct enc e;
	char s[200];
	int k, j, ne;

	why[0] = 0;
	*ndone = 0;
	world_init();
	for (k = 0; k < n && !why[0]; k++) {
		ne = enabled(en);
		for (j = 0; j < ne && !same(&en[j], &tr[k]); j++)
			;
		if (j == ne)
			continue;
		if (print) {
			describe(&tr[k], s, sizeof(s));
			tap_diag("  %3d. %s", *ndone + 1, s);
		}
		done[(*ndone)++] = tr[k];
		apply(&tr[k]);
		check_state();
	}
	if (!why[0] && cont) {
		encode(&e);
		progress(hash(&e));
	}
	return why[0] && !strcmp(why, want);
}

/*
 * Print a trace to the violation: first shortened, by dropping each
 * action in turn (and whatever is then no longer enabled) as long as the
 * same violation follows.
 */
static void report(struct act *tr, int n, int cont)
{
	struct act *cand = calloc((size_t)n + 1, sizeof(*cand));
	struct act *done = calloc((size_t)n + 1, sizeof(*done));
	char want[sizeof(why)], s[200];
	struct act fair[PROG_STEPS];
	int k, nf, nd, changed = 1;
	struct enc e;

	snprintf(want, sizeof(want), "%s", why);
	tap_diag("VIOLATION in \"%s\": %s", K->name, want);
	while (changed) {
		changed = 0;
		for (k = n - 1; k >= 0; k--) {
			if (k >= n)
				continue;
			memcpy(cand, tr, (size_t)k * sizeof(*tr));
			memcpy(cand + k, tr + k + 1,
			       (size_t)(n - k - 1) * sizeof(*tr));
			if (replay(cand, n - 1, cont, 0, want, done, &nd)) {
				memcpy(tr, done, (size_t)nd * sizeof(*tr));
				n = nd;
				changed = 1;
			}
		}
	}
	tap_diag("trace, %d actions (shortened)%s:", n,
		 cont ? ", then the fault-free continuation" : "");
	replay(tr, n, 0, 1, want, done, &nd);
	if (cont && !why[0]) {
		struct world end = W;

		encode(&e);
		progress(hash(&e));
		nf = fair_len;
		memcpy(fair, fair_trace, (size_t)nf * sizeof(*fair));
		W = end;
		for (k = 0; k < nf && k < 60; k++) {
			describe(&fair[k], s, sizeof(s));
			tap_diag("  %3d. (continuation) %s", n + k + 1, s);
			apply(&fair[k]);
		}
		if (nf > 60)
			tap_diag("  ... and %d more", nf - 60);
	}
	tap_diag("-> %s", want);
	free(cand);
	free(done);
}

/* ---- the search ---- */

struct frame {
	struct world w;
	struct act via;		/* the action that led here */
	struct act acts[MAX_ACTS];
	int nact, next;
};

struct result {
	uint64_t states, transitions, max_depth;
	int failed;
};

/* the new state W, reached by @via: 0, or 1 on a violation */
static int visit(uint64_t h)
{
	struct world here = W;
	struct act a;

	check_state();
	if (why[0])
		return 1;
	progress(h);
	W = here;
	if (why[0])
		return 1;
	if (!next_fair(&a)) {
		int t;

		for (t = 0; t < K->nt; t++)
			st.quiescent[t][W.log[t] != LOG_TRIMMED]++;
	}
	return 0;
}

static struct result search(void)
{
	struct result res = { 0 };
	struct set seen = { 0 };
	struct frame *stack = NULL, *f;
	size_t depth = 0, cap = 0, k;
	struct act a = { 0 }, *tr;
	struct enc e;
	int cont;

	memset(&st, 0, sizeof(st));
	set_free(&good);
	why[0] = 0;
	in_progress = 0;
	world_init();
	encode(&e);
	set_visit(&seen, hash(&e), budgets());
	res.states = 1;
	if (why[0] || visit(hash(&e)))
		goto fail;
	for (;;) {
		if (depth == cap) {
			cap = cap ? cap * 2 : 1024;
			stack = realloc(stack, cap * sizeof(*stack));
			if (!stack)
				abort();
		}
		f = &stack[depth++];
		f->w = W;
		f->via = a;
		f->nact = enabled(f->acts);
		f->next = 0;
		if (f->nact > MAX_ACTS)
			abort();
		if (depth > res.max_depth)
			res.max_depth = depth;
		/* find the next new successor */
		for (;;) {
			if (!depth)
				goto out;
			f = &stack[depth - 1];
			if (f->next == f->nact) {
				depth--;
				continue;
			}
			a = f->acts[f->next++];
			W = f->w;
			apply(&a);
			res.transitions++;
			if (why[0])
				goto fail;
			encode(&e);
			if (why[0])
				goto fail;
			if (set_visit(&seen, hash(&e), budgets()))
				break;
		}
		res.states++;
		if (visit(hash(&e)))
			goto fail;
	}
fail:
	cont = in_progress;
	tr = calloc(depth + 1, sizeof(*tr));
	for (k = 1; k < depth; k++)
		tr[k - 1] = stack[k].via;
	if (depth)
		tr[depth - 1] = a;
	report(tr, (int)depth, cont);
	free(tr);
	res.failed = 1;
out:
	free(stack);
	set_free(&seen);
	return res;
}

/*
 * What each search covers.  The first is every fault the world has;
 * the others are bounded so that the binary runs in about half a minute
 * under ASan (TXN_MODEL runs any other bound by hand).  Down events are
 * the dearest (a Down, then an Up at any later point, doubles what
 * follows), clock steps dearer still (they are off: with two
 * transactions, timers a node arms between two of its firings fire
 * together).
 */
static const struct conf confs[] = {
	{ .name = "1 participant, 1 transaction", .np = 1, .nt = 1,
	  .losses = 2, .downs = 2, .ccrash = 1, .pcrash = 1, .cap = 3 },
	{ .name = "2 participants, 1 transaction", .np = 2, .nt = 1,
	  .losses = 2, .downs = 1, .ccrash = 1, .pcrash = 1, .timers = 4,
	  .cap = 3 },
	{ .name = "3 participants, 1 transaction, losses and crashes",
	  .np = 3, .nt = 1, .losses = 2, .ccrash = 1, .pcrash = 1,
	  .timers = 2, .cap = 3 },
	{ .name = "3 participants, 1 transaction, Down/Up", .np = 3, .nt = 1,
	  .downs = 1, .timers = 2, .cap = 3 },
	{ .name = "2 participants, 2 transactions, crashes", .np = 2, .nt = 2,
	  .ccrash = 1, .pcrash = 1, .timers = 1, .cap = 4 },
};

static void run(const struct conf *conf)
{
	struct timespec t0, t1;
	struct result r;
	int t;

	K = conf;
	tap_diag("%s: losses <= %u, Down events <= %u, coordinator crashes "
		 "<= %u, participant crashes <= %u, timer firings %s%.0u, %u "
		 "records a channel, vote retries 1%s", conf->name,
		 conf->losses, conf->downs, conf->ccrash, conf->pcrash,
		 conf->timers ? "<= " : "any", conf->timers, conf->cap,
		 conf->steps ? ", clocks step" : "");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	r = search();
	clock_gettime(CLOCK_MONOTONIC, &t1);
	tap_diag("  %" PRIu64 " states, %" PRIu64 " transitions, max depth "
		 "%" PRIu64 ", %.1f s", r.states, r.transitions, r.max_depth,
		 (double)(t1.tv_sec - t0.tv_sec) +
		 (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	for (t = 0; t < conf->nt; t++)
		tap_diag("  t%d at quiescent states: %" PRIu64 " committed, %"
			 PRIu64 " aborted", t, st.quiescent[t][0],
			 st.quiescent[t][1]);
	tap_diag("  continuations %" PRIu64 " (%" PRIu64 " steps), sends "
		 "dropped on a full channel %" PRIu64, st.continuations,
		 st.cont_steps, st.overflows);
	TAP_CHECK(!r.failed);
	TAP_CHECK(r.states > 1);
	for (t = 0; t < conf->nt; t++)
		TAP_CHECK(st.quiescent[t][0] && st.quiescent[t][1]);
	set_free(&good);
}

static void test_one(void)
{
	run(&confs[0]);
}

static void test_two(void)
{
	run(&confs[1]);
}

static void test_three(void)
{
	run(&confs[2]);
}

static void test_three_down(void)
{
	run(&confs[3]);
}

static void test_two_txns(void)
{
	run(&confs[4]);
}

static const struct tap_test tests[] = {
	TAP_TEST(test_one, "model: 1 participant, every fault"),
	TAP_TEST(test_two, "model: 2 participants, every fault"),
	TAP_TEST(test_three, "model: 3 participants, losses and crashes"),
	TAP_TEST(test_three_down, "model: 3 participants, Down/Up"),
	TAP_TEST(test_two_txns, "model: 2 transactions do not interfere"),
};

/*
 * TXN_MODEL="np nt losses downs ccrash pcrash timers cap steps" runs that
 * one configuration instead (deeper searches by hand).
 */
static struct conf custom = { .name = "TXN_MODEL" };

static void test_custom(void)
{
	run(&custom);
}

static const struct tap_test custom_tests[] = {
	TAP_TEST(test_custom, "model: the configuration in TXN_MODEL"),
};

int main(void)
{
	const char *env = getenv("TXN_MODEL");
	unsigned int v[9];

	if (!env)
		return TAP_MAIN(tests);
	if (sscanf(env, "%u %u %u %u %u %u %u %u %u", &v[0], &v[1], &v[2],
		   &v[3], &v[4], &v[5], &v[6], &v[7], &v[8]) != 9 ||
	    !v[0] || v[0] > NP_MAX || !v[1] || v[1] > NT_MAX || !v[7] ||
	    v[7] > CAP) {
		fprintf(stderr, "TXN_MODEL: np nt losses downs ccrash pcrash "
			"timers cap steps\n");
		return 2;
	}
	custom.np = (int)v[0];
	custom.nt = (int)v[1];
	custom.losses = (uint8_t)v[2];
	custom.downs = (uint8_t)v[3];
	custom.ccrash = (uint8_t)v[4];
	custom.pcrash = (uint8_t)v[5];
	custom.timers = (uint8_t)v[6];
	custom.cap = (uint8_t)v[7];
	custom.steps = (int)v[8];
	return TAP_MAIN(custom_tests);
}
