// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Host tests of libtxrdma's endpoint-pair calls (txrdma_ep_listen,
 * _connect, _accept, _export, _unexport, _exports, _destroy).  No
 * kernel module: the context is opened on /dev/null and the binary is
 * linked with -Wl,--wrap=ioctl so that a fake kernel answers, records
 * what the library sent and can fail.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <txrdma.h>
#include "fake_dev.h"
#include "tap.h"

/* ---- fake kernel ---------------------------------------------------- */

static struct {
	unsigned int calls;		/* endpoint ioctls seen */
	int err;			/* fail them with this errno */
	unsigned long last_req;
	struct txrdma_ep_listen listen;
	struct txrdma_ep_connect conn;	/* as the library sent it */
	struct txrdma_ep_info info;
	struct txrdma_ep_export exp;
	struct txrdma_ep_exports xq;	/* EP_EXPORTS as the library sent it */
	struct txrdma_ep_exports xans;	/* and what the fake kernel answers */
	const char *accept_peer;	/* copied as 32 bytes, no NUL added */
} k;

int __wrap_ioctl(int fd, unsigned long req, ...);

int __wrap_ioctl(int fd, unsigned long req, ...)
{
	struct txrdma_ep_connect *c;
	va_list ap;
	void *arg;

	(void)fd;
	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);

	if (fake_probe(req, arg))
		return 0;
	if (req != TXRDMA_IOC_EP_LISTEN && req != TXRDMA_IOC_EP_CONNECT &&
	    req != TXRDMA_IOC_EP_ACCEPT && req != TXRDMA_IOC_EP_DESTROY &&
	    req != TXRDMA_IOC_EP_EXPORT && req != TXRDMA_IOC_EP_EXPORTS) {
		errno = ENOTTY;
		return -1;
	}
	k.calls++;
	k.last_req = req;
	if (req == TXRDMA_IOC_EP_LISTEN)
		k.listen = *(struct txrdma_ep_listen *)arg;
	else if (req == TXRDMA_IOC_EP_DESTROY)
		k.info = *(struct txrdma_ep_info *)arg;
	else if (req == TXRDMA_IOC_EP_EXPORT)
		k.exp = *(struct txrdma_ep_export *)arg;
	else if (req == TXRDMA_IOC_EP_EXPORTS)
		k.xq = *(struct txrdma_ep_exports *)arg;
	else
		k.conn = *(struct txrdma_ep_connect *)arg;
	if (k.err) {
		/* like the kernel: a failed ioctl may have scribbled */
		if (req == TXRDMA_IOC_EP_CONNECT || req == TXRDMA_IOC_EP_ACCEPT)
			memset(arg, 0xee, sizeof(struct txrdma_ep_connect));
		if (req == TXRDMA_IOC_EP_EXPORTS)
			memset(arg, 0xee, sizeof(struct txrdma_ep_exports));
		errno = k.err;
		return -1;
	}
	if (req == TXRDMA_IOC_EP_EXPORTS) {
		/* the answer, with the ep the library asked about */
		struct txrdma_ep_exports *q = arg;
		__u32 ep = q->ep;

		*q = k.xans;
		q->ep = ep;
		return 0;
	}
	if (req == TXRDMA_IOC_EP_CONNECT || req == TXRDMA_IOC_EP_ACCEPT) {
		c = arg;
		if (c->flags & ~TXRDMA_EP_F_ALL) {
			errno = EINVAL;
			return -1;
		}
		if (req == TXRDMA_IOC_EP_ACCEPT)
			memcpy(c->peer, k.accept_peer, sizeof(c->peer));
		c->id = 5;
		c->peer_ep = 9;
		c->qp_num = 0x1234;
		c->max_msg = 65504;
		/* a session's grace as the kernel reports it */
		if (c->flags & TXRDMA_EP_F_SESSION)
			c->grace_ms = c->grace_ms ?: TXRDMA_EP_GRACE_MS;
	}
	return 0;
}

static const char db_b[TXRDMA_PEER_NAME_MAX] = "db-b";

static void reset(void)
{
	memset(&k, 0, sizeof(k));
	memset(&k.conn, 0xa5, sizeof(k.conn));
	k.accept_peer = db_b;
}

static const struct txrdma_ep_params good = {
	.service = 4242, .flags = 0, .rx_region = 3, .rx_units = 4096,
	.rx_off = 0x10040, .timeout_ms = 500,
};

#define SENTINEL	FAKE_SENTINEL

