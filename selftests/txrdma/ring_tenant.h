/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Ring memory is charged to the caller's tenant, so the ring tests run
 * inside one: before main() the test process creates cgroup CG_RING and
 * tenant RING_TENANT bound to it (pinned limit RING_PINNED_LIMIT) and
 * moves itself in; every test child inherits that.  At exit the process
 * leaves and deletes both.  CG_RING_NONE is a cgroup of no tenant.
 */
#ifndef _TXRDMA_RING_TENANT_H
#define _TXRDMA_RING_TENANT_H

#include <stdint.h>

#define CG_RING_ROOT		"/sys/fs/cgroup"
#define CG_RING		CG_RING_ROOT "/txrdma-ring"
#define CG_RING_NONE		CG_RING_ROOT "/txrdma-ring-none"
#define RING_TENANT		"ring-t"
#define RING_PINNED_LIMIT	(64ULL << 20)

/* set up before main(): 0, or why not (-errno), with a message */
extern int ring_tenant_status;
extern char ring_tenant_error[512];

/* the tenant's pinned bytes in use, or -errno */
int64_t ring_tenant_pinned(void);
/* change the tenant's pinned limit: 0 or -errno */
int ring_tenant_set_pinned(uint64_t limit);

#endif
