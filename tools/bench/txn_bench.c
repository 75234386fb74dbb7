// SPDX-License-Identifier: GPL-2.0-only
/*
 * Two-phase commit through the transaction layer (lib/txn), one
 * coordinator and P participants, each a node in a thread of its own,
 * over txrdma endpoint pairs or over TCP on 127.0.0.1: commit latency
 * (begin to DONE) and transactions per second at a given window.
 *
 *   txn_bench -b txrdma|tcp -p PARTS -w WINDOW [-m spin|wait] [-A]
 *             [-t SECONDS] [-d BYTES] [-n PEER] [-S SERVICE_BASE]
 *             [-P PORT_BASE]
 *
 * Participants vote yes and apply at once; the decision log is the
 * layer's in-memory one (no hook): what is measured is the protocol
 * over the transport.  Mode spin (the default): one thread polls every
 * node in turn without waiting, as a latency-bound database's event
 * loop would, so that no thread wake-up is in the measure and the
 * guest's two vCPUs are not shared among busy threads; mode wait: a
 * thread per node, each waiting in its transport.  Both backends run
 * the same mode.  -A: txrdma endpoints read frames ahead of the kernel
 * (TXRDMA_EP_F_RX_AHEAD: the process takes a frame it checked itself,
 * without waiting for the kernel's publication).  txrdma needs the
 * module, a tenant for this process and the peer PEER (default "self":
 * the host reaches itself over rxe loopback); run it through
 * txn_bench.sh, which sets those up in a guest and runs both backends.
 *
 * Output: one line "txn_bench backend B parts P window W txns N tps X
 * p50_us A p99_us B p999_us C lost L" after SECONDS of measuring (a
 * warm-up second first), or "txn_bench: ..." on stderr and exit 1.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <txrdma.h>

#include "txn_node.h"
#include "txn_tcp.h"
#include "txn_txrdma.h"

#define MAX_PARTS	8
#define MAX_SAMPLES	(1u << 21)
#define MAX_BATCH	16384

struct bnode {
	uint32_t id;
	struct txn_transport *t;
	struct txn_node *n;
	pthread_t thr;
};

static struct bnode nodes[MAX_PARTS + 2];	/* [1] coordinator */
static unsigned int parts = 2, window = 1, seconds = 3, data_len = 64;
static const char *backend = "tcp", *peer_name = "self";
static unsigned int service_base = 7000, port_base = 17000;
static bool spin = true;
static uint32_t ep_flags;	/* -A: TXRDMA_EP_F_RX_AHEAD */
static atomic_bool stop, measuring;
static atomic_uint ups;

/*
 * The coordinator's: begin times by slot, latencies of DONEs.  The
 * clock is read once per batch of begins (before it) and once per poll
 * that finished transactions (after it), not once per transaction: in
 * a TCG guest a read is a system call to the HPET, and two per
 * transaction cost more than a commit's records.  A latency is so
 * never shorter than the transaction took.
 */
static uint64_t *begin_ns, *done_slot;
static uint32_t *lat_ns;
static uint64_t nlat, done_total, inflight, ndone;
static uint8_t payload[4096];
static struct txn_branch *br;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "txn_bench: %s: %s\n", what, strerror(err < 0 ? -err : err));
	exit(1);
}

static void on_event(void *ctx, const struct txn_event *ev, void *user)
{
	struct bnode *b = ctx;

	switch (ev->type) {
	case TXN_EV_PREPARE:
		txn_node_vote(b->n, &ev->id, true, 0);
		break;
	case TXN_EV_DECIDE:
		txn_node_applied(b->n, &ev->id);
		break;
	case TXN_EV_DONE:
		inflight--;
		if (ev->decision != TXRDMA_TXN_COMMIT)
			die("a transaction aborted", EIO);
		if (atomic_load(&measuring)) {
			done_total++;
			if (nlat + ndone < MAX_SAMPLES)
				done_slot[ndone++] = (uintptr_t)user;
		}
		break;
	default:
		break;
	}
}

static const struct txn_node_hooks hooks = { .event = on_event };

/* after the coordinator's poll: the latencies of what it finished */
static void settle(void)
{
	uint64_t now, i, lat;

	if (!ndone)
		return;
	now = now_ns();
	for (i = 0; i < ndone; i++) {
		lat = now - begin_ns[done_slot[i]];
		lat_ns[nlat++] = (uint32_t)(lat > UINT32_MAX ? UINT32_MAX : lat);
	}
	ndone = 0;
}

