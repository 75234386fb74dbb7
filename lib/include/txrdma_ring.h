/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * libtxrdma: the data-path rings, user-space fast path.
 *
 * This header is installed as <txrdma_ring.h> next to <txrdma.h>, which
 * includes it.  It pulls in the ring ABI (<linux/txrdma_ring.h>).
 *
 * The process produces submission queue entries (SQEs) and consumes
 * completion queue entries (CQEs) in memory it mapped from the kernel,
 * io_uring style.  The ring's words and arrays are found only through the
 * offsets the kernel returned (struct txrdma_sq_offsets, struct
 * txrdma_cq_offsets): txrdma_sq_init() and txrdma_cq_init() check them
 * once against the length of the mapping; everything else here is
 * static inline, makes no system call and takes no lock.
 *
 * Indices are free-running 32-bit counters, masked with (entries - 1)
 * only to find an entry; every comparison is a difference (tail - head),
 * so the counters wrap at 2^32 without any special case.
 *
 * Memory ordering, both rings: a producer writes the entry, then
 * release-stores its tail; a consumer acquire-loads the tail, reads the
 * entry, then release-stores its head, and the producer acquire-loads that
 * head before it writes over the entry again.  On the submission ring the
 * process is the producer and the kernel the consumer; on the completion
 * ring it is the other way round.
 *
 * Threads: a struct txrdma_sq is used by one thread at a time, and so is
 * a struct txrdma_cq (the two may be used by different threads).  Callers
 * that share a ring between threads serialise its calls themselves.
 *
 * Typical use:
 *
 *	struct txrdma_sqe *sqe = txrdma_get_sqe(&sq);
 *	struct txrdma_cqe *cqe;
 *
 *	if (sqe) {
 *		txrdma_prep_send(sqe, ep, region, off, len, cookie);
 *		txrdma_sq_flush(&sq);
 *		if (txrdma_sq_needs_wakeup(&sq))
 *			... ring the kernel's doorbell ...
 *	}
 *	while ((cqe = txrdma_peek_cqe(&cq))) {
 *		handle(cqe->user_data, cqe->res);
 *		txrdma_cq_advance(&cq, 1);
 *	}
 *	while (txrdma_rx_peek(&rx, &payload, &len) > 0) {
 *		handle_message(payload, len);
 *		txrdma_rx_release(&rx);
 *	}
 */
#ifndef TXRDMA_RING_H
#define TXRDMA_RING_H

#include <errno.h>
#include <stddef.h>
#include <string.h>
#ifndef __cplusplus
#include <stdbool.h>
#endif
#include <linux/txrdma_ring.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * struct txrdma_sq - the process's view of a submission ring
 * @khead: the kernel's consumer index (read-only for the process)
 * @ktail: the process's producer index, as the kernel sees it
 * @kflags: TXRDMA_SQ_F_* bits the kernel writes
 * @kdropped: SQEs the kernel refused as garbage
 * @ring_mask: @ring_entries - 1
 * @ring_entries: a power of two
 * @sqes: the array of @ring_entries entries
 * @sqe_head: first entry handed out and not yet published (== *@ktail)
 * @sqe_tail: next entry txrdma_get_sqe() hands out
 *
 * Entries [@sqe_head, @sqe_tail) have been handed out by
 * txrdma_get_sqe() and are published to the kernel by txrdma_sq_flush().
 * The process never reads *@ktail back: @sqe_head is its own copy.
 */
struct txrdma_sq {
	unsigned int *khead;
	unsigned int *ktail;
	unsigned int *kflags;
	unsigned int *kdropped;
	unsigned int ring_mask;
	unsigned int ring_entries;
	struct txrdma_sqe *sqes;
	unsigned int sqe_head;
	unsigned int sqe_tail;
};

/**
 * struct txrdma_cq - the process's view of a completion ring
 * @khead: the process's consumer index, as the kernel sees it
 * @ktail: the kernel's producer index (read-only for the process)
 * @koverflow: CQEs the kernel lost because the process fell behind
 * @ring_mask: @ring_entries - 1
 * @ring_entries: a power of two
 * @cqes: the array of @ring_entries entries
 * @cqe_head: the process's own copy of *@khead (never read back)
 */
struct txrdma_cq {
	unsigned int *khead;
	unsigned int *ktail;
	unsigned int *koverflow;
	unsigned int ring_mask;
	unsigned int ring_entries;
	struct txrdma_cqe *cqes;
	unsigned int cqe_head;
};

/**
 * txrdma_sq_init() - set up a submission ring from the kernel's offsets
 * @sq: filled on success; left untouched on failure
 * @base: start of the mapping that holds the ring
 * @map_len: its length in bytes
 * @off: the byte offsets the kernel returned, relative to @base
 *
 * Checks that every word (head, tail, flags, dropped, ring_mask,
 * ring_entries) lies inside [@base, @base + @map_len), is 4-byte aligned
 * and overlaps no other; that ring_entries is a non-zero power of two
 * and ring_mask == ring_entries - 1; that the SQE array is aligned for
 * struct txrdma_sqe, fits in the mapping and overlaps none of the
 * words; and that the indices are consistent (tail - head <=
 * ring_entries).  The reserved fields of @off are ignored.  The process
 * starts producing at the current tail.
 *
 * Not on the fast path (not inline).  It reads the ring's words without
 * ordering: call it before the ring is in use.
 *
 * Return: 0, or -EINVAL if an argument is NULL or any check fails.
 */
