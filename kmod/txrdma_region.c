// SPDX-License-Identifier: GPL-2.0-only
/*
 * Regions: memory of a tenant that txrdma may use for RDMA.
 *
 * Module-owned regions are 2 MiB compound pages (order-0 pages only
 * when the caller allows it), zeroed, pinned by construction and mapped
 * into processes as VM_PFNMAP mappings filled by a fault handler.  User regions pin a process's
 * own memory long-term (FOLL_LONGTERM) and charge its pinned_vm against
 * RLIMIT_MEMLOCK, as ib_umem does.  Both are charged to the tenant's
 * pinned limit from creation until the memory is freed.
 *
 * Lifetime: a region is published (found by id) from creation until it
 * is destroyed, its creating file is released, or its tenant is
 * deleted by force.  The memory lives until the last reference goes:
 * the publication holds one, every VMA one (vm_ops open/close), so a
 * process that still maps a destroyed region never sees freed pages.
 * Forced deletion marks the tenant's regions revoked, drops their
 * registrations and zaps every mapping of them: pages are inserted by
 * the fault handler, which checks the revoked flag under map_sem, so a
 * mapping set up while the revocation runs cannot keep its pages.
 */
#include <linux/crc32.h>
#include <linux/highmem.h>
#include <linux/hugetlb_inline.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/shmem_fs.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>

#include "txrdma.h"
#include "txrdma_endpoint.h"
#include "txrdma_inject.h"
#include "txrdma_region.h"
#include "txrdma_range.h"
#include "txrdma_tenant.h"

#define TXRDMA_HUGE_ORDER	(21 - PAGE_SHIFT)

static unsigned int max_regions_per_tenant = 65536;
module_param(max_regions_per_tenant, uint, 0644);
MODULE_PARM_DESC(max_regions_per_tenant,
		 "live regions a tenant may hold (default 65536)");

/* protects publication, the file and tenant region lists */
static DEFINE_MUTEX(txrdma_regions_lock);
static DEFINE_XARRAY_ALLOC1(txrdma_regions);
/* ids are allocated cyclically: a stale id rarely names a new region */
static u32 txrdma_region_next_id;
static struct kmem_cache *txrdma_region_cache;
/* every open file (txrdma_regions_lock): their mappings are zapped */
static LIST_HEAD(txrdma_files);
/* every live region, published or not (txrdma_regions_lock) */
static LIST_HEAD(txrdma_regions_all);

static u64 txrdma_region_offset(const struct txrdma_region *r)
{
	return (u64)r->id << TXRDMA_REGION_SHIFT;
}

static void txrdma_region_free_pages(struct txrdma_region *r)
{
	unsigned long i;

	if (!r->pages)
		return;
	if (r->kind == TXRDMA_REGION_KIND_USER) {
		unpin_user_pages_dirty_lock(r->pages, r->npages, true);
		atomic64_sub(r->npages, &r->mm->pinned_vm);
		mmdrop(r->mm);
	} else {
		for (i = 0; i < r->npages && r->pages[i]; i++)
			__free_pages(r->pages[i], r->order);
	}
	kvfree(r->pages);
}

/* Drop the registrations of @r on @dev (every device if NULL). */
static void txrdma_region_drop_mrs(struct txrdma_region *r,
				   struct txrdma_dev *dev)
{
	struct txrdma_mr *m, *tmp;

	lockdep_assert_held(&txrdma_regions_lock);
	list_for_each_entry_safe(m, tmp, &r->mrs, node) {
		if (dev && m->dev != dev)
			continue;
		spin_lock(&r->mrs_lock);
		list_del(&m->node);
		spin_unlock(&r->mrs_lock);
		atomic_dec(&m->dev->nr_mrs);
		txrdma_mr_free(m);
	}
}

static void txrdma_region_free_rcu(struct rcu_head *head)
{
	kmem_cache_free(txrdma_region_cache,
			container_of(head, struct txrdma_region, rcu));
}

static void txrdma_region_release(struct kref *ref)
{
	struct txrdma_region *r = container_of(ref, struct txrdma_region, ref);
	struct txrdma_tenant *t = r->tenant;

	/* the NIC must be done with the pages before they are freed */
	mutex_lock(&txrdma_regions_lock);
	list_del(&r->all_node);
	list_del_init(&r->tenant_node);
	t->nregions--;
	txrdma_region_drop_mrs(r, NULL);
	mutex_unlock(&txrdma_regions_lock);
	txrdma_region_free_pages(r);
	spin_lock_bh(&t->lock);
	txrdma_quota_uncharge(&t->quota, TXRDMA_RES_PINNED, r->size);
	spin_unlock_bh(&t->lock);
	txrdma_tenant_put(t);
	/* a lookup under RCU may still look at it (txrdma_region_resolve) */
	call_rcu(&r->rcu, txrdma_region_free_rcu);
}

static void txrdma_region_put(struct txrdma_region *r)
{
	kref_put(&r->ref, txrdma_region_release);
}

/*
 * Unpublish; caller holds txrdma_regions_lock and then drops the ref.
 * The region stays on its tenant's list until it is freed, so that a
 * forced deletion also reaches regions that are only still mapped.
 */
