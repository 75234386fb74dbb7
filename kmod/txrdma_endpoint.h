/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Endpoints: a process's channel to a peer, holding one QP taken from
 * the peer's pool, charged to the process's tenant.
 */
#ifndef _TXRDMA_ENDPOINT_H
#define _TXRDMA_ENDPOINT_H

#include <linux/list.h>
#include <linux/types.h>

struct txrdma_conn;
struct txrdma_file;
struct txrdma_peer;
struct txrdma_tenant;

/**
 * struct txrdma_ep - one endpoint
 * @node: entry in txrdma_eps_list (txrdma_eps_lock)
 * @file_node: entry in its file's list (txrdma_eps_lock)
 * @id: index in txrdma_eps (never reused soon: allocated cyclically)
 * @tf: the open file that created it
 * @tenant: owner, referenced; charged one endpoint and one QP
 * @peer: the peer, referenced
 * @conn: the lent connection, NULL once it is gone (peer->lock)
 * @qp_num: number of its QP
 * @error: 0, or why it can no longer carry traffic (peer->lock)
 */
struct txrdma_ep {
	struct list_head node;
	struct list_head file_node;
	u32 id;
	struct txrdma_file *tf;
	struct txrdma_tenant *tenant;
	struct txrdma_peer *peer;
	struct txrdma_conn *conn;
	u32 qp_num;
	int error;
};

long txrdma_ioctl_ep_create(struct txrdma_file *tf, void __user *uarg);
long txrdma_ioctl_ep_info(struct txrdma_file *tf, void __user *uarg);
long txrdma_ioctl_ep_destroy(struct txrdma_file *tf, void __user *uarg);
void txrdma_eps_file_release(struct txrdma_file *tf);
void txrdma_eps_tenant_revoke(struct txrdma_tenant *t);
void txrdma_ep_detach_locked(struct txrdma_conn *c, int error);
int txrdma_ep_status(struct txrdma_file *tf, u32 id);

#endif /* _TXRDMA_ENDPOINT_H */
