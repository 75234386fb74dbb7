// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite txrdma_bfd: the liveness state machine with an injected
 * clock.  Two sessions talk through encode/decode, as two hosts would,
 * and every transition, timer boundary and wire check is asserted.
 */
#include <kunit/test.h>
#include <linux/limits.h>
#include <linux/prandom.h>
#include <linux/string.h>
#include <linux/time64.h>

#include "../txrdma_bfd.h"

#define MS		(NSEC_PER_MSEC)
#define DISC_A		0x0a0a0a0aU
#define DISC_B		0x0b0b0b0bU
#define DISC_B2		0x0b0b0b0cU
/* a clock that does not start at 0 */
#define T0		(1000ULL * NSEC_PER_SEC + 12345)

/* Build a packet on @from, carry it over the wire to @to at @now. */
static u32 xfer(struct kunit *test, struct txrdma_bfd *from,
		struct txrdma_bfd *to, u64 now)
{
	struct txrdma_bfd_pkt p, q;
	u8 buf[TXRDMA_BFD_PKT_LEN];

	txrdma_bfd_build_tx(from, &p, now, 0);
	KUNIT_ASSERT_EQ(test, txrdma_bfd_encode(&p, buf), 0);
	KUNIT_ASSERT_EQ(test, txrdma_bfd_decode(&q, buf, sizeof(buf)), 0);
	KUNIT_ASSERT_EQ(test, memcmp(&p, &q, sizeof(p)), 0);
	return txrdma_bfd_rx(to, &q, now);
}

static void init_default(struct kunit *test, struct txrdma_bfd *s, u32 disc,
			 u64 now)
{
	struct txrdma_bfd_cfg cfg;

	txrdma_bfd_cfg_default(&cfg);
	KUNIT_ASSERT_EQ(test, txrdma_bfd_init(s, &cfg, disc, now), 0);
}

/* A and B with default parameters, Up at @now. */
static void bring_up(struct kunit *test, struct txrdma_bfd *a,
		     struct txrdma_bfd *b, u64 now)
{
	init_default(test, a, DISC_A, now);
	init_default(test, b, DISC_B, now);
	xfer(test, a, b, now);
	xfer(test, b, a, now);
	xfer(test, a, b, now);
	KUNIT_ASSERT_EQ(test, a->state, TXRDMA_BFD_UP);
	KUNIT_ASSERT_EQ(test, b->state, TXRDMA_BFD_UP);
}

static void good_pkt(struct txrdma_bfd_pkt *p)
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

static void bfd_cfg_check(struct kunit *test)
{
	struct txrdma_bfd_cfg cfg;
	const char *why = NULL;

	txrdma_bfd_cfg_default(&cfg);
	KUNIT_EXPECT_EQ(test, txrdma_bfd_cfg_check(&cfg, &why), 0);
	KUNIT_EXPECT_NULL(test, why);
	/* the defaults detect a dead peer within 100 ms */
	KUNIT_EXPECT_LE(test, (u64)cfg.detect_mult * cfg.required_min_rx_us,
			100000ULL);

	cfg.desired_min_tx_us = 999;
	KUNIT_EXPECT_EQ(test, txrdma_bfd_cfg_check(&cfg, &why), -EINVAL);
	KUNIT_EXPECT_STREQ(test, why, "BFD tx interval below 1 ms");
	cfg.desired_min_tx_us = 1000;
	KUNIT_EXPECT_EQ(test, txrdma_bfd_cfg_check(&cfg, NULL), 0);
	cfg.desired_min_tx_us = 60000001;
	KUNIT_EXPECT_EQ(test, txrdma_bfd_cfg_check(&cfg, &why), -EINVAL);
	KUNIT_EXPECT_STREQ(test, why, "BFD tx interval above 60 s");
	cfg.desired_min_tx_us = 60000000;
	KUNIT_EXPECT_EQ(test, txrdma_bfd_cfg_check(&cfg, NULL), 0);

	cfg.required_min_rx_us = 0;
	KUNIT_EXPECT_EQ(test, txrdma_bfd_cfg_check(&cfg, &why), -EINVAL);
	KUNIT_EXPECT_STREQ(test, why, "BFD rx interval below 1 ms");
	cfg.required_min_rx_us = U32_MAX;
	KUNIT_EXPECT_EQ(test, txrdma_bfd_cfg_check(&cfg, &why), -EINVAL);
	KUNIT_EXPECT_STREQ(test, why, "BFD rx interval above 60 s");
	cfg.required_min_rx_us = 1000;

	cfg.detect_mult = 0;
	KUNIT_EXPECT_EQ(test, txrdma_bfd_cfg_check(&cfg, &why), -EINVAL);
	KUNIT_EXPECT_STREQ(test, why, "BFD detect multiplier is 0");
	cfg.detect_mult = 51;
	KUNIT_EXPECT_EQ(test, txrdma_bfd_cfg_check(&cfg, &why), -EINVAL);
	KUNIT_EXPECT_STREQ(test, why, "BFD detect multiplier above 50");
	cfg.detect_mult = 50;
	KUNIT_EXPECT_EQ(test, txrdma_bfd_cfg_check(&cfg, NULL), 0);
	cfg.detect_mult = 1;
	KUNIT_EXPECT_EQ(test, txrdma_bfd_cfg_check(&cfg, NULL), 0);
}

static void bfd_wire_layout(struct kunit *test)
{
	static const u8 want[TXRDMA_BFD_PKT_LEN] = {
		0x23, 0xe0, 0x04, 0x18,
		0x01, 0x02, 0x03, 0x04,
		0xa1, 0xb2, 0xc3, 0xd4,
		0x00, 0x00, 0x4e, 0x20,
		0x00, 0xc0, 0xff, 0xee,
		0x00, 0x00, 0x00, 0x00,
	};
	struct txrdma_bfd_pkt p, q;
	u8 buf[TXRDMA_BFD_PKT_LEN + 8];

	good_pkt(&p);
	memset(buf, 0x5a, sizeof(buf));
	KUNIT_ASSERT_EQ(test, txrdma_bfd_encode(&p, buf), 0);
	KUNIT_EXPECT_EQ(test, memcmp(buf, want, sizeof(want)), 0);
	/* nothing written past the packet */
	KUNIT_EXPECT_EQ(test, buf[TXRDMA_BFD_PKT_LEN], 0x5a);

	/* round trip, with trailing padding in the received buffer */
	KUNIT_ASSERT_EQ(test, txrdma_bfd_decode(&q, buf, sizeof(buf)), 0);
	KUNIT_EXPECT_EQ(test, memcmp(&p, &q, sizeof(p)), 0);

	/* Final, AdminDown, your_disc 0, all-ones values survive too */
	p.flags = TXRDMA_BFD_PKT_FINAL | TXRDMA_BFD_PKT_CPI;
	p.state = TXRDMA_BFD_ADMIN_DOWN;
	p.diag = 31;
	p.your_disc = 0;
	p.my_disc = U32_MAX;
	p.detect_mult = 255;
	p.desired_min_tx_us = U32_MAX;
	p.required_min_rx_us = 1;
	KUNIT_ASSERT_EQ(test, txrdma_bfd_encode(&p, buf), 0);
	KUNIT_ASSERT_EQ(test, txrdma_bfd_decode(&q, buf, TXRDMA_BFD_PKT_LEN),
			0);
	KUNIT_EXPECT_EQ(test, memcmp(&p, &q, sizeof(p)), 0);
}

