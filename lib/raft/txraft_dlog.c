// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The decision log of presumed-abort two-phase commit, on Raft.
 *
 * What a coordinator must keep across its own death is the set of
 * COMMIT decisions whose participants have not all ACKed (an ABORT is
 * presumed, never logged).  Kept in one process, a decision dies with
 * its disk; kept by a Raft group, it survives any minority of the
 * group.  The rule that makes two-phase commit safe, "no COMMIT leaves
 * before the decision is durable", becomes "no COMMIT leaves before the
 * COMMIT record is committed by the group": txraft_dlog_commit()
 * proposes the record and calls back only once libraft applied it on
 * this server, which it does only after a majority stored it.
 *
 * The replicated state is the set of held COMMITs (id and
 * participants): a COMMIT record adds one, a FORGET removes it.  Both
 * are idempotent (a COMMIT of one held, a FORGET of one not held change
 * nothing and are counted), so a record applied twice, a FORGET
 * proposed by two coordinators, or a COMMIT retried after a lost
 * leadership leave the same state.  A COMMIT retried after its FORGET
 * holds the decision again: harmless (the next coordinator resends it,
 * the participants ACK what they applied, it is forgotten again).  A snapshot is the held COMMITs as
 * records, one after another (uapi/linux/txrdma_raft.h), read back by
 * the same checks as a command.
 *
 * Taking over: the coordinator runs on the group's leader.  When it
 * dies (or loses the leadership), the new leader's process opens a
 * coordinator with a new epoch and gives it every held COMMIT
 * (txraft_dlog_walk() -> txn_node_restore_commit()); it resends them
 * until ACKed, then FORGETs them.  A COMMIT whose proposal failed with
 * the old leader may still have been committed: the new leader holds
 * it and resends it, which is right (the old coordinator never told
 * anyone ABORT for a transaction whose votes were all yes).
 *
 * Commands are checked before they are proposed and again when
 * applied; a command that is not a valid record is ignored and counted
 * (apply must be deterministic, and every server ignores it alike).
 * The held set is an array searched linearly: it holds a coordinator's
 * window of unACKed COMMITs, hundreds, not millions.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <endian.h>

#include <linux/txrdma_raft.h>

#include "txraft_dlog.h"

_Static_assert(sizeof(struct txrdma_dlog_rec) == 24,
	       "struct txrdma_dlog_rec is 24 bytes on the wire");

struct held {
	struct txn_id id;
	uint16_t n;
	uint32_t *nodes;
};

struct txraft_dlog {
	struct raft_fsm fsm;
	struct held *h;
	size_t n, cap;
	struct txraft_dlog_stats st;
};

struct proposal {
	struct raft_apply req;	/* first: the callback gets it back */
	struct txn_id id;
	void (*done)(void *ctx, const struct txn_id *id, int status);
	void *ctx;
};

static size_t rec_len(uint16_t n)
{
	return sizeof(struct txrdma_dlog_rec) + (size_t)n * sizeof(__le32);
}

static bool id_ok(const struct txn_id *id)
{
	return id->coord && id->epoch && id->seq;
}

/* one record into @p (rec_len(@n) bytes) */
static void rec_put(uint8_t *p, uint8_t type, const struct txn_id *id,
		    const uint32_t *nodes, uint16_t n)
{
	struct txrdma_dlog_rec r = {
		.type = type,
		.nnodes = htole16(n),
		.id = {
			.coord = htole32(id->coord),
			.epoch = htole32(id->epoch),
			.seq = htole64(id->seq),
		},
	};
	uint16_t i;

	memcpy(p, &r, sizeof(r));
	p += sizeof(r);
	for (i = 0; i < n; i++) {
		__le32 v = htole32(nodes[i]);

		memcpy(p + i * sizeof(v), &v, sizeof(v));
	}
}

/*
 * The record at @p (@len bytes left): its type, id and participants
 * (pointing into @p, little-endian).  Return: its length, or 0 when it
 * is not a valid record.
 */
static size_t rec_get(const uint8_t *p, size_t len, uint8_t *type,
		      struct txn_id *id, const uint8_t **nodes, uint16_t *n)
{
	struct txrdma_dlog_rec r;
	size_t need;

