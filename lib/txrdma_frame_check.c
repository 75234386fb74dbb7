// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A frame checked by the process itself, ahead of the kernel.
 *
 * The kernel publishes a frame only after the completion of the RDMA
 * WRITE that placed it and its own verdict (kmod/txrdma_frame.c).  To
 * see a frame as soon as its bytes are in the ring, the process must
 * check it in full itself: within one RDMA WRITE the order in which
 * bytes become visible to this CPU is not defined, so a header that
 * looks complete proves nothing.  A frame is taken only if every field
 * is the one expected (type, version, endpoints, epoch, the sequence
 * number due, a length that fits), its trailer repeats the sequence
 * number and names the unit where it must start (free-running: a stale
 * frame of an earlier lap with the same sequence number modulo 2^32
 * names another), and the CRC32C over its header and payload matches;
 * anything else is "not yet", never an error - the kernel's verdict
 * after the completion stays the authority on errors.
 *
 * Two checks because one is not enough: a CRC32C alone takes a torn
 * frame with probability 2^-32 per torn state looked at (at a million
 * frames a second, once in tens of minutes); the trailer alone trusts
 * the writer to place bytes in address order (rxe's memcpy under x86's
 * store order, PCIe posted writes), which the IB specification does not
 * promise.  A torn frame must beat both.
 *
 * CRC32C (Castagnoli, reflected 0x82f63b78), as the kernel's
 * __crc32c_le() with the frame's seed and final inversion: the SSE4.2
 * instruction where the CPU has it, else a table.
 */
#include <stdint.h>
#include <string.h>

#include "txrdma_frame_check.h"

#if defined(__x86_64__)
#include <cpuid.h>
#define TXRDMA_HAVE_SSE42_PATH 1
#endif

static uint32_t crc_table[256];

/* before any constructor of the program's (priority 101 is the first) */
__attribute__((constructor(101)))
static void crc_table_init(void)
{
	uint32_t i, c;
	int k;

	for (i = 0; i < 256; i++) {
		c = i;
		for (k = 0; k < 8; k++)
			c = (c >> 1) ^ (0x82f63b78u & -(c & 1u));
		crc_table[i] = c;
	}
}

static uint32_t crc32c_table(uint32_t crc, const unsigned char *p, size_t n)
{
	while (n--)
		crc = (crc >> 8) ^ crc_table[(crc ^ *p++) & 0xff];
	return crc;
}

#ifdef TXRDMA_HAVE_SSE42_PATH
__attribute__((target("sse4.2")))
static uint32_t crc32c_sse42(uint32_t crc, const unsigned char *p, size_t n)
{
	uint64_t c = crc, v;

	while (n >= 8) {
		memcpy(&v, p, 8);
		c = __builtin_ia32_crc32di(c, v);
		p += 8;
		n -= 8;
	}
	crc = (uint32_t)c;
	while (n--)
		crc = __builtin_ia32_crc32qi(crc, *p++);
	return crc;
}

static int have_sse42 = -1;

__attribute__((constructor(101)))
static void crc_probe(void)
{
	unsigned int a, b, c, d;

	have_sse42 = __get_cpuid(1, &a, &b, &c, &d) && (c & bit_SSE4_2);
}
#endif

uint32_t txrdma_crc32c_update(uint32_t crc, const void *p, size_t n)
{
#ifdef TXRDMA_HAVE_SSE42_PATH
	if (have_sse42 > 0)
		return crc32c_sse42(crc, p, n);
#endif
	return crc32c_table(crc, p, n);
}

uint32_t txrdma_crc32c_table_update(uint32_t crc, const void *p, size_t n)
{
	return crc32c_table(crc, p, n);
}

/* @n bytes (a multiple of 4, from a 4-byte aligned @src), word by word */
static void copy_words(unsigned char *dst, const volatile unsigned char *src,
		       size_t n)
{
	const volatile uint32_t *w = (const volatile uint32_t *)src;
	uint32_t v;
	size_t i;

	for (i = 0; i < n / 4; i++) {
		v = w[i];
		memcpy(dst + i * 4, &v, 4);
	}
}

/* @n bytes at any alignment (a trailer follows any payload length) */
static void copy_bytes(unsigned char *dst, const volatile unsigned char *src,
		       size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		dst[i] = src[i];
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

unsigned int txrdma_frame_check_ahead(const volatile unsigned char *frame,
				      unsigned int room_units,
				      const struct txrdma_frame_expect *x,
				      uint32_t *len_out)
{
	unsigned char h[TXRDMA_FRAME_HDR_LEN], t[TXRDMA_FRAME_TRAILER_LEN];
	uint32_t len, crc;
	unsigned int units;

	/* one copy of the header: every check is on the same bytes */
	copy_words(h, frame, sizeof(h));
	len = le32(h + 16);
	if (h[0] != TXRDMA_FRAME_MSG || h[1] != TXRDMA_FRAME_CHECK_VERSION ||
	    h[2] != (TXRDMA_FRAME_F_DATA_CRC | TXRDMA_FRAME_F_TRAILER) ||
	    h[3] || le32(h + 4) != x->peer_ep || le32(h + 8) != x->ep ||
	    le32(h + 12) != x->seq || le32(h + 24) != x->epoch ||
	    len > x->max_len)
		return 0;
	units = (TXRDMA_FRAME_HDR_LEN + len + TXRDMA_FRAME_TRAILER_LEN +
		 TXRDMA_FRAME_UNIT - 1) / TXRDMA_FRAME_UNIT;
	if (units > room_units)
		return 0;
	/* the trailer: the last bytes an in-order writer makes visible */
	copy_bytes(t, frame + TXRDMA_FRAME_HDR_LEN + len, sizeof(t));
	if (memcmp(t, h + 12, 4) || le32(t + 4) != x->unit)
		return 0;
	/* the payload is read after the trailer, on any CPU */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	crc = txrdma_crc32c_update(~0u, h, 28);
	crc = ~txrdma_crc32c_update(crc, (const unsigned char *)frame +
				    TXRDMA_FRAME_HDR_LEN, len);
	if (crc != le32(h + 28))
		return 0;
	/* what the caller reads next is what was checked */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	*len_out = len;
	return units;
}
