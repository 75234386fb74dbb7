// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sending direction of endpoint pairs: what the poller does with
 * an SQE of a pair, and what comes back from the QP for it.
 *
 * SEND.  The poller (txrdma_poller.c, through txrdma_ringfile.c) turns
 * an SQE into one WRITE_WITH_IMM with two SGEs: a 32-byte frame header
 * built in a DMA-mapped slot of the endpoint, then the payload straight
 * from the tenant's registered region, no copy.  It lands at the unit
 * the credit rules (txrdma_credit.c) give; the immediate data names
 * that unit.  The CQE is written when the send completes.
 *
 * READ and WRITE go to a range the other side exported to this pair
 * (txrdma_export.c keeps what it exported to us), with the key it sent.
 *
 * Admission.  A SEND without credits, or any operation without a free
 * send slot, stays at the head of its SQ and the ring is skipped until
 * an update or a completion kicks the poller; a tenant's token buckets
 * (txrdma_tbucket.c) hold it back the same way, until they refill.
 *
 * Chains and completions.  An executed SQE's work request is queued on
 * its endpoint, unsignaled; at the end of the ring's pass (or when
 * TXRDMA_TX_CHAIN_MAX are queued) the chain goes to the QP in one
 * ib_post_send() with only its last WR signaled.  RC completes in
 * order, so that one completion completes every WR posted before it,
 * in order (ep->tx_order); a WR that fails completes with its own CQE
 * whatever its signaling, and so do those flushed after it, so every
 * SQE still completes exactly once.  The CQ sees one completion per
 * chain instead of one per message.
 *
 * Coalescing.  A SEND whose frame the credits place right after the
 * frame of the SEND queued just before it leaves in that SEND's write
 * (txrdma_tx_coalesce()): one WRITE_WITH_IMM carries both, contiguous
 * in the peer's ring, and the peer takes one receive completion for
 * them.  SENDs in the SQ together thus leave as few writes; a SEND
 * alone leaves at once, as before.  The slots that ride along keep
 * their order in ep->tx_order; the write completes with its last
 * frame's slot, and when it fails every frame in it fails.
 *
 * Credits out.  Every frame returns the units our process released; an
 * idle receiver sends an explicit update (zero-length WRITE_WITH_IMM
 * with TXRDMA_IMM_CREDIT) when txrdma_credit_rx_due() says so.
 *
 * Locking: ep->lock (_bh) over the slots and the credit state, the
 * tenant's lock inside it for the buckets; the poller holds ring->lock
 * (mutex) while it processes the ring.
 */
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include "txrdma.h"
#include "txrdma_inject.h"
#include "txrdma_frame.h"
#include "txrdma_msg.h"
#include "txrdma_peer.h"
#include "txrdma_region.h"
#include "txrdma_ringfile.h"
#include "txrdma_tbucket.h"
#include "txrdma_tenant.h"
#include "txrdma_trace.h"

/* WRs queued on one endpoint before they are posted without waiting */
#define TXRDMA_TX_CHAIN_MAX	8

/* Caller holds ep->lock and ep->nfree > 0: a send slot, marked busy. */
static struct txrdma_tx_slot *txrdma_slot_get(struct txrdma_ep *ep)
{
	struct txrdma_tx_slot *s = &ep->slots[ep->free[--ep->nfree]];

	s->busy = true;
	return s;
}

/* Caller holds ep->lock: the slot is free again. */
static void txrdma_slot_put(struct txrdma_ep *ep, struct txrdma_tx_slot *s)
{
	s->busy = false;
	s->region = NULL;
	ep->free[ep->nfree++] = s - ep->slots;
}

/* Caller holds ep->lock: complete a slot in flight and free it. */
static void txrdma_tx_slot_done(struct txrdma_ep *ep,
				struct txrdma_tx_slot *s, int res)
{
	struct txrdma_ring *ring = ep->ring;

	if (s->kind == TXRDMA_OP_SEND)
		trace_txrdma_send_done(ep->tenant->id, ep->id, s->fseq, s->len,
				       min(res, 0));
	if (s->kind != TXRDMA_SLOT_CREDIT) {
		if (ring)
			txrdma_ring_complete(ring, s->user_data, res, ep->id,
					     s->kind, s->no_cqe && res >= 0);
		txrdma_region_put_async(s->region);
	}
	txrdma_slot_put(ep, s);
}

/* The free-running unit SEND slot @s's frame starts at: after any skip. */
static u32 txrdma_tx_frame_first(const struct txrdma_ep *ep,
				 const struct txrdma_tx_slot *s)
{
	return s->start + ((s->unit - s->start) & (ep->peer_units - 1));
}

/* The free-running unit after SEND slot @s's frame. */
static u32 txrdma_tx_frame_end(const struct txrdma_ep *ep,
			       const struct txrdma_tx_slot *s)
{
	return txrdma_tx_frame_first(ep, s) + s->units;
}

/*
 * Caller holds ep->lock: slot @s completed successfully.  A session's
 * SEND is delivered, not yet done: the other side's kernel may still
 * refuse its frame (lost, corrupt), and then a resume sends it again
 * from the tenant's region, which must hold it until then.  It
 * completes once the other side reports that its process released the
 * frame (txrdma_tx_settle_locked()), or when a resume's report says it
 * arrived.
 */
static void txrdma_tx_slot_ok(struct txrdma_ep *ep, struct txrdma_tx_slot *s)
{
	if (s->kind == TXRDMA_OP_SEND && ep->session) {
		ep->acks[ep->acks_tail++ & (TXRDMA_EP_SLOTS - 1)] =
			s - ep->slots;
		txrdma_tx_settle_locked(ep);
		return;
	}
	if (s->kind == TXRDMA_OP_SEND) {
		ep->stats.tx_msgs++;
		ep->stats.tx_bytes += s->len;
	} else if (s->kind != TXRDMA_SLOT_CREDIT) {
		ep->stats.rw_ops++;
		ep->stats.rw_bytes += s->len;
	}
	txrdma_tx_slot_done(ep, s, s->len);
}

/*
 * Caller holds ep->lock: did the other side's process release the frame
 * of SEND @s?  As its last report on the QP says, or its EP_CLOSE if
 * that told more.
 */
static bool txrdma_tx_frame_released(const struct txrdma_ep *ep,
				     const struct txrdma_tx_slot *s)
{
	u32 released = ep->ctx.released;

	if (ep->close_seen && (s32)(ep->close_released - released) > 0)
		released = ep->close_released;
	return (s32)(released - txrdma_tx_frame_end(ep, s)) >= 0;
}

/*
 * Caller holds ep->lock, the pair failed: slot @s ends with @error,
 * unless it is a session's SEND whose frame the other side's process
 * released (its last report, or its EP_CLOSE's, covers the frame): that
 * one arrived and was taken, whatever became of its completion.  Not
 * on a session whose other side has not reported since it moved or was
 * imported (an import refused: its SENDs stay the state's, for an
 * import that works, and fail here, each with the import's error).
 */
static void txrdma_tx_slot_end(struct txrdma_ep *ep, struct txrdma_tx_slot *s,
			       int error)
{
	if (s->kind == TXRDMA_OP_SEND && ep->session && !ep->sess_rnew &&
	    txrdma_tx_frame_released(ep, s)) {
		ep->stats.tx_msgs++;
		ep->stats.tx_bytes += s->len;
		error = s->len;
	}
	txrdma_tx_slot_done(ep, s, error);
}

/**
 * txrdma_tx_settle_locked() - complete a session's SENDs that were released
 * @ep: caller holds ep->lock; the other side's released units
 *	(ep->ctx.released, or its EP_CLOSE's) just grew, or a SEND was
 *	delivered
 *
 * In order: the oldest delivered SEND whose frame the other side's
 * process released (its end at or below the report) completes, then the
 * next.  The report never passes what arrived and was taken (the other
 * side's kernel checks its process's count against its tail), so no
 * frame its kernel refused ever completes here.
 */
