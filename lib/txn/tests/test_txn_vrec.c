// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Versioned records (lib/txn/txn_vrec.c), on the host under ASan and
 * UBSan:
 *  - the layout, pinned byte for byte (a record, a table header), the
 *    CRC32C against a bitwise one;
 *  - the writer refuses bad arguments and writes nothing then; begin,
 *    commit and write keep versions even/odd as they must;
 *  - every single-bit flip of a valid copy is refused (-EINVAL for the
 *    fields written once, -EAGAIN for the rest), and flips in the unused
 *    bytes change nothing;
 *  - torn copies built on purpose (old header with new trailer, new
 *    header over an old payload, old versions over a mixed payload, new
 *    versions over an old CRC, A-B-A, a length torn past the slot,
 *    versions torn across a byte carry) are refused, and every mix,
 *    word by word, of a record's states before, during and after a
 *    write is refused or is exactly one committed value;
 *  - version vector validation names exactly the records that changed;
 *    bounded retries count and give up as documented; tables;
 *  - threads: a writer updates 64 records (64 B..4 KiB, lengths and
 *    payloads a function of record and version; half of them in groups
 *    of 4 changed as one) while 2 readers copy them in random order,
 *    8 bytes or 1 byte at a time, or in address order either way, with
 *    pauses, as an RDMA READ racing the writer would: every accepted
 *    copy is exactly the value of the version it claims, copies in
 *    address order are right on the versions alone, and groups read as
 *    version vectors never show part of a change;
 *  - a reader in address order that stalls after its first word until
 *    the writer moves (as a NIC may between two parts of one READ) is
 *    right on the versions alone too.
 * Seeds are fixed; only thread timing varies.  TXN_VREC_SECONDS sets the
 * threaded test's length (default 5).
 */
#include <endian.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../txn_vrec.h"
#include "txrdma_frame_check.h"
#include "tap.h"

#define MAX_CAP		4096
#define MAX_SLOT	(MAX_CAP + 32)

/* ------------------------------------------------------------------ */
/* helpers                                                             */

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t mix3(uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t s = a * 0xd6e8feb86659fd93ULL ^ b * 0x9e3779b97f4a7c15ULL ^
		     c * 0xc2b2ae3d27d4eb4fULL;

	return splitmix(&s);
}

/* the standard CRC32C, bit by bit: a second opinion on the library's */
static uint32_t crc32c_ref(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint32_t crc = ~0u;
	size_t i;
	int k;

	for (i = 0; i < n; i++) {
		crc ^= b[i];
		for (k = 0; k < 8; k++)
			crc = crc >> 1 ^ (crc & 1 ? 0x82f63b78u : 0);
	}
	return ~crc;
}

static void *slot_alloc(uint32_t cap)
{
	void *p = aligned_alloc(64, TXRDMA_VREC_STRIDE(cap));

	if (!p)
		abort();
	return p;
}

static void put_le32(uint8_t *p, uint32_t v)
{
	v = htole32(v);
	memcpy(p, &v, 4);
}

/* a state of a record, for the tests built by hand */
struct state {
	uint32_t cap;
	uint64_t version;	/* what a copy of it must claim, if even */
	uint32_t len;
	uint8_t b[MAX_SLOT];
};

static void snap(struct state *s, const void *slot, uint32_t cap)
{
	struct txn_vrec_view v;

	s->cap = cap;
	memcpy(s->b, slot, TXRDMA_VREC_SLOT_SIZE(cap));
	s->version = txn_vrec_version(slot);
	s->len = 0;
	if (!txn_vrec_check(s->b, cap, &v))
		s->len = v.len;
}

/* is the accepted @v exactly the committed state @s? */
static bool view_is(const struct txn_vrec_view *v, const struct state *s)
{
	return !(s->version & 1) && v->version == s->version &&
	       v->len == s->len &&
	       !memcmp(v->data, s->b + TXRDMA_VREC_PAYLOAD_OFF, s->len);
}

/* bytes [@off, @off + @n) of @dst from @src */
static void take(struct state *dst, const struct state *src, size_t off,
		 size_t n)
{
	memcpy(dst->b + off, src->b + off, n);
}

static int check_state(const struct state *s, struct txn_vrec_view *v)
{
	return txn_vrec_check(s->b, s->cap, v);
}

static void fill_rand(uint8_t *p, size_t n, uint64_t *seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)splitmix(seed);
}

/* ------------------------------------------------------------------ */
/* layout                                                              */

static void test_layout(void)
{
	static const char check[] = "123456789";
	static const uint8_t payload[11] = "hello world";
	uint8_t want[48], img[40];
	struct txn_vrec_view v;
	uint8_t *slot;
	uint32_t crc;

	TAP_CHECK_INT(sizeof(struct txrdma_vrec_hdr), 24);
	TAP_CHECK_INT(sizeof(struct txrdma_vrec_tail), 8);
	TAP_CHECK_INT(sizeof(struct txrdma_vrec_table), 64);
	TAP_CHECK_INT(offsetof(struct txrdma_vrec_hdr, version), 0);
	TAP_CHECK_INT(offsetof(struct txrdma_vrec_hdr, len), 8);
	TAP_CHECK_INT(offsetof(struct txrdma_vrec_hdr, crc), 12);
	TAP_CHECK_INT(offsetof(struct txrdma_vrec_hdr, cap), 16);
	TAP_CHECK_INT(offsetof(struct txrdma_vrec_hdr, resv), 20);
	TAP_CHECK_INT(offsetof(struct txrdma_vrec_table, cap), 8);
	TAP_CHECK_INT(offsetof(struct txrdma_vrec_table, stride), 12);
	TAP_CHECK_INT(offsetof(struct txrdma_vrec_table, nslots), 16);
	TAP_CHECK_INT(offsetof(struct txrdma_vrec_table, resv2), 24);
	TAP_CHECK_INT(TXRDMA_VREC_VERSION_OFF, 0);
	TAP_CHECK_INT(TXRDMA_VREC_PAYLOAD_OFF, 24);
	TAP_CHECK_INT(TXRDMA_VREC_SLOT_SIZE(16), 48);
	TAP_CHECK_INT(TXRDMA_VREC_TAIL_OFF(16), 40);
	TAP_CHECK_INT(TXRDMA_VREC_STRIDE(16), 64);
	TAP_CHECK_INT(TXRDMA_VREC_STRIDE(32), 64);
	TAP_CHECK_INT(TXRDMA_VREC_STRIDE(40), 128);
	TAP_CHECK_INT(TXRDMA_VREC_STRIDE(4096), 4160);
	TAP_CHECK_INT(TXRDMA_VREC_TABLE_SLOT_OFF(40, 0), 64);
	TAP_CHECK_INT(TXRDMA_VREC_TABLE_SLOT_OFF(40, 3), 64 + 3 * 128);
	TAP_CHECK_INT(TXRDMA_VREC_PAD(0), 0);
	TAP_CHECK_INT(TXRDMA_VREC_PAD(1), 8);
	TAP_CHECK_INT(TXRDMA_VREC_PAD(8), 8);
	TAP_CHECK_INT(TXRDMA_VREC_PAD(0xffffffffU), 0x100000000ULL);

	/* the CRC32C check value, both ways */
	TAP_CHECK_INT(crc32c_ref(check, 9), 0xe3069283u);
	TAP_CHECK_INT(~txrdma_crc32c_update(~0u, check, 9), 0xe3069283u);

	/* "hello world" written once into an empty slot of capacity 16 */
	slot = slot_alloc(16);
	memset(slot, 0xa5, 64);
	TAP_CHECK_INT(txn_vrec_init(slot, 16), 0);
	TAP_CHECK_INT(txn_vrec_write(slot, 16, payload, 11), 0);
	memset(want, 0, sizeof(want));
	want[0] = 2;				/* version 2 */
	want[8] = 11;				/* len */
	want[16] = 16;				/* cap */
	memcpy(want + 24, payload, 11);		/* padding: 5 zeroes */
	want[40] = 2;				/* trailer */
	/* CRC: header with crc 0, payload, padding */
	memcpy(img, want, 40);
	crc = crc32c_ref(img, 40);
	TAP_CHECK_INT(crc, 0x3e392f2eu);
	put_le32(want + 12, crc);
	TAP_CHECK(!memcmp(slot, want, 48));
	TAP_CHECK_INT(txn_vrec_check(slot, 16, &v), 0);
	TAP_CHECK_INT(v.version, 2);
	TAP_CHECK_INT(v.len, 11);
	TAP_CHECK(v.data == slot + 24);

	/* after init: version 0, len 0, its CRC, zeroes to the trailer */
	TAP_CHECK_INT(txn_vrec_init(slot, 16), 0);
	memset(want, 0, sizeof(want));
	want[16] = 16;
	put_le32(want + 12, crc32c_ref(want, 24));
	TAP_CHECK(!memcmp(slot, want, 48));
	free(slot);
}

