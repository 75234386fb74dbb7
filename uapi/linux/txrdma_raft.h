/* SPDX-License-Identifier: ((GPL-2.0-only WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * txrdma Raft RPCs: how the messages of a Raft engine (libraft's struct
 * raft_message: RequestVote, AppendEntries, InstallSnapshot, TimeoutNow
 * and the results) travel between replicas as one transport message
 * each (lib/raft/txraft_wire.c encodes and checks them).  Every side
 * (replicas, tools, tracepoints) reads the same bytes.
 *
 * A message is a struct txrdma_raft_hdr, then the body of its @type
 * (below), then the type's variable part:
 *  - APPEND_ENTRIES: @n_entries struct txrdma_raft_entry descriptors,
 *    then each entry's payload in turn, every one padded with zeroes to
 *    a multiple of 8 bytes;
 *  - INSTALL_SNAPSHOT: @n_servers struct txrdma_raft_server, each
 *    followed by its address (@addr_len bytes, no NUL, padded to 8),
 *    then the snapshot's data (@data_len bytes, padded to 8).
 * All integers little-endian; every struct a multiple of 8 bytes, so
 * every field is naturally aligned in a message that starts on an
 * 8-byte boundary.
 *
 * Checks.  A receiver takes a message only when its version is
 * TXRDMA_RAFT_VERSION, its @len is the transport message's length and
 * every count, length and reserved field is what this header allows;
 * an entry only when its CRC32C (Castagnoli, seed ~0, final inversion)
 * over its payload matches @crc, so no replica appends, and no state
 * machine applies, an entry whose bytes changed on the way; the
 * snapshot's data only when @data_crc matches it.  The header's own
 * CRC covers everything else: the header (with @crc zero), the body,
 * the entry descriptors, the servers and their addresses.  A message
 * that fails a check is dropped whole (Raft treats it as lost).
 */
#ifndef _UAPI_LINUX_TXRDMA_RAFT_H
#define _UAPI_LINUX_TXRDMA_RAFT_H

#include <linux/const.h>
#include <linux/types.h>
#include <linux/txrdma_txn.h>

#define TXRDMA_RAFT_MAGIC	0x5446	/* "TF" */
#define TXRDMA_RAFT_VERSION	1

enum txrdma_raft_type {
	TXRDMA_RAFT_APPEND_ENTRIES		= 1,
	TXRDMA_RAFT_APPEND_ENTRIES_RESULT	= 2,
	TXRDMA_RAFT_REQUEST_VOTE		= 3,
	TXRDMA_RAFT_REQUEST_VOTE_RESULT		= 4,
	TXRDMA_RAFT_INSTALL_SNAPSHOT		= 5,
	TXRDMA_RAFT_TIMEOUT_NOW			= 6,
};

/* entry types, as Raft engines name them (libraft: RAFT_COMMAND, ...) */
enum txrdma_raft_entry_type {
	TXRDMA_RAFT_ENTRY_COMMAND	= 1,	/* for the state machine */
	TXRDMA_RAFT_ENTRY_BARRIER	= 2,	/* no payload to apply */
	TXRDMA_RAFT_ENTRY_CHANGE	= 3,	/* a configuration */
};

/* RequestVote flags */
#define TXRDMA_RAFT_VOTE_F_DISRUPT	_BITUL(0)	/* discard the leader */
#define TXRDMA_RAFT_VOTE_F_PRE		_BITUL(1)	/* a pre-vote */
#define TXRDMA_RAFT_VOTE_FLAGS		(TXRDMA_RAFT_VOTE_F_DISRUPT | \
					 TXRDMA_RAFT_VOTE_F_PRE)

/* RequestVoteResult flags */
#define TXRDMA_RAFT_RESULT_F_GRANTED	_BITUL(0)
#define TXRDMA_RAFT_RESULT_F_PRE_KNOWN	_BITUL(1)	/* F_PRE is meaningful */
#define TXRDMA_RAFT_RESULT_F_PRE	_BITUL(2)	/* answers a pre-vote */
#define TXRDMA_RAFT_RESULT_FLAGS	(TXRDMA_RAFT_RESULT_F_GRANTED | \
					 TXRDMA_RAFT_RESULT_F_PRE_KNOWN | \
					 TXRDMA_RAFT_RESULT_F_PRE)

