// SPDX-License-Identifier: GPL-2.0-only
/*
 * Endpoint pairs and SEND: the message data path.
 *
 * Pairing.  A process listens on a service (TXRDMA_IOC_EP_LISTEN) and
 * accepts endpoints (TXRDMA_IOC_EP_ACCEPT); a process on the peer host
 * connects (TXRDMA_IOC_EP_CONNECT).  The connector takes a ready QP
 * from the peer's pool, posts its receives and sends EP_CONNECT on the
 * control QP (service, its endpoint id, the QP's number, its receive
 * ring's address, key and size, a fresh epoch).  The acceptor's module
 * queues it on the listener; TXRDMA_IOC_EP_ACCEPT binds its own end of
 * that very QP (found by the remote QP number rdma_cm reported when it
 * connected) and answers EP_ACCEPT with the same for its side.  Keys
 * travel only between the two kernels.  Both sides may take QPs from
 * the same pool; the initiator takes from the front of its list and the
 * acceptor from the back, and when both took the same QP at once each
 * refuses the other's EP_CONNECT with -EBUSY and the connector retries
 * on another QP.
 *
 * SEND.  The poller (txrdma_poller.c) turns an SQE into one
 * WRITE_WITH_IMM with two SGEs: a 32-byte frame header built in a
 * DMA-mapped slot of the endpoint, then the payload straight from the
 * tenant's registered region, no copy.  It lands at the unit the credit
 * rules (txrdma_credit.c) give; the immediate data names that unit.
 * The CQE is written when the send completes.
 *
 * Receive.  The completion of the WRITE_WITH_IMM (softirq, through
 * ib_core's IB_POLL_SOFTIRQ polling with its budget and re-arm) reposts
 * the receive, checks the frame (CRC, endpoints, epoch, sequence,
 * placement) and only then release-stores the ring's tail: within one
 * RDMA WRITE the bytes are not ordered for the receiving CPU, the
 * completion is what proves the frame complete.  A frame that fails a
 * check is never published: the endpoint fails with -EPROTO and the
 * counter of its kind goes up.
 *
 * Credits.  Every frame returns the units our process released; an
 * idle receiver sends an explicit update (zero-length WRITE_WITH_IMM
 * with TXRDMA_IMM_CREDIT) once a quarter of its ring is unreported.
 * A SEND without credits (or without a free send slot) stays at the
 * head of its SQ, and the ring is skipped until an update or a
 * completion kicks the poller.
 *
 * Failure.  The pair's QP is its connection: when it errors, the peer
 * goes Down or either side destroys its endpoint (the QP is closed, so
 * the other side sees the disconnect), the endpoint is detached; every
 * SEND in flight completes at once with the error, late completions of
 * the dead QP are ignored, and the error is published in the receive
 * ring's header after the last frame.
 *
 * Lifetime.  The file holds a reference on the endpoint, and so does
 * the connection it was bound to, from the first posted work request
 * until its CQ is freed (txrdma_msg_conn_destroyed()), so a completion
 * never finds the endpoint gone.  ep->ring is cleared under ep->lock
 * when the endpoint is closed, before the file's rings are freed.
 *
 * Locking: peer->lock, then ep->lock, then ring->cq_lock (all _bh);
 * the poller holds ring->lock (mutex) while it processes the ring, and
 * endpoints join and leave ring->eps under it.
 */
#include <linux/crc32.h>
#include <linux/random.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>

#include "txrdma.h"
#include "txrdma_abi.h"
#include "txrdma_endpoint.h"
#include "txrdma_frame.h"
#include "txrdma_peer.h"
#include "txrdma_range.h"
#include "txrdma_region.h"
#include "txrdma_rings.h"
#include "txrdma_service.h"
#include "txrdma_tbucket.h"
#include "txrdma_tenant.h"

#define TXRDMA_MSG_TIMEOUT_MS	3000

/* The longest SEND a ring of @units takes: a frame of half of it. */
static u32 txrdma_msg_ring_max(u32 units)
{
	return min_t(u32, TXRDMA_FRAME_MAX_PAYLOAD,
		     units / 2 * TXRDMA_FRAME_UNIT - TXRDMA_FRAME_HDR_LEN);
}

#define TXRDMA_MSG_ATTEMPTS	4
/* requests one EP_ACCEPT may refuse before it gives up (-EAGAIN) */
#define TXRDMA_MSG_ACCEPT_TRIES	128

/* pairing messages from peers waiting for the work item, at most this many */
#define TXRDMA_MSG_RXQ_MAX	1024
static DEFINE_SPINLOCK(txrdma_msg_rxq_lock);
static LIST_HEAD(txrdma_msg_rxq);
static unsigned int txrdma_msg_rxq_len;
static void txrdma_msg_work_fn(struct work_struct *work);
static DECLARE_WORK(txrdma_msg_work, txrdma_msg_work_fn);

static u32 *txrdma_rx_word(struct txrdma_ep *ep, u32 off)
{
	return (u32 *)(ep->rx_base + off);
}

/* Caller holds ep->lock and ep->nfree > 0: a send slot, marked busy. */
static struct txrdma_msg_slot *txrdma_slot_get(struct txrdma_ep *ep)
{
	struct txrdma_msg_slot *s = &ep->slots[ep->free[--ep->nfree]];

	s->busy = true;
	return s;
}

/* Caller holds ep->lock: the slot is free again. */
static void txrdma_slot_put(struct txrdma_ep *ep, struct txrdma_msg_slot *s)
{
	s->busy = false;
	s->region = NULL;
	ep->free[ep->nfree++] = s - ep->slots;
}

/* ------------------------------------------------------------------ */
/* Completions into the process's ring                                 */

/* Caller holds ep->lock: complete a slot in flight and free it. */
static void txrdma_msg_slot_done(struct txrdma_ep *ep,
				 struct txrdma_msg_slot *s, int res)
{
	struct txrdma_ring *ring = ep->ring;

	if (s->kind != TXRDMA_SLOT_CREDIT) {
		if (ring)
			txrdma_ring_complete(ring, s->user_data, res, ep->id,
					     s->kind, s->no_cqe && res >= 0);
		txrdma_region_put_async(s->region);
	}
	txrdma_slot_put(ep, s);
}

/* Caller holds ep->lock: publish @error in the receive ring, once. */
static void txrdma_msg_rx_error_locked(struct txrdma_ep *ep, int error)
{
	lockdep_assert_held(&ep->lock);
	if (ep->rx_base && !READ_ONCE(*txrdma_rx_word(ep, TXRDMA_RX_OFF_ERROR)))
		/* after the last tail store: the process reads frames first */
		smp_store_release(txrdma_rx_word(ep, TXRDMA_RX_OFF_ERROR),
				  (u32)-error);
	if (ep->ring)
		wake_up_interruptible_poll(&ep->ring->wait,
					   EPOLLIN | EPOLLRDNORM);
}

/* Caller holds ep->lock: the endpoint fails; @error is negative. */
static void txrdma_msg_fail_locked(struct txrdma_ep *ep, int error)
{
	unsigned int i;

	lockdep_assert_held(&ep->lock);
	if (ep->dstate == TXRDMA_EP_CONNECTING) {
		ep->dstate = TXRDMA_EP_CLOSED;
		ep->result = error;
		wake_up(&ep->wait);
	}
	if (ep->dstate == TXRDMA_EP_CONNECTED) {
		ep->dstate = TXRDMA_EP_CLOSED;
		wake_up(&ep->wait);	/* an export waiting for its answer */
	}
	if (!READ_ONCE(ep->error))
		WRITE_ONCE(ep->error, error);
	if (!ep->slots)
		return;
	for (i = 0; i < TXRDMA_EP_SLOTS; i++)
		if (ep->slots[i].busy)
			txrdma_msg_slot_done(ep, &ep->slots[i], error);
	/*
	 * Frames the peer placed before its end may still wait in the CQ
	 * (a disconnect can overtake their completions): while our end of
	 * the QP is not drained they are still published, and the error
	 * word - which the process reads after the last frame - waits for
	 * the drain (txrdma_msg_conn_destroyed()).
	 */
	if (ep->held_by && !ep->rx_stop) {
		if (!ep->rx_error)
			ep->rx_error = error;
	} else {
		txrdma_msg_rx_error_locked(ep, error);
	}
	if (ep->ring)
		txrdma_poller_kick(ep->ring);
}

/**
 * txrdma_msg_detach_locked() - the pair's QP is gone or going
 * @ep: endpoint of a pair; caller holds its peer's lock and ep->lock
 *	and has already cleared ep->conn
 * @error: what its operations complete with
 */
void txrdma_msg_detach_locked(struct txrdma_ep *ep, int error)
{
	lockdep_assert_held(&ep->peer->lock);
	lockdep_assert_held(&ep->lock);
	txrdma_msg_fail_locked(ep, error);
}

/* ------------------------------------------------------------------ */
/* Work requests                                                       */

static void txrdma_msg_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct txrdma_msg_slot *s = container_of(wc->wr_cqe,
						 struct txrdma_msg_slot, cqe);
	struct txrdma_ep *ep = s->ep;

	spin_lock_bh(&ep->lock);
	/* a detach already completed every slot of the dead QP */
	if (!s->busy || !ep->conn) {
		spin_unlock_bh(&ep->lock);
		return;
	}
	if (wc->status != IB_WC_SUCCESS) {
		ep->stats.err_qp++;
		txrdma_msg_slot_done(ep, s, -ECONNRESET);
	} else {
		if (s->kind == TXRDMA_OP_SEND) {
			ep->stats.tx_msgs++;
			ep->stats.tx_bytes += s->len;
		} else if (s->kind != TXRDMA_SLOT_CREDIT) {
			ep->stats.rw_ops++;
			ep->stats.rw_bytes += s->len;
		}
		txrdma_msg_slot_done(ep, s, s->len);
	}
	if (ep->blocked) {
		ep->blocked = false;
		if (ep->ring)
			txrdma_poller_kick(ep->ring);
	}
	spin_unlock_bh(&ep->lock);
}

