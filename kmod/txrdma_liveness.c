// SPDX-License-Identifier: GPL-2.0-only
/*
 * Liveness of peers: BFD control packets (txrdma_bfd.c) carried in
 * control messages (txrdma_peer_wire.c) as SEND work requests on the
 * peer's control QP, driven by a soft hrtimer.
 *
 * Every control message is keyed (txrdma_auth.c): sealed with the
 * connection's transmit key and a sequence number one above the last,
 * and on receipt dropped and counted unless its MAC checks under the
 * receive key and its sequence number is above the last one accepted.
 * Nothing in a message is acted on before that.
 *
 * Receive and send completions and the timer run in softirq and do
 * only what BFD needs: check, decode, update the session under
 * peer->lock, answer, repost.  Everything that sleeps (netlink events, connecting
 * and tearing down QPs) is queued for the peer's work item.
 *
 * The timer fires at the next transmit or detection deadline.  A timer
 * that runs late shows that this host was stalled: the stall is not
 * counted as the peer's silence (txrdma_bfd_excuse_stall()), and the
 * timer yields once for 1 ms so that the softirq delivering probes that
 * arrived meanwhile runs before the detection time is checked.  The
 * stall is also logged and reported to the peer in the probes of the
 * next two seconds, so that the peer, which had to declare us Down,
 * learns why; the peer's reports are logged in turn, and the Down
 * before each Up is explained from both logs (txrdma_stall.c): a stall
 * of the peer, a stall of ours, or unexplained (probes were lost while
 * both ran: a cut, a dead peer).
 */
#include <linux/bitops.h>
#include <linux/delay.h>
#include <linux/ktime.h>
#include <linux/random.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include "txrdma.h"
#include "txrdma_endpoint.h"
#include "txrdma_inject.h"
#include "txrdma_peer.h"
#include "txrdma_trace.h"

#define TXRDMA_LATE_NS		(2 * NSEC_PER_MSEC)
#define TXRDMA_YIELD_NS		(1 * NSEC_PER_MSEC)

static void txrdma_ctrl_rx_done(struct ib_cq *cq, struct ib_wc *wc);
static void txrdma_ctrl_tx_done(struct ib_cq *cq, struct ib_wc *wc);

static size_t txrdma_ctrl_block_size(void)
{
	return (TXRDMA_CTRL_TX_SLOTS + TXRDMA_CTRL_RX_SLOTS) *
	       TXRDMA_CTRL_SLOT_SIZE;
}

/* Caller holds peer->lock; the connection is not dead. */
static int txrdma_ctrl_post_recv(struct txrdma_ctrl_slot *s)
{
	struct txrdma_conn *c = s->conn;
	struct ib_sge sge = {
		.addr	= s->dma,
		.length	= TXRDMA_CTRL_SLOT_SIZE,
		.lkey	= c->dev->reg.pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe		= &s->cqe,
		.sg_list	= &sge,
		.num_sge	= 1,
	};

	ib_dma_sync_single_for_device(c->dev->ibdev, s->dma,
				      TXRDMA_CTRL_SLOT_SIZE, DMA_FROM_DEVICE);
	return ib_post_recv(c->qp, &wr, NULL);
}

/**
 * txrdma_ctrl_setup() - give a new control QP its probe buffers
 * @c: connection whose QP exists and is not yet connected
 *
 * Called from the connection's rdma_cm handler.  Every receive buffer
 * is posted before the connection can be established, so the first
 * probe of the other side always finds one.
 *
 * Return: 0 or -errno (the caller fails the connection).
 */
