/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Tenant helpers shared by the txrdma selftests: TENANT_NEW/SET/DEL/GET
 * over the "txrdma" netlink family (through nlmini) and cgroup v2
 * membership.
 */
#ifndef _TXRDMA_TENANT_UTIL_H
#define _TXRDMA_TENANT_UTIL_H

#include <stdint.h>

#include <linux/txrdma.h>

#include "nlmini.h"

/* Index of a TXRDMA_A_LIMIT_* attribute in tenant.limits/usage/refused. */
#define TENANT_LIM(attr)	((attr) - TXRDMA_A_LIMIT_QPS)

/* One tenant as TXRDMA_CMD_TENANT_GET reports it. */
struct tenant {
	char name[32];
	char cgroup[256];
	uint32_t id;
	uint8_t prio;
	uint64_t limits[8];	/* index: TENANT_LIM(attr) */
	uint64_t usage[3];	/* QPS, ENDPOINTS, PINNED_BYTES */
	uint64_t refused[5];	/* QPS, ENDPOINTS, PINNED_BYTES, BW, OPS */
};

/* A u64 counter missing from a nest reads as this. */
#define TENANT_MISSING		(~0ULL - 1)

struct tenant_list {
	int n;
	struct tenant *t;	/* up to cap */
	int cap;
};

int dump_tenants(struct nlmini *nl, struct tenant_list *l);
/* Number of tenants, or -errno. */
int count_tenants(struct nlmini *nl);
/* 0, or -errno (-ENOENT: no such tenant). */
int get_tenant(struct nlmini *nl, const char *name, struct tenant *t);

void tenant_put_u64(struct nlmini_msg *m, uint16_t type, uint64_t v);

/*
 * Send @cmd with the attributes given (NULL or prio < 0: left out).
 * @limits: pairs of (TXRDMA_A_LIMIT_* attr, value), terminated by attr 0.
 * Returns 0 or -errno; nl->extack holds the kernel's message.
 */
int tenant_op(struct nlmini *nl, uint8_t cmd, const char *name,
	      const char *cgroup, int prio, const uint64_t *limits);
int tenant_del(struct nlmini *nl, const char *name);
/* TENANT_DEL with TXRDMA_A_TENANT_FORCE. */
int tenant_del_force(struct nlmini *nl, const char *name);

/* Move the calling process into the cgroup directory @dir: 0 or -errno. */
int cg_enter(const char *dir);

#endif
