// SPDX-License-Identifier: GPL-2.0-only
/*
 * pool_take: how long taking a ready, connected RC QP from a peer's
 * pool costs a process (TXRDMA_IOC_EP_CREATE), and giving it back
 * (TXRDMA_IOC_EP_DESTROY).  Run inside a tenant, against a peer whose
 * pool is full; tools/bench/pool_take.sh compares it with rdma_cm
 * connection setup measured by cmtime in the same run.
 *
 *   pool_take -p PEER [-n N]
 *
 * Prints "take_us min p50 avg p99 max" and "giveback_us ..." lines and
 * exits non-zero if any call failed for another reason than an empty
 * pool (-EAGAIN: counted, retried after the pool refills).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <linux/txrdma.h>

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

static void report(const char *what, uint64_t *v, unsigned int n)
{
	double sum = 0;
	unsigned int i;

	qsort(v, n, sizeof(*v), cmp_u64);
	for (i = 0; i < n; i++)
		sum += (double)v[i];
	printf("%s min %.1f p50 %.1f avg %.1f p99 %.1f max %.1f\n", what,
	       v[0] / 1e3, v[n / 2] / 1e3, sum / n / 1e3,
	       v[(n * 99) / 100] / 1e3, v[n - 1] / 1e3);
}

int main(int argc, char **argv)
{
	const char *peer = NULL;
	unsigned int n = 1000, i, again = 0;
	uint64_t *take, *give, t0, t1, t2;
	int fd, opt;

	while ((opt = getopt(argc, argv, "p:n:")) != -1) {
		switch (opt) {
		case 'p':
			peer = optarg;
			break;
		case 'n':
			n = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		default:
			goto usage;
		}
	}
	if (!peer || !n || strlen(peer) >= TXRDMA_PEER_NAME_MAX)
		goto usage;
	fd = open("/dev/" TXRDMA_DEVICE_NAME, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		perror("open /dev/txrdma");
		return 1;
	}
	take = calloc(n, sizeof(*take));
	give = calloc(n, sizeof(*give));
	if (!take || !give)
		return 1;
	for (i = 0; i < n; i++) {
		struct txrdma_ep_create c = { 0 };
		struct txrdma_ep_info d = { 0 };

		strcpy((char *)c.peer, peer);
		t0 = now_ns();
		if (ioctl(fd, TXRDMA_IOC_EP_CREATE, &c)) {
			if (errno == EAGAIN && again++ < 10 * n) {
				i--;	/* pool refilling: take again */
				continue;
			}
			fprintf(stderr, "EP_CREATE %s: %s\n", peer,
				strerror(errno));
			return 1;
		}
		t1 = now_ns();
		d.id = c.id;
		if (ioctl(fd, TXRDMA_IOC_EP_DESTROY, &d)) {
			perror("EP_DESTROY");
			return 1;
		}
		t2 = now_ns();
		take[i] = t1 - t0;
		give[i] = t2 - t1;
	}
	report("take_us", take, n);
	report("giveback_us", give, n);
	printf("takes %u empty_pool_retries %u\n", n, again);
	free(take);
	free(give);
	close(fd);
	return 0;

usage:
	fprintf(stderr, "usage: pool_take -p PEER [-n N]\n");
	return 2;
}