static void test_table_layout(void)
{
	uint8_t want[64] = {
		0x56, 0x52, 0x43, 0x31,	/* "VRC1" */
		1, 0, 0, 0,		/* version, flags, resv0 */
		40, 0, 0, 0,		/* cap */
		128, 0, 0, 0,		/* stride */
		3, 0, 0, 0,		/* nslots */
	};
	size_t size = txn_vrec_table_size(40, 3);
	uint32_t cap, nslots, i;
	struct txn_vrec_view v;
	uint8_t *t;

	TAP_CHECK_INT(size, 64 + 3 * 128);
	TAP_CHECK_INT(txn_vrec_table_size(0, 3), 0);
	TAP_CHECK_INT(txn_vrec_table_size(12, 3), 0);
	TAP_CHECK_INT(txn_vrec_table_size(40, 0), 0);
	t = aligned_alloc(64, size);
	if (!t)
		abort();
	memset(t, 0xa5, size);
	TAP_CHECK_INT(txn_vrec_table_init(t, size - 1, 40, 3), -EINVAL);
	TAP_CHECK_INT(txn_vrec_table_init(t + 4, size, 40, 3), -EINVAL);
	TAP_CHECK_INT(txn_vrec_table_init(t, size, 40, 3), 0);
	TAP_CHECK(!memcmp(t, want, 64));
	TAP_CHECK_INT(txn_vrec_table_check(t, &cap, &nslots), 0);
	TAP_CHECK_INT(cap, 40);
	TAP_CHECK_INT(nslots, 3);
	for (i = 0; i < 3; i++) {
		uint8_t *s = txn_vrec_table_slot(t, i);

		TAP_CHECK(s == t + 64 + 128 * i);
		TAP_CHECK_INT(txn_vrec_check(s, 40, &v), 0);
		TAP_CHECK_INT(v.version, 0);
		TAP_CHECK_INT(v.len, 0);
		/* the gap after the slot is zeroes */
		TAP_CHECK(s[TXRDMA_VREC_SLOT_SIZE(40)] == 0 && s[127] == 0);
	}
	TAP_CHECK(txn_vrec_table_slot(t, 3) == NULL);
	TAP_CHECK_INT(txn_vrec_write(txn_vrec_table_slot(t, 1), 40, "abc", 3), 0);
	TAP_CHECK_INT(txn_vrec_check(t + 64 + 128, 40, &v), 0);
	TAP_CHECK_INT(v.version, 2);
	/* every byte of the table header matters (any @nslots but 0 is
	 * one a table can have) */
	for (i = 0; i < 64; i++) {
		if (i >= 16 && i < 20)
			continue;
		t[i] ^= 0x01;
		TAP_CHECK_INT(txn_vrec_table_check(t, &cap, &nslots), -EINVAL);
		t[i] ^= 0x01;
	}
	t[16] = 0;
	TAP_CHECK_INT(txn_vrec_table_check(t, &cap, &nslots), -EINVAL);
	t[16] = 3;
	TAP_CHECK_INT(txn_vrec_table_check(t, &cap, &nslots), 0);
	free(t);
}

/* ------------------------------------------------------------------ */
/* the API                                                             */

static void test_args(void)
{
	uint8_t *slot = slot_alloc(64), before[96];
	struct txn_vrec_view v;
	uint64_t first = 0, re = 0;

	TAP_CHECK_INT(txn_vrec_init(NULL, 64), -EINVAL);
	TAP_CHECK_INT(txn_vrec_init(slot, 0), -EINVAL);
	TAP_CHECK_INT(txn_vrec_init(slot, 60), -EINVAL);
	TAP_CHECK_INT(txn_vrec_init(slot, TXRDMA_VREC_MAX_CAP + 8), -EINVAL);
	TAP_CHECK_INT(txn_vrec_init(slot + 4, 64), -EINVAL);
	TAP_CHECK_INT(txn_vrec_init(slot, 64), 0);
	memcpy(before, slot, 96);
	TAP_CHECK_INT(txn_vrec_write(slot, 64, "x", 65), -EINVAL);
	TAP_CHECK_INT(txn_vrec_write(slot, 64, NULL, 1), -EINVAL);
	TAP_CHECK_INT(txn_vrec_write(slot, 56, "x", 1), -EINVAL);
	TAP_CHECK_INT(txn_vrec_write(slot, 72, "x", 1), -EINVAL);
	TAP_CHECK_INT(txn_vrec_write(slot + 8, 64, "x", 1), -EINVAL);
	TAP_CHECK_INT(txn_vrec_commit(slot, 64, "x", 1), -EINVAL);
	TAP_CHECK_INT(txn_vrec_begin(slot, 56), -EINVAL);
	TAP_CHECK(!memcmp(before, slot, 96));

	TAP_CHECK_INT(txn_vrec_check(NULL, 64, &v), -EINVAL);
	TAP_CHECK_INT(txn_vrec_check(slot, 64, NULL), -EINVAL);
	TAP_CHECK_INT(txn_vrec_check(slot, 0, &v), -EINVAL);
	TAP_CHECK_INT(txn_vrec_check(slot, 20, &v), -EINVAL);
	/* a slot read with the wrong capacity is not a slot */
	TAP_CHECK_INT(txn_vrec_check(slot, 56, &v), -EINVAL);
	TAP_CHECK_INT(txn_vrec_check(slot, 64, &v), 0);

	TAP_CHECK_INT(txn_vrec_validate(NULL, &re, 1, NULL), -EINVAL);
	TAP_CHECK_INT(txn_vrec_validate(&first, NULL, 1, NULL), -EINVAL);
	TAP_CHECK_INT(txn_vrec_validate(NULL, NULL, 0, NULL), 0);
	free(slot);
}

