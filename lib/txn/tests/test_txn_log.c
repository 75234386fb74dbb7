// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Log shipping (lib/txn/txn_log.c), on the host under ASan and UBSan:
 *  - the layout of an entry and of a PAD pinned byte for byte (CRC
 *    values checked against a bitwise CRC32C of the test's own), the
 *    pieces to WRITE around the ring's end;
 *  - every bit flip of a valid entry or PAD is refused, every partial
 *    placement of one in random order is refused until its last byte,
 *    an older lap's entry is refused where the next lap's is due, a
 *    zeroed, all-ones or random ring is refused; rule breaks in bytes
 *    that check out are -EPROTO;
 *  - the writer's limits: sizes, a full ring, bad feedback, bad clocks;
 *  - the merger on small cases: waiting for a predecessor, the
 *    tie-break, contradicting clocks;
 *  - the issue's check: two writers, one reader, 1,000,000 entries in
 *    random batches with random causal dependencies (and four writers,
 *    250,000 entries), each batch placed
 *    in random order of 8-byte and 1-byte chunks interleaved with the
 *    reader's scans, rings wrapping thousands of times, the reader's
 *    consumed position fed back late; every entry delivered once,
 *    whole, in an order that respects the causality the test itself
 *    tracks (not the library's clocks).
 */
#include <endian.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../txn_log.h"
#include "tap.h"
#include "txn_test.h"

_Static_assert(sizeof(struct txrdma_tlog_hdr) == 32, "header");
_Static_assert(offsetof(struct txrdma_tlog_hdr, magic) == 0, "magic");
_Static_assert(offsetof(struct txrdma_tlog_hdr, type) == 4, "type");
_Static_assert(offsetof(struct txrdma_tlog_hdr, nclock) == 5, "nclock");
_Static_assert(offsetof(struct txrdma_tlog_hdr, writer) == 6, "writer");
_Static_assert(offsetof(struct txrdma_tlog_hdr, len) == 8, "len");
_Static_assert(offsetof(struct txrdma_tlog_hdr, crc) == 12, "crc");
_Static_assert(offsetof(struct txrdma_tlog_hdr, pos) == 16, "pos");
_Static_assert(offsetof(struct txrdma_tlog_hdr, resv) == 24, "resv");

#define HDR_LEN_PAD	TXN_LOG_HDR_LEN

/* splitmix64: the test's randomness, reproducible from a seed */
static uint64_t rng_state = 0x7478726d61746c67ULL;

static uint64_t rnd(void)
{
	return splitmix64(&rng_state);
}

static uint64_t rnd_below(uint64_t n)
{
	return rnd() % n;
}

/* CRC32C bit by bit, the test's own: the library's must agree */
static uint32_t ref_crc32c(const uint8_t *p, size_t n)
{
	uint32_t c = ~0u;
	int k;

	while (n--) {
		c ^= *p++;
		for (k = 0; k < 8; k++)
			c = (c >> 1) ^ (0x82f63b78u & -(c & 1u));
	}
	return ~c;
}

/* the CRC of an entry's bytes as the uapi defines it */
static uint32_t ref_entry_crc(const uint8_t *at, size_t size)
{
	uint8_t tmp[512];

	memcpy(tmp, at, size);
	memset(tmp + offsetof(struct txrdma_tlog_hdr, crc), 0, 4);
	return ref_crc32c(tmp, size);
}

static void place(uint8_t *ring, const struct txn_log_writer *w,
		  const struct txn_log_piece *piece, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		memcpy(ring + piece[i].off, w->stage + piece[i].off,
		       piece[i].len);
}

static void test_layout(void)
{
	static const uint8_t want1[56] = {
		0x54, 0x4c, 0x47, 0x31, 1, 2, 1, 0,	/* magic, ENTRY, 2, writer 1 */
		3, 0, 0, 0,	0x5d, 0xbe, 0xa1, 0x0d,	/* len, crc */
		0, 0, 0, 0, 0, 0, 0, 0,			/* pos */
		0, 0, 0, 0, 0, 0, 0, 0,			/* resv */
		5, 0, 0, 0, 0, 0, 0, 0,			/* clock[0] */
		1, 0, 0, 0, 0, 0, 0, 0,			/* clock[1]: own */
		'a', 'b', 'c', 0, 0, 0, 0, 0,		/* payload, padding */
	};
	static const uint8_t want2[56] = {
		0x54, 0x4c, 0x47, 0x31, 1, 2, 1, 0,
		2, 0, 0, 0,	0x4d, 0x3b, 0x3c, 0x1c,
		56, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0,
		5, 0, 0, 0, 0, 0, 0, 0,
		2, 0, 0, 0, 0, 0, 0, 0,
		'd', 'e', 0, 0, 0, 0, 0, 0,
	};
	static const uint8_t want_pad[32] = {
		0x54, 0x4c, 0x47, 0x31, 2, 0, 1, 0,	/* magic, PAD, 0, writer 1 */
		0, 0, 0, 0,	0x68, 0xff, 0x7e, 0x08,	/* len 0: ends the ring */
		224, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0,
	};
	static const uint64_t seen[2] = { 5, 0 };
	static uint8_t stage[256], ring[256], big[72];
	struct txn_log_piece piece[2];
	struct txn_log_writer w;
	struct txn_log_reader r;
	struct txn_log_entry e;
	unsigned int n, i;

	TAP_CHECK_INT(txn_log_entry_size(2, 3), 56);
	TAP_CHECK_INT(txn_log_entry_size(2, 8), 56);
	TAP_CHECK_INT(txn_log_entry_size(2, 9), 64);
	TAP_CHECK_INT(txn_log_entry_size(16, 0), 160);
	TAP_CHECK_INT(ref_crc32c((const uint8_t *)"123456789", 9), 0xe3069283);

	memset(stage, 0xa5, sizeof(stage));
	TAP_CHECK_INT(txn_log_writer_init(&w, 1, 2, sizeof(stage), stage), 0);
	TAP_CHECK_INT(txn_log_observe(&w, seen, 2), 0);
	TAP_CHECK_INT(txn_log_append(&w, "abc", 3, &e), 0);
	TAP_CHECK(!memcmp(stage, want1, sizeof(want1)));
	TAP_CHECK_INT(ref_entry_crc(stage, 56), 0x0da1be5d);
	TAP_CHECK_INT(e.pos, 0);
	TAP_CHECK_INT(e.size, 56);
	TAP_CHECK_INT(e.clock[0], 5);
	TAP_CHECK_INT(e.clock[1], 1);
	TAP_CHECK_INT(txn_log_append(&w, "de", 2, NULL), 0);
	TAP_CHECK(!memcmp(stage + 56, want2, sizeof(want2)));
	TAP_CHECK_INT(ref_entry_crc(stage + 56, 56), 0x1c3c3b4d);
	TAP_CHECK_INT(txn_log_append(&w, "fghijklm", 8, NULL), 0);
	TAP_CHECK_INT(txn_log_append(&w, "nop", 3, NULL), 0);
	n = txn_log_writer_flush(&w, piece);
	TAP_CHECK_INT(n, 1);
	TAP_CHECK_INT(piece[0].off, 0);
	TAP_CHECK_INT(piece[0].len, 224);
	place(ring, &w, piece, n);
	TAP_CHECK_INT(txn_log_writer_flush(&w, piece), 0);

	/* the reader takes them, in order */
	TAP_CHECK_INT(txn_log_reader_init(&r, 1, 2), 0);
	for (i = 0; i < 4; i++) {
		TAP_CHECK_INT(txn_log_reader_scan(&r, ring, sizeof(ring), &e), 1);
		TAP_CHECK_INT(e.clock[1], i + 1);
		TAP_CHECK_INT(e.clock[0], 5);
		TAP_CHECK_INT(e.writer, 1);
		TAP_CHECK_INT(txn_log_reader_consume(&r, &e), 0);
	}
	TAP_CHECK_INT(e.len, 3);
	TAP_CHECK(!memcmp(e.payload, "nop", 3));
	TAP_CHECK_INT(r.pos, 224);
	TAP_CHECK_INT(txn_log_reader_scan(&r, ring, sizeof(ring), &e), 0);

	/* 32 bytes left: a PAD there, the entry at the next lap */
	TAP_CHECK_INT(txn_log_writer_consumed(&w, 112), 0);
	TAP_CHECK_INT(txn_log_append(&w, big, 72, NULL), -ENOSPC); /* 120 */
	TAP_CHECK_INT(txn_log_append(&w, "qrs", 3, &e), 0);
	TAP_CHECK_INT(e.pos, 256);
	TAP_CHECK(!memcmp(stage + 224, want_pad, sizeof(want_pad)));
	TAP_CHECK_INT(ref_entry_crc(stage + 224, 32), 0x087eff68);
	TAP_CHECK_INT(le64toh(*(const uint64_t *)(stage + 16)), 256);
	n = txn_log_writer_flush(&w, piece);
	TAP_CHECK_INT(n, 2);
	TAP_CHECK_INT(piece[0].off, 224);
	TAP_CHECK_INT(piece[0].len, 32);
	TAP_CHECK_INT(piece[1].off, 0);
	TAP_CHECK_INT(piece[1].len, 56);
	place(ring, &w, piece, n);

	/* the reader takes it, the PAD on the way */
	TAP_CHECK_INT(txn_log_reader_scan(&r, ring, sizeof(ring), &e), 1);
	TAP_CHECK_INT(e.clock[1], 5);
	TAP_CHECK_INT(e.clock[0], 5);
	TAP_CHECK_INT(e.pos, 256);
	TAP_CHECK_INT(r.pos, 256);
	TAP_CHECK_INT(txn_log_reader_consume(&r, &e), 0);
	TAP_CHECK_INT(e.len, 3);
	TAP_CHECK(!memcmp(e.payload, "qrs", 3));
	TAP_CHECK(e.payload == ring + TXN_LOG_HDR_LEN + 2 * 8);
	TAP_CHECK_INT(r.pos, 312);
	TAP_CHECK_INT(txn_log_reader_scan(&r, ring, sizeof(ring), &e), 0);
}

/* fewer bytes than a header left: no PAD, the next lap, nothing sent */
static void test_tail_skip(void)
{
	static uint8_t stage[256], ring[256];
	struct txn_log_piece piece[2];
	struct txn_log_writer w;
	struct txn_log_reader r;
	struct txn_log_entry e;
	unsigned int n, i;

	TAP_CHECK_INT(txn_log_writer_init(&w, 0, 2, sizeof(stage), stage), 0);
	for (i = 0; i < 3; i++)
		TAP_CHECK_INT(txn_log_append(&w, "12345678", 8, NULL), 0);
	TAP_CHECK_INT(txn_log_append(&w, "abcdefghijklmnopqrstuvwx", 24, &e), 0);
	TAP_CHECK_INT(e.pos, 168);
	TAP_CHECK_INT(e.size, 72);
	TAP_CHECK_INT(w.pos, 256);
	n = txn_log_writer_flush(&w, piece);
	TAP_CHECK_INT(n, 1);
	TAP_CHECK_INT(piece[0].off, 0);
	TAP_CHECK_INT(piece[0].len, 240);
	place(ring, &w, piece, n);
	memset(ring + 240, 0x5a, 16);	/* never read */

	TAP_CHECK_INT(txn_log_reader_init(&r, 0, 2), 0);
	for (i = 0; i < 4; i++) {
		TAP_CHECK_INT(txn_log_reader_scan(&r, ring, sizeof(ring), &e), 1);
		TAP_CHECK_INT(txn_log_reader_consume(&r, &e), 0);
	}
	TAP_CHECK_INT(r.pos, 240);
	TAP_CHECK_INT(txn_log_writer_consumed(&w, r.pos), 0);
	TAP_CHECK_INT(txn_log_reader_scan(&r, ring, sizeof(ring), &e), 0);
	TAP_CHECK_INT(r.pos, 256);	/* skipped on the way */
	TAP_CHECK_INT(txn_log_writer_consumed(&w, r.pos), 0);
	TAP_CHECK_INT(txn_log_append(&w, "z", 1, NULL), 0);
	n = txn_log_writer_flush(&w, piece);
	TAP_CHECK_INT(n, 1);
	TAP_CHECK_INT(piece[0].off, 0);
	TAP_CHECK_INT(piece[0].len, 56);
	place(ring, &w, piece, n);
	TAP_CHECK_INT(txn_log_reader_scan(&r, ring, sizeof(ring), &e), 1);
	TAP_CHECK_INT(e.pos, 256);
	TAP_CHECK_INT(e.clock[0], 5);
	TAP_CHECK_INT(e.len, 1);
	TAP_CHECK_INT(e.payload[0], 'z');
}

/* scan with a copy of @r: the result, @r untouched */
static int peek(const struct txn_log_reader *r, const uint8_t *ring,
		uint64_t ring_size)
{
	struct txn_log_reader t = *r;
	struct txn_log_entry e;

	return txn_log_reader_scan(&t, ring, ring_size, &e);
}

/* every single bit of [off, off + len) flipped: never taken */
static unsigned long flips_taken(uint8_t *ring, uint64_t ring_size,
				 uint64_t off, uint64_t len,
				 const struct txn_log_reader *r)
{
	unsigned long taken = 0;
	uint64_t bit;

	for (bit = 0; bit < len * 8; bit++) {
		ring[off + bit / 8] ^= (uint8_t)(1u << (bit % 8));
		if (peek(r, ring, ring_size) != 0)
			taken++;
		ring[off + bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
	return taken;
}

static void test_bit_flips(void)
{
	static uint8_t stage[512], ring[512], data[128];
	static const uint64_t seen[3] = { 0x0102030405060708ULL, 0,
					  0xfedcba9876543210ULL };
	struct txn_log_piece piece[2];
	struct txn_log_writer w;
	struct txn_log_reader r;
	struct txn_log_entry e;
	unsigned long taken = 0, bits = 0;
	unsigned int n;

	/* writer 1 of 3, a payload with padding, on a zeroed ring */
	TAP_CHECK_INT(txn_log_writer_init(&w, 1, 3, sizeof(stage), stage), 0);
	TAP_CHECK_INT(txn_log_observe(&w, seen, 3), 0);
	TAP_CHECK_INT(txn_log_reader_init(&r, 1, 3), 0);
	TAP_CHECK_INT(txn_log_append(&w, "thirteen byte", 13, &e), 0);
	n = txn_log_writer_flush(&w, piece);
	place(ring, &w, piece, n);
	TAP_CHECK_INT(peek(&r, ring, sizeof(ring)), 1);
	taken += flips_taken(ring, sizeof(ring), 0, e.size, &r);
	bits += e.size * 8;
	TAP_CHECK_INT(peek(&r, ring, sizeof(ring)), 1);

	/* entries up to a PAD; the PAD's bits, then the entry's after it */
	while (w.pos + txn_log_entry_size(3, 100) <= sizeof(ring)) {
		TAP_CHECK_INT(txn_log_reader_scan(&r, ring, sizeof(ring), &e), 1);
		TAP_CHECK_INT(txn_log_reader_consume(&r, &e), 0);
		TAP_CHECK_INT(txn_log_append(&w, data, 40, NULL), 0);
		n = txn_log_writer_flush(&w, piece);
		place(ring, &w, piece, n);
	}
	/* (bounded: a broken reader might go round for ever) */
	for (n = 0; n < 16 && peek(&r, ring, sizeof(ring)) == 1; n++) {
		TAP_CHECK_INT(txn_log_reader_scan(&r, ring, sizeof(ring), &e), 1);
		TAP_CHECK_INT(txn_log_reader_consume(&r, &e), 0);
	}
	TAP_CHECK_INT(txn_log_writer_consumed(&w, r.pos), 0);
	memset(data, 0x3c, sizeof(data));
	TAP_CHECK_INT(txn_log_append(&w, data + 7, 100, &e), 0);
	TAP_CHECK_INT(e.pos, sizeof(ring));	/* behind a PAD */
	n = txn_log_writer_flush(&w, piece);
	TAP_CHECK_INT(n, 2);
	place(ring, &w, piece, n);
	TAP_CHECK_INT(peek(&r, ring, sizeof(ring)), 1);
	taken += flips_taken(ring, sizeof(ring), piece[0].off, HDR_LEN_PAD,
			     &r);
	bits += HDR_LEN_PAD * 8;
	taken += flips_taken(ring, sizeof(ring), 0, e.size, &r);
	bits += e.size * 8;
	TAP_CHECK_INT(peek(&r, ring, sizeof(ring)), 1);

	/* the widest clock, no payload */
	{
		static uint8_t st16[1024], ring16[1024];
		struct txn_log_writer w16;
		struct txn_log_reader r16;

		TAP_CHECK_INT(txn_log_writer_init(&w16, 15, 16, sizeof(st16),
						  st16), 0);
		TAP_CHECK_INT(txn_log_reader_init(&r16, 15, 16), 0);
		TAP_CHECK_INT(txn_log_append(&w16, NULL, 0, &e), 0);
		TAP_CHECK_INT(e.size, 160);
		n = txn_log_writer_flush(&w16, piece);
		place(ring16, &w16, piece, n);
		TAP_CHECK_INT(peek(&r16, ring16, sizeof(ring16)), 1);
		taken += flips_taken(ring16, sizeof(ring16), 0, e.size, &r16);
		bits += e.size * 8;
	}
	tap_diag("%lu single-bit flips of entries and a PAD, %lu taken",
		 bits, taken);
	TAP_CHECK_INT(taken, 0);
}

/*
 * The bytes of a batch as chunks (offset << 4 | length) of 8 bytes or
 * of 1 byte, each 8-byte word split or not at random, in random order.
 */
static unsigned int chunks_of(uint32_t *chunk,
			      const struct txn_log_piece *piece,
			      unsigned int npieces)
{
	unsigned int n = 0, i, b;
	uint64_t o;

	for (i = 0; i < npieces; i++) {
		uint64_t end = piece[i].off + piece[i].len;

		for (o = piece[i].off; o < end; o += 8) {
			if (rnd() & 1) {
				chunk[n++] = (uint32_t)(o << 4 | 8);
				continue;
			}
			for (b = 0; b < 8; b++)
				chunk[n++] = (uint32_t)((o + b) << 4 | 1);
		}
	}
	for (i = n; i > 1; i--) {
		uint32_t t;

		b = (unsigned int)rnd_below(i);
		t = chunk[i - 1];
		chunk[i - 1] = chunk[b];
		chunk[b] = t;
	}
	return n;
}

/* pieces within the ring, 8-byte aligned, a ring's worth at most */
static bool pieces_ok(const struct txn_log_piece *piece, unsigned int n,
		      uint64_t ring_size)
{
	uint64_t sum = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (piece[i].off % 8 || piece[i].len % 8 || !piece[i].len ||
		    piece[i].off + piece[i].len > ring_size)
			return false;
		sum += piece[i].len;
	}
	return sum <= ring_size;
}

static void copy_chunk(uint8_t *ring, const uint8_t *stage, uint32_t c)
{
	memcpy(ring + (c >> 4), stage + (c >> 4), c & 15);
}

/*
 * Whether the entry @r is due at is all in @ring, by the writer's stage
 * (the truth): a PAD before it and the bytes skipped at the ring's end
 * on the way, as the reader goes.
 */
static int due_whole(const struct txn_log_reader *r,
		     const struct txn_log_writer *w, const uint8_t *ring)
{
	uint64_t rs = w->ring_size, pos = r->pos;
	unsigned int round;

	for (round = 0; round < 3; round++) {
		uint64_t off = pos % rs, room = rs - off, size;
		struct txrdma_tlog_hdr h;

		if (room < TXN_LOG_HDR_LEN) {
			pos += room;
			continue;
		}
		if (pos >= w->flushed)
			return 0;
		memcpy(&h, w->stage + off, sizeof(h));
		size = h.type == TXRDMA_TLOG_PAD ? TXN_LOG_HDR_LEN :
			txn_log_entry_size(h.nclock, le32toh(h.len));
		if (size > room || le64toh(h.pos) != pos)
			return -1;	/* the stage is wrong: no answer fits */
		if (memcmp(ring + off, w->stage + off, size))
			return 0;
		if (h.type == TXRDMA_TLOG_ENTRY)
			return 1;
		pos += room;
	}
	return 0;
}

/*
 * One writer's batches placed chunk by chunk in random order over what
 * the ring held (zeroes, random bytes, older laps): after every chunk
 * the reader takes the entry due exactly when all its bytes are there.
 */
static void test_partial_placement(void)
{
	static uint8_t stage[1024], ring[1024], data[1024];
	static uint32_t chunk[1024];
	unsigned long looks = 0, wrong = 0, taken = 0, partial = 0;
	unsigned int trial, i;

	for (i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)rnd();
	for (trial = 0; trial < 300; trial++) {
		unsigned int nw = 1 + (unsigned int)rnd_below(16);
		unsigned int id = (unsigned int)rnd_below(nw), k, n, c;
		uint32_t maxlen = (uint32_t)(sizeof(ring) / 2 -
					     txn_log_entry_size(nw, 0));
		struct txn_log_piece piece[2];
		struct txn_log_writer w;
		struct txn_log_reader r;
		struct txn_log_entry e;

		if (trial % 3 == 0)
			memset(ring, 0, sizeof(ring));
		else
			for (i = 0; i < sizeof(ring); i++)
				ring[i] = (uint8_t)rnd();
		TAP_CHECK_INT(txn_log_writer_init(&w, id, nw, sizeof(stage),
						  stage), 0);
		TAP_CHECK_INT(txn_log_reader_init(&r, id, nw), 0);
		for (k = 0; k < 40; k++) {
			unsigned int batch = 1 + (unsigned int)rnd_below(3);

			for (i = 0; i < batch; i++) {
				uint32_t len = (uint32_t)rnd_below(maxlen + 1);

				if (txn_log_append(&w, data, len, NULL))
					break;
			}
			n = txn_log_writer_flush(&w, piece);
			if (!TAP_CHECK(pieces_ok(piece, n, sizeof(ring))))
				break;
			c = chunks_of(chunk, piece, n);
			for (i = 0; i < c; i++) {
				int rc, want;

				copy_chunk(ring, stage, chunk[i]);
				rc = peek(&r, ring, sizeof(ring));
				want = due_whole(&r, &w, ring);
				looks++;
				if (rc != want)
					wrong++;
				if (rc == 1)
					taken++;
				else if (i + 1 < c)
					partial++;
			}
			/* consume what arrived, tell the writer */
			for (i = 0; i < 64 && txn_log_reader_scan(&r, ring,
					sizeof(ring), &e) == 1; i++)
				TAP_CHECK_INT(txn_log_reader_consume(&r, &e), 0);
			TAP_CHECK_INT(r.pos, w.flushed);
			TAP_CHECK_INT(txn_log_writer_consumed(&w, r.pos), 0);
		}
	}
	tap_diag("%lu looks at partly placed batches: %lu took the entry due, "
		 "%lu refused it while the batch was partial, %lu wrong",
		 looks, taken, partial, wrong);
	TAP_CHECK_INT(wrong, 0);
}

/* an older lap's intact entries where the next lap's are due */
static void test_stale_laps(void)
{
	static uint8_t stage[512], ring[512], lap0[512];
	struct txn_log_piece piece[2];
	struct txn_log_writer w;
	struct txn_log_reader r;
	struct txn_log_entry e;
	unsigned int i, n, lap;

	TAP_CHECK_INT(txn_log_writer_init(&w, 0, 2, sizeof(stage), stage), 0);
	TAP_CHECK_INT(txn_log_reader_init(&r, 0, 2), 0);
	/* 8 entries of 64 bytes a lap: each lap's at the same offsets */
	for (lap = 0; lap < 3; lap++) {
		for (i = 0; i < 8; i++)
			TAP_CHECK_INT(txn_log_append(&w, "0123456789abcdef",
						     16, NULL), 0);
		TAP_CHECK_INT(txn_log_append(&w, "x", 1, NULL), -ENOSPC);
		n = txn_log_writer_flush(&w, piece);
		TAP_CHECK_INT(n, 1);
		TAP_CHECK_INT(piece[0].len, 512);
		if (lap == 0) {
			place(ring, &w, piece, n);
			memcpy(lap0, ring, sizeof(ring));
		} else {
			/* what is there is intact, of an older lap */
			if (lap == 2)
				memcpy(ring, lap0, sizeof(ring));
			for (i = 0; i < 8; i++) {
				TAP_CHECK_INT(ref_entry_crc(ring + 64 * i, 64),
					      le32toh(*(const uint32_t *)
						      (ring + 64 * i + 12)));
				TAP_CHECK_INT(peek(&r, ring, sizeof(ring)), 0);
				/* the due one arrives: taken */
				memcpy(ring + 64 * i, stage + 64 * i, 64);
				TAP_CHECK_INT(txn_log_reader_scan(&r, ring,
								  sizeof(ring),
								  &e), 1);
				TAP_CHECK_INT(e.pos, 512 * lap + 64 * i);
				TAP_CHECK_INT(txn_log_reader_consume(&r, &e), 0);
			}
		}
		if (lap == 0) {
			for (i = 0; i < 8; i++) {
				TAP_CHECK_INT(txn_log_reader_scan(&r, ring,
								  sizeof(ring),
								  &e), 1);
				TAP_CHECK_INT(txn_log_reader_consume(&r, &e), 0);
			}
		}
		TAP_CHECK_INT(peek(&r, ring, sizeof(ring)), 0);
		TAP_CHECK_INT(txn_log_writer_consumed(&w, r.pos), 0);
	}
	TAP_CHECK_INT(r.pos, 3 * 512);

	/* a reader due at a later lap over the same bytes: never */
	r.pos = 0;
	TAP_CHECK_INT(peek(&r, lap0, sizeof(lap0)), 1);
	for (i = 1; i < 4; i++) {
		r.pos = 512 * i;
		TAP_CHECK_INT(peek(&r, lap0, sizeof(lap0)), 0);
	}
}

/* rings of zeroes, ones, random bytes: nothing taken, at any position */
static void test_garbage_rings(void)
{
	static uint8_t ring[4096];
	unsigned long taken = 0, looks = 0;
	struct txn_log_reader r;
	unsigned int t, i;

	TAP_CHECK_INT(txn_log_reader_init(&r, 0, 2), 0);
	for (t = 0; t < 2; t++) {
		memset(ring, t ? 0xff : 0, sizeof(ring));
		for (i = 0; i < sizeof(ring) / 8; i++) {
			r.pos = 8 * i;
			looks += 2;
			taken += peek(&r, ring, sizeof(ring)) != 0;
			r.pos = 8 * i + sizeof(ring) * 5;
			taken += peek(&r, ring, sizeof(ring)) != 0;
		}
	}
	for (t = 0; t < 200; t++) {
		for (i = 0; i < sizeof(ring); i++)
			ring[i] = (uint8_t)rnd();
		for (i = 0; i < 64; i++) {
			r.pos = 8 * rnd_below(sizeof(ring) * 4 / 8);
			looks++;
			taken += peek(&r, ring, sizeof(ring)) != 0;
		}
	}
	/* a header that names the position due, over random bytes */
	for (t = 0; t < 2000; t++) {
		struct txrdma_tlog_hdr h = {
			.magic	= htole32(TXRDMA_TLOG_MAGIC),
			.type	= TXRDMA_TLOG_ENTRY,
			.nclock	= 2,
			.len	= htole32((uint32_t)rnd_below(200)),
			.crc	= (uint32_t)rnd(),
			.pos	= htole64(0),
		};

		for (i = 0; i < 512; i++)
			ring[i] = (uint8_t)rnd();
		memcpy(ring, &h, sizeof(h));
		r.pos = 0;
		looks++;
		taken += peek(&r, ring, sizeof(ring)) != 0;
	}
	tap_diag("%lu looks at garbage, %lu taken", looks, taken);
	TAP_CHECK_INT(taken, 0);
}

/* bytes that check out but break a rule: the writer's bug, -EPROTO */
static void reseal(uint8_t *at, size_t size)
{
	uint32_t crc = htole32(ref_entry_crc(at, size));

	memcpy(at + 12, &crc, 4);
}

static void test_rule_breaks(void)
{
	static uint8_t stage[256], ring[256], good[256];
	struct txn_log_piece piece[2];
	struct txn_log_writer w;
	struct txn_log_reader r;
	unsigned int n;

	TAP_CHECK_INT(txn_log_writer_init(&w, 0, 2, sizeof(stage), stage), 0);
	TAP_CHECK_INT(txn_log_append(&w, "abc", 3, NULL), 0);
	n = txn_log_writer_flush(&w, piece);
	place(ring, &w, piece, n);
	memcpy(good, ring, sizeof(ring));
	TAP_CHECK_INT(txn_log_reader_init(&r, 0, 2), 0);
	TAP_CHECK_INT(peek(&r, ring, sizeof(ring)), 1);

	ring[6] = 1;			/* another writer's */
	reseal(ring, 56);
	TAP_CHECK_INT(peek(&r, ring, sizeof(ring)), -EPROTO);
	memcpy(ring, good, sizeof(ring));
	ring[24] = 1;			/* resv */
	reseal(ring, 56);
	TAP_CHECK_INT(peek(&r, ring, sizeof(ring)), -EPROTO);
	memcpy(ring, good, sizeof(ring));
	ring[48 + 5] = 1;		/* padding */
	reseal(ring, 56);
	TAP_CHECK_INT(peek(&r, ring, sizeof(ring)), -EPROTO);
	memcpy(ring, good, sizeof(ring));
	ring[32] = 0;			/* own component 0 */
	reseal(ring, 56);
	TAP_CHECK_INT(peek(&r, ring, sizeof(ring)), -EPROTO);
	memcpy(ring, good, sizeof(ring));
	ring[5] = 1;			/* another clock width: 1 */
	memmove(ring + 40, ring + 48, 8);
	reseal(ring, 48);
	TAP_CHECK_INT(peek(&r, ring, sizeof(ring)), -EPROTO);
	memcpy(ring, good, sizeof(ring));
	ring[4] = 3;			/* unknown type: not even sized */
	reseal(ring, 56);
	TAP_CHECK_INT(peek(&r, ring, sizeof(ring)), 0);

	/* a PAD that does not end the ring */
	memcpy(ring, good, sizeof(ring));
	memset(ring + 200, 0, 32);
	{
		struct txrdma_tlog_hdr h = {
			.magic	= htole32(TXRDMA_TLOG_MAGIC),
			.type	= TXRDMA_TLOG_PAD,
			.len	= htole32(8),	/* 24 would end it */
			.pos	= htole64(200),
		};

		memcpy(ring + 200, &h, sizeof(h));
		reseal(ring + 200, 32);
		r.pos = 200;
		TAP_CHECK_INT(peek(&r, ring, sizeof(ring)), -EPROTO);
		h.len = htole32(24);
		memcpy(ring + 200, &h, sizeof(h));
		reseal(ring + 200, 32);
		/* a good PAD, then nothing at the next lap */
		TAP_CHECK_INT(peek(&r, ring, sizeof(ring)), 0);
		r.pos = 0;
	}

	/* the reader of a 3-writer group over this 2-writer log */
	TAP_CHECK_INT(txn_log_reader_init(&r, 0, 3), 0);
	memcpy(ring, good, sizeof(ring));
	TAP_CHECK_INT(peek(&r, ring, sizeof(ring)), -EPROTO);
}

static void test_writer_limits(void)
{
	static uint8_t stage[1024], big[1024], snap[1024];
	static const uint64_t c2[2] = { 0, 7 };
	struct txn_log_piece piece[2];
	struct txn_log_writer w;
	struct txn_log_entry e;
	unsigned int i;

	TAP_CHECK_INT(txn_log_writer_init(&w, 0, 0, 1024, stage), -EINVAL);
	TAP_CHECK_INT(txn_log_writer_init(&w, 0, 17, 1024, stage), -EINVAL);
	TAP_CHECK_INT(txn_log_writer_init(&w, 2, 2, 1024, stage), -EINVAL);
	TAP_CHECK_INT(txn_log_writer_init(&w, 0, 2, 1020, stage), -EINVAL);
	TAP_CHECK_INT(txn_log_writer_init(&w, 0, 2, 88, stage), -EINVAL);
	TAP_CHECK_INT(txn_log_writer_init(&w, 0, 2, 96, stage), 0);
	TAP_CHECK_INT(txn_log_writer_init(&w, 0, 2, 1024, NULL), -EINVAL);
	TAP_CHECK_INT(txn_log_writer_init(&w, 0, 2, 1024, stage), 0);

	TAP_CHECK_INT(txn_log_append(&w, NULL, 1, NULL), -EINVAL);
	TAP_CHECK_INT(txn_log_append(&w, big, 512 - 48 + 1, NULL), -EMSGSIZE);
	TAP_CHECK_INT(txn_log_append(&w, big, 512 - 48, &e), 0);
	TAP_CHECK_INT(e.size, 512);
	TAP_CHECK_INT(txn_log_append(&w, big, 512 - 48, &e), 0);
	TAP_CHECK_INT(txn_log_append(&w, big, 0, NULL), -ENOSPC);
	TAP_CHECK_INT(w.clock[0], 2);

	/* full: nothing changes on -ENOSPC, the reader's bytes least */
	TAP_CHECK_INT(txn_log_writer_init(&w, 0, 2, 1024, stage), 0);
	for (i = 0; i < 16; i++)
		TAP_CHECK_INT(txn_log_append(&w, big, 16, NULL), 0);
	memcpy(snap, stage, sizeof(stage));
	TAP_CHECK_INT(txn_log_append(&w, big, 0, NULL), -ENOSPC);
	TAP_CHECK_INT(w.clock[0], 16);
	TAP_CHECK_INT(w.pos, 1024);
	TAP_CHECK(!memcmp(snap, stage, sizeof(stage)));
	TAP_CHECK_INT(txn_log_writer_consumed(&w, 64), -EINVAL);	/* not sent */
	TAP_CHECK_INT(txn_log_writer_flush(&w, piece), 1);
	TAP_CHECK_INT(txn_log_writer_consumed(&w, 60), -EINVAL);
	TAP_CHECK_INT(txn_log_writer_consumed(&w, 1032), -EINVAL);
	TAP_CHECK_INT(txn_log_writer_consumed(&w, 64), 0);
	TAP_CHECK_INT(txn_log_writer_consumed(&w, 0), -EINVAL);	/* back */
	TAP_CHECK_INT(txn_log_append(&w, big, 17, NULL), -ENOSPC);	/* 72 */
	TAP_CHECK(!memcmp(snap, stage, sizeof(stage)));
	TAP_CHECK_INT(txn_log_append(&w, big, 16, &e), 0);		/* 64 */
	TAP_CHECK_INT(e.pos, 1024);
	TAP_CHECK(!memcmp(snap + 64, stage + 64, sizeof(stage) - 64));

	/* clocks */
	TAP_CHECK_INT(txn_log_observe(&w, c2, 1), -EINVAL);
	TAP_CHECK_INT(txn_log_observe(&w, c2, 2), 0);
	TAP_CHECK_INT(w.clock[0], 17);
	TAP_CHECK_INT(w.clock[1], 7);
	{
		static const uint64_t c3[2] = { 18, 3 }, c4[2] = { 5, 3 };

		TAP_CHECK_INT(txn_log_observe(&w, c3, 2), -EINVAL);
		TAP_CHECK_INT(txn_log_observe(&w, c4, 2), 0);
		TAP_CHECK_INT(w.clock[0], 17);
		TAP_CHECK_INT(w.clock[1], 7);	/* never back */
	}

	/* the reader's own refusals */
	{
		struct txn_log_reader r;

		TAP_CHECK_INT(txn_log_reader_init(&r, 2, 2), -EINVAL);
		TAP_CHECK_INT(txn_log_reader_init(&r, 0, 17), -EINVAL);
		TAP_CHECK_INT(txn_log_reader_init(&r, 1, 2), 0);
		TAP_CHECK_INT(txn_log_reader_scan(&r, snap, 1020, &e), -EINVAL);
		TAP_CHECK_INT(txn_log_reader_scan(&r, NULL, 1024, &e), -EINVAL);
		e.pos = 8;
		e.writer = 1;
		e.size = 64;
		TAP_CHECK_INT(txn_log_reader_consume(&r, &e), -EINVAL);
	}
}

static void flush_place(struct txn_log_writer *w, uint8_t *ring)
{
	struct txn_log_piece piece[2];
	unsigned int n = txn_log_writer_flush(w, piece);

	place(ring, w, piece, n);
}

static void test_merge_small(void)
{
	static uint8_t st[2][512], ring[2][512];
	struct txn_log_entry a1, a2, b1, b2, e;
	struct txn_log_writer w[2];
	struct txn_log_merge m;
	unsigned int i;

	TAP_CHECK_INT(txn_log_merge_init(&m, 0), -EINVAL);
	TAP_CHECK_INT(txn_log_merge_init(&m, 17), -EINVAL);
	TAP_CHECK_INT(txn_log_merge_init(&m, 2), 0);
	TAP_CHECK_INT(txn_log_merge_attach(&m, 2, ring[0], 512), -EINVAL);
	TAP_CHECK_INT(txn_log_merge_attach(&m, 0, ring[0], 500), -EINVAL);
	for (i = 0; i < 2; i++) {
		TAP_CHECK_INT(txn_log_writer_init(&w[i], i, 2, 512, st[i]), 0);
		TAP_CHECK_INT(txn_log_merge_attach(&m, i, ring[i], 512), 0);
	}
	TAP_CHECK_INT(txn_log_merge(&m, &e), 0);

	/* A's first entry follows B's first; A's arrives first: it waits */
	TAP_CHECK_INT(txn_log_append(&w[1], "b1", 2, &b1), 0);
	TAP_CHECK_INT(txn_log_observe(&w[0], b1.clock, 2), 0);
	TAP_CHECK_INT(txn_log_append(&w[0], "a1", 2, &a1), 0);
	TAP_CHECK_INT(a1.clock[0], 1);
	TAP_CHECK_INT(a1.clock[1], 1);
	TAP_CHECK(txn_log_before(&b1, &a1));
	TAP_CHECK(!txn_log_before(&a1, &b1));
	flush_place(&w[0], ring[0]);
	TAP_CHECK_INT(txn_log_merge(&m, &e), 0);
	TAP_CHECK(m.s[0].held);
	TAP_CHECK_INT(txn_log_merge(&m, &e), 0);
	flush_place(&w[1], ring[1]);
	TAP_CHECK_INT(txn_log_merge(&m, &e), 1);
	TAP_CHECK_INT(e.writer, 1);
	TAP_CHECK(!memcmp(e.payload, "b1", 2));
	TAP_CHECK_INT(txn_log_merge(&m, &e), 1);
	TAP_CHECK_INT(e.writer, 0);
	TAP_CHECK(!memcmp(e.payload, "a1", 2));
	TAP_CHECK_INT(txn_log_merge(&m, &e), 0);
	TAP_CHECK_INT(txn_log_merge_consumed(&m, 0), w[0].flushed);
	TAP_CHECK_INT(txn_log_merge_consumed(&m, 1), w[1].flushed);

	/* concurrent, equal sums: the lower writer id first */
	TAP_CHECK_INT(txn_log_append(&w[0], "a2", 2, &a2), 0);
	TAP_CHECK_INT(txn_log_observe(&w[1], a1.clock, 2), 0);
	TAP_CHECK_INT(txn_log_append(&w[1], "b2", 2, &b2), 0);
	TAP_CHECK(!txn_log_before(&a2, &b2));
	TAP_CHECK(!txn_log_before(&b2, &a2));
	TAP_CHECK(txn_log_before(&a1, &b2));
	TAP_CHECK(txn_log_before(&a1, &a2));
	flush_place(&w[1], ring[1]);
	flush_place(&w[0], ring[0]);
	TAP_CHECK_INT(txn_log_merge(&m, &e), 1);
	TAP_CHECK_INT(e.writer, 0);
	TAP_CHECK_INT(txn_log_merge(&m, &e), 1);
	TAP_CHECK_INT(e.writer, 1);
	/* the smaller sum first: B's third {1,3} before A's {3,2} */
	TAP_CHECK_INT(txn_log_observe(&w[0], b2.clock, 2), 0);
	TAP_CHECK_INT(txn_log_append(&w[0], "a3", 2, NULL), 0);	/* {3,2} */
	TAP_CHECK_INT(txn_log_append(&w[0], "a4", 2, NULL), 0);	/* {4,2} */
	TAP_CHECK_INT(txn_log_append(&w[1], "b3", 2, NULL), 0);	/* {1,3} */
	flush_place(&w[0], ring[0]);
	flush_place(&w[1], ring[1]);
	TAP_CHECK_INT(txn_log_merge(&m, &e), 1);
	TAP_CHECK_INT(e.writer, 1);
	TAP_CHECK_INT(txn_log_merge(&m, &e), 1);
	TAP_CHECK_INT(e.writer, 0);
	TAP_CHECK_INT(txn_log_merge(&m, &e), 1);
	TAP_CHECK_INT(e.writer, 0);
	TAP_CHECK_INT(txn_log_merge(&m, &e), 0);

	/* clocks that contradict each other: each head waits on the other */
	{
		static const uint64_t fake_a[2] = { 0, 1 };
		static const uint64_t fake_b[2] = { 1, 0 };

		memset(ring, 0, sizeof(ring));
		TAP_CHECK_INT(txn_log_merge_init(&m, 2), 0);
		for (i = 0; i < 2; i++) {
			TAP_CHECK_INT(txn_log_writer_init(&w[i], i, 2, 512,
							  st[i]), 0);
			TAP_CHECK_INT(txn_log_merge_attach(&m, i, ring[i], 512),
				      0);
		}
		TAP_CHECK_INT(txn_log_observe(&w[0], fake_a, 2), 0);
		TAP_CHECK_INT(txn_log_observe(&w[1], fake_b, 2), 0);
		TAP_CHECK_INT(txn_log_append(&w[0], "a", 1, NULL), 0);
		TAP_CHECK_INT(txn_log_append(&w[1], "b", 1, NULL), 0);
		flush_place(&w[0], ring[0]);
		TAP_CHECK_INT(txn_log_merge(&m, &e), 0);
		flush_place(&w[1], ring[1]);
		TAP_CHECK_INT(txn_log_merge(&m, &e), -EPROTO);
	}

	/* a head out of its log's sequence */
	{
		memset(ring, 0, sizeof(ring));
		TAP_CHECK_INT(txn_log_merge_init(&m, 2), 0);
		TAP_CHECK_INT(txn_log_writer_init(&w[0], 0, 2, 512, st[0]), 0);
		TAP_CHECK_INT(txn_log_merge_attach(&m, 0, ring[0], 512), 0);
		w[0].clock[0] = 5;
		TAP_CHECK_INT(txn_log_append(&w[0], "a", 1, NULL), 0);
		flush_place(&w[0], ring[0]);
		TAP_CHECK_INT(txn_log_merge(&m, &e), -EPROTO);
	}
}

/*
 * The issue's check.  Writers (two; four in a second run), one reader,
 * all in one thread: a step is a writer appending a batch (observing,
 * before some entries, a recent entry of another writer: a causal
 * dependency, transitive through a third one with four) and posting
 * it as a "WRITE" (its bytes as chunks in random order), or a WRITE in
 * flight placing some of its chunks (copied from the writer's stage
 * when placed, as an RDMA adapter reads its source late), or the
 * reader merging what it can and, at random, telling the writers how
 * far it consumed.  The test keeps its own vector clocks (the truth)
 * and checks the deliveries against them, not against the library's.
 */
#define SIM_MAXW	4
#define SIM_RING	4096
#define SIM_TOTAL	1000000
#define SIM_JOBS	8
#define SIM_BATCH	16
#define SIM_MAXLEN	40
#define SIM_STALL	200000

struct sim_job {
	unsigned int w;
	unsigned int n;
	unsigned int next;
	unsigned int entries;
	uint32_t chunk[SIM_RING];
};

struct sim_writer {
	struct txn_log_writer w;
	uint64_t appended;
	uint64_t arrived;		/* in WRITEs that completed */
	uint64_t cur[SIM_MAXW];		/* its causal past, by the test */
	uint32_t *truth;		/* [seq * nw + i], by the test */
	uint32_t *stamped;		/* [seq * nw + i], by the library */
	uint8_t stage[SIM_RING];
	uint8_t ring[SIM_RING];		/* at the reader */
};

struct sim {
	unsigned int nw;
	struct sim_writer wr[SIM_MAXW];
	struct sim_job job[SIM_JOBS];
	bool busy[SIM_JOBS];
	struct txn_log_merge m;
	uint64_t total, appended, delivered;
	uint64_t last[SIM_MAXW];	/* sequence number delivered last */
	uint64_t maxseen[SIM_MAXW];	/* over the delivered, true clocks */
	uint64_t steps, batches, observes, enospc, feedbacks;
	uint64_t refused, refused_hdr, refused_stale;
	uint64_t max_held, max_waiting, held_reads;
	uint64_t bad_seq, bad_payload, bad_clock, bad_order;
	uint64_t bad_overwrite, bad_feedback;
	int err;
	bool stalled;
};

static uint64_t sim_mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* an entry's payload: a function of (writer, sequence number) only */
static uint32_t sim_len(unsigned int w, uint64_t s)
{
	return (uint32_t)(sim_mix((uint64_t)w << 48 ^ s) % (SIM_MAXLEN + 1));
}

static uint8_t sim_byte(unsigned int w, uint64_t s, uint32_t i)
{
	uint64_t h = sim_mix(((uint64_t)w << 48 ^ s) + 0x5151);

	return (uint8_t)(h >> (8 * (i & 7))) ^ (uint8_t)(i * 37);
}

static void sim_observe(struct sim *S, unsigned int wi)
{
	unsigned int nw = S->nw;
	unsigned int o = (wi + 1 + (unsigned int)rnd_below(nw - 1)) % nw;
	struct sim_writer *W = &S->wr[wi], *O = &S->wr[o];
	uint64_t clock[SIM_MAXW], t, k;
	unsigned int i;
	int rc;

	if (!O->appended)
		return;
	k = O->appended < 64 ? O->appended : 64;
	t = O->appended - rnd_below(k);
	for (i = 0; i < nw; i++) {
		clock[i] = O->stamped[t * nw + i];
		if (O->truth[t * nw + i] > W->cur[i])
			W->cur[i] = O->truth[t * nw + i];
	}
	rc = txn_log_observe(&W->w, clock, nw);
	if (rc)
		S->err = rc;
	S->observes++;
}

static bool sim_write(struct sim *S, unsigned int wi)
{
	unsigned int batch = 1 + (unsigned int)rnd_below(SIM_BATCH);
	struct sim_writer *W = &S->wr[wi];
	unsigned int b, n, slot, entries = 0;
	struct txn_log_piece piece[2];
	uint8_t buf[SIM_MAXLEN];
	struct sim_job *J;

	for (slot = 0; slot < SIM_JOBS && S->busy[slot]; slot++)
		;
	if (slot == SIM_JOBS)
		return false;
	for (b = 0; b < batch && S->appended < S->total; b++) {
		uint64_t s = W->appended + 1;
		struct txn_log_entry e;
		uint32_t len, i;
		int rc;

		if (rnd_below(4) == 0)
			sim_observe(S, wi);
		len = sim_len(wi, s);
		for (i = 0; i < len; i++)
			buf[i] = sim_byte(wi, s, i);
		rc = txn_log_append(&W->w, buf, len, &e);
		if (rc == -ENOSPC) {
			S->enospc++;
			break;
		}
		if (rc) {
			S->err = rc;
			return false;
		}
		W->cur[wi] = s;
		for (i = 0; i < S->nw; i++) {
			W->truth[s * S->nw + i] = (uint32_t)W->cur[i];
			W->stamped[s * S->nw + i] = (uint32_t)e.clock[i];
		}
		W->appended = s;
		S->appended++;
		entries++;
	}
	if (!entries)
		return false;
	/* never past what the reader really consumed, plus a ring */
	if (W->w.pos - S->m.s[wi].rd.pos > SIM_RING)
		S->bad_overwrite++;
	n = txn_log_writer_flush(&W->w, piece);
	if (!pieces_ok(piece, n, SIM_RING)) {
		S->bad_overwrite++;
		return false;
	}
	J = &S->job[slot];
	J->w = wi;
	J->n = chunks_of(J->chunk, piece, n);
	J->next = 0;
	J->entries = entries;
	S->busy[slot] = true;
	S->batches++;
	return true;
}

static void sim_progress(struct sim *S)
{
	unsigned int busy[SIM_JOBS], nbusy = 0, i, k;
	struct sim_writer *W;
	struct sim_job *J;

	for (i = 0; i < SIM_JOBS; i++)
		if (S->busy[i])
			busy[nbusy++] = i;
	i = busy[rnd_below(nbusy)];
	J = &S->job[i];
	W = &S->wr[J->w];
	for (k = 1 + (unsigned int)rnd_below(48); k && J->next < J->n; k--)
		copy_chunk(W->ring, W->stage, J->chunk[J->next++]);
	if (J->next == J->n) {
		W->arrived += J->entries;
		S->busy[i] = false;
	}
}

static void sim_deliver(struct sim *S, const struct txn_log_entry *e)
{
	unsigned int j = e->writer, i;
	struct sim_writer *W;
	const uint32_t *t;
	uint64_t s;

	if (j >= S->nw) {
		S->bad_seq++;
		return;
	}
	W = &S->wr[j];
	s = e->clock[j];
	if (s != S->last[j] + 1 || s > W->appended) {
		S->bad_seq++;
		return;
	}
	S->last[j] = s;
	S->delivered++;
	if (e->len != sim_len(j, s) || e->payload < W->ring ||
	    e->payload + e->len > W->ring + SIM_RING) {
		S->bad_payload++;
	} else {
		for (i = 0; i < e->len; i++)
			if (e->payload[i] != sim_byte(j, s, i))
				break;
		if (i < e->len)
			S->bad_payload++;
	}
	t = W->truth + s * S->nw;
	for (i = 0; i < S->nw; i++)
		if (e->clock[i] != t[i])
			break;
	if (i < S->nw)
		S->bad_clock++;
	/* some entry delivered before it happened after it? */
	if (S->maxseen[j] >= s)
		S->bad_order++;
	for (i = 0; i < S->nw; i++)
		if (t[i] > S->maxseen[i])
			S->maxseen[i] = t[i];
}

static void sim_read(struct sim *S)
{
	uint64_t held = 0, waiting = 0;
	struct txn_log_entry e;
	unsigned int j;
	int rc;

	/* what the merger's scans are about to see, on copies */
	for (j = 0; j < S->nw; j++) {
		struct sim_writer *W = &S->wr[j];
		struct txn_log_reader t = S->m.s[j].rd;
		struct txrdma_tlog_hdr h;
		uint64_t off;

		if (S->m.s[j].held)
			continue;
		rc = txn_log_reader_scan(&t, W->ring, SIM_RING, &e);
		if (rc || W->w.flushed <= t.pos)
			continue;
		S->refused++;
		off = t.pos % SIM_RING;
		memcpy(&h, W->ring + off, sizeof(h));
		if (!memcmp(W->ring + off, W->stage + off, sizeof(h)))
			S->refused_hdr++;
		else if (le32toh(h.magic) == TXRDMA_TLOG_MAGIC &&
			 le64toh(h.pos) < t.pos)
			S->refused_stale++;
	}
	for (;;) {
		rc = txn_log_merge(&S->m, &e);
		if (rc < 0) {
			S->err = rc;
			return;
		}
		if (!rc)
			break;
		sim_deliver(S, &e);
	}
	for (j = 0; j < S->nw; j++) {
		held += S->m.s[j].held;
		if (S->wr[j].arrived > S->last[j])
			waiting += S->wr[j].arrived - S->last[j];
	}
	S->held_reads += held != 0;
	if (held > S->max_held)
		S->max_held = held;
	if (waiting > S->max_waiting)
		S->max_waiting = waiting;
	if (rnd() & 1)
		return;
	/* the feedback channel: late, at random */
	for (j = 0; j < S->nw; j++)
		if (txn_log_writer_consumed(&S->wr[j].w,
					    txn_log_merge_consumed(&S->m, j)))
			S->bad_feedback++;
	S->feedbacks++;
}

static uint64_t env_u64(const char *name, uint64_t dflt)
{
	const char *v = getenv(name);

	return v && *v ? strtoull(v, NULL, 0) : dflt;
}

static void sim_run(unsigned int nw, uint64_t total)
{
	static struct sim S;
	struct timespec t0, t1;
	uint64_t idle = 0, laps = 0, seed;
	char per[SIM_MAXW * 24] = "";
	unsigned int j, i;
	double secs;

	memset(&S, 0, sizeof(S));
	S.nw = nw;
	S.total = env_u64("TXN_LOG_ENTRIES", total);
	seed = env_u64("TXN_LOG_SEED", 0x5eed10c5);
	rng_state = seed + nw;
	TAP_CHECK_INT(txn_log_merge_init(&S.m, nw), 0);
	for (j = 0; j < nw; j++) {
		struct sim_writer *W = &S.wr[j];

		W->truth = calloc((S.total + 1) * nw, sizeof(uint32_t));
		W->stamped = calloc((S.total + 1) * nw, sizeof(uint32_t));
		if (!TAP_CHECK(W->truth && W->stamped))
			goto out;
		TAP_CHECK_INT(txn_log_writer_init(&W->w, j, nw, SIM_RING,
						  W->stage), 0);
		TAP_CHECK_INT(txn_log_merge_attach(&S.m, j, W->ring, SIM_RING),
			      0);
		/* one ring starts zeroed, the others with random bytes */
		for (i = 0; j && i < SIM_RING; i++)
			W->ring[i] = (uint8_t)rnd();
	}

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (S.delivered < S.total && !S.err) {
		uint64_t r = rnd_below(16), before = S.delivered;
		unsigned int nbusy = 0;
		bool moved;

		for (i = 0; i < SIM_JOBS; i++)
			nbusy += S.busy[i];
		S.steps++;
		if (r < 4 && S.appended < S.total && nbusy < SIM_JOBS) {
			moved = sim_write(&S, (unsigned int)rnd_below(nw));
		} else if (r < 12 && nbusy) {
			sim_progress(&S);
			moved = true;
		} else {
			sim_read(&S);
			moved = S.delivered != before;
		}
		idle = moved ? 0 : idle + 1;
		if (idle > SIM_STALL) {
			S.stalled = true;
			break;
		}
		if (S.bad_seq + S.bad_payload + S.bad_order + S.bad_clock +
		    S.bad_overwrite + S.bad_feedback > 10000)
			break;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (double)(t1.tv_sec - t0.tv_sec) +
	       (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	for (j = 0; j < nw; j++) {
		laps += txn_log_merge_consumed(&S.m, j) / SIM_RING;
		snprintf(per + strlen(per), sizeof(per) - strlen(per),
			 "%s%" PRIu64, j ? " + " : "", S.wr[j].appended);
	}

	tap_diag("seed %#" PRIx64 " (TXN_LOG_SEED), %u writers: %" PRIu64
		 " entries delivered of %" PRIu64
		 " (%s), %" PRIu64 " batches, %" PRIu64 " observes, %" PRIu64
		 " steps, %.1f s",
		 seed, nw, S.delivered, S.total, per, S.batches, S.observes,
		 S.steps, secs);
	tap_diag("rings of %d bytes wrapped %" PRIu64 " times; %" PRIu64
		 " appends refused -ENOSPC; %" PRIu64 " feedbacks",
		 SIM_RING, laps, S.enospc, S.feedbacks);
	tap_diag("scans refused with the entry due posted: %" PRIu64
		 " (header already whole: %" PRIu64 ", an older lap's entry"
		 " there: %" PRIu64 ")",
		 S.refused, S.refused_hdr, S.refused_stale);
	tap_diag("merge: a head held back for a predecessor after %" PRIu64
		 " reads, at most %" PRIu64 " at once; at most %" PRIu64
		 " arrived entries waiting in the rings",
		 S.held_reads, S.max_held, S.max_waiting);
	tap_diag("violations: sequence %" PRIu64 ", payload %" PRIu64
		 ", clock %" PRIu64 ", causal order %" PRIu64 ", overwrite %"
		 PRIu64 ", feedback %" PRIu64 "; error %d%s",
		 S.bad_seq, S.bad_payload, S.bad_clock, S.bad_order,
		 S.bad_overwrite, S.bad_feedback, S.err,
		 S.stalled ? "; STALLED" : "");

	TAP_CHECK_INT(S.err, 0);
	TAP_CHECK(!S.stalled);
	TAP_CHECK_INT(S.delivered, S.total);
	TAP_CHECK_INT(S.appended, S.total);
	for (j = 0; j < nw; j++)
		TAP_CHECK_INT(S.last[j], S.wr[j].appended);
	TAP_CHECK_INT(S.bad_seq, 0);
	TAP_CHECK_INT(S.bad_payload, 0);
	TAP_CHECK_INT(S.bad_clock, 0);
	TAP_CHECK_INT(S.bad_order, 0);
	TAP_CHECK_INT(S.bad_overwrite, 0);
	TAP_CHECK_INT(S.bad_feedback, 0);
	TAP_CHECK(laps > S.total / 1000);
	TAP_CHECK(S.refused_hdr > 0);
	TAP_CHECK(S.max_waiting > 0);
	TAP_CHECK(S.held_reads > 0);
out:
	for (j = 0; j < nw; j++) {
		free(S.wr[j].truth);
		free(S.wr[j].stamped);
	}
}

/* the issue's check */
static void test_sim(void)
{
	sim_run(2, SIM_TOTAL);
}

/* more writers: dependencies through a third one, more heads at once */
static void test_sim4(void)
{
	sim_run(4, SIM_TOTAL / 4);
}

static const struct tap_test tests[] = {
	TAP_TEST(test_layout,
		 "entry and PAD pinned byte for byte, pieces at the ring's end"),
	TAP_TEST(test_tail_skip,
		 "less than a header left: the next lap, nothing written"),
	TAP_TEST(test_bit_flips,
		 "every bit flip of an entry or a PAD refused"),
	TAP_TEST(test_partial_placement,
		 "batches placed in random chunk order: taken only when whole"),
	TAP_TEST(test_stale_laps,
		 "older laps' intact entries refused"),
	TAP_TEST(test_garbage_rings,
		 "zeroed, all-ones and random rings refused"),
	TAP_TEST(test_rule_breaks,
		 "rule breaks in bytes that check out: -EPROTO"),
	TAP_TEST(test_writer_limits,
		 "writer: sizes, full ring, feedback, clocks"),
	TAP_TEST(test_merge_small,
		 "merge: waits, tie-break, contradicting clocks"),
	TAP_TEST(test_sim,
		 "2 writers, 1 reader, 1,000,000 entries, random placement"),
	TAP_TEST(test_sim4,
		 "4 writers, 1 reader, 250,000 entries, random placement"),
};

int main(void)
{
	return TAP_MAIN(tests);
}
