/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Fault injection: named points in the module where a test makes an
 * operation fail on purpose, and the rule that decides when.
 *
 * The rule is the kernel's own fault-injection rule
 * (Documentation/fault-injection/fault-injection.rst, lib/fault-inject.c),
 * kept here as pure logic because Debian's kernel is built without
 * CONFIG_FAULT_INJECTION: a call at a point fails when, in this order,
 *  - failures are left (@times: -1 without limit, 0 never again);
 *  - the @space budget is spent: each call costs its size (a frame's
 *    length, else 1) and passes while the budget lasts;
 *  - it is the @interval-th call that got this far (0 and 1: each);
 *  - and a random draw under @probability percent says so.
 * A point is off while @probability or @times is 0 (probability is, by
 * default): a call then costs the caller a load or two
 * (txrdma_fault_armed()) and takes no lock.
 *
 * The decision is pure (the random number is the caller's), so KUnit
 * runs it on UML; the points, their debugfs files and their lock are
 * in txrdma_inject.c.
 */
#ifndef _TXRDMA_FAULT_H
#define _TXRDMA_FAULT_H

#include <linux/compiler.h>
#include <linux/types.h>

/**
 * struct txrdma_fault_attr - one point's rule and counters
 * @probability: percent of eligible calls that fail, 0..100 (0: off)
 * @interval: only every @interval-th eligible call may fail (0, 1: each)
 * @times: failures left (-1: no limit)
 * @space: budget that calls spend (by their size) before any may fail
 * @delay_us: for a point that stalls rather than fails: how long
 * @verbose: 1 logs each failure (ratelimited), 0 keeps quiet
 * @calls: calls seen while armed
 * @count: calls that passed @times and @space (what @interval counts)
 * @injected: failures injected
 */
struct txrdma_fault_attr {
	u32 probability;
	u32 interval;
	s32 times;
	u32 space;
	u32 delay_us;
	u32 verbose;
	u64 calls;
	u64 count;
	u64 injected;
};

/* The rule as the kernel's fault attributes default: off, one failure. */
void txrdma_fault_attr_init(struct txrdma_fault_attr *a);

/**
 * txrdma_fault_decide() - whether this call fails
 * @a: the point's rule and counters (the caller serialises)
 * @size: what the call costs of @space (at least 1 is charged)
 * @rnd: a uniform random number (the caller's: get_random_u32())
 *
 * Return: true when the call must fail (then @a->injected and, unless
 * unlimited, @a->times are updated).
 */
bool txrdma_fault_decide(struct txrdma_fault_attr *a, u32 size, u32 rnd);

/* Whether @a can fail a call at all: a lock-free check for hot paths. */
static inline bool txrdma_fault_armed(const struct txrdma_fault_attr *a)
{
	return READ_ONCE(a->probability) && READ_ONCE(a->times);
}

#endif /* _TXRDMA_FAULT_H */
