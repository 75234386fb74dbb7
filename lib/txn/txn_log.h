/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Log shipping (uapi/linux/txrdma_tlog.h) as pure logic: a writer that
 * builds entries, stamped with its vector clock, in its copy of the
 * ring and says which bytes to RDMA WRITE where; a reader that takes an
 * entry of one writer's ring only when it is complete and its own; a
 * merger that delivers the entries of several writers' rings in causal
 * order.  No I/O, no allocation: the caller owns the buffers, posts the
 * WRITEs and carries the reader's consumed position back to the writer.
 * See txn_log.c for the design.
 */
#ifndef TXN_LOG_H
#define TXN_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/txrdma_tlog.h>

#define TXN_LOG_HDR_LEN		sizeof(struct txrdma_tlog_hdr)

/*
 * An entry, host-endian.  @payload points at its @len bytes: in the
 * writer's stage for txn_log_append(), in the reader's ring for
 * txn_log_reader_scan() and txn_log_merge() (valid until the reader
 * tells the writer it consumed the entry).
 */
struct txn_log_entry {
	uint64_t pos;		/* its position in the log */
	uint64_t size;		/* bytes it takes in the ring */
	uint16_t writer;
	uint16_t nclock;
	uint32_t len;
	const uint8_t *payload;
	uint64_t clock[TXRDMA_TLOG_MAX_CLOCK];
};

/* Bytes an entry takes in a ring: header, clock, payload, padding. */
uint64_t txn_log_entry_size(unsigned int nclock, uint32_t len);

/* e happened before f (both of one group; e != f) */
bool txn_log_before(const struct txn_log_entry *e,
		    const struct txn_log_entry *f);

/*
 * The writer.  @stage is the writer's copy of the ring (@ring_size
 * bytes, registered for RDMA): an entry is built at the offset where it
 * goes in the reader's ring, and a WRITE copies stage[off, off + len)
 * to ring[off, off + len).  Bytes are changed in the stage only where
 * the reader has consumed them, so a WRITE still in flight reads what
 * it was posted for (or, for bytes the reader already took, the next
 * lap's bytes for the same offset: harmless).
 */
struct txn_log_writer {
	uint8_t *stage;
	uint64_t ring_size;
	uint64_t pos;		/* where the next entry goes */
	uint64_t flushed;	/* handed out to WRITE up to here */
	uint64_t consumed;	/* the reader's, as last told */
	uint64_t cut;		/* the last wrap: written bytes end here */
	uint64_t cut_lap;	/* and the next lap starts here */
	uint16_t id;
	uint16_t nclock;
	uint64_t clock[TXRDMA_TLOG_MAX_CLOCK];
};

/* a range to RDMA WRITE: stage[off, off + len) to ring[off, off + len) */
struct txn_log_piece {
	uint64_t off;
	uint64_t len;
};

int txn_log_writer_init(struct txn_log_writer *w, unsigned int id,
			unsigned int nwriters, uint64_t ring_size,
			void *stage);
int txn_log_writer_consumed(struct txn_log_writer *w, uint64_t pos);
int txn_log_observe(struct txn_log_writer *w, const uint64_t *clock,
		    unsigned int nclock);
int txn_log_append(struct txn_log_writer *w, const void *payload,
		   uint32_t len, struct txn_log_entry *e);
unsigned int txn_log_writer_flush(struct txn_log_writer *w,
				  struct txn_log_piece piece[2]);

/* The reader of one writer's ring. */
struct txn_log_reader {
	uint64_t pos;		/* the position due; consumed up to here */
	uint16_t writer;
	uint16_t nclock;
};

int txn_log_reader_init(struct txn_log_reader *r, unsigned int writer,
			unsigned int nwriters);
int txn_log_reader_scan(struct txn_log_reader *r, const void *ring,
			uint64_t ring_size, struct txn_log_entry *e);
int txn_log_reader_consume(struct txn_log_reader *r,
			   const struct txn_log_entry *e);

/*
 * The merger over the rings of a group's writers: one stream per
 * writer, its reader, its ring and the entry at its head once taken.
 */
struct txn_log_stream {
	struct txn_log_reader rd;
	const void *ring;
	uint64_t ring_size;
	bool held;		/* @head is the ring's next entry */
	struct txn_log_entry head;
};

struct txn_log_merge {
	uint16_t nwriters;
	uint64_t delivered[TXRDMA_TLOG_MAX_CLOCK];
	struct txn_log_stream s[TXRDMA_TLOG_MAX_CLOCK];
};

int txn_log_merge_init(struct txn_log_merge *m, unsigned int nwriters);
int txn_log_merge_attach(struct txn_log_merge *m, unsigned int writer,
			 const void *ring, uint64_t ring_size);
int txn_log_merge(struct txn_log_merge *m, struct txn_log_entry *e);
uint64_t txn_log_merge_consumed(const struct txn_log_merge *m,
				unsigned int writer);

#endif /* TXN_LOG_H */
