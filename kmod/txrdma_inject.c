// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fault-injection points and their debugfs files.
 *
 * Tests make the module fail where real hardware and real peers would:
 * a registration the device refuses, an allocation the kernel refuses,
 * a QP that fails, a frame that arrives corrupt or not at all, a probe
 * that never leaves, a poller that does not run.  Cutting a link from
 * the host reaches only some of these, and only all at once.
 *
 * /sys/kernel/debug/txrdma/fault/<point>/ holds the rule of the kernel's
 * fault attributes (probability, interval, times, space) and verbose,
 * as Documentation/fault-injection describes them, plus delay_us for
 * the poller's stall and the read-only counters calls and injected.
 * Debian's kernel has no CONFIG_FAULT_INJECTION, hence a copy of the
 * rule in txrdma_fault.c rather than struct fault_attr.  debugfs is
 * root's only: no tenant reaches these files.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/kernel.h>
#include <linux/printk.h>
#include <linux/random.h>

#include "txrdma_inject.h"

struct txrdma_fault_point txrdma_faults[TXRDMA_FAULT_NR] = {
	[TXRDMA_FAULT_REG]	= { .name = "reg_fail" },
	[TXRDMA_FAULT_ALLOC]	= { .name = "alloc_fail" },
	[TXRDMA_FAULT_QP]	= { .name = "qp_fail" },
	[TXRDMA_FAULT_CORRUPT]	= { .name = "frame_corrupt" },
	[TXRDMA_FAULT_DROP]	= { .name = "frame_drop" },
	[TXRDMA_FAULT_PROBE]	= { .name = "probe_drop" },
	[TXRDMA_FAULT_STALL]	= { .name = "poller_stall" },
};

static struct dentry *txrdma_debugfs;

bool __txrdma_fault(struct txrdma_fault_point *p, u32 size)
{
	unsigned long flags;
	bool fail;
	u64 n;

	spin_lock_irqsave(&p->lock, flags);
	fail = txrdma_fault_decide(&p->attr, size, get_random_u32());
	n = p->attr.injected;
	spin_unlock_irqrestore(&p->lock, flags);
	if (fail && READ_ONCE(p->attr.verbose))
		pr_info_ratelimited("fault %s injected (%llu)\n", p->name, n);
	return fail;
}

/*
 * The writable attributes: a value out of range is refused (-EINVAL)
 * and changes nothing; a change is made under the point's lock, so a
 * decision sees the old rule or the new one.
 */
enum txrdma_fault_field {
	TXRDMA_FF_PROBABILITY,
	TXRDMA_FF_INTERVAL,
	TXRDMA_FF_TIMES,
	TXRDMA_FF_SPACE,
	TXRDMA_FF_DELAY_US,
	TXRDMA_FF_VERBOSE,
	TXRDMA_FF_CALLS,
	TXRDMA_FF_INJECTED,
	TXRDMA_FF_NR
};

static const struct {
	const char *name;
	s64 min, max;		/* min > max: read-only */
} txrdma_fault_fields[TXRDMA_FF_NR] = {
	[TXRDMA_FF_PROBABILITY]	= { "probability", 0, 100 },
	[TXRDMA_FF_INTERVAL]	= { "interval", 0, U32_MAX },
	[TXRDMA_FF_TIMES]	= { "times", -1, S32_MAX },
	[TXRDMA_FF_SPACE]	= { "space", 0, U32_MAX },
	/* a poller asleep for more than a second is a hung test */
	[TXRDMA_FF_DELAY_US]	= { "delay_us", 0, USEC_PER_SEC },
	[TXRDMA_FF_VERBOSE]	= { "verbose", 0, 1 },
	[TXRDMA_FF_CALLS]	= { "calls", 1, 0 },
	[TXRDMA_FF_INJECTED]	= { "injected", 1, 0 },
};

/* debugfs hands each file one pointer: the point's field, one of these */
struct txrdma_fault_file {
	struct txrdma_fault_point *p;
	enum txrdma_fault_field f;
};

static struct txrdma_fault_file
	txrdma_fault_files[TXRDMA_FAULT_NR][TXRDMA_FF_NR];

