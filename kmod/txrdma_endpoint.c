// SPDX-License-Identifier: GPL-2.0-only
/*
 * Endpoints: the step between a process and a peer's pool.  Creating
 * one is the fast path that the pool exists for: the QP is already
 * connected, so it costs a quota charge and a list walk under the
 * peer's lock, not an rdma_cm handshake.
 *
 * A lent QP is given back to the pool when its endpoint is destroyed
 * while healthy; when the peer goes Down, the QP errors, the peer is
 * deleted or the tenant is force-deleted, the QP is closed instead and
 * the endpoint keeps the reason in @error until it is destroyed, so the
 * process learns of it and nothing is reused behind its back.
 */
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>

#include "txrdma.h"
#include "txrdma_abi.h"
#include "txrdma_endpoint.h"
#include "txrdma_inject.h"
#include "txrdma_msg.h"
#include "txrdma_peer.h"
#include "txrdma_region.h"
#include "txrdma_tenant.h"

/* protects txrdma_eps_list, files' endpoint lists and the id space */
static DEFINE_MUTEX(txrdma_eps_lock);
static LIST_HEAD(txrdma_eps_list);
static DEFINE_XARRAY_ALLOC1(txrdma_eps);
static u32 txrdma_eps_next;

static const u64 txrdma_ep_charge[TXRDMA_NR_RES] = {
	[TXRDMA_RES_QPS]	= 1,
	[TXRDMA_RES_ENDPOINTS]	= 1,
};

/**
 * txrdma_ep_detach_locked() - take a lent connection from its endpoint
 * @c: the connection; caller holds its peer's lock
 * @error: what the endpoint reports from now on
 */
void txrdma_ep_detach_locked(struct txrdma_conn *c, int error)
{
	struct txrdma_ep *ep = c->ep;

	lockdep_assert_held(&c->peer->lock);
	if (!ep)
		return;
	c->ep = NULL;
	/*
	 * ep->conn is written under both locks: the data path reads it
	 * under ep->lock alone (posting on ep->conn->qp), teardown under
	 * the peer's.
	 */
	spin_lock(&ep->lock);
	ep->conn = NULL;
	ep->qp_num = 0;
	/* a pair whose QP broke or was closed by the other side is reset */
	if (ep->dstate != TXRDMA_EP_PLAIN && error == -EIO)
		error = -ECONNRESET;
	/* a pair's own code says (a session may outlive the QP) */
	if (ep->dstate != TXRDMA_EP_PLAIN)
		txrdma_pair_detach_locked(ep, error);
	else
		WRITE_ONCE(ep->error, error);
	spin_unlock(&ep->lock);
}

/* Lend a ready pooled QP of @peer to @ep: 0, -ENOTCONN or -EAGAIN. */
static int txrdma_ep_take(struct txrdma_peer *peer, struct txrdma_ep *ep)
{
	struct txrdma_conn *c;
	int ret;

	struct txrdma_conn *found = NULL;

	spin_lock_bh(&peer->lock);
	if (peer->dying) {
		ret = -ENOENT;
		goto out;
	}
	list_for_each_entry(c, &peer->conns, node) {
		if (txrdma_conn_lendable(c)) {
			found = c;
			break;
		}
	}
	/* counts a miss (the pool grows) or -ENOTCONN while not Up */
	ret = txrdma_pool_take(&peer->pool, ktime_get_ns());
	if (!ret && !found) {
		/* the pool counted a ready QP that is not there */
		pr_err_once("txrdma: peer %s: pool accounting out of step\n",
			    peer->name);
		txrdma_pool_give_back(&peer->pool);
		ret = -EAGAIN;
	}
	if (!ret) {
		found->acct = TXRDMA_ACCT_IN_USE;
		found->ep = ep;
		spin_lock(&ep->lock);
		ep->conn = found;
		ep->qp_num = found->qp->qp_num;
		spin_unlock(&ep->lock);
	}
	txrdma_peer_kick(peer);	/* refill what was taken, or grow */
out:
	spin_unlock_bh(&peer->lock);
	return ret;
}

