// SPDX-License-Identifier: GPL-2.0-only
/*
 * listen_flood: one unprivileged process of a tenant listens on as
 * many services as it can (the "listen_flood" suite of
 * run_vm_tests.py; listen_flood_guest.sh runs it).
 *
 *   listen_flood TENANT CGROUP_DIR MAX SECONDS OPENS
 *
 * Started as root inside tenant TENANT's cgroup (CGROUP_DIR, with the
 * memory controller), it forks an observer (moved to the root cgroup:
 * another process, of no tenant) and drops to uid/gid 65534; then it
 * calls TXRDMA_IOC_EP_LISTEN on services 1, 2, ... until one fails,
 * MAX succeeded or SECONDS passed.  It reports how many succeeded and
 * how the first refusal read, the growth of the kernel's slab
 * (/proc/meminfo Slab), of the cgroup's memory.current and of its
 * memory.stat slab_unreclaimable, the observer's OPENS open()+close()
 * of /dev/txrdma before the flood and while the listeners live (p50,
 * max), and how long closing the flooding file takes.
 *
 * What the module must do (asserted): listeners are bounded per tenant
 * (a refusal -ENOSPC or -EDQUOT well below a million); what they take
 * is charged to the caller's memory cgroup (slab_unreclaimable grows by
 * at least 32 bytes a listener: a listener is at least a kmalloc-64
 * object); another process's open()+close() stays under 5 ms at the
 * median; the flooding file closes in under 1 s.
 *
 * Seen on main: 1.88 M listeners in 16 s, slab +490 MB while
 * memory.current stayed at 724 kB; open()+close() by others 462 ms
 * instead of 0.34 ms; closing the flooding file 11.3 s.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "attack_util.h"

#define NOBODY		65534
#define OPENS_S		30	/* the observer's bound per measurement */
#define STAT_S		5	/* memory.stat flushes every 2 s */
#define CHARGE_MIN	32	/* bytes a listener must be charged */
#define LIMIT_MAX	1000000	/* "well below a million" */

struct opens {
	int n;			/* open()+close() done */
	int err;		/* errno of the first that failed */
	double p50_ms, max_ms;
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The observer: on each byte from @in, @count open()+close(). */
static void observer(int in, int out, int count)
{
	double *t = calloc(count, sizeof(*t));
	char c;

	if (!t)
		_exit(1);
	while (read(in, &c, 1) == 1 && c == 'm') {
		struct opens o = { 0 };
		double end = at_now() + OPENS_S;

		while (o.n < count && at_now() < end) {
			double t0 = at_now();
			int fd = open("/dev/" TXRDMA_DEVICE_NAME,
				      O_RDWR | O_CLOEXEC);

			if (fd < 0) {
				o.err = errno;
				break;
			}
			close(fd);
			t[o.n++] = (at_now() - t0) * 1e3;
		}
		if (o.n) {
			qsort(t, o.n, sizeof(*t), cmp_double);
			o.p50_ms = t[o.n / 2];
			o.max_ms = t[o.n - 1];
		}
		if (write(out, &o, sizeof(o)) != sizeof(o))
			break;
	}
	_exit(0);
}

static struct opens measure(int to, int from)
{
	struct opens o = { .err = EPIPE };

