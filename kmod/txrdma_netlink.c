// SPDX-License-Identifier: GPL-2.0-only
/*
 * Generic netlink family "txrdma": administration and events.
 *
 * Every operation has its own policy and is validated strictly
 * (resv_start_op covers all of them): unknown attributes, wrong types
 * and oversized strings are refused by the core with an extack message
 * before a handler runs.  Reads (get, dump) are open to everyone, as
 * "ip link show" is; changes need CAP_NET_ADMIN (GENL_ADMIN_PERM).
 */
#include <linux/atomic.h>
#include <linux/ktime.h>
#include <net/genetlink.h>
#include <rdma/ib_cache.h>

#include "txrdma.h"
#include "txrdma_endpoint.h"
#include "txrdma_peer.h"
#include "txrdma_tenant.h"

enum txrdma_mcgrp {
	TXRDMA_MCGRP_EVENTS_IDX,
};

static const struct genl_multicast_group txrdma_mcgrps[] = {
	[TXRDMA_MCGRP_EVENTS_IDX] = { .name = TXRDMA_GENL_MCGRP_EVENTS },
};

static atomic64_t txrdma_event_seq = ATOMIC64_INIT(0);

static const struct nla_policy txrdma_dev_get_policy[TXRDMA_A_DEV_NAME + 1] = {
	[TXRDMA_A_DEV_INDEX]	= { .type = NLA_U32 },
	[TXRDMA_A_DEV_NAME]	= { .type = NLA_NUL_STRING,
				    .len = TXRDMA_DEV_NAME_MAX - 1 },
};

static const struct nla_policy txrdma_dev_set_policy[TXRDMA_A_POLLER_CPU + 1] = {
	[TXRDMA_A_DEV_INDEX]	= { .type = NLA_U32 },
	[TXRDMA_A_DEV_NAME]	= { .type = NLA_NUL_STRING,
				    .len = TXRDMA_DEV_NAME_MAX - 1 },
	[TXRDMA_A_DEV_ENABLED]	= NLA_POLICY_MAX(NLA_U8, 1),
	[TXRDMA_A_POLLER_CPU]	= NLA_POLICY_MIN(NLA_S32, -1),
};

/* Name of the net device behind a RoCE/iWARP port, if there is one. */
static int txrdma_put_port_netdev(struct sk_buff *skb, struct ib_device *ibdev,
				  u32 port)
{
	const struct ib_gid_attr *gattr;
	struct net_device *ndev;
	int ret = 0;

	gattr = rdma_get_gid_attr(ibdev, port, 0);
	if (IS_ERR(gattr))
		return 0;
	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(gattr);
	if (!IS_ERR(ndev))
		ret = nla_put_string(skb, TXRDMA_A_PORT_NETDEV, ndev->name);
	rcu_read_unlock();
	rdma_put_gid_attr(gattr);
	return ret;
}

static int txrdma_put_ports(struct sk_buff *skb, struct txrdma_dev *dev)
{
	struct nlattr *ports, *pnest;
	struct ib_port_attr attr;
	u32 i, num;

	ports = nla_nest_start(skb, TXRDMA_A_DEV_PORTS);
	if (!ports)
		return -EMSGSIZE;
	for (i = 0; i < dev->nports; i++) {
		num = dev->first_port + i;
		/* live state: "dev show" must agree with "rdma link" now */
		if (ib_query_port(dev->ibdev, num, &attr)) {
			attr.state = dev->ports[i].state;
			attr.active_mtu = dev->ports[i].active_mtu;
		}
		pnest = nla_nest_start(skb, TXRDMA_A_PORT);
		if (!pnest)
			goto cancel;
		if (nla_put_u32(skb, TXRDMA_A_PORT_NUM, num) ||
		    nla_put_u8(skb, TXRDMA_A_PORT_STATE, attr.state) ||
		    nla_put_u32(skb, TXRDMA_A_PORT_ACTIVE_MTU,
				ib_mtu_enum_to_int(attr.active_mtu) > 0 ?
				ib_mtu_enum_to_int(attr.active_mtu) : 0) ||
		    txrdma_put_port_netdev(skb, dev->ibdev, num)) {
			nla_nest_cancel(skb, pnest);
			goto cancel;
		}
		nla_nest_end(skb, pnest);
	}
	nla_nest_end(skb, ports);
	return 0;

cancel:
	nla_nest_cancel(skb, ports);
	return -EMSGSIZE;
}

static int txrdma_put_dev_id(struct sk_buff *skb, struct txrdma_dev *dev)
{
	if (nla_put_u32(skb, TXRDMA_A_DEV_INDEX, dev->ibdev->index) ||
	    nla_put_string(skb, TXRDMA_A_DEV_NAME, dev->name))
		return -EMSGSIZE;
	return 0;
}

