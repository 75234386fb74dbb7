// SPDX-License-Identifier: GPL-2.0-only
/* Raw generic netlink client for the txrdma selftests; see nlmini.h. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/txrdma.h>

#include "nlmini.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

#define NLA_OK_(a, rem) ((rem) >= (int)sizeof(struct nlattr) && \
			 (a)->nla_len >= sizeof(struct nlattr) && \
			 (a)->nla_len <= (rem))
#define NLA_NEXT_(a, rem) ((rem) -= NLA_ALIGN((a)->nla_len), \
			   (struct nlattr *)((char *)(a) + NLA_ALIGN((a)->nla_len)))

void nlmini_msg_init(struct nlmini *nl, struct nlmini_msg *m, uint8_t cmd,
		     uint16_t flags)
{
	struct genlmsghdr *g;

	memset(m, 0, sizeof(*m));
	m->nlh.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	m->nlh.nlmsg_type = nl->family;
	m->nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	m->nlh.nlmsg_seq = ++nl->seq;
	g = NLMSG_DATA(&m->nlh);
	g->cmd = cmd;
	g->version = TXRDMA_GENL_VERSION;
}

void nlmini_put(struct nlmini_msg *m, uint16_t type, const void *data,
		size_t len)
{
	struct nlattr *a = (struct nlattr *)(m->buf +
					     NLMSG_ALIGN(m->nlh.nlmsg_len));

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	if (len)
		memcpy(nlmini_data(a), data, len);
	memset((char *)nlmini_data(a) + len, 0, NLA_ALIGN(a->nla_len) -
	       a->nla_len);
	m->nlh.nlmsg_len = NLMSG_ALIGN(m->nlh.nlmsg_len) +
			   NLA_ALIGN(a->nla_len);
}

void nlmini_put_u8(struct nlmini_msg *m, uint16_t type, uint8_t v)
{
	nlmini_put(m, type, &v, 1);
}

void nlmini_put_u32(struct nlmini_msg *m, uint16_t type, uint32_t v)
{
	nlmini_put(m, type, &v, 4);
}

void nlmini_put_str(struct nlmini_msg *m, uint16_t type, const char *s)
{
	nlmini_put(m, type, s, strlen(s) + 1);
}

struct nlattr *nlmini_nest_start(struct nlmini_msg *m, uint16_t type)
{
	struct nlattr *a = (struct nlattr *)(m->buf +
					     NLMSG_ALIGN(m->nlh.nlmsg_len));

	nlmini_put(m, type | NLA_F_NESTED, NULL, 0);
	return a;
}

void nlmini_nest_end(struct nlmini_msg *m, struct nlattr *nest)
{
	nest->nla_len = m->buf + m->nlh.nlmsg_len - (char *)nest;
}

static void parse_attrs(struct nlattr *a, int rem, struct nlattr **tb,
			int max)
{
	memset(tb, 0, sizeof(*tb) * (max + 1));
	for (; NLA_OK_(a, rem); a = NLA_NEXT_(a, rem)) {
		int t = a->nla_type & NLA_TYPE_MASK;

		if (t <= max)
			tb[t] = a;
	}
}

void nlmini_parse(const struct nlmsghdr *nlh, struct nlattr **tb, int max)
{
	struct nlattr *a = (struct nlattr *)((char *)NLMSG_DATA(nlh) +
					     GENL_HDRLEN);

	parse_attrs(a, nlh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN), tb, max);
}

void nlmini_parse_nested(const struct nlattr *nest, struct nlattr **tb,
			 int max)
{
	parse_attrs((struct nlattr *)nlmini_data(nest), nlmini_len(nest), tb,
		    max);
}

/* Pull the extack TLVs out of an error message (NETLINK_CAP_ACK is on). */
static void take_extack(struct nlmini *nl, const struct nlmsghdr *nlh)
{
	const struct nlmsgerr *e = NLMSG_DATA(nlh);
	struct nlattr *a;
	int rem;

	nl->extack[0] = 0;
	nl->extack_off = 0;
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	a = (struct nlattr *)((char *)e + sizeof(*e));
	rem = (char *)nlh + nlh->nlmsg_len - (char *)a;
	for (; NLA_OK_(a, rem); a = NLA_NEXT_(a, rem)) {
		if (a->nla_type == NLMSGERR_ATTR_MSG)
			snprintf(nl->extack, sizeof(nl->extack), "%.*s",
				 nlmini_len(a), (char *)nlmini_data(a));
		else if (a->nla_type == NLMSGERR_ATTR_OFFS)
			memcpy(&nl->extack_off, nlmini_data(a), 4);
	}
}

