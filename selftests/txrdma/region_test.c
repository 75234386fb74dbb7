// SPDX-License-Identifier: GPL-2.0-only
/*
 * Regions (TXRDMA_IOC_REGION_*) and their mmap: the tenant's pinned
 * limit is exact and counted from creation until the memory is freed;
 * tenants cannot see, map or destroy each other's regions; bad input is
 * refused with its errno and changes nothing; mappings share bytes and
 * new memory is zero; memory outlives destroy/close while mapped and
 * nothing leaks (tenant usage, the txrdma_region slab, the module
 * refcount) after destroy, close, kill -9 or 1,000 cycles; a tenant
 * that holds regions is deleted only by force, which revokes them
 * (SIGBUS on the next access).
 *
 * Every test runs with two tenants, rt-a on /txrdma-rt/a and rt-b on
 * /txrdma-rt/b, each with a pinned limit of 8 MiB; /txrdma-rt/none has
 * no tenant.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
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

#include "kselftest_harness.h"
#include "nlmini.h"
#include "slab_util.h"
#include "tenant_util.h"

#define DEV		"/dev/txrdma"
#define CG_ROOT		"/sys/fs/cgroup"
#define CG_BASE		CG_ROOT "/txrdma-rt"
#define CG_A		CG_BASE "/a"
#define CG_B		CG_BASE "/b"
#define CG_NONE		CG_BASE "/none"
#define TA		"rt-a"
#define TB		"rt-b"

#define KiB		(1ULL << 10)
#define MiB		(1ULL << 20)
#define TiB		(1ULL << 40)
#define HUGE		TXRDMA_REGION_HUGE_SIZE
#define PG		4096ULL
#define LIMIT		(8 * MiB)

#define REFCNT		"/sys/module/txrdma/refcnt"

/* ---- region ioctls: 0 or -errno ---------------------------------- */

static int r_create(int fd, uint64_t size, uint32_t flags,
		    struct txrdma_region_create *rc)
{
	memset(rc, 0, sizeof(*rc));
	rc->size = size;
	rc->flags = flags;
	return ioctl(fd, TXRDMA_IOC_REGION_CREATE, rc) ? -errno : 0;
}

static int r_info(int fd, uint32_t id, struct txrdma_region_info *ri)
{
	memset(ri, 0, sizeof(*ri));
	ri->id = id;
	return ioctl(fd, TXRDMA_IOC_REGION_INFO, ri) ? -errno : 0;
}

static int r_destroy(int fd, uint32_t id)
{
	struct txrdma_region_info ri = { .id = id };

	return ioctl(fd, TXRDMA_IOC_REGION_DESTROY, &ri) ? -errno : 0;
}

static int r_user(int fd, const void *addr, uint64_t size, uint32_t *id)
{
	struct txrdma_region_reg_user ru = {
		.addr = (uintptr_t)addr, .size = size,
	};

	if (ioctl(fd, TXRDMA_IOC_REGION_REG_USER, &ru))
		return -errno;
	if (id)
		*id = ru.id;
	return 0;
}

static void *r_map(int fd, uint64_t off, size_t len)
{
	return mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off);
}

/* 0 if the mapping succeeds (it is undone), else -errno. */
static int r_map_err(int fd, uint64_t off, size_t len, int flags)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, flags, fd, off);

	if (p == MAP_FAILED)
		return -errno;
	munmap(p, len);
	return 0;
}

/* ---- what the module reports ------------------------------------- */

/* The tenant's pinned bytes in use (or refusals), or -errno. */
static int64_t t_pinned(struct nlmini *nl, const char *name, bool refused)
{
	struct tenant t;
	int ret = get_tenant(nl, name, &t);

	if (ret)
		return ret;
	return refused ? t.refused[TENANT_LIM(TXRDMA_A_LIMIT_PINNED_BYTES)] :
			 t.usage[TENANT_LIM(TXRDMA_A_LIMIT_PINNED_BYTES)];
}

#define used(name)	t_pinned(&self->nl, name, false)
#define refused(name)	t_pinned(&self->nl, name, true)

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

/* ---- data ---------------------------------------------------------- */

static uint64_t pat(uint64_t seed, size_t i)
{
	return (seed + i) * 0x9e3779b97f4a7c15ULL;
}

static void fill(void *p, size_t len, uint64_t seed)
{
	uint64_t *w = p;

	for (size_t i = 0; i < len / 8; i++)
		w[i] = pat(seed, i);
}

/* index of the first word that differs, or -1 */
static long check(const void *p, size_t len, uint64_t seed)
{
	const uint64_t *w = p;

	for (size_t i = 0; i < len / 8; i++)
		if (w[i] != pat(seed, i))
			return i;
	return -1;
}

static long first_nonzero(const void *p, size_t len)
{
	const uint64_t *w = p;

	for (size_t i = 0; i < len / 8; i++)
		if (w[i])
			return i;
	return -1;
}

/* ---- forked children: no ASSERT (it would run the teardown) ---------- */

#define CHILD_CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "# child %d: %s:%d: %s (errno %d)\n", \
			getpid(), __FILE__, __LINE__, #cond, errno); \
		_exit(1); \
	} \
} while (0)

/* One byte through a pipe: 0, or -1 on EOF/error. */
static int say(int fd, char c)
{
	return write(fd, &c, 1) == 1 ? 0 : -1;
}

static int hear(int fd, char want)
{
	char c;

	return read(fd, &c, 1) == 1 && c == want ? 0 : -1;
}

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
	struct timespec ts = { 0, 10 * 1000 * 1000 };

	/* killed tasks leave their cgroup as they exit: a short wait */
	for (int i = 0; i < 200; i++) {
		if (!rmdir(dir) || errno == ENOENT)
			return;
		nanosleep(&ts, NULL);
	}
}

FIXTURE(region) {
	struct nlmini nl;
	bool nl_open;
	bool skip;
	uint32_t id_a, id_b;
};

