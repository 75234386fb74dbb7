// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Two-phase commit with libtxrdma_txn: a coordinator (node 1) and two
 * participants (nodes 2 and 3), here in one process and one thread for
 * brevity; in a database each is a process on its own host, and the
 * calls are the same.
 *
 *   txn_2pc [COUNT]              over TCP on 127.0.0.1
 *   txn_2pc COUNT PEER SERVICE   over txrdma where this host has it
 *                                (PEER as the administrator added it,
 *                                "self" for this host; nodes listen on
 *                                SERVICE + node), else over TCP, saying
 *                                why
 *
 * Participant 3 votes no on every tenth transaction; the rest commit.
 * What a real application adds: make its prepared state durable before
 * voting yes, apply a decision durably before txn_node_applied(), and
 * log the coordinator's COMMIT (the log hook) before it goes out.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <txn_node.h>
#include <txn_tcp.h>
#include <txn_txrdma.h>

struct node {
	uint32_t id;
	struct txn_transport *t;
	struct txn_node *n;
	unsigned long commits, aborts;
};

static struct node nodes[4];
static unsigned long done;

static void on_event(void *ctx, const struct txn_event *ev, void *user)
{
	struct node *me = ctx;

	(void)user;
	switch (ev->type) {
	case TXN_EV_PREPARE:	/* prepare, make it durable, then vote */
		if (me->id == 3 && ev->id.seq % 10 == 0)
			txn_node_vote(me->n, &ev->id, false, EDEADLK);
		else
			txn_node_vote(me->n, &ev->id, true, 0);
		break;
	case TXN_EV_DECIDE:	/* apply durably, then say so */
		txn_node_applied(me->n, &ev->id);
		break;
	case TXN_EV_DONE:	/* our own transaction's outcome */
		done++;
		if (ev->decision == TXRDMA_TXN_COMMIT)
			me->commits++;
		else
			me->aborts++;
		break;
	default:
		break;
	}
}

static const struct txn_node_hooks hooks = { .event = on_event };

static struct sockaddr_in loopback(uint32_t node)
{
	struct sockaddr_in a = { .sin_family = AF_INET };

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = htons((uint16_t)(23000 + node));
	return a;
}

static int open_node(struct node *nd, const char *peer, uint32_t service)
{
	struct sockaddr_in a = loopback(nd->id);
	struct txn_tcp_cfg tc = {
		.self = nd->id, .listen = (struct sockaddr *)&a,
		.listen_len = sizeof(a),
	};
	struct txn_txrdma_cfg xc = { .self = nd->id, .service_base = service };
	struct txn_node_cfg nc = {
		.self = nd->id, .epoch = 1, .window = 8, .max_parts = 2,
		.vote_retries = 3, .max_txns = 256, .max_batch = 16384,
		.vote_timeout_ns = 500000000, .ack_timeout_ns = 500000000,
		.inquire_timeout_ns = 500000000,
	};
	char why[160];
	int ret;

	ret = txn_transport_open(&nd->t, peer ? TXN_BACKEND_AUTO :
				 TXN_BACKEND_TCP, &xc, &tc,
				 &txn_node_transport_cb, NULL, why,
				 sizeof(why));
	if (ret)
		return ret;
	if (why[0] && nd->id == 1)
		printf("txn_2pc: %s\n", why);
	return txn_node_open(&nd->n, &nc, nd->t, &hooks, nd);
}

static int add_peer(struct node *nd, uint32_t other, const char *peer)
{
	struct sockaddr_in a = loopback(other);

	if (!strcmp(nd->t->ops->name, "txrdma"))
		return txn_txrdma_add_peer(nd->t, other, peer);
	return txn_tcp_add_peer(nd->t, other, (struct sockaddr *)&a,
				sizeof(a));
}

int main(int argc, char **argv)
{
	unsigned long count = argc > 1 ? strtoul(argv[1], NULL, 0) : 1000;
	const char *peer = argc > 3 ? argv[2] : NULL;
	uint32_t service = argc > 3 ? (uint32_t)strtoul(argv[3], NULL, 0) : 0;
	static const char data[] = "debit 10 from account 42";
	struct txn_branch br[2] = {
		{ .node = 2, .len = sizeof(data), .data = data },
		{ .node = 3, .len = sizeof(data), .data = data },
	};
	unsigned long begun = 0;
	struct timespec t0, t1;
	uint32_t i;
	int ret;

	for (i = 1; i <= 3; i++) {
		nodes[i].id = i;
		ret = open_node(&nodes[i], peer, service);
		if (ret) {
			fprintf(stderr, "txn_2pc: node %u: %s\n", i,
				strerror(-ret));
			return 1;
		}
	}
	for (i = 2; i <= 3; i++)
		if ((ret = add_peer(&nodes[1], i, peer)) ||
		    (ret = add_peer(&nodes[i], 1, peer))) {
			fprintf(stderr, "txn_2pc: peers: %s\n", strerror(-ret));
			return 1;
		}
	/* connected first, or the first PREPAREs wait for a resend */
	while (!txn_transport_peer_up(nodes[1].t, 2) ||
	       !txn_transport_peer_up(nodes[1].t, 3) ||
	       !txn_transport_peer_up(nodes[2].t, 1) ||
	       !txn_transport_peer_up(nodes[3].t, 1))
		for (i = 1; i <= 3; i++)
			txn_node_poll(nodes[i].n, 1);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (done < count) {
		/*
		 * begin what the window allows (-EBUSY: it is full), corked:
		 * each participant gets one message for all of them
		 */
		txn_node_cork(nodes[1].n);
		while (begun < count &&
		       !txn_node_begin(nodes[1].n, br, 2, NULL, NULL))
			begun++;
		txn_node_uncork(nodes[1].n);
		for (i = 1; i <= 3; i++)
			if (txn_node_poll(nodes[i].n, 0) < 0)
				return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("txn_2pc: %lu transactions over %s in %.3f s: %lu committed, %lu aborted\n",
	       count, nodes[1].t->ops->name,
	       (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
	       nodes[1].commits, nodes[1].aborts);
	for (i = 1; i <= 3; i++) {
		txn_node_close(nodes[i].n);
		txn_transport_close(nodes[i].t);
	}
	return nodes[1].commits + nodes[1].aborts == count ? 0 : 1;
}
