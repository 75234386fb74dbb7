// SPDX-License-Identifier: GPL-2.0-only
/*
 * One server of a three-server Raft cluster, for raft_bench.sh: commit
 * latency and entries/s of Debian's libraft on three raft_io backends,
 * in the same guest and run.
 *
 *   raft_bench -b BACKEND -n NODE -d DIR [-s SIZE] [-w WINDOW]
 *              [-t SECONDS] [-W WARMUP] [-S SERVICE] [-P PORT] [-A]
 *
 * BACKEND is one of
 *   txrdma  lib/raft's raft_io on txrdma endpoint pairs (lib/txn's
 *           txrdma transport; the guest is its own peer "self", node n
 *           listens on service SERVICE + n), log in a synced write-ahead
 *           file DIR/node-N.wal (lib/raft/txraft_store.c); with -A
 *           the endpoints read frames ahead (TXRDMA_EP_F_RX_AHEAD);
 *   tcp     the same raft_io on lib/txn's TCP transport (127.0.0.1,
 *           port PORT + n): what the transport alone changes;
 *   uv      libraft's own raft_io, raft_uv with its TCP transport
 *           (127.0.0.1:PORT + n, log segments in DIR/uv-N): the
 *           baseline that is not ours.
 * The three servers run the same state machine (a hash of what they
 * apply) with the same timeouts and snapshot settings.  Node 1 has a
 * short election timeout and the others a long one, so that node 1
 * leads; whichever server leads runs the load: WARMUP entries, then
 * for SECONDS it keeps WINDOW entries of SIZE bytes in flight and
 * times each from raft_apply() to its apply callback (committed by a
 * majority and applied by the leader).  A new entry is proposed as
 * soon as one returns: from the loop after each poll (txraft_io_poll),
 * from a uv_check handle after each loop iteration (raft_uv).  The
 * servers wait in their transport (epoll, or txrdma's wait) when idle:
 * nobody spins.
 *
 * The leader prints one line,
 *   raft_bench backend B size S window W entries N seconds T eps E
 *     p50_us P p99_us P p999_us P max_us M
 * and creates DIR/done; every server sees it within 20 ms, closes and
 * prints "raft_bench node N cpu_s C" (its user+system time).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <raft.h>
#include <raft/uv.h>
#include <uv.h>

#include <txrdma.h>
#include <txn_tcp.h>
#include <txn_txrdma.h>
#include <txraft_io.h>
#include <txraft_snap2.h>

#define NODES		3
#define MAX_WINDOW	1024
#define MAX_MSG		TXN_TXRDMA_MAX_MSG_MAX	/* both transports' */
#define DEADLINE_S	120	/* from start to done, whatever happens */

enum backend { B_TXRDMA, B_TCP, B_UV };

struct prop {
	struct raft_apply req;	/* first: the callback gets it back */
	uint64_t t0_ns;
};

static struct {
	enum backend backend;
	const char *bname;
	unsigned int node, window, warmup;
	size_t size;
	double seconds;
	const char *dir;
	unsigned int service, port;
	bool ahead;
} opt = { .window = 1, .warmup = 200, .size = 64, .seconds = 3,
	  .service = 7400, .port = 27400 };

static struct raft raft;
static uint64_t applied, hash = 0xcbf29ce484222325ULL;
static uint64_t in_flight, next_id, done_ok, failed;
static uint64_t t_measure, t_stop;	/* ns; 0: not yet */
static uint64_t t_last;			/* the last measured completion */
static uint64_t *lat_ns;
static size_t nlat, cap_lat;
static bool stopping, closed, led;
static char done_path[4096];

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "raft_bench node %u: ", opt.node);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

static int fsm_apply(struct raft_fsm *fsm, const struct raft_buffer *buf,
		     void **result)
{
	const uint8_t *b = buf->base;
	size_t i;

	(void)fsm;
	*result = NULL;
	for (i = 0; i < buf->len; i += 64)	/* touch it, as a store would */
		hash = (hash ^ b[i]) * 0x100000001b3ULL;
	applied++;
	return 0;
}

static int fsm_snapshot(struct raft_fsm *fsm, struct raft_buffer *bufs[],
			unsigned int *n_bufs)
{
	(void)fsm;
	return txraft_snap2_make(applied, hash, bufs, n_bufs);
}

static int fsm_restore(struct raft_fsm *fsm, struct raft_buffer *buf)
{
	(void)fsm;
	return txraft_snap2_take(buf, &applied, &hash);
}

