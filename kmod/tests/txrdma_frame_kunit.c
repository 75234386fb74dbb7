// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite txrdma_frame: the data-path frame header keeps its
 * little-endian layout byte for byte, its CRC32C is the standard one,
 * every single-byte corruption of a header is refused, as is anything a
 * sender of ours never writes; a trailer (the sequence number again
 * and the free-running unit the frame starts at, after the payload,
 * with the payload's CRC only) round-trips, its sequence number is
 * checked against the header's and its unit handed to the verdict;
 * sequence verdicts across the wrap; units and immediate data.
 */
#include <kunit/test.h>
#include <linux/limits.h>
#include <linux/string.h>

#include "../txrdma_frame.h"

/*
 * CRC32C bit by bit (reflected polynomial 0x82f63b78): the reference.
 * The raw register, as txrdma_frame_crc_begin() hands it out, for a
 * payload added in pieces.
 */
static u32 ref_crc32c_add(u32 crc, const u8 *p, size_t n)
{
	int k;

	while (n--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0x82f63b78 & -(crc & 1));
	}
	return crc;
}

static u32 ref_crc32c(const u8 *p, size_t n)
{
	return ~ref_crc32c_add(~0U, p, n);
}

static void good_frame(struct txrdma_frame *f, u32 len)
{
	*f = (struct txrdma_frame) {
		.type = TXRDMA_FRAME_MSG, .flags = 0,
		.src_ep = 0x01020304, .dst_ep = 0x0a0b0c0d,
		.seq = 0xfffffffe, .len = len,
		.consumed = 0x11223344, .epoch = 7,
	};
}

static void frame_reference_crc(struct kunit *test)
{
	/* the check value of CRC-32C (RFC 3720 B.4 and every CRC catalogue) */
	KUNIT_EXPECT_EQ(test, ref_crc32c((const u8 *)"123456789", 9),
			0xe3069283U);
}

static void frame_layout(struct kunit *test)
{
	static const u8 want[28] = {
		0x01, 0x01, 0x00, 0x00,		/* type, version, flags, resv */
		0x04, 0x03, 0x02, 0x01,		/* src_ep */
		0x0d, 0x0c, 0x0b, 0x0a,		/* dst_ep */
		0xfe, 0xff, 0xff, 0xff,		/* seq */
		0x05, 0x00, 0x00, 0x00,		/* len */
		0x44, 0x33, 0x22, 0x11,		/* consumed */
		0x07, 0x00, 0x00, 0x00,		/* epoch */
	};
	struct txrdma_frame f;
	u8 buf[TXRDMA_FRAME_HDR_LEN + 5];
	u32 crc;

	good_frame(&f, 5);
	memcpy(buf + TXRDMA_FRAME_HDR_LEN, "hello", 5);
	txrdma_frame_encode(&f, buf + TXRDMA_FRAME_HDR_LEN, buf);
	KUNIT_EXPECT_EQ(test, memcmp(buf, want, sizeof(want)), 0);
	crc = ref_crc32c(want, sizeof(want));
	KUNIT_EXPECT_EQ(test, buf[28], (u8)crc);
	KUNIT_EXPECT_EQ(test, buf[29], (u8)(crc >> 8));
	KUNIT_EXPECT_EQ(test, buf[30], (u8)(crc >> 16));
	KUNIT_EXPECT_EQ(test, buf[31], (u8)(crc >> 24));
}

static void frame_round_trip(struct kunit *test)
{
	u8 buf[TXRDMA_FRAME_HDR_LEN + 100];
	struct txrdma_frame f, g;
	int i;

	for (i = 0; i < 100; i++)
		buf[TXRDMA_FRAME_HDR_LEN + i] = i * 7;
	good_frame(&f, 100);
	f.flags = TXRDMA_FRAME_F_DATA_CRC;
	txrdma_frame_encode(&f, buf + TXRDMA_FRAME_HDR_LEN, buf);
	KUNIT_ASSERT_EQ(test, txrdma_frame_decode(buf, sizeof(buf), &g), 0);
	KUNIT_EXPECT_EQ(test, g.type, f.type);
	KUNIT_EXPECT_EQ(test, g.flags, f.flags);
	KUNIT_EXPECT_EQ(test, g.src_ep, f.src_ep);
	KUNIT_EXPECT_EQ(test, g.dst_ep, f.dst_ep);
	KUNIT_EXPECT_EQ(test, g.seq, f.seq);
	KUNIT_EXPECT_EQ(test, g.len, f.len);
	KUNIT_EXPECT_EQ(test, g.consumed, f.consumed);
	KUNIT_EXPECT_EQ(test, g.epoch, f.epoch);
	/* with the payload in the CRC, its crc differs from a header-only one */
	f.flags = 0;
	txrdma_frame_encode(&f, NULL, buf);
	KUNIT_EXPECT_EQ(test, txrdma_frame_decode(buf, sizeof(buf), &g), 0);
	KUNIT_EXPECT_EQ(test, g.flags, 0);
}