/* Decode @buf after @mutate changed one byte; expect @err. */
static void expect_decode(struct kunit *test, int idx, u8 val, int err)
{
	struct txrdma_bfd_pkt p, q;
	u8 buf[TXRDMA_BFD_PKT_LEN];

	good_pkt(&p);
	KUNIT_ASSERT_EQ(test, txrdma_bfd_encode(&p, buf), 0);
	buf[idx] = val;
	KUNIT_EXPECT_EQ_MSG(test, txrdma_bfd_decode(&q, buf, sizeof(buf)), err,
			    "byte %d = 0x%02x", idx, val);
}

static void bfd_decode_rejects(struct kunit *test)
{
	struct txrdma_bfd_pkt p, q;
	u8 buf[TXRDMA_BFD_PKT_LEN];

	good_pkt(&p);
	KUNIT_ASSERT_EQ(test, txrdma_bfd_encode(&p, buf), 0);
	KUNIT_EXPECT_EQ(test, txrdma_bfd_decode(&q, buf, 23), -EINVAL);
	KUNIT_EXPECT_EQ(test, txrdma_bfd_decode(&q, buf, 0), -EINVAL);

	/* version 0 and 2 (diag kept) */
	expect_decode(test, 0, 0x03, -EPROTO);
	expect_decode(test, 0, 0x43, -EPROTO);
	/* flags in byte 1 (state Up = 0xc0) */
	expect_decode(test, 1, 0xc0 | 0x04, -EPROTO);	/* auth */
	expect_decode(test, 1, 0xc0 | 0x02, -EPROTO);	/* demand */
	expect_decode(test, 1, 0xc0 | 0x01, -EINVAL);	/* multipoint */
	expect_decode(test, 1, 0xc0 | 0x30, -EINVAL);	/* poll + final */
	expect_decode(test, 1, 0xc0 | 0x08, 0);		/* cpi: fine */
	expect_decode(test, 1, 0xc0, 0);
	/* detect mult */
	expect_decode(test, 2, 0, -EINVAL);
	expect_decode(test, 2, 1, 0);
	/* length field */
	expect_decode(test, 3, 23, -EINVAL);
	expect_decode(test, 3, 25, -EINVAL);
	expect_decode(test, 3, 0, -EINVAL);
	expect_decode(test, 3, 255, -EINVAL);

	/* my_disc 0 */
	memset(buf + 4, 0, 4);
	KUNIT_EXPECT_EQ(test, txrdma_bfd_decode(&q, buf, sizeof(buf)), -EINVAL);

	/* your_disc 0: only in Down and AdminDown */
	KUNIT_ASSERT_EQ(test, txrdma_bfd_encode(&p, buf), 0);
	memset(buf + 8, 0, 4);
	KUNIT_EXPECT_EQ(test, txrdma_bfd_decode(&q, buf, sizeof(buf)), -EINVAL);
	buf[1] = TXRDMA_BFD_INIT << 6;
	KUNIT_EXPECT_EQ(test, txrdma_bfd_decode(&q, buf, sizeof(buf)), -EINVAL);
	buf[1] = TXRDMA_BFD_DOWN << 6;
	KUNIT_EXPECT_EQ(test, txrdma_bfd_decode(&q, buf, sizeof(buf)), 0);
	buf[1] = TXRDMA_BFD_ADMIN_DOWN << 6;
	KUNIT_EXPECT_EQ(test, txrdma_bfd_decode(&q, buf, sizeof(buf)), 0);

	/* desired tx 0 is reserved, required rx 0 is not supported */
	KUNIT_ASSERT_EQ(test, txrdma_bfd_encode(&p, buf), 0);
	memset(buf + 12, 0, 4);
	KUNIT_EXPECT_EQ(test, txrdma_bfd_decode(&q, buf, sizeof(buf)), -EINVAL);
	KUNIT_ASSERT_EQ(test, txrdma_bfd_encode(&p, buf), 0);
	memset(buf + 16, 0, 4);
	KUNIT_EXPECT_EQ(test, txrdma_bfd_decode(&q, buf, sizeof(buf)), -EPROTO);
	/* the echo interval is ignored */
	KUNIT_ASSERT_EQ(test, txrdma_bfd_encode(&p, buf), 0);
	memset(buf + 20, 0xff, 4);
	KUNIT_EXPECT_EQ(test, txrdma_bfd_decode(&q, buf, sizeof(buf)), 0);
}

/* encode refuses what decode would refuse: we never send garbage */
static void bfd_encode_rejects(struct kunit *test)
{
	struct txrdma_bfd_pkt p;
	u8 buf[TXRDMA_BFD_PKT_LEN];

	good_pkt(&p);
	p.version = 2;
	KUNIT_EXPECT_EQ(test, txrdma_bfd_encode(&p, buf), -EPROTO);
	good_pkt(&p);
	p.state = 4;
	KUNIT_EXPECT_EQ(test, txrdma_bfd_encode(&p, buf), -EINVAL);
	good_pkt(&p);
	p.diag = 32;
	KUNIT_EXPECT_EQ(test, txrdma_bfd_encode(&p, buf), -EINVAL);
	good_pkt(&p);
	p.flags = 0x40;
	KUNIT_EXPECT_EQ(test, txrdma_bfd_encode(&p, buf), -EINVAL);
	good_pkt(&p);
	p.detect_mult = 0;
	KUNIT_EXPECT_EQ(test, txrdma_bfd_encode(&p, buf), -EINVAL);
}

static void bfd_init_state(struct kunit *test)
{
	struct txrdma_bfd_cfg cfg;
	struct txrdma_bfd s;

	txrdma_bfd_cfg_default(&cfg);
	KUNIT_EXPECT_EQ(test, txrdma_bfd_init(&s, &cfg, 0, T0), -EINVAL);
	cfg.detect_mult = 0;
	KUNIT_EXPECT_EQ(test, txrdma_bfd_init(&s, &cfg, DISC_A, T0), -EINVAL);
	cfg.detect_mult = 4;
	KUNIT_ASSERT_EQ(test, txrdma_bfd_init(&s, &cfg, DISC_A, T0), 0);
	KUNIT_EXPECT_EQ(test, s.state, TXRDMA_BFD_DOWN);
	KUNIT_EXPECT_EQ(test, s.diag, TXRDMA_BFD_DIAG_NONE);
	KUNIT_EXPECT_EQ(test, s.remote_disc, 0U);
	/* before hearing the peer: our own interval, first packet now */
	KUNIT_EXPECT_EQ(test, s.tx_interval_ns, 20 * MS);
	KUNIT_EXPECT_EQ(test, txrdma_bfd_next_deadline(&s), T0);
	KUNIT_EXPECT_EQ(test, txrdma_bfd_tick(&s, T0), TXRDMA_BFD_EV_TX_NOW);
	/* nothing heard, nothing to time out, however long we wait */
	KUNIT_EXPECT_EQ(test, txrdma_bfd_tick(&s, T0 + 3600 * NSEC_PER_SEC),
			TXRDMA_BFD_EV_TX_NOW);
	KUNIT_EXPECT_EQ(test, s.state, TXRDMA_BFD_DOWN);
}

