/* SPDX-License-Identifier: ((GPL-2.0-only WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * txrdma log shipping: an append-only log that one writer places, by
 * RDMA WRITEs in batches, into a region at the reader's side (exported
 * by the reader, one region per writer).  The reader merges the logs of
 * several writers in causal order: every entry carries a vector clock
 * over the writers of the group (lib/txn/txn_log.c says why a vector
 * clock and not a hybrid logical clock).  Every side (writers, reader,
 * tools) reads the same bytes.
 *
 * The region is a ring of @ring_size bytes: a multiple of
 * TXRDMA_TLOG_ALIGN, at most TXRDMA_TLOG_MAX_RING, agreed when the
 * region is set up, as are the writer's id and the group's number of
 * writers.  Positions in the log are free-running byte counts from 0:
 * the entry at position P lies at offset P % @ring_size.  An entry is a
 * struct txrdma_tlog_hdr, then @nclock clock components (__le64 each),
 * then @len bytes of payload, then zeroes up to the next multiple of
 * TXRDMA_TLOG_ALIGN:
 *
 *	sizeof(struct txrdma_tlog_hdr) + 8 * @nclock + ALIGN(@len, 8)
 *
 * bytes, so every entry, every header field and every clock component
 * is naturally aligned wherever the ring starts on an 8-byte boundary.
 * The next entry starts where one ends, except at the ring's end:
 *  - an entry never crosses the ring's end: where the next one does not
 *    fit in the bytes left before it, the writer puts a PAD entry
 *    there (a header only, @len: the bytes after it up to the ring's
 *    end) and the entry at the ring's start, at the next lap's
 *    position;
 *  - where fewer bytes than a header are left before the ring's end,
 *    the next entry starts at the ring's start, at the next lap's
 *    position, without a PAD (there is no room for one); those bytes
 *    are neither written nor read.
 * An entry takes at most half the ring, so one always fits an empty
 * ring wherever the last one ended.
 *
 * Clocks.  The group's writers are numbered 0..@nclock-1, and every
 * entry of the group carries @nclock components.  Component i of an
 * entry of writer j is, for i == j, the entry's sequence number in
 * j's log (from 1, one more per entry) and, for i != j, how many
 * entries of writer i the writer had observed, directly or through
 * other entries' clocks, when it appended the entry.  Entry e happened
 * before entry f iff e's own component is at most f's component of
 * e's writer.
 *
 * When the reader may take an entry.  An RDMA WRITE's bytes become
 * visible in no guaranteed order, and the ring holds older laps'
 * entries and, before its first lap, zeroes or anything else.  So
 * nothing in the bytes at the reader's position means "complete"
 * except all of them together: the reader, due at position P, takes
 * the entry there only when
 *  1. @magic is TXRDMA_TLOG_MAGIC and @pos is P: an older lap's entry
 *     at the same offset names an older position, so it is never
 *     taken, however intact;
 *  2. its size (from @type, @nclock, @len) fits in the bytes left
 *     before the ring's end;
 *  3. the CRC32C in @crc matches its bytes: a header that arrived
 *     while the clock or payload behind it did not (or only in part)
 *     fails it, and so does any torn mix of two laps' bytes (but with
 *     probability 2^-32 per torn state looked at; with 1. that state
 *     must also carry the position due, which a previous lap's bytes
 *     never do);
 * and otherwise it is "not yet": it looks again later.  An all-zero
 * region has no magic and fails the CRC (whose seed and final
 * inversion make the CRC of zeroes not zero), so it is never taken.
 * An entry whose bytes check out but break a rule below (a @writer,
 * @nclock, @resv, padding or PAD @len other than the ones due, an own
 * clock component of 0) cannot be a partly written one: the writer
 * wrote it so, and the reader treats it as the writer's error.  A
 * partly written entry and a corrupt one look the same, so the reader
 * bounds how long it waits for the entry due (its own policy, e.g. the
 * writer says by another channel that its WRITEs up to a position
 * completed).
 *
 * Flow control.  The reader tells the writer, by a channel of its own,
 * the position up to which it consumed (a position it reached: an
 * entry's end, or the next lap's start after a PAD); the writer never
 * writes a byte of a position at or beyond that one plus @ring_size, so
 * it never overwrites what the reader has not consumed.  The reader
 * may use an entry's bytes in place until it tells the writer it
 * consumed them.
 *
 * A writer that restarts (or a region reused without being zeroed)
 * must not repeat positions: it resumes at or after the position the
 * reader consumed plus @ring_size (the reader due there too), and at
 * the sequence number after the last one the reader took; whatever an
 * earlier incarnation left in the ring then names older positions.
 *
 * CRC32C (Castagnoli, reflected 0x82f63b78), seed ~0, final inversion
 * (as iSCSI), over the entry's bytes from its header to the end of its
 * padding, with @crc taken as 0; for a PAD over its header only.
 *
 * All fields are little-endian.
 */
#ifndef _UAPI_LINUX_TXRDMA_TLOG_H
#define _UAPI_LINUX_TXRDMA_TLOG_H

#include <linux/const.h>
#include <linux/types.h>

#define TXRDMA_TLOG_MAGIC	0x31474c54	/* "TLG1", little-endian */
#define TXRDMA_TLOG_ALIGN	8
#define TXRDMA_TLOG_MAX_CLOCK	16	/* writers of a group, at most */
#define TXRDMA_TLOG_MAX_RING	_BITULL(32)	/* a PAD's @len fits */

enum txrdma_tlog_type {
	TXRDMA_TLOG_ENTRY	= 1,
	TXRDMA_TLOG_PAD		= 2,
};

/**
 * struct txrdma_tlog_hdr - the head of a log entry (32 bytes)
 * @magic: TXRDMA_TLOG_MAGIC
 * @type: enum txrdma_tlog_type
 * @nclock: ENTRY: clock components after this header, the group's
 *	number of writers, 1..TXRDMA_TLOG_MAX_CLOCK; PAD: 0
 * @writer: the writer whose log this is, 0..@nclock-1
 * @len: ENTRY: payload bytes (padding not counted); PAD: bytes after
 *	this header up to the ring's end
 * @crc: CRC32C of the entry (see above)
 * @pos: the entry's position in the log, free-running (its offset in
 *	the ring is @pos % ring size)
 * @resv: 0
 */
struct txrdma_tlog_hdr {
	__le32 magic;
	__u8 type;
	__u8 nclock;
	__le16 writer;
	__le32 len;
	__le32 crc;
	__le64 pos;
	__le64 resv;
};

#endif /* _UAPI_LINUX_TXRDMA_TLOG_H */
