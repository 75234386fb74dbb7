// SPDX-License-Identifier: GPL-2.0-only
/*
 * A hostile peer against txrdma.ko's rdma_cm port (issue item 8b): a
 * program that speaks rdma_cm and verbs itself (rogue_cm.c), in a guest
 * whose module has a self peer "self" (the guest's own address, the key
 * of $TXRDMA_PEER_KEY) with a live session.  Because the peer is the
 * guest itself, connections from the guest's address are the self
 * peer's, and the attacker's requests reach exactly the code a remote
 * host's would.  What the module did is read back from it: "txrdma-admin
 * -j peer show self" (state, downs, auth_fails, pool, qps), "rdma -j res
 * show mr|qp", and the bytes of regions made through libtxrdma.
 *
 *  forged_requests
 *	connection requests without the key: no private data, random
 *	bytes, today's main format (wire v1, no MAC), v2 with a bad kind,
 *	non-zero reserved bytes or another version, and well-formed v2
 *	requests whose MAC is zero, random, made with another key, or
 *	made with the right key over other bytes.  Every one is REJECTED
 *	(never ESTABLISHED); auth_fails rises by the well-formed ones
 *	exactly (a request refused for its form is not counted: the
 *	module refuses it before looking for a key; a short one is not
 *	refused for its form: rdma_cm pads private data with zeroes to
 *	56 bytes, so it arrives whole with a MAC that ends in zeroes);
 *	the session stays Up
 *	(sampled after each request, downs unchanged), pool and qps as
 *	before.
 *  replays
 *	a request made with the right key stands for one captured on the
 *	wire (the attacker has no key).  One the module answered before
 *	(an earlier, complete handshake) is REJECTED at once: it keeps the
 *	nonces it answered lately, and counts the replay in auth_fails.
 *	One it never saw (captured in flight, the original lost) it
 *	answers (ESTABLISHED), then closes the connection (DISCONNECTED,
 *	or REJECTED when it closes before its CM had our RTU) for (a)
 *	a garbage AUTH (random bytes, a zero MAC, a short message), (b)
 *	the AUTH of the earlier handshake, (c) no AUTH at all, within 3 s
 *	(the connect timeout) plus slack; auth_fails counts the replay,
 *	(a) and (b), not (c).  In (c)'s window the attacker
 *	posts RDMA READ and WRITE with every rkey "rdma res show mr" lists
 *	for txrdma (regions' own registrations, a live pair's receive
 *	rings and export, each at its right address) and with guesses:
 *	every one completes with an error, and no byte of those regions
 *	changes.
 *  half_open_bound
 *	100 distinct captured requests at once: at most 64 are ESTABLISHED at the
 *	same time, every one is answered (ESTABLISHED or REJECTED), every
 *	established one is closed by the module; afterwards none of the
 *	module's QPs of them is left in "rdma res show qp" and the peer's
 *	pool and qps are as before.
 *  keyed_attacker
 *	an attacker that holds the key (a compromised peer host) completes
 *	the handshake (checks the reply's MAC, sends a right AUTH) and so
 *	holds an authenticated QP with remote access (a zero-length WRITE
 *	completes).  RDMA READ and WRITE with (i) the rkey of every
 *	region's own registration, at the region's kernel address, (ii)
 *	the rkeys of the receive rings of a pair that ended and of the
 *	export of that pair, at the addresses they had, (iii) guesses: all
 *	fail with a remote access error and change no byte.  The receive
 *	ring of a LIVE pair is tried too and only reported: its rkey is
 *	valid for every QP of the device's protection domain (FRWR).
 *  summary.counts
 *	"rogue: N forged refused, M replays closed, K remote accesses
 *	attempted, S succeeded": S must be 0 and every forged request
 *	refused and every replay closed.
 *
 * A region's kernel address (the iova of its own registration: rxe maps
 * DMA to kernel virtual addresses) is found through /proc/kcore (the
 * guest is root; rogue_host.c): the attacker here knows more than a
 * peer is ever told, because a refusal for a wrong address would prove
 * nothing.  Every access is its own connection: a refused one puts
 * both QPs in the error state.
 *
 * Today's main (no TXRDMA_FEAT_PEER_AUTH) is attacked the same way with
 * its own wire format (v1, no key): the program then runs to show what
 * the attacker achieves there, and fails.
 *
 * Environment: TXRDMA_PEER_KEY (key file, default /run/txrdma-peer.key),
 * TXRDMA_ADMIN, TXRDMA_ROGUE_BFD (default "tx 200000 rx 200000 mult
 * 25": a 5 s detection time, so that a loaded TCG guest's stalls do not
 * take the session down for reasons that are not the attacker's).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <linux/txrdma.h>

#include "kselftest_harness.h"
#include "nlmini.h"
#include "tenant_util.h"
#include "txrdma.h"
#include "txrdma_ring.h"
#include "rogue_cm.h"
#include "rogue_host.h"

#define DEV		"/dev/txrdma"
#define CG_ROOT		"/sys/fs/cgroup"
#define CG_DIR		CG_ROOT "/txrdma-rogue"
#define TENANT		"rogue"
#define MAX_HALF_OPEN	64	/* kmod/txrdma_conn.c */
#define BURST		100
/* the module's connect timeout (3 s), plus slack for a loaded TCG host */
#define CLOSE_BOUND_S	15.0
#define ACCESS_LEN	64
#define LOFF_READ	0	/* where READs land in our buffer */
#define LOFF_WRITE	4096	/* what WRITEs carry */
#define LOFF_AUTH	8192	/* the AUTH message */
#define ROGUE_BYTE	0xee

/* ---- counts shared by the tests (each runs in a child) -------------- */

struct rogue_stats {
	int forged_sent, forged_refused, forged_est;
	int replays_sent, replays_est, replays_refused, replays_closed;
	int access_tried, access_ok;
	int residual_tried, residual_ok;
	int wc_status[32];	/* remote accesses by completion status */
	int tests_done;
};

static struct rogue_stats *st;

