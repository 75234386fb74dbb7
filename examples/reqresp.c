// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Request/response over one endpoint pair: the client sends "req N",
 * the server answers "resp N"; "bye" ends it (the server closes the
 * pair when it reads it: see ex_bye()).
 *
 *   reqresp server SERVICE
 *   reqresp client PEER SERVICE COUNT
 *
 * Both run inside a tenant (txrdma-admin tenant exec NAME -- ...); PEER
 * is the server's host as the administrator added it (peer add).
 */
#include "example.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int server(__u32 service)
{
	struct ex_pair p;
	char msg[EX_MAX_MSG], reply[64];
	unsigned long n = 0, id;
	struct ex ex;
	int ret;

	ex_open(&ex);
	if ((ret = txrdma_ep_listen(ex.ctx, service)))
		ex_die("txrdma_ep_listen", ret);
	printf("reqresp server: listening on service %u\n", service);
	fflush(stdout);
	ex_pair(&ex, &p, 0, NULL, service);
	for (;;) {
		ex_recv(&p, msg, sizeof(msg), 1);
		if (!strcmp(msg, "bye"))
			break;
		if (sscanf(msg, "req %lu", &id) != 1) {
			fprintf(stderr, "reqresp server: unexpected \"%s\"\n", msg);
			return 1;
		}
		snprintf(reply, sizeof(reply), "resp %lu", id);
		ex_send(&p, reply, strlen(reply));
		n++;
	}
	printf("reqresp server: answered %lu requests from %s\n", n,
	       (const char *)p.ep.peer);
	txrdma_ep_destroy(ex.ctx, p.ep.id);
	txrdma_close(ex.ctx);
	return 0;
}

static int client(const char *peer, __u32 service, unsigned long count)
{
	char req[64], msg[EX_MAX_MSG], want[64];
	double *rtt, t;
	struct ex_pair p;
	unsigned long i;
	struct ex ex;

	rtt = calloc(count ? count : 1, sizeof(*rtt));
	if (!rtt)
		return 1;
	ex_open(&ex);
	ex_pair(&ex, &p, 0, peer, service);
	for (i = 0; i < count; i++) {
		snprintf(req, sizeof(req), "req %lu", i);
		snprintf(want, sizeof(want), "resp %lu", i);
		t = ex_now_us();
		ex_send(&p, req, strlen(req));
		ex_recv(&p, msg, sizeof(msg), 1);
		rtt[i] = ex_now_us() - t;
		if (strcmp(msg, want)) {
			fprintf(stderr, "reqresp client: asked \"%s\", got \"%s\"\n",
				req, msg);
			return 1;
		}
	}
	ex_bye(&p);
	qsort(rtt, count, sizeof(*rtt), cmp_double);
	printf("reqresp client: %lu round trips with %s, every answer right, p50 %.1f us, p99 %.1f us\n",
	       count, peer, count ? rtt[count / 2] : 0.0,
	       count ? rtt[count * 99 / 100] : 0.0);
	txrdma_ep_destroy(ex.ctx, p.ep.id);
	txrdma_close(ex.ctx);
	free(rtt);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "server"))
		return server((__u32)strtoul(argv[2], NULL, 0));
	if (argc == 5 && !strcmp(argv[1], "client"))
		return client(argv[2], (__u32)strtoul(argv[3], NULL, 0),
			      strtoul(argv[4], NULL, 0));
	fprintf(stderr, "usage: reqresp server SERVICE\n"
			"       reqresp client PEER SERVICE COUNT\n");
	return 2;
}
