/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * libtxrdma internals, not installed: a frame checked by the process
 * ahead of the kernel's publication (txrdma_frame_check.c), for
 * __txrdma_rx_peek_ahead() (uapi <linux/txrdma_ring.h> "Reading ahead").
 */
#ifndef TXRDMA_FRAME_CHECK_H
#define TXRDMA_FRAME_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include <linux/txrdma_ring.h>

#define TXRDMA_FRAME_CHECK_VERSION	1

/**
 * struct txrdma_frame_expect - what the frame due next must say
 * @ep: our endpoint (its dst_ep)
 * @peer_ep: the sending endpoint (its src_ep)
 * @epoch: the pair's incarnation
 * @seq: the sequence number due
 * @max_len: the longest payload we take
 * @unit: where it must start, free-running (the trailer says so)
 */
struct txrdma_frame_expect {
	uint32_t ep;
	uint32_t peer_ep;
	uint32_t epoch;
	uint32_t seq;
	uint32_t max_len;
	uint32_t unit;
};

uint32_t txrdma_crc32c_update(uint32_t crc, const void *p, size_t n);
uint32_t txrdma_crc32c_table_update(uint32_t crc, const void *p, size_t n);

/**
 * txrdma_frame_check_ahead() - is the frame at @frame complete and due?
 * @frame: where the next frame is due in the ring (a unit)
 * @room_units: units from @frame to the ring's end that it may take
 * @x: what it must say
 * @len: set to its payload length when it is taken
 *
 * Return: the units the frame takes when every field is the expected
 * one, it carries TXRDMA_FRAME_F_DATA_CRC and TXRDMA_FRAME_F_TRAILER,
 * the trailer repeats its sequence number and names @x->unit, and the
 * CRC32C over
 * its header and payload matches; 0 when not (yet): bytes still being
 * written, a previous lap's frame, or anything else.
 */
unsigned int txrdma_frame_check_ahead(const volatile unsigned char *frame,
				      unsigned int room_units,
				      const struct txrdma_frame_expect *x,
				      uint32_t *len);

#endif /* TXRDMA_FRAME_CHECK_H */
