// SPDX-License-Identifier: GPL-2.0-only
/*
 * Endpoint pairs and SEND between two hosts, through libtxrdma: the
 * "msg" suite of run_vm_tests.py, where msg_guest.sh runs this program
 * in two guests that added each other as peers.  One process serves
 * (TXRDMA_MSG_ROLE=server), the other connects (TXRDMA_MSG_ROLE=client);
 * TXRDMA_MSG_PEER names the other guest as a peer.  Both run the same
 * tests in the same order.  Each test is one case on a service number of
 * its own; the server learns the rest from the client's first message
 * (a "hello": case, seed, counts, sizes), reads until the client's
 * "done" (sent once all the client's SENDs completed) and answers with a
 * summary of what it received.  A case ends when the client destroys
 * its endpoint: the server's ring then reports -ECONNRESET.  Nothing
 * sleeps to synchronise the two; timeouts only bound failures (a client
 * that connects before the server listens is refused and tries again).
 *
 *  stream  100,000 messages client -> server, sizes drawn log-uniformly
 *	    from 1 B to 64 KiB (fixed seed, printed; edge sizes first),
 *	    payload: the message's number in its first 8 bytes, then a
 *	    pattern of (number, byte index); at the same time 20,000 the
 *	    other way.  Each receiver checks every message: complete,
 *	    byte-exact, in order, none lost or duplicated, and its frame
 *	    header (endpoints, length, seq +1 per frame); each sender one
 *	    CQE per SQE (user_data = message number) with res == len.  The
 *	    server's summary (count, bytes, order-sensitive checksum,
 *	    errors) must match what the client sent.
 *  slow_receiver
 *	    the server's ring has 256 units; it waits 200 ms after the
 *	    first message before it reads and pauses every 100 messages;
 *	    the client posts 1,000 messages (many rings' worth) in one
 *	    batch.  No error CQE, all arrive intact, and the receiver
 *	    never holds more than its ring's units unreleased.
 *  bad_input
 *	    SQEs naming an unknown endpoint, an unknown region, another
 *	    tenant's region (-ENOENT), memory past the region (-EFAULT), a
 *	    length over max_msg (-EMSGSIZE); listen, accept and connect
 *	    with wrong arguments (through the library and raw ioctls: the
 *	    kernel's own checks), without rings (-ENXIO), to a service
 *	    nobody serves (-ECONNREFUSED), accept without listen
 *	    (-EINVAL), listen twice (-EADDRINUSE).  Then the pair still
 *	    carries messages up to max_msg, and no frame of the refused
 *	    SQEs reached the server (its frame seq is unbroken from 0).
 *  close   the client destroys its endpoint while the server has SENDs
 *	    waiting for credits in the client's ring (64 units, none
 *	    released): the server's ring reports -ECONNRESET after the
 *	    client's hello; the SENDs placed are the first ones and fit the
 *	    client's ring, the waiting ones and a new one
 *	    complete with errors, EP_INFO reports -ECONNRESET; on both
 *	    sides the tenant's qps, endpoints and pinned bytes go up by
 *	    the pair and come back to their values before the case (zero:
 *	    the cases before left nothing behind either).
 *  onesided
 *	    the server exports its region but the first 2 MiB page (which
 *	    holds its ring) READ|WRITE to the pair, then says so with its
 *	    id; the client finds exactly that range in TXRDMA_IOC_EP_EXPORTS
 *	    (the server in its exported list), READs 200 ranges
 *	    (1 B..256 KiB) of a pattern, every byte checked, and WRITEs 200
 *	    ranges of its own, which the server checks byte by byte.
 *	    Refused: READ of a region not exported (-EPERM), past the
 *	    export's end, of its last byte before, of the ring (-EFAULT),
 *	    into tenant msg-o's region (-ENOENT); EXPORT of msg-o's region
 *	    (ENOENT), of the whole region, ring included (EADDRINUSE),
 *	    past the region's end (EFAULT), with an unknown access bit
 *	    (EINVAL); revoke (access 0) of a range not exported (ENOENT).
 *  throttle
 *	    the client's tenant at 512 KiB/s (burst 64 KiB), 768 messages
 *	    of 4 KiB; then 250 ops/s (burst 10), 1,500 of 64 B: the rate
 *	    after the first 10% (CQE of the last of those to the last CQE)
 *	    within 5% of the limit, all arrive intact, the tenant's throttle
 *	    counter went up; unlimited again after (also on failure).
 *  coalesce
 *	    1,500 messages of 1..1024 B posted in one submit, every 8th
 *	    followed by a SEND naming no region of ours, into a server ring
 *	    of 256 units (a lap every ~50 messages) whose reader starts
 *	    100 ms late and pauses: SENDs in the SQ together leave as writes
 *	    carrying several frames, cut at the ring's end and by credit
 *	    stalls.  Each message arrives once, byte-exact, in order; each
 *	    SQE completes once, the stream's in order, the others -ENOENT;
 *	    the client's tx_coalesced and the server's rx_batches (ep show)
 *	    say that writes did carry several frames.
 *  fuzz    100,000 random SQEs written in place into the SQ (no NO_CQE):
 *	    one CQE each, res >= 0 only for NOP (0) and SEND/READ/WRITE
 *	    (len), the SQ's dropped counter == the CQEs with -EINVAL,
 *	    -ENOENT, -EFAULT, -EMSGSIZE, -EPERM and no other error; every
 *	    SEND that succeeded arrived; then the pair still carries
 *	    messages byte-exact, and both tenants hold no QP, endpoint or
 *	    pinned byte after.  The server exports all but its first 2 MiB
 *	    page (its ring): what succeeds writes only scratch pages, never
 *	    a ring, and a READ of the ring is refused (-EFAULT).
 *
 * Before main() the process makes tenant msg-t (cgroup /txrdma-msg,
 * generous limits) and moves itself in, so every test child runs in it;
 * tenant msg-o (/txrdma-msg-o) owns the "other tenant's" region.  Both
 * are deleted at exit.
 *
 * Environment: TXRDMA_MSG_ROLE, TXRDMA_MSG_PEER (without them every test
 * skips); client only: TXRDMA_MSG_SEED, TXRDMA_MSG_COUNT (100000),
 * TXRDMA_MSG_REV_COUNT (20000), TXRDMA_MSG_FUZZ_COUNT (100000); both: TXRDMA_MSG_SKIP, cases to skip
 * (names separated by spaces; the debug lane skips throttle, whose rates
 * a KASAN and lockdep kernel under TCG cannot reach).
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <txrdma.h>

#include "kselftest_harness.h"
#include "msg_pattern.h"
#include "nlmini.h"
#include "tenant_util.h"

/* ---- the tenants ------------------------------------------------------ */

#define CG_ROOT		"/sys/fs/cgroup"
#define CG_MSG		CG_ROOT "/txrdma-msg"
#define CG_OTHER	CG_ROOT "/txrdma-msg-o"
#define TENANT		"msg-t"
#define TENANT_OTHER	"msg-o"

static int tenant_status = -EAGAIN;
static char tenant_error[512];

static int tenant_new(struct nlmini *nl, const char *name, const char *cg)
{
	const uint64_t limits[] = {
		TXRDMA_A_LIMIT_QPS, 64,
		TXRDMA_A_LIMIT_ENDPOINTS, 64,
		TXRDMA_A_LIMIT_PINNED_BYTES, 1ULL << 30,
		0,
	};
	int ret = tenant_op(nl, TXRDMA_CMD_TENANT_NEW, name, cg, -1, limits);

	if (ret)
		snprintf(tenant_error, sizeof(tenant_error),
			 "tenant %s on %s: %s (%s)", name, cg, strerror(-ret),
			 nl->extack);
	return ret;
}

static void tenants_down(void)
{
	struct nlmini nl;

	cg_enter(CG_ROOT);
	if (!nlmini_open(&nl)) {
		tenant_del_force(&nl, TENANT);
		tenant_del_force(&nl, TENANT_OTHER);
		nlmini_close(&nl);
	}
	rmdir(CG_MSG);
	rmdir(CG_OTHER);
}

__attribute__((constructor)) static void tenants_up(void)
{
	struct nlmini nl;

	tenants_down();		/* leftovers of a run that crashed */
	mkdir(CG_MSG, 0755);
	mkdir(CG_OTHER, 0755);
	tenant_status = nlmini_open(&nl);
	if (tenant_status) {
		snprintf(tenant_error, sizeof(tenant_error),
			 "netlink family txrdma: %s", strerror(-tenant_status));
		return;
	}
	tenant_status = tenant_new(&nl, TENANT, "/txrdma-msg");
	if (!tenant_status)
		tenant_status = tenant_new(&nl, TENANT_OTHER, "/txrdma-msg-o");
	nlmini_close(&nl);
	if (!tenant_status) {
		tenant_status = cg_enter(CG_MSG);
		if (tenant_status)
			snprintf(tenant_error, sizeof(tenant_error),
				 "cannot enter %s: %s", CG_MSG,
				 strerror(-tenant_status));
	}
}

/* only the harness's parent exits through here; test children _exit */
__attribute__((destructor)) static void tenants_fini(void)
{
	tenants_down();
}

/*
 * Set the token buckets of tenant msg-t (TXRDMA_CMD_TENANT_SET): bytes
 * and operations per second and their bursts (TXRDMA_UNLIMITED: none).
 */
static int tenant_rates(uint64_t bw, uint64_t bw_burst, uint64_t ops,
			uint64_t ops_burst)
{
	const uint64_t limits[] = {
		TXRDMA_A_LIMIT_BW_RATE, bw,
		TXRDMA_A_LIMIT_BW_BURST, bw_burst,
		TXRDMA_A_LIMIT_OPS_RATE, ops,
		TXRDMA_A_LIMIT_OPS_BURST, ops_burst,
		0,
	};
	struct nlmini nl;
	int ret;

	ret = nlmini_open(&nl);
	if (ret)
		return ret;
	ret = tenant_op(&nl, TXRDMA_CMD_TENANT_SET, TENANT, NULL, -1, limits);
	nlmini_close(&nl);
	return ret;
}

static int tenant_unthrottle(void)
{
	return tenant_rates(TXRDMA_UNLIMITED, TXRDMA_UNLIMITED,
			    TXRDMA_UNLIMITED, TXRDMA_UNLIMITED);
}

/* what tenant msg-t has in use */
struct usage {
	int64_t qps, eps, pinned;
};

static int usage_get(struct usage *u)
{
	struct nlmini nl;
	struct tenant t;
	int ret;

	ret = nlmini_open(&nl);
	if (ret)
		return ret;
	ret = get_tenant(&nl, TENANT, &t);
	nlmini_close(&nl);
	if (ret)
		return ret;
	u->qps = t.usage[TENANT_LIM(TXRDMA_A_LIMIT_QPS)];
	u->eps = t.usage[TENANT_LIM(TXRDMA_A_LIMIT_ENDPOINTS)];
	u->pinned = t.usage[TENANT_LIM(TXRDMA_A_LIMIT_PINNED_BYTES)];
	return 0;
}

