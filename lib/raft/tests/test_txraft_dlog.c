// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The decision log on Raft (txraft_dlog.c), on the host under ASan and
 * UBSan.
 *  - the state machine alone: COMMIT and FORGET records applied,
 *    duplicates and bad commands changing nothing, a snapshot restored
 *    into another log equal, a malformed snapshot refused whole;
 *  - two-phase commit with its decisions on a three-server Raft group
 *    (libraft on txraft_io over TCP, one thread): a coordinator (txn
 *    node 1, on the group's leader) and two participants (nodes 2, 3).
 *    200 transactions: every participant that is told COMMIT finds the
 *    decision already applied by the leader's log (libraft applies
 *    only what a majority stored), and every decision is forgotten on
 *    all three servers once ACKed.  Then participant 3 holds its
 *    answers while 30 more commit; the coordinator and the Raft leader
 *    die; the other two servers elect a leader, a coordinator with a
 *    new epoch takes the 30 held COMMITs from its log, resends them,
 *    participant 3 applies and ACKs: every COMMIT applied by both
 *    participants, none lost, and the log empty again.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <linux/txrdma_raft.h>

#include "../txraft_dlog.h"
#include "../txraft_io.h"
#include "txn_node.h"
#include "raft_tcp_net.h"
#include "tap.h"
#include "txn_test.h"

#define R		3	/* Raft servers */
#define MAXSEQ		512
#define FIRST		200
#define HELD		30
#define MS		1000000ull

/* ---- the state machine alone --------------------------------------- */

static struct raft_buffer rec(uint8_t type, uint32_t coord, uint64_t seq,
			      uint16_t n)
{
	static uint8_t b[4][sizeof(struct txrdma_dlog_rec) + 64];
	static unsigned int k;
	struct txrdma_dlog_rec r = {
		.type = type, .nnodes = htole16(n),
		.id = { .coord = htole32(coord), .epoch = htole32(1),
			.seq = htole64(seq) },
	};
	uint8_t *p = b[k++ % 4];
	uint16_t i;

	memcpy(p, &r, sizeof(r));
	for (i = 0; i < n && i < 16; i++) {
		__le32 v = htole32(10 + i);

		memcpy(p + sizeof(r) + 4 * i, &v, 4);
	}
	return (struct raft_buffer) { .base = p,
				      .len = sizeof(r) + 4 * (size_t)n };
}

static int apply(struct txraft_dlog *d, struct raft_buffer b)
{
	struct raft_fsm *f = txraft_dlog_fsm(d);
	void *res;

	return f->apply(f, &b, &res);
}

/* participants of every held COMMIT, each as the record named it */
static void count_nodes(void *arg, const struct txn_id *id,
			const uint32_t *nodes, uint16_t n)
{
	unsigned int *sum = arg;
	uint16_t i;

	(void)id;
	for (i = 0; i < n; i++)
		*sum += nodes[i] == 10u + i;
}

