// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Host tests of txrdma_frame_check_ahead(): a frame read by the process
 * before the kernel published it is taken only when all of it is there.
 *
 * The torn-write simulator: a ring unit holds an earlier lap's frame
 * (the same endpoints, an older sequence number), and the new frame's
 * bytes are written over it in a random order - single bytes, 8-byte
 * words, cache lines, as a DMA engine or rxe's memcpy may make them
 * visible.  After every write the check must say "not yet", until the
 * last byte is in; then it must take the frame, with its length.
 * (Bytes the two frames share make it complete before its last piece
 * lands: what counts is that nothing is taken while any byte differs.)
 * Also: the CRC32C against its reference value and against the bitwise
 * definition, both implementations against each other, and each field
 * that must be refused.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "txrdma_frame_check.h"

#define EP	0x0a0b0c0d
#define PEER	0x01020304
#define EPOCH	0x5eed
#define UNIT	0xfffffff0u	/* + seq: where frame seq starts */

static uint32_t rnd_state = 0x20261202;
static uint32_t got_len;

static uint32_t rnd(void)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return rnd_state >> 1;
}

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static uint32_t ref_crc32c(const unsigned char *p, size_t n, uint32_t crc)
{
	int k;

	while (n--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0x82f63b78u & -(crc & 1u));
	}
	return crc;
}

/* a frame as the sending kernel builds it: payload CRC, trailer */
static size_t make_frame(unsigned char *f, uint32_t seq, uint32_t len,
			 unsigned char fill)
{
	uint32_t crc;
	uint32_t i;

	memset(f, 0, TXRDMA_FRAME_HDR_LEN);
	f[0] = TXRDMA_FRAME_MSG;
	f[1] = 1;
	f[2] = TXRDMA_FRAME_F_DATA_CRC | TXRDMA_FRAME_F_TRAILER;
	put32(f + 4, PEER);
	put32(f + 8, EP);
	put32(f + 12, seq);
	put32(f + 16, len);
	put32(f + 20, 7);		/* consumed: any */
	put32(f + 24, EPOCH);
	for (i = 0; i < len; i++)
		f[TXRDMA_FRAME_HDR_LEN + i] = (unsigned char)(fill + i * 13);
	crc = ref_crc32c(f, 28, ~0u);
	crc = ~ref_crc32c(f + TXRDMA_FRAME_HDR_LEN, len, crc);
	put32(f + 28, crc);
	put32(f + TXRDMA_FRAME_HDR_LEN + len, seq);
	put32(f + TXRDMA_FRAME_HDR_LEN + len + 4, UNIT + seq);
	return TXRDMA_FRAME_HDR_LEN + len + TXRDMA_FRAME_TRAILER_LEN;
}

static struct txrdma_frame_expect expect(uint32_t seq)
{
	return (struct txrdma_frame_expect){
		.ep = EP, .peer_ep = PEER, .epoch = EPOCH, .seq = seq,
		.max_len = 65536, .unit = UNIT + seq,
	};
}

static void test_crc(void)
{
	unsigned char buf[4096];
	size_t i, n;

	TAP_CHECK_INT(~ref_crc32c((const unsigned char *)"123456789", 9, ~0u),
		      0xe3069283u);
	TAP_CHECK_INT(~txrdma_crc32c_update(~0u, "123456789", 9),
		      0xe3069283u);
	TAP_CHECK_INT(~txrdma_crc32c_table_update(~0u, "123456789", 9),
		      0xe3069283u);
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)rnd();
	/* every length and misalignment of the word loop against the bits */
	for (n = 0; n < 200; n++) {
		size_t off = rnd() % 64;
		uint32_t seed = rnd();

		if (!TAP_CHECK_INT(txrdma_crc32c_update(seed, buf + off, n),
				   ref_crc32c(buf + off, n, seed)) ||
		    !TAP_CHECK_INT(txrdma_crc32c_table_update(seed, buf + off, n),
				   ref_crc32c(buf + off, n, seed)))
			break;
	}
	TAP_CHECK_INT(txrdma_crc32c_update(1, buf, sizeof(buf)),
		      ref_crc32c(buf, sizeof(buf), 1));
}

/*
 * Write @n bytes of @src over @dst in a random order of pieces of
 * @grain bytes (1, 8 or 64), checking after each piece.  Return: the
 * number of checks that took the frame before its last piece.
 */
static unsigned int torn_write(unsigned char *dst, const unsigned char *src,
			       size_t n, size_t grain, uint32_t seq,
			       unsigned int room, unsigned int *took_at_end)
{
	struct txrdma_frame_expect x = expect(seq);
	size_t pieces = (n + grain - 1) / grain, i;
	unsigned int early = 0;
	size_t *order = malloc(pieces * sizeof(*order));

	if (!order)
		abort();
	for (i = 0; i < pieces; i++)
		order[i] = i;
	for (i = pieces; i > 1; i--) {
		size_t j = rnd() % i, t = order[i - 1];

		order[i - 1] = order[j];
		order[j] = t;
	}
	for (i = 0; i < pieces; i++) {
		size_t at = order[i] * grain;
		size_t len = n - at < grain ? n - at : grain;

		memcpy(dst + at, src + at, len);
		/* taken while a byte still differs from the new frame */
		if (txrdma_frame_check_ahead(dst, room, &x, &got_len) &&
		    memcmp(dst, src, n))
			early++;
	}
	*took_at_end = txrdma_frame_check_ahead(dst, room, &x, &got_len);
	free(order);
	return early;
}