/* Give @ep's QP back (healthy) or forget it (already closed). */
static void txrdma_ep_put_back(struct txrdma_ep *ep)
{
	struct txrdma_peer *peer = txrdma_path_lock(ep);
	struct txrdma_conn *c;

	c = ep->conn;
	if (c) {
		txrdma_ep_detach_locked(c, 0);
		if (c->state == TXRDMA_CONN_READY &&
		    c->acct == TXRDMA_ACCT_IN_USE) {
			txrdma_pool_give_back(&peer->pool);
			c->acct = TXRDMA_ACCT_READY;
			txrdma_peer_lend_wake(peer);
		}
		txrdma_peer_kick(peer);
	}
	spin_unlock_bh(&peer->lock);
}

static void txrdma_ep_release(struct kref *ref)
{
	struct txrdma_ep *ep = container_of(ref, struct txrdma_ep, ref);

	txrdma_pair_free(ep);
	memzero_explicit(ep->ho_secret, sizeof(ep->ho_secret));
	memzero_explicit(ep->ho_claim_secret, sizeof(ep->ho_claim_secret));
	while (ep->npeers_was)
		txrdma_peer_put(ep->peers_was[--ep->npeers_was]);
	kfree(ep->peers_was);
	txrdma_peer_put(ep->path);
	if (ep->sess_from)
		txrdma_peer_put(ep->sess_from);
	txrdma_peer_put(ep->peer);
	txrdma_tenant_put(ep->tenant);
	kfree(ep);
}

void txrdma_ep_put(struct txrdma_ep *ep)
{
	kref_put(&ep->ref, txrdma_ep_release);
}

/* A published endpoint by id, referenced; NULL if there is none. */
struct txrdma_ep *txrdma_ep_get_id(u32 id)
{
	struct txrdma_ep *ep;

	mutex_lock(&txrdma_eps_lock);
	ep = xa_load(&txrdma_eps, id);
	if (ep)
		kref_get(&ep->ref);
	mutex_unlock(&txrdma_eps_lock);
	return ep;
}

/*
 * Add what @ep counted since the last fold to its tenant's retired
 * totals.  Called under txrdma_eps_lock where the endpoint is unlisted,
 * so that a sum over the tenant (txrdma_eps_tenant_traffic()) sees its
 * counters either live or retired, never neither; and again when it is
 * freed, for what it counted while closing.
 */
static void txrdma_ep_fold_stats(struct txrdma_ep *ep)
{
	struct txrdma_tenant *t = ep->tenant;
	u64 *now = txrdma_ep_stats_v(&ep->stats);
	u64 *seen = txrdma_ep_stats_v(&ep->folded);
	u64 *sum = txrdma_ep_stats_v(&t->retired);
	unsigned int i;

	spin_lock_bh(&ep->lock);
	spin_lock(&t->lock);	/* ep->lock, then t->lock: as the poller */
	for (i = 0; i < TXRDMA_EP_NR_STATS; i++) {
		sum[i] += now[i] - seen[i];
		seen[i] = now[i];
	}
	spin_unlock(&t->lock);
	spin_unlock_bh(&ep->lock);
}

/*
 * The endpoint leaves its file: its QP goes back to the pool (a plain
 * endpoint whose QP is healthy) or is closed (a pair: the other side
 * learns of it by the disconnect), its quota is returned at once, and
 * the memory goes with the last reference.
 */
static void txrdma_ep_free(struct txrdma_ep *ep)
{
	struct txrdma_tenant *t = ep->tenant;
	int r;

	if (ep->dstate == TXRDMA_EP_PLAIN)
		txrdma_ep_put_back(ep);
	else
		txrdma_pair_close(ep);
	spin_lock_bh(&t->lock);
	for (r = 0; r < TXRDMA_NR_RES; r++)
		if (txrdma_ep_charge[r])
			txrdma_quota_uncharge(&t->quota, r,
					      txrdma_ep_charge[r]);
	spin_unlock_bh(&t->lock);
	/* closed: nothing counts any more; the tenant keeps the totals */
	txrdma_ep_fold_stats(ep);
	txrdma_ep_put(ep);
}

/**
 * txrdma_ep_new() - an endpoint charged to @t, not yet published
 * @tf: the file it will belong to
 * @peer: referenced by the caller; the reference passes to the endpoint
 * @t: referenced by the caller; likewise
 *
 * Return: the endpoint, or ERR_PTR (-EPERM: the tenant is being
 * deleted, -EDQUOT, -ENOMEM); on error the caller keeps its references.
 */