static void test_versions(void)
{
	static const uint32_t caps[] = { 8, 16, 64, 200, 4096 };
	uint8_t data[MAX_CAP], keep[MAX_CAP];
	struct txn_vrec_view v;
	uint64_t seed = 1;
	unsigned int c, k;

	for (c = 0; c < TAP_ARRAY_SIZE(caps); c++) {
		uint32_t cap = caps[c];
		uint8_t *slot = slot_alloc(cap);

		TAP_CHECK_INT(txn_vrec_init(slot, cap), 0);
		for (k = 1; k <= 40; k++) {
			uint32_t len = (uint32_t)(splitmix(&seed) % (cap + 1));

			if (k % 7 == 0)
				len = cap;
			if (k % 5 == 0)
				len = 0;
			fill_rand(data, len, &seed);
			TAP_CHECK_INT(txn_vrec_write(slot, cap, data, len), 0);
			TAP_CHECK_INT(txn_vrec_version(slot), 2 * k);
			if (TAP_CHECK_INT(txn_vrec_check(slot, cap, &v), 0)) {
				TAP_CHECK_INT(v.version, 2 * k);
				TAP_CHECK_INT(v.len, len);
				TAP_CHECK(!memcmp(v.data, data, len));
			}
		}
		/* keep the value under a new version: data is the payload */
		TAP_CHECK_INT(txn_vrec_check(slot, cap, &v), 0);
		memcpy(keep, v.data, v.len);
		k = v.len;
		TAP_CHECK_INT(txn_vrec_write(slot, cap, slot + 24, k), 0);
		TAP_CHECK_INT(txn_vrec_check(slot, cap, &v), 0);
		TAP_CHECK_INT(v.version, 82);
		TAP_CHECK_INT(v.len, k);
		TAP_CHECK(!memcmp(v.data, keep, k));

		/* begin: odd, refused; again or write: busy; commit: even */
		TAP_CHECK_INT(txn_vrec_begin(slot, cap), 0);
		TAP_CHECK_INT(txn_vrec_version(slot), 83);
		TAP_CHECK_INT(txn_vrec_check(slot, cap, &v), -EAGAIN);
		TAP_CHECK_INT(txn_vrec_begin(slot, cap), -EBUSY);
		TAP_CHECK_INT(txn_vrec_write(slot, cap, "a", 1), -EBUSY);
		TAP_CHECK_INT(txn_vrec_commit(slot, cap, "abc", 3), 0);
		TAP_CHECK_INT(txn_vrec_version(slot), 84);
		TAP_CHECK_INT(txn_vrec_commit(slot, cap, "abc", 3), -EINVAL);
		TAP_CHECK_INT(txn_vrec_check(slot, cap, &v), 0);
		TAP_CHECK_INT(v.version, 84);
		TAP_CHECK_INT(v.len, 3);
		TAP_CHECK(!memcmp(v.data, "abc", 3));
		free(slot);
	}
}

/* ------------------------------------------------------------------ */
/* every single-bit flip                                               */

static void test_bitflips(void)
{
	static const struct { uint32_t cap, len; } cases[] = {
		{ 8, 0 }, { 8, 1 }, { 8, 8 }, { 64, 0 }, { 64, 5 },
		{ 64, 63 }, { 64, 64 }, { 256, 200 }, { 4096, 4096 },
		{ 4096, 1000 },
	};
	uint8_t data[MAX_CAP];
	unsigned long refused = 0, ignored = 0;
	uint64_t seed = 2;
	unsigned int c;

	for (c = 0; c < TAP_ARRAY_SIZE(cases); c++) {
		uint32_t cap = cases[c].cap, len = cases[c].len;
		size_t size = TXRDMA_VREC_SLOT_SIZE(cap), bit;
		uint64_t used = 24 + TXRDMA_VREC_PAD(len);
		uint8_t *slot = slot_alloc(cap), *copy = slot_alloc(cap);
		struct txn_vrec_view v, w;
		bool ok = true;

		txn_vrec_init(slot, cap);
		/* a longer value first: the unused bytes are not zero */
		fill_rand(data, cap, &seed);
		txn_vrec_write(slot, cap, data, cap);
		fill_rand(data, len, &seed);
		txn_vrec_write(slot, cap, data, len);
		memcpy(copy, slot, size);
		TAP_CHECK_INT(txn_vrec_check(copy, cap, &v), 0);
		for (bit = 0; bit < size * 8; bit++) {
			size_t byte = bit / 8;
			int err, want;

			copy[byte] ^= 1 << (bit % 8);
			err = txn_vrec_check(copy, cap, &w);
			if (byte >= used && byte < 24 + cap) {
				/* unused: not part of the record */
				ignored++;
				if (err || w.version != v.version ||
				    w.len != v.len || w.data != v.data)
					ok = false;
			} else {
				want = byte >= 16 && byte < 24 ? -EINVAL : -EAGAIN;
				refused++;
				if (err != want) {
					tap_diag("cap %u len %u bit %zu: %d",
						 cap, len, bit, err);
					ok = false;
				}
			}
			copy[byte] ^= 1 << (bit % 8);
		}
		TAP_CHECK(ok);
		free(slot);
		free(copy);
	}
	tap_diag("%lu flips refused, %lu in unused bytes ignored", refused,
		 ignored);

	/* nonzero padding under a CRC that covers it: the writer's bug */
	{
		uint8_t *slot = slot_alloc(16);
		struct txn_vrec_view v;
		uint8_t img[40];

		txn_vrec_init(slot, 16);
		txn_vrec_write(slot, 16, "hello world", 11);
		slot[24 + 13] = 1;
		memcpy(img, slot, 40);
		memset(img + 12, 0, 4);
		put_le32(slot + 12, crc32c_ref(img, 40));
		TAP_CHECK_INT(txn_vrec_check(slot, 16, &v), -EINVAL);
		/* and resv set under a matching CRC */
		slot[24 + 13] = 0;
		slot[20] = 1;
		memcpy(img, slot, 40);
		memset(img + 12, 0, 4);
		put_le32(slot + 12, crc32c_ref(img, 40));
		TAP_CHECK_INT(txn_vrec_check(slot, 16, &v), -EINVAL);
		free(slot);
	}
}

/* ------------------------------------------------------------------ */
/* torn copies built on purpose                                        */

static struct state st[8];