static void __attribute__((constructor)) stats_map(void)
{
	st = mmap(NULL, sizeof(*st), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (st == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	/* our "#" lines and the harness's (stderr) in the order they happen */
	setvbuf(stdout, NULL, _IOLBF, 0);
}

/* ---- fixture -------------------------------------------------------- */

#define MAX_PAIRS	3
#define MAX_REGIONS	4

FIXTURE(rogue) {
	struct nlmini nl;
	bool nl_open, peer_added;
	bool auth;		/* the module has TXRDMA_FEAT_PEER_AUTH */
	struct rg_key key;
	struct rg_target tgt;
	char ibdev[32];
	struct psnap base;	/* the peer once it was up */
	int up_samples, up_bad;	/* "state up" samples during the test */
	struct lpair *pairs[MAX_PAIRS];
	int npairs;
	struct txrdma_ctx *ctx;	/* holds the target regions */
	struct txrdma_region reg[MAX_REGIONS];
	uint32_t seed[MAX_REGIONS];
	int nreg;
	uint8_t captured[RG_REQ_LEN];	/* "captured" well-formed request */
	uint8_t captured_len;
	int not_closed;		/* replays the module did not close */
};

static const char *key_path(void)
{
	const char *k = getenv("TXRDMA_PEER_KEY");

	return k && *k ? k : "/run/txrdma-peer.key";
}

static const char *bfd_args(void)
{
	const char *env = getenv("TXRDMA_ROGUE_BFD");

	return env ? env : "tx 200000 rx 200000 mult 25";
}

static void peers_del_addr(const char *addr)
{
	char names[1024], *n, *save = NULL;

	run(names, sizeof(names),
	    "%s -j peer show 2>/dev/null | jq -r '.[] | select(.addr == \"%s\") | .name'",
	    admin(), addr);
	for (n = strtok_r(names, "\n", &save); n; n = strtok_r(NULL, "\n", &save))
		run(NULL, 0, "%s peer del %s 2>&1", admin(), n);
}

/* Sample the session: it must be Up at every sample. */
static void sample_up(FIXTURE_DATA(rogue) *self)
{
	struct psnap p;

	self->up_samples++;
	if (peer_snap(&p) || strcmp(p.state, "up") || p.downs != self->base.downs) {
		self->up_bad++;
		fprintf(stderr, "# session not up at sample %d: %s\n",
			self->up_samples, psnap_str(&p));
	}
}

FIXTURE_SETUP(rogue)
{
	struct txrdma_probe pr;
	char buf[256];
	struct stat sb;
	int fd, ret;

	fd = open(DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("open " DEV ": %s: is txrdma.ko loaded?",
				strerror(errno));
	memset(&pr, 0, sizeof(pr));
	ASSERT_EQ(0, ioctl(fd, TXRDMA_IOC_PROBE, &pr));
	close(fd);
	ASSERT_TRUE(pr.features & TXRDMA_FEAT_PEERS);
	self->auth = pr.features & TXRDMA_FEAT_PEER_AUTH;
	if (self->auth) {
		ret = rg_key_load(key_path(), &self->key);
		ASSERT_EQ(0, ret) TH_LOG("key file %s: %s", key_path(),
					 strerror(-ret));
	} else {
		TH_LOG("the module has no peer authentication (features %#llx): attacking wire v1, today's main",
		       (unsigned long long)pr.features);
	}
	ASSERT_EQ(0, access(admin(), X_OK)) TH_LOG("no %s", admin());
	ASSERT_EQ(0, run(buf, sizeof(buf),
			 "rdma -j link show | jq -r '[.[] | select(.state == \"ACTIVE\" and .netdev)][0] | \"\\(.ifname) \\(.netdev)\"'"));
	{
		char ndev[32];

		ASSERT_EQ(2, sscanf(buf, "%31s %31s", self->ibdev, ndev))
			TH_LOG("no ACTIVE RDMA link: %s", buf);
		ASSERT_EQ(0, run(self->tgt.addr, sizeof(self->tgt.addr),
				 "ip -j -4 addr show dev %s | jq -r '[.[0].addr_info[] | select(.family == \"inet\")][0].local'",
				 ndev));
		ASSERT_NE(0, strcmp(self->tgt.addr, "null"));
	}
	ASSERT_EQ(0, run(buf, sizeof(buf),
			 "cat /sys/module/txrdma/parameters/port"));
	self->tgt.port = atoi(buf);
	ASSERT_NE(0, self->tgt.port);

	ASSERT_EQ(0, stat(CG_ROOT "/cgroup.controllers", &sb));
	ASSERT_EQ(0, nlmini_open(&self->nl));
	self->nl_open = true;
	peers_del_addr(self->tgt.addr);
	tenant_del_force(&self->nl, TENANT);
	mkdir(CG_DIR, 0755);
	ASSERT_EQ(0, tenant_op(&self->nl, TXRDMA_CMD_TENANT_NEW, TENANT,
			       "/txrdma-rogue", -1, NULL))
		TH_LOG("extack: %s", self->nl.extack);
	ASSERT_EQ(0, cg_enter(CG_DIR));

	/* pool max above the half-open bound: the bound, not the pool's
	 * mirror limit, is what half_open_bound meets
	 */
	ret = run(buf, sizeof(buf), "%s peer add " PEER " addr %s %s%s pool 2:96 %s 2>&1",
		  admin(), self->tgt.addr, self->auth ? "key " : "",
		  self->auth ? key_path() : "", bfd_args());
	ASSERT_EQ(0, ret) TH_LOG("peer add: %s", buf);
	self->peer_added = true;
	ASSERT_TRUE(peer_wait_up(120, &self->base))
		TH_LOG("self peer not up: %s", psnap_str(&self->base));
	/* a moment for the pool to stay still */
	msleep(1000);
	ASSERT_TRUE(peer_wait_up(60, &self->base));
	TH_LOG("self peer %s port %u: %s", self->tgt.addr, self->tgt.port,
	       psnap_str(&self->base));
	ASSERT_EQ(0, txrdma_open(&self->ctx, 0));
}

FIXTURE_TEARDOWN(rogue)
{
	struct psnap p;

	for (int i = 0; i < self->npairs; i++) {
		lpair_close(self->pairs[i]);
		free(self->pairs[i]);
	}
	for (int i = 0; i < self->nreg; i++)
		txrdma_region_destroy(self->ctx, &self->reg[i]);
	if (self->ctx)
		txrdma_close(self->ctx);
	if (self->peer_added && !peer_snap(&p)) {
		TH_LOG("self peer at the end: %s", psnap_str(&p));
		if (p.downs != self->base.downs || strcmp(p.state, "up")) {
			TH_LOG("the real session left Up during the test");
			_metadata->passed = 0;
		}
	}
	if (self->up_bad) {
		TH_LOG("%d of %d samples found the session not up",
		       self->up_bad, self->up_samples);
		_metadata->passed = 0;
	}
	if (self->tgt.addr[0])
		peers_del_addr(self->tgt.addr);
	cg_enter(CG_ROOT);
	if (self->nl_open) {
		tenant_del_force(&self->nl, TENANT);
		nlmini_close(&self->nl);
	}
	rmdir(CG_DIR);
}

/* ---- helpers of the tests ------------------------------------------- */

/*
 * What the attacker aims at; @local: our own mapping of the bytes at
 * @addr when we know them (a READ that gets through is compared).
 */
struct target {
	char what[80];
	uint32_t rkey;
	uint64_t addr;
	const uint8_t *local;
};

struct tgtlist {
	int n;
	struct target t[64];
};

/* Add a target: it, or NULL when the list is full. */
static struct target * __attribute__((format(printf, 4, 5)))
tgt_add(struct tgtlist *l, uint32_t rkey, uint64_t addr, const char *fmt, ...)
{
	struct target *t = &l->t[l->n];
	va_list ap;

	if (l->n == 64)
		return NULL;
	memset(t, 0, sizeof(*t));
	t->rkey = rkey;
	t->addr = addr;
	va_start(ap, fmt);
	vsnprintf(t->what, sizeof(t->what), fmt, ap);
	va_end(ap);
	l->n++;
	return t;
}

static bool tgt_has(const struct tgtlist *l, uint32_t rkey)
{
	for (int i = 0; i < l->n; i++)
		if (l->t[i].rkey == rkey)
			return true;
	return false;
}

/* random guesses: rkeys and addresses, and other key bytes of @near */
static void tgt_guesses(struct tgtlist *l, int n, const struct mrlist *near)
{
	for (int i = 0; i < n; i++) {
		uint32_t rkey;
		uint64_t addr;

		rnd(&rkey, sizeof(rkey));
		rnd(&addr, sizeof(addr));
		if (near && near->n && i % 2) {
			const struct mr *m = &near->m[i / 2 % near->n];

			/* the index of a real MR, another key byte */
			rkey = (m->rkey & ~0xffu) | ((m->rkey + 1 + i) & 0xff);
			tgt_add(l, rkey, m->len == RX_LEN ? TXRDMA_RX_HDR_LEN : 0,
				"guess: mr %u's index, key byte %02x", m->mrn,
				rkey & 0xff);
		} else {
			tgt_add(l, rkey, addr, "guess: random");
		}
	}
}

/* The MRs listed now that @prev did not list; @prev becomes now. */
static int mr_step(const char *ibdev, struct mrlist *prev,
		   struct mrlist *diff)
{
	static struct mrlist now;

	if (mr_list(ibdev, &now))
		return -1;
	mr_new(prev, &now, diff);
	*prev = now;
	return 0;
}

/*
 * A region of ours filled with a pattern: its index in self->reg; its
 * own registrations join @own as targets at its kernel address.
 */
static int region_new(struct __test_metadata *_metadata,
		      FIXTURE_DATA(rogue) *self, struct mrlist *prev,
		      struct tgtlist *own)
{
	static struct mrlist d;
	int i = self->nreg;
	uint64_t ka;
	int ret;

	if (i == MAX_REGIONS)
		return -1;
	ret = txrdma_region_create(self->ctx, HUGE, 0, &self->reg[i]);
	EXPECT_EQ(0, ret) TH_LOG("region create: %s", strerror(-ret));
	if (ret)
		return -1;
	rnd(&self->seed[i], sizeof(self->seed[i]));
	pat_fill(self->reg[i].addr, HUGE, self->seed[i]);
	self->nreg++;
	ka = kernel_addr(self->reg[i].addr);
	EXPECT_EQ(0, mr_step(self->ibdev, prev, &d));
	for (int j = 0; j < d.n; j++) {
		struct target *t = tgt_add(own, d.m[j].rkey, ka,
					   "mr %u (region %u's own registration%s)",
					   d.m[j].mrn, self->reg[i].id,
					   ka ? "" : ", address unknown");

		/* the first registration starts where the region does */
		if (t && !j)
			t->local = self->reg[i].addr;
	}
	return i;
}

/*
 * A pair over the self peer: its ring regions' own registrations join
 * @own (at their kernel addresses), the registrations pairing made
 * (the receive rings) are left in @rings.
 */
static struct lpair *pair_new(struct __test_metadata *_metadata,
			      FIXTURE_DATA(rogue) *self, uint32_t svc,
			      struct mrlist *prev, struct tgtlist *own,
			      struct mrlist *rings)
{
	static struct mrlist d;
	struct lpair *p = calloc(1, sizeof(*p));
	uint64_t ka[2];
	int ret;

	rings->n = 0;
	if (!p || self->npairs == MAX_PAIRS) {
		free(p);
		return NULL;
	}
	self->pairs[self->npairs++] = p;
	ret = lpair_prepare(p, svc);
	EXPECT_EQ(0, ret) TH_LOG("pair sides: %s", strerror(-ret));
	if (ret)
		return NULL;
	for (int i = 0; i < 2; i++)
		ka[i] = kernel_addr(p->s[i].ring.addr);
	EXPECT_EQ(0, mr_step(self->ibdev, prev, &d));
	/* listed in the order they were made: side 0's region first */
	for (int j = 0; j < d.n; j++) {
		struct side *sd = &p->s[j ? 1 : 0];
		struct target *t = tgt_add(own, d.m[j].rkey, ka[j ? 1 : 0],
					   "mr %u (ring region %u's own registration%s)",
					   d.m[j].mrn, sd->ring.id,
					   ka[j ? 1 : 0] ? "" : ", address unknown");

		if (t)
			t->local = sd->ring.addr;
	}
	ret = lpair_connect(p);
	EXPECT_EQ(0, ret) TH_LOG("pair on service %#x: %s", svc,
				 strerror(-ret));
	if (ret)
		return NULL;
	EXPECT_EQ(0, mr_step(self->ibdev, prev, rings));
	return p;
}

/* A request the module takes as well-formed: captured, or today's v1. */
static void make_captured(struct __test_metadata *_metadata,
			  FIXTURE_DATA(rogue) *self)
{
	if (self->auth) {
		rg_req_v2(self->captured, RG_VERSION, RG_KIND_POOL, 0, 0x600dcafe);
		ASSERT_EQ(0, rg_req_seal(self->captured, &self->key));
		self->captured_len = RG_REQ_LEN;
	} else {
		rg_req_v1(self->captured, RG_KIND_POOL, 0, 0x600dcafe);
		self->captured_len = RG_REQ_V1_LEN;
	}
}

static const char *wc_str(int status)
{
	return status >= 0 ? ibv_wc_status_str(status) : strerror(-status);
}

/* What a READ that got through brought back, and whether it is @t's. */
static void read_report(const struct target *t)
{
	const uint8_t *b = rg_buf() + LOFF_READ;

	printf("# READ %s brought back %02x %02x %02x %02x ...%s\n", t->what,
	       b[0], b[1], b[2], b[3],
	       !t->local ? "" : memcmp(b, t->local, ACCESS_LEN) ?
	       " (not the region's bytes)" :
	       " = the region's first 64 bytes, as our mapping shows them");
}

/*
 * One remote access on an established @c: counted; returns the
 * completion status (>= 0) or -errno.
 */
static int access_once(struct rg_conn *c, bool write, const struct target *t,
		       bool residual)
{
	int s;

	memset(rg_buf() + LOFF_READ, 0, ACCESS_LEN);
	memset(rg_buf() + LOFF_WRITE, ROGUE_BYTE, ACCESS_LEN);
	s = rg_post(c, write ? IBV_WR_RDMA_WRITE : IBV_WR_RDMA_READ, t->rkey,
		    t->addr, ACCESS_LEN, write ? LOFF_WRITE : LOFF_READ);
	if (residual) {
		st->residual_tried++;
		st->residual_ok += s == IBV_WC_SUCCESS;
	} else {
		st->access_tried++;
		st->access_ok += s == IBV_WC_SUCCESS;
		if (s >= 0 && s < 32)
			st->wc_status[s]++;
	}
	printf("# %s %s rkey %#x addr %#llx: %s\n", write ? "WRITE" : "READ",
	       t->what, t->rkey, (unsigned long long)t->addr, wc_str(s));
	if (s == IBV_WC_SUCCESS && !write)
		read_report(t);
	return s;
}

/*
 * A captured request on a fresh connection: true once ESTABLISHED (the
 * replay is counted).  The module refuses a request whose nonce it has
 * answered already (see replays), so each stands for one captured in
 * flight whose original never reached it: a fresh one each time.
 */
static bool replay_open(struct __test_metadata *_metadata,
			FIXTURE_DATA(rogue) *self, struct rg_conn *c)
{
	int ret = rg_open(c, &self->tgt);

	EXPECT_EQ(0, ret) TH_LOG("rg_open: %s", strerror(-ret));
	if (ret)
		return false;
	make_captured(_metadata, self);
	ret = rg_connect(c, self->captured, self->captured_len, 30);
	st->replays_sent++;
	st->replays_est += ret == RDMA_CM_EVENT_ESTABLISHED;
	EXPECT_EQ(RDMA_CM_EVENT_ESTABLISHED, ret)
		TH_LOG("replayed request: event %s (%d), status %d",
		       ret >= 0 ? rdma_event_str(ret) : strerror(-ret), ret,
		       c->reject_status);
	return ret == RDMA_CM_EVENT_ESTABLISHED;
}

/*
 * The module must close @c by itself: DISCONNECTED within the bound.
 * Returns the time it took (-1: not closed).  After two replays left
 * open, later ones are not waited for (the module does not close them:
 * today's main).
 */
static double replay_closed(struct __test_metadata *_metadata,
			    FIXTURE_DATA(rogue) *self, struct rg_conn *c,
			    const char *what)
{
	double bound = self->not_closed >= 2 ? 0.5 : CLOSE_BOUND_S;
	double t = rg_wait_disc(c, bound);

	if (t >= 0) {
		st->replays_closed++;
		printf("# %s: closed by the module %.3f s after ESTABLISHED%s\n",
		       what, t, c->disc_by_rej ? " (REJECTED: before its CM had our RTU)" : "");
	} else {
		self->not_closed++;
	}
	EXPECT_LE(0, t) TH_LOG("%s: not closed by the module within %.1f s",
			       what, bound);
	return t;
}

/*
 * A connection with the key: request with MAC, reply checked, AUTH
 * sent, then a zero-length WRITE completes once the module opened
 * remote access (tried again on a new connection with a longer wait
 * if it raced the module's opening).  0 or -errno.
 */
static int keyed_open(struct __test_metadata *_metadata,
		      FIXTURE_DATA(rogue) *self, struct rg_conn *c)
{
	static const int waits_ms[] = { 20, 200, 1000 };
	uint8_t req[RG_REQ_LEN];
	int ret, s;

	for (unsigned int i = 0; i < 3; i++) {
		ret = rg_open(c, &self->tgt);
		if (ret)
			return ret;
		if (self->auth) {
			rg_req_v2(req, RG_VERSION, RG_KIND_POOL, 0, 0x0bad0bad);
			ret = rg_req_seal(req, &self->key);
			if (ret)
				goto fail;
			ret = rg_connect(c, req, RG_REQ_LEN, 30);
		} else {
			rg_req_v1(req, RG_KIND_POOL, 0, 0x0bad0bad);
			ret = rg_connect(c, req, RG_REQ_V1_LEN, 30);
		}
		if (ret != RDMA_CM_EVENT_ESTABLISHED) {
			TH_LOG("keyed request: %s (status %d)",
			       ret >= 0 ? rdma_event_str(ret) : strerror(-ret),
			       c->reject_status);
			ret = -ECONNREFUSED;
			goto fail;
		}
		if (self->auth) {
			ret = rg_rep_check(c->rep, c->rep_len, req, RG_KIND_POOL,
					   &self->key);
			EXPECT_EQ(0, ret) TH_LOG("the module's reply does not prove the key: %d",
						 ret);
			if (ret)
				goto fail;
			ret = rg_auth(rg_buf() + LOFF_AUTH, req, c->rep,
				      &self->key);
			if (ret)
				goto fail;
			s = rg_post(c, IBV_WR_SEND, 0, 0, RG_CTRL_LEN, LOFF_AUTH);
			if (s != IBV_WC_SUCCESS) {
				TH_LOG("AUTH send: %s", wc_str(s));
				ret = -EIO;
				goto fail;
			}
		}
		msleep(waits_ms[i]);
		s = rg_post(c, IBV_WR_RDMA_WRITE, 0, 0, 0, 0);
		if (s == IBV_WC_SUCCESS)
			return 0;
		TH_LOG("zero-length WRITE %d ms after AUTH: %s", waits_ms[i],
		       wc_str(s));
		rg_close(c);
	}
	return -EACCES;
fail:
	rg_close(c);
	return ret ? ret : -EIO;
}

/* ---- 0: the MAC tool itself ------------------------------------------ */

/* RFC 4231 test case 2: AF_ALG's hmac(sha256) is what the module uses. */
TEST(hmac_rfc4231)
{
	static const uint8_t want[RG_MAC_LEN] = {
		0x5b, 0xdc, 0xc1, 0x46, 0xbf, 0x60, 0x75, 0x4e,
		0x6a, 0x04, 0x24, 0x26, 0x08, 0x95, 0x75, 0xc7,
		0x5a, 0x00, 0x3f, 0x08, 0x9d, 0x27, 0x39, 0x83,
		0x9d, 0xec, 0x58, 0xb9, 0x64, 0xec, 0x38, 0x43,
	};
	struct rg_key k = { .b = "Jefe", .len = 4 };
	uint8_t mac[RG_MAC_LEN];
	int ret;

	/* label "" + data: the plain HMAC of the data */
	ret = rg_hmac(&k, "what do ya ", "want ", 5, "for nothing?", 12,
		      mac);
	ASSERT_EQ(0, ret) TH_LOG("AF_ALG hmac(sha256): %s", strerror(-ret));
	ASSERT_EQ(0, memcmp(mac, want, RG_MAC_LEN));
}

/* ---- 1: forged requests ---------------------------------------------- */

enum forged_kind { F_FORM, F_MAC };

struct forged {
	const char *what;
	enum forged_kind kind;	/* refused for its form, or for its MAC */
	uint8_t buf[56];
	uint8_t len;		/* 0: no private data */
};

TEST_F_TIMEOUT(rogue, forged_requests, 600)
{
	struct forged f[24];
	struct rg_key other;
	struct psnap after;
	int n = 0, n_mac = 0, refused = 0;

	/* refused for their form (before any key is looked at) */
	f[n++] = (struct forged){ .what = "no private data", .kind = F_FORM };
	f[n] = (struct forged){ .what = "56 random bytes", .kind = F_FORM, .len = 56 };
	rnd(f[n++].buf, 56);
	f[n] = (struct forged){ .what = "today's main format (v1, no MAC)", .kind = F_FORM,
				.len = RG_REQ_V1_LEN };
	rg_req_v1(f[n++].buf, RG_KIND_POOL, 2, 1);
	f[n] = (struct forged){ .what = "v2 with the next version", .kind = F_FORM, .len = RG_REQ_LEN };
	rg_req_v2(f[n].buf, RG_VERSION + 1, RG_KIND_POOL, 0, 1);
	if (self->auth)
		ASSERT_EQ(0, rg_req_seal(f[n].buf, &self->key));
	n++;
	f[n] = (struct forged){ .what = "v2 with kind 7", .kind = F_FORM, .len = RG_REQ_LEN };
	rg_req_v2(f[n].buf, RG_VERSION, 7, 0, 1);
	if (self->auth)
		ASSERT_EQ(0, rg_req_seal(f[n].buf, &self->key));
	n++;
	f[n] = (struct forged){ .what = "v2 with reserved bytes set (right MAC)", .kind = F_FORM, .len = RG_REQ_LEN };
	rg_req_v2(f[n].buf, RG_VERSION, RG_KIND_POOL, 0, 1);
	f[n].buf[13] = 1;
	if (self->auth)
		ASSERT_EQ(0, rg_req_seal(f[n].buf, &self->key));
	n++;
	/* rdma_cm pads private data to 56 bytes with zeroes: to the module
	 * a short request is a whole one whose MAC ends in zeroes
	 */
	f[n] = (struct forged){ .what = "v2, 47 bytes (rdma_cm pads: MAC ends in 0)",
				.kind = F_MAC, .len = RG_REQ_LEN - 1 };
	do {
		rg_req_v2(f[n].buf, RG_VERSION, RG_KIND_POOL, 0, 1);
		if (self->auth)
			ASSERT_EQ(0, rg_req_seal(f[n].buf, &self->key));
	} while (self->auth && !f[n].buf[RG_REQ_LEN - 1]);
	n++;
	/* well-formed v2: refused for the MAC */
	f[n] = (struct forged){ .what = "v2, MAC zero (control)", .kind = F_MAC, .len = RG_REQ_LEN };
	rg_req_v2(f[n++].buf, RG_VERSION, RG_KIND_CTRL, 0, 1);
	f[n] = (struct forged){ .what = "v2, MAC zero (pooled)", .kind = F_MAC, .len = RG_REQ_LEN };
	rg_req_v2(f[n++].buf, RG_VERSION, RG_KIND_POOL, 0, 1);
	for (int i = 0; i < 4; i++) {
		f[n] = (struct forged){ .what = "v2, random MAC", .kind = F_MAC, .len = RG_REQ_LEN };
		rg_req_v2(f[n].buf, RG_VERSION, i & 1 ? RG_KIND_CTRL : RG_KIND_POOL,
			  i, 1);
		rnd(f[n++].buf + RG_HS_LEN, RG_REQ_MAC_LEN);
	}
	for (int i = 0; i < 4; i++) {
		f[n] = (struct forged){ .what = "v2, MAC with another key", .kind = F_MAC,
					.len = RG_REQ_LEN };
		rg_key_random(&other, 16 + 16 * i);
		rg_req_v2(f[n].buf, RG_VERSION, i & 1 ? RG_KIND_CTRL : RG_KIND_POOL,
			  0, 1);
		ASSERT_EQ(0, rg_req_seal(f[n++].buf, &other));
	}
	if (self->auth) {
		/* the right key, over other bytes: a field changed after */
		f[n] = (struct forged){ .what = "v2, right key, pool_want changed after the MAC", .kind = F_MAC, .len = RG_REQ_LEN };
		rg_req_v2(f[n].buf, RG_VERSION, RG_KIND_POOL, 0, 1);
		ASSERT_EQ(0, rg_req_seal(f[n].buf, &self->key));
		f[n++].buf[7] = 64;
		f[n] = (struct forged){ .what = "v2, right key, nonce changed after the MAC", .kind = F_MAC, .len = RG_REQ_LEN };
		rg_req_v2(f[n].buf, RG_VERSION, RG_KIND_CTRL, 0, 1);
		ASSERT_EQ(0, rg_req_seal(f[n].buf, &self->key));
		f[n++].buf[20] ^= 1;
		f[n] = (struct forged){ .what = "v2, right key, MAC truncated to 15 bytes", .kind = F_MAC, .len = RG_REQ_LEN };
		rg_req_v2(f[n].buf, RG_VERSION, RG_KIND_POOL, 0, 1);
		ASSERT_EQ(0, rg_req_seal(f[n].buf, &self->key));
		f[n++].buf[RG_REQ_LEN - 1] ^= 0xff;
	}

	for (int i = 0; i < n; i++) {
		struct rg_conn c;
		int ret = rg_open(&c, &self->tgt);

		ASSERT_EQ(0, ret) TH_LOG("rg_open: %s", strerror(-ret));
		ret = rg_connect(&c, f[i].len ? f[i].buf : NULL, f[i].len, 30);
		st->forged_sent++;
		n_mac += f[i].kind == F_MAC;
		if (ret == RDMA_CM_EVENT_REJECTED) {
			st->forged_refused++;
			refused++;
		}
		if (ret == RDMA_CM_EVENT_ESTABLISHED)
			st->forged_est++;
		printf("# forged %2d (%s): %s%s\n", i, f[i].what,
		       ret >= 0 ? rdma_event_str(ret) : strerror(-ret),
		       ret == RDMA_CM_EVENT_REJECTED ? "" : "  <== NOT REFUSED");
		if (ret == RDMA_CM_EVENT_REJECTED)
			printf("#    reject status %d\n", c.reject_status);
		EXPECT_EQ(RDMA_CM_EVENT_REJECTED, ret)
			TH_LOG("forged request %d (%s) not rejected", i, f[i].what);
		rg_close(&c);
		sample_up(self);
	}
	EXPECT_EQ(n, refused);

	/* the module's own account */
	ASSERT_EQ(0, peer_snap(&after));
	TH_LOG("after %d forged requests (%d well-formed): %s", n, n_mac,
	       psnap_str(&after));
	EXPECT_EQ(self->base.auth_fails + n_mac, after.auth_fails)
		TH_LOG("auth_fails went from %lld to %lld; %d forged with a well-formed request",
		       self->base.auth_fails, after.auth_fails, n_mac);
	EXPECT_TRUE(pool_settle(&self->base, true, 30, &after))
		TH_LOG("pool or qps changed: was %s", psnap_str(&self->base));
	st->tests_done++;
}

/* ---- 2: replays -------------------------------------------------------- */

/* regions (and ring units) whose bytes must not change: 0 bad */
static size_t regions_check(FIXTURE_DATA(rogue) *self, struct lpair **pairs,
			    int np, const uint32_t *ring_seed)
{
	size_t bad = 0, first = 0, d;

	for (int i = 0; i < self->nreg; i++) {
		d = pat_diff(self->reg[i].addr, HUGE, self->seed[i], &first);
		if (d)
			printf("# region %u: %zu bytes changed, first at %zu\n",
			       self->reg[i].id, d, first);
		bad += d;
	}
	for (int p = 0; p < np; p++)
		for (int s = 0; s < 2; s++) {
			d = pat_diff(ring_units(&pairs[p]->s[s]), RX_LEN,
				     ring_seed[p * 2 + s], &first);
			if (d)
				printf("# ring of pair %d side %d: %zu bytes changed, first at %zu\n",
				       p, s, d, first);
			bad += d;
		}
	return bad;
}

TEST_F_TIMEOUT(rogue, replays, 900)
{
	struct mrlist prev, rings, exp;
	uint8_t auth_a[RG_CTRL_LEN], auth_req[RG_REQ_LEN];
	struct psnap mid, after;
	struct tgtlist tl = { 0 };
	uint32_t ring_seed[2];
	struct lpair *p;
	struct rg_conn c;
	long long fails0;
	int x, ret, s, delivered = 0;
	double t;

	make_captured(_metadata, self);
	/* targets: every MR of txrdma, each at its right address */
	ASSERT_EQ(0, mr_list(self->ibdev, &prev));
	ASSERT_LE(0, region_new(_metadata, self, &prev, &tl));
	x = region_new(_metadata, self, &prev, &tl);
	ASSERT_LE(0, x);
	p = pair_new(_metadata, self, 0x7201, &prev, &tl, &rings);
	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, lpair_export(p, self->reg[x].id));
	ASSERT_EQ(0, mr_step(self->ibdev, &prev, &exp));
	TH_LOG("txrdma MRs: %d (regions' own %d, live pair's rings %d, its export %d)",
	       prev.n, tl.n, rings.n, exp.n);
	if (self->auth) {
		EXPECT_EQ(2, rings.n);
		EXPECT_EQ(1, exp.n);
	}
	for (int i = 0; i < rings.n; i++)
		tgt_add(&tl, rings.m[i].rkey, TXRDMA_RX_HDR_LEN,
			"mr %u (live pair's receive ring)", rings.m[i].mrn);
	for (int i = 0; i < exp.n; i++)
		tgt_add(&tl, exp.m[i].rkey, 0, "mr %u (live pair's export)",
			exp.m[i].mrn);
	for (int i = 0; i < prev.n; i++)
		if (!tgt_has(&tl, prev.m[i].rkey))
			tgt_add(&tl, prev.m[i].rkey, 0, "mr %u (not ours)",
				prev.m[i].mrn);
	tgt_guesses(&tl, 6, &prev);
	for (int i = 0; i < 2; i++) {
		rnd(&ring_seed[i], sizeof(ring_seed[i]));
		pat_fill(ring_units(&p->s[i]), RX_LEN, ring_seed[i]);
	}
	fails0 = self->base.auth_fails;

	/*
	 * An earlier, complete handshake of the captured request: its AUTH
	 * is what an eavesdropper would have recorded with it.
	 */
	memset(auth_a, 0, sizeof(auth_a));
	if (self->auth) {
		memcpy(auth_req, self->captured, RG_REQ_LEN);
		ret = rg_open(&c, &self->tgt);
		ASSERT_EQ(0, ret);
		ret = rg_connect(&c, self->captured, RG_REQ_LEN, 30);
		ASSERT_EQ(RDMA_CM_EVENT_ESTABLISHED, ret);
		ASSERT_EQ(0, rg_rep_check(c.rep, c.rep_len, self->captured,
					  RG_KIND_POOL, &self->key));
		ASSERT_EQ(0, rg_auth(auth_a, self->captured, c.rep, &self->key));
		memcpy(rg_buf() + LOFF_AUTH, auth_a, RG_CTRL_LEN);
		s = rg_post(&c, IBV_WR_SEND, 0, 0, RG_CTRL_LEN, LOFF_AUTH);
		EXPECT_EQ(IBV_WC_SUCCESS, s) TH_LOG("AUTH: %s", wc_str(s));
		msleep(200);
		rg_close(&c);

		/*
		 * That very request again: its nonce was answered, so it is
		 * refused before the module makes anything for it.
		 */
		ret = rg_open(&c, &self->tgt);
		ASSERT_EQ(0, ret);
		ret = rg_connect(&c, auth_req, RG_REQ_LEN, 30);
		st->replays_sent++;
		EXPECT_EQ(RDMA_CM_EVENT_REJECTED, ret)
			TH_LOG("a request answered before: event %s (%d)",
			       ret >= 0 ? rdma_event_str(ret) :
			       strerror(-ret), ret);
		if (ret == RDMA_CM_EVENT_REJECTED) {
			st->replays_refused++;
			delivered++;	/* counted in auth_fails */
		}
		rg_close(&c);
	}

	/* (a) garbage AUTH, three kinds; (b) the earlier AUTH, replayed */
	for (int k = 0; k < 4; k++) {
		static const char *const what[] = {
			"(a) 128 random bytes as AUTH",
			"(a) AUTH with a zero MAC",
			"(a) a 64-byte AUTH",
			"(b) the AUTH of the earlier handshake",
		};
		uint32_t len = RG_CTRL_LEN;
		uint8_t *m;

		if (!replay_open(_metadata, self, &c)) {
			rg_close(&c);
			continue;
		}
		m = rg_buf() + LOFF_AUTH;	/* there once a QP was made */
		memcpy(m, auth_a, RG_CTRL_LEN);
		if (k == 0)
			rnd(m, RG_CTRL_LEN);
		else if (k == 1)
			memset(m + RG_CTRL_MAC_OFF, 0, RG_MAC_LEN);
		else if (k == 2)
			len = 64;
		s = rg_post(&c, IBV_WR_SEND, 0, 0, len, LOFF_AUTH);
		printf("# %s: SEND %s\n", what[k], wc_str(s));
		delivered += s == IBV_WC_SUCCESS;
		replay_closed(_metadata, self, &c, what[k]);
		rg_close(&c);
		sample_up(self);
	}
	ASSERT_EQ(0, peer_snap(&mid));
	EXPECT_EQ(fails0 + delivered, mid.auth_fails)
		TH_LOG("auth_fails %lld -> %lld after %d bad AUTH messages delivered",
		       fails0, mid.auth_fails, delivered);
	if (self->auth)
		EXPECT_EQ(5, delivered);

	/* (c) no AUTH at all: closed after the connect timeout */
	if (replay_open(_metadata, self, &c)) {
		t = replay_closed(_metadata, self, &c, "(c) no AUTH");
		if (t >= 0)
			EXPECT_LE(2.5, t) TH_LOG("closed after %.3f s: before the 3 s timeout?",
						 t);
	}
	rg_close(&c);
	sample_up(self);

	/*
	 * In (c)'s window: RDMA READ and WRITE with every rkey, each on a
	 * replayed connection of its own (a refused access errors the QP).
	 */
	for (int i = 0; i < tl.n; i++)
		for (int w = 0; w < 2; w++) {
			if (strstr(tl.t[i].what, "guess") && w != (i & 1))
				continue;
			if (!replay_open(_metadata, self, &c)) {
				rg_close(&c);
				continue;
			}
			s = access_once(&c, w, &tl.t[i], false);
			EXPECT_NE(IBV_WC_SUCCESS, s)
				TH_LOG("%s %s on a half-open QP succeeded",
				       w ? "WRITE" : "READ", tl.t[i].what);
			replay_closed(_metadata, self, &c,
				      "a half-open QP after its access");
			rg_close(&c);
		}
	sample_up(self);

	EXPECT_EQ(0, regions_check(self, &p, 1, ring_seed));
	ASSERT_EQ(0, peer_snap(&after));
	TH_LOG("after the replays: %s", psnap_str(&after));
	EXPECT_EQ(mid.auth_fails, after.auth_fails)
		TH_LOG("no AUTH sent after (b), yet auth_fails moved");
	lpair_end(p);
	EXPECT_TRUE(pool_settle(&self->base, false, 60, &after))
		TH_LOG("pool or qps changed: was %s, now %s",
		       psnap_str(&self->base), psnap_str(&after));
	st->tests_done++;
}

/* ---- 2': the half-open bound ------------------------------------------- */

TEST_F_TIMEOUT(rogue, half_open_bound, 900)
{
	struct rg_conn *c = calloc(BURST, sizeof(*c));
	uint32_t mod_qpn[BURST] = { 0 }, my_qpn[BURST] = { 0 };
	struct pollfd pfd[BURST];
	int est = 0, rej = 0, other = 0, cur = 0, max_cur = 0, closed = 0;
	int n = 0, left, listed;
	double t0, end, max_close = 0, next_sample;
	struct psnap after;
	bool done[BURST] = { false };

	ASSERT_NE(NULL, c);
	make_captured(_metadata, self);
	for (n = 0; n < BURST; n++) {
		int ret = rg_open(&c[n], &self->tgt);

		ASSERT_EQ(0, ret) TH_LOG("rg_open %d: %s", n, strerror(-ret));
		my_qpn[n] = c[n].id->qp->qp_num;
	}
	t0 = rg_now();
	for (int i = 0; i < BURST; i++) {
		/* distinct captured requests: one repeated is refused */
		make_captured(_metadata, self);
		ASSERT_EQ(0, rg_connect_start(&c[i], self->captured,
					      self->captured_len));
		st->replays_sent++;
	}
	left = BURST;
	end = t0 + 120;
	next_sample = t0 + 1;
	while (left && rg_now() < end) {
		int k = 0;

		for (int i = 0; i < BURST; i++) {
			pfd[i].fd = c[i].ch->fd;
			pfd[i].events = done[i] ? 0 : POLLIN;
			pfd[i].revents = 0;
		}
		if (poll(pfd, BURST, 100) < 0)
			break;
		for (int i = 0; i < BURST; i++) {
			bool was_est = c[i].est, was_disc = c[i].disc;

			if (!(pfd[i].revents & POLLIN))
				continue;
			if (rg_event(&c[i], 0) <= 0)
				continue;
			k++;
			if (c[i].est && !was_est) {
				est++;
				st->replays_est++;
				cur++;
				mod_qpn[i] = c[i].remote_qpn;
				if (cur > max_cur)
					max_cur = cur;
			}
			if (c[i].disc && !was_disc) {
				cur--;
				closed++;
				st->replays_closed++;
				if (c[i].t_disc - c[i].t_est > max_close)
					max_close = c[i].t_disc - c[i].t_est;
				done[i] = true;
				left--;
			} else if (c[i].rejected && !c[i].est) {
				rej++;
				st->replays_refused++;
				done[i] = true;
				left--;
			} else if (c[i].state == RDMA_CM_EVENT_UNREACHABLE ||
				   c[i].state == RDMA_CM_EVENT_CONNECT_ERROR) {
				other++;
				done[i] = true;
				left--;
			}
		}
		if (rg_now() > next_sample) {
			sample_up(self);
			next_sample = rg_now() + 1;
		}
		(void)k;
	}
	printf("# %d replayed requests at once: %d ESTABLISHED (at most %d at the same time), %d REJECTED, %d other; %d closed by the module (the last %.3f s after its ESTABLISHED), all answered in %.1f s\n",
	       BURST, est, max_cur, rej, other, closed, max_close,
	       rg_now() - t0);
	EXPECT_GE(MAX_HALF_OPEN, max_cur);
	EXPECT_LT(0, est);
	EXPECT_EQ(BURST, est + rej) TH_LOG("%d neither ESTABLISHED nor REJECTED", BURST - est - rej);
	EXPECT_EQ(est, closed) TH_LOG("%d established connections not closed by the module",
				      est - closed);
	EXPECT_GE(CLOSE_BOUND_S, max_close);
	for (int i = 0; i < BURST; i++)
		rg_close(&c[i]);
	free(c);

	/* nothing left of them: the module's QPs and ours */
	end = rg_now() + 60;
	do {
		listed = qps_listed(self->ibdev, mod_qpn, BURST);
		if (!listed)
			listed = qps_listed(self->ibdev, my_qpn, BURST);
		if (!listed)
			break;
		msleep(200);
	} while (rg_now() < end);
	EXPECT_EQ(0, listed) TH_LOG("%d QPs of the burst still listed by rdma res show qp",
				    listed);
	EXPECT_TRUE(pool_settle(&self->base, true, 60, &after))
		TH_LOG("pool or qps changed: was %s, now %s",
		       psnap_str(&self->base), psnap_str(&after));
	TH_LOG("after the burst: %s", psnap_str(&after));
	EXPECT_EQ(self->base.auth_fails, after.auth_fails);
	st->tests_done++;
}

/* ---- 3: an attacker with the key ---------------------------------------- */

TEST_F_TIMEOUT(rogue, keyed_attacker, 900)
{
	struct mrlist prev, rings1, exp1, stale, live;
	struct tgtlist tl = { 0 }, res = { 0 };
	uint32_t ring_seed[2];
	struct lpair *p1, *p2;
	struct psnap after;
	struct rg_conn c;
	int x, ret, s;

	/* (i) regions' own registrations, at their kernel addresses */
	ASSERT_EQ(0, mr_list(self->ibdev, &prev));
	ASSERT_LE(0, region_new(_metadata, self, &prev, &tl));
	x = region_new(_metadata, self, &prev, &tl);
	ASSERT_LE(0, x);
	p1 = pair_new(_metadata, self, 0x7301, &prev, &tl, &rings1);
	ASSERT_NE(NULL, p1);
	ASSERT_EQ(0, lpair_export(p1, self->reg[x].id));
	ASSERT_EQ(0, mr_step(self->ibdev, &prev, &exp1));
	stale = rings1;
	for (int i = 0; i < exp1.n; i++)
		stale.m[stale.n++] = exp1.m[i];
	TH_LOG("pair 1: %d ring registrations, %d export registration",
	       rings1.n, exp1.n);
	if (self->auth)
		EXPECT_EQ(3, stale.n);

	/* the pair ends: every key it gave dies with it */
	lpair_end(p1);
	if (self->auth) {
		EXPECT_TRUE(mr_wait_gone(self->ibdev, &stale, 30))
			TH_LOG("the registrations of an ended pair are still listed");
	} else {
		msleep(2000);
	}
	for (int i = 0; i < 2; i++) {
		rnd(&ring_seed[i], sizeof(ring_seed[i]));
		pat_fill(ring_units(&p1->s[i]), RX_LEN, ring_seed[i]);
	}
	ASSERT_EQ(0, mr_list(self->ibdev, &prev));

	/* a live pair, for the residual (its ring regions join (i)) */
	p2 = pair_new(_metadata, self, 0x7302, &prev, &tl, &live);
	ASSERT_NE(NULL, p2);
	for (int i = 0; i < 2; i++)
		memset(ring_units(&p2->s[i]), 0, RX_LEN);

	/* (ii) stale: the ended pair's rings and export, where they were */
	for (int i = 0; i < rings1.n; i++)
		tgt_add(&tl, rings1.m[i].rkey, TXRDMA_RX_HDR_LEN,
			"mr %u (ended pair's receive ring)", rings1.m[i].mrn);
	for (int i = 0; i < exp1.n; i++)
		tgt_add(&tl, exp1.m[i].rkey, 0, "mr %u (ended pair's export)",
			exp1.m[i].mrn);
	/* (iii) guesses, some at the index of a live or stale MR */
	{
		struct mrlist near = live;

		for (int i = 0; i < stale.n; i++)
			near.m[near.n++] = stale.m[i];
		tgt_guesses(&tl, 10, &near);
	}
	for (int i = 0; i < live.n; i++)
		tgt_add(&res, live.m[i].rkey, TXRDMA_RX_HDR_LEN,
			"mr %u (LIVE pair's receive ring)", live.m[i].mrn);

	for (int i = 0; i < tl.n; i++)
		for (int w = 0; w < 2; w++) {
			if (strstr(tl.t[i].what, "guess") && w != (i & 1))
				continue;
			ret = keyed_open(_metadata, self, &c);
			ASSERT_EQ(0, ret) TH_LOG("no authenticated QP: %s",
						 strerror(-ret));
			s = access_once(&c, w, &tl.t[i], false);
			EXPECT_NE(IBV_WC_SUCCESS, s)
				TH_LOG("%s %s from an authenticated QP succeeded",
				       w ? "WRITE" : "READ", tl.t[i].what);
			if (s != IBV_WC_SUCCESS)
				EXPECT_EQ(IBV_WC_REM_ACCESS_ERR, s);
			rg_close(&c);
		}
	sample_up(self);

	/* the residual, reported only */
	for (int i = 0; i < res.n; i++)
		for (int w = 0; w < 2; w++) {
			ret = keyed_open(_metadata, self, &c);
			ASSERT_EQ(0, ret);
			access_once(&c, w, &res.t[i], true);
			rg_close(&c);
		}
	for (int i = 0; i < 2; i++) {
		const uint8_t *u = ring_units(&p2->s[i]);
		int landed = 0;

		for (int j = 0; j < ACCESS_LEN; j++)
			landed += u[j] == ROGUE_BYTE;
		printf("# residual: live pair, side %d's ring: %d of %d bytes hold the attacker's WRITE\n",
		       i, landed, ACCESS_LEN);
	}

	EXPECT_EQ(0, regions_check(self, &p1, 1, ring_seed));
	sample_up(self);
	lpair_end(p2);
	EXPECT_TRUE(pool_settle(&self->base, false, 60, &after))
		TH_LOG("pool or qps changed: was %s, now %s",
		       psnap_str(&self->base), psnap_str(&after));
	TH_LOG("after the keyed attacker: %s", psnap_str(&after));
	EXPECT_EQ(self->base.auth_fails, after.auth_fails);
	st->tests_done++;
}

/* ---- summary ------------------------------------------------------------- */

FIXTURE(summary) {
	int unused;
};

FIXTURE_SETUP(summary)
{
}

FIXTURE_TEARDOWN(summary)
{
}

/* after every test of the rogue fixture (fixtures run in order) */
TEST_F(summary, counts)
{
	char hist[512] = "";
	size_t n = 0;

	for (int i = 0; i < 32; i++)
		if (st->wc_status[i])
			n += snprintf(hist + n, sizeof(hist) - n, "%s%s %d",
				      n ? ", " : "", ibv_wc_status_str(i),
				      st->wc_status[i]);
	printf("rogue: %d forged refused, %d replays closed, %d remote accesses attempted, %d succeeded\n",
	       st->forged_refused, st->replays_closed, st->access_tried,
	       st->access_ok);
	printf("# forged: %d sent, %d refused, %d ESTABLISHED; replays: %d sent, %d ESTABLISHED, %d refused (half-open bound), %d closed by the module; accesses by completion: %s; residual (live ring rkey from an authenticated QP): %d of %d succeeded\n",
	       st->forged_sent, st->forged_refused, st->forged_est,
	       st->replays_sent, st->replays_est, st->replays_refused,
	       st->replays_closed, hist[0] ? hist : "none",
	       st->residual_ok, st->residual_tried);
	EXPECT_EQ(4, st->tests_done);
	EXPECT_LT(0, st->forged_sent);
	EXPECT_EQ(st->forged_sent, st->forged_refused);
	EXPECT_EQ(0, st->forged_est);
	EXPECT_LT(0, st->replays_est);
	EXPECT_EQ(st->replays_est, st->replays_closed);
	EXPECT_LT(0, st->access_tried);
	EXPECT_EQ(0, st->access_ok);
}

TEST_HARNESS_MAIN
