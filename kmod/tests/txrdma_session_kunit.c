// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite txrdma_session: a resumed pair sends again exactly the
 * frames the receiver lacks, at the units they had, and the receiver's
 * own checks (txrdma_credit.c) take them; a report that does not fit
 * what the sender knows is refused; the session state machine brings
 * both sides back Up with one generation whatever order the events come
 * in, and fails both once the grace is over.
 */
#include <kunit/test.h>
#include <linux/prandom.h>

#include "../txrdma_credit.h"
#include "../txrdma_session.h"

#define MS	(1000ULL * 1000)

static void resume_plan_cases(struct kunit *test)
{
	/* frames 10..13 unsettled, placed from head 100: 3 units each */
	const u32 starts[] = { 100, 103, 106, 109 };
	struct txrdma_resume_tx tx = {
		.acked = 10, .next = 14, .head = 112, .released = 90,
	};
	struct txrdma_resume_report peer = {
		.rx_seq = 12, .rx_tail = 106, .released = 95, .tx_seq = 7,
	};
	struct txrdma_resume_plan plan = {};

	KUNIT_ASSERT_EQ(test, txrdma_resume_plan(&tx, starts, 5, 64, &peer,
						 &plan), 0);
	KUNIT_EXPECT_EQ(test, plan.delivered, 2U);
	KUNIT_EXPECT_EQ(test, plan.resend, 2U);
	KUNIT_EXPECT_EQ(test, plan.head, 106U);
	/* it has them all: the head stays */
	peer.rx_seq = 14;
	peer.rx_tail = 112;
	KUNIT_ASSERT_EQ(test, txrdma_resume_plan(&tx, starts, 5, 64, &peer,
						 &plan), 0);
	KUNIT_EXPECT_EQ(test, plan.delivered, 4U);
	KUNIT_EXPECT_EQ(test, plan.resend, 0U);
	KUNIT_EXPECT_EQ(test, plan.head, 112U);
	/* it has none: everything again */
	peer.rx_seq = 10;
	peer.rx_tail = 100;
	KUNIT_ASSERT_EQ(test, txrdma_resume_plan(&tx, starts, 5, 64, &peer,
						 &plan), 0);
	KUNIT_EXPECT_EQ(test, plan.delivered, 0U);
	KUNIT_EXPECT_EQ(test, plan.resend, 4U);
	KUNIT_EXPECT_EQ(test, plan.head, 100U);
	/* an ACKed frame claimed missing; a frame never sent claimed */
	peer.rx_seq = 9;
	KUNIT_EXPECT_EQ(test, txrdma_resume_plan(&tx, starts, 5, 64, &peer,
						 &plan), -EPROTO);
	peer.rx_seq = 15;
	peer.rx_tail = 112;
	KUNIT_EXPECT_EQ(test, txrdma_resume_plan(&tx, starts, 5, 64, &peer,
						 &plan), -EPROTO);
	/* a tail that is not where its first missing frame starts */
	peer.rx_seq = 12;
	peer.rx_tail = 105;
	KUNIT_EXPECT_EQ(test, txrdma_resume_plan(&tx, starts, 5, 64, &peer,
						 &plan), -EPROTO);
	peer.rx_tail = 109;
	KUNIT_EXPECT_EQ(test, txrdma_resume_plan(&tx, starts, 5, 64, &peer,
						 &plan), -EPROTO);
	/* released units that went back, or pass its tail */
	peer.rx_tail = 106;
	peer.released = 89;
	KUNIT_EXPECT_EQ(test, txrdma_resume_plan(&tx, starts, 5, 64, &peer,
						 &plan), -EPROTO);
	peer.released = 107;
	KUNIT_EXPECT_EQ(test, txrdma_resume_plan(&tx, starts, 5, 64, &peer,
						 &plan), -EPROTO);
	peer.released = 106;
	KUNIT_EXPECT_EQ(test, txrdma_resume_plan(&tx, starts, 5, 64, &peer,
						 &plan), 0);
	/* frames announced before ours, or more than a side can hold */
	peer.tx_seq = 4;
	KUNIT_EXPECT_EQ(test, txrdma_resume_plan(&tx, starts, 5, 64, &peer,
						 &plan), -EPROTO);
	peer.tx_seq = 5 + 65;
	KUNIT_EXPECT_EQ(test, txrdma_resume_plan(&tx, starts, 5, 64, &peer,
						 &plan), -EPROTO);
	peer.tx_seq = 5 + 64;
	KUNIT_EXPECT_EQ(test, txrdma_resume_plan(&tx, starts, 5, 64, &peer,
						 &plan), 0);
	/* our own state broken: more unsettled than we can hold */
	KUNIT_EXPECT_EQ(test, txrdma_resume_plan(&tx, starts, 5, 3, &peer,
						 &plan), -EINVAL);
}

/*
 * A one-way stream over a small ring with skips, the QP lost at random
 * moments: the sender's unsettled frames are a suffix, the receiver
 * has a prefix of them (at least those ACKed).  After the plan, the
 * frames sent again land at the units they had, the receiver's checks
 * accept them, and the stream goes on; counters start near 2^32.
 */
