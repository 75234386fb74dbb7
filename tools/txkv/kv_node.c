// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A txkv node: see kv_node.h for the interface.  How the parts meet:
 *
 * Groups.  Each shard is a Raft group whose state machine is kv_shard
 * (every node a voter, so every node holds every shard); the
 * coordinators' decision log is one more group (txraft_dlog).  A group
 * has its own transport and raft_io: libraft runs one log per struct
 * raft, and separate transports keep one group's AppendEntries from
 * queueing behind another's.  The initial data (TPC-C's load) is put
 * into every replica at open, identically, before any log entry: the
 * logs hold only what changed since.
 *
 * Participants are shard leaders.  A coordinator sends one branch per
 * node, holding that node's shards' PREPARE commands (the node then
 * leads them, as far as the coordinator knew).  The node proposes each
 * through the shard's log and votes with what applying it said: yes
 * only when every shard said yes (kv_shard.c: the vote is the log's,
 * so a new leader would give the same one).  A shard this node does
 * not lead says no (KVR_NOT_LEADER): the coordinator gives up that
 * order, learns the leader from its own replica of the group, and the
 * next order goes there.  After a no, the shards that said yes are
 * sent ABORT at once (a participant may abort on its own before it
 * votes yes).  A decision is applied through the logs before
 * txn_node_applied(): a COMMIT is ACKed only once a majority of each
 * shard's replicas hold it.
 *
 * Reads.  The client reads the records of an order from each shard's
 * leader through a read service (one request per shard per order).
 * Nothing makes those reads current: a deposed leader may still
 * answer.  It does not matter for correctness, because every write is
 * conditional on the version read and checked by the log (optimistic
 * concurrency): a stale read only costs an abort.
 *
 * The client (coordinator) runs on the decision log's leader:
 * hooks.log proposes the COMMIT decision there, and no COMMIT record
 * leaves before a majority holds it (txraft_dlog.c).
 *
 * A shard's leader that dies with transactions prepared: its
 * successor resolves them with their coordinator; a coordinator that
 * dies: the decision log's next leader answers for it
 * (kv_failover.c).
 *
 * Several clients: nodes 1..nclients may each run one, each with a
 * decision log of its own (group nshard + c - 1).
 *
 * Not here yet (issue 16's next steps): one-sided reads by RDMA READ
 * from the shards' exported tables on txrdma.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include <raft.h>
#include <txn_node.h>
#include <txn_tcp.h>
#include <txn_txrdma.h>
#include <txn_vrec.h>
#include <txraft_dlog.h>
#include <txraft_io.h>

#include "kv_node_int.h"

uint32_t kv_node_leader(const struct kv_node *n, unsigned int g)
{
	raft_id id = 0;
	const char *addr = NULL;

	if (g >= n->ngroups || !n->grp[g].inited)
		return 0;
	raft_leader((struct raft *)&n->grp[g].raft, &id, &addr);
	return (uint32_t)id;
}

/* ---- the shards' state machine for libraft --------------------------- */

static int fsm_apply(struct raft_fsm *fsm, const struct raft_buffer *buf,
		     void **result)
{
	struct kv_group *gr = fsm->data;
	int res = kv_shard_apply(gr->n->shard[gr->g], buf->base, buf->len);

	/* the kv_res, + 1 so that a result is never NULL */
	*result = (void *)(uintptr_t)(res + 1);
	return 0;
}

static int fsm_snapshot(struct raft_fsm *fsm, struct raft_buffer *bufs[],
			unsigned int *nb)
{
	struct kv_group *gr = fsm->data;
	struct raft_buffer *b;
	size_t len;
	void *snap;

	if (kv_shard_snapshot(gr->n->shard[gr->g], &snap, &len))
		return RAFT_NOMEM;
	b = raft_malloc(sizeof(*b));
	if (!b) {
		free(snap);
		return RAFT_NOMEM;
	}
	b->base = raft_malloc(len);
	if (!b->base) {
		raft_free(b);
		free(snap);
		return RAFT_NOMEM;
	}
	memcpy(b->base, snap, len);
	b->len = len;
	free(snap);
	*bufs = b;
	*nb = 1;
	return 0;
}

static int fsm_restore(struct raft_fsm *fsm, struct raft_buffer *buf)
{
	struct kv_group *gr = fsm->data;
	int ret = kv_shard_restore(gr->n->shard[gr->g], buf->base, buf->len);

	/* ours to free on success; on failure libraft frees it */
	if (ret)
		return RAFT_MALFORMED;
	raft_free(buf->base);
	buf->base = NULL;
	return 0;
}

/* ---- participant ----------------------------------------------------- */

static struct kv_pend *pend_find(struct kv_node *n, const struct txn_id *id)
{
	unsigned int i;

	for (i = 0; i < MAX_TXNS; i++) {
		struct kv_pend *p = &n->pend[i];

		if (p->used && p->id.coord == id->coord &&
		    p->id.epoch == id->epoch && p->id.seq == id->seq)
			return p;
	}
	return NULL;
}

static struct kv_pend *pend_new(struct kv_node *n, const struct txn_id *id)
{
	unsigned int i;

	for (i = 0; i < MAX_TXNS; i++) {
		struct kv_pend *p = &n->pend[i];

		if (!p->used) {
			memset(p, 0, sizeof(*p));
			p->used = true;
			p->id = *id;
			return p;
		}
	}
	return NULL;
}

static void apply_done(struct raft_apply *req, int status, void *result);

/* propose @cmd (raft_malloc'd, @len) to shard entry @si of @p */
static void propose(struct kv_node *n, struct kv_pend *p, unsigned int si,
		    void *cmd, size_t len)
{
	struct kv_group *gr = &n->grp[p->shard[si]];
	struct raft_buffer b = { .base = cmd, .len = len };
	struct kv_apply *a = &p->ap[si];

	if (n->closing) {
		/* the groups are closing: canceled requests call back */
		raft_free(cmd);
		p->res[si] = KV_RES_MAX;
		return;
	}
	a->p = p;
	a->si = (uint8_t)si;
	a->req.data = n;
	if (raft_apply(&gr->raft, &a->req, &b, 1, apply_done)) {
		raft_free(cmd);
		n->st.apply_failed++;
		p->res[si] = KV_RES_MAX;	/* failed */
		return;
	}
	p->outstanding++;
}

/* a COMMIT or ABORT of @p to shard entry @si */
static void propose_decision(struct kv_node *n, struct kv_pend *p,
			     unsigned int si, uint8_t op)
{
	void *cmd = raft_malloc(sizeof(struct kv_cmd_hdr));
	size_t len;

	if (!cmd) {
		n->st.apply_failed++;
		p->res[si] = KV_RES_MAX;	/* never proposed */
		return;
	}
	len = kv_cmd_build(cmd, sizeof(struct kv_cmd_hdr), op, &p->id, NULL,
			   0);
	propose(n, p, si, cmd, len);
}

static void pend_settle(struct kv_node *n, struct kv_pend *p);

/*
 * May shard entry @i of @p hold a PREPARE's locks: it said yes, or its
 * proposal failed after it was made (leadership lost: the next leader
 * may still commit it).  Such shards are sent ABORT, which is
 * idempotent and refuses a PREPARE that lands later.
 */
static bool may_hold(const struct kv_pend *p, unsigned int i)
{
	return p->res[i] == KV_YES || p->res[i] == KV_RES_MAX;
}

static void apply_done(struct raft_apply *req, int status, void *result)
{
	struct kv_apply *a = (struct kv_apply *)req;
	struct kv_node *n = req->data;
	struct kv_pend *p = a->p;

	if (status) {
		n->st.apply_failed++;
		p->res[a->si] = KV_RES_MAX;
	} else {
		p->res[a->si] = (uint8_t)((uintptr_t)result - 1);
	}
	p->outstanding--;
	if (!p->outstanding)
		pend_settle(n, p);
}

/* every proposal of @p's current phase came back */
static void pend_settle(struct kv_node *n, struct kv_pend *p)
{
	unsigned int i;

	switch (p->phase) {
	case P_PREPARING:
		if (p->aborted) {
			/* the coordinator gave up first: undo, then say so */
			p->phase = P_DECIDING;
			p->decision = KV_OP_ABORT;
			for (i = 0; i < p->nsh; i++) {
				if (may_hold(p, i)) {
					p->res[i] = KV_YES;
					propose_decision(n, p, i, KV_OP_ABORT);
				} else {
					p->res[i] = KV_YES;	/* nothing held */
				}
			}
			if (!p->outstanding)
				pend_settle(n, p);
			return;
		}
		p->reason = 0;
		for (i = 0; i < p->nsh && !p->reason; i++) {
			if (p->res[i] == KV_YES)
				continue;
			p->reason = p->res[i] == KV_RES_MAX ? KVR_FAILED :
				    p->res[i] >= KV_RES_MAX ? p->res[i] :
				    KVR_RES + p->res[i];
		}
		if (!p->reason) {
			p->phase = P_VOTED;
			p->voted_ns = now_ns();
			n->st.votes_yes++;
			txn_node_vote(n->txn, &p->id, true, 0);
			return;
		}
		n->st.votes_no++;
		txn_node_vote(n->txn, &p->id, false, p->reason);
		/* ours to undo: the shards that may hold it */
		p->phase = P_ABORTING;
		for (i = 0; i < p->nsh; i++)
			if (may_hold(p, i))
				propose_decision(n, p, i, KV_OP_ABORT);
		if (!p->outstanding)
			p->used = false;
		return;
	case P_DECIDING:
		/* KV_UNKNOWN: the log had it already (an earlier proposal) */
		for (i = 0; i < p->nsh; i++)
			if (p->res[i] != KV_YES && p->res[i] != KV_UNKNOWN)
				break;
		if (i == p->nsh) {
			/* applied through every shard's log: ACK it */
			txn_node_applied(n->txn, &p->id);
			p->used = false;
			return;
		}
		/*
		 * Never ACK what no log holds: again where we still lead;
		 * where we do not, the decision is the next leader's to
		 * apply (failover is not built yet: the end check would
		 * show an order lost), so it stays here, unACKed
		 */
		for (i = 0; i < p->nsh; i++) {
			if (p->res[i] == KV_YES || p->res[i] == KV_UNKNOWN ||
			    !leads(n, p->shard[i]))
				continue;
			p->res[i] = KV_YES;
			propose_decision(n, p, i, p->decision);
		}
		if (!p->outstanding)
			p->phase = P_STUCK;
		return;
	default:	/* P_ABORTING */
		p->used = false;
		return;
	}
}

static void on_prepare(struct kv_node *n, const struct txn_event *ev)
{
	const uint8_t *d = ev->rec->data;
	size_t len = ev->rec->data_len, off = sizeof(struct kv_br_hdr);
	struct kv_br_hdr h;
	struct kv_pend *p;
	unsigned int i;

	n->st.prepares++;
	p = pend_new(n, &ev->id);
	if (!p) {
		n->st.votes_no++;
		txn_node_vote(n->txn, &ev->id, false, KVR_FULL);
		return;
	}
	p->phase = P_PREPARING;
	if (len < sizeof(h))
		goto bad;
	memcpy(&h, d, sizeof(h));
	if (!h.nsh || h.nsh > n->cfg.no.nshard ||
	    memcmp(h.resv, (uint8_t[7]){ 0 }, sizeof(h.resv)))
		goto bad;
	p->nsh = h.nsh;
	/* check the whole branch before anything is proposed */
	for (i = 0; i < h.nsh; i++) {
		struct kv_br_ent e;
		struct kv_cmd_hdr ch;
		unsigned int j;

		if (len - off < sizeof(e))
			goto bad;
		memcpy(&e, d + off, sizeof(e));
		off += sizeof(e);
		e.shard = le32toh(e.shard);
		e.len = le32toh(e.len);
		if (e.shard >= n->cfg.no.nshard || len - off < KV_PAD(e.len) ||
		    kv_cmd_check(d + off, e.len, kv_no_nrec(&n->cfg.no),
				 KV_NO_CAP, &ch) || ch.op != KV_OP_PREPARE)
			goto bad;
		for (j = 0; j < i; j++)
			if (p->shard[j] == e.shard)
				goto bad;
		p->shard[i] = (uint8_t)e.shard;
		off += KV_PAD(e.len);
	}
	if (off != len)
		goto bad;
	/* a shard we do not lead: no, and nothing proposed */
	for (i = 0; i < p->nsh; i++) {
		if (!leads(n, p->shard[i])) {
			p->used = false;
			n->st.votes_no++;
			txn_node_vote(n->txn, &ev->id, false, KVR_NOT_LEADER);
			return;
		}
	}
	off = sizeof(h);
	for (i = 0; i < h.nsh; i++) {
		struct kv_br_ent e;
		struct kv_cmd_hdr ch;
		void *cmd;

		memcpy(&e, d + off, sizeof(e));
		off += sizeof(e);
		e.len = le32toh(e.len);
		cmd = raft_malloc(e.len);
		if (!cmd) {
			p->res[i] = KV_RES_MAX;
			break;
		}
		/* the coordinator learns the id only after it built this */
		memcpy(cmd, d + off, e.len);
		memcpy(&ch, cmd, sizeof(ch));
		ch.coord = htole32(ev->id.coord);
		ch.epoch = htole32(ev->id.epoch);
		ch.seq = htole64(ev->id.seq);
		memcpy(cmd, &ch, sizeof(ch));
		propose(n, p, i, cmd, e.len);
		off += KV_PAD(e.len);
	}
	if (!p->outstanding)
		pend_settle(n, p);
	return;
bad:
	p->used = false;
	n->st.votes_no++;
	txn_node_vote(n->txn, &ev->id, false, KVR_BAD);
}

static void on_decide(struct kv_node *n, const struct txn_event *ev)
{
	struct kv_pend *p = pend_find(n, &ev->id);
	unsigned int i;

	n->st.decides++;
	if (p && p->phase == P_PREPARING &&
	    ev->decision != TXRDMA_TXN_COMMIT) {
		/* our proposals are out: applied once they are undone */
		p->aborted = true;
		return;
	}
	if (!p || p->phase != P_VOTED) {
		/* nothing held here for it */
		txn_node_applied(n->txn, &ev->id);
		return;
	}
	p->phase = P_DECIDING;
	p->decision = ev->decision == TXRDMA_TXN_COMMIT ? KV_OP_COMMIT :
		      KV_OP_ABORT;
	for (i = 0; i < p->nsh; i++) {
		p->res[i] = KV_YES;
		propose_decision(n, p, i, p->decision);
	}
	if (!p->outstanding)
		pend_settle(n, p);
}

/* ---- the client ------------------------------------------------------ */

static void order_start(struct kv_node *n, struct kv_order *o);

/* the slot is free: client_tick() starts the next order in it */
static void order_finish(struct kv_node *n, struct kv_order *o)
{
	(void)n;
	o->phase = O_IDLE;
	o->gen++;
}

static void order_abort(struct kv_node *n, struct kv_order *o,
			uint64_t *why)
{
	(*why)++;
	n->cst.aborted++;
	order_finish(n, o);
}

static void rd_add(struct kv_order *o, const struct kv_no_cfg *c,
		   enum kv_no_kind kind, uint32_t num, uint8_t line)
{
	uint32_t sh, idx;
	uint8_t k;

	kv_no_where(c, kind, num, &sh, &idx);
	k = o->rd_n[sh]++;
	o->rd_kind[sh][k] = (uint8_t)kind;
	o->rd_line[sh][k] = line;
	o->rd_index[sh][k] = idx;
	o->need |= 1U << sh;
}

static void on_read_resp(struct kv_node *n, uint32_t from, const void *msg,
			 size_t len);
static size_t read_answer(struct kv_node *n, const struct kv_rd_req *q,
			  size_t len, struct kv_rd_resp *r);

/*
 * Shard @s's records of @o from @leader (not 0) by message, or from our
 * own replica when we lead it.  Return: 0 (sent, or taken), -EAGAIN.
 */
static int read_by_message(struct kv_node *n, struct kv_order *o, uint32_t s,
			   uint32_t leader)
{
	struct kv_rd_req q = {
		.magic = htole32(KV_RD_REQ),
		.tag = htole32((uint32_t)(o - n->ord) | o->gen << 8),
		.shard = htole32(s), .n = htole16(o->rd_n[s]),
	};
	unsigned int k;
	size_t qlen;

	for (k = 0; k < o->rd_n[s]; k++)
		q.index[k] = htole32(o->rd_index[s][k]);
	qlen = offsetof(struct kv_rd_req, index) + 4 * (size_t)o->rd_n[s];
	if (leader == n->cfg.self) {
		/* served here, as the service would */
		static struct kv_rd_resp r;
		size_t rl = read_answer(n, &q, qlen, &r);

		if (!rl)
			return -EAGAIN;
		n->cst.local_reads++;
		on_read_resp(n, leader, &r, rl);
		return 0;
	}
	if (txn_transport_send(n->rd_t, leader, &q, qlen))
		return -EAGAIN;
	n->cst.svc_reads++;
	return 0;
}

int kv_read_by_service(struct kv_node *n, struct kv_order *o, uint32_t s)
{
	uint32_t leader = kv_node_leader(n, s);

	return leader ? read_by_message(n, o, s, leader) : -EAGAIN;
}

static int order_send_reads(struct kv_node *n, struct kv_order *o)
{
	uint32_t s, gen = o->gen;

	for (s = 0; s < n->cfg.no.nshard; s++) {
		uint32_t leader = kv_node_leader(n, s);

		if (!(o->need & 1U << s))
			continue;
		if (!leader)
			return -EAGAIN;
		/* from a remote leader's memory, on txrdma (kv_onesided.c) */
		if (leader != n->cfg.self && !kv_os_start(n, o, s, leader))
			continue;
		if (read_by_message(n, o, s, leader))
			return -EAGAIN;
		if (o->phase != O_READING || o->gen != gen)
			return 0;	/* the order went on */
	}
	return 0;
}

static void order_start(struct kv_node *n, struct kv_order *o)
{
	unsigned int i;

	memset(o->rd_n, 0, sizeof(o->rd_n));
	o->need = 0;
	kv_no_plan(&n->cfg.no, &n->rng, &o->plan);
	rd_add(o, &n->cfg.no, KV_NO_DISTRICT, o->plan.district, 0);
	for (i = 0; i < KV_NO_LINES; i++) {
		rd_add(o, &n->cfg.no, KV_NO_ITEM, o->plan.item[i], (uint8_t)i);
		rd_add(o, &n->cfg.no, KV_NO_STOCK, o->plan.item[i],
		       (uint8_t)i);
	}
	o->phase = O_READING;
	o->t0 = now_ns();
	o->deadline = o->t0 + READ_TIMEOUT_NS;
	n->started++;
	n->cst.started++;
	if (order_send_reads(n, o)) {
		/* no leader known yet, or one here: try again later */
		n->cst.read_retries++;
		o->deadline = o->t0;
	}
}

static int order_branch_add(struct kv_order *o, uint32_t node, uint32_t s,
			    const void *cmd, size_t len)
{
	struct kv_br_ent e = { htole32(s), htole32((uint32_t)len) };
	struct kv_br_hdr h;
	unsigned int b;
	size_t off;

	for (b = 0; b < o->nbr; b++)
		if (o->br[b].node == node)
			break;
	if (b == o->nbr) {
		o->br[b] = (struct txn_branch){ .node = node,
						 .len = sizeof(h),
						 .data = o->brbuf[b] };
		memset(o->brbuf[b], 0, sizeof(h));
		o->nbr++;
	}
	off = o->br[b].len;
	if (off + sizeof(e) + KV_PAD(len) > BR_MAX)
		return -ENOSPC;
	memcpy(o->brbuf[b] + off, &e, sizeof(e));
	memcpy(o->brbuf[b] + off + sizeof(e), cmd, len);
	memset(o->brbuf[b] + off + sizeof(e) + len, 0, KV_PAD(len) - len);
	o->br[b].len = (uint32_t)(off + sizeof(e) + KV_PAD(len));
	memcpy(&h, o->brbuf[b], sizeof(h));
	h.nsh++;
	memcpy(o->brbuf[b], &h, sizeof(h));
	return 0;
}

/* every read came: prepare on the shards' leaders */
static void order_commit(struct kv_node *n, struct kv_order *o)
{
	struct kv_write w[KV_NO_LINES + 1];
	uint8_t vals[(KV_NO_LINES + 1) * KV_NO_CAP];
	uint8_t cmd[1024];
	struct txn_id zero = { 0 }, id;
	uint64_t amount;
	uint32_t s;

	o->nbr = 0;
	for (s = 0; s < n->cfg.no.nshard; s++) {
		unsigned int nw = kv_no_writes(&n->cfg.no, &o->plan, &o->seen,
					       s, w, vals, &amount);
		uint32_t leader = kv_node_leader(n, s);
		size_t len;

		if (!nw)
			continue;
		if (!leader) {
			order_abort(n, o, &n->cst.abort_leader);
			return;
		}
		len = kv_cmd_build(cmd, sizeof(cmd), KV_OP_PREPARE, &zero, w,
				   nw);
		if (!len || order_branch_add(o, leader, s, cmd, len)) {
			order_abort(n, o, &n->cst.abort_other);
			return;
		}
	}
	o->phase = O_COMMITTING;
	o->id = (struct txn_id){ 0 };
	if (txn_node_begin(n->txn, o->br, o->nbr, o, &id))
		order_abort(n, o, &n->cst.abort_other);
	else if (o->phase == O_COMMITTING)
		o->id = id;
}

int kv_take_rec(struct kv_order *o, uint32_t s, unsigned int k,
		uint64_t version, const void *value, uint32_t len)
{
	unsigned int line = o->rd_line[s][k];

	if (len > KV_NO_CAP)
		return -EINVAL;
	switch (o->rd_kind[s][k]) {
	case KV_NO_DISTRICT:
		o->seen.dist_ver = version;
		return kv_no_get_district(value, len, &o->seen.dist);
	case KV_NO_ITEM:
		return kv_no_get_item(value, len, &o->seen.item[line]);
	default:
		o->seen.stock_ver[line] = version;
		return kv_no_get_stock(value, len, &o->seen.stock[line]);
	}
}

void kv_order_shard_read(struct kv_node *n, struct kv_order *o, uint32_t s)
{
	o->need &= ~(1U << s);
	if (!o->need) {
		o->t_read = now_ns();
		order_commit(n, o);
	}
}

static void on_read_resp(struct kv_node *n, uint32_t from, const void *msg,
			 size_t len)
{
	const struct kv_rd_resp *r = msg;
	uint32_t tag, s, slot, k;
	struct kv_order *o;

	if (!n->client || len < offsetof(struct kv_rd_resp, rec))
		return;
	tag = le32toh(r->tag);
	s = le32toh(r->shard);
	slot = tag & 0xff;
	if (slot >= n->window || s >= n->cfg.no.nshard)
		return;
	o = &n->ord[slot];
	if (o->phase != O_READING || (tag >> 8) != (o->gen & 0xffffff) ||
	    !(o->need & 1U << s) || kv_node_leader(n, s) != from)
		return;
	if (r->status || le16toh(r->n) != o->rd_n[s] ||
	    len < offsetof(struct kv_rd_resp, rec) +
		  o->rd_n[s] * sizeof(struct kv_rd_rec)) {
		/* not the leader any more: the next try asks the new one */
		n->cst.read_retries++;
		o->deadline = now_ns();
		return;
	}
	for (k = 0; k < o->rd_n[s]; k++) {
		const struct kv_rd_rec *rec = &r->rec[k];

		if (kv_take_rec(o, s, k, le64toh(rec->version), rec->value,
				le32toh(rec->len)))
			return;
	}
	kv_order_shard_read(n, o, s);
}

static void client_tick(struct kv_node *n)
{
	uint64_t now;
	uint32_t i;

	if (!n->client)
		return;
	now = now_ns();
	for (i = 0; i < n->window; i++) {
		struct kv_order *o = &n->ord[i];

		if (o->phase == O_IDLE &&
		    (!n->orders || n->started < n->orders)) {
			order_start(n, o);
			continue;
		}
		if (o->phase != O_READING || now < o->deadline)
			continue;
		/* resend what is still awaited, to whoever leads now */
		o->gen++;
		o->deadline = now + READ_TIMEOUT_NS;
		if (order_send_reads(n, o)) {
			n->cst.read_retries++;
			o->deadline = now + MS;
		}
	}
}

/* ---- the read service ------------------------------------------------ */

/* the answer to read request @q (@len bytes) in @r: its length, or 0 */
static size_t read_answer(struct kv_node *n, const struct kv_rd_req *q,
			  size_t len, struct kv_rd_resp *r)
{
	uint32_t s, k, cnt;

	if (len < offsetof(struct kv_rd_req, index))
		return 0;
	s = le32toh(q->shard);
	cnt = le16toh(q->n);
	if (s >= n->cfg.no.nshard || cnt > KV_RD_MAX || q->resv ||
	    len != offsetof(struct kv_rd_req, index) + 4 * (size_t)cnt)
		return 0;
	memset(r, 0, offsetof(struct kv_rd_resp, rec));
	r->magic = htole32(KV_RD_RESP);
	r->tag = q->tag;
	r->shard = q->shard;
	r->n = q->n;
	if (!leads(n, s)) {
		n->st.reads_refused++;
		r->status = (int16_t)htole16((uint16_t)-EAGAIN);
		return offsetof(struct kv_rd_resp, rec);
	}
	for (k = 0; k < cnt; k++) {
		const void *v;
		uint64_t ver;
		uint32_t vl;

		memset(&r->rec[k], 0, sizeof(r->rec[k]));
		if (kv_shard_get(n->shard[s], le32toh(q->index[k]), &ver, &v,
				 &vl) || vl > KV_NO_CAP)
			return 0;
		r->rec[k].version = htole64(ver);
		r->rec[k].len = htole32(vl);
		memcpy(r->rec[k].value, v, vl);
	}
	n->st.reads_served++;
	return offsetof(struct kv_rd_resp, rec) + cnt * sizeof(r->rec[0]);
}

static void on_read_req(struct kv_node *n, uint32_t from, const void *msg,
			size_t len)
{
	static struct kv_rd_resp r;
	size_t rl = read_answer(n, msg, len, &r);

	if (rl)
		txn_transport_send(n->rd_t, from, &r, rl);
}

static void on_synced(struct kv_node *n, uint32_t from,
		      const struct kv_rd_sync *a);

static void sync_answer(struct kv_node *n, uint32_t to, uint32_t s,
			uint64_t index)
{
	struct kv_rd_sync a = {
		.magic = htole32(KV_RD_SYNCED), .shard = htole32(s),
		.index = htole64(index),
	};

	if (to == n->cfg.self)
		on_synced(n, to, &a);
	else
		txn_transport_send(n->rd_t, to, &a, sizeof(a));
}

static void barrier_done(struct raft_barrier *req, int status)
{
	struct kv_barrier *b = (struct kv_barrier *)req;
	struct kv_node *n = b->n;
	uint32_t s = b->shard, w, node;

	w = n->barrier_waiters[s];
	n->barrier_waiters[s] = 0;
	n->barrier_busy[s] = false;
	if (!status)
		kv_fo_barrier_done(n, s, b->term);
	free(b);
	for (node = 1; node <= n->cfg.nnodes; node++)
		if (w & 1U << node)
			sync_answer(n, node, s,
				    status ? 0 : kv_node_applied(n, s));
}

/*
 * A sync request of @from (or ours): a barrier on the shard we lead,
 * one at a time per shard (every request waiting for it is answered by
 * it), so that no peer makes our logs grow by asking
 */
static void on_sync(struct kv_node *n, uint32_t from,
		    const struct kv_rd_sync *q)
{
	uint32_t s = le32toh(q->shard);
	struct kv_barrier *b;

	if (s >= n->cfg.no.nshard || from > n->cfg.nnodes)
		return;
	if (n->barrier_busy[s]) {
		n->barrier_waiters[s] |= 1U << from;
		return;
	}
	if (leads(n, s) && (b = calloc(1, sizeof(*b)))) {
		b->n = n;
		b->shard = s;
		b->term = n->grp[s].raft.current_term;
		if (!raft_barrier(&n->grp[s].raft, &b->req, barrier_done)) {
			n->barrier_busy[s] = true;
			n->barrier_waiters[s] = 1U << from;
			return;
		}
		free(b);
	}
	/* index 0: not the leader (or no memory): ask again */
	sync_answer(n, from, s, 0);
}

/* a barrier on shard @s that we lead (kv_failover.c) */
int kv_fo_barrier(struct kv_node *n, uint32_t s)
{
	struct kv_rd_sync q = {
		.magic = htole32(KV_RD_SYNC), .shard = htole32(s),
	};

	on_sync(n, n->cfg.self, &q);
	return 0;
}

static void on_synced(struct kv_node *n, uint32_t from,
		      const struct kv_rd_sync *a)
{
	uint32_t s = le32toh(a->shard);
	uint64_t index = le64toh(a->index);

	if (s >= n->cfg.no.nshard || !(n->sync_need & 1U << s) ||
	    from != kv_node_leader(n, s) || !index)
		return;
	n->sync_index[s] = index;
	n->sync_need &= ~(1U << s);
}

static void sync_send(struct kv_node *n)
{
	uint32_t s;

	n->sync_sent_ns = now_ns();
	for (s = 0; s < n->cfg.no.nshard; s++) {
		struct kv_rd_sync q = {
			.magic = htole32(KV_RD_SYNC), .shard = htole32(s),
		};
		uint32_t leader = kv_node_leader(n, s);

		if (!(n->sync_need & 1U << s) || !leader)
			continue;
		if (leader == n->cfg.self)
			on_sync(n, leader, &q);
		else
			txn_transport_send(n->rd_t, leader, &q, sizeof(q));
	}
}

void kv_xfer_done(struct raft_transfer *req)
{
	struct kv_group *gr = req->data;

	gr->xfer_busy = false;
}

bool kv_node_steady(const struct kv_node *n)
{
	return n->steady;
}

bool kv_node_placed(struct kv_node *n)
{
	bool placed = true;
	unsigned int g;

	for (g = 0; g < n->ngroups; g++) {
		struct kv_group *gr = &n->grp[g];
		uint32_t want = n->cfg.prefer[g];

		if (!want || kv_node_leader(n, g) == want)
			continue;
		placed = false;
		/* ours, and another should have it: hand it over */
		if (leads(n, g) && !gr->xfer_busy) {
			gr->xfer.data = gr;
			if (!raft_transfer(&gr->raft, &gr->xfer, want,
					   kv_xfer_done))
				gr->xfer_busy = true;
		}
	}
	return placed;
}

int kv_node_sync(struct kv_node *n)
{
	n->sync_need = (1U << n->cfg.no.nshard) - 1;
	sync_send(n);
	return 0;
}

bool kv_node_synced(struct kv_node *n)
{
	uint32_t s;

	if (n->sync_need) {
		/* a lost answer, a leader changing: ask again */
		if (now_ns() - n->sync_sent_ns > READ_TIMEOUT_NS)
			sync_send(n);
		return false;
	}
	for (s = 0; s < n->cfg.no.nshard; s++)
		if (kv_node_applied(n, s) < n->sync_index[s])
			return false;
	return true;
}

size_t kv_node_decisions_held(const struct kv_node *n)
{
	if (!has_dlog(n, n->cfg.self))
		return 0;
	return txraft_dlog_count(n->grp[g_dlog(n)].dlog);
}

static void rd_msg(void *ctx, uint32_t node, const void *msg, size_t len)
{
	/* a transport promises no alignment: read from an aligned copy */
	static union {
		struct kv_rd_req q;
		struct kv_rd_resp r;
		struct kv_rd_sync y;
	} m;
	struct kv_node *n = ctx;
	uint32_t magic;

	if (len < 4 || len > sizeof(m))
		return;
	memcpy(&m, msg, len);
	memcpy(&magic, &m, 4);
	if (le32toh(magic) == KV_RD_REQ)
		on_read_req(n, node, &m.q, len);
	else if (le32toh(magic) == KV_RD_RESP)
		on_read_resp(n, node, &m.r, len);
	else if (le32toh(magic) == KV_RD_SYNC && len == sizeof(m.y))
		on_sync(n, node, &m.y);
	else if (le32toh(magic) == KV_RD_SYNCED && len == sizeof(m.y))
		on_synced(n, node, &m.y);
	else if (le32toh(magic) == KV_RD_ASK || le32toh(magic) == KV_RD_TOLD)
		kv_fo_msg(n, node, &m, len);
}

static void rd_peer(void *ctx, uint32_t node, bool up)
{
	(void)ctx;
	(void)node;
	(void)up;
}

static const struct txn_transport_cb rd_cb = {
	.msg = rd_msg,
	.peer = rd_peer,
};

/* what a committed order wrote, each record from the version it read */
static void history_add(struct kv_node *n, const struct kv_order *o)
{
	struct kv_hist_write w[KV_NO_LINES + 1];
	unsigned int nw = kv_no_hist_writes(&n->cfg.no, &o->plan, &o->seen, w);

	if (kv_hist_add(n->hist, o->t0, now_ns(), w, nw))
		n->cst.hist_lost++;
}

static uint64_t load_version(void *ctx, uint32_t shard, uint32_t index)
{
	(void)ctx;
	(void)shard;
	(void)index;
	return KV_LOAD_VERSION;
}

static uint64_t replica_version(void *ctx, uint32_t shard, uint32_t index)
{
	struct kv_node *n = ctx;
	const void *v;
	uint64_t ver = 0;
	uint32_t len;

	if (shard < n->cfg.no.nshard)
		kv_shard_get(n->shard[shard], index, &ver, &v, &len);
	return ver;
}

int kv_node_check_history(struct kv_node *n, char *why, size_t cap)
{
	if (!n->hist || n->cst.hist_lost) {
		snprintf(why, cap, "no whole history (%llu orders not kept)",
			 (unsigned long long)n->cst.hist_lost);
		return -ENOMEM;
	}
	return kv_hist_check(n->hist, load_version, replica_version, n, why,
			     cap);
}

/* ---- the transaction node's hooks ------------------------------------ */

/*
 * A decision the log did not take: its order's outcome is unknown to
 * us (a later leader may still find it), and this coordinator cannot
 * go on (it lost the log's leadership; failover is not built yet): the
 * client stops and says so.
 */
static void log_failed(struct kv_node *n)
{
	n->cst.log_failed++;
	n->client_failed = true;
	kv_node_client_stop(n);
}

static void logged_cb(void *ctx, const struct txn_id *id, int status)
{
	struct kv_node *n = ctx;

	if (status) {
		log_failed(n);
		return;
	}
	txn_node_logged(n->txn, id);
}

static void txn_log(void *ctx, const struct txn_id *id, const uint32_t *nodes,
		    uint16_t nn)
{
	struct kv_node *n = ctx;
	struct kv_group *gr = &n->grp[g_dlog(n)];

	/* deposed once: never log again (kv_failover.c says why) */
	if (kv_fo_fenced(n) ||
	    txraft_dlog_commit(gr->dlog, &gr->raft, id, nodes, nn, logged_cb,
			       n))
		log_failed(n);
}

static void txn_event(void *ctx, const struct txn_event *ev, void *user)
{
	struct kv_node *n = ctx;
	struct kv_order *o = user;

	switch (ev->type) {
	case TXN_EV_PREPARE:
		on_prepare(n, ev);
		break;
	case TXN_EV_DECIDE:
		on_decide(n, ev);
		break;
	case TXN_EV_FORGET:
		txraft_dlog_forget(n->grp[g_dlog(n)].dlog,
				   &n->grp[g_dlog(n)].raft, &ev->id);
		break;
	case TXN_EV_DONE:
		if (!o || o->phase != O_COMMITTING)
			break;
		if (ev->decision == TXRDMA_TXN_COMMIT) {
			uint64_t lat = now_ns() - o->t0;

			kv_no_tally_commit(n->tally, &o->plan);
			history_add(n, o);
			n->cst.committed++;
			n->cst.lat_ns_sum += lat;
			n->cst.read_ns_sum += o->t_read - o->t0;
			if (n->nlat < n->lat_cap)
				n->lat[n->nlat++] = lat;
			order_finish(n, o);
		} else if (ev->why == TXN_WHY_VOTE &&
			   ev->reason == KVR_RES + KV_NO_STALE) {
			order_abort(n, o, &n->cst.abort_stale);
		} else if (ev->why == TXN_WHY_VOTE &&
			   ev->reason == KVR_RES + KV_NO_LOCKED) {
			order_abort(n, o, &n->cst.abort_locked);
		} else if (ev->why == TXN_WHY_VOTE &&
			   ev->reason == KVR_NOT_LEADER) {
			order_abort(n, o, &n->cst.abort_leader);
		} else {
			order_abort(n, o, &n->cst.abort_other);
		}
		break;
	default:
		break;
	}
}

static const struct txn_node_hooks txn_hooks = {
	.log = txn_log,
	.event = txn_event,
};

/* ---- setup ----------------------------------------------------------- */

static int open_transport(struct kv_node *n, unsigned int g,
			  const struct txn_transport_cb *cb, void *ctx,
			  struct txn_transport **tp)
{
	uint32_t max_msg = n->cfg.max_msg ? n->cfg.max_msg : 16384;
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_port = htons(n->cfg.base ? (uint16_t)(n->cfg.base +
							    16 * g +
							    n->cfg.self) : 0),
		.sin_addr.s_addr = htonl(INADDR_ANY),
	};
	struct txn_tcp_cfg tc = {
		.self = n->cfg.self, .listen = (struct sockaddr *)&sa,
		.listen_len = sizeof(sa), .max_msg = max_msg,
		.reconnect_ms = 20,
	};
	struct txn_txrdma_cfg xc = {
		.self = n->cfg.self, .service_base = n->cfg.base + 16 * g,
		.max_msg = max_msg, .ep_flags = n->cfg.ep_flags,
	};
	char why[128];

	return txn_transport_open(tp, n->cfg.backend, &xc, &tc, cb, ctx, why,
				  sizeof(why));
}

