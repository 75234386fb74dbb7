// SPDX-License-Identifier: GPL-2.0-only
/*
 * rdma_cm glue for peers: the listener, active connections (resolve
 * address, decide who initiates, resolve route, connect) and passive
 * ones (accept), and teardown.
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
#include <linux/slab.h>
#include <net/net_namespace.h>
#include <rdma/ib_cm.h>

#include "txrdma.h"
#include "txrdma_endpoint.h"
#include "txrdma_peer.h"

/* RC local ACK timeout 4.096 us * 2^14 = 67 ms, 7 retries: a dead peer
 * errors a QP in about half a second instead of rdma_cm's seconds
 */
#define TXRDMA_ACK_TIMEOUT	14
#define TXRDMA_RETRY_COUNT	7
#define TXRDMA_LISTEN_BACKLOG	128

static struct rdma_cm_id *txrdma_listen_id;

static int txrdma_cm_handler(struct rdma_cm_id *id,
			     struct rdma_cm_event *ev);

static struct txrdma_conn *txrdma_conn_alloc(struct txrdma_peer *peer,
					     u8 kind)
{
	struct txrdma_conn *c = kzalloc(sizeof(*c), GFP_KERNEL);

	if (!c)
		return NULL;
	mutex_init(&c->mutex);
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

/* Create the CQ and QP of @c (and probe buffers for a control QP). */
static int txrdma_conn_create_qp(struct txrdma_conn *c)
{
	bool ctrl = c->kind == TXRDMA_CONN_CTRL;
	u32 sq = ctrl ? TXRDMA_CTRL_TX_SLOTS : TXRDMA_EP_SLOTS;
	u32 rq = ctrl ? TXRDMA_CTRL_RX_SLOTS : TXRDMA_EP_RECVS;
	struct ib_qp_init_attr attr = {};
	int ret;

	c->cq = ib_alloc_cq(c->dev->ibdev, c, sq + rq, 0, IB_POLL_SOFTIRQ);
	if (IS_ERR(c->cq)) {
		ret = PTR_ERR(c->cq);
		c->cq = NULL;
		return ret;
	}
	attr.send_cq = c->cq;
	attr.recv_cq = c->cq;
	attr.qp_type = IB_QPT_RC;
	attr.sq_sig_type = IB_SIGNAL_REQ_WR;
	attr.cap.max_send_wr = sq;
	attr.cap.max_recv_wr = rq;
	/* a frame: its header, then the payload where it lies */
	attr.cap.max_send_sge = ctrl ? 1 : 2;
	attr.cap.max_recv_sge = 1;
	ret = rdma_create_qp(c->id, c->dev->reg.pd, &attr);
	if (ret)
		return ret;
	if (ctrl)
		ret = txrdma_ctrl_setup(c);
	if (!ret)
		ret = rdma_set_ack_timeout(c->id, TXRDMA_ACK_TIMEOUT);
	return ret;
}

static void txrdma_conn_param(struct txrdma_conn *c,
			      struct rdma_conn_param *p, void *priv)
{
	const struct ib_device_attr *a = &c->dev->ibdev->attrs;

	memset(p, 0, sizeof(*p));
	p->private_data = priv;
	p->private_data_len = priv ? TXRDMA_CM_PRIV_LEN : 0;
	/* one-sided READs of the data path */
	p->responder_resources = min_t(int, a->max_qp_rd_atom, 16);
	p->initiator_depth = min_t(int, a->max_qp_init_rd_atom, 16);
	p->retry_count = TXRDMA_RETRY_COUNT;
	p->rnr_retry_count = 7;	/* infinite: receivers repost promptly */
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
	u8 buf[TXRDMA_CM_PRIV_LEN];
	struct rdma_conn_param param;
	int ret;

	ret = txrdma_conn_create_qp(c);
	if (ret)
		return ret;
	spin_lock_bh(&c->peer->lock);
	priv.pool_want = min_t(u32, txrdma_pool_want(&c->peer->pool),
			       U16_MAX);
	spin_unlock_bh(&c->peer->lock);
	ret = txrdma_cm_priv_encode(&priv, buf);
	if (ret)
		return ret;
	txrdma_conn_param(c, &param, buf);
	return rdma_connect_locked(c->id, &param);
}

/*
 * CONNECT_REQUEST on the listener: @id is the new id.  Returning
 * non-zero before a connection is listed makes rdma_cm reject and
 * destroy @id; once listed, failures go through the work item.
 */
static int txrdma_conn_request(struct rdma_cm_id *id,
			       struct rdma_cm_event *ev)
{
	struct sockaddr_in *dst = (void *)&id->route.addr.dst_addr;
	struct sockaddr_in *src = (void *)&id->route.addr.src_addr;
	struct txrdma_cm_priv priv;
	struct rdma_conn_param param;
	struct txrdma_peer *peer;
	struct txrdma_conn *c;
	int ret;

	if (dst->sin_family != AF_INET ||
	    txrdma_cm_priv_decode(&priv, ev->param.conn.private_data,
				  ev->param.conn.private_data_len))
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
	c->remote_qpn = ev->param.conn.qp_num;
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
	c->mirror = peer->self;
	if (!c->mirror) {
		ret = -EISCONN;	/* we are the initiator: refuse a duplicate */
		if (peer->role == TXRDMA_PEER_ROLE_INITIATOR)
			goto out_unlock;
		peer->role = TXRDMA_PEER_ROLE_ACCEPTOR;
		peer->local_addr = src->sin_addr.s_addr;
		txrdma_pool_set_remote_want(&peer->pool, priv.pool_want);
		if (c->kind == TXRDMA_CONN_POOL) {
			ret = txrdma_pool_accept(&peer->pool);
			if (ret)
				goto out_unlock;
			c->acct = TXRDMA_ACCT_CONNECTING;
		} else {
			peer->remote_boot_id = priv.boot_id;
		}
	}
	list_add_tail(&c->node, &peer->conns);
	spin_unlock_bh(&peer->lock);
	id->context = c;

	/* listed: from here on failures are the work item's to clean up */
	ret = txrdma_conn_create_qp(c);
	if (!ret) {
		txrdma_conn_param(c, &param, NULL);
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
		c->established = true;
		/* the active side learns the other end's QP from the REP */
		if (!c->passive)
			c->remote_qpn = ev->param.conn.qp_num;
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
 * stops its handler and its completions from posting; the QP goes
 * before its CQ, the CQ (which waits for a running poll) before the
 * buffers it completes into, the id last.
 */
void txrdma_conn_destroy(struct txrdma_conn *c)
{
	struct txrdma_peer *peer = c->peer;

	mutex_lock(&c->mutex);
	spin_lock_bh(&peer->lock);
	c->dead = true;
	if (peer->ctrl == c)
		peer->ctrl = NULL;
	spin_unlock_bh(&peer->lock);
	mutex_unlock(&c->mutex);

	if (c->established)
		rdma_disconnect(c->id);
	if (c->id->qp)
		rdma_destroy_qp(c->id);
	if (c->cq)
		ib_free_cq(c->cq);
	/* no completion runs any more: the pair's endpoint may go */
	txrdma_msg_conn_destroyed(c);
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
