// SPDX-License-Identifier: GPL-2.0-only
/*
 * Peers: their objects, netlink administration, and the work item that
 * keeps each one's connections in shape.
 *
 * Who connects: after ADDR_RESOLVED a host knows its own address
 * towards the peer; the lower address initiates every connection and
 * the higher one only accepts, so two hosts that add each other at the
 * same moment end up with one set of QPs, with no tie-break exchange.
 * The acceptor's demand for pooled QPs reaches the initiator in probes.
 *
 * The work item alone starts and destroys connections: it delivers
 * queued state changes as netlink events, drains the pool when the
 * session leaves Up and refills it when it comes back, times out
 * attempts, shrinks idle pools and reconnects the control QP with
 * exponential backoff.
 */
#include <linux/ctype.h>
#include <linux/inetdevice.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <net/route.h>

#include "txrdma.h"
#include "txrdma_endpoint.h"
#include "txrdma_peer.h"

static ushort port = TXRDMA_DEFAULT_PORT;
module_param(port, ushort, 0444);
MODULE_PARM_DESC(port, "rdma_cm port on which peers connect (default 7388)");

/* protects the set of peers; readers from rdma_cm handlers use RCU */
static DEFINE_MUTEX(txrdma_peers_lock);
static LIST_HEAD(txrdma_peers);
static unsigned int txrdma_npeers;
static u32 txrdma_peer_next_id = 1;

u32 txrdma_boot_id;
struct workqueue_struct *txrdma_peer_wq;

const struct nla_policy txrdma_peer_get_policy[TXRDMA_PEER_GET_MAXATTR + 1] = {
	[TXRDMA_A_PEER_NAME]	= { .type = NLA_NUL_STRING,
				    .len = TXRDMA_PEER_NAME_MAX - 1 },
};

/* used by new and set; set refuses what cannot change in its handler */
const struct nla_policy txrdma_peer_new_policy[TXRDMA_PEER_NEW_MAXATTR + 1] = {
	[TXRDMA_A_PEER_NAME]	 = { .type = NLA_NUL_STRING,
				     .len = TXRDMA_PEER_NAME_MAX - 1 },
	[TXRDMA_A_PEER_ADDR]	 = NLA_POLICY_EXACT_LEN(sizeof(__be32)),
	[TXRDMA_A_PEER_PORT]	 = NLA_POLICY_MIN(NLA_U16, 1),
	[TXRDMA_A_PEER_DEV]	 = { .type = NLA_NUL_STRING,
				     .len = TXRDMA_DEV_NAME_MAX - 1 },
	[TXRDMA_A_PEER_POOL_MIN] = { .type = NLA_U32 },
	[TXRDMA_A_PEER_POOL_MAX] = { .type = NLA_U32 },
	[TXRDMA_A_PEER_TX_US]	 = { .type = NLA_U32 },
	[TXRDMA_A_PEER_RX_US]	 = { .type = NLA_U32 },
	[TXRDMA_A_PEER_MULT]	 = { .type = NLA_U8 },
	[TXRDMA_A_PEER_ADMIN_UP] = NLA_POLICY_MAX(NLA_U8, 1),
	[TXRDMA_A_PEER_KEY]	 = NLA_POLICY_RANGE(NLA_BINARY,
						    TXRDMA_PEER_KEY_MIN,
						    TXRDMA_PEER_KEY_MAX),
	[TXRDMA_A_PEER_PATH_OF]	 = { .type = NLA_NUL_STRING,
				     .len = TXRDMA_PEER_NAME_MAX - 1 },
};

static void txrdma_peer_release(struct kref *ref)
{
	struct txrdma_peer *peer = container_of(ref, struct txrdma_peer, ref);

	/* timer and work are stopped before the list's reference goes */
	kfree_rcu(peer, rcu);
}

void txrdma_peer_put(struct txrdma_peer *peer)
{
	kref_put(&peer->ref, txrdma_peer_release);
}

/**
 * txrdma_peer_find_addr() - the live peer with an address
 * @addr: IPv4 address, network order
 *
 * For rdma_cm handlers, which must not wait for txrdma_peers_lock
 * (peer deletion holds it while destroying cm_ids).
 * Return: the peer with a reference (txrdma_peer_put()), or NULL.
 */
struct txrdma_peer *txrdma_peer_find_addr(__be32 addr)
{
	struct txrdma_peer *peer, *found = NULL;

