// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fault-injection rule (see txrdma_fault.h): pure logic, no locks,
 * no clocks, no random source of its own; KUnit: tests/txrdma_fault_kunit.c.
 */
#include <linux/compiler.h>
#include <linux/minmax.h>

#include "txrdma_fault.h"

void txrdma_fault_attr_init(struct txrdma_fault_attr *a)
{
	*a = (struct txrdma_fault_attr) {
		.probability	= 0,
		.interval	= 1,
		.times		= 1,
	};
}

bool txrdma_fault_decide(struct txrdma_fault_attr *a, u32 size, u32 rnd)
{
	size = max(size, 1U);
	if (!a->probability || !a->times)
		return false;
	a->calls++;
	/* as lib/fault-inject.c: a call that the budget covers passes */
	if (a->space > size) {
		a->space -= size;
		return false;
	}
	a->count++;
	if (a->interval > 1 && a->count % a->interval)
		return false;
	/* @rnd % 100 is biased by under 1e-7: no test can see it */
	if (min(a->probability, 100U) <= rnd % 100)
		return false;
	a->injected++;
	/* txrdma_fault_armed() reads it without the caller's lock */
	if (a->times > 0)
		WRITE_ONCE(a->times, a->times - 1);
	return true;
}