int txrdma_ctrl_setup(struct txrdma_conn *c)
{
	struct ib_device *ibdev = c->dev->ibdev;
	unsigned int i, n = TXRDMA_CTRL_TX_SLOTS + TXRDMA_CTRL_RX_SLOTS;
	int ret = 0;

	c->slots = kcalloc(n, sizeof(*c->slots), GFP_KERNEL);
	c->block = kzalloc(txrdma_ctrl_block_size(), GFP_KERNEL);
	if (!c->slots || !c->block)
		goto out_free;
	c->block_dma = ib_dma_map_single(ibdev, c->block,
					 txrdma_ctrl_block_size(),
					 DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(ibdev, c->block_dma))
		goto out_free;
	for (i = 0; i < n; i++) {
		struct txrdma_ctrl_slot *s = &c->slots[i];

		s->conn = c;
		s->index = i;
		s->tx = i < TXRDMA_CTRL_TX_SLOTS;
		s->buf = (u8 *)c->block + i * TXRDMA_CTRL_SLOT_SIZE;
		s->dma = c->block_dma + i * TXRDMA_CTRL_SLOT_SIZE;
		s->cqe.done = s->tx ? txrdma_ctrl_tx_done : txrdma_ctrl_rx_done;
	}
	spin_lock_bh(&c->peer->lock);
	for (i = TXRDMA_CTRL_TX_SLOTS; i < n && !ret; i++)
		ret = txrdma_ctrl_post_recv(&c->slots[i]);
	spin_unlock_bh(&c->peer->lock);
	return ret;

out_free:
	kfree(c->block);
	kfree(c->slots);
	c->block = NULL;
	c->slots = NULL;
	return -ENOMEM;
}

/**
 * txrdma_ctrl_teardown() - free the probe buffers
 * @c: connection whose QP and CQ are destroyed: nothing can touch the
 *	buffers any more
 */
void txrdma_ctrl_teardown(struct txrdma_conn *c)
{
	if (!c->block)
		return;
	ib_dma_unmap_single(c->dev->ibdev, c->block_dma,
			    txrdma_ctrl_block_size(), DMA_BIDIRECTIONAL);
	kfree(c->block);
	kfree(c->slots);
	c->block = NULL;
	c->slots = NULL;
}

/* Caller holds peer->lock: a broken QP is reported to the work item. */
static void txrdma_ctrl_broken_locked(struct txrdma_conn *c)
{
	lockdep_assert_held(&c->peer->lock);
	if (c->state == TXRDMA_CONN_READY)
		txrdma_peer_conn_done(c->peer, c, TXRDMA_CONN_ERROR);
}

/* MAC of a control message's first TXRDMA_CTRL_MAC_OFF bytes. */
static int txrdma_ctrl_mac(const struct txrdma_auth *key, const u8 *buf,
			   u8 out[TXRDMA_MAC_LEN])
{
	return txrdma_auth_mac(key, "txrdma-ctrl", buf, TXRDMA_CTRL_MAC_OFF,
			       NULL, 0, out);
}

/*
 * Caller holds peer->lock: seal the message built in send slot @s of
 * control QP @c (its sequence number is c->tx_seq + 1) and send it.
 * Return: 0, or -EIO when the post failed (the QP is reported broken).
 */
static int txrdma_ctrl_post_locked(struct txrdma_conn *c,
				   struct txrdma_ctrl_slot *s)
{
	struct ib_send_wr wr = {};
	struct ib_sge sge;

	lockdep_assert_held(&c->peer->lock);
	if (txrdma_ctrl_mac(&c->tx_key, s->buf, s->buf + TXRDMA_CTRL_MAC_OFF))
		return -EIO;
	c->tx_seq++;

	ib_dma_sync_single_for_device(c->dev->ibdev, s->dma, TXRDMA_CTRL_LEN,
				      DMA_TO_DEVICE);
	sge = (struct ib_sge) {
		.addr	= s->dma,
		.length	= TXRDMA_CTRL_LEN,
		.lkey	= c->dev->reg.pd->local_dma_lkey,
	};
	wr.wr_cqe = &s->cqe;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IB_WR_SEND;
	wr.send_flags = IB_SEND_SIGNALED;
	if (ib_post_send(c->qp, &wr, NULL)) {
		txrdma_ctrl_broken_locked(c);
		return -EIO;
	}
	__set_bit(s->index, &c->tx_busy);
	return 0;
}

/**
 * txrdma_ctrl_send_locked() - build the next probe and send it
 * @peer: peer; caller holds peer->lock
 * @now_ns: monotonic clock
 *
 * The packet is always built (that schedules the next one); it is
 * counted as skipped when there is no control QP or every send slot is
 * still in flight, which happens while the link is cut and RC
 * retransmits the earlier ones.
 */
