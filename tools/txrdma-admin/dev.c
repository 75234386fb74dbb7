// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * dev.c: txrdma-admin dev show / dev set, and the attribute parsing that
 * the monitor shares.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/genl/genl.h>

#include "dev.h"
#include "vec.h"
#include "nl.h"
#include "print.h"

/*
 * Expected types.  libnl checks minimum sizes (and maxlen) and that
 * strings are NUL-terminated; unknown attributes are ignored, so a newer
 * module that adds attributes keeps working.
 */
static struct nla_policy dev_policy[TXRDMA_A_MAX + 1] = {
	[TXRDMA_A_DEV_INDEX]		= { .type = NLA_U32 },
	[TXRDMA_A_DEV_NAME]		= { .type = NLA_STRING,
					    .maxlen = TXRDMA_DEV_NAME_MAX },
	[TXRDMA_A_DEV_NODE_GUID]	= { .type = NLA_U64 },
	[TXRDMA_A_DEV_MAX_QP]		= { .type = NLA_U32 },
	[TXRDMA_A_DEV_MAX_MR_SIZE]	= { .type = NLA_U64 },
	[TXRDMA_A_DEV_ENABLED]		= { .type = NLA_U8 },
	[TXRDMA_A_DEV_MRS]		= { .type = NLA_U32 },
	[TXRDMA_A_DEV_CAN_REGISTER]	= { .type = NLA_U8 },
	[TXRDMA_A_DEV_PORTS]		= { .type = NLA_NESTED },
	[TXRDMA_A_PORT_NUM]		= { .type = NLA_U32 },
	[TXRDMA_A_PORT_STATE]		= { .type = NLA_U8 },
	[TXRDMA_A_PORT_OLD_STATE]	= { .type = NLA_U8 },
	[TXRDMA_A_PORT_ACTIVE_MTU]	= { .type = NLA_U32 },
	[TXRDMA_A_PORT_NETDEV]		= { .type = NLA_STRING,
					    .maxlen = TXA_NETDEV_MAX },
	[TXRDMA_A_EVENT_TIME_NS]	= { .type = NLA_U64 },
	[TXRDMA_A_EVENT_SEQ]		= { .type = NLA_U64 },
	[TXRDMA_A_DEV_POLLER]		= { .type = NLA_NESTED },
	[TXRDMA_A_POLLER_CPU]		= { .type = NLA_U32 },	/* s32 */
	[TXRDMA_A_POLLER_PID]		= { .type = NLA_U32 },
	[TXRDMA_A_POLLER_RINGS]		= { .type = NLA_U32 },
	[TXRDMA_A_POLLER_PASSES]	= { .type = NLA_U64 },
	[TXRDMA_A_POLLER_SQES]		= { .type = NLA_U64 },
	[TXRDMA_A_POLLER_SLEEPS]	= { .type = NLA_U64 },
};

/* TXRDMA_A_DEV_POLLER: every field, or the message is invalid */
static int parse_poller(struct nlattr *nest, struct txa_poller *p)
{
	struct nlattr *tb[TXRDMA_A_MAX + 1];

	if (nla_parse_nested(tb, TXRDMA_A_MAX, nest, dev_policy) < 0 ||
	    !tb[TXRDMA_A_POLLER_CPU] || !tb[TXRDMA_A_POLLER_PID] ||
	    !tb[TXRDMA_A_POLLER_RINGS] || !tb[TXRDMA_A_POLLER_PASSES] ||
	    !tb[TXRDMA_A_POLLER_SQES] || !tb[TXRDMA_A_POLLER_SLEEPS])
		return -EINVAL;
	p->cpu = (int32_t)nla_get_u32(tb[TXRDMA_A_POLLER_CPU]);
	p->pid = nla_get_u32(tb[TXRDMA_A_POLLER_PID]);
	p->rings = nla_get_u32(tb[TXRDMA_A_POLLER_RINGS]);
	p->passes = nla_get_u64(tb[TXRDMA_A_POLLER_PASSES]);
	p->sqes = nla_get_u64(tb[TXRDMA_A_POLLER_SQES]);
	p->sleeps = nla_get_u64(tb[TXRDMA_A_POLLER_SLEEPS]);
	return 0;
}

static void copy_string(char *dst, size_t len, const struct nlattr *nla)
{
	snprintf(dst, len, "%s", nla_get_string((struct nlattr *)nla));
}