struct replay {
	struct txrdma_credit_tx ctx;
	struct txrdma_credit_rx crx;
	u32 next, acked, rx_seq;
	/* per unsettled frame (index seq - acked): head before, unit, size */
	u32 starts[64], unit[64], units[64];
};

static void replay_send(struct kunit *test, struct replay *r,
			struct rnd_state *rnd, u32 n)
{
	u32 i, unit, units;

	for (i = 0; i < n && r->next - r->acked < 64; i++) {
		u32 k = r->next - r->acked, before = r->ctx.head;

		units = 1 + prandom_u32_state(rnd) % (r->ctx.ring_units / 2);
		if (txrdma_credit_place(&r->ctx, units, &unit))
			break;
		r->starts[k] = before;
		r->unit[k] = unit;
		r->units[k] = units;
		r->next++;
	}
}

/* the receiver takes frames in order; its process releases some */
static void replay_receive(struct kunit *test, struct replay *r,
			   struct rnd_state *rnd, u32 n)
{
	u32 i;

	for (i = 0; i < n && r->rx_seq != r->next; i++) {
		u32 k = r->rx_seq - r->acked;

		KUNIT_ASSERT_EQ(test, txrdma_credit_rx_frame(&r->crx, r->unit[k],
							     r->units[k]), 0);
		r->rx_seq++;
	}
	if (prandom_u32_state(rnd) % 2) {
		u32 c = r->crx.consumed + prandom_u32_state(rnd) %
			(r->crx.tail - r->crx.consumed + 1);

		KUNIT_ASSERT_EQ(test, txrdma_credit_rx_release(&r->crx, c), 0);
	}
}

/* ACKs: a prefix of what arrived; credits as a frame back carries them */
static void replay_ack(struct replay *r, struct rnd_state *rnd)
{
	u32 n = prandom_u32_state(rnd) % (r->rx_seq - r->acked + 1);

	memmove(r->starts, r->starts + n, (64 - n) * sizeof(u32));
	memmove(r->unit, r->unit + n, (64 - n) * sizeof(u32));
	memmove(r->units, r->units + n, (64 - n) * sizeof(u32));
	r->acked += n;
	if (prandom_u32_state(rnd) % 2)
		txrdma_credit_tx_update(&r->ctx, r->crx.consumed);
}

static void replay_loss(struct kunit *test, struct replay *r)
{
	struct txrdma_resume_tx tx = {
		.acked = r->acked, .next = r->next,
		.head = r->ctx.head, .released = r->ctx.released,
	};
	struct txrdma_resume_report peer = {
		.rx_seq = r->rx_seq, .rx_tail = r->crx.tail,
		.released = r->crx.consumed, .tx_seq = 0,
	};
	struct txrdma_resume_plan plan;
	u32 i, unit, first;

	KUNIT_ASSERT_EQ(test, txrdma_resume_plan(&tx, r->starts, 0, 64, &peer,
						 &plan), 0);
	KUNIT_ASSERT_EQ(test, plan.delivered, r->rx_seq - r->acked);
	KUNIT_ASSERT_EQ(test, plan.resend, r->next - r->rx_seq);
	/* a wrong tail is refused, whatever the frames' sizes */
	peer.rx_tail++;
	KUNIT_EXPECT_EQ(test, txrdma_resume_plan(&tx, r->starts, 0, 64, &peer,
						 &plan), -EPROTO);
	peer.rx_tail -= 2;
	KUNIT_EXPECT_EQ(test, txrdma_resume_plan(&tx, r->starts, 0, 64, &peer,
						 &plan), -EPROTO);
	peer.rx_tail++;
	KUNIT_ASSERT_EQ(test, txrdma_resume_plan(&tx, r->starts, 0, 64, &peer,
						 &plan), 0);
	/* delivered frames complete; the rest go again, in order */
	first = plan.delivered;
	r->ctx.head = plan.head;
	for (i = first; i < first + plan.resend; i++) {
		KUNIT_ASSERT_EQ(test, r->ctx.head, r->starts[i]);
		KUNIT_ASSERT_EQ(test, txrdma_credit_place(&r->ctx, r->units[i],
							  &unit), 0);
		KUNIT_ASSERT_EQ(test, unit, r->unit[i]);
	}
	KUNIT_ASSERT_EQ(test, r->ctx.head, tx.head);
}

static void resume_replay(struct kunit *test)
{
	struct rnd_state rnd;
	u32 seed, round;

	for (seed = 1; seed <= 40; seed++) {
		struct replay *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
		u32 ring = 8U << (seed % 4), base = U32_MAX - 300 * seed;

		KUNIT_ASSERT_NOT_NULL(test, r);
		prandom_seed_state(&rnd, seed);
		KUNIT_ASSERT_EQ(test, txrdma_credit_tx_init(&r->ctx, ring), 0);
		KUNIT_ASSERT_EQ(test, txrdma_credit_rx_init(&r->crx, ring), 0);
		/* counters near their wrap: units and sequence numbers */
		r->ctx.head = base;
		r->ctx.released = base;
		r->crx.tail = base;
		r->crx.consumed = base;
		r->crx.reported = base;
		r->next = base * 3;
		r->acked = r->next;
		r->rx_seq = r->next;
		for (round = 0; round < 200; round++) {
			replay_send(test, r, &rnd, prandom_u32_state(&rnd) % 6);
			replay_receive(test, r, &rnd,
				       prandom_u32_state(&rnd) % 6);
			if (prandom_u32_state(&rnd) % 8 == 0)
				replay_loss(test, r);
			replay_ack(r, &rnd);
		}
	}
}

