// SPDX-License-Identifier: GPL-2.0-only
/*
 * hostile: a tenant's process that does everything a process may do to
 * the module, at random (the "hostile" suite of run_vm_tests.py;
 * hostile_guest.sh runs it under three seeds while a process of another
 * tenant streams through the same module and peer: legit_stream).
 *
 *   hostile TENANT PEER SERVICE SEED OPS SECONDS LOG [VICTIM_SERVICE]
 *
 * With three files (a server listening on SERVICE, a client, a spare),
 * each with its rings and a region mapped, and endpoint pairs between
 * them over PEER (a self peer), it runs OPS operations (at most SECONDS)
 * drawn from SEED, each one of (VICTIM_SERVICE: the other tenant's
 * service, which listens and connects try too):
 *
 *  scribble  a random or near-valid value (old +-1, +-entries, 0, ~0,
 *	      a bit flipped, +2^31) into a word of a mapping: SQ and CQ
 *	      head, tail, flags, dropped, mask, entries; an SQE or CQE
 *	      word; a receive ring's tail, error, head or units; a region;
 *  sqes      1-8 SQEs (valid, near-valid or garbage: opcode, prio,
 *	      flags, endpoint, regions, offsets, length, reserved) and a
 *	      new tail, often a doorbell, often the CQ reaped;
 *  doorbell  TXRDMA_IOC_RING_ENTER on a file (or a file without rings),
 *	      or poll(2) on it;
 *  ioctl     every TXRDMA_IOC_* (and unknown ones) with a valid
 *	      argument, one with a field mutated, random bytes, or a bad
 *	      pointer (NULL, kernel, unmapped, read-only, straddling a
 *	      page end, inside the ring mapping); blocking ones bounded by
 *	      a 300 ms timer (EINTR);
 *  mmap      the rings or a region at a random offset and length
 *	      (beyond the size, of a destroyed region, MAP_PRIVATE, any
 *	      prot), touched, then unmapped whole, split, kept, mremap'd;
 *  region    create, destroy (also the one holding a live ring), info,
 *	      register user memory (anonymous, the ring mapping, a file);
 *  pair      make one (accept in a thread, connect), destroy one,
 *	      export a range of a region (mostly where no ring is, else
 *	      over the rings, all of it, around its end, anything), revoke
 *	      one exported before (or a range near it), ask EP_EXPORTS
 *	      (its counts must fit its arrays), release a ring, a burst of
 *	      valid SENDs;
 *  fork      a child that scribbles, rings and calls on the inherited
 *	      mappings and fds, then exits, closes all or SIGKILLs itself;
 *  close     closes a file while a thread rings its doorbell or is
 *	      blocked in EP_ACCEPT/EP_CONNECT on it, then rebuilds it;
 *  kill      a child that makes its own pair, fills its SQ with SENDs,
 *	      rings and SIGKILLs itself with all of it in flight;
 *
 * while a second thread races it all the time: doorbells, EP_INFO and
 * EP_DESTROY of the ids just above the highest seen (the endpoints
 * being paired right now), REGION_DESTROY of the ids being made.
 *
 * Every operation is written to LOG ("number kind details") before it
 * runs, so a failure replays from the seed and the log's last lines.
 * At the end it prints the counts, then fills its SQ with SENDs and
 * SIGKILLs itself: exit status 137 is success.  What it asserts itself
 * is only that it ran (OPS done, no child or thread stuck in the
 * kernel); the guest script asserts the rest (the other tenant's
 * stream byte-exact, this tenant's usage back to 0, tenant del without
 * force, rmmod) and the runner a clean kernel log.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hostile.h"

#define PAIR_MS		500
#define CLOSE_MS	200		/* what a closing thread blocks for */
#define WANT_EPS	4		/* pair ops make pairs below this */
#define CHILD_S		30		/* a child not gone by then is stuck */

enum { K_SCRIBBLE, K_SQES, K_DOORBELL, K_IOCTL, K_MMAP, K_REGION, K_PAIR,
       K_FORK, K_CLOSE, K_KILL, K_NR };
