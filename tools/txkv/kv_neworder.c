// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * txkv's new-order workload as pure logic: see kv_neworder.h.  Records
 * are fixed little-endian layouts, each with a kind tag, so that a
 * record read from the wrong index is refused rather than misread.
 */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kv_neworder.h"

#define TAG_DISTRICT	0x44u	/* 'D' */
#define TAG_ITEM	0x49u	/* 'I' */
#define TAG_STOCK	0x53u	/* 'S' */

struct rec_district {
	uint32_t tag;
	uint32_t next_oid;
	uint64_t ytd_cents;
};

struct rec_item {
	uint32_t tag;
	uint32_t price_cents;
};

struct rec_stock {
	uint32_t tag;
	int32_t qty;
	uint64_t ytd;
	uint32_t order_cnt;
	uint32_t resv;
};

_Static_assert(sizeof(struct rec_district) <= KV_NO_CAP, "district");
_Static_assert(sizeof(struct rec_stock) <= KV_NO_CAP, "stock");

static uint32_t per_shard(uint32_t n, uint32_t nshard)
{
	return (n + nshard - 1) / nshard;
}

uint32_t kv_no_nrec(const struct kv_no_cfg *c)
{
	return per_shard(c->ndist, c->nshard) +
	       2 * per_shard(c->nitem, c->nshard);
}

void kv_no_where(const struct kv_no_cfg *c, enum kv_no_kind kind, uint32_t n,
		 uint32_t *shard, uint32_t *index)
{
	uint32_t nd = per_shard(c->ndist, c->nshard);

	/*
	 * An item and its stock side by side: an order reads both, and
	 * adjacent slots leave in one RDMA READ (kv_onesided.c)
	 */
	*shard = n % c->nshard;
	switch (kind) {
	case KV_NO_DISTRICT:
		*index = n / c->nshard;
		break;
	case KV_NO_ITEM:
		*index = nd + 2 * (n / c->nshard);
		break;
	default:
		*index = nd + 2 * (n / c->nshard) + 1;
		break;
	}
}

uint32_t kv_no_put_district(void *buf, const struct kv_no_district *d)
{
	struct rec_district r = {
		.tag = htole32(TAG_DISTRICT), .next_oid = htole32(d->next_oid),
		.ytd_cents = htole64(d->ytd_cents),
	};

	memcpy(buf, &r, sizeof(r));
	return sizeof(r);
}

uint32_t kv_no_put_item(void *buf, const struct kv_no_item *it)
{
	struct rec_item r = {
		.tag = htole32(TAG_ITEM), .price_cents = htole32(it->price_cents),
	};

	memcpy(buf, &r, sizeof(r));
	return sizeof(r);
}

uint32_t kv_no_put_stock(void *buf, const struct kv_no_stock *s)
{
	struct rec_stock r = {
		.tag = htole32(TAG_STOCK), .qty = (int32_t)htole32(s->qty),
		.ytd = htole64(s->ytd), .order_cnt = htole32(s->order_cnt),
	};

	memcpy(buf, &r, sizeof(r));
	return sizeof(r);
}

int kv_no_get_district(const void *v, uint32_t len, struct kv_no_district *d)
{
	struct rec_district r;

	if (len != sizeof(r))
		return -EINVAL;
	memcpy(&r, v, sizeof(r));
	if (le32toh(r.tag) != TAG_DISTRICT)
		return -EINVAL;
	d->next_oid = le32toh(r.next_oid);
	d->ytd_cents = le64toh(r.ytd_cents);
	return 0;
}

int kv_no_get_item(const void *v, uint32_t len, struct kv_no_item *it)
{
	struct rec_item r;

	if (len != sizeof(r))
		return -EINVAL;
	memcpy(&r, v, sizeof(r));
	if (le32toh(r.tag) != TAG_ITEM)
		return -EINVAL;
	it->price_cents = le32toh(r.price_cents);
	return 0;
}

int kv_no_get_stock(const void *v, uint32_t len, struct kv_no_stock *s)
{
	struct rec_stock r;

	if (len != sizeof(r))
		return -EINVAL;
	memcpy(&r, v, sizeof(r));
	if (le32toh(r.tag) != TAG_STOCK || r.resv)
		return -EINVAL;
	s->qty = (int32_t)le32toh((uint32_t)r.qty);
	s->ytd = le64toh(r.ytd);
	s->order_cnt = le32toh(r.order_cnt);
	return 0;
}