static bool untouched(const void *p, size_t len)
{
	return bytes_are(p, len, SENTINEL);
}

static bool all_zero(const void *p, size_t len)
{
	return bytes_are(p, len, 0);
}

/* the request as sent: params copied, every output and reserved field 0 */
static bool sent_ok(const struct txrdma_ep_connect *c,
		    const struct txrdma_ep_params *p)
{
	return c->service == p->service && c->flags == p->flags &&
	       c->rx_region == p->rx_region && c->rx_units == p->rx_units &&
	       c->rx_off == p->rx_off && c->timeout_ms == p->timeout_ms &&
	       c->rx_max_msg == p->rx_max_msg &&
	       !c->id && !c->peer_ep && !c->qp_num && !c->max_msg &&
	       !c->grace_ms && !c->resv0 && !c->resv1;
}

/* ---- tests ---------------------------------------------------------- */

static void test_listen(void)
{
	struct txrdma_ctx *ctx = fake_ctx();

	reset();
	memset(&k.listen, 0xa5, sizeof(k.listen));
	TAP_CHECK_INT(txrdma_ep_listen(ctx, 4242), 0);
	TAP_CHECK_INT(k.calls, 1);
	TAP_CHECK(k.last_req == TXRDMA_IOC_EP_LISTEN);
	TAP_CHECK_INT(k.listen.service, 4242);
	TAP_CHECK(!k.listen.flags && !k.listen.resv[0] && !k.listen.resv[1]);
	k.err = EADDRINUSE;
	TAP_CHECK_INT(txrdma_ep_listen(ctx, 4242), -EADDRINUSE);
	k.err = ENOTTY;
	TAP_CHECK_INT(txrdma_ep_listen(ctx, 1), -ENOTTY);
	reset();
	TAP_CHECK_INT(txrdma_ep_listen(NULL, 4242), -EINVAL);
	TAP_CHECK_INT(txrdma_ep_listen(ctx, 0), -EINVAL);
	TAP_CHECK_INT(k.calls, 0);
}

static void test_connect(void)
{
	struct txrdma_ctx *ctx = fake_ctx();
	struct txrdma_ep_params p = good;
	struct txrdma_ep_pair out;
	const char *n31 = "abcdefghijklmnopqrstuvwxyz01234";

	reset();
	memset(&out, SENTINEL, sizeof(out));
	TAP_CHECK_INT(txrdma_ep_connect(ctx, "db-a", &p, &out), 0);
	TAP_CHECK_INT(k.calls, 1);
	TAP_CHECK(k.last_req == TXRDMA_IOC_EP_CONNECT);
	TAP_CHECK(sent_ok(&k.conn, &p));
	TAP_CHECK(!memcmp(k.conn.peer, "db-a", 5));
	TAP_CHECK(all_zero(k.conn.peer + 4, sizeof(k.conn.peer) - 4));
	/* what the kernel returned, and the request around it */
	TAP_CHECK_INT(out.id, 5);
	TAP_CHECK_INT(out.peer_ep, 9);
	TAP_CHECK_INT(out.qp_num, 0x1234);
	TAP_CHECK_INT(out.max_msg, 65504);
	TAP_CHECK_STR((const char *)out.peer, "db-a");
	TAP_CHECK_INT(out.service, 4242);
	TAP_CHECK_INT(out.rx_units, 4096);

	/* a name of 31 characters fits; the NUL is the 32nd byte */
	reset();
	TAP_CHECK_INT(txrdma_ep_connect(ctx, n31, &p, &out), 0);
	TAP_CHECK(!memcmp(k.conn.peer, n31, 32));
	/* flags go to the kernel, which judges them */
	p.flags = TXRDMA_EP_F_DATA_CRC;
	TAP_CHECK_INT(txrdma_ep_connect(ctx, "db-a", &p, &out), 0);
	TAP_CHECK_INT(k.conn.flags, TXRDMA_EP_F_DATA_CRC);
	p.flags = 0x80;
	TAP_CHECK_INT(txrdma_ep_connect(ctx, "db-a", &p, &out), -EINVAL);
	TAP_CHECK_INT(k.calls, 3);
	/* the extremes of the ring size; timeout 0 (the kernel's default) */
	p = good;
	p.rx_units = TXRDMA_RX_MIN_UNITS;
	p.rx_off = 0;
	p.timeout_ms = 0;
	TAP_CHECK_INT(txrdma_ep_connect(ctx, "db-a", &p, &out), 0);
	TAP_CHECK(sent_ok(&k.conn, &p));
	p.rx_units = TXRDMA_RX_MAX_UNITS;
	TAP_CHECK_INT(txrdma_ep_connect(ctx, "db-a", &p, &out), 0);
	TAP_CHECK(sent_ok(&k.conn, &p));
}