static int epoll_add(struct kv_node *n, int fd)
{
	struct epoll_event e = { .events = EPOLLIN };

	return epoll_ctl(n->epfd, EPOLL_CTL_ADD, fd, &e) ? -errno : 0;
}

/* every replica starts from the same load (TPC-C's), before its log */
static int load_shard(struct kv_node *n, uint32_t s)
{
	const struct kv_no_cfg *c = &n->cfg.no;
	uint8_t val[KV_NO_CAP], cmd[256];
	unsigned int k;

	for (k = KV_NO_DISTRICT; k <= KV_NO_STOCK; k++) {
		uint32_t count = k == KV_NO_DISTRICT ? c->ndist : c->nitem;
		uint32_t num;

		for (num = s; num < count; num += c->nshard) {
			struct txn_id id = { 0 };
			struct kv_write w;
			uint32_t sh, idx, len;
			size_t cl;

			kv_no_initial(c, k, num, val, &len);
			kv_no_where(c, k, num, &sh, &idx);
			w = (struct kv_write){ idx, len, 0, val };
			cl = kv_cmd_build(cmd, sizeof(cmd), KV_OP_PUT, &id, &w,
					  1);
			if (!cl || kv_shard_apply(n->shard[s], cmd, cl) !=
				   KV_YES)
				return -EINVAL;
		}
	}
	return 0;
}

