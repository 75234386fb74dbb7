// SPDX-License-Identifier: GPL-2.0-only
/*
 * Endpoints over generic netlink: TXRDMA_CMD_EP_GET reports each
 * endpoint's tenant, peer, pairing state and counters.
 *
 * Open to every user, as the other GETs are, but scoped: a caller
 * without CAP_NET_ADMIN sees only its own tenant's endpoints (another
 * tenant's do not exist for it: -ENOENT), and none outside a tenant.
 * A do names one endpoint
 * by TXRDMA_A_EP_ID; a dump lists them all in the order of their ids,
 * filtered by TXRDMA_A_EP_TENANT and/or TXRDMA_A_EP_ID when given.
 * Endpoints can be many: each part of a dump holds txrdma_eps_lock only
 * for what fits in it and the next part resumes after the last id
 * sent, so endpoints that come and go meanwhile are seen or not, but
 * none is sent twice.
 */
#include <net/genetlink.h>

#include "txrdma.h"
#include "txrdma_endpoint.h"
#include "txrdma_tenant.h"

const struct nla_policy txrdma_ep_get_policy[TXRDMA_EP_GET_MAXATTR + 1] = {
	[TXRDMA_A_EP_ID]	= NLA_POLICY_MIN(NLA_U32, 1),
	[TXRDMA_A_EP_TENANT]	= { .type = NLA_NUL_STRING,
				    .len = TXRDMA_TENANT_NAME_MAX - 1 },
};

/* where each TXRDMA_A_STAT_* is in struct txrdma_ep_stats */
static const struct {
	u16 attr;
	u16 off;
} txrdma_stat_attrs[] = {
	{ TXRDMA_A_STAT_TX_MSGS, offsetof(struct txrdma_ep_stats, tx_msgs) },
	{ TXRDMA_A_STAT_TX_BYTES, offsetof(struct txrdma_ep_stats, tx_bytes) },
	{ TXRDMA_A_STAT_RX_MSGS, offsetof(struct txrdma_ep_stats, rx_msgs) },
	{ TXRDMA_A_STAT_RX_BYTES, offsetof(struct txrdma_ep_stats, rx_bytes) },
	{ TXRDMA_A_STAT_RW_OPS, offsetof(struct txrdma_ep_stats, rw_ops) },
	{ TXRDMA_A_STAT_RW_BYTES, offsetof(struct txrdma_ep_stats, rw_bytes) },
	{ TXRDMA_A_STAT_CREDIT_STALLS,
	  offsetof(struct txrdma_ep_stats, credit_stalls) },
	{ TXRDMA_A_STAT_CREDIT_UPDATES,
	  offsetof(struct txrdma_ep_stats, credit_updates) },
	{ TXRDMA_A_STAT_SLOT_STALLS,
	  offsetof(struct txrdma_ep_stats, slot_stalls) },
	{ TXRDMA_A_STAT_THROTTLED,
	  offsetof(struct txrdma_ep_stats, throttled) },
	{ TXRDMA_A_STAT_ERR_CRC, offsetof(struct txrdma_ep_stats, err_crc) },
	{ TXRDMA_A_STAT_ERR_SEQ, offsetof(struct txrdma_ep_stats, err_seq) },
	{ TXRDMA_A_STAT_ERR_PROTO, offsetof(struct txrdma_ep_stats, err_proto) },
	{ TXRDMA_A_STAT_ERR_QP, offsetof(struct txrdma_ep_stats, err_qp) },
	{ TXRDMA_A_STAT_ERR_SQE, offsetof(struct txrdma_ep_stats, err_sqe) },
	/* later: not consecutive with the others */
	{ TXRDMA_A_STAT_TX_COALESCED,
	  offsetof(struct txrdma_ep_stats, tx_coalesced) },
	{ TXRDMA_A_STAT_RX_BATCHES,
	  offsetof(struct txrdma_ep_stats, rx_batches) },
	{ TXRDMA_A_STAT_TX_RESENT,
	  offsetof(struct txrdma_ep_stats, tx_resent) },
	{ TXRDMA_A_STAT_RESUMES, offsetof(struct txrdma_ep_stats, resumes) },
	{ TXRDMA_A_STAT_PATH_MOVES,
	  offsetof(struct txrdma_ep_stats, path_moves) },
};