/* every bit flip of the header, and of the payload under DATA_CRC */
static void frame_corruption(struct kunit *test)
{
	u8 buf[TXRDMA_FRAME_HDR_LEN + 16];
	struct txrdma_frame f, g;
	int i, bit, refused = 0;

	memset(buf + TXRDMA_FRAME_HDR_LEN, 0x5a, 16);
	good_frame(&f, 16);
	f.flags = TXRDMA_FRAME_F_DATA_CRC;
	for (i = 0; i < (int)sizeof(buf); i++) {
		for (bit = 0; bit < 8; bit++) {
			int ret;

			txrdma_frame_encode(&f, buf + TXRDMA_FRAME_HDR_LEN, buf);
			buf[i] ^= 1 << bit;
			ret = txrdma_frame_decode(buf, sizeof(buf), &g);
			/*
			 * a flip in len may also make the length disagree;
			 * so does one that sets TRAILER, which moves the
			 * payload's end before the CRC can be checked
			 */
			KUNIT_EXPECT_TRUE_MSG(test, ret == -EBADMSG ||
					      (ret == -EMSGSIZE &&
					       ((i >= 16 && i < 20) ||
						(i == 2 && bit == 1))),
					      "byte %d bit %d: %d", i, bit, ret);
			refused += ret < 0;
			buf[i] ^= 1 << bit;
		}
	}
	KUNIT_EXPECT_EQ(test, refused, (int)sizeof(buf) * 8);
	/* without DATA_CRC the payload is not covered (RoCE's ICRC is) */
	f.flags = 0;
	txrdma_frame_encode(&f, NULL, buf);
	buf[TXRDMA_FRAME_HDR_LEN + 3] ^= 0xff;
	KUNIT_EXPECT_EQ(test, txrdma_frame_decode(buf, sizeof(buf), &g), 0);
}

/* a header with a valid CRC that no txrdma sender writes */
static int decode_patched(u8 *buf, int off, u8 val)
{
	struct txrdma_frame g;
	u32 crc;

	buf[off] = val;
	crc = ref_crc32c(buf, 28);
	buf[28] = crc;
	buf[29] = crc >> 8;
	buf[30] = crc >> 16;
	buf[31] = crc >> 24;
	return txrdma_frame_decode(buf, TXRDMA_FRAME_HDR_LEN, &g);
}

static void frame_foreign(struct kunit *test)
{
	struct txrdma_frame f;
	u8 buf[TXRDMA_FRAME_HDR_LEN];

	good_frame(&f, 0);
	txrdma_frame_encode(&f, NULL, buf);
	KUNIT_EXPECT_EQ(test, decode_patched(buf, 0, 1), 0);	/* control */
	KUNIT_EXPECT_EQ(test, decode_patched(buf, 0, 0), -EPROTO);
	KUNIT_EXPECT_EQ(test, decode_patched(buf, 0, 2), -EPROTO);
	decode_patched(buf, 0, 1);
	KUNIT_EXPECT_EQ(test, decode_patched(buf, 1, 2), -EPROTO);
	decode_patched(buf, 1, 1);
	/* flags no sender of ours sets */
	KUNIT_EXPECT_EQ(test, decode_patched(buf, 2, 4), -EPROTO);
	KUNIT_EXPECT_EQ(test, decode_patched(buf, 2, 0x80), -EPROTO);
	/* TRAILER says 8 more bytes than these 32: refused by the size */
	KUNIT_EXPECT_EQ(test, decode_patched(buf, 2, TXRDMA_FRAME_F_TRAILER),
			-EMSGSIZE);
	KUNIT_EXPECT_EQ(test, decode_patched(buf, 2, 0xff), -EMSGSIZE);
	/* with no payload, the CRC over it is the header's */
	KUNIT_EXPECT_EQ(test, decode_patched(buf, 2, TXRDMA_FRAME_F_DATA_CRC),
			0);
	decode_patched(buf, 2, 0);
	KUNIT_EXPECT_EQ(test, decode_patched(buf, 3, 1), -EPROTO);
}