/*
 * cfg.wal_dir: this run's epoch, above the one the directory's "epoch"
 * file names (2PC ids must never repeat across restarts), written
 * there durably before the node sends anything
 */
static int next_epoch(struct kv_node *n)
{
	char path[4096], tmp[4096], buf[32] = "";
	unsigned long last = 0;
	int fd, len;
	FILE *f;

	snprintf(path, sizeof(path), "%s/epoch", n->cfg.wal_dir);
	snprintf(tmp, sizeof(tmp), "%s/.epoch", n->cfg.wal_dir);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%lu", &last) != 1)
			last = 0;
		fclose(f);
	}
	if (last >= UINT32_MAX)
		return -EOVERFLOW;
	if (n->cfg.epoch <= last)
		n->cfg.epoch = (uint32_t)last + 1;
	len = snprintf(buf, sizeof(buf), "%u\n", n->cfg.epoch);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (write(fd, buf, len) != len || fsync(fd)) {
		close(fd);
		return -EIO;
	}
	close(fd);
	return rename(tmp, path) ? -errno : 0;
}

uint32_t kv_node_epoch(const struct kv_node *n)
{
	return n->cfg.epoch;
}

int kv_node_open(struct kv_node **np, const struct kv_node_cfg *cfg)
{
	struct txn_node_cfg nc = {
		.self = cfg->self, .epoch = cfg->epoch, .window = MAX_WINDOW,
		.max_parts = KV_MAX_NODES, .vote_retries = 3,
		.max_txns = MAX_TXNS, .max_batch = 16384,
		.vote_timeout_ns = 1000 * MS, .ack_timeout_ns = 200 * MS,
		.inquire_timeout_ns = 200 * MS,
	};
	uint32_t nrec = kv_no_nrec(&cfg->no), s;
	size_t tsize = txn_vrec_table_size(KV_NO_CAP, nrec);
	struct kv_node *n;
	unsigned int g;
	int ret;

	if (!cfg->self || cfg->self > cfg->nnodes || cfg->nnodes < 3 ||
	    cfg->nnodes > KV_MAX_NODES || cfg->no.nshard < 2 ||
	    cfg->no.nshard > KV_MAX_SHARDS || !cfg->epoch || !tsize ||
	    cfg->nclients > cfg->nnodes ||
	    !cfg->no.ndist || cfg->no.nitem < 2 * KV_NO_LINES ||
	    (cfg->backend != TXN_BACKEND_TCP &&
	     cfg->backend != TXN_BACKEND_TXRDMA))
		return -EINVAL;
	n = calloc(1, sizeof(*n));
	if (!n)
		return -ENOMEM;
	n->cfg = *cfg;
	n->opened_ns = now_ns();
	if (!n->cfg.nclients)
		n->cfg.nclients = 1;
	n->ngroups = KV_GROUPS(cfg->no.nshard, n->cfg.nclients);
	n->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (n->epfd < 0) {
		free(n);
		return -errno;
	}
	n->tstride = (tsize + 4095) & ~(size_t)4095;
	n->tblock_size = n->tstride * cfg->no.nshard;
	n->tblock = aligned_alloc(4096, n->tblock_size);
	if (!n->tblock) {
		ret = -ENOMEM;
		goto fail;
	}
	/* the padding after each table is sent to readers: no old bytes */
	memset(n->tblock, 0, n->tblock_size);
	for (s = 0; s < cfg->no.nshard; s++) {
		n->table[s] = (uint8_t *)n->tblock + s * n->tstride;
		ret = kv_shard_new(&n->shard[s], n->table[s], tsize, KV_NO_CAP,
				   nrec, MAX_TXNS);
		if (ret || (ret = load_shard(n, s)))
			goto fail;
	}
	if (cfg->wal_dir) {
		ret = next_epoch(n);
		if (ret)
			goto fail;
		nc.epoch = n->cfg.epoch;
	}
	for (g = 0; g < n->ngroups; g++) {
		struct kv_group *gr = &n->grp[g];

		gr->n = n;
		gr->g = g;
		if (cfg->wal_dir) {
			char path[4096];

			snprintf(path, sizeof(path), "%s/group-%u.wal",
				 cfg->wal_dir, g);
			ret = txraft_store_open(&gr->store, path,
						cfg->wal_flags);
			if (ret)
				goto fail;
		}
		ret = txraft_io_new(&gr->x, cfg->self,
				    cfg->max_msg ? cfg->max_msg : 16384,
				    gr->store);
		if (ret)
			goto fail;
		ret = open_transport(n, g, &txraft_io_transport_cb, gr->x,
				     &gr->t);
		if (ret)
			goto fail;
		txraft_io_attach(gr->x, gr->t);
		if ((ret = epoll_add(n, txn_transport_fd(gr->t))))
			goto fail;
	}
	ret = open_transport(n, n->ngroups, &txn_node_transport_cb, NULL,
			     &n->txn_t);
	if (ret)
		goto fail;
	ret = txn_node_open(&n->txn, &nc, n->txn_t, &txn_hooks, n);
	if (ret)
		goto fail;
	ret = open_transport(n, n->ngroups + 1, &rd_cb, n, &n->rd_t);
	if (ret)
		goto fail;
	if (cfg->backend == TXN_BACKEND_TXRDMA && !cfg->service_reads) {
		ret = kv_os_open(n);
		if (ret)
			fprintf(stderr, "txkv: node %u: no one-sided reads "
				"(the read service serves them): %s\n",
				cfg->self, strerror(-ret));
	}
	if ((ret = epoll_add(n, txn_transport_fd(n->txn_t))) ||
	    (ret = epoll_add(n, txn_transport_fd(n->rd_t))))
		goto fail;
	*np = n;
	return 0;
fail:
	kv_node_close(n);
	return ret;
}