static void test_fsm(void)
{
	struct txraft_dlog *a, *b;
	struct txraft_dlog_stats st;
	struct raft_buffer *bufs, bad;
	struct raft_fsm *f;
	struct txn_id id = { .coord = 1, .epoch = 1, .seq = 2 };
	unsigned int nb, sum = 0;
	uint8_t *copy;

	TAP_CHECK_INT(txraft_dlog_new(&a), 0);
	TAP_CHECK_INT(txraft_dlog_new(&b), 0);
	TAP_CHECK_INT(apply(a, rec(TXRDMA_DLOG_COMMIT, 1, 1, 2)), 0);
	TAP_CHECK_INT(apply(a, rec(TXRDMA_DLOG_COMMIT, 1, 2, 3)), 0);
	TAP_CHECK_INT(apply(a, rec(TXRDMA_DLOG_COMMIT, 1, 3, 1)), 0);
	TAP_CHECK_INT(apply(a, rec(TXRDMA_DLOG_COMMIT, 1, 2, 3)), 0);	/* dup */
	TAP_CHECK_INT(apply(a, rec(TXRDMA_DLOG_FORGET, 1, 1, 0)), 0);
	TAP_CHECK_INT(apply(a, rec(TXRDMA_DLOG_FORGET, 1, 9, 0)), 0);	/* none */
	/* not records: short, a COMMIT of no one, a FORGET with nodes,
	 * unknown type, reserved bits, seq 0 */
	bad = rec(TXRDMA_DLOG_COMMIT, 1, 5, 2);
	bad.len--;
	TAP_CHECK_INT(apply(a, bad), 0);
	TAP_CHECK_INT(apply(a, rec(TXRDMA_DLOG_COMMIT, 1, 6, 0)), 0);
	TAP_CHECK_INT(apply(a, rec(TXRDMA_DLOG_FORGET, 1, 2, 1)), 0);
	TAP_CHECK_INT(apply(a, rec(7, 1, 7, 1)), 0);
	bad = rec(TXRDMA_DLOG_COMMIT, 1, 8, 1);
	((uint8_t *)bad.base)[1] = 1;
	TAP_CHECK_INT(apply(a, bad), 0);
	TAP_CHECK_INT(apply(a, rec(TXRDMA_DLOG_COMMIT, 1, 0, 1)), 0);
	txraft_dlog_stats(a, &st);
	TAP_CHECK_INT(st.commits, 3);
	TAP_CHECK_INT(st.forgets, 1);
	TAP_CHECK_INT(st.duplicates, 2);
	TAP_CHECK_INT(st.bad, 6);
	TAP_CHECK_INT(txraft_dlog_count(a), 2);
	TAP_CHECK(txraft_dlog_holds(a, &id));
	id.seq = 1;
	TAP_CHECK(!txraft_dlog_holds(a, &id));
	TAP_CHECK_INT(txraft_dlog_walk(a, count_nodes, &sum), 2);
	TAP_CHECK_INT(sum, 3 + 1);	/* seq 2 over 3 nodes, seq 3 over 1 */

	/* snapshot into b: the same held set */
	f = txraft_dlog_fsm(a);
	TAP_CHECK_INT(f->snapshot(f, &bufs, &nb), 0);
	TAP_CHECK_INT(nb, 1);
	copy = raft_malloc(bufs[0].len);
	memcpy(copy, bufs[0].base, bufs[0].len);
	f = txraft_dlog_fsm(b);
	TAP_CHECK_INT(apply(b, rec(TXRDMA_DLOG_COMMIT, 2, 9, 1)), 0);
	TAP_CHECK_INT(f->restore(f, &bufs[0]), 0);
	TAP_CHECK_INT(txraft_dlog_count(b), 2);
	id.seq = 2;
	TAP_CHECK(txraft_dlog_holds(b, &id));
	id.seq = 3;
	TAP_CHECK(txraft_dlog_holds(b, &id));
	raft_free(bufs);
	/*
	 * A malformed snapshot (its first record whole, the second cut
	 * short) is refused and changes nothing: b keeps the COMMIT the
	 * snapshot does not have; the buffer is freed and its pointer
	 * cleared (libraft frees a refused one again)
	 */
	TAP_CHECK_INT(apply(b, rec(TXRDMA_DLOG_COMMIT, 2, 9, 1)), 0);
	bufs = calloc(1, sizeof(*bufs));
	bufs[0].base = copy;
	bufs[0].len = sizeof(struct txrdma_dlog_rec) + 3 * 4 + 10;
	TAP_CHECK_INT(f->restore(f, &bufs[0]), RAFT_MALFORMED);
	TAP_CHECK(bufs[0].base == NULL);
	TAP_CHECK_INT(txraft_dlog_count(b), 3);
	id.coord = 2;
	id.seq = 9;
	TAP_CHECK(txraft_dlog_holds(b, &id));
	id.coord = 1;
	free(bufs);
	/* an empty command is not a record either */
	bad.len = 0;
	TAP_CHECK_INT(apply(a, bad), 0);
	txraft_dlog_stats(a, &st);
	TAP_CHECK_INT(st.bad, 7);
	TAP_CHECK_INT(txraft_dlog_count(a), 2);
	/* proposing needs a raft and a valid id */
	TAP_CHECK_INT(txraft_dlog_forget(a, NULL, &id), -EINVAL);
	txraft_dlog_free(a);
	txraft_dlog_free(b);
}

