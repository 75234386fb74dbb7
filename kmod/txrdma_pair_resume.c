// SPDX-License-Identifier: GPL-2.0-only
/*
 * A pair that outlives its QP: the glue of txrdma_session.c's plan and
 * state machine (design.rst, "Sessions").
 *
 * A pair paired with TXRDMA_EP_F_SESSION does not fail when its QP is
 * lost (a failed work request, the other end's disconnect, the peer
 * Down) while its grace lasts.  Its SQEs wait (ep->sess_ready false,
 * txrdma_tx.c); what the old QP still completes is published as usual;
 * its sends that failed stay in their slots, unsettled.  Once the old
 * QP is gone (txrdma_pair_conn_destroyed(), the event DRAINED), the
 * connector takes a fresh QP of the peer's pool and sends EP_RESUME on
 * the control QP; the acceptor binds its end of that QP and answers
 * EP_RESUMED, each with its report; each side then sends again what
 * the other lacks (txrdma_tx_resume_locked()) and goes on.
 *
 * The state machine runs under ep->lock; what it asks for (close a QP,
 * take one, send a message, fail) runs in the endpoint's work item,
 * which also ticks every TXRDMA_RESUME_TICK_MS while the session is
 * away: the grace, the connector's retries, its search for a QP.  The
 * work item is cancelled when the process closes the endpoint; it is
 * never queued for a session that failed.
 *
 * The grace is the connector's (txrdma_ep_connect.grace_ms), carried
 * to the acceptor in CONNECT.  READ and WRITE in flight are settled by
 * txrdma_tx_resume_locked() (-ECONNABORTED, or run again when
 * idempotent).  The new QP may be on another path to the peer's host,
 * and on another device (txrdma_pair_path.c).
 *
 * Locking: ep->lock (_bh) over the session; the peer's lock is taken
 * only by the helpers called without ep->lock.
 */
#include <linux/jiffies.h>

#include "txrdma.h"
#include "txrdma_msg.h"
#include "txrdma_peer.h"
#include "txrdma_peer_wire.h"
#include "txrdma_ringfile.h"
#include "txrdma_service.h"
#include "txrdma_tenant.h"
#include "txrdma_trace.h"

/* how often an away session looks at its clock */
#define TXRDMA_RESUME_TICK_MS	10
/* how long the connector waits for RESUMED before it tries another QP */
#define TXRDMA_RESUME_ANSWER_NS	(200ULL * NSEC_PER_MSEC)

/* Caller holds ep->lock: feed @ev to the session, traced. */
static unsigned int txrdma_resume_ev_locked(struct txrdma_ep *ep,
					    enum txrdma_sess_ev ev, u32 gen,
					    int error)
{
	u8 old = ep->sess.state;
	unsigned int act;

	lockdep_assert_held(&ep->lock);
	act = txrdma_sess_event(&ep->sess, ev, gen, error, ktime_get_ns());
	/* a tick that changes nothing is not worth an event */
	if (ev != TXRDMA_SESS_EV_TICK || act || old != ep->sess.state)
		trace_txrdma_session(ep->tenant->id, ep->id, ev, old,
				     ep->sess.state, act, ep->sess.gen);
	return act;
}

static bool txrdma_resume_away(const struct txrdma_ep *ep)
{
	return ep->sess.state != TXRDMA_SESS_UP &&
	       ep->sess.state != TXRDMA_SESS_FAILED;
}

/* Caller holds ep->lock: let the work item do @act (and tick). */
static void txrdma_resume_queue_locked(struct txrdma_ep *ep, unsigned int act)
{
	lockdep_assert_held(&ep->lock);
	ep->sess_todo |= act;
	if (ep->sess_todo || txrdma_resume_away(ep))
		mod_delayed_work(txrdma_peer_wq, &ep->sess_work, 0);
}