/*
 * txrdma_ep_connect_session(): the connect with TXRDMA_EP_F_SESSION
 * added and the grace sent as given (0: the kernel's default); a grace
 * above the most is refused before the call; out->grace_ms is what the
 * kernel said.
 */
static void test_connect_session(void)
{
	struct txrdma_ctx *ctx = fake_ctx();
	struct txrdma_ep_params p = good;
	struct txrdma_ep_pair out;

	reset();
	memset(&out, SENTINEL, sizeof(out));
	TAP_CHECK_INT(txrdma_ep_connect_session(ctx, "db-a", &p, 250, &out), 0);
	TAP_CHECK_INT(k.calls, 1);
	TAP_CHECK_INT(k.conn.flags, TXRDMA_EP_F_SESSION);
	TAP_CHECK_INT(k.conn.grace_ms, 250);
	TAP_CHECK(!k.conn.resv0 && !k.conn.resv1);
	TAP_CHECK_INT(out.grace_ms, 250);
	TAP_CHECK_INT(out.flags, TXRDMA_EP_F_SESSION);
	/* with the caller's own flags, and the default grace */
	p.flags = TXRDMA_EP_F_DATA_CRC;
	TAP_CHECK_INT(txrdma_ep_connect_session(ctx, "db-a", &p, 0, &out), 0);
	TAP_CHECK_INT(k.conn.flags, TXRDMA_EP_F_DATA_CRC | TXRDMA_EP_F_SESSION);
	TAP_CHECK_INT(k.conn.grace_ms, 0);
	TAP_CHECK_INT(out.grace_ms, TXRDMA_EP_GRACE_MS);
	TAP_CHECK_INT(txrdma_ep_connect_session(ctx, "db-a", &p,
						TXRDMA_EP_GRACE_MAX_MS, &out), 0);
	TAP_CHECK_INT(k.conn.grace_ms, TXRDMA_EP_GRACE_MAX_MS);
	TAP_CHECK_INT(k.calls, 3);
	memset(&out, SENTINEL, sizeof(out));
	TAP_CHECK_INT(txrdma_ep_connect_session(ctx, "db-a", &p,
						TXRDMA_EP_GRACE_MAX_MS + 1,
						&out), -EINVAL);
	TAP_CHECK_INT(txrdma_ep_connect_session(NULL, "db-a", &p, 0, &out),
		      -EINVAL);
	TAP_CHECK_INT(k.calls, 3);
	TAP_CHECK(untouched(&out, sizeof(out)));
	/* a plain connect is no session */
	p = good;
	TAP_CHECK_INT(txrdma_ep_connect(ctx, "db-a", &p, &out), 0);
	TAP_CHECK_INT(out.grace_ms, 0);
}

/*
 * Ring sizing: txrdma_rx_units_for() gives 8 frames of the message
 * (rounded up to a power of two, within the bounds); rx_units 0 sends
 * that; rx_max_msg is sent as given and refused above what the ring
 * takes before any system call.
 */
