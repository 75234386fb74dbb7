// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tenants and their administration over generic netlink.
 *
 * A tenant is bound to a cgroup v2 directory; a process belongs to the
 * tenant of the nearest ancestor of its cgroup that has one, so a
 * database can put helper processes in sub-cgroups.  Limits are
 * countable resources (txrdma_quota.c) and rates (txrdma_tbucket.c);
 * the data path charges them when it takes resources.
 */
#include <linux/ctype.h>
#include <linux/ktime.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "txrdma.h"
#include "txrdma_endpoint.h"
#include "txrdma_region.h"
#include "txrdma_tenant.h"

/* protects txrdma_tenants and the set of tenants; nests outside t->lock */
static DEFINE_MUTEX(txrdma_tenants_lock);
static LIST_HEAD(txrdma_tenants);
static unsigned int txrdma_ntenants;
static u32 txrdma_tenant_next_id = 1;

/* the LIMITS nest: TXRDMA_A_LIMIT_QPS..OPS_BURST, and LISTENERS (later) */
#define TXRDMA_LIMIT_MAXATTR	TXRDMA_A_LIMIT_LISTENERS

static const struct nla_policy txrdma_limits_policy[TXRDMA_LIMIT_MAXATTR + 1] = {
	[TXRDMA_A_LIMIT_QPS]		= { .type = NLA_U64 },
	[TXRDMA_A_LIMIT_ENDPOINTS]	= { .type = NLA_U64 },
	[TXRDMA_A_LIMIT_PINNED_BYTES]	= { .type = NLA_U64 },
	[TXRDMA_A_LIMIT_BW_RATE]	= { .type = NLA_U64 },
	[TXRDMA_A_LIMIT_BW_BURST]	= { .type = NLA_U64 },
	[TXRDMA_A_LIMIT_OPS_RATE]	= { .type = NLA_U64 },
	[TXRDMA_A_LIMIT_OPS_BURST]	= { .type = NLA_U64 },
	[TXRDMA_A_LIMIT_LISTENERS]	= { .type = NLA_U64 },
};

const struct nla_policy txrdma_tenant_get_policy[TXRDMA_TENANT_GET_MAXATTR + 1] = {
	[TXRDMA_A_TENANT_NAME]	= { .type = NLA_NUL_STRING,
				    .len = TXRDMA_TENANT_NAME_MAX - 1 },
};

/* used by both new and set; set refuses a cgroup in its handler */
const struct nla_policy txrdma_tenant_new_policy[TXRDMA_TENANT_NEW_MAXATTR + 1] = {
	[TXRDMA_A_TENANT_NAME]	 = { .type = NLA_NUL_STRING,
				     .len = TXRDMA_TENANT_NAME_MAX - 1 },
	[TXRDMA_A_TENANT_CGROUP] = { .type = NLA_NUL_STRING,
				     .len = TXRDMA_CGROUP_PATH_MAX - 1 },
	[TXRDMA_A_TENANT_PRIO]	 = NLA_POLICY_MAX(NLA_U8, __TXRDMA_PRIO_MAX - 1),
	[TXRDMA_A_TENANT_LIMITS] = NLA_POLICY_NESTED(txrdma_limits_policy),
};

const struct nla_policy txrdma_tenant_del_policy[TXRDMA_TENANT_DEL_MAXATTR + 1] = {
	[TXRDMA_A_TENANT_NAME]	= { .type = NLA_NUL_STRING,
				    .len = TXRDMA_TENANT_NAME_MAX - 1 },
	[TXRDMA_A_TENANT_FORCE]	= { .type = NLA_FLAG },
};

/* limits as parsed from a request: value and whether it was given */
struct txrdma_limits {
	u64 v[TXRDMA_LIMIT_MAXATTR + 1];
	bool set[TXRDMA_LIMIT_MAXATTR + 1];
};