int kv_node_port(const struct kv_node *n, unsigned int g)
{
	const struct txn_transport *t;

	if (g < n->ngroups)
		t = n->grp[g].t;
	else if (g == n->ngroups)
		t = n->txn_t;
	else if (g == n->ngroups + 1)
		t = n->rd_t;
	else
		return -1;
	if (!t || strcmp(t->ops->name, "tcp"))
		return -1;
	return txn_tcp_port(t);
}

static int add_one(struct kv_node *n, struct txn_transport *t, uint32_t node,
		   const char *peer_name, const struct in_addr *addr, int port)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
	};

	if (!strcmp(t->ops->name, "tcp")) {
		if (!addr || port <= 0 || port > 65535)
			return -EINVAL;
		sa.sin_addr = *addr;
		return txn_tcp_add_peer(t, node, (struct sockaddr *)&sa,
					sizeof(sa));
	}
	(void)n;
	return txn_txrdma_add_peer(t, node, peer_name ? peer_name : "");
}

int kv_node_add_peer(struct kv_node *n, uint32_t node, const char *peer_name,
		     const struct in_addr *addr, const int *ports)
{
	unsigned int g;
	char name[16];
	int ret;

	if (!node || node > n->cfg.nnodes || node == n->cfg.self)
		return -EINVAL;
	snprintf(name, sizeof(name), "n%u", node);
	for (g = 0; g < n->ngroups + 2; g++) {
		struct txn_transport *t = g < n->ngroups ? n->grp[g].t :
			g == n->ngroups ? n->txn_t : n->rd_t;

		ret = add_one(n, t, node, peer_name, addr, ports ? ports[g] :
			      (int)(n->cfg.base + 16 * g + node));
		if (ret)
			return ret;
		if (g < n->ngroups &&
		    (ret = txraft_io_add_peer(n->grp[g].x, node, name)))
			return ret;
	}
	return 0;
}

