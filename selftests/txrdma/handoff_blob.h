/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the handoff test's mover carries from one host to the next: the
 * session's exported state and unsettled SENDs, the bytes of its
 * receive ring area and of those SENDs' payloads, and the stream's
 * bookkeeping (the next message, which messages completed).  On a real
 * move that is the process's memory, checkpointed with it; here it goes
 * from mover to mover over TCP, and the importer then keeps it in the
 * run's job directory (handoff-blob.K) for the attacks on old states.
 *
 * A blob, little-endian as the guests are:
 *
 *	struct blob_hdr
 *	struct txrdma_sess_send[hdr.nsends]	(the old host's region ids)
 *	the ring's header			TXRDMA_RX_HDR_LEN bytes
 *	its unread units, from hdr.rx_head on	hdr.rx_unread * 64 bytes
 *	each SEND's payload, in order		hdr.payload bytes in all
 *	the done map, a bit per message		(hdr.count + 7) / 8 bytes
 *
 * Only the ring's unread units and a bit per message: what the blob
 * carries while the stream is interrupted is what the next host needs,
 * not the ring's old frames (about 3 KiB without SENDs, not 86).
 */
#ifndef _TXRDMA_HANDOFF_BLOB_H
#define _TXRDMA_HANDOFF_BLOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <txrdma.h>

#define BLOB_MAGIC		0x46464f48u	/* "HOFF" */
/* an import before this one tried SENDs with bad regions/offsets */
#define BLOB_F_BAD_SENDS_DONE	(1u << 0)

struct blob_hdr {
	uint32_t magic;
	uint32_t handoff;	/* the hand-off this blob is for (1..) */
	uint32_t from_guest;
	uint32_t nsends;	/* the state's */
	uint32_t flags;		/* BLOB_F_* */
	uint32_t with_sends;	/* hand-offs so far with unsettled SENDs */
	uint32_t rx_area;	/* bytes of the ring area */
	uint32_t rx_unread;	/* units unreleased at the export */
	uint32_t rx_head;	/* the first of them (free-running) */
	uint32_t rx_part;	/* bytes of the ring in the blob */
	uint64_t rx_off;	/* where the ring area is in its region */
	uint64_t next;		/* the first message not posted yet */
	uint64_t count;		/* messages in the stream */
	uint64_t rev_next;	/* the next progress frame expected */
	uint64_t rev_bad;	/* progress frames that were not it */
	uint64_t dup, wrong, failed;	/* bad completions so far */
	uint64_t payload;	/* payload bytes after the ring area */
	uint64_t total;		/* bytes of the blob, header included */
	struct txrdma_sess_state state;
};

_Static_assert(sizeof(struct blob_hdr) % 8 == 0, "blob_hdr padding");

/* a blob read back: pointers into one buffer */
struct blob {
	struct blob_hdr h;
	const struct txrdma_sess_send *sends;
	const uint8_t *ring;	/* its header, then the unread units */
	const uint8_t *payload;
	const uint8_t *done;	/* a bit per message */
	void *buf;
};

/*
 * blob_pack() - blob @h->handoff in one buffer (*@bufp, malloc'd): @h,
 * @sends, of the ring area at @area (@h->rx_area bytes) its header and
 * @h->rx_unread units from @h->rx_head, each SEND's payload from @base
 * (the region they are in, @size bytes: a SEND outside it is refused,
 * -EINVAL) and the done map (@h->count bytes, 1: completed) as bits;
 * @h->rx_part, @h->payload and @h->total are filled in.
 * Return: 0 or -errno.
 */
int blob_pack(struct blob_hdr *h, const struct txrdma_sess_send *sends,
	      const void *area, const void *base, uint64_t size,
	      const uint8_t *done, void **bufp);

/*
 * blob_store() - @len bytes at @buf as blob @k of @dir, appearing under
 * its name only once whole; blob_read(): blob @k of @dir into @b,
 * checked that its parts add up.  Return: 0, -errno, -EBADMSG.
 */
/*
 * blob_ring() - the ring of @b back into the area at @area (as big as
 * @b->h.rx_area): its header and unread units where they were; the
 * other units are left as they are.  blob_done(): the done map into
 * @done (@b->h.count bytes).
 */
void blob_ring(const struct blob *b, void *area);
void blob_done(const struct blob *b, uint8_t *done);

int blob_store(const char *dir, unsigned int k, const void *buf,
	       uint64_t len);
int blob_read(const char *dir, unsigned int k, struct blob *b);
void blob_free(struct blob *b);

/*
 * Between the movers, over TCP on the guests' own link: the exporter
 * listens (blob_listen(): the fd or -errno) and, at its hand-off,
 * blob_send()s the packed blob to the importer that connected; the
 * importer blob_connect()s (retrying while nobody listens yet) before
 * the hand-off and blob_recv()s blob @k into @b.  Each wait ends with
 * -ECANCELED when the other mover gave up (blob_fail() made
 * "handoff-failed" in @dir), or -ETIMEDOUT after @timeout_s.
 */
int blob_listen(uint16_t port);
int blob_connect(const char *addr, uint16_t port, const char *dir,
		 unsigned int timeout_s);
int blob_send(int lfd, const char *dir, const void *buf, uint64_t len,
	      unsigned int timeout_s);
int blob_recv(int fd, const char *dir, unsigned int k, unsigned int timeout_s,
	      struct blob *b);
void blob_fail(const char *dir);

/*
 * blob_note_refused() - hand-off @k ran imports meant to be refused
 * before its own (they lengthen its pause); blob_refused(): did it?
 */
void blob_note_refused(const char *dir, unsigned int k);
bool blob_refused(const char *dir, unsigned int k);

#endif
