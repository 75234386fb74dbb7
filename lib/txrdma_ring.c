// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libtxrdma: setting up the data-path rings from the offsets the kernel
 * returned.  The fast path is static inline in <txrdma_ring.h>; this is
 * the one-time check that makes it safe: every word and array the inline
 * helpers will touch lies inside the mapping, is aligned, and overlaps
 * nothing it must not.  Likewise for an endpoint's receive ring, whose
 * layout is fixed (TXRDMA_RX_* in <linux/txrdma_ring.h>).
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "txrdma.h"
#include "txrdma_int.h"

_Static_assert(sizeof(struct txrdma_sqe) == 64, "txrdma_sqe ABI size");
_Static_assert(sizeof(struct txrdma_cqe) == 32, "txrdma_cqe ABI size");
_Static_assert(sizeof(struct txrdma_sq_offsets) == 48, "sq_offsets ABI size");
_Static_assert(sizeof(struct txrdma_cq_offsets) == 40, "cq_offsets ABI size");
_Static_assert(sizeof(struct txrdma_ring_setup) == 152, "ring_setup ABI size");
_Static_assert(sizeof(struct txrdma_frame_hdr) == 32, "frame header size");
/* txrdma_rx_peek() counts a trailer's bytes as the flag shifted by 2 */
_Static_assert((TXRDMA_FRAME_F_TRAILER << 2) == TXRDMA_FRAME_TRAILER_LEN,
	       "trailer flag and length");

/* [off, off + len) of the mapping, 64-bit so nothing overflows */
struct ring_span {
	uint64_t off;
	uint64_t len;
	uint64_t align;
};

/*
 * Every span inside [0, map_len), aligned (as an address: the mapping's
 * base counts too), and no two overlapping.
 */
static int spans_ok(uintptr_t base, size_t map_len,
		    const struct ring_span *s, unsigned int n)
{
	unsigned int i, j;

	for (i = 0; i < n; i++) {
		if (s[i].len == 0 || s[i].off > map_len ||
		    s[i].len > map_len - s[i].off)
			return 0;
		if ((base + (uintptr_t)s[i].off) & (uintptr_t)(s[i].align - 1))
			return 0;
		for (j = 0; j < i; j++)
			if (s[i].off < s[j].off + s[j].len &&
			    s[j].off < s[i].off + s[i].len)
				return 0;
	}
	return 1;
}

static int entries_ok(__u32 entries, __u32 mask)
{
	return entries && !(entries & (entries - 1)) && mask == entries - 1;
}

static unsigned int *word(void *base, __u32 off)
{
	return (unsigned int *)((char *)base + off);
}

static int map_ok(const void *base, size_t map_len)
{
	return base && map_len <= UINTPTR_MAX - (uintptr_t)base;
}

TXRDMA_EXPORT int txrdma_sq_init(struct txrdma_sq *sq, void *base,
				 size_t map_len,
				 const struct txrdma_sq_offsets *off)
{
	struct ring_span words[6];
	struct ring_span all[7];
	__u32 entries, mask, head, tail;
	unsigned int i;

	if (!sq || !off || !map_ok(base, map_len))
		return -EINVAL;

	/* the words first: ring_entries must be readable to size the array */
	words[0] = (struct ring_span){ off->head, 4, 4 };
	words[1] = (struct ring_span){ off->tail, 4, 4 };
	words[2] = (struct ring_span){ off->flags, 4, 4 };
	words[3] = (struct ring_span){ off->dropped, 4, 4 };
	words[4] = (struct ring_span){ off->ring_mask, 4, 4 };
	words[5] = (struct ring_span){ off->ring_entries, 4, 4 };
	if (!spans_ok((uintptr_t)base, map_len, words, 6))
		return -EINVAL;

	entries = *word(base, off->ring_entries);
	mask = *word(base, off->ring_mask);
	if (!entries_ok(entries, mask))
		return -EINVAL;

	for (i = 0; i < 6; i++)
		all[i] = words[i];
	all[6] = (struct ring_span){ off->sqes,
		(uint64_t)entries * sizeof(struct txrdma_sqe),
		_Alignof(struct txrdma_sqe) };
	if (!spans_ok((uintptr_t)base, map_len, all, 7))
		return -EINVAL;

	head = __atomic_load_n(word(base, off->head), __ATOMIC_ACQUIRE);
	tail = *word(base, off->tail);
	if (tail - head > entries)
		return -EINVAL;

	memset(sq, 0, sizeof(*sq));
	sq->khead = word(base, off->head);
	sq->ktail = word(base, off->tail);
	sq->kflags = word(base, off->flags);
	sq->kdropped = word(base, off->dropped);
	sq->ring_mask = mask;
	sq->ring_entries = entries;
	sq->sqes = (struct txrdma_sqe *)((char *)base + off->sqes);
	sq->sqe_head = tail;
	sq->sqe_tail = tail;
	return 0;
}

