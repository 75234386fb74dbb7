// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Three libraft servers on txraft_io over the TCP transport (127.0.0.1),
 * in one thread, under ASan and UBSan:
 *  - they elect one leader (and never two in one term, checked at every
 *    poll);
 *  - 400 commands of 1 B to 4 KiB proposed on the leader, with a
 *    transport message limit of 16 KiB (txrdma's default), so batches
 *    of AppendEntries leave in parts: every server applies all of them,
 *    in the order proposed, byte for byte (a hash of every command in
 *    order, and the count);
 *  - the leader closes: the other two elect a new leader within the
 *    deadline, take 200 more commands, and apply the same sequence;
 *  - every server snapshots its state machine as its log grows
 *    (threshold 128 entries, 32 kept);
 *  - a leader closes with 50 commands in flight: every apply
 *    completes (with an error), nothing crashes;
 *  - every server closes cleanly (every queued request completed, no
 *    leak under ASan).
 * Waiting is always for a condition, with a deadline.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../txraft_io.h"
#include "../txraft_snap2.h"
#include "raft_tcp_net.h"
#include "tap.h"
#include "txn_test.h"

#define N		3
#define MAXMSG		16384
#define FIRST		400
#define SECOND		200

struct server {
	struct raft_tcp_node net;
	struct raft raft;
	struct raft_fsm fsm;
	bool up;		/* raft started, not closed */
	bool frozen;		/* never polled: a host that stopped dead */
	uint64_t applied;	/* commands applied */
	uint64_t hash;		/* of every command, in order */
	unsigned int snapshots;	/* taken */
};

static struct server srv[N + 1];	/* [1..N] */
static uint64_t proposed_hash[FIRST + SECOND + 51];	/* after k commands */
static unsigned int done_ok, done_fail;
static raft_term leader_term[N + 1];	/* a leader's term, to catch two */
static unsigned int split_leader;

/* FNV-1a over the command, chained: order and bytes both count */
static uint64_t chain(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	h ^= n;
	while (n--)
		h = (h ^ *b++) * 0x100000001b3ULL;
	return h;
}

static int fsm_apply(struct raft_fsm *fsm, const struct raft_buffer *buf,
		     void **result)
{
	struct server *s = fsm->data;

	s->hash = chain(s->hash, buf->base, buf->len);
	s->applied++;
	*result = NULL;
	return 0;
}

static int fsm_snapshot(struct raft_fsm *fsm, struct raft_buffer *bufs[],
			unsigned int *n_bufs)
{
	struct server *s = fsm->data;
	int rv = txraft_snap2_make(s->applied, s->hash, bufs, n_bufs);

	if (!rv)
		s->snapshots++;
	return rv;
}

static int fsm_restore(struct raft_fsm *fsm, struct raft_buffer *buf)
{
	struct server *s = fsm->data;

	return txraft_snap2_take(buf, &s->applied, &s->hash);
}

static size_t cmd_len(unsigned int k)
{
	return 1 + mix(k * 2654435761u) % 4096;
}

static void cmd_fill(unsigned int k, uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)mix(k * 65599 + (unsigned int)i);
}

/* at most one leader per term, whoever is asked */
static bool leaders_ok(void)
{
	unsigned int i, j;

	for (i = 1; i <= N; i++) {
		if (!srv[i].up || raft_state(&srv[i].raft) != RAFT_LEADER)
			continue;
		leader_term[i] = srv[i].raft.current_term;
		for (j = 1; j <= N; j++)
			if (j != i && srv[j].up &&
			    raft_state(&srv[j].raft) == RAFT_LEADER &&
			    srv[j].raft.current_term == leader_term[i])
				return false;
	}
	return true;
}

static bool two_leaders;

static void poll_all(void)
{
	unsigned int i;

	for (i = 1; i <= N; i++)
		if (srv[i].net.x && !srv[i].frozen)
			txraft_io_poll(srv[i].net.x, 1);
	if (!leaders_ok())
		two_leaders = true;
}

