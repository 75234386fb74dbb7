// SPDX-License-Identifier: GPL-2.0-only
/*
 * msg_pingpong: messages between two processes of a tenant over a
 * txrdma endpoint pair (SEND = RDMA WRITE_WITH_IMM into the peer's
 * receive ring), through libtxrdma's rings, busy-polling:
 *
 *   msg_pingpong -s SERVICE [-o] [-u UNITS] [-C] [-A] [-Y] [-T FILE]
 *   msg_pingpong -c PEER -S SERVICE [-m SIZE] [-n ITER] [-w WARMUP]
 *                [-r [-W WINDOW]] [-u UNITS] [-t TIMEOUT_S] [-C] [-A] [-Y]
 *                [-T FILE]
 *
 * Server (-s): listens on SERVICE and serves the endpoints that connect,
 * one after the other (-o: only one): echoes every PING (same length),
 * counts DATA and acknowledges every K-th, until the client says BYE
 * (or its endpoint fails with ECONNRESET).  Prints "server listening"
 * once ready.  An endpoint that fails (or breaks the protocol) is
 * reported on stderr as "ERROR: ..." and closed; the server goes on
 * with the next (with -o it then exits 1).
 *
 * Client (-c): connects to SERVICE at peer PEER (a txrdma-admin peer
 * name), then
 *   latency (default): WARMUP + ITER round trips, one message in flight:
 *     send SIZE bytes, spin on the receive ring for the echo, check its
 *     bytes; each RTT from the TSC (x86, as perftest; its rate taken
 *     from CLOCK_MONOTONIC over the run) or CLOCK_MONOTONIC.  Prints
 *       txrdma pingpong size=S n=N p50_us=.. p99_us=.. p999_us=..
 *         avg_us=.. max_us=.. rtt lat_p50_us=.. lat_p99_us=..
 *         lat_p999_us=.. doorbells=..
 *     (the fields before "rtt" are round trips; lat_* are RTT/2, the
 *     one-way latency perftest's *_lat report as t_typical);
 *   rate (-r): WARMUP then ITER messages streamed with at most WINDOW
 *     unacknowledged (capped by the server's receive ring, so the
 *     credits never run out), the server acking every WINDOW/4; from
 *     the first send to the last ack.  Prints
 *       txrdma msgrate size=S n=N window=W ack_every=K msgs_per_s=..
 *         MB_per_s=.. elapsed_s=.. doorbells=..
 *     (doorbells: the system calls made, warm-up included)
 *
 * Both sides: one 2 MiB-multiple module region holding the receive
 * ring (UNITS 64-byte units at offset 0, default 4096 = 256 KiB) and
 * the send buffers; rings with 256 SQEs; no system call on the fast
 * path (txrdma_submit rings the doorbell only if the poller sleeps);
 * -Y calls sched_yield() when a poll finds nothing (for guests with
 * fewer vCPUs than spinning threads).  Every SEND's CQE must report
 * its length.  -C asks for CRC32C over payloads (TXRDMA_EP_F_DATA_CRC);
 * -A reads frames ahead of the kernel (TXRDMA_EP_F_RX_AHEAD): the
 * result line then says how many were taken so (ahead=).
 * Exit status: 0, 1 on any failure (with a message on stderr), 2 for
 * bad usage.  Run inside a tenant (regions and rings are charged to it).
 *
 * -T FILE (latency only, for tools/bench/hop_breakdown.sh): keep the
 * CLOCK_MONOTONIC time of every PING and echo this process posts (just
 * before the SQ tail is published: "post NS") and sees (the moment its
 * receive ring shows it: "seen NS") in memory, and write them to FILE
 * at the end (the server: when its endpoint ends; use -o).  No system
 * call is added to the path: the clock is the vDSO's, the same time
 * line as ftrace's "mono" trace_clock.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <txrdma.h>

/* what travels: a 16-byte header at the start of every message */
#define PP_MAGIC	0x7478706dU	/* "txpm" */
enum pp_kind {
	PP_HELLO = 1,	/* client -> server -> client: arg = rx units */
	PP_PING,	/* echoed back as is */
	PP_DATA,	/* counted; arg = ack every K; PP_F_LAST ends a burst */
	PP_ACK,		/* server -> client: seq = last DATA seq seen */
	PP_BYE,		/* client -> server: close your endpoint */
};
#define PP_F_LAST	1

struct pp_hdr {
	uint32_t magic;
	uint16_t kind;
	uint16_t flags;
	uint32_t seq;
	uint32_t arg;
};
#define PP_HDR_LEN	((unsigned int)sizeof(struct pp_hdr))

#define MIB		(1ULL << 20)
#define REGION_PAGE	(2 * MIB)	/* the ring must lie in one page */
#define LAT_SLOTS	16
#define SRV_SLOTS	32
#define DEF_UNITS	4096
#define SQ_ENTRIES	256

#if defined(__x86_64__) || defined(__i386__)
#define cpu_relax()	__builtin_ia32_pause()
#elif defined(__aarch64__)
#define cpu_relax()	__asm__ __volatile__("yield" ::: "memory")
#else
#define cpu_relax()	__asm__ __volatile__("" ::: "memory")
#endif