void txrdma_ctrl_send_locked(struct txrdma_peer *peer, u64 now_ns)
{
	struct txrdma_ctrl_msg m = { .type = TXRDMA_CTRL_PROBE };
	struct txrdma_conn *c = peer->ctrl;
	struct txrdma_ctrl_slot *s;
	unsigned int i;

	lockdep_assert_held(&peer->lock);
	txrdma_bfd_build_tx(&peer->bfd, &m.bfd, now_ns, get_random_u32());
	if (!c || c->dead || c->state != TXRDMA_CONN_READY ||
	    txrdma_fault(TXRDMA_FAULT_PROBE, 1))
		goto skipped;
	i = find_first_zero_bit(&c->tx_busy, TXRDMA_CTRL_TX_SLOTS);
	if (i >= TXRDMA_CTRL_TX_SLOTS)
		goto skipped;
	s = &c->slots[i];
	m.pool_want = min_t(u32, txrdma_pool_want(&peer->pool), U16_MAX);
	m.tx_ns = now_ns;
	txrdma_stall_report(&peer->stalls.own, now_ns,
			    peer->stalls.up.local_min_ns, &m.stall);
	if (peer->echo_ns) {
		m.echo_ns = peer->echo_ns;
		m.echo_delay_ns = min_t(u64, now_ns - peer->echo_rx_ns,
					U32_MAX);
		peer->echo_ns = 0;	/* one sample per probe received */
	}
	if (txrdma_ctrl_encode(&m, c->tx_seq + 1, s->buf) ||
	    txrdma_ctrl_post_locked(c, s))
		goto skipped;
	return;

skipped:
	peer->tx_skipped++;
}

/* One try of txrdma_ctrl_send_ep(). */
static int txrdma_ctrl_send_ep_once(struct txrdma_peer *peer,
				    const struct txrdma_ctrl_ep *e)
{
	struct txrdma_ctrl_slot *s;
	struct txrdma_conn *c;
	unsigned int i;
	u16 want;
	int ret;

	spin_lock_bh(&peer->lock);
	c = peer->ctrl;
	ret = -ENOTCONN;
	if (!c || c->dead || c->state != TXRDMA_CONN_READY)
		goto out;
	ret = -EAGAIN;
	i = find_first_zero_bit(&c->tx_busy, TXRDMA_CTRL_TX_SLOTS);
	if (i >= TXRDMA_CTRL_TX_SLOTS)
		goto out;
	s = &c->slots[i];
	want = min_t(u32, txrdma_pool_want(&peer->pool), U16_MAX);
	ret = txrdma_ctrl_ep_encode(e, want, c->tx_seq + 1, s->buf);
	if (!ret)
		ret = txrdma_ctrl_post_locked(c, s);
out:
	spin_unlock_bh(&peer->lock);
	return ret;
}

/* how long a pairing message waits for one of the control QP's slots */
#define TXRDMA_CTRL_SLOT_WAIT_MS	1000

/**
 * txrdma_ctrl_send_ep() - send an endpoint pairing message
 * @peer: to whom
 * @e: the message
 *
 * Process context: when every send slot is in flight (pairing churn on
 * a host that reaps completions late, or a cut link that RC
 * retransmits) it waits for one, up to TXRDMA_CTRL_SLOT_WAIT_MS, rather
 * than fail a pairing that has already bound a QP.
 *
 * Return: 0; -ENOTCONN without an established control QP; -EAGAIN when
 * no slot came free in time; -EINVAL for a message that breaks the
 * format's rules; -EIO when the post failed.
 */
int txrdma_ctrl_send_ep(struct txrdma_peer *peer,
			const struct txrdma_ctrl_ep *e)
{
	unsigned long end = jiffies + msecs_to_jiffies(TXRDMA_CTRL_SLOT_WAIT_MS);
	int ret;

	might_sleep();
	for (;;) {
		ret = txrdma_ctrl_send_ep_once(peer, e);
		if (ret != -EAGAIN || time_after(jiffies, end) ||
		    fatal_signal_pending(current))
			return ret;
		usleep_range(200, 1000);
	}
}

/* Caller holds peer->lock: make the timer fire no later than needed. */
static void txrdma_liveness_rearm_locked(struct txrdma_peer *peer)
{
	u64 next = txrdma_bfd_next_deadline(&peer->bfd);

	lockdep_assert_held(&peer->lock);
	/* a dying peer's timer is cancelled and must stay so */
	if (peer->dying)
		return;
	if ((s64)(next - ktime_to_ns(hrtimer_get_expires(&peer->timer))) < 0)
		hrtimer_start(&peer->timer, ns_to_ktime(next),
			      HRTIMER_MODE_ABS_SOFT);
}