static unsigned int leader(void)
{
	unsigned int i;

	for (i = 1; i <= N; i++)
		if (srv[i].up && !srv[i].frozen &&
		    raft_state(&srv[i].raft) == RAFT_LEADER)
			return i;
	return 0;
}

static bool wait_for(bool (*cond)(void), double seconds)
{
	return raft_tcp_wait(cond, poll_all, seconds);
}

static bool have_leader(void)
{
	return leader() != 0;
}

static uint64_t want_applied;

static bool all_applied(void)
{
	unsigned int i;

	for (i = 1; i <= N; i++)
		if (srv[i].up && srv[i].applied < want_applied)
			return false;
	return true;
}

static bool all_done(void)
{
	return done_ok + done_fail >= want_applied;
}

static void apply_cb(struct raft_apply *req, int status, void *result)
{
	(void)result;
	if (status)
		done_fail++;
	else
		done_ok++;
	free(req);
}

/* propose commands [from, to) on server @l */
static int propose(unsigned int l, unsigned int from, unsigned int to)
{
	unsigned int k;

	for (k = from; k < to; k++) {
		struct raft_apply *req = calloc(1, sizeof(*req));
		struct raft_buffer b = { .len = cmd_len(k) };
		int rv;

		b.base = raft_malloc(b.len);
		if (!req || !b.base)
			return -ENOMEM;
		cmd_fill(k, b.base, b.len);
		rv = raft_apply(&srv[l].raft, req, &b, 1, apply_cb);
		if (rv) {
			raft_free(b.base);
			free(req);
			return rv;
		}
		/* a few per poll: batches of AppendEntries form */
		if (k % 16 == 15)
			poll_all();
	}
	return 0;
}

static void stop(unsigned int i)
{
	srv[i].up = false;
	raft_tcp_node_stop(&srv[i].net, &srv[i].raft);
}

/*
 * Three servers on TCP, bootstrapped and started.  @vclock: their
 * clock is vclock_ms, moved by the test; @stagger: they watch their
 * leader's Downs (txraft_io_watch_leader()) with that stagger, 0: not.
 * Return: 0, or -1 (checks failed).
 */
static uint64_t vclock_ms;

static uint64_t vclock(void *ctx)
{
	(void)ctx;
	return vclock_ms;
}

static int start_all(bool virtual_clock, unsigned int stagger)
{
	struct raft_tcp_node *nets[N + 1] = { NULL };
	struct raft_configuration conf;
	unsigned int i;
	int rv;

	memset(srv, 0, sizeof(srv));
	memset(leader_term, 0, sizeof(leader_term));
	two_leaders = false;
	done_ok = done_fail = 0;
	raft_configuration_init(&conf);
	for (i = 1; i <= N; i++)
		nets[i] = &srv[i].net;
	rv = raft_tcp_net_open(nets, N, MAXMSG, &conf);
	TAP_CHECK_INT(rv, 0);
	if (rv) {
		raft_configuration_close(&conf);
		return -1;
	}
	for (i = 1; i <= N; i++) {
		if (virtual_clock)
			txraft_io_set_clock(srv[i].net.x, vclock, NULL);
		srv[i].fsm = (struct raft_fsm) { .version = 1,
						 .data = &srv[i],
						 .apply = fsm_apply,
						 .snapshot = fsm_snapshot,
						 .restore = fsm_restore };
		srv[i].hash = 0xcbf29ce484222325ULL;
		TAP_CHECK_INT(raft_init(&srv[i].raft, txraft_io_raft(srv[i].net.x),
					&srv[i].fsm, i, srv[i].net.addr), 0);
		if (stagger)
			txraft_io_watch_leader(srv[i].net.x, &srv[i].raft, stagger);
		raft_set_election_timeout(&srv[i].raft, 300);
		raft_set_heartbeat_timeout(&srv[i].raft, 50);
		raft_set_pre_vote(&srv[i].raft, true);
		/* snapshots as the log grows: taken, and the log trimmed */
		raft_set_snapshot_threshold(&srv[i].raft, 128);
		raft_set_snapshot_trailing(&srv[i].raft, 32);
		TAP_CHECK_INT(raft_bootstrap(&srv[i].raft, &conf), 0);
		TAP_CHECK_INT(raft_start(&srv[i].raft), 0);
		srv[i].up = true;
	}
	raft_configuration_close(&conf);

	return 0;
}

