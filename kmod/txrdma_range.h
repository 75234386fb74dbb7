/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Byte ranges of a region: exports, imports and receive rings.  Pure
 * arithmetic on untrusted u64 values (a process or a peer chose them),
 * so every test is written not to wrap; KUnit covers the edges
 * (tests/txrdma_range_kunit.c).
 */
#ifndef _TXRDMA_RANGE_H
#define _TXRDMA_RANGE_H

#include <linux/types.h>

/**
 * txrdma_range_valid() - a non-empty range that does not wrap
 * @off: first byte
 * @len: bytes
 *
 * Return: true when @len > 0 and @off + @len fits in 64 bits (it may
 * reach U64_MAX + 1 exactly: the last byte is U64_MAX).
 */
static inline bool txrdma_range_valid(u64 off, u64 len)
{
	return len && len - 1 <= U64_MAX - off;
}

/**
 * txrdma_range_overlap() - whether two valid ranges share a byte
 * @a_off: first range's first byte
 * @a_len: its length (> 0)
 * @b_off: second range's first byte
 * @b_len: its length (> 0)
 *
 * Written with last bytes, so that ranges ending at U64_MAX compare
 * right.
 */
static inline bool txrdma_range_overlap(u64 a_off, u64 a_len, u64 b_off,
					u64 b_len)
{
	return a_off <= b_off + (b_len - 1) && b_off <= a_off + (a_len - 1);
}

/**
 * txrdma_range_within() - whether [@off, @off + @len) lies in a range
 * @off: first byte asked for
 * @len: bytes asked for (0 is within when @off is in or at the end)
 * @in_off: the range's first byte
 * @in_len: its length
 */
static inline bool txrdma_range_within(u64 off, u64 len, u64 in_off,
				       u64 in_len)
{
	return off >= in_off && off - in_off <= in_len &&
	       len <= in_len - (off - in_off);
}

#endif /* _TXRDMA_RANGE_H */