/* Caller holds ep->lock: a pair that can still come back. */
bool txrdma_resume_keeps_locked(struct txrdma_ep *ep)
{
	lockdep_assert_held(&ep->lock);
	return ep->session && ep->dstate == TXRDMA_EP_CONNECTED &&
	       !ep->rx_stop && !READ_ONCE(ep->error) &&
	       ep->sess.state != TXRDMA_SESS_FAILED &&
	       !READ_ONCE(ep->peer->dying);
}

/**
 * txrdma_resume_lost_locked() - the pair's QP is lost
 * @ep: caller holds ep->lock
 * @error: why: -ECONNRESET (the QP failed or was closed by the other
 *	side) and -ENOTCONN (the peer went Down) leave a session its
 *	grace; anything else (a deleted tenant or peer, our own close, a
 *	bad frame) ends it
 *
 * Return: true when the session takes the loss (nothing fails now),
 * false when the caller fails the endpoint.
 */
bool txrdma_resume_lost_locked(struct txrdma_ep *ep, int error)
{
	unsigned int act;

	lockdep_assert_held(&ep->lock);
	if ((error != -ECONNRESET && error != -ENOTCONN) ||
	    !txrdma_resume_keeps_locked(ep))
		return false;
	/* exported: its sends stay unsettled for the export to take */
	if (ep->frozen) {
		ep->sess_ready = false;
		return true;
	}
	act = txrdma_resume_ev_locked(ep, TXRDMA_SESS_EV_LOST, 0, error);
	if (act & TXRDMA_SESS_DO_FAIL)
		return false;
	ep->sess_ready = false;
	/* the QP that failed is being closed by whoever saw it fail */
	txrdma_resume_queue_locked(ep, act & ~TXRDMA_SESS_DO_DRAIN);
	return true;
}

/**
 * txrdma_resume_drained_locked() - the pair's old QP is gone
 * @ep: caller holds ep->lock; no completion of that QP runs any more
 *
 * Return: true when the session goes on (the ring's and the exports'
 * keys stay: the other side will write with them again).
 */
bool txrdma_resume_drained_locked(struct txrdma_ep *ep)
{
	unsigned int act;

	lockdep_assert_held(&ep->lock);
	/* every completion of the QP that refused a frame is reaped */
	ep->rx_refused = false;
	/* exported: the keys die here (the export waits for this) */
	if (ep->frozen || !txrdma_resume_keeps_locked(ep) ||
	    !txrdma_resume_away(ep))
		return false;
	act = txrdma_resume_ev_locked(ep, TXRDMA_SESS_EV_DRAINED, 0, 0);
	txrdma_resume_queue_locked(ep, act);
	return !(act & TXRDMA_SESS_DO_FAIL);
}

/* The pair is a session from here on (connect or accept, paired). */
void txrdma_resume_start(struct txrdma_ep *ep, bool connector, u32 grace_ms)
{
	struct txrdma_dev *gone = NULL;

	spin_lock_bh(&ep->lock);
	ep->session = grace_ms > 0;
	txrdma_sess_init(&ep->sess, connector,
			 (u64)grace_ms * NSEC_PER_MSEC);
	ep->sess_dev = ep->dev;
	/*
	 * Its ring's device began to go before this was a session, so
	 * the removal's sweep (txrdma_eps_dev_gone()) passed it by, and
	 * the key there would hold the removal up until the grace ends:
	 * move or fail now.  The key holds the device until then.
	 */
	if (ep->session && ep->rx_mr && READ_ONCE(ep->rx_mr->dev->dying)) {
		gone = ep->rx_mr->dev;
		txrdma_dev_user_get(gone);
	}
	spin_unlock_bh(&ep->lock);
	if (gone) {
		txrdma_resume_dev_gone(ep, gone);
		txrdma_dev_user_put(gone);
	}
	if (grace_ms)
		txrdma_handoff_paired(ep, connector);
}

