// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * One shard of txkv: see kv_shard.h for the interface and the command
 * format.  Why it is built this way:
 *
 * Replicas agree by construction.  Every change to the table, the
 * locks and the prepared set is a function of the commands applied so
 * far and nothing else: no clock, no randomness, no allocation whose
 * failure could differ between hosts (an allocation that fails aborts
 * the process: a replica that cannot apply its log must stop, not
 * diverge).  Versions are part of the state: txn_vrec bumps a record's
 * version by two per write, so after the same commands every replica
 * shows a reader the same version for the same value, and a coordinator
 * that read version V from the old leader can prepare against the new
 * one.
 *
 * Votes come from the log, not from the leader's memory.  A PREPARE is
 * voted on when its command is applied: locked or stale records, a full
 * prepared set, or a decision already taken for the transaction (see
 * "late" below) say no; otherwise the records are locked and the new
 * values kept.  A leader that fails after the PREPARE committed leaves
 * a successor that applied the same command and holds the same locks
 * and values: it answers the coordinator's retry with the same vote.
 *
 * Late commands.  The transaction layer retries PREPARE and may decide
 * ABORT (presumed abort, a timeout) before a retried PREPARE reaches
 * the log; a PREPARE applied after its own ABORT would lock records for
 * a transaction nobody will finish.  The last KV_RECENT decisions are
 * kept (and snapshotted) and such a PREPARE is refused; one older than
 * that is resolved by the participant machine's INQUIRE (presumed
 * abort).  A COMMIT or ABORT of a transaction not prepared here changes
 * nothing (KV_UNKNOWN): a retry of one already applied.
 *
 * All records of a COMMIT change as one: each slot is made odd
 * (txn_vrec_begin()) before any is rewritten, so a reader validating
 * several records by their versions never takes half of a transaction.
 *
 * Lookups are linear over at most max_prep prepared transactions and
 * KV_RECENT decisions: a few hundred compares per command, next to the
 * microseconds a command takes to replicate.
 */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <txn_vrec.h>

#include "kv_shard.h"

_Static_assert(sizeof(struct kv_cmd_hdr) == 24, "kv_cmd_hdr");
_Static_assert(sizeof(struct kv_cmd_write) == 16, "kv_cmd_write");

#define KV_RECENT	256
#define KV_SNAP_MAGIC	0x534b5854U	/* "TXKS", little-endian */
#define KV_SNAP_VERSION	1

struct kv_prep {
	struct txn_id id;
	uint64_t order;		/* when prepared: the walk's order */
	void *cmd;		/* the PREPARE, as applied */
	uint32_t len;
	bool used;
};

struct kv_recent {
	struct txn_id id;
	uint8_t decision;	/* KV_OP_COMMIT or KV_OP_ABORT */
};

struct kv_shard {
	void *table;
	size_t size;
	uint32_t cap, nrec, max_prep, nprep;
	uint32_t *lock;		/* per record: prepared slot + 1, 0 free */
	struct kv_prep *prep;
	uint64_t order;
	struct kv_recent recent[KV_RECENT];
	uint32_t recent_next, recent_n;
	struct kv_shard_stats st;
};

/* a snapshot: this header, the table, prepared commands, decisions */
struct kv_snap_hdr {
	uint32_t magic;
	uint32_t version;
	uint32_t cap;
	uint32_t nrec;
	uint32_t nprep;
	uint32_t nrecent;
	uint64_t table_size;
};

struct kv_snap_recent {
	uint32_t coord;
	uint32_t epoch;
	uint64_t seq;
	uint8_t decision;
	uint8_t resv[7];
};

static const char *const res_names[KV_RES_MAX] = {
	[KV_YES] = "yes",
	[KV_NO_LOCKED] = "locked",
	[KV_NO_STALE] = "stale",
	[KV_NO_FULL] = "full",
	[KV_NO_DECIDED] = "decided",
	[KV_UNKNOWN] = "unknown",
	[KV_MALFORMED] = "malformed",
};

const char *kv_res_name(int res)
{
	return res >= 0 && res < KV_RES_MAX ? res_names[res] : "?";
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		/* a replica that cannot apply its log stops: see the top */
		fprintf(stderr, "kv_shard: out of memory applying the log\n");
		abort();
	}
	return p;
}

static bool all_zero(const void *p, size_t n)
{
	const unsigned char *b = p;

	while (n--)
		if (*b++)
			return false;
	return true;
}