static void txrdma_region_unpublish(struct txrdma_region *r)
{
	lockdep_assert_held(&txrdma_regions_lock);
	xa_erase(&txrdma_regions, r->id);
	list_del(&r->file_node);
	WRITE_ONCE(r->published, false);
}

/*
 * Allocate a region charged to the caller's tenant.  On success it is
 * not yet published.
 */
static struct txrdma_region *txrdma_region_alloc(u64 size, u8 kind)
{
	struct txrdma_tenant *t;
	struct txrdma_region *r;
	int ret;

	t = txrdma_tenant_get_current();
	if (IS_ERR(t))
		return ERR_CAST(t);
	r = kmem_cache_zalloc(txrdma_region_cache, GFP_KERNEL_ACCOUNT);
	if (!r) {
		txrdma_tenant_put(t);
		return ERR_PTR(-ENOMEM);
	}
	/*
	 * However small its regions, one tenant must not exhaust the MR
	 * tables or the id space of everyone: the slot is taken before any
	 * memory is allocated or registered.
	 */
	mutex_lock(&txrdma_regions_lock);
	ret = t->nregions >= READ_ONCE(max_regions_per_tenant) ? -ENOSPC : 0;
	if (!ret) {
		spin_lock_bh(&t->lock);
		/* a tenant being deleted takes no more charges */
		ret = t->dead ? -EPERM :
		      txrdma_quota_charge(&t->quota, TXRDMA_RES_PINNED, size);
		spin_unlock_bh(&t->lock);
	}
	if (ret) {
		mutex_unlock(&txrdma_regions_lock);
		kmem_cache_free(txrdma_region_cache, r);
		txrdma_tenant_put(t);
		return ERR_PTR(ret);
	}
	t->nregions++;
	kref_init(&r->ref);
	r->kind = kind;
	r->size = size;
	r->tenant = t;
	INIT_LIST_HEAD(&r->file_node);
	INIT_LIST_HEAD(&r->tenant_node);
	INIT_LIST_HEAD(&r->mrs);
	spin_lock_init(&r->mrs_lock);
	init_rwsem(&r->map_sem);
	spin_lock_init(&r->uses_lock);
	INIT_LIST_HEAD(&r->uses);
	/* listed from birth, so that device removal finds its MRs */
	list_add(&r->all_node, &txrdma_regions_all);
	mutex_unlock(&txrdma_regions_lock);
	return r;
}

/*
 * Pages are charged to the caller's memory cgroup (__GFP_ACCOUNT) and
 * never invoke the OOM killer for it (NORETRY / RETRY_MAYFAIL): pinned
 * module pages are invisible to the OOM killer's choice of victim.
 */
static int txrdma_region_alloc_pool(struct txrdma_region *r, bool small_ok)
{
	gfp_t gfp = GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN | __GFP_ACCOUNT;
	unsigned long i;

	if (IS_ALIGNED(r->size, TXRDMA_REGION_HUGE_SIZE)) {
		r->order = TXRDMA_HUGE_ORDER;
		r->npages = r->size >> 21;
		r->pages = kvcalloc(r->npages, sizeof(*r->pages),
				    GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL);
		if (!r->pages)
			return -ENOMEM;
		for (i = 0; i < r->npages; i++) {
			if (fatal_signal_pending(current))
				return -EINTR;	/* the release frees them */
			r->pages[i] = alloc_pages(gfp | __GFP_COMP |
						  __GFP_NORETRY, r->order);
			if (!r->pages[i])
				break;
			cond_resched();
		}
		if (i == r->npages)
			return 0;
		txrdma_region_free_pages(r);
		r->pages = NULL;
		if (!small_ok || r->size > TXRDMA_REGION_MAX_SMALL)
			return -ENOMEM;
	}
	/* order-0 pages: allowed by the caller, or the size needs them */
	r->order = 0;
	r->npages = r->size >> PAGE_SHIFT;
	r->pages = kvcalloc(r->npages, sizeof(*r->pages),
			    GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL);
	if (!r->pages)
		return -ENOMEM;
	for (i = 0; i < r->npages; i++) {
		r->pages[i] = alloc_page(gfp | __GFP_RETRY_MAYFAIL);
		if (!r->pages[i])
			return -ENOMEM;	/* the release frees what was taken */
		if (!(i & 511)) {
			if (fatal_signal_pending(current))
				return -EINTR;
			cond_resched();
		}
	}
	return 0;
}

/*
 * Long-term pins of file-backed page cache break file systems that
 * track dirty pages (the page gets written behind their back): only
 * anonymous, shmem and hugetlbfs memory may be registered.
 */
static int txrdma_region_check_vmas(u64 addr, u64 size)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	u64 cur = addr, end = addr + size;

	mmap_assert_locked(mm);
	while (cur < end) {
		vma = find_vma(mm, cur);
		if (!vma || vma->vm_start > cur)
			return -EFAULT;
		if (!vma_is_anonymous(vma) && !is_vm_hugetlb_page(vma) &&
		    !shmem_file(vma->vm_file))
			return -EOPNOTSUPP;
		cur = vma->vm_end;
	}
	return 0;
}

