// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * txkv end to end on the host (kv_node.c): three nodes in one thread
 * over TCP on 127.0.0.1, two shards and the decision log each a Raft
 * group of the three (libraft), two-phase commit between node 1 (the
 * client, on the decision log's leader) and the shards' leaders
 * (nodes 2 and 3).  1,000 new orders, 8 in flight: every replica of a
 * shard ends byte for byte equal to the others, every record agrees
 * with the orders the client saw committed (none lost, none applied
 * that aborted), the history of committed orders is strictly
 * serializable (kv_history.c), and no lock is left.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <txn_vrec.h>
#include <txraft_io.h>

#include "tap.h"
#include "../kv_node.h"

#define N	3
#define NSHARD	2
#define ORDERS	1000

static struct kv_node *nd[N + 1];
static bool frozen[N + 1];	/* a node that stopped: never polled */
static uint32_t nclients = 1;	/* nodes 1..nclients may run clients */
static const struct kv_no_cfg no = { .nshard = NSHARD, .ndist = 10,
				     .nitem = 200 };

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void poll_all(void)
{
	unsigned int i;

	for (i = 1; i <= N; i++)
		if (!frozen[i])
			TAP_CHECK_INT(kv_node_poll(nd[i], 0), 0);
}

static bool wait_for(bool (*cond)(void), double seconds)
{
	double end = now_s() + seconds;

	while (!cond()) {
		if (now_s() > end)
			return false;
		poll_all();
	}
	return true;
}

/* every group led as preferred: shard s by node s + 2, the log by 1 */
static bool leaders_placed(void)
{
	unsigned int i, g;

	for (i = 1; i <= N; i++) {
		for (g = 0; g < NSHARD; g++)
			if (kv_node_leader(nd[i], g) != g + 2)
				return false;
		for (g = 1; g <= nclients; g++)
			if (kv_node_leader(nd[i], NSHARD + g - 1) != g)
				return false;
	}
	return true;
}

static bool steady3(void)
{
	return kv_node_steady(nd[3]);
}

static bool client_done(void)
{
	return kv_node_client_done(nd[1]);
}

/* every replica applied as far as the others, and nothing is locked */
static bool settled(void)
{
	unsigned int i, g, r;

	for (g = 0; g < NSHARD; g++) {
		for (i = 2; i <= N; i++)
			if (kv_node_applied(nd[i], g) !=
			    kv_node_applied(nd[1], g))
				return false;
		for (i = 1; i <= N; i++)
			for (r = 0; r < kv_no_nrec(&no); r++)
				if (kv_shard_locked(kv_node_shard(nd[i], g), r,
						    NULL))
					return false;
	}
	return true;
}

static bool no_decisions_held(void)
{
	return !kv_node_decisions_held(nd[1]);
}

static bool node1_synced(void)
{
	return kv_node_synced(nd[1]);
}

/* node @a's and node @b's replicas of every shard: the same bytes */
static void same_replicas(unsigned int a, unsigned int b)
{
	unsigned int g;

	for (g = 0; g < NSHARD; g++) {
		void *sa, *sb;
		size_t la, lb;

		/* the whole state, table and prepared set alike */
		TAP_CHECK_INT(kv_shard_snapshot(kv_node_shard(nd[a], g), &sa,
						&la), 0);
		TAP_CHECK_INT(kv_shard_snapshot(kv_node_shard(nd[b], g), &sb,
						&lb), 0);
		TAP_CHECK(la == lb && !memcmp(sa, sb, la));
		free(sa);
		free(sb);
	}
}

static unsigned int check_node(unsigned int i, const struct kv_no_tally *t)
{
	char why[160];
	unsigned int bad = kv_no_check_shards(t, kv_node_shards(nd[i]), why,
					      sizeof(why));

	if (bad)
		tap_diag("node %u: %s", i, why);
	return bad;
}

static uint32_t base;		/* fixed ports (a node restarts on them) */
static char wal_root[64];	/* per node n<i> below it; "": none */

/*
 * Fixed ports for a node that restarts on them, below the kernel's
 * ephemeral range: there no connection of this test (or of anything
 * else on the host) is given one of them as its local port, which
 * made a reopened node's bind fail with EADDRINUSE now and then.
 */
static uint32_t fixed_base(void)
{
	unsigned int lo = 32768, hi = 60999, span;
	FILE *f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "r");

	if (f) {
		if (fscanf(f, "%u %u", &lo, &hi) != 2)
			lo = 32768;
		fclose(f);
	}
	span = lo > 10000 + 200 ? (lo - 200 - 10000) / 100 : 1;
	return 10000 + (uint32_t)(getpid() % span) * 100;
}