static int txrdma_fault_get(void *data, u64 *val)
{
	struct txrdma_fault_file *ff = data;
	struct txrdma_fault_attr *a = &ff->p->attr;
	unsigned long flags;

	spin_lock_irqsave(&ff->p->lock, flags);
	switch (ff->f) {
	case TXRDMA_FF_PROBABILITY:
		*val = a->probability;
		break;
	case TXRDMA_FF_INTERVAL:
		*val = a->interval;
		break;
	case TXRDMA_FF_TIMES:
		*val = (u64)(s64)a->times;
		break;
	case TXRDMA_FF_SPACE:
		*val = a->space;
		break;
	case TXRDMA_FF_DELAY_US:
		*val = a->delay_us;
		break;
	case TXRDMA_FF_VERBOSE:
		*val = a->verbose;
		break;
	case TXRDMA_FF_CALLS:
		*val = a->calls;
		break;
	default:
		*val = a->injected;
		break;
	}
	spin_unlock_irqrestore(&ff->p->lock, flags);
	return 0;
}

static int txrdma_fault_set(void *data, u64 val)
{
	struct txrdma_fault_file *ff = data;
	struct txrdma_fault_attr *a = &ff->p->attr;
	s64 v = (s64)val;
	unsigned long flags;

	if (v < txrdma_fault_fields[ff->f].min ||
	    v > txrdma_fault_fields[ff->f].max)
		return -EINVAL;
	spin_lock_irqsave(&ff->p->lock, flags);
	switch (ff->f) {
	case TXRDMA_FF_PROBABILITY:
		/* armed anew: @interval counts from this moment */
		if (!a->probability && v)
			a->count = 0;
		WRITE_ONCE(a->probability, v);
		break;
	case TXRDMA_FF_INTERVAL:
		a->interval = v;
		break;
	case TXRDMA_FF_TIMES:
		WRITE_ONCE(a->times, v);
		break;
	case TXRDMA_FF_SPACE:
		a->space = v;
		break;
	case TXRDMA_FF_DELAY_US:
		WRITE_ONCE(a->delay_us, v);
		break;
	default:
		WRITE_ONCE(a->verbose, v);
		break;
	}
	spin_unlock_irqrestore(&ff->p->lock, flags);
	return 0;
}

/* signed: "times" reads -1 when unlimited */
DEFINE_DEBUGFS_ATTRIBUTE_SIGNED(txrdma_fault_fops, txrdma_fault_get,
				txrdma_fault_set, "%lld\n");
DEFINE_DEBUGFS_ATTRIBUTE(txrdma_fault_ro_fops, txrdma_fault_get, NULL,
			 "%llu\n");

/*
 * Without debugfs (not mounted, or disabled) the points stay off: a
 * test that needs them finds no files and says so.
 */
void txrdma_fault_init(void)
{
	struct dentry *dir, *pd;
	unsigned int i, f;

	for (i = 0; i < TXRDMA_FAULT_NR; i++) {
		spin_lock_init(&txrdma_faults[i].lock);
		txrdma_fault_attr_init(&txrdma_faults[i].attr);
	}
	txrdma_debugfs = debugfs_create_dir(KBUILD_MODNAME, NULL);
	dir = debugfs_create_dir("fault", txrdma_debugfs);
	for (i = 0; i < TXRDMA_FAULT_NR; i++) {
		pd = debugfs_create_dir(txrdma_faults[i].name, dir);
		for (f = 0; f < TXRDMA_FF_NR; f++) {
			struct txrdma_fault_file *ff = &txrdma_fault_files[i][f];
			bool ro = txrdma_fault_fields[f].min >
				  txrdma_fault_fields[f].max;

			ff->p = &txrdma_faults[i];
			ff->f = f;
			debugfs_create_file_unsafe(txrdma_fault_fields[f].name,
						   ro ? 0400 : 0600, pd, ff,
						   ro ? &txrdma_fault_ro_fops :
							&txrdma_fault_fops);
		}
	}
}

void txrdma_fault_exit(void)
{
	debugfs_remove_recursive(txrdma_debugfs);
	txrdma_debugfs = NULL;
}
