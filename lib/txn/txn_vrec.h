/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Versioned records (uapi/linux/txrdma_vrec.h) as pure logic, for
 * consistent one-sided reads: the writer's update protocol on a slot in
 * its own (exported) memory, and the reader's checks on a copy that an
 * RDMA READ brought, plus the helpers a reader needs around them
 * (version vectors, bounded retries, tables).  No I/O, no allocation:
 * posting the READs is the caller's, and host tests drive it all with
 * threads standing in for the NIC.
 *
 * Errors: -EINVAL for what can never become valid (bad arguments, a copy
 * that is not a slot of the capacity named), -EAGAIN for a copy that may
 * be torn or was taken during a write (READ it again), -EBUSY for a slot
 * already being written, or a read given up after its retries.
 */
#ifndef TXN_VREC_H
#define TXN_VREC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/txrdma_vrec.h>

/*
 * Writer side.  One writer per slot (the caller serialises writers);
 * any number of readers, local or remote, READ the slot at any time
 * after txn_vrec_init() returned and the slot was exported.  @slot is
 * 8-byte aligned and TXRDMA_VREC_SLOT_SIZE(@cap) bytes; @cap is a
 * multiple of 8, 8..TXRDMA_VREC_MAX_CAP, and the same on every call for
 * a slot.  Nothing is written on an error.
 */

/*
 * Make an empty record (version 0, no payload), zeroing the slot, before
 * any reader can see the slot.  Return: 0 or -EINVAL.
 */
int txn_vrec_init(void *slot, uint32_t cap);

/*
 * Replace the record with @len bytes at @data (@len <= @cap; @data may
 * be the slot's own payload, to keep the value under a new version, and
 * must not otherwise overlap the slot).  Return: 0; -EINVAL (bad
 * argument, or @slot is not a slot of @cap); -EBUSY (txn_vrec_begin()
 * left it odd: finish that with txn_vrec_commit()).
 */
int txn_vrec_write(void *slot, uint32_t cap, const void *data, uint32_t len);

/*
 * The same in two steps, for a writer that changes several records as
 * one: txn_vrec_begin() on every one of them first (each is then odd:
 * readers refuse it, version re-reads see it changing), then
 * txn_vrec_commit() on each.  A slot left odd (a writer that stopped
 * between the two) is finished by txn_vrec_commit().
 * begin: 0, -EINVAL, -EBUSY (already odd).
 * commit: 0, -EINVAL (bad argument, or the slot is not odd).
 */
int txn_vrec_begin(void *slot, uint32_t cap);
int txn_vrec_commit(void *slot, uint32_t cap, const void *data, uint32_t len);

/* The slot's header version, as it is in memory (an acquire load). */
uint64_t txn_vrec_version(const void *slot);

/*
 * Reader side.  @copy holds the TXRDMA_VREC_SLOT_SIZE(@cap) bytes a READ
 * of a slot brought (any alignment), no longer changing.
 */

/* an accepted copy: @data points into the copy */
struct txn_vrec_view {
	uint64_t version;
	const void *data;
	uint32_t len;
};

/*
 * Check a copy by the rules of uapi/linux/txrdma_vrec.h.  Return: 0 and
 * @view filled when the copy is the value of version @view->version;
 * -EAGAIN when it may be torn or was taken during a write (READ it
 * again); -EINVAL when it can never be valid (bad argument, the bytes
 * are not a slot of capacity @cap, a writer broke the format).  @view is
 * written only on success.
 */
int txn_vrec_check(const void *copy, uint32_t cap, struct txn_vrec_view *view);

/*
 * Version vector validation: @first[i] is the version of the accepted
 * copy of record i (host-endian), @reread[i] the 8 bytes READ again at
 * TXRDMA_VREC_VERSION_OFF of its slot after every first READ completed,
 * as they came (little-endian).  Sets bit i of @changed (an array of
 * (@n + 63) / 64 words; bits past @n cleared; may be NULL) when record i
 * changed or is being written.  Return: the number of such records, 0
 * when the copies show one instant; -EINVAL (NULL array with @n > 0, or
 * an odd @first[i]: not the version of an accepted copy).
 */
int txn_vrec_validate(const uint64_t *first, const uint64_t *reread,
		      unsigned int n, uint64_t *changed);

static inline bool txn_vrec_changed(const uint64_t *changed, unsigned int i)
{
	return changed[i / 64] >> (i % 64) & 1;
}

/*
 * Bounded retries: call txn_vrec_retry_next() with each attempt's
 * result.  Return: 0 when @err is 0 (done); -EAGAIN when @err is -EAGAIN
 * and fewer than @max attempts were made (try again); -EBUSY when @err
 * is -EAGAIN on the @max-th attempt (given up: the record kept changing,
 * or is broken in a way only a retry limit tells); @err otherwise.  Each
 * return but -EAGAIN ends the read: the next call starts a new one.
 */
#define TXN_VREC_RETRY_DEFAULT	16

struct txn_vrec_retry {
	unsigned int max;	/* attempts per read */
	unsigned int attempt;	/* attempts of the read under way */
	uint64_t retries;	/* attempts retried, over all reads */
	uint64_t gave_up;	/* reads given up */
};

/* @max 0: TXN_VREC_RETRY_DEFAULT */
void txn_vrec_retry_init(struct txn_vrec_retry *r, unsigned int max);
int txn_vrec_retry_next(struct txn_vrec_retry *r, int err);

/*
 * Tables of @nslots slots of capacity @cap (uapi "Tables").
 * txn_vrec_table_size(): bytes of the table, 0 for a bad @cap or @nslots.
 * txn_vrec_table_init(): write the table header and make every slot
 * empty in @buf (8-byte aligned, 64 recommended; at least the table's
 * size), before the range is exported.  0 or -EINVAL.
 * txn_vrec_table_slot(): slot @i of the table at @table, NULL when @i is
 * out of range or @table is not a table.
 * txn_vrec_table_check(): a reader's check of a copy of the 64-byte
 * table header: 0 with @cap and @nslots set, or -EINVAL.
 */
size_t txn_vrec_table_size(uint32_t cap, uint32_t nslots);
int txn_vrec_table_init(void *buf, size_t size, uint32_t cap, uint32_t nslots);
void *txn_vrec_table_slot(void *table, uint32_t i);
int txn_vrec_table_check(const void *copy, uint32_t *cap, uint32_t *nslots);

#endif /* TXN_VREC_H */
