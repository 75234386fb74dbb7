/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Per-tenant accounting of countable resources (queue pairs, endpoints,
 * pinned bytes, listened services): pure arithmetic, KUnit-tested on UML.  The caller
 * serialises access (the tenant's lock).
 */
#ifndef _TXRDMA_QUOTA_H
#define _TXRDMA_QUOTA_H

#include <linux/types.h>

enum txrdma_res {
	TXRDMA_RES_QPS,
	TXRDMA_RES_ENDPOINTS,
	TXRDMA_RES_PINNED,
	TXRDMA_RES_LISTENERS,
	TXRDMA_NR_RES
};

/**
 * struct txrdma_quota - limits, use and refusals of one tenant
 * @limit: most that may be in use; U64_MAX is unlimited
 * @used: in use now
 * @refused: requests refused because they would exceed @limit
 */
struct txrdma_quota {
	u64 limit[TXRDMA_NR_RES];
	u64 used[TXRDMA_NR_RES];
	u64 refused[TXRDMA_NR_RES];
};

void txrdma_quota_init(struct txrdma_quota *q);
int txrdma_quota_charge(struct txrdma_quota *q, enum txrdma_res r, u64 n);
int txrdma_quota_charge_all(struct txrdma_quota *q,
			    const u64 n[TXRDMA_NR_RES]);
int txrdma_quota_uncharge(struct txrdma_quota *q, enum txrdma_res r, u64 n);
bool txrdma_quota_set_limit(struct txrdma_quota *q, enum txrdma_res r,
			    u64 limit);
bool txrdma_quota_in_use(const struct txrdma_quota *q);
const char *txrdma_res_name(enum txrdma_res r);

#endif /* _TXRDMA_QUOTA_H */