int txrdma_sq_init(struct txrdma_sq *sq, void *base, size_t map_len,
		   const struct txrdma_sq_offsets *off);

/**
 * txrdma_cq_init() - set up a completion ring from the kernel's offsets
 * @cq: filled on success; left untouched on failure
 * @base: start of the mapping that holds the ring
 * @map_len: its length in bytes
 * @off: the byte offsets the kernel returned, relative to @base
 *
 * The checks of txrdma_sq_init(), for the words head, tail, overflow,
 * ring_mask, ring_entries and the CQE array.  The process starts
 * consuming at the current head.
 *
 * Return: 0, or -EINVAL if an argument is NULL or any check fails.
 */
int txrdma_cq_init(struct txrdma_cq *cq, void *base, size_t map_len,
		   const struct txrdma_cq_offsets *off);

struct txrdma_ctx;

/**
 * txrdma_rings_setup() - create, map and describe a context's rings
 * @ctx: an open context (one pair of rings per context)
 * @sq_entries: SQ size wanted, 1..32768 (rounded up to a power of two)
 * @cq_entries: CQ size wanted, 0 for twice the SQ
 * @sq: filled on success; untouched on failure
 * @cq: likewise
 *
 * Runs TXRDMA_IOC_RING_SETUP, maps the rings the kernel describes and
 * checks them with txrdma_sq_init() and txrdma_cq_init().  The mapping
 * lives as long as the context (txrdma_close() unmaps it).
 *
 * Return: 0; -EINVAL (a NULL argument, sizes out of range, a layout that
 * fails the checks); -EBUSY (the context has rings already); -ENOMEM;
 * any other error of ioctl(2) or mmap(2).  If the kernel made the rings
 * but mapping them failed, a later call maps them (with the sizes
 * granted the first time) instead of failing with -EBUSY.
 */
int txrdma_rings_setup(struct txrdma_ctx *ctx, unsigned int sq_entries,
		       unsigned int cq_entries, struct txrdma_sq *sq,
		       struct txrdma_cq *cq);

/**
 * txrdma_rings_enter() - the doorbell: wake the kernel's poller
 * @ctx: a context with rings
 *
 * Needed only when txrdma_sq_needs_wakeup() says so (after publishing
 * SQEs, or after reaping CQEs while SQEs wait for room in the CQ).
 *
 * Return: 0, -EINVAL for a NULL @ctx, -ENXIO without rings.
 */
int txrdma_rings_enter(struct txrdma_ctx *ctx);

/* ------------------------------------------------------------------ */
/* Submission                                                          */

/**
 * txrdma_sq_space_left() - how many SQEs txrdma_get_sqe() can hand out
 * @sq: the submission ring
 *
 * Acquire-loads the kernel's head, so that entries it reports free have
 * been read by the kernel for good.  Entries handed out and not yet
 * flushed count as taken.
 *
 * Return: free entries, 0 when the ring is full.
 */
static inline unsigned int txrdma_sq_space_left(const struct txrdma_sq *sq)
{
	unsigned int head = __atomic_load_n(sq->khead, __ATOMIC_ACQUIRE);

	return sq->ring_entries - (sq->sqe_tail - head);
}

/**
 * txrdma_sq_ready() - SQEs handed out that the kernel has not consumed
 * @sq: the submission ring
 *
 * Acquire-loads the kernel's head; counts published entries not yet
 * consumed plus entries handed out and not yet flushed.
 *
 * Return: sqe_tail - head.
 */
static inline unsigned int txrdma_sq_ready(const struct txrdma_sq *sq)
{
	return sq->sqe_tail - __atomic_load_n(sq->khead, __ATOMIC_ACQUIRE);
}

/**
 * txrdma_get_sqe() - take the next free submission queue entry
 * @sq: the submission ring
 *
 * Acquire-loads the kernel's head: the kernel release-stores it after it
 * read the entries before it, so once the entry is handed out here the
 * kernel no longer reads it and the process may write it.  The entry is
 * zeroed, so every reserved field is 0 and flags and prio are defaults;
 * fill it with a txrdma_prep_*() call.  It becomes visible to the kernel
 * only at the next txrdma_sq_flush().
 *
 * Return: the entry, or NULL when the ring is full (the kernel has not
 * consumed enough yet; nothing changed).
 */
static inline struct txrdma_sqe *txrdma_get_sqe(struct txrdma_sq *sq)
{
	unsigned int head = __atomic_load_n(sq->khead, __ATOMIC_ACQUIRE);
	unsigned int tail = sq->sqe_tail;
	struct txrdma_sqe *sqe;

	if (tail - head >= sq->ring_entries)
		return NULL;
	sqe = &sq->sqes[tail & sq->ring_mask];
	sq->sqe_tail = tail + 1;
	memset(sqe, 0, sizeof(*sqe));
	return sqe;
}

