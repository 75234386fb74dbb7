// SPDX-License-Identifier: GPL-2.0-only
/*
 * ring_ipm: instructions per message of libtxrdma's ring fast path.
 *
 *   ring_ipm [-n MESSAGES] [-t]
 *
 * Each message: post one SEND SQE and flush (bench_post), let the
 * consumer turn it into a CQE, poll that CQE and advance (bench_poll).
 * The helpers are static inline in <txrdma_ring.h>; here they sit behind
 * noinline wrappers so that callgrind can attribute their instructions:
 * tools/bench/ring_ipm.sh runs this under `valgrind --tool=callgrind`
 * and reports Ir per call of bench_post and bench_poll.
 *
 * The consumer is a stand-in for the kernel's poller, in user space.
 * By default it runs in the same thread, in alternation: post, consume,
 * poll.  That is the clean measurement: every poll finds its CQE on the
 * first look, so Ir per call of bench_poll is the cost of reaping one
 * completion and nothing else.  With a consumer thread (-t) the poller
 * spins until the CQE shows up, and how many empty peeks that takes
 * depends on scheduling (and callgrind runs threads one at a time), so
 * -t is for wall-clock round trips natively, not for counting.
 *
 * Every CQE is checked (user_data, res); the exit status is non-zero on
 * a mismatch, so the path measured is the path that works.
 *
 * Then the receive side, as many messages again: a fake kernel writes
 * 64-byte MSG frames (header + payload: 2 units) into a receive ring of
 * RX_UNITS units, never more than the ring between its tail and the
 * process's released head (the credit rule), and release-stores its
 * tail; bench_recv takes one message: txrdma_rx_peek + a read of the
 * first payload byte + txrdma_rx_release.  Inline (the default), the
 * producer fills the ring whenever the process has read everything
 * published, so every peek finds a message; with -t it is a thread that
 * spins on credits.  Every message is checked (length, first byte).
 * txrdma_rx_release rings the doorbell if the SQ's NEED_WAKEUP flag is
 * set: nothing sets it here, and the context is opened on /dev/null
 * with ioctl() answered below, so a doorbell would be counted (and the
 * run fail) rather than crash.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <txrdma.h>

#define SQ_ENTRIES	64
#define CQ_ENTRIES	128
#define MAP_LEN		(4096 + SQ_ENTRIES * 64 + CQ_ENTRIES * 32)
#define EP		1
#define REGION		1
#define RX_UNITS	4096
#define RX_LEN		64	/* payload bytes of every received message */
#define RX_FRAME_UNITS	((TXRDMA_FRAME_HDR_LEN + RX_LEN + TXRDMA_FRAME_UNIT - 1) / \
			 TXRDMA_FRAME_UNIT)

/* the consumer's layout: one index per cache line, arrays after */
static const struct txrdma_sq_offsets so = {
	.head = 0, .tail = 64, .flags = 128, .dropped = 132,
	.ring_mask = 136, .ring_entries = 140, .sqes = 4096,
};
static const struct txrdma_cq_offsets co = {
	.head = 192, .tail = 256, .overflow = 320, .ring_mask = 324,
	.ring_entries = 328, .cqes = 4096 + SQ_ENTRIES * 64,
};

/*
 * The wrappers keep their symbol and calling convention (no inlining,
 * no cloning, no interprocedural shortcuts), so --toggle-collect=NAME
 * counts exactly one call of the code inside per message.
 */
#if defined(__clang__)
#define BENCH_FN	__attribute__((noinline))
#else
#define BENCH_FN	__attribute__((noinline, noipa))
#endif

static unsigned char *map;
static unsigned int k_sq_head, k_cq_tail;	/* the consumer's own copies */
static int stop;

static unsigned int *word(unsigned int off)
{
	return (unsigned int *)(map + off);
}

