// SPDX-License-Identifier: GPL-2.0-only
/*
 * The receiving direction of endpoint pairs: the completion of a frame
 * the peer wrote into our receive ring, its checks and its publication.
 *
 * The completion of the WRITE_WITH_IMM (softirq, through ib_core's
 * IB_POLL_SOFTIRQ polling with its budget and re-arm) reposts the
 * receive, asks txrdma_frame_accept() for its verdict (CRC, endpoints,
 * epoch, sequence, placement, credits) and only then release-stores the
 * ring's tail: within one RDMA WRITE the bytes are not ordered for the
 * receiving CPU, the completion is what proves the frame complete.  A
 * write may carry several frames (the sender coalesced SENDs that were
 * in its SQ together): each gets the same verdict in turn
 * (txrdma_frame_accept_at()), and those that pass are published with
 * one store of the tail and one wake-up.  A
 * frame that fails a check is never published, nor anything after it:
 * the endpoint fails with -EPROTO, the counter of its kind goes up and
 * the pair's QP is closed.  A process that reads ahead
 * (TXRDMA_EP_F_RX_AHEAD, lib/txrdma_rx_ahead.c) checks frames itself
 * before this; here its head may be ahead of the tail, and is taken
 * after each publication (txrdma_rx_take_ahead()).
 *
 * Locking: ep->lock (_bh); the peer's lock after it is dropped, to
 * close the QP.
 */
#include "txrdma.h"
#include "txrdma_inject.h"
#include "txrdma_frame.h"
#include "txrdma_msg.h"
#include "txrdma_peer.h"
#include "txrdma_ringfile.h"
#include "txrdma_tenant.h"
#include "txrdma_trace.h"

/* Caller holds ep->lock and ep->conn is set. */
int txrdma_rx_post_recv(struct txrdma_ep *ep)
{
	struct ib_recv_wr wr = {
		.wr_cqe		= &ep->rx_cqe,
	};

	return ib_post_recv(ep->conn->qp, &wr, NULL);
}

static void txrdma_rx_take_ahead(struct txrdma_ep *ep);

/*
 * Caller holds ep->lock, or has the endpoint to itself: the pair is a
 * session (@on) or not.  A session's sender completes its SENDs only
 * when it hears that our process released their frames, so it must
 * hear of every release that empties the ring, not only of those it
 * could be short of credits for; the ring's flags word tells the
 * process's doorbell rule (txrdma_rx_update_due() in the library).
 */
void txrdma_rx_due_empty(struct txrdma_ep *ep, bool on)
{
	/* the library's doorbell rule and ours, one number */
	BUILD_BUG_ON(TXRDMA_CREDIT_SESSION_UNITS !=
		     TXRDMA_RX_SESSION_DUE_UNITS);
	ep->crx.every_empty = on;
	WRITE_ONCE(*txrdma_rx_word(ep, TXRDMA_RX_OFF_FLAGS),
		   on ? TXRDMA_RX_F_DUE_EMPTY : 0);
}

/* Caller holds ep->lock: the frame @in was accepted; take it in. */
static void txrdma_rx_apply(struct txrdma_ep *ep, enum txrdma_frame_verdict v,
			    const struct txrdma_frame_in *in)
{
	if (v == TXRDMA_FRAME_ACCEPT_PAD)
		/* the sender skipped the ring's end: say so to the process */
		txrdma_frame_pad(ep->rx_base + TXRDMA_RX_HDR_LEN +
				 (size_t)in->pad_at * TXRDMA_FRAME_UNIT,
				 ep->rx_units - in->pad_at);
	if (ep->dstate == TXRDMA_EP_CONNECTING && !ep->peer_ep) {
		ep->peer_ep = in->f.src_ep;
		txrdma_rx_ahead_words(ep);
	}
	/* checked by the verdict: neither can fail */
	txrdma_credit_rx_frame(&ep->crx, in->unit, in->units);
	txrdma_credit_tx_update(&ep->ctx, in->released);
	ep->rx_seq++;
	ep->stats.rx_msgs++;
	ep->stats.rx_bytes += in->f.len;
}

/*
 * Caller holds ep->lock: the frames taken in (and a PAD before the
 * first) are checked: publish them, with one store of the tail.
 */
static void txrdma_rx_publish(struct txrdma_ep *ep)
{
	/* pairs with the process's acquire of the tail: the frames first */
	smp_store_release(txrdma_rx_word(ep, TXRDMA_RX_OFF_TAIL), ep->crx.tail);
	if (ep->rx_ahead_max) {
		/*
		 * The frame due at the new tail, for a process that reads
		 * ahead: after the tail, so that a process that reads this
		 * word and then the tail finds the tail moved if the word
		 * is newer (an older word only makes it wait for us)
		 */
		smp_store_release(txrdma_rx_word(ep, TXRDMA_RX_OFF_AHEAD_KSEQ),
				  ep->rx_seq);
	}
	if (ep->ring && wq_has_sleeper(&ep->ring->wait))
		wake_up_interruptible_poll(&ep->ring->wait,
					   EPOLLIN | EPOLLRDNORM);
	if (ep->rx_ahead_max)
		txrdma_rx_take_ahead(ep);
}