/* the countable limits: their attribute and resource */
static const struct {
	u16 attr;
	u8 res;
} txrdma_limit_res[] = {
	{ TXRDMA_A_LIMIT_QPS,		TXRDMA_RES_QPS },
	{ TXRDMA_A_LIMIT_ENDPOINTS,	TXRDMA_RES_ENDPOINTS },
	{ TXRDMA_A_LIMIT_PINNED_BYTES,	TXRDMA_RES_PINNED },
	{ TXRDMA_A_LIMIT_LISTENERS,	TXRDMA_RES_LISTENERS },
};

/*
 * Limits a tenant gets when the admin names none: pinned memory is
 * what no tenant may take without bound (it cannot be swapped or
 * reclaimed), so it defaults to a quarter of RAM; a process's listened
 * services cost kernel memory and backlogs, so 1024.  The rest defaults
 * to unlimited (endpoints and QPs are bounded by the peers' pools).
 */
#define TXRDMA_DEF_LISTENERS	1024

static u64 txrdma_default_pinned(void)
{
	return ALIGN_DOWN((u64)totalram_pages() << PAGE_SHIFT >> 2,
			  TXRDMA_REGION_HUGE_SIZE);
}

static bool txrdma_tenant_name_ok(const char *name)
{
	const char *p;

	if (!*name)
		return false;
	for (p = name; *p; p++)
		/* isalnum() alone admits Latin-1 letters (0xc0..0xff) */
		if (!isascii(*p) ||
		    (!isalnum(*p) && *p != '_' && *p != '-' && *p != '.'))
			return false;
	return true;
}

/* Parse and check the LIMITS nest; absent nest leaves all unset. */
static int txrdma_limits_parse(struct nlattr *nest, struct txrdma_limits *l,
			       struct netlink_ext_ack *extack)
{
	struct nlattr *tb[TXRDMA_LIMIT_MAXATTR + 1];
	int i, ret;

	memset(l, 0, sizeof(*l));
	if (!nest)
		return 0;
	ret = nla_parse_nested(tb, TXRDMA_LIMIT_MAXATTR, nest,
			       txrdma_limits_policy, extack);
	if (ret)
		return ret;
	for (i = TXRDMA_A_LIMIT_QPS; i <= TXRDMA_LIMIT_MAXATTR; i++) {
		if (!tb[i])
			continue;
		l->set[i] = true;
		l->v[i] = nla_get_u64(tb[i]);
	}
	for (i = TXRDMA_A_LIMIT_BW_RATE; i <= TXRDMA_A_LIMIT_OPS_BURST; i++) {
		if (l->set[i] && !l->v[i]) {
			NL_SET_ERR_MSG_ATTR(extack, tb[i],
					    "a rate or burst of 0 admits nothing: use a positive value or unlimited");
			return -EINVAL;
		}
	}
	return 0;
}

/* Default burst for a rate: 100 ms worth, at least @floor. */
static u64 txrdma_default_burst(u64 rate, u64 floor)
{
	if (rate == TXRDMA_UNLIMITED)
		return TXRDMA_UNLIMITED;
	return max_t(u64, rate / 10, floor);
}

/*
 * Apply rate and burst of one bucket.  A burst needs a rate: without a
 * rate given now or before, it is refused.
 */
static int txrdma_bucket_apply(struct txrdma_tb *tb, struct txrdma_limits *l,
			       int rate_attr, u64 floor, bool dry_run,
			       struct netlink_ext_ack *extack)
{
	u64 rate = l->set[rate_attr] ? l->v[rate_attr] : tb->rate;
	u64 burst = tb->burst;

	if (l->set[rate_attr + 1]) {
		if (rate == TXRDMA_UNLIMITED &&
		    l->v[rate_attr + 1] != TXRDMA_UNLIMITED) {
			NL_SET_ERR_MSG_MOD(extack,
					   "a burst needs a rate: give the rate too");
			return -EINVAL;
		}
		burst = l->v[rate_attr + 1];
	} else if (l->set[rate_attr]) {
		burst = txrdma_default_burst(rate, floor);
	}
	if (!dry_run)
		txrdma_tb_set(tb, rate, burst, ktime_get_ns());
	return 0;
}