/**
 * txrdma_resume_import_start() - an imported session looks for its QP
 * @ep: built from the state (txrdma_pair_handoff.c), not reachable by
 *	its process yet
 *
 * As a connector whose QP was lost and reaped: its grace starts now,
 * its work item takes a QP (registering the ring on that QP's device),
 * sends HANDOFF and RESUME, and applies the answer.
 */
void txrdma_resume_import_start(struct txrdma_ep *ep)
{
	u64 now = ktime_get_ns();

	spin_lock_bh(&ep->lock);
	ep->session = true;
	txrdma_sess_init(&ep->sess, true,
			 (u64)ep->grace_ms * NSEC_PER_MSEC);
	ep->sess.state = TXRDMA_SESS_WAITING;
	ep->sess.deadline_ns = now + ep->sess.grace_ns;
	ep->sess.error = -ETIMEDOUT;
	ep->sess_ready = false;
	ep->sess_dev = NULL;	/* no key yet: the first QP registers */
	trace_txrdma_session(ep->tenant->id, ep->id, U8_MAX, TXRDMA_SESS_FAILED,
			     ep->sess.state, TXRDMA_SESS_DO_SEEK, 0);
	txrdma_resume_queue_locked(ep, TXRDMA_SESS_DO_SEEK);
	spin_unlock_bh(&ep->lock);
}

/**
 * txrdma_resume_moved_locked() - the other side moved to another host
 * @ep: caller holds ep->lock; its peer, its other side's endpoint and
 *	the secret are the new host's already
 *
 * The state machine decides (EV_HANDOFF): the mover drives the resume
 * from now on; a QP still bound to the old host is closed and reaped.
 * Nothing queued for the old host is done any more (a QP search, a
 * RESUME), and a RESUME held from it is dropped.  The ring is
 * registered anew with the next QP (the old host's module knew its
 * key), which ends the pair's exports as a move to another device
 * does; frames sent again get headers naming the new endpoint.
 *
 * Return: the path a held RESUME came through, for the caller to put.
 */
struct txrdma_peer *txrdma_resume_moved_locked(struct txrdma_ep *ep)
{
	struct txrdma_peer *from = ep->sess_from;
	unsigned int act;

	lockdep_assert_held(&ep->lock);
	ep->sess_from = NULL;
	ep->sess_todo &= ~(TXRDMA_SESS_DO_SEEK | TXRDMA_SESS_DO_RESUME |
			   TXRDMA_SESS_DO_ANSWER | TXRDMA_SESS_DO_APPLY);
	act = txrdma_resume_ev_locked(ep, TXRDMA_SESS_EV_HANDOFF, 0, 0);
	ep->sess_ready = false;
	ep->ho_rekey = true;
	ep->ho_rehead = true;
	/* the new host's ring is taken as it reports it; our imports end */
	ep->sess_rnew = true;
	if (!ep->rx_stop)
		txrdma_resume_queue_locked(ep, act);
	return from;
}

/**
 * txrdma_resume_dev_gone() - a device goes: a session on it moves or fails
 * @ep: an endpoint; caller holds no lock
 * @dev: the device
 *
 * Its ring's and exports' keys are registrations on @dev: they die now,
 * not at the end of the grace.  A session with another path to its
 * peer's host through another device goes on: the device's teardown
 * takes its QP next, and it resumes on that path, registering its ring
 * there (txrdma_path_rekey()).  Any other fails now (or when the QP
 * that still holds it is reaped, which the teardown does next).
 */