static void test_ring_sizing(void)
{
	struct txrdma_ctx *ctx = fake_ctx();
	struct txrdma_ep_params p;
	struct txrdma_ep_pair out;

	/* 64 KiB + 32: 1025 units a frame, 8200 -> 16384 */
	TAP_CHECK_INT(txrdma_rx_units_for(0), 16384);
	TAP_CHECK_INT(txrdma_rx_units_for(TXRDMA_FRAME_MAX_PAYLOAD), 16384);
	TAP_CHECK_INT(txrdma_rx_units_for(TXRDMA_FRAME_MAX_PAYLOAD + 1), 0);
	TAP_CHECK_INT(txrdma_rx_units_for(0xffffffffu), 0);
	/* 4 KiB: 65 units a frame, 520 -> 1024 */
	TAP_CHECK_INT(txrdma_rx_units_for(4096), 1024);
	/* 4064 + 32 is 64 units exactly: 512 */
	TAP_CHECK_INT(txrdma_rx_units_for(4064), 512);
	TAP_CHECK_INT(txrdma_rx_units_for(4065), 1024);
	/* small messages: the smallest ring */
	TAP_CHECK_INT(txrdma_rx_units_for(1), TXRDMA_RX_MIN_UNITS);
	TAP_CHECK_INT(txrdma_rx_units_for(32), TXRDMA_RX_MIN_UNITS);
	/* whatever it says, its half-ring frame takes the message */
	for (__u32 m = 1; m <= TXRDMA_FRAME_MAX_PAYLOAD; m = m * 3 + 1) {
		__u32 u = txrdma_rx_units_for(m);

		if (!u || u / 2 * TXRDMA_FRAME_UNIT - TXRDMA_FRAME_HDR_LEN < m ||
		    txrdma_rx_area_size(u) == 0) {
			TAP_CHECK(!"a ring that does not take its message");
			break;
		}
	}

	reset();
	p = good;
	p.rx_units = 0;
	p.rx_max_msg = 4096;
	TAP_CHECK_INT(txrdma_ep_connect(ctx, "db-a", &p, &out), 0);
	TAP_CHECK_INT(k.conn.rx_units, 1024);
	TAP_CHECK_INT(k.conn.rx_max_msg, 4096);
	TAP_CHECK_INT(txrdma_ep_accept(ctx, &p, &out), 0);
	TAP_CHECK_INT(k.conn.rx_units, 1024);
	p.rx_max_msg = 0;
	TAP_CHECK_INT(txrdma_ep_connect(ctx, "db-a", &p, &out), 0);
	TAP_CHECK_INT(k.conn.rx_units, 16384);
	TAP_CHECK_INT(k.conn.rx_max_msg, 0);
	/* explicit: 16 units take 8 * 64 - 32 = 480 bytes, not 481 */
	p.rx_units = 16;
	p.rx_max_msg = 480;
	TAP_CHECK_INT(txrdma_ep_connect(ctx, "db-a", &p, &out), 0);
	TAP_CHECK_INT(k.conn.rx_max_msg, 480);
	TAP_CHECK_INT(k.calls, 4);
	p.rx_max_msg = 481;
	TAP_CHECK_INT(txrdma_ep_connect(ctx, "db-a", &p, &out), -EINVAL);
	TAP_CHECK_INT(txrdma_ep_accept(ctx, &p, &out), -EINVAL);
	p.rx_units = 0;
	p.rx_max_msg = TXRDMA_FRAME_MAX_PAYLOAD + 1;
	TAP_CHECK_INT(txrdma_ep_connect(ctx, "db-a", &p, &out), -EINVAL);
	TAP_CHECK_INT(k.calls, 4);
}

/* export: the ioctl's fields as given, nothing else set; bad x refused */
static void test_export(void)
{
	struct txrdma_ctx *ctx = fake_ctx();
	struct txrdma_export_info x = {
		.region = 9, .access = TXRDMA_EXPORT_READ,
		.off = 0x123456789aULL, .len = 0x2000,
	};
	const struct txrdma_export_info before = x;
	static const int errs[] = {
		ENOSPC, EADDRINUSE, EEXIST, EBUSY, EFAULT, ENOENT, ENOTCONN,
		ETIMEDOUT, EINTR,
	};
	unsigned int i;

	reset();
	memset(&k.exp, 0xa5, sizeof(k.exp));
	TAP_CHECK_INT(txrdma_ep_export(ctx, 5, &x, 700), 0);
	TAP_CHECK_INT(k.calls, 1);
	TAP_CHECK(k.last_req == TXRDMA_IOC_EP_EXPORT);
	TAP_CHECK(k.exp.ep == 5 && k.exp.region == 9 &&
		  k.exp.access == TXRDMA_EXPORT_READ && k.exp.timeout_ms == 700 &&
		  k.exp.off == 0x123456789aULL && k.exp.len == 0x2000);
	/* the caller's range is const and stays so */
	TAP_CHECK(!memcmp(&x, &before, sizeof(x)));
	/* both bits; len 0 (to the region's end) and off 0 sent as 0 */
	memset(&k.exp, 0xa5, sizeof(k.exp));
	x = (struct txrdma_export_info){
		.region = 0xfffffffe,
		.access = TXRDMA_EXPORT_READ | TXRDMA_EXPORT_WRITE,
	};
	TAP_CHECK_INT(txrdma_ep_export(ctx, 0, &x, 0), 0);
	TAP_CHECK(k.exp.ep == 0 && k.exp.region == 0xfffffffe &&
		  k.exp.access == (TXRDMA_EXPORT_READ | TXRDMA_EXPORT_WRITE) &&
		  !k.exp.timeout_ms && !k.exp.off && !k.exp.len);
	/* WRITE alone is an access too */
	x.access = TXRDMA_EXPORT_WRITE;
	x.off = ~0ULL;
	x.len = ~0ULL;
	TAP_CHECK_INT(txrdma_ep_export(ctx, 5, &x, 0), 0);
	TAP_CHECK(k.exp.access == TXRDMA_EXPORT_WRITE &&
		  k.exp.off == ~0ULL && k.exp.len == ~0ULL);
	TAP_CHECK_INT(k.calls, 3);

	/* refused before the ioctl: access 0 (that is a revoke), unknown bits */
	x.access = 0;
	TAP_CHECK_INT(txrdma_ep_export(ctx, 5, &x, 0), -EINVAL);
	x.access = 4;
	TAP_CHECK_INT(txrdma_ep_export(ctx, 5, &x, 0), -EINVAL);
	x.access = TXRDMA_EXPORT_READ | 0x80000000u;
	TAP_CHECK_INT(txrdma_ep_export(ctx, 5, &x, 0), -EINVAL);
	x.access = TXRDMA_EXPORT_READ;
	TAP_CHECK_INT(txrdma_ep_export(NULL, 5, &x, 0), -EINVAL);
	TAP_CHECK_INT(txrdma_ep_export(ctx, 5, NULL, 0), -EINVAL);
	TAP_CHECK_INT(k.calls, 3);

	/* the kernel's errors returned, once */
	for (i = 0; i < TAP_ARRAY_SIZE(errs); i++) {
		reset();
		k.err = errs[i];
		if (!TAP_CHECK_INT(txrdma_ep_export(ctx, 5, &x, 0), -errs[i]) ||
		    !TAP_CHECK_INT(k.calls, 1))
			tap_diag("  errno %d", errs[i]);
	}
	reset();
}