static struct txrdma_tenant *txrdma_tenant_find_locked(const char *name)
{
	struct txrdma_tenant *t;

	lockdep_assert_held(&txrdma_tenants_lock);
	list_for_each_entry(t, &txrdma_tenants, node)
		if (!strcmp(t->name, name))
			return t;
	return NULL;
}

static void txrdma_tenant_free(struct txrdma_tenant *t)
{
	/* every service holds a reference: the table is empty */
	xa_destroy(&t->services);
	if (t->cgrp)
		cgroup_put(t->cgrp);
	kfree(t->cgroup_path);
	kfree(t);
}

static void txrdma_tenant_release(struct kref *ref)
{
	txrdma_tenant_free(container_of(ref, struct txrdma_tenant, ref));
}

void txrdma_tenant_put(struct txrdma_tenant *t)
{
	kref_put(&t->ref, txrdma_tenant_release);
}

/*
 * Apply limits (and check them first, so that a refused request
 * changes nothing).  Returns 1 if a countable limit is now below use.
 */
static int txrdma_tenant_apply_limits(struct txrdma_tenant *t,
				      struct txrdma_limits *l,
				      struct netlink_ext_ack *extack)
{
	bool below = false;
	int i, ret;

	ret = txrdma_bucket_apply(&t->bw, l, TXRDMA_A_LIMIT_BW_RATE, SZ_64K,
				  true, extack);
	if (!ret)
		ret = txrdma_bucket_apply(&t->ops, l, TXRDMA_A_LIMIT_OPS_RATE, 1,
					  true, extack);
	if (ret)
		return ret;

	spin_lock_bh(&t->lock);
	for (i = 0; i < ARRAY_SIZE(txrdma_limit_res); i++)
		if (l->set[txrdma_limit_res[i].attr])
			below |= txrdma_quota_set_limit(&t->quota,
							txrdma_limit_res[i].res,
							l->v[txrdma_limit_res[i].attr]);
	txrdma_bucket_apply(&t->bw, l, TXRDMA_A_LIMIT_BW_RATE, SZ_64K, false,
			    NULL);
	txrdma_bucket_apply(&t->ops, l, TXRDMA_A_LIMIT_OPS_RATE, 1, false,
			    NULL);
	spin_unlock_bh(&t->lock);
	return below;
}

static int txrdma_put_u64s(struct sk_buff *skb, int nest_attr,
			   const int *attrs, const u64 *vals, int n)
{
	struct nlattr *nest = nla_nest_start(skb, nest_attr);
	int i;

	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < n; i++) {
		if (nla_put_u64_64bit(skb, attrs[i], vals[i], TXRDMA_A_PAD)) {
			nla_nest_cancel(skb, nest);
			return -EMSGSIZE;
		}
	}
	nla_nest_end(skb, nest);
	return 0;
}

/* LIMITS: all of them; USAGE: the countable ones (the first 4) */
static const int txrdma_limit_attrs[] = {
	TXRDMA_A_LIMIT_QPS, TXRDMA_A_LIMIT_ENDPOINTS,
	TXRDMA_A_LIMIT_PINNED_BYTES, TXRDMA_A_LIMIT_LISTENERS,
	TXRDMA_A_LIMIT_BW_RATE, TXRDMA_A_LIMIT_BW_BURST,
	TXRDMA_A_LIMIT_OPS_RATE, TXRDMA_A_LIMIT_OPS_BURST,
};

/* REFUSED carries the refusal counters, then the throttle counters */
static const int txrdma_refused_attrs[] = {
	TXRDMA_A_LIMIT_QPS, TXRDMA_A_LIMIT_ENDPOINTS,
	TXRDMA_A_LIMIT_PINNED_BYTES, TXRDMA_A_LIMIT_LISTENERS,
	TXRDMA_A_LIMIT_BW_RATE, TXRDMA_A_LIMIT_OPS_RATE,
};