void txrdma_resume_dev_gone(struct txrdma_ep *ep, struct txrdma_dev *dev)
{
	bool drop, move = txrdma_path_elsewhere(ep, dev);

	spin_lock_bh(&ep->lock);
	if (!ep->session || ep->sess_dev != dev ||
	    ep->sess.state == TXRDMA_SESS_FAILED) {
		spin_unlock_bh(&ep->lock);
		return;
	}
	/* an export registering on @dev meanwhile: no move (it would race) */
	if (move && !ep->export_pending) {
		unsigned int i;

		/*
		 * Frames and operations to be sent again look their local
		 * key up anew: a device added later may get @dev's address
		 * and must not pass for it (txrdma_region_key())
		 */
		for (i = 0; i < TXRDMA_EP_SLOTS; i++)
			if (ep->slots[i].busy && ep->slots[i].dev == dev)
				ep->slots[i].dev = NULL;
		/* as if registered nowhere: the next QP registers anew */
		ep->sess_dev = NULL;
		ep->export_pending = true;
		spin_unlock_bh(&ep->lock);
		txrdma_pair_drop_keys(ep, false);
		spin_lock_bh(&ep->lock);
		ep->export_pending = false;
		spin_unlock_bh(&ep->lock);
		return;
	}
	txrdma_pair_fail_locked(ep, -ECONNRESET);
	drop = !ep->held_by;
	spin_unlock_bh(&ep->lock);
	if (drop)
		txrdma_pair_drop_mrs(ep);
}

/* The process closed the endpoint: the work item stops for good. */
void txrdma_resume_stop(struct txrdma_ep *ep)
{
	cancel_delayed_work_sync(&ep->sess_work);
}

static void txrdma_resume_send(struct txrdma_ep *ep, u8 type, u32 gen,
			       int status)
{
	struct txrdma_peer *path;
	struct txrdma_ctrl_ep e = {
		.type		= type,
		.src_ep		= ep->id,
		.dst_ep		= ep->peer_ep,
		.epoch		= ep->epoch,
	};

	if (type == TXRDMA_CTRL_EP_RESUME || type == TXRDMA_CTRL_EP_RESUMED) {
		spin_lock_bh(&ep->lock);
		e.qp_num = ep->qp_num;
		e.ring_units = ep->rx_units;
		e.ring_addr = ep->rx_addr;
		e.ring_rkey = ep->rx_rkey;
		e.ring_gen = ep->rx_gen;
		e.resume = (struct txrdma_resume_report) {
			.rx_seq		= ep->rx_seq,
			.rx_tail	= ep->crx.tail,
			.released	= ep->crx.consumed,
			.tx_seq		= ep->tx_seq,
			.gen		= gen,
		};
		ep->sess_rx_seq = ep->rx_seq;
		ep->sess_released = ep->ctx.released;
		spin_unlock_bh(&ep->lock);
		if (!e.qp_num)
			return;	/* lost again meanwhile: a retry follows */
	} else {
		e.status = status;
		e.resume.gen = gen;
	}
	/*
	 * What our process released last: the other side completes the
	 * SENDs it waits for on it (txrdma_tx_settle_locked()) before it
	 * fails the rest, so a message taken just before the close is not
	 * reported lost
	 */
	if (type == TXRDMA_CTRL_EP_CLOSE) {
		spin_lock_bh(&ep->lock);
		txrdma_tx_take_release(ep);
		e.resume.released = ep->crx.consumed;
		spin_unlock_bh(&ep->lock);
	}
	/*
	 * On the control QP of the path the pair's QP is (or was) on; a
	 * CLOSE after the other side moved, to its new host
	 */
	if (type == TXRDMA_CTRL_EP_CLOSE && READ_ONCE(ep->ho_rehead)) {
		path = ep->peer;
		kref_get(&path->ref);
	} else {
		path = txrdma_path_get(ep);
	}
	txrdma_ctrl_send_ep(path, &e);
	txrdma_peer_put(path);
}

/* The other side's end of the pair: it need not wait out its grace. */
void txrdma_resume_close_msg(struct txrdma_ep *ep, int error)
{
	if (ep->session && ep->peer_ep)
		txrdma_resume_send(ep, TXRDMA_CTRL_EP_CLOSE, 0, error);
}