static const char *const kname[K_NR] = {
	"scribble", "sqes", "doorbell", "ioctl", "mmap", "region", "pair",
	"fork", "close", "kill",
};
/*
 * Per 10,000: the cheap operations are most of them; the costly ones
 * (a pair takes ~0.2 s, a fork 0.1 s, a kill 0.6 s under TCG) are
 * as many as 35,000 operations in 90 s leave time for.
 */
static const unsigned int kweight[K_NR] = {
	4360, 1900, 1400, 1700, 400, 150, 40, 40, 5, 5,
};

struct at_file hf[NF];
struct hep eps[NEP];
uint32_t regs[NREG], nregs;
struct xmap xmaps[NXMAP];
atomic_uint id_max;
const char *peer;
uint32_t service, victim_service;
FILE *oplog;
unsigned long opn, faults;
bool child;
void *ro_page, *edge_page, *anon;
static unsigned long kcount[K_NR], stuck;
static double ktime[K_NR];
static timer_t block_timer;

/* ---- guards: faults in our own mappings, and blocking ioctls --------- */

static __thread sigjmp_buf *guard;

static void on_fault(int sig)
{
	if (guard)
		siglongjmp(*guard, sig);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void on_alarm(int sig)
{
	(void)sig;		/* interrupts the ioctl: EINTR */
}

/*
 * Run @fn(@arg); a SIGSEGV or SIGBUS in it (a mapping the kernel took
 * back, a page past the end of an object) is counted, not fatal.
 */
__attribute__((noinline)) void guarded(void (*fn)(void *), void *arg)
{
	sigjmp_buf env, *old = guard;

	if (!sigsetjmp(env, 1)) {
		guard = &env;
		fn(arg);
	} else {
		faults++;
	}
	guard = old;
}

void block_arm(unsigned int ms)
{
	struct itimerspec it = { .it_value = { ms / 1000,
					       (ms % 1000) * 1000000L } };

	if (!child)
		timer_settime(block_timer, 0, &it, NULL);
}

void block_disarm(void)
{
	struct itimerspec it = { 0 };

	if (!child)
		timer_settime(block_timer, 0, &it, NULL);
}

/* ---- files and endpoints ---------------------------------------------- */

void saw_id(uint32_t id)
{
	unsigned int m = atomic_load(&id_max);

	while (id > m && !atomic_compare_exchange_weak(&id_max, &m, id))
		;
}

/* a plausible endpoint id: ours, near ours (another tenant's), random */
uint32_t some_id(struct at_rng *r, int file)
{
	uint32_t i = at_below(r, NEP);

	switch (at_below(r, 4)) {
	case 0:
	case 1:
		if (eps[i].live && (file < 0 || eps[i].file == file))
			return eps[i].id;
		/* fall through */
	case 2:
		return at_below(r, atomic_load(&id_max) + 8);
	default:
		return at_rand(r);
	}
}

static int file_open(int i)
{
	int ret = at_file_open(&hf[i], 64, REGION, true);
	double end = at_now() + 5;

	if (ret || i != F_SRV)
		return ret;
	/* the file before may still hold the service a moment */
	while ((ret = at_listen(hf[i].fd, service)) == -EADDRINUSE &&
	       at_now() < end)
		at_msleep(10);
	return ret;
}

static void file_lost(int i)
{
	for (int e = 0; e < NEP; e++)
		if (eps[e].file == i)
			eps[e].live = false;
}

struct accept_arg {
	int fd;
	uint32_t region, units;
	uint64_t off;
	int ret;
	struct txrdma_ep_connect ep;
};

static void *accept_thread(void *p)
{
	struct accept_arg *a = p;

	a->ret = at_pair(a->fd, NULL, service, a->region, a->units, a->off,
			 PAIR_MS, &a->ep);
	return NULL;
}

static int free_slot(void)
{
	for (int e = 0; e < NEP; e++)
		if (!eps[e].live)
			return e;
	return -1;
}

static void add_ep(int e, int file, const struct txrdma_ep_connect *c)
{
	eps[e] = (struct hep){ true, file, c->id, c->rx_units, c->max_msg };
	saw_id(c->id);
}

/* A pair between the server and the client file over the self peer. */
static void make_pair(struct at_rng *r)
{
	struct accept_arg a;
	struct txrdma_ep_connect c;
	uint32_t units = 16U << at_below(r, 7);
	int es, ec, ret;
	pthread_t th;

	es = free_slot();
	if (es < 0)
		return;
	eps[es].live = true;	/* reserve */
	ec = free_slot();
	eps[es].live = false;
	if (ec < 0)
		return;
	a = (struct accept_arg){ .fd = hf[F_SRV].fd,
				 .region = hf[F_SRV].region, .units = units,
				 .off = es * RX_SLOT };
	LOG("pair make units %u slots %d %d", units, es, ec);
	if (pthread_create(&th, NULL, accept_thread, &a))
		return;
	ret = at_pair(hf[F_CLI].fd, peer, service, hf[F_CLI].region, units,
		      ec * RX_SLOT, PAIR_MS, &c);
	pthread_join(th, NULL);
	if (!a.ret)
		add_ep(es, F_SRV, &a.ep);
	if (!ret)
		add_ep(ec, F_CLI, &c);
}

/* ---- pairs ------------------------------------------------------------ */

/* @n valid SENDs on endpoint @e, published and rung */
struct sends {
	struct at_rng *r;
	int e;
	unsigned int n;
};

static void write_sends(void *p)
{
	struct sends *s = p;
	struct at_file *f = &hf[eps[s->e].file];
	uint32_t *tail = (uint32_t *)((char *)f->ring + f->rs.sq_off.tail);
	struct txrdma_sqe *sqes = (struct txrdma_sqe *)((char *)f->ring +
							f->rs.sq_off.sqes);
	uint32_t t = __atomic_load_n(tail, __ATOMIC_RELAXED), k;
	uint32_t max = eps[s->e].max_msg ? eps[s->e].max_msg : 64;
	struct txrdma_sqe *q;

	for (k = 0; k < s->n; k++) {
		q = &sqes[(t + k) & (f->rs.sq_entries - 1)];
		memset(q, 0, sizeof(*q));
		q->opcode = TXRDMA_OP_SEND;
		q->ep = eps[s->e].id;
		q->local_region = f->region;
		q->local_off = TXRDMA_REGION_HUGE_SIZE + PG * (k % 256);
		q->len = 1 + at_below(s->r, max < PG ? max : PG);
		q->user_data = opn;
	}
	__atomic_store_n(tail, t + s->n, __ATOMIC_RELEASE);
}

static void sends(struct at_rng *r, int e, unsigned int n)
{
	struct sends s = { r, e, n };
	struct at_file *f = &hf[eps[e].file];

	if (!f->ring)
		return;
	guarded(write_sends, &s);
	ioctl(f->fd, TXRDMA_IOC_RING_ENTER, 0);
}

static void release_all(void *rx)
{
	uint32_t *head = (uint32_t *)((char *)rx + TXRDMA_RX_OFF_HEAD);
	uint32_t *tail = (uint32_t *)((char *)rx + TXRDMA_RX_OFF_TAIL);

	__atomic_store_n(head, __atomic_load_n(tail, __ATOMIC_ACQUIRE),
			 __ATOMIC_RELEASE);
}

/* exports that succeeded, for revokes: file and argument */
#define NXDONE	8
static struct {
	int file;
	struct txrdma_ep_export ex;
} xdone[NXDONE];
static unsigned long x_tried, x_made, x_revoked, x_errs[140];

/*
 * the other module's answer: often too soon (the export is then undone,
 * the revoke done anyway), else in time (under the 300 ms timer)
 */
static __u32 export_timeout(struct at_rng *r)
{
	return at_below(r, 2) ? 1 + at_below(r, 10) : 50 + at_below(r, 200);
}

/* export a range, revoke one, or ask what the pair exported */
static void pair_export_one(struct at_rng *r, int e)
{
	struct txrdma_ep_export ex;
	struct txrdma_ep_exports q;
	int f = eps[e].file, k = at_below(r, NXDONE), ret;

	switch (at_below(r, 3)) {
	case 0:
		ex = (struct txrdma_ep_export){
			.ep = eps[e].id,
			/*
			 * the file's own region (it may be destroyed by
			 * now), the newest one made, or any
			 */
			.region = at_below(r, 2) ? hf[f].region :
				  at_below(r, 2) && nregs ? regs[nregs - 1] :
				  some_region(r, f),
			.access = 1 + at_below(r, 3),
			.timeout_ms = export_timeout(r) };
		some_range(r, &ex.off, &ex.len);
		LOG("pair export %u region %u access %u off %#llx len %#llx",
		    ex.ep, ex.region, ex.access, (unsigned long long)ex.off,
		    (unsigned long long)ex.len);
		block_arm(BLOCK_MS);
		ret = ioctl(hf[f].fd, TXRDMA_IOC_EP_EXPORT, &ex);
		block_disarm();
		x_tried++;
		if (ret && errno > 0 && errno < 140)
			x_errs[errno]++;
		if (!ret) {
			xdone[k] = (typeof(xdone[0])){ f, ex };
			x_made++;
		}
		break;
	case 1:
		if (!xdone[k].ex.ep)
			break;
		f = xdone[k].file;
		ex = xdone[k].ex;
		ex.access = 0;
		ex.timeout_ms = export_timeout(r);
		/* that very range, or one near it (-ENOENT) */
		if (!at_below(r, 4))
			ex.off += at_below(r, 2) ? PG : -PG;
		LOG("pair revoke %u region %u off %#llx len %#llx", ex.ep,
		    ex.region, (unsigned long long)ex.off,
		    (unsigned long long)ex.len);
		block_arm(BLOCK_MS);
		ret = ioctl(hf[f].fd, TXRDMA_IOC_EP_EXPORT, &ex);
		block_disarm();
		if (!ret) {
			xdone[k].ex.ep = 0;
			x_revoked++;
		}
		break;
	default:
		memset(&q, 0, sizeof(q));
		q.ep = at_below(r, 4) ? eps[e].id : some_id(r, f);
		LOG("pair exports %u", q.ep);
		if (!ioctl(hf[f].fd, TXRDMA_IOC_EP_EXPORTS, &q))
			exports_check(&q);
		break;
	}
}

/*
 * A few of them in a row: pairs are few and costly to make.  An
 * endpoint our own fuzzed EP_DESTROY (or the racer) took is forgotten
 * first, so that make_pair() replaces it.
 */
static void pair_exports(struct at_rng *r, int e)
{
	struct txrdma_ep_info info;

	if (at_ep_info(hf[eps[e].file].fd, eps[e].id, &info) == -ENOENT) {
		eps[e].live = false;
		return;
	}
	for (unsigned int n = 1 + at_below(r, 4); n && eps[e].live; n--)
		pair_export_one(r, e);
}

static void op_pair(struct at_rng *r)
{
	int e = at_below(r, NEP);
	unsigned int live = 0;
	char *rx;

	for (int k = 0; k < NEP; k++)
		live += eps[k].live;
	if (live < WANT_EPS && !at_below(r, 2)) {
		make_pair(r);
		return;
	}
	if (!eps[e].live) {
		/*
		 * an empty slot: half the time, exports on the next live
		 * endpoint (they need a pair, and succeed rarely enough)
		 */
		if (at_below(r, 2))
			return;
		for (int k = 1; k < NEP; k++)
			if (eps[(e + k) % NEP].live) {
				pair_exports(r, (e + k) % NEP);
				break;
			}
		return;
	}
	switch (at_below(r, 4)) {
	case 0:
		LOG("pair destroy %u", eps[e].id);
		at_ep_destroy(hf[eps[e].file].fd, eps[e].id);
		eps[e].live = false;
		break;
	case 1:
		pair_exports(r, e);
		break;
	case 2:		/* read everything: head = tail, doorbell */
		rx = (char *)hf[eps[e].file].region_addr;
		if (!rx)
			break;
		rx += e * RX_SLOT;
		LOG("pair release %u", eps[e].id);
		guarded(release_all, rx);
		ioctl(hf[eps[e].file].fd, TXRDMA_IOC_RING_ENTER, 0);
		break;
	default:
		LOG("pair sends %u", eps[e].id);
		sends(r, e, 1 + at_below(r, 32));
		break;
	}
}

/* ---- processes -------------------------------------------------------- */

static void reap_child(pid_t pid, const char *what)
{
	double end = at_now() + CHILD_S;
	int st;

	while (waitpid(pid, &st, WNOHANG) == 0) {
		if (at_now() > end) {
			stuck++;
			tap_diag("op %lu: %s child %d not gone after %d s (stuck in the kernel?)",
				 opn, what, pid, CHILD_S);
			kill(pid, SIGKILL);
			return;
		}
		at_msleep(2);
	}
}

static void op_fork(struct at_rng *r)
{
	struct at_rng cr = { at_rand(r) };
	unsigned int how = at_below(r, 4), n, k;
	pid_t pid;

	LOG("fork seed %#llx end %u", (unsigned long long)cr.s, how);
	fflush(oplog);
	pid = fork();
	if (pid < 0)
		return;
	if (pid) {
		reap_child(pid, "fork");
		return;
	}
	child = true;
	oplog = NULL;
	n = 20 + at_below(&cr, 60);
	for (k = 0; k < n; k++) {
		switch (at_below(&cr, 4)) {
		case 0: op_scribble(&cr); break;
		case 1: op_sqes(&cr); break;
		case 2: op_doorbell(&cr); break;
		default: op_ioctl(&cr); break;
		}
	}
	switch (how) {
	case 0:
		_exit(0);
	case 1:
		raise(SIGKILL);
		_exit(1);
	case 2:
		for (k = 0; k < NF; k++)
			close(hf[k].fd);
		_exit(0);
	default:	/* the rings unmapped, then their doorbell */
		if (hf[0].ring)
			munmap(hf[0].ring, hf[0].rs.mmap_len);
		ioctl(hf[0].fd, TXRDMA_IOC_RING_ENTER, 0);
		_exit(0);
	}
}

struct closer {
	int fd, mode;
	uint32_t region;
	atomic_bool stop;
};

static void *close_thread(void *p)
{
	struct closer *c = p;

	switch (c->mode) {
	case 0:
		while (!atomic_load(&c->stop))
			ioctl(c->fd, TXRDMA_IOC_RING_ENTER, 0);
		break;
	case 1:
		at_pair(c->fd, NULL, service, c->region, 64,
			(NEP - 1) * RX_SLOT, CLOSE_MS, NULL);
		break;
	default:
		at_pair(c->fd, peer, service, c->region, 64,
			(NEP - 1) * RX_SLOT, CLOSE_MS, NULL);
		break;
	}
	return NULL;
}

static void op_close(struct at_rng *r)
{
	static const char *const how[] = { "rings", "accepts", "connects" };
	int i = at_below(r, NF), ret;
	double t0, t;
	struct closer c = { .fd = hf[i].fd, .mode = at_below(r, 3),
			    .region = hf[i].region };
	struct timespec ts;
	pthread_t th;

	if (c.mode == 1 && i != F_SRV)
		c.mode = 2;
	LOG("close file %d while a thread %s", i, how[c.mode]);
	t0 = at_now();
	if (pthread_create(&th, NULL, close_thread, &c))
		return;
	at_msleep(at_below(r, 5));
	close(hf[i].fd);
	hf[i].fd = -1;
	atomic_store(&c.stop, true);
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 10;
	if (pthread_timedjoin_np(th, NULL, &ts)) {
		stuck++;
		tap_diag("op %lu: a thread that %s on a closed file did not come back in 10 s",
			 opn, how[c.mode]);
		pthread_detach(th);
	}
	file_lost(i);
	/*
	 * The old mappings keep the old file: some stay to scribble on;
	 * not the server's, whose listener must go with it (nor any kept
	 * mapping, which may be of it).
	 */
	if (i == F_SRV) {
		for (int k = 0; k < NXMAP; k++)
			if (xmaps[k].addr)
				munmap(xmaps[k].addr, xmaps[k].len);
		memset(xmaps, 0, sizeof(xmaps));
	} else if (at_below(r, 2)) {
		keep_xmap(r, hf[i].ring, hf[i].rs.mmap_len);
		keep_xmap(r, hf[i].region_addr, REGION);
		hf[i].ring = hf[i].region_addr = NULL;
	}
	t = at_now();
	at_file_close(&hf[i]);
	ret = file_open(i);
	LOG("reopen file %d: %d, %.3f s (the thread: %.3f s)", i, ret,
	    at_now() - t, t - t0);
}

/* Fill the SQ of a pair's end with SENDs, ring, and SIGKILL ourselves. */
static void die_mid_stream(struct at_rng *r)
{
	for (int e = 0; e < NEP; e++)
		if (eps[e].live)
			sends(r, e, 48);
	raise(SIGKILL);
	_exit(1);
}

static void op_kill(struct at_rng *r)
{
	struct at_rng cr = { at_rand(r) };
	pid_t pid;
	int k;

	LOG("kill seed %#llx", (unsigned long long)cr.s);
	fflush(oplog);
	pid = fork();
	if (pid < 0)
		return;
	if (pid) {
		reap_child(pid, "kill");
		return;
	}
	child = true;
	oplog = NULL;
	/* files of its own, and a pair between them */
	for (k = 0; k < NF; k++)
		at_file_close(&hf[k]);
	memset(eps, 0, sizeof(eps));
	if (file_open(F_CLI) || at_file_open(&hf[F_SRV], 64, REGION, true) ||
	    at_listen(hf[F_SRV].fd, service + 1))
		raise(SIGKILL);
	service++;
	make_pair(&cr);
	die_mid_stream(&cr);
}

/* ---- the racer ------------------------------------------------------------ */

static atomic_bool racing;
static atomic_ulong race_ops, race_hits;

static void *racer(void *p)
{
	struct at_rng *r = p;
	struct txrdma_region_info ri;
	struct txrdma_ep_info info;

	while (atomic_load(&racing)) {
		int fd = __atomic_load_n(&hf[at_below(r, NF)].fd,
					 __ATOMIC_RELAXED);
		uint32_t id = atomic_load(&id_max) + 1 + at_below(r, 4);

		switch (at_below(r, 4)) {
		case 0:
			ioctl(fd, TXRDMA_IOC_RING_ENTER, 0);
			break;
		case 1:
			if (!at_ep_destroy(fd, id)) {
				race_hits++;
				LOG("racer: destroyed endpoint %u", id);
			}
			break;
		case 2:
			at_ep_info(fd, id, &info);
			break;
		default:
			ri = (struct txrdma_region_info){
				.id = (nregs ? regs[nregs - 1] : 1) +
				      1 + at_below(r, 2) };
			ioctl(fd, TXRDMA_IOC_REGION_DESTROY, &ri);
			break;
		}
		if (!(++race_ops % 16))
			at_msleep(1);	/* pace: leave the CPUs to the rest */
	}
	return NULL;
}

/* ---- main ---------------------------------------------------------------- */

static unsigned int pick_kind(struct at_rng *r)
{
	unsigned int x = at_below(r, 10000), k;

	for (k = 0; k < K_NR - 1 && x >= kweight[k]; k++)
		x -= kweight[k];
	return k;
}

static void setup(void)
{
	struct sigevent sev = { .sigev_notify = SIGEV_THREAD_ID,
				.sigev_signo = SIGALRM };
	struct sigaction sa = { 0 };

	sa.sa_handler = on_fault;
	sa.sa_flags = SA_NODEFER;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	sa.sa_handler = on_alarm;
	sa.sa_flags = 0;	/* no SA_RESTART: the ioctl returns EINTR */
	sigaction(SIGALRM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	sev._sigev_un._tid = syscall(SYS_gettid);
	if (timer_create(CLOCK_MONOTONIC, &sev, &block_timer))
		tap_bail("timer_create: %s", strerror(errno));
	ro_page = mmap(NULL, PG, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	edge_page = mmap(NULL, 2 * PG, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	anon = mmap(NULL, 16 * PG, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (ro_page == MAP_FAILED || edge_page == MAP_FAILED ||
	    anon == MAP_FAILED)
		tap_bail("mmap: %s", strerror(errno));
	munmap((char *)edge_page + PG, PG);	/* the page after: a hole */
}

int main(int argc, char **argv)
{
	void (*const op[K_NR])(struct at_rng *) = {
		op_scribble, op_sqes, op_doorbell, op_ioctl, op_mmap,
		op_region, op_pair, op_fork, op_close, op_kill,
	};
	static char logbuf[1 << 16];
	unsigned long ops, live = 0;
	struct at_rng r, race_rng;
	struct timespec ts;
	pthread_t race_th;
	double secs, t0;
	int i, ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 8 && argc != 9) {
		fprintf(stderr, "usage: %s TENANT PEER SERVICE SEED OPS SECONDS LOG [VICTIM_SERVICE]\n",
			argv[0]);
		return 2;
	}
	peer = argv[2];
	service = strtoul(argv[3], NULL, 0);
	r.s = strtoull(argv[4], NULL, 0);
	ops = strtoul(argv[5], NULL, 0);
	secs = atof(argv[6]);
	if (argc == 9)
		victim_service = strtoul(argv[8], NULL, 0);
	tap_diag("hostile: tenant %s peer %s service %u seed %#llx: %lu operations, at most %.0f s; log %s",
		 argv[1], peer, service, (unsigned long long)r.s, ops, secs,
		 argv[7]);
	at_require_tenant(argv[1]);
	setup();
	oplog = fopen(argv[7], "w");
	if (!oplog)
		tap_bail("%s: %s", argv[7], strerror(errno));
	setvbuf(oplog, logbuf, _IOFBF, sizeof(logbuf));
	fprintf(oplog, "# hostile seed %#llx ops %lu\n",
		(unsigned long long)r.s, ops);
	for (i = 0; i < NF; i++) {
		ret = file_open(i);
		if (ret)
			tap_bail("file %d (rings, region%s): %s", i,
				 i == F_SRV ? ", listen" : "", strerror(-ret));
	}
	for (i = 0; i < 4; i++)
		make_pair(&r);
	for (i = 0; i < NEP; i++)
		live += eps[i].live;
	tap_ok(live > 0, "%lu endpoints of pairs to start with", live);

	race_rng.s = at_rand(&r);
	atomic_store(&racing, true);
	if (pthread_create(&race_th, NULL, racer, &race_rng))
		tap_bail("pthread_create: %s", strerror(errno));
	t0 = at_now();
	for (opn = 0; opn < ops && at_now() - t0 < secs; opn++) {
		unsigned int k = pick_kind(&r);
		double t = at_now();

		kcount[k]++;
		op[k](&r);
		ktime[k] += at_now() - t;
		if (!(opn % 1024))
			fflush(oplog);
	}
	atomic_store(&racing, false);
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 10;
	if (pthread_timedjoin_np(race_th, NULL, &ts)) {
		stuck++;
		tap_diag("the racer did not come back from the kernel in 10 s");
	}
	for (i = 0; i < K_NR; i++)
		tap_diag("%-9s %6lu in %6.2f s", kname[i], kcount[i],
			 ktime[i]);
	tap_diag("racer    %6lu calls, %lu endpoints destroyed by id",
		 (unsigned long)race_ops, (unsigned long)race_hits);
	tap_diag("pair exports: %lu tried, %lu made, %lu revoked",
		 x_tried, x_made, x_revoked);
	for (i = 1; i < 140; i++)
		if (x_errs[i])
			tap_diag("pair exports refused: %lu %s", x_errs[i],
				 strerror(i));
	tap_diag("faults caught in our own mappings: %lu; highest endpoint id seen %u",
		 faults, atomic_load(&id_max));
	tap_diag("hostile ops: %lu in %.1f s", opn, at_now() - t0);
	/* the suite counts the operations of all its seeds */
	tap_diag("%lu of %lu operations done in %.1f s (bound %.0f s)", opn,
		 ops, at_now() - t0, secs);
	tap_ok(!stuck, "no child or thread was stuck in the kernel (%lu)",
	       stuck);
	tap_ok(!exports_bad, "EP_EXPORTS: %lu answers, %lu with more entries than its arrays",
	       exports_asked, exports_bad);
	fprintf(oplog, "%lu end: SENDs in flight, then SIGKILL\n", opn);
	fclose(oplog);
	oplog = NULL;
	ret = tap_done();
	if (ret || stuck)
		return 1;
	/* the last act: work in flight, and gone */
	die_mid_stream(&r);
}