/* Caller holds txrdma_tenants_lock (it nests outside txrdma_eps_lock). */
static int txrdma_tenant_fill(struct sk_buff *skb, struct txrdma_tenant *t,
			      u32 portid, u32 seq, int flags)
{
	u64 limits[8], usage[4], refused[6];
	struct txrdma_ep_stats traffic;
	void *hdr;
	int i;

	txrdma_eps_tenant_traffic(t, &traffic);
	spin_lock_bh(&t->lock);
	for (i = 0; i < ARRAY_SIZE(txrdma_limit_res); i++) {
		limits[i] = t->quota.limit[txrdma_limit_res[i].res];
		usage[i] = t->quota.used[txrdma_limit_res[i].res];
		refused[i] = t->quota.refused[txrdma_limit_res[i].res];
	}
	limits[4] = t->bw.rate;
	limits[5] = t->bw.rate == TXRDMA_UNLIMITED ? TXRDMA_UNLIMITED :
						      t->bw.burst;
	limits[6] = t->ops.rate;
	limits[7] = t->ops.rate == TXRDMA_UNLIMITED ? TXRDMA_UNLIMITED :
						       t->ops.burst;
	refused[4] = t->throttled_bw;
	refused[5] = t->throttled_ops;
	spin_unlock_bh(&t->lock);

	hdr = genlmsg_put(skb, portid, seq, &txrdma_genl_family, flags,
			  TXRDMA_CMD_TENANT_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_string(skb, TXRDMA_A_TENANT_NAME, t->name) ||
	    nla_put_u32(skb, TXRDMA_A_TENANT_ID, t->id) ||
	    nla_put_string(skb, TXRDMA_A_TENANT_CGROUP, t->cgroup_path) ||
	    nla_put_u8(skb, TXRDMA_A_TENANT_PRIO, t->prio) ||
	    txrdma_put_u64s(skb, TXRDMA_A_TENANT_LIMITS, txrdma_limit_attrs,
			    limits, ARRAY_SIZE(limits)) ||
	    txrdma_put_u64s(skb, TXRDMA_A_TENANT_USAGE, txrdma_limit_attrs,
			    usage, ARRAY_SIZE(usage)) ||
	    txrdma_put_u64s(skb, TXRDMA_A_TENANT_REFUSED, txrdma_refused_attrs,
			    refused, ARRAY_SIZE(refused)) ||
	    txrdma_nl_put_stats(skb, TXRDMA_A_TENANT_TRAFFIC, &traffic)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

static struct txrdma_tenant *txrdma_nl_tenant_lookup(struct genl_info *info)
{
	struct nlattr *name = info->attrs[TXRDMA_A_TENANT_NAME];
	struct txrdma_tenant *t;

	if (!name) {
		NL_SET_ERR_MSG_MOD(info->extack, "tenant name is required");
		return ERR_PTR(-EINVAL);
	}
	t = txrdma_tenant_find_locked(nla_data(name));
	if (!t) {
		NL_SET_ERR_MSG_ATTR(info->extack, name, "no such tenant");
		return ERR_PTR(-ENOENT);
	}
	return t;
}

/**
 * txrdma_nl_scope() - what a read-only netlink request may see
 * @skb: the request (of a do, or the dump's)
 *
 * Reads are open to every user, as "ip link show" is, but tenants are
 * namespaces: without CAP_NET_ADMIN a caller sees its own tenant and
 * its endpoints only, not other tenants' names, cgroups, QPs and
 * traffic.  Not under txrdma_tenants_lock (it takes it).
 *
 * Return: NULL for an admin (everything); else the caller's tenant,
 * referenced, or ERR_PTR(-EPERM) when it has none (it sees nothing).
 * Release with txrdma_nl_scope_put().
 */
struct txrdma_tenant *txrdma_nl_scope(struct sk_buff *skb)
{
	if (netlink_capable(skb, CAP_NET_ADMIN))
		return NULL;
	return txrdma_tenant_get_current();
}

void txrdma_nl_scope_put(struct txrdma_tenant *scope)
{
	if (!IS_ERR_OR_NULL(scope))
		txrdma_tenant_put(scope);
}

int txrdma_nl_tenant_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct txrdma_tenant *t, *scope;
	struct sk_buff *msg;
	int ret;

	/* the cgroup path alone may be 4 KiB */
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE + TXRDMA_CGROUP_PATH_MAX,
			  GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	scope = txrdma_nl_scope(skb);
	mutex_lock(&txrdma_tenants_lock);
	t = txrdma_nl_tenant_lookup(info);
	/* another tenant does not exist for this caller */
	if (!IS_ERR(t) && scope && t != scope) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    info->attrs[TXRDMA_A_TENANT_NAME],
				    "no such tenant");
		t = ERR_PTR(-ENOENT);
	}
	ret = IS_ERR(t) ? PTR_ERR(t) :
	      txrdma_tenant_fill(msg, t, info->snd_portid, info->snd_seq, 0);
	mutex_unlock(&txrdma_tenants_lock);
	txrdma_nl_scope_put(scope);
	if (ret) {
		nlmsg_free(msg);
		return ret;
	}
	return genlmsg_reply(msg, info);
}

