// SPDX-License-Identifier: GPL-2.0-only
/*
 * The data path rings of /dev/txrdma (TXRDMA_IOC_RING_SETUP, mmap,
 * TXRDMA_IOC_RING_ENTER, poll), driven through the raw ABI so that the
 * test, not a library, decides what goes into shared memory:
 *
 *  - setup refuses bad parameters and a second ring; mmap only the
 *    exact, shared mapping;
 *  - NOPs complete in order with their user_data, in batches of any
 *    size, across many laps of the ring;
 *  - malformed SQEs (opcode, flags, prio, reserved fields, unknown
 *    endpoint) complete with an error and are counted; NO_CQE;
 *  - a full CQ holds SQEs back (none lost, no overflow);
 *  - impossible indices written by the process are flagged and stall
 *    nothing but that ring;
 *  - the poller sleeps when idle (no CPU), says NEED_WAKEUP, and the
 *    doorbell wakes it; the file polls readable with completions;
 *  - 100,000 random SQEs: every one completes exactly once, no oops
 *    (the harness checks the kernel log);
 *  - a process that exits with submissions pending releases all;
 *  - ring memory is charged to the tenant's pinned bytes: exact, given
 *    back on close, refused over the limit and outside any tenant;
 *  - priority classes: the poller serves critical tenants' SQEs before
 *    normal and bulk ones, a process can lower its SQEs' class but not
 *    raise it, and the least urgent class still finishes.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/txrdma.h>

#include "kselftest_harness.h"
#include "ring_tenant.h"
#include "tenant_util.h"

#define DEV "/dev/txrdma"

struct rings {
	int fd;
	struct txrdma_ring_setup p;
	void *map;
	volatile uint32_t *sq_head, *sq_tail, *sq_flags, *sq_dropped;
	volatile uint32_t *cq_head, *cq_tail, *cq_overflow;
	struct txrdma_sqe *sqes;
	struct txrdma_cqe *cqes;
	uint32_t sq_tail_local;
};

static volatile uint32_t *word(struct rings *r, uint32_t off)
{
	return (volatile uint32_t *)((char *)r->map + off);
}

/* 0 or -errno */
static int rings_open(struct rings *r, uint32_t sq, uint32_t cq)
{
	memset(r, 0, sizeof(*r));
	if (ring_tenant_status)
		return ring_tenant_status;
	r->fd = open(DEV, O_RDWR | O_CLOEXEC);
	if (r->fd < 0)
		return -errno;
	r->p.sq_entries = sq;
	r->p.cq_entries = cq;
	if (ioctl(r->fd, TXRDMA_IOC_RING_SETUP, &r->p))
		return -errno;
	r->map = mmap(NULL, r->p.mmap_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		      r->fd, r->p.mmap_offset);
	if (r->map == MAP_FAILED)
		return -errno;
	r->sq_head = word(r, r->p.sq_off.head);
	r->sq_tail = word(r, r->p.sq_off.tail);
	r->sq_flags = word(r, r->p.sq_off.flags);
	r->sq_dropped = word(r, r->p.sq_off.dropped);
	r->cq_head = word(r, r->p.cq_off.head);
	r->cq_tail = word(r, r->p.cq_off.tail);
	r->cq_overflow = word(r, r->p.cq_off.overflow);
	r->sqes = (void *)((char *)r->map + r->p.sq_off.sqes);
	r->cqes = (void *)((char *)r->map + r->p.cq_off.cqes);
	return 0;
}

static void rings_close(struct rings *r)
{
	if (r->map && r->map != MAP_FAILED)
		munmap(r->map, r->p.mmap_len);
	if (r->fd > 0)
		close(r->fd);
	r->map = NULL;
	r->fd = -1;
}

static struct txrdma_sqe *next_sqe(struct rings *r)
{
	uint32_t mask = *word(r, r->p.sq_off.ring_mask);
	uint32_t head = __atomic_load_n(r->sq_head, __ATOMIC_ACQUIRE);

	if (r->sq_tail_local - head >= r->p.sq_entries)
		return NULL;
	return &r->sqes[r->sq_tail_local++ & mask];
}