static int txrdma_region_pin_user(struct txrdma_region *r, u64 addr)
{
	unsigned long lock_limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	unsigned long done = 0, pinned;
	int n, ret = 0;

	r->order = 0;
	r->npages = r->size >> PAGE_SHIFT;
	pinned = atomic64_add_return(r->npages, &current->mm->pinned_vm);
	if (pinned > lock_limit && !capable(CAP_IPC_LOCK)) {
		ret = -ENOMEM;
		goto out_unaccount;
	}
	r->pages = kvcalloc(r->npages, sizeof(*r->pages),
			    GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL);
	if (!r->pages) {
		ret = -ENOMEM;
		goto out_unaccount;
	}
	/*
	 * The VMA check and the pins under one hold of mmap_lock: a
	 * concurrent mmap(MAP_FIXED) cannot slip file-backed memory in.
	 */
	mmap_read_lock(current->mm);
	ret = txrdma_region_check_vmas(addr, r->size);
	while (!ret && done < r->npages) {
		n = pin_user_pages(addr + (done << PAGE_SHIFT),
				   min_t(unsigned long, r->npages - done,
					 SZ_64K),
				   FOLL_WRITE | FOLL_LONGTERM,
				   r->pages + done, NULL);
		if (n <= 0) {
			ret = n ? n : -EFAULT;
			break;
		}
		done += n;
		if (fatal_signal_pending(current))
			ret = -EINTR;
	}
	mmap_read_unlock(current->mm);
	if (!ret) {
		r->mm = current->mm;
		mmgrab(r->mm);
		return 0;
	}
	unpin_user_pages(r->pages, done);
	kvfree(r->pages);
	r->pages = NULL;
out_unaccount:
	atomic64_sub(r->npages, &current->mm->pinned_vm);
	return ret;
}

/*
 * Register @r with every enabled device that can register memory: all
 * or nothing.  No global lock is held while work requests are posted:
 * each device is pinned by a user reference, and a device that started
 * going away meanwhile (dying) gets its new MRs dropped at once.
 */
static int txrdma_region_register(struct txrdma_region *r)
{
	struct txrdma_dev **devs;
	struct txrdma_mr *m, *tmp;
	unsigned int n, i;
	int ret = 0;

	devs = txrdma_devs_get_registering(&n);
	if (IS_ERR(devs))
		return PTR_ERR(devs);
	/* as a device refusing the work request: no device registers it */
	if (txrdma_fault(TXRDMA_FAULT_REG, 1))
		ret = -EIO;
	for (i = 0; i < n; i++) {
		LIST_HEAD(mrs);

		if (!ret) {
			ret = txrdma_frwr_pages(devs[i], r->pages, r->npages,
						r->order, &mrs);
			/* a device going away is skipped, not an error */
			if (ret == -ENODEV)
				ret = 0;
		}
		mutex_lock(&txrdma_regions_lock);
		list_for_each_entry_safe(m, tmp, &mrs, node) {
			if (devs[i]->dying) {
				list_del(&m->node);
				txrdma_mr_free(m);
				continue;
			}
			spin_lock(&r->mrs_lock);
			list_move_tail(&m->node, &r->mrs);
			spin_unlock(&r->mrs_lock);
			atomic_inc(&m->dev->nr_mrs);
		}
		mutex_unlock(&txrdma_regions_lock);
		txrdma_dev_user_put(devs[i]);
	}
	kfree(devs);
	if (ret) {
		mutex_lock(&txrdma_regions_lock);
		txrdma_region_drop_mrs(r, NULL);
		mutex_unlock(&txrdma_regions_lock);
	}
	return ret;
}

/**
 * txrdma_regions_drop_dev() - a device goes: drop every MR on it
 * @dev: the device, already unlisted
 *
 * Registrations still in flight on it see @dev->dying and drop their
 * MRs themselves; the caller then waits for their user references.
 */
void txrdma_regions_drop_dev(struct txrdma_dev *dev)
{
	struct txrdma_region *r;

	mutex_lock(&txrdma_regions_lock);
	dev->dying = true;
	list_for_each_entry(r, &txrdma_regions_all, all_node)
		txrdma_region_drop_mrs(r, dev);
	mutex_unlock(&txrdma_regions_lock);
}

/*
 * Publish @r, owned by @tf.  On success the caller holds a reference of
 * its own (dropped when its ioctl is done), since the publication's may
 * go at any moment through a concurrent destroy or revocation.
 */
static int txrdma_region_publish(struct txrdma_file *tf,
				 struct txrdma_region *r, u32 *idp)
{
	u32 id;
	int ret;

	mutex_lock(&txrdma_regions_lock);
	if (r->tenant->dead) {
		ret = -EPERM;
		goto out_unlock;
	}
	ret = xa_alloc_cyclic(&txrdma_regions, &id, r,
			      XA_LIMIT(1, TXRDMA_REGION_MAX_ID),
			      &txrdma_region_next_id, GFP_KERNEL_ACCOUNT);
	if (ret < 0)
		goto out_unlock;
	ret = 0;
	r->id = id;
	WRITE_ONCE(r->published, true);
	list_add_tail(&r->file_node, &tf->regions);
	list_add_tail(&r->tenant_node, &r->tenant->regions);
	kref_get(&r->ref);
	*idp = id;
out_unlock:
	mutex_unlock(&txrdma_regions_lock);
	return ret == -EBUSY ? -ENOSPC : ret;
}