/* Caller holds ep->lock and ep->conn is set. */
static int txrdma_msg_post_recv(struct txrdma_ep *ep)
{
	struct ib_recv_wr wr = {
		.wr_cqe		= &ep->rx_cqe,
	};

	return ib_post_recv(ep->conn->qp, &wr, NULL);
}

/* Caller holds ep->lock: an explicit credit update, if a slot is free. */
static void txrdma_msg_send_credit(struct txrdma_ep *ep)
{
	struct txrdma_msg_slot *s;
	struct ib_rdma_wr wr = {};

	if (!ep->nfree || !ep->conn)
		return;
	s = txrdma_slot_get(ep);
	s->kind = TXRDMA_SLOT_CREDIT;
	s->len = 0;
	wr.wr.wr_cqe = &s->cqe;
	wr.wr.opcode = IB_WR_RDMA_WRITE_WITH_IMM;
	wr.wr.send_flags = IB_SEND_SIGNALED;
	wr.wr.ex.imm_data =
		cpu_to_be32(txrdma_imm_credit(txrdma_credit_rx_report(&ep->crx)));
	wr.remote_addr = ep->peer_addr;
	wr.rkey = ep->peer_rkey;
	if (ib_post_send(ep->conn->qp, &wr.wr, NULL)) {
		txrdma_slot_put(ep, s);
		return;
	}
	ep->stats.credit_updates++;
}

/* Caller holds ep->lock: take up what the process released. */
static void txrdma_msg_take_release(struct txrdma_ep *ep)
{
	u32 head = READ_ONCE(*txrdma_rx_word(ep, TXRDMA_RX_OFF_HEAD));

	if (head != ep->crx.consumed &&
	    txrdma_credit_rx_release(&ep->crx, head))
		ep->stats.err_sqe++;	/* garbage: ignored, counted */
}

static void txrdma_msg_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct txrdma_ep *ep = container_of(wc->wr_cqe, struct txrdma_ep,
					    rx_cqe);
	struct txrdma_frame f;
	u32 imm, unit, units, at;
	int err = 0;
	u8 *frame;

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
	if (!ep->held_by || ep->rx_stop)
		goto out;
	if (ep->conn && txrdma_msg_post_recv(ep))
		ep->stats.err_qp++;
	if (!(wc->wc_flags & IB_WC_WITH_IMM)) {
		ep->stats.err_proto++;
		err = -EPROTO;
		goto fail;
	}
	imm = be32_to_cpu(wc->ex.imm_data);
	if (txrdma_imm_is_credit(imm)) {
		if (txrdma_credit_tx_update(&ep->ctx,
					    txrdma_credit_unwrap31(ep->ctx.released,
								   txrdma_imm_value(imm)))) {
			ep->stats.err_proto++;
			err = -EPROTO;
			goto fail;
		}
		goto unblock;
	}
	unit = txrdma_imm_value(imm);
	if (unit >= ep->rx_units) {
		ep->stats.err_proto++;
		err = -EPROTO;
		goto fail;
	}
	frame = ep->rx_base + TXRDMA_RX_HDR_LEN + (size_t)unit * TXRDMA_FRAME_UNIT;
	units = txrdma_frame_units(wc->byte_len > TXRDMA_FRAME_HDR_LEN ?
				   wc->byte_len - TXRDMA_FRAME_HDR_LEN : 0);
	if (unit + units > ep->rx_units) {
		ep->stats.err_proto++;
		err = -EPROTO;
		goto fail;
	}
	err = txrdma_frame_decode(frame, wc->byte_len, &f);
	if (err) {
		if (err == -EBADMSG)
			ep->stats.err_crc++;
		else
			ep->stats.err_proto++;
		err = -EPROTO;
		goto fail;
	}
	if (ep->dstate == TXRDMA_EP_CONNECTING && !ep->peer_ep)
		ep->peer_ep = f.src_ep;
	/* units are rounded up: the declared length is the bound */
	if (f.dst_ep != ep->id || f.src_ep != ep->peer_ep ||
	    f.epoch != ep->epoch || f.len > ep->rx_max_msg) {
		ep->stats.err_proto++;
		err = -EPROTO;
		goto fail;
	}
	if (txrdma_frame_seq_check(ep->rx_seq, f.seq) != TXRDMA_SEQ_OK) {
		ep->stats.err_seq++;
		err = -EPROTO;
		goto fail;
	}
	at = ep->crx.tail & (ep->rx_units - 1);
	err = txrdma_credit_rx_frame(&ep->crx, unit, units);
	if (err) {
		ep->stats.err_proto++;
		err = -EPROTO;
		goto fail;
	}
	if (unit != at) {
		/* the sender skipped the ring's end: say so to the process */
		struct txrdma_frame_hdr *pad = (void *)(ep->rx_base +
			TXRDMA_RX_HDR_LEN + (size_t)at * TXRDMA_FRAME_UNIT);

		memset(pad, 0, sizeof(*pad));
		pad->type = TXRDMA_FRAME_PAD;
		pad->version = TXRDMA_FRAME_VERSION;
		pad->len = cpu_to_le32((ep->rx_units - at) * TXRDMA_FRAME_UNIT);
	}
	if (txrdma_credit_tx_update(&ep->ctx, f.consumed)) {
		ep->stats.err_proto++;
		err = -EPROTO;
		goto fail;
	}
	ep->rx_seq++;
	ep->stats.rx_msgs++;
	ep->stats.rx_bytes += f.len;
	/* the frame (and a PAD before it) is checked: publish it */
	smp_store_release(txrdma_rx_word(ep, TXRDMA_RX_OFF_TAIL), ep->crx.tail);
	if (ep->ring && wq_has_sleeper(&ep->ring->wait))
		wake_up_interruptible_poll(&ep->ring->wait,
					   EPOLLIN | EPOLLRDNORM);
unblock:
	if (ep->blocked) {
		ep->blocked = false;
		if (ep->ring)
			txrdma_poller_kick(ep->ring);
	}
	goto out;
fail:
	/* never delivered, nor anything after it */
	ep->rx_stop = true;
	txrdma_msg_fail_locked(ep, err);
	spin_unlock_bh(&ep->lock);
	/* and the QP closes, so the sender cannot wait on us forever */
	spin_lock_bh(&ep->peer->lock);
	if (ep->conn) {
		struct txrdma_conn *c = ep->conn;

		txrdma_ep_detach_locked(c, err);
		txrdma_peer_conn_done(ep->peer, c, TXRDMA_CONN_CLOSE);
	}
	spin_unlock_bh(&ep->peer->lock);
	return;
out:
	spin_unlock_bh(&ep->lock);
}

/*
 * Caller holds ep->lock: post @wr for slot @s of an SQE of @ring, with a
 * CQ slot reserved for its completion.  Return: TXRDMA_EXEC_ASYNC, or
 * -ECONNRESET when the QP refused it (its end reaches us as a detach);
 * the slot and the reservation are given back then, and the caller
 * drops its region reference.
 */
static int txrdma_msg_post(struct txrdma_ep *ep, struct txrdma_ring *ring,
			   struct txrdma_msg_slot *s, struct ib_rdma_wr *wr)
{
	txrdma_ring_reserve(ring);
	if (!ib_post_send(ep->conn->qp, &wr->wr, NULL))
		return TXRDMA_EXEC_ASYNC;
	txrdma_ring_unreserve(ring);
	txrdma_slot_put(ep, s);
	ep->stats.err_qp++;
	return -ECONNRESET;
}

/*
 * Caller holds ep->lock: take one operation and @len bytes from the
 * tenant's buckets.  Return: 0 (taken) or TXRDMA_EXEC_BLOCKED, with
 * ring->wake_ns set to when they will allow it; a wait is counted once
 * per SQE (ring->throttled), in the tenant's and the endpoint's
 * counters.
 */