FIXTURE_SETUP(region)
{
	uint64_t lim[] = { TXRDMA_A_LIMIT_PINNED_BYTES, LIMIT, 0 };
	struct txrdma_probe p;
	struct tenant t;
	struct stat st;
	int fd;

	ASSERT_EQ(0, stat(CG_ROOT "/cgroup.controllers", &st))
		TH_LOG("cgroup2 is not mounted at " CG_ROOT);
	fd = open(DEV, O_RDWR);
	ASSERT_LE(0, fd) TH_LOG("open " DEV ": %s", strerror(errno));
	memset(&p, 0, sizeof(p));
	ASSERT_EQ(0, ioctl(fd, TXRDMA_IOC_PROBE, &p));
	close(fd);
	if (!(p.features & TXRDMA_FEAT_REGIONS) ||
	    !(p.features & TXRDMA_FEAT_USER_REGIONS)) {
		self->skip = true;
		SKIP(return, "the module has no regions (features %#llx)",
		     (unsigned long long)p.features);
	}
	ASSERT_EQ(0, nlmini_open(&self->nl));
	self->nl_open = true;
	/* leftovers of a run that crashed */
	tenant_del_force(&self->nl, TA);
	tenant_del_force(&self->nl, TB);
	mkdir(CG_BASE, 0755);
	mkdir(CG_A, 0755);
	mkdir(CG_B, 0755);
	mkdir(CG_NONE, 0755);
	ASSERT_EQ(0, tenant_op(&self->nl, TXRDMA_CMD_TENANT_NEW, TA,
			       "/txrdma-rt/a", -1, lim))
		TH_LOG("extack: %s", self->nl.extack);
	ASSERT_EQ(0, tenant_op(&self->nl, TXRDMA_CMD_TENANT_NEW, TB,
			       "/txrdma-rt/b", -1, lim))
		TH_LOG("extack: %s", self->nl.extack);
	ASSERT_EQ(0, get_tenant(&self->nl, TA, &t));
	self->id_a = t.id;
	ASSERT_EQ(LIMIT, t.limits[TENANT_LIM(TXRDMA_A_LIMIT_PINNED_BYTES)]);
	ASSERT_EQ(0, get_tenant(&self->nl, TB, &t));
	self->id_b = t.id;
	ASSERT_EQ(0, used(TA));
	ASSERT_EQ(0, used(TB));
}

FIXTURE_TEARDOWN(region)
{
	static const char *const dirs[] = { CG_A, CG_B, CG_NONE };

	cg_enter(CG_ROOT);
	for (int i = 0; i < 3; i++)
		cg_kill(dirs[i]);
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	if (self->nl_open) {
		tenant_del_force(&self->nl, TA);
		tenant_del_force(&self->nl, TB);
		nlmini_close(&self->nl);
	}
	for (int i = 0; i < 3; i++)
		cg_rmdir(dirs[i]);
	cg_rmdir(CG_BASE);
}

/* Enter tenant @dir's cgroup and open the device there. */
#define OPEN_IN(dir) ({ \
	int __fd; \
	ASSERT_EQ(0, cg_enter(dir)); \
	__fd = open(DEV, O_RDWR); \
	ASSERT_LE(0, __fd); \
	__fd; \
})

#define NEED_REGIONS() do { if (self->skip) return; } while (0)

/* ---- tests ----------------------------------------------------------- */

/*
 * Limit 8 MiB: four 2 MiB regions fit, the fifth is -EDQUOT and counted
 * as refused once; usage is exact all along; a region of exactly the
 * bytes left fits, one page more does not.
 */
TEST_F(region, pinned_limit_exact)
{
	struct txrdma_region_create rc[5], x;
	int64_t ref0;
	int fd;

	NEED_REGIONS();
	fd = OPEN_IN(CG_A);
	ref0 = refused(TA);
	ASSERT_LE(0, ref0);
	for (int i = 0; i < 4; i++) {
		ASSERT_EQ(0, r_create(fd, HUGE, 0, &rc[i])) TH_LOG("region %d", i);
		EXPECT_EQ((int64_t)((i + 1) * HUGE), used(TA));
	}
	EXPECT_EQ(ref0, refused(TA));
	EXPECT_EQ(-EDQUOT, r_create(fd, HUGE, 0, &rc[4]));
	EXPECT_EQ(ref0 + 1, refused(TA));
	EXPECT_EQ((int64_t)LIMIT, used(TA));
	/* one page over is over too, for the small-page path */
	EXPECT_EQ(-EDQUOT, r_create(fd, PG, TXRDMA_REGION_F_SMALL_PAGES, &x));
	EXPECT_EQ(ref0 + 2, refused(TA));
	EXPECT_EQ((int64_t)LIMIT, used(TA));
	/* the other tenant's limit is its own */
	EXPECT_EQ(0, used(TB));

	for (int i = 0; i < 4; i++)
		EXPECT_EQ(0, r_destroy(fd, rc[i].id));
	EXPECT_EQ(0, used(TA));

	/* exactly the remaining bytes: 2 MiB used, 6 MiB left */
	ASSERT_EQ(0, r_create(fd, HUGE, 0, &rc[0]));
	ASSERT_EQ(0, r_create(fd, LIMIT - HUGE, 0, &rc[1]))
		TH_LOG("a region of exactly the remaining bytes must fit");
	EXPECT_EQ((int64_t)LIMIT, used(TA));
	EXPECT_EQ(-EDQUOT, r_create(fd, PG, TXRDMA_REGION_F_SMALL_PAGES, &x));
	EXPECT_EQ(ref0 + 3, refused(TA));
	EXPECT_EQ(0, r_destroy(fd, rc[1].id));
	EXPECT_EQ((int64_t)HUGE, used(TA));

	/* small pages: 6 MiB - 4 KiB then exactly one page */
	ASSERT_EQ(0, r_create(fd, LIMIT - HUGE - PG,
			      TXRDMA_REGION_F_SMALL_PAGES, &rc[1]));
	ASSERT_EQ(0, r_create(fd, PG, TXRDMA_REGION_F_SMALL_PAGES, &rc[2]));
	EXPECT_EQ((int64_t)LIMIT, used(TA));
	EXPECT_EQ(-EDQUOT, r_create(fd, PG, TXRDMA_REGION_F_SMALL_PAGES, &x));
	EXPECT_EQ(ref0 + 4, refused(TA));
	for (int i = 0; i < 3; i++)
		EXPECT_EQ(0, r_destroy(fd, rc[i].id));
	EXPECT_EQ(0, used(TA));
	close(fd);
}

