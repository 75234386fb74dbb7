// SPDX-License-Identifier: GPL-2.0-only
/*
 * txrdma: an RDMA transport for distributed databases.
 *
 * Start order matters: the fault-injection points come first (any
 * later part may consult them) and go last; the netlink family exists
 * before the ib_client
 * so that device add events have somewhere to go, and /dev/txrdma
 * appears last, when everything it reports is in place.  Exit runs the
 * same steps backwards; ib_unregister_client() removes every device and
 * its events still reach listeners.
 */
#include <linux/module.h>

#include "txrdma.h"
#include "txrdma_endpoint.h"
#include "txrdma_inject.h"
#include "txrdma_peer.h"
#include "txrdma_region.h"
#include "txrdma_ringfile.h"
#include "txrdma_tenant.h"

static int __init txrdma_init(void)
{
	int ret;

	txrdma_fault_init();
	ret = txrdma_regions_init();
	if (ret)
		goto out_fault;
	ret = txrdma_nl_init();
	if (ret)
		goto out_regions;
	/* devices' pollers hand their rings back to the default one */
	ret = txrdma_poller_init();
	if (ret)
		goto out_nl;
	ret = txrdma_ibdev_init();
	if (ret)
		goto out_poller;
	ret = txrdma_peers_init();
	if (ret)
		goto out_ibdev;
	ret = txrdma_cdev_init();
	if (ret)
		goto out_peers;
	return 0;

out_peers:
	txrdma_peers_exit();
out_ibdev:
	txrdma_ibdev_exit();
out_poller:
	txrdma_poller_exit();
out_nl:
	txrdma_nl_exit();
	txrdma_tenants_exit();
out_regions:
	txrdma_regions_exit();
out_fault:
	txrdma_fault_exit();
	return ret;
}

static void __exit txrdma_exit(void)
{
	txrdma_cdev_exit();
	/* pairing messages still queued hold peers */
	txrdma_pair_exit();
	/* peers' connections go before the devices they run on */
	txrdma_peers_exit();
	txrdma_ibdev_exit();
	/* no file is open and no device left: no ring, no other poller */
	txrdma_poller_exit();
	txrdma_nl_exit();
	/* no netlink op or open file remains: tenants and regions go last */
	txrdma_tenants_exit();
	txrdma_regions_exit();
	txrdma_fault_exit();
}

module_init(txrdma_init);
module_exit(txrdma_exit);

MODULE_DESCRIPTION("txrdma: RDMA transport for distributed databases");
MODULE_LICENSE("GPL");