static void test_torn(void)
{
	static const uint32_t cap = 64;
	uint8_t x[64], y[64], z[384];
	uint8_t *slot = slot_alloc(cap);
	const size_t tail = TXRDMA_VREC_TAIL_OFF(cap), p = 24;
	struct state *s0 = &st[0], *s1 = &st[1], *sb = &st[2], *s2 = &st[3];
	struct state *t = &st[4], *m = &st[5];
	struct txn_vrec_view v;
	uint64_t seed = 3;
	unsigned int i;

	fill_rand(x, sizeof(x), &seed);
	fill_rand(y, sizeof(y), &seed);
	txn_vrec_init(slot, cap);
	txn_vrec_write(slot, cap, x, 40);
	snap(s0, slot, cap);			/* v2: x, 40 bytes */
	txn_vrec_write(slot, cap, y, 56);
	snap(s1, slot, cap);			/* v4: y, 56 bytes */
	txn_vrec_begin(slot, cap);
	snap(sb, slot, cap);			/* v5: y, being written */
	txn_vrec_commit(slot, cap, x, 40);
	snap(s2, slot, cap);			/* v6: x again (A-B-A) */
	TAP_CHECK_INT(s0->version, 2);
	TAP_CHECK_INT(s1->version, 4);
	TAP_CHECK_INT(sb->version, 5);
	TAP_CHECK_INT(s2->version, 6);

	/* old header and payload, new trailer */
	*t = *s0;
	take(t, s1, tail, 8);
	TAP_CHECK_INT(check_state(t, &v), -EAGAIN);
	/* new header and trailer over the old payload */
	*t = *s0;
	take(t, s1, 0, 24);
	take(t, s1, tail, 8);
	TAP_CHECK_INT(check_state(t, &v), -EAGAIN);
	/* new versions over the old length, CRC and payload */
	*t = *s0;
	take(t, s1, 0, 8);
	take(t, s1, tail, 8);
	TAP_CHECK_INT(check_state(t, &v), -EAGAIN);
	/* old versions, payload partly new (header, trailer read early) */
	*t = *s0;
	take(t, s1, p + 16, 16);
	TAP_CHECK_INT(check_state(t, &v), -EAGAIN);
	/* a single new byte in the middle, the last byte of the payload */
	*t = *s0;
	take(t, s1, p + 20, 1);
	TAP_CHECK_INT(check_state(t, &v), -EAGAIN);
	*t = *s0;
	take(t, s1, p + 39, 1);
	TAP_CHECK_INT(check_state(t, &v), -EAGAIN);
	/* the new length over the old header otherwise */
	*t = *s0;
	take(t, s1, 8, 4);
	TAP_CHECK_INT(check_state(t, &v), -EAGAIN);
	/* during the write: header odd, trailer odd, either of them */
	TAP_CHECK_INT(check_state(sb, &v), -EAGAIN);
	*t = *s1;
	take(t, sb, 0, 8);
	TAP_CHECK_INT(check_state(t, &v), -EAGAIN);
	*t = *s1;
	take(t, sb, tail, 8);
	TAP_CHECK_INT(check_state(t, &v), -EAGAIN);
	/* two writes during one read: versions of the last, payload between */
	*t = *s2;
	take(t, s1, p, 64);
	TAP_CHECK_INT(check_state(t, &v), -EAGAIN);
	*t = *s0;
	take(t, s1, p, 64);
	TAP_CHECK_INT(check_state(t, &v), -EAGAIN);
	/* A-B-A: the last write's header over the first one's payload
	 * (the same bytes) is the last value, exactly */
	*t = *s2;
	take(t, s0, p, 64);
	TAP_CHECK_INT(check_state(t, &v), 0);
	TAP_CHECK(view_is(&v, s2));
	/* ... mixed with the middle value's bytes it is refused */
	take(t, s1, p + 8, 8);
	TAP_CHECK_INT(check_state(t, &v), -EAGAIN);
	/* ... and the new versions over the first one's CRC are refused */
	*t = *s0;
	take(t, s2, 0, 8);
	take(t, s2, tail, 8);
	TAP_CHECK(!memcmp(t->b + p, s2->b + p, 40));
	TAP_CHECK_INT(check_state(t, &v), -EAGAIN);

	/* a length torn byte by byte beyond the slot: retry, not invalid */
	{
		static const uint32_t bcap = 384;
		uint8_t *big = slot_alloc(bcap);

		memset(z, 7, sizeof(z));
		txn_vrec_init(big, bcap);
		txn_vrec_write(big, bcap, z, 0x100);
		txn_vrec_write(big, bcap, z, 0xff);
		snap(m, big, bcap);		/* v4, 0xff bytes */
		*t = *m;
		put_le32(t->b + 8, 0x1ff);	/* 0x100's high, 0xff's low */
		TAP_CHECK_INT(check_state(t, &v), -EAGAIN);
		free(big);
	}

	/* versions torn across a carry: 254 and 256 give 0 or 510 */
	txn_vrec_init(slot, cap);
	for (i = 0; i < 127; i++)
		txn_vrec_write(slot, cap, x, 8);
	snap(m, slot, cap);
	TAP_CHECK_INT(m->version, 254);
	txn_vrec_write(slot, cap, x, 8);
	snap(t, slot, cap);
	TAP_CHECK_INT(t->version, 256);
	/* the low byte of 256, the rest of 254: 0, in both places */
	take(t, m, 1, 1);
	take(t, m, tail + 1, 1);
	TAP_CHECK(!memcmp(t->b, "\0\0\0\0\0\0\0\0", 8));
	TAP_CHECK(!memcmp(t->b + tail, t->b, 8));
	TAP_CHECK_INT(check_state(t, &v), -EAGAIN);
	free(slot);
}

/*
 * Every mix, 8-byte word by word, of three states of a small record:
 * committed, being written, committed again (and the next pair) is
 * refused or is one of the two committed values exactly.  Then random
 * byte mixes over longer stretches of a record's life.
 */
