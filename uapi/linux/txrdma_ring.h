/* SPDX-License-Identifier: ((GPL-2.0-only WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * txrdma data path ABI: the rings a process shares with the kernel and
 * the frame that travels between two modules.
 *
 * Modelled on io_uring: the process produces submission queue entries
 * (SQEs) and consumes completion queue entries (CQEs) in memory it maps
 * from /dev/txrdma; the kernel's poller consumes SQEs and produces CQEs.
 * The library finds every field through the offsets the kernel returns
 * (struct txrdma_sq_offsets, struct txrdma_cq_offsets), never through a
 * layout compiled in.  Indices are free-running __u32 counters, masked
 * with (entries - 1) on use; entries is a power of two.  A producer
 * stores an entry, then release-stores its tail; a consumer
 * acquire-loads the tail, reads the entry, then release-stores its head.
 *
 * The kernel keeps its own copy of every index it owns and of every
 * mask, and trusts nothing user space writes: a user tail more than
 * @entries ahead of the kernel's head is garbage and is counted
 * (TXRDMA_SQ_F_GARBAGE) and clamped, every SQE field is validated, and
 * a bad SQE completes with an error CQE.  An impossible SQ tail or CQ
 * head is flagged (TXRDMA_SQ_F_GARBAGE, sticky) and stalls that ring
 * until the process writes a possible one; nothing is clamped or
 * guessed.
 *
 * TXRDMA_FEAT_RINGS (<linux/txrdma.h>) says the rings exist; which
 * opcodes the kernel executes is txrdma_ring_setup.ops (the others
 * complete with -EOPNOTSUPP).  The immediate data of the data path is
 * a 32-bit value in the verbs' network byte order (as ib_wc.ex.imm_data).
 */
#ifndef _UAPI_LINUX_TXRDMA_RING_H
#define _UAPI_LINUX_TXRDMA_RING_H

#include <linux/const.h>
#include <linux/types.h>

/* ------------------------------------------------------------------ */
/* Submission queue entry: 64 bytes.                                   */

enum txrdma_op {
	TXRDMA_OP_NOP	= 0,	/* completes at once; tests, wake-ups */
	TXRDMA_OP_SEND	= 1,	/* a message into the peer endpoint's ring */
	TXRDMA_OP_READ	= 2,	/* remote region -> local region */
	TXRDMA_OP_WRITE	= 3,	/* local region -> remote region */
	TXRDMA_OP_LAST
};

/* sqe->flags (16 bits: room for links and batch semantics) */
#define TXRDMA_SQE_F_NO_CQE	_BITUL(0)	/* no CQE on success */
/*
 * SEND, READ, WRITE: start only once every earlier READ of the same
 * endpoint pair has returned its data (the verbs' fence).  Operations
 * of one pair are otherwise ordered as txrdma(7) "Ordering" says: a
 * READ followed by a SEND or WRITE needs it when the other side may
 * change what was read once it sees the later operation.
 */
#define TXRDMA_SQE_F_FENCE	_BITUL(1)
/*
 * READ, WRITE: the operation may run twice.  On a session
 * (TXRDMA_EP_F_SESSION) whose QP is lost while it is in flight, it runs
 * again on the new QP (once: after the frames that arrived, before
 * those sent again that followed it) and completes once; without the
 * flag it fails with -ECONNABORTED then (whether it ran is not known).
 * If the other side revoked or changed its export meanwhile, it fails
 * as it would now (-EPERM, -EFAULT).  A SEND of a session never needs
 * it: it arrives once whatever happens to the QP.
 */
#define TXRDMA_SQE_F_IDEMPOTENT	_BITUL(2)
#define TXRDMA_SQE_F_ALL	(TXRDMA_SQE_F_NO_CQE | TXRDMA_SQE_F_FENCE | \
				 TXRDMA_SQE_F_IDEMPOTENT)

/*
 * sqe->prio: priority class, lower is served first; the SQE is served in
 * the less urgent of this and its tenant's class (enum txrdma_prio)
 */
#define TXRDMA_PRIO_CLASSES	4

/* longest READ or WRITE: what cqe->res can report (and IB allows, 2^31) */
#define TXRDMA_SQE_MAX_LEN	0x7fffffffU

/*
 * Local memory is named as (region id, offset, length) of one of the
 * tenant's regions; remote memory as (remote region id, offset in that
 * region), inside a range the other side exported to this endpoint
 * pair (TXRDMA_IOC_EP_EXPORT).  Only the kernel holds keys.  SEND takes
 * its payload from (local_region, local_off, len).
 */