static const char *prog = "msg_pingpong";

/* options */
static unsigned int opt_units = DEF_UNITS;
static unsigned int opt_size = 64;
static unsigned long opt_iters;
static unsigned long opt_warmup = 1000;
static unsigned int opt_window = 64;
static unsigned int opt_timeout_s = 10;
static unsigned int opt_ep_flags;
static int opt_yield;
static const char *opt_tslog;

/* the process's txrdma state */
static struct txrdma_ctx *ctx;
static struct txrdma_sq sq;
static struct txrdma_cq cq;
static struct txrdma_region reg;
static struct txrdma_rx rx;
static __u32 ep_id;			/* current endpoint, 0: none */
static int have_ep;
static __u32 max_msg;

/* send buffers: fixed-size slots in the region after the ring */
static struct {
	unsigned int n;
	unsigned int size;	/* bytes per slot, multiple of 64 */
	__u64 off;		/* of slot 0 in the region */
	unsigned int *free;	/* stack of free slot indices */
	unsigned int nfree;
	__u32 *len;		/* length of the SEND in flight per slot */
	unsigned char *busy;
} slots;

/* teardown: CQE errors are not fatal */
static int tolerant;
static unsigned long recv_cqes;

/*
 * The server serves one endpoint under setjmp: a failure of that
 * endpoint is reported ("ERROR") and ends it, not the server, so that
 * one failed client run does not fail all the runs after it.
 */
static jmp_buf *die_jmp;

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: %s", prog, die_jmp ? "ERROR: " : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (die_jmp)
		longjmp(*die_jmp, 1);
	exit(1);
}

static uint64_t clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint64_t now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

/*
 * Deadlines of seconds, checked inside the message loops: the coarse
 * clock, read from the vDSO page.  A precise CLOCK_MONOTONIC read is a
 * system call and an HPET access in a TCG guest (2.4-2.8 us measured
 * there, against 0.1 us coarse), and the server's echo path made two
 * of them per ping: time that is the benchmark's, not txrdma's.
 */
static uint64_t coarse_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC_COARSE);
}

/*
 * Round-trip stamps: the TSC where there is one, as perftest's
 * get_cycles(), converted with the TSC's rate over the whole run
 * (stamp_calibrate()), so that both sides of a ratio read their clocks
 * at the same cost (0.02 us in a TCG guest); elsewhere CLOCK_MONOTONIC.
 */
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
static uint64_t stamp(void)
{
	return __rdtsc();
}
#else
static uint64_t stamp(void)
{
	return now_ns();
}
#endif

struct stamp_cal {
	uint64_t s0, ns0;
};

static void stamp_cal_start(struct stamp_cal *c)
{
	c->ns0 = now_ns();
	c->s0 = stamp();
}

/* nanoseconds per stamp unit over the span since stamp_cal_start() */
static double stamp_cal_end(const struct stamp_cal *c)
{
	uint64_t s1 = stamp(), ns1 = now_ns();

	return s1 > c->s0 ? (double)(ns1 - c->ns0) / (double)(s1 - c->s0) : 1.0;
}

/* -T: the times of posts and sightings, written out at the end */
#define TS_MAX		(1U << 20)
static struct ts_ev {
	uint64_t ns;
	char kind;	/* 'p': post, 's': seen */
} *ts_log;
static unsigned int ts_n;

static void ts_mark(char kind, uint64_t ns)
{
	if (ts_log && ts_n < TS_MAX)
		ts_log[ts_n++] = (struct ts_ev){ ns ? ns : now_ns(), kind };
}

static void ts_write(void)
{
	unsigned int i;
	FILE *f;

	if (!ts_log)
		return;
	f = fopen(opt_tslog, "w");
	if (!f)
		die("-T %s: %s", opt_tslog, strerror(errno));
	for (i = 0; i < ts_n; i++)
		fprintf(f, "%s %llu\n", ts_log[i].kind == 'p' ? "post" : "seen",
			(unsigned long long)ts_log[i].ns);
	if (fclose(f))
		die("-T %s: %s", opt_tslog, strerror(errno));
	ts_n = 0;
}

/* a bounded busy-wait: spin_idle() after every pass that found nothing */
struct spin {
	uint64_t deadline;
	unsigned int passes;
};

static void spin_start(struct spin *s)
{
	s->deadline = coarse_ns() + (uint64_t)opt_timeout_s * 1000000000ULL;
	s->passes = 0;
}

/* 0, or -1 once the deadline has passed */
static int spin_idle(struct spin *s)
{
	if (opt_yield)
		sched_yield();
	else
		cpu_relax();
	if (++s->passes % 1024 == 0 && coarse_ns() > s->deadline)
		return -1;
	return 0;
}

static void *slot_ptr(unsigned int i)
{
	return (char *)reg.addr + slots.off + (__u64)i * slots.size;
}

static unsigned int units_of(unsigned int len)
{
	return (TXRDMA_FRAME_HDR_LEN + len + TXRDMA_FRAME_UNIT - 1) /
	       TXRDMA_FRAME_UNIT;
}

/*
 * txrdma_submit(), spelled out so that the doorbells (system calls) can
 * be counted: the steady state of a stream should need none.
 */