struct txrdma_ep *txrdma_ep_new(struct txrdma_file *tf,
				struct txrdma_peer *peer,
				struct txrdma_tenant *t)
{
	struct txrdma_ep *ep;
	unsigned int i;
	int ret;

	if (txrdma_fault(TXRDMA_FAULT_ALLOC, 1))
		return ERR_PTR(-ENOMEM);
	ep = kzalloc(sizeof(*ep), GFP_KERNEL_ACCOUNT);
	if (!ep)
		return ERR_PTR(-ENOMEM);
	ep->tf = tf;
	ep->tenant = t;
	ep->peer = peer;
	kref_get(&peer->ref);
	ep->path = peer;
	kref_init(&ep->ref);
	spin_lock_init(&ep->lock);
	init_waitqueue_head(&ep->wait);
	INIT_LIST_HEAD(&ep->node);
	INIT_LIST_HEAD(&ep->file_node);
	INIT_LIST_HEAD(&ep->rx_use.node);
	for (i = 0; i < TXRDMA_EP_MAX_EXPORTS; i++)
		INIT_LIST_HEAD(&ep->exports[i].use.node);
	mutex_lock(&txrdma_eps_lock);
	spin_lock_bh(&t->lock);
	ret = t->dead ? -EPERM : txrdma_quota_charge_all(&t->quota,
							 txrdma_ep_charge);
	spin_unlock_bh(&t->lock);
	mutex_unlock(&txrdma_eps_lock);
	if (ret) {
		txrdma_peer_put(ep->path);
		kfree(ep);
		return ERR_PTR(ret);
	}
	return ep;
}

/* Caller holds txrdma_eps_lock: is @ep's tenant being deleted? */
static bool txrdma_ep_tenant_dead_locked(struct txrdma_ep *ep)
{
	bool dead;

	lockdep_assert_held(&txrdma_eps_lock);
	spin_lock_bh(&ep->tenant->lock);
	dead = ep->tenant->dead;
	spin_unlock_bh(&ep->tenant->lock);
	return dead;
}

/**
 * txrdma_ep_publish() - give @ep its id, for the wire and for netlink
 * @ep: from txrdma_ep_new()
 *
 * A pairing endpoint needs its id before the pair exists (the other
 * module names it in its answer and first frames), but its file must
 * not reach it until the ioctl that pairs it is done with it: until
 * txrdma_ep_adopt(), TXRDMA_IOC_EP_DESTROY, EP_INFO and the rings do
 * not find it, so nothing can close it behind the pairing.  A forced
 * tenant deletion does see it (txrdma_eps_list): it fails its QP.
 *
 * Return: 0, -EPERM if the tenant was force-deleted meanwhile (it
 * revokes only what is listed), or -EBUSY/-ENOMEM from the id space.
 */
int txrdma_ep_publish(struct txrdma_ep *ep)
{
	int ret;

	mutex_lock(&txrdma_eps_lock);
	ret = txrdma_ep_tenant_dead_locked(ep) ? -EPERM : 0;
	if (!ret)
		ret = xa_alloc_cyclic(&txrdma_eps, &ep->id, ep, xa_limit_31b,
				      &txrdma_eps_next, GFP_KERNEL_ACCOUNT);
	if (ret >= 0) {
		ret = 0;
		list_add_tail(&ep->node, &txrdma_eps_list);
	}
	mutex_unlock(&txrdma_eps_lock);
	return ret;
}

/**
 * txrdma_ep_adopt() - hand a paired endpoint to its file
 * @tf: the file
 * @ep: published; its pairing is complete and its ring joined
 *
 * From here on another thread of the file may destroy it at any time;
 * the caller keeps its own reference for what it still reads.
 *
 * Return: 0, or -EPERM if the tenant was force-deleted meanwhile.
 */
int txrdma_ep_adopt(struct txrdma_file *tf, struct txrdma_ep *ep)
{
	int ret;

	mutex_lock(&txrdma_eps_lock);
	ret = txrdma_ep_tenant_dead_locked(ep) ? -EPERM : 0;
	if (!ret) {
		list_add_tail(&ep->file_node, &tf->endpoints);
		ep->adopted = true;
	}
	mutex_unlock(&txrdma_eps_lock);
	return ret;
}