/* One side's event and the actions it gives, from a given state. */
struct sess_step {
	u8 state;
	bool connector, held;
	enum txrdma_sess_ev ev;
	u32 gen;
	unsigned int act;
	u8 after;
};

static void sess_table(struct kunit *test)
{
	static const struct sess_step steps[] = {
		/* a loss: reap the QP first, whichever side */
		{ TXRDMA_SESS_UP, true, false, TXRDMA_SESS_EV_LOST, 0,
		  TXRDMA_SESS_DO_DRAIN, TXRDMA_SESS_DRAINING },
		{ TXRDMA_SESS_UP, false, false, TXRDMA_SESS_EV_LOST, 0,
		  TXRDMA_SESS_DO_DRAIN, TXRDMA_SESS_DRAINING },
		/* reaped: the connector seeks a QP, the acceptor waits */
		{ TXRDMA_SESS_DRAINING, true, false, TXRDMA_SESS_EV_DRAINED, 0,
		  TXRDMA_SESS_DO_SEEK, TXRDMA_SESS_WAITING },
		{ TXRDMA_SESS_DRAINING, false, false, TXRDMA_SESS_EV_DRAINED,
		  0, 0, TXRDMA_SESS_WAITING },
		/* ... or answers the RESUME it held */
		{ TXRDMA_SESS_DRAINING, false, true, TXRDMA_SESS_EV_DRAINED, 0,
		  TXRDMA_SESS_DO_ANSWER | TXRDMA_SESS_DO_APPLY,
		  TXRDMA_SESS_UP },
		{ TXRDMA_SESS_WAITING, true, false, TXRDMA_SESS_EV_PATH, 0,
		  TXRDMA_SESS_DO_RESUME, TXRDMA_SESS_RESUMING },
		/* a QP taken when none is wanted: dropped */
		{ TXRDMA_SESS_UP, true, false, TXRDMA_SESS_EV_PATH, 0,
		  0, TXRDMA_SESS_UP },
		/* ... or taken while the other side moved: given back */
		{ TXRDMA_SESS_WAITING, false, false, TXRDMA_SESS_EV_PATH, 0,
		  TXRDMA_SESS_DO_DRAIN, TXRDMA_SESS_DRAINING },
		/* the other side moved: this one waits for its RESUME */
		{ TXRDMA_SESS_WAITING, true, false, TXRDMA_SESS_EV_HANDOFF, 0,
		  0, TXRDMA_SESS_WAITING },
		{ TXRDMA_SESS_DRAINING, true, false, TXRDMA_SESS_EV_HANDOFF,
		  0, 0, TXRDMA_SESS_DRAINING },
		{ TXRDMA_SESS_FAILED, false, false, TXRDMA_SESS_EV_HANDOFF, 0,
		  0, TXRDMA_SESS_FAILED },
		{ TXRDMA_SESS_WAITING, false, false, TXRDMA_SESS_EV_RESUME, 3,
		  TXRDMA_SESS_DO_ANSWER | TXRDMA_SESS_DO_APPLY,
		  TXRDMA_SESS_UP },
		/* RESUME before the acceptor saw the loss: reap, hold */
		{ TXRDMA_SESS_UP, false, false, TXRDMA_SESS_EV_RESUME, 3,
		  TXRDMA_SESS_DO_DRAIN | TXRDMA_SESS_DO_HOLD,
		  TXRDMA_SESS_DRAINING },
		{ TXRDMA_SESS_DRAINING, false, false, TXRDMA_SESS_EV_RESUME, 3,
		  TXRDMA_SESS_DO_HOLD, TXRDMA_SESS_DRAINING },
		/* an old generation, or a RESUME to the connector */
		{ TXRDMA_SESS_WAITING, false, false, TXRDMA_SESS_EV_RESUME, 2,
		  TXRDMA_SESS_DO_REJECT, TXRDMA_SESS_WAITING },
		{ TXRDMA_SESS_UP, true, false, TXRDMA_SESS_EV_RESUME, 9,
		  TXRDMA_SESS_DO_REJECT, TXRDMA_SESS_UP },
		/* the answer to the RESUME sent, and to an older one */
		{ TXRDMA_SESS_RESUMING, true, false, TXRDMA_SESS_EV_RESUMED, 2,
		  TXRDMA_SESS_DO_APPLY, TXRDMA_SESS_UP },
		{ TXRDMA_SESS_RESUMING, true, false, TXRDMA_SESS_EV_RESUMED, 1,
		  0, TXRDMA_SESS_RESUMING },
		/* no answer, or the new QP failed: reap it, try again */
		{ TXRDMA_SESS_RESUMING, true, false, TXRDMA_SESS_EV_RETRY, 2,
		  TXRDMA_SESS_DO_DRAIN, TXRDMA_SESS_DRAINING },
		{ TXRDMA_SESS_RESUMING, true, false, TXRDMA_SESS_EV_RETRY, 1,
		  0, TXRDMA_SESS_RESUMING },
		{ TXRDMA_SESS_RESUMING, true, false, TXRDMA_SESS_EV_LOST, 0,
		  TXRDMA_SESS_DO_DRAIN, TXRDMA_SESS_DRAINING },
		{ TXRDMA_SESS_WAITING, true, false, TXRDMA_SESS_EV_LOST, 0,
		  0, TXRDMA_SESS_WAITING },
		/* the other side's end; a REJECT of this RESUME, of an old */
		{ TXRDMA_SESS_UP, false, false, TXRDMA_SESS_EV_CLOSE, 0,
		  TXRDMA_SESS_DO_FAIL, TXRDMA_SESS_FAILED },
		{ TXRDMA_SESS_RESUMING, true, false, TXRDMA_SESS_EV_CLOSE, 2,
		  TXRDMA_SESS_DO_FAIL, TXRDMA_SESS_FAILED },
		{ TXRDMA_SESS_RESUMING, true, false, TXRDMA_SESS_EV_CLOSE, 1,
		  0, TXRDMA_SESS_RESUMING },
		{ TXRDMA_SESS_WAITING, false, false, TXRDMA_SESS_EV_PROTO, 0,
		  TXRDMA_SESS_DO_FAIL, TXRDMA_SESS_FAILED },
		{ TXRDMA_SESS_FAILED, false, false, TXRDMA_SESS_EV_RESUME, 9,
		  TXRDMA_SESS_DO_REJECT, TXRDMA_SESS_FAILED },
		{ TXRDMA_SESS_FAILED, true, false, TXRDMA_SESS_EV_RESUMED, 2,
		  0, TXRDMA_SESS_FAILED },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(steps); i++) {
		const struct sess_step *t = &steps[i];
		struct txrdma_sess s;
		unsigned int act;

		txrdma_sess_init(&s, t->connector, 1000 * MS);
		s.state = t->state;
		s.held = t->held;
		s.gen = 2;
		s.deadline_ns = 5000 * MS;
		act = txrdma_sess_event(&s, t->ev, t->gen, -ECONNRESET,
					100 * MS);
		KUNIT_EXPECT_EQ_MSG(test, act, t->act, "step %u", i);
		KUNIT_EXPECT_EQ_MSG(test, s.state, t->after, "step %u", i);
	}
}

