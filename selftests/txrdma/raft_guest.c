// SPDX-License-Identifier: GPL-2.0-only
/*
 * Raft replication across three hosts over txrdma: the program each
 * guest of the "raft" suite runs (raft_guest.sh, run_vm_tests.py raft).
 *
 *   raft_guest NODE SERVICE COUNT JOB_DIR WAL
 *
 * One libraft server, node NODE of 1..3 (guest NODE-1; its peers are
 * "g0".."g2"), on lib/raft's raft_io over lib/txn's txrdma transport
 * (node n listens on SERVICE + n).  The three bootstrap one
 * configuration and elect a leader; whichever server leads proposes
 * commands of 64 B to 4 KiB (at most WINDOW in flight) until COUNT are
 * applied.  Every server applies them into a chained hash; when it
 * has applied COUNT it writes "COUNT HASH" into JOB_DIR/raft-NODE and
 * keeps serving until all three files exist (the others may still need
 * it), then closes.  The script compares the three files: the same
 * commands, in the same order, byte for byte, on every host.
 *
 * The state machine snapshots itself (libraft takes one every 256
 * entries), so a follower that falls behind is sent a snapshot.
 *
 * The server keeps its Raft state in the write-ahead file WAL
 * (lib/raft/txraft_store.c, synced): started on a file that holds a
 * term it does not bootstrap, it replays the file and rejoins as the
 * same server.
 *
 * For the host's crash tests (run_vm_tests.py raft kills the leader's
 * QEMU and powers the guest on again): a leader whose first command of
 * a term is applied writes "NODE TERM APPLIED" to JOB_DIR/raft-serves.TERM
 * (the host times a kill to the next such file); a server started with
 * RAFT_GUEST_BACK=BOOT reads the newest of those files and, once it has
 * applied at least that leader's APPLIED (all that was committed before
 * it was killed) and its pairs to both other servers are up, writes
 * JOB_DIR/raft-back.NODE.BOOT: back in the cluster, ready for the next
 * kill.  A follower whose leader's pairs go down (the transport's Down,
 * txraft_io_watch_leader()) writes JOB_DIR/raft-down.NODE.BOOT.N: the
 * host times that from the kill too.
 *
 * With RAFT_GUEST_CUT_AT=M, the leader once M commands are applied
 * asks the host (JOB_DIR/raft-cut-req: its node) to cut its link to one
 * follower for 2 s (run_vm_tests.py raft does, then writes
 * JOB_DIR/raft-cut-done: "LEADER FOLLOWER"); commands go on through the
 * other follower meanwhile (checked: some were applied during the cut)
 * and the cut-off follower catches up (the hashes at the end).
 *
 * Output: TAP lines for this node, and "# " lines with the leader's
 * commit latency (proposal to its apply callback) and the raft_io's
 * counters; every 10 s a line with its term, role, leader, applied and
 * commit indexes and its transport's pairs and dials, for a run that
 * stalls.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <raft.h>
#include <txn_txrdma.h>
#include <txraft_io.h>
#include <txraft_snap2.h>

#include "msg_pattern.h"

#define NODES		3
#define WINDOW		32
#define DEADLINE_S	1400
#define HEARTBEAT_MS	20
/*
 * The leader proposes only while every follower it holds lacks fewer
 * than this many of its entries (txraft_io_lag()): a failover then
 * never waits for a backlog larger than this to cross to the follower
 * left (two windows of up to 4 KiB: about 128 KiB).
 */
#define MAX_LAG		(2 * WINDOW)

struct prop {
	struct raft_apply req;	/* first: the callback gets it back */
	uint64_t t0_ns;
	raft_term term;		/* the term it was proposed in */
};

static struct raft raft;
static struct txraft_io *xio;
static uint64_t applied, hash = 0xcbf29ce484222325ULL, count;
static uint64_t in_flight, next_id, proposed, accepted, failed;
static uint64_t *lat_ns;
static size_t nlat;
static unsigned int node;
static bool wrote;
static uint64_t restores;
static bool closed;
static const char *job;
static raft_term served_term;	/* the last term announced as served */
static raft_term led_term;	/* the last term this server led */
static uint64_t t_led_term;	/* when it began to lead it */
static uint64_t t_down;		/* its last Down of a leader it followed */
static uint64_t t_held, held_max_ns;	/* proposals held back by MAX_LAG */

