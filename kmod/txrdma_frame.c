// SPDX-License-Identifier: GPL-2.0-only
/*
 * Data-path frames: see txrdma_frame.h and uapi/linux/txrdma_ring.h.
 *
 * The CRC32C covers the first 28 header bytes, and the payload too when
 * TXRDMA_FRAME_F_DATA_CRC is set.  TXRDMA_FRAME_F_TRAILER (with DATA_CRC
 * only) adds the sequence number and the frame's free-running first
 * unit after the payload, for a
 * receiving process that reads frames before the kernel publishes them
 * (uapi "Reading ahead"): a writer that places bytes in address order
 * makes it visible last, and its free-running unit tells the frame from
 * a stale one of an earlier lap.  RoCE's ICRC already protects every
 * packet on the wire; the header CRC is what lets the receiving kernel
 * refuse a frame that is not one (a stray write, a stale incarnation's
 * bytes, a bug) before it becomes a message, at the cost of 28 bytes
 * of CRC per frame; the payload CRC is the end-to-end check (memory to
 * memory) that a database may ask for at the cost of a pass over the
 * data.
 */
#include <linux/crc32.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <asm/byteorder.h>
#include <asm/unaligned.h>

#include "txrdma_frame.h"

#define TXRDMA_FRAME_CRC_OFF	28

static_assert(sizeof(struct txrdma_frame_hdr) == TXRDMA_FRAME_HDR_LEN);
static_assert(sizeof(struct txrdma_frame_trailer) == TXRDMA_FRAME_TRAILER_LEN);
static_assert(offsetof(struct txrdma_frame_hdr, crc) ==
	      TXRDMA_FRAME_CRC_OFF);

static u32 txrdma_frame_crc(const void *hdr, const void *payload, u32 len,
			    bool data)
{
	u32 crc = __crc32c_le(~0U, hdr, TXRDMA_FRAME_CRC_OFF);

	if (data && len && payload)
		crc = __crc32c_le(crc, payload, len);
	return ~crc;
}

/**
 * txrdma_frame_encode() - write a frame header
 * @f: the header's fields
 * @payload: the @f->len payload bytes (read only with DATA_CRC); NULL
 *	when the caller adds them to the CRC (txrdma_frame_crc_begin())
 * @hdr: TXRDMA_FRAME_HDR_LEN bytes to write
 */
void txrdma_frame_encode(const struct txrdma_frame *f, const void *payload,
			 void *hdr)
{
	struct txrdma_frame_hdr *h = hdr;

	*h = (struct txrdma_frame_hdr) {
		.type		= f->type,
		.version	= TXRDMA_FRAME_VERSION,
		.flags		= f->flags,
		.src_ep		= cpu_to_le32(f->src_ep),
		.dst_ep		= cpu_to_le32(f->dst_ep),
		.seq		= cpu_to_le32(f->seq),
		.len		= cpu_to_le32(f->len),
		.consumed	= cpu_to_le32(f->consumed),
		.epoch		= cpu_to_le32(f->epoch),
	};
	h->crc = cpu_to_le32(txrdma_frame_crc(h, payload, f->len,
					      f->flags &
					      TXRDMA_FRAME_F_DATA_CRC));
}

/*
 * txrdma_frame_decode(), and with !@exact the first frame of a write
 * that may carry more frames after it: @byte_len then only bounds the
 * frame (what it leaves over is the next frames', the caller checks).
 */
static int txrdma_frame_decode_in(const void *buf, u32 byte_len,
				  struct txrdma_frame *f, bool exact)
{
	const struct txrdma_frame_hdr *h = buf;
	const struct txrdma_frame_trailer *t = NULL;
	u32 len, crc, body, tlen;
	u8 flags;

