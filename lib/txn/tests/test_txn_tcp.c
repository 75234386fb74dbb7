// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The TCP transport (lib/txn/txn_tcp.c) on the host, three nodes over
 * 127.0.0.1 in one thread, under ASan and UBSan:
 *  - the mesh comes up: the lower id dials, every node sees each peer up
 *    once;
 *  - messages of 1 B to the 1 MiB limit between every pair, many more
 *    than the sockets hold, arrive once, in order, byte for byte; a full
 *    queue says -ENOBUFS and takes nothing;
 *  - bad arguments are refused and change nothing;
 *  - a node that closes is seen down by both others, and seen up again
 *    when it comes back on its port (redialed, or dialing);
 *  - strangers on the port (silence, a bad hello, an unknown node, a
 *    node that should be dialed instead, a bad length) are closed and
 *    counted, and the real peers' traffic goes on.
 * Waiting is always for a condition, with a deadline.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "../txn_tcp.h"
#include "tap.h"
#include "txn_test.h"

#define NODES	3
#define MAXMSG	(1U << 20)

struct node {
	struct txn_transport *t;
	uint32_t id;
	int port;
	uint32_t next_in[NODES + 1];	/* seq due from each node */
	uint32_t next_out[NODES + 1];	/* seq to send to each node */
	uint64_t got;
	int up[NODES + 1];		/* ups minus downs seen */
	int ups, downs;
	unsigned long bad;
};

static struct node nodes[NODES + 1];	/* [1..NODES] */
static uint8_t *sendbuf;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* message @seq from @from to @to: length and bytes derived from them */
static uint32_t msg_len(uint32_t from, uint32_t to, uint32_t seq)
{
	uint32_t h = mix(from * 131 + to * 7 + seq * 2654435761u);

	if (seq % 97 == 13)
		return MAXMSG;
	if (h % 4 == 0)
		return 12 + h % 200000;
	return 12 + h % 2000;
}

static void msg_fill(uint8_t *p, uint32_t from, uint32_t to, uint32_t seq,
		     uint32_t len)
{
	uint32_t i, x = mix(seq ^ (from << 24) ^ (to << 16));

	memcpy(p, &seq, 4);
	memcpy(p + 4, &from, 4);
	memcpy(p + 8, &to, 4);
	for (i = 12; i < len; i++) {
		if (i % 4 == 0)
			x = mix(x + i);
		p[i] = (uint8_t)(x >> (8 * (i % 4)));
	}
}

static void on_msg(void *ctx, uint32_t from, const void *m, size_t len)
{
	struct node *n = ctx;
	static uint8_t want[MAXMSG];
	uint32_t seq;

	n->got++;
	if (from < 1 || from > NODES || len < 12) {
		n->bad++;
		return;
	}
	memcpy(&seq, m, 4);
	if (seq != n->next_in[from] ||
	    len != msg_len(from, n->id, seq)) {
		if (n->bad++ < 5)
			tap_diag("node %u: from %u seq %u len %zu, want seq %u",
				 n->id, from, seq, len, n->next_in[from]);
		n->next_in[from] = seq + 1;
		return;
	}
	msg_fill(want, from, n->id, seq, (uint32_t)len);
	if (memcmp(want, m, len) && n->bad++ < 5)
		tap_diag("node %u: from %u seq %u: bytes differ", n->id, from,
			 seq);
	n->next_in[from]++;
}

static void on_peer(void *ctx, uint32_t node, bool up)
{
	struct node *n = ctx;

	if (node < 1 || node > NODES) {
		n->bad++;
		return;
	}
	n->up[node] += up ? 1 : -1;
	if (up)
		n->ups++;
	else
		n->downs++;
	if (n->up[node] < 0 || n->up[node] > 1)
		n->bad++;
	if (up)		/* a new connection: the sequence starts again */
		n->next_in[node] = n->next_out[node] = 0;
}

static const struct txn_transport_cb cb = { .msg = on_msg, .peer = on_peer };

static int node_open(uint32_t id, int port)
{
	struct sockaddr_in a = addr_of(port);
	struct txn_tcp_cfg cfg = {
		.self = id,
		.listen = (struct sockaddr *)&a,
		.listen_len = sizeof(a),
		.reconnect_ms = 20,
	};
	struct node *n = &nodes[id];
	int ret;

	memset(n, 0, sizeof(*n));
	n->id = id;
	ret = txn_tcp_open(&n->t, &cfg, &cb, n);
	if (ret)
		return ret;
	n->port = txn_tcp_port(n->t);
	return n->port > 0 ? 0 : -EINVAL;
}