/**
 * txrdma_nl_put_event_stamp() - put an event's time and sequence number
 * @skb: message
 * @time_ns: CLOCK_REALTIME of the event, 0 for now
 *
 * Return: 0 or -EMSGSIZE.
 */
int txrdma_nl_put_event_stamp(struct sk_buff *skb, u64 time_ns)
{
	if (nla_put_u64_64bit(skb, TXRDMA_A_EVENT_TIME_NS,
			      time_ns ? time_ns : ktime_get_real_ns(),
			      TXRDMA_A_PAD) ||
	    nla_put_u64_64bit(skb, TXRDMA_A_EVENT_SEQ,
			      atomic64_inc_return(&txrdma_event_seq),
			      TXRDMA_A_PAD))
		return -EMSGSIZE;
	return 0;
}

static int txrdma_put_event_stamp(struct sk_buff *skb)
{
	return txrdma_nl_put_event_stamp(skb, 0);
}

/* The device's poller (a snapshot: the thread updates it lock-free). */
static int txrdma_put_poller(struct sk_buff *skb, struct txrdma_poller *p)
{
	struct txrdma_poller_info pi;
	struct nlattr *nest;

	txrdma_poller_info(p, &pi);
	nest = nla_nest_start(skb, TXRDMA_A_DEV_POLLER);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_s32(skb, TXRDMA_A_POLLER_CPU, pi.cpu) ||
	    nla_put_u32(skb, TXRDMA_A_POLLER_PID, pi.pid) ||
	    nla_put_u32(skb, TXRDMA_A_POLLER_RINGS, pi.rings) ||
	    nla_put_u64_64bit(skb, TXRDMA_A_POLLER_PASSES, pi.passes,
			      TXRDMA_A_PAD) ||
	    nla_put_u64_64bit(skb, TXRDMA_A_POLLER_SQES, pi.sqes,
			      TXRDMA_A_PAD) ||
	    nla_put_u64_64bit(skb, TXRDMA_A_POLLER_SLEEPS, pi.sleeps,
			      TXRDMA_A_PAD)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/* Caller holds txrdma_devs_lock. */
static int txrdma_fill_dev(struct sk_buff *skb, struct txrdma_dev *dev,
			   u32 portid, u32 seq, int flags, u8 cmd, bool full)
{
	struct ib_device_attr *a = &dev->ibdev->attrs;
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &txrdma_genl_family, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;
	if (txrdma_put_dev_id(skb, dev))
		goto cancel;
	if (full &&
	    (nla_put_u64_64bit(skb, TXRDMA_A_DEV_NODE_GUID,
			       be64_to_cpu(dev->ibdev->node_guid),
			       TXRDMA_A_PAD) ||
	     nla_put_u32(skb, TXRDMA_A_DEV_MAX_QP, max(a->max_qp, 0)) ||
	     nla_put_u64_64bit(skb, TXRDMA_A_DEV_MAX_MR_SIZE, a->max_mr_size,
			       TXRDMA_A_PAD) ||
	     nla_put_u8(skb, TXRDMA_A_DEV_ENABLED, dev->enabled) ||
	     nla_put_u32(skb, TXRDMA_A_DEV_MRS, atomic_read(&dev->nr_mrs)) ||
	     nla_put_u8(skb, TXRDMA_A_DEV_CAN_REGISTER,
			txrdma_dev_can_register(dev)) ||
	     txrdma_put_poller(skb, dev->poller) ||
	     txrdma_put_ports(skb, dev)))
		goto cancel;
	if (cmd != TXRDMA_CMD_DEV_GET && txrdma_put_event_stamp(skb))
		goto cancel;
	genlmsg_end(skb, hdr);
	return 0;

cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

void txrdma_nl_multicast(struct sk_buff *skb)
{
	/* -ESRCH only means nobody listens */
	genlmsg_multicast(&txrdma_genl_family, skb, 0, TXRDMA_MCGRP_EVENTS_IDX,
			  GFP_KERNEL);
}

/**
 * txrdma_nl_notify_dev() - multicast a device event
 * @dev: the device
 * @cmd: TXRDMA_CMD_DEV_ADD_NTF, _DEL_NTF or _SET_NTF
 *
 * Caller holds txrdma_devs_lock, which orders events as the changes.
 */
void txrdma_nl_notify_dev(struct txrdma_dev *dev, u8 cmd)
{
	struct sk_buff *skb;

	skb = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!skb)
		return;
	if (txrdma_fill_dev(skb, dev, 0, 0, 0, cmd,
			    cmd != TXRDMA_CMD_DEV_DEL_NTF)) {
		nlmsg_free(skb);
		return;
	}
	txrdma_nl_multicast(skb);
}

/**
 * txrdma_nl_notify_port() - multicast a port state change
 * @dev: the device
 * @port: port number
 * @old_state: enum ib_port_state before
 * @new_state: enum ib_port_state now
 *
 * Caller holds txrdma_devs_lock.
 */
void txrdma_nl_notify_port(struct txrdma_dev *dev, u32 port, u8 old_state,
			   u8 new_state)
{
	struct sk_buff *skb;
	void *hdr;

	skb = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!skb)
		return;
	hdr = genlmsg_put(skb, 0, 0, &txrdma_genl_family, 0,
			  TXRDMA_CMD_DEV_PORT_NTF);
	if (!hdr)
		goto free;
	if (txrdma_put_dev_id(skb, dev) ||
	    nla_put_u32(skb, TXRDMA_A_PORT_NUM, port) ||
	    nla_put_u8(skb, TXRDMA_A_PORT_OLD_STATE, old_state) ||
	    nla_put_u8(skb, TXRDMA_A_PORT_STATE, new_state) ||
	    txrdma_put_event_stamp(skb))
		goto free;
	genlmsg_end(skb, hdr);
	txrdma_nl_multicast(skb);
	return;

free:
	nlmsg_free(skb);
}