/* ---- time -------------------------------------------------------------- */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* the slow receiver's slowness, and the pace of bounded retries */
static void msleep(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/*
 * Poll (bounded) until the tenant's qps and endpoints (and with
 * @pinned its pinned bytes too) are those of @want; @got: the last read.
 */
static bool usage_wait(const struct usage *want, bool pinned, double secs,
		       struct usage *got)
{
	double end = now_s() + secs;

	for (;;) {
		if (!usage_get(got) && got->qps == want->qps &&
		    got->eps == want->eps &&
		    (!pinned || got->pinned == want->pinned))
			return true;
		if (now_s() > end)
			return false;
		msleep(20);
	}
}

/*
 * The baseline of the close case: no process of the tenant holds
 * anything (the cases before closed all they had, and their processes
 * exited).  Waits (bounded) for it, so that what the case before gives
 * back late is not taken for this case's leak; false if it never came.
 */
static bool usage_idle(struct usage *got)
{
	const struct usage zero = { 0, 0, 0 };

	return usage_wait(&zero, true, 10, got);
}

/* ---- cases and their services --------------------------------------- */

enum {
	CASE_STREAM = 1,
	CASE_SLOW,
	CASE_BAD,
	CASE_CLOSE,
	CASE_ONESIDED,
	CASE_THROTTLE,
	CASE_FUZZ,
	CASE_AHEAD,
	CASE_COALESCE,
};

#define SVC(kase)	(0x6d730000u + (kase))	/* "ms" + case */
#define SVC_NONE	0x6d7300f0u	/* nobody ever listens here */
#define SVC_NOT_LISTENED 0x6d7300f1u
#define SVC_TWICE	0x6d7300f2u
#define BAD_REGION	0x7fffff00u	/* no region of ours has this id */

/* failure bounds, seconds */
#define ACCEPT_S	240	/* the client may still be in a case before */
#define CONNECT_S	300	/* the server may still be in a case before */
#define STREAM_S	1000
#define CASE_S		120
#define CQE_S		10

/* ---- a process's side of a pair ---------------------------------------- */

#define HUGE		TXRDMA_REGION_HUGE_SIZE
#define CTL_SLOT	1024	/* control messages, in the ring's page */
#define CTL_SLOTS	4
#define CTL_OFF		(HUGE - CTL_SLOTS * CTL_SLOT)
#define SLOTS_OFF	HUGE	/* payload slots: the pages after */

/* user_data: kind in the top byte */
#define UD_STREAM	(1ULL << 56)
#define UD_CTL		(2ULL << 56)
#define UD_ONE		(3ULL << 56)
#define UD_FUZZ		(4ULL << 56)
#define UD_BAD		(5ULL << 56)	/* coalesce: a SEND of no region */
#define UD_KIND(ud)	((ud) & (0xffULL << 56))
#define UD_INDEX(ud)	((ud) & ((1ULL << 56) - 1))

struct txstream;
struct fuzz;

struct side {
	struct txrdma_ctx *ctx;
	struct txrdma_sq sq;
	struct txrdma_cq cq;
	struct txrdma_region reg;
	struct txrdma_rx rx;
	uint32_t rx_units;
	struct txrdma_ep_pair ep;
	uint32_t ep_flags;	/* TXRDMA_EP_F_* asked at connect/accept */
	bool connected;
	uint32_t nslots, slot_size;
	/* receiving: frame headers */
	uint32_t rx_frames;	/* the next frame's seq */
	uint32_t bad_hdr;
	char hdr_err[200];
	uint32_t max_ready;	/* most units published and not released */
	int rx_err;		/* what the ring ended with, 0 while open */
	/* completions */
	struct txstream *tx;	/* the stream whose CQEs come back */
	uint32_t ctl_posted, ctl_done, ctl_bad;
	uint64_t ctl_bad_index;	/* the first failed control message */
	int32_t ctl_bad_res;	/* and its result */
	uint32_t one_seen;	/* single SQEs (UD_ONE) completed */
	struct txrdma_cqe one;	/* the last of them */
	uint32_t recv_cqes;	/* TXRDMA_CQE_F_RECV entries */
	uint32_t stray_cqes;
	/* throttle: CQE times of stream message tx_mark - 1 and of the last */
	uint32_t tx_mark;
	double t_mark, t_last;
	struct fuzz *fz;	/* fuzz: the SQEs whose CQEs come back */
	/* coalesce: a bad SEND after every bad_every-th stream message */
	uint32_t bad_every, bad_posted, bad_seen, bad_wrong, bad_dup;
	int32_t bad_res;	/* the first wrong one's */
	uint8_t bad_map[1024];
	/* coalesce: our endpoint's counters, read before it goes */
	bool want_stats;
	int64_t tx_coalesced, rx_batches, credit_stalls;
};

static uint32_t frame_units(uint32_t len)
{
	return (TXRDMA_FRAME_HDR_LEN + len + TXRDMA_FRAME_UNIT - 1) /
	       TXRDMA_FRAME_UNIT;
}

/*
 * Open /dev/txrdma with rings of @sq_entries and a region holding the
 * receive ring of @rx_units at offset 0 and @nslots payload slots of
 * @slot_size after its first 2 MiB page.
 */
static void side_open(struct __test_metadata *_metadata, struct side *s,
		      unsigned int sq_entries, uint32_t rx_units,
		      uint32_t nslots, uint32_t slot_size)
{
	uint64_t slots = (uint64_t)nslots * slot_size;

	memset(s, 0, sizeof(*s));
	s->rx_units = rx_units;
	s->nslots = nslots;
	s->slot_size = slot_size;
	ASSERT_EQ(0, txrdma_open(&s->ctx, 0));
	ASSERT_EQ(0, txrdma_rings_setup(s->ctx, sq_entries, 0, &s->sq,
					&s->cq));
	ASSERT_NE(0, txrdma_rx_area_size(rx_units));
	ASSERT_LE(txrdma_rx_area_size(rx_units), (size_t)CTL_OFF);
	ASSERT_EQ(0, txrdma_region_create(s->ctx, HUGE + (slots + HUGE - 1) /
					  HUGE * HUGE, 0, &s->reg));
}

/* destroy the endpoint (if any) and the region, close the device */
static void side_close(struct side *s)
{
	if (s->connected)
		txrdma_ep_destroy(s->ctx, s->ep.id);
	s->connected = false;
	if (s->reg.id)
		txrdma_region_destroy(s->ctx, &s->reg);
	txrdma_close(s->ctx);
	s->ctx = NULL;
}

static struct txrdma_ep_params side_params(const struct side *s, uint32_t svc)
{
	return (struct txrdma_ep_params){
		.service = svc,
		.flags = s->ep_flags,
		.rx_region = s->reg.id,
		.rx_units = s->rx_units,
		.rx_off = 0,
		.timeout_ms = 10000,
	};
}

/* a word of the kernel's in our receive ring's header */
static uint32_t rx_kword(const struct side *s, unsigned int off)
{
	return __atomic_load_n((uint32_t *)((char *)s->reg.addr + off),
			       __ATOMIC_RELAXED);
}

static void side_rx_init(struct __test_metadata *_metadata, struct side *s)
{
	uint32_t max_units = (TXRDMA_FRAME_HDR_LEN + s->ep.rx_max_msg +
			      TXRDMA_FRAME_UNIT - 1) / TXRDMA_FRAME_UNIT;

	s->connected = true;
	ASSERT_NE(0, s->ep.id);
	ASSERT_LT(0, s->ep.max_msg);
	/*
	 * TXRDMA_FEAT_RX_CREDIT_WORDS: the largest frame the peer may
	 * place (half the ring, or what we declared), and nothing
	 * reported yet, before the library looks at them
	 */
	if (max_units > s->rx_units / 2)
		max_units = s->rx_units / 2;
	EXPECT_EQ(max_units, rx_kword(s, TXRDMA_RX_OFF_MAX_UNITS));
	EXPECT_EQ(0, rx_kword(s, TXRDMA_RX_OFF_REPORTED));
	/*
	 * TXRDMA_FEAT_RX_AHEAD: what a frame taken ahead of the kernel is
	 * checked against, written before the pair could deliver one
	 */
	if (s->ep_flags & TXRDMA_EP_F_RX_AHEAD) {
		uint32_t amax = s->ep.rx_max_msg < TXRDMA_RX_AHEAD_MAX_PAYLOAD ?
				s->ep.rx_max_msg : TXRDMA_RX_AHEAD_MAX_PAYLOAD;

		EXPECT_EQ(amax, rx_kword(s, TXRDMA_RX_OFF_AHEAD_MAX));
		EXPECT_EQ(s->ep.id, rx_kword(s, TXRDMA_RX_OFF_AHEAD_EP));
		EXPECT_EQ(s->ep.peer_ep, rx_kword(s, TXRDMA_RX_OFF_AHEAD_PEER));
		EXPECT_NE(0, rx_kword(s, TXRDMA_RX_OFF_AHEAD_EPOCH));
	} else {
		EXPECT_EQ(0, rx_kword(s, TXRDMA_RX_OFF_AHEAD_MAX));
	}
	ASSERT_EQ(0, txrdma_rx_init(&s->rx, s->ctx, &s->sq, s->reg.addr,
				    s->rx_units));
}

/*
 * Connect to @svc of the peer.  The server may not listen yet (it may
 * still be in the case before): -ECONNREFUSED, and -EAGAIN (no ready
 * QP this instant) or -ETIMEDOUT, are tried again until @secs passed.
 */
static void side_connect(struct __test_metadata *_metadata, struct side *s,
			 const char *peer, uint32_t svc, double secs)
{
	struct txrdma_ep_params p = side_params(s, svc);
	double end = now_s() + secs;
	int ret, tries = 0;

	for (;;) {
		ret = txrdma_ep_connect(s->ctx, peer, &p, &s->ep);
		tries++;
		if (!ret || (ret != -ECONNREFUSED && ret != -EAGAIN &&
			     ret != -ETIMEDOUT) || now_s() > end)
			break;
		msleep(50);
	}
	ASSERT_EQ(0, ret) TH_LOG("connect to %s service %#x: %s (%d tries)",
				 peer, svc, strerror(-ret), tries);
	side_rx_init(_metadata, s);
}

/* Listen on @svc and accept the client's connection (peer @peer). */
static void side_accept(struct __test_metadata *_metadata, struct side *s,
			const char *peer, uint32_t svc, double secs)
{
	struct txrdma_ep_params p = side_params(s, svc);
	double end = now_s() + secs;
	int ret;

	ASSERT_EQ(0, txrdma_ep_listen(s->ctx, svc));
	do
		ret = txrdma_ep_accept(s->ctx, &p, &s->ep);
	while (ret == -ETIMEDOUT && now_s() < end);
	ASSERT_EQ(0, ret) TH_LOG("accept on service %#x: %s", svc,
				 strerror(-ret));
	EXPECT_STREQ(peer, (char *)s->ep.peer);
	side_rx_init(_metadata, s);
}

/* the kernel's error word of our receive ring: 0 or a positive errno */
static uint32_t rx_error_word(const struct side *s)
{
	return __atomic_load_n((uint32_t *)((char *)s->reg.addr +
					    TXRDMA_RX_OFF_ERROR),
			       __ATOMIC_ACQUIRE);
}

/* Nothing to do: wake the poller if it sleeps, wait 1 ms for news. */
static void idle(struct side *s)
{
	struct pollfd pfd = { .fd = txrdma_fd(s->ctx), .events = POLLIN };

	if (txrdma_sq_needs_wakeup(&s->sq))
		txrdma_rings_enter(s->ctx);
	/* reading ahead is for a process that polls its ring: spin */
	if (s->ep_flags & TXRDMA_EP_F_RX_AHEAD) {
		sched_yield();
		return;
	}
	poll(&pfd, 1, 1);
}

/*
 * What the rings and the endpoint say, for a case that stopped short:
 * SQEs the kernel has not taken (its head behind our tail) against
 * SQEs it took and never completed, and the endpoint's error.
 */
static const char *ring_state(const struct side *s, char *buf, size_t len)
{
	struct txrdma_ep_info ei = { .id = s->ep.id };
	int ret = ioctl(txrdma_fd(s->ctx), TXRDMA_IOC_EP_INFO, &ei) ? -errno : 0;

	snprintf(buf, len,
		 "SQ kernel head %u, our tail %u, flags 0x%x, dropped %u; CQ our head %u, kernel tail %u, overflow %u; endpoint %u: info %d, error %d, qp %u",
		 __atomic_load_n(s->sq.khead, __ATOMIC_ACQUIRE),
		 s->sq.sqe_tail,
		 __atomic_load_n(s->sq.kflags, __ATOMIC_ACQUIRE),
		 __atomic_load_n(s->sq.kdropped, __ATOMIC_ACQUIRE),
		 s->cq.cqe_head,
		 __atomic_load_n(s->cq.ktail, __ATOMIC_ACQUIRE),
		 __atomic_load_n(s->cq.koverflow, __ATOMIC_ACQUIRE),
		 s->ep.id, ret, ei.error, ei.qp_num);
	return buf;
}

/* ---- payloads ------------------------------------------------------------ */

#define KEY_FWD		0x636c69656e74ULL	/* client -> server */
#define KEY_REV		0x736572766572ULL	/* server -> client */

/* ---- control messages: hello and summary ---------------------------- */

#define CTL_MAGIC	0x31676d73616d6474ULL	/* "tdmamsg1" */

enum { CTL_HELLO = 1, CTL_DONE = 2, CTL_SUMMARY = 3, CTL_EXPORTED = 4 };

struct ctl {
	uint64_t magic;
	uint32_t type;
	uint32_t kase;
	/*
	 * hello: what the client sends, what the server sends back; done:
	 * the client's last message of the case, sent once all its SENDs
	 * completed, so that the server ends on it, not on a count (a lost
	 * message fails the case at once)
	 */
	uint64_t seed;
	uint32_t count, max_len;
	uint32_t rev_count, rev_max_len;
	uint32_t pause_ms;	/* slow receiver: before it reads */
	uint32_t pause_every;	/* and 20 ms after every so many */
	/* summary: what the server received, and its own sending */
	uint32_t n, lost, dup, bad_len, bad_data, bad_hdr;
	uint32_t max_ready, rx_units;
	uint32_t rev_done, rev_bad;
	uint64_t bytes, hash;
	/* throttle: every message fixed_len bytes; exported: the region */
	uint32_t fixed_len, region;
	uint64_t region_size;
	/* fuzz: what the server received before the marker */
	uint32_t aux_n, aux_resv;
	uint64_t aux_bytes;
};

_Static_assert(sizeof(struct ctl) <= CTL_SLOT, "ctl fits its slot");

static bool is_ctl(const void *p, uint32_t len)
{
	uint64_t m;

	if (len != sizeof(struct ctl))
		return false;
	memcpy(&m, p, 8);
	return m == CTL_MAGIC;
}

/* Post a control message (at most CTL_SLOTS in flight). */
static void ctl_send(struct __test_metadata *_metadata, struct side *s,
		     const struct ctl *m)
{
	uint64_t off = CTL_OFF + (s->ctl_posted % CTL_SLOTS) * CTL_SLOT;
	struct txrdma_sqe *sqe;

	ASSERT_LT(s->ctl_posted - s->ctl_done, (uint32_t)CTL_SLOTS);
	memcpy((char *)s->reg.addr + off, m, sizeof(*m));
	sqe = txrdma_get_sqe(&s->sq);
	ASSERT_NE(NULL, sqe);
	txrdma_prep_send(sqe, s->ep.id, s->reg.id, off, sizeof(*m),
			 UD_CTL | s->ctl_posted++);
	ASSERT_LE(0, txrdma_submit(s->ctx, &s->sq));
}

/* ---- sending a stream ---------------------------------------------------- */

struct txstream {
	struct gen g;
	uint64_t key;
	uint32_t posted, completed;
	uint32_t low;		/* every message below has its CQE */
	uint8_t *seen;		/* CQEs per message */
	int32_t *res;		/* the first CQE's res per message */
	uint32_t bad_res, dup, unknown;
	uint32_t order_err;	/* CQEs before an earlier message's */
	int64_t last_done;	/* the message of the last CQE, -1 */
	char err[200];
	uint64_t bytes, hash, units;
};

static void tx_init(struct __test_metadata *_metadata, struct txstream *t,
		    const struct gen *g, uint64_t key)
{
	memset(t, 0, sizeof(*t));
	t->g = *g;
	t->key = key;
	t->last_done = -1;
	t->seen = calloc(g->count + 1, 1);
	t->res = calloc(g->count + 1, sizeof(*t->res));
	ASSERT_TRUE(t->seen && t->res);
}

static void tx_free(struct txstream *t)
{
	free(t->seen);
	free(t->res);
	t->seen = NULL;
	t->res = NULL;
}

/*
 * Post what the SQ and the payload slots allow (message i uses slot
 * i % nslots, free once every message up to i - nslots completed).
 */
static uint32_t tx_post(struct __test_metadata *_metadata, struct side *s,
			struct txstream *t)
{
	uint32_t n = 0;

	while (t->posted < t->g.count && t->posted - t->low < s->nslots) {
		struct txrdma_sqe *sqe = txrdma_get_sqe(&s->sq);
		uint32_t i = t->posted, len = gen_len(&t->g, i);
		uint64_t off = SLOTS_OFF + (uint64_t)(i % s->nslots) *
					   s->slot_size;

		if (!sqe)
			break;
		t->hash = hash_step(t->hash, fill((uint8_t *)s->reg.addr + off,
						  t->key, i, len), len);
		t->bytes += len;
		t->units += frame_units(len);
		txrdma_prep_send(sqe, s->ep.id, s->reg.id, off, len,
				 UD_STREAM | i);
		t->posted++;
		n++;
		/* between two SENDs that could share a write */
		if (s->bad_every && i % s->bad_every == s->bad_every / 2 &&
		    s->bad_posted < sizeof(s->bad_map) &&
		    (sqe = txrdma_get_sqe(&s->sq))) {
			txrdma_prep_send(sqe, s->ep.id, BAD_REGION, 0, 64,
					 UD_BAD | s->bad_posted);
			s->bad_posted++;
		}
	}
	if (n)
		ASSERT_LE(0, txrdma_submit(s->ctx, &s->sq));
	return n;
}

static void tx_cqe(struct side *s, struct txstream *t,
		   const struct txrdma_cqe *c)
{
	uint64_t i = UD_INDEX(c->user_data);

	if (i >= t->posted) {
		t->unknown++;
		return;
	}
	if (t->seen[i]) {
		t->dup++;
		if (t->seen[i] < 255)
			t->seen[i]++;
		return;
	}
	t->seen[i] = 1;
	t->res[i] = c->res;
	t->completed++;
	/* one endpoint's SENDs complete in the order they were posted */
	if ((int64_t)i < t->last_done)
		t->order_err++;
	t->last_done = i;
	if (s->tx_mark && i + 1 == s->tx_mark)
		s->t_mark = now_s();
	if (t->completed == t->g.count)
		s->t_last = now_s();
	if (c->res != (int32_t)gen_len(&t->g, i) || c->ep != s->ep.id ||
	    c->opcode != TXRDMA_OP_SEND) {
		if (!t->bad_res++)
			snprintf(t->err, sizeof(t->err),
				 "message %lu (%u bytes): CQE res %d ep %u opcode %u",
				 (unsigned long)i, gen_len(&t->g, i), c->res,
				 c->ep, c->opcode);
	}
	while (t->low < t->posted && t->seen[t->low])
		t->low++;
}

/* ---- fuzz: random SQEs and what their CQEs say --------------------------- */

#define FUZZ_COUNT	100000
#define FUZZ_ERRS	256

struct fuzz {
	uint64_t seed;
	uint32_t ep, own, other, rreg;	/* our endpoint and regions, the export */
	uint64_t own_size, rsize;
	uint32_t count, posted, completed;	/* count: SQEs to post */
	uint8_t *op, *seen;		/* per SQE */
	uint32_t *len, *epv;
	uint32_t dup, unknown, bad_res, bad_id, other_err;
	char err[200];
	uint32_t ok[TXRDMA_OP_LAST];	/* res >= 0, per opcode */
	uint32_t errs[FUZZ_ERRS];	/* per -res */
	uint64_t send_bytes;
};

static void fuzz_cqe(struct fuzz *f, const struct txrdma_cqe *c)
{
	uint64_t i = UD_INDEX(c->user_data);
	uint8_t op;

	if (i >= f->posted) {
		f->unknown++;
		return;
	}
	if (f->seen[i]) {
		f->dup++;
		return;
	}
	f->seen[i] = 1;
	f->completed++;
	op = f->op[i];
	if (c->opcode != op || c->ep != f->epv[i]) {
		if (!f->bad_id++ && !f->err[0])
			snprintf(f->err, sizeof(f->err),
				 "SQE %lu: CQE opcode %u ep %u, SQE opcode %u ep %u",
				 (unsigned long)i, c->opcode, c->ep, op,
				 f->epv[i]);
	}
	if (c->res >= 0) {
		/* NOP: 0; SEND, READ, WRITE: len; nothing else succeeds */
		if (op >= TXRDMA_OP_LAST ||
		    (uint32_t)c->res != (op == TXRDMA_OP_NOP ? 0 : f->len[i])) {
			if (!f->bad_res++ && !f->err[0])
				snprintf(f->err, sizeof(f->err),
					 "SQE %lu: opcode %u len %u: res %d",
					 (unsigned long)i, op, f->len[i],
					 c->res);
			return;
		}
		f->ok[op]++;
		if (op == TXRDMA_OP_SEND)
			f->send_bytes += f->len[i];
	} else if (-c->res < FUZZ_ERRS) {
		f->errs[-c->res]++;
	} else {
		f->other_err++;
	}
}

/* a SEND of no region (coalesce): once each, -ENOENT */
static void bad_cqe(struct side *s, const struct txrdma_cqe *c)
{
	uint64_t j = UD_INDEX(c->user_data);

	if (j >= s->bad_posted) {
		s->stray_cqes++;
		return;
	}
	if (s->bad_map[j]++) {
		s->bad_dup++;
		return;
	}
	s->bad_seen++;
	if ((c->res != -ENOENT || c->ep != s->ep.id ||
	     c->opcode != TXRDMA_OP_SEND) && !s->bad_wrong++)
		s->bad_res = c->res;
}

/*
 * A counter of endpoint @id as "txrdma-admin -j ep show" reports it
 * ($TXRDMA_ADMIN, else the tool in the checkout), or -1.
 */
static int64_t ep_stat(uint32_t id, const char *key)
{
	const char *admin = getenv("TXRDMA_ADMIN"), *root;
	char cmd[1024], out[64] = "";
	int64_t v = -1;
	FILE *f;

	root = getenv("TXRDMA_ROOT");
	if (admin && *admin)
		snprintf(cmd, sizeof(cmd), "%s", admin);
	else
		snprintf(cmd, sizeof(cmd), "%s/tools/txrdma-admin/txrdma-admin",
			 root && *root ? root : "../..");
	snprintf(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd),
		 " -j ep show id %u | jq -r '.[0].stats.%s // -1'", id, key);
	fflush(NULL);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	if (fgets(out, sizeof(out), f))
		v = strtoll(out, NULL, 10);
	pclose(f);
	return v;
}