/* a connector lost its QP 500 ms before the clock wraps; RESUME sent */
static void sess_resuming_at_wrap(struct txrdma_sess *s)
{
	txrdma_sess_init(s, true, 1000 * MS);
	txrdma_sess_event(s, TXRDMA_SESS_EV_LOST, 0, -ECONNRESET,
			  U64_MAX - 500 * MS);
	txrdma_sess_event(s, TXRDMA_SESS_EV_DRAINED, 0, 0, U64_MAX - 400 * MS);
	txrdma_sess_event(s, TXRDMA_SESS_EV_PATH, 0, 0, U64_MAX - 300 * MS);
}

static void sess_grace(struct kunit *test)
{
	struct txrdma_sess s;

	/* no grace: the first loss fails it, as a plain pair */
	txrdma_sess_init(&s, true, 0);
	KUNIT_EXPECT_EQ(test, txrdma_sess_event(&s, TXRDMA_SESS_EV_LOST, 0,
						-ENOTCONN, 0),
			TXRDMA_SESS_DO_FAIL);
	KUNIT_EXPECT_EQ(test, s.error, -ENOTCONN);
	/* the grace runs from the first loss, not from a retry */
	txrdma_sess_init(&s, true, 1000 * MS);
	KUNIT_EXPECT_EQ(test, txrdma_sess_event(&s, TXRDMA_SESS_EV_LOST, 0,
						-ENOTCONN, 10 * MS),
			TXRDMA_SESS_DO_DRAIN);
	txrdma_sess_event(&s, TXRDMA_SESS_EV_DRAINED, 0, 0, 20 * MS);
	txrdma_sess_event(&s, TXRDMA_SESS_EV_PATH, 0, 0, 900 * MS);
	KUNIT_EXPECT_EQ(test, s.state, TXRDMA_SESS_RESUMING);
	KUNIT_EXPECT_EQ(test, txrdma_sess_event(&s, TXRDMA_SESS_EV_LOST, 0,
						-ECONNRESET, 950 * MS),
			TXRDMA_SESS_DO_DRAIN);
	KUNIT_EXPECT_EQ(test, txrdma_sess_event(&s, TXRDMA_SESS_EV_TICK, 0, 0,
						1009 * MS), 0U);
	KUNIT_EXPECT_EQ(test, txrdma_sess_event(&s, TXRDMA_SESS_EV_TICK, 0, 0,
						1010 * MS),
			TXRDMA_SESS_DO_FAIL);
	/* with the first loss's reason */
	KUNIT_EXPECT_EQ(test, s.error, -ENOTCONN);
	/* a RESUMED after the grace comes too late, on either clock wrap */
	sess_resuming_at_wrap(&s);
	KUNIT_EXPECT_EQ(test, txrdma_sess_event(&s, TXRDMA_SESS_EV_RESUMED,
						s.gen, 0, 600 * MS),
			TXRDMA_SESS_DO_FAIL);
	sess_resuming_at_wrap(&s);
	KUNIT_EXPECT_EQ(test, txrdma_sess_event(&s, TXRDMA_SESS_EV_RESUMED,
						s.gen, 0, 400 * MS),
			TXRDMA_SESS_DO_APPLY);
	KUNIT_EXPECT_EQ(test, s.resumes, 1U);
	KUNIT_EXPECT_EQ(test, s.error, 0);
}