	if (len < sizeof(r))
		return 0;
	memcpy(&r, p, sizeof(r));
	*n = le16toh(r.nnodes);
	need = rec_len(*n);
	if (r.resv0 || r.resv1 || need > len)
		return 0;
	id->coord = le32toh(r.id.coord);
	id->epoch = le32toh(r.id.epoch);
	id->seq = le64toh(r.id.seq);
	*type = r.type;
	*nodes = p + sizeof(r);
	if (!id_ok(id))
		return 0;
	if (r.type == TXRDMA_DLOG_COMMIT &&
	    (!*n || *n > TXRDMA_DLOG_MAX_NODES))
		return 0;
	if (r.type == TXRDMA_DLOG_FORGET && *n)
		return 0;
	if (r.type != TXRDMA_DLOG_COMMIT && r.type != TXRDMA_DLOG_FORGET)
		return 0;
	return need;
}

static struct held *find(const struct txraft_dlog *d, const struct txn_id *id)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (d->h[i].id.coord == id->coord &&
		    d->h[i].id.epoch == id->epoch && d->h[i].id.seq == id->seq)
			return &d->h[i];
	return NULL;
}

/*
 * Apply one record.  Out of memory for a COMMIT is the one failure:
 * the caller reports it (libraft then stops applying, rather than let
 * this server's state differ from the others').
 */
static int rec_apply(struct txraft_dlog *d, uint8_t type,
		     const struct txn_id *id, const uint8_t *nodes,
		     uint16_t n)
{
	struct held *h = find(d, id);
	uint16_t i;

	if (type == TXRDMA_DLOG_FORGET) {
		if (!h) {
			d->st.duplicates++;
			return 0;
		}
		free(h->nodes);
		*h = d->h[--d->n];
		d->st.forgets++;
		return 0;
	}
	if (h) {
		d->st.duplicates++;
		return 0;
	}
	if (d->n == d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 64;
		struct held *nh = realloc(d->h, cap * sizeof(*nh));

		if (!nh)
			return RAFT_NOMEM;
		d->h = nh;
		d->cap = cap;
	}
	h = &d->h[d->n];
	h->nodes = malloc(n * sizeof(*h->nodes));
	if (!h->nodes)
		return RAFT_NOMEM;
	for (i = 0; i < n; i++) {
		__le32 v;

		memcpy(&v, nodes + i * sizeof(v), sizeof(v));
		h->nodes[i] = le32toh(v);
	}
	h->id = *id;
	h->n = n;
	d->n++;
	d->st.commits++;
	return 0;
}

static void clear(struct txraft_dlog *d)
{
	while (d->n)
		free(d->h[--d->n].nodes);
}

/* ---- the state machine ---------------------------------------------- */

static int fsm_apply(struct raft_fsm *fsm, const struct raft_buffer *buf,
		     void **result)
{
	struct txraft_dlog *d = fsm->data;
	const uint8_t *nodes;
	struct txn_id id;
	uint8_t type;
	uint16_t n;
	size_t k;

	*result = NULL;
	k = rec_get(buf->base, buf->len, &type, &id, &nodes, &n);
	if (!k || k != buf->len) {
		d->st.bad++;
		return 0;
	}
	return rec_apply(d, type, &id, nodes, n);
}

/* the held COMMITs, as records one after another */
static int fsm_snapshot(struct raft_fsm *fsm, struct raft_buffer *bufs[],
			unsigned int *n_bufs)
{
	struct txraft_dlog *d = fsm->data;
	size_t len = 0, off = 0, i;
	uint8_t *p;

	for (i = 0; i < d->n; i++)
		len += rec_len(d->h[i].n);
	*bufs = raft_malloc(sizeof(**bufs));
	p = raft_malloc(len ? len : 1);
	if (!*bufs || !p) {
		raft_free(*bufs);
		raft_free(p);
		return RAFT_NOMEM;
	}
	for (i = 0; i < d->n; i++) {
		rec_put(p + off, TXRDMA_DLOG_COMMIT, &d->h[i].id,
			d->h[i].nodes, d->h[i].n);
		off += rec_len(d->h[i].n);
	}
	(*bufs)[0].base = p;
	(*bufs)[0].len = len;
	*n_bufs = 1;
	return 0;
}

/*
 * A snapshot replaces the state.  The buffer is freed here whatever
 * the outcome, and its pointer cleared: on success it is ours, on
 * failure libraft frees it too (libraft 0.15, installSnapshotCb and
 * snapshotDestroy), so a freed pointer must not be left for it.  The
 * new set is built apart and swapped in whole: a snapshot that fails
 * (malformed, out of memory) leaves the old state as it was.
 */
