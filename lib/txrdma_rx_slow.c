// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libtxrdma: the receive ring's slow sides, out of line.
 *
 * The inline txrdma_rx_peek() handles one case itself, a message
 * published at the head; everything else comes here
 * (__txrdma_rx_peek_slow()): nothing published, a PAD where the sender
 * skipped the ring's end, the endpoint's error, reading ahead of the
 * kernel, and frames that cannot be what the kernel published.
 *
 * The inline txrdma_rx_release() stores the new head, then calls
 * __txrdma_rx_release_look() only when an explicit credit update could
 * be due: when the release emptied what its peek saw published, or
 * crossed the head it was told to look at.  Here the kernel's rule is
 * looked at in full (txrdma_rx_update_due()), the doorbell is
 * considered when an update is due, and the next head to look at is
 * set.
 *
 * Why out of line: what stays inline is a few loads, compares and
 * stores of the struct's own words and the frame's header, with no
 * pointer of the caller's passed anywhere, so a caller's fast path
 * keeps its locals in registers (make ring-ipm counts it).
 */
#include <errno.h>

#include "txrdma.h"
#include "txrdma_int.h"

/*
 * txrdma_rx_peek() in full, as documented in <txrdma_ring.h>: the
 * inline one's common case is this loop's first pass.
 */
int txrdma_rx_peek_full(struct txrdma_rx *rx, const void **payload, __u32 *len)
{
	unsigned int tail = __atomic_load_n(rx->ktail, __ATOMIC_ACQUIRE);
	unsigned int head = rx->head;

	for (;;) {
		const struct txrdma_frame_hdr *hdr;
		unsigned int avail = tail - head;
		unsigned int pos, n;
		__u8 type;
		__u32 l;

		/* one test for 1..ring_units; 0 or below: nothing published */
		if (avail - 1 >= rx->ring_units) {
			unsigned int err;

			if ((int)avail > 0)
				return -EBADMSG;
			/* nothing past the head (or read ahead of it) */
			err = __atomic_load_n(rx->kerror, __ATOMIC_ACQUIRE);
			if (!err) {
				if (__atomic_load_n(__txrdma_rx_word(rx,
						TXRDMA_RX_OFF_AHEAD_MAX),
						    __ATOMIC_RELAXED))
					return __txrdma_rx_peek_ahead(rx,
							payload, len);
				/* a head ahead where nobody reads ahead */
				return avail ? -EBADMSG : 0;
			}
			/* stored after the last tail: it is visible now */
			tail = __atomic_load_n(rx->ktail, __ATOMIC_ACQUIRE);
			if ((int)(tail - head) <= 0)	/* not an errno: garbage */
				return err < 4096 ? -(int)err : -EIO;
			continue;
		}
		pos = head & rx->ring_mask;
		hdr = (const struct txrdma_frame_hdr *)
			(rx->units + (size_t)pos * TXRDMA_FRAME_UNIT);
		type = hdr->type;
		if (type != TXRDMA_FRAME_MSG) {
			if (type != TXRDMA_FRAME_PAD)
				return -EBADMSG;
			/*
			 * No doorbell here: a PAD is published with the
			 * frame after it, whose release counts these units.
			 */
			n = rx->ring_units - pos;
			if (n > avail)
				return -EBADMSG;
			head += n;
			rx->head = head;
			__atomic_store_n(rx->khead, head, __ATOMIC_RELEASE);
			continue;
		}
		l = txrdma_le32(hdr->len);
		if (l > TXRDMA_FRAME_MAX_PAYLOAD)
			return -EBADMSG;
		/* a trailer after the payload takes room too (F_TRAILER
		 * is bit 1: shifted by 2 it is the trailer's 8 bytes)
		 */
		n = (TXRDMA_FRAME_HDR_LEN + l + TXRDMA_FRAME_UNIT - 1 +
		     ((hdr->flags & TXRDMA_FRAME_F_TRAILER) << 2)) /
		    TXRDMA_FRAME_UNIT;
		if (n > avail || n > rx->ring_units - pos)
			return -EBADMSG;
		rx->cur_units = n;
		rx->seen_tail = tail;
		*payload = (const unsigned char *)hdr + TXRDMA_FRAME_HDR_LEN;
		*len = l;
		return 1;
	}
}

TXRDMA_EXPORT int __txrdma_rx_peek_slow(struct txrdma_rx *rx)
{
	const void *payload;
	__u32 len;
	int ret = txrdma_rx_peek_full(rx, &payload, &len);

	/* a length is at most TXRDMA_FRAME_MAX_PAYLOAD: no overflow */
	return ret == 1 ? 1 + (int)len : ret;
}

/*
 * The quarter rule cannot be due before the reported word plus a
 * quarter ring; the word only grows (the kernel reports more), so a
 * later load can only move that point further and looking early is
 * never wrong.  A word not behind the head by less than a quarter (due
 * now, or one the process wrote over) makes every release look, as
 * before.  A word the process moved back makes the doorbell wait for
 * this look's quarter or for the ring to empty: it only delays its own
 * sender.
 */
TXRDMA_EXPORT void __txrdma_rx_release_look(struct txrdma_rx *rx,
					    unsigned int head)
{
	const unsigned int *reported = (const unsigned int *)
		((const unsigned char *)rx->khead - TXRDMA_RX_OFF_HEAD +
		 TXRDMA_RX_OFF_REPORTED);
	unsigned int quarter = rx->ring_units / 4, unreported;

	if (txrdma_rx_update_due(rx, head)) {
		__txrdma_rx_note_due(rx, head);
		if (txrdma_sq_needs_wakeup(rx->sq))
			(void)txrdma_rings_enter(rx->ctx);
	}
	/* a session's ring is due at fewer units than a quarter */
	if (__txrdma_rx_session(rx) && quarter > TXRDMA_RX_SESSION_DUE_UNITS)
		quarter = TXRDMA_RX_SESSION_DUE_UNITS;
	unreported = head - __atomic_load_n(reported, __ATOMIC_RELAXED);
	rx->look_at = unreported < quarter ? head + (quarter - unreported) :
					     head + 1;
}