/* port attributes, from a TXRDMA_A_PORT nest or from the top level */
static void parse_port_attrs(struct nlattr **tb, struct txa_port *port)
{
	if (tb[TXRDMA_A_PORT_NUM]) {
		port->num = nla_get_u32(tb[TXRDMA_A_PORT_NUM]);
		port->have |= TXA_HAVE_NUM;
	}
	if (tb[TXRDMA_A_PORT_STATE]) {
		port->state = nla_get_u8(tb[TXRDMA_A_PORT_STATE]);
		port->have |= TXA_HAVE_STATE;
	}
	if (tb[TXRDMA_A_PORT_OLD_STATE]) {
		port->old_state = nla_get_u8(tb[TXRDMA_A_PORT_OLD_STATE]);
		port->have |= TXA_HAVE_OLD_STATE;
	}
	if (tb[TXRDMA_A_PORT_ACTIVE_MTU]) {
		port->active_mtu = nla_get_u32(tb[TXRDMA_A_PORT_ACTIVE_MTU]);
		port->have |= TXA_HAVE_MTU;
	}
	if (tb[TXRDMA_A_PORT_NETDEV]) {
		copy_string(port->netdev, sizeof(port->netdev),
			    tb[TXRDMA_A_PORT_NETDEV]);
		port->have |= TXA_HAVE_NETDEV;
	}
}

static int parse_ports(struct nlattr *ports, struct txa_dev *dev)
{
	struct nlattr *tb[TXRDMA_A_MAX + 1];
	struct nlattr *nla;
	unsigned int n = 0;
	int rem;

	nla_for_each_nested(nla, ports, rem)
		if (nla_type(nla) == TXRDMA_A_PORT)
			n++;
	if (!n)
		return 0;
	dev->ports = calloc(n, sizeof(*dev->ports));
	if (!dev->ports)
		return -ENOMEM;

	nla_for_each_nested(nla, ports, rem) {
		struct txa_port *port;

		if (nla_type(nla) != TXRDMA_A_PORT)
			continue;	/* something a newer module added */
		if (nla_parse_nested(tb, TXRDMA_A_MAX, nla, dev_policy) < 0)
			return -EINVAL;
		port = &dev->ports[dev->nports++];
		parse_port_attrs(tb, port);
	}
	return 0;
}

int txa_dev_parse(const struct nlmsghdr *nlh, struct txa_dev *dev)
{
	struct nlattr *tb[TXRDMA_A_MAX + 1];
	struct genlmsghdr *ghdr;
	int ret;

	memset(dev, 0, sizeof(*dev));
	if (!genlmsg_valid_hdr((struct nlmsghdr *)nlh, 0))
		return -EINVAL;
	ghdr = nlmsg_data(nlh);
	dev->cmd = ghdr->cmd;

	ret = genlmsg_parse((struct nlmsghdr *)nlh, 0, tb, TXRDMA_A_MAX,
			    dev_policy);
	if (ret < 0)
		return -EINVAL;

	if (tb[TXRDMA_A_DEV_INDEX]) {
		dev->index = nla_get_u32(tb[TXRDMA_A_DEV_INDEX]);
		dev->have |= TXA_HAVE_INDEX;
	}
	if (tb[TXRDMA_A_DEV_NAME]) {
		copy_string(dev->name, sizeof(dev->name),
			    tb[TXRDMA_A_DEV_NAME]);
		dev->have |= TXA_HAVE_NAME;
	}
	if (tb[TXRDMA_A_DEV_NODE_GUID]) {
		dev->node_guid = nla_get_u64(tb[TXRDMA_A_DEV_NODE_GUID]);
		dev->have |= TXA_HAVE_GUID;
	}
	if (tb[TXRDMA_A_DEV_MAX_QP]) {
		dev->max_qp = nla_get_u32(tb[TXRDMA_A_DEV_MAX_QP]);
		dev->have |= TXA_HAVE_MAX_QP;
	}
	if (tb[TXRDMA_A_DEV_MAX_MR_SIZE]) {
		dev->max_mr_size = nla_get_u64(tb[TXRDMA_A_DEV_MAX_MR_SIZE]);
		dev->have |= TXA_HAVE_MAX_MR;
	}
	if (tb[TXRDMA_A_DEV_MRS]) {
		dev->mrs = nla_get_u32(tb[TXRDMA_A_DEV_MRS]);
		dev->have |= TXA_HAVE_MRS;
	}
	if (tb[TXRDMA_A_DEV_CAN_REGISTER]) {
		dev->can_register = !!nla_get_u8(tb[TXRDMA_A_DEV_CAN_REGISTER]);
		dev->have |= TXA_HAVE_CAN_REG;
	}
	if (tb[TXRDMA_A_DEV_ENABLED]) {
		dev->enabled = !!nla_get_u8(tb[TXRDMA_A_DEV_ENABLED]);
		dev->have |= TXA_HAVE_ENABLED;
	}
	if (tb[TXRDMA_A_EVENT_TIME_NS]) {
		dev->time_ns = nla_get_u64(tb[TXRDMA_A_EVENT_TIME_NS]);
		dev->have |= TXA_HAVE_TIME;
	}
	if (tb[TXRDMA_A_EVENT_SEQ]) {
		dev->seq = nla_get_u64(tb[TXRDMA_A_EVENT_SEQ]);
		dev->have |= TXA_HAVE_SEQ;
	}
	if (tb[TXRDMA_A_DEV_POLLER]) {
		ret = parse_poller(tb[TXRDMA_A_DEV_POLLER], &dev->poller);
		if (ret)
			return ret;
		dev->have |= TXA_HAVE_POLLER;
	}
	parse_port_attrs(tb, &dev->port);
	if (dev->port.have)
		dev->have |= TXA_HAVE_PORT;
	if (tb[TXRDMA_A_DEV_PORTS]) {
		dev->have |= TXA_HAVE_PORTS;
		ret = parse_ports(tb[TXRDMA_A_DEV_PORTS], dev);
		if (ret)
			return ret;
	}
	return 0;
}

