// SPDX-License-Identifier: GPL-2.0-only
/*
 * The RDMA devices txrdma knows about.
 *
 * An ib_client sees every device as it is registered and unregistered
 * (including "rdma link add/delete" of rxe while the module is loaded).
 * Async events (port up/down) only schedule a work item: the handler
 * runs from the RDMA core's event work and must not sleep on our lock
 * for long, and coalescing several events into one re-query of every
 * port gives the state, not a replay of edges.
 */
#include <linux/slab.h>
#include <linux/string.h>

#include "txrdma.h"
#include "txrdma_endpoint.h"
#include "txrdma_peer.h"
#include "txrdma_region.h"

/* protects txrdma_devs, every txrdma_dev on it, and orders events */
DEFINE_MUTEX(txrdma_devs_lock);
LIST_HEAD(txrdma_devs);

static struct ib_client txrdma_ib_client;

/* Query every port; emit an event for each one whose state changed. */
static void txrdma_dev_port_work(struct work_struct *work)
{
	struct txrdma_dev *dev = container_of(work, struct txrdma_dev,
					      port_work);
	struct ib_port_attr attr;
	u32 i;

	mutex_lock(&txrdma_devs_lock);
	for (i = 0; i < dev->nports; i++) {
		struct txrdma_port *p = &dev->ports[i];
		u8 old = p->state;

		if (ib_query_port(dev->ibdev, dev->first_port + i, &attr))
			continue;
		p->state = attr.state;
		p->active_mtu = attr.active_mtu;
		if (old != p->state)
			txrdma_nl_notify_port(dev, dev->first_port + i, old,
					      p->state);
	}
	mutex_unlock(&txrdma_devs_lock);
}

static void txrdma_dev_event(struct ib_event_handler *handler,
			     struct ib_event *event)
{
	struct txrdma_dev *dev = container_of(handler, struct txrdma_dev,
					      event_handler);

	switch (event->event) {
	case IB_EVENT_PORT_ACTIVE:
	case IB_EVENT_PORT_ERR:
	case IB_EVENT_LID_CHANGE:
	case IB_EVENT_GID_CHANGE:
	case IB_EVENT_CLIENT_REREGISTER:
		schedule_work(&dev->port_work);
		break;
	default:
		break;
	}
}