/* ---- two-phase commit on a Raft-replicated decision log ------------ */

struct rsrv {
	struct raft_tcp_node net;
	struct raft raft;
	struct txraft_dlog *d;
	bool up;
};

struct tnode {
	struct txn_transport *t;
	struct txn_node *n;
	int port;
	/* participants: COMMIT applied, per epoch and seq of coordinator 1 */
	uint8_t applied[3][MAXSEQ];
	bool hold;			/* keep DECIDEs unanswered */
	struct txn_id held[64];
	unsigned int nheld;
};

static struct rsrv rs[R + 1];
static struct tnode tn[4];	/* [1] the coordinator, [2], [3] */
static unsigned int cl;		/* the Raft server the coordinator is on */
static unsigned long done_commit, done_other, logged, log_failed;
static unsigned long not_durable, violations, restored;

static void poll_all(void)
{
	unsigned int i;

	for (i = 1; i <= R; i++)
		if (rs[i].net.x)
			txraft_io_poll(rs[i].net.x, 0);
	for (i = 1; i <= 3; i++)
		if (tn[i].n)
			txn_node_poll(tn[i].n, 0);
}

static bool wait_for(bool (*cond)(void), double seconds)
{
	return raft_tcp_wait(cond, poll_all, seconds);
}

static unsigned int group_leader(void)
{
	unsigned int i;

	for (i = 1; i <= R; i++)
		if (rs[i].up && raft_state(&rs[i].raft) == RAFT_LEADER)
			return i;
	return 0;
}

static bool have_leader(void)
{
	return group_leader() != 0;
}

static void logged_cb(void *ctx, const struct txn_id *id, int status)
{
	(void)ctx;
	if (status) {
		log_failed++;
		return;
	}
	logged++;
	if (tn[1].n && txn_node_logged(tn[1].n, id))
		violations++;
}

static void coord_log(void *ctx, const struct txn_id *id,
		      const uint32_t *nodes, uint16_t n)
{
	(void)ctx;
	if (txraft_dlog_commit(rs[cl].d, &rs[cl].raft, id, nodes, n,
			       logged_cb, NULL))
		log_failed++;
}

static void coord_event(void *ctx, const struct txn_event *ev, void *user)
{
	(void)ctx;
	(void)user;
	switch (ev->type) {
	case TXN_EV_DONE:
		if (ev->decision == TXRDMA_TXN_COMMIT)
			done_commit++;
		else
			done_other++;
		break;
	case TXN_EV_FORGET:
		if (txraft_dlog_forget(rs[cl].d, &rs[cl].raft, &ev->id))
			violations++;
		break;
	default:
		violations++;
	}
}

static const struct txn_node_hooks coord_hooks = {
	.log = coord_log,
	.event = coord_event,
};

static void part_event(void *ctx, const struct txn_event *ev, void *user)
{
	struct tnode *p = ctx;

	(void)user;
	switch (ev->type) {
	case TXN_EV_PREPARE:
		txn_node_vote(p->n, &ev->id, true, 0);
		break;
	case TXN_EV_DECIDE:
		if (ev->decision != TXRDMA_TXN_COMMIT || ev->id.coord != 1 ||
		    ev->id.epoch >= 3 || ev->id.seq >= MAXSEQ) {
			violations++;
			break;
		}
		/* the decision is in the leader's log before COMMIT left */
		if (!p->applied[ev->id.epoch][ev->id.seq] &&
		    !txraft_dlog_holds(rs[cl].d, &ev->id))
			not_durable++;
		p->applied[ev->id.epoch][ev->id.seq] = 1;
		if (p->hold && p->nheld < 64) {
			p->held[p->nheld++] = ev->id;
			break;
		}
		txn_node_applied(p->n, &ev->id);
		break;
	default:
		violations++;
	}
}

static const struct txn_node_hooks part_hooks = {
	.event = part_event,
};

static void raft_stop(unsigned int i)
{
	rs[i].up = false;
	raft_tcp_node_stop(&rs[i].net, &rs[i].raft);
}