static void txrdma_ctrl_tx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct txrdma_ctrl_slot *s = container_of(wc->wr_cqe,
						  struct txrdma_ctrl_slot, cqe);
	struct txrdma_conn *c = s->conn;

	spin_lock_bh(&c->peer->lock);
	__clear_bit(s->index, &c->tx_busy);
	if (wc->status != IB_WC_SUCCESS && !c->dead)
		txrdma_ctrl_broken_locked(c);
	spin_unlock_bh(&c->peer->lock);
}

static void txrdma_ctrl_rx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct txrdma_ctrl_slot *s = container_of(wc->wr_cqe,
						  struct txrdma_ctrl_slot, cqe);
	struct txrdma_conn *c = s->conn;
	struct txrdma_peer *peer = c->peer;
	struct txrdma_ctrl_msg m;
	struct txrdma_ctrl_ep e;
	u64 now = ktime_get_ns(), rtt, seq = 0;
	int err = -EIO, type = 0;
	u8 mac[TXRDMA_MAC_LEN];
	bool keyed = false;
	u8 old;
	u32 ev;

	if (wc->status == IB_WC_SUCCESS) {
		ib_dma_sync_single_for_cpu(c->dev->ibdev, s->dma,
					   TXRDMA_CTRL_SLOT_SIZE,
					   DMA_FROM_DEVICE);
		type = txrdma_ctrl_type(s->buf, wc->byte_len);
		/* the key first: nothing unproved is even decoded */
		keyed = type > 0 && !txrdma_ctrl_mac(&c->rx_key, s->buf, mac) &&
			txrdma_auth_equal(mac, s->buf + TXRDMA_CTRL_MAC_OFF,
					  TXRDMA_MAC_LEN);
		seq = keyed ? txrdma_ctrl_seq(s->buf) : 0;
		if (type < 0)
			err = type;
		else if (!keyed)
			err = -EACCES;
		else if (type == TXRDMA_CTRL_PROBE)
			err = txrdma_ctrl_decode(&m, s->buf, wc->byte_len);
		else if (type != TXRDMA_CTRL_AUTH)
			err = txrdma_ctrl_ep_decode(&e, s->buf, wc->byte_len);
	}
	spin_lock_bh(&peer->lock);
	if (c->dead)
		goto out_unlock;
	if (wc->status != IB_WC_SUCCESS) {
		txrdma_ctrl_broken_locked(c);
		goto out_unlock;
	}
	/* keyed, in sequence, on a connection whose other end is proved */
	if (keyed && (!c->authed || seq <= c->rx_seq))
		err = -EACCES;
	if (err == -EACCES)
		peer->rx_auth_dropped++;
	if (err) {
		peer->bfd.rx_dropped++;
		goto repost;
	}
	c->rx_seq = seq;
	c->rx_last_ns = now;
	if (type != TXRDMA_CTRL_PROBE) {
		/* endpoint pairing: handled in process context */
		txrdma_pair_ctrl_rx(peer, &e);
		goto repost;
	}
	old = peer->bfd.state;
	txrdma_peer_stall_bounds_locked(peer);
	ev = txrdma_bfd_rx(&peer->bfd, &m.bfd, now);
	if (!(ev & TXRDMA_BFD_EV_DROP)) {
		struct txrdma_stall_clock *clk = &peer->stalls.clock;

		txrdma_stall_clock_sample(clk, m.bfd.my_disc, m.tx_ns, now);
		/* a Down this probe brings was declared when it left */
		peer->stalls.sent_ns = txrdma_stall_clock_sent(clk, m.tx_ns,
							       now);
		peer->peer_stall_max_ns =
			max(peer->peer_stall_max_ns,
			    txrdma_stall_heard(&peer->stalls.peer, &m.stall,
					       peer->stalls.sent_ns));
		peer->echo_ns = m.tx_ns;
		peer->echo_rx_ns = now;
		if (!txrdma_rtt_sample(&m, now, &rtt))
			txrdma_rtt_add(&peer->rtt, rtt);
		if (peer->role == TXRDMA_PEER_ROLE_INITIATOR &&
		    peer->pool.remote_want != m.pool_want) {
			txrdma_pool_set_remote_want(&peer->pool, m.pool_want);
			txrdma_peer_kick(peer);
		}
	}
	if (ev & TXRDMA_BFD_EV_STATE)
		txrdma_peer_state_changed(peer, old, ev, now);
	if (ev & TXRDMA_BFD_EV_TX_NOW)
		txrdma_ctrl_send_locked(peer, now);
	txrdma_liveness_rearm_locked(peer);
