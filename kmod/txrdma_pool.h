/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Accounting of a peer's pool of pre-connected RC queue pairs: how many
 * are ready, lent out, being connected or being torn down, when to
 * connect more, when to close idle ones, and how long to back off after
 * failures.  Pure logic on an injected nanosecond clock; the verbs glue
 * (rdma_cm, QPs) acts on what it decides.
 */
#ifndef _TXRDMA_POOL_H
#define _TXRDMA_POOL_H

#include <linux/types.h>

#define TXRDMA_POOL_MAX_QPS	1024
#define TXRDMA_POOL_IDLE_NS	(10ULL * 1000 * 1000 * 1000)	/* 10 s */
#define TXRDMA_POOL_BACKOFF_MIN_NS	(10ULL * 1000 * 1000)	/* 10 ms */
#define TXRDMA_POOL_BACKOFF_MAX_NS	(1000ULL * 1000 * 1000)	/* 1 s */
/* refill hold-down after flaps: an Up that lasted less than STABLE */
#define TXRDMA_POOL_STABLE_NS	(10ULL * 1000 * 1000 * 1000)	/* 10 s */
#define TXRDMA_POOL_HOLD_MIN_NS	(100ULL * 1000 * 1000)	/* 100 ms */
#define TXRDMA_POOL_HOLD_MAX_NS	(5000ULL * 1000 * 1000)	/* 5 s */

/**
 * struct txrdma_pool - counts of one peer's queue pairs
 * @min: ready QPs kept while the peer is up
 * @max: most QPs in any state but closing
 * @ready: connected, not lent out
 * @in_use: lent to endpoints
 * @connecting: connection attempts in flight
 * @closing: being drained and destroyed (counted until gone)
 * @want_extra: ready QPs wanted above @min because takes found none
 * @remote_want: QPs the other end wants (only the initiator connects, so
 *	the acceptor's demand reaches it in probes); 0 if unknown
 * @last_take_ns: when a QP was last taken (for idle shrinking)
 * @backoff_ns: delay before the next attempt after a failure (0: none)
 * @retry_at_ns: no new attempt before this time
 * @up: the peer is up (liveness); nothing is connected while down
 * @up_since_ns: when the peer last came up
 * @hold_ns: refill delay after the next Up (flap dampening), 0 if none
 * @wanted: a take found no ready QP since the peer came up, and none
 *	was taken since: one QP is connected even while the refill is held
 *	back
 * @takes: QPs lent out, ever
 * @misses: takes that found no ready QP
 * @failures: connection attempts that failed
 * @errors: QPs that went to error and were replaced
 */
struct txrdma_pool {
	u32 min, max;
	u32 ready, in_use, connecting, closing;
	u32 want_extra;
	u32 remote_want;
	u64 last_take_ns;
	u64 backoff_ns;
	u64 retry_at_ns;
	bool up;
	u64 up_since_ns;
	u64 hold_ns;
	bool wanted;
	u64 takes, misses, failures, errors;
};

int txrdma_pool_cfg_check(u32 min, u32 max, const char **reason);
void txrdma_pool_init(struct txrdma_pool *p, u32 min, u32 max, u64 now_ns);
int txrdma_pool_set(struct txrdma_pool *p, u32 min, u32 max,
		    const char **reason);
u32 txrdma_pool_to_connect(struct txrdma_pool *p, u64 now_ns);
u32 txrdma_pool_to_close(struct txrdma_pool *p, u64 now_ns);
void txrdma_pool_connected(struct txrdma_pool *p);
int txrdma_pool_accept(struct txrdma_pool *p);
void txrdma_pool_set_remote_want(struct txrdma_pool *p, u32 want);
u32 txrdma_pool_want(const struct txrdma_pool *p);
void txrdma_pool_connect_failed(struct txrdma_pool *p, u64 now_ns);
int txrdma_pool_take(struct txrdma_pool *p, u64 now_ns);
void txrdma_pool_give_back(struct txrdma_pool *p);
void txrdma_pool_qp_error(struct txrdma_pool *p, bool was_in_use);
void txrdma_pool_retire(struct txrdma_pool *p);
void txrdma_pool_closed(struct txrdma_pool *p);
u32 txrdma_pool_peer_down(struct txrdma_pool *p, u64 now_ns);
void txrdma_pool_peer_up(struct txrdma_pool *p, u64 now_ns);
u64 txrdma_pool_next_event(const struct txrdma_pool *p, u64 now_ns);

#endif /* _TXRDMA_POOL_H */