	rcu_read_lock();
	list_for_each_entry_rcu(peer, &txrdma_peers, node) {
		if (peer->addr == addr) {
			if (kref_get_unless_zero(&peer->ref))
				found = peer;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

static struct txrdma_peer *txrdma_peer_find_locked(const char *name);

/**
 * txrdma_peer_get_name() - a live peer by name, for an endpoint
 * @name: peer name
 *
 * Return: the peer with a reference (txrdma_peer_put()), or NULL.
 */
struct txrdma_peer *txrdma_peer_get_name(const char *name)
{
	struct txrdma_peer *peer;

	mutex_lock(&txrdma_peers_lock);
	peer = txrdma_peer_find_locked(name);
	if (peer)
		kref_get(&peer->ref);
	mutex_unlock(&txrdma_peers_lock);
	return peer;
}

/**
 * txrdma_peer_paths() - the other paths to a peer's host
 * @peer: a peer
 * @out: filled with the live peers of @peer's group but @peer, in the
 *	order they were added, each referenced (txrdma_peer_put())
 * @max: room in @out
 *
 * Return: how many.
 */
unsigned int txrdma_peer_paths(struct txrdma_peer *peer,
			       struct txrdma_peer **out, unsigned int max)
{
	struct txrdma_peer *p;
	unsigned int n = 0;

	rcu_read_lock();
	list_for_each_entry_rcu(p, &txrdma_peers, node) {
		if (n == max)
			break;
		if (p == peer || p->group != peer->group ||
		    READ_ONCE(p->dying))
			continue;
		if (kref_get_unless_zero(&p->ref))
			out[n++] = p;
	}
	rcu_read_unlock();
	return n;
}

/**
 * txrdma_peer_kick() - run the peer's work item now
 * @peer: peer; caller holds peer->lock, so a dying peer (whose work is
 *	being cancelled) is never queued again
 */
void txrdma_peer_kick(struct txrdma_peer *peer)
{
	if (!peer->dying)
		mod_delayed_work(txrdma_peer_wq, &peer->work, 0);
}

static void txrdma_peer_ctrl_backoff(struct txrdma_peer *peer, u64 now)
{
	peer->ctrl_backoff_ns = peer->ctrl_backoff_ns ?
		min_t(u64, peer->ctrl_backoff_ns * 2,
		      TXRDMA_POOL_BACKOFF_MAX_NS) :
		TXRDMA_POOL_BACKOFF_MIN_NS;
	peer->ctrl_retry_at_ns = now + peer->ctrl_backoff_ns;
}

/*
 * Caller holds the peer's lock: @c is closed on purpose (the work item
 * destroys it), and the txrdma_conn event says so.
 */
static void txrdma_conn_closing_locked(struct txrdma_conn *c)
{
	u8 old = c->state;

	lockdep_assert_held(&c->peer->lock);
	c->state = TXRDMA_CONN_CLOSE;
	txrdma_conn_trace(c, old);
}

/**
 * txrdma_peer_conn_done() - a connection was established or ended
 * @peer: its peer; caller holds peer->lock
 * @c: the connection
 * @state: TXRDMA_CONN_READY, _FAILED, _ERROR or _CLOSE
 *
 * Keeps the pool's counts and the control QP in step with the
 * connection and schedules the work item, which destroys what ended.
 */
void txrdma_peer_conn_done(struct txrdma_peer *peer, struct txrdma_conn *c,
			   u8 state)
{
	u8 old = c->state;
	u64 now = ktime_get_ns();

	if (old != TXRDMA_CONN_CONNECTING && old != TXRDMA_CONN_READY)
		return;		/* already ended */
	if (state == TXRDMA_CONN_READY && old != TXRDMA_CONN_CONNECTING)
		return;
	c->state = state;

	if (c->kind == TXRDMA_CONN_CTRL && !c->mirror) {
		if (state == TXRDMA_CONN_READY) {
			struct txrdma_conn *prev = peer->ctrl;

			/* a newer control QP replaces an older one */
			peer->ctrl = c;
			if (prev && prev != c)
				txrdma_conn_closing_locked(prev);
			peer->ctrl_backoff_ns = 0;
			c->rx_last_ns = now;
			strscpy(peer->used_dev, c->dev->name,
				sizeof(peer->used_dev));
		} else if (peer->ctrl == c) {
			peer->ctrl = NULL;
		}
		if (!c->passive && old == TXRDMA_CONN_CONNECTING)
			peer->ctrl_pending = false;
		if (!c->passive && state == TXRDMA_CONN_FAILED)
			txrdma_peer_ctrl_backoff(peer, now);
	} else if (c->kind == TXRDMA_CONN_POOL) {
		/* an endpoint on it learns why; the QP is not reused */
		if (c->ep && state != TXRDMA_CONN_READY)
			txrdma_ep_detach_locked(c, state == TXRDMA_CONN_CLOSE ?
						-ENOTCONN : -EIO);
		if (c->acct == TXRDMA_ACCT_CONNECTING) {
			if (state == TXRDMA_CONN_READY) {
				txrdma_pool_connected(&peer->pool);
				c->acct = TXRDMA_ACCT_READY;
				txrdma_peer_lend_wake(peer);
			} else {
				txrdma_pool_connect_failed(&peer->pool, now);
				c->acct = TXRDMA_ACCT_NONE;
			}
		} else if (c->acct == TXRDMA_ACCT_READY &&
			   state != TXRDMA_CONN_READY) {
			txrdma_pool_qp_error(&peer->pool, false);
			c->acct = TXRDMA_ACCT_CLOSING;
		} else if (c->acct == TXRDMA_ACCT_IN_USE &&
			   state == TXRDMA_CONN_CLOSE) {
			/* closed on purpose (its endpoint pair ended) */
			txrdma_pool_retire(&peer->pool);
			c->acct = TXRDMA_ACCT_CLOSING;
		} else if (c->acct == TXRDMA_ACCT_IN_USE &&
			   state != TXRDMA_CONN_READY) {
			txrdma_pool_qp_error(&peer->pool, true);
			c->acct = TXRDMA_ACCT_CLOSING;
		}
	}
	txrdma_conn_trace(c, old);
	txrdma_peer_kick(peer);
}

/**
 * txrdma_peer_lend_wake() - a QP may be there to lend: wake connectors
 * @peer: the peer; any context (its lock may be held)
 *
 * Called when a pooled QP becomes ready or comes back, when the peer
 * goes Up and when it is deleted, so that a connect waiting for the
 * pool (txrdma_ioctl_ep_connect()) looks again instead of polling.
 */
void txrdma_peer_lend_wake(struct txrdma_peer *peer)
{
	if (wq_has_sleeper(&peer->lend_wait))
		wake_up_all(&peer->lend_wait);
}

/**
 * txrdma_peer_may_lend() - is it worth trying to take a QP of @peer?
 * @peer: the peer; caller holds no lock of it (sleeping context)
 *
 * Return: true when the peer is Up with a ready QP, or being deleted
 * (the take then says why), false while a connect should wait.
 */
bool txrdma_peer_may_lend(struct txrdma_peer *peer)
{
	bool ret;

	spin_lock_bh(&peer->lock);
	/* what txrdma_pair_take() and txrdma_pool_take() require */
	ret = peer->dying || (peer->bfd.state == TXRDMA_BFD_UP &&
			      peer->pool.up && peer->pool.ready);
	spin_unlock_bh(&peer->lock);
	return ret;
}

/**
 * txrdma_conn_usable() - is @c an established pooled QP?
 * @c: a connection of a peer whose lock the caller holds
 *
 * Pooled, connected and not being torn down: ours (counted by our
 * pool) or the mirror of one of the peer's (counted by its pool).
 * Whether it is free is txrdma_conn_lendable()'s question.
 */
bool txrdma_conn_usable(const struct txrdma_conn *c)
{
	lockdep_assert_held(&c->peer->lock);
	return c->kind == TXRDMA_CONN_POOL && c->state == TXRDMA_CONN_READY &&
	       !c->dead;
}

/**
 * txrdma_conn_lendable() - may a pooled QP be lent to an endpoint now?
 * @c: a connection of a peer whose lock the caller holds
 *
 * The one rule both kinds of endpoint (plain and pair) take QPs by
 * when they choose one: a usable QP that our pool counts as ready,
 * lent to nobody and carrying no endpoint's work requests.  (An
 * accepting pair does not choose: it binds the QP the connector named,
 * found by txrdma_conn_usable() and its number, and refuses it when it
 * is not free.)
 */
bool txrdma_conn_lendable(const struct txrdma_conn *c)
{
	return txrdma_conn_usable(c) && c->acct == TXRDMA_ACCT_READY &&
	       !c->ep && !c->held_ep;
}

/*
 * Caller holds peer->lock: close a ready or lent pooled QP on purpose,
 * after the pool has moved it to closing (to_close, peer_down).
 */
static void txrdma_peer_close_locked(struct txrdma_conn *c)
{
	lockdep_assert_held(&c->peer->lock);
	txrdma_conn_closing_locked(c);
	txrdma_ep_detach_locked(c, -ENOTCONN);
	if (c->acct == TXRDMA_ACCT_READY || c->acct == TXRDMA_ACCT_IN_USE)
		c->acct = TXRDMA_ACCT_CLOSING;
}

static const char *txrdma_peer_reason(const struct txrdma_peer_ev *e)
{
	if (e->deleted)
		return "peer deleted";
	if (e->state == TXRDMA_PEER_ADMIN_DOWN)
		return "administratively down";
	if (e->restart)
		return "peer restarted";
	switch (e->diag) {
	case TXRDMA_PEER_DIAG_DETECT_EXPIRED:
		return "detection time expired";
	case TXRDMA_PEER_DIAG_NEIGHBOR_DOWN:
		return "peer signalled down";
	}
	switch (e->state) {
	case TXRDMA_PEER_UP:
		switch (e->cause) {
		case TXRDMA_PEER_DOWN_PEER_STALL:
			return "session up: the Down was the peer's stall";
		case TXRDMA_PEER_DOWN_LOCAL_STALL:
			return "session up: the Down was this host's stall";
		case TXRDMA_PEER_DOWN_UNEXPLAINED:
			return "session up: probes were lost, no stall";
		case TXRDMA_PEER_DOWN_RESTART:
			return "session up: the peer had restarted";
		}
		return "session up";
	case TXRDMA_PEER_INIT:
		return "peer heard";
	}
	return e->old_state == TXRDMA_PEER_ADMIN_DOWN ?
	       "administratively up" : "peer down";
}

static void txrdma_peer_notify(struct txrdma_peer *peer,
			       const struct txrdma_peer_ev *e)
{
	struct sk_buff *skb;
	void *hdr;

	skb = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!skb)
		return;
	hdr = genlmsg_put(skb, 0, 0, &txrdma_genl_family, 0,
			  TXRDMA_CMD_PEER_STATE_NTF);
	if (!hdr)
		goto free;
	if (nla_put_string(skb, TXRDMA_A_PEER_NAME, peer->name) ||
	    nla_put_u32(skb, TXRDMA_A_PEER_ID, peer->id) ||
	    nla_put(skb, TXRDMA_A_PEER_ADDR, sizeof(peer->addr),
		    &peer->addr) ||
	    nla_put_u8(skb, TXRDMA_A_PEER_OLD_STATE, e->old_state) ||
	    nla_put_u8(skb, TXRDMA_A_PEER_STATE, e->state) ||
	    nla_put_u8(skb, TXRDMA_A_PEER_DIAG, e->diag) ||
	    nla_put_string(skb, TXRDMA_A_PEER_REASON,
			   txrdma_peer_reason(e)) ||
	    nla_put_u64_64bit(skb, TXRDMA_A_PEER_SILENCE_NS, e->silence_ns,
			      TXRDMA_A_PAD) ||
	    txrdma_nl_put_event_stamp(skb, e->time_ns))
		goto free;
	if (e->cause &&
	    (nla_put_u8(skb, TXRDMA_A_PEER_DOWN_CAUSE, e->cause) ||
	     nla_put_u64_64bit(skb, TXRDMA_A_PEER_DOWN_NS, e->down_ns,
			       TXRDMA_A_PAD) ||
	     nla_put_u64_64bit(skb, TXRDMA_A_PEER_DOWN_STALL_NS, e->stall_ns,
			       TXRDMA_A_PAD) ||
	     nla_put_u8(skb, TXRDMA_A_PEER_FLAP, e->flap)))
		goto free;
	genlmsg_end(skb, hdr);
	txrdma_nl_multicast(skb);
	return;

free:
	nlmsg_free(skb);
}

/* Multicast every queued state change, oldest first. */
static void txrdma_peer_flush_events(struct txrdma_peer *peer)
{
	struct txrdma_peer_ev e;

	for (;;) {
		spin_lock_bh(&peer->lock);
		if (!peer->ev_count) {
			spin_unlock_bh(&peer->lock);
			return;
		}
		e = peer->evq[peer->ev_head];
		peer->ev_head = (peer->ev_head + 1) % TXRDMA_PEER_EVQ;
		peer->ev_count--;
		spin_unlock_bh(&peer->lock);
		txrdma_peer_notify(peer, &e);
	}
}

/* Destroy connections taken off the peer's list; settle the pool. */
static void txrdma_peer_destroy_conns(struct txrdma_peer *peer,
				      struct list_head *doomed)
{
	struct txrdma_conn *c, *tmp;
	bool closing;

	list_for_each_entry_safe(c, tmp, doomed, node) {
		list_del(&c->node);
		closing = c->acct == TXRDMA_ACCT_CLOSING;
		kref_get(&peer->ref);	/* c's reference goes with c */
		txrdma_conn_destroy(c);
		if (closing) {
			spin_lock_bh(&peer->lock);
			txrdma_pool_closed(&peer->pool);
			spin_unlock_bh(&peer->lock);
		}
		txrdma_peer_put(peer);
	}
}

static bool txrdma_conn_ended(const struct txrdma_conn *c)
{
	return c->state == TXRDMA_CONN_FAILED ||
	       c->state == TXRDMA_CONN_ERROR ||
	       c->state == TXRDMA_CONN_CLOSE;
}

static void txrdma_peer_work(struct work_struct *work)
{
	struct txrdma_peer *peer = container_of(to_delayed_work(work),
						struct txrdma_peer, work);
	struct txrdma_conn *c, *tmp;
	u64 now, next = U64_MAX, t;
	u32 n_connect = 0, n_close;
	bool want_ctrl = false;
	LIST_HEAD(doomed);

	txrdma_peer_flush_events(peer);

	now = ktime_get_ns();
	spin_lock_bh(&peer->lock);
	/* liveness drives the pool: Down closes everything at once */
	if (peer->bfd.state == TXRDMA_BFD_UP && !peer->pool.up) {
		txrdma_pool_peer_up(&peer->pool, now);
		txrdma_peer_lend_wake(peer);
	} else if (peer->bfd.state != TXRDMA_BFD_UP && peer->pool.up) {
		txrdma_pool_peer_down(&peer->pool, now);
		list_for_each_entry(c, &peer->conns, node) {
			if (c->kind != TXRDMA_CONN_POOL)
				continue;
			if (c->state == TXRDMA_CONN_READY)
				txrdma_peer_close_locked(c);
			else if (c->state == TXRDMA_CONN_CONNECTING)
				txrdma_peer_conn_done(peer, c,
						      TXRDMA_CONN_FAILED);
		}
	}
	list_for_each_entry(c, &peer->conns, node) {
		if (c->state != TXRDMA_CONN_CONNECTING)
			continue;
		t = c->started_ns + TXRDMA_CONNECT_TIMEOUT_NS;
		if ((s64)(now - t) >= 0)
			txrdma_peer_conn_done(peer, c, TXRDMA_CONN_FAILED);
		else
			next = min(next, t);
	}
	if (peer->role == TXRDMA_PEER_ROLE_INITIATOR) {
		n_close = txrdma_pool_to_close(&peer->pool, now);
		list_for_each_entry(c, &peer->conns, node) {
			if (!n_close)
				break;
			/* only ready QPs: the pool counted no lent one */
			if (c->kind == TXRDMA_CONN_POOL &&
			    c->acct == TXRDMA_ACCT_READY &&
			    c->state == TXRDMA_CONN_READY) {
				txrdma_peer_close_locked(c);
				n_close--;
			}
		}
	}
	/* a control QP that hears nothing while the session is down */
	c = peer->ctrl;
	if (c && peer->bfd.state != TXRDMA_BFD_UP) {
		t = c->rx_last_ns + TXRDMA_CTRL_STALE_NS;
		if ((s64)(now - t) >= 0) {
			txrdma_peer_conn_done(peer, c, TXRDMA_CONN_CLOSE);
			pr_info_ratelimited("txrdma: peer %s: control QP silent for %llu ms while down, closed\n",
					    peer->name,
					    TXRDMA_CTRL_STALE_NS / NSEC_PER_MSEC);
		} else {
			next = min(next, t);
		}
	}
	list_for_each_entry_safe(c, tmp, &peer->conns, node)
		if (txrdma_conn_ended(c))
			list_move_tail(&c->node, &doomed);

	if (!peer->dying && peer->role != TXRDMA_PEER_ROLE_ACCEPTOR &&
	    !peer->ctrl && !peer->ctrl_pending) {
		if ((s64)(now - peer->ctrl_retry_at_ns) >= 0) {
			peer->ctrl_pending = true;
			want_ctrl = true;
		} else {
			next = min(next, peer->ctrl_retry_at_ns);
		}
	}
	/* only the initiator connects and shrinks: the acceptor just takes */
	if (!peer->dying && peer->role == TXRDMA_PEER_ROLE_INITIATOR) {
		n_connect = txrdma_pool_to_connect(&peer->pool, now);
		next = min(next, txrdma_pool_next_event(&peer->pool, now));
	}
	spin_unlock_bh(&peer->lock);

	txrdma_peer_destroy_conns(peer, &doomed);

	if (want_ctrl &&
	    txrdma_conn_start(peer, TXRDMA_CONN_CTRL, TXRDMA_ACCT_NONE)) {
		spin_lock_bh(&peer->lock);
		peer->ctrl_pending = false;
		txrdma_peer_ctrl_backoff(peer, now);
		next = min(next, peer->ctrl_retry_at_ns);
		spin_unlock_bh(&peer->lock);
	}
	/* what starts now must be timed out too, not only what was here */
	if (want_ctrl || n_connect)
		next = min(next, ktime_get_ns() + TXRDMA_CONNECT_TIMEOUT_NS);
	for (; n_connect; n_connect--) {
		if (!txrdma_conn_start(peer, TXRDMA_CONN_POOL,
				       TXRDMA_ACCT_CONNECTING))
			continue;
		spin_lock_bh(&peer->lock);
		txrdma_pool_connect_failed(&peer->pool, now);
		spin_unlock_bh(&peer->lock);
	}
	if (next != U64_MAX) {
		now = ktime_get_ns();
		t = (s64)(next - now) > 0 ? next - now : 0;
		spin_lock_bh(&peer->lock);
		/* never postpone a kick that arrived meanwhile */
		if (!peer->dying)
			queue_delayed_work(txrdma_peer_wq, &peer->work,
					   nsecs_to_jiffies(t) + 1);
		spin_unlock_bh(&peer->lock);
	}
}

/* Stop everything a peer runs and free its connections. */
static void txrdma_peer_shutdown(struct txrdma_peer *peer)
{
	struct txrdma_conn *c;
	u64 now = ktime_get_ns();
	LIST_HEAD(doomed);
	u8 old;
	u32 ev;

	spin_lock_bh(&peer->lock);
	/* tell the peer at once, so it does not wait for a timeout */
	old = peer->bfd.state;
	ev = txrdma_bfd_admin_down(&peer->bfd, now);
	peer->dying = true;
	txrdma_peer_lend_wake(peer);
	txrdma_peer_state_changed(peer, old, ev, now);
	txrdma_ctrl_send_locked(peer, now);
	spin_unlock_bh(&peer->lock);

	txrdma_liveness_stop(peer);
	cancel_delayed_work_sync(&peer->work);

	spin_lock_bh(&peer->lock);
	list_for_each_entry(c, &peer->conns, node) {
		txrdma_ep_detach_locked(c, -ENOTCONN);
		txrdma_conn_closing_locked(c);
		c->acct = TXRDMA_ACCT_NONE;	/* the pool goes with the peer */
	}
	list_splice_init(&peer->conns, &doomed);
	spin_unlock_bh(&peer->lock);
	txrdma_peer_destroy_conns(peer, &doomed);
	/* its sessions that moved to another path end too */
	txrdma_eps_peer_gone(peer);
	txrdma_peer_flush_events(peer);
	/*
	 * Every connection is drained and gone, and rdma_cm handlers see
	 * the peer dying before they would use the key: nobody holds it.
	 */
	txrdma_auth_free(&peer->auth);
	txrdma_peer_put(peer);	/* the list's reference */
}

/**
 * txrdma_peers_drop_dev() - tear down every connection through a device
 * @dev: device being removed, already off the device list
 *
 * Also those whose device is not known yet: an attempt between address
 * resolution and recording its device could hold @dev; it is simply
 * retried later.  Called from the ib_client remove callback, which
 * then waits for the device's users.
 */
void txrdma_peers_drop_dev(struct txrdma_dev *dev)
{
	struct txrdma_peer *peer;
	struct txrdma_conn *c, *tmp;
	LIST_HEAD(doomed);

	mutex_lock(&txrdma_peers_lock);
	list_for_each_entry(peer, &txrdma_peers, node) {
		spin_lock_bh(&peer->lock);
		list_for_each_entry_safe(c, tmp, &peer->conns, node) {
			if (c->dev && c->dev != dev)
				continue;
			txrdma_peer_conn_done(peer, c, TXRDMA_CONN_ERROR);
			if (c->state == TXRDMA_CONN_CONNECTING ||
			    c->state == TXRDMA_CONN_READY)
				txrdma_peer_close_locked(c);
			list_move_tail(&c->node, &doomed);
		}
		spin_unlock_bh(&peer->lock);
		txrdma_peer_destroy_conns(peer, &doomed);
	}
	mutex_unlock(&txrdma_peers_lock);
}

/* extack with a message chosen at run time (always a static string) */
static void txrdma_extack_set(struct netlink_ext_ack *extack, const char *msg)
{
	if (extack && msg)
		extack->_msg = msg;
}

static bool txrdma_peer_name_ok(const char *name)
{
	const char *p;

	if (!*name)
		return false;
	for (p = name; *p; p++)
		/* isalnum() alone admits Latin-1 letters (0xc0..0xff) */
		if (!isascii(*p) ||
		    (!isalnum(*p) && *p != '_' && *p != '-' && *p != '.'))
			return false;
	return true;
}

static struct txrdma_peer *txrdma_peer_find_locked(const char *name)
{
	struct txrdma_peer *peer;

	lockdep_assert_held(&txrdma_peers_lock);
	list_for_each_entry(peer, &txrdma_peers, node)
		if (!strcmp(peer->name, name))
			return peer;
	return NULL;
}

/*
 * Refuse an address nobody could reach over RDMA, now rather than by a
 * connection that never comes up: not unicast, no route, or a route
 * through a net device without an RDMA device txrdma may use.
 */
static int txrdma_peer_route_check(__be32 addr, const char *devname,
				   bool *self, struct netlink_ext_ack *extack)
{
	struct net_device *ndev;
	struct ib_device *ibdev;
	struct txrdma_dev *dev;
	struct rtable *rt;
	int ret = 0;

	if (ipv4_is_zeronet(addr) || ipv4_is_multicast(addr) ||
	    ipv4_is_lbcast(addr) || ipv4_is_loopback(addr)) {
		NL_SET_ERR_MSG_MOD(extack,
				   "peer address must be a unicast address of an RDMA interface");
		return -EINVAL;
	}
	rt = ip_route_output(&init_net, addr, 0, 0, 0);
	if (IS_ERR(rt)) {
		NL_SET_ERR_MSG_MOD(extack, "no route to the peer address");
		return -ENETUNREACH;
	}
	*self = rt->rt_type == RTN_LOCAL;
	if (*self) {
		ndev = ip_dev_find(&init_net, addr);
	} else {
		ndev = rt->dst.dev;
		dev_hold(ndev);
	}
	ip_rt_put(rt);
	if (!ndev) {
		NL_SET_ERR_MSG_MOD(extack, "no route to the peer address");
		return -ENETUNREACH;
	}
	ibdev = ib_device_get_by_netdev(ndev, RDMA_DRIVER_UNKNOWN);
	dev_put(ndev);
	if (!ibdev) {
		NL_SET_ERR_MSG_MOD(extack,
				   "the route to the peer uses a net device without an RDMA device");
		return -ENETUNREACH;
	}
	if (*devname && strcmp(dev_name(&ibdev->dev), devname)) {
		NL_SET_ERR_MSG_MOD(extack,
				   "the route to the peer does not use the given RDMA device");
		ret = -EINVAL;
		goto out_put;
	}
	dev = txrdma_dev_get_ibdev(ibdev);
	if (!dev) {
		NL_SET_ERR_MSG_MOD(extack,
				   "the RDMA device towards the peer is disabled in txrdma or cannot register memory");
		ret = -ENODEV;
		goto out_put;
	}
	txrdma_dev_user_put(dev);
out_put:
	ib_device_put(ibdev);
	return ret;
}

/* Parse liveness parameters over @cfg; sets extack on error. */
static int txrdma_peer_parse_bfd(struct genl_info *info,
				 struct txrdma_bfd_cfg *cfg, bool *given)
{
	struct nlattr **a = info->attrs;
	const char *reason = NULL;

	*given = a[TXRDMA_A_PEER_TX_US] || a[TXRDMA_A_PEER_RX_US] ||
		 a[TXRDMA_A_PEER_MULT];
	if (a[TXRDMA_A_PEER_TX_US])
		cfg->desired_min_tx_us = nla_get_u32(a[TXRDMA_A_PEER_TX_US]);
	if (a[TXRDMA_A_PEER_RX_US])
		cfg->required_min_rx_us = nla_get_u32(a[TXRDMA_A_PEER_RX_US]);
	if (a[TXRDMA_A_PEER_MULT])
		cfg->detect_mult = nla_get_u8(a[TXRDMA_A_PEER_MULT]);
	if (txrdma_bfd_cfg_check(cfg, &reason)) {
		txrdma_extack_set(info->extack, reason);
		return -EINVAL;
	}
	return 0;
}

static int txrdma_peer_parse_pool(struct genl_info *info, u32 *min, u32 *max)
{
	struct nlattr **a = info->attrs;
	const char *reason = NULL;

	if (a[TXRDMA_A_PEER_POOL_MIN])
		*min = nla_get_u32(a[TXRDMA_A_PEER_POOL_MIN]);
	if (a[TXRDMA_A_PEER_POOL_MAX])
		*max = nla_get_u32(a[TXRDMA_A_PEER_POOL_MAX]);
	/* "pool 20" alone raises max with min */
	if (a[TXRDMA_A_PEER_POOL_MIN] && !a[TXRDMA_A_PEER_POOL_MAX] &&
	    *min > *max)
		*max = *min;
	if (txrdma_pool_cfg_check(*min, *max, &reason)) {
		txrdma_extack_set(info->extack, reason);
		return -EINVAL;
	}
	return 0;
}

static u32 txrdma_peer_new_disc_locked(void)
{
	struct txrdma_peer *peer;
	u32 disc;

	lockdep_assert_held(&txrdma_peers_lock);
again:
	disc = get_random_u32();
	if (!disc)
		goto again;
	list_for_each_entry(peer, &txrdma_peers, node)
		if (peer->bfd.local_disc == disc)
			goto again;
	return disc;
}

/*
 * Caller holds txrdma_peers_lock: @peer is another path (address,
 * device) to the host of the peer named by @attr, if given: it joins
 * that peer's group.  A self peer has no other path.
 */
static int txrdma_peer_path_of_locked(struct txrdma_peer *peer,
				      const struct nlattr *attr,
				      struct netlink_ext_ack *extack)
{
	struct txrdma_peer *o;

	lockdep_assert_held(&txrdma_peers_lock);
	if (!attr)
		return 0;
	o = txrdma_peer_find_locked(nla_data(attr));
	if (!o) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "path-of: no such peer");
		return -ENOENT;
	}
	if (o->self || peer->self) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "path-of: this host has no other path to itself");
		return -EINVAL;
	}
	peer->group = o->group;
	strscpy(peer->path_of, o->name, sizeof(peer->path_of));
	return 0;
}