static bool id_eq(const struct txn_id *a, const struct txn_id *b)
{
	return a->coord == b->coord && a->epoch == b->epoch &&
	       a->seq == b->seq;
}

/* ---- commands ------------------------------------------------------- */

size_t kv_cmd_size(const struct kv_write *w, unsigned int nw)
{
	size_t n = sizeof(struct kv_cmd_hdr);
	unsigned int i;

	if (nw > KV_MAX_WRITES || (nw && !w))
		return 0;
	for (i = 0; i < nw; i++) {
		if (w[i].len > TXRDMA_VREC_MAX_CAP || (w[i].len && !w[i].value))
			return 0;
		n += sizeof(struct kv_cmd_write) + KV_PAD(w[i].len);
	}
	return n;
}

size_t kv_cmd_build(void *buf, size_t cap, uint8_t op,
		    const struct txn_id *id, const struct kv_write *w,
		    unsigned int nw)
{
	size_t n = kv_cmd_size(w, nw), off;
	struct kv_cmd_hdr h;
	unsigned int i;

	if (!n || n > cap || n > UINT32_MAX || !buf || !id ||
	    op < KV_OP_PREPARE || op > KV_OP_PUT ||
	    ((op == KV_OP_COMMIT || op == KV_OP_ABORT) ? nw != 0 : nw == 0))
		return 0;
	h = (struct kv_cmd_hdr) {
		.op = op, .nw = htole16((uint16_t)nw),
		.len = htole32((uint32_t)n), .coord = htole32(id->coord),
		.epoch = htole32(id->epoch), .seq = htole64(id->seq),
	};
	memcpy(buf, &h, sizeof(h));
	off = sizeof(h);
	for (i = 0; i < nw; i++) {
		struct kv_cmd_write cw = {
			.index = htole32(w[i].index), .len = htole32(w[i].len),
			.expect = htole64(w[i].expect),
		};

		memcpy((char *)buf + off, &cw, sizeof(cw));
		off += sizeof(cw);
		if (w[i].len)
			memcpy((char *)buf + off, w[i].value, w[i].len);
		memset((char *)buf + off + w[i].len, 0,
		       KV_PAD(w[i].len) - w[i].len);
		off += KV_PAD(w[i].len);
	}
	return n;
}

/* the write at byte @off of a command, host-endian */
static void write_at_off(const void *cmd, size_t off, struct kv_cmd_write *w)
{
	memcpy(w, (const char *)cmd + off, sizeof(*w));
	w->index = le32toh(w->index);
	w->len = le32toh(w->len);
	w->expect = le64toh(w->expect);
}

int kv_cmd_check(const void *cmd, size_t len, uint32_t nrec, uint32_t cap,
		 struct kv_cmd_hdr *hp)
{
	struct kv_cmd_hdr h;
	size_t off = sizeof(h);
	unsigned int i, j;

	if (!cmd || len < sizeof(h))
		return -EINVAL;
	memcpy(&h, cmd, sizeof(h));
	h.nw = le16toh(h.nw);
	h.len = le32toh(h.len);
	h.coord = le32toh(h.coord);
	h.epoch = le32toh(h.epoch);
	h.seq = le64toh(h.seq);
	if (h.resv || h.len != len || h.op < KV_OP_PREPARE ||
	    h.op > KV_OP_PUT || h.nw > KV_MAX_WRITES)
		return -EINVAL;
	if ((h.op == KV_OP_COMMIT || h.op == KV_OP_ABORT) ? h.nw : !h.nw)
		return -EINVAL;
	for (i = 0; i < h.nw; i++) {
		struct kv_cmd_write w;
		size_t o2 = sizeof(h);

		if (len - off < sizeof(w))
			return -EINVAL;
		write_at_off(cmd, off, &w);
		off += sizeof(w);
		if (w.index >= nrec || w.len > cap ||
		    len - off < KV_PAD(w.len))
			return -EINVAL;
		/* the padding is zero: one value has one encoding */
		for (j = w.len; j < KV_PAD(w.len); j++)
			if (((const char *)cmd)[off + j])
				return -EINVAL;
		off += KV_PAD(w.len);
		/* a record once per command: locks are per transaction */
		for (j = 0; j < i; j++) {
			struct kv_cmd_write o;

			write_at_off(cmd, o2, &o);
			if (o.index == w.index)
				return -EINVAL;
			o2 += sizeof(o) + KV_PAD(o.len);
		}
	}
	if (off != len)
		return -EINVAL;
	if (hp)
		*hp = h;
	return 0;
}