/* an item's price: fixed by its number, so a check needs no table */
static uint32_t price_of(uint32_t item)
{
	return 100 + (item * 2654435761u) % 9901;	/* $1.00 .. $100.00 */
}

void kv_no_initial(const struct kv_no_cfg *c, enum kv_no_kind kind,
		   uint32_t n, void *buf, uint32_t *len)
{
	(void)c;
	memset(buf, 0, KV_NO_CAP);
	switch (kind) {
	case KV_NO_DISTRICT:
		*len = kv_no_put_district(buf, &(struct kv_no_district){
			.next_oid = KV_NO_FIRST_OID });
		break;
	case KV_NO_ITEM:
		*len = kv_no_put_item(buf, &(struct kv_no_item){
			.price_cents = price_of(n) });
		break;
	default:
		*len = kv_no_put_stock(buf, &(struct kv_no_stock){
			.qty = KV_NO_STOCK0 });
		break;
	}
}

static uint64_t next(uint64_t *rng)
{
	/* splitmix64: a workload needs spread, not secrecy */
	uint64_t z = (*rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void kv_no_plan(const struct kv_no_cfg *c, uint64_t *rng,
		struct kv_no_plan *p)
{
	unsigned int i, j;

	p->district = (uint32_t)(next(rng) % c->ndist);
	for (i = 0; i < KV_NO_LINES; i++) {
		uint32_t k;

again:
		k = (uint32_t)(next(rng) % c->nitem);
		/* the second line on another shard than the first */
		if (i == 1 && k % c->nshard == p->item[0] % c->nshard)
			goto again;
		for (j = 0; j < i; j++)
			if (p->item[j] == k)
				goto again;
		p->item[i] = k;
		p->qty[i] = 1 + (uint32_t)(next(rng) % 10);
	}
}

unsigned int kv_no_writes(const struct kv_no_cfg *c,
			  const struct kv_no_plan *p,
			  const struct kv_no_seen *seen, uint32_t shard,
			  struct kv_write *w, uint8_t *vals,
			  uint64_t *amount)
{
	unsigned int i, n = 0;
	uint32_t sh, idx;
	uint64_t total = 0;

	for (i = 0; i < KV_NO_LINES; i++)
		total += (uint64_t)seen->item[i].price_cents * p->qty[i];
	*amount = total;
	for (i = 0; i < KV_NO_LINES; i++) {
		struct kv_no_stock s = seen->stock[i];
		uint8_t *v = vals + n * KV_NO_CAP;

		kv_no_where(c, KV_NO_STOCK, p->item[i], &sh, &idx);
		if (sh != shard)
			continue;
		/* TPC-C 2.4.2.2: refill by 91 when it would fall under 10 */
		if (s.qty >= (int32_t)p->qty[i] + 10)
			s.qty -= (int32_t)p->qty[i];
		else
			s.qty = s.qty - (int32_t)p->qty[i] + 91;
		s.ytd += p->qty[i];
		s.order_cnt++;
		w[n] = (struct kv_write){
			.index = idx, .len = kv_no_put_stock(v, &s),
			.expect = seen->stock_ver[i], .value = v,
		};
		n++;
	}
	kv_no_where(c, KV_NO_DISTRICT, p->district, &sh, &idx);
	if (sh == shard) {
		struct kv_no_district d = seen->dist;
		uint8_t *v = vals + n * KV_NO_CAP;

		d.next_oid++;
		d.ytd_cents += total;
		w[n] = (struct kv_write){
			.index = idx, .len = kv_no_put_district(v, &d),
			.expect = seen->dist_ver, .value = v,
		};
		n++;
	}
	return n;
}

int kv_no_tally_init(struct kv_no_tally *t, const struct kv_no_cfg *c)
{
	memset(t, 0, sizeof(*t));
	if (c->nshard < 2 || !c->ndist || c->nitem < 2 * KV_NO_LINES)
		return -EINVAL;
	t->cfg = *c;
	t->dist_orders = calloc(c->ndist, sizeof(*t->dist_orders));
	t->item_qty = calloc(c->nitem, sizeof(*t->item_qty));
	if (!t->dist_orders || !t->item_qty) {
		kv_no_tally_free(t);
		return -ENOMEM;
	}
	return 0;
}

void kv_no_tally_free(struct kv_no_tally *t)
{
	free(t->dist_orders);
	free(t->item_qty);
	t->dist_orders = NULL;
	t->item_qty = NULL;
}

void kv_no_tally_commit(struct kv_no_tally *t, const struct kv_no_plan *p)
{
	unsigned int i;

	t->dist_orders[p->district]++;
	for (i = 0; i < KV_NO_LINES; i++)
		t->item_qty[p->item[i]] += p->qty[i];
	t->committed++;
}

bool kv_no_check(const struct kv_no_tally *t, enum kv_no_kind kind,
		 uint32_t n, const void *v, uint32_t len, char *why,
		 size_t cap)
{
	struct kv_no_district d;
	struct kv_no_stock s;
	struct kv_no_item it;

	switch (kind) {
	case KV_NO_DISTRICT:
		if (kv_no_get_district(v, len, &d)) {
			snprintf(why, cap, "district %u: not a district", n);
			return false;
		}
		if (d.next_oid - KV_NO_FIRST_OID != t->dist_orders[n]) {
			snprintf(why, cap,
				 "district %u: %u orders applied, %llu committed",
				 n, d.next_oid - KV_NO_FIRST_OID,
				 (unsigned long long)t->dist_orders[n]);
			return false;
		}
		return true;
	case KV_NO_ITEM:
		if (kv_no_get_item(v, len, &it) ||
		    it.price_cents != price_of(n)) {
			snprintf(why, cap, "item %u: not its record", n);
			return false;
		}
		return true;
	default:
		if (kv_no_get_stock(v, len, &s)) {
			snprintf(why, cap, "stock %u: not a stock", n);
			return false;
		}
		/* qty = 100 - ytd + 91 * refills, 10 <= qty <= 100 */
		if (s.ytd != t->item_qty[n] ||
		    (int64_t)s.qty < 10 || s.qty > KV_NO_STOCK0 ||
		    ((int64_t)KV_NO_STOCK0 - (int64_t)s.ytd - s.qty) % 91) {
			snprintf(why, cap,
				 "stock %u: ytd %llu qty %d, %llu committed",
				 n, (unsigned long long)s.ytd, s.qty,
				 (unsigned long long)t->item_qty[n]);
			return false;
		}
		return true;
	}
}

unsigned int kv_no_check_shards(const struct kv_no_tally *t,
				const struct kv_shard *const *s, char *why,
				size_t cap)
{
	const struct kv_no_cfg *c = &t->cfg;
	unsigned int k, bad = 0;
	char one[160];

	for (k = KV_NO_DISTRICT; k <= KV_NO_STOCK; k++) {
		uint32_t count = k == KV_NO_DISTRICT ? c->ndist : c->nitem;
		uint32_t num, sh, idx, len;
		const void *v;
		uint64_t ver;

		for (num = 0; num < count; num++) {
			kv_no_where(c, k, num, &sh, &idx);
			if (kv_shard_get(s[sh], idx, &ver, &v, &len)) {
				snprintf(one, sizeof(one),
					 "shard %u record %u: not there", sh,
					 idx);
			} else if (kv_no_check(t, k, num, v, len, one,
					       sizeof(one))) {
				continue;
			}
			if (!bad++)
				snprintf(why, cap, "%s", one);
		}
	}
	return bad;
}

unsigned int kv_no_hist_writes(const struct kv_no_cfg *c,
			       const struct kv_no_plan *p,
			       const struct kv_no_seen *seen,
			       struct kv_hist_write *w)
{
	uint32_t sh, idx;
	unsigned int i;

	for (i = 0; i < KV_NO_LINES; i++) {
		kv_no_where(c, KV_NO_STOCK, p->item[i], &sh, &idx);
		w[i] = (struct kv_hist_write){ sh, idx, seen->stock_ver[i] };
	}
	kv_no_where(c, KV_NO_DISTRICT, p->district, &sh, &idx);
	w[i] = (struct kv_hist_write){ sh, idx, seen->dist_ver };
	return KV_NO_LINES + 1;
}