static void node_peers(uint32_t id)
{
	uint32_t j;

	for (j = 1; j <= NODES; j++) {
		struct sockaddr_in a;

		if (j == id || !nodes[j].port)
			continue;
		a = addr_of(nodes[j].port);
		TAP_CHECK_INT(txn_tcp_add_peer(nodes[id].t, j,
					       (struct sockaddr *)&a,
					       sizeof(a)), 0);
	}
}

static void pump_all(void)
{
	uint32_t i;

	for (i = 1; i <= NODES; i++)
		if (nodes[i].t)
			TAP_CHECK(txn_transport_poll(nodes[i].t, 1) >= 0);
}

typedef bool (*cond_fn)(void);

static bool wait_for(cond_fn cond, double secs)
{
	double end = now_s() + secs;

	while (!cond()) {
		if (now_s() > end)
			return false;
		pump_all();
	}
	return true;
}

static bool mesh_up(void)
{
	uint32_t i, j;

	for (i = 1; i <= NODES; i++)
		for (j = 1; j <= NODES; j++)
			if (i != j && (!nodes[i].t || nodes[i].up[j] != 1 ||
				       !txn_tcp_peer_up(nodes[i].t, j)))
				return false;
	return true;
}

static void test_mesh(void)
{
	struct txn_tcp_stats st[NODES + 1];
	uint32_t i;

	for (i = 1; i <= NODES; i++)
		if (!TAP_CHECK_INT(node_open(i, 0), 0))
			return;
	for (i = 1; i <= NODES; i++)
		node_peers(i);
	TAP_CHECK(wait_for(mesh_up, 10));
	for (i = 1; i <= NODES; i++) {
		txn_tcp_stats(nodes[i].t, &st[i]);
		TAP_CHECK_INT(nodes[i].ups, NODES - 1);
		TAP_CHECK_INT(nodes[i].downs, 0);
		TAP_CHECK_INT(st[i].refused, 0);
	}
	/* the lower id dials: 1 dials 2 and 3, 2 dials 3, 3 dials nobody */
	TAP_CHECK(st[1].dials >= 2 && st[1].accepts == 0);
	TAP_CHECK(st[2].dials >= 1 && st[2].accepts == 1);
	TAP_CHECK(st[3].dials == 0 && st[3].accepts == 2);
}

/* send up to @count messages from every node to every other */
static unsigned long traffic(unsigned int count, unsigned long *full)
{
	unsigned long sent = 0;
	uint32_t i, j;
	unsigned int k;

	for (k = 0; k < count; k++)
		for (i = 1; i <= NODES; i++)
			for (j = 1; j <= NODES; j++) {
				struct node *n = &nodes[i];
				uint32_t seq = n->next_out[j];
				uint32_t len = msg_len(i, j, seq);
				int ret;

				if (i == j)
					continue;
				msg_fill(sendbuf, i, j, seq, len);
				ret = txn_transport_send(n->t, j, sendbuf,
							 len);
				if (ret == -ENOBUFS) {
					(*full)++;
					pump_all();
					continue;
				}
				if (!TAP_CHECK_INT(ret, 0))
					return sent;
				n->next_out[j]++;
				sent++;
			}
	return sent;
}

static bool all_in(void)
{
	uint32_t i, j;

	for (i = 1; i <= NODES; i++)
		for (j = 1; j <= NODES; j++)
			if (i != j && nodes[j].next_in[i] != nodes[i].next_out[j])
				return false;
	return true;
}

static void test_traffic(void)
{
	unsigned long sent, full = 0, bad = 0;
	uint64_t bytes = 0;
	uint32_t i;

	if (!TAP_CHECK(mesh_up()))	/* test_mesh said why */
		return;
	sent = traffic(400, &full);
	TAP_CHECK(wait_for(all_in, 30));
	for (i = 1; i <= NODES; i++) {
		struct txn_tcp_stats st;

		txn_tcp_stats(nodes[i].t, &st);
		bytes += st.bytes_in;
		bad += nodes[i].bad;
		TAP_CHECK_INT(nodes[i].downs, 0);
	}
	TAP_CHECK_INT(bad, 0);
	TAP_CHECK(sent > 2000);
	tap_diag("%lu messages, %.1f MiB, in order and byte-exact; -ENOBUFS %lu times",
		 sent, bytes / 1048576.0, full);
}

