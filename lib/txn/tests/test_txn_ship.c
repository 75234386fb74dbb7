// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Log shipping over txrdma, the pure parts (lib/txn/txn_ship_proto.c,
 * with txn_log.c), which a host without RDMA runs under ASan and UBSan:
 *  - the WRITE plan: ranges merged where they touch, cut at max_write,
 *    never across the ring's end, refused past it, all or nothing;
 *  - the reader's feedback rule: a quarter ring, the idle timer;
 *  - the RING and FEEDBACK messages: round trip, every truncation and
 *    extension and every bad field refused;
 *  - the whole path without a NIC: two writers' txn_log writers flushed
 *    through plans into WRITEs that stay in flight (bounded), land in
 *    pieces, in random order, later bytes first or earlier bytes first,
 *    copied from the stage as it is when they land; a merging reader
 *    scanning between the pieces; FEEDBACKs by the library's rule,
 *    delayed, observed by the writers; every entry delivered once,
 *    whole, each writer's in sequence, causally ordered, and nothing
 *    stalls at the end of the streams (the idle rule).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../txn_log.h"
#include "../txn_ship_proto.h"
#include "tap.h"
#include "txn_test.h"

static uint64_t rng_state = 0x7368697074787264ULL;

static uint64_t rnd(void)
{
	return splitmix64(&rng_state);
}

static uint64_t rnd_below(uint64_t n)
{
	return rnd() % n;
}

/* ---- the plan --------------------------------------------------------- */

static void test_plan(void)
{
	struct txn_ship_plan p;
	struct txn_ship_range w;
	struct txn_log_piece pc[5] = {
		{ 4096 - 64, 64 }, { 0, 40 },
	};

	TAP_CHECK(txn_ship_plan_init(&p, 0, 0) == -EINVAL);
	TAP_CHECK(txn_ship_plan_init(&p, 4100, 0) == -EINVAL);
	TAP_CHECK(txn_ship_plan_init(&p, 4096, 1ull << 31) == -EINVAL);
	TAP_CHECK(txn_ship_plan_init(&p, 4096, 0) == 0);
	TAP_CHECK(p.max_write == TXN_SHIP_MAX_WRITE_DEFAULT);
	TAP_CHECK(txn_ship_plan_init(&p, 4096, 100) == 0);
	TAP_CHECK(!txn_ship_plan_next(&p, &w));

	/* a wrap: two ranges, never merged across the ring's end */
	TAP_CHECK(txn_ship_plan_add(&p, pc, 2) == 0);
	TAP_CHECK(p.n == 2 && p.bytes == 104);
	/* the next flush continues the second: merged */
	pc[2] = (struct txn_log_piece){ 40, 300 };
	TAP_CHECK(txn_ship_plan_add(&p, &pc[2], 1) == 0);
	TAP_CHECK(p.n == 2 && p.r[1].off == 0 && p.r[1].len == 340);
	TAP_CHECK(txn_ship_plan_next(&p, &w) && w.off == 4032 && w.len == 64);
	TAP_CHECK(txn_ship_plan_next(&p, &w) && w.off == 0 && w.len == 100);
	TAP_CHECK(txn_ship_plan_next(&p, &w) && w.off == 100 && w.len == 100);
	TAP_CHECK(txn_ship_plan_next(&p, &w) && w.off == 200 && w.len == 100);
	TAP_CHECK(p.bytes == 40);
	TAP_CHECK(txn_ship_plan_next(&p, &w) && w.off == 300 && w.len == 40);
	TAP_CHECK(!txn_ship_plan_next(&p, &w) && p.n == 0 && p.bytes == 0);

	/* past the end, and too many ranges: nothing changed */
	pc[0] = (struct txn_log_piece){ 8, 8 };
	pc[1] = (struct txn_log_piece){ 4000, 97 };
	TAP_CHECK(txn_ship_plan_add(&p, pc, 2) == -EINVAL);
	TAP_CHECK(p.n == 0 && p.bytes == 0);
	pc[1] = (struct txn_log_piece){ 1ull << 63, 1ull << 63 };
	TAP_CHECK(txn_ship_plan_add(&p, &pc[1], 1) == -EINVAL);
	for (int i = 0; i < 5; i++)
		pc[i] = (struct txn_log_piece){ 64 * i * 2, 64 };
	TAP_CHECK(txn_ship_plan_add(&p, pc, 5) == -EOVERFLOW);
	TAP_CHECK(p.n == 0 && p.bytes == 0);
	TAP_CHECK(txn_ship_plan_add(&p, pc, 4) == 0 && p.n == 4);
	/* an empty piece is nothing, a range up to the end is fine */
	pc[0] = (struct txn_log_piece){ 4096, 0 };
	TAP_CHECK(txn_ship_plan_add(&p, pc, 1) == 0 && p.n == 4);
}