/* Undo a publication whose id could not reach user space. */
static void txrdma_region_unpublish_put(struct txrdma_region *r)
{
	bool was = false;

	mutex_lock(&txrdma_regions_lock);
	if (r->published) {
		txrdma_region_unpublish(r);
		was = true;
	}
	mutex_unlock(&txrdma_regions_lock);
	if (was)
		txrdma_region_put(r);	/* the publication's */
}

/*
 * Hand the new region's id to user space; a reply that cannot be
 * written undoes the publication.  Drops the ioctl's own reference.
 */
static int txrdma_region_reply(struct txrdma_region *r, void __user *uarg,
			       const void *reply, size_t len)
{
	int ret = 0;

	if (copy_to_user(uarg, reply, len)) {
		txrdma_region_unpublish_put(r);
		ret = -EFAULT;
	}
	txrdma_region_put(r);	/* ours */
	return ret;
}

/* Fill, register and publish a new region; consumes @r on error. */
static int txrdma_region_finish(struct txrdma_file *tf,
				struct txrdma_region *r, int ret, u32 *idp)
{
	if (!ret)
		ret = txrdma_region_register(r);
	if (!ret)
		ret = txrdma_region_publish(tf, r, idp);
	if (ret)
		txrdma_region_put(r);
	return ret;
}

long txrdma_ioctl_region_create(struct txrdma_file *tf, void __user *uarg)
{
	struct txrdma_region_create rc;
	struct txrdma_region *r;
	bool small;
	u32 id;
	int ret;

	if (copy_from_user(&rc, uarg, sizeof(rc)))
		return -EFAULT;
	small = rc.flags & TXRDMA_REGION_F_SMALL_PAGES;
	if (rc.flags & ~TXRDMA_REGION_F_ALL || rc.resv[0] || rc.resv[1] ||
	    !rc.size || rc.size > TXRDMA_REGION_MAX_SIZE ||
	    !IS_ALIGNED(rc.size, small ? PAGE_SIZE : TXRDMA_REGION_HUGE_SIZE) ||
	    (!IS_ALIGNED(rc.size, TXRDMA_REGION_HUGE_SIZE) &&
	     rc.size > TXRDMA_REGION_MAX_SMALL))
		return -EINVAL;

	r = txrdma_region_alloc(rc.size, TXRDMA_REGION_KIND_POOL);
	if (IS_ERR(r))
		return PTR_ERR(r);
	ret = txrdma_region_finish(tf, r,
				   txrdma_region_alloc_pool(r, small), &id);
	if (ret)
		return ret;
	rc.id = id;
	rc.mmap_offset = (u64)id << TXRDMA_REGION_SHIFT;
	return txrdma_region_reply(r, uarg, &rc, sizeof(rc));
}

long txrdma_ioctl_region_reg_user(struct txrdma_file *tf, void __user *uarg)
{
	struct txrdma_region_reg_user ru;
	struct txrdma_region *r;
	u32 id;
	int ret;

	if (copy_from_user(&ru, uarg, sizeof(ru)))
		return -EFAULT;
	if (ru.flags || ru.resv[0] || ru.resv[1] || !ru.size ||
	    ru.size > TXRDMA_REGION_MAX_SMALL ||
	    !PAGE_ALIGNED(ru.size) || !PAGE_ALIGNED(ru.addr) ||
	    ru.addr + ru.size < ru.addr)
		return -EINVAL;
	if (!access_ok(u64_to_user_ptr(ru.addr), ru.size))
		return -EFAULT;

	r = txrdma_region_alloc(ru.size, TXRDMA_REGION_KIND_USER);
	if (IS_ERR(r))
		return PTR_ERR(r);
	ret = txrdma_region_finish(tf, r, txrdma_region_pin_user(r, ru.addr),
				   &id);
	if (ret)
		return ret;
	ru.id = id;
	return txrdma_region_reply(r, uarg, &ru, sizeof(ru));
}

/*
 * Find a published region for the caller: a reference on success,
 * -ENOENT if none, -EACCES if it is another tenant's, -EPERM if the
 * caller has no tenant.
 */
static struct txrdma_region *txrdma_region_get(u32 id)
{
	struct txrdma_tenant *t = txrdma_tenant_get_current();
	struct txrdma_region *r;

	if (IS_ERR(t))
		return ERR_CAST(t);
	mutex_lock(&txrdma_regions_lock);
	r = xa_load(&txrdma_regions, id);
	if (!r)
		r = ERR_PTR(-ENOENT);
	else if (r->tenant != t)
		r = ERR_PTR(-EACCES);
	else
		kref_get(&r->ref);
	mutex_unlock(&txrdma_regions_lock);
	txrdma_tenant_put(t);
	return r;
}