/* publish, and ring the doorbell if the poller sleeps */
static void submit(struct rings *r)
{
	__atomic_store_n(r->sq_tail, r->sq_tail_local, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (*r->sq_flags & TXRDMA_SQ_F_NEED_WAKEUP)
		ioctl(r->fd, TXRDMA_IOC_RING_ENTER);
}

static void nop(struct txrdma_sqe *s, uint64_t ud)
{
	memset(s, 0, sizeof(*s));
	s->opcode = TXRDMA_OP_NOP;
	s->user_data = ud;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/*
 * Wait (poll(2), bounded) until @n CQEs are there; copy them out and
 * consume them.  Returns how many arrived.
 */
static int reap(struct rings *r, struct txrdma_cqe *out, int n, int ms)
{
	uint32_t mask = *word(r, r->p.cq_off.ring_mask);
	uint64_t end = now_ns() + ms * 1000000ull;
	int got = 0;

	while (got < n) {
		uint32_t tail = __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE);
		uint32_t head = *r->cq_head;
		struct pollfd pfd = { .fd = r->fd, .events = POLLIN };

		while (head != tail && got < n)
			out[got++] = r->cqes[head++ & mask];
		__atomic_store_n(r->cq_head, head, __ATOMIC_RELEASE);
		if (got == n || now_ns() > end)
			break;
		poll(&pfd, 1, 10);
	}
	return got;
}

static int sq_drained(struct rings *r, int ms)
{
	uint64_t end = now_ns() + ms * 1000000ull;

	while (__atomic_load_n(r->sq_head, __ATOMIC_ACQUIRE) !=
	       r->sq_tail_local) {
		if (now_ns() > end)
			return 0;
		usleep(1000);
	}
	return 1;
}

TEST(setup_refuses_bad_input)
{
	struct txrdma_ring_setup p;
	int fd = open(DEV, O_RDWR | O_CLOEXEC);
	void *m;

	ASSERT_EQ(0, ring_tenant_status) TH_LOG("%s", ring_tenant_error);
	ASSERT_LE(0, fd);
	/* mmap before any setup */
	m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	EXPECT_EQ(MAP_FAILED, m);
	EXPECT_EQ(ENXIO, errno);
	EXPECT_EQ(-1, ioctl(fd, TXRDMA_IOC_RING_ENTER));
	EXPECT_EQ(ENXIO, errno);
#define BAD(field, val) do {						\
		memset(&p, 0, sizeof(p));				\
		p.sq_entries = 8;					\
		p.field = val;						\
		EXPECT_EQ(-1, ioctl(fd, TXRDMA_IOC_RING_SETUP, &p));	\
		EXPECT_EQ(EINVAL, errno) TH_LOG(#field " = " #val);	\
	} while (0)
	BAD(sq_entries, 0);
	BAD(sq_entries, 32769);
	BAD(cq_entries, 4);		/* smaller than the SQ */
	BAD(cq_entries, 65536);
	BAD(flags, 1);
	BAD(ops, 1);
	BAD(resv[3], 1);
	BAD(mmap_len, 1);
	BAD(sq_off.head, 1);
	BAD(cq_off.resv[1], 1);
#undef BAD
	/* granted sizes are powers of two; one ring per file */
	memset(&p, 0, sizeof(p));
	p.sq_entries = 100;
	ASSERT_EQ(0, ioctl(fd, TXRDMA_IOC_RING_SETUP, &p));
	EXPECT_EQ(128, p.sq_entries);
	EXPECT_EQ(256, p.cq_entries);
	EXPECT_EQ(0, p.mmap_len % 4096);
	EXPECT_LE(p.cq_off.cqes + 256 * sizeof(struct txrdma_cqe), p.mmap_len);
	EXPECT_LE(p.sq_off.sqes + 128 * sizeof(struct txrdma_sqe),
		  p.cq_off.cqes);
	EXPECT_EQ(1u << TXRDMA_OP_NOP | 1u << TXRDMA_OP_SEND |
		  1u << TXRDMA_OP_READ | 1u << TXRDMA_OP_WRITE, p.ops);
	memset(&p, 0, sizeof(p));
	p.sq_entries = 8;
	EXPECT_EQ(-1, ioctl(fd, TXRDMA_IOC_RING_SETUP, &p));
	EXPECT_EQ(EBUSY, errno);
	close(fd);
	/* the largest rings; the default CQ is capped at the maximum */
	fd = open(DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	memset(&p, 0, sizeof(p));
	p.sq_entries = 32768;
	ASSERT_EQ(0, ioctl(fd, TXRDMA_IOC_RING_SETUP, &p));
	EXPECT_EQ(32768, p.sq_entries);
	EXPECT_EQ(32768, p.cq_entries);
	m = mmap(NULL, p.mmap_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, m);
	EXPECT_EQ(32768, *(uint32_t *)((char *)m + p.cq_off.ring_entries));
	munmap(m, p.mmap_len);
	close(fd);
}

TEST(mmap_rules)
{
	struct rings r;
	void *m;

	ASSERT_EQ(0, rings_open(&r, 8, 0));
	m = mmap(NULL, r.p.mmap_len, PROT_READ | PROT_WRITE, MAP_PRIVATE,
		 r.fd, 0);
	EXPECT_EQ(MAP_FAILED, m);
	EXPECT_EQ(EINVAL, errno);
	m = mmap(NULL, r.p.mmap_len + 4096, PROT_READ, MAP_SHARED, r.fd, 0);
	EXPECT_EQ(MAP_FAILED, m);
	EXPECT_EQ(EINVAL, errno);
	m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, r.fd, 4096);
	EXPECT_EQ(MAP_FAILED, m);
	/* the sizes the kernel wrote are there */
	EXPECT_EQ(8, *word(&r, r.p.sq_off.ring_entries));
	EXPECT_EQ(7, *word(&r, r.p.sq_off.ring_mask));
	EXPECT_EQ(16, *word(&r, r.p.cq_off.ring_entries));
	EXPECT_EQ(15, *word(&r, r.p.cq_off.ring_mask));
	rings_close(&r);
}

FIXTURE(ring) {
	struct rings r;
};

FIXTURE_SETUP(ring)
{
	ASSERT_EQ(0, ring_tenant_status) TH_LOG("%s", ring_tenant_error);
	ASSERT_EQ(0, rings_open(&self->r, 64, 0))
		TH_LOG("ring setup: %s", strerror(errno));
}

FIXTURE_TEARDOWN(ring)
{
	rings_close(&self->r);
}

TEST_F(ring, nops_in_order)
{
	struct txrdma_cqe c[64];
	uint64_t next_ud = 1, expect = 1;
	unsigned int seed = 1;
	int total = 20000, done = 0;

	while (done < total) {
		int batch = 1 + rand_r(&seed) % 64, i, got;

		if (batch > total - done)
			batch = total - done;
		for (i = 0; i < batch; i++) {
			struct txrdma_sqe *s = next_sqe(&self->r);

			ASSERT_NE(NULL, s);
			nop(s, next_ud++);
		}
		submit(&self->r);
		got = reap(&self->r, c, batch, 2000);
		ASSERT_EQ(batch, got);
		for (i = 0; i < got; i++) {
			ASSERT_EQ(expect, c[i].user_data);
			ASSERT_EQ(0, c[i].res);
			ASSERT_EQ(TXRDMA_OP_NOP, c[i].opcode);
			ASSERT_EQ(0, c[i].flags);
			expect++;
		}
		done += batch;
	}
	EXPECT_EQ((uint32_t)total, *self->r.sq_head);
	EXPECT_EQ((uint32_t)total, *self->r.cq_tail);
	EXPECT_EQ(0, *self->r.sq_dropped);
	EXPECT_EQ(0, *self->r.cq_overflow);
	EXPECT_EQ(0, *self->r.sq_flags & TXRDMA_SQ_F_GARBAGE);
}

TEST_F(ring, malformed_sqes_complete_with_errors)
{
	struct txrdma_cqe c[16];
	struct txrdma_sqe *s;
	int i, n = 0;

#define PUT(stmt, ud) do {						\
		s = next_sqe(&self->r);					\
		ASSERT_NE(NULL, s);					\
		nop(s, ud);						\
		stmt;							\
		n++;							\
	} while (0)
	PUT(s->opcode = TXRDMA_OP_LAST, 1);
	PUT(s->opcode = 0xff, 2);
	PUT(s->flags = 0x80, 3);
	PUT(s->prio = TXRDMA_PRIO_CLASSES, 4);
	PUT(s->flags = 0x8000, 5);
	PUT(s->resv2[1] = 1, 6);
	PUT(s->len = 1, 7);			/* a NOP moves nothing */
	PUT((s->opcode = TXRDMA_OP_SEND, s->ep = 0x7fffff00), 8);
	PUT((s->opcode = TXRDMA_OP_READ, s->ep = 1, s->len = 0), 9);
	/* success without a CQE, then an error that has one anyway */
	PUT(s->flags = TXRDMA_SQE_F_NO_CQE, 10);
	PUT((s->flags = TXRDMA_SQE_F_NO_CQE, s->prio = 9), 11);
	PUT((void)0, 12);
#undef PUT
	submit(&self->r);
	ASSERT_EQ(n - 1, reap(&self->r, c, n - 1, 2000));
	for (i = 0; i < 7; i++) {
		EXPECT_EQ((uint64_t)i + 1, c[i].user_data);
		EXPECT_EQ(-EINVAL, c[i].res);
	}
	EXPECT_EQ(8, c[7].user_data);
	EXPECT_EQ(-ENOENT, c[7].res);
	EXPECT_EQ(0x7fffff00, c[7].ep);
	EXPECT_EQ(TXRDMA_OP_SEND, c[7].opcode);
	EXPECT_EQ(9, c[8].user_data);
	EXPECT_EQ(-EINVAL, c[8].res);
	EXPECT_EQ(11, c[9].user_data);
	EXPECT_EQ(-EINVAL, c[9].res);
	EXPECT_EQ(12, c[10].user_data);
	EXPECT_EQ(0, c[10].res);
	/* nothing more: NO_CQE's success produced none */
	EXPECT_EQ(0, reap(&self->r, c, 1, 50));
	EXPECT_EQ(10, *self->r.sq_dropped);
	EXPECT_EQ((uint32_t)n, *self->r.sq_head);
}

