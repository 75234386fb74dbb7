// SPDX-License-Identifier: GPL-2.0-only
/*
 * Session hand-off, the glue: a session moves with its process to
 * another host (design.rst, "Session hand-off"; the secret, the token
 * and the check are txrdma_handoff.c's, the resume that follows is
 * txrdma_pair_resume.c's).
 *
 * Three hosts: A, where the mover was; B, which stays; C, where the
 * mover's process is restored.
 *
 * - Pairing (both sides): the session secret is derived from the peer
 *   key (txrdma_handoff_paired()); it never travels.
 * - Export (A, TXRDMA_IOC_EP_SESS_EXPORT): the session is frozen (no
 *   SQE goes, no resume, no CLOSE), its QP closed and reaped, its
 *   unsettled SENDs and counters written out with the secret; the
 *   endpoint then fails with -EXDEV and forgets the secret.  B sees a
 *   lost QP and waits within its grace.
 * - Import (C, TXRDMA_IOC_EP_SESS_IMPORT): the state is checked as an
 *   SQE is, an endpoint built whose slots hold the unsettled SENDs as
 *   if a QP had just been lost with them, and the session resumed as a
 *   connector's: before each RESUME goes a HANDOFF with the token
 *   (txrdma_handoff_send()).  The ioctl returns once the session is Up
 *   here, or failed.
 * - Check and move (B, txrdma_handoff_rx()): a HANDOFF that checks
 *   moves the session to C: its peer, the mover's endpoint, a new
 *   secret (B's key for C), and EV_HANDOFF to the state machine; C's
 *   RESUME is then answered as any.  A refusal is a REJECT naming the
 *   mover's old endpoint (txrdma_handoff_rx_reject() on C).
 *
 * Locking: ep->lock (_bh) over the hand-off fields; the peer keys are
 * used under txrdma_eps_lock (txrdma_ep_peer_secret()).
 */
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "txrdma.h"
#include "txrdma_msg.h"
#include "txrdma_peer.h"
#include "txrdma_peer_wire.h"
#include "txrdma_region.h"
#include "txrdma_ringfile.h"
#include "txrdma_service.h"
#include "txrdma_tenant.h"

/**
 * txrdma_handoff_paired() - a session was paired: derive its secret
 * @ep: the endpoint, paired (its peer_ep and epoch are known)
 * @connector: this side connected
 *
 * Process context.  A secret that cannot be derived (the peer is being
 * deleted) leaves the session unable to move (export gets -EINVAL, a
 * HANDOFF for it -ENOENT).
 */
void txrdma_handoff_paired(struct txrdma_ep *ep, bool connector)
{
	u32 remote = READ_ONCE(ep->peer->remote_boot_id);
	struct txrdma_handoff_id id = {
		.conn_boot	= connector ? txrdma_boot_id : remote,
		.acc_boot	= connector ? remote : txrdma_boot_id,
		.conn_ep	= connector ? ep->id : ep->peer_ep,
		.acc_ep		= connector ? ep->peer_ep : ep->id,
		.epoch		= ep->epoch,
	};
	u8 secret[TXRDMA_HANDOFF_SECRET_LEN];
	bool ok = !txrdma_ep_peer_secret(ep->peer, &id, secret);

	spin_lock_bh(&ep->lock);
	ep->ho_id = id;
	ep->ho_ok = ok;
	if (ok)
		memcpy(ep->ho_secret, secret, sizeof(secret));
	spin_unlock_bh(&ep->lock);
	memzero_explicit(secret, sizeof(secret));
}

/* ------------------------------------------------------------------ */
/* Export (A)                                                          */

/* Stop the session's traffic for good.  Return: 0 or -errno. */
static int txrdma_handoff_freeze(struct txrdma_ep *ep)
{
	int ret = 0;

	spin_lock_bh(&ep->lock);
	if (!ep->session || !ep->ho_ok || ep->dstate != TXRDMA_EP_CONNECTED ||
	    READ_ONCE(ep->error) || ep->rx_stop ||
	    ep->sess.state == TXRDMA_SESS_FAILED)
		ret = -EINVAL;
	else if (ep->frozen || ep->export_pending || ep->ho_pending ||
		 ep->sess.state != TXRDMA_SESS_UP || !ep->sess_ready)
		ret = -EBUSY;	/* an export or a resume runs: later */
	if (!ret) {
		ep->frozen = true;
		/* no export ioctl, no new registration from here on */
		ep->export_pending = true;
		ep->sess_ready = false;
		ep->sess_todo = 0;
	}
	spin_unlock_bh(&ep->lock);
	return ret;
}