/* ---- the feedback rule ------------------------------------------------ */

static void test_feedback_rule(void)
{
	struct txn_ship_fb f;

	TAP_CHECK(txn_ship_fb_init(&f, 0, 0, 0) == -EINVAL);
	TAP_CHECK(txn_ship_fb_init(&f, 4096, 8192, 0) == -EINVAL);
	TAP_CHECK(txn_ship_fb_init(&f, 4096, 0, 0) == 0);
	TAP_CHECK(f.every == 1024 && f.idle_us == TXN_SHIP_IDLE_US_DEFAULT);
	TAP_CHECK(!txn_ship_fb_due(&f, 0, true, 1u << 30));
	/* a quarter ring, busy or idle, whatever the time */
	TAP_CHECK(!txn_ship_fb_due(&f, 1016, false, 1u << 30));
	TAP_CHECK(txn_ship_fb_due(&f, 1024, false, 0));
	txn_ship_fb_sent(&f, 1024, 5000);
	TAP_CHECK(!txn_ship_fb_due(&f, 1024, true, 1u << 30));
	TAP_CHECK(!txn_ship_fb_due(&f, 2040, false, 1u << 30));
	TAP_CHECK(txn_ship_fb_due(&f, 2048, false, 5000));
	/* idle: what is new, once idle_us passed since the last message */
	TAP_CHECK(!txn_ship_fb_due(&f, 1032, true, 5999));
	TAP_CHECK(txn_ship_fb_due(&f, 1032, true, 6000));
	TAP_CHECK(!txn_ship_fb_due(&f, 1032, false, 6000));
	/* behind what was told: never */
	TAP_CHECK(!txn_ship_fb_due(&f, 8, true, 1u << 30));
	TAP_CHECK(txn_ship_fb_init(&f, 4096, 8, 7) == 0);
	TAP_CHECK(f.every == 8 && f.idle_us == 7);
}

/* ---- messages --------------------------------------------------------- */

static bool msg_eq(const struct txn_ship_msg *a, const struct txn_ship_msg *b)
{
	unsigned int i;

	if (a->type != b->type || a->nclock != b->nclock ||
	    a->writer != b->writer || a->region != b->region ||
	    a->val != b->val)
		return false;
	if (a->type == TXN_SHIP_FEEDBACK)
		for (i = 0; i < a->nclock; i++)
			if (a->clock[i] != b->clock[i])
				return false;
	return true;
}

