/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Log shipping over txrdma (txn_log.h's logic, moved by real RDMA
 * WRITEs): a writer appends entries to its stage, a registered copy of
 * the reader's ring, and flushes them to the reader's ring in batches
 * of asynchronous WRITEs on one endpoint pair; the reader merges the
 * rings of its writers and tells each writer, on the same pair, how far
 * it consumed (and the clock it merged, which a writer may observe).
 * See txn_ship.c for the design.
 *
 * Every call returns 0 (or a count) or a negative errno.  Nothing here
 * is thread-safe: one thread per writer or reader, and per context.
 *
 * The pure parts (the WRITE plan, the feedback rule, the messages) are
 * in txn_ship_proto.h: they need no txrdma and are host-tested.
 */
#ifndef TXN_SHIP_H
#define TXN_SHIP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "txn_log.h"
#include "txn_ship_proto.h"

/* ---- over txrdma ---------------------------------------------------- */

struct txrdma_ctx;
struct txrdma_sq;
struct txrdma_cq;
struct txrdma_cqe;
struct txrdma_rx;

/*
 * What a writer or reader runs on: the caller's context with rings, and
 * (per pair) its endpoint.  The ship tags its SQEs' user_data with
 * TXN_SHIP_UD_TAG in the upper 32 bits.
 */
#define TXN_SHIP_UD_TAG		0x54534850u	/* "PHST" */

/* txn_ship_writer_cfg.flags */
#define TXN_SHIP_F_OBSERVE	(1u << 0)	/* observe the reader's clock */

struct txn_ship_writer_cfg {
	uint32_t id;		/* this writer, 0..nwriters-1 */
	uint32_t nwriters;	/* the group's, 1..TXRDMA_TLOG_MAX_CLOCK */
	uint32_t flags;		/* TXN_SHIP_F_* */
	uint32_t max_write;	/* bytes per WRITE, 0: 64 KiB */
	uint32_t max_inflight;	/* WRITEs posted and not completed, 0: 32 */
	uint32_t timeout_ms;	/* for the reader's RING, 0: 10000 */
};

struct txn_ship_writer_stats {
	uint64_t entries, bytes;	/* appended: entries, payload bytes */
	uint64_t pos;			/* the log's end */
	uint64_t flushed;		/* handed out to WRITE up to here */
	uint64_t consumed;		/* the reader's, as last told */
	uint64_t writes, write_bytes;	/* WRITEs completed */
	uint64_t inflight;		/* WRITEs posted and not completed */
	uint64_t pending;		/* bytes handed out, not yet posted */
	uint64_t feedbacks;		/* FEEDBACK messages taken */
	uint64_t full;			/* appends refused: -ENOSPC */
	uint64_t sq_full;		/* posts deferred: no SQE */
	uint64_t foreign;		/* CQEs not ours, dropped by poll */
};

struct txn_ship_writer;

int txn_ship_writer_open(struct txn_ship_writer **wp, struct txrdma_ctx *ctx,
			 struct txrdma_sq *sq, struct txrdma_cq *cq,
			 uint32_t ep, struct txrdma_rx *rx,
			 const struct txn_ship_writer_cfg *cfg);
int txn_ship_writer_append(struct txn_ship_writer *w, const void *payload,
			   uint32_t len, struct txn_log_entry *e);
int txn_ship_writer_flush(struct txn_ship_writer *w);
int txn_ship_writer_cqe(struct txn_ship_writer *w,
			const struct txrdma_cqe *cqe);
int txn_ship_writer_poll(struct txn_ship_writer *w);
bool txn_ship_writer_idle(const struct txn_ship_writer *w);
void txn_ship_writer_stats(const struct txn_ship_writer *w,
			   struct txn_ship_writer_stats *s);
const uint64_t *txn_ship_writer_clock(const struct txn_ship_writer *w);
int txn_ship_writer_close(struct txn_ship_writer *w);

struct txn_ship_reader_cfg {
	uint32_t nwriters;	/* 1..TXRDMA_TLOG_MAX_CLOCK */
	uint64_t ring_size;	/* every writer's ring */
	uint64_t fb_every;	/* bytes between FEEDBACKs, 0: ring / 4 */
	uint32_t fb_idle_us;	/* idle FEEDBACK after, 0: 1000 us */
	uint32_t timeout_ms;	/* export, 0: the library's 3000 */
};

struct txn_ship_reader_stats {
	uint64_t entries, bytes;	/* delivered: entries, payload bytes */
	uint64_t incomplete;	/* entries seen due but not whole yet */
	uint64_t retries;	/* looks at such an entry that found it so */
	uint64_t feedbacks;	/* FEEDBACK messages sent */
	uint64_t fb_busy;	/* FEEDBACKs deferred: no slot or SQE */
	uint64_t foreign;	/* CQEs not ours, dropped by poll */
};

struct txn_ship_reader;

int txn_ship_reader_open(struct txn_ship_reader **rp, struct txrdma_ctx *ctx,
			 struct txrdma_sq *sq, struct txrdma_cq *cq,
			 const struct txn_ship_reader_cfg *cfg);
int txn_ship_reader_attach(struct txn_ship_reader *r, unsigned int writer,
			   uint32_t ep);
int txn_ship_reader_next(struct txn_ship_reader *r, struct txn_log_entry *e);
int txn_ship_reader_cqe(struct txn_ship_reader *r,
			const struct txrdma_cqe *cqe);
int txn_ship_reader_poll(struct txn_ship_reader *r);
int txn_ship_reader_feedback(struct txn_ship_reader *r);
bool txn_ship_reader_idle(const struct txn_ship_reader *r);
uint64_t txn_ship_reader_consumed(const struct txn_ship_reader *r,
				  unsigned int writer);
const uint64_t *txn_ship_reader_clock(const struct txn_ship_reader *r);
void txn_ship_reader_stats(const struct txn_ship_reader *r,
			   struct txn_ship_reader_stats *s);
int txn_ship_reader_close(struct txn_ship_reader *r);

#endif /* TXN_SHIP_H */