/*
 * Caller holds ep->lock, a frame was just published: a process that
 * reads ahead may have released it already, and rung no doorbell the
 * poller would answer (the release was not counted then).  Take it now,
 * and wake the poller when the update rule says the sender hears of it.
 */
static void txrdma_rx_take_ahead(struct txrdma_ep *ep)
{
	u32 head;

	/*
	 * The tail stored, then the head read; the process stores its
	 * head, then (txrdma_rx_update_due(), a full fence) reads the tail:
	 * one of the two sees the other's store, so a release that races
	 * the publication is taken here or rings the doorbell there.
	 */
	smp_mb();
	head = READ_ONCE(*txrdma_rx_word(ep, TXRDMA_RX_OFF_HEAD));

	if (head == ep->crx.consumed ||
	    txrdma_credit_rx_release(&ep->crx, head))
		return;		/* nothing new; garbage is counted by tx */
	if (ep->ring && txrdma_credit_rx_should_update(&ep->crx))
		txrdma_poller_kick(ep->ring);
}

/*
 * Frames a session may refuse within a grace (at least a second) before
 * its pair fails: faults of a link come one at a time, while a peer or
 * a process spoiling frame after frame would else cost a QP for each
 */
#define TXRDMA_RX_REFUSALS_MAX	8

/*
 * Caller holds ep->lock: the endpoint frames on our QP come from.  The
 * other side moved to another host (txrdma_pair_handoff.c) while the
 * QP to its old host still held us: what that QP completes still
 * names the old endpoint.
 */
static u32 txrdma_rx_peer_ep(const struct txrdma_ep *ep)
{
	lockdep_assert_held(&ep->lock);
	if (unlikely(ep->ho_prev_conn) && ep->held_by == ep->ho_prev_conn)
		return ep->ho_prev_ep;
	return ep->peer_ep;
}

/* Completion of a receive: a frame or a credit update arrived. */
void txrdma_rx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct txrdma_ep *ep = container_of(wc->wr_cqe, struct txrdma_ep,
					    rx_cqe);
	enum txrdma_frame_verdict v;
	struct txrdma_frame_rx rx;
	struct txrdma_frame_in in = {};
	u32 frames;
	u64 now;

	if (wc->status != IB_WC_SUCCESS)
		return;		/* flushed: the QP's end is reported elsewhere */
	spin_lock_bh(&ep->lock);
	/*
	 * A connector may see the acceptor's first frames before its
	 * EP_ACCEPT (another QP): they are checked and published all the
	 * same, and the ACCEPT must then name the same endpoint.  Frames
	 * that completed before a detach are published too (the sender
	 * saw them succeed); none after our own close or a bad frame.
	 */
	if (!ep->held_by || ep->rx_stop || ep->rx_refused)
		goto out;
	if (ep->conn && txrdma_rx_post_recv(ep))
		ep->stats.err_qp++;
	rx = (struct txrdma_frame_rx) {
		.units		= ep->rx_base + TXRDMA_RX_HDR_LEN,
		.ep		= ep->id,
		.peer_ep	= txrdma_rx_peer_ep(ep),
		.epoch		= ep->epoch,
		.seq		= ep->rx_seq,
		.max_len	= ep->rx_max_msg,
		.ahead_max	= ep->rx_ahead_max,
		.learn_peer	= ep->dstate == TXRDMA_EP_CONNECTING &&
				  !ep->peer_ep,
		.crx		= &ep->crx,
		.ctx		= &ep->ctx,
	};
	v = txrdma_frame_accept(&rx, wc->wc_flags & IB_WC_WITH_IMM,
				be32_to_cpu(wc->ex.imm_data), wc->byte_len,
				&in);
	if (v == TXRDMA_FRAME_CREDIT) {
		txrdma_credit_tx_update(&ep->ctx, in.released);
		txrdma_tx_settle_locked(ep);
		goto kick;
	}
	if (v == TXRDMA_FRAME_ACCEPT || v == TXRDMA_FRAME_ACCEPT_PAD) {
		/*
		 * Lost on the way (fault injection; a write of one frame).
		 * A session's is refused, as a frame that arrived corrupt
		 * (below).  Any other pair's has its units passed over but
		 * its sequence number still due, so the next frame lies
		 * where it should and is refused for the gap (ERR_SEQ);
		 * this one is neither counted nor published.
		 */
		if (!in.rest && txrdma_fault(TXRDMA_FAULT_DROP, in.f.len)) {
			if (ep->session) {
				frames = 0;
				goto refused;
			}
			txrdma_credit_rx_frame(&ep->crx, in.unit, in.units);
			goto out;
		}
		if (txrdma_fault(TXRDMA_FAULT_CORRUPT, in.f.len))
			v = TXRDMA_FRAME_ERR_CRC;
	}
	/* a write may carry several frames: each is judged in its turn */
	frames = 0;
	trace_txrdma_frame_rx(ep->tenant->id, ep->id, in.f.seq, in.f.len, v);
	while (v == TXRDMA_FRAME_ACCEPT || v == TXRDMA_FRAME_ACCEPT_PAD) {
		txrdma_rx_apply(ep, v, &in);
		frames++;
		if (!in.rest)
			break;
		rx.peer_ep = txrdma_rx_peer_ep(ep);
		rx.learn_peer = false;
		rx.seq = ep->rx_seq;
		rx.index = frames;
		v = txrdma_frame_accept_at(&rx, in.unit + in.units, in.rest,
					   &in);
		trace_txrdma_frame_rx(ep->tenant->id, ep->id, in.f.seq,
				      in.f.len, v);
	}
	/* what checked out is delivered, even before a bad frame */
	if (frames) {
		trace_txrdma_rx_publish(ep->tenant->id, ep->id, frames,
					ep->rx_seq);
		txrdma_rx_publish(ep);
		if (frames > 1)
			ep->stats.rx_batches++;
		txrdma_tx_settle_locked(ep);
	}
	switch (v) {
	case TXRDMA_FRAME_ACCEPT:
	case TXRDMA_FRAME_ACCEPT_PAD:
		break;
	case TXRDMA_FRAME_ERR_CRC:
		ep->stats.err_crc++;
		goto refused;
	case TXRDMA_FRAME_ERR_SEQ:
		ep->stats.err_seq++;
		goto refused;
	default:
		ep->stats.err_proto++;
		goto fail;
	}
