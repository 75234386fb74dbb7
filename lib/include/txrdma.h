/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * libtxrdma: user-space library for the txrdma transport.
 *
 * This header is installed as <txrdma.h>.  It pulls in the kernel ABI
 * (<linux/txrdma.h>, <linux/txrdma_ring.h>), which libtxrdma installs
 * next to it, and the data-path ring helpers of <txrdma_ring.h>.
 *
 * Conventions:
 *  - every call that can fail returns 0 on success and a negative errno
 *    value on failure; errno is never the only carrier of an error;
 *  - unknown flags are rejected with -EINVAL, so flags can be given a
 *    meaning later without breaking old callers;
 *  - a struct txrdma_ctx is not thread-safe unless a call says otherwise.
 */
#ifndef TXRDMA_H
#define TXRDMA_H

#include <linux/txrdma.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TXRDMA_LIB_VERSION_MAJOR	0
#define TXRDMA_LIB_VERSION_MINOR	1
#define TXRDMA_LIB_VERSION_PATCH	0

/* Environment variable that overrides the device path (tests, chroots). */
#define TXRDMA_DEVICE_ENV	"TXRDMA_DEVICE"
#define TXRDMA_DEVICE_PATH	"/dev/" TXRDMA_DEVICE_NAME

/* Flags for txrdma_open(); none are defined yet. */
#define TXRDMA_OPEN_FLAGS_ALL	0U

/* A handle on /dev/txrdma; its layout is private to the library. */
struct txrdma_ctx;

/**
 * txrdma_open() - open the txrdma device and check that we speak its ABI
 * @ctxp:  where to store the new context; left untouched on failure
 * @flags: must be 0 (no flags are defined yet)
 *
 * Opens TXRDMA_DEVICE_PATH, or the path in the environment variable
 * TXRDMA_DEVICE when it is set (ignored in set-user-ID programs), with
 * O_RDWR | O_CLOEXEC, and runs TXRDMA_IOC_PROBE.  The ABI version and
 * the feature bits the kernel reports are kept in the context.
 *
 * Return: 0 on success, or a negative errno:
 *  -EINVAL  @ctxp is NULL or @flags has an unknown bit;
 *  -ENOENT  no such device (is the txrdma module loaded?);
 *  -ENOTTY  the file is not a txrdma device;
 *  -EPROTO  the kernel speaks an ABI version this library does not know;
 *  -ENOMEM  out of memory;
 *  any other error of open(2) or ioctl(2).
 * No file descriptor is left open on failure.
 */
int txrdma_open(struct txrdma_ctx **ctxp, unsigned int flags);

/**
 * txrdma_close() - close a context opened by txrdma_open()
 * @ctx: the context; NULL is allowed and does nothing
 */
void txrdma_close(struct txrdma_ctx *ctx);

/**
 * txrdma_probe() - ask the kernel again what it supports
 * @ctx: an open context
 * @out: receives the kernel's answer (may be NULL to only refresh @ctx)
 *
 * Runs TXRDMA_IOC_PROBE again, e.g. to learn the current number of RDMA
 * devices (@out->ndevs).  The features kept in @ctx are refreshed.
 *
 * Return: 0 on success; -EINVAL if @ctx is NULL; -EPROTO if the ABI
 * version changed under us; otherwise the negative errno of ioctl(2).
 */
int txrdma_probe(struct txrdma_ctx *ctx, struct txrdma_probe *out);

/**
 * txrdma_features() - feature bits of the kernel module
 * @ctx: an open context
 *
 * Return: the TXRDMA_FEAT_* bits from the last probe (0 if @ctx is NULL).
 * Bits this library does not know are passed through unchanged.
 */
__u64 txrdma_features(const struct txrdma_ctx *ctx);

/**
 * txrdma_abi_version() - ABI version the kernel module reported
 * @ctx: an open context
 *
 * Return: the ABI version (always one this library supports), or 0 if
 * @ctx is NULL.
 */
__u32 txrdma_abi_version(const struct txrdma_ctx *ctx);