/*
 * A's region: B cannot see, destroy or map it (-EACCES); a process in
 * no tenant gets -EPERM for everything; A's region and data are intact
 * afterwards.  INFO reports what create returned.
 */
TEST_F(region, isolation_between_tenants)
{
	struct txrdma_region_create rc;
	struct txrdma_region_info ri;
	int status, fd;
	uint8_t *p;
	pid_t pid;

	NEED_REGIONS();
	fd = OPEN_IN(CG_A);
	ASSERT_EQ(0, r_create(fd, HUGE, 0, &rc));
	EXPECT_NE(0, rc.id);
	ASSERT_EQ(0, r_info(fd, rc.id, &ri));
	EXPECT_EQ(HUGE, ri.size);
	EXPECT_EQ(rc.mmap_offset, ri.mmap_offset);
	EXPECT_EQ(TXRDMA_REGION_KIND_POOL, ri.kind);
	EXPECT_EQ(self->id_a, ri.tenant_id);
	p = r_map(fd, rc.mmap_offset, HUGE);
	ASSERT_NE(MAP_FAILED, p);
	fill(p, HUGE, 1);

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct txrdma_region_create mine;
		struct txrdma_region_info i2;
		char buf[2 * PG];
		void *aligned = (void *)(((uintptr_t)buf + PG - 1) & ~(PG - 1));
		int fb;

		/* tenant B, through its own open */
		CHILD_CHECK(cg_enter(CG_B) == 0);
		fb = open(DEV, O_RDWR);
		CHILD_CHECK(fb >= 0);
		CHILD_CHECK(r_info(fb, rc.id, &i2) == -EACCES);
		CHILD_CHECK(r_destroy(fb, rc.id) == -EACCES);
		CHILD_CHECK(r_map_err(fb, rc.mmap_offset, HUGE,
				      MAP_SHARED) == -EACCES);
		CHILD_CHECK(r_map_err(fb, rc.mmap_offset, PG,
				      MAP_SHARED) == -EACCES);
		/* B's own region is B's */
		CHILD_CHECK(r_create(fb, HUGE, 0, &mine) == 0);
		CHILD_CHECK(r_info(fb, mine.id, &i2) == 0);
		CHILD_CHECK(i2.tenant_id == self->id_b);

		/* no tenant at all */
		CHILD_CHECK(cg_enter(CG_NONE) == 0);
		CHILD_CHECK(r_create(fb, HUGE, 0, &mine) == -EPERM);
		CHILD_CHECK(r_create(fb, PG, TXRDMA_REGION_F_SMALL_PAGES,
				     &mine) == -EPERM);
		CHILD_CHECK(r_info(fb, rc.id, &i2) == -EPERM);
		CHILD_CHECK(r_destroy(fb, rc.id) == -EPERM);
		CHILD_CHECK(r_user(fb, aligned, PG, NULL) == -EPERM);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("child status %#x", status);

	/* A's region is untouched, B's went with the child's exit */
	ASSERT_EQ(0, r_info(fd, rc.id, &ri));
	EXPECT_EQ(self->id_a, ri.tenant_id);
	EXPECT_EQ(-1, check(p, HUGE, 1));
	EXPECT_EQ((int64_t)HUGE, used(TA));
	EXPECT_EQ(0, used(TB));
	EXPECT_EQ(0, munmap(p, HUGE));
	EXPECT_EQ(0, r_destroy(fd, rc.id));
	EXPECT_EQ(0, used(TA));
	close(fd);
}