/* Reap every CQE there is; returns how many. */
static uint32_t reap(struct side *s)
{
	struct txrdma_cqe *c[64];
	uint32_t n, i, total = 0;

	while ((n = txrdma_peek_batch_cqe(&s->cq, c, 64))) {
		for (i = 0; i < n; i++) {
			uint64_t kind = UD_KIND(c[i]->user_data);

			if (c[i]->flags & TXRDMA_CQE_F_RECV)
				s->recv_cqes++;
			else if (kind == UD_STREAM && s->tx)
				tx_cqe(s, s->tx, c[i]);
			else if (kind == UD_CTL) {
				s->ctl_done++;
				if (c[i]->res != (int32_t)sizeof(struct ctl) &&
				    !s->ctl_bad++) {
					s->ctl_bad_index = UD_INDEX(c[i]->user_data);
					s->ctl_bad_res = c[i]->res;
				}
			} else if (kind == UD_ONE) {
				s->one = *c[i];
				s->one_seen++;
			} else if (kind == UD_FUZZ && s->fz) {
				fuzz_cqe(s->fz, c[i]);
			} else if (kind == UD_BAD) {
				bad_cqe(s, c[i]);
			} else {
				s->stray_cqes++;
			}
		}
		txrdma_cq_advance(&s->cq, n);
		total += n;
	}
	return total;
}

/*
 * One SEND SQE as given; wait (bounded) for its CQE.  Returns its res,
 * or INT32_MIN when none came.
 */
static int32_t send_one(struct side *s, uint32_t ep, uint32_t region,
			uint64_t off, uint32_t len)
{
	uint32_t seen = s->one_seen;
	double end = now_s() + CQE_S;
	struct txrdma_sqe *sqe;

	reap(s);
	sqe = txrdma_get_sqe(&s->sq);
	if (!sqe)
		return INT32_MIN;
	txrdma_prep_send(sqe, ep, region, off, len, UD_ONE | seen);
	if (txrdma_submit(s->ctx, &s->sq) < 0)
		return INT32_MIN;
	while (now_s() < end) {
		reap(s);
		if (s->one_seen != seen)
			return s->one.res;
		idle(s);
	}
	return INT32_MIN;
}

/* ---- receiving -------------------------------------------------------- */

/*
 * txrdma_rx_peek() with the frame header checked: a message, from the
 * peer's endpoint to ours, of the length peeked, seq one more than the
 * frame before (from 0).  Also records the most units ever unreleased.
 */
static int rx_take(struct side *s, const uint8_t **p, uint32_t *len)
{
	const struct txrdma_frame_hdr *h;
	uint32_t ready = txrdma_rx_ready(&s->rx), seq;
	int ret;

	if (ready > s->max_ready)
		s->max_ready = ready;
	ret = txrdma_rx_peek(&s->rx, (const void **)p, len);
	if (ret < 0)
		s->rx_err = ret;
	if (ret != 1)
		return ret;
	h = txrdma_rx_hdr(&s->rx);
	if (!h) {
		if (!s->bad_hdr++)
			snprintf(s->hdr_err, sizeof(s->hdr_err),
				 "frame %u: no header", s->rx_frames);
		s->rx_frames++;
		return 1;
	}
	seq = le32toh(h->seq);
	if (h->type != TXRDMA_FRAME_MSG ||
	    le32toh(h->src_ep) != s->ep.peer_ep ||
	    le32toh(h->dst_ep) != s->ep.id || le32toh(h->len) != *len ||
	    seq != s->rx_frames) {
		if (!s->bad_hdr++)
			snprintf(s->hdr_err, sizeof(s->hdr_err),
				 "frame %u: type %u src_ep %u (peer %u) dst_ep %u (ours %u) len %u (peeked %u) seq %u",
				 s->rx_frames, h->type, le32toh(h->src_ep),
				 s->ep.peer_ep, le32toh(h->dst_ep), s->ep.id,
				 le32toh(h->len), *len, seq);
	}
	s->rx_frames = seq + 1;
	return 1;
}

/* Release the message taken: its units go back to the sender. */
static void rx_done(struct side *s)
{
	txrdma_rx_release(&s->rx);
}

/* what a receiver of a stream found */
struct rxstream {
	struct gen g;
	uint64_t key;
	uint32_t n;		/* messages of the stream received */
	uint32_t next;		/* the number expected next */
	uint32_t lost, dup, bad_len, bad_data;
	char err[200];
	uint64_t bytes, hash;
};

static void rxs_init(struct rxstream *r, const struct gen *g, uint64_t key)
{
	memset(r, 0, sizeof(*r));
	r->g = *g;
	r->key = key;
}

static void rxs_msg(struct rxstream *r, const uint8_t *p, uint32_t len)
{
	uint32_t seq = r->next, want;
	uint64_t d;
	long bad;

	if (len >= 8) {
		uint64_t w;

		memcpy(&w, p, 8);
		w = le64toh(w);
		if (w != r->next) {
			if (w > r->next && w < r->g.count)
				r->lost += w - r->next;
			else
				r->dup++;
			if (!r->err[0])
				snprintf(r->err, sizeof(r->err),
					 "message %u (%u bytes) says it is number %llu",
					 r->next, len, (unsigned long long)w);
			if (w < r->g.count)
				seq = w;
		}
	}
	want = gen_len(&r->g, seq);
	bad = check(p, r->key, seq, len, &d);
	if (len != want) {
		if (!r->bad_len++ && !r->err[0])
			snprintf(r->err, sizeof(r->err),
				 "message %u: %u bytes, sent %u", seq, len,
				 want);
	} else if (bad >= 0) {
		if (!r->bad_data++ && !r->err[0])
			snprintf(r->err, sizeof(r->err),
				 "message %u (%u bytes): byte %ld differs",
				 seq, len, bad);
	}
	r->hash = hash_step(r->hash, d, len);
	r->bytes += len;
	r->n++;
	r->next = seq + 1;
}

/* Wait (bounded) for the client's hello of case @kase. */
static void wait_hello(struct __test_metadata *_metadata, struct side *s,
		       uint32_t kase, struct ctl *h)
{
	double end = now_s() + CASE_S;
	const uint8_t *p;
	uint32_t len;
	int ret;

	while ((ret = rx_take(s, &p, &len)) == 0 && now_s() < end) {
		reap(s);
		idle(s);
	}
	ASSERT_EQ(1, ret) TH_LOG("no hello from the client: %d", ret);
	ASSERT_TRUE(is_ctl(p, len)) TH_LOG("first message: %u bytes", len);
	memcpy(h, p, sizeof(*h));
	rx_done(s);
	ASSERT_EQ(CTL_HELLO, h->type);
	ASSERT_EQ(kase, h->kase);
}

/*
 * The end of a case on the server: the client destroys its endpoint
 * when it has what it needs, and our ring says so once every frame
 * before was read.  Returns what the ring ended with; messages that
 * still came are counted in *@extra.
 */
static int wait_reset(struct side *s, double secs, uint32_t *extra)
{
	double end = now_s() + secs;
	const uint8_t *p;
	uint32_t len;
	int ret;

	while (now_s() < end) {
		reap(s);
		ret = rx_take(s, &p, &len);
		if (ret < 0) {
			/*
			 * The module completes the pair's operations before
			 * it stores the error word; a CQE written after the
			 * reap above is reaped now.
			 */
			reap(s);
			return ret;
		}
		if (ret == 1) {
			(*extra)++;
			rx_done(s);
			continue;
		}
		idle(s);
	}
	return 0;
}

/*
 * A server's control messages, once the client has reset the pair.  The
 * client resets as soon as it has read the summary, which may be before
 * the RC ACK of the summary's WRITE_WITH_IMM reached us (lost and due for
 * retransmission, or the reset's disconnect handled first): then the
 * summary, and only the summary, completes -ECONNRESET, which is what
 * an operation outstanding on a reset pair completes with ("outcome
 * unknown").  The client checks that it did arrive.  Any other failed
 * control message fails the case.
 */
static void expect_ctl_at_reset(struct __test_metadata *_metadata,
				const struct side *s, bool summary_sent)
{
	EXPECT_EQ(s->ctl_posted, s->ctl_done);
	if (summary_sent && s->ctl_bad == 1 &&
	    s->ctl_bad_index == s->ctl_posted - 1 &&
	    s->ctl_bad_res == -ECONNRESET) {
		TH_LOG("the summary completed -ECONNRESET: the client reset the pair before its ACK came back");
		return;
	}
	EXPECT_EQ(0, s->ctl_bad)
		TH_LOG("control message %llu of %u completed %d",
		       (unsigned long long)s->ctl_bad_index, s->ctl_posted,
		       s->ctl_bad_res);
}

/* ---- the fixture ----------------------------------------------------------- */

FIXTURE(msg) {
	bool skip;
	bool server;
	bool throttled;		/* our tenant's rates to restore */
	uint64_t feat;
	const char *peer;
	uint64_t seed;
	uint32_t count, rev_count;
};

static uint64_t env_u64(const char *name, uint64_t dflt)
{
	const char *v = getenv(name);

	return v && *v ? strtoull(v, NULL, 0) : dflt;
}

/* case @name is a word of $TXRDMA_MSG_SKIP */
static bool case_skipped(const char *name)
{
	const char *v = getenv("TXRDMA_MSG_SKIP");
	size_t n = strlen(name);

	while (v && *v) {
		v += strspn(v, " ");
		if (!strncmp(v, name, n) && (v[n] == ' ' || !v[n]))
			return true;
		v += strcspn(v, " ");
	}
	return false;
}

FIXTURE_SETUP(msg)
{
	const char *role = getenv("TXRDMA_MSG_ROLE");
	struct txrdma_ctx *ctx;
	__u64 feat;

	self->peer = getenv("TXRDMA_MSG_PEER");
	if (!role || !self->peer || !*self->peer) {
		self->skip = true;
		SKIP(return, "two hosts: TXRDMA_MSG_ROLE=server|client and TXRDMA_MSG_PEER=<the other's peer name> (msg_guest.sh)");
	}
	if (case_skipped(_metadata->name)) {
		self->skip = true;
		SKIP(return, "%s: in TXRDMA_MSG_SKIP (\"%s\")",
		     _metadata->name, getenv("TXRDMA_MSG_SKIP"));
	}
	ASSERT_TRUE(!strcmp(role, "server") || !strcmp(role, "client"))
		TH_LOG("TXRDMA_MSG_ROLE=%s", role);
	self->server = !strcmp(role, "server");
	ASSERT_EQ(0, tenant_status) TH_LOG("%s", tenant_error);
	ASSERT_EQ(0, txrdma_open(&ctx, 0));
	feat = txrdma_features(ctx);
	txrdma_close(ctx);
	self->feat = feat;
	if (!(feat & TXRDMA_FEAT_MESSAGES)) {
		self->skip = true;
		SKIP(return, "the module has no endpoint pairs (features %#llx)",
		     (unsigned long long)feat);
	}
	self->seed = env_u64("TXRDMA_MSG_SEED", 0x20261130);
	self->count = env_u64("TXRDMA_MSG_COUNT", 100000);
	self->rev_count = env_u64("TXRDMA_MSG_REV_COUNT", 20000);
}

FIXTURE_TEARDOWN(msg)
{
	/* a throttle case that failed half-way: unlimited again */
	if (self->throttled && tenant_unthrottle())
		TH_LOG("could not make tenant %s unlimited again", TENANT);
	self->throttled = false;
}

#define NEED_PAIR() do { if (self->skip) return; } while (0)

/* ---- server: the stream, slow receiver and bad input cases ------------- */

/*
 * Accept on the case's service with a ring of @rx_units, read the hello,
 * then receive the client's stream (pausing as the hello says) while
 * sending the stream it asks for back; report a summary; wait for the
 * client's reset.  Everything it saw is asserted here too.
 */
