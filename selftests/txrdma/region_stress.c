// SPDX-License-Identifier: GPL-2.0-only
/*
 * region_stress: races between the paths that create, map, fault,
 * destroy and revoke regions, for a bounded time (STRESS_SECONDS,
 * default 20).  Workers in a tenant create/map/touch/destroy regions
 * and fork; one thread force-deletes and re-adds the tenant; one
 * deletes and re-adds the RDMA device (when TXRDMA_STRESS_DEV names the
 * rxe device and its netdev as "rxe0:eth0").  Workers may see errors
 * (EPERM while the tenant is away, SIGBUS after a revocation): those
 * are outcomes, not failures.  What is asserted: the kernel log stays
 * clean (checked by the harness), and afterwards the tenant's pinned
 * use, the txrdma_region slab count and the module refcount are back
 * to where they started.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
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

#include "kselftest_harness.h"
#include "slab_util.h"
#include "tenant_util.h"

#define CG "/sys/fs/cgroup/txrdma-st"
#define HUGE TXRDMA_REGION_HUGE_SIZE

static volatile int stop;
static sigjmp_buf bus_env;

static void on_sigbus(int sig)
{
	(void)sig;
	siglongjmp(bus_env, 1);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static long refcnt(void)
{
	long v = -1;
	FILE *f = fopen("/sys/module/txrdma/refcnt", "r");

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/* one worker process: loops until killed or the deadline */
static unsigned int seed;	/* per worker process; global: survives longjmp */

/*
 * Mappings a worker keeps (each pins its region's memory): a ring of 8,
 * the oldest unmapped when it is full, so memory stays bounded.
 */
#define KEEP 8
static struct { void *p; size_t len; } kept[KEEP];
static unsigned int kept_next;

static void keep(void *p, size_t len)
{
	if (kept[kept_next].p)
		munmap(kept[kept_next].p, kept[kept_next].len);
	kept[kept_next].p = p;
	kept[kept_next].len = len;
	kept_next = (kept_next + 1) % KEEP;
}

static void worker(double deadline, unsigned int first)
{
	int fd = open("/dev/txrdma", O_RDWR);
	unsigned long made = 0, tries = 0, bus = 0;
	struct sigaction sa = { .sa_handler = on_sigbus };

	if (fd < 0)
		_exit(1);
	seed = first;
	sigaction(SIGBUS, &sa, NULL);
	while (now_s() < deadline) {
		struct txrdma_region_create rc = { .size = HUGE };
		struct txrdma_region_info ri = { 0 };
		unsigned char *volatile p = MAP_FAILED;

		if (sigsetjmp(bus_env, 1)) {
			/* the tenant was deleted by force under us */
			bus++;
			if (p != MAP_FAILED)
				munmap(p, rc.size);
			continue;
		}

		seed = seed * 1103515245 + 12345;
		tries++;
		if ((seed >> 16) % 4 == 0)
			rc.flags = TXRDMA_REGION_F_SMALL_PAGES, rc.size = 4096 * 3;
		if (ioctl(fd, TXRDMA_IOC_REGION_CREATE, &rc))
			continue;
		made++;
		p = mmap(NULL, rc.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			 rc.mmap_offset);
		if (p != MAP_FAILED) {
			pid_t c;

			/* a revocation here ends this process with SIGBUS */
			p[0] = 1;
			p[rc.size - 1] = 2;
			if ((seed >> 20) % 8 == 0) {
				c = fork();
				if (c == 0) {
					signal(SIGBUS, SIG_DFL);
					p[100] = 3;	/* child maps it too */
					_exit(0);
				}
				if (c > 0)
					waitpid(c, NULL, 0);
			}
		}
		ri.id = rc.id;
		if ((seed >> 18) % 2)
			ioctl(fd, TXRDMA_IOC_REGION_DESTROY, &ri);
		if (p != MAP_FAILED) {
			if ((seed >> 19) % 2)
				munmap(p, rc.size);
			else
				keep(p, rc.size);
		}
		if ((seed >> 21) % 16 == 0) {
			close(fd);	/* destroys what is left */
			fd = open("/dev/txrdma", O_RDWR);
			if (fd < 0)
				_exit(1);
		}
	}
	printf("# worker %d: %lu of %lu creates succeeded, %lu SIGBUS\n",
	       getpid(), made, tries, bus);
	fflush(stdout);
	_exit(made ? 0 : 2);
}

