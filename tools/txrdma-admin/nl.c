// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * nl.c: generic netlink plumbing of txrdma-admin on top of libnl-3.
 *
 * Errors come back from the kernel as NLMSG_ERROR messages.  We ask for
 * extended ACKs (NETLINK_EXT_ACK) so that they carry the kernel's reason
 * as text, and for capped ACKs (NETLINK_CAP_ACK) so that they do not echo
 * our whole request.  libnl hands the error callback only the struct
 * nlmsgerr; the TLVs that follow it are parsed by txa_extack_parse().
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/netlink.h>

#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/genl/ctrl.h>

#include <linux/txrdma.h>

#include "args.h"
#include "nl.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK	270
#endif

static const char *const attr_names[] = {
	[TXRDMA_A_PAD]			= "pad",
	[TXRDMA_A_DEV_INDEX]		= "dev_index",
	[TXRDMA_A_DEV_NAME]		= "dev_name",
	[TXRDMA_A_DEV_NODE_GUID]	= "dev_node_guid",
	[TXRDMA_A_DEV_MAX_QP]		= "dev_max_qp",
	[TXRDMA_A_DEV_MAX_MR_SIZE]	= "dev_max_mr_size",
	[TXRDMA_A_DEV_ENABLED]		= "dev_enabled",
	[TXRDMA_A_DEV_PORTS]		= "dev_ports",
	[TXRDMA_A_PORT]			= "port",
	[TXRDMA_A_PORT_NUM]		= "port_num",
	[TXRDMA_A_PORT_STATE]		= "port_state",
	[TXRDMA_A_PORT_OLD_STATE]	= "port_old_state",
	[TXRDMA_A_PORT_ACTIVE_MTU]	= "port_active_mtu",
	[TXRDMA_A_PORT_NETDEV]		= "port_netdev",
	[TXRDMA_A_EVENT_TIME_NS]	= "event_time_ns",
	[TXRDMA_A_EVENT_SEQ]		= "event_seq",
	[TXRDMA_A_TENANT_NAME]		= "tenant_name",
	[TXRDMA_A_TENANT_ID]		= "tenant_id",
	[TXRDMA_A_TENANT_CGROUP]	= "tenant_cgroup",
	[TXRDMA_A_TENANT_PRIO]		= "tenant_prio",
	[TXRDMA_A_TENANT_LIMITS]	= "tenant_limits",
	[TXRDMA_A_TENANT_USAGE]		= "tenant_usage",
	[TXRDMA_A_TENANT_REFUSED]	= "tenant_refused",
	[TXRDMA_A_TENANT_FORCE]		= "tenant_force",
	[TXRDMA_A_LIMIT_QPS]		= "limit_qps",
	[TXRDMA_A_LIMIT_ENDPOINTS]	= "limit_endpoints",
	[TXRDMA_A_LIMIT_PINNED_BYTES]	= "limit_pinned_bytes",
	[TXRDMA_A_LIMIT_BW_RATE]	= "limit_bw_rate",
	[TXRDMA_A_LIMIT_BW_BURST]	= "limit_bw_burst",
	[TXRDMA_A_LIMIT_OPS_RATE]	= "limit_ops_rate",
	[TXRDMA_A_LIMIT_OPS_BURST]	= "limit_ops_burst",
	[TXRDMA_A_PEER_NAME]		= "peer_name",
	[TXRDMA_A_PEER_ADDR]		= "peer_addr",
	[TXRDMA_A_EP_ID]		= "ep_id",
	[TXRDMA_A_EP_TENANT]		= "ep_tenant",
	[TXRDMA_A_PEER_KEY]		= "peer_key",
	[TXRDMA_A_LIMIT_LISTENERS]	= "limit_listeners",
};

const char *txa_attr_name(unsigned int type)
{
	if (type < sizeof(attr_names) / sizeof(attr_names[0]))
		return attr_names[type];
	return NULL;
}

static void print_module_missing(void)
{
	fprintf(stderr, TXA_PROG ": the txrdma kernel module is not loaded "
		"(no generic netlink family \"" TXRDMA_GENL_NAME "\"); "
		"load it with: modprobe txrdma\n");
}

int txa_nl_open(struct txa_nl *nl, const char *what)
{
	int one = 1, ret, fd;

	memset(nl, 0, sizeof(*nl));
	nl->what = what;
	nl->err = stderr;
	nl->sk = nl_socket_alloc();
	if (!nl->sk) {
		fprintf(stderr, TXA_PROG ": %s: %s\n", what, strerror(ENOMEM));
		return -1;
	}
	ret = genl_connect(nl->sk);
	if (ret < 0) {
		fprintf(stderr, TXA_PROG ": %s: cannot open a generic netlink socket: %s\n",
			what, nl_geterror(ret));
		goto out_free;
	}
	/* large dumps must not be truncated: size each read to the message */
	nl_socket_enable_msg_peek(nl->sk);

	/* best effort: kernels before 4.12 have no extended ACK */
	fd = nl_socket_get_fd(nl->sk);
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));

	nl->family = genl_ctrl_resolve(nl->sk, TXRDMA_GENL_NAME);
	if (nl->family == -NLE_OBJ_NOTFOUND) {
		print_module_missing();
		goto out_free;
	}
	if (nl->family < 0) {
		fprintf(stderr, TXA_PROG ": %s: cannot resolve the generic netlink family \""
			TXRDMA_GENL_NAME "\": %s\n", what,
			nl_geterror(nl->family));
		goto out_free;
	}
	return 0;