/* cb->args[0]: id of the last tenant dumped (ids only grow). */
int txrdma_nl_tenant_get_dumpit(struct sk_buff *skb,
				struct netlink_callback *cb)
{
	struct txrdma_tenant *t, *scope = txrdma_nl_scope(cb->skb);
	int ret = 0, n = 0;

	mutex_lock(&txrdma_tenants_lock);
	list_for_each_entry(t, &txrdma_tenants, node) {
		if (t->id <= cb->args[0] || (scope && t != scope))
			continue;
		ret = txrdma_tenant_fill(skb, t, NETLINK_CB(cb->skb).portid,
					 cb->nlh->nlmsg_seq, NLM_F_MULTI);
		if (ret)
			break;
		cb->args[0] = t->id;
		n++;
	}
	mutex_unlock(&txrdma_tenants_lock);
	txrdma_nl_scope_put(scope);
	if (ret && !n)
		return ret;
	return skb->len;
}

int txrdma_nl_tenant_new_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *name = info->attrs[TXRDMA_A_TENANT_NAME];
	struct nlattr *path = info->attrs[TXRDMA_A_TENANT_CGROUP];
	struct netlink_ext_ack *extack = info->extack;
	struct txrdma_tenant *t, *o;
	struct txrdma_limits l;
	int ret;

	if (!name || !path) {
		NL_SET_ERR_MSG_MOD(extack, "tenant name and cgroup are required");
		return -EINVAL;
	}
	if (!txrdma_tenant_name_ok(nla_data(name))) {
		NL_SET_ERR_MSG_ATTR(extack, name,
				    "tenant names are 1-31 of A-Z a-z 0-9 _ - .");
		return -EINVAL;
	}
	if (*(char *)nla_data(path) != '/') {
		NL_SET_ERR_MSG_ATTR(extack, path,
				    "cgroup path must start with / (relative to the cgroup2 mount)");
		return -EINVAL;
	}
	ret = txrdma_limits_parse(info->attrs[TXRDMA_A_TENANT_LIMITS], &l,
				  extack);
	if (ret)
		return ret;

	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	/* before any failure: txrdma_tenant_free() destroys them */
	kref_init(&t->ref);
	INIT_LIST_HEAD(&t->regions);
	xa_init(&t->services);
	spin_lock_init(&t->lock);
	strscpy(t->name, nla_data(name), sizeof(t->name));
	t->cgroup_path = kstrdup(nla_data(path), GFP_KERNEL);
	if (!t->cgroup_path) {
		ret = -ENOMEM;
		goto out_free;
	}
	t->cgrp = cgroup_get_from_path(t->cgroup_path);
	if (IS_ERR(t->cgrp)) {
		ret = PTR_ERR(t->cgrp);
		t->cgrp = NULL;
		NL_SET_ERR_MSG_ATTR(extack, path, "no such cgroup v2 directory");
		goto out_free;
	}
	t->prio = info->attrs[TXRDMA_A_TENANT_PRIO] ?
		  nla_get_u8(info->attrs[TXRDMA_A_TENANT_PRIO]) :
		  TXRDMA_PRIO_NORMAL;
	txrdma_quota_init(&t->quota);
	/* safe defaults, unless the admin said otherwise just now */
	txrdma_quota_set_limit(&t->quota, TXRDMA_RES_PINNED,
			       txrdma_default_pinned());
	txrdma_quota_set_limit(&t->quota, TXRDMA_RES_LISTENERS,
			       TXRDMA_DEF_LISTENERS);
	txrdma_tb_init(&t->bw, TXRDMA_TB_UNLIMITED, TXRDMA_UNLIMITED,
		       ktime_get_ns());
	txrdma_tb_init(&t->ops, TXRDMA_TB_UNLIMITED, TXRDMA_UNLIMITED,
		       ktime_get_ns());
	ret = txrdma_tenant_apply_limits(t, &l, extack);
	if (ret < 0)
		goto out_free;

	mutex_lock(&txrdma_tenants_lock);
	if (txrdma_tenant_find_locked(t->name)) {
		NL_SET_ERR_MSG_ATTR(extack, name, "a tenant of that name exists");
		ret = -EEXIST;
		goto out_unlock;
	}
	list_for_each_entry(o, &txrdma_tenants, node) {
		if (o->cgrp == t->cgrp) {
			NL_SET_ERR_MSG_ATTR(extack, path,
					    "that cgroup belongs to another tenant");
			ret = -EEXIST;
			goto out_unlock;
		}
	}
	if (txrdma_ntenants >= TXRDMA_MAX_TENANTS) {
		NL_SET_ERR_MSG_MOD(extack, "too many tenants");
		ret = -ENOSPC;
		goto out_unlock;
	}
	t->id = txrdma_tenant_next_id++;
	list_add_tail(&t->node, &txrdma_tenants);
	txrdma_ntenants++;
	mutex_unlock(&txrdma_tenants_lock);
	return 0;