static int txrdma_region_info_check(struct txrdma_region_info *ri,
				    void __user *uarg)
{
	if (copy_from_user(ri, uarg, sizeof(*ri)))
		return -EFAULT;
	if (ri->flags || ri->resv[0] || ri->resv[1])
		return -EINVAL;
	return 0;
}

long txrdma_ioctl_region_info(void __user *uarg)
{
	struct txrdma_region_info ri;
	struct txrdma_region *r;
	int ret;

	ret = txrdma_region_info_check(&ri, uarg);
	if (ret)
		return ret;
	r = txrdma_region_get(ri.id);
	if (IS_ERR(r))
		return PTR_ERR(r);
	ri.size = r->size;
	ri.kind = r->kind;
	ri.tenant_id = r->tenant->id;
	ri.mmap_offset = r->kind == TXRDMA_REGION_KIND_POOL ?
			 txrdma_region_offset(r) : 0;
	txrdma_region_put(r);
	return copy_to_user(uarg, &ri, sizeof(ri)) ? -EFAULT : 0;
}

long txrdma_ioctl_region_destroy(void __user *uarg)
{
	struct txrdma_region_info ri;
	struct txrdma_region *r;
	bool unpublished = false;
	int ret;

	ret = txrdma_region_info_check(&ri, uarg);
	if (ret)
		return ret;
	r = txrdma_region_get(ri.id);
	if (IS_ERR(r))
		return PTR_ERR(r);
	mutex_lock(&txrdma_regions_lock);
	if (r->published) {
		txrdma_region_unpublish(r);
		unpublished = true;
	}
	mutex_unlock(&txrdma_regions_lock);
	if (unpublished)
		txrdma_region_put(r);	/* the publication's reference */
	txrdma_region_put(r);		/* ours */
	return unpublished ? 0 : -ENOENT;
}

static void txrdma_vma_open(struct vm_area_struct *vma)
{
	struct txrdma_region *r = vma->vm_private_data;

	kref_get(&r->ref);
}

static void txrdma_vma_close(struct vm_area_struct *vma)
{
	txrdma_region_put(vma->vm_private_data);
}

/*
 * Pages are inserted on fault, a whole 2 MiB page (or 4 KiB page) at a
 * time, under map_sem: a revocation sets @revoked under the same lock
 * before it zaps, so no PTE can appear after it.
 */
static vm_fault_t txrdma_vma_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct txrdma_region *r = vma->vm_private_data;
	u64 off = ((u64)vmf->pgoff << PAGE_SHIFT) &
		  (TXRDMA_REGION_MAX_SIZE - 1);
	unsigned long chunk = PAGE_SIZE << r->order, in, lo, hi, addr, pfn;
	vm_fault_t ret = VM_FAULT_SIGBUS;

	down_read(&r->map_sem);
	if (r->revoked || off >= r->size)
		goto out;
	in = off & (chunk - 1);
	pfn = page_to_pfn(r->pages[off >> (PAGE_SHIFT + r->order)]) +
	      (in >> PAGE_SHIFT);
	ret = vmf_insert_pfn(vma, vmf->address, pfn);
	if (ret != VM_FAULT_NOPAGE)
		goto out;
	/* best effort: the rest of this chunk that the VMA covers */
	lo = vmf->address - min_t(unsigned long, in,
				  vmf->address - vma->vm_start);
	hi = vmf->address + min_t(unsigned long, chunk - in,
				  vma->vm_end - vmf->address);
	for (addr = lo; addr < hi; addr += PAGE_SIZE) {
		if (addr == vmf->address)
			continue;
		if (vmf_insert_pfn(vma, addr, addr < vmf->address ?
				   pfn - ((vmf->address - addr) >> PAGE_SHIFT) :
				   pfn + ((addr - vmf->address) >> PAGE_SHIFT)) !=
		    VM_FAULT_NOPAGE)
			break;
	}
out:
	up_read(&r->map_sem);
	return ret;
}

static const struct vm_operations_struct txrdma_vm_ops = {
	.open	= txrdma_vma_open,
	.close	= txrdma_vma_close,
	.fault	= txrdma_vma_fault,
};

int txrdma_region_mmap(struct file *file, struct vm_area_struct *vma)
{
	u64 off = (u64)vma->vm_pgoff << PAGE_SHIFT;
	u64 len = vma->vm_end - vma->vm_start;
	u64 in = off & (TXRDMA_REGION_MAX_SIZE - 1);
	struct txrdma_region *r;

	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	r = txrdma_region_get(off >> TXRDMA_REGION_SHIFT);
	if (IS_ERR(r))
		/* an offset that names no region base is malformed */
		return PTR_ERR(r) == -ENOENT &&
		       (in || !(off >> TXRDMA_REGION_SHIFT)) ?
		       -EINVAL : PTR_ERR(r);
	if (r->kind != TXRDMA_REGION_KIND_POOL || in >= r->size ||
	    len > r->size - in) {
		txrdma_region_put(r);
		return -EINVAL;
	}
	vma->vm_flags |= VM_PFNMAP | VM_IO | VM_DONTEXPAND | VM_DONTDUMP;
	vma->vm_private_data = r;	/* the lookup's reference */
	vma->vm_ops = &txrdma_vm_ops;
	return 0;
}