/*
 * RAFT_GUEST_TRACE=1: libraft's own trace lines (and this program's
 * events) kept in a ring with their times; 700 ms after each Down of a
 * leader the lines from 50 ms before it are written to
 * JOB_DIR/raft-trace.NODE.BOOT.N, times in ms from the Down: the steps
 * of a failover on each server's own clock.
 */
#define TRACE_N		16384
struct trace_line {
	uint64_t t_ns;
	char msg[144];
};

static struct trace_line *trace_ring;
static uint64_t trace_n, trace_dump_at;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void trace_put(const char *file, int line, const char *msg)
{
	struct trace_line *l;
	const char *base = strrchr(file, '/');

	if (!trace_ring)
		return;
	l = &trace_ring[trace_n++ % TRACE_N];
	l->t_ns = now_ns();
	snprintf(l->msg, sizeof(l->msg), "%s:%d %s", base ? base + 1 : file,
		 line, msg);
}

static void trace_emit(struct raft_tracer *tr, const char *file, int line,
		       const char *msg)
{
	(void)tr;
	trace_put(file, line, msg);
}

static struct raft_tracer tracer = { .enabled = true, .emit = trace_emit };

#define TRACE(...)							\
	do {								\
		if (trace_ring) {					\
			char _m[128];					\
									\
			snprintf(_m, sizeof(_m), __VA_ARGS__);		\
			trace_put(__FILE__, __LINE__, _m);		\
		}							\
	} while (0)

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("not ok - node %u: ", node);
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	exit(1);
}

/* JOB_DIR/NAME holds LINE whole when it appears: the host polls for it */
static void put_file(const char *name, const char *line)
{
	char path[4096], tmp[4096 + 16];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", job, name);
	snprintf(tmp, sizeof(tmp), "%s.tmp%u", path, node);
	f = fopen(tmp, "w");
	if (!f || fputs(line, f) < 0 || fclose(f) || rename(tmp, path))
		die("writing %s: %s", path, strerror(errno));
}

/* the trace lines from 50 ms before the last Down on, times from it */
static void trace_dump(unsigned int boot, uint64_t n_down)
{
	uint64_t i = trace_n > TRACE_N ? trace_n - TRACE_N : 0;
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/raft-trace.%u.%u.%" PRIu64, job, node,
		 boot, n_down);
	f = fopen(path, "w");
	if (!f)
		die("writing %s: %s", path, strerror(errno));
	for (; i < trace_n; i++) {
		const struct trace_line *l = &trace_ring[i % TRACE_N];

		if (l->t_ns + 50000000ull >= t_down)
			fprintf(f, "%9.3f %s\n",
				((double)l->t_ns - (double)t_down) / 1e6,
				l->msg);
	}
	if (fclose(f))
		die("writing %s: %s", path, strerror(errno));
}

/*
 * What the newest raft-serves.TERM says: the applied count of the last
 * leader to begin serving (@leader: its node).  Once that leader serves
 * it has applied everything committed before it was elected.
 */
static uint64_t newest_served(unsigned int *leader)
{
	unsigned long long term, best = 0, t2;
	uint64_t got = 0, a;
	char path[4096], extra;
	struct dirent *d;
	unsigned int n;
	DIR *dir;
	FILE *f;

	*leader = 0;
	dir = opendir(job);
	if (!dir)
		die("opendir %s: %s", job, strerror(errno));
	while ((d = readdir(dir))) {
		if (sscanf(d->d_name, "raft-serves.%llu%c", &term, &extra) != 1 ||
		    term <= best)
			continue;
		snprintf(path, sizeof(path), "%s/%s", job, d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%u %llu %" SCNu64, &n, &t2, &a) == 3) {
			best = term;
			got = a;
			*leader = n;
		}
		fclose(f);
	}
	closedir(dir);
	return got;
}