TEST(full_cq_holds_submissions)
{
	struct txrdma_cqe c[8];
	struct rings r;
	int i;

	ASSERT_EQ(0, rings_open(&r, 4, 4));
	for (i = 0; i < 4; i++)
		nop(next_sqe(&r), i);
	submit(&r);
	ASSERT_TRUE(sq_drained(&r, 2000));
	EXPECT_EQ(4, __atomic_load_n(r.cq_tail, __ATOMIC_ACQUIRE));
	/* the CQ is full: four more stay in the SQ */
	for (i = 4; i < 8; i++)
		nop(next_sqe(&r), i);
	submit(&r);
	EXPECT_FALSE(sq_drained(&r, 200));
	EXPECT_EQ(4, *r.sq_head);
	EXPECT_EQ(4, *r.cq_tail);
	/*
	 * Consuming the CQ lets them through, in order, none lost; the
	 * process only waits in poll(2), which wakes the sleeping poller:
	 * no doorbell to remember.
	 */
	ASSERT_EQ(4, reap(&r, c, 4, 1000));
	ASSERT_EQ(4, reap(&r, c + 4, 4, 2000));
	for (i = 0; i < 8; i++)
		EXPECT_EQ((uint64_t)i, c[i].user_data);
	EXPECT_EQ(0, *r.cq_overflow);
	rings_close(&r);
}