void txrdma_tx_settle_locked(struct txrdma_ep *ep)
{
	struct txrdma_tx_slot *s;

	lockdep_assert_held(&ep->lock);
	while (ep->acks_head != ep->acks_tail) {
		s = &ep->slots[ep->acks[ep->acks_head &
					(TXRDMA_EP_SLOTS - 1)]];
		if (!txrdma_tx_frame_released(ep, s))
			break;
		ep->acks_head++;
		ep->stats.tx_msgs++;
		ep->stats.tx_bytes += s->len;
		txrdma_tx_slot_done(ep, s, s->len);
	}
}

/*
 * A completion of the pair's QP: the signaled last WR of a chain, or a
 * WR that failed (or was flushed after one that did).  Every WR posted
 * before it completed, successfully: RC executes and completes in
 * order, and a failure stops the queue and ends the pair.
 */
void txrdma_tx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct txrdma_tx_slot *s = container_of(wc->wr_cqe,
						 struct txrdma_tx_slot, cqe);
	bool failed = wc->status != IB_WC_SUCCESS;
	struct txrdma_ep *ep = s->ep;
	bool keep;

	spin_lock_bh(&ep->lock);
	/* a detach already completed every slot of the dead QP */
	if (!s->busy || !s->posted || !ep->conn ||
	    s->seq - ep->tx_done >= ep->tx_posted - ep->tx_done) {
		spin_unlock_bh(&ep->lock);
		return;
	}
	/*
	 * A session keeps what failed, unsettled: its frames may have
	 * arrived (the ACK lost), and the other side's report says which
	 * (txrdma_pair_resume.c)
	 */
	keep = failed && txrdma_resume_keeps_locked(ep);
	while (ep->tx_done != s->seq) {
		struct txrdma_tx_slot *o =
			&ep->slots[ep->tx_order[ep->tx_done &
						(TXRDMA_EP_SLOTS - 1)]];

		if (o->busy && o->posted) {
			/* the frames that shared the failed write failed */
			if (failed && (s32)(o->seq - s->wr_seq) >= 0) {
				if (keep)
					break;
				txrdma_tx_slot_done(ep, o, -ECONNRESET);
			} else {
				txrdma_tx_slot_ok(ep, o);
			}
		}
		ep->tx_done++;
	}
	trace_txrdma_tx_done(ep->tenant->id, ep->id, s->wr_seq,
			     failed ? -ECONNRESET : 0);
	if (!keep) {
		ep->tx_done++;
		if (failed)
			txrdma_tx_slot_done(ep, s, -ECONNRESET);
		else
			txrdma_tx_slot_ok(ep, s);
	}
	/*
	 * On RC a failed completion leaves the QP in the error state: the
	 * pair is over.  Fail it now, so that an SQE waiting for credits
	 * or a slot, and every later one, completes with the error rather
	 * than waiting for a QP that will never move again (seen on the
	 * debug kernel: 128 SQEs of a reset stream never completed).
	 * The first failure says why; those flushed after it do not.
	 */
	if (failed) {
		ep->stats.err_qp++;
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			pr_info_ratelimited("endpoint %u: send completion %s (vendor 0x%x): the pair is reset\n",
					    ep->id, ib_wc_status_msg(wc->status),
					    wc->vendor_err);
		txrdma_pair_lost_locked(ep, -ECONNRESET);
	}
	if (ep->blocked) {
		ep->blocked = false;
		if (ep->ring)
			txrdma_poller_kick(ep->ring);
	}
	spin_unlock_bh(&ep->lock);
	/*
	 * Our QP is in the error state, but the other side's is not: it
	 * would wait for our frames or credits until its own sends time
	 * out, or forever if it sends none (seen on the debug kernel: a
	 * receiver stalled with half its SQEs pending).  Close the QP, so
	 * that it sees the disconnect now.  The connection holds @ep until
	 * its CQ is freed, so @ep outlives this callback.
	 */
	if (failed)
		txrdma_pair_close_qp(ep, -ECONNRESET);
}

/* Caller holds ep->lock: the chain is posted or dropped; start anew. */
static void txrdma_tx_chain_reset(struct txrdma_ep *ep)
{
	ep->chain_first = NULL;
	ep->chain_last = NULL;
	ep->chain_rider = NULL;
	ep->nchain = 0;
	ep->chain_nsge = 0;
}

/*
 * Caller holds ep->lock: post the queued chain in one call, its last WR
 * signaled.  Return: false when the QP refused any of it: the pair
 * has failed then (every slot, posted or refused, completed once with
 * -ECONNRESET; WRs the QP took may still arrive), and the caller closes
 * the QP once it dropped ep->lock (txrdma_pair_close_qp()), since
 * nothing else would: unsignaled WRs the QP took would never complete,
 * and the frames after a refused one would reach the peer with a gap.
 */
static bool txrdma_tx_flush_locked(struct txrdma_ep *ep)
{
	struct txrdma_tx_slot *s, *first = ep->chain_first;
	const struct ib_send_wr *wr;
	u32 wr_seq;

	lockdep_assert_held(&ep->lock);
	if (!first)
		return true;
	ep->chain_last->wr.wr.send_flags |= IB_SEND_SIGNALED;
	/* in the order the frames leave: each write's, then its riders' */
	for (wr = &first->wr.wr; wr; wr = wr->next) {
		wr_seq = ep->tx_posted;
		for (s = container_of(wr, struct txrdma_tx_slot, wr.wr); s;
		     s = s->rider) {
			s->posted = true;
			s->seq = ep->tx_posted;
			s->wr_seq = wr_seq;
			ep->tx_order[ep->tx_posted++ & (TXRDMA_EP_SLOTS - 1)] =
				s - ep->slots;
		}
	}
	txrdma_tx_chain_reset(ep);
	/* the SGEs are copied into the send queue: chain_sge is free again */
	if (ep->conn && !txrdma_fault(TXRDMA_FAULT_QP, 1) &&
	    !ib_post_send(ep->conn->qp, &first->wr.wr, NULL))
		return true;
	ep->stats.err_qp++;
	txrdma_pair_lost_locked(ep, -ECONNRESET);
	return false;
}

/* Caller holds ep->lock: @s goes on the chain, its WR built. */
static void txrdma_tx_chain_add(struct txrdma_ep *ep, struct txrdma_tx_slot *s)
{
	s->posted = false;
	s->rider = NULL;
	s->wr.wr.next = NULL;
	s->wr.wr.wr_cqe = &s->cqe;
	if (ep->chain_last)
		ep->chain_last->wr.wr.next = &s->wr.wr;
	else
		ep->chain_first = s;
	ep->chain_last = s;
	ep->chain_rider = s;
	ep->nchain++;
}

/*
 * Caller holds ep->lock: queue slot @s (its WR built, a CQ slot of
 * @ring reserved unless it is a credit update) on the endpoint's chain;
 * with no @ring, or a full chain, post it now.  Return: as
 * txrdma_tx_flush_locked().
 */
static bool txrdma_tx_queue(struct txrdma_ep *ep, struct txrdma_ring *ring,
			    struct txrdma_tx_slot *s)
{
	txrdma_tx_chain_add(ep, s);
	if (ep->nchain >= TXRDMA_TX_CHAIN_MAX || !ring)
		return txrdma_tx_flush_locked(ep);
	ring->chained = true;	/* txrdma_tx_ring_flush() */
	return true;
}

/*
 * Caller holds ep->lock: let SEND slot @s (its SGEs built in s->sge,
 * its frame placed at @unit) leave in the write of the chain's last
 * WR, when that is a SEND whose last frame ends where this one starts:
 * one WRITE_WITH_IMM then carries both frames, contiguous in the peer's
 * ring, the gap between them filled with zeroes from the slot buffers
 * (never other memory).  The receiver checks each frame as if it had
 * come alone (txrdma_frame_accept_at()).  Not across the ring's end (the
 * placement skipped it: @unit is not where the write ends), not past
 * the SGEs the QP takes, not for a fenced SQE (the fence is the
 * write's).  Return: true when @s joined (it has no WR of its own).
 */
