// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fast registration of module-owned pages with an RDMA device.
 *
 * Regions are registered once, when they are created, so that the data
 * path never registers memory.  Those registrations allow local access
 * only: their keys never leave the host.  What a peer may reach is
 * registered apart, per range and per access (txrdma_frwr_range()): the
 * receive ring of a pair (remote write) and each export (its range, its
 * access), each deregistered - so its rkey dies - when the pair ends.
 *
 * IB_WR_REG_MR must be posted on a QP in
 * RTS; peers' QPs come and go with liveness, so each device has its own
 * control QP, connected to itself (it never sends), used only for
 * registrations.  The work request is signalled and waited for; if it
 * does not complete, the QP is drained (its completion then arrives as
 * a flush) so that nothing the NIC may still touch is freed.
 */
#include <linux/completion.h>
#include <linux/refcount.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <rdma/ib_cache.h>

#include "txrdma.h"
#include "txrdma_frwr.h"

#define TXRDMA_REG_TIMEOUT	(10 * HZ)
/* CQ entries of the registration QP: its send queue and one receive */
#define TXRDMA_REG_CQ_ENTRIES	8

/*
 * On the heap with two references, the waiter's and the completion's:
 * if a completion comes after the waiter gave up, it still finds it.
 */
struct txrdma_reg_wait {
	struct ib_cqe cqe;
	struct completion done;
	enum ib_wc_status status;
	refcount_t ref;
};

static void txrdma_reg_wait_put(struct txrdma_reg_wait *w)
{
	if (refcount_dec_and_test(&w->ref))
		kfree(w);
}

static void txrdma_reg_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct txrdma_reg_wait *w = container_of(wc->wr_cqe,
						 struct txrdma_reg_wait, cqe);

	w->status = wc->status;
	complete(&w->done);
	txrdma_reg_wait_put(w);
}

/* INIT -> RTR -> RTS with the QP as its own destination. */
static int txrdma_reg_qp_connect(struct ib_device *ibdev, struct ib_qp *qp,
				 u32 port)
{
	const struct ib_gid_attr *gattr;
	struct ib_qp_attr attr = {};
	struct net_device *ndev;
	union ib_gid dgid;
	int ret;

	attr.qp_state = IB_QPS_INIT;
	attr.port_num = port;
	ret = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (ret)
		return ret;

	gattr = rdma_get_gid_attr(ibdev, port, 0);
	if (IS_ERR(gattr))
		return PTR_ERR(gattr);
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTR;
	attr.path_mtu = IB_MTU_1024;
	attr.dest_qp_num = qp->qp_num;
	attr.max_dest_rd_atomic = 1;
	attr.min_rnr_timer = 12;
	attr.ah_attr.type = rdma_ah_find_type(ibdev, port);
	rdma_ah_set_port_num(&attr.ah_attr, port);
	dgid = gattr->gid;
	rdma_ah_set_grh(&attr.ah_attr, &dgid, 0, gattr->index, 1, 0);
	if (attr.ah_attr.type == RDMA_AH_ATTR_TYPE_ROCE) {
		/* kernel users pass a resolved MAC: our own */
		rcu_read_lock();
		ndev = rdma_read_gid_attr_ndev_rcu(gattr);
		if (!IS_ERR(ndev))
			memcpy(attr.ah_attr.roce.dmac, ndev->dev_addr, ETH_ALEN);
		rcu_read_unlock();
	}
	ret = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_AV |
			   IB_QP_PATH_MTU | IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			   IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER);
	rdma_put_gid_attr(gattr);
	if (ret)
		return ret;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTS;
	attr.timeout = 14;
	attr.retry_cnt = 7;
	attr.rnr_retry = 7;
	attr.max_rd_atomic = 1;
	return ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN |
			    IB_QP_TIMEOUT | IB_QP_RETRY_CNT |
			    IB_QP_RNR_RETRY | IB_QP_MAX_QP_RD_ATOMIC);
}

