/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The txrdma backend of the transaction layer's transport
 * (txn_transport.h): one endpoint pair per pair of nodes, a message per
 * SEND, read in place from the receive ring.  See txn_txrdma.c.
 * A send when the peer's slots are all in flight is queued (up to 8 MiB
 * per peer) and posted as SENDs complete; -ENOBUFS past that.
 */
#ifndef TXN_TXRDMA_H
#define TXN_TXRDMA_H

#include "txn_transport.h"

#define TXN_TXRDMA_MAX_MSG_DEFAULT	16384
/* the largest: a receive ring for it must fit half of its 2 MiB page */
#define TXN_TXRDMA_MAX_MSG_MAX		65472
#define TXN_TXRDMA_DEPTH_DEFAULT	32
#define TXN_TXRDMA_REDIAL_MS_DEFAULT	100

struct txn_txrdma_cfg {
	uint32_t self;		/* this node, not 0 */
	/*
	 * Node n listens on service service_base + n, so that several
	 * nodes may share a host (and a peer name, e.g. "self").
	 */
	uint32_t service_base;
	uint32_t max_msg;	/* 0: the default; at most _MAX_MSG_MAX */
	uint32_t depth;		/* SENDs in flight per peer, 0: default */
	uint32_t ep_flags;	/* TXRDMA_EP_F_RX_AHEAD, TXRDMA_EP_F_DATA_CRC */
	uint32_t redial_ms;	/* between dials of a down peer, 0: default */
};

struct txn_txrdma_stats {
	uint64_t msgs_out, msgs_in, bytes_out, bytes_in;
	uint64_t ups, downs, dials, accepts;
	uint64_t refused;	/* pairs closed before a valid hello */
	uint64_t send_errors;	/* SEND completions with an error */
	uint64_t queued;	/* sends queued for a slot */
	uint64_t full;		/* sends refused: the queue is full */
	uint64_t dial_errors;	/* dials that failed */
	int64_t last_dial_error;	/* the latest one's -errno, or 0 */
	uint64_t exports;	/* ranges exported on pairs */
	uint64_t export_errors;	/* export jobs that failed (tried again) */
	uint64_t foreign_cqes;	/* CQEs for the hook (one-sided ops) */
};

/*
 * Open a transport on a new txrdma context of this process's tenant
 * and listen on service_base + self.  Return: 0 and *@tp, or a
 * negative errno: that of txrdma_open() when this host has no txrdma
 * (-ENOENT: no /dev/txrdma, -ENODEV: no RDMA device, -EPERM: no
 * tenant), -EINVAL, -ENOMEM, -EADDRINUSE (the service is taken).
 */
int txn_txrdma_open(struct txn_transport **tp, const struct txn_txrdma_cfg *cfg,
		    const struct txn_transport_cb *cb, void *ctx);

/*
 * Name a peer: @node (not 0, not ourselves) is reached through the
 * txrdma peer the administrator added as @peer_name ("self" for this
 * host).  Of each pair the lower id connects (and reconnects while the
 * peer is down), the other accepts.  Return: 0, -EINVAL, -EEXIST,
 * -ENOSPC (65,536 peers already), -ENOMEM, or the error of creating
 * the peer's region.
 */
int txn_txrdma_add_peer(struct txn_transport *t, uint32_t node,
			const char *peer_name);

bool txn_txrdma_peer_up(const struct txn_transport *t, uint32_t node);
void txn_txrdma_stats(const struct txn_transport *t,
		      struct txn_txrdma_stats *s);

/*
 * One-sided operations beside the messages (RDMA READs of what the
 * peers export, on the transport's pairs).  They share the transport's
 * context and rings, on the caller's thread, between its calls:
 *
 * - txn_txrdma_rings(): the context and rings (-EINVAL: @t is not a
 *   txrdma transport).  SQEs posted on them must carry a user_data
 *   whose top 24 bits are not 0 (the transport's SENDs have them 0).
 * - txn_txrdma_cqe_hook(): @fn gets each CQE with such a user_data
 *   that the transport's poll reaps (the transport reaps the shared CQ
 *   and acts on its own CQEs only); it runs inside the poll, like the
 *   message callback, and may post.  NULL: such CQEs are dropped.
 * - txn_txrdma_pair(): our endpoint of the pair with @node and its
 *   generation (it changes each time the pair is made again), or
 *   -ENOTCONN while the peer is down, -EINVAL.
 * - txn_txrdma_export(): let every peer READ the range (@region of this
 *   transport's context, @off, @len) on every pair, those up now and
 *   those made later, until the transport closes (at most 4 ranges).
 *   The transport's pairing thread exports (the module waits for the
 *   other module), asked by the poll: on each pair once it is up (the
 *   hello sent or taken), again every redial_ms after a failure.  So a
 *   peer may see a pair up before its export: it finds the range with
 *   txrdma_ep_exports(), and until then reads another way.  Return: 0,
 *   -EINVAL, -ENOSPC (4 already).
 */
struct txrdma_ctx;
struct txrdma_sq;
struct txrdma_cq;
struct txrdma_cqe;

int txn_txrdma_rings(struct txn_transport *t, struct txrdma_ctx **ctx,
		     struct txrdma_sq **sq, struct txrdma_cq **cq);
void txn_txrdma_cqe_hook(struct txn_transport *t,
			 void (*fn)(void *arg, const struct txrdma_cqe *cqe),
			 void *arg);
int txn_txrdma_pair(const struct txn_transport *t, uint32_t node,
		    uint32_t *ep, uint32_t *gen);
int txn_txrdma_export(struct txn_transport *t, uint32_t region, uint64_t off,
		      uint64_t len);

#endif /* TXN_TXRDMA_H */