static void apply_cb(struct raft_apply *req, int status, void *result)
{
	struct prop *p = (struct prop *)req;
	uint64_t now = now_ns();

	(void)result;
	in_flight--;
	if (status) {
		failed++;
	} else {
		done_ok++;
		if (t_measure && p->t0_ns >= t_measure) {
			if (nlat == cap_lat) {
				uint64_t *l = realloc(lat_ns,
						      2 * cap_lat * sizeof(*l));

				if (!l)
					die("out of memory");
				lat_ns = l;
				cap_lat *= 2;
			}
			lat_ns[nlat++] = now - p->t0_ns;
			t_last = now;
		}
	}
	free(p);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void report(void)
{
	/* entries/s over the time they took: proposed from t_measure,
	 * the last back at t_last (after t_stop by up to a window) */
	double secs = (t_last - t_measure) / 1e9;
	FILE *f;

	if (!nlat)
		die("led, but no entry committed while measuring");
	qsort(lat_ns, nlat, sizeof(*lat_ns), cmp_u64);
	printf("raft_bench backend %s size %zu window %u entries %zu seconds %.2f eps %.0f p50_us %.1f p99_us %.1f p999_us %.1f max_us %.1f\n",
	       opt.bname, opt.size, opt.window, nlat, secs, nlat / secs,
	       lat_ns[nlat / 2] / 1e3, lat_ns[nlat * 99 / 100] / 1e3,
	       lat_ns[nlat * 999 / 1000] / 1e3, lat_ns[nlat - 1] / 1e3);
	f = fopen(done_path, "w");
	if (!f || fclose(f))
		die("cannot create %s", done_path);
}

/*
 * The leader's load: warm up, then keep WINDOW in flight for SECONDS;
 * when the time is up, stop proposing, and report once the last
 * measured entry is back.
 */
static void propose(void)
{
	uint64_t now;

	if (raft_state(&raft) != RAFT_LEADER) {
		if (led && !stopping)
			die("lost the leadership while measuring");
		return;
	}
	now = now_ns();
	if (!led) {
		led = true;
		fprintf(stderr, "raft_bench node %u leads (term %llu)\n",
			opt.node, (unsigned long long)raft.current_term);
	}
	if (!t_measure && done_ok >= opt.warmup)
		t_measure = now;
	if (t_measure && !t_stop && now - t_measure >= opt.seconds * 1e9)
		t_stop = now;
	if (t_stop) {
		if (!in_flight && !stopping) {
			stopping = true;
			report();
		}
		return;
	}
	while (in_flight < opt.window) {
		struct raft_buffer b;
		struct prop *p;
		uint64_t id = next_id++;

		b.len = opt.size;
		b.base = raft_malloc(b.len);
		p = calloc(1, sizeof(*p));
		if (!b.base || !p)
			die("out of memory");
		memset(b.base, (int)(id & 0xff), b.len);
		memcpy(b.base, &id, b.len < sizeof(id) ? b.len : sizeof(id));
		p->t0_ns = now_ns();
		if (raft_apply(&raft, &p->req, &b, 1, apply_cb)) {
			raft_free(b.base);
			free(p);
			return;
		}
		in_flight++;
	}
}

static bool done_seen(void)
{
	return !access(done_path, F_OK);
}

static void setup_raft(struct raft_io *io, const char addr[][32])
{
	struct raft_fsm *fsm = calloc(1, sizeof(*fsm));
	struct raft_configuration conf;
	unsigned int j;

	if (!fsm)
		die("out of memory");
	fsm->version = 1;
	fsm->apply = fsm_apply;
	fsm->snapshot = fsm_snapshot;
	fsm->restore = fsm_restore;
	if (raft_init(&raft, io, fsm, opt.node, addr[opt.node]))
		die("raft_init: %s", raft_errmsg(&raft));
	raft_configuration_init(&conf);
	for (j = 1; j <= NODES; j++)
		if (raft_configuration_add(&conf, j, addr[j], RAFT_VOTER))
			die("raft_configuration_add");
	if (raft_bootstrap(&raft, &conf))
		die("raft_bootstrap: %s", raft_errmsg(&raft));
	raft_configuration_close(&conf);
	/* node 1 leads; TCG guests stall for 100-225 ms */
	raft_set_election_timeout(&raft, opt.node == 1 ? 300 : 3000);
	raft_set_heartbeat_timeout(&raft, 100);
	raft_set_pre_vote(&raft, true);
	/* the same on every backend: a snapshot every 4096 entries */
	raft_set_snapshot_threshold(&raft, 4096);
	raft_set_snapshot_trailing(&raft, 1024);
	if (raft_start(&raft))
		die("raft_start: %s", raft_errmsg(&raft));
}

static void close_cb(struct raft *r)
{
	(void)r;
	closed = true;
}

/* lib/raft's raft_io on lib/txn's txrdma or TCP transport */
static void run_txraft(const char addr[][32])
{
	struct txraft_store *store;
	struct txn_transport *t;
	struct txraft_io *xio;
	struct txraft_io_stats st;
	uint64_t deadline = now_ns() + DEADLINE_S * 1000000000ull;
	uint64_t next_check = 0;
	char wal[4200];
	unsigned int j;
	int ret;

	snprintf(wal, sizeof(wal), "%s/node-%u.wal", opt.dir, opt.node);
	unlink(wal);
	ret = txraft_store_open(&store, wal, 0);
	if (ret)
		die("txraft_store_open %s: %s", wal, strerror(-ret));
	if (opt.backend == B_TXRDMA) {
		/* messages as long as TCP's: AppendEntries in as few parts */
		struct txn_txrdma_cfg c = { .self = opt.node,
					    .service_base = opt.service,
					    .max_msg = MAX_MSG };

		if (opt.ahead)
			c.ep_flags = TXRDMA_EP_F_RX_AHEAD;

		ret = txraft_io_new(&xio, opt.node, MAX_MSG, store);
		if (ret)
			die("txraft_io_new: %s", strerror(-ret));
		ret = txn_txrdma_open(&t, &c, &txraft_io_transport_cb, xio);
		if (ret)
			die("txn_txrdma_open: %s", strerror(-ret));
	} else {
		struct sockaddr_in sa = { .sin_family = AF_INET };
		struct txn_tcp_cfg c = { .self = opt.node,
					 .listen = (struct sockaddr *)&sa,
					 .listen_len = sizeof(sa) };

		sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		sa.sin_port = htons(opt.port + opt.node);
		ret = txraft_io_new(&xio, opt.node, MAX_MSG, store);
		if (ret)
			die("txraft_io_new: %s", strerror(-ret));
		c.max_msg = MAX_MSG;
		ret = txn_tcp_open(&t, &c, &txraft_io_transport_cb, xio);
		if (ret)
			die("txn_tcp_open: %s", strerror(-ret));
	}
	txraft_io_attach(xio, t);
	for (j = 1; j <= NODES; j++) {
		if (j == opt.node)
			continue;
		if (opt.backend == B_TXRDMA) {
			ret = txn_txrdma_add_peer(t, j, "self");
		} else {
			struct sockaddr_in sa = { .sin_family = AF_INET };

			sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
			sa.sin_port = htons(opt.port + j);
			ret = txn_tcp_add_peer(t, j, (struct sockaddr *)&sa,
					       sizeof(sa));
		}
		if (!ret)
			ret = txraft_io_add_peer(xio, j, addr[j]);
		if (ret)
			die("adding peer %u: %s", j, strerror(-ret));
	}
	setup_raft(txraft_io_raft(xio), addr);

	while (!stopping || !done_seen()) {
		uint64_t now;

		/* the leader must not sleep past its next proposal */
		ret = txraft_io_poll(xio, led && !stopping ? 1 : 20);
		if (ret < 0)
			die("txraft_io_poll: %s", strerror(-ret));
		propose();
		now = now_ns();
		if (now > deadline)
			die("not done after %d s (%" PRIu64 " applied)",
			    DEADLINE_S, applied);
		if (now >= next_check) {
			next_check = now + 20000000ull;
			if (done_seen())
				break;
		}
	}
	stopping = true;
	raft_close(&raft, close_cb);
	while (!closed)
		txraft_io_poll(xio, 1);
	txraft_io_stats(xio, &st);
	if (st.bad_in)
		die("%" PRIu64 " received messages failed a check", st.bad_in);
	txn_transport_close(t);
	txraft_io_free(xio);
	txraft_store_free(store);
}

/* libraft's raft_uv */
static struct uv_loop_s loop;
static struct uv_timer_s timer;
static struct uv_check_s check;
static struct raft_uv_transport uv_transport;
static struct raft_io uv_io;
static uint64_t uv_deadline;

static void luv_raft_closed(struct raft *r)
{
	(void)r;
	raft_uv_close(&uv_io);
	raft_uv_tcp_close(&uv_transport);
	uv_close((uv_handle_t *)&timer, NULL);
	uv_close((uv_handle_t *)&check, NULL);
	closed = true;
}

static void luv_finish(void)
{
	if (closed || raft.state == RAFT_UNAVAILABLE)
		return;
	stopping = true;
	uv_timer_stop(&timer);
	uv_check_stop(&check);
	raft_close(&raft, luv_raft_closed);
}

static void luv_after_io(uv_check_t *h)
{
	(void)h;
	if (!stopping)
		propose();
}

static void luv_tick(uv_timer_t *h)
{
	(void)h;
	if (now_ns() > uv_deadline)
		die("not done after %d s (%" PRIu64 " applied)", DEADLINE_S,
		    applied);
	if (!stopping)
		propose();
	if (done_seen())
		luv_finish();
}

static void run_uv(const char addr[][32])
{
	char dir[4200];
	int ret;

	snprintf(dir, sizeof(dir), "%s/uv-%u", opt.dir, opt.node);
	if (mkdir(dir, 0755) && errno != EEXIST)
		die("mkdir %s: %s", dir, strerror(errno));
	uv_deadline = now_ns() + DEADLINE_S * 1000000000ull;
	if (uv_loop_init(&loop) || uv_timer_init(&loop, &timer) ||
	    uv_check_init(&loop, &check))
		die("uv init failed");
	ret = raft_uv_tcp_init(&uv_transport, &loop);
	if (ret)
		die("raft_uv_tcp_init: %s", raft_strerror(ret));
	ret = raft_uv_init(&uv_io, &loop, dir, &uv_transport);
	if (ret)
		die("raft_uv_init: %s", uv_io.errmsg);
	/* as quick to reconnect as lib/txn's transports (100 ms) */
	raft_uv_set_connect_retry_delay(&uv_io, 100);
	setup_raft(&uv_io, addr);
	uv_check_start(&check, luv_after_io);
	uv_timer_start(&timer, luv_tick, 0, 20);
	uv_run(&loop, UV_RUN_DEFAULT);
	if (uv_loop_close(&loop))
		die("uv_loop_close: handles left open");
}

static void usage(void)
{
	fprintf(stderr, "usage: raft_bench -b txrdma|tcp|uv -n 1..3 -d DIR [-s SIZE] [-w WINDOW] [-t SECONDS] [-W WARMUP] [-S SERVICE] [-P PORT] [-A]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	char addr[NODES + 1][32];
	struct rusage ru;
	unsigned int j;
	int c;

	while ((c = getopt(argc, argv, "b:n:d:s:w:t:W:S:P:A")) != -1) {
		switch (c) {
		case 'b':
			opt.bname = optarg;
			if (!strcmp(optarg, "txrdma"))
				opt.backend = B_TXRDMA;
			else if (!strcmp(optarg, "tcp"))
				opt.backend = B_TCP;
			else if (!strcmp(optarg, "uv"))
				opt.backend = B_UV;
			else
				usage();
			break;
		case 'n': opt.node = (unsigned int)atoi(optarg); break;
		case 'd': opt.dir = optarg; break;
		case 's': opt.size = strtoul(optarg, NULL, 0); break;
		case 'w': opt.window = (unsigned int)atoi(optarg); break;
		case 't': opt.seconds = atof(optarg); break;
		case 'W': opt.warmup = (unsigned int)atoi(optarg); break;
		case 'S': opt.service = (unsigned int)atoi(optarg); break;
		case 'P': opt.port = (unsigned int)atoi(optarg); break;
		case 'A': opt.ahead = true; break;
		default: usage();
		}
	}
	if (!opt.bname || opt.node < 1 || opt.node > NODES || !opt.dir ||
	    !opt.size || opt.size > 1 << 20 || !opt.window ||
	    opt.window > MAX_WINDOW || opt.seconds <= 0 ||
	    opt.port + NODES > 65535)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* raft_uv writes to sockets its peers may have closed */
	signal(SIGPIPE, SIG_IGN);
	snprintf(done_path, sizeof(done_path), "%s/done", opt.dir);
	/* room for what a fast run commits; grown if need be */
	cap_lat = (size_t)(opt.seconds * 100000) + 1024;
	lat_ns = calloc(cap_lat, sizeof(*lat_ns));
	if (!lat_ns)
		die("out of memory");
	for (j = 1; j <= NODES; j++)
		snprintf(addr[j], sizeof(addr[j]), "127.0.0.1:%u",
			 opt.port + j);

	if (opt.backend == B_UV)
		run_uv(addr);
	else
		run_txraft(addr);

	getrusage(RUSAGE_SELF, &ru);
	printf("raft_bench node %u cpu_s %.3f applied %" PRIu64 " failed %" PRIu64 "\n",
	       opt.node,
	       ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6,
	       applied, failed);
	free(lat_ns);
	return 0;
}