/* expected state after k commands: the same chain */
static void init_hashes(void)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	unsigned int k;

	proposed_hash[0] = h;
	for (k = 0; k < FIRST + SECOND + 50; k++) {
		static uint8_t b[4096];
		size_t n = cmd_len(k);

		cmd_fill(k, b, n);
		h = chain(h, b, n);
		proposed_hash[k + 1] = h;
	}
}

static void test_cluster(void)
{
	struct txraft_io_stats st;
	unsigned int i, j, l;
	double t0;

	init_hashes();
	if (start_all(false, 0))
		return;

	t0 = raft_tcp_now_s();
	TAP_CHECK(wait_for(have_leader, 10));
	l = leader();
	tap_diag("leader %u elected in %.0f ms", l, (raft_tcp_now_s() - t0) * 1e3);
	if (!l)
		return;

	want_applied = FIRST;
	TAP_CHECK_INT(propose(l, 0, FIRST), 0);
	TAP_CHECK(wait_for(all_done, 20));
	TAP_CHECK_INT(done_fail, 0);
	TAP_CHECK(wait_for(all_applied, 20));
	for (i = 1; i <= N; i++) {
		TAP_CHECK_INT(srv[i].applied, FIRST);
		TAP_CHECK(srv[i].hash == proposed_hash[FIRST]);
	}
	txraft_io_stats(srv[l].net.x, &st);
	split_leader = (unsigned int)st.split;
	tap_diag("leader: %llu messages out, %llu AppendEntries in parts, %llu bad in",
		 (unsigned long long)st.msgs_out, (unsigned long long)st.split,
		 (unsigned long long)st.bad_in);
	TAP_CHECK(st.split > 0);
	TAP_CHECK_INT(st.bad_in, 0);

	/* the leader goes: the other two carry on */
	stop(l);
	t0 = raft_tcp_now_s();
	TAP_CHECK(wait_for(have_leader, 10));
	j = leader();
	tap_diag("after closing %u: leader %u in %.0f ms", l, j,
		 (raft_tcp_now_s() - t0) * 1e3);
	if (!j)
		return;
	TAP_CHECK(j != l);
	want_applied = FIRST + SECOND;
	TAP_CHECK_INT(propose(j, FIRST, FIRST + SECOND), 0);
	TAP_CHECK(wait_for(all_done, 20));
	TAP_CHECK_INT(done_fail, 0);
	TAP_CHECK(wait_for(all_applied, 20));
	for (i = 1; i <= N; i++) {
		if (!srv[i].up)
			continue;
		TAP_CHECK_INT(srv[i].applied, FIRST + SECOND);
		TAP_CHECK(srv[i].hash == proposed_hash[FIRST + SECOND]);
	}
	TAP_CHECK(!two_leaders);
	for (i = 1; i <= N; i++)
		TAP_CHECK(srv[i].snapshots > 0);

	/*
	 * The leader closes with commands in flight: its queued appends
	 * complete before libraft's close (a cancelled one crashed
	 * libraft 0.15); the applies end with an error, none is lost
	 * silently
	 */
	j = leader();
	TAP_CHECK(j != 0);
	if (j) {
		unsigned int before = done_ok + done_fail;

		TAP_CHECK_INT(propose(j, FIRST + SECOND, FIRST + SECOND + 50), 0);
		stop(j);
		TAP_CHECK_INT(done_ok + done_fail, before + 50);
	}
	for (i = 1; i <= N; i++)
		if (srv[i].net.x)
			stop(i);
}

/* poll everyone, the virtual clock one ms on each round */
static bool vwait_for(bool (*cond)(void), unsigned int ms)
{
	uint64_t end = vclock_ms + ms;

	while (!cond()) {
		if (vclock_ms >= end)
			return false;
		vclock_ms++;
		poll_all();
	}
	return true;
}

