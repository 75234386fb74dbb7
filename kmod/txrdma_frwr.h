/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Registration of module-owned memory with RDMA devices: a protection
 * domain per device and a small control queue pair on which fast
 * registration work requests (IB_WR_REG_MR) are posted.
 */
#ifndef _TXRDMA_FRWR_H
#define _TXRDMA_FRWR_H

#include <linux/mutex.h>
#include <linux/scatterlist.h>
#include <rdma/ib_verbs.h>

struct txrdma_dev;

/**
 * struct txrdma_dev_reg - what a device needs to register memory
 * @pd: protection domain of everything txrdma does on the device
 * @cq: completions of the control QP
 * @qp: RC QP connected to itself: REG_MR needs a QP in RTS, and this
 *	one carries no traffic
 * @lock: one registration at a time on @qp
 * @broken: a registration timed out; no more are tried
 */
struct txrdma_dev_reg {
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp;
	struct mutex lock;	/* posts on @qp; design.rst "Lock order" */
	bool broken;
};

/**
 * struct txrdma_mr - one registration of (part of) a region on a device
 * @node: entry in the region's list
 * @dev: the device
 * @mr: fast-registration MR, valid after its REG_MR completed
 * @sgt: the pages it covers, DMA-mapped for the device
 */
struct txrdma_mr {
	struct list_head node;
	struct txrdma_dev *dev;
	struct ib_mr *mr;
	struct sg_table sgt;
};

int txrdma_dev_reg_init(struct txrdma_dev *dev);
void txrdma_dev_reg_exit(struct txrdma_dev *dev);
int txrdma_frwr_pages(struct txrdma_dev *dev, struct page **pages,
		      unsigned long npages, unsigned int order,
		      struct list_head *out);
struct txrdma_mr *txrdma_frwr_range(struct txrdma_dev *dev, struct page **pages,
				    unsigned int order, u64 off, u64 len,
				    int access);
void txrdma_mr_free(struct txrdma_mr *m);

#endif /* _TXRDMA_FRWR_H */
