// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * An epoll-driven server of the reqresp protocol ("req N" -> "resp N",
 * "bye" ends a client) for several clients at once: one context, one
 * pair of rings, one descriptor in epoll for every pair.  The
 * descriptor is readable while completions wait or a receive ring holds
 * a message, so one epoll_wait() serves every pair.
 *
 *   epoll_server SERVICE NCLIENTS
 *
 * Clients: reqresp client PEER SERVICE COUNT.
 */
#include <sys/epoll.h>

#include "example.h"

#define MAX_CLIENTS	4

int main(int argc, char **argv)
{
	struct ex_pair p[MAX_CLIENTS];
	int bye[MAX_CLIENTS] = { 0 };	/* the client said bye: it may go */
	unsigned long answered = 0, waits = 0, id;
	char msg[EX_MAX_MSG], reply[64];
	struct epoll_event ev = { .events = EPOLLIN };
	unsigned int n, i, done = 0;
	struct ex ex;
	__u32 service;
	int efd, ret;

	if (argc != 3) {
		fprintf(stderr, "usage: epoll_server SERVICE NCLIENTS\n");
		return 2;
	}
	service = (__u32)strtoul(argv[1], NULL, 0);
	n = (unsigned int)strtoul(argv[2], NULL, 0);
	if (!n || n > MAX_CLIENTS) {
		fprintf(stderr, "epoll_server: 1 to %d clients\n", MAX_CLIENTS);
		return 2;
	}
	ex_open(&ex);
	if ((ret = txrdma_ep_listen(ex.ctx, service)))
		ex_die("txrdma_ep_listen", ret);
	printf("epoll_server: listening on service %u for %u clients\n",
	       service, n);
	fflush(stdout);
	/* each pair its own receive ring and send buffer in the region */
	for (i = 0; i < n; i++)
		ex_pair(&ex, &p[i], i, NULL, service);

	efd = epoll_create1(EPOLL_CLOEXEC);
	if (efd < 0 || epoll_ctl(efd, EPOLL_CTL_ADD, txrdma_fd(ex.ctx), &ev)) {
		perror("epoll");
		return 1;
	}
	while (done < n) {
		/* the doorbell, if the kernel's poller sleeps with work */
		if (txrdma_sq_needs_wakeup(&ex.sq))
			txrdma_rings_enter(ex.ctx);
		if (epoll_wait(efd, &ev, 1, 1000) < 0) {
			perror("epoll_wait");
			return 1;
		}
		waits++;
		/* every pair: answer what waits, without blocking */
		for (i = 0; i < n; i++) {
			/* after bye the client closes: its pair then ends */
			while (!bye[i] && ex_recv(&p[i], msg, sizeof(msg), 0)) {
				if (!strcmp(msg, "bye")) {
					/* the client waits for our close */
					txrdma_ep_destroy(ex.ctx, p[i].ep.id);
					bye[i] = 1;
					done++;
					break;
				}
				if (sscanf(msg, "req %lu", &id) != 1) {
					fprintf(stderr, "epoll_server: unexpected \"%s\"\n",
						msg);
					return 1;
				}
				snprintf(reply, sizeof(reply), "resp %lu", id);
				ex_send(&p[i], reply, strlen(reply));
				answered++;
			}
		}
	}
	printf("epoll_server: %u clients, %lu requests answered, %lu epoll waits\n",
	       n, answered, waits);
	txrdma_close(ex.ctx);
	return 0;
}
