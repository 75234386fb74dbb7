/* SPDX-License-Identifier: GPL-2.0-only */
/* Tenants: who owns data-path resources, and their limits. */
#ifndef _TXRDMA_TENANT_H
#define _TXRDMA_TENANT_H

#include <linux/cgroup.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/xarray.h>
#include <net/genetlink.h>

#include "txrdma_endpoint.h"
#include "txrdma_quota.h"
#include "txrdma_tbucket.h"

#define TXRDMA_MAX_TENANTS	4096

/**
 * struct txrdma_tenant - one tenant
 * @node: entry in the tenant list (txrdma_tenants_lock)
 * @ref: the list's reference and one per region; the structure outlives
 *	its deletion until its last region is freed
 * @regions: its regions (txrdma_regions_lock), for forced deletion
 * @services: its listened services by number (txrdma_service.c)
 * @nregions: live regions, from allocation until freed (txrdma_regions_lock)
 * @dead: deleted: nothing more may be charged or published (set under
 *	both txrdma_regions_lock and @lock)
 * @id: assigned at creation, never reused while the module is loaded
 * @name: admin-chosen name
 * @cgroup_path: the cgroup v2 directory as the admin gave it
 * @cgrp: that cgroup, referenced for the tenant's lifetime
 * @prio: enum txrdma_prio
 * @lock: protects @quota, @bw, @ops, the throttle counters and @retired
 * @quota: countable resources (QPs, endpoints, pinned bytes)
 * @bw: bandwidth bucket, bytes; rate TXRDMA_TB_UNLIMITED when unlimited
 * @ops: operation bucket
 * @throttled_bw: requests that had to wait for @bw
 * @throttled_ops: requests that had to wait for @ops
 * @retired: counters of its endpoints that are gone (their live ones
 *	are summed by txrdma_eps_tenant_traffic())
 */
struct txrdma_tenant {
	struct list_head node;
	struct kref ref;
	struct list_head regions;
	struct xarray services;
	unsigned int nregions;
	bool dead;
	u32 id;
	char name[TXRDMA_TENANT_NAME_MAX];
	char *cgroup_path;
	struct cgroup *cgrp;
	u8 prio;
	spinlock_t lock;	/* quota, buckets, counters; design.rst "Lock order" */
	struct txrdma_quota quota;
	struct txrdma_tb bw;
	struct txrdma_tb ops;
	u64 throttled_bw;
	u64 throttled_ops;
	struct txrdma_ep_stats retired;
};

void txrdma_tenants_exit(void);
int txrdma_tenant_of_current(u32 *id, u8 *name, size_t len);
struct txrdma_tenant *txrdma_tenant_get_current(void);
struct txrdma_tenant *txrdma_tenant_get_name(const char *name);
struct txrdma_tenant *txrdma_nl_scope(struct sk_buff *skb);
void txrdma_nl_scope_put(struct txrdma_tenant *scope);
void txrdma_tenant_put(struct txrdma_tenant *t);

int txrdma_nl_tenant_get_doit(struct sk_buff *skb, struct genl_info *info);
int txrdma_nl_tenant_get_dumpit(struct sk_buff *skb,
				struct netlink_callback *cb);
int txrdma_nl_tenant_new_doit(struct sk_buff *skb, struct genl_info *info);
int txrdma_nl_tenant_set_doit(struct sk_buff *skb, struct genl_info *info);
int txrdma_nl_tenant_del_doit(struct sk_buff *skb, struct genl_info *info);

extern const struct nla_policy txrdma_tenant_get_policy[];
extern const struct nla_policy txrdma_tenant_new_policy[];
extern const struct nla_policy txrdma_tenant_del_policy[];
#define TXRDMA_TENANT_GET_MAXATTR	TXRDMA_A_TENANT_NAME
#define TXRDMA_TENANT_NEW_MAXATTR	TXRDMA_A_TENANT_LIMITS
#define TXRDMA_TENANT_DEL_MAXATTR	TXRDMA_A_TENANT_FORCE

#endif /* _TXRDMA_TENANT_H */