/**
 * txrdma_prep_rw() - fill an SQE: the fields every opcode shares
 * @sqe: an entry from txrdma_get_sqe() (zeroed: reserved fields stay 0)
 * @op: enum txrdma_op
 * @ep: endpoint id
 * @local_region: id of one of the tenant's regions
 * @local_off: byte offset in it
 * @len: bytes
 * @remote_region: for READ and WRITE, the remote region id, else 0
 * @remote_off: for READ and WRITE, the byte offset in it, else 0
 * @user_data: copied into the CQE
 *
 * Sets flags and prio to 0 (see txrdma_sqe_set_flags() and
 * txrdma_sqe_set_prio() to change them after).  Plain stores: they are
 * published by the release-store of txrdma_sq_flush().
 */
static inline void txrdma_prep_rw(struct txrdma_sqe *sqe, enum txrdma_op op,
				  __u32 ep, __u32 local_region,
				  __u64 local_off, __u32 len,
				  __u32 remote_region, __u64 remote_off,
				  __u64 user_data)
{
	sqe->opcode = (__u8)op;
	sqe->flags = 0;
	sqe->prio = 0;
	sqe->ep = ep;
	sqe->user_data = user_data;
	sqe->local_region = local_region;
	sqe->len = len;
	sqe->local_off = local_off;
	sqe->remote_region = remote_region;
	sqe->remote_off = remote_off;
}

/**
 * txrdma_prep_nop() - an SQE that completes at once
 * @sqe: an entry from txrdma_get_sqe()
 * @ep: endpoint id
 * @user_data: copied into the CQE
 */
static inline void txrdma_prep_nop(struct txrdma_sqe *sqe, __u32 ep,
				   __u64 user_data)
{
	txrdma_prep_rw(sqe, TXRDMA_OP_NOP, ep, 0, 0, 0, 0, 0, user_data);
}

/**
 * txrdma_prep_send() - an SQE that sends a message to the peer endpoint
 * @sqe: an entry from txrdma_get_sqe()
 * @ep: endpoint id
 * @local_region: region holding the payload
 * @local_off: byte offset of the payload in it
 * @len: payload bytes
 * @user_data: copied into the CQE
 */
static inline void txrdma_prep_send(struct txrdma_sqe *sqe, __u32 ep,
				    __u32 local_region, __u64 local_off,
				    __u32 len, __u64 user_data)
{
	txrdma_prep_rw(sqe, TXRDMA_OP_SEND, ep, local_region, local_off, len,
		       0, 0, user_data);
}

/**
 * txrdma_prep_read() - an SQE that reads remote memory into local memory
 * @sqe: an entry from txrdma_get_sqe()
 * @ep: endpoint id
 * @local_region: destination region
 * @local_off: byte offset in it
 * @len: bytes
 * @remote_region: source: the other side's region id, of a range it
 *	exported to this pair (txrdma_ep_exports())
 * @remote_off: byte offset in that region, inside the exported range
 * @user_data: copied into the CQE
 */
static inline void txrdma_prep_read(struct txrdma_sqe *sqe, __u32 ep,
				    __u32 local_region, __u64 local_off,
				    __u32 len, __u32 remote_region,
				    __u64 remote_off, __u64 user_data)
{
	txrdma_prep_rw(sqe, TXRDMA_OP_READ, ep, local_region, local_off, len,
		       remote_region, remote_off, user_data);
}

/**
 * txrdma_prep_write() - an SQE that writes local memory to remote memory
 * @sqe: an entry from txrdma_get_sqe()
 * @ep: endpoint id
 * @local_region: source region
 * @local_off: byte offset in it
 * @len: bytes
 * @remote_region: destination: the other side's region id, of a range
 *	it exported to this pair with write access
 * @remote_off: byte offset in that region, inside the exported range
 * @user_data: copied into the CQE
 */
static inline void txrdma_prep_write(struct txrdma_sqe *sqe, __u32 ep,
				     __u32 local_region, __u64 local_off,
				     __u32 len, __u32 remote_region,
				     __u64 remote_off, __u64 user_data)
{
	txrdma_prep_rw(sqe, TXRDMA_OP_WRITE, ep, local_region, local_off, len,
		       remote_region, remote_off, user_data);
}

/**
 * struct txrdma_bufs - equal send buffers carved from a region
 * @region: the region's id (what SQEs name)
 * @size: bytes per buffer
 * @count: buffers
 * @nfree: buffers free now
 * @off: offset of buffer 0 in the region
 * @base: address of buffer 0 in this process
 * @free: stack of free buffer indices (@nfree of them)
 *
 * Build a message in place in a buffer (txrdma_buf_get()), post it
 * (txrdma_prep_send_buf()), and give the buffer back
 * (txrdma_buf_put()) only when the SEND's CQE came: until then the NIC
 * may still read it.  Not thread-safe, like the rings.
 */
struct txrdma_bufs {
	__u32 region;
	__u32 size;
	__u32 count;
	__u32 nfree;
	__u64 off;
	char *base;
	__u32 *free;
};

/**
 * txrdma_buf_get() - take a free send buffer
 * @b: the pool (txrdma_bufs_init())
 * @idx: its index, for txrdma_prep_send_buf() and txrdma_buf_put()
 *
 * Return: the buffer's address in this process, or NULL when every
 * buffer is in flight (reap SEND completions and put theirs back).
 */
static inline void *txrdma_buf_get(struct txrdma_bufs *b, __u32 *idx)
{
	if (!b->nfree)
		return NULL;
	*idx = b->free[--b->nfree];
	return b->base + (size_t)*idx * b->size;
}