static bool txrdma_tx_coalesce(struct txrdma_ep *ep, struct txrdma_tx_slot *s,
			       u32 unit, u32 flen)
{
	struct txrdma_tx_slot *h = ep->chain_last;
	u32 n = s->wr.wr.num_sge, need;
	struct ib_send_wr *wr;
	struct ib_sge *sg;

	BUILD_BUG_ON(TXRDMA_TX_ZERO_OFF + TXRDMA_FRAME_UNIT - 1 >
		     TXRDMA_TX_HDR_STRIDE);
	/* a header SGE per frame: never more frames than the peer takes */
	BUILD_BUG_ON(TXRDMA_TX_WR_SGES > TXRDMA_FRAME_WRITE_FRAMES);
	if (!h || h->kind != TXRDMA_OP_SEND || unit != ep->chain_end ||
	    (s->wr.wr.send_flags & IB_SEND_FENCE) ||
	    (u64)ep->chain_bytes + ep->chain_pad + flen >
	    TXRDMA_FRAME_WRITE_BYTES)
		return false;
	wr = &h->wr.wr;
	need = n + (ep->chain_pad && !ep->chain_tail);
	if (wr->num_sge + need > ep->conn->max_sge)
		return false;
	if (wr->sg_list == h->sge) {
		/* its first rider: its SGEs move to where the list grows */
		if (ep->chain_nsge + wr->num_sge + need > TXRDMA_TX_CHAIN_SGES)
			return false;
		memcpy(ep->chain_sge + ep->chain_nsge, h->sge,
		       wr->num_sge * sizeof(*h->sge));
		wr->sg_list = ep->chain_sge + ep->chain_nsge;
		ep->chain_nsge += wr->num_sge;
	} else if (ep->chain_nsge + need > TXRDMA_TX_CHAIN_SGES) {
		return false;
	}
	/* the chain's last write: its SGEs end chain_sge's used part */
	sg = ep->chain_sge + ep->chain_nsge;
	if (ep->chain_pad && ep->chain_tail) {
		/* the trailer, then the zeroes after it in its buffer */
		sg[-1].length += ep->chain_pad;
	} else if (ep->chain_pad) {
		*sg++ = (struct ib_sge) {
			.addr	= ep->hdrs_dma +
				  (ep->chain_rider - ep->slots) *
				  TXRDMA_TX_HDR_STRIDE + TXRDMA_TX_ZERO_OFF,
			.length	= ep->chain_pad,
			.lkey	= ep->conn->dev->reg.pd->local_dma_lkey,
		};
	}
	memcpy(sg, s->sge, n * sizeof(*sg));
	sg += n;
	wr->num_sge = sg - wr->sg_list;
	ep->chain_nsge = sg - ep->chain_sge;
	/* the write's completion is its last frame's */
	s->posted = false;
	s->rider = NULL;
	ep->chain_rider->rider = s;
	ep->chain_rider = s;
	wr->wr_cqe = &s->cqe;
	ep->chain_bytes += ep->chain_pad + flen;
	ep->stats.tx_coalesced++;
	return true;
}

/**
 * txrdma_tx_fail_locked() - complete every send slot with @error
 * @ep: caller holds ep->lock; the pair failed
 * @error: negative errno for their CQEs
 *
 * In the order the SQEs were executed: those on the QP (tx_order), then
 * those still queued in the chain (each write's first slot, then its
 * riders), then any other (credit updates: no CQE).  The chain is
 * dropped: late completions of the QP find nothing to complete.
 */
void txrdma_tx_fail_locked(struct txrdma_ep *ep, int error)
{
	struct txrdma_tx_slot *s, *next;
	const struct ib_send_wr *wr;
	unsigned int i;

	lockdep_assert_held(&ep->lock);
	/* a session's SENDs delivered but not released: the oldest */
	for (; ep->acks_head != ep->acks_tail; ep->acks_head++)
		txrdma_tx_slot_end(ep, &ep->slots[ep->acks[ep->acks_head &
					(TXRDMA_EP_SLOTS - 1)]], error);
	for (; ep->tx_done != ep->tx_posted; ep->tx_done++) {
		s = &ep->slots[ep->tx_order[ep->tx_done &
					    (TXRDMA_EP_SLOTS - 1)]];
		if (s->busy && s->posted)
			txrdma_tx_slot_end(ep, s, error);
	}
	for (wr = ep->chain_first ? &ep->chain_first->wr.wr : NULL; wr;
	     wr = wr->next) {
		for (s = container_of(wr, struct txrdma_tx_slot, wr.wr); s;
		     s = next) {
			next = s->rider;
			if (s->busy)
				txrdma_tx_slot_done(ep, s, error);
		}
	}
	for (i = 0; i < TXRDMA_EP_SLOTS; i++)
		if (ep->slots[i].busy)
			txrdma_tx_slot_done(ep, &ep->slots[i], error);
	txrdma_tx_chain_reset(ep);
	ep->tx_done = ep->tx_posted;
}

/**
 * txrdma_tx_ring_flush() - post what the pass queued
 * @ring: the ring; caller holds ring->lock, the pass is over
 */
void txrdma_tx_ring_flush(struct txrdma_ring *ring)
{
	struct txrdma_ep *ep;
	unsigned long id;
	bool ok;

	lockdep_assert_held(&ring->lock);
	if (!ring->chained)
		return;
	ring->chained = false;
	xa_for_each(&ring->eps, id, ep) {
		if (!READ_ONCE(ep->chain_first))
			continue;
		spin_lock_bh(&ep->lock);
		ok = txrdma_tx_flush_locked(ep);
		spin_unlock_bh(&ep->lock);
		if (!ok)
			txrdma_pair_close_qp(ep, -ECONNRESET);
	}
}

/*
 * Caller holds ep->lock: the header (and trailer) of SEND slot @s's
 * frame, built anew for the pair as it is now: an imported session's
 * frames, and those the other side, moved to another host, gets again
 * under its new endpoint id.  Its credit report is today's (reports
 * only grow).
 */
static void txrdma_tx_frame_head(struct txrdma_ep *ep,
				 struct txrdma_tx_slot *s)
{
	u8 *hdr = (u8 *)ep->hdrs + (s - ep->slots) * TXRDMA_TX_HDR_STRIDE;
	u32 first = txrdma_tx_frame_first(ep, s);
	struct txrdma_frame f = {
		.type		= TXRDMA_FRAME_MSG,
		.src_ep		= ep->id,
		.dst_ep		= ep->peer_ep,
		.seq		= s->fseq,
		.len		= s->len,
		.consumed	= txrdma_rx_report(ep),
		.epoch		= ep->epoch,
	};
	u32 crc;

	lockdep_assert_held(&ep->lock);
	if (s->trailer)
		f.flags = TXRDMA_FRAME_F_DATA_CRC | TXRDMA_FRAME_F_TRAILER;
	else if (ep->flags & TXRDMA_EP_F_DATA_CRC)
		f.flags = TXRDMA_FRAME_F_DATA_CRC;
	txrdma_frame_encode(&f, NULL, hdr);
	if (f.flags & TXRDMA_FRAME_F_DATA_CRC) {
		crc = txrdma_frame_crc_begin(hdr);
		crc = txrdma_region_crc32c(s->region, s->loff, s->len, crc);
		txrdma_frame_crc_end(hdr, crc);
	}
	if (s->trailer)
		txrdma_frame_trailer(hdr, first, hdr + TXRDMA_FRAME_HDR_LEN);
}

/*
 * Caller holds ep->lock: a frame of slot @s again, alone in its write.
 * Return: 0, or -ENOENT when its payload's region has no registration
 * on the new QP's device any more (revoked).
 */