/*
 * For the host's kills: JOB_DIR/raft-even-req holds K, the kill it is
 * about to make.  The leader answers once its pairs to both followers
 * are up and neither lacks MAX_LAG or more of its entries
 * (txraft_io_lag()), with JOB_DIR/raft-even.K: "NODE TERM LAST LAG".
 * A kill then finds the cluster as a steady stream leaves it, not
 * with a follower still catching up from a reboot or a cut, which the
 * next leader would have to send its backlog before it commits
 * anything (measured in Documentation/testing.rst).
 */
static void answer_even(struct txn_transport *t)
{
	static uint64_t answered, next_look;
	unsigned long long k;
	char path[4096], name[64], line[128];
	uint64_t lag;
	FILE *f;

	if (raft_state(&raft) != RAFT_LEADER || now_ns() < next_look)
		return;
	next_look = now_ns() + 20000000ull;
	snprintf(path, sizeof(path), "%s/raft-even-req", job);
	f = fopen(path, "r");
	if (!f)
		return;
	if (fscanf(f, "%llu", &k) != 1)
		k = 0;
	fclose(f);
	lag = txraft_io_lag(xio);
	if (k <= answered)
		return;
	if (lag >= MAX_LAG ||
	    !txn_transport_peer_up(t, node % NODES + 1) ||
	    !txn_transport_peer_up(t, (node + 1) % NODES + 1)) {
		static uint64_t said;

		/* why a kill waits, once a second, for a run that stalls */
		if (now_ns() > said) {
			said = now_ns() + 1000000000ull;
			printf("# node %u: kill %llu waits: lag %" PRIu64 ", peers up %d%d\n",
			       node, k, lag,
			       txn_transport_peer_up(t, node % NODES + 1),
			       txn_transport_peer_up(t, (node + 1) % NODES + 1));
		}
		return;
	}
	answered = k;
	snprintf(name, sizeof(name), "raft-even.%llu", k);
	snprintf(line, sizeof(line), "%u %llu %llu %" PRIu64 "\n", node,
		 (unsigned long long)raft.current_term,
		 (unsigned long long)raft_last_index(&raft), lag);
	put_file(name, line);
}

static int fsm_apply(struct raft_fsm *fsm, const struct raft_buffer *buf,
		     void **result)
{
	const uint8_t *b = buf->base;
	size_t i;

	(void)fsm;
	*result = NULL;
	if (applied >= count)
		return 0;	/* extras a leader had in flight */
	hash ^= buf->len;
	for (i = 0; i < buf->len; i++)
		hash = (hash ^ b[i]) * 0x100000001b3ULL;
	applied++;
	return 0;
}

/* the state machine's state is (applied, hash): 16 bytes to snapshot */
static int fsm_snapshot(struct raft_fsm *fsm, struct raft_buffer *bufs[],
			unsigned int *n_bufs)
{
	(void)fsm;
	return txraft_snap2_make(applied, hash, bufs, n_bufs);
}

/* a snapshot from the leader replaces the state */
static int fsm_restore(struct raft_fsm *fsm, struct raft_buffer *buf)
{
	int rv = txraft_snap2_take(buf, &applied, &hash);

	(void)fsm;
	if (!rv)
		restores++;
	return rv;
}

static void apply_cb(struct raft_apply *req, int status, void *result)
{
	struct prop *p = (struct prop *)req;

	(void)result;
	in_flight--;
	if (status) {
		failed++;
	} else {
		accepted++;
		if (nlat < count)
			lat_ns[nlat++] = now_ns() - p->t0_ns;
		/* the first command of its term applied: this leader serves */
		if (p->term > served_term && raft.current_term == p->term &&
		    raft_state(&raft) == RAFT_LEADER) {
			char name[64], line[128];
			double led_ms = (now_ns() - t_led_term) / 1e6;
			double down_ms = t_down && t_down <= t_led_term ?
				(t_led_term - t_down) / 1e6 : -1;

			served_term = p->term;
			/*
			 * For the host: from its Down of the old leader to
			 * leading (-1: it saw none), and from leading to this
			 * first commit of its own, on its own clock
			 */
			snprintf(name, sizeof(name), "raft-serves.%llu",
				 (unsigned long long)p->term);
			snprintf(line, sizeof(line), "%u %llu %" PRIu64 " %.1f %.1f\n",
				 node, (unsigned long long)p->term, applied,
				 down_ms, led_ms);
			put_file(name, line);
			TRACE("serves term %llu", (unsigned long long)p->term);
			printf("# node %u serves term %llu: leader %.1f ms after its Down of the last, first commit %.1f ms after that\n",
			       node, (unsigned long long)p->term, down_ms,
			       led_ms);
		}
	}
	free(p);
}