struct txrdma_sqe {
	__u8 opcode;		/* enum txrdma_op */
	__u8 prio;		/* < TXRDMA_PRIO_CLASSES */
	__u16 flags;		/* TXRDMA_SQE_F_* */
	__u32 ep;		/* endpoint id */
	__u64 user_data;	/* copied into the CQE */
	__u32 local_region;
	__u32 len;		/* bytes, at most TXRDMA_SQE_MAX_LEN */
	__u64 local_off;
	__u32 remote_region;	/* READ and WRITE */
	__u32 resv1;
	__u64 remote_off;	/* READ and WRITE */
	__u64 resv2[2];		/* must be 0 */
};

/* ------------------------------------------------------------------ */
/* Completion queue entry: 32 bytes.                                   */

/*
 * cqe->flags.  Messages that arrive produce no CQE: the endpoint's
 * receive ring tail moves (TXRDMA_RX_*) and the file polls readable.
 * TXRDMA_CQE_F_RECV is reserved for a CQE per message, not produced.
 */
#define TXRDMA_CQE_F_RECV	_BITUL(0)

/*
 * @res: bytes moved (>= 0) or a negative errno:
 *  -EINVAL   bad SQE (opcode, flags, prio, reserved field, length);
 *  -ENOENT   no such endpoint or region for this process/tenant;
 *  -EFAULT   offset or length outside the region, or (READ/WRITE)
 *	      outside every range of the remote region exported to us;
 *  -EPERM    no range of that remote region is exported to this pair,
 *	      or not with that access;
 *  -ENOTCONN the peer went Down (or the endpoint had already failed);
 *  -EIO      the QP failed;
 *  -ECANCELED the endpoint was destroyed with the operation in flight;
 *  -ECONNRESET the other side closed the pair, or its QP broke;
 *  -ECONNABORTED a READ or WRITE of a session, in flight when its QP
 *	      was lost: it may or may not have run at the peer (the
 *	      session goes on; TXRDMA_SQE_F_IDEMPOTENT runs it again);
 *  -EMSGSIZE a SEND longer than the peer's ring takes (max_msg).
 */
struct txrdma_cqe {
	__u64 user_data;
	__s32 res;
	__u32 flags;		/* TXRDMA_CQE_F_* */
	__u32 ep;
	__u8 opcode;		/* enum txrdma_op of the SQE */
	__u8 resv0[3];
	__u64 resv1;
};

/* ------------------------------------------------------------------ */
/* Ring layout, returned by the kernel at setup.                       */

/* *sq_flags, written by the kernel */
/* the poller is asleep: ring the doorbell */
#define TXRDMA_SQ_F_NEED_WAKEUP	_BITUL(0)
/* saw an impossible SQ tail or CQ head (sticky) */
#define TXRDMA_SQ_F_GARBAGE	_BITUL(1)

/*
 * Byte offsets, from the start of the mapping, of each field of the
 * submission ring.  @head is the kernel's (read-only for the process),
 * @tail the process's.
 */
struct txrdma_sq_offsets {
	__u32 head;
	__u32 tail;
	__u32 ring_mask;
	__u32 ring_entries;
	__u32 flags;
	__u32 dropped;		/* SQEs the kernel refused as garbage */
	__u32 sqes;		/* the array of struct txrdma_sqe */
	__u32 resv0;
	__u64 resv[2];
};

/* The completion ring: @tail is the kernel's, @head the process's. */
struct txrdma_cq_offsets {
	__u32 head;
	__u32 tail;
	__u32 ring_mask;
	__u32 ring_entries;
	__u32 overflow;		/* CQEs lost: the process fell behind */
	__u32 cqes;		/* the array of struct txrdma_cqe */
	__u64 resv[2];
};

/*
 * TXRDMA_IOC_RING_SETUP: one pair of rings per open file.  @sq_entries
 * (1..32768) is rounded up to a power of two; @cq_entries (at least the
 * SQ's, at most 32768) likewise, 0 meaning twice the SQ (capped).
 * mmap(NULL, @mmap_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
 * @mmap_offset) maps both rings; the offsets say where everything is.
 * The kernel's poller consumes the SQ; when it has been idle it sets
 * TXRDMA_SQ_F_NEED_WAKEUP and sleeps, and TXRDMA_IOC_RING_ENTER wakes
 * it.  The file polls readable (POLLIN) while the CQ holds entries.
 */
struct txrdma_ring_setup {
	__u32 sq_entries;	/* in: wanted; out: granted */
	__u32 cq_entries;	/* in: wanted or 0; out: granted */
	__u32 flags;		/* in: 0 */
	/* out: bit (1 << TXRDMA_OP_*) per opcode the kernel executes */
	__u32 ops;
	__u64 mmap_offset;	/* out */
	__u64 mmap_len;		/* out */
	struct txrdma_sq_offsets sq_off;	/* out */
	struct txrdma_cq_offsets cq_off;	/* out */
	__u64 resv[4];
};

