// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Log shipping: see uapi/linux/txrdma_tlog.h for the format and
 * txn_log.h for the interface.
 *
 * Why a vector clock.  A reader merging the logs of several writers
 * must deliver an entry only after every entry that happened before
 * it.  A hybrid logical clock (physical time, a logical counter) is 8
 * bytes whatever the number of writers, and orders e before f whenever
 * e happened before f; but it cannot tell "before" from "concurrent".
 * A reader that merges by HLC must therefore hold an entry until every
 * other writer's log has passed its timestamp: it waits on writers that
 * have nothing to do with the entry, needs heartbeats from idle ones,
 * and a writer whose clock runs ahead delays everybody.  A vector clock
 * names exactly the entries an entry depends on: it is deliverable as
 * soon as those are delivered, and two concurrent entries wait for
 * nothing.  It costs 8 bytes per writer per entry, which is affordable
 * because a group's writers are few and fixed (at most
 * TXRDMA_TLOG_MAX_CLOCK, 16 components at most 128 bytes; the common
 * two or three writers 16 or 24 bytes).  So a vector clock.  Its own
 * component doubles as the entry's sequence number in its log.
 *
 * Why a free-running position and a CRC, both.  The bytes of an RDMA
 * WRITE become visible in any order, so no single field can say
 * "complete": a header may be there before the payload behind it, or
 * the other way round.  The CRC32C over the whole entry fails while any
 * byte of it is missing (but for one torn state in 2^32; the standard
 * seed makes an all-zero region fail too).  But the ring wraps, and an
 * intact entry of an earlier lap sits where the next one is due: its
 * CRC is fine.  Its position is not: every entry names the
 * free-running position it was written for, which differs by a
 * multiple of the ring's size from the one due.  And a mix of two
 * laps' bytes that happened to pass the CRC would still need the new
 * lap's position, which is in the new lap's bytes only.
 *
 * Not yet, not "corrupt".  A partly written entry and a corrupt one
 * look the same to a reader that cannot know when the WRITE will end,
 * so a reader says "not yet" for both and leaves the timeout to its
 * caller (it knows, e.g. from the writer, when WRITEs completed).  Only
 * an entry whose bytes check out (position and CRC) but break a rule
 * (another writer's id, another clock width, a gap in the sequence)
 * is an error (-EPROTO): the writer wrote those bytes whole, and they
 * will not change into valid ones.
 *
 * The writer works in its own copy of the ring (the "stage", a
 * registered buffer as large as the ring): an entry is built at the
 * offset it takes in the reader's ring, so a WRITE copies a range to
 * the same offsets, and a batch is at most two ranges (the ring's end
 * splits it; a PAD's body and the bytes skipped at the end are never
 * written).  The writer changes a byte of the stage only where the
 * reader has consumed that offset's previous lap, so a WRITE still in
 * flight is never handed bytes of an entry it was not posted for,
 * except for bytes the reader already took, where it copies the next
 * lap's bytes to the offset they are for anyway.  And no staging
 * buffer needs to wait for a WRITE's completion.
 *
 * The merger.  Within one writer's log the entries are in clock
 * order (its own component goes 1, 2, 3...), so the merger only ever
 * needs the entry at the head of each ring: an entry of writer j is
 * deliverable when its component j is one more than the entries of j
 * delivered (always true of the head: anything else is -EPROTO) and
 * every other component i is at most the entries of i delivered.
 *
 * The buffer of entries that arrived before their causal predecessors
 * is the rings themselves: the merger holds one entry per writer, in
 * place; an entry behind a head that waits stays in its ring,
 * unconsumed, and when the ring is full its writer gets -ENOSPC until
 * the missing predecessor arrives and the merger moves on.  Copying
 * waiting entries out of the rings would let writers run further
 * ahead, but would only move the bound, at the price of a copy of
 * every entry.  This cannot deadlock, as long as writers observe only
 * clocks of entries that were appended and every WRITE eventually
 * lands: of all entries not yet delivered, one that no other of them
 * happened before (a minimal one) has all its predecessors delivered,
 * among them its own log's earlier entries, so it is at its ring's
 * head, and its writer could place it (its ring had room: everything
 * before it was consumed).
 *
 * Among the deliverable heads the merger takes the one with the
 * smallest sum of clock components (the sum grows along every causal
 * chain, so it is a linear extension of "happened before" and prefers
 * the entry with the shortest history), then the lowest writer id: the
 * same heads give the same choice.  When every writer's ring has a head
 * and none is deliverable, the clocks contradict each other (each head
 * waits on another's successor): -EPROTO.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "txn_log.h"
#include "txrdma_frame_check.h"

#define HDR	TXN_LOG_HDR_LEN
#define ALIGN8	TXRDMA_TLOG_ALIGN

_Static_assert(sizeof(struct txrdma_tlog_hdr) == 32, "txrdma_tlog_hdr");
_Static_assert(sizeof(struct txrdma_tlog_hdr) % TXRDMA_TLOG_ALIGN == 0,
	       "clock components start aligned");
_Static_assert(TXRDMA_TLOG_MAX_CLOCK <= UINT8_MAX, "nclock is a __u8");

static uint64_t pad8(uint64_t n)
{
	return (n + ALIGN8 - 1) & ~(uint64_t)(ALIGN8 - 1);
}

uint64_t txn_log_entry_size(unsigned int nclock, uint32_t len)
{
	return HDR + (uint64_t)nclock * sizeof(uint64_t) + pad8(len);
}

bool txn_log_before(const struct txn_log_entry *e,
		    const struct txn_log_entry *f)
{
	uint64_t seq = e->clock[e->writer];

	if (e->writer == f->writer)
		return seq < f->clock[f->writer];
	return seq <= f->clock[e->writer];
}

/* the group and the ring a writer or reader may be set up with */
static bool ring_ok(unsigned int nwriters, uint64_t ring_size)
{
	return ring_size % ALIGN8 == 0 &&
	       ring_size >= 2 * txn_log_entry_size(nwriters, 0) &&
	       ring_size <= TXRDMA_TLOG_MAX_RING;
}

/*
 * Set up writer @id of a group of @nwriters, its log at position 0,
 * its clock at zero, with @stage: its copy of the ring, @ring_size
 * bytes.  Return: 0, or -EINVAL.
 */
int txn_log_writer_init(struct txn_log_writer *w, unsigned int id,
			unsigned int nwriters, uint64_t ring_size,
			void *stage)
{
	if (!nwriters || nwriters > TXRDMA_TLOG_MAX_CLOCK || id >= nwriters ||
	    !stage || !ring_ok(nwriters, ring_size))
		return -EINVAL;
	*w = (struct txn_log_writer) {
		.stage		= stage,
		.ring_size	= ring_size,
		.id		= (uint16_t)id,
		.nclock		= (uint16_t)nwriters,
	};
	return 0;
}

/*
 * The reader says it consumed the log up to @pos.  Return: 0; -EINVAL
 * when @pos is behind what it said before or beyond what was handed out
 * to WRITE (it cannot have read that: the channel is broken, and the
 * writer keeps what it knew).
 */
int txn_log_writer_consumed(struct txn_log_writer *w, uint64_t pos)
{
	if (pos < w->consumed || pos > w->flushed || pos % ALIGN8)
		return -EINVAL;
	w->consumed = pos;
	return 0;
}

/*
 * Merge @clock (of an entry of the group read by this writer, any
 * writer's) into the writer's: the next entry it appends happens after
 * that entry and everything before it.  Return: 0; -EINVAL when
 * @nclock is not the group's or @clock claims more of this writer's
 * entries than it appended.
 */
int txn_log_observe(struct txn_log_writer *w, const uint64_t *clock,
		    unsigned int nclock)
{
	unsigned int i;

	if (nclock != w->nclock || clock[w->id] > w->clock[w->id])
		return -EINVAL;
	for (i = 0; i < nclock; i++)
		if (clock[i] > w->clock[i])
			w->clock[i] = clock[i];
	return 0;
}

static void put_hdr(uint8_t *at, uint8_t type, uint8_t nclock,
		    uint16_t writer, uint32_t len, uint64_t pos)
{
	struct txrdma_tlog_hdr h = {
		.magic	= htole32(TXRDMA_TLOG_MAGIC),
		.type	= type,
		.nclock	= nclock,
		.writer	= htole16(writer),
		.len	= htole32(len),
		.pos	= htole64(pos),
	};

	memcpy(at, &h, sizeof(h));
}

/* the standard CRC32C of @n bytes at @at, stored in its header */
static void seal(uint8_t *at, uint64_t n)
{
	uint32_t crc = htole32(~txrdma_crc32c_update(~0u, at, n));

	memcpy(at + offsetof(struct txrdma_tlog_hdr, crc), &crc, sizeof(crc));
}

/*
 * Append an entry of @len bytes at @payload to the stage, stamped with
 * the writer's clock (its own component one more).  Nothing goes to
 * the reader before txn_log_writer_flush().  @e, if not NULL, is set
 * to the entry (its clock is what other writers observe).
 * Return: 0; -EINVAL for a NULL @payload with a @len; -EMSGSIZE when
 * the entry takes more than half the ring (it might never fit);
 * -ENOSPC when it does not fit before what the reader has not consumed
 * (nothing changed: try again once it consumed more).
 */
int txn_log_append(struct txn_log_writer *w, const void *payload,
		   uint32_t len, struct txn_log_entry *e)
{
	uint64_t ring = w->ring_size, size, off, room, skip = 0, tail = 0;
	uint64_t clk = (uint64_t)w->nclock * sizeof(uint64_t);
	unsigned int i;
	uint8_t *at;

	if (len && !payload)
		return -EINVAL;
	size = txn_log_entry_size(w->nclock, len);
	if (size > ring / 2)
		return -EMSGSIZE;
	off = w->pos % ring;
	room = ring - off;
	/* room is the whole ring or at least a header: see the tail below */
	if (size > room) {
		skip = room;
		off = 0;
		room = ring;
	}
	if (room - size < HDR)
		tail = room - size;
	if (w->pos + skip + size + tail - w->consumed > ring)
		return -ENOSPC;

	if (skip) {
		at = w->stage + w->pos % ring;
		put_hdr(at, TXRDMA_TLOG_PAD, 0, w->id, (uint32_t)(skip - HDR),
			w->pos);
		seal(at, HDR);
		w->cut = w->pos + HDR;
		w->cut_lap = w->pos + skip;
		w->pos += skip;
	}

	w->clock[w->id]++;
	at = w->stage + off;
	put_hdr(at, TXRDMA_TLOG_ENTRY, (uint8_t)w->nclock, w->id, len, w->pos);
	for (i = 0; i < w->nclock; i++) {
		uint64_t v = htole64(w->clock[i]);

		memcpy(at + HDR + i * sizeof(v), &v, sizeof(v));
	}
	if (len)
		memcpy(at + HDR + clk, payload, len);
	/* padding: zeroes, never what the stage held */
	memset(at + HDR + clk + len, 0, size - HDR - clk - len);
	seal(at, size);
	if (e) {
		*e = (struct txn_log_entry) {
			.pos		= w->pos,
			.size		= size,
			.writer		= w->id,
			.nclock		= w->nclock,
			.len		= len,
			.payload	= at + HDR + clk,
		};
		memcpy(e->clock, w->clock, clk);
	}
	w->pos += size;
	if (tail) {
		/* no room for a header: the next entry goes to the next lap */
		w->cut = w->pos;
		w->cut_lap = w->pos + tail;
		w->pos += tail;
	}
	return 0;
}

/*
 * Hand out what was appended since the last flush: the caller WRITEs
 * each of the @piece's stage[off, off + len) to ring[off, off + len), in
 * any order, in one or several WRITEs.  Return: how many pieces, 0..2.
 *
 * What was not flushed spans at most a ring (the reader's consumed
 * position is behind it), so it reaches at most one lap's start: the
 * bytes before it end there, or where the wrap recorded in @cut and
 * @cut_lap stopped writing (after a PAD's header; after the last entry
 * when no header fitted).
 */
unsigned int txn_log_writer_flush(struct txn_log_writer *w,
				  struct txn_log_piece piece[2])
{
	uint64_t from = w->flushed, to = w->pos, ring = w->ring_size;
	uint64_t lap = (from / ring + 1) * ring, end;
	unsigned int n = 0;

	if (to >= lap) {
		end = w->cut_lap == lap ? w->cut : lap;
		if (end > from)
			piece[n++] = (struct txn_log_piece) {
				.off	= from % ring,
				.len	= end - from,
			};
		from = lap;
	}
	if (to > from)
		piece[n++] = (struct txn_log_piece) {
			.off	= from % ring,
			.len	= to - from,
		};
	w->flushed = w->pos;
	return n;
}

/*
 * Set up the reader of writer @writer's ring in a group of @nwriters,
 * due at position 0.  Return: 0, or -EINVAL.
 */
int txn_log_reader_init(struct txn_log_reader *r, unsigned int writer,
			unsigned int nwriters)
{
	if (!nwriters || nwriters > TXRDMA_TLOG_MAX_CLOCK ||
	    writer >= nwriters)
		return -EINVAL;
	*r = (struct txn_log_reader) {
		.writer	= (uint16_t)writer,
		.nclock	= (uint16_t)nwriters,
	};
	return 0;
}

/*
 * Look at the entry due in @ring (@ring_size bytes, the writer's).
 * Return: 1 when it is complete and valid, in @e (its payload in
 * @ring), not consumed yet (a scan again finds it again); 0 when not
 * (yet): nothing there, bytes still arriving, an older lap's entry, or
 * anything else the bytes might still turn into; -EPROTO when bytes
 * that check out (position and CRC) break a rule; -EINVAL for a
 * @ring_size no writer can have.  A PAD that checks out is consumed
 * on the way (it carries nothing), and so are the bytes skipped at the
 * ring's end.  The ring is read, never written; no read leaves it.
 */
int txn_log_reader_scan(struct txn_log_reader *r, const void *ring,
			uint64_t ring_size, struct txn_log_entry *e)
{
	uint8_t head[HDR + TXRDMA_TLOG_MAX_CLOCK * sizeof(uint64_t)];
	const uint8_t *base = ring;
	unsigned int round, i;

	if (!ring || !ring_ok(r->nclock, ring_size) || r->pos % ALIGN8)
		return -EINVAL;
	/* at most: the skip at the end, a PAD, the entry */
	for (round = 0; round < 3; round++) {
		uint64_t off = r->pos % ring_size, room = ring_size - off;
		uint64_t size, clk = 0, len, k;
		const uint8_t *at = base + off;
		struct txrdma_tlog_hdr h;
		uint32_t crc, want;

		if (room < HDR) {
			r->pos += room;
			continue;
		}
		memcpy(&h, at, sizeof(h));
		if (le32toh(h.magic) != TXRDMA_TLOG_MAGIC ||
		    le64toh(h.pos) != r->pos)
			return 0;
		len = le32toh(h.len);
		if (h.type == TXRDMA_TLOG_ENTRY) {
			if (h.nclock > TXRDMA_TLOG_MAX_CLOCK)
				return 0;
			clk = h.nclock * sizeof(uint64_t);
			size = HDR + clk + pad8(len);
		} else if (h.type == TXRDMA_TLOG_PAD) {
			size = HDR;
		} else {
			return 0;
		}
		if (size > room)
			return 0;
		/*
		 * The CRC over a copy of the header and clock, then the
		 * payload in place: what is decoded below is what was
		 * checked (the payload, once it checks, stays until the
		 * writer is told it was consumed).
		 */
		want = le32toh(h.crc);
		h.crc = 0;
		memcpy(head, &h, sizeof(h));
		memcpy(head + HDR, at + HDR, clk);
		crc = txrdma_crc32c_update(~0u, head, HDR + clk);
		crc = ~txrdma_crc32c_update(crc, at + HDR + clk,
					    size - HDR - clk);
		if (crc != want)
			return 0;

		/* the writer's own bytes, whole: a rule broken is its bug */
		if (h.resv || le16toh(h.writer) != r->writer)
			return -EPROTO;
		if (h.type == TXRDMA_TLOG_PAD) {
			if (h.nclock || len != room - HDR)
				return -EPROTO;
			r->pos += room;
			continue;
		}
		if (h.nclock != r->nclock)
			return -EPROTO;
		for (k = HDR + clk + len; k < size; k++)
			if (at[k])
				return -EPROTO;
		*e = (struct txn_log_entry) {
			.pos		= r->pos,
			.size		= size,
			.writer		= r->writer,
			.nclock		= r->nclock,
			.len		= (uint32_t)len,
			.payload	= at + HDR + clk,
		};
		for (i = 0; i < r->nclock; i++) {
			uint64_t v;

			memcpy(&v, head + HDR + i * sizeof(v), sizeof(v));
			e->clock[i] = le64toh(v);
		}
		if (!e->clock[r->writer])
			return -EPROTO;
		return 1;
	}
	return 0;
}

/*
 * Consume @e, the entry txn_log_reader_scan() found due.  The position
 * to tell the writer is then @r->pos.  Return: 0, or -EINVAL when @e is
 * not the entry due.
 */
int txn_log_reader_consume(struct txn_log_reader *r,
			   const struct txn_log_entry *e)
{
	if (e->pos != r->pos || e->writer != r->writer || !e->size ||
	    e->size % ALIGN8)
		return -EINVAL;
	r->pos += e->size;
	return 0;
}

/* Set up a merger over the logs of a group of @nwriters; 0 or -EINVAL. */
int txn_log_merge_init(struct txn_log_merge *m, unsigned int nwriters)
{
	unsigned int i;
	int rc;

	if (!nwriters || nwriters > TXRDMA_TLOG_MAX_CLOCK)
		return -EINVAL;
	memset(m, 0, sizeof(*m));
	m->nwriters = (uint16_t)nwriters;
	for (i = 0; i < nwriters; i++) {
		rc = txn_log_reader_init(&m->s[i].rd, i, nwriters);
		if (rc)
			return rc;
	}
	return 0;
}

/* Writer @writer's log is placed in @ring; 0 or -EINVAL. */
int txn_log_merge_attach(struct txn_log_merge *m, unsigned int writer,
			 const void *ring, uint64_t ring_size)
{
	if (writer >= m->nwriters || !ring || !ring_ok(m->nwriters, ring_size))
		return -EINVAL;
	m->s[writer].ring = ring;
	m->s[writer].ring_size = ring_size;
	return 0;
}

static bool deliverable(const struct txn_log_merge *m,
			const struct txn_log_entry *e)
{
	unsigned int i;

	for (i = 0; i < m->nwriters; i++)
		if (i != e->writer && e->clock[i] > m->delivered[i])
			return false;
	return true;
}

/*
 * Deliver the next entry in causal order.  Return: 1 with it in @e
 * (consumed: txn_log_merge_consumed() says how far to tell its
 * writer, once the caller is done with its payload); 0 when none is
 * deliverable yet; -EPROTO when a ring holds an entry that breaks a
 * rule, or a head out of its log's sequence, or when the clocks of the
 * heads of every writer's ring contradict each other.
 */
int txn_log_merge(struct txn_log_merge *m, struct txn_log_entry *e)
{
	unsigned int j, i, best = m->nwriters;
	uint64_t best_sum = 0;
	bool all = true;
	int rc;

	for (j = 0; j < m->nwriters; j++) {
		struct txn_log_stream *s = &m->s[j];
		uint64_t sum = 0;

		if (!s->ring) {
			all = false;
			continue;
		}
		if (!s->held) {
			rc = txn_log_reader_scan(&s->rd, s->ring, s->ring_size,
						 &s->head);
			if (rc < 0)
				return rc;
			if (!rc) {
				all = false;
				continue;
			}
			if (s->head.clock[j] != m->delivered[j] + 1)
				return -EPROTO;
			s->held = true;
		}
		if (!deliverable(m, &s->head))
			continue;
		for (i = 0; i < m->nwriters; i++)
			sum += s->head.clock[i];
		if (best == m->nwriters || sum < best_sum) {
			best = j;
			best_sum = sum;
		}
	}
	if (best == m->nwriters)
		return all ? -EPROTO : 0;
	*e = m->s[best].head;
	rc = txn_log_reader_consume(&m->s[best].rd, e);
	if (rc)
		return rc;
	m->s[best].held = false;
	m->delivered[best]++;
	return 1;
}

/* How far writer @writer's log was consumed: tell the writer this. */
uint64_t txn_log_merge_consumed(const struct txn_log_merge *m,
				unsigned int writer)
{
	return writer < m->nwriters ? m->s[writer].rd.pos : 0;
}
