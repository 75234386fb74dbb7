// SPDX-License-Identifier: GPL-2.0-only
/*
 * Paths: a session that moves to another path to its peer's host
 * (design.rst, "Sessions", multi-path).
 *
 * A peer added with TXRDMA_A_PEER_PATH_OF is another path (address,
 * device) to the host of an earlier peer: both are in one group
 * (peer->group).  A pair belongs to the peer it was paired through
 * (ep->peer: its identity, what netlink shows, what deleting ends); its
 * QP comes from ep->path, that peer or another of its group.  When a
 * session has lost its QP (txrdma_pair_resume.c), the connector takes a
 * fresh one from its path, or, when that path is not Up, from the first
 * other path of the group that is; the acceptor binds the QP named by
 * the RESUME on the path that RESUME came through.
 *
 * Two peers are one host only when the administrator put them in one
 * group here and the module behind both is the same incarnation (the
 * boot id of their control connections, each authenticated with its
 * path's key): a message for a pair that comes through a peer of
 * another group, or of another incarnation, is not the pair's.
 *
 * Keys.  The registrations of the ring and of the exports are on a
 * device: a resume on another device registers the ring there anew (the
 * RESUME or RESUMED names it and the other side takes the new key) and
 * ends the pair's exports, whose keys would reach nothing; a side whose
 * other side's ring key changed drops its imports for the same reason
 * (never post a dead key: the remote access error would lose the new QP
 * too).  Frames sent again take their payload's key on the new device
 * (txrdma_region_key()).
 *
 * Locking: ep->path changes only while no QP is bound (ep->conn and
 * ep->held_by NULL), under the old path's lock and ep->lock, and only in
 * the session's work item; txrdma_path_lock() takes the lock that guards
 * ep->conn.  Order: peer->lock, then ep->lock (design.rst "Lock order").
 */
#include <linux/rcupdate.h>

#include "txrdma.h"
#include "txrdma_msg.h"
#include "txrdma_peer.h"
#include "txrdma_region.h"
#include "txrdma_frame.h"

/* most paths a session looks at when its own is not Up */
#define TXRDMA_PATHS_MAX	8

/**
 * txrdma_path_lock() - lock the path whose QP @ep holds or may hold
 * @ep: an endpoint
 *
 * Return: that peer, locked (spin_lock_bh); ep->conn and ep->path stay
 * as they are until it is unlocked.
 */
struct txrdma_peer *txrdma_path_lock(struct txrdma_ep *ep)
{
	struct txrdma_peer *p;

	for (;;) {
		/* an old path may lose its last reference meanwhile */
		rcu_read_lock();
		p = READ_ONCE(ep->path);
		spin_lock_bh(&p->lock);
		if (likely(p == READ_ONCE(ep->path))) {
			rcu_read_unlock();
			return p;
		}
		spin_unlock_bh(&p->lock);
		rcu_read_unlock();
	}
}

/**
 * txrdma_path_get() - the path of @ep, referenced
 * @ep: an endpoint
 *
 * For a control message on that path's control QP: the session's work
 * item may move the pair meanwhile and drop the path's last reference.
 * Return: the peer; the caller puts it (txrdma_peer_put()).
 */
struct txrdma_peer *txrdma_path_get(struct txrdma_ep *ep)
{
	struct txrdma_peer *p = txrdma_path_lock(ep);

	kref_get(&p->ref);
	spin_unlock_bh(&p->lock);
	return p;
}

/**
 * txrdma_path_same_host() - do messages through @b speak for pairs of @a?
 * @a: the peer a pair was paired through
 * @b: the peer a control message came through
 */
bool txrdma_path_same_host(const struct txrdma_peer *a,
			   const struct txrdma_peer *b)
{
	u32 boot;

	if (a == b)
		return true;
	if (a->group != b->group)
		return false;
	boot = READ_ONCE(a->remote_boot_id);
	return boot && boot == READ_ONCE(b->remote_boot_id);
}

/*
 * The session's work item, no QP bound: the pair's QPs come from @p
 * from now on.  Return: 0, or -EBUSY (a QP is still bound).
 */
