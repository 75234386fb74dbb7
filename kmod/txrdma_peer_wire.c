// SPDX-License-Identifier: GPL-2.0-only
/*
 * Wire formats between txrdma modules: connection request private data
 * and control messages (liveness probes).  All fields big-endian.
 *
 * Connection private data (16 bytes):
 *   0  magic "TXRC"      4  version   5  kind   6  pool_want (u16)
 *   8  boot_id (u32)    12  reserved, zero
 *
 * Control message (56 bytes):
 *   0  magic "TXRC"      4  version   5  type   6  pool_want (u16)
 *   8  BFD control packet (24 bytes, RFC 5880 4.1)
 *  32  tx_ns (u64)      40  echo_ns (u64)      48  echo_delay_ns (u32)
 *  52  reserved, zero
 *
 * A receiver refuses a wrong magic, version, kind or type and non-zero
 * reserved bytes: two modules of different versions must fail loudly,
 * not misread each other.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/string.h>
#include <linux/math64.h>

#include "txrdma_peer_wire.h"

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

/**
 * txrdma_cm_priv_encode() - write connection request private data
 * @p: what to send
 * @buf: output
 *
 * Return: 0, or -EINVAL for an unknown kind.
 */
int txrdma_cm_priv_encode(const struct txrdma_cm_priv *p,
			  u8 buf[TXRDMA_CM_PRIV_LEN])
{
	if (p->kind != TXRDMA_CONN_CTRL && p->kind != TXRDMA_CONN_POOL)
		return -EINVAL;
	memset(buf, 0, TXRDMA_CM_PRIV_LEN);
	wire_put32(buf, TXRDMA_WIRE_MAGIC);
	buf[4] = TXRDMA_WIRE_VERSION;
	buf[5] = p->kind;
	wire_put16(buf + 6, p->pool_want);
	wire_put32(buf + 8, p->boot_id);
	return 0;
}

/**
 * txrdma_cm_priv_decode() - parse connection request private data
 * @p: output
 * @buf: received private data (rdma_cm pads it with zeroes)
 * @len: its length; at least TXRDMA_CM_PRIV_LEN
 *
 * Return: 0, -EINVAL (not ours or malformed) or -EPROTO (other version).
 */
int txrdma_cm_priv_decode(struct txrdma_cm_priv *p, const void *buf,
			  size_t len)
{
	const u8 *b = buf;
	int ret;

	if (!b || len < TXRDMA_CM_PRIV_LEN)
		return -EINVAL;
	ret = wire_head_check(b);
	if (ret)
		return ret;
	if (b[5] != TXRDMA_CONN_CTRL && b[5] != TXRDMA_CONN_POOL)
		return -EINVAL;
	if (!wire_zero(b + 12, TXRDMA_CM_PRIV_LEN - 12))
		return -EINVAL;
	p->kind = b[5];
	p->pool_want = wire_get16(b + 6);
	p->boot_id = wire_get32(b + 8);
	return 0;
}

/**
 * txrdma_ctrl_encode() - write a control message
 * @m: message; its BFD packet must be valid
 * @buf: output
 *
 * Return: 0, or the error of txrdma_bfd_encode() or -EINVAL for an
 * unknown type: nothing the peer would refuse is ever sent.
 */
int txrdma_ctrl_encode(const struct txrdma_ctrl_msg *m,
		       u8 buf[TXRDMA_CTRL_LEN])
{
	int ret;

	if (m->type != TXRDMA_CTRL_PROBE)
		return -EINVAL;
	memset(buf, 0, TXRDMA_CTRL_LEN);
	ret = txrdma_bfd_encode(&m->bfd, buf + 8);
	if (ret)
		return ret;
	wire_put32(buf, TXRDMA_WIRE_MAGIC);
	buf[4] = TXRDMA_WIRE_VERSION;
	buf[5] = m->type;
	wire_put16(buf + 6, m->pool_want);
	wire_put64(buf + 32, m->tx_ns);
	wire_put64(buf + 40, m->echo_ns);
	wire_put32(buf + 48, m->echo_delay_ns);
	return 0;
}

/**
 * txrdma_ctrl_decode() - parse and validate a control message
 * @m: output, meaningful only on success
 * @buf: received bytes
 * @len: exactly TXRDMA_CTRL_LEN: a SEND carries one whole message
 *
 * Return: 0, -EINVAL (malformed, wrong size, not ours) or -EPROTO.
 */