/**
 * txrdma_dev_reg_init() - PD and control QP of a device
 * @dev: the device
 *
 * Return: 0, or -errno; the device is then listed but holds no regions.
 */
int txrdma_dev_reg_init(struct txrdma_dev *dev)
{
	struct txrdma_dev_reg *reg = &dev->reg;
	struct ib_device *ibdev = dev->ibdev;
	struct ib_qp_init_attr qpa = {};
	int ret;

	mutex_init(&reg->lock);
	reg->pd = ib_alloc_pd(ibdev, 0);
	if (IS_ERR(reg->pd)) {
		ret = PTR_ERR(reg->pd);
		goto out;
	}
	/* a shared CQ, as the peers' QPs use (txrdma_conn.c says why) */
	reg->cq = ib_cq_pool_get(ibdev, TXRDMA_REG_CQ_ENTRIES, -1,
				 IB_POLL_SOFTIRQ);
	if (IS_ERR(reg->cq)) {
		ret = PTR_ERR(reg->cq);
		goto out_pd;
	}
	qpa.send_cq = reg->cq;
	qpa.recv_cq = reg->cq;
	qpa.cap.max_send_wr = 4;
	qpa.cap.max_recv_wr = 1;
	qpa.cap.max_send_sge = 1;
	qpa.cap.max_recv_sge = 1;
	qpa.sq_sig_type = IB_SIGNAL_REQ_WR;
	qpa.qp_type = IB_QPT_RC;
	qpa.port_num = dev->first_port;
	reg->qp = ib_create_qp(reg->pd, &qpa);
	if (IS_ERR(reg->qp)) {
		ret = PTR_ERR(reg->qp);
		goto out_cq;
	}
	ret = txrdma_reg_qp_connect(ibdev, reg->qp, dev->first_port);
	if (ret)
		goto out_qp;
	return 0;

out_qp:
	ib_destroy_qp(reg->qp);
out_cq:
	ib_cq_pool_put(reg->cq, TXRDMA_REG_CQ_ENTRIES);
out_pd:
	ib_dealloc_pd(reg->pd);
out:
	reg->pd = NULL;
	reg->cq = NULL;
	reg->qp = NULL;
	ibdev_warn(ibdev, "txrdma: cannot register memory on this device: %d\n",
		   ret);
	return ret;
}

/* Every MR of the device is gone (txrdma_region drops them first). */
void txrdma_dev_reg_exit(struct txrdma_dev *dev)
{
	struct txrdma_dev_reg *reg = &dev->reg;

	if (!reg->pd)
		return;
	/* a registration that timed out may still be queued: flush it */
	ib_drain_qp(reg->qp);
	ib_destroy_qp(reg->qp);
	ib_cq_pool_put(reg->cq, TXRDMA_REG_CQ_ENTRIES);
	ib_dealloc_pd(reg->pd);
	reg->pd = NULL;
}

void txrdma_mr_free(struct txrdma_mr *m)
{
	struct txrdma_dev *dev = m->dev;

	if (m->mr)
		ib_dereg_mr(m->mr);
	if (m->sgt.sgl) {
		if (m->sgt.nents)
			ib_dma_unmap_sg(dev->ibdev, m->sgt.sgl,
					m->sgt.orig_nents, DMA_BIDIRECTIONAL);
		sg_free_table(&m->sgt);
	}
	kfree(m);
	/* the last use of @dev: its removal may finish now */
	txrdma_dev_user_put(dev);
}