/* open node @i: on its write-ahead files when the test has them */
static bool node_open(unsigned int i)
{
	char dir[128];
	struct kv_node_cfg c = {
		.self = i, .nnodes = N, .no = no,
		.backend = TXN_BACKEND_TCP, .epoch = 1, .base = base,
		.wal_flags = TXRAFT_STORE_NOSYNC, .nclients = nclients,
	};
	unsigned int k;

	/* shard s led by node s + 2, client c's decision log by c */
	c.prefer[0] = 2;
	c.prefer[1] = 3;
	for (k = 1; k <= nclients; k++)
		c.prefer[NSHARD + k - 1] = k;

	if (wal_root[0]) {
		snprintf(dir, sizeof(dir), "%s/n%u", wal_root, i);
		mkdir(dir, 0700);
		c.wal_dir = dir;
	}
	TAP_CHECK_INT(kv_node_open(&nd[i], &c), 0);
	return nd[i] != NULL;
}

/* tell node @i where the others are */
static void node_peers(unsigned int i)
{
	struct in_addr lo = { htonl(INADDR_LOOPBACK) };
	int ports[KV_PORTS(NSHARD, N)];
	unsigned int j, g;

	for (j = 1; j <= N; j++) {
		if (j == i)
			continue;
		for (g = 0; g < KV_PORTS(NSHARD, nclients); g++)
			ports[g] = kv_node_port(nd[j], g);
		TAP_CHECK_INT(kv_node_add_peer(nd[i], j, NULL, &lo, ports), 0);
	}
}

/* nodes 1..N on 127.0.0.1, the groups led as preferred */
static bool cluster_up(void)
{
	unsigned int i;
	double t0;

	for (i = 1; i <= N; i++)
		if (!node_open(i))
			return false;
	for (i = 1; i <= N; i++)
		node_peers(i);
	for (i = 1; i <= N; i++)
		TAP_CHECK_INT(kv_node_start(nd[i]), 0);
	t0 = now_s();
	if (!wait_for(leaders_placed, 20)) {
		TAP_CHECK(0);
		return false;
	}
	tap_diag("leaders placed in %.2f s", now_s() - t0);
	return true;
}

static void cluster_down(void)
{
	unsigned int i;

	for (i = 1; i <= N; i++) {
		kv_node_close(nd[i]);
		nd[i] = NULL;
		frozen[i] = false;
	}
}