/* A speaks first: B Down->Init, A Down->Up, B Init->Up */
static void bfd_handshake(struct kunit *test)
{
	struct txrdma_bfd a, b;
	struct txrdma_bfd_pkt p;
	u64 t = T0;

	init_default(test, &a, DISC_A, t);
	init_default(test, &b, DISC_B, t);

	txrdma_bfd_build_tx(&a, &p, t, 0);
	KUNIT_EXPECT_EQ(test, p.state, TXRDMA_BFD_DOWN);
	KUNIT_EXPECT_EQ(test, p.your_disc, 0U);
	KUNIT_EXPECT_EQ(test, p.my_disc, DISC_A);
	KUNIT_EXPECT_EQ(test, p.flags, 0);
	KUNIT_EXPECT_EQ(test, txrdma_bfd_rx(&b, &p, t), TXRDMA_BFD_EV_STATE);
	KUNIT_EXPECT_EQ(test, b.state, TXRDMA_BFD_INIT);
	KUNIT_EXPECT_EQ(test, b.remote_disc, DISC_A);

	t += 5 * MS;
	txrdma_bfd_build_tx(&b, &p, t, 0);
	KUNIT_EXPECT_EQ(test, p.state, TXRDMA_BFD_INIT);
	KUNIT_EXPECT_EQ(test, p.your_disc, DISC_A);
	KUNIT_EXPECT_EQ(test, txrdma_bfd_rx(&a, &p, t),
			TXRDMA_BFD_EV_STATE | TXRDMA_BFD_EV_UP);
	KUNIT_EXPECT_EQ(test, a.state, TXRDMA_BFD_UP);

	t += 5 * MS;
	KUNIT_EXPECT_EQ(test, xfer(test, &a, &b, t),
			TXRDMA_BFD_EV_STATE | TXRDMA_BFD_EV_UP);
	KUNIT_EXPECT_EQ(test, b.state, TXRDMA_BFD_UP);
	/* steady state: nothing changes */
	KUNIT_EXPECT_EQ(test, xfer(test, &b, &a, t), 0U);
	KUNIT_EXPECT_EQ(test, xfer(test, &a, &b, t), 0U);
	KUNIT_EXPECT_EQ(test, a.remote_state, TXRDMA_BFD_UP);
	KUNIT_EXPECT_EQ(test, a.diag, TXRDMA_BFD_DIAG_NONE);
	KUNIT_EXPECT_EQ(test, a.rx_pkts, 2ULL);
	KUNIT_EXPECT_EQ(test, b.rx_pkts, 3ULL);
}

/* Both speak first: both Down->Init, then Init->Up on remote Init */
static void bfd_handshake_crossed(struct kunit *test)
{
	struct txrdma_bfd a, b;
	struct txrdma_bfd_pkt pa, pb;

	init_default(test, &a, DISC_A, T0);
	init_default(test, &b, DISC_B, T0);
	txrdma_bfd_build_tx(&a, &pa, T0, 0);
	txrdma_bfd_build_tx(&b, &pb, T0, 0);
	txrdma_bfd_rx(&a, &pb, T0);
	txrdma_bfd_rx(&b, &pa, T0);
	KUNIT_EXPECT_EQ(test, a.state, TXRDMA_BFD_INIT);
	KUNIT_EXPECT_EQ(test, b.state, TXRDMA_BFD_INIT);
	txrdma_bfd_build_tx(&a, &pa, T0 + MS, 0);
	txrdma_bfd_build_tx(&b, &pb, T0 + MS, 0);
	KUNIT_EXPECT_EQ(test, txrdma_bfd_rx(&a, &pb, T0 + MS),
			TXRDMA_BFD_EV_STATE | TXRDMA_BFD_EV_UP);
	KUNIT_EXPECT_EQ(test, txrdma_bfd_rx(&b, &pa, T0 + MS),
			TXRDMA_BFD_EV_STATE | TXRDMA_BFD_EV_UP);
	/* Init stays Init on a remote Down (its old packet) */
	init_default(test, &a, DISC_A, T0);
	a.state = TXRDMA_BFD_INIT;
	a.remote_disc = DISC_B;
	txrdma_bfd_build_tx(&b, &pb, T0, 0);
	pb.state = TXRDMA_BFD_DOWN;
	KUNIT_EXPECT_EQ(test, txrdma_bfd_rx(&a, &pb, T0), 0U);
	KUNIT_EXPECT_EQ(test, a.state, TXRDMA_BFD_INIT);
	/* Down ignores a remote Up: the peer must see us Down first */
	init_default(test, &a, DISC_A, T0);
	pb.state = TXRDMA_BFD_UP;
	KUNIT_EXPECT_EQ(test, txrdma_bfd_rx(&a, &pb, T0), 0U);
	KUNIT_EXPECT_EQ(test, a.state, TXRDMA_BFD_DOWN);
}

static void bfd_detect_boundary(struct kunit *test)
{
	struct txrdma_bfd a, b;
	u64 t = T0 + 7;
	u32 ev;

	bring_up(test, &a, &b, T0);
	xfer(test, &b, &a, t);
	KUNIT_EXPECT_EQ(test, a.detect_ns, 80 * MS);
	KUNIT_EXPECT_EQ(test, a.last_rx_ns, t);
	ev = txrdma_bfd_tick(&a, t + 80 * MS - 1);
	KUNIT_EXPECT_FALSE(test, ev & TXRDMA_BFD_EV_TIMEOUT);
	KUNIT_EXPECT_EQ(test, a.state, TXRDMA_BFD_UP);
	ev = txrdma_bfd_tick(&a, t + 80 * MS);
	KUNIT_EXPECT_EQ(test, ev, TXRDMA_BFD_EV_TIMEOUT | TXRDMA_BFD_EV_STATE |
			TXRDMA_BFD_EV_DOWN | TXRDMA_BFD_EV_TX_NOW);
	KUNIT_EXPECT_EQ(test, a.state, TXRDMA_BFD_DOWN);
	KUNIT_EXPECT_EQ(test, a.diag, TXRDMA_BFD_DIAG_DETECT_EXPIRED);
	/* the peer is forgotten: the next packet does not name it */
	KUNIT_EXPECT_EQ(test, a.remote_disc, 0U);
	/* expiry fires once */
	KUNIT_EXPECT_EQ(test, txrdma_bfd_tick(&a, t + 80 * MS),
			TXRDMA_BFD_EV_TX_NOW);
	/* B hears A's Down with the diag and goes Down too */
	KUNIT_EXPECT_EQ(test, xfer(test, &a, &b, t + 80 * MS),
			TXRDMA_BFD_EV_STATE | TXRDMA_BFD_EV_DOWN);
	KUNIT_EXPECT_EQ(test, b.remote_diag, TXRDMA_BFD_DIAG_DETECT_EXPIRED);
	KUNIT_EXPECT_EQ(test, b.diag, TXRDMA_BFD_DIAG_NEIGHBOR_DOWN);
}