out_unlock:
	mutex_unlock(&txrdma_tenants_lock);
out_free:
	txrdma_tenant_free(t);	/* never published: no other reference */
	return ret;
}

int txrdma_nl_tenant_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr *prio = info->attrs[TXRDMA_A_TENANT_PRIO];
	struct txrdma_tenant *t;
	struct txrdma_limits l;
	int ret;

	if (info->attrs[TXRDMA_A_TENANT_CGROUP]) {
		NL_SET_ERR_MSG_ATTR(extack, info->attrs[TXRDMA_A_TENANT_CGROUP],
				    "a tenant's cgroup cannot change: delete and add it");
		return -EOPNOTSUPP;
	}
	ret = txrdma_limits_parse(info->attrs[TXRDMA_A_TENANT_LIMITS], &l,
				  extack);
	if (ret)
		return ret;

	mutex_lock(&txrdma_tenants_lock);
	t = txrdma_nl_tenant_lookup(info);
	if (IS_ERR(t)) {
		ret = PTR_ERR(t);
		goto out_unlock;
	}
	ret = txrdma_tenant_apply_limits(t, &l, extack);
	if (ret < 0)
		goto out_unlock;
	if (ret > 0)
		/* not an error: reported in the ack */
		NL_SET_ERR_MSG_MOD(extack,
				   "a limit is below current use: it applies to new requests");
	if (prio)
		t->prio = nla_get_u8(prio);
	ret = 0;
out_unlock:
	mutex_unlock(&txrdma_tenants_lock);
	return ret;
}

