// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Host tests of libtxrdma's send buffers (txrdma_bufs_init/fini and the
 * inline txrdma_buf_get/put/off, txrdma_prep_send_buf).  No kernel: the
 * "region" is malloc'ed memory of the given size, so ASan reports any
 * buffer that reaches past it.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <txrdma.h>
#include "tap.h"

#define REG_SIZE	(1U << 20)

static struct txrdma_region reg;

static void region_up(void)
{
	if (!reg.addr) {
		reg.addr = malloc(REG_SIZE);
		reg.id = 7;
		reg.size = REG_SIZE;
	}
}

/* bad arguments: -EINVAL and the pool untouched */
static void test_init_refuses(void)
{
	struct txrdma_bufs b, keep;
	struct txrdma_region none = { 0 };

	region_up();
	memset(&b, 0xa5, sizeof(b));
	keep = b;
	TAP_CHECK_INT(txrdma_bufs_init(&b, &reg, 0, 0, 4), -EINVAL);
	TAP_CHECK_INT(txrdma_bufs_init(&b, &reg, 0, 64, 0), -EINVAL);
	TAP_CHECK_INT(txrdma_bufs_init(NULL, &reg, 0, 64, 4), -EINVAL);
	TAP_CHECK_INT(txrdma_bufs_init(&b, NULL, 0, 64, 4), -EINVAL);
	TAP_CHECK_INT(txrdma_bufs_init(&b, &none, 0, 64, 4), -EINVAL);
	/* one byte too many, past the end, and sizes that overflow */
	TAP_CHECK_INT(txrdma_bufs_init(&b, &reg, 1, 1024, REG_SIZE / 1024),
		      -EINVAL);
	TAP_CHECK_INT(txrdma_bufs_init(&b, &reg, REG_SIZE + 1, 1, 1), -EINVAL);
	TAP_CHECK_INT(txrdma_bufs_init(&b, &reg, UINT64_MAX, 64, 1), -EINVAL);
	TAP_CHECK_INT(txrdma_bufs_init(&b, &reg, 64, UINT32_MAX, UINT32_MAX),
		      -EINVAL);
	TAP_CHECK(!memcmp(&b, &keep, sizeof(b)));
	/* exactly the region is fine */
	TAP_CHECK_INT(txrdma_bufs_init(&b, &reg, 0, 1024, REG_SIZE / 1024), 0);
	txrdma_bufs_fini(&b);
	TAP_CHECK_INT(txrdma_bufs_init(&b, &reg, REG_SIZE, 1, 0), -EINVAL);
	txrdma_bufs_fini(NULL);
}

/*
 * Every buffer once, in address order, inside [off, off + size * count)
 * of the region, none overlapping; then none; then LIFO reuse.
 */
static void test_get_put(void)
{
	const __u32 size = 4096, count = 200;
	const __u64 off = 8192;
	struct txrdma_bufs b;
	unsigned char *seen = calloc(count, 1);
	__u32 idx, i, first_put;
	char *p;

	region_up();
	TAP_CHECK_INT(txrdma_bufs_init(&b, &reg, off, size, count), 0);
	TAP_CHECK_INT(b.region, reg.id);
	TAP_CHECK_INT(b.nfree, count);
	for (i = 0; i < count; i++) {
		p = txrdma_buf_get(&b, &idx);
		if (!TAP_CHECK(p != NULL))
			break;
		TAP_CHECK_INT(idx, i);
		TAP_CHECK(!seen[idx]);
		seen[idx] = 1;
		TAP_CHECK(p == (char *)reg.addr + txrdma_buf_off(&b, idx));
		TAP_CHECK(txrdma_buf_off(&b, idx) == off + (__u64)idx * size);
		/* the whole buffer is writable region memory (ASan) */
		memset(p, (int)idx, size);
	}
	TAP_CHECK_INT(b.nfree, 0);
	TAP_CHECK(txrdma_buf_get(&b, &idx) == NULL);
	/* what was written stayed in its own buffer */
	for (i = 0; i < count; i++)
		if (((unsigned char *)reg.addr)[off + (__u64)i * size + size - 1] !=
		    (unsigned char)i)
			break;
	TAP_CHECK_INT(i, count);
	first_put = 17;
	txrdma_buf_put(&b, first_put);
	txrdma_buf_put(&b, 3);
	TAP_CHECK(txrdma_buf_get(&b, &idx) != NULL);
	TAP_CHECK_INT(idx, 3);
	TAP_CHECK(txrdma_buf_get(&b, &idx) != NULL);
	TAP_CHECK_INT(idx, first_put);
	TAP_CHECK(txrdma_buf_get(&b, &idx) == NULL);
	txrdma_bufs_fini(&b);
	TAP_CHECK(b.free == NULL && b.nfree == 0);
	free(seen);
}

/* the SQE names the region, the buffer's offset and the length */
static void test_prep_send_buf(void)
{
	struct txrdma_bufs b;
	struct txrdma_sqe sqe;
	__u32 idx = 0;

	region_up();
	TAP_CHECK_INT(txrdma_bufs_init(&b, &reg, 64, 256, 8), 0);
	TAP_CHECK(txrdma_buf_get(&b, &idx) != NULL);
	TAP_CHECK(txrdma_buf_get(&b, &idx) != NULL);
	/* as txrdma_get_sqe() hands it out, with a stale flags and prio */
	memset(&sqe, 0, sizeof(sqe));
	sqe.flags = 0xffff;
	sqe.prio = 3;
	txrdma_prep_send_buf(&sqe, 42, &b, idx, 100, 0xabcULL);
	TAP_CHECK_INT(sqe.opcode, TXRDMA_OP_SEND);
	TAP_CHECK_INT(sqe.ep, 42);
	TAP_CHECK_INT(sqe.local_region, reg.id);
	TAP_CHECK(sqe.local_off == 64 + 256);
	TAP_CHECK_INT(sqe.len, 100);
	TAP_CHECK(sqe.user_data == 0xabcULL);
	TAP_CHECK(!sqe.flags && !sqe.prio && !sqe.remote_region &&
		  !sqe.remote_off && !sqe.resv1 && !sqe.resv2[0] &&
		  !sqe.resv2[1]);
	txrdma_bufs_fini(&b);
}

static const struct tap_test tests[] = {
	TAP_TEST(test_init_refuses, "bufs: bad arguments refused, pool untouched"),
	TAP_TEST(test_get_put, "bufs: every buffer once, in the region, then LIFO reuse"),
	TAP_TEST(test_prep_send_buf, "bufs: the SEND names region, offset and length"),
};

int main(void)
{
	int ret = TAP_MAIN(tests);

	free(reg.addr);
	return ret;
}