int nlmini_talk(struct nlmini *nl, struct nlmini_msg *m, nlmini_cb cb,
		void *arg)
{
	static char buf[NLMINI_BUF];
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	uint32_t seq = m->nlh.nlmsg_seq;
	int ret = 0;

	nl->extack[0] = 0;
	if (sendto(nl->fd, m->buf, m->nlh.nlmsg_len, 0, (void *)&sa,
		   sizeof(sa)) < 0)
		return -errno;
	for (;;) {
		struct nlmsghdr *h;
		ssize_t n = recv(nl->fd, buf, sizeof(buf), 0);

		if (n < 0)
			return -errno;
		for (h = (void *)buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_seq != seq)
				continue;	/* multicast or stale */
			if (h->nlmsg_type == NLMSG_ERROR) {
				take_extack(nl, h);
				return ((struct nlmsgerr *)NLMSG_DATA(h))->error;
			}
			if (h->nlmsg_type == NLMSG_DONE) {
				/* a dump ends here; no ack follows */
				return ret ? ret : *(int *)NLMSG_DATA(h);
			}
			if (cb && !ret)
				ret = cb(h, arg);
		}
	}
}

int nlmini_recv_event(struct nlmini *nl, void *buf, size_t len,
		      int timeout_ms)
{
	struct pollfd p = { .fd = nl->fd, .events = POLLIN };
	ssize_t n;
	int r;

	r = poll(&p, 1, timeout_ms);
	if (r < 0)
		return -errno;
	if (!r)
		return -ETIMEDOUT;
	n = recv(nl->fd, buf, len, 0);
	return n < 0 ? -errno : (int)n;
}

int nlmini_join_events(struct nlmini *nl)
{
	int g = nl->mcgrp_events;

	if (setsockopt(nl->fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &g,
		       sizeof(g)))
		return -errno;
	return 0;
}

/* Resolve the family id and the events group through nlctrl. */
static int resolve_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct nlmini *nl = arg;
	struct nlattr *tb[CTRL_ATTR_MAX + 1], *grp;
	int rem;

	nlmini_parse(nlh, tb, CTRL_ATTR_MAX);
	if (tb[CTRL_ATTR_FAMILY_ID])
		nl->family = *(uint16_t *)nlmini_data(tb[CTRL_ATTR_FAMILY_ID]);
	if (!tb[CTRL_ATTR_MCAST_GROUPS])
		return 0;
	grp = nlmini_data(tb[CTRL_ATTR_MCAST_GROUPS]);
	rem = nlmini_len(tb[CTRL_ATTR_MCAST_GROUPS]);
	for (; NLA_OK_(grp, rem); grp = NLA_NEXT_(grp, rem)) {
		struct nlattr *g[CTRL_ATTR_MCAST_GRP_MAX + 1];

		nlmini_parse_nested(grp, g, CTRL_ATTR_MCAST_GRP_MAX);
		if (g[CTRL_ATTR_MCAST_GRP_NAME] && g[CTRL_ATTR_MCAST_GRP_ID] &&
		    !strcmp(nlmini_data(g[CTRL_ATTR_MCAST_GRP_NAME]),
			    TXRDMA_GENL_MCGRP_EVENTS))
			nl->mcgrp_events =
				*(uint32_t *)nlmini_data(g[CTRL_ATTR_MCAST_GRP_ID]);
	}
	return 0;
}

int nlmini_open(struct nlmini *nl)
{
	struct nlmini_msg m;
	int one = 1, ret;

	memset(nl, 0, sizeof(*nl));
	nl->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (nl->fd < 0)
		return -errno;
	setsockopt(nl->fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(nl->fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));

	nl->family = GENL_ID_CTRL;
	nlmini_msg_init(nl, &m, CTRL_CMD_GETFAMILY, 0);
	((struct genlmsghdr *)NLMSG_DATA(&m.nlh))->version = 1;
	nlmini_put_str(&m, CTRL_ATTR_FAMILY_NAME, TXRDMA_GENL_NAME);
	nl->family = 0;
	ret = nlmini_talk(nl, &m, resolve_cb, nl);
	if (!ret && !nl->family)
		ret = -ENOENT;
	if (ret) {
		close(nl->fd);
		nl->fd = -1;
	}
	return ret;
}

void nlmini_close(struct nlmini *nl)
{
	if (nl->fd >= 0)
		close(nl->fd);
	nl->fd = -1;
}