static void server_case(struct __test_metadata *_metadata,
			FIXTURE_DATA(msg) *self, uint32_t kase,
			uint32_t rx_units, uint32_t nslots, uint32_t slot_size,
			double secs)
{
	struct txstream tx;
	struct rxstream rx;
	struct side s;
	struct ctl h, sum;
	uint32_t extra = 0, unexpected = 0, since_pause = 0;
	bool done = false, sent;
	double t0, end, dt;
	int ret = 0;

	side_open(_metadata, &s, 256, rx_units, nslots, slot_size);
	if (kase == CASE_AHEAD)
		s.ep_flags = TXRDMA_EP_F_RX_AHEAD;
	side_accept(_metadata, &s, self->peer, SVC(kase), ACCEPT_S);
	wait_hello(_metadata, &s, kase, &h);
	ASSERT_LE(h.rev_max_len, s.ep.max_msg);
	ASSERT_LE(h.rev_max_len, slot_size);
	TH_LOG("case %u: %u messages of 1..%u bytes to receive, seed %#llx; %u of 1..%u to send; ring %u units",
	       kase, h.count, h.max_len, (unsigned long long)h.seed,
	       h.rev_count, h.rev_max_len, rx_units);
	rxs_init(&rx, &(struct gen){ h.seed, h.count, h.max_len, h.fixed_len },
		 KEY_FWD);
	tx_init(_metadata, &tx,
		&(struct gen){ h.seed ^ KEY_REV, h.rev_count, h.rev_max_len, 0 },
		KEY_REV);
	s.tx = &tx;
	if (h.pause_ms)
		msleep(h.pause_ms);	/* slow: the client's SENDs wait */
	t0 = now_s();
	end = t0 + secs;
	while (now_s() < end && (!done || tx.completed < tx.g.count)) {
		const uint8_t *p;
		uint32_t len, progress;

		progress = tx_post(_metadata, &s, &tx) + reap(&s);
		while (!done && (ret = rx_take(&s, &p, &len)) == 1) {
			if (!is_ctl(p, len))
				rxs_msg(&rx, p, len);
			else if (((const struct ctl *)p)->type == CTL_DONE)
				done = true;
			else
				unexpected++;
			rx_done(&s);
			progress++;
			if (h.pause_every && ++since_pause == h.pause_every) {
				since_pause = 0;
				msleep(20);
			}
		}
		if (ret < 0)
			break;
		if (!progress)
			idle(&s);
	}
	dt = now_s() - t0;
	TH_LOG("received %u messages, %llu bytes in %.1f s (%.1f MB/s); sent %u of %u; most units unreleased %u of %u; RECV CQEs %u",
	       rx.n, (unsigned long long)rx.bytes, dt,
	       rx.bytes / 1e6 / (dt > 0 ? dt : 1), tx.completed, tx.g.count,
	       s.max_ready, rx_units, s.recv_cqes);

	sum = (struct ctl){
		.magic = CTL_MAGIC, .type = CTL_SUMMARY, .kase = kase,
		.n = rx.n, .lost = rx.lost, .dup = rx.dup,
		.bad_len = rx.bad_len, .bad_data = rx.bad_data,
		.bad_hdr = s.bad_hdr, .max_ready = s.max_ready,
		.rx_units = rx_units, .rev_done = tx.completed,
		.rev_bad = tx.bad_res + tx.dup + tx.unknown,
		.bytes = rx.bytes, .hash = rx.hash,
	};
	/* whether it went: wait_reset() sets rx_err when the ring ends */
	sent = !s.rx_err;
	if (sent)
		ctl_send(_metadata, &s, &sum);
	ret = wait_reset(&s, CASE_S, &extra);

	EXPECT_TRUE(done) TH_LOG("no end of the stream from the client");
	EXPECT_EQ(-ECONNRESET, ret) TH_LOG("the ring ended with %d", ret);
	EXPECT_EQ(ECONNRESET, rx_error_word(&s));
	EXPECT_EQ(h.count, rx.n);
	EXPECT_EQ(0, rx.lost + rx.dup + rx.bad_len + rx.bad_data)
		TH_LOG("%u lost, %u duplicated or out of order, %u of a wrong length, %u with wrong bytes; first: %s",
		       rx.lost, rx.dup, rx.bad_len, rx.bad_data, rx.err);
	EXPECT_EQ(0, s.bad_hdr) TH_LOG("%u frame headers wrong; first: %s",
				       s.bad_hdr, s.hdr_err);
	/* hello, the stream, done: one frame each */
	EXPECT_EQ(h.count + 2, s.rx_frames);
	EXPECT_EQ(0, unexpected + extra);
	EXPECT_LE(s.max_ready, rx_units);
	EXPECT_EQ(tx.g.count, tx.completed) {
		char st[320];

		TH_LOG("%s", ring_state(&s, st, sizeof(st)));
	}
	EXPECT_EQ(0, tx.bad_res) TH_LOG("%s", tx.err);
	EXPECT_EQ(0, tx.dup + tx.unknown);
	EXPECT_EQ(0, tx.order_err);
	expect_ctl_at_reset(_metadata, &s, sent);
	EXPECT_EQ(0, s.stray_cqes);
	EXPECT_EQ(0, txrdma_cq_overflow(&s.cq));
	EXPECT_EQ(0, txrdma_sq_dropped(&s.sq));
	if (kase == CASE_AHEAD) {
		/* byte-exact above, and some of it before the kernel's tail */
		TH_LOG("%u of %u frames taken ahead of the kernel",
		       txrdma_rx_ahead_taken(&s.rx), s.rx_frames);
		EXPECT_LT(0, txrdma_rx_ahead_taken(&s.rx));
	}
	if (kase == CASE_COALESCE) {
		/* the pair is closed; its endpoint and counters remain */
		int64_t batches = ep_stat(s.ep.id, "rx_batches");

		TH_LOG("received %lld writes that carried several frames; sent %lld frames in another's write",
		       (long long)batches,
		       (long long)ep_stat(s.ep.id, "tx_coalesced"));
		EXPECT_LT(0, batches);
	}
	tx_free(&tx);
	side_close(&s);
}

/* ---- client side ---------------------------------------------------------- */

/*
 * Send the hello and @count messages of 1..@max_len bytes, receive
 * @rev_count (of 1..@rev_max_len) and the server's summary; check
 * everything; destroy the endpoint (the end of the case for the server).
 * With @all_at_once, all the messages go in one batch (SQ and slots
 * hold them all).
 */
static void client_run(struct __test_metadata *_metadata, struct side *s,
		       struct ctl *hello, bool all_at_once, double secs)
{
	struct gen fwd = { hello->seed, hello->count, hello->max_len,
			   hello->fixed_len };
	struct gen rev = { hello->seed ^ KEY_REV, hello->rev_count,
			   hello->rev_max_len, 0 };
	struct ctl sum = { 0 }, done = { .magic = CTL_MAGIC, .type = CTL_DONE,
				     .kase = hello->kase };
	struct txstream tx;
	struct rxstream rx;
	uint32_t sums = 0, n;
	/* SQEs refused before (bad_input's on purpose): none from here on */
	unsigned int dropped0 = txrdma_sq_dropped(&s->sq);
	bool done_sent = false;
	double t0, end, dt;
	int ret = 0;

	ASSERT_LE(hello->max_len, s->ep.max_msg);
	ASSERT_LE(hello->max_len, s->slot_size);
	tx_init(_metadata, &tx, &fwd, KEY_FWD);
	rxs_init(&rx, &rev, KEY_REV);
	s->tx = &tx;
	ctl_send(_metadata, s, hello);
	t0 = now_s();
	end = t0 + secs;
	if (all_at_once) {
		n = tx_post(_metadata, s, &tx);
		ASSERT_EQ(hello->count, n) TH_LOG("posted %u in one batch", n);
	}
	while (now_s() < end) {
		const uint8_t *p;
		uint32_t len, progress;

		progress = tx_post(_metadata, s, &tx) + reap(s);
		while ((ret = rx_take(s, &p, &len)) == 1) {
			if (is_ctl(p, len)) {
				memcpy(&sum, p, sizeof(sum));
				sums++;
			} else {
				rxs_msg(&rx, p, len);
			}
			rx_done(s);
			progress++;
		}
		if (ret < 0 || (sums && done_sent &&
				s->ctl_done == s->ctl_posted))
			break;
		if (!done_sent && tx.completed == tx.g.count) {
			ctl_send(_metadata, s, &done);
			done_sent = true;
			progress++;
		}
		if (!progress)
			idle(s);
	}
	dt = now_s() - t0;
	TH_LOG("sent %u messages, %llu bytes (%llu frame units) in %.1f s (%.1f MB/s); received %u of %u back; RECV CQEs %u",
	       tx.completed, (unsigned long long)tx.bytes,
	       (unsigned long long)tx.units, dt,
	       tx.bytes / 1e6 / (dt > 0 ? dt : 1), rx.n, rev.count,
	       s->recv_cqes);

	/* our SENDs: one CQE each, res == len */
	EXPECT_EQ(0, ret) TH_LOG("our ring failed: %d", ret);
	EXPECT_TRUE(done_sent);
	EXPECT_EQ(fwd.count, tx.posted);
	EXPECT_EQ(fwd.count, tx.completed) {
		char st[320];

		TH_LOG("%s", ring_state(s, st, sizeof(st)));
	}
	EXPECT_EQ(0, tx.bad_res) TH_LOG("%u SEND CQEs wrong; first: %s",
					tx.bad_res, tx.err);
	EXPECT_EQ(0, tx.dup) TH_LOG("CQEs for the same SQE twice");
	EXPECT_EQ(0, tx.unknown) TH_LOG("CQEs for SQEs never posted");
	EXPECT_EQ(0, tx.order_err) TH_LOG("%u SEND CQEs came before an earlier SEND's",
					  tx.order_err);
	EXPECT_EQ(s->ctl_posted, s->ctl_done);
	EXPECT_EQ(0, s->ctl_bad);
	EXPECT_EQ(0, s->stray_cqes);
	/* what came back: the server's stream, then its summary */
	EXPECT_EQ(rev.count, rx.n);
	EXPECT_EQ(0, rx.lost + rx.dup + rx.bad_len + rx.bad_data)
		TH_LOG("%u lost, %u duplicated or out of order, %u of a wrong length, %u with wrong bytes; first: %s",
		       rx.lost, rx.dup, rx.bad_len, rx.bad_data, rx.err);
	EXPECT_EQ(0, s->bad_hdr) TH_LOG("%s", s->hdr_err);
	EXPECT_EQ(rev.count + 1, s->rx_frames);
	EXPECT_LE(s->max_ready, s->rx_units);
	ASSERT_EQ(1, sums) TH_LOG("no summary from the server");
	/* what the server says it received */
	EXPECT_EQ(CTL_SUMMARY, sum.type);
	EXPECT_EQ(hello->kase, sum.kase);
	EXPECT_EQ(fwd.count, sum.n);
	EXPECT_EQ(tx.bytes, sum.bytes);
	EXPECT_EQ(tx.hash, sum.hash) TH_LOG("the server's checksum differs");
	EXPECT_EQ(0, sum.lost + sum.dup + sum.bad_len + sum.bad_data)
		TH_LOG("server: %u lost, %u duplicated, %u wrong length, %u wrong bytes",
		       sum.lost, sum.dup, sum.bad_len, sum.bad_data);
	EXPECT_EQ(0, sum.bad_hdr);
	EXPECT_LE(sum.max_ready, sum.rx_units);
	EXPECT_EQ(rev.count, sum.rev_done);
	EXPECT_EQ(0, sum.rev_bad);
	EXPECT_EQ(0, rx_error_word(s));
	EXPECT_EQ(0, txrdma_cq_overflow(&s->cq));
	/* and the SENDs of no region (coalesce) the kernel refused */
	EXPECT_EQ(dropped0 + s->bad_posted, txrdma_sq_dropped(&s->sq));
	*hello = sum;		/* for the caller's own checks */
	tx_free(&tx);
	if (s->want_stats) {
		s->tx_coalesced = ep_stat(s->ep.id, "tx_coalesced");
		s->rx_batches = ep_stat(s->ep.id, "rx_batches");
		s->credit_stalls = ep_stat(s->ep.id, "credit_stalls");
	}
	/* the end of the case for the server */
	EXPECT_EQ(0, txrdma_ep_destroy(s->ctx, s->ep.id));
	s->connected = false;
}

/* ---- a: the stream ------------------------------------------------------- */

TEST_F_TIMEOUT(msg, stream, STREAM_S + 300)
{
	struct side s;
	struct ctl h;

	NEED_PAIR();
	if (self->server) {
		server_case(_metadata, self, CASE_STREAM, 8192, 128, 64 << 10,
			    STREAM_S);
		return;
	}
	side_open(_metadata, &s, 256, 4096, 128, 64 << 10);
	side_connect(_metadata, &s, self->peer, SVC(CASE_STREAM), CONNECT_S);
	/* the server's 8192 units take the largest message */
	EXPECT_EQ(TXRDMA_FRAME_MAX_PAYLOAD, s.ep.max_msg);
	h = (struct ctl){
		.magic = CTL_MAGIC, .type = CTL_HELLO, .kase = CASE_STREAM,
		.seed = self->seed,
		.count = self->count, .max_len = TXRDMA_FRAME_MAX_PAYLOAD,
		.rev_count = self->rev_count,
		.rev_max_len = TXRDMA_FRAME_MAX_PAYLOAD,
	};
	TH_LOG("seed %#llx: %u messages of 1..%u bytes (log-uniform) to %s, %u back",
	       (unsigned long long)h.seed, h.count, h.max_len, self->peer,
	       h.rev_count);
	client_run(_metadata, &s, &h, false, STREAM_S);
	/*
	 * The kernel reported what we released in the messages it sent
	 * (and in updates), and never more than we released
	 */
	{
		uint32_t head = *(uint32_t *)((char *)s.reg.addr +
					      TXRDMA_RX_OFF_HEAD);
		uint32_t reported = rx_kword(&s, TXRDMA_RX_OFF_REPORTED);

		if (h.rev_count)
			EXPECT_NE(0, reported);
		EXPECT_LE(head - reported, s.rx_units)
			TH_LOG("head %u, reported %u", head, reported);
	}
	side_close(&s);
}

/* ---- a2: reading ahead ------------------------------------------------------ */

/*
 * Both sides read frames ahead of their kernels (TXRDMA_EP_F_RX_AHEAD)
 * while frames of up to 8 KiB land in their rings: those up to 4096
 * bytes carry a trailer and are taken as soon as they check out, the
 * others wait for the kernel.  Every message must arrive byte-exact, in
 * order, once (a torn frame would fail the hash or the length), and
 * some must have been taken before the kernel published them.  The
 * count is twice the stream's, from 2000 up to AHEAD_COUNT: the debug
 * kernel's lane (a stream of 1,000) took 72 s for 20,000.
 */
#define AHEAD_COUNT	20000
#define AHEAD_MIN	2000

TEST_F_TIMEOUT(msg, read_ahead, CONNECT_S + CASE_S * 3)
{
	uint64_t n = (uint64_t)self->count * 2;
	uint32_t taken;
	struct side s;
	struct ctl h;

	NEED_PAIR();
	n = n < AHEAD_MIN ? AHEAD_MIN : n > AHEAD_COUNT ? AHEAD_COUNT : n;
	if (self->server) {
		server_case(_metadata, self, CASE_AHEAD, 4096, 128, 8192,
			    CASE_S);
		return;
	}
	side_open(_metadata, &s, 256, 4096, 128, 8192);
	s.ep_flags = TXRDMA_EP_F_RX_AHEAD;
	side_connect(_metadata, &s, self->peer, SVC(CASE_AHEAD), CONNECT_S);
	h = (struct ctl){
		.magic = CTL_MAGIC, .type = CTL_HELLO, .kase = CASE_AHEAD,
		.seed = self->seed ^ CASE_AHEAD,
		.count = n, .max_len = 8192,
		.rev_count = n / 2, .rev_max_len = 8192,
	};
	client_run(_metadata, &s, &h, false, CASE_S);
	taken = txrdma_rx_ahead_taken(&s.rx);
	TH_LOG("%u of %u frames taken ahead of the kernel", taken,
	       s.rx_frames);
	EXPECT_LT(0, taken);
	EXPECT_LE(taken, s.rx_frames);
	side_close(&s);
}

/* ---- a3: coalescing --------------------------------------------------------- */

#define COAL_COUNT	1500
#define COAL_UNITS	256
#define COAL_MAX	1024
#define COAL_BAD_EVERY	8

TEST_F_TIMEOUT(msg, coalesce, CONNECT_S + CASE_S * 3)
{
	struct side s;
	struct ctl h;

	NEED_PAIR();
	if (self->server) {
		server_case(_metadata, self, CASE_COALESCE, COAL_UNITS, 16,
			    COAL_MAX, CASE_S);
		return;
	}
	side_open(_metadata, &s, 4096, 1024, COAL_COUNT, COAL_MAX);
	s.bad_every = COAL_BAD_EVERY;
	s.want_stats = true;
	side_connect(_metadata, &s, self->peer, SVC(CASE_COALESCE),
		     CONNECT_S);
	ASSERT_LE(COAL_MAX, s.ep.max_msg);
	h = (struct ctl){
		.magic = CTL_MAGIC, .type = CTL_HELLO, .kase = CASE_COALESCE,
		.seed = self->seed ^ CASE_COALESCE,
		.count = COAL_COUNT, .max_len = COAL_MAX,
		.rev_count = COAL_COUNT, .rev_max_len = COAL_MAX,
		.pause_ms = 100, .pause_every = 300,
	};
	client_run(_metadata, &s, &h, true, CASE_S);
	TH_LOG("%lld of %u SENDs left in another's write; %lld writes received carried several frames; %u SENDs of no region; %lld credit stalls",
	       (long long)s.tx_coalesced, COAL_COUNT, (long long)s.rx_batches,
	       s.bad_posted, (long long)s.credit_stalls);
	/* every bad SEND once, -ENOENT, the stream unharmed (client_run) */
	EXPECT_EQ(COAL_COUNT / COAL_BAD_EVERY, s.bad_posted);
	EXPECT_EQ(s.bad_posted, s.bad_seen);
	EXPECT_EQ(0, s.bad_dup);
	EXPECT_EQ(0, s.bad_wrong) TH_LOG("a bad SEND completed with %d",
					 s.bad_res);
	/* the SQ held them together: writes carried several frames */
	EXPECT_LT(0, s.tx_coalesced);
	EXPECT_GT(COAL_COUNT, s.tx_coalesced);
	/* and the credits ran out on the way (the server's ring is small) */
	EXPECT_LT(0, s.credit_stalls);
	side_close(&s);
}

