// SPDX-License-Identifier: GPL-2.0-only
/*
 * Sessions: see txrdma_session.h.
 *
 * Why the receiver's tail is where the first missing frame starts: a
 * frame starts at the sender's head, or at unit 0 after the rest of
 * the ring is skipped (txrdma_credit.c), so where it lands depends only
 * on the head before it, that is on the frames before it.  The receiver
 * counts every frame it took, with the tail it skipped, so its tail is
 * the sender's head from just before the first frame it lacks.  Sent
 * again in the same order from that head, the missing frames land where
 * they would have landed, and their credits are covered: the head moved
 * back, the peer's released units never go back.
 *
 * Why frames the old QP ACKed are never claimed missing: an RC
 * responder ACKs a WRITE_WITH_IMM once it has placed it and consumed a
 * receive for it, so its completion is in the receiver's CQ; the
 * receiver reports only after it reaped that CQ to the end
 * (TXRDMA_SESS_DO_DRAIN, then TXRDMA_SESS_EV_DRAINED).  A frame whose
 * work request failed may have arrived all the same (the ACK was lost):
 * the report says so, and it completes without being sent twice.
 */
#include <linux/errno.h>
#include <linux/kernel.h>

#include "txrdma_session.h"

/**
 * txrdma_resume_plan() - what a sender does with the other side's report
 * @tx: the sender, its old QP reaped
 * @starts: for each unsettled frame (@tx->next - @tx->acked of them), the
 *	head before it was placed
 * @rx_seq: the next sequence number this side expects from the peer
 * @max_inflight: the most frames a side can have unsettled (its send
 *	slots): the peer may not announce more than that to come
 * @peer: the other side's report
 * @plan: output, meaningful on success
 *
 * Return: 0; -EINVAL when @tx holds more unsettled frames than
 * @max_inflight (the caller's state is broken); -EPROTO when @peer does
 * not fit what this side knows: it lacks a frame the old QP ACKed or
 * claims one never sent, its tail is not where its first missing frame
 * starts, its released units went back or pass its tail, or it
 * announces frames before ours or more than it can hold.
 */
int txrdma_resume_plan(const struct txrdma_resume_tx *tx, const u32 *starts,
		       u32 rx_seq, u32 max_inflight,
		       const struct txrdma_resume_report *peer,
		       struct txrdma_resume_plan *plan)
{
	u32 unsettled = tx->next - tx->acked;
	/* wraps to a huge number when the peer claims less than acked */
	u32 got = peer->rx_seq - tx->acked;
	u32 tail;

	if (unsettled > max_inflight)
		return -EINVAL;
	if (got > unsettled)
		return -EPROTO;
	tail = got == unsettled ? tx->head : starts[got];
	if (peer->rx_tail != tail)
		return -EPROTO;
	if ((s32)(peer->released - tx->released) < 0 ||
	    peer->released - tx->released > tail - tx->released)
		return -EPROTO;
	if (peer->tx_seq - rx_seq > max_inflight)
		return -EPROTO;
	plan->delivered = got;
	plan->resend = unsettled - got;
	plan->head = tail;
	return 0;
}

/**
 * txrdma_sess_init() - a session that is Up on its first QP
 * @s: the session
 * @connector: this side connected the pair
 * @grace_ns: how long it may be away (0: it fails at its first loss)
 */
void txrdma_sess_init(struct txrdma_sess *s, bool connector, u64 grace_ns)
{
	*s = (struct txrdma_sess) {
		.state		= TXRDMA_SESS_UP,
		.connector	= connector,
		.grace_ns	= grace_ns,
	};
}

static unsigned int txrdma_sess_fail(struct txrdma_sess *s, int error)
{
	if (!s->error)
		s->error = error;
	s->state = TXRDMA_SESS_FAILED;
	s->held = false;
	return TXRDMA_SESS_DO_FAIL;
}

/* The session was Up and is not any more: its grace starts now. */
static unsigned int txrdma_sess_away(struct txrdma_sess *s, int error,
				     u64 now_ns)
{
	s->deadline_ns = now_ns + s->grace_ns;
	s->error = error;
	s->state = TXRDMA_SESS_DRAINING;
	if (!s->grace_ns)
		return txrdma_sess_fail(s, error);
	return TXRDMA_SESS_DO_DRAIN;
}

