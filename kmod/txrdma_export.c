// SPDX-License-Identifier: GPL-2.0-only
/*
 * Exports and imports of endpoint pairs: one side gives the other a
 * range of one of its regions to READ and/or WRITE (TXRDMA_IOC_EP_EXPORT),
 * changes the access or revokes it (access 0).
 *
 * The exporting module registers the range alone, with that access
 * (txrdma_region_expose()), sends its key in an EXPORT control message
 * and waits for the EXPORT_ACK that echoes the request's number; the
 * other module stores it as an import of the pair, where
 * txrdma_tx.c finds it for READ and WRITE SQEs.  The key dies when the
 * export is revoked or changed, or when the pair ends
 * (txrdma_pair_life.c).  One export request runs at a time per pair
 * (-EBUSY); the range can never hold a receive ring meanwhile
 * (txrdma_region_use_add(), -EADDRINUSE).
 *
 * Locking: ep->lock (_bh) over the export and import tables; the
 * ioctls sleep for the answer without it.
 */
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "txrdma.h"
#include "txrdma_msg.h"
#include "txrdma_peer.h"
#include "txrdma_range.h"
#include "txrdma_region.h"
#include "txrdma_service.h"
#include "txrdma_tenant.h"

/*
 * Caller holds ep->lock: the import holding [@off, @off + @len) of the
 * other side's region @id.  Return: it, or ERR_PTR(-EPERM) when
 * nothing of the region is exported to us, ERR_PTR(-EFAULT) when the
 * range is not inside one export of it.
 */
