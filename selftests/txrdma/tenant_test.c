// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tenants over the "txrdma" netlink family and cgroup membership through
 * TXRDMA_IOC_TENANT_INFO: what is stored is what was asked, bad input is
 * refused with a message and changes nothing, the count limit is exact,
 * and a process belongs to the tenant of its nearest cgroup ancestor.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/txrdma.h>

#include "kselftest_harness.h"
#include "nlmini.h"
#include "tenant_util.h"

#define CG_ROOT "/sys/fs/cgroup"
#define CG_BASE CG_ROOT "/txrdma-kt"

/* TENANT_INFO from a fresh open of /dev/txrdma: id, or -errno */
static int my_tenant(char *name)
{
	struct txrdma_tenant_info ti;
	int fd = open("/dev/txrdma", O_RDWR), ret;

	if (fd < 0)
		return -errno;
	memset(&ti, 0, sizeof(ti));
	ret = ioctl(fd, TXRDMA_IOC_TENANT_INFO, &ti) ? -errno : (int)ti.id;
	if (name)
		strcpy(name, (char *)ti.name);
	close(fd);
	return ret;
}

FIXTURE(tenant) {
	struct nlmini nl;
	int before;
};

FIXTURE_SETUP(tenant)
{
	struct stat st;

	ASSERT_EQ(0, stat(CG_ROOT "/cgroup.controllers", &st))
		TH_LOG("cgroup2 is not mounted at " CG_ROOT);
	ASSERT_EQ(0, nlmini_open(&self->nl));
	mkdir(CG_BASE, 0755);
	mkdir(CG_BASE "/a", 0755);
	mkdir(CG_BASE "/a/sub", 0755);
	mkdir(CG_BASE "/b", 0755);
	self->before = count_tenants(&self->nl);
	ASSERT_LE(0, self->before);
}

FIXTURE_TEARDOWN(tenant)
{
	tenant_del(&self->nl, "kt-a");
	tenant_del(&self->nl, "kt-sub");
	tenant_del(&self->nl, "kt-b");
	EXPECT_EQ(self->before, count_tenants(&self->nl));
	rmdir(CG_BASE "/a/sub");
	rmdir(CG_BASE "/a");
	rmdir(CG_BASE "/b");
	rmdir(CG_BASE);
	nlmini_close(&self->nl);
}

