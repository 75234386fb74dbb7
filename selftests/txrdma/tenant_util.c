// SPDX-License-Identifier: GPL-2.0-only
/* Tenant helpers shared by the txrdma selftests; see tenant_util.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tenant_util.h"

/* out[i] = the u64 of attribute attrs[i] in @nest, or TENANT_MISSING */
static void get_u64s(const struct nlattr *nest, uint64_t *out,
		     const int *attrs, int n)
{
	struct nlattr *tb[TXRDMA_A_MAX + 1];

	nlmini_parse_nested(nest, tb, TXRDMA_A_MAX);
	for (int i = 0; i < n; i++) {
		out[i] = TENANT_MISSING;
		if (tb[attrs[i]])
			memcpy(&out[i], nlmini_data(tb[attrs[i]]), 8);
	}
}

static const int limit_attrs[] = {
	TXRDMA_A_LIMIT_QPS, TXRDMA_A_LIMIT_ENDPOINTS,
	TXRDMA_A_LIMIT_PINNED_BYTES, TXRDMA_A_LIMIT_BW_RATE,
	TXRDMA_A_LIMIT_BW_BURST, TXRDMA_A_LIMIT_OPS_RATE,
	TXRDMA_A_LIMIT_OPS_BURST,
};

/* REFUSED: refusals per counted limit, then throttles per rate */
static const int refused_attrs[] = {
	TXRDMA_A_LIMIT_QPS, TXRDMA_A_LIMIT_ENDPOINTS,
	TXRDMA_A_LIMIT_PINNED_BYTES, TXRDMA_A_LIMIT_BW_RATE,
	TXRDMA_A_LIMIT_OPS_RATE,
};

static int tenant_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[TXRDMA_A_MAX + 1];
	struct tenant_list *l = arg;
	struct tenant *t;

	nlmini_parse(nlh, tb, TXRDMA_A_MAX);
	if (!tb[TXRDMA_A_TENANT_NAME] || !tb[TXRDMA_A_TENANT_ID] ||
	    !tb[TXRDMA_A_TENANT_CGROUP] || !tb[TXRDMA_A_TENANT_PRIO] ||
	    !tb[TXRDMA_A_TENANT_LIMITS] || !tb[TXRDMA_A_TENANT_USAGE] ||
	    !tb[TXRDMA_A_TENANT_REFUSED])
		return -EBADMSG;
	if (l->n++ >= l->cap)
		return 0;	/* counted, not stored */
	t = &l->t[l->n - 1];
	snprintf(t->name, sizeof(t->name), "%s",
		 (char *)nlmini_data(tb[TXRDMA_A_TENANT_NAME]));
	snprintf(t->cgroup, sizeof(t->cgroup), "%s",
		 (char *)nlmini_data(tb[TXRDMA_A_TENANT_CGROUP]));
	t->id = *(uint32_t *)nlmini_data(tb[TXRDMA_A_TENANT_ID]);
	t->prio = *(uint8_t *)nlmini_data(tb[TXRDMA_A_TENANT_PRIO]);
	get_u64s(tb[TXRDMA_A_TENANT_LIMITS], t->limits, limit_attrs, 7);
	get_u64s(tb[TXRDMA_A_TENANT_USAGE], t->usage, limit_attrs, 3);
	get_u64s(tb[TXRDMA_A_TENANT_REFUSED], t->refused, refused_attrs, 5);
	return 0;
}

int dump_tenants(struct nlmini *nl, struct tenant_list *l)
{
	struct nlmini_msg m;

	l->n = 0;
	nlmini_msg_init(nl, &m, TXRDMA_CMD_TENANT_GET, NLM_F_DUMP);
	return nlmini_talk(nl, &m, tenant_cb, l);
}

int count_tenants(struct nlmini *nl)
{
	struct tenant_list l = { 0 };
	int ret = dump_tenants(nl, &l);

	return ret ? ret : l.n;
}

int get_tenant(struct nlmini *nl, const char *name, struct tenant *t)
{
	struct tenant_list l = { .t = t, .cap = 1 };
	struct nlmini_msg m;
	int ret;

	nlmini_msg_init(nl, &m, TXRDMA_CMD_TENANT_GET, 0);
	nlmini_put_str(&m, TXRDMA_A_TENANT_NAME, name);
	ret = nlmini_talk(nl, &m, tenant_cb, &l);
	return ret ? ret : (l.n == 1 ? 0 : -EBADMSG);
}

void tenant_put_u64(struct nlmini_msg *m, uint16_t type, uint64_t v)
{
	nlmini_put(m, type, &v, 8);
}

static void tenant_msg(struct nlmini *nl, struct nlmini_msg *m, uint8_t cmd,
		       const char *name, const char *cgroup, int prio,
		       const uint64_t *limits)
{
	nlmini_msg_init(nl, m, cmd, 0);
	if (name)
		nlmini_put_str(m, TXRDMA_A_TENANT_NAME, name);
	if (cgroup)
		nlmini_put_str(m, TXRDMA_A_TENANT_CGROUP, cgroup);
	if (prio >= 0)
		nlmini_put_u8(m, TXRDMA_A_TENANT_PRIO, prio);
	if (limits) {
		struct nlattr *nest = nlmini_nest_start(m, TXRDMA_A_TENANT_LIMITS);

		for (; limits[0]; limits += 2)
			tenant_put_u64(m, limits[0], limits[1]);
		nlmini_nest_end(m, nest);
	}
}

int tenant_op(struct nlmini *nl, uint8_t cmd, const char *name,
	      const char *cgroup, int prio, const uint64_t *limits)
{
	struct nlmini_msg m;

	tenant_msg(nl, &m, cmd, name, cgroup, prio, limits);
	return nlmini_talk(nl, &m, NULL, NULL);
}

int tenant_del(struct nlmini *nl, const char *name)
{
	return tenant_op(nl, TXRDMA_CMD_TENANT_DEL, name, NULL, -1, NULL);
}

int tenant_del_force(struct nlmini *nl, const char *name)
{
	struct nlmini_msg m;

	tenant_msg(nl, &m, TXRDMA_CMD_TENANT_DEL, name, NULL, -1, NULL);
	nlmini_put(&m, TXRDMA_A_TENANT_FORCE, NULL, 0);
	return nlmini_talk(nl, &m, NULL, NULL);
}

int cg_enter(const char *dir)
{
	char path[512];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	if (dprintf(fd, "%d\n", getpid()) <= 0)
		ret = errno ? -errno : -EIO;
	close(fd);
	return ret;
}
