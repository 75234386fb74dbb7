// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Transaction records on the wire: see uapi/linux/txrdma_txn.h for the
 * format and txn_wire.h for the interface.
 *
 * A batch is refused whole or read whole: txn_reader_init() checks
 * every record (type, flags, counts, lengths, ids, reserved fields,
 * padding) before txn_reader_next() hands out the first, so a reader
 * never acts on the front of a batch whose back is garbage.  No read
 * goes past the bytes given; every length is checked against what is
 * left before it is used, in 64-bit arithmetic.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "txn_wire.h"

_Static_assert(sizeof(struct txrdma_txn_batch) == 16, "txrdma_txn_batch");
_Static_assert(sizeof(struct txrdma_txn_id) == 16, "txrdma_txn_id");
_Static_assert(sizeof(struct txrdma_txn_rec) == 32, "txrdma_txn_rec");
_Static_assert(sizeof(struct txrdma_txn_batch) % TXRDMA_TXN_ALIGN == 0,
	       "records start aligned");

static size_t pad8(uint64_t n)
{
	return (size_t)((n + TXRDMA_TXN_ALIGN - 1) & ~(uint64_t)(TXRDMA_TXN_ALIGN - 1));
}

size_t txn_rec_size(uint16_t nparts, uint32_t data_len)
{
	return sizeof(struct txrdma_txn_rec) +
	       pad8((uint64_t)nparts * sizeof(uint32_t) + data_len);
}

uint32_t txn_rec_part(const struct txn_rec *r, unsigned int i)
{
	uint32_t v;

	if (i >= r->nparts)
		return 0;
	memcpy(&v, (const uint8_t *)r->parts + i * sizeof(v), sizeof(v));
	return le32toh(v);
}

/* the rules of uapi/linux/txrdma_txn.h, on host-endian fields */
static int rec_ok(uint8_t type, uint8_t flags, uint16_t nparts,
		  uint64_t len, const struct txn_id *id, uint32_t arg)
{
	if (!id->coord || !id->epoch || !id->seq)
		return -EINVAL;
	switch (type) {
	case TXRDMA_TXN_PREPARE:
		if (flags || arg || !nparts || nparts > TXRDMA_TXN_MAX_PARTS ||
		    len < (uint64_t)nparts * sizeof(uint32_t))
			return -EINVAL;
		return 0;
	case TXRDMA_TXN_VOTE:
		if ((flags & ~TXRDMA_TXN_F_YES) || nparts || len ||
		    (flags & TXRDMA_TXN_F_YES ? arg != 0 : arg == 0))
			return -EINVAL;
		return 0;
	case TXRDMA_TXN_ACK:
		if (flags || nparts || len ||
		    (arg != TXRDMA_TXN_COMMIT && arg != TXRDMA_TXN_ABORT))
			return -EINVAL;
		return 0;
	case TXRDMA_TXN_COMMIT:
	case TXRDMA_TXN_ABORT:
	case TXRDMA_TXN_INQUIRE:
		if (flags || nparts || len || arg)
			return -EINVAL;
		return 0;
	default:
		return -EINVAL;
	}
}

int txn_rec_check(const struct txn_rec *r)
{
	uint64_t len = (uint64_t)r->nparts * sizeof(uint32_t) + r->data_len;

	if (r->nparts && !r->parts)
		return -EINVAL;
	if (r->data_len && !r->data)
		return -EINVAL;
	if (len > UINT32_MAX)
		return -EINVAL;
	return rec_ok(r->type, r->flags, r->nparts, len, &r->id, r->arg);
}

void txn_writer_init(struct txn_writer *w, void *buf, size_t cap)
{
	w->buf = buf;
	w->cap = cap;
	w->used = sizeof(struct txrdma_txn_batch);
	w->count = 0;
}

/*
 * Append @r.  Return: 0; -EINVAL for a record the wire does not allow;
 * -ENOSPC when it does not fit the buffer or the batch holds the most
 * records it can count.  Nothing is written on an error.
 */
int txn_writer_add(struct txn_writer *w, const struct txn_rec *r)
{
	size_t ids = (size_t)r->nparts * sizeof(uint32_t), size;
	struct txrdma_txn_rec h;
	uint8_t *at;

	if (txn_rec_check(r))
		return -EINVAL;
	size = txn_rec_size(r->nparts, r->data_len);
	if (w->count == UINT16_MAX || w->used > w->cap ||
	    size > w->cap - w->used ||
	    w->used + size - sizeof(struct txrdma_txn_batch) > UINT32_MAX)
		return -ENOSPC;
	h = (struct txrdma_txn_rec) {
		.type	= r->type,
		.flags	= r->flags,
		.nparts	= htole16(r->nparts),
		.len	= htole32((uint32_t)(ids + r->data_len)),
		.id	= {
			.coord	= htole32(r->id.coord),
			.epoch	= htole32(r->id.epoch),
			.seq	= htole64(r->id.seq),
		},
		.arg	= htole32(r->arg),
	};
	at = w->buf + w->used;
	memcpy(at, &h, sizeof(h));
	at += sizeof(h);
	if (ids) {
		/* the caller's ids are host-endian */
		const uint32_t *p = r->parts;
		unsigned int i;

		for (i = 0; i < r->nparts; i++) {
			uint32_t v = htole32(p[i]);

			memcpy(at + i * sizeof(v), &v, sizeof(v));
		}
		at += ids;
	}
	if (r->data_len)
		memcpy(at, r->data, r->data_len);
	at += r->data_len;
	/* padding: zeroes, never what the buffer held */
	memset(at, 0, w->buf + w->used + size - at);
	w->used += size;
	w->count++;
	return 0;
}

