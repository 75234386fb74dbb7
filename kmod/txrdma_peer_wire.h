/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What two txrdma modules say to each other outside the data path, as
 * pure logic (no rdma/ headers, KUnit-tested on UML):
 *
 * - the private data of an rdma_cm connection request and reply, which
 *   say whether the new RC QP is a peer's control QP or a pooled one
 *   and carry the nonces and MACs of the handshake (txrdma_auth.c);
 * - the control messages sent in SEND work requests: the AUTH message
 *   that ends every handshake, then on the control QP the probes (the
 *   24-byte BFD packet and timestamps from which the sender of a probe
 *   learns its round trip time without synchronised clocks, the echo
 *   scheme of TCP timestamps, RFC 7323) and the endpoint pairing
 *   messages; each ends with a sequence number and a MAC space that
 *   the caller seals and checks (txrdma_auth.c).
 */
#ifndef _TXRDMA_PEER_WIRE_H
#define _TXRDMA_PEER_WIRE_H

#include <linux/types.h>

#include "txrdma_auth.h"
#include "txrdma_bfd.h"
#include "txrdma_handoff.h"
#include "txrdma_session.h"
#include "txrdma_stall.h"

#define TXRDMA_WIRE_MAGIC	0x54585243	/* "TXRC" */
/*
 * 2: authenticated handshake, keyed 128-byte control messages, tenants;
 * 4: CONNECT/ACCEPT carry ahead_max (frames with trailers);
 * 5: a data write may carry several frames (coalesced SENDs);
 * 6: probes report the sender's latest stall (txrdma_stall.h);
 * 7: sessions: CONNECT/ACCEPT carry the grace, RESUME/RESUMED;
 * 8: a session's SEND completes on the other side's release report,
 *    its refused frames are sent again, EP_CLOSE carries the closing
 *    process's released count
 */
#define TXRDMA_WIRE_VERSION	8

/* the longest a session may be away before its pair fails */
#define TXRDMA_WIRE_GRACE_MAX_MS	60000

/* Kinds of connection (txrdma_cm_priv.kind) */
enum txrdma_conn_kind {
	TXRDMA_CONN_CTRL	= 1,	/* carries probes; one per peer */
	TXRDMA_CONN_POOL	= 2,	/* lent to endpoints */
};

/*
 * rdma_cm private data: a request (at most 56 bytes over RC with the
 * IP-based header) and a reply (at most 196).  MACs at TXRDMA_HS_LEN.
 */
#define TXRDMA_CM_REQ_LEN	(TXRDMA_HS_LEN + TXRDMA_REQ_MAC_LEN)
#define TXRDMA_CM_REP_LEN	(TXRDMA_HS_LEN + TXRDMA_MAC_LEN)

/**
 * struct txrdma_cm_priv - decoded connection request or reply
 * @kind: enum txrdma_conn_kind (a reply repeats the request's)
 * @pool_want: QPs the initiator wants in the pool (request only)
 * @boot_id: random number of the sending module instance; a new one
 *	tells the other side that the sender restarted
 * @nonce: fresh random bytes of this connection
 */
struct txrdma_cm_priv {
	u8 kind;
	u16 pool_want;
	u32 boot_id;
	u8 nonce[TXRDMA_NONCE_LEN];
};

/*
 * Control message: 128 bytes, an 8-byte header, 80 bytes of payload,
 * the sender's sequence number and a MAC over everything before it.
 */
#define TXRDMA_CTRL_LEN		128
#define TXRDMA_CTRL_SEQ_OFF	88
#define TXRDMA_CTRL_MAC_OFF	96

/* txrdma_ctrl_msg.type, txrdma_ctrl_ep.type */
enum txrdma_ctrl_type {
	TXRDMA_CTRL_PROBE	= 1,
	/* the initiator's first message on every QP: ends the handshake */
	TXRDMA_CTRL_AUTH	= 8,
	/* endpoint pairing (the data path), txrdma_ctrl_ep */
	TXRDMA_CTRL_EP_CONNECT	= 2,	/* bind my endpoint to your service */
	TXRDMA_CTRL_EP_ACCEPT	= 3,	/* bound: here is my side */
	TXRDMA_CTRL_EP_REJECT	= 4,	/* not bound: @status says why */
	TXRDMA_CTRL_EP_CLOSE	= 5,	/* unbind; @status: why (0: closed) */
	TXRDMA_CTRL_EP_EXPORT	= 6,	/* a region of mine, for your endpoint */
	TXRDMA_CTRL_EP_EXPORT_ACK = 7,	/* stored (@status 0) or refused */
	/* sessions (txrdma_session.h): a pair moves to a fresh QP */
	TXRDMA_CTRL_EP_RESUME	= 9,	/* our pair, on this QP; my report */
	TXRDMA_CTRL_EP_RESUMED	= 10,	/* bound: my report */
	/* session hand-off (txrdma_handoff.h): the pair is mine now */
	TXRDMA_CTRL_EP_HANDOFF	= 11,
};