static void frame_lengths(struct kunit *test)
{
	static u8 buf[TXRDMA_FRAME_HDR_LEN + TXRDMA_FRAME_MAX_PAYLOAD + 1];
	struct txrdma_frame f, g;

	good_frame(&f, 10);
	txrdma_frame_encode(&f, NULL, buf);
	KUNIT_EXPECT_EQ(test, txrdma_frame_decode(buf, 42, &g), 0);
	KUNIT_EXPECT_EQ(test, txrdma_frame_decode(buf, 41, &g), -EMSGSIZE);
	KUNIT_EXPECT_EQ(test, txrdma_frame_decode(buf, 43, &g), -EMSGSIZE);
	KUNIT_EXPECT_EQ(test, txrdma_frame_decode(buf, 31, &g), -EMSGSIZE);
	KUNIT_EXPECT_EQ(test, txrdma_frame_decode(buf, 0, &g), -EMSGSIZE);
	good_frame(&f, TXRDMA_FRAME_MAX_PAYLOAD);
	txrdma_frame_encode(&f, NULL, buf);
	KUNIT_EXPECT_EQ(test, txrdma_frame_decode(buf, TXRDMA_FRAME_HDR_LEN +
			TXRDMA_FRAME_MAX_PAYLOAD, &g), 0);
	good_frame(&f, TXRDMA_FRAME_MAX_PAYLOAD + 1);
	txrdma_frame_encode(&f, NULL, buf);
	KUNIT_EXPECT_EQ(test, txrdma_frame_decode(buf, sizeof(buf), &g),
			-EMSGSIZE);
}

#define TR_FLAGS	(TXRDMA_FRAME_F_DATA_CRC | TXRDMA_FRAME_F_TRAILER)
#define TR_MAX		100	/* the largest payload of these cases */
/* where the frames of these cases start, free-running: many laps on */
#define TR_UNIT		0xfedc0123

/*
 * A frame with a trailer as a sender of ours writes it: header with the
 * payload's CRC, payload, then the trailer (the header's sequence
 * number, TR_UNIT).  Return: its byte_len.
 */
static u32 trailer_frame(u8 *buf, struct txrdma_frame *f, u32 len)
{
	u32 i;

	for (i = 0; i < len; i++)
		buf[TXRDMA_FRAME_HDR_LEN + i] = 0x30 + i * 13;
	good_frame(f, len);
	f->flags = TR_FLAGS;
	txrdma_frame_encode(f, buf + TXRDMA_FRAME_HDR_LEN, buf);
	txrdma_frame_trailer(buf, TR_UNIT, buf + TXRDMA_FRAME_HDR_LEN + len);
	return TXRDMA_FRAME_HDR_LEN + len + TXRDMA_FRAME_TRAILER_LEN;
}

/* The 4 bytes at @p, little-endian (the header's byte order). */
static u32 le32_at(const u8 *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (u32)p[3] << 24;
}

/*
 * The CRC of the header's first 28 bytes and @len payload bytes: the
 * CRC field lies between them, so two pieces.
 */
static u32 ref_frame_crc(const u8 *buf, u32 len)
{
	return ~ref_crc32c_add(ref_crc32c_add(~0U, buf, 28),
			       buf + TXRDMA_FRAME_HDR_LEN, len);
}

/* Rewrite the header's CRC over its 28 bytes and @len payload bytes. */
static void reseal(u8 *buf, u32 len)
{
	u32 crc = ref_frame_crc(buf, len);

	buf[28] = crc;
	buf[29] = crc >> 8;
	buf[30] = crc >> 16;
	buf[31] = crc >> 24;
}

