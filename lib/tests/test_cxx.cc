// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
// The public header must be usable from C++, and the shared library must
// export its calls with C linkage.  Linked against libtxrdma.so.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <txrdma.h>

// the inline ring helpers compile as C++ and the setup calls link
static bool ring_works()
{
	alignas(64) static unsigned char buf[4096];
	struct txrdma_sq_offsets so = {};
	struct txrdma_cq_offsets co = {};
	struct txrdma_sq sq;
	struct txrdma_cq cq;
	struct txrdma_cqe *cqes[2];
	unsigned int v;

	so.head = 0; so.tail = 64; so.ring_mask = 8; so.ring_entries = 12;
	so.flags = 16; so.dropped = 20; so.sqes = 1024;
	co.head = 128; co.tail = 192; co.ring_mask = 136; co.ring_entries = 140;
	co.overflow = 144; co.cqes = 2048;
	v = 4; std::memcpy(buf + 12, &v, 4); std::memcpy(buf + 140, &v, 4);
	v = 3; std::memcpy(buf + 8, &v, 4); std::memcpy(buf + 136, &v, 4);
	if (txrdma_sq_init(&sq, buf, sizeof(buf), &so) ||
	    txrdma_cq_init(&cq, buf, sizeof(buf), &co) ||
	    txrdma_sq_init(&sq, buf, 1024 + 4 * 64 - 1, &so) != -EINVAL)
		return false;
	struct txrdma_sqe *sqe = txrdma_get_sqe(&sq);
	if (!sqe)
		return false;
	txrdma_prep_send(sqe, 1, 2, 3, 4, 5);
	if (txrdma_sq_flush(&sq) != 1 || txrdma_sq_needs_wakeup(&sq))
		return false;
	std::memcpy(&v, buf + 64, 4);
	if (v != 1 || txrdma_peek_cqe(&cq) ||
	    txrdma_peek_batch_cqe(&cq, cqes, 2) != 0)
		return false;
	txrdma_cq_advance(&cq, 0);
	return txrdma_sq_space_left(&sq) == 3 && txrdma_cq_overflow(&cq) == 0;
}

// the receive-ring helpers compile as C++; TXRDMA_0.3 links
static bool rx_works()
{
	alignas(64) static unsigned char area[128 + 16 * 64];
	alignas(64) static unsigned char sqbuf[512];
	struct txrdma_sq_offsets so = {};
	struct txrdma_frame_hdr h = {};
	struct txrdma_sq sq;
	struct txrdma_rx rx;
	// never dereferenced: the poller is awake (NEED_WAKEUP clear)
	struct txrdma_ctx *ctx = reinterpret_cast<struct txrdma_ctx *>(sqbuf);
	const void *p = nullptr;
	__u32 len = 0;
	unsigned int v;

	so.head = 0; so.tail = 64; so.flags = 128; so.dropped = 132;
	so.ring_mask = 192; so.ring_entries = 196; so.sqes = 256;
	v = 3; std::memcpy(sqbuf + 192, &v, 4);
	v = 4; std::memcpy(sqbuf + 196, &v, 4);
	if (txrdma_sq_init(&sq, sqbuf, sizeof(sqbuf), &so) ||
	    txrdma_rx_area_size(16) != sizeof(area) ||
	    txrdma_rx_init(&rx, ctx, &sq, area, 16) ||
	    txrdma_rx_init(&rx, ctx, &sq, area + 8, 16) != -EINVAL ||
	    txrdma_rx_peek(&rx, &p, &len) != 0 ||
	    txrdma_ep_listen(nullptr, 1) != -EINVAL ||
	    txrdma_ep_destroy(nullptr, 1) != -EINVAL ||
	    txrdma_ep_connect(nullptr, "x", nullptr, nullptr) != -EINVAL ||
	    txrdma_ep_accept(nullptr, nullptr, nullptr) != -EINVAL)
		return false;
	h.type = TXRDMA_FRAME_MSG;
	h.seq = 7;
	h.len = 5;
	std::memcpy(area + 128, &h, sizeof(h));
	std::memcpy(area + 128 + 32, "hello", 5);
	v = 1; std::memcpy(area + TXRDMA_RX_OFF_TAIL, &v, 4);
	if (txrdma_rx_ready(&rx) != 1 || txrdma_rx_peek(&rx, &p, &len) != 1 ||
	    len != 5 || std::memcmp(p, "hello", 5) || !txrdma_rx_hdr(&rx) ||
	    txrdma_le32(txrdma_rx_hdr(&rx)->seq) != 7)
		return false;
	txrdma_rx_release(&rx);
	std::memcpy(&v, area + TXRDMA_RX_OFF_HEAD, 4);
	return v == 1 && txrdma_rx_ready(&rx) == 0 && !txrdma_rx_hdr(&rx);
}

int main()
{
	struct txrdma_ctx *ctx = nullptr;
	int failed = 0;

	std::printf("TAP version 13\n1..4\n");
	const char *v = txrdma_version();
	bool ok = v && std::strlen(v) > 0;
	std::printf("%sok 1 - C++: txrdma_version() links and is non-empty\n",
		    ok ? "" : "not ");
	failed += !ok;
	ok = txrdma_open(&ctx, ~0u) == -EINVAL && !ctx;
	std::printf("%sok 2 - C++: txrdma_open() with bad flags gives -EINVAL\n",
		    ok ? "" : "not ");
	failed += !ok;
	ok = ring_works();
	std::printf("%sok 3 - C++: ring init (TXRDMA_0.2) and inline helpers work\n",
		    ok ? "" : "not ");
	failed += !ok;
	ok = rx_works();
	std::printf("%sok 4 - C++: receive ring and endpoint calls (TXRDMA_0.3) work\n",
		    ok ? "" : "not ");
	failed += !ok;
	return failed ? 1 : 0;
}
