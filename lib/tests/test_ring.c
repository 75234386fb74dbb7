// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Host tests of libtxrdma's data-path rings (<txrdma_ring.h>).
 *
 * There is no kernel here: a fake one lays both rings out in one buffer
 * by its own offsets - deliberately not in the order the offsets structs
 * declare their fields, with padding between, so that a layout compiled
 * into the library instead of the offsets would read the wrong words -
 * and, in the threaded tests, runs as a consumer pthread that does what
 * the kernel's poller will: acquire-load the SQ tail, read the SQEs,
 * release-store the SQ head, write one CQE per SQE (user_data copied,
 * res = len, or -EINVAL/-EBADMSG for an SQE it finds wrong), release-store
 * the CQ tail, and, when idle, set TXRDMA_SQ_F_NEED_WAKEUP and sleep
 * until the test rings a doorbell.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <txrdma.h>
#include "tap.h"

/* ---- the fake kernel's layout ---------------------------------------- */

#define SQ_MAX		64
#define CQ_MAX		128
#define MAP_LEN		0x4000

/*
 * Offsets (bytes from the start of the mapping).  Not in declaration
 * order, not packed, SQ and CQ words interleaved.
 */
#define SQO_ENTRIES	0x010
#define CQO_ENTRIES	0x014
#define SQO_MASK	0x02c
#define SQO_FLAGS	0x040
#define SQO_DROPPED	0x104
#define SQO_TAIL	0x180
#define SQO_HEAD	0x200
#define CQO_HEAD	0x280
#define CQO_TAIL	0x2c0
#define CQO_OVERFLOW	0x308
#define CQO_MASK	0x340
#define SQO_SQES	0x1000		/* 64 x 64 B, to 0x2000 */
#define CQO_CQES	0x2800		/* 128 x 32 B, to 0x3800 */
#define SQ_END		(SQO_SQES + SQ_MAX * 64)
#define CQ_END		(CQO_CQES + CQ_MAX * 32)

#define TEST_EP		7
#define DEADLINE_S	10		/* no progress for this long: failed */

struct fake {
	unsigned char *buf;
	struct txrdma_sq_offsets so;
	struct txrdma_cq_offsets co;
	unsigned int sq_entries, cq_entries;

	/* the kernel's private copies of the indices it owns */
	unsigned int k_sq_head, k_cq_tail;

	/* the consumer thread */
	pthread_t thr;
	bool running;
	bool sleep_when_idle;	/* set NEED_WAKEUP and sleep when idle */
	bool check_pattern;	/* SQE contents must follow sqe_pattern() */
	unsigned int spin;	/* idle rounds before sleeping */
	sem_t doorbell;
	int stop;		/* atomic */
	unsigned int asleep;	/* atomic: in sem_wait() */
	unsigned long wakeups;	/* atomic */
	unsigned long consumed;	/* atomic */
};

static unsigned int *W(struct fake *f, unsigned int off)
{
	return (unsigned int *)(f->buf + off);
}

static struct txrdma_sqe *fake_sqe(struct fake *f, unsigned int idx)
{
	return (struct txrdma_sqe *)(f->buf + f->so.sqes) +
	       (idx & (f->sq_entries - 1));
}

static struct txrdma_cqe *fake_cqe(struct fake *f, unsigned int idx)
{
	return (struct txrdma_cqe *)(f->buf + f->co.cqes) +
	       (idx & (f->cq_entries - 1));
}

