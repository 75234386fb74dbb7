// SPDX-License-Identifier: GPL-2.0-only
/*
 * pair_setup: what it costs to set up an endpoint pair and an export.
 *
 *   pair_setup -p PEER [-n PAIRS] [-S SERVICE]
 *
 * One process of a tenant, two files: a server thread listens on
 * SERVICE and accepts, the main thread connects to PEER (the guest
 * itself: a self peer over rxe loopback) PAIRS times.  Each connect is
 * timed from the call to its return (the EP_CONNECT/EP_ACCEPT round
 * trip on the control QP, the pooled QP taken and bound on both sides,
 * each side's receive ring registered for the peer), then the client
 * exports the second MiB of its region to the pair (timed: registration
 * of the range for the peer and the EXPORT/EXPORT_ACK round trip) and
 * both sides destroy their endpoint.  Rings rotate through the first
 * half of one region (an export may never overlap a receive ring), so
 * no region is created on the timed path.  Prints the p50, p90 and p99
 * of each, in us:
 *
 *   connect_us n N p50 X p90 Y p99 Z
 *   export_us  n N p50 X p90 Y p99 Z
 *
 * Exit: 0, or 1 with a message on the first failure.  Run inside a
 * tenant whose pool to PEER lends at least one QP at a time.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <txrdma.h>

#define REGION_SIZE	(2u << 20)
#define UNITS		64	/* a small ring: 4 KiB of units */
#define RINGS		64	/* ring areas per region, rotated */
#define EXPORT_OFF	(REGION_SIZE / 2)	/* exported: the second half */

static unsigned int npairs = 200;
static unsigned int service = 0x5e7;
static const char *peer;

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "pair_setup: %s: %s\n", what, strerror(-err));
	exit(1);
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void report(const char *name, double *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp);
	printf("%-10s n %u p50 %.1f p90 %.1f p99 %.1f\n", name, n,
	       v[n / 2], v[n * 9 / 10], v[n * 99 / 100]);
}

struct side {
	struct txrdma_ctx *ctx;
	struct txrdma_sq sq;
	struct txrdma_cq cq;
	struct txrdma_region reg;
};

static void side_open(struct side *s)
{
	int ret = txrdma_open(&s->ctx, 0);

	if (ret)
		die("open /dev/txrdma", ret);
	ret = txrdma_rings_setup(s->ctx, 64, 0, &s->sq, &s->cq);
	if (ret)
		die("rings setup (is this process in a tenant?)", ret);
	ret = txrdma_region_create(s->ctx, REGION_SIZE, 0, &s->reg);
	if (ret)
		die("region", ret);
}

static void params(struct txrdma_ep_params *p, const struct side *s,
		   unsigned int i)
{
	size_t area = (txrdma_rx_area_size(UNITS) + 4095) & ~4095ul;

	memset(p, 0, sizeof(*p));
	p->service = service;
	p->rx_region = s->reg.id;
	p->rx_units = UNITS;
	p->rx_off = (i % RINGS) * area;
	p->timeout_ms = 10000;
	if (RINGS * area > EXPORT_OFF)
		die("ring areas reach into the exported half", -EINVAL);
}

/* the region's second half, READ and WRITE: no ring in it */
static int ep_export(struct txrdma_ctx *ctx, __u32 ep, __u32 region)
{
	const struct txrdma_export_info x = {
		.region	= region,
		.access	= TXRDMA_EXPORT_READ | TXRDMA_EXPORT_WRITE,
		.off	= EXPORT_OFF,
		.len	= REGION_SIZE - EXPORT_OFF,
	};

	return txrdma_ep_export(ctx, ep, &x, 0);
}

static struct side srv;
static pthread_barrier_t step;

static void *server(void *arg)
{
	struct txrdma_ep_pair out;
	struct txrdma_ep_params p;
	unsigned int i;
	int ret;

	(void)arg;
	for (i = 0; i < npairs; i++) {
		params(&p, &srv, i);
		do {
			memset(&out, 0, sizeof(out));
			ret = txrdma_ep_accept(srv.ctx, &p, &out);
		} while (ret == -EAGAIN || ret == -EINTR);
		if (ret)
			die("accept", ret);
		/* the client has exported: both ends may go */
		pthread_barrier_wait(&step);
		ret = txrdma_ep_destroy(srv.ctx, out.id);
		if (ret && ret != -ECONNRESET)
			die("server destroy", ret);
		pthread_barrier_wait(&step);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct txrdma_ep_pair out;
	struct txrdma_ep_params p;
	double *conn_us, *exp_us, t;
	unsigned long retries = 0;
	struct side cli;
	pthread_t th;
	unsigned int i;
	int c, ret;

	while ((c = getopt(argc, argv, "p:n:S:")) != -1) {
		switch (c) {
		case 'p':
			peer = optarg;
			break;
		case 'n':
			npairs = strtoul(optarg, NULL, 0);
			break;
		case 'S':
			service = strtoul(optarg, NULL, 0);
			break;
		default:
			fprintf(stderr, "usage: pair_setup -p PEER [-n PAIRS] [-S SERVICE]\n");
			return 2;
		}
	}
	if (!peer || !npairs) {
		fprintf(stderr, "usage: pair_setup -p PEER [-n PAIRS] [-S SERVICE]\n");
		return 2;
	}
	conn_us = calloc(npairs, sizeof(*conn_us));
	exp_us = calloc(npairs, sizeof(*exp_us));
	if (!conn_us || !exp_us)
		die("memory", -ENOMEM);
	side_open(&srv);
	side_open(&cli);
	ret = txrdma_ep_listen(srv.ctx, service);
	if (ret)
		die("listen", ret);
	pthread_barrier_init(&step, NULL, 2);
	if (pthread_create(&th, NULL, server, NULL))
		die("thread", -errno);
	for (i = 0; i < npairs; i++) {
		params(&p, &cli, i);
		t = now_us();
		/*
		 * -EAGAIN: the pool refills; -EBUSY: both ends took the same
		 * QP four times running (a self peer lends from both ends of
		 * one pool): the time counts, the attempt goes on
		 */
		do {
			memset(&out, 0, sizeof(out));
			ret = txrdma_ep_connect(cli.ctx, peer, &p, &out);
			retries += ret == -EBUSY;
		} while (ret == -EAGAIN || ret == -EBUSY);
		conn_us[i] = now_us() - t;
		if (ret)
			die("connect", ret);
		t = now_us();
		ret = ep_export(cli.ctx, out.id, cli.reg.id);
		exp_us[i] = now_us() - t;
		if (ret)
			die("export", ret);
		pthread_barrier_wait(&step);
		pthread_barrier_wait(&step);
		ret = txrdma_ep_destroy(cli.ctx, out.id);
		if (ret && ret != -ECONNRESET)
			die("client destroy", ret);
	}
	pthread_join(th, NULL);
	report("connect_us", conn_us, npairs);
	report("export_us", exp_us, npairs);
	printf("busy_retries %lu\n", retries);
	return 0;
}
