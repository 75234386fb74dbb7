/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The network of lib/raft's host tests: servers 1..n, each a raft_io
 * (its own in-memory store) on a TCP transport on 127.0.0.1, every one
 * naming the others, all polled from one thread.  The tests add the
 * state machines, raft_init() and the timeouts.
 */
#ifndef RAFT_TCP_NET_H
#define RAFT_TCP_NET_H

#include <stdbool.h>
#include <stdio.h>
#include <time.h>

#include "../txraft_io.h"
#include "txn_tcp.h"
#include "txn_test.h"

struct raft_tcp_node {
	struct txraft_io *x;
	struct txn_transport *t;
	char addr[32];		/* "127.0.0.1:port": libraft's address */
	int port;
};

/*
 * Open *@nd[1..@n] (messages up to @max_msg bytes) and add each to
 * @conf as a voter.  Return: 0, or -1 when anything failed.
 */
static inline int raft_tcp_net_open(struct raft_tcp_node *const nd[],
				    unsigned int n, uint32_t max_msg,
				    struct raft_configuration *conf)
{
	unsigned int i, j;

	for (i = 1; i <= n; i++) {
		struct sockaddr_in a = addr_of(0);
		struct txn_tcp_cfg tc = {
			.self = i, .listen = (struct sockaddr *)&a,
			.listen_len = sizeof(a), .max_msg = max_msg,
			.reconnect_ms = 10,
		};

		if (txraft_io_new(&nd[i]->x, i, max_msg, NULL) ||
		    txn_tcp_open(&nd[i]->t, &tc, &txraft_io_transport_cb,
				 nd[i]->x))
			return -1;
		txraft_io_attach(nd[i]->x, nd[i]->t);
		nd[i]->port = txn_tcp_port(nd[i]->t);
		snprintf(nd[i]->addr, sizeof(nd[i]->addr), "127.0.0.1:%d",
			 nd[i]->port);
		if (raft_configuration_add(conf, i, nd[i]->addr, RAFT_VOTER))
			return -1;
	}
	for (i = 1; i <= n; i++) {
		for (j = 1; j <= n; j++) {
			struct sockaddr_in a = addr_of(nd[j]->port);

			if (j != i &&
			    (txn_tcp_add_peer(nd[i]->t, j, (struct sockaddr *)&a,
					      sizeof(a)) ||
			     txraft_io_add_peer(nd[i]->x, j, nd[j]->addr)))
				return -1;
		}
	}
	return 0;
}

static inline void raft_tcp_closed(struct raft *r)
{
	*(bool *)r->data = true;
}

/*
 * Close @r (raft_init()'d on @nd's io: the io completes its queue, then
 * libraft calls back), then @nd's io and transport.
 */
static inline void raft_tcp_node_stop(struct raft_tcp_node *nd, struct raft *r)
{
	bool closed = false;

	r->data = &closed;
	raft_close(r, raft_tcp_closed);
	while (!closed)
		txraft_io_poll(nd->x, 1);
	txn_transport_close(nd->t);
	txraft_io_free(nd->x);
	nd->t = NULL;
	nd->x = NULL;
}

static inline double raft_tcp_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* poll until @cond holds, at most @seconds: whether it held */
static inline bool raft_tcp_wait(bool (*cond)(void), void (*poll)(void),
				 double seconds)
{
	double end = raft_tcp_now_s() + seconds;

	while (!cond()) {
		if (raft_tcp_now_s() > end)
			return false;
		poll();
	}
	return true;
}

#endif /* RAFT_TCP_NET_H */