static unsigned int txrdma_sess_up(struct txrdma_sess *s)
{
	s->state = TXRDMA_SESS_UP;
	s->held = false;
	s->moved = false;
	s->error = 0;
	s->resumes++;
	return TXRDMA_SESS_DO_APPLY;
}

/* The acceptor takes the connector's RESUME of generation @gen. */
static unsigned int txrdma_sess_resume(struct txrdma_sess *s, u32 gen,
				       u64 now_ns)
{
	unsigned int act;

	/* generations only grow: an older one is a replay or a mistake */
	if (s->connector || (s32)(gen - s->gen) <= 0)
		return TXRDMA_SESS_DO_REJECT;
	s->gen = gen;
	switch (s->state) {
	case TXRDMA_SESS_UP:
		/* the connector saw the loss first: ours may still complete */
		act = txrdma_sess_away(s, -ECONNRESET, now_ns);
		if (act & TXRDMA_SESS_DO_FAIL)
			return act | TXRDMA_SESS_DO_REJECT;
		s->held = true;
		return act | TXRDMA_SESS_DO_HOLD;
	case TXRDMA_SESS_DRAINING:
		/* a newer RESUME replaces a held one (its QP is given up) */
		s->held = true;
		return TXRDMA_SESS_DO_HOLD;
	case TXRDMA_SESS_WAITING:
		return TXRDMA_SESS_DO_ANSWER | txrdma_sess_up(s);
	default:
		return TXRDMA_SESS_DO_REJECT;
	}
}

/*
 * The other side moved to another host and B accepted its HANDOFF
 * (txrdma_handoff.h): it drives the resume from there, as the
 * connector, and numbers its RESUMEs afresh (what the old host's
 * RESUMEs said no longer counts: they name an endpoint that is not
 * the session's any more).  A RESUME held from the old host is
 * dropped, and a QP of ours toward it given up.  The grace starts
 * again, once until the session is Up again: the hand-off is news
 * from the session and the new host needs the time to resume, but
 * moves that never resume must not keep the session away for ever.
 */
static unsigned int txrdma_sess_handoff(struct txrdma_sess *s, u64 now_ns)
{
	unsigned int act = 0;

	s->connector = false;
	s->gen = 0;
	s->held = false;
	switch (s->state) {
	case TXRDMA_SESS_UP:
		act = txrdma_sess_away(s, -ECONNRESET, now_ns);
		break;
	case TXRDMA_SESS_RESUMING:
		s->state = TXRDMA_SESS_DRAINING;
		act = TXRDMA_SESS_DO_DRAIN;
		break;
	default:
		break;
	}
	if (s->state != TXRDMA_SESS_FAILED && !s->moved)
		s->deadline_ns = now_ns + s->grace_ns;
	s->moved = true;
	return act;
}

/**
 * txrdma_sess_event() - one event of a session
 * @s: the session
 * @ev: enum txrdma_sess_ev
 * @gen: RESUME, RESUMED, RETRY and CLOSE (a REJECT's): the generation;
 *	CLOSE with @gen 0 is the other side's end of the pair (EP_CLOSE)
 * @error: LOST and CLOSE: why (a negative errno)
 * @now_ns: the caller's clock
 *
 * Once the grace is over, any event fails a session that is not Up
 * (TICK is the event for nothing but the clock).
 *
 * Return: TXRDMA_SESS_DO_* to do, in the order of their values; 0 for
 * an event that changes nothing (stale: the caller drops what came with
 * it, closing a QP taken for nothing).
 */
