// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A replicated counter with libtxrdma_raft: three libraft servers
 * (ids 1, 2, 3), here in one process and one thread for brevity; in a
 * database each is a process on its own host, and the calls are the
 * same.  Whoever leads proposes COUNT commands "add k"; every server
 * applies them to its counter, and the three counters must agree.
 *
 *   raft_counter [COUNT]              over TCP on 127.0.0.1
 *   raft_counter COUNT PEER SERVICE   over txrdma where this host has
 *                                     it (PEER as the administrator
 *                                     added it, "self" for this host;
 *                                     server n listens on SERVICE + n),
 *                                     else over TCP, saying why
 *
 * What a real server adds: txraft_store_open() on a file of its own
 * (its term, vote and log survive a crash), and
 * txraft_io_watch_leader() so that a dead leader is replaced as soon
 * as the transport says so.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <raft.h>
#include <txn_tcp.h>
#include <txn_txrdma.h>
#include <txraft_io.h>
#include <txraft_snap2.h>

#define N	3

struct server {
	struct txraft_io *x;
	struct txn_transport *t;
	struct raft raft;
	struct raft_fsm fsm;
	char addr[32];
	uint64_t applied, total;
	bool closed;
};

static struct server srv[N + 1];
static unsigned long proposed, acked, failed;

/* the state machine: "add k" to the total */
static int apply(struct raft_fsm *fsm, const struct raft_buffer *buf,
		 void **result)
{
	struct server *s = fsm->data;
	uint64_t k;

	*result = NULL;
	if (buf->len != sizeof(k))
		return RAFT_MALFORMED;
	memcpy(&k, buf->base, sizeof(k));
	s->total += k;
	s->applied++;
	return 0;
}

static int snapshot(struct raft_fsm *fsm, struct raft_buffer *bufs[],
		    unsigned int *n)
{
	struct server *s = fsm->data;

	return txraft_snap2_make(s->applied, s->total, bufs, n);
}

static int restore(struct raft_fsm *fsm, struct raft_buffer *buf)
{
	struct server *s = fsm->data;

	return txraft_snap2_take(buf, &s->applied, &s->total);
}

static void applied_cb(struct raft_apply *req, int status, void *result)
{
	(void)result;
	if (!status)
		acked++;
	else
		failed++;	/* leadership lost: it may or may not apply */
	free(req);
}

static int open_transport(unsigned int i, int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	struct txn_tcp_cfg tc = { .self = i };
	int ret;

	if (argc == 4) {
		struct txn_txrdma_cfg xc = {
			.self = i,
			.service_base = (uint32_t)atoi(argv[3]),
		};

		ret = txn_txrdma_open(&srv[i].t, &xc, &txraft_io_transport_cb,
				      srv[i].x);
		if (!ret)
			return 0;
		if (i == 1)
			printf("raft_counter: no txrdma here (%s): over TCP\n",
			       strerror(-ret));
	}
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = htons((uint16_t)(27900 + i));
	tc.listen = (struct sockaddr *)&a;
	tc.listen_len = sizeof(a);
	return txn_tcp_open(&srv[i].t, &tc, &txraft_io_transport_cb,
			    srv[i].x);
}

static int add_peer(unsigned int i, unsigned int j, int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };

	if (argc == 4 && !strcmp(srv[i].t->ops->name, "txrdma"))
		return txn_txrdma_add_peer(srv[i].t, j, argv[2]);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = htons((uint16_t)(27900 + j));
	return txn_tcp_add_peer(srv[i].t, j, (struct sockaddr *)&a, sizeof(a));
}

static void closed_cb(struct raft *r)
{
	((struct server *)r->data)->closed = true;
}

