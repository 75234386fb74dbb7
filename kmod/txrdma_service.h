/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Services: where a tenant's processes accept endpoint pairs
 * (TXRDMA_IOC_EP_LISTEN), and the pairing requests that peers queue on
 * them.  See txrdma_service.c.
 */
#ifndef _TXRDMA_SERVICE_H
#define _TXRDMA_SERVICE_H

#include <linux/list.h>
#include <linux/types.h>

#include "txrdma_peer_wire.h"

struct txrdma_file;
struct txrdma_peer;
struct txrdma_tenant;

/**
 * struct txrdma_pair_req - a pairing message from a peer, handled in
 *	process context
 * @node: entry in the receive queue, then in a service's backlog
 * @peer: from whom, referenced
 * @e: the message, decoded and checked (MAC included)
 * @rx_ns: when it arrived
 */
struct txrdma_pair_req {
	struct list_head node;
	struct txrdma_peer *peer;
	struct txrdma_ctrl_ep e;
	u64 rx_ns;
};

long txrdma_ioctl_ep_listen(struct txrdma_file *tf, void __user *uarg);
int txrdma_service_queue(struct txrdma_pair_req *r);
int txrdma_service_next(struct txrdma_file *tf, struct txrdma_tenant *t,
			u32 service, unsigned long tmo,
			struct txrdma_pair_req **out);
void txrdma_service_file_release(struct txrdma_file *tf,
				 struct list_head *refuse);

#endif /* _TXRDMA_SERVICE_H */
