// SPDX-License-Identifier: GPL-2.0-only
/*
 * The hostile tenant's operations on the memory it shares with the
 * module: words of its rings and receive rings scribbled with random
 * or near-valid values, SQEs written and published, doorbells and
 * polls, and mappings of the rings and regions at any offset, length
 * and protection (see hostile.c).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hostile.h"

/* ---- words to scribble on ------------------------------------------- */

uint32_t near_value(struct at_rng *r, uint32_t old, uint32_t entries)
{
	switch (at_below(r, 10)) {
	case 0: return at_rand(r);
	case 1: return old + 1;
	case 2: return old - 1;
	case 3: return old + entries;
	case 4: return old - entries;
	case 5: return old + entries + 1;
	case 6: return 0;
	case 7: return ~0U;
	case 8: return old ^ (1U << at_below(r, 32));
	default: return old + 0x80000000U;
	}
}

/* a word of file @i's mappings: its address, entries for near values */
static uint32_t *pick_word(struct at_rng *r, int i, uint32_t *entries,
			   const char **what)
{
	struct at_file *f = &hf[i];
	const struct txrdma_sq_offsets *sq = &f->rs.sq_off;
	const struct txrdma_cq_offsets *cq = &f->rs.cq_off;
	uint32_t sqn = f->rs.sq_entries, cqn = f->rs.cq_entries, t, e;
	char *ring = f->ring, *reg = f->region_addr;
	const uint32_t sq_words[] = { sq->head, sq->tail, sq->flags,
				      sq->dropped, sq->ring_mask,
				      sq->ring_entries };
	const uint32_t cq_words[] = { cq->head, cq->tail, cq->overflow,
				      cq->ring_mask, cq->ring_entries };
	static const char *const names[] = {
		"sq.head", "sq.tail", "sq.flags", "sq.dropped", "sq.mask",
		"sq.entries", "cq.head", "cq.tail", "cq.overflow", "cq.mask",
		"cq.entries",
	};

	*entries = sqn;
	t = at_below(r, 17);
	if (t < 6) {
		*what = names[t];
		return (uint32_t *)(ring + sq_words[t]);
	}
	if (t < 11) {
		*what = names[t];
		*entries = cqn;
		return (uint32_t *)(ring + cq_words[t - 6]);
	}
	switch (t) {
	case 11:
		*what = "sqe";
		return (uint32_t *)(ring + sq->sqes) + at_below(r, sqn * 16);
	case 12:
		*what = "cqe";
		*entries = cqn;
		return (uint32_t *)(ring + cq->cqes) + at_below(r, cqn * 8);
	case 13:
		*what = "ring";
		return (uint32_t *)ring + at_below(r, f->rs.mmap_len / 4);
	case 14:
		*what = "region";
		return (uint32_t *)reg + at_below(r, REGION / 4);
	default:
		/* a receive ring: one of this file's live endpoints' */
		e = at_below(r, NEP);
		*entries = eps[e].units ? eps[e].units : 16;
		reg += e * RX_SLOT;
		switch (at_below(r, 4)) {
		case 0: *what = "rx.tail"; return (uint32_t *)(reg + TXRDMA_RX_OFF_TAIL);
		case 1: *what = "rx.error"; return (uint32_t *)(reg + TXRDMA_RX_OFF_ERROR);
		case 2: *what = "rx.head"; return (uint32_t *)(reg + TXRDMA_RX_OFF_HEAD);
		default:
			*what = "rx.unit";
			return (uint32_t *)(reg + TXRDMA_RX_HDR_LEN) +
			       at_below(r, *entries * 16);
		}
	}
}

struct scribble {
	struct at_rng *r;
	uint32_t *w, entries;
};

static void scribble_word(void *p)
{
	struct scribble *s = p;
	uint32_t v = near_value(s->r, __atomic_load_n(s->w, __ATOMIC_RELAXED),
				s->entries);

	LOG("= %#x", v);
	__atomic_store_n(s->w, v, __ATOMIC_RELEASE);
}

void op_scribble(struct at_rng *r)
{
	int i = at_below(r, NF);
	struct scribble s = { .r = r };
	const char *what;

	if (!hf[i].ring || !hf[i].region_addr)
		return;
	s.w = pick_word(r, i, &s.entries, &what);
	LOG("scribble file %d %s at %p", i, what, (void *)s.w);
	guarded(scribble_word, &s);
}