/*
 * Write the batch's header.  Return: the batch's bytes (what to send),
 * or 0 when it holds no record (nothing to send).
 */
size_t txn_writer_finish(struct txn_writer *w)
{
	struct txrdma_txn_batch b;

	if (!w->count)
		return 0;
	b = (struct txrdma_txn_batch) {
		.magic		= htole32(TXRDMA_TXN_MAGIC),
		.version	= TXRDMA_TXN_VERSION,
		.count		= htole16(w->count),
		.len		= htole32((uint32_t)(w->used -
						     sizeof(struct txrdma_txn_batch))),
	};
	memcpy(w->buf, &b, sizeof(b));
	return w->used;
}

/*
 * Decode the record at @p (at most @left bytes there): its size in the
 * batch, or 0 when it breaks a rule.
 */
static size_t rec_decode(const uint8_t *p, size_t left, struct txn_rec *r)
{
	struct txrdma_txn_rec h;
	uint32_t len, arg;
	uint16_t nparts;
	size_t size, i;
	struct txn_id id;

	if (left < sizeof(h))
		return 0;
	memcpy(&h, p, sizeof(h));
	len = le32toh(h.len);
	nparts = le16toh(h.nparts);
	arg = le32toh(h.arg);
	id = (struct txn_id) {
		.coord	= le32toh(h.id.coord),
		.epoch	= le32toh(h.id.epoch),
		.seq	= le64toh(h.id.seq),
	};
	size = sizeof(h) + pad8(len);
	if (size > left || h.resv ||
	    rec_ok(h.type, h.flags, nparts, len, &id, arg))
		return 0;
	for (i = sizeof(h) + len; i < size; i++)
		if (p[i])
			return 0;
	*r = (struct txn_rec) {
		.type		= h.type,
		.flags		= h.flags,
		.nparts		= nparts,
		.id		= id,
		.arg		= arg,
		.parts		= nparts ? p + sizeof(h) : NULL,
		.data_len	= len - nparts * (uint32_t)sizeof(uint32_t),
	};
	r->data = r->data_len ? p + sizeof(h) + nparts * sizeof(uint32_t) :
				NULL;
	return size;
}

/*
 * Check the batch of @len bytes at @buf, every record of it.
 * Return: 0 (txn_reader_next() then reads its records); -EMSGSIZE when
 * @len is not the batch's size; -EPROTO for anything else it breaks.
 */
int txn_reader_init(struct txn_reader *rd, const void *buf, size_t len)
{
	const uint8_t *p = buf, *end;
	struct txrdma_txn_batch b;
	struct txn_rec r;
	uint16_t count, i;
	size_t size;

	*rd = (struct txn_reader) { 0 };
	if (len < sizeof(b))
		return -EMSGSIZE;
	memcpy(&b, p, sizeof(b));
	if (le32toh(b.magic) != TXRDMA_TXN_MAGIC ||
	    b.version != TXRDMA_TXN_VERSION || b.flags || b.resv)
		return -EPROTO;
	if ((uint64_t)le32toh(b.len) + sizeof(b) != len)
		return -EMSGSIZE;
	count = le16toh(b.count);
	if (!count)
		return -EPROTO;
	p += sizeof(b);
	end = p + le32toh(b.len);
	for (i = 0; i < count; i++) {
		size = rec_decode(p, (size_t)(end - p), &r);
		if (!size)
			return -EPROTO;
		p += size;
	}
	if (p != end)
		return -EPROTO;
	rd->p = (const uint8_t *)buf + sizeof(b);
	rd->end = end;
	rd->left = count;
	return 0;
}

/* Return: 1 with the next record in @r, 0 after the last. */
int txn_reader_next(struct txn_reader *rd, struct txn_rec *r)
{
	size_t size;

	if (!rd->left)
		return 0;
	/*
	 * Checked by txn_reader_init(), and checked again: the batch may
	 * sit in memory a peer can still write (a txrdma receive ring), so
	 * a record that changed since is refused, never read past its end.
	 */
	size = rec_decode(rd->p, (size_t)(rd->end - rd->p), r);
	if (!size) {
		rd->left = 0;
		return 0;
	}
	rd->p += size;
	rd->left--;
	return 1;
}