repost:
	if (txrdma_ctrl_post_recv(s))
		txrdma_ctrl_broken_locked(c);
out_unlock:
	spin_unlock_bh(&peer->lock);
}

static enum hrtimer_restart txrdma_liveness_timer(struct hrtimer *timer)
{
	struct txrdma_peer *peer = container_of(timer, struct txrdma_peer,
						timer);
	u64 now = ktime_get_ns();
	u64 late = now - ktime_to_ns(hrtimer_get_expires(timer));
	bool dying;
	u64 next;
	u8 old;
	u32 ev;

	spin_lock_bh(&peer->lock);
	/* we were stalled: our silence is not the peer's */
	if ((s64)late > TXRDMA_LATE_NS) {
		txrdma_bfd_excuse_stall(&peer->bfd, now, late);
		txrdma_stall_add(&peer->stalls.own, now, late);
		peer->stall_max_ns = max(peer->stall_max_ns, late);
	}
	if ((s64)late > TXRDMA_LATE_NS && !peer->timer_yielded) {
		/* let the softirqs that deliver what arrived meanwhile run */
		peer->timer_yielded = true;
		next = now + TXRDMA_YIELD_NS;
		goto out;
	}
	peer->timer_yielded = false;
	old = peer->bfd.state;
	txrdma_peer_stall_bounds_locked(peer);
	ev = txrdma_bfd_tick(&peer->bfd, now);
	if (ev & TXRDMA_BFD_EV_STATE)
		txrdma_peer_state_changed(peer, old, ev, now);
	if (ev & TXRDMA_BFD_EV_TX_NOW)
		txrdma_ctrl_send_locked(peer, now);
	next = txrdma_bfd_next_deadline(&peer->bfd);
out:
	dying = peer->dying;
	spin_unlock_bh(&peer->lock);
	if (dying)
		return HRTIMER_NORESTART;
	hrtimer_set_expires(timer, ns_to_ktime(next));
	return HRTIMER_RESTART;
}

/**
 * txrdma_liveness_init() - prepare the timer of a new peer
 * @peer: peer, not yet published
 */