static int txrdma_path_set(struct txrdma_ep *ep, struct txrdma_peer *p)
{
	struct txrdma_peer *old = txrdma_path_lock(ep);
	int ret = 0;

	if (old == p) {
		spin_unlock_bh(&old->lock);
		return 0;
	}
	spin_lock(&ep->lock);
	if (ep->conn || ep->held_by) {
		ret = -EBUSY;
	} else {
		kref_get(&p->ref);
		WRITE_ONCE(ep->path, p);
		ep->stats.path_moves++;
	}
	spin_unlock(&ep->lock);
	spin_unlock_bh(&old->lock);
	if (!ret)
		txrdma_peer_put(old);
	return ret;
}

/* Take a QP of path @p, which becomes the pair's; as txrdma_pair_take(). */
static int txrdma_path_try(struct txrdma_ep *ep, struct txrdma_peer *p)
{
	int ret;

	/* another path that is not Up (or not the same host): next one */
	if (READ_ONCE(p->bfd.state) != TXRDMA_BFD_UP ||
	    !txrdma_path_same_host(ep->peer, p))
		return -ENOTCONN;
	ret = txrdma_path_set(ep, p);
	return ret ?: txrdma_pair_take(p, ep, 0);
}

/**
 * txrdma_path_take() - a connector's fresh QP for a session
 * @ep: a session away from its QP; called from its work item
 *
 * Its own path first; when that one is not Up, the peer it was paired
 * through, then the other paths of that peer's group in the order they
 * were added.  Return: as txrdma_pair_take().
 */
int txrdma_path_take(struct txrdma_ep *ep)
{
	struct txrdma_peer *paths[TXRDMA_PATHS_MAX];
	struct txrdma_peer *cur = READ_ONCE(ep->path);
	unsigned int n, i;
	int ret;

	ret = txrdma_pair_take(cur, ep, 0);
	if (ret != -ENOTCONN)
		return ret;
	if (cur != ep->peer) {
		ret = txrdma_path_try(ep, ep->peer);
		if (ret != -ENOTCONN)
			return ret;
	}
	n = txrdma_peer_paths(ep->peer, paths, ARRAY_SIZE(paths));
	for (i = 0; i < n && ret == -ENOTCONN; i++)
		if (paths[i] != cur)
			ret = txrdma_path_try(ep, paths[i]);
	for (i = 0; i < n; i++)
		txrdma_peer_put(paths[i]);
	return ret;
}

/**
 * txrdma_path_take_named() - the acceptor's end of the connector's QP
 * @ep: a session that answers a RESUME; called from its work item
 * @remote_qpn: the connector's QP, as the RESUME named it
 *
 * On the path the RESUME came through (ep->sess_from), which becomes
 * the pair's.  Return: as txrdma_pair_take().
 */
int txrdma_path_take_named(struct txrdma_ep *ep, u32 remote_qpn)
{
	struct txrdma_peer *from;
	int ret;

	spin_lock_bh(&ep->lock);
	from = ep->sess_from;
	ep->sess_from = NULL;
	spin_unlock_bh(&ep->lock);
	if (!from)
		return txrdma_pair_take(READ_ONCE(ep->path), ep, remote_qpn);
	ret = txrdma_path_set(ep, from);
	if (!ret)
		ret = txrdma_pair_take(from, ep, remote_qpn);
	txrdma_peer_put(from);
	return ret;
}

/* Does path @p go through another device than @dev (by its name)? */
static bool txrdma_path_off_dev(struct txrdma_peer *p,
				const struct txrdma_dev *dev)
{
	bool off;

	spin_lock_bh(&p->lock);
	if (p->dying)
		off = false;
	else if (p->devname[0])
		off = strcmp(p->devname, dev->name);
	else
		off = p->used_dev[0] && strcmp(p->used_dev, dev->name);
	spin_unlock_bh(&p->lock);
	return off;
}

/**
 * txrdma_path_elsewhere() - may a session on a device that goes move?
 * @ep: a session
 * @dev: the device being removed
 *
 * Return: true when the peer it was paired through, or another path of
 * its group, goes through another device (Up or not: the session waits
 * for it within its grace).
 */
