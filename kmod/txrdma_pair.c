// SPDX-License-Identifier: GPL-2.0-only
/*
 * Pairing: listen, connect and accept of endpoint pairs, and the
 * endpoint messages that carry them between the modules.
 *
 * A process listens on a service (TXRDMA_IOC_EP_LISTEN, txrdma_service.c)
 * and accepts endpoints (TXRDMA_IOC_EP_ACCEPT); a process on the peer
 * host connects (TXRDMA_IOC_EP_CONNECT).  The connector takes a ready
 * QP from the peer's pool, posts its receives and sends EP_CONNECT on
 * the control QP (service, its endpoint id, the QP's number, its
 * receive ring's address, key and size, a fresh epoch).  The acceptor's
 * module queues it on the listener; TXRDMA_IOC_EP_ACCEPT binds its own
 * end of that very QP (found by the remote QP number rdma_cm reported
 * when it connected) and answers EP_ACCEPT with the same for its side.
 * Keys travel only between the two kernels.  Both sides may take QPs
 * from the same pool; the initiator takes from the front of its list
 * and the acceptor from the back, and when both took the same QP at
 * once each refuses the other's EP_CONNECT with -EBUSY and the
 * connector retries on another QP.
 *
 * Endpoint messages arrive in softirq (txrdma_liveness.c) and wait for
 * one work item, at most TXRDMA_PAIR_RXQ_MAX of them: connects go to
 * their service's backlog, answers to the connecting endpoint, exports
 * to txrdma_export.c.
 *
 * Locking: peer->lock, then ep->lock (both _bh); the ring's mutex when
 * an endpoint joins it; txrdma_pair_rxq_lock alone.
 */
#include <linux/random.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>

#include "txrdma.h"
#include "txrdma_frame.h"
#include "txrdma_msg.h"
#include "txrdma_peer.h"
#include "txrdma_region.h"
#include "txrdma_ringfile.h"
#include "txrdma_service.h"
#include "txrdma_tenant.h"

#define TXRDMA_PAIR_ATTEMPTS	4
/* requests one EP_ACCEPT may refuse before it gives up (-EAGAIN) */
#define TXRDMA_PAIR_ACCEPT_TRIES	128

/* pairing messages from peers waiting for the work item, at most this many */
#define TXRDMA_PAIR_RXQ_MAX	1024
static DEFINE_SPINLOCK(txrdma_pair_rxq_lock);
static LIST_HEAD(txrdma_pair_rxq);
static unsigned int txrdma_pair_rxq_len;
static void txrdma_pair_work_fn(struct work_struct *work);
static DECLARE_WORK(txrdma_pair_work, txrdma_pair_work_fn);

/*
 * Caller holds peer->lock: bind @c to @ep, map the headers on its
 * device, post the receives.  From here on @c holds a reference on @ep.
 */
