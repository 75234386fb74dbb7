/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What two txrdma modules say to each other outside the data path, as
 * pure logic (no rdma/ headers, KUnit-tested on UML):
 *
 * - the private data of an rdma_cm connection request, which says
 *   whether the new RC QP is a peer's control QP or a pooled one;
 * - the control message sent in SEND work requests on the control QP:
 *   an 8-byte header, the 24-byte BFD packet, and timestamps from
 *   which the sender of a probe learns its round trip time without
 *   synchronised clocks (the echo scheme of TCP timestamps, RFC 7323).
 */
#ifndef _TXRDMA_PEER_WIRE_H
#define _TXRDMA_PEER_WIRE_H

#include <linux/types.h>

#include "txrdma_bfd.h"

#define TXRDMA_WIRE_MAGIC	0x54585243	/* "TXRC" */
#define TXRDMA_WIRE_VERSION	1

/* Kinds of connection (txrdma_cm_priv.kind) */
enum txrdma_conn_kind {
	TXRDMA_CONN_CTRL	= 1,	/* carries probes; one per peer */
	TXRDMA_CONN_POOL	= 2,	/* lent to endpoints */
};

/* rdma_cm private data of a connect request: 16 bytes (<= 56 for RC) */
#define TXRDMA_CM_PRIV_LEN	16

/**
 * struct txrdma_cm_priv - decoded connection request private data
 * @kind: enum txrdma_conn_kind
 * @pool_want: QPs the initiator wants in the pool
 * @boot_id: random number of the initiating module instance; a new one
 *	tells the acceptor that the initiator restarted
 */
struct txrdma_cm_priv {
	u8 kind;
	u16 pool_want;
	u32 boot_id;
};

/* Control message: header, BFD packet, timestamps: 56 bytes */
#define TXRDMA_CTRL_LEN		56

/* txrdma_ctrl_msg.type, txrdma_ctrl_ep.type */
enum txrdma_ctrl_type {
	TXRDMA_CTRL_PROBE	= 1,
	/* endpoint pairing (the data path), txrdma_ctrl_ep */
	TXRDMA_CTRL_EP_CONNECT	= 2,	/* bind my endpoint to your service */
	TXRDMA_CTRL_EP_ACCEPT	= 3,	/* bound: here is my side */
	TXRDMA_CTRL_EP_REJECT	= 4,	/* not bound: @status says why */
	TXRDMA_CTRL_EP_CLOSE	= 5,	/* unbind; @status: why (0: closed) */
	TXRDMA_CTRL_EP_EXPORT	= 6,	/* a region of mine, for your endpoint */
	TXRDMA_CTRL_EP_EXPORT_ACK = 7,	/* stored (@status 0) or refused */
};

/**
 * struct txrdma_ctrl_ep - decoded endpoint pairing message
 * @type: TXRDMA_CTRL_EP_*
 * @service: the service the connecting endpoint asks for
 * @src_ep: sender's endpoint id
 * @dst_ep: receiver's endpoint id (0 in a CONNECT: not known yet)
 * @qp_num: sender's number of the pooled QP that carries the pair
 *	(CONNECT, ACCEPT)
 * @epoch: incarnation of the pair, chosen by the connector, echoed
 * @ring_units: sender's receive ring, 64-byte units, a power of two
 *	(CONNECT, ACCEPT)
 * @ring_addr: its address in the sender's memory registration
 * @ring_rkey: the registration's remote key
 * @status: REJECT: a negative errno; CLOSE: 0 or a negative errno
 *
 * EXPORT gives the receiver's endpoint @dst_ep one-sided access to a
 * region of the sender's tenant: @service is the region's id, @qp_num
 * the access (TXRDMA_EXPORT_READ | TXRDMA_EXPORT_WRITE), @ring_addr and
 * @ring_rkey its address and key, @ring_units its length in 64-byte
 * units, @epoch the pair's.  EXPORT_ACK answers it: @service the
 * region, @status 0 (stored) or a negative errno.
 *
 * The keys travel only between the two kernels, on the control QP.
 */
struct txrdma_ctrl_ep {
	u8 type;
	u32 service;
	u32 src_ep;
	u32 dst_ep;
	u32 qp_num;
	u32 epoch;
	u32 ring_units;
	u64 ring_addr;
	u32 ring_rkey;
	s32 status;
};

/**
 * struct txrdma_ctrl_msg - decoded control message
 * @type: enum txrdma_ctrl_type
 * @pool_want: QPs the sender wants in the pool (the acceptor's demand
 *	reaches the initiator this way, which alone opens connections)
 * @bfd: the liveness packet
 * @tx_ns: sender's clock when it sent this message
 * @echo_ns: @tx_ns of the last message the sender received from us,
 *	0 if none
 * @echo_delay_ns: time the sender held that message before this one
 *	left (capped at U32_MAX)
 */
struct txrdma_ctrl_msg {
	u8 type;
	u16 pool_want;
	struct txrdma_bfd_pkt bfd;
	u64 tx_ns;
	u64 echo_ns;
	u32 echo_delay_ns;
};

/**
 * struct txrdma_rtt - probe round trip statistics
 * @min_ns: smallest sample, 0 without samples
 * @max_ns: largest sample
 * @sum_ns: sum of samples (for the mean)
 * @samples: number of samples
 */
struct txrdma_rtt {
	u64 min_ns;
	u64 max_ns;
	u64 sum_ns;
	u64 samples;
};

int txrdma_cm_priv_encode(const struct txrdma_cm_priv *p,
			  u8 buf[TXRDMA_CM_PRIV_LEN]);
int txrdma_cm_priv_decode(struct txrdma_cm_priv *p, const void *buf,
			  size_t len);
int txrdma_ctrl_encode(const struct txrdma_ctrl_msg *m,
		       u8 buf[TXRDMA_CTRL_LEN]);
int txrdma_ctrl_decode(struct txrdma_ctrl_msg *m, const u8 *buf, size_t len);
int txrdma_ctrl_type(const u8 *buf, size_t len);
int txrdma_ctrl_ep_encode(const struct txrdma_ctrl_ep *e, u16 pool_want,
			  u8 buf[TXRDMA_CTRL_LEN]);
int txrdma_ctrl_ep_decode(struct txrdma_ctrl_ep *e, const u8 *buf,
			  size_t len);
int txrdma_rtt_sample(const struct txrdma_ctrl_msg *m, u64 now_ns,
		      u64 *rtt_ns);
void txrdma_rtt_add(struct txrdma_rtt *r, u64 rtt_ns);
u64 txrdma_rtt_avg(const struct txrdma_rtt *r);
int txrdma_addr_cmp(const u8 *a, const u8 *b, size_t len);

#endif /* _TXRDMA_PEER_WIRE_H */