int txrdma_nl_peer_new_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr **a = info->attrs;
	struct txrdma_bfd_cfg cfg;
	struct txrdma_peer *peer, *o;
	u32 min = TXRDMA_POOL_DEF_MIN, max = TXRDMA_POOL_DEF_MAX;
	u64 now = ktime_get_ns();
	bool given;
	int ret;

	if (!a[TXRDMA_A_PEER_NAME] || !a[TXRDMA_A_PEER_ADDR]) {
		NL_SET_ERR_MSG_MOD(extack, "peer name and addr are required");
		return -EINVAL;
	}
	/* a source address proves nothing: a peer is who holds the key */
	if (!a[TXRDMA_A_PEER_KEY]) {
		NL_SET_ERR_MSG_MOD(extack,
				   "a peer needs a key (16-64 bytes) that both hosts hold");
		return -EINVAL;
	}
	if (!txrdma_peer_name_ok(nla_data(a[TXRDMA_A_PEER_NAME]))) {
		NL_SET_ERR_MSG_ATTR(extack, a[TXRDMA_A_PEER_NAME],
				    "peer names are 1-31 of A-Z a-z 0-9 _ - .");
		return -EINVAL;
	}
	txrdma_bfd_cfg_default(&cfg);
	ret = txrdma_peer_parse_bfd(info, &cfg, &given);
	if (ret)
		return ret;
	ret = txrdma_peer_parse_pool(info, &min, &max);
	if (ret)
		return ret;

	peer = kzalloc(sizeof(*peer), GFP_KERNEL);
	if (!peer)
		return -ENOMEM;
	strscpy(peer->name, nla_data(a[TXRDMA_A_PEER_NAME]),
		sizeof(peer->name));
	peer->addr = nla_get_in_addr(a[TXRDMA_A_PEER_ADDR]);
	peer->port = a[TXRDMA_A_PEER_PORT] ?
		     nla_get_u16(a[TXRDMA_A_PEER_PORT]) : port;
	if (a[TXRDMA_A_PEER_DEV])
		strscpy(peer->devname, nla_data(a[TXRDMA_A_PEER_DEV]),
			sizeof(peer->devname));
	ret = txrdma_peer_route_check(peer->addr, peer->devname, &peer->self,
				      extack);
	if (ret)
		goto out_free;
	ret = txrdma_auth_init(&peer->auth, nla_data(a[TXRDMA_A_PEER_KEY]),
			       nla_len(a[TXRDMA_A_PEER_KEY]));
	if (ret) {
		NL_SET_ERR_MSG_MOD(extack,
				   "cannot set up HMAC-SHA256 with that key");
		goto out_free;
	}
	kref_init(&peer->ref);
	init_waitqueue_head(&peer->lend_wait);
	spin_lock_init(&peer->lock);
	INIT_LIST_HEAD(&peer->conns);
	INIT_DELAYED_WORK(&peer->work, txrdma_peer_work);
	txrdma_liveness_init(peer);
	txrdma_pool_init(&peer->pool, min, max, now);
	peer->admin_up = !a[TXRDMA_A_PEER_ADMIN_UP] ||
			 nla_get_u8(a[TXRDMA_A_PEER_ADMIN_UP]);
	peer->ctrl_retry_at_ns = now;

	mutex_lock(&txrdma_peers_lock);
	if (txrdma_peer_find_locked(peer->name)) {
		NL_SET_ERR_MSG_ATTR(extack, a[TXRDMA_A_PEER_NAME],
				    "a peer of that name exists");
		ret = -EEXIST;
		goto out_unlock;
	}
	list_for_each_entry(o, &txrdma_peers, node) {
		if (o->addr == peer->addr) {
			NL_SET_ERR_MSG_ATTR(extack, a[TXRDMA_A_PEER_ADDR],
					    "another peer has that address");
			ret = -EEXIST;
			goto out_unlock;
		}
	}
	if (txrdma_npeers >= TXRDMA_MAX_PEERS) {
		NL_SET_ERR_MSG_MOD(extack, "too many peers");
		ret = -ENOSPC;
		goto out_unlock;
	}
	ret = txrdma_peer_path_of_locked(peer, a[TXRDMA_A_PEER_PATH_OF],
					 extack);
	if (ret)
		goto out_unlock;
	ret = txrdma_bfd_init(&peer->bfd, &cfg,
			      txrdma_peer_new_disc_locked(), now);
	if (ret)
		goto out_unlock;
	if (!peer->admin_up)
		txrdma_bfd_admin_down(&peer->bfd, now);
	peer->id = txrdma_peer_next_id++;
	if (!peer->group)
		peer->group = peer->id;
	list_add_tail_rcu(&peer->node, &txrdma_peers);
	txrdma_npeers++;
	txrdma_liveness_start(peer);
	spin_lock_bh(&peer->lock);
	txrdma_peer_kick(peer);
	spin_unlock_bh(&peer->lock);
	mutex_unlock(&txrdma_peers_lock);
	return 0;