/* Each bad request gets its errno and changes no usage or refusal. */
TEST_F(region, bad_input_changes_nothing)
{
	struct txrdma_region_create rc, good;
	struct txrdma_region_info ri;
	struct txrdma_region_reg_user ru;
	uint8_t *buf, *hole, *ro, *ubuf;
	int64_t ref0;
	long slab0;
	int fd;
	static const struct {
		const char *what;
		uint64_t size;
		uint32_t flags;
		int resv;	/* index + 1 of resv[] set to 1, or 0 */
	} bad[] = {
		{ "size 0", 0, 0, 0 },
		{ "size 0, small pages", 0, TXRDMA_REGION_F_SMALL_PAGES, 0 },
		{ "size 4096 without small pages", PG, 0, 0 },
		{ "size 2 MiB + 4096", HUGE + PG, 0, 0 },
		{ "size 1 MiB", MiB, 0, 0 },
		{ "size 4095, small pages", PG - 1,
		  TXRDMA_REGION_F_SMALL_PAGES, 0 },
		{ "size 4097, small pages", PG + 1,
		  TXRDMA_REGION_F_SMALL_PAGES, 0 },
		{ "size 1 TiB + 2 MiB", TiB + HUGE, 0, 0 },
		{ "size 1 TiB + 4096, small pages", TiB + PG,
		  TXRDMA_REGION_F_SMALL_PAGES, 0 },
		{ "size 2^64 - 2 MiB", 0 - HUGE, 0, 0 },
		/* 4 KiB-page regions are capped at 64 GiB (page array) */
		{ "size 64 GiB + 4096, small pages", (64ULL << 30) + PG,
		  TXRDMA_REGION_F_SMALL_PAGES, 0 },
		{ "unknown flag 1 << 1", HUGE, 1U << 1, 0 },
		{ "unknown flag 1 << 31", HUGE, 1U << 31, 0 },
		{ "all flags", HUGE, ~0U, 0 },
		{ "resv[0]", HUGE, 0, 1 },
		{ "resv[1]", HUGE, 0, 2 },
	};

	NEED_REGIONS();
	fd = OPEN_IN(CG_A);
	ref0 = refused(TA);
	slab0 = slab_quiet();
	ASSERT_LE(0, slab0) TH_LOG("no '" SLAB_NAME "' in /proc/slabinfo"
				   " (merged into another cache?)");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&rc, 0, sizeof(rc));
		rc.size = bad[i].size;
		rc.flags = bad[i].flags;
		if (bad[i].resv)
			rc.resv[bad[i].resv - 1] = 1;
		EXPECT_EQ(-1, ioctl(fd, TXRDMA_IOC_REGION_CREATE, &rc))
			TH_LOG("%s: accepted", bad[i].what);
		EXPECT_EQ(EINVAL, errno) TH_LOG("%s", bad[i].what);
		EXPECT_EQ(0, used(TA)) TH_LOG("%s", bad[i].what);
		EXPECT_EQ(ref0, refused(TA)) TH_LOG("%s", bad[i].what);
	}
	EXPECT_EQ(-1, ioctl(fd, TXRDMA_IOC_REGION_CREATE, NULL));
	EXPECT_EQ(EFAULT, errno);

	/*
	 * A request that can be read but not answered (read-only memory):
	 * -EFAULT, and the region made meanwhile is undone.
	 */
	ro = mmap(NULL, PG, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	ubuf = mmap(NULL, 4 * PG, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ubuf);
	memset(ubuf, 1, 4 * PG);
	memset(ro, 0, PG);
	((struct txrdma_region_create *)ro)->size = HUGE;
	((struct txrdma_region_reg_user *)(ro + 1024))->addr = (uintptr_t)ubuf;
	((struct txrdma_region_reg_user *)(ro + 1024))->size = 4 * PG;
	ASSERT_EQ(0, mprotect(ro, PG, PROT_READ));
	EXPECT_EQ(-1, ioctl(fd, TXRDMA_IOC_REGION_CREATE, ro));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(fd, TXRDMA_IOC_REGION_REG_USER, ro + 1024));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(0, used(TA)) TH_LOG("a region whose id was lost stayed");
	EXPECT_EQ(slab0, slab_settle(slab0));
	munmap(ubuf, 4 * PG);
	munmap(ro, PG);

	/* one good region to aim the rest at */
	ASSERT_EQ(0, r_create(fd, HUGE, 0, &good));
	EXPECT_EQ((int64_t)HUGE, used(TA));

	/* info/destroy: unknown ids, flags, reserved fields */
	EXPECT_EQ(-ENOENT, r_info(fd, good.id + 1000, &ri));
	EXPECT_EQ(-ENOENT, r_info(fd, 0, &ri));
	EXPECT_EQ(-ENOENT, r_info(fd, ~0U, &ri));
	EXPECT_EQ(-ENOENT, r_destroy(fd, good.id + 1000));
	EXPECT_EQ(-ENOENT, r_destroy(fd, 0));
	memset(&ri, 0, sizeof(ri));
	ri.id = good.id;
	ri.flags = 1;
	EXPECT_EQ(-1, ioctl(fd, TXRDMA_IOC_REGION_INFO, &ri));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ioctl(fd, TXRDMA_IOC_REGION_DESTROY, &ri));
	EXPECT_EQ(EINVAL, errno);
	memset(&ri, 0, sizeof(ri));
	ri.id = good.id;
	ri.resv[1] = 1;
	EXPECT_EQ(-1, ioctl(fd, TXRDMA_IOC_REGION_INFO, &ri));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ioctl(fd, TXRDMA_IOC_REGION_DESTROY, &ri));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, r_info(fd, good.id, &ri)) TH_LOG("a refused destroy destroyed");

	/*
	 * mmap: offset 0 is the data path rings (none set up on this fd),
	 * below the first region nothing, then beyond a region, too long,
	 * private
	 */
	EXPECT_EQ(-ENXIO, r_map_err(fd, 0, PG, MAP_SHARED));
	EXPECT_EQ(-EINVAL, r_map_err(fd, PG, PG, MAP_SHARED));
	EXPECT_EQ(-EINVAL, r_map_err(fd, good.mmap_offset + HUGE, PG,
				     MAP_SHARED));
	EXPECT_EQ(-EINVAL, r_map_err(fd, good.mmap_offset + 2 * HUGE, PG,
				     MAP_SHARED));
	EXPECT_EQ(-EINVAL, r_map_err(fd, good.mmap_offset, HUGE + PG,
				     MAP_SHARED));
	EXPECT_EQ(-EINVAL, r_map_err(fd, good.mmap_offset + PG, HUGE,
				     MAP_SHARED));
	EXPECT_EQ(-EINVAL, r_map_err(fd, good.mmap_offset, HUGE,
				     MAP_PRIVATE));
	EXPECT_EQ(-EINVAL, r_map_err(fd, good.mmap_offset, PG, MAP_PRIVATE));
	/* the last page alone is fine */
	EXPECT_EQ(0, r_map_err(fd, good.mmap_offset + HUGE - PG, PG,
			       MAP_SHARED));
	EXPECT_EQ((int64_t)HUGE, used(TA));

	/* reg_user: unaligned, size 0, unmapped, flags, reserved */
	buf = mmap(NULL, 4 * PG, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, buf);
	memset(buf, 1, 4 * PG);
	hole = mmap(NULL, 4 * PG, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		    -1, 0);
	ASSERT_NE(MAP_FAILED, hole);
	ASSERT_EQ(0, munmap(hole, 4 * PG));
	EXPECT_EQ(-EINVAL, r_user(fd, buf + 1, PG, NULL));
	EXPECT_EQ(-EINVAL, r_user(fd, buf, PG + 1, NULL));
	EXPECT_EQ(-EINVAL, r_user(fd, buf, 100, NULL));
	EXPECT_EQ(-EINVAL, r_user(fd, buf, 0, NULL));
	EXPECT_EQ(-EINVAL, r_user(fd, NULL, 0, NULL));
	EXPECT_EQ(-EFAULT, r_user(fd, hole, 4 * PG, NULL));
	/* user regions are capped at 64 GiB too */
	EXPECT_EQ(-EINVAL, r_user(fd, buf, (64ULL << 30) + PG, NULL));
	/*
	 * File-backed page cache cannot be pinned long-term (the guest's
	 * writable files live on tmpfs, which is shmem: map a binary of
	 * the read-only host root instead, privately)
	 */
	{
		int ffd = open("/proc/self/exe", O_RDONLY);
		void *fm;

		ASSERT_LE(0, ffd);
		fm = mmap(NULL, 4 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE,
			  ffd, 0);
		ASSERT_NE(MAP_FAILED, fm);
		EXPECT_EQ(-EOPNOTSUPP, r_user(fd, fm, 4 * PG, NULL));
		munmap(fm, 4 * PG);
		close(ffd);
	}
	/* shmem (memfd) can */
	{
		int mfd = memfd_create("txrdma-rt", 0);
		int64_t u0 = used(TA);
		uint32_t mid;
		void *mm;

		ASSERT_LE(0, mfd);
		ASSERT_EQ(0, ftruncate(mfd, 4 * PG));
		mm = mmap(NULL, 4 * PG, PROT_READ | PROT_WRITE, MAP_SHARED,
			  mfd, 0);
		ASSERT_NE(MAP_FAILED, mm);
		EXPECT_EQ(0, r_user(fd, mm, 4 * PG, &mid));
		EXPECT_EQ(u0 + 4 * PG, used(TA));
		EXPECT_EQ(0, r_destroy(fd, mid));
		EXPECT_EQ(u0, used(TA));
		munmap(mm, 4 * PG);
		close(mfd);
	}
	/* partly mapped: the pages pinned before the hole are let go */
	EXPECT_EQ(0, munmap(buf + 2 * PG, 2 * PG));
	EXPECT_EQ(-EFAULT, r_user(fd, buf, 4 * PG, NULL));
	memset(&ru, 0, sizeof(ru));
	ru.addr = (uintptr_t)buf;
	ru.size = PG;
	ru.flags = 1;
	EXPECT_EQ(-1, ioctl(fd, TXRDMA_IOC_REGION_REG_USER, &ru));
	EXPECT_EQ(EINVAL, errno);
	ru.flags = 0;
	ru.resv[0] = 1;
	EXPECT_EQ(-1, ioctl(fd, TXRDMA_IOC_REGION_REG_USER, &ru));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ((int64_t)HUGE, used(TA));
	EXPECT_EQ(ref0, refused(TA));

	/* double destroy; the id is gone for info and mmap too */
	EXPECT_EQ(0, r_destroy(fd, good.id));
	EXPECT_EQ(-ENOENT, r_destroy(fd, good.id));
	EXPECT_EQ(-ENOENT, r_info(fd, good.id, &ri));
	EXPECT_EQ(-ENOENT, r_map_err(fd, good.mmap_offset, HUGE, MAP_SHARED));
	EXPECT_EQ(0, used(TA));
	EXPECT_EQ(ref0, refused(TA));
	EXPECT_EQ(slab0, slab_settle(slab0)) TH_LOG("refused requests leaked");
	munmap(buf, 2 * PG);
	close(fd);
}

