// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The table of transactions in flight that the coordinator and the
 * participant (txn_coord.c, txn_part.c) both keep: see txn_sm.h.
 *
 * Lookups by id go through a chained hash whose chains run through the
 * slots themselves (no node to allocate); ids of one coordinator
 * incarnation differ in their sequence numbers only, so the hash
 * multiplies and folds them until every bit of the id reaches the
 * bucket index.  There are at least as many buckets as slots.
 *
 * Timers: a machine arms a slot with "now + this queue's timeout", and
 * time never goes back (txn_tab_clock()), so appending to the tail
 * keeps a queue sorted: arm, disarm and the next due slot are O(1), and
 * the machines' tick() costs what fires, not what is in flight.  Should
 * a deadline ever come out earlier than its queue's tail (a caller that
 * mixes timeouts on one queue), it is raised to the tail's: a timer
 * fires late, never early, and the queue stays sorted.
 *
 * Free slots: the lowest free one is taken (a bitmap, a word at a
 * time).  A LIFO free list would be as fast, but then which slot a
 * transaction gets, and so the order of a scan over the table, would
 * depend on the history of frees; with the lowest, a machine's
 * behaviour is a function of what it holds, which is what lets the
 * model checker (tests/test_txn_model.c) merge equal states.
 */
#include <string.h>

#include "txn_sm.h"

static uint32_t nbuckets(uint32_t cap)
{
	uint32_t n = 1;

	while (n < cap)
		n <<= 1;
	return n;
}

static size_t align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

size_t txn_tab_memsize(uint32_t cap)
{
	return align8((size_t)cap * sizeof(struct txn_slot)) +
	       align8((size_t)nbuckets(cap) * sizeof(uint32_t)) +
	       ((size_t)cap + 63) / 64 * sizeof(uint64_t);
}

/* @mem: txn_tab_memsize(@cap) bytes, 8-byte aligned; @cap at least 1 */
void txn_tab_init(struct txn_tab *t, uint32_t cap, void *mem)
{
	uint8_t *p = mem;
	uint32_t i, nb = nbuckets(cap), words = (cap + 63) / 64;

	*t = (struct txn_tab) { .cap = cap, .mask = nb - 1 };
	t->s = (struct txn_slot *)p;
	p += align8((size_t)cap * sizeof(struct txn_slot));
	t->bucket = (uint32_t *)p;
	p += align8((size_t)nb * sizeof(uint32_t));
	t->free = (uint64_t *)p;
	memset(t->s, 0, (size_t)cap * sizeof(struct txn_slot));
	for (i = 0; i < nb; i++)
		t->bucket[i] = TXN_NIL;
	for (i = 0; i < words; i++)
		t->free[i] = ~0ULL;
	if (cap % 64)
		t->free[words - 1] = (1ULL << (cap % 64)) - 1;
	for (i = 0; i < TXN_TAB_QUEUES; i++)
		t->first[i] = t->last[i] = TXN_NIL;
}

void txn_tab_clock(struct txn_tab *t, uint64_t now)
{
	if (now > t->now)
		t->now = now;
}

static uint32_t hash(const struct txn_tab *t, const struct txn_id *id)
{
	uint64_t h = id->seq * 0x9e3779b97f4a7c15ULL;

	h ^= ((uint64_t)id->epoch << 32 | id->coord) * 0xc2b2ae3d27d4eb4fULL;
	h ^= h >> 31;
	h *= 0x94d049bb133111ebULL;
	h ^= h >> 29;
	return (uint32_t)h & t->mask;
}

static int id_eq(const struct txn_id *a, const struct txn_id *b)
{
	return a->seq == b->seq && a->epoch == b->epoch &&
	       a->coord == b->coord;
}

uint32_t txn_tab_find(const struct txn_tab *t, const struct txn_id *id)
{
	uint32_t i;

	for (i = t->bucket[hash(t, id)]; i != TXN_NIL; i = t->s[i].hnext)
		if (id_eq(&t->s[i].id, id))
			return i;
	return TXN_NIL;
}

