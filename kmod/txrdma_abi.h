/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Pure checks of structures that cross the user/kernel boundary.  No
 * RDMA headers here: KUnit runs these on UML, where the RDMA core does
 * not build.
 */
#ifndef _TXRDMA_ABI_H
#define _TXRDMA_ABI_H

#include <linux/types.h>
#include <linux/txrdma.h>

int txrdma_probe_check(const struct txrdma_probe *in);
void txrdma_probe_fill(struct txrdma_probe *out, u32 ndevs);
int txrdma_tenant_info_check(const struct txrdma_tenant_info *in);
int txrdma_ep_create_check(const struct txrdma_ep_create *in);
int txrdma_ep_info_check(const struct txrdma_ep_info *in);

#endif /* _TXRDMA_ABI_H */