static void test_bad_args(void)
{
	struct txn_transport *t = nodes[1].t;
	struct sockaddr_in a = addr_of(1);
	struct txn_tcp_cfg cfg = { .self = 0 };
	struct txn_transport *x = NULL;
	struct txn_tcp_stats before, after;
	uint8_t b[8] = { 0 };

	if (!TAP_CHECK(t != NULL))
		return;
	txn_tcp_stats(t, &before);
	TAP_CHECK_INT(txn_transport_send(t, 2, b, 0), -EINVAL);
	TAP_CHECK_INT(txn_transport_send(t, 2, NULL, 8), -EINVAL);
	TAP_CHECK_INT(txn_transport_send(t, 2, sendbuf, MAXMSG + 1), -EINVAL);
	TAP_CHECK_INT(txn_transport_send(t, 9, b, 8), -EINVAL);
	TAP_CHECK_INT(txn_transport_send(t, 1, b, 8), -EINVAL);
	TAP_CHECK_INT(txn_tcp_add_peer(t, 2, (struct sockaddr *)&a, sizeof(a)),
		      -EEXIST);
	TAP_CHECK_INT(txn_tcp_add_peer(t, 1, (struct sockaddr *)&a, sizeof(a)),
		      -EINVAL);
	TAP_CHECK_INT(txn_tcp_add_peer(t, 0, (struct sockaddr *)&a, sizeof(a)),
		      -EINVAL);
	TAP_CHECK_INT(txn_tcp_add_peer(t, 7, NULL, sizeof(a)), -EINVAL);
	TAP_CHECK_INT(txn_tcp_add_peer(t, 7, (struct sockaddr *)&a, 1), -EINVAL);
	cfg.listen = (struct sockaddr *)&a;
	cfg.listen_len = sizeof(a);
	TAP_CHECK_INT(txn_tcp_open(&x, &cfg, &cb, NULL), -EINVAL);	/* self 0 */
	cfg.self = 5;
	TAP_CHECK_INT(txn_tcp_open(&x, &cfg, NULL, NULL), -EINVAL);
	/* node 2's port is taken */
	a = addr_of(nodes[2].port);
	TAP_CHECK_INT(txn_tcp_open(&x, &cfg, &cb, NULL), -EADDRINUSE);
	TAP_CHECK(x == NULL);
	txn_tcp_stats(t, &after);
	TAP_CHECK(!memcmp(&before, &after, sizeof(before)));
	TAP_CHECK(mesh_up());
}

static uint32_t closed_id;

static bool others_see_down(void)
{
	uint32_t i;

	for (i = 1; i <= NODES; i++)
		if (i != closed_id && nodes[i].up[closed_id] != 0)
			return false;
	return true;
}

static void restart(uint32_t id)
{
	int port = nodes[id].port, i;
	uint32_t j;

	closed_id = id;
	txn_transport_close(nodes[id].t);
	nodes[id].t = NULL;
	TAP_CHECK(wait_for(others_see_down, 10));
	for (j = 1; j <= NODES; j++)
		if (j != id)
			TAP_CHECK_INT(txn_transport_send(nodes[j].t, id, "x", 1),
				      -ENOTCONN);
	/* the port may linger a moment in the kernel: retry the bind */
	for (i = 0; i < 100 && node_open(id, port); i++)
		usleep(10000);
	if (!TAP_CHECK(nodes[id].t != NULL))
		return;
	nodes[id].port = port;
	node_peers(id);
	TAP_CHECK(wait_for(mesh_up, 10));
}

static void test_restart(void)
{
	unsigned long full = 0;
	uint32_t i;

	if (!TAP_CHECK(mesh_up()))	/* test_mesh said why */
		return;
	restart(2);	/* node 1 redials it; it dials node 3 */
	restart(1);	/* it dials both */
	restart(3);	/* both redial it */
	traffic(30, &full);
	TAP_CHECK(wait_for(all_in, 20));
	for (i = 1; i <= NODES; i++)
		TAP_CHECK_INT(nodes[i].bad, 0);
	tap_diag("after three restarts: ups %d/%d/%d, downs %d/%d/%d",
		 nodes[1].ups, nodes[2].ups, nodes[3].ups, nodes[1].downs,
		 nodes[2].downs, nodes[3].downs);
}