/* Packets keep the session alive: each one restarts the detection time */
/* Our own stall is not the peer's silence; a real death still shows. */
static void bfd_excuse_stall(struct kunit *test)
{
	struct txrdma_bfd a, b;
	u64 t = T0 + 3;

	bring_up(test, &a, &b, T0);
	xfer(test, &b, &a, t);
	/* we ran 100 ms late: without the excuse this tick would expire */
	txrdma_bfd_excuse_stall(&a, t + 100 * MS, 100 * MS);
	KUNIT_EXPECT_EQ(test, a.last_rx_ns, t + 100 * MS);
	KUNIT_EXPECT_EQ(test, a.stalls, 1U);
	KUNIT_EXPECT_FALSE(test, txrdma_bfd_tick(&a, t + 100 * MS) &
			   TXRDMA_BFD_EV_TIMEOUT);
	KUNIT_EXPECT_EQ(test, a.state, TXRDMA_BFD_UP);
	/* the peer stays silent: Down one detection time after we resumed */
	KUNIT_EXPECT_FALSE(test, txrdma_bfd_tick(&a, t + 180 * MS - 1) &
			   TXRDMA_BFD_EV_TIMEOUT);
	KUNIT_EXPECT_TRUE(test, txrdma_bfd_tick(&a, t + 180 * MS) &
			  TXRDMA_BFD_EV_DOWN);
	/* never pushed past now, whatever the claimed stall */
	bring_up(test, &a, &b, T0);
	xfer(test, &b, &a, t);
	txrdma_bfd_excuse_stall(&a, t + 10 * MS, 500 * MS);
	KUNIT_EXPECT_EQ(test, a.last_rx_ns, t + 10 * MS);
	/* nothing to excuse before the peer was ever heard */
	init_default(test, &a, DISC_A, T0);
	txrdma_bfd_excuse_stall(&a, T0 + 50 * MS, 50 * MS);
	KUNIT_EXPECT_EQ(test, a.last_rx_ns, T0);
	KUNIT_EXPECT_EQ(test, a.stalls, 0U);
}

static void bfd_detect_refresh_and_init(struct kunit *test)
{
	struct txrdma_bfd a, b;
	u64 t = T0;
	int i;

	bring_up(test, &a, &b, T0);
	for (i = 0; i < 100; i++) {
		t += 79 * MS;
		KUNIT_EXPECT_FALSE(test, txrdma_bfd_tick(&a, t) &
				   TXRDMA_BFD_EV_TIMEOUT);
		xfer(test, &b, &a, t);
	}
	KUNIT_EXPECT_EQ(test, a.state, TXRDMA_BFD_UP);

	/* Init times out too */
	init_default(test, &a, DISC_A, T0);
	init_default(test, &b, DISC_B, T0);
	xfer(test, &b, &a, T0);
	KUNIT_ASSERT_EQ(test, a.state, TXRDMA_BFD_INIT);
	KUNIT_EXPECT_EQ(test, txrdma_bfd_tick(&a, T0 + 80 * MS),
			TXRDMA_BFD_EV_TIMEOUT | TXRDMA_BFD_EV_STATE |
			TXRDMA_BFD_EV_TX_NOW);
	KUNIT_EXPECT_EQ(test, a.state, TXRDMA_BFD_DOWN);
	KUNIT_EXPECT_EQ(test, a.diag, TXRDMA_BFD_DIAG_DETECT_EXPIRED);

	/* Down times out silently, forgetting the peer's discriminator */
	init_default(test, &a, DISC_A, T0);
	xfer(test, &b, &a, T0);
	a.state = TXRDMA_BFD_DOWN;
	KUNIT_EXPECT_EQ(test, txrdma_bfd_tick(&a, T0 + 80 * MS),
			TXRDMA_BFD_EV_TIMEOUT | TXRDMA_BFD_EV_TX_NOW);
	KUNIT_EXPECT_EQ(test, a.remote_disc, 0U);
	KUNIT_EXPECT_EQ(test, a.diag, TXRDMA_BFD_DIAG_NONE);
}

static void bfd_remote_down(struct kunit *test)
{
	struct txrdma_bfd a, b;
	struct txrdma_bfd_pkt p;

	bring_up(test, &a, &b, T0);
	txrdma_bfd_build_tx(&b, &p, T0, 0);
	p.state = TXRDMA_BFD_DOWN;
	KUNIT_EXPECT_EQ(test, txrdma_bfd_rx(&a, &p, T0 + MS),
			TXRDMA_BFD_EV_STATE | TXRDMA_BFD_EV_DOWN);
	KUNIT_EXPECT_EQ(test, a.state, TXRDMA_BFD_DOWN);
	KUNIT_EXPECT_EQ(test, a.diag, TXRDMA_BFD_DIAG_NEIGHBOR_DOWN);
	/* the next Down from the peer starts the handshake again */
	KUNIT_EXPECT_EQ(test, txrdma_bfd_rx(&a, &p, T0 + 2 * MS),
			TXRDMA_BFD_EV_STATE);
	KUNIT_EXPECT_EQ(test, a.state, TXRDMA_BFD_INIT);
}

static void bfd_remote_admin_down(struct kunit *test)
{
	struct txrdma_bfd a, b;
	struct txrdma_bfd_pkt p;
	u64 t = T0;

	bring_up(test, &a, &b, t);
	KUNIT_EXPECT_EQ(test, txrdma_bfd_admin_down(&b, t),
			TXRDMA_BFD_EV_STATE | TXRDMA_BFD_EV_DOWN);
	txrdma_bfd_build_tx(&b, &p, t, 0);
	KUNIT_EXPECT_EQ(test, p.state, TXRDMA_BFD_ADMIN_DOWN);
	KUNIT_EXPECT_EQ(test, p.diag, TXRDMA_BFD_DIAG_ADMIN_DOWN);
	KUNIT_EXPECT_EQ(test, txrdma_bfd_rx(&a, &p, t),
			TXRDMA_BFD_EV_STATE | TXRDMA_BFD_EV_DOWN);
	KUNIT_EXPECT_EQ(test, a.state, TXRDMA_BFD_DOWN);
	KUNIT_EXPECT_EQ(test, a.diag, TXRDMA_BFD_DIAG_NEIGHBOR_DOWN);
	KUNIT_EXPECT_EQ(test, a.remote_diag, TXRDMA_BFD_DIAG_ADMIN_DOWN);
	/* more AdminDown packets: Down stays Down, no Init */
	KUNIT_EXPECT_EQ(test, txrdma_bfd_rx(&a, &p, t + MS), 0U);
	KUNIT_EXPECT_EQ(test, a.state, TXRDMA_BFD_DOWN);
	/* from Init, too */
	a.state = TXRDMA_BFD_INIT;
	KUNIT_EXPECT_EQ(test, txrdma_bfd_rx(&a, &p, t + MS),
			TXRDMA_BFD_EV_STATE);
	KUNIT_EXPECT_EQ(test, a.state, TXRDMA_BFD_DOWN);

	/* B back up: the handshake completes again */
	t += 10 * MS;
	KUNIT_EXPECT_EQ(test, txrdma_bfd_admin_up(&b, t),
			TXRDMA_BFD_EV_STATE | TXRDMA_BFD_EV_TX_NOW);
	xfer(test, &b, &a, t);
	KUNIT_EXPECT_EQ(test, a.state, TXRDMA_BFD_INIT);
	xfer(test, &a, &b, t);
	xfer(test, &b, &a, t);
	KUNIT_EXPECT_EQ(test, a.state, TXRDMA_BFD_UP);
	KUNIT_EXPECT_EQ(test, b.state, TXRDMA_BFD_UP);
}