TEST_F(ring, impossible_indices)
{
	struct txrdma_cqe c[4];
	struct rings *r = &self->r;
	uint64_t end;

	/* a tail more than a ring ahead: flagged, nothing consumed */
	__atomic_store_n(r->sq_tail, 1000, __ATOMIC_RELEASE);
	ioctl(r->fd, TXRDMA_IOC_RING_ENTER);
	end = now_ns() + 2000000000ull;
	while (!(*r->sq_flags & TXRDMA_SQ_F_GARBAGE) && now_ns() < end)
		usleep(1000);
	EXPECT_TRUE(*r->sq_flags & TXRDMA_SQ_F_GARBAGE);
	EXPECT_EQ(0, *r->sq_head);
	EXPECT_EQ(0, *r->cq_tail);
	/* a sane tail again: work resumes */
	nop(next_sqe(r), 77);
	submit(r);
	ASSERT_EQ(1, reap(r, c, 1, 2000));
	EXPECT_EQ(77, c[0].user_data);
	/* a CQ head ahead of the tail: no completion is written over it */
	__atomic_store_n(r->cq_head, 50, __ATOMIC_RELEASE);
	nop(next_sqe(r), 78);
	submit(r);
	EXPECT_FALSE(sq_drained(r, 200));
	EXPECT_EQ(1, *r->cq_tail);
	__atomic_store_n(r->cq_head, 1, __ATOMIC_RELEASE);
	ioctl(r->fd, TXRDMA_IOC_RING_ENTER);
	ASSERT_EQ(1, reap(r, c, 1, 2000));
	EXPECT_EQ(78, c[0].user_data);
}

