/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The data-path frame (uapi/linux/txrdma_ring.h) as pure logic: encode
 * and check a header, the sequence verdict, the units a frame takes in
 * a receive ring and the immediate data that tells the receiver where
 * it starts.  No rdma/ headers: KUnit tests it on UML.
 */
#ifndef _TXRDMA_FRAME_H
#define _TXRDMA_FRAME_H

#include <linux/types.h>
#include <linux/txrdma_ring.h>

#define TXRDMA_FRAME_VERSION	1

/**
 * struct txrdma_frame - a decoded frame header
 * @type: enum txrdma_frame_type
 * @flags: TXRDMA_FRAME_F_*
 * @src_ep: sending endpoint
 * @dst_ep: receiving endpoint
 * @seq: per endpoint pair, +1 per frame
 * @len: payload bytes
 * @consumed: units of the sender's receive ring its process released
 * @epoch: incarnation of the endpoint pair
 */
struct txrdma_frame {
	u8 type;
	u8 flags;
	u32 src_ep;
	u32 dst_ep;
	u32 seq;
	u32 len;
	u32 consumed;
	u32 epoch;
};

/* What a frame's sequence number says, given the one expected. */
enum txrdma_seq_verdict {
	TXRDMA_SEQ_OK,		/* the next one */
	TXRDMA_SEQ_DUP,		/* already delivered */
	TXRDMA_SEQ_GAP,		/* one or more are missing */
};

/*
 * Units (TXRDMA_FRAME_UNIT bytes) a frame with @len payload bytes takes;
 * computed in 64 bits, so no @len wraps it to a small number.
 */
static inline u32 txrdma_frame_units(u32 len)
{
	return ((u64)TXRDMA_FRAME_HDR_LEN + len + TXRDMA_FRAME_UNIT - 1) /
	       TXRDMA_FRAME_UNIT;
}

void txrdma_frame_encode(const struct txrdma_frame *f, const void *payload,
			 void *hdr);
int txrdma_frame_decode(const void *buf, u32 byte_len,
			struct txrdma_frame *f);
enum txrdma_seq_verdict txrdma_frame_seq_check(u32 expected, u32 seq);

u32 txrdma_frame_crc_begin(const void *hdr);
void txrdma_frame_crc_end(void *hdr, u32 crc);

u32 txrdma_imm_frame(u32 unit);
u32 txrdma_imm_credit(u32 released);
bool txrdma_imm_is_credit(u32 imm);
u32 txrdma_imm_value(u32 imm);

#endif /* _TXRDMA_FRAME_H */
