// SPDX-License-Identifier: GPL-2.0-only
/*
 * A pair's data-path state, and its end.
 *
 * The pair's QP is its connection: when it errors, the peer goes Down
 * or either side destroys its endpoint (the QP is closed, so the other
 * side sees the disconnect), the endpoint is detached; every operation
 * in flight completes at once with the error, late completions of the
 * dead QP are ignored, and the error is published in the receive
 * ring's header after the last frame.
 *
 * Lifetime.  The file holds a reference on the endpoint, and so does
 * the connection it was bound to, from the first posted work request
 * until its CQ is freed (txrdma_pair_conn_destroyed()), so a completion
 * never finds the endpoint gone.  ep->ring is cleared under ep->lock
 * when the endpoint is closed, before the file's rings are freed.  The
 * keys the peer holds for us (the ring's, the exports') die when the
 * QP is gone or the process closes the endpoint, whichever comes first.
 *
 * Locking: peer->lock, then ep->lock, then ring->cq_lock (all _bh).
 */
#include <linux/slab.h>

#include "txrdma.h"
#include "txrdma_frame.h"
#include "txrdma_msg.h"
#include "txrdma_peer.h"
#include "txrdma_region.h"
#include "txrdma_ringfile.h"

/* Caller holds ep->lock: publish @error in the receive ring, once. */
static void txrdma_pair_rx_error_locked(struct txrdma_ep *ep, int error)
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
void txrdma_pair_fail_locked(struct txrdma_ep *ep, int error)
{
	lockdep_assert_held(&ep->lock);
	/* a session ends here too: nothing resumes a failed pair */
	ep->sess.state = TXRDMA_SESS_FAILED;
	ep->sess_ready = true;
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
	/* queued ones included: late completions of the QP find none */
	txrdma_tx_fail_locked(ep, error);
	/*
	 * Frames the peer placed before its end may still wait in the CQ
	 * (a disconnect can overtake their completions): while our end of
	 * the QP is not drained they are still published, and the error
	 * word - which the process reads after the last frame - waits for
	 * the drain (txrdma_pair_conn_destroyed()).
	 */
	if (ep->held_by && !ep->rx_stop) {
		if (!ep->rx_error)
			ep->rx_error = error;
	} else {
		txrdma_pair_rx_error_locked(ep, error);
	}
	if (ep->ring)
		txrdma_poller_kick(ep->ring);
}

/**
 * txrdma_pair_close_qp() - a pair that failed closes its QP
 * @ep: failed already (txrdma_pair_fail_locked()); caller holds no lock
 * @error: what the detach reports
 *
 * So that the other side sees the end at once, and cannot wait on us
 * forever (for credits, or for a frame that will not come).
 */
void txrdma_pair_close_qp(struct txrdma_ep *ep, int error)
{
	struct txrdma_peer *path = txrdma_path_lock(ep);
	struct txrdma_conn *c;

	c = ep->conn;
	if (c) {
		txrdma_ep_detach_locked(c, error);
		txrdma_peer_conn_done(path, c, TXRDMA_CONN_CLOSE);
	}
	spin_unlock_bh(&path->lock);
}

/**
 * txrdma_pair_detach_locked() - the pair's QP is gone or going
 * @ep: endpoint of a pair; caller holds its peer's lock and ep->lock
 *	and has already cleared ep->conn
 * @error: what its operations complete with
 */
void txrdma_pair_detach_locked(struct txrdma_ep *ep, int error)
{
	lockdep_assert_held(&ep->path->lock);
	lockdep_assert_held(&ep->lock);
	if (txrdma_resume_lost_locked(ep, error))
		return;		/* a session: it waits for a new QP */
	WRITE_ONCE(ep->error, error);
	txrdma_pair_fail_locked(ep, error);
}

/* Allocate what the data path of @ep needs (process context). */
int txrdma_pair_alloc(struct txrdma_ep *ep)
{
	unsigned int i;

	/* first: a pair whose allocations fail is closed (and cancels it) */
	txrdma_resume_init(ep);
	ep->slots = kcalloc(TXRDMA_EP_SLOTS, sizeof(*ep->slots),
			    GFP_KERNEL_ACCOUNT);
	ep->hdrs = kzalloc(TXRDMA_EP_SLOTS * TXRDMA_TX_HDR_STRIDE,
			   GFP_KERNEL_ACCOUNT);
	if (!ep->slots || !ep->hdrs)
		return -ENOMEM;
	for (i = 0; i < TXRDMA_EP_SLOTS; i++) {
		ep->slots[i].cqe.done = txrdma_tx_done;
		ep->slots[i].ep = ep;
		ep->free[i] = TXRDMA_EP_SLOTS - 1 - i;
	}
	ep->nfree = TXRDMA_EP_SLOTS;
	ep->rx_cqe.done = txrdma_rx_done;
	return 0;
}