void txa_dev_free(struct txa_dev *dev)
{
	free(dev->ports);
	dev->ports = NULL;
	dev->nports = 0;
}

/* ---- printing ------------------------------------------------------- */

void txa_dev_print_attrs_plain(FILE *out, const struct txa_dev *dev)
{
	char buf[GUID_STRLEN];

	if (dev->have & TXA_HAVE_INDEX)
		fprintf(out, " index %u", dev->index);
	if (dev->have & TXA_HAVE_GUID)
		fprintf(out, " node_guid %s",
			guid_str(dev->node_guid, buf, sizeof(buf)));
	if (dev->have & TXA_HAVE_MAX_QP)
		fprintf(out, " max_qp %u", dev->max_qp);
	if (dev->have & TXA_HAVE_MAX_MR)
		fprintf(out, " max_mr_size %llu",
			(unsigned long long)dev->max_mr_size);
	if (dev->have & TXA_HAVE_ENABLED)
		fprintf(out, " enabled %s", yes_no(dev->enabled));
	if (dev->have & TXA_HAVE_CAN_REG)
		fprintf(out, " can_register %s", yes_no(dev->can_register));
	if (dev->have & TXA_HAVE_MRS)
		fprintf(out, " mrs %u", dev->mrs);
}

void txa_port_print_plain(FILE *out, const struct txa_port *port)
{
	char buf[PORT_STATE_STRLEN];

	fputs("port", out);
	if (port->have & TXA_HAVE_NUM)
		fprintf(out, " %u", port->num);
	else
		fputs(" ?", out);
	if (port->have & TXA_HAVE_STATE)
		fprintf(out, " state %s",
			port_state_str(port->state, buf, sizeof(buf)));
	if (port->have & TXA_HAVE_MTU)
		fprintf(out, " active_mtu %u", port->active_mtu);
	if (port->have & TXA_HAVE_NETDEV)
		fprintf(out, " netdev %s", port->netdev);
}

void txa_dev_print_plain(FILE *out, const struct txa_dev *dev)
{
	unsigned int i;

	fprintf(out, "%s:", dev->have & TXA_HAVE_NAME ? dev->name : "?");
	txa_dev_print_attrs_plain(out, dev);
	fputc('\n', out);
	if (dev->have & TXA_HAVE_POLLER) {
		const struct txa_poller *p = &dev->poller;

		fputs("    poller cpu ", out);
		if (p->cpu < 0)
			fputs("any", out);
		else
			fprintf(out, "%d", p->cpu);
		fprintf(out, " pid %u rings %u passes %llu sqes %llu sleeps %llu\n",
			p->pid, p->rings, (unsigned long long)p->passes,
			(unsigned long long)p->sqes,
			(unsigned long long)p->sleeps);
	}
	for (i = 0; i < dev->nports; i++) {
		fputs("    ", out);
		txa_port_print_plain(out, &dev->ports[i]);
		fputc('\n', out);
	}
}