/* unexport: the same ioctl with access 0, whatever x->access says */
static void test_unexport(void)
{
	struct txrdma_ctx *ctx = fake_ctx();
	struct txrdma_export_info x = {
		.region = 7, .access = TXRDMA_EXPORT_READ | TXRDMA_EXPORT_WRITE,
		.off = 4096, .len = 8192,
	};
	const struct txrdma_export_info before = x;

	reset();
	memset(&k.exp, 0xa5, sizeof(k.exp));
	TAP_CHECK_INT(txrdma_ep_unexport(ctx, 3, &x, 250), 0);
	TAP_CHECK_INT(k.calls, 1);
	TAP_CHECK(k.last_req == TXRDMA_IOC_EP_EXPORT);
	TAP_CHECK(k.exp.ep == 3 && k.exp.region == 7 && k.exp.access == 0 &&
		  k.exp.timeout_ms == 250 && k.exp.off == 4096 &&
		  k.exp.len == 8192);
	TAP_CHECK(!memcmp(&x, &before, sizeof(x)));
	/* access is not looked at: garbage bits are not refused nor sent */
	x.access = 0xdeadbeef;
	x.off = 0;
	x.len = 0;
	memset(&k.exp, 0xa5, sizeof(k.exp));
	TAP_CHECK_INT(txrdma_ep_unexport(ctx, 3, &x, 0), 0);
	TAP_CHECK(k.exp.access == 0 && !k.exp.off && !k.exp.len &&
		  !k.exp.timeout_ms);
	TAP_CHECK_INT(k.calls, 2);
	/* NULL refused before the ioctl */
	TAP_CHECK_INT(txrdma_ep_unexport(NULL, 3, &x, 0), -EINVAL);
	TAP_CHECK_INT(txrdma_ep_unexport(ctx, 3, NULL, 0), -EINVAL);
	TAP_CHECK_INT(k.calls, 2);
	/* the kernel's errors returned */
	k.err = ENOENT;
	TAP_CHECK_INT(txrdma_ep_unexport(ctx, 3, &x, 0), -ENOENT);
	k.err = ETIMEDOUT;
	TAP_CHECK_INT(txrdma_ep_unexport(ctx, 3, &x, 0), -ETIMEDOUT);
	TAP_CHECK_INT(k.calls, 4);
	reset();
}

