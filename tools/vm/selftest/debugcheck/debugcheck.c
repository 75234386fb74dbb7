// SPDX-License-Identifier: GPL-2.0
/*
 * debugcheck: commits, at load, the one bug its "bug" parameter names, so
 * that the harness's self-test (tools/vm/selftest/selftest.py, test
 * "debug_checks") can prove that each checker of the debug kernel reports
 * it and that the report fails the guest.  Never built into txrdma and
 * never loaded outside that test.  Every bug leaves the kernel usable:
 *
 *   leak       a kmalloc'ed object whose only pointer is dropped (kmemleak)
 *   uaf        a read of a freed object (KASAN)
 *   lockorder  mutexes a then b, later b then a, one thread: no deadlock,
 *              but lockdep's circular dependency
 *   odebug     an armed timer freed (DEBUG_OBJECTS; its fixup deletes it)
 *   atomic     might_sleep() under a spinlock (DEBUG_ATOMIC_SLEEP)
 *
 * Load fails (-EINVAL) on an unknown name, so a typo cannot pass for a
 * missed report.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timer.h>

static char *bug = "";
module_param(bug, charp, 0444);
MODULE_PARM_DESC(bug, "leak, uaf, lockorder, odebug or atomic");

static DEFINE_MUTEX(debugcheck_a);
static DEFINE_MUTEX(debugcheck_b);
static DEFINE_SPINLOCK(debugcheck_lock);

static noinline void debugcheck_leak(void)
{
	void *p = kmalloc(128, GFP_KERNEL);

	/* the pointer dies with this frame */
	pr_info("leaking %p\n", p);
}

static noinline void debugcheck_uaf(void)
{
	char *p = kmalloc(64, GFP_KERNEL);

	if (!p)
		return;
	kfree(p);
	pr_info("read after free: %d\n", READ_ONCE(p[8]));
}

static noinline void debugcheck_lockorder(void)
{
	mutex_lock(&debugcheck_a);
	mutex_lock(&debugcheck_b);
	mutex_unlock(&debugcheck_b);
	mutex_unlock(&debugcheck_a);

	mutex_lock(&debugcheck_b);
	mutex_lock(&debugcheck_a);
	mutex_unlock(&debugcheck_a);
	mutex_unlock(&debugcheck_b);
}

static void debugcheck_timer_fn(struct timer_list *t)
{
}

static noinline void debugcheck_odebug(void)
{
	struct timer_list *t = kmalloc(sizeof(*t), GFP_KERNEL);

	if (!t)
		return;
	timer_setup(t, debugcheck_timer_fn, 0);
	mod_timer(t, jiffies + 3600 * HZ);
	kfree(t);
}

static noinline void debugcheck_atomic(void)
{
	spin_lock(&debugcheck_lock);
	might_sleep();
	spin_unlock(&debugcheck_lock);
}

static const struct {
	const char *name;
	void (*fn)(void);
} debugcheck_bugs[] = {
	{ "leak", debugcheck_leak },
	{ "uaf", debugcheck_uaf },
	{ "lockorder", debugcheck_lockorder },
	{ "odebug", debugcheck_odebug },
	{ "atomic", debugcheck_atomic },
};

static int __init debugcheck_init(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(debugcheck_bugs); i++) {
		if (!strcmp(bug, debugcheck_bugs[i].name)) {
			debugcheck_bugs[i].fn();
			return 0;
		}
	}
	pr_err("unknown bug '%s'\n", bug);
	return -EINVAL;
}

static void __exit debugcheck_exit(void)
{
}

module_init(debugcheck_init);
module_exit(debugcheck_exit);
MODULE_DESCRIPTION("txrdma-vm self-test: one bug per load for the debug kernel's checkers");
MODULE_LICENSE("GPL");