void kv_cmd_write_at(const void *cmd, unsigned int i, struct kv_cmd_write *w,
		     const void **value)
{
	size_t off = sizeof(struct kv_cmd_hdr);

	for (;;) {
		write_at_off(cmd, off, w);
		off += sizeof(*w);
		if (!i--)
			break;
		off += KV_PAD(w->len);
	}
	*value = (const char *)cmd + off;
}

/* ---- the shard ------------------------------------------------------ */

int kv_shard_new(struct kv_shard **sp, void *table, size_t size, uint32_t cap,
		 uint32_t nrec, uint32_t max_prep)
{
	struct kv_shard *s;

	if (!sp || !table || !max_prep || max_prep > (1U << 20) ||
	    txn_vrec_table_init(table, size, cap, nrec))
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->lock = calloc(nrec, sizeof(*s->lock));
	s->prep = calloc(max_prep, sizeof(*s->prep));
	if (!s->lock || !s->prep) {
		free(s->lock);
		free(s->prep);
		free(s);
		return -ENOMEM;
	}
	s->table = table;
	s->size = size;
	s->cap = cap;
	s->nrec = nrec;
	s->max_prep = max_prep;
	*sp = s;
	return 0;
}

static void prep_clear(struct kv_shard *s)
{
	uint32_t i;

	for (i = 0; i < s->max_prep; i++) {
		free(s->prep[i].cmd);
		s->prep[i] = (struct kv_prep){ 0 };
	}
	memset(s->lock, 0, s->nrec * sizeof(*s->lock));
	s->nprep = 0;
}

void kv_shard_free(struct kv_shard *s)
{
	if (!s)
		return;
	prep_clear(s);
	free(s->lock);
	free(s->prep);
	free(s);
}

static void *slot_of(const struct kv_shard *s, uint32_t index)
{
	return txn_vrec_table_slot(s->table, index);
}

static struct kv_prep *prep_find(const struct kv_shard *s,
				 const struct txn_id *id)
{
	uint32_t i;

	for (i = 0; i < s->max_prep; i++)
		if (s->prep[i].used && id_eq(&s->prep[i].id, id))
			return &s->prep[i];
	return NULL;
}

static bool recent_find(const struct kv_shard *s, const struct txn_id *id)
{
	uint32_t i;

	for (i = 0; i < s->recent_n; i++)
		if (id_eq(&s->recent[i].id, id))
			return true;
	return false;
}

static void recent_add(struct kv_shard *s, const struct txn_id *id,
		       uint8_t decision)
{
	s->recent[s->recent_next] = (struct kv_recent){ *id, decision };
	s->recent_next = (s->recent_next + 1) % KV_RECENT;
	if (s->recent_n < KV_RECENT)
		s->recent_n++;
}

/* may the writes of @cmd go ahead: KV_YES or why not (a lock first) */
static int writes_ok(const struct kv_shard *s, const void *cmd,
		     const struct kv_cmd_hdr *h)
{
	int res = KV_YES;
	unsigned int i;

	for (i = 0; i < h->nw; i++) {
		struct kv_cmd_write w;
		const void *v;

		kv_cmd_write_at(cmd, i, &w, &v);
		if (s->lock[w.index])
			return KV_NO_LOCKED;
		if (w.expect &&
		    txn_vrec_version(slot_of(s, w.index)) != w.expect)
			res = KV_NO_STALE;
	}
	return res;
}

/* every write of @cmd (checked) into the table, as one change */
static void writes_apply(struct kv_shard *s, const void *cmd,
			 const struct kv_cmd_hdr *h)
{
	unsigned int i;

	for (i = 0; i < h->nw; i++) {
		struct kv_cmd_write w;
		const void *v;

		kv_cmd_write_at(cmd, i, &w, &v);
		/* cannot fail: checked slot, even version (we are its writer) */
		(void)txn_vrec_begin(slot_of(s, w.index), s->cap);
	}
	for (i = 0; i < h->nw; i++) {
		struct kv_cmd_write w;
		const void *v;

		kv_cmd_write_at(cmd, i, &w, &v);
		(void)txn_vrec_commit(slot_of(s, w.index), s->cap, v, w.len);
	}
	s->st.writes += h->nw;
}