void txa_port_print_json(struct json_writer *w, const struct txa_port *port)
{
	char buf[PORT_STATE_STRLEN];

	json_obj_start(w);
	if (port->have & TXA_HAVE_NUM)
		json_kv_u64(w, "port", port->num);
	if (port->have & TXA_HAVE_STATE)
		json_kv_str(w, "state",
			    port_state_str(port->state, buf, sizeof(buf)));
	if (port->have & TXA_HAVE_MTU)
		json_kv_u64(w, "active_mtu", port->active_mtu);
	if (port->have & TXA_HAVE_NETDEV)
		json_kv_str(w, "netdev", port->netdev);
	json_obj_end(w);
}

void txa_dev_print_attrs_json(struct json_writer *w, const struct txa_dev *dev)
{
	char buf[GUID_STRLEN];
	unsigned int i;

	if (dev->have & TXA_HAVE_INDEX)
		json_kv_u64(w, "index", dev->index);
	if (dev->have & TXA_HAVE_GUID)
		json_kv_str(w, "node_guid",
			    guid_str(dev->node_guid, buf, sizeof(buf)));
	if (dev->have & TXA_HAVE_MAX_QP)
		json_kv_u64(w, "max_qp", dev->max_qp);
	if (dev->have & TXA_HAVE_MAX_MR)
		json_kv_u64(w, "max_mr_size", dev->max_mr_size);
	if (dev->have & TXA_HAVE_ENABLED)
		json_kv_bool(w, "enabled", dev->enabled);
	if (dev->have & TXA_HAVE_CAN_REG)
		json_kv_bool(w, "can_register", dev->can_register);
	if (dev->have & TXA_HAVE_MRS)
		json_kv_u64(w, "mrs", dev->mrs);
	if (dev->have & TXA_HAVE_POLLER) {
		json_key(w, "poller");
		json_obj_start(w);
		/* -1: the device's NUMA node, or any CPU */
		json_kv_s64(w, "cpu", dev->poller.cpu);
		json_kv_u64(w, "pid", dev->poller.pid);
		json_kv_u64(w, "rings", dev->poller.rings);
		json_kv_u64(w, "passes", dev->poller.passes);
		json_kv_u64(w, "sqes", dev->poller.sqes);
		json_kv_u64(w, "sleeps", dev->poller.sleeps);
		json_obj_end(w);
	}
	if (dev->have & TXA_HAVE_PORTS) {
		json_key(w, "ports");
		json_arr_start(w);
		for (i = 0; i < dev->nports; i++)
			txa_port_print_json(w, &dev->ports[i]);
		json_arr_end(w);
	}
}

void txa_dev_print_json(struct json_writer *w, const struct txa_dev *dev)
{
	json_obj_start(w);
	if (dev->have & TXA_HAVE_NAME)
		json_kv_str(w, "name", dev->name);
	txa_dev_print_attrs_json(w, dev);
	json_obj_end(w);
}

/* ---- dev show ------------------------------------------------------- */

struct dev_list {
	struct txa_dev *devs;
	unsigned int n, cap;
	bool bad;		/* a reply could not be parsed */
};

static int collect_dev(struct nlmsghdr *nlh, void *arg)
{
	struct dev_list *list = arg;
	struct txa_dev dev, *devs;
	int ret;

	ret = txa_dev_parse(nlh, &dev);
	if (ret) {
		txa_dev_free(&dev);
		if (ret == -ENOMEM)
			return -NLE_NOMEM;
		list->bad = true;
		return NL_OK;
	}
	if (dev.cmd != TXRDMA_CMD_DEV_GET) {
		txa_dev_free(&dev);
		return NL_OK;
	}
	devs = txa_vec_room(list->devs, list->n, &list->cap, sizeof(*devs));
	if (!devs) {
		txa_dev_free(&dev);
		return -NLE_NOMEM;
	}
	list->devs = devs;
	list->devs[list->n++] = dev;
	return NL_OK;
}