/* a raw connection to node @to, saying @bytes */
static int stranger(uint32_t to, const void *bytes, size_t len)
{
	struct sockaddr_in a = addr_of(nodes[to].port);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (len && send(fd, bytes, len, MSG_NOSIGNAL) != (ssize_t)len) {
		close(fd);
		return -1;
	}
	return fd;
}

static uint64_t refused_want;

static bool refused_all(void)
{
	struct txn_tcp_stats st;

	txn_tcp_stats(nodes[3].t, &st);
	return st.refused >= refused_want;
}

static bool closed_by_peer(int fd)
{
	char c;
	double end = now_s() + 5;

	while (now_s() < end) {
		ssize_t n = recv(fd, &c, 1, MSG_DONTWAIT);

		if (n == 0 || (n < 0 && errno != EAGAIN))
			return true;
		pump_all();
	}
	return false;
}

static void hello(uint32_t *w, uint32_t from, uint32_t to)
{
	w[0] = htole32(0x544e5854u);
	w[1] = htole32(1);
	w[2] = htole32(from);
	w[3] = htole32(to);
}

static void test_strangers(void)
{
	struct txn_tcp_stats st0, st1;
	unsigned long full = 0;
	uint32_t w[6];
	int fd[5], i, downs3;

	if (!TAP_CHECK(mesh_up()))	/* test_mesh said why */
		return;
	downs3 = nodes[3].downs;
	txn_tcp_stats(nodes[3].t, &st0);
	/* silence; garbage; an unknown node; a node that 3 would dial
	 * (none: 3 is the highest, so its own id); a hello for another
	 */
	fd[0] = stranger(3, NULL, 0);
	fd[1] = stranger(3, "GET / HTTP/1.0\r\n\r\n", 18);
	hello(w, 9, 3);
	fd[2] = stranger(3, w, 16);
	hello(w, 3, 3);
	fd[3] = stranger(3, w, 16);
	hello(w, 1, 2);
	fd[4] = stranger(3, w, 16);
	for (i = 0; i < 5; i++)
		TAP_CHECK(fd[i] >= 0);
	refused_want = st0.refused + 5;
	TAP_CHECK(wait_for(refused_all, 5));
	for (i = 0; i < 5; i++) {
		TAP_CHECK(closed_by_peer(fd[i]));
		close(fd[i]);
	}
	TAP_CHECK(mesh_up());
	TAP_CHECK_INT(nodes[3].downs, downs3);	/* nobody was displaced */
	/*
	 * A hello that names node 1 wins over node 1's connection (a
	 * restarted node 1 looks the same): node 3 sees node 1 down and up,
	 * then the stranger's bad length closes it: down; node 1 redials.
	 */
	hello(w, 1, 3);
	w[4] = htole32(MAXMSG + 1);
	fd[0] = stranger(3, w, 20);
	TAP_CHECK(closed_by_peer(fd[0]));
	close(fd[0]);
	TAP_CHECK(wait_for(mesh_up, 10));
	txn_tcp_stats(nodes[3].t, &st1);
	TAP_CHECK_INT(st1.protocol_errors, st0.protocol_errors + 1);
	traffic(20, &full);
	TAP_CHECK(wait_for(all_in, 20));
	for (i = 1; i <= NODES; i++)
		TAP_CHECK_INT(nodes[i].bad, 0);
	tap_diag("node 3 refused %llu strangers, closed 1 for its length",
		 (unsigned long long)(st1.refused - st0.refused));
}

/* a pair whose receiver does not read: the sender's queue fills */
struct pair_end {
	uint32_t got, bad;
	bool up;
};

static void pair_msg(void *ctx, uint32_t from, const void *m, size_t len)
{
	struct pair_end *e = ctx;
	uint32_t seq;

	memcpy(&seq, m, 4);
	if (from != 10 || len != MAXMSG || seq != e->got)
		e->bad++;
	e->got++;
}