static void frame_trailer_round_trip(struct kunit *test)
{
	static const u32 lens[] = { 0, 1, 24, 25, 88, 89, TR_MAX };
	u8 buf[TXRDMA_FRAME_HDR_LEN + TR_MAX + TXRDMA_FRAME_TRAILER_LEN + 1];
	struct txrdma_frame f, g;
	u32 byte_len, len;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		len = lens[i];
		memset(buf, 0xa5, sizeof(buf));
		byte_len = trailer_frame(buf, &f, len);
		/* the header's seq as it lies, then the unit little-endian */
		KUNIT_EXPECT_EQ(test, memcmp(buf + TXRDMA_FRAME_HDR_LEN + len,
					     buf + 12, 4), 0);
		KUNIT_EXPECT_EQ(test, le32_at(buf + TXRDMA_FRAME_HDR_LEN +
					      len + 4), TR_UNIT);
		/* 8 bytes, not one more */
		KUNIT_EXPECT_EQ(test, buf[byte_len], 0xa5);
		memset(&g, 0, sizeof(g));
		KUNIT_ASSERT_EQ_MSG(test, txrdma_frame_decode(buf, byte_len,
							      &g), 0,
				    "len %u", len);
		KUNIT_EXPECT_EQ(test, g.flags, TR_FLAGS);
		KUNIT_EXPECT_EQ(test, g.len, len);
		KUNIT_EXPECT_EQ(test, g.seq, f.seq);
		KUNIT_EXPECT_EQ(test, g.epoch, f.epoch);
		KUNIT_EXPECT_EQ(test, g.src_ep, f.src_ep);
		KUNIT_EXPECT_EQ(test, g.dst_ep, f.dst_ep);
		KUNIT_EXPECT_EQ(test, g.consumed, f.consumed);
		/* the unit is the verdict's to check: handed on as it is */
		KUNIT_EXPECT_EQ(test, g.trailer_unit, TR_UNIT);
		/* the CRC covers the payload, never the trailer */
		KUNIT_EXPECT_EQ(test, le32_at(buf + 28),
				ref_frame_crc(buf, len));
	}
	/* without the flag nothing after the payload is read as one */
	good_frame(&f, 24);
	f.flags = TXRDMA_FRAME_F_DATA_CRC;
	txrdma_frame_encode(&f, buf + TXRDMA_FRAME_HDR_LEN, buf);
	memset(&g, 0xa5, sizeof(g));
	KUNIT_ASSERT_EQ(test, txrdma_frame_decode(buf, TXRDMA_FRAME_HDR_LEN +
						  24, &g), 0);
	KUNIT_EXPECT_EQ(test, g.trailer_unit, 0U);
}

/*
 * The transmit path: header encoded without the payload (NULL is never
 * read), the payload's CRC added in pieces, then the trailer.
 */
static void frame_trailer_pieces(struct kunit *test)
{
	u8 buf[TXRDMA_FRAME_HDR_LEN + TR_MAX + TXRDMA_FRAME_TRAILER_LEN];
	u8 ref[sizeof(buf)];
	struct txrdma_frame f, g;
	u32 byte_len, crc;

	byte_len = trailer_frame(ref, &f, TR_MAX);
	memset(buf, 0, sizeof(buf));
	memcpy(buf + TXRDMA_FRAME_HDR_LEN, ref + TXRDMA_FRAME_HDR_LEN, TR_MAX);
	txrdma_frame_encode(&f, NULL, buf);
	crc = txrdma_frame_crc_begin(buf);
	crc = ref_crc32c_add(crc, buf + TXRDMA_FRAME_HDR_LEN, 37);
	crc = ref_crc32c_add(crc, buf + TXRDMA_FRAME_HDR_LEN + 37, TR_MAX - 37);
	txrdma_frame_crc_end(buf, crc);
	txrdma_frame_trailer(buf, TR_UNIT, buf + TXRDMA_FRAME_HDR_LEN + TR_MAX);
	KUNIT_EXPECT_EQ(test, memcmp(buf, ref, byte_len), 0);
	KUNIT_EXPECT_EQ(test, txrdma_frame_decode(buf, byte_len, &g), 0);
}