/**
 * txrdma_buf_put() - give a buffer back once its SEND completed
 * @b: the pool
 * @idx: an index txrdma_buf_get() returned and not yet put back
 */
static inline void txrdma_buf_put(struct txrdma_bufs *b, __u32 idx)
{
	b->free[b->nfree++] = idx;
}

/**
 * txrdma_buf_off() - a buffer's offset in its region (what SQEs name)
 * @b: the pool
 * @idx: the buffer
 */
static inline __u64 txrdma_buf_off(const struct txrdma_bufs *b, __u32 idx)
{
	return b->off + (__u64)idx * b->size;
}

/**
 * txrdma_prep_send_buf() - an SQE that sends @len bytes of buffer @idx
 * @sqe: an entry from txrdma_get_sqe()
 * @ep: endpoint id of a pair
 * @b: the pool
 * @idx: the buffer, filled with the message
 * @len: bytes, at most b->size
 * @user_data: copied into the CQE (carry @idx in it to put it back)
 */
static inline void txrdma_prep_send_buf(struct txrdma_sqe *sqe, __u32 ep,
					const struct txrdma_bufs *b, __u32 idx,
					__u32 len, __u64 user_data)
{
	txrdma_prep_send(sqe, ep, b->region, txrdma_buf_off(b, idx), len,
			 user_data);
}

/**
 * txrdma_sqe_set_flags() - set TXRDMA_SQE_F_* on a prepared SQE
 * @sqe: the entry, after its txrdma_prep_*() call
 * @flags: TXRDMA_SQE_F_* (the kernel completes an SQE with unknown bits
 *	with -EINVAL)
 */
static inline void txrdma_sqe_set_flags(struct txrdma_sqe *sqe,
					unsigned int flags)
{
	sqe->flags = (__u16)flags;
}

/**
 * txrdma_sqe_set_prio() - lower the priority class of a prepared SQE
 * @sqe: the entry, after its txrdma_prep_*() call
 * @prio: < TXRDMA_PRIO_CLASSES; lower is served first
 *
 * The kernel serves the SQE in the less urgent of @prio and its tenant's
 * class: a process can lower its SQEs, never raise them.  Order within
 * one ring is kept, so an SQE of a lower class holds back those after
 * it in the same ring: give each class its own ring.
 */
static inline void txrdma_sqe_set_prio(struct txrdma_sqe *sqe,
				       unsigned int prio)
{
	sqe->prio = (__u8)prio;
}

/**
 * txrdma_sq_flush() - publish the SQEs handed out since the last flush
 * @sq: the submission ring
 *
 * Release-stores the new tail: every store the process made to the
 * published entries (and anything before them in program order) is
 * visible to a kernel that acquire-loads this tail.  Only the tail is
 * written; if the kernel's poller may be asleep, check
 * txrdma_sq_needs_wakeup() next.
 *
 * Return: how many entries this call published (0: nothing new, no
 * store made).
 */
static inline unsigned int txrdma_sq_flush(struct txrdma_sq *sq)
{
	unsigned int tail = sq->sqe_tail;
	unsigned int n = tail - sq->sqe_head;

	if (n) {
		sq->sqe_head = tail;
		__atomic_store_n(sq->ktail, tail, __ATOMIC_RELEASE);
	}
	return n;
}

/**
 * txrdma_sq_needs_wakeup() - must the process ring the kernel's doorbell?
 * @sq: the submission ring, after txrdma_sq_flush()
 *
 * Issues a full (sequentially consistent) fence, then reads the flags:
 * the tail store of the flush cannot be reordered after this load.  The
 * kernel's poller, before it sleeps, sets TXRDMA_SQ_F_NEED_WAKEUP, issues
 * a full fence and loads the tail once more.  Of the two, at least one
 * sees the other's store: either the poller sees the new tail and does
 * not sleep, or this call sees the flag and the caller wakes the poller
 * up.  No SQE is left unnoticed (the io_uring SQPOLL pattern).
 *
 * Return: true if TXRDMA_SQ_F_NEED_WAKEUP is set.
 */
static inline bool txrdma_sq_needs_wakeup(const struct txrdma_sq *sq)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return (__atomic_load_n(sq->kflags, __ATOMIC_RELAXED) &
		TXRDMA_SQ_F_NEED_WAKEUP) != 0;
}

/**
 * txrdma_submit() - publish the prepared SQEs and wake the poller if asleep
 * @ctx: the context whose rings @sq describes
 * @sq: its submission ring
 *
 * txrdma_sq_flush(), then txrdma_sq_needs_wakeup() and, only if the
 * poller sleeps, txrdma_rings_enter(): in the steady state no system
 * call.
 *
 * Return: the number of SQEs published, or the negative errno of the
 * doorbell.
 */
static inline int txrdma_submit(struct txrdma_ctx *ctx, struct txrdma_sq *sq)
{
	unsigned int n = txrdma_sq_flush(sq);

	if (txrdma_sq_needs_wakeup(sq)) {
		int ret = txrdma_rings_enter(ctx);

		if (ret)
			return ret;
	}
	return (int)n;
}

/**
 * txrdma_sq_dropped() - SQEs the kernel refused as garbage
 * @sq: the submission ring
 *
 * A relaxed load: a counter for diagnostics, ordered with nothing.
 *
 * Return: the kernel's counter.
 */