int txrdma_ctrl_decode(struct txrdma_ctrl_msg *m, const u8 *buf, size_t len)
{
	int ret;

	if (len != TXRDMA_CTRL_LEN)
		return -EINVAL;
	ret = wire_head_check(buf);
	if (ret)
		return ret;
	if (buf[5] != TXRDMA_CTRL_PROBE)
		return -EINVAL;
	if (!wire_zero(buf + 52, TXRDMA_CTRL_LEN - 52))
		return -EINVAL;
	ret = txrdma_bfd_decode(&m->bfd, buf + 8, TXRDMA_BFD_PKT_LEN);
	if (ret)
		return ret;
	m->type = buf[5];
	m->pool_want = wire_get16(buf + 6);
	m->tx_ns = wire_get64(buf + 32);
	m->echo_ns = wire_get64(buf + 40);
	m->echo_delay_ns = wire_get32(buf + 48);
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
	if (buf[5] < TXRDMA_CTRL_PROBE || buf[5] > TXRDMA_CTRL_EP_EXPORT_ACK)
		return -EINVAL;
	return buf[5];
}

static bool txrdma_ring_units_ok(u32 units)
{
	return units >= 2 && units <= (1U << 30) && is_power_of_2(units);
}

/* What every pairing message of its type must satisfy. */
static int txrdma_ctrl_ep_check(const struct txrdma_ctrl_ep *e)
{
	bool ring = e->ring_units || e->ring_addr || e->ring_rkey;

	/* QP numbers are 24 bits; endpoint ids are never 0 */
	if (!e->src_ep || e->qp_num > 0xffffff)
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
		return 0;
	case TXRDMA_CTRL_EP_REJECT:
		if (!e->dst_ep || e->status >= 0 || e->status < -4095 ||
		    e->qp_num || ring)
			return -EINVAL;
		return 0;
	case TXRDMA_CTRL_EP_CLOSE:
		if (!e->dst_ep || e->status > 0 || e->status < -4095 ||
		    e->qp_num || ring)
			return -EINVAL;
		return 0;
	case TXRDMA_CTRL_EP_EXPORT:
		/* access is READ (1), WRITE (2) or both; a non-empty region */
		if (!e->dst_ep || !e->service || !e->qp_num || e->qp_num > 3 ||
		    !e->ring_units || e->status)
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
 * @buf: output
 *
 * Layout after the 8-byte header (big-endian): service, src_ep, dst_ep,
 * qp_num, epoch, ring_units (u32 each), ring_addr (u64), ring_rkey,
 * status (u32 each), 8 reserved zero bytes.
 *
 * Return: 0, or -EINVAL for a message the rules of its type refuse:
 * nothing the peer would refuse is ever sent.
 */
int txrdma_ctrl_ep_encode(const struct txrdma_ctrl_ep *e, u16 pool_want,
			  u8 buf[TXRDMA_CTRL_LEN])
{
	int ret = txrdma_ctrl_ep_check(e);

	if (ret)
		return ret;
	memset(buf, 0, TXRDMA_CTRL_LEN);
	wire_put32(buf, TXRDMA_WIRE_MAGIC);
	buf[4] = TXRDMA_WIRE_VERSION;
	buf[5] = e->type;
	wire_put16(buf + 6, pool_want);
	wire_put32(buf + 8, e->service);
	wire_put32(buf + 12, e->src_ep);
	wire_put32(buf + 16, e->dst_ep);
	wire_put32(buf + 20, e->qp_num);
	wire_put32(buf + 24, e->epoch);
	wire_put32(buf + 28, e->ring_units);
	wire_put64(buf + 32, e->ring_addr);
	wire_put32(buf + 40, e->ring_rkey);
	wire_put32(buf + 44, (u32)e->status);
	return 0;
}

/**
 * txrdma_ctrl_ep_decode() - parse and validate a pairing message
 * @e: output, meaningful only on success
 * @buf: received bytes
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
	if (type < TXRDMA_CTRL_EP_CONNECT || !wire_zero(buf + 48, 8))
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
		.status		= (s32)wire_get32(buf + 44),
	};
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
