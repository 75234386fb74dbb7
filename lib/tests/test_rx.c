// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Host tests of libtxrdma's receive ring (<txrdma_ring.h>: txrdma_rx_*).
 *
 * There is no kernel here.  The ring area is malloc'ed memory laid out
 * as TXRDMA_RX_* says, and a fake kernel writes frames into it exactly
 * as txrdma.ko will: a frame starts on a unit and never wraps (when it
 * does not fit before the end of the ring, a PAD header goes at the old
 * position and the frame at unit 0); it never has more than the ring's
 * units outstanding between its tail and the process's head (the credit
 * rule, PAD units included); it release-stores the tail after the
 * frames, in batches; and it release-stores the error word after its
 * last tail.  In the threaded tests it runs as a producer pthread that,
 * blocked on credits, either spins (NEED_WAKEUP stays clear: no
 * doorbell may be rung) or goes to sleep the SQPOLL way - set
 * TXRDMA_SQ_F_NEED_WAKEUP in a fake submission ring's flags, full
 * fence, look at the head once more - and waits for the doorbell.
 *
 * The doorbell is the library's own txrdma_rings_enter() on a context
 * opened on /dev/null: the binary is linked with -Wl,--wrap=ioctl, and
 * the wrapper answers TXRDMA_IOC_PROBE and counts TXRDMA_IOC_RING_ENTER
 * (posting the sleeping producer's semaphore).
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <txrdma.h>
#include "fake_dev.h"
#include "tap.h"
#include "txrdma_frame_check.h"

/*
 * ThreadSanitizer checks every byte of the payloads copied and compared
 * (some 6 GB for the million messages): under it the threaded tests
 * send a tenth as many.
 */
#if defined(__SANITIZE_THREAD__)
#define UNDER_TSAN	1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define UNDER_TSAN	1
#endif
#endif
#ifdef UNDER_TSAN
#define MSGS(n)		((n) / 10)
#else
#define MSGS(n)		(n)
#endif

#define SRC_EP		11
#define DST_EP		22
#define DEADLINE_S	10		/* no progress for this long: failed */

/* ---- the fake device: ioctl wrapper --------------------------------- */

static struct {
	unsigned long enters;		/* atomic: doorbells rung */
	sem_t *doorbell;		/* atomic: the sleeping producer's */
} kio;

int __wrap_ioctl(int fd, unsigned long req, ...);

int __wrap_ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;

	(void)fd;
	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);

	if (fake_probe(req, arg))
		return 0;
	if (req == TXRDMA_IOC_RING_ENTER) {
		sem_t *s = __atomic_load_n(&kio.doorbell, __ATOMIC_ACQUIRE);

		__atomic_fetch_add(&kio.enters, 1, __ATOMIC_RELAXED);
		if (s)
			sem_post(s);
		return 0;
	}
	errno = ENOTTY;
	return -1;
}

static unsigned long enters(void)
{
	return __atomic_load_n(&kio.enters, __ATOMIC_RELAXED);
}

/* ---- a fake submission ring: only its flags word matters here -------- */

#define SQ_LEN		512

struct fake_sq {
	unsigned char buf[SQ_LEN] __attribute__((aligned(64)));
	struct txrdma_sq sq;
};

static unsigned int *sq_flags(struct fake_sq *s)
{
	return (unsigned int *)(s->buf + 128);
}

static void fake_sq_init(struct fake_sq *s)
{
	const struct txrdma_sq_offsets so = {
		.head = 0, .tail = 64, .flags = 128, .dropped = 132,
		.ring_mask = 192, .ring_entries = 196, .sqes = 256,
	};

	memset(s->buf, 0, sizeof(s->buf));
	*(unsigned int *)(s->buf + 192) = 3;
	*(unsigned int *)(s->buf + 196) = 4;
	if (txrdma_sq_init(&s->sq, s->buf, SQ_LEN, &so)) {
		printf("Bail out! fake SQ\n");
		exit(1);
	}
}

/* ---- payloads: a pattern derived from (seq, offset) ----------------- */

#define PT_LEN		(2 * 65536 + 64)
static unsigned char pattern[PT_LEN];

static void pattern_init(void)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;
	size_t i;

	for (i = 0; i < PT_LEN; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		pattern[i] = (unsigned char)(x >> 24);
	}
}

static uint32_t mix32(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352du;
	x ^= x >> 15;
	x *= 0x846ca68bu;
	x ^= x >> 16;
	return x;
}

/* byte @o of message @seq is pattern[pat_start(seq) + o] */
static const unsigned char *pat(uint32_t seq)
{
	return pattern + (mix32(seq ^ 0xa5a5a5a5u) & 0xffff);
}

/*
 * Length of message @seq: log-uniform over 0..65535 (an octave 0..16
 * picked uniformly, then a length in it), at most @max_len; with
 * @max_every, every @max_every-th message is exactly @max_len.
 */
static uint32_t len_for(uint32_t seq, uint32_t max_len, uint32_t max_every)
{
	uint32_t h = mix32(seq), b = h % 17, lo, len;

	if (max_every && seq % max_every == max_every - 1)
		return max_len;
	if (!b)
		return 0;
	lo = 1u << (b - 1);
	len = lo + (h >> 8) % lo;
	return len > max_len ? max_len : len;
}

static unsigned int frame_units(uint32_t len)
{
	return (TXRDMA_FRAME_HDR_LEN + len + TXRDMA_FRAME_UNIT - 1) /
	       TXRDMA_FRAME_UNIT;
}

/* ---- the fake kernel ------------------------------------------------ */

struct fakek {
	unsigned char *area;
	unsigned int units, mask;
	unsigned int k_tail;		/* its private tail */
	unsigned int published;		/* tail as last release-stored */

	/* the producer thread */
	pthread_t thr;
	bool running;
	uint32_t n, max_len, max_every;
	unsigned int final_error;	/* stored after the last tail */
	bool sleep_when_blocked;
	unsigned int spin;		/* blocked rounds before sleeping */
	unsigned int *sqflags;
	sem_t doorbell;
	unsigned int asleep;		/* atomic */
	unsigned long wakeups, stalls, pads;
	bool lost_wakeup;		/* slept DEADLINE_S: no doorbell */
	int stop;			/* atomic */

	/*
	 * TXRDMA_FEAT_RX_CREDIT_WORDS: the sender knows only what was
	 * reported (TXRDMA_RX_OFF_REPORTED), and the kernel reports -
	 * an explicit update - only when its rule says it is due
	 */
	bool credit_words;
	unsigned int max_units;
	unsigned long updates;

	/*
	 * Reading ahead: frames up to @ahead_max bytes carry a trailer and
	 * the payload's CRC, and are written in a random order of 64-byte
	 * pieces while the process may be reading them; the process's
	 * head may be ahead of the tail, and counts only as far as the
	 * tail (txrdma_credit_rx_release())
	 */
	uint32_t ahead_max;
	unsigned long ahead_frames, ahead_head_seen;
	unsigned long held;		/* frames only reading ahead got */
	uint32_t next_seq;		/* frames written */
	bool held_stuck;		/* one the process never read */
};

static unsigned int *AW(struct fakek *k, unsigned int off)
{
	return (unsigned int *)(k->area + off);
}

static unsigned char *unit_at(struct fakek *k, unsigned int idx)
{
	return k->area + TXRDMA_RX_HDR_LEN +
	       (size_t)(idx & k->mask) * TXRDMA_FRAME_UNIT;
}

static void fakek_setup(struct fakek *k, unsigned int units,
			unsigned int start)
{
	size_t size = txrdma_rx_area_size(units);

	memset(k, 0, sizeof(*k));
	k->area = aligned_alloc(64, size);
	if (!size || !k->area) {
		printf("Bail out! ring area of %u units\n", units);
		exit(1);
	}
	memset(k->area, 0xa5, size);	/* junk: nothing may rely on zeroes */
	k->units = units;
	k->mask = units - 1;
	*AW(k, TXRDMA_RX_OFF_TAIL) = start;
	*AW(k, TXRDMA_RX_OFF_ERROR) = 0;
	*AW(k, TXRDMA_RX_OFF_HEAD) = start;
	/* every kernel zeroes the header at set-up: no reading ahead */
	*AW(k, TXRDMA_RX_OFF_AHEAD_MAX) = 0;
	*AW(k, TXRDMA_RX_OFF_FLAGS) = 0;	/* and no session */
	k->k_tail = start;
	k->published = start;
	sem_init(&k->doorbell, 0, 0);
}

/* stop the producer if it still runs, and join it; the ring stays */
static void fakek_join(struct fakek *k)
{
	if (k->running) {
		__atomic_store_n(&k->stop, 1, __ATOMIC_SEQ_CST);
		sem_post(&k->doorbell);
		pthread_join(k->thr, NULL);
		k->running = false;
	}
}

static void fakek_teardown(struct fakek *k)
{
	fakek_join(k);
	__atomic_store_n(&kio.doorbell, NULL, __ATOMIC_RELEASE);
	sem_destroy(&k->doorbell);
	free(k->area);
}

/* a frame of @len payload bytes from this kernel carries a trailer */
static bool trailer_for(const struct fakek *k, uint32_t len)
{
	return k->ahead_max && len <= k->ahead_max;
}

static unsigned int frame_units_k(const struct fakek *k, uint32_t len)
{
	return frame_units(len + (trailer_for(k, len) ?
				  TXRDMA_FRAME_TRAILER_LEN : 0));
}

/*
 * The process's head as the kernel counts it: one read ahead of the
 * tail counts as far as the tail (kmod txrdma_credit_rx_clamp())
 */
static unsigned int kernel_head(struct fakek *k, unsigned int head)
{
	if (k->ahead_max && (int)(head - k->published) > 0) {
		k->ahead_head_seen++;
		return k->published;
	}
	return head;
}

/* units the frame takes at the tail, PAD before it included */
static unsigned int place_units(struct fakek *k, uint32_t len,
				unsigned int *skip)
{
	unsigned int n = frame_units_k(k, len), pos = k->k_tail & k->mask;

	*skip = pos + n > k->units ? k->units - pos : 0;
	return *skip + n;
}