/*
 * Bytes written through one mapping are read through another (another
 * open file, a partial mapping); new memory is zero, also when it is
 * memory that a destroyed region used; 3 small pages work.
 */
TEST_F(region, data_shared_and_zeroed)
{
	struct txrdma_region_create rc, sm;
	struct txrdma_region_info ri;
	uint8_t *m1, *m2, *m3, *s1, *s2;
	const size_t size = 2 * HUGE;
	int fd, fd2;

	NEED_REGIONS();
	fd = OPEN_IN(CG_A);
	fd2 = open(DEV, O_RDWR);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, r_create(fd, size, 0, &rc));
	m1 = r_map(fd, rc.mmap_offset, size);
	ASSERT_NE(MAP_FAILED, m1);
	EXPECT_EQ(-1, first_nonzero(m1, size));
	fill(m1, size, 7);

	/* another file of the same tenant maps the same bytes */
	m2 = r_map(fd2, rc.mmap_offset, size);
	ASSERT_NE(MAP_FAILED, m2);
	EXPECT_EQ(-1, check(m2, size, 7));

	/* a part across the 2 MiB boundary, at its offset */
	m3 = r_map(fd2, rc.mmap_offset + HUGE - PG, 2 * PG);
	ASSERT_NE(MAP_FAILED, m3);
	EXPECT_EQ(0, memcmp(m3, m1 + HUGE - PG, 2 * PG));
	memset(m3 + PG - 8, 0xab, 16);
	EXPECT_EQ(0xab, m1[HUGE - 8]);
	EXPECT_EQ(0xab, m2[HUGE + 7]);
	EXPECT_EQ(0, munmap(m3, 2 * PG));
	EXPECT_EQ(0, munmap(m2, size));
	EXPECT_EQ(0, munmap(m1, size));
	EXPECT_EQ(0, r_destroy(fd, rc.id));
	EXPECT_EQ(0, used(TA));

	/* new regions are zero, even on the memory just freed: fill all */
	for (int round = 0; round < 2; round++) {
		struct txrdma_region_create r[4];

		for (int i = 0; i < 4; i++) {
			ASSERT_EQ(0, r_create(fd, HUGE, 0, &r[i]));
			m1 = r_map(fd, r[i].mmap_offset, HUGE);
			ASSERT_NE(MAP_FAILED, m1);
			EXPECT_EQ(-1, first_nonzero(m1, HUGE))
				TH_LOG("round %d region %d", round, i);
			fill(m1, HUGE, 100 + i);
			EXPECT_EQ(0, munmap(m1, HUGE));
		}
		for (int i = 0; i < 4; i++)
			EXPECT_EQ(0, r_destroy(fd, r[i].id));
		EXPECT_EQ(0, used(TA));
	}

	/* three small pages */
	ASSERT_EQ(0, r_create(fd, 3 * PG, TXRDMA_REGION_F_SMALL_PAGES, &sm));
	EXPECT_EQ((int64_t)(3 * PG), used(TA));
	ASSERT_EQ(0, r_info(fd, sm.id, &ri));
	EXPECT_EQ(3 * PG, ri.size);
	EXPECT_EQ(sm.mmap_offset, ri.mmap_offset);
	EXPECT_EQ(TXRDMA_REGION_KIND_POOL, ri.kind);
	EXPECT_EQ(-EINVAL, r_map_err(fd, sm.mmap_offset, 4 * PG, MAP_SHARED));
	EXPECT_EQ(-EINVAL, r_map_err(fd, sm.mmap_offset + 3 * PG, PG,
				     MAP_SHARED));
	s1 = r_map(fd, sm.mmap_offset, 3 * PG);
	ASSERT_NE(MAP_FAILED, s1);
	EXPECT_EQ(-1, first_nonzero(s1, 3 * PG));
	fill(s1, 3 * PG, 33);
	s2 = r_map(fd2, sm.mmap_offset + PG, 2 * PG);
	ASSERT_NE(MAP_FAILED, s2);
	EXPECT_EQ(0, memcmp(s2, s1 + PG, 2 * PG));
	EXPECT_EQ(0, munmap(s2, 2 * PG));
	EXPECT_EQ(0, munmap(s1, 3 * PG));
	EXPECT_EQ(0, r_destroy(fd, sm.id));
	EXPECT_EQ(0, used(TA));
	close(fd2);
	close(fd);
}

