// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libtxrdma: send buffers.  A process sends from memory the kernel has
 * registered, so a message is built in place in one of its regions and
 * the SQE names (region, offset, length): no copy on either side.
 * struct txrdma_bufs carves a range of a region into equal buffers and
 * keeps a stack of the free ones; getting, putting and naming a buffer
 * are inline (<txrdma_ring.h>), this file only sets the pool up and
 * tears it down.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "txrdma.h"
#include "txrdma_int.h"

TXRDMA_EXPORT int txrdma_bufs_init(struct txrdma_bufs *b,
				   const struct txrdma_region *r, __u64 off,
				   __u32 size, __u32 count)
{
	__u32 *stack, i;

	if (!b || !r || !r->addr || !size || !count)
		return -EINVAL;
	/* [off, off + size * count) inside the region, without overflow */
	if (off > r->size || (__u64)size * count > r->size - off)
		return -EINVAL;
	stack = malloc((size_t)count * sizeof(*stack));
	if (!stack)
		return -ENOMEM;
	/* buffer 0 on top: handed out first, in address order */
	for (i = 0; i < count; i++)
		stack[i] = count - 1 - i;
	memset(b, 0, sizeof(*b));
	b->free = stack;
	b->region = r->id;
	b->size = size;
	b->count = count;
	b->nfree = count;
	b->off = off;
	b->base = (char *)r->addr + off;
	return 0;
}

TXRDMA_EXPORT void txrdma_bufs_fini(struct txrdma_bufs *b)
{
	if (!b)
		return;
	free(b->free);
	memset(b, 0, sizeof(*b));
}
