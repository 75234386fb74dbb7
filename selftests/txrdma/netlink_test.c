// SPDX-License-Identifier: GPL-2.0-only
/*
 * The "txrdma" generic netlink family: what it reports agrees with the
 * RDMA core, every malformed request is refused with an extack message
 * and changes nothing, and changes need CAP_NET_ADMIN.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/txrdma.h>

#include "kselftest_harness.h"
#include "common.h"
#include "nlmini.h"

#define MAX_DEVS 16

struct dev_info {
	uint32_t index;
	char name[64];
	uint64_t guid;
	uint32_t max_qp;
	uint8_t enabled;
	int nports;
	uint32_t port_num[4];
	uint8_t port_state[4];
	uint32_t port_mtu[4];
};

struct dev_list {
	int n;
	struct dev_info d[MAX_DEVS];
};

static int dev_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[TXRDMA_A_MAX + 1], *pt[TXRDMA_A_MAX + 1];
	struct dev_list *l = arg;
	struct dev_info *d;
	struct nlattr *p;
	int rem;

	if (l->n == MAX_DEVS)
		return -E2BIG;
	d = &l->d[l->n++];
	memset(d, 0, sizeof(*d));
	nlmini_parse(nlh, tb, TXRDMA_A_MAX);
	if (!tb[TXRDMA_A_DEV_INDEX] || !tb[TXRDMA_A_DEV_NAME] ||
	    !tb[TXRDMA_A_DEV_NODE_GUID] || !tb[TXRDMA_A_DEV_MAX_QP] ||
	    !tb[TXRDMA_A_DEV_MAX_MR_SIZE] || !tb[TXRDMA_A_DEV_ENABLED] ||
	    !tb[TXRDMA_A_DEV_PORTS])
		return -EBADMSG;
	d->index = *(uint32_t *)nlmini_data(tb[TXRDMA_A_DEV_INDEX]);
	snprintf(d->name, sizeof(d->name), "%s",
		 (char *)nlmini_data(tb[TXRDMA_A_DEV_NAME]));
	memcpy(&d->guid, nlmini_data(tb[TXRDMA_A_DEV_NODE_GUID]), 8);
	d->max_qp = *(uint32_t *)nlmini_data(tb[TXRDMA_A_DEV_MAX_QP]);
	d->enabled = *(uint8_t *)nlmini_data(tb[TXRDMA_A_DEV_ENABLED]);
	p = nlmini_data(tb[TXRDMA_A_DEV_PORTS]);
	rem = nlmini_len(tb[TXRDMA_A_DEV_PORTS]);
	while (rem >= NLA_HDRLEN && p->nla_len >= NLA_HDRLEN &&
	       p->nla_len <= rem && d->nports < 4) {
		nlmini_parse_nested(p, pt, TXRDMA_A_MAX);
		if (!pt[TXRDMA_A_PORT_NUM] || !pt[TXRDMA_A_PORT_STATE] ||
		    !pt[TXRDMA_A_PORT_ACTIVE_MTU])
			return -EBADMSG;
		d->port_num[d->nports] =
			*(uint32_t *)nlmini_data(pt[TXRDMA_A_PORT_NUM]);
		d->port_state[d->nports] =
			*(uint8_t *)nlmini_data(pt[TXRDMA_A_PORT_STATE]);
		d->port_mtu[d->nports] =
			*(uint32_t *)nlmini_data(pt[TXRDMA_A_PORT_ACTIVE_MTU]);
		d->nports++;
		rem -= NLA_ALIGN(p->nla_len);
		p = (struct nlattr *)((char *)p + NLA_ALIGN(p->nla_len));
	}
	return 0;
}

static int dump_devs(struct nlmini *nl, struct dev_list *l)
{
	struct nlmini_msg m;

	l->n = 0;
	nlmini_msg_init(nl, &m, TXRDMA_CMD_DEV_GET, NLM_F_DUMP);
	return nlmini_talk(nl, &m, dev_cb, l);
}

static int get_dev(struct nlmini *nl, const char *name, struct dev_info *d)
{
	struct dev_list l = { 0 };
	struct nlmini_msg m;
	int ret;

	nlmini_msg_init(nl, &m, TXRDMA_CMD_DEV_GET, 0);
	nlmini_put_str(&m, TXRDMA_A_DEV_NAME, name);
	ret = nlmini_talk(nl, &m, dev_cb, &l);
	if (!ret && l.n != 1)
		ret = -EBADMSG;
	if (!ret)
		*d = l.d[0];
	return ret;
}

static int set_enabled(struct nlmini *nl, const char *name, uint8_t on)
{
	struct nlmini_msg m;

	nlmini_msg_init(nl, &m, TXRDMA_CMD_DEV_SET, 0);
	nlmini_put_str(&m, TXRDMA_A_DEV_NAME, name);
	nlmini_put_u8(&m, TXRDMA_A_DEV_ENABLED, on);
	return nlmini_talk(nl, &m, NULL, NULL);
}

FIXTURE(nl) {
	struct nlmini nl;
	struct dev_list devs;
};

FIXTURE_SETUP(nl)
{
	ASSERT_EQ(0, nlmini_open(&self->nl))
		TH_LOG("generic netlink family txrdma not found");
	ASSERT_EQ(0, dump_devs(&self->nl, &self->devs));
	ASSERT_LT(0, self->devs.n) TH_LOG("no RDMA device to test with");
}

FIXTURE_TEARDOWN(nl)
{
	nlmini_close(&self->nl);
}

TEST_F(nl, dump_agrees_with_sysfs)
{
	EXPECT_EQ(sysfs_rdma_count(), self->devs.n);
	for (int i = 0; i < self->devs.n; i++) {
		struct dev_info *d = &self->devs.d[i];
		uint64_t guid;

		ASSERT_EQ(0, sysfs_node_guid(d->name, &guid))
			TH_LOG("%s is not in /sys/class/infiniband", d->name);
		EXPECT_EQ(guid, d->guid);
		EXPECT_LT(0, d->max_qp);
		EXPECT_EQ(1, d->enabled);
		ASSERT_LT(0, d->nports);
		for (int p = 0; p < d->nports; p++) {
			EXPECT_EQ(sysfs_port_state(d->name, d->port_num[p]),
				  d->port_state[p]);
			if (d->port_state[p] == TXRDMA_PORT_ACTIVE)
				EXPECT_LE(256, d->port_mtu[p]);
		}
	}
}

TEST_F(nl, get_by_name_and_index_match_dump)
{
	for (int i = 0; i < self->devs.n; i++) {
		struct dev_info *d = &self->devs.d[i], g;
		struct dev_list l = { 0 };
		struct nlmini_msg m;

		ASSERT_EQ(0, get_dev(&self->nl, d->name, &g));
		EXPECT_EQ(d->index, g.index);
		EXPECT_EQ(d->guid, g.guid);
		EXPECT_STREQ(d->name, g.name);

		nlmini_msg_init(&self->nl, &m, TXRDMA_CMD_DEV_GET, 0);
		nlmini_put_u32(&m, TXRDMA_A_DEV_INDEX, d->index);
		ASSERT_EQ(0, nlmini_talk(&self->nl, &m, dev_cb, &l));
		ASSERT_EQ(1, l.n);
		EXPECT_STREQ(d->name, l.d[0].name);
	}
}

TEST_F(nl, get_without_key_is_einval)
{
	struct nlmini_msg m;

	nlmini_msg_init(&self->nl, &m, TXRDMA_CMD_DEV_GET, 0);
	EXPECT_EQ(-EINVAL, nlmini_talk(&self->nl, &m, NULL, NULL));
	EXPECT_NE(NULL, strstr(self->nl.extack, "name or index is required"))
		TH_LOG("extack: '%s'", self->nl.extack);
}

TEST_F(nl, get_unknown_device_is_enodev)
{
	struct dev_info d;
	struct nlmini_msg m;

	EXPECT_EQ(-ENODEV, get_dev(&self->nl, "nosuchdev0", &d));
	EXPECT_NE(NULL, strstr(self->nl.extack, "no such RDMA device"));
	EXPECT_NE(0, self->nl.extack_off);

	nlmini_msg_init(&self->nl, &m, TXRDMA_CMD_DEV_GET, 0);
	nlmini_put_u32(&m, TXRDMA_A_DEV_INDEX, 0x7fffffff);
	EXPECT_EQ(-ENODEV, nlmini_talk(&self->nl, &m, NULL, NULL));
	EXPECT_NE(NULL, strstr(self->nl.extack, "no such RDMA device"));
}

TEST_F(nl, get_name_index_mismatch_is_einval)
{
	struct dev_info *d = &self->devs.d[0];
	struct nlmini_msg m;

	nlmini_msg_init(&self->nl, &m, TXRDMA_CMD_DEV_GET, 0);
	nlmini_put_u32(&m, TXRDMA_A_DEV_INDEX, d->index);
	nlmini_put_str(&m, TXRDMA_A_DEV_NAME, "nosuchdev0");
	EXPECT_EQ(-EINVAL, nlmini_talk(&self->nl, &m, NULL, NULL));
	EXPECT_NE(NULL, strstr(self->nl.extack, "do not match"));
}

/* Each malformed attribute is refused by the policy, with a message. */
TEST_F(nl, malformed_attributes_rejected)
{
	char big[200];
	uint16_t u16 = 1;
	uint64_t u64 = 1;
	struct {
		const char *what;
		uint16_t type;
		const void *data;
		size_t len;
	} bad[] = {
		{ "index of 2 bytes", TXRDMA_A_DEV_INDEX, &u16, 2 },
		{ "index of 8 bytes", TXRDMA_A_DEV_INDEX, &u64, 8 },
		{ "name without NUL", TXRDMA_A_DEV_NAME, "rxe0", 4 },
		{ "name of 200 bytes", TXRDMA_A_DEV_NAME, big, sizeof(big) },
		{ "attribute outside the op policy", TXRDMA_A_DEV_NODE_GUID,
		  &u64, 8 },
		{ "unknown attribute", TXRDMA_A_MAX + 5, &u64, 8 },
		{ "attribute 0", 0, &u64, 8 },
	};

	memset(big, 'a', sizeof(big));
	big[sizeof(big) - 1] = 0;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct nlmini_msg m;

		nlmini_msg_init(&self->nl, &m, TXRDMA_CMD_DEV_GET, 0);
		nlmini_put(&m, bad[i].type, bad[i].data, bad[i].len);
		EXPECT_EQ(-EINVAL, nlmini_talk(&self->nl, &m, NULL, NULL))
			TH_LOG("%s accepted", bad[i].what);
		EXPECT_NE(0, self->nl.extack[0])
			TH_LOG("%s: no extack message", bad[i].what);
	}
}