/* ---- SQEs ------------------------------------------------------------ */

static void fill_sqe(struct at_rng *r, struct txrdma_sqe *q, int i)
{
	uint32_t e = some_id(r, i);
	uint32_t max = 64 << 10;

	memset(q, 0, sizeof(*q));
	q->opcode = at_below(r, 16) ? at_below(r, TXRDMA_OP_LAST + 1) :
				      at_rand(r);
	q->prio = at_below(r, 8) ? at_below(r, TXRDMA_PRIO_CLASSES) : at_rand(r);
	q->flags = at_below(r, 8) ? at_below(r, 2) : at_rand(r);
	q->ep = e;
	switch (at_below(r, 4)) {
	case 0:
	case 1: q->local_region = hf[i].region; break;
	case 2: q->local_region = hf[at_below(r, NF)].region; break;
	default: q->local_region = nregs ? regs[at_below(r, nregs)] : at_rand(r);
	}
	q->len = at_below(r, 4) ? at_below(r, max) : at_rand(r);
	q->local_off = at_below(r, 4) ? TXRDMA_REGION_HUGE_SIZE +
					at_below(r, TXRDMA_REGION_HUGE_SIZE) :
					REGION - at_below(r, 2 * max);
	q->remote_region = at_below(r, 2) ? q->local_region : at_rand(r);
	q->remote_off = at_below(r, 2) ? at_below(r, REGION) : at_rand(r);
	if (!at_below(r, 16))
		q->resv1 = at_rand(r) | 1;
	q->user_data = opn;
}

struct sqes {
	struct at_rng *r;
	int file;
	unsigned int n;
	bool reap;
};

static void write_sqes(void *p)
{
	struct sqes *q = p;
	struct at_file *f = &hf[q->file];
	char *ring = f->ring;
	uint32_t *tail = (uint32_t *)(ring + f->rs.sq_off.tail);
	uint32_t *cq_head = (uint32_t *)(ring + f->rs.cq_off.head);
	uint32_t *cq_tail = (uint32_t *)(ring + f->rs.cq_off.tail);
	struct txrdma_sqe *sqes = (struct txrdma_sqe *)(ring + f->rs.sq_off.sqes);
	uint32_t t = __atomic_load_n(tail, __ATOMIC_RELAXED), k;

	LOG("at tail %u", t);
	for (k = 0; k < q->n; k++)
		fill_sqe(q->r, &sqes[(t + k) & (f->rs.sq_entries - 1)], q->file);
	__atomic_store_n(tail, t + q->n, __ATOMIC_RELEASE);
	if (!q->reap)
		return;
	/* whatever completed, and whatever arrived: traffic flows */
	__atomic_store_n(cq_head, __atomic_load_n(cq_tail, __ATOMIC_ACQUIRE),
			 __ATOMIC_RELEASE);
	for (k = 0; k < NEP; k++) {
		char *rx = (char *)f->region_addr + k * RX_SLOT;

		if (!eps[k].live || eps[k].file != q->file || !f->region_addr)
			continue;
		__atomic_store_n((uint32_t *)(rx + TXRDMA_RX_OFF_HEAD),
				 __atomic_load_n((uint32_t *)(rx + TXRDMA_RX_OFF_TAIL),
						 __ATOMIC_ACQUIRE),
				 __ATOMIC_RELEASE);
	}
}

void op_sqes(struct at_rng *r)
{
	struct sqes q = { r, at_below(r, NF), 1 + at_below(r, 8),
			  at_below(r, 5) != 0 };

	if (!hf[q.file].ring)
		return;
	LOG("sqes file %d n %u reap %d", q.file, q.n, q.reap);
	guarded(write_sqes, &q);
	if (at_below(r, 2))
		ioctl(hf[q.file].fd, TXRDMA_IOC_RING_ENTER, 0);
}