/*
 * A trailer whose sequence number is not the header's is no frame of
 * ours (bytes of another frame, or not written yet); its unit is
 * handed to the verdict as it lies.
 */
static void frame_trailer_mismatch(struct kunit *test)
{
	u8 buf[TXRDMA_FRAME_HDR_LEN + 24 + TXRDMA_FRAME_TRAILER_LEN];
	struct txrdma_frame_trailer *t;
	struct txrdma_frame f, g;
	u32 byte_len;
	int i, bit;

	byte_len = trailer_frame(buf, &f, 24);
	t = (void *)(buf + TXRDMA_FRAME_HDR_LEN + 24);
	KUNIT_ASSERT_EQ(test, txrdma_frame_decode(buf, byte_len, &g), 0);
	/* the next frame's number, the last one's */
	t->seq = cpu_to_le32(f.seq + 1);
	KUNIT_EXPECT_EQ(test, txrdma_frame_decode(buf, byte_len, &g), -EPROTO);
	t->seq = cpu_to_le32(f.seq - 1);
	KUNIT_EXPECT_EQ(test, txrdma_frame_decode(buf, byte_len, &g), -EPROTO);
	/* the unit where the sequence number belongs */
	t->seq = cpu_to_le32(TR_UNIT);
	t->unit = cpu_to_le32(f.seq);
	KUNIT_EXPECT_EQ(test, txrdma_frame_decode(buf, byte_len, &g), -EPROTO);
	/* not written yet: what the ring held before */
	memset(t, 0, sizeof(*t));
	KUNIT_EXPECT_EQ(test, txrdma_frame_decode(buf, byte_len, &g), -EPROTO);
	/* every bit of its sequence number (the CRC does not cover it) */
	for (i = 0; i < 4; i++) {
		for (bit = 0; bit < 8; bit++) {
			txrdma_frame_trailer(buf, TR_UNIT, t);
			buf[byte_len - TXRDMA_FRAME_TRAILER_LEN + i] ^= 1 << bit;
			KUNIT_EXPECT_EQ_MSG(test,
					    txrdma_frame_decode(buf, byte_len,
								&g),
					    -EPROTO, "byte %d bit %d", i, bit);
		}
	}
	/* every bit of its unit: decoded, the verdict refuses it */
	for (i = 4; i < TXRDMA_FRAME_TRAILER_LEN; i++) {
		for (bit = 0; bit < 8; bit++) {
			txrdma_frame_trailer(buf, TR_UNIT, t);
			buf[byte_len - TXRDMA_FRAME_TRAILER_LEN + i] ^= 1 << bit;
			KUNIT_EXPECT_EQ_MSG(test,
					    txrdma_frame_decode(buf, byte_len,
								&g),
					    0, "byte %d bit %d", i, bit);
			KUNIT_EXPECT_EQ(test, g.trailer_unit,
					TR_UNIT ^ 1U << (8 * (i - 4) + bit));
		}
	}
	txrdma_frame_trailer(buf, TR_UNIT, t);
	KUNIT_EXPECT_EQ(test, txrdma_frame_decode(buf, byte_len, &g), 0);
	KUNIT_EXPECT_EQ(test, g.trailer_unit, TR_UNIT);
}

/*
 * TRAILER without DATA_CRC: a CRC that checks out (the header's alone,
 * as such a sender would write it), so the flag rule is what refuses
 * it; the same bytes with DATA_CRC and a CRC over the payload pass.
 */
static void frame_trailer_needs_crc(struct kunit *test)
{
	u8 buf[TXRDMA_FRAME_HDR_LEN + 24 + TXRDMA_FRAME_TRAILER_LEN];
	struct txrdma_frame f, g;
	u32 byte_len;

	byte_len = trailer_frame(buf, &f, 24);
	f.flags = TXRDMA_FRAME_F_TRAILER;
	txrdma_frame_encode(&f, buf + TXRDMA_FRAME_HDR_LEN, buf);
	txrdma_frame_trailer(buf, TR_UNIT, buf + TXRDMA_FRAME_HDR_LEN + 24);
	KUNIT_ASSERT_EQ(test, le32_at(buf + 28), ref_crc32c(buf, 28));
	KUNIT_EXPECT_EQ(test, txrdma_frame_decode(buf, byte_len, &g), -EPROTO);
	/* with no payload the two CRCs are the same: still refused */
	byte_len = trailer_frame(buf, &f, 0);
	buf[2] = TXRDMA_FRAME_F_TRAILER;
	reseal(buf, 0);
	KUNIT_EXPECT_EQ(test, txrdma_frame_decode(buf, byte_len, &g), -EPROTO);
	/* the control: DATA_CRC back, sealed again */
	buf[2] = TR_FLAGS;
	reseal(buf, 0);
	KUNIT_EXPECT_EQ(test, txrdma_frame_decode(buf, byte_len, &g), 0);
}