static inline unsigned int txrdma_sq_dropped(const struct txrdma_sq *sq)
{
	return __atomic_load_n(sq->kdropped, __ATOMIC_RELAXED);
}

/* ------------------------------------------------------------------ */
/* Completion                                                          */

/**
 * txrdma_cq_ready() - CQEs the kernel has published and the process has
 *	not released
 * @cq: the completion ring
 *
 * Acquire-loads the kernel's tail: the CQEs counted are visible.
 *
 * Return: tail - head.
 */
static inline unsigned int txrdma_cq_ready(const struct txrdma_cq *cq)
{
	return __atomic_load_n(cq->ktail, __ATOMIC_ACQUIRE) - cq->cqe_head;
}

/**
 * txrdma_peek_cqe() - the oldest completion not yet released
 * @cq: the completion ring
 *
 * Acquire-loads the kernel's tail: the kernel release-stores it after it
 * wrote the entries before it, so the entry returned is complete.  It
 * stays valid, and the kernel does not write over it, until
 * txrdma_cq_advance() releases it; calling again without advancing
 * returns the same entry.
 *
 * Return: the entry, or NULL when there is none.
 */
static inline struct txrdma_cqe *txrdma_peek_cqe(struct txrdma_cq *cq)
{
	unsigned int tail = __atomic_load_n(cq->ktail, __ATOMIC_ACQUIRE);
	unsigned int head = cq->cqe_head;

	if (tail == head)
		return NULL;
	return &cq->cqes[head & cq->ring_mask];
}

/**
 * txrdma_peek_batch_cqe() - up to @max completions not yet released
 * @cq: the completion ring
 * @out: receives pointers to the entries, oldest first
 * @max: size of @out
 *
 * One acquire-load of the kernel's tail covers all the entries
 * returned.  They stay valid until txrdma_cq_advance() releases them.
 *
 * Return: how many pointers were stored in @out (0 when there is none).
 */
static inline unsigned int txrdma_peek_batch_cqe(struct txrdma_cq *cq,
						 struct txrdma_cqe **out,
						 unsigned int max)
{
	unsigned int tail = __atomic_load_n(cq->ktail, __ATOMIC_ACQUIRE);
	unsigned int head = cq->cqe_head;
	unsigned int n = tail - head, i;

	if (n > max)
		n = max;
	for (i = 0; i < n; i++)
		out[i] = &cq->cqes[(head + i) & cq->ring_mask];
	return n;
}

/**
 * txrdma_cq_advance() - release @n completions to the kernel
 * @cq: the completion ring
 * @n: how many of the entries peeked at are done with (at most
 *	txrdma_cq_ready())
 *
 * Release-stores the new head: every read the process made of the
 * released entries is complete before the kernel, acquire-loading this
 * head, may write over them.  Do not touch a released entry again.
 */
static inline void txrdma_cq_advance(struct txrdma_cq *cq, unsigned int n)
{
	if (n) {
		cq->cqe_head += n;
		__atomic_store_n(cq->khead, cq->cqe_head, __ATOMIC_RELEASE);
	}
}

/**
 * txrdma_cq_overflow() - CQEs the kernel lost because the ring was full
 * @cq: the completion ring
 *
 * A relaxed load: a counter for diagnostics, ordered with nothing.
 *
 * Return: the kernel's counter.
 */
static inline unsigned int txrdma_cq_overflow(const struct txrdma_cq *cq)
{
	return __atomic_load_n(cq->koverflow, __ATOMIC_RELAXED);
}

/* ------------------------------------------------------------------ */
/* Receiving: an endpoint's receive ring                               */

/**
 * struct txrdma_rx - the process's view of an endpoint's receive ring
 * @ktail: the kernel's word (area + TXRDMA_RX_OFF_TAIL): units published
 * @kerror: the kernel's word (area + TXRDMA_RX_OFF_ERROR): 0, or the
 *	positive errno the endpoint failed with
 * @khead: the process's word (area + TXRDMA_RX_OFF_HEAD): units released
 * @units: the first unit (area + TXRDMA_RX_HDR_LEN)
 * @ring_units: ring size in units, a power of two
 * @ring_mask: @ring_units - 1
 * @head: the process's own copy of *@khead (never read back)
 * @cur_units: units of the frame last peeked, 0 when none is held
 * @look_at: the head from which a release looks at the credit rule
 *	again (txrdma_rx_release()); below it no update can be due
 * @seen_tail: the kernel's tail as the last txrdma_rx_peek() of a
 *	published frame loaded it: a release that leaves the head below
 *	it cannot have emptied the ring
 * @ctx: the context whose poller returns credits (the doorbell)
 * @sq: its submission ring, whose flags say whether the poller sleeps
 *
 * The ring lives in one of the process's regions, at the offset named
 * in txrdma_ep_connect() or txrdma_ep_accept().  The kernel writes
 * frames into it (from the peer, checked), then release-stores the
 * tail; the process acquire-loads the tail, reads the frames, then
 * release-stores its head, and the kernel returns the space to the
 * sender as credits.  Indices are free-running 32-bit unit counters.
 *
 * Threads: one thread at a time per struct txrdma_rx.
 */
struct txrdma_rx {
	const unsigned int *ktail;
	const unsigned int *kerror;
	unsigned int *khead;
	unsigned char *units;
	unsigned int ring_units;
	unsigned int ring_mask;
	unsigned int head;
	unsigned int cur_units;
	unsigned int look_at;
	unsigned int seen_tail;
	struct txrdma_ctx *ctx;
	const struct txrdma_sq *sq;
};

