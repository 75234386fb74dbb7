// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite txrdma_peer_wire: connection request and reply private
 * data and control messages (wire version 8) keep their big-endian
 * layout byte for byte, survive a round trip with every field, leave
 * their MAC space zero for the caller and place the sequence number
 * where the caller seals it; anything another version or a stranger
 * could send is refused (every reserved byte, magic, version, kind,
 * type, tenant names, a read-ahead limit out of bounds or where no
 * pairing is made); probe round trip samples and their statistics;
 * address ordering.
 */
#include <kunit/test.h>
#include <linux/limits.h>
#include <linux/string.h>
#include <linux/time64.h>
#include <linux/txrdma_ring.h>

#include "../txrdma_peer_wire.h"

#define MS	(NSEC_PER_MSEC)
/* a clock that does not start at 0 */
#define T0	(1000ULL * NSEC_PER_SEC + 12345)
/* the sequence number of the good probe */
#define GOOD_SEQ	0x1122334455667788ULL

static void good_req(struct txrdma_cm_priv *p)
{
	unsigned int i;

	*p = (struct txrdma_cm_priv) {
		.kind = TXRDMA_CONN_POOL,
		.pool_want = 0x1234,
		.boot_id = 0xdeadbeef,
	};
	for (i = 0; i < TXRDMA_NONCE_LEN; i++)
		p->nonce[i] = 0x10 + i;
}