	if (write(to, "m", 1) != 1 || read(from, &o, sizeof(o)) != sizeof(o))
		o.err = EPIPE;
	return o;
}

/* a "NAME value" line of a file (e.g. "Slab:" of /proc/meminfo) */
static long long file_key(const char *path, const char *key)
{
	char line[256];
	size_t kl = strlen(key);
	long long v = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, kl) && line[kl] == ' ') {
			v = strtoll(line + kl, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

static long long file_num(const char *path)
{
	long long v = -1;
	FILE *f = fopen(path, "r");

	if (f) {
		if (fscanf(f, "%lld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

struct mem {
	long long slab;		/* /proc/meminfo Slab, bytes */
	long long current;	/* the cgroup's memory.current */
	long long cg_slab;	/* its memory.stat slab_unreclaimable */
};

static void mem_read(const char *cg, struct mem *m)
{
	char path[512];

	m->slab = file_key("/proc/meminfo", "Slab:") * 1024;
	snprintf(path, sizeof(path), "%s/memory.current", cg);
	m->current = file_num(path);
	snprintf(path, sizeof(path), "%s/memory.stat", cg);
	m->cg_slab = file_key(path, "slab_unreclaimable");
}

/*
 * The cgroup's slab stat is flushed lazily (at the latest every 2 s):
 * poll (bounded) until it reaches @want or STAT_S passed.
 */
static void mem_settle(const char *cg, struct mem *m, long long want)
{
	double end = at_now() + STAT_S;

	for (;;) {
		mem_read(cg, m);
		if (m->cg_slab >= want || at_now() > end)
			return;
		at_msleep(100);
	}
}

static double mb(long long bytes)
{
	return bytes / 1048576.0;
}

int main(int argc, char **argv)
{
	int to_obs[2], from_obs[2], fd, ret = 0, first_err = 0;
	struct opens before, during;
	struct mem m0, m1, m2;
	unsigned long n = 0, max;
	double secs, t0, t_flood, t_close;
	const char *cg;
	char charged[128];
	pid_t obs;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 6) {
		fprintf(stderr, "usage: %s TENANT CGROUP_DIR MAX SECONDS OPENS\n",
			argv[0]);
		return 2;
	}
	cg = argv[2];
	max = strtoul(argv[3], NULL, 0);
	secs = atof(argv[4]);
	at_require_tenant(argv[1]);
	if (getuid() != 0)
		tap_bail("start listen_flood as root: it forks the observer, then drops to uid %d",
			 NOBODY);
	mem_read(cg, &m0);
	if (m0.slab < 0 || m0.current < 0 || m0.cg_slab < 0)
		tap_bail("memory accounting of %s: Slab %lld, memory.current %lld, slab_unreclaimable %lld (memory controller on?)",
			 cg, m0.slab, m0.current, m0.cg_slab);

	if (pipe(to_obs) || pipe(from_obs))
		tap_bail("pipe: %s", strerror(errno));
	obs = fork();
	if (obs < 0)
		tap_bail("fork: %s", strerror(errno));
	if (!obs) {
		int c = open("/sys/fs/cgroup/cgroup.procs", O_WRONLY);

		/* another process: of the root cgroup, no tenant */
		if (c < 0 || dprintf(c, "%d\n", getpid()) < 0)
			_exit(1);
		close(c);
		close(to_obs[1]);
		close(from_obs[0]);
		observer(to_obs[0], from_obs[1], atoi(argv[5]));
	}
	close(to_obs[0]);
	close(from_obs[1]);
	if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
		tap_bail("dropping to uid %d: %s", NOBODY, strerror(errno));

	before = measure(to_obs[1], from_obs[0]);
	tap_diag("observer before the flood: %d open()+close(), p50 %.3f ms, max %.3f ms",
		 before.n, before.p50_ms, before.max_ms);

	fd = open("/dev/" TXRDMA_DEVICE_NAME, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		tap_bail("open /dev/%s as uid %d: %s", TXRDMA_DEVICE_NAME,
			 NOBODY, strerror(errno));
	t0 = at_now();
	while (n < max && at_now() - t0 < secs) {
		ret = at_listen(fd, n + 1);
		if (ret) {
			first_err = -ret;
			break;
		}
		if (!(++n % 250000))
			tap_diag("%lu listeners after %.1f s", n, at_now() - t0);
	}
	t_flood = at_now() - t0;
	mem_settle(cg, &m1, m0.cg_slab + (long long)n * CHARGE_MIN);
	tap_diag("as uid %d in tenant %s: %lu listeners in %.1f s; then %s",
		 NOBODY, argv[1], n, t_flood,
		 first_err ? strerrorname_np(first_err) : "stopped (count or time)");
	tap_diag("slab (/proc/meminfo): %.1f -> %.1f MiB (+%.1f MiB, %.0f bytes a listener)",
		 mb(m0.slab), mb(m1.slab), mb(m1.slab - m0.slab),
		 n ? (double)(m1.slab - m0.slab) / n : 0);
	tap_diag("the cgroup's memory.current: %.1f -> %.1f MiB (+%lld bytes); slab_unreclaimable %.1f -> %.1f MiB (+%lld bytes)",
		 mb(m0.current), mb(m1.current), m1.current - m0.current,
		 mb(m0.cg_slab), mb(m1.cg_slab), m1.cg_slab - m0.cg_slab);

	during = measure(to_obs[1], from_obs[0]);
	tap_diag("observer while the listeners live: %d open()+close() (bound %d s), p50 %.3f ms, max %.3f ms%s%s",
		 during.n, OPENS_S, during.p50_ms, during.max_ms,
		 during.err ? "; failed: " : "",
		 during.err ? strerror(during.err) : "");
	t0 = at_now();
	close(fd);
	t_close = at_now() - t0;
	mem_read(cg, &m2);
	tap_diag("closing the flooding file: %.3f s; slab then %.1f MiB, memory.current %.1f MiB",
		 t_close, mb(m2.slab), mb(m2.current));
	close(to_obs[1]);
	waitpid(obs, NULL, 0);

	tap_ok((first_err == ENOSPC || first_err == EDQUOT) && n < LIMIT_MAX,
	       "listeners are bounded per tenant: refused with ENOSPC or EDQUOT below %d (%lu made, then %s)",
	       LIMIT_MAX, n, first_err ? strerrorname_np(first_err) : "no refusal");
	snprintf(charged, sizeof(charged), "+%lld bytes for %lu listeners",
		 m1.cg_slab - m0.cg_slab, n);
	tap_ok(n && m1.cg_slab - m0.cg_slab >= (long long)n * CHARGE_MIN,
	       "listeners are charged to the caller's memory cgroup: slab_unreclaimable %s (at least %d each)",
	       charged, CHARGE_MIN);
	tap_ok(!during.err && during.n && during.p50_ms < 5,
	       "another process's open()+close() of /dev/txrdma stays under 5 ms at the median (p50 %.3f ms, max %.3f ms, %d done; before: p50 %.3f ms)",
	       during.p50_ms, during.max_ms, during.n, before.p50_ms);
	tap_ok(t_close < 1, "closing the flooding file takes under 1 s (%.3f s)",
	       t_close);
	return tap_done();
}