/* the credit rule: never more than the ring outstanding */
static bool fits(struct fakek *k, uint32_t len, int order)
{
	unsigned int skip, need = place_units(k, len, &skip);
	unsigned int head = __atomic_load_n(AW(k, k->credit_words ?
					       TXRDMA_RX_OFF_REPORTED :
					       TXRDMA_RX_OFF_HEAD), order);

	if (!k->credit_words)
		head = kernel_head(k, head);

	return k->k_tail + need - head <= k->units;
}

/*
 * With credit words: the kernel's update rule (txrdma_credit_rx_due()
 * in kmod/txrdma_credit.c, restated here from the design, not from the
 * library), applied by an awake poller: report the head when due.
 */
static void fakek_update(struct fakek *k)
{
	unsigned int head, reported, unreported;
	bool due;

	if (!k->credit_words)
		return;
	head = kernel_head(k, __atomic_load_n(AW(k, TXRDMA_RX_OFF_HEAD),
					      __ATOMIC_ACQUIRE));
	reported = __atomic_load_n(AW(k, TXRDMA_RX_OFF_REPORTED),
				   __ATOMIC_RELAXED);
	unreported = head - reported;
	if (!unreported)
		return;
	due = unreported >= k->units / 4 ||
	      (head == k->published &&
	       k->units - unreported < 2 * k->max_units - 1);
	if (due) {
		__atomic_store_n(AW(k, TXRDMA_RX_OFF_REPORTED), head,
				 __ATOMIC_RELEASE);
		k->updates++;
	}
}

static void fakek_credit_words(struct fakek *k, unsigned int max_units)
{
	k->credit_words = true;
	k->max_units = max_units;
	*AW(k, TXRDMA_RX_OFF_MAX_UNITS) = max_units;
	*AW(k, TXRDMA_RX_OFF_REPORTED) = *AW(k, TXRDMA_RX_OFF_HEAD);
}

static void put_hdr(unsigned char *at, __u8 type, uint32_t seq, uint32_t len)
{
	struct txrdma_frame_hdr h;

	memset(&h, 0, sizeof(h));
	h.type = type;
	h.version = 1;
	if (type == TXRDMA_FRAME_MSG) {
		h.src_ep = htole32(SRC_EP);
		h.dst_ep = htole32(DST_EP);
		h.seq = htole32(seq);
		h.len = htole32(len);
		h.epoch = htole32(1);
	}
	memcpy(at, &h, sizeof(h));
}

/*
 * A frame with trailer and payload CRC, built aside and written over
 * the ring's old bytes in a random order of 64-byte pieces: the process
 * may be looking at every intermediate state.
 */
static void put_frame_ahead(struct fakek *k, unsigned char *f, uint32_t seq,
			    uint32_t len)
{
	static unsigned char img[TXRDMA_RX_AHEAD_MAX_PAYLOAD + 64];
	unsigned int order[TXRDMA_RX_AHEAD_MAX_PAYLOAD / 64 + 2], n, pieces, i, j, t;
	struct txrdma_frame_hdr *h = (struct txrdma_frame_hdr *)img;
	uint32_t crc, at;

	put_hdr(img, TXRDMA_FRAME_MSG, seq, len);
	h->flags = TXRDMA_FRAME_F_DATA_CRC | TXRDMA_FRAME_F_TRAILER;
	memcpy(img + TXRDMA_FRAME_HDR_LEN, pat(seq), len);
	crc = txrdma_crc32c_update(~0u, img, 28);
	crc = ~txrdma_crc32c_update(crc, img + TXRDMA_FRAME_HDR_LEN, len);
	h->crc = htole32(crc);
	memcpy(img + TXRDMA_FRAME_HDR_LEN + len, &h->seq, 4);
	/* where it starts, free-running: the tail, past any skip */
	at = htole32(k->k_tail);
	memcpy(img + TXRDMA_FRAME_HDR_LEN + len + 4, &at, 4);
	n = TXRDMA_FRAME_HDR_LEN + len + TXRDMA_FRAME_TRAILER_LEN;
	pieces = (n + 63) / 64;
	for (i = 0; i < pieces; i++)
		order[i] = i;
	for (i = pieces; i > 1; i--) {
		j = mix32(seq * 64 + i) % i;
		t = order[i - 1];
		order[i - 1] = order[j];
		order[j] = t;
	}
	for (i = 0; i < pieces; i++) {
		unsigned int at = order[i] * 64;

		memcpy(f + at, img + at, n - at < 64 ? n - at : 64);
	}
	k->ahead_frames++;
}

static void fakek_ahead(struct fakek *k, uint32_t ahead_max)
{
	k->ahead_max = ahead_max;
	*AW(k, TXRDMA_RX_OFF_AHEAD_EP) = DST_EP;
	*AW(k, TXRDMA_RX_OFF_AHEAD_PEER) = SRC_EP;
	*AW(k, TXRDMA_RX_OFF_AHEAD_EPOCH) = 1;
	*AW(k, TXRDMA_RX_OFF_AHEAD_KSEQ) = 0;
	*AW(k, TXRDMA_RX_OFF_AHEAD_SEQ) = 0;
	*AW(k, TXRDMA_RX_OFF_AHEAD_AT) = 0;
	*AW(k, TXRDMA_RX_OFF_AHEAD_END) = 0;
	*AW(k, TXRDMA_RX_OFF_AHEAD_TAKEN) = 0;
	*AW(k, TXRDMA_RX_OFF_AHEAD_MAX) = ahead_max;
}

/* write frame @seq at the tail (PAD first if needed); not published */
static void put_frame(struct fakek *k, uint32_t seq, uint32_t len)
{
	unsigned int skip;
	unsigned char *f;

	place_units(k, len, &skip);
	if (skip) {
		put_hdr(unit_at(k, k->k_tail), TXRDMA_FRAME_PAD, 0, 0);
		k->k_tail += skip;
		k->pads++;
	}
	f = unit_at(k, k->k_tail);
	if (trailer_for(k, len))
		put_frame_ahead(k, f, seq, len);
	else {
		put_hdr(f, TXRDMA_FRAME_MSG, seq, len);
		memcpy(f + TXRDMA_FRAME_HDR_LEN, pat(seq), len);
	}
	k->k_tail += frame_units_k(k, len);
	k->next_seq = seq + 1;
}

static void fakek_update(struct fakek *k);