/*
 * Two sides and the control messages between them, with delays: a loss
 * each side notices at its own moment (the acceptor maybe only by the
 * RESUME), reaping that takes a while, a path back after an outage,
 * RESUMEs and answers lost (the connector retries on another QP), new
 * QPs that fail.  Whatever happens, the two end Up with one generation
 * or both failed, and a side answers or applies only with its old QP
 * reaped.
 */
#define SIM_EVS		64
#define SIM_QPS		64

struct sim_ev {
	u64 at;
	u8 side;
	u8 ev;		/* enum txrdma_sess_ev */
	u32 gen;
	u32 qp;		/* the QP it concerns (LOST, DRAINED, RESUME) */
};

struct sess_sim {
	struct txrdma_sess s[2];	/* 0 connector, 1 acceptor */
	u32 qp[2];			/* the QP each side is on, 0 none */
	u32 held_qp;			/* the acceptor's held RESUME's */
	bool draining[2];
	bool closed[SIM_QPS];
	u32 next_qp;
	struct sim_ev q[SIM_EVS];
	unsigned int n;
	struct rnd_state rnd;
	u64 path_at;		/* the peer is reachable again */
	u32 loss_pct;		/* control messages lost */
	u32 qp_fail_pct;	/* new QPs that fail */
};

static u32 sim_rand(struct sess_sim *m, u32 n)
{
	return prandom_u32_state(&m->rnd) % n;
}

static void sim_at(struct kunit *test, struct sess_sim *m, u64 at, u8 side,
		   u8 ev, u32 gen, u32 qp)
{
	KUNIT_ASSERT_LT(test, m->n, (unsigned int)SIM_EVS);
	m->q[m->n++] = (struct sim_ev){ at, side, ev, gen, qp };
}

/* a control message: 1-5 ms on the way, or lost */
static void sim_msg(struct kunit *test, struct sess_sim *m, u64 now, u8 to,
		    u8 ev, u32 gen, u32 qp)
{
	if (sim_rand(m, 100) < m->loss_pct)
		return;
	sim_at(test, m, now + (1 + sim_rand(m, 5)) * MS, to, ev, gen, qp);
}

/* @side closes its QP: the other end sees it go, up to 200 ms later */
static void sim_close(struct kunit *test, struct sess_sim *m, u8 side,
		      u64 now)
{
	u32 qp = m->qp[side];

	if (!qp)
		return;
	m->closed[qp] = true;
	if (m->qp[!side] == qp)
		sim_at(test, m, now + sim_rand(m, 200) * MS, !side,
		       TXRDMA_SESS_EV_LOST, 0, qp);
	m->qp[side] = 0;
}

