/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * txrdma: internal declarations shared by the module's files.
 *
 * One file per concern (Documentation/design.rst, "Module layout"):
 *   txrdma_main.c       module init/exit, ordering of the parts
 *   txrdma_ibdev.c      ib_client: the RDMA devices txrdma knows about
 *   txrdma_netlink.c    generic netlink family "txrdma"
 *   txrdma_cdev.c       misc device /dev/txrdma (probe ioctl)
 *   txrdma_abi.c        pure checks of uapi structures (KUnit-tested)
 *   txrdma_tbucket.c    token bucket arithmetic (pure logic, KUnit-tested)
 *   txrdma_quota.c      resource accounting (pure logic, KUnit-tested)
 *   txrdma_tenant.c     tenants, cgroup membership, their netlink ops
 *   txrdma_region.c     regions: pinned tenant memory, mmap, revocation
 *   txrdma_frwr.c       fast registration (FRWR) of pages with devices
 *   txrdma_bfd.c        BFD liveness state machine (pure logic, KUnit-tested)
 *   txrdma_pool.c       QP pool accounting (pure logic, KUnit-tested)
 *   txrdma_peer_wire.c  wire formats between modules (pure, KUnit-tested)
 *   txrdma_auth.c       peer keys, handshake, MACs (pure, KUnit-tested)
 *   txrdma_peer.c       peers, their netlink ops and work item
 *   txrdma_conn.c       rdma_cm: listener, connect, accept, teardown
 *   txrdma_liveness.c   probes on control QPs, BFD timer, state events
 *   txrdma_stall.c      stall logs, what explains a Down (pure, KUnit)
 *   txrdma_endpoint.c   endpoints: pooled QPs lent to a tenant's process
 *   txrdma_ep_nl.c      endpoints over netlink, tenant-scoped
 *   txrdma_service.c    services: per-tenant listeners and backlogs
 *   txrdma_pair.c       pairs: connect, accept, endpoint control messages
 *   txrdma_pair_life.c  a pair's data-path state and its end
 *   txrdma_tx.c         send: slots, admission, SEND, READ/WRITE, credits
 *   txrdma_rx.c         receive: completion, verdict, publication
 *   txrdma_export.c     exports and imports of pairs
 *   txrdma_msg.h        the interface between the five pair files
 *   txrdma_frame.c      data-path frames and the receive verdict (KUnit)
 *   txrdma_credit.c     credit-based flow control (pure, KUnit-tested)
 *   txrdma_range.h      byte ranges, no wrap (pure, KUnit-tested)
 *   txrdma_ringmath.c   ring index and SQE checks (pure, KUnit-tested)
 *   txrdma_ringfile.c   a file's SQ/CQ: setup, mmap, poll, processing
 *   txrdma_poller.c     pollers: a kthread per device (SQPOLL pattern)
 *   txrdma_trace.c      the tracepoints (events/txrdma, txrdma_trace.h)
 *   txrdma_fault.c      the fault-injection rule (pure, KUnit-tested)
 *   txrdma_inject.c     fault-injection points, their debugfs files
 *   txrdma_session.c    sessions: resume plan, state machine (pure, KUnit)
 *   txrdma_pair_resume.c  a pair moved to a new QP: the session's glue
 *   txrdma_pair_path.c  a session moved to another path (peer, device)
 *   txrdma_handoff.c    session hand-off: secret, token, checks (KUnit)
 *   txrdma_pair_handoff.c  session hand-off's glue: export, import, move
 */
#ifndef _TXRDMA_H
#define _TXRDMA_H

#include <linux/completion.h>
#include <linux/list.h>
#include <linux/refcount.h>
#include <linux/mutex.h>
#include <linux/workqueue.h>
#include <linux/netlink.h>
#include <net/genetlink.h>
#include <rdma/ib_verbs.h>
#include <linux/txrdma.h>

#include "txrdma_poller.h"
#include "txrdma_frwr.h"

/**
 * struct txrdma_port - what txrdma last saw of one port
 * @state: enum ib_port_state reported by the last query
 * @active_mtu: enum ib_mtu from the last query
 */
struct txrdma_port {
	u8 state;
	u8 active_mtu;
};

/**
 * struct txrdma_dev - one RDMA device tracked by the ib_client
 * @node: entry in txrdma_devs, protected by txrdma_devs_lock
 * @ibdev: the device; valid from ib_client add until remove returns
 * @name: cached device name (updated by the rename callback)
 * @enabled: admin switch: txrdma may place new work on this device
 * @event_handler: registered with the RDMA core for async events
 * @port_work: deferred port re-query; async events arrive from the
 *	RDMA core's work queue and only schedule this
 * @users: the device list's reference, one per connection, one per
 *	registration in flight and one per MR (struct txrdma_mr); removal
 *	waits for @unused once the list's is dropped
 * @unused: completed when @users reaches zero
 * @dying: being removed (set first, under txrdma_devs_lock; again
 *	under txrdma_regions_lock): no new connection or MR, and whoever
 *	stores a new MR's key drops it instead
 * @reg: PD and control QP for memory registration (reg.pd NULL: none)
 * @nr_mrs: registrations of regions on this device
 * @first_port: rdma_start_port() of @ibdev
 * @nports: number of entries in @ports
 * @ports: last known state per port, protected by txrdma_devs_lock
 */
struct txrdma_dev {
	struct list_head node;
	struct ib_device *ibdev;
	char name[TXRDMA_DEV_NAME_MAX];
	bool enabled;
	struct ib_event_handler event_handler;
	struct work_struct port_work;
	refcount_t users;
	struct completion unused;
	bool dying;
	struct txrdma_dev_reg reg;
	atomic_t nr_mrs;
	struct txrdma_poller *poller;
	u32 first_port;
	u32 nports;
	struct txrdma_port ports[];
};

extern struct mutex txrdma_devs_lock;
extern struct list_head txrdma_devs;

int txrdma_ibdev_init(void);
void txrdma_ibdev_exit(void);
unsigned int txrdma_ibdev_count(void);
struct txrdma_dev **txrdma_devs_get_registering(unsigned int *n);
void txrdma_dev_user_get(struct txrdma_dev *dev);
void txrdma_dev_user_put(struct txrdma_dev *dev);
struct txrdma_dev *txrdma_dev_get_ibdev(struct ib_device *ibdev);
bool txrdma_dev_can_register(const struct txrdma_dev *dev);
struct txrdma_dev *txrdma_dev_find_locked(const char *name, u32 index,
					  bool by_index);

extern struct genl_family txrdma_genl_family;

int txrdma_nl_init(void);
void txrdma_nl_exit(void);
void txrdma_nl_notify_dev(struct txrdma_dev *dev, u8 cmd);
void txrdma_nl_multicast(struct sk_buff *skb);
int txrdma_nl_put_event_stamp(struct sk_buff *skb, u64 time_ns);
void txrdma_nl_notify_port(struct txrdma_dev *dev, u32 port, u8 old_state,
			   u8 new_state);

int txrdma_cdev_init(void);
void txrdma_cdev_exit(void);

#endif /* _TXRDMA_H */