kick:
	/* credits came back: a SEND held back for them may go */
	if (ep->blocked) {
		ep->blocked = false;
		if (ep->ring)
			txrdma_poller_kick(ep->ring);
	}
	goto out;
refused:
	/*
	 * A frame that did not arrive as it was sent (lost, corrupt, or
	 * after a gap).  On a session nothing of it or after it is taken,
	 * and the QP is replaced: our report then says where the first
	 * missing frame starts (our rx_seq and tail are still there), and
	 * the other side, which completes a SEND only once our process
	 * released it, sends that frame and those after it again
	 * (txrdma_pair_resume.c).  Nothing more of this QP is looked at
	 * (a frame after the refused one would not fit where our tail
	 * stands).  The same frame refused twice is no accident (a
	 * payload changed under its SEND, a process writing over its own
	 * ring): the pair fails then, not a QP after another.  So does
	 * one refusing frame after frame (each costs a QP and a connect
	 * of the peer's pool): TXRDMA_RX_REFUSALS_MAX within a grace.
	 */
	if (ep->rx_refusals && ep->rx_refused_at == ep->rx_seq)
		goto fail;
	now = local_clock();
	if (ep->rx_refusals &&
	    now - ep->rx_refused_ns > (u64)max_t(u32, ep->grace_ms,
						 MSEC_PER_SEC) * NSEC_PER_MSEC)
		ep->rx_refusals = 0;
	if (ep->rx_refusals >= TXRDMA_RX_REFUSALS_MAX)
		goto fail;
	if (txrdma_resume_lost_locked(ep, -ECONNRESET)) {
		ep->rx_refused = true;
		ep->rx_refused_at = ep->rx_seq;
		if (!ep->rx_refusals++)
			ep->rx_refused_ns = now;
		spin_unlock_bh(&ep->lock);
		txrdma_pair_close_qp(ep, -ECONNRESET);
		return;
	}
fail:
	/* never delivered, nor anything after it */
	ep->rx_stop = true;
	txrdma_pair_fail_locked(ep, -EPROTO);
	spin_unlock_bh(&ep->lock);
	/* and the QP closes, so the sender cannot wait on us forever */
	txrdma_pair_close_qp(ep, -EPROTO);
	return;
out:
	spin_unlock_bh(&ep->lock);
}

/* Has an endpoint of @ring a message its process has not released? */
bool txrdma_rx_ring_readable(struct txrdma_ring *ring)
{
	struct txrdma_ep *ep;
	unsigned long id;
	bool ready = false;
	u32 head, tail;

	mutex_lock(&ring->lock);
	xa_for_each(&ring->eps, id, ep) {
		/*
		 * A tail that moves is a frame published: see it whole.
		 * A head ahead of it (a process that read ahead) is
		 * nothing to read.
		 */
		tail = smp_load_acquire(txrdma_rx_word(ep, TXRDMA_RX_OFF_TAIL));
		head = READ_ONCE(*txrdma_rx_word(ep, TXRDMA_RX_OFF_HEAD));
		if ((s32)(tail - head) > 0 ||
		    READ_ONCE(*txrdma_rx_word(ep, TXRDMA_RX_OFF_ERROR)))
			ready = true;
	}
	mutex_unlock(&ring->lock);
	return ready;
}