out_unlock:
	mutex_unlock(&txrdma_peers_lock);
out_free:
	txrdma_auth_free(&peer->auth);
	kfree(peer);	/* never published */
	return ret;
}

int txrdma_nl_peer_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr **a = info->attrs;
	struct txrdma_bfd_cfg cfg;
	struct txrdma_peer *peer;
	const char *reason = NULL;
	u64 now = ktime_get_ns();
	u32 min, max, ev = 0;
	bool given;
	u8 old;
	int ret;

	if (!a[TXRDMA_A_PEER_NAME]) {
		NL_SET_ERR_MSG_MOD(extack, "peer name is required");
		return -EINVAL;
	}
	if (a[TXRDMA_A_PEER_ADDR] || a[TXRDMA_A_PEER_PORT] ||
	    a[TXRDMA_A_PEER_DEV] || a[TXRDMA_A_PEER_KEY] ||
	    a[TXRDMA_A_PEER_PATH_OF]) {
		NL_SET_ERR_MSG_MOD(extack,
				   "addr, port, dev, key and path-of cannot change: delete and add the peer");
		return -EINVAL;
	}
	mutex_lock(&txrdma_peers_lock);
	peer = txrdma_peer_find_locked(nla_data(a[TXRDMA_A_PEER_NAME]));
	if (!peer) {
		NL_SET_ERR_MSG_ATTR(extack, a[TXRDMA_A_PEER_NAME],
				    "no such peer");
		ret = -ENOENT;
		goto out_unlock;
	}
	spin_lock_bh(&peer->lock);
	cfg = peer->bfd.cfg;
	min = peer->pool.min;
	max = peer->pool.max;
	spin_unlock_bh(&peer->lock);
	ret = txrdma_peer_parse_bfd(info, &cfg, &given);
	if (!ret)
		ret = txrdma_peer_parse_pool(info, &min, &max);
	if (ret)
		goto out_unlock;

	spin_lock_bh(&peer->lock);
	old = peer->bfd.state;
	if (given)
		ret = txrdma_bfd_set_cfg(&peer->bfd, &cfg, now, &reason);
	if (!ret)
		ret = txrdma_pool_set(&peer->pool, min, max, &reason);
	if (!ret && a[TXRDMA_A_PEER_ADMIN_UP]) {
		peer->admin_up = nla_get_u8(a[TXRDMA_A_PEER_ADMIN_UP]);
		ev = peer->admin_up ? txrdma_bfd_admin_up(&peer->bfd, now) :
				      txrdma_bfd_admin_down(&peer->bfd, now);
		txrdma_peer_state_changed(peer, old, ev, now);
		if (ev & TXRDMA_BFD_EV_TX_NOW)
			txrdma_ctrl_send_locked(peer, now);
	}
	txrdma_peer_kick(peer);
	spin_unlock_bh(&peer->lock);
	if (ret)
		txrdma_extack_set(extack, reason);