/* Take a slot for @id (not held yet): its index, TXN_NIL when full. */
uint32_t txn_tab_add(struct txn_tab *t, const struct txn_id *id)
{
	uint32_t w, i, b;

	if (t->used == t->cap)
		return TXN_NIL;
	for (w = 0; !t->free[w]; w++)
		;
	i = w * 64 + (uint32_t)__builtin_ctzll(t->free[w]);
	t->free[w] &= ~(1ULL << (i % 64));
	b = hash(t, id);
	t->s[i] = (struct txn_slot) {
		.id	= *id,
		.hnext	= t->bucket[b],
		.tprev	= TXN_NIL,
		.tnext	= TXN_NIL,
		.used	= 1,
	};
	t->bucket[b] = i;
	t->used++;
	return i;
}

void txn_tab_del(struct txn_tab *t, uint32_t i)
{
	uint32_t *at = &t->bucket[hash(t, &t->s[i].id)];

	txn_tab_disarm(t, i);
	while (*at != i)
		at = &t->s[*at].hnext;
	*at = t->s[i].hnext;
	t->s[i].used = 0;
	t->free[i / 64] |= 1ULL << (i % 64);
	t->used--;
}

/* (Re)arm slot @i on queue @q to fire @timeout after the latest now. */
void txn_tab_arm(struct txn_tab *t, uint32_t i, unsigned int q,
		 uint64_t timeout)
{
	struct txn_slot *s = &t->s[i];
	uint64_t when = t->now + timeout;

	txn_tab_disarm(t, i);
	if (when < t->now || when == TXN_NEVER)
		when = TXN_NEVER - 1;
	if (t->last[q] != TXN_NIL && when < t->s[t->last[q]].when)
		when = t->s[t->last[q]].when;
	s->when = when;
	s->q = (uint8_t)(q + 1);
	s->tprev = t->last[q];
	s->tnext = TXN_NIL;
	if (t->last[q] != TXN_NIL)
		t->s[t->last[q]].tnext = i;
	else
		t->first[q] = i;
	t->last[q] = i;
}

void txn_tab_disarm(struct txn_tab *t, uint32_t i)
{
	struct txn_slot *s = &t->s[i];
	unsigned int q;

	if (!s->q)
		return;
	q = s->q - 1u;
	if (s->tprev != TXN_NIL)
		t->s[s->tprev].tnext = s->tnext;
	else
		t->first[q] = s->tnext;
	if (s->tnext != TXN_NIL)
		t->s[s->tnext].tprev = s->tprev;
	else
		t->last[q] = s->tprev;
	s->q = 0;
	s->tprev = s->tnext = TXN_NIL;
}

/* the queue whose head fires first (ties: the lower queue), or -1 */
static int head_queue(const struct txn_tab *t, const uint32_t *at)
{
	int q, best = -1;

	for (q = 0; q < TXN_TAB_QUEUES; q++)
		if (at[q] != TXN_NIL &&
		    (best < 0 || t->s[at[q]].when < t->s[at[best]].when))
			best = q;
	return best;
}

/* The armed slot that fires first if its deadline has come, else NIL. */
uint32_t txn_tab_due(const struct txn_tab *t)
{
	int q = head_queue(t, t->first);

	if (q < 0 || t->s[t->first[q]].when > t->now)
		return TXN_NIL;
	return t->first[q];
}

uint64_t txn_tab_next(const struct txn_tab *t)
{
	int q = head_queue(t, t->first);

	return q < 0 ? TXN_NEVER : t->s[t->first[q]].when;
}

void txn_tab_iter_init(const struct txn_tab *t, struct txn_tab_iter *it)
{
	memcpy(it->at, t->first, sizeof(it->at));
}

/* the next armed slot in firing order (txn_tab_due()'s), or NIL */
uint32_t txn_tab_iter_next(const struct txn_tab *t, struct txn_tab_iter *it)
{
	int q = head_queue(t, it->at);
	uint32_t i;

	if (q < 0)
		return TXN_NIL;
	i = it->at[q];
	it->at[q] = t->s[i].tnext;
	return i;
}