/* the consumer: every SQE published becomes a CQE, res = len */
static unsigned int consume(void)
{
	unsigned int tail = __atomic_load_n(word(so.tail), __ATOMIC_ACQUIRE);
	unsigned int cq_head = __atomic_load_n(word(co.head), __ATOMIC_ACQUIRE);
	unsigned int n = 0;

	while (k_sq_head != tail && k_cq_tail - cq_head < CQ_ENTRIES) {
		const struct txrdma_sqe *s = (const struct txrdma_sqe *)
			(map + so.sqes) + (k_sq_head & (SQ_ENTRIES - 1));
		struct txrdma_cqe *c = (struct txrdma_cqe *)(map + co.cqes) +
			(k_cq_tail & (CQ_ENTRIES - 1));

		memset(c, 0, sizeof(*c));
		c->user_data = s->user_data;
		c->res = (int)s->len;
		c->ep = s->ep;
		c->opcode = s->opcode;
		k_sq_head++;
		k_cq_tail++;
		n++;
	}
	if (n) {
		__atomic_store_n(word(so.head), k_sq_head, __ATOMIC_RELEASE);
		__atomic_store_n(word(co.tail), k_cq_tail, __ATOMIC_RELEASE);
	}
	return n;
}

static BENCH_FN void bench_kernel(void)
{
	consume();
}

static void *consumer_thread(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE))
		consume();
	return NULL;
}

static unsigned int msg_len(uint64_t i)
{
	return 64 + (unsigned int)(i & 63);
}

/* post one SEND and publish it: get_sqe + prep_send + sq_flush */
static BENCH_FN int bench_post(struct txrdma_sq *sq,
						uint64_t i)
{
	struct txrdma_sqe *sqe = txrdma_get_sqe(sq);

	if (!sqe)
		return -EAGAIN;
	txrdma_prep_send(sqe, EP, REGION, i * 128, msg_len(i), i);
	return (int)txrdma_sq_flush(sq);
}

/* after a flush: must the doorbell be rung? (fence + load) */
static BENCH_FN int bench_wakeup(struct txrdma_sq *sq)
{
	return txrdma_sq_needs_wakeup(sq);
}

/* reap one completion: peek_cqe + read it + cq_advance; -EAGAIN if none */
static BENCH_FN int64_t bench_poll(struct txrdma_cq *cq,
						    uint64_t *user_data)
{
	struct txrdma_cqe *cqe = txrdma_peek_cqe(cq);
	int res;

	if (!cqe)
		return -EAGAIN;
	*user_data = cqe->user_data;
	res = cqe->res;
	txrdma_cq_advance(cq, 1);
	return res;
}

/*
 * reserve a send buffer, write its first byte, give it back: the
 * bookkeeping of txrdma_bufs per message (txrdma_buf_get + _put)
 */
static BENCH_FN int bench_buf(struct txrdma_bufs *b, uint64_t i)
{
	__u32 idx;
	char *p = txrdma_buf_get(b, &idx);

	if (!p)
		return -EAGAIN;
	*p = (char)i;
	txrdma_buf_put(b, idx);
	return 0;
}

/* the cost of calling a noinline function that does nothing */
static BENCH_FN int bench_empty(struct txrdma_sq *sq,
						 uint64_t i)
{
	__asm__ volatile("" : : "r"(sq), "r"(i) : "memory");
	return 0;
}

/* ---- the receive side ---------------------------------------------- */

/*
 * The fake device: txrdma_open() on /dev/null needs TXRDMA_IOC_PROBE
 * answered; TXRDMA_IOC_RING_ENTER (the doorbell) is counted, and must
 * stay at 0.  This definition takes the place of libc's ioctl() for the
 * library linked into this program.
 */
static unsigned long doorbells;

int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;

	(void)fd;
	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (req == TXRDMA_IOC_PROBE) {
		struct txrdma_probe *p = arg;

		p->abi_version = TXRDMA_ABI_VERSION;
		p->features = TXRDMA_FEAT_ALL;
		return 0;
	}
	if (req == TXRDMA_IOC_RING_ENTER) {
		__atomic_fetch_add(&doorbells, 1, __ATOMIC_RELAXED);
		return 0;
	}
	errno = ENOTTY;
	return -1;
}

static unsigned char *rx_area;
static unsigned int k_rx_tail;		/* the producer's own tail */
static unsigned long rx_n;		/* messages to produce in all */
static unsigned long rx_made;		/* messages produced so far */

static unsigned int *rx_word(unsigned int off)
{
	return (unsigned int *)(rx_area + off);
}

/* the byte message @i starts with */
static unsigned char rx_byte(unsigned long i)
{
	return (unsigned char)(i * 7 + 1);
}