/* the leader keeps WINDOW commands in flight until COUNT are in */
static void propose(void)
{
	uint64_t now = now_ns();

	/* how long the followers held proposals back, the longest once */
	if (raft_state(&raft) == RAFT_LEADER && txraft_io_lag(xio) >= MAX_LAG) {
		if (!t_held)
			t_held = now;
		return;
	}
	if (t_held && now - t_held > held_max_ns)
		held_max_ns = now - t_held;
	t_held = 0;
	while (raft_state(&raft) == RAFT_LEADER && in_flight < WINDOW &&
	       accepted + in_flight < count &&
	       txraft_io_lag(xio) < MAX_LAG) {
		uint64_t id = ((uint64_t)node << 40) | next_id++;
		struct raft_buffer b;
		struct prop *p;
		size_t i;

		b.len = 64 + (uint32_t)mix64((uint32_t)id * 2654435761u) % (4096 - 64 + 1);
		b.base = raft_malloc(b.len);
		p = calloc(1, sizeof(*p));
		if (!b.base || !p)
			die("out of memory");
		memcpy(b.base, &id, sizeof(id));
		for (i = sizeof(id); i < b.len; i++)
			((uint8_t *)b.base)[i] = (uint8_t)(uint32_t)mix64((uint32_t)(id * 131 + i));
		p->t0_ns = now_ns();
		p->term = raft.current_term;
		if (raft_apply(&raft, &p->req, &b, 1, apply_cb)) {
			raft_free(b.base);
			free(p);
			return;
		}
		in_flight++;
		proposed++;
	}
}

static const char *state_name(int st)
{
	switch (st) {
	case RAFT_FOLLOWER:
		return "follower";
	case RAFT_CANDIDATE:
		return "candidate";
	case RAFT_LEADER:
		return "leader";
	}
	return "unavailable";
}