TEST_F(tenant, add_get_roundtrip)
{
	uint64_t lim[] = {
		TXRDMA_A_LIMIT_QPS, 10,
		TXRDMA_A_LIMIT_PINNED_BYTES, 1 << 20,
		TXRDMA_A_LIMIT_BW_RATE, 1000000,
		TXRDMA_A_LIMIT_OPS_RATE, 5000, TXRDMA_A_LIMIT_OPS_BURST, 7,
		0 };
	struct tenant t;

	ASSERT_EQ(0, tenant_op(&self->nl, TXRDMA_CMD_TENANT_NEW, "kt-a",
			       "/txrdma-kt/a", TXRDMA_PRIO_CRITICAL, lim))
		TH_LOG("extack: %s", self->nl.extack);
	ASSERT_EQ(0, get_tenant(&self->nl, "kt-a", &t));
	EXPECT_STREQ("kt-a", t.name);
	EXPECT_STREQ("/txrdma-kt/a", t.cgroup);
	EXPECT_LT(0, t.id);
	EXPECT_EQ(TXRDMA_PRIO_CRITICAL, t.prio);
	EXPECT_EQ(10, t.limits[0]);
	EXPECT_EQ(TXRDMA_UNLIMITED, t.limits[1]);
	EXPECT_EQ(1 << 20, t.limits[2]);
	EXPECT_EQ(1000000, t.limits[3]);
	EXPECT_EQ(100000, t.limits[4]);		/* default: 100 ms of rate */
	EXPECT_EQ(5000, t.limits[5]);
	EXPECT_EQ(7, t.limits[6]);
	for (int i = 0; i < 3; i++)
		EXPECT_EQ(0, t.usage[i]);
	for (int i = 0; i < 5; i++)
		EXPECT_EQ(0, t.refused[i]);
	EXPECT_EQ(self->before + 1, count_tenants(&self->nl));

	/* set changes only what it names */
	{
		uint64_t l2[] = { TXRDMA_A_LIMIT_QPS, 3,
				  TXRDMA_A_LIMIT_BW_RATE, TXRDMA_UNLIMITED, 0 };
		struct tenant u;

		ASSERT_EQ(0, tenant_op(&self->nl, TXRDMA_CMD_TENANT_SET,
				       "kt-a", NULL, TXRDMA_PRIO_BULK, l2));
		EXPECT_EQ(0, self->nl.extack[0]) TH_LOG("%s", self->nl.extack);
		ASSERT_EQ(0, get_tenant(&self->nl, "kt-a", &u));
		EXPECT_EQ(TXRDMA_PRIO_BULK, u.prio);
		EXPECT_EQ(3, u.limits[0]);
		EXPECT_EQ(1 << 20, u.limits[2]);
		EXPECT_EQ(TXRDMA_UNLIMITED, u.limits[3]);
		EXPECT_EQ(TXRDMA_UNLIMITED, u.limits[4]);
		EXPECT_EQ(5000, u.limits[5]);
		EXPECT_EQ(t.id, u.id);
	}
	ASSERT_EQ(0, tenant_del(&self->nl, "kt-a"));
	EXPECT_EQ(-ENOENT, get_tenant(&self->nl, "kt-a", &t));
	EXPECT_NE(NULL, strstr(self->nl.extack, "no such tenant"));
}

