// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * One-sided reads of the shards' tables, on txrdma: the client takes
 * the records of an order from a shard leader's memory by RDMA READ,
 * with no message to the leader and no work for its process.
 *
 * Where the records are.  Every node keeps its replicas of all shards
 * in one block of memory (kv_node_open(): shard s at s * tstride, each
 * a table of versioned records, uapi/linux/txrdma_vrec.h) and, on
 * txrdma, registers that block as a region of the read service's
 * transport and exports it READ-only on every pair of that transport
 * (txn_txrdma_export(): the transport's pairing thread exports it on
 * each pair it makes).  The geometry comes from the shared
 * configuration, so a record's offset in the block is the same on
 * every node: the reader takes it from its own replica and adds it to
 * the offset of the leader's export (txrdma_ep_exports(), looked up
 * once per pair).
 *
 * How.  A shard's records of an order (one to KV_RD_MAX) are one batch:
 * their whole slots READ into the batch's own part of our scratch
 * region, posted together, without waiting; the client goes on with
 * its other orders and the node with its logs.  Slots that lie side by
 * side in the leader's memory (an item and its stock, kv_no_where())
 * leave as one READ: under rxe each READ costs a request and a response
 * packet, and packets are what a TCG guest pays for.  The completions come
 * back through the read service's transport, whose poll reaps the
 * shared CQ and hands us ours (txn_txrdma_cqe_hook(): the top 24 bits
 * of user_data say KOS).  Once a batch's round is complete each copy is
 * checked (txn_vrec_check()): a copy that may be torn is READ again,
 * whole, in the next round (at most MAX_TRIES READs a record; copies
 * of a READ of several slots are checked one by one, each slot being a
 * record of its own); when
 * every copy is accepted the records are the order's, as the read
 * service's answer would have made them.  No validation round: the
 * order's writes are conditional on the versions read and the shard's
 * log checks them at PREPARE (optimistic concurrency), so a stale or
 * skewed read costs an abort, never a wrong commit; the same holds for
 * a read from a node that is no longer the leader.
 *
 * When not.  A batch that cannot start (the pair is down, the export not
 * there yet, no room in the SQ, the batch's scratch still awaited by an
 * earlier READ) or that fails (a READ error, a copy that stays torn)
 * leaves the shard to the read service, at once.  A READ whose
 * completion does not come keeps its batch's scratch busy (it may still
 * land there: a valid copy of another slot would be worse than a torn
 * one), so that shard of that order slot goes to the service until it
 * came; the order's own deadline (READ_TIMEOUT_NS) sends it there.
 *
 * Trust.  What a peer can reach is that block, read-only, through its
 * pair's own key: the module checks every READ against the export.
 * What we READ from a leader is as trusted as its read service's
 * answer: its length is bounded by our capacity, its record checked.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <txn_txrdma.h>
#include <txn_vrec.h>

#include "kv_node_int.h"

#define KOS_MAGIC	0x534f4bULL	/* "KOS", user_data's top 24 bits */
#define SLOT		((uint32_t)TXRDMA_VREC_SLOT_SIZE(KV_NO_CAP))
/* slots lie this far apart in a table, and so do our copies of them */
#define STRIDE		((uint32_t)TXRDMA_VREC_STRIDE(KV_NO_CAP))
#define MAX_TRIES	8		/* READs of one record per batch */
#define LOOKUP_NS	(20 * MS)	/* between lookups of a missing export */

static uint64_t ud_of(uint32_t bi, unsigned int run, uint16_t seq)
{
	return KOS_MAGIC << 40 | (uint64_t)(bi & 0xffff) << 24 |
	       (uint64_t)run << 16 | seq;
}

static unsigned int nbatches(const struct kv_node *n)
{
	return MAX_WINDOW * n->cfg.no.nshard;
}

/* where position @p of batch @bi lands: positions are contiguous */
static uint64_t scratch_off(uint32_t bi, unsigned int p)
{
	return ((uint64_t)bi * KV_RD_MAX + p) * STRIDE;
}

/* bytes of a READ of @cnt adjacent slots (not the last one's padding) */
static uint32_t run_len(unsigned int cnt)
{
	return (cnt - 1) * STRIDE + SLOT;
}

