// SPDX-License-Identifier: GPL-2.0-only
/*
 * Wire formats between txrdma modules: connection request and reply
 * private data and control messages.  All fields big-endian.
 *
 * Connection request (48 bytes):
 *   0  magic "TXRC"      4  version   5  kind   6  pool_want (u16)
 *   8  boot_id (u32)    12  reserved, zero
 *  16  nonce (16)       32  MAC (16, truncated; txrdma_auth.c)
 *
 * Connection reply (64 bytes):
 *   0  magic "TXRC"      4  version   5  kind   6  reserved, zero
 *   8  boot_id (u32)    12  reserved, zero
 *  16  nonce (16)       32  MAC (32)
 *
 * Control message (128 bytes):
 *   0  magic "TXRC"      4  version   5  type   6  pool_want (u16)
 *   8  payload (80 bytes, by type; unused bytes zero)
 *  88  sequence number (u64)        96  MAC (32) over bytes 0..95
 *
 * Probe payload: BFD control packet (24 bytes, RFC 5880 4.1), tx_ns
 * (u64), echo_ns (u64), echo_delay_ns (u32), stall len_us (u32), stall
 * ago_us (u32).  Pairing payload: see
 * txrdma_ctrl_ep_encode().  AUTH has none.
 *
 * A receiver refuses a wrong magic, version, kind or type and non-zero
 * reserved bytes: two modules of different versions must fail loudly,
 * not misread each other.  MACs and sequence numbers are the caller's
 * to fill in and to check (txrdma_auth.c, txrdma_liveness.c): this file
 * only places them.
 */
#include <linux/ctype.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/string.h>
#include <linux/math64.h>

#include <linux/txrdma_ring.h>

#include "txrdma_peer_wire.h"
#include "txrdma_range.h"

/* CONNECT and ACCEPT fill the payload up to the sequence number */
static_assert(TXRDMA_CTRL_SEQ_OFF == 88);