static void test_mixes(void)
{
	static const uint32_t cap = 16;
	static const uint32_t lens[] = { 16, 5, 0, 16, 9, 9 };
	const unsigned int words = TXRDMA_VREC_SLOT_SIZE(cap) / 8;
	uint8_t *slot = slot_alloc(cap), data[16];
	unsigned long acc = 0, ref = 0, bad = 0;
	struct state *seq;
	unsigned int nseq = 0, i, k;
	uint64_t seed = 4;

	seq = calloc(2 * TAP_ARRAY_SIZE(lens) + 1, sizeof(*seq));
	if (!seq)
		abort();
	txn_vrec_init(slot, cap);
	snap(&seq[nseq++], slot, cap);
	for (i = 0; i < TAP_ARRAY_SIZE(lens); i++) {
		txn_vrec_begin(slot, cap);
		snap(&seq[nseq++], slot, cap);
		fill_rand(data, lens[i], &seed);
		/* the last two values are equal: an A-B-A without the B */
		if (i == TAP_ARRAY_SIZE(lens) - 1)
			memcpy(data, seq[nseq - 2].b + 24, lens[i]);
		txn_vrec_commit(slot, cap, data, lens[i]);
		snap(&seq[nseq++], slot, cap);
	}

	/* exhaustive: each word from committed k, begun k, committed k + 1 */
	for (k = 0; k + 2 < nseq; k += 2) {
		unsigned int n = 1, combo;

		for (i = 0; i < words; i++)
			n *= 3;
		for (combo = 0; combo < n; combo++) {
			struct state t = seq[k];
			struct txn_vrec_view v;
			unsigned int c = combo;

			for (i = 0; i < words; i++, c /= 3)
				take(&t, &seq[k + c % 3], 8 * i, 8);
			if (check_state(&t, &v)) {
				ref++;
				continue;
			}
			acc++;
			if (!view_is(&v, &seq[k]) && !view_is(&v, &seq[k + 2]))
				bad++;
		}
	}
	TAP_CHECK_INT(bad, 0);
	tap_diag("word mixes: %lu accepted, %lu refused", acc, ref);

	/* random: bytes, words or stretches from a window of states */
	acc = ref = 0;
	for (k = 0; k < 200000; k++) {
		unsigned int lo = (unsigned int)(splitmix(&seed) % nseq);
		unsigned int w = 1 + (unsigned int)(splitmix(&seed) % 4);
		unsigned int mode = (unsigned int)(splitmix(&seed) % 4);
		struct state t;
		struct txn_vrec_view v;
		size_t size = TXRDMA_VREC_SLOT_SIZE(cap), b;
		unsigned int j;
		bool ok = false;

		if (lo + w > nseq)
			w = nseq - lo;
		t.cap = cap;
		memcpy(t.b, seq[lo].b, size);
		for (b = 0; b < size; b++) {
			unsigned int from = lo;

			switch (mode) {
			case 0:		/* each byte of its own moment */
				from += (unsigned int)(splitmix(&seed) % w);
				break;
			case 1:		/* each word */
				if (b % 8 == 0)
					from += (unsigned int)(splitmix(&seed) % w);
				else
					continue;
				take(&t, &seq[from], b, 8);
				continue;
			case 2:		/* one other moment, a few bytes */
				if (splitmix(&seed) % 16)
					continue;
				from += (unsigned int)(splitmix(&seed) % w);
				break;
			default:	/* ascending moments */
				from += (unsigned int)(b * w / size);
				break;
			}
			take(&t, &seq[from], b, 1);
		}
		if (check_state(&t, &v)) {
			ref++;
			continue;
		}
		acc++;
		for (j = lo; j < lo + w; j++)
			ok |= view_is(&v, &seq[j]);
		if (!ok)
			bad++;
	}
	TAP_CHECK_INT(bad, 0);
	TAP_CHECK(acc > 0 && ref > 0);
	tap_diag("random mixes: %lu accepted, %lu refused", acc, ref);
	free(seq);
	free(slot);
}

/* ------------------------------------------------------------------ */
/* version vectors, retries                                            */

static void test_validate(void)
{
	enum { N = 130 };
	uint64_t first[N], re[N], changed[3], seed = 5;
	unsigned int i, want = 0;
	bool expect[N] = { false };
	bool ok = true;

	for (i = 0; i < N; i++) {
		first[i] = 2 * (uint64_t)i + ((uint64_t)i << 40);
		re[i] = htole64(first[i]);
		if (i == 0 || i == 63 || i == 64 || i == N - 1 ||
		    splitmix(&seed) % 5 == 0) {
			expect[i] = true;
			want++;
			switch (i % 4) {
			case 0:
				re[i] = htole64(first[i] + 2);
				break;
			case 1:
				re[i] = htole64(first[i] + 1);
				break;
			case 2:		/* the low byte of another moment */
				re[i] = htole64(first[i] ^ 0x02);
				break;
			default:
				re[i] = htole64(first[i] + ((uint64_t)1 << 56));
				break;
			}
		}
	}
	memset(changed, 0xff, sizeof(changed));
	TAP_CHECK_INT(txn_vrec_validate(first, re, N, changed), want);
	for (i = 0; i < N; i++)
		if (txn_vrec_changed(changed, i) != expect[i])
			ok = false;
	TAP_CHECK(ok);
	/* bits past N are clear */
	TAP_CHECK_INT(changed[2] >> (N - 128), 0);
	TAP_CHECK_INT(txn_vrec_validate(first, re, N, NULL), want);
	/* nothing changed */
	for (i = 0; i < N; i++)
		re[i] = htole64(first[i]);
	TAP_CHECK_INT(txn_vrec_validate(first, re, N, changed), 0);
	TAP_CHECK(!changed[0] && !changed[1] && !changed[2]);
	/* an odd first version is no accepted copy's */
	first[7]++;
	TAP_CHECK_INT(txn_vrec_validate(first, re, N, changed), -EINVAL);
	first[7]--;

	/* end to end over a table: write some, leave one being written */
	{
		enum { S = 70 };
		size_t size = txn_vrec_table_size(8, S);
		uint8_t *t = aligned_alloc(64, size);
		uint64_t f[S], r[S], ch[2];
		struct txn_vrec_view v;

		if (!t)
			abort();
		txn_vrec_table_init(t, size, 8, S);
		for (i = 0; i < S; i++)
			txn_vrec_write(txn_vrec_table_slot(t, i), 8, &i, 4);
		for (i = 0; i < S; i++) {
			TAP_CHECK_INT(txn_vrec_check(txn_vrec_table_slot(t, i),
						     8, &v), 0);
			f[i] = v.version;
		}
		txn_vrec_write(txn_vrec_table_slot(t, 3), 8, "ab", 2);
		txn_vrec_write(txn_vrec_table_slot(t, 65), 8, "ab", 2);
		txn_vrec_begin(txn_vrec_table_slot(t, 69), 8);
		for (i = 0; i < S; i++)
			memcpy(&r[i], t + TXRDMA_VREC_TABLE_SLOT_OFF(8, i) +
			       TXRDMA_VREC_VERSION_OFF, 8);
		TAP_CHECK_INT(txn_vrec_validate(f, r, S, ch), 3);
		TAP_CHECK(ch[0] == (uint64_t)1 << 3);
		TAP_CHECK(ch[1] == ((uint64_t)1 << 1 | (uint64_t)1 << 5));
		free(t);
	}
}

static void test_retry(void)
{
	struct txn_vrec_retry r;

	txn_vrec_retry_init(&r, 0);
	TAP_CHECK_INT(r.max, TXN_VREC_RETRY_DEFAULT);
	txn_vrec_retry_init(&r, 3);
	TAP_CHECK_INT(txn_vrec_retry_next(&r, -EAGAIN), -EAGAIN);
	TAP_CHECK_INT(txn_vrec_retry_next(&r, -EAGAIN), -EAGAIN);
	TAP_CHECK_INT(txn_vrec_retry_next(&r, -EAGAIN), -EBUSY);
	TAP_CHECK_INT(r.retries, 2);
	TAP_CHECK_INT(r.gave_up, 1);
	/* a new read: its own attempts */
	TAP_CHECK_INT(txn_vrec_retry_next(&r, -EAGAIN), -EAGAIN);
	TAP_CHECK_INT(txn_vrec_retry_next(&r, 0), 0);
	TAP_CHECK_INT(r.attempt, 0);
	TAP_CHECK_INT(txn_vrec_retry_next(&r, -EAGAIN), -EAGAIN);
	TAP_CHECK_INT(txn_vrec_retry_next(&r, -EINVAL), -EINVAL);
	TAP_CHECK_INT(r.attempt, 0);
	TAP_CHECK_INT(r.retries, 4);
	TAP_CHECK_INT(r.gave_up, 1);
	txn_vrec_retry_init(&r, 1);
	TAP_CHECK_INT(txn_vrec_retry_next(&r, -EAGAIN), -EBUSY);
	TAP_CHECK_INT(r.retries, 0);
}

