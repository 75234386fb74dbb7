/* SPDX-License-Identifier: ((GPL-2.0-only WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * txrdma versioned records: records that a writer keeps in memory it
 * exports (TXRDMA_IOC_EP_EXPORT), for readers on other hosts that fetch
 * one with a single RDMA READ (TXRDMA_OP_READ) and must tell a copy they
 * can trust from a torn one without asking the writer (FaRM-style
 * optimistic one-sided reads).  The writer never waits for readers and
 * never knows of them.
 *
 * An RDMA READ copies the bytes in no order the IB specification
 * promises, and may run while the writer rewrites the same record: a
 * copy can hold any byte of any state the record passed through while
 * it ran.  The checks below refuse every such mix except the copies
 * that equal, byte for byte, one value the writer committed.
 *
 * A slot of capacity @cap (a multiple of 8, 8..TXRDMA_VREC_MAX_CAP,
 * chosen when the slot is made and fixed) takes TXRDMA_VREC_SLOT_SIZE(cap)
 * = @cap + 32 bytes and starts 8-byte aligned (64 in a table):
 *
 *	0		struct txrdma_vrec_hdr (24 bytes)
 *	24		the payload: @len bytes, then zeroes up to the next
 *			multiple of 8 (the padding), then unused bytes up to
 *			@cap (any value: what longer values left behind; not
 *			part of the record)
 *	24 + @cap	struct txrdma_vrec_tail (8 bytes): the version again
 *
 * The trailer sits at the end of the slot, not after the payload, so
 * that its place never depends on a length that may be torn, and so
 * that header and trailer bracket every byte a write changes.  A reader
 * READs the whole slot.
 *
 * Versions: even when the record is stable, odd while it is being
 * written; 0 after the slot is made, +2 per write (2^63 writes before
 * it wraps: never).  A write (one writer per slot) goes:
 *	W1  header and trailer version to V + 1 (odd), in either order;
 *	W2  payload, padding, @len, @crc;
 *	W3  trailer and header version to V + 2, in either order;
 * and every store of a step reaches memory (as a NIC's DMA read sees
 * it) before any store of the next.  8-byte words are stored whole.
 *
 * A reader may trust a copy when, and only when, all of these hold:
 *  1. hdr.cap is the capacity the reader expects and hdr.resv is 0;
 *  2. hdr.version is even;
 *  3. tail.version equals hdr.version;
 *  4. hdr.len <= @cap;
 *  5. hdr.crc is the CRC32C (Castagnoli, seed ~0, final inversion) over
 *     the 24 header bytes with @crc taken as 0, then the payload and
 *     its padding (TXRDMA_VREC_PAD(len) bytes from offset 24);
 *  6. the padding is zero.
 * The copy is then the value of version hdr.version: hdr.len bytes from
 * offset 24.  Why each check is needed against an unordered copy:
 *  1. @cap and @resv are written once, when the slot is made: a copy
 *     cannot tear them, so a mismatch means the reader's idea of the
 *     slot (offset, capacity) is wrong, or the bytes are not a slot.
 *     Never worth a retry.
 *  2. An odd version: the header was read during a write (after W1,
 *     before W3).  It is also what a re-read of the version word alone
 *     sees while a write is under way (version vectors, below).
 *  3. The header and the trailer read at different times, a write in
 *     between (old header with new trailer, or the other way round).
 *     When the copy runs in ascending or in descending address order
 *     (RDMA NICs fetch in ascending order in practice; the IB
 *     specification does not promise it), 2 and 3 alone prove it untorn:
 *     header and trailer bracket the payload, a write marks both odd
 *     before it touches a payload byte and makes both even only after
 *     the last one, so equal even versions read first and last mean no
 *     payload byte changed between those two reads.
 *  4. A length copied byte by byte from two lengths, each within @cap,
 *     can exceed @cap (0x0100 and 0x00ff give 0x01ff); a reader never
 *     looks past the slot for it.  Torn, hence a retry: a correct
 *     writer never stores such a length, so a length beyond the slot is
 *     never proof that the slot is broken.
 *  5. A copy in no particular order can read header and trailer both
 *     before a write (or both after it) and payload bytes during it, or
 *     span two writes: versions equal and even, payload partly new.
 *     Only the CRC refuses that (all but 2^-32 of such copies: no order
 *     assumed, the CRC is the guarantee; in address order it is a second
 *     line behind 2 and 3).  It covers the version, so that new versions
 *     over an older payload and CRC are refused even when the payload
 *     bytes happen to be the same (an A-B-A of values), and the length,
 *     so that a torn length does not pass.  Anything that only fails
 *     checks 2-5 may be torn: retry.
 *  6. Zero padding under a matching CRC was written so: a writer's bug,
 *     never worth a retry.
 *
 * Version vectors: to read several records as of one instant, READ each
 * (accept each copy as above), then, after every READ has completed
 * (its CQE; or, within one endpoint pair, post the re-reads with
 * TXRDMA_SQE_F_FENCE), READ again the 8 bytes at TXRDMA_VREC_VERSION_OFF
 * of each slot.  When
 * every re-read version equals the version of the accepted copy, there
 * was an instant (between the last copy and the first re-read) when
 * every record held the value copied: versions only grow, and a write
 * makes the header odd before it changes a payload byte.  A re-read
 * that differs (larger, or odd) names a record that changed: read again
 * or report the conflict.  A writer that changes several records at
 * once (a transaction) marks every one of them odd (W1) before it
 * writes any (W2), so a reader never sees part of it.  A re-read torn
 * byte by byte still proves the version held at the time its low byte
 * was read, unless the record was written 128 times or more since the
 * first copy.
 *
 * Tables: N slots of one capacity, for a reader to index.  A struct
 * txrdma_vrec_table (64 bytes) starts the range; slot i (from 0) is at
 * TXRDMA_VREC_TABLE_SLOT_OFF(cap, i), slots TXRDMA_VREC_STRIDE(cap)
 * bytes apart (the slot size rounded up to 64).  The range should
 * start 64-byte aligned in its region so that every slot starts on a
 * cache line.  The table header is written once, before the range is
 * exported, and never changes.
 *
 * All fields are little-endian.  Reserved fields are 0.
 */