struct txrdma_import *txrdma_import_find(struct txrdma_ep *ep, u32 id,
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
static struct txrdma_import *txrdma_import_exact(struct txrdma_ep *ep,
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

/* An endpoint pair of @tf by id, referenced, or NULL. */
static struct txrdma_ep *txrdma_export_ep_of(struct txrdma_file *tf, u32 id)
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
static struct txrdma_export *txrdma_export_slot(struct txrdma_ep *ep, u32 id,
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
static u32 txrdma_export_seq(struct txrdma_ep *ep)
{
	return ++ep->export_seq;
}

/*
 * Send an EXPORT (a key, or a revoke when @m is NULL) and, if @wait,
 * wait for its ACK.  The caller set ep->export_pending.  Return: the
 * ACK's status, or -ENOTCONN (the pair ended), -ETIMEDOUT, -EINTR, the
 * send's error.
 */
static int txrdma_export_tell(struct txrdma_ep *ep, u32 region,
			      u32 access, u64 off, u64 len,
			      struct txrdma_mr *m, u32 timeout_ms,
			      bool wait)
{
	unsigned long tmo = msecs_to_jiffies(timeout_ms ?:
					     TXRDMA_MSG_TIMEOUT_MS);
	struct txrdma_peer *path;
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
	e.exp_seq = txrdma_export_seq(ep);
	if (wait) {
		ep->export_wait_seq = e.exp_seq;
		ep->export_result = 1;	/* no answer yet */
	}
	spin_unlock_bh(&ep->lock);
	/* on the control QP of the path the pair is on */
	path = txrdma_path_get(ep);
	ret = txrdma_ctrl_send_ep(path, &e);
	txrdma_peer_put(path);
	if (ret || !wait)
		return ret;
	/* the pair's end wakes us too (txrdma_pair_fail_locked, drop_mrs) */
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
static void txrdma_export_drop(struct txrdma_ep *ep,
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
	/* once the pair ended, txrdma_pair_drop_mrs() empties the slots */
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
static void txrdma_export_done_locked(struct txrdma_ep *ep)
{
	lockdep_assert_held(&ep->lock);
	ep->export_pending = false;
	ep->export_wait_seq = 0;
}

/*
 * Revoke the export of exactly that range: the other side forgets it,
 * then its key dies - also when the other side does not answer
 * (-ETIMEDOUT, -EINTR), so that nothing reaches the range after this
 * returns.
 */
static long txrdma_unexport(struct txrdma_ep *ep,
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
		x = txrdma_export_slot(ep, req->region, NULL, req->off, len,
				       &overlap, &free);
	if (ep->dstate != TXRDMA_EP_CONNECTED || ep->mrs_gone) {
		ret = ep->error ?: -ENOTCONN;
	} else if (ep->export_pending) {
		ret = -EBUSY;
	} else if (!ep->sess_ready) {
		ret = -EAGAIN;	/* a session away from its QP */
	} else if (!x) {
		ret = -ENOENT;
	} else {
		ep->export_pending = true;
		ret = 0;
	}
	spin_unlock_bh(&ep->lock);
	if (ret)
		return ret;
	ret = txrdma_export_tell(ep, req->region, 0, req->off, len, NULL,
				 req->timeout_ms, true);
	/* the other side never had it: gone all the same */
	if (ret == -ENOENT)
		ret = 0;
	txrdma_export_drop(ep, x);
	spin_lock_bh(&ep->lock);
	txrdma_export_done_locked(ep);
	spin_unlock_bh(&ep->lock);
	return ret;
}

long txrdma_ioctl_ep_export(struct txrdma_file *tf, void __user *uarg)
{
	struct txrdma_mr *m = NULL, *old = NULL;
	struct txrdma_ep_export req;
	struct txrdma_dev *dev = NULL;
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
	ep = txrdma_export_ep_of(tf, req.ep);
	if (!ep)
		return -ENOENT;
	if (!req.access) {
		ret = txrdma_unexport(ep, &req);
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
	x = txrdma_export_slot(ep, req.region, r, req.off, len, &overlap,
			       &free);
	if (ep->dstate != TXRDMA_EP_CONNECTED || ep->mrs_gone) {
		ret = ep->error ?: -ENOTCONN;
	} else if (ep->export_pending) {
		ret = -EBUSY;
	} else if (!ep->sess_ready) {
		/* a session away from its QP: its device may change */
		ret = -EAGAIN;
	} else if (!ep->conn) {
		ret = -ENOTCONN;	/* its QP is gone: a failed pair */
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
		/*
		 * It stays: no resume takes a QP while an export runs.
		 * Held for the registration (the QP may go meanwhile).
		 */
		dev = ep->conn->dev;
		txrdma_dev_user_get(dev);
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
	m = txrdma_region_expose(r, dev, req.off, len, access);
	if (IS_ERR(m)) {
		ret = PTR_ERR(m);
		m = NULL;
		goto out_unclaim;
	}
	ret = txrdma_export_tell(ep, req.region, req.access, req.off, len,
				 m, req.timeout_ms, true);
	spin_lock_bh(&ep->lock);
	if (!ret && ep->mrs_gone)
		ret = -ENOTCONN;	/* the pair ended meanwhile */
	/* its device is being removed: the key reaches nothing */
	if (!ret && READ_ONCE(dev->dying))
		ret = -ENODEV;
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
		txrdma_export_done_locked(ep);
	}
	spin_unlock_bh(&ep->lock);
	if (!ret) {
		if (old)
			txrdma_mr_free(old);
		txrdma_dev_user_put(dev);
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
		txrdma_export_tell(ep, req.region, 0, req.off, len, NULL, 0,
				   false);
	txrdma_mr_free(m);
	m = NULL;
	if (unknown && !fresh)
		txrdma_export_drop(ep, x);
out_unclaim:
	/* the key is dead: the range may go back (the slot is still ours) */
	if (fresh)
		txrdma_region_use_del(r, &x->use);
out_pending:
	spin_lock_bh(&ep->lock);
	txrdma_export_done_locked(ep);
	spin_unlock_bh(&ep->lock);
	txrdma_dev_user_put(dev);
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
	ep = txrdma_export_ep_of(tf, id);
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
 * Caller holds ep->lock: store, change or (access 0) forget what the
 * other side exports.  Return: the ACK's status.
 */
static int txrdma_import_set(struct txrdma_ep *ep,
			     const struct txrdma_ctrl_ep *e)
{
	struct txrdma_import *imp;
	bool overlap;

	imp = txrdma_import_exact(ep, e->service, e->exp_off, e->exp_len,
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
void txrdma_export_rx(struct txrdma_pair_req *r)
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
		if (txrdma_path_same_host(ep->peer, r->peer) &&
		    ep->epoch == r->e.epoch && ep->peer_ep == r->e.src_ep &&
		    ep->dstate == TXRDMA_EP_CONNECTED)
			a.status = txrdma_import_set(ep, &r->e);
		spin_unlock_bh(&ep->lock);
		txrdma_ep_put(ep);
	}
	txrdma_ctrl_send_ep(r->peer, &a);
}

void txrdma_export_rx_ack(struct txrdma_pair_req *r)
{
	struct txrdma_ep *ep = txrdma_ep_get_id(r->e.dst_ep);

	if (!ep)
		return;
	spin_lock_bh(&ep->lock);
	if (txrdma_path_same_host(ep->peer, r->peer) &&
	    ep->epoch == r->e.epoch && ep->export_wait_seq && ep->export_wait_seq == r->e.exp_seq &&
	    ep->export_result > 0) {
		ep->export_result = r->e.status;
		wake_up(&ep->wait);
	}
	spin_unlock_bh(&ep->lock);
	txrdma_ep_put(ep);
}
