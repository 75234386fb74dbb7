// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libtxrdma: opening /dev/txrdma and probing the kernel module.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "txrdma.h"
#include "txrdma_int.h"

_Static_assert(sizeof(struct txrdma_probe) == 56, "txrdma_probe ABI size");

struct txrdma_ctx {
	int fd;
	__u32 abi_version;
	__u64 features;
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