static bool peer_up(struct bnode *b, uint32_t node)
{
	if (!strcmp(backend, "tcp"))
		return txn_tcp_peer_up(b->t, node);
	return txn_txrdma_peer_up(b->t, node);
}

/* the coordinator's turn: begin while the window allows, one batch */
static void feed(struct bnode *b, uint64_t *slot)
{
	uint64_t now;

	if (inflight >= window)
		return;
	now = now_ns();
	txn_node_cork(b->n);
	while (inflight < window) {
		uint64_t k = *slot % (2 * window);

		begin_ns[k] = now;
		if (txn_node_begin(b->n, br, (uint16_t)parts,
				   (void *)(uintptr_t)k, NULL))
			break;
		(*slot)++;
		inflight++;
	}
	txn_node_uncork(b->n);
}

static bool mesh_up(void)
{
	unsigned int i;

	for (i = 2; i <= parts + 1; i++)
		if (!peer_up(&nodes[1], i) || !peer_up(&nodes[i], 1))
			return false;
	return true;
}

/* spin: every node in one thread, polled in turn without waiting */
static void *run_all(void *arg)
{
	uint64_t slot = 0;
	unsigned int i;

	(void)arg;
	while (!atomic_load(&stop) && !mesh_up())
		for (i = 1; i <= parts + 1; i++)
			txn_node_poll(nodes[i].n, 0);
	atomic_store(&ups, parts + 1);
	while (!atomic_load(&stop)) {
		feed(&nodes[1], &slot);
		for (i = 1; i <= parts + 1; i++) {
			if (txn_node_poll(nodes[i].n, 0) < 0)
				die("poll", EIO);
			if (i == 1)
				settle();
		}
	}
	return NULL;
}

static void *run_node(void *arg)
{
	struct bnode *b = arg;
	uint32_t i, seen = 0, want = b->id == 1 ? parts : 1;
	uint64_t slot = 0;

	/* the mesh first */
	while (!atomic_load(&stop) && seen < want) {
		txn_node_poll(b->n, 10);
		seen = 0;
		for (i = 1; i <= parts + 1; i++)
			if (i != b->id && (b->id == 1 || i == 1) &&
			    peer_up(b, i))
				seen++;
	}
	atomic_fetch_add(&ups, 1);
	while (!atomic_load(&stop)) {
		if (b->id == 1 && atomic_load(&ups) == parts + 1)
			feed(b, &slot);
		if (txn_node_poll(b->n, 10) < 0)
			die("poll", EIO);
		if (b->id == 1)
			settle();
	}
	return NULL;
}

static int open_node(struct bnode *b)
{
	struct txn_node_cfg nc = {
		.self = b->id, .epoch = 1, .window = window,
		.max_parts = MAX_PARTS, .vote_retries = 3,
		.max_txns = 4096, .max_batch = MAX_BATCH,
		.vote_timeout_ns = 2000000000ull,
		.ack_timeout_ns = 1000000000ull,
		.inquire_timeout_ns = 1000000000ull,
	};
	int ret;

	if (!strcmp(backend, "tcp")) {
		struct sockaddr_in a = { .sin_family = AF_INET };
		struct txn_tcp_cfg tc = {
			.self = b->id, .listen = (struct sockaddr *)&a,
			.listen_len = sizeof(a), .max_msg = MAX_BATCH,
		};

		a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		a.sin_port = htons((uint16_t)(port_base + b->id));
		ret = txn_tcp_open(&b->t, &tc, &txn_node_transport_cb, NULL);
	} else {
		struct txn_txrdma_cfg xc = {
			.self = b->id, .service_base = service_base,
			.max_msg = MAX_BATCH, .ep_flags = ep_flags,
		};

		ret = txn_txrdma_open(&b->t, &xc, &txn_node_transport_cb, NULL);
	}
	if (ret)
		return ret;
	return txn_node_open(&b->n, &nc, b->t, &hooks, b);
}