/* byte_len counts the trailer: without it, or off by one, refused */
static void frame_trailer_lengths(struct kunit *test)
{
	static u8 buf[TXRDMA_FRAME_HDR_LEN + TXRDMA_FRAME_MAX_PAYLOAD +
		      TXRDMA_FRAME_TRAILER_LEN + 1];
	const u32 hdr = TXRDMA_FRAME_HDR_LEN, tl = TXRDMA_FRAME_TRAILER_LEN;
	struct txrdma_frame f, g;

	trailer_frame(buf, &f, 24);
	KUNIT_EXPECT_EQ(test, txrdma_frame_decode(buf, hdr + 24 + tl, &g), 0);
	/* the trailer missing: the bytes of a frame without one */
	KUNIT_EXPECT_EQ(test, txrdma_frame_decode(buf, hdr + 24, &g),
			-EMSGSIZE);
	KUNIT_EXPECT_EQ(test, txrdma_frame_decode(buf, hdr + 24 + tl - 1, &g),
			-EMSGSIZE);
	KUNIT_EXPECT_EQ(test, txrdma_frame_decode(buf, hdr + 24 + tl + 1, &g),
			-EMSGSIZE);
	/* shorter than a trailer after the header: no underflow */
	KUNIT_EXPECT_EQ(test, txrdma_frame_decode(buf, hdr + tl - 1, &g),
			-EMSGSIZE);
	KUNIT_EXPECT_EQ(test, txrdma_frame_decode(buf, hdr, &g), -EMSGSIZE);
	KUNIT_EXPECT_EQ(test, txrdma_frame_decode(buf, hdr - 1, &g),
			-EMSGSIZE);
	/* no payload: header and trailer only */
	trailer_frame(buf, &f, 0);
	KUNIT_EXPECT_EQ(test, txrdma_frame_decode(buf, hdr + tl, &g), 0);
	KUNIT_EXPECT_EQ(test, g.len, 0U);
	KUNIT_EXPECT_EQ(test, txrdma_frame_decode(buf, hdr, &g), -EMSGSIZE);
	/* the payload's bound is the same with a trailer, not 8 less */
	good_frame(&f, TXRDMA_FRAME_MAX_PAYLOAD);
	f.flags = TR_FLAGS;
	txrdma_frame_encode(&f, buf + hdr, buf);
	txrdma_frame_trailer(buf, 0, buf + hdr + TXRDMA_FRAME_MAX_PAYLOAD);
	KUNIT_EXPECT_EQ(test, txrdma_frame_decode(buf, hdr +
			TXRDMA_FRAME_MAX_PAYLOAD + tl, &g), 0);
	good_frame(&f, TXRDMA_FRAME_MAX_PAYLOAD + 1);
	f.flags = TR_FLAGS;
	txrdma_frame_encode(&f, buf + hdr, buf);
	txrdma_frame_trailer(buf, 0, buf + hdr + TXRDMA_FRAME_MAX_PAYLOAD + 1);
	KUNIT_EXPECT_EQ(test, txrdma_frame_decode(buf, sizeof(buf), &g),
			-EMSGSIZE);
}

/*
 * Every bit flip of header and payload of a frame with a trailer is
 * refused, by the CRC (or the length they decide); of the trailer's
 * sequence number by the check that it is the header's.
 */