/**
 * txrdma_rx_init() - set up the view of a receive ring
 * @rx: filled on success; left untouched on failure
 * @ctx: the context the endpoint belongs to (for the doorbell)
 * @sq: its submission ring (for TXRDMA_SQ_F_NEED_WAKEUP)
 * @area: where the ring area is in this process: the region's mapping
 *	plus the rx_off given at connect or accept time
 * @units: the rx_units given then
 *
 * Checks the arguments, and that the ring's indices are consistent
 * (tail - head <= @units).  The process starts consuming at the
 * current head.  Call it after txrdma_ep_connect() or
 * txrdma_ep_accept() returned; frames that arrived in between are
 * kept.  Not on the fast path (not inline).
 *
 * Return: 0, or -EINVAL: a NULL argument, @units not a power of two in
 * TXRDMA_RX_MIN_UNITS..TXRDMA_RX_MAX_UNITS, @area not 64-byte aligned
 * or the area wrapping the address space, or inconsistent indices.
 */
int txrdma_rx_init(struct txrdma_rx *rx, struct txrdma_ctx *ctx,
		   const struct txrdma_sq *sq, void *area, __u32 units);

/**
 * txrdma_le32() - a little-endian frame field in host order
 * @v: the field as stored
 *
 * What le32toh() does, without needing <endian.h> to declare it (it
 * does not under a strict -std=c99 or -std=c11).
 *
 * Return: @v in host byte order.
 */
static inline __u32 txrdma_le32(__u32 v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return __builtin_bswap32(v);
#else
	return v;
#endif
}

/**
 * txrdma_rx_ready() - units published and not yet released
 * @rx: the receive ring
 *
 * Acquire-loads the kernel's tail.  Counts frames, the frame held by
 * the last txrdma_rx_peek() and skipped (PAD) units alike: 0 means
 * nothing the kernel published is left to read.  A process that reads
 * ahead (TXRDMA_EP_F_RX_AHEAD) may have taken frames the kernel has
 * not published yet: its head is then ahead of the tail, and this is 0
 * although txrdma_rx_peek() may find a frame.
 *
 * Return: tail - head, in units, or 0 when the head is ahead.
 */
static inline unsigned int txrdma_rx_ready(const struct txrdma_rx *rx)
{
	unsigned int d = __atomic_load_n(rx->ktail, __ATOMIC_ACQUIRE) -
			 rx->head;

	return (int)d > 0 ? d : 0;
}

/*
 * Out of line (lib/txrdma_rx_ahead.c): the frame due at the head, or
 * at unit 0 after a skip, taken before the kernel published it if it
 * checks out in full.  Return: 1 with @payload and @len set, else 0.
 */
int __txrdma_rx_peek_ahead(struct txrdma_rx *rx, const void **payload,
			   __u32 *len);

/*
 * Out of line (lib/txrdma_rx_slow.c, TXRDMA_0.7): txrdma_rx_peek()
 * past its common case, in full (PADs, errors, reading ahead, frames
 * that cannot be the kernel's).  Return: 1 + the payload's length when
 * a message was taken (it starts at the head; at most
 * TXRDMA_FRAME_MAX_PAYLOAD), 0 when none, or a negative errno; nothing is passed by address, so the caller's locals
 * stay in registers.
 */
int __txrdma_rx_peek_slow(struct txrdma_rx *rx) __attribute__((cold));

/* A word of the receive ring's header (TXRDMA_RX_OFF_*). */
static inline unsigned int *__txrdma_rx_word(const struct txrdma_rx *rx,
					     unsigned int off)
{
	return (unsigned int *)((unsigned char *)rx->khead -
				TXRDMA_RX_OFF_HEAD + off);
}

/**
 * txrdma_rx_ahead_taken() - frames this ring's process took ahead
 * @rx: the receive ring
 *
 * With TXRDMA_EP_F_RX_AHEAD, txrdma_rx_peek() takes a frame the kernel
 * has not published yet when it checks out in full; this counts them
 * (free-running, kept in the ring's header by the library).  A relaxed
 * load: a counter for diagnostics and benchmarks.
 *
 * Return: the count.
 */
static inline unsigned int txrdma_rx_ahead_taken(const struct txrdma_rx *rx)
{
	return __atomic_load_n(__txrdma_rx_word(rx, TXRDMA_RX_OFF_AHEAD_TAKEN),
			       __ATOMIC_RELAXED);
}