static_assert(ARRAY_SIZE(txrdma_stat_attrs) == TXRDMA_EP_NR_STATS);

/* the module's pairing states as the ABI numbers them */
static const u8 txrdma_ep_states[] = {
	[TXRDMA_EP_PLAIN]	= TXRDMA_EP_STATE_PLAIN,
	[TXRDMA_EP_CONNECTING]	= TXRDMA_EP_STATE_CONNECTING,
	[TXRDMA_EP_CONNECTED]	= TXRDMA_EP_STATE_CONNECTED,
	[TXRDMA_EP_REJECTED]	= TXRDMA_EP_STATE_REJECTED,
	[TXRDMA_EP_CLOSED]	= TXRDMA_EP_STATE_CLOSED,
};

/**
 * txrdma_nl_put_stats() - put a nest of TXRDMA_A_STAT_* counters
 * @skb: message
 * @nest_attr: TXRDMA_A_EP_STATS or TXRDMA_A_TENANT_TRAFFIC
 * @st: the counters
 *
 * Return: 0 or -EMSGSIZE (the nest is cancelled).
 */
int txrdma_nl_put_stats(struct sk_buff *skb, int nest_attr,
			const struct txrdma_ep_stats *st)
{
	struct nlattr *nest;
	unsigned int i;
	u64 v;

	nest = nla_nest_start(skb, nest_attr);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < ARRAY_SIZE(txrdma_stat_attrs); i++) {
		v = *(const u64 *)((const u8 *)st + txrdma_stat_attrs[i].off);
		if (nla_put_u64_64bit(skb, txrdma_stat_attrs[i].attr, v,
				      TXRDMA_A_PAD)) {
			nla_nest_cancel(skb, nest);
			return -EMSGSIZE;
		}
	}
	nla_nest_end(skb, nest);
	return 0;
}

/* the module's session phases as the ABI numbers them */
static const u8 txrdma_ep_sessions[] = {
	[TXRDMA_SESS_UP]	= TXRDMA_EP_SESSION_UP,
	[TXRDMA_SESS_DRAINING]	= TXRDMA_EP_SESSION_DRAINING,
	[TXRDMA_SESS_WAITING]	= TXRDMA_EP_SESSION_WAITING,
	[TXRDMA_SESS_RESUMING]	= TXRDMA_EP_SESSION_RESUMING,
	[TXRDMA_SESS_FAILED]	= TXRDMA_EP_SESSION_FAILED,
};

/* where a session stands and through which path: "ep show" */
static int txrdma_ep_fill_session(struct sk_buff *skb,
				  const struct txrdma_ep_snap *s)
{
	u8 phase = TXRDMA_EP_SESSION_FAILED;

	if (s->sess_state < ARRAY_SIZE(txrdma_ep_sessions))
		phase = txrdma_ep_sessions[s->sess_state];
	return nla_put_u8(skb, TXRDMA_A_EP_SESSION, phase) ||
	       nla_put_u32(skb, TXRDMA_A_EP_GRACE_MS, s->grace_ms) ||
	       nla_put_string(skb, TXRDMA_A_EP_PATH, s->path);
}

static int txrdma_ep_fill(struct sk_buff *skb, const struct txrdma_ep_snap *s,
			  u32 portid, u32 seq, int flags)
{
	u8 state = TXRDMA_EP_STATE_CLOSED;
	void *hdr;

	if (s->dstate < ARRAY_SIZE(txrdma_ep_states))
		state = txrdma_ep_states[s->dstate];
	hdr = genlmsg_put(skb, portid, seq, &txrdma_genl_family, flags,
			  TXRDMA_CMD_EP_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, TXRDMA_A_EP_ID, s->id) ||
	    nla_put_string(skb, TXRDMA_A_EP_TENANT, s->tenant) ||
	    nla_put_string(skb, TXRDMA_A_EP_PEER, s->peer) ||
	    nla_put_u8(skb, TXRDMA_A_EP_STATE, state) ||
	    nla_put_u32(skb, TXRDMA_A_EP_SERVICE, s->service) ||
	    nla_put_u32(skb, TXRDMA_A_EP_PEER_EP, s->peer_ep) ||
	    nla_put_u32(skb, TXRDMA_A_EP_QPN, s->qp_num) ||
	    nla_put_s32(skb, TXRDMA_A_EP_ERROR, s->error) ||
	    txrdma_nl_put_stats(skb, TXRDMA_A_EP_STATS, &s->stats) ||
	    (s->session && txrdma_ep_fill_session(skb, s))) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