static void *tenant_churn(void *arg)
{
	struct nlmini nl;

	(void)arg;
	if (nlmini_open(&nl))
		return NULL;
	while (!stop) {
		tenant_del_force(&nl, "st");
		tenant_op(&nl, TXRDMA_CMD_TENANT_NEW, "st", "/txrdma-st", -1,
			  NULL);
		usleep(20000);	/* pacing, not synchronisation */
	}
	nlmini_close(&nl);
	return NULL;
}

static void *dev_churn(void *arg)
{
	const char *spec = arg;
	char dev[32], ndev[32], cmd[160];

	if (!spec || sscanf(spec, "%31[^:]:%31s", dev, ndev) != 2)
		return NULL;
	while (!stop) {
		snprintf(cmd, sizeof(cmd), "rdma link delete %s", dev);
		if (system(cmd))
			break;
		snprintf(cmd, sizeof(cmd),
			 "rdma link add %s type rxe netdev %s", dev, ndev);
		if (system(cmd))
			break;
		usleep(200000);	/* pacing, not synchronisation */
	}
	return NULL;
}

FIXTURE(stress) {
	int unused;
};

FIXTURE_SETUP(stress)
{
}

FIXTURE_TEARDOWN(stress)
{
}

TEST_F_TIMEOUT(stress, races_leave_nothing_behind, 180)
{
	double secs = getenv("STRESS_SECONDS") ?
		      atof(getenv("STRESS_SECONDS")) : 20;
	const char *devspec = getenv("TXRDMA_STRESS_DEV");
	pthread_t tt, dt = 0;
	struct nlmini nl;
	struct tenant t;
	long slab0, ref0;
	pid_t pids[4];
	double deadline;
	int i, status;

	ASSERT_EQ(0, nlmini_open(&nl));
	mkdir(CG, 0755);
	tenant_del_force(&nl, "st");
	slab0 = slab_quiet();
	ref0 = refcnt();
	ASSERT_LE(0, slab0);
	ASSERT_EQ(0, tenant_op(&nl, TXRDMA_CMD_TENANT_NEW, "st", "/txrdma-st",
			       -1, NULL));
	deadline = now_s() + secs;
	for (i = 0; i < 4; i++) {
		pids[i] = fork();
		ASSERT_LE(0, pids[i]);
		if (pids[i] == 0) {
			if (cg_enter(CG))
				_exit(1);
			worker(deadline, 12345 + i);
		}
	}
	ASSERT_EQ(0, pthread_create(&tt, NULL, tenant_churn, NULL));
	if (devspec)
		ASSERT_EQ(0, pthread_create(&dt, NULL, dev_churn,
					    (void *)devspec));
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(pids[i], waitpid(pids[i], &status, 0));
		/* SIGBUS after a revocation is an expected outcome */
		EXPECT_TRUE((WIFEXITED(status) && !WEXITSTATUS(status)) ||
			    (WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS))
			TH_LOG("worker %d: status %#x", i, status);
	}
	stop = 1;
	pthread_join(tt, NULL);
	if (dt)
		pthread_join(dt, NULL);

	/* the tenant (re-added last or not) holds nothing */
	if (!get_tenant(&nl, "st", &t))
		EXPECT_EQ(0, t.usage[TENANT_LIM(TXRDMA_A_LIMIT_PINNED_BYTES)]);
	tenant_del_force(&nl, "st");
	EXPECT_EQ(slab0, slab_settle(slab0));
	EXPECT_EQ(ref0, refcnt());
	rmdir(CG);
	nlmini_close(&nl);
}

TEST_HARNESS_MAIN