out_unlock:
	mutex_unlock(&txrdma_peers_lock);
	return ret;
}

int txrdma_nl_peer_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *name = info->attrs[TXRDMA_A_PEER_NAME];
	struct txrdma_peer *peer;

	if (!name) {
		NL_SET_ERR_MSG_MOD(info->extack, "peer name is required");
		return -EINVAL;
	}
	mutex_lock(&txrdma_peers_lock);
	peer = txrdma_peer_find_locked(nla_data(name));
	if (!peer) {
		mutex_unlock(&txrdma_peers_lock);
		NL_SET_ERR_MSG_ATTR(info->extack, name, "no such peer");
		return -ENOENT;
	}
	list_del_rcu(&peer->node);
	txrdma_npeers--;
	mutex_unlock(&txrdma_peers_lock);
	/* rdma_cm handlers may look it up until now: they see it dying */
	txrdma_peer_shutdown(peer);
	return 0;
}

/* A consistent copy of what "peer show" reports. */
struct txrdma_peer_snap {
	struct txrdma_bfd bfd;
	struct txrdma_pool pool;
	struct txrdma_rtt rtt;
	u8 role;
	__be32 local_addr;
	char used_dev[TXRDMA_DEV_NAME_MAX];
	bool admin_up;
	u64 last_change_ns;
	u64 silence_ns;
	u64 ups, downs, tx_skipped, stall_max_ns;
	u64 flaps, downs_stalled, downs_unexplained, peer_stall_max_ns;
	u64 auth_fails, rx_auth_dropped;
	u32 qps;
};