static unsigned long doorbells;

static int submit_sqes(void)
{
	txrdma_sq_flush(&sq);
	if (!txrdma_sq_needs_wakeup(&sq))
		return 0;
	doorbells++;
	return txrdma_rings_enter(ctx);
}

/*
 * Reap what the CQ holds.  SEND CQEs free their slot and must report the
 * length sent; RECV CQEs (if the kernel posts them) are only counted:
 * the receive ring is read with txrdma_rx_peek().  Returns how many
 * CQEs were reaped; dies on an error CQE unless tolerant.
 */
static unsigned int reap(void)
{
	struct txrdma_cqe *c[32];
	unsigned int m, k;

	m = txrdma_peek_batch_cqe(&cq, c, 32);
	for (k = 0; k < m; k++) {
		const struct txrdma_cqe *e = c[k];
		__u64 s = e->user_data;

		if (e->flags & TXRDMA_CQE_F_RECV) {
			recv_cqes++;
			continue;
		}
		if (!have_ep || e->ep != ep_id)
			continue;	/* an endpoint closed already */
		if (e->opcode != TXRDMA_OP_SEND || s >= slots.n ||
		    !slots.busy[s])
			die("unexpected CQE: opcode %u ep %u user_data %llu res %d flags %#x",
			    e->opcode, e->ep, (unsigned long long)s, e->res,
			    e->flags);
		if (e->res != (__s32)slots.len[s] && !tolerant) {
			if (e->res < 0)
				die("SEND of %u bytes on endpoint %u failed: %s (res %d)",
				    slots.len[s], e->ep, strerror(-e->res),
				    e->res);
			die("SEND of %u bytes on endpoint %u completed with res %d",
			    slots.len[s], e->ep, e->res);
		}
		slots.busy[s] = 0;
		slots.free[slots.nfree++] = (unsigned int)s;
	}
	txrdma_cq_advance(&cq, m);
	/* SQEs held back by a full CQ: wake the poller if it slept */
	if (m && txrdma_sq_ready(&sq)) {
		int ret = submit_sqes();

		if (ret < 0)
			die("doorbell: %s", strerror(-ret));
	}
	return m;
}

static unsigned int get_slot(void)
{
	struct spin sp;
	unsigned int s;

	spin_start(&sp);
	while (!slots.nfree) {
		if (reap())
			continue;
		if (spin_idle(&sp))
			die("no send buffer free after %us: SEND completions missing",
			    opt_timeout_s);
	}
	s = slots.free[--slots.nfree];
	slots.busy[s] = 1;
	return s;
}

/* queue (not yet publish) a SEND of @len bytes from slot @s */
static void prep_send(unsigned int s, __u32 len)
{
	struct txrdma_sqe *sqe;
	struct spin sp;

	spin_start(&sp);
	while (!(sqe = txrdma_get_sqe(&sq))) {
		int ret = submit_sqes();

		if (ret < 0)
			die("doorbell: %s", strerror(-ret));
		if (reap())
			continue;
		if (spin_idle(&sp))
			die("submission ring full for %us (kernel consumes nothing; refused %u)",
			    opt_timeout_s, txrdma_sq_dropped(&sq));
	}
	slots.len[s] = len;
	txrdma_prep_send(sqe, ep_id, reg.id, slots.off + (__u64)s * slots.size,
			 len, s);
}

static void submit(void)
{
	int ret = submit_sqes();

	if (ret < 0)
		die("submit: %s", strerror(-ret));
}

static void send_hdr(enum pp_kind kind, uint16_t flags, uint32_t seq,
		     uint32_t arg)
{
	unsigned int s = get_slot();
	struct pp_hdr h = { PP_MAGIC, (uint16_t)kind, flags, seq, arg };

	memcpy(slot_ptr(s), &h, sizeof(h));
	prep_send(s, PP_HDR_LEN);
	submit();
}

/*
 * Wait until every SEND in flight has completed (its CQE reaped), at
 * most @timeout_s seconds.
 */
static int drain_sends(unsigned int timeout_s)
{
	uint64_t end = coarse_ns() + (uint64_t)timeout_s * 1000000000ULL;
	unsigned int passes = 0;

	while (slots.nfree != slots.n) {
		if (reap())
			continue;
		if (opt_yield)
			sched_yield();
		else
			cpu_relax();
		if (++passes % 1024 == 0 && coarse_ns() > end)
			return -1;
	}
	return 0;
}

/* an endpoint is gone: reap what its CQEs still bring, for a moment */
static void quiesce(void)
{
	uint64_t end = now_ns() + 200000000ULL;

	while (now_ns() < end)
		if (!reap())
			usleep(1000);
}

static void slots_reset(void)
{
	unsigned int i;

	for (i = 0; i < slots.n; i++) {
		slots.free[i] = slots.n - 1 - i;
		slots.busy[i] = 0;
	}
	slots.nfree = slots.n;
}

/*
 * Next message: 1 with @hdr filled and @payload, @len set (release it
 * with txrdma_rx_release()), or the negative errno of the endpoint.
 * Spins (reaping CQEs) up to the timeout; -ETIME if nothing came.
 */