unsigned int txrdma_sess_event(struct txrdma_sess *s, enum txrdma_sess_ev ev,
			       u32 gen, int error, u64 now_ns)
{
	if (s->state == TXRDMA_SESS_FAILED)
		return ev == TXRDMA_SESS_EV_RESUME ? TXRDMA_SESS_DO_REJECT : 0;
	if (s->state != TXRDMA_SESS_UP &&
	    (s64)(now_ns - s->deadline_ns) >= 0) {
		unsigned int act = txrdma_sess_fail(s, s->error);

		return ev == TXRDMA_SESS_EV_RESUME ?
		       act | TXRDMA_SESS_DO_REJECT : act;
	}
	switch (ev) {
	case TXRDMA_SESS_EV_LOST:
		if (s->state == TXRDMA_SESS_UP)
			return txrdma_sess_away(s, error, now_ns);
		if (s->state == TXRDMA_SESS_RESUMING) {
			/* the new QP failed too: the grace runs on */
			s->state = TXRDMA_SESS_DRAINING;
			return TXRDMA_SESS_DO_DRAIN;
		}
		return 0;
	case TXRDMA_SESS_EV_DRAINED:
		if (s->state != TXRDMA_SESS_DRAINING)
			return 0;
		if (s->held)
			return TXRDMA_SESS_DO_ANSWER | txrdma_sess_up(s);
		s->state = TXRDMA_SESS_WAITING;
		return s->connector ? TXRDMA_SESS_DO_SEEK : 0;
	case TXRDMA_SESS_EV_PATH:
		/*
		 * Taken while the other side moved (it drives the resume
		 * now, txrdma_sess_handoff()): give the QP back
		 */
		if (!s->connector && s->state == TXRDMA_SESS_WAITING) {
			s->state = TXRDMA_SESS_DRAINING;
			return TXRDMA_SESS_DO_DRAIN;
		}
		if (!s->connector || s->state != TXRDMA_SESS_WAITING)
			return 0;
		s->gen++;
		s->state = TXRDMA_SESS_RESUMING;
		return TXRDMA_SESS_DO_RESUME;
	case TXRDMA_SESS_EV_RESUME:
		return txrdma_sess_resume(s, gen, now_ns);
	case TXRDMA_SESS_EV_RESUMED:
		if (!s->connector || s->state != TXRDMA_SESS_RESUMING ||
		    gen != s->gen)
			return 0;
		return txrdma_sess_up(s);
	case TXRDMA_SESS_EV_RETRY:
		/* the timer of the RESUME sent last, not of an older one */
		if (!s->connector || s->state != TXRDMA_SESS_RESUMING ||
		    gen != s->gen)
			return 0;
		/* give that QP up; once it is reaped, take another */
		s->state = TXRDMA_SESS_DRAINING;
		return TXRDMA_SESS_DO_DRAIN;
	case TXRDMA_SESS_EV_CLOSE:
		/* a REJECT counts only for the RESUME it answers */
		if (gen && (s->state != TXRDMA_SESS_RESUMING || gen != s->gen))
			return 0;
		return txrdma_sess_fail(s, error);
	case TXRDMA_SESS_EV_PROTO:
		return txrdma_sess_fail(s, -EPROTO);
	case TXRDMA_SESS_EV_HANDOFF:
		return txrdma_sess_handoff(s, now_ns);
	case TXRDMA_SESS_EV_TICK:
	default:
		return 0;
	}
}

/**
 * txrdma_resume_rw() - a READ or WRITE in flight when the QP was lost
 * @write: a WRITE (else a READ)
 * @before_arrived: a SEND that followed it arrived (the other side's
 *	report counts it)
 * @idempotent: its process said it may run twice
 *	(TXRDMA_SQE_F_IDEMPOTENT)
 * @rerun: it already ran again once, after an earlier loss
 *
 * RC executes in order, so a WRITE before a SEND that arrived has run;
 * a READ's data may still have been lost on its way back.  Anything
 * else may or may not have run: only its process knows whether twice
 * is harmless, and once again is the most (a second loss with it in
 * flight may be its own doing).
 *
 * Return: enum txrdma_resume_rw.
 */
enum txrdma_resume_rw txrdma_resume_rw(bool write, bool before_arrived,
				       bool idempotent, bool rerun)
{
	if (write && before_arrived)
		return TXRDMA_RESUME_RW_RAN;
	if (idempotent && !rerun)
		return TXRDMA_RESUME_RW_AGAIN;
	return TXRDMA_RESUME_RW_ABORT;
}

const char *txrdma_sess_state_name(u8 state)
{
	switch (state) {
	case TXRDMA_SESS_UP:		return "up";
	case TXRDMA_SESS_DRAINING:	return "draining";
	case TXRDMA_SESS_WAITING:	return "waiting";
	case TXRDMA_SESS_RESUMING:	return "resuming";
	case TXRDMA_SESS_FAILED:	return "failed";
	default:			return "?";
	}
}