static void txrdma_peer_snapshot(struct txrdma_peer *peer,
				 struct txrdma_peer_snap *s)
{
	struct txrdma_conn *c;

	spin_lock_bh(&peer->lock);
	s->bfd = peer->bfd;
	s->pool = peer->pool;
	s->rtt = peer->rtt;
	s->role = peer->role;
	s->local_addr = peer->local_addr;
	strscpy(s->used_dev, peer->ctrl ? peer->used_dev : "",
		sizeof(s->used_dev));
	s->admin_up = peer->admin_up;
	s->last_change_ns = peer->last_change_ns;
	s->silence_ns = ktime_get_ns() - peer->bfd.last_rx_ns;
	s->ups = peer->ups;
	s->downs = peer->downs;
	s->tx_skipped = peer->tx_skipped;
	s->stall_max_ns = peer->stall_max_ns;
	s->flaps = peer->flaps;
	s->downs_stalled = peer->downs_stalled;
	s->downs_unexplained = peer->downs_unexplained;
	s->peer_stall_max_ns = peer->peer_stall_max_ns;
	s->auth_fails = peer->auth_fails;
	s->rx_auth_dropped = peer->rx_auth_dropped;
	s->qps = 0;
	list_for_each_entry(c, &peer->conns, node)
		s->qps += c->state == TXRDMA_CONN_READY;
	spin_unlock_bh(&peer->lock);
}