/* ------------------------------------------------------------------ */
/* threads: a writer and readers standing in for RDMA READs            */

#define NREC		64
#define NGROUPED	32	/* records 0..31: groups of 4 written as one */
#define GROUP		4
#define NREADERS	2
#define MAX_TXNS	4000000

static struct {
	uint32_t cap[NREC];
	uint8_t *slot[NREC];
	int stop;
	struct timespec end;
} w;

struct rstats {
	unsigned long accepted, refused, gave_up, invalid, wrong;
	unsigned long vo_accepted, vo_wrong;	/* address order, versions only */
	unsigned long by_mode[4];
	unsigned long groups_ok, groups_conflict, groups_refused, groups_wrong;
};

struct reader {
	pthread_t th;
	unsigned int id;
	struct rstats s;
};

static unsigned long writer_txns, writer_writes;

static uint32_t gen_len(unsigned int rec, uint64_t ver, uint32_t cap)
{
	uint64_t h = mix3(rec, ver, ~0ULL);

	if (!ver)
		return 0;
	switch (h % 4) {
	case 0:
		return cap;
	case 1:
		return (uint32_t)((h >> 8) % 17);
	default:
		return (uint32_t)((h >> 8) % (cap + 1));
	}
}

static void gen_fill(unsigned int rec, uint64_t ver, uint8_t *p, uint32_t len)
{
	uint32_t off;

	for (off = 0; off < len; off += 8) {
		uint64_t v = mix3(rec, ver, off);

		memcpy(p + off, &v, len - off < 8 ? len - off : 8);
	}
}

/* is an accepted view exactly what record @rec held at its version? */
static bool gen_is(unsigned int rec, uint32_t cap, uint64_t ver, uint32_t len,
		   const uint8_t *data, uint8_t *scratch)
{
	if (ver & 1 || len != gen_len(rec, ver, cap))
		return false;
	gen_fill(rec, ver, scratch, len);
	return !memcmp(scratch, data, len);
}

static bool past_end(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > w.end.tv_sec ||
	       (now.tv_sec == w.end.tv_sec && now.tv_nsec >= w.end.tv_nsec);
}

static void pause_some(uint64_t *seed)
{
	uint64_t r = splitmix(seed);

	if (r & 1) {
		sched_yield();
	} else {
		volatile unsigned int spin;

		for (spin = 0; spin < (r >> 8) % 2000; spin++)
			;
	}
}

static void *writer_main(void *arg)
{
	static uint8_t buf[MAX_CAP];
	uint64_t ver[NREC] = { 0 }, seed = 42;
	unsigned long txns = 0, writes = 0;

	(void)arg;
	while (txns < MAX_TXNS && !(txns % 64 == 0 && past_end())) {
		uint64_t r = splitmix(&seed);
		unsigned int rec, i;

		txns++;
		if (r % 2) {
			/* a group of 4 as one: all odd before any write */
			unsigned int g = (unsigned int)(r >> 8) % (NGROUPED / GROUP);

			for (i = 0; i < GROUP; i++) {
				rec = g * GROUP + i;
				if (txn_vrec_begin(w.slot[rec], w.cap[rec]))
					abort();
			}
			for (i = 0; i < GROUP; i++) {
				uint32_t len;

				if (splitmix(&seed) % 16 == 0)
					pause_some(&seed);
				rec = g * GROUP + i;
				ver[rec] += 2;
				len = gen_len(rec, ver[rec], w.cap[rec]);
				gen_fill(rec, ver[rec], buf, len);
				if (txn_vrec_commit(w.slot[rec], w.cap[rec], buf, len))
					abort();
				writes++;
			}
		} else {
			uint32_t len;

			rec = NGROUPED + (unsigned int)(r >> 8) % (NREC - NGROUPED);
			ver[rec] += 2;
			len = gen_len(rec, ver[rec], w.cap[rec]);
			gen_fill(rec, ver[rec], buf, len);
			if (txn_vrec_write(w.slot[rec], w.cap[rec], buf, len))
				abort();
			writes++;
		}
		if (splitmix(&seed) % 32 == 0)
			pause_some(&seed);
	}
	writer_txns = txns;
	writer_writes = writes;
	__atomic_store_n(&w.stop, 1, __ATOMIC_RELEASE);
	return NULL;
}

enum { COPY_RANDOM8, COPY_RANDOM1, COPY_UP, COPY_DOWN };

/*
 * Copy slot @rec as an RDMA READ might: in random order 8 bytes or
 * 1 byte at a time (relaxed loads), or in address order up or down
 * (acquire loads, so that the order holds on any CPU), maybe pausing
 * once in the middle.  Returns the mode used.
 */
static int copy_slot(unsigned int rec, uint8_t *dst, uint32_t *perm,
		     uint64_t *seed)
{
	const uint8_t *src = w.slot[rec];
	size_t size = TXRDMA_VREC_SLOT_SIZE(w.cap[rec]), n, i, pause_at;
	uint64_t r = splitmix(seed);
	int mode;

	switch (r % 8) {
	case 0: case 1: case 2: case 3:
		mode = COPY_RANDOM8;
		break;
	case 4:
		mode = COPY_RANDOM1;
		break;
	case 5: case 6:
		mode = COPY_UP;
		break;
	default:
		mode = COPY_DOWN;
		break;
	}
	n = mode == COPY_RANDOM1 ? size : size / 8;
	pause_at = (r >> 8) % 8 == 0 ? (r >> 16) % n : SIZE_MAX;
	if (mode == COPY_RANDOM8 || mode == COPY_RANDOM1) {
		for (i = 0; i < n; i++)
			perm[i] = (uint32_t)i;
		for (i = n - 1; i > 0; i--) {
			size_t j = splitmix(seed) % (i + 1);
			uint32_t t = perm[i];

			perm[i] = perm[j];
			perm[j] = t;
		}
	}
	for (i = 0; i < n; i++) {
		size_t k;
		uint64_t v;
		uint8_t b;

		if (i == pause_at)
			pause_some(seed);
		switch (mode) {
		case COPY_RANDOM1:
			k = perm[i];
			b = __atomic_load_n(src + k, __ATOMIC_RELAXED);
			dst[k] = b;
			continue;
		case COPY_RANDOM8:
			k = perm[i];
			v = __atomic_load_n((const uint64_t *)src + k,
					    __ATOMIC_RELAXED);
			break;
		case COPY_UP:
			k = i;
			v = __atomic_load_n((const uint64_t *)src + k,
					    __ATOMIC_ACQUIRE);
			break;
		default:
			k = n - 1 - i;
			v = __atomic_load_n((const uint64_t *)src + k,
					    __ATOMIC_ACQUIRE);
			break;
		}
		memcpy(dst + 8 * k, &v, 8);
	}
	/* the READ completed: what follows comes after it */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return mode;
}