static int raft_start_all(void)
{
	struct raft_tcp_node *nets[R + 1] = { NULL };
	struct raft_configuration conf;
	unsigned int i;
	int rv = 0;

	raft_configuration_init(&conf);
	for (i = 1; i <= R; i++)
		nets[i] = &rs[i].net;
	if (raft_tcp_net_open(nets, R, 65536, &conf))
		rv = -1;
	for (i = 1; i <= R && !rv; i++) {
		if (txraft_dlog_new(&rs[i].d) ||
		    raft_init(&rs[i].raft, txraft_io_raft(rs[i].net.x),
			      txraft_dlog_fsm(rs[i].d), i, rs[i].net.addr)) {
			rv = -1;
			break;
		}
		txraft_io_watch_leader(rs[i].net.x, &rs[i].raft, 20);
		/* server 1 leads first */
		raft_set_election_timeout(&rs[i].raft, i == 1 ? 200 : 1000);
		raft_set_heartbeat_timeout(&rs[i].raft, 30);
		raft_set_pre_vote(&rs[i].raft, true);
		raft_set_snapshot_threshold(&rs[i].raft, 64);
		raft_set_snapshot_trailing(&rs[i].raft, 16);
		if (raft_bootstrap(&rs[i].raft, &conf) ||
		    raft_start(&rs[i].raft))
			rv = -1;
		else
			rs[i].up = true;
	}
	raft_configuration_close(&conf);
	return rv;
}

static int tnode_open(unsigned int i, uint32_t epoch)
{
	struct sockaddr_in la = addr_of(tn[i].port);
	struct txn_tcp_cfg tc = {
		.self = i, .listen = (struct sockaddr *)&la,
		.listen_len = sizeof(la), .reconnect_ms = 10,
	};
	struct txn_node_cfg nc = {
		.self = i, .epoch = epoch, .window = 64, .max_parts = 4,
		.vote_retries = 3, .max_txns = 1024, .max_batch = 65536,
		.vote_timeout_ns = 500 * MS, .ack_timeout_ns = 50 * MS,
		.inquire_timeout_ns = 50 * MS,
	};

	if (txn_tcp_open(&tn[i].t, &tc, &txn_node_transport_cb, NULL))
		return -1;
	tn[i].port = txn_tcp_port(tn[i].t);
	return txn_node_open(&tn[i].n, &nc, tn[i].t,
			     i == 1 ? &coord_hooks : &part_hooks, &tn[i]);
}

static void tnode_peers(unsigned int i)
{
	unsigned int j;

	for (j = 1; j <= 3; j++) {
		struct sockaddr_in sa = addr_of(tn[j].port);

		if (j != i)
			TAP_CHECK_INT(txn_tcp_add_peer(tn[i].t, j,
						       (struct sockaddr *)&sa,
						       sizeof(sa)), 0);
	}
}

static void tnode_close(unsigned int i)
{
	txn_node_close(tn[i].n);
	txn_transport_close(tn[i].t);
	tn[i].n = NULL;
	tn[i].t = NULL;
}

static unsigned long want_done;

static bool all_done(void)
{
	return done_commit + done_other >= want_done;
}

static bool logs_empty(void)
{
	unsigned int i;

	for (i = 1; i <= R; i++)
		if (rs[i].up && txraft_dlog_count(rs[i].d))
			return false;
	return true;
}

static bool logs_hold_all(void)
{
	unsigned int i;

	for (i = 1; i <= R; i++)
		if (rs[i].up && txraft_dlog_count(rs[i].d) != HELD)
			return false;
	return true;
}

static unsigned int old_leader;

static bool new_leader(void)
{
	unsigned int l = group_leader();

	return l && l != old_leader;
}