int txa_dev_show(struct txa_nl *nl, const struct txa_args *a, FILE *out)
{
	struct dev_list list = { 0 };
	struct json_writer w;
	struct nl_msg *msg;
	int ret = TXA_EXIT_FAIL;
	unsigned int i;

	msg = txa_nl_msg(nl, TXRDMA_CMD_DEV_GET,
			 a->dev_name ? 0 : NLM_F_DUMP);
	if (!msg)
		return TXA_EXIT_FAIL;
	if (a->dev_name && nla_put_string(msg, TXRDMA_A_DEV_NAME,
					  a->dev_name) < 0) {
		nlmsg_free(msg);
		fprintf(nl->err, TXA_PROG ": %s: %s\n", nl->what,
			strerror(ENOMEM));
		return TXA_EXIT_FAIL;
	}
	if (txa_nl_request(nl, msg, collect_dev, &list)) {
		char hint[TXRDMA_DEV_NAME_MAX + 32];

		if (a->dev_name && (nl->ext.error == ENODEV ||
				    nl->ext.error == ENOENT)) {
			snprintf(hint, sizeof(hint), "no RDMA device \"%s\"",
				 a->dev_name);
			txa_nl_perror(nl, hint);
		} else {
			txa_nl_perror(nl, NULL);
		}
		goto out_free;
	}
	if (list.bad)
		fprintf(nl->err, TXA_PROG ": %s: skipped a malformed reply from the kernel\n",
			nl->what);

	if (a->json) {
		json_init(&w, out, a->pretty);
		json_arr_start(&w);
		for (i = 0; i < list.n; i++)
			txa_dev_print_json(&w, &list.devs[i]);
		json_arr_end(&w);
		json_finish(&w);
	} else {
		for (i = 0; i < list.n; i++)
			txa_dev_print_plain(out, &list.devs[i]);
	}
	ret = list.bad ? TXA_EXIT_FAIL : TXA_EXIT_OK;

out_free:
	for (i = 0; i < list.n; i++)
		txa_dev_free(&list.devs[i]);
	free(list.devs);
	return ret;
}

int txa_cmd_dev_show(const struct txa_args *a)
{
	struct txa_nl nl;
	int ret;

	if (txa_nl_open(&nl, "dev show"))
		return TXA_EXIT_FAIL;
	ret = txa_dev_show(&nl, a, stdout);
	txa_nl_close(&nl);
	return ret;
}

/* ---- dev set -------------------------------------------------------- */

int txa_dev_set(struct txa_nl *nl, const struct txa_args *a)
{
	char hint[TXRDMA_DEV_NAME_MAX + 32];
	struct nl_msg *msg;

	msg = txa_nl_msg(nl, TXRDMA_CMD_DEV_SET, 0);
	if (!msg)
		return TXA_EXIT_FAIL;
	if (nla_put_string(msg, TXRDMA_A_DEV_NAME, a->dev_name) < 0 ||
	    (a->enabled >= 0 &&
	     nla_put_u8(msg, TXRDMA_A_DEV_ENABLED, (uint8_t)a->enabled) < 0) ||
	    (a->poll_cpu != TXA_POLL_CPU_UNSET &&
	     nla_put_s32(msg, TXRDMA_A_POLLER_CPU, a->poll_cpu) < 0)) {
		nlmsg_free(msg);
		fprintf(nl->err, TXA_PROG ": %s: %s\n", nl->what,
			strerror(ENOMEM));
		return TXA_EXIT_FAIL;
	}
	if (!txa_nl_request(nl, msg, NULL, NULL))
		return TXA_EXIT_OK;

	if (nl->ext.error == EPERM) {
		txa_nl_perror(nl, "changing txrdma needs CAP_NET_ADMIN");
	} else if (nl->ext.error == ENODEV || nl->ext.error == ENOENT) {
		snprintf(hint, sizeof(hint), "no RDMA device \"%s\"",
			 a->dev_name);
		txa_nl_perror(nl, hint);
	} else {
		txa_nl_perror(nl, NULL);
	}
	return TXA_EXIT_FAIL;
}

int txa_cmd_dev_set(const struct txa_args *a)
{
	struct txa_nl nl;
	int ret;

	if (txa_nl_open(&nl, "dev set"))
		return TXA_EXIT_FAIL;
	ret = txa_dev_set(&nl, a);
	txa_nl_close(&nl);
	return ret;
}