/* write message rx_made at k_rx_tail (frames never wrap: 2 | RX_UNITS) */
static void rx_write_one(void)
{
	unsigned char *u = rx_area + TXRDMA_RX_HDR_LEN +
		(size_t)(k_rx_tail & (RX_UNITS - 1)) * TXRDMA_FRAME_UNIT;
	struct txrdma_frame_hdr *h = (struct txrdma_frame_hdr *)u;

	memset(h, 0, sizeof(*h));
	h->type = TXRDMA_FRAME_MSG;
	h->version = 1;
	h->src_ep = txrdma_le32(EP);
	h->dst_ep = txrdma_le32(EP);
	h->seq = txrdma_le32((__u32)rx_made);
	h->len = txrdma_le32(RX_LEN);
	memset(u + TXRDMA_FRAME_HDR_LEN, rx_byte(rx_made), RX_LEN);
	k_rx_tail += RX_FRAME_UNITS;
	rx_made++;
}

/* inline: publish as many messages as the credits allow, one tail store */
static unsigned int rx_produce(void)
{
	unsigned int head = __atomic_load_n(rx_word(TXRDMA_RX_OFF_HEAD),
					    __ATOMIC_ACQUIRE);
	unsigned int n = 0;

	while (rx_made < rx_n &&
	       k_rx_tail + RX_FRAME_UNITS - head <= RX_UNITS) {
		rx_write_one();
		n++;
	}
	if (n)
		__atomic_store_n(rx_word(TXRDMA_RX_OFF_TAIL), k_rx_tail,
				 __ATOMIC_RELEASE);
	return n;
}

/* -t: one message at a time, spinning while the credits are used up */
static void *producer_thread(void *arg)
{
	(void)arg;
	while (rx_made < rx_n) {
		unsigned int head = __atomic_load_n(
			rx_word(TXRDMA_RX_OFF_HEAD), __ATOMIC_ACQUIRE);

		if (k_rx_tail + RX_FRAME_UNITS - head > RX_UNITS)
			continue;
		rx_write_one();
		__atomic_store_n(rx_word(TXRDMA_RX_OFF_TAIL), k_rx_tail,
				 __ATOMIC_RELEASE);
	}
	return NULL;
}

