/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Sessions: an endpoint pair that outlives its QP, as pure logic (no
 * rdma/ headers, no timers; the clock is the caller's, u64 ns): KUnit on
 * UML.
 *
 * A pair is a session: both endpoint ids and the epoch the connector
 * chose name it, and each direction numbers its frames.  When the pair's
 * QP is lost (its work requests fail, the other side's end disconnects,
 * the peer goes Down) while the session has grace left, neither side
 * fails its operations.  Each reaps what the old QP still completes
 * (every frame the peer's RC ACKed was placed and completes in our
 * receive CQ; every frame we sent either completed or failed), and then
 * the connector takes a fresh QP from the peer's pool and sends RESUME
 * on the control QP; the acceptor binds its end of that QP and answers
 * RESUMED.  Each message carries a report (struct txrdma_resume_report):
 * the next sequence number its sender expects, where its ring's tail is,
 * what its process released, the next sequence number it will send.
 *
 * From the other side's report a sender learns which of its frames
 * arrived: those completed (delivered: the ACK was lost with the QP) and
 * those to send again, in order, at the units they had before (the
 * placement rule depends only on the frames before, so the receiver's
 * tail is exactly where the first missing frame starts).  Nothing the
 * receiver has is sent twice, and nothing it lacks is skipped:
 * txrdma_resume_plan() refuses a report that is inconsistent with what
 * the sender knows (a tail that is not a frame boundary, a frame claimed
 * that was never sent, an ACKed one claimed missing) with -EPROTO.
 *
 * The state machine (txrdma_sess_event()) decides what to do on each
 * event and returns it as actions: the caller closes the old QP, takes
 * a new one, sends, applies the plan or fails the endpoint.  Whatever
 * order the events come in (the acceptor may see RESUME before it saw
 * the loss; a RESUMED may be lost and the connector try another QP),
 * the two sides end Up with the same generation, or both fail once the
 * grace is over; a RESUME is answered only once its receiver has reaped
 * its old QP, so a report is never taken while frames may still land.
 */
#ifndef _TXRDMA_SESSION_H
#define _TXRDMA_SESSION_H

#include <linux/types.h>

/**
 * struct txrdma_resume_report - one side's state when a session resumes
 * @rx_seq: sequence number of the next frame it expects (every frame
 *	before it was published to its process)
 * @rx_tail: units of its receive ring the sender has used so far (frames
 *	and skipped tails; struct txrdma_credit_rx's @tail)
 * @released: units its process released (@consumed)
 * @tx_seq: sequence number of the next new frame it will send
 * @gen: the RESUME's generation (RESUMED echoes it)
 */
struct txrdma_resume_report {
	u32 rx_seq;
	u32 rx_tail;
	u32 released;
	u32 tx_seq;
	u32 gen;
};

/**
 * struct txrdma_resume_tx - a sender when its old QP has been reaped
 * @acked: every frame before this sequence number completed (RC ACK)
 * @next: sequence number of its next new frame (frames [@acked, @next)
 *	are unsettled: sent or queued, their outcome unknown)
 * @head: units placed so far (struct txrdma_credit_tx)
 * @released: the peer's released units, as last reported in its frames
 *
 * With @starts[i] the head before frame @acked + i was placed (its
 * skipped tail included), for every unsettled frame.
 */
struct txrdma_resume_tx {
	u32 acked;
	u32 next;
	u32 head;
	u32 released;
};

/**
 * struct txrdma_resume_plan - what a sender does after a resume
 * @delivered: unsettled frames that arrived: they complete successfully
 *	(frames @acked .. @acked + @delivered - 1)
 * @resend: frames to send again, in order, from sequence number
 *	@acked + @delivered to @next - 1
 * @head: the credit head to place them from (the receiver's tail)
 */
struct txrdma_resume_plan {
	u32 delivered;
	u32 resend;
	u32 head;
};

int txrdma_resume_plan(const struct txrdma_resume_tx *tx, const u32 *starts,
		       u32 rx_seq, u32 max_inflight,
		       const struct txrdma_resume_report *peer,
		       struct txrdma_resume_plan *plan);

/* what a resume does with a READ or WRITE that was in flight */
enum txrdma_resume_rw {
	TXRDMA_RESUME_RW_RAN,	/* it ran: complete it successfully */
	TXRDMA_RESUME_RW_AGAIN,	/* run it again on the new QP */
	TXRDMA_RESUME_RW_ABORT,	/* fail it: -ECONNABORTED */
};

enum txrdma_resume_rw txrdma_resume_rw(bool write, bool before_arrived,
				       bool idempotent, bool rerun);

/* where a session stands (struct txrdma_sess.state) */
enum txrdma_sess_phase {
	TXRDMA_SESS_UP,		/* on a QP, carrying frames */
	TXRDMA_SESS_DRAINING,	/* its QP lost: reaping what it completes */
	TXRDMA_SESS_WAITING,	/* reaped: for a path, or for RESUME */
	TXRDMA_SESS_RESUMING,	/* connector: RESUME sent, awaiting RESUMED */
	TXRDMA_SESS_FAILED,	/* over: its operations failed */
};

enum txrdma_sess_ev {
	TXRDMA_SESS_EV_LOST,	/* the QP failed, disconnected, peer Down */
	TXRDMA_SESS_EV_DRAINED,	/* the old QP completes nothing more */
	TXRDMA_SESS_EV_PATH,	/* connector: a fresh QP was taken */
	TXRDMA_SESS_EV_RESUME,	/* acceptor: the connector's RESUME (@gen) */
	TXRDMA_SESS_EV_RESUMED,	/* connector: the answer (@gen) */
	TXRDMA_SESS_EV_RETRY,	/* connector: no answer in time */
	TXRDMA_SESS_EV_CLOSE,	/* the other side ended it (CLOSE, REJECT) */
	TXRDMA_SESS_EV_PROTO,	/* the other side's report did not check */
	TXRDMA_SESS_EV_TICK,	/* the clock moved (the grace may be over) */
	/* the other side moved to another host (txrdma_handoff.h) */
	TXRDMA_SESS_EV_HANDOFF,
};

/* what txrdma_sess_event() asks the caller to do, in this order */
#define TXRDMA_SESS_DO_DRAIN	0x01	/* close the QP, reap it */
#define TXRDMA_SESS_DO_SEEK	0x02	/* connector: take a fresh QP */
#define TXRDMA_SESS_DO_RESUME	0x04	/* connector: send RESUME (@gen) */
#define TXRDMA_SESS_DO_HOLD	0x08	/* acceptor: keep RESUME's QP for later */
#define TXRDMA_SESS_DO_ANSWER	0x10	/* acceptor: bind it, send RESUMED */
#define TXRDMA_SESS_DO_APPLY	0x20	/* apply the plan: resend, go on */
#define TXRDMA_SESS_DO_FAIL	0x40	/* fail the endpoint with @error */
#define TXRDMA_SESS_DO_REJECT	0x80	/* refuse this RESUME (stale, wrong) */

/**
 * struct txrdma_sess - one endpoint's session
 * @state: enum txrdma_sess_phase
 * @connector: this side drives the resume: it connected the pair, or it
 *	moved to another host since (txrdma_handoff.h)
 * @held: acceptor: a RESUME waits for our old QP to be reaped
 * @moved: the other side moved to another host since the session was
 *	last Up: its grace started again then, and does not again
 * @gen: connector: generation of the last RESUME sent; acceptor: of the
 *	last one taken (held or answered)
 * @grace_ns: how long the session may be away before it fails
 * @deadline_ns: while not Up, when it fails
 * @error: what it fails with: the first loss's reason, or the close's
 * @resumes: times it came back
 */
struct txrdma_sess {
	u8 state;
	bool connector;
	bool held;
	bool moved;
	u32 gen;
	u64 grace_ns;
	u64 deadline_ns;
	int error;
	u32 resumes;
};

void txrdma_sess_init(struct txrdma_sess *s, bool connector, u64 grace_ns);
unsigned int txrdma_sess_event(struct txrdma_sess *s, enum txrdma_sess_ev ev,
			       u32 gen, int error, u64 now_ns);
const char *txrdma_sess_state_name(u8 state);

#endif /* _TXRDMA_SESSION_H */