/**
 * txrdma_rx_peek() - the oldest message not yet released
 * @rx: the receive ring
 * @payload: set to the message's first byte (inside the ring) on 1
 * @len: set to its length in bytes on 1
 *
 * Acquire-loads the kernel's tail: the kernel release-stores it after
 * it checked the frames before it (CRC, sequence, credits), so the
 * frame read here is complete.  A PAD frame (where the sender skipped
 * the end of the ring) is skipped here: its units are released at once
 * and the next frame, at unit 0, is returned.  The message stays valid,
 * and the kernel does not write over it, until txrdma_rx_release();
 * peeking again before that returns the same message.  Its header is
 * txrdma_rx_hdr().
 *
 * When the endpoint was paired with TXRDMA_EP_F_RX_AHEAD and the
 * kernel has published nothing past the head, the frame due next is
 * taken before the kernel publishes it, if it checks out in full
 * (endpoints, epoch, sequence number, size, trailer, CRC32C: uapi
 * "Reading ahead"); a frame that does not is "not yet" (0).  The
 * kernel's verdict stays the authority: an endpoint it fails returns
 * its error here once the frames it published are read, and no frame
 * is read ahead after that.
 *
 * When the ring is empty and the endpoint has failed, the error is
 * returned, but only after every frame published before it: the kernel
 * release-stores the error after its last tail, and an error seen here
 * makes the tail be loaded again.  The error stays: every later call
 * returns it.
 *
 * Return: 1 with @payload and @len set; 0 when there is no message
 * yet; a negative errno when the endpoint failed and every message was
 * read (-ECONNRESET: the other side destroyed its endpoint, -ENOTCONN,
 * -EIO, ...); -EBADMSG when the frame at the head cannot be what the
 * kernel published (unknown type, length past the published units or
 * the end of the ring: memory the process overwrote, or a kernel bug),
 * with nothing changed.
 */
static inline int txrdma_rx_peek(struct txrdma_rx *rx, const void **payload,
				 __u32 *len)
{
	unsigned int tail = __atomic_load_n(rx->ktail, __ATOMIC_ACQUIRE);
	unsigned int avail = tail - rx->head;
	int r;

	/*
	 * The common case inline: a message published at the head that
	 * lies within what was published and before the ring's end.
	 * Everything else (nothing published, a PAD, an error, reading
	 * ahead, a frame that cannot be the kernel's) out of line.
	 */
	if (avail - 1 < rx->ring_units) {
		unsigned int pos = rx->head & rx->ring_mask, n;
		const struct txrdma_frame_hdr *hdr =
			(const struct txrdma_frame_hdr *)
			(rx->units + (size_t)pos * TXRDMA_FRAME_UNIT);
		__u32 l = txrdma_le32(hdr->len);

		/* a trailer after the payload takes room too (F_TRAILER
		 * is bit 1: shifted by 2 it is the trailer's 8 bytes)
		 */
		n = (TXRDMA_FRAME_HDR_LEN + l + TXRDMA_FRAME_UNIT - 1 +
		     ((hdr->flags & TXRDMA_FRAME_F_TRAILER) << 2)) /
		    TXRDMA_FRAME_UNIT;
		if (hdr->type == TXRDMA_FRAME_MSG &&
		    l <= TXRDMA_FRAME_MAX_PAYLOAD && n <= avail &&
		    n <= rx->ring_units - pos) {
			rx->cur_units = n;
			rx->seen_tail = tail;
			*payload = (const unsigned char *)hdr +
				   TXRDMA_FRAME_HDR_LEN;
			*len = l;
			return 1;
		}
	}
	r = __txrdma_rx_peek_slow(rx);
	if (r <= 0)
		return r;
	/* taken at the head (past a PAD or a skip, the head moved) */
	*payload = rx->units + (size_t)(rx->head & rx->ring_mask) *
		   TXRDMA_FRAME_UNIT + TXRDMA_FRAME_HDR_LEN;
	*len = (__u32)(r - 1);
	return 1;
}

/**
 * txrdma_rx_hdr() - the header of the message last peeked
 * @rx: the receive ring
 *
 * Fields are little-endian (txrdma_le32()): src_ep, dst_ep, seq, flags
 * (TXRDMA_FRAME_F_DATA_CRC: the kernel checked the payload's CRC too).
 *
 * Return: the header, valid until txrdma_rx_release(); NULL when no
 * message is held.
 */
static inline const struct txrdma_frame_hdr *
txrdma_rx_hdr(const struct txrdma_rx *rx)
{
	if (!rx->cur_units)
		return NULL;
	return (const struct txrdma_frame_hdr *)
		(rx->units + (size_t)(rx->head & rx->ring_mask) *
		 TXRDMA_FRAME_UNIT);
}

/* Is @rx a session's ring (TXRDMA_RX_F_DUE_EMPTY)? */
static inline bool __txrdma_rx_session(const struct txrdma_rx *rx)
{
	const unsigned char *hdr = (const unsigned char *)rx->ktail -
				   TXRDMA_RX_OFF_TAIL;

	return __atomic_load_n((const unsigned int *)
			       (hdr + TXRDMA_RX_OFF_FLAGS), __ATOMIC_RELAXED) &
	       TXRDMA_RX_F_DUE_EMPTY;
}

/**
 * txrdma_rx_update_due() - would the kernel send an explicit update now?
 * @rx: the receive ring
 * @head: the units released, as just stored
 *
 * The kernel's own rule (txrdma_credit_rx_due() in kmod/txrdma_credit.c,
 * Documentation/design.rst "Credits"), on the words it exports beside
 * its tail: due when a quarter of the ring was released unreported, or
 * when everything that arrived is released and the sender, once it
 * heard of it, could be waiting for some of it (a frame of the largest
 * size and the tail it skips: 2 * max_units - 1), or, on a session's
 * ring (TXRDMA_RX_F_DUE_EMPTY in TXRDMA_RX_OFF_FLAGS), whenever
 * everything that arrived is released or TXRDMA_RX_SESSION_DUE_UNITS
 * are released unreported: its sender completes each SEND only when it
 * hears that.  A stale word (the
 * kernel reported since) errs towards a doorbell, never away from one;
 * so does a word the process overwrote.  With a kernel without
 * TXRDMA_FEAT_RX_CREDIT_WORDS, txrdma_rx_init() fills the words so that
 * this is the older rule: a quarter since the last doorbell, and
 * whenever the ring is empty.
 *
 * Return: true when the poller must be awake to send the update.
 */