out_free:
	nl_socket_free(nl->sk);
	nl->sk = NULL;
	return -1;
}

void txa_nl_close(struct txa_nl *nl)
{
	if (nl->sk)
		nl_socket_free(nl->sk);
	nl->sk = NULL;
}

int txa_nl_join_events(struct txa_nl *nl)
{
	int grp, ret;

	grp = genl_ctrl_resolve_grp(nl->sk, TXRDMA_GENL_NAME,
				    TXRDMA_GENL_MCGRP_EVENTS);
	if (grp < 0) {
		fprintf(nl->err, TXA_PROG ": %s: the txrdma module has no \""
			TXRDMA_GENL_MCGRP_EVENTS "\" multicast group: %s\n",
			nl->what, nl_geterror(grp));
		return -1;
	}
	ret = nl_socket_add_membership(nl->sk, grp);
	if (ret < 0) {
		fprintf(nl->err, TXA_PROG ": %s: cannot join the \""
			TXRDMA_GENL_MCGRP_EVENTS "\" group: %s\n",
			nl->what, nl_geterror(ret));
		return -1;
	}
	return 0;
}

struct nl_msg *txa_nl_msg(struct txa_nl *nl, uint8_t cmd, int flags)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (!msg || !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, nl->family,
				 0, flags, cmd, TXRDMA_GENL_VERSION)) {
		fprintf(nl->err, TXA_PROG ": %s: %s\n", nl->what,
			strerror(ENOMEM));
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

int txa_extack_parse(const struct nlmsghdr *nlh, struct txa_extack *ext)
{
	static struct nla_policy policy[NLMSGERR_ATTR_MAX + 1] = {
		[NLMSGERR_ATTR_MSG]		= { .type = NLA_STRING },
		[NLMSGERR_ATTR_OFFS]		= { .type = NLA_U32 },
		[NLMSGERR_ATTR_MISS_TYPE]	= { .type = NLA_U32 },
	};
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	const char *payload = (const char *)nlh + NLMSG_HDRLEN;
	size_t len, off;
	int error;

	memset(ext, 0, sizeof(*ext));
	if (nlh->nlmsg_len < NLMSG_HDRLEN + sizeof(int))
		return -1;
	len = nlh->nlmsg_len - NLMSG_HDRLEN;

	memcpy(&error, payload, sizeof(error));
	ext->error = error < 0 ? -error : error;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return 0;

	if (nlh->nlmsg_type == NLMSG_ERROR) {
		const struct nlmsgerr *err = (const struct nlmsgerr *)payload;

		if (len < sizeof(*err))
			return 0;
		/* the TLVs follow the echoed request unless it was capped */
		off = sizeof(*err);
		if (!(nlh->nlmsg_flags & NLM_F_CAPPED)) {
			if (err->msg.nlmsg_len < NLMSG_HDRLEN)
				return 0;
			off += err->msg.nlmsg_len - NLMSG_HDRLEN;
		}
	} else {
		off = sizeof(int);	/* NLMSG_DONE: the dump's error code */
	}
	off = NLMSG_ALIGN(off);
	if (off >= len)
		return 0;

	if (nla_parse(tb, NLMSGERR_ATTR_MAX,
		      (struct nlattr *)(payload + off), (int)(len - off),
		      policy) < 0)
		return 0;	/* a malformed TLV block: keep the error code */

	if (tb[NLMSGERR_ATTR_MSG])
		snprintf(ext->msg, sizeof(ext->msg), "%s",
			 nla_get_string(tb[NLMSGERR_ATTR_MSG]));
	if (tb[NLMSGERR_ATTR_OFFS]) {
		ext->has_offs = true;
		ext->offs = nla_get_u32(tb[NLMSGERR_ATTR_OFFS]);
	}
	if (tb[NLMSGERR_ATTR_MISS_TYPE]) {
		ext->has_miss_type = true;
		ext->miss_type = nla_get_u32(tb[NLMSGERR_ATTR_MISS_TYPE]);
	}
	return 0;
}

struct request {
	struct txa_nl *nl;
	txa_nl_reply_cb cb;
	void *arg;
	bool done;
};

static int on_valid(struct nl_msg *msg, void *arg)
{
	struct request *req = arg;
	struct nlmsghdr *nlh = nlmsg_hdr(msg);

	if (nlh->nlmsg_type != req->nl->family)
		return NL_SKIP;
	return req->cb ? req->cb(nlh, req->arg) : NL_OK;
}

static int on_finish(struct nl_msg *msg, void *arg)
{
	struct request *req = arg;
	struct txa_extack ext;

	/* a dump that failed half-way says so in NLMSG_DONE */
	if (!txa_extack_parse(nlmsg_hdr(msg), &ext) && ext.error)
		req->nl->ext = ext;
	req->done = true;
	return NL_STOP;
}

static int on_ack(struct nl_msg *msg, void *arg)
{
	struct request *req = arg;
	struct txa_extack ext;

	/* success, possibly with a warning from the kernel */
	if (!txa_extack_parse(nlmsg_hdr(msg), &ext) && ext.msg[0])
		fprintf(req->nl->err, TXA_PROG ": %s: warning: %s\n", req->nl->what,
			ext.msg);
	req->done = true;
	return NL_STOP;
}

static int on_error(struct sockaddr_nl *who, struct nlmsgerr *err, void *arg)
{
	/* libnl passes nlmsg_data() of the NLMSG_ERROR message */
	const struct nlmsghdr *nlh =
		(const struct nlmsghdr *)((char *)err - NLMSG_HDRLEN);
	struct request *req = arg;

	(void)who;
	if (txa_extack_parse(nlh, &req->nl->ext) || !req->nl->ext.error)
		req->nl->ext.error = EPROTO;
	req->done = true;
	return NL_STOP;
}

int txa_nl_request(struct txa_nl *nl, struct nl_msg *msg,
		   txa_nl_reply_cb cb, void *arg)
{
	struct request req = { .nl = nl, .cb = cb, .arg = arg };
	struct nl_cb *nlcb, *sock_cb;
	int ret;

	nl->nlerr = 0;
	memset(&nl->ext, 0, sizeof(nl->ext));

	/* a clone keeps what the socket's callbacks override (the tests) */
	sock_cb = nl_socket_get_cb(nl->sk);
	nlcb = sock_cb ? nl_cb_clone(sock_cb) : NULL;
	nl_cb_put(sock_cb);
	if (!nlcb) {
		nlmsg_free(msg);
		nl->nlerr = NLE_NOMEM;
		return -1;
	}
	nl_cb_set(nlcb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, &req);
	nl_cb_set(nlcb, NL_CB_FINISH, NL_CB_CUSTOM, on_finish, &req);
	nl_cb_set(nlcb, NL_CB_ACK, NL_CB_CUSTOM, on_ack, &req);
	nl_cb_err(nlcb, NL_CB_CUSTOM, on_error, &req);

	ret = nl_send_auto(nl->sk, msg);	/* adds NLM_F_ACK */
	nlmsg_free(msg);
	if (ret < 0) {
		nl->nlerr = -ret;
		goto out;
	}
	while (!req.done) {
		ret = nl_recvmsgs(nl->sk, nlcb);
		if (ret < 0 && !nl->ext.error) {
			nl->nlerr = -ret;
			break;
		}
		if (ret < 0)
			break;
	}
out:
	nl_cb_put(nlcb);
	return nl->nlerr || nl->ext.error ? -1 : 0;
}

void txa_nl_perror(const struct txa_nl *nl, const char *hint)
{
	const struct txa_extack *ext = &nl->ext;
	const char *name;

	if (!ext->error) {
		fprintf(nl->err, TXA_PROG ": %s: %s\n", nl->what,
			nl->nlerr ? nl_geterror(-nl->nlerr) : "unknown error");
		return;
	}
	if (ext->error == EPERM) {
		fprintf(nl->err, TXA_PROG ": %s: %s%soperation not permitted (%s)\n",
			nl->what, ext->msg, ext->msg[0] ? ": " : "",
			hint ? hint : "needs CAP_NET_ADMIN");
		return;
	}
	if (ext->msg[0]) {
		fprintf(nl->err, TXA_PROG ": %s: %s (%s)\n", nl->what, ext->msg,
			strerror(ext->error));
		return;
	}
	if (ext->has_miss_type) {
		name = txa_attr_name(ext->miss_type);
		if (name)
			fprintf(nl->err, TXA_PROG ": %s: missing attribute %s (%s)\n",
				nl->what, name, strerror(ext->error));
		else
			fprintf(nl->err, TXA_PROG ": %s: missing attribute of type %u (%s)\n",
				nl->what, ext->miss_type,
				strerror(ext->error));
		return;
	}
	if (ext->error == EOPNOTSUPP) {
		fprintf(nl->err, TXA_PROG ": %s: the loaded txrdma module does not support this command (%s)\n",
			nl->what, strerror(ext->error));
		return;
	}
	if (ext->has_offs) {
		fprintf(nl->err, TXA_PROG ": %s: the kernel rejected the attribute at offset %u (%s)\n",
			nl->what, ext->offs, strerror(ext->error));
		return;
	}
	if (hint)
		fprintf(nl->err, TXA_PROG ": %s: %s (%s)\n", nl->what, hint,
			strerror(ext->error));
	else
		fprintf(nl->err, TXA_PROG ": %s: %s\n", nl->what,
			strerror(ext->error));
}
