// SPDX-License-Identifier: GPL-2.0-only
/*
 * libtxrdma against the real module: a process of a tenant creates a
 * region through the library, a second context of the same tenant maps
 * it by id and sees the same bytes, the tenant's pinned use follows, and
 * user memory registers; a process outside the tenant is refused.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <txrdma.h>

#include "kselftest_harness.h"
#include "tenant_util.h"

#define CG_DIR "/sys/fs/cgroup/txrdma-lib"

static __u64 pinned_use(struct nlmini *nl)
{
	struct tenant t;

	return get_tenant(nl, "lib-a", &t) ? ~0ULL : t.usage[2];
}

FIXTURE(lib) {
	struct nlmini nl;
};

FIXTURE_SETUP(lib)
{
	ASSERT_EQ(0, nlmini_open(&self->nl));
	mkdir(CG_DIR, 0755);
	mkdir(CG_DIR "/sub", 0755);
	ASSERT_EQ(0, tenant_op(&self->nl, TXRDMA_CMD_TENANT_NEW, "lib-a",
			       "/txrdma-lib", -1, NULL))
		TH_LOG("%s", self->nl.extack);
}

FIXTURE_TEARDOWN(lib)
{
	tenant_del(&self->nl, "lib-a");
	rmdir(CG_DIR "/sub");
	rmdir(CG_DIR);
	nlmini_close(&self->nl);
}

/* child side; returns an exit code naming the first failed step */
static int child(int to_parent, int from_parent)
{
	struct txrdma_ctx *a, *b;
	struct txrdma_region r, m, u;
	char name[32], c;
	void *buf;
	__u32 id;

	if (cg_enter(CG_DIR))
		return 10;
	if (txrdma_open(&a, 0) || txrdma_open(&b, 0))
		return 11;
	if (!(txrdma_features(a) & TXRDMA_FEAT_REGIONS))
		return 12;
	if (txrdma_tenant(a, &id, name) || strcmp(name, "lib-a"))
		return 13;
	if (txrdma_region_create(a, 4 << 20, 0, &r))
		return 14;
	for (size_t i = 0; i < r.size; i++)
		((unsigned char *)r.addr)[i] = (unsigned char)(i * 13);
	if (txrdma_region_open(b, r.id, &m) || m.size != r.size)
		return 15;
	if (memcmp(r.addr, m.addr, r.size))
		return 16;
	buf = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (txrdma_region_register(a, buf, 1 << 20, &u))
		return 17;
	/* parent checks the tenant's use: 5 MiB */
	if (write(to_parent, "1", 1) != 1 || read(from_parent, &c, 1) != 1)
		return 18;
	if (txrdma_region_destroy(a, &u) || txrdma_region_destroy(a, &r))
		return 19;
	/* destroyed but still mapped through b: the bytes are still there */
	if (((unsigned char *)m.addr)[12345] != (unsigned char)(12345 * 13))
		return 20;
	if (txrdma_region_open(b, m.id, &r) != -ENOENT)
		return 21;
	txrdma_region_close(&m);
	/* parent checks the tenant's use: 0 */
	if (write(to_parent, "2", 1) != 1 || read(from_parent, &c, 1) != 1)
		return 22;
	/* a sub-cgroup of the tenant's cgroup still belongs to it */
	if (cg_enter(CG_DIR "/sub") || txrdma_tenant(a, &id, NULL))
		return 23;
	/* outside every tenant */
	if (cg_enter("/sys/fs/cgroup") ||
	    txrdma_region_create(a, 2 << 20, 0, &r) != -EPERM ||
	    txrdma_tenant(a, &id, NULL) != -EPERM)
		return 24;
	txrdma_close(a);
	txrdma_close(b);
	return 0;
}

TEST_F(lib, region_lifecycle_through_the_library)
{
	int up[2], down[2], status;
	char c;
	pid_t pid;

	ASSERT_EQ(0, pipe(up));
	ASSERT_EQ(0, pipe(down));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(child(up[1], down[0]));
	ASSERT_EQ(1, read(up[0], &c, 1));
	EXPECT_EQ(5ULL << 20, pinned_use(&self->nl));
	ASSERT_EQ(1, write(down[1], "a", 1));
	ASSERT_EQ(1, read(up[0], &c, 1));
	EXPECT_EQ(0, pinned_use(&self->nl));
	ASSERT_EQ(1, write(down[1], "b", 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

TEST_HARNESS_MAIN
