// SPDX-License-Identifier: GPL-2.0-only
/*
 * Data-path frames: see txrdma_frame.h and uapi/linux/txrdma_ring.h.
 *
 * The CRC32C covers the first 28 header bytes, and the payload too when
 * TXRDMA_FRAME_F_DATA_CRC is set.  RoCE's ICRC already protects every
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

#include "txrdma_frame.h"

#define TXRDMA_FRAME_CRC_OFF	28

static_assert(sizeof(struct txrdma_frame_hdr) == TXRDMA_FRAME_HDR_LEN);
static_assert(offsetof(struct txrdma_frame_hdr, crc) ==
	      TXRDMA_FRAME_CRC_OFF);

static u32 txrdma_frame_crc(const void *hdr, const void *payload, u32 len,
			    bool data)
{
	u32 crc = __crc32c_le(~0U, hdr, TXRDMA_FRAME_CRC_OFF);

	if (data && len)
		crc = __crc32c_le(crc, payload, len);
	return ~crc;
}

/**
 * txrdma_frame_encode() - write a frame header
 * @f: the header's fields
 * @payload: the @f->len payload bytes (read only with DATA_CRC)
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

/**
 * txrdma_frame_decode() - check and decode a frame that arrived
 * @buf: the frame: header, then payload, contiguous
 * @byte_len: bytes the RDMA write placed (from its completion)
 * @f: the decoded header, valid on success only
 *
 * Return: 0; -EPROTO for a header no sender of ours writes (type,
 * version, unknown flags, reserved byte); -EMSGSIZE when the length
 * disagrees with what was written or exceeds the maximum; -EBADMSG for
 * a CRC mismatch.
 */
int txrdma_frame_decode(const void *buf, u32 byte_len, struct txrdma_frame *f)
{
	const struct txrdma_frame_hdr *h = buf;
	u32 len, crc;

	if (byte_len < TXRDMA_FRAME_HDR_LEN)
		return -EMSGSIZE;
	/* the CRC first: a damaged header's other fields mean nothing */
	len = le32_to_cpu(h->len);
	if (len > TXRDMA_FRAME_MAX_PAYLOAD ||
	    len != byte_len - TXRDMA_FRAME_HDR_LEN)
		return -EMSGSIZE;
	crc = txrdma_frame_crc(h, (const u8 *)buf + TXRDMA_FRAME_HDR_LEN, len,
			       h->flags & TXRDMA_FRAME_F_DATA_CRC);
	if (crc != le32_to_cpu(h->crc))
		return -EBADMSG;
	if (h->type != TXRDMA_FRAME_MSG || h->version != TXRDMA_FRAME_VERSION ||
	    (h->flags & ~TXRDMA_FRAME_F_DATA_CRC) || h->resv0)
		return -EPROTO;
	*f = (struct txrdma_frame) {
		.type		= h->type,
		.flags		= h->flags,
		.src_ep		= le32_to_cpu(h->src_ep),
		.dst_ep		= le32_to_cpu(h->dst_ep),
		.seq		= le32_to_cpu(h->seq),
		.len		= len,
		.consumed	= le32_to_cpu(h->consumed),
		.epoch		= le32_to_cpu(h->epoch),
	};
	return 0;
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