int main(int argc, char **argv)
{
	unsigned long count = argc > 1 ? strtoul(argv[1], NULL, 0) : 1000;
	struct raft_configuration conf;
	time_t deadline = time(NULL) + 60;
	const char *via;
	unsigned int i, j;
	int ret;

	if ((argc != 1 && argc != 2 && argc != 4) || !count) {
		fprintf(stderr, "usage: raft_counter [COUNT [PEER SERVICE]]\n");
		return 2;
	}
	raft_configuration_init(&conf);
	for (i = 1; i <= N; i++) {
		snprintf(srv[i].addr, sizeof(srv[i].addr), "server-%u", i);
		ret = txraft_io_new(&srv[i].x, i, 16384, NULL);
		if (!ret)
			ret = open_transport(i, argc, argv);
		if (ret) {
			fprintf(stderr, "raft_counter: server %u: %s\n", i,
				strerror(-ret));
			return 1;
		}
		txraft_io_attach(srv[i].x, srv[i].t);
		raft_configuration_add(&conf, i, srv[i].addr, RAFT_VOTER);
	}
	for (i = 1; i <= N; i++) {
		for (j = 1; j <= N; j++) {
			if (j == i)
				continue;
			ret = add_peer(i, j, argc, argv);
			if (!ret)
				ret = txraft_io_add_peer(srv[i].x, j, srv[j].addr);
			if (ret) {
				fprintf(stderr, "raft_counter: peer %u of %u: %s\n",
					j, i, strerror(-ret));
				return 1;
			}
		}
		srv[i].fsm = (struct raft_fsm) { .version = 1, .data = &srv[i],
						 .apply = apply,
						 .snapshot = snapshot,
						 .restore = restore };
		if (raft_init(&srv[i].raft, txraft_io_raft(srv[i].x),
			      &srv[i].fsm, i, srv[i].addr) ||
		    raft_bootstrap(&srv[i].raft, &conf) ||
		    raft_start(&srv[i].raft)) {
			fprintf(stderr, "raft_counter: server %u: %s\n", i,
				raft_errmsg(&srv[i].raft));
			return 1;
		}
		srv[i].raft.data = &srv[i];
	}
	raft_configuration_close(&conf);

	/* run the three; the leader proposes, 16 in flight */
	while (srv[1].applied < count || srv[2].applied < count ||
	       srv[3].applied < count) {
		for (i = 1; i <= N; i++) {
			txraft_io_poll(srv[i].x, 1);
			while (raft_state(&srv[i].raft) == RAFT_LEADER &&
			       proposed < count && proposed - acked < 16) {
				struct raft_apply *req = calloc(1, sizeof(*req));
				struct raft_buffer b = { .len = 8 };
				uint64_t k = ++proposed;

				b.base = raft_malloc(b.len);
				if (!req || !b.base)
					return 1;
				memcpy(b.base, &k, sizeof(k));
				if (raft_apply(&srv[i].raft, req, &b, 1,
					       applied_cb)) {
					raft_free(b.base);
					free(req);
					proposed--;
					break;
				}
			}
		}
		if (failed) {
			/* a real client retries with an id it can dedupe */
			fprintf(stderr, "raft_counter: %lu proposals failed (leadership lost)\n",
				failed);
			return 1;
		}
		if (time(NULL) > deadline) {
			fprintf(stderr, "raft_counter: not done in 60 s\n");
			return 1;
		}
	}
	via = srv[1].t->ops->name;
	for (i = 1; i <= N; i++)
		raft_close(&srv[i].raft, closed_cb);
	for (i = 1; i <= N; i++) {
		while (!srv[i].closed)
			txraft_io_poll(srv[i].x, 1);
		txn_transport_close(srv[i].t);
		txraft_io_free(srv[i].x);
	}
	if (srv[1].total != srv[2].total || srv[1].total != srv[3].total ||
	    srv[1].total != (uint64_t)count * (count + 1) / 2) {
		printf("raft_counter: totals differ: %llu %llu %llu\n",
		       (unsigned long long)srv[1].total,
		       (unsigned long long)srv[2].total,
		       (unsigned long long)srv[3].total);
		return 1;
	}
	printf("raft_counter: 3 servers applied %lu commands over %s, totals equal (%llu)\n",
	       count, via, (unsigned long long)srv[1].total);
	return 0;
}