/* utime + stime of the poller thread, in clock ticks */
static long poller_ticks(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	long ticks = -1;

	while (d && (e = readdir(d))) {
		char path[300], buf[512], *p;
		unsigned long ut, st;
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(buf, sizeof(buf), f) && strstr(buf, "(txrdma-poll)")) {
			p = strrchr(buf, ')');
			if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u "
				   "%*u %*u %lu %lu", &ut, &st) == 2)
				ticks = ut + st;
		}
		fclose(f);
	}
	if (d)
		closedir(d);
	return ticks;
}

TEST_F(ring, idle_poller_sleeps_and_doorbell_wakes)
{
	struct rings *r = &self->r;
	struct pollfd pfd = { .fd = r->fd, .events = POLLIN };
	struct txrdma_cqe c;
	uint64_t end = now_ns() + 2000000000ull;
	long t0, t1;

	while (!(*r->sq_flags & TXRDMA_SQ_F_NEED_WAKEUP) && now_ns() < end)
		usleep(1000);
	ASSERT_TRUE(*r->sq_flags & TXRDMA_SQ_F_NEED_WAKEUP);
	/* asleep: a second without work costs it (almost) no CPU */
	t0 = poller_ticks();
	ASSERT_LE(0, t0) TH_LOG("no txrdma-poll thread in /proc");
	sleep(1);
	t1 = poller_ticks();
	EXPECT_LE(t1 - t0, 1) TH_LOG("poller used %ld ticks idle", t1 - t0);
	/* nothing to read yet */
	EXPECT_EQ(0, poll(&pfd, 1, 0));
	/*
	 * Submit without the doorbell: it stays asleep and the SQE waits
	 * (a negative check: 100 ms in which nothing may happen)
	 */
	nop(next_sqe(r), 5);
	__atomic_store_n(r->sq_tail, r->sq_tail_local, __ATOMIC_RELEASE);
	usleep(100000);
	EXPECT_EQ(0, *r->sq_head);
	/* the doorbell */
	ASSERT_EQ(0, ioctl(r->fd, TXRDMA_IOC_RING_ENTER));
	ASSERT_EQ(1, poll(&pfd, 1, 2000));
	EXPECT_TRUE(pfd.revents & POLLIN);
	ASSERT_EQ(1, reap(r, &c, 1, 100));
	EXPECT_EQ(5, c.user_data);
	EXPECT_EQ(0, poll(&pfd, 1, 0));
}

