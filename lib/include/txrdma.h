/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * libtxrdma: user-space library for the txrdma transport.
 *
 * This header is installed as <txrdma.h>.  It pulls in the kernel ABI
 * (<linux/txrdma.h>), which libtxrdma installs next to it.
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
 * txrdma_version() - version of this library
 *
 * Return: a static string such as "0.1.0"; never NULL.
 */
const char *txrdma_version(void);

#ifdef __cplusplus
}
#endif

#endif /* TXRDMA_H */