	if (byte_len < TXRDMA_FRAME_HDR_LEN)
		return -EMSGSIZE;
	/*
	 * The CRC first: a damaged header's other fields mean nothing.
	 * One read of the length and the flags: the CRC covers the bytes
	 * they name, and the flags say whether a trailer follows them.
	 */
	body = byte_len - TXRDMA_FRAME_HDR_LEN;
	len = le32_to_cpu(READ_ONCE(h->len));
	flags = READ_ONCE(h->flags);
	if (len > TXRDMA_FRAME_MAX_PAYLOAD || len > body)
		return -EMSGSIZE;
	crc = txrdma_frame_crc(h, (const u8 *)buf + TXRDMA_FRAME_HDR_LEN, len,
			       flags & TXRDMA_FRAME_F_DATA_CRC);
	if (crc != le32_to_cpu(h->crc))
		return -EBADMSG;
	tlen = flags & TXRDMA_FRAME_F_TRAILER ? TXRDMA_FRAME_TRAILER_LEN : 0;
	if (exact ? body - len != tlen : body - len < tlen)
		return -EMSGSIZE;
	/* a trailer comes with the CRC over the payload, never alone */
	if (h->type != TXRDMA_FRAME_MSG || h->version != TXRDMA_FRAME_VERSION ||
	    (flags & ~TXRDMA_FRAME_F_ALL) || h->resv0 ||
	    ((flags & TXRDMA_FRAME_F_TRAILER) &&
	     !(flags & TXRDMA_FRAME_F_DATA_CRC)))
		return -EPROTO;
	if (flags & TXRDMA_FRAME_F_TRAILER) {
		t = (const void *)((const u8 *)buf + TXRDMA_FRAME_HDR_LEN + len);
		/* right after the payload: anywhere, aligned or not */
		if (get_unaligned(&t->seq) != h->seq)
			return -EPROTO;
	}
	*f = (struct txrdma_frame) {
		.type		= h->type,
		.flags		= flags,
		.src_ep		= le32_to_cpu(h->src_ep),
		.dst_ep		= le32_to_cpu(h->dst_ep),
		.seq		= le32_to_cpu(h->seq),
		.len		= len,
		.consumed	= le32_to_cpu(h->consumed),
		.epoch		= le32_to_cpu(h->epoch),
		.trailer_unit	= t ? get_unaligned_le32(&t->unit) : 0,
	};
	return 0;
}

/**
 * txrdma_frame_decode() - check and decode a frame that arrived alone
 * @buf: the frame: header, then payload, contiguous
 * @byte_len: bytes the RDMA write placed (from its completion)
 * @f: the decoded header, valid on success only
 *
 * Return: 0; -EPROTO for a header no sender of ours writes (type,
 * version, unknown flags, reserved byte, a trailer without the payload
 * CRC or whose sequence number is not the header's); -EMSGSIZE when the
 * length disagrees with what was written or exceeds the maximum;
 * -EBADMSG for a CRC mismatch.
 */
int txrdma_frame_decode(const void *buf, u32 byte_len, struct txrdma_frame *f)
{
	return txrdma_frame_decode_in(buf, byte_len, f, true);
}

/**
 * txrdma_frame_seq_check() - is @seq the frame we expect?
 * @expected: the next sequence number to deliver
 * @seq: the frame's
 *
 * Serial number arithmetic (RFC 1982): up to 2^31 - 1 behind is a
 * duplicate, anything ahead a gap, so the counters wrap freely.
 */
enum txrdma_seq_verdict txrdma_frame_seq_check(u32 expected, u32 seq)
{
	s32 d = (s32)(seq - expected);

	if (!d)
		return TXRDMA_SEQ_OK;
	return d < 0 ? TXRDMA_SEQ_DUP : TXRDMA_SEQ_GAP;
}

/*
 * Where a write of @byte_len bytes from @unit may lie, before a byte
 * of it is read: inside the ring, at the unit due (or at unit 0 when
 * the sender skipped the ring's end), within the units the sender holds
 * credits for.  Each frame in it is then checked on its own.
 */
static int txrdma_frame_extent_check(const struct txrdma_credit_rx *crx,
				     u32 unit, u32 byte_len)
{
	u32 ring_units = crx->ring_units, at = crx->tail & (ring_units - 1);
	u32 wunits = ((u64)byte_len + TXRDMA_FRAME_UNIT - 1) /
		     TXRDMA_FRAME_UNIT;
	u32 skip;

	if (unit >= ring_units || byte_len < TXRDMA_FRAME_HDR_LEN ||
	    byte_len > TXRDMA_FRAME_WRITE_BYTES || wunits > ring_units - unit)
		return -EPROTO;
	if (unit == at)
		skip = 0;
	else if (!unit)
		skip = ring_units - at;
	else
		return -EPROTO;
	/* what the process holds is at most a ring: no wrap below */
	if ((u64)(crx->tail - crx->consumed) + skip + wunits > ring_units)
		return -EPROTO;
	return 0;
}