/**
 * txrdma_ep_discard() - unpublish (if it still is) and free an endpoint
 * @ep: published or not; before txrdma_ep_adopt() only the ioctl that
 *	created it may call this, after it another thread may have
 *	destroyed it already (then this does nothing)
 */
void txrdma_ep_discard(struct txrdma_ep *ep)
{
	mutex_lock(&txrdma_eps_lock);
	if (ep->id && xa_load(&txrdma_eps, ep->id) == ep) {
		xa_erase(&txrdma_eps, ep->id);
		list_del_init(&ep->node);
		if (ep->adopted)
			list_del_init(&ep->file_node);
		txrdma_ep_fold_stats(ep);
	} else if (ep->id) {
		/* destroyed by the file's owner meanwhile */
		ep = NULL;
	}
	mutex_unlock(&txrdma_eps_lock);
	if (ep)
		txrdma_ep_free(ep);
}

long txrdma_ioctl_ep_create(struct txrdma_file *tf, void __user *uarg)
{
	struct txrdma_ep_create req;
	struct txrdma_tenant *t;
	struct txrdma_peer *peer;
	struct txrdma_ep *ep;
	int ret;

	if (copy_from_user(&req, uarg, sizeof(req)))
		return -EFAULT;
	ret = txrdma_ep_create_check(&req);
	if (ret)
		return ret;
	t = txrdma_tenant_get_current();
	if (IS_ERR(t))
		return PTR_ERR(t);
	peer = txrdma_peer_get_name((char *)req.peer);
	if (!peer) {
		txrdma_tenant_put(t);
		return -ENOENT;
	}
	ep = txrdma_ep_new(tf, peer, t);
	if (IS_ERR(ep)) {
		ret = PTR_ERR(ep);
		goto out_put;
	}

	/*
	 * Take and publish under txrdma_eps_lock: a forced tenant
	 * deletion marks the tenant dead first and then revokes what is
	 * listed under this lock, so an endpoint is either refused or
	 * revoked, never missed.
	 */
	mutex_lock(&txrdma_eps_lock);
	spin_lock_bh(&t->lock);
	ret = t->dead ? -EPERM : 0;
	spin_unlock_bh(&t->lock);
	if (!ret)
		ret = txrdma_ep_take(peer, ep);
	if (ret) {
		mutex_unlock(&txrdma_eps_lock);
		txrdma_ep_free(ep);
		return ret;
	}
	ret = xa_alloc_cyclic(&txrdma_eps, &ep->id, ep, xa_limit_31b,
			      &txrdma_eps_next, GFP_KERNEL_ACCOUNT);
	if (ret < 0) {
		mutex_unlock(&txrdma_eps_lock);
		txrdma_ep_free(ep);
		return ret;
	}
	list_add_tail(&ep->node, &txrdma_eps_list);
	list_add_tail(&ep->file_node, &tf->endpoints);
	ep->adopted = true;
	/* once unlocked, another thread of this file may destroy it */
	req.id = ep->id;
	req.qp_num = ep->qp_num;
	mutex_unlock(&txrdma_eps_lock);
	if (copy_to_user(uarg, &req, sizeof(req))) {
		/* the caller cannot learn the id: do not leave it behind,
		 * unless someone already destroyed it by guessing the id
		 */
		mutex_lock(&txrdma_eps_lock);
		if (xa_load(&txrdma_eps, req.id) == ep) {
			xa_erase(&txrdma_eps, req.id);
			list_del(&ep->node);
			list_del(&ep->file_node);
			txrdma_ep_fold_stats(ep);
		} else {
			ep = NULL;
		}
		mutex_unlock(&txrdma_eps_lock);
		if (ep)
			txrdma_ep_free(ep);
		return -EFAULT;
	}
	return 0;

out_put:
	txrdma_peer_put(peer);
	txrdma_tenant_put(t);
	return ret;
}

/* Look up an endpoint of @tf; caller holds txrdma_eps_lock. */
static struct txrdma_ep *txrdma_ep_find_locked(struct txrdma_file *tf, u32 id)
{
	struct txrdma_ep *ep;

	lockdep_assert_held(&txrdma_eps_lock);
	ep = xa_load(&txrdma_eps, id);
	/*
	 * Another file's endpoint does not exist for this one, nor does
	 * one that an ioctl of this file is still pairing.
	 */
	return ep && ep->tf == tf && ep->adopted ? ep : NULL;
}

