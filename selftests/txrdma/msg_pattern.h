/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Message payloads of the data-path selftests: what a stream's message
 * number @seq holds, how long it is, and an order-sensitive checksum,
 * so that a receiver checks every byte without a copy of what was sent.
 * Shared by msg_test (where it was born) and the adversarial tests
 * (pair_churn, cross_tenant, legit_stream).  Link with -lm (gen_len).
 */
#ifndef _TXRDMA_MSG_PATTERN_H
#define _TXRDMA_MSG_PATTERN_H

#include <endian.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

static inline uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* what decides a stream's messages */
struct gen {
	uint64_t seed;
	uint32_t count;
	uint32_t max_len;
	uint32_t fixed;		/* every message this long (0: drawn) */
};

/*
 * Length of message @i: the edge sizes first, then log-uniform in
 * [1, max_len] (floor of (max_len + 1)^u, u uniform in [0, 1)).
 */
static inline uint32_t gen_len(const struct gen *g, uint32_t i)
{
	const uint32_t edge[] = {
		g->max_len, 1, 7, 8, 9, 63, 64, 65, g->max_len - 1,
	};
	double u;
	uint32_t len;

	if (g->fixed)
		return g->fixed;
	if (i < sizeof(edge) / sizeof(edge[0]))
		len = edge[i];
	else {
		u = (mix64(g->seed ^ mix64(i)) >> 11) * 0x1p-53;
		len = (uint32_t)exp2(u * log2(g->max_len + 1.0));
	}
	return len < 1 ? 1 : len > g->max_len ? g->max_len : len;
}

/*
 * Message @seq of a stream keyed @key: bytes 0-7 hold seq (LE) when the
 * message has them, the rest (all of a shorter one) 64-bit words
 * mix64(base + word index).  The digest sums the message's words (the
 * last zero-padded) times odd weights.
 */
static inline uint64_t pat_base(uint64_t key, uint64_t seq)
{
	return mix64(key ^ (seq * 0xd6e8feb86659fd93ULL));
}

static inline uint64_t fill(uint8_t *p, uint64_t key, uint64_t seq, uint32_t len)
{
	uint64_t base = pat_base(key, seq), w, d = 0;
	uint32_t j, n = len / 8, r = len % 8;

	for (j = 0; j < n; j++) {
		w = j ? mix64(base + j) : seq;
		d += w * (2 * j + 1);
		w = htole64(w);
		memcpy(p + 8 * j, &w, 8);
	}
	if (r) {
		w = mix64(base + n) & ((1ULL << 8 * r) - 1);
		d += w * (2 * n + 1);
		w = htole64(w);
		memcpy(p + 8 * n, &w, r);
	}
	return d;
}

/*
 * Compare @len received bytes with message @seq; the digest of what was
 * received goes to *@d.  Returns the first differing byte, or -1.
 */
static inline long check(const uint8_t *p, uint64_t key, uint64_t seq,
			 uint32_t len, uint64_t *d)
{
	uint64_t base = pat_base(key, seq), w, want;
	uint32_t j, n = len / 8, r = len % 8;
	long bad = -1;

	*d = 0;
	for (j = 0; j < n; j++) {
		memcpy(&w, p + 8 * j, 8);
		w = le64toh(w);
		want = j ? mix64(base + j) : seq;
		*d += w * (2 * j + 1);
		if (w != want && bad < 0)
			bad = 8 * j + __builtin_ctzll(w ^ want) / 8;
	}
	if (r) {
		w = 0;
		memcpy(&w, p + 8 * n, r);
		w = le64toh(w);
		want = mix64(base + n) & ((1ULL << 8 * r) - 1);
		*d += w * (2 * n + 1);
		if (w != want && bad < 0)
			bad = 8 * n + __builtin_ctzll(w ^ want) / 8;
	}
	return bad;
}

/* the stream checksum: order- and content-sensitive */
static inline uint64_t hash_step(uint64_t h, uint64_t digest, uint32_t len)
{
	return mix64(h ^ digest ^ ((uint64_t)len << 40));
}

#endif
