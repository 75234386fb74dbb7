/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Consistent one-sided reads over one txrdma endpoint pair: the glue
 * that posts the RDMA READs of versioned records (txn_vrec.h,
 * uapi/linux/txrdma_vrec.h) through libtxrdma's rings, waits for their
 * completions, checks the copies and retries the torn ones.
 *
 * A struct txn_vread is a reader over one pair: the caller's context and
 * rings, our endpoint of the pair, and a scratch area of one of our
 * registered regions that the READs land in.  The slots are named as
 * the writer exported them (txrdma_ep_exports()'s imported list): the
 * writer's region id, the slot's offset in that region, its capacity.
 *
 * Threads and rings: one thread at a time per reader, and while a call
 * runs it is the only one using the rings (libtxrdma's rule).  It reaps
 * the CQ itself: completions that are not its own go to the @other_cqe
 * callback of the configuration (dropped, and counted, without one).
 * Its own carry TXN_VREAD_UD_MAGIC in the top 24 bits of user_data: a
 * caller sharing the CQ uses no such user_data, and hands such a CQE
 * that its own loop reaps to txn_vread_cqe().
 *
 * Errors (negative errno values), for every call that reads:
 *  -EINVAL    bad argument: a NULL pointer, a capacity that is not a
 *             multiple of 8 in 8..TXRDMA_VREC_MAX_CAP, @n 0 or above
 *             TXN_VREAD_MAX_MULTI or the SQ's size; or a copy that can
 *             never be valid (txn_vrec_check(): the slot's capacity
 *             field is not @cap, a writer broke the format);
 *  -ENOSPC    the scratch area cannot hold the copies;
 *  -EBUSY     a record's copy was torn (or taken during a write) on
 *             every one of its max_attempts READs: given up;
 *  -ETIMEDOUT no completion (or no free SQE) within timeout_ms; the
 *             READs stay counted as in flight, and the next call first
 *             waits for them (their bytes may still land in the
 *             scratch area), failing with -ETIMEDOUT again meanwhile;
 *  -EIO       a READ completed with a length other than asked;
 *  the negative res of a READ's CQE (uapi/linux/txrdma_ring.h):
 *             -EPERM (not exported to this pair for READ), -EFAULT
 *             (outside the export), -ENOENT, -ENOTCONN, -ECONNRESET,
 *             -ECANCELED, -EIO, ...: returned as they come, never
 *             retried (a READ error is not a torn copy);
 *  the negative errno of txrdma_submit() (the doorbell).
 */
#ifndef TXN_VREAD_H
#define TXN_VREAD_H

#include <stdbool.h>
#include <stdint.h>

#include <txrdma.h>

#include "txn_vrec.h"

/* top 24 bits of the user_data of a reader's READs ("VRD") */
#define TXN_VREAD_UD_MAGIC	0x565244ULL
/* records per txn_vread_multi() */
#define TXN_VREAD_MAX_MULTI	64

/* a slot in the writer's memory, as exported to the pair */
struct txn_vread_slot {
	uint32_t region;	/* the writer's region id */
	uint32_t cap;		/* the slot's capacity */
	uint64_t off;		/* the slot's offset in that region */
};

struct txn_vread_cfg {
	/*
	 * NULL only when something else serves the rings (a host test's
	 * fake kernel): no doorbell, no descriptor to sleep on (naps)
	 */
	struct txrdma_ctx *ctx;
	struct txrdma_sq *sq;
	struct txrdma_cq *cq;
	uint32_t ep;		/* our endpoint of the pair */
	/*
	 * Scratch: bytes [@local_off, @local_off + @local_len) of our
	 * region @local_region, at @local_addr in this process; 8-byte
	 * aligned.  A single read needs TXRDMA_VREC_SLOT_SIZE(cap), a
	 * multi-record read the sum of its slots' sizes plus 8 per record.
	 */
	uint32_t local_region;
	void *local_addr;
	uint64_t local_off;
	uint64_t local_len;
	unsigned int max_attempts;	/* READs per record, 0: TXN_VREC_RETRY_DEFAULT */
	uint32_t timeout_ms;	/* per wait for CQEs or SQEs, 0: 1000 */
	uint32_t spin_us;	/* CQ busy-poll before poll(2), 0: 20 */
	void (*other_cqe)(void *arg, const struct txrdma_cqe *cqe);
	void *other_arg;
};

struct txn_vread_stats {
	uint64_t reads;		/* records returned, single and multi */
	uint64_t posted;	/* READs posted (copies, re-READs, versions) */
	uint64_t retries;	/* copies READ again after a torn one */
	uint64_t gave_up;	/* reads given up (-EBUSY) */
	uint64_t multi;		/* multi-record reads validated (>= 0 returned) */
	uint64_t multi_conflicts;	/* of them, with a record changed */
	uint64_t changed;	/* records those reported changed */
	uint64_t errors;	/* READs failed, or lengths wrong */
	uint64_t timeouts;	/* waits that timed out */
	uint64_t other_cqes;	/* CQEs not ours, passed on or dropped */
};

struct txn_vread {
	struct txn_vread_cfg cfg;
	struct txn_vrec_retry retry;
	uint64_t seq;		/* user_data of the next READ, less the magic */
	unsigned int inflight;	/* READs posted whose CQE was not reaped */
	/* the batch being waited for: READs seq base .. base + n - 1 */
	uint64_t base;
	unsigned int n, done;
	int32_t *res;
	struct txn_vread_stats st;
};

/*
 * Set up @r from @cfg (copied).  Return: 0, -EINVAL (a NULL ring or
 * scratch address, an unaligned or empty scratch area).
 */
int txn_vread_init(struct txn_vread *r, const struct txn_vread_cfg *cfg);

/*
 * Read one record: READ the slot whole into the scratch area, check the
 * copy (txn_vrec_check()), READ it again while the copy may be torn, at
 * most max_attempts READs.  Return: 0 with @view set (its data points
 * into the scratch area: valid until the next call on @r), or an error
 * of the list above (-EBUSY: given up).
 */
int txn_vread_one(struct txn_vread *r, const struct txn_vread_slot *slot,
		  struct txn_vrec_view *view);

/*
 * Read @n records as of one instant: READ each slot whole (all posted
 * together), check each copy and READ again the ones that may be torn
 * (each at most max_attempts READs), then, once every copy was taken,
 * READ each slot's version word again and compare (txn_vrec_validate()).
 * @views[i] is record i's accepted copy (in the scratch area, valid
 * until the next call); bit i of @changed (an array of (@n + 63) / 64
 * words, may be NULL) says that record i changed since its copy.
 * Return: the number of records that changed, 0 when the copies show
 * one instant; or an error of the list above (-EBUSY: a record's copy
 * was torn every time; nothing is validated then).
 */
int txn_vread_multi(struct txn_vread *r, const struct txn_vread_slot *slots,
		    unsigned int n, struct txn_vrec_view *views,
		    uint64_t *changed);

/*
 * A CQE that the caller's own loop reaped from the shared CQ: when it is
 * one of @r's (TXN_VREAD_UD_MAGIC), take it into account and return
 * true (the caller drops it); false otherwise.
 */
bool txn_vread_cqe(struct txn_vread *r, const struct txrdma_cqe *cqe);

/* READs of @r in flight (posted, CQE not yet reaped) */
static inline unsigned int txn_vread_inflight(const struct txn_vread *r)
{
	return r->inflight;
}

#endif /* TXN_VREAD_H */