/**
 * txrdma_ep_get_file() - an endpoint of @tf by id, referenced
 * @tf: the file
 * @id: endpoint id
 *
 * Return: the endpoint (txrdma_ep_put()), or NULL if @tf has none
 * with that id (or it is still being paired).
 */
struct txrdma_ep *txrdma_ep_get_file(struct txrdma_file *tf, u32 id)
{
	struct txrdma_ep *ep;

	mutex_lock(&txrdma_eps_lock);
	ep = txrdma_ep_find_locked(tf, id);
	if (ep)
		kref_get(&ep->ref);
	mutex_unlock(&txrdma_eps_lock);
	return ep;
}

/**
 * txrdma_ep_status() - can endpoint @id of @tf carry an operation?
 * @tf: the file whose ring names the endpoint
 * @id: endpoint id from an SQE
 *
 * Return: 0; -ENOENT if @tf has no such endpoint; else the endpoint's
 * error (-ENOTCONN, -EIO, -EPERM).
 */
int txrdma_ep_status(struct txrdma_file *tf, u32 id)
{
	struct txrdma_ep *ep;
	int ret;

	mutex_lock(&txrdma_eps_lock);
	ep = txrdma_ep_find_locked(tf, id);
	/* set under the peer's lock by a detach; a snapshot is enough */
	ret = ep ? READ_ONCE(ep->error) : -ENOENT;
	mutex_unlock(&txrdma_eps_lock);
	return ret;
}

long txrdma_ioctl_ep_info(struct txrdma_file *tf, void __user *uarg)
{
	struct txrdma_ep_info info;
	struct txrdma_ep *ep;
	int ret;

	if (copy_from_user(&info, uarg, sizeof(info)))
		return -EFAULT;
	ret = txrdma_ep_info_check(&info);
	if (ret)
		return ret;
	mutex_lock(&txrdma_eps_lock);
	ep = txrdma_ep_find_locked(tf, info.id);
	if (ep) {
		info.peer_id = ep->peer->id;
		spin_lock_bh(&ep->lock);
		info.qp_num = ep->qp_num;
		info.error = ep->error;
		spin_unlock_bh(&ep->lock);
	}
	mutex_unlock(&txrdma_eps_lock);
	if (!ep)
		return -ENOENT;
	if (copy_to_user(uarg, &info, sizeof(info)))
		return -EFAULT;
	return 0;
}

long txrdma_ioctl_ep_destroy(struct txrdma_file *tf, void __user *uarg)
{
	struct txrdma_ep_info info;
	struct txrdma_ep *ep;
	int ret;

	if (copy_from_user(&info, uarg, sizeof(info)))
		return -EFAULT;
	ret = txrdma_ep_info_check(&info);
	if (ret)
		return ret;
	mutex_lock(&txrdma_eps_lock);
	ep = txrdma_ep_find_locked(tf, info.id);
	if (ep) {
		xa_erase(&txrdma_eps, ep->id);
		list_del(&ep->node);
		list_del(&ep->file_node);
		txrdma_ep_fold_stats(ep);
	}
	mutex_unlock(&txrdma_eps_lock);
	if (!ep)
		return -ENOENT;
	txrdma_ep_free(ep);
	return 0;
}

/* The file is being released: its endpoints go with it. */
void txrdma_eps_file_release(struct txrdma_file *tf)
{
	struct txrdma_ep *ep, *tmp;
	LIST_HEAD(dead);

	mutex_lock(&txrdma_eps_lock);
	list_for_each_entry_safe(ep, tmp, &tf->endpoints, file_node) {
		xa_erase(&txrdma_eps, ep->id);
		list_del(&ep->node);
		list_move_tail(&ep->file_node, &dead);
		txrdma_ep_fold_stats(ep);
	}
	mutex_unlock(&txrdma_eps_lock);
	list_for_each_entry_safe(ep, tmp, &dead, file_node)
		txrdma_ep_free(ep);
}

/*
 * Caller holds txrdma_eps_lock: @ep's QP is closed (its operations fail
 * with @error), or, a session between two QPs, the session ends (it
 * takes no other QP).
 */