static const u8 good_req_wire[TXRDMA_CM_REQ_LEN] = {
	0x54, 0x58, 0x52, 0x43,		/* "TXRC" */
	0x08, 0x02, 0x12, 0x34,		/* version, kind, pool_want */
	0xde, 0xad, 0xbe, 0xef,		/* boot_id */
	0x00, 0x00, 0x00, 0x00,		/* reserved */
	/* 16: nonce */
	0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17,
	0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f,
	/* 32: MAC, the caller's */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

/* a reply; @pool_want is set to show that a reply does not carry it */
static void good_rep(struct txrdma_cm_priv *p)
{
	unsigned int i;

	*p = (struct txrdma_cm_priv) {
		.kind = TXRDMA_CONN_CTRL,
		.pool_want = 0x4321,
		.boot_id = 0x0badcafe,
	};
	for (i = 0; i < TXRDMA_NONCE_LEN; i++)
		p->nonce[i] = 0xf0 + i;
}

static const u8 good_rep_wire[TXRDMA_CM_REP_LEN] = {
	0x54, 0x58, 0x52, 0x43,		/* "TXRC" */
	0x08, 0x01, 0x00, 0x00,		/* version, kind, reserved */
	0x0b, 0xad, 0xca, 0xfe,		/* boot_id */
	0x00, 0x00, 0x00, 0x00,		/* reserved */
	/* 16: nonce */
	0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7,
	0xf8, 0xf9, 0xfa, 0xfb, 0xfc, 0xfd, 0xfe, 0xff,
	/* 32: MAC, the caller's */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

/* the packet of the txrdma_bfd suite's wire layout case */
static void good_bfd(struct txrdma_bfd_pkt *p)
{
	*p = (struct txrdma_bfd_pkt) {
		.version = 1,
		.diag = TXRDMA_BFD_DIAG_NEIGHBOR_DOWN,
		.state = TXRDMA_BFD_UP,
		.flags = TXRDMA_BFD_PKT_POLL,
		.detect_mult = 4,
		.my_disc = 0x01020304,
		.your_disc = 0xa1b2c3d4,
		.desired_min_tx_us = 20000,
		.required_min_rx_us = 0x00c0ffee,
	};
}

static void good_ctrl(struct txrdma_ctrl_msg *m)
{
	memset(m, 0, sizeof(*m));
	m->type = TXRDMA_CTRL_PROBE;
	m->pool_want = 0xa55a;
	good_bfd(&m->bfd);
	m->tx_ns = 0x0102030405060708ULL;
	m->echo_ns = 0x8182838485868788ULL;
	m->echo_delay_ns = 0xc1c2c3c4;
	m->stall.len_us = 0xd1d2d3d4;
	m->stall.ago_us = 0xe1e2e3e4;
}

static const u8 good_ctrl_wire[TXRDMA_CTRL_LEN] = {
	0x54, 0x58, 0x52, 0x43,		/* "TXRC" */
	0x08, 0x01, 0xa5, 0x5a,		/* version, type, pool_want */
	/* 8: BFD packet */
	0x23, 0xe0, 0x04, 0x18,
	0x01, 0x02, 0x03, 0x04,
	0xa1, 0xb2, 0xc3, 0xd4,
	0x00, 0x00, 0x4e, 0x20,
	0x00, 0xc0, 0xff, 0xee,
	0x00, 0x00, 0x00, 0x00,
	/* 32: tx_ns */
	0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
	/* 40: echo_ns */
	0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88,
	/* 48: echo_delay_ns */
	0xc1, 0xc2, 0xc3, 0xc4,
	/* 52: stall len_us, ago_us */
	0xd1, 0xd2, 0xd3, 0xd4,
	0xe1, 0xe2, 0xe3, 0xe4,
	/* 60: reserved up to 88 */
	0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	/* 88: sequence number */
	0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
	/* 96: MAC, the caller's */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

static void expect_cm_eq(struct kunit *test, const struct txrdma_cm_priv *a,
			 const struct txrdma_cm_priv *b)
{
	KUNIT_EXPECT_EQ(test, a->kind, b->kind);
	KUNIT_EXPECT_EQ(test, a->pool_want, b->pool_want);
	KUNIT_EXPECT_EQ(test, a->boot_id, b->boot_id);
	KUNIT_EXPECT_EQ(test, memcmp(a->nonce, b->nonce, TXRDMA_NONCE_LEN), 0);
}

static void expect_ctrl_eq(struct kunit *test, const struct txrdma_ctrl_msg *a,
			   const struct txrdma_ctrl_msg *b)
{
	KUNIT_EXPECT_EQ(test, a->type, b->type);
	KUNIT_EXPECT_EQ(test, a->pool_want, b->pool_want);
	KUNIT_EXPECT_EQ(test, a->bfd.version, b->bfd.version);
	KUNIT_EXPECT_EQ(test, a->bfd.diag, b->bfd.diag);
	KUNIT_EXPECT_EQ(test, a->bfd.state, b->bfd.state);
	KUNIT_EXPECT_EQ(test, a->bfd.flags, b->bfd.flags);
	KUNIT_EXPECT_EQ(test, a->bfd.detect_mult, b->bfd.detect_mult);
	KUNIT_EXPECT_EQ(test, a->bfd.my_disc, b->bfd.my_disc);
	KUNIT_EXPECT_EQ(test, a->bfd.your_disc, b->bfd.your_disc);
	KUNIT_EXPECT_EQ(test, a->bfd.desired_min_tx_us,
			b->bfd.desired_min_tx_us);
	KUNIT_EXPECT_EQ(test, a->bfd.required_min_rx_us,
			b->bfd.required_min_rx_us);
	KUNIT_EXPECT_EQ(test, a->tx_ns, b->tx_ns);
	KUNIT_EXPECT_EQ(test, a->echo_ns, b->echo_ns);
	KUNIT_EXPECT_EQ(test, a->echo_delay_ns, b->echo_delay_ns);
	KUNIT_EXPECT_EQ(test, a->stall.len_us, b->stall.len_us);
	KUNIT_EXPECT_EQ(test, a->stall.ago_us, b->stall.ago_us);
}

static void wire_cm_sizes(struct kunit *test)
{
	/* rdma_cm's limits over RC with the IP-based header */
	KUNIT_EXPECT_EQ(test, TXRDMA_CM_REQ_LEN, 48);
	KUNIT_EXPECT_LE(test, TXRDMA_CM_REQ_LEN, 56);
	KUNIT_EXPECT_EQ(test, TXRDMA_CM_REP_LEN, 64);
	KUNIT_EXPECT_LE(test, TXRDMA_CM_REP_LEN, 196);
	KUNIT_EXPECT_EQ(test, TXRDMA_CTRL_LEN, 128);
	KUNIT_EXPECT_EQ(test, TXRDMA_CTRL_SEQ_OFF, 88);
	KUNIT_EXPECT_EQ(test, TXRDMA_CTRL_MAC_OFF, 96);
	KUNIT_EXPECT_EQ(test, TXRDMA_CTRL_MAC_OFF + TXRDMA_MAC_LEN,
			TXRDMA_CTRL_LEN);
}

static void wire_cm_req_layout(struct kunit *test)
{
	struct txrdma_cm_priv p, q;
	u8 buf[TXRDMA_CM_REQ_LEN + 8];
	unsigned int i;

	good_req(&p);
	/* the MAC space is cleared too, whatever the buffer held */
	memset(buf, 0x5a, sizeof(buf));
	KUNIT_ASSERT_EQ(test, txrdma_cm_req_encode(&p, buf), 0);
	for (i = 0; i < TXRDMA_CM_REQ_LEN; i++)
		KUNIT_EXPECT_EQ_MSG(test, buf[i], good_req_wire[i],
				    "byte %u", i);
	/* nothing written past the private data */
	for (i = TXRDMA_CM_REQ_LEN; i < sizeof(buf); i++)
		KUNIT_EXPECT_EQ(test, buf[i], 0x5a);

	memset(&q, 0xff, sizeof(q));
	KUNIT_ASSERT_EQ(test, txrdma_cm_req_decode(&q, buf,
						   TXRDMA_CM_REQ_LEN), 0);
	expect_cm_eq(test, &p, &q);
}

static void wire_cm_req_round_trip(struct kunit *test)
{
	static const struct txrdma_cm_priv cases[] = {
		{ .kind = TXRDMA_CONN_CTRL, .pool_want = 0, .boot_id = 0 },
		{ .kind = TXRDMA_CONN_CTRL, .pool_want = 1, .boot_id = 1,
		  .nonce = { [0] = 1 } },
		{ .kind = TXRDMA_CONN_POOL, .pool_want = U16_MAX,
		  .boot_id = U32_MAX,
		  .nonce = { [0 ... TXRDMA_NONCE_LEN - 1] = 0xff } },
		{ .kind = TXRDMA_CONN_POOL, .pool_want = 0x8001,
		  .boot_id = 0x80000001,
		  .nonce = { [TXRDMA_NONCE_LEN - 1] = 0x80 } },
	};
	/* rdma_cm pads private data with zeroes to 56 bytes for RC */
	u8 buf[56];
	struct txrdma_cm_priv q;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		memset(buf, 0, sizeof(buf));
		KUNIT_ASSERT_EQ(test, txrdma_cm_req_encode(&cases[i], buf), 0);
		KUNIT_EXPECT_EQ(test, buf[5], cases[i].kind);
		memset(&q, 0xa5, sizeof(q));
		KUNIT_ASSERT_EQ(test, txrdma_cm_req_decode(&q, buf,
							   sizeof(buf)), 0);
		expect_cm_eq(test, &cases[i], &q);
		memset(&q, 0xa5, sizeof(q));
		KUNIT_ASSERT_EQ(test, txrdma_cm_req_decode(&q, buf,
							   TXRDMA_CM_REQ_LEN),
				0);
		expect_cm_eq(test, &cases[i], &q);
	}
}

/* Decode the good request with byte @idx set to @val; expect @err. */
static void expect_req_decode(struct kunit *test, unsigned int idx, u8 val,
			      int err)
{
	struct txrdma_cm_priv q;
	u8 buf[TXRDMA_CM_REQ_LEN];

	memcpy(buf, good_req_wire, sizeof(buf));
	buf[idx] = val;
	KUNIT_EXPECT_EQ_MSG(test, txrdma_cm_req_decode(&q, buf, sizeof(buf)),
			    err, "byte %u = 0x%02x", idx, val);
}

static void wire_cm_req_rejects(struct kunit *test)
{
	struct txrdma_cm_priv p, q;
	u8 buf[TXRDMA_CM_REQ_LEN];
	unsigned int i;

	/* encode: unknown kinds are never sent */
	good_req(&p);
	p.kind = 0;
	KUNIT_EXPECT_EQ(test, txrdma_cm_req_encode(&p, buf), -EINVAL);
	p.kind = 3;
	KUNIT_EXPECT_EQ(test, txrdma_cm_req_encode(&p, buf), -EINVAL);
	p.kind = 255;
	KUNIT_EXPECT_EQ(test, txrdma_cm_req_encode(&p, buf), -EINVAL);

	/* no private data at all, or too little */
	KUNIT_EXPECT_EQ(test, txrdma_cm_req_decode(&q, NULL, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, txrdma_cm_req_decode(&q, NULL, 56), -EINVAL);
	KUNIT_EXPECT_EQ(test, txrdma_cm_req_decode(&q, good_req_wire, 0),
			-EINVAL);
	/* a version 1 request was 16 bytes */
	KUNIT_EXPECT_EQ(test, txrdma_cm_req_decode(&q, good_req_wire, 16),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, txrdma_cm_req_decode(&q, good_req_wire,
						   TXRDMA_CM_REQ_LEN - 1),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, txrdma_cm_req_decode(&q, good_req_wire,
						   TXRDMA_CM_REQ_LEN), 0);

	/* magic: any byte wrong */
	for (i = 0; i < 4; i++) {
		expect_req_decode(test, i, good_req_wire[i] ^ 0x20, -EINVAL);
		expect_req_decode(test, i, 0, -EINVAL);
	}
	/* version: the one before, the one after, nonsense */
	expect_req_decode(test, 4, 0, -EPROTO);
	expect_req_decode(test, 4, 2, -EPROTO);
	expect_req_decode(test, 4, 3, -EPROTO);
	expect_req_decode(test, 4, 4, -EPROTO);
	expect_req_decode(test, 4, 7, -EPROTO);
	expect_req_decode(test, 4, 9, -EPROTO);
	expect_req_decode(test, 4, 255, -EPROTO);
	/* a stranger is refused as such before its version is looked at */
	memcpy(buf, good_req_wire, sizeof(buf));
	buf[0] = 0;
	buf[4] = 1;
	KUNIT_EXPECT_EQ(test, txrdma_cm_req_decode(&q, buf, sizeof(buf)),
			-EINVAL);
	/* kind */
	expect_req_decode(test, 5, 0, -EINVAL);
	expect_req_decode(test, 5, 3, -EINVAL);
	expect_req_decode(test, 5, 255, -EINVAL);
	expect_req_decode(test, 5, TXRDMA_CONN_CTRL, 0);
	/* reserved: each byte */
	for (i = 12; i < 16; i++) {
		expect_req_decode(test, i, 1, -EINVAL);
		expect_req_decode(test, i, 0x80, -EINVAL);
	}
	/* nonce and MAC: any value; the MAC is the caller's to check */
	for (i = 16; i < TXRDMA_CM_REQ_LEN; i++) {
		expect_req_decode(test, i, 0xff, 0);
		expect_req_decode(test, i, 0x01, 0);
	}
	memcpy(buf, good_req_wire, sizeof(buf));
	memset(buf + TXRDMA_HS_LEN, 0xc3, TXRDMA_REQ_MAC_LEN);
	memset(&q, 0, sizeof(q));
	good_req(&p);
	KUNIT_ASSERT_EQ(test, txrdma_cm_req_decode(&q, buf, sizeof(buf)), 0);
	expect_cm_eq(test, &p, &q);
}

static void wire_cm_rep_layout(struct kunit *test)
{
	struct txrdma_cm_priv p, q;
	u8 buf[TXRDMA_CM_REP_LEN + 8];
	unsigned int i;

	good_rep(&p);
	memset(buf, 0x5a, sizeof(buf));
	KUNIT_ASSERT_EQ(test, txrdma_cm_rep_encode(&p, buf), 0);
	/* pool_want is not sent: bytes 6-7 stay zero */
	for (i = 0; i < TXRDMA_CM_REP_LEN; i++)
		KUNIT_EXPECT_EQ_MSG(test, buf[i], good_rep_wire[i],
				    "byte %u", i);
	for (i = TXRDMA_CM_REP_LEN; i < sizeof(buf); i++)
		KUNIT_EXPECT_EQ(test, buf[i], 0x5a);

	memset(&q, 0xff, sizeof(q));
	KUNIT_ASSERT_EQ(test, txrdma_cm_rep_decode(&q, buf,
						   TXRDMA_CM_REP_LEN), 0);
	KUNIT_EXPECT_EQ(test, q.pool_want, 0);
	p.pool_want = 0;
	expect_cm_eq(test, &p, &q);
}

static void wire_cm_rep_round_trip(struct kunit *test)
{
	static const struct txrdma_cm_priv cases[] = {
		{ .kind = TXRDMA_CONN_CTRL, .boot_id = 0 },
		{ .kind = TXRDMA_CONN_CTRL, .boot_id = 1,
		  .nonce = { [0] = 1 } },
		{ .kind = TXRDMA_CONN_POOL, .boot_id = U32_MAX,
		  .nonce = { [0 ... TXRDMA_NONCE_LEN - 1] = 0xff } },
		{ .kind = TXRDMA_CONN_POOL, .boot_id = 0x80000001,
		  .nonce = { [TXRDMA_NONCE_LEN - 1] = 0x80 } },
	};
	/* a reply carries at most 196 bytes of private data over RC */
	u8 buf[196];
	struct txrdma_cm_priv q;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		memset(buf, 0, sizeof(buf));
		KUNIT_ASSERT_EQ(test, txrdma_cm_rep_encode(&cases[i], buf), 0);
		KUNIT_EXPECT_EQ(test, buf[5], cases[i].kind);
		memset(&q, 0xa5, sizeof(q));
		KUNIT_ASSERT_EQ(test, txrdma_cm_rep_decode(&q, buf,
							   sizeof(buf)), 0);
		expect_cm_eq(test, &cases[i], &q);
		memset(&q, 0xa5, sizeof(q));
		KUNIT_ASSERT_EQ(test, txrdma_cm_rep_decode(&q, buf,
							   TXRDMA_CM_REP_LEN),
				0);
		expect_cm_eq(test, &cases[i], &q);
	}
}

/* Decode the good reply with byte @idx set to @val; expect @err. */
static void expect_rep_decode(struct kunit *test, unsigned int idx, u8 val,
			      int err)
{
	struct txrdma_cm_priv q;
	u8 buf[TXRDMA_CM_REP_LEN];

	memcpy(buf, good_rep_wire, sizeof(buf));
	buf[idx] = val;
	KUNIT_EXPECT_EQ_MSG(test, txrdma_cm_rep_decode(&q, buf, sizeof(buf)),
			    err, "byte %u = 0x%02x", idx, val);
}

static void wire_cm_rep_rejects(struct kunit *test)
{
	struct txrdma_cm_priv p, q;
	u8 buf[TXRDMA_CM_REP_LEN];
	unsigned int i;

	/* encode: unknown kinds are never sent */
	good_rep(&p);
	p.kind = 0;
	KUNIT_EXPECT_EQ(test, txrdma_cm_rep_encode(&p, buf), -EINVAL);
	p.kind = 3;
	KUNIT_EXPECT_EQ(test, txrdma_cm_rep_encode(&p, buf), -EINVAL);
	p.kind = 255;
	KUNIT_EXPECT_EQ(test, txrdma_cm_rep_encode(&p, buf), -EINVAL);

	/* no private data, too little; a request's length is too little */
	KUNIT_EXPECT_EQ(test, txrdma_cm_rep_decode(&q, NULL, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, txrdma_cm_rep_decode(&q, NULL, 196), -EINVAL);
	KUNIT_EXPECT_EQ(test, txrdma_cm_rep_decode(&q, good_rep_wire, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, txrdma_cm_rep_decode(&q, good_rep_wire,
						   TXRDMA_CM_REQ_LEN),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, txrdma_cm_rep_decode(&q, good_rep_wire,
						   TXRDMA_CM_REP_LEN - 1),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, txrdma_cm_rep_decode(&q, good_rep_wire,
						   TXRDMA_CM_REP_LEN), 0);

	/* magic */
	for (i = 0; i < 4; i++) {
		expect_rep_decode(test, i, good_rep_wire[i] ^ 0x20, -EINVAL);
		expect_rep_decode(test, i, 0, -EINVAL);
	}
	/* version */
	expect_rep_decode(test, 4, 0, -EPROTO);
	expect_rep_decode(test, 4, 2, -EPROTO);
	expect_rep_decode(test, 4, 3, -EPROTO);
	expect_rep_decode(test, 4, 4, -EPROTO);
	expect_rep_decode(test, 4, 7, -EPROTO);
	expect_rep_decode(test, 4, 9, -EPROTO);
	expect_rep_decode(test, 4, 255, -EPROTO);
	memcpy(buf, good_rep_wire, sizeof(buf));
	buf[3] = 0;
	buf[4] = 1;
	KUNIT_EXPECT_EQ(test, txrdma_cm_rep_decode(&q, buf, sizeof(buf)),
			-EINVAL);
	/* kind */
	expect_rep_decode(test, 5, 0, -EINVAL);
	expect_rep_decode(test, 5, 3, -EINVAL);
	expect_rep_decode(test, 5, 255, -EINVAL);
	expect_rep_decode(test, 5, TXRDMA_CONN_POOL, 0);
	/* reserved: each byte of 6..7 (a request's pool_want) and 12..15 */
	for (i = 6; i < 8; i++) {
		expect_rep_decode(test, i, 1, -EINVAL);
		expect_rep_decode(test, i, 0x80, -EINVAL);
	}
	for (i = 12; i < 16; i++) {
		expect_rep_decode(test, i, 1, -EINVAL);
		expect_rep_decode(test, i, 0x80, -EINVAL);
	}
	/* nonce and MAC: any value */
	for (i = 16; i < TXRDMA_CM_REP_LEN; i++) {
		expect_rep_decode(test, i, 0xff, 0);
		expect_rep_decode(test, i, 0x01, 0);
	}
}

/* a request is never taken for a reply, even padded to a reply's size */
static void wire_cm_req_is_no_rep(struct kunit *test)
{
	struct txrdma_cm_priv p, q;
	u8 buf[TXRDMA_CM_REP_LEN];

	good_req(&p);
	memset(buf, 0, sizeof(buf));
	KUNIT_ASSERT_EQ(test, txrdma_cm_req_encode(&p, buf), 0);
	KUNIT_EXPECT_EQ(test, txrdma_cm_rep_decode(&q, buf, sizeof(buf)),
			-EINVAL);
}

static void wire_ctrl_layout(struct kunit *test)
{
	struct txrdma_ctrl_msg m, q;
	u8 bfd[TXRDMA_BFD_PKT_LEN];
	u8 buf[TXRDMA_CTRL_LEN + 8];
	unsigned int i;

	good_ctrl(&m);
	memset(buf, 0x5a, sizeof(buf));
	KUNIT_ASSERT_EQ(test, txrdma_ctrl_encode(&m, GOOD_SEQ, buf), 0);
	for (i = 0; i < TXRDMA_CTRL_LEN; i++)
		KUNIT_EXPECT_EQ_MSG(test, buf[i], good_ctrl_wire[i],
				    "byte %u", i);
	for (i = TXRDMA_CTRL_LEN; i < sizeof(buf); i++)
		KUNIT_EXPECT_EQ(test, buf[i], 0x5a);
	/* bytes 8..31 are exactly what the BFD encoder writes */
	KUNIT_ASSERT_EQ(test, txrdma_bfd_encode(&m.bfd, bfd), 0);
	KUNIT_EXPECT_EQ(test, memcmp(buf + 8, bfd, sizeof(bfd)), 0);
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_seq(buf), GOOD_SEQ);

	memset(&q, 0xff, sizeof(q));
	KUNIT_ASSERT_EQ(test, txrdma_ctrl_decode(&q, buf, TXRDMA_CTRL_LEN), 0);
	expect_ctrl_eq(test, &m, &q);
}

static void wire_ctrl_round_trip(struct kunit *test)
{
	struct txrdma_ctrl_msg m, q;
	u8 buf[TXRDMA_CTRL_LEN];

	/* all ones; Final, AdminDown, your_disc 0 */
	good_ctrl(&m);
	m.pool_want = U16_MAX;
	m.tx_ns = U64_MAX;
	m.echo_ns = U64_MAX;
	m.echo_delay_ns = U32_MAX;
	m.stall.len_us = U32_MAX;
	m.stall.ago_us = U32_MAX;
	m.bfd.flags = TXRDMA_BFD_PKT_FINAL | TXRDMA_BFD_PKT_CPI;
	m.bfd.state = TXRDMA_BFD_ADMIN_DOWN;
	m.bfd.diag = 31;
	m.bfd.your_disc = 0;
	m.bfd.my_disc = U32_MAX;
	m.bfd.detect_mult = 255;
	m.bfd.desired_min_tx_us = U32_MAX;
	m.bfd.required_min_rx_us = U32_MAX;
	KUNIT_ASSERT_EQ(test, txrdma_ctrl_encode(&m, U64_MAX, buf), 0);
	KUNIT_EXPECT_EQ(test, buf[6], 0xff);
	KUNIT_EXPECT_EQ(test, buf[7], 0xff);
	KUNIT_EXPECT_NULL(test, memchr_inv(buf + 32, 0xff, 28));
	KUNIT_EXPECT_NULL(test, memchr_inv(buf + 60, 0, 28));
	KUNIT_EXPECT_NULL(test, memchr_inv(buf + 88, 0xff, 8));
	KUNIT_EXPECT_NULL(test, memchr_inv(buf + 96, 0, 32));
	memset(&q, 0, sizeof(q));
	KUNIT_ASSERT_EQ(test, txrdma_ctrl_decode(&q, buf, sizeof(buf)), 0);
	expect_ctrl_eq(test, &m, &q);

	/* zeroes where zero is allowed; a fresh session in Down */
	good_ctrl(&m);
	m.pool_want = 0;
	m.tx_ns = 0;
	m.echo_ns = 0;
	m.echo_delay_ns = 0;
	m.stall.len_us = 0;
	m.stall.ago_us = 0;
	m.bfd.state = TXRDMA_BFD_DOWN;
	m.bfd.diag = 0;
	m.bfd.flags = 0;
	m.bfd.your_disc = 0;
	m.bfd.detect_mult = 1;
	m.bfd.my_disc = 1;
	m.bfd.desired_min_tx_us = 1;
	m.bfd.required_min_rx_us = 1;
	/* encode clears what an earlier message left in the buffer */
	memset(buf, 0xa5, sizeof(buf));
	KUNIT_ASSERT_EQ(test, txrdma_ctrl_encode(&m, 0, buf), 0);
	KUNIT_EXPECT_NULL(test, memchr_inv(buf + 32, 0, TXRDMA_CTRL_LEN - 32));
	memset(&q, 0xff, sizeof(q));
	KUNIT_ASSERT_EQ(test, txrdma_ctrl_decode(&q, buf, sizeof(buf)), 0);
	expect_ctrl_eq(test, &m, &q);
}

/* Decode the good probe with byte @idx set to @val; expect @err. */
static void expect_ctrl_decode(struct kunit *test, unsigned int idx, u8 val,
			       int err)
{
	struct txrdma_ctrl_msg q;
	u8 buf[TXRDMA_CTRL_LEN];

	memcpy(buf, good_ctrl_wire, sizeof(buf));
	buf[idx] = val;
	KUNIT_EXPECT_EQ_MSG(test, txrdma_ctrl_decode(&q, buf, sizeof(buf)),
			    err, "byte %u = 0x%02x", idx, val);
}

static void wire_ctrl_decode_rejects(struct kunit *test)
{
	struct txrdma_ctrl_msg q;
	u8 buf[TXRDMA_CTRL_LEN + 1];
	unsigned int i;

	/* a SEND carries exactly one whole message */
	memcpy(buf, good_ctrl_wire, TXRDMA_CTRL_LEN);
	buf[TXRDMA_CTRL_LEN] = 0;
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_decode(&q, buf, TXRDMA_CTRL_LEN), 0);
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_decode(&q, buf, TXRDMA_CTRL_LEN - 1),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_decode(&q, buf, TXRDMA_CTRL_LEN + 1),
			-EINVAL);
	/* a version 1 message was 56 bytes */
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_decode(&q, buf, 56), -EINVAL);
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_decode(&q, buf, 32), -EINVAL);
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_decode(&q, buf, 0), -EINVAL);

	/* magic */
	for (i = 0; i < 4; i++) {
		expect_ctrl_decode(test, i, good_ctrl_wire[i] ^ 0x20, -EINVAL);
		expect_ctrl_decode(test, i, 0, -EINVAL);
	}
	/* version */
	expect_ctrl_decode(test, 4, 0, -EPROTO);
	expect_ctrl_decode(test, 4, 2, -EPROTO);
	expect_ctrl_decode(test, 4, 3, -EPROTO);
	expect_ctrl_decode(test, 4, 4, -EPROTO);
	expect_ctrl_decode(test, 4, 7, -EPROTO);
	expect_ctrl_decode(test, 4, 9, -EPROTO);
	expect_ctrl_decode(test, 4, 255, -EPROTO);
	/* type: unknown, or known but not a probe */
	expect_ctrl_decode(test, 5, 0, -EINVAL);
	expect_ctrl_decode(test, 5, TXRDMA_CTRL_EP_CONNECT, -EINVAL);
	expect_ctrl_decode(test, 5, TXRDMA_CTRL_AUTH, -EINVAL);
	expect_ctrl_decode(test, 5, TXRDMA_CTRL_AUTH + 1, -EINVAL);
	expect_ctrl_decode(test, 5, 255, -EINVAL);
	/* the stall report: any value, the receiver bounds it */
	for (i = 52; i < 60; i++) {
		expect_ctrl_decode(test, i, 0, 0);
		expect_ctrl_decode(test, i, 0xff, 0);
	}
	/* reserved: each byte up to the sequence number */
	for (i = 60; i < TXRDMA_CTRL_SEQ_OFF; i++) {
		expect_ctrl_decode(test, i, 1, -EINVAL);
		expect_ctrl_decode(test, i, 0x80, -EINVAL);
	}
	/* sequence number and MAC: any value, the caller checks them */
	for (i = TXRDMA_CTRL_SEQ_OFF; i < TXRDMA_CTRL_LEN; i++) {
		expect_ctrl_decode(test, i, 0, 0);
		expect_ctrl_decode(test, i, 0xff, 0);
	}

	/* the BFD packet inside is validated as BFD's own decoder would */
	expect_ctrl_decode(test, 8, 0x43, -EPROTO);	/* BFD version 2 */
	expect_ctrl_decode(test, 9, 0xc0 | 0x04, -EPROTO);	/* auth */
	expect_ctrl_decode(test, 9, 0xc0 | 0x01, -EINVAL);	/* multipoint */
	expect_ctrl_decode(test, 9, 0xc0 | 0x30, -EINVAL);	/* poll+final */
	expect_ctrl_decode(test, 10, 0, -EINVAL);	/* detect mult 0 */
	expect_ctrl_decode(test, 11, 23, -EINVAL);	/* BFD length */
	expect_ctrl_decode(test, 11, 56, -EINVAL);
	memcpy(buf, good_ctrl_wire, TXRDMA_CTRL_LEN);
	memset(buf + 12, 0, 4);				/* my_disc 0 */
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_decode(&q, buf, TXRDMA_CTRL_LEN),
			-EINVAL);
	memcpy(buf, good_ctrl_wire, TXRDMA_CTRL_LEN);
	memset(buf + 24, 0, 4);				/* required rx 0 */
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_decode(&q, buf, TXRDMA_CTRL_LEN),
			-EPROTO);
	/* the BFD echo interval is ignored, as by BFD's decoder */
	memcpy(buf, good_ctrl_wire, TXRDMA_CTRL_LEN);
	memset(buf + 28, 0xff, 4);
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_decode(&q, buf, TXRDMA_CTRL_LEN), 0);
}