int kv_node_start(struct kv_node *n)
{
	struct raft_configuration conf;
	unsigned int g, i;
	char name[16];
	int ret = 0;

	raft_configuration_init(&conf);
	for (i = 1; i <= n->cfg.nnodes; i++) {
		snprintf(name, sizeof(name), "n%u", i);
		if (raft_configuration_add(&conf, i, name, RAFT_VOTER)) {
			raft_configuration_close(&conf);
			return -ENOMEM;
		}
	}
	snprintf(name, sizeof(name), "n%u", n->cfg.self);
	for (g = 0; g < n->ngroups && !ret; g++) {
		struct kv_group *gr = &n->grp[g];
		struct raft_fsm *fsm;

		if (g >= n->cfg.no.nshard) {
			if (txraft_dlog_new(&gr->dlog)) {
				ret = -ENOMEM;
				break;
			}
			fsm = txraft_dlog_fsm(gr->dlog);
		} else {
			gr->fsm = (struct raft_fsm){
				.version = 1, .data = gr, .apply = fsm_apply,
				.snapshot = fsm_snapshot,
				.restore = fsm_restore,
			};
			fsm = &gr->fsm;
		}
		if (raft_init(&gr->raft, txraft_io_raft(gr->x), fsm,
			      n->cfg.self, name)) {
			ret = -EINVAL;
			break;
		}
		gr->inited = true;
		/* short where preferred, until placed (kv_fo_tick()) */
		raft_set_election_timeout(&gr->raft,
					  n->cfg.prefer[g] == n->cfg.self ?
					  PLACING_ELECTION_MS :
					  kv_election_ms(n, g));
		raft_set_heartbeat_timeout(&gr->raft, 50);
		raft_set_pre_vote(&gr->raft, true);
		raft_set_snapshot_threshold(&gr->raft, 4096);
		raft_set_snapshot_trailing(&gr->raft, 1024);
		txraft_io_watch_leader(gr->x, &gr->raft, 20);
		/* a write-ahead file that holds a term: it was bootstrapped */
		ret = raft_bootstrap(&gr->raft, &conf);
		if ((ret && ret != RAFT_CANTBOOTSTRAP) ||
		    raft_start(&gr->raft))
			ret = -EIO;
		else
			ret = 0;
	}
	raft_configuration_close(&conf);
	return ret;
}