static void test_cluster(void)
{
	struct kv_client_stats cs;
	struct kv_node_stats ns;
	unsigned int i, g;
	double t0;

	if (!cluster_up())
		goto out;
	t0 = now_s();
	TAP_CHECK_INT(kv_node_client_start(nd[1], 8, 1, ORDERS), 0);
	TAP_CHECK(wait_for(client_done, 120));
	kv_node_client_stats(nd[1], &cs);
	tap_diag("%llu orders in %.2f s: %llu committed, %llu aborted "
		 "(%llu stale, %llu locked, %llu leader, %llu other), "
		 "%llu read retries",
		 (unsigned long long)cs.started, now_s() - t0,
		 (unsigned long long)cs.committed,
		 (unsigned long long)cs.aborted,
		 (unsigned long long)cs.abort_stale,
		 (unsigned long long)cs.abort_locked,
		 (unsigned long long)cs.abort_leader,
		 (unsigned long long)cs.abort_other,
		 (unsigned long long)cs.read_retries);
	TAP_CHECK_INT(cs.started, ORDERS);
	TAP_CHECK_INT(cs.committed + cs.aborted, ORDERS);
	/* 8 in flight over 10 districts: many commit, some conflict */
	TAP_CHECK(cs.committed >= ORDERS / 4);
	TAP_CHECK_INT(cs.abort_leader + cs.abort_other, 0);
	TAP_CHECK_INT(kv_node_tally(nd[1])->committed, cs.committed);

	/* the client's own replicas catch up through a sync */
	TAP_CHECK(wait_for(no_decisions_held, 20));
	TAP_CHECK_INT(kv_node_sync(nd[1]), 0);
	TAP_CHECK(wait_for(node1_synced, 20));
	TAP_CHECK_INT(check_node(1, kv_node_tally(nd[1])), 0);
	{
		char why[256];

		/* strictly serializable, against the client's replicas */
		TAP_CHECK_INT(kv_node_check_history(nd[1], why, sizeof(why)),
			      0);
		tap_diag("history of %llu orders: %s",
			 (unsigned long long)cs.committed, why);
	}
	TAP_CHECK(wait_for(settled, 20));
	for (g = 0; g < NSHARD; g++)
		tap_diag("shard %u: %llu entries applied on each", g,
			 (unsigned long long)kv_node_applied(nd[1], g));
	for (i = 2; i <= N; i++)
		same_replicas(1, i);
	for (i = 1; i <= N; i++)
		TAP_CHECK_INT(check_node(i, kv_node_tally(nd[1])), 0);
	for (i = 2; i <= N; i++) {
		kv_node_stats(nd[i], &ns);
		tap_diag("node %u: %llu prepares, %llu yes, %llu no, %llu "
			 "decisions, %llu reads served, %llu failed applies",
			 i, (unsigned long long)ns.prepares,
			 (unsigned long long)ns.votes_yes,
			 (unsigned long long)ns.votes_no,
			 (unsigned long long)ns.decides,
			 (unsigned long long)ns.reads_served,
			 (unsigned long long)ns.apply_failed);
		TAP_CHECK_INT(ns.apply_failed, 0);
		TAP_CHECK(ns.reads_served > 0);
	}
out:
	cluster_down();
}


/* ---- failover -------------------------------------------------------- */

static uint64_t committed(void)
{
	struct kv_client_stats cs;

	kv_node_client_stats(nd[1], &cs);
	return cs.committed;
}

static unsigned int sa, sb;	/* the survivors: @sa syncs */

/* @sa and @sb applied alike, nothing prepared or locked on them */
static bool pair_settled(void)
{
	unsigned int g, r, i;
	struct kv_node *p[2] = { nd[sa], nd[sb] };

	if (!kv_node_synced(nd[sa]))
		return false;
	for (g = 0; g < NSHARD; g++) {
		if (kv_node_applied(p[1], g) != kv_node_applied(p[0], g))
			return false;
		for (i = 0; i < 2; i++) {
			if (kv_node_prepared(p[i], g)) {
				kv_node_sync(nd[sa]);
				return false;
			}
			for (r = 0; r < kv_no_nrec(&no); r++)
				if (kv_shard_locked(kv_node_shard(p[i], g), r,
						    NULL))
					return false;
		}
	}
	return true;
}

/*
 * Node 3 leads shard 1 and stops dead (never polled again: no FIN, no
 * Down, as a host that hangs or loses power) while it holds prepared
 * transactions.  Node 1 or 2 must take shard 1 over, resolve what
 * node 3 left prepared by asking the coordinator, and orders must
 * commit again;
 * then nodes 1 and 2 hold equal replicas, nothing stays locked, no
 * committed order is lost and the history is strictly serializable.
 */
