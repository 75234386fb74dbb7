// SPDX-License-Identifier: GPL-2.0-only
/*
 * rdma_cm glue for peers: the listener, active connections (resolve
 * address, decide who initiates, resolve route, connect) and passive
 * ones (accept), the authentication of both (txrdma_auth.c describes
 * the handshake), and teardown.
 *
 * An active connection's QP is rdma_cm's (rdma_create_qp()).  A passive
 * one's is ours, moved through INIT, RTR and RTS here with the
 * attributes rdma_init_qp_attr() gives, as librdmacm does for user QPs,
 * so that it allows no remote access until the initiator has proved it
 * holds the key: rdma_accept() would grant remote write before its
 * reply even leaves.
 *
 * Handlers only act on their own connection under its @mutex and
 * report outcomes through txrdma_peer_conn_done(), which schedules the
 * peer's work item; only the work item (or peer deletion and device
 * removal, in process context) destroys a cm_id, never its handler.
 * The one exception is a connection request refused before anything
 * was allocated for it: the handler returns non-zero and rdma_cm
 * destroys the new id itself (and rejects the request), as documented.
 */
#include <linux/in.h>
#include <linux/ktime.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <net/net_namespace.h>
#include <rdma/ib_cm.h>

#include "txrdma.h"
#include "txrdma_endpoint.h"
#include "txrdma_peer.h"
#include "txrdma_trace.h"

/*
 * RC local ACK timeout 4.096 us * 2^16 = 268 ms, 7 retries: a QP errors
 * after about 2 s without an ACK.  Liveness (80 ms by default), not the
 * QP, is what detects a dead peer; the QP only has to outlast a host
 * that stalls - TCG guests sharing cores stalled 1.2 s under load, and
 * 67 ms x 8 broke pairs that liveness had kept Up.
 *
 * The control QP carries the probes, so it is what brings a peer back
 * Up after a partition: its probes sent into the partition wait for a
 * retransmission, and the ones after them wait behind (RC is in
 * order).  With 268 ms a 440 ms partition kept the peer Down some
 * 640 ms after it healed, more than a session's grace allows; with
 * 67 ms the first probe after the heal gets through within 20-50 ms.
 * Its 8 tries (537 ms before the QP errors, which only makes the peer
 * reconnect it) still outlast the liveness detection time, so a stall
 * that breaks it has taken the peer Down anyway: a peer configured
 * with a longer detection gets a longer timeout, up to the data QPs'
 * (txrdma_ctrl_ack_timeout()).
 *
 * rxe (6.1, rxe_comp.c) takes a retry count of 7 as "for ever", as the
 * IB spec does only for the RNR count: under rxe no QP of ours errors
 * for want of ACKs, however long the cut.  What ends a QP to a cut or
 * dead peer there is liveness (a Down closes the pool's QPs) and, for
 * the control QP, TXRDMA_CTRL_STALE_NS of silence while Down; a control
 * QP that outlives a partition delivers its queued probes after the
 * heal.  The times above are what hardware does.
 */
#define TXRDMA_ACK_TIMEOUT	16
#define TXRDMA_CTRL_ACK_TIMEOUT	14
#define TXRDMA_RETRY_COUNT	7

/*
 * How long a sender waits after a receiver-not-ready NAK of our control
 * QP: 0.64 ms, not rdma_cm's default of 0 (which encodes 655 ms).  A
 * control QP that outlived a partition delivers the probes queued in it
 * at once after the heal; they took all of the other side's receive
 * buffers, the next probe was NAKed, and its sender waited 655 ms,
 * longer than the liveness detection time: every partition longer than
 * the queue (32 probes) ended in a second, false Down right after the
 * Up.  Receives are reposted as they complete, so a short wait
 * suffices; at most 32 probes are retried per wait.  The data QPs keep
 * the default: their receivers post twice the sender's slots, and an
 * RNR there has not been seen.
 */
#define TXRDMA_CTRL_MIN_RNR_TIMER	IB_RNR_TIMER_000_64
#define TXRDMA_LISTEN_BACKLOG	128
/* passive connections not authenticated yet, over all peers */
#define TXRDMA_MAX_HALF_OPEN	64
/* what the data path's QPs let the other end do, once it is a peer */
#define TXRDMA_QP_REMOTE_ACCESS	(IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ)

static struct rdma_cm_id *txrdma_listen_id;
static atomic_t txrdma_half_open = ATOMIC_INIT(0);

static int txrdma_cm_handler(struct rdma_cm_id *id,
			     struct rdma_cm_event *ev);
static void txrdma_conn_hs_work(struct work_struct *work);

static struct txrdma_conn *txrdma_conn_alloc(struct txrdma_peer *peer,
					     u8 kind)
{
	struct txrdma_conn *c = kzalloc(sizeof(*c), GFP_KERNEL);

	if (!c)
		return NULL;
	mutex_init(&c->mutex);
	INIT_WORK(&c->hs_work, txrdma_conn_hs_work);
	c->peer = peer;
	c->kind = kind;
	c->state = TXRDMA_CONN_CONNECTING;
	c->started_ns = ktime_get_ns();
	return c;
}

