/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Leak checks by the count of live txrdma_region objects, shared by the
 * region tests.  Region structs are freed after an RCU grace period, so
 * a baseline is taken once earlier frees landed (slab_quiet()) and a
 * final count once it reached the baseline (slab_settle()).
 */
#ifndef TXRDMA_SLAB_UTIL_H
#define TXRDMA_SLAB_UTIL_H

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SLAB_NAME	"txrdma_region"
#define SLAB_SHRINK	"/sys/kernel/slab/" SLAB_NAME "/shrink"

/*
 * Active objects of the txrdma_region slab cache, or -1 if it is not
 * listed (a cache merged into another one is not).  SLUB counts the
 * objects of per-CPU slabs as active; shrinking first flushes those,
 * so that the count is exact.
 */
static long slab_active(void)
{
	char line[512], name[64];
	long active = -1, v;
	FILE *f;
	int fd;

	fd = open(SLAB_SHRINK, O_WRONLY);
	if (fd >= 0) {
		ssize_t n = write(fd, "1", 1);

		(void)n;	/* without it the count is approximate */
		close(fd);
	}
	f = fopen("/proc/slabinfo", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %ld", name, &v) == 2 &&
		    !strcmp(name, SLAB_NAME)) {
			active = v;
			break;
		}
	fclose(f);
	return active;
}

/*
 * The count once earlier frees have landed: regions are freed after an
 * RCU grace period (the data path looks them up under RCU), so a test
 * that just ended may still have some on the way out.  Sample until the
 * count has not dropped for 200 ms (5 s at most): the baseline of a
 * leak check.
 */
static long slab_quiet(void)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	long v = slab_active(), w;
	int still = 0;

	for (int i = 0; i < 250 && still < 10; i++) {
		nanosleep(&ts, NULL);
		w = slab_active();
		still = w < v ? 0 : still + 1;
		v = w < v ? w : v;
	}
	return v;
}

/* slab_active() once it equals @want, or its last value after ~5 s. */
static long slab_settle(long want)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	long v = slab_active();

	for (int i = 0; i < 500 && v != want; i++) {
		nanosleep(&ts, NULL);
		v = slab_active();
	}
	return v;
}

#endif /* TXRDMA_SLAB_UTIL_H */