static int txrdma_peer_fill(struct sk_buff *skb, struct txrdma_peer *peer,
			    u32 portid, u32 seq, int flags)
{
	struct txrdma_peer_snap *s;
	void *hdr;
	int ret = -EMSGSIZE;

	s = kmalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	txrdma_peer_snapshot(peer, s);
	hdr = genlmsg_put(skb, portid, seq, &txrdma_genl_family, flags,
			  TXRDMA_CMD_PEER_GET);
	if (!hdr)
		goto out;
	if (nla_put_string(skb, TXRDMA_A_PEER_NAME, peer->name) ||
	    nla_put_u32(skb, TXRDMA_A_PEER_ID, peer->id) ||
	    nla_put(skb, TXRDMA_A_PEER_ADDR, 4, &peer->addr) ||
	    nla_put_u16(skb, TXRDMA_A_PEER_PORT, peer->port) ||
	    (peer->path_of[0] &&
	     nla_put_string(skb, TXRDMA_A_PEER_PATH_OF, peer->path_of)) ||
	    (s->used_dev[0] &&
	     nla_put_string(skb, TXRDMA_A_PEER_DEV, s->used_dev)) ||
	    (!s->used_dev[0] && peer->devname[0] &&
	     nla_put_string(skb, TXRDMA_A_PEER_DEV, peer->devname)) ||
	    (s->local_addr &&
	     nla_put(skb, TXRDMA_A_PEER_LOCAL_ADDR, 4, &s->local_addr)) ||
	    nla_put_u8(skb, TXRDMA_A_PEER_ROLE, s->role) ||
	    nla_put_u8(skb, TXRDMA_A_PEER_ADMIN_UP, s->admin_up) ||
	    nla_put_u8(skb, TXRDMA_A_PEER_STATE, s->bfd.state) ||
	    nla_put_u8(skb, TXRDMA_A_PEER_REMOTE_STATE, s->bfd.remote_state) ||
	    nla_put_u8(skb, TXRDMA_A_PEER_DIAG, s->bfd.diag) ||
	    nla_put_u32(skb, TXRDMA_A_PEER_TX_US,
			s->bfd.cfg.desired_min_tx_us) ||
	    nla_put_u32(skb, TXRDMA_A_PEER_RX_US,
			s->bfd.cfg.required_min_rx_us) ||
	    nla_put_u8(skb, TXRDMA_A_PEER_MULT, s->bfd.cfg.detect_mult) ||
	    nla_put_u32(skb, TXRDMA_A_PEER_NEG_TX_US,
			div_u64(s->bfd.tx_interval_ns, NSEC_PER_USEC)) ||
	    nla_put_u32(skb, TXRDMA_A_PEER_DETECT_US,
			div_u64(s->bfd.detect_ns, NSEC_PER_USEC)) ||
	    nla_put_u32(skb, TXRDMA_A_PEER_LOCAL_DISC, s->bfd.local_disc) ||
	    nla_put_u32(skb, TXRDMA_A_PEER_REMOTE_DISC, s->bfd.remote_disc) ||
	    nla_put_u64_64bit(skb, TXRDMA_A_PEER_TX_PKTS, s->bfd.tx_pkts,
			      TXRDMA_A_PAD) ||
	    nla_put_u64_64bit(skb, TXRDMA_A_PEER_RX_PKTS, s->bfd.rx_pkts,
			      TXRDMA_A_PAD) ||
	    nla_put_u64_64bit(skb, TXRDMA_A_PEER_RX_DROPPED,
			      s->bfd.rx_dropped, TXRDMA_A_PAD) ||
	    nla_put_u64_64bit(skb, TXRDMA_A_PEER_TX_SKIPPED, s->tx_skipped,
			      TXRDMA_A_PAD) ||
	    nla_put_u64_64bit(skb, TXRDMA_A_PEER_STALLS, s->bfd.stalls,
			      TXRDMA_A_PAD) ||
	    nla_put_u64_64bit(skb, TXRDMA_A_PEER_STALL_MAX_NS,
			      s->stall_max_ns, TXRDMA_A_PAD))
		goto cancel;
	if (nla_put_u64_64bit(skb, TXRDMA_A_PEER_RTT_MIN_NS, s->rtt.min_ns,
			      TXRDMA_A_PAD) ||
	    nla_put_u64_64bit(skb, TXRDMA_A_PEER_RTT_AVG_NS,
			      txrdma_rtt_avg(&s->rtt), TXRDMA_A_PAD) ||
	    nla_put_u64_64bit(skb, TXRDMA_A_PEER_RTT_MAX_NS, s->rtt.max_ns,
			      TXRDMA_A_PAD) ||
	    nla_put_u64_64bit(skb, TXRDMA_A_PEER_RTT_SAMPLES, s->rtt.samples,
			      TXRDMA_A_PAD) ||
	    nla_put_u64_64bit(skb, TXRDMA_A_PEER_LAST_CHANGE_NS,
			      s->last_change_ns, TXRDMA_A_PAD) ||
	    nla_put_u64_64bit(skb, TXRDMA_A_PEER_SILENCE_NS, s->silence_ns,
			      TXRDMA_A_PAD) ||
	    nla_put_u64_64bit(skb, TXRDMA_A_PEER_UPS, s->ups, TXRDMA_A_PAD) ||
	    nla_put_u64_64bit(skb, TXRDMA_A_PEER_DOWNS, s->downs,
			      TXRDMA_A_PAD) ||
	    nla_put_u64_64bit(skb, TXRDMA_A_PEER_FLAPS, s->flaps,
			      TXRDMA_A_PAD) ||
	    nla_put_u64_64bit(skb, TXRDMA_A_PEER_DOWNS_STALLED,
			      s->downs_stalled, TXRDMA_A_PAD) ||
	    nla_put_u64_64bit(skb, TXRDMA_A_PEER_DOWNS_UNEXPLAINED,
			      s->downs_unexplained, TXRDMA_A_PAD) ||
	    nla_put_u64_64bit(skb, TXRDMA_A_PEER_REMOTE_STALL_MAX_NS,
			      s->peer_stall_max_ns, TXRDMA_A_PAD) ||
	    nla_put_u32(skb, TXRDMA_A_PEER_POOL_MIN, s->pool.min) ||
	    nla_put_u32(skb, TXRDMA_A_PEER_POOL_MAX, s->pool.max) ||
	    nla_put_u32(skb, TXRDMA_A_PEER_POOL_READY, s->pool.ready) ||
	    nla_put_u32(skb, TXRDMA_A_PEER_POOL_IN_USE, s->pool.in_use) ||
	    nla_put_u32(skb, TXRDMA_A_PEER_POOL_CONNECTING,
			s->pool.connecting) ||
	    nla_put_u32(skb, TXRDMA_A_PEER_POOL_CLOSING, s->pool.closing) ||
	    nla_put_u64_64bit(skb, TXRDMA_A_PEER_POOL_TAKES, s->pool.takes,
			      TXRDMA_A_PAD) ||
	    nla_put_u64_64bit(skb, TXRDMA_A_PEER_POOL_MISSES, s->pool.misses,
			      TXRDMA_A_PAD) ||
	    nla_put_u64_64bit(skb, TXRDMA_A_PEER_POOL_FAILURES,
			      s->pool.failures, TXRDMA_A_PAD) ||
	    nla_put_u64_64bit(skb, TXRDMA_A_PEER_POOL_ERRORS, s->pool.errors,
			      TXRDMA_A_PAD) ||
	    nla_put_u32(skb, TXRDMA_A_PEER_QPS, s->qps) ||
	    nla_put_u64_64bit(skb, TXRDMA_A_PEER_AUTH_FAILS, s->auth_fails,
			      TXRDMA_A_PAD) ||
	    nla_put_u64_64bit(skb, TXRDMA_A_PEER_RX_AUTH_DROPPED,
			      s->rx_auth_dropped, TXRDMA_A_PAD))
		goto cancel;
	genlmsg_end(skb, hdr);
	ret = 0;
	goto out;

cancel:
	genlmsg_cancel(skb, hdr);
out:
	kfree(s);
	return ret;
}