TEST_F(nl, set_out_of_range_changes_nothing)
{
	struct dev_info *d = &self->devs.d[0], g;
	struct nlmini_msg m;

	/* the policy's range check answers -ERANGE, with a message */
	EXPECT_EQ(-ERANGE, set_enabled(&self->nl, d->name, 2));
	EXPECT_NE(0, self->nl.extack[0]);
	EXPECT_NE(0, self->nl.extack_off);
	EXPECT_EQ(-ERANGE, set_enabled(&self->nl, d->name, 255));
	ASSERT_EQ(0, get_dev(&self->nl, d->name, &g));
	EXPECT_EQ(1, g.enabled);

	/* a set with nothing to set */
	nlmini_msg_init(&self->nl, &m, TXRDMA_CMD_DEV_SET, 0);
	nlmini_put_str(&m, TXRDMA_A_DEV_NAME, d->name);
	EXPECT_EQ(-EINVAL, nlmini_talk(&self->nl, &m, NULL, NULL));
	EXPECT_NE(NULL, strstr(self->nl.extack, "nothing to change"));

	/* a set of an unknown device */
	EXPECT_EQ(-ENODEV, set_enabled(&self->nl, "nosuchdev0", 0));
}

TEST_F(nl, unknown_command_and_bad_header)
{
	struct genlmsghdr *g;
	struct nlmini_msg m;

	nlmini_msg_init(&self->nl, &m, 200, 0);
	EXPECT_EQ(-EOPNOTSUPP, nlmini_talk(&self->nl, &m, NULL, NULL));

	/* events are not requests */
	nlmini_msg_init(&self->nl, &m, TXRDMA_CMD_DEV_PORT_NTF, 0);
	EXPECT_EQ(-EOPNOTSUPP, nlmini_talk(&self->nl, &m, NULL, NULL));

	/* reserved genl header field */
	nlmini_msg_init(&self->nl, &m, TXRDMA_CMD_DEV_GET, NLM_F_DUMP);
	g = NLMSG_DATA(&m.nlh);
	g->reserved = 1;
	EXPECT_EQ(-EINVAL, nlmini_talk(&self->nl, &m, NULL, NULL));

	/* message shorter than a genl header */
	nlmini_msg_init(&self->nl, &m, TXRDMA_CMD_DEV_GET, 0);
	m.nlh.nlmsg_len = NLMSG_LENGTH(2);
	EXPECT_EQ(-EINVAL, nlmini_talk(&self->nl, &m, NULL, NULL));
}

