// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A Raft server's persistent state: term, vote, log, last snapshot.
 *
 * In memory always (libraft loads from it, the tests read it), and
 * optionally behind a write-ahead file (txraft_store_open()): every
 * change is one record in the file.  Records are gathered in memory
 * and written with one pwritev2(RWF_DSYNC) (a write and fdatasync in
 * one system call) by txraft_store_flush(), a group commit:
 *  - a term or vote is flushed before its call returns: a server
 *    never acts on a term or vote that is not on disk, so it never
 *    votes twice in a term, even across a crash;
 *  - appends and truncations are gathered; txraft_io.c flushes once
 *    per poll before it completes any append, and an append's
 *    completion is when libraft counts it towards a commit (a
 *    majority's acknowledgement means a majority's disks).  A leader
 *    sends its entries to the followers first and writes its own copy
 *    meanwhile (Raft allows it: Ongaro's thesis, 10.2.1); every entry
 *    that arrived in one poll costs one flush together;
 *  - records reach the file in the order the changes were made, so a
 *    truncation is in the file before the entries that replace it.
 * A flush that fails, or a rewrite after a snapshot that fails, leaves
 * the store failed: every later change and flush fails with RAFT_IOERR
 * (memory is ahead of the file, and only a restart, which replays the
 * file, makes them agree again; the lesson of PostgreSQL's fsync
 * failures: never retry a failed sync).  txraft_io.c stops the process
 * when a group commit fails (libraft cannot take a group of failed
 * appends).
 *
 * A record is a header (magic, type, payload length, CRC32C of header
 * and payload, two numbers) and its payload.  Opening replays the
 * records in order.  A record that does not check out at the end of
 * the file is a write a crash cut short: it and what follows are
 * dropped (the change never completed, so nobody relied on it).  One
 * that does not check out before further whole records is damage, and
 * the open fails with RAFT_CORRUPT rather than forget a committed
 * entry.  (A host crash in the middle of a flush of several records
 * may also persist a later page of it without an earlier one: that
 * reads as damage, a refusal to start, never as a silent loss.)
 * After a snapshot the file is rewritten (the term, the snapshot, the
 * entries kept after it) into a new file, synced, and renamed over the
 * old one, and the directory synced: the file does not grow forever.
 *
 * "Durable" here is what fdatasync promises on the file system the
 * file is on; TXRAFT_STORE_NOSYNC drops the syncs (tests, and
 * throwaway clusters): a process crash loses nothing that was flushed
 * then (the page cache has it), a host crash may.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "txraft_store.h"
#include "txrdma_frame_check.h"

#define WAL_MAGIC	0x4c415754u	/* "TWAL" */

enum wal_type {
	WAL_TERM = 1,		/* a: term, b: vote */
	WAL_ENTRY = 2,		/* a: index, b: term, etype, payload: data */
	WAL_TRUNCATE = 3,	/* a: first index dropped */
	WAL_SNAPSHOT = 4,	/* a: index, b: term, payload: see below;
				 * first after the term in a rewritten file */
};

struct wal_hdr {
	uint32_t magic;
	uint8_t type;
	uint8_t etype;		/* an entry's type */
	uint16_t resv;
	uint32_t len;		/* payload bytes */
	uint32_t crc;		/* CRC32C of the header (crc 0) and payload */
	uint64_t a, b;
};

/*
 * A snapshot's payload: struct wal_snap, then each server as struct
 * wal_server and its address bytes, then the data.
 */
struct wal_snap {
	uint64_t conf_index;
	uint32_t trailing;
	uint32_t n_servers;
	uint64_t data_len;
};

struct wal_server {
	uint64_t id;
	uint32_t role;
	uint32_t addr_len;
};

/* ---- memory --------------------------------------------------------- */

static void entry_free(struct raft_entry *e)
{
	raft_free(e->buf.base);
	e->buf.base = NULL;
}

static int log_reserve(struct txraft_store *s, size_t more)
{
	struct raft_entry *l;
	size_t cap = s->cap ? s->cap : 64;

	while (cap < s->n + more)
		cap *= 2;
	if (cap == s->cap)
		return 0;
	l = realloc(s->log, cap * sizeof(*l));
	if (!l)
		return RAFT_NOMEM;
	s->log = l;
	s->cap = cap;
	return 0;
}

/* one entry at the log's end: its own copy of @len bytes at @data */
static int log_push(struct txraft_store *s, raft_term term,
		    unsigned short type, const void *data, size_t len)
{
	struct raft_entry *e;
	int rv;

	rv = log_reserve(s, 1);
	if (rv)
		return rv;
	e = &s->log[s->n];
	e->term = term;
	e->type = type;
	e->batch = NULL;
	e->buf.len = len;
	e->buf.base = raft_malloc(len ? len : 1);
	if (!e->buf.base)
		return RAFT_NOMEM;
	memcpy(e->buf.base, data, len);
	s->n++;
	return 0;
}

/* drop the entries from @index on */
static void log_truncate(struct txraft_store *s, raft_index index)
{
	size_t keep = index <= s->start ? 0 : (size_t)(index - s->start);

	while (s->n > keep)
		entry_free(&s->log[--s->n]);
}

/* drop the entries up to and including @index */
static void log_forget(struct txraft_store *s, raft_index index)
{
	size_t drop, i;

	if (index < s->start)
		return;
	drop = (size_t)(index - s->start + 1);
	if (drop > s->n)
		drop = s->n;
	for (i = 0; i < drop; i++)
		entry_free(&s->log[i]);
	memmove(s->log, s->log + drop, (s->n - drop) * sizeof(*s->log));
	s->n -= drop;
	s->start += drop;
}

void txraft_snapshot_free(struct raft_snapshot *s)
{
	unsigned int i;

	if (!s)
		return;
	raft_configuration_close(&s->configuration);
	for (i = 0; i < s->n_bufs; i++)
		raft_free(s->bufs[i].base);
	raft_free(s->bufs);
	raft_free(s);
}

/* a copy of @src for libraft (its memory raft_malloc's), data in one buffer */
struct raft_snapshot *txraft_snapshot_copy(const struct raft_snapshot *src)
{
	struct raft_snapshot *s = raft_calloc(1, sizeof(*s));
	size_t len = 0, off = 0;
	unsigned int i;

	if (!s)
		return NULL;
	s->index = src->index;
	s->term = src->term;
	s->configuration_index = src->configuration_index;
	raft_configuration_init(&s->configuration);
	for (i = 0; i < src->configuration.n; i++) {
		const struct raft_server *v = &src->configuration.servers[i];

		if (raft_configuration_add(&s->configuration, v->id,
					   v->address, v->role))
			goto fail;
	}
	for (i = 0; i < src->n_bufs; i++)
		len += src->bufs[i].len;
	s->bufs = raft_calloc(1, sizeof(*s->bufs));
	if (!s->bufs)
		goto fail;
	s->n_bufs = 1;
	s->bufs[0].len = len;
	s->bufs[0].base = raft_malloc(len ? len : 1);
	if (!s->bufs[0].base)
		goto fail;
	for (i = 0; i < src->n_bufs; i++) {
		memcpy((char *)s->bufs[0].base + off, src->bufs[i].base,
		       src->bufs[i].len);
		off += src->bufs[i].len;
	}
	return s;
fail:
	txraft_snapshot_free(s);
	return NULL;
}

/* the snapshot takes effect: the log keeps @trailing entries before it */
static void apply_snapshot(struct txraft_store *s, struct raft_snapshot *snap,
			   unsigned int trailing)
{
	txraft_snapshot_free(s->snap);
	s->snap = snap;
	if (!trailing) {
		/* installed from the leader: the log starts after it */
		log_truncate(s, s->start);
		s->start = snap->index + 1;
	} else if (snap->index > trailing) {
		log_forget(s, snap->index - trailing);
	}
}

/* ---- the file ------------------------------------------------------- */

static uint32_t rec_crc(const struct wal_hdr *h, const struct iovec *iov,
			int n)
{
	struct wal_hdr c = *h;
	uint32_t crc;
	int i;

	c.crc = 0;
	crc = txrdma_crc32c_update(~0u, &c, sizeof(c));
	for (i = 0; i < n; i++)
		crc = txrdma_crc32c_update(crc, iov[i].iov_base, iov[i].iov_len);
	return ~crc;
}

/*
 * A write, sync or rename failed: RAFT_IOERR, and the first such
 * failure's call and errno kept for txraft_store_error() (libraft only
 * learns RAFT_IOERR, and a server that stops must say why).
 */
static int io_fail(struct txraft_store *s, const char *what)
{
	if (!s->err) {
		s->err = errno ? errno : EIO;
		s->err_what = what;
	}
	return RAFT_IOERR;
}

static int sync_fd(struct txraft_store *s, int fd)
{
	if (s->nosync)
		return 0;
	s->st.syncs++;
	return fdatasync(fd) ? io_fail(s, "fdatasync") : 0;
}

/* grow @w to take @more bytes */
static int wbuf_reserve(struct txraft_wbuf *w, size_t more)
{
	size_t cap = w->cap ? w->cap : 4096;
	uint8_t *p;

	while (cap < w->len + more)
		cap *= 2;
	if (cap == w->cap)
		return 0;
	p = realloc(w->p, cap);
	if (!p)
		return RAFT_NOMEM;
	w->p = p;
	w->cap = cap;
	return 0;
}

/*
 * Write @w to the end of @fd and make it durable: one pwritev2 with
 * RWF_DSYNC, or a write and an fdatasync where the kernel or file
 * system does not take RWF_DSYNC.  Empties @w when it succeeds.
 */
static int wbuf_write(struct txraft_store *s, int fd, struct txraft_wbuf *w)
{
	size_t off = 0;
	bool dsync = !s->nosync && !s->no_rwf_dsync;

	while (off < w->len) {
		struct iovec iov = { .iov_base = w->p + off,
				     .iov_len = w->len - off };
		ssize_t n = pwritev2(fd, &iov, 1, -1, dsync ? RWF_DSYNC : 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && dsync && (errno == EOPNOTSUPP || errno == EINVAL)) {
			s->no_rwf_dsync = true;
			dsync = false;
			continue;
		}
		if (n == 0)
			errno = EIO;
		if (n <= 0)	/* the tail is torn */
			return io_fail(s, "pwritev2");
		off += (size_t)n;
	}
	if (!s->nosync && !dsync && fdatasync(fd))
		return io_fail(s, "fdatasync");
	if (!s->nosync)
		s->st.syncs++;
	w->len = 0;
	return 0;
}

/* one record at the end of @w: the header, then @n payload pieces */
static int rec_write(struct txraft_store *s, struct txraft_wbuf *w,
		     uint8_t type, uint8_t etype, uint64_t a, uint64_t b,
		     const struct iovec *payload, int n)
{
	struct wal_hdr h = { .magic = WAL_MAGIC, .type = type, .etype = etype,
			     .a = a, .b = b };
	size_t total = 0;
	uint8_t *dst;
	int i, rv;

	for (i = 0; i < n; i++)
		total += payload[i].iov_len;
	if (total > UINT32_MAX)
		return RAFT_TOOBIG;
	h.len = (uint32_t)total;
	h.crc = rec_crc(&h, payload, n);
	rv = wbuf_reserve(w, sizeof(h) + total);
	if (rv)
		return rv;
	dst = w->p + w->len;
	memcpy(dst, &h, sizeof(h));
	dst += sizeof(h);
	for (i = 0; i < n; i++) {
		memcpy(dst, payload[i].iov_base, payload[i].iov_len);
		dst += payload[i].iov_len;
	}
	w->len += sizeof(h) + total;
	s->st.records++;
	return 0;
}

static int rec_term(struct txraft_store *s, struct txraft_wbuf *w)
{
	return rec_write(s, w, WAL_TERM, 0, s->term, s->vote, NULL, 0);
}

static int rec_entry(struct txraft_store *s, struct txraft_wbuf *w,
		     raft_index index, const struct raft_entry *e)
{
	struct iovec d = { .iov_base = e->buf.base, .iov_len = e->buf.len };

	return rec_write(s, w, WAL_ENTRY, (uint8_t)e->type, index, e->term,
			 &d, 1);
}

static int rec_snapshot(struct txraft_store *s, struct txraft_wbuf *w,
			const struct raft_snapshot *snap, unsigned int trailing)
{
	struct wal_snap ws = {
		.conf_index = snap->configuration_index,
		.trailing = trailing,
		.n_servers = snap->configuration.n,
	};
	struct wal_server *sv;
	struct iovec *iov;
	unsigned int i;
	size_t len = 0;
	int n = 0, rv;

	for (i = 0; i < snap->n_bufs; i++)
		len += snap->bufs[i].len;
	ws.data_len = len;
	sv = calloc(snap->configuration.n + 1, sizeof(*sv));
	iov = calloc(2 + 2 * snap->configuration.n + snap->n_bufs,
		     sizeof(*iov));
	if (!sv || !iov) {
		free(sv);
		free(iov);
		return RAFT_NOMEM;
	}
	iov[n++] = (struct iovec) { .iov_base = &ws, .iov_len = sizeof(ws) };
	for (i = 0; i < snap->configuration.n; i++) {
		const struct raft_server *v = &snap->configuration.servers[i];

		sv[i].id = v->id;
		sv[i].role = (uint32_t)v->role;
		sv[i].addr_len = v->address ? (uint32_t)strlen(v->address) : 0;
		iov[n++] = (struct iovec) { .iov_base = &sv[i],
					    .iov_len = sizeof(sv[i]) };
		iov[n++] = (struct iovec) { .iov_base = v->address,
					    .iov_len = sv[i].addr_len };
	}
	for (i = 0; i < snap->n_bufs; i++)
		iov[n++] = (struct iovec) { .iov_base = snap->bufs[i].base,
					    .iov_len = snap->bufs[i].len };
	rv = rec_write(s, w, WAL_SNAPSHOT, 0, snap->index, snap->term, iov, n);
	free(sv);
	free(iov);
	return rv;
}

/* a snapshot record's payload back into a raft_snapshot */
static int parse_snapshot(const uint8_t *p, size_t len, uint64_t index,
			  uint64_t term, struct raft_snapshot **out,
			  unsigned int *trailing)
{
	struct raft_snapshot *snap;
	struct wal_snap ws;
	size_t off = sizeof(ws);
	char addr[256];
	uint32_t i;

	if (len < sizeof(ws))
		return RAFT_CORRUPT;
	memcpy(&ws, p, sizeof(ws));
	snap = raft_calloc(1, sizeof(*snap));
	if (!snap)
		return RAFT_NOMEM;
	snap->index = index;
	snap->term = term;
	snap->configuration_index = ws.conf_index;
	raft_configuration_init(&snap->configuration);
	for (i = 0; i < ws.n_servers; i++) {
		struct wal_server sv;

		if (len - off < sizeof(sv))
			goto corrupt;
		memcpy(&sv, p + off, sizeof(sv));
		off += sizeof(sv);
		if (sv.addr_len >= sizeof(addr) || len - off < sv.addr_len)
			goto corrupt;
		memcpy(addr, p + off, sv.addr_len);
		addr[sv.addr_len] = '\0';
		off += sv.addr_len;
		if (raft_configuration_add(&snap->configuration, sv.id, addr,
					   (int)sv.role))
			goto corrupt;
	}
	if (len - off != ws.data_len)
		goto corrupt;
	snap->bufs = raft_calloc(1, sizeof(*snap->bufs));
	if (!snap->bufs)
		goto nomem;
	snap->n_bufs = 1;
	snap->bufs[0].len = ws.data_len;
	snap->bufs[0].base = raft_malloc(ws.data_len ? ws.data_len : 1);
	if (!snap->bufs[0].base)
		goto nomem;
	memcpy(snap->bufs[0].base, p + off, ws.data_len);
	*out = snap;
	*trailing = ws.trailing;
	return 0;
corrupt:
	txraft_snapshot_free(snap);
	return RAFT_CORRUPT;
nomem:
	txraft_snapshot_free(snap);
	return RAFT_NOMEM;
}

/* one record's effect on the memory state */
static int replay(struct txraft_store *s, const struct wal_hdr *h,
		  const uint8_t *p)
{
	struct raft_snapshot *snap;
	unsigned int trailing;
	int rv;

	switch (h->type) {
	case WAL_TERM:
		s->term = h->a;
		s->vote = h->b;
		return 0;
	case WAL_ENTRY:
		/* entries follow each other: anything else is damage */
		if (h->a != s->start + s->n)
			return RAFT_CORRUPT;
		return log_push(s, h->b, h->etype, p, h->len);
	case WAL_TRUNCATE:
		log_truncate(s, h->a);
		return 0;
	case WAL_SNAPSHOT:
		/*
		 * Only a rewritten file has one, before its entries: the log
		 * starts @trailing entries before the snapshot's end
		 */
		rv = parse_snapshot(p, h->len, h->a, h->b, &snap, &trailing);
		if (rv)
			return rv;
		if (trailing > h->a + 1) {
			txraft_snapshot_free(snap);
			return RAFT_CORRUPT;
		}
		log_truncate(s, s->start);
		txraft_snapshot_free(s->snap);
		s->snap = snap;
		s->start = h->a + 1 - trailing;
		return 0;
	default:
		return RAFT_CORRUPT;
	}
}

/*
 * Does a record that checks out start anywhere after @off?  Then the
 * bad one at @off is damage, not a write a crash cut short (a flush's
 * records are written in one system call, and synced before the next
 * flush is written; a host crash in the middle of one may still leave
 * a later page without an earlier one: damage too, see the top).
 */
static bool whole_records_after(const uint8_t *buf, size_t off, size_t size)
{
	size_t p;

	for (p = off + 1; size - p >= sizeof(struct wal_hdr) && p < size; p++) {
		struct wal_hdr h;
		struct iovec iov;

		memcpy(&h, buf + p, sizeof(h));
		if (h.magic != WAL_MAGIC || size - p - sizeof(h) < h.len)
			continue;
		iov = (struct iovec) { .iov_base = (void *)(buf + p + sizeof(h)),
				       .iov_len = h.len };
		if (rec_crc(&h, &iov, 1) == h.crc)
			return true;
	}
	return false;
}

/* read the file's records into @s; cut a torn tail off the file */
static int load_file(struct txraft_store *s, int fd)
{
	struct stat stt;
	uint8_t *buf;
	size_t size, off = 0;
	ssize_t r;
	int rv = 0;

	if (fstat(fd, &stt))
		return io_fail(s, "fstat");
	size = (size_t)stt.st_size;
	buf = malloc(size ? size : 1);
	if (!buf)
		return RAFT_NOMEM;
	for (off = 0; off < size; off += (size_t)r) {
		r = pread(fd, buf + off, size - off, (off_t)off);
		if (r <= 0) {
			if (r == 0)
				errno = EIO;
			free(buf);
			return io_fail(s, "pread");
		}
	}
	off = 0;
	while (off < size) {
		struct wal_hdr h;
		struct iovec iov;
		bool whole;

		whole = size - off >= sizeof(h);
		if (whole) {
			memcpy(&h, buf + off, sizeof(h));
			whole = h.magic == WAL_MAGIC &&
				size - off - sizeof(h) >= h.len;
		}
		if (whole) {
			iov = (struct iovec) { .iov_base = buf + off + sizeof(h),
					       .iov_len = h.len };
			whole = rec_crc(&h, &iov, 1) == h.crc;
		}
		if (!whole) {
			/*
			 * A crash cut the last write short: drop it.  Before
			 * further records it is damage.
			 */
			if (whole_records_after(buf, off, size)) {
				rv = RAFT_CORRUPT;
				break;
			}
			s->st.torn_bytes += size - off;
			if (ftruncate(fd, (off_t)off))
				rv = io_fail(s, "ftruncate");
			else
				rv = sync_fd(s, fd);
			break;
		}
		rv = replay(s, &h, buf + off + sizeof(h));
		if (rv)
			break;
		off += sizeof(h) + h.len;
		s->st.records++;
	}
	free(buf);
	return rv;
}

/* ---- changes ------------------------------------------------------- */

int txraft_store_flush(struct txraft_store *s)
{
	int rv;

	if (s->failed)
		return RAFT_IOERR;
	if (s->fd < 0 || !s->pend.len)
		return 0;
	if (s->crashed) {	/* txraft_store_crash(): the writes are lost */
		s->pend.len = 0;
		return 0;
	}
	rv = wbuf_write(s, s->fd, &s->pend);
	if (rv)
		s->failed = true;
	else
		s->st.flushes++;
	return rv;
}

/* the term and vote as they are now: recorded and flushed */
static int term_changed(struct txraft_store *s)
{
	size_t len = s->pend.len;
	int rv;

	if (s->fd < 0)
		return 0;
	rv = rec_term(s, &s->pend);
	if (rv) {
		s->pend.len = len;
		return rv;
	}
	return txraft_store_flush(s);
}

int txraft_store_set_term(struct txraft_store *s, raft_term term)
{
	raft_term old_term = s->term;
	raft_id old_vote = s->vote;
	int rv;

	if (s->failed)
		return RAFT_IOERR;
	s->term = term;
	s->vote = 0;
	rv = term_changed(s);
	if (rv) {
		s->term = old_term;
		s->vote = old_vote;
	}
	return rv;
}

int txraft_store_set_vote(struct txraft_store *s, raft_id vote)
{
	raft_id old = s->vote;
	int rv;

	if (s->failed)
		return RAFT_IOERR;
	s->vote = vote;
	rv = term_changed(s);
	if (rv)
		s->vote = old;
	return rv;
}

int txraft_store_append(struct txraft_store *s, const struct raft_entry *es,
			unsigned int n)
{
	size_t n0 = s->n, len = s->pend.len;
	unsigned int i;
	int rv = 0;

	if (s->failed)
		return RAFT_IOERR;
	for (i = 0; i < n && !rv; i++) {
		rv = log_push(s, es[i].term, es[i].type, es[i].buf.base,
			      es[i].buf.len);
		if (!rv && s->fd >= 0)
			rv = rec_entry(s, &s->pend, s->start + s->n - 1,
				       &s->log[s->n - 1]);
	}
	if (rv) {	/* out of memory: as if never asked */
		log_truncate(s, s->start + n0);
		s->pend.len = len;
	}
	return rv;
}

int txraft_store_truncate(struct txraft_store *s, raft_index index)
{
	int rv;

	if (s->failed)
		return RAFT_IOERR;
	if (s->fd >= 0) {
		rv = rec_write(s, &s->pend, WAL_TRUNCATE, 0, index, 0, NULL, 0);
		if (rv)
			return rv;
	}
	log_truncate(s, index);
	return 0;
}

void txraft_store_crash(struct txraft_store *s)
{
	s->pend.len = 0;
	s->crashed = true;
}

/* directory of @path, synced: a rename in it is durable */
static int sync_dir(struct txraft_store *s)
{
	char *copy = strdup(s->path);
	int fd, rv = 0;

	if (!copy)
		return RAFT_NOMEM;
	fd = open(dirname(copy), O_RDONLY | O_DIRECTORY);
	free(copy);
	if (fd < 0)
		return io_fail(s, "open directory");
	if (!s->nosync && fsync(fd))
		rv = io_fail(s, "fsync directory");
	close(fd);
	return rv;
}

/*
 * The file rewritten from memory (term, snapshot, the entries kept)
 * into a new file, synced, renamed over the old one.  Memory already
 * holds every change gathered for the old file, so those are dropped:
 * the new file has them.
 */
static int compact(struct txraft_store *s)
{
	size_t len = strlen(s->path) + 5, i;
	struct txraft_wbuf w = { 0 };
	char *tmp = malloc(len);
	int fd, rv;

	if (!tmp)
		return RAFT_NOMEM;
	snprintf(tmp, len, "%s.new", s->path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC,
		  0600);
	if (fd < 0) {
		free(tmp);
		return io_fail(s, "open new file");
	}
	rv = rec_term(s, &w);
	/* the entries kept before the snapshot's end, for the replay */
	if (!rv && s->snap)
		rv = rec_snapshot(s, &w, s->snap,
				  (unsigned int)(s->snap->index + 1 - s->start));
	for (i = 0; !rv && i < s->n; i++)
		rv = rec_entry(s, &w, s->start + i, &s->log[i]);
	if (!rv && s->crashed)
		rv = RAFT_IOERR;	/* nothing reaches the disk any more */
	if (!rv)
		rv = wbuf_write(s, fd, &w);
	if (!rv && rename(tmp, s->path))
		rv = io_fail(s, "rename");
	if (rv) {
		/* the old file stands, as it was */
		close(fd);
		unlink(tmp);
	} else {
		/*
		 * Renamed: the new file is the store's now, whatever the
		 * directory's sync says (the old one is unlinked, writing
		 * on would go nowhere a restart reads).
		 */
		close(s->fd);
		s->fd = fd;
		s->pend.len = 0;
		s->st.compactions++;
		rv = sync_dir(s);
	}
	free(w.p);
	free(tmp);
	return rv;
}

int txraft_store_snapshot(struct txraft_store *s, struct raft_snapshot *snap,
			  unsigned int trailing)
{
	int rv;

	if (s->failed) {
		txraft_snapshot_free(snap);
		return RAFT_IOERR;
	}
	apply_snapshot(s, snap, trailing);
	if (s->fd < 0)
		return 0;
	rv = compact(s);
	/*
	 * Memory has moved to the snapshot and the file may not say so:
	 * appends after it would leave a gap a replay refuses.  Failed,
	 * as after a failed flush.
	 */
	if (rv)
		s->failed = true;
	return rv;
}

/* ---- set-up ---------------------------------------------------------- */

int txraft_store_new(struct txraft_store **sp)
{
	struct txraft_store *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->start = 1;
	s->fd = -1;
	*sp = s;
	return 0;
}

int txraft_store_open(struct txraft_store **sp, const char *path,
		      unsigned int flags)
{
	struct txraft_store *s;
	int rv;

	if (!path || !*path || (flags & ~TXRAFT_STORE_NOSYNC))
		return -EINVAL;
	rv = txraft_store_new(&s);
	if (rv)
		return rv;
	s->nosync = flags & TXRAFT_STORE_NOSYNC;
	s->path = strdup(path);
	if (!s->path) {
		txraft_store_free(s);
		return -ENOMEM;
	}
	s->fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (s->fd < 0) {
		rv = -errno;
		txraft_store_free(s);
		return rv;
	}
	rv = load_file(s, s->fd);
	if (rv) {
		txraft_store_free(s);
		return rv == RAFT_NOMEM ? -ENOMEM :
		       rv == RAFT_CORRUPT ? -EBADMSG : -EIO;
	}
	*sp = s;
	return 0;
}

void txraft_store_free(struct txraft_store *s)
{
	if (!s)
		return;
	/* what was gathered and not flushed is as lost as in a crash */
	free(s->pend.p);
	while (s->n)
		entry_free(&s->log[--s->n]);
	free(s->log);
	txraft_snapshot_free(s->snap);
	if (s->fd >= 0)
		close(s->fd);
	free(s->path);
	free(s);
}

raft_index txraft_store_start(const struct txraft_store *s)
{
	return s->start;
}

size_t txraft_store_count(const struct txraft_store *s)
{
	return s->n;
}

const struct raft_entry *txraft_store_entry(const struct txraft_store *s,
					    raft_index index)
{
	if (index < s->start || index - s->start >= s->n)
		return NULL;
	return &s->log[index - s->start];
}

void txraft_store_stats(const struct txraft_store *s,
			struct txraft_store_stats *st)
{
	*st = s->st;
}

int txraft_store_error(const struct txraft_store *s, const char **what)
{
	if (what)
		*what = s->err ? s->err_what : NULL;
	return s->err;
}