bool txrdma_path_elsewhere(struct txrdma_ep *ep, const struct txrdma_dev *dev)
{
	struct txrdma_peer *paths[TXRDMA_PATHS_MAX];
	unsigned int n, i;
	bool found;

	found = txrdma_path_off_dev(ep->peer, dev);
	n = txrdma_peer_paths(ep->peer, paths, ARRAY_SIZE(paths));
	for (i = 0; i < n; i++) {
		if (!found && txrdma_path_same_host(ep->peer, paths[i]))
			found = txrdma_path_off_dev(paths[i], dev);
		txrdma_peer_put(paths[i]);
	}
	return found;
}

/**
 * txrdma_path_rekey() - the pair's new QP is on another device
 * @ep: bound to that QP; called from its work item, before its report
 *	leaves
 *
 * The ring is registered on the new device (the report names the new
 * key); the exports end (their keys were on the old device).
 * Return: 0, or -errno (the caller gives the QP up).
 */
int txrdma_path_rekey(struct txrdma_ep *ep)
{
	struct txrdma_mr *m = NULL;
	struct txrdma_dev *dev;
	int ret = 0;

	/* as an export ioctl: none runs meanwhile (they get -EBUSY) */
	spin_lock_bh(&ep->lock);
	if (ep->export_pending)
		ret = -EBUSY;	/* it ends within its timeout: retried */
	else if (ep->mrs_gone || !ep->conn)
		ret = -ENOTCONN;
	if (!ret) {
		ep->export_pending = true;
		/*
		 * The QP's connection holds its device while it is ours,
		 * not while we register: the removal waits for this one
		 */
		dev = ep->conn->dev;
		txrdma_dev_user_get(dev);
	}
	spin_unlock_bh(&ep->lock);
	if (ret)
		return ret;
	txrdma_pair_drop_keys(ep, false);
	/* no key anywhere now: whatever QP comes next registers anew */
	spin_lock_bh(&ep->lock);
	ep->sess_dev = NULL;
	spin_unlock_bh(&ep->lock);
	m = txrdma_region_expose(ep->rx_region, dev,
				 ep->rx_use.off + TXRDMA_RX_HDR_LEN,
				 (u64)ep->rx_units * TXRDMA_FRAME_UNIT,
				 IB_ACCESS_REMOTE_WRITE);
	if (IS_ERR(m)) {
		ret = PTR_ERR(m);
		m = NULL;
	}
	spin_lock_bh(&ep->lock);
	if (!ret && ep->mrs_gone)
		ret = -ENOTCONN;
	/* the device went meanwhile: txrdma_eps_dev_gone() saw no key */
	if (!ret && READ_ONCE(dev->dying))
		ret = -ENODEV;
	if (!ret) {
		ep->rx_mr = m;
		ep->rx_addr = m->mr->iova;
		ep->rx_rkey = m->mr->rkey;
		ep->rx_gen++;	/* the report says so: the key may change */
		ep->sess_dev = dev;
		ep->ho_rekey = false;
		m = NULL;
	}
	ep->export_pending = false;
	spin_unlock_bh(&ep->lock);
	if (m)
		txrdma_mr_free(m);
	txrdma_dev_user_put(dev);
	return ret;
}

/**
 * txrdma_path_peer_ring_locked() - apply the ring a report named
 * @ep: caller holds ep->lock; no frame or credit update is in flight
 *	(the session is away)
 *
 * A report with another ring generation (ep->sess_rgen) means the other
 * side registered its ring anew on another device: the new key counts,
 * and its exports (our imports) are gone with the old device.  Keys on
 * two devices may be equal: the generation says it, not the key.
 */
void txrdma_path_peer_ring_locked(struct txrdma_ep *ep)
{
	lockdep_assert_held(&ep->lock);
	/* an imported session learns the other side's ring here */
	if (ep->sess_rgen == ep->peer_rx_gen && !ep->sess_rnew)
		return;
	ep->sess_rnew = false;
	ep->peer_addr = ep->sess_raddr;
	ep->peer_rkey = ep->sess_rrkey;
	ep->peer_rx_gen = ep->sess_rgen;
	if (ep->nimports) {
		ep->nimports = 0;
		ep->imports_gen++;
	}
}
