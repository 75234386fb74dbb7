/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Pollers: kernel threads that serve the rings of open files (the SQPOLL
 * pattern of io_uring).  One default poller serves rings that have no
 * endpoint pair yet; every RDMA device has its own, which takes over a
 * ring when the ring's first pair is bound to a QP of that device, so
 * the work of each NIC runs on CPUs of its own (configurable per device
 * over netlink, initially the device's NUMA node).
 */
#ifndef _TXRDMA_POLLER_H
#define _TXRDMA_POLLER_H

#include <linux/atomic.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/sched.h>

struct txrdma_ring;

/**
 * struct txrdma_poller - one poller thread and the rings it serves
 * @task: the thread
 * @ref: the device (or the module, for the default) and every endpoint
 *	that may bind a ring to it (txrdma_poller_bind())
 * @lock: protects @rings and @asleep; the thread holds it for a pass
 * @rings: the rings served (txrdma_ring.poll_node)
 * @nr_rings: their number
 * @kicked: a doorbell rang since the thread last looked
 * @asleep: NEED_WAKEUP is set in every ring of @rings
 * @dead: stopped (device gone): binds go elsewhere
 * @cpu: the CPU it is bound to, -1 for @node's CPUs (or any)
 * @node: NUMA node of its device, NUMA_NO_NODE if none
 * @passes: passes that consumed at least one SQE
 * @sqes: SQEs consumed
 * @sleeps: times it went to sleep
 */
struct txrdma_poller {
	struct task_struct *task;
	struct kref ref;
	struct mutex lock;	/* see above; design.rst "Lock order" */
	struct list_head rings;
	unsigned int nr_rings;
	atomic_t kicked;
	bool asleep;
	bool dead;
	int cpu;
	int node;
	u64 passes, sqes, sleeps;
};

/* what netlink reports of a poller */
struct txrdma_poller_info {
	int cpu;
	pid_t pid;
	u32 rings;
	u64 passes, sqes, sleeps;
};

int txrdma_poller_init(void);
void txrdma_poller_exit(void);
struct txrdma_poller *txrdma_poller_create(const char *dev_name, int node);
void txrdma_poller_destroy(struct txrdma_poller *p);
struct txrdma_poller *txrdma_poller_get(struct txrdma_poller *p);
void txrdma_poller_put(struct txrdma_poller *p);
int txrdma_poller_set_cpu(struct txrdma_poller *p, int cpu);
void txrdma_poller_info(struct txrdma_poller *p,
			struct txrdma_poller_info *info);

void txrdma_poller_add(struct txrdma_ring *ring);
void txrdma_poller_bind(struct txrdma_ring *ring, struct txrdma_poller *p);
void txrdma_poller_del(struct txrdma_ring *ring);
void txrdma_poller_kick(struct txrdma_ring *ring);
u64 txrdma_poller_idle_ns(void);

#endif /* _TXRDMA_POLLER_H */