static int txrdma_tx_frame_again(struct txrdma_ep *ep,
				 struct txrdma_tx_slot *s)
{
	u64 hdr_dma = ep->hdrs_dma + (s - ep->slots) * TXRDMA_TX_HDR_STRIDE;
	u32 lkey = ep->conn->dev->reg.pd->local_dma_lkey;
	int fence = s->wr.wr.send_flags & IB_SEND_FENCE;

	/* the other side moved: its new endpoint takes the frame */
	if (ep->ho_rehead)
		txrdma_tx_frame_head(ep, s);
	/* the header buffer is mapped anew with each QP */
	ib_dma_sync_single_for_device(ep->conn->dev->ibdev, hdr_dma,
				      TXRDMA_TX_HDR_STRIDE, DMA_TO_DEVICE);
	s->sge[0].addr = hdr_dma;
	s->sge[0].lkey = lkey;
	/* on another path's device: the payload's key there */
	if (s->dev != ep->conn->dev && s->len &&
	    txrdma_region_key(s->region, ep->conn->dev, s->loff,
			      &s->sge[1].addr, &s->sge[1].lkey))
		return -ENOENT;
	s->dev = ep->conn->dev;
	if (s->trailer) {
		s->sge[s->nsge - 1].addr = hdr_dma + TXRDMA_FRAME_HDR_LEN;
		s->sge[s->nsge - 1].lkey = lkey;
	}
	s->wr = (struct ib_rdma_wr) {
		.wr.sg_list	= s->sge,
		.wr.num_sge	= s->nsge,
		.wr.opcode	= IB_WR_RDMA_WRITE_WITH_IMM,
		.wr.send_flags	= fence,
		.wr.ex.imm_data	= cpu_to_be32(txrdma_imm_frame(s->unit)),
		.remote_addr	= ep->peer_addr +
				  (u64)s->unit * TXRDMA_FRAME_UNIT,
		.rkey		= ep->peer_rkey,
	};
	txrdma_tx_chain_add(ep, s);
	ep->stats.tx_resent++;
	trace_txrdma_frame_again(ep->tenant->id, ep->id, s->fseq, s->len,
				 s->unit);
	return 0;
}

static bool txrdma_tx_credit_update(struct txrdma_ep *ep);

/* A slot a resumed session settles itself: a SEND, a READ, a WRITE. */
static bool txrdma_tx_op_slot(const struct txrdma_tx_slot *s)
{
	return s->kind == TXRDMA_OP_SEND || s->kind == TXRDMA_OP_READ ||
	       s->kind == TXRDMA_OP_WRITE;
}

/*
 * Caller holds ep->lock: READ or WRITE @s, which txrdma_resume_rw() runs
 * again, on the new QP.  Return: 0 (queued again), or -EPERM or -EFAULT
 * when the other side revoked or changed its export meanwhile (the key
 * in the WR is dead: never post it again; the SQE fails as it would
 * now).
 */
static int txrdma_tx_rw_again(struct txrdma_ep *ep, struct txrdma_tx_slot *s)
{
	struct txrdma_import *imp;

	imp = txrdma_import_find(ep, s->rregion, s->roff, s->len);
	if (IS_ERR(imp))
		return PTR_ERR(imp);
	if (!(imp->access & (s->kind == TXRDMA_OP_READ ? TXRDMA_EXPORT_READ :
						       TXRDMA_EXPORT_WRITE)))
		return -EPERM;
	/* the local side: its key on the new QP's device (another path's) */
	if (s->dev != ep->conn->dev && s->len &&
	    txrdma_region_key(s->region, ep->conn->dev, s->loff,
			      &s->sge[0].addr, &s->sge[0].lkey))
		return -EPERM;
	s->dev = ep->conn->dev;
	s->wr.remote_addr = imp->addr + (s->roff - imp->off);
	s->wr.rkey = imp->rkey;
	s->wr.wr.send_flags &= ~IB_SEND_SIGNALED;
	s->rerun = true;
	txrdma_tx_chain_add(ep, s);
	return 0;
}

/*
 * Caller holds ep->lock, the old QP reaped: the SENDs, READs and WRITEs
 * not settled yet, into @order in the order they were executed (SENDs
 * delivered but not released, then the others on the old QP, then those
 * queued), each slot marked in @seen.  Return: how many.  The caller
 * settles every one of them (ep->acks is emptied).
 */
static unsigned int txrdma_tx_unsettled_locked(struct txrdma_ep *ep,
					       struct txrdma_tx_slot **order,
					       unsigned long *seen)
{
	struct txrdma_tx_slot *s, *next;
	const struct ib_send_wr *wr;
	unsigned int nord = 0;
	u32 i;

	lockdep_assert_held(&ep->lock);
	bitmap_zero(seen, TXRDMA_EP_SLOTS);
	/* delivered, not released: executed before all the others */
	for (i = ep->acks_head; i != ep->acks_tail; i++) {
		s = &ep->slots[ep->acks[i & (TXRDMA_EP_SLOTS - 1)]];
		if (!__test_and_set_bit(s - ep->slots, seen))
			order[nord++] = s;
	}
	for (; ep->tx_done != ep->tx_posted; ep->tx_done++) {
		s = &ep->slots[ep->tx_order[ep->tx_done &
					    (TXRDMA_EP_SLOTS - 1)]];
		if (s->busy && s->posted && txrdma_tx_op_slot(s) &&
		    !__test_and_set_bit(s - ep->slots, seen))
			order[nord++] = s;
	}
	for (wr = ep->chain_first ? &ep->chain_first->wr.wr : NULL; wr;
	     wr = wr->next) {
		for (s = container_of(wr, struct txrdma_tx_slot, wr.wr); s;
		     s = next) {
			next = s->rider;
			if (s->busy && txrdma_tx_op_slot(s) &&
			    !__test_and_set_bit(s - ep->slots, seen))
				order[nord++] = s;
		}
	}
	return nord;
}

/**
 * txrdma_tx_resume_locked() - a session is back on a new QP
 * @ep: caller holds ep->lock; ep->conn is the new QP, ep->sess_ready
 *	still false
 * @peer: the other side's report
 *
 * Its unsettled SENDs (failed or never completed on the old QP, or
 * still queued) are a suffix of its frames: those the report says
 * arrived complete successfully, the others go again, each in a write
 * of its own, at the units they had (txrdma_resume_plan()), then a
 * credit update with what our process released.
 *
 * READ and WRITE in flight: a WRITE before a SEND that arrived has run
 * (RC executes in order) and completes successfully.  Any other may or
 * may not have run: it runs again if its process marked it
 * TXRDMA_SQE_F_IDEMPOTENT, after the frames that arrived and in its
 * place among those that go again (txrdma_tx_rw_again()), else it fails
 * with -ECONNABORTED.  Return: 0, -EPROTO (the report does not fit: the
 * caller fails the pair) or -ECONNRESET (the new QP refused the post).
 */
