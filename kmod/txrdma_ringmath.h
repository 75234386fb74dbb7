/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel's side of the rings it shares with a process, as pure
 * logic (KUnit on UML): index arithmetic on the values user space wrote
 * and the checks every submission queue entry passes before anything
 * acts on it.  The kernel keeps its own copy of its index and of the
 * mask; what the process wrote is only ever an input to these checks.
 */
#ifndef _TXRDMA_RINGMATH_H
#define _TXRDMA_RINGMATH_H

#include <linux/types.h>
#include <linux/txrdma_ring.h>

/* Ring sizes the kernel accepts (entries; powers of two). */
#define TXRDMA_RING_MIN_ENTRIES	2
#define TXRDMA_RING_MAX_ENTRIES	32768

int txrdma_ring_entries(u32 wanted, u32 *entries);
int txrdma_sq_pending(u32 khead, u32 utail, u32 entries, u32 *n);
int txrdma_cq_space(u32 ktail, u32 uhead, u32 entries, u32 *space);
int txrdma_sqe_check(const struct txrdma_sqe *sqe);
bool txrdma_range_ok(u64 off, u64 len, u64 size);
u8 txrdma_sqe_class(u8 tenant_prio, u8 sqe_prio);
u32 txrdma_class_budget(u8 cls);

/* Quick doorbells in a row that make a stream (txrdma_doorbell_streak()) */
#define TXRDMA_DOORBELL_STREAK	4

/**
 * struct txrdma_doorbell - a ring's recent doorbells
 * @last_ns: when the last one rang (0: never)
 * @streak: quick ones in a row before it, at most TXRDMA_DOORBELL_STREAK
 */
struct txrdma_doorbell {
	u64 last_ns;
	u32 streak;
};

bool txrdma_doorbell_streak(struct txrdma_doorbell *db, u64 now_ns,
			    u64 idle_ns);

#endif /* _TXRDMA_RINGMATH_H */