/*
 * Bind a fresh QP of the peer's host (@remote_qpn 0: the connector's
 * pick, on its path or another; else the acceptor's end of the
 * connector's, on the path the RESUME came through).  On another device
 * the ring is registered there first.  Return: 0, or -errno (no QP is
 * bound).
 */
static int txrdma_resume_take(struct txrdma_ep *ep, u32 remote_qpn)
{
	struct txrdma_dev *dev;
	bool held;
	int ret;

	/*
	 * The QP before (one given up) is not reaped yet, or an export
	 * ioctl is registering on the old device (it ends within its
	 * timeout): wait for it, without taking a QP
	 */
	spin_lock_bh(&ep->lock);
	held = ep->held_by || ep->export_pending;
	spin_unlock_bh(&ep->lock);
	if (held)
		return -EBUSY;
	ret = remote_qpn ? txrdma_path_take_named(ep, remote_qpn) :
			   txrdma_path_take(ep);
	if (ret)
		return ret;
	spin_lock_bh(&ep->lock);
	dev = ep->dev;
	spin_unlock_bh(&ep->lock);
	if (dev != ep->sess_dev || READ_ONCE(ep->ho_rekey)) {
		ret = txrdma_path_rekey(ep);
		if (ret)
			txrdma_pair_close_qp(ep, -ECONNRESET);
	}
	return ret;
}

/**
 * txrdma_resume_abort_locked() - end a session now
 * @ep: caller holds ep->lock
 * @error: what its operations fail with
 *
 * Its tenant is being deleted while it has no QP: the work item fails
 * it (and drops its keys if no QP holds it) and it takes no other QP.
 */
void txrdma_resume_abort_locked(struct txrdma_ep *ep, int error)
{
	lockdep_assert_held(&ep->lock);
	if (!ep->session || ep->sess.state == TXRDMA_SESS_FAILED)
		return;
	/* no event of the state machine: the module ends it (255) */
	trace_txrdma_session(ep->tenant->id, ep->id, U8_MAX, ep->sess.state,
			     TXRDMA_SESS_FAILED, TXRDMA_SESS_DO_FAIL,
			     ep->sess.gen);
	ep->sess.error = error;
	ep->sess.state = TXRDMA_SESS_FAILED;
	WRITE_ONCE(ep->error, error);
	txrdma_resume_queue_locked(ep, TXRDMA_SESS_DO_FAIL);
}

/* The session failed: as a pair fails, and the other side is told. */
static void txrdma_resume_fail(struct txrdma_ep *ep)
{
	bool drop;
	int error;

	spin_lock_bh(&ep->lock);
	error = ep->sess.error ?: -ECONNRESET;
	ep->sess_ready = true;	/* nothing to wait for: SQEs fail now */
	txrdma_pair_fail_locked(ep, error);
	drop = !ep->held_by;
	spin_unlock_bh(&ep->lock);
	txrdma_pair_close_qp(ep, error);
	txrdma_resume_close_msg(ep, error);
	/* no QP will reap them: the peer's keys die now */
	if (drop)
		txrdma_pair_drop_mrs(ep);
}

/* Feed @ev to the session; return what it asks for. */
static unsigned int txrdma_resume_event(struct txrdma_ep *ep,
					enum txrdma_sess_ev ev, u32 gen)
{
	unsigned int act;

	spin_lock_bh(&ep->lock);
	act = txrdma_resume_ev_locked(ep, ev, gen, -ECONNRESET);
	if (ev == TXRDMA_SESS_EV_LOST)
		ep->sess_ready = false;
	spin_unlock_bh(&ep->lock);
	return act;
}