static void txrdma_ep_cut_locked(struct txrdma_ep *ep, int error)
{
	struct txrdma_peer *path;

	lockdep_assert_held(&txrdma_eps_lock);
	path = txrdma_path_lock(ep);
	if (ep->conn) {
		struct txrdma_conn *c = ep->conn;

		txrdma_ep_detach_locked(c, error);
		txrdma_peer_conn_done(path, c, TXRDMA_CONN_CLOSE);
	} else if (ep->dstate == TXRDMA_EP_CONNECTED) {
		spin_lock(&ep->lock);
		txrdma_resume_abort_locked(ep, error);
		spin_unlock(&ep->lock);
	}
	spin_unlock_bh(&path->lock);
}

/**
 * txrdma_eps_tenant_revoke() - close the QPs of a deleted tenant
 * @t: tenant being force-deleted (already dead: no new endpoint)
 *
 * The QPs are closed, not given back: they served a tenant that no
 * longer exists.  The endpoints stay, failed with -EPERM, until their
 * files close them; the quota goes with them.
 */
void txrdma_eps_tenant_revoke(struct txrdma_tenant *t)
{
	struct txrdma_ep *ep;

	mutex_lock(&txrdma_eps_lock);
	list_for_each_entry(ep, &txrdma_eps_list, node)
		if (ep->tenant == t)
			txrdma_ep_cut_locked(ep, -EPERM);
	mutex_unlock(&txrdma_eps_lock);
}

/**
 * txrdma_eps_dev_gone() - a device goes: sessions on it move or fail now
 * @dev: the device, off the device list
 *
 * The keys of a session's ring and exports are registrations on its
 * device (ep->sess_dev): they must die before the device does, not when
 * the session's grace or its process ends, nor when it resumes on
 * another path's device (txrdma_resume_dev_gone()).
 * Called before the device's connections are torn down.
 */
void txrdma_eps_dev_gone(struct txrdma_dev *dev)
{
	struct txrdma_ep *ep;
	bool found;

again:
	mutex_lock(&txrdma_eps_lock);
	list_for_each_entry(ep, &txrdma_eps_list, node) {
		spin_lock_bh(&ep->lock);
		found = ep->session && ep->sess_dev == dev &&
			ep->sess.state != TXRDMA_SESS_FAILED;
		if (found)
			kref_get(&ep->ref);
		spin_unlock_bh(&ep->lock);
		if (!found)
			continue;
		mutex_unlock(&txrdma_eps_lock);
		txrdma_resume_dev_gone(ep, dev);
		txrdma_ep_put(ep);
		goto again;	/* failed or keyless now: not picked again */
	}
	mutex_unlock(&txrdma_eps_lock);
}

/**
 * txrdma_eps_peer_gone() - a peer is deleted: its pairs end
 * @peer: dying, its own connections torn down already
 *
 * A session that moved to another path to the host holds a QP of that
 * path, or none for the moment: it ends as the peer's own pairs did
 * (-ENOTCONN), so that deleting a peer ends every pair made through it.
 */
void txrdma_eps_peer_gone(struct txrdma_peer *peer)
{
	struct txrdma_ep *ep;

	mutex_lock(&txrdma_eps_lock);
	list_for_each_entry(ep, &txrdma_eps_list, node)
		if (ep->peer == peer && ep->dstate != TXRDMA_EP_PLAIN)
			txrdma_ep_cut_locked(ep, -ENOTCONN);
	mutex_unlock(&txrdma_eps_lock);
}

/**
 * txrdma_ep_peer_secret() - a session secret from @peer's key
 * @peer: referenced by the caller
 * @id: the session
 * @out: TXRDMA_HANDOFF_SECRET_LEN bytes
 *
 * A peer being deleted frees its key after txrdma_eps_peer_gone(),
 * which waits for txrdma_eps_lock: under it, a peer not dying yet
 * still has its key.  Process context.
 * Return: 0, -ENOTCONN (the peer is being deleted), or the crypto
 * API's error.
 */
int txrdma_ep_peer_secret(struct txrdma_peer *peer,
			  const struct txrdma_handoff_id *id, u8 *out)
{
	int ret = -ENOTCONN;

	mutex_lock(&txrdma_eps_lock);
	if (!READ_ONCE(peer->dying))
		ret = txrdma_handoff_secret(&peer->auth, id, out);
	mutex_unlock(&txrdma_eps_lock);
	return ret;
}

