/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the writer and the reader of a shipped log agree on, as pure
 * logic: the WRITE plan (which WRITEs carry a writer's flushed bytes to
 * the reader's ring), the reader's feedback rule (when it tells a writer
 * how far it consumed) and the messages, reader to writer.  No I/O, no
 * allocation, no clock (the caller passes the time), nothing of
 * libtxrdma: host-tested alone.  txn_ship.h runs them over txrdma.  See
 * txn_ship_proto.c for the design.
 *
 * Every call returns 0 (or a length, or a bool) or a negative errno.
 */
#ifndef TXN_SHIP_PROTO_H
#define TXN_SHIP_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/txrdma_tlog.h>

struct txn_log_piece;		/* txn_log.h: what a flush returns */

/* ---- the WRITE plan: what is handed out and not yet posted ---------- */

#define TXN_SHIP_MAX_WRITE_DEFAULT	(64u << 10)
#define TXN_SHIP_PLAN_RANGES		4

/* a WRITE: stage[off, off + len) to ring[off, off + len) */
struct txn_ship_range {
	uint64_t off;
	uint64_t len;
};

struct txn_ship_plan {
	uint64_t ring_size;
	uint64_t max_write;	/* bytes per WRITE, at most */
	uint64_t bytes;		/* pending, all ranges */
	unsigned int n;
	struct txn_ship_range r[TXN_SHIP_PLAN_RANGES];
};

int txn_ship_plan_init(struct txn_ship_plan *p, uint64_t ring_size,
		       uint64_t max_write);
int txn_ship_plan_add(struct txn_ship_plan *p,
		      const struct txn_log_piece *piece, unsigned int n);
bool txn_ship_plan_next(struct txn_ship_plan *p, struct txn_ship_range *w);

/* ---- the reader's feedback rule ---------------------------------- */

#define TXN_SHIP_IDLE_US_DEFAULT	1000

struct txn_ship_fb {
	uint64_t every;		/* bytes consumed between messages */
	uint64_t idle_us;	/* idle: send what is new after this long */
	uint64_t sent;		/* the position last told */
	uint64_t sent_us;	/* when */
};

int txn_ship_fb_init(struct txn_ship_fb *f, uint64_t ring_size,
		     uint64_t every, uint64_t idle_us);
bool txn_ship_fb_due(const struct txn_ship_fb *f, uint64_t consumed,
		     bool idle, uint64_t now_us);
void txn_ship_fb_sent(struct txn_ship_fb *f, uint64_t consumed,
		      uint64_t now_us);

/* ---- the messages, reader to writer (little-endian) ---------------- */

#define TXN_SHIP_MAGIC		0x31485354u	/* "TSH1" */

enum txn_ship_msg_type {
	TXN_SHIP_RING		= 1,	/* your ring: region, size */
	TXN_SHIP_FEEDBACK	= 2,	/* consumed up to, merged clock */
};

/*
 * RING: @nclock the group's writers, @writer the one it is for,
 * @region the reader's region id (the ring at offset 0 in it, exported
 * to the pair with WRITE access), @val the ring's size; no clock.
 * FEEDBACK: @writer the one it is for, @nclock components of the
 * clock the reader merged (every writer's entries delivered) follow,
 * @val the position the reader consumed that writer's log up to,
 * @region 0.
 */
struct txn_ship_msg_hdr {
	uint32_t magic;
	uint16_t type;
	uint16_t nclock;
	uint32_t writer;
	uint32_t region;
	uint64_t val;
};

#define TXN_SHIP_MSG_MAX	(sizeof(struct txn_ship_msg_hdr) + \
				 TXRDMA_TLOG_MAX_CLOCK * sizeof(uint64_t))

/* a message decoded, host-endian */
struct txn_ship_msg {
	unsigned int type;
	unsigned int nclock;
	unsigned int writer;
	uint32_t region;
	uint64_t val;
	uint64_t clock[TXRDMA_TLOG_MAX_CLOCK];
};

size_t txn_ship_msg_encode(void *buf, size_t cap, const struct txn_ship_msg *m);
int txn_ship_msg_decode(const void *buf, size_t len, struct txn_ship_msg *m);

#endif /* TXN_SHIP_PROTO_H */