/**
 * txrdma_frame_accept() - the verdict on a write that completed
 * @rx: what the receiver expects; nothing in it changes
 * @with_imm: the completion carried immediate data
 * @imm: the immediate data
 * @byte_len: bytes the write placed
 * @in: what was found, for the receiver to apply
 *
 * Every check the receiver makes before a frame becomes a message, in
 * one place: where it lies (the immediate data names a unit; the write
 * must lie in the ring where the sender may write, and the frame start
 * where the placement rule puts it, txrdma_credit_rx_frame_check()),
 * what it is (CRC, header fields, length), whose it is (endpoints,
 * epoch), its turn (sequence) and its credit report.  The frame's bytes
 * are read only after the completion said they are all there, and only
 * inside the ring.
 *
 * A write may carry several frames (the sender coalesced SENDs): the
 * first is judged here; @in->rest says how many bytes follow it, and
 * the caller, once it applied this one, asks
 * txrdma_frame_accept_at() about the next, at @in->unit + @in->units.
 *
 * Return: the verdict; on ACCEPT and ACCEPT_PAD the caller publishes
 * after applying @in (txrdma_credit_rx_frame(), txrdma_credit_tx_update()
 * with @in->released, the next sequence number), which then cannot
 * fail; on CREDIT it applies @in->released; an error verdict changes
 * nothing and the endpoint fails.
 */
enum txrdma_frame_verdict txrdma_frame_accept(const struct txrdma_frame_rx *rx,
					      bool with_imm, u32 imm,
					      u32 byte_len,
					      struct txrdma_frame_in *in)
{
	*in = (struct txrdma_frame_in) {};
	if (!with_imm)
		return TXRDMA_FRAME_ERR_PROTO;
	if (txrdma_imm_is_credit(imm)) {
		in->released = txrdma_credit_unwrap31(rx->ctx->released,
						      txrdma_imm_value(imm));
		if (txrdma_credit_tx_update_check(rx->ctx, in->released))
			return TXRDMA_FRAME_ERR_PROTO;
		return TXRDMA_FRAME_CREDIT;
	}
	return txrdma_frame_accept_at(rx, txrdma_imm_value(imm), byte_len, in);
}

/**
 * txrdma_frame_accept_at() - the verdict on the frame at @unit
 * @rx: as txrdma_frame_accept(), updated by the frames before this one
 *	in the same write
 * @unit: where it starts (the immediate data's, or the unit after the
 *	frame before it in the write)
 * @byte_len: bytes of the write from @unit on
 * @in: what was found
 *
 * Return: as txrdma_frame_accept(), never CREDIT.
 */
enum txrdma_frame_verdict txrdma_frame_accept_at(const struct txrdma_frame_rx *rx,
						 u32 unit, u32 byte_len,
						 struct txrdma_frame_in *in)
{
	const struct txrdma_credit_rx *crx = rx->crx;
	u32 ring_units = crx->ring_units, flen;
	int ret;