void op_doorbell(struct at_rng *r)
{
	int i = at_below(r, NF + 1);
	int fd = i < NF ? hf[i].fd : -1;

	LOG("doorbell file %d", i);
	if (fd >= 0 && at_below(r, 4) == 0) {	/* or wait for news */
		struct pollfd pfd = { .fd = fd, .events = POLLIN | POLLOUT };

		poll(&pfd, 1, 0);
		return;
	}
	if (fd < 0) {		/* a file without rings */
		fd = open("/dev/" TXRDMA_DEVICE_NAME, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			return;
		ioctl(fd, TXRDMA_IOC_RING_ENTER, 0);
		close(fd);
		return;
	}
	ioctl(fd, TXRDMA_IOC_RING_ENTER, 0);
}

/* ---- mappings ------------------------------------------------------- */

void keep_xmap(struct at_rng *r, void *addr, size_t len)
{
	unsigned int k = at_below(r, NXMAP);

	if (xmaps[k].addr)
		munmap(xmaps[k].addr, xmaps[k].len);
	xmaps[k].addr = addr;
	xmaps[k].len = len;
}

struct touch {
	volatile uint8_t *m;
	size_t len, at;
	uint8_t v;
	bool read, write;
};

static void touch(void *p)
{
	struct touch *t = p;

	if (t->read)
		(void)(t->m[0] + t->m[t->len - 1]);
	if (t->write)
		t->m[t->at] = t->v;
}

/* read both ends of [m, m + len) and/or write byte @at, guarded */
void touch_guarded(void *m, size_t len, size_t at, uint8_t v, bool read,
		   bool write)
{
	struct touch t = { m, len, at, v, read, write };

	guarded(touch, &t);
}

void op_mmap(struct at_rng *r)
{
	static const int prots[] = {
		PROT_READ | PROT_WRITE, PROT_READ, PROT_WRITE, PROT_NONE,
		PROT_READ | PROT_WRITE | PROT_EXEC,
	};
	int i = at_below(r, NF), prot = prots[at_below(r, 5)];
	int flags = at_below(r, 4) ? MAP_SHARED : MAP_PRIVATE;
	struct at_file *f = &hf[i];
	volatile uint8_t *m;
	uint64_t off;
	size_t len;

	switch (at_below(r, 7)) {
	case 0:
		off = 0;
		len = at_below(r, 2) ? f->rs.mmap_len :
		      PG * (1 + at_below(r, f->rs.mmap_len / PG + 2));
		break;
	case 1:
		off = f->region_off + PG * at_below(r, REGION / PG + 4);
		len = PG * (1 + at_below(r, 1024));
		break;
	case 2:
		off = f->region_off;
		len = REGION + PG * at_below(r, 4);
		break;
	case 3:		/* a region this process destroyed, maybe */
		off = (uint64_t)(nregs ? regs[at_below(r, nregs)] : 1) << 40;
		len = PG * (1 + at_below(r, 512));
		break;
	case 4:
		off = (uint64_t)at_below(r, 64) << 40 | PG * at_below(r, 16);
		len = PG * (1 + at_below(r, 16));
		break;
	case 5:		/* an xmap's file may be gone: map what is still there */
		off = f->region_off + REGION - PG;
		len = 2 * PG;
		break;
	default:
		off = at_rand(r) & ((1ULL << 52) - 1) & ~(PG - 1);
		len = PG;
		break;
	}
	LOG("mmap file %d off %#llx len %#zx prot %d %s", i,
	    (unsigned long long)off, len, prot,
	    flags == MAP_SHARED ? "shared" : "private");
	m = mmap(NULL, len, prot, flags, f->fd, off);
	if (m == MAP_FAILED)
		return;
	touch_guarded((void *)m, len, at_below(r, len), at_rand(r),
		      prot & PROT_READ, prot & PROT_WRITE);
	switch (at_below(r, 5)) {
	case 0:
		munmap((void *)m, len);
		break;
	case 1:		/* split the VMA, then unmap the pieces */
		if (len >= 3 * PG) {
			munmap((void *)(m + PG), PG);
			munmap((void *)m, PG);
			munmap((void *)(m + 2 * PG), len - 2 * PG);
		} else {
			munmap((void *)m, len);
		}
		break;
	case 2:
		mprotect((void *)m, len, prots[at_below(r, 5)]);
		munmap((void *)m, len);
		break;
	case 3: {
		void *n = mremap((void *)m, len, len + PG, MREMAP_MAYMOVE);

		munmap(n == MAP_FAILED ? (void *)m : n,
		       n == MAP_FAILED ? len : len + PG);
		break;
	}
	default:
		keep_xmap(r, (void *)m, len);
		break;
	}
}