static void txrdma_conn_free(struct txrdma_conn *c)
{
	mutex_destroy(&c->mutex);
	kfree(c);
}

/* The buffer of the AUTH message, received or sent (once per QP). */
static int txrdma_conn_hs_alloc(struct txrdma_conn *c)
{
	struct ib_device *ibdev = c->dev->ibdev;

	c->hs_buf = kzalloc(TXRDMA_CTRL_LEN, GFP_KERNEL);
	if (!c->hs_buf)
		return -ENOMEM;
	c->hs_dma = ib_dma_map_single(ibdev, c->hs_buf, TXRDMA_CTRL_LEN,
				      DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(ibdev, c->hs_dma)) {
		kfree(c->hs_buf);
		c->hs_buf = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* After the QP is drained and destroyed: nothing can touch it. */
static void txrdma_conn_hs_free(struct txrdma_conn *c)
{
	if (!c->hs_buf)
		return;
	ib_dma_unmap_single(c->dev->ibdev, c->hs_dma, TXRDMA_CTRL_LEN,
			    DMA_BIDIRECTIONAL);
	kfree(c->hs_buf);
	c->hs_buf = NULL;
}

/* Caller holds the peer's lock: @c no longer counts as half-open. */
static void txrdma_conn_half_open_end(struct txrdma_conn *c)
{
	if (c->half_open) {
		c->half_open = false;
		c->peer->nhalf_open--;
		atomic_dec(&txrdma_half_open);
	}
}

/*
 * Caller holds the peer's lock: a request carrying a nonce we answered
 * lately is a replay (an initiator draws a fresh one for every
 * request): refuse it before anything is allocated.  Otherwise the
 * nonce is remembered.  Return: true if it was seen.
 */
static bool txrdma_conn_nonce_seen_locked(struct txrdma_peer *peer,
					  const u8 *nonce)
{
	unsigned int i;

	lockdep_assert_held(&peer->lock);
	for (i = 0; i < TXRDMA_PEER_NONCES; i++)
		if (!memcmp(peer->nonces[i], nonce, TXRDMA_NONCE_LEN))
			return true;
	memcpy(peer->nonces[peer->nonce_next], nonce, TXRDMA_NONCE_LEN);
	peer->nonce_next = (peer->nonce_next + 1) % TXRDMA_PEER_NONCES;
	return false;
}

/*
 * Caller holds the peer's lock: an acceptor's connection is ready once
 * it is established, the initiator has proved the key and remote
 * access is open; only now does what its request said count.
 */
static void txrdma_conn_passive_ready_locked(struct txrdma_conn *c)
{
	struct txrdma_peer *peer = c->peer;

	lockdep_assert_held(&peer->lock);
	if (!c->established || !c->opened || c->state != TXRDMA_CONN_CONNECTING)
		return;
	txrdma_conn_half_open_end(c);
	if (!c->mirror) {
		txrdma_pool_set_remote_want(&peer->pool, c->remote_want);
		if (c->kind == TXRDMA_CONN_CTRL)
			WRITE_ONCE(peer->remote_boot_id, c->remote_boot_id);
	}
	txrdma_peer_conn_done(peer, c, TXRDMA_CONN_READY);
}

/*
 * The initiator's AUTH message arrived (softirq): check its MAC over
 * both nonces; remote access is opened in process context.
 */
static void txrdma_conn_auth_rx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct txrdma_conn *c = container_of(wc->wr_cqe, struct txrdma_conn,
					     hs_cqe);
	struct txrdma_peer *peer = c->peer;
	u8 mac[TXRDMA_MAC_LEN];
	bool ok = false;

	if (wc->status == IB_WC_SUCCESS) {
		ib_dma_sync_single_for_cpu(c->dev->ibdev, c->hs_dma,
					   TXRDMA_CTRL_LEN, DMA_BIDIRECTIONAL);
		ok = !txrdma_ctrl_auth_decode(c->hs_buf, wc->byte_len) &&
		     !txrdma_hs_auth_mac(&peer->auth, c->hs_req, c->hs_rep,
					 mac) &&
		     txrdma_auth_equal(mac, (u8 *)c->hs_buf +
				       TXRDMA_CTRL_MAC_OFF, TXRDMA_MAC_LEN);
	}
	spin_lock_bh(&peer->lock);
	if (c->dead)
		goto out;
	if (!ok) {
		/* a flush is the QP's end, not a forgery */
		if (wc->status == IB_WC_SUCCESS)
			peer->auth_fails++;
		txrdma_peer_conn_done(peer, c, TXRDMA_CONN_FAILED);
		goto out;
	}
	c->authed = true;
	queue_work(txrdma_peer_wq, &c->hs_work);
out:
	spin_unlock_bh(&peer->lock);
}

/* The initiator's AUTH message left (or was flushed): nothing to do. */
static void txrdma_conn_auth_tx_done(struct ib_cq *cq, struct ib_wc *wc)
{
}

/* Acceptor, process context: open remote access to an authenticated QP. */
static void txrdma_conn_hs_work(struct work_struct *work)
{
	struct txrdma_conn *c = container_of(work, struct txrdma_conn,
					     hs_work);
	struct ib_qp_attr attr = {
		.qp_access_flags = TXRDMA_QP_REMOTE_ACCESS,
	};
	struct txrdma_peer *peer = c->peer;
	int ret;

	mutex_lock(&c->mutex);
	if (c->dead)
		goto out;
	ret = ib_modify_qp(c->qp, &attr, IB_QP_ACCESS_FLAGS);
	spin_lock_bh(&peer->lock);
	if (ret) {
		txrdma_peer_conn_done(peer, c, TXRDMA_CONN_FAILED);
	} else {
		c->opened = true;
		txrdma_conn_passive_ready_locked(c);
	}
	spin_unlock_bh(&peer->lock);
out:
	mutex_unlock(&c->mutex);
}

/* Acceptor: the first receive of the QP takes the AUTH message. */
static int txrdma_conn_post_auth_rx(struct txrdma_conn *c)
{
	struct ib_sge sge = {
		.addr	= c->hs_dma,
		.length	= TXRDMA_CTRL_LEN,
		.lkey	= c->dev->reg.pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe		= &c->hs_cqe,
		.sg_list	= &sge,
		.num_sge	= 1,
	};

	c->hs_cqe.done = txrdma_conn_auth_rx_done;
	ib_dma_sync_single_for_device(c->dev->ibdev, c->hs_dma,
				      TXRDMA_CTRL_LEN, DMA_BIDIRECTIONAL);
	return ib_post_recv(c->qp, &wr, NULL);
}

/* Initiator: send AUTH, the first message on the QP. */
static int txrdma_conn_post_auth_tx(struct txrdma_conn *c)
{
	struct ib_sge sge = {
		.addr	= c->hs_dma,
		.length	= TXRDMA_CTRL_LEN,
		.lkey	= c->dev->reg.pd->local_dma_lkey,
	};
	struct ib_send_wr wr = {
		.wr_cqe		= &c->hs_cqe,
		.sg_list	= &sge,
		.num_sge	= 1,
		.opcode		= IB_WR_SEND,
		.send_flags	= IB_SEND_SIGNALED,
	};
	int ret;

	txrdma_ctrl_auth_encode(c->hs_buf);
	ret = txrdma_hs_auth_mac(&c->peer->auth, c->hs_req, c->hs_rep,
				 (u8 *)c->hs_buf + TXRDMA_CTRL_MAC_OFF);
	if (ret)
		return ret;
	c->hs_cqe.done = txrdma_conn_auth_tx_done;
	ib_dma_sync_single_for_device(c->dev->ibdev, c->hs_dma,
				      TXRDMA_CTRL_LEN, DMA_BIDIRECTIONAL);
	return ib_post_send(c->qp, &wr, NULL);
}

/*
 * Move an acceptor's own QP to @state with what rdma_cm says for it,
 * but with no remote access (opened once the initiator is proved).
 */
static int txrdma_conn_passive_modify(struct txrdma_conn *c,
				      enum ib_qp_state state)
{
	struct ib_qp_attr attr = { .qp_state = state };
	int mask, ret;

	ret = rdma_init_qp_attr(c->id, &attr, &mask);
	if (ret)
		return ret;
	if (mask & IB_QP_ACCESS_FLAGS)
		attr.qp_access_flags = 0;
	/* as in our reply (txrdma_conn_param()), as librdmacm does */
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		attr.max_dest_rd_atomic = c->resp_res;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		attr.max_rd_atomic = c->init_depth;
	return ib_modify_qp(c->qp, &attr, mask);
}

/*
 * Create the QP of @c on a CQ of the device's shared pool, its
 * handshake buffer, and probe buffers for a control QP.  Each queue has
 * two entries more than its slots: the AUTH message (sent by the
 * initiator, received by the acceptor) and the marker of ib_drain_qp()
 * at teardown.
 *
 * Why the pool and not a CQ per QP: rxe in 6.1 schedules a tasklet per
 * CQ for the completion callback and does not kill it when the CQ is
 * destroyed (rxe_destroy_cq() only marks it dying; upstream removed
 * the tasklet in 6.4, "RDMA/rxe: Remove tasklet call from rxe_cq.c"),
 * so freeing a CQ while a completion is being signalled on another CPU
 * let the tasklet run on freed memory: pairing churn panicked 2-vCPU
 * guests.  Pooled CQs live as long as the device, and teardown drains
 * each QP, so that no completion of it is left in the shared CQ.
 */
/*
 * The control QP's local ACK timeout (4.096 us * 2^t): the shortest from
 * TXRDMA_CTRL_ACK_TIMEOUT up whose TXRDMA_RETRY_COUNT + 1 tries last the
 * peer's detection time, at most TXRDMA_ACK_TIMEOUT.
 */
static u8 txrdma_ctrl_ack_timeout(const struct txrdma_peer *peer)
{
	u64 detect_ns = (u64)READ_ONCE(peer->bfd.cfg.required_min_rx_us) *
			READ_ONCE(peer->bfd.cfg.detect_mult) * NSEC_PER_USEC;
	u8 t;

	for (t = TXRDMA_CTRL_ACK_TIMEOUT; t < TXRDMA_ACK_TIMEOUT; t++)
		if ((TXRDMA_RETRY_COUNT + 1) * (4096ULL << t) >= detect_ns)
			break;
	return t;
}

static int txrdma_conn_create_qp(struct txrdma_conn *c)
{
	bool ctrl = c->kind == TXRDMA_CONN_CTRL;
	u32 sq = ctrl ? TXRDMA_CTRL_TX_SLOTS : TXRDMA_EP_SLOTS;
	u32 rq = ctrl ? TXRDMA_CTRL_RX_SLOTS : TXRDMA_EP_RECVS;
	struct ib_qp_init_attr attr = {};
	struct ib_qp *qp;
	int ret;

	ret = txrdma_conn_hs_alloc(c);
	if (ret)
		return ret;
	c->cq_entries = sq + rq + 4;
	c->cq = ib_cq_pool_get(c->dev->ibdev, c->cq_entries, -1,
			       IB_POLL_SOFTIRQ);
	if (IS_ERR(c->cq)) {
		ret = PTR_ERR(c->cq);
		c->cq = NULL;
		return ret;
	}
	attr.send_cq = c->cq;
	attr.recv_cq = c->cq;
	attr.qp_type = IB_QPT_RC;
	attr.sq_sig_type = IB_SIGNAL_REQ_WR;
	attr.cap.max_send_wr = sq + 2;
	attr.cap.max_recv_wr = rq + 2;
	/*
	 * A frame: its header, the payload where it lies, a trailer and
	 * padding; several frames in one write (txrdma_tx.c) as far as
	 * the device takes SGEs
	 */
	c->max_sge = 1;
	if (!ctrl)
		c->max_sge = clamp_t(u32, c->dev->ibdev->attrs.max_send_sge, 3,
				     TXRDMA_TX_WR_SGES);
	attr.cap.max_send_sge = c->max_sge;
	attr.cap.max_recv_sge = 1;
	ret = rdma_set_ack_timeout(c->id, ctrl ?
				   txrdma_ctrl_ack_timeout(c->peer) :
				   TXRDMA_ACK_TIMEOUT);
	if (!ret && ctrl)
		ret = rdma_set_min_rnr_timer(c->id, TXRDMA_CTRL_MIN_RNR_TIMER);
	if (ret)
		return ret;
	if (!c->passive) {
		ret = rdma_create_qp(c->id, c->dev->reg.pd, &attr);
		if (ret)
			return ret;
		/* rdma_cm moved it to INIT; read unlocked by the tracepoint */
		WRITE_ONCE(c->qp, c->id->qp);
		c->drainable = true;
	} else {
		attr.port_num = c->id->port_num;
		qp = ib_create_qp(c->dev->reg.pd, &attr);
		if (IS_ERR(qp))
			return PTR_ERR(qp);
		WRITE_ONCE(c->qp, qp);
		/* receives need INIT; the AUTH message takes the first */
		ret = txrdma_conn_passive_modify(c, IB_QPS_INIT);
		if (ret)
			return ret;
		c->drainable = true;
		ret = txrdma_conn_post_auth_rx(c);
		if (ret)
			return ret;
	}
	if (ctrl)
		ret = txrdma_ctrl_setup(c);
	if (!ret && c->passive)
		ret = txrdma_conn_passive_modify(c, IB_QPS_RTR);
	if (!ret && c->passive)
		ret = txrdma_conn_passive_modify(c, IB_QPS_RTS);
	return ret;
}

/* Read depths of the device: one-sided READs of the data path. */
static void txrdma_conn_depths(struct txrdma_conn *c)
{
	const struct ib_device_attr *a = &c->dev->ibdev->attrs;

	c->resp_res = min_t(int, a->max_qp_rd_atom, 16);
	c->init_depth = min_t(int, a->max_qp_init_rd_atom, 16);
}

static void txrdma_conn_param(struct txrdma_conn *c,
			      struct rdma_conn_param *p, void *priv, u8 len)
{
	memset(p, 0, sizeof(*p));
	p->private_data = priv;
	p->private_data_len = len;
	p->responder_resources = c->resp_res;
	p->initiator_depth = c->init_depth;
	p->retry_count = TXRDMA_RETRY_COUNT;
	p->rnr_retry_count = 7;	/* infinite: receivers repost promptly */
	if (c->passive)
		p->qp_num = c->qp->qp_num;	/* our own QP */
}

/* ADDR_RESOLVED: learn our address, decide the role, resolve a route. */
static int txrdma_conn_addr_resolved(struct txrdma_conn *c)
{
	struct sockaddr_in *src = (void *)&c->id->route.addr.src_addr;
	struct txrdma_peer *peer = c->peer;
	u8 role;

	c->dev = txrdma_dev_get_ibdev(c->id->device);
	if (!c->dev)
		return -ENODEV;
	if (peer->devname[0] && strcmp(peer->devname, c->dev->name))
		return -ENODEV;
	if (src->sin_family != AF_INET)
		return -EAFNOSUPPORT;

	spin_lock_bh(&peer->lock);
	peer->local_addr = src->sin_addr.s_addr;
	/* the lower address initiates; a peer that is this host does both */
	if (peer->self ||
	    txrdma_addr_cmp((u8 *)&peer->local_addr, (u8 *)&peer->addr,
			    sizeof(peer->addr)) < 0)
		peer->role = TXRDMA_PEER_ROLE_INITIATOR;
	else
		peer->role = TXRDMA_PEER_ROLE_ACCEPTOR;
	role = peer->role;
	spin_unlock_bh(&peer->lock);
	if (role == TXRDMA_PEER_ROLE_ACCEPTOR)
		return -EALREADY;	/* the peer connects to us */
	return rdma_resolve_route(c->id, TXRDMA_RESOLVE_TIMEOUT_MS);
}

/* ROUTE_RESOLVED: create the QP and send the connection request. */
static int txrdma_conn_route_resolved(struct txrdma_conn *c)
{
	struct txrdma_cm_priv priv = {
		.kind	 = c->kind,
		.boot_id = txrdma_boot_id,
	};
	u8 buf[TXRDMA_CM_REQ_LEN], mac[TXRDMA_MAC_LEN];
	struct rdma_conn_param param;
	int ret;

	txrdma_conn_depths(c);
	ret = txrdma_conn_create_qp(c);
	if (ret)
		return ret;
	spin_lock_bh(&c->peer->lock);
	priv.pool_want = min_t(u32, txrdma_pool_want(&c->peer->pool),
			       U16_MAX);
	spin_unlock_bh(&c->peer->lock);
	get_random_bytes(priv.nonce, sizeof(priv.nonce));
	ret = txrdma_cm_req_encode(&priv, buf);
	if (!ret)
		ret = txrdma_hs_req_mac(&c->peer->auth, buf, mac);
	if (ret)
		return ret;
	memcpy(buf + TXRDMA_HS_LEN, mac, TXRDMA_REQ_MAC_LEN);
	memcpy(c->hs_req, buf, TXRDMA_HS_LEN);
	txrdma_conn_param(c, &param, buf, sizeof(buf));
	return rdma_connect_locked(c->id, &param);
}

/*
 * ESTABLISHED on the initiator: the reply must prove the acceptor holds
 * the key; then the AUTH message proves it to the acceptor.  A control
 * QP also gets its message keys.  Return: 0 or -errno (-EACCES: a
 * reply that does not prove the key, counted).
 */
static int txrdma_conn_active_auth(struct txrdma_conn *c,
				   const struct rdma_conn_param *p)
{
	struct txrdma_peer *peer = c->peer;
	u8 mac[TXRDMA_MAC_LEN];
	struct txrdma_cm_priv rep;
	const u8 *b = p->private_data;
	int ret;

	ret = txrdma_cm_rep_decode(&rep, b, p->private_data_len);
	if (!ret && rep.kind != c->kind)
		ret = -EINVAL;
	if (!ret)
		ret = txrdma_hs_rep_mac(&peer->auth, c->hs_req, b, mac);
	if (!ret && !txrdma_auth_equal(mac, b + TXRDMA_HS_LEN,
				       TXRDMA_MAC_LEN))
		ret = -EACCES;
	if (ret) {
		spin_lock_bh(&peer->lock);
		peer->auth_fails++;
		spin_unlock_bh(&peer->lock);
		return -EACCES;
	}
	memcpy(c->hs_rep, b, TXRDMA_HS_LEN);
	if (c->kind == TXRDMA_CONN_CTRL) {
		ret = txrdma_hs_session(&peer->auth, true, c->hs_req,
					c->hs_rep, &c->tx_key, &c->rx_key);
		if (ret)
			return ret;
	}
	ret = txrdma_conn_post_auth_tx(c);
	if (ret)
		return ret;
	spin_lock_bh(&peer->lock);
	c->authed = true;
	c->opened = true;
	/* the module behind this path (txrdma_path_same_host()) */
	if (c->kind == TXRDMA_CONN_CTRL)
		WRITE_ONCE(peer->remote_boot_id, rep.boot_id);
	spin_unlock_bh(&peer->lock);
	return 0;
}

/*
 * CONNECT_REQUEST on the listener: @id is the new id.  A request that
 * does not carry the peer's MAC is refused before anything is made for
 * it; one that does (it may be replayed) gets a QP with no remote
 * access, counted as half-open until the initiator's AUTH message
 * proves the key.  Returning non-zero before a connection is listed
 * makes rdma_cm reject and destroy @id; once listed, failures go
 * through the work item.
 */
static int txrdma_conn_request(struct rdma_cm_id *id,
			       struct rdma_cm_event *ev)
{
	struct sockaddr_in *dst = (void *)&id->route.addr.dst_addr;
	struct sockaddr_in *src = (void *)&id->route.addr.src_addr;
	const struct rdma_conn_param *cp = &ev->param.conn;
	struct txrdma_cm_priv priv, mine = { .boot_id = txrdma_boot_id };
	u8 mac[TXRDMA_MAC_LEN], rep[TXRDMA_CM_REP_LEN];
	struct rdma_conn_param param;
	struct txrdma_peer *peer;
	struct txrdma_conn *c;
	int ret;

	if (dst->sin_family != AF_INET ||
	    txrdma_cm_req_decode(&priv, cp->private_data,
				 cp->private_data_len))
		return -EINVAL;
	peer = txrdma_peer_find_addr(dst->sin_addr.s_addr);
	if (!peer)
		return -ENOENT;
	c = txrdma_conn_alloc(peer, priv.kind);	/* takes over the ref */
	if (!c) {
		txrdma_peer_put(peer);
		return -ENOMEM;
	}
	c->id = id;
	c->passive = true;
	c->remote_qpn = cp->qp_num;
	c->remote_want = priv.pool_want;
	c->remote_boot_id = priv.boot_id;
	memcpy(c->hs_req, cp->private_data, TXRDMA_HS_LEN);
	c->dev = txrdma_dev_get_ibdev(id->device);
	if (!c->dev || (peer->devname[0] &&
			strcmp(peer->devname, c->dev->name))) {
		ret = -ENODEV;
		goto out_free;
	}

	mutex_lock(&c->mutex);
	spin_lock_bh(&peer->lock);
	ret = -ESHUTDOWN;
	if (peer->dying)
		goto out_unlock;
	/*
	 * Its device began to go since the lookup: its removal may have
	 * passed this peer already (txrdma_peers_drop_dev(), under this
	 * lock after dying was set), and nothing would close this one.
	 */
	ret = -ENODEV;
	if (READ_ONCE(c->dev->dying))
		goto out_unlock;
	/* the key lives until the peer is dying (txrdma_peer_shutdown()) */
	ret = txrdma_hs_req_mac(&peer->auth, c->hs_req, mac);
	if (!ret && !txrdma_auth_equal(mac, (const u8 *)cp->private_data +
				       TXRDMA_HS_LEN, TXRDMA_REQ_MAC_LEN))
		ret = -EACCES;
	if (!ret && txrdma_conn_nonce_seen_locked(peer, priv.nonce))
		ret = -EACCES;
	if (ret) {
		peer->auth_fails++;
		goto out_unlock;
	}
	/*
	 * What a request proves is only that someone once held the key:
	 * until AUTH, it costs a bounded share of this peer's and of the
	 * host's resources.
	 */
	ret = -EBUSY;
	if (atomic_read(&txrdma_half_open) >= TXRDMA_MAX_HALF_OPEN ||
	    peer->nhalf_open > peer->pool.max + 1)
		goto out_unlock;
	c->mirror = peer->self;
	if (c->mirror) {
		/* the accepting halves of a self peer's own connections:
		 * what it can initiate (pool and control QP), twice over
		 * for the halves of closed ones not yet torn down
		 */
		if (peer->nmirror >= 2 * (peer->pool.max + 1))
			goto out_unlock;
		peer->nmirror++;
	} else {
		/* the lower address initiates: refuse what contradicts it */
		ret = -EISCONN;
		if (peer->role == TXRDMA_PEER_ROLE_INITIATOR ||
		    txrdma_addr_cmp((u8 *)&src->sin_addr.s_addr,
				    (u8 *)&peer->addr, sizeof(peer->addr)) < 0)
			goto out_unlock;
		peer->role = TXRDMA_PEER_ROLE_ACCEPTOR;
		peer->local_addr = src->sin_addr.s_addr;
		if (c->kind == TXRDMA_CONN_POOL) {
			ret = txrdma_pool_accept(&peer->pool);
			if (ret)
				goto out_unlock;
			c->acct = TXRDMA_ACCT_CONNECTING;
		}
	}
	atomic_inc(&txrdma_half_open);
	peer->nhalf_open++;
	c->half_open = true;
	list_add_tail(&c->node, &peer->conns);
	txrdma_conn_trace(c, c->state);
	/* the work item enforces the connect timeout: it must learn of @c */
	txrdma_peer_kick(peer);
	spin_unlock_bh(&peer->lock);
	id->context = c;

	/* listed: from here on failures are the work item's to clean up */
	txrdma_conn_depths(c);
	c->resp_res = min_t(u8, c->resp_res, cp->initiator_depth);
	c->init_depth = min_t(u8, c->init_depth, cp->responder_resources);
	ret = txrdma_conn_create_qp(c);
	if (!ret) {
		mine.kind = c->kind;
		get_random_bytes(mine.nonce, sizeof(mine.nonce));
		ret = txrdma_cm_rep_encode(&mine, rep);
	}
	if (!ret) {
		memcpy(c->hs_rep, rep, TXRDMA_HS_LEN);
		ret = txrdma_hs_rep_mac(&peer->auth, c->hs_req, c->hs_rep,
					rep + TXRDMA_HS_LEN);
	}
	if (!ret && c->kind == TXRDMA_CONN_CTRL)
		ret = txrdma_hs_session(&peer->auth, false, c->hs_req,
					c->hs_rep, &c->tx_key, &c->rx_key);
	if (!ret) {
		txrdma_conn_param(c, &param, rep, sizeof(rep));
		ret = rdma_accept(id, &param);
	}
	if (ret) {
		rdma_reject(id, NULL, 0, IB_CM_REJ_CONSUMER_DEFINED);
		spin_lock_bh(&peer->lock);
		txrdma_peer_conn_done(peer, c, TXRDMA_CONN_FAILED);
		spin_unlock_bh(&peer->lock);
	}
	mutex_unlock(&c->mutex);
	return 0;

out_unlock:
	spin_unlock_bh(&peer->lock);
	mutex_unlock(&c->mutex);
out_free:
	if (c->dev)
		txrdma_dev_user_put(c->dev);
	txrdma_peer_put(peer);
	txrdma_conn_free(c);
	return ret;
}

static int txrdma_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct txrdma_conn *c = id->context;
	struct txrdma_peer *peer;
	int ret = 0;
	u8 state = 0;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		return txrdma_conn_request(id, ev);
	if (!c || id == txrdma_listen_id)
		return 0;	/* the listener's own events */
	peer = c->peer;

	mutex_lock(&c->mutex);
	if (c->dead)
		goto out;
	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		ret = txrdma_conn_addr_resolved(c);
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		ret = txrdma_conn_route_resolved(c);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		spin_lock_bh(&peer->lock);
		c->established = true;
		if (c->passive)
			/* ready once authenticated: now or when AUTH is in */
			txrdma_conn_passive_ready_locked(c);
		spin_unlock_bh(&peer->lock);
		if (c->passive)
			break;
		/* the active side learns the other end's QP from the REP */
		WRITE_ONCE(c->remote_qpn, ev->param.conn.qp_num);
		ret = txrdma_conn_active_auth(c, &ev->param.conn);
		if (!ret)
			state = TXRDMA_CONN_READY;
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
		ret = ev->status ? ev->status : -ECONNREFUSED;
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
	case RDMA_CM_EVENT_ADDR_CHANGE:
		state = TXRDMA_CONN_ERROR;
		break;
	default:
		break;
	}
	if (ret)
		state = ret == -EALREADY ? TXRDMA_CONN_CLOSE :
			TXRDMA_CONN_FAILED;
	if (state) {
		spin_lock_bh(&peer->lock);
		txrdma_peer_conn_done(peer, c, state);
		spin_unlock_bh(&peer->lock);
	}
