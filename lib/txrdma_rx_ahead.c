// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libtxrdma: taking a frame from the receive ring before the kernel
 * published it (uapi <linux/txrdma_ring.h>, "Reading ahead").
 *
 * txrdma_rx_peek() (in full, out of line: txrdma_rx_slow.c) calls this
 * only when the kernel has published nothing past the process's head,
 * the endpoint has not failed, and the kernel says frames carry
 * trailers for us.  The frame due next lies at the head, or at unit 0
 * when it did not fit before
 * the ring's end (the sender's placement rule); it is taken only when
 * txrdma_frame_check_ahead() finds every field, the trailer and the
 * CRC32C right.  Anything else is "not yet": the kernel publishes the
 * frame after its completion, or fails the endpoint, and the process
 * sees either through the published path.
 *
 * Why this is safe for the kernel: nothing here writes anything the
 * kernel trusts.  The head may run ahead of the kernel's tail; the
 * kernel counts it as released only as far as frames arrived
 * (txrdma_credit_rx_release()), so no credit goes back for units the
 * sender has not finished with.
 */
#include <errno.h>
#include <stdint.h>

#include "txrdma.h"
#include "txrdma_frame_check.h"
#include "txrdma_int.h"

static unsigned int word(const unsigned char *area, unsigned int off)
{
	return __atomic_load_n((const unsigned int *)(area + off),
			       __ATOMIC_RELAXED);
}

static void put(unsigned char *area, unsigned int off, unsigned int v)
{
	__atomic_store_n((unsigned int *)(area + off), v, __ATOMIC_RELAXED);
}

TXRDMA_EXPORT int __txrdma_rx_peek_ahead(struct txrdma_rx *rx,
					 const void **payload, __u32 *len)
{
	unsigned char *area = (unsigned char *)rx->khead - TXRDMA_RX_OFF_HEAD;
	struct txrdma_frame_expect x;
	unsigned int tail, head = rx->head, pos, room, n;
	int again = rx->cur_units != 0;	/* peeked before: counted then */
	const unsigned char *f;
	uint32_t l;

	x.max_len = word(area, TXRDMA_RX_OFF_AHEAD_MAX);
	x.peer_ep = word(area, TXRDMA_RX_OFF_AHEAD_PEER);
	x.ep = word(area, TXRDMA_RX_OFF_AHEAD_EP);
	x.epoch = word(area, TXRDMA_RX_OFF_AHEAD_EPOCH);
	/* off, or the peer's id not learned yet: the kernel's turn */
	if (!x.max_len || !x.peer_ep || !x.ep)
		return 0;
	/*
	 * The sender places nothing more than a ring past what the kernel
	 * reported released, which is at most its tail: a head further
	 * ahead is a word the process overwrote.
	 */
	tail = __atomic_load_n(rx->ktail, __ATOMIC_ACQUIRE);
	if ((int)(head - tail) < 0)	/* published meanwhile: read it so */
		return txrdma_rx_peek_full(rx, payload, len);
	if (head - tail >= rx->ring_units)
		return 0;
	/*
	 * The sequence number due at the head: at the kernel's tail, the
	 * kernel's (stored before that tail; a tail that moved since is
	 * read the published way); past it, one more than the frame this
	 * library last took ahead, which ends at the head (or that frame
	 * again, peeked before its release).  Anything else: not yet.
	 */
	if (head == tail) {
		/*
		 * The kernel stores it after the tail it applies to: one
		 * newer than that tail shows a tail that moved (read the
		 * published way); an older one is a number already taken,
		 * which no frame at the head carries (its trailer's unit)
		 */
		x.seq = __atomic_load_n((const unsigned int *)
					(area + TXRDMA_RX_OFF_AHEAD_KSEQ),
					__ATOMIC_ACQUIRE);
		if (__atomic_load_n(rx->ktail, __ATOMIC_ACQUIRE) != tail)
			return txrdma_rx_peek_full(rx, payload, len);
	} else if (head == word(area, TXRDMA_RX_OFF_AHEAD_END)) {
		x.seq = word(area, TXRDMA_RX_OFF_AHEAD_SEQ) + 1;
	} else if (head == word(area, TXRDMA_RX_OFF_AHEAD_AT)) {
		x.seq = word(area, TXRDMA_RX_OFF_AHEAD_SEQ);
	} else {
		return 0;
	}
	pos = head & rx->ring_mask;
	room = rx->ring_units - pos;
	f = rx->units + (size_t)pos * TXRDMA_FRAME_UNIT;
	x.unit = head;
	n = txrdma_frame_check_ahead(f, room, &x, &l);
	if (!n && pos) {
		/* a frame that did not fit before the end starts at unit 0 */
		x.unit = head + room;
		n = txrdma_frame_check_ahead(rx->units, rx->ring_units, &x,
					     &l);
		if (n <= room)
			return 0;	/* it would have fit: not where it lies */
		/*
		 * The skipped units are released now, as a published PAD
		 * is: the kernel writes its PAD there later, where nobody
		 * reads.
		 */
		head += room;
		rx->head = head;
		__atomic_store_n(rx->khead, head, __ATOMIC_RELEASE);
		f = rx->units;
	}
	if (!n)
		return 0;
	rx->cur_units = n;
	*payload = f + TXRDMA_FRAME_HDR_LEN;
	*len = l;
	put(area, TXRDMA_RX_OFF_AHEAD_SEQ, x.seq);
	put(area, TXRDMA_RX_OFF_AHEAD_AT, head);
	put(area, TXRDMA_RX_OFF_AHEAD_END, head + n);
	if (!again)
		put(area, TXRDMA_RX_OFF_AHEAD_TAKEN,
		    word(area, TXRDMA_RX_OFF_AHEAD_TAKEN) + 1);
	return 1;
}