/* lock the records of @cmd for prepared slot @p */
static void prep_lock(struct kv_shard *s, struct kv_prep *p, uint32_t set)
{
	struct kv_cmd_hdr h;
	unsigned int i;

	memcpy(&h, p->cmd, sizeof(h));
	for (i = 0; i < le16toh(h.nw); i++) {
		struct kv_cmd_write w;
		const void *v;

		kv_cmd_write_at(p->cmd, i, &w, &v);
		s->lock[w.index] = set;
	}
}

static struct kv_prep *prep_add(struct kv_shard *s, const struct txn_id *id,
				const void *cmd, size_t len)
{
	struct kv_prep *p = NULL;
	uint32_t i;

	for (i = 0; i < s->max_prep; i++) {
		if (!s->prep[i].used) {
			p = &s->prep[i];
			break;
		}
	}
	if (!p)
		return NULL;
	p->cmd = xmalloc(len);
	memcpy(p->cmd, cmd, len);
	p->len = (uint32_t)len;
	p->id = *id;
	p->order = s->order++;
	p->used = true;
	s->nprep++;
	prep_lock(s, p, (uint32_t)(p - s->prep) + 1);
	return p;
}

static void prep_drop(struct kv_shard *s, struct kv_prep *p)
{
	prep_lock(s, p, 0);
	free(p->cmd);
	*p = (struct kv_prep){ 0 };
	s->nprep--;
}

static int apply(struct kv_shard *s, const void *cmd, size_t len)
{
	struct kv_cmd_hdr h;
	struct txn_id id;
	struct kv_prep *p;
	int res;

	if (kv_cmd_check(cmd, len, s->nrec, s->cap, &h))
		return KV_MALFORMED;
	id = (struct txn_id){ h.coord, h.epoch, h.seq };
	switch (h.op) {
	case KV_OP_PREPARE:
		if (prep_find(s, &id))
			return KV_YES;		/* a retry: the same vote */
		if (recent_find(s, &id))
			return KV_NO_DECIDED;
		res = writes_ok(s, cmd, &h);
		if (res != KV_YES)
			return res;
		if (s->nprep == s->max_prep)
			return KV_NO_FULL;
		prep_add(s, &id, cmd, len);
		return KV_YES;
	case KV_OP_PUT:
		res = writes_ok(s, cmd, &h);
		if (res == KV_YES)
			writes_apply(s, cmd, &h);
		return res;
	case KV_OP_COMMIT:
		p = prep_find(s, &id);
		if (!p)
			return KV_UNKNOWN;
		memcpy(&h, p->cmd, sizeof(h));
		h.nw = le16toh(h.nw);
		writes_apply(s, p->cmd, &h);
		prep_drop(s, p);
		recent_add(s, &id, KV_OP_COMMIT);
		return KV_YES;
	default:	/* KV_OP_ABORT */
		p = prep_find(s, &id);
		if (p)
			prep_drop(s, p);
		/* an ABORT that overtook its PREPARE refuses it later */
		if (!recent_find(s, &id))
			recent_add(s, &id, KV_OP_ABORT);
		return p ? KV_YES : KV_UNKNOWN;
	}
}

int kv_shard_apply(struct kv_shard *s, const void *cmd, size_t len)
{
	int res = apply(s, cmd, len);

	s->st.applied++;
	s->st.res[res]++;
	return res;
}

int kv_shard_get(const struct kv_shard *s, uint32_t index, uint64_t *version,
		 const void **value, uint32_t *len)
{
	const unsigned char *slot;
	uint32_t n;

	if (index >= s->nrec)
		return -EINVAL;
	/* between commands every slot is even: the header is the value */
	slot = slot_of(s, index);
	memcpy(&n, slot + 8, sizeof(n));
	*version = txn_vrec_version(slot);
	*len = le32toh(n);
	*value = slot + TXRDMA_VREC_PAYLOAD_OFF;
	return 0;
}

bool kv_shard_locked(const struct kv_shard *s, uint32_t index,
		     struct txn_id *id)
{
	if (index >= s->nrec || !s->lock[index])
		return false;
	if (id)
		*id = s->prep[s->lock[index] - 1].id;
	return true;
}

static int order_cmp(const void *a, const void *b)
{
	const struct kv_prep *x = *(struct kv_prep *const *)a;
	const struct kv_prep *y = *(struct kv_prep *const *)b;

	return x->order < y->order ? -1 : x->order > y->order;
}

