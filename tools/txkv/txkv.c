// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * txkv: one node of the example database (kv_node.c) as a program, one
 * per host.  Node 1 runs the client: new orders for a while, then the
 * results and the end check.  Every node writes, when told the run is
 * over, a hash of its replicas, so that a script compares the hosts.
 *
 *   txkv --self N --nodes 3 --backend txrdma|tcp --base B
 *        --peer M=NAME ...  (txrdma: the peer as the administrator
 *                            added it; tcp: its IPv4 address)
 *        [--client --seconds S --window W --seed X]
 *        [--ndist D --nitem I] [--no-ahead] [--service-reads]
 *        [--lost N [--kill-at S]]
 *        [--wal WALDIR] --dir DIR
 * (--no-ahead: txrdma endpoints without TXRDMA_EP_F_RX_AHEAD, the
 * kernel publishing each frame before the process reads it;
 * --service-reads: on txrdma, read a remote leader's records by asking
 * its read service, as on TCP, instead of by RDMA READ from its memory;
 * --lost N: node N (not the client's) may die, nobody waits for it at
 * the end; --kill-at S: the client asks for its death S seconds in;
 * --wal: the groups' logs in write-ahead files in WALDIR, synced
 * before Raft counts them, so that the node can start again on them)
 *
 * Files in DIR (shared by the hosts, e.g. the VM runner's job dir):
 *   txkv-done          the client: the run is over (every node then
 *                      syncs with the leaders and writes its hash)
 *   txkv-hash-N        node N: "<shard0 hash> <shard1 hash> ..."
 *   txkv-result        the client: one line of key=value results
 *   txkv-lat           the client: committed orders' latencies, us
 *   txkv-kill          the client (--kill-at): kill node N's host now
 *   txkv-kill-killed   the VM runner: done (txrdma-vm --kill-when)
 * Exit: 0 when the run and (client) the end check passed.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <linux/txrdma.h>

#include "kv_node.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: txkv --self N --nodes N --backend txrdma|tcp --base B\n"
		"            --peer M=NAME... --dir DIR [--client --seconds S\n"
		"            --window W --seed X] [--ndist D --nitem I]\n"
		"            [--no-ahead] [--service-reads] [--lost N [--kill-at S]]\n"
		"            [--wal WALDIR]\n");
	exit(2);
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static struct kv_node *node;

/* poll until @cond holds or @seconds pass (or a signal): whether it held */
static bool wait_until(bool (*cond)(void), double seconds)
{
	double end = now_s() + seconds;

	while (!cond()) {
		if (stop || now_s() > end)
			return false;
		if (kv_node_poll(node, 1) < 0)
			return false;
	}
	return true;
}

static uint32_t nnodes, nshard, self;
static uint32_t lost;		/* --lost: a node that may be killed */
static double kill_at;		/* --kill-at: when the client asks for it */
static const char *dir;

/* every group led where cfg.prefer wants it (see main()) */
static bool placed(void)
{
	return kv_node_placed(node);
}

static bool file_exists(const char *name)
{
	char p[4096];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return !access(p, F_OK);
}

static bool run_over(void)
{
	return file_exists("txkv-done");
}

/* every node wrote its hash: nobody needs us to answer a sync */
static bool all_hashed(void)
{
	char name[32];
	uint32_t i;

	for (i = 1; i <= nnodes; i++) {
		snprintf(name, sizeof(name), "txkv-hash-%u", i);
		if (i != lost && !file_exists(name))
			return false;
	}
	return true;
}

static bool client_done(void)
{
	return kv_node_client_done(node);
}

static bool decisions_forgotten(void)
{
	return !kv_node_decisions_held(node);
}

/*
 * Caught up with the leaders and nothing left prepared here: a
 * coordinator's last ABORTs may still be on their way when the
 * decision log is empty (it holds only COMMITs), so sync again until
 * they are applied.
 */
static bool settled(void)
{
	uint32_t s;

	if (!kv_node_synced(node))
		return false;
	for (s = 0; s < nshard; s++) {
		if (kv_node_prepared(node, s)) {
			kv_node_sync(node);
			return false;
		}
	}
	return true;
}

/* write @text to DIR/@name whole (a temporary file renamed in) */
static int put_file(const char *name, const char *text)
{
	char p[4096], tmp[4096];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	snprintf(tmp, sizeof(tmp), "%s/.%s.%d", dir, name, (int)getpid());
	f = fopen(tmp, "w");
	if (!f)
		return -errno;
	fputs(text, f);
	if (fclose(f) || rename(tmp, p))
		return -errno;
	return 0;
}

/* FNV-1a of each shard's whole state (kv_shard_snapshot()) */
static int write_hash(void)
{
	char line[256] = "", name[32];
	size_t off = 0;
	uint32_t s;

	for (s = 0; s < nshard; s++) {
		uint64_t h = 0xcbf29ce484222325ULL;
		size_t len, i;
		void *snap;

		if (kv_shard_snapshot(kv_node_shard(node, s), &snap, &len))
			return -ENOMEM;
		for (i = 0; i < len; i++)
			h = (h ^ ((uint8_t *)snap)[i]) * 0x100000001b3ULL;
		free(snap);
		off += snprintf(line + off, sizeof(line) - off, "%s%016llx",
				s ? " " : "", (unsigned long long)h);
	}
	snprintf(line + off, sizeof(line) - off, "\n");
	snprintf(name, sizeof(name), "txkv-hash-%u", self);
	return put_file(name, line);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static double pct(const uint64_t *v, size_t n, double p)
{
	size_t i;

	if (!n)
		return 0;
	i = (size_t)(p * (double)(n - 1) + 0.5);
	return v[i] / 1e3;
}

/* every record of this node's replicas against the client's tally */
static unsigned int check_all(const struct kv_no_cfg *no)
{
	unsigned int k, bad;
	char why[160];

	bad = kv_no_check_shards(kv_node_tally(node), kv_node_shards(node),
				 why, sizeof(why));
	if (bad)
		printf("# check: %u records disagree, first: %s\n", bad, why);
	for (k = 0; k < nshard; k++) {
		uint32_t r;

		for (r = 0; r < kv_no_nrec(no); r++) {
			if (kv_shard_locked(kv_node_shard(node, k), r, NULL)) {
				printf("# check: shard %u record %u still locked\n",
				       k, r);
				bad++;
			}
		}
	}
	return bad;
}

/*
 * --kill-at: at @kill_at seconds into the run, ask for a node's death
 * (DIR/txkv-kill: the VM runner kills that guest's QEMU and writes
 * txkv-kill-killed), then measure the longest stretch without a
 * commit from that moment on: how long transactions stopped.
 */
static struct {
	double asked, seen;	/* run seconds: asked for; seen killed */
	double last, gap;	/* the last commit; the longest stretch */
	uint64_t at, after;	/* committed when asked; since */
	double next_look;
} kw;

static void kill_watch(double t)
{
	struct kv_client_stats cs;

	kv_node_client_stats(node, &cs);
	if (!kw.asked) {
		if (t < kill_at)
			return;
		if (put_file("txkv-kill", "kill\n"))
			printf("txkv: cannot write txkv-kill\n");
		kw.asked = kw.last = t;
		kw.at = cs.committed;
		return;
	}
	if (!kw.seen && t >= kw.next_look) {
		/* a file on the shared job directory: not every turn */
		kw.next_look = t + 0.02;
		if (file_exists("txkv-kill-killed"))
			kw.seen = t;
	}
	if (cs.committed > kw.at + kw.after) {
		if (t - kw.last > kw.gap)
			kw.gap = t - kw.last;
		kw.last = t;
		kw.after = cs.committed - kw.at;
	}
}

static int run_client(const struct kv_no_cfg *no, double seconds,
		      uint32_t window, uint64_t seed, const char *backend)
{
	struct kv_client_stats cs;
	const uint64_t *lat;
	uint64_t *sorted;
	double t0, t1, c0, c1, t;
	size_t nlat;
	unsigned int bad;
	char res[1024];
	int ret;

	ret = kv_node_client_start(node, window, seed, 0);
	if (ret) {
		printf("txkv: client: %s\n", strerror(-ret));
		return 1;
	}
	t0 = now_s();
	c0 = cpu_s();
	while (!stop && (t = now_s()) - t0 < seconds) {
		if (kv_node_poll(node, 1) < 0)
			break;
		if (kill_at > 0)
			kill_watch(t - t0);
	}
	kv_node_client_stop(node);
	if (!wait_until(client_done, 60)) {
		printf("txkv: orders in flight never finished\n");
		return 1;
	}
	kv_node_client_stats(node, &cs);
	if (cs.log_failed) {
		printf("txkv: the decision log refused %llu decisions (this node lost its leadership): stopped\n",
		       (unsigned long long)cs.log_failed);
		return 1;
	}
	t1 = now_s();
	c1 = cpu_s();
	kv_node_client_stats(node, &cs);
	lat = kv_node_client_lat(node, &nlat);
	sorted = malloc((nlat ? nlat : 1) * sizeof(*sorted));
	if (!sorted)
		return 1;
	memcpy(sorted, lat, nlat * sizeof(*sorted));
	qsort(sorted, nlat, sizeof(*sorted), cmp_u64);
	snprintf(res, sizeof(res),
		 "backend=%s seconds=%.2f committed=%llu aborted=%llu "
		 "stale=%llu locked=%llu leader=%llu other=%llu tps=%.1f "
		 "p50_us=%.1f p99_us=%.1f p999_us=%.1f read_ms=%.2f "
		 "commit_ms=%.2f client_cpu_s=%.3f os_reads=%llu "
		 "svc_reads=%llu local_reads=%llu os_errors=%llu "
		 "os_last_error=%lld os_posted=%llu os_retries=%llu\n",
		 backend, t1 - t0, (unsigned long long)cs.committed,
		 (unsigned long long)cs.aborted,
		 (unsigned long long)cs.abort_stale,
		 (unsigned long long)cs.abort_locked,
		 (unsigned long long)cs.abort_leader,
		 (unsigned long long)cs.abort_other,
		 cs.committed / (t1 - t0), pct(sorted, nlat, 0.5),
		 pct(sorted, nlat, 0.99), pct(sorted, nlat, 0.999),
		 cs.committed ? cs.read_ns_sum / 1e6 / cs.committed : 0,
		 cs.committed ? (cs.lat_ns_sum - cs.read_ns_sum) / 1e6 /
				cs.committed : 0, c1 - c0,
		 (unsigned long long)cs.os_reads,
		 (unsigned long long)cs.svc_reads,
		 (unsigned long long)cs.local_reads,
		 (unsigned long long)cs.os_errors,
		 (long long)cs.os_last_error,
		 (unsigned long long)cs.os_posted,
		 (unsigned long long)cs.os_retries);
	if (kill_at > 0) {
		size_t l = strlen(res);

		/* a stretch still open at the end counts too */
		if (t1 - t0 - kw.last > kw.gap && kw.asked)
			kw.gap = t1 - t0 - kw.last;
		snprintf(res + l - 1, sizeof(res) - l + 1,
			 " kill_s=%.2f killed_ms=%.0f outage_ms=%.0f "
			 "after_kill=%llu\n", kw.asked,
			 kw.seen ? (kw.seen - kw.asked) * 1e3 : -1.0,
			 kw.gap * 1e3, (unsigned long long)kw.after);
	}
	printf("txkv: %s", res);
	{
		char p[4096];
		FILE *f;
		size_t i;

		snprintf(p, sizeof(p), "%s/txkv-lat", dir);
		f = fopen(p, "w");
		if (f) {
			for (i = 0; i < nlat; i++)
				fprintf(f, "%.1f\n", lat[i] / 1e3);
			fclose(f);
		}
	}
	free(sorted);

	/*
	 * Every COMMIT ACKed, then our replicas as far as the leaders'.
	 * A killed node never ACKs: the decisions it was sent stay held
	 * (its shards' next leader applied them); the end check and the
	 * history check below are what show that nothing was lost.
	 */
	if (!wait_until(decisions_forgotten, lost ? 10 : 60)) {
		if (!lost) {
			printf("txkv: decisions never ACKed by every participant\n");
			return 1;
		}
		printf("txkv: %zu decisions still wait for an ACK (node %u was killed)\n",
		       kv_node_decisions_held(node), lost);
	}
	if (kv_node_sync(node) || !wait_until(settled, 60)) {
		printf("txkv: the replicas never caught up with the leaders\n");
		return 1;
	}
	bad = check_all(no);
	printf("txkv: end check: %llu committed orders, %s\n",
	       (unsigned long long)cs.committed,
	       bad ? "RECORDS DISAGREE" :
	       "every district and stock record agrees (none lost, none extra)");
	{
		char why[256];

		if (kv_node_check_history(node, why, sizeof(why)))
			bad++;
		printf("txkv: history check: %llu committed orders %s\n",
		       (unsigned long long)cs.committed, why);
	}
	if (put_file("txkv-result", res) || write_hash())
		return 1;
	return bad || !cs.committed;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "self", 1, NULL, 's' }, { "nodes", 1, NULL, 'n' },
		{ "backend", 1, NULL, 'b' }, { "base", 1, NULL, 'B' },
		{ "peer", 1, NULL, 'p' }, { "dir", 1, NULL, 'd' },
		{ "client", 0, NULL, 'c' }, { "seconds", 1, NULL, 'S' },
		{ "window", 1, NULL, 'w' }, { "seed", 1, NULL, 'x' },
		{ "ndist", 1, NULL, 'D' }, { "nitem", 1, NULL, 'I' },
		{ "no-ahead", 0, NULL, 'A' },
		{ "service-reads", 0, NULL, 'R' },
		{ "lost", 1, NULL, 'L' }, { "kill-at", 1, NULL, 'K' },
		{ "wal", 1, NULL, 'W' },
		{ NULL, 0, NULL, 0 },
	};
	struct kv_node_cfg cfg = { .nnodes = 3, .epoch = 1 };
	const char *peer[KV_MAX_NODES + 1] = { NULL };
	const char *backend = NULL;
	double seconds = 10, c0;
	uint32_t window = 8, i;
	uint64_t seed = 1;
	bool client = false, ahead = true;
	int opt, ret;

	cfg.no = (struct kv_no_cfg){ .nshard = 2, .ndist = 100, .nitem = 1000 };
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 's': cfg.self = (uint32_t)atoi(optarg); break;
		case 'n': cfg.nnodes = (uint32_t)atoi(optarg); break;
		case 'b': backend = optarg; break;
		case 'B': cfg.base = (uint32_t)atoi(optarg); break;
		case 'd': dir = optarg; break;
		case 'c': client = true; break;
		case 'A': ahead = false; break;
		case 'R': cfg.service_reads = true; break;
		case 'L': lost = (uint32_t)atoi(optarg); break;
		case 'K': kill_at = atof(optarg); break;
		case 'W': cfg.wal_dir = optarg; break;
		case 'S': seconds = atof(optarg); break;
		case 'w': window = (uint32_t)atoi(optarg); break;
		case 'x': seed = strtoull(optarg, NULL, 0); break;
		case 'D': cfg.no.ndist = (uint32_t)atoi(optarg); break;
		case 'I': cfg.no.nitem = (uint32_t)atoi(optarg); break;
		case 'p': {
			char *eq = strchr(optarg, '=');
			int m = atoi(optarg);

			if (!eq || m < 1 || m > KV_MAX_NODES)
				usage();
			peer[m] = eq + 1;
			break;
		}
		default:
			usage();
		}
	}
	if (!backend || !dir || !cfg.self || !cfg.base || cfg.nnodes < 3 ||
	    cfg.nnodes > KV_MAX_NODES || cfg.self > cfg.nnodes ||
	    lost > cfg.nnodes || lost == 1 || (kill_at > 0 && !lost))
		usage();
	/* the library reads frames straight from the ring (issue 14) */
	if (ahead)
		cfg.ep_flags = TXRDMA_EP_F_RX_AHEAD;
	if (!strcmp(backend, "txrdma"))
		cfg.backend = TXN_BACKEND_TXRDMA;
	else if (!strcmp(backend, "tcp"))
		cfg.backend = TXN_BACKEND_TCP;
	else
		usage();
	self = cfg.self;
	nnodes = cfg.nnodes;
	nshard = cfg.no.nshard;
	/* node 1 leads the decision log, shard s starts on node 2 + s */
	for (i = 0; i < nshard; i++)
		cfg.prefer[i] = 2 + i % (nnodes - 1);
	cfg.prefer[nshard] = 1;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	setvbuf(stdout, NULL, _IOLBF, 0);
	c0 = cpu_s();

	ret = kv_node_open(&node, &cfg);
	if (ret) {
		printf("txkv: node %u: open: %s\n", self, strerror(-ret));
		goto out_done;
	}
	for (i = 1; i <= nnodes; i++) {
		struct in_addr a = { 0 };

		if (i == self)
			continue;
		if (!peer[i]) {
			printf("txkv: no --peer for node %u\n", i);
			goto out_close;
		}
		if (cfg.backend == TXN_BACKEND_TCP &&
		    inet_pton(AF_INET, peer[i], &a) != 1) {
			printf("txkv: node %u: '%s' is not an IPv4 address\n",
			       i, peer[i]);
			goto out_close;
		}
		ret = kv_node_add_peer(node, i, peer[i], &a, NULL);
		if (ret) {
			printf("txkv: add node %u (%s): %s\n", i, peer[i],
			       strerror(-ret));
			goto out_close;
		}
	}
	ret = kv_node_start(node);
	if (ret || !wait_until(placed, 120)) {
		printf("txkv: node %u: the groups were not led as placed in 120 s\n",
		       self);
		goto out_close;
	}
	printf("txkv: node %u: groups led by:", self);
	for (i = 0; i < nshard + 1; i++)
		printf(" %u", kv_node_leader(node, i));
	printf(" (shards 0..%u, decision log); epoch %u, logs %s%s\n",
	       nshard - 1, kv_node_epoch(node),
	       cfg.wal_dir ? "in write-ahead files in " : "in memory",
	       cfg.wal_dir ? cfg.wal_dir : "");

	if (client) {
		ret = run_client(&cfg.no, seconds, window, seed, backend);
		/* the others stop now, whatever happened here */
		if (put_file("txkv-done", ret ? "failed\n" : "done\n"))
			ret = 1;
	} else {
		/* serve until the client says the run is over */
		ret = !wait_until(run_over, 3600);
		if (!ret && (kv_node_sync(node) || !wait_until(settled, 60) ||
			     write_hash()))
			ret = 1;
	}
	/* a shard's leader answers the others' syncs until they are done */
	if (!ret && !wait_until(all_hashed, 120)) {
		printf("txkv: node %u: not every node wrote its hash\n", self);
		ret = 1;
	}
	{
		struct kv_node_stats ns;

		kv_node_stats(node, &ns);
		printf("txkv: node %u: %llu prepares (%llu yes, %llu no), "
		       "%llu decisions, %llu reads served, cpu %.2f s\n",
		       self, (unsigned long long)ns.prepares,
		       (unsigned long long)ns.votes_yes,
		       (unsigned long long)ns.votes_no,
		       (unsigned long long)ns.decides,
		       (unsigned long long)ns.reads_served, cpu_s() - c0);
		if (ns.orphans || ns.answers || ns.stuck_acked || ns.learned)
			printf("txkv: node %u: failover: %llu transactions left prepared by another leader, %llu COMMITs and %llu ABORTs applied for them, %llu of our votes decided by an answer, %llu decisions told, %llu ACKed late\n",
			       self, (unsigned long long)ns.orphans,
			       (unsigned long long)ns.resolved_commit,
			       (unsigned long long)ns.resolved_abort,
			       (unsigned long long)ns.learned,
			       (unsigned long long)ns.answers,
			       (unsigned long long)ns.stuck_acked);
	}
	kv_node_close(node);
	return ret;

out_close:
	kv_node_close(node);
out_done:
	/* the client's failure stops the others too */
	if (client)
		put_file("txkv-done", "failed\n");
	return 1;
}