/* ---- b: a slow receiver ---------------------------------------------------- */

#define SLOW_UNITS	256
#define SLOW_COUNT	1000

TEST_F_TIMEOUT(msg, slow_receiver, CONNECT_S + CASE_S * 3)
{
	struct side s;
	struct ctl h;

	NEED_PAIR();
	if (self->server) {
		server_case(_metadata, self, CASE_SLOW, SLOW_UNITS, 4, 4096,
			    CASE_S);
		return;
	}
	side_open(_metadata, &s, 1024, 1024, 1024, 8192);
	side_connect(_metadata, &s, self->peer, SVC(CASE_SLOW), CONNECT_S);
	/* a frame fits the server's ring */
	ASSERT_LE(s.ep.max_msg + TXRDMA_FRAME_HDR_LEN,
		  (uint32_t)SLOW_UNITS * TXRDMA_FRAME_UNIT);
	h = (struct ctl){
		.magic = CTL_MAGIC, .type = CTL_HELLO, .kase = CASE_SLOW,
		.seed = self->seed ^ CASE_SLOW,
		.count = SLOW_COUNT, .max_len = s.ep.max_msg,
		.pause_ms = 200, .pause_every = 100,
	};
	client_run(_metadata, &s, &h, true, CASE_S);
	/* it was many rings' worth, and the receiver never held more */
	EXPECT_EQ(SLOW_UNITS, h.rx_units);
	EXPECT_LE(h.max_ready, h.rx_units);
	TH_LOG("the server held at most %u of its %u units unreleased",
	       h.max_ready, h.rx_units);
	side_close(&s);
}

/* ---- c: bad input ---------------------------------------------------------- */

/*
 * A process of tenant msg-o makes a region and keeps it until @hold is
 * closed; its id goes to *@id.
 */
static pid_t other_tenant_region(struct __test_metadata *_metadata,
				 uint32_t *id, int *hold)
{
	int up[2], down[2];
	pid_t pid;

	ASSERT_EQ(0, pipe(up));
	ASSERT_EQ(0, pipe(down));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct txrdma_ctx *ctx;
		struct txrdma_region r;
		uint32_t v = 0;
		char c;

		close(up[0]);
		close(down[1]);
		if (!cg_enter(CG_OTHER) && !txrdma_open(&ctx, 0) &&
		    !txrdma_region_create(ctx, HUGE, 0, &r))
			v = r.id;
		if (write(up[1], &v, sizeof(v)) != sizeof(v))
			_exit(1);
		/* until the test closes its end */
		while (read(down[0], &c, 1) > 0)
			;
		_exit(0);
	}
	close(up[1]);
	close(down[0]);
	*hold = down[1];
	ASSERT_EQ((ssize_t)sizeof(*id), read(up[0], id, sizeof(*id)));
	close(up[0]);
	ASSERT_NE(0, *id) TH_LOG("tenant msg-o could not make a region");
	return pid;
}

/* a raw CONNECT/ACCEPT request that is right but for what a test spoils */
static void raw_req(struct txrdma_ep_connect *r, const char *peer,
		    uint32_t svc, const struct side *s)
{
	memset(r, 0, sizeof(*r));
	if (peer)
		snprintf((char *)r->peer, sizeof(r->peer), "%s", peer);
	r->service = svc;
	r->rx_region = s->reg.id;
	r->rx_units = 64;
	r->timeout_ms = 2000;
}

static int raw_ioctl(const struct side *s, unsigned long cmd, void *arg)
{
	return ioctl(txrdma_fd(s->ctx), cmd, arg) ? -errno : 0;
}

/* receive rings that are wrong, with what is wrong */
static const struct bad_ring {
	const char *what;
	uint32_t units;
	uint64_t off;
	bool from_end;		/* off counts back from the region's end */
	uint32_t flags;
} bad_rings[] = {
	{ "units not a power of two", 100, 0, false, 0 },
	{ "units 0", 0, 0, false, 0 },
	{ "units below the minimum", TXRDMA_RX_MIN_UNITS / 2, 0, false, 0 },
	{ "units above the maximum", TXRDMA_RX_MAX_UNITS * 2, 0, false, 0 },
	{ "offset not 64-byte aligned", 64, 32, false, 0 },
	{ "area past the region's end", 16, 64, true, 0 },
	{ "area at the region's end", 16, 0, true, 0 },
	{ "area across a page of the region", 64, HUGE - 1024, false, 0 },
	{ "unknown flag", 64, 0, false, 1u << 7 },
};

static void client_bad(struct __test_metadata *_metadata,
		       FIXTURE_DATA(msg) *self)
{
	struct txrdma_ep_connect r;
	struct txrdma_ep_pair out;
	struct txrdma_ep_listen l;
	struct txrdma_region_info ri;
	struct txrdma_region reg2;
	struct txrdma_ctx *ctx2;
	struct txrdma_ep_params p;
	struct side s;
	struct ctl h;
	uint32_t other_id = 0, max;
	int hold = -1, st;
	pid_t pid;

	side_open(_metadata, &s, 64, 1024, 4, 64 << 10);

	/* listen: service 0, flags, reserved fields; twice; accept without */
	EXPECT_EQ(-EINVAL, txrdma_ep_listen(s.ctx, 0));
	l = (struct txrdma_ep_listen){ .service = SVC_TWICE, .flags = 1 };
	EXPECT_EQ(-EINVAL, raw_ioctl(&s, TXRDMA_IOC_EP_LISTEN, &l));
	l = (struct txrdma_ep_listen){ .service = SVC_TWICE, .resv[1] = 1 };
	EXPECT_EQ(-EINVAL, raw_ioctl(&s, TXRDMA_IOC_EP_LISTEN, &l));
	EXPECT_EQ(0, txrdma_ep_listen(s.ctx, SVC_TWICE));
	EXPECT_EQ(-EADDRINUSE, txrdma_ep_listen(s.ctx, SVC_TWICE));
	p = side_params(&s, SVC_NOT_LISTENED);
	p.timeout_ms = 1000;
	EXPECT_EQ(-EINVAL, txrdma_ep_accept(s.ctx, &p, &out));
	raw_req(&r, NULL, SVC_NOT_LISTENED, &s);
	EXPECT_EQ(-EINVAL, raw_ioctl(&s, TXRDMA_IOC_EP_ACCEPT, &r));
	/* accept on a service we listen on, with a wrong ring or a name */
	raw_req(&r, NULL, SVC_TWICE, &s);
	r.rx_units = 100;
	EXPECT_EQ(-EINVAL, raw_ioctl(&s, TXRDMA_IOC_EP_ACCEPT, &r));
	raw_req(&r, self->peer, SVC_TWICE, &s);
	EXPECT_EQ(-EINVAL, raw_ioctl(&s, TXRDMA_IOC_EP_ACCEPT, &r));
	/* the connector picks the grace, not the acceptor */
	raw_req(&r, NULL, SVC_TWICE, &s);
	r.grace_ms = 500;
	EXPECT_EQ(-EINVAL, raw_ioctl(&s, TXRDMA_IOC_EP_ACCEPT, &r));

	/* connect and accept without rings */
	ASSERT_EQ(0, txrdma_open(&ctx2, 0));
	ASSERT_EQ(0, txrdma_region_create(ctx2, HUGE, 0, &reg2));
	p = (struct txrdma_ep_params){ .service = SVC_NONE,
		.rx_region = reg2.id, .rx_units = 64, .timeout_ms = 2000 };
	EXPECT_EQ(-ENXIO, txrdma_ep_connect(ctx2, self->peer, &p, &out));
	raw_req(&r, NULL, SVC_NONE, &s);
	r.rx_region = reg2.id;
	EXPECT_EQ(-ENXIO, ioctl(txrdma_fd(ctx2), TXRDMA_IOC_EP_ACCEPT, &r) ?
			  -errno : 0);
	txrdma_region_destroy(ctx2, &reg2);
	txrdma_close(ctx2);

	/* wrong receive rings: the kernel's checks, and the library's */
	for (size_t i = 0; i < sizeof(bad_rings) / sizeof(bad_rings[0]); i++) {
		const struct bad_ring *b = &bad_rings[i];
		uint64_t off = b->from_end ? s.reg.size - b->off : b->off;

		raw_req(&r, self->peer, SVC_NONE, &s);
		r.rx_units = b->units;
		r.rx_off = off;
		r.flags = b->flags;
		EXPECT_EQ(-EINVAL, raw_ioctl(&s, TXRDMA_IOC_EP_CONNECT, &r))
			TH_LOG("connect, %s", b->what);
		/* the library's units 0 is its default ring, not an error */
		if (!b->units)
			continue;
		p = (struct txrdma_ep_params){ .service = SVC_NONE,
			.flags = b->flags, .rx_region = s.reg.id,
			.rx_units = b->units, .rx_off = off,
			.timeout_ms = 2000 };
		EXPECT_EQ(-EINVAL, txrdma_ep_connect(s.ctx, self->peer, &p,
						     &out))
			TH_LOG("library connect, %s", b->what);
	}
	/* a longest message above what the ring takes: both refuse it */
	raw_req(&r, self->peer, SVC_NONE, &s);
	r.rx_max_msg = r.rx_units / 2 * TXRDMA_FRAME_UNIT -
		       TXRDMA_FRAME_HDR_LEN + 1;
	EXPECT_EQ(-EINVAL, raw_ioctl(&s, TXRDMA_IOC_EP_CONNECT, &r));
	raw_req(&r, self->peer, SVC_NONE, &s);
	r.rx_max_msg = TXRDMA_FRAME_MAX_PAYLOAD + 1;
	EXPECT_EQ(-EINVAL, raw_ioctl(&s, TXRDMA_IOC_EP_CONNECT, &r));
	p = side_params(&s, SVC_NONE);
	p.rx_max_msg = p.rx_units / 2 * TXRDMA_FRAME_UNIT -
		       TXRDMA_FRAME_HDR_LEN + 1;
	EXPECT_EQ(-EINVAL, txrdma_ep_connect(s.ctx, self->peer, &p, &out));
	/* reserved and output fields, names */
	raw_req(&r, self->peer, SVC_NONE, &s);
	r.resv0 = 1;
	EXPECT_EQ(-EINVAL, raw_ioctl(&s, TXRDMA_IOC_EP_CONNECT, &r));
	raw_req(&r, self->peer, SVC_NONE, &s);
	r.resv1 = 1;
	EXPECT_EQ(-EINVAL, raw_ioctl(&s, TXRDMA_IOC_EP_CONNECT, &r));
	/* a grace only for a session, and at most TXRDMA_EP_GRACE_MAX_MS */
	raw_req(&r, self->peer, SVC_NONE, &s);
	r.grace_ms = 500;
	EXPECT_EQ(-EINVAL, raw_ioctl(&s, TXRDMA_IOC_EP_CONNECT, &r));
	raw_req(&r, self->peer, SVC_NONE, &s);
	r.flags = TXRDMA_EP_F_SESSION;
	r.grace_ms = TXRDMA_EP_GRACE_MAX_MS + 1;
	EXPECT_EQ(-EINVAL, raw_ioctl(&s, TXRDMA_IOC_EP_CONNECT, &r));
	EXPECT_EQ(-EINVAL, txrdma_ep_connect_session(s.ctx, self->peer, &p,
						     TXRDMA_EP_GRACE_MAX_MS + 1,
						     &out));
	raw_req(&r, self->peer, SVC_NONE, &s);
	r.id = 5;
	EXPECT_EQ(-EINVAL, raw_ioctl(&s, TXRDMA_IOC_EP_CONNECT, &r));
	raw_req(&r, self->peer, 0, &s);
	EXPECT_EQ(-EINVAL, raw_ioctl(&s, TXRDMA_IOC_EP_CONNECT, &r));
	raw_req(&r, NULL, SVC_NONE, &s);
	EXPECT_EQ(-EINVAL, raw_ioctl(&s, TXRDMA_IOC_EP_CONNECT, &r));
	memset(r.peer, 'a', sizeof(r.peer));	/* no NUL */
	EXPECT_EQ(-EINVAL, raw_ioctl(&s, TXRDMA_IOC_EP_CONNECT, &r));

	/* a service nobody serves on the peer */
	p = side_params(&s, SVC_NONE);
	EXPECT_EQ(-ECONNREFUSED, txrdma_ep_connect(s.ctx, self->peer, &p,
						   &out));

	/* the pair: bad SQEs on it, each completing with its error */
	pid = other_tenant_region(_metadata, &other_id, &hold);
	memset(&ri, 0, sizeof(ri));
	ri.id = other_id;
	EXPECT_EQ(-EACCES, raw_ioctl(&s, TXRDMA_IOC_REGION_INFO, &ri))
		TH_LOG("region %u should be tenant msg-o's", other_id);
	side_connect(_metadata, &s, self->peer, SVC(CASE_BAD), CONNECT_S);
	/* the server's ring of 256 units: max_msg is below 64 KiB */
	max = s.ep.max_msg;
	ASSERT_LE(max + TXRDMA_FRAME_HDR_LEN,
		  (uint32_t)SLOW_UNITS * TXRDMA_FRAME_UNIT);
	ASSERT_LE(max + 1, s.slot_size);
	EXPECT_EQ(-ENOENT, send_one(&s, s.ep.id + 0x10000, s.reg.id,
				    SLOTS_OFF, 64));
	EXPECT_EQ(s.ep.id + 0x10000, s.one.ep);
	EXPECT_EQ(TXRDMA_OP_SEND, s.one.opcode);
	EXPECT_EQ(-ENOENT, send_one(&s, 0, s.reg.id, SLOTS_OFF, 64));
	EXPECT_EQ(-ENOENT, send_one(&s, s.ep.id, 0x7fff0000, 0, 64))
		TH_LOG("unknown region");
	EXPECT_EQ(-ENOENT, send_one(&s, s.ep.id, other_id, 0, 64))
		TH_LOG("the other tenant's region %u", other_id);
	EXPECT_EQ(-EFAULT, send_one(&s, s.ep.id, s.reg.id, s.reg.size - 8, 64))
		TH_LOG("off + len past the region");
	EXPECT_EQ(-EFAULT, send_one(&s, s.ep.id, s.reg.id, s.reg.size, 1))
		TH_LOG("off at the region's end");
	EXPECT_EQ(-EFAULT, send_one(&s, s.ep.id, s.reg.id, ~0ULL - 7, 16))
		TH_LOG("off + len wrapping");
	EXPECT_EQ(-EMSGSIZE, send_one(&s, s.ep.id, s.reg.id, SLOTS_OFF,
				      max + 1))
		TH_LOG("len max_msg + 1 = %u", max + 1);
	/* longer than any frame: a malformed SQE (uapi: -EINVAL, length) */
	EXPECT_EQ(-EINVAL, send_one(&s, s.ep.id, s.reg.id, SLOTS_OFF,
				    TXRDMA_FRAME_MAX_PAYLOAD + 1))
		TH_LOG("len 64 KiB + 1");
	close(hold);
	ASSERT_EQ(pid, waitpid(pid, &st, 0));

	/*
	 * The pair works after all that: the edge sizes up to max_msg,
	 * checked byte by byte by the server, whose frame seq is unbroken
	 * from 0 (no refused SQE placed a frame).
	 */
	h = (struct ctl){
		.magic = CTL_MAGIC, .type = CTL_HELLO, .kase = CASE_BAD,
		.seed = self->seed ^ CASE_BAD, .count = 9, .max_len = max,
	};
	client_run(_metadata, &s, &h, false, CASE_S);
	side_close(&s);
}

TEST_F_TIMEOUT(msg, bad_input, CONNECT_S + CASE_S * 3)
{
	NEED_PAIR();
	if (self->server)
		server_case(_metadata, self, CASE_BAD, SLOW_UNITS, 4, 64 << 10,
			    CASE_S);
	else
		client_bad(_metadata, self);
}

