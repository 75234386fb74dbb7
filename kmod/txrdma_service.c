// SPDX-License-Identifier: GPL-2.0-only
/*
 * Services: a tenant's process listens on a service number
 * (TXRDMA_IOC_EP_LISTEN) and accepts endpoint pairs on it
 * (TXRDMA_IOC_EP_ACCEPT, txrdma_pair.c).
 *
 * Service numbers are a namespace of each tenant, not of the host: two
 * tenants may both serve 100, and a peer's EP_CONNECT names the tenant
 * it is for (tenants are matched across hosts by name, as the admin
 * gives them), so a connect reaches the listener of its own tenant's
 * name or is refused; no other tenant's process ever sees it.  The
 * name travels in a keyed control message (txrdma_auth.c), so only an
 * authenticated peer module can say it.
 *
 * What a process makes the kernel hold here is bounded and charged: a
 * service counts against its tenant's listeners limit and its memory
 * against the process's memory cgroup, and each service keeps at most
 * TXRDMA_SERVICE_BACKLOG requests.  A file's services are on its own
 * list, so closing it costs what it holds, not what all files hold.
 *
 * Locking: txrdma_services_lock (mutex) protects every tenant's service
 * table, the files' lists and the backlogs; it is held only briefly,
 * never across a wait.  A service lives until its file is released,
 * which cannot happen during an ioctl of that file, so an accept may
 * wait on it without the lock.
 */
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>

#include "txrdma.h"
#include "txrdma_peer.h"
#include "txrdma_region.h"
#include "txrdma_service.h"
#include "txrdma_tenant.h"

/* pairing requests a service holds before refusing more */
#define TXRDMA_SERVICE_BACKLOG	64

/**
 * struct txrdma_service - a service a file accepts endpoint pairs on
 * @file_node: entry in its file's list (txrdma_services_lock)
 * @tf: the file
 * @tenant: its tenant, referenced; charged one listener
 * @number: the service number, unique within @tenant
 * @backlog: requests not yet accepted (txrdma_services_lock)
 * @nbacklog: their number
 * @wait: TXRDMA_IOC_EP_ACCEPT sleeps here
 */
struct txrdma_service {
	struct list_head file_node;
	struct txrdma_file *tf;
	struct txrdma_tenant *tenant;
	u32 number;
	struct list_head backlog;
	u32 nbacklog;
	wait_queue_head_t wait;
};

static DEFINE_MUTEX(txrdma_services_lock);

long txrdma_ioctl_ep_listen(struct txrdma_file *tf, void __user *uarg)
{
	struct txrdma_ep_listen req;
	struct txrdma_service *svc;
	struct txrdma_tenant *t;
	int ret;

	if (copy_from_user(&req, uarg, sizeof(req)))
		return -EFAULT;
	if (!req.service || req.flags || req.resv[0] || req.resv[1])
		return -EINVAL;
	t = txrdma_tenant_get_current();
	if (IS_ERR(t))
		return PTR_ERR(t);
	svc = kzalloc(sizeof(*svc), GFP_KERNEL_ACCOUNT);
	if (!svc) {
		txrdma_tenant_put(t);
		return -ENOMEM;
	}
	svc->tf = tf;
	svc->tenant = t;	/* our reference passes to it */
	svc->number = req.service;
	INIT_LIST_HEAD(&svc->backlog);
	init_waitqueue_head(&svc->wait);

	mutex_lock(&txrdma_services_lock);
	spin_lock_bh(&t->lock);
	ret = t->dead ? -EPERM :
	      txrdma_quota_charge(&t->quota, TXRDMA_RES_LISTENERS, 1);
	spin_unlock_bh(&t->lock);
	if (!ret) {
		ret = xa_insert(&t->services, req.service, svc,
				GFP_KERNEL_ACCOUNT);
		if (ret) {
			spin_lock_bh(&t->lock);
			txrdma_quota_uncharge(&t->quota, TXRDMA_RES_LISTENERS, 1);
			spin_unlock_bh(&t->lock);
		}
	}
	if (!ret)
		list_add_tail(&svc->file_node, &tf->services);
	mutex_unlock(&txrdma_services_lock);
	if (ret) {
		txrdma_tenant_put(t);
		kfree(svc);
		return ret == -EBUSY ? -EADDRINUSE : ret;
	}
	return 0;
}