static int txrdma_ib_add(struct ib_device *ibdev)
{
	u32 first = rdma_start_port(ibdev);
	u32 nports = rdma_end_port(ibdev) - first + 1;
	struct ib_port_attr attr;
	struct txrdma_dev *dev;
	u32 i;

	dev = kzalloc(struct_size(dev, ports, nports), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	/* the rings of its pairs are served on its own (NUMA-near) CPUs */
	dev->poller = txrdma_poller_create(dev_name(&ibdev->dev),
					   ibdev->dev.parent ?
					   dev_to_node(ibdev->dev.parent) :
					   NUMA_NO_NODE);
	if (IS_ERR(dev->poller)) {
		int ret = PTR_ERR(dev->poller);

		kfree(dev);
		return ret;
	}
	dev->ibdev = ibdev;
	dev->first_port = first;
	dev->nports = nports;
	dev->enabled = true;
	strscpy(dev->name, dev_name(&ibdev->dev), sizeof(dev->name));
	INIT_WORK(&dev->port_work, txrdma_dev_port_work);
	atomic_set(&dev->nr_mrs, 0);
	refcount_set(&dev->users, 1);
	init_completion(&dev->unused);
	/* a device that cannot register memory is still listed */
	txrdma_dev_reg_init(dev);
	for (i = 0; i < nports; i++) {
		if (ib_query_port(ibdev, first + i, &attr))
			continue;
		dev->ports[i].state = attr.state;
		dev->ports[i].active_mtu = attr.active_mtu;
	}

	mutex_lock(&txrdma_devs_lock);
	list_add_tail(&dev->node, &txrdma_devs);
	txrdma_nl_notify_dev(dev, TXRDMA_CMD_DEV_ADD_NTF);
	mutex_unlock(&txrdma_devs_lock);

	ib_set_client_data(ibdev, &txrdma_ib_client, dev);
	INIT_IB_EVENT_HANDLER(&dev->event_handler, ibdev, txrdma_dev_event);
	ib_register_event_handler(&dev->event_handler);
	/* a port may have changed between the query and the registration */
	schedule_work(&dev->port_work);
	return 0;
}

static void txrdma_ib_remove(struct ib_device *ibdev, void *client_data)
{
	struct txrdma_dev *dev = client_data;

	/* no new events, then no work in flight, then unpublish */
	ib_unregister_event_handler(&dev->event_handler);
	cancel_work_sync(&dev->port_work);

	mutex_lock(&txrdma_devs_lock);
	list_del(&dev->node);
	/*
	 * From here on no connection is made on it and no memory is
	 * registered on it; a registration already running keeps its MR
	 * only if what owns it still sees it in time (each checks dying
	 * where it stores the key), and the wait below covers the rest.
	 */
	WRITE_ONCE(dev->dying, true);
	txrdma_nl_notify_dev(dev, TXRDMA_CMD_DEV_DEL_NTF);
	mutex_unlock(&txrdma_devs_lock);
	/* sessions on it fail: they would keep its keys past its end */
	txrdma_eps_dev_gone(dev);
	/* connections to peers through it go first: they hold users */
	txrdma_peers_drop_dev(dev);
	/* regions stay (their memory is the tenant's); their MRs here go */
	txrdma_regions_drop_dev(dev);
	/* registrations in flight finish (and drop their MRs) first */
	txrdma_dev_user_put(dev);
	wait_for_completion(&dev->unused);
	txrdma_dev_reg_exit(dev);
	/* no pair uses it any more; rings it served go to the default */
	txrdma_poller_destroy(dev->poller);
	kfree(dev);
}

static void txrdma_ib_rename(struct ib_device *ibdev, void *client_data)
{
	struct txrdma_dev *dev = client_data;

	mutex_lock(&txrdma_devs_lock);
	strscpy(dev->name, dev_name(&ibdev->dev), sizeof(dev->name));
	mutex_unlock(&txrdma_devs_lock);
}

static struct ib_client txrdma_ib_client = {
	.name	= "txrdma",
	.add	= txrdma_ib_add,
	.remove	= txrdma_ib_remove,
	.rename	= txrdma_ib_rename,
};

/**
 * txrdma_dev_find_locked() - look a device up by name or index
 * @name: device name, used when @by_index is false
 * @index: ib_device index, used when @by_index is true
 * @by_index: which key to use
 *
 * Caller holds txrdma_devs_lock.
 * Return: the device or NULL.
 */
struct txrdma_dev *txrdma_dev_find_locked(const char *name, u32 index,
					  bool by_index)
{
	struct txrdma_dev *dev;

	lockdep_assert_held(&txrdma_devs_lock);
	list_for_each_entry(dev, &txrdma_devs, node) {
		if (by_index ? dev->ibdev->index == index :
			       !strcmp(dev->name, name))
			return dev;
	}
	return NULL;
}

bool txrdma_dev_can_register(const struct txrdma_dev *dev)
{
	return dev->reg.pd && !READ_ONCE(dev->reg.broken);
}

/**
 * txrdma_devs_get_registering() - the devices to register a region with
 * @n: how many are returned
 *
 * Every enabled device that can register memory, each with a user
 * reference (txrdma_dev_user_put()), so that registration runs without
 * holding txrdma_devs_lock.
 * Return: a kmalloc'ed array (kfree it), or ERR_PTR(-ENOMEM).
 */
struct txrdma_dev **txrdma_devs_get_registering(unsigned int *n)
{
	struct txrdma_dev *dev, **devs;
	unsigned int i = 0, cnt = 0;

	mutex_lock(&txrdma_devs_lock);
	list_for_each_entry(dev, &txrdma_devs, node)
		cnt += dev->enabled && txrdma_dev_can_register(dev);
	devs = kmalloc_array(cnt, sizeof(*devs), GFP_KERNEL);
	if (devs) {
		list_for_each_entry(dev, &txrdma_devs, node) {
			if (!dev->enabled || !txrdma_dev_can_register(dev))
				continue;
			refcount_inc(&dev->users);
			devs[i++] = dev;
		}
	}
	mutex_unlock(&txrdma_devs_lock);
	*n = i;
	return devs ? devs : ERR_PTR(-ENOMEM);
}

/**
 * txrdma_dev_get_ibdev() - the txrdma device of an ib_device, for a QP
 * @ibdev: device an rdma_cm id resolved to
 *
 * Return: the device with a user reference (txrdma_dev_user_put()), or
 * NULL when txrdma does not know it, it is disabled, being removed, or
 * cannot register memory (its PD is what connections use).
 */
struct txrdma_dev *txrdma_dev_get_ibdev(struct ib_device *ibdev)
{
	struct txrdma_dev *dev, *found = NULL;

	mutex_lock(&txrdma_devs_lock);
	list_for_each_entry(dev, &txrdma_devs, node) {
		if (dev->ibdev != ibdev)
			continue;
		if (dev->enabled && !dev->dying &&
		    txrdma_dev_can_register(dev)) {
			refcount_inc(&dev->users);
			found = dev;
		}
		break;
	}
	mutex_unlock(&txrdma_devs_lock);
	return found;
}

/*
 * Another user reference, for a caller that holds one already (through
 * a connection on @dev it reached under a lock that keeps it): the
 * device cannot be freed between the caller's use and this one's.
 */
void txrdma_dev_user_get(struct txrdma_dev *dev)
{
	refcount_inc(&dev->users);
}

void txrdma_dev_user_put(struct txrdma_dev *dev)
{
	if (refcount_dec_and_test(&dev->users))
		complete(&dev->unused);
}

unsigned int txrdma_ibdev_count(void)
{
	struct txrdma_dev *dev;
	unsigned int n = 0;

	mutex_lock(&txrdma_devs_lock);
	list_for_each_entry(dev, &txrdma_devs, node)
		n++;
	mutex_unlock(&txrdma_devs_lock);
	return n;
}

int txrdma_ibdev_init(void)
{
	return ib_register_client(&txrdma_ib_client);
}

void txrdma_ibdev_exit(void)
{
	/* calls txrdma_ib_remove() for every device still present */
	ib_unregister_client(&txrdma_ib_client);
}