static raft_id leader_id(void)
{
	raft_id id = 0;
	const char *addr = NULL;

	raft_leader(&raft, &id, &addr);
	return id;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void close_cb(struct raft *r)
{
	(void)r;
	closed = true;
}

int main(int argc, char **argv)
{
	struct txn_txrdma_cfg xc = { 0 };
	struct raft_configuration conf;
	struct txraft_io_stats st;
	struct txraft_store *store;
	struct txn_transport *t;
	const char *cut_at_env = getenv("RAFT_GUEST_CUT_AT");
	const char *back_env = getenv("RAFT_GUEST_BACK");
	const char *trace_env;
	unsigned int back_boot = back_env ? (unsigned int)atoi(back_env) : 0;
	uint64_t back_target = 0;
	bool back_done = !back_boot;
	uint64_t cut_at = cut_at_env ? strtoull(cut_at_env, NULL, 0) : 0;
	uint64_t cut_applied = 0, t_cut = 0;
	bool cut_asked = false, cut_over = !cut_at;
	char cut_done[4096], mine2[4096];
	FILE *req_f;
	bool rejoin;
	struct raft_fsm fsm = { .version = 1, .apply = fsm_apply,
				.snapshot = fsm_snapshot,
				.restore = fsm_restore };
	char addr[NODES + 1][8], path[4096], mine[4096];
	uint64_t t_start, t_led = 0, deadline, next_check = 0;
	uint64_t downs_seen = 0, next_status = 0;
	unsigned int j, service;
	int ret, all, fd;

	if (argc != 6)
		die("usage: raft_guest NODE SERVICE COUNT JOB_DIR WAL");
	node = (unsigned int)atoi(argv[1]);
	service = (unsigned int)atoi(argv[2]);
	count = strtoull(argv[3], NULL, 0);
	job = argv[4];
	if (node < 1 || node > NODES || !count)
		die("bad arguments");
	setvbuf(stdout, NULL, _IOLBF, 0);
	lat_ns = calloc(count, sizeof(*lat_ns));
	if (!lat_ns)
		die("out of memory");
	snprintf(mine, sizeof(mine), "%s/raft-%u", job, node);
	snprintf(cut_done, sizeof(cut_done), "%s/raft-cut-done", job);
	unlink(mine);

	ret = txraft_store_open(&store, argv[5], 0);
	if (ret)
		die("txraft_store_open %s: %s", argv[5], strerror(-ret));
	rejoin = txraft_store_count(store) || txraft_store_start(store) > 1;
	ret = txraft_io_new(&xio, node, TXN_TXRDMA_MAX_MSG_DEFAULT, store);
	if (ret)
		die("txraft_io_new: %s", strerror(-ret));
	xc.self = node;
	xc.service_base = service;
	ret = txn_txrdma_open(&t, &xc, &txraft_io_transport_cb, xio);
	if (ret)
		die("txn_txrdma_open: %s", strerror(-ret));
	txraft_io_attach(xio, t);
	raft_configuration_init(&conf);
	for (j = 1; j <= NODES; j++) {
		snprintf(addr[j], sizeof(addr[j]), "g%u", j - 1);
		if (raft_configuration_add(&conf, j, addr[j], RAFT_VOTER))
			die("raft_configuration_add");
		if (j == node)
			continue;
		ret = txn_txrdma_add_peer(t, j, addr[j]);
		if (!ret)
			ret = txraft_io_add_peer(xio, j, addr[j]);
		if (ret)
			die("adding peer %s: %s", addr[j], strerror(-ret));
	}
	if (raft_init(&raft, txraft_io_raft(xio), &fsm, node, addr[node]))
		die("raft_init: %s", raft_errmsg(&raft));
	trace_env = getenv("RAFT_GUEST_TRACE");
	if (trace_env && *trace_env && strcmp(trace_env, "0")) {
		trace_ring = calloc(TRACE_N, sizeof(*trace_ring));
		if (!trace_ring)
			die("out of memory");
		raft.tracer = &tracer;
	}
	/* a pair to the leader that breaks starts an election at once */
	txraft_io_watch_leader(xio, &raft, 50);
	/* TCG guests stall for 100-225 ms: no elections for that */
	raft_set_election_timeout(&raft, 1000);
	/*
	 * libraft 0.15 sends a follower in probe state (every follower of
	 * a new leader until one append succeeds) at most one
	 * AppendEntries per heartbeat interval: a follower whose log ends
	 * before the new leader's refuses the first, and the corrected one
	 * waits out the interval.  20 ms, not 100, keeps that from a
	 * failover's first commit; a streaming leader sends no extra
	 * heartbeats, an idle one 50 a second per follower.
	 */
	raft_set_heartbeat_timeout(&raft, HEARTBEAT_MS);
	raft_set_pre_vote(&raft, true);
	/* snapshots every 256 entries, 64 kept behind: both paths run */
	raft_set_snapshot_threshold(&raft, 256);
	raft_set_snapshot_trailing(&raft, 64);
	if ((!rejoin && raft_bootstrap(&raft, &conf)) || raft_start(&raft))
		die("raft_bootstrap/start: %s", raft_errmsg(&raft));
	raft_configuration_close(&conf);
	printf("ok - node %u: libraft %s on txrdma (peers g0..g2, services %u+n)\n",
	       node, rejoin ? "restarted from its file" : "started",
	       service);
	if (rejoin)
		printf("# node %u rejoins at term %llu, %zu entries from index %llu\n",
		       node, (unsigned long long)raft.current_term,
		       txraft_store_count(store),
		       (unsigned long long)txraft_store_start(store));

	if (back_boot) {
		back_target = newest_served(&j);
		printf("# node %u (boot %u) catches up to %" PRIu64 " applied (node %u served last)\n",
		       node, back_boot, back_target, j);
	}

	t_start = now_ns();
	deadline = t_start + DEADLINE_S * 1000000000ull;
	for (;;) {
		ret = txraft_io_poll(xio, 5);
		if (ret < 0)
			die("txraft_io_poll: %s", strerror(-ret));
		txraft_io_stats(xio, &st);
		if (st.leader_downs > downs_seen) {
			char name[64], line[64];

			downs_seen = st.leader_downs;
			t_down = now_ns();
			/* the host times a kill to its followers' Downs */
			snprintf(name, sizeof(name), "raft-down.%u.%u.%" PRIu64,
				 node, back_boot, downs_seen);
			snprintf(line, sizeof(line), "%u %llu\n", node,
				 (unsigned long long)raft.current_term);
			put_file(name, line);
			TRACE("Down of the leader (term %llu)",
			      (unsigned long long)raft.current_term);
			if (trace_ring)
				trace_dump_at = t_down + 700000000ull;
		}
		if (raft_state(&raft) == RAFT_UNAVAILABLE) {
			const char *what;
			int err = txraft_store_error(store, &what);

			/*
			 * libraft stops for good after an error it cannot
			 * take (a failed write of term, vote or snapshot):
			 * say which, with the last 2 s of its trace (as
			 * raft-trace.NODE.BOOT.0), rather than sit silent
			 */
			if (trace_ring) {
				t_down = now_ns() - 2000000000ull;
				trace_dump(back_boot, 0);
			}
			die("libraft turned unavailable in term %llu at %" PRIu64 " applied: %s; its file: %s%s%s",
			    (unsigned long long)raft.current_term, applied,
			    raft_errmsg(&raft), what ? what : "no failed call",
			    err ? ": " : "", err ? strerror(err) : "");
		}
		if (trace_dump_at && now_ns() >= trace_dump_at) {
			trace_dump(back_boot, downs_seen);
			trace_dump_at = 0;
		}
		if (raft_state(&raft) == RAFT_LEADER &&
		    raft.current_term != led_term) {
			led_term = raft.current_term;
			t_led_term = now_ns();
			TRACE("leads term %llu, last index %llu",
			      (unsigned long long)led_term,
			      (unsigned long long)raft_last_index(&raft));
		}
		if (raft_state(&raft) == RAFT_LEADER && !t_led) {
			t_led = now_ns();
			printf("# node %u leads (term %llu) after %.0f ms\n", node,
			       (unsigned long long)raft.current_term,
			       (t_led - t_start) / 1e6);
			if (t_down)
				printf("# node %u: leader %.0f ms after its old leader's pair went down\n",
				       node, (t_led - t_down) / 1e6);
		}
		propose();
		answer_even(t);
		if (cut_at && !cut_asked && applied >= cut_at &&
		    raft_state(&raft) == RAFT_LEADER) {
			snprintf(path, sizeof(path), "%s/raft-cut-claim", job);
			/* one cut in the cluster: whoever claims it */
			fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0644);
			if (fd >= 0) {
				close(fd);
				/* the host reads the request whole: renamed in */
				snprintf(path, sizeof(path), "%s/raft-cut-req.%u",
					 job, node);
				snprintf(mine2, sizeof(mine2), "%s/raft-cut-req",
					 job);
				req_f = fopen(path, "w");
				if (!req_f || fprintf(req_f, "%u\n", node) < 0 ||
				    fclose(req_f) || rename(path, mine2))
					die("writing %s", mine2);
				cut_asked = true;
				cut_applied = applied;
				t_cut = now_ns();
				printf("# node %u (leader) asks for its link to a follower to be cut at %" PRIu64 " applied\n",
				       node, applied);
			} else {
				cut_at = 0;	/* another leader had it */
				cut_over = true;
			}
		}
		if (cut_asked && !cut_over && !access(cut_done, F_OK)) {
			cut_over = true;
			printf("%s - node %u: %" PRIu64 " commands committed while its link to a follower was cut (%.1f s from the request to the link's return)\n",
			       applied > cut_applied ? "ok" : "not ok", node,
			       applied - cut_applied, (now_ns() - t_cut) / 1e9);
		}
		if (!back_done && applied >= back_target &&
		    txn_transport_peer_up(t, node % NODES + 1) &&
		    txn_transport_peer_up(t, (node + 1) % NODES + 1)) {
			char name[64], line[96];

			back_done = true;
			snprintf(name, sizeof(name), "raft-back.%u.%u", node,
				 back_boot);
			snprintf(line, sizeof(line), "%u %" PRIu64 " %.3f\n",
				 node, applied, (now_ns() - t_start) / 1e9);
			put_file(name, line);
			printf("ok - node %u (boot %u) caught up: %" PRIu64 " applied (the next leader had %" PRIu64 " when it began to serve), pairs to both others up, %.1f s after its start\n",
			       node, back_boot, applied, back_target,
			       (now_ns() - t_start) / 1e9);
		}
		if (applied == count && !wrote) {
			FILE *f = fopen(mine, "w");

			if (!f || fprintf(f, "%" PRIu64 " %016" PRIx64 "\n",
					  count, hash) < 0 || fclose(f))
				die("writing %s", mine);
			wrote = true;
			printf("# node %u applied %" PRIu64 " commands in %.2f s\n",
			       node, count, (now_ns() - t_start) / 1e9);
		}
		if (now_ns() > next_status) {
			struct txn_txrdma_stats ts;

			/* where each server is, for a run that stalls */
			next_status = now_ns() + 10000000000ull;
			txn_txrdma_stats(t, &ts);
			printf("# node %u: term %llu %s, leader %llu, applied %" PRIu64 ", commit %llu, lag %" PRIu64 "; peers up %d%d; pairs %" PRIu64 " up %" PRIu64 " down, dials %" PRIu64 " (%" PRIu64 " failed, last %" PRId64 "), accepts %" PRIu64 " (%" PRIu64 " refused)\n",
			       node, (unsigned long long)raft.current_term,
			       state_name(raft_state(&raft)),
			       (unsigned long long)leader_id(),
			       applied,
			       (unsigned long long)raft.commit_index,
			       txraft_io_lag(xio),
			       txn_transport_peer_up(t, node % NODES + 1),
			       txn_transport_peer_up(t, (node + 1) % NODES + 1),
			       ts.ups, ts.downs, ts.dials, ts.dial_errors,
			       ts.last_dial_error, ts.accepts, ts.refused);
		}
		if (now_ns() > deadline)
			die("%" PRIu64 " of %" PRIu64 " applied after %d s",
			    applied, count, DEADLINE_S);
		if (!wrote || now_ns() < next_check)
			continue;
		/* every 100 ms: have the others applied all too? */
		next_check = now_ns() + 100000000ull;
		for (all = 1, j = 1; j <= NODES; j++) {
			snprintf(path, sizeof(path), "%s/raft-%u", job, j);
			all &= !access(path, F_OK);
		}
		/* an asker of a cut stays until it has seen the link back */
		if (all && (!cut_asked || cut_over))
			break;
	}

	printf("ok - node %u applied %" PRIu64 " commands (hash %016" PRIx64 ")\n",
	       node, count, hash);
	if (nlat) {
		qsort(lat_ns, nlat, sizeof(*lat_ns), cmp_u64);
		printf("# node %u led: %zu commands committed, p50 %.1f us, p99 %.1f us, max %.1f us (proposal to apply callback, window %d)\n",
		       node, nlat, lat_ns[nlat / 2] / 1e3,
		       lat_ns[nlat * 99 / 100] / 1e3, lat_ns[nlat - 1] / 1e3,
		       WINDOW);
	}
	txraft_io_stats(xio, &st);
	printf("# node %u: %" PRIu64 " snapshots restored; flow control (a follower %d entries behind) held proposals back for %.1f ms at most\n",
	       node, restores, MAX_LAG, held_max_ns / 1e6);
	printf("# node %u: %" PRIu64 " elections hurried, %" PRIu64 " stood at once, %" PRIu64 " refused appends retried at once, %" PRIu64 " leader commits cut to what an append covered\n",
	       node, st.hurried, st.stood, st.retried, st.commit_clamped);
	printf("# node %u raft_io: %" PRIu64 " messages out, %" PRIu64 " in, %" PRIu64 " AppendEntries in parts, %" PRIu64 " bad, %" PRIu64 " refused by the transport\n",
	       node, st.msgs_out, st.msgs_in, st.split, st.bad_in,
	       st.send_fail);
	printf("%s - node %u: no received message failed a check\n",
	       st.bad_in ? "not ok" : "ok", node);

	raft_close(&raft, close_cb);
	while (!closed)
		txraft_io_poll(xio, 0);
	txn_transport_close(t);
	txraft_io_free(xio);
	txraft_store_free(store);
	free(lat_ns);
	return st.bad_in ? 1 : 0;
}
