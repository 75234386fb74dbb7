// SPDX-License-Identifier: GPL-2.0-only
/* The tenant the ring tests run in: see ring_tenant.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ring_tenant.h"
#include "tenant_util.h"

int ring_tenant_status = -EAGAIN;
char ring_tenant_error[512];

static int ring_tenant_op(uint8_t cmd, uint64_t limit)
{
	uint64_t limits[] = { TXRDMA_A_LIMIT_PINNED_BYTES, limit, 0 };
	struct nlmini nl;
	int ret;

	ret = nlmini_open(&nl);
	if (ret)
		return ret;
	ret = tenant_op(&nl, cmd, RING_TENANT,
			cmd == TXRDMA_CMD_TENANT_NEW ? "/txrdma-ring" : NULL,
			-1, limits);
	if (ret)
		snprintf(ring_tenant_error, sizeof(ring_tenant_error),
			 "tenant %s: %s (%s)", RING_TENANT, strerror(-ret),
			 nl.extack);
	nlmini_close(&nl);
	return ret;
}

int ring_tenant_set_pinned(uint64_t limit)
{
	return ring_tenant_op(TXRDMA_CMD_TENANT_SET, limit);
}

int64_t ring_tenant_pinned(void)
{
	struct nlmini nl;
	struct tenant t;
	int ret;

	ret = nlmini_open(&nl);
	if (ret)
		return ret;
	ret = get_tenant(&nl, RING_TENANT, &t);
	nlmini_close(&nl);
	return ret ? ret : (int64_t)t.usage[2];
}

static void ring_tenant_down(void)
{
	struct nlmini nl;

	cg_enter(CG_RING_ROOT);
	if (!nlmini_open(&nl)) {
		tenant_del_force(&nl, RING_TENANT);
		nlmini_close(&nl);
	}
	rmdir(CG_RING);
	rmdir(CG_RING_NONE);
}

__attribute__((constructor)) static void ring_tenant_up(void)
{
	ring_tenant_down();	/* leftovers of a run that crashed */
	mkdir(CG_RING, 0755);
	mkdir(CG_RING_NONE, 0755);
	ring_tenant_status = ring_tenant_op(TXRDMA_CMD_TENANT_NEW,
					    RING_PINNED_LIMIT);
	if (!ring_tenant_status) {
		ring_tenant_status = cg_enter(CG_RING);
		if (ring_tenant_status)
			snprintf(ring_tenant_error, sizeof(ring_tenant_error),
				 "cannot enter %s: %s", CG_RING,
				 strerror(-ring_tenant_status));
	}
}

/* only the harness's parent exits through here; test children _exit */
__attribute__((destructor)) static void ring_tenant_fini(void)
{
	ring_tenant_down();
}
