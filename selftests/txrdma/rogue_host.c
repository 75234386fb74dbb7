// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the attacked host says about itself, for rogue_peer.c (see
 * rogue_host.h).  Every wait is bounded.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rogue_cm.h"
#include "rogue_host.h"

/* ---- commands ------------------------------------------------------ */

const char *admin(void)
{
	static char path[PATH_MAX];
	char exe[PATH_MAX - 64];
	const char *env = getenv("TXRDMA_ADMIN");
	ssize_t n;

	if (env && *env)
		return env;
	if (path[0])
		return path;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return "txrdma-admin";
	exe[n] = 0;
	*strrchr(exe, '/') = 0;
	snprintf(path, sizeof(path), "%s/../../tools/txrdma-admin/txrdma-admin",
		 exe);
	return path;
}

/* Run a shell command, its output (last newline cut) into @out: status. */
int __attribute__((format(printf, 3, 4)))
run(char *out, size_t len, const char *fmt, ...)
{
	char cmd[2048], scratch[256];
	size_t n = 0, got;
	va_list ap;
	FILE *f;
	int status;

	if (!out) {
		out = scratch;
		len = sizeof(scratch);
	}
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	fflush(NULL);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while ((got = fread(n + 1 < len ? out + n : scratch, 1,
			    n + 1 < len ? len - 1 - n : sizeof(scratch),
			    f)))
		if (n + 1 < len)
			n += got;
	out[n] = 0;
	if (n && out[n - 1] == '\n')
		out[n - 1] = 0;
	status = pclose(f);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void msleep(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

void rnd(void *p, size_t len)
{
	uint8_t *b = p;

	while (len) {
		ssize_t n = getrandom(b, len, 0);

		if (n > 0) {
			b += n;
			len -= n;
		}
	}
}

/* ---- the self peer ------------------------------------------------- */

int peer_snap(struct psnap *p)
{
	char buf[512];

	memset(p, 0, sizeof(*p));
	run(buf, sizeof(buf),
	    "%s -j peer show " PEER " 2>/dev/null | jq -r '.[0] | "
	    "\"\\(.state) \\(.downs) \\(.bfd.auth_fails // -1) "
	    "\\(.pool.min) \\(.pool.max) \\(.pool.ready) \\(.pool.in_use) "
	    "\\(.pool.connecting) \\(.pool.closing) \\(.qps) \\(.pool.takes) "
	    "\\(.pool.misses) \\(.pool.failures // 0) \\(.pool.errors)\"'",
	    admin());
	if (sscanf(buf, "%15s %lld %lld %u %u %u %u %u %u %u %lld %lld %lld %lld",
		   p->state, &p->downs, &p->auth_fails, &p->min, &p->max,
		   &p->ready, &p->in_use, &p->connecting, &p->closing, &p->qps,
		   &p->takes, &p->misses, &p->failures, &p->errors) != 14)
		return -1;
	return 0;
}

const char *psnap_str(const struct psnap *p)
{
	static char bufs[4][320];
	static unsigned int k;
	char *buf = bufs[k++ % 4];

	snprintf(buf, sizeof(bufs[0]),
		 "state %s downs %lld auth_fails %lld pool %u:%u ready %u in_use %u connecting %u closing %u qps %u takes %lld misses %lld failures %lld errors %lld",
		 p->state, p->downs, p->auth_fails, p->min, p->max, p->ready,
		 p->in_use, p->connecting, p->closing, p->qps, p->takes,
		 p->misses, p->failures, p->errors);
	return buf;
}

/*
 * The pool and the QPs are where they were; @takes: and it lent no QP
 * (tests that pair endpoints take QPs from it on purpose).
 */
bool pool_same(const struct psnap *a, const struct psnap *b,
		      bool takes)
{
	return a->min == b->min && a->max == b->max && a->ready == b->ready &&
	       a->in_use == b->in_use && a->connecting == b->connecting &&
	       a->closing == b->closing && a->qps == b->qps &&
	       (!takes || a->takes == b->takes) && a->misses == b->misses &&
	       a->failures == b->failures && a->errors == b->errors;
}

/* Poll (bounded) until the pool and qps are as in @base; last in @p. */
bool pool_settle(const struct psnap *base, bool takes, double secs,
			struct psnap *p)
{
	double end = rg_now() + secs;

	for (;;) {
		if (!peer_snap(p) && pool_same(base, p, takes))
			return true;
		if (rg_now() > end)
			return false;
		msleep(100);
	}
}

/* Up, with the pool's minimum ready (bounded). */
bool peer_wait_up(double secs, struct psnap *p)
{
	double end = rg_now() + secs;

	for (;;) {
		if (!peer_snap(p) && !strcmp(p->state, "up") &&
		    p->ready >= p->min && !p->connecting)
			return true;
		if (rg_now() > end)
			return false;
		msleep(100);
	}
}

/* ---- MRs and QPs as "rdma res" lists them --------------------------- */

/* txrdma's MRs on @ibdev (kernel MRs: comm "txrdma"): 0 or -1 */
int mr_list(const char *ibdev, struct mrlist *l)
{
	static char buf[65536];
	char *line, *save = NULL;

	l->n = 0;
	if (run(buf, sizeof(buf),
		"rdma -j res show mr | jq -r '.[] | select(.ifname == \"%s\" "
		"and .comm == \"txrdma\") | \"\\(.mrn) \\(.rkey) \\(.mrlen)\"'",
		ibdev))
		return -1;
	for (line = strtok_r(buf, "\n", &save); line && l->n < 512;
	     line = strtok_r(NULL, "\n", &save)) {
		struct mr *m = &l->m[l->n];
		unsigned long long len;

		if (sscanf(line, "%u %x %llu", &m->mrn, &m->rkey, &len) == 3) {
			m->len = len;
			l->n++;
		}
	}
	return 0;
}

bool mr_has(const struct mrlist *l, uint32_t rkey)
{
	for (int i = 0; i < l->n; i++)
		if (l->m[i].rkey == rkey)
			return true;
	return false;
}

/* the MRs of @after that @before does not have */
void mr_new(const struct mrlist *before, const struct mrlist *after,
		   struct mrlist *out)
{
	out->n = 0;
	for (int i = 0; i < after->n; i++)
		if (!mr_has(before, after->m[i].rkey))
			out->m[out->n++] = after->m[i];
}

/* Wait (bounded) until none of @gone's rkeys is listed: true if so. */
bool mr_wait_gone(const char *ibdev, const struct mrlist *gone,
			 double secs)
{
	double end = rg_now() + secs;
	struct mrlist l;
	bool any;

	do {
		any = false;
		if (mr_list(ibdev, &l))
			any = true;
		for (int i = 0; i < gone->n && !any; i++)
			any = mr_has(&l, gone->m[i].rkey);
		if (!any)
			return true;
		msleep(100);
	} while (rg_now() < end);
	return false;
}

/* How many of @qpns (local QP numbers) "rdma res show qp" still lists. */
int qps_listed(const char *ibdev, const uint32_t *qpns, int n)
{
	static char buf[65536];
	char *line, *save = NULL;
	int found = 0;

	if (run(buf, sizeof(buf),
		"rdma -j res show qp | jq -r '.[] | select(.ifname == \"%s\") | .lqpn'",
		ibdev))
		return -1;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		uint32_t q = strtoul(line, NULL, 10);

		for (int i = 0; i < n; i++)
			if (qpns[i] && qpns[i] == q)
				found++;
	}
	return found;
}

/* ---- kernel addresses of our regions -------------------------------- */

/*
 * The kernel address of a region's first 2 MiB page (a module-owned
 * region's pages are 2 MiB compound pages, so physically and in the
 * direct map 2 MiB-aligned), given our mapping @p of it: a random
 * marker is written into the page through the mapping and looked for in
 * the RAM segments of /proc/kcore (the guest is root); the bytes under
 * it are put back.  0 if it is not found.  (pagemap cannot say: it
 * shows nothing of a VM_PFNMAP mapping.)
 */
#define MARK_OFF	(HUGE / 2)
#define MARK_LEN	64

uint64_t kernel_addr(void *p)
{
	uint8_t save[MARK_LEN], mark[MARK_LEN], got[MARK_LEN];
	uint8_t *m = (uint8_t *)p + MARK_OFF;
	uint64_t found = 0, va;
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	int fd;

	fd = open("/proc/kcore", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	memcpy(save, m, MARK_LEN);
	rnd(mark, MARK_LEN);
	memcpy(m, mark, MARK_LEN);
	__sync_synchronize();
	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh))
		goto out;
	for (int i = 0; i < eh.e_phnum && !found; i++) {
		if (pread(fd, &ph, sizeof(ph),
			  eh.e_phoff + (off_t)i * eh.e_phentsize) != sizeof(ph))
			break;
		/* RAM (and the kernel image): the segments with a physical
		 * address; vmalloc and the rest have p_paddr -1
		 */
		if (ph.p_type != PT_LOAD || ph.p_paddr == (Elf64_Addr)-1 ||
		    ph.p_memsz > (1ULL << 40))
			continue;
		for (va = (ph.p_vaddr + HUGE - 1) & ~(uint64_t)(HUGE - 1);
		     va + HUGE <= ph.p_vaddr + ph.p_memsz; va += HUGE) {
			if (pread(fd, got, MARK_LEN,
				  ph.p_offset + (va - ph.p_vaddr) + MARK_OFF) !=
			    MARK_LEN)
				continue;
			if (!memcmp(got, mark, MARK_LEN)) {
				found = va;
				break;
			}
		}
	}
out:
	memcpy(m, save, MARK_LEN);
	close(fd);
	return found;
}