static void sim_do(struct kunit *test, struct sess_sim *m, u8 side,
		   unsigned int act, const struct sim_ev *e, u64 now)
{
	struct txrdma_sess *s = &m->s[side];
	u32 qp;

	if (act & TXRDMA_SESS_DO_DRAIN) {
		m->draining[side] = true;
		sim_at(test, m, now + (1 + sim_rand(m, 20)) * MS, side,
		       TXRDMA_SESS_EV_DRAINED, 0, m->qp[side]);
		sim_close(test, m, side, now);
	}
	if (act & TXRDMA_SESS_DO_SEEK)
		sim_at(test, m, max(now, m->path_at) + sim_rand(m, 10) * MS,
		       side, TXRDMA_SESS_EV_PATH, 0, 0);
	if (act & TXRDMA_SESS_DO_RESUME) {
		KUNIT_EXPECT_FALSE(test, m->draining[side]);
		KUNIT_ASSERT_LT(test, m->next_qp + 1, (u32)SIM_QPS);
		qp = ++m->next_qp;
		m->qp[side] = qp;
		sim_msg(test, m, now, !side, TXRDMA_SESS_EV_RESUME, s->gen, qp);
		sim_at(test, m, now + 50 * MS, side, TXRDMA_SESS_EV_RETRY,
		       s->gen, 0);
		if (sim_rand(m, 100) < m->qp_fail_pct)
			sim_at(test, m, now + sim_rand(m, 30) * MS, side,
			       TXRDMA_SESS_EV_LOST, 0, qp);
	}
	/* a newer RESUME's QP replaces the one held (which is closed) */
	if (act & (TXRDMA_SESS_DO_HOLD | TXRDMA_SESS_DO_ANSWER) &&
	    e->ev == TXRDMA_SESS_EV_RESUME)
		m->held_qp = e->qp;
	if (act & TXRDMA_SESS_DO_ANSWER) {
		/* a report only from a side that reaped its old QP */
		KUNIT_EXPECT_FALSE(test, m->draining[side]);
		m->qp[side] = m->held_qp;
		if (m->closed[m->held_qp])
			sim_at(test, m, now + sim_rand(m, 20) * MS, side,
			       TXRDMA_SESS_EV_LOST, 0, m->held_qp);
		sim_msg(test, m, now, !side, TXRDMA_SESS_EV_RESUMED, s->gen,
			m->qp[side]);
	}
	if (act & TXRDMA_SESS_DO_APPLY) {
		KUNIT_EXPECT_FALSE(test, m->draining[side]);
		/* the connector goes on with the answer for its own QP */
		if (e->ev == TXRDMA_SESS_EV_RESUMED)
			KUNIT_EXPECT_EQ(test, e->qp, m->qp[side]);
	}
	if (act & TXRDMA_SESS_DO_REJECT)
		sim_msg(test, m, now, !side, TXRDMA_SESS_EV_CLOSE, e->gen, 0);
	if (act & TXRDMA_SESS_DO_FAIL) {
		/* the endpoint's end: CLOSE to the other side, QP closed */
		sim_msg(test, m, now, !side, TXRDMA_SESS_EV_CLOSE, 0, 0);
		sim_close(test, m, side, now);
	}
}

/* Run the queue in time order up to @end, a tick every 10 ms. */
static void sim_run(struct kunit *test, struct sess_sim *m, u64 end)
{
	static const struct sim_ev tick = { .ev = TXRDMA_SESS_EV_TICK };
	u64 now = 0;

	while (now < end) {
		unsigned int i, best = m->n;
		struct sim_ev e;
		unsigned int act;
		u8 side;

		for (i = 0; i < m->n; i++)
			if (best == m->n || m->q[i].at < m->q[best].at)
				best = i;
		if (best == m->n || m->q[best].at > now + 10 * MS) {
			now += 10 * MS;
			for (side = 0; side < 2; side++)
				sim_do(test, m, side,
				       txrdma_sess_event(&m->s[side],
							 TXRDMA_SESS_EV_TICK,
							 0, 0, now),
				       &tick, now);
			continue;
		}
		e = m->q[best];
		m->q[best] = m->q[--m->n];
		now = max(now, e.at);
		if (e.ev == TXRDMA_SESS_EV_DRAINED)
			m->draining[e.side] = false;
		/* a LOST of a QP the side is no longer on is no news */
		if (e.ev == TXRDMA_SESS_EV_LOST && e.qp != m->qp[e.side])
			continue;
		act = txrdma_sess_event(&m->s[e.side], e.ev, e.gen,
					-ECONNRESET, now);
		sim_do(test, m, e.side, act, &e, now);
	}
}

static void sess_sim(struct kunit *test)
{
	unsigned int seed, up = 0, failed = 0;

	for (seed = 1; seed <= 400; seed++) {
		struct sess_sim *m = kunit_kzalloc(test, sizeof(*m),
						   GFP_KERNEL);
		u64 outage;

		KUNIT_ASSERT_NOT_NULL(test, m);
		prandom_seed_state(&m->rnd, seed);
		txrdma_sess_init(&m->s[0], true, 1000 * MS);
		txrdma_sess_init(&m->s[1], false, 1000 * MS);
		m->qp[0] = 1;
		m->qp[1] = 1;
		m->next_qp = 1;
		/* seeds 1-100 lose nothing and come back within 600 ms */
		outage = sim_rand(m, seed <= 100 ? 600 : 1500) * MS;
		m->loss_pct = seed <= 100 ? 0 : sim_rand(m, 30);
		m->qp_fail_pct = seed <= 100 ? 0 : sim_rand(m, 30);
		m->path_at = 100 * MS + outage;
		/* either side notices first, the acceptor maybe by RESUME */
		sim_at(test, m, 100 * MS + sim_rand(m, 50) * MS, 0,
		       TXRDMA_SESS_EV_LOST, 0, 1);
		if (sim_rand(m, 3))
			sim_at(test, m, 100 * MS + sim_rand(m, 400) * MS, 1,
			       TXRDMA_SESS_EV_LOST, 0, 1);
		sim_run(test, m, 4000 * MS);
		/* the same end on both sides: one generation, or over */
		KUNIT_EXPECT_EQ_MSG(test, m->s[0].state, m->s[1].state,
				    "seed %u: %s/%s", seed,
				    txrdma_sess_state_name(m->s[0].state),
				    txrdma_sess_state_name(m->s[1].state));
		if (m->s[0].state == TXRDMA_SESS_UP) {
			KUNIT_EXPECT_EQ_MSG(test, m->s[0].gen, m->s[1].gen,
					    "seed %u", seed);
			KUNIT_EXPECT_EQ_MSG(test, m->qp[0], m->qp[1],
					    "seed %u", seed);
			KUNIT_EXPECT_FALSE(test, m->closed[m->qp[0]]);
			KUNIT_EXPECT_GE(test, m->s[0].resumes, 1U);
			up++;
		} else {
			failed++;
		}
		/* nothing lost and back in time: always Up */
		if (seed <= 100)
			KUNIT_EXPECT_EQ_MSG(test, m->s[0].state,
					    (u8)TXRDMA_SESS_UP, "seed %u", seed);
	}
	kunit_info(test, "400 runs: %u resumed, %u failed", up, failed);
	KUNIT_EXPECT_GT(test, failed, 0U);
	KUNIT_EXPECT_GT(test, up, 200U);
}