/* lay both rings out, indices at @sq_start and @cq_start, junk elsewhere */
static void fake_setup(struct fake *f, unsigned int sq_entries,
		       unsigned int cq_entries, unsigned int sq_start,
		       unsigned int cq_start)
{
	memset(f, 0, sizeof(*f));
	f->buf = mmap(NULL, MAP_LEN, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (f->buf == MAP_FAILED) {
		printf("Bail out! mmap: %s\n", strerror(errno));
		exit(1);
	}
	memset(f->buf, 0xa5, MAP_LEN);	/* junk: nothing may rely on zeroes */
	f->sq_entries = sq_entries;
	f->cq_entries = cq_entries;
	f->so = (struct txrdma_sq_offsets){
		.head = SQO_HEAD, .tail = SQO_TAIL, .ring_mask = SQO_MASK,
		.ring_entries = SQO_ENTRIES, .flags = SQO_FLAGS,
		.dropped = SQO_DROPPED, .sqes = SQO_SQES,
		.resv0 = 0xdead, .resv = { 1, 2 },	/* ignored */
	};
	f->co = (struct txrdma_cq_offsets){
		.head = CQO_HEAD, .tail = CQO_TAIL, .ring_mask = CQO_MASK,
		.ring_entries = CQO_ENTRIES, .overflow = CQO_OVERFLOW,
		.cqes = CQO_CQES,
	};
	*W(f, SQO_ENTRIES) = sq_entries;
	*W(f, SQO_MASK) = sq_entries - 1;
	*W(f, SQO_HEAD) = sq_start;
	*W(f, SQO_TAIL) = sq_start;
	*W(f, SQO_FLAGS) = 0;
	*W(f, SQO_DROPPED) = 0;
	*W(f, CQO_ENTRIES) = cq_entries;
	*W(f, CQO_MASK) = cq_entries - 1;
	*W(f, CQO_HEAD) = cq_start;
	*W(f, CQO_TAIL) = cq_start;
	*W(f, CQO_OVERFLOW) = 0;
	f->k_sq_head = sq_start;
	f->k_cq_tail = cq_start;
	sem_init(&f->doorbell, 0, 0);
}

/* stop and join the consumer thread, if running; the rings stay */
static void fake_stop(struct fake *f)
{
	if (f->running) {
		__atomic_store_n(&f->stop, 1, __ATOMIC_SEQ_CST);
		sem_post(&f->doorbell);
		pthread_join(f->thr, NULL);
		f->running = false;
	}
}

static void fake_teardown(struct fake *f)
{
	fake_stop(f);
	sem_destroy(&f->doorbell);
	munmap(f->buf, MAP_LEN);
}

/* what the threaded tests put in SQE number @i */
static unsigned int pat_len(__u64 i)	{ return (unsigned int)(i % 1000) + 1; }
static unsigned int pat_region(__u64 i)	{ return 1 + (unsigned int)(i & 3); }
static __u64 pat_off(__u64 i)		{ return i * 8; }

static bool sqe_resv_zero(const struct txrdma_sqe *s)
{
	return !s->resv1 && !s->resv2[0] && !s->resv2[1];
}

/*
 * One pass of the kernel's poller: consume up to @max SQEs, as many as
 * the CQ has room for, one CQE each.  Returns how many.
 */
static unsigned int fake_kernel_step(struct fake *f, unsigned int max)
{
	unsigned int tail = __atomic_load_n(W(f, SQO_TAIL), __ATOMIC_ACQUIRE);
	unsigned int cq_head = __atomic_load_n(W(f, CQO_HEAD),
					       __ATOMIC_ACQUIRE);
	unsigned int avail = tail - f->k_sq_head;
	unsigned int room = f->cq_entries - (f->k_cq_tail - cq_head);
	unsigned int n = avail, i;

	if (avail > f->sq_entries) {	/* impossible tail: the kernel's rule */
		__atomic_fetch_or(W(f, SQO_FLAGS), TXRDMA_SQ_F_GARBAGE,
				  __ATOMIC_RELAXED);
		n = f->sq_entries;
	}
	if (n > room)
		n = room;
	if (n > max)
		n = max;
	for (i = 0; i < n; i++) {
		const struct txrdma_sqe *s = fake_sqe(f, f->k_sq_head + i);
		struct txrdma_cqe *c = fake_cqe(f, f->k_cq_tail + i);
		int res = (int)s->len;

		if (!sqe_resv_zero(s) || (s->flags & ~TXRDMA_SQE_F_ALL) ||
		    s->prio >= TXRDMA_PRIO_CLASSES || s->opcode >= TXRDMA_OP_LAST)
			res = -EINVAL;
		else if (f->check_pattern &&
			 (s->opcode != TXRDMA_OP_SEND || s->ep != TEST_EP ||
			  s->len != pat_len(s->user_data) ||
			  s->local_region != pat_region(s->user_data) ||
			  s->local_off != pat_off(s->user_data) ||
			  s->remote_region || s->remote_off))
			res = -EBADMSG;
		c->user_data = s->user_data;
		c->res = res;
		c->flags = 0;
		c->ep = s->ep;
		c->opcode = s->opcode;
		memset(c->resv0, 0, sizeof(c->resv0));
		c->resv1 = 0;
	}
	if (!n)
		return 0;
	/* the SQEs are read: give them back; the CQEs are written: publish */
	f->k_sq_head += n;
	__atomic_store_n(W(f, SQO_HEAD), f->k_sq_head, __ATOMIC_RELEASE);
	f->k_cq_tail += n;
	__atomic_store_n(W(f, CQO_TAIL), f->k_cq_tail, __ATOMIC_RELEASE);
	__atomic_fetch_add(&f->consumed, n, __ATOMIC_RELAXED);
	return n;
}

/* the kernel posts one CQE by itself (e.g. a received message) */
static void fake_post_cqe(struct fake *f, __u64 user_data, int res)
{
	struct txrdma_cqe *c = fake_cqe(f, f->k_cq_tail);

	memset(c, 0, sizeof(*c));
	c->user_data = user_data;
	c->res = res;
	c->flags = TXRDMA_CQE_F_RECV;
	c->ep = TEST_EP;
	f->k_cq_tail++;
	__atomic_store_n(W(f, CQO_TAIL), f->k_cq_tail, __ATOMIC_RELEASE);
}

static void *fake_kernel(void *arg)
{
	struct fake *f = arg;
	unsigned int idle = 0;

	while (!__atomic_load_n(&f->stop, __ATOMIC_ACQUIRE)) {
		if (fake_kernel_step(f, UINT_MAX)) {
			idle = 0;
			continue;
		}
		if (!f->sleep_when_idle || ++idle < f->spin) {
			sched_yield();
			continue;
		}
		/*
		 * Going to sleep, the SQPOLL way: flag, full fence, look at
		 * the tail once more.  Either the process sees the flag
		 * after its flush, or we see its tail here.
		 */
		__atomic_fetch_or(W(f, SQO_FLAGS), TXRDMA_SQ_F_NEED_WAKEUP,
				  __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		if (__atomic_load_n(W(f, SQO_TAIL), __ATOMIC_RELAXED) ==
		    f->k_sq_head && !__atomic_load_n(&f->stop, __ATOMIC_ACQUIRE)) {
			__atomic_store_n(&f->asleep, 1, __ATOMIC_SEQ_CST);
			while (sem_wait(&f->doorbell) && errno == EINTR)
				;
			__atomic_store_n(&f->asleep, 0, __ATOMIC_SEQ_CST);
			__atomic_fetch_add(&f->wakeups, 1, __ATOMIC_RELAXED);
		}
		__atomic_fetch_and(W(f, SQO_FLAGS), ~TXRDMA_SQ_F_NEED_WAKEUP,
				   __ATOMIC_RELAXED);
		idle = 0;
	}
	return NULL;
}

static void fake_start(struct fake *f)
{
	if (pthread_create(&f->thr, NULL, fake_kernel, f)) {
		printf("Bail out! pthread_create\n");
		exit(1);
	}
	f->running = true;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* wait until *@p & @mask is nonzero (or == 0 with @clear); false on timeout */
static bool wait_word(const unsigned int *p, unsigned int mask, bool clear,
		      double secs)
{
	double end = now_s() + secs;

	for (;;) {
		unsigned int v = __atomic_load_n(p, __ATOMIC_ACQUIRE) & mask;

		if (clear ? !v : !!v)
			return true;
		if (now_s() > end)
			return false;
		sched_yield();
	}
}

static bool wait_asleep(struct fake *f, double secs)
{
	return wait_word(&f->asleep, 1, false, secs);
}

static void init_rings(struct fake *f, struct txrdma_sq *sq,
		       struct txrdma_cq *cq)
{
	int a = txrdma_sq_init(sq, f->buf, MAP_LEN, &f->so);
	int b = txrdma_cq_init(cq, f->buf, MAP_LEN, &f->co);

	if (!TAP_CHECK_INT(a, 0) || !TAP_CHECK_INT(b, 0)) {
		printf("Bail out! ring init failed\n");
		exit(1);
	}
}

struct run_result {
	unsigned long completed;	/* in order, with the right result */
	unsigned long doorbells;
	unsigned long needs_wakeup_seen;
	bool stalled;			/* no progress for DEADLINE_S */
	bool bad_cqe;
	__u64 bad_user_data, want_user_data;
	int bad_res;
};

/*
 * The process: SENDs 0..n-1 in bursts (of at most @burst, varying when
 * @vary), flush, ring the doorbell when asked, reap CQEs in batches and
 * check each is the next one in order with res == len.
 */
static struct run_result run_messages(struct fake *f, struct txrdma_sq *sq,
				      struct txrdma_cq *cq, unsigned long n,
				      unsigned int burst, bool vary)
{
	struct run_result r = { 0 };
	unsigned long next_sub = 0, next_done = 0;
	unsigned int seed = 12345;
	double last = now_s();

	while (next_done < n) {
		struct txrdma_cqe *cqes[32];
		unsigned int want = burst, got, i, progress = 0;
		struct txrdma_sqe *sqe;

		if (vary) {
			seed = seed * 1103515245u + 12345u;
			want = 1 + (seed >> 16) % burst;
		}
		for (i = 0; i < want && next_sub < n; i++) {
			sqe = txrdma_get_sqe(sq);
			if (!sqe)
				break;
			txrdma_prep_send(sqe, TEST_EP, pat_region(next_sub),
					 pat_off(next_sub), pat_len(next_sub),
					 next_sub);
			next_sub++;
		}
		if (txrdma_sq_flush(sq)) {
			progress = 1;
			if (txrdma_sq_needs_wakeup(sq)) {
				r.needs_wakeup_seen++;
				r.doorbells++;
				sem_post(&f->doorbell);
			}
		}
		got = txrdma_peek_batch_cqe(cq, cqes, 32);
		for (i = 0; i < got; i++) {
			const struct txrdma_cqe *c = cqes[i];

			if (c->user_data != next_done ||
			    c->res != (int)pat_len(next_done) ||
			    c->ep != TEST_EP || c->opcode != TXRDMA_OP_SEND ||
			    c->flags) {
				r.bad_cqe = true;
				r.bad_user_data = c->user_data;
				r.want_user_data = next_done;
				r.bad_res = c->res;
				txrdma_cq_advance(cq, i);
				return r;
			}
			next_done++;
			r.completed++;
		}
		txrdma_cq_advance(cq, got);
		if (got || progress) {
			last = now_s();
		} else {
			if (now_s() - last > DEADLINE_S) {
				r.stalled = true;
				return r;
			}
			sched_yield();
		}
	}
	return r;
}

static void check_run(const struct run_result *r, unsigned long n)
{
	TAP_CHECK(!r->stalled);
	if (!TAP_CHECK(!r->bad_cqe))
		tap_diag("  CQE user_data %llu res %d, want user_data %llu",
			 (unsigned long long)r->bad_user_data, r->bad_res,
			 (unsigned long long)r->want_user_data);
	TAP_CHECK_INT(r->completed, n);
}

/* ---- init ----------------------------------------------------------- */

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

/* txrdma_sq_init() must refuse, and leave the struct alone */
static void sq_bad(struct fake *f, const struct txrdma_sq_offsets *o,
		   size_t len, const char *what)
{
	struct txrdma_sq sq;
	int ret;

	memset(&sq, SENTINEL, sizeof(sq));
	ret = txrdma_sq_init(&sq, f->buf, len, o);
	if (!TAP_CHECK_INT(ret, -EINVAL) || !TAP_CHECK(untouched(&sq, sizeof(sq))))
		tap_diag("  case: %s", what);
}

static void cq_bad(struct fake *f, const struct txrdma_cq_offsets *o,
		   size_t len, const char *what)
{
	struct txrdma_cq cq;
	int ret;

	memset(&cq, SENTINEL, sizeof(cq));
	ret = txrdma_cq_init(&cq, f->buf, len, o);
	if (!TAP_CHECK_INT(ret, -EINVAL) || !TAP_CHECK(untouched(&cq, sizeof(cq))))
		tap_diag("  case: %s", what);
}

static void test_sq_init_ok(void)
{
	struct fake f;
	struct txrdma_sq sq;

	fake_setup(&f, SQ_MAX, CQ_MAX, 1000, 0);
	*W(&f, SQO_TAIL) = 1040;	/* 40 published, not consumed */
	memset(&sq, SENTINEL, sizeof(sq));
	/* exactly the SQ's extent: the array ends at the end of the map */
	TAP_CHECK_INT(txrdma_sq_init(&sq, f.buf, SQ_END, &f.so), 0);
	TAP_CHECK(sq.khead == W(&f, SQO_HEAD));
	TAP_CHECK(sq.ktail == W(&f, SQO_TAIL));
	TAP_CHECK(sq.kflags == W(&f, SQO_FLAGS));
	TAP_CHECK(sq.kdropped == W(&f, SQO_DROPPED));
	TAP_CHECK(sq.sqes == (struct txrdma_sqe *)(f.buf + SQO_SQES));
	TAP_CHECK_INT(sq.ring_entries, SQ_MAX);
	TAP_CHECK_INT(sq.ring_mask, SQ_MAX - 1);
	TAP_CHECK_INT(sq.sqe_head, 1040);
	TAP_CHECK_INT(sq.sqe_tail, 1040);
	TAP_CHECK_INT(txrdma_sq_space_left(&sq), SQ_MAX - 40);
	TAP_CHECK_INT(txrdma_sq_ready(&sq), 40);
	/* a full ring is a consistent state */
	*W(&f, SQO_TAIL) = 1000 + SQ_MAX;
	TAP_CHECK_INT(txrdma_sq_init(&sq, f.buf, MAP_LEN, &f.so), 0);
	TAP_CHECK_INT(txrdma_sq_space_left(&sq), 0);
	TAP_CHECK(txrdma_get_sqe(&sq) == NULL);
	/* a smaller power of two */
	*W(&f, SQO_ENTRIES) = 1;
	*W(&f, SQO_MASK) = 0;
	*W(&f, SQO_TAIL) = 1000;
	TAP_CHECK_INT(txrdma_sq_init(&sq, f.buf, MAP_LEN, &f.so), 0);
	TAP_CHECK_INT(sq.ring_entries, 1);
	TAP_CHECK_INT(txrdma_sq_space_left(&sq), 1);
	fake_teardown(&f);
}

static void test_sq_init_bad(void)
{
	struct txrdma_sq_offsets o;
	struct txrdma_sq sq;
	struct fake f;

	fake_setup(&f, SQ_MAX, CQ_MAX, 0, 0);

	memset(&sq, SENTINEL, sizeof(sq));
	TAP_CHECK_INT(txrdma_sq_init(NULL, f.buf, MAP_LEN, &f.so), -EINVAL);
	TAP_CHECK_INT(txrdma_sq_init(&sq, NULL, MAP_LEN, &f.so), -EINVAL);
	TAP_CHECK_INT(txrdma_sq_init(&sq, f.buf, MAP_LEN, NULL), -EINVAL);
	TAP_CHECK(untouched(&sq, sizeof(sq)));

	/* the mapping */
	sq_bad(&f, &f.so, 0, "empty mapping");
	sq_bad(&f, &f.so, SQO_HEAD, "head just past the end");
	sq_bad(&f, &f.so, SQ_END - 1, "array one byte past the end");
	sq_bad(&f, &f.so, SIZE_MAX, "mapping wraps the address space");

	/* each word out of bounds, straddling the end, misaligned */
#define SQ_WORD_CASES(field)						\
	do {								\
		o = f.so; o.field = MAP_LEN;				\
		sq_bad(&f, &o, MAP_LEN, #field " at map_len");		\
		o = f.so; o.field = MAP_LEN - 2;			\
		sq_bad(&f, &o, MAP_LEN, #field " straddles the end");	\
		o = f.so; o.field = 0xfffffffc;				\
		sq_bad(&f, &o, MAP_LEN, #field " at 4 GiB - 4");	\
		o = f.so; o.field = f.so.field + 2;			\
		sq_bad(&f, &o, MAP_LEN, #field " misaligned");		\
	} while (0)
	SQ_WORD_CASES(head);
	SQ_WORD_CASES(tail);
	SQ_WORD_CASES(flags);
	SQ_WORD_CASES(dropped);
	SQ_WORD_CASES(ring_mask);
	SQ_WORD_CASES(ring_entries);
#undef SQ_WORD_CASES

	/* words on top of each other */
	o = f.so; o.tail = o.head;
	sq_bad(&f, &o, MAP_LEN, "tail == head");
	o = f.so; o.flags = o.tail;
	sq_bad(&f, &o, MAP_LEN, "flags == tail");
	o = f.so; o.dropped = o.ring_entries;
	sq_bad(&f, &o, MAP_LEN, "dropped == ring_entries");

	/* the array */
	o = f.so; o.sqes = MAP_LEN - SQ_MAX * 64 + 64;
	sq_bad(&f, &o, MAP_LEN, "sqes array overruns the map by one entry");
	o = f.so; o.sqes = 0xffffffc0;
	sq_bad(&f, &o, MAP_LEN, "sqes array at 4 GiB");
	o = f.so; o.sqes = SQO_SQES + 4;
	sq_bad(&f, &o, MAP_LEN, "sqes array misaligned");
	o = f.so; o.sqes = SQO_TAIL - 64;
	sq_bad(&f, &o, MAP_LEN, "sqes array covers tail and head");
	o = f.so; o.head = SQO_SQES + 64 * 10;
	sq_bad(&f, &o, MAP_LEN, "head inside the sqes array");

	/* entries and mask */
	*W(&f, SQO_ENTRIES) = 48; *W(&f, SQO_MASK) = 47;
	sq_bad(&f, &f.so, MAP_LEN, "48 entries: not a power of two");
	*W(&f, SQO_ENTRIES) = 0; *W(&f, SQO_MASK) = 0xffffffff;
	sq_bad(&f, &f.so, MAP_LEN, "0 entries");
	*W(&f, SQO_ENTRIES) = 64; *W(&f, SQO_MASK) = 127;
	sq_bad(&f, &f.so, MAP_LEN, "mask 127 for 64 entries");
	*W(&f, SQO_ENTRIES) = 64; *W(&f, SQO_MASK) = 64;
	sq_bad(&f, &f.so, MAP_LEN, "mask 64 for 64 entries");
	*W(&f, SQO_ENTRIES) = 64; *W(&f, SQO_MASK) = 31;
	sq_bad(&f, &f.so, MAP_LEN, "mask 31 for 64 entries");
	*W(&f, SQO_ENTRIES) = 128; *W(&f, SQO_MASK) = 127;
	sq_bad(&f, &f.so, SQ_END, "128 entries: the array no longer fits");
	*W(&f, SQO_ENTRIES) = 0x80000000u; *W(&f, SQO_MASK) = 0x7fffffffu;
	sq_bad(&f, &f.so, MAP_LEN, "2^31 entries");
	*W(&f, SQO_ENTRIES) = 64; *W(&f, SQO_MASK) = 63;

	/* indices no kernel could have left */
	*W(&f, SQO_HEAD) = 100; *W(&f, SQO_TAIL) = 100 + 65;
	sq_bad(&f, &f.so, MAP_LEN, "tail 65 ahead of head");
	*W(&f, SQO_HEAD) = 100; *W(&f, SQO_TAIL) = 99;
	sq_bad(&f, &f.so, MAP_LEN, "tail behind head");
	*W(&f, SQO_HEAD) = 0; *W(&f, SQO_TAIL) = 0;

	/* and after all that, the good offsets still work */
	TAP_CHECK_INT(txrdma_sq_init(&sq, f.buf, MAP_LEN, &f.so), 0);
	fake_teardown(&f);
}

static void test_cq_init(void)
{
	struct txrdma_cq_offsets o;
	struct txrdma_cq cq;
	struct fake f;

	fake_setup(&f, SQ_MAX, CQ_MAX, 0, 0xfffffff0u);
	*W(&f, CQO_TAIL) = 0xfffffff0u + 20;	/* 20 CQEs across the wrap */
	memset(&cq, SENTINEL, sizeof(cq));
	TAP_CHECK_INT(txrdma_cq_init(&cq, f.buf, CQ_END, &f.co), 0);
	TAP_CHECK(cq.khead == W(&f, CQO_HEAD));
	TAP_CHECK(cq.ktail == W(&f, CQO_TAIL));
	TAP_CHECK(cq.koverflow == W(&f, CQO_OVERFLOW));
	TAP_CHECK(cq.cqes == (struct txrdma_cqe *)(f.buf + CQO_CQES));
	TAP_CHECK_INT(cq.ring_entries, CQ_MAX);
	TAP_CHECK_INT(cq.ring_mask, CQ_MAX - 1);
	TAP_CHECK_INT(cq.cqe_head, 0xfffffff0u);
	TAP_CHECK_INT(txrdma_cq_ready(&cq), 20);
	*W(&f, CQO_TAIL) = 0xfffffff0u;

	memset(&cq, SENTINEL, sizeof(cq));
	TAP_CHECK_INT(txrdma_cq_init(NULL, f.buf, MAP_LEN, &f.co), -EINVAL);
	TAP_CHECK_INT(txrdma_cq_init(&cq, NULL, MAP_LEN, &f.co), -EINVAL);
	TAP_CHECK_INT(txrdma_cq_init(&cq, f.buf, MAP_LEN, NULL), -EINVAL);
	TAP_CHECK(untouched(&cq, sizeof(cq)));

	cq_bad(&f, &f.co, CQ_END - 1, "array one byte past the end");
	cq_bad(&f, &f.co, CQO_OVERFLOW + 2, "the map ends inside overflow");
#define CQ_WORD_CASES(field)						\
	do {								\
		o = f.co; o.field = MAP_LEN;				\
		cq_bad(&f, &o, MAP_LEN, #field " at map_len");		\
		o = f.co; o.field = 0xfffffffe;				\
		cq_bad(&f, &o, MAP_LEN, #field " at 4 GiB - 2");	\
		o = f.co; o.field = f.co.field + 1;			\
		cq_bad(&f, &o, MAP_LEN, #field " misaligned");		\
	} while (0)
	CQ_WORD_CASES(head);
	CQ_WORD_CASES(tail);
	CQ_WORD_CASES(overflow);
	CQ_WORD_CASES(ring_mask);
	CQ_WORD_CASES(ring_entries);
#undef CQ_WORD_CASES
	o = f.co; o.head = o.tail;
	cq_bad(&f, &o, MAP_LEN, "head == tail");
	o = f.co; o.cqes = CQO_CQES + 8;	/* 8-aligned is fine ... */
	TAP_CHECK_INT(txrdma_cq_init(&cq, f.buf, MAP_LEN, &o), 0);
	o = f.co; o.cqes = CQO_CQES + 4;	/* ... 4 is not */
	cq_bad(&f, &o, MAP_LEN, "cqes array misaligned");
	o = f.co; o.cqes = CQO_HEAD;
	cq_bad(&f, &o, MAP_LEN, "cqes array covers the words");
	o = f.co; o.cqes = MAP_LEN - CQ_MAX * 32 + 32;
	cq_bad(&f, &o, MAP_LEN, "cqes array overruns the map by one entry");

	*W(&f, CQO_ENTRIES) = 96; *W(&f, CQO_MASK) = 95;
	cq_bad(&f, &f.co, MAP_LEN, "96 entries: not a power of two");
	*W(&f, CQO_ENTRIES) = 128; *W(&f, CQO_MASK) = 255;
	cq_bad(&f, &f.co, MAP_LEN, "mask 255 for 128 entries");
	*W(&f, CQO_ENTRIES) = 256; *W(&f, CQO_MASK) = 255;
	cq_bad(&f, &f.co, CQ_END, "256 entries: the array no longer fits");
	*W(&f, CQO_ENTRIES) = 128; *W(&f, CQO_MASK) = 127;
	*W(&f, CQO_TAIL) = 0xfffffff0u + 129;
	cq_bad(&f, &f.co, MAP_LEN, "tail 129 ahead of head");
	*W(&f, CQO_TAIL) = 0xfffffff0u;
	TAP_CHECK_INT(txrdma_cq_init(&cq, f.buf, MAP_LEN, &f.co), 0);
	fake_teardown(&f);
}

/*
 * The layout txrdma.ko hands out today (kmod/txrdma_rings.c: words in the
 * first page, SQ array at 4096, CQ array after it, page-aligned), for a
 * setup of 128 SQ / 256 CQ entries.  Copied here only to check that init
 * accepts it; the library itself knows no layout.
 */
static void test_init_kernel_layout(void)
{
	const struct txrdma_sq_offsets so = {
		.head = 0, .tail = 64, .flags = 128, .dropped = 132,
		.ring_mask = 320, .ring_entries = 324, .sqes = 4096,
	};
	const struct txrdma_cq_offsets co = {
		.head = 192, .tail = 256, .overflow = 260, .ring_mask = 328,
		.ring_entries = 332, .cqes = 4096 + 128 * 64,
	};
	const size_t len = 4096 + 128 * 64 + 256 * 32;
	struct txrdma_sq sq;
	struct txrdma_cq cq;
	unsigned char *m = mmap(NULL, len, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (!TAP_CHECK(m != MAP_FAILED))
		return;
	*(unsigned int *)(m + 320) = 127;
	*(unsigned int *)(m + 324) = 128;
	*(unsigned int *)(m + 328) = 255;
	*(unsigned int *)(m + 332) = 256;
	TAP_CHECK_INT(txrdma_sq_init(&sq, m, len, &so), 0);
	TAP_CHECK_INT(txrdma_cq_init(&cq, m, len, &co), 0);
	TAP_CHECK_INT(sq.ring_entries, 128);
	TAP_CHECK_INT(cq.ring_entries, 256);
	TAP_CHECK(cq.cqes == (struct txrdma_cqe *)(m + 4096 + 128 * 64));
	TAP_CHECK_INT(txrdma_sq_init(&sq, m, len - 1, &so), 0);
	TAP_CHECK_INT(txrdma_cq_init(&cq, m, len - 1, &co), -EINVAL);
	munmap(m, len);
}

/* ---- submission, single-threaded ----------------------------------- */

static bool all_zero(const void *p, size_t len)
{
	const unsigned char *c = p;
	size_t i;

	for (i = 0; i < len; i++)
		if (c[i])
			return false;
	return true;
}

static void test_get_sqe_full_and_zeroed(void)
{
	struct txrdma_sqe *sqe, *first = NULL;
	struct txrdma_cqe *cqe;
	struct txrdma_sq sq;
	struct txrdma_cq cq;
	unsigned int i, bad_ptr = 0, bad_zero = 0;
	struct fake f;

	fake_setup(&f, SQ_MAX, CQ_MAX, 0, 0);
	init_rings(&f, &sq, &cq);
	for (i = 0; i < SQ_MAX; i++) {
		sqe = txrdma_get_sqe(&sq);
		if (!TAP_CHECK(sqe != NULL))
			break;
		if (sqe != fake_sqe(&f, i))
			bad_ptr++;
		if (!all_zero(sqe, sizeof(*sqe)))	/* was 0xa5 junk */
			bad_zero++;
		/* dirty it again, reserved fields too */
		txrdma_prep_write(sqe, TEST_EP, 1, 2, 3, 4, 5, i);
		memset(sqe->resv2, 0xee, sizeof(sqe->resv2));
		sqe->resv1 = 1;
	}
	TAP_CHECK_INT(bad_ptr, 0);
	TAP_CHECK_INT(bad_zero, 0);
	TAP_CHECK_INT(txrdma_sq_space_left(&sq), 0);
	TAP_CHECK(txrdma_get_sqe(&sq) == NULL);
	TAP_CHECK(txrdma_get_sqe(&sq) == NULL);	/* and stays full */
	TAP_CHECK_INT(sq.sqe_tail, SQ_MAX);
	/* nothing is visible to the kernel before the flush */
	TAP_CHECK_INT(*W(&f, SQO_TAIL), 0);
	TAP_CHECK_INT(fake_kernel_step(&f, UINT_MAX), 0);
	TAP_CHECK_INT(txrdma_sq_flush(&sq), SQ_MAX);
	TAP_CHECK_INT(*W(&f, SQO_TAIL), SQ_MAX);
	TAP_CHECK_INT(txrdma_sq_flush(&sq), 0);
	TAP_CHECK(txrdma_get_sqe(&sq) == NULL);	/* flushed, still full */

	/* the kernel consumes one: exactly one entry comes free, entry 0 */
	TAP_CHECK_INT(fake_kernel_step(&f, 1), 1);
	TAP_CHECK_INT(txrdma_sq_space_left(&sq), 1);
	first = txrdma_get_sqe(&sq);
	TAP_CHECK(first == fake_sqe(&f, 0));
	TAP_CHECK(first && all_zero(first, sizeof(*first)));
	TAP_CHECK(txrdma_get_sqe(&sq) == NULL);
	/* that entry's CQE says -EINVAL: its reserved fields were dirty */
	TAP_CHECK_INT(txrdma_cq_ready(&cq), 1);
	cqe = txrdma_peek_cqe(&cq);
	if (TAP_CHECK(cqe != NULL)) {
		TAP_CHECK_INT(cqe->res, -EINVAL);
		TAP_CHECK_INT(cqe->user_data, 0);
	}
	TAP_CHECK_INT(txrdma_sq_dropped(&sq), 0);
	TAP_CHECK_INT(txrdma_cq_overflow(&cq), 0);
	fake_teardown(&f);
}

static void test_prep(void)
{
	struct txrdma_sqe *sqe;
	struct txrdma_sq sq;
	struct txrdma_cq cq;
	struct fake f;

	fake_setup(&f, SQ_MAX, CQ_MAX, 0, 0);
	init_rings(&f, &sq, &cq);

	sqe = txrdma_get_sqe(&sq);
	txrdma_prep_read(sqe, 11, 12, 0x1122334455667788ull, 13, 14,
			 0x99aabbccddeeff00ull, 0xfeedfacecafebeefull);
	TAP_CHECK_INT(sqe->opcode, TXRDMA_OP_READ);
	TAP_CHECK_INT(sqe->ep, 11);
	TAP_CHECK_INT(sqe->local_region, 12);
	TAP_CHECK(sqe->local_off == 0x1122334455667788ull);
	TAP_CHECK_INT(sqe->len, 13);
	TAP_CHECK_INT(sqe->remote_region, 14);
	TAP_CHECK(sqe->remote_off == 0x99aabbccddeeff00ull);
	TAP_CHECK(sqe->user_data == 0xfeedfacecafebeefull);
	TAP_CHECK(!sqe->flags && !sqe->prio && sqe_resv_zero(sqe));
	txrdma_sqe_set_flags(sqe, TXRDMA_SQE_F_NO_CQE);
	txrdma_sqe_set_prio(sqe, 3);
	TAP_CHECK_INT(sqe->flags, TXRDMA_SQE_F_NO_CQE);
	TAP_CHECK_INT(sqe->prio, 3);
	/* a prep over a prepared entry resets what the op does not use */
	txrdma_prep_send(sqe, 21, 22, 23, 24, 25);
	TAP_CHECK_INT(sqe->opcode, TXRDMA_OP_SEND);
	TAP_CHECK(sqe->ep == 21 && sqe->local_region == 22 &&
		  sqe->local_off == 23 && sqe->len == 24 &&
		  sqe->user_data == 25);
	TAP_CHECK(!sqe->remote_region && !sqe->remote_off);
	TAP_CHECK(!sqe->flags && !sqe->prio);

	sqe = txrdma_get_sqe(&sq);
	txrdma_prep_write(sqe, 31, 32, 33, 34, 35, 36, 37);
	TAP_CHECK(sqe->opcode == TXRDMA_OP_WRITE && sqe->ep == 31 &&
		  sqe->local_region == 32 && sqe->local_off == 33 &&
		  sqe->len == 34 && sqe->remote_region == 35 &&
		  sqe->remote_off == 36 && sqe->user_data == 37);
	sqe = txrdma_get_sqe(&sq);
	txrdma_prep_nop(sqe, 41, 42);
	TAP_CHECK(sqe->opcode == TXRDMA_OP_NOP && sqe->ep == 41 &&
		  sqe->user_data == 42 && !sqe->len && !sqe->local_region &&
		  !sqe->local_off && !sqe->remote_region && !sqe->remote_off);

	/* through the fake kernel: ops and results come back in order */
	TAP_CHECK_INT(txrdma_sq_flush(&sq), 3);
	TAP_CHECK_INT(fake_kernel_step(&f, UINT_MAX), 3);
	TAP_CHECK_INT(txrdma_cq_ready(&cq), 3);
	{
		struct txrdma_cqe *c[4];

		TAP_CHECK_INT(txrdma_peek_batch_cqe(&cq, c, 4), 3);
		TAP_CHECK(c[0]->user_data == 25 && c[0]->res == 24 &&
			  c[0]->opcode == TXRDMA_OP_SEND && c[0]->ep == 21);
		TAP_CHECK(c[1]->user_data == 37 && c[1]->res == 34 &&
			  c[1]->opcode == TXRDMA_OP_WRITE && c[1]->ep == 31);
		TAP_CHECK(c[2]->user_data == 42 && c[2]->res == 0 &&
			  c[2]->opcode == TXRDMA_OP_NOP && c[2]->ep == 41);
		txrdma_cq_advance(&cq, 3);
	}
	fake_teardown(&f);
}

/* a full ring's worth of SQEs across 2^32, entry by entry */
static void test_sq_wrap_single(void)
{
	const unsigned int start = 0xfffffff0u;	/* 16 before the wrap */
	unsigned int i, bad_ptr = 0;
	struct txrdma_sqe *sqe;
	struct txrdma_sq sq;
	struct txrdma_cq cq;
	struct fake f;

	fake_setup(&f, SQ_MAX, CQ_MAX, start, start);
	init_rings(&f, &sq, &cq);
	for (i = 0; i < SQ_MAX; i++) {
		sqe = txrdma_get_sqe(&sq);
		if (!TAP_CHECK(sqe != NULL))
			break;
		if (sqe != fake_sqe(&f, start + i))
			bad_ptr++;
		txrdma_prep_nop(sqe, TEST_EP, i);
	}
	TAP_CHECK_INT(bad_ptr, 0);
	TAP_CHECK(txrdma_get_sqe(&sq) == NULL);
	TAP_CHECK_INT(txrdma_sq_space_left(&sq), 0);
	TAP_CHECK_INT(txrdma_sq_flush(&sq), SQ_MAX);
	TAP_CHECK_INT(*W(&f, SQO_TAIL), 0x30);	/* wrapped: start + 64 */
	TAP_CHECK_INT(fake_kernel_step(&f, 20), 20);	/* head crosses 0 */
	TAP_CHECK_INT(*W(&f, SQO_HEAD), 4);
	TAP_CHECK_INT(txrdma_sq_space_left(&sq), 20);
	TAP_CHECK_INT(txrdma_sq_ready(&sq), SQ_MAX - 20);
	for (i = 0; i < 20; i++) {
		sqe = txrdma_get_sqe(&sq);
		if (!sqe || sqe != fake_sqe(&f, 0x30 + i))
			bad_ptr++;
	}
	TAP_CHECK_INT(bad_ptr, 0);
	TAP_CHECK(txrdma_get_sqe(&sq) == NULL);
	TAP_CHECK_INT(txrdma_sq_flush(&sq), 20);
	TAP_CHECK_INT(*W(&f, SQO_TAIL), 0x30 + 20);
	fake_teardown(&f);
}

/* ---- completion, single-threaded ------------------------------------ */

static void test_peek_batch(void)
{
	const unsigned int start = 0xfffffffeu;	/* 2 before the wrap */
	struct txrdma_cqe *c[CQ_MAX + 8];
	struct txrdma_sq sq;
	struct txrdma_cq cq;
	unsigned int i, bad = 0;
	struct fake f;

	fake_setup(&f, SQ_MAX, CQ_MAX, 0, start);
	init_rings(&f, &sq, &cq);
	TAP_CHECK(txrdma_peek_cqe(&cq) == NULL);
	TAP_CHECK_INT(txrdma_peek_batch_cqe(&cq, c, 8), 0);
	for (i = 0; i < 5; i++)
		fake_post_cqe(&f, 100 + i, (int)i);
	TAP_CHECK_INT(txrdma_cq_ready(&cq), 5);

	/* a batch of 3 of the 5, twice: peeking does not consume */
	TAP_CHECK_INT(txrdma_peek_batch_cqe(&cq, c, 3), 3);
	TAP_CHECK_INT(txrdma_peek_batch_cqe(&cq, c, 3), 3);
	for (i = 0; i < 3; i++)
		if (c[i] != fake_cqe(&f, start + i) ||
		    c[i]->user_data != 100 + i || c[i]->res != (int)i ||
		    c[i]->flags != TXRDMA_CQE_F_RECV)
			bad++;
	TAP_CHECK_INT(bad, 0);
	TAP_CHECK(txrdma_peek_cqe(&cq) == c[0]);
	TAP_CHECK(txrdma_peek_cqe(&cq) == c[0]);
	TAP_CHECK_INT(*W(&f, CQO_HEAD), start);	/* nothing released yet */
	txrdma_cq_advance(&cq, 3);
	TAP_CHECK_INT(*W(&f, CQO_HEAD), 1);	/* start + 3, wrapped */
	TAP_CHECK_INT(txrdma_cq_ready(&cq), 2);

	/* the other 2, with room for 10 */
	TAP_CHECK_INT(txrdma_peek_batch_cqe(&cq, c, 10), 2);
	TAP_CHECK(c[0] == fake_cqe(&f, 1) && c[0]->user_data == 103);
	TAP_CHECK(c[1] == fake_cqe(&f, 2) && c[1]->user_data == 104);
	txrdma_cq_advance(&cq, 2);
	TAP_CHECK_INT(*W(&f, CQO_HEAD), 3);
	TAP_CHECK(txrdma_peek_cqe(&cq) == NULL);
	TAP_CHECK_INT(txrdma_peek_batch_cqe(&cq, c, 10), 0);
	txrdma_cq_advance(&cq, 0);
	TAP_CHECK_INT(*W(&f, CQO_HEAD), 3);

	/* a full CQ: every entry, oldest first, never more than there are */
	for (i = 0; i < CQ_MAX; i++)
		fake_post_cqe(&f, 1000 + i, 0);
	TAP_CHECK_INT(txrdma_peek_batch_cqe(&cq, c, CQ_MAX + 8), CQ_MAX);
	for (i = 0, bad = 0; i < CQ_MAX; i++)
		if (c[i]->user_data != 1000 + i)
			bad++;
	TAP_CHECK_INT(bad, 0);
	/* one at a time now */
	for (i = 0, bad = 0; i < CQ_MAX; i++) {
		struct txrdma_cqe *e = txrdma_peek_cqe(&cq);

		if (!e || e->user_data != 1000 + i)
			bad++;
		txrdma_cq_advance(&cq, 1);
	}
	TAP_CHECK_INT(bad, 0);
	TAP_CHECK(txrdma_peek_cqe(&cq) == NULL);
	TAP_CHECK_INT(*W(&f, CQO_HEAD), 3 + CQ_MAX);
	fake_teardown(&f);
}

/* ---- with the consumer thread --------------------------------------- */

static void run_threaded(unsigned int sq_start, unsigned int cq_start,
			 unsigned long n, bool sleeper)
{
	struct run_result r;
	struct txrdma_sq sq;
	struct txrdma_cq cq;
	struct fake f;
	double t0;

	fake_setup(&f, SQ_MAX, CQ_MAX, sq_start, cq_start);
	f.check_pattern = true;
	f.sleep_when_idle = sleeper;
	f.spin = 1;		/* sleeps as soon as one pass finds nothing */
	init_rings(&f, &sq, &cq);
	fake_start(&f);
	t0 = now_s();
	r = run_messages(&f, &sq, &cq, n, SQ_MAX, sleeper);
	tap_diag("  %lu messages in %.2f s, %lu doorbells, %lu kernel wake-ups",
		 r.completed, now_s() - t0, r.doorbells,
		 __atomic_load_n(&f.wakeups, __ATOMIC_RELAXED));
	check_run(&r, n);
	fake_stop(&f);		/* joined: the counters below are final */
	TAP_CHECK_INT(f.consumed, n);
	TAP_CHECK_INT(*W(&f, SQO_HEAD), (unsigned int)(sq_start + n));
	TAP_CHECK_INT(*W(&f, SQO_TAIL), (unsigned int)(sq_start + n));
	TAP_CHECK_INT(*W(&f, CQO_TAIL), (unsigned int)(cq_start + n));
	TAP_CHECK_INT(*W(&f, CQO_HEAD), (unsigned int)(cq_start + n));
	TAP_CHECK_INT(sq.sqe_tail, (unsigned int)(sq_start + n));
	TAP_CHECK_INT(*W(&f, SQO_FLAGS) & TXRDMA_SQ_F_GARBAGE, 0);
	TAP_CHECK_INT(*W(&f, SQO_DROPPED), 0);
	TAP_CHECK_INT(*W(&f, CQO_OVERFLOW), 0);
	if (!sleeper) {
		/* a poller that never sleeps never asks for the doorbell */
		TAP_CHECK_INT(r.needs_wakeup_seen, 0);
	} else {
		/* it did sleep, and every sleep ended with a doorbell */
		TAP_CHECK(r.doorbells > 0);
		TAP_CHECK(f.wakeups <= r.doorbells + 1);
	}
	fake_teardown(&f);
}

static void test_million(void)
{
	run_threaded(0, 0, 1000000, false);
}

static void test_wrap_threaded(void)
{
	/* both rings' indices cross 2^32 after 256 messages */
	run_threaded(0xffffff00u, 0xffffff00u, 200000, false);
}

static void test_wrap_threaded_skewed(void)
{
	/* the rings cross at different times; the sleeping poller */
	run_threaded(0xffffffc0u, 0x7ffffff0u, 100000, true);
}

static void test_need_wakeup(void)
{
	struct txrdma_cqe *cqe = NULL;
	struct txrdma_sqe *sqe;
	struct txrdma_sq sq;
	struct txrdma_cq cq;
	struct fake f;
	double end;

	fake_setup(&f, SQ_MAX, CQ_MAX, 0, 0);
	f.sleep_when_idle = true;
	f.spin = 10;
	init_rings(&f, &sq, &cq);
	TAP_CHECK(!txrdma_sq_needs_wakeup(&sq));
	fake_start(&f);
	/* the poller finds nothing, flags NEED_WAKEUP and sleeps */
	TAP_CHECK(wait_asleep(&f, DEADLINE_S));
	TAP_CHECK(*W(&f, SQO_FLAGS) & TXRDMA_SQ_F_NEED_WAKEUP);

	sqe = txrdma_get_sqe(&sq);
	if (!TAP_CHECK(sqe != NULL)) {
		fake_teardown(&f);
		return;
	}
	txrdma_prep_nop(sqe, TEST_EP, 42);
	TAP_CHECK_INT(txrdma_sq_flush(&sq), 1);
	TAP_CHECK(txrdma_sq_needs_wakeup(&sq));
	/* without the doorbell, nothing happens */
	usleep(50 * 1000);
	TAP_CHECK(txrdma_peek_cqe(&cq) == NULL);
	TAP_CHECK_INT(*W(&f, SQO_HEAD), 0);
	sem_post(&f.doorbell);
	for (end = now_s() + DEADLINE_S; now_s() < end; sched_yield()) {
		cqe = txrdma_peek_cqe(&cq);
		if (cqe)
			break;
	}
	if (TAP_CHECK(cqe != NULL)) {
		TAP_CHECK_INT(cqe->user_data, 42);
		TAP_CHECK_INT(cqe->res, 0);
		TAP_CHECK_INT(cqe->opcode, TXRDMA_OP_NOP);
		txrdma_cq_advance(&cq, 1);
	}
	TAP_CHECK_INT(__atomic_load_n(&f.wakeups, __ATOMIC_RELAXED), 1);
	/* idle again: asleep again, and asks again */
	TAP_CHECK(wait_asleep(&f, DEADLINE_S));
	TAP_CHECK(txrdma_sq_needs_wakeup(&sq));
	fake_teardown(&f);
	TAP_CHECK_INT(f.consumed, 1);
}

static const struct tap_test tests[] = {
	TAP_TEST(test_sq_init_ok, "sq_init: pointers from the kernel's offsets, start at its tail"),
	TAP_TEST(test_sq_init_bad, "sq_init: bad offsets, sizes, entries, masks, arrays give -EINVAL"),
	TAP_TEST(test_cq_init, "cq_init: pointers from the offsets; bad ones give -EINVAL"),
	TAP_TEST(test_init_kernel_layout, "sq_init/cq_init accept the layout txrdma.ko uses"),
	TAP_TEST(test_get_sqe_full_and_zeroed, "get_sqe: zeroed entries, NULL when full, nothing visible before flush"),
	TAP_TEST(test_prep, "prep_send/read/write/nop fill the fields the kernel reads"),
	TAP_TEST(test_sq_wrap_single, "SQ indices wrap at 2^32: full ring across the wrap"),
	TAP_TEST(test_peek_batch, "peek_cqe/peek_batch_cqe/cq_advance, across the wrap"),
	TAP_TEST(test_million, "1,000,000 SENDs through a 64-entry ring, consumer thread, each completed once in order"),
	TAP_TEST(test_wrap_threaded, "200,000 SENDs from indices 0xffffff00, consumer thread"),
	TAP_TEST(test_wrap_threaded_skewed, "100,000 SENDs, rings wrapping apart, sleeping poller woken on NEED_WAKEUP"),
	TAP_TEST(test_need_wakeup, "NEED_WAKEUP seen after flush when the poller sleeps; doorbell wakes it"),
};

int main(void)
{
	return TAP_MAIN(tests);
}
