// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libraft on txraft_io under randomized schedules, on the host under
 * ASan and UBSan: three servers, a simulated network and a simulated
 * clock, driven one step at a time by a seeded generator.  A step
 * delivers one message in flight (any of them: reordering), possibly
 * dropping it (loss) or delivering it and keeping a copy (duplication);
 * advances the clock; proposes a command; cuts or heals links
 * (partitions); crashes a server (its raft, io and memory go; its
 * store's write-ahead file stays, without what it had not flushed) or
 * restarts one from that file; or tells a server that a peer is Down,
 * rightly or not (servers watch their leader's Downs:
 * txraft_io_watch_leader()).  After every step:
 *  - election safety: at most one leader per term, ever;
 *  - state-machine safety: every server has applied the same commands
 *    in the same order, as far as both have applied (a chained hash
 *    of every applied command, per server, since its last restart);
 *    no command applied twice;
 * and every 50 steps, and at the end of a seed:
 *  - log matching: where two servers' stores hold an entry of the same
 *    index and term, they hold the same entries up to it, byte for
 *    byte.
 * At the end of a seed the network heals and every server comes back:
 * a leader is elected and every server applies the same commands,
 * at least a minimum number (the run is not vacuous).
 * 20 seeds x 5,000 steps = 100,000 steps.  The schedule is biased
 * the way bugs hide: the clock often outruns the network (elections
 * overlap and votes split) and servers that voted in their term are
 * rebooted.  Checked against planted bugs (2026-12-04): a store that
 * forgets the vote gave two leaders in one term (seed 4), one that
 * forgets the term too likewise, one that ignores truncation broke log
 * matching (seed 1); a write-ahead file that does not record votes gave
 * two leaders (seed 4), one that skips entries did not converge.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../txraft_io.h"
#include "../txraft_snap2.h"
#include "../txraft_store.h"
#include "../txraft_wire.h"
#include "tap.h"
#include "txn_test.h"

#define N		3
#define SEEDS		20
#define STEPS		5000
/* small enough that a catch-up goes in parts (send_entries()) */
#define MAXMSG		1024
#define MAX_APPLIED	20000
#define MAX_CMDS	(SEEDS * STEPS)

struct wire {
	uint32_t from, to;
	size_t len;
	void *bytes;
};

struct sim_transport {
	struct txn_transport t;
	uint32_t self;
};

struct server {
	struct txraft_store *store;	/* NULL while crashed: on disk only */
	char path[96];			/* its write-ahead file */
	struct txraft_io *x;
	struct sim_transport *st;
	struct raft raft;
	struct raft_fsm fsm;
	bool alive, closed;
	uint64_t applied;
	uint64_t hash[MAX_APPLIED + 1];	/* after k applied */
	uint64_t base;			/* hash[] known from here on */
	uint8_t *seen;			/* command ids applied */
	char addr[16];
};

static struct server srv[N + 1];
static struct wire *net;
static size_t nnet, capnet;
static bool cut[N + 1][N + 1];		/* from -> to blocked */
static uint64_t clock_ms;
static uint64_t rng;
static raft_id *leader_of;		/* by term */
static size_t nterms;
static uint32_t next_cmd;
static bool violation;
static const char *what;

static struct {
	uint64_t delivered, dropped, duplicated, proposed, accepted;
	uint64_t crashes, restarts, cuts, heals, leaders, max_applied;
	uint64_t snapshots, restores, installs;
	uint64_t downs, leader_downs;	/* Down events given, acted on */
	uint64_t appends, parts;	/* AppendEntries sent; of them, parts */
} stat;

static uint64_t rnd(uint64_t n)
{
	return n ? splitmix64(&rng) % n : 0;
}

static uint64_t sim_now(void *ctx)
{
	(void)ctx;
	return clock_ms;
}

/* ---- the simulated transport ----------------------------------- */

/*
 * Every AppendEntries that leaves vouches for what it carries: its
 * leader_commit is at most prev_log_index + n_entries (libraft's own
 * reach the leader's last index; send_entries() cuts its parts).
 */
static void check_wire(const void *msg, size_t len)
{
	struct raft_message m;

	if (txraft_wire_decode(msg, len, &m)) {
		violation = true;
		what = "a message sent that does not decode";
		return;
	}
	if (m.type == RAFT_IO_APPEND_ENTRIES) {
		const struct raft_append_entries *ae = &m.append_entries;

		stat.appends++;
		if (ae->leader_commit > ae->prev_log_index + ae->n_entries) {
			violation = true;
			what = "an AppendEntries commits past what it carries";
		}
	}
	txraft_wire_release(&m);
}

static int sim_send(struct txn_transport *t, uint32_t node, const void *msg,
		    size_t len)
{
	struct sim_transport *s = (struct sim_transport *)t;
	struct wire *w;

	if (!node || node > N || node == s->self || !len)
		return -EINVAL;
	if (nnet == capnet) {
		capnet = capnet ? capnet * 2 : 256;
		net = realloc(net, capnet * sizeof(*net));
		if (!net)
			abort();
	}
	check_wire(msg, len);
	w = &net[nnet++];
	w->from = s->self;
	w->to = node;
	w->len = len;
	w->bytes = malloc(len);
	if (!w->bytes)
		abort();
	memcpy(w->bytes, msg, len);
	return 0;
}

static int sim_poll(struct txn_transport *t, int timeout_ms)
{
	/* delivery is the schedule's, step by step */
	(void)t;
	(void)timeout_ms;
	return 0;
}

static int sim_fd(const struct txn_transport *t)
{
	(void)t;
	return -1;
}

static bool sim_peer_up(const struct txn_transport *t, uint32_t node)
{
	(void)t;
	(void)node;
	return true;
}

static void sim_close(struct txn_transport *t)
{
	free(t);
}

static const struct txn_transport_ops sim_ops = {
	.name = "sim", .send = sim_send, .poll = sim_poll, .fd = sim_fd,
	.peer_up = sim_peer_up, .close = sim_close,
};

/* ---- servers ---------------------------------------------------- */

static int fsm_apply(struct raft_fsm *fsm, const struct raft_buffer *buf,
		     void **result)
{
	struct server *s = fsm->data;
	uint32_t id;
	const uint8_t *b = buf->base;
	uint64_t h;
	size_t i;

	*result = NULL;
	if (buf->len < 4 || s->applied >= MAX_APPLIED) {
		violation = true;
		what = "a command too short, or too many applied";
		return 0;
	}
	memcpy(&id, buf->base, 4);
	if (id >= MAX_CMDS || s->seen[id]) {
		violation = true;
		what = "a command applied twice";
		return 0;
	}
	s->seen[id] = 1;
	h = s->hash[s->applied];
	for (i = 0; i < buf->len; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	s->hash[++s->applied] = h;
	if (s->applied > stat.max_applied)
		stat.max_applied = s->applied;
	return 0;
}

/* the state (applied, hash) in 16 bytes; libraft snapshots it often */
static int fsm_snapshot(struct raft_fsm *fsm, struct raft_buffer *bufs[],
			unsigned int *n_bufs)
{
	struct server *s = fsm->data;

	if (txraft_snap2_make(s->applied, s->hash[s->applied], bufs, n_bufs))
		abort();
	stat.snapshots++;
	return 0;
}

/* a snapshot replaces the state: what came before it is not known */
static int fsm_restore(struct raft_fsm *fsm, struct raft_buffer *buf)
{
	struct server *s = fsm->data;
	uint64_t applied, hash;

	if (txraft_snap2_take(buf, &applied, &hash) || applied > MAX_APPLIED) {
		violation = true;
		what = "a malformed snapshot";
		return RAFT_MALFORMED;
	}
	s->applied = applied;
	s->base = applied;
	s->hash[s->applied] = hash;
	memset(s->seen, 0, MAX_CMDS);
	stat.restores++;
	return 0;
}

static void close_cb(struct raft *r)
{
	struct server *s = (struct server *)((char *)r -
					     offsetof(struct server, raft));

	s->closed = true;
}

static void start_server(unsigned int i, bool bootstrap,
			 const struct raft_configuration *conf)
{
	struct server *s = &srv[i];
	unsigned int j;
	int rv;

	/* a restart reads what the crashed process had stored */
	if (!s->store && txraft_store_open(&s->store, s->path,
					   TXRAFT_STORE_NOSYNC))
		abort();
	rv = txraft_io_new(&s->x, i, MAXMSG, s->store);
	if (rv)
		abort();
	txraft_io_set_clock(s->x, sim_now, NULL);
	s->st = calloc(1, sizeof(*s->st));
	if (!s->st)
		abort();
	s->st->t.ops = &sim_ops;
	s->st->t.cb = txraft_io_transport_cb;
	s->st->t.ctx = s->x;
	s->st->self = i;
	txraft_io_attach(s->x, &s->st->t);
	for (j = 1; j <= N; j++)
		if (j != i && txraft_io_add_peer(s->x, j, srv[j].addr))
			abort();
	/* the state machine is volatile: rebuilt by replaying the log */
	s->applied = 0;
	s->base = 0;
	s->hash[0] = 0xcbf29ce484222325ULL;
	memset(s->seen, 0, MAX_CMDS);
	s->fsm = (struct raft_fsm) { .version = 1, .data = s,
				     .apply = fsm_apply,
				     .snapshot = fsm_snapshot,
				     .restore = fsm_restore };
	s->closed = false;
	if (raft_init(&s->raft, txraft_io_raft(s->x), &s->fsm, i, s->addr))
		abort();
	/* liveness Downs cut the wait for an election (see step()); they
	 * need pre-vote */
	txraft_io_watch_leader(s->x, &s->raft, 10);
	raft_set_pre_vote(&s->raft, true);
	raft_set_election_timeout(&s->raft, 100);
	raft_set_heartbeat_timeout(&s->raft, 20);
	/* snapshots all the time: taken, installed, restored on restart */
	raft_set_snapshot_threshold(&s->raft, 8);
	raft_set_snapshot_trailing(&s->raft, 2);
	if (bootstrap && raft_bootstrap(&s->raft, conf))
		abort();
	if (raft_start(&s->raft))
		abort();
	s->alive = true;
}

static void stop_server(unsigned int i)
{
	struct server *s = &srv[i];
	struct txraft_io_stats st;

	s->alive = false;
	txraft_io_stats(s->x, &st);
	stat.installs += st.snapshots_in;
	stat.leader_downs += st.leader_downs;
	stat.parts += st.split;
	raft_close(&s->raft, close_cb);
	while (!s->closed)
		txraft_io_poll(s->x, 0);
	txn_transport_close(&s->st->t);
	s->st = NULL;
	txraft_io_free(s->x);
	s->x = NULL;
}

/*
 * The process dies: its memory goes, its file stays, without the
 * appends it had gathered and not flushed (their completions had not
 * run: nobody was told they were stored).
 */
static void crash(unsigned int i)
{
	txraft_store_crash(srv[i].store);
	stop_server(i);
	txraft_store_free(srv[i].store);
	srv[i].store = NULL;
	stat.crashes++;
}

static void poll_all(void)
{
	unsigned int i;

	for (i = 1; i <= N; i++)
		if (srv[i].alive)
			txraft_io_poll(srv[i].x, 0);
}

/* ---- the checks -------------------------------------------------- */

static void check_leaders(void)
{
	unsigned int i;
	raft_term t;

	for (i = 1; i <= N; i++) {
		if (!srv[i].alive || raft_state(&srv[i].raft) != RAFT_LEADER)
			continue;
		t = srv[i].raft.current_term;
		if (t >= nterms) {
			size_t n = nterms ? nterms : 64;

			while (n <= t)
				n *= 2;
			leader_of = realloc(leader_of, n * sizeof(*leader_of));
			if (!leader_of)
				abort();
			memset(leader_of + nterms, 0,
			       (n - nterms) * sizeof(*leader_of));
			nterms = n;
		}
		if (!leader_of[t]) {
			leader_of[t] = i;
			stat.leaders++;
		} else if (leader_of[t] != i) {
			violation = true;
			what = "two leaders in one term";
		}
	}
}

static void check_applied(void)
{
	unsigned int i, j;
	uint64_t k;

	for (i = 1; i <= N; i++)
		for (j = i + 1; j <= N; j++) {
			k = srv[i].applied < srv[j].applied ? srv[i].applied :
							      srv[j].applied;
			/* only where both know the state (after restores) */
			if (k < srv[i].base || k < srv[j].base)
				continue;
			if (srv[i].hash[k] != srv[j].hash[k]) {
				violation = true;
				what = "two servers applied different commands";
			}
		}
}

static bool same_entry(const struct raft_entry *a, const struct raft_entry *b)
{
	return a->term == b->term && a->type == b->type &&
	       a->buf.len == b->buf.len &&
	       !memcmp(a->buf.base, b->buf.base, a->buf.len);
}

static void check_logs(void)
{
	unsigned int i, j;

	for (i = 1; i <= N; i++)
		for (j = i + 1; j <= N; j++) {
			const struct txraft_store *a = srv[i].store;
			const struct txraft_store *b = srv[j].store;
			raft_index lo, hi, idx, match = 0;

			if (!a || !b)
				continue;	/* crashed: on disk only */
			lo = txraft_store_start(a) > txraft_store_start(b) ?
			     txraft_store_start(a) : txraft_store_start(b);
			hi = txraft_store_start(a) + txraft_store_count(a);
			if (txraft_store_start(b) + txraft_store_count(b) < hi)
				hi = txraft_store_start(b) +
				     txraft_store_count(b);
			/* the last index where both hold the same term */
			for (idx = lo; idx < hi; idx++)
				if (txraft_store_entry(a, idx)->term ==
				    txraft_store_entry(b, idx)->term)
					match = idx;
			for (idx = lo; match && idx <= match; idx++)
				if (!same_entry(txraft_store_entry(a, idx),
						txraft_store_entry(b, idx))) {
					violation = true;
					what = "log matching: same index and term, different logs";
				}
		}
}

/* ---- the schedule ------------------------------------------------ */

static void drop_wire(size_t k)
{
	free(net[k].bytes);
	net[k] = net[--nnet];
}

static void deliver_one(void)
{
	size_t k = rnd(nnet);
	struct wire w = net[k];
	struct server *to = &srv[w.to];

	if (cut[w.from][w.to] || !to->alive || rnd(100) < 5) {
		stat.dropped++;
		drop_wire(k);
		return;
	}
	if (rnd(100) < 3) {
		/* delivered now, and again later */
		void *copy = malloc(w.len);

		if (!copy)
			abort();
		memcpy(copy, w.bytes, w.len);
		stat.duplicated++;
		to->st->t.cb.msg(to->st->t.ctx, w.from, copy, w.len);
		free(copy);
	} else {
		net[k] = net[--nnet];
		to->st->t.cb.msg(to->st->t.ctx, w.from, w.bytes, w.len);
		free(w.bytes);
	}
	stat.delivered++;
}

static void apply_cb(struct raft_apply *req, int status, void *result)
{
	(void)result;
	if (!status)
		stat.accepted++;
	free(req);
}

static void propose(unsigned int i)
{
	struct raft_apply *req;
	struct raft_buffer b;
	uint32_t id = next_cmd;
	size_t k;

	if (!srv[i].alive || id >= MAX_CMDS)
		return;
	b.len = 4 + rnd(200);
	b.base = raft_malloc(b.len);
	req = calloc(1, sizeof(*req));
	if (!b.base || !req)
		abort();
	memcpy(b.base, &id, 4);
	for (k = 4; k < b.len; k++)
		((uint8_t *)b.base)[k] = (uint8_t)mix(id * 131 + (uint32_t)k);
	if (raft_apply(&srv[i].raft, req, &b, 1, apply_cb)) {
		raft_free(b.base);
		free(req);
		return;
	}
	next_cmd++;
	stat.proposed++;
}

static void partition(void)
{
	unsigned int a, b, v;

	if (rnd(2)) {
		memset(cut, 0, sizeof(cut));
		stat.heals++;
		return;
	}
	stat.cuts++;
	if (rnd(2)) {
		/* one server alone */
		v = 1 + (unsigned int)rnd(N);
		for (a = 1; a <= N; a++) {
			cut[a][v] = a != v;
			cut[v][a] = a != v;
		}
	} else {
		a = 1 + (unsigned int)rnd(N);
		b = 1 + (unsigned int)rnd(N);
		if (a != b)
			cut[a][b] = true;	/* one direction only */
	}
}

/* a follower or candidate that has voted in its current term */
static unsigned int voter(void)
{
	unsigned int i, start = 1 + (unsigned int)rnd(N), k;

	for (k = 0; k < N; k++) {
		i = 1 + (start + k - 1) % N;
		if (srv[i].alive && srv[i].raft.voted_for &&
		    raft_state(&srv[i].raft) != RAFT_LEADER)
			return i;
	}
	return 0;
}

static void reboot(unsigned int i)
{
	crash(i);
	start_server(i, false, NULL);
	stat.restarts++;
}

static void step(void)
{
	uint64_t r = rnd(100);
	unsigned int i = 1 + (unsigned int)rnd(N);

	if (r < 30) {
		if (nnet)
			deliver_one();
	} else if (r < 70) {
		/* a slow network: elections overlap, votes split */
		clock_ms += 1 + rnd(20);
	} else if (r < 80) {
		propose(i);
	} else if (r < 84) {
		partition();
	} else if (r < 88) {
		/* a reboot amid an election: it keeps only what it stored */
		i = voter();
		if (i)
			reboot(i);
	} else if (r < 89) {
		if (srv[i].alive)
			reboot(i);
	} else if (r < 90) {
		if (srv[i].alive)
			crash(i);
	} else if (r < 93) {
		if (!srv[i].alive) {
			start_server(i, false, NULL);
			stat.restarts++;
		}
	} else if (r < 96) {
		/*
		 * A liveness Down about a peer: right (it crashed, or the
		 * link is cut) or wrong (it only stalled) alike
		 */
		unsigned int j = 1 + (unsigned int)rnd(N);

		if (srv[i].alive && j != i) {
			txraft_io_transport_cb.peer(srv[i].x, j, false);
			stat.downs++;
		}
	}
	poll_all();
	check_leaders();
	check_applied();
}

static bool settled(uint64_t *applied)
{
	unsigned int i;

	for (i = 1; i <= N; i++)
		if (srv[i].applied != srv[1].applied)
			return false;
	*applied = srv[1].applied;
	return true;
}

static unsigned int leader(void)
{
	unsigned int i;

	for (i = 1; i <= N; i++)
		if (srv[i].alive && raft_state(&srv[i].raft) == RAFT_LEADER)
			return i;
	return 0;
}

/* the clock, terms, links and files reset; N servers bootstrapped */
static void start_fresh(void)
{
	struct raft_configuration conf;
	unsigned int i;

	clock_ms = 1000000;
	nterms = 0;
	free(leader_of);
	leader_of = NULL;
	next_cmd = 0;
	memset(cut, 0, sizeof(cut));
	raft_configuration_init(&conf);
	for (i = 1; i <= N; i++) {
		snprintf(srv[i].addr, sizeof(srv[i].addr), "sim-%u", i);
		if (raft_configuration_add(&conf, i, srv[i].addr, RAFT_VOTER))
			abort();
		unlink(srv[i].path);
		if (txraft_store_open(&srv[i].store, srv[i].path,
				      TXRAFT_STORE_NOSYNC))
			abort();
	}
	for (i = 1; i <= N; i++)
		start_server(i, true, &conf);
	raft_configuration_close(&conf);
}

static void run_seed(uint64_t seed, uint64_t *min_applied)
{
	unsigned int i, s, l;
	uint64_t applied = 0;
	int rounds;

	rng = seed;
	start_fresh();

	for (s = 0; s < STEPS && !violation; s++) {
		step();
		if (s % 50 == 49)
			check_logs();
	}

	/* the end: every server back, the network whole and lossless */
	memset(cut, 0, sizeof(cut));
	for (i = 1; i <= N; i++)
		if (!srv[i].alive)
			start_server(i, false, NULL);
	for (rounds = 0; rounds < 200000 && !violation; rounds++) {
		while (nnet) {
			struct wire w = net[0];

			net[0] = net[--nnet];
			srv[w.to].st->t.cb.msg(srv[w.to].st->t.ctx, w.from,
					       w.bytes, w.len);
			free(w.bytes);
		}
		clock_ms += 5;
		poll_all();
		check_leaders();
		check_applied();
		l = leader();
		if (l && rounds % 500 == 250)
			propose(l);	/* commits what the term inherited */
		if (l && rounds > 1000 && settled(&applied) && applied &&
		    !nnet)
			break;
	}
	check_logs();
	if (!settled(&applied)) {
		violation = true;
		what = "the servers did not converge once the network healed";
	}
	if (applied < *min_applied)
		*min_applied = applied;

	for (i = 1; i <= N; i++) {
		stop_server(i);
		txraft_store_free(srv[i].store);
		srv[i].store = NULL;
		unlink(srv[i].path);
	}
	while (nnet)
		drop_wire(0);
}

static void test_random_schedules(void)
{
	uint64_t min_applied = UINT64_MAX;
	unsigned int seed;

	for (seed = 1; seed <= SEEDS && !violation; seed++) {
		run_seed(seed * 0x9e3779b97f4a7c15ULL, &min_applied);
		if (violation)
			tap_diag("seed %u: %s", seed, what);
	}
	tap_diag("%u seeds x %u steps: %llu delivered, %llu dropped, %llu duplicated, %llu cuts, %llu heals, %llu crashes, %llu restarts",
		 SEEDS, STEPS, (unsigned long long)stat.delivered,
		 (unsigned long long)stat.dropped,
		 (unsigned long long)stat.duplicated,
		 (unsigned long long)stat.cuts, (unsigned long long)stat.heals,
		 (unsigned long long)stat.crashes,
		 (unsigned long long)stat.restarts);
	tap_diag("%llu snapshots taken, %llu restored (installed or loaded), %llu InstallSnapshot received",
		 (unsigned long long)stat.snapshots,
		 (unsigned long long)stat.restores,
		 (unsigned long long)stat.installs);
	tap_diag("%llu liveness Downs given (right or wrong), %llu about the leader a follower knew",
		 (unsigned long long)stat.downs,
		 (unsigned long long)stat.leader_downs);
	tap_diag("%llu AppendEntries sent, %llu of them sent in parts (%u-byte messages), each committing no further than it carries",
		 (unsigned long long)stat.appends,
		 (unsigned long long)stat.parts, MAXMSG);
	tap_diag("%llu leaders (terms with one), %llu commands proposed, %llu acknowledged; every seed ended with all servers at >= %llu applied",
		 (unsigned long long)stat.leaders,
		 (unsigned long long)stat.proposed,
		 (unsigned long long)stat.accepted,
		 (unsigned long long)min_applied);
	TAP_CHECK(!violation);
	TAP_CHECK(stat.crashes > 0 && stat.restarts > 0 && stat.dropped > 0 &&
		  stat.duplicated > 0 && stat.cuts > 0);
	TAP_CHECK(min_applied >= 10);
	TAP_CHECK(stat.snapshots > 0 && stat.restores > 0 &&
		  stat.installs > 0);
	TAP_CHECK(stat.leader_downs > 0);
}

/* ---- one schedule, written out ------------------------------------ */

/* every message in flight, oldest first, but for cut links */
static void deliver_fifo(void)
{
	while (nnet) {
		struct wire w = net[0];

		memmove(net, net + 1, --nnet * sizeof(*net));
		if (!cut[w.from][w.to] && srv[w.to].alive)
			srv[w.to].st->t.cb.msg(srv[w.to].st->t.ctx, w.from,
					       w.bytes, w.len);
		free(w.bytes);
	}
}

/* one virtual ms: deliver, tick, check */
static void ms_step(void)
{
	deliver_fifo();
	clock_ms++;
	poll_all();
	check_leaders();
	check_applied();
}

static bool has_last(unsigned int i, raft_index idx)
{
	return srv[i].alive && raft_last_index(&srv[i].raft) >= idx;
}

/*
 * Three fresh servers, one leading (*l) with 10 commands applied on
 * both followers (*f0 the lower id): false if that did not happen.
 */
static bool cluster_up(unsigned int *l, unsigned int *f0, unsigned int *f1)
{
	unsigned int i, ms;

	rng = 42;
	start_fresh();
	for (ms = 0; ms < 5000 && !leader(); ms++)
		ms_step();
	*l = leader();
	TAP_CHECK(*l != 0);
	if (!*l)
		return false;
	*f0 = *f1 = 0;
	for (i = 1; i <= N; i++)
		if (i != *l && !*f0)
			*f0 = i;
		else if (i != *l)
			*f1 = i;
	for (i = 0; i < 10; i++)
		propose(*l);
	for (ms = 0; ms < 1000 && !(srv[*f0].applied >= 10 &&
				    srv[*f1].applied >= 10); ms++)
		ms_step();
	TAP_CHECK(srv[*f0].applied >= 10 && srv[*f1].applied >= 10);
	return true;
}

static void cluster_down(void)
{
	unsigned int i;

	for (i = 1; i <= N; i++) {
		if (srv[i].alive)
			stop_server(i);
		txraft_store_free(srv[i].store);
		srv[i].store = NULL;
		unlink(srv[i].path);
	}
	while (nnet)
		drop_wire(0);
	/* the randomized test counts its own */
	memset(&stat, 0, sizeof(stat));
}

/*
 * The leader dies after an entry reached one follower (f1) and not the
 * other (f0, the lower id: it asks first after the Downs, stagger 0
 * against f1's 10 ms).  f1 refuses f0's pre-votes (f0's log is
 * behind), so f0 cannot win; f1, refusing, stands at once
 * (txraft_io.c stand_now()) and leads before its own stagger would
 * have let it ask.  f0 refuses its first AppendEntries and is sent the
 * missing entries at once, not a heartbeat later.  Then f1 commits on
 * with f0.
 */
static void test_longer_log_stands(void)
{
	struct txraft_io_stats st;
	unsigned int i, l, f0 = 0, f1 = 0, ms;
	raft_index last;
	uint64_t t0;

	if (!cluster_up(&l, &f0, &f1))
		goto out;

	/* three more reach f1 only */
	cut[l][f0] = true;
	for (i = 0; i < 3; i++)
		propose(l);
	last = raft_last_index(&srv[l].raft);
	for (ms = 0; ms < 50 && !has_last(f1, last); ms++)
		ms_step();
	TAP_CHECK(has_last(f1, last) && !has_last(f0, last));

	/* the leader dies; both followers see its Down together */
	crash(l);
	cut[l][f0] = false;
	txraft_io_transport_cb.peer(srv[f0].x, l, false);
	txraft_io_transport_cb.peer(srv[f1].x, l, false);
	t0 = clock_ms;
	for (ms = 0; ms < 300 && !leader(); ms++)
		ms_step();
	txraft_io_stats(srv[f1].x, &st);
	tap_diag("leader %u died with %u entries on f1 (%u) that f0 (%u) lacks: leader %u after %llu virtual ms (f1's stagger 10), f1 stood %llu times",
		 l, 3, f1, f0, leader(),
		 (unsigned long long)(clock_ms - t0),
		 (unsigned long long)st.stood);
	TAP_CHECK_INT(leader(), f1);
	TAP_CHECK(clock_ms - t0 < 10);
	TAP_CHECK(st.stood >= 1);

	/*
	 * f0 refuses the new leader's first AppendEntries (it lacks the
	 * three): the corrected one leaves with the refusal, not a
	 * heartbeat (20 ms) later (txraft_io.c retry_at_once())
	 */
	t0 = clock_ms;
	last = raft_last_index(&srv[f1].raft);
	for (ms = 0; ms < 100 && !has_last(f0, last); ms++)
		ms_step();
	txraft_io_stats(srv[f1].x, &st);
	tap_diag("f0 holds the new leader's log %llu virtual ms after it leads (heartbeat 20), %llu refused appends retried at once",
		 (unsigned long long)(clock_ms - t0),
		 (unsigned long long)st.retried);
	TAP_CHECK(has_last(f0, last));
	TAP_CHECK(clock_ms - t0 < 10);
	TAP_CHECK(st.retried >= 1);

	/* and it commits on with f0: 5 more, applied alike */
	for (i = 0; i < 5; i++)
		propose(f1);
	for (ms = 0; ms < 1000 && !(srv[f0].applied >= 18 &&
				    srv[f1].applied >= 18); ms++)
		ms_step();
	TAP_CHECK_INT(srv[f0].applied, 18);
	TAP_CHECK_INT(srv[f1].applied, 18);
	TAP_CHECK(srv[f0].hash[18] == srv[f1].hash[18]);
	TAP_CHECK(!violation);
out:
	cluster_down();
}

/*
 * Flow control's lag (txraft_io_lag()) counts a follower only while it
 * answers: one whose transport peer stays up but whose raft has gone
 * quiet (here: its messages to the leader are lost) holds the leader
 * back for an election timeout (100 ms) at most, then not at all; the
 * other follower keeps committing, and the quiet one counts again as
 * soon as it answers and catches up.
 */
static void test_lag_skips_quiet_follower(void)
{
	unsigned int i, l, f0 = 0, f1 = 0, ms;
	uint64_t lag_early, t0;
	bool asked;

	if (!cluster_up(&l, &f0, &f1))
		goto out;
	TAP_CHECK_INT(txraft_io_lag(srv[l].x), 0);

	cut[f0][l] = true;
	t0 = clock_ms;
	for (i = 0; i < 5; i++)
		propose(l);
	for (ms = 0; ms < 10; ms++)
		ms_step();
	lag_early = txraft_io_lag(srv[l].x);
	for (ms = 0; ms < 300 && txraft_io_lag(srv[l].x); ms++)
		ms_step();
	tap_diag("f0 (%u) quiet: lag %llu after 10 virtual ms, 0 after %llu (election timeout 100)",
		 f0, (unsigned long long)lag_early,
		 (unsigned long long)(clock_ms - t0));
	TAP_CHECK(lag_early >= 5);
	TAP_CHECK_INT(txraft_io_lag(srv[l].x), 0);
	TAP_CHECK(clock_ms - t0 >= 100 && clock_ms - t0 <= 130);
	TAP_CHECK_INT(leader(), l);
	TAP_CHECK(srv[f1].applied >= 15);

	/*
	 * its pair is made again (after a cut, say): counted at once, its
	 * answer not yet in, and left out again if none comes
	 */
	txraft_io_transport_cb.peer(srv[l].x, f0, true);
	lag_early = txraft_io_lag(srv[l].x);
	t0 = clock_ms;
	for (ms = 0; ms < 300 && txraft_io_lag(srv[l].x); ms++)
		ms_step();
	tap_diag("f0's peer up again, still quiet: lag %llu, 0 after %llu virtual ms",
		 (unsigned long long)lag_early,
		 (unsigned long long)(clock_ms - t0));
	TAP_CHECK(lag_early >= 5);
	TAP_CHECK(clock_ms - t0 >= 100 && clock_ms - t0 <= 130);

	/* it answers again (heartbeats every 20): caught up, level */
	cut[f0][l] = false;
	for (ms = 0; ms < 50 || (ms < 300 && srv[f0].applied < 15); ms++)
		ms_step();
	TAP_CHECK_INT(srv[f0].applied, 15);
	TAP_CHECK_INT(txraft_io_lag(srv[l].x), 0);
	TAP_CHECK(srv[f0].hash[15] == srv[f1].hash[15]);

	/*
	 * the leader's appends stop reaching it: it still speaks (its
	 * pre-votes, refused), and that is not an answer that counts
	 */
	cut[l][f0] = true;
	for (i = 0; i < 5; i++)
		propose(l);
	t0 = clock_ms;
	for (ms = 0; ms < 10; ms++)
		ms_step();
	/* counted: it answered within the last heartbeat */
	TAP_CHECK(txraft_io_lag(srv[l].x) >= 5);
	for (ms = 0; ms < 300 && txraft_io_lag(srv[l].x); ms++)
		ms_step();
	lag_early = clock_ms - t0;
	asked = false;
	for (ms = 0; ms < 500 && !txraft_io_lag(srv[l].x); ms++) {
		ms_step();
		asked |= raft_state(&srv[f0].raft) == RAFT_CANDIDATE;
	}
	tap_diag("the leader's appends cut off from f0: lag 0 after %llu virtual ms, then for %u more with f0 %s",
		 (unsigned long long)lag_early, ms,
		 asked ? "asking for votes" : "silent");
	TAP_CHECK(lag_early >= 80 && lag_early <= 130);
	TAP_CHECK_INT(ms, 500);
	TAP_CHECK(asked);
	TAP_CHECK_INT(leader(), l);
	TAP_CHECK(!violation);
out:
	cluster_down();
}

/*
 * Hand server @to an AppendEntries from @from: @n entries of term
 * @eterm from index @prev + 1, command ids from @id0.
 */
static void inject_append(unsigned int to, unsigned int from, raft_term term,
			  raft_index prev, raft_term prev_term,
			  unsigned int n, raft_term eterm, uint32_t id0,
			  raft_index commit)
{
	static uint64_t buf[16384 / 8];
	struct raft_entry e[32];
	uint32_t ids[32];
	struct raft_message m = { .type = RAFT_IO_APPEND_ENTRIES,
				  .server_id = from };
	unsigned int i;
	long len;

	if (n > 32)
		abort();
	memset(e, 0, sizeof(e));
	for (i = 0; i < n; i++) {
		ids[i] = id0 + i;
		e[i].term = eterm;
		e[i].type = RAFT_COMMAND;
		e[i].buf.base = &ids[i];
		e[i].buf.len = sizeof(ids[i]);
	}
	m.append_entries = (struct raft_append_entries) {
		.term = term, .prev_log_index = prev,
		.prev_log_term = prev_term, .leader_commit = commit,
		.entries = e, .n_entries = n };
	len = txraft_wire_encode(&m, from, buf, sizeof(buf));
	if (len <= 0)
		abort();
	srv[to].st->t.cb.msg(srv[to].st->t.ctx, from, buf, (size_t)len);
	poll_all();		/* the append's flush and completion */
	poll_all();
}

/*
 * A deposed leader's tail is not committed by a new leader's append
 * that covers less than it (libraft 0.15 would: txraft_io.c
 * clamp_commit()).  Server 3 follows leader 1 of term 2, which sends
 * it 20 entries (indices 2-21) and commits 5.  Leader 2 of term 3,
 * whose log holds only up to index 10 of term 2 and then entries of
 * its own, has committed index 30; it sends entries 9-10 (both match)
 * with that commit.  Server 3 may commit 10, not 21: its entries 11-21
 * are no majority's.  Then leader 2's entries 11-12 replace them.
 * Seen in the raft suite as a server that applied such a tail and
 * later stopped on "new index conflicts with committed entry".
 */
static void test_stale_tail_not_committed(void)
{
	struct txraft_io_stats st;
	unsigned int i, a, b;

	start_fresh();
	for (a = 1; a <= N; a++)
		for (b = 1; b <= N; b++)
			cut[a][b] = true;
	/* no snapshot may take the entries under test from the log */
	raft_set_snapshot_threshold(&srv[3].raft, 1000);
	/* command ids: 100-119 leader 1's, 150-151 leader 2's own */

	inject_append(3, 1, 2, 1, 1, 20, 2, 100, 5);
	TAP_CHECK_INT(raft_last_index(&srv[3].raft), 21);
	TAP_CHECK_INT(srv[3].applied, 4);	/* indices 2-5 */

	inject_append(3, 2, 3, 8, 2, 2, 2, 107, 30);
	txraft_io_stats(srv[3].x, &st);
	tap_diag("after leader 2's append of 9-10 with commit 30: applied %llu, commit cut %llu times",
		 (unsigned long long)srv[3].applied,
		 (unsigned long long)st.commit_clamped);
	TAP_CHECK_INT(srv[3].applied, 9);	/* indices 2-10 */
	TAP_CHECK(st.commit_clamped >= 1);
	for (i = 109; i < 120; i++)
		TAP_CHECK(!srv[3].seen[i]);	/* 11-21 never applied */

	/* leader 2's own 11-12 replace the tail and commit */
	inject_append(3, 2, 3, 10, 2, 2, 3, 150, 30);
	TAP_CHECK_INT(raft_last_index(&srv[3].raft), 12);
	TAP_CHECK_INT(srv[3].applied, 11);
	TAP_CHECK(srv[3].seen[150] && srv[3].seen[151]);
	for (i = 109; i < 120; i++)
		TAP_CHECK(!srv[3].seen[i]);
	TAP_CHECK(raft_state(&srv[3].raft) == RAFT_FOLLOWER);
	TAP_CHECK(!violation);
	cluster_down();
}

static const struct tap_test tests[] = {
	TAP_TEST(test_longer_log_stands, "a leader dies with entries on one follower only: that follower, refusing the other's pre-vote, stands at once and leads within its stagger; the other's refusal of its first append is answered at once"),
	TAP_TEST(test_lag_skips_quiet_follower, "flow control's lag counts a follower whose transport is up but whose raft is quiet for an election timeout at most (from its last answer to an append or its peer's last Up); the other follower commits on; it counts again once it answers; its pre-votes are no answer"),
	TAP_TEST(test_stale_tail_not_committed, "a deposed leader's tail is not committed by a new leader's append that covers less of it (libraft 0.15 takes min(leader_commit, last stored)): applied up to the append's last entry, the tail replaced after"),
	TAP_TEST(test_random_schedules, "100,000 randomized steps (loss, duplication, reordering, partitions, crashes, right and wrong Downs): one leader per term, same commands applied in the same order, log matching, convergence"),
};

int main(void)
{
	static char dir[] = "/tmp/txraft-sim-XXXXXX";
	unsigned int i;
	int rc;

	/* the servers' write-ahead files and applied-command maps */
	if (!mkdtemp(dir))
		abort();
	for (i = 1; i <= N; i++) {
		srv[i].seen = calloc(MAX_CMDS, 1);
		if (!srv[i].seen)
			abort();
		snprintf(srv[i].path, sizeof(srv[i].path), "%s/server%u.wal",
			 dir, i);
	}
	rc = TAP_MAIN(tests);
	for (i = 1; i <= N; i++)
		free(srv[i].seen);
	rmdir(dir);
	free(leader_of);
	free(net);
	return rc;
}