/* Apply the other side's report (@ep->sess_peer) to our sends. */
static void txrdma_resume_apply(struct txrdma_ep *ep)
{
	struct txrdma_ring *ring;
	int ret;

	spin_lock_bh(&ep->lock);
	/* where the other side's ring is now (another device: a new key) */
	if (ep->conn)
		txrdma_path_peer_ring_locked(ep);
	ret = ep->conn ? txrdma_tx_resume_locked(ep, &ep->sess_peer) :
			 -ECONNRESET;
	if (!ret) {
		ep->stats.resumes++;
		/* an import waits for this; its proof is spent */
		ep->ho_pending = false;
		memzero_explicit(ep->ho_claim_secret,
				 sizeof(ep->ho_claim_secret));
		wake_up(&ep->wait);
	}
	ring = ep->ring;
	if (!ret && ring)
		txrdma_poller_kick(ring);
	spin_unlock_bh(&ep->lock);
	if (ret == -EPROTO) {
		txrdma_resume_event(ep, TXRDMA_SESS_EV_PROTO, 0);
		txrdma_resume_fail(ep);
	} else if (ret) {
		/* the new QP refused the post: it is lost too */
		txrdma_pair_close_qp(ep, -ECONNRESET);
	}
}

/* Do what the state machine asked for, in order; runs in the work. */
static void txrdma_resume_act(struct txrdma_ep *ep, unsigned int act)
{
	u32 gen;

	while (act) {
		if (act & TXRDMA_SESS_DO_FAIL) {
			txrdma_resume_fail(ep);
			return;
		}
		if (act & TXRDMA_SESS_DO_DRAIN) {
			act &= ~TXRDMA_SESS_DO_DRAIN;
			txrdma_pair_close_qp(ep, -ECONNRESET);
			/* no QP held us: nothing is left to reap */
			spin_lock_bh(&ep->lock);
			if (!ep->held_by)
				act |= txrdma_resume_ev_locked(ep,
						TXRDMA_SESS_EV_DRAINED, 0, 0);
			spin_unlock_bh(&ep->lock);
			continue;
		}
		if (act & TXRDMA_SESS_DO_SEEK) {
			act &= ~TXRDMA_SESS_DO_SEEK;
			/* no QP yet (peer Down, pool empty): the tick retries */
			if (!txrdma_resume_take(ep, 0))
				act |= txrdma_resume_event(ep,
							   TXRDMA_SESS_EV_PATH,
							   0);
			continue;
		}
		if (act & TXRDMA_SESS_DO_RESUME) {
			act &= ~TXRDMA_SESS_DO_RESUME;
			spin_lock_bh(&ep->lock);
			gen = ep->sess.gen;
			ep->sess_sent_ns = ktime_get_ns();
			spin_unlock_bh(&ep->lock);
			/* an imported session: first, that it is ours now */
			txrdma_handoff_send(ep);
			txrdma_resume_send(ep, TXRDMA_CTRL_EP_RESUME, gen, 0);
			continue;
		}
		if (act & TXRDMA_SESS_DO_ANSWER) {
			act &= ~TXRDMA_SESS_DO_ANSWER;
			/*
			 * Not bound (that QP is gone already, the peer is
			 * Down): no answer, and as good as a lost QP (the
			 * grace runs from here); the connector tries another
			 */
			if (txrdma_resume_take(ep, ep->sess_qpn)) {
				act &= ~TXRDMA_SESS_DO_APPLY;
				act |= txrdma_resume_event(ep,
							   TXRDMA_SESS_EV_LOST,
							   0);
				continue;
			}
			txrdma_resume_send(ep, TXRDMA_CTRL_EP_RESUMED,
					   ep->sess.gen, 0);
			continue;
		}
		if (act & TXRDMA_SESS_DO_APPLY) {
			act &= ~TXRDMA_SESS_DO_APPLY;
			txrdma_resume_apply(ep);
			continue;
		}
		/* REJECT is sent where the RESUME came (txrdma_resume_rx) */
		act &= ~(TXRDMA_SESS_DO_HOLD | TXRDMA_SESS_DO_REJECT);
	}
}