static void test_messages(void)
{
	uint8_t buf[TXN_SHIP_MSG_MAX + 8], bad[sizeof(buf)];
	struct txn_ship_msg m = {
		.type = TXN_SHIP_FEEDBACK, .nclock = 3, .writer = 2,
		.val = 0x123456789abcdef0ULL & ~7ULL,
		.clock = { 5, 1ULL << 40, 7 },
	}, d;
	struct txn_ship_msg ring = {
		.type = TXN_SHIP_RING, .nclock = 2, .writer = 1,
		.region = 77, .val = 1 << 20,
	};
	size_t len, k;
	unsigned int bit;
	int refused;

	len = txn_ship_msg_encode(buf, sizeof(buf), &m);
	TAP_CHECK(len == 24 + 3 * 8);
	TAP_CHECK(buf[0] == 'T' && buf[1] == 'S' && buf[2] == 'H' &&
		  buf[3] == '1');
	TAP_CHECK(txn_ship_msg_decode(buf, len, &d) == 0 && msg_eq(&m, &d));
	for (k = 0; k < sizeof(buf); k++)
		if (k != len)
			TAP_CHECK(txn_ship_msg_decode(buf, k, &d) == -EPROTO);
	TAP_CHECK(txn_ship_msg_encode(buf, len - 1, &m) == 0);
	/*
	 * every bit flip of the header is refused or decodes to another
	 * message (never the same one): only fields without a rule (the
	 * position's upper bits, the clock) may change and still decode
	 */
	refused = 0;
	for (bit = 0; bit < 24 * 8; bit++) {
		memcpy(bad, buf, len);
		bad[bit / 8] ^= 1u << (bit % 8);
		if (txn_ship_msg_decode(bad, len, &d))
			refused++;
		else
			TAP_CHECK(!msg_eq(&m, &d));
	}
	/*
	 * magic 32, type 16, nclock 16 (the length), writer 31 (2 -> 0
	 * is another writer), region 32 (must be 0), position 3 (its
	 * alignment)
	 */
	tap_diag("FEEDBACK header bit flips refused: %d of 192", refused);
	TAP_CHECK(refused == 32 + 16 + 16 + 31 + 32 + 3);

	len = txn_ship_msg_encode(buf, sizeof(buf), &ring);
	TAP_CHECK(len == 24);
	TAP_CHECK(txn_ship_msg_decode(buf, len, &d) == 0 && msg_eq(&ring, &d));
	ring.val = 1000004;
	len = txn_ship_msg_encode(buf, sizeof(buf), &ring);
	TAP_CHECK(txn_ship_msg_decode(buf, len, &d) == -EPROTO);
	ring.val = 0;
	len = txn_ship_msg_encode(buf, sizeof(buf), &ring);
	TAP_CHECK(txn_ship_msg_decode(buf, len, &d) == -EPROTO);
	ring.val = TXRDMA_TLOG_MAX_RING + 8;
	len = txn_ship_msg_encode(buf, sizeof(buf), &ring);
	TAP_CHECK(txn_ship_msg_decode(buf, len, &d) == -EPROTO);

	m.region = 1;
	len = txn_ship_msg_encode(buf, sizeof(buf), &m);
	TAP_CHECK(txn_ship_msg_decode(buf, len, &d) == -EPROTO);
	m.region = 0;
	m.val = 12;
	len = txn_ship_msg_encode(buf, sizeof(buf), &m);
	TAP_CHECK(txn_ship_msg_decode(buf, len, &d) == -EPROTO);
	/* not messages at all: not encoded */
	m.val = 16;
	m.writer = 3;
	TAP_CHECK(txn_ship_msg_encode(buf, sizeof(buf), &m) == 0);
	m.writer = 0;
	m.nclock = 0;
	TAP_CHECK(txn_ship_msg_encode(buf, sizeof(buf), &m) == 0);
	m.nclock = TXRDMA_TLOG_MAX_CLOCK + 1;
	TAP_CHECK(txn_ship_msg_encode(buf, sizeof(buf), &m) == 0);
	m.nclock = TXRDMA_TLOG_MAX_CLOCK;
	TAP_CHECK(txn_ship_msg_encode(buf, sizeof(buf), &m) ==
		  TXN_SHIP_MSG_MAX);
	m.type = 3;
	TAP_CHECK(txn_ship_msg_encode(buf, sizeof(buf), &m) == 0);
}

/* ---- the whole path, without a NIC ----------------------------------- */

#define NW		2
#define RING		(16u << 10)
#define MAX_INFLIGHT	6
#define FB_DELAY	3	/* FEEDBACKs in the pipe before the next lands */

/* a WRITE in flight: lands a piece at a time, from either end */
struct wr {
	uint64_t off, lo, hi;	/* [lo, hi) still to land */
	bool backward;
};

struct sw {
	struct txn_log_writer log;
	struct txn_ship_plan plan;
	uint8_t *stage, *ring;
	struct wr fl[MAX_INFLIGHT];
	unsigned int nfl;
	uint64_t appended, want;
	/* FEEDBACKs on their way: position, clock */
	struct txn_ship_msg pipe[64];
	unsigned int npipe;
};

static uint32_t sim_len(unsigned int w, uint64_t s)
{
	return 8 + (uint32_t)((s * 2654435761u + w * 97) % 505);
}

static uint8_t sim_byte(unsigned int w, uint64_t s, uint32_t i)
{
	return (uint8_t)(s * 131 + i * 7 + w * 29 + (s >> 8));
}