/* ---- patterns ------------------------------------------------------ */

static uint8_t pat(uint32_t seed, size_t i)
{
	uint32_t x = (uint32_t)i * 2654435761u ^ seed;

	return x >> 24 ^ x >> 11 ^ i >> 12;
}

void pat_fill(void *p, size_t len, uint32_t seed)
{
	uint8_t *b = p;

	for (size_t i = 0; i < len; i++)
		b[i] = pat(seed, i);
}

/* bytes that differ from the pattern; the first at *first */
size_t pat_diff(const void *p, size_t len, uint32_t seed,
		       size_t *first)
{
	const uint8_t *b = p;
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		if (b[i] != pat(seed, i) && !n++)
			*first = i;
	return n;
}

/* ---- endpoint pairs over the self peer, through libtxrdma ----------- */

static int side_open(struct side *s)
{
	int ret;

	memset(s, 0, sizeof(*s));
	ret = txrdma_open(&s->ctx, 0);
	if (!ret)
		ret = txrdma_rings_setup(s->ctx, 64, 0, &s->sq, &s->cq);
	if (!ret)
		ret = txrdma_region_create(s->ctx, HUGE, 0, &s->ring);
	return ret;
}

static struct txrdma_ep_params side_params(const struct side *s, uint32_t svc)
{
	return (struct txrdma_ep_params){
		.service = svc,
		.rx_region = s->ring.id,
		.rx_units = RX_UNITS,
		.timeout_ms = 10000,
	};
}