/**
 * txrdma_regions_tenant_delete() - end a tenant's regions
 * @t: the tenant (still listed; its caller unlists it on success)
 * @force: revoke regions in use instead of refusing
 *
 * One step under txrdma_regions_lock and @t->lock: if the tenant holds
 * nothing (or @force), it is marked dead, so that no charge and no
 * publication succeeds after; with @force its regions are unpublished,
 * their registrations dropped (the NIC can no longer reach the pages)
 * and every mapping of them zapped.  Memory is freed, and the quota
 * released, as the last users let go.
 *
 * Return: 0, or -EBUSY if it holds resources and @force is false.
 */
int txrdma_regions_tenant_delete(struct txrdma_tenant *t, bool force)
{
	struct txrdma_region *r, *tmp;
	struct txrdma_file *tf;
	LIST_HEAD(dead);
	bool busy;

	mutex_lock(&txrdma_regions_lock);
	spin_lock_bh(&t->lock);
	busy = txrdma_quota_in_use(&t->quota);
	if (!busy || force)
		t->dead = true;
	spin_unlock_bh(&t->lock);
	if (busy && !force) {
		mutex_unlock(&txrdma_regions_lock);
		return -EBUSY;
	}
	list_for_each_entry_safe(r, tmp, &t->regions, tenant_node) {
		if (r->published) {
			txrdma_region_unpublish(r);
			list_add(&r->file_node, &dead);
		}
		txrdma_region_drop_mrs(r, NULL);
		down_write(&r->map_sem);
		WRITE_ONCE(r->revoked, true);
		up_write(&r->map_sem);
		if (r->kind != TXRDMA_REGION_KIND_POOL)
			continue;
		/*
		 * Opens through one device node share its inode's mapping;
		 * another node of the device has its own: zap them all.
		 */
		list_for_each_entry(tf, &txrdma_files, node)
			unmap_mapping_range(tf->mapping,
					    txrdma_region_offset(r), r->size,
					    1);
	}
	mutex_unlock(&txrdma_regions_lock);
	list_for_each_entry_safe(r, tmp, &dead, file_node) {
		list_del(&r->file_node);
		txrdma_region_put(r);
	}
	return 0;
}

struct txrdma_file *txrdma_file_alloc(struct address_space *mapping)
{
	struct txrdma_file *tf = kzalloc(sizeof(*tf), GFP_KERNEL_ACCOUNT);

	if (!tf)
		return NULL;
	INIT_LIST_HEAD(&tf->regions);
	INIT_LIST_HEAD(&tf->endpoints);
	INIT_LIST_HEAD(&tf->services);
	tf->mapping = mapping;
	mutex_lock(&txrdma_regions_lock);
	list_add(&tf->node, &txrdma_files);
	mutex_unlock(&txrdma_regions_lock);
	return tf;
}

/* Release of an open file: its regions are destroyed. */
void txrdma_file_release(struct txrdma_file *tf)
{
	struct txrdma_region *r, *tmp;
	LIST_HEAD(dead);

	txrdma_eps_file_release(tf);
	mutex_lock(&txrdma_regions_lock);
	list_del(&tf->node);
	list_for_each_entry_safe(r, tmp, &tf->regions, file_node) {
		txrdma_region_unpublish(r);
		list_add(&r->file_node, &dead);
	}
	mutex_unlock(&txrdma_regions_lock);
	list_for_each_entry_safe(r, tmp, &dead, file_node) {
		list_del(&r->file_node);
		txrdma_region_put(r);
	}
	kfree(tf);
}

/* ------------------------------------------------------------------ */
/* The data path's view of regions                                     */

static LLIST_HEAD(txrdma_region_dead);

static void txrdma_region_reap(struct work_struct *work)
{
	struct llist_node *n = llist_del_all(&txrdma_region_dead);
	struct txrdma_region *r, *tmp;

	llist_for_each_entry_safe(r, tmp, n, dead)
		txrdma_region_put(r);
}

static DECLARE_WORK(txrdma_region_reap_work, txrdma_region_reap);

/**
 * txrdma_region_put_async() - drop a reference from any context
 * @r: region, or NULL
 *
 * The last reference frees MRs and pages, which sleeps: from a
 * completion handler it is handed to a work item.
 */
void txrdma_region_put_async(struct txrdma_region *r)
{
	if (!r || refcount_dec_not_one(&r->ref.refcount))
		return;
	if (llist_add(&r->dead, &txrdma_region_dead))
		schedule_work(&txrdma_region_reap_work);
}

/* Caller holds txrdma_regions_lock or @r->mrs_lock: @r's MR on @dev. */
static struct txrdma_mr *txrdma_region_mr(struct txrdma_region *r,
					  struct txrdma_dev *dev)
{
	struct txrdma_mr *m;

	list_for_each_entry(m, &r->mrs, node)
		if (m->dev == dev)
			return m;
	return NULL;
}

/*
 * Region @id of @t, referenced, without a global lock: looked up under
 * RCU (the struct is freed after a grace period).  Return: NULL when
 * @t has none by that id (another tenant's is not there for it).
 */