TEST_F(ring, random_sqes)
{
	struct rings *r = &self->r;
	struct txrdma_cqe c[64];
	unsigned int seed = 12345;
	uint64_t ud = 0, want = 0, cqes = 0, bad = 0, no_cqe_ok = 0;
	uint32_t dropped0 = *r->sq_dropped;
	int total = 100000, i, k;

	while (ud < (uint64_t)total) {
		int batch = 1 + rand_r(&seed) % 64, got, expect = 0;

		for (i = 0; i < batch && ud < (uint64_t)total; i++) {
			struct txrdma_sqe *s = next_sqe(r);
			uint32_t *w = (uint32_t *)s;

			for (k = 0; k < (int)(sizeof(*s) / 4); k++)
				w[k] = rand_r(&seed) * 2654435761u;
			if (rand_r(&seed) % 2) {
				/* near-valid: small opcode, flags, prio */
				s->opcode %= TXRDMA_OP_LAST + 1;
				s->flags &= 1;
				s->prio %= TXRDMA_PRIO_CLASSES;
				s->resv1 = 0;
				s->resv2[0] = s->resv2[1] = 0;
				if (s->opcode == TXRDMA_OP_NOP && rand_r(&seed) % 2)
					s->len = s->local_region = s->remote_region =
						s->local_off = s->remote_off = 0;
			}
			s->user_data = ud++;
			/* valid NOP with NO_CQE: the only silent success */
			if (s->opcode == TXRDMA_OP_NOP && s->flags == 1 &&
			    s->prio < TXRDMA_PRIO_CLASSES && !s->resv1 &&
			    !s->resv2[0] && !s->resv2[1] && !s->len &&
			    !s->local_region && !s->local_off &&
			    !s->remote_region && !s->remote_off)
				no_cqe_ok++;
			else
				expect++;
		}
		submit(r);
		got = reap(r, c, expect, 2000);
		ASSERT_EQ(expect, got);
		/*
		 * SQEs with NO_CQE give no CQE to wait for: the next batch
		 * needs their slots consumed too (next_sqe() gives NULL on
		 * a full SQ; seen as a SIGSEGV of this test)
		 */
		ASSERT_TRUE(sq_drained(r, 2000));
		for (i = 0; i < got; i++) {
			/* in order: user_data only grows */
			ASSERT_LE(want, c[i].user_data);
			want = c[i].user_data + 1;
			ASSERT_TRUE(c[i].res == 0 || c[i].res == -EINVAL ||
				    c[i].res == -ENOENT)
				TH_LOG("res %d", c[i].res);
			bad += c[i].res < 0;
		}
		cqes += got;
	}
	ASSERT_TRUE(sq_drained(r, 2000));
	EXPECT_EQ((uint32_t)total, *r->sq_head);
	EXPECT_EQ((uint64_t)total, cqes + no_cqe_ok);
	EXPECT_EQ(bad, *r->sq_dropped - dropped0);
	EXPECT_LT(1000, bad);
	EXPECT_LT(1000, cqes - bad);
	EXPECT_EQ(0, *r->cq_overflow);
}

static long module_refcnt(void)
{
	char buf[32] = "";
	FILE *f = fopen("/sys/module/txrdma/refcnt", "r");

	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	return atol(buf);
}

TEST(ring_memory_is_charged_to_the_tenant)
{
	struct txrdma_ring_setup p = { .sq_entries = 4096 };
	int64_t before, during;
	struct rings r;
	int fd, status;
	pid_t pid;

	ASSERT_EQ(0, ring_tenant_status) TH_LOG("%s", ring_tenant_error);
	before = ring_tenant_pinned();
	ASSERT_LE(0, before);
	ASSERT_EQ(0, rings_open(&r, 4096, 0));
	during = ring_tenant_pinned();
	EXPECT_EQ((int64_t)r.p.mmap_len, during - before);
	rings_close(&r);
	EXPECT_EQ(before, ring_tenant_pinned());
	/* over the limit: refused, nothing charged */
	ASSERT_EQ(0, ring_tenant_set_pinned(before + 4096 * 64))
		TH_LOG("%s", ring_tenant_error);
	fd = open(DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, ioctl(fd, TXRDMA_IOC_RING_SETUP, &p));
	EXPECT_EQ(EDQUOT, errno);
	EXPECT_EQ(before, ring_tenant_pinned());
	ASSERT_EQ(0, ring_tenant_set_pinned(RING_PINNED_LIMIT));
	/* the same file may try again */
	p = (struct txrdma_ring_setup){ .sq_entries = 4096 };
	EXPECT_EQ(0, ioctl(fd, TXRDMA_IOC_RING_SETUP, &p));
	close(fd);
	EXPECT_EQ(before, ring_tenant_pinned());
	/* a process of no tenant gets no rings */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct txrdma_ring_setup q = { .sq_entries = 8 };
		int f;

		if (cg_enter(CG_RING_NONE))
			_exit(2);
		f = open(DEV, O_RDWR | O_CLOEXEC);
		if (f < 0)
			_exit(3);
		_exit(ioctl(f, TXRDMA_IOC_RING_SETUP, &q) == -1 &&
		      errno == EPERM ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("ring setup outside a tenant: status %d", status);
}

TEST(exit_with_submissions_pending)
{
	long ref0 = module_refcnt();
	int64_t pinned0 = ring_tenant_pinned();
	int i, status;
	pid_t pid;

	ASSERT_LE(0, ref0);
	ASSERT_LE(0, pinned0);
	for (i = 0; i < 50; i++) {
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid) {
			struct rings r;
			struct txrdma_sqe *s;

			if (rings_open(&r, 256, 256))
				_exit(1);
			while ((s = next_sqe(&r)))
				nop(s, 1);
			submit(&r);
			/* exit with the CQ full and the mapping still there */
			_exit(0);
		}
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	}
	EXPECT_EQ(ref0, module_refcnt());
	EXPECT_EQ(pinned0, ring_tenant_pinned());
}