/**
 * txrdma_fd() - the file descriptor of the device
 * @ctx: an open context
 *
 * The descriptor stays owned by @ctx: do not close it.  It is meant for
 * poll(2)/epoll(7) integration.
 *
 * Return: the descriptor, or -EINVAL if @ctx is NULL.
 */
int txrdma_fd(const struct txrdma_ctx *ctx);

/**
 * struct txrdma_region - a region as the library holds it
 * @id: the kernel's id; (id, offset, length) names memory in operations
 * @kind: TXRDMA_REGION_KIND_POOL (module-owned) or _USER (your memory)
 * @size: bytes
 * @addr: where the bytes are in this process: the mapping the library
 *	made of a module-owned region, or the memory you registered
 */
struct txrdma_region {
	__u32 id;
	__u32 kind;
	__u64 size;
	void *addr;
};

/**
 * txrdma_tenant() - the tenant this process belongs to
 * @ctx: context
 * @id: its id (may be NULL)
 * @name: buffer of at least 32 bytes for its name (may be NULL)
 *
 * Return: 0, -EPERM if the process's cgroup belongs to no tenant.
 */
int txrdma_tenant(struct txrdma_ctx *ctx, __u32 *id, char *name);

/**
 * txrdma_region_create() - allocate, pin, register and map memory
 * @ctx: context
 * @size: bytes, a multiple of TXRDMA_REGION_HUGE_SIZE (2 MiB), or of
 *	the page size with TXRDMA_REGION_F_SMALL_PAGES in @flags
 * @flags: TXRDMA_REGION_F_*
 * @out: the region; out->addr is a shared read/write mapping of it
 *
 * The memory is zeroed, charged to the tenant's pinned limit and
 * registered with every RDMA device once, here, so that no operation
 * pays for registration later.
 * Return: 0, -EPERM (no tenant), -EDQUOT (pinned limit), -ENOMEM,
 * -EINVAL (size or flags).  On error nothing is left behind.
 */
int txrdma_region_create(struct txrdma_ctx *ctx, __u64 size,
			 unsigned int flags, struct txrdma_region *out);

/**
 * txrdma_region_register() - make your own memory a region
 * @ctx: context
 * @addr: page-aligned start (e.g. a buffer pool on hugetlbfs)
 * @size: page-aligned length
 * @out: the region; out->addr == @addr
 *
 * The pages are pinned until the region is destroyed; they count
 * against the tenant's pinned limit and RLIMIT_MEMLOCK.
 * Return: 0 or -errno as for txrdma_region_create(), -EFAULT for memory
 * that is not mapped.
 */
int txrdma_region_register(struct txrdma_ctx *ctx, void *addr, __u64 size,
			   struct txrdma_region *out);

/**
 * txrdma_region_destroy() - destroy a region and unmap it
 * @ctx: context
 * @r: a region from txrdma_region_create() or _register(); zeroed after
 *
 * Module-owned memory is freed once no mapping of it is left (other
 * processes of the tenant may still map it).
 * Return: 0, -ENOENT (already destroyed), -EACCES (not your tenant's).
 */
int txrdma_region_destroy(struct txrdma_ctx *ctx, struct txrdma_region *r);

/**
 * txrdma_region_open() - map a region another process of your tenant made
 * @ctx: context
 * @id: its id
 * @out: the region, mapped here (module-owned regions only)
 *
 * Release it with txrdma_region_close(), which unmaps without destroying.
 * Return: 0, -ENOENT, -EACCES, -EINVAL (a user region: not mappable).
 */
int txrdma_region_open(struct txrdma_ctx *ctx, __u32 id,
		       struct txrdma_region *out);

/**
 * txrdma_region_close() - unmap a region opened with txrdma_region_open()
 * @r: the region; zeroed after
 */
void txrdma_region_close(struct txrdma_region *r);

/**
 * txrdma_version() - version of this library
 *
 * Return: a static string such as "0.1.0"; never NULL.
 */
const char *txrdma_version(void);

#ifdef __cplusplus
}
#endif

/* the data-path rings (static inline fast path; its own extern "C") */
#include "txrdma_ring.h"

#endif /* TXRDMA_H */