/* the leader's export of its block on our pair with it, looked up once */
static int find_import(struct kv_node *n, uint32_t node, uint32_t ep,
		       uint32_t gen)
{
	struct kv_os_import *im = &n->os.imp[node];
	struct txrdma_ep_exports x;
	uint64_t now;
	unsigned int i;
	int ret;

	if (im->known && im->gen == gen)
		return 0;
	now = now_ns();
	if (im->gen == gen && now < im->retry_ns)
		return -ENOENT;
	im->known = false;
	im->gen = gen;
	im->retry_ns = now + LOOKUP_NS;
	memset(&x, 0, sizeof(x));
	ret = txrdma_ep_exports(n->os.ctx, ep, &x);
	if (ret)
		return ret;
	for (i = 0; i < x.nimported && i < TXRDMA_EP_MAX_EXPORTS; i++) {
		const struct txrdma_export_info *e = &x.imported[i];

		/* its block: the same size as ours (the same geometry) */
		if ((e->access & TXRDMA_EXPORT_READ) &&
		    e->len == n->tblock_size) {
			im->region = e->region;
			im->off = e->off;
			im->known = true;
			return 0;
		}
	}
	return -ENOENT;	/* not exported yet: the pair came up just now */
}

/*
 * Post a round: the positions of @mask, adjacent ones (in the leader's
 * memory, and so in ours) in one READ.  0, or -EBUSY: no room in the SQ.
 */
static int post_round(struct kv_node *n, uint32_t bi, uint32_t mask)
{
	struct kv_os_batch *b = &n->os.b[bi];
	unsigned int p, r;

	b->nruns = 0;
	for (p = 0; p < b->n; p++) {
		if (!(mask & 1U << p))
			continue;
		r = b->nruns;
		if (r && b->run_pos[r - 1] + b->run_cnt[r - 1] == p &&
		    b->roff[p - 1] + STRIDE == b->roff[p]) {
			b->run_cnt[r - 1]++;
		} else {
			b->run_pos[r] = (uint8_t)p;
			b->run_cnt[r] = 1;
			b->nruns++;
		}
		b->tries[p]++;
	}
	if (txrdma_sq_space_left(n->os.sq) < b->nruns)
		return -EBUSY;
	b->todo = mask;
	for (r = 0; r < b->nruns; r++) {
		struct txrdma_sqe *sqe = txrdma_get_sqe(n->os.sq);

		txrdma_prep_read(sqe, b->ep, n->os.scratch.id,
				 scratch_off(bi, b->run_pos[r]),
				 run_len(b->run_cnt[r]), b->region,
				 b->roff[b->run_pos[r]], ud_of(bi, r, b->seq));
		b->pending++;
		b->inflight++;
		n->cst.os_posted++;
	}
	/* published even when the doorbell fails: their CQEs will come */
	txrdma_submit(n->os.ctx, n->os.sq);
	return 0;
}

int kv_os_start(struct kv_node *n, struct kv_order *o, uint32_t s,
		uint32_t leader)
{
	uint32_t slot = (uint32_t)(o - n->ord), bi, ep, gen;
	struct kv_os_batch *b;
	unsigned int k;
	int ret;

	if (!n->os.on || leader > KV_MAX_NODES || slot >= MAX_WINDOW)
		return -EOPNOTSUPP;
	bi = slot * n->cfg.no.nshard + s;
	b = &n->os.b[bi];
	if (b->inflight)
		return -EBUSY;
	ret = txn_txrdma_pair(n->rd_t, leader, &ep, &gen);
	if (!ret)
		ret = find_import(n, leader, ep, gen);
	if (ret)
		return ret;
	b->n = o->rd_n[s];
	b->ep = ep;
	b->leader = leader;
	b->region = n->os.imp[leader].region;
	b->ogen = o->gen;
	b->seq++;
	b->pending = 0;
	/* positions: the records sorted by their offset (insertion) */
	for (k = 0; k < b->n; k++) {
		const uint8_t *p = txn_vrec_table_slot(n->table[s],
						       o->rd_index[s][k]);
		uint64_t off;
		unsigned int q;

		if (!p)
			return -EINVAL;
		off = n->os.imp[leader].off +
		      (uint64_t)(p - (const uint8_t *)n->tblock);
		for (q = k; q && b->roff[q - 1] > off; q--) {
			b->roff[q] = b->roff[q - 1];
			b->rec_at[q] = b->rec_at[q - 1];
		}
		b->roff[q] = off;
		b->rec_at[q] = (uint8_t)k;
	}
	memset(b->tries, 0, sizeof(b->tries));
	ret = post_round(n, bi, (1U << b->n) - 1);
	if (ret)
		return ret;
	b->active = true;
	return 0;
}

/*
 * A batch that failed: the shard's records are asked of the read
 * service now (or, when that cannot go, by the order's next attempt).
 */
static void batch_fail(struct kv_node *n, struct kv_order *o, uint32_t s,
		       struct kv_os_batch *b, int err)
{
	b->active = false;
	n->cst.os_errors++;
	n->cst.os_last_error = err;
	/* an export that is not there any more: look again */
	if (err == -EPERM || err == -EFAULT)
		n->os.imp[b->leader].known = false;
	if (kv_read_by_service(n, o, s))
		o->deadline = now_ns();
}