#ifndef _UAPI_LINUX_TXRDMA_VREC_H
#define _UAPI_LINUX_TXRDMA_VREC_H

#include <linux/types.h>

#define TXRDMA_VREC_ALIGN	8
#define TXRDMA_VREC_HDR_SIZE	24
#define TXRDMA_VREC_TAIL_SIZE	8
#define TXRDMA_VREC_VERSION_OFF	0	/* what a version re-read READs */
#define TXRDMA_VREC_PAYLOAD_OFF	TXRDMA_VREC_HDR_SIZE
/* the largest capacity: a slot then fits one READ (TXRDMA_SQE_MAX_LEN) */
#define TXRDMA_VREC_MAX_CAP	0x40000000U

/* @n rounded up to a multiple of 8 */
#define TXRDMA_VREC_PAD(n)	(((__u64)(n) + 7) & ~(__u64)7)
/* bytes of a slot of capacity @cap; the trailer's offset in it */
#define TXRDMA_VREC_SLOT_SIZE(cap) \
	((__u64)(cap) + TXRDMA_VREC_HDR_SIZE + TXRDMA_VREC_TAIL_SIZE)
#define TXRDMA_VREC_TAIL_OFF(cap)	((__u64)(cap) + TXRDMA_VREC_HDR_SIZE)

/**
 * struct txrdma_vrec_hdr - the head of a slot
 * @version: even: stable; odd: being written
 * @len: payload bytes, at most @cap, padding not counted
 * @crc: CRC32C over this header (with @crc as 0), payload and padding
 * @cap: the slot's capacity, a multiple of 8 (fixed when made)
 * @resv: 0
 */
struct txrdma_vrec_hdr {
	__le64 version;
	__le32 len;
	__le32 crc;
	__le32 cap;
	__le32 resv;
};

/**
 * struct txrdma_vrec_tail - the end of a slot, at TXRDMA_VREC_TAIL_OFF()
 * @version: the header's @version, when the slot is stable
 */
struct txrdma_vrec_tail {
	__le64 version;
};

#define TXRDMA_VREC_MAGIC		0x31435256	/* "VRC1", little-endian */
#define TXRDMA_VREC_TABLE_VERSION	1
#define TXRDMA_VREC_TABLE_HDR_SIZE	64

/* slot stride in a table, and slot @i's offset from the table's start */
#define TXRDMA_VREC_STRIDE(cap) \
	((TXRDMA_VREC_SLOT_SIZE(cap) + 63) & ~(__u64)63)
#define TXRDMA_VREC_TABLE_SLOT_OFF(cap, i) \
	(TXRDMA_VREC_TABLE_HDR_SIZE + (__u64)(i) * TXRDMA_VREC_STRIDE(cap))

/**
 * struct txrdma_vrec_table - the head of a table of slots
 * @magic: TXRDMA_VREC_MAGIC
 * @version: TXRDMA_VREC_TABLE_VERSION
 * @flags: 0
 * @resv0: 0
 * @cap: every slot's capacity
 * @stride: TXRDMA_VREC_STRIDE(@cap), so that a reader checks its sums
 * @nslots: slots that follow, at least 1
 * @resv1: 0
 * @resv2: 0
 */
struct txrdma_vrec_table {
	__le32 magic;
	__u8 version;
	__u8 flags;
	__le16 resv0;
	__le32 cap;
	__le32 stride;
	__le32 nslots;
	__le32 resv1;
	__le64 resv2[5];
};

#endif /* _UAPI_LINUX_TXRDMA_VREC_H */
