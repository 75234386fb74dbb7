// SPDX-License-Identifier: GPL-2.0-only
/*
 * ring_nop: the data path rings of a tenant process through libtxrdma,
 * against the kernel's poller, with NOPs (nothing but the machinery):
 *
 *   ring_nop [-n N]
 *
 * 1. one NOP at a time (spin briefly, then poll(2)): round trip
 *    p50/p99/max;
 * 2. batches of 64 rung with one flush: NOPs per second;
 * 3. one NOP after a pause (the poller asleep): the doorbell path;
 * and how many doorbells (system calls) each phase needed.
 * Run inside a tenant (the rings are charged to its pinned bytes).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <txrdma.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static struct txrdma_ctx *ctx;
static struct txrdma_sq sq;
static struct txrdma_cq cq;
static unsigned long doorbells;

/* publish; ring only if the poller said so */
static int submit(void)
{
	txrdma_sq_flush(&sq);
	if (txrdma_sq_needs_wakeup(&sq)) {
		doorbells++;
		return txrdma_rings_enter(ctx);
	}
	return 0;
}

/*
 * Reap @n CQEs: spin for up to 20 us, then wait in poll(2) on the
 * context's fd (on a CPU shared with the poller, spinning longer only
 * keeps the poller from running).  -1 on an error CQE or after 5 s.
 */
static int reap(unsigned int n)
{
	uint64_t start = now_ns(), end = start + 5000000000ULL;
	struct pollfd pfd = { .fd = txrdma_fd(ctx), .events = POLLIN };

	while (n) {
		struct txrdma_cqe *c[64];
		unsigned int k, m;

		m = txrdma_peek_batch_cqe(&cq, c, n < 64 ? n : 64);
		for (k = 0; k < m; k++)
			if (c[k]->res)
				return -1;
		txrdma_cq_advance(&cq, m);
		n -= m;
		if (m)
			continue;
		if (now_ns() > end)
			return -1;
		if (now_ns() - start > 20000)
			poll(&pfd, 1, 100);
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned int n = 20000, i, b;
	unsigned long db0;
	uint64_t *lat, t0, t;
	int opt, ret;

	while ((opt = getopt(argc, argv, "n:")) != -1) {
		if (opt != 'n')
			goto usage;
		n = strtoul(optarg, NULL, 0);
	}
	if (n < 100)
		goto usage;
	ret = txrdma_open(&ctx, 0);
	if (!ret)
		ret = txrdma_rings_setup(ctx, 256, 0, &sq, &cq);
	if (ret) {
		fprintf(stderr, "ring_nop: rings: %s\n", strerror(-ret));
		return 1;
	}
	lat = calloc(n, sizeof(*lat));
	if (!lat)
		return 1;

	for (i = 0; i < n; i++) {
		t0 = now_ns();
		txrdma_prep_nop(txrdma_get_sqe(&sq), 0, i);
		if (submit() || reap(1))
			goto fail;
		lat[i] = now_ns() - t0;
	}
	qsort(lat, n, sizeof(*lat), cmp_u64);
	printf("NOP round trip, one at a time (%u): p50 %.1f us, p99 %.1f us, max %.1f us; doorbells %lu\n",
	       n, lat[n / 2] / 1e3, lat[n * 99 / 100] / 1e3, lat[n - 1] / 1e3,
	       doorbells);

	db0 = doorbells;
	t0 = now_ns();
	for (i = 0; i < n; i += 64) {
		for (b = 0; b < 64; b++)
			txrdma_prep_nop(txrdma_get_sqe(&sq), 0, i + b);
		if (submit() || reap(64))
			goto fail;
	}
	t = now_ns() - t0;
	printf("NOPs in batches of 64: %.0f per second; doorbells %lu for %u batches\n",
	       i / (t / 1e9), doorbells - db0, i / 64);

	db0 = doorbells;
	usleep(20000);		/* the poller idles and sleeps */
	t0 = now_ns();
	txrdma_prep_nop(txrdma_get_sqe(&sq), 0, 0);
	if (submit() || reap(1))
		goto fail;
	printf("one NOP after 20 ms idle: %.1f us, doorbells %lu (the poller had gone to sleep)\n",
	       (now_ns() - t0) / 1e3, doorbells - db0);
	printf("SQEs refused: %u, CQ overflow: %u\n", txrdma_sq_dropped(&sq),
	       txrdma_cq_overflow(&cq));
	free(lat);
	txrdma_close(ctx);
	return 0;

fail:
	fprintf(stderr, "ring_nop: a NOP failed or did not complete\n");
	return 1;
usage:
	fprintf(stderr, "usage: ring_nop [-n N>=100]\n");
	return 2;
}