static void test_torn(void)
{
	static const size_t grains[] = { 1, 8, 64 };
	static const uint32_t lens[] = { 0, 1, 31, 32, 33, 64, 200, 1000, 4000 };
	unsigned char *old = malloc(8192), *img = malloc(8192), *dst = malloc(8192);
	unsigned int early = 0, wrong_end = 0, runs = 0;
	size_t g, l, r;

	if (!old || !img || !dst)
		abort();
	for (g = 0; g < 3; g++) {
		for (l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
			for (r = 0; r < 40; r++) {
				uint32_t seq = rnd();
				size_t n = make_frame(img, seq, lens[l],
						      (unsigned char)rnd());
				unsigned int room = 8192 / TXRDMA_FRAME_UNIT;
				unsigned int took;

				/* the earlier lap's frame, same place */
				memset(old, 0, 8192);
				make_frame(old, seq - 5, lens[l] + (r & 3),
					   (unsigned char)rnd());
				memcpy(dst, old, 8192);
				early += torn_write(dst, img, n, grains[g], seq,
						    room, &took);
				if (took != (n + TXRDMA_FRAME_UNIT - 1) /
					    TXRDMA_FRAME_UNIT ||
				    got_len != lens[l])
					wrong_end++;
				runs++;
			}
		}
	}
	tap_diag("  %u torn writes (pieces of 1, 8 and 64 bytes, 0..4000-byte payloads)",
		 runs);
	TAP_CHECK_INT(early, 0);
	TAP_CHECK_INT(wrong_end, 0);
	free(old);
	free(img);
	free(dst);
}

static void test_refused(void)
{
	unsigned char f[512], g[512];
	struct txrdma_frame_expect x = expect(100);
	unsigned int i, bad = 0;

	make_frame(f, 100, 300, 9);
	TAP_CHECK_INT(txrdma_frame_check_ahead(f, 8, &x, &got_len), 6);
	TAP_CHECK_INT(got_len, 300);
	/* it must fit in the room left */
	TAP_CHECK_INT(txrdma_frame_check_ahead(f, 5, &x, &got_len), 0);
	/* longer than we take */
	x.max_len = 299;
	TAP_CHECK_INT(txrdma_frame_check_ahead(f, 8, &x, &got_len), 0);
	x = expect(100);
	/* another endpoint, sender, epoch, sequence number */
	x.ep++;
	TAP_CHECK_INT(txrdma_frame_check_ahead(f, 8, &x, &got_len), 0);
	x = expect(100);
	x.peer_ep++;
	TAP_CHECK_INT(txrdma_frame_check_ahead(f, 8, &x, &got_len), 0);
	x = expect(100);
	x.epoch++;
	TAP_CHECK_INT(txrdma_frame_check_ahead(f, 8, &x, &got_len), 0);
	x = expect(101);
	TAP_CHECK_INT(txrdma_frame_check_ahead(f, 8, &x, &got_len), 0);
	x = expect(99);
	TAP_CHECK_INT(txrdma_frame_check_ahead(f, 8, &x, &got_len), 0);
	/* without a payload CRC or a trailer it cannot be checked here */
	x = expect(100);
	memcpy(g, f, sizeof(g));
	g[2] = 0;
	TAP_CHECK_INT(txrdma_frame_check_ahead(g, 8, &x, &got_len), 0);
	g[2] = TXRDMA_FRAME_F_DATA_CRC;
	TAP_CHECK_INT(txrdma_frame_check_ahead(g, 8, &x, &got_len), 0);
	/* a trailer that is not yet this frame's: the old lap's seq */
	memcpy(g, f, sizeof(g));
	put32(g + TXRDMA_FRAME_HDR_LEN + 300, 95);
	TAP_CHECK_INT(txrdma_frame_check_ahead(g, 8, &x, &got_len), 0);
	/*
	 * a complete frame of an earlier lap with the sequence number due
	 * modulo 2^32: its trailer names another unit
	 */
	memcpy(g, f, sizeof(g));
	put32(g + TXRDMA_FRAME_HDR_LEN + 304, UNIT + 100 - 4096);
	TAP_CHECK_INT(txrdma_frame_check_ahead(g, 8, &x, &got_len), 0);
	x.unit = UNIT + 100 - 4096;
	TAP_CHECK_INT(txrdma_frame_check_ahead(g, 8, &x, &got_len), 6);
	x = expect(100);
	/* a frame whose trailer crosses into the next unit must fit too */
	make_frame(g, 100, 24, 9);	/* 32 + 24 + 8 = 64: one unit */
	TAP_CHECK_INT(txrdma_frame_check_ahead(g, 1, &x, &got_len), 1);
	make_frame(g, 100, 25, 9);	/* 65 bytes: two units */
	TAP_CHECK_INT(txrdma_frame_check_ahead(g, 1, &x, &got_len), 0);
	TAP_CHECK_INT(txrdma_frame_check_ahead(g, 2, &x, &got_len), 2);
	/* every single bit flipped in header, payload or trailer: refused */
	for (i = 0; i < (TXRDMA_FRAME_HDR_LEN + 300 +
			 TXRDMA_FRAME_TRAILER_LEN) * 8; i++) {
		memcpy(g, f, sizeof(g));
		g[i / 8] ^= 1u << (i % 8);
		if (txrdma_frame_check_ahead(g, 8, &x, &got_len))
			bad++;
	}
	TAP_CHECK_INT(bad, 0);
}

static const struct tap_test tests[] = {
	TAP_TEST(test_crc, "CRC32C: the check value, both implementations against the bitwise definition"),
	TAP_TEST(test_torn, "a frame written over an older one in random order is taken only once complete"),
	TAP_TEST(test_refused, "another endpoint, epoch, sequence, size, no payload CRC or trailer, a stale trailer, any flipped bit: not taken"),
};

int main(void)
{
	return TAP_MAIN(tests);
}