static void failover(bool restart)
{
	struct kv_client_stats cs;
	struct kv_node_stats n1, n2;
	uint64_t c_kill, c;
	double t_kill, t_back = 0, end;
	unsigned int g, last = restart ? 3 : 2;
	char why[256];

	if (!cluster_up())
		goto out;
	TAP_CHECK_INT(kv_node_client_start(nd[1], 8, 7, 0), 0);
	/* run a while, then stop node 3 holding a prepared transaction */
	end = now_s() + 60;
	while (now_s() < end &&
	       (committed() < 200 || !kv_node_prepared(nd[3], 1)))
		poll_all();
	TAP_CHECK(kv_node_prepared(nd[3], 1) > 0);
	tap_diag("node 3 stops with %u transactions prepared on shard 1",
		 kv_node_prepared(nd[3], 1));
	frozen[3] = true;
	c_kill = committed();
	t_kill = now_s();
	end = t_kill + 60;
	while (now_s() < end && committed() < c_kill + 300) {
		poll_all();
		if (!t_back && committed() > c_kill + 8)
			t_back = now_s();
	}
	c = committed();
	tap_diag("after the stop: %llu more orders committed in %.2f s; "
		 "commits flowed again %.2f s after it; shard 1 led by %u",
		 (unsigned long long)(c - c_kill), now_s() - t_kill,
		 t_back ? t_back - t_kill : -1.0, kv_node_leader(nd[1], 1));
	TAP_CHECK(c >= c_kill + 300);
	TAP_CHECK(kv_node_leader(nd[1], 1) == 1 ||
		  kv_node_leader(nd[1], 1) == 2);
	if (restart) {
		double t0 = now_s();

		/* node 3 comes back from its write-ahead files */
		kv_node_close(nd[3]);
		nd[3] = NULL;
		frozen[3] = false;
		if (!node_open(3))
			goto out;
		TAP_CHECK_INT(kv_node_epoch(nd[3]), 2);
		node_peers(3);
		TAP_CHECK_INT(kv_node_start(nd[3]), 0);
		c = committed();
		end = now_s() + 60;
		while (now_s() < end && (committed() < c + 300 ||
		       kv_node_applied(nd[3], 1) < kv_node_applied(nd[2], 1)))
			poll_all();
		tap_diag("node 3 back: caught up on shard 1 (%llu entries "
			 "applied) in %.2f s, %llu more orders committed",
			 (unsigned long long)kv_node_applied(nd[3], 1),
			 now_s() - t0,
			 (unsigned long long)(committed() - c));
		TAP_CHECK(committed() >= c + 300);
		/*
		 * it prefers to lead shard 1, which another leads now: it
		 * still leaves its short placing timeouts within 10 s
		 */
		TAP_CHECK(wait_for(steady3, 15));
		tap_diag("node 3 steady %.2f s after it was opened again",
			 now_s() - t0);
	}
	kv_node_client_stop(nd[1]);
	TAP_CHECK(wait_for(client_done, 60));
	kv_node_client_stats(nd[1], &cs);
	TAP_CHECK_INT(cs.log_failed, 0);
	TAP_CHECK_INT(cs.committed + cs.aborted, cs.started);

	sa = 1;
	sb = 2;
	TAP_CHECK_INT(kv_node_sync(nd[1]), 0);
	TAP_CHECK(wait_for(pair_settled, 30));
	if (restart)
		TAP_CHECK(wait_for(settled, 30));
	kv_node_stats(nd[1], &n1);
	kv_node_stats(nd[2], &n2);
	/* shard 1's new leader (node 1 or 2) found and resolved them */
	tap_diag("nodes 1 and 2: %llu orphans, %llu asks, %llu COMMITs and "
		 "%llu ABORTs applied for them; node 1 (coordinator): %llu "
		 "answers",
		 (unsigned long long)(n1.orphans + n2.orphans),
		 (unsigned long long)(n1.asks + n2.asks),
		 (unsigned long long)(n1.resolved_commit + n2.resolved_commit),
		 (unsigned long long)(n1.resolved_abort + n2.resolved_abort),
		 (unsigned long long)n1.answers);
	TAP_CHECK(n1.orphans + n2.orphans > 0);
	TAP_CHECK(n1.resolved_commit + n1.resolved_abort +
		  n2.resolved_commit + n2.resolved_abort > 0);
	TAP_CHECK(n1.answers > 0);
	for (g = 2; g <= last; g++)
		same_replicas(1, g);
	for (g = 1; g <= last; g++)
		TAP_CHECK_INT(check_node(g, kv_node_tally(nd[1])), 0);
	TAP_CHECK_INT(kv_node_check_history(nd[1], why, sizeof(why)), 0);
	tap_diag("history of %llu orders: %s",
		 (unsigned long long)cs.committed, why);
out:
	cluster_down();
}

static void test_failover(void)
{
	failover(false);
}