static int next_msg(const void **payload, __u32 *len, struct pp_hdr *hdr,
		    int forever)
{
	struct spin sp;
	int r;

	spin_start(&sp);
	for (;;) {
		r = txrdma_rx_peek(&rx, payload, len);
		if (r > 0)
			break;
		if (r < 0)
			return r;
		if (reap())
			continue;
		if (spin_idle(&sp) && !forever)
			return -ETIME;
	}
	if (*len < PP_HDR_LEN)
		die("received a %u-byte message (at least %u expected)", *len,
		    PP_HDR_LEN);
	memcpy(hdr, *payload, sizeof(*hdr));
	if (hdr->magic != PP_MAGIC)
		die("received a message that is not ours (magic %#x, %u bytes)",
		    hdr->magic, *len);
	return 1;
}

/* ---------------------------------------------------------------- */

static void setup(unsigned int nslots, unsigned int slot_bytes)
{
	size_t area = txrdma_rx_area_size(opt_units);
	int ret;

	if (area > REGION_PAGE)
		die("a receive ring of %u units takes %zu bytes: more than one 2 MiB page",
		    opt_units, area);
	ret = txrdma_open(&ctx, 0);
	if (ret)
		die("open /dev/txrdma: %s (is txrdma.ko loaded?)", strerror(-ret));
	if (!(txrdma_features(ctx) & TXRDMA_FEAT_MESSAGES))
		die("the module does not do messages (no TXRDMA_FEAT_MESSAGES)");
	ret = txrdma_rings_setup(ctx, SQ_ENTRIES, 0, &sq, &cq);
	if (ret)
		die("rings setup: %s%s", strerror(-ret),
		    ret == -EPERM ? " (is this process in a tenant's cgroup?)" : "");

	slots.n = nslots;
	slots.size = (slot_bytes + 63) & ~63U;
	slots.off = (area + 4095) & ~4095ULL;
	slots.free = calloc(slots.n, sizeof(*slots.free));
	slots.len = calloc(slots.n, sizeof(*slots.len));
	slots.busy = calloc(slots.n, 1);
	if (!slots.free || !slots.len || !slots.busy)
		die("out of memory");
	slots_reset();
}

/*
 * A new region: the receive ring (zeroed, at offset 0) and the send
 * slots.  The server takes one per endpoint, so that nothing the
 * kernel may still store for an endpoint that is gone lands in the
 * ring of the next.
 */
static void region_new(void)
{
	__u64 need = slots.off + (__u64)slots.n * slots.size;
	__u64 size = (need + REGION_PAGE - 1) & ~(REGION_PAGE - 1);
	int ret;

	if (reg.addr) {
		ret = txrdma_region_destroy(ctx, &reg);
		if (ret)
			die("destroy region: %s", strerror(-ret));
	}
	ret = txrdma_region_create(ctx, size, 0, &reg);
	if (ret)
		die("region of %llu bytes: %s", (unsigned long long)size,
		    strerror(-ret));
}

/* our view of the receive ring, once connect/accept has bound it */
static void rx_attach(void)
{
	int ret = txrdma_rx_init(&rx, ctx, &sq, reg.addr, opt_units);

	if (ret)
		die("receive ring init (%u units): %s", opt_units, strerror(-ret));
}

static void params(struct txrdma_ep_params *p, __u32 service)
{
	memset(p, 0, sizeof(*p));
	p->service = service;
	p->flags = opt_ep_flags;
	p->rx_region = reg.id;
	p->rx_units = opt_units;
	p->rx_off = 0;
}

/* ---------------------------------------------------------------- */
/* server                                                             */

struct srv_stats {
	unsigned long msgs, pings, data, acks, bytes;
};

/* serve the endpoint just accepted; 0 after BYE, -ECONNRESET if the client vanished */
static int serve(struct srv_stats *st)
{
	uint32_t next_data = 0;
	int data_seen = 0;

	for (;;) {
		const void *payload;
		struct pp_hdr h;
		unsigned int s;
		__u32 len;
		int r;

		r = next_msg(&payload, &len, &h, 1);
		if (r == -ECONNRESET)
			return r;
		if (r < 0)
			die("server: endpoint %u failed: %s", ep_id, strerror(-r));
		st->msgs++;
		st->bytes += len;
		switch (h.kind) {
		case PP_HELLO:
			txrdma_rx_release(&rx);
			send_hdr(PP_HELLO, 0, h.seq, opt_units);
			break;
		case PP_PING:
			if (len > max_msg || len > slots.size)
				die("server: a %u-byte PING cannot be echoed (max %u)",
				    len, max_msg < slots.size ? max_msg : slots.size);
			ts_mark('s', 0);
			s = get_slot();
			memcpy(slot_ptr(s), payload, len);
			txrdma_rx_release(&rx);
			prep_send(s, len);
			ts_mark('p', 0);
			submit();
			st->pings++;
			break;
		case PP_DATA:
			if (data_seen && h.seq != next_data)
				die("server: DATA seq %u, expected %u (lost or reordered)",
				    h.seq, next_data);
			data_seen = 1;
			next_data = h.seq + 1;
			txrdma_rx_release(&rx);
			st->data++;
			if (!h.arg)
				die("server: DATA with ack interval 0");
			if ((h.flags & PP_F_LAST) || (h.seq + 1) % h.arg == 0) {
				send_hdr(PP_ACK, 0, h.seq, 0);
				st->acks++;
			}
			break;
		case PP_BYE:
			txrdma_rx_release(&rx);
			return 0;
		default:
			die("server: message of unknown kind %u", h.kind);
		}
	}
}