static void fill_answer(struct txrdma_ep_exports *a, __u32 ni, __u32 ne)
{
	unsigned int i;

	memset(a, 0, sizeof(*a));
	a->ep = 0xbad;		/* the fake kernel keeps the ep it was sent */
	a->imports_gen = 0x80000001u;
	a->nimported = ni;
	a->nexported = ne;
	for (i = 0; i < TXRDMA_EP_MAX_EXPORTS; i++) {
		a->imported[i] = (struct txrdma_export_info){
			.region = 100 + i, .access = 1 + i % 3,
			.off = (__u64)i << 32, .len = 4096 * (i + 1),
		};
		a->exported[i] = (struct txrdma_export_info){
			.region = 200 + i, .access = 3 - i % 3,
			.off = 64 * i, .len = ~0ULL - i,
		};
	}
}

/* exports: copies the kernel's answer out; never trusts its counts */
static void test_exports(void)
{
	struct txrdma_ctx *ctx = fake_ctx();
	static const int errs[] = { ENOENT, ENOTTY, EFAULT, EINTR };
	struct txrdma_ep_exports out;
	static const struct {
		__u32 ni, ne;
		int want;
	} counts[] = {
		{ 0, 0, 0 },
		{ 1, 0, 0 },
		{ 0, 1, 0 },
		{ TXRDMA_EP_MAX_EXPORTS, TXRDMA_EP_MAX_EXPORTS, 0 },
		{ TXRDMA_EP_MAX_EXPORTS + 1, 0, -EPROTO },
		{ 0, TXRDMA_EP_MAX_EXPORTS + 1, -EPROTO },
		{ 3, 0xffffffffu, -EPROTO },
		{ 0x80000000u, 2, -EPROTO },
	};
	unsigned int i;

	for (i = 0; i < TAP_ARRAY_SIZE(counts); i++) {
		reset();
		fill_answer(&k.xans, counts[i].ni, counts[i].ne);
		memset(&out, SENTINEL, sizeof(out));
		if (!TAP_CHECK_INT(txrdma_ep_exports(ctx, 42, &out),
				   counts[i].want) ||
		    !TAP_CHECK_INT(k.calls, 1) ||
		    !TAP_CHECK(k.last_req == TXRDMA_IOC_EP_EXPORTS)) {
			tap_diag("  nimported %u nexported %u", counts[i].ni,
				 counts[i].ne);
			continue;
		}
		/* the request: ep set, every other byte 0 */
		TAP_CHECK_INT(k.xq.ep, 42);
		TAP_CHECK(all_zero((const char *)&k.xq + sizeof(k.xq.ep),
				   sizeof(k.xq) - sizeof(k.xq.ep)));
		if (counts[i].want) {
			/* refused: @out untouched */
			if (!TAP_CHECK(untouched(&out, sizeof(out))))
				tap_diag("  nimported %u nexported %u",
					 counts[i].ni, counts[i].ne);
			continue;
		}
		/* the whole answer copied, arrays included */
		k.xans.ep = 42;
		if (!TAP_CHECK(!memcmp(&out, &k.xans, sizeof(out))))
			tap_diag("  nimported %u nexported %u", counts[i].ni,
				 counts[i].ne);
	}
	/* spot checks of the copy, in case memcmp hides a mistake above */
	reset();
	fill_answer(&k.xans, 2, 16);
	TAP_CHECK_INT(txrdma_ep_exports(ctx, 7, &out), 0);
	TAP_CHECK_INT(out.ep, 7);
	TAP_CHECK_INT(out.imports_gen, 0x80000001u);
	TAP_CHECK_INT(out.nimported, 2);
	TAP_CHECK_INT(out.nexported, 16);
	TAP_CHECK(out.imported[1].region == 101 && out.imported[1].access == 2 &&
		  out.imported[1].off == 1ULL << 32 &&
		  out.imported[1].len == 8192);
	TAP_CHECK(out.exported[15].region == 215 &&
		  out.exported[15].access == 3 &&
		  out.exported[15].off == 64 * 15 &&
		  out.exported[15].len == ~0ULL - 15);

	/* errors returned, @out untouched (the fake scribbles on its copy) */
	for (i = 0; i < TAP_ARRAY_SIZE(errs); i++) {
		reset();
		k.err = errs[i];
		memset(&out, SENTINEL, sizeof(out));
		if (!TAP_CHECK_INT(txrdma_ep_exports(ctx, 1, &out), -errs[i]) ||
		    !TAP_CHECK_INT(k.calls, 1) ||
		    !TAP_CHECK(untouched(&out, sizeof(out))))
			tap_diag("  errno %d", errs[i]);
	}

	/* NULL refused before the ioctl */
	reset();
	TAP_CHECK_INT(txrdma_ep_exports(NULL, 1, &out), -EINVAL);
	TAP_CHECK_INT(txrdma_ep_exports(ctx, 1, NULL), -EINVAL);
	TAP_CHECK_INT(k.calls, 0);
}