out:
	mutex_unlock(&c->mutex);
	return 0;
}

/**
 * txrdma_conn_trace() - the txrdma_conn tracepoint for a connection
 * @c: the connection; caller holds its peer's lock
 * @old: its state before (the same as now for one just listed: an
 *	attempt started, or a request accepted)
 */
void txrdma_conn_trace(const struct txrdma_conn *c, u8 old)
{
	/* @c's QP and the other end's number are set without the lock */
	struct ib_qp *qp = READ_ONCE(c->qp);

	lockdep_assert_held(&c->peer->lock);
	trace_txrdma_conn(c->peer->id, c->kind, c->passive, old, c->state,
			  qp ? qp->qp_num : 0, READ_ONCE(c->remote_qpn),
			  c->peer->ctrl == c);
}

/**
 * txrdma_conn_start() - begin an active connection to a peer
 * @peer: peer (not dying); the connection takes a reference
 * @kind: TXRDMA_CONN_CTRL or TXRDMA_CONN_POOL
 * @acct: TXRDMA_ACCT_CONNECTING if the pool already counts the attempt
 *
 * Called by the peer's work item.  The attempt continues in the
 * rdma_cm handler; its outcome reaches the work item.
 *
 * Return: 0, or -errno when no attempt could be started (the caller
 * undoes its accounting).
 */