/* Each bad request fails with its errno and message and adds nothing. */
TEST_F(tenant, bad_input_changes_nothing)
{
	uint64_t zero_rate[] = { TXRDMA_A_LIMIT_BW_RATE, 0, 0 };
	uint64_t zero_burst[] = { TXRDMA_A_LIMIT_OPS_RATE, 10,
				  TXRDMA_A_LIMIT_OPS_BURST, 0, 0 };
	uint64_t burst_alone[] = { TXRDMA_A_LIMIT_BW_BURST, 4096, 0 };
	char long_name[41];
	struct {
		const char *what, *name, *cgroup;
		int prio;
		const uint64_t *lim;
		int err;
		const char *msg;
	} bad[] = {
		{ "no cgroup", "kt-a", NULL, -1, NULL, -EINVAL, "required" },
		{ "no name", NULL, "/txrdma-kt/a", -1, NULL, -EINVAL, "required" },
		{ "name with space", "kt a", "/txrdma-kt/a", -1, NULL, -EINVAL,
		  "tenant names" },
		{ "name with slash", "kt/a", "/txrdma-kt/a", -1, NULL, -EINVAL,
		  "tenant names" },
		{ "empty name", "", "/txrdma-kt/a", -1, NULL, -EINVAL,
		  "tenant names" },
		{ "name of 40", long_name, "/txrdma-kt/a", -1, NULL, -EINVAL, "" },
		{ "relative cgroup", "kt-a", "txrdma-kt/a", -1, NULL, -EINVAL,
		  "must start with /" },
		{ "missing cgroup", "kt-a", "/txrdma-kt/nope", -1, NULL, -ENOENT,
		  "no such cgroup" },
		{ "prio 3", "kt-a", "/txrdma-kt/a", 3, NULL, -ERANGE, "" },
		{ "rate 0", "kt-a", "/txrdma-kt/a", -1, zero_rate, -EINVAL,
		  "rate or burst of 0" },
		{ "burst 0", "kt-a", "/txrdma-kt/a", -1, zero_burst, -EINVAL,
		  "rate or burst of 0" },
		{ "burst without rate", "kt-a", "/txrdma-kt/a", -1, burst_alone,
		  -EINVAL, "burst needs a rate" },
	};

	memset(long_name, 'x', 40);
	long_name[40] = 0;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(bad[i].err,
			  tenant_op(&self->nl, TXRDMA_CMD_TENANT_NEW, bad[i].name,
				    bad[i].cgroup, bad[i].prio, bad[i].lim))
			TH_LOG("%s", bad[i].what);
		EXPECT_NE(0, self->nl.extack[0]) TH_LOG("%s: no message",
							bad[i].what);
		EXPECT_NE(NULL, strstr(self->nl.extack, bad[i].msg))
			TH_LOG("%s: '%s'", bad[i].what, self->nl.extack);
		EXPECT_EQ(self->before, count_tenants(&self->nl));
	}

	/* duplicates */
	ASSERT_EQ(0, tenant_op(&self->nl, TXRDMA_CMD_TENANT_NEW, "kt-a",
			       "/txrdma-kt/a", -1, NULL));
	EXPECT_EQ(-EEXIST, tenant_op(&self->nl, TXRDMA_CMD_TENANT_NEW, "kt-a",
				     "/txrdma-kt/b", -1, NULL));
	EXPECT_NE(NULL, strstr(self->nl.extack, "of that name exists"));
	EXPECT_EQ(-EEXIST, tenant_op(&self->nl, TXRDMA_CMD_TENANT_NEW, "kt-b",
				     "/txrdma-kt/a", -1, NULL));
	EXPECT_NE(NULL, strstr(self->nl.extack, "another tenant"));
	EXPECT_EQ(self->before + 1, count_tenants(&self->nl));

	/* set: cgroup cannot change, bad values change nothing */
	EXPECT_EQ(-EOPNOTSUPP, tenant_op(&self->nl, TXRDMA_CMD_TENANT_SET,
					 "kt-a", "/txrdma-kt/b", -1, NULL));
	EXPECT_EQ(-EINVAL, tenant_op(&self->nl, TXRDMA_CMD_TENANT_SET, "kt-a",
				     NULL, -1, zero_rate));
	EXPECT_EQ(-ENOENT, tenant_op(&self->nl, TXRDMA_CMD_TENANT_SET, "kt-zz",
				     NULL, 0, NULL));
	{
		struct tenant t;

		ASSERT_EQ(0, get_tenant(&self->nl, "kt-a", &t));
		EXPECT_EQ(TXRDMA_UNLIMITED, t.limits[3]);
		EXPECT_EQ(TXRDMA_PRIO_NORMAL, t.prio);
		EXPECT_STREQ("/txrdma-kt/a", t.cgroup);
	}
	EXPECT_EQ(-ENOENT, tenant_del(&self->nl, "kt-zz"));
	EXPECT_EQ(-EINVAL, tenant_del(&self->nl, NULL));
}