/* take one message: rx_peek + read its first byte + rx_release */
static BENCH_FN int bench_recv(struct txrdma_rx *rx, unsigned int *byte0,
			       __u32 *len)
{
	const void *payload;
	int ret = txrdma_rx_peek(rx, &payload, len);

	if (ret != 1)
		return ret;
	*byte0 = *(const unsigned char *)payload;
	txrdma_rx_release(rx);
	return 1;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	unsigned long n = 1000000, i, wakeups = 0, empty_polls = 0;
	unsigned long empty_peeks = 0;
	struct txrdma_region bufreg = { 0 };
	struct txrdma_bufs bufs;
	struct txrdma_ctx *ctx;
	struct txrdma_rx rx;
	struct txrdma_sq sq;
	struct txrdma_cq cq;
	pthread_t thr;
	bool threaded = false;
	double t0, dt;
	int opt, ret;

	while ((opt = getopt(argc, argv, "n:t")) != -1) {
		switch (opt) {
		case 'n':
			n = strtoul(optarg, NULL, 0);
			break;
		case 't':
			threaded = true;
			break;
		default:
			fprintf(stderr, "usage: %s [-n MESSAGES] [-t]\n",
				argv[0]);
			return 2;
		}
	}
	if (!n) {
		fprintf(stderr, "ring_ipm: -n must be > 0\n");
		return 2;
	}

	/* send buffers over a stand-in region: 64 of 4 KiB */
	bufreg.id = REGION;
	bufreg.size = 64 * 4096;
	bufreg.addr = calloc(1, bufreg.size);
	if (!bufreg.addr || txrdma_bufs_init(&bufs, &bufreg, 0, 4096, 64)) {
		fprintf(stderr, "ring_ipm: send buffers\n");
		return 1;
	}
	map = mmap(NULL, MAP_LEN, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (map == MAP_FAILED) {
		perror("ring_ipm: mmap");
		return 1;
	}
	*word(so.ring_entries) = SQ_ENTRIES;
	*word(so.ring_mask) = SQ_ENTRIES - 1;
	*word(co.ring_entries) = CQ_ENTRIES;
	*word(co.ring_mask) = CQ_ENTRIES - 1;
	ret = txrdma_sq_init(&sq, map, MAP_LEN, &so);
	if (!ret)
		ret = txrdma_cq_init(&cq, map, MAP_LEN, &co);
	if (ret) {
		fprintf(stderr, "ring_ipm: ring init: %s\n", strerror(-ret));
		return 1;
	}

	if (threaded &&
	    pthread_create(&thr, NULL, consumer_thread, NULL)) {
		fprintf(stderr, "ring_ipm: pthread_create failed\n");
		return 1;
	}
	t0 = now_s();
	for (i = 0; i < n; i++) {
		uint64_t ud = ~0ULL;
		int64_t res;

		if (bench_post(&sq, i) != 1) {
			fprintf(stderr, "ring_ipm: post %lu failed\n", i);
			return 1;
		}
		wakeups += bench_wakeup(&sq);
		bench_empty(&sq, i);
		if (bench_buf(&bufs, i)) {
			fprintf(stderr, "ring_ipm: no send buffer\n");
			return 1;
		}
		if (!threaded)
			bench_kernel();
		while ((res = bench_poll(&cq, &ud)) == -EAGAIN)
			empty_polls++;
		if (ud != i || res != msg_len(i)) {
			fprintf(stderr,
				"ring_ipm: message %lu: CQE user_data %llu res %lld\n",
				i, (unsigned long long)ud, (long long)res);
			return 1;
		}
	}
	dt = now_s() - t0;
	if (threaded) {
		__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
		pthread_join(thr, NULL);
	}
	printf("messages %lu consumer %s wall_ns_per_msg %.1f empty_polls %lu wakeups %lu\n",
	       n, threaded ? "thread" : "inline", dt * 1e9 / (double)n,
	       empty_polls, wakeups);
	fflush(stdout);

	/* the receive side: as many messages, 64 bytes each */
	setenv(TXRDMA_DEVICE_ENV, "/dev/null", 1);
	ret = txrdma_open(&ctx, 0);
	if (ret) {
		fprintf(stderr, "ring_ipm: txrdma_open on the fake device: %s\n",
			strerror(-ret));
		return 1;
	}
	rx_area = mmap(NULL, txrdma_rx_area_size(RX_UNITS),
		       PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (rx_area == MAP_FAILED) {
		perror("ring_ipm: mmap");
		return 1;
	}
	ret = txrdma_rx_init(&rx, ctx, &sq, rx_area, RX_UNITS);
	if (ret) {
		fprintf(stderr, "ring_ipm: rx init: %s\n", strerror(-ret));
		return 1;
	}
	rx_n = n;
	if (threaded &&
	    pthread_create(&thr, NULL, producer_thread, NULL)) {
		fprintf(stderr, "ring_ipm: pthread_create failed\n");
		return 1;
	}
	t0 = now_s();
	for (i = 0; i < n; i++) {
		unsigned int b = ~0U;
		__u32 len = ~0U;

		if (!threaded && i == rx_made)
			rx_produce();
		while ((ret = bench_recv(&rx, &b, &len)) == 0)
			empty_peeks++;
		if (ret != 1 || len != RX_LEN || b != rx_byte(i)) {
			fprintf(stderr,
				"ring_ipm: received message %lu: ret %d len %u byte %u\n",
				i, ret, len, b);
			return 1;
		}
	}
	dt = now_s() - t0;
	if (threaded)
		pthread_join(thr, NULL);
	if (*word(so.flags) & TXRDMA_SQ_F_NEED_WAKEUP)
		doorbells++;	/* must not happen: nothing sets it */
	printf("rx_messages %lu producer %s wall_ns_per_msg %.1f empty_peeks %lu doorbells %lu\n",
	       n, threaded ? "thread" : "inline", dt * 1e9 / (double)n,
	       empty_peeks, __atomic_load_n(&doorbells, __ATOMIC_RELAXED));
	txrdma_bufs_fini(&bufs);
	free(bufreg.addr);
	return doorbells ? 1 : 0;
}