/* the versions alone, as a copy in address order may be trusted on */
static bool versions_say_stable(const uint8_t *copy, uint32_t cap,
				uint64_t *ver, uint32_t *len)
{
	uint64_t h, t;
	uint32_t l;

	memcpy(&h, copy, 8);
	memcpy(&t, copy + TXRDMA_VREC_TAIL_OFF(cap), 8);
	memcpy(&l, copy + 8, 4);
	h = le64toh(h);
	l = le32toh(l);
	if (h & 1 || le64toh(t) != h || l > cap)
		return false;
	*ver = h;
	*len = l;
	return true;
}

static void read_one(struct reader *rd, unsigned int rec, uint8_t *copy,
		     uint32_t *perm, uint8_t *scratch, uint64_t *seed,
		     struct txn_vrec_retry *retry)
{
	struct txn_vrec_view v;
	int err, mode;

	do {
		uint64_t vver;
		uint32_t vlen;

		mode = copy_slot(rec, copy, perm, seed);
		rd->s.by_mode[mode]++;
		err = txn_vrec_check(copy, w.cap[rec], &v);
		/* untorn on its versions: one committed state, CRC and all */
		if ((mode == COPY_UP || mode == COPY_DOWN) &&
		    versions_say_stable(copy, w.cap[rec], &vver, &vlen)) {
			rd->s.vo_accepted++;
			if (err ||
			    !gen_is(rec, w.cap[rec], vver, vlen, copy + 24, scratch))
				rd->s.vo_wrong++;
		}
		if (!err) {
			rd->s.accepted++;
			if (!gen_is(rec, w.cap[rec], v.version, v.len, v.data, scratch))
				rd->s.wrong++;
		} else if (err == -EAGAIN) {
			rd->s.refused++;
		} else {
			rd->s.invalid++;
		}
		err = txn_vrec_retry_next(retry, err);
	} while (err == -EAGAIN);
	if (err == -EBUSY)
		rd->s.gave_up++;
}

/* a version vector read of group @g */
static void read_group(struct reader *rd, unsigned int g, uint8_t *copies,
		       uint32_t *perm, uint8_t *scratch, uint64_t *seed)
{
	uint64_t first[GROUP], re[GROUP];
	struct txn_vrec_view v[GROUP];
	unsigned int i;
	int n;

	for (i = 0; i < GROUP; i++) {
		unsigned int rec = g * GROUP + i;
		int err;

		copy_slot(rec, copies + i * MAX_SLOT, perm, seed);
		err = txn_vrec_check(copies + i * MAX_SLOT, w.cap[rec], &v[i]);
		if (err) {
			if (err != -EAGAIN)
				rd->s.invalid++;
			rd->s.groups_refused++;
			return;
		}
		first[i] = v[i].version;
	}
	/* every copy completed; now the version words again */
	for (i = 0; i < GROUP; i++) {
		const uint8_t *src = w.slot[g * GROUP + i];

		if (splitmix(seed) % 4) {
			re[i] = __atomic_load_n((const uint64_t *)src,
						__ATOMIC_RELAXED);
		} else {
			/* byte by byte, high bytes first */
			uint8_t b[8];
			int k;

			for (k = 7; k >= 0; k--)
				b[k] = __atomic_load_n(src + k, __ATOMIC_RELAXED);
			memcpy(&re[i], b, 8);
		}
	}
	n = txn_vrec_validate(first, re, GROUP, NULL);
	if (n < 0) {
		rd->s.invalid++;
		return;
	}
	if (n) {
		rd->s.groups_conflict++;
		return;
	}
	rd->s.groups_ok++;
	for (i = 0; i < GROUP; i++)
		if (v[i].version != v[0].version ||
		    !gen_is(g * GROUP + i, w.cap[g * GROUP + i], v[i].version,
			    v[i].len, v[i].data, scratch))
			rd->s.groups_wrong++;
}

static void *reader_main(void *arg)
{
	struct reader *rd = arg;
	uint8_t *copy = malloc(MAX_SLOT), *copies = malloc(GROUP * MAX_SLOT);
	uint8_t *scratch = malloc(MAX_CAP);
	uint32_t *perm = malloc(MAX_SLOT * sizeof(*perm));
	uint64_t seed = 1000 + rd->id;
	struct txn_vrec_retry retry;

	if (!copy || !copies || !scratch || !perm)
		abort();
	txn_vrec_retry_init(&retry, 8);
	while (!__atomic_load_n(&w.stop, __ATOMIC_ACQUIRE)) {
		uint64_t r = splitmix(&seed);

		if (r % 4 == 0)
			read_group(rd, (unsigned int)(r >> 8) % (NGROUPED / GROUP),
				   copies, perm, scratch, &seed);
		else
			read_one(rd, (unsigned int)(r >> 8) % NREC, copy, perm,
				 scratch, &seed, &retry);
	}
	free(copy);
	free(copies);
	free(scratch);
	free(perm);
	return NULL;
}

static void test_threads(void)
{
	struct reader rd[NREADERS];
	struct rstats t = { 0 };
	const char *env = getenv("TXN_VREC_SECONDS");
	long secs = env ? atol(env) : 5;
	pthread_t wt;
	unsigned int i, k;

	if (secs < 1 || secs > 600)
		secs = 5;
	for (i = 0; i < NREC; i++) {
		w.cap[i] = 64 + ((i * (MAX_CAP - 64) / (NREC - 1)) & ~7u);
		w.slot[i] = slot_alloc(w.cap[i]);
		if (txn_vrec_init(w.slot[i], w.cap[i]))
			abort();
	}
	TAP_CHECK_INT(w.cap[0], 64);
	TAP_CHECK_INT(w.cap[NREC - 1], MAX_CAP);
	clock_gettime(CLOCK_MONOTONIC, &w.end);
	w.end.tv_sec += secs;
	w.stop = 0;
	memset(rd, 0, sizeof(rd));
	for (i = 0; i < NREADERS; i++) {
		rd[i].id = i;
		if (pthread_create(&rd[i].th, NULL, reader_main, &rd[i]))
			abort();
	}
	if (pthread_create(&wt, NULL, writer_main, NULL))
		abort();
	pthread_join(wt, NULL);
	for (i = 0; i < NREADERS; i++) {
		struct rstats *s = &rd[i].s;

		pthread_join(rd[i].th, NULL);
		t.accepted += s->accepted;
		t.refused += s->refused;
		t.gave_up += s->gave_up;
		t.invalid += s->invalid;
		t.wrong += s->wrong;
		t.vo_accepted += s->vo_accepted;
		t.vo_wrong += s->vo_wrong;
		for (k = 0; k < 4; k++)
			t.by_mode[k] += s->by_mode[k];
		t.groups_ok += s->groups_ok;
		t.groups_conflict += s->groups_conflict;
		t.groups_refused += s->groups_refused;
		t.groups_wrong += s->groups_wrong;
	}
	tap_diag("writer: %lu transactions, %lu record writes in %ld s",
		 writer_txns, writer_writes, secs);
	tap_diag("copies: random 8 B %lu, random 1 B %lu, up %lu, down %lu",
		 t.by_mode[0], t.by_mode[1], t.by_mode[2], t.by_mode[3]);
	tap_diag("single reads: %lu accepted, %lu refused (-EAGAIN), %lu given up, %lu invalid, %lu wrong",
		 t.accepted, t.refused, t.gave_up, t.invalid, t.wrong);
	tap_diag("address order, versions only: %lu accepted, %lu wrong",
		 t.vo_accepted, t.vo_wrong);
	tap_diag("group reads: %lu consistent, %lu conflicts, %lu refused, %lu wrong",
		 t.groups_ok, t.groups_conflict, t.groups_refused,
		 t.groups_wrong);
	TAP_CHECK_INT(t.wrong, 0);
	TAP_CHECK_INT(t.invalid, 0);
	TAP_CHECK_INT(t.vo_wrong, 0);
	TAP_CHECK_INT(t.groups_wrong, 0);
	/* the race was run: copies both taken and refused */
	TAP_CHECK(t.accepted > 0);
	TAP_CHECK(t.refused > 0);
	TAP_CHECK(t.groups_ok > 0);
	for (i = 0; i < NREC; i++)
		free(w.slot[i]);
}