/*
 * The same, every node on write-ahead files (fixed ports): then node 3
 * comes back on its files, as the same server with a new epoch, and
 * catches up while orders go on; at the end all three replicas are
 * identical again.
 */
static void test_restart(void)
{
	snprintf(wal_root, sizeof(wal_root), "/tmp/txkv-wal-XXXXXX");
	if (!mkdtemp(wal_root)) {
		TAP_CHECK(0);
		return;
	}
	base = fixed_base();
	failover(true);
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", wal_root);
		TAP_CHECK_INT(system(cmd), 0);
	}
	wal_root[0] = 0;
	base = 0;
}

/* ---- the coordinator's death ---------------------------------------- */

static unsigned int victim;	/* the node that stops */

/* the victim's decision log is led by a survivor, and both know it */
static bool dlog_moved(void)
{
	uint32_t l = kv_node_leader(nd[sa], NSHARD + victim - 1);

	return l && l != victim &&
	       kv_node_leader(nd[sb], NSHARD + victim - 1) == l;
}

struct doubt_ctx {
	unsigned int leader, held, dropped;
};

static void doubt_one(void *ctx, const struct kv_doubt *d)
{
	struct doubt_ctx *c = ctx;
	struct timespec ts;

	/* committed if the log holds it: count it, known at "now" */
	if (kv_node_decision_held(nd[c->leader], &d->id)) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		kv_node_client_history_add(nd[victim], d,
					   (uint64_t)ts.tv_sec * 1000000000ULL +
					   ts.tv_nsec);
		c->held++;
	} else {
		c->dropped++;
	}
}

static uint64_t committed_by(unsigned int i)
{
	struct kv_client_stats cs;

	kv_node_client_stats(nd[i], &cs);
	return cs.committed;
}

static bool running[N + 1];	/* a client runs there */

static bool clients_done(void)
{
	unsigned int i;

	for (i = 1; i <= N; i++)
		if (running[i] && !frozen[i] && !kv_node_client_done(nd[i]))
			return false;
	return true;
}

/*
 * Clients on the nodes of @before run with one tally and one history;
 * node @v, one of them, stops dead with orders in doubt and
 * transactions prepared; the clients of @after (the survivors' own,
 * started now if they were not running) go on for 300 orders each.
 * The victim's decision log gets a new leader, which answers for its
 * transactions; the victim's orders in doubt count as committed
 * exactly when its log holds their COMMIT.  Then both survivors'
 * replicas are identical, nothing is locked, every record agrees with
 * the tally, and the history of every client is strictly serializable.
 */