/* limits a receiver enforces before it allocates anything */
#define TXRDMA_RAFT_MAX_ENTRIES		65536	/* per AppendEntries */
#define TXRDMA_RAFT_MAX_SERVERS		256	/* per configuration */
#define TXRDMA_RAFT_MAX_ADDR		255	/* bytes of an address */

struct txrdma_raft_hdr {
	__le16	magic;		/* TXRDMA_RAFT_MAGIC */
	__u8	version;	/* TXRDMA_RAFT_VERSION */
	__u8	type;		/* enum txrdma_raft_type */
	__le32	len;		/* the whole message, this header included */
	__le64	from;		/* the sender's server id (not 0) */
	__le64	term;		/* the sender's term */
	__le32	crc;		/* CRC32C: see the top of this file */
	__le32	resv;		/* 0 */
};

struct txrdma_raft_request_vote {
	__le64	candidate;	/* the server asking for the vote */
	__le64	last_log_index;
	__le64	last_log_term;
	__le32	flags;		/* TXRDMA_RAFT_VOTE_F_* */
	__le32	resv;		/* 0 */
};

struct txrdma_raft_request_vote_result {
	__le32	flags;		/* TXRDMA_RAFT_RESULT_F_* */
	__le32	resv;		/* 0 */
};

struct txrdma_raft_append_entries {
	__le64	prev_log_index;
	__le64	prev_log_term;
	__le64	leader_commit;
	__le32	n_entries;	/* at most TXRDMA_RAFT_MAX_ENTRIES */
	__le32	resv;		/* 0 */
};

struct txrdma_raft_entry {
	__le64	term;
	__le32	len;		/* payload bytes */
	__le32	crc;		/* CRC32C of the payload */
	__u8	type;		/* enum txrdma_raft_entry_type */
	__u8	resv[7];	/* 0 */
};

struct txrdma_raft_append_entries_result {
	__le64	rejected;	/* 0, or the index that was rejected */
	__le64	last_log_index;	/* the receiver's, as a hint */
};

struct txrdma_raft_install_snapshot {
	__le64	last_index;
	__le64	last_term;
	__le64	conf_index;	/* the index the configuration is of */
	__le64	data_len;	/* snapshot bytes after the servers */
	__le32	n_servers;	/* at most TXRDMA_RAFT_MAX_SERVERS */
	__le32	data_crc;	/* CRC32C of the snapshot bytes */
};

struct txrdma_raft_server {
	__le64	id;		/* not 0 */
	__u8	role;		/* 0 standby, 1 voter, 2 spare (libraft's) */
	__u8	addr_len;	/* at most TXRDMA_RAFT_MAX_ADDR */
	__u8	resv[6];	/* 0 */
};

struct txrdma_raft_timeout_now {
	__le64	last_log_index;
	__le64	last_log_term;
};

/*
 * The transaction layer's decision log on Raft (lib/raft/txraft_dlog.c):
 * each Raft command is one record.  COMMIT: a coordinator decided to
 * commit transaction @id over the @nnodes participants whose node ids
 * follow (__le32 each); no COMMIT record of the transaction protocol
 * leaves before this command is committed.  FORGET: every participant
 * ACKed @id; the log holds it no more (@nnodes 0).  A snapshot of the
 * log is the COMMIT records it holds, one after another.
 */
enum txrdma_dlog_type {
	TXRDMA_DLOG_COMMIT = 1,
	TXRDMA_DLOG_FORGET = 2,
};

#define TXRDMA_DLOG_MAX_NODES	256	/* participants of one COMMIT */

struct txrdma_dlog_rec {
	__u8	type;		/* enum txrdma_dlog_type */
	__u8	resv0;		/* 0 */
	__le16	nnodes;
	__le32	resv1;		/* 0 */
	struct txrdma_txn_id id;
	/* __le32 nodes[nnodes] */
};

#endif /* _UAPI_LINUX_TXRDMA_RAFT_H */