/* land a piece of one WRITE; done ones complete */
static void land(struct sw *w)
{
	unsigned int k = (unsigned int)rnd_below(w->nfl);
	struct wr *f = &w->fl[k];
	uint64_t n = 1 + rnd_below(f->hi - f->lo < 96 ? f->hi - f->lo : 96);
	uint64_t at = f->backward ? f->hi - n : f->lo;

	/* the stage as it is now: a late DMA read */
	memcpy(w->ring + f->off + at, w->stage + f->off + at, n);
	if (f->backward)
		f->hi -= n;
	else
		f->lo += n;
	if (f->lo == f->hi)
		w->fl[k] = w->fl[--w->nfl];
}

static void post_all(struct sw *w)
{
	struct txn_ship_range r;

	while (w->nfl < MAX_INFLIGHT && txn_ship_plan_next(&w->plan, &r))
		w->fl[w->nfl++] = (struct wr) {
			.off = r.off, .lo = 0, .hi = r.len,
			.backward = rnd() & 1,
		};
}

static void test_path(void)
{
	static struct sw W[NW];
	struct txn_ship_fb fb[NW];
	struct txn_log_merge m;
	struct txn_log_entry e;
	uint64_t delivered[NW] = { 0 }, done[NW] = { 0 }, now = 0;
	uint64_t total = 0, want = 0, steps = 0, idle_spins = 0, fbs = 0;
	uint64_t laps = 0, observed = 0;
	unsigned int i;
	bool bad_order = false, bad_bytes = false, bad_seq = false;
	int rc;

	TAP_CHECK(txn_log_merge_init(&m, NW) == 0);
	for (i = 0; i < NW; i++) {
		struct sw *w = &W[i];

		memset(w, 0, sizeof(*w));
		w->stage = calloc(1, RING);
		w->ring = calloc(1, RING);
		/* odd counts, so the streams end at any point of a quarter */
		w->want = 40000 + 777 * i;
		want += w->want;
		TAP_CHECK(txn_log_writer_init(&w->log, i, NW, RING,
					      w->stage) == 0);
		TAP_CHECK(txn_ship_plan_init(&w->plan, RING, 200) == 0);
		TAP_CHECK(txn_log_merge_attach(&m, i, w->ring, RING) == 0);
		TAP_CHECK(txn_ship_fb_init(&fb[i], RING, 0, 2000) == 0);
	}

	while (total < want && steps < 50000000) {
		steps++;
		now++;
		i = (unsigned int)rnd_below(NW);
		struct sw *w = &W[i];

		switch (rnd_below(5)) {
		case 0: {	/* the writer: a batch, then a flush */
			unsigned int b = 1 + (unsigned int)rnd_below(24);
			struct txn_log_piece pc[2];
			unsigned int n;
			uint8_t pay[512];

			while (b-- && w->appended < w->want) {
				uint64_t s = w->appended + 1;
				uint32_t len = sim_len(i, s), k;

				for (k = 0; k < len; k++)
					pay[k] = sim_byte(i, s, k);
				rc = txn_log_append(&w->log, pay, len, NULL);
				if (rc == -ENOSPC)
					break;
				TAP_CHECK(rc == 0);
				w->appended++;
			}
			n = txn_log_writer_flush(&w->log, pc);
			TAP_CHECK(txn_ship_plan_add(&w->plan, pc, n) == 0);
			if (n == 2)
				laps++;
			post_all(w);
			break;
		}
		case 1:	/* the NIC */
		case 2:
			if (w->nfl)
				land(w);
			post_all(w);
			break;
		case 3:	/* a FEEDBACK arrives, the writer observes it */
			if (w->npipe > FB_DELAY || (w->npipe && rnd() % 4 == 0)) {
				struct txn_ship_msg *f = &w->pipe[0];

				TAP_CHECK(txn_log_writer_consumed(&w->log,
								  f->val) == 0);
				TAP_CHECK(txn_log_observe(&w->log, f->clock,
							  NW) == 0);
				observed++;
				memmove(w->pipe, w->pipe + 1,
					--w->npipe * sizeof(w->pipe[0]));
			}
			break;
		default: {	/* the reader: as txn_ship_reader_next() */
			unsigned int j;

			for (j = 0; j < NW; j++)
				done[j] = txn_log_merge_consumed(&m, j);
			rc = txn_log_merge(&m, &e);
			TAP_CHECK(rc >= 0);
			if (rc == 1) {
				uint64_t s = e.clock[e.writer];
				uint32_t k;

				if (s != delivered[e.writer] + 1)
					bad_seq = true;
				for (j = 0; j < NW; j++)
					if (j != e.writer &&
					    e.clock[j] > delivered[j])
						bad_order = true;
				if (e.len != sim_len(e.writer, s))
					bad_bytes = true;
				for (k = 0; k < e.len && !bad_bytes; k++)
					if (e.payload[k] !=
					    sim_byte(e.writer, s, k))
						bad_bytes = true;
				delivered[e.writer]++;
				total++;
			} else {
				idle_spins++;
			}
			for (j = 0; j < NW; j++) {
				struct sw *t = &W[j];

				if (!txn_ship_fb_due(&fb[j], done[j], !rc, now) ||
				    t->npipe == 64)
					continue;
				t->pipe[t->npipe++] = (struct txn_ship_msg) {
					.type = TXN_SHIP_FEEDBACK,
					.nclock = NW, .writer = j,
					.val = done[j],
					.clock = { delivered[0], delivered[1] },
				};
				txn_ship_fb_sent(&fb[j], done[j], now);
				fbs++;
			}
			break;
		}
		}
	}
	/*
	 * The streams ended: the reader, idle, reports the last positions
	 * (less than a quarter ring each, by the odd counts); every writer
	 * must learn that everything it appended was consumed.
	 */
	for (i = 0; i < NW; i++) {
		uint64_t end = now + 100000;
		struct sw *w = &W[i];

		while (now < end && w->log.consumed != w->log.pos) {
			uint64_t c = txn_log_merge_consumed(&m, i);

			now++;
			if (txn_ship_fb_due(&fb[i], c, true, now)) {
				TAP_CHECK(txn_log_writer_consumed(&w->log,
								  c) == 0);
				txn_ship_fb_sent(&fb[i], c, now);
			}
		}
		TAP_CHECK(w->log.consumed == w->log.pos);
	}
	tap_diag("%llu entries in %llu steps, %llu FEEDBACKs (%.1f entries each), %llu wraps, %llu observed, %llu idle scans",
		 (unsigned long long)total, (unsigned long long)steps,
		 (unsigned long long)fbs, fbs ? (double)total / fbs : 0.0,
		 (unsigned long long)laps, (unsigned long long)observed,
		 (unsigned long long)idle_spins);
	TAP_CHECK(total == want);
	TAP_CHECK(!bad_seq && !bad_order && !bad_bytes);
	TAP_CHECK(laps > 100);
	/* not per entry, and bounded by the quarter rule from below */
	TAP_CHECK(fbs * 4 < total);
	for (i = 0; i < NW; i++) {
		TAP_CHECK(delivered[i] == W[i].want);
		free(W[i].stage);
		free(W[i].ring);
	}
}