static struct txrdma_region *txrdma_region_lookup(struct txrdma_tenant *t,
						  u32 id)
{
	struct txrdma_region *r;

	rcu_read_lock();
	r = xa_load(&txrdma_regions, id);
	if (r && (r->tenant != t || !kref_get_unless_zero(&r->ref)))
		r = NULL;
	rcu_read_unlock();
	return r;
}

/**
 * txrdma_region_get_range() - a region of @t holding a range, referenced
 * @t: the tenant
 * @id: the region's id
 * @off: first byte
 * @len: bytes
 *
 * For operations whose device is not known yet (an imported session's
 * SENDs: their keys are looked up when they go, txrdma_region_key()).
 * Return: the region, or ERR_PTR(-ENOENT) (no such region of @t, or
 * being destroyed) or ERR_PTR(-EFAULT) (the range is not inside it).
 */
struct txrdma_region *txrdma_region_get_range(struct txrdma_tenant *t, u32 id,
					      u64 off, u32 len)
{
	struct txrdma_region *r;

	r = txrdma_region_lookup(t, id);
	if (!r)
		return ERR_PTR(-ENOENT);
	if (!READ_ONCE(r->published) || READ_ONCE(r->revoked)) {
		txrdma_region_put_async(r);
		return ERR_PTR(-ENOENT);
	}
	if (off > r->size || len > r->size - off) {
		txrdma_region_put_async(r);
		return ERR_PTR(-EFAULT);
	}
	return r;
}

/**
 * txrdma_region_resolve() - what an SQE names, checked
 * @t: the tenant of the ring
 * @id: region id from the SQE
 * @off: byte offset
 * @len: bytes
 * @dev: the device the operation goes through
 * @addr: out: the address of @off in the registration on @dev
 * @lkey: out: its local key
 *
 * Every SEND, READ and WRITE comes here, so it takes no global lock:
 * the id is looked up under RCU (the struct is freed after a grace
 * period), the region referenced if it is still alive, and its
 * registration found under its own lock.  A region destroyed meanwhile
 * is refused as before; one destroyed right after is held by the
 * operation until its completion, as before.
 *
 * Return: the region, referenced; ERR_PTR(-ENOENT) when @t has no such
 * region (another tenant's is not there for it) or it has no
 * registration on @dev; ERR_PTR(-EFAULT) when [@off, @off + @len) is
 * not inside it.
 */
struct txrdma_region *txrdma_region_resolve(struct txrdma_tenant *t, u32 id,
					    u64 off, u32 len,
					    struct txrdma_dev *dev,
					    u64 *addr, u32 *lkey)
{
	struct txrdma_region *r = txrdma_region_get_range(t, id, off, len);
	struct txrdma_mr *m;

	if (IS_ERR(r))
		return r;
	spin_lock(&r->mrs_lock);
	m = txrdma_region_mr(r, dev);
	if (m) {
		*addr = m->mr->iova + off;
		*lkey = m->mr->lkey;
	}
	spin_unlock(&r->mrs_lock);
	if (!m) {
		txrdma_region_put_async(r);
		return ERR_PTR(-ENOENT);
	}
	return r;
}

/**
 * txrdma_region_key() - where byte @off of a held region is on a device
 * @r: a region the caller holds
 * @dev: the device
 * @off: byte offset (checked by whoever built the operation)
 * @addr: set to its address in @r's registration on @dev
 * @lkey: set to that registration's local key
 *
 * For a frame sent again on another device's QP (a session that moved
 * to another path).  Any context but hard interrupts.
 * Return: 0, or -ENOENT (revoked, or no registration on @dev).
 */
int txrdma_region_key(struct txrdma_region *r, struct txrdma_dev *dev,
		      u64 off, u64 *addr, u32 *lkey)
{
	struct txrdma_mr *m = NULL;

	if (READ_ONCE(r->revoked))
		return -ENOENT;
	spin_lock(&r->mrs_lock);
	m = txrdma_region_mr(r, dev);
	if (m) {
		*addr = m->mr->iova + off;
		*lkey = m->mr->lkey;
	}
	spin_unlock(&r->mrs_lock);
	return m ? 0 : -ENOENT;
}

/**
 * txrdma_region_expose() - let a peer reach a range of a region
 * @r: a region the caller holds (until it frees the result)
 * @dev: the device the peer's QP is on
 * @off: first byte
 * @len: bytes (> 0)
 * @access: IB_ACCESS_REMOTE_READ and/or IB_ACCESS_REMOTE_WRITE
 *
 * A registration of its own for exactly that range and access
 * (txrdma_frwr_range()); the region's own registrations never allow
 * remote access.  The caller sends its iova and rkey to the peer and
 * frees it with txrdma_mr_free() when the peer may no longer reach the
 * range: the rkey then fails with a remote access error.  Process
 * context.
 *
 * Return: the registration, or ERR_PTR: -ENOENT (revoked), -EFAULT
 * (range), or txrdma_frwr_range()'s error.
 */