	*in = (struct txrdma_frame_in) { .unit = unit };
	/* where it lies, before reading a byte of it; not too many */
	if (rx->index >= TXRDMA_FRAME_WRITE_FRAMES ||
	    txrdma_frame_extent_check(crx, unit, byte_len))
		return TXRDMA_FRAME_ERR_PROTO;
	ret = txrdma_frame_decode_in(rx->units +
				     (size_t)unit * TXRDMA_FRAME_UNIT,
				     byte_len, &in->f, false);
	if (ret)
		return ret == -EBADMSG ? TXRDMA_FRAME_ERR_CRC :
					 TXRDMA_FRAME_ERR_PROTO;
	flen = TXRDMA_FRAME_HDR_LEN + in->f.len +
	       (in->f.flags & TXRDMA_FRAME_F_TRAILER ?
		TXRDMA_FRAME_TRAILER_LEN : 0);
	in->units = txrdma_frame_units(flen - TXRDMA_FRAME_HDR_LEN);
	/* the placement rule for what it takes, the skip included */
	if (txrdma_credit_rx_frame_check(crx, unit, in->units))
		return TXRDMA_FRAME_ERR_PROTO;
	if (byte_len != flen) {
		/* more follows: a whole header at least, at the next unit */
		if ((u64)in->units * TXRDMA_FRAME_UNIT + TXRDMA_FRAME_HDR_LEN >
		    byte_len)
			return TXRDMA_FRAME_ERR_PROTO;
		in->rest = byte_len - in->units * TXRDMA_FRAME_UNIT;
	}
	/* units are rounded up: the declared length is the bound */
	if (in->f.dst_ep != rx->ep ||
	    (!rx->learn_peer && in->f.src_ep != rx->peer_ep) ||
	    in->f.epoch != rx->epoch || in->f.len > rx->max_len)
		return TXRDMA_FRAME_ERR_PROTO;
	/*
	 * A trailer only where our process asked for one, within the size
	 * it reads ahead: a process built before trailers, or a frame it
	 * would take ahead and we would refuse, is never made
	 */
	if ((in->f.flags & TXRDMA_FRAME_F_TRAILER) &&
	    in->f.len > rx->ahead_max)
		return TXRDMA_FRAME_ERR_PROTO;
	if (txrdma_frame_seq_check(rx->seq, in->f.seq) != TXRDMA_SEQ_OK)
		return TXRDMA_FRAME_ERR_SEQ;
	in->released = in->f.consumed;
	if (txrdma_credit_tx_update_check(rx->ctx, in->released))
		return TXRDMA_FRAME_ERR_PROTO;
	in->pad_at = crx->tail & (ring_units - 1);
	/* the trailer names the lap too: where the placement rule put it */
	if ((in->f.flags & TXRDMA_FRAME_F_TRAILER) &&
	    in->f.trailer_unit != crx->tail + (unit == in->pad_at ? 0 :
					       ring_units - in->pad_at))
		return TXRDMA_FRAME_ERR_PROTO;
	return unit == in->pad_at ? TXRDMA_FRAME_ACCEPT :
				    TXRDMA_FRAME_ACCEPT_PAD;
}

/**
 * txrdma_frame_trailer() - the trailer of a frame whose header is written
 * @hdr: the encoded header (TXRDMA_FRAME_F_TRAILER set)
 * @unit: where the frame starts in the peer's ring, free-running
 * @trailer: TXRDMA_FRAME_TRAILER_LEN bytes to write
 */
void txrdma_frame_trailer(const void *hdr, u32 unit, void *trailer)
{
	const struct txrdma_frame_hdr *h = hdr;
	struct txrdma_frame_trailer *t = trailer;

	t->seq = h->seq;
	t->unit = cpu_to_le32(unit);
}

/**
 * txrdma_frame_pad() - a PAD header over the skipped end of a ring
 * @hdr: its first unit
 * @units: units to the ring's end
 */
void txrdma_frame_pad(void *hdr, u32 units)
{
	struct txrdma_frame_hdr *pad = hdr;

	memset(pad, 0, sizeof(*pad));
	pad->type = TXRDMA_FRAME_PAD;
	pad->version = TXRDMA_FRAME_VERSION;
	pad->len = cpu_to_le32(units * TXRDMA_FRAME_UNIT);
}

/* Immediate data of a frame that starts at ring unit @unit. */
u32 txrdma_imm_frame(u32 unit)
{
	return unit & TXRDMA_IMM_VALUE;
}

/* Immediate data of an explicit credit update. */
u32 txrdma_imm_credit(u32 released)
{
	return TXRDMA_IMM_CREDIT | (released & TXRDMA_IMM_VALUE);
}

bool txrdma_imm_is_credit(u32 imm)
{
	return imm & TXRDMA_IMM_CREDIT;
}

u32 txrdma_imm_value(u32 imm)
{
	return imm & TXRDMA_IMM_VALUE;
}

/*
 * The CRC of a header and a payload that lies in pieces: begin on the
 * header (flags already set), add each piece, end writes it.
 */
u32 txrdma_frame_crc_begin(const void *hdr)
{
	return __crc32c_le(~0U, hdr, TXRDMA_FRAME_CRC_OFF);
}

void txrdma_frame_crc_end(void *hdr, u32 crc)
{
	struct txrdma_frame_hdr *h = hdr;

	h->crc = cpu_to_le32(~crc);
}