/* the sooner of two waits in ms, -1 meaning none */
static int wait_min(int a, int b)
{
	if (a < 0)
		return b;
	if (b < 0)
		return a;
	return a < b ? a : b;
}

/* how long the node may sleep: the groups' ticks, 2PC's and our timers */
static int poll_wait(struct kv_node *n, int wait)
{
	uint64_t now;
	unsigned int g, i;

	for (g = 0; g < n->ngroups && wait; g++)
		wait = wait_min(wait, txraft_io_timeout_ms(n->grp[g].x));
	wait = wait_min(wait, txn_node_timeout_ms(n->txn));
	/* kv_fo_tick() */
	now = now_ns();
	wait = wait_min(wait, n->fo_next_ns <= now ? 0 :
			(int)((n->fo_next_ns - now + MS - 1) / MS));
	if (!n->client || !wait)
		return wait;
	for (i = 0; i < n->window && wait; i++) {
		const struct kv_order *o = &n->ord[i];

		if (o->phase == O_IDLE && (!n->orders || n->started < n->orders))
			return 0;
		if (o->phase == O_READING)
			wait = wait_min(wait, o->deadline <= now ? 0 :
					(int)((o->deadline - now + MS - 1) / MS));
	}
	if (n->sync_need)
		wait = wait_min(wait, 100);
	return wait;
}

