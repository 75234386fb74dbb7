/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * txkv's workload: a TPC-C new-order-like transaction over sharded
 * records, as pure logic (the plan, the records, the writes, the
 * tally), so that the database process only moves bytes and the host
 * tests can run it against kv_shard directly.
 *
 * Schema (each a versioned record of KV_NO_CAP bytes):
 *	district d (0..ndist-1): next order id, year-to-date amount
 *	item k (0..nitem-1): price (read only after loading)
 *	stock k: quantity, year-to-date quantity, order count
 * District d lives on shard d % nshard, item and stock k on shard
 * k % nshard; the record index inside a shard is in kv_no_where()
 * (the districts first, then each item followed by its stock).
 *
 * One new order: a district and KV_NO_LINES distinct items (at least
 * one on each of two shards, so that every order is a distributed
 * transaction), a quantity 1..10 each.  It reads the district, the
 * items and their stock (one-sided), then writes the district (next
 * order id + 1, ytd + the order's amount) and each stock (quantity
 * down by the order's, refilled by 91 when it would fall under 10, as
 * TPC-C does; ytd up; order count up), each write conditional on the
 * version it read.
 *
 * What "no committed order lost" means, checked at the end: for every
 * district, next order id - its initial value = the orders committed
 * there; for every stock record, ytd = the quantities committed for
 * its item, and quantity agrees with ytd through the refill rule.
 * An order that the client saw committed and a shard lost, or one it
 * saw aborted and a shard applied, breaks one of them.
 */
#ifndef KV_NEWORDER_H
#define KV_NEWORDER_H

#include <stdbool.h>
#include <stdint.h>

#include "kv_history.h"
#include "kv_shard.h"

#define KV_NO_CAP	64	/* every record's capacity */
#define KV_NO_LINES	5	/* items per order */
#define KV_NO_FIRST_OID	3001	/* TPC-C's first new order id */
#define KV_NO_STOCK0	100	/* initial quantity of every stock */

enum kv_no_kind { KV_NO_DISTRICT, KV_NO_ITEM, KV_NO_STOCK };

struct kv_no_cfg {
	uint32_t nshard;	/* 2.. */
	uint32_t ndist;		/* districts, 1.. */
	uint32_t nitem;		/* items, at least 2 * KV_NO_LINES */
};

/* the records, decoded (host-endian) */
struct kv_no_district {
	uint32_t next_oid;
	uint64_t ytd_cents;
};

struct kv_no_item {
	uint32_t price_cents;
};

struct kv_no_stock {
	int32_t qty;
	uint64_t ytd;
	uint32_t order_cnt;
};

/* records per shard (every shard has the same geometry) */
uint32_t kv_no_nrec(const struct kv_no_cfg *c);
/* where a record lives: its shard and index there */
void kv_no_where(const struct kv_no_cfg *c, enum kv_no_kind kind, uint32_t n,
		 uint32_t *shard, uint32_t *index);

/* encode into @buf (KV_NO_CAP bytes): the length; decode: 0 or -EINVAL */
uint32_t kv_no_put_district(void *buf, const struct kv_no_district *d);
uint32_t kv_no_put_item(void *buf, const struct kv_no_item *it);
uint32_t kv_no_put_stock(void *buf, const struct kv_no_stock *s);
int kv_no_get_district(const void *v, uint32_t len, struct kv_no_district *d);
int kv_no_get_item(const void *v, uint32_t len, struct kv_no_item *it);
int kv_no_get_stock(const void *v, uint32_t len, struct kv_no_stock *s);

/* the initial value of each record (loading) */
void kv_no_initial(const struct kv_no_cfg *c, enum kv_no_kind kind,
		   uint32_t n, void *buf, uint32_t *len);

/* one order, planned */
struct kv_no_plan {
	uint32_t district;
	uint32_t item[KV_NO_LINES];
	uint32_t qty[KV_NO_LINES];
};

/* plan the next order from @rng (advanced): always two shards or more */
void kv_no_plan(const struct kv_no_cfg *c, uint64_t *rng,
		struct kv_no_plan *p);

/* what the order read: each record's version and value (one-sided) */
struct kv_no_seen {
	uint64_t dist_ver;
	struct kv_no_district dist;
	uint64_t stock_ver[KV_NO_LINES];
	struct kv_no_stock stock[KV_NO_LINES];
	struct kv_no_item item[KV_NO_LINES];
};

/*
 * The order's writes for @shard, each against the version read:
 * filled into @w (KV_NO_LINES + 1 of them, values in @vals, KV_NO_CAP
 * bytes per write).  Return: how many (0: the order writes nothing
 * there).  @amount gets the order's total.
 */
unsigned int kv_no_writes(const struct kv_no_cfg *c,
			  const struct kv_no_plan *p,
			  const struct kv_no_seen *seen, uint32_t shard,
			  struct kv_write *w, uint8_t *vals,
			  uint64_t *amount);

/*
 * The client's tally of committed orders, and the check of the final
 * records against it.
 */
struct kv_no_tally {
	struct kv_no_cfg cfg;
	uint64_t *dist_orders;	/* per district */
	uint64_t *item_qty;	/* per item */
	uint64_t committed;
};

int kv_no_tally_init(struct kv_no_tally *t, const struct kv_no_cfg *c);
void kv_no_tally_free(struct kv_no_tally *t);
void kv_no_tally_commit(struct kv_no_tally *t, const struct kv_no_plan *p);

/*
 * Check record (@kind, @n) as read at the end against the tally.
 * Return: true when it agrees; else false with @why (@cap bytes) said.
 */
bool kv_no_check(const struct kv_no_tally *t, enum kv_no_kind kind,
		 uint32_t n, const void *v, uint32_t len, char *why,
		 size_t cap);

/*
 * Check every district and stock record of the shards @s[0..nshard-1]
 * (one replica of each) against @t.  Return: how many disagree; the
 * first one's reason in @why (@cap bytes).
 */
unsigned int kv_no_check_shards(const struct kv_no_tally *t,
				const struct kv_shard *const *s, char *why,
				size_t cap);

/*
 * What a committed order wrote, for the history checker: each record
 * with the version it read (KV_NO_LINES + 1 of them into @w).
 */
unsigned int kv_no_hist_writes(const struct kv_no_cfg *c,
			       const struct kv_no_plan *p,
			       const struct kv_no_seen *seen,
			       struct kv_hist_write *w);

#endif /* KV_NEWORDER_H */