static unsigned int old_leader;

static bool new_leader(void)
{
	unsigned int l = leader();

	return l && l != old_leader;
}

/*
 * Followers watching their leader's Downs (txraft_io_watch_leader):
 * on a virtual clock, so that what happens before any election timeout
 * could fire is told apart from what the timeouts do.  Election
 * timeout 300 ms: without the watch no follower starts an election
 * before 300 ms after the leader's last heartbeat.
 *  - a wrong Down (the leader is alive) on one follower: no new leader,
 *    no new term (the other follower refuses the pre-votes);
 *  - the leader closes (its TCP connections drop: a Down on both
 *    followers): a new leader within 100 ms, 200 more commands applied
 *    in order.
 */
static void test_leader_down(void)
{
	struct txraft_io_stats st;
	unsigned int i, f, l;
	raft_term term;
	uint64_t t0;

	init_hashes();
	vclock_ms = 1000000;
	if (start_all(true, 50))
		return;
	TAP_CHECK(vwait_for(have_leader, 10000));
	l = leader();
	if (!l)
		return;
	want_applied = 100;
	TAP_CHECK_INT(propose(l, 0, 100), 0);
	TAP_CHECK(vwait_for(all_applied, 10000));
	term = srv[l].raft.current_term;

	/* a wrong Down: the leader is alive and heard by the other */
	f = l == 1 ? 2 : 1;
	txraft_io_transport_cb.peer(srv[f].net.x, l, false);
	txraft_io_stats(srv[f].net.x, &st);
	TAP_CHECK_INT(st.leader_downs, 1);
	t0 = vclock_ms;
	while (vclock_ms < t0 + 200) {
		vclock_ms++;
		poll_all();
	}
	TAP_CHECK_INT(leader(), l);
	for (i = 1; i <= N; i++)
		TAP_CHECK_INT(srv[i].raft.current_term, term);
	/* it follows the leader again (its next heartbeat told it) */
	TAP_CHECK(raft_state(&srv[f].raft) == RAFT_FOLLOWER &&
		  srv[f].raft.follower_state.current_leader.id == l);

	/* the leader goes: its connections close, both followers see it */
	old_leader = l;
	stop(l);
	t0 = vclock_ms;
	TAP_CHECK(vwait_for(new_leader, 100));
	tap_diag("leader %u closed: leader %u after %llu virtual ms (election timeout 300)",
		 l, leader(), (unsigned long long)(vclock_ms - t0));
	for (i = 1; i <= N; i++) {
		if (!srv[i].up)
			continue;
		txraft_io_stats(srv[i].net.x, &st);
		TAP_CHECK(st.leader_downs >= 1);
	}
	l = leader();
	if (l) {
		want_applied = 300;
		TAP_CHECK_INT(propose(l, 100, 300), 0);
		TAP_CHECK(vwait_for(all_applied, 10000));
		for (i = 1; i <= N; i++)
			if (srv[i].up)
				TAP_CHECK(srv[i].hash == proposed_hash[300]);
	}
	TAP_CHECK(!two_leaders);
	for (i = 1; i <= N; i++)
		if (srv[i].net.x)
			stop(i);
}

/*
 * The leader stops dead (never polled again: no FIN, no message) and
 * its followers' Downs come apart, @gap ms: f0, the lower id (rank 0),
 * at t0 and f1 at t0 + @gap.  Election timeout 300 ms, stagger 50.
 * Returns ms from t0 to a new leader (or 1000: none) after checking
 * that it takes 50 more commands.
 */