static int add_peer(struct bnode *b, uint32_t node)
{
	if (!strcmp(backend, "tcp")) {
		struct sockaddr_in a = { .sin_family = AF_INET };

		a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		a.sin_port = htons((uint16_t)(port_base + node));
		return txn_tcp_add_peer(b->t, node, (struct sockaddr *)&a,
					sizeof(a));
	}
	return txn_txrdma_add_peer(b->t, node, peer_name);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	struct txn_node_stats st;
	uint64_t t0, t1;
	unsigned int i;
	int c, ret;

	while ((c = getopt(argc, argv, "Ab:p:w:m:t:d:n:S:P:")) != -1) {
		switch (c) {
		case 'A': ep_flags |= TXRDMA_EP_F_RX_AHEAD; break;
		case 'm': spin = !strcmp(optarg, "spin"); break;
		case 'b': backend = optarg; break;
		case 'p': parts = (unsigned int)atoi(optarg); break;
		case 'w': window = (unsigned int)atoi(optarg); break;
		case 't': seconds = (unsigned int)atoi(optarg); break;
		case 'd': data_len = (unsigned int)atoi(optarg); break;
		case 'n': peer_name = optarg; break;
		case 'S': service_base = (unsigned int)atoi(optarg); break;
		case 'P': port_base = (unsigned int)atoi(optarg); break;
		default:
			fprintf(stderr, "usage: txn_bench -b txrdma|tcp -p PARTS -w WINDOW [-m spin|wait] [-t SECONDS] [-d BYTES] [-n PEER] [-S SERVICE_BASE] [-P PORT_BASE]\n");
			return 2;
		}
	}
	if ((strcmp(backend, "tcp") && strcmp(backend, "txrdma")) ||
	    parts < 1 || parts > MAX_PARTS || window < 1 || window > 4096 ||
	    !seconds || data_len > sizeof(payload))
		die("bad arguments", EINVAL);
	begin_ns = calloc(2 * window, sizeof(*begin_ns));
	done_slot = calloc(2 * window, sizeof(*done_slot));
	lat_ns = malloc(MAX_SAMPLES * sizeof(*lat_ns));
	br = calloc(parts, sizeof(*br));
	if (!begin_ns || !done_slot || !lat_ns || !br)
		die("memory", ENOMEM);
	memset(payload, 0x5a, sizeof(payload));
	for (i = 0; i < parts; i++)
		br[i] = (struct txn_branch){ i + 2, data_len, payload };
	for (i = 1; i <= parts + 1; i++) {
		nodes[i].id = i;
		ret = open_node(&nodes[i]);
		if (ret)
			die(strcmp(backend, "tcp") ? "txrdma transport" :
			    "tcp transport", ret);
	}
	for (i = 2; i <= parts + 1; i++) {
		if ((ret = add_peer(&nodes[1], i)) ||
		    (ret = add_peer(&nodes[i], 1)))
			die("add peer", ret);
	}
	for (i = 1; i <= parts + 1; i++)
		if (spin ? i == 1 && pthread_create(&nodes[i].thr, NULL,
						    run_all, NULL) :
		    pthread_create(&nodes[i].thr, NULL, run_node, &nodes[i]))
			die("thread", EAGAIN);
	/* mesh up within 20 s, then a warm-up second, then measure */
	for (i = 0; i < 2000 && atomic_load(&ups) < parts + 1; i++)
		usleep(10000);
	if (atomic_load(&ups) < parts + 1) {
		atomic_store(&stop, true);
		die("the nodes did not connect within 20 s", ETIMEDOUT);
	}
	sleep(1);
	t0 = now_ns();
	atomic_store(&measuring, true);
	sleep(seconds);
	atomic_store(&measuring, false);
	t1 = now_ns();
	atomic_store(&stop, true);
	for (i = 1; i <= parts + 1; i++)
		if (!spin || i == 1)
			pthread_join(nodes[i].thr, NULL);
	txn_node_stats(nodes[1].n, &st);
	if (!nlat)
		die("no transaction completed", EIO);
	qsort(lat_ns, nlat, sizeof(*lat_ns), cmp_u32);
	/* records per batch: what a message of the transport carries */
	printf("txn_bench backend %s mode %s parts %u window %u txns %llu tps %.0f p50_us %.1f p99_us %.1f p999_us %.1f lost %llu recs_out %.1f recs_in %.1f\n",
	       backend, spin ? "spin" : "wait", parts, window,
	       (unsigned long long)done_total,
	       done_total / ((t1 - t0) / 1e9), lat_ns[nlat / 2] / 1e3,
	       lat_ns[nlat * 99 / 100] / 1e3, lat_ns[nlat * 999 / 1000] / 1e3,
	       (unsigned long long)st.lost,
	       st.batches_out ? (double)st.records_out / st.batches_out : 0.0,
	       st.batches_in ? (double)st.records_in / st.batches_in : 0.0);
	for (i = 1; i <= parts + 1; i++) {
		txn_node_close(nodes[i].n);
		txn_transport_close(nodes[i].t);
	}
	return 0;
}
