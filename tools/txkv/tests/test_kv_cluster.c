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
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <txn_vrec.h>

#include "tap.h"
#include "../kv_node.h"

#define N	3
#define NSHARD	2
#define ORDERS	1000

static struct kv_node *nd[N + 1];
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
		if (kv_node_leader(nd[i], NSHARD) != 1)
			return false;
	}
	return true;
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

static unsigned int check_node(unsigned int i, const struct kv_no_tally *t)
{
	char why[160];
	unsigned int bad = kv_no_check_shards(t, kv_node_shards(nd[i]), why,
					      sizeof(why));

	if (bad)
		tap_diag("node %u: %s", i, why);
	return bad;
}

static void test_cluster(void)
{
	struct in_addr lo = { htonl(INADDR_LOOPBACK) };
	int ports[N + 1][KV_GROUPS(NSHARD)];
	struct kv_client_stats cs;
	struct kv_node_stats ns;
	unsigned int i, j, g;
	double t0;

	for (i = 1; i <= N; i++) {
		struct kv_node_cfg c = {
			.self = i, .nnodes = N, .no = no,
			.backend = TXN_BACKEND_TCP, .epoch = 1,
			.prefer = { 2, 3, 1 },
		};

		TAP_CHECK_INT(kv_node_open(&nd[i], &c), 0);
		if (!nd[i])
			return;
		for (g = 0; g < KV_GROUPS(NSHARD); g++)
			ports[i][g] = kv_node_port(nd[i], g);
	}
	for (i = 1; i <= N; i++)
		for (j = 1; j <= N; j++)
			if (j != i)
				TAP_CHECK_INT(kv_node_add_peer(nd[i], j, NULL,
							       &lo, ports[j]),
					      0);
	for (i = 1; i <= N; i++)
		TAP_CHECK_INT(kv_node_start(nd[i]), 0);
	t0 = now_s();
	TAP_CHECK(wait_for(leaders_placed, 20));
	tap_diag("leaders placed in %.2f s", now_s() - t0);

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
	for (g = 0; g < NSHARD; g++) {
		const struct kv_shard *a = kv_node_shard(nd[1], g);

		tap_diag("shard %u: %llu entries applied on each", g,
			 (unsigned long long)kv_node_applied(nd[1], g));
		for (i = 2; i <= N; i++) {
			void *sa, *sb;
			size_t la, lb;

			/* the whole state, table and prepared set alike */
			TAP_CHECK_INT(kv_shard_snapshot(a, &sa, &la), 0);
			TAP_CHECK_INT(kv_shard_snapshot(kv_node_shard(nd[i], g),
							&sb, &lb), 0);
			TAP_CHECK(la == lb && !memcmp(sa, sb, la));
			free(sa);
			free(sb);
		}
	}
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
	for (i = 1; i <= N; i++)
		kv_node_close(nd[i]);
}

static const struct tap_test tests[] = {
	TAP_TEST(test_cluster, "3 nodes, 2 shards on Raft, 1,000 new orders by 2PC: replicas equal, none lost"),
};

int main(void)
{
	return TAP_MAIN(tests);
}