static int run_server(__u32 service, int once)
{
	/* static: what must survive a longjmp */
	static struct srv_stats st;
	static unsigned long failed;
	struct txrdma_ep_params p;
	jmp_buf jb;
	int ret;

	setup(SRV_SLOTS, TXRDMA_FRAME_MAX_PAYLOAD);
	ret = txrdma_ep_listen(ctx, service);
	if (ret)
		die("listen on service %u: %s", service, strerror(-ret));
	printf("%s: server listening on service %u (rx %u units)\n", prog,
	       service, opt_units);

	for (;;) {
		static struct txrdma_ep_pair out;
		static char peer[sizeof(out.peer) + 1];
		static int bad;

		region_new();
		params(&p, service);
		p.timeout_ms = 1000;
		do {	/* the same unused ring while nobody connects */
			memset(&out, 0, sizeof(out));
			ret = txrdma_ep_accept(ctx, &p, &out);
		} while (ret == -ETIMEDOUT || ret == -EINTR || ret == -EAGAIN);
		if (ret)
			die("accept on service %u: %s", service, strerror(-ret));
		ep_id = out.id;
		have_ep = 1;
		max_msg = out.max_msg;
		rx_attach();
		memcpy(peer, out.peer, sizeof(out.peer));
		peer[sizeof(out.peer)] = 0;
		memset(&st, 0, sizeof(st));
		bad = 0;

		if (setjmp(jb)) {
			bad = 1;	/* die() said why */
		} else {
			die_jmp = &jb;
			ret = serve(&st);
			/* BYE: our echoes and acks must all have completed */
			if (ret == 0 && drain_sends(opt_timeout_s))
				die("server: endpoint %u: SEND completions missing after %us",
				    ep_id, opt_timeout_s);
			if (ret)
				fprintf(stderr, "%s: server: endpoint %u: the client closed without BYE\n",
					prog, ep_id);
		}
		die_jmp = NULL;
		tolerant = 1;
		ret = txrdma_ep_destroy(ctx, ep_id);
		if (ret && ret != -ECONNRESET && ret != -ENOENT)
			die("server: destroy endpoint %u: %s", ep_id,
			    strerror(-ret));
		if (bad) {
			/* CQEs of the endpoint may be half reaped: drop them */
			have_ep = 0;
			quiesce();
			failed++;
		} else if (drain_sends(2)) {	/* in flight: -ECANCELED */
			fprintf(stderr, "%s: server: %u SENDs of endpoint %u never completed\n",
				prog, slots.n - slots.nfree, ep_id);
		}
		have_ep = 0;
		tolerant = 0;
		slots_reset();
		ts_write();
		printf("%s: server: endpoint %u from %s %s: %lu messages (%lu ping, %lu data), %lu acks, %lu bytes, %lu RECV CQEs\n",
		       prog, out.id, peer, bad ? "FAILED" : "closed", st.msgs,
		       st.pings, st.data, st.acks, st.bytes, recv_cqes);
		if (once)
			break;
	}
	txrdma_region_destroy(ctx, &reg);
	txrdma_close(ctx);
	return failed ? 1 : 0;
}

/* ---------------------------------------------------------------- */
/* client                                                             */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* nearest rank: the smallest value with at least p of the samples <= it */
static double pct_us(const uint64_t *v, unsigned long n, double p)
{
	unsigned long k = (unsigned long)(p * (double)n + 0.999999);

	if (k < 1)
		k = 1;
	if (k > n)
		k = n;
	return v[k - 1] / 1e3;
}

static void client_connect(const char *peer, __u32 service)
{
	struct txrdma_ep_pair out;
	struct txrdma_ep_params p;
	struct spin sp;
	int ret;

	region_new();
	params(&p, service);
	p.timeout_ms = 5000;
	spin_start(&sp);
	for (;;) {
		memset(&out, 0, sizeof(out));
		ret = txrdma_ep_connect(ctx, peer, &p, &out);
		/*
		 * The server may be between two endpoints (-ECONNREFUSED),
		 * the pool refilling (-EAGAIN) or the peer flapping
		 * (-ENOTCONN): try again until the timeout.
		 */
		if ((ret == -ECONNREFUSED || ret == -EAGAIN ||
		     ret == -ENOTCONN) &&
		    coarse_ns() < sp.deadline) {
			usleep(10000);
			continue;
		}
		break;
	}
	if (ret)
		die("connect to service %u at peer %s: %s", service, peer,
		    strerror(-ret));
	ep_id = out.id;
	have_ep = 1;
	max_msg = out.max_msg;
	rx_attach();
}