static void wire_put16(u8 *p, u16 v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static void wire_put32(u8 *p, u32 v)
{
	wire_put16(p, v >> 16);
	wire_put16(p + 2, v);
}

static void wire_put64(u8 *p, u64 v)
{
	wire_put32(p, v >> 32);
	wire_put32(p + 4, v);
}

static u16 wire_get16(const u8 *p)
{
	return (u16)p[0] << 8 | p[1];
}

static u32 wire_get32(const u8 *p)
{
	return (u32)wire_get16(p) << 16 | wire_get16(p + 2);
}

static u64 wire_get64(const u8 *p)
{
	return (u64)wire_get32(p) << 32 | wire_get32(p + 4);
}

/* CONNECT and ACCEPT: they name the tenant, the limits, the grace */
static bool named_type(u8 type)
{
	return type == TXRDMA_CTRL_EP_CONNECT || type == TXRDMA_CTRL_EP_ACCEPT;
}

/* a session's report: five u32 (rx_seq, rx_tail, released, tx_seq, gen) */
static void wire_resume_put(u8 *p, const struct txrdma_resume_report *r)
{
	wire_put32(p, r->rx_seq);
	wire_put32(p + 4, r->rx_tail);
	wire_put32(p + 8, r->released);
	wire_put32(p + 12, r->tx_seq);
	wire_put32(p + 16, r->gen);
}

static void wire_resume_get(struct txrdma_resume_report *r, const u8 *p)
{
	r->rx_seq = wire_get32(p);
	r->rx_tail = wire_get32(p + 4);
	r->released = wire_get32(p + 8);
	r->tx_seq = wire_get32(p + 12);
	r->gen = wire_get32(p + 16);
}

static bool wire_zero(const u8 *p, size_t len)
{
	return !memchr_inv(p, 0, len);
}

static int wire_head_check(const u8 *buf)
{
	if (wire_get32(buf) != TXRDMA_WIRE_MAGIC)
		return -EINVAL;
	if (buf[4] != TXRDMA_WIRE_VERSION)
		return -EPROTO;
	return 0;
}

static bool txrdma_kind_ok(u8 kind)
{
	return kind == TXRDMA_CONN_CTRL || kind == TXRDMA_CONN_POOL;
}

static void wire_head_put(u8 *buf, u8 type, u16 want)
{
	wire_put32(buf, TXRDMA_WIRE_MAGIC);
	buf[4] = TXRDMA_WIRE_VERSION;
	buf[5] = type;
	wire_put16(buf + 6, want);
}

/**
 * txrdma_cm_req_encode() - write connection request private data
 * @p: what to send
 * @buf: output; its MAC (at TXRDMA_HS_LEN) is left zero for the caller
 *
 * Return: 0, or -EINVAL for an unknown kind.
 */
int txrdma_cm_req_encode(const struct txrdma_cm_priv *p,
			 u8 buf[TXRDMA_CM_REQ_LEN])
{
	if (!txrdma_kind_ok(p->kind))
		return -EINVAL;
	memset(buf, 0, TXRDMA_CM_REQ_LEN);
	wire_head_put(buf, p->kind, p->pool_want);
	wire_put32(buf + 8, p->boot_id);
	memcpy(buf + 16, p->nonce, TXRDMA_NONCE_LEN);
	return 0;
}

/**
 * txrdma_cm_req_decode() - parse connection request private data
 * @p: output
 * @buf: received private data (rdma_cm pads it with zeroes)
 * @len: its length; at least TXRDMA_CM_REQ_LEN
 *
 * The MAC is not checked here.
 *
 * Return: 0, -EINVAL (not ours or malformed) or -EPROTO (other version).
 */
int txrdma_cm_req_decode(struct txrdma_cm_priv *p, const void *buf,
			 size_t len)
{
	const u8 *b = buf;
	int ret;

	if (!b || len < TXRDMA_CM_REQ_LEN)
		return -EINVAL;
	ret = wire_head_check(b);
	if (ret)
		return ret;
	if (!txrdma_kind_ok(b[5]) || !wire_zero(b + 12, 4))
		return -EINVAL;
	p->kind = b[5];
	p->pool_want = wire_get16(b + 6);
	p->boot_id = wire_get32(b + 8);
	memcpy(p->nonce, b + 16, TXRDMA_NONCE_LEN);
	return 0;
}

/**
 * txrdma_cm_rep_encode() - write connection reply private data
 * @p: what to send (@pool_want is not part of a reply)
 * @buf: output; its MAC (at TXRDMA_HS_LEN) is left zero for the caller
 *
 * Return: 0, or -EINVAL for an unknown kind.
 */
int txrdma_cm_rep_encode(const struct txrdma_cm_priv *p,
			 u8 buf[TXRDMA_CM_REP_LEN])
{
	if (!txrdma_kind_ok(p->kind))
		return -EINVAL;
	memset(buf, 0, TXRDMA_CM_REP_LEN);
	wire_head_put(buf, p->kind, 0);
	wire_put32(buf + 8, p->boot_id);
	memcpy(buf + 16, p->nonce, TXRDMA_NONCE_LEN);
	return 0;
}

/**
 * txrdma_cm_rep_decode() - parse connection reply private data
 * @p: output (@pool_want 0)
 * @buf: received private data
 * @len: its length; at least TXRDMA_CM_REP_LEN
 *
 * Return: 0, -EINVAL (not ours or malformed) or -EPROTO (other version).
 */
int txrdma_cm_rep_decode(struct txrdma_cm_priv *p, const void *buf,
			 size_t len)
{
	const u8 *b = buf;
	int ret;

	if (!b || len < TXRDMA_CM_REP_LEN)
		return -EINVAL;
	ret = wire_head_check(b);
	if (ret)
		return ret;
	if (!txrdma_kind_ok(b[5]) || !wire_zero(b + 6, 2) ||
	    !wire_zero(b + 12, 4))
		return -EINVAL;
	p->kind = b[5];
	p->pool_want = 0;
	p->boot_id = wire_get32(b + 8);
	memcpy(p->nonce, b + 16, TXRDMA_NONCE_LEN);
	return 0;
}

/**
 * txrdma_ctrl_encode() - write a probe
 * @m: message; its BFD packet must be valid
 * @seq: the sender's sequence number for it
 * @buf: output; the MAC is left zero for the caller to seal
 *
 * Return: 0, or the error of txrdma_bfd_encode() or -EINVAL for an
 * unknown type: nothing the peer would refuse is ever sent.
 */
int txrdma_ctrl_encode(const struct txrdma_ctrl_msg *m, u64 seq,
		       u8 buf[TXRDMA_CTRL_LEN])
{
	int ret;

	if (m->type != TXRDMA_CTRL_PROBE)
		return -EINVAL;
	memset(buf, 0, TXRDMA_CTRL_LEN);
	ret = txrdma_bfd_encode(&m->bfd, buf + 8);
	if (ret)
		return ret;
	wire_head_put(buf, m->type, m->pool_want);
	wire_put64(buf + 32, m->tx_ns);
	wire_put64(buf + 40, m->echo_ns);
	wire_put32(buf + 48, m->echo_delay_ns);
	wire_put32(buf + 52, m->stall.len_us);
	wire_put32(buf + 56, m->stall.ago_us);
	wire_put64(buf + TXRDMA_CTRL_SEQ_OFF, seq);
	return 0;
}

/**
 * txrdma_ctrl_decode() - parse and validate a probe
 * @m: output, meaningful only on success
 * @buf: received bytes (MAC and sequence checked by the caller)
 * @len: exactly TXRDMA_CTRL_LEN: a SEND carries one whole message
 *
 * Return: 0, -EINVAL (malformed, wrong size, not ours) or -EPROTO.
 */
int txrdma_ctrl_decode(struct txrdma_ctrl_msg *m, const u8 *buf, size_t len)
{
	int ret = txrdma_ctrl_type(buf, len);

	if (ret < 0)
		return ret;
	if (ret != TXRDMA_CTRL_PROBE)
		return -EINVAL;
	if (!wire_zero(buf + 60, TXRDMA_CTRL_SEQ_OFF - 60))
		return -EINVAL;
	ret = txrdma_bfd_decode(&m->bfd, buf + 8, TXRDMA_BFD_PKT_LEN);
	if (ret)
		return ret;
	m->type = buf[5];
	m->pool_want = wire_get16(buf + 6);
	m->tx_ns = wire_get64(buf + 32);
	m->echo_ns = wire_get64(buf + 40);
	m->echo_delay_ns = wire_get32(buf + 48);
	m->stall.len_us = wire_get32(buf + 52);
	m->stall.ago_us = wire_get32(buf + 56);
	return 0;
}

/**
 * txrdma_ctrl_type() - the type of a control message, header checked
 * @buf: received bytes
 * @len: their number
 *
 * Return: enum txrdma_ctrl_type, or -EINVAL (size, magic, unknown
 * type) or -EPROTO (version): the receiver dispatches on it and then
 * decodes with the type's own function.
 */
int txrdma_ctrl_type(const u8 *buf, size_t len)
{
	int ret;

	if (len != TXRDMA_CTRL_LEN)
		return -EINVAL;
	ret = wire_head_check(buf);
	if (ret)
		return ret;
	if (buf[5] < TXRDMA_CTRL_PROBE || buf[5] > TXRDMA_CTRL_EP_HANDOFF)
		return -EINVAL;
	return buf[5];
}

/* The sequence number of a control message of TXRDMA_CTRL_LEN bytes. */
u64 txrdma_ctrl_seq(const u8 *buf)
{
	return wire_get64(buf + TXRDMA_CTRL_SEQ_OFF);
}

/**
 * txrdma_ctrl_auth_encode() - write the AUTH message
 * @buf: output: header, no payload, sequence number 0; the caller puts
 *	the handshake's MAC (txrdma_hs_auth_mac()) at TXRDMA_CTRL_MAC_OFF
 */
void txrdma_ctrl_auth_encode(u8 buf[TXRDMA_CTRL_LEN])
{
	memset(buf, 0, TXRDMA_CTRL_LEN);
	wire_head_put(buf, TXRDMA_CTRL_AUTH, 0);
}

/**
 * txrdma_ctrl_auth_decode() - check the form of an AUTH message
 * @buf: received bytes
 * @len: their number
 *
 * Return: 0 (the caller checks the MAC), -EINVAL or -EPROTO.
 */
int txrdma_ctrl_auth_decode(const u8 *buf, size_t len)
{
	int type = txrdma_ctrl_type(buf, len);

	if (type < 0)
		return type;
	if (type != TXRDMA_CTRL_AUTH ||
	    !wire_zero(buf + 6, TXRDMA_CTRL_MAC_OFF - 6))
		return -EINVAL;
	return 0;
}

static bool txrdma_ring_units_ok(u32 units)
{
	return units >= 2 && units <= (1U << 30) && is_power_of_2(units);
}

/* A tenant name field: 1-31 of A-Z a-z 0-9 _ - . then NULs. */
static bool txrdma_wire_tenant_ok(const char *t)
{
	size_t n = strnlen(t, TXRDMA_WIRE_TENANT_LEN);
	size_t i;

	if (!n || n == TXRDMA_WIRE_TENANT_LEN)
		return false;
	for (i = 0; i < n; i++)
		/* isalnum() alone admits Latin-1 letters (0xc0..0xff) */
		if (!isascii(t[i]) ||
		    (!isalnum(t[i]) && t[i] != '_' && t[i] != '-' &&
		     t[i] != '.'))
			return false;
	return wire_zero((const u8 *)t + n, TXRDMA_WIRE_TENANT_LEN - n);
}

/* What every pairing message of its type must satisfy. */
static int txrdma_ctrl_ep_check(const struct txrdma_ctrl_ep *e)
{
	bool ring = e->ring_units || e->ring_addr || e->ring_rkey;
	bool named = e->type == TXRDMA_CTRL_EP_CONNECT ||
		     e->type == TXRDMA_CTRL_EP_ACCEPT;
	bool range = e->type == TXRDMA_CTRL_EP_EXPORT ||
		     e->type == TXRDMA_CTRL_EP_EXPORT_ACK;
	bool resume = e->type == TXRDMA_CTRL_EP_RESUME ||
		      e->type == TXRDMA_CTRL_EP_RESUMED;
	bool handoff = e->type == TXRDMA_CTRL_EP_HANDOFF;
	static const struct txrdma_resume_report none;

	/* a token covers the tenant's name as the wire carries it */
	BUILD_BUG_ON(TXRDMA_HANDOFF_TENANT_LEN != TXRDMA_WIRE_TENANT_LEN);
	/* QP numbers are 24 bits; endpoint ids are never 0 */
	if (!e->src_ep || e->qp_num > 0xffffff)
		return -EINVAL;
	/* only the pairing itself says whether it is a session */
	if (named ? e->grace_ms > TXRDMA_WIRE_GRACE_MAX_MS : e->grace_ms)
		return -EINVAL;
	/* only the pairing itself names the tenant and the ring's limit */
	if (named ? !txrdma_wire_tenant_ok(e->tenant) :
		    !wire_zero((const u8 *)e->tenant, TXRDMA_WIRE_TENANT_LEN) ||
		    e->max_msg || e->ahead_max)
		return -EINVAL;
	/* only exports name a range: a non-empty one, not wrapping */
	if (range ? !txrdma_range_valid(e->exp_off, e->exp_len) :
		    e->exp_off || e->exp_len || e->exp_seq)
		return -EINVAL;
	/* only a session's RESUME and RESUMED count its ring's keys */
	if (!resume && e->ring_gen)
		return -EINVAL;
	/*
	 * only a HANDOFF names the endpoint before and proves it; a
	 * REJECT of one names it too (and no RESUME's generation)
	 */
	if (!handoff && (e->ho_gen ||
			 !wire_zero(e->ho_token, sizeof(e->ho_token))))
		return -EINVAL;
	if (!handoff && e->ho_old_ep &&
	    (e->type != TXRDMA_CTRL_EP_REJECT || e->resume.gen))
		return -EINVAL;
	/*
	 * only sessions report, a REJECT names the RESUME it refuses, and
	 * a CLOSE says what the closing process released last (its SENDs
	 * the other side still waits for complete on it)
	 */
	if (resume ? !e->resume.gen :
	    e->type == TXRDMA_CTRL_EP_REJECT ?
	    memcmp(&e->resume, &none, offsetof(typeof(none), gen)) :
	    e->type == TXRDMA_CTRL_EP_CLOSE ?
	    e->resume.rx_seq || e->resume.rx_tail || e->resume.tx_seq ||
	    e->resume.gen :
	    memcmp(&e->resume, &none, sizeof(none)))
		return -EINVAL;
	switch (e->type) {
	case TXRDMA_CTRL_EP_CONNECT:
		if (e->dst_ep)
			return -EINVAL;
		fallthrough;
	case TXRDMA_CTRL_EP_ACCEPT:
		if ((e->type == TXRDMA_CTRL_EP_ACCEPT && !e->dst_ep) ||
		    !e->qp_num || e->status ||
		    !txrdma_ring_units_ok(e->ring_units))
			return -EINVAL;
		/* the longest SEND the ring takes: a frame of half of it */
		if (!e->max_msg ||
		    e->max_msg > TXRDMA_FRAME_MAX_PAYLOAD ||
		    e->max_msg > (u64)e->ring_units / 2 * TXRDMA_FRAME_UNIT -
				 TXRDMA_FRAME_HDR_LEN)
			return -EINVAL;
		/* frames up to this size get a trailer: never more than
		 * the receiver takes, nor the bound the CRC is worth it for
		 */
		if (e->ahead_max > TXRDMA_RX_AHEAD_MAX_PAYLOAD ||
		    e->ahead_max > e->max_msg)
			return -EINVAL;
		return 0;
	case TXRDMA_CTRL_EP_REJECT:
		if (!e->dst_ep || e->status >= 0 || e->status < -4095 ||
		    e->qp_num || ring || e->ring_gen)
			return -EINVAL;
		return 0;
	case TXRDMA_CTRL_EP_RESUME:
	case TXRDMA_CTRL_EP_RESUMED:
		if (!e->dst_ep || !e->qp_num || e->status || e->service ||
		    !txrdma_ring_units_ok(e->ring_units))
			return -EINVAL;
		return 0;
	case TXRDMA_CTRL_EP_CLOSE:
		if (!e->dst_ep || e->status > 0 || e->status < -4095 ||
		    e->qp_num || ring)
			return -EINVAL;
		return 0;
	case TXRDMA_CTRL_EP_HANDOFF:
		/* the pair's QP comes with the RESUME that follows */
		if (!e->dst_ep || !e->ho_old_ep || !e->epoch || e->service ||
		    e->qp_num || ring || e->status)
			return -EINVAL;
		return 0;
	case TXRDMA_CTRL_EP_EXPORT:
		/*
		 * Access is READ (1), WRITE (2) or both, with a key; or 0,
		 * a revoke, without one.  The length is @exp_len.
		 */
		if (!e->dst_ep || !e->service || e->qp_num > 3 ||
		    e->ring_units || e->status ||
		    (!e->qp_num && (e->ring_addr || e->ring_rkey)))
			return -EINVAL;
		return 0;
	case TXRDMA_CTRL_EP_EXPORT_ACK:
		if (!e->dst_ep || !e->service || e->status > 0 ||
		    e->status < -4095 || e->qp_num || ring)
			return -EINVAL;
		return 0;
	}
	return -EINVAL;
}

/**
 * txrdma_ctrl_ep_encode() - write an endpoint pairing message
 * @e: the message
 * @pool_want: the sender's pool demand, carried as in every message
 * @seq: the sender's sequence number for it
 * @buf: output; the MAC is left zero for the caller to seal
 *
 * Payload (big-endian): service, src_ep, dst_ep, qp_num, epoch,
 * ring_units (u32 each), ring_addr (u64), ring_rkey, status (u32
 * each; CONNECT and ACCEPT: grace_ms there); CONNECT and ACCEPT:
 * tenant (32 bytes, NUL-padded), max_msg,
 * ahead_max (u32 each); EXPORT and EXPORT_ACK: exp_off, exp_len (u64
 * each), exp_seq (u32), 20 zero bytes; RESUME, RESUMED and REJECT: the
 * report (rx_seq, rx_tail, released, tx_seq, gen: u32 each; a REJECT
 * only gen), ring_gen (u32: RESUME and RESUMED; how often the ring was
 * registered anew on another device), 8 zero bytes, ho_old_ep (u32: a
 * REJECT of a HANDOFF; else 0), 4 zero bytes; CLOSE: the report with
 * only released set, 20 zero bytes; HANDOFF: ho_token (32 bytes),
 * ho_old_ep, ho_gen (u32 each); the others: 40 zero bytes.
 * The
 * sequence number follows at TXRDMA_CTRL_SEQ_OFF (88): no spare byte.
 *
 * Return: 0, or -EINVAL for a message the rules of its type refuse:
 * nothing the peer would refuse is ever sent.
 */
int txrdma_ctrl_ep_encode(const struct txrdma_ctrl_ep *e, u16 pool_want,
			  u64 seq, u8 buf[TXRDMA_CTRL_LEN])
{
	int ret = txrdma_ctrl_ep_check(e);

	if (ret)
		return ret;
	memset(buf, 0, TXRDMA_CTRL_LEN);
	wire_head_put(buf, e->type, pool_want);
	wire_put32(buf + 8, e->service);
	wire_put32(buf + 12, e->src_ep);
	wire_put32(buf + 16, e->dst_ep);
	wire_put32(buf + 20, e->qp_num);
	wire_put32(buf + 24, e->epoch);
	wire_put32(buf + 28, e->ring_units);
	wire_put64(buf + 32, e->ring_addr);
	wire_put32(buf + 40, e->ring_rkey);
	/* the pairing has no status: a session's grace in its place */
	wire_put32(buf + 44, named_type(e->type) ? e->grace_ms :
			     (u32)e->status);
	if (e->type == TXRDMA_CTRL_EP_EXPORT ||
	    e->type == TXRDMA_CTRL_EP_EXPORT_ACK) {
		wire_put64(buf + 48, e->exp_off);
		wire_put64(buf + 56, e->exp_len);
		wire_put32(buf + 64, e->exp_seq);
	} else if (e->type == TXRDMA_CTRL_EP_RESUME ||
		   e->type == TXRDMA_CTRL_EP_RESUMED ||
		   e->type == TXRDMA_CTRL_EP_REJECT) {
		wire_resume_put(buf + 48, &e->resume);
		wire_put32(buf + 68, e->ring_gen);
		wire_put32(buf + 80, e->ho_old_ep);
	} else if (e->type == TXRDMA_CTRL_EP_HANDOFF) {
		memcpy(buf + 48, e->ho_token, TXRDMA_HANDOFF_TOKEN_LEN);
		wire_put32(buf + 80, e->ho_old_ep);
		wire_put32(buf + 84, e->ho_gen);
	} else if (e->type == TXRDMA_CTRL_EP_CLOSE) {
		wire_resume_put(buf + 48, &e->resume);
	} else {
		memcpy(buf + 48, e->tenant, TXRDMA_WIRE_TENANT_LEN);
		wire_put32(buf + 80, e->max_msg);
		wire_put32(buf + 84, e->ahead_max);
	}
	wire_put64(buf + TXRDMA_CTRL_SEQ_OFF, seq);
	return 0;
}

/**
 * txrdma_ctrl_ep_decode() - parse and validate a pairing message
 * @e: output, meaningful only on success
 * @buf: received bytes (MAC and sequence checked by the caller)
 * @len: exactly TXRDMA_CTRL_LEN
 *
 * Return: 0, -EINVAL (malformed, not a pairing message, breaks the rules
 * of its type, reserved bytes set) or -EPROTO (version).
 */
int txrdma_ctrl_ep_decode(struct txrdma_ctrl_ep *e, const u8 *buf,
			  size_t len)
{
	struct txrdma_ctrl_ep d;
	int type = txrdma_ctrl_type(buf, len);

	if (type < 0)
		return type;
	if (type < TXRDMA_CTRL_EP_CONNECT || type > TXRDMA_CTRL_EP_HANDOFF ||
	    type == TXRDMA_CTRL_AUTH)
		return -EINVAL;
	d = (struct txrdma_ctrl_ep) {
		.type		= type,
		.service	= wire_get32(buf + 8),
		.src_ep		= wire_get32(buf + 12),
		.dst_ep		= wire_get32(buf + 16),
		.qp_num		= wire_get32(buf + 20),
		.epoch		= wire_get32(buf + 24),
		.ring_units	= wire_get32(buf + 28),
		.ring_addr	= wire_get64(buf + 32),
		.ring_rkey	= wire_get32(buf + 40),
		.status		= named_type(type) ? 0 :
				  (s32)wire_get32(buf + 44),
		.grace_ms	= named_type(type) ? wire_get32(buf + 44) : 0,
	};
	/* bytes 48..87: what each type has where pairings have the tenant */
	if (type == TXRDMA_CTRL_EP_EXPORT ||
	    type == TXRDMA_CTRL_EP_EXPORT_ACK) {
		if (!wire_zero(buf + 68, 20))
			return -EINVAL;
		d.exp_off = wire_get64(buf + 48);
		d.exp_len = wire_get64(buf + 56);
		d.exp_seq = wire_get32(buf + 64);
	} else if (type == TXRDMA_CTRL_EP_RESUME ||
		   type == TXRDMA_CTRL_EP_RESUMED ||
		   type == TXRDMA_CTRL_EP_REJECT) {
		/* a REJECT of a HANDOFF names its endpoint before at 80 */
		if (!wire_zero(buf + 72, 8) || !wire_zero(buf + 84, 4))
			return -EINVAL;
		wire_resume_get(&d.resume, buf + 48);
		d.ring_gen = wire_get32(buf + 68);
		d.ho_old_ep = wire_get32(buf + 80);
	} else if (type == TXRDMA_CTRL_EP_HANDOFF) {
		memcpy(d.ho_token, buf + 48, TXRDMA_HANDOFF_TOKEN_LEN);
		d.ho_old_ep = wire_get32(buf + 80);
		d.ho_gen = wire_get32(buf + 84);
	} else if (type == TXRDMA_CTRL_EP_CLOSE) {
		if (!wire_zero(buf + 68, 20))
			return -EINVAL;
		wire_resume_get(&d.resume, buf + 48);
	} else {
		memcpy(d.tenant, buf + 48, TXRDMA_WIRE_TENANT_LEN);
		d.max_msg = wire_get32(buf + 80);
		d.ahead_max = wire_get32(buf + 84);
	}
	if (txrdma_ctrl_ep_check(&d))
		return -EINVAL;
	*e = d;
	return 0;
}

/**
 * txrdma_rtt_sample() - round trip time that a received message proves
 * @m: the message, which echoes one of ours
 * @now_ns: our clock now (the one we put in tx_ns)
 * @rtt_ns: output
 *
 * rtt = now - echo - echo_delay: the time our probe spent on the wire
 * both ways plus the peer's processing, not the time it sat waiting for
 * the peer's next probe.
 *
 * Return: 0, or -ENOENT when the message echoes nothing, the peer's
 * delay was capped, or the numbers
 * do not make sense (echo from the future, delay longer than elapsed):
 * such samples are dropped rather than clamped.
 */
int txrdma_rtt_sample(const struct txrdma_ctrl_msg *m, u64 now_ns,
		      u64 *rtt_ns)
{
	u64 elapsed;

	/* U32_MAX: the peer held our probe too long to say how long */
	if (!m->echo_ns || m->echo_delay_ns == U32_MAX)
		return -ENOENT;
	elapsed = now_ns - m->echo_ns;
	if ((s64)elapsed < 0 || m->echo_delay_ns > elapsed)
		return -ENOENT;
	*rtt_ns = elapsed - m->echo_delay_ns;
	return 0;
}

/**
 * txrdma_rtt_add() - account one sample
 * @r: statistics
 * @rtt_ns: sample
 *
 * The sum saturates instead of wrapping (after 2^64 ns of samples).
 */
void txrdma_rtt_add(struct txrdma_rtt *r, u64 rtt_ns)
{
	if (!r->samples || rtt_ns < r->min_ns)
		r->min_ns = rtt_ns;
	if (rtt_ns > r->max_ns)
		r->max_ns = rtt_ns;
	if (r->sum_ns > U64_MAX - rtt_ns)
		r->sum_ns = U64_MAX;
	else
		r->sum_ns += rtt_ns;
	r->samples++;
}

/* Mean of the samples, 0 without any. */
u64 txrdma_rtt_avg(const struct txrdma_rtt *r)
{
	return r->samples ? div64_u64(r->sum_ns, r->samples) : 0;
}

/**
 * txrdma_addr_cmp() - order two addresses of one family as numbers
 * @a: address in network byte order
 * @b: address in network byte order
 * @len: their length (4 or 16)
 *
 * The lower address initiates connections between two peers (see
 * design.rst); memcmp of network-order bytes is numeric order.
 *
 * Return: <0, 0 or >0.
 */
int txrdma_addr_cmp(const u8 *a, const u8 *b, size_t len)
{
	return memcmp(a, b, len);
}