void txrdma_liveness_init(struct txrdma_peer *peer)
{
	hrtimer_init(&peer->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	peer->timer.function = txrdma_liveness_timer;
}

/**
 * txrdma_liveness_start() - start probing
 * @peer: peer whose session is initialised
 */
void txrdma_liveness_start(struct txrdma_peer *peer)
{
	hrtimer_start(&peer->timer, ns_to_ktime(ktime_get_ns()),
		      HRTIMER_MODE_ABS_SOFT);
}

/**
 * txrdma_liveness_stop() - stop the timer, waiting for a running one
 * @peer: peer being deleted
 */
void txrdma_liveness_stop(struct txrdma_peer *peer)
{
	hrtimer_cancel(&peer->timer);
}

/**
 * txrdma_peer_stall_bounds_locked() - note what a stall must be to
 *	explain a Down of the session as it is Up now
 * @peer: peer; caller holds peer->lock
 *
 * Called before every BFD call that may take the session Down: leaving
 * Up recomputes the session's timers, so the bounds are taken before.
 */
void txrdma_peer_stall_bounds_locked(struct txrdma_peer *peer)
{
	struct txrdma_bfd *b = &peer->bfd;

	lockdep_assert_held(&peer->lock);
	if (b->state == TXRDMA_BFD_UP)
		txrdma_stall_bounds(&peer->stalls.up, b->detect_ns,
				    b->remote_mult, b->tx_interval_ns,
				    b->cfg.detect_mult);
}

/* How a session that was Up left it (enum txrdma_stall_how). */
static u8 txrdma_peer_down_how(const struct txrdma_bfd *b, bool restart)
{
	if (b->diag == TXRDMA_BFD_DIAG_ADMIN_DOWN ||
	    b->remote_state == TXRDMA_BFD_ADMIN_DOWN)
		return TXRDMA_STALL_ADMIN;
	if (restart)
		return TXRDMA_STALL_RESTART;
	if (b->diag == TXRDMA_BFD_DIAG_NEIGHBOR_DOWN)
		return TXRDMA_STALL_HEARD;
	return TXRDMA_STALL_DETECTED;
}

/*
 * Caller holds peer->lock; the session changed state.  A Down from Up
 * is opened (not one that either side's administrator made); at the
 * next Up it is explained from the two stall logs (the peer's report
 * reaches us only once it runs again) and counted.
 */
static void txrdma_peer_explain_locked(struct txrdma_peer *peer, u8 old_state,
				       u64 now_ns, struct txrdma_peer_ev *e)
{
	struct txrdma_stall_verdict v;

	lockdep_assert_held(&peer->lock);
	if (old_state == TXRDMA_BFD_UP)
		txrdma_stall_down(&peer->stalls, now_ns,
				  txrdma_peer_down_how(&peer->bfd, e->restart),
				  peer->stalls.sent_ns);
	if (peer->bfd.state == TXRDMA_BFD_ADMIN_DOWN)
		txrdma_stall_admin(&peer->stalls);
	if (peer->bfd.state != TXRDMA_BFD_UP)
		return;
	txrdma_peer_stall_bounds_locked(peer);
	if (!txrdma_stall_up(&peer->stalls, now_ns, &v))
		return;
	e->cause = v.cause;
	e->stall_ns = v.stall_ns;
	e->down_ns = v.down_ns;
	e->flap = v.down_ns < TXRDMA_PEER_FLAP_NS;
	peer->flaps += e->flap;
	if (v.cause == TXRDMA_PEER_DOWN_UNEXPLAINED ||
	    v.cause == TXRDMA_PEER_DOWN_RESTART)
		peer->downs_unexplained++;
	else
		peer->downs_stalled++;
}

/**
 * txrdma_peer_state_changed() - record a session state change
 * @peer: peer; caller holds peer->lock
 * @old_state: state before
 * @ev: TXRDMA_BFD_EV_* bits of the change
 * @now_ns: monotonic clock of the change
 *
 * The change is stamped now and queued for the work item, which
 * multicasts it and drains or refills the pool.
 */
void txrdma_peer_state_changed(struct txrdma_peer *peer, u8 old_state,
			       u32 ev, u64 now_ns)
{
	struct txrdma_peer_ev *e;

	if (peer->bfd.state == old_state)
		return;
	if (peer->ev_count == TXRDMA_PEER_EVQ) {
		peer->ev_head = (peer->ev_head + 1) % TXRDMA_PEER_EVQ;
		peer->ev_count--;
		peer->ev_lost++;
	}
	e = &peer->evq[(peer->ev_head + peer->ev_count) % TXRDMA_PEER_EVQ];
	peer->ev_count++;
	*e = (struct txrdma_peer_ev) {
		.old_state	= old_state,
		.state		= peer->bfd.state,
		.diag		= peer->bfd.diag,
		.restart	= !!(ev & TXRDMA_BFD_EV_RESTART),
		.deleted	= peer->dying,
		.time_ns	= ktime_get_real_ns(),
		.silence_ns	= now_ns - peer->bfd.last_rx_ns,
	};
	txrdma_peer_explain_locked(peer, old_state, now_ns, e);
	peer->last_change_ns = e->time_ns;
	trace_txrdma_peer_state(peer->id, peer->name, old_state,
				peer->bfd.state, peer->bfd.diag, e->silence_ns);
	if (peer->bfd.state == TXRDMA_BFD_UP) {
		peer->ups++;
		memset(&peer->rtt, 0, sizeof(peer->rtt));
		/* back Up before the pool noticed the Down: its QPs may do */
		txrdma_peer_lend_wake(peer);
	}
	if (old_state == TXRDMA_BFD_UP)
		peer->downs++;
	txrdma_peer_kick(peer);
}