static int txrdma_msg_admit(struct txrdma_ep *ep, struct txrdma_ring *ring,
			    u32 len)
{
	struct txrdma_tenant *t = ep->tenant;
	u64 now = ktime_get_ns(), w_ops, w_bw;

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

/* Caller holds ep->lock: give back what txrdma_msg_admit() took. */
static void txrdma_msg_unadmit(struct txrdma_ep *ep, u32 len)
{
	struct txrdma_tenant *t = ep->tenant;

	spin_lock(&t->lock);
	txrdma_tb_refund(&t->ops, 1);
	txrdma_tb_refund(&t->bw, len);
	spin_unlock(&t->lock);
}

/**
 * txrdma_msg_send() - execute a SEND SQE
 * @ring: the ring it came from; the poller holds ring->lock and has
 *	made sure the CQ has room for one more completion
 * @sqe: the SQE, copied and checked (txrdma_sqe_check())
 *
 * Return: TXRDMA_EXEC_ASYNC when posted (the CQE comes with the
 * completion), TXRDMA_EXEC_BLOCKED when it must wait for credits or a
 * send slot (nothing changed), else the negative errno of its CQE.
 */
int txrdma_msg_send(struct txrdma_ring *ring, const struct txrdma_sqe *sqe)
{
	struct txrdma_region *r;
	struct txrdma_msg_slot *s;
	struct txrdma_frame f = {};
	struct ib_rdma_wr wr = {};
	struct ib_sge sge[2];
	struct txrdma_ep *ep;
	u64 addr, hdr_dma;
	u8 *hdr;
	u32 lkey, unit;
	int ret;

	ep = xa_load(&ring->eps, sqe->ep);
	if (!ep)
		return -ENOENT;
	if (sqe->len > TXRDMA_FRAME_MAX_PAYLOAD)
		return -EMSGSIZE;
	/* the payload's registration on the pair's device (sleeps) */
	r = txrdma_region_resolve(ep->tenant, sqe->local_region,
				  sqe->local_off, sqe->len, ep->dev, &addr,
				  &lkey);
	if (IS_ERR(r))
		return PTR_ERR(r);

	spin_lock_bh(&ep->lock);
	ret = READ_ONCE(ep->error);
	if (ret || ep->dstate != TXRDMA_EP_CONNECTED || !ep->conn) {
		ret = ret ?: -ENOTCONN;
		goto out_put;
	}
	/* longer than the other side's process said it takes */
	if (sqe->len > ep->peer_max_msg) {
		ret = -EMSGSIZE;
		goto out_put;
	}
	if (!ep->nfree) {
		ep->stats.slot_stalls++;
		ep->blocked = true;
		ret = TXRDMA_EXEC_BLOCKED;
		goto out_put;
	}
	ret = txrdma_msg_admit(ep, ring, sqe->len);
	if (ret)
		goto out_put;
	ret = txrdma_credit_place(&ep->ctx, txrdma_frame_units(sqe->len),
				  &unit);
	if (ret == -ENOSPC) {
		txrdma_msg_unadmit(ep, sqe->len);
		ep->stats.credit_stalls++;
		ep->blocked = true;
		ret = TXRDMA_EXEC_BLOCKED;
		goto out_put;
	}
	if (ret) {
		/* -EMSGSIZE: more than the peer ring takes */
		txrdma_msg_unadmit(ep, sqe->len);
		goto out_put;
	}

	s = txrdma_slot_get(ep);
	s->kind = TXRDMA_OP_SEND;
	s->region = r;
	s->user_data = sqe->user_data;
	s->len = sqe->len;
	s->no_cqe = sqe->flags & TXRDMA_SQE_F_NO_CQE;
	txrdma_msg_take_release(ep);
	f = (struct txrdma_frame) {
		.type		= TXRDMA_FRAME_MSG,
		.src_ep		= ep->id,
		.dst_ep		= ep->peer_ep,
		.seq		= ep->tx_seq,
		.len		= sqe->len,
		.consumed	= txrdma_credit_rx_report(&ep->crx),
		.epoch		= ep->epoch,
	};
	hdr = (u8 *)ep->hdrs + (s - ep->slots) * TXRDMA_FRAME_HDR_LEN;
	txrdma_frame_encode(&f, NULL, hdr);
	if (ep->flags & TXRDMA_EP_F_DATA_CRC) {
		/* end to end: the CRC covers the payload where it lies */
		u32 crc;

		hdr[offsetof(struct txrdma_frame_hdr, flags)] =
			TXRDMA_FRAME_F_DATA_CRC;
		crc = txrdma_frame_crc_begin(hdr);
		crc = txrdma_region_crc32c(r, sqe->local_off, sqe->len, crc);
		txrdma_frame_crc_end(hdr, crc);
	}
	hdr_dma = ep->hdrs_dma + (s - ep->slots) * TXRDMA_FRAME_HDR_LEN;
	ib_dma_sync_single_for_device(ep->conn->dev->ibdev, hdr_dma,
				      TXRDMA_FRAME_HDR_LEN, DMA_TO_DEVICE);
	sge[0] = (struct ib_sge) {
		.addr	= hdr_dma,
		.length	= TXRDMA_FRAME_HDR_LEN,
		.lkey	= ep->conn->dev->reg.pd->local_dma_lkey,
	};
	sge[1] = (struct ib_sge) {
		.addr	= addr,
		.length	= sqe->len,
		.lkey	= lkey,
	};
	wr.wr.wr_cqe = &s->cqe;
	wr.wr.sg_list = sge;
	wr.wr.num_sge = sqe->len ? 2 : 1;
	wr.wr.opcode = IB_WR_RDMA_WRITE_WITH_IMM;
	wr.wr.send_flags = IB_SEND_SIGNALED |
			    (sqe->flags & TXRDMA_SQE_F_FENCE ? IB_SEND_FENCE : 0);
	wr.wr.ex.imm_data = cpu_to_be32(txrdma_imm_frame(unit));
	wr.remote_addr = ep->peer_addr + (u64)unit * TXRDMA_FRAME_UNIT;
	wr.rkey = ep->peer_rkey;
	ret = txrdma_msg_post(ep, ring, s, &wr);
	if (ret != TXRDMA_EXEC_ASYNC)
		goto out_put;
	ep->tx_seq++;
	spin_unlock_bh(&ep->lock);
	return ret;

out_put:
	spin_unlock_bh(&ep->lock);
	txrdma_region_put_async(r);
	return ret;
}

/*
 * Caller holds ep->lock: the import holding [@off, @off + @len) of the
 * other side's region @id.  Return: it, or ERR_PTR(-EPERM) when
 * nothing of the region is exported to us, ERR_PTR(-EFAULT) when the
 * range is not inside one export of it.
 */
static struct txrdma_import *txrdma_msg_import(struct txrdma_ep *ep, u32 id,
					       u64 off, u32 len)
{
	struct txrdma_import *imp = ERR_PTR(-EPERM);
	unsigned int i;

	for (i = 0; i < ep->nimports; i++) {
		struct txrdma_import *m = &ep->imports[i];

		if (m->region != id)
			continue;
		if (txrdma_range_within(off, len, m->off, m->len))
			return m;
		imp = ERR_PTR(-EFAULT);
	}
	return imp;
}

/*
 * Caller holds ep->lock: the import of exactly that range, or NULL;
 * *@overlap tells whether another import of the region overlaps it.
 */
static struct txrdma_import *txrdma_msg_import_exact(struct txrdma_ep *ep,
						     u32 id, u64 off, u64 len,
						     bool *overlap)
{
	unsigned int i;

	*overlap = false;
	for (i = 0; i < ep->nimports; i++) {
		struct txrdma_import *m = &ep->imports[i];

		if (m->region != id)
			continue;
		if (m->off == off && m->len == len)
			return m;
		if (txrdma_range_overlap(off, len, m->off, m->len))
			*overlap = true;
	}
	return NULL;
}

/**
 * txrdma_msg_rw() - execute a READ or WRITE SQE
 * @ring: as txrdma_msg_send()
 * @sqe: the SQE
 *
 * The remote region must have been exported to this endpoint pair by
 * the other side (-EPERM otherwise, or for an access it did not give);
 * the local one must be our tenant's (-ENOENT).  Both ranges are
 * checked (-EFAULT).
 *
 * Return: as txrdma_msg_send().
 */
int txrdma_msg_rw(struct txrdma_ring *ring, const struct txrdma_sqe *sqe)
{
	bool read = sqe->opcode == TXRDMA_OP_READ;
	struct txrdma_import *imp;
	struct txrdma_region *r;
	struct txrdma_msg_slot *s;
	struct ib_rdma_wr wr = {};
	struct txrdma_ep *ep;
	struct ib_sge sge;
	u32 lkey;
	u64 addr;
	int ret;

	ep = xa_load(&ring->eps, sqe->ep);
	if (!ep)
		return -ENOENT;
	r = txrdma_region_resolve(ep->tenant, sqe->local_region,
				  sqe->local_off, sqe->len, ep->dev, &addr,
				  &lkey);
	if (IS_ERR(r))
		return PTR_ERR(r);

	spin_lock_bh(&ep->lock);
	ret = READ_ONCE(ep->error);
	if (ret || ep->dstate != TXRDMA_EP_CONNECTED || !ep->conn) {
		ret = ret ?: -ENOTCONN;
		goto out_put;
	}
	imp = txrdma_msg_import(ep, sqe->remote_region, sqe->remote_off,
				sqe->len);
	if (IS_ERR(imp)) {
		ret = PTR_ERR(imp);
		goto out_put;
	}
	ret = -EPERM;
	if (!(imp->access & (read ? TXRDMA_EXPORT_READ : TXRDMA_EXPORT_WRITE)))
		goto out_put;
	if (!ep->nfree) {
		ep->stats.slot_stalls++;
		ep->blocked = true;
		ret = TXRDMA_EXEC_BLOCKED;
		goto out_put;
	}
	ret = txrdma_msg_admit(ep, ring, sqe->len);
	if (ret)
		goto out_put;
	s = txrdma_slot_get(ep);
	s->kind = sqe->opcode;
	s->region = r;
	s->user_data = sqe->user_data;
	s->len = sqe->len;
	s->no_cqe = sqe->flags & TXRDMA_SQE_F_NO_CQE;
	sge = (struct ib_sge) {
		.addr	= addr,
		.length	= sqe->len,
		.lkey	= lkey,
	};
	wr.wr.wr_cqe = &s->cqe;
	wr.wr.sg_list = &sge;
	wr.wr.num_sge = sqe->len ? 1 : 0;
	wr.wr.opcode = read ? IB_WR_RDMA_READ : IB_WR_RDMA_WRITE;
	wr.wr.send_flags = IB_SEND_SIGNALED |
			    (sqe->flags & TXRDMA_SQE_F_FENCE ? IB_SEND_FENCE : 0);
	wr.remote_addr = imp->addr + (sqe->remote_off - imp->off);
	wr.rkey = imp->rkey;
	ret = txrdma_msg_post(ep, ring, s, &wr);
	if (ret != TXRDMA_EXEC_ASYNC)
		goto out_put;
	spin_unlock_bh(&ep->lock);
	return ret;

out_put:
	spin_unlock_bh(&ep->lock);
	txrdma_region_put_async(r);
	return ret;
}

/**
 * txrdma_msg_ring_credits() - return credits our processes released
 * @ring: a ring; the poller holds ring->lock
 */
void txrdma_msg_ring_credits(struct txrdma_ring *ring)
{
	struct txrdma_ep *ep;
	unsigned long id;

	xa_for_each(&ring->eps, id, ep) {
		spin_lock_bh(&ep->lock);
		if (ep->dstate == TXRDMA_EP_CONNECTED && ep->conn) {
			txrdma_msg_take_release(ep);
			if (txrdma_credit_rx_should_update(&ep->crx))
				txrdma_msg_send_credit(ep);
		}
		spin_unlock_bh(&ep->lock);
	}
}

/*
 * Does an endpoint of @ring owe its peer credits?  (The poller must not
 * sleep then: the process released units and may wait for messages
 * that the peer can only send once it hears of them.)  ring->lock held.
 */
bool txrdma_msg_ring_work(struct txrdma_ring *ring)
{
	struct txrdma_ep *ep;
	unsigned long id;
	u32 head, reported, tail;
	bool work = false;

	xa_for_each(&ring->eps, id, ep) {
		if (READ_ONCE(ep->dstate) != TXRDMA_EP_CONNECTED)
			continue;
		head = READ_ONCE(*txrdma_rx_word(ep, TXRDMA_RX_OFF_HEAD));
		/* the update rule (txrdma_credit_rx_should_update()), on a
		 * head the process could have written (else it is ignored)
		 */
		reported = READ_ONCE(ep->crx.reported);
		tail = READ_ONCE(ep->crx.tail);
		if (head - reported <= tail - reported &&
		    txrdma_credit_rx_due(ep->rx_units, ep->crx.max_units,
					 tail, head, reported))
			work = true;
	}
	return work;
}

/* Has an endpoint of @ring a message its process has not released? */
bool txrdma_msg_ring_readable(struct txrdma_ring *ring)
{
	struct txrdma_ep *ep;
	unsigned long id;
	bool ready = false;

	mutex_lock(&ring->lock);
	xa_for_each(&ring->eps, id, ep) {
		/* a tail that moves is a frame published: see it whole */
		if (smp_load_acquire(txrdma_rx_word(ep, TXRDMA_RX_OFF_TAIL)) !=
		    READ_ONCE(*txrdma_rx_word(ep, TXRDMA_RX_OFF_HEAD)) ||
		    READ_ONCE(*txrdma_rx_word(ep, TXRDMA_RX_OFF_ERROR)))
			ready = true;
	}
	mutex_unlock(&ring->lock);
	return ready;
}

/* ------------------------------------------------------------------ */
/* Binding an endpoint to a pooled QP                                  */

/* Allocate what the data path of @ep needs (process context). */
static int txrdma_msg_alloc(struct txrdma_ep *ep)
{
	unsigned int i;

	ep->slots = kcalloc(TXRDMA_EP_SLOTS, sizeof(*ep->slots),
			    GFP_KERNEL_ACCOUNT);
	ep->hdrs = kzalloc(TXRDMA_EP_SLOTS * TXRDMA_FRAME_HDR_LEN,
			   GFP_KERNEL_ACCOUNT);
	if (!ep->slots || !ep->hdrs)
		return -ENOMEM;
	for (i = 0; i < TXRDMA_EP_SLOTS; i++) {
		ep->slots[i].cqe.done = txrdma_msg_send_done;
		ep->slots[i].ep = ep;
		ep->free[i] = TXRDMA_EP_SLOTS - 1 - i;
	}
	ep->nfree = TXRDMA_EP_SLOTS;
	ep->rx_cqe.done = txrdma_msg_recv_done;
	return 0;
}

/* Freed with the endpoint's last reference. */
void txrdma_msg_free(struct txrdma_ep *ep)
{
	unsigned int i;

	for (i = 0; i < TXRDMA_EP_MAX_EXPORTS; i++) {
		struct txrdma_export *x = &ep->exports[i];

		if (!x->r)
			continue;
		txrdma_region_use_del(x->r, &x->use);
		txrdma_region_put_async(x->r);
	}
	kfree(ep->slots);
	kfree(ep->hdrs);
	if (ep->rx_region) {
		txrdma_region_use_del(ep->rx_region, &ep->rx_use);
		txrdma_region_put_async(ep->rx_region);
	}
	if (ep->poller)
		txrdma_poller_put(ep->poller);
}

/*
 * Caller holds peer->lock: bind @c to @ep, map the headers on its
 * device, post the receives.  From here on @c holds a reference on @ep.
 */
static int txrdma_msg_bind_locked(struct txrdma_ep *ep, struct txrdma_conn *c)
{
	struct ib_device *ibdev = c->dev->ibdev;
	unsigned int i;
	int ret;

	lockdep_assert_held(&c->peer->lock);
	ep->hdrs_dma = ib_dma_map_single(ibdev, ep->hdrs,
					 TXRDMA_EP_SLOTS * TXRDMA_FRAME_HDR_LEN,
					 DMA_TO_DEVICE);
	if (ib_dma_mapping_error(ibdev, ep->hdrs_dma))
		return -ENOMEM;
	kref_get(&ep->ref);
	c->held_ep = ep;
	ep->held_by = c;
	c->ep = ep;
	/* the device may go before the ring joins: hold its poller */
	if (!ep->poller)
		ep->poller = txrdma_poller_get(c->dev->poller);
	ret = 0;
	spin_lock(&ep->lock);
	ep->conn = c;	/* under both locks: see txrdma_ep_detach_locked() */
	ep->qp_num = c->qp->qp_num;
	ep->dev = c->dev;
	for (i = 0; i < TXRDMA_EP_RECVS && !ret; i++)
		ret = txrdma_msg_post_recv(ep);
	spin_unlock(&ep->lock);
	return ret;
}

/*
 * Take a ready pooled QP of @peer for a connecting @ep (@remote_qpn 0),
 * or the QP whose other end has number @remote_qpn for an accepting
 * one.  Return: 0, -ENOTCONN (peer not Up), -EAGAIN (no ready QP),
 * -EBUSY (that QP is taken), -ENOENT (no such QP).
 */
static int txrdma_msg_take(struct txrdma_peer *peer, struct txrdma_ep *ep,
			   u32 remote_qpn)
{
	struct txrdma_conn *c, *found = NULL;
	int ret = 0;

	spin_lock_bh(&peer->lock);
	if (peer->dying || peer->bfd.state != TXRDMA_BFD_UP) {
		ret = -ENOTCONN;
		goto out;
	}
	/* a forced tenant deletion failed it before it had a QP */
	ret = READ_ONCE(ep->error);
	if (ret)
		goto out;
	list_for_each_entry(c, &peer->conns, node) {
		if (remote_qpn) {
			if (c->kind != TXRDMA_CONN_POOL ||
			    c->state != TXRDMA_CONN_READY || c->dead ||
			    c->remote_qpn != remote_qpn)
				continue;
			found = c;
			break;
		}
		if (!txrdma_conn_lendable(c))
			continue;
		found = c;
		/* the initiator takes the first, the acceptor the last */
		if (peer->role != TXRDMA_PEER_ROLE_ACCEPTOR)
			break;
	}
	if (!found) {
		ret = remote_qpn ? -ENOENT : -EAGAIN;
		/* counts the miss: the pool grows */
		if (!remote_qpn && !peer->pool.ready)
			txrdma_pool_take(&peer->pool, ktime_get_ns());
		goto kick;
	}
	if (found->ep || found->held_ep) {
		ret = -EBUSY;
		goto out;
	}
	if (found->acct == TXRDMA_ACCT_READY) {
		ret = txrdma_pool_take(&peer->pool, ktime_get_ns());
		if (ret)
			goto out;
		found->acct = TXRDMA_ACCT_IN_USE;
	}
	ret = txrdma_msg_bind_locked(ep, found);
	if (ret) {
		/*
		 * Whether or not it got as far as binding, the QP is
		 * counted in use: close it, so the pool neither lends it
		 * again nor counts it forever.
		 */
		if (ep->conn)
			txrdma_ep_detach_locked(found, -EIO);
		txrdma_peer_conn_done(peer, found, TXRDMA_CONN_CLOSE);
	}
kick:
	txrdma_peer_kick(peer);
out:
	spin_unlock_bh(&peer->lock);
	return ret;
}

/* Look up the rx ring of a connect or accept request; holds the region. */
static int txrdma_msg_rx_setup(struct txrdma_ep *ep,
			       const struct txrdma_ep_connect *req)
{
	u64 len = TXRDMA_RX_HDR_LEN + (u64)req->rx_units * TXRDMA_FRAME_UNIT;
	void *kaddr;
	int ret;

	ep->rx_region = txrdma_region_rx_ring(ep->tenant, req->rx_region,
					      req->rx_off, len, &kaddr);
	if (IS_ERR(ep->rx_region)) {
		ret = PTR_ERR(ep->rx_region);
		ep->rx_region = NULL;
		return ret;
	}
	/*
	 * Never where the other side of an export, or of another ring's
	 * pair, could write (-EADDRINUSE)
	 */
	ret = txrdma_region_use_add(ep->rx_region, &ep->rx_use, req->rx_off,
				    len, true);
	if (ret)
		return ret;
	ep->rx_base = kaddr;
	ep->rx_units = req->rx_units;
	ep->flags = req->flags;
	ep->service = req->service;
	/* a fresh ring: nothing published, nothing released, no error */
	memset(ep->rx_base, 0, TXRDMA_RX_HDR_LEN);
	ret = txrdma_credit_rx_init(&ep->crx, ep->rx_units);
	if (ret)
		return ret;
	/*
	 * No SEND carries more than TXRDMA_FRAME_MAX_PAYLOAD, nor more
	 * than our process declared: a smaller bound makes the credit
	 * rule's "the sender may be stuck" case rare (txrdma_credit_rx_due)
	 * and frames above it are refused.
	 */
	ep->rx_max_msg = txrdma_msg_ring_max(ep->rx_units);
	if (req->rx_max_msg)
		ep->rx_max_msg = req->rx_max_msg;
	txrdma_credit_rx_max_frame(&ep->crx,
				   txrdma_frame_units(ep->rx_max_msg));
	return 0;
}

/*
 * After binding: a registration of our ring's units, and only them,
 * for the peer to write (txrdma_region_expose()); it dies with the
 * pair's QP (txrdma_msg_conn_destroyed()).
 */
static int txrdma_msg_rx_keys(struct txrdma_ep *ep,
			      const struct txrdma_ep_connect *req)
{
	struct txrdma_mr *m;
	bool gone;

	m = txrdma_region_expose(ep->rx_region, ep->dev,
				 req->rx_off + TXRDMA_RX_HDR_LEN,
				 (u64)ep->rx_units * TXRDMA_FRAME_UNIT,
				 IB_ACCESS_REMOTE_WRITE);
	if (IS_ERR(m))
		return PTR_ERR(m);
	spin_lock_bh(&ep->lock);
	gone = ep->mrs_gone;
	if (!gone) {
		ep->rx_mr = m;
		ep->rx_addr = m->mr->iova;
		ep->rx_rkey = m->mr->rkey;
	}
	spin_unlock_bh(&ep->lock);
	if (gone) {
		/* the QP died meanwhile: nobody may reach the ring */
		txrdma_mr_free(m);
		return -ENOTCONN;
	}
	return 0;
}

static int txrdma_msg_check(const struct txrdma_ep_connect *req, bool accept)
{
	if (req->flags & ~TXRDMA_EP_F_ALL || !req->service || req->id ||
	    req->peer_ep || req->qp_num || req->max_msg ||
	    req->resv[0] || req->resv[1])
		return -EINVAL;
	if (req->rx_units < TXRDMA_RX_MIN_UNITS ||
	    req->rx_units > TXRDMA_RX_MAX_UNITS ||
	    !is_power_of_2(req->rx_units) ||
	    req->rx_off % TXRDMA_FRAME_UNIT ||
	    req->rx_max_msg > txrdma_msg_ring_max(req->rx_units))
		return -EINVAL;
	if (!accept && (!req->peer[0] ||
			!memchr(req->peer, 0, sizeof(req->peer))))
		return -EINVAL;
	if (accept && memchr_inv(req->peer, 0, sizeof(req->peer)))
		return -EINVAL;
	return 0;
}

/* Both sides agree on the pair: the peer's ring and our credits. */
static int txrdma_msg_pair(struct txrdma_ep *ep, const struct txrdma_ctrl_ep *e)
{
	/* frames that came first named the endpoint: it must be this one */
	if (ep->peer_ep && ep->peer_ep != e->src_ep)
		return -EPROTO;
	ep->peer_ep = e->src_ep;
	ep->peer_addr = e->ring_addr;
	ep->peer_rkey = e->ring_rkey;
	ep->peer_units = e->ring_units;
	ep->peer_max_msg = e->max_msg;
	return txrdma_credit_tx_init(&ep->ctx, e->ring_units);
}

static u32 txrdma_msg_max(const struct txrdma_ep *ep)
{
	/* what the peer's ring takes and its process declared (checked) */
	return min(txrdma_msg_ring_max(ep->peer_units), ep->peer_max_msg);
}

/* Join the file's ring: the poller may now see SQEs for it. */
static int txrdma_msg_join(struct txrdma_ring *ring, struct txrdma_ep *ep)
{
	int ret;

	mutex_lock(&ring->lock);
	ret = xa_insert(&ring->eps, ep->id, ep, GFP_KERNEL_ACCOUNT);
	mutex_unlock(&ring->lock);
	/* the first pair's device's poller serves the ring from now on */
	if (!ret && ep->poller)
		txrdma_poller_bind(ring, ep->poller);
	return ret;
}

static void txrdma_msg_reject(struct txrdma_peer *peer,
			      const struct txrdma_ctrl_ep *in, int status)
{
	struct txrdma_ctrl_ep e = {
		.type		= TXRDMA_CTRL_EP_REJECT,
		.service	= in->service,
		.src_ep		= U32_MAX,	/* no endpoint of ours */
		.dst_ep		= in->src_ep,
		.epoch		= in->epoch,
		.status		= status,
	};

	txrdma_ctrl_send_ep(peer, &e);
}

/* A new endpoint of @tf for @req; on success it is published. */
static struct txrdma_ep *txrdma_msg_new_ep(struct txrdma_file *tf,
					   struct txrdma_peer *peer,
					   const struct txrdma_ep_connect *req)
{
	struct txrdma_tenant *t;
	struct txrdma_ep *ep;
	int ret;

	t = txrdma_tenant_get_current();
	if (IS_ERR(t)) {
		txrdma_peer_put(peer);
		return ERR_CAST(t);
	}
	ep = txrdma_ep_new(tf, peer, t);
	if (IS_ERR(ep)) {
		txrdma_peer_put(peer);
		txrdma_tenant_put(t);
		return ep;
	}
	ep->dstate = TXRDMA_EP_CONNECTING;
	/* pairs with the release in txrdma_ioctl_ring_setup() */
	ep->ring = smp_load_acquire(&tf->ring);
	ret = txrdma_msg_alloc(ep);
	if (!ret)
		ret = txrdma_msg_rx_setup(ep, req);
	if (!ret)
		ret = txrdma_ep_publish(ep);
	if (ret) {
		txrdma_ep_discard(ep);
		return ERR_PTR(ret);
	}
	return ep;
}

static long txrdma_msg_reply(struct txrdma_ep *ep, struct txrdma_ep_connect *req,
			     void __user *uarg)
{
	req->id = ep->id;
	req->peer_ep = ep->peer_ep;
	req->qp_num = ep->qp_num;
	req->max_msg = txrdma_msg_max(ep);
	req->rx_max_msg = ep->rx_max_msg;
	if (copy_to_user(uarg, req, sizeof(*req))) {
		txrdma_ep_discard(ep);
		txrdma_ep_put(ep);
		return -EFAULT;
	}
	txrdma_ep_put(ep);
	return 0;
}

/*
 * One attempt of a connect, waiting up to @tmo for the answer; *@paired
 * set when the other side accepted (an error is then the pair's end,
 * not a reason to try again).  Return: 0, -EBUSY (retry) or -errno.
 */
static int txrdma_msg_connect_once(struct txrdma_file *tf,
				   struct txrdma_peer *peer,
				   struct txrdma_ep_connect *req,
				   unsigned long tmo, struct txrdma_ep **epp,
				   bool *paired)
{
	struct txrdma_ctrl_ep e = {};
	struct txrdma_ep *ep;
	u32 qp_num = 0;
	long left;
	int ret;

	kref_get(&peer->ref);
	ep = txrdma_msg_new_ep(tf, peer, req);
	if (IS_ERR(ep))
		return PTR_ERR(ep);
	kref_get(&ep->ref);	/* ours, while we wait */
	ep->epoch = get_random_u32() | 1;
	ret = txrdma_msg_take(peer, ep, 0);
	if (!ret)
		ret = txrdma_msg_rx_keys(ep, req);
	if (!ret) {
		/* a detach may have taken the QP meanwhile */
		spin_lock_bh(&ep->lock);
		qp_num = ep->qp_num;
		spin_unlock_bh(&ep->lock);
		if (!qp_num)
			ret = -ECONNRESET;
	}
	if (ret)
		goto fail;
	e = (struct txrdma_ctrl_ep) {
		.type		= TXRDMA_CTRL_EP_CONNECT,
		.service	= req->service,
		.src_ep		= ep->id,
		.qp_num		= qp_num,
		.epoch		= ep->epoch,
		.ring_units	= ep->rx_units,
		.max_msg	= ep->rx_max_msg,
		.ring_addr	= ep->rx_addr,
		.ring_rkey	= ep->rx_rkey,
	};
	/* services are per tenant: the other side looks ours up by name */
	strscpy(e.tenant, ep->tenant->name, sizeof(e.tenant));
	ret = txrdma_ctrl_send_ep(peer, &e);
	if (ret)
		goto fail;
	left = wait_event_interruptible_timeout(ep->wait, READ_ONCE(ep->dstate) !=
						TXRDMA_EP_CONNECTING, tmo);
	spin_lock_bh(&ep->lock);
	if (ep->dstate == TXRDMA_EP_CONNECTED)
		ret = 0;
	else if (ep->dstate != TXRDMA_EP_CONNECTING)
		ret = ep->result ?: -ECONNRESET;
	else
		ret = left < 0 ? -EINTR : -ETIMEDOUT;
	/*
	 * Paired, then closed by the other side before we returned: the
	 * pair was made, so this is its end (-ECONNRESET), never a
	 * reason to pair again with another accept.
	 */
	if (ret && ep->accepted) {
		ret = -ECONNRESET;
		*paired = true;
	}
	spin_unlock_bh(&ep->lock);
	if (ret)
		goto fail;
	ret = txrdma_msg_join(ep->ring, ep);
	if (!ret)
		ret = txrdma_ep_adopt(tf, ep);
	if (ret)
		goto fail;
	*epp = ep;
	return 0;

fail:
	txrdma_ep_discard(ep);
	txrdma_ep_put(ep);
	return ret;
}

long txrdma_ioctl_ep_connect(struct txrdma_file *tf, void __user *uarg)
{
	struct txrdma_ep_connect req;
	struct txrdma_peer *peer;
	struct txrdma_ep *ep = NULL;
	unsigned long deadline;
	long left;
	int ret, i;

	if (copy_from_user(&req, uarg, sizeof(req)))
		return -EFAULT;
	ret = txrdma_msg_check(&req, false);
	if (ret)
		return ret;
	/* completions need the rings (release in txrdma_ioctl_ring_setup) */
	if (!smp_load_acquire(&tf->ring))
		return -ENXIO;
	peer = txrdma_peer_get_name((char *)req.peer);
	if (!peer)
		return -ENOENT;
	deadline = jiffies + msecs_to_jiffies(req.timeout_ms ?:
					      TXRDMA_MSG_TIMEOUT_MS);
	for (;;) {
		/*
		 * -EBUSY: both sides took that QP; -ECONNRESET: the
		 * acceptor gave it up while pairing (its refusal's reason
		 * may come after the disconnect).  Nothing was exchanged
		 * yet: another QP may do.
		 */
		for (i = 0; i < TXRDMA_MSG_ATTEMPTS; i++) {
			bool paired = false;

			left = (long)(deadline - jiffies);
			ret = txrdma_msg_connect_once(tf, peer, &req,
						      max(left, 1L), &ep,
						      &paired);
			if ((ret != -EBUSY && ret != -ECONNRESET) || paired ||
			    signal_pending(current))
				break;
		}
		/*
		 * The peer is not Up yet, or its pool has no ready QP
		 * (right after "peer add", or while it grows): wait for
		 * one within the same timeout, unless told not to.
		 */
		if ((ret != -ENOTCONN && ret != -EAGAIN) ||
		    (req.flags & TXRDMA_EP_F_NOWAIT))
			break;
		left = (long)(deadline - jiffies);
		if (left <= 0)
			break;
		left = wait_event_interruptible_timeout(peer->lend_wait,
							txrdma_peer_may_lend(peer),
							left);
		if (left < 0 || signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		if (!left)
			break;	/* the last refusal says why */
		if (READ_ONCE(peer->dying)) {
			ret = -ENOENT;	/* deleted while we waited */
			break;
		}
		cond_resched();
	}
	txrdma_peer_put(peer);
	if (ret)
		return ret;
	return txrdma_msg_reply(ep, &req, uarg);
}

static void txrdma_msg_req_free(struct txrdma_pair_req *r)
{
	txrdma_peer_put(r->peer);
	kfree(r);
}

long txrdma_ioctl_ep_accept(struct txrdma_file *tf, void __user *uarg)
{
	unsigned long deadline;
	struct txrdma_ep_connect req;
	struct txrdma_ctrl_ep e;
	struct txrdma_pair_req *r;
	struct txrdma_tenant *t;
	unsigned int refused = 0;
	struct txrdma_ep *ep;
	int ret;

	if (copy_from_user(&req, uarg, sizeof(req)))
		return -EFAULT;
	ret = txrdma_msg_check(&req, true);
	if (ret)
		return ret;
	/* completions need the rings (release in txrdma_ioctl_ring_setup) */
	if (!smp_load_acquire(&tf->ring))
		return -ENXIO;
	t = txrdma_tenant_get_current();
	if (IS_ERR(t))
		return PTR_ERR(t);
	deadline = jiffies + msecs_to_jiffies(req.timeout_ms ?:
					      TXRDMA_MSG_TIMEOUT_MS);
	for (;;) {
		long tmo = (long)(deadline - jiffies);

		/* only our tenant's service, as only our tenant's peers
		 * could name it (txrdma_service.c)
		 */
		ret = txrdma_service_next(tf, t, req.service,
					  tmo > 0 ? tmo : 1, &r);
		if (ret)
			break;
		kref_get(&r->peer->ref);
		ep = txrdma_msg_new_ep(tf, r->peer, &req);
		if (IS_ERR(ep)) {
			/* our own trouble (quota, ring): tell both sides */
			txrdma_msg_reject(r->peer, &r->e, PTR_ERR(ep));
			txrdma_msg_req_free(r);
			ret = PTR_ERR(ep);
			break;
		}
		kref_get(&ep->ref);
		ep->epoch = r->e.epoch;
		/* a process that changed cgroups meanwhile serves nobody */
		ret = ep->tenant == t ? 0 : -EPERM;
		if (!ret)
			ret = txrdma_msg_pair(ep, &r->e);
		if (!ret)
			ret = txrdma_msg_take(r->peer, ep, r->e.qp_num);
		if (!ret)
			ret = txrdma_msg_rx_keys(ep, &req);
		if (!ret) {
			spin_lock_bh(&ep->lock);
			ep->dstate = TXRDMA_EP_CONNECTED;
			spin_unlock_bh(&ep->lock);
			ret = txrdma_msg_join(ep->ring, ep);
		}
		if (!ret)
			ret = txrdma_ep_adopt(tf, ep);
		if (!ret) {
			e = (struct txrdma_ctrl_ep) {
				.type		= TXRDMA_CTRL_EP_ACCEPT,
				.service	= r->e.service,
				.src_ep		= ep->id,
				.dst_ep		= r->e.src_ep,
				.qp_num		= ep->qp_num,
				.epoch		= ep->epoch,
				.ring_units	= ep->rx_units,
				.max_msg	= ep->rx_max_msg,
				.ring_addr	= ep->rx_addr,
				.ring_rkey	= ep->rx_rkey,
			};
			strscpy(e.tenant, t->name, sizeof(e.tenant));
			ret = txrdma_ctrl_send_ep(r->peer, &e);
		}
		if (!ret) {
			strscpy(req.peer, r->peer->name, sizeof(req.peer));
			txrdma_msg_req_free(r);
			txrdma_tenant_put(t);
			return txrdma_msg_reply(ep, &req, uarg);
		}
		/* that request cannot be served: refuse it, take the next */
		/* -ENOENT: our end is not established yet; -EBUSY: taken */
		txrdma_msg_reject(r->peer, &r->e, ret == -ENOENT ? -EBUSY :
				  ret);
		txrdma_msg_req_free(r);
		txrdma_ep_discard(ep);
		txrdma_ep_put(ep);
		/*
		 * A peer can keep the backlog full of requests that fail:
		 * the caller's deadline, its signals and a bound on the
		 * refusals end the call all the same.
		 */
		if (signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		if (time_after_eq(jiffies, deadline)) {
			ret = -ETIMEDOUT;
			break;
		}
		if (++refused >= TXRDMA_MSG_ACCEPT_TRIES) {
			ret = -EAGAIN;
			break;
		}
		cond_resched();
	}
	txrdma_tenant_put(t);
	return ret;
}

/* An endpoint pair of @tf by id, referenced, or NULL. */
static struct txrdma_ep *txrdma_msg_ep_of(struct txrdma_file *tf, u32 id)
{
	struct txrdma_ep *ep = txrdma_ep_get_file(tf, id);

	if (ep && ep->dstate == TXRDMA_EP_PLAIN) {
		txrdma_ep_put(ep);
		ep = NULL;
	}
	return ep;
}

/*
 * Caller holds ep->lock: the slot exporting exactly [@off, @off + @len)
 * of our region @id - of region @r itself unless @r is NULL (a region
 * id may name another region once the exported one is destroyed) - or
 * NULL; *@overlap tells whether another export of the id overlaps the
 * range, *@free is a free slot or -1.
 */
static struct txrdma_export *txrdma_msg_export(struct txrdma_ep *ep, u32 id,
					       struct txrdma_region *r,
					       u64 off, u64 len, bool *overlap,
					       int *free)
{
	struct txrdma_export *found = NULL;
	unsigned int i;

	*overlap = false;
	*free = -1;
	for (i = 0; i < TXRDMA_EP_MAX_EXPORTS; i++) {
		struct txrdma_export *x = &ep->exports[i];

		if (!x->r) {
			if (*free < 0)
				*free = i;
			continue;
		}
		if (x->r->id != id)
			continue;
		if (x->use.off == off && x->use.len == len && (!r || x->r == r))
			found = x;
		else if (txrdma_range_overlap(off, len, x->use.off, x->use.len))
			*overlap = true;
	}
	return found;
}

/* Caller holds ep->lock: the next request number, for the ACK to echo. */
static u32 txrdma_msg_export_seq(struct txrdma_ep *ep)
{
	return ++ep->export_seq;
}

/*
 * Send an EXPORT (a key, or a revoke when @m is NULL) and, if @wait,
 * wait for its ACK.  The caller set ep->export_pending.  Return: the
 * ACK's status, or -ENOTCONN (the pair ended), -ETIMEDOUT, -EINTR, the
 * send's error.
 */
static int txrdma_msg_export_tell(struct txrdma_ep *ep, u32 region,
				  u32 access, u64 off, u64 len,
				  struct txrdma_mr *m, u32 timeout_ms,
				  bool wait)
{
	unsigned long tmo = msecs_to_jiffies(timeout_ms ?:
					     TXRDMA_MSG_TIMEOUT_MS);
	struct txrdma_ctrl_ep e = {
		.type		= TXRDMA_CTRL_EP_EXPORT,
		.service	= region,
		.src_ep		= ep->id,
		.dst_ep		= ep->peer_ep,
		.qp_num		= access,
		.epoch		= ep->epoch,
		.ring_addr	= m ? m->mr->iova : 0,
		.ring_rkey	= m ? m->mr->rkey : 0,
		.exp_off	= off,
		.exp_len	= len,
	};
	long left;
	int ret;

	spin_lock_bh(&ep->lock);
	e.exp_seq = txrdma_msg_export_seq(ep);
	if (wait) {
		ep->export_wait_seq = e.exp_seq;
		ep->export_result = 1;	/* no answer yet */
	}
	spin_unlock_bh(&ep->lock);
	ret = txrdma_ctrl_send_ep(ep->peer, &e);
	if (ret || !wait)
		return ret;
	/* the pair's end wakes us too (txrdma_msg_fail_locked, drop_mrs) */
	left = wait_event_interruptible_timeout(ep->wait,
						READ_ONCE(ep->export_result) <= 0 ||
						READ_ONCE(ep->mrs_gone) ||
						READ_ONCE(ep->dstate) !=
						TXRDMA_EP_CONNECTED,
						tmo);
	ret = READ_ONCE(ep->export_result);
	if (ret > 0) {
		if (READ_ONCE(ep->mrs_gone) ||
		    READ_ONCE(ep->dstate) != TXRDMA_EP_CONNECTED)
			ret = -ENOTCONN;
		else
			ret = left < 0 ? -EINTR : -ETIMEDOUT;
	}
	return ret;
}

/*
 * Caller holds ep->export_pending: take slot @x's key out (if the pair
 * still has it), free it - the peer's accesses with it fail from now
 * on - and only then give the range back to the region (a receive ring
 * may go there next) and empty the slot.
 */
static void txrdma_msg_export_drop(struct txrdma_ep *ep,
				   struct txrdma_export *x)
{
	struct txrdma_region *r = NULL;
	struct txrdma_mr *m = NULL;

	spin_lock_bh(&ep->lock);
	if (!ep->mrs_gone) {
		m = x->m;
		x->m = NULL;
	}
	spin_unlock_bh(&ep->lock);
	if (m)
		txrdma_mr_free(m);
	/* once the pair ended, txrdma_msg_drop_mrs() empties the slots */
	spin_lock_bh(&ep->lock);
	if (!ep->mrs_gone && x->r) {
		r = x->r;
		txrdma_region_use_del(r, &x->use);
		x->r = NULL;
		x->access = 0;
	}
	spin_unlock_bh(&ep->lock);
	if (r)
		txrdma_region_put_async(r);
}

/* Caller holds ep->lock: end an export ioctl's turn. */
static void txrdma_msg_export_done_locked(struct txrdma_ep *ep)
{
	ep->export_pending = false;
	ep->export_wait_seq = 0;
}

/*
 * Revoke the export of exactly that range: the other side forgets it,
 * then its key dies - also when the other side does not answer
 * (-ETIMEDOUT, -EINTR), so that nothing reaches the range after this
 * returns.
 */
static long txrdma_msg_unexport(struct txrdma_ep *ep,
				const struct txrdma_ep_export *req)
{
	struct txrdma_export *x = NULL;
	u64 len = req->len;
	bool overlap;
	int i, free;
	long ret;

	spin_lock_bh(&ep->lock);
	/* a revoke names the range as exported; len 0: to the region's end */
	for (i = 0; i < TXRDMA_EP_MAX_EXPORTS && !len; i++) {
		struct txrdma_export *e = &ep->exports[i];

		if (e->r && e->r->id == req->region && e->use.off == req->off)
			len = e->r->size - req->off;
	}
	if (txrdma_range_valid(req->off, len))
		x = txrdma_msg_export(ep, req->region, NULL, req->off, len,
				      &overlap, &free);
	if (ep->dstate != TXRDMA_EP_CONNECTED || ep->mrs_gone) {
		ret = ep->error ?: -ENOTCONN;
	} else if (ep->export_pending) {
		ret = -EBUSY;
	} else if (!x) {
		ret = -ENOENT;
	} else {
		ep->export_pending = true;
		ret = 0;
	}
	spin_unlock_bh(&ep->lock);
	if (ret)
		return ret;
	ret = txrdma_msg_export_tell(ep, req->region, 0, req->off, len, NULL,
				     req->timeout_ms, true);
	/* the other side never had it: gone all the same */
	if (ret == -ENOENT)
		ret = 0;
	txrdma_msg_export_drop(ep, x);
	spin_lock_bh(&ep->lock);
	txrdma_msg_export_done_locked(ep);
	spin_unlock_bh(&ep->lock);
	return ret;
}

long txrdma_ioctl_ep_export(struct txrdma_file *tf, void __user *uarg)
{
	struct txrdma_mr *m = NULL, *old = NULL;
	struct txrdma_ep_export req;
	struct txrdma_export *x;
	struct txrdma_region *r;
	struct txrdma_ep *ep;
	bool overlap, fresh = false, unknown;
	int access = 0, free;
	u64 addr, len;
	u32 lkey;
	long ret;

	if (copy_from_user(&req, uarg, sizeof(req)))
		return -EFAULT;
	if (req.access & ~(TXRDMA_EXPORT_READ | TXRDMA_EXPORT_WRITE))
		return -EINVAL;
	if (req.access & TXRDMA_EXPORT_READ)
		access |= IB_ACCESS_REMOTE_READ;
	if (req.access & TXRDMA_EXPORT_WRITE)
		access |= IB_ACCESS_REMOTE_WRITE;
	ep = txrdma_msg_ep_of(tf, req.ep);
	if (!ep)
		return -ENOENT;
	if (!req.access) {
		ret = txrdma_msg_unexport(ep, &req);
		goto out_ep;
	}
	r = txrdma_region_resolve(ep->tenant, req.region, 0, 0, ep->dev,
				  &addr, &lkey);
	if (IS_ERR(r)) {
		ret = PTR_ERR(r);
		goto out_ep;
	}
	len = req.len ?: r->size - min(req.off, r->size);
	if (!len || req.off > r->size || len > r->size - req.off) {
		ret = -EFAULT;
		goto out_region;
	}
	spin_lock_bh(&ep->lock);
	x = txrdma_msg_export(ep, req.region, r, req.off, len, &overlap,
			      &free);
	if (ep->dstate != TXRDMA_EP_CONNECTED || ep->mrs_gone) {
		ret = ep->error ?: -ENOTCONN;
	} else if (ep->export_pending) {
		ret = -EBUSY;
	} else if (!x && overlap) {
		ret = -EEXIST;
	} else if (!x && free < 0) {
		ret = -ENOSPC;
	} else {
		/* the slot stays ours: no other export runs meanwhile */
		if (!x) {
			x = &ep->exports[free];
			fresh = true;
		}
		ep->export_pending = true;
		ret = 0;
	}
	spin_unlock_bh(&ep->lock);
	if (ret)
		goto out_region;
	if (fresh) {
		/* no receive ring under it, now or later */
		ret = txrdma_region_use_add(r, &x->use, req.off, len, false);
		if (ret)
			goto out_pending;
	}
	/* what the peer may reach: this range, this access, nothing more */
	m = txrdma_region_expose(r, ep->dev, req.off, len, access);
	if (IS_ERR(m)) {
		ret = PTR_ERR(m);
		m = NULL;
		goto out_unclaim;
	}
	ret = txrdma_msg_export_tell(ep, req.region, req.access, req.off, len,
				     m, req.timeout_ms, true);
	spin_lock_bh(&ep->lock);
	if (!ret && ep->mrs_gone)
		ret = -ENOTCONN;	/* the pair ended meanwhile */
	if (!ret) {
		/*
		 * The other side uses the new key from now on: the old one
		 * (an export again, with another access) dies.  The memory
		 * stays held until the export goes.
		 */
		old = x->m;
		if (fresh) {
			x->r = r;
			r = NULL;
		}
		x->m = m;
		x->access = req.access;
		m = NULL;
		txrdma_msg_export_done_locked(ep);
	}
	spin_unlock_bh(&ep->lock);
	if (!ret) {
		if (old)
			txrdma_mr_free(old);
		goto out_region;
	}
	/*
	 * No answer (-ETIMEDOUT, -EINTR): the other side may have stored
	 * the new key or not.  The range is then not exported at all: the
	 * new key dies, and an earlier export of the range too, and the
	 * other side is told to forget it (best effort, not waited for).
	 */
	unknown = ret == -ETIMEDOUT || ret == -EINTR;
	if (unknown)
		txrdma_msg_export_tell(ep, req.region, 0, req.off, len, NULL, 0,
				       false);
	txrdma_mr_free(m);
	m = NULL;
	if (unknown && !fresh)
		txrdma_msg_export_drop(ep, x);
out_unclaim:
	/* the key is dead: the range may go back (the slot is still ours) */
	if (fresh)
		txrdma_region_use_del(r, &x->use);
out_pending:
	spin_lock_bh(&ep->lock);
	txrdma_msg_export_done_locked(ep);
	spin_unlock_bh(&ep->lock);
out_region:
	txrdma_region_put_async(r);
out_ep:
	txrdma_ep_put(ep);
	return ret;
}

long txrdma_ioctl_ep_exports(struct txrdma_file *tf, void __user *uarg)
{
	struct txrdma_ep_exports *q;
	struct txrdma_ep *ep;
	unsigned int i, n = 0;
	u32 id;
	long ret = 0;

	if (get_user(id, (u32 __user *)uarg))
		return -EFAULT;
	ep = txrdma_msg_ep_of(tf, id);
	if (!ep)
		return -ENOENT;
	q = kzalloc(sizeof(*q), GFP_KERNEL);
	if (!q) {
		ret = -ENOMEM;
		goto out_ep;
	}
	q->ep = id;
	spin_lock_bh(&ep->lock);
	q->imports_gen = ep->imports_gen;
	q->nimported = ep->nimports;
	for (i = 0; i < ep->nimports; i++)
		q->imported[i] = (struct txrdma_export_info) {
			.region	= ep->imports[i].region,
			.access	= ep->imports[i].access,
			.off	= ep->imports[i].off,
			.len	= ep->imports[i].len,
		};
	/* those the other side may reach: with a live key */
	for (i = 0; i < TXRDMA_EP_MAX_EXPORTS; i++) {
		struct txrdma_export *x = &ep->exports[i];

		if (!x->r || !x->m)
			continue;
		q->exported[n++] = (struct txrdma_export_info) {
			.region	= x->r->id,
			.access	= x->access,
			.off	= x->use.off,
			.len	= x->use.len,
		};
	}
	q->nexported = n;
	spin_unlock_bh(&ep->lock);
	if (copy_to_user(uarg, q, sizeof(*q)))
		ret = -EFAULT;
	kfree(q);
out_ep:
	txrdma_ep_put(ep);
	return ret;
}

/*
 * Process context: the registrations that let the peer reach our ring
 * and our exports die (a late or stale rkey gets a remote access
 * error), and no new one is made for this endpoint.
 */
static void txrdma_msg_drop_mrs(struct txrdma_ep *ep)
{
	struct txrdma_mr *mrs[TXRDMA_EP_MAX_EXPORTS + 1];
	struct {
		struct txrdma_region *r;
		struct txrdma_region_use *use;
	} gone[TXRDMA_EP_MAX_EXPORTS];
	unsigned int i, n = 0, ng = 0;

	spin_lock_bh(&ep->lock);
	/* no export ioctl fills a slot from here on */
	ep->mrs_gone = true;
	if (ep->rx_mr)
		mrs[n++] = ep->rx_mr;
	ep->rx_mr = NULL;
	for (i = 0; i < TXRDMA_EP_MAX_EXPORTS; i++) {
		struct txrdma_export *x = &ep->exports[i];

		if (x->m)
			mrs[n++] = x->m;
		x->m = NULL;
		if (x->r) {
			gone[ng].r = x->r;
			gone[ng++].use = &x->use;
			x->r = NULL;
		}
	}
	spin_unlock_bh(&ep->lock);
	/* an export ioctl waiting for its answer gives up */
	wake_up(&ep->wait);
	for (i = 0; i < n; i++)
		txrdma_mr_free(mrs[i]);
	/*
	 * Only now that no key reaches them may a receive ring go over the
	 * ranges; the exported memory is no longer held either.
	 */
	for (i = 0; i < ng; i++) {
		txrdma_region_use_del(gone[i].r, gone[i].use);
		txrdma_region_put_async(gone[i].r);
	}
}

/**
 * txrdma_msg_close() - an endpoint of a pair leaves its file
 * @ep: unpublished already
 *
 * Its ring sees no more of it; its QP is closed (the other side sees
 * the disconnect); what it had in flight completes with -ECANCELED.
 */
void txrdma_msg_close(struct txrdma_ep *ep)
{
	struct txrdma_peer *peer = ep->peer;
	struct txrdma_ring *ring = ep->ring;
	struct txrdma_conn *c;

	if (ring) {
		mutex_lock(&ring->lock);
		if (xa_load(&ring->eps, ep->id) == ep)
			xa_erase(&ring->eps, ep->id);
		mutex_unlock(&ring->lock);
	}
	/* the process is done with it: nothing more is published */
	spin_lock_bh(&ep->lock);
	ep->rx_stop = true;
	spin_unlock_bh(&ep->lock);
	spin_lock_bh(&peer->lock);
	c = ep->conn;
	if (c) {
		txrdma_ep_detach_locked(c, -ECANCELED);
		txrdma_peer_conn_done(peer, c, TXRDMA_CONN_CLOSE);
	}
	spin_unlock_bh(&peer->lock);
	spin_lock_bh(&ep->lock);
	txrdma_msg_fail_locked(ep, -ECANCELED);
	ep->dstate = TXRDMA_EP_CLOSED;
	ep->ring = NULL;
	spin_unlock_bh(&ep->lock);
	/*
	 * The process may reuse the ring's memory as soon as this returns:
	 * the peer's keys die now, so that no write of the ended pair can
	 * land there later (its QP may live a little longer); and an
	 * export may now cover it.
	 */
	txrdma_msg_drop_mrs(ep);
	if (ep->rx_region)
		txrdma_region_use_del(ep->rx_region, &ep->rx_use);
}

/**
 * txrdma_msg_conn_destroyed() - a connection's QP and CQ are gone
 * @c: the connection; no completion of it can run any more
 */
void txrdma_msg_conn_destroyed(struct txrdma_conn *c)
{
	struct txrdma_ep *ep = c->held_ep;

	if (!ep)
		return;
	c->held_ep = NULL;
	if (ep->held_by == c) {
		ib_dma_unmap_single(c->dev->ibdev, ep->hdrs_dma,
				    TXRDMA_EP_SLOTS * TXRDMA_FRAME_HDR_LEN,
				    DMA_TO_DEVICE);
		/*
		 * The pair is over: every frame the QP carried is published,
		 * so its error may follow - unless the process closed the
		 * endpoint, whose ring may hold another pair's frames by
		 * now; every key the peer had for us dies now (a stale rkey
		 * gets a remote access error), not when the process gets
		 * round to destroying its endpoint.
		 */
		spin_lock_bh(&ep->lock);
		ep->held_by = NULL;
		if (ep->rx_error && !ep->rx_stop)
			txrdma_msg_rx_error_locked(ep, ep->rx_error);
		spin_unlock_bh(&ep->lock);
		txrdma_msg_drop_mrs(ep);
	}
	txrdma_ep_put(ep);
}

/* The file is released: its services go, their backlogs refused. */
void txrdma_msg_file_release(struct txrdma_file *tf)
{
	struct txrdma_pair_req *r, *tmp;
	LIST_HEAD(refuse);

	txrdma_service_file_release(tf, &refuse);
	list_for_each_entry_safe(r, tmp, &refuse, node) {
		txrdma_msg_reject(r->peer, &r->e, -ECONNREFUSED);
		txrdma_msg_req_free(r);
	}
}

/* ------------------------------------------------------------------ */
/* Endpoint messages from peers                                        */

/**
 * txrdma_msg_ctrl_rx() - an endpoint message arrived on a control QP
 * @peer: from whom; caller holds peer->lock (softirq)
 * @e: the decoded, checked message
 */
void txrdma_msg_ctrl_rx(struct txrdma_peer *peer,
			const struct txrdma_ctrl_ep *e)
{
	struct txrdma_pair_req *r;

	/* a peer that floods us waits for the work item like everyone */
	if (READ_ONCE(txrdma_msg_rxq_len) >= TXRDMA_MSG_RXQ_MAX) {
		peer->bfd.rx_dropped++;
		return;		/* the connector times out */
	}
	r = kmalloc(sizeof(*r), GFP_ATOMIC);
	if (!r)
		return;
	kref_get(&peer->ref);
	r->peer = peer;
	r->e = *e;
	r->rx_ns = ktime_get_ns();
	spin_lock(&txrdma_msg_rxq_lock);
	list_add_tail(&r->node, &txrdma_msg_rxq);
	txrdma_msg_rxq_len++;
	spin_unlock(&txrdma_msg_rxq_lock);
	queue_work(txrdma_peer_wq, &txrdma_msg_work);
}

static void txrdma_msg_rx_connect(struct txrdma_pair_req *r)
{
	if (txrdma_service_queue(r)) {
		txrdma_msg_reject(r->peer, &r->e, -ECONNREFUSED);
		txrdma_msg_req_free(r);
	}
}

/* ACCEPT or REJECT for one of our connecting endpoints. */
static void txrdma_msg_rx_answer(struct txrdma_pair_req *r)
{
	struct txrdma_ep *ep = txrdma_ep_get_id(r->e.dst_ep);

	if (!ep)
		return;
	spin_lock_bh(&ep->lock);
	if (ep->peer == r->peer && ep->epoch == r->e.epoch &&
	    ep->dstate == TXRDMA_EP_CONNECTING) {
		if (r->e.type == TXRDMA_CTRL_EP_REJECT) {
			ep->result = r->e.status;
			ep->dstate = TXRDMA_EP_REJECTED;
		} else if (r->e.qp_num != (ep->held_by ?
					   ep->held_by->remote_qpn : 0) ||
			   strncmp(r->e.tenant, ep->tenant->name,
				   sizeof(r->e.tenant)) ||
			   txrdma_msg_pair(ep, &r->e)) {
			ep->result = -EPROTO;
			ep->dstate = TXRDMA_EP_REJECTED;
		} else {
			ep->dstate = TXRDMA_EP_CONNECTED;
			ep->accepted = true;
		}
		wake_up(&ep->wait);
	}
	spin_unlock_bh(&ep->lock);
	txrdma_ep_put(ep);
}

/*
 * Caller holds ep->lock: store, change or (access 0) forget what the
 * other side exports.  Return: the ACK's status.
 */
static int txrdma_msg_import_set(struct txrdma_ep *ep,
				 const struct txrdma_ctrl_ep *e)
{
	struct txrdma_import *imp;
	bool overlap;

	imp = txrdma_msg_import_exact(ep, e->service, e->exp_off, e->exp_len,
				      &overlap);
	if (!e->qp_num) {
		if (!imp)
			return -ENOENT;
		/* the last entry fills the hole: imports have no order */
		*imp = ep->imports[--ep->nimports];
		ep->imports_gen++;
		return 0;
	}
	if (!imp && overlap)
		return -EEXIST;
	if (!imp && ep->nimports == TXRDMA_EP_MAX_EXPORTS)
		return -ENOSPC;
	if (!imp)
		imp = &ep->imports[ep->nimports++];
	*imp = (struct txrdma_import) {
		.region	= e->service,
		.access	= e->qp_num,
		.off	= e->exp_off,
		.len	= e->exp_len,
		.addr	= e->ring_addr,
		.rkey	= e->ring_rkey,
	};
	ep->imports_gen++;
	return 0;
}

/* EXPORT: the other side of one of our pairs gives us a range, or not. */
static void txrdma_msg_rx_export(struct txrdma_pair_req *r)
{
	struct txrdma_ep *ep = txrdma_ep_get_id(r->e.dst_ep);
	struct txrdma_ctrl_ep a = {
		.type		= TXRDMA_CTRL_EP_EXPORT_ACK,
		.service	= r->e.service,
		.src_ep		= r->e.dst_ep,
		.dst_ep		= r->e.src_ep,
		.epoch		= r->e.epoch,
		.status		= -ENOENT,
		.exp_off	= r->e.exp_off,
		.exp_len	= r->e.exp_len,
		.exp_seq	= r->e.exp_seq,
	};

	if (ep) {
		spin_lock_bh(&ep->lock);
		if (ep->peer == r->peer && ep->epoch == r->e.epoch &&
		    ep->peer_ep == r->e.src_ep &&
		    ep->dstate == TXRDMA_EP_CONNECTED)
			a.status = txrdma_msg_import_set(ep, &r->e);
		spin_unlock_bh(&ep->lock);
		txrdma_ep_put(ep);
	}
	txrdma_ctrl_send_ep(r->peer, &a);
}

static void txrdma_msg_rx_export_ack(struct txrdma_pair_req *r)
{
	struct txrdma_ep *ep = txrdma_ep_get_id(r->e.dst_ep);

	if (!ep)
		return;
	spin_lock_bh(&ep->lock);
	if (ep->peer == r->peer && ep->epoch == r->e.epoch &&
	    ep->export_wait_seq && ep->export_wait_seq == r->e.exp_seq &&
	    ep->export_result > 0) {
		ep->export_result = r->e.status;
		wake_up(&ep->wait);
	}
	spin_unlock_bh(&ep->lock);
	txrdma_ep_put(ep);
}

static void txrdma_msg_work_fn(struct work_struct *work)
{
	struct txrdma_pair_req *r;

	for (;;) {
		spin_lock_bh(&txrdma_msg_rxq_lock);
		r = list_first_entry_or_null(&txrdma_msg_rxq,
					     struct txrdma_pair_req, node);
		if (r) {
			list_del(&r->node);
			txrdma_msg_rxq_len--;
		}
		spin_unlock_bh(&txrdma_msg_rxq_lock);
		if (!r)
			return;
		switch (r->e.type) {
		case TXRDMA_CTRL_EP_CONNECT:
			txrdma_msg_rx_connect(r);	/* keeps or frees @r */
			continue;
		case TXRDMA_CTRL_EP_ACCEPT:
		case TXRDMA_CTRL_EP_REJECT:
			txrdma_msg_rx_answer(r);
			break;
		case TXRDMA_CTRL_EP_EXPORT:
			txrdma_msg_rx_export(r);
			break;
		case TXRDMA_CTRL_EP_EXPORT_ACK:
			txrdma_msg_rx_export_ack(r);
			break;
		default:
			break;	/* CLOSE: the disconnect says it already */
		}
		txrdma_msg_req_free(r);
	}
}

void txrdma_msg_exit(void)
{
	struct txrdma_pair_req *r, *tmp;

	flush_work(&txrdma_msg_work);
	list_for_each_entry_safe(r, tmp, &txrdma_msg_rxq, node)
		txrdma_msg_req_free(r);
}
