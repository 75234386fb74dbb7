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

#include "txrdma_credit.h"

#define TXRDMA_FRAME_VERSION	1
#define TXRDMA_FRAME_F_ALL	(TXRDMA_FRAME_F_DATA_CRC | TXRDMA_FRAME_F_TRAILER)

/*
 * One write carries at most this many frames, and at most this many
 * bytes (no more than the largest frame alone): what one receive
 * completion makes the receiver check stays bounded.
 */
#define TXRDMA_FRAME_WRITE_FRAMES	32
#define TXRDMA_FRAME_WRITE_BYTES	(TXRDMA_FRAME_HDR_LEN + \
					 TXRDMA_FRAME_MAX_PAYLOAD)

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
 * @trailer_unit: with TXRDMA_FRAME_F_TRAILER, the trailer's unit (where
 *	the sender placed it, free-running)
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
	u32 trailer_unit;
};

/* What a frame's sequence number says, given the one expected. */
enum txrdma_seq_verdict {
	TXRDMA_SEQ_OK,		/* the next one */
	TXRDMA_SEQ_DUP,		/* already delivered */
	TXRDMA_SEQ_GAP,		/* one or more are missing */
};

/*
 * The longest SEND a receive ring of @units takes: a frame of half of
 * it, at most TXRDMA_FRAME_MAX_PAYLOAD (pairing and an imported
 * session's check apply the same rule).
 */
static inline u32 txrdma_frame_ring_max(u32 units)
{
	u32 bytes = units / 2 * TXRDMA_FRAME_UNIT - TXRDMA_FRAME_HDR_LEN;

	return bytes < TXRDMA_FRAME_MAX_PAYLOAD ? bytes :
						  TXRDMA_FRAME_MAX_PAYLOAD;
}

/*
 * Units (TXRDMA_FRAME_UNIT bytes) a frame with @len payload bytes takes
 * (@len + TXRDMA_FRAME_TRAILER_LEN with a trailer); computed in 64 bits,
 * so no @len wraps it to a small number.
 */
static inline u32 txrdma_frame_units(u32 len)
{
	return ((u64)TXRDMA_FRAME_HDR_LEN + len + TXRDMA_FRAME_UNIT - 1) /
	       TXRDMA_FRAME_UNIT;
}

/**
 * enum txrdma_frame_verdict - what the receiver does with a completion
 * @TXRDMA_FRAME_ACCEPT: a frame where the next one is due: publish it
 * @TXRDMA_FRAME_ACCEPT_PAD: a frame at unit 0, the sender having skipped
 *	the ring's end: a PAD over that end, then the frame
 * @TXRDMA_FRAME_CREDIT: an explicit credit update: apply it
 * @TXRDMA_FRAME_ERR_CRC: the CRC does not match
 * @TXRDMA_FRAME_ERR_SEQ: a duplicate, or one or more frames missing
 * @TXRDMA_FRAME_ERR_PROTO: anything else no sender of ours does
 *	(placement, size, endpoints, epoch, credits, header fields)
 */
enum txrdma_frame_verdict {
	TXRDMA_FRAME_ACCEPT,
	TXRDMA_FRAME_ACCEPT_PAD,
	TXRDMA_FRAME_CREDIT,
	TXRDMA_FRAME_ERR_CRC,
	TXRDMA_FRAME_ERR_SEQ,
	TXRDMA_FRAME_ERR_PROTO,
};

/**
 * struct txrdma_frame_rx - what a receiver knows when a write completes
 * @units: its receive ring's first unit (after the ring's header)
 * @ep: our endpoint, every frame's destination
 * @peer_ep: the sending endpoint (unless @learn_peer)
 * @learn_peer: a connector that has not learned its peer's endpoint
 *	yet: the first frame names it
 * @index: frames of the same write before this one
 * @epoch: the pair's incarnation
 * @seq: the sequence number due next
 * @max_len: the largest payload our process takes
 * @ahead_max: the largest payload of a frame with a trailer (what our
 *	process asked for, TXRDMA_EP_F_RX_AHEAD); 0: none is taken
 * @crx: our receive credits: the ring's size, where the next frame is
 *	due, what our process still holds
 * @ctx: our send credits, which every frame and update report on
 */
struct txrdma_frame_rx {
	const u8 *units;
	u32 ep;
	u32 peer_ep;
	u32 epoch;
	u32 seq;
	u32 max_len;
	u32 ahead_max;
	bool learn_peer;
	u32 index;
	const struct txrdma_credit_rx *crx;
	const struct txrdma_credit_tx *ctx;
};

/**
 * struct txrdma_frame_in - what the verdict found
 * @f: the decoded header (ACCEPT, ACCEPT_PAD)
 * @unit: where the frame starts (ACCEPT, ACCEPT_PAD)
 * @units: units it takes (ACCEPT, ACCEPT_PAD)
 * @pad_at: where the skipped end of the ring starts (ACCEPT_PAD)
 * @released: the sender's count of units its process released: the
 *	update's (CREDIT), the header's (ACCEPT, ACCEPT_PAD)
 * @rest: bytes of the write after this frame's units: 0, or the next
 *	frames' (a write that carries several, txrdma_frame_accept_at())
 */
struct txrdma_frame_in {
	struct txrdma_frame f;
	u32 unit;
	u32 units;
	u32 pad_at;
	u32 released;
	u32 rest;
};

enum txrdma_frame_verdict txrdma_frame_accept(const struct txrdma_frame_rx *rx,
					      bool with_imm, u32 imm,
					      u32 byte_len,
					      struct txrdma_frame_in *in);
enum txrdma_frame_verdict txrdma_frame_accept_at(const struct txrdma_frame_rx *rx,
						 u32 unit, u32 byte_len,
						 struct txrdma_frame_in *in);
void txrdma_frame_pad(void *hdr, u32 units);

void txrdma_frame_encode(const struct txrdma_frame *f, const void *payload,
			 void *hdr);
void txrdma_frame_trailer(const void *hdr, u32 unit, void *trailer);
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
