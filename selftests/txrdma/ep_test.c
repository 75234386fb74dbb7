// SPDX-License-Identifier: GPL-2.0-only
/*
 * Endpoints (TXRDMA_IOC_EP_*): creating one charges the caller's tenant
 * one endpoint and one QP and lends it a ready, connected QP of the
 * peer's pool; the qps and endpoints limits are exact and a refusal
 * changes nothing but its counter; an empty pool is -EAGAIN (a miss);
 * destroy, close, exit and kill -9 give the QP back to the pool and the
 * quota back to the tenant; endpoints belong to their open file; bad
 * input is refused with its errno and changes nothing; an endpoint
 * whose peer is deleted or set down reports -ENOTCONN, one whose tenant
 * is force-deleted -EPERM, one whose RDMA device is removed -EIO, and
 * holds no QP any more; a pool resized below what is lent closes only
 * ready QPs; 1,000 create/destroy cycles leave nothing behind; the undo
 * of a create that cannot answer survives a concurrent destroy.
 *
 * The peer is this guest itself ("self peer"): its own IPv4 address,
 * which rxe serves by loopback, added with txrdma-admin.  What the
 * module did is read back from it: tenant usage and refusals over
 * netlink (what "tenant show -j" prints), "txrdma-admin -j peer show"
 * for the pool, EP_INFO, and "rdma -j res show qp" for the QPs.
 *
 * Every test runs with tenant ep-a on /txrdma-ep/a (limits set per
 * test); /txrdma-ep/none has no tenant.  Each test adds the peer "ep-self"
 * with its own pool size and deletes it; its liveness detection time is
 * 5 s (TXRDMA_EP_BFD), and the teardown fails a test during which the
 * session went down by itself.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/txrdma.h>
#include <txrdma.h>

#include "kselftest_harness.h"
#include "nlmini.h"
#include "tenant_util.h"

#define DEV		"/dev/txrdma"
#define CG_ROOT		"/sys/fs/cgroup"
#define CG_BASE		CG_ROOT "/txrdma-ep"
#define CG_A		CG_BASE "/a"
#define CG_NONE		CG_BASE "/none"
#define TA		"ep-a"
#define PEER		"ep-self"
#define REFCNT		"/sys/module/txrdma/refcnt"
#define PG		4096UL

#define LIM_QPS		TXRDMA_A_LIMIT_QPS
#define LIM_EPS		TXRDMA_A_LIMIT_ENDPOINTS
#define UNLIM		TXRDMA_UNLIMITED

/* ---- endpoint ioctls: 0 or -errno ---------------------------------- */

static int ep_create(int fd, const char *peer, struct txrdma_ep_create *c)
{
	memset(c, 0, sizeof(*c));
	snprintf((char *)c->peer, sizeof(c->peer), "%s", peer);
	return ioctl(fd, TXRDMA_IOC_EP_CREATE, c) ? -errno : 0;
}

static int ep_info(int fd, uint32_t id, struct txrdma_ep_info *i)
{
	memset(i, 0, sizeof(*i));
	i->id = id;
	return ioctl(fd, TXRDMA_IOC_EP_INFO, i) ? -errno : 0;
}

static int ep_destroy(int fd, uint32_t id)
{
	struct txrdma_ep_info i = { .id = id };

	return ioctl(fd, TXRDMA_IOC_EP_DESTROY, &i) ? -errno : 0;
}

/* ---- commands: txrdma-admin, rdma, jq ------------------------------ */

static const char *admin(void)
{
	static char path[PATH_MAX];
	char exe[PATH_MAX - 64];
	const char *env = getenv("TXRDMA_ADMIN");
	ssize_t n;

	if (env && *env)
		return env;
	if (path[0])
		return path;
	/* this binary is selftests/txrdma/ep_test of the checkout */
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return "txrdma-admin";
	exe[n] = 0;
	*strrchr(exe, '/') = 0;
	snprintf(path, sizeof(path), "%s/../../tools/txrdma-admin/txrdma-admin",
		 exe);
	return path;
}

/*
 * Run a shell command; its stdout (without the last newline) goes to
 * @out.  Returns its exit status, or -1 if it did not exit.
 */
static int __attribute__((format(printf, 3, 4)))
sh(char *out, size_t len, const char *fmt, ...)
{
	char cmd[2048], dummy[256];
	size_t n = 0;
	va_list ap;
	FILE *f;
	int st;

	if (!out) {
		out = dummy;
		len = sizeof(dummy);
	}
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	fflush(NULL);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	for (;;) {
		size_t got;

		if (n + 1 >= len) {	/* drain what does not fit */
			if (!fread(dummy, 1, sizeof(dummy), f))
				break;
			continue;
		}
		got = fread(out + n, 1, len - 1 - n, f);
		if (!got)
			break;
		n += got;
	}
	out[n] = 0;
	if (n && out[n - 1] == '\n')
		out[n - 1] = 0;
	st = pclose(f);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The pool and state of a peer, as "txrdma-admin -j peer show" has them. */
struct psnap {
	uint32_t id;
	char state[16];
	uint32_t min, max, ready, in_use, connecting, closing, qps;
	uint64_t takes, misses, errors, downs;
};

/* 0, or -1 when the peer is not there (or the output is not understood) */
static int peer_snap(const char *name, struct psnap *p)
{
	char buf[512];

	memset(p, 0, sizeof(*p));
	sh(buf, sizeof(buf),
	   "%s -j peer show %s 2>/dev/null | jq -r '.[0] | \"\\(.id) \\(.state) "
	   "\\(.pool.min) \\(.pool.max) \\(.pool.ready) \\(.pool.in_use) "
	   "\\(.pool.connecting) \\(.pool.closing) \\(.pool.takes) "
	   "\\(.pool.misses) \\(.pool.errors) \\(.qps) \\(.downs)\"'",
	   admin(), name);
	if (sscanf(buf, "%u %15s %u %u %u %u %u %u %lu %lu %lu %u %lu", &p->id,
		   p->state, &p->min, &p->max, &p->ready, &p->in_use,
		   &p->connecting, &p->closing, &p->takes, &p->misses,
		   &p->errors, &p->qps, &p->downs) != 13)
		return -1;
	return 0;
}

static const char *psnap_str(const struct psnap *p)
{
	static char buf[256];

	snprintf(buf, sizeof(buf),
		 "state %s pool %u:%u ready %u in_use %u connecting %u closing %u takes %lu misses %lu errors %lu qps %u downs %lu",
		 p->state, p->min, p->max, p->ready, p->in_use, p->connecting,
		 p->closing, p->takes, p->misses, p->errors, p->qps, p->downs);
	return buf;
}

static void msleep(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Poll (bounded) until peer @name is up with at least @ready ready QPs
 * and, unless @in_use < 0, exactly @in_use lent.  The last snapshot is
 * left in @p.  Returns true once it holds.
 */
static bool peer_wait(const char *name, uint32_t ready, int in_use,
		      double timeout_s, struct psnap *p)
{
	double end = now_s() + timeout_s;

	for (;;) {
		if (!peer_snap(name, p) && !strcmp(p->state, "up") &&
		    p->ready >= ready &&
		    (in_use < 0 || p->in_use == (uint32_t)in_use))
			return true;
		if (now_s() > end)
			return false;
		msleep(20);
	}
}

/* QPs of rdma_cm (txrdma's peer QPs): their numbers and states */
struct qplist {
	int n;
	uint32_t lqpn[512];
	char state[512][8];
};

static int rdma_qps(struct qplist *l)
{
	static char buf[32768];
	char *line, *save = NULL;

	l->n = 0;
	if (sh(buf, sizeof(buf),
	       "rdma -j res show qp | jq -r '.[] | select(.comm == \"rdma_cm\""
	       " or ((.comm | test(\"txrdma\")) and .lqpn != .rqpn))"
	       " | \"\\(.lqpn) \\(.state)\"'"))
		return -1;
	for (line = strtok_r(buf, "\n", &save); line && l->n < 512;
	     line = strtok_r(NULL, "\n", &save))
		if (sscanf(line, "%u %7s", &l->lqpn[l->n], l->state[l->n]) == 2)
			l->n++;
	return 0;
}

/* "RTS" etc. for QP @qpn, or NULL when rdma res does not list it */
static const char *qp_state(const struct qplist *l, uint32_t qpn)
{
	for (int i = 0; i < l->n; i++)
		if (l->lqpn[i] == qpn)
			return l->state[i];
	return NULL;
}

static bool qp_rts(uint32_t qpn)
{
	struct qplist l;
	const char *s;

	if (rdma_qps(&l))
		return false;
	s = qp_state(&l, qpn);
	return s && !strcmp(s, "RTS");
}

/* QP @qpn is gone from rdma res within @timeout_s */
static bool qp_gone(uint32_t qpn, double timeout_s)
{
	double end = now_s() + timeout_s;
	struct qplist l;

	for (;;) {
		if (!rdma_qps(&l) && !qp_state(&l, qpn))
			return true;
		if (now_s() > end)
			return false;
		msleep(50);
	}
}

/* the number of rdma_cm QPs is @want within @timeout_s; else -1 or it */
static int rdma_qps_settle(int want, double timeout_s)
{
	double end = now_s() + timeout_s;
	struct qplist l;

	for (;;) {
		if (rdma_qps(&l))
			return -1;
		if (l.n == want || now_s() > end)
			return l.n;
		msleep(50);
	}
}

/*
 * The guest's own IPv4 address on the netdev of the first RDMA link
 * (rxe0 on eth0), or $TXRDMA_EP_SELF_ADDR.
 */
static int self_addr(char *addr, size_t len)
{
	const char *env = getenv("TXRDMA_EP_SELF_ADDR");
	char ndev[64];

	if (env && *env) {
		snprintf(addr, len, "%s", env);
		return 0;
	}
	if (sh(ndev, sizeof(ndev), "rdma -j link show | jq -r '.[0].netdev'") ||
	    !ndev[0] || !strcmp(ndev, "null"))
		return -1;
	if (sh(addr, len, "ip -j -4 addr show dev %s | jq -r "
	       "'.[0].addr_info[] | select(.family == \"inet\") | .local' | head -1",
	       ndev) || !addr[0] || !strcmp(addr, "null"))
		return -1;
	return 0;
}

/* name and netdev of the first RDMA link */
static int rdma_link(char ibdev[32], char ndev[32])
{
	char buf[128];

	if (sh(buf, sizeof(buf), "rdma -j link show | jq -r "
	       "'.[0] | \"\\(.ifname) \\(.netdev)\"'") ||
	    sscanf(buf, "%31s %31s", ibdev, ndev) != 2 ||
	    !strcmp(ibdev, "null"))
		return -1;
	return 0;
}

/*
 * Add rxe device @ibdev on @ndev back if it is missing; true once its
 * port is ACTIVE (bounded poll).
 */
static bool rdma_link_restore(const char *ibdev, const char *ndev,
			      double timeout_s)
{
	double end = now_s() + timeout_s;
	char buf[64];

	if (sh(buf, sizeof(buf), "rdma -j link show | jq -r '.[] | "
	       "select(.ifname == \"%s\") | .ifname'", ibdev) || !buf[0])
		sh(NULL, 0, "rdma link add %s type rxe netdev %s 2>&1", ibdev,
		   ndev);
	for (;;) {
		if (!sh(buf, sizeof(buf), "rdma -j link show | jq -r '.[] | "
			"select(.ifname == \"%s\") | .state'", ibdev) &&
		    !strcmp(buf, "ACTIVE"))
			return true;
		if (now_s() > end)
			return false;
		msleep(50);
	}
}

/* ---- what the tenant module reports --------------------------------- */

/* usage (or refusals) of one limit of tenant @name, or -errno */
static int64_t t_get(struct nlmini *nl, const char *name, int lim,
		     bool refused)
{
	struct tenant t;
	int ret = get_tenant(nl, name, &t);

	if (ret)
		return ret;
	return refused ? t.refused[TENANT_LIM(lim)] : t.usage[TENANT_LIM(lim)];
}

#define used(lim)	t_get(&self->nl, TA, lim, false)
#define refused(lim)	t_get(&self->nl, TA, lim, true)

static int set_limits(struct nlmini *nl, uint64_t qps, uint64_t eps)
{
	uint64_t lim[] = { LIM_QPS, qps, LIM_EPS, eps, 0 };

	return tenant_op(nl, TXRDMA_CMD_TENANT_SET, TA, NULL, -1, lim);
}

/* ---- slab and module refcount ---------------------------------------- */

/*
 * An endpoint is a kzalloc() of its own (80 bytes on x86-64), not a
 * slab cache of its own: count the active objects of the small kmalloc
 * caches, each shrunk first so that per-CPU slabs are flushed.
 */
static const char *const kmalloc_caches[] = {
	"kmalloc-64", "kmalloc-96", "kmalloc-128", "kmalloc-192",
	"kmalloc-256",
};
#define NCACHES	(sizeof(kmalloc_caches) / sizeof(kmalloc_caches[0]))

static int slab_read(long out[NCACHES])
{
	char line[512], name[64], path[128];
	int found = 0;
	long v;
	FILE *f;

	for (size_t i = 0; i < NCACHES; i++) {
		int fd;

		out[i] = -1;
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s/shrink",
			 kmalloc_caches[i]);
		fd = open(path, O_WRONLY);
		if (fd >= 0) {
			ssize_t n = write(fd, "1", 1);

			(void)n;
			close(fd);
		}
	}
	f = fopen("/proc/slabinfo", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %ld", name, &v) != 2)
			continue;
		for (size_t i = 0; i < NCACHES; i++)
			if (!strcmp(name, kmalloc_caches[i])) {
				out[i] = v;
				found++;
			}
	}
	fclose(f);
	return found ? 0 : -1;
}

static long module_refcnt(void)
{
	long v = -1;
	FILE *f = fopen(REFCNT, "r");

	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* ---- forked children: no ASSERT (it would run the teardown) ---------- */

#define CHILD_CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "# child %d: %s:%d: %s (errno %d)\n", \
			getpid(), __FILE__, __LINE__, #cond, errno); \
		_exit(1); \
	} \
} while (0)

/* ---- fixture ------------------------------------------------------- */