int txrdma_nl_tenant_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct txrdma_tenant *t;
	bool force;
	int ret = 0;

	mutex_lock(&txrdma_tenants_lock);
	t = txrdma_nl_tenant_lookup(info);
	if (IS_ERR(t)) {
		ret = PTR_ERR(t);
		goto out_unlock;
	}
	force = nla_get_flag(info->attrs[TXRDMA_A_TENANT_FORCE]);
	/*
	 * Forced: its endpoints lose their QPs before its regions lose
	 * their registrations, so that no SQE resolved just before is
	 * posted with a key that is being deregistered (and may be
	 * reused); the revocation after catches endpoints made meanwhile.
	 */
	if (force)
		txrdma_eps_tenant_revoke(t);
	/*
	 * The busy check and the end of charging are one step, so that a
	 * region being created now is either seen (busy, or revoked) or
	 * refused; then the tenant is unlisted.
	 */
	ret = txrdma_regions_tenant_delete(t, force);
	if (ret) {
		NL_SET_ERR_MSG_MOD(info->extack,
				   "tenant holds resources: release them or delete with force");
		goto out_unlock;
	}
	/* endpoints of a force-deleted tenant lose their QPs */
	txrdma_eps_tenant_revoke(t);
	list_del(&t->node);
	txrdma_ntenants--;
	txrdma_tenant_put(t);
out_unlock:
	mutex_unlock(&txrdma_tenants_lock);
	return ret;
}

/**
 * txrdma_tenant_of_current() - id and name of the caller's tenant
 * @id: its id
 * @name: buffer for its name
 * @len: size of @name
 *
 * Return: 0, or -EPERM when the process belongs to no tenant.
 */
int txrdma_tenant_of_current(u32 *id, u8 *name, size_t len)
{
	struct txrdma_tenant *t = txrdma_tenant_get_current();

	if (IS_ERR(t))
		return PTR_ERR(t);
	*id = t->id;
	strscpy((char *)name, t->name, len);
	txrdma_tenant_put(t);
	return 0;
}

/**
 * txrdma_tenant_get_name() - a live tenant by name, referenced
 * @name: its name (at most TXRDMA_TENANT_NAME_MAX bytes are read)
 *
 * Return: the tenant (txrdma_tenant_put()), or NULL.
 */
struct txrdma_tenant *txrdma_tenant_get_name(const char *name)
{
	struct txrdma_tenant *t, *found = NULL;

	mutex_lock(&txrdma_tenants_lock);
	list_for_each_entry(t, &txrdma_tenants, node) {
		if (!strncmp(t->name, name, sizeof(t->name))) {
			found = t;
			kref_get(&t->ref);
			break;
		}
	}
	mutex_unlock(&txrdma_tenants_lock);
	return found;
}

/**
 * txrdma_tenant_get_current() - the calling process's tenant, referenced
 *
 * Return: the tenant (release with txrdma_tenant_put()), or
 * ERR_PTR(-EPERM) when the process belongs to no tenant.
 */
struct txrdma_tenant *txrdma_tenant_get_current(void)
{
	struct txrdma_tenant *t, *found = NULL;
	struct cgroup *cg;

	mutex_lock(&txrdma_tenants_lock);
	rcu_read_lock();
	for (cg = task_dfl_cgroup(current); cg && !found;
	     cg = cgroup_parent(cg)) {
		list_for_each_entry(t, &txrdma_tenants, node) {
			if (t->cgrp == cg) {
				found = t;
				kref_get(&t->ref);
				break;
			}
		}
	}
	rcu_read_unlock();
	mutex_unlock(&txrdma_tenants_lock);
	return found ? found : ERR_PTR(-EPERM);
}

/* At module exit no file is open, so no region holds a tenant. */
void txrdma_tenants_exit(void)
{
	struct txrdma_tenant *t, *tmp;

	mutex_lock(&txrdma_tenants_lock);
	list_for_each_entry_safe(t, tmp, &txrdma_tenants, node) {
		list_del(&t->node);
		txrdma_tenant_put(t);
	}
	txrdma_ntenants = 0;
	mutex_unlock(&txrdma_tenants_lock);
}