static int txrdma_pair_bind_locked(struct txrdma_ep *ep, struct txrdma_conn *c)
{
	struct ib_device *ibdev = c->dev->ibdev;
	unsigned int i;
	int ret;

	lockdep_assert_held(&c->peer->lock);
	ep->hdrs_dma = ib_dma_map_single(ibdev, ep->hdrs,
					 TXRDMA_EP_SLOTS * TXRDMA_TX_HDR_STRIDE,
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
		ret = txrdma_rx_post_recv(ep);
	spin_unlock(&ep->lock);
	return ret;
}

/*
 * Take a ready pooled QP of @peer for a connecting @ep (@remote_qpn 0),
 * or the QP whose other end has number @remote_qpn for an accepting
 * one.  Return: 0, -ENOTCONN (peer not Up), -EAGAIN (no ready QP),
 * -EBUSY (that QP is taken), -ENOENT (no such QP).
 */
int txrdma_pair_take(struct txrdma_peer *peer, struct txrdma_ep *ep,
		     u32 remote_qpn)
{
	struct txrdma_conn *c, *found = NULL;
	int ret = 0;

	spin_lock_bh(&peer->lock);
	/* a pair made through a peer being deleted takes no other QP */
	if (peer->dying || peer->bfd.state != TXRDMA_BFD_UP ||
	    READ_ONCE(ep->peer->dying)) {
		ret = -ENOTCONN;
		goto out;
	}
	/* a forced tenant deletion failed it before it had a QP */
	ret = READ_ONCE(ep->error);
	if (ret)
		goto out;
	/*
	 * Its process closed it (a session's work item may still look for
	 * a QP): rx_stop is set before the close detaches under this lock
	 */
	if (READ_ONCE(ep->rx_stop)) {
		ret = -ECANCELED;
		goto out;
	}
	list_for_each_entry(c, &peer->conns, node) {
		/* the acceptor binds the QP the connector named */
		if (remote_qpn) {
			if (!txrdma_conn_usable(c) ||
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
	/* both sides took that QP at once (or it carries a dead pair) */
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
	ret = txrdma_pair_bind_locked(ep, found);
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

/*
 * Look up the rx ring of a connect or accept request; holds the region.
 * @restore: the ring of an imported session: its bytes are the
 * process's, as they were on the host it left (txrdma_pair_handoff.c
 * sets the kernel's words)
 */
static int txrdma_pair_rx_setup(struct txrdma_ep *ep,
				const struct txrdma_ep_connect *req,
				bool restore)
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
	ep->grace_ms = req->grace_ms ?: TXRDMA_EP_GRACE_MS;
	ep->service = req->service;
	/* a fresh ring: nothing published, nothing released, no error */
	if (!restore)
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
	ep->rx_max_msg = txrdma_frame_ring_max(ep->rx_units);
	if (req->rx_max_msg)
		ep->rx_max_msg = req->rx_max_msg;
	txrdma_credit_rx_max_frame(&ep->crx,
				   txrdma_frame_units(ep->rx_max_msg));
	/*
	 * Frames with a trailer fit the declared limit with it: the frame
	 * of the longest payload read ahead is never larger than the
	 * largest frame, and the process and the kernel refuse the same
	 */
	if ((req->flags & TXRDMA_EP_F_RX_AHEAD) &&
	    ep->rx_max_msg > TXRDMA_FRAME_TRAILER_LEN) {
		ep->rx_ahead_max = min_t(u32, ep->rx_max_msg -
					 TXRDMA_FRAME_TRAILER_LEN,
					 TXRDMA_RX_AHEAD_MAX_PAYLOAD);
		ep->crx.ahead = true;
	}
	/* the process's doorbell rule needs it (txrdma_rx_release()) */
	WRITE_ONCE(*txrdma_rx_word(ep, TXRDMA_RX_OFF_MAX_UNITS),
		   ep->crx.max_units);
	/* a connector's (or an import's) session: known from the start */
	txrdma_rx_due_empty(ep, req->flags & TXRDMA_EP_F_SESSION);
	return 0;
}

/*
 * After binding: a registration of our ring's units, and only them,
 * for the peer to write (txrdma_region_expose()); it dies with the
 * pair's QP (txrdma_pair_conn_destroyed()).
 */
static int txrdma_pair_rx_keys(struct txrdma_ep *ep,
			       const struct txrdma_ep_connect *req)
{
	struct txrdma_dev *dev = NULL;
	struct txrdma_mr *m;
	bool gone, dying;

	/* its QP's connection holds the device; we do while we register */
	spin_lock_bh(&ep->lock);
	if (ep->conn) {
		dev = ep->conn->dev;
		txrdma_dev_user_get(dev);
	}
	spin_unlock_bh(&ep->lock);
	if (!dev)
		return -ENOTCONN;
	m = txrdma_region_expose(ep->rx_region, dev,
				 req->rx_off + TXRDMA_RX_HDR_LEN,
				 (u64)ep->rx_units * TXRDMA_FRAME_UNIT,
				 IB_ACCESS_REMOTE_WRITE);
	if (IS_ERR(m)) {
		txrdma_dev_user_put(dev);
		/* its device is going: as a lost QP, another is taken */
		return PTR_ERR(m) == -ENODEV ? -ECONNRESET : PTR_ERR(m);
	}
	spin_lock_bh(&ep->lock);
	/* or its device is being removed: the key would outlive it */
	dying = READ_ONCE(dev->dying);
	gone = ep->mrs_gone || dying;
	if (!gone) {
		ep->rx_mr = m;
		ep->rx_addr = m->mr->iova;
		ep->rx_rkey = m->mr->rkey;
	}
	spin_unlock_bh(&ep->lock);
	if (gone)
		/* the QP died meanwhile: nobody may reach the ring */
		txrdma_mr_free(m);
	txrdma_dev_user_put(dev);
	if (!gone)
		return 0;
	return dying ? -ECONNRESET : -ENOTCONN;
}

static int txrdma_pair_check(const struct txrdma_ep_connect *req, bool accept)
{
	if (req->flags & ~TXRDMA_EP_F_ALL || !req->service || req->id ||
	    req->peer_ep || req->qp_num || req->max_msg ||
	    req->resv0 || req->resv1)
		return -EINVAL;
	/* the connector asks for a session and its grace */
	if (req->grace_ms && (accept || !(req->flags & TXRDMA_EP_F_SESSION) ||
			      req->grace_ms > TXRDMA_EP_GRACE_MAX_MS))
		return -EINVAL;
	if (req->rx_units < TXRDMA_RX_MIN_UNITS ||
	    req->rx_units > TXRDMA_RX_MAX_UNITS ||
	    !is_power_of_2(req->rx_units) ||
	    req->rx_off % TXRDMA_FRAME_UNIT ||
	    req->rx_max_msg > txrdma_frame_ring_max(req->rx_units))
		return -EINVAL;
	if (!accept && (!req->peer[0] ||
			!memchr(req->peer, 0, sizeof(req->peer))))
		return -EINVAL;
	if (accept && memchr_inv(req->peer, 0, sizeof(req->peer)))
		return -EINVAL;
	return 0;
}

/* Both sides agree on the pair: the peer's ring and our credits. */
static int txrdma_pair_agree(struct txrdma_ep *ep, const struct txrdma_ctrl_ep *e)
{
	/* frames that came first named the endpoint: it must be this one */
	if (ep->peer_ep && ep->peer_ep != e->src_ep)
		return -EPROTO;
	ep->peer_ep = e->src_ep;
	ep->peer_addr = e->ring_addr;
	ep->peer_rkey = e->ring_rkey;
	ep->peer_units = e->ring_units;
	ep->peer_max_msg = e->max_msg;
	ep->peer_ahead_max = e->ahead_max;
	txrdma_rx_ahead_words(ep);
	return txrdma_credit_tx_init(&ep->ctx, e->ring_units);
}

/* what a process may ask for, the wire carries */
static_assert(TXRDMA_EP_GRACE_MAX_MS <= TXRDMA_WIRE_GRACE_MAX_MS);

/* A session's grace, as the connector asks for it (0: no session). */
static u32 txrdma_pair_grace(const struct txrdma_ep *ep)
{
	return ep->flags & TXRDMA_EP_F_SESSION ? ep->grace_ms : 0;
}

static u32 txrdma_pair_max(const struct txrdma_ep *ep)
{
	/* what the peer's ring takes and its process declared (checked) */
	return min(txrdma_frame_ring_max(ep->peer_units), ep->peer_max_msg);
}

/* Join the file's ring: the poller may now see SQEs for it. */
int txrdma_pair_join(struct txrdma_ring *ring, struct txrdma_ep *ep)
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

static void txrdma_pair_reject(struct txrdma_peer *peer,
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

/*
 * A new endpoint of @tf for @req (@restore: as txrdma_pair_rx_setup());
 * on success it is published.
 */
struct txrdma_ep *txrdma_pair_new_ep(struct txrdma_file *tf,
				     struct txrdma_peer *peer,
				     const struct txrdma_ep_connect *req,
				     bool restore)
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
	ret = txrdma_pair_alloc(ep);
	if (!ret)
		ret = txrdma_pair_rx_setup(ep, req, restore);
	if (!ret)
		ret = txrdma_ep_publish(ep);
	if (ret) {
		txrdma_ep_discard(ep);
		return ERR_PTR(ret);
	}
	return ep;
}

static long txrdma_pair_reply(struct txrdma_ep *ep, struct txrdma_ep_connect *req,
			      void __user *uarg)
{
	req->id = ep->id;
	req->peer_ep = ep->peer_ep;
	req->qp_num = ep->qp_num;
	req->max_msg = txrdma_pair_max(ep);
	req->rx_max_msg = ep->rx_max_msg;
	req->grace_ms = txrdma_pair_grace(ep);
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
static int txrdma_pair_connect_once(struct txrdma_file *tf,
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
	ep = txrdma_pair_new_ep(tf, peer, req, false);
	if (IS_ERR(ep))
		return PTR_ERR(ep);
	kref_get(&ep->ref);	/* ours, while we wait */
	ep->epoch = get_random_u32() | 1;
	/* before the CONNECT: no frame of this pair can be in the ring */
	txrdma_rx_ahead_words(ep);
	ret = txrdma_pair_take(peer, ep, 0);
	if (!ret)
		ret = txrdma_pair_rx_keys(ep, req);
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
		.ahead_max	= ep->rx_ahead_max,
		.ring_addr	= ep->rx_addr,
		.ring_rkey	= ep->rx_rkey,
		.grace_ms	= txrdma_pair_grace(ep),
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
	txrdma_resume_start(ep, true, e.grace_ms);
	ret = txrdma_pair_join(ep->ring, ep);
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
	ret = txrdma_pair_check(&req, false);
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
		for (i = 0; i < TXRDMA_PAIR_ATTEMPTS; i++) {
			bool paired = false;

			left = (long)(deadline - jiffies);
			ret = txrdma_pair_connect_once(tf, peer, &req,
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
	return txrdma_pair_reply(ep, &req, uarg);
}

static void txrdma_pair_req_free(struct txrdma_pair_req *r)
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
	ret = txrdma_pair_check(&req, true);
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
		ep = txrdma_pair_new_ep(tf, r->peer, &req, false);
		if (IS_ERR(ep)) {
			/* our own trouble (quota, ring): tell both sides */
			txrdma_pair_reject(r->peer, &r->e, PTR_ERR(ep));
			txrdma_pair_req_free(r);
			ret = PTR_ERR(ep);
			break;
		}
		kref_get(&ep->ref);
		ep->epoch = r->e.epoch;
		/* a process that changed cgroups meanwhile serves nobody */
		ret = ep->tenant == t ? 0 : -EPERM;
		if (!ret)
			ret = txrdma_pair_agree(ep, &r->e);
		if (!ret)
			ret = txrdma_pair_take(r->peer, ep, r->e.qp_num);
		if (!ret)
			ret = txrdma_pair_rx_keys(ep, &req);
		if (!ret) {
			spin_lock_bh(&ep->lock);
			ep->dstate = TXRDMA_EP_CONNECTED;
			/* a session when the connector asked for one */
			ep->flags &= ~TXRDMA_EP_F_SESSION;
			if (r->e.grace_ms)
				ep->flags |= TXRDMA_EP_F_SESSION;
			ep->grace_ms = r->e.grace_ms;
			txrdma_rx_due_empty(ep, r->e.grace_ms);
			spin_unlock_bh(&ep->lock);
			txrdma_resume_start(ep, false, r->e.grace_ms);
			ret = txrdma_pair_join(ep->ring, ep);
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
				.ahead_max	= ep->rx_ahead_max,
				.ring_addr	= ep->rx_addr,
				.ring_rkey	= ep->rx_rkey,
				.grace_ms	= r->e.grace_ms,
			};
			strscpy(e.tenant, t->name, sizeof(e.tenant));
			ret = txrdma_ctrl_send_ep(r->peer, &e);
		}
		if (!ret) {
			strscpy(req.peer, r->peer->name, sizeof(req.peer));
			req.flags = ep->flags;
			txrdma_pair_req_free(r);
			txrdma_tenant_put(t);
			return txrdma_pair_reply(ep, &req, uarg);
		}
		/* that request cannot be served: refuse it, take the next */
		/* -ENOENT: our end is not established yet; -EBUSY: taken */
		txrdma_pair_reject(r->peer, &r->e, ret == -ENOENT ? -EBUSY :
				  ret);
		txrdma_pair_req_free(r);
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
		if (++refused >= TXRDMA_PAIR_ACCEPT_TRIES) {
			ret = -EAGAIN;
			break;
		}
		cond_resched();
	}
	txrdma_tenant_put(t);
	return ret;
}

/* The file is released: its services go, their backlogs refused. */
void txrdma_pair_file_release(struct txrdma_file *tf)
{
	struct txrdma_pair_req *r, *tmp;
	LIST_HEAD(refuse);

	txrdma_service_file_release(tf, &refuse);
	list_for_each_entry_safe(r, tmp, &refuse, node) {
		txrdma_pair_reject(r->peer, &r->e, -ECONNREFUSED);
		txrdma_pair_req_free(r);
	}
}

/* ------------------------------------------------------------------ */
/* Endpoint messages from peers                                        */

/**
 * txrdma_pair_ctrl_rx() - an endpoint message arrived on a control QP
 * @peer: from whom; caller holds peer->lock (softirq)
 * @e: the decoded, checked message
 */
void txrdma_pair_ctrl_rx(struct txrdma_peer *peer,
			 const struct txrdma_ctrl_ep *e)
{
	struct txrdma_pair_req *r;

	/* a peer that floods us waits for the work item like everyone */
	if (READ_ONCE(txrdma_pair_rxq_len) >= TXRDMA_PAIR_RXQ_MAX) {
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
	spin_lock(&txrdma_pair_rxq_lock);
	list_add_tail(&r->node, &txrdma_pair_rxq);
	txrdma_pair_rxq_len++;
	spin_unlock(&txrdma_pair_rxq_lock);
	queue_work(txrdma_peer_wq, &txrdma_pair_work);
}

static void txrdma_pair_rx_connect(struct txrdma_pair_req *r)
{
	if (txrdma_service_queue(r)) {
		txrdma_pair_reject(r->peer, &r->e, -ECONNREFUSED);
		txrdma_pair_req_free(r);
	}
}

/* ACCEPT or REJECT for one of our connecting endpoints. */
static void txrdma_pair_rx_answer(struct txrdma_pair_req *r)
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
			   r->e.grace_ms != txrdma_pair_grace(ep) ||
			   strncmp(r->e.tenant, ep->tenant->name,
				   sizeof(r->e.tenant)) ||
			   txrdma_pair_agree(ep, &r->e)) {
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

static void txrdma_pair_work_fn(struct work_struct *work)
{
	struct txrdma_pair_req *r;

	for (;;) {
		spin_lock_bh(&txrdma_pair_rxq_lock);
		r = list_first_entry_or_null(&txrdma_pair_rxq,
					     struct txrdma_pair_req, node);
		if (r) {
			list_del(&r->node);
			txrdma_pair_rxq_len--;
		}
		spin_unlock_bh(&txrdma_pair_rxq_lock);
		if (!r)
			return;
		switch (r->e.type) {
		case TXRDMA_CTRL_EP_CONNECT:
			txrdma_pair_rx_connect(r);	/* keeps or frees @r */
			continue;
		case TXRDMA_CTRL_EP_HANDOFF:
			txrdma_handoff_rx(r);
			break;
		case TXRDMA_CTRL_EP_REJECT:
			/* of a HANDOFF: it names the mover's old endpoint */
			if (r->e.ho_old_ep) {
				txrdma_handoff_rx_reject(r);
				break;
			}
			/* of a RESUME: it names its generation */
			if (r->e.resume.gen) {
				txrdma_resume_rx(r);
				break;
			}
			fallthrough;
		case TXRDMA_CTRL_EP_ACCEPT:
			txrdma_pair_rx_answer(r);
			break;
		case TXRDMA_CTRL_EP_RESUME:
		case TXRDMA_CTRL_EP_RESUMED:
		case TXRDMA_CTRL_EP_CLOSE:
			txrdma_resume_rx(r);
			break;
		case TXRDMA_CTRL_EP_EXPORT:
			txrdma_export_rx(r);
			break;
		case TXRDMA_CTRL_EP_EXPORT_ACK:
			txrdma_export_rx_ack(r);
			break;
		default:
			break;
		}
		txrdma_pair_req_free(r);
	}
}

void txrdma_pair_exit(void)
{
	struct txrdma_pair_req *r, *tmp;

	flush_work(&txrdma_pair_work);
	list_for_each_entry_safe(r, tmp, &txrdma_pair_rxq, node)
		txrdma_pair_req_free(r);
}