int txrdma_tx_resume_locked(struct txrdma_ep *ep,
			    const struct txrdma_resume_report *peer)
{
	struct txrdma_tx_slot *order[TXRDMA_EP_SLOTS], *s;
	struct txrdma_resume_tx tx;
	struct txrdma_resume_plan plan;
	u32 starts[TXRDMA_EP_SLOTS];
	DECLARE_BITMAP(seen, TXRDMA_EP_SLOTS);
	unsigned int n = 0, nord, i, k;
	u32 unit;
	int ret;

	lockdep_assert_held(&ep->lock);
	nord = txrdma_tx_unsettled_locked(ep, order, seen);
	/* the SENDs among them: their frames' starts, for the plan */
	for (i = 0; i < nord; i++)
		if (order[i]->kind == TXRDMA_OP_SEND)
			starts[n++] = order[i]->start;
	/*
	 * As we were when we reported: frames of the other side may have
	 * come on the new QP since, with newer counts
	 */
	tx = (struct txrdma_resume_tx) {
		.acked		= ep->tx_seq - n,
		.next		= ep->tx_seq,
		.head		= ep->ctx.head,
		.released	= ep->sess_released,
	};
	for (i = 0, k = 0; i < nord; i++)
		if (order[i]->kind == TXRDMA_OP_SEND &&
		    order[i]->fseq != tx.acked + k++)
			return -EPROTO;	/* not a suffix: never */
	ret = txrdma_resume_plan(&tx, starts, ep->sess_rx_seq, TXRDMA_EP_SLOTS,
				 peer, &plan);
	if (ret)
		return ret;
	txrdma_tx_chain_reset(ep);
	/* in @order now; those that arrived go back in, in order, below */
	ep->acks_head = ep->acks_tail;
	/* whatever else was in flight: credit updates (they have no CQE) */
	for (i = 0; i < TXRDMA_EP_SLOTS; i++) {
		s = &ep->slots[i];
		if (s->busy && !test_bit(i, seen))
			txrdma_tx_slot_done(ep, s, -ECONNABORTED);
	}
	ep->ctx.head = plan.head;
	/* what its process released: checked by the plan (<= the tail) */
	txrdma_credit_tx_update(&ep->ctx, peer->released);
	/* in order: what is settled now completes as it was executed */
	for (i = 0, k = 0; i < nord; i++) {
		s = order[i];
		if (s->kind != TXRDMA_OP_SEND) {
			switch (txrdma_resume_rw(s->kind == TXRDMA_OP_WRITE,
						 k < plan.delivered,
						 s->idempotent, s->rerun)) {
			case TXRDMA_RESUME_RW_RAN:
				txrdma_tx_slot_ok(ep, s);
				break;
			case TXRDMA_RESUME_RW_AGAIN:
				ret = txrdma_tx_rw_again(ep, s);
				if (ret)
					txrdma_tx_slot_done(ep, s, ret);
				break;
			default:
				txrdma_tx_slot_done(ep, s, -ECONNABORTED);
			}
			continue;
		}
		if (k++ < plan.delivered) {
			txrdma_tx_slot_ok(ep, s);
			continue;
		}
		/* where it was placed before: the plan checked the head */
		if (txrdma_credit_place(&ep->ctx, s->units, &unit) ||
		    unit != s->unit || txrdma_tx_frame_again(ep, s))
			return -EPROTO;
	}
	ep->sess_ready = true;
	ep->ho_rehead = false;
	/* behind the frames: what our process released meanwhile */
	if (!txrdma_tx_credit_update(ep) ||
	    (ep->chain_first && !txrdma_tx_flush_locked(ep)))
		return -ECONNRESET;
	return 0;
}

/**
 * txrdma_tx_export_locked() - hand a frozen session's SENDs over
 * @ep: caller holds ep->lock; its QP is closed and reaped, no SQE of it
 *	runs any more (txrdma_pair_handoff.c)
 * @out: TXRDMA_SESS_SENDS_MAX entries: its unsettled SENDs, oldest first
 *
 * They complete on the host the session moves to, not here: their
 * slots are freed without a CQE (their places in the CQ ring given
 * back).  A READ or WRITE in flight completes here with -ECONNABORTED
 * (it may or may not have run, and it names keys that die here).
 * Return: the number of SENDs in @out.
 */
u32 txrdma_tx_export_locked(struct txrdma_ep *ep, struct txrdma_sess_send *out)
{
	struct txrdma_tx_slot *order[TXRDMA_EP_SLOTS], *s;
	DECLARE_BITMAP(seen, TXRDMA_EP_SLOTS);
	unsigned int nord, i, n = 0;

	lockdep_assert_held(&ep->lock);
	nord = txrdma_tx_unsettled_locked(ep, order, seen);
	txrdma_tx_chain_reset(ep);
	ep->acks_head = ep->acks_tail;
	for (i = 0; i < nord; i++) {
		s = order[i];
		if (s->kind != TXRDMA_OP_SEND) {
			txrdma_tx_slot_done(ep, s, -ECONNABORTED);
			continue;
		}
		out[n++] = (struct txrdma_sess_send) {
			.user_data	= s->user_data,
			.off		= s->loff,
			.region		= s->region->id,
			.len		= s->len,
			.seq		= s->fseq,
			.start		= s->start,
			.unit		= s->unit,
			.units		= s->units,
			.flags		= (s->no_cqe ? TXRDMA_SQE_F_NO_CQE : 0) |
					  (s->wr.wr.send_flags & IB_SEND_FENCE ?
					   TXRDMA_SQE_F_FENCE : 0),
		};
		/* no CQE here: its place in the CQ ring is given back */
		if (ep->ring)
			txrdma_ring_complete(ep->ring, s->user_data, 0, ep->id,
					     s->kind, true);
		txrdma_region_put_async(s->region);
		txrdma_slot_put(ep, s);
	}
	/* whatever else was in flight: credit updates */
	for (i = 0; i < TXRDMA_EP_SLOTS; i++) {
		s = &ep->slots[i];
		if (s->busy && !test_bit(i, seen))
			txrdma_tx_slot_done(ep, s, -ECONNABORTED);
	}
	ep->tx_done = ep->tx_posted;
	return n;
}

/**
 * txrdma_tx_import_locked() - an imported session's unsettled SENDs
 * @ep: caller holds ep->lock; a fresh endpoint, no QP yet, every slot
 *	free, its counters those of the state (txrdma_pair_handoff.c)
 * @sends: the SENDs, checked (txrdma_handoff_state_check())
 * @regions: their payloads' regions, checked and referenced (the slots
 *	take the references)
 * @n: how many (at most TXRDMA_EP_SLOTS)
 *
 * As if the endpoint had sent them on a QP that was just lost: each
 * slot posted and unsettled, its frame's header built with this
 * endpoint's ids.  The session's resume sends again those the other
 * side lacks (txrdma_tx_resume_locked()), with the payload's key on
 * the new QP's device, looked up then.
 */
void txrdma_tx_import_locked(struct txrdma_ep *ep,
			     const struct txrdma_sess_send *sends,
			     struct txrdma_region **regions, u32 n)
{
	struct txrdma_tx_slot *s;
	u32 i;

	lockdep_assert_held(&ep->lock);
	for (i = 0; i < n; i++) {
		s = txrdma_slot_get(ep);
		s->kind = TXRDMA_OP_SEND;
		s->region = regions[i];
		s->loff = sends[i].off;
		s->dev = NULL;	/* its key: on the QP's device, when sent */
		s->user_data = sends[i].user_data;
		s->len = sends[i].len;
		s->no_cqe = sends[i].flags & TXRDMA_SQE_F_NO_CQE;
		s->idempotent = false;
		s->rerun = false;
		s->fseq = sends[i].seq;
		s->start = sends[i].start;
		s->unit = sends[i].unit;
		s->units = sends[i].units;
		s->trailer = sends[i].len <= ep->peer_ahead_max &&
			     sends[i].len + TXRDMA_FRAME_TRAILER_LEN <=
			     ep->peer_max_msg;
		s->rider = NULL;
		txrdma_tx_frame_head(ep, s);
		/* addresses and keys are filled in when it goes again */
		s->nsge = 0;
		s->sge[s->nsge++].length = TXRDMA_FRAME_HDR_LEN;
		if (s->len)
			s->sge[s->nsge++].length = s->len;
		if (s->trailer)
			s->sge[s->nsge++].length = TXRDMA_FRAME_TRAILER_LEN;
		s->wr.wr.send_flags = sends[i].flags & TXRDMA_SQE_F_FENCE ?
				      IB_SEND_FENCE : 0;
		s->posted = true;
		s->seq = ep->tx_posted;
		s->wr_seq = s->seq;
		ep->tx_order[ep->tx_posted++ & (TXRDMA_EP_SLOTS - 1)] =
			s - ep->slots;
	}
}