/*
 * The end of a stream: the last entries take less than a quarter ring;
 * only the idle rule tells the writer they were consumed.
 */
static void test_tail_feedback(void)
{
	struct txn_ship_fb f;
	uint64_t now = 0, told = 0;
	int i;

	TAP_CHECK(txn_ship_fb_init(&f, RING, 0, 50) == 0);
	txn_ship_fb_sent(&f, 3 * RING / 4, now);
	for (i = 0; i < 1000 && told != 3 * RING / 4 + 64; i++) {
		now += 10;
		if (txn_ship_fb_due(&f, 3 * RING / 4 + 64, true, now)) {
			told = 3 * RING / 4 + 64;
			txn_ship_fb_sent(&f, told, now);
		}
	}
	TAP_CHECK(told == 3 * RING / 4 + 64);
	TAP_CHECK(now == 50);
}

static const struct tap_test tests[] = {
	TAP_TEST(test_plan, "plan: merged where touching, cut at max_write, wrap kept apart, all or nothing"),
	TAP_TEST(test_feedback_rule, "feedback: a quarter ring, or idle after idle_us"),
	TAP_TEST(test_messages, "messages: round trip; truncation, extension and bad fields refused"),
	TAP_TEST(test_path, "two writers through plans, WRITEs landing in pieces out of order, merged in causal order, no stall"),
	TAP_TEST(test_tail_feedback, "the end of a stream is reported by the idle rule"),
};

int main(void)
{
	return TAP_MAIN(tests);
}