/* nothing the peer would refuse is ever built */
static void wire_ctrl_encode_rejects(struct kunit *test)
{
	struct txrdma_ctrl_msg m;
	u8 buf[TXRDMA_CTRL_LEN];

	good_ctrl(&m);
	m.type = 0;
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_encode(&m, 1, buf), -EINVAL);
	m.type = TXRDMA_CTRL_EP_CONNECT;
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_encode(&m, 1, buf), -EINVAL);
	/* AUTH has its own encoder */
	m.type = TXRDMA_CTRL_AUTH;
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_encode(&m, 1, buf), -EINVAL);
	m.type = 255;
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_encode(&m, 1, buf), -EINVAL);

	good_ctrl(&m);
	m.bfd.version = 2;
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_encode(&m, 1, buf), -EPROTO);
	good_ctrl(&m);
	m.bfd.flags = TXRDMA_BFD_PKT_AUTH;
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_encode(&m, 1, buf), -EPROTO);
	good_ctrl(&m);
	m.bfd.my_disc = 0;
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_encode(&m, 1, buf), -EINVAL);
	good_ctrl(&m);
	m.bfd.your_disc = 0;	/* while Up */
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_encode(&m, 1, buf), -EINVAL);
	good_ctrl(&m);
	m.bfd.state = 4;
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_encode(&m, 1, buf), -EINVAL);
	good_ctrl(&m);
	m.bfd.detect_mult = 0;
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_encode(&m, 1, buf), -EINVAL);
	good_ctrl(&m);
	m.bfd.required_min_rx_us = 0;
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_encode(&m, 1, buf), -EPROTO);
}

static void good_connect(struct txrdma_ctrl_ep *e)
{
	*e = (struct txrdma_ctrl_ep) {
		.type = TXRDMA_CTRL_EP_CONNECT,
		.service = 5432, .src_ep = 0x11, .dst_ep = 0,
		.qp_num = 0xabcdef, .epoch = 0x01020304,
		.ring_units = 4096, .ring_addr = 0xffff888012345000ULL,
		.ring_rkey = 0x5566, .status = 0,
		.tenant = "tenant-A.1", .max_msg = 4096,
	};
}

static void good_close(struct txrdma_ctrl_ep *e)
{
	*e = (struct txrdma_ctrl_ep) {
		.type = TXRDMA_CTRL_EP_CLOSE, .src_ep = 0x22, .dst_ep = 0x11,
		.epoch = 0x01020304, .status = -ETIMEDOUT,
	};
}

/* The sequence number: big-endian at 88, read back, MAC space zero. */
static void expect_seq(struct kunit *test, const u8 *buf, u64 seq)
{
	unsigned int i;

	for (i = 0; i < 8; i++)
		KUNIT_EXPECT_EQ_MSG(test, buf[TXRDMA_CTRL_SEQ_OFF + i],
				    (u8)(seq >> (56 - 8 * i)), "seq byte %u",
				    i);
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_seq(buf), seq);
	KUNIT_EXPECT_NULL(test, memchr_inv(buf + TXRDMA_CTRL_MAC_OFF, 0,
					   TXRDMA_MAC_LEN));
}

static void wire_ctrl_seq(struct kunit *test)
{
	static const u64 seqs[] = {
		0, 1, U64_MAX, 0x0102030405060708ULL, 0x8000000000000000ULL,
		0xfeULL << 32,
	};
	struct txrdma_ctrl_msg m, q;
	struct txrdma_ctrl_ep e, d;
	u8 buf[TXRDMA_CTRL_LEN], ref[TXRDMA_CTRL_LEN];
	unsigned int i;

	good_ctrl(&m);
	good_connect(&e);
	for (i = 0; i < ARRAY_SIZE(seqs); i++) {
		memset(buf, 0xa5, sizeof(buf));
		KUNIT_ASSERT_EQ(test, txrdma_ctrl_encode(&m, seqs[i], buf), 0);
		expect_seq(test, buf, seqs[i]);
		KUNIT_EXPECT_EQ(test, txrdma_ctrl_decode(&q, buf, sizeof(buf)),
				0);
		/* the number changes nothing else in the message */
		KUNIT_EXPECT_EQ(test, memcmp(buf, good_ctrl_wire,
					     TXRDMA_CTRL_SEQ_OFF), 0);

		memset(buf, 0xa5, sizeof(buf));
		KUNIT_ASSERT_EQ(test, txrdma_ctrl_ep_encode(&e, 7, seqs[i],
							    buf), 0);
		expect_seq(test, buf, seqs[i]);
		KUNIT_EXPECT_EQ(test, txrdma_ctrl_ep_decode(&d, buf,
							    sizeof(buf)), 0);
		KUNIT_ASSERT_EQ(test, txrdma_ctrl_ep_encode(&e, 7, 0, ref), 0);
		KUNIT_EXPECT_EQ(test, memcmp(buf, ref, TXRDMA_CTRL_SEQ_OFF), 0);
	}
	/* read from the bytes alone, whatever else the buffer holds */
	memset(buf, 0xff, sizeof(buf));
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_seq(buf), U64_MAX);
	memset(buf + TXRDMA_CTRL_SEQ_OFF, 0, 8);
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_seq(buf), 0ULL);
	buf[TXRDMA_CTRL_SEQ_OFF + 7] = 1;
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_seq(buf), 1ULL);
	buf[TXRDMA_CTRL_SEQ_OFF] = 0x80;
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_seq(buf), 0x8000000000000001ULL);
}

static const u8 auth_wire[TXRDMA_CTRL_LEN] = {
	0x54, 0x58, 0x52, 0x43,		/* "TXRC" */
	0x08, 0x08, 0x00, 0x00,		/* version, AUTH, pool_want 0 */
	/* then zeroes: no payload, sequence number 0, MAC the caller's */
};

static void wire_auth_layout(struct kunit *test)
{
	u8 buf[TXRDMA_CTRL_LEN + 8];
	unsigned int i;

	memset(buf, 0x5a, sizeof(buf));
	txrdma_ctrl_auth_encode(buf);
	for (i = 0; i < TXRDMA_CTRL_LEN; i++)
		KUNIT_EXPECT_EQ_MSG(test, buf[i], auth_wire[i], "byte %u", i);
	for (i = TXRDMA_CTRL_LEN; i < sizeof(buf); i++)
		KUNIT_EXPECT_EQ(test, buf[i], 0x5a);
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_type(buf, TXRDMA_CTRL_LEN),
			TXRDMA_CTRL_AUTH);
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_seq(buf), 0ULL);
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_auth_decode(buf, TXRDMA_CTRL_LEN), 0);
	/* sealed: any MAC passes the form check */
	memset(buf + TXRDMA_CTRL_MAC_OFF, 0xff, TXRDMA_MAC_LEN);
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_auth_decode(buf, TXRDMA_CTRL_LEN), 0);
	for (i = 0; i < TXRDMA_MAC_LEN; i++)
		buf[TXRDMA_CTRL_MAC_OFF + i] = i * 37;
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_auth_decode(buf, TXRDMA_CTRL_LEN), 0);
}