static void cg_kill(const char *dir)
{
	char path[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/cgroup.kill", dir);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return;
	n = write(fd, "1", 1);	/* best effort */
	(void)n;
	close(fd);
}

static void cg_rmdir(const char *dir)
{
	for (int i = 0; i < 200; i++) {
		if (!rmdir(dir) || errno == ENOENT)
			return;
		msleep(10);
	}
}

/*
 * Liveness of the self peer: a detection time of 5 s (200 ms x 25), so
 * that a guest stalled by a busy host (TCG) does not take it down in
 * the middle of a test; $TXRDMA_EP_BFD overrides ("" for the defaults).
 */
static const char *bfd_args(void)
{
	const char *env = getenv("TXRDMA_EP_BFD");

	return env ? env : "tx 200000 rx 200000 mult 25";
}

/* Delete every peer on @addr (leftovers of a run that crashed). */
static void peers_del_addr(const char *addr)
{
	char names[1024], *n, *save = NULL;

	sh(names, sizeof(names),
	   "%s -j peer show 2>/dev/null | jq -r '.[] | select(.addr == \"%s\") | .name'",
	   admin(), addr);
	for (n = strtok_r(names, "\n", &save); n; n = strtok_r(NULL, "\n", &save))
		sh(NULL, 0, "%s peer del %s 2>&1", admin(), n);
}

FIXTURE(ep) {
	struct nlmini nl;
	bool nl_open;
	bool skip;
	char addr[64];
	int qps0;		/* rdma_cm QPs before the peer was added */
	uint32_t peer_id;
	char ibdev[32], ndev[32];	/* the first RDMA link: rxe0 eth0 */
	uint64_t downs0;	/* the peer's downs once it was up */
	bool peer_cycled;	/* the test takes the peer down itself */
};

FIXTURE_SETUP(ep)
{
	struct txrdma_probe p;
	struct stat st;
	int fd;

	ASSERT_EQ(0, stat(CG_ROOT "/cgroup.controllers", &st))
		TH_LOG("cgroup2 is not mounted at " CG_ROOT);
	fd = open(DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("open " DEV ": %s", strerror(errno));
	memset(&p, 0, sizeof(p));
	ASSERT_EQ(0, ioctl(fd, TXRDMA_IOC_PROBE, &p));
	close(fd);
	if (!(p.features & TXRDMA_FEAT_ENDPOINTS) ||
	    !(p.features & TXRDMA_FEAT_PEERS)) {
		self->skip = true;
		SKIP(return, "the module has no endpoints (features %#llx)",
		     (unsigned long long)p.features);
	}
	ASSERT_EQ(0, access(admin(), X_OK)) TH_LOG("no %s", admin());
	ASSERT_EQ(0, self_addr(self->addr, sizeof(self->addr)))
		TH_LOG("no IPv4 address on the first RDMA link's netdev");
	ASSERT_EQ(0, rdma_link(self->ibdev, self->ndev));
	ASSERT_EQ(0, nlmini_open(&self->nl));
	self->nl_open = true;
	/* leftovers of a run that crashed */
	tenant_del_force(&self->nl, TA);
	peers_del_addr(self->addr);
	self->qps0 = rdma_qps_settle(0, 5);
	ASSERT_LE(0, self->qps0) TH_LOG("rdma -j res show qp failed");
	mkdir(CG_BASE, 0755);
	mkdir(CG_A, 0755);
	mkdir(CG_NONE, 0755);
	ASSERT_EQ(0, tenant_op(&self->nl, TXRDMA_CMD_TENANT_NEW, TA,
			       "/txrdma-ep/a", -1, NULL))
		TH_LOG("extack: %s", self->nl.extack);
	ASSERT_EQ(0, used(LIM_QPS));
	ASSERT_EQ(0, used(LIM_EPS));
}

FIXTURE_TEARDOWN(ep)
{
	static const char *const dirs[] = { CG_A, CG_NONE };

	struct psnap p;

	/*
	 * A session that went down by itself (a BFD flap: the guest stalled
	 * longer than the detection time) closes lent QPs, which would
	 * explain failures above: say so.
	 */
	if (self->peer_id && !self->peer_cycled && !peer_snap(PEER, &p) &&
	    p.downs != self->downs0) {
		TH_LOG("the self peer went down %lu time(s) during the test (liveness flap, not an endpoint bug): %s",
		       p.downs - self->downs0, psnap_str(&p));
		_metadata->passed = 0;
	}
	cg_enter(CG_ROOT);
	for (int i = 0; i < 2; i++)
		cg_kill(dirs[i]);
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	if (self->addr[0])
		peers_del_addr(self->addr);
	if (self->ibdev[0])
		rdma_link_restore(self->ibdev, self->ndev, 30);
	if (self->nl_open) {
		tenant_del_force(&self->nl, TA);
		nlmini_close(&self->nl);
	}
	for (int i = 0; i < 2; i++)
		cg_rmdir(dirs[i]);
	cg_rmdir(CG_BASE);
}

#define NEED_EPS() do { if (self->skip) return; } while (0)

/* Enter tenant @dir's cgroup and open the device there. */
#define OPEN_IN(dir) ({ \
	int __fd; \
	ASSERT_EQ(0, cg_enter(dir)); \
	__fd = open(DEV, O_RDWR | O_CLOEXEC); \
	ASSERT_LE(0, __fd); \
	__fd; \
})

/* The cluster's peer key file (guest-init.sh installs it). */
static const char *peer_key(void)
{
	const char *k = getenv("TXRDMA_PEER_KEY");

	return k && *k ? k : "/run/txrdma-peer.key";
}

/* Add the self peer with pool MIN:MAX and wait until it is up and full. */
#define PEER_UP(min, max) do { \
	struct psnap __p; \
	char __out[512]; \
	ASSERT_EQ(0, sh(__out, sizeof(__out), "%s peer add " PEER \
			" addr %s key %s pool %u:%u %s 2>&1", admin(), \
			self->addr, peer_key(), (unsigned int)(min), \
			(unsigned int)(max), bfd_args())) \
		TH_LOG("peer add: %s", __out); \
	ASSERT_TRUE(peer_wait(PEER, min, 0, 60, &__p)) \
		TH_LOG("peer not up with %u ready QPs in 60 s: %s", \
		       (unsigned int)(min), psnap_str(&__p)); \
	self->peer_id = __p.id; \
	self->downs0 = __p.downs; \
} while (0)

#define PSNAP(p) ASSERT_EQ(0, peer_snap(PEER, p))

/*
 * Lent QPs came back healthy: no QP of the peer failed and the session
 * stayed Up since @before.  A returned QP may still be closed afterwards
 * by the pool shrinking back to its minimum: it grew while QPs were
 * lent, and after TXRDMA_POOL_IDLE_NS without a take it closes ready
 * QPs beyond the minimum, which on the slow debug kernel can happen
 * before the check.  That is not a failure; say how many.
 */
static void given_back_healthy(struct __test_metadata *_metadata,
			       const char *what, const uint32_t *qpn, int n,
			       const struct psnap *before,
			       const struct psnap *p)
{
	int rts = 0;

	EXPECT_EQ(before->errors, p->errors)
		TH_LOG("%s: a QP failed: %s", what, psnap_str(p));
	EXPECT_EQ(before->downs, p->downs)
		TH_LOG("%s: the peer went down: %s", what, psnap_str(p));
	for (int i = 0; i < n; i++)
		rts += qp_rts(qpn[i]);
	if (rts < n)
		TH_LOG("%s: %d of the %d returned QPs were closed by the pool's shrink (%s)",
		       what, n - rts, n, psnap_str(p));
}

/* ---- tests ----------------------------------------------------------- */

/*
 * qps = 3: three endpoints with distinct ids and QPs (each QP is RTS
 * in rdma res and reported by EP_INFO), the fourth is -EDQUOT counted
 * once against qps; the pool lends exactly three; destroy gives all of
 * it back.
 */
TEST_F_TIMEOUT(ep, qps_limit_exact, 120)
{
	struct txrdma_ep_create c[4];
	struct txrdma_ep_info info;
	struct psnap p0, p;
	int64_t rq0, re0;
	uint32_t qpn[3];
	int fd;

	NEED_EPS();
	ASSERT_EQ(0, set_limits(&self->nl, 3, UNLIM))
		TH_LOG("extack: %s", self->nl.extack);
	PEER_UP(6, 8);
	fd = OPEN_IN(CG_A);
	PSNAP(&p0);
	rq0 = refused(LIM_QPS);
	re0 = refused(LIM_EPS);
	ASSERT_LE(0, rq0);

	for (int i = 0; i < 3; i++) {
		ASSERT_EQ(0, ep_create(fd, PEER, &c[i])) TH_LOG("endpoint %d", i);
		EXPECT_NE(0, c[i].id);
		EXPECT_NE(0, c[i].qp_num);
		for (int j = 0; j < i; j++) {
			EXPECT_NE(c[j].id, c[i].id);
			EXPECT_NE(c[j].qp_num, c[i].qp_num);
		}
		EXPECT_EQ(i + 1, used(LIM_QPS));
		EXPECT_EQ(i + 1, used(LIM_EPS));
		ASSERT_EQ(0, ep_info(fd, c[i].id, &info));
		EXPECT_EQ(self->peer_id, info.peer_id);
		EXPECT_EQ(c[i].qp_num, info.qp_num);
		EXPECT_EQ(0, info.error);
	}
	for (int i = 0; i < 3; i++) {
		EXPECT_TRUE(qp_rts(c[i].qp_num))
			TH_LOG("QP %u of endpoint %u is not an RTS QP in rdma res",
			       c[i].qp_num, c[i].id);
	}

	EXPECT_EQ(-EDQUOT, ep_create(fd, PEER, &c[3]));
	EXPECT_EQ(3, used(LIM_QPS));
	EXPECT_EQ(3, used(LIM_EPS));
	EXPECT_EQ(rq0 + 1, refused(LIM_QPS));
	EXPECT_EQ(re0, refused(LIM_EPS));
	PSNAP(&p);
	EXPECT_EQ(3, p.in_use) TH_LOG("%s", psnap_str(&p));
	EXPECT_EQ(p0.takes + 3, p.takes) TH_LOG("the refused create took a QP");
	EXPECT_EQ(p0.misses, p.misses);

	for (int i = 0; i < 3; i++)
		EXPECT_EQ(0, ep_destroy(fd, c[i].id));
	EXPECT_EQ(0, used(LIM_QPS));
	EXPECT_EQ(0, used(LIM_EPS));
	PSNAP(&p);
	EXPECT_EQ(0, p.in_use) TH_LOG("%s", psnap_str(&p));
	EXPECT_TRUE(peer_wait(PEER, 6, 0, 30, &p)) TH_LOG("%s", psnap_str(&p));
	for (int i = 0; i < 3; i++)
		qpn[i] = c[i].qp_num;
	given_back_healthy(_metadata, "destroy", qpn, 3, &p0, &p);
	/* the limit is free again */
	ASSERT_EQ(0, ep_create(fd, PEER, &c[0]));
	EXPECT_EQ(0, ep_destroy(fd, c[0].id));
	close(fd);
}

/* endpoints = 2, qps unlimited: the same, counted against endpoints. */
TEST_F_TIMEOUT(ep, endpoints_limit_exact, 120)
{
	struct txrdma_ep_create c[3];
	struct psnap p0, p;
	int64_t rq0, re0;
	int fd;

	NEED_EPS();
	ASSERT_EQ(0, set_limits(&self->nl, UNLIM, 2))
		TH_LOG("extack: %s", self->nl.extack);
	PEER_UP(6, 8);
	fd = OPEN_IN(CG_A);
	PSNAP(&p0);
	rq0 = refused(LIM_QPS);
	re0 = refused(LIM_EPS);

	for (int i = 0; i < 2; i++) {
		ASSERT_EQ(0, ep_create(fd, PEER, &c[i])) TH_LOG("endpoint %d", i);
		EXPECT_EQ(i + 1, used(LIM_EPS));
		EXPECT_EQ(i + 1, used(LIM_QPS));
	}
	EXPECT_NE(c[0].id, c[1].id);
	EXPECT_NE(c[0].qp_num, c[1].qp_num);
	EXPECT_TRUE(qp_rts(c[0].qp_num));
	EXPECT_TRUE(qp_rts(c[1].qp_num));

	EXPECT_EQ(-EDQUOT, ep_create(fd, PEER, &c[2]));
	EXPECT_EQ(2, used(LIM_EPS));
	EXPECT_EQ(2, used(LIM_QPS));
	EXPECT_EQ(re0 + 1, refused(LIM_EPS));
	EXPECT_EQ(rq0, refused(LIM_QPS));
	PSNAP(&p);
	EXPECT_EQ(2, p.in_use) TH_LOG("%s", psnap_str(&p));
	EXPECT_EQ(p0.takes + 2, p.takes);

	for (int i = 0; i < 2; i++)
		EXPECT_EQ(0, ep_destroy(fd, c[i].id));
	EXPECT_EQ(0, used(LIM_EPS));
	EXPECT_EQ(0, used(LIM_QPS));
	PSNAP(&p);
	EXPECT_EQ(0, p.in_use) TH_LOG("%s", psnap_str(&p));
	EXPECT_TRUE(peer_wait(PEER, 6, 0, 30, &p)) TH_LOG("%s", psnap_str(&p));
	close(fd);
}

/*
 * Close of the creating file, exit of a child and kill -9 of a blocked
 * child each give back every endpoint: tenant usage and the pool's
 * in_use are 0 at once, the pool is full again, and no QP failed on the
 * way (given_back_healthy()).
 */