/* the prepared slots in prepare order: a malloc'd array of nprep */
static struct kv_prep **prep_sorted(const struct kv_shard *s)
{
	struct kv_prep **v = malloc((s->nprep ? s->nprep : 1) * sizeof(*v));
	uint32_t i, n = 0;

	if (!v)
		return NULL;
	for (i = 0; i < s->max_prep; i++)
		if (s->prep[i].used)
			v[n++] = &s->prep[i];
	qsort(v, n, sizeof(*v), order_cmp);
	return v;
}

unsigned int kv_shard_prepared(const struct kv_shard *s,
			       void (*fn)(void *ctx, const struct txn_id *id),
			       void *ctx)
{
	struct kv_prep **v;
	uint32_t i;

	if (!fn)
		return s->nprep;
	v = prep_sorted(s);
	if (!v) {
		/* no memory to sort: the same set, in slot order */
		for (i = 0; i < s->max_prep; i++)
			if (s->prep[i].used)
				fn(ctx, &s->prep[i].id);
		return s->nprep;
	}
	for (i = 0; i < s->nprep; i++)
		fn(ctx, &v[i]->id);
	free(v);
	return s->nprep;
}

/* ---- snapshots ------------------------------------------------------ */

int kv_shard_snapshot(const struct kv_shard *s, void **bufp, size_t *lenp)
{
	size_t tsize = txn_vrec_table_size(s->cap, s->nrec);
	size_t n = sizeof(struct kv_snap_hdr) + tsize, off;
	struct kv_snap_hdr h = {
		.magic = htole32(KV_SNAP_MAGIC),
		.version = htole32(KV_SNAP_VERSION),
		.cap = htole32(s->cap), .nrec = htole32(s->nrec),
		.nprep = htole32(s->nprep), .nrecent = htole32(s->recent_n),
		.table_size = htole64(tsize),
	};
	struct kv_prep **v;
	char *buf;
	uint32_t i;

	v = prep_sorted(s);
	if (!v)
		return -ENOMEM;
	for (i = 0; i < s->nprep; i++)
		n += 8 + KV_PAD(v[i]->len);
	n += (size_t)s->recent_n * sizeof(struct kv_snap_recent);
	buf = malloc(n);
	if (!buf) {
		free(v);
		return -ENOMEM;
	}
	memcpy(buf, &h, sizeof(h));
	off = sizeof(h);
	memcpy(buf + off, s->table, tsize);
	off += tsize;
	for (i = 0; i < s->nprep; i++) {
		uint32_t le[2] = { htole32(v[i]->len), 0 };

		memcpy(buf + off, le, sizeof(le));
		off += sizeof(le);
		memcpy(buf + off, v[i]->cmd, v[i]->len);
		memset(buf + off + v[i]->len, 0,
		       KV_PAD(v[i]->len) - v[i]->len);
		off += KV_PAD(v[i]->len);
	}
	/* oldest first, so that a restore refills the ring in order */
	for (i = 0; i < s->recent_n; i++) {
		const struct kv_recent *r =
			&s->recent[(s->recent_next + KV_RECENT - s->recent_n +
				    i) % KV_RECENT];
		struct kv_snap_recent sr = {
			.coord = htole32(r->id.coord),
			.epoch = htole32(r->id.epoch),
			.seq = htole64(r->id.seq), .decision = r->decision,
		};

		memcpy(buf + off, &sr, sizeof(sr));
		off += sizeof(sr);
	}
	free(v);
	*bufp = buf;
	*lenp = n;
	return 0;
}

/* every slot of a table copy holds a committed value */
static bool table_ok(const void *t, size_t size, uint32_t cap, uint32_t nrec)
{
	uint32_t c, n, i;

	if (size != txn_vrec_table_size(cap, nrec) ||
	    txn_vrec_table_check(t, &c, &n) || c != cap || n != nrec)
		return false;
	for (i = 0; i < nrec; i++) {
		struct txn_vrec_view view;

		if (txn_vrec_check((const char *)t +
				   TXRDMA_VREC_TABLE_SLOT_OFF(cap, i), cap,
				   &view))
			return false;
	}
	return true;
}