/* every READ of a batch's round completed: check the copies */
static void round_done(struct kv_node *n, uint32_t bi)
{
	struct kv_os_batch *b = &n->os.b[bi];
	uint32_t s = bi % n->cfg.no.nshard, again = 0;
	struct kv_order *o = &n->ord[bi / n->cfg.no.nshard];
	unsigned int r, p;
	int err;

	if (o->phase != O_READING || o->gen != b->ogen ||
	    !(o->need & 1U << s)) {
		b->active = false;	/* the order went on without it */
		return;
	}
	for (r = 0; r < b->nruns; r++) {
		if (b->res[r] < 0 ||
		    (uint32_t)b->res[r] != run_len(b->run_cnt[r])) {
			batch_fail(n, o, s, b,
				   b->res[r] < 0 ? b->res[r] : -EIO);
			return;
		}
	}
	for (p = 0; p < b->n; p++) {
		struct txn_vrec_view v;

		if (!(b->todo & 1U << p))
			continue;
		err = txn_vrec_check((const uint8_t *)n->os.scratch_mem +
				     scratch_off(bi, p), KV_NO_CAP, &v);
		if (!err) {
			if (kv_take_rec(o, s, b->rec_at[p], v.version, v.data,
					v.len)) {
				batch_fail(n, o, s, b, -EPROTO);
				return;
			}
			continue;
		}
		if (err != -EAGAIN || b->tries[p] >= MAX_TRIES) {
			batch_fail(n, o, s, b, err == -EAGAIN ? -EBUSY : err);
			return;
		}
		again |= 1U << p;
	}
	if (again) {
		n->cst.os_retries += (uint64_t)__builtin_popcount(again);
		if (post_round(n, bi, again))
			batch_fail(n, o, s, b, -EBUSY);
		return;
	}
	b->active = false;
	n->cst.os_reads++;
	kv_order_shard_read(n, o, s);
}

/* a CQE of ours that the read service's transport reaped */
static void on_cqe(void *arg, const struct txrdma_cqe *c)
{
	struct kv_node *n = arg;
	uint32_t bi = (uint32_t)(c->user_data >> 24) & 0xffff;
	unsigned int r = (unsigned int)(c->user_data >> 16) & 0xff;
	struct kv_os_batch *b;

	if (c->user_data >> 40 != KOS_MAGIC || bi >= nbatches(n))
		return;
	b = &n->os.b[bi];
	if (b->inflight)
		b->inflight--;
	/* a READ of an earlier batch (its order gave up waiting) */
	if (!b->active || (uint16_t)c->user_data != b->seq || r >= b->nruns)
		return;
	b->res[r] = c->res;
	if (b->pending && !--b->pending)
		round_done(n, bi);
}

int kv_os_open(struct kv_node *n)
{
	size_t len = (size_t)nbatches(n) * KV_RD_MAX * STRIDE;
	struct txrdma_cq *cq;
	int ret;

	len = (len + 4095) & ~(size_t)4095;
	n->os.b = calloc(nbatches(n), sizeof(*n->os.b));
	if (!n->os.b)
		return -ENOMEM;
	ret = txn_txrdma_rings(n->rd_t, &n->os.ctx, &n->os.sq, &cq);
	if (ret)
		return ret;
	ret = txrdma_region_register(n->os.ctx, n->tblock, n->tblock_size,
				     &n->os.tables);
	if (ret)
		return ret;
	n->os.scratch_mem = aligned_alloc(4096, len);
	if (!n->os.scratch_mem) {
		ret = -ENOMEM;
		goto out_tables;
	}
	ret = txrdma_region_register(n->os.ctx, n->os.scratch_mem, len,
				     &n->os.scratch);
	if (ret)
		goto out_mem;
	ret = txn_txrdma_export(n->rd_t, n->os.tables.id, 0, n->tblock_size);
	if (ret)
		goto out_scratch;
	txn_txrdma_cqe_hook(n->rd_t, on_cqe, n);
	n->os.on = true;
	return 0;

out_scratch:
	txrdma_region_destroy(n->os.ctx, &n->os.scratch);
out_mem:
	free(n->os.scratch_mem);
	n->os.scratch_mem = NULL;
out_tables:
	txrdma_region_destroy(n->os.ctx, &n->os.tables);
	return ret;
}

void kv_os_close(struct kv_node *n)
{
	if (n->os.on)
		txn_txrdma_cqe_hook(n->rd_t, NULL, NULL);
	n->os.on = false;
}

void kv_os_free(struct kv_node *n)
{
	/*
	 * After the transport closed its context: the pairs ended first,
	 * then the regions, so no READ still lands in this memory.
	 */
	free(n->os.scratch_mem);
	n->os.scratch_mem = NULL;
	free(n->os.b);
	n->os.b = NULL;
}