/*
 * Caller holds ep->lock: an explicit credit update, if a slot is free.
 * Return: as txrdma_tx_flush_locked().
 */
static bool txrdma_tx_credit_update(struct txrdma_ep *ep)
{
	struct txrdma_tx_slot *s;

	/*
	 * Not before a resumed pair's frames went again: their credit
	 * counts are older (txrdma_tx_resume_locked() sends one after)
	 */
	if (!ep->nfree || !ep->conn || !ep->sess_ready)
		return true;
	s = txrdma_slot_get(ep);
	s->kind = TXRDMA_SLOT_CREDIT;
	s->len = 0;
	s->wr = (struct ib_rdma_wr) {
		.wr.opcode	= IB_WR_RDMA_WRITE_WITH_IMM,
		.wr.ex.imm_data	=
			cpu_to_be32(txrdma_imm_credit(txrdma_rx_report(ep))),
		.remote_addr	= ep->peer_addr,
		.rkey		= ep->peer_rkey,
	};
	ep->stats.credit_updates++;
	/* now, behind whatever is queued: no ring to flush it later */
	return txrdma_tx_queue(ep, NULL, s);
}

/* Caller holds ep->lock: take up what the process released. */
void txrdma_tx_take_release(struct txrdma_ep *ep)
{
	u32 head;

	lockdep_assert_held(&ep->lock);
	head = READ_ONCE(*txrdma_rx_word(ep, TXRDMA_RX_OFF_HEAD));
	if (head != ep->crx.consumed &&
	    txrdma_credit_rx_release(&ep->crx, head))
		ep->stats.err_sqe++;	/* garbage: ignored, counted */
}

/*
 * Neither bucket limits the tenant (the default): admission takes no
 * lock and reads no clock (an HPET read is a device access in a guest).
 * A limit set meanwhile applies from the next SQE on.
 */
static bool txrdma_tx_unlimited(const struct txrdma_tenant *t)
{
	return READ_ONCE(t->ops.rate) == TXRDMA_TB_UNLIMITED &&
	       READ_ONCE(t->bw.rate) == TXRDMA_TB_UNLIMITED;
}

/*
 * Caller holds ep->lock: take one operation and @len bytes from the
 * tenant's buckets.  Return: 0 (taken) or TXRDMA_EXEC_BLOCKED, with
 * ring->wake_ns set to when they will allow it; a wait is counted once
 * per SQE (ring->throttled), in the tenant's and the endpoint's
 * counters.
 */
static int txrdma_tx_admit(struct txrdma_ep *ep, struct txrdma_ring *ring,
			   u32 len)
{
	struct txrdma_tenant *t = ep->tenant;
	u64 now, w_ops, w_bw;

	if (txrdma_tx_unlimited(t)) {
		ring->throttled = false;
		return 0;
	}
	now = ktime_get_ns();
	spin_lock(&t->lock);
	w_ops = txrdma_tb_wait_ns(&t->ops, now, 1);
	w_bw = txrdma_tb_wait_ns(&t->bw, now, len);
	if (!w_ops && !w_bw) {
		txrdma_tb_take(&t->ops, now, 1);
		txrdma_tb_take(&t->bw, now, len);
		ring->throttled = false;
	} else if (!ring->throttled) {
		ring->throttled = true;
		if (w_bw)
			t->throttled_bw++;
		else
			t->throttled_ops++;
		ep->stats.throttled++;
	}
	spin_unlock(&t->lock);
	if (!w_ops && !w_bw)
		return 0;
	/* a zero rate never refills: wait for the admin, not forever */
	ring->wake_ns = now + min_t(u64, max(w_ops, w_bw), NSEC_PER_SEC);
	return TXRDMA_EXEC_BLOCKED;
}

/* Caller holds ep->lock: give back what txrdma_tx_admit() took. */
static void txrdma_tx_unadmit(struct txrdma_ep *ep, u32 len)
{
	struct txrdma_tenant *t = ep->tenant;

	/* nothing was taken (a limit set in between gets at most this) */
	if (txrdma_tx_unlimited(t))
		return;
	spin_lock(&t->lock);
	txrdma_tb_refund(&t->ops, 1);
	txrdma_tb_refund(&t->bw, len);
	spin_unlock(&t->lock);
}

/*
 * The endpoint and the local range of an SQE of @ring, at most
 * @max_len bytes: the region, referenced, with the range's address and
 * key on the pair's device (sleeps), or ERR_PTR(-ENOENT: no such
 * endpoint or region, -EMSGSIZE, -EFAULT).
 */
static struct txrdma_region *txrdma_tx_local(struct txrdma_ring *ring,
					     const struct txrdma_sqe *sqe,
					     u32 max_len,
					     struct txrdma_ep **epp,
					     struct txrdma_dev **devp,
					     u64 *addr, u32 *lkey)
{
	struct txrdma_ep *ep = xa_load(&ring->eps, sqe->ep);

	if (!ep)
		return ERR_PTR(-ENOENT);
	if (sqe->len > max_len)
		return ERR_PTR(-EMSGSIZE);
	*epp = ep;
	*devp = READ_ONCE(ep->dev);
	return txrdma_region_resolve(ep->tenant, sqe->local_region,
				     sqe->local_off, sqe->len, *devp, addr,
				     lkey);
}

/*
 * Caller holds ep->lock, the pair ready: the local range of @sqe, which
 * txrdma_tx_local() resolved on @dev before the lock, on the device of
 * the pair's QP now (a session may have moved to another path's device
 * meanwhile).  Return: 0, or -ENOENT.
 */
static int txrdma_tx_local_again_locked(struct txrdma_ep *ep,
					struct txrdma_region *r,
					const struct txrdma_sqe *sqe,
					struct txrdma_dev *dev,
					u64 *addr, u32 *lkey)
{
	lockdep_assert_held(&ep->lock);
	if (likely(ep->conn->dev == dev) || !sqe->len)
		return 0;
	return txrdma_region_key(r, ep->conn->dev, sqe->local_off, addr,
				 lkey);
}

/* Caller holds ep->lock: 0 if the pair takes operations, else -errno. */
static int txrdma_tx_ready_locked(struct txrdma_ep *ep)
{
	int ret = READ_ONCE(ep->error);

	lockdep_assert_held(&ep->lock);
	/* exported: the session continues on another host */
	if (ep->frozen)
		return -EXDEV;
	/* a session away from its QP: the SQE waits for the resume */
	if (!ret && ep->dstate == TXRDMA_EP_CONNECTED && !ep->sess_ready) {
		ep->blocked = true;
		return TXRDMA_EXEC_BLOCKED;
	}
	if (ret || ep->dstate != TXRDMA_EP_CONNECTED || !ep->conn)
		return ret ?: -ENOTCONN;
	return 0;
}

/*
 * An SQE whose local range did not resolve (@err, from txrdma_tx_local()
 * for endpoint @ep, NULL if there is none): a session away from its QP
 * whose device went has no registration there any more, and waits for
 * its resume, which registers on another device, rather than fail.
 */
static int txrdma_tx_local_err(struct txrdma_ep *ep, int err)
{
	if (err != -ENOENT || !ep)
		return err;
	spin_lock_bh(&ep->lock);
	if (txrdma_tx_ready_locked(ep) == TXRDMA_EXEC_BLOCKED)
		err = TXRDMA_EXEC_BLOCKED;
	spin_unlock_bh(&ep->lock);
	return err;
}

/*
 * Caller holds ep->lock: a free send slot and the tenant's tokens for
 * @len bytes.  Return: 0, or TXRDMA_EXEC_BLOCKED (nothing taken).
 */