/* HELLO both ways; returns the server's receive ring units */
static unsigned int hello(void)
{
	const void *payload;
	struct pp_hdr h;
	__u32 len;
	int r;

	send_hdr(PP_HELLO, 0, 0, opt_units);
	r = next_msg(&payload, &len, &h, 0);
	if (r == -ETIME)
		die("no HELLO from the server within %us", opt_timeout_s);
	if (r < 0)
		die("endpoint %u failed before the HELLO: %s", ep_id,
		    strerror(-r));
	txrdma_rx_release(&rx);
	if (h.kind != PP_HELLO || h.arg < TXRDMA_RX_MIN_UNITS)
		die("bad HELLO from the server (kind %u, units %u)", h.kind,
		    h.arg);
	if (drain_sends(opt_timeout_s))
		die("the HELLO's SEND did not complete within %us", opt_timeout_s);
	return h.arg;
}

/* BYE: the server drains and closes its end; we see ECONNRESET and close ours */
static int goodbye(void)
{
	const void *payload;
	struct pp_hdr h;
	__u32 len;
	int r, ret = 0;

	if (drain_sends(opt_timeout_s))
		die("SEND completions missing after %us", opt_timeout_s);
	tolerant = 1;	/* the BYE's own completion may race the close */
	send_hdr(PP_BYE, 0, 0, 0);
	for (;;) {
		r = next_msg(&payload, &len, &h, 0);
		if (r != 1)
			break;
		txrdma_rx_release(&rx);	/* nothing is expected: drop it */
		fprintf(stderr, "%s: message of kind %u after BYE\n", prog,
			h.kind);
		ret = -1;
	}
	if (r != -ECONNRESET) {
		fprintf(stderr, "%s: the server did not close its endpoint after BYE (%s)\n",
			prog, r == -ETIME ? "nothing within the timeout" :
			strerror(-r));
		ret = -1;
	}
	r = txrdma_ep_destroy(ctx, ep_id);
	if (r && r != -ECONNRESET && r != -ENOENT) {
		fprintf(stderr, "%s: destroy endpoint %u: %s\n", prog, ep_id,
			strerror(-r));
		ret = -1;
	}
	drain_sends(2);		/* the BYE's, if it has not come yet */
	have_ep = 0;
	return ret;
}

static void fill_pattern(unsigned int s)
{
	unsigned char *b = slot_ptr(s);
	unsigned int j;

	for (j = PP_HDR_LEN; j < slots.size; j++)
		b[j] = (unsigned char)(s * 37 + j * 7 + 1);
}

static void run_latency(void)
{
	unsigned long total = opt_warmup + opt_iters, i, k;
	/* -T logs CLOCK_MONOTONIC times, to line up with the kernel's */
	uint64_t (*clk)(void) = ts_log ? now_ns : stamp;
	uint64_t *rtt, sum = 0;
	struct stamp_cal cal;
	double unit_ns = 1.0;
	struct spin sp;

	rtt = calloc(opt_iters, sizeof(*rtt));
	if (!rtt)
		die("out of memory");
	for (k = 0; k < slots.n; k++)
		fill_pattern(k);
	stamp_cal_start(&cal);

	for (i = 0; i < total; i++) {
		unsigned int s = (unsigned int)(i % slots.n);
		struct pp_hdr h = { PP_MAGIC, PP_PING, 0, (uint32_t)i,
				    opt_size };
		const void *payload;
		uint64_t t0, t1;
		struct pp_hdr e;
		__u32 len;
		int r;

		/* one message in flight: slot s is free */
		slots.busy[s] = 1;
		for (k = 0; k < slots.nfree; k++)
			if (slots.free[k] == s)
				break;
		slots.free[k] = slots.free[--slots.nfree];

		memcpy(slot_ptr(s), &h, sizeof(h));
		t0 = clk();
		prep_send(s, opt_size);
		ts_mark('p', 0);
		submit();
		r = next_msg(&payload, &len, &e, 0);
		t1 = clk();
		ts_mark('s', t1);
		if (r == -ETIME)
			die("no echo of message %lu within %us", i, opt_timeout_s);
		if (r < 0)
			die("endpoint %u failed waiting for echo %lu: %s", ep_id,
			    i, strerror(-r));
		if (len != opt_size || e.kind != PP_PING || e.seq != (uint32_t)i)
			die("echo %lu: got kind %u seq %u len %u, expected kind %u seq %lu len %u",
			    i, e.kind, e.seq, len, PP_PING, i, opt_size);
		if (memcmp(payload, slot_ptr(s), opt_size))
			die("echo %lu: payload differs from what was sent", i);
		txrdma_rx_release(&rx);
		/* the SEND's own completion, before the slot is used again */
		spin_start(&sp);
		while (slots.busy[s]) {
			if (reap())
				continue;
			if (spin_idle(&sp))
				die("SEND %lu: no completion within %us", i,
				    opt_timeout_s);
		}
		if (i >= opt_warmup) {
			rtt[i - opt_warmup] = t1 - t0;
			sum += t1 - t0;
		}
	}
	if (!ts_log)
		unit_ns = stamp_cal_end(&cal);
	for (k = 0; k < opt_iters; k++)
		rtt[k] = (uint64_t)(rtt[k] * unit_ns + 0.5);
	sum = (uint64_t)(sum * unit_ns + 0.5);
	qsort(rtt, opt_iters, sizeof(*rtt), cmp_u64);
	printf("txrdma pingpong size=%u n=%lu p50_us=%.2f p99_us=%.2f p999_us=%.2f avg_us=%.2f max_us=%.2f rtt lat_p50_us=%.2f lat_p99_us=%.2f lat_p999_us=%.2f doorbells=%lu ahead=%u\n",
	       opt_size, opt_iters, pct_us(rtt, opt_iters, 0.50),
	       pct_us(rtt, opt_iters, 0.99), pct_us(rtt, opt_iters, 0.999),
	       sum / (double)opt_iters / 1e3, rtt[opt_iters - 1] / 1e3,
	       pct_us(rtt, opt_iters, 0.50) / 2, pct_us(rtt, opt_iters, 0.99) / 2,
	       pct_us(rtt, opt_iters, 0.999) / 2, doorbells,
	       txrdma_rx_ahead_taken(&rx));
	free(rtt);
}