/* run @count transactions over 2 and 3, at most 16 in flight */
static void run_txns(unsigned int count, double seconds)
{
	static const char data[] = "stock -1";
	struct txn_branch br[2] = {
		{ .node = 2, .len = sizeof(data), .data = data },
		{ .node = 3, .len = sizeof(data), .data = data },
	};
	double end = raft_tcp_now_s() + seconds;
	unsigned long begun = 0, base = done_commit + done_other;
	struct txn_id id;

	want_done = base + count;
	while (!all_done() && raft_tcp_now_s() < end) {
		while (begun < count &&
		       begun - (done_commit + done_other - base) < 16 &&
		       !txn_node_begin(tn[1].n, br, 2, NULL, &id))
			begun++;
		poll_all();
	}
}

static void restore_one(void *arg, const struct txn_id *id,
			const uint32_t *nodes, uint16_t n)
{
	(void)arg;
	if (txn_node_restore_commit(tn[1].n, id, nodes, n))
		violations++;
	else
		restored++;
}

static void test_two_phase_commit(void)
{
	unsigned int i, k, e, both;
	double t0;

	TAP_CHECK_INT(raft_start_all(), 0);
	TAP_CHECK(wait_for(have_leader, 10));
	cl = group_leader();
	TAP_CHECK_INT(cl, 1);
	if (cl != 1)
		return;
	for (i = 1; i <= 3; i++)
		TAP_CHECK_INT(tnode_open(i, 1), 0);
	for (i = 1; i <= 3; i++)
		tnode_peers(i);

	/* every COMMIT on the leader's log before it leaves */
	run_txns(FIRST, 30);
	TAP_CHECK_INT(done_commit, FIRST);
	TAP_CHECK_INT(logged, FIRST);
	TAP_CHECK_INT(not_durable, 0);
	TAP_CHECK(wait_for(logs_empty, 10));	/* ACKed, FORGET applied */

	/* participant 3 holds its answers: the COMMITs stay in the log */
	tn[3].hold = true;
	run_txns(HELD, 30);
	TAP_CHECK_INT(done_commit, FIRST + HELD);
	TAP_CHECK(wait_for(logs_hold_all, 10));
	TAP_CHECK_INT(tn[3].nheld, HELD);

	/* the coordinator and the leader die; the others elect */
	old_leader = cl;
	tnode_close(1);
	raft_stop(cl);
	t0 = raft_tcp_now_s();
	TAP_CHECK(wait_for(new_leader, 10));
	cl = group_leader();
	tap_diag("Raft leader %u gone with the coordinator: leader %u in %.1f ms",
		 old_leader, cl, (raft_tcp_now_s() - t0) * 1e3);
	if (!cl)
		return;
	/* a coordinator with a new epoch takes back the held decisions */
	TAP_CHECK_INT(tnode_open(1, 2), 0);
	TAP_CHECK_INT(txraft_dlog_walk(rs[cl].d, restore_one, NULL), HELD);
	TAP_CHECK_INT(restored, HELD);
	tnode_peers(1);
	tn[3].hold = false;
	for (k = 0; k < tn[3].nheld; k++)
		txn_node_applied(tn[3].n, &tn[3].held[k]);
	TAP_CHECK(wait_for(logs_empty, 10));

	/* every COMMIT applied by both participants, none lost */
	both = 0;
	for (e = 1; e < 3; e++)
		for (k = 0; k < MAXSEQ; k++)
			both += tn[2].applied[e][k] && tn[3].applied[e][k];
	TAP_CHECK_INT(both, FIRST + HELD);
	TAP_CHECK_INT(not_durable, 0);
	TAP_CHECK_INT(violations, 0);
	TAP_CHECK_INT(log_failed, 0);
	TAP_CHECK_INT(done_other, 0);

	for (i = 1; i <= 3; i++)
		tnode_close(i);
	for (i = 1; i <= R; i++) {
		if (rs[i].net.x)
			raft_stop(i);
		txraft_dlog_free(rs[i].d);
	}
}

static const struct tap_test tests[] = {
	TAP_TEST(test_fsm, "the log's state machine: COMMIT/FORGET applied, duplicates and bad commands change nothing, snapshots restore, a malformed one is refused whole"),
	TAP_TEST(test_two_phase_commit, "2PC on a Raft decision log: COMMIT leaves only after the leader applied it; the coordinator and leader die, a new epoch takes back 30 held COMMITs, none lost"),
};

int main(void)
{
	return TAP_MAIN(tests);
}