/* a tenant name on the wire: as TXRDMA_TENANT_NAME_MAX, NUL-padded */
#define TXRDMA_WIRE_TENANT_LEN	32

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
 * @grace_ms: CONNECT: how long the pair may be without a QP before it
 *	fails (a session, txrdma_session.h; 0: not a session, it fails at
 *	once); ACCEPT: the same, echoed; else 0 (on the wire where the
 *	others have @status)
 * @tenant: CONNECT and ACCEPT: the name of the tenant whose endpoints
 *	pair (tenants are matched across hosts by name); else empty
 * @max_msg: CONNECT and ACCEPT: the longest SEND the sender's ring takes
 *	(its process's declared limit, at most half the ring); else 0
 * @ahead_max: CONNECT and ACCEPT: the sender's process reads frames
 *	ahead of its kernel: a frame of at most this many payload bytes
 *	(at most @max_msg and TXRDMA_RX_AHEAD_MAX_PAYLOAD) carries a
 *	trailer and the payload's CRC when it still fits @max_msg with
 *	the trailer; 0: none; else 0
 *
 * @exp_off: EXPORT and EXPORT_ACK: first byte of the range, in the region
 * @exp_len: EXPORT and EXPORT_ACK: its length in bytes (> 0)
 * @exp_seq: EXPORT: the sender's number for the request; EXPORT_ACK:
 *	the number of the EXPORT it answers (a late answer to an earlier
 *	request never completes a later one)
 * @resume: RESUME and RESUMED: the sender's report (generation not 0);
 *	else zeroes
 * @ring_gen: RESUME and RESUMED: how often the sender's ring was
 *	registered anew (on another device, or on another host after a
 *	hand-off); else 0
 * @ho_old_ep: HANDOFF: the moving side's endpoint before the move
 *	(@src_ep is its endpoint after, on the sending host); else 0
 * @ho_gen: HANDOFF: hand-offs the session had before this one; else 0
 * @ho_token: HANDOFF: txrdma_handoff_token() over the claim; else zeroes
 *
 * EXPORT gives the receiver's endpoint @dst_ep one-sided access to a
 * range of a region of the sender's tenant: @service is the region's
 * id, @exp_off and @exp_len the range, @qp_num the access
 * (TXRDMA_EXPORT_READ | TXRDMA_EXPORT_WRITE; 0 revokes the range),
 * @ring_addr and @ring_rkey the range's address and key (0 when
 * revoking), @epoch the pair's.  EXPORT_ACK answers it: @service and
 * the range echoed, @status 0 (stored or removed) or a negative errno.
 *
 * RESUME moves the pair (@src_ep, @dst_ep, @epoch) to a fresh pooled QP,
 * the connector's @qp_num, after the old one was lost; @ring_* name the
 * sender's ring again (a new path may mean a new key) and @resume says
 * what the sender has.  RESUMED answers it the same way, @resume.gen
 * echoed.  A RESUME that cannot be taken is answered with REJECT, its
 * generation in @resume.gen.
 *
 * HANDOFF moves the pair (@dst_ep, @ho_old_ep, @epoch) to the sending
 * host, whose endpoint @src_ep resumes it (a RESUME follows on the same
 * control QP); the token proves the claim (txrdma_handoff.h).  A
 * HANDOFF that cannot be taken is answered with REJECT, @status saying
 * why.
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
	u32 grace_ms;
	char tenant[TXRDMA_WIRE_TENANT_LEN];
	u32 max_msg;
	u32 ahead_max;
	u64 exp_off;
	u64 exp_len;
	u32 exp_seq;
	struct txrdma_resume_report resume;
	u32 ring_gen;
	u32 ho_old_ep;
	u32 ho_gen;
	u8 ho_token[TXRDMA_HANDOFF_TOKEN_LEN];
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
 * @stall: the sender's latest significant stall (zeroes: none), so that the
 *	receiver can tell a Down caused by it from lost probes
 */
struct txrdma_ctrl_msg {
	u8 type;
	u16 pool_want;
	struct txrdma_bfd_pkt bfd;
	u64 tx_ns;
	u64 echo_ns;
	u32 echo_delay_ns;
	struct txrdma_stall_wire stall;
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

int txrdma_cm_req_encode(const struct txrdma_cm_priv *p,
			 u8 buf[TXRDMA_CM_REQ_LEN]);
int txrdma_cm_req_decode(struct txrdma_cm_priv *p, const void *buf,
			 size_t len);
int txrdma_cm_rep_encode(const struct txrdma_cm_priv *p,
			 u8 buf[TXRDMA_CM_REP_LEN]);
int txrdma_cm_rep_decode(struct txrdma_cm_priv *p, const void *buf,
			 size_t len);
int txrdma_ctrl_encode(const struct txrdma_ctrl_msg *m, u64 seq,
		       u8 buf[TXRDMA_CTRL_LEN]);
int txrdma_ctrl_decode(struct txrdma_ctrl_msg *m, const u8 *buf, size_t len);
int txrdma_ctrl_type(const u8 *buf, size_t len);
u64 txrdma_ctrl_seq(const u8 *buf);
void txrdma_ctrl_auth_encode(u8 buf[TXRDMA_CTRL_LEN]);
int txrdma_ctrl_auth_decode(const u8 *buf, size_t len);
int txrdma_ctrl_ep_encode(const struct txrdma_ctrl_ep *e, u16 pool_want,
			  u64 seq, u8 buf[TXRDMA_CTRL_LEN]);
int txrdma_ctrl_ep_decode(struct txrdma_ctrl_ep *e, const u8 *buf,
			  size_t len);
int txrdma_rtt_sample(const struct txrdma_ctrl_msg *m, u64 now_ns,
		      u64 *rtt_ns);
void txrdma_rtt_add(struct txrdma_rtt *r, u64 rtt_ns);
u64 txrdma_rtt_avg(const struct txrdma_rtt *r);
int txrdma_addr_cmp(const u8 *a, const u8 *b, size_t len);

#endif /* _TXRDMA_PEER_WIRE_H */