/*
 * Destroy or close with a live mapping: the id is gone, the bytes stay
 * readable and charged until the last munmap.
 */
TEST_F(region, lifetime_follows_last_mapping)
{
	struct txrdma_region_create rc;
	struct txrdma_region_info ri;
	uint8_t *p, *q;
	int fd, fd2;

	NEED_REGIONS();
	fd = OPEN_IN(CG_A);

	/* destroy while mapped (twice) */
	ASSERT_EQ(0, r_create(fd, HUGE, 0, &rc));
	p = r_map(fd, rc.mmap_offset, HUGE);
	ASSERT_NE(MAP_FAILED, p);
	q = r_map(fd, rc.mmap_offset + PG, PG);
	ASSERT_NE(MAP_FAILED, q);
	fill(p, HUGE, 5);
	EXPECT_EQ(0, r_destroy(fd, rc.id));
	EXPECT_EQ(-ENOENT, r_info(fd, rc.id, &ri));
	EXPECT_EQ(-ENOENT, r_map_err(fd, rc.mmap_offset, HUGE, MAP_SHARED));
	EXPECT_EQ(-1, check(p, HUGE, 5));
	EXPECT_EQ(0, memcmp(q, p + PG, PG));
	EXPECT_EQ((int64_t)HUGE, used(TA));
	fill(p, HUGE, 6);	/* still writable */
	EXPECT_EQ(0, munmap(p, HUGE));
	EXPECT_EQ((int64_t)HUGE, used(TA)) TH_LOG("freed with a mapping left");
	EXPECT_EQ(-1, check(q, PG, 6 + PG / 8));
	EXPECT_EQ(0, munmap(q, PG));
	EXPECT_EQ(0, used(TA));

	/*
	 * Close the creating file while another file maps the region: the
	 * region is destroyed at once, its memory stays while mapped.
	 */
	fd2 = open(DEV, O_RDWR);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, r_create(fd2, HUGE, 0, &rc));
	q = r_map(fd, rc.mmap_offset, HUGE);
	ASSERT_NE(MAP_FAILED, q);
	fill(q, HUGE, 9);
	EXPECT_EQ(0, close(fd2));
	EXPECT_EQ(-ENOENT, r_info(fd, rc.id, &ri))
		TH_LOG("closing the creating file must destroy its regions");
	EXPECT_EQ(-ENOENT, r_map_err(fd, rc.mmap_offset, HUGE, MAP_SHARED));
	EXPECT_EQ(-1, check(q, HUGE, 9));
	EXPECT_EQ((int64_t)HUGE, used(TA));
	EXPECT_EQ(0, munmap(q, HUGE));
	EXPECT_EQ(0, used(TA));

	/*
	 * A mapping through the creating file keeps that file open (as
	 * any mmap does): the region goes with the last of them, the
	 * memory with the last mapping of any file.
	 */
	fd2 = open(DEV, O_RDWR);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, r_create(fd2, HUGE, 0, &rc));
	p = r_map(fd2, rc.mmap_offset, HUGE);
	ASSERT_NE(MAP_FAILED, p);
	q = r_map(fd, rc.mmap_offset, HUGE);
	ASSERT_NE(MAP_FAILED, q);
	fill(p, HUGE, 10);
	EXPECT_EQ(0, close(fd2));
	EXPECT_EQ(-1, check(p, HUGE, 10));
	EXPECT_EQ(-1, check(q, HUGE, 10));
	EXPECT_EQ((int64_t)HUGE, used(TA));
	EXPECT_EQ(0, munmap(p, HUGE));	/* the file's last reference */
	EXPECT_EQ(-ENOENT, r_info(fd, rc.id, &ri));
	EXPECT_EQ(-1, check(q, HUGE, 10));
	EXPECT_EQ((int64_t)HUGE, used(TA));
	EXPECT_EQ(0, munmap(q, HUGE));
	EXPECT_EQ(0, used(TA));

	/* close with no mapping: freed at once */
	fd2 = open(DEV, O_RDWR);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, r_create(fd2, 2 * HUGE, 0, &rc));
	EXPECT_EQ((int64_t)(2 * HUGE), used(TA));
	EXPECT_EQ(0, close(fd2));
	EXPECT_EQ(0, used(TA));
	close(fd);
}

/*
 * kill -9 of a process with regions of every kind, two open files and
 * mappings (one of a destroyed region): usage and the slab are back to
 * where they were once it is reaped.
 */