/* Caller holds txrdma_eps_lock: what netlink reports of @ep. */
static void txrdma_ep_snap_locked(struct txrdma_ep *ep,
				  struct txrdma_ep_snap *s)
{
	lockdep_assert_held(&txrdma_eps_lock);
	u64 *now = txrdma_ep_stats_v(&ep->stats);
	u64 *seen = txrdma_ep_stats_v(&ep->folded);
	u64 *out = txrdma_ep_stats_v(&s->stats);
	unsigned int i;

	s->id = ep->id;
	strscpy(s->tenant, ep->tenant->name, sizeof(s->tenant));
	s->owner = ep->tenant;
	strscpy(s->peer, ep->peer->name, sizeof(s->peer));
	spin_lock_bh(&ep->lock);
	s->qp_num = ep->qp_num;
	s->error = ep->error;
	s->dstate = ep->dstate;
	s->service = ep->service;
	s->peer_ep = ep->peer_ep;
	s->session = ep->session;
	if (ep->session) {
		s->sess_state = ep->sess.state;
		s->grace_ms = ep->grace_ms;
		/* changes under ep->lock, which holds its reference */
		strscpy(s->path, ep->path->name, sizeof(s->path));
	}
	/* a listed endpoint has folded nothing: this is all of it */
	for (i = 0; i < TXRDMA_EP_NR_STATS; i++)
		out[i] = now[i] - seen[i];
	spin_unlock_bh(&ep->lock);
}

/**
 * txrdma_ep_snap_id() - describe a published endpoint, of any file
 * @id: its id
 * @s: filled in
 *
 * Return: 0, or -ENOENT if there is no such endpoint.
 */
int txrdma_ep_snap_id(u32 id, struct txrdma_ep_snap *s)
{
	struct txrdma_ep *ep;

	mutex_lock(&txrdma_eps_lock);
	ep = xa_load(&txrdma_eps, id);
	if (ep)
		txrdma_ep_snap_locked(ep, s);
	mutex_unlock(&txrdma_eps_lock);
	return ep ? 0 : -ENOENT;
}

/**
 * txrdma_eps_walk() - describe published endpoints in the order of ids
 * @start: the lowest id to visit
 * @fn: called with each endpoint's description under txrdma_eps_lock
 *	(so it must not take it); 0 goes on, anything else stops the walk
 * @arg: for @fn
 *
 * Return: what @fn returned last, or 0 if the walk went to the end.
 */
int txrdma_eps_walk(u32 start,
		    int (*fn)(const struct txrdma_ep_snap *s, void *arg),
		    void *arg)
{
	struct txrdma_ep_snap s;
	struct txrdma_ep *ep;
	unsigned long id;
	int ret = 0;

	mutex_lock(&txrdma_eps_lock);
	xa_for_each_start(&txrdma_eps, id, ep, start) {
		txrdma_ep_snap_locked(ep, &s);
		ret = fn(&s, arg);
		if (ret)
			break;
	}
	mutex_unlock(&txrdma_eps_lock);
	return ret;
}

/**
 * txrdma_eps_tenant_traffic() - the counters of a tenant's endpoints
 * @t: the tenant
 * @sum: filled in: those of its endpoints that are gone, plus those of
 *	its listed endpoints now
 *
 * An endpoint moves from listed to retired under txrdma_eps_lock,
 * which this holds, so two calls never see a total go backwards.
 */
void txrdma_eps_tenant_traffic(struct txrdma_tenant *t,
			       struct txrdma_ep_stats *sum)
{
	u64 *out = txrdma_ep_stats_v(sum);
	struct txrdma_ep *ep;
	u64 *now, *seen;
	unsigned int i;

	mutex_lock(&txrdma_eps_lock);
	spin_lock_bh(&t->lock);
	*sum = t->retired;
	spin_unlock_bh(&t->lock);
	list_for_each_entry(ep, &txrdma_eps_list, node) {
		if (ep->tenant != t)
			continue;
		now = txrdma_ep_stats_v(&ep->stats);
		seen = txrdma_ep_stats_v(&ep->folded);
		spin_lock_bh(&ep->lock);
		for (i = 0; i < TXRDMA_EP_NR_STATS; i++)
			out[i] += now[i] - seen[i];
		spin_unlock_bh(&ep->lock);
	}
	mutex_unlock(&txrdma_eps_lock);
}
