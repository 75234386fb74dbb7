/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Transaction records (uapi/linux/txrdma_txn.h) as pure logic: build a
 * batch of records in a buffer, and check and read one that arrived.
 * No I/O, no allocation: the transaction layer's state machines and
 * both transports (txrdma endpoints, TCP) use it, and host tests drive
 * it with any bytes.
 */
#ifndef TXN_WIRE_H
#define TXN_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include <linux/txrdma_txn.h>

/* a transaction id, host-endian */
struct txn_id {
	uint32_t coord;
	uint32_t epoch;
	uint64_t seq;
};

/*
 * A record, host-endian.  Building: @parts (PREPARE: @nparts node ids)
 * and @data/@data_len (the caller's bytes after them) are read.
 * Reading: @parts points at the @nparts little-endian ids in the batch
 * (txn_rec_part()), @data at the caller's bytes; both valid as long as
 * the batch's buffer.
 */
struct txn_rec {
	uint8_t type;
	uint8_t flags;
	uint16_t nparts;
	struct txn_id id;
	uint32_t arg;
	const void *parts;
	const void *data;
	uint32_t data_len;
};

/* Bytes a record takes in a batch: header, ids, data, padding. */
size_t txn_rec_size(uint16_t nparts, uint32_t data_len);

/* The @i-th participant of a PREPARE read from a batch. */
uint32_t txn_rec_part(const struct txn_rec *r, unsigned int i);

/* 0 when @r is a record the wire allows, else -EINVAL. */
int txn_rec_check(const struct txn_rec *r);

/* building a batch in a caller's buffer */
struct txn_writer {
	uint8_t *buf;
	size_t cap;
	size_t used;
	uint16_t count;
};

void txn_writer_init(struct txn_writer *w, void *buf, size_t cap);
int txn_writer_add(struct txn_writer *w, const struct txn_rec *r);
size_t txn_writer_finish(struct txn_writer *w);

/* reading a batch that arrived */
struct txn_reader {
	const uint8_t *p;
	const uint8_t *end;
	uint16_t left;
};

int txn_reader_init(struct txn_reader *rd, const void *buf, size_t len);
int txn_reader_next(struct txn_reader *rd, struct txn_rec *r);

#endif /* TXN_WIRE_H */