/* Check the AUTH message with byte @idx set to @val; expect @err. */
static void expect_auth_decode(struct kunit *test, unsigned int idx, u8 val,
			       int err)
{
	u8 buf[TXRDMA_CTRL_LEN];

	memcpy(buf, auth_wire, sizeof(buf));
	buf[idx] = val;
	KUNIT_EXPECT_EQ_MSG(test, txrdma_ctrl_auth_decode(buf, sizeof(buf)),
			    err, "byte %u = 0x%02x", idx, val);
}

static void wire_auth_rejects(struct kunit *test)
{
	struct txrdma_ctrl_msg m;
	struct txrdma_ctrl_ep e;
	u8 buf[TXRDMA_CTRL_LEN + 1];
	unsigned int i;

	memcpy(buf, auth_wire, TXRDMA_CTRL_LEN);
	buf[TXRDMA_CTRL_LEN] = 0;
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_auth_decode(buf,
						      TXRDMA_CTRL_LEN - 1),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_auth_decode(buf,
						      TXRDMA_CTRL_LEN + 1),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_auth_decode(buf, 0), -EINVAL);
	/* magic, version */
	for (i = 0; i < 4; i++)
		expect_auth_decode(test, i, auth_wire[i] ^ 0x20, -EINVAL);
	expect_auth_decode(test, 4, 3, -EPROTO);
	expect_auth_decode(test, 4, 4, -EPROTO);
	expect_auth_decode(test, 4, 7, -EPROTO);
	expect_auth_decode(test, 4, 9, -EPROTO);
	/* the type must be AUTH */
	for (i = 0; i < 256; i++)
		if (i != TXRDMA_CTRL_AUTH)
			expect_auth_decode(test, 5, i, -EINVAL);
	/* no pool demand, no payload, sequence number 0: any byte set */
	for (i = 6; i < TXRDMA_CTRL_MAC_OFF; i++) {
		expect_auth_decode(test, i, 1, -EINVAL);
		expect_auth_decode(test, i, 0x80, -EINVAL);
	}
	/* a probe or a pairing message is no AUTH, however sealed */
	good_ctrl(&m);
	KUNIT_ASSERT_EQ(test, txrdma_ctrl_encode(&m, 0, buf), 0);
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_auth_decode(buf, TXRDMA_CTRL_LEN),
			-EINVAL);
	good_close(&e);
	KUNIT_ASSERT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 0, buf), 0);
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_auth_decode(buf, TXRDMA_CTRL_LEN),
			-EINVAL);
	/* and the decoders of the others refuse AUTH */
	txrdma_ctrl_auth_encode(buf);
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_decode(&m, buf, TXRDMA_CTRL_LEN),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_ep_decode(&e, buf, TXRDMA_CTRL_LEN),
			-EINVAL);
}

static void rtt_sample_rejects(struct kunit *test)
{
	struct txrdma_ctrl_msg m;
	u64 rtt = 12345;

	good_ctrl(&m);
	/* echoes nothing */
	m.echo_ns = 0;
	m.echo_delay_ns = 0;
	KUNIT_EXPECT_EQ(test, txrdma_rtt_sample(&m, T0, &rtt), -ENOENT);
	/* echo of a time we have not reached yet */
	m.echo_ns = T0 + 1;
	KUNIT_EXPECT_EQ(test, txrdma_rtt_sample(&m, T0, &rtt), -ENOENT);
	m.echo_ns = T0 + 10 * NSEC_PER_SEC;
	KUNIT_EXPECT_EQ(test, txrdma_rtt_sample(&m, T0, &rtt), -ENOENT);
	/* the peer claims to have held it longer than it was away */
	m.echo_ns = T0 - 5 * MS;
	m.echo_delay_ns = 5 * MS + 1;
	KUNIT_EXPECT_EQ(test, txrdma_rtt_sample(&m, T0, &rtt), -ENOENT);
	m.echo_delay_ns = U32_MAX;
	KUNIT_EXPECT_EQ(test, txrdma_rtt_sample(&m, T0, &rtt), -ENOENT);
	/* dropped, not clamped: the output is left alone */
	KUNIT_EXPECT_EQ(test, rtt, 12345ULL);
}

static void rtt_sample_normal(struct kunit *test)
{
	struct txrdma_ctrl_msg m;
	u64 rtt = 0;

	good_ctrl(&m);
	/* away 5 ms, of which the peer held it 3 ms */
	m.echo_ns = T0;
	m.echo_delay_ns = 3 * MS;
	KUNIT_ASSERT_EQ(test, txrdma_rtt_sample(&m, T0 + 5 * MS, &rtt), 0);
	KUNIT_EXPECT_EQ(test, rtt, 2 * MS);
	/* the peer answered at once */
	m.echo_delay_ns = 0;
	KUNIT_ASSERT_EQ(test, txrdma_rtt_sample(&m, T0 + 5 * MS, &rtt), 0);
	KUNIT_EXPECT_EQ(test, rtt, 5 * MS);
	/* held exactly as long as it was away: 0, not refused */
	m.echo_delay_ns = 5 * MS;
	KUNIT_ASSERT_EQ(test, txrdma_rtt_sample(&m, T0 + 5 * MS, &rtt), 0);
	KUNIT_EXPECT_EQ(test, rtt, 0ULL);
	/* received in the nanosecond it was sent */
	m.echo_delay_ns = 0;
	KUNIT_ASSERT_EQ(test, txrdma_rtt_sample(&m, T0, &rtt), 0);
	KUNIT_EXPECT_EQ(test, rtt, 0ULL);
	/* a delay of seconds, beyond 31 bits */
	m.echo_delay_ns = U32_MAX - 1;
	KUNIT_ASSERT_EQ(test, txrdma_rtt_sample(&m, T0 + U32_MAX + 7, &rtt),
			0);
	KUNIT_EXPECT_EQ(test, rtt, 8ULL);
}

/* Our clock wraps through U64_MAX between the probe and its echo. */
static void rtt_sample_clock_wrap(struct kunit *test)
{
	struct txrdma_ctrl_msg m;
	u64 rtt = 0;

	good_ctrl(&m);
	m.echo_ns = U64_MAX - 2 * MS + 1;
	m.echo_delay_ns = MS;
	KUNIT_ASSERT_EQ(test, txrdma_rtt_sample(&m, 3 * MS, &rtt), 0);
	KUNIT_EXPECT_EQ(test, rtt, 4 * MS);
	m.echo_ns = U64_MAX;
	m.echo_delay_ns = 0;
	KUNIT_ASSERT_EQ(test, txrdma_rtt_sample(&m, 5, &rtt), 0);
	KUNIT_EXPECT_EQ(test, rtt, 6ULL);
	/* still from the future after the wrap */
	m.echo_ns = 10;
	KUNIT_EXPECT_EQ(test, txrdma_rtt_sample(&m, U64_MAX - 10, &rtt),
			-ENOENT);
	/* delay longer than elapsed across the wrap */
	m.echo_ns = U64_MAX;
	m.echo_delay_ns = 7;
	KUNIT_EXPECT_EQ(test, txrdma_rtt_sample(&m, 5, &rtt), -ENOENT);
}

/*
 * A probes B, B answers 3 ms later echoing A's tx_ns, A hears it: the
 * sample is the wire time, whatever B's clock reads.
 */
static void rtt_sample_over_wire(struct kunit *test)
{
	struct txrdma_ctrl_msg a, b, rx;
	u64 a_clock = T0, b_clock = 77 * NSEC_PER_SEC, rtt = 0;
	u8 buf[TXRDMA_CTRL_LEN];

	good_ctrl(&a);
	a.tx_ns = a_clock;
	a.echo_ns = 0;
	a.echo_delay_ns = 0;
	KUNIT_ASSERT_EQ(test, txrdma_ctrl_encode(&a, 1, buf), 0);
	/* 400 us to B */
	b_clock += 400 * NSEC_PER_USEC;
	KUNIT_ASSERT_EQ(test, txrdma_ctrl_decode(&rx, buf, sizeof(buf)), 0);
	/* B's first message echoes nothing: A learns nothing from it */
	KUNIT_EXPECT_EQ(test, txrdma_rtt_sample(&rx, b_clock, &rtt), -ENOENT);

	good_ctrl(&b);
	b.tx_ns = b_clock + 3 * MS;
	b.echo_ns = rx.tx_ns;
	b.echo_delay_ns = 3 * MS;
	KUNIT_ASSERT_EQ(test, txrdma_ctrl_encode(&b, 1, buf), 0);
	/* 3 ms at B, 600 us back */
	a_clock += 400 * NSEC_PER_USEC + 3 * MS + 600 * NSEC_PER_USEC;
	KUNIT_ASSERT_EQ(test, txrdma_ctrl_decode(&rx, buf, sizeof(buf)), 0);
	KUNIT_ASSERT_EQ(test, txrdma_rtt_sample(&rx, a_clock, &rtt), 0);
	KUNIT_EXPECT_EQ(test, rtt, 1000 * NSEC_PER_USEC);
}

static void rtt_stats(struct kunit *test)
{
	struct txrdma_rtt r;

	memset(&r, 0, sizeof(r));
	KUNIT_EXPECT_EQ(test, txrdma_rtt_avg(&r), 0ULL);

	/* the first sample is the minimum, though min started at 0 */
	txrdma_rtt_add(&r, 5 * MS);
	KUNIT_EXPECT_EQ(test, r.min_ns, 5 * MS);
	KUNIT_EXPECT_EQ(test, r.max_ns, 5 * MS);
	KUNIT_EXPECT_EQ(test, r.sum_ns, 5 * MS);
	KUNIT_EXPECT_EQ(test, r.samples, 1ULL);
	KUNIT_EXPECT_EQ(test, txrdma_rtt_avg(&r), 5 * MS);

	txrdma_rtt_add(&r, 3 * MS);
	txrdma_rtt_add(&r, 10 * MS);
	txrdma_rtt_add(&r, 4 * MS);
	KUNIT_EXPECT_EQ(test, r.min_ns, 3 * MS);
	KUNIT_EXPECT_EQ(test, r.max_ns, 10 * MS);
	KUNIT_EXPECT_EQ(test, r.sum_ns, 22 * MS);
	KUNIT_EXPECT_EQ(test, r.samples, 4ULL);
	KUNIT_EXPECT_EQ(test, txrdma_rtt_avg(&r), 22 * MS / 4);

	/* a zero sample is a minimum too */
	txrdma_rtt_add(&r, 0);
	KUNIT_EXPECT_EQ(test, r.min_ns, 0ULL);
	KUNIT_EXPECT_EQ(test, r.max_ns, 10 * MS);
	KUNIT_EXPECT_EQ(test, r.samples, 5ULL);

	/* the mean rounds down */
	memset(&r, 0, sizeof(r));
	txrdma_rtt_add(&r, 1);
	txrdma_rtt_add(&r, 2);
	KUNIT_EXPECT_EQ(test, txrdma_rtt_avg(&r), 1ULL);

	/* a first sample of 0 */
	memset(&r, 0, sizeof(r));
	txrdma_rtt_add(&r, 0);
	KUNIT_EXPECT_EQ(test, r.min_ns, 0ULL);
	KUNIT_EXPECT_EQ(test, r.max_ns, 0ULL);
	KUNIT_EXPECT_EQ(test, r.samples, 1ULL);
	txrdma_rtt_add(&r, 9);
	KUNIT_EXPECT_EQ(test, r.min_ns, 0ULL);
	KUNIT_EXPECT_EQ(test, r.max_ns, 9ULL);
}

static void rtt_stats_saturate(struct kunit *test)
{
	struct txrdma_rtt r;

	memset(&r, 0, sizeof(r));
	txrdma_rtt_add(&r, U64_MAX - 10);
	KUNIT_EXPECT_EQ(test, r.sum_ns, U64_MAX - 10);
	/* exactly reaching U64_MAX is not saturation yet */
	txrdma_rtt_add(&r, 10);
	KUNIT_EXPECT_EQ(test, r.sum_ns, U64_MAX);
	/* past it: stays at U64_MAX instead of wrapping to small */
	txrdma_rtt_add(&r, 1);
	KUNIT_EXPECT_EQ(test, r.sum_ns, U64_MAX);
	txrdma_rtt_add(&r, U64_MAX);
	KUNIT_EXPECT_EQ(test, r.sum_ns, U64_MAX);
	KUNIT_EXPECT_EQ(test, r.samples, 4ULL);
	KUNIT_EXPECT_EQ(test, r.min_ns, 1ULL);
	KUNIT_EXPECT_EQ(test, r.max_ns, U64_MAX);
	KUNIT_EXPECT_EQ(test, txrdma_rtt_avg(&r), U64_MAX / 4);

	memset(&r, 0, sizeof(r));
	r.sum_ns = U64_MAX - 1;
	r.samples = 1;
	r.min_ns = 1;
	r.max_ns = 1;
	txrdma_rtt_add(&r, 2);
	KUNIT_EXPECT_EQ(test, r.sum_ns, U64_MAX);
	KUNIT_EXPECT_EQ(test, r.min_ns, 1ULL);
	KUNIT_EXPECT_EQ(test, r.max_ns, 2ULL);
}