static void publish(struct fakek *k)
{
	if (k->published != k->k_tail) {
		k->published = k->k_tail;
		__atomic_store_n(AW(k, TXRDMA_RX_OFF_TAIL), k->k_tail,
				 __ATOMIC_RELEASE);
		/*
		 * the frame due after the last one published, after the
		 * tail (kmod txrdma_rx_publish()): a reader that sees this
		 * one sees the tail it applies to
		 */
		__atomic_store_n(AW(k, TXRDMA_RX_OFF_AHEAD_KSEQ), k->next_seq,
				 __ATOMIC_RELEASE);
		/*
		 * The kernel takes a head that ran ahead again after each
		 * publication (txrdma_rx_take_ahead()), and reports it when
		 * the rule says so
		 */
		if (k->ahead_max)
			fakek_update(k);
	}
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* blocked on credits: spin, then sleep until the doorbell; false: stop */
static bool wait_credits(struct fakek *k, uint32_t len)
{
	unsigned int idle = 0;

	k->stalls++;
	for (;;) {
		fakek_update(k);
		if (fits(k, len, __ATOMIC_ACQUIRE))
			break;
		struct timespec ts;
		int r;

		if (__atomic_load_n(&k->stop, __ATOMIC_ACQUIRE))
			return false;
		if (!k->sleep_when_blocked || ++idle < k->spin) {
			sched_yield();
			continue;
		}
		/*
		 * The poller goes to sleep: flag, full fence, look at the
		 * head once more.  Either the process sees the flag after
		 * its head store, or we see its head here.
		 */
		__atomic_fetch_or(k->sqflags, TXRDMA_SQ_F_NEED_WAKEUP,
				  __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		fakek_update(k);
		if (!fits(k, len, __ATOMIC_RELAXED)) {
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += DEADLINE_S;
			__atomic_store_n(&k->asleep, 1, __ATOMIC_SEQ_CST);
			while ((r = sem_timedwait(&k->doorbell, &ts)) &&
			       errno == EINTR)
				;
			__atomic_store_n(&k->asleep, 0, __ATOMIC_SEQ_CST);
			if (r) {
				k->lost_wakeup = true;
				return false;
			}
			k->wakeups++;
		}
		__atomic_fetch_and(k->sqflags, ~TXRDMA_SQ_F_NEED_WAKEUP,
				   __ATOMIC_RELAXED);
		idle = 0;
	}
	return true;
}

/* until the process's head passed everything written; false: stop */
static bool wait_read_ahead(struct fakek *k)
{
	double end = now_s() + DEADLINE_S;

	while ((int)(__atomic_load_n(AW(k, TXRDMA_RX_OFF_HEAD),
				     __ATOMIC_ACQUIRE) - k->k_tail) < 0) {
		if (__atomic_load_n(&k->stop, __ATOMIC_ACQUIRE))
			return false;
		if (now_s() > end) {
			k->held_stuck = true;
			return false;
		}
		sched_yield();
	}
	k->held++;
	return true;
}

static void *producer(void *arg)
{
	struct fakek *k = arg;
	unsigned int batch = 0, want = 1;
	uint32_t seq;

	for (seq = 0; seq < k->n; seq++) {
		uint32_t len = len_for(seq, k->max_len, k->max_every);

		if (!fits(k, len, __ATOMIC_ACQUIRE)) {
			publish(k);	/* what is written must be seen */
			batch = 0;
			if (!wait_credits(k, len))
				return NULL;
		}
		if (k->ahead_max && trailer_for(k, len) && seq % 16 == 3) {
			/*
			 * Held back: everything before it published, this
			 * one not until the process has read it - which it
			 * can only do ahead of the tail
			 */
			publish(k);
			put_frame(k, seq, len);
			if (!wait_read_ahead(k))
				return NULL;
			batch = 0;
			continue;
		}
		put_frame(k, seq, len);
		if (++batch >= want) {
			publish(k);
			batch = 0;
			want = 1 + mix32(seq) % 8;
		}
	}
	publish(k);
	if (k->final_error)
		__atomic_store_n(AW(k, TXRDMA_RX_OFF_ERROR), k->final_error,
				 __ATOMIC_RELEASE);
	return NULL;
}

static void fakek_start(struct fakek *k)
{
	__atomic_store_n(&kio.doorbell, &k->doorbell, __ATOMIC_RELEASE);
	if (pthread_create(&k->thr, NULL, producer, k)) {
		printf("Bail out! pthread_create\n");
		exit(1);
	}
	k->running = true;
}

static void rx_init_ok(struct txrdma_rx *rx, struct fakek *k,
		       struct fake_sq *s)
{
	int ret = txrdma_rx_init(rx, fake_ctx(), &s->sq, k->area, k->units);

	if (!TAP_CHECK_INT(ret, 0)) {
		printf("Bail out! rx_init failed\n");
		exit(1);
	}
	k->sqflags = sq_flags(s);
}

/* ---- init and the area ---------------------------------------------- */

#define SENTINEL	0x5a

static bool untouched(const void *p, size_t len)
{
	const unsigned char *c = p;
	size_t i;

	for (i = 0; i < len; i++)
		if (c[i] != SENTINEL)
			return false;
	return true;
}

static void rx_bad(struct txrdma_ctx *ctx, const struct txrdma_sq *sq,
		   void *area, __u32 units, const char *what)
{
	struct txrdma_rx rx;
	int ret;

	memset(&rx, SENTINEL, sizeof(rx));
	ret = txrdma_rx_init(&rx, ctx, sq, area, units);
	if (!TAP_CHECK_INT(ret, -EINVAL) || !TAP_CHECK(untouched(&rx, sizeof(rx))))
		tap_diag("  case: %s", what);
}

static void test_area_size(void)
{
	TAP_CHECK_INT(txrdma_rx_area_size(TXRDMA_RX_MIN_UNITS),
		      TXRDMA_RX_HDR_LEN + TXRDMA_RX_MIN_UNITS * 64);
	TAP_CHECK_INT(txrdma_rx_area_size(4096), 128 + 4096 * 64);
	TAP_CHECK_INT(txrdma_rx_area_size(TXRDMA_RX_MAX_UNITS),
		      128 + (1 << 20));
	TAP_CHECK_INT(txrdma_rx_area_size(0), 0);
	TAP_CHECK_INT(txrdma_rx_area_size(8), 0);
	TAP_CHECK_INT(txrdma_rx_area_size(15), 0);
	TAP_CHECK_INT(txrdma_rx_area_size(3000), 0);
	TAP_CHECK_INT(txrdma_rx_area_size(2 * TXRDMA_RX_MAX_UNITS), 0);
	TAP_CHECK_INT(txrdma_rx_area_size(0x80000000u), 0);
}

static void test_init(void)
{
	struct txrdma_ctx *ctx = fake_ctx();
	struct txrdma_rx rx;
	struct fake_sq s;
	struct fakek k;

	fake_sq_init(&s);
	fakek_setup(&k, 64, 1000);
	*AW(&k, TXRDMA_RX_OFF_TAIL) = 1040;	/* 40 units waiting */
	memset(&rx, SENTINEL, sizeof(rx));
	TAP_CHECK_INT(txrdma_rx_init(&rx, ctx, &s.sq, k.area, 64), 0);
	TAP_CHECK(rx.ktail == AW(&k, TXRDMA_RX_OFF_TAIL));
	TAP_CHECK(rx.kerror == AW(&k, TXRDMA_RX_OFF_ERROR));
	TAP_CHECK(rx.khead == AW(&k, TXRDMA_RX_OFF_HEAD));
	TAP_CHECK(rx.units == k.area + TXRDMA_RX_HDR_LEN);
	TAP_CHECK_INT(rx.ring_units, 64);
	TAP_CHECK_INT(rx.ring_mask, 63);
	TAP_CHECK_INT(rx.head, 1000);
	TAP_CHECK_INT(rx.look_at, 1000);	/* the first release looks */
	TAP_CHECK_INT(rx.seen_tail, 1000);
	TAP_CHECK_INT(rx.cur_units, 0);
	TAP_CHECK(rx.ctx == ctx && rx.sq == &s.sq);
	TAP_CHECK_INT(txrdma_rx_ready(&rx), 40);
	TAP_CHECK(txrdma_rx_hdr(&rx) == NULL);
	/* a full ring is consistent; the extremes of the size are allowed */
	*AW(&k, TXRDMA_RX_OFF_TAIL) = 1064;
	TAP_CHECK_INT(txrdma_rx_init(&rx, ctx, &s.sq, k.area, 64), 0);
	TAP_CHECK_INT(txrdma_rx_ready(&rx), 64);
	TAP_CHECK_INT(txrdma_rx_init(&rx, ctx, &s.sq, k.area, 16), -EINVAL);
	*AW(&k, TXRDMA_RX_OFF_TAIL) = 1016;
	TAP_CHECK_INT(txrdma_rx_init(&rx, ctx, &s.sq, k.area, 16), 0);

	/* bad arguments: -EINVAL, rx untouched */
	*AW(&k, TXRDMA_RX_OFF_TAIL) = 1000;
	TAP_CHECK_INT(txrdma_rx_init(NULL, ctx, &s.sq, k.area, 64), -EINVAL);
	rx_bad(NULL, &s.sq, k.area, 64, "NULL ctx");
	rx_bad(ctx, NULL, k.area, 64, "NULL sq");
	rx_bad(ctx, &s.sq, NULL, 64, "NULL area");
	rx_bad(ctx, &s.sq, k.area, 0, "0 units");
	rx_bad(ctx, &s.sq, k.area, 8, "8 units: a power of two below the minimum");
	rx_bad(ctx, &s.sq, k.area, 48, "48 units: not a power of two");
	rx_bad(ctx, &s.sq, k.area, 63, "63 units");
	rx_bad(ctx, &s.sq, k.area, 2 * TXRDMA_RX_MAX_UNITS, "above the maximum");
	rx_bad(ctx, &s.sq, k.area, 0x80000000u, "2^31 units");
	rx_bad(ctx, &s.sq, k.area + 8, 16, "area 8-byte aligned");
	rx_bad(ctx, &s.sq, k.area + 32, 16, "area 32-byte aligned");
	rx_bad(ctx, &s.sq, k.area + 4, 16, "area 4-byte aligned");
	rx_bad(ctx, &s.sq, (void *)(UINTPTR_MAX - 63), 16,
	       "area wraps the address space");
	*AW(&k, TXRDMA_RX_OFF_TAIL) = 1065;
	rx_bad(ctx, &s.sq, k.area, 64, "tail 65 units ahead of head");
	*AW(&k, TXRDMA_RX_OFF_TAIL) = 999;
	rx_bad(ctx, &s.sq, k.area, 64, "tail behind head");
	fakek_teardown(&k);
}

/* ---- single-threaded: frames, PAD, errors, bad frames --------------- */

/* peek must give message @seq of @len, at ring unit @unit */
static bool expect_msg(struct txrdma_rx *rx, struct fakek *k, uint32_t seq,
		       uint32_t len, unsigned int unit)
{
	const struct txrdma_frame_hdr *h;
	const void *p = NULL;
	__u32 l = ~0u;
	int ret = txrdma_rx_peek(rx, &p, &l);
	bool ok = true;

	ok &= TAP_CHECK_INT(ret, 1);
	if (ret != 1)
		return false;
	ok &= TAP_CHECK(p == k->area + TXRDMA_RX_HDR_LEN + unit * 64 + 32);
	ok &= TAP_CHECK_INT(l, len);
	ok &= TAP_CHECK(!memcmp(p, pat(seq), len));
	h = txrdma_rx_hdr(rx);
	ok &= TAP_CHECK(h == (const void *)((const unsigned char *)p - 32));
	ok &= TAP_CHECK(h && h->type == TXRDMA_FRAME_MSG &&
			txrdma_le32(h->seq) == seq &&
			txrdma_le32(h->src_ep) == SRC_EP &&
			txrdma_le32(h->dst_ep) == DST_EP);
	ok &= TAP_CHECK_INT(rx->cur_units, frame_units(len));
	if (!ok)
		tap_diag("  message %u", seq);
	return ok;
}

static void test_basic(void)
{
	const void *p = NULL, *p2 = NULL;
	struct txrdma_rx rx;
	struct fake_sq s;
	struct fakek k;
	__u32 l = 0, l2 = 0;

	fake_sq_init(&s);
	fakek_setup(&k, 64, 0);
	rx_init_ok(&rx, &k, &s);
	TAP_CHECK_INT(txrdma_rx_peek(&rx, &p, &l), 0);
	TAP_CHECK_INT(txrdma_rx_ready(&rx), 0);

	/* written, not published: invisible */
	put_frame(&k, 0, 0);		/* 1 unit */
	put_frame(&k, 1, 32);		/* 1 unit: exactly fills it */
	put_frame(&k, 2, 33);		/* 2 units */
	put_frame(&k, 3, 992);		/* 16 units: 32 + 992 = 1024 */
	TAP_CHECK_INT(txrdma_rx_peek(&rx, &p, &l), 0);
	publish(&k);
	TAP_CHECK_INT(txrdma_rx_ready(&rx), 20);

	expect_msg(&rx, &k, 0, 0, 0);
	/* peeking again, without release: the same message */
	TAP_CHECK_INT(txrdma_rx_peek(&rx, &p, &l), 1);
	TAP_CHECK_INT(txrdma_rx_peek(&rx, &p2, &l2), 1);
	TAP_CHECK(p == p2 && l == l2 && l == 0);
	TAP_CHECK_INT(*AW(&k, TXRDMA_RX_OFF_HEAD), 0);	/* nothing released */
	txrdma_rx_release(&rx);
	TAP_CHECK_INT(*AW(&k, TXRDMA_RX_OFF_HEAD), 1);
	TAP_CHECK(txrdma_rx_hdr(&rx) == NULL);
	TAP_CHECK_INT(txrdma_rx_ready(&rx), 19);
	txrdma_rx_release(&rx);		/* nothing held: nothing happens */
	TAP_CHECK_INT(*AW(&k, TXRDMA_RX_OFF_HEAD), 1);

	expect_msg(&rx, &k, 1, 32, 1);
	txrdma_rx_release(&rx);
	expect_msg(&rx, &k, 2, 33, 2);
	txrdma_rx_release(&rx);
	TAP_CHECK_INT(*AW(&k, TXRDMA_RX_OFF_HEAD), 4);
	expect_msg(&rx, &k, 3, 992, 4);
	txrdma_rx_release(&rx);
	TAP_CHECK_INT(*AW(&k, TXRDMA_RX_OFF_HEAD), 20);
	TAP_CHECK_INT(txrdma_rx_peek(&rx, &p, &l), 0);
	TAP_CHECK_INT(txrdma_rx_ready(&rx), 0);

	/* the largest payload, in the largest frame the kernel sends */
	fakek_teardown(&k);
	fakek_setup(&k, 4096, 0);
	rx_init_ok(&rx, &k, &s);
	put_frame(&k, 7, 65535);
	put_frame(&k, 8, TXRDMA_FRAME_MAX_PAYLOAD);
	publish(&k);
	expect_msg(&rx, &k, 7, 65535, 0);
	txrdma_rx_release(&rx);
	expect_msg(&rx, &k, 8, TXRDMA_FRAME_MAX_PAYLOAD, 1025);
	txrdma_rx_release(&rx);
	TAP_CHECK_INT(*AW(&k, TXRDMA_RX_OFF_HEAD), 1025 + 1025);
	TAP_CHECK_INT(enters(), 0);	/* NEED_WAKEUP was never set */
	fakek_teardown(&k);
}

static void test_pad(void)
{
	const void *p = NULL;
	struct txrdma_rx rx;
	struct fake_sq s;
	struct fakek k;
	__u32 l = 0;

	fake_sq_init(&s);
	fakek_setup(&k, 16, 0);
	rx_init_ok(&rx, &k, &s);
	put_frame(&k, 0, 400);		/* units 0..6 */
	put_frame(&k, 1, 288);		/* units 7..11 */
	publish(&k);
	expect_msg(&rx, &k, 0, 400, 0);
	txrdma_rx_release(&rx);
	TAP_CHECK_INT(*AW(&k, TXRDMA_RX_OFF_HEAD), 7);
	/* 5 units at 12 do not fit: PAD at 12, frame at 0 (credits: 7 freed) */
	TAP_CHECK(fits(&k, 260, __ATOMIC_RELAXED));
	put_frame(&k, 2, 260);
	TAP_CHECK_INT(k.pads, 1);
	TAP_CHECK_INT(k.k_tail, 16 + 5);
	publish(&k);
	expect_msg(&rx, &k, 1, 288, 7);
	txrdma_rx_release(&rx);
	TAP_CHECK_INT(*AW(&k, TXRDMA_RX_OFF_HEAD), 12);
	TAP_CHECK_INT(txrdma_rx_ready(&rx), 9);
	/* the PAD is skipped and released at once, the frame is held */
	expect_msg(&rx, &k, 2, 260, 0);
	TAP_CHECK_INT(*AW(&k, TXRDMA_RX_OFF_HEAD), 16);
	TAP_CHECK_INT(rx.head, 16);
	TAP_CHECK_INT(txrdma_rx_ready(&rx), 5);
	expect_msg(&rx, &k, 2, 260, 0);	/* again: the same */
	txrdma_rx_release(&rx);
	TAP_CHECK_INT(*AW(&k, TXRDMA_RX_OFF_HEAD), 21);
	TAP_CHECK_INT(txrdma_rx_peek(&rx, &p, &l), 0);

	/* a PAD of one unit, at the last unit */
	while (k.k_tail % 16 != 15)
		put_frame(&k, 100, 0);
	publish(&k);
	while (txrdma_rx_peek(&rx, &p, &l) == 1)
		txrdma_rx_release(&rx);
	put_frame(&k, 3, 40);		/* 2 units: PAD at 15, frame at 0 */
	publish(&k);
	TAP_CHECK_INT(k.pads, 2);
	expect_msg(&rx, &k, 3, 40, 0);
	txrdma_rx_release(&rx);
	TAP_CHECK_INT(*AW(&k, TXRDMA_RX_OFF_HEAD), 34);
	/* a PAD alone, its frame not published yet: skipped, then empty */
	while (k.k_tail % 16 != 12)
		put_frame(&k, 100, 0);
	publish(&k);
	while (txrdma_rx_peek(&rx, &p, &l) == 1)
		txrdma_rx_release(&rx);
	put_hdr(unit_at(&k, k.k_tail), TXRDMA_FRAME_PAD, 0, 0);
	k.k_tail += 4;
	publish(&k);
	TAP_CHECK_INT(txrdma_rx_peek(&rx, &p, &l), 0);
	TAP_CHECK_INT(*AW(&k, TXRDMA_RX_OFF_HEAD), 48);
	TAP_CHECK_INT(rx.cur_units, 0);
	fakek_teardown(&k);
}

static void test_error(void)
{
	const void *p = NULL;
	struct txrdma_rx rx;
	struct fake_sq s;
	struct fakek k;
	__u32 l = 0;

	fake_sq_init(&s);
	fakek_setup(&k, 64, 0);
	rx_init_ok(&rx, &k, &s);
	put_frame(&k, 0, 10);
	put_frame(&k, 1, 100);		/* 3 units */
	put_frame(&k, 2, 1000);		/* 17 units */
	publish(&k);
	*AW(&k, TXRDMA_RX_OFF_ERROR) = ECONNRESET;
	/* the frames first */
	expect_msg(&rx, &k, 0, 10, 0);
	txrdma_rx_release(&rx);
	expect_msg(&rx, &k, 1, 100, 1);
	txrdma_rx_release(&rx);
	expect_msg(&rx, &k, 2, 1000, 4);
	txrdma_rx_release(&rx);
	/* then the error, and it stays */
	TAP_CHECK_INT(txrdma_rx_peek(&rx, &p, &l), -ECONNRESET);
	TAP_CHECK_INT(txrdma_rx_peek(&rx, &p, &l), -ECONNRESET);
	TAP_CHECK_INT(txrdma_rx_ready(&rx), 0);
	TAP_CHECK_INT(rx.cur_units, 0);
	txrdma_rx_release(&rx);		/* nothing held */
	TAP_CHECK_INT(*AW(&k, TXRDMA_RX_OFF_HEAD), 21);

	/* the error seen first, a frame behind it: the frame still comes */
	put_frame(&k, 3, 0);
	publish(&k);
	expect_msg(&rx, &k, 3, 0, 21);
	txrdma_rx_release(&rx);
	TAP_CHECK_INT(txrdma_rx_peek(&rx, &p, &l), -ECONNRESET);

	/* other errors; a word that is no errno */
	*AW(&k, TXRDMA_RX_OFF_ERROR) = EIO;
	TAP_CHECK_INT(txrdma_rx_peek(&rx, &p, &l), -EIO);
	*AW(&k, TXRDMA_RX_OFF_ERROR) = ENOTCONN;
	TAP_CHECK_INT(txrdma_rx_peek(&rx, &p, &l), -ENOTCONN);
	*AW(&k, TXRDMA_RX_OFF_ERROR) = 0x80000000u;
	TAP_CHECK_INT(txrdma_rx_peek(&rx, &p, &l), -EIO);
	*AW(&k, TXRDMA_RX_OFF_ERROR) = 0xffffffffu;
	TAP_CHECK_INT(txrdma_rx_peek(&rx, &p, &l), -EIO);
	fakek_teardown(&k);
}

static void drain(struct txrdma_rx *rx)
{
	const void *p = NULL;
	__u32 l = 0;

	while (txrdma_rx_peek(rx, &p, &l) == 1)
		txrdma_rx_release(rx);
}

/* peek must refuse the frame at the head and change nothing */
static void expect_bad(struct txrdma_rx *rx, struct fakek *k, const char *what)
{
	struct txrdma_rx before = *rx;
	unsigned int khead = *AW(k, TXRDMA_RX_OFF_HEAD);
	const void *p = (const void *)1;
	__u32 l = 77;
	int ret = txrdma_rx_peek(rx, &p, &l);

	if (!TAP_CHECK_INT(ret, -EBADMSG) ||
	    !TAP_CHECK(!memcmp(&before, rx, sizeof(before))) ||
	    !TAP_CHECK_INT(*AW(k, TXRDMA_RX_OFF_HEAD), khead) ||
	    !TAP_CHECK(p == (const void *)1 && l == 77))
		tap_diag("  case: %s", what);
}

static void test_bad_frames(void)
{
	struct txrdma_frame_hdr *h;
	struct txrdma_rx rx;
	struct fake_sq s;
	struct fakek k;
	unsigned char *f;

	fake_sq_init(&s);
	fakek_setup(&k, 64, 0);
	rx_init_ok(&rx, &k, &s);
	/* a message of 3 units at 0, then units 3..63 unused */
	put_frame(&k, 0, 150);
	publish(&k);
	f = unit_at(&k, 0);
	h = (struct txrdma_frame_hdr *)f;

	h->type = 0;
	expect_bad(&rx, &k, "type 0");
	h->type = 3;
	expect_bad(&rx, &k, "type 3");
	h->type = TXRDMA_FRAME_MSG;
	h->len = htole32(151 + 32);	/* 4 units, 3 published */
	expect_bad(&rx, &k, "frame longer than what was published");
	h->len = htole32(TXRDMA_FRAME_MAX_PAYLOAD + 1);
	expect_bad(&rx, &k, "payload over 64 KiB");
	h->len = htole32(0xffffffffu);
	expect_bad(&rx, &k, "payload of 4 GiB");
	h->len = htole32(150);
	expect_msg(&rx, &k, 0, 150, 0);
	txrdma_rx_release(&rx);

	/* a frame that would run past the end of the ring */
	while (k.k_tail != 60)
		put_frame(&k, 9, 0);
	publish(&k);
	drain(&rx);
	TAP_CHECK_INT(rx.head, 60);
	put_hdr(unit_at(&k, 60), TXRDMA_FRAME_MSG, 10, 260);	/* 5 units */
	*AW(&k, TXRDMA_RX_OFF_TAIL) = 65;
	expect_bad(&rx, &k, "frame past the end of the ring");
	/* a PAD that runs past the tail */
	put_hdr(unit_at(&k, 60), TXRDMA_FRAME_PAD, 0, 0);
	*AW(&k, TXRDMA_RX_OFF_TAIL) = 63;
	expect_bad(&rx, &k, "PAD past the tail");
	/* a tail more than a ring ahead */
	put_hdr(unit_at(&k, 60), TXRDMA_FRAME_MSG, 10, 0);
	*AW(&k, TXRDMA_RX_OFF_TAIL) = 60 + 65;
	expect_bad(&rx, &k, "tail more than a ring ahead");
	/* made right again: read on */
	*AW(&k, TXRDMA_RX_OFF_TAIL) = 61;
	expect_msg(&rx, &k, 10, 0, 60);
	txrdma_rx_release(&rx);
	TAP_CHECK_INT(*AW(&k, TXRDMA_RX_OFF_HEAD), 61);
	fakek_teardown(&k);
}

/* ---- the doorbell ---------------------------------------------------- */

/* release one frame of 1 unit; how many doorbells did that ring? */
static unsigned long release_one(struct txrdma_rx *rx)
{
	unsigned long before = enters();
	const void *p = NULL;
	__u32 l = 0;

	if (!TAP_CHECK_INT(txrdma_rx_peek(rx, &p, &l), 1))
		return 99;
	txrdma_rx_release(rx);
	return enters() - before;
}

static void put_ones(struct fakek *k, unsigned int n)
{
	while (n--)
		put_frame(k, 0, 0);
	publish(k);
}

static void test_doorbell(void)
{
	unsigned long rang = 0, i;
	struct txrdma_rx rx;
	struct fake_sq s;
	struct fakek k;

	fake_sq_init(&s);
	fakek_setup(&k, 64, 0xffffffe0u);	/* and across 2^32 */
	rx_init_ok(&rx, &k, &s);

	/* the poller is awake: never a doorbell, however much is released */
	put_ones(&k, 40);
	for (i = 0; i < 40; i++)
		rang += release_one(&rx);
	TAP_CHECK_INT(rang, 0);
	/* looked last at 40, the empty ring: next at its quarter, 56 */
	TAP_CHECK_INT(rx.look_at, 0xffffffe0u + 56);

	/* asleep: a doorbell each quarter ring (16 units), and when empty */
	*sq_flags(&s) = TXRDMA_SQ_F_NEED_WAKEUP;
	put_ones(&k, 40);
	for (i = 1, rang = 0; i <= 40; i++) {
		unsigned long r = release_one(&rx);

		rang += r;
		if (!TAP_CHECK_INT(r, i == 16 || i == 32 || i == 40))
			tap_diag("  release %lu", i);
	}
	TAP_CHECK_INT(rang, 3);
	TAP_CHECK_INT(*AW(&k, TXRDMA_RX_OFF_HEAD), 0xffffffe0u + 80);

	/* a single message: the ring is empty after it, the sender may wait */
	put_ones(&k, 1);
	TAP_CHECK_INT(release_one(&rx), 1);

	/* a frame published between peek and release: not empty, no bell */
	{
		const void *p = NULL;
		__u32 l = 0;

		put_ones(&k, 1);
		TAP_CHECK_INT(txrdma_rx_peek(&rx, &p, &l), 1);
		put_ones(&k, 1);
		i = enters();
		txrdma_rx_release(&rx);
		TAP_CHECK_INT(enters() - i, 0);
		TAP_CHECK_INT(release_one(&rx), 1);	/* this one empties it */
	}

	/* a quarter in one frame: 16 units, with more behind it */
	put_frame(&k, 1, 16 * 64 - 32);
	put_ones(&k, 1);
	TAP_CHECK_INT(release_one(&rx), 1);
	TAP_CHECK_INT(release_one(&rx), 1);

	/* a PAD's units count toward the quarter, rung at the frame after */
	while (k.k_tail % 64 != 52)
		put_ones(&k, 1);
	*sq_flags(&s) = 0;
	drain(&rx);
	*sq_flags(&s) = TXRDMA_SQ_F_NEED_WAKEUP;
	put_frame(&k, 2, 13 * 64 - 32);		/* PAD of 12, frame of 13 */
	put_ones(&k, 1);
	TAP_CHECK_INT(release_one(&rx), 1);
	TAP_CHECK_INT(release_one(&rx), 1);	/* empty */

	/* awake again: quiet */
	*sq_flags(&s) = 0;
	put_ones(&k, 20);
	for (i = 0, rang = 0; i < 20; i++)
		rang += release_one(&rx);
	TAP_CHECK_INT(rang, 0);
	fakek_teardown(&k);
}

/* release_one(), and the kernel answers a doorbell with an update */
static unsigned long release_one_k(struct txrdma_rx *rx, struct fakek *k)
{
	unsigned long r = release_one(rx);

	if (r)
		*AW(k, TXRDMA_RX_OFF_REPORTED) = rx->head;
	return r;
}

static void test_doorbell_rule(void)
{
	unsigned long rang = 0, i;
	struct txrdma_rx rx;
	struct fake_sq s;
	struct fakek k;

	fake_sq_init(&s);
	fakek_setup(&k, 64, 0xfffffff0u);
	fakek_credit_words(&k, 4);	/* frames of at most 4 units */
	rx_init_ok(&rx, &k, &s);
	*sq_flags(&s) = TXRDMA_SQ_F_NEED_WAKEUP;

	/* a ping-pong: one message, released, the ring empty again; the
	 * sender still sees 63 units free, more than 2 * 4 - 1: no bell
	 */
	for (i = 0; i < 8; i++) {
		put_ones(&k, 1);
		rang += release_one(&rx);
		/* and the reply carries the credits, as the kernel would */
		*AW(&k, TXRDMA_RX_OFF_REPORTED) = rx.head;
	}
	TAP_CHECK_INT(rang, 0);

	/* unreported: 1..15 quiet while the sender has room, 16 rings */
	for (i = 1, rang = 0; i <= 16; i++) {
		unsigned long r;

		put_ones(&k, 1);
		r = release_one_k(&rx, &k);
		rang += r;
		if (!TAP_CHECK_INT(r, i == 16))
			tap_diag("  release %lu", i);
	}
	TAP_CHECK_INT(rang, 1);

	/* 57 units in flight, released one by one: a quarter at 16, 32
	 * and 48, each answered by an update; at the end 9 unreported,
	 * the ring empty, 55 free for a sender that needs 7 at most
	 */
	put_ones(&k, 57);
	for (i = 1, rang = 0; i <= 57; i++)
		rang += release_one_k(&rx, &k);
	TAP_CHECK_INT(rang, 3);
	TAP_CHECK_INT(rx.head - *AW(&k, TXRDMA_RX_OFF_REPORTED), 9);

	/* where the sender could be stuck: 58 unreported, the ring empty:
	 * it sees 6 free and may need 7
	 */
	*AW(&k, TXRDMA_RX_OFF_REPORTED) = rx.head - 57;
	put_ones(&k, 1);
	TAP_CHECK_INT(release_one(&rx), 1);
	/* the same, with a frame behind it: the sender is not stuck yet */
	*AW(&k, TXRDMA_RX_OFF_REPORTED) = rx.head - 14;
	put_ones(&k, 2);
	TAP_CHECK_INT(release_one(&rx), 0);	/* 15 unreported, one more */
	TAP_CHECK_INT(release_one(&rx), 1);	/* 16: the quarter */

	/* a stale or garbage word: more than the ring: ring */
	*AW(&k, TXRDMA_RX_OFF_REPORTED) = rx.head - 1000;
	put_ones(&k, 1);
	TAP_CHECK_INT(release_one(&rx), 1);

	/* the poller awake: the rule may say due, no system call */
	*sq_flags(&s) = 0;
	*AW(&k, TXRDMA_RX_OFF_REPORTED) = rx.head - 20;
	put_ones(&k, 1);
	TAP_CHECK_INT(release_one(&rx), 0);
	fakek_teardown(&k);
}

/*
 * A session's ring (TXRDMA_RX_F_DUE_EMPTY): its sender completes each
 * SEND only when it hears of the release, so every release that empties
 * the ring rings a sleeping poller, however little is unreported; one
 * that leaves a frame behind waits for the next, or for the quarter.
 */
static void test_doorbell_session(void)
{
	unsigned long rang = 0, i;
	struct txrdma_rx rx;
	struct fake_sq s;
	struct fakek k;

	fake_sq_init(&s);
	fakek_setup(&k, 256, 0xfffffff0u);	/* a quarter: 64 units */
	fakek_credit_words(&k, 4);
	*AW(&k, TXRDMA_RX_OFF_FLAGS) = TXRDMA_RX_F_DUE_EMPTY;
	rx_init_ok(&rx, &k, &s);
	*sq_flags(&s) = TXRDMA_SQ_F_NEED_WAKEUP;

	/* a ping-pong of 1-unit messages: every release rings */
	for (i = 0; i < 8; i++) {
		put_ones(&k, 1);
		rang += release_one_k(&rx, &k);
	}
	TAP_CHECK_INT(rang, 8);
	/* two in the ring: the first release leaves one, the second rings */
	put_ones(&k, 2);
	TAP_CHECK_INT(release_one_k(&rx, &k), 0);
	TAP_CHECK_INT(release_one_k(&rx, &k), 1);
	/* not empty, but 32 units released unreported: rings */
	put_ones(&k, 33);
	for (i = 1, rang = 0; i <= 32; i++) {
		unsigned long r = release_one(&rx);

		rang += r;
		if (!TAP_CHECK_INT(r, i == 32))
			tap_diag("  release %lu", i);
	}
	TAP_CHECK_INT(rang, 1);
	*AW(&k, TXRDMA_RX_OFF_REPORTED) = rx.head;
	TAP_CHECK_INT(release_one_k(&rx, &k), 1);	/* the 33rd: empty */
	/* reported already (a reply carried it): nothing to ring for */
	put_ones(&k, 1);
	TAP_CHECK_INT(txrdma_rx_peek(&rx, &(const void *){ NULL },
				     &(__u32){ 0 }), 1);
	*AW(&k, TXRDMA_RX_OFF_REPORTED) = rx.head + 1;
	{
		unsigned long before = enters();

		txrdma_rx_release(&rx);
		TAP_CHECK_INT(enters() - before, 0);
	}
	/* the poller awake: due, but no system call */
	*sq_flags(&s) = 0;
	put_ones(&k, 1);
	TAP_CHECK_INT(release_one(&rx), 0);
	/* the flag gone (a plain pair): the older rule, no bell */
	*AW(&k, TXRDMA_RX_OFF_FLAGS) = 0;
	*AW(&k, TXRDMA_RX_OFF_REPORTED) = rx.head;
	*sq_flags(&s) = TXRDMA_SQ_F_NEED_WAKEUP;
	put_ones(&k, 1);
	TAP_CHECK_INT(release_one_k(&rx, &k), 0);
	fakek_teardown(&k);
}

/*
 * txrdma_rx_release() looks at the credit rule only when its own words
 * (the tail its peek saw, @look_at) say an update could be due.  Here
 * every release is compared with the full rule evaluated just before
 * it: over random frame sizes, PADs, kernel reports (on a doorbell,
 * by an awake poller, or spontaneously with a reply) and sleeps, a
 * doorbell rings exactly when the rule says due and the poller
 * sleeps.  With credit words and with the older rule, across 2^32.
 */
static void release_vs_rule(bool credit_words)
{
	unsigned long releases = 0, rang = 0, looks_due = 0, stuck = 0;
	uint32_t x = credit_words ? 0x1234567u : 0x89abcdefu, seq = 0;
	unsigned int max_units = 6;
	struct txrdma_rx rx;
	struct fake_sq s;
	struct fakek k;
	unsigned long i;

	fake_sq_init(&s);
	fakek_setup(&k, 64, 0xffff0000u);
	if (credit_words)
		fakek_credit_words(&k, max_units);
	rx_init_ok(&rx, &k, &s);
	for (i = 0; i < 400000 && stuck < 1000; i++) {
		const void *p = NULL;
		unsigned long before;
		uint32_t len;
		__u32 l = 0;
		bool due;

		x = mix32(x + (uint32_t)i);
		if (x % 7 == 0)
			*sq_flags(&s) = (x >> 8) & 1 ? TXRDMA_SQ_F_NEED_WAKEUP : 0;
		if (x % 3 == 0) {
			/* the sender: frames while the credits allow */
			unsigned int n = 1 + (x >> 4) % 8;

			while (n--) {
				len = mix32(seq) % (max_units * 64 - 32 + 1);
				if (!fits(&k, len, __ATOMIC_RELAXED))
					break;
				put_frame(&k, seq++, len);
			}
			publish(&k);
			continue;
		}
		if (txrdma_rx_peek(&rx, &p, &l) != 1) {
			stuck++;
			continue;
		}
		stuck = 0;
		due = txrdma_rx_update_due(&rx, rx.head + rx.cur_units);
		looks_due += due;
		before = enters();
		txrdma_rx_release(&rx);
		releases++;
		if (!TAP_CHECK_INT(enters() - before,
				   due && (*sq_flags(&s) &
					   TXRDMA_SQ_F_NEED_WAKEUP))) {
			tap_diag("  release %lu at head %u", releases, rx.head);
			break;
		}
		if (enters() != before) {
			rang++;
			if (credit_words)	/* the poller's update */
				*AW(&k, TXRDMA_RX_OFF_REPORTED) = rx.head;
		} else if (!(*sq_flags(&s) & TXRDMA_SQ_F_NEED_WAKEUP)) {
			fakek_update(&k);	/* an awake poller */
		}
		/*
		 * a reply going the other way carries a report, of a head
		 * the kernel saw a little earlier; the kernel's word only
		 * grows
		 */
		if (credit_words && (x >> 12) % 16 == 0) {
			unsigned int r = rx.head - (x >> 20) % 3;

			if ((int)(r - *AW(&k, TXRDMA_RX_OFF_REPORTED)) > 0)
				*AW(&k, TXRDMA_RX_OFF_REPORTED) = r;
		}
	}
	TAP_CHECK(releases > 30000);
	TAP_CHECK(stuck < 1000);
	TAP_CHECK(rang > 100);
	tap_diag("%s: %lu releases, %lu due by the rule, %lu doorbells",
		 credit_words ? "credit words" : "older rule", releases,
		 looks_due, rang);
	fakek_teardown(&k);
}

static void test_release_looks(void)
{
	release_vs_rule(true);
	release_vs_rule(false);
}

/* ---- with the producer thread ---------------------------------------- */

struct stream {
	unsigned int units, start;
	uint32_t n, max_len, max_every;
	bool sleeper;
	unsigned int spin;
	unsigned int final_error;
	unsigned int pause_every;	/* stop reading until the producer,
					 * out of credits, sleeps */
	bool credit_words;		/* TXRDMA_FEAT_RX_CREDIT_WORDS */
	uint32_t ahead_max;		/* TXRDMA_EP_F_RX_AHEAD */
};

static bool wait_asleep(struct fakek *k, double secs)
{
	double end = now_s() + secs;

	while (!__atomic_load_n(&k->asleep, __ATOMIC_ACQUIRE)) {
		if (now_s() > end)
			return false;
		sched_yield();
	}
	return true;
}

static void run_stream(const struct stream *st)
{
	unsigned long e0 = enters(), bad_repeek = 0, pauses = 0;
	unsigned long released_ahead = 0;
	uint32_t next = 0, bad_seq = 0;
	double t0, idle_since = 0;
	bool bad = false, stalled = false;
	int err = 0, ret;
	struct txrdma_rx rx;
	struct fake_sq s;
	struct fakek k;
	const void *p = NULL;
	__u32 l = 0;

	fake_sq_init(&s);
	fakek_setup(&k, st->units, st->start);
	rx_init_ok(&rx, &k, &s);
	k.n = st->n;
	k.max_len = st->max_len;
	k.max_every = st->max_every;
	k.sleep_when_blocked = st->sleeper;
	k.spin = st->spin;
	k.final_error = st->final_error;
	if (st->credit_words) {
		unsigned int mu = frame_units(st->max_len);

		fakek_credit_words(&k, mu < st->units / 2 ? mu : st->units / 2);
	}
	if (st->ahead_max)
		fakek_ahead(&k, st->ahead_max);
	t0 = now_s();
	fakek_start(&k);

	while (next < st->n) {
		ret = txrdma_rx_peek(&rx, &p, &l);
		if (ret == 1) {
			const struct txrdma_frame_hdr *h = txrdma_rx_hdr(&rx);

			if (l != len_for(next, st->max_len, st->max_every) ||
			    !h || txrdma_le32(h->seq) != next ||
			    txrdma_le32(h->len) != l ||
			    txrdma_le32(h->src_ep) != SRC_EP ||
			    txrdma_le32(h->dst_ep) != DST_EP ||
			    memcmp(p, pat(next), l)) {
				bad = true;
				bad_seq = next;
				break;
			}
			if ((next & 15) == 5) {		/* peek again */
				const void *p2 = NULL;
				__u32 l2 = 0;

				int r2 = txrdma_rx_peek(&rx, &p2, &l2);

				if (r2 != 1 || p2 != p || l2 != l) {
					if (!bad_repeek)
						tap_diag("  repeek of %u: %d, %p/%p, %u/%u, head %u tail %u",
							 next, r2, p, p2, l, l2,
							 rx.head, *AW(&k, TXRDMA_RX_OFF_TAIL));
					bad_repeek++;
				}
			}
			txrdma_rx_release(&rx);
			if ((int)(rx.head - __atomic_load_n(AW(&k,
					TXRDMA_RX_OFF_TAIL), __ATOMIC_RELAXED)) > 0)
				released_ahead++;
			next++;
			idle_since = 0;
			if (st->pause_every && next % st->pause_every == 0 &&
			    next < st->n && wait_asleep(&k, 1))
				pauses++;
			continue;
		}
		if (ret < 0) {
			err = ret;
			break;
		}
		if (idle_since == 0) {
			idle_since = now_s();
		} else if (now_s() - idle_since > DEADLINE_S) {
			stalled = true;
			break;
		}
		sched_yield();
	}

	/* after the last message: the error, or nothing */
	if (!bad && !stalled && !err) {
		double end = now_s() + DEADLINE_S;

		do {
			ret = txrdma_rx_peek(&rx, &p, &l);
		} while (!ret && st->final_error && now_s() < end &&
			 (sched_yield(), 1));
		TAP_CHECK_INT(ret, -(int)st->final_error);
		TAP_CHECK_INT(txrdma_rx_peek(&rx, &p, &l),
			      -(int)st->final_error);
	}
	t0 = now_s() - t0;
	fakek_join(&k);		/* its counters are final now */
	tap_diag("  %u messages in %.2f s: %lu PADs, producer blocked %lu "
		 "times, slept %lu, %lu doorbells, %lu pauses, %lu updates",
		 next, t0, k.pads, k.stalls, k.wakeups, enters() - e0, pauses,
		 k.updates);
	TAP_CHECK(!stalled);
	if (!TAP_CHECK(!bad))
		tap_diag("  message %u is wrong", bad_seq);
	TAP_CHECK_INT(err, 0);
	TAP_CHECK_INT(bad_repeek, 0);
	TAP_CHECK_INT(next, st->n);
	TAP_CHECK(!k.lost_wakeup);
	TAP_CHECK_INT(*AW(&k, TXRDMA_RX_OFF_HEAD), k.k_tail);
	TAP_CHECK_INT(*AW(&k, TXRDMA_RX_OFF_TAIL), k.k_tail);
	TAP_CHECK_INT(rx.head, k.k_tail);
	TAP_CHECK(k.pads > 0);
	if (st->ahead_max) {
		unsigned int taken = txrdma_rx_ahead_taken(&rx);

		tap_diag("  %lu frames with a trailer, %u taken ahead of the "
			 "tail (%lu held back until read), %lu released "
			 "ahead of it; the kernel's credit rule saw the head "
			 "ahead %lu times", k.ahead_frames, taken, k.held,
			 released_ahead, k.ahead_head_seen);
		TAP_CHECK(taken > 0 && taken <= k.ahead_frames);
		TAP_CHECK(released_ahead > 0);
		/* every 16th frame with a trailer was never published
		 * before the process had read it
		 */
		TAP_CHECK(!k.held_stuck);
		TAP_CHECK(k.held > 0 && k.held <= taken);
		/* with credit words the kernel reads the head at each
		 * publication, which is past it by then
		 */
		if (!st->credit_words)
			TAP_CHECK(k.ahead_head_seen > 0);
		/* the frames above the limit came the kernel's way */
		TAP_CHECK(k.ahead_frames < st->n);
		/* the library's record of the last frame it took ahead */
		TAP_CHECK(*AW(&k, TXRDMA_RX_OFF_AHEAD_SEQ) < st->n);
		TAP_CHECK(*AW(&k, TXRDMA_RX_OFF_AHEAD_END) -
			  *AW(&k, TXRDMA_RX_OFF_AHEAD_AT) <= k.units / 2);
	}
	if (!st->sleeper) {
		/* a producer that never sleeps never asks for the doorbell */
		TAP_CHECK_INT(enters() - e0, 0);
	} else {
		/* it did sleep, and every sleep ended with a doorbell */
		if (st->pause_every)
			TAP_CHECK(pauses > 0 && k.wakeups > 0);
		TAP_CHECK(k.wakeups <= enters() - e0);
	}
	fakek_teardown(&k);
}

static void test_stream_million(void)
{
	const struct stream st = {
		.units = 4096, .n = MSGS(1000000), .max_len = 65535,
	};

	run_stream(&st);
}

static void test_stream_half_ring(void)
{
	/* the kernel's largest frame: half the ring, 1024 units */
	const struct stream st = {
		.units = 2048, .n = MSGS(300000), .max_len = 1024 * 64 - 32,
		.max_every = 97, .sleeper = true, .spin = 1,
		.pause_every = MSGS(20000),
	};

	run_stream(&st);
}

static void test_stream_wrap(void)
{
	/* tail and head cross 2^32 after 4096 units */
	const struct stream st = {
		.units = 4096, .start = 0xfffff000u, .n = MSGS(200000),
		.max_len = 65535, .sleeper = true, .spin = 64,
		.pause_every = MSGS(20000),
	};

	run_stream(&st);
}

static void test_stream_small_ring(void)
{
	/* the smallest ring, frames up to half of it: PAD after PAD */
	const struct stream st = {
		.units = TXRDMA_RX_MIN_UNITS, .start = 0xffffff00u,
		.n = MSGS(200000), .max_len = 8 * 64 - 32, .max_every = 5,
		.sleeper = true, .spin = 16, .pause_every = MSGS(20000),
	};

	run_stream(&st);
}

static void test_stream_credit_words(void)
{
	/* the kernel's rule decides the doorbell: nothing may stall */
	const struct stream st = {
		.units = 2048, .n = MSGS(300000), .max_len = 1024 * 64 - 32,
		.max_every = 97, .sleeper = true, .spin = 1,
		.pause_every = MSGS(20000), .credit_words = true,
	};

	run_stream(&st);
}

static void test_stream_credit_words_small(void)
{
	const struct stream st = {
		.units = TXRDMA_RX_MIN_UNITS, .start = 0xffffff00u,
		.n = MSGS(200000), .max_len = 8 * 64 - 32, .max_every = 5,
		.sleeper = true, .spin = 16, .pause_every = MSGS(20000),
		.credit_words = true,
	};

	run_stream(&st);
}

static void test_stream_credit_words_bounded(void)
{
	/* a declared maximum far below half the ring: updates are rare */
	const struct stream st = {
		.units = 4096, .start = 0xfffff000u, .n = MSGS(200000),
		.max_len = 1000, .sleeper = true, .spin = 4,
		.pause_every = MSGS(20000), .credit_words = true,
	};

	run_stream(&st);
}

static void test_stream_error(void)
{
	/* the error stored right after the last tail: frames come first */
	const struct stream st = {
		.units = 1024, .n = MSGS(100000), .max_len = 512 * 64 - 32,
		.final_error = ECONNRESET,
	};

	run_stream(&st);
}

/* the frame @seq with a trailer at ring index @at, not published */
static void put_ahead_at(struct fakek *k, unsigned int at, uint32_t seq,
			 uint32_t len)
{
	unsigned int tail = k->k_tail;

	k->k_tail = at;		/* the trailer names it */
	put_frame_ahead(k, unit_at(k, at), seq, len);
	k->k_tail = tail;
}

static void test_ahead(void)
{
	struct txrdma_ctx *ctx = fake_ctx();
	const void *p = NULL;
	struct txrdma_rx rx;
	struct fake_sq s;
	struct fakek k;
	__u32 l = 0;

	fake_sq_init(&s);
	fakek_setup(&k, 64, 100);
	fakek_ahead(&k, 1000);
	*AW(&k, TXRDMA_RX_OFF_AHEAD_KSEQ) = 7;	/* 7 frames published */
	rx_init_ok(&rx, &k, &s);

	/* nothing there yet (junk), then a frame of an earlier lap */
	TAP_CHECK_INT(txrdma_rx_peek(&rx, &p, &l), 0);
	put_ahead_at(&k, 100, 7 - 64, 10);
	TAP_CHECK_INT(txrdma_rx_peek(&rx, &p, &l), 0);
	/* complete, with the sequence number due, placed a lap earlier */
	put_ahead_at(&k, 100 - 64, 7, 10);
	TAP_CHECK_INT(txrdma_rx_peek(&rx, &p, &l), 0);
	/* the frame due: taken before the tail moved, byte-exact */
	put_ahead_at(&k, 100, 7, 100);		/* 140 bytes: 3 units */
	TAP_CHECK_INT(txrdma_rx_peek(&rx, &p, &l), 1);
	TAP_CHECK(p == unit_at(&k, 100) + TXRDMA_FRAME_HDR_LEN && l == 100 &&
		  !memcmp(p, pat(7), 100));
	TAP_CHECK_INT(txrdma_rx_ready(&rx), 0);
	TAP_CHECK_INT(txrdma_rx_ahead_taken(&rx), 1);
	/* peeked again: the same, counted once */
	TAP_CHECK_INT(txrdma_rx_peek(&rx, &p, &l), 1);
	TAP_CHECK_INT(txrdma_rx_ahead_taken(&rx), 1);
	txrdma_rx_release(&rx);
	TAP_CHECK_INT(*AW(&k, TXRDMA_RX_OFF_HEAD), 103);
	/* the library's record: frame 7 at 100..103 */
	TAP_CHECK_INT(*AW(&k, TXRDMA_RX_OFF_AHEAD_SEQ), 7);
	TAP_CHECK_INT(*AW(&k, TXRDMA_RX_OFF_AHEAD_AT), 100);
	TAP_CHECK_INT(*AW(&k, TXRDMA_RX_OFF_AHEAD_END), 103);
	/* a head ahead of the tail: ready says 0, peek finds nothing */
	TAP_CHECK_INT(txrdma_rx_ready(&rx), 0);
	TAP_CHECK_INT(txrdma_rx_peek(&rx, &p, &l), 0);
	/* a record that does not end at the head: nothing is known */
	*AW(&k, TXRDMA_RX_OFF_AHEAD_END) = 102;
	put_ahead_at(&k, 103, 8, 20);
	TAP_CHECK_INT(txrdma_rx_peek(&rx, &p, &l), 0);
	*AW(&k, TXRDMA_RX_OFF_AHEAD_END) = 103;

	/* wrong epoch, wrong sender, a bit flipped: not yet */
	put_ahead_at(&k, 103, 8, 20);
	unit_at(&k, 103)[24] ^= 1;		/* the epoch */
	TAP_CHECK_INT(txrdma_rx_peek(&rx, &p, &l), 0);
	put_ahead_at(&k, 103, 8, 20);
	unit_at(&k, 103)[TXRDMA_FRAME_HDR_LEN + 3] ^= 0x10;
	TAP_CHECK_INT(txrdma_rx_peek(&rx, &p, &l), 0);
	put_ahead_at(&k, 103, 8, 20);
	*AW(&k, TXRDMA_RX_OFF_AHEAD_PEER) = SRC_EP + 1;
	TAP_CHECK_INT(txrdma_rx_peek(&rx, &p, &l), 0);
	/* a connector that has not learned its peer: the kernel's turn */
	*AW(&k, TXRDMA_RX_OFF_AHEAD_PEER) = 0;
	TAP_CHECK_INT(txrdma_rx_peek(&rx, &p, &l), 0);
	*AW(&k, TXRDMA_RX_OFF_AHEAD_PEER) = SRC_EP;
	TAP_CHECK_INT(txrdma_rx_peek(&rx, &p, &l), 1);
	txrdma_rx_release(&rx);			/* head 104 */

	/*
	 * The kernel publishes what was read ahead, and one more: the
	 * published path takes over where the head is
	 */
	put_hdr(unit_at(&k, 104), TXRDMA_FRAME_MSG, 9, 50);
	memcpy(unit_at(&k, 104) + TXRDMA_FRAME_HDR_LEN, pat(9), 50);
	*AW(&k, TXRDMA_RX_OFF_AHEAD_KSEQ) = 10;
	*AW(&k, TXRDMA_RX_OFF_TAIL) = 106;
	TAP_CHECK_INT(txrdma_rx_ready(&rx), 2);
	TAP_CHECK_INT(txrdma_rx_peek(&rx, &p, &l), 1);
	TAP_CHECK(l == 50 && !memcmp(p, pat(9), 50));
	txrdma_rx_release(&rx);
	/* at the tail again: the kernel's word says what is due (10) */

	/*
	 * At 106 (unit 42 of 64) 22 units are left: a frame of 30 units
	 * lies at unit 0; one of 20 units there would have fitted, so it
	 * is not where it lies and is not taken
	 */
	put_ahead_at(&k, 128, 10, 20 * 64 - 40);
	TAP_CHECK_INT(txrdma_rx_peek(&rx, &p, &l), 0);
	put_ahead_at(&k, 128, 10, 30 * 64 - 40);
	TAP_CHECK_INT(txrdma_rx_peek(&rx, &p, &l), 0);	/* above 1000 bytes */
	*AW(&k, TXRDMA_RX_OFF_AHEAD_MAX) = 30 * 64 - 40;
	TAP_CHECK_INT(txrdma_rx_peek(&rx, &p, &l), 1);
	TAP_CHECK(p == unit_at(&k, 128) + TXRDMA_FRAME_HDR_LEN &&
		  l == 30 * 64 - 40);
	/* the skipped units were released at once, as a PAD's are */
	TAP_CHECK_INT(rx.head, 128);
	TAP_CHECK_INT(*AW(&k, TXRDMA_RX_OFF_HEAD), 128);
	TAP_CHECK_INT(txrdma_rx_peek(&rx, &p, &l), 1);
	TAP_CHECK_INT(rx.head, 128);
	txrdma_rx_release(&rx);
	TAP_CHECK_INT(*AW(&k, TXRDMA_RX_OFF_HEAD), 158);

	/*
	 * init on a ring whose head ran ahead: allowed by up to a ring
	 * (the sender may have placed that much past the tail)
	 */
	TAP_CHECK_INT(txrdma_rx_init(&rx, ctx, &s.sq, k.area, 64), 0);
	TAP_CHECK_INT(rx.head, 158);
	*AW(&k, TXRDMA_RX_OFF_HEAD) = 106 + 64;
	TAP_CHECK_INT(txrdma_rx_init(&rx, ctx, &s.sq, k.area, 64), 0);
	*AW(&k, TXRDMA_RX_OFF_HEAD) = 106 + 65;
	TAP_CHECK_INT(txrdma_rx_init(&rx, ctx, &s.sq, k.area, 64), -EINVAL);
	*AW(&k, TXRDMA_RX_OFF_AHEAD_MAX) = 0;
	*AW(&k, TXRDMA_RX_OFF_HEAD) = 158;
	TAP_CHECK_INT(txrdma_rx_init(&rx, ctx, &s.sq, k.area, 64), -EINVAL);
	*AW(&k, TXRDMA_RX_OFF_AHEAD_MAX) = 1000;
	TAP_CHECK_INT(txrdma_rx_init(&rx, ctx, &s.sq, k.area, 64), 0);

	/* a failed endpoint: its error, nothing read ahead any more */
	put_ahead_at(&k, 158, 11, 10);
	*AW(&k, TXRDMA_RX_OFF_ERROR) = ECONNRESET;
	TAP_CHECK_INT(txrdma_rx_peek(&rx, &p, &l), -ECONNRESET);
	TAP_CHECK_INT(rx.head, 158);
	fakek_teardown(&k);
}

/*
 * Reading ahead races the process's reads with the writer's by design
 * (as a NIC's DMA does): ThreadSanitizer would report every frame.
 */
#ifdef UNDER_TSAN
#define AHEAD_STREAM(st)						\
	tap_skip("under TSan: reading ahead races the writer by design, as DMA does")
#define AHEAD_STREAM_FN(fn)	AHEAD_STREAM(0)
#else
#define AHEAD_STREAM(st)	run_stream(st)
#define AHEAD_STREAM_FN(fn)	fn()
#endif

/*
 * A release ahead of the tail racing the kernel's publication of that
 * very frame (store buffering): the kernel stores its tail, fences,
 * reads the head (txrdma_rx_take_ahead()); the library stores the head
 * and reads the tail.  One of the two must see the other's store, or
 * an update that is due is never sent while the poller sleeps.
 */
#define RACE_T0		1000u
#define RACE_N		3u

struct race {
	unsigned char *area;
	unsigned long rounds;
	unsigned long go, done;		/* atomic */
	unsigned int k_saw;
};

static void *race_kernel(void *arg)
{
	struct race *r = arg;
	unsigned long i;

	for (i = 1; i <= r->rounds; i++) {
		while (__atomic_load_n(&r->go, __ATOMIC_ACQUIRE) != i)
			;
		__atomic_store_n((unsigned int *)(r->area + TXRDMA_RX_OFF_TAIL),
				 RACE_T0 + RACE_N, __ATOMIC_RELEASE);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);	/* smp_mb() */
		r->k_saw = __atomic_load_n((unsigned int *)
					   (r->area + TXRDMA_RX_OFF_HEAD),
					   __ATOMIC_RELAXED);
		__atomic_store_n(&r->done, i, __ATOMIC_RELEASE);
	}
	return NULL;
}

static void test_release_races_publication(void)
{
	struct race r = { .rounds = 2000000 };
	unsigned long i, lost = 0, rang_n = 0, saw_n = 0;
	struct txrdma_rx rx;
	struct fake_sq s;
	struct fakek k;
	pthread_t t;

	fake_sq_init(&s);
	fakek_setup(&k, 64, RACE_T0);
	fakek_ahead(&k, 1000);
	/* max_units 32: an update is due whenever everything is released */
	fakek_credit_words(&k, 32);
	rx_init_ok(&rx, &k, &s);
	r.area = k.area;
	__atomic_fetch_or(sq_flags(&s), TXRDMA_SQ_F_NEED_WAKEUP,
			  __ATOMIC_RELAXED);
	if (pthread_create(&t, NULL, race_kernel, &r)) {
		printf("Bail out! pthread_create\n");
		exit(1);
	}
	for (i = 1; i <= r.rounds; i++) {
		unsigned long e0 = enters();
		bool rang, saw;

		/* a frame of RACE_N units at the tail, taken ahead */
		*AW(&k, TXRDMA_RX_OFF_TAIL) = RACE_T0;
		*AW(&k, TXRDMA_RX_OFF_HEAD) = RACE_T0;
		*AW(&k, TXRDMA_RX_OFF_REPORTED) = RACE_T0;
		rx.head = RACE_T0;
		rx.cur_units = RACE_N;
		__atomic_store_n(&r.go, i, __ATOMIC_RELEASE);
		txrdma_rx_release(&rx);
		while (__atomic_load_n(&r.done, __ATOMIC_ACQUIRE) != i)
			;
		rang = enters() != e0;
		saw = r.k_saw == RACE_T0 + RACE_N;
		rang_n += rang;
		saw_n += saw;
		if (!rang && !saw)
			lost++;
	}
	pthread_join(t, NULL);
	tap_diag("  %lu rounds: the process rang %lu times, the kernel saw the "
		 "head %lu times, neither %lu", r.rounds, rang_n, saw_n, lost);
	TAP_CHECK_INT(lost, 0);
	TAP_CHECK(rang_n > 0 || saw_n > 0);
	fakek_teardown(&k);
}

static void test_release_race(void)
{
	AHEAD_STREAM_FN(test_release_races_publication);
}

static void test_stream_ahead(void)
{
	const struct stream st = {
		.units = 4096, .n = 300000, .max_len = 8000,
		.ahead_max = TXRDMA_RX_AHEAD_MAX_PAYLOAD,
	};

	AHEAD_STREAM(&st);
}

static void test_stream_ahead_small(void)
{
	/* 16 units, frames up to half of it: PADs, skips, a sleeping
	 * sender woken by the update rule on a head that ran ahead
	 */
	const struct stream st = {
		.units = 16, .n = 200000, .max_len = 8 * 64 - 32,
		.max_every = 7, .sleeper = true, .spin = 1,
		.credit_words = true, .ahead_max = 8 * 64 - 32 - 8,
	};

	AHEAD_STREAM(&st);
}

static void test_stream_ahead_wrap(void)
{
	const struct stream st = {
		.units = 256, .start = 0xfffff000u, .n = 200000,
		.max_len = 2000, .sleeper = true, .spin = 4,
		.credit_words = true, .ahead_max = 1000,
	};

	AHEAD_STREAM(&st);
}

static const struct tap_test tests[] = {
	TAP_TEST(test_area_size, "rx_area_size: header + units, 0 for a size the kernel refuses"),
	TAP_TEST(test_init, "rx_init: words, units and head from the area; bad arguments give -EINVAL"),
	TAP_TEST(test_basic, "peek/hdr/release: payload, length, header, in order; nothing before the tail"),
	TAP_TEST(test_pad, "a PAD is skipped and released at once, the frame after it comes from unit 0"),
	TAP_TEST(test_error, "the endpoint's error comes after every frame published, and stays"),
	TAP_TEST(test_bad_frames, "a frame that cannot be the kernel's gives -EBADMSG, nothing changes"),
	TAP_TEST(test_doorbell, "release rings the doorbell only if the poller sleeps: each quarter ring, and when empty"),
	TAP_TEST(test_stream_million, "1,000,000 messages (a tenth under TSan) of 0..65535 bytes (log-uniform) through 4096 units, producer thread, byte-exact in order"),
	TAP_TEST(test_stream_half_ring, "300,000 messages through 2048 units, frames up to half the ring, sleeping producer woken by the doorbell"),
	TAP_TEST(test_stream_wrap, "200,000 messages from indices 0xfffff000 (across 2^32), sleeping producer"),
	TAP_TEST(test_stream_small_ring, "200,000 messages through the smallest ring (16 units), sleeping producer"),
	TAP_TEST(test_stream_credit_words, "300,000 messages through 2048 units, frames up to half the ring: the doorbell by the kernel's update rule, no stall"),
	TAP_TEST(test_stream_credit_words_small, "200,000 messages through 16 units by the update rule, no stall"),
	TAP_TEST(test_stream_credit_words_bounded, "200,000 messages of at most 1000 bytes through 4096 units by the update rule, no stall"),
	TAP_TEST(test_doorbell_rule, "with credit words: release rings only when an update is due (a quarter unreported, or the sender may wait)"),
	TAP_TEST(test_doorbell_session, "a session's ring (TXRDMA_RX_F_DUE_EMPTY): every release that empties it rings a sleeping poller"),
	TAP_TEST(test_release_looks, "release looks at the rule only where it can be due: a doorbell exactly when due, random steps"),
	TAP_TEST(test_ahead, "reading ahead: the frame due taken before the tail, once; stale, damaged, foreign frames not; a skip to unit 0 only where the rule puts it; errors first"),
	TAP_TEST(test_release_race, "a release ahead of the tail racing the kernel's publication of that frame: the kernel takes it or the process rings (2,000,000 rounds)"),
	TAP_TEST(test_stream_ahead, "reading ahead: 300,000 messages of 0..8000 bytes through 4096 units, those up to 4096 written in random 64-byte pieces and taken before the tail, byte-exact in order"),
	TAP_TEST(test_stream_ahead_small, "reading ahead through 16 units: skips taken at unit 0, sleeping sender woken by the update rule"),
	TAP_TEST(test_stream_ahead_wrap, "reading ahead from indices 0xfffff000 (across 2^32), sleeping sender"),
	TAP_TEST(test_stream_error, "100,000 messages, then the endpoint's error: every message first"),
};

int main(void)
{
	int ret;

	pattern_init();
	ret = TAP_MAIN(tests);
	fake_ctx_close();
	return ret;
}