int txrdma_conn_start(struct txrdma_peer *peer, u8 kind, u8 acct)
{
	struct sockaddr_in dst = {
		.sin_family	= AF_INET,
		.sin_port	= htons(peer->port),
		.sin_addr	= { .s_addr = peer->addr },
	};
	struct txrdma_conn *c;
	int ret;

	c = txrdma_conn_alloc(peer, kind);
	if (!c)
		return -ENOMEM;
	c->id = rdma_create_id(&init_net, txrdma_cm_handler, c, RDMA_PS_TCP,
			       IB_QPT_RC);
	if (IS_ERR(c->id)) {
		ret = PTR_ERR(c->id);
		txrdma_conn_free(c);
		return ret;
	}
	kref_get(&peer->ref);
	mutex_lock(&c->mutex);
	spin_lock_bh(&peer->lock);
	if (peer->dying) {
		spin_unlock_bh(&peer->lock);
		mutex_unlock(&c->mutex);
		rdma_destroy_id(c->id);
		txrdma_peer_put(peer);
		txrdma_conn_free(c);
		return -ESHUTDOWN;
	}
	c->acct = acct;
	list_add_tail(&c->node, &peer->conns);
	txrdma_conn_trace(c, c->state);
	spin_unlock_bh(&peer->lock);
	ret = rdma_resolve_addr(c->id, NULL, (struct sockaddr *)&dst,
				TXRDMA_RESOLVE_TIMEOUT_MS);
	if (ret) {
		spin_lock_bh(&peer->lock);
		txrdma_peer_conn_done(peer, c, TXRDMA_CONN_FAILED);
		spin_unlock_bh(&peer->lock);
	}
	mutex_unlock(&c->mutex);
	return 0;
}

