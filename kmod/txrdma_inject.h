/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The module's fault-injection points (txrdma_inject.c), each
 * driven from /sys/kernel/debug/txrdma/fault/<name>/ by the kernel's
 * fault-injection rule (txrdma_fault.h).  Documentation/admin.rst,
 * "Fault injection", says what each point does when it fires.
 */
#ifndef _TXRDMA_INJECT_H
#define _TXRDMA_INJECT_H

#include <linux/compiler.h>
#include <linux/spinlock.h>

#include "txrdma_fault.h"

/**
 * enum txrdma_fault_id - where a fault can be injected
 * @TXRDMA_FAULT_REG: a region's registration with a device fails (-EIO)
 * @TXRDMA_FAULT_ALLOC: an endpoint's allocation fails (-ENOMEM)
 * @TXRDMA_FAULT_QP: a pair's QP refuses a chain of work requests
 * @TXRDMA_FAULT_CORRUPT: a received frame is judged corrupt (CRC)
 * @TXRDMA_FAULT_DROP: a received write is dropped, as if lost
 * @TXRDMA_FAULT_PROBE: a liveness probe is not sent
 * @TXRDMA_FAULT_STALL: a poller sleeps before a pass (@delay_us)
 * @TXRDMA_FAULT_NR: how many
 */
enum txrdma_fault_id {
	TXRDMA_FAULT_REG,
	TXRDMA_FAULT_ALLOC,
	TXRDMA_FAULT_QP,
	TXRDMA_FAULT_CORRUPT,
	TXRDMA_FAULT_DROP,
	TXRDMA_FAULT_PROBE,
	TXRDMA_FAULT_STALL,
	TXRDMA_FAULT_NR
};

/**
 * struct txrdma_fault_point - a named point and its rule
 * @name: its debugfs directory
 * @lock: serialises the rule's decisions (debugfs writes are plain stores)
 * @attr: the rule and its counters
 */
struct txrdma_fault_point {
	const char *name;
	spinlock_t lock;	/* serialises decisions and rule changes */
	struct txrdma_fault_attr attr;
};

extern struct txrdma_fault_point txrdma_faults[TXRDMA_FAULT_NR];

bool __txrdma_fault(struct txrdma_fault_point *p, u32 size);

/**
 * txrdma_fault() - whether point @id fails this call
 * @id: the point
 * @size: what the call costs of the point's space (a frame's length)
 *
 * A load or two while the point is off; callable in any context.
 */
static inline bool txrdma_fault(enum txrdma_fault_id id, u32 size)
{
	struct txrdma_fault_point *p = &txrdma_faults[id];

	if (likely(!txrdma_fault_armed(&p->attr)))
		return false;
	return __txrdma_fault(p, size);
}

/* The stall a point asks for, in microseconds. */
static inline u32 txrdma_fault_delay_us(enum txrdma_fault_id id)
{
	return READ_ONCE(txrdma_faults[id].attr.delay_us);
}

void txrdma_fault_init(void);
void txrdma_fault_exit(void);

#endif /* _TXRDMA_INJECT_H */