static void *accept_fn(void *arg)
{
	struct lpair *p = arg;
	struct txrdma_ep_params prm = side_params(&p->s[1], p->svc);
	double end = rg_now() + 60;

	do
		p->accept_ret = txrdma_ep_accept(p->s[1].ctx, &prm,
						 &p->s[1].ep);
	while (p->accept_ret == -ETIMEDOUT && rg_now() < end);
	return NULL;
}

/* The two sides of a pair: contexts, rings, ring regions. 0 or -errno. */
int lpair_prepare(struct lpair *p, uint32_t svc)
{
	int ret;

	memset(p, 0, sizeof(*p));
	p->svc = svc;
	ret = side_open(&p->s[0]);
	if (!ret)
		ret = side_open(&p->s[1]);
	return ret;
}

/* Pair the two sides over the self peer: 0 or -errno. */
int lpair_connect(struct lpair *p)
{
	struct txrdma_ep_params prm = side_params(&p->s[0], p->svc);
	double end = rg_now() + 60;
	pthread_t t;
	int ret;

	ret = txrdma_ep_listen(p->s[1].ctx, p->svc);
	if (ret)
		return ret;
	ret = pthread_create(&t, NULL, accept_fn, p);
	if (ret)
		return -ret;
	do {
		ret = txrdma_ep_connect(p->s[0].ctx, PEER, &prm, &p->s[0].ep);
		if (ret == -ECONNREFUSED || ret == -EAGAIN || ret == -ETIMEDOUT)
			msleep(50);
	} while ((ret == -ECONNREFUSED || ret == -EAGAIN ||
		  ret == -ETIMEDOUT) && rg_now() < end);
	pthread_join(t, NULL);
	p->s[0].paired = !ret;
	p->s[1].paired = !p->accept_ret;
	return ret ? ret : p->accept_ret;
}

/*
 * EXPORT all of region @id (READ and WRITE; off 0, len 0: to its end)
 * to the pair: 0 or -errno.  @id must hold no receive ring (the callers
 * export a region of its own; the pairs' rings are in their sides'
 * regions): the module refuses an export over a ring with -EADDRINUSE.
 */
int lpair_export(struct lpair *p, uint32_t id)
{
	struct txrdma_ep_export e = {
		.ep = p->s[0].ep.id,
		.region = id,
		.access = TXRDMA_EXPORT_READ | TXRDMA_EXPORT_WRITE,
		.timeout_ms = 10000,
		.off = 0,
		.len = 0,
	};

	return ioctl(txrdma_fd(p->s[0].ctx), TXRDMA_IOC_EP_EXPORT, &e) ?
	       -errno : 0;
}

/* End the pair: both endpoints destroyed (regions and rings stay). */
void lpair_end(struct lpair *p)
{
	for (int i = 0; i < 2; i++)
		if (p->s[i].paired) {
			txrdma_ep_destroy(p->s[i].ctx, p->s[i].ep.id);
			p->s[i].paired = false;
		}
}

void lpair_close(struct lpair *p)
{
	lpair_end(p);
	for (int i = 0; i < 2; i++) {
		if (p->s[i].ring.id)
			txrdma_region_destroy(p->s[i].ctx, &p->s[i].ring);
		if (p->s[i].ctx)
			txrdma_close(p->s[i].ctx);
		p->s[i].ctx = NULL;
	}
}

/* the units of a side's receive ring (what its registration covers) */
uint8_t *ring_units(struct side *s)
{
	return (uint8_t *)s->ring.addr + TXRDMA_RX_HDR_LEN;
}