static void bfd_local_admin(struct kunit *test)
{
	struct txrdma_bfd a, b;
	struct txrdma_bfd_pkt p;
	u64 t = T0;
	u32 ev;

	bring_up(test, &a, &b, t);
	KUNIT_EXPECT_EQ(test, txrdma_bfd_admin_down(&a, t),
			TXRDMA_BFD_EV_STATE | TXRDMA_BFD_EV_DOWN);
	KUNIT_EXPECT_EQ(test, a.state, TXRDMA_BFD_ADMIN_DOWN);
	KUNIT_EXPECT_EQ(test, a.diag, TXRDMA_BFD_DIAG_ADMIN_DOWN);
	KUNIT_EXPECT_EQ(test, txrdma_bfd_admin_down(&a, t), 0U);
	/* packets are ignored, polls unanswered, nothing times out */
	txrdma_bfd_build_tx(&b, &p, t, 0);
	p.flags = TXRDMA_BFD_PKT_POLL;
	KUNIT_EXPECT_EQ(test, txrdma_bfd_rx(&a, &p, t), 0U);
	KUNIT_EXPECT_EQ(test, a.state, TXRDMA_BFD_ADMIN_DOWN);
	ev = txrdma_bfd_tick(&a, t + 10 * NSEC_PER_SEC);
	KUNIT_EXPECT_FALSE(test, ev & TXRDMA_BFD_EV_STATE);
	KUNIT_EXPECT_EQ(test, a.state, TXRDMA_BFD_ADMIN_DOWN);
	/* but it keeps telling the peer, periodically */
	KUNIT_EXPECT_TRUE(test, ev & TXRDMA_BFD_EV_TX_NOW);
	txrdma_bfd_build_tx(&a, &p, t, 0);
	KUNIT_EXPECT_EQ(test, p.flags, 0);
	KUNIT_EXPECT_EQ(test, p.state, TXRDMA_BFD_ADMIN_DOWN);

	t += 20 * NSEC_PER_SEC;
	KUNIT_EXPECT_EQ(test, txrdma_bfd_admin_up(&a, t),
			TXRDMA_BFD_EV_STATE | TXRDMA_BFD_EV_TX_NOW);
	KUNIT_EXPECT_EQ(test, a.state, TXRDMA_BFD_DOWN);
	KUNIT_EXPECT_EQ(test, a.diag, TXRDMA_BFD_DIAG_NONE);
	KUNIT_EXPECT_EQ(test, txrdma_bfd_next_deadline(&a), t);
	KUNIT_EXPECT_EQ(test, txrdma_bfd_admin_up(&a, t), 0U);
	/* B timed out meanwhile; both converge again */
	KUNIT_EXPECT_TRUE(test, txrdma_bfd_tick(&b, t) & TXRDMA_BFD_EV_TIMEOUT);
	xfer(test, &a, &b, t);
	xfer(test, &b, &a, t);
	xfer(test, &a, &b, t);
	KUNIT_EXPECT_EQ(test, a.state, TXRDMA_BFD_UP);
	KUNIT_EXPECT_EQ(test, b.state, TXRDMA_BFD_UP);
}

/* B restarts with a new discriminator while A is Up */
static void bfd_peer_restart(struct kunit *test)
{
	struct txrdma_bfd a, b, b2;
	u64 t = T0;
	u32 ev;

	bring_up(test, &a, &b, t);
	t += 30 * MS;
	init_default(test, &b2, DISC_B2, t);
	/* A's packet names the old B: the new one drops it */
	KUNIT_EXPECT_EQ(test, xfer(test, &a, &b2, t), TXRDMA_BFD_EV_DROP);
	KUNIT_EXPECT_EQ(test, b2.state, TXRDMA_BFD_DOWN);
	KUNIT_EXPECT_EQ(test, b2.rx_dropped, 1ULL);
	/* the new B's Down: A goes Down, then proceeds to Init */
	ev = xfer(test, &b2, &a, t);
	KUNIT_EXPECT_EQ(test, ev, TXRDMA_BFD_EV_RESTART | TXRDMA_BFD_EV_STATE |
			TXRDMA_BFD_EV_DOWN);
	KUNIT_EXPECT_EQ(test, a.state, TXRDMA_BFD_INIT);
	KUNIT_EXPECT_EQ(test, a.diag, TXRDMA_BFD_DIAG_NEIGHBOR_DOWN);
	KUNIT_EXPECT_EQ(test, a.remote_disc, DISC_B2);
	KUNIT_EXPECT_EQ(test, a.restarts, 1U);
	/* re-converge */
	KUNIT_EXPECT_EQ(test, xfer(test, &a, &b2, t),
			TXRDMA_BFD_EV_STATE | TXRDMA_BFD_EV_UP);
	KUNIT_EXPECT_EQ(test, xfer(test, &b2, &a, t),
			TXRDMA_BFD_EV_STATE | TXRDMA_BFD_EV_UP);
	KUNIT_EXPECT_EQ(test, a.diag, TXRDMA_BFD_DIAG_NONE);

	/* a new discriminator while Init is a restart too */
	init_default(test, &a, DISC_A, t);
	init_default(test, &b, DISC_B, t);
	xfer(test, &b, &a, t);
	KUNIT_ASSERT_EQ(test, a.state, TXRDMA_BFD_INIT);
	init_default(test, &b2, DISC_B2, t);
	KUNIT_EXPECT_EQ(test, xfer(test, &b2, &a, t),
			TXRDMA_BFD_EV_RESTART | TXRDMA_BFD_EV_STATE);
	KUNIT_EXPECT_EQ(test, a.state, TXRDMA_BFD_INIT);
	KUNIT_EXPECT_EQ(test, a.remote_disc, DISC_B2);

	/* while Down a new discriminator is simply adopted */
	init_default(test, &a, DISC_A, t);
	xfer(test, &b, &a, t);
	a.state = TXRDMA_BFD_DOWN;
	b2.state = TXRDMA_BFD_ADMIN_DOWN;
	KUNIT_EXPECT_EQ(test, xfer(test, &b2, &a, t), 0U);
	KUNIT_EXPECT_EQ(test, a.remote_disc, DISC_B2);
	KUNIT_EXPECT_EQ(test, a.restarts, 0U);
}

static void bfd_wrong_disc_dropped(struct kunit *test)
{
	struct txrdma_bfd a, b;
	struct txrdma_bfd_pkt p;
	u64 t = T0 + 10 * MS;

	bring_up(test, &a, &b, T0);
	txrdma_bfd_build_tx(&b, &p, t, 0);
	p.your_disc = DISC_A + 1;
	p.state = TXRDMA_BFD_DOWN;
	KUNIT_EXPECT_EQ(test, txrdma_bfd_rx(&a, &p, t), TXRDMA_BFD_EV_DROP);
	KUNIT_EXPECT_EQ(test, a.state, TXRDMA_BFD_UP);
	KUNIT_EXPECT_EQ(test, a.rx_dropped, 1ULL);
	/* a dropped packet does not keep the session alive */
	KUNIT_EXPECT_EQ(test, a.last_rx_ns, T0);
	KUNIT_EXPECT_TRUE(test, txrdma_bfd_tick(&a, T0 + 80 * MS) &
			  TXRDMA_BFD_EV_TIMEOUT);
	/* nor does an invalid one handed to rx directly */
	bring_up(test, &a, &b, T0);
	txrdma_bfd_build_tx(&b, &p, t, 0);
	p.detect_mult = 0;
	KUNIT_EXPECT_EQ(test, txrdma_bfd_rx(&a, &p, t), TXRDMA_BFD_EV_DROP);
	KUNIT_EXPECT_EQ(test, a.last_rx_ns, T0);
}