/* Find the device a request names; sets extack on failure. */
static struct txrdma_dev *txrdma_nl_dev_lookup(struct genl_info *info)
{
	struct nlattr *name = info->attrs[TXRDMA_A_DEV_NAME];
	struct nlattr *index = info->attrs[TXRDMA_A_DEV_INDEX];
	struct txrdma_dev *dev;

	if (!name && !index) {
		NL_SET_ERR_MSG_MOD(info->extack,
				   "device name or index is required");
		return ERR_PTR(-EINVAL);
	}
	if (index)
		dev = txrdma_dev_find_locked(NULL, nla_get_u32(index), true);
	else
		dev = txrdma_dev_find_locked(nla_data(name), 0, false);
	if (!dev) {
		NL_SET_ERR_MSG_ATTR(info->extack, index ? index : name,
				    "no such RDMA device");
		return ERR_PTR(-ENODEV);
	}
	if (name && index && strcmp(dev->name, nla_data(name))) {
		NL_SET_ERR_MSG_ATTR(info->extack, name,
				    "device name and index do not match");
		return ERR_PTR(-EINVAL);
	}
	return dev;
}

static int txrdma_nl_dev_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct txrdma_dev *dev;
	struct sk_buff *msg;
	int ret;

	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;

	mutex_lock(&txrdma_devs_lock);
	dev = txrdma_nl_dev_lookup(info);
	if (IS_ERR(dev)) {
		ret = PTR_ERR(dev);
		goto out_unlock;
	}
	ret = txrdma_fill_dev(msg, dev, info->snd_portid, info->snd_seq, 0,
			      TXRDMA_CMD_DEV_GET, true);
out_unlock:
	mutex_unlock(&txrdma_devs_lock);
	if (ret) {
		nlmsg_free(msg);
		return ret;
	}
	return genlmsg_reply(msg, info);
}

/* cb->args[0]: how many devices earlier parts of the dump carried. */
static int txrdma_nl_dev_get_dumpit(struct sk_buff *skb,
				    struct netlink_callback *cb)
{
	struct txrdma_dev *dev;
	long idx = 0, start = cb->args[0];
	int ret = 0;

	mutex_lock(&txrdma_devs_lock);
	list_for_each_entry(dev, &txrdma_devs, node) {
		if (idx++ < start)
			continue;
		ret = txrdma_fill_dev(skb, dev, NETLINK_CB(cb->skb).portid,
				      cb->nlh->nlmsg_seq, NLM_F_MULTI,
				      TXRDMA_CMD_DEV_GET, true);
		if (ret) {
			idx--;
			break;
		}
	}
	mutex_unlock(&txrdma_devs_lock);
	cb->args[0] = idx;
	/* a device that fits in no message at all would loop forever */
	if (ret && idx == start)
		return ret;
	return skb->len;
}

static int txrdma_nl_dev_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *enabled = info->attrs[TXRDMA_A_DEV_ENABLED];
	struct nlattr *cpu = info->attrs[TXRDMA_A_POLLER_CPU];
	struct txrdma_dev *dev;
	bool changed = false;
	int ret = 0;

	if (!enabled && !cpu) {
		NL_SET_ERR_MSG_MOD(info->extack,
				   "nothing to change: no attribute to set");
		return -EINVAL;
	}

	mutex_lock(&txrdma_devs_lock);
	dev = txrdma_nl_dev_lookup(info);
	if (IS_ERR(dev)) {
		ret = PTR_ERR(dev);
		goto out_unlock;
	}
	/*
	 * The one change that can fail goes first: all or nothing.  Applied
	 * even when the value is the same: the scheduler may have moved the
	 * thread off a CPU that went offline, and this binds it again.
	 */
	if (cpu) {
		int old = READ_ONCE(dev->poller->cpu);

		ret = txrdma_poller_set_cpu(dev->poller, nla_get_s32(cpu));
		if (ret) {
			NL_SET_ERR_MSG_ATTR(info->extack, cpu,
					    "poll CPU is not an online CPU");
			goto out_unlock;
		}
		changed = old != nla_get_s32(cpu);
	}
	if (enabled && dev->enabled != !!nla_get_u8(enabled)) {
		dev->enabled = !!nla_get_u8(enabled);
		changed = true;
	}
	if (changed)
		txrdma_nl_notify_dev(dev, TXRDMA_CMD_DEV_SET_NTF);