static void test_connect_errors(void)
{
	static const int errs[] = {
		ETIMEDOUT, ECONNREFUSED, EINTR, ENOTCONN, EAGAIN, EDQUOT,
		EPERM, EINVAL,
	};
	struct txrdma_ctx *ctx = fake_ctx();
	struct txrdma_ep_pair out;
	unsigned int i;

	for (i = 0; i < TAP_ARRAY_SIZE(errs); i++) {
		reset();
		k.err = errs[i];
		memset(&out, SENTINEL, sizeof(out));
		if (!TAP_CHECK_INT(txrdma_ep_connect(ctx, "db-a", &good, &out),
				   -errs[i]) ||
		    !TAP_CHECK_INT(k.calls, 1) ||	/* EINTR: not retried */
		    !TAP_CHECK(untouched(&out, sizeof(out))))
			tap_diag("  errno %d", errs[i]);
	}
}

/* refused before any system call, @out untouched */
static void connect_bad(const char *peer, const struct txrdma_ep_params *p,
			int want, const char *what)
{
	struct txrdma_ep_pair out;
	int ret;

	reset();
	memset(&out, SENTINEL, sizeof(out));
	ret = txrdma_ep_connect(fake_ctx(), peer, p, &out);
	if (!TAP_CHECK_INT(ret, want) || !TAP_CHECK_INT(k.calls, 0) ||
	    !TAP_CHECK(untouched(&out, sizeof(out))))
		tap_diag("  case: %s", what);
}

static void accept_bad(const struct txrdma_ep_params *p, int want,
		       const char *what)
{
	struct txrdma_ep_pair out;
	int ret;

	reset();
	memset(&out, SENTINEL, sizeof(out));
	ret = txrdma_ep_accept(fake_ctx(), p, &out);
	if (!TAP_CHECK_INT(ret, want) || !TAP_CHECK_INT(k.calls, 0) ||
	    !TAP_CHECK(untouched(&out, sizeof(out))))
		tap_diag("  case: %s", what);
}

static void test_bad_args(void)
{
	static const struct {
		__u32 units;
		__u64 off;
		__u32 service;
		const char *what;
	} bad[] = {
		{ 0, 32, 1, "0 units (the default), offset 32" },
		{ 8, 0, 1, "8 units: below the minimum" },
		{ 48, 0, 1, "48 units: not a power of two" },
		{ 4095, 0, 1, "4095 units" },
		{ 2 * TXRDMA_RX_MAX_UNITS, 0, 1, "above the maximum" },
		{ 0x80000000u, 0, 1, "2^31 units" },
		{ 4096, 32, 1, "offset 32: not 64-byte aligned" },
		{ 4096, 1, 1, "offset 1" },
		{ 4096, (1ULL << 40) + 8, 1, "large offset, misaligned" },
		{ 4096, 0, 0, "service 0" },
	};
	char longname[100];
	struct txrdma_ep_pair out;
	struct txrdma_ep_params p;
	unsigned int i;

	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = 0;

	connect_bad("db-a", NULL, -EINVAL, "NULL params");
	connect_bad(NULL, &good, -EINVAL, "NULL peer");
	connect_bad("", &good, -EINVAL, "empty peer");
	connect_bad("abcdefghijklmnopqrstuvwxyz012345", &good, -ENAMETOOLONG,
		    "peer of 32 characters: no room for the NUL");
	connect_bad(longname, &good, -ENAMETOOLONG, "peer of 99 characters");
	reset();
	TAP_CHECK_INT(txrdma_ep_connect(NULL, "db-a", &good, &out), -EINVAL);
	TAP_CHECK_INT(txrdma_ep_connect(fake_ctx(), "db-a", &good, NULL),
		      -EINVAL);
	TAP_CHECK_INT(txrdma_ep_accept(NULL, &good, &out), -EINVAL);
	TAP_CHECK_INT(txrdma_ep_accept(fake_ctx(), &good, NULL), -EINVAL);
	TAP_CHECK_INT(k.calls, 0);
	accept_bad(NULL, -EINVAL, "accept: NULL params");
	for (i = 0; i < TAP_ARRAY_SIZE(bad); i++) {
		p = good;
		p.rx_units = bad[i].units;
		p.rx_off = bad[i].off;
		p.service = bad[i].service;
		connect_bad("db-a", &p, -EINVAL, bad[i].what);
		accept_bad(&p, -EINVAL, bad[i].what);
	}
}