static unsigned int staggered_downs(unsigned int gap)
{
	struct txraft_io_stats st;
	unsigned int i, l, f0 = 0, f1 = 0, ms = 1000;
	uint64_t t0, hurried = 0;

	init_hashes();
	vclock_ms = 1000000;
	if (start_all(true, 50))
		return ms;
	TAP_CHECK(vwait_for(have_leader, 10000));
	l = leader();
	if (!l)
		goto out;
	want_applied = 50;
	TAP_CHECK_INT(propose(l, 0, 50), 0);
	TAP_CHECK(vwait_for(all_applied, 10000));
	for (i = 1; i <= N; i++) {
		if (i == l)
			continue;
		if (!f0)
			f0 = i;
		else
			f1 = i;
	}
	srv[l].frozen = true;
	old_leader = l;
	t0 = vclock_ms;
	txraft_io_transport_cb.peer(srv[f0].net.x, l, false);
	while (vclock_ms < t0 + gap) {
		vclock_ms++;
		poll_all();
	}
	txraft_io_transport_cb.peer(srv[f1].net.x, l, false);
	if (vwait_for(new_leader, 1000 - gap))
		ms = (unsigned int)(vclock_ms - t0);
	for (i = 1; i <= N; i++) {
		if (i == l)
			continue;
		txraft_io_stats(srv[i].net.x, &st);
		hurried += st.hurried;
	}
	tap_diag("leader %u stopped dead; Downs at %u +0, %u +%u ms: leader %u after %u virtual ms, %llu elections hurried",
		 l, f0, f1, gap, leader(), ms,
		 (unsigned long long)hurried);
	l = leader();
	if (l) {
		want_applied = 100;
		srv[old_leader].up = false;	/* all_applied: not it */
		TAP_CHECK_INT(propose(l, 50, 100), 0);
		TAP_CHECK(vwait_for(all_applied, 10000));
		for (i = 1; i <= N; i++)
			if (srv[i].up)
				TAP_CHECK(srv[i].hash == proposed_hash[100]);
		srv[old_leader].up = true;
	}
	TAP_CHECK(!two_leaders);
out:
	for (i = 1; i <= N; i++) {
		srv[i].frozen = false;
		if (srv[i].net.x)
			stop(i);
	}
	return ms;
}

/*
 * f0's pre-vote comes while f1 still knows the leader (its Down comes
 * 120 ms later) and is refused: f0 asks again 25 ms later, not after a
 * whole election timeout, so it wins soon after f1's Down (f1's own
 * staggered try would only start 50 ms after it).
 */
static void test_refused_prevote(void)
{
	unsigned int ms = staggered_downs(120);

	TAP_CHECK(ms <= 120 + 30);
}

static void test_bad_args(void)
{
	struct txraft_io *x;

	TAP_CHECK_INT(txraft_io_new(&x, 0, MAXMSG, NULL), -EINVAL);
	TAP_CHECK_INT(txraft_io_new(&x, 1ULL << 32, MAXMSG, NULL), -EINVAL);
	TAP_CHECK_INT(txraft_io_new(&x, 1, 64, NULL), -EINVAL);
	TAP_CHECK_INT(txraft_io_new(&x, 1, MAXMSG, NULL), 0);
	TAP_CHECK_INT(txraft_io_add_peer(x, 1, "self"), -EINVAL);
	TAP_CHECK_INT(txraft_io_add_peer(x, 0, "zero"), -EINVAL);
	TAP_CHECK_INT(txraft_io_add_peer(x, 2, NULL), -EINVAL);
	TAP_CHECK_INT(txraft_io_add_peer(x, 2, "b"), 0);
	TAP_CHECK_INT(txraft_io_add_peer(x, 2, "b again"), -EEXIST);
	txraft_io_free(x);
}

static const struct tap_test tests[] = {
	TAP_TEST(test_bad_args, "txraft_io_new/add_peer refuse bad arguments"),
	TAP_TEST(test_cluster, "3 libraft servers over TCP: one leader, 400 commands applied everywhere in order, leader closes, 200 more"),
	TAP_TEST(test_refused_prevote, "the first follower's pre-vote refused (the other's Down 120 ms later): asked again, a leader within 30 ms of the second Down"),
	TAP_TEST(test_leader_down, "followers watching Downs: a wrong one changes no leader or term; the leader's close gives a new one in < 100 ms, not the 300 ms timeout"),
};

int main(void)
{
	return TAP_MAIN(tests);
}
