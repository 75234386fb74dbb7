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
 * -ENOMEM, or the error of creating the peer's region.
 */
int txn_txrdma_add_peer(struct txn_transport *t, uint32_t node,
			const char *peer_name);

bool txn_txrdma_peer_up(const struct txn_transport *t, uint32_t node);
void txn_txrdma_stats(const struct txn_transport *t,
		      struct txn_txrdma_stats *s);

#endif /* TXN_TXRDMA_H */
