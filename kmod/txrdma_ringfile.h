/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The submission and completion rings an open file shares with its
 * process (uapi/linux/txrdma_ring.h), and the poller that serves them.
 */
#ifndef _TXRDMA_RINGFILE_H
#define _TXRDMA_RINGFILE_H

#include <linux/fs.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/xarray.h>
#include <linux/poll.h>
#include <linux/wait.h>

#include <linux/txrdma.h>

#include "txrdma_poller.h"
#include "txrdma_ringmath.h"

struct txrdma_file;
struct txrdma_tenant;

/**
 * struct txrdma_ring - the rings of one open file
 * @tf: owner
 * @tenant: the tenant of the process that set it up, referenced; its
 *	pinned-bytes quota is charged @len
 * @mem: the memory mapped by the process (alloc_pages_exact())
 * @len: its length
 * @sq_head: kernel-written; the rest likewise points into @mem
 * @sq_tail: process-written
 * @sq_flags: kernel-written TXRDMA_SQ_F_*
 * @sq_dropped: kernel-written count of refused SQEs
 * @cq_head: process-written
 * @cq_tail: kernel-written
 * @cq_overflow: kernel-written (always 0: the poller waits for room)
 * @sqes: the SQ array
 * @cqes: the CQ array
 * @sq_entries: the kernel's copy of the SQ size
 * @cq_entries: the kernel's copy of the CQ size
 * @khead: the kernel's SQ head (the shared one is only a copy)
 * @ktail: the kernel's CQ tail
 * @poll_node: entry in its poller's list (the poller's lock)
 * @poller: the poller that serves it (txrdma_poller.c: changed under
 *	txrdma_pollers_lock, read under RCU)
 * @wait: poll(2) and txrdma_ring_wait_idle() sleepers
 * @submitted: SQEs consumed
 * @bad_sqes: SQEs refused (-EINVAL, -ENOENT, ...), also in @sq_dropped
 * @garbage: passes that found an impossible SQ tail or CQ head
 * @lock: held by the poller while it serves the ring; endpoints join
 *	and leave @eps under it
 * @eps: the file's endpoint pairs by id (txrdma_pair.c)
 * @cq_lock: the CQ has two producers: the poller and the completion
 *	handlers (taken with _bh)
 * @cq_reserved: CQEs promised to operations in flight: the poller
 *	leaves that much room, so a completion always finds a slot
 * @blocked: an SQE waits for credits, send slots or tokens; the poller
 *	does not stay awake for it: a credit update or completion kicks
 *	it, or @wake_ns comes
 * @wake_ns: when the tenant's buckets admit the SQE at the head (0: no
 *	such wait)
 * @throttled: the SQE at the head was counted as throttled already
 * @chained: this pass queued work requests on endpoints: they are
 *	posted when it ends (txrdma_tx_ring_flush(); @lock)
 * @doorbell: the process's recent doorbells (@lock)
 */
struct txrdma_ring {
	struct txrdma_file *tf;
	struct txrdma_tenant *tenant;
	void *mem;
	size_t len;
	u32 *sq_head, *sq_tail, *sq_flags, *sq_dropped;
	u32 *cq_head, *cq_tail, *cq_overflow;
	struct txrdma_sqe *sqes;
	struct txrdma_cqe *cqes;
	u32 sq_entries, cq_entries;
	u32 khead, ktail;
	struct list_head poll_node;
	struct txrdma_poller __rcu *poller;
	wait_queue_head_t wait;
	u64 submitted, bad_sqes, garbage;
	struct mutex lock;	/* the poller's; design.rst "Lock order" */
	struct xarray eps;
	spinlock_t cq_lock;	/* CQ producers; design.rst "Lock order" */
	u32 cq_reserved;
	bool blocked;
	u64 wake_ns;
	bool throttled;
	bool chained;
	struct txrdma_doorbell doorbell;
};

/* txrdma_ring_process(): no class turn, every SQE in ring order */
#define TXRDMA_RING_ANY_CLASS	0xff

/* what executing an SQE gave, besides a CQE result (<= 0 or bytes) */
#define TXRDMA_EXEC_ASYNC	(INT_MAX - 1)	/* posted: CQE on completion */
#define TXRDMA_EXEC_BLOCKED	INT_MAX		/* wait: nothing consumed */

long txrdma_ioctl_ring_setup(struct txrdma_file *tf, void __user *uarg);
long txrdma_ioctl_ring_enter(struct txrdma_file *tf);
int txrdma_ring_mmap(struct txrdma_file *tf, struct vm_area_struct *vma);
__poll_t txrdma_ring_poll(struct txrdma_file *tf, struct file *file,
			  poll_table *wait);
void txrdma_ring_release(struct txrdma_file *tf);

u64 txrdma_ring_wake_ns(struct txrdma_ring *ring);
int txrdma_ring_process(struct txrdma_ring *ring, u8 cls, u32 budget);
bool txrdma_ring_pending(struct txrdma_ring *ring);
void txrdma_ring_reserve(struct txrdma_ring *ring);
int txrdma_ring_reserve_n(struct txrdma_ring *ring, u32 n);
void txrdma_ring_complete(struct txrdma_ring *ring, u64 user_data, int res,
			  u32 ep, u8 opcode, bool silent);

#endif /* _TXRDMA_RINGFILE_H */