TEST_F(region, kill9_releases_everything)
{
	const int64_t expect = 2 * HUGE + 3 * PG + 16 * PG;
	int c2p[2], status;
	long slab0, slab;
	pid_t pid;

	NEED_REGIONS();
	slab0 = slab_quiet();
	ASSERT_LE(0, slab0) TH_LOG("no '" SLAB_NAME "' in /proc/slabinfo"
				   " (merged into another cache?)");
	ASSERT_EQ(0, pipe(c2p));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct txrdma_region_create r1, r2, r3;
		uint8_t *p1, *p1b, *p2, *p3, *u;
		int fd, fd2;

		close(c2p[0]);
		CHILD_CHECK(cg_enter(CG_A) == 0);
		fd = open(DEV, O_RDWR);
		fd2 = open(DEV, O_RDWR);
		CHILD_CHECK(fd >= 0 && fd2 >= 0);
		CHILD_CHECK(r_create(fd, HUGE, 0, &r1) == 0);
		CHILD_CHECK(r_create(fd2, 3 * PG, TXRDMA_REGION_F_SMALL_PAGES,
				     &r2) == 0);
		CHILD_CHECK(r_create(fd2, HUGE, 0, &r3) == 0);
		p1 = r_map(fd, r1.mmap_offset, HUGE);
		p1b = r_map(fd2, r1.mmap_offset, HUGE);
		p2 = r_map(fd, r2.mmap_offset, 3 * PG);
		p3 = r_map(fd2, r3.mmap_offset, HUGE);
		CHILD_CHECK(p1 != MAP_FAILED && p1b != MAP_FAILED &&
			    p2 != MAP_FAILED && p3 != MAP_FAILED);
		fill(p1, HUGE, 1);
		fill(p2, 3 * PG, 2);
		fill(p3, HUGE, 3);
		CHILD_CHECK(r_destroy(fd2, r3.id) == 0);	/* still mapped */
		u = mmap(NULL, 16 * PG, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		CHILD_CHECK(u != MAP_FAILED);
		memset(u, 1, 16 * PG);
		CHILD_CHECK(r_user(fd, u, 16 * PG, NULL) == 0);
		CHILD_CHECK(say(c2p[1], 'r') == 0);
		for (;;)
			pause();
	}
	close(c2p[1]);
	ASSERT_EQ(0, hear(c2p[0], 'r')) TH_LOG("the child failed to set up");
	close(c2p[0]);
	EXPECT_EQ(expect, used(TA));
	slab = slab_active();
	/* one object per region: pool, small, destroyed-but-mapped, user */
	EXPECT_EQ(slab0 + 4, slab);
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	EXPECT_EQ(0, used(TA)) TH_LOG("pinned usage after kill -9");
	EXPECT_EQ(slab0, slab_settle(slab0));
}

/*
 * 1,000 create/mmap/write/munmap/destroy cycles (every tenth 2 MiB,
 * the rest one small page): usage, the slab and the module refcount are
 * where they started.
 */
TEST_F_TIMEOUT(region, cycles_leave_nothing_behind, 180)
{
	long slab0, ref0, slab1, ref1;
	int fd, done = 0, bad = 0;

	NEED_REGIONS();
	fd = OPEN_IN(CG_A);
	slab0 = slab_quiet();
	ASSERT_LE(0, slab0) TH_LOG("no '" SLAB_NAME "' in /proc/slabinfo"
				   " (merged into another cache?)");
	ref0 = module_refcnt();
	ASSERT_LT(0, ref0) TH_LOG("%s", REFCNT);
	for (int i = 0; i < 1000; i++) {
		struct txrdma_region_create rc;
		uint64_t size = i % 10 ? PG : HUGE;
		uint32_t flags = i % 10 ? TXRDMA_REGION_F_SMALL_PAGES : 0;
		uint64_t *p;
		int ret;

		ret = r_create(fd, size, flags, &rc);
		if (ret) {
			TH_LOG("cycle %d: create: %d", i, ret);
			break;
		}
		p = r_map(fd, rc.mmap_offset, size);
		if (p == MAP_FAILED) {
			TH_LOG("cycle %d: mmap: %d", i, errno);
			r_destroy(fd, rc.id);
			break;
		}
		if (p[0] || p[size / 8 - 1])
			bad++;
		p[0] = i;
		p[size / 8 - 1] = ~(uint64_t)i;
		if (munmap(p, size) || r_destroy(fd, rc.id)) {
			TH_LOG("cycle %d: munmap/destroy: %d", i, errno);
			break;
		}
		done++;
	}
	EXPECT_EQ(1000, done);
	EXPECT_EQ(0, bad) TH_LOG("regions that were not zero");
	EXPECT_EQ(0, used(TA));
	slab1 = slab_settle(slab0);
	ref1 = module_refcnt();
	EXPECT_EQ(slab0, slab1);
	EXPECT_EQ(ref0, ref1);
	close(fd);
	EXPECT_EQ(ref0 - 1, module_refcnt()) TH_LOG("closing our file");
}

/*
 * User memory: registered, reported as KIND_USER with no mmap offset,
 * charged exactly, limited like pool regions, released on destroy and
 * on close; the memory stays the caller's.
 */
