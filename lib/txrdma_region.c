// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libtxrdma: tenants and regions.  Thin wrappers around the ioctls that
 * also own the mapping, so that a caller never handles mmap offsets, and
 * that undo a half-done creation so that an error leaves nothing behind.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "txrdma.h"
#include "txrdma_int.h"

_Static_assert(sizeof(struct txrdma_tenant_info) == 56, "tenant_info ABI");
_Static_assert(sizeof(struct txrdma_region_create) == 40, "region_create ABI");
_Static_assert(sizeof(struct txrdma_region_reg_user) == 40, "reg_user ABI");
_Static_assert(sizeof(struct txrdma_region_info) == 48, "region_info ABI");

TXRDMA_EXPORT int txrdma_tenant(struct txrdma_ctx *ctx, __u32 *id, char *name)
{
	struct txrdma_tenant_info ti;

	if (!ctx)
		return -EINVAL;
	memset(&ti, 0, sizeof(ti));
	if (ioctl(txrdma_fd(ctx), TXRDMA_IOC_TENANT_INFO, &ti) < 0)
		return -errno;
	if (id)
		*id = ti.id;
	if (name) {
		memcpy(name, ti.name, sizeof(ti.name));
		name[sizeof(ti.name) - 1] = 0;
	}
	return 0;
}

static int region_destroy_id(struct txrdma_ctx *ctx, __u32 id)
{
	struct txrdma_region_info ri;

	memset(&ri, 0, sizeof(ri));
	ri.id = id;
	return ioctl(txrdma_fd(ctx), TXRDMA_IOC_REGION_DESTROY, &ri) < 0 ?
	       -errno : 0;
}

static int region_map(struct txrdma_ctx *ctx, __u64 size, __u64 offset,
		      void **addr)
{
	void *p;

	if (size > (__u64)SIZE_MAX)
		return -ENOMEM;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 txrdma_fd(ctx), (off_t)offset);
	if (p == MAP_FAILED)
		return -errno;
	*addr = p;
	return 0;
}

TXRDMA_EXPORT int txrdma_region_create(struct txrdma_ctx *ctx, __u64 size,
				       unsigned int flags,
				       struct txrdma_region *out)
{
	struct txrdma_region_create rc;
	int ret;

	if (!ctx || !out)
		return -EINVAL;
	memset(&rc, 0, sizeof(rc));
	rc.size = size;
	rc.flags = flags;
	if (ioctl(txrdma_fd(ctx), TXRDMA_IOC_REGION_CREATE, &rc) < 0)
		return -errno;
	memset(out, 0, sizeof(*out));
	ret = region_map(ctx, size, rc.mmap_offset, &out->addr);
	if (ret) {
		region_destroy_id(ctx, rc.id);
		return ret;
	}
	out->id = rc.id;
	out->kind = TXRDMA_REGION_KIND_POOL;
	out->size = size;
	return 0;
}

TXRDMA_EXPORT int txrdma_region_register(struct txrdma_ctx *ctx, void *addr,
					 __u64 size, struct txrdma_region *out)
{
	struct txrdma_region_reg_user ru;

	if (!ctx || !out)
		return -EINVAL;
	memset(&ru, 0, sizeof(ru));
	ru.addr = (__u64)(uintptr_t)addr;
	ru.size = size;
	if (ioctl(txrdma_fd(ctx), TXRDMA_IOC_REGION_REG_USER, &ru) < 0)
		return -errno;
	memset(out, 0, sizeof(*out));
	out->id = ru.id;
	out->kind = TXRDMA_REGION_KIND_USER;
	out->size = size;
	out->addr = addr;
	return 0;
}

TXRDMA_EXPORT void txrdma_region_close(struct txrdma_region *r)
{
	if (!r)
		return;
	if (r->kind == TXRDMA_REGION_KIND_POOL && r->addr)
		munmap(r->addr, r->size);
	memset(r, 0, sizeof(*r));
}

TXRDMA_EXPORT int txrdma_region_destroy(struct txrdma_ctx *ctx,
					struct txrdma_region *r)
{
	int ret;

	if (!ctx || !r || !r->id)
		return -EINVAL;
	ret = region_destroy_id(ctx, r->id);
	/* our mapping goes either way: the id no longer names it for us */
	txrdma_region_close(r);
	return ret;
}

TXRDMA_EXPORT int txrdma_region_open(struct txrdma_ctx *ctx, __u32 id,
				     struct txrdma_region *out)
{
	struct txrdma_region_info ri;
	int ret;

	if (!ctx || !out)
		return -EINVAL;
	memset(&ri, 0, sizeof(ri));
	ri.id = id;
	if (ioctl(txrdma_fd(ctx), TXRDMA_IOC_REGION_INFO, &ri) < 0)
		return -errno;
	if (ri.kind != TXRDMA_REGION_KIND_POOL)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	ret = region_map(ctx, ri.size, ri.mmap_offset, &out->addr);
	if (ret)
		return ret;
	out->id = id;
	out->kind = ri.kind;
	out->size = ri.size;
	return 0;
}