static void test_accept(void)
{
	struct txrdma_ctx *ctx = fake_ctx();
	struct txrdma_ep_pair out;

	reset();
	memset(&out, SENTINEL, sizeof(out));
	TAP_CHECK_INT(txrdma_ep_accept(ctx, &good, &out), 0);
	TAP_CHECK_INT(k.calls, 1);
	TAP_CHECK(k.last_req == TXRDMA_IOC_EP_ACCEPT);
	TAP_CHECK(sent_ok(&k.conn, &good));
	TAP_CHECK(all_zero(k.conn.peer, sizeof(k.conn.peer)));
	TAP_CHECK_STR((const char *)out.peer, "db-b");
	TAP_CHECK_INT(out.id, 5);
	TAP_CHECK_INT(out.peer_ep, 9);
	TAP_CHECK_INT(out.qp_num, 0x1234);
	TAP_CHECK_INT(out.max_msg, 65504);

	/* a peer name without NUL from the kernel is cut, not overrun */
	reset();
	k.accept_peer = "0123456789abcdef0123456789ABCDEF";
	TAP_CHECK_INT(txrdma_ep_accept(ctx, &good, &out), 0);
	TAP_CHECK_STR((const char *)out.peer,
		      "0123456789abcdef0123456789ABCDE");

	/* errors returned, once, output untouched */
	reset();
	k.err = ETIMEDOUT;
	memset(&out, SENTINEL, sizeof(out));
	TAP_CHECK_INT(txrdma_ep_accept(ctx, &good, &out), -ETIMEDOUT);
	TAP_CHECK(untouched(&out, sizeof(out)));
	reset();
	k.err = EINTR;
	TAP_CHECK_INT(txrdma_ep_accept(ctx, &good, &out), -EINTR);
	TAP_CHECK_INT(k.calls, 1);
	TAP_CHECK(untouched(&out, sizeof(out)));
}

static void test_destroy(void)
{
	struct txrdma_ctx *ctx = fake_ctx();

	reset();
	memset(&k.info, 0xa5, sizeof(k.info));
	TAP_CHECK_INT(txrdma_ep_destroy(ctx, 5), 0);
	TAP_CHECK_INT(k.calls, 1);
	TAP_CHECK(k.last_req == TXRDMA_IOC_EP_DESTROY);
	TAP_CHECK_INT(k.info.id, 5);
	TAP_CHECK(!k.info.flags && !k.info.peer_id && !k.info.qp_num &&
		  !k.info.error && !k.info.resv0 && !k.info.resv[0] &&
		  !k.info.resv[1]);
	k.err = ENOENT;
	TAP_CHECK_INT(txrdma_ep_destroy(ctx, 6), -ENOENT);
	TAP_CHECK_INT(k.info.id, 6);
	reset();
	TAP_CHECK_INT(txrdma_ep_destroy(NULL, 5), -EINVAL);
	TAP_CHECK_INT(k.calls, 0);
}

static const struct tap_test tests[] = {
	TAP_TEST(test_listen, "ep_listen sends the service, reserved fields 0; errors returned"),
	TAP_TEST(test_connect, "ep_connect sends peer and params, returns the kernel's answer"),
	TAP_TEST(test_connect_session, "ep_connect_session sends the session flag and the grace, refuses one above the most"),
	TAP_TEST(test_ring_sizing, "rx_units 0 is txrdma_rx_units_for(rx_max_msg); rx_max_msg checked against the ring"),
	TAP_TEST(test_export, "ep_export sends ep, region, access, off, len, timeout; NULL or bad access refused before the ioctl"),
	TAP_TEST(test_unexport, "ep_unexport sends the range with access 0; NULL refused; errors returned"),
	TAP_TEST(test_exports, "ep_exports sends the ep, copies the answer out; -EPROTO on counts past 16, -EINVAL on NULL"),
	TAP_TEST(test_connect_errors, "ep_connect: the kernel's errors returned once (EINTR too), output untouched"),
	TAP_TEST(test_bad_args, "connect/accept: NULL, empty or too long peer, bad ring, service 0 refused before the ioctl"),
	TAP_TEST(test_accept, "ep_accept: params sent, peer name returned NUL-terminated; errors"),
	TAP_TEST(test_destroy, "ep_destroy sends the id in txrdma_ep_info, reserved fields 0"),
};

int main(void)
{
	int ret = TAP_MAIN(tests);

	fake_ctx_close();
	return ret;
}