static void addr_order(struct kunit *test)
{
	static const u8 a1[4] = { 198, 18, 0, 1 };
	static const u8 a2[4] = { 198, 18, 0, 2 };
	static const u8 b1[4] = { 10, 0, 0, 255 };
	static const u8 b2[4] = { 10, 0, 1, 0 };
	static const u8 c1[4] = { 9, 255, 255, 255 };
	static const u8 c2[4] = { 10, 0, 0, 0 };
	/* bytes compare unsigned: 128 above 127 */
	static const u8 d1[4] = { 127, 255, 255, 255 };
	static const u8 d2[4] = { 128, 0, 0, 0 };
	static const u8 v6a[16] = { 0xfe, 0x80, [15] = 0x01 };
	static const u8 v6b[16] = { 0xfe, 0x80, [15] = 0x02 };
	static const u8 v6c[16] = { 0xfe, 0x80, [7] = 0x01 };

	KUNIT_EXPECT_LT(test, txrdma_addr_cmp(a1, a2, 4), 0);
	KUNIT_EXPECT_GT(test, txrdma_addr_cmp(a2, a1, 4), 0);
	KUNIT_EXPECT_EQ(test, txrdma_addr_cmp(a1, a1, 4), 0);
	KUNIT_EXPECT_LT(test, txrdma_addr_cmp(b1, b2, 4), 0);
	KUNIT_EXPECT_GT(test, txrdma_addr_cmp(b2, b1, 4), 0);
	KUNIT_EXPECT_LT(test, txrdma_addr_cmp(c1, c2, 4), 0);
	KUNIT_EXPECT_GT(test, txrdma_addr_cmp(c2, c1, 4), 0);
	KUNIT_EXPECT_LT(test, txrdma_addr_cmp(d1, d2, 4), 0);
	KUNIT_EXPECT_GT(test, txrdma_addr_cmp(d2, d1, 4), 0);
	KUNIT_EXPECT_LT(test, txrdma_addr_cmp(b2, a1, 4), 0);

	KUNIT_EXPECT_LT(test, txrdma_addr_cmp(v6a, v6b, 16), 0);
	KUNIT_EXPECT_GT(test, txrdma_addr_cmp(v6b, v6a, 16), 0);
	KUNIT_EXPECT_EQ(test, txrdma_addr_cmp(v6b, v6b, 16), 0);
	/* the earlier byte decides */
	KUNIT_EXPECT_GT(test, txrdma_addr_cmp(v6c, v6b, 16), 0);
	KUNIT_EXPECT_LT(test, txrdma_addr_cmp(v6b, v6c, 16), 0);
}

static void wire_ep_layout(struct kunit *test)
{
	static const u8 want[TXRDMA_CTRL_LEN] = {
		0x54, 0x58, 0x52, 0x43, 0x08, 0x02, 0x00, 0x07,
		0x00, 0x00, 0x15, 0x38,		/* service 5432 */
		0x00, 0x00, 0x00, 0x11,		/* src_ep */
		0x00, 0x00, 0x00, 0x00,		/* dst_ep */
		0x00, 0xab, 0xcd, 0xef,		/* qp_num */
		0x01, 0x02, 0x03, 0x04,		/* epoch */
		0x00, 0x00, 0x10, 0x00,		/* ring_units */
		0xff, 0xff, 0x88, 0x80, 0x12, 0x34, 0x50, 0x00,
		0x00, 0x00, 0x55, 0x66,		/* rkey */
		0x00, 0x00, 0x00, 0x00,		/* status */
		/* 48: tenant, NUL-padded to 32 bytes */
		't', 'e', 'n', 'a', 'n', 't', '-', 'A', '.', '1', 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		/* 80: max_msg 4096, ahead_max 0 (no reading ahead) */
		0x00, 0x00, 0x10, 0x00, 0, 0, 0, 0,
		/* 88: sequence number */
		0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02,
		/* 96: MAC, the caller's (zero) */
	};
	struct txrdma_ctrl_ep e;
	u8 buf[TXRDMA_CTRL_LEN + 8];
	unsigned int i;

	good_connect(&e);
	memset(buf, 0x5a, sizeof(buf));
	KUNIT_ASSERT_EQ(test, txrdma_ctrl_ep_encode(&e, 7, 0x100000002ULL,
						    buf), 0);
	for (i = 0; i < TXRDMA_CTRL_LEN; i++)
		KUNIT_EXPECT_EQ_MSG(test, buf[i], want[i], "byte %u", i);
	for (i = TXRDMA_CTRL_LEN; i < sizeof(buf); i++)
		KUNIT_EXPECT_EQ(test, buf[i], 0x5a);
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_type(buf, TXRDMA_CTRL_LEN),
			TXRDMA_CTRL_EP_CONNECT);
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_seq(buf), 0x100000002ULL);
}

static void expect_ep_eq(struct kunit *test, const struct txrdma_ctrl_ep *a,
			 const struct txrdma_ctrl_ep *b)
{
	KUNIT_EXPECT_EQ(test, a->type, b->type);
	KUNIT_EXPECT_EQ(test, a->service, b->service);
	KUNIT_EXPECT_EQ(test, a->src_ep, b->src_ep);
	KUNIT_EXPECT_EQ(test, a->dst_ep, b->dst_ep);
	KUNIT_EXPECT_EQ(test, a->qp_num, b->qp_num);
	KUNIT_EXPECT_EQ(test, a->epoch, b->epoch);
	KUNIT_EXPECT_EQ(test, a->ring_units, b->ring_units);
	KUNIT_EXPECT_EQ(test, a->ring_addr, b->ring_addr);
	KUNIT_EXPECT_EQ(test, a->ring_rkey, b->ring_rkey);
	KUNIT_EXPECT_EQ(test, a->status, b->status);
	KUNIT_EXPECT_EQ(test, a->max_msg, b->max_msg);
	KUNIT_EXPECT_EQ(test, a->ahead_max, b->ahead_max);
	KUNIT_EXPECT_EQ(test, a->exp_off, b->exp_off);
	KUNIT_EXPECT_EQ(test, a->exp_len, b->exp_len);
	KUNIT_EXPECT_EQ(test, a->exp_seq, b->exp_seq);
	KUNIT_EXPECT_EQ(test, a->ring_gen, b->ring_gen);
	KUNIT_EXPECT_EQ(test, a->ho_old_ep, b->ho_old_ep);
	KUNIT_EXPECT_EQ(test, a->ho_gen, b->ho_gen);
	KUNIT_EXPECT_EQ(test, memcmp(a->ho_token, b->ho_token,
				     sizeof(a->ho_token)), 0);
	KUNIT_EXPECT_EQ(test, memcmp(&a->resume, &b->resume,
				     sizeof(a->resume)), 0);
	KUNIT_EXPECT_EQ(test, memcmp(a->tenant, b->tenant,
				     TXRDMA_WIRE_TENANT_LEN), 0);
}

static void good_resume(struct txrdma_ctrl_ep *e)
{
	*e = (struct txrdma_ctrl_ep) {
		.type = TXRDMA_CTRL_EP_RESUME, .src_ep = 0x11, .dst_ep = 0x22,
		.qp_num = 0xabcdef, .epoch = 0x01020304, .ring_units = 4096,
		.ring_addr = 0xffff888012345000ULL, .ring_rkey = 0x5566,
		.resume = { .rx_seq = 0x80000001, .rx_tail = 0xfffffff0,
			    .released = 0xffffffe0, .tx_seq = 7, .gen = 3 },
		.ring_gen = 2,
	};
}

/* the moving side's new endpoint 0x33 claims the pair of 0x11 and 0x22 */
static void good_handoff(struct txrdma_ctrl_ep *e)
{
	unsigned int i;

	*e = (struct txrdma_ctrl_ep) {
		.type = TXRDMA_CTRL_EP_HANDOFF, .src_ep = 0x33, .dst_ep = 0x22,
		.epoch = 0x01020304, .ho_old_ep = 0x11, .ho_gen = 0x80000002,
	};
	for (i = 0; i < sizeof(e->ho_token); i++)
		e->ho_token[i] = 0xf0 ^ i;
}

static void wire_ep_round_trip(struct kunit *test)
{
	struct txrdma_ctrl_ep e, d, msgs[11];
	u8 buf[TXRDMA_CTRL_LEN];
	int i;

	good_connect(&msgs[0]);
	msgs[1] = msgs[0];
	msgs[1].type = TXRDMA_CTRL_EP_ACCEPT;
	msgs[1].src_ep = 0x22;
	msgs[1].dst_ep = 0x11;
	msgs[2] = (struct txrdma_ctrl_ep) {
		.type = TXRDMA_CTRL_EP_REJECT, .service = 5432, .src_ep = 9,
		.dst_ep = 0x11, .epoch = 0x01020304, .status = -ECONNREFUSED,
	};
	good_close(&msgs[3]);
	msgs[4] = (struct txrdma_ctrl_ep) {
		.type = TXRDMA_CTRL_EP_EXPORT, .service = 77, .src_ep = 0x22,
		.dst_ep = 0x11, .qp_num = 3, .epoch = 0x01020304,
		.ring_addr = 0xffff888012345000ULL, .ring_rkey = 0x5566,
		.exp_off = 0x123456789aULL, .exp_len = 0xfedcba98765ULL,
		.exp_seq = 0xdeadbeef,
	};
	msgs[5] = (struct txrdma_ctrl_ep) {
		.type = TXRDMA_CTRL_EP_EXPORT_ACK, .service = 77,
		.src_ep = 0x11, .dst_ep = 0x22, .epoch = 0x01020304,
		.status = -ENOSPC, .exp_off = 1, .exp_len = 2, .exp_seq = 9,
	};
	/* a revoke: access 0, no key */
	msgs[6] = (struct txrdma_ctrl_ep) {
		.type = TXRDMA_CTRL_EP_EXPORT, .service = 77, .src_ep = 0x22,
		.dst_ep = 0x11, .epoch = 0x01020304,
		.exp_off = 4096, .exp_len = 64,
	};
	/* a session resumes; a REJECT names the RESUME it refuses */
	good_resume(&msgs[7]);
	msgs[8] = msgs[7];
	msgs[8].type = TXRDMA_CTRL_EP_RESUMED;
	msgs[8].src_ep = 0x22;
	msgs[8].dst_ep = 0x11;
	msgs[9] = (struct txrdma_ctrl_ep) {
		.type = TXRDMA_CTRL_EP_REJECT, .src_ep = 0x22, .dst_ep = 0x11,
		.epoch = 0x01020304, .status = -ECONNRESET, .resume.gen = 3,
	};
	good_handoff(&msgs[10]);
	for (i = 0; i < ARRAY_SIZE(msgs); i++) {
		e = msgs[i];
		KUNIT_ASSERT_EQ(test, txrdma_ctrl_ep_encode(&e, 1, i, buf), 0);
		memset(&d, 0xa5, sizeof(d));
		KUNIT_ASSERT_EQ(test, txrdma_ctrl_ep_decode(&d, buf,
							    sizeof(buf)), 0);
		expect_ep_eq(test, &e, &d);
		KUNIT_EXPECT_EQ(test, txrdma_ctrl_seq(buf), (u64)i);
		/* a probe decoder refuses it, and it is no probe */
		KUNIT_EXPECT_NE(test, txrdma_ctrl_type(buf, sizeof(buf)),
				TXRDMA_CTRL_PROBE);
		KUNIT_EXPECT_EQ(test, txrdma_ctrl_type(buf, sizeof(buf)),
				(int)e.type);
	}
}