/* The frozen session's QP is reaped (or the endpoint failed meanwhile). */
static bool txrdma_handoff_reaped(struct txrdma_ep *ep)
{
	return !READ_ONCE(ep->held_by) || READ_ONCE(ep->error);
}

/* Caller holds ep->lock: the state of the frozen, reaped session. */
static void txrdma_handoff_state_locked(struct txrdma_ep *ep,
					struct txrdma_sess_state *st, u32 n)
{
	lockdep_assert_held(&ep->lock);
	*st = (struct txrdma_sess_state) {
		.version	= TXRDMA_SESS_STATE_VERSION,
		.flags		= ep->flags & ~TXRDMA_EP_F_NOWAIT,
		.ep		= ep->id,
		.peer_ep	= ep->peer_ep,
		.epoch		= ep->epoch,
		.ho_gen		= ep->ho_id.gen,
		.grace_ms	= ep->grace_ms,
		.service	= ep->service,
		.rx_units	= ep->rx_units,
		.rx_max_msg	= ep->rx_max_msg,
		.rx_seq		= ep->rx_seq,
		.rx_tail	= ep->crx.tail,
		.rx_consumed	= ep->crx.consumed,
		.rx_reported	= ep->crx.reported,
		.rx_gen		= ep->rx_gen,
		.peer_units	= ep->peer_units,
		.peer_max_msg	= ep->peer_max_msg,
		.peer_ahead_max	= ep->peer_ahead_max,
		.peer_rx_gen	= ep->peer_rx_gen,
		.tx_seq		= ep->tx_seq,
		.tx_head	= ep->ctx.head,
		.tx_released	= ep->ctx.released,
		.nsends		= n,
	};
	memcpy(st->secret, ep->ho_secret, sizeof(st->secret));
}