TEST_F_TIMEOUT(ep, release_on_close_exit_kill, 180)
{
	struct txrdma_ep_create c[3];
	uint32_t qpn[3];
	int pfd[2], status, fd, fd2;
	struct psnap p, before;
	pid_t pid;

	NEED_EPS();
	PEER_UP(4, 8);
	fd = OPEN_IN(CG_A);

	/* close */
	fd2 = open(DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd2);
	PSNAP(&before);
	for (int i = 0; i < 3; i++) {
		ASSERT_EQ(0, ep_create(fd2, PEER, &c[i]));
		qpn[i] = c[i].qp_num;
	}
	EXPECT_EQ(3, used(LIM_QPS));
	EXPECT_EQ(3, used(LIM_EPS));
	PSNAP(&p);
	EXPECT_EQ(3, p.in_use);
	/* another open file of the same process does not see them */
	EXPECT_EQ(-ENOENT, ep_info(fd, c[0].id, &(struct txrdma_ep_info){ 0 }));
	EXPECT_EQ(0, close(fd2));
	EXPECT_EQ(0, used(LIM_QPS)) TH_LOG("close left qps charged");
	EXPECT_EQ(0, used(LIM_EPS));
	PSNAP(&p);
	EXPECT_EQ(0, p.in_use) TH_LOG("close: %s", psnap_str(&p));
	EXPECT_TRUE(peer_wait(PEER, 4, 0, 30, &p)) TH_LOG("%s", psnap_str(&p));
	given_back_healthy(_metadata, "close", qpn, 3, &before, &p);

	/* exit of a child that created two without closing anything */
	PSNAP(&before);
	ASSERT_EQ(0, pipe(pfd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct txrdma_ep_create cc;
		int cfd;

		close(pfd[0]);
		cfd = open(DEV, O_RDWR | O_CLOEXEC);
		CHILD_CHECK(cfd >= 0);
		for (int i = 0; i < 2; i++) {
			CHILD_CHECK(ep_create(cfd, PEER, &cc) == 0);
			CHILD_CHECK(write(pfd[1], &cc.qp_num, 4) == 4);
		}
		_exit(0);
	}
	close(pfd[1]);
	for (int i = 0; i < 2; i++)
		EXPECT_EQ(4, read(pfd[0], &qpn[i], 4));
	close(pfd[0]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("child status %#x", status);
	EXPECT_EQ(0, used(LIM_QPS)) TH_LOG("exit left qps charged");
	EXPECT_EQ(0, used(LIM_EPS));
	PSNAP(&p);
	EXPECT_EQ(0, p.in_use) TH_LOG("exit: %s", psnap_str(&p));
	EXPECT_TRUE(peer_wait(PEER, 4, 0, 30, &p)) TH_LOG("%s", psnap_str(&p));
	given_back_healthy(_metadata, "exit", qpn, 2, &before, &p);

	/*
	 * kill -9 of a child blocked with three endpoints on two files
	 * (one shared with a dup)
	 */
	ASSERT_EQ(0, pipe(pfd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct txrdma_ep_create cc;
		int f1, f2, f3;

		close(pfd[0]);
		f1 = open(DEV, O_RDWR | O_CLOEXEC);
		f2 = open(DEV, O_RDWR | O_CLOEXEC);
		CHILD_CHECK(f1 >= 0 && f2 >= 0);
		f3 = dup(f2);
		CHILD_CHECK(f3 >= 0);
		CHILD_CHECK(ep_create(f1, PEER, &cc) == 0);
		CHILD_CHECK(write(pfd[1], &cc.qp_num, 4) == 4);
		CHILD_CHECK(ep_create(f2, PEER, &cc) == 0);
		CHILD_CHECK(write(pfd[1], &cc.qp_num, 4) == 4);
		CHILD_CHECK(ep_create(f3, PEER, &cc) == 0);
		CHILD_CHECK(write(pfd[1], &cc.qp_num, 4) == 4);
		for (;;)
			pause();
	}
	close(pfd[1]);
	for (int i = 0; i < 3; i++) {
		ASSERT_EQ(4, read(pfd[0], &qpn[i], 4))
			TH_LOG("the child failed to set up");
	}
	close(pfd[0]);
	EXPECT_EQ(3, used(LIM_QPS));
	EXPECT_EQ(3, used(LIM_EPS));
	PSNAP(&p);
	EXPECT_EQ(3, p.in_use) TH_LOG("%s", psnap_str(&p));
	for (int i = 0; i < 3; i++)
		EXPECT_TRUE(qp_rts(qpn[i]));
	before = p;
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	EXPECT_EQ(0, used(LIM_QPS)) TH_LOG("kill -9 left qps charged");
	EXPECT_EQ(0, used(LIM_EPS));
	PSNAP(&p);
	EXPECT_EQ(0, p.in_use) TH_LOG("kill -9: %s", psnap_str(&p));
	EXPECT_TRUE(peer_wait(PEER, 4, 0, 30, &p)) TH_LOG("%s", psnap_str(&p));
	given_back_healthy(_metadata, "kill -9", qpn, 3, &before, &p);
	close(fd);
}

/*
 * Pool 1:1: the first endpoint takes the only QP; the second is -EAGAIN,
 * counted as a miss, and charges nothing; once the first is destroyed
 * the QP can be taken again.
 */
TEST_F_TIMEOUT(ep, pool_empty_eagain, 120)
{
	struct txrdma_ep_create c1, c2;
	struct psnap p0, p;
	int64_t rq0, re0;
	int fd;

	NEED_EPS();
	PEER_UP(1, 1);
	fd = OPEN_IN(CG_A);
	PSNAP(&p0);
	EXPECT_EQ(1, p0.ready) TH_LOG("%s", psnap_str(&p0));
	rq0 = refused(LIM_QPS);
	re0 = refused(LIM_EPS);

	ASSERT_EQ(0, ep_create(fd, PEER, &c1));
	EXPECT_TRUE(qp_rts(c1.qp_num));
	PSNAP(&p);
	EXPECT_EQ(0, p.ready) TH_LOG("%s", psnap_str(&p));
	EXPECT_EQ(1, p.in_use);
	EXPECT_EQ(p0.takes + 1, p.takes);

	EXPECT_EQ(-EAGAIN, ep_create(fd, PEER, &c2));
	EXPECT_EQ(1, used(LIM_QPS)) TH_LOG("the failed create stayed charged");
	EXPECT_EQ(1, used(LIM_EPS));
	EXPECT_EQ(rq0, refused(LIM_QPS)) TH_LOG("-EAGAIN is not a refusal");
	EXPECT_EQ(re0, refused(LIM_EPS));
	PSNAP(&p);
	EXPECT_EQ(p0.misses + 1, p.misses) TH_LOG("%s", psnap_str(&p));
	EXPECT_EQ(p0.takes + 1, p.takes);
	EXPECT_EQ(1, p.in_use);
	/* and again: one more miss, still nothing charged */
	EXPECT_EQ(-EAGAIN, ep_create(fd, PEER, &c2));
	PSNAP(&p);
	EXPECT_EQ(p0.misses + 2, p.misses);
	EXPECT_EQ(1, used(LIM_QPS));

	EXPECT_EQ(0, ep_destroy(fd, c1.id));
	EXPECT_EQ(0, used(LIM_QPS));
	EXPECT_EQ(0, used(LIM_EPS));
	EXPECT_TRUE(peer_wait(PEER, 1, 0, 30, &p)) TH_LOG("%s", psnap_str(&p));
	ASSERT_EQ(0, ep_create(fd, PEER, &c2));
	EXPECT_EQ(c1.qp_num, c2.qp_num) TH_LOG("pool 1:1 has one QP");
	EXPECT_EQ(0, ep_destroy(fd, c2.id));
	close(fd);
}

/*
 * Endpoints are their open file's: another open file gets -ENOENT, a
 * dup shares them.  Destroy twice, unknown ids, no tenant, unknown peer,
 * non-zero flags/reserved/output fields, bad names, unknown ioctls,
 * faults: each has its errno and changes neither the tenant's usage
 * and refusals nor the pool.
 */
TEST_F_TIMEOUT(ep, isolation_and_bad_input, 120)
{
	struct txrdma_ep_create c, good;
	struct txrdma_ep_info info;
	struct psnap p0, p;
	int64_t rq0, re0;
	int fd, fd2, fd3;
	void *ro;
	static const struct {
		const char *what;
		int field;	/* which field is set to @v */
		uint32_t v;
	} bad[] = {
		{ "flags 1", 0, 1 },
		{ "flags 1 << 31", 0, 1U << 31 },
		{ "id 1 (output)", 1, 1 },
		{ "qp_num 1 (output)", 2, 1 },
		{ "resv0", 3, 1 },
		{ "resv[0]", 4, 1 },
		{ "resv[1]", 5, 1 },
		{ "resv[2]", 6, 1 },
		{ "resv[3]", 7, 1 },
		{ "resv[3] high bit", 7, 0x80000000 },
	};

	NEED_EPS();
	PEER_UP(2, 4);
	fd = OPEN_IN(CG_A);
	ASSERT_EQ(0, ep_create(fd, PEER, &good));
	PSNAP(&p0);
	rq0 = refused(LIM_QPS);
	re0 = refused(LIM_EPS);

	/* another open file of the same tenant and process */
	fd2 = open(DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd2);
	EXPECT_EQ(-ENOENT, ep_info(fd2, good.id, &info));
	EXPECT_EQ(-ENOENT, ep_destroy(fd2, good.id));
	/* a dup is the same open file */
	fd3 = dup(fd);
	ASSERT_LE(0, fd3);
	ASSERT_EQ(0, ep_info(fd3, good.id, &info));
	EXPECT_EQ(good.qp_num, info.qp_num);
	close(fd3);
	ASSERT_EQ(0, ep_info(fd, good.id, &info)) TH_LOG("destroyed by another file");
	EXPECT_EQ(good.qp_num, info.qp_num);
	EXPECT_EQ(0, info.error);

	/* unknown ids */
	EXPECT_EQ(-ENOENT, ep_info(fd, 0, &info));
	EXPECT_EQ(-ENOENT, ep_info(fd, good.id + 1000, &info));
	EXPECT_EQ(-ENOENT, ep_info(fd, ~0U, &info));
	EXPECT_EQ(-ENOENT, ep_destroy(fd, 0));
	EXPECT_EQ(-ENOENT, ep_destroy(fd, ~0U));

	/* unknown peer; a peer name is not an address */
	EXPECT_EQ(-ENOENT, ep_create(fd, "no-such-peer", &c));
	EXPECT_EQ(-ENOENT, ep_create(fd, self->addr, &c));

	/* bad fields */
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&c, 0, sizeof(c));
		strcpy((char *)c.peer, PEER);
		switch (bad[i].field) {
		case 0: c.flags = bad[i].v; break;
		case 1: c.id = bad[i].v; break;
		case 2: c.qp_num = bad[i].v; break;
		case 3: c.resv0 = bad[i].v; break;
		default: c.resv[bad[i].field - 4] = (uint64_t)bad[i].v << 32; break;
		}
		EXPECT_EQ(-1, ioctl(fd, TXRDMA_IOC_EP_CREATE, &c))
			TH_LOG("%s: accepted", bad[i].what);
		EXPECT_EQ(EINVAL, errno) TH_LOG("%s", bad[i].what);
	}
	/* names: empty, 32 bytes without a NUL */
	memset(&c, 0, sizeof(c));
	EXPECT_EQ(-1, ioctl(fd, TXRDMA_IOC_EP_CREATE, &c)) TH_LOG("empty name");
	EXPECT_EQ(EINVAL, errno) TH_LOG("empty name");
	memset(&c, 0, sizeof(c));
	memset(c.peer, 'a', sizeof(c.peer));
	EXPECT_EQ(-1, ioctl(fd, TXRDMA_IOC_EP_CREATE, &c)) TH_LOG("unterminated");
	EXPECT_EQ(EINVAL, errno) TH_LOG("32 bytes, no NUL");
	memset(&c, 0, sizeof(c));
	memcpy(c.peer, PEER, strlen(PEER));
	memset(c.peer + strlen(PEER), 'x', sizeof(c.peer) - strlen(PEER));
	EXPECT_EQ(-1, ioctl(fd, TXRDMA_IOC_EP_CREATE, &c));
	EXPECT_EQ(EINVAL, errno) TH_LOG("a valid name continued to 32 bytes");
	/* the longest valid name (31 bytes): no such peer */
	memset(&c, 0, sizeof(c));
	memset(c.peer, 'a', sizeof(c.peer) - 1);
	EXPECT_EQ(-1, ioctl(fd, TXRDMA_IOC_EP_CREATE, &c));
	EXPECT_EQ(ENOENT, errno);

	/* info/destroy: flags and reserved fields; the endpoint survives */
	memset(&info, 0, sizeof(info));
	info.id = good.id;
	info.flags = 1;
	EXPECT_EQ(-1, ioctl(fd, TXRDMA_IOC_EP_INFO, &info));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ioctl(fd, TXRDMA_IOC_EP_DESTROY, &info));
	EXPECT_EQ(EINVAL, errno);
	memset(&info, 0, sizeof(info));
	info.id = good.id;
	info.resv0 = 1;
	EXPECT_EQ(-1, ioctl(fd, TXRDMA_IOC_EP_DESTROY, &info));
	EXPECT_EQ(EINVAL, errno);
	memset(&info, 0, sizeof(info));
	info.id = good.id;
	info.resv[1] = 1;
	EXPECT_EQ(-1, ioctl(fd, TXRDMA_IOC_EP_INFO, &info));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ioctl(fd, TXRDMA_IOC_EP_DESTROY, &info));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(0, ep_info(fd, good.id, &info)) TH_LOG("a refused destroy destroyed");
	EXPECT_EQ(0, info.error);

	/* unknown ioctl numbers, another size of a known one */
	EXPECT_EQ(-1, ioctl(fd, _IOWR(TXRDMA_IOC_MAGIC, 0x09,
				      struct txrdma_ep_info), &info));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(-1, ioctl(fd, _IO(TXRDMA_IOC_MAGIC, 0x7f), 0));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(-1, ioctl(fd, _IOWR(TXRDMA_IOC_MAGIC, 0x06, uint64_t[9]), &c));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(-1, ioctl(fd, _IOW(TXRDMA_IOC_MAGIC, 0x08, uint64_t), &info));
	EXPECT_EQ(ENOTTY, errno);

	/* faults */
	EXPECT_EQ(-1, ioctl(fd, TXRDMA_IOC_EP_CREATE, NULL));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(fd, TXRDMA_IOC_EP_INFO, NULL));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(fd, TXRDMA_IOC_EP_DESTROY, NULL));
	EXPECT_EQ(EFAULT, errno);

	/* nothing changed so far */
	EXPECT_EQ(1, used(LIM_QPS));
	EXPECT_EQ(1, used(LIM_EPS));
	EXPECT_EQ(rq0, refused(LIM_QPS));
	EXPECT_EQ(re0, refused(LIM_EPS));
	PSNAP(&p);
	EXPECT_EQ(1, p.in_use) TH_LOG("%s", psnap_str(&p));
	EXPECT_EQ(p0.takes, p.takes) TH_LOG("a refused request took a QP");
	EXPECT_EQ(p0.misses, p.misses);

	/*
	 * A request that can be read but not answered (read-only memory):
	 * -EFAULT, and the endpoint made meanwhile is undone.
	 */
	ro = mmap(NULL, PG, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	strcpy((char *)((struct txrdma_ep_create *)ro)->peer, PEER);
	ASSERT_EQ(0, mprotect(ro, PG, PROT_READ));
	EXPECT_EQ(-1, ioctl(fd, TXRDMA_IOC_EP_CREATE, ro));
	EXPECT_EQ(EFAULT, errno);
	munmap(ro, PG);
	EXPECT_EQ(1, used(LIM_QPS)) TH_LOG("an endpoint whose id was lost stayed");
	EXPECT_EQ(1, used(LIM_EPS));
	EXPECT_EQ(rq0, refused(LIM_QPS));
	PSNAP(&p0);	/* its QP was taken and given back */
	EXPECT_EQ(1, p0.in_use) TH_LOG("%s", psnap_str(&p0));

	/* outside every tenant */
	ASSERT_EQ(0, cg_enter(CG_NONE));
	EXPECT_EQ(-EPERM, ep_create(fd, PEER, &c));
	EXPECT_EQ(-EPERM, ep_create(fd2, PEER, &c));
	ASSERT_EQ(0, cg_enter(CG_A));
	EXPECT_EQ(1, used(LIM_QPS));
	EXPECT_EQ(rq0, refused(LIM_QPS));
	PSNAP(&p);
	EXPECT_EQ(p0.takes, p.takes);
	EXPECT_EQ(1, p.in_use);

	/* destroy twice */
	EXPECT_EQ(0, ep_destroy(fd, good.id));
	EXPECT_EQ(-ENOENT, ep_destroy(fd, good.id));
	EXPECT_EQ(-ENOENT, ep_info(fd, good.id, &info));
	EXPECT_EQ(0, used(LIM_QPS));
	EXPECT_EQ(0, used(LIM_EPS));
	PSNAP(&p);
	EXPECT_EQ(0, p.in_use) TH_LOG("%s", psnap_str(&p));
	/* ids are not reused at once */
	ASSERT_EQ(0, ep_create(fd2, PEER, &c));
	EXPECT_NE(good.id, c.id);
	EXPECT_EQ(-ENOENT, ep_info(fd, c.id, &info));
	EXPECT_EQ(0, ep_destroy(fd2, c.id));
	close(fd2);
	close(fd);
}

/*
 * The peer is deleted while endpoints hold its QPs: they report
 * -ENOTCONN and qp_num 0, are still destroyed normally and give the
 * quota back; no peer QP is left.  Then admin down does the same to
 * the endpoints of a new peer, refuses new ones with -ENOTCONN, and
 * admin up brings the pool back.
 */