static int fsm_restore(struct raft_fsm *fsm, struct raft_buffer *buf)
{
	struct txraft_dlog *d = fsm->data;
	struct txraft_dlog fresh = { .fsm = d->fsm };
	const uint8_t *p = buf->base, *nodes;
	size_t off = 0, k;
	struct txn_id id;
	uint8_t type;
	uint16_t n;
	int rv = 0;

	while (off < buf->len && !rv) {
		k = rec_get(p + off, buf->len - off, &type, &id, &nodes, &n);
		if (!k || type != TXRDMA_DLOG_COMMIT)
			rv = RAFT_MALFORMED;
		else
			rv = rec_apply(&fresh, type, &id, nodes, n);
		off += k;
	}
	raft_free(buf->base);
	buf->base = NULL;
	if (rv || fresh.st.duplicates) {
		clear(&fresh);
		free(fresh.h);
		return rv ? rv : RAFT_MALFORMED;
	}
	clear(d);
	free(d->h);
	d->h = fresh.h;
	d->n = fresh.n;
	d->cap = fresh.cap;
	return 0;
}

/* ---- proposing ------------------------------------------------------ */

static void applied_cb(struct raft_apply *req, int status, void *result)
{
	struct proposal *p = (struct proposal *)req;

	(void)result;
	if (p->done)
		p->done(p->ctx, &p->id, status);
	free(p);
}

static int propose(struct raft *r, uint8_t type, const struct txn_id *id,
		   const uint32_t *nodes, uint16_t n,
		   void (*done)(void *ctx, const struct txn_id *id, int status),
		   void *ctx)
{
	struct proposal *p;
	struct raft_buffer b;
	int rv;

	if (!r || !id || !id_ok(id) ||
	    (type == TXRDMA_DLOG_COMMIT &&
	     (!nodes || !n || n > TXRDMA_DLOG_MAX_NODES)))
		return -EINVAL;
	p = calloc(1, sizeof(*p));
	b.len = rec_len(n);
	b.base = raft_malloc(b.len);
	if (!p || !b.base) {
		free(p);
		raft_free(b.base);
		return -ENOMEM;
	}
	rec_put(b.base, type, id, nodes, n);
	p->id = *id;
	p->done = done;
	p->ctx = ctx;
	rv = raft_apply(r, &p->req, &b, 1, applied_cb);
	if (rv) {
		raft_free(b.base);
		free(p);
		return rv;	/* RAFT_*, positive */
	}
	return 0;
}

int txraft_dlog_commit(struct txraft_dlog *d, struct raft *r,
		       const struct txn_id *id, const uint32_t *nodes,
		       uint16_t n,
		       void (*done)(void *ctx, const struct txn_id *id,
				    int status),
		       void *ctx)
{
	if (!d || !done)
		return -EINVAL;
	return propose(r, TXRDMA_DLOG_COMMIT, id, nodes, n, done, ctx);
}

int txraft_dlog_forget(struct txraft_dlog *d, struct raft *r,
		       const struct txn_id *id)
{
	if (!d)
		return -EINVAL;
	return propose(r, TXRDMA_DLOG_FORGET, id, NULL, 0, NULL, NULL);
}

/* ---- reading -------------------------------------------------------- */

bool txraft_dlog_holds(const struct txraft_dlog *d, const struct txn_id *id)
{
	return find(d, id) != NULL;
}

size_t txraft_dlog_count(const struct txraft_dlog *d)
{
	return d->n;
}

size_t txraft_dlog_walk(const struct txraft_dlog *d,
			void (*fn)(void *arg, const struct txn_id *id,
				   const uint32_t *nodes, uint16_t n),
			void *arg)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		fn(arg, &d->h[i].id, d->h[i].nodes, d->h[i].n);
	return d->n;
}

void txraft_dlog_stats(const struct txraft_dlog *d,
		       struct txraft_dlog_stats *st)
{
	*st = d->st;
}

/* ---- set-up --------------------------------------------------------- */

int txraft_dlog_new(struct txraft_dlog **dp)
{
	struct txraft_dlog *d = calloc(1, sizeof(*d));

	if (!d)
		return -ENOMEM;
	d->fsm.version = 1;
	d->fsm.data = d;
	d->fsm.apply = fsm_apply;
	d->fsm.snapshot = fsm_snapshot;
	d->fsm.restore = fsm_restore;
	*dp = d;
	return 0;
}

struct raft_fsm *txraft_dlog_fsm(struct txraft_dlog *d)
{
	return &d->fsm;
}

void txraft_dlog_free(struct txraft_dlog *d)
{
	if (!d)
		return;
	clear(d);
	free(d->h);
	free(d);
}