int txrdma_nl_ep_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tenant = info->attrs[TXRDMA_A_EP_TENANT];
	struct nlattr *id = info->attrs[TXRDMA_A_EP_ID];
	struct txrdma_tenant *scope;
	struct txrdma_ep_snap s;
	struct sk_buff *msg;
	int ret;

	if (!id) {
		NL_SET_ERR_MSG_MOD(info->extack,
				   "endpoint id is required (or dump them all)");
		return -EINVAL;
	}
	scope = txrdma_nl_scope(skb);
	ret = txrdma_ep_snap_id(nla_get_u32(id), &s);
	/* another tenant's endpoint does not exist for this caller */
	if (!ret && scope && s.owner != (IS_ERR(scope) ? NULL : scope))
		ret = -ENOENT;
	txrdma_nl_scope_put(scope);
	if (ret) {
		NL_SET_ERR_MSG_ATTR(info->extack, id, "no such endpoint");
		return ret;
	}
	if (tenant && strcmp(s.tenant, nla_data(tenant))) {
		NL_SET_ERR_MSG_ATTR(info->extack, tenant,
				    "the endpoint belongs to another tenant");
		return -ENOENT;
	}
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	ret = txrdma_ep_fill(msg, &s, info->snd_portid, info->snd_seq, 0);
	if (ret) {
		nlmsg_free(msg);
		return ret;
	}
	return genlmsg_reply(msg, info);
}

struct txrdma_ep_dump {
	struct sk_buff *skb;
	struct netlink_callback *cb;
	const char *tenant;	/* only this tenant's, or NULL */
	struct txrdma_tenant *scope;	/* all the caller may see: NULL for
					 * everything, else its tenant or an
					 * ERR_PTR (nothing)
					 */
	u32 only;		/* only this id, or 0 */
	u32 next;		/* the id to resume at */
	unsigned int n;		/* endpoints put in this part */
};

/* Called under txrdma_eps_lock for each endpoint from the resume point. */
static int txrdma_ep_dump_one(const struct txrdma_ep_snap *s, void *arg)
{
	struct txrdma_ep_dump *d = arg;
	int ret;

	if (d->only && s->id != d->only)
		return 1;	/* past it: the dump is complete */
	if ((!d->scope || s->owner == d->scope) &&
	    (!d->tenant || !strcmp(s->tenant, d->tenant))) {
		ret = txrdma_ep_fill(d->skb, s,
				     NETLINK_CB(d->cb->skb).portid,
				     d->cb->nlh->nlmsg_seq, NLM_F_MULTI);
		if (ret)
			return ret;	/* full: the next part starts here */
		d->n++;
	}
	d->next = s->id + 1;
	return 0;
}

/* cb->args[0]: the id the next part starts at (ids are below 2^31). */
int txrdma_nl_ep_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	const struct genl_dumpit_info *info = genl_dumpit_info(cb);
	struct nlattr *tenant = info->attrs[TXRDMA_A_EP_TENANT];
	struct nlattr *id = info->attrs[TXRDMA_A_EP_ID];
	struct txrdma_ep_dump d = {
		.skb	= skb,
		.cb	= cb,
		.tenant	= tenant ? nla_data(tenant) : NULL,
		.only	= id ? nla_get_u32(id) : 0,
		.next	= cb->args[0],
	};
	int ret;

	if (d.only && d.next < d.only)
		d.next = d.only;
	d.scope = txrdma_nl_scope(cb->skb);
	ret = IS_ERR(d.scope) ? 0 :
	      txrdma_eps_walk(d.next, txrdma_ep_dump_one, &d);
	txrdma_nl_scope_put(d.scope);
	cb->args[0] = d.next;
	/* an endpoint that fits in no message at all would loop forever */
	if (ret < 0 && !d.n)
		return ret;
	return skb->len;
}