TEST_F(tenant, malformed_limits_nest)
{
	struct nlmini_msg m;
	struct nlattr *nest;
	uint32_t v32 = 5;

	/* a u32 where a u64 belongs */
	nlmini_msg_init(&self->nl, &m, TXRDMA_CMD_TENANT_NEW, 0);
	nlmini_put_str(&m, TXRDMA_A_TENANT_NAME, "kt-a");
	nlmini_put_str(&m, TXRDMA_A_TENANT_CGROUP, "/txrdma-kt/a");
	nest = nlmini_nest_start(&m, TXRDMA_A_TENANT_LIMITS);
	nlmini_put(&m, TXRDMA_A_LIMIT_QPS, &v32, 4);
	nlmini_nest_end(&m, nest);
	EXPECT_EQ(-EINVAL, nlmini_talk(&self->nl, &m, NULL, NULL));
	EXPECT_NE(0, self->nl.extack[0]);

	/* a device attribute inside the limits nest */
	nlmini_msg_init(&self->nl, &m, TXRDMA_CMD_TENANT_NEW, 0);
	nlmini_put_str(&m, TXRDMA_A_TENANT_NAME, "kt-a");
	nlmini_put_str(&m, TXRDMA_A_TENANT_CGROUP, "/txrdma-kt/a");
	nest = nlmini_nest_start(&m, TXRDMA_A_TENANT_LIMITS);
	nlmini_put(&m, TXRDMA_A_DEV_INDEX, &v32, 4);
	nlmini_nest_end(&m, nest);
	EXPECT_EQ(-EINVAL, nlmini_talk(&self->nl, &m, NULL, NULL));

	/* limits given as a flat u64 instead of a nest */
	nlmini_msg_init(&self->nl, &m, TXRDMA_CMD_TENANT_NEW, 0);
	nlmini_put_str(&m, TXRDMA_A_TENANT_NAME, "kt-a");
	nlmini_put_str(&m, TXRDMA_A_TENANT_CGROUP, "/txrdma-kt/a");
	tenant_put_u64(&m, TXRDMA_A_TENANT_LIMITS, 1);
	EXPECT_EQ(-EINVAL, nlmini_talk(&self->nl, &m, NULL, NULL));

	/* force is a flag: a payload is malformed (the core says -ERANGE) */
	nlmini_msg_init(&self->nl, &m, TXRDMA_CMD_TENANT_DEL, 0);
	nlmini_put_str(&m, TXRDMA_A_TENANT_NAME, "kt-a");
	nlmini_put(&m, TXRDMA_A_TENANT_FORCE, &v32, 4);
	EXPECT_EQ(-ERANGE, nlmini_talk(&self->nl, &m, NULL, NULL));
	EXPECT_NE(0, self->nl.extack[0]);
	EXPECT_EQ(self->before, count_tenants(&self->nl));
}

/* A process belongs to the tenant of its nearest cgroup ancestor. */
TEST_F(tenant, membership_nearest_ancestor)
{
	char name[32];
	int status, id_a;
	struct tenant t;
	pid_t pid;

	ASSERT_EQ(0, tenant_op(&self->nl, TXRDMA_CMD_TENANT_NEW, "kt-a",
			       "/txrdma-kt/a", -1, NULL));
	ASSERT_EQ(0, get_tenant(&self->nl, "kt-a", &t));
	id_a = t.id;

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct nlmini nl;

		/* in a/sub: no tenant of its own, a's applies */
		if (cg_enter(CG_BASE "/a/sub") || my_tenant(name) != id_a ||
		    strcmp(name, "kt-a"))
			_exit(10);
		/* a tenant on a/sub is nearer */
		if (nlmini_open(&nl) ||
		    tenant_op(&nl, TXRDMA_CMD_TENANT_NEW, "kt-sub",
			      "/txrdma-kt/a/sub", -1, NULL))
			_exit(11);
		if (my_tenant(name) <= id_a || strcmp(name, "kt-sub"))
			_exit(12);
		/* in b: nobody's */
		if (cg_enter(CG_BASE "/b") || my_tenant(NULL) != -EPERM)
			_exit(13);
		/* back in a */
		if (cg_enter(CG_BASE "/a") || my_tenant(NULL) != id_a)
			_exit(14);
		/* the tenant goes away: nobody's again */
		if (tenant_del(&nl, "kt-a") || my_tenant(NULL) != -EPERM)
			_exit(15);
		if (cg_enter(CG_ROOT))
			_exit(16);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

TEST_F(tenant, tenant_info_rejects_bad_request)
{
	struct txrdma_tenant_info ti;
	int fd = open("/dev/txrdma", O_RDWR);

	ASSERT_LE(0, fd);
	memset(&ti, 0, sizeof(ti));
	ti.flags = 1;
	EXPECT_EQ(-1, ioctl(fd, TXRDMA_IOC_TENANT_INFO, &ti));
	EXPECT_EQ(EINVAL, errno);
	memset(&ti, 0, sizeof(ti));
	ti.resv[0] = 1;
	EXPECT_EQ(-1, ioctl(fd, TXRDMA_IOC_TENANT_INFO, &ti));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ioctl(fd, TXRDMA_IOC_TENANT_INFO, NULL));
	EXPECT_EQ(EFAULT, errno);
	close(fd);
}