/*
 * Chasing: one record written without a pause, one reader copying it in
 * address order, up or down, but timed against the writer: it loads
 * the first word, waits until the writer changes the live slot (or its
 * first word becomes a new even version), then loads the rest.  A NIC
 * may stall that way between two parts of one READ; what a copy in
 * address order then shows on its versions alone must still be one
 * value.  This is what finds a writer that marks only one end odd, or
 * stores a version or the length out of its step.
 */
#define CHASE_REC	1000
#define CHASE_CAP	MAX_CAP

static struct {
	uint8_t *slot;
	int stop;
	unsigned long writes;
} ch;

static void *chase_writer(void *arg)
{
	static uint8_t buf[CHASE_CAP];
	uint64_t ver = 0, seed = 7;
	unsigned long n = 0;

	(void)arg;
	while (!(n % 64 == 0 && past_end())) {
		uint32_t len;

		ver += 2;
		len = gen_len(CHASE_REC, ver, CHASE_CAP);
		gen_fill(CHASE_REC, ver, buf, len);
		if (splitmix(&seed) % 4) {
			if (txn_vrec_write(ch.slot, CHASE_CAP, buf, len))
				abort();
		} else {
			if (txn_vrec_begin(ch.slot, CHASE_CAP) ||
			    txn_vrec_commit(ch.slot, CHASE_CAP, buf, len))
				abort();
		}
		n++;
	}
	ch.writes = n;
	__atomic_store_n(&ch.stop, 1, __ATOMIC_RELEASE);
	return NULL;
}

static uint64_t live_word(size_t k)
{
	return __atomic_load_n((const uint64_t *)ch.slot + k, __ATOMIC_ACQUIRE);
}

static void test_chase(void)
{
	const size_t words = TXRDMA_VREC_SLOT_SIZE(CHASE_CAP) / 8;
	unsigned long by[4] = { 0 }, vo_acc = 0, vo_wrong = 0, acc = 0;
	unsigned long ref = 0, wrong = 0, stalls = 0;
	uint8_t *copy = malloc(MAX_SLOT), *scratch = malloc(MAX_CAP);
	uint64_t seed = 8;
	pthread_t wt;

	if (!copy || !scratch)
		abort();
	ch.slot = slot_alloc(CHASE_CAP);
	ch.stop = 0;
	txn_vrec_init(ch.slot, CHASE_CAP);
	clock_gettime(CLOCK_MONOTONIC, &w.end);
	w.end.tv_sec += 1;
	if (pthread_create(&wt, NULL, chase_writer, NULL))
		abort();
	while (!__atomic_load_n(&ch.stop, __ATOMIC_ACQUIRE)) {
		unsigned int mode = (unsigned int)(splitmix(&seed) % 4);
		bool up = mode % 2 == 0, after_even = mode >= 2;
		size_t first = up ? 0 : words - 1, i, k;
		struct txn_vrec_view v;
		uint64_t w0, cur, vver;
		uint32_t vlen;
		unsigned long spin;
		int err;

		by[mode]++;
		w0 = live_word(first);
		/* wait for the writer to change that end (bounded) */
		for (spin = 0; spin < 1000000; spin++) {
			cur = live_word(first);
			if (cur != w0 && (!after_even || !(le64toh(cur) & 1)))
				break;
		}
		if (spin == 1000000)
			stalls++;
		if (!after_even)
			cur = w0;	/* the first word was copied before */
		memcpy(copy + 8 * first, &cur, 8);
		for (i = 1; i < words; i++) {
			uint64_t x;

			k = up ? i : words - 1 - i;
			x = live_word(k);
			memcpy(copy + 8 * k, &x, 8);
		}
		err = txn_vrec_check(copy, CHASE_CAP, &v);
		/* untorn on its versions: one committed state, CRC and all */
		if (versions_say_stable(copy, CHASE_CAP, &vver, &vlen)) {
			vo_acc++;
			if (err || !gen_is(CHASE_REC, CHASE_CAP, vver, vlen,
					   copy + 24, scratch))
				vo_wrong++;
		}
		if (!err) {
			acc++;
			if (!gen_is(CHASE_REC, CHASE_CAP, v.version, v.len,
				    v.data, scratch))
				wrong++;
		} else {
			ref++;
		}
	}
	pthread_join(wt, NULL);
	tap_diag("writer: %lu writes; copies: up %lu, down %lu, up after even %lu, down after even %lu, %lu stalls",
		 ch.writes, by[0], by[1], by[2], by[3], stalls);
	tap_diag("versions only: %lu accepted, %lu wrong; checked: %lu accepted, %lu refused, %lu wrong",
		 vo_acc, vo_wrong, acc, ref, wrong);
	TAP_CHECK_INT(vo_wrong, 0);
	TAP_CHECK_INT(wrong, 0);
	TAP_CHECK(acc > 0 && ref > 0);
	free(ch.slot);
	free(copy);
	free(scratch);
}

static const struct tap_test tests[] = {
	TAP_TEST(test_layout, "layout pinned byte for byte, CRC32C"),
	TAP_TEST(test_table_layout, "tables: layout, slots, header checks"),
	TAP_TEST(test_args, "bad arguments refused, nothing written"),
	TAP_TEST(test_versions, "write, begin, commit: versions and values"),
	TAP_TEST(test_bitflips, "every single-bit flip of a copy refused"),
	TAP_TEST(test_torn, "torn copies built on purpose refused"),
	TAP_TEST(test_mixes, "every word mix refused or exactly one value"),
	TAP_TEST(test_validate, "version vectors: exactly the changed records"),
	TAP_TEST(test_retry, "bounded retries"),
	TAP_TEST(test_threads, "a writer and 2 racing readers"),
	TAP_TEST(test_chase, "readers in address order chasing the writer"),
};

int main(void)
{
	return TAP_MAIN(tests);
}