/*
 * The other side moved (a HANDOFF was accepted): this side becomes the
 * acceptor, whatever it was, drops what the old host started, and
 * waits out a grace that starts again for the new host's RESUME.
 */
static void sess_handoff(struct kunit *test)
{
	struct txrdma_sess s;
	unsigned int act;
	int side;

	for (side = 0; side < 2; side++) {
		/* Up: the old host's QP is closed and reaped first */
		txrdma_sess_init(&s, side, 1000 * MS);
		s.gen = 5;
		act = txrdma_sess_event(&s, TXRDMA_SESS_EV_HANDOFF, 0, 0,
					100 * MS);
		KUNIT_EXPECT_EQ(test, act, TXRDMA_SESS_DO_DRAIN);
		KUNIT_EXPECT_EQ(test, s.state, TXRDMA_SESS_DRAINING);
		KUNIT_EXPECT_FALSE(test, s.connector);
		KUNIT_EXPECT_EQ(test, s.gen, 0U);
		KUNIT_EXPECT_EQ(test, s.deadline_ns, 1100 * MS);
		/* reaped: it waits (it seeks no QP: the mover drives) */
		act = txrdma_sess_event(&s, TXRDMA_SESS_EV_DRAINED, 0, 0,
					150 * MS);
		KUNIT_EXPECT_EQ(test, act, 0U);
		KUNIT_EXPECT_EQ(test, s.state, TXRDMA_SESS_WAITING);
		/* the new host's first RESUME, numbered from 1 */
		act = txrdma_sess_event(&s, TXRDMA_SESS_EV_RESUME, 1,
					-ECONNRESET, 900 * MS);
		KUNIT_EXPECT_EQ(test, act,
				TXRDMA_SESS_DO_ANSWER | TXRDMA_SESS_DO_APPLY);
		KUNIT_EXPECT_EQ(test, s.state, TXRDMA_SESS_UP);
		KUNIT_EXPECT_EQ(test, s.resumes, 1U);
	}

	/* a connector resuming toward the old host gives that QP up */
	txrdma_sess_init(&s, true, 1000 * MS);
	txrdma_sess_event(&s, TXRDMA_SESS_EV_LOST, 0, -ENOTCONN, 0);
	txrdma_sess_event(&s, TXRDMA_SESS_EV_DRAINED, 0, 0, 10 * MS);
	KUNIT_EXPECT_EQ(test, txrdma_sess_event(&s, TXRDMA_SESS_EV_PATH, 0, 0,
						20 * MS),
			TXRDMA_SESS_DO_RESUME);
	KUNIT_EXPECT_EQ(test, txrdma_sess_event(&s, TXRDMA_SESS_EV_HANDOFF, 0,
						0, 900 * MS),
			TXRDMA_SESS_DO_DRAIN);
	KUNIT_EXPECT_EQ(test, s.state, TXRDMA_SESS_DRAINING);
	/* the grace starts again: 1.9 s, not 1 s from the loss */
	KUNIT_EXPECT_EQ(test, s.deadline_ns, 1900 * MS);
	/* the answer to its old RESUME counts no more */
	KUNIT_EXPECT_EQ(test, txrdma_sess_event(&s, TXRDMA_SESS_EV_RESUMED, 1,
						0, 950 * MS), 0U);
	KUNIT_EXPECT_EQ(test, txrdma_sess_event(&s, TXRDMA_SESS_EV_DRAINED, 0,
						0, 1500 * MS), 0U);
	KUNIT_EXPECT_EQ(test, s.state, TXRDMA_SESS_WAITING);

	/* an acceptor holding the old host's RESUME drops it */
	txrdma_sess_init(&s, false, 1000 * MS);
	KUNIT_EXPECT_EQ(test, txrdma_sess_event(&s, TXRDMA_SESS_EV_RESUME, 4,
						-ECONNRESET, 0),
			TXRDMA_SESS_DO_DRAIN | TXRDMA_SESS_DO_HOLD);
	KUNIT_EXPECT_EQ(test, txrdma_sess_event(&s, TXRDMA_SESS_EV_HANDOFF, 0,
						0, 10 * MS), 0U);
	KUNIT_EXPECT_FALSE(test, s.held);
	/* the grace ran from the loss (1000 ms); now from the move */
	KUNIT_EXPECT_EQ(test, s.deadline_ns, 1010 * MS);
	KUNIT_EXPECT_EQ(test, txrdma_sess_event(&s, TXRDMA_SESS_EV_DRAINED, 0,
						0, 20 * MS), 0U);
	KUNIT_EXPECT_EQ(test, s.state, TXRDMA_SESS_WAITING);
	/* not over at 1005 ms (it would be, counted from the loss) */
	KUNIT_EXPECT_EQ(test, txrdma_sess_event(&s, TXRDMA_SESS_EV_TICK, 0, 0,
						1005 * MS), 0U);
	KUNIT_EXPECT_EQ(test, s.state, TXRDMA_SESS_WAITING);
	/* a second move does not start the grace again */
	KUNIT_EXPECT_EQ(test, txrdma_sess_event(&s, TXRDMA_SESS_EV_HANDOFF, 0,
						0, 1006 * MS), 0U);
	KUNIT_EXPECT_EQ(test, s.deadline_ns, 1010 * MS);
	/* no RESUME from the new host within the grace: it fails */
	KUNIT_EXPECT_EQ(test, txrdma_sess_event(&s, TXRDMA_SESS_EV_TICK, 0, 0,
						1010 * MS),
			TXRDMA_SESS_DO_FAIL);
	KUNIT_EXPECT_EQ(test, s.error, -ECONNRESET);

	/* ... and once it is Up again, the next move starts it again */
	txrdma_sess_init(&s, false, 1000 * MS);
	txrdma_sess_event(&s, TXRDMA_SESS_EV_HANDOFF, 0, 0, 0);
	txrdma_sess_event(&s, TXRDMA_SESS_EV_DRAINED, 0, 0, 10 * MS);
	KUNIT_EXPECT_EQ(test, txrdma_sess_event(&s, TXRDMA_SESS_EV_RESUME, 1,
						-ECONNRESET, 20 * MS),
			TXRDMA_SESS_DO_ANSWER | TXRDMA_SESS_DO_APPLY);
	KUNIT_EXPECT_FALSE(test, s.moved);
	KUNIT_EXPECT_EQ(test, txrdma_sess_event(&s, TXRDMA_SESS_EV_HANDOFF, 0,
						0, 5000 * MS),
			TXRDMA_SESS_DO_DRAIN);
	KUNIT_EXPECT_EQ(test, s.deadline_ns, 6000 * MS);

	/* a HANDOFF after the grace is over comes too late */
	txrdma_sess_init(&s, false, 1000 * MS);
	txrdma_sess_event(&s, TXRDMA_SESS_EV_LOST, 0, -ENOTCONN, 0);
	KUNIT_EXPECT_EQ(test, txrdma_sess_event(&s, TXRDMA_SESS_EV_HANDOFF, 0,
						0, 1000 * MS),
			TXRDMA_SESS_DO_FAIL);
	KUNIT_EXPECT_EQ(test, s.error, -ENOTCONN);
	KUNIT_EXPECT_EQ(test, txrdma_sess_event(&s, TXRDMA_SESS_EV_HANDOFF, 0,
						0, 1001 * MS), 0U);
}

