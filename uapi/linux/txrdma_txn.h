/* SPDX-License-Identifier: ((GPL-2.0-only WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * txrdma transaction records: what the transaction layer (lib/txn,
 * libtxrdma_txn) puts in the payload of a message.  Over txrdma the
 * message is a SEND's frame (uapi/linux/txrdma_ring.h), whose header
 * already names the endpoints, orders the frames and carries a CRC;
 * over TCP it is a length-prefixed message on one connection.  Every
 * side (coordinator, participant, tracepoints, tools) reads the same
 * bytes.
 *
 * A message is a batch: a struct txrdma_txn_batch, then @count records
 * back to back.  A record is a struct txrdma_txn_rec, then @len bytes of
 * payload, then zeroes up to the next multiple of 8: records (and the
 * ids in them) stay 8-byte aligned wherever the batch starts on an
 * 8-byte boundary.  Many records of different transactions share one
 * batch (a coordinator's PREPAREs to one participant, a participant's
 * VOTEs and ACKs); the records of one transaction are sent in order.
 *
 * Transactions are named by struct txrdma_txn_id: the coordinator's
 * node id, its incarnation (epoch: a coordinator that restarts takes a
 * new one, so it never reuses an id) and a sequence number within the
 * incarnation.
 *
 * Records and what they carry (presumed abort: a participant that
 * asks about a transaction its coordinator does not know is told
 * ABORT):
 *   PREPARE   coordinator -> participant: @nparts participants' node ids
 *             (__le32 each) lead the payload, then the caller's bytes
 *   VOTE      participant -> coordinator: TXRDMA_TXN_F_YES, or a no with
 *             a reason in @arg (an errno-like code of the caller's)
 *   COMMIT    coordinator -> participant: the decision (logged first)
 *   ABORT     coordinator -> participant: the decision
 *   ACK       participant -> coordinator: the decision in @arg
 *             (TXRDMA_TXN_COMMIT or TXRDMA_TXN_ABORT) is applied
 *   INQUIRE   participant -> coordinator: in doubt, what was decided?
 *
 * All fields are little-endian.  Reserved fields and flags that a
 * record's type does not define are 0; a reader refuses a batch that
 * breaks any rule here (and never reads past the bytes it was given).
 */
#ifndef _UAPI_LINUX_TXRDMA_TXN_H
#define _UAPI_LINUX_TXRDMA_TXN_H

#include <linux/const.h>
#include <linux/types.h>

#define TXRDMA_TXN_MAGIC	0x314e5854	/* "TXN1", little-endian */
#define TXRDMA_TXN_VERSION	1
#define TXRDMA_TXN_ALIGN	8

/**
 * struct txrdma_txn_batch - the head of a message of records
 * @magic: TXRDMA_TXN_MAGIC
 * @version: TXRDMA_TXN_VERSION
 * @flags: 0
 * @count: records that follow, at least 1
 * @len: bytes of the records (headers, payloads, padding): the batch is
 *	sizeof(struct txrdma_txn_batch) + @len bytes, nothing after
 * @resv: 0
 */
struct txrdma_txn_batch {
	__le32 magic;
	__u8 version;
	__u8 flags;
	__le16 count;
	__le32 len;
	__le32 resv;
};

/**
 * struct txrdma_txn_id - a transaction, unique across restarts
 * @coord: the coordinator's node id (not 0)
 * @epoch: the coordinator's incarnation (not 0)
 * @seq: the transaction within the incarnation, from 1
 */
struct txrdma_txn_id {
	__le32 coord;
	__le32 epoch;
	__le64 seq;
};

enum txrdma_txn_type {
	TXRDMA_TXN_PREPARE	= 1,
	TXRDMA_TXN_VOTE		= 2,
	TXRDMA_TXN_COMMIT	= 3,
	TXRDMA_TXN_ABORT	= 4,
	TXRDMA_TXN_ACK		= 5,
	TXRDMA_TXN_INQUIRE	= 6,
};

/* struct txrdma_txn_rec.flags */
#define TXRDMA_TXN_F_YES	_BITUL(0)	/* VOTE: yes (else no) */

/* a PREPARE names at most this many participants */
#define TXRDMA_TXN_MAX_PARTS	64

/**
 * struct txrdma_txn_rec - one record of a batch
 * @type: enum txrdma_txn_type
 * @flags: VOTE: TXRDMA_TXN_F_YES or 0; other types: 0
 * @nparts: PREPARE: participants, 1..TXRDMA_TXN_MAX_PARTS, their node
 *	ids leading the payload; other types: 0
 * @len: payload bytes after this header (PREPARE: 4 * @nparts and
 *	more; VOTE, COMMIT, ABORT, ACK, INQUIRE: 0), padding not counted
 * @id: the transaction
 * @arg: VOTE without TXRDMA_TXN_F_YES: the reason, not 0; ACK:
 *	TXRDMA_TXN_COMMIT or TXRDMA_TXN_ABORT; other types: 0
 * @resv: 0
 */
struct txrdma_txn_rec {
	__u8 type;
	__u8 flags;
	__le16 nparts;
	__le32 len;
	struct txrdma_txn_id id;
	__le32 arg;
	__le32 resv;
};

#endif /* _UAPI_LINUX_TXRDMA_TXN_H */