/* Freed with the endpoint's last reference. */
void txrdma_pair_free(struct txrdma_ep *ep)
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
 * Process context: the registrations that let the peer reach our ring
 * and our exports die (a late or stale rkey gets a remote access
 * error); @forever: and no new one is made for this endpoint (else a
 * session on another device registers its ring there next,
 * txrdma_path_rekey()).
 */
void txrdma_pair_drop_keys(struct txrdma_ep *ep, bool forever)
{
	struct txrdma_mr *mrs[TXRDMA_EP_MAX_EXPORTS + 1];
	struct {
		struct txrdma_region *r;
		struct txrdma_region_use *use;
	} gone[TXRDMA_EP_MAX_EXPORTS];
	unsigned int i, n = 0, ng = 0;

	spin_lock_bh(&ep->lock);
	/* no export ioctl fills a slot from here on */
	if (forever)
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

void txrdma_pair_drop_mrs(struct txrdma_ep *ep)
{
	txrdma_pair_drop_keys(ep, true);
}

/**
 * txrdma_pair_close() - an endpoint of a pair leaves its file
 * @ep: unpublished already
 *
 * Its ring sees no more of it; its QP is closed (the other side sees
 * the disconnect); what it had in flight completes with -ECANCELED.
 */
void txrdma_pair_close(struct txrdma_ep *ep)
{
	struct txrdma_ring *ring = ep->ring;
	struct txrdma_peer *path;
	struct txrdma_conn *c;

	/* a session's other side fails now, not after its grace */
	if (ep->dstate == TXRDMA_EP_CONNECTED)
		txrdma_resume_close_msg(ep, -ECONNRESET);
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
	path = txrdma_path_lock(ep);
	c = ep->conn;
	if (c) {
		txrdma_ep_detach_locked(c, -ECANCELED);
		txrdma_peer_conn_done(path, c, TXRDMA_CONN_CLOSE);
	}
	spin_unlock_bh(&path->lock);
	spin_lock_bh(&ep->lock);
	txrdma_pair_fail_locked(ep, -ECANCELED);
	ep->dstate = TXRDMA_EP_CLOSED;
	ep->ring = NULL;
	spin_unlock_bh(&ep->lock);
	/* failed: the session's work item is never queued again */
	txrdma_resume_stop(ep);
	/*
	 * The process may reuse the ring's memory as soon as this returns:
	 * the peer's keys die now, so that no write of the ended pair can
	 * land there later (its QP may live a little longer); and an
	 * export may now cover it.
	 */
	txrdma_pair_drop_mrs(ep);
	if (ep->rx_region)
		txrdma_region_use_del(ep->rx_region, &ep->rx_use);
}

/**
 * txrdma_pair_conn_destroyed() - a connection's QP and CQ are gone
 * @c: the connection; no completion of it can run any more
 */
void txrdma_pair_conn_destroyed(struct txrdma_conn *c)
{
	struct txrdma_ep *ep = c->held_ep;
	bool goes_on;

	if (!ep)
		return;
	c->held_ep = NULL;
	if (ep->held_by == c) {
		ib_dma_unmap_single(c->dev->ibdev, ep->hdrs_dma,
				    TXRDMA_EP_SLOTS * TXRDMA_TX_HDR_STRIDE,
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
		/* never compared with a connection made later */
		ep->ho_prev_conn = NULL;
		/* a session resumes on another QP: its keys stay */
		goes_on = txrdma_resume_drained_locked(ep);
		if (!goes_on && ep->rx_error && !ep->rx_stop)
			txrdma_pair_rx_error_locked(ep, ep->rx_error);
		spin_unlock_bh(&ep->lock);
		if (!goes_on)
			txrdma_pair_drop_mrs(ep);
	}
	txrdma_ep_put(ep);
}
