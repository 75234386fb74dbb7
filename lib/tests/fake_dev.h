/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * fake_dev.h: what the host tests that stand in for the kernel share.
 * Such a test is linked with -Wl,--wrap=ioctl; its __wrap_ioctl() lets
 * fake_probe() answer TXRDMA_IOC_PROBE (a kernel of this ABI with every
 * feature) and answers the rest itself.  fake_ctx() is a context opened
 * on /dev/null, so that txrdma_open() runs as it would on the device;
 * bytes_are() checks what a call must leave alone (filled with
 * FAKE_SENTINEL before it) or send as zeros.
 */
#ifndef TXRDMA_FAKE_DEV_H
#define TXRDMA_FAKE_DEV_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include <txrdma.h>

#define FAKE_SENTINEL	0x5a

/* answer @req if it is the probe: true when it was */
static inline bool fake_probe(unsigned long req, void *arg)
{
	struct txrdma_probe *p = arg;

	if (req != TXRDMA_IOC_PROBE)
		return false;
	p->abi_version = TXRDMA_ABI_VERSION;
	p->features = TXRDMA_FEAT_ALL;
	return true;
}

static struct txrdma_ctx *fake_the_ctx;

/* the test's context, opened on first use; bails out if it cannot be */
static inline struct txrdma_ctx *fake_ctx(void)
{
	int ret;

	if (fake_the_ctx)
		return fake_the_ctx;
	setenv(TXRDMA_DEVICE_ENV, "/dev/null", 1);
	ret = txrdma_open(&fake_the_ctx, 0);
	if (ret) {
		printf("Bail out! txrdma_open on the fake device: %d\n", ret);
		exit(1);
	}
	return fake_the_ctx;
}

static inline void fake_ctx_close(void)
{
	txrdma_close(fake_the_ctx);
	fake_the_ctx = NULL;
}

/* every one of @len bytes at @p is @byte */
static inline bool bytes_are(const void *p, size_t len, unsigned char byte)
{
	const unsigned char *c = p;
	size_t i;

	for (i = 0; i < len; i++)
		if (c[i] != byte)
			return false;
	return true;
}

#endif /* TXRDMA_FAKE_DEV_H */