static int txrdma_tx_admit_slot_locked(struct txrdma_ep *ep,
				       struct txrdma_ring *ring, u32 len)
{
	lockdep_assert_held(&ep->lock);
	/*
	 * A session keeps one slot for credit updates: its SENDs hold
	 * their slots until the other side reports a release, and both
	 * sides streaming with every slot held would each wait for the
	 * other's update for ever
	 */
	if (ep->nfree <= (u32)ep->session) {
		ep->stats.slot_stalls++;
		ep->blocked = true;
		return TXRDMA_EXEC_BLOCKED;
	}
	return txrdma_tx_admit(ep, ring, len);
}

/**
 * txrdma_tx_send() - execute a SEND SQE
 * @ring: the ring it came from; the poller holds ring->lock and has
 *	made sure the CQ has room for one more completion
 * @sqe: the SQE, copied and checked (txrdma_sqe_check())
 *
 * Return: TXRDMA_EXEC_ASYNC when posted (the CQE comes with the
 * completion), TXRDMA_EXEC_BLOCKED when it must wait for credits or a
 * send slot (nothing changed), else the negative errno of its CQE.
 */
int txrdma_tx_send(struct txrdma_ring *ring, const struct txrdma_sqe *sqe)
{
	struct txrdma_region *r;
	struct txrdma_tx_slot *s;
	struct txrdma_frame f = {};
	struct txrdma_ep *ep;
	bool posted, trailer;
	u64 addr, hdr_dma;
	u8 *hdr;
	u32 lkey, unit, units, flen, start;
	struct txrdma_dev *dev;
	int nsge, ret;

	/* the payload's registration on the pair's device */
	ep = NULL;
	r = txrdma_tx_local(ring, sqe, TXRDMA_FRAME_MAX_PAYLOAD, &ep, &dev,
			    &addr, &lkey);
	if (IS_ERR(r))
		return txrdma_tx_local_err(ep, PTR_ERR(r));

	spin_lock_bh(&ep->lock);
	ret = txrdma_tx_ready_locked(ep);
	if (!ret)
		ret = txrdma_tx_local_again_locked(ep, r, sqe, dev, &addr,
						   &lkey);
	if (ret)
		goto out_put;
	/* longer than the other side's process said it takes */
	if (sqe->len > ep->peer_max_msg) {
		ret = -EMSGSIZE;
		goto out_put;
	}
	ret = txrdma_tx_admit_slot_locked(ep, ring, sqe->len);
	if (ret)
		goto out_put;
	/*
	 * The peer's process reads frames ahead of its kernel: a trailer
	 * and the payload's CRC on those that stay within both its limit
	 * and the longest frame its ring takes (the rest wait for its
	 * kernel there)
	 */
	trailer = sqe->len <= ep->peer_ahead_max &&
		  sqe->len + TXRDMA_FRAME_TRAILER_LEN <= ep->peer_max_msg;
	/* the frame's bytes: header, payload, trailer */
	flen = TXRDMA_FRAME_HDR_LEN + sqe->len +
	       (trailer ? TXRDMA_FRAME_TRAILER_LEN : 0);
	units = txrdma_frame_units(flen - TXRDMA_FRAME_HDR_LEN);
	start = ep->ctx.head;
	ret = txrdma_credit_place(&ep->ctx, units, &unit);
	if (ret == -ENOSPC) {
		txrdma_tx_unadmit(ep, sqe->len);
		trace_txrdma_credit_stall(ep->tenant->id, ep->id, ep->tx_seq,
					  units);
		ep->stats.credit_stalls++;
		ep->blocked = true;
		ret = TXRDMA_EXEC_BLOCKED;
		goto out_put;
	}
	if (ret) {
		/* -EMSGSIZE: more than the peer ring takes */
		txrdma_tx_unadmit(ep, sqe->len);
		goto out_put;
	}

	s = txrdma_slot_get(ep);
	s->kind = TXRDMA_OP_SEND;
	s->region = r;
	s->loff = sqe->local_off;
	s->dev = ep->conn->dev;
	s->user_data = sqe->user_data;
	s->len = sqe->len;
	s->no_cqe = sqe->flags & TXRDMA_SQE_F_NO_CQE;
	s->fseq = ep->tx_seq;
	txrdma_tx_take_release(ep);
	f = (struct txrdma_frame) {
		.type		= TXRDMA_FRAME_MSG,
		.src_ep		= ep->id,
		.dst_ep		= ep->peer_ep,
		.seq		= ep->tx_seq,
		.len		= sqe->len,
		.consumed	= txrdma_rx_report(ep),
		.epoch		= ep->epoch,
	};
	hdr = (u8 *)ep->hdrs + (s - ep->slots) * TXRDMA_TX_HDR_STRIDE;
	if (trailer)
		f.flags = TXRDMA_FRAME_F_DATA_CRC | TXRDMA_FRAME_F_TRAILER;
	else if (ep->flags & TXRDMA_EP_F_DATA_CRC)
		f.flags = TXRDMA_FRAME_F_DATA_CRC;
	txrdma_frame_encode(&f, NULL, hdr);
	if (f.flags & TXRDMA_FRAME_F_DATA_CRC) {
		/* end to end: the CRC covers the payload where it lies */
		u32 crc;

		crc = txrdma_frame_crc_begin(hdr);
		crc = txrdma_region_crc32c(r, sqe->local_off, sqe->len, crc);
		txrdma_frame_crc_end(hdr, crc);
	}
	/* where it starts, free-running: the credits just placed it */
	if (trailer)
		txrdma_frame_trailer(hdr, ep->ctx.head - units,
				     hdr + TXRDMA_FRAME_HDR_LEN);
	hdr_dma = ep->hdrs_dma + (s - ep->slots) * TXRDMA_TX_HDR_STRIDE;
	ib_dma_sync_single_for_device(ep->conn->dev->ibdev, hdr_dma,
				      TXRDMA_TX_HDR_STRIDE, DMA_TO_DEVICE);
	nsge = 0;
	s->sge[nsge++] = (struct ib_sge) {
		.addr	= hdr_dma,
		.length	= TXRDMA_FRAME_HDR_LEN,
		.lkey	= ep->conn->dev->reg.pd->local_dma_lkey,
	};
	if (sqe->len)
		s->sge[nsge++] = (struct ib_sge) {
			.addr	= addr,
			.length	= sqe->len,
			.lkey	= lkey,
		};
	if (trailer)
		s->sge[nsge++] = (struct ib_sge) {
			.addr	= hdr_dma + TXRDMA_FRAME_HDR_LEN,
			.length	= TXRDMA_FRAME_TRAILER_LEN,
			.lkey	= ep->conn->dev->reg.pd->local_dma_lkey,
		};
	s->nsge = nsge;
	s->trailer = trailer;
	s->start = start;
	s->unit = unit;
	s->units = units;
	s->wr = (struct ib_rdma_wr) {
		.wr.sg_list	= s->sge,
		.wr.num_sge	= nsge,
		.wr.opcode	= IB_WR_RDMA_WRITE_WITH_IMM,
		.wr.send_flags	= sqe->flags & TXRDMA_SQE_F_FENCE ?
				  IB_SEND_FENCE : 0,
		.wr.ex.imm_data	= cpu_to_be32(txrdma_imm_frame(unit)),
		.remote_addr	= ep->peer_addr + (u64)unit * TXRDMA_FRAME_UNIT,
		.rkey		= ep->peer_rkey,
	};
	/* its CQE comes with the completion: keep a place for it */
	txrdma_ring_reserve(ring);
	ep->tx_seq++;
	if (txrdma_tx_coalesce(ep, s, unit, flen)) {
		trace_txrdma_frame_tx(ep->tenant->id, ep->id, ep->peer_ep,
				      f.seq, sqe->len, unit, true);
		/* a frame queued like any: the chain leaves every so many */
		posted = true;
		if (++ep->nchain >= TXRDMA_TX_CHAIN_MAX)
			posted = txrdma_tx_flush_locked(ep);
	} else {
		trace_txrdma_frame_tx(ep->tenant->id, ep->id, ep->peer_ep,
				      f.seq, sqe->len, unit, false);
		posted = txrdma_tx_queue(ep, ring, s);
		ep->chain_bytes = flen;
	}
	/* where a frame that joins this write would have to start */
	ep->chain_end = unit + units;
	ep->chain_pad = units * TXRDMA_FRAME_UNIT - flen;
	ep->chain_tail = trailer;
	spin_unlock_bh(&ep->lock);
	/* refused: its CQE is written already, the pair is over */
	if (!posted)
		txrdma_pair_close_qp(ep, -ECONNRESET);
	return TXRDMA_EXEC_ASYNC;

out_put:
	spin_unlock_bh(&ep->lock);
	txrdma_region_put_async(r);
	return ret;
}