int kv_shard_restore(struct kv_shard *s, const void *buf, size_t len)
{
	const char *b = buf;
	struct kv_snap_hdr h;
	size_t off, tsize, poff;
	struct txn_id *ids = NULL;
	uint32_t *seen = NULL;
	uint32_t i, k;
	int ret = -EINVAL;

	if (!buf || len < sizeof(h))
		return -EINVAL;
	memcpy(&h, buf, sizeof(h));
	tsize = txn_vrec_table_size(s->cap, s->nrec);
	if (le32toh(h.magic) != KV_SNAP_MAGIC ||
	    le32toh(h.version) != KV_SNAP_VERSION ||
	    le32toh(h.cap) != s->cap || le32toh(h.nrec) != s->nrec ||
	    le64toh(h.table_size) != tsize ||
	    le32toh(h.nprep) > s->max_prep ||
	    le32toh(h.nrecent) > KV_RECENT ||
	    len - sizeof(h) < tsize)
		return -EINVAL;
	off = sizeof(h);
	if (!table_ok(b + off, tsize, s->cap, s->nrec))
		return -EINVAL;
	off += tsize;
	/*
	 * The prepared commands: well formed, PREPAREs, no shared record,
	 * no id twice or also among the decisions (states no shard reaches)
	 */
	seen = calloc(s->nrec, sizeof(*seen));
	ids = calloc(le32toh(h.nprep) + 1, sizeof(*ids));
	if (!seen || !ids) {
		free(seen);
		free(ids);
		return -ENOMEM;
	}
	poff = off;
	for (i = 0; i < le32toh(h.nprep); i++) {
		struct kv_cmd_hdr ch;
		uint32_t le[2];

		if (len - off < sizeof(le))
			goto out;
		memcpy(le, b + off, sizeof(le));
		off += sizeof(le);
		le[0] = le32toh(le[0]);
		if (le[1] || len - off < KV_PAD(le[0]) ||
		    kv_cmd_check(b + off, le[0], s->nrec, s->cap, &ch) ||
		    ch.op != KV_OP_PREPARE)
			goto out;
		ids[i] = (struct txn_id){ ch.coord, ch.epoch, ch.seq };
		for (k = 0; k < i; k++)
			if (id_eq(&ids[k], &ids[i]))
				goto out;
		for (k = 0; k < ch.nw; k++) {
			struct kv_cmd_write w;
			const void *v;

			kv_cmd_write_at(b + off, k, &w, &v);
			if (seen[w.index])
				goto out;
			seen[w.index] = i + 1;
		}
		off += KV_PAD(le[0]);
	}
	if (len - off != le32toh(h.nrecent) * sizeof(struct kv_snap_recent))
		goto out;
	for (i = 0; i < le32toh(h.nrecent); i++) {
		struct kv_snap_recent sr;

		memcpy(&sr, b + off + i * sizeof(sr), sizeof(sr));
		if ((sr.decision != KV_OP_COMMIT &&
		     sr.decision != KV_OP_ABORT) ||
		    !all_zero(sr.resv, sizeof(sr.resv)))
			goto out;
		for (k = 0; k < le32toh(h.nprep); k++)
			if (id_eq(&ids[k], &(struct txn_id){
					le32toh(sr.coord), le32toh(sr.epoch),
					le64toh(sr.seq) }))
				goto out;
	}

	/* valid: replace the state */
	ret = 0;
	prep_clear(s);
	memcpy(s->table, b + sizeof(h), tsize);
	s->order = 0;
	off = poff;
	for (i = 0; i < le32toh(h.nprep); i++) {
		struct kv_cmd_hdr ch;
		uint32_t le[2];

		memcpy(le, b + off, sizeof(le));
		off += sizeof(le);
		le[0] = le32toh(le[0]);
		(void)kv_cmd_check(b + off, le[0], s->nrec, s->cap, &ch);
		prep_add(s, &(struct txn_id){ ch.coord, ch.epoch, ch.seq },
			 b + off, le[0]);
		off += KV_PAD(le[0]);
	}
	s->recent_n = 0;
	s->recent_next = 0;
	for (i = 0; i < le32toh(h.nrecent); i++) {
		struct kv_snap_recent sr;

		memcpy(&sr, b + off, sizeof(sr));
		off += sizeof(sr);
		recent_add(s, &(struct txn_id){ le32toh(sr.coord),
						le32toh(sr.epoch),
						le64toh(sr.seq) },
			   sr.decision);
	}
out:
	free(seen);
	free(ids);
	return ret;
}

void kv_shard_stats(const struct kv_shard *s, struct kv_shard_stats *st)
{
	*st = s->st;
}