static void bfd_interval_negotiation(struct kunit *test)
{
	struct txrdma_bfd_cfg ca = { 20000, 20000, 4 };
	struct txrdma_bfd_cfg cb = { 50000, 30000, 3 };
	struct txrdma_bfd a, b;

	KUNIT_ASSERT_EQ(test, txrdma_bfd_init(&a, &ca, DISC_A, T0), 0);
	KUNIT_ASSERT_EQ(test, txrdma_bfd_init(&b, &cb, DISC_B, T0), 0);
	KUNIT_EXPECT_EQ(test, a.tx_interval_ns, 20 * MS);
	KUNIT_EXPECT_EQ(test, b.tx_interval_ns, 50 * MS);
	xfer(test, &a, &b, T0);
	xfer(test, &b, &a, T0);
	/* A sends no faster than B takes; B no faster than it wants */
	KUNIT_EXPECT_EQ(test, a.tx_interval_ns, 30 * MS);
	KUNIT_EXPECT_EQ(test, b.tx_interval_ns, 50 * MS);
	/* detection: the peer's multiplier x the slower of the two rates */
	KUNIT_EXPECT_EQ(test, a.detect_ns, 3 * 50 * MS);
	KUNIT_EXPECT_EQ(test, b.detect_ns, 4 * 30 * MS);
	/* the same while not Up: no 1 s slow rate (see design.rst) */
	KUNIT_EXPECT_EQ(test, a.state, TXRDMA_BFD_UP);
	KUNIT_EXPECT_EQ(test, b.state, TXRDMA_BFD_INIT);
}

static void bfd_poll_sequence(struct kunit *test)
{
	struct txrdma_bfd_cfg ca = { 20000, 20000, 4 };
	struct txrdma_bfd_cfg cb = { 5000, 20000, 4 };
	struct txrdma_bfd_cfg slower = { 40000, 10000, 4 };
	struct txrdma_bfd a, b;
	struct txrdma_bfd_pkt p;
	u64 t = T0;

	KUNIT_ASSERT_EQ(test, txrdma_bfd_init(&a, &ca, DISC_A, t), 0);
	KUNIT_ASSERT_EQ(test, txrdma_bfd_init(&b, &cb, DISC_B, t), 0);
	xfer(test, &a, &b, t);
	xfer(test, &b, &a, t);
	xfer(test, &a, &b, t);
	KUNIT_ASSERT_EQ(test, a.state, TXRDMA_BFD_UP);
	KUNIT_EXPECT_EQ(test, a.tx_interval_ns, 20 * MS);
	KUNIT_EXPECT_EQ(test, a.detect_ns, 80 * MS);
	KUNIT_EXPECT_EQ(test, b.tx_interval_ns, 20 * MS);

	/* A: send slower (waits), ask B to send faster (detection waits) */
	KUNIT_ASSERT_EQ(test, txrdma_bfd_set_cfg(&a, &slower, t, NULL), 0);
	KUNIT_EXPECT_TRUE(test, a.flags & TXRDMA_BFD_S_POLL);
	KUNIT_EXPECT_EQ(test, a.tx_interval_ns, 20 * MS);
	KUNIT_EXPECT_EQ(test, a.detect_ns, 80 * MS);
	txrdma_bfd_build_tx(&a, &p, t, 0);
	KUNIT_EXPECT_EQ(test, p.flags, TXRDMA_BFD_PKT_POLL);
	KUNIT_EXPECT_EQ(test, p.desired_min_tx_us, 40000U);
	KUNIT_EXPECT_EQ(test, p.required_min_rx_us, 10000U);
	/* B applies what it hears at once and answers with a Final */
	KUNIT_EXPECT_EQ(test, txrdma_bfd_rx(&b, &p, t), TXRDMA_BFD_EV_TX_NOW);
	KUNIT_EXPECT_EQ(test, b.tx_interval_ns, 10 * MS);
	KUNIT_EXPECT_EQ(test, b.detect_ns, 4 * 40 * MS);
	/* a lost Final: A keeps polling */
	txrdma_bfd_build_tx(&a, &p, t, 0);
	KUNIT_EXPECT_EQ(test, p.flags, TXRDMA_BFD_PKT_POLL);
	KUNIT_EXPECT_EQ(test, xfer(test, &b, &a, t), TXRDMA_BFD_EV_POLL_DONE);
	KUNIT_EXPECT_FALSE(test, a.flags & TXRDMA_BFD_S_POLL);
	KUNIT_EXPECT_EQ(test, a.tx_interval_ns, 40 * MS);
	KUNIT_EXPECT_EQ(test, a.detect_ns, 4 * 10 * MS);
	/* B's next packet is plain again, and so is A's */
	txrdma_bfd_build_tx(&b, &p, t, 0);
	KUNIT_EXPECT_EQ(test, p.flags, 0);
	txrdma_bfd_build_tx(&a, &p, t, 0);
	KUNIT_EXPECT_EQ(test, p.flags, 0);
	/* a stray Final without a poll changes nothing */
	txrdma_bfd_build_tx(&b, &p, t, 0);
	p.flags = TXRDMA_BFD_PKT_FINAL;
	KUNIT_EXPECT_EQ(test, txrdma_bfd_rx(&a, &p, t), 0U);

	/* the other way: faster tx and a longer detection apply at once */
	KUNIT_ASSERT_EQ(test, txrdma_bfd_set_cfg(&a, &ca, t, NULL), 0);
	ca.desired_min_tx_us = 10000;
	ca.required_min_rx_us = 50000;
	xfer(test, &a, &b, t);	/* Poll */
	xfer(test, &b, &a, t);	/* Final */
	KUNIT_ASSERT_FALSE(test, a.flags & TXRDMA_BFD_S_POLL);
	KUNIT_ASSERT_EQ(test, txrdma_bfd_set_cfg(&a, &ca, t, NULL), 0);
	KUNIT_EXPECT_TRUE(test, a.flags & TXRDMA_BFD_S_POLL);
	KUNIT_EXPECT_EQ(test, a.tx_interval_ns, 20 * MS);	/* B's rx */
	KUNIT_EXPECT_EQ(test, a.detect_ns, 4 * 50 * MS);
}

