// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libtxrdma: opening /dev/txrdma and probing the kernel module.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "txrdma.h"
#include "txrdma_int.h"

_Static_assert(sizeof(struct txrdma_probe) == 56, "txrdma_probe ABI size");

struct txrdma_ctx {
	int fd;
	__u32 abi_version;
	__u64 features;
	void *ring_map;		/* the rings' mapping, or NULL */
	size_t ring_len;
	/* the kernel made the rings (even if mapping them failed) */
	int ring_made;
	struct txrdma_ring_setup ring_setup;
};

static const char *device_path(void)
{
	const char *path = secure_getenv(TXRDMA_DEVICE_ENV);

	if (path && *path)
		return path;
	return TXRDMA_DEVICE_PATH;
}

/* ABI versions this library can talk to. */
static int abi_supported(__u32 version)
{
	return version == TXRDMA_ABI_VERSION;
}

static int do_probe(int fd, struct txrdma_probe *p)
{
	memset(p, 0, sizeof(*p));	/* flags and every resv field must be 0 */
	if (ioctl(fd, TXRDMA_IOC_PROBE, p) < 0)
		return -errno;
	if (!abi_supported(p->abi_version))
		return -EPROTO;
	return 0;
}

TXRDMA_EXPORT int txrdma_open(struct txrdma_ctx **ctxp, unsigned int flags)
{
	struct txrdma_probe probe;
	struct txrdma_ctx *ctx;
	int fd, ret;

	if (!ctxp || (flags & ~TXRDMA_OPEN_FLAGS_ALL))
		return -EINVAL;

	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return -ENOMEM;

	fd = open(device_path(), O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		goto out_free;
	}

	ret = do_probe(fd, &probe);
	if (ret)
		goto out_close;

	ctx->fd = fd;
	ctx->abi_version = probe.abi_version;
	ctx->features = probe.features;
	*ctxp = ctx;
	return 0;

out_close:
	close(fd);
out_free:
	free(ctx);
	return ret;
}

TXRDMA_EXPORT void txrdma_close(struct txrdma_ctx *ctx)
{
	if (!ctx)
		return;
	if (ctx->ring_map)
		munmap(ctx->ring_map, ctx->ring_len);
	close(ctx->fd);
	free(ctx);
}

TXRDMA_EXPORT int txrdma_probe(struct txrdma_ctx *ctx, struct txrdma_probe *out)
{
	struct txrdma_probe probe;
	int ret;

	if (!ctx)
		return -EINVAL;
	ret = do_probe(ctx->fd, &probe);
	if (ret)
		return ret;
	ctx->abi_version = probe.abi_version;
	ctx->features = probe.features;
	if (out)
		*out = probe;
	return 0;
}

TXRDMA_EXPORT __u64 txrdma_features(const struct txrdma_ctx *ctx)
{
	return ctx ? ctx->features : 0;
}

TXRDMA_EXPORT __u32 txrdma_abi_version(const struct txrdma_ctx *ctx)
{
	return ctx ? ctx->abi_version : 0;
}

TXRDMA_EXPORT int txrdma_fd(const struct txrdma_ctx *ctx)
{
	return ctx ? ctx->fd : -EINVAL;
}

TXRDMA_EXPORT const char *txrdma_version(void)
{
	return TXRDMA_VERSION_STRING;
}

TXRDMA_EXPORT int txrdma_rings_setup(struct txrdma_ctx *ctx,
				     unsigned int sq_entries,
				     unsigned int cq_entries,
				     struct txrdma_sq *sq, struct txrdma_cq *cq)
{
	struct txrdma_ring_setup p;
	struct txrdma_sq s;
	struct txrdma_cq c;
	void *map;
	int ret;

	if (!ctx || !sq || !cq)
		return -EINVAL;
	if (ctx->ring_map)
		return -EBUSY;
	if (ctx->ring_made) {
		/* an earlier call made the rings but could not map them */
		p = ctx->ring_setup;
	} else {
		memset(&p, 0, sizeof(p));
		p.sq_entries = sq_entries;
		p.cq_entries = cq_entries;
		if (ioctl(ctx->fd, TXRDMA_IOC_RING_SETUP, &p))
			return -errno;
		ctx->ring_made = 1;
		ctx->ring_setup = p;
	}
	if (p.mmap_len > SIZE_MAX)
		return -EINVAL;
	map = mmap(NULL, (size_t)p.mmap_len, PROT_READ | PROT_WRITE,
		   MAP_SHARED, ctx->fd, (off_t)p.mmap_offset);
	if (map == MAP_FAILED)
		return -errno;
	/* the kernel's description is checked, not trusted */
	ret = txrdma_sq_init(&s, map, (size_t)p.mmap_len, &p.sq_off);
	if (!ret)
		ret = txrdma_cq_init(&c, map, (size_t)p.mmap_len, &p.cq_off);
	if (ret) {
		munmap(map, (size_t)p.mmap_len);
		return ret;
	}
	ctx->ring_map = map;
	ctx->ring_len = (size_t)p.mmap_len;
	*sq = s;
	*cq = c;
	return 0;
}

TXRDMA_EXPORT int txrdma_rings_enter(struct txrdma_ctx *ctx)
{
	if (!ctx)
		return -EINVAL;
	if (ioctl(ctx->fd, TXRDMA_IOC_RING_ENTER))
		return -errno;
	return 0;
}
