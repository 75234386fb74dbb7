// SPDX-License-Identifier: GPL-2.0-only
/*
 * msg_kill: a peer killed mid-stream (the msgkill suite, 2 guests).
 *
 *   msg_kill server SERVICE            accept one pair, drain it until
 *                                      it fails (the host kills us)
 *   msg_kill client PEER SERVICE FILE BOUND_MS
 *
 * The client streams 4 KiB SENDs (32 in flight) and creates FILE once
 * 2000 have completed: the host then kills the server's guest.  It
 * prints TAP: the SENDs in flight fail with -ENOTCONN or -ECONNRESET
 * within BOUND_MS of the last one that succeeded, every SQE completes
 * exactly once, and the receive ring reports the error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <txrdma.h>

#include "pair_side.h"

#define UNITS	4096
#define WINDOW	32
#define MSG	4096

static struct pair_side side;

static double now_ms(void)
{
	return pair_now_ms();
}

static void die(const char *what, int err)
{
	printf("not ok 1 - msg_kill: %s: %s\n", what, strerror(err));
	exit(1);
}

static void setup(__u32 service, const char *peer)
{
	const char *what;
	int ret = pair_side_setup(&side, service, peer, UNITS, false, 0, &what);

	if (ret)
		die(what, -ret);
}

static int server(__u32 service)
{
	const void *p;
	__u32 len;
	int ret;

	setup(service, NULL);
	printf("# server: pair %u <-> %u, draining\n", side.ep.id,
	       side.ep.peer_ep);
	fflush(stdout);
	for (;;) {
		ret = txrdma_rx_peek(&side.rx, &p, &len);
		if (ret < 0)
			break;
		if (ret)
			txrdma_rx_release(&side.rx);
	}
	printf("# server: ring failed with %d\n", ret);
	return 0;
}

static int client(const char *peer, __u32 service, const char *file,
		  double bound_ms)
{
	unsigned long posted = 0, done = 0, ok = 0, failed = 0, bad = 0;
	double last_ok = 0, first_err = 0, t_end;
	unsigned char *seen;
	int first_res = 0, rx_err;
	const void *p;
	__u32 len;

	setup(service, peer);
	seen = calloc(1 << 20, 1);
	if (!seen)
		die("calloc", ENOMEM);
	memset((char *)side.reg.addr + (1 << 20), 0xa5, MSG);
	t_end = now_ms() + 120000;
	while (now_ms() < t_end) {
		struct txrdma_cqe *c;

		while (!failed && posted - done < WINDOW && posted < (1 << 20)) {
			struct txrdma_sqe *e = txrdma_get_sqe(&side.sq);

			if (!e)
				break;
			txrdma_prep_send(e, side.ep.id, side.reg.id, 1 << 20,
					 MSG, posted);
			posted++;
		}
		txrdma_submit(side.ctx, &side.sq);
		while ((c = txrdma_peek_cqe(&side.cq))) {
			if (c->user_data >= posted || seen[c->user_data]++)
				bad++;
			if (c->res == MSG) {
				ok++;
				last_ok = now_ms();
			} else {
				if (!failed++) {
					first_err = now_ms();
					first_res = c->res;
				}
			}
			done++;
			txrdma_cq_advance(&side.cq, 1);
			if (ok == 2000 && c->res == MSG) {
				int fd = open(file, O_CREAT | O_WRONLY, 0644);

				if (fd >= 0)
					close(fd);
				printf("# client: 2000 SENDs done, %s created\n",
				       file);
				fflush(stdout);
			}
		}
		if (failed && done == posted)
			break;
	}
	/*
	 * the ring's error comes after the frames (we received none), and
	 * only once the kernel drained the pair's QP, which may be after
	 * the SQEs completed: a bounded wait for it
	 */
	t_end = now_ms() + 10000;
	while (!(rx_err = txrdma_rx_peek(&side.rx, &p, &len)) &&
	       now_ms() < t_end)
		usleep(1000);
	printf("# client: %lu posted, %lu ok, %lu failed (first: %d, %.1f ms after the last success), %lu duplicate or unknown CQEs\n",
	       posted, ok, failed, first_res, first_err - last_ok, bad);
	printf("%s 1 - the SENDs in flight fail with -ENOTCONN or -ECONNRESET once the peer is killed (got %d)\n",
	       failed && (first_res == -ENOTCONN || first_res == -ECONNRESET) ?
	       "ok" : "not ok", first_res);
	printf("%s 2 - the first error comes within %.0f ms of the last success (%.1f ms)\n",
	       failed && first_err - last_ok <= bound_ms ? "ok" : "not ok",
	       bound_ms, first_err - last_ok);
	printf("%s 3 - every SEND completed exactly once (%lu of %lu)\n",
	       !bad && done == posted ? "ok" : "not ok", done, posted);
	printf("%s 4 - the receive ring reports the error (%d)\n",
	       rx_err == -ENOTCONN || rx_err == -ECONNRESET ? "ok" : "not ok",
	       rx_err);
	txrdma_close(side.ctx);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && !strcmp(argv[1], "server"))
		return server(atoi(argv[2]));
	if (argc == 6 && !strcmp(argv[1], "client")) {
		printf("1..4\n");
		return client(argv[2], atoi(argv[3]), argv[4], atof(argv[5]));
	}
	fprintf(stderr, "usage: msg_kill server SERVICE | client PEER SERVICE FILE BOUND_MS\n");
	return 2;
}
