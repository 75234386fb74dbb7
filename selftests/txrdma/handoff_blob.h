/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the handoff test's mover carries from one host to the next: the
 * session's exported state and unsettled SENDs, the bytes of its
 * receive ring area and of those SENDs' payloads, and the stream's
 * bookkeeping (the next message, which messages completed).  On a real
 * move that is the process's memory, checkpointed with it; here one
 * file per hand-off in the run's job directory, which every guest
 * mounts (9p), made to appear whole by rename().
 *
 * A blob, little-endian as the guests are:
 *
 *	struct blob_hdr
 *	struct txrdma_sess_send[hdr.nsends]	(the old host's region ids)
 *	the ring area				hdr.rx_area bytes
 *	each SEND's payload, in order		hdr.payload bytes in all
 *	the done map				hdr.count bytes, 1: completed
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
	const uint8_t *area;
	const uint8_t *payload;
	const uint8_t *done;
	void *buf;
};

/*
 * blob_write() - write blob @h->handoff into @dir: @h, @sends, the ring
 * area at @area, each SEND's payload from @base (the region they are
 * in, @size bytes: a SEND outside it is refused, -EINVAL) and the done
 * map; @h->payload and @h->total are filled in.  It appears under its
 * name only once whole.  Return: 0 or -errno.
 */
int blob_write(const char *dir, struct blob_hdr *h,
	       const struct txrdma_sess_send *sends, const void *area,
	       const void *base, uint64_t size, const uint8_t *done);

/*
 * blob_read() - read blob @k of @dir into @b and check that its parts
 * add up.  Return: 0, -errno of the file, or -EBADMSG.
 */
int blob_read(const char *dir, unsigned int k, struct blob *b);
void blob_free(struct blob *b);

/*
 * blob_wait() - until blob @k of @dir exists (0), another guest's mover
 * gave up (-ECANCELED: blob_fail() made "handoff-failed"), or
 * @timeout_s passed (-ETIMEDOUT).
 */
int blob_wait(const char *dir, unsigned int k, unsigned int timeout_s);
void blob_fail(const char *dir);

/*
 * blob_note_refused() - hand-off @k ran imports meant to be refused
 * before its own (they lengthen its pause); blob_refused(): did it?
 */
void blob_note_refused(const char *dir, unsigned int k);
bool blob_refused(const char *dir, unsigned int k);

#endif
