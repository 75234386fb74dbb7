// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * txkv's history checker: see kv_history.h for what it checks and why
 * that is strict serializability for txkv's optimistic transactions.
 * Cost: a sort of the writes, then linear passes (a topological sort
 * over one precedence edge per write), so a run's whole history (tens
 * of thousands of transactions) checks in milliseconds.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kv_history.h"

struct hist_txn {
	uint64_t start, end;
};

struct hist_write {
	uint32_t shard, index;
	uint64_t from;
	uint32_t txn;
};

struct kv_history {
	struct hist_txn *t;
	size_t nt, capt;
	struct hist_write *w;
	size_t nw, capw;
};

int kv_hist_new(struct kv_history **hp)
{
	*hp = calloc(1, sizeof(**hp));
	return *hp ? 0 : -ENOMEM;
}

void kv_hist_free(struct kv_history *h)
{
	if (!h)
		return;
	free(h->t);
	free(h->w);
	free(h);
}

size_t kv_hist_count(const struct kv_history *h)
{
	return h->nt;
}

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 1024;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	q = realloc(*p, n * size);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = n;
	return 0;
}

int kv_hist_add(struct kv_history *h, uint64_t start, uint64_t end,
		const struct kv_hist_write *w, unsigned int nw)
{
	unsigned int i;

	if (!nw || !w || end < start || h->nt >= UINT32_MAX)
		return -EINVAL;
	if (grow((void **)&h->t, &h->capt, h->nt + 1, sizeof(*h->t)) ||
	    grow((void **)&h->w, &h->capw, h->nw + nw, sizeof(*h->w)))
		return -ENOMEM;
	for (i = 0; i < nw; i++)
		h->w[h->nw + i] = (struct hist_write){
			w[i].shard, w[i].index, w[i].from, (uint32_t)h->nt };
	h->nw += nw;
	h->t[h->nt++] = (struct hist_txn){ start, end };
	return 0;
}

static int cmp_write(const void *a, const void *b)
{
	const struct hist_write *x = a, *y = b;

	if (x->shard != y->shard)
		return x->shard < y->shard ? -1 : 1;
	if (x->index != y->index)
		return x->index < y->index ? -1 : 1;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return x->txn < y->txn ? -1 : x->txn > y->txn;
}

int kv_hist_check(struct kv_history *h,
		  uint64_t (*first)(void *ctx, uint32_t shard, uint32_t index),
		  uint64_t (*final)(void *ctx, uint32_t shard, uint32_t index),
		  void *ctx, char *why, size_t cap)
{
	uint32_t *indeg = NULL, *head = NULL, *next = NULL, *to = NULL;
	uint32_t *queue = NULL;
	uint64_t *pred_start = NULL;
	size_t i, j, nedge = 0, qh = 0, qt = 0;
	int ret = -ENOMEM;

	snprintf(why, cap, "strictly serializable");
	qsort(h->w, h->nw, sizeof(*h->w), cmp_write);
	indeg = calloc(h->nt + 1, sizeof(*indeg));
	head = malloc((h->nt + 1) * sizeof(*head));
	next = malloc((h->nw + 1) * sizeof(*next));
	to = malloc((h->nw + 1) * sizeof(*to));
	queue = malloc((h->nt + 1) * sizeof(*queue));
	pred_start = calloc(h->nt + 1, sizeof(*pred_start));
	if (!indeg || !head || !next || !to || !queue || !pred_start)
		goto out;
	memset(head, 0xff, (h->nt + 1) * sizeof(*head));

	/* 1: one chain per record, from its first version to its last */
	ret = -EPROTO;
	for (i = 0; i < h->nw; i = j) {
		const struct hist_write *r = &h->w[i];
		uint64_t v = first(ctx, r->shard, r->index), last;

		for (j = i; j < h->nw && h->w[j].shard == r->shard &&
		     h->w[j].index == r->index; j++) {
			const struct hist_write *x = &h->w[j];

			if (x->from != v) {
				snprintf(why, cap, x->from < v ?
					 "shard %u record %u: version %llu written by two commits (transactions %u and %u): a lost update" :
					 "shard %u record %u: version %llu was never committed, yet transaction %u wrote over it",
					 r->shard, r->index,
					 (unsigned long long)x->from,
					 j > i ? h->w[j - 1].txn : x->txn,
					 x->txn);
				goto out;
			}
			v += 2;
			/* 2: the one before precedes this one */
			if (j > i) {
				to[nedge] = x->txn;
				next[nedge] = head[h->w[j - 1].txn];
				head[h->w[j - 1].txn] = (uint32_t)nedge++;
				indeg[x->txn]++;
			}
		}
		last = final(ctx, r->shard, r->index);
		if (last != v) {
			snprintf(why, cap,
				 "shard %u record %u: the replica holds version %llu, the committed writes end at %llu",
				 r->shard, r->index, (unsigned long long)last,
				 (unsigned long long)v);
			goto out;
		}
	}

	/* 2 and 3: a serial order (Kahn), consistent with real time */
	for (i = 0; i < h->nt; i++)
		if (!indeg[i])
			queue[qt++] = (uint32_t)i;
	while (qh < qt) {
		uint32_t a = queue[qh++], e;
		uint64_t reach = h->t[a].start > pred_start[a] ?
				 h->t[a].start : pred_start[a];

		for (e = head[a]; e != UINT32_MAX; e = next[e]) {
			uint32_t b = to[e];

			/* b comes after a (and a's predecessors) */
			if (pred_start[b] < reach)
				pred_start[b] = reach;
			if (!--indeg[b])
				queue[qt++] = b;
		}
		if (h->t[a].end < pred_start[a]) {
			snprintf(why, cap,
				 "transaction %u ended before one that must precede it began: not in real-time order",
				 a);
			goto out;
		}
	}
	if (qt != h->nt) {
		snprintf(why, cap,
			 "%zu transactions in a cycle of precedence: no serial order",
			 h->nt - qt);
		goto out;
	}
	ret = 0;
out:
	if (ret == -ENOMEM)
		snprintf(why, cap, "out of memory");
	free(indeg);
	free(head);
	free(next);
	free(to);
	free(queue);
	free(pred_start);
	return ret;
}