static void bfd_poll_edge_cases(struct kunit *test)
{
	struct txrdma_bfd_cfg c1 = { 30000, 30000, 4 };
	struct txrdma_bfd_cfg c2 = { 40000, 40000, 5 };
	struct txrdma_bfd_cfg bad = { 40000, 40000, 0 };
	struct txrdma_bfd a, b;
	struct txrdma_bfd_pkt p;
	const char *why = NULL;
	u64 t = T0;

	bring_up(test, &a, &b, t);
	KUNIT_EXPECT_EQ(test, txrdma_bfd_set_cfg(&a, &bad, t, &why), -EINVAL);
	KUNIT_EXPECT_STREQ(test, why, "BFD detect multiplier is 0");
	KUNIT_EXPECT_FALSE(test, a.flags & TXRDMA_BFD_S_POLL);

	/* a change during a poll waits for a poll of its own */
	KUNIT_ASSERT_EQ(test, txrdma_bfd_set_cfg(&a, &c1, t, NULL), 0);
	KUNIT_ASSERT_EQ(test, txrdma_bfd_set_cfg(&a, &c2, t, NULL), 0);
	KUNIT_EXPECT_TRUE(test, a.flags & TXRDMA_BFD_S_QUEUED);
	txrdma_bfd_build_tx(&a, &p, t, 0);
	KUNIT_EXPECT_EQ(test, p.desired_min_tx_us, 30000U);
	KUNIT_EXPECT_EQ(test, p.detect_mult, 5);	/* at once */
	txrdma_bfd_rx(&b, &p, t);

	/* B polls A too: A's answer is Final alone, its Poll follows */
	KUNIT_ASSERT_EQ(test, txrdma_bfd_set_cfg(&b, &c1, t, NULL), 0);
	xfer(test, &b, &a, t);	/* B's packet: Final for A, not Poll */
	KUNIT_EXPECT_TRUE(test, a.flags & TXRDMA_BFD_S_POLL);	/* c2 poll */
	KUNIT_EXPECT_FALSE(test, a.flags & TXRDMA_BFD_S_QUEUED);
	KUNIT_EXPECT_EQ(test, a.tx_interval_ns, 30 * MS);
	KUNIT_EXPECT_EQ(test, xfer(test, &b, &a, t), TXRDMA_BFD_EV_TX_NOW);
	txrdma_bfd_build_tx(&a, &p, t, 0);
	KUNIT_EXPECT_EQ(test, p.flags, TXRDMA_BFD_PKT_FINAL);
	txrdma_bfd_rx(&b, &p, t);
	KUNIT_EXPECT_FALSE(test, b.flags & TXRDMA_BFD_S_POLL);
	txrdma_bfd_build_tx(&a, &p, t, 0);
	KUNIT_EXPECT_EQ(test, p.flags, TXRDMA_BFD_PKT_POLL);
	KUNIT_EXPECT_EQ(test, p.desired_min_tx_us, 40000U);
	txrdma_bfd_rx(&b, &p, t);
	KUNIT_EXPECT_EQ(test, xfer(test, &b, &a, t), TXRDMA_BFD_EV_POLL_DONE);
	KUNIT_EXPECT_EQ(test, a.tx_interval_ns, 40 * MS);

	/* going Down ends a poll and applies everything, queued included */
	KUNIT_ASSERT_EQ(test, txrdma_bfd_set_cfg(&a, &c1, t, NULL), 0);
	KUNIT_ASSERT_EQ(test, txrdma_bfd_set_cfg(&a, &c2, t, NULL), 0);
	txrdma_bfd_admin_down(&a, t);
	KUNIT_EXPECT_FALSE(test, a.flags &
			   (TXRDMA_BFD_S_POLL | TXRDMA_BFD_S_QUEUED));
	KUNIT_EXPECT_EQ(test, a.cfg.desired_min_tx_us, 40000U);
	KUNIT_EXPECT_EQ(test, a.eff_tx_us, 40000U);
	/* not Up: a change applies at once, without a poll */
	KUNIT_ASSERT_EQ(test, txrdma_bfd_set_cfg(&a, &c1, t, NULL), 0);
	KUNIT_EXPECT_FALSE(test, a.flags & TXRDMA_BFD_S_POLL);
	KUNIT_EXPECT_EQ(test, a.eff_tx_us, 30000U);
	KUNIT_EXPECT_EQ(test, a.eff_rx_us, 30000U);
}

static void bfd_jitter_bounds(struct kunit *test)
{
	struct rnd_state rnd;
	struct txrdma_bfd a;
	struct txrdma_bfd_pkt p;
	u64 iv = 20 * MS, j;
	int i;

	KUNIT_EXPECT_EQ(test, txrdma_bfd_jitter_ns(iv, 4, 0), 15 * MS);
	j = txrdma_bfd_jitter_ns(iv, 4, U32_MAX);
	KUNIT_EXPECT_LT(test, j, iv);
	KUNIT_EXPECT_GE(test, j, iv - 1);
	KUNIT_EXPECT_EQ(test, txrdma_bfd_jitter_ns(iv, 4, 1U << 31),
			17500 * NSEC_PER_USEC);
	/* multiplier 1: at most 90 % */
	KUNIT_EXPECT_EQ(test, txrdma_bfd_jitter_ns(iv, 1, 0), 15 * MS);
	j = txrdma_bfd_jitter_ns(iv, 1, U32_MAX);
	KUNIT_EXPECT_LT(test, j, 18 * MS);
	KUNIT_EXPECT_GE(test, j, 18 * MS - 1);
	/* the largest interval a peer can ask for does not overflow */
	iv = (u64)U32_MAX * NSEC_PER_USEC;
	KUNIT_EXPECT_LT(test, txrdma_bfd_jitter_ns(iv, 4, U32_MAX), iv);
	KUNIT_EXPECT_EQ(test, txrdma_bfd_jitter_ns(iv, 4, 0), iv - iv / 4);

	prandom_seed_state(&rnd, 7);
	for (i = 0; i < 1000; i++) {
		u32 r = prandom_u32_state(&rnd);

		j = txrdma_bfd_jitter_ns(20 * MS, 3, r);
		KUNIT_EXPECT_GE(test, j, 15 * MS);
		KUNIT_EXPECT_LT(test, j, 20 * MS);
		j = txrdma_bfd_jitter_ns(20 * MS, 1, r);
		KUNIT_EXPECT_GE(test, j, 15 * MS);
		KUNIT_EXPECT_LT(test, j, 18 * MS);
	}
	/* build_tx schedules the next packet with it */
	init_default(test, &a, DISC_A, T0);
	txrdma_bfd_build_tx(&a, &p, T0 + 3, 1U << 31);
	KUNIT_EXPECT_EQ(test, a.next_tx_ns, T0 + 3 + 17500 * NSEC_PER_USEC);
	KUNIT_EXPECT_EQ(test, a.tx_pkts, 1ULL);
}