static void pair_peer(void *ctx, uint32_t node, bool up)
{
	struct pair_end *e = ctx;

	(void)node;
	e->up = up;
}

static struct txn_transport *pt[2];
static struct pair_end pe[2];

static bool pair_up(void)
{
	txn_transport_poll(pt[0], 1);
	txn_transport_poll(pt[1], 1);
	return pe[0].up && pe[1].up;
}

static uint32_t pair_want;

static bool pair_drained(void)
{
	txn_transport_poll(pt[0], 1);
	txn_transport_poll(pt[1], 1);
	return pe[1].got == pair_want;
}

static void test_queue_full(void)
{
	static const struct txn_transport_cb pcb = {
		.msg = pair_msg, .peer = pair_peer,
	};
	struct sockaddr_in a = addr_of(0), b;
	struct txn_tcp_cfg cfg = {
		.listen = (struct sockaddr *)&a,
		.listen_len = sizeof(a),
		.max_queued = 4 * MAXMSG,
	};
	struct txn_tcp_stats st;
	uint32_t seq = 0;
	int ret, i;

	cfg.self = 10;
	TAP_CHECK_INT(txn_tcp_open(&pt[0], &cfg, &pcb, &pe[0]), 0);
	cfg.self = 11;
	TAP_CHECK_INT(txn_tcp_open(&pt[1], &cfg, &pcb, &pe[1]), 0);
	if (!pt[0] || !pt[1])
		return;
	b = addr_of(txn_tcp_port(pt[1]));
	TAP_CHECK_INT(txn_tcp_add_peer(pt[0], 11, (struct sockaddr *)&b,
				       sizeof(b)), 0);
	a = addr_of(txn_tcp_port(pt[0]));
	TAP_CHECK_INT(txn_tcp_add_peer(pt[1], 10, (struct sockaddr *)&a,
				       sizeof(a)), 0);
	TAP_CHECK(wait_for(pair_up, 10));
	/* 11 does not read: the socket buffers fill, then 4 MiB queue */
	for (i = 0; i < 1000; i++) {
		memcpy(sendbuf, &seq, 4);
		ret = txn_transport_send(pt[0], 11, sendbuf, MAXMSG);
		if (ret)
			break;
		seq++;
		txn_transport_poll(pt[0], 0);	/* the writer side only */
	}
	TAP_CHECK_INT(ret, -ENOBUFS);
	TAP_CHECK_INT(txn_transport_send(pt[0], 11, sendbuf, MAXMSG),
		      -ENOBUFS);
	txn_tcp_stats(pt[0], &st);
	TAP_CHECK_INT(st.queued_full, 2);
	TAP_CHECK_INT(st.msgs_out, seq);
	pair_want = seq;
	TAP_CHECK(wait_for(pair_drained, 20));
	TAP_CHECK_INT(pe[1].got, seq);
	TAP_CHECK_INT(pe[1].bad, 0);
	tap_diag("%u messages of 1 MiB before -ENOBUFS, all delivered after",
		 seq);
	txn_transport_close(pt[0]);
	txn_transport_close(pt[1]);
}

static void test_close(void)
{
	uint32_t i;

	for (i = 1; i <= NODES; i++) {
		txn_transport_close(nodes[i].t);
		nodes[i].t = NULL;
	}
	txn_transport_close(NULL);
	TAP_CHECK(1);
}

static const struct tap_test tests[] = {
	TAP_TEST(test_mesh, "three nodes: the lower id dials, each sees each peer up once"),
	TAP_TEST(test_traffic, "messages of 12 B to 1 MiB between every pair: once, in order, byte for byte"),
	TAP_TEST(test_bad_args, "bad arguments refused, nothing changed"),
	TAP_TEST(test_restart, "a node that closes is seen down, then up again on its port; traffic resumes"),
	TAP_TEST(test_strangers, "strangers closed and counted; a bad length closes; peers go on"),
	TAP_TEST(test_queue_full, "a receiver that does not read: -ENOBUFS at the queue's bound, nothing taken; everything arrives once it reads"),
	TAP_TEST(test_close, "close frees everything (ASan)"),
};

int main(void)
{
	int ret;

	sendbuf = malloc(MAXMSG);
	if (!sendbuf)
		return 1;
	ret = TAP_MAIN(tests);
	free(sendbuf);
	return ret;
}