/* The work item: what was asked for, then the clock while away. */
static void txrdma_resume_work_fn(struct work_struct *work)
{
	struct txrdma_ep *ep = container_of(to_delayed_work(work),
					    struct txrdma_ep, sess_work);
	unsigned int act;
	u64 now;

	spin_lock_bh(&ep->lock);
	now = ktime_get_ns();
	act = ep->sess_todo;
	ep->sess_todo = 0;
	if (ep->sess.state != TXRDMA_SESS_FAILED)
		act |= txrdma_resume_ev_locked(ep, TXRDMA_SESS_EV_TICK, 0, 0);
	if (ep->sess.state == TXRDMA_SESS_RESUMING &&
	    now - ep->sess_sent_ns > TXRDMA_RESUME_ANSWER_NS)
		act |= txrdma_resume_ev_locked(ep, TXRDMA_SESS_EV_RETRY,
						ep->sess.gen, 0);
	/* a connector still without a QP looks again */
	if (ep->sess.connector && ep->sess.state == TXRDMA_SESS_WAITING)
		act |= TXRDMA_SESS_DO_SEEK;
	spin_unlock_bh(&ep->lock);
	txrdma_resume_act(ep, act);
	spin_lock_bh(&ep->lock);
	if (txrdma_resume_away(ep) && !ep->rx_stop)
		mod_delayed_work(txrdma_peer_wq, &ep->sess_work,
				 msecs_to_jiffies(TXRDMA_RESUME_TICK_MS));
	spin_unlock_bh(&ep->lock);
}

void txrdma_resume_init(struct txrdma_ep *ep)
{
	INIT_DELAYED_WORK(&ep->sess_work, txrdma_resume_work_fn);
	ep->sess.state = TXRDMA_SESS_FAILED;	/* no session until paired */
	ep->sess_ready = true;
}

/*
 * Does message @e name the pair of @ep, from its peer?  A REJECT may
 * come from a module that has no such endpoint any more (U32_MAX).
 */
static bool txrdma_resume_ours(const struct txrdma_ep *ep,
			       const struct txrdma_pair_req *r)
{
	return txrdma_path_same_host(ep->peer, r->peer) && ep->session &&
	       ep->epoch == r->e.epoch &&
	       (ep->peer_ep == r->e.src_ep ||
		r->e.type == TXRDMA_CTRL_EP_REJECT);
}

/*
 * Caller holds ep->lock: does the ring that report @e names fit?  Its
 * size never changes; its place and key only with its generation (the
 * other side registered it anew on another device).
 */
static bool txrdma_resume_ring_ok(const struct txrdma_ep *ep,
				  const struct txrdma_ctrl_ep *e)
{
	lockdep_assert_held(&ep->lock);
	if (e->ring_units != ep->peer_units)
		return false;
	return ep->sess_rnew || e->ring_gen != ep->peer_rx_gen ||
	       (e->ring_addr == ep->peer_addr && e->ring_rkey == ep->peer_rkey);
}

/* Caller holds ep->lock: keep the ring report @e names, for the apply. */
static void txrdma_resume_keep_ring_locked(struct txrdma_ep *ep,
					   const struct txrdma_ctrl_ep *e)
{
	lockdep_assert_held(&ep->lock);
	ep->sess_peer = e->resume;
	ep->sess_raddr = e->ring_addr;
	ep->sess_rrkey = e->ring_rkey;
	ep->sess_rgen = e->ring_gen;
}

/* Refuse RESUME @e of @peer (a pair gone, failed, or a stale one). */
static void txrdma_resume_refuse(struct txrdma_peer *peer,
				 const struct txrdma_ctrl_ep *e, u32 src_ep)
{
	struct txrdma_ctrl_ep no = {
		.type		= TXRDMA_CTRL_EP_REJECT,
		.src_ep		= src_ep,
		.dst_ep		= e->src_ep,
		.epoch		= e->epoch,
		.status		= -ECONNRESET,
		.resume.gen	= e->resume.gen,
	};

	txrdma_ctrl_send_ep(peer, &no);
}