static void bfd_next_deadline(struct kunit *test)
{
	struct txrdma_bfd a, b;
	struct txrdma_bfd_pkt p;
	u64 t = T0;

	init_default(test, &a, DISC_A, t);
	init_default(test, &b, DISC_B, t);
	txrdma_bfd_build_tx(&a, &p, t, 0);
	KUNIT_EXPECT_EQ(test, txrdma_bfd_next_deadline(&a), t + 15 * MS);
	KUNIT_EXPECT_EQ(test, txrdma_bfd_tick(&a, t + 15 * MS - 1), 0U);
	KUNIT_EXPECT_EQ(test, txrdma_bfd_tick(&a, t + 15 * MS),
			TXRDMA_BFD_EV_TX_NOW);
	/* heard: detection runs, but the next tx is earlier */
	xfer(test, &b, &a, t + MS);
	KUNIT_EXPECT_EQ(test, txrdma_bfd_next_deadline(&a), t + 15 * MS);
	/* a long tx interval (peer's rx 200 ms): detection comes first */
	txrdma_bfd_build_tx(&b, &p, t + 2 * MS, 0);
	p.required_min_rx_us = 200000;
	txrdma_bfd_rx(&a, &p, t + 2 * MS);
	txrdma_bfd_build_tx(&a, &p, t + 2 * MS, 0);
	KUNIT_EXPECT_EQ(test, a.next_tx_ns, t + 2 * MS + 150 * MS);
	KUNIT_EXPECT_EQ(test, txrdma_bfd_next_deadline(&a), t + 82 * MS);
	KUNIT_EXPECT_EQ(test, txrdma_bfd_tick(&a, t + 82 * MS),
			TXRDMA_BFD_EV_TIMEOUT | TXRDMA_BFD_EV_STATE);
	/* timed out: only tx remains */
	KUNIT_EXPECT_EQ(test, txrdma_bfd_next_deadline(&a), t + 152 * MS);
}

/* The clock wraps through U64_MAX in the middle of a session */
static void bfd_clock_wrap(struct kunit *test)
{
	struct txrdma_bfd a, b;
	struct txrdma_bfd_pkt p;
	u64 t = U64_MAX - 30 * MS;
	u64 last = t + 10 * MS;

	bring_up(test, &a, &b, t);
	xfer(test, &b, &a, last);
	txrdma_bfd_build_tx(&a, &p, last, 0);
	/* next tx before the wrap, detection deadline after it */
	KUNIT_EXPECT_EQ(test, a.next_tx_ns, U64_MAX - 5 * MS);
	KUNIT_EXPECT_LT(test, last + a.detect_ns, 60 * MS);
	KUNIT_EXPECT_EQ(test, txrdma_bfd_next_deadline(&a), U64_MAX - 5 * MS);
	KUNIT_EXPECT_EQ(test, txrdma_bfd_tick(&a, t + 25 * MS),
			TXRDMA_BFD_EV_TX_NOW);
	txrdma_bfd_build_tx(&a, &p, t + 40 * MS, 0);	/* after the wrap */
	KUNIT_EXPECT_EQ(test, txrdma_bfd_next_deadline(&a), t + 55 * MS);
	KUNIT_EXPECT_EQ(test, txrdma_bfd_tick(&a, t + 50 * MS), 0U);
	KUNIT_EXPECT_EQ(test, a.state, TXRDMA_BFD_UP);
	txrdma_bfd_build_tx(&a, &p, t + 80 * MS, 0);
	KUNIT_EXPECT_EQ(test, txrdma_bfd_next_deadline(&a), last + 80 * MS);
	KUNIT_EXPECT_FALSE(test, txrdma_bfd_tick(&a, last + 80 * MS - 1) &
			   TXRDMA_BFD_EV_TIMEOUT);
	KUNIT_EXPECT_EQ(test, a.state, TXRDMA_BFD_UP);
	KUNIT_EXPECT_TRUE(test, txrdma_bfd_tick(&a, last + 80 * MS) &
			  TXRDMA_BFD_EV_TIMEOUT);
	KUNIT_EXPECT_EQ(test, a.state, TXRDMA_BFD_DOWN);

	/* a session started exactly at U64_MAX converges across 0 */
	bring_up(test, &a, &b, U64_MAX);
	xfer(test, &b, &a, 5 * MS);
	KUNIT_EXPECT_FALSE(test, txrdma_bfd_tick(&a, 85 * MS - 1) &
			   TXRDMA_BFD_EV_TIMEOUT);
	KUNIT_EXPECT_EQ(test, a.state, TXRDMA_BFD_UP);
	KUNIT_EXPECT_TRUE(test, txrdma_bfd_tick(&a, 85 * MS) &
			  TXRDMA_BFD_EV_TIMEOUT);
}

static void bfd_names(struct kunit *test)
{
	KUNIT_EXPECT_STREQ(test, txrdma_bfd_state_name(TXRDMA_BFD_ADMIN_DOWN),
			   "AdminDown");
	KUNIT_EXPECT_STREQ(test, txrdma_bfd_state_name(TXRDMA_BFD_DOWN),
			   "Down");
	KUNIT_EXPECT_STREQ(test, txrdma_bfd_state_name(TXRDMA_BFD_INIT),
			   "Init");
	KUNIT_EXPECT_STREQ(test, txrdma_bfd_state_name(TXRDMA_BFD_UP), "Up");
	KUNIT_EXPECT_STREQ(test, txrdma_bfd_state_name(4), "unknown");
	KUNIT_EXPECT_STREQ(test, txrdma_bfd_diag_name(TXRDMA_BFD_DIAG_NONE),
			   "none");
	KUNIT_EXPECT_STREQ(test,
			   txrdma_bfd_diag_name(TXRDMA_BFD_DIAG_DETECT_EXPIRED),
			   "detection-time-expired");
	KUNIT_EXPECT_STREQ(test,
			   txrdma_bfd_diag_name(TXRDMA_BFD_DIAG_NEIGHBOR_DOWN),
			   "neighbor-down");
	KUNIT_EXPECT_STREQ(test,
			   txrdma_bfd_diag_name(TXRDMA_BFD_DIAG_ADMIN_DOWN),
			   "admin-down");
	KUNIT_EXPECT_STREQ(test, txrdma_bfd_diag_name(8),
			   "reverse-concatenated-path-down");
	KUNIT_EXPECT_STREQ(test, txrdma_bfd_diag_name(9), "unknown");
}

static struct kunit_case txrdma_bfd_cases[] = {
	KUNIT_CASE(bfd_cfg_check),
	KUNIT_CASE(bfd_wire_layout),
	KUNIT_CASE(bfd_decode_rejects),
	KUNIT_CASE(bfd_encode_rejects),
	KUNIT_CASE(bfd_init_state),
	KUNIT_CASE(bfd_handshake),
	KUNIT_CASE(bfd_handshake_crossed),
	KUNIT_CASE(bfd_detect_boundary),
	KUNIT_CASE(bfd_excuse_stall),
	KUNIT_CASE(bfd_detect_refresh_and_init),
	KUNIT_CASE(bfd_remote_down),
	KUNIT_CASE(bfd_remote_admin_down),
	KUNIT_CASE(bfd_local_admin),
	KUNIT_CASE(bfd_peer_restart),
	KUNIT_CASE(bfd_wrong_disc_dropped),
	KUNIT_CASE(bfd_interval_negotiation),
	KUNIT_CASE(bfd_poll_sequence),
	KUNIT_CASE(bfd_poll_edge_cases),
	KUNIT_CASE(bfd_jitter_bounds),
	KUNIT_CASE(bfd_next_deadline),
	KUNIT_CASE(bfd_clock_wrap),
	KUNIT_CASE(bfd_names),
	{}
};

static struct kunit_suite txrdma_bfd_suite = {
	.name = "txrdma_bfd",
	.test_cases = txrdma_bfd_cases,
};

kunit_test_suite(txrdma_bfd_suite);

MODULE_LICENSE("GPL");