/**
 * txrdma_tx_rw() - execute a READ or WRITE SQE
 * @ring: as txrdma_tx_send()
 * @sqe: the SQE
 *
 * The remote region must have been exported to this endpoint pair by
 * the other side (-EPERM otherwise, or for an access it did not give);
 * the local one must be our tenant's (-ENOENT).  Both ranges are
 * checked (-EFAULT).
 *
 * Return: as txrdma_tx_send().
 */
int txrdma_tx_rw(struct txrdma_ring *ring, const struct txrdma_sqe *sqe)
{
	bool read = sqe->opcode == TXRDMA_OP_READ;
	struct txrdma_import *imp;
	struct txrdma_region *r;
	struct txrdma_tx_slot *s;
	struct txrdma_dev *dev;
	struct txrdma_ep *ep;
	bool posted;
	u32 lkey;
	u64 addr;
	int ret;

	ep = NULL;
	r = txrdma_tx_local(ring, sqe, U32_MAX, &ep, &dev, &addr, &lkey);
	if (IS_ERR(r))
		return txrdma_tx_local_err(ep, PTR_ERR(r));

	spin_lock_bh(&ep->lock);
	ret = txrdma_tx_ready_locked(ep);
	if (!ret)
		ret = txrdma_tx_local_again_locked(ep, r, sqe, dev, &addr,
						   &lkey);
	if (ret)
		goto out_put;
	imp = txrdma_import_find(ep, sqe->remote_region, sqe->remote_off,
				 sqe->len);
	if (IS_ERR(imp)) {
		ret = PTR_ERR(imp);
		goto out_put;
	}
	ret = -EPERM;
	if (!(imp->access & (read ? TXRDMA_EXPORT_READ : TXRDMA_EXPORT_WRITE)))
		goto out_put;
	ret = txrdma_tx_admit_slot_locked(ep, ring, sqe->len);
	if (ret)
		goto out_put;
	s = txrdma_slot_get(ep);
	s->kind = sqe->opcode;
	s->region = r;
	s->user_data = sqe->user_data;
	s->len = sqe->len;
	s->no_cqe = sqe->flags & TXRDMA_SQE_F_NO_CQE;
	s->idempotent = sqe->flags & TXRDMA_SQE_F_IDEMPOTENT;
	s->rerun = false;
	s->rregion = sqe->remote_region;
	s->roff = sqe->remote_off;
	s->loff = sqe->local_off;
	s->dev = ep->conn->dev;
	s->sge[0] = (struct ib_sge) {
		.addr	= addr,
		.length	= sqe->len,
		.lkey	= lkey,
	};
	s->wr = (struct ib_rdma_wr) {
		.wr.sg_list	= s->sge,
		.wr.num_sge	= sqe->len ? 1 : 0,
		.wr.opcode	= read ? IB_WR_RDMA_READ : IB_WR_RDMA_WRITE,
		.wr.send_flags	= sqe->flags & TXRDMA_SQE_F_FENCE ?
				  IB_SEND_FENCE : 0,
		.remote_addr	= imp->addr + (sqe->remote_off - imp->off),
		.rkey		= imp->rkey,
	};
	txrdma_ring_reserve(ring);
	posted = txrdma_tx_queue(ep, ring, s);
	spin_unlock_bh(&ep->lock);
	if (!posted)
		txrdma_pair_close_qp(ep, -ECONNRESET);
	return TXRDMA_EXEC_ASYNC;

out_put:
	spin_unlock_bh(&ep->lock);
	txrdma_region_put_async(r);
	return ret;
}

/*
 * How long a session's update waits when it is due only because its
 * process released everything: long enough for the reply a process
 * queues right after its release to carry the count (a ping-pong's
 * every message would else cost an update), short beside a round trip.
 */
#define TXRDMA_TX_ACK_DELAY_NS	(20 * NSEC_PER_USEC)

/*
 * Caller holds ep->lock, an update is due (txrdma_credit_rx_should_update()):
 * send it now?  Yes when the plain rule says so (a quarter of the ring,
 * or a sender that may be short of credits); one due only by a
 * session's rule waits TXRDMA_TX_ACK_DELAY_NS from when it was first
 * seen (txrdma_tx_ring_owes() keeps the poller awake meanwhile).
 */
static bool txrdma_tx_update_now(struct txrdma_ep *ep)
{
	u64 now;

	lockdep_assert_held(&ep->lock);
	if (!ep->crx.every_empty ||
	    txrdma_credit_rx_due(ep->rx_units, ep->crx.max_units, ep->crx.tail,
				 ep->crx.consumed, ep->crx.reported))
		return true;
	now = local_clock();
	if (!ep->rx_due_ns) {
		ep->rx_due_ns = now ?: 1;
		return false;
	}
	return now - ep->rx_due_ns >= TXRDMA_TX_ACK_DELAY_NS;
}

/**
 * txrdma_tx_ring_credits() - return credits our processes released
 * @ring: a ring; the poller holds ring->lock
 */
void txrdma_tx_ring_credits(struct txrdma_ring *ring)
{
	struct txrdma_ep *ep;
	unsigned long id;

	bool ok;

	xa_for_each(&ring->eps, id, ep) {
		ok = true;
		spin_lock_bh(&ep->lock);
		if (ep->dstate == TXRDMA_EP_CONNECTED && ep->conn) {
			txrdma_tx_take_release(ep);
			if (txrdma_credit_rx_should_update(&ep->crx) &&
			    txrdma_tx_update_now(ep))
				ok = txrdma_tx_credit_update(ep);
		}
		spin_unlock_bh(&ep->lock);
		if (!ok)
			txrdma_pair_close_qp(ep, -ECONNRESET);
	}
}

/*
 * Does an endpoint of @ring owe its peer credits?  (The poller must not
 * sleep then: the process released units and may wait for messages
 * that the peer can only send once it hears of them.)  ring->lock held.
 */
bool txrdma_tx_ring_owes(struct txrdma_ring *ring)
{
	struct txrdma_ep *ep;
	unsigned long id;
	u32 head, reported, tail;
	bool work = false;

	xa_for_each(&ring->eps, id, ep) {
		/* a session away from its QP sends no update until back */
		if (READ_ONCE(ep->dstate) != TXRDMA_EP_CONNECTED ||
		    !READ_ONCE(ep->sess_ready))
			continue;
		head = READ_ONCE(*txrdma_rx_word(ep, TXRDMA_RX_OFF_HEAD));
		/* the update rule (txrdma_credit_rx_should_update()), on a
		 * head the process could have written (else it is ignored),
		 * released ahead or not (it counts as far as frames arrived)
		 * where it may read ahead: a head ahead of the tail of one
		 * that may not is garbage txrdma_tx_take_release() ignores,
		 * and counting it would keep the poller awake for ever
		 */
		reported = READ_ONCE(ep->crx.reported);
		tail = READ_ONCE(ep->crx.tail);
		if ((s32)(head - tail) > 0 && READ_ONCE(ep->crx.ahead) &&
		    head - tail <= READ_ONCE(ep->rx_units))
			head = tail;
		if (head - reported <= tail - reported &&
		    txrdma_credit_rx_due(ep->rx_units,
					 txrdma_credit_rx_due_units(&ep->crx),
					 tail, head, reported))
			work = true;
	}
	return work;
}