/*
 * Stream @count DATA messages from *@seq on; returns when the server
 * has acknowledged the last one.  At most @window unacknowledged.
 */
static void stream(uint32_t *seq, unsigned long count, unsigned int window,
		   unsigned int ack_every)
{
	uint32_t end = *seq + (uint32_t)count, acked = *seq, next = *seq;
	struct spin sp;

	spin_start(&sp);
	while (acked != end) {
		unsigned int batch = 0;
		const void *payload;
		struct pp_hdr e;
		__u32 len;
		int r;

		while (next != end && next - acked < window && slots.nfree &&
		       txrdma_sq_space_left(&sq)) {
			unsigned int s = slots.free[--slots.nfree];
			struct pp_hdr h = { PP_MAGIC, PP_DATA,
					    next + 1 == end ? PP_F_LAST : 0,
					    next, ack_every };

			slots.busy[s] = 1;
			memcpy(slot_ptr(s), &h, sizeof(h));
			prep_send(s, opt_size);
			next++;
			batch++;
		}
		if (batch)
			submit();
		r = txrdma_rx_peek(&rx, &payload, &len);
		if (r < 0)
			die("endpoint %u failed while streaming: %s", ep_id,
			    strerror(-r));
		if (r > 0) {
			if (len < PP_HDR_LEN)
				die("received a %u-byte message", len);
			memcpy(&e, payload, sizeof(e));
			txrdma_rx_release(&rx);
			if (e.magic != PP_MAGIC || e.kind != PP_ACK)
				die("expected an ACK, got magic %#x kind %u",
				    e.magic, e.kind);
			if (e.seq - acked >= next - acked)
				die("ACK of seq %u, but %u..%u are in flight",
				    e.seq, acked, next - 1);
			acked = e.seq + 1;
		}
		if (batch || r > 0 || reap()) {
			spin_start(&sp);
			continue;
		}
		if (spin_idle(&sp))
			die("streaming: no progress for %us (%u acked, %u sent of %u..%u)",
			    opt_timeout_s, acked - (end - (uint32_t)count),
			    next - (end - (uint32_t)count), end - (uint32_t)count,
			    end - 1);
	}
	*seq = end;
}

static void run_rate(unsigned int peer_units)
{
	unsigned int upf = units_of(opt_size), window, ack_every;
	uint32_t seq = 0;
	uint64_t t0, t;
	double secs;
	unsigned int k;

	/*
	 * At most what the server's ring holds (frames never wrap: one
	 * frame's worth may be skipped at the end), so the flow never
	 * waits for credits it cannot get back without our help.
	 */
	if (peer_units / upf < 2)
		die("a %u-byte message takes %u units: the server's ring (%u units) holds fewer than 2",
		    opt_size, upf, peer_units);
	window = peer_units / upf - 1;
	if (window > opt_window)
		window = opt_window;
	if (window > slots.n)
		window = slots.n;
	ack_every = window / 4 ? window / 4 : 1;
	for (k = 0; k < slots.n; k++)
		fill_pattern(k);

	if (opt_warmup)
		stream(&seq, opt_warmup, window, ack_every);
	t0 = now_ns();
	stream(&seq, opt_iters, window, ack_every);
	t = now_ns() - t0;
	secs = t / 1e9;
	printf("txrdma msgrate size=%u n=%lu window=%u ack_every=%u msgs_per_s=%.0f MB_per_s=%.2f elapsed_s=%.3f doorbells=%lu ahead=%u\n",
	       opt_size, opt_iters, window, ack_every, opt_iters / secs,
	       opt_iters * (double)opt_size / secs / 1e6, secs, doorbells,
	       txrdma_rx_ahead_taken(&rx));
}

static int run_client(const char *peer, __u32 service, int rate)
{
	unsigned int peer_units, nslots;
	int ret;

	nslots = rate ? 2 * opt_window : LAT_SLOTS;
	if (nslots > SQ_ENTRIES)
		nslots = SQ_ENTRIES;
	if (nslots < 4)
		nslots = 4;
	setup(nslots, opt_size);
	client_connect(peer, service);
	if (opt_size > max_msg)
		die("%u-byte messages: the server's ring takes at most %u bytes (max_msg)",
		    opt_size, max_msg);
	peer_units = hello();
	if (rate)
		run_rate(peer_units);
	else
		run_latency();
	ts_write();
	fflush(stdout);
	ret = goodbye();
	if (txrdma_sq_dropped(&sq) || txrdma_cq_overflow(&cq)) {
		fprintf(stderr, "%s: the kernel refused %u SQEs, lost %u CQEs\n",
			prog, txrdma_sq_dropped(&sq), txrdma_cq_overflow(&cq));
		ret = -1;
	}
	txrdma_region_destroy(ctx, &reg);
	txrdma_close(ctx);
	return ret ? 1 : 0;
}

