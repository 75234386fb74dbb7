// SPDX-License-Identifier: GPL-2.0-only
/*
 * Resource accounting for tenants.
 *
 * A charge either fits entirely or changes nothing but the refusal
 * counter: a request over a limit must leave no trace in use.  Sums are
 * overflow-checked, so a huge request is refused, never wrapped into a
 * small one.  Lowering a limit below current use is allowed (an admin
 * may shrink a tenant); it applies to new charges, and the caller is
 * told so that it can report it.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/overflow.h>

#include "txrdma_quota.h"

static const char * const txrdma_res_names[TXRDMA_NR_RES] = {
	[TXRDMA_RES_QPS]	= "qps",
	[TXRDMA_RES_ENDPOINTS]	= "endpoints",
	[TXRDMA_RES_PINNED]	= "pinned",
	[TXRDMA_RES_LISTENERS]	= "listeners",
};

const char *txrdma_res_name(enum txrdma_res r)
{
	return r < TXRDMA_NR_RES ? txrdma_res_names[r] : "unknown";
}

/**
 * txrdma_quota_init() - no limits, nothing used or refused
 * @q: quota
 */
void txrdma_quota_init(struct txrdma_quota *q)
{
	int r;

	for (r = 0; r < TXRDMA_NR_RES; r++) {
		q->limit[r] = U64_MAX;
		q->used[r] = 0;
		q->refused[r] = 0;
	}
}

static bool txrdma_quota_fits(const struct txrdma_quota *q,
			      enum txrdma_res r, u64 n)
{
	u64 sum;

	if (check_add_overflow(q->used[r], n, &sum))
		return false;
	return sum <= q->limit[r];
}

/**
 * txrdma_quota_charge() - take @n units of @r if they fit
 * @q: quota
 * @r: resource
 * @n: units (objects or bytes)
 *
 * Return: 0, -EDQUOT (refusal counted) or -EINVAL for a bad @r.
 */
int txrdma_quota_charge(struct txrdma_quota *q, enum txrdma_res r, u64 n)
{
	if (r >= TXRDMA_NR_RES)
		return -EINVAL;
	if (!txrdma_quota_fits(q, r, n)) {
		q->refused[r]++;
		return -EDQUOT;
	}
	q->used[r] += n;
	return 0;
}

/**
 * txrdma_quota_charge_all() - take several resources, all or nothing
 * @q: quota
 * @n: units per resource (0 for none)
 *
 * Return: 0, or -EDQUOT with the refusal counted on the first resource
 * that does not fit; nothing is taken.
 */
int txrdma_quota_charge_all(struct txrdma_quota *q,
			    const u64 n[TXRDMA_NR_RES])
{
	int r;

	for (r = 0; r < TXRDMA_NR_RES; r++) {
		if (n[r] && !txrdma_quota_fits(q, r, n[r])) {
			q->refused[r]++;
			return -EDQUOT;
		}
	}
	for (r = 0; r < TXRDMA_NR_RES; r++)
		q->used[r] += n[r];
	return 0;
}

/**
 * txrdma_quota_uncharge() - give back @n units of @r
 * @q: quota
 * @r: resource
 * @n: units
 *
 * Return: 0, or -EINVAL if more is given back than was taken (use is
 * then clamped at 0: an accounting bug must not wrap to "full").
 */
int txrdma_quota_uncharge(struct txrdma_quota *q, enum txrdma_res r, u64 n)
{
	if (r >= TXRDMA_NR_RES)
		return -EINVAL;
	if (n > q->used[r]) {
		q->used[r] = 0;
		return -EINVAL;
	}
	q->used[r] -= n;
	return 0;
}

/**
 * txrdma_quota_set_limit() - change a limit
 * @q: quota
 * @r: resource
 * @limit: new limit, U64_MAX for none
 *
 * Return: true if current use is above the new limit (it stays in use;
 * new charges are refused until use falls below the limit).
 */
bool txrdma_quota_set_limit(struct txrdma_quota *q, enum txrdma_res r,
			    u64 limit)
{
	if (r >= TXRDMA_NR_RES)
		return false;
	q->limit[r] = limit;
	return q->used[r] > limit;
}

/**
 * txrdma_quota_in_use() - does the tenant hold anything?
 * @q: quota
 */
bool txrdma_quota_in_use(const struct txrdma_quota *q)
{
	int r;

	for (r = 0; r < TXRDMA_NR_RES; r++)
		if (q->used[r])
			return true;
	return false;
}