/* each rule of each type: refused by the encoder and by the decoder */
static void wire_ep_rules(struct kunit *test)
{
	struct txrdma_ctrl_ep e, d;
	u8 buf[TXRDMA_CTRL_LEN];
	int k;

	for (k = 0; k < 14; k++) {
		good_connect(&e);
		switch (k) {
		case 11: /* a pairing states the longest SEND its ring takes */
			e.max_msg = 0;
			break;
		case 12: /* ... at most half the ring, less the header */
			e.ring_units = 1024;
			e.max_msg = 1024 / 2 * 64 - 32 + 1;
			break;
		case 13:
			e.ring_units = 1U << 14;
			e.max_msg = (64U << 10) + 1;
			break;
		case 0:
			e.src_ep = 0;
			break;
		case 1: /* CONNECT names none */
			e.dst_ep = 3;
			break;
		case 2:
			e.qp_num = 0;
			break;
		case 3:
			e.qp_num = 0x1000000;
			break;
		case 4:
			e.ring_units = 3;
			break;
		case 5:
			e.ring_units = 1;
			break;
		case 6:
			e.ring_units = 1U << 31;
			break;
		case 7:
			e.status = -1;
			break;
		case 8:
			e.type = TXRDMA_CTRL_PROBE;
			break;
		case 9:
			e.type = TXRDMA_CTRL_EP_EXPORT_ACK + 1;
			break;
		case 10:
			e.type = 0;
			break;
		}
		KUNIT_EXPECT_EQ_MSG(test, txrdma_ctrl_ep_encode(&e, 0, 0, buf),
				    -EINVAL, "case %d", k);
	}
	/* the largest and the smallest max_msg a ring can state */
	good_connect(&e);
	e.ring_units = 1024;
	e.max_msg = 1024 / 2 * 64 - 32;
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 0, buf), 0);
	e.max_msg = 1;
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 0, buf), 0);
	e.ring_units = 1U << 14;
	e.max_msg = 64U << 10;
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 0, buf), 0);
	/* and no other type carries one */
	good_close(&e);
	e.max_msg = 1;
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 0, buf), -EINVAL);
	/* ACCEPT must name the connector; REJECT needs a reason, no ring */
	good_connect(&e);
	e.type = TXRDMA_CTRL_EP_ACCEPT;
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 0, buf), -EINVAL);
	e = (struct txrdma_ctrl_ep) { .type = TXRDMA_CTRL_EP_REJECT,
		.src_ep = 1, .dst_ep = 2, .status = 0 };
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 0, buf), -EINVAL);
	e.status = -EPERM;
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 0, buf), 0);
	e.ring_rkey = 1;
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 0, buf), -EINVAL);
	e = (struct txrdma_ctrl_ep) { .type = TXRDMA_CTRL_EP_CLOSE,
		.src_ep = 1, .dst_ep = 2, .status = 1 };
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 0, buf), -EINVAL);
	/* EXPORT: a region id, access READ and/or WRITE, a range */
	e = (struct txrdma_ctrl_ep) { .type = TXRDMA_CTRL_EP_EXPORT,
		.service = 9, .src_ep = 1, .dst_ep = 2, .qp_num = 1,
		.ring_addr = 4096, .ring_rkey = 7, .exp_len = 1 };
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 0, buf), 0);
	e.qp_num = 4;
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 0, buf), -EINVAL);
	/* access 0 is a revoke: never with a key */
	e.qp_num = 0;
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 0, buf), -EINVAL);
	e.ring_rkey = 0;
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 0, buf), -EINVAL);
	e.ring_addr = 0;
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 0, buf), 0);
	e.qp_num = 2;
	e.ring_units = 1;	/* the length is exp_len, never units */
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 0, buf), -EINVAL);
	e.ring_units = 0;
	e.exp_len = 0;		/* an empty range */
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 0, buf), -EINVAL);
	e.exp_len = 2;
	e.exp_off = U64_MAX;	/* one that wraps */
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 0, buf), -EINVAL);
	e.exp_off = U64_MAX - 1;	/* its last byte is U64_MAX */
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 0, buf), 0);
	e.exp_off = U64_MAX;
	e.exp_len = 1;
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 0, buf), 0);
	e.exp_len = 2;
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 0, buf), -EINVAL);
	e.exp_off = 0;
	e.service = 0;
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 0, buf), -EINVAL);
	/*
	 * CLOSE carries what the closing process released, and nothing
	 * else of a report; it reads back, bytes 68.. stay zero
	 */
	good_close(&e);
	e.resume.released = 0xfffffff3;
	KUNIT_ASSERT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 0, buf), 0);
	KUNIT_EXPECT_NULL(test, memchr_inv(buf + 68, 0, 20));
	{
		struct txrdma_ctrl_ep d;

		KUNIT_ASSERT_EQ(test, txrdma_ctrl_ep_decode(&d, buf,
							    TXRDMA_CTRL_LEN),
				0);
		KUNIT_EXPECT_EQ(test, d.resume.released, 0xfffffff3U);
		KUNIT_EXPECT_EQ(test, d.status, -ETIMEDOUT);
		buf[70] = 1;	/* a byte past the report */
		KUNIT_EXPECT_EQ(test, txrdma_ctrl_ep_decode(&d, buf,
							    TXRDMA_CTRL_LEN),
				-EINVAL);
	}
	e.resume.rx_seq = 1;
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 0, buf), -EINVAL);
	e.resume.rx_seq = 0;
	e.resume.gen = 1;
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 0, buf), -EINVAL);
	/* only exports carry a range and a request number */
	good_close(&e);
	e.exp_len = 1;
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 0, buf), -EINVAL);
	good_close(&e);
	e.exp_seq = 1;
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 0, buf), -EINVAL);
	/* EXPORT_ACK: no ring, a status <= 0, the range echoed */
	e = (struct txrdma_ctrl_ep) { .type = TXRDMA_CTRL_EP_EXPORT_ACK,
		.service = 9, .src_ep = 2, .dst_ep = 1, .status = 0,
		.exp_len = 1 };
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 0, buf), 0);
	e.exp_len = 0;
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 0, buf), -EINVAL);
	e.exp_len = 1;
	e.status = 1;
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 0, buf), -EINVAL);
	e.status = -EPERM;
	e.ring_rkey = 1;
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 0, buf), -EINVAL);
	/* the decoder applies the same rules to bytes from the wire */
	good_connect(&e);
	KUNIT_ASSERT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 0, buf), 0);
	buf[31] = 3;				/* ring_units 0x1003 */
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_ep_decode(&d, buf, sizeof(buf)),
			-EINVAL);
	KUNIT_ASSERT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 0, buf), 0);
	buf[19] = 1;				/* CONNECT with a dst_ep */
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_ep_decode(&d, buf, sizeof(buf)),
			-EINVAL);
	KUNIT_ASSERT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 0, buf), 0);
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_ep_decode(&d, buf, sizeof(buf) - 1),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_ep_decode(&d, buf, 56), -EINVAL);
	buf[4] = 7;				/* version */
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_ep_decode(&d, buf, sizeof(buf)),
			-EPROTO);
	buf[4] = 9;
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_ep_decode(&d, buf, sizeof(buf)),
			-EPROTO);
}

/* Decode @base with byte @idx set to @val; expect @err. */
static void expect_ep_decode(struct kunit *test, const u8 *base,
			     unsigned int idx, u8 val, int err)
{
	struct txrdma_ctrl_ep d;
	u8 buf[TXRDMA_CTRL_LEN];

	memcpy(buf, base, sizeof(buf));
	buf[idx] = val;
	KUNIT_EXPECT_EQ_MSG(test, txrdma_ctrl_ep_decode(&d, buf, sizeof(buf)),
			    err, "type %u byte %u = 0x%02x", base[5], idx, val);
}

/*
 * 80..87 are max_msg and ahead_max in CONNECT and ACCEPT, the claim's
 * end in a HANDOFF (and 80..83 its endpoint before in a REJECT of
 * one: wire_ep_handoff) and zero in every other pairing message;
 * nothing is left reserved before the
 * sequence number at 88: it and the MAC are the caller's, any value
 */
static void wire_ep_reserved(struct kunit *test)
{
	struct txrdma_ctrl_ep e;
	u8 buf[TXRDMA_CTRL_LEN];
	unsigned int i, k;

	KUNIT_ASSERT_EQ(test, TXRDMA_CTRL_SEQ_OFF, 88);
	for (k = 0; k < 2; k++) {
		if (k)
			good_close(&e);
		else
			good_connect(&e);
		KUNIT_ASSERT_EQ(test, txrdma_ctrl_ep_encode(&e, 3, 4, buf), 0);
		KUNIT_EXPECT_NULL(test, memchr_inv(buf + 84, 0, 4));
		if (k) {
			KUNIT_EXPECT_NULL(test, memchr_inv(buf + 80, 0, 8));
			for (i = 80; i < 88; i++) {
				expect_ep_decode(test, buf, i, 1, -EINVAL);
				expect_ep_decode(test, buf, i, 0x80, -EINVAL);
			}
		} else {
			/* max_msg 4096 -> 4097 is still in the ring */
			expect_ep_decode(test, buf, 83, 1, 0);
			/* 0 and 2^16 + 4096 are not */
			expect_ep_decode(test, buf, 82, 0, -EINVAL);
			expect_ep_decode(test, buf, 81, 1, -EINVAL);
			/*
			 * ahead_max 0 -> 1 and 4096 (max_msg) read
			 * ahead; 4352 not
			 */
			expect_ep_decode(test, buf, 87, 1, 0);
			expect_ep_decode(test, buf, 86, 0x10, 0);
			expect_ep_decode(test, buf, 86, 0x11, -EINVAL);
			for (i = 84; i < 86; i++) {
				expect_ep_decode(test, buf, i, 1, -EINVAL);
				expect_ep_decode(test, buf, i, 0x80, -EINVAL);
			}
		}
		for (i = TXRDMA_CTRL_SEQ_OFF; i < TXRDMA_CTRL_LEN; i++) {
			expect_ep_decode(test, buf, i, 0xff, 0);
			expect_ep_decode(test, buf, i, 0x01, 0);
		}
	}
}

/* RESUME's layout (round trips: wire_ep_round_trip) */
static void wire_ep_resume(struct kunit *test)
{
	static const u8 report[40] = {
		0x80, 0x00, 0x00, 0x01,		/* 48: rx_seq */
		0xff, 0xff, 0xff, 0xf0,		/* rx_tail */
		0xff, 0xff, 0xff, 0xe0,		/* released */
		0x00, 0x00, 0x00, 0x07,		/* tx_seq */
		0x00, 0x00, 0x00, 0x03,		/* gen */
		0x00, 0x00, 0x00, 0x02,		/* 68: ring_gen */
		/* 72..87: zeroes */
	};
	struct txrdma_ctrl_ep e;
	u8 buf[TXRDMA_CTRL_LEN];
	unsigned int i;

	good_resume(&e);
	KUNIT_ASSERT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 5, buf), 0);
	KUNIT_EXPECT_EQ(test, buf[5], (u8)TXRDMA_CTRL_EP_RESUME);
	KUNIT_EXPECT_EQ(test, memcmp(buf + 48, report, sizeof(report)), 0);
	/* 72..87 are zero in a report; the generation is never 0 */
	for (i = 72; i < 88; i++)
		expect_ep_decode(test, buf, i, 1, -EINVAL);
	expect_ep_decode(test, buf, 67, 0, -EINVAL);
	/* only RESUME and RESUMED count the ring's registrations */
	e.type = TXRDMA_CTRL_EP_REJECT;
	e.status = -ECONNRESET;
	e.qp_num = 0;
	e.ring_units = 0;
	e.ring_addr = 0;
	e.ring_rkey = 0;
	e.resume = (struct txrdma_resume_report){ .gen = 3 };
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 5, buf), -EINVAL);
	e.ring_gen = 0;
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 5, buf), 0);
	expect_ep_decode(test, buf, 71, 1, -EINVAL);
	/* AUTH's type number is not a pairing message */
	expect_ep_decode(test, buf, 5, TXRDMA_CTRL_AUTH, -EINVAL);
	expect_ep_decode(test, buf, 5, TXRDMA_CTRL_EP_HANDOFF + 1, -EINVAL);
}

/*
 * A HANDOFF: its layout (token at 48, the endpoint before at 80, the
 * generation at 84), what it must carry, and what no other message may
 */
static void wire_ep_handoff(struct kunit *test)
{
	struct txrdma_ctrl_ep e, d;
	u8 buf[TXRDMA_CTRL_LEN];
	int k;

	good_handoff(&e);
	KUNIT_ASSERT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 1, buf), 0);
	KUNIT_EXPECT_EQ(test, buf[5], 11);
	KUNIT_EXPECT_EQ(test, buf[48], 0xf0);
	KUNIT_EXPECT_EQ(test, buf[79], 0xf0 ^ 31);
	KUNIT_EXPECT_EQ(test, memcmp(buf + 80, "\x00\x00\x00\x11", 4), 0);
	KUNIT_EXPECT_EQ(test, memcmp(buf + 84, "\x80\x00\x00\x02", 4), 0);
	KUNIT_ASSERT_EQ(test, txrdma_ctrl_ep_decode(&d, buf, sizeof(buf)), 0);
	KUNIT_EXPECT_EQ(test, d.max_msg, 0U);
	KUNIT_EXPECT_EQ(test, d.ahead_max, 0U);
	expect_ep_eq(test, &e, &d);
	/* any token and generation decode: the receiver judges them */
	expect_ep_decode(test, buf, 60, 0, 0);
	expect_ep_decode(test, buf, 84, 0, 0);
	/* the endpoint before is never 0; nor is the one it names */
	memset(buf + 80, 0, 4);
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_ep_decode(&d, buf, sizeof(buf)),
			-EINVAL);
	/* each field a HANDOFF must leave out, set in turn */
	for (k = 0; k < 10; k++) {
		good_handoff(&e);
		if (k == 9)
			e.epoch = 0;
		else if (k == 0)
			e.dst_ep = 0;
		else if (k == 1)
			e.ho_old_ep = 0;
		else if (k == 2)
			e.qp_num = 1;
		else if (k == 3)
			e.ring_units = 64;
		else if (k == 4)
			e.ring_rkey = 1;
		else if (k == 5)
			e.status = -1;
		else if (k == 6)
			e.service = 1;
		else if (k == 7)
			e.ring_gen = 1;
		else
			e.resume.gen = 1;
		KUNIT_EXPECT_EQ_MSG(test, txrdma_ctrl_ep_encode(&e, 0, 1, buf),
				    -EINVAL, "case %d", k);
	}
	/* a claim in any other message */
	good_resume(&e);
	e.ho_gen = 1;
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 1, buf), -EINVAL);
	good_close(&e);
	e.ho_old_ep = 1;
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 1, buf), -EINVAL);
	good_connect(&e);
	e.ho_token[31] = 1;
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 1, buf), -EINVAL);

	/* a REJECT of a HANDOFF names its endpoint before, at 80 */
	e = (struct txrdma_ctrl_ep) {
		.type = TXRDMA_CTRL_EP_REJECT, .src_ep = 0x22, .dst_ep = 0x33,
		.epoch = 0x01020304, .status = -ESTALE, .ho_old_ep = 0x11,
	};
	KUNIT_ASSERT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 1, buf), 0);
	KUNIT_EXPECT_EQ(test, memcmp(buf + 80, "\x00\x00\x00\x11", 4), 0);
	KUNIT_ASSERT_EQ(test, txrdma_ctrl_ep_decode(&d, buf, sizeof(buf)), 0);
	expect_ep_eq(test, &e, &d);
	/* the rest of the claim is no REJECT's */
	for (k = 84; k < 88; k++)
		expect_ep_decode(test, buf, k, 1, -EINVAL);
	/* ... nor is a RESUME's generation beside it */
	e.resume.gen = 3;
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 1, buf), -EINVAL);
	/* a RESUME or RESUMED names no endpoint before */
	good_resume(&e);
	e.ho_old_ep = 0x11;
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 1, buf), -EINVAL);
	good_resume(&e);
	KUNIT_ASSERT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 1, buf), 0);
	expect_ep_decode(test, buf, 83, 1, -EINVAL);
	buf[5] = TXRDMA_CTRL_EP_RESUMED;
	expect_ep_decode(test, buf, 80, 1, -EINVAL);
}