/* Post REG_MR for @mr with @access and wait for it; reg->lock held. */
static int txrdma_reg_post(struct txrdma_dev_reg *reg, struct ib_mr *mr,
			   int access)
{
	struct txrdma_reg_wait *w;
	struct ib_reg_wr wr = {};
	int ret;

	w = kzalloc(sizeof(*w), GFP_KERNEL);
	if (!w)
		return -ENOMEM;
	init_completion(&w->done);
	refcount_set(&w->ref, 2);
	w->status = IB_WC_GENERAL_ERR;
	w->cqe.done = txrdma_reg_done;
	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));
	wr.wr.opcode = IB_WR_REG_MR;
	wr.wr.send_flags = IB_SEND_SIGNALED;
	wr.wr.wr_cqe = &w->cqe;
	wr.mr = mr;
	wr.key = mr->rkey;
	wr.access = access;
	ret = ib_post_send(reg->qp, &wr.wr, NULL);
	if (ret) {
		kfree(w);
		return ret;
	}
	if (!wait_for_completion_timeout(&w->done, TXRDMA_REG_TIMEOUT)) {
		/*
		 * Flush the QP so that the REG_MR completes (as an error)
		 * before the caller frees the MR; the device registers
		 * nothing more.
		 */
		WRITE_ONCE(reg->broken, true);
		ib_drain_sq(reg->qp);
		ret = -ETIMEDOUT;
	} else if (w->status != IB_WC_SUCCESS) {
		/* the RC QP is in error now: nothing more gets through it */
		WRITE_ONCE(reg->broken, true);
		ret = -EIO;
	} else {
		ret = 0;
	}
	txrdma_reg_wait_put(w);
	return ret;
}

/*
 * Register the byte range of @pages that [@off, @off + @len) covers
 * (each page @chunk bytes) as one MR allowing @access: map it for the
 * device, map the MR over it, post REG_MR and wait.
 * Return: the registration, or ERR_PTR.
 */
static struct txrdma_mr *txrdma_reg_mr(struct txrdma_dev *dev,
				       struct page **pages, size_t chunk,
				       u64 off, u64 len, int access)
{
	struct ib_device *ibdev = dev->ibdev;
	unsigned long first = off / chunk, last = (off + len - 1) / chunk;
	unsigned long n = last - first + 1, i;
	struct scatterlist *sg;
	struct txrdma_mr *m;
	int ret, nents;

	/* a device being removed registers nothing new */
	if (READ_ONCE(dev->dying))
		return ERR_PTR(-ENODEV);
	m = kzalloc(sizeof(*m), GFP_KERNEL_ACCOUNT);
	if (!m)
		return ERR_PTR(-ENOMEM);
	ret = sg_alloc_table(&m->sgt, n, GFP_KERNEL_ACCOUNT);
	if (ret) {
		kfree(m);
		return ERR_PTR(ret);
	}
	/*
	 * Every MR holds its device: a removal waits until the last one
	 * is deregistered (txrdma_mr_free()), however its owner learns
	 * of the removal.  The caller holds a reference already.
	 */
	refcount_inc(&dev->users);
	m->dev = dev;
	/* the first entry may start inside its page, the last end early */
	for_each_sg(m->sgt.sgl, sg, n, i) {
		u64 from = max(off, (first + i) * chunk);
		u64 to = min(off + len, (first + i + 1) * chunk);

		sg_set_page(sg, pages[first + i], to - from, from % chunk);
	}
	nents = ib_dma_map_sg(ibdev, m->sgt.sgl, n, DMA_BIDIRECTIONAL);
	if (nents <= 0) {
		ret = -ENOMEM;
		goto out_free;
	}
	m->sgt.nents = nents;
	m->mr = ib_alloc_mr(dev->reg.pd, IB_MR_TYPE_MEM_REG, n);
	if (IS_ERR(m->mr)) {
		ret = PTR_ERR(m->mr);
		m->mr = NULL;
		goto out_free;
	}
	ret = ib_map_mr_sg(m->mr, m->sgt.sgl, nents, NULL, chunk);
	if (ret != nents) {
		ret = ret < 0 ? ret : -EINVAL;
		goto out_free;
	}
	/* what a peer may reach is zero-based: it learns no addresses */
	if (access & (IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE))
		m->mr->iova &= chunk - 1;
	mutex_lock(&dev->reg.lock);
	ret = READ_ONCE(dev->reg.broken) ? -EIO :
	      txrdma_reg_post(&dev->reg, m->mr, access);
	mutex_unlock(&dev->reg.lock);
	if (ret)
		goto out_free;
	return m;

out_free:
	txrdma_mr_free(m);
	return ERR_PTR(ret);
}