/*
 * An unprivileged member of kt-a reads kt-a alone (read-only netlink is
 * scoped to the caller's tenant) and changes nothing.
 */
TEST_F(tenant, unprivileged_cannot_change)
{
	int status;
	pid_t pid;

	ASSERT_EQ(0, tenant_op(&self->nl, TXRDMA_CMD_TENANT_NEW, "kt-a",
			       "/txrdma-kt/a", -1, NULL));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		uint64_t lim[] = { TXRDMA_A_LIMIT_QPS, 1, 0 };
		struct nlmini nl;

		/* in kt-a's cgroup: as a member it sees kt-a alone */
		if (cg_enter(CG_BASE "/a"))
			_exit(15);
		if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			_exit(10);
		/* tenants are namespaces: no other tenant is listed */
		if (nlmini_open(&nl) || count_tenants(&nl) != 1)
			_exit(11);
		if (tenant_op(&nl, TXRDMA_CMD_TENANT_NEW, "kt-b",
			      "/txrdma-kt/b", -1, NULL) != -EPERM)
			_exit(12);
		if (tenant_op(&nl, TXRDMA_CMD_TENANT_SET, "kt-a", NULL, -1,
			      lim) != -EPERM)
			_exit(13);
		if (tenant_del(&nl, "kt-a") != -EPERM)
			_exit(14);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	{
		struct tenant t;

		ASSERT_EQ(0, get_tenant(&self->nl, "kt-a", &t));
		EXPECT_EQ(TXRDMA_UNLIMITED, t.limits[0]);
	}
	EXPECT_EQ(self->before + 1, count_tenants(&self->nl));
}

/* 4096 tenants fit, the next is -ENOSPC; a dump spans many messages. */
TEST_F_TIMEOUT(tenant, count_limit_exact_and_long_dump, 180)
{
	const int max = 4096;
	char path[128], name[32];
	int made = 0, ret = 0;

	ASSERT_EQ(0, self->before);
	for (int i = 0; i < max + 1; i++) {
		snprintf(path, sizeof(path), CG_BASE "/n%d", i);
		ASSERT_EQ(0, mkdir(path, 0755));
	}
	for (int i = 0; i < max; i++) {
		snprintf(name, sizeof(name), "kt-n%d", i);
		snprintf(path, sizeof(path), "/txrdma-kt/n%d", i);
		ret = tenant_op(&self->nl, TXRDMA_CMD_TENANT_NEW, name, path,
				-1, NULL);
		if (ret)
			break;
		made++;
	}
	EXPECT_EQ(max, made) TH_LOG("stopped at %d: %d %s", made, ret,
				    self->nl.extack);
	snprintf(path, sizeof(path), "/txrdma-kt/n%d", max);
	EXPECT_EQ(-ENOSPC, tenant_op(&self->nl, TXRDMA_CMD_TENANT_NEW,
				     "kt-over", path, -1, NULL));
	EXPECT_NE(NULL, strstr(self->nl.extack, "too many tenants"));
	EXPECT_EQ(max, count_tenants(&self->nl));
	for (int i = 0; i < made; i++) {
		snprintf(name, sizeof(name), "kt-n%d", i);
		EXPECT_EQ(0, tenant_del(&self->nl, name));
	}
	EXPECT_EQ(0, count_tenants(&self->nl));
	for (int i = 0; i < max + 1; i++) {
		snprintf(path, sizeof(path), CG_BASE "/n%d", i);
		rmdir(path);
	}
}

TEST_HARNESS_MAIN
