// SPDX-License-Identifier: GPL-2.0-only
/*
 * libtxrdma's data path rings against the real module: what a database
 * process does (txrdma_rings_setup(), get/prep/submit, peek/advance,
 * epoll on txrdma_fd()), with the kernel's poller on the other side.
 *
 *  - setup maps the rings the kernel describes; a second setup on the
 *    same context is refused and changes nothing;
 *  - 100,000 NOPs in batches across many laps: each completes once,
 *    in order, with its user_data; the doorbell is rung only when the
 *    poller said NEED_WAKEUP, and is rung at least once after idling;
 *  - epoll on the context's fd wakes with completions;
 *  - a malformed SQE built through the library's prep helpers and then
 *    spoiled completes with -EINVAL and shows in txrdma_sq_dropped().
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <txrdma.h>

#include "kselftest_harness.h"
#include "ring_tenant.h"

FIXTURE(lib) {
	struct txrdma_ctx *ctx;
	struct txrdma_sq sq;
	struct txrdma_cq cq;
};

FIXTURE_SETUP(lib)
{
	ASSERT_EQ(0, ring_tenant_status) TH_LOG("%s", ring_tenant_error);
	ASSERT_EQ(0, txrdma_open(&self->ctx, 0));
	ASSERT_EQ(0, txrdma_rings_setup(self->ctx, 128, 0, &self->sq,
					&self->cq));
}

FIXTURE_TEARDOWN(lib)
{
	txrdma_close(self->ctx);
}

/* wait for @n CQEs (epoll on the context's fd); copy and consume them */
static int reap(struct txrdma_ctx *ctx, struct txrdma_cq *cq, int epfd,
		struct txrdma_cqe *out, int n)
{
	int got = 0, idle = 0;

	(void)ctx;
	while (got < n && idle < 200) {
		struct txrdma_cqe *c[64];
		unsigned int k, m;
		struct epoll_event ev;

		m = txrdma_peek_batch_cqe(cq, c, n - got > 64 ? 64 : n - got);
		for (k = 0; k < m; k++)
			out[got++] = *c[k];
		txrdma_cq_advance(cq, m);
		if (got < n && !m)
			idle += epoll_wait(epfd, &ev, 1, 10) == 0;
	}
	return got;
}

TEST_F(lib, second_setup_refused)
{
	struct txrdma_sq sq;
	struct txrdma_cq cq;

	memset(&sq, 0x5a, sizeof(sq));
	EXPECT_EQ(-EBUSY, txrdma_rings_setup(self->ctx, 8, 0, &sq, &cq));
	/* untouched */
	EXPECT_EQ(0x5a5a5a5au, sq.ring_entries);
	EXPECT_EQ(128u, self->sq.ring_entries);
	EXPECT_EQ(256u, self->cq.ring_entries);
	EXPECT_EQ(-EINVAL, txrdma_rings_setup(NULL, 8, 0, &sq, &cq));
	/* and the kernel itself refuses a second pair on the same file */
	{
		struct txrdma_ring_setup p = { .sq_entries = 8 };

		EXPECT_EQ(-1, ioctl(txrdma_fd(self->ctx),
				    TXRDMA_IOC_RING_SETUP, &p));
		EXPECT_EQ(EBUSY, errno);
	}
}

TEST_F(lib, nops_through_the_library)
{
	struct epoll_event ev = { .events = EPOLLIN };
	static struct txrdma_cqe out[128];
	uint64_t ud = 0, expect = 0;
	unsigned int seed = 3, rings = 0;
	int epfd, total = 100000, i;

	epfd = epoll_create1(EPOLL_CLOEXEC);
	ASSERT_LE(0, epfd);
	ASSERT_EQ(0, epoll_ctl(epfd, EPOLL_CTL_ADD, txrdma_fd(self->ctx), &ev));
	while (ud < (uint64_t)total) {
		int batch = 1 + rand_r(&seed) % 128, got;

		if (batch > total - (int)ud)
			batch = total - (int)ud;
		for (i = 0; i < batch; i++) {
			struct txrdma_sqe *s = txrdma_get_sqe(&self->sq);

			ASSERT_NE(NULL, s);
			txrdma_prep_nop(s, 0, ud++);
		}
		/* now and then let the poller fall asleep */
		if (rand_r(&seed) % 64 == 0)
			usleep(5000);
		/* what txrdma_submit() does, with the doorbells counted */
		ASSERT_EQ((unsigned int)batch, txrdma_sq_flush(&self->sq));
		if (txrdma_sq_needs_wakeup(&self->sq)) {
			ASSERT_EQ(0, txrdma_rings_enter(self->ctx));
			rings++;
		}
		got = reap(self->ctx, &self->cq, epfd, out, batch);
		ASSERT_EQ(batch, got);
		for (i = 0; i < got; i++) {
			ASSERT_EQ(expect, out[i].user_data);
			ASSERT_EQ(0, out[i].res);
			expect++;
		}
	}
	EXPECT_EQ(0u, txrdma_sq_dropped(&self->sq));
	EXPECT_EQ(0u, txrdma_cq_overflow(&self->cq));
	/* the 5 ms pauses let the poller sleep: the flag made us ring */
	EXPECT_LT(0u, rings);
	TH_LOG("%d NOPs, %u doorbells", total, rings);
	close(epfd);
}

TEST_F(lib, spoiled_sqe_fails)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct txrdma_cqe out[2];
	struct txrdma_sqe *s;
	int epfd = epoll_create1(EPOLL_CLOEXEC);

	ASSERT_LE(0, epfd);
	ASSERT_EQ(0, epoll_ctl(epfd, EPOLL_CTL_ADD, txrdma_fd(self->ctx), &ev));
	s = txrdma_get_sqe(&self->sq);
	txrdma_prep_nop(s, 0, 1);
	s->resv2[0] = 1;
	s = txrdma_get_sqe(&self->sq);
	txrdma_prep_send(s, 12345, 0, 0, 16, 2);
	ASSERT_EQ(2, txrdma_submit(self->ctx, &self->sq));
	ASSERT_EQ(2, reap(self->ctx, &self->cq, epfd, out, 2));
	EXPECT_EQ(1u, out[0].user_data);
	EXPECT_EQ(-EINVAL, out[0].res);
	EXPECT_EQ(2u, out[1].user_data);
	EXPECT_EQ(-ENOENT, out[1].res);
	EXPECT_EQ(12345u, out[1].ep);
	EXPECT_EQ(2u, txrdma_sq_dropped(&self->sq));
	close(epfd);
}

TEST_HARNESS_MAIN
