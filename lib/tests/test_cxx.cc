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

int main()
{
	struct txrdma_ctx *ctx = nullptr;
	int failed = 0;

	std::printf("TAP version 13\n1..3\n");
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
	return failed ? 1 : 0;
}