/* ------------------------------------------------------------------ */
/* Wire frame: what a SEND places in the peer endpoint's receive ring. */

/*
 * A receive ring is a power-of-two number of 64-byte units in one of the
 * receiving tenant's regions.  A frame (header + payload) starts on a
 * unit and never wraps: when it does not fit before the end of the
 * ring, the sender skips the rest (the skipped units count against its
 * credits like a frame) and places it at unit 0.  The immediate data of
 * the RDMA WRITE_WITH_IMM that carries a frame is the unit it starts
 * at, so the receiving kernel knows where to look.
 *
 * The receiving kernel publishes a frame to the process only after the
 * WRITE_WITH_IMM completion and after checking the header: within one
 * RDMA WRITE the IB specification does not order the bytes as the
 * receiving CPU sees them, so a header that looks complete proves
 * nothing; the completion does.  Fields are little-endian.
 */
#define TXRDMA_FRAME_UNIT	64
#define TXRDMA_FRAME_HDR_LEN	32
#define TXRDMA_FRAME_TRAILER_LEN 8
#define TXRDMA_FRAME_MAX_PAYLOAD (64U << 10)	/* 64 KiB */

enum txrdma_frame_type {
	TXRDMA_FRAME_MSG	= 1,	/* a message, payload follows */
	/*
	 * written by the receiving kernel where the sender skipped the
	 * ring's end: the process skips to unit 0
	 */
	TXRDMA_FRAME_PAD	= 2,
};

/*
 * A receive ring in the process's region: a 128-byte header, then the
 * units.  TXRDMA_RX_OFF_TAIL is the kernel's: units published
 * (free-running, masked on use), release-stored after each frame was
 * checked.  TXRDMA_RX_OFF_ERROR is the kernel's: 0, or the positive
 * errno the endpoint failed with.  TXRDMA_RX_OFF_HEAD is the
 * process's: units it has released (frames read, PAD skipped),
 * release-stored; the kernel checks it and returns the space to the
 * sender as credits.  A frame at unit u starts at TXRDMA_RX_HDR_LEN +
 * u * TXRDMA_FRAME_UNIT with its struct txrdma_frame_hdr, the payload
 * right after; it takes TXRDMA_FRAME_HDR_LEN + len bytes (+
 * TXRDMA_FRAME_TRAILER_LEN with TXRDMA_FRAME_F_TRAILER) rounded up to
 * TXRDMA_FRAME_UNIT.
 *
 * With TXRDMA_FEAT_RX_CREDIT_WORDS the kernel also exports, beside its
 * tail, what decides whether an explicit credit update is due (the rule
 * of txrdma_rx_release()): TXRDMA_RX_OFF_REPORTED, the released units
 * it last reported to the sender (free-running), and
 * TXRDMA_RX_OFF_MAX_UNITS, the largest frame the sender may place, in
 * units (written once, before the pair is set up; 0 from a kernel
 * without the feature).  Both are hints for the process's doorbell:
 * the kernel never reads them back.
 */
#define TXRDMA_RX_OFF_TAIL	0
#define TXRDMA_RX_OFF_ERROR	4
#define TXRDMA_RX_OFF_REPORTED	8
#define TXRDMA_RX_OFF_MAX_UNITS	12
#define TXRDMA_RX_OFF_HEAD	64

/*
 * Reading ahead (TXRDMA_FEAT_RX_AHEAD, an endpoint paired with
 * TXRDMA_EP_F_RX_AHEAD).  The process may take a frame the kernel has
 * not published yet, if it checks it in full itself: type, version,
 * both endpoint ids, the pair's epoch, the sequence number due, a size
 * that fits where it lies, the trailer (after the payload: the
 * sequence number again and the free-running unit it starts at) and
 * the CRC32C over header and payload.  A frame that does not check out is "not yet", never an
 * error: the kernel's verdict after the completion stays the authority.
 * The trailer is what writers that place bytes in address order make
 * visible last; the CRC covers writers that do not.
 *
 * The kernel's line carries, written before the first frame can
 * arrive: TXRDMA_RX_OFF_AHEAD_EP (our endpoint), TXRDMA_RX_OFF_AHEAD_PEER
 * (the peer's; 0 until the kernel learned it), TXRDMA_RX_OFF_AHEAD_EPOCH
 * and TXRDMA_RX_OFF_AHEAD_MAX (the longest payload the peer's frames
 * carry a trailer for; 0: no reading ahead); and, stored before each
 * tail, TXRDMA_RX_OFF_AHEAD_KSEQ: the sequence number of the frame due
 * after the last one published.  The process's line carries the
 * library's own record of the last frame it took ahead: its sequence
 * number (TXRDMA_RX_OFF_AHEAD_SEQ), the unit it starts at and the one
 * after it (TXRDMA_RX_OFF_AHEAD_AT, TXRDMA_RX_OFF_AHEAD_END,
 * free-running), and TXRDMA_RX_OFF_AHEAD_TAKEN, a count of them; the
 * kernel never reads these.
 *
 * The process's head may then be ahead of the kernel's tail by at most
 * the ring: the kernel counts it as released up to its tail and takes
 * the rest as it publishes.
 */