/* Register pages[0..n) (each PAGE_SIZE << order bytes) as one MR. */
static int txrdma_reg_one(struct txrdma_dev *dev, struct page **pages,
			  unsigned long n, unsigned int order,
			  struct list_head *out)
{
	size_t chunk = PAGE_SIZE << order;
	struct txrdma_mr *m;

	/* local access only: this key is never sent to anyone */
	m = txrdma_reg_mr(dev, pages, chunk, 0, n * chunk,
			  IB_ACCESS_LOCAL_WRITE);
	if (IS_ERR(m))
		return PTR_ERR(m);
	list_add_tail(&m->node, out);
	return 0;
}

/**
 * txrdma_frwr_range() - register a byte range of pages for a peer
 * @dev: the device (its reg.pd is set)
 * @pages: the region's pages, each PAGE_SIZE << @order bytes
 * @order: their order
 * @off: first byte of the range
 * @len: its length (> 0)
 * @access: IB_ACCESS_REMOTE_READ and/or IB_ACCESS_REMOTE_WRITE
 *
 * The registration covers exactly [@off, @off + @len): the device
 * refuses an access outside it, or of another kind, with a remote
 * access error.  Its address is zero-based (the offset of @off in its
 * first page), so no kernel address reaches the peer.  Process
 * context; the caller keeps the pages alive until txrdma_mr_free().
 *
 * Return: the registration, or ERR_PTR: -EFBIG (more pages than one
 * fast registration maps on @dev), -ENOMEM, -EIO or -ETIMEDOUT.
 */
struct txrdma_mr *txrdma_frwr_range(struct txrdma_dev *dev, struct page **pages,
				    unsigned int order, u64 off, u64 len,
				    int access)
{
	size_t chunk = PAGE_SIZE << order;
	unsigned long n = (off + len - 1) / chunk - off / chunk + 1;

	if (n > max_t(u32, dev->ibdev->attrs.max_fast_reg_page_list_len, 1))
		return ERR_PTR(-EFBIG);
	return txrdma_reg_mr(dev, pages, chunk, off, len,
			     IB_ACCESS_LOCAL_WRITE | access);
}

/**
 * txrdma_frwr_pages() - register pages with a device, in as many MRs as
 *	its fast-registration page list length requires
 * @dev: the device (its reg.pd is set)
 * @pages: the pages
 * @npages: how many
 * @order: their order
 * @out: list to append the new txrdma_mr entries to
 *
 * Return: 0, or -errno with nothing appended.
 */
int txrdma_frwr_pages(struct txrdma_dev *dev, struct page **pages,
		      unsigned long npages, unsigned int order,
		      struct list_head *out)
{
	unsigned long per = max_t(u32, dev->ibdev->attrs.max_fast_reg_page_list_len,
				  1), i;
	struct txrdma_mr *m, *tmp;
	LIST_HEAD(done);
	int ret = 0;

	for (i = 0; i < npages && !ret; i += per) {
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		/* removal waits for us: stop early, the device is skipped */
		if (READ_ONCE(dev->dying)) {
			ret = -ENODEV;
			break;
		}
		ret = txrdma_reg_one(dev, pages + i, min(per, npages - i), order,
				     &done);
		cond_resched();
	}
	if (ret) {
		list_for_each_entry_safe(m, tmp, &done, node) {
			list_del(&m->node);
			txrdma_mr_free(m);
		}
		return ret;
	}
	list_splice_tail(&done, out);
	return 0;
}
