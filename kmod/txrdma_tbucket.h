/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Token buckets for the per-tenant bandwidth (bytes/s) and operation
 * (ops/s) limits.  Pure arithmetic on an injected nanosecond clock, so
 * that KUnit can drive every edge case on UML.
 */
#ifndef _TXRDMA_TBUCKET_H
#define _TXRDMA_TBUCKET_H

#include <linux/types.h>

/* A rate of TXRDMA_TB_UNLIMITED admits everything and never waits. */
#define TXRDMA_TB_UNLIMITED	U64_MAX

/**
 * struct txrdma_tb - a token bucket
 * @rate: tokens added per second; 0 never refills
 * @burst: most tokens the bucket holds (at most S64_MAX)
 * @tokens: tokens available now; negative after a request larger
 *	than @burst was admitted (debt paid back by refill)
 * @last_ns: clock value of the last refill
 * @rem: tokens * 1e9 not yet credited (always < NSEC_PER_SEC), so
 *	that many small refills add up exactly to one large one
 */
struct txrdma_tb {
	u64 rate;
	u64 burst;
	s64 tokens;
	u64 last_ns;
	u64 rem;
};

void txrdma_tb_init(struct txrdma_tb *tb, u64 rate, u64 burst, u64 now_ns);
void txrdma_tb_set(struct txrdma_tb *tb, u64 rate, u64 burst, u64 now_ns);
void txrdma_tb_refill(struct txrdma_tb *tb, u64 now_ns);
bool txrdma_tb_take(struct txrdma_tb *tb, u64 now_ns, u64 n);
u64 txrdma_tb_wait_ns(struct txrdma_tb *tb, u64 now_ns, u64 n);
void txrdma_tb_refund(struct txrdma_tb *tb, u64 n);

#endif /* _TXRDMA_TBUCKET_H */