int kv_node_poll(struct kv_node *n, int timeout_ms)
{
	struct epoll_event ev[8];
	unsigned int g;
	int ret, wait;

	/*
	 * Sleep until a transport has work or a timer is due, then give
	 * every part a non-blocking turn: a busy loop would take the CPU
	 * from the kernel's poller and rxe, which share it in a guest.
	 */
	wait = poll_wait(n, timeout_ms);
	if (wait)
		epoll_wait(n->epfd, ev, 8, wait);
	for (g = 0; g < n->ngroups; g++) {
		ret = txraft_io_poll(n->grp[g].x, 0);
		if (ret < 0)
			return ret;
	}
	ret = txn_node_poll(n->txn, 0);
	if (ret < 0)
		return ret;
	ret = txn_transport_poll(n->rd_t, 0);
	if (ret < 0)
		return ret;
	client_tick(n);
	kv_fo_tick(n);
	return 0;
}

static void group_closed(struct raft *r)
{
	struct kv_group *gr = r->data;

	gr->closed = true;
}

void kv_node_close(struct kv_node *n)
{
	unsigned int g, s;

	if (!n)
		return;
	n->closing = true;
	for (g = 0; g < n->ngroups; g++) {
		struct kv_group *gr = &n->grp[g];

		if (gr->inited) {
			gr->raft.data = gr;
			raft_close(&gr->raft, group_closed);
			while (!gr->closed)
				txraft_io_poll(gr->x, 1);
		}
	}
	txn_node_close(n->txn);
	for (g = 0; g < n->ngroups; g++) {
		txn_transport_close(n->grp[g].t);
		if (n->grp[g].x)
			txraft_io_free(n->grp[g].x);
		if (n->grp[g].store)
			txraft_store_free(n->grp[g].store);
		if (n->grp[g].dlog)
			txraft_dlog_free(n->grp[g].dlog);
	}
	txn_transport_close(n->txn_t);
	kv_os_close(n);
	/* ends the pairs, then the regions: no READ reaches the memory */
	txn_transport_close(n->rd_t);
	kv_os_free(n);
	for (s = 0; s < KV_MAX_SHARDS; s++)
		kv_shard_free(n->shard[s]);
	free(n->tblock);
	if (n->epfd >= 0)
		close(n->epfd);
	if (!n->shared) {
		kv_no_tally_free(&n->own_tally);
		kv_hist_free(n->hist);
	}
	free(n->askq);
	free(n->ord);
	free(n->lat);
	free(n);
}