#define TXRDMA_RX_OFF_AHEAD_EP		16
#define TXRDMA_RX_OFF_AHEAD_PEER	20
#define TXRDMA_RX_OFF_AHEAD_EPOCH	24
#define TXRDMA_RX_OFF_AHEAD_MAX		28
#define TXRDMA_RX_OFF_AHEAD_KSEQ	32
/*
 * TXRDMA_RX_OFF_FLAGS (TXRDMA_FEAT_SESSION_ACKS), the kernel's, written
 * before the first frame can arrive: TXRDMA_RX_F_DUE_EMPTY, the pair is
 * a session, whose sender completes each SEND only when it hears that
 * our process released the frame: an explicit update is due whenever
 * everything that arrived is released and some of it is unreported,
 * and whenever TXRDMA_RX_SESSION_DUE_UNITS are released unreported, not
 * only when the sender could be short of credits.
 */
#define TXRDMA_RX_OFF_FLAGS		36
#define TXRDMA_RX_F_DUE_EMPTY		_BITUL(0)
#define TXRDMA_RX_SESSION_DUE_UNITS	32
#define TXRDMA_RX_OFF_AHEAD_SEQ		68
#define TXRDMA_RX_OFF_AHEAD_AT		72
#define TXRDMA_RX_OFF_AHEAD_END		76
#define TXRDMA_RX_OFF_AHEAD_TAKEN	80
/*
 * A page: the CRC over it costs the sending kernel less than the pass
 * it saves the receiver (Documentation/design.rst "Reading ahead")
 */
#define TXRDMA_RX_AHEAD_MAX_PAYLOAD	4096
#define TXRDMA_RX_HDR_LEN	128
#define TXRDMA_RX_MIN_UNITS	16
#define TXRDMA_RX_MAX_UNITS	16384	/* with its header, in one 2 MiB page */

/*
 * Immediate data of the WRITE_WITH_IMM.  Bit 31 clear: a frame starts at
 * unit (imm & TXRDMA_IMM_VALUE).  Bit 31 set: an explicit credit update
 * that places nothing (a zero-length write, so it needs no ring space
 * and cannot deadlock on a full ring): the low 31 bits are the
 * receiver's released-units counter, modulo 2^31.
 */
#define TXRDMA_IMM_CREDIT	_BITUL(31)
#define TXRDMA_IMM_VALUE	(TXRDMA_IMM_CREDIT - 1)

/* frame->flags */
#define TXRDMA_FRAME_F_DATA_CRC	_BITUL(0)	/* crc covers the payload too */
/*
 * A struct txrdma_frame_trailer follows the payload (and counts in the
 * frame's units); set with TXRDMA_FRAME_F_DATA_CRC only
 */
#define TXRDMA_FRAME_F_TRAILER	_BITUL(1)

struct txrdma_frame_hdr {
	__u8 type;		/* enum txrdma_frame_type */
	__u8 version;		/* 1 */
	__u8 flags;		/* TXRDMA_FRAME_F_* */
	__u8 resv0;
	__le32 src_ep;		/* sender's endpoint id */
	__le32 dst_ep;		/* receiver's endpoint id */
	__le32 seq;		/* per (src_ep, dst_ep), from 0, +1 per frame */
	__le32 len;		/* payload bytes */
	/* units of OUR receive ring the process has released: the credit */
	__le32 consumed;
	__le32 epoch;		/* the endpoint pair's incarnation */
	__le32 crc;		/* CRC32C of bytes 0-27 (and the payload) */
};

/*
 * TXRDMA_FRAME_F_TRAILER: right after the payload, not covered by crc.
 * @unit tells a frame from a stale one of an earlier lap that has the
 * same sequence number modulo 2^32: the receiver's free-running count
 * of ring units at which the frame starts (skipped units included;
 * masked, it is the immediate data).
 */
struct txrdma_frame_trailer {
	__le32 seq;		/* the header's */
	__le32 unit;		/* where it starts, free-running */
};

#endif /* _UAPI_LINUX_TXRDMA_RING_H */