static void clients_kill(uint32_t before, uint32_t v, uint32_t after)
{
	struct kv_no_tally tally = { 0 };
	struct kv_history *hist = NULL;
	struct kv_node_stats st;
	struct doubt_ctx dc = { 0 };
	uint64_t at_kill[N + 1] = { 0 };
	uint64_t answers = 0, resolved = 0;
	double t_kill, t_back = 0, end;
	unsigned int i;
	bool more;
	char why[256];

	nclients = N;
	victim = v;
	sa = v == 1 ? 2 : 1;
	sb = v == 3 ? 2 : 3;
	memset(running, 0, sizeof(running));
	if (kv_no_tally_init(&tally, &no) || kv_hist_new(&hist)) {
		TAP_CHECK(0);
		goto out;
	}
	if (!cluster_up())
		goto out;
	for (i = 1; i <= N; i++)
		TAP_CHECK_INT(kv_node_client_share(nd[i], &tally, hist), 0);
	for (i = 1; i <= N; i++) {
		if (!(before & 1U << i))
			continue;
		TAP_CHECK_INT(kv_node_client_start(nd[i], 8, 10 + i, 0), 0);
		running[i] = true;
	}
	end = now_s() + 60;
	while (now_s() < end &&
	       (committed_by(v) < 200 ||
		!kv_node_client_in_doubt(nd[v], NULL, NULL) ||
		!(kv_node_prepared(nd[2], 0) + kv_node_prepared(nd[3], 1))))
		poll_all();
	frozen[v] = true;
	t_kill = now_s();
	tap_diag("node %u stops after %llu commits of its own, %u orders in "
		 "doubt", v, (unsigned long long)committed_by(v),
		 kv_node_client_in_doubt(nd[v], NULL, NULL));
	for (i = 1; i <= N; i++) {
		if (!(after & 1U << i))
			continue;
		at_kill[i] = running[i] ? committed_by(i) : 0;
		if (!running[i]) {
			TAP_CHECK_INT(kv_node_client_start(nd[i], 8, 20 + i,
							   0), 0);
			running[i] = true;
		}
	}
	end = t_kill + 60;
	do {
		poll_all();
		more = false;
		for (i = 1; i <= N; i++) {
			if (!(after & 1U << i))
				continue;
			if (committed_by(i) < at_kill[i] + 300)
				more = true;
			if (!t_back && committed_by(i) > at_kill[i] + 8)
				t_back = now_s();
		}
	} while (more && now_s() < end);
	TAP_CHECK(!more);
	tap_diag("survivors' clients commit again %.2f s after the stop, "
		 "300 orders each in %.2f s", t_back ? t_back - t_kill : -1.0,
		 now_s() - t_kill);
	for (i = 1; i <= N; i++)
		if (running[i] && !frozen[i])
			kv_node_client_stop(nd[i]);
	TAP_CHECK(wait_for(clients_done, 60));
	TAP_CHECK(wait_for(dlog_moved, 30));
	TAP_CHECK_INT(kv_node_sync(nd[sa]), 0);
	TAP_CHECK(wait_for(pair_settled, 30));
	/* the victim's log, as its new leader holds it, decides its doubts */
	dc.leader = kv_node_leader(nd[sa], NSHARD + v - 1);
	kv_node_client_in_doubt(nd[v], doubt_one, &dc);
	tap_diag("node %u's orders in doubt: %u committed (held by its log, "
		 "led by node %u now), %u not", v, dc.held, dc.leader,
		 dc.dropped);
	for (i = 1; i <= N; i++) {
		if (i == v)
			continue;
		kv_node_stats(nd[i], &st);
		answers += st.answers;
		resolved += st.resolved_commit + st.resolved_abort +
			    st.learned;
	}
	tap_diag("survivors: %llu transactions of node %u resolved, %llu "
		 "answers given", (unsigned long long)resolved, v,
		 (unsigned long long)answers);
	TAP_CHECK(resolved > 0);
	same_replicas(sa, sb);
	TAP_CHECK_INT(check_node(sa, &tally), 0);
	TAP_CHECK_INT(check_node(sb, &tally), 0);
	TAP_CHECK_INT(kv_node_check_history(nd[sa], why, sizeof(why)), 0);
	tap_diag("history of %llu orders of %u clients: %s",
		 (unsigned long long)tally.committed,
		 __builtin_popcount(before | after), why);
out:
	cluster_down();
	kv_no_tally_free(&tally);
	kv_hist_free(hist);
	nclients = 1;
}

/* the only client's node stops; a client on node 2 takes over */
static void test_coord_failover(void)
{
	clients_kill(1U << 1, 1, 1U << 2);
}

/*
 * Three clients, one per node, each its own coordinator with its own
 * decision log and a participant of the others' (and its own)
 * transactions; node 3 (also shard 1's leader) stops dead
 */
static void test_clients(void)
{
	clients_kill(1U << 1 | 1U << 2 | 1U << 3, 3, 1U << 1 | 1U << 2);
}

static const struct tap_test tests[] = {
	TAP_TEST(test_cluster, "3 nodes, 2 shards on Raft, 1,000 new orders by 2PC: replicas equal, none lost"),
	TAP_TEST(test_failover, "a shard's leader stops with transactions prepared: the next resolves them, orders go on, none lost"),
	TAP_TEST(test_restart, "on write-ahead files: the stopped leader comes back, catches up, all replicas equal"),
	TAP_TEST(test_coord_failover, "the client's node stops: its transactions resolved from the decision log, a new client goes on, none lost"),
	TAP_TEST(test_clients, "3 clients, one per node; a node stops dead: the others go on, one strictly serializable history, none lost"),
};

int main(void)
{
	return TAP_MAIN(tests);
}