static inline bool txrdma_rx_update_due(const struct txrdma_rx *rx,
					unsigned int head)
{
	const unsigned char *hdr = (const unsigned char *)rx->ktail -
				   TXRDMA_RX_OFF_TAIL;
	unsigned int unreported, max;
	unsigned int tail = __atomic_load_n(rx->ktail, __ATOMIC_RELAXED);

	/*
	 * A head released ahead of the kernel's tail (reading ahead)
	 * counts only as far as the tail.  The kernel publishing now
	 * stores its tail, then reads our head (txrdma_rx_take_ahead());
	 * we stored the head, and read its tail after a full fence: one
	 * of the two sees the other's store, so this release is either
	 * taken by the kernel (which wakes its poller when due) or
	 * judged here on the tail it moved to.
	 */
	if ((int)(head - tail) > 0) {
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		tail = __atomic_load_n(rx->ktail, __ATOMIC_RELAXED);
		if ((int)(head - tail) > 0)
			head = tail;
	}
	unreported = head - __atomic_load_n((const unsigned int *)
					    (hdr + TXRDMA_RX_OFF_REPORTED),
					    __ATOMIC_RELAXED);
	if (unreported >= rx->ring_units / 4)
		return true;
	/* a session's sender completes its SENDs on our reports */
	if (__txrdma_rx_session(rx) &&
	    (unreported >= TXRDMA_RX_SESSION_DUE_UNITS ||
	     (head == tail && unreported)))
		return true;
	if (head != tail || !unreported)
		return false;
	max = __atomic_load_n((const unsigned int *)
			      (hdr + TXRDMA_RX_OFF_MAX_UNITS), __ATOMIC_RELAXED);
	return rx->ring_units - unreported < 2 * max - 1;
}

/*
 * An update is due and the doorbell considered.  With a kernel that
 * does not report (txrdma_rx_init() put max_units above half the ring,
 * or the word is 0) the process keeps the reported word itself: this
 * release is the last look.
 */
static inline void __txrdma_rx_note_due(struct txrdma_rx *rx, unsigned int head)
{
	unsigned char *hdr = (unsigned char *)rx->khead - TXRDMA_RX_OFF_HEAD;
	unsigned int max;

	max = __atomic_load_n((unsigned int *)(hdr + TXRDMA_RX_OFF_MAX_UNITS),
			      __ATOMIC_RELAXED);
	/* 0 too: a word the process cleared, or the kernel's set-up after
	 * an early txrdma_rx_init(); a real kernel value is never either
	 */
	if (!max || max > rx->ring_units / 2)
		__atomic_store_n((unsigned int *)(hdr + TXRDMA_RX_OFF_REPORTED),
				 head, __ATOMIC_RELAXED);
}

/*
 * Out of line (lib/txrdma_ring.c): the credit rule looked at in full
 * (txrdma_rx_update_due()), the doorbell considered when an update is
 * due, and @look_at moved to the next head that must look again.
 */
void __txrdma_rx_release_look(struct txrdma_rx *rx, unsigned int head)
	__attribute__((cold));

/**
 * txrdma_rx_release() - give the message last peeked back to the kernel
 * @rx: the receive ring
 *
 * Release-stores the new head: every read of the message is complete
 * before the kernel, acquire-loading the head, lets the sender write
 * over it.  Do not touch the payload again.  Nothing happens when no
 * message is held.
 *
 * The kernel returns the space to the sender as credits: in the next
 * message going the other way, or in an explicit update, which its
 * poller must be awake to send.  So when the kernel's rule says an
 * update is due (txrdma_rx_update_due(): a quarter of the ring
 * unreported, or the sender possibly waiting for these units), the
 * doorbell is considered: txrdma_sq_needs_wakeup() (a full fence, then
 * the flags: the head store cannot pass it) and, only if the poller
 * sleeps, txrdma_rings_enter().  A ping-pong that empties a large ring
 * with each message never rings here: the reply carries the credits.
 * In the steady state no system call; an error of the doorbell is
 * ignored here (the next release that is due rings again).
 *
 * Most releases do not even look at the rule: one that leaves the
 * head below the tail its peek saw has not emptied the ring, and one
 * below @look_at cannot have crossed a quarter (two compares with the
 * struct's own words, no load of the kernel's).
 */
static inline void txrdma_rx_release(struct txrdma_rx *rx)
{
	unsigned int head;

	if (!rx->cur_units)
		return;
	head = rx->head + rx->cur_units;
	rx->head = head;
	rx->cur_units = 0;
	__atomic_store_n(rx->khead, head, __ATOMIC_RELEASE);
	if ((int)(head - rx->seen_tail) < 0 && (int)(head - rx->look_at) < 0)
		return;
	__txrdma_rx_release_look(rx, head);
}

#ifdef __cplusplus
}
#endif

#endif /* TXRDMA_RING_H */