/* ---- priority classes ------------------------------------------------- */

#define CG_RING_CRIT	CG_RING_ROOT "/txrdma-ring-crit"
#define CG_RING_BULK	CG_RING_ROOT "/txrdma-ring-bulk"

static void prio_tenants_down(void)
{
	struct nlmini nl;

	cg_enter(CG_RING);
	if (!nlmini_open(&nl)) {
		tenant_del_force(&nl, "ring-crit");
		tenant_del_force(&nl, "ring-bulk");
		nlmini_close(&nl);
	}
	rmdir(CG_RING_CRIT);
	rmdir(CG_RING_BULK);
}

/* a failed run leaves nothing behind either */
__attribute__((destructor)) static void prio_fini(void)
{
	prio_tenants_down();
}

static int prio_tenant_up(const char *name, const char *cg, int prio)
{
	uint64_t limits[] = { TXRDMA_A_LIMIT_PINNED_BYTES, 64ULL << 20, 0 };
	struct nlmini nl;
	int ret;

	mkdir(cg, 0755);
	ret = nlmini_open(&nl);
	if (ret)
		return ret;
	ret = tenant_op(&nl, TXRDMA_CMD_TENANT_NEW, name,
			cg + strlen(CG_RING_ROOT), prio, limits);
	nlmini_close(&nl);
	return ret;
}

/* CQEs the kernel has produced in @r (the test consumes none meanwhile) */
static uint32_t produced(struct rings *r)
{
	return __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE);
}

/*
 * Wait (poll(2), bounded) until ring @k has produced its @n CQEs,
 * consuming and checking them as they come (so that poll(2) blocks
 * until the next ones); then what every ring has produced so far.
 * The caller runs SCHED_FIFO: the poller's wake-up puts it on the CPU
 * at once, so the counts are those of the moment ring @k finished,
 * within one ring's turn, even on one CPU.
 */
static bool prio_wait(struct rings *all, int count, int k, uint32_t n,
		      uint32_t *seen, uint32_t *bad)
{
	struct rings *r = &all[k];
	struct pollfd pfd = { .fd = r->fd, .events = POLLIN };
	uint32_t mask = *word(r, r->p.cq_off.ring_mask);
	uint64_t end = now_ns() + 20000000000ull;
	uint32_t head = *r->cq_head, tail;
	int i;

	for (;;) {
		tail = produced(r);
		for (; head != tail; head++) {
			const struct txrdma_cqe *c = &r->cqes[head & mask];

			if (c->user_data != (((uint64_t)k << 32) | head) ||
			    c->res || c->opcode != TXRDMA_OP_NOP)
				(*bad)++;
		}
		__atomic_store_n(r->cq_head, head, __ATOMIC_RELEASE);
		if (head >= n || now_ns() > end)
			break;
		poll(&pfd, 1, 10);
	}
	for (i = 0; i < count; i++)
		seen[i] = produced(&all[i]);
	return head >= n;
}

/*
 * Four rings with a backlog each, published together while the poller
 * sleeps, then one doorbell:
 *   A  tenant ring-crit (critical), SQEs prio 0    -> class 0,  1,024 NOPs
 *   D  tenant ring-t (normal),      SQEs prio 0    -> class 1,  4,096
 *   B  tenant ring-bulk (bulk),     SQEs prio 0    -> class 2,  8,192
 *      (it asks for class 0: a process cannot raise its tenant's class)
 *   C  tenant ring-crit (critical), SQEs prio 3    -> class 3,  8,192
 *      (a process may lower its own SQEs)
 * The poller serves class by class, 256/64/16/4 SQEs per ring and pass:
 * A finishes in 4 passes, D in 64, B in 512.  Each time one finishes,
 * every less urgent ring must have produced less than half of its
 * backlog (served alike, all would be at the same count: the finished
 * ring's backlog or more), and all of them still finish, in order,
 * each CQE its SQE's.
 */