TEST_F_TIMEOUT(ep, peer_gone_or_down, 180)
{
	struct txrdma_ep_create c[2], x;
	struct txrdma_ep_info info;
	int64_t rq0;
	struct psnap p;
	char out[512];
	int fd;

	NEED_EPS();
	self->peer_cycled = true;
	PEER_UP(2, 4);
	fd = OPEN_IN(CG_A);
	for (int i = 0; i < 2; i++)
		ASSERT_EQ(0, ep_create(fd, PEER, &c[i]));
	EXPECT_EQ(2, used(LIM_QPS));

	/* deleted */
	ASSERT_EQ(0, sh(out, sizeof(out), "%s peer del " PEER " 2>&1", admin()))
		TH_LOG("peer del: %s", out);
	for (int i = 0; i < 2; i++) {
		ASSERT_EQ(0, ep_info(fd, c[i].id, &info));
		EXPECT_EQ(-ENOTCONN, info.error) TH_LOG("endpoint %d", i);
		EXPECT_EQ(0, info.qp_num) TH_LOG("endpoint %d", i);
		EXPECT_EQ(self->peer_id, info.peer_id);
	}
	EXPECT_EQ(-ENOENT, ep_create(fd, PEER, &x));
	EXPECT_EQ(2, used(LIM_QPS)) TH_LOG("a failed endpoint is charged until destroyed");
	for (int i = 0; i < 2; i++)
		EXPECT_EQ(0, ep_destroy(fd, c[i].id));
	EXPECT_EQ(0, used(LIM_QPS));
	EXPECT_EQ(0, used(LIM_EPS));
	EXPECT_EQ(self->qps0, rdma_qps_settle(self->qps0, 10))
		TH_LOG("rdma_cm QPs left after the peer was deleted");
	for (int i = 0; i < 2; i++)
		EXPECT_TRUE(qp_gone(c[i].qp_num, 1));

	/* admin down */
	PEER_UP(2, 4);
	for (int i = 0; i < 2; i++)
		ASSERT_EQ(0, ep_create(fd, PEER, &c[i]));
	ASSERT_EQ(0, sh(out, sizeof(out), "%s peer set " PEER " state down 2>&1",
			admin()))
		TH_LOG("peer set state down: %s", out);
	for (int i = 0; i < 2; i++) {
		double end = now_s() + 10;

		/* the pool drains in the peer's work item: bounded poll */
		while (!ep_info(fd, c[i].id, &info) && !info.error &&
		       now_s() < end)
			msleep(20);
		EXPECT_EQ(-ENOTCONN, info.error) TH_LOG("endpoint %d", i);
		EXPECT_EQ(0, info.qp_num) TH_LOG("endpoint %d", i);
	}
	PSNAP(&p);
	EXPECT_STREQ("admin_down", p.state);
	EXPECT_EQ(0, p.in_use) TH_LOG("%s", psnap_str(&p));
	EXPECT_EQ(0, p.ready) TH_LOG("%s", psnap_str(&p));
	rq0 = refused(LIM_QPS);
	EXPECT_EQ(-ENOTCONN, ep_create(fd, PEER, &x));
	EXPECT_EQ(2, used(LIM_QPS)) TH_LOG("-ENOTCONN stayed charged");
	EXPECT_EQ(rq0, refused(LIM_QPS));
	for (int i = 0; i < 2; i++) {
		EXPECT_TRUE(qp_gone(c[i].qp_num, 10))
			TH_LOG("QP %u of a downed peer is still there", c[i].qp_num);
	}
	for (int i = 0; i < 2; i++)
		EXPECT_EQ(0, ep_destroy(fd, c[i].id));
	EXPECT_EQ(0, used(LIM_QPS));
	EXPECT_EQ(0, used(LIM_EPS));
	PSNAP(&p);
	EXPECT_EQ(0, p.in_use) TH_LOG("%s", psnap_str(&p));

	/* admin up: the pool refills, endpoints work again */
	ASSERT_EQ(0, sh(out, sizeof(out), "%s peer set " PEER " state up 2>&1",
			admin()))
		TH_LOG("peer set state up: %s", out);
	EXPECT_TRUE(peer_wait(PEER, 2, 0, 60, &p)) TH_LOG("%s", psnap_str(&p));
	ASSERT_EQ(0, ep_create(fd, PEER, &x));
	EXPECT_TRUE(qp_rts(x.qp_num));
	ASSERT_EQ(0, ep_info(fd, x.id, &info));
	EXPECT_EQ(0, info.error);
	EXPECT_EQ(0, ep_destroy(fd, x.id));
	close(fd);
}

/*
 * A tenant holding an endpoint: plain delete is -EBUSY and changes
 * nothing; "tenant del NAME force" deletes it and the endpoint reports
 * -EPERM with no QP; its QP is closed, not given back to the pool.
 */
TEST_F_TIMEOUT(ep, tenant_force_delete, 120)
{
	struct txrdma_ep_create c, x;
	struct txrdma_ep_info info;
	struct psnap p0, p;
	struct tenant t;
	char out[512];
	int fd;

	NEED_EPS();
	PEER_UP(2, 4);
	fd = OPEN_IN(CG_A);
	ASSERT_EQ(0, ep_create(fd, PEER, &c));
	PSNAP(&p0);
	EXPECT_EQ(1, p0.in_use);

	EXPECT_EQ(-EBUSY, tenant_del(&self->nl, TA));
	EXPECT_NE(0, self->nl.extack[0]) TH_LOG("no message for -EBUSY");
	ASSERT_EQ(0, get_tenant(&self->nl, TA, &t));
	EXPECT_EQ(1, used(LIM_QPS));
	EXPECT_EQ(1, used(LIM_EPS));
	ASSERT_EQ(0, ep_info(fd, c.id, &info));
	EXPECT_EQ(0, info.error);
	EXPECT_EQ(c.qp_num, info.qp_num);
	/* the tool too refuses it, and says how */
	EXPECT_NE(0, sh(out, sizeof(out), "%s tenant del " TA " 2>&1", admin()));
	EXPECT_NE(NULL, strstr(out, "force")) TH_LOG("tenant del: %s", out);
	ASSERT_EQ(0, get_tenant(&self->nl, TA, &t));

	ASSERT_EQ(0, sh(out, sizeof(out), "%s tenant del " TA " force 2>&1",
			admin()))
		TH_LOG("tenant del force: %s", out);
	EXPECT_EQ(-ENOENT, get_tenant(&self->nl, TA, &t));
	ASSERT_EQ(0, ep_info(fd, c.id, &info));
	EXPECT_EQ(-EPERM, info.error);
	EXPECT_EQ(0, info.qp_num);
	EXPECT_EQ(self->peer_id, info.peer_id);
	/* no tenant any more */
	EXPECT_EQ(-EPERM, ep_create(fd, PEER, &x));
	PSNAP(&p);
	EXPECT_EQ(0, p.in_use) TH_LOG("%s", psnap_str(&p));
	EXPECT_TRUE(qp_gone(c.qp_num, 10)) TH_LOG("the revoked QP is still there");
	EXPECT_EQ(0, ep_destroy(fd, c.id));
	EXPECT_EQ(-ENOENT, ep_info(fd, c.id, &info));
	/* the pool replaces the closed QP */
	EXPECT_TRUE(peer_wait(PEER, 2, 0, 30, &p)) TH_LOG("%s", psnap_str(&p));
	close(fd);
}

/*
 * 1,000 create/destroy cycles: usage, the pool, the small kmalloc
 * caches and the module refcount are where they started.
 */
TEST_F_TIMEOUT(ep, cycles_leave_nothing_behind, 300)
{
	long slab0[NCACHES], slab1[NCACHES], ref0, ref1;
	int fd, done = 0, bad = 0;
	struct psnap p0, p;
	double t0, t1;
	uint32_t last_id = 0;

	NEED_EPS();
	PEER_UP(2, 4);
	fd = OPEN_IN(CG_A);
	PSNAP(&p0);
	ref0 = module_refcnt();
	ASSERT_LT(0, ref0) TH_LOG("%s", REFCNT);
	/* warm up (first-use allocations), then measure */
	for (int i = 0; i < 10; i++) {
		struct txrdma_ep_create c;

		ASSERT_EQ(0, ep_create(fd, PEER, &c));
		ASSERT_EQ(0, ep_destroy(fd, c.id));
	}
	ASSERT_EQ(0, slab_read(slab0)) TH_LOG("no kmalloc caches in /proc/slabinfo");
	t0 = now_s();
	for (int i = 0; i < 1000; i++) {
		struct txrdma_ep_create c;
		int ret = ep_create(fd, PEER, &c);

		if (ret) {
			TH_LOG("cycle %d: create: %d", i, ret);
			break;
		}
		if (!c.qp_num || c.id == last_id)
			bad++;
		last_id = c.id;
		ret = ep_destroy(fd, c.id);
		if (ret) {
			TH_LOG("cycle %d: destroy: %d", i, ret);
			break;
		}
		done++;
	}
	t1 = now_s();
	ASSERT_EQ(0, slab_read(slab1));
	EXPECT_EQ(1000, done);
	EXPECT_EQ(0, bad);
	fprintf(stderr, "# ep_test: %d endpoint create+destroy cycles: %.1f us each (%.3f s)\n",
		done, done ? (t1 - t0) * 1e6 / done : 0.0, t1 - t0);
	for (size_t i = 0; i < NCACHES; i++) {
		if (slab0[i] < 0)
			continue;
		fprintf(stderr, "# ep_test: %s active objects %ld -> %ld\n",
			kmalloc_caches[i], slab0[i], slab1[i]);
		/* a leak of one object per cycle would be 1,000 */
		EXPECT_GT(100, labs(slab1[i] - slab0[i])) TH_LOG("%s",
								kmalloc_caches[i]);
	}
	EXPECT_EQ(0, used(LIM_QPS));
	EXPECT_EQ(0, used(LIM_EPS));
	PSNAP(&p);
	EXPECT_EQ(0, p.in_use) TH_LOG("%s", psnap_str(&p));
	EXPECT_EQ(p0.takes + 1010, p.takes);
	EXPECT_EQ(p0.errors, p.errors);
	ref1 = module_refcnt();
	EXPECT_EQ(ref0, ref1);
	close(fd);
	EXPECT_EQ(ref0 - 1, module_refcnt()) TH_LOG("closing our file");
}

/*
 * The pool is shrunk below what it lends (peer set pool 1:1 with three
 * endpoints out): only ready QPs are closed; the endpoints keep their
 * QPs; once they are destroyed the pool settles at its new size and
 * lends again.
 */
TEST_F_TIMEOUT(ep, pool_shrink_spares_lent_qps, 120)
{
	struct txrdma_ep_create c[3], x;
	struct txrdma_ep_info info;
	struct psnap p;
	char out[512];
	double end;
	int fd;

	NEED_EPS();
	PEER_UP(4, 8);
	fd = OPEN_IN(CG_A);
	for (int i = 0; i < 3; i++)
		ASSERT_EQ(0, ep_create(fd, PEER, &c[i]));
	EXPECT_TRUE(peer_wait(PEER, 4, 3, 30, &p)) TH_LOG("%s", psnap_str(&p));

	ASSERT_EQ(0, sh(out, sizeof(out), "%s peer set " PEER " pool 1:1 2>&1",
			admin()))
		TH_LOG("peer set pool 1:1: %s", out);
	/* the ready QPs go: bounded poll until none is ready or closing */
	end = now_s() + 10;
	do {
		PSNAP(&p);
		if (!p.ready && !p.closing)
			break;
		msleep(20);
	} while (now_s() < end);
	EXPECT_EQ(0, p.ready) TH_LOG("%s", psnap_str(&p));
	EXPECT_EQ(3, p.in_use) TH_LOG("%s", psnap_str(&p));
	for (int i = 0; i < 3; i++) {
		ASSERT_EQ(0, ep_info(fd, c[i].id, &info));
		EXPECT_EQ(0, info.error)
			TH_LOG("endpoint %d lost its QP to the pool resize", i);
		EXPECT_EQ(c[i].qp_num, info.qp_num);
		EXPECT_TRUE(qp_rts(c[i].qp_num));
	}
	for (int i = 0; i < 3; i++)
		EXPECT_EQ(0, ep_destroy(fd, c[i].id));
	EXPECT_EQ(0, used(LIM_QPS));
	/* excess closed, one ready QP kept */
	end = now_s() + 10;
	do {
		PSNAP(&p);
		if (p.ready == 1 && !p.in_use && !p.closing)
			break;
		msleep(20);
	} while (now_s() < end);
	EXPECT_EQ(0, p.in_use) TH_LOG("%s", psnap_str(&p));
	EXPECT_EQ(1, p.ready) TH_LOG("%s", psnap_str(&p));
	EXPECT_EQ(0, ep_create(fd, PEER, &x)) TH_LOG("%s", psnap_str(&p));
	ep_destroy(fd, x.id);
	close(fd);
}

/*
 * The RDMA device under the peer's QPs is removed (rdma link del):
 * the endpoints' QPs fail, so they report -EIO and hold no QP; they
 * are destroyed normally and give the quota back.  With the device
 * back the peer comes up again and lends QPs.
 */
TEST_F_TIMEOUT(ep, device_removed_eio, 180)
{
	struct txrdma_ep_create c[2], x;
	struct txrdma_ep_info info;
	struct psnap p;
	char out[512];
	int fd;

	NEED_EPS();
	self->peer_cycled = true;
	PEER_UP(2, 4);
	fd = OPEN_IN(CG_A);
	for (int i = 0; i < 2; i++)
		ASSERT_EQ(0, ep_create(fd, PEER, &c[i]));

	ASSERT_EQ(0, sh(out, sizeof(out), "rdma link del %s 2>&1", self->ibdev))
		TH_LOG("rdma link del %s: %s", self->ibdev, out);
	for (int i = 0; i < 2; i++) {
		double end = now_s() + 10;

		while (!ep_info(fd, c[i].id, &info) && !info.error &&
		       now_s() < end)
			msleep(20);
		EXPECT_EQ(-EIO, info.error) TH_LOG("endpoint %d", i);
		EXPECT_EQ(0, info.qp_num) TH_LOG("endpoint %d", i);
	}
	PSNAP(&p);
	EXPECT_EQ(0, p.in_use) TH_LOG("%s", psnap_str(&p));
	EXPECT_EQ(2, used(LIM_QPS)) TH_LOG("a failed endpoint is charged until destroyed");
	for (int i = 0; i < 2; i++)
		EXPECT_EQ(0, ep_destroy(fd, c[i].id));
	EXPECT_EQ(0, used(LIM_QPS));
	EXPECT_EQ(0, used(LIM_EPS));
	EXPECT_EQ(self->qps0, rdma_qps_settle(self->qps0, 10));

	ASSERT_TRUE(rdma_link_restore(self->ibdev, self->ndev, 30))
		TH_LOG("%s did not come back ACTIVE", self->ibdev);
	EXPECT_TRUE(peer_wait(PEER, 2, 0, 60, &p)) TH_LOG("%s", psnap_str(&p));
	ASSERT_EQ(0, ep_create(fd, PEER, &x)) TH_LOG("%s", psnap_str(&p));
	EXPECT_TRUE(qp_rts(x.qp_num));
	EXPECT_EQ(0, ep_destroy(fd, x.id));
	close(fd);
}

/* ---- EP_CREATE's -EFAULT undo against EP_DESTROY of another thread -- */

struct racer {
	int fd;
	volatile uint32_t target;
	volatile int stop;
	long hits;
};

/* destroy the id that the next create will get, over and over */
static void *race_destroyer(void *arg)
{
	struct racer *r = arg;

	while (!r->stop)
		if (!ep_destroy(r->fd, r->target))
			r->hits++;
	return NULL;
}

/*
 * A create whose answer cannot be written (read-only request) is undone
 * after the endpoint was published under its id; another thread of the
 * same file destroying that id meanwhile must not make the undo free it
 * a second time.  Ids are allocated cyclically, so the next one is
 * known.  Afterwards nothing is charged, lent or left.
 *
 * The module as first written freed the endpoint twice here (a general
 * protection fault in txrdma_ioctl_ep_create with txrdma_eps_lock held,
 * after which every close of /dev/txrdma hung), within a second on one
 * vCPU.  TXRDMA_EP_RACE=0 skips it.
 */