/* ---- d: close while connected ---------------------------------------- */

#define CLOSE_UNITS	64	/* the client's ring */
#define CLOSE_SENDS	200	/* at least one unit each: more than it holds */

static void client_close(struct __test_metadata *_metadata,
			 FIXTURE_DATA(msg) *self)
{
	struct usage u0, u;
	struct txrdma_ep_info ei;
	struct rxstream rx;
	struct side s;
	struct ctl h;
	const uint8_t *p;
	uint32_t len;
	double end;
	int ret;

	EXPECT_TRUE(usage_idle(&u0))
		TH_LOG("before the case: qps %lld endpoints %lld pinned %lld (left by the cases before?)",
		       (long long)u0.qps, (long long)u0.eps,
		       (long long)u0.pinned);
	side_open(_metadata, &s, 64, CLOSE_UNITS, 4, 4096);
	side_connect(_metadata, &s, self->peer, SVC(CASE_CLOSE), CONNECT_S);
	ASSERT_EQ(0, usage_get(&u));
	EXPECT_EQ(u0.qps + 1, u.qps);
	EXPECT_EQ(u0.eps + 1, u.eps);
	/* the server sends more than our ring holds; we read none of it */
	h = (struct ctl){
		.magic = CTL_MAGIC, .type = CTL_HELLO, .kase = CASE_CLOSE,
		.seed = self->seed ^ CASE_CLOSE,
		.rev_count = CLOSE_SENDS, .rev_max_len = 256,
	};
	ASSERT_LE(h.rev_max_len, s.ep.max_msg);
	ctl_send(_metadata, &s, &h);
	rxs_init(&rx, &(struct gen){ h.seed ^ KEY_REV, h.rev_count,
				    h.rev_max_len, 0 }, KEY_REV);
	end = now_s() + CASE_S;
	while ((ret = rx_take(&s, &p, &len)) == 0 && now_s() < end) {
		reap(&s);
		idle(&s);
	}
	ASSERT_EQ(1, ret) TH_LOG("nothing from the server: %d", ret);
	rxs_msg(&rx, p, len);	/* held, not released */
	EXPECT_EQ(0, rx.lost + rx.dup + rx.bad_len + rx.bad_data)
		TH_LOG("%s", rx.err);
	EXPECT_EQ(0, s.bad_hdr) TH_LOG("%s", s.hdr_err);
	/* the hello was placed (the server answered): its CQE comes */
	end = now_s() + CQE_S;
	while (!reap(&s) && !s.ctl_done && now_s() < end)
		idle(&s);
	EXPECT_EQ(1, s.ctl_done);
	EXPECT_EQ(0, s.ctl_bad);

	/* close while the server's SENDs wait for our ring */
	EXPECT_EQ(0, txrdma_ep_destroy(s.ctx, s.ep.id));
	s.connected = false;
	memset(&ei, 0, sizeof(ei));
	ei.id = s.ep.id;
	EXPECT_EQ(-ENOENT, raw_ioctl(&s, TXRDMA_IOC_EP_INFO, &ei));
	EXPECT_EQ(-ENOENT, txrdma_ep_destroy(s.ctx, s.ep.id));
	EXPECT_TRUE(usage_wait(&u0, false, 10, &u))
		TH_LOG("after destroy: qps %lld endpoints %lld, before %lld %lld",
		       (long long)u.qps, (long long)u.eps, (long long)u0.qps,
		       (long long)u0.eps);
	side_close(&s);
	EXPECT_TRUE(usage_wait(&u0, true, 10, &u))
		TH_LOG("after close: qps %lld endpoints %lld pinned %lld, before %lld %lld %lld",
		       (long long)u.qps, (long long)u.eps, (long long)u.pinned,
		       (long long)u0.qps, (long long)u0.eps,
		       (long long)u0.pinned);
}

static void server_close(struct __test_metadata *_metadata,
			 FIXTURE_DATA(msg) *self)
{
	struct usage u0, u;
	struct txrdma_ep_info ei;
	struct txstream tx;
	struct side s;
	struct ctl h;
	uint32_t extra = 0, ok = 0, failed = 0, units = 0, prefix = 1, i;
	int32_t res;
	double end;
	int ret = 0;

	EXPECT_TRUE(usage_idle(&u0))
		TH_LOG("before the case: qps %lld endpoints %lld pinned %lld (left by the cases before?)",
		       (long long)u0.qps, (long long)u0.eps,
		       (long long)u0.pinned);
	side_open(_metadata, &s, 256, 1024, CLOSE_SENDS, 4096);
	side_accept(_metadata, &s, self->peer, SVC(CASE_CLOSE), ACCEPT_S);
	ASSERT_EQ(0, usage_get(&u));
	EXPECT_EQ(u0.qps + 1, u.qps);
	EXPECT_EQ(u0.eps + 1, u.eps);
	wait_hello(_metadata, &s, CASE_CLOSE, &h);
	ASSERT_EQ(CLOSE_SENDS, h.rev_count);
	ASSERT_LE(h.rev_max_len, s.ep.max_msg);
	/* all in one batch: the client's ring takes a few, the rest wait */
	tx_init(_metadata, &tx,
		&(struct gen){ h.seed ^ KEY_REV, h.rev_count, h.rev_max_len, 0 },
		KEY_REV);
	s.tx = &tx;
	ASSERT_EQ(CLOSE_SENDS, tx_post(_metadata, &s, &tx));
	ASSERT_LT(CLOSE_UNITS, tx.units);
	/* the client destroys its end: the frames we had, then the reset */
	end = now_s() + CASE_S;
	while (now_s() < end && (ret == 0 || tx.completed < tx.g.count)) {
		uint32_t progress = reap(&s);
		const uint8_t *p;
		uint32_t len;

		if (ret == 0) {
			ret = rx_take(&s, &p, &len);
			if (ret == 1) {
				extra++;
				rx_done(&s);
				progress++;
				ret = 0;
			}
		}
		if (!progress)
			idle(&s);
	}
	EXPECT_EQ(-ECONNRESET, ret) TH_LOG("the ring ended with %d", ret);
	EXPECT_EQ(ECONNRESET, rx_error_word(&s));
	EXPECT_EQ(0, extra);
	/* every SEND completed once: placed ones a prefix, the rest failed */
	EXPECT_EQ(tx.g.count, tx.completed);
	EXPECT_EQ(0, tx.dup + tx.unknown);
	for (i = 0; i < tx.completed && i < tx.g.count; i++) {
		res = tx.res[i];
		if (res == (int32_t)gen_len(&tx.g, i)) {
			ok++;
			units += frame_units(res);
			prefix &= ok == i + 1;
		} else if (res == -ECONNRESET || res == -ENOTCONN ||
			   res == -ECANCELED) {
			failed++;
		} else {
			TH_LOG("SEND %u: res %d", i, res);
		}
	}
	TH_LOG("%u SENDs placed (%u units of the client's %u) before the reset, %u failed",
	       ok, units, CLOSE_UNITS, failed);
	EXPECT_EQ(tx.g.count, ok + failed);
	EXPECT_TRUE(prefix) TH_LOG("the SENDs placed are not the first ones");
	EXPECT_LE(units, CLOSE_UNITS);
	EXPECT_LT(0, failed);
	/* a new SEND on the dead pair */
	res = send_one(&s, s.ep.id, s.reg.id, SLOTS_OFF, 64);
	EXPECT_TRUE(res == -ECONNRESET || res == -ENOTCONN)
		TH_LOG("SEND after the reset: %d", res);
	memset(&ei, 0, sizeof(ei));
	ei.id = s.ep.id;
	EXPECT_EQ(0, raw_ioctl(&s, TXRDMA_IOC_EP_INFO, &ei));
	EXPECT_EQ(-ECONNRESET, ei.error);
	EXPECT_EQ(0, s.stray_cqes);
	EXPECT_EQ(0, txrdma_cq_overflow(&s.cq));
	/* our failed endpoint: charged until destroyed */
	EXPECT_EQ(0, txrdma_ep_destroy(s.ctx, s.ep.id));
	s.connected = false;
	EXPECT_TRUE(usage_wait(&u0, false, 10, &u))
		TH_LOG("after destroy: qps %lld endpoints %lld, before %lld %lld",
		       (long long)u.qps, (long long)u.eps, (long long)u0.qps,
		       (long long)u0.eps);
	tx_free(&tx);
	side_close(&s);
	EXPECT_TRUE(usage_wait(&u0, true, 10, &u))
		TH_LOG("after close: qps %lld endpoints %lld pinned %lld, before %lld %lld %lld",
		       (long long)u.qps, (long long)u.eps, (long long)u.pinned,
		       (long long)u0.qps, (long long)u0.eps,
		       (long long)u0.pinned);
}

TEST_F_TIMEOUT(msg, close, CONNECT_S + CASE_S * 3)
{
	NEED_PAIR();
	if (self->server)
		server_close(_metadata, self);
	else
		client_close(_metadata, self);
}

/* ---- helpers of the one-sided, throttle and fuzz cases -------------------- */

#define NEED_ONE_SIDED() do {						\
	if (!(self->feat & TXRDMA_FEAT_ONE_SIDED))			\
		SKIP(return, "the module has no READ/WRITE (features %#llx)", \
		     (unsigned long long)self->feat);			\
} while (0)

/*
 * One READ or WRITE SQE as given; wait (bounded) for its CQE.  Returns
 * its res, or INT32_MIN when none came.
 */
static int32_t rw_one(struct side *s, enum txrdma_op op, uint32_t region,
		      uint64_t off, uint32_t len, uint32_t rregion,
		      uint64_t roff)
{
	uint32_t seen = s->one_seen;
	double end = now_s() + CQE_S;
	struct txrdma_sqe *sqe;

	reap(s);
	sqe = txrdma_get_sqe(&s->sq);
	if (!sqe)
		return INT32_MIN;
	if (op == TXRDMA_OP_READ)
		txrdma_prep_read(sqe, s->ep.id, region, off, len, rregion, roff,
				 UD_ONE | seen);
	else
		txrdma_prep_write(sqe, s->ep.id, region, off, len, rregion,
				  roff, UD_ONE | seen);
	if (txrdma_submit(s->ctx, &s->sq) < 0)
		return INT32_MIN;
	while (now_s() < end) {
		reap(s);
		if (s->one_seen != seen)
			return s->one.opcode == op ? s->one.res : INT32_MIN + 1;
		idle(s);
	}
	return INT32_MIN;
}

/*
 * TXRDMA_IOC_EP_EXPORT of [@off, @off + @len) of @region to our pair
 * (raw: the kernel's own checks; @access 0 revokes): 0 or -errno
 */
static int ep_export(const struct side *s, uint32_t region, uint32_t access,
		     uint64_t off, uint64_t len)
{
	struct txrdma_ep_export e = {
		.ep = s->ep.id, .region = region, .access = access,
		.timeout_ms = 5000, .off = off, .len = len,
	};

	return raw_ioctl(s, TXRDMA_IOC_EP_EXPORT, &e);
}

/* what the server exports in onesided and fuzz: all but the ring's page */
#define EXP_ACCESS	(TXRDMA_EXPORT_READ | TXRDMA_EXPORT_WRITE)
#define EXP_OFF		SLOTS_OFF

static bool info_is(const struct txrdma_export_info *x, uint32_t region,
		    uint32_t access, uint64_t off, uint64_t len)
{
	return x->region == region && x->access == access && x->off == off &&
	       x->len == len;
}

/* Wait (bounded) for the peer's next message: a control message @type. */
static void wait_ctl(struct __test_metadata *_metadata, struct side *s,
		     uint32_t type, double secs, struct ctl *m)
{
	double end = now_s() + secs;
	const uint8_t *p;
	uint32_t len;
	int ret;

	while ((ret = rx_take(s, &p, &len)) == 0 && now_s() < end) {
		reap(s);
		idle(s);
	}
	ASSERT_EQ(1, ret) TH_LOG("no control message %u from the peer: %d",
				 type, ret);
	ASSERT_TRUE(is_ctl(p, len)) TH_LOG("waiting for control message %u: %u bytes",
					   type, len);
	memcpy(m, p, sizeof(*m));
	rx_done(s);
	ASSERT_EQ(type, m->type);
}

static uint64_t area_hash(const uint8_t *p, size_t len)
{
	uint64_t h = len, w;
	size_t j;

	for (j = 0; j + 8 <= len; j += 8) {
		memcpy(&w, p + j, 8);
		h = mix64(h ^ w);
	}
	return h;
}

/* ---- e: one-sided READ and WRITE on an export ------------------------------ */

#define OS_AREA		(1U << 20)	/* the area read, and the one written */
#define OS_OPS		200
#define OS_MAX_LEN	(256U << 10)
#define OS_RD_OFF	SLOTS_OFF		/* server: read by the client */
#define OS_WR_OFF	(SLOTS_OFF + OS_AREA)	/* server: written by it */
#define KEY_RD		0x726561640000ULL
#define KEY_WR		0x777269746500ULL

/* range @i of the READs or WRITEs keyed @seed: in [0, OS_AREA) */
static void os_range(uint64_t seed, uint32_t i, uint64_t *off, uint32_t *len)
{
	struct gen g = { seed, OS_OPS, OS_MAX_LEN, 0 };

	*len = gen_len(&g, i);	/* 256 KiB, 1, 7, 8, ... then log-uniform */
	*off = mix64(seed ^ mix64(i) ^ 0x6f6666ULL) % (OS_AREA - *len + 1);
}

/* the written area as it must end: zero, but the ranges of the pattern */
static void os_expect(uint8_t *area, const uint8_t *pat, uint64_t seed)
{
	uint64_t off;
	uint32_t len, i;

	memset(area, 0, OS_AREA);
	for (i = 0; i < OS_OPS; i++) {
		os_range(seed, i, &off, &len);
		memcpy(area + off, pat + off, len);
	}
}

