// SPDX-License-Identifier: GPL-2.0-only
/*
 * reg_cost: what memory registration costs a sender, measured in one run.
 *
 *   txrdma      one TXRDMA_IOC_REGION_CREATE of the whole buffer pool:
 *               2 MiB pages allocated, pinned and fast-registered with
 *               every device, once; no message registers anything
 *   verbs/send  ibv_reg_mr + ibv_dereg_mr of the message's buffer for
 *               every message (what code without a registered pool does)
 *   verbs/once  one ibv_reg_mr of the whole pool (for reference)
 *
 * The process must belong to a txrdma tenant (see reg_cost.sh).  Prints
 * one line per message size and the ratio of per-send registration time
 * for N messages to txrdma's one-time region creation.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <linux/txrdma.h>

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	size_t msg = 4096, nbuf = 16, n = 1000, reps = 5;
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
		     IBV_ACCESS_REMOTE_WRITE;
	double t0, create_us[16], per_send_us, once_us, destroy_us = 0;
	struct ibv_device **list;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	size_t pool, i, r;
	char *buf;
	int fd, c;

	while ((c = getopt(argc, argv, "s:n:b:r:")) != -1) {
		switch (c) {
		case 's': msg = strtoull(optarg, NULL, 0); break;
		case 'n': n = strtoull(optarg, NULL, 0); break;
		case 'b': nbuf = strtoull(optarg, NULL, 0); break;
		case 'r': reps = strtoull(optarg, NULL, 0); break;
		default:
			fprintf(stderr, "usage: %s [-s MSG_BYTES] [-n MESSAGES] [-b BUFFERS] [-r REPS]\n",
				argv[0]);
			return 2;
		}
	}
	if (!msg || !n || !nbuf || !reps || reps > 16) {
		fprintf(stderr, "reg_cost: sizes and counts must be positive, reps <= 16\n");
		return 2;
	}
	pool = (msg * nbuf + TXRDMA_REGION_HUGE_SIZE - 1) &
	       ~(TXRDMA_REGION_HUGE_SIZE - 1);

	fd = open("/dev/txrdma", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		perror("reg_cost: /dev/txrdma");
		return 1;
	}
	/* txrdma: region creation, the median of reps */
	for (r = 0; r < reps; r++) {
		struct txrdma_region_create rc = { .size = pool };
		struct txrdma_region_info ri = { 0 };

		t0 = now_us();
		if (ioctl(fd, TXRDMA_IOC_REGION_CREATE, &rc)) {
			fprintf(stderr, "reg_cost: region create: %s\n",
				strerror(errno));
			return 1;
		}
		create_us[r] = now_us() - t0;
		ri.id = rc.id;
		t0 = now_us();
		if (ioctl(fd, TXRDMA_IOC_REGION_DESTROY, &ri)) {
			fprintf(stderr, "reg_cost: region destroy: %s\n",
				strerror(errno));
			return 1;
		}
		destroy_us += now_us() - t0;
	}
	qsort(create_us, reps, sizeof(double), cmp_double);

	list = ibv_get_device_list(NULL);
	if (!list || !list[0]) {
		fprintf(stderr, "reg_cost: no RDMA device\n");
		return 1;
	}
	ctx = ibv_open_device(list[0]);
	pd = ctx ? ibv_alloc_pd(ctx) : NULL;
	if (!pd) {
		fprintf(stderr, "reg_cost: cannot open %s\n",
			ibv_get_device_name(list[0]));
		return 1;
	}
	buf = mmap(NULL, pool, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (buf == MAP_FAILED) {
		perror("reg_cost: mmap");
		return 1;
	}
	/* verbs: register each message's buffer for its send */
	t0 = now_us();
	for (i = 0; i < n; i++) {
		struct ibv_mr *mr = ibv_reg_mr(pd, buf + (i % nbuf) * msg, msg,
					       access);

		if (!mr) {
			perror("reg_cost: ibv_reg_mr");
			return 1;
		}
		ibv_dereg_mr(mr);
	}
	per_send_us = (now_us() - t0) / n;
	/* verbs: the pool once */
	t0 = now_us();
	{
		struct ibv_mr *mr = ibv_reg_mr(pd, buf, pool, access);

		if (!mr) {
			perror("reg_cost: ibv_reg_mr pool");
			return 1;
		}
		once_us = now_us() - t0;
		ibv_dereg_mr(mr);
	}

	printf("%-8zu %6zu %8zu %12.1f %12.2f %14.1f %12.1f %10.1f\n",
	       msg, n, pool >> 10, create_us[reps / 2], per_send_us,
	       per_send_us * n, once_us,
	       per_send_us * n / create_us[reps / 2]);
	fflush(stdout);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	munmap(buf, pool);
	close(fd);
	(void)destroy_us;
	return 0;
}