TEST_F_TIMEOUT(ep, efault_undo_vs_destroy, 120)
{
	struct racer r = { .stop = 0 };
	struct txrdma_ep_create c, *ro;
	const char *env = getenv("TXRDMA_EP_RACE");
	int efault = 0, other = 0, n = 0;
	struct psnap p;
	pthread_t th;
	double end;

	NEED_EPS();
	if (env && !strcmp(env, "0"))
		SKIP(return, "TXRDMA_EP_RACE=0");
	PEER_UP(2, 4);
	r.fd = OPEN_IN(CG_A);
	ro = mmap(NULL, PG, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	strcpy((char *)ro->peer, PEER);
	ASSERT_EQ(0, mprotect(ro, PG, PROT_READ));
	ASSERT_EQ(0, ep_create(r.fd, PEER, &c));
	ASSERT_EQ(0, ep_destroy(r.fd, c.id));
	r.target = c.id + 1;
	ASSERT_EQ(0, pthread_create(&th, NULL, race_destroyer, &r));
	end = now_s() + 5;
	while (n < 20000 && now_s() < end) {
		if (ioctl(r.fd, TXRDMA_IOC_EP_CREATE, ro) && errno == EFAULT)
			efault++;
		else
			other++;
		n++;
		r.target = r.target + 1;
	}
	r.stop = 1;
	pthread_join(th, NULL);
	fprintf(stderr, "# ep_test: %d faulting creates (%d -EFAULT), %ld destroyed by the other thread meanwhile\n",
		n, efault, r.hits);
	EXPECT_EQ(n, efault);
	EXPECT_EQ(0, other);
	EXPECT_EQ(0, used(LIM_QPS));
	EXPECT_EQ(0, used(LIM_EPS));
	PSNAP(&p);
	EXPECT_EQ(0, p.in_use) TH_LOG("%s", psnap_str(&p));
	EXPECT_TRUE(peer_wait(PEER, 2, 0, 30, &p)) TH_LOG("%s", psnap_str(&p));
	munmap(ro, PG);
	close(r.fd);
}

/* ---- connect waits for the peer ----------------------------------------- */

#define WAIT_SVC	4711
#define WAIT_UNITS	64

/* a libtxrdma side: rings for completions, a region for the receive ring */
struct lside {
	struct txrdma_ctx *ctx;
	struct txrdma_sq sq;
	struct txrdma_cq cq;
	struct txrdma_region r;
};

static int lside_open(struct lside *s)
{
	int ret;

	memset(s, 0, sizeof(*s));
	ret = txrdma_open(&s->ctx, 0);
	if (ret)
		return ret;
	ret = txrdma_rings_setup(s->ctx, 128, 0, &s->sq, &s->cq);
	if (!ret)
		ret = txrdma_region_create(s->ctx, TXRDMA_REGION_HUGE_SIZE, 0,
					   &s->r);
	if (ret) {
		txrdma_close(s->ctx);
		s->ctx = NULL;
	}
	return ret;
}

static void lside_close(struct lside *s)
{
	if (!s->ctx)
		return;
	txrdma_region_destroy(s->ctx, &s->r);
	txrdma_close(s->ctx);
	s->ctx = NULL;
}

static struct txrdma_ep_params lside_params(const struct lside *s,
					    uint32_t timeout_ms,
					    uint32_t flags)
{
	return (struct txrdma_ep_params){
		.service = WAIT_SVC, .flags = flags, .rx_region = s->r.id,
		.rx_units = WAIT_UNITS, .timeout_ms = timeout_ms,
	};
}

/*
 * In tenant ep-a: listen on WAIT_SVC, say so on @ready_fd, accept @n
 * pairs, keep them until @done_fd reads EOF (the parent is done; a pair
 * closed at once could end before the connect returns).  Exit status
 * 0, or which step failed.
 */
static void __attribute__((noreturn)) wait_acceptor(int ready_fd,
						    int done_fd, int n)
{
	struct txrdma_ep_params p;
	struct txrdma_ep_pair out;
	struct lside s;
	int i, ret;
	char c;

	if (cg_enter(CG_A) || lside_open(&s))
		_exit(2);
	if (txrdma_ep_listen(s.ctx, WAIT_SVC))
		_exit(3);
	if (write(ready_fd, "L", 1) != 1)
		_exit(4);
	for (i = 0; i < n; i++) {
		p = lside_params(&s, 120000, 0);
		/* the pairs live on together: a ring each */
		p.rx_off = (__u64)i * (256 << 10);
		ret = txrdma_ep_accept(s.ctx, &p, &out);
		if (ret) {
			/* the harness shows it with the parent's failure */
			fprintf(stderr, "# acceptor: accept %d: %s\n", i,
				strerror(-ret));
			_exit(10 + i);
		}
	}
	while (read(done_fd, &c, 1) > 0)
		;
	lside_close(&s);
	_exit(0);
}

/* Wait (up to 60 s) until the peer's session is not Up. */
static bool peer_wait_not_up(struct psnap *p)
{
	double end = now_s() + 60;

	while (!peer_snap(PEER, p) && !strcmp(p->state, "up")) {
		if (now_s() > end)
			return false;
		msleep(20);
	}
	return true;
}

/*
 * A connect waits for the peer instead of failing: right after "peer
 * add" (no session yet, no QP) a connect with a timeout pairs as soon
 * as the peer is Up with a ready QP, with no retry loop in the caller.
 * While the peer is down, TXRDMA_EP_F_NOWAIT fails at once with
 * -ENOTCONN, and without it the connect gives -ENOTCONN once its
 * timeout has passed, not before.  (Not asserted: a connect made at
 * once after "state up" can find the acceptor's end of its new QP not
 * ready yet, and its refusals use up the accept; see testing.rst.)
 */
TEST_F_TIMEOUT(ep, connect_waits_for_peer, 300)
{
	struct txrdma_ep_pair out;
	struct txrdma_ep_params prm;
	struct psnap p, p_added;
	struct lside s;
	char buf[512], c;
	int pfd[2], dfd[2], status;
	double t0, dt;
	pid_t pid;

	NEED_EPS();
	self->peer_cycled = true;	/* it goes down on purpose below */
	ASSERT_EQ(0, pipe(pfd));
	ASSERT_EQ(0, pipe(dfd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(pfd[0]);
		close(dfd[1]);
		wait_acceptor(pfd[1], dfd[0], 1);
	}
	close(pfd[1]);
	close(dfd[0]);
	ASSERT_EQ(1, read(pfd[0], &c, 1)) TH_LOG("the acceptor never listened");
	close(pfd[0]);
	ASSERT_EQ(0, cg_enter(CG_A));
	ASSERT_EQ(0, lside_open(&s));

	ASSERT_EQ(0, sh(buf, sizeof(buf), "%s peer add " PEER
			" addr %s key %s pool 1:2 %s 2>&1", admin(),
			self->addr, peer_key(), bfd_args()))
		TH_LOG("peer add: %s", buf);
	ASSERT_EQ(0, peer_snap(PEER, &p_added));
	self->peer_id = p_added.id;
	prm = lside_params(&s, 120000, 0);
	t0 = now_s();
	EXPECT_EQ(0, txrdma_ep_connect(s.ctx, PEER, &prm, &out));
	dt = now_s() - t0;
	TH_LOG("paired %.3f s after peer add (then: %s)", dt,
	       psnap_str(&p_added));
	/*
	 * What makes this a test of the wait: the peer was not Up when we
	 * asked.  On a slow host (the debug kernel) it may be Up already
	 * by the time "peer show" answered: then this part proved only
	 * that a connect pairs, and says so; the timeout below is
	 * asserted in any case.
	 */
	if (strcmp(p_added.state, "up") || !p_added.ready)
		TH_LOG("the connect waited for the peer (not up, or no ready QP, when asked)");
	else
		TH_LOG("the peer was up with a ready QP before the connect: its wait was not exercised here");
	EXPECT_EQ(0, txrdma_ep_destroy(s.ctx, out.id));

	ASSERT_EQ(0, sh(buf, sizeof(buf), "%s peer set " PEER
			" state down 2>&1", admin()))
		TH_LOG("peer set down: %s", buf);
	ASSERT_TRUE(peer_wait_not_up(&p)) TH_LOG("%s", psnap_str(&p));
	prm = lside_params(&s, 5000, TXRDMA_EP_F_NOWAIT);
	t0 = now_s();
	EXPECT_EQ(-ENOTCONN, txrdma_ep_connect(s.ctx, PEER, &prm, &out));
	dt = now_s() - t0;
	EXPECT_GT(1.0, dt) TH_LOG("NOWAIT took %.3f s", dt);
	prm = lside_params(&s, 700, 0);
	t0 = now_s();
	EXPECT_EQ(-ENOTCONN, txrdma_ep_connect(s.ctx, PEER, &prm, &out));
	dt = now_s() - t0;
	/* jiffies: the kernel's deadline may round down by one tick */
	EXPECT_LE(0.68, dt) TH_LOG("gave up after %.3f s of 0.7", dt);
	EXPECT_GT(10.0, dt) TH_LOG("waited %.3f s for 0.7", dt);
	/* unknown flags are still refused */
	prm = lside_params(&s, 700, 1U << 31);
	EXPECT_EQ(-EINVAL, txrdma_ep_connect(s.ctx, PEER, &prm, &out));

	close(dfd[1]);		/* the acceptor may close its pairs */
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("acceptor: status %#x", status);
	lside_close(&s);
	ASSERT_EQ(0, cg_enter(CG_ROOT));
}

/* ---- ring sizing --------------------------------------------------------- */

struct accept_job {
	struct lside *s;
	struct txrdma_ep_params p;
	struct txrdma_ep_pair out;
	int ret;
};

static void *accept_thread(void *arg)
{
	struct accept_job *j = arg;

	j->ret = txrdma_ep_accept(j->s->ctx, &j->p, &j->out);
	return NULL;
}

/*
 * Pair @a (connecting with @pa) and @b (accepting with @pb, listening
 * already): 0, or the first error.
 */
static int lside_pair(struct lside *a, const struct txrdma_ep_params *pa,
		      struct txrdma_ep_pair *oa, struct lside *b,
		      const struct txrdma_ep_params *pb,
		      struct txrdma_ep_pair *ob)
{
	struct accept_job j = { .s = b, .p = *pb };
	pthread_t t;
	int ret;

	if (pthread_create(&t, NULL, accept_thread, &j))
		return -EAGAIN;
	ret = txrdma_ep_connect(a->ctx, PEER, pa, oa);
	pthread_join(t, NULL);
	*ob = j.out;
	return ret ?: j.ret;
}

/* SEND @len bytes at offset 0 of @s's region on @ep: the CQE's res */
static int lside_send(struct lside *s, uint32_t ep, uint32_t len)
{
	struct txrdma_sqe *sqe = txrdma_get_sqe(&s->sq);
	struct txrdma_cqe *cqe;
	double end = now_s() + 10;
	int ret;

	if (!sqe)
		return -ENOSPC;
	txrdma_prep_send(sqe, ep, s->r.id, 0, len, len);
	ret = txrdma_submit(s->ctx, &s->sq);
	if (ret < 0)
		return ret;
	while (!(cqe = txrdma_peek_cqe(&s->cq))) {
		if (now_s() > end)
			return -ETIMEDOUT;
		if (txrdma_sq_needs_wakeup(&s->sq))
			txrdma_rings_enter(s->ctx);
		sched_yield();
	}
	ret = cqe->res;
	txrdma_cq_advance(&s->cq, 1);
	return ret;
}

/*
 * The next message of @rx within 10 s, copied to @buf (@len bytes at
 * most; @buf may be NULL) and released: its length, or -errno
 */
static int rx_get(struct txrdma_rx *rx, struct lside *s, void *buf,
		  size_t len)
{
	double end = now_s() + 10;
	const void *p;
	__u32 l;
	int ret;

	while (!(ret = txrdma_rx_peek(rx, &p, &l))) {
		if (now_s() > end)
			return -ETIMEDOUT;
		if (txrdma_sq_needs_wakeup(&s->sq))
			txrdma_rings_enter(s->ctx);
		sched_yield();
	}
	if (ret < 0)
		return ret;
	if (buf)
		memcpy(buf, p, l < len ? l : len);
	txrdma_rx_release(rx);
	return (int)l;
}

/* credit_updates and ring_small of endpoint @id, from "ep show -j" */
static int ep_credit(uint32_t id, uint64_t *updates, uint64_t *rx_msgs,
		     bool *small)
{
	char out[4096], *u, *m, *r;

	if (sh(out, sizeof(out), "%s -j ep show id %u", admin(), id))
		return -1;
	u = strstr(out, "\"credit_updates\":");
	m = strstr(out, "\"rx_msgs\":");
	r = strstr(out, "\"ring_small\":");
	if (!u || !m || !r)
		return -1;
	*updates = strtoull(u + strlen("\"credit_updates\":"), NULL, 10);
	*rx_msgs = strtoull(m + strlen("\"rx_msgs\":"), NULL, 10);
	*small = !strncmp(r + strlen("\"ring_small\":"), "true", 4);
	return 0;
}

#define SIZING_MSGS	400
#define SIZING_LEN	4096

/*
 * SIZING_MSGS SENDs of SIZING_LEN from @a to @b, one at a time, each read
 * and released by @b (ring at @rx_off of its region): 0, or the step
 * that failed (a SEND's res, a receive's -errno)
 */
static int sizing_stream(struct lside *a, const struct txrdma_ep_pair *oa,
			 struct lside *b, const struct txrdma_ep_pair *ob,
			 __u64 rx_off)
{
	struct txrdma_rx rx;
	int i, ret;

	ret = txrdma_rx_init(&rx, b->ctx, &b->sq, (char *)b->r.addr + rx_off,
			     ob->rx_units);
	for (i = 0; !ret && i < SIZING_MSGS; i++) {
		ret = lside_send(a, oa->id, SIZING_LEN);
		if (ret == SIZING_LEN)
			ret = rx_get(&rx, b, NULL, 0);
		ret = ret == SIZING_LEN ? 0 : ret ?: -EIO;
	}
	return ret;
}

/*
 * A receive ring sized for its messages returns credits without an
 * update per message; one that is not is called small by ep show.
 * Pair 1: both sides declare rx_max_msg 4096 and let the library size
 * the ring (rx_units 0: 1024 units); the connector learns max_msg 4096
 * and a SEND of 4097 fails with -EMSGSIZE; 400 SENDs of 4 KiB one way,
 * each read and released, cost the receiver at most one credit update
 * per two messages, and ep show says the ring is not small.  Pair 2:
 * the receiver gives 256 units and declares nothing (frames up to half
 * the ring): the same stream costs an update per message or close, and
 * ep show says so.
 */
TEST_F_TIMEOUT(ep, ring_sizing, 300)
{
	struct txrdma_ep_params pa = { .service = WAIT_SVC,
				       .rx_off = 1 << 20, .timeout_ms = 60000,
				       .rx_max_msg = SIZING_LEN };
	struct txrdma_ep_params pb = pa;
	struct txrdma_ep_pair oa, ob;
	struct lside a, b;
	uint64_t updates, msgs;
	bool small;

	NEED_EPS();
	PEER_UP(2, 4);
	ASSERT_EQ(0, cg_enter(CG_A));
	ASSERT_EQ(0, lside_open(&a));
	ASSERT_EQ(0, lside_open(&b));
	ASSERT_EQ(0, txrdma_ep_listen(b.ctx, WAIT_SVC));
	pa.rx_region = a.r.id;
	pb.rx_region = b.r.id;
	ASSERT_EQ(0, lside_pair(&a, &pa, &oa, &b, &pb, &ob));
	EXPECT_EQ(1024, oa.rx_units);
	EXPECT_EQ(1024, ob.rx_units);
	EXPECT_EQ(SIZING_LEN, oa.max_msg) TH_LOG("the acceptor declared 4096");
	EXPECT_EQ(SIZING_LEN, oa.rx_max_msg);
	EXPECT_EQ(-EMSGSIZE, lside_send(&a, oa.id, SIZING_LEN + 1));
	ASSERT_EQ(0, sizing_stream(&a, &oa, &b, &ob, pb.rx_off));
	ASSERT_EQ(0, ep_credit(ob.id, &updates, &msgs, &small));
	TH_LOG("sized ring (1024 units): %llu credit updates for %llu messages",
	       (unsigned long long)updates, (unsigned long long)msgs);
	EXPECT_EQ(SIZING_MSGS, msgs);
	EXPECT_GE(SIZING_MSGS / 2, updates);
	EXPECT_FALSE(small);
	EXPECT_EQ(0, txrdma_ep_destroy(a.ctx, oa.id));
	EXPECT_EQ(0, txrdma_ep_destroy(b.ctx, ob.id));

	/* the receiver's ring: 256 units, nothing declared */
	pa.rx_max_msg = 0;
	pa.rx_units = 1024;
	pb.rx_max_msg = 0;
	pb.rx_units = 256;
	ASSERT_EQ(0, lside_pair(&a, &pa, &oa, &b, &pb, &ob));
	EXPECT_EQ(256 / 2 * 64 - 32, oa.max_msg);
	ASSERT_EQ(0, sizing_stream(&a, &oa, &b, &ob, pb.rx_off));
	ASSERT_EQ(0, ep_credit(ob.id, &updates, &msgs, &small));
	TH_LOG("small ring (256 units): %llu credit updates for %llu messages",
	       (unsigned long long)updates, (unsigned long long)msgs);
	EXPECT_EQ(SIZING_MSGS, msgs);
	EXPECT_LE(SIZING_MSGS / 2, updates);
	EXPECT_TRUE(small);
	EXPECT_EQ(0, txrdma_ep_destroy(a.ctx, oa.id));
	EXPECT_EQ(0, txrdma_ep_destroy(b.ctx, ob.id));
	lside_close(&a);
	lside_close(&b);
	ASSERT_EQ(0, cg_enter(CG_ROOT));
}

/* ---- ordering ------------------------------------------------------------- */

/*
 * Export [@off, @off + @len) of region @region (@len 0: to its end) to
 * the other side of @ep, raw ioctl (@access 0 revokes): 0 or -errno
 */
static int lside_export(struct lside *s, uint32_t ep, uint32_t region,
			uint32_t access, uint64_t off, uint64_t len)
{
	struct txrdma_ep_export e = { .ep = ep, .region = region,
				      .access = access, .timeout_ms = 10000,
				      .off = off, .len = len };

	return ioctl(txrdma_fd(s->ctx), TXRDMA_IOC_EP_EXPORT, &e) ? -errno : 0;
}

/*
 * Wait for @n CQEs (user_data 0..@n-1, each once) within 10 s; their
 * res in @res.  0, or -ETIMEDOUT / -EPROTO (an unknown or second one).
 */
static int lside_reap(struct lside *s, unsigned int n, int *res)
{
	double end = now_s() + 10;
	bool seen[64] = { false };
	struct txrdma_cqe *cqe;
	unsigned int got = 0;

	while (got < n) {
		cqe = txrdma_peek_cqe(&s->cq);
		if (!cqe) {
			if (now_s() > end)
				return -ETIMEDOUT;
			if (txrdma_sq_needs_wakeup(&s->sq))
				txrdma_rings_enter(s->ctx);
			sched_yield();
			continue;
		}
		if (cqe->user_data >= n || seen[cqe->user_data])
			return -EPROTO;
		seen[cqe->user_data] = true;
		res[cqe->user_data] = cqe->res;
		txrdma_cq_advance(&s->cq, 1);
		got++;
	}
	return 0;
}

/* @len bytes of pattern @seed at @p */
static void pat_fill(void *p, size_t len, uint32_t seed)
{
	uint32_t *w = p, x = seed * 2654435761u + 1;
	size_t i;

	for (i = 0; i < len / 4; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		w[i] = x;
	}
}

static bool pat_is(const void *p, size_t len, uint32_t seed)
{
	static uint32_t want[16384];

	pat_fill(want, len, seed);
	return !memcmp(p, want, len);
}

#define ORD_ROUNDS	50
#define ORD_LEN		(64 << 10)
/* offsets in the connector's region: message, WRITE source, READ target */
#define A_MSG		0
#define A_SRC		(64 << 10)
#define A_DST		(128 << 10)
/* in the acceptor's exported region: what rules 2, 3 and 4 use */
#define X_W2S		0
#define X_W2R		(128 << 10)
#define X_R2S		(512 << 10)

/*
 * The ordering rules of txrdma(7), one endpoint pair, each asserted:
 * SENDs arrive in the order queued (64 in one submit); a WRITE queued
 * before a SEND has landed when the SEND's message is read; a READ
 * queued after a WRITE to the same memory returns the written bytes;
 * a READ followed by a SEND with TXRDMA_SQE_F_FENCE returns the data of
 * before the other side acted on the SEND.  Also: a NOP with a fence is
 * refused (CQE -EINVAL).
 */
TEST_F_TIMEOUT(ep, ordering, 300)
{
	struct txrdma_ep_params pa = { .service = WAIT_SVC,
				       .rx_off = 1 << 20, .timeout_ms = 60000 };
	struct txrdma_ep_params pb = pa;
	struct txrdma_ep_pair oa, ob;
	struct txrdma_region x;
	struct txrdma_sqe *sqe;
	struct lside a, b;
	struct txrdma_rx rx;
	uint32_t msg, got;
	int res[64], i, r;
	char *al, *xl;

	NEED_EPS();
	PEER_UP(2, 4);
	ASSERT_EQ(0, cg_enter(CG_A));
	ASSERT_EQ(0, lside_open(&a));
	ASSERT_EQ(0, lside_open(&b));
	ASSERT_EQ(0, txrdma_region_create(b.ctx, TXRDMA_REGION_HUGE_SIZE, 0,
					  &x));
	ASSERT_EQ(0, txrdma_ep_listen(b.ctx, WAIT_SVC));
	pa.rx_region = a.r.id;
	pb.rx_region = b.r.id;
	pa.rx_units = 1024;
	pb.rx_units = 1024;
	pa.rx_max_msg = 64;
	pb.rx_max_msg = 64;
	ASSERT_EQ(0, lside_pair(&a, &pa, &oa, &b, &pb, &ob));
	/* all of x (len 0: to its end): no ring lives in it */
	ASSERT_EQ(0, lside_export(&b, ob.id, x.id,
				  TXRDMA_EXPORT_READ | TXRDMA_EXPORT_WRITE,
				  0, 0));
	ASSERT_EQ(0, txrdma_rx_init(&rx, b.ctx, &b.sq,
				    (char *)b.r.addr + pb.rx_off, ob.rx_units));
	al = a.r.addr;
	xl = x.addr;

	/* SEND / SEND: 64 in one submit arrive in that order */
	for (i = 0; i < 64; i++) {
		msg = 0x5e000000 + i;
		memcpy(al + A_MSG + 64 * i, &msg, 4);
		sqe = txrdma_get_sqe(&a.sq);
		ASSERT_NE(NULL, sqe);
		txrdma_prep_send(sqe, oa.id, a.r.id, A_MSG + 64 * i, 4, i);
	}
	ASSERT_LE(0, txrdma_submit(a.ctx, &a.sq));
	for (i = 0; i < 64; i++) {
		ASSERT_EQ(4, rx_get(&rx, &b, &got, 4)) TH_LOG("message %d", i);
		ASSERT_EQ(0x5e000000u + i, got) TH_LOG("SEND/SEND: message %d", i);
	}
	ASSERT_EQ(0, lside_reap(&a, 64, res));
	for (i = 0; i < 64; i++)
		EXPECT_EQ(4, res[i]);

	/* WRITE then SEND: the data is there when the message is */
	for (i = 0; i < ORD_ROUNDS; i++) {
		pat_fill(al + A_SRC, ORD_LEN, 1000 + i);
		memcpy(al + A_MSG, &i, 4);
		sqe = txrdma_get_sqe(&a.sq);
		txrdma_prep_write(sqe, oa.id, a.r.id, A_SRC, ORD_LEN, x.id,
				  X_W2S, 0);
		sqe = txrdma_get_sqe(&a.sq);
		txrdma_prep_send(sqe, oa.id, a.r.id, A_MSG, 4, 1);
		ASSERT_LE(0, txrdma_submit(a.ctx, &a.sq));
		ASSERT_EQ(4, rx_get(&rx, &b, &got, 4));
		ASSERT_EQ((uint32_t)i, got);
		ASSERT_TRUE(pat_is(xl + X_W2S, ORD_LEN, 1000 + i))
			TH_LOG("WRITE then SEND: round %d: the message came before the data", i);
		ASSERT_EQ(0, lside_reap(&a, 2, res));
		ASSERT_EQ(ORD_LEN, res[0]);
		ASSERT_EQ(4, res[1]);
	}

	/* WRITE then READ of the same bytes: the READ sees the WRITE */
	for (i = 0; i < ORD_ROUNDS; i++) {
		pat_fill(al + A_SRC, ORD_LEN, 2000 + i);
		memset(al + A_DST, 0, ORD_LEN);
		sqe = txrdma_get_sqe(&a.sq);
		txrdma_prep_write(sqe, oa.id, a.r.id, A_SRC, ORD_LEN, x.id,
				  X_W2R, 0);
		sqe = txrdma_get_sqe(&a.sq);
		txrdma_prep_read(sqe, oa.id, a.r.id, A_DST, ORD_LEN, x.id,
				 X_W2R, 1);
		ASSERT_LE(0, txrdma_submit(a.ctx, &a.sq));
		ASSERT_EQ(0, lside_reap(&a, 2, res));
		ASSERT_EQ(ORD_LEN, res[0]);
		ASSERT_EQ(ORD_LEN, res[1]);
		ASSERT_TRUE(pat_is(al + A_DST, ORD_LEN, 2000 + i))
			TH_LOG("WRITE then READ: round %d: the READ missed the WRITE", i);
	}

	/*
	 * READ then a fenced SEND: the other side overwrites what was
	 * read as soon as it has the message; the READ has the old bytes
	 */
	for (i = 0; i < ORD_ROUNDS; i++) {
		pat_fill(xl + X_R2S, ORD_LEN, 3000 + i);
		memset(al + A_DST, 0, ORD_LEN);
		memcpy(al + A_MSG, &i, 4);
		sqe = txrdma_get_sqe(&a.sq);
		txrdma_prep_read(sqe, oa.id, a.r.id, A_DST, ORD_LEN, x.id,
				 X_R2S, 0);
		sqe = txrdma_get_sqe(&a.sq);
		txrdma_prep_send(sqe, oa.id, a.r.id, A_MSG, 4, 1);
		txrdma_sqe_set_flags(sqe, TXRDMA_SQE_F_FENCE);
		ASSERT_LE(0, txrdma_submit(a.ctx, &a.sq));
		ASSERT_EQ(4, rx_get(&rx, &b, &got, 4));
		ASSERT_EQ((uint32_t)i, got);
		memset(xl + X_R2S, 0xee, ORD_LEN);	/* "may overwrite" */
		ASSERT_EQ(0, lside_reap(&a, 2, res));
		ASSERT_EQ(ORD_LEN, res[0]);
		ASSERT_EQ(4, res[1]);
		ASSERT_TRUE(pat_is(al + A_DST, ORD_LEN, 3000 + i))
			TH_LOG("READ then fenced SEND: round %d: the READ saw the overwrite", i);
	}

	/* a NOP has nothing to fence: refused in its CQE */
	sqe = txrdma_get_sqe(&a.sq);
	txrdma_prep_nop(sqe, oa.id, 0);
	txrdma_sqe_set_flags(sqe, TXRDMA_SQE_F_FENCE);
	ASSERT_LE(0, txrdma_submit(a.ctx, &a.sq));
	ASSERT_EQ(0, lside_reap(&a, 1, res));
	EXPECT_EQ(-EINVAL, res[0]);

	r = txrdma_ep_destroy(a.ctx, oa.id);
	EXPECT_EQ(0, r);
	EXPECT_EQ(0, txrdma_ep_destroy(b.ctx, ob.id));
	txrdma_region_destroy(b.ctx, &x);
	lside_close(&a);
	lside_close(&b);
	ASSERT_EQ(0, cg_enter(CG_ROOT));
}

/* ---- exports ----------------------------------------------------------- */

#define XS_SVC2		(WAIT_SVC + 1)	/* third endpoints' service */
#define XS_RING		(1 << 20)	/* a's and b's rings, in r */
#define XS_RING2	(3 << 19)	/* a's ring of the third endpoints */
#define XS_UNITS	1024
#define XS_RW		(TXRDMA_EXPORT_READ | TXRDMA_EXPORT_WRITE)
/* in b's region x: the main export, a READ-only and a WRITE-only one */
#define XS_OFF		(256 << 10)
#define XS_LEN		(512 << 10)
#define XS_RO_OFF	(1 << 20)
#define XS_WO_OFF	((1 << 20) + (128 << 10))
#define XS_SMALL	(64 << 10)
#define XS_CHUNK	(64 << 10)
/* in a's region: READ target and WRITE source, poisoned around */
#define XS_DST		(256 << 10)
#define XS_SRC		(512 << 10)
#define XS_GUARD	4096
#define XS_POISON	0xcc
/* the first half of a's and b's region: no ring in it */
#define XS_HALF		(512 << 10)

static const char *xinfo_str(const struct txrdma_export_info *x)
{
	static char buf[4][96];
	static unsigned int n;
	char *b = buf[n++ % 4];

	snprintf(b, sizeof(buf[0]), "{region %u access %u off %llu len %llu}",
		 x->region, x->access, (unsigned long long)x->off,
		 (unsigned long long)x->len);
	return b;
}

/* how often @x is in @l[0..@n), exactly (region, access, off, len) */
static int xinfo_count(const struct txrdma_export_info *l, uint32_t n,
		       const struct txrdma_export_info *x)
{
	int c = 0;

	for (uint32_t i = 0; i < n && i < TXRDMA_EP_MAX_EXPORTS; i++)
		c += l[i].region == x->region && l[i].access == x->access &&
		     l[i].off == x->off && l[i].len == x->len;
	return c;
}

/* one READ or WRITE on @ep, its CQE waited for: its res */
static int lside_rw(struct lside *s, uint32_t ep, bool write, uint64_t loff,
		    uint32_t len, uint32_t rregion, uint64_t roff)
{
	struct txrdma_sqe *sqe = txrdma_get_sqe(&s->sq);
	int res;

	if (!sqe)
		return INT_MIN;
	if (write)
		txrdma_prep_write(sqe, ep, s->r.id, loff, len, rregion, roff, 0);
	else
		txrdma_prep_read(sqe, ep, s->r.id, loff, len, rregion, roff, 0);
	if (txrdma_submit(s->ctx, &s->sq) < 0 || lside_reap(s, 1, &res))
		return INT_MIN;
	return res;
}

static bool all_bytes(const uint8_t *p, size_t len, uint8_t v)
{
	for (size_t i = 0; i < len; i++)
		if (p[i] != v)
			return false;
	return true;
}

/*
 * READ @len bytes at @roff of region @rregion into @a's region at
 * XS_DST, poisoned first with XS_GUARD bytes either side: its res.
 * *@ok: the READ placed exactly @want there and nothing around it; a
 * READ that failed placed nothing at all.
 */
static int x_read(struct lside *a, uint32_t ep, uint32_t rregion,
		  uint64_t roff, uint32_t len, const uint8_t *want, bool *ok)
{
	uint8_t *d = (uint8_t *)a->r.addr + XS_DST;
	int res;

	memset(d - XS_GUARD, XS_POISON, len + 2 * XS_GUARD);
	res = lside_rw(a, ep, false, XS_DST, len, rregion, roff);
	if (res == (int)len)
		*ok = !memcmp(d, want, len) &&
		      all_bytes(d - XS_GUARD, XS_GUARD, XS_POISON) &&
		      all_bytes(d + len, XS_GUARD, XS_POISON);
	else
		*ok = all_bytes(d - XS_GUARD, len + 2 * XS_GUARD, XS_POISON);
	return res;
}

/*
 * WRITE @len bytes of pattern @seed from @a's region (XS_SRC) to @roff
 * of region @rregion, whose memory the exporter maps at @rbase and
 * should hold @rwant (@rsize bytes; updated on success): its res.
 * *@ok: afterwards the exporter's region holds exactly @rwant, every
 * byte of it compared (a refused WRITE changed nothing).
 */
static int x_write(struct lside *a, uint32_t ep, uint32_t rregion,
		   uint64_t roff, uint32_t len, uint32_t seed,
		   const uint8_t *rbase, uint8_t *rwant, size_t rsize, bool *ok)
{
	uint8_t *src = (uint8_t *)a->r.addr + XS_SRC;
	int res;

	pat_fill(src, (len + 3) & ~3u, seed);
	res = lside_rw(a, ep, true, XS_SRC, len, rregion, roff);
	if (res == (int)len && roff + len <= rsize)
		memcpy(rwant + roff, src, len);
	*ok = !memcmp(rbase, rwant, rsize);
	return res;
}

/* the tenant's pinned bytes equal @want within 10 s: the last value */
static int64_t pinned_settle(struct nlmini *nl, int64_t want)
{
	double end = now_s() + 10;
	int64_t v;

	for (;;) {
		v = t_get(nl, TA, TXRDMA_A_LIMIT_PINNED_BYTES, false);
		if (v == want || now_s() > end)
			return v;
		msleep(50);
	}
}

#define XEXPORTS(s, ep, q) \
	ASSERT_EQ(0, txrdma_ep_exports((s)->ctx, (ep), (q)))

/*
 * Exports are ranges with revoke and a query, checked on one pair over
 * the self peer (a connects, b accepts; both rings 1 MiB into their
 * region; b exports from a region x of its own, filled with a pattern):
 * (a) a sub-range exported READ|WRITE is in a's imported list exactly,
 *     with imports_gen one up, and in b's exported list;
 * (b) READ and WRITE at both ends of it move exactly the bytes named:
 *     a's target compared to x and poisoned around, all of x compared
 *     to what it must hold after each WRITE;
 * (c) one byte before or after the range, or across an end: -EFAULT;
 *     a region never exported (b's ring region, an unknown id): -EPERM;
 *     WRITE to a READ-only export and READ of a WRITE-only one: -EPERM;
 * (d) exporting the same range READ only changes its access (WRITE
 *     then -EPERM);
 * (e) revoke: gone from both lists, imports_gen one up, READ and WRITE
 *     -EPERM, revoke again -ENOENT;
 * (f) an export overlapping a receive ring of any endpoint of the
 *     tenant, header and last unit included, is -EADDRINUSE (right
 *     next to it is fine); one overlapping another export of the pair
 *     but not the same range -EEXIST, outside the region -EFAULT, of
 *     no region -ENOENT; a third endpoint whose ring would lie in an
 *     exported range (or over a live ring) fails, connecting or
 *     accepting, with -EADDRINUSE; an endpoint whose ring is there
 *     makes that export -EADDRINUSE until it is gone;
 * (g) 16 disjoint exports, the 17th -ENOSPC, a changed access needs no
 *     slot, a READ between exports of the region -EFAULT;
 * (h) x destroyed while exported stays charged (its memory is held and
 *     still read right); the pair destroyed, the tenant's pinned bytes
 *     are back to their value before x and the pair.
 */
TEST_F_TIMEOUT(ep, exports, 300)
{
	const uint64_t huge = TXRDMA_REGION_HUGE_SIZE;
	const size_t area = txrdma_rx_area_size(XS_UNITS);
	struct txrdma_ep_params pa = { .service = WAIT_SVC,
				       .rx_off = XS_RING, .rx_units = XS_UNITS,
				       .rx_max_msg = 64, .timeout_ms = 60000 };
	struct txrdma_ep_params pb = pa, p3a, p3b;
	struct txrdma_ep_pair oa, ob, oa2, ob2;
	struct txrdma_export_info x1, xro, xwo, xa, xb, t, xs[17];
	struct txrdma_ep_exports qa, qb;
	struct accept_job j;
	struct txrdma_region x;
	struct lside a, b;
	int64_t pin_pre, pin0, pin;
	uint8_t *xwant;
	uint32_t gen;
	pthread_t th;
	bool ok;
	int i, r;

	NEED_EPS();
	PEER_UP(3, 6);
	ASSERT_NE(0, area);
	ASSERT_EQ(0, cg_enter(CG_A));
	pin_pre = used(TXRDMA_A_LIMIT_PINNED_BYTES);
	ASSERT_LE(0, pin_pre);
	ASSERT_EQ(0, lside_open(&a));
	ASSERT_EQ(0, lside_open(&b));
	pin0 = used(TXRDMA_A_LIMIT_PINNED_BYTES);
	TH_LOG("pinned: %lld before the sides, %lld with their regions",
	       (long long)pin_pre, (long long)pin0);
	ASSERT_EQ(0, txrdma_ep_listen(b.ctx, WAIT_SVC));
	ASSERT_EQ(0, txrdma_ep_listen(b.ctx, XS_SVC2));
	pa.rx_region = a.r.id;
	pb.rx_region = b.r.id;
	ASSERT_EQ(0, lside_pair(&a, &pa, &oa, &b, &pb, &ob));
	ASSERT_EQ(0, txrdma_region_create(b.ctx, huge, 0, &x));
	EXPECT_EQ(pin0 + (int64_t)huge, used(TXRDMA_A_LIMIT_PINNED_BYTES));
	xwant = malloc(huge);
	ASSERT_NE(NULL, xwant);
	pat_fill(x.addr, huge, 77);
	memcpy(xwant, x.addr, huge);

	/* (a) nothing yet; then a sub-range, READ|WRITE, seen on both sides */
	XEXPORTS(&a, oa.id, &qa);
	EXPECT_EQ(0, qa.nimported);
	EXPECT_EQ(0, qa.nexported);
	gen = qa.imports_gen;
	/* endpoints belong to their file; unknown ids are not there */
	EXPECT_EQ(-ENOENT, txrdma_ep_exports(a.ctx, ob.id, &qa));
	EXPECT_EQ(-ENOENT, txrdma_ep_exports(a.ctx, 0x7ffffff0, &qa));
	x1 = (struct txrdma_export_info){ x.id, XS_RW, XS_OFF, XS_LEN };
	ASSERT_EQ(0, txrdma_ep_export(b.ctx, ob.id, &x1, 10000));
	XEXPORTS(&a, oa.id, &qa);
	ASSERT_EQ(1, qa.nimported);
	EXPECT_EQ(1, xinfo_count(qa.imported, qa.nimported, &x1))
		TH_LOG("a imported %s, b exported %s",
		       xinfo_str(&qa.imported[0]), xinfo_str(&x1));
	EXPECT_EQ(gen + 1, qa.imports_gen);
	EXPECT_EQ(0, qa.nexported);
	gen = qa.imports_gen;
	XEXPORTS(&b, ob.id, &qb);
	ASSERT_EQ(1, qb.nexported);
	EXPECT_EQ(1, xinfo_count(qb.exported, qb.nexported, &x1))
		TH_LOG("b's exported[0]: %s", xinfo_str(&qb.exported[0]));
	EXPECT_EQ(0, qb.nimported);

	/* (b) READ and WRITE at both ends of the range, byte-exact */
	EXPECT_EQ(XS_CHUNK, x_read(&a, oa.id, x.id, XS_OFF, XS_CHUNK,
				   xwant + XS_OFF, &ok));
	EXPECT_TRUE(ok) TH_LOG("READ of the range's first 64 KiB");
	EXPECT_EQ(XS_CHUNK, x_read(&a, oa.id, x.id, XS_OFF + XS_LEN - XS_CHUNK,
				   XS_CHUNK, xwant + XS_OFF + XS_LEN - XS_CHUNK,
				   &ok));
	EXPECT_TRUE(ok) TH_LOG("READ of the range's last 64 KiB");
	EXPECT_EQ(1, x_read(&a, oa.id, x.id, XS_OFF, 1, xwant + XS_OFF, &ok));
	EXPECT_TRUE(ok) TH_LOG("READ of the range's first byte");
	EXPECT_EQ(1, x_read(&a, oa.id, x.id, XS_OFF + XS_LEN - 1, 1,
			    xwant + XS_OFF + XS_LEN - 1, &ok));
	EXPECT_TRUE(ok) TH_LOG("READ of the range's last byte");
	EXPECT_EQ(XS_CHUNK, x_write(&a, oa.id, x.id, XS_OFF, XS_CHUNK, 101,
				    x.addr, xwant, huge, &ok));
	EXPECT_TRUE(ok) TH_LOG("WRITE of the range's first 64 KiB: x differs");
	EXPECT_EQ(XS_CHUNK, x_write(&a, oa.id, x.id,
				    XS_OFF + XS_LEN - XS_CHUNK, XS_CHUNK, 102,
				    x.addr, xwant, huge, &ok));
	EXPECT_TRUE(ok) TH_LOG("WRITE of the range's last 64 KiB: x differs");
	EXPECT_EQ(1, x_write(&a, oa.id, x.id, XS_OFF, 1, 103, x.addr, xwant,
			     huge, &ok));
	EXPECT_TRUE(ok) TH_LOG("WRITE of the range's first byte");
	EXPECT_EQ(1, x_write(&a, oa.id, x.id, XS_OFF + XS_LEN - 1, 1, 104,
			     x.addr, xwant, huge, &ok));
	EXPECT_TRUE(ok) TH_LOG("WRITE of the range's last byte");
	/* and what was written reads back */
	EXPECT_EQ(XS_CHUNK, x_read(&a, oa.id, x.id, XS_OFF, XS_CHUNK,
				   xwant + XS_OFF, &ok));
	EXPECT_TRUE(ok) TH_LOG("READ back of the first WRITE");

	/* (c) outside the range, or never exported, or the wrong access */
	EXPECT_EQ(-EFAULT, x_read(&a, oa.id, x.id, XS_OFF - 1, 1, xwant, &ok));
	EXPECT_TRUE(ok);
	EXPECT_EQ(-EFAULT, x_read(&a, oa.id, x.id, XS_OFF + XS_LEN, 1, xwant,
				  &ok));
	EXPECT_TRUE(ok);
	EXPECT_EQ(-EFAULT, x_read(&a, oa.id, x.id, XS_OFF - 1, 2, xwant, &ok));
	EXPECT_TRUE(ok);
	EXPECT_EQ(-EFAULT, x_read(&a, oa.id, x.id, XS_OFF + XS_LEN - 1, 2,
				  xwant, &ok));
	EXPECT_TRUE(ok);
	EXPECT_EQ(-EFAULT, x_write(&a, oa.id, x.id, XS_OFF - 1, 1, 105, x.addr,
				   xwant, huge, &ok));
	EXPECT_TRUE(ok) TH_LOG("a refused WRITE changed x");
	EXPECT_EQ(-EFAULT, x_write(&a, oa.id, x.id, XS_OFF + XS_LEN - 4, 8, 106,
				   x.addr, xwant, huge, &ok));
	EXPECT_TRUE(ok) TH_LOG("a refused WRITE changed x");
	EXPECT_EQ(-EPERM, x_read(&a, oa.id, b.r.id, 0, 64, xwant, &ok))
		TH_LOG("READ of b's ring region, never exported");
	EXPECT_TRUE(ok);
	EXPECT_EQ(-EPERM, x_read(&a, oa.id, 0x7fff0000, 0, 64, xwant, &ok))
		TH_LOG("READ of an unknown region");
	EXPECT_TRUE(ok);
	xro = (struct txrdma_export_info){ x.id, TXRDMA_EXPORT_READ,
					   XS_RO_OFF, XS_SMALL };
	xwo = (struct txrdma_export_info){ x.id, TXRDMA_EXPORT_WRITE,
					   XS_WO_OFF, XS_SMALL };
	ASSERT_EQ(0, txrdma_ep_export(b.ctx, ob.id, &xro, 10000));
	ASSERT_EQ(0, txrdma_ep_export(b.ctx, ob.id, &xwo, 10000));
	XEXPORTS(&a, oa.id, &qa);
	EXPECT_EQ(3, qa.nimported);
	EXPECT_EQ(1, xinfo_count(qa.imported, qa.nimported, &x1));
	EXPECT_EQ(1, xinfo_count(qa.imported, qa.nimported, &xro));
	EXPECT_EQ(1, xinfo_count(qa.imported, qa.nimported, &xwo));
	EXPECT_EQ(gen + 2, qa.imports_gen);
	gen = qa.imports_gen;
	EXPECT_EQ(-EPERM, x_write(&a, oa.id, x.id, XS_RO_OFF, 64, 107, x.addr,
				  xwant, huge, &ok))
		TH_LOG("WRITE to a READ-only export");
	EXPECT_TRUE(ok) TH_LOG("a refused WRITE changed x");
	EXPECT_EQ(XS_SMALL, x_read(&a, oa.id, x.id, XS_RO_OFF, XS_SMALL,
				   xwant + XS_RO_OFF, &ok));
	EXPECT_TRUE(ok);
	EXPECT_EQ(-EPERM, x_read(&a, oa.id, x.id, XS_WO_OFF, 64, xwant, &ok))
		TH_LOG("READ of a WRITE-only export");
	EXPECT_TRUE(ok);
	EXPECT_EQ(XS_SMALL, x_write(&a, oa.id, x.id, XS_WO_OFF, XS_SMALL, 108,
				    x.addr, xwant, huge, &ok));
	EXPECT_TRUE(ok);
	ASSERT_EQ(0, txrdma_ep_unexport(b.ctx, ob.id, &xro, 10000));
	ASSERT_EQ(0, txrdma_ep_unexport(b.ctx, ob.id, &xwo, 10000));
	XEXPORTS(&a, oa.id, &qa);
	EXPECT_EQ(1, qa.nimported);
	EXPECT_EQ(1, xinfo_count(qa.imported, qa.nimported, &x1));
	EXPECT_EQ(gen + 2, qa.imports_gen);
	gen = qa.imports_gen;

	/* (d) the same range again, READ only: its access changes */
	x1.access = TXRDMA_EXPORT_READ;
	ASSERT_EQ(0, txrdma_ep_export(b.ctx, ob.id, &x1, 10000));
	XEXPORTS(&a, oa.id, &qa);
	EXPECT_EQ(1, qa.nimported);
	EXPECT_EQ(1, xinfo_count(qa.imported, qa.nimported, &x1))
		TH_LOG("a imported %s", xinfo_str(&qa.imported[0]));
	EXPECT_EQ(gen + 1, qa.imports_gen);
	gen = qa.imports_gen;
	XEXPORTS(&b, ob.id, &qb);
	EXPECT_EQ(1, qb.nexported);
	EXPECT_EQ(1, xinfo_count(qb.exported, qb.nexported, &x1));
	EXPECT_EQ(-EPERM, x_write(&a, oa.id, x.id, XS_OFF, 64, 109, x.addr,
				  xwant, huge, &ok))
		TH_LOG("WRITE after the export became READ only");
	EXPECT_TRUE(ok) TH_LOG("a refused WRITE changed x");
	EXPECT_EQ(XS_CHUNK, x_read(&a, oa.id, x.id, XS_OFF, XS_CHUNK,
				   xwant + XS_OFF, &ok));
	EXPECT_TRUE(ok);

	/* (e) revoke: gone on both sides, no more access, not twice */
	ASSERT_EQ(0, txrdma_ep_unexport(b.ctx, ob.id, &x1, 10000));
	XEXPORTS(&a, oa.id, &qa);
	EXPECT_EQ(0, qa.nimported);
	EXPECT_EQ(gen + 1, qa.imports_gen);
	gen = qa.imports_gen;
	XEXPORTS(&b, ob.id, &qb);
	EXPECT_EQ(0, qb.nexported);
	EXPECT_EQ(-EPERM, x_read(&a, oa.id, x.id, XS_OFF, 64, xwant, &ok))
		TH_LOG("READ after the revoke");
	EXPECT_TRUE(ok);
	EXPECT_EQ(-EPERM, x_write(&a, oa.id, x.id, XS_OFF, 64, 110, x.addr,
				  xwant, huge, &ok))
		TH_LOG("WRITE after the revoke");
	EXPECT_TRUE(ok) TH_LOG("a refused WRITE changed x");
	EXPECT_EQ(-ENOENT, txrdma_ep_unexport(b.ctx, ob.id, &x1, 10000))
		TH_LOG("revoke again");
	t = (struct txrdma_export_info){ b.r.id, 0, 0, XS_HALF };
	EXPECT_EQ(-ENOENT, txrdma_ep_unexport(b.ctx, ob.id, &t, 10000))
		TH_LOG("revoke of a range never exported");
	t.region = 0x7fff0000;
	EXPECT_EQ(-ENOENT, txrdma_ep_unexport(b.ctx, ob.id, &t, 10000))
		TH_LOG("revoke in an unknown region");

	/* (f) never over a receive ring: b's, and a's (another endpoint) */
	t = (struct txrdma_export_info){ b.r.id, XS_RW, 0, 0 };
	EXPECT_EQ(-EADDRINUSE, txrdma_ep_export(b.ctx, ob.id, &t, 10000))
		TH_LOG("all of b's ring region");
	t = (struct txrdma_export_info){ b.r.id, TXRDMA_EXPORT_READ,
					 XS_RING, 1 };
	EXPECT_EQ(-EADDRINUSE, txrdma_ep_export(b.ctx, ob.id, &t, 10000))
		TH_LOG("the ring header's first byte");
	t.off = XS_RING + area - 1;
	EXPECT_EQ(-EADDRINUSE, txrdma_ep_export(b.ctx, ob.id, &t, 10000))
		TH_LOG("the ring's last byte (area %zu)", area);
	t.off = XS_RING - 4096;
	t.len = 4097;
	EXPECT_EQ(-EADDRINUSE, txrdma_ep_export(b.ctx, ob.id, &t, 10000))
		TH_LOG("across the ring's start");
	t = (struct txrdma_export_info){ a.r.id, TXRDMA_EXPORT_READ,
					 XS_RING + 64, 64 };
	EXPECT_EQ(-EADDRINUSE, txrdma_ep_export(b.ctx, ob.id, &t, 10000))
		TH_LOG("a's ring, from b's side (the tenant's other endpoint)");
	/* right next to a ring is fine */
	t = (struct txrdma_export_info){ b.r.id, TXRDMA_EXPORT_READ,
					 XS_RING - 64, 64 };
	EXPECT_EQ(0, txrdma_ep_export(b.ctx, ob.id, &t, 10000))
		TH_LOG("the 64 bytes before the ring");
	EXPECT_EQ(0, txrdma_ep_unexport(b.ctx, ob.id, &t, 10000));
	t.off = XS_RING + area;
	EXPECT_EQ(0, txrdma_ep_export(b.ctx, ob.id, &t, 10000))
		TH_LOG("the 64 bytes after the ring");
	EXPECT_EQ(0, txrdma_ep_unexport(b.ctx, ob.id, &t, 10000));

	/* overlapping another export of the pair: only the same range */
	x1.access = XS_RW;
	ASSERT_EQ(0, txrdma_ep_export(b.ctx, ob.id, &x1, 10000));
	t = (struct txrdma_export_info){ x.id, XS_RW, XS_OFF + 4096, 4096 };
	EXPECT_EQ(-EEXIST, txrdma_ep_export(b.ctx, ob.id, &t, 10000))
		TH_LOG("inside the export");
	t.off = XS_OFF - 4096;
	t.len = 8192;
	EXPECT_EQ(-EEXIST, txrdma_ep_export(b.ctx, ob.id, &t, 10000))
		TH_LOG("across its start");
	t.off = XS_OFF;
	t.len = XS_LEN + 4096;
	EXPECT_EQ(-EEXIST, txrdma_ep_export(b.ctx, ob.id, &t, 10000))
		TH_LOG("same start, longer");
	t.len = 0;
	EXPECT_EQ(-EEXIST, txrdma_ep_export(b.ctx, ob.id, &t, 10000))
		TH_LOG("same start, to the region's end");
	t.off = XS_OFF + XS_LEN;
	t.len = 4096;
	EXPECT_EQ(0, txrdma_ep_export(b.ctx, ob.id, &t, 10000))
		TH_LOG("right after it");
	EXPECT_EQ(0, txrdma_ep_unexport(b.ctx, ob.id, &t, 10000));
	/* outside the region, or no region */
	t = (struct txrdma_export_info){ x.id, TXRDMA_EXPORT_READ,
					 huge - 64, 128 };
	EXPECT_EQ(-EFAULT, txrdma_ep_export(b.ctx, ob.id, &t, 10000))
		TH_LOG("across the region's end");
	t.off = huge + 4096;
	t.len = 64;
	EXPECT_EQ(-EFAULT, txrdma_ep_export(b.ctx, ob.id, &t, 10000))
		TH_LOG("past the region's end");
	t.len = 0;
	EXPECT_EQ(-EFAULT, txrdma_ep_export(b.ctx, ob.id, &t, 10000))
		TH_LOG("past the region's end, len 0");
	t = (struct txrdma_export_info){ 0x7fff0000, TXRDMA_EXPORT_READ, 0, 64 };
	EXPECT_EQ(-ENOENT, txrdma_ep_export(b.ctx, ob.id, &t, 10000))
		TH_LOG("no such region");
	/* none of the refused ones reached a */
	XEXPORTS(&a, oa.id, &qa);
	EXPECT_EQ(1, qa.nimported);
	EXPECT_EQ(1, xinfo_count(qa.imported, qa.nimported, &x1));
	XEXPORTS(&b, ob.id, &qb);
	EXPECT_EQ(1, qb.nexported);

	/*
	 * third endpoints: a exports the first half of its region, b the
	 * first half of its own; a ring there is refused, connecting
	 * (before anything is sent) or accepting
	 */
	xa = (struct txrdma_export_info){ a.r.id, XS_RW, 0, XS_HALF };
	xb = (struct txrdma_export_info){ b.r.id, XS_RW, 0, XS_HALF };
	ASSERT_EQ(0, txrdma_ep_export(a.ctx, oa.id, &xa, 10000));
	ASSERT_EQ(0, txrdma_ep_export(b.ctx, ob.id, &xb, 10000));
	XEXPORTS(&b, ob.id, &qb);
	EXPECT_EQ(1, qb.nimported);
	EXPECT_EQ(1, xinfo_count(qb.imported, qb.nimported, &xa));
	p3a = pa;
	p3a.service = XS_SVC2;
	p3a.rx_off = XS_HALF / 2;
	p3a.timeout_ms = 3000;
	memset(&oa2, 0, sizeof(oa2));
	r = txrdma_ep_connect(a.ctx, PEER, &p3a, &oa2);
	EXPECT_EQ(-EADDRINUSE, r)
		TH_LOG("connect with its ring in a's export: %d", r);
	if (!r)
		txrdma_ep_destroy(a.ctx, oa2.id);
	p3a.rx_off = XS_RING + 64;
	memset(&oa2, 0, sizeof(oa2));
	r = txrdma_ep_connect(a.ctx, PEER, &p3a, &oa2);
	EXPECT_EQ(-EADDRINUSE, r)
		TH_LOG("connect with its ring over a's live ring: %d", r);
	if (!r)
		txrdma_ep_destroy(a.ctx, oa2.id);
	p3a.rx_off = XS_RING2;
	p3a.timeout_ms = 5000;
	p3b = pb;
	p3b.service = XS_SVC2;
	p3b.rx_off = XS_HALF / 2;
	p3b.timeout_ms = 30000;
	j = (struct accept_job){ .s = &b, .p = p3b };
	ASSERT_EQ(0, pthread_create(&th, NULL, accept_thread, &j));
	memset(&oa2, 0, sizeof(oa2));
	r = txrdma_ep_connect(a.ctx, PEER, &p3a, &oa2);
	pthread_join(th, NULL);
	EXPECT_EQ(-EADDRINUSE, j.ret)
		TH_LOG("accept with its ring in b's export: %d", j.ret);
	/* the connector was refused, then waited for another accept */
	EXPECT_NE(0, r) TH_LOG("the connect paired with a refused accept");
	TH_LOG("the connect to the refusing accept: %d", r);
	if (!j.ret)
		txrdma_ep_destroy(b.ctx, j.out.id);
	if (!r)
		txrdma_ep_destroy(a.ctx, oa2.id);
	/*
	 * the other way round: with b's export revoked, an endpoint whose
	 * ring is there; the export is refused until it is destroyed
	 */
	ASSERT_EQ(0, txrdma_ep_unexport(b.ctx, ob.id, &xb, 10000));
	p3b.service = WAIT_SVC;
	p3a.service = WAIT_SVC;
	p3a.timeout_ms = 60000;
	ASSERT_EQ(0, lside_pair(&a, &p3a, &oa2, &b, &p3b, &ob2))
		TH_LOG("a ring where the revoked export was");
	EXPECT_EQ(-EADDRINUSE, txrdma_ep_export(b.ctx, ob.id, &xb, 10000))
		TH_LOG("over the ring of the pair beside");
	EXPECT_EQ(-EADDRINUSE, txrdma_ep_export(b.ctx, ob2.id, &xb, 10000))
		TH_LOG("over the ring of its own pair");
	EXPECT_EQ(0, txrdma_ep_destroy(a.ctx, oa2.id));
	EXPECT_EQ(0, txrdma_ep_destroy(b.ctx, ob2.id));
	EXPECT_EQ(0, txrdma_ep_export(b.ctx, ob.id, &xb, 10000))
		TH_LOG("the ring's endpoint destroyed");
	EXPECT_EQ(0, txrdma_ep_unexport(b.ctx, ob.id, &xb, 10000));
	EXPECT_EQ(0, txrdma_ep_unexport(a.ctx, oa.id, &xa, 10000));
	EXPECT_EQ(0, txrdma_ep_unexport(b.ctx, ob.id, &x1, 10000));

	/* (g) 16 disjoint exports, not 17 */
	XEXPORTS(&b, ob.id, &qb);
	ASSERT_EQ(0, qb.nexported);
	XEXPORTS(&a, oa.id, &qa);
	ASSERT_EQ(0, qa.nimported);
	gen = qa.imports_gen;
	for (i = 0; i < 17; i++)
		xs[i] = (struct txrdma_export_info){
			x.id, i % 2 ? TXRDMA_EXPORT_READ : XS_RW,
			(uint64_t)i * XS_SMALL, XS_SMALL,
		};
	for (i = 0; i < 16; i++)
		ASSERT_EQ(0, txrdma_ep_export(b.ctx, ob.id, &xs[i], 10000))
			TH_LOG("export %d", i);
	EXPECT_EQ(-ENOSPC, txrdma_ep_export(b.ctx, ob.id, &xs[16], 10000));
	xs[3].access = XS_RW;
	EXPECT_EQ(0, txrdma_ep_export(b.ctx, ob.id, &xs[3], 10000))
		TH_LOG("a new access for one of 16: no slot needed");
	XEXPORTS(&a, oa.id, &qa);
	EXPECT_EQ(16, qa.nimported);
	EXPECT_EQ(gen + 17, qa.imports_gen);
	XEXPORTS(&b, ob.id, &qb);
	EXPECT_EQ(16, qb.nexported);
	for (i = 0; i < 16; i++) {
		EXPECT_EQ(1, xinfo_count(qa.imported, qa.nimported, &xs[i]))
			TH_LOG("export %d %s in a's imported list", i,
			       xinfo_str(&xs[i]));
		EXPECT_EQ(1, xinfo_count(qb.exported, qb.nexported, &xs[i]))
			TH_LOG("export %d %s in b's exported list", i,
			       xinfo_str(&xs[i]));
	}
	EXPECT_EQ(0, xinfo_count(qa.imported, qa.nimported, &xs[16]));
	EXPECT_EQ(XS_SMALL, x_read(&a, oa.id, x.id, xs[15].off, XS_SMALL,
				   xwant + xs[15].off, &ok));
	EXPECT_TRUE(ok);
	EXPECT_EQ(-EFAULT, x_read(&a, oa.id, x.id, xs[16].off, 64, xwant, &ok))
		TH_LOG("past the 16 exports of the region");
	EXPECT_TRUE(ok);
	EXPECT_EQ(XS_SMALL, x_write(&a, oa.id, x.id, xs[3].off, XS_SMALL, 111,
				    x.addr, xwant, huge, &ok))
		TH_LOG("WRITE to export 3, READ|WRITE now");
	EXPECT_TRUE(ok);

	/* (h) x destroyed: held by the exports; the pair gone: all back */
	EXPECT_EQ(pin0 + (int64_t)huge, used(TXRDMA_A_LIMIT_PINNED_BYTES));
	EXPECT_EQ(0, txrdma_region_destroy(b.ctx, &x));
	pin = pinned_settle(&self->nl, pin0 + huge);
	EXPECT_EQ(pin0 + (int64_t)huge, pin)
		TH_LOG("x destroyed with 16 exports: its memory is still held");
	EXPECT_EQ(XS_SMALL, x_read(&a, oa.id, xs[0].region, xs[0].off,
				   XS_SMALL, xwant + xs[0].off, &ok))
		TH_LOG("READ of an export of the destroyed region");
	EXPECT_TRUE(ok);
	EXPECT_EQ(0, txrdma_ep_destroy(a.ctx, oa.id));
	EXPECT_EQ(0, txrdma_ep_destroy(b.ctx, ob.id));
	pin = pinned_settle(&self->nl, pin0);
	EXPECT_EQ(pin0, pin)
		TH_LOG("the pair destroyed: pinned %lld, before %lld",
		       (long long)pin, (long long)pin0);
	lside_close(&a);
	lside_close(&b);
	pin = pinned_settle(&self->nl, pin_pre);
	EXPECT_EQ(pin_pre, pin);
	free(xwant);
	ASSERT_EQ(0, cg_enter(CG_ROOT));
}

TEST_HARNESS_MAIN