/**
 * txrdma_service_queue() - an EP_CONNECT from a peer: queue it on the
 *	service of the tenant it names
 * @r: the request; on success the service's backlog owns it
 *
 * Return: 0, or -ECONNREFUSED (no such tenant, or it does not serve
 * that number, or the backlog is full): the caller refuses and frees.
 */
int txrdma_service_queue(struct txrdma_pair_req *r)
{
	struct txrdma_service *svc;
	struct txrdma_tenant *t;
	int ret = -ECONNREFUSED;

	t = txrdma_tenant_get_name(r->e.tenant);
	if (!t)
		return ret;
	mutex_lock(&txrdma_services_lock);
	svc = xa_load(&t->services, r->e.service);
	if (svc && svc->nbacklog < TXRDMA_SERVICE_BACKLOG) {
		list_add_tail(&r->node, &svc->backlog);
		svc->nbacklog++;
		wake_up(&svc->wait);
		ret = 0;
	}
	mutex_unlock(&txrdma_services_lock);
	txrdma_tenant_put(t);
	return ret;
}

/**
 * txrdma_service_next() - take the oldest request for a service
 * @tf: the file that must be listening on it
 * @t: the caller's tenant, which must own the service
 * @service: its number
 * @tmo: longest wait, jiffies
 * @out: the request, now the caller's
 *
 * Return: 0, -EINVAL (@tf does not listen on @service for @t),
 * -ETIMEDOUT or -EINTR.
 */
int txrdma_service_next(struct txrdma_file *tf, struct txrdma_tenant *t,
			u32 service, unsigned long tmo,
			struct txrdma_pair_req **out)
{
	struct txrdma_service *svc;
	long left;

	for (;;) {
		mutex_lock(&txrdma_services_lock);
		svc = xa_load(&t->services, service);
		if (!svc || svc->tf != tf) {
			mutex_unlock(&txrdma_services_lock);
			return -EINVAL;
		}
		if (svc->nbacklog) {
			*out = list_first_entry(&svc->backlog,
						struct txrdma_pair_req, node);
			list_del(&(*out)->node);
			svc->nbacklog--;
			mutex_unlock(&txrdma_services_lock);
			return 0;
		}
		mutex_unlock(&txrdma_services_lock);
		/* the service lives until its file is released: not now */
		left = wait_event_interruptible_timeout(svc->wait,
							READ_ONCE(svc->nbacklog),
							tmo);
		if (left < 0)
			return -EINTR;
		if (!left)
			return -ETIMEDOUT;
		tmo = left;
	}
}

/**
 * txrdma_service_file_release() - the file goes: so do its services
 * @tf: the file
 * @refuse: gets the requests that were waiting, for the caller to
 *	refuse (txrdma_pair.c)
 */
void txrdma_service_file_release(struct txrdma_file *tf,
				 struct list_head *refuse)
{
	struct txrdma_service *svc, *tmp;
	struct txrdma_tenant *t;

	mutex_lock(&txrdma_services_lock);
	list_for_each_entry_safe(svc, tmp, &tf->services, file_node) {
		t = svc->tenant;
		xa_erase(&t->services, svc->number);
		list_del(&svc->file_node);
		list_splice_tail_init(&svc->backlog, refuse);
		spin_lock_bh(&t->lock);
		txrdma_quota_uncharge(&t->quota, TXRDMA_RES_LISTENERS, 1);
		spin_unlock_bh(&t->lock);
		txrdma_tenant_put(t);
		kfree(svc);
	}
	mutex_unlock(&txrdma_services_lock);
}
