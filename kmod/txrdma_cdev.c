// SPDX-License-Identifier: GPL-2.0-only
/*
 * /dev/txrdma: the process-facing side of the module: probe, tenant,
 * region, endpoint and ring ioctls, the mmap of regions and rings, and
 * poll(2) on the completion ring.  Opening needs no privilege: what a process may do
 * is decided per tenant, not by file mode.
 */
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/uaccess.h>

#include "txrdma.h"
#include "txrdma_abi.h"
#include "txrdma_endpoint.h"
#include "txrdma_region.h"
#include "txrdma_ringfile.h"
#include "txrdma_tenant.h"

static long txrdma_ioctl_probe(void __user *uarg)
{
	struct txrdma_probe p;
	int ret;

	if (copy_from_user(&p, uarg, sizeof(p)))
		return -EFAULT;
	ret = txrdma_probe_check(&p);
	if (ret)
		return ret;
	txrdma_probe_fill(&p, txrdma_ibdev_count());
	if (copy_to_user(uarg, &p, sizeof(p)))
		return -EFAULT;
	return 0;
}

static long txrdma_ioctl_tenant_info(void __user *uarg)
{
	struct txrdma_tenant_info ti;
	int ret;

	if (copy_from_user(&ti, uarg, sizeof(ti)))
		return -EFAULT;
	ret = txrdma_tenant_info_check(&ti);
	if (ret)
		return ret;
	memset(&ti, 0, sizeof(ti));
	ret = txrdma_tenant_of_current(&ti.id, ti.name, sizeof(ti.name));
	if (ret)
		return ret;
	if (copy_to_user(uarg, &ti, sizeof(ti)))
		return -EFAULT;
	return 0;
}

static long txrdma_ioctl(struct file *file, unsigned int cmd,
			 unsigned long arg)
{
	struct txrdma_file *tf = file->private_data;
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case TXRDMA_IOC_PROBE:
		return txrdma_ioctl_probe(uarg);
	case TXRDMA_IOC_TENANT_INFO:
		return txrdma_ioctl_tenant_info(uarg);
	case TXRDMA_IOC_REGION_CREATE:
		return txrdma_ioctl_region_create(tf, uarg);
	case TXRDMA_IOC_REGION_REG_USER:
		return txrdma_ioctl_region_reg_user(tf, uarg);
	case TXRDMA_IOC_REGION_INFO:
		return txrdma_ioctl_region_info(uarg);
	case TXRDMA_IOC_REGION_DESTROY:
		return txrdma_ioctl_region_destroy(uarg);
	case TXRDMA_IOC_EP_CREATE:
		return txrdma_ioctl_ep_create(tf, uarg);
	case TXRDMA_IOC_EP_INFO:
		return txrdma_ioctl_ep_info(tf, uarg);
	case TXRDMA_IOC_RING_SETUP:
		return txrdma_ioctl_ring_setup(tf, uarg);
	case TXRDMA_IOC_RING_ENTER:
		return txrdma_ioctl_ring_enter(tf);
	case TXRDMA_IOC_EP_DESTROY:
		return txrdma_ioctl_ep_destroy(tf, uarg);
	case TXRDMA_IOC_EP_LISTEN:
		return txrdma_ioctl_ep_listen(tf, uarg);
	case TXRDMA_IOC_EP_CONNECT:
		return txrdma_ioctl_ep_connect(tf, uarg);
	case TXRDMA_IOC_EP_ACCEPT:
		return txrdma_ioctl_ep_accept(tf, uarg);
	case TXRDMA_IOC_EP_EXPORT:
		return txrdma_ioctl_ep_export(tf, uarg);
	case TXRDMA_IOC_EP_EXPORTS:
		return txrdma_ioctl_ep_exports(tf, uarg);
	case TXRDMA_IOC_EP_SESS_EXPORT:
		return txrdma_ioctl_ep_sess_export(tf, uarg);
	case TXRDMA_IOC_EP_SESS_IMPORT:
		return txrdma_ioctl_ep_sess_import(tf, uarg);
	default:
		return -ENOTTY;
	}
}

static int txrdma_open(struct inode *inode, struct file *file)
{
	struct txrdma_file *tf = txrdma_file_alloc(file->f_mapping);

	if (!tf)
		return -ENOMEM;
	file->private_data = tf;
	return 0;
}

static int txrdma_release(struct inode *inode, struct file *file)
{
	/*
	 * Endpoints first (their QPs close, their completions stop
	 * touching the rings), then the rings (the poller lets go of them),
	 * then regions and the rest.
	 */
	txrdma_pair_file_release(file->private_data);
	txrdma_eps_file_release(file->private_data);
	txrdma_ring_release(file->private_data);
	txrdma_file_release(file->private_data);
	return 0;
}

static int txrdma_mmap(struct file *file, struct vm_area_struct *vma)
{
	/* offset 0 is the rings; regions start at id 1 << 40 */
	if (!vma->vm_pgoff)
		return txrdma_ring_mmap(file->private_data, vma);
	return txrdma_region_mmap(file, vma);
}

static __poll_t txrdma_poll(struct file *file, poll_table *wait)
{
	return txrdma_ring_poll(file->private_data, file, wait);
}

static const struct file_operations txrdma_fops = {
	.owner		= THIS_MODULE,
	.open		= txrdma_open,
	.release	= txrdma_release,
	.mmap		= txrdma_mmap,
	.poll		= txrdma_poll,
	.unlocked_ioctl	= txrdma_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.llseek		= noop_llseek,
};

static struct miscdevice txrdma_miscdev = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= TXRDMA_DEVICE_NAME,
	.fops	= &txrdma_fops,
	.mode	= 0666,
};

int txrdma_cdev_init(void)
{
	return misc_register(&txrdma_miscdev);
}

void txrdma_cdev_exit(void)
{
	misc_deregister(&txrdma_miscdev);
}