/* ---- the client's controls and the node's views ---------------------- */

int kv_node_client_start(struct kv_node *n, uint32_t window, uint64_t seed,
			 uint64_t orders)
{
	uint32_t i;
	int ret;

	if (!window || window > MAX_WINDOW)
		return -EINVAL;
	if (n->client)
		return -EBUSY;
	if (!has_dlog(n, n->cfg.self))
		return -EINVAL;
	if (!leads(n, g_dlog(n)))
		return -EAGAIN;
	if (!n->shared) {
		ret = kv_no_tally_init(&n->own_tally, &n->cfg.no);
		if (ret)
			return ret;
		n->tally = &n->own_tally;
		if (kv_hist_new(&n->hist)) {
			kv_no_tally_free(&n->own_tally);
			return -ENOMEM;
		}
	}
	n->ord = calloc(window, sizeof(*n->ord));
	n->lat_cap = orders ? orders : 1U << 22;
	n->lat = malloc(n->lat_cap * sizeof(*n->lat));
	if (!n->ord || !n->lat) {
		free(n->ord);
		free(n->lat);
		n->ord = NULL;
		n->lat = NULL;
		if (!n->shared) {
			kv_no_tally_free(&n->own_tally);
			kv_hist_free(n->hist);
			n->hist = NULL;
		}
		return -ENOMEM;
	}
	n->client_term = n->grp[g_dlog(n)].raft.current_term;
	n->client = true;
	n->window = window;
	n->rng = seed;
	n->orders = orders;
	for (i = 0; i < window && (!orders || n->started < orders); i++)
		order_start(n, &n->ord[i]);
	return 0;
}

void kv_node_client_stop(struct kv_node *n)
{
	/* orders in flight finish; no new one starts */
	n->orders = n->started;
}

bool kv_node_client_done(const struct kv_node *n)
{
	uint32_t i;

	if (!n->client)
		return false;
	if (n->client_failed)
		return true;
	for (i = 0; i < n->window; i++)
		if (n->ord[i].phase != O_IDLE)
			return false;
	return true;
}

void kv_node_client_stats(const struct kv_node *n, struct kv_client_stats *s)
{
	*s = n->cst;
}

const uint64_t *kv_node_client_lat(const struct kv_node *n, size_t *count)
{
	*count = n->nlat;
	return n->lat;
}

const struct kv_no_tally *kv_node_tally(const struct kv_node *n)
{
	return n->tally;
}

int kv_node_client_share(struct kv_node *n, struct kv_no_tally *t,
			 struct kv_history *h)
{
	if (n->client || !t || !h)
		return -EINVAL;
	n->tally = t;
	n->hist = h;
	n->shared = true;
	return 0;
}

unsigned int kv_node_client_in_doubt(const struct kv_node *n,
				     void (*fn)(void *ctx,
						const struct kv_doubt *d),
				     void *ctx)
{
	unsigned int i, k = 0;

	for (i = 0; n->client && i < n->window; i++) {
		const struct kv_order *o = &n->ord[i];
		struct kv_doubt d;

		if (o->phase != O_COMMITTING || !o->id.seq)
			continue;
		d = (struct kv_doubt){ o->id, &o->plan, &o->seen, o->t0 };
		if (fn)
			fn(ctx, &d);
		k++;
	}
	return k;
}

bool kv_node_decision_held(const struct kv_node *n, const struct txn_id *id)
{
	if (!has_dlog(n, id->coord))
		return false;
	return txraft_dlog_holds(n->grp[g_dlog_of(n, id->coord)].dlog, id);
}

void kv_node_client_history_add(struct kv_node *n, const struct kv_doubt *d,
				uint64_t end)
{
	struct kv_hist_write w[KV_NO_LINES + 1];
	unsigned int nw = kv_no_hist_writes(&n->cfg.no, d->plan, d->seen, w);

	kv_no_tally_commit(n->tally, d->plan);
	if (kv_hist_add(n->hist, d->t0, end, w, nw))
		n->cst.hist_lost++;
}

const struct kv_shard *const *kv_node_shards(const struct kv_node *n)
{
	return (const struct kv_shard *const *)n->shard;
}

const struct kv_shard *kv_node_shard(const struct kv_node *n, unsigned int s)
{
	return s < n->cfg.no.nshard ? n->shard[s] : NULL;
}

uint64_t kv_node_applied(const struct kv_node *n, unsigned int g)
{
	if (g >= n->ngroups || !n->grp[g].inited)
		return 0;
	return raft_last_applied((struct raft *)&n->grp[g].raft);
}

void kv_node_stats(const struct kv_node *n, struct kv_node_stats *s)
{
	*s = n->st;
}

unsigned int kv_node_prepared(const struct kv_node *n, unsigned int s)
{
	if (s >= n->cfg.no.nshard)
		return 0;
	return kv_shard_prepared(n->shard[s], NULL, NULL);
}