int txrdma_nl_peer_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *name = info->attrs[TXRDMA_A_PEER_NAME];
	struct txrdma_peer *peer;
	struct sk_buff *msg;
	int ret;

	if (!name) {
		NL_SET_ERR_MSG_MOD(info->extack, "peer name is required");
		return -EINVAL;
	}
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	mutex_lock(&txrdma_peers_lock);
	peer = txrdma_peer_find_locked(nla_data(name));
	if (peer) {
		ret = txrdma_peer_fill(msg, peer, info->snd_portid,
				       info->snd_seq, 0);
	} else {
		NL_SET_ERR_MSG_ATTR(info->extack, name, "no such peer");
		ret = -ENOENT;
	}
	mutex_unlock(&txrdma_peers_lock);
	if (ret) {
		nlmsg_free(msg);
		return ret;
	}
	return genlmsg_reply(msg, info);
}

/* cb->args[0]: id of the last peer dumped (ids only grow). */
int txrdma_nl_peer_get_dumpit(struct sk_buff *skb,
			      struct netlink_callback *cb)
{
	struct txrdma_peer *peer;
	int ret = 0, n = 0;

	mutex_lock(&txrdma_peers_lock);
	list_for_each_entry(peer, &txrdma_peers, node) {
		if (peer->id <= cb->args[0])
			continue;
		ret = txrdma_peer_fill(skb, peer, NETLINK_CB(cb->skb).portid,
				       cb->nlh->nlmsg_seq, NLM_F_MULTI);
		if (ret)
			break;
		cb->args[0] = peer->id;
		n++;
	}
	mutex_unlock(&txrdma_peers_lock);
	if (ret && !n)
		return ret;
	return skb->len;
}

/**
 * txrdma_peers_init() - start listening for peers
 *
 * Return: 0 or -errno; the module does not load when its port is taken,
 * because peers could then never reach it.
 */
int txrdma_peers_init(void)
{
	int ret;

	do {
		txrdma_boot_id = get_random_u32();
	} while (!txrdma_boot_id);
	txrdma_peer_wq = alloc_workqueue("txrdma_peer", WQ_UNBOUND, 0);
	if (!txrdma_peer_wq)
		return -ENOMEM;
	ret = txrdma_listener_init(port);
	/* rdma_cm says EADDRNOTAVAIL when another wildcard bind has it */
	if (ret == -EADDRNOTAVAIL)
		ret = -EADDRINUSE;
	if (ret) {
		pr_err("txrdma: cannot listen on rdma_cm port %u: %d%s\n",
		       port, ret, ret == -EADDRINUSE ?
		       " (in use; load with port=N)" : "");
		destroy_workqueue(txrdma_peer_wq);
		return ret;
	}
	return 0;
}

void txrdma_peers_exit(void)
{
	struct txrdma_peer *peer;

	txrdma_listener_exit();
	for (;;) {
		mutex_lock(&txrdma_peers_lock);
		peer = list_first_entry_or_null(&txrdma_peers,
						struct txrdma_peer, node);
		if (peer) {
			list_del_rcu(&peer->node);
			txrdma_npeers--;
		}
		mutex_unlock(&txrdma_peers_lock);
		if (!peer)
			break;
		txrdma_peer_shutdown(peer);
	}
	destroy_workqueue(txrdma_peer_wq);
	rcu_barrier();	/* kfree_rcu of peers before the module goes */
}