struct txrdma_mr *txrdma_region_expose(struct txrdma_region *r,
				       struct txrdma_dev *dev, u64 off,
				       u64 len, int access)
{
	if (READ_ONCE(r->revoked))
		return ERR_PTR(-ENOENT);
	if (!len || off > r->size || len > r->size - off)
		return ERR_PTR(-EFAULT);
	return txrdma_frwr_range(dev, r->pages, r->order, off, len, access);
}

/**
 * txrdma_region_use_add() - claim a range for a ring or an export
 * @r: a region the caller holds
 * @u: the claim, not in use; filled
 * @off: first byte
 * @len: bytes (> 0, inside @r: checked by the caller)
 * @ring: a receive ring, else an export
 *
 * Return: 0, or -EADDRINUSE when the range overlaps a receive ring, or
 * is a ring and overlaps an export.  The lock is taken inside ep->lock
 * (a leaf: design.rst "Lock order"), which disables bottom halves.
 */
int txrdma_region_use_add(struct txrdma_region *r, struct txrdma_region_use *u,
			  u64 off, u64 len, bool ring)
{
	struct txrdma_region_use *o;
	int ret = 0;

	spin_lock_bh(&r->uses_lock);
	list_for_each_entry(o, &r->uses, node) {
		/* exports may overlap exports: each has its pair's key */
		if ((o->ring || ring) &&
		    txrdma_range_overlap(off, len, o->off, o->len)) {
			ret = -EADDRINUSE;
			goto out;
		}
	}
	u->off = off;
	u->len = len;
	u->ring = ring;
	list_add_tail(&u->node, &r->uses);
out:
	spin_unlock_bh(&r->uses_lock);
	return ret;
}

/**
 * txrdma_region_use_del() - release a claim; nothing if not in use
 * @r: the region of txrdma_region_use_add()
 * @u: the claim (INIT_LIST_HEAD'ed or added)
 */
void txrdma_region_use_del(struct txrdma_region *r,
			   struct txrdma_region_use *u)
{
	spin_lock_bh(&r->uses_lock);
	list_del_init(&u->node);
	spin_unlock_bh(&r->uses_lock);
}

/**
 * txrdma_region_rx_ring() - a receive ring's memory
 * @t: tenant of the caller
 * @id: region id
 * @off: start of the ring area
 * @len: its length
 * @kaddr: out: its kernel address
 *
 * The kernel writes the ring's header and reads frame headers, so the
 * area must be module-owned memory within one page of the region (up
 * to 2 MiB, the largest ring plus its header).
 *
 * Return: the region, referenced, or ERR_PTR: -ENOENT (no such region
 * of @t), -EINVAL (user memory, or the area is not inside one page).
 */
struct txrdma_region *txrdma_region_rx_ring(struct txrdma_tenant *t, u32 id,
					    u64 off, u64 len, void **kaddr)
{
	struct txrdma_region *r;
	unsigned int shift;

	mutex_lock(&txrdma_regions_lock);
	r = xa_load(&txrdma_regions, id);
	if (!r || r->tenant != t || r->revoked) {
		r = ERR_PTR(-ENOENT);
		goto out;
	}
	shift = PAGE_SHIFT + r->order;
	if (r->kind != TXRDMA_REGION_KIND_POOL || !len || off >= r->size ||
	    len > r->size - off || (off >> shift) != ((off + len - 1) >> shift)) {
		r = ERR_PTR(-EINVAL);
		goto out;
	}
	*kaddr = page_address(r->pages[off >> shift]) +
		 (off & ((1UL << shift) - 1));
	kref_get(&r->ref);
out:
	mutex_unlock(&txrdma_regions_lock);
	return r;
}

/**
 * txrdma_region_crc32c() - continue a CRC32C over region bytes
 * @r: a region the caller holds
 * @off: start, inside @r (checked by the caller)
 * @len: bytes
 * @crc: CRC so far
 *
 * Return: the CRC after the bytes.
 */
u32 txrdma_region_crc32c(struct txrdma_region *r, u64 off, u32 len, u32 crc)
{
	unsigned int shift = PAGE_SHIFT + r->order;

	while (len) {
		u64 in = off & ((1UL << shift) - 1);
		u32 n = min_t(u64, len, (1UL << shift) - in);
		struct page *pg = r->pages[off >> shift];

		if (r->order) {
			crc = __crc32c_le(crc, page_address(pg) + in, n);
		} else {
			void *p = kmap_local_page(pg);

			crc = __crc32c_le(crc, p + in, n);
			kunmap_local(p);
		}
		off += n;
		len -= n;
	}
	return crc;
}

int txrdma_regions_init(void)
{
	BUILD_BUG_ON(BIT_ULL(TXRDMA_REGION_SHIFT) != TXRDMA_REGION_MAX_SIZE);
	txrdma_region_cache = KMEM_CACHE(txrdma_region, 0);
	return txrdma_region_cache ? 0 : -ENOMEM;
}

void txrdma_regions_exit(void)
{
	flush_work(&txrdma_region_reap_work);
	rcu_barrier();	/* txrdma_region_free_rcu() */
	kmem_cache_destroy(txrdma_region_cache);
}