/*
 * A READ or WRITE in flight at a loss: every combination.  Only a WRITE
 * before an arrived SEND is known to have run; only an idempotent one
 * not run again yet runs again; everything else fails.
 */
static void resume_rw_verdicts(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < 16; i++) {
		bool write = i & 1, arrived = i & 2, idem = i & 4, rerun = i & 8;
		enum txrdma_resume_rw want;

		if (write && arrived)
			want = TXRDMA_RESUME_RW_RAN;
		else if (idem && !rerun)
			want = TXRDMA_RESUME_RW_AGAIN;
		else
			want = TXRDMA_RESUME_RW_ABORT;
		KUNIT_EXPECT_EQ_MSG(test, txrdma_resume_rw(write, arrived, idem,
							   rerun), want,
				    "write %d arrived %d idempotent %d rerun %d",
				    write, arrived, idem, rerun);
	}
	/* the cases the glue relies on, by name */
	KUNIT_EXPECT_EQ(test, txrdma_resume_rw(false, true, false, false),
			TXRDMA_RESUME_RW_ABORT);	/* a READ's data may be lost */
	KUNIT_EXPECT_EQ(test, txrdma_resume_rw(true, true, true, true),
			TXRDMA_RESUME_RW_RAN);
	KUNIT_EXPECT_EQ(test, txrdma_resume_rw(false, false, true, true),
			TXRDMA_RESUME_RW_ABORT);	/* at most once again */
}

static struct kunit_case txrdma_session_cases[] = {
	KUNIT_CASE(resume_plan_cases),
	KUNIT_CASE(resume_replay),
	KUNIT_CASE(resume_rw_verdicts),
	KUNIT_CASE(sess_table),
	KUNIT_CASE(sess_grace),
	KUNIT_CASE(sess_sim),
	KUNIT_CASE(sess_handoff),
	{}
};

static struct kunit_suite txrdma_session_suite = {
	.name = "txrdma_session",
	.test_cases = txrdma_session_cases,
};

kunit_test_suite(txrdma_session_suite);
