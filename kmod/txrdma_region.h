/* SPDX-License-Identifier: GPL-2.0-only */
/* Regions: tenant memory that txrdma may use for RDMA. */
#ifndef _TXRDMA_REGION_H
#define _TXRDMA_REGION_H

#include <linux/bits.h>
#include <linux/fs.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/mm_types.h>
#include <linux/rwsem.h>
#include <linux/txrdma.h>

struct txrdma_mr;
struct txrdma_tenant;

/* mmap offset of region id: id << TXRDMA_REGION_SHIFT (1 TiB apart, as
 * TXRDMA_REGION_MAX_SIZE: every region has its own window)
 */
#define TXRDMA_REGION_SHIFT	40
#define TXRDMA_REGION_MAX_ID	((1U << (63 - TXRDMA_REGION_SHIFT)) - 1)

struct txrdma_ring;

/**
 * struct txrdma_file - one open of /dev/txrdma
 * @node: entry in the list of open files (txrdma_regions_lock)
 * @regions: regions created through it (txrdma_regions_lock); they are
 *	destroyed when it is released
 * @mapping: the address_space its mmaps go to (the device inode's)
 * @endpoints: endpoints created through it (txrdma_endpoint.c)
 * @services: services it listens on (txrdma_service.c)
 * @ring: its submission and completion rings, or NULL (txrdma_ringfile.c)
 */
struct txrdma_file {
	struct list_head node;
	struct list_head regions;
	struct list_head endpoints;
	struct list_head services;
	struct address_space *mapping;
	struct txrdma_ring *ring;
};

/**
 * struct txrdma_region - a region
 * @ref: the owner's reference (while published) and one per VMA
 * @id: index in txrdma_regions; mmap offset is id << TXRDMA_REGION_SHIFT
 * @kind: enum txrdma_region_kind
 * @size: bytes
 * @tenant: owner, referenced
 * @file_node: entry in the creating file's list (txrdma_regions_lock)
 * @tenant_node: entry in the tenant's list (txrdma_regions_lock)
 * @published: reachable by id (txrdma_regions_lock)
 * @all_node: entry in the list of all live regions (txrdma_regions_lock)
 * @mrs: its registrations, struct txrdma_mr; changed under
 *	txrdma_regions_lock and @mrs_lock, read under either
 * @mrs_lock: lets the data path find a registration without the
 *	global lock (txrdma_region_resolve())
 * @map_sem: orders page faults against revocation
 * @uses_lock: protects @uses
 * @uses: receive rings and exports in it (struct txrdma_region_use),
 *	which must never overlap
 * @revoked: its tenant was deleted by force: faults get SIGBUS
 * @order: page order of @pages (9 for 2 MiB, 0 for small and user pages)
 * @npages: entries in @pages
 * @pages: the memory
 * @mm: for user regions, the mm whose pinned_vm was charged
 * @dead: entry in the list of regions txrdma_region_put_async() frees
 * @rcu: the struct is freed after a grace period: the data path looks
 *	regions up under RCU
 */
struct txrdma_region {
	struct kref ref;
	u32 id;
	u8 kind;
	u64 size;
	struct txrdma_tenant *tenant;
	struct list_head file_node;
	struct list_head tenant_node;
	bool published;
	struct list_head all_node;
	struct list_head mrs;
	spinlock_t mrs_lock;	/* design.rst "Lock order" */
	struct rw_semaphore map_sem;	/* design.rst "Lock order" */
	spinlock_t uses_lock;
	struct list_head uses;
	bool revoked;
	unsigned int order;
	unsigned long npages;
	struct page **pages;
	struct mm_struct *mm;
	struct llist_node dead;
	struct rcu_head rcu;
};

/**
 * struct txrdma_region_use - a range of a region the peer of a pair reaches
 * @node: entry in the region's @uses while in use, else empty
 * @off: first byte
 * @len: bytes
 * @ring: a receive ring (the kernel writes it), else an export
 *
 * A ring may never overlap a ring or an export: the other side of the
 * export, or of the other ring's pair, could write over frames the
 * kernel checked.  Exports may overlap (each pair has its own key).
 */
struct txrdma_region_use {
	struct list_head node;
	u64 off;
	u64 len;
	bool ring;
};

int txrdma_region_use_add(struct txrdma_region *r, struct txrdma_region_use *u,
			  u64 off, u64 len, bool ring);
void txrdma_region_use_del(struct txrdma_region *r,
			   struct txrdma_region_use *u);

int txrdma_regions_init(void);
void txrdma_regions_exit(void);
struct txrdma_file *txrdma_file_alloc(struct address_space *mapping);
void txrdma_file_release(struct txrdma_file *tf);
int txrdma_regions_tenant_delete(struct txrdma_tenant *t, bool force);
struct txrdma_dev;
void txrdma_regions_drop_dev(struct txrdma_dev *dev);

long txrdma_ioctl_region_create(struct txrdma_file *tf, void __user *uarg);
long txrdma_ioctl_region_reg_user(struct txrdma_file *tf, void __user *uarg);
long txrdma_ioctl_region_info(void __user *uarg);
long txrdma_ioctl_region_destroy(void __user *uarg);
int txrdma_region_mmap(struct file *file, struct vm_area_struct *vma);

/* the data path */
void txrdma_region_put_async(struct txrdma_region *r);
struct txrdma_region *txrdma_region_get_range(struct txrdma_tenant *t, u32 id,
					      u64 off, u32 len);
struct txrdma_region *txrdma_region_resolve(struct txrdma_tenant *t, u32 id,
					    u64 off, u32 len,
					    struct txrdma_dev *dev,
					    u64 *addr, u32 *lkey);
int txrdma_region_key(struct txrdma_region *r, struct txrdma_dev *dev,
		      u64 off, u64 *addr, u32 *lkey);
struct txrdma_mr *txrdma_region_expose(struct txrdma_region *r,
				       struct txrdma_dev *dev, u64 off,
				       u64 len, int access);
struct txrdma_region *txrdma_region_rx_ring(struct txrdma_tenant *t, u32 id,
					    u64 off, u64 len, void **kaddr);
u32 txrdma_region_crc32c(struct txrdma_region *r, u64 off, u32 len, u32 crc);

#endif /* _TXRDMA_REGION_H */