/* dev set changes state, is visible in get, and raises an event. */
TEST_F(nl, set_enabled_toggles_and_notifies)
{
	struct dev_info *d = &self->devs.d[0], g;
	struct nlattr *tb[TXRDMA_A_MAX + 1];
	struct nlmini ev;
	char buf[8192];
	int n;

	ASSERT_EQ(0, nlmini_open(&ev));
	ASSERT_EQ(0, nlmini_join_events(&ev));

	ASSERT_EQ(0, set_enabled(&self->nl, d->name, 0));
	ASSERT_EQ(0, get_dev(&self->nl, d->name, &g));
	EXPECT_EQ(0, g.enabled);
	n = nlmini_recv_event(&ev, buf, sizeof(buf), 5000);
	ASSERT_LT(0, n);
	{
		struct nlmsghdr *h = (void *)buf;
		struct genlmsghdr *gh = NLMSG_DATA(h);

		EXPECT_EQ(TXRDMA_CMD_DEV_SET_NTF, gh->cmd);
		nlmini_parse(h, tb, TXRDMA_A_MAX);
		ASSERT_NE(NULL, tb[TXRDMA_A_DEV_NAME]);
		EXPECT_STREQ(d->name, (char *)nlmini_data(tb[TXRDMA_A_DEV_NAME]));
		ASSERT_NE(NULL, tb[TXRDMA_A_DEV_ENABLED]);
		EXPECT_EQ(0, *(uint8_t *)nlmini_data(tb[TXRDMA_A_DEV_ENABLED]));
		EXPECT_NE(NULL, tb[TXRDMA_A_EVENT_TIME_NS]);
		EXPECT_NE(NULL, tb[TXRDMA_A_EVENT_SEQ]);
	}
	/* setting the same value again is no change and no event */
	ASSERT_EQ(0, set_enabled(&self->nl, d->name, 0));
	ASSERT_EQ(0, set_enabled(&self->nl, d->name, 1));
	n = nlmini_recv_event(&ev, buf, sizeof(buf), 5000);
	ASSERT_LT(0, n);
	nlmini_parse((void *)buf, tb, TXRDMA_A_MAX);
	ASSERT_NE(NULL, tb[TXRDMA_A_DEV_ENABLED]);
	EXPECT_EQ(1, *(uint8_t *)nlmini_data(tb[TXRDMA_A_DEV_ENABLED]));
	ASSERT_EQ(0, get_dev(&self->nl, d->name, &g));
	EXPECT_EQ(1, g.enabled);
	nlmini_close(&ev);
}

/* An unprivileged user reads everything and changes nothing. */
TEST_F(nl, unprivileged_reads_but_cannot_set)
{
	struct dev_info *d = &self->devs.d[0], g;
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct dev_list l = { 0 };
		struct nlmini nl;

		if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			_exit(10);
		if (nlmini_open(&nl))
			_exit(11);
		if (dump_devs(&nl, &l) || l.n != self->devs.n)
			_exit(12);
		if (set_enabled(&nl, d->name, 0) != -EPERM)
			_exit(13);
		if (set_enabled(&nl, d->name, 1) != -EPERM)
			_exit(14);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	ASSERT_EQ(0, get_dev(&self->nl, d->name, &g));
	EXPECT_EQ(1, g.enabled);
}

TEST_HARNESS_MAIN