static void server_onesided(struct __test_metadata *_metadata,
			    FIXTURE_DATA(msg) *self)
{
	struct side s;
	struct ctl h, d, sum;
	uint8_t *pat, *want, *area;
	uint32_t other_id = 0, extra = 0, diff = 0, j;
	long first = -1;
	int hold = -1, st, ret;
	uint64_t hash;
	pid_t pid;

	/* 4 MiB: ring and control slots, the area read, the area written */
	side_open(_metadata, &s, 256, 1024, 2, OS_AREA);
	ASSERT_LE(OS_WR_OFF + OS_AREA, s.reg.size);
	pid = other_tenant_region(_metadata, &other_id, &hold);
	side_accept(_metadata, &s, self->peer, SVC(CASE_ONESIDED), ACCEPT_S);
	wait_hello(_metadata, &s, CASE_ONESIDED, &h);
	fill((uint8_t *)s.reg.addr + OS_RD_OFF, h.seed ^ KEY_RD, 0, OS_AREA);

	/*
	 * what may not be exported; then our region but its first page
	 * (the ring, the control slots), and nothing else
	 */
	EXPECT_EQ(-ENOENT, ep_export(&s, other_id, EXP_ACCESS, 0, 0))
		TH_LOG("export of tenant msg-o's region %u", other_id);
	EXPECT_EQ(-ENOENT, ep_export(&s, s.reg.id, 0, EXP_OFF,
				     s.reg.size - EXP_OFF))
		TH_LOG("revoke (access 0) of a range not exported");
	EXPECT_EQ(-EINVAL, ep_export(&s, s.reg.id, 1U << 2, EXP_OFF,
				     s.reg.size - EXP_OFF))
		TH_LOG("unknown access bit");
	EXPECT_EQ(-EADDRINUSE, ep_export(&s, s.reg.id, EXP_ACCESS, 0, 0))
		TH_LOG("the whole region: our receive ring is at offset 0");
	EXPECT_EQ(-EFAULT, ep_export(&s, s.reg.id, EXP_ACCESS, EXP_OFF,
				     s.reg.size - EXP_OFF + 1))
		TH_LOG("one byte past the region's end");
	ASSERT_EQ(0, ep_export(&s, s.reg.id, EXP_ACCESS, EXP_OFF,
			       s.reg.size - EXP_OFF));
	{
		struct txrdma_ep_exports q;

		ASSERT_EQ(0, txrdma_ep_exports(s.ctx, s.ep.id, &q));
		EXPECT_EQ(1, q.nexported);
		EXPECT_TRUE(info_is(&q.exported[0], s.reg.id, EXP_ACCESS,
				    EXP_OFF, s.reg.size - EXP_OFF))
			TH_LOG("exported[0]: region %u access %u off %llu len %llu",
			       q.exported[0].region, q.exported[0].access,
			       (unsigned long long)q.exported[0].off,
			       (unsigned long long)q.exported[0].len);
		EXPECT_EQ(0, q.nimported) TH_LOG("the client exports nothing");
	}
	close(hold);
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	ctl_send(_metadata, &s, &(struct ctl){
		.magic = CTL_MAGIC, .type = CTL_EXPORTED, .kase = CASE_ONESIDED,
		.region = s.reg.id, .region_size = s.reg.size });

	/* the client READs, WRITEs, then says done */
	wait_ctl(_metadata, &s, CTL_DONE, CASE_S, &d);
	pat = malloc(OS_AREA);
	want = malloc(OS_AREA);
	ASSERT_TRUE(pat && want);
	fill(pat, h.seed ^ KEY_WR, 0, OS_AREA);
	os_expect(want, pat, h.seed ^ KEY_WR);
	area = (uint8_t *)s.reg.addr + OS_WR_OFF;
	for (j = 0; j < OS_AREA; j++)
		if (area[j] != want[j] && !diff++)
			first = j;
	hash = area_hash(area, OS_AREA);
	TH_LOG("written area: %u bytes differ (first at %ld), hash %#llx, the client's %#llx",
	       diff, first, (unsigned long long)hash,
	       (unsigned long long)d.hash);
	sum = (struct ctl){
		.magic = CTL_MAGIC, .type = CTL_SUMMARY, .kase = CASE_ONESIDED,
		.bad_data = diff, .hash = hash,
	};
	ctl_send(_metadata, &s, &sum);
	ret = wait_reset(&s, CASE_S, &extra);

	EXPECT_EQ(0, diff);
	EXPECT_EQ(d.hash, hash);
	EXPECT_EQ(-ECONNRESET, ret) TH_LOG("the ring ended with %d", ret);
	EXPECT_EQ(0, extra);
	EXPECT_EQ(0, s.bad_hdr) TH_LOG("%s", s.hdr_err);
	expect_ctl_at_reset(_metadata, &s, true);
	EXPECT_EQ(0, txrdma_sq_dropped(&s.sq));
	free(pat);
	free(want);
	side_close(&s);
}

static void client_onesided(struct __test_metadata *_metadata,
			    FIXTURE_DATA(msg) *self)
{
	struct side s;
	struct ctl h, x, sum;
	uint8_t *rd_want, *wr_pat, *wr_want, *dst;
	uint32_t other_id = 0, rreg, len, i, j, bad_res = 0, bad_bytes = 0;
	uint64_t off, rsize, seed = self->seed ^ CASE_ONESIDED;
	uint64_t rd_bytes = 0, wr_bytes = 0;
	int hold = -1, st;
	int32_t res;
	double t0;
	pid_t pid;

	side_open(_metadata, &s, 256, 1024, 2, OS_AREA);
	pid = other_tenant_region(_metadata, &other_id, &hold);
	side_connect(_metadata, &s, self->peer, SVC(CASE_ONESIDED), CONNECT_S);
	h = (struct ctl){
		.magic = CTL_MAGIC, .type = CTL_HELLO, .kase = CASE_ONESIDED,
		.seed = seed,
	};
	ctl_send(_metadata, &s, &h);
	/* sent only once the export was stored here */
	wait_ctl(_metadata, &s, CTL_EXPORTED, CASE_S, &x);
	rreg = x.region;
	rsize = x.region_size;
	ASSERT_NE(0, rreg);
	ASSERT_LE(OS_WR_OFF + OS_AREA, rsize);
	{
		/* the server's export returned after ours had stored it */
		struct txrdma_ep_exports q;

		ASSERT_EQ(0, txrdma_ep_exports(s.ctx, s.ep.id, &q));
		ASSERT_EQ(1, q.nimported);
		EXPECT_TRUE(info_is(&q.imported[0], rreg, EXP_ACCESS, EXP_OFF,
				    rsize - EXP_OFF))
			TH_LOG("imported[0]: region %u access %u off %llu len %llu",
			       q.imported[0].region, q.imported[0].access,
			       (unsigned long long)q.imported[0].off,
			       (unsigned long long)q.imported[0].len);
		EXPECT_NE(0, q.imports_gen);
		EXPECT_EQ(0, q.nexported);
	}

	/* what the export does not allow: each SQE its error */
	EXPECT_EQ(-EPERM, rw_one(&s, TXRDMA_OP_READ, s.reg.id, SLOTS_OFF, 64,
				 rreg + 1, 0))
		TH_LOG("READ of region %u, not exported", rreg + 1);
	EXPECT_EQ(-EPERM, rw_one(&s, TXRDMA_OP_WRITE, s.reg.id, SLOTS_OFF, 64,
				 0x7fff0000, 0))
		TH_LOG("WRITE to an unknown region");
	EXPECT_EQ(-EFAULT, rw_one(&s, TXRDMA_OP_READ, s.reg.id, SLOTS_OFF, 64,
				  rreg, rsize - 8))
		TH_LOG("READ across the export's end (%llu bytes)",
		       (unsigned long long)rsize);
	EXPECT_EQ(-EFAULT, rw_one(&s, TXRDMA_OP_READ, s.reg.id, SLOTS_OFF, 1,
				  rreg, rsize))
		TH_LOG("READ at the export's end");
	EXPECT_EQ(-EFAULT, rw_one(&s, TXRDMA_OP_READ, s.reg.id, SLOTS_OFF, 2,
				  rreg, EXP_OFF - 1))
		TH_LOG("READ from the byte before the export");
	EXPECT_EQ(-EFAULT, rw_one(&s, TXRDMA_OP_READ, s.reg.id, SLOTS_OFF, 64,
				  rreg, 0))
		TH_LOG("READ of the server's receive ring");
	EXPECT_EQ(-ENOENT, rw_one(&s, TXRDMA_OP_READ, other_id, 0, 64, rreg,
				  OS_RD_OFF))
		TH_LOG("READ into tenant msg-o's region %u", other_id);
	EXPECT_EQ(7, txrdma_sq_dropped(&s.sq));
	close(hold);
	ASSERT_EQ(pid, waitpid(pid, &st, 0));

	/* READs: every byte of every range, into memory that differed */
	rd_want = malloc(OS_AREA);
	wr_pat = malloc(OS_AREA);
	wr_want = malloc(OS_AREA);
	ASSERT_TRUE(rd_want && wr_pat && wr_want);
	fill(rd_want, seed ^ KEY_RD, 0, OS_AREA);
	dst = (uint8_t *)s.reg.addr + SLOTS_OFF;
	t0 = now_s();
	for (i = 0; i < OS_OPS; i++) {
		os_range(seed ^ KEY_RD, i, &off, &len);
		for (j = 0; j < len; j++)
			dst[off + j] = ~rd_want[off + j];
		res = rw_one(&s, TXRDMA_OP_READ, s.reg.id, SLOTS_OFF + off, len,
			     rreg, OS_RD_OFF + off);
		if (res != (int32_t)len) {
			if (!bad_res++)
				TH_LOG("READ %u (%u bytes at %llu): res %d", i,
				       len, (unsigned long long)off, res);
			continue;
		}
		rd_bytes += len;
		for (j = 0; j < len; j++)
			if (dst[off + j] != rd_want[off + j] && !bad_bytes++)
				TH_LOG("READ %u (%u bytes at %llu): byte %u differs",
				       i, len, (unsigned long long)off, j);
	}
	TH_LOG("%u READs, %llu bytes in %.2f s", OS_OPS,
	       (unsigned long long)rd_bytes, now_s() - t0);
	EXPECT_EQ(0, bad_res);
	EXPECT_EQ(0, bad_bytes);

	/* WRITEs: range i of the pattern to the same place of the server's */
	fill(wr_pat, seed ^ KEY_WR, 0, OS_AREA);
	memcpy(dst + OS_AREA, wr_pat, OS_AREA);
	bad_res = 0;
	t0 = now_s();
	for (i = 0; i < OS_OPS; i++) {
		os_range(seed ^ KEY_WR, i, &off, &len);
		res = rw_one(&s, TXRDMA_OP_WRITE, s.reg.id,
			     SLOTS_OFF + OS_AREA + off, len, rreg,
			     OS_WR_OFF + off);
		if (res != (int32_t)len) {
			if (!bad_res++)
				TH_LOG("WRITE %u (%u bytes at %llu): res %d", i,
				       len, (unsigned long long)off, res);
			continue;
		}
		wr_bytes += len;
	}
	TH_LOG("%u WRITEs, %llu bytes in %.2f s", OS_OPS,
	       (unsigned long long)wr_bytes, now_s() - t0);
	EXPECT_EQ(0, bad_res);
	os_expect(wr_want, wr_pat, seed ^ KEY_WR);
	ctl_send(_metadata, &s, &(struct ctl){
		.magic = CTL_MAGIC, .type = CTL_DONE, .kase = CASE_ONESIDED,
		.hash = area_hash(wr_want, OS_AREA) });
	wait_ctl(_metadata, &s, CTL_SUMMARY, CASE_S, &sum);
	EXPECT_EQ(0, sum.bad_data) TH_LOG("%u bytes written differ at the server",
					  sum.bad_data);
	EXPECT_EQ(area_hash(wr_want, OS_AREA), sum.hash);
	EXPECT_EQ(0, s.bad_hdr) TH_LOG("%s", s.hdr_err);
	EXPECT_EQ(s.ctl_posted, s.ctl_done);
	EXPECT_EQ(0, s.ctl_bad);
	EXPECT_EQ(0, s.stray_cqes);
	EXPECT_EQ(7, txrdma_sq_dropped(&s.sq));
	EXPECT_EQ(0, txrdma_cq_overflow(&s.cq));
	free(rd_want);
	free(wr_pat);
	free(wr_want);
	EXPECT_EQ(0, txrdma_ep_destroy(s.ctx, s.ep.id));
	s.connected = false;
	side_close(&s);
}

TEST_F_TIMEOUT(msg, onesided, CONNECT_S + CASE_S * 3)
{
	NEED_PAIR();
	NEED_ONE_SIDED();
	if (self->server)
		server_onesided(_metadata, self);
	else
		client_onesided(_metadata, self);
}

/* ---- f: the tenant's token buckets --------------------------------------- */

/*
 * Limits well below what the pair carries unthrottled, or the test
 * measures the guest, not the buckets: two 2-vCPU TCG guests on two
 * host cores carried 4 KiB messages at 1.1 MB/s and 64 B ones at 620/s.
 */
#define THR_BW		(512ULL << 10)	/* bytes/s */
#define THR_BW_BURST	(64ULL << 10)
#define THR_BW_LEN	4096
#define THR_BW_COUNT	768		/* 3 MiB: 6 s */
#define THR_OPS		250ULL		/* ops/s */
#define THR_OPS_BURST	10ULL
#define THR_OPS_LEN	64
#define THR_OPS_COUNT	1500		/* 6 s */
#define THR_TOL		0.05

/*
 * Stream @count messages of @len bytes under the rates given; the rate
 * delivered after the first 10% (from the CQE of the last of those to
 * the last CQE) must be @want (bytes/s with @per_byte, else messages/s)
 * within 5%, and the tenant's throttle counter @refused (index of
 * tenant.refused) must have gone up.
 */
static void throttle_phase(struct __test_metadata *_metadata,
			   FIXTURE_DATA(msg) *self, const char *what,
			   uint64_t bw, uint64_t bw_burst, uint64_t ops,
			   uint64_t ops_burst, uint32_t count, uint32_t len,
			   double want, bool per_byte, int refused)
{
	struct tenant t0, t1;
	struct nlmini nl;
	struct side s;
	struct ctl h;
	double dt, rate;
	uint32_t mark = count / 10;

	ASSERT_EQ(0, nlmini_open(&nl));
	ASSERT_EQ(0, get_tenant(&nl, TENANT, &t0));
	nlmini_close(&nl);
	side_open(_metadata, &s, 1024, 1024, 256, 4096);
	side_connect(_metadata, &s, self->peer, SVC(CASE_THROTTLE), CONNECT_S);
	ASSERT_LE(len, s.ep.max_msg);
	self->throttled = true;
	ASSERT_EQ(0, tenant_rates(bw, bw_burst, ops, ops_burst))
		TH_LOG("tenant set %s", what);
	s.tx_mark = mark;
	h = (struct ctl){
		.magic = CTL_MAGIC, .type = CTL_HELLO, .kase = CASE_THROTTLE,
		.seed = self->seed ^ CASE_THROTTLE ^ len,
		.count = count, .max_len = len, .fixed_len = len,
	};
	client_run(_metadata, &s, &h, false, CASE_S);
	ASSERT_EQ(0, tenant_unthrottle());
	self->throttled = false;
	ASSERT_LT(0, s.t_mark);
	ASSERT_LT(s.t_mark, s.t_last);
	dt = s.t_last - s.t_mark;
	rate = (double)(count - mark) * (per_byte ? len : 1) / dt;
	TH_LOG("%s: %u messages of %u bytes after %u of warm-up in %.3f s: %.1f %s/s, limit %.0f (%+.2f%%)",
	       what, count - mark, len, mark, dt, rate,
	       per_byte ? "bytes" : "messages", want,
	       (rate / want - 1) * 100);
	EXPECT_LE(fabs(rate / want - 1), THR_TOL);
	ASSERT_EQ(0, nlmini_open(&nl));
	ASSERT_EQ(0, get_tenant(&nl, TENANT, &t1));
	nlmini_close(&nl);
	TH_LOG("%s: throttled %llu -> %llu", what,
	       (unsigned long long)t0.refused[refused],
	       (unsigned long long)t1.refused[refused]);
	EXPECT_LT(t0.refused[refused], t1.refused[refused]);
	EXPECT_NE(TENANT_MISSING, t1.refused[refused]);
	side_close(&s);
}

TEST_F_TIMEOUT(msg, throttle, CONNECT_S * 2 + CASE_S * 4)
{
	NEED_PAIR();
	if (self->server) {
		/* one pair per rate; every message checked here */
		server_case(_metadata, self, CASE_THROTTLE, 1024, 4, 4096,
			    CASE_S);
		server_case(_metadata, self, CASE_THROTTLE, 1024, 4, 4096,
			    CASE_S);
		return;
	}
	/* tenant.refused: QPS, ENDPOINTS, PINNED, then BW (3) and OPS (4) */
	throttle_phase(_metadata, self, "bw", THR_BW, THR_BW_BURST,
		       TXRDMA_UNLIMITED, TXRDMA_UNLIMITED, THR_BW_COUNT,
		       THR_BW_LEN, THR_BW, true, 3);
	throttle_phase(_metadata, self, "ops", TXRDMA_UNLIMITED,
		       TXRDMA_UNLIMITED, THR_OPS, THR_OPS_BURST, THR_OPS_COUNT,
		       THR_OPS_LEN, THR_OPS, false, 4);
}

/* ---- g: random SQEs ------------------------------------------------------ */

#define FUZZ_S		600
#define FUZZ_WINDOW	512	/* SQEs without their CQE yet */
#define FUZZ_BATCH	64
#define FUZZ_CHECK	9	/* messages checked after the marker */
#define FUZZ_AREA	(2U << 20)	/* scratch: the second 2 MiB page */

/*
 * SQE @i of the fuzz, written in place in the SQ.  Opcodes, flags
 * (but NO_CQE: one CQE per SQE), prio, endpoint, regions, offsets,
 * lengths and reserved fields are mostly plausible and sometimes
 * anything.  What a successful SQE may write is a scratch page: local
 * offsets of ours are in our second 2 MiB page or past the region's
 * end, and WRITE's remote offsets (READ's too, mostly) are in the
 * server's second page or past its end, never its ring.  The server
 * exports all but its first page: the READs of it (its ring, its
 * control slots) are refused with -EFAULT.
 */