/* ---------------------------------------------------------------- */

static void usage(void)
{
	fprintf(stderr,
		"usage: %s -s SERVICE [-o] [-u UNITS] [-C] [-A] [-Y] [-T FILE]\n"
		"       %s -c PEER -S SERVICE [-m SIZE] [-n ITER] [-w WARMUP] [-r [-W WINDOW]]\n"
		"                    [-u UNITS] [-t TIMEOUT_S] [-C] [-A] [-Y] [-T FILE]\n"
		"  -s SERVICE  server: serve endpoints of SERVICE one after the other (-o: one)\n"
		"  -c PEER     client of SERVICE (-S) at txrdma peer PEER\n"
		"  -m SIZE     message bytes, %u..%u (default 64)\n"
		"  -n ITER     measured round trips (default 10000) or messages with -r (100000)\n"
		"  -w WARMUP   unmeasured ones first (default 1000)\n"
		"  -r          message rate: stream, at most WINDOW unacknowledged (default 64)\n"
		"  -u UNITS    receive ring, 64-byte units, power of two (default %u)\n"
		"  -t SECONDS  give up when nothing moves for that long (default 10)\n"
		"  -C          CRC32C over payloads too (TXRDMA_EP_F_DATA_CRC)\n"
		"  -A          read frames ahead of the kernel (TXRDMA_EP_F_RX_AHEAD)\n"
		"  -R          a session: the pair outlives a lost QP (client;\n"
		"              TXRDMA_EP_F_SESSION)\n"
		"  -Y          sched_yield() when a poll finds nothing (default: pure spin)\n"
		"  -T FILE     write the times of PINGs/echoes posted and seen to FILE\n",
		prog, prog, PP_HDR_LEN, TXRDMA_FRAME_MAX_PAYLOAD, DEF_UNITS);
	exit(2);
}

static unsigned long num(const char *s, unsigned long min, unsigned long max)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "%s: bad number '%s' (%lu..%lu)\n", prog, s,
			min, max);
		usage();
	}
	return v;
}

int main(int argc, char **argv)
{
	const char *peer = NULL;
	long server_service = -1;
	unsigned long service = 0;
	int opt, rate = 0, once = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt(argc, argv, "s:c:S:m:n:w:rW:u:t:CARYoT:h")) != -1) {
		switch (opt) {
		case 's':
			server_service = (long)num(optarg, 1, UINT32_MAX);
			break;
		case 'c':
			peer = optarg;
			break;
		case 'S':
			service = num(optarg, 1, UINT32_MAX);
			break;
		case 'm':
			opt_size = (unsigned int)num(optarg, PP_HDR_LEN,
						     TXRDMA_FRAME_MAX_PAYLOAD);
			break;
		case 'n':
			opt_iters = num(optarg, 1, 1UL << 31);
			break;
		case 'w':
			opt_warmup = num(optarg, 0, 1UL << 31);
			break;
		case 'r':
			rate = 1;
			break;
		case 'W':
			opt_window = (unsigned int)num(optarg, 1, SQ_ENTRIES / 2);
			break;
		case 'u':
			opt_units = (unsigned int)num(optarg, TXRDMA_RX_MIN_UNITS,
						      TXRDMA_RX_MAX_UNITS);
			if (opt_units & (opt_units - 1)) {
				fprintf(stderr, "%s: -u %u: not a power of two\n",
					prog, opt_units);
				usage();
			}
			break;
		case 't':
			opt_timeout_s = (unsigned int)num(optarg, 1, 3600);
			break;
		case 'C':
			opt_ep_flags |= TXRDMA_EP_F_DATA_CRC;
			break;
		case 'A':
			opt_ep_flags |= TXRDMA_EP_F_RX_AHEAD;
			break;
		case 'R':
			opt_ep_flags |= TXRDMA_EP_F_SESSION;
			break;
		case 'Y':
			opt_yield = 1;
			break;
		case 'o':
			once = 1;
			break;
		case 'T':
			opt_tslog = optarg;
			ts_log = calloc(TS_MAX, sizeof(*ts_log));
			if (!ts_log) {
				fprintf(stderr, "%s: out of memory\n", prog);
				return 1;
			}
			break;
		default:
			usage();
		}
	}
	if (optind != argc || (server_service > 0) == (peer != NULL))
		usage();
	if (server_service > 0)
		return run_server((__u32)server_service, once);
	if (!service || !*peer || strlen(peer) >= sizeof(((struct txrdma_ep_pair *)0)->peer))
		usage();
	if (!opt_iters)
		opt_iters = rate ? 100000 : 10000;
	return run_client(peer, (__u32)service, rate);
}