TEST(priority_classes_order_the_poller)
{
	enum { A, D, B, C, NR };
	static const uint32_t n[NR] = { 1024, 4096, 8192, 8192 };
	static const uint8_t prio[NR] = { 0, 0, 0, 3 };
	static const char *const name[NR] = { "A", "D", "B", "C" };
	struct sched_param sp = { .sched_priority = 10 };
	struct rings r[NR];
	uint32_t seen[NR], i, bad = 0;
	int k, j, ret;
	bool ok;

	ASSERT_EQ(0, ring_tenant_status) TH_LOG("%s", ring_tenant_error);
	prio_tenants_down();
	memset(r, 0, sizeof(r));
	ret = prio_tenant_up("ring-crit", CG_RING_CRIT, TXRDMA_PRIO_CRITICAL);
	ASSERT_EQ(0, ret) TH_LOG("tenant ring-crit: %s", strerror(-ret));
	ret = prio_tenant_up("ring-bulk", CG_RING_BULK, TXRDMA_PRIO_BULK);
	ASSERT_EQ(0, ret) TH_LOG("tenant ring-bulk: %s", strerror(-ret));
	/* a ring belongs to the tenant of the process that sets it up */
	ASSERT_EQ(0, cg_enter(CG_RING_CRIT));
	ASSERT_EQ(0, rings_open(&r[A], n[A], n[A]));
	ASSERT_EQ(0, rings_open(&r[C], n[C], n[C]));
	ASSERT_EQ(0, cg_enter(CG_RING_BULK));
	ASSERT_EQ(0, rings_open(&r[B], n[B], n[B]));
	ASSERT_EQ(0, cg_enter(CG_RING));
	ASSERT_EQ(0, rings_open(&r[D], n[D], n[D]));

	for (k = 0; k < NR; k++) {
		for (i = 0; i < n[k]; i++) {
			struct txrdma_sqe *s = next_sqe(&r[k]);

			ASSERT_NE(NULL, s);
			nop(s, ((uint64_t)k << 32) | i);
			s->prio = prio[k];
		}
	}
	/* asleep: nothing is served before the doorbell */
	for (k = 0; k < NR; k++) {
		uint64_t end = now_ns() + 2000000000ull;

		while (!(*r[k].sq_flags & TXRDMA_SQ_F_NEED_WAKEUP) &&
		       now_ns() < end)
			usleep(1000);
		ASSERT_TRUE(*r[k].sq_flags & TXRDMA_SQ_F_NEED_WAKEUP);
	}
	/* see prio_wait() */
	ASSERT_EQ(0, sched_setscheduler(0, SCHED_FIFO, &sp))
		TH_LOG("SCHED_FIFO: %s", strerror(errno));
	/* most urgent first, in case the poller is up already */
	for (k = 0; k < NR; k++)
		__atomic_store_n(r[k].sq_tail, r[k].sq_tail_local,
				 __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (*r[A].sq_flags & TXRDMA_SQ_F_NEED_WAKEUP)
		ASSERT_EQ(0, ioctl(r[A].fd, TXRDMA_IOC_RING_ENTER));

	for (k = 0; k < NR; k++) {
		ok = prio_wait(r, NR, k, n[k], seen, &bad);
		EXPECT_TRUE(ok) TH_LOG("ring %s: %u of %u CQEs", name[k],
				       produced(&r[k]), n[k]);
		if (!ok)
			break;
		TH_LOG("ring %s (%u NOPs) done: A %u D %u B %u C %u",
		       name[k], n[k], seen[A], seen[D], seen[B], seen[C]);
		for (j = k + 1; j < NR; j++) {
			const char *late = name[j];

			EXPECT_LT(seen[j], n[j] / 2)
				TH_LOG("ring %s served as early as %s", late,
				       name[k]);
		}
	}
	EXPECT_EQ(0, bad) TH_LOG("CQEs not those of their SQEs, in order");
	for (k = 0; k < NR; k++) {
		EXPECT_EQ(0, *r[k].sq_dropped);
		rings_close(&r[k]);
	}
	prio_tenants_down();
}

TEST_HARNESS_MAIN