static void fuzz_sqe(struct txrdma_sqe *q, const struct fuzz *f, uint32_t i)
{
	uint64_t st = mix64(f->seed ^ mix64(i ^ 0x66757a7aULL));
	uint32_t k;

#define FZ()	(st = mix64(st))
	memset(q, 0, sizeof(*q));
	q->opcode = FZ() % 2 ? FZ() % TXRDMA_OP_LAST : (uint8_t)FZ();
	q->flags = FZ() % 8 ? 0 : (uint16_t)FZ();
	q->flags &= ~TXRDMA_SQE_F_NO_CQE;
	q->prio = FZ() % 8 ? FZ() % TXRDMA_PRIO_CLASSES : (uint8_t)FZ();
	k = FZ() % 16;
	q->ep = k < 13 ? f->ep : k == 13 ? 0 :
		k == 14 ? f->ep + 1 + FZ() % 16 : (uint32_t)FZ();
	k = FZ() % 16;
	q->local_region = k < 11 ? f->own : k < 13 ? f->other :
			  k == 13 ? 0 : (uint32_t)FZ();
	k = FZ() % 16;
	q->len = k < 10 ? FZ() % 4097 : k < 13 ? FZ() % (OS_MAX_LEN + 1) :
		 k == 13 ? TXRDMA_FRAME_MAX_PAYLOAD - 2 + FZ() % 4 :
		 k == 14 ? (uint32_t)FZ() : TXRDMA_SQE_MAX_LEN + FZ() % 2;
	k = FZ() % 16;
	q->local_off = k < 14 ? SLOTS_OFF + FZ() % FUZZ_AREA :
		       k == 14 ? f->own_size + FZ() % (1ULL << 40) :
		       ~0ULL - FZ() % 65536;
	k = FZ() % 8;
	q->remote_region = k < 6 ? f->rreg : k == 6 ? 0 : (uint32_t)FZ();
	k = FZ() % 16;
	if (k < 3 && q->opcode == TXRDMA_OP_READ)
		q->remote_off = FZ() % f->rsize;	/* the ring: -EFAULT */
	else
		q->remote_off = k < 14 ? SLOTS_OFF + FZ() % (f->rsize - SLOTS_OFF) :
				k == 14 ? f->rsize + FZ() % (1ULL << 40) :
				~0ULL - FZ() % 65536;
	/* most SQEs of an opcode have its shape */
	if (FZ() % 4) {
		if (q->opcode == TXRDMA_OP_NOP) {
			q->local_region = 0;
			q->local_off = 0;
			q->len = 0;
			q->remote_region = 0;
			q->remote_off = 0;
		} else if (q->opcode == TXRDMA_OP_SEND) {
			q->remote_region = 0;
			q->remote_off = 0;
		}
	}
	if (!(FZ() % 16)) {
		k = FZ() % 3;
		if (!k)
			q->resv1 = (uint32_t)FZ() | 1;
		else
			q->resv2[k - 1] = FZ() | 1;
	}
	q->user_data = UD_FUZZ | i;
#undef FZ
}

static void server_fuzz(struct __test_metadata *_metadata,
			FIXTURE_DATA(msg) *self)
{
	bool sent;
	struct rxstream rx;
	struct side s;
	struct ctl h, d = { 0 }, sum;
	struct usage u;
	uint32_t fz_n = 0, extra = 0;
	uint64_t fz_bytes = 0;
	const uint8_t *p;
	uint32_t len;
	bool done = false;
	double end;
	int ret = 0;

	/* 4 MiB: ring and control slots, then the client's scratch */
	side_open(_metadata, &s, 256, 4096, 2, 1U << 20);
	side_accept(_metadata, &s, self->peer, SVC(CASE_FUZZ), ACCEPT_S);
	wait_hello(_metadata, &s, CASE_FUZZ, &h);
	ASSERT_EQ(0, ep_export(&s, s.reg.id, EXP_ACCESS, EXP_OFF,
			       s.reg.size - EXP_OFF));
	ctl_send(_metadata, &s, &(struct ctl){
		.magic = CTL_MAGIC, .type = CTL_EXPORTED, .kase = CASE_FUZZ,
		.region = s.reg.id, .region_size = s.reg.size });
	/* whatever random SENDs placed, up to the marker */
	end = now_s() + FUZZ_S;
	while (!done && now_s() < end) {
		uint32_t progress = reap(&s);

		while ((ret = rx_take(&s, &p, &len)) == 1) {
			const struct ctl *c = (const void *)p;

			if (is_ctl(p, len) && c->type == CTL_DONE &&
			    c->kase == CASE_FUZZ) {
				memcpy(&d, p, sizeof(d));
				done = true;
			} else {
				fz_n++;
				fz_bytes += len;
			}
			rx_done(&s);
			progress++;
			if (done)
				break;
		}
		if (ret < 0)
			break;
		if (!progress)
			idle(&s);
	}
	ASSERT_TRUE(done) TH_LOG("no marker from the client (ring: %d)", ret);
	TH_LOG("fuzz: %u messages, %llu bytes before the marker", fz_n,
	       (unsigned long long)fz_bytes);
	/* then the pair still carries messages, byte-exact */
	rxs_init(&rx, &(struct gen){ d.seed, d.count, d.max_len, 0 }, KEY_FWD);
	end = now_s() + CASE_S;
	while (rx.n < d.count && now_s() < end) {
		ret = rx_take(&s, &p, &len);
		if (ret < 0)
			break;
		if (ret == 1) {
			rxs_msg(&rx, p, len);
			rx_done(&s);
			continue;
		}
		reap(&s);
		idle(&s);
	}
	sum = (struct ctl){
		.magic = CTL_MAGIC, .type = CTL_SUMMARY, .kase = CASE_FUZZ,
		.n = rx.n, .lost = rx.lost, .dup = rx.dup,
		.bad_len = rx.bad_len, .bad_data = rx.bad_data,
		.bad_hdr = s.bad_hdr, .bytes = rx.bytes, .hash = rx.hash,
		.aux_n = fz_n, .aux_bytes = fz_bytes,
	};
	/* whether it went: wait_reset() sets rx_err when the ring ends */
	sent = !s.rx_err;
	if (sent)
		ctl_send(_metadata, &s, &sum);
	ret = wait_reset(&s, CASE_S, &extra);

	EXPECT_EQ(d.count, rx.n);
	EXPECT_EQ(0, rx.lost + rx.dup + rx.bad_len + rx.bad_data)
		TH_LOG("%s", rx.err);
	EXPECT_EQ(0, s.bad_hdr) TH_LOG("%s", s.hdr_err);
	EXPECT_EQ(-ECONNRESET, ret) TH_LOG("the ring ended with %d", ret);
	EXPECT_EQ(0, extra);
	expect_ctl_at_reset(_metadata, &s, sent);
	EXPECT_EQ(0, txrdma_sq_dropped(&s.sq));
	side_close(&s);
	EXPECT_TRUE(usage_idle(&u))
		TH_LOG("after the case: qps %lld endpoints %lld pinned %lld",
		       (long long)u.qps, (long long)u.eps, (long long)u.pinned);
}

static void client_fuzz(struct __test_metadata *_metadata,
			FIXTURE_DATA(msg) *self)
{
	static const int dropped_errs[] = {
		EINVAL, ENOENT, EFAULT, EMSGSIZE, EPERM,
	};
	struct fuzz f;
	struct txstream tx;
	struct side s;
	struct ctl h, x, sum = { 0 };
	struct usage u0, u;
	uint32_t d0, d1, refused = 0, other = 0, sums = 0, n, e;
	int hold = -1, st, ret = 0;
	double t0, end, dt;
	pid_t pid;

	EXPECT_TRUE(usage_idle(&u0))
		TH_LOG("before the case: qps %lld endpoints %lld pinned %lld",
		       (long long)u0.qps, (long long)u0.eps,
		       (long long)u0.pinned);
	side_open(_metadata, &s, 1024, 1024, 2, 1U << 20);
	ASSERT_LE(SLOTS_OFF + FUZZ_AREA, s.reg.size);
	memset(&f, 0, sizeof(f));
	pid = other_tenant_region(_metadata, &f.other, &hold);
	side_connect(_metadata, &s, self->peer, SVC(CASE_FUZZ), CONNECT_S);
	h = (struct ctl){
		.magic = CTL_MAGIC, .type = CTL_HELLO, .kase = CASE_FUZZ,
		.seed = self->seed ^ CASE_FUZZ,
	};
	ctl_send(_metadata, &s, &h);
	wait_ctl(_metadata, &s, CTL_EXPORTED, CASE_S, &x);
	ASSERT_NE(0, x.region);
	ASSERT_LE(SLOTS_OFF + FUZZ_AREA, x.region_size);
	end = now_s() + CQE_S;
	while (s.ctl_done < s.ctl_posted && now_s() < end)
		if (!reap(&s))
			idle(&s);
	ASSERT_EQ(s.ctl_posted, s.ctl_done);

	f.seed = h.seed;
	f.ep = s.ep.id;
	f.own = s.reg.id;
	f.own_size = s.reg.size;
	f.rreg = x.region;
	f.rsize = x.region_size;
	f.count = env_u64("TXRDMA_MSG_FUZZ_COUNT", FUZZ_COUNT);
	ASSERT_LT(0, f.count);
	f.op = calloc(f.count, 1);
	f.seen = calloc(f.count, 1);
	f.len = calloc(f.count, sizeof(*f.len));
	f.epv = calloc(f.count, sizeof(*f.epv));
	ASSERT_TRUE(f.op && f.seen && f.len && f.epv);
	s.fz = &f;
	d0 = txrdma_sq_dropped(&s.sq);
	t0 = now_s();
	end = t0 + FUZZ_S;
	while (f.completed < f.count && now_s() < end) {
		n = 0;
		while (f.posted < f.count && n < FUZZ_BATCH &&
		       f.posted - f.completed < FUZZ_WINDOW) {
			struct txrdma_sqe *q = txrdma_get_sqe(&s.sq);

			if (!q)
				break;
			fuzz_sqe(q, &f, f.posted);
			f.op[f.posted] = q->opcode;
			f.len[f.posted] = q->len;
			f.epv[f.posted] = q->ep;
			f.posted++;
			n++;
		}
		if (n)
			ASSERT_LE(0, txrdma_submit(s.ctx, &s.sq));
		if (!reap(&s) && !n)
			idle(&s);
	}
	dt = now_s() - t0;
	d1 = txrdma_sq_dropped(&s.sq);
	close(hold);
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	for (e = 0; e < sizeof(dropped_errs) / sizeof(dropped_errs[0]); e++)
		refused += f.errs[dropped_errs[e]];
	TH_LOG("fuzz: %u SQEs, %u CQEs in %.1f s; ok: NOP %u SEND %u (%llu bytes) READ %u WRITE %u",
	       f.posted, f.completed, dt, f.ok[TXRDMA_OP_NOP],
	       f.ok[TXRDMA_OP_SEND], (unsigned long long)f.send_bytes,
	       f.ok[TXRDMA_OP_READ], f.ok[TXRDMA_OP_WRITE]);
	for (e = 1; e < FUZZ_ERRS; e++) {
		if (!f.errs[e])
			continue;
		TH_LOG("fuzz: %u CQEs res %d (%s)", f.errs[e], -(int)e,
		       strerror(e));
		other += f.errs[e];
	}
	/* all the errors, but those the kernel counts as refused */
	other = other - refused + f.other_err;
	TH_LOG("fuzz: SQ dropped %u -> %u; refused CQEs %u; other errors %u",
	       d0, d1, refused, other);

	/* one CQE per SQE, none but a valid SQE's positive */
	EXPECT_EQ(f.count, f.posted);
	EXPECT_EQ(f.count, f.completed);
	EXPECT_EQ(0, f.dup) TH_LOG("CQEs for the same SQE twice");
	EXPECT_EQ(0, f.unknown) TH_LOG("CQEs for SQEs never posted");
	EXPECT_EQ(0, f.bad_res + f.bad_id) TH_LOG("%s", f.err);
	EXPECT_EQ(0, s.stray_cqes);
	EXPECT_EQ(0, txrdma_cq_overflow(&s.cq));
	/* the kernel counts exactly the refused SQEs */
	EXPECT_EQ(refused, d1 - d0);
	/* nothing broke the pair; each opcode worked sometimes */
	EXPECT_EQ(0, other) TH_LOG("errors other than the refusals");
	EXPECT_LT(0, f.ok[TXRDMA_OP_SEND]);
	EXPECT_LT(0, f.ok[TXRDMA_OP_READ]);
	EXPECT_LT(0, f.ok[TXRDMA_OP_WRITE]);
	EXPECT_EQ(0, rx_error_word(&s));
	s.fz = NULL;

	/* the marker, then messages the server checks byte by byte */
	ctl_send(_metadata, &s, &(struct ctl){
		.magic = CTL_MAGIC, .type = CTL_DONE, .kase = CASE_FUZZ,
		.seed = h.seed ^ KEY_FWD, .count = FUZZ_CHECK,
		.max_len = s.ep.max_msg });
	tx_init(_metadata, &tx, &(struct gen){ h.seed ^ KEY_FWD, FUZZ_CHECK,
					       s.ep.max_msg, 0 }, KEY_FWD);
	s.tx = &tx;
	end = now_s() + CASE_S;
	while (now_s() < end && (!sums || tx.completed < FUZZ_CHECK ||
				 s.ctl_done < s.ctl_posted)) {
		const uint8_t *p;
		uint32_t len, progress;

		progress = tx_post(_metadata, &s, &tx) + reap(&s);
		while ((ret = rx_take(&s, &p, &len)) == 1) {
			if (is_ctl(p, len)) {
				memcpy(&sum, p, sizeof(sum));
				sums++;
			}
			rx_done(&s);
			progress++;
		}
		if (ret < 0)
			break;
		if (!progress)
			idle(&s);
	}
	EXPECT_EQ(0, ret) TH_LOG("our ring failed: %d", ret);
	EXPECT_EQ(FUZZ_CHECK, tx.completed);
	EXPECT_EQ(0, tx.bad_res + tx.dup + tx.unknown) TH_LOG("%s", tx.err);
	ASSERT_EQ(1, sums) TH_LOG("no summary from the server");
	EXPECT_EQ(CTL_SUMMARY, sum.type);
	EXPECT_EQ(CASE_FUZZ, sum.kase);
	/* every SEND that succeeded arrived, and nothing else */
	EXPECT_EQ(f.ok[TXRDMA_OP_SEND], sum.aux_n);
	EXPECT_EQ(f.send_bytes, sum.aux_bytes);
	EXPECT_EQ(FUZZ_CHECK, sum.n);
	EXPECT_EQ(tx.bytes, sum.bytes);
	EXPECT_EQ(tx.hash, sum.hash) TH_LOG("the server's checksum differs");
	EXPECT_EQ(0, sum.lost + sum.dup + sum.bad_len + sum.bad_data +
		     sum.bad_hdr);
	EXPECT_EQ(0, s.ctl_bad);
	EXPECT_EQ(d1, txrdma_sq_dropped(&s.sq));
	tx_free(&tx);
	free(f.op);
	free(f.seen);
	free(f.len);
	free(f.epv);
	EXPECT_EQ(0, txrdma_ep_destroy(s.ctx, s.ep.id));
	s.connected = false;
	side_close(&s);
	/* whatever the garbage did, the tenant holds nothing after */
	EXPECT_TRUE(usage_idle(&u))
		TH_LOG("after the case: qps %lld endpoints %lld pinned %lld",
		       (long long)u.qps, (long long)u.eps, (long long)u.pinned);
}

TEST_F_TIMEOUT(msg, fuzz, CONNECT_S + FUZZ_S + CASE_S * 3)
{
	NEED_PAIR();
	NEED_ONE_SIDED();
	if (self->server)
		server_fuzz(_metadata, self);
	else
		client_fuzz(_metadata, self);
}

TEST_HARNESS_MAIN
