// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite txrdma_frame: the data-path frame header keeps its
 * little-endian layout byte for byte, its CRC32C is the standard one,
 * every single-byte corruption of a header is refused, as is anything a
 * sender of ours never writes; sequence verdicts across the wrap;
 * units and immediate data.
 */
#include <kunit/test.h>
#include <linux/limits.h>
#include <linux/string.h>

#include "../txrdma_frame.h"

/* CRC32C bit by bit (reflected polynomial 0x82f63b78): the reference */
static u32 ref_crc32c(const u8 *p, size_t n)
{
	u32 crc = ~0U;
	int k;

	while (n--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0x82f63b78 & -(crc & 1));
	}
	return ~crc;
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
			/* a flip in len may also make the length disagree */
			KUNIT_EXPECT_TRUE(test, ret == -EBADMSG ||
					  (i >= 16 && i < 20 && ret == -EMSGSIZE));
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
	KUNIT_EXPECT_EQ(test, decode_patched(buf, 2, 2), -EPROTO);
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
	KUNIT_CASE(frame_seq),
	KUNIT_CASE(frame_units_imm),
	{}
};

static struct kunit_suite txrdma_frame_suite = {
	.name = "txrdma_frame",
	.test_cases = txrdma_frame_cases,
};

kunit_test_suite(txrdma_frame_suite);