out_unlock:
	mutex_unlock(&txrdma_devs_lock);
	return ret;
}

static const struct genl_ops txrdma_genl_ops[] = {
	{
		.cmd		= TXRDMA_CMD_DEV_GET,
		.doit		= txrdma_nl_dev_get_doit,
		.dumpit		= txrdma_nl_dev_get_dumpit,
		.policy		= txrdma_dev_get_policy,
		.maxattr	= ARRAY_SIZE(txrdma_dev_get_policy) - 1,
	},
	{
		.cmd		= TXRDMA_CMD_DEV_SET,
		.doit		= txrdma_nl_dev_set_doit,
		.policy		= txrdma_dev_set_policy,
		.maxattr	= ARRAY_SIZE(txrdma_dev_set_policy) - 1,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= TXRDMA_CMD_TENANT_GET,
		.doit		= txrdma_nl_tenant_get_doit,
		.dumpit		= txrdma_nl_tenant_get_dumpit,
		.policy		= txrdma_tenant_get_policy,
		.maxattr	= TXRDMA_TENANT_GET_MAXATTR,
	},
	{
		.cmd		= TXRDMA_CMD_TENANT_NEW,
		.doit		= txrdma_nl_tenant_new_doit,
		.policy		= txrdma_tenant_new_policy,
		.maxattr	= TXRDMA_TENANT_NEW_MAXATTR,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= TXRDMA_CMD_TENANT_SET,
		.doit		= txrdma_nl_tenant_set_doit,
		.policy		= txrdma_tenant_new_policy,
		.maxattr	= TXRDMA_TENANT_NEW_MAXATTR,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= TXRDMA_CMD_TENANT_DEL,
		.doit		= txrdma_nl_tenant_del_doit,
		.policy		= txrdma_tenant_del_policy,
		.maxattr	= TXRDMA_TENANT_DEL_MAXATTR,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= TXRDMA_CMD_PEER_GET,
		.doit		= txrdma_nl_peer_get_doit,
		.dumpit		= txrdma_nl_peer_get_dumpit,
		.policy		= txrdma_peer_get_policy,
		.maxattr	= TXRDMA_PEER_GET_MAXATTR,
	},
	{
		.cmd		= TXRDMA_CMD_PEER_NEW,
		.doit		= txrdma_nl_peer_new_doit,
		.policy		= txrdma_peer_new_policy,
		.maxattr	= TXRDMA_PEER_NEW_MAXATTR,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= TXRDMA_CMD_PEER_SET,
		.doit		= txrdma_nl_peer_set_doit,
		.policy		= txrdma_peer_new_policy,
		.maxattr	= TXRDMA_PEER_NEW_MAXATTR,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= TXRDMA_CMD_PEER_DEL,
		.doit		= txrdma_nl_peer_del_doit,
		.policy		= txrdma_peer_get_policy,
		.maxattr	= TXRDMA_PEER_GET_MAXATTR,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= TXRDMA_CMD_EP_GET,
		.doit		= txrdma_nl_ep_get_doit,
		.dumpit		= txrdma_nl_ep_get_dumpit,
		.policy		= txrdma_ep_get_policy,
		.maxattr	= TXRDMA_EP_GET_MAXATTR,
	},
};

struct genl_family txrdma_genl_family __ro_after_init = {
	.name		= TXRDMA_GENL_NAME,
	.version	= TXRDMA_GENL_VERSION,
	.module		= THIS_MODULE,
	.ops		= txrdma_genl_ops,
	.n_ops		= ARRAY_SIZE(txrdma_genl_ops),
	.resv_start_op	= TXRDMA_CMD_DEV_GET,
	.mcgrps		= txrdma_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(txrdma_mcgrps),
};

int txrdma_nl_init(void)
{
	return genl_register_family(&txrdma_genl_family);
}

void txrdma_nl_exit(void)
{
	genl_unregister_family(&txrdma_genl_family);
}

/* lets "genl ctrl" users autoload the module by family name */
MODULE_ALIAS_GENL_FAMILY(TXRDMA_GENL_NAME);