/**
 * txrdma_conn_destroy() - tear a connection down and free it
 * @c: connection, already removed from its peer's list and accounted
 *
 * Process context, no lock held.  Marking it dead under both locks
 * stops its handler and its completions from posting.  Then, as the
 * kernel's own ULPs do: disconnect, drain (every work request posted on
 * the QP completes, flushed, and its callback has returned: completions
 * of one queue are reaped in order, the drain marker last), destroy the
 * QP, give its share of the pooled CQ back; only then the buffers and
 * endpoints its callbacks use, the id last.
 */
void txrdma_conn_destroy(struct txrdma_conn *c)
{
	struct txrdma_peer *peer = c->peer;

	mutex_lock(&c->mutex);
	spin_lock_bh(&peer->lock);
	c->dead = true;
	if (peer->ctrl == c)
		peer->ctrl = NULL;
	txrdma_conn_half_open_end(c);
	if (c->mirror)
		peer->nmirror--;
	spin_unlock_bh(&peer->lock);
	mutex_unlock(&c->mutex);
	/* dead: its AUTH completion queues no more work */
	cancel_work_sync(&c->hs_work);

	if (c->established)
		rdma_disconnect(c->id);
	if (c->qp) {
		/* a QP still in RESET carries nothing (and cannot drain) */
		if (c->drainable)
			ib_drain_qp(c->qp);
		if (c->passive)
			ib_destroy_qp(c->qp);
		else
			rdma_destroy_qp(c->id);
		c->qp = NULL;
	}
	if (c->cq)
		ib_cq_pool_put(c->cq, c->cq_entries);
	txrdma_conn_hs_free(c);
	txrdma_auth_free(&c->tx_key);
	txrdma_auth_free(&c->rx_key);
	/* no completion runs any more: the pair's endpoint may go */
	txrdma_pair_conn_destroyed(c);
	rdma_destroy_id(c->id);
	txrdma_ctrl_teardown(c);
	if (c->dev)
		txrdma_dev_user_put(c->dev);
	txrdma_peer_put(peer);
	txrdma_conn_free(c);
}

/**
 * txrdma_listener_init() - listen for peers' connections
 * @port: rdma_cm port (RDMA_PS_TCP space), on every address
 *
 * Return: 0 or -errno; -EADDRINUSE when another listener has the port.
 */
int txrdma_listener_init(u16 port)
{
	struct sockaddr_in any = {
		.sin_family	= AF_INET,
		.sin_port	= htons(port),
	};
	struct rdma_cm_id *id;
	int ret;

	id = rdma_create_id(&init_net, txrdma_cm_handler, NULL, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id))
		return PTR_ERR(id);
	ret = rdma_bind_addr(id, (struct sockaddr *)&any);
	if (!ret)
		ret = rdma_listen(id, TXRDMA_LISTEN_BACKLOG);
	if (ret) {
		rdma_destroy_id(id);
		return ret;
	}
	txrdma_listen_id = id;
	return 0;
}

void txrdma_listener_exit(void)
{
	if (txrdma_listen_id)
		rdma_destroy_id(txrdma_listen_id);
	txrdma_listen_id = NULL;
}