long txrdma_ioctl_ep_sess_export(struct txrdma_file *tf, void __user *uarg)
{
	struct txrdma_ep_sess_export req;
	struct txrdma_sess_send *sends;
	struct txrdma_ep *ep;
	unsigned long tmo;
	u32 n = 0;
	int ret;

	BUILD_BUG_ON(TXRDMA_SESS_SENDS_MAX > TXRDMA_EP_SLOTS);
	if (copy_from_user(&req, uarg, sizeof(req)))
		return -EFAULT;
	/* room for every SEND a session can have: no export half done */
	if (req.flags || req.resv || req.max_sends < TXRDMA_SESS_SENDS_MAX ||
	    req.timeout_ms > TXRDMA_EP_GRACE_MAX_MS)
		return -EINVAL;
	sends = kcalloc(TXRDMA_SESS_SENDS_MAX, sizeof(*sends), GFP_KERNEL);
	if (!sends)
		return -ENOMEM;
	/* where the state goes must take it: the freeze cannot be undone */
	if (copy_to_user(uarg, &req, sizeof(req)) ||
	    copy_to_user(u64_to_user_ptr(req.sends), sends,
			 TXRDMA_SESS_SENDS_MAX * sizeof(*sends))) {
		kfree(sends);
		return -EFAULT;
	}
	ep = txrdma_ep_get_file(tf, req.ep);
	if (!ep) {
		ret = -ENOENT;
		goto out_free;
	}
	ret = txrdma_handoff_freeze(ep);
	if (ret)
		goto out_put;
	/* the other side sees its QP lost, and waits within its grace */
	txrdma_pair_close_qp(ep, -ECONNRESET);
	tmo = msecs_to_jiffies(req.timeout_ms ?: TXRDMA_MSG_TIMEOUT_MS);
	wait_event_killable_timeout(ep->wait, txrdma_handoff_reaped(ep), tmo);

	spin_lock_bh(&ep->lock);
	ret = READ_ONCE(ep->error);
	if (!ret && ep->held_by)
		ret = -ETIMEDOUT;
	if (!ret) {
		/* every frame the QP carried is published: the state is whole */
		n = txrdma_tx_export_locked(ep, sends);
		txrdma_handoff_state_locked(ep, &req.state, n);
	}
	/* over here for good (or failed): later SQEs get -EXDEV */
	txrdma_pair_fail_locked(ep, ret ?: -EXDEV);
	memzero_explicit(ep->ho_secret, sizeof(ep->ho_secret));
	ep->ho_ok = false;
	spin_unlock_bh(&ep->lock);
	if (ret)
		goto out_put;
	if (copy_to_user(u64_to_user_ptr(req.sends), sends,
			 n * sizeof(*sends)) ||
	    copy_to_user(uarg, &req, sizeof(req)))
		ret = -EFAULT;
	memzero_explicit(&req.state.secret, sizeof(req.state.secret));
out_put:
	txrdma_ep_put(ep);
out_free:
	kfree(sends);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Import (C)                                                          */

/* The regions of the SENDs, referenced (@regions[i] NULL on error). */
static int txrdma_handoff_regions(struct txrdma_tenant *t,
				  const struct txrdma_sess_send *sends, u32 n,
				  struct txrdma_region **regions)
{
	u32 i;

	for (i = 0; i < n; i++) {
		regions[i] = txrdma_region_get_range(t, sends[i].region,
						     sends[i].off,
						     sends[i].len);
		if (IS_ERR(regions[i])) {
			int ret = PTR_ERR(regions[i]);

			regions[i] = NULL;
			return ret;
		}
	}
	return 0;
}

/*
 * The session's state on the endpoint built for it: counters, the
 * other side's ring as far as it is known (its place comes with the
 * RESUMED), the kernel's words in the ring's header as they stand.
 */
static void txrdma_handoff_restore_locked(struct txrdma_ep *ep,
					  const struct txrdma_sess_state *st)
{
	lockdep_assert_held(&ep->lock);
	ep->epoch = st->epoch;
	ep->peer_ep = st->peer_ep;
	ep->peer_units = st->peer_units;
	ep->peer_max_msg = st->peer_max_msg;
	ep->peer_ahead_max = st->peer_ahead_max;
	ep->peer_rx_gen = st->peer_rx_gen;
	ep->sess_rnew = true;
	/* checked: txrdma_handoff_state_check() */
	txrdma_credit_tx_init(&ep->ctx, st->peer_units);
	ep->ctx.head = st->tx_head;
	ep->ctx.released = st->tx_released;
	ep->tx_seq = st->tx_seq;
	ep->crx.tail = st->rx_tail;
	ep->crx.consumed = st->rx_consumed;
	ep->crx.reported = st->rx_reported;
	ep->rx_seq = st->rx_seq;
	ep->rx_gen = st->rx_gen;	/* the first QP registers: one more */
	/* a session before it is a pair: a tenant's deletion aborts it */
	ep->session = true;
	txrdma_rx_due_empty(ep, true);
	ep->dstate = TXRDMA_EP_CONNECTED;
	ep->accepted = true;
	/* the process's head word stays: it may have released more since */
	WRITE_ONCE(*txrdma_rx_word(ep, TXRDMA_RX_OFF_ERROR), 0);
	WRITE_ONCE(*txrdma_rx_word(ep, TXRDMA_RX_OFF_REPORTED),
		   ep->crx.reported);
	if (ep->rx_ahead_max)
		WRITE_ONCE(*txrdma_rx_word(ep, TXRDMA_RX_OFF_AHEAD_KSEQ),
			   ep->rx_seq);
	txrdma_rx_ahead_words(ep);
	/* after the words above, as every tail store (txrdma_rx.c) */
	smp_store_release(txrdma_rx_word(ep, TXRDMA_RX_OFF_TAIL),
			  ep->crx.tail);
}

/* What the HANDOFFs of an import claim, and the secret they prove it with. */
static void txrdma_handoff_claim_locked(struct txrdma_ep *ep,
					const struct txrdma_sess_state *st)
{
	lockdep_assert_held(&ep->lock);
	memcpy(ep->ho_claim_secret, st->secret, sizeof(st->secret));
	ep->ho_old_ep = st->ep;
	ep->ho_claim_gen = st->ho_gen;
	ep->ho_pending = true;
}

/* Up here, or over: what the import waits for. */
static bool txrdma_handoff_settled(struct txrdma_ep *ep)
{
	return (READ_ONCE(ep->sess.state) == TXRDMA_SESS_UP &&
		!READ_ONCE(ep->ho_pending)) ||
	       READ_ONCE(ep->sess.state) == TXRDMA_SESS_FAILED ||
	       READ_ONCE(ep->error);
}

static int txrdma_handoff_import_check(const struct txrdma_ep_sess_import *req)
{
	if (req->flags || req->resv0 || req->resv1 || req->id || req->qp_num)
		return -EINVAL;
	if (!req->peer[0] || !memchr(req->peer, 0, sizeof(req->peer)))
		return -EINVAL;
	if (req->rx_off % TXRDMA_FRAME_UNIT ||
	    req->state.nsends > TXRDMA_SESS_SENDS_MAX)
		return -EINVAL;
	return 0;
}

long txrdma_ioctl_ep_sess_import(struct txrdma_file *tf, void __user *uarg)
{
	struct txrdma_region *regions[TXRDMA_SESS_SENDS_MAX] = {};
	struct txrdma_sess_send *sends = NULL;
	struct txrdma_ep_sess_import req;
	struct txrdma_ep_connect creq;
	struct txrdma_poller *poller;
	struct txrdma_ring *ring;
	struct txrdma_peer *peer;
	struct txrdma_ep *ep;
	unsigned long tmo;
	u32 i, n;
	long left;
	int ret;

	/* the answer must get out once the session moved here */
	if (copy_from_user(&req, uarg, sizeof(req)) ||
	    copy_to_user(uarg, &req, sizeof(req)))
		return -EFAULT;
	ret = txrdma_handoff_import_check(&req);
	if (ret)
		goto out_clear;
	n = req.state.nsends;
	if (n) {
		sends = memdup_user(u64_to_user_ptr(req.sends),
				    n * sizeof(*sends));
		if (IS_ERR(sends)) {
			ret = PTR_ERR(sends);
			sends = NULL;
			goto out_clear;
		}
	}
	ret = txrdma_handoff_state_check(&req.state, sends, NULL);
	if (ret)
		goto out_clear;
	/* completions need the rings (release in txrdma_ioctl_ring_setup) */
	if (!smp_load_acquire(&tf->ring)) {
		ret = -ENXIO;
		goto out_clear;
	}
	peer = txrdma_peer_get_name((char *)req.peer);
	if (!peer) {
		ret = -ENOENT;
		goto out_clear;
	}
	creq = (struct txrdma_ep_connect) {
		.service	= req.state.service,
		.flags		= req.state.flags,
		.rx_region	= req.rx_region,
		.rx_units	= req.state.rx_units,
		.rx_off		= req.rx_off,
		.rx_max_msg	= req.state.rx_max_msg,
		.grace_ms	= req.state.grace_ms,
	};
	ep = txrdma_pair_new_ep(tf, peer, &creq, true);
	if (IS_ERR(ep)) {
		ret = PTR_ERR(ep);
		goto out_clear;
	}
	kref_get(&ep->ref);	/* ours, while we wait */
	ret = txrdma_handoff_regions(ep->tenant, sends, n, regions);
	if (!ret)
		ret = txrdma_ring_reserve_n(ep->ring, n);
	if (ret)
		goto out_discard;
	spin_lock_bh(&ep->lock);
	txrdma_handoff_restore_locked(ep, &req.state);
	/* the slots take the regions' references */
	txrdma_tx_import_locked(ep, sends, regions, n);
	txrdma_handoff_claim_locked(ep, &req.state);
	spin_unlock_bh(&ep->lock);
	memset(regions, 0, sizeof(regions));
	ret = txrdma_pair_join(ep->ring, ep);
	if (ret)
		goto out_discard;
	txrdma_resume_import_start(ep);
	/*
	 * Once the HANDOFF left, the other side may have moved the session
	 * here: giving up ends it.  Only the caller's timeout (by default
	 * the session's grace and more) or a fatal signal stop the wait.
	 */
	tmo = msecs_to_jiffies(req.timeout_ms ?:
			       max_t(u32, TXRDMA_MSG_TIMEOUT_MS,
				     req.state.grace_ms + 1000));
	left = wait_event_killable_timeout(ep->wait,
					   txrdma_handoff_settled(ep), tmo);
	spin_lock_bh(&ep->lock);
	if (ep->sess.state == TXRDMA_SESS_UP && !ep->ho_pending &&
	    !ep->error)
		ret = 0;
	else if (ep->sess.state == TXRDMA_SESS_FAILED || ep->error)
		ret = ep->sess.error ?: ep->error ?: -ECONNRESET;
	else
		ret = left < 0 ? -EINTR : -ETIMEDOUT;
	/*
	 * Once adopted another thread of the file may destroy it, which
	 * clears ep->ring: bind with what it had (the ring is the file's)
	 */
	ring = ep->ring;
	poller = ep->poller;
	spin_unlock_bh(&ep->lock);
	if (!ret)
		ret = txrdma_ep_adopt(tf, ep);
	if (ret)
		goto out_discard;
	/* the QP's device's poller serves the ring, if none does yet */
	if (poller && ring)
		txrdma_poller_bind(ring, poller);
	req.id = ep->id;
	req.qp_num = READ_ONCE(ep->qp_num);
	memzero_explicit(&req.state.secret, sizeof(req.state.secret));
	if (copy_to_user(uarg, &req, sizeof(req))) {
		/* the session is Up: the process just cannot learn its id */
		ret = -EFAULT;
		goto out_discard;
	}
	txrdma_ep_put(ep);
	kfree(sends);
	return 0;

out_discard:
	for (i = 0; i < n; i++)
		if (regions[i])
			txrdma_region_put_async(regions[i]);
	txrdma_ep_discard(ep);
	txrdma_ep_put(ep);
out_clear:
	memzero_explicit(&req.state.secret, sizeof(req.state.secret));
	kfree(sends);
	return ret;
}

/**
 * txrdma_handoff_send() - an imported session says it is ours now
 * @ep: its work item, right before a RESUME leaves on the same path
 *
 * Again before each RESUME until one is answered: the other side takes
 * a repeat of the move it made as no news.  The token binds the claim
 * to the address this path sends from, and the next secret is derived
 * with this path's key, as the other side does with its entry for it.
 */
void txrdma_handoff_send(struct txrdma_ep *ep)
{
	struct txrdma_ctrl_ep e = { .type = TXRDMA_CTRL_EP_HANDOFF };
	u8 old[TXRDMA_HANDOFF_SECRET_LEN], next[TXRDMA_HANDOFF_SECRET_LEN];
	struct txrdma_handoff_claim claim;
	struct txrdma_handoff_id id;
	struct txrdma_auth key = {};
	struct txrdma_peer *path;
	int ret;

	spin_lock_bh(&ep->lock);
	if (!ep->ho_pending) {
		spin_unlock_bh(&ep->lock);
		return;
	}
	memcpy(old, ep->ho_claim_secret, sizeof(old));
	e.src_ep = ep->id;
	e.dst_ep = ep->peer_ep;
	e.epoch = ep->epoch;
	e.ho_old_ep = ep->ho_old_ep;
	e.ho_gen = ep->ho_claim_gen;
	spin_unlock_bh(&ep->lock);
	path = txrdma_path_get(ep);
	claim = (struct txrdma_handoff_claim) {
		.dst_ep		= e.dst_ep,
		.old_ep		= e.ho_old_ep,
		.new_ep		= e.src_ep,
		.epoch		= e.epoch,
		.gen		= e.ho_gen,
		.from_addr	= READ_ONCE(path->local_addr),
	};
	id = (struct txrdma_handoff_id) {
		.conn_boot	= txrdma_boot_id,
		.acc_boot	= READ_ONCE(path->remote_boot_id),
		.conn_ep	= e.src_ep,
		.acc_ep		= e.dst_ep,
		.epoch		= e.epoch,
		.gen		= e.ho_gen + 1,
	};
	ret = txrdma_handoff_key(&key, old);
	if (!ret)
		ret = txrdma_handoff_token(&key, &claim, ep->tenant->name,
					   e.ho_token);
	txrdma_auth_free(&key);
	if (!ret)
		ret = txrdma_ep_peer_secret(path, &id, next);
	if (!ret) {
		spin_lock_bh(&ep->lock);
		ep->ho_id = id;
		memcpy(ep->ho_secret, next, sizeof(next));
		ep->ho_ok = true;
		spin_unlock_bh(&ep->lock);
		/* the RESUME that follows is refused if this was not sent */
		txrdma_ctrl_send_ep(path, &e);
	}
	memzero_explicit(next, sizeof(next));
	memzero_explicit(old, sizeof(old));
	txrdma_peer_put(path);
}

/**
 * txrdma_handoff_rx_reject() - the other side refused our HANDOFF
 * @r: the REJECT (@r->e.ho_old_ep names the state's endpoint)
 *
 * The import fails with the refusal's reason (-EPERM: not the
 * session's secret; -ENOENT: no such session; -ESTALE).
 */
void txrdma_handoff_rx_reject(struct txrdma_pair_req *r)
{
	const struct txrdma_ctrl_ep *e = &r->e;
	struct txrdma_ep *ep = txrdma_ep_get_id(e->dst_ep);
	int status = e->status;

	if (!ep)
		return;
	if (status >= 0 || status < -MAX_ERRNO)
		status = -EPROTO;
	spin_lock_bh(&ep->lock);
	if (ep->ho_pending && ep->ho_old_ep == e->ho_old_ep &&
	    ep->epoch == e->epoch &&
	    txrdma_path_same_host(ep->peer, r->peer)) {
		txrdma_resume_abort_locked(ep, status);
		/*
		 * Its SENDs fail with the refusal's reason now, before the
		 * import wakes and gives the endpoint up (-ECANCELED)
		 */
		txrdma_pair_fail_locked(ep, status);
	}
	spin_unlock_bh(&ep->lock);
	txrdma_ep_put(ep);
}

/* ------------------------------------------------------------------ */
/* Check and move (B)                                                  */

static void txrdma_handoff_refuse(struct txrdma_pair_req *r, u32 src_ep,
				  int status)
{
	struct txrdma_ctrl_ep no = {
		.type		= TXRDMA_CTRL_EP_REJECT,
		.src_ep		= src_ep,
		.dst_ep		= r->e.src_ep,
		.epoch		= r->e.epoch,
		.status		= status,
		.ho_old_ep	= r->e.ho_old_ep,
	};

	/* an operator's way to see them: the log, rate-limited */
	pr_info_ratelimited("peer %s: session hand-off to endpoint %u refused: %d\n",
			    r->peer->name, r->e.dst_ep, status);
	txrdma_ctrl_send_ep(r->peer, &no);
}

/* Caller holds ep->lock: HANDOFF @e repeats the move made last. */
static bool txrdma_handoff_repeat_locked(struct txrdma_ep *ep,
					 const struct txrdma_pair_req *r)
{
	lockdep_assert_held(&ep->lock);
	return ep->ho_id.gen && txrdma_path_same_host(ep->peer, r->peer) &&
	       r->e.src_ep == ep->peer_ep && r->e.epoch == ep->epoch &&
	       r->e.ho_old_ep == ep->ho_old_ep &&
	       r->e.ho_gen + 1 == ep->ho_id.gen;
}

/* Is @p among the peers @ep keeps from before its moves? */
static bool txrdma_handoff_kept(struct txrdma_ep *ep, struct txrdma_peer *p)
{
	u32 i;

	for (i = 0; i < ep->npeers_was; i++)
		if (ep->peers_was[i] == p)
			return true;
	return false;
}

/*
 * Room to keep the peer @ep moves away from (before the move, which
 * cannot fail).  Each peer is kept once: as many as there are peers,
 * however often the session moves.
 */
static int txrdma_handoff_room(struct txrdma_ep *ep)
{
	struct txrdma_peer **p;
	u32 n;

	spin_lock_bh(&ep->lock);
	n = ep->npeers_was + 1;
	spin_unlock_bh(&ep->lock);
	/* only the pairing work item moves a session: @n holds */
	p = krealloc(ep->peers_was, n * sizeof(*p), GFP_KERNEL_ACCOUNT);
	if (!p)
		return -ENOMEM;
	spin_lock_bh(&ep->lock);
	ep->peers_was = p;
	spin_unlock_bh(&ep->lock);
	return 0;
}

/*
 * Move the session of @ep to @to, as @hs was when its HANDOFF checked:
 * -ESTALE when it changed since.
 */
static int txrdma_handoff_move(struct txrdma_ep *ep, struct txrdma_peer *to,
			       const struct txrdma_handoff_sess *hs,
			       const struct txrdma_handoff_id *id,
			       const u8 *secret, u32 old_ep)
{
	struct txrdma_peer *from;

	spin_lock_bh(&ep->lock);
	if (ep->ho_id.gen != hs->gen || ep->peer_ep != hs->peer_ep ||
	    ep->frozen || !txrdma_resume_keeps_locked(ep)) {
		spin_unlock_bh(&ep->lock);
		return -ESTALE;
	}
	/* readers of ep->peer may still hold the old one: it stays */
	if (txrdma_handoff_kept(ep, ep->peer))
		txrdma_peer_put(ep->peer);
	else
		ep->peers_was[ep->npeers_was++] = ep->peer;
	kref_get(&to->ref);
	WRITE_ONCE(ep->peer, to);
	/* frames of the old host's QP, still completing, name the old ids */
	ep->ho_prev_conn = ep->held_by;
	ep->ho_prev_ep = ep->peer_ep;
	ep->peer_ep = id->conn_ep;
	/* our process checks frames it reads ahead against the new id */
	txrdma_rx_ahead_words(ep);
	ep->ho_id = *id;
	memcpy(ep->ho_secret, secret, TXRDMA_HANDOFF_SECRET_LEN);
	ep->ho_old_ep = old_ep;
	from = txrdma_resume_moved_locked(ep);
	spin_unlock_bh(&ep->lock);
	if (from)
		txrdma_peer_put(from);
	return 0;
}

/**
 * txrdma_handoff_rx() - a HANDOFF: one of our sessions moves to @r->peer
 * @r: the message, from the pairing work item
 */
void txrdma_handoff_rx(struct txrdma_pair_req *r)
{
	const struct txrdma_ctrl_ep *e = &r->e;
	struct txrdma_handoff_claim claim = {
		.dst_ep		= e->dst_ep,
		.old_ep		= e->ho_old_ep,
		.new_ep		= e->src_ep,
		.epoch		= e->epoch,
		.gen		= e->ho_gen,
		.from_addr	= r->peer->addr,
	};
	struct txrdma_ep *ep = txrdma_ep_get_id(e->dst_ep);
	u8 secret[TXRDMA_HANDOFF_SECRET_LEN];
	u8 next[TXRDMA_HANDOFF_SECRET_LEN];
	struct txrdma_handoff_sess hs = {};
	struct txrdma_handoff_id id;
	struct txrdma_auth key = {};
	u32 src = U32_MAX;
	int ret;

	if (!ep) {
		txrdma_handoff_refuse(r, src, -ENOENT);
		return;
	}
	spin_lock_bh(&ep->lock);
	if (txrdma_handoff_repeat_locked(ep, r)) {
		spin_unlock_bh(&ep->lock);
		goto out;
	}
	hs = (struct txrdma_handoff_sess) {
		.ep		= ep->id,
		.peer_ep	= ep->peer_ep,
		.epoch		= ep->epoch,
		.gen		= ep->ho_id.gen,
		.ended		= !ep->ho_ok || ep->frozen ||
				  !txrdma_resume_keeps_locked(ep),
		.tenant		= ep->tenant->name,
	};
	memcpy(secret, ep->ho_secret, sizeof(secret));
	src = ep->id;
	spin_unlock_bh(&ep->lock);

	/* no key made for a session that is not there */
	ret = hs.ended || hs.epoch != claim.epoch ? -ENOENT : 0;
	if (!ret)
		ret = txrdma_handoff_key(&key, secret);
	if (!ret) {
		hs.key = &key;
		ret = txrdma_handoff_check(&hs, &claim, e->ho_token);
	}
	txrdma_auth_free(&key);
	if (!ret) {
		/* the next secret: our key for the new host */
		id = (struct txrdma_handoff_id) {
			.conn_boot	= READ_ONCE(r->peer->remote_boot_id),
			.acc_boot	= txrdma_boot_id,
			.conn_ep	= e->src_ep,
			.acc_ep		= ep->id,
			.epoch		= ep->epoch,
			.gen		= hs.gen + 1,
		};
		ret = txrdma_ep_peer_secret(r->peer, &id, next);
	}
	if (!ret)
		ret = txrdma_handoff_room(ep);
	if (!ret)
		ret = txrdma_handoff_move(ep, r->peer, &hs, &id, next,
					  e->ho_old_ep);
	memzero_explicit(next, sizeof(next));
	if (ret)
		txrdma_handoff_refuse(r, src, ret);
out:
	memzero_explicit(secret, sizeof(secret));
	txrdma_ep_put(ep);
}