TXRDMA_EXPORT int txrdma_cq_init(struct txrdma_cq *cq, void *base,
				 size_t map_len,
				 const struct txrdma_cq_offsets *off)
{
	struct ring_span words[5];
	struct ring_span all[6];
	__u32 entries, mask, head, tail;
	unsigned int i;

	if (!cq || !off || !map_ok(base, map_len))
		return -EINVAL;

	words[0] = (struct ring_span){ off->head, 4, 4 };
	words[1] = (struct ring_span){ off->tail, 4, 4 };
	words[2] = (struct ring_span){ off->overflow, 4, 4 };
	words[3] = (struct ring_span){ off->ring_mask, 4, 4 };
	words[4] = (struct ring_span){ off->ring_entries, 4, 4 };
	if (!spans_ok((uintptr_t)base, map_len, words, 5))
		return -EINVAL;

	entries = *word(base, off->ring_entries);
	mask = *word(base, off->ring_mask);
	if (!entries_ok(entries, mask))
		return -EINVAL;

	for (i = 0; i < 5; i++)
		all[i] = words[i];
	all[5] = (struct ring_span){ off->cqes,
		(uint64_t)entries * sizeof(struct txrdma_cqe),
		_Alignof(struct txrdma_cqe) };
	if (!spans_ok((uintptr_t)base, map_len, all, 6))
		return -EINVAL;

	head = *word(base, off->head);
	tail = __atomic_load_n(word(base, off->tail), __ATOMIC_ACQUIRE);
	if (tail - head > entries)
		return -EINVAL;

	memset(cq, 0, sizeof(*cq));
	cq->khead = word(base, off->head);
	cq->ktail = word(base, off->tail);
	cq->koverflow = word(base, off->overflow);
	cq->ring_mask = mask;
	cq->ring_entries = entries;
	cq->cqes = (struct txrdma_cqe *)((char *)base + off->cqes);
	cq->cqe_head = head;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Receive rings                                                       */

_Static_assert(TXRDMA_RX_OFF_TAIL % 4 == 0 && TXRDMA_RX_OFF_ERROR % 4 == 0 &&
	       TXRDMA_RX_OFF_HEAD % 4 == 0 &&
	       TXRDMA_RX_OFF_HEAD + 4 <= TXRDMA_RX_HDR_LEN &&
	       TXRDMA_RX_HDR_LEN % TXRDMA_FRAME_UNIT == 0,
	       "receive ring header layout");

static int rx_units_ok(__u32 units)
{
	return units >= TXRDMA_RX_MIN_UNITS && units <= TXRDMA_RX_MAX_UNITS &&
	       !(units & (units - 1));
}

TXRDMA_EXPORT size_t txrdma_rx_area_size(__u32 units)
{
	if (!rx_units_ok(units))
		return 0;
	return TXRDMA_RX_HDR_LEN + (size_t)units * TXRDMA_FRAME_UNIT;
}

TXRDMA_EXPORT int txrdma_rx_init(struct txrdma_rx *rx, struct txrdma_ctx *ctx,
				 const struct txrdma_sq *sq, void *area,
				 __u32 units)
{
	unsigned char *a = area;
	unsigned int head, tail, max;

	if (!rx || !ctx || !sq || !area || !rx_units_ok(units))
		return -EINVAL;
	if (((uintptr_t)a & (TXRDMA_FRAME_UNIT - 1)) ||
	    !map_ok(a, txrdma_rx_area_size(units)))
		return -EINVAL;

	tail = __atomic_load_n((unsigned int *)(a + TXRDMA_RX_OFF_TAIL),
			       __ATOMIC_ACQUIRE);
	head = *(unsigned int *)(a + TXRDMA_RX_OFF_HEAD);
	/* a head read ahead of the tail (a ring that reads ahead) is less
	 * than a ring ahead
	 */
	if ((int)(head - tail) > 0 ?
	    !*(unsigned int *)(a + TXRDMA_RX_OFF_AHEAD_MAX) ||
	    head - tail > units : tail - head > units)
		return -EINVAL;

	memset(rx, 0, sizeof(*rx));
	rx->ktail = (const unsigned int *)(a + TXRDMA_RX_OFF_TAIL);
	rx->kerror = (const unsigned int *)(a + TXRDMA_RX_OFF_ERROR);
	rx->khead = (unsigned int *)(a + TXRDMA_RX_OFF_HEAD);
	rx->units = a + TXRDMA_RX_HDR_LEN;
	rx->ring_units = units;
	rx->ring_mask = units - 1;
	rx->head = head;
	rx->cur_units = 0;
	rx->look_at = head;	/* the first release looks */
	rx->seen_tail = head;
	rx->ctx = ctx;
	rx->sq = sq;
	/*
	 * A kernel without TXRDMA_FEAT_RX_CREDIT_WORDS left max_units 0
	 * (or the process wrote over it): the process keeps the words
	 * itself, with a max_units that makes txrdma_rx_update_due() the
	 * older rule (a quarter since the last doorbell, and every empty
	 * ring).  Such a kernel never reads them.
	 */
	max = *(unsigned int *)(a + TXRDMA_RX_OFF_MAX_UNITS);
	if (!max || max > units / 2) {
		*(unsigned int *)(a + TXRDMA_RX_OFF_MAX_UNITS) = units / 2 + 1;
		*(unsigned int *)(a + TXRDMA_RX_OFF_REPORTED) = head;
	}
	return 0;
}