static void frame_trailer_corruption(struct kunit *test)
{
	u8 buf[TXRDMA_FRAME_HDR_LEN + 16 + TXRDMA_FRAME_TRAILER_LEN];
	const int tr = TXRDMA_FRAME_HDR_LEN + 16;
	struct txrdma_frame f, g;
	int i, bit, ret, want;

	for (i = 0; i < tr + 4; i++) {
		for (bit = 0; bit < 8; bit++) {
			trailer_frame(buf, &f, 16);
			buf[i] ^= 1 << bit;
			ret = txrdma_frame_decode(buf, sizeof(buf), &g);
			/* the flags too: the CRC covers them */
			if (i >= tr)
				want = -EPROTO;
			else
				want = -EBADMSG;
			/* len: refused by the size or the CRC */
			KUNIT_EXPECT_TRUE_MSG(test, ret == want ||
					      (i >= 16 && i < 20 &&
					       ret == -EMSGSIZE),
					      "byte %d bit %d: %d", i, bit,
					      ret);
		}
	}
}

static void frame_seq(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, txrdma_frame_seq_check(5, 5), TXRDMA_SEQ_OK);
	KUNIT_EXPECT_EQ(test, txrdma_frame_seq_check(5, 4), TXRDMA_SEQ_DUP);
	KUNIT_EXPECT_EQ(test, txrdma_frame_seq_check(5, 6), TXRDMA_SEQ_GAP);
	KUNIT_EXPECT_EQ(test, txrdma_frame_seq_check(0xffffffff, 0),
			TXRDMA_SEQ_GAP);
	KUNIT_EXPECT_EQ(test, txrdma_frame_seq_check(0, 0xffffffff),
			TXRDMA_SEQ_DUP);
	KUNIT_EXPECT_EQ(test, txrdma_frame_seq_check(0, 0x7fffffff),
			TXRDMA_SEQ_GAP);
	KUNIT_EXPECT_EQ(test, txrdma_frame_seq_check(0, 0x80000000),
			TXRDMA_SEQ_DUP);
}

static void frame_units_imm(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, txrdma_frame_units(0), 1U);
	KUNIT_EXPECT_EQ(test, txrdma_frame_units(32), 1U);
	KUNIT_EXPECT_EQ(test, txrdma_frame_units(33), 2U);
	KUNIT_EXPECT_EQ(test, txrdma_frame_units(96), 2U);
	KUNIT_EXPECT_EQ(test, txrdma_frame_units(97), 3U);
	KUNIT_EXPECT_EQ(test, txrdma_frame_units(TXRDMA_FRAME_MAX_PAYLOAD),
			1025U);
	/* no wrap to a small count near U32_MAX */
	KUNIT_EXPECT_EQ(test, txrdma_frame_units(U32_MAX), 0x4000001U);
	KUNIT_EXPECT_EQ(test, txrdma_frame_units(U32_MAX - 31), 0x4000000U);
	KUNIT_EXPECT_FALSE(test, txrdma_imm_is_credit(txrdma_imm_frame(1234)));
	KUNIT_EXPECT_EQ(test, txrdma_imm_value(txrdma_imm_frame(1234)), 1234U);
	KUNIT_EXPECT_TRUE(test, txrdma_imm_is_credit(txrdma_imm_credit(9)));
	KUNIT_EXPECT_EQ(test, txrdma_imm_credit(0x80000009), 0x80000009U);
	KUNIT_EXPECT_EQ(test, txrdma_imm_value(txrdma_imm_credit(0xffffffff)),
			0x7fffffffU);
}

static struct kunit_case txrdma_frame_cases[] = {
	KUNIT_CASE(frame_reference_crc),
	KUNIT_CASE(frame_layout),
	KUNIT_CASE(frame_round_trip),
	KUNIT_CASE(frame_corruption),
	KUNIT_CASE(frame_foreign),
	KUNIT_CASE(frame_lengths),
	KUNIT_CASE(frame_trailer_round_trip),
	KUNIT_CASE(frame_trailer_pieces),
	KUNIT_CASE(frame_trailer_mismatch),
	KUNIT_CASE(frame_trailer_needs_crc),
	KUNIT_CASE(frame_trailer_lengths),
	KUNIT_CASE(frame_trailer_corruption),
	KUNIT_CASE(frame_seq),
	KUNIT_CASE(frame_units_imm),
	{}
};

static struct kunit_suite txrdma_frame_suite = {
	.name = "txrdma_frame",
	.test_cases = txrdma_frame_cases,
};

kunit_test_suite(txrdma_frame_suite);