/**
 * txrdma_resume_rx() - RESUME, RESUMED, CLOSE, or a REJECT of a RESUME
 * @r: the message, from the pairing work item
 */
void txrdma_resume_rx(struct txrdma_pair_req *r)
{
	const struct txrdma_ctrl_ep *e = &r->e;
	struct txrdma_ep *ep = txrdma_ep_get_id(e->dst_ep);
	struct txrdma_peer *from = NULL;
	unsigned int act = 0;

	/* exported: the new host answers for it (its HANDOFF comes) */
	if (ep && READ_ONCE(ep->frozen))
		goto out;
	if (!ep || !txrdma_resume_ours(ep, r)) {
		/* a pair we do not have (any more): the connector stops */
		if (e->type == TXRDMA_CTRL_EP_RESUME)
			txrdma_resume_refuse(r->peer, e, U32_MAX);
		goto out;
	}
	spin_lock_bh(&ep->lock);
	switch (e->type) {
	case TXRDMA_CTRL_EP_RESUME:
		/* our ring's other side stays where it was, or says it moved */
		if (!txrdma_resume_ring_ok(ep, e)) {
			act = txrdma_resume_ev_locked(ep, TXRDMA_SESS_EV_PROTO,
						      0, 0);
			break;
		}
		act = txrdma_resume_ev_locked(ep, TXRDMA_SESS_EV_RESUME,
					      e->resume.gen, -ECONNRESET);
		if (act & (TXRDMA_SESS_DO_HOLD | TXRDMA_SESS_DO_ANSWER)) {
			ep->sess_qpn = e->qp_num;
			txrdma_resume_keep_ring_locked(ep, e);
			ep->sess_ready = false;
			/* the path to answer on (txrdma_path_take_named()) */
			swap(from, ep->sess_from);
			kref_get(&r->peer->ref);
			ep->sess_from = r->peer;
		}
		break;
	case TXRDMA_CTRL_EP_RESUMED:
		/* on the QP the RESUME went on, and nothing else */
		if (!ep->held_by || ep->held_by->remote_qpn != e->qp_num ||
		    r->peer != READ_ONCE(ep->path) ||
		    !txrdma_resume_ring_ok(ep, e))
			break;
		act = txrdma_resume_ev_locked(ep, TXRDMA_SESS_EV_RESUMED,
					      e->resume.gen, 0);
		if (act & TXRDMA_SESS_DO_APPLY)
			txrdma_resume_keep_ring_locked(ep, e);
		break;
	case TXRDMA_CTRL_EP_CLOSE:
		/*
		 * What its process released last: those SENDs are done
		 * (frames of the QP may still bring older counts, so the
		 * credit count stays as they move it)
		 */
		if (!txrdma_credit_tx_update_check(&ep->ctx,
						   e->resume.released)) {
			ep->close_released = e->resume.released;
			ep->close_seen = true;
			txrdma_tx_settle_locked(ep);
		}
		fallthrough;
	case TXRDMA_CTRL_EP_REJECT:
		act = txrdma_resume_ev_locked(ep, TXRDMA_SESS_EV_CLOSE,
					      e->resume.gen,
					      e->status ?: -ECONNRESET);
		break;
	}
	/* one work item does it all: never two takes of a QP at once */
	if (act & ~TXRDMA_SESS_DO_REJECT && !ep->rx_stop)
		txrdma_resume_queue_locked(ep, act & ~TXRDMA_SESS_DO_REJECT);
	spin_unlock_bh(&ep->lock);
	if (act & TXRDMA_SESS_DO_REJECT)
		txrdma_resume_refuse(r->peer, e, ep->id);
	if (from)
		txrdma_peer_put(from);	/* an earlier RESUME's path */
out:
	if (ep)
		txrdma_ep_put(ep);
}