/* what a RESUME must carry, and what no other message may */
static void wire_ep_resume_rules(struct kunit *test)
{
	struct txrdma_ctrl_ep e;
	u8 buf[TXRDMA_CTRL_LEN];
	int k;

	/* each field a RESUME must have right, broken in turn */
	for (k = 0; k < 7; k++) {
		good_resume(&e);
		if (k == 0)
			e.dst_ep = 0;
		else if (k == 1)
			e.qp_num = 0;
		else if (k == 2)
			e.qp_num = 0x1000000;
		else if (k == 3)
			e.ring_units = 24;
		else if (k == 4)
			e.status = -1;
		else if (k == 5)
			e.service = 1;
		else
			e.resume.gen = 0;
		KUNIT_EXPECT_EQ_MSG(test, txrdma_ctrl_ep_encode(&e, 0, 1, buf),
				    -EINVAL, "case %d", k);
	}
	/* a report in a CONNECT, a CLOSE or an EXPORT */
	good_connect(&e);
	e.resume.gen = 1;
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 1, buf), -EINVAL);
	good_close(&e);
	e.resume.rx_seq = 1;
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 1, buf), -EINVAL);
	/* a REJECT names a generation, nothing else of a report */
	e = (struct txrdma_ctrl_ep) {
		.type = TXRDMA_CTRL_EP_REJECT, .src_ep = 9, .dst_ep = 0x11,
		.status = -ECONNREFUSED, .resume.tx_seq = 1,
	};
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 1, buf), -EINVAL);
	e.resume.tx_seq = 0;
	KUNIT_ASSERT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 1, buf), 0);
	expect_ep_decode(test, buf, 48, 1, -EINVAL);
	expect_ep_decode(test, buf, 67, 9, 0);
}

/* a session's grace: in CONNECT and ACCEPT only, where status is not */
static void wire_ep_grace(struct kunit *test)
{
	struct txrdma_ctrl_ep e, d;
	u8 buf[TXRDMA_CTRL_LEN];

	good_connect(&e);
	e.grace_ms = 1000;
	KUNIT_ASSERT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 1, buf), 0);
	KUNIT_EXPECT_EQ(test, memcmp(buf + 44, "\x00\x00\x03\xe8", 4), 0);
	KUNIT_ASSERT_EQ(test, txrdma_ctrl_ep_decode(&d, buf, sizeof(buf)), 0);
	KUNIT_EXPECT_EQ(test, d.grace_ms, 1000U);
	KUNIT_EXPECT_EQ(test, d.status, 0);
	/* at most TXRDMA_WIRE_GRACE_MAX_MS (60000 = 0xea60) */
	expect_ep_decode(test, buf, 45, 0x01, -EINVAL);
	expect_ep_decode(test, buf, 44, 0x80, -EINVAL);
	e.grace_ms = TXRDMA_WIRE_GRACE_MAX_MS;
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 1, buf), 0);
	e.grace_ms++;
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 1, buf), -EINVAL);
	/* the pairing has no status; the others no grace */
	good_connect(&e);
	e.status = -1;
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 1, buf), -EINVAL);
	good_close(&e);
	e.grace_ms = 1;
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 1, buf), -EINVAL);
	good_resume(&e);
	e.grace_ms = 1;
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 1, buf), -EINVAL);
}

/* @e as CONNECT (k 0) or ACCEPT (k 1), with @max_msg and @ahead_max */
static void ahead_ep(struct txrdma_ctrl_ep *e, unsigned int k, u32 max_msg,
		     u32 ahead_max)
{
	good_connect(e);
	if (k) {
		e->type = TXRDMA_CTRL_EP_ACCEPT;
		e->src_ep = 0x22;
		e->dst_ep = 0x11;
	}
	/* a ring that takes the largest SEND: the bound is max_msg's own */
	e->ring_units = 1U << 14;
	e->max_msg = max_msg;
	e->ahead_max = ahead_max;
}

/* CONNECT and ACCEPT state how far their process reads ahead: at 84 */
static void wire_ep_ahead_round_trip(struct kunit *test)
{
	static const struct {
		u32 max_msg, ahead_max;
	} cases[] = {
		{ 4096, 0 }, { 4096, 1 }, { 4096, 0x0fd8 },
		{ 8192, TXRDMA_RX_AHEAD_MAX_PAYLOAD },
		{ 64U << 10, TXRDMA_RX_AHEAD_MAX_PAYLOAD },
		{ 100, 100 }, { 1, 1 }, { 1, 0 },
	};
	struct txrdma_ctrl_ep e, d;
	u8 buf[TXRDMA_CTRL_LEN];
	unsigned int i, k;
	int ret;

	/*
	 * the uapi's bound, a page: both modules check a peer's limit
	 * against their own, so it is part of wire version 4
	 */
	KUNIT_EXPECT_EQ(test, TXRDMA_RX_AHEAD_MAX_PAYLOAD, 4096);
	for (k = 0; k < 2; k++) {
		for (i = 0; i < ARRAY_SIZE(cases); i++) {
			ahead_ep(&e, k, cases[i].max_msg, cases[i].ahead_max);
			KUNIT_ASSERT_EQ_MSG(test, txrdma_ctrl_ep_encode(&e, 1,
									9, buf),
					    0, "type %u case %u", e.type, i);
			/* big-endian, after max_msg */
			KUNIT_EXPECT_EQ(test, buf[80], (u8)(e.max_msg >> 24));
			KUNIT_EXPECT_EQ(test, buf[83], (u8)e.max_msg);
			KUNIT_EXPECT_EQ(test, buf[84], (u8)(e.ahead_max >> 24));
			KUNIT_EXPECT_EQ(test, buf[85], (u8)(e.ahead_max >> 16));
			KUNIT_EXPECT_EQ(test, buf[86], (u8)(e.ahead_max >> 8));
			KUNIT_EXPECT_EQ(test, buf[87], (u8)e.ahead_max);
			memset(&d, 0xa5, sizeof(d));
			ret = txrdma_ctrl_ep_decode(&d, buf, sizeof(buf));
			KUNIT_ASSERT_EQ_MSG(test, ret, 0, "type %u case %u",
					    e.type, i);
			expect_ep_eq(test, &e, &d);
			KUNIT_EXPECT_EQ(test, txrdma_ctrl_seq(buf), 9ULL);
		}
	}
}

/* @e refused by the encoder, and its bytes by the decoder */
static void expect_ep_refused(struct kunit *test,
			      const struct txrdma_ctrl_ep *e, const u8 *good)
{
	struct txrdma_ctrl_ep d;
	u8 buf[TXRDMA_CTRL_LEN];
	unsigned int i;

	memset(buf, 0xa5, sizeof(buf));
	KUNIT_EXPECT_EQ_MSG(test, txrdma_ctrl_ep_encode(e, 0, 0, buf),
			    -EINVAL, "type %u ahead_max %u", e->type,
			    e->ahead_max);
	/* nothing the peer would refuse left in the buffer either way */
	memcpy(buf, good, sizeof(buf));
	for (i = 0; i < 4; i++) {
		buf[80 + i] = e->max_msg >> (24 - 8 * i);
		buf[84 + i] = e->ahead_max >> (24 - 8 * i);
	}
	KUNIT_EXPECT_EQ_MSG(test, txrdma_ctrl_ep_decode(&d, buf, sizeof(buf)),
			    -EINVAL, "type %u ahead_max %u", e->type,
			    e->ahead_max);
}

/*
 * ahead_max is at most TXRDMA_RX_AHEAD_MAX_PAYLOAD (the bound the
 * payload's CRC is worth it for) and at most max_msg (the sender never
 * puts a trailer on a frame the receiver would not take): both sides
 */
static void wire_ep_ahead_limits(struct kunit *test)
{
	static const struct {
		u32 max_msg, ahead_max;
	} bad[] = {
		{ 8192, TXRDMA_RX_AHEAD_MAX_PAYLOAD + 1 },
		{ 64U << 10, 8192 },
		{ 64U << 10, 64U << 10 },
		{ 64U << 10, U32_MAX },
		{ 100, 101 },
		{ 1, 2 },
		{ 4000, 4056 },
	};
	struct txrdma_ctrl_ep e;
	u8 good[TXRDMA_CTRL_LEN];
	unsigned int i, k;

	for (k = 0; k < 2; k++) {
		ahead_ep(&e, k, 4096, 0);
		KUNIT_ASSERT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 0, good), 0);
		for (i = 0; i < ARRAY_SIZE(bad); i++) {
			ahead_ep(&e, k, bad[i].max_msg, bad[i].ahead_max);
			expect_ep_refused(test, &e, good);
		}
		/* a max_msg lowered below it on the wire: refused too */
		ahead_ep(&e, k, 4096, 4056);
		KUNIT_ASSERT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 0, good), 0);
		expect_ep_decode(test, good, 82, 0x0f, -EINVAL);
		/* max_msg 0x0fd8 or 0x0fd7: equal passes, one less not */
		good[82] = 0x0f;
		good[83] = 0xd8;
		expect_ep_decode(test, good, 83, 0xd8, 0);
		expect_ep_decode(test, good, 83, 0xd7, -EINVAL);
	}
}

/* No other pairing message carries a read-ahead limit */
static void wire_ep_ahead_others(struct kunit *test)
{
	struct txrdma_ctrl_ep msgs[4], e;
	u8 good[TXRDMA_CTRL_LEN];
	unsigned int i;

	msgs[0] = (struct txrdma_ctrl_ep) {
		.type = TXRDMA_CTRL_EP_REJECT, .service = 5432, .src_ep = 9,
		.dst_ep = 0x11, .epoch = 0x01020304, .status = -ECONNREFUSED,
	};
	good_close(&msgs[1]);
	msgs[2] = (struct txrdma_ctrl_ep) {
		.type = TXRDMA_CTRL_EP_EXPORT, .service = 77, .src_ep = 0x22,
		.dst_ep = 0x11, .qp_num = 1, .epoch = 0x01020304,
		.ring_addr = 4096, .ring_rkey = 0x5566, .exp_len = 64,
	};
	msgs[3] = (struct txrdma_ctrl_ep) {
		.type = TXRDMA_CTRL_EP_EXPORT_ACK, .service = 77,
		.src_ep = 0x11, .dst_ep = 0x22, .epoch = 0x01020304,
		.status = 0, .exp_len = 64,
	};
	for (i = 0; i < ARRAY_SIZE(msgs); i++) {
		e = msgs[i];
		KUNIT_ASSERT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 0, good), 0);
		e.ahead_max = 1;
		expect_ep_refused(test, &e, good);
		e.ahead_max = TXRDMA_RX_AHEAD_MAX_PAYLOAD;
		expect_ep_refused(test, &e, good);
		e.ahead_max = 0x80000000;
		expect_ep_refused(test, &e, good);
	}
}

/*
 * A version 7 CONNECT (its module's sessions complete a SEND when the QP
 * delivers it, and its EP_CLOSE carries no release count), a version 6
 * one (its module knows no sessions), a version 5 one
 * (its module's probes carry no stall report) and a version 4 one (its
 * module refuses writes of several frames) are
 * another version's: refused, as a version 3 one (no ahead_max)
 */