TEST_F(region, reg_user_roundtrip_and_limit)
{
	struct txrdma_region_create pool;
	struct txrdma_region_info ri;
	uint32_t id = 0, id2 = 0, id3 = 0;
	uint8_t *buf;
	int64_t ref0;
	long slab0;
	int fd, fd2;

	NEED_REGIONS();
	fd = OPEN_IN(CG_A);
	ref0 = refused(TA);
	slab0 = slab_quiet();
	ASSERT_LE(0, slab0) TH_LOG("no '" SLAB_NAME "' in /proc/slabinfo"
				   " (merged into another cache?)");
	/* one MiB more than the limit, so that every range below is mapped */
	buf = mmap(NULL, LIMIT + MiB, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, buf);
	fill(buf, LIMIT + MiB, 11);

	ASSERT_EQ(0, r_user(fd, buf, MiB, &id));
	EXPECT_NE(0, id);
	ASSERT_EQ(0, r_info(fd, id, &ri));
	EXPECT_EQ(TXRDMA_REGION_KIND_USER, ri.kind);
	EXPECT_EQ(MiB, ri.size);
	EXPECT_EQ(0, ri.mmap_offset);
	EXPECT_EQ(self->id_a, ri.tenant_id);
	EXPECT_EQ((int64_t)MiB, used(TA));

	/* over the limit: 1 MiB used, 7 MiB + 1 page is too much */
	EXPECT_EQ(-EDQUOT, r_user(fd, buf + MiB, LIMIT - MiB + PG, NULL));
	EXPECT_EQ(ref0 + 1, refused(TA));
	EXPECT_EQ((int64_t)MiB, used(TA));
	/* user and pool regions share the limit */
	ASSERT_EQ(0, r_create(fd, 2 * HUGE, 0, &pool));
	EXPECT_EQ((int64_t)(MiB + 2 * HUGE), used(TA));
	EXPECT_EQ(-EDQUOT, r_user(fd, buf + MiB, LIMIT - MiB - 2 * HUGE + PG,
				  NULL));
	EXPECT_EQ(ref0 + 2, refused(TA));
	/* exactly what is left fits */
	ASSERT_EQ(0, r_user(fd, buf + MiB, LIMIT - MiB - 2 * HUGE, &id2));
	EXPECT_EQ((int64_t)LIMIT, used(TA));
	EXPECT_EQ(-EDQUOT, r_user(fd, buf, PG, NULL));
	EXPECT_EQ(ref0 + 3, refused(TA));

	EXPECT_EQ(0, r_destroy(fd, id2));
	EXPECT_EQ(-ENOENT, r_destroy(fd, id2));
	EXPECT_EQ(0, r_destroy(fd, pool.id));
	EXPECT_EQ(0, r_destroy(fd, id));
	EXPECT_EQ(0, used(TA));
	/* the memory is the caller's, as it was, and still writable */
	EXPECT_EQ(-1, check(buf, LIMIT + MiB, 11));
	EXPECT_EQ(slab0, slab_settle(slab0));
	fill(buf, LIMIT, 12);

	/* the same memory can be registered again; close releases it */
	fd2 = open(DEV, O_RDWR);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, r_user(fd2, buf, LIMIT / 2, &id3));
	ASSERT_EQ(0, r_user(fd2, buf + LIMIT / 2, LIMIT / 2, NULL));
	EXPECT_EQ((int64_t)LIMIT, used(TA));
	EXPECT_EQ(0, r_info(fd, id3, &ri));
	EXPECT_EQ(0, close(fd2));
	EXPECT_EQ(0, used(TA));
	EXPECT_EQ(-ENOENT, r_info(fd, id3, &ri));
	EXPECT_EQ(-1, check(buf, LIMIT, 12));
	EXPECT_EQ(slab0, slab_settle(slab0));
	EXPECT_EQ(0, munmap(buf, LIMIT + MiB));
	close(fd);
}

/*
 * A tenant that holds regions: delete is -EBUSY and changes nothing;
 * with TENANT_FORCE it goes, its regions are revoked: region ioctls of
 * its processes get -EPERM and the child's mapping gets SIGBUS.  The
 * memory is freed once the child is gone.
 */
TEST_F(region, force_delete_revokes)
{
	int p2c[2], c2p[2], status;
	long slab0;
	pid_t pid;
	struct tenant t;

	NEED_REGIONS();
	slab0 = slab_quiet();
	ASSERT_LE(0, slab0) TH_LOG("no '" SLAB_NAME "' in /proc/slabinfo"
				   " (merged into another cache?)");
	ASSERT_EQ(0, pipe(p2c));
	ASSERT_EQ(0, pipe(c2p));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct txrdma_region_create rc, x;
		struct txrdma_region_info ri;
		volatile uint8_t *p;
		int fd;

		close(p2c[1]);
		close(c2p[0]);
		CHILD_CHECK(cg_enter(CG_A) == 0);
		fd = open(DEV, O_RDWR);
		CHILD_CHECK(fd >= 0);
		CHILD_CHECK(r_create(fd, HUGE, 0, &rc) == 0);
		p = r_map(fd, rc.mmap_offset, HUGE);
		CHILD_CHECK(p != MAP_FAILED);
		fill((void *)p, HUGE, 21);
		CHILD_CHECK(say(c2p[1], '1') == 0);

		/* the refused delete changed nothing */
		CHILD_CHECK(hear(p2c[0], '2') == 0);
		CHILD_CHECK(r_info(fd, rc.id, &ri) == 0);
		CHILD_CHECK(check((void *)p, HUGE, 21) == -1);
		CHILD_CHECK(say(c2p[1], '3') == 0);

		/* deleted by force: no tenant, mapping revoked */
		CHILD_CHECK(hear(p2c[0], '4') == 0);
		CHILD_CHECK(r_info(fd, rc.id, &ri) == -EPERM);
		CHILD_CHECK(r_destroy(fd, rc.id) == -EPERM);
		CHILD_CHECK(r_create(fd, HUGE, 0, &x) == -EPERM);
		CHILD_CHECK(r_map_err(fd, rc.mmap_offset, HUGE,
				      MAP_SHARED) < 0);
		/* SIGBUS here is the pass */
		(void)p[0];
		(void)p[HUGE - 1];
		fprintf(stderr, "# child: the revoked mapping still reads\n");
		_exit(2);
	}
	close(p2c[0]);
	close(c2p[1]);
	ASSERT_EQ(0, hear(c2p[0], '1')) TH_LOG("the child failed to set up");
	EXPECT_EQ((int64_t)HUGE, used(TA));

	EXPECT_EQ(-EBUSY, tenant_del(&self->nl, TA));
	EXPECT_NE(0, self->nl.extack[0]) TH_LOG("no message for -EBUSY");
	ASSERT_EQ(0, get_tenant(&self->nl, TA, &t));
	EXPECT_EQ(self->id_a, t.id);
	EXPECT_EQ((int64_t)HUGE, used(TA));
	ASSERT_EQ(0, say(p2c[1], '2'));
	ASSERT_EQ(0, hear(c2p[0], '3')) TH_LOG("the child saw a change");

	ASSERT_EQ(0, tenant_del_force(&self->nl, TA))
		TH_LOG("extack: %s", self->nl.extack);
	EXPECT_EQ(-ENOENT, get_tenant(&self->nl, TA, &t));
	ASSERT_EQ(0, say(p2c[1], '4'));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS)
		TH_LOG("child status %#x (want SIGBUS)", status);
	close(p2c[1]);
	close(c2p[0]);
	/* the other tenant is untouched; the revoked memory is gone */
	EXPECT_EQ(0, get_tenant(&self->nl, TB, &t));
	EXPECT_EQ(slab0, slab_settle(slab0));
}

TEST_HARNESS_MAIN