static void wire_ep_version(struct kunit *test)
{
	struct txrdma_ctrl_ep e;
	u8 buf[TXRDMA_CTRL_LEN];
	unsigned int k;

	KUNIT_EXPECT_EQ(test, TXRDMA_WIRE_VERSION, 8);
	for (k = 0; k < 2; k++) {
		ahead_ep(&e, k, 4096, 0);
		KUNIT_ASSERT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 0, buf), 0);
		KUNIT_EXPECT_EQ(test, buf[4], 8);
		expect_ep_decode(test, buf, 4, 3, -EPROTO);
		expect_ep_decode(test, buf, 4, 4, -EPROTO);
		expect_ep_decode(test, buf, 4, 5, -EPROTO);
		expect_ep_decode(test, buf, 4, 6, -EPROTO);
		expect_ep_decode(test, buf, 4, 7, -EPROTO);
		expect_ep_decode(test, buf, 4, 9, -EPROTO);
		expect_ep_decode(test, buf, 4, 8, 0);
		/* the version is looked at before what follows it */
		buf[84] = 0xff;
		expect_ep_decode(test, buf, 4, 8, -EINVAL);
		expect_ep_decode(test, buf, 4, 7, -EPROTO);
	}
}

/* Bytes of a tenant field, @len of @s then NULs. */
static void set_tenant(struct txrdma_ctrl_ep *e, const char *s,
		       unsigned int len)
{
	memset(e->tenant, 0, sizeof(e->tenant));
	memcpy(e->tenant, s, len);
}

static const struct {
	const char *s;
	unsigned int len;
} bad_tenants[] = {
	{ "", 0 },				/* empty */
	{ "abcdefghijklmnopqrstuvwxyz012345", 32 },	/* no NUL */
	{ "a b", 3 }, { "a/b", 3 }, { "a@b", 3 }, { "a:b", 3 },
	{ "a+b", 3 }, { "a\nb", 3 }, { "a\tb", 3 }, { "ab\x7f", 3 },
	{ "\x80", 1 }, { "ok\xa0", 3 }, { "caf\xc3\xa9", 5 }, { "~", 1 },
	{ "\xe9t\xe9", 3 }, { "ok\xff", 3 }, { "\xc0", 1 }, { "\xdf", 1 },
	{ "ab\0c", 4 },				/* garbage after the NUL */
	{ "\0a", 2 },
};

static const char * const good_tenants[] = {
	"a", "Z", "0", "_", "-", ".", "db-01.prod_A",
	"abcdefghijklmnopqrstuvwxyzABCDE",	/* 31: the longest */
	"FGHIJKLMNOPQRSTUVWXYZ0123456789",
};

/* @e with bad tenant @i: refused by the encoder and the decoder. */
static void expect_tenant_refused(struct kunit *test,
				  struct txrdma_ctrl_ep *e, const u8 *good,
				  unsigned int i)
{
	struct txrdma_ctrl_ep d;
	u8 buf[TXRDMA_CTRL_LEN];
	int ret;

	set_tenant(e, bad_tenants[i].s, bad_tenants[i].len);
	ret = txrdma_ctrl_ep_encode(e, 0, 0, buf);
	KUNIT_EXPECT_EQ_MSG(test, ret, -EINVAL, "type %u tenant %u", e->type,
			    i);
	/* the same bytes from the wire, in an otherwise good message */
	memcpy(buf, good, sizeof(buf));
	memcpy(buf + 48, e->tenant, TXRDMA_WIRE_TENANT_LEN);
	ret = txrdma_ctrl_ep_decode(&d, buf, sizeof(buf));
	KUNIT_EXPECT_EQ_MSG(test, ret, -EINVAL, "type %u tenant %u", e->type,
			    i);
}

/* @e named @name: sent as is (NUL-padded) and read back. */
static void expect_tenant_accepted(struct kunit *test,
				   struct txrdma_ctrl_ep *e, const char *name)
{
	struct txrdma_ctrl_ep d;
	u8 buf[TXRDMA_CTRL_LEN];

	set_tenant(e, name, strlen(name));
	KUNIT_ASSERT_EQ(test, txrdma_ctrl_ep_encode(e, 0, 0, buf), 0);
	KUNIT_EXPECT_EQ(test, memcmp(buf + 48, e->tenant,
				     TXRDMA_WIRE_TENANT_LEN), 0);
	memset(&d, 0xa5, sizeof(d));
	KUNIT_ASSERT_EQ(test, txrdma_ctrl_ep_decode(&d, buf, sizeof(buf)), 0);
	expect_ep_eq(test, e, &d);
	KUNIT_EXPECT_STREQ(test, d.tenant, name);
}

/* CONNECT and ACCEPT carry a valid tenant name; both sides check it */
static void wire_ep_tenant_named(struct kunit *test)
{
	struct txrdma_ctrl_ep e;
	u8 buf[TXRDMA_CTRL_LEN], good[TXRDMA_CTRL_LEN];
	unsigned int i, k;

	for (k = 0; k < 2; k++) {
		good_connect(&e);
		if (k) {
			e.type = TXRDMA_CTRL_EP_ACCEPT;
			e.dst_ep = 0x33;
		}
		KUNIT_ASSERT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 0, good), 0);
		for (i = 0; i < ARRAY_SIZE(bad_tenants); i++)
			expect_tenant_refused(test, &e, good, i);
		for (i = 0; i < ARRAY_SIZE(good_tenants); i++)
			expect_tenant_accepted(test, &e, good_tenants[i]);

		/* a short name: any byte after its NUL refused */
		set_tenant(&e, "db", 2);
		e.tenant[TXRDMA_WIRE_TENANT_LEN - 1] = 'z';
		KUNIT_EXPECT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 0, buf),
				-EINVAL);
		e.tenant[TXRDMA_WIRE_TENANT_LEN - 1] = 0;
		KUNIT_ASSERT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 0, buf), 0);
		for (i = 48 + 3; i < 80; i++)
			expect_ep_decode(test, buf, i, 'x', -EINVAL);
		/* its NUL replaced: a longer name, still valid */
		expect_ep_decode(test, buf, 48 + 2, 'x', 0);
		/* and a character replaced by one not allowed, or NUL */
		expect_ep_decode(test, buf, 48, '/', -EINVAL);
		expect_ep_decode(test, buf, 49, 0x80, -EINVAL);
		expect_ep_decode(test, buf, 48, 0, -EINVAL);
	}
}

/* the other pairing messages carry no tenant: 32 zero bytes */
static void wire_ep_tenant_unnamed(struct kunit *test)
{
	struct txrdma_ctrl_ep msgs[4], e;
	u8 buf[TXRDMA_CTRL_LEN];
	unsigned int i, j;

	msgs[0] = (struct txrdma_ctrl_ep) {
		.type = TXRDMA_CTRL_EP_REJECT, .service = 5432, .src_ep = 9,
		.dst_ep = 0x11, .epoch = 0x01020304, .status = -ECONNREFUSED,
	};
	good_close(&msgs[1]);
	msgs[2] = (struct txrdma_ctrl_ep) {
		.type = TXRDMA_CTRL_EP_EXPORT, .service = 77, .src_ep = 0x22,
		.dst_ep = 0x11, .qp_num = 1, .epoch = 0x01020304,
		.ring_addr = 4096, .ring_rkey = 0x5566, .exp_len = 64,
	};
	msgs[3] = (struct txrdma_ctrl_ep) {
		.type = TXRDMA_CTRL_EP_EXPORT_ACK, .service = 77,
		.src_ep = 0x11, .dst_ep = 0x22, .epoch = 0x01020304,
		.status = 0, .exp_len = 64,
	};
	for (i = 0; i < ARRAY_SIZE(msgs); i++) {
		/* exports carry range and number in the field's first 20 */
		unsigned int from = i < 2 ? 48 : 68;

		e = msgs[i];
		KUNIT_ASSERT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 0, buf), 0);
		KUNIT_EXPECT_NULL(test, memchr_inv(buf + from, 0, 80 - from));
		/* any byte of the rest set, even a valid name; a REJECT
		 * may name the RESUME it refuses (64..67), a CLOSE what its
		 * process released (56..59)
		 */
		for (j = from; j < 80; j++) {
			if ((!i && j >= 64 && j < 68) ||
			    (i == 1 && j >= 56 && j < 60))
				continue;
			expect_ep_decode(test, buf, j, 'a', -EINVAL);
			expect_ep_decode(test, buf, j, 0x80, -EINVAL);
		}
		set_tenant(&e, "tenant-A.1", 10);
		KUNIT_EXPECT_EQ_MSG(test, txrdma_ctrl_ep_encode(&e, 0, 0, buf),
				    -EINVAL, "type %u", e.type);
		set_tenant(&e, "", 0);
		e.tenant[TXRDMA_WIRE_TENANT_LEN - 1] = 1;
		KUNIT_EXPECT_EQ_MSG(test, txrdma_ctrl_ep_encode(&e, 0, 0, buf),
				    -EINVAL, "type %u", e.type);
	}
}

static void wire_ctrl_dispatch(struct kunit *test)
{
	struct txrdma_ctrl_msg m;
	struct txrdma_ctrl_ep e;
	u8 buf[TXRDMA_CTRL_LEN];
	int t;

	good_ctrl(&m);
	KUNIT_ASSERT_EQ(test, txrdma_ctrl_encode(&m, 5, buf), 0);
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_type(buf, sizeof(buf)),
			TXRDMA_CTRL_PROBE);
	/* a probe is not a pairing message */
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_ep_decode(&e, buf, sizeof(buf)),
			-EINVAL);
	/* the dispatcher knows 1..11 and nothing else */
	for (t = 0; t < 256; t++) {
		buf[5] = t;
		KUNIT_EXPECT_EQ_MSG(test, txrdma_ctrl_type(buf, sizeof(buf)),
				    t >= 1 && t <= 11 ? t : -EINVAL,
				    "type %d", t);
	}
	KUNIT_EXPECT_EQ(test, TXRDMA_CTRL_EP_RESUMED, 10);
	KUNIT_EXPECT_EQ(test, TXRDMA_CTRL_EP_HANDOFF, 11);
	KUNIT_EXPECT_EQ(test, TXRDMA_CTRL_PROBE, 1);
	KUNIT_EXPECT_EQ(test, TXRDMA_CTRL_AUTH, 8);
	buf[5] = TXRDMA_CTRL_PROBE;
	buf[0] ^= 1;
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_type(buf, sizeof(buf)), -EINVAL);
	buf[0] ^= 1;
	buf[4] = 1;
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_type(buf, sizeof(buf)), -EPROTO);
	buf[4] = TXRDMA_WIRE_VERSION;
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_type(buf, sizeof(buf)),
			TXRDMA_CTRL_PROBE);
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_type(buf, sizeof(buf) + 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_type(buf, sizeof(buf) - 1), -EINVAL);
	/* the probe decoder still refuses pairing messages */
	good_connect(&e);
	KUNIT_ASSERT_EQ(test, txrdma_ctrl_ep_encode(&e, 0, 0, buf), 0);
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_decode(&m, buf, sizeof(buf)),
			-EINVAL);
}

static struct kunit_case txrdma_peer_wire_cases[] = {
	KUNIT_CASE(wire_cm_sizes),
	KUNIT_CASE(wire_cm_req_layout),
	KUNIT_CASE(wire_cm_req_round_trip),
	KUNIT_CASE(wire_cm_req_rejects),
	KUNIT_CASE(wire_cm_rep_layout),
	KUNIT_CASE(wire_cm_rep_round_trip),
	KUNIT_CASE(wire_cm_rep_rejects),
	KUNIT_CASE(wire_cm_req_is_no_rep),
	KUNIT_CASE(wire_ctrl_layout),
	KUNIT_CASE(wire_ctrl_round_trip),
	KUNIT_CASE(wire_ctrl_decode_rejects),
	KUNIT_CASE(wire_ctrl_encode_rejects),
	KUNIT_CASE(wire_ctrl_seq),
	KUNIT_CASE(wire_auth_layout),
	KUNIT_CASE(wire_auth_rejects),
	KUNIT_CASE(rtt_sample_rejects),
	KUNIT_CASE(rtt_sample_normal),
	KUNIT_CASE(rtt_sample_clock_wrap),
	KUNIT_CASE(rtt_sample_over_wire),
	KUNIT_CASE(rtt_stats),
	KUNIT_CASE(rtt_stats_saturate),
	KUNIT_CASE(addr_order),
	KUNIT_CASE(wire_ep_layout),
	KUNIT_CASE(wire_ep_round_trip),
	KUNIT_CASE(wire_ep_rules),
	KUNIT_CASE(wire_ep_reserved),
	KUNIT_CASE(wire_ep_resume),
	KUNIT_CASE(wire_ep_resume_rules),
	KUNIT_CASE(wire_ep_handoff),
	KUNIT_CASE(wire_ep_grace),
	KUNIT_CASE(wire_ep_ahead_round_trip),
	KUNIT_CASE(wire_ep_ahead_limits),
	KUNIT_CASE(wire_ep_ahead_others),
	KUNIT_CASE(wire_ep_version),
	KUNIT_CASE(wire_ep_tenant_named),
	KUNIT_CASE(wire_ep_tenant_unnamed),
	KUNIT_CASE(wire_ctrl_dispatch),
	{}
};

static struct kunit_suite txrdma_peer_wire_suite = {
	.name = "txrdma_peer_wire",
	.test_cases = txrdma_peer_wire_cases,
};

kunit_test_suite(txrdma_peer_wire_suite);

MODULE_LICENSE("GPL");
