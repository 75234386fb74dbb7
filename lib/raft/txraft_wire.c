// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Raft RPCs to bytes and back (uapi/linux/txrdma_raft.h).
 *
 * Encoding writes the header last: its CRC covers every byte that has
 * no CRC of its own (the body, descriptors, servers), so a receiver
 * that checks it knows the terms, indexes and lengths it is about to
 * trust are the sender's.  Payloads (entries, snapshot data) carry their
 * own CRC32C, computed here once from the caller's buffers: a leader's
 * entry is hashed where raft keeps it, with no copy beside the one into
 * the transport message.
 *
 * Decoding checks everything before it allocates anything: a message
 * that fails a check costs no memory.  Then it copies what libraft will
 * own (the transport's buffer is valid during its callback only):
 * every entry of an AppendEntries into one batch, as libraft's own
 * transport does, so that the batch is freed when its last entry goes.
 */
#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include <linux/txrdma_raft.h>

#include "txrdma_frame_check.h"
#include "txraft_wire.h"

#define HDR	sizeof(struct txrdma_raft_hdr)
#define ALIGN8(x)	(((x) + 7) & ~(size_t)7)
#define MSG_MAX	0xffffffffULL	/* @len is 32 bits */

static uint32_t crc_begin(void)
{
	return ~0u;
}

static uint32_t crc_add(uint32_t crc, const void *p, size_t n)
{
	return txrdma_crc32c_update(crc, p, n);
}

static uint32_t crc_of(const void *p, size_t n)
{
	return ~crc_add(crc_begin(), p, n);
}

static size_t body_size(unsigned int type)
{
	switch (type) {
	case RAFT_IO_APPEND_ENTRIES:
		return sizeof(struct txrdma_raft_append_entries);
	case RAFT_IO_APPEND_ENTRIES_RESULT:
		return sizeof(struct txrdma_raft_append_entries_result);
	case RAFT_IO_REQUEST_VOTE:
		return sizeof(struct txrdma_raft_request_vote);
	case RAFT_IO_REQUEST_VOTE_RESULT:
		return sizeof(struct txrdma_raft_request_vote_result);
	case RAFT_IO_INSTALL_SNAPSHOT:
		return sizeof(struct txrdma_raft_install_snapshot);
	case RAFT_IO_TIMEOUT_NOW:
		return sizeof(struct txrdma_raft_timeout_now);
	default:
		return 0;
	}
}

size_t txraft_wire_size(const struct raft_message *m)
{
	unsigned long long n;
	size_t body = body_size(m->type), a;
	unsigned int i;

	if (!body)
		return 0;
	n = HDR + body;
	if (m->type == RAFT_IO_APPEND_ENTRIES) {
		const struct raft_append_entries *ae = &m->append_entries;

		if (ae->n_entries > TXRDMA_RAFT_MAX_ENTRIES ||
		    (ae->n_entries && !ae->entries))
			return 0;
		for (i = 0; i < ae->n_entries; i++) {
			if (ae->entries[i].buf.len > MSG_MAX ||
			    (ae->entries[i].buf.len && !ae->entries[i].buf.base))
				return 0;
			n += sizeof(struct txrdma_raft_entry) +
			     ALIGN8(ae->entries[i].buf.len);
		}
	} else if (m->type == RAFT_IO_INSTALL_SNAPSHOT) {
		const struct raft_install_snapshot *is = &m->install_snapshot;

		if (is->conf.n > TXRDMA_RAFT_MAX_SERVERS ||
		    is->data.len > MSG_MAX || (is->data.len && !is->data.base))
			return 0;
		for (i = 0; i < is->conf.n; i++) {
			const char *addr = is->conf.servers[i].address;

			a = addr ? strlen(addr) : 0;
			if (a > TXRDMA_RAFT_MAX_ADDR)
				return 0;
			n += sizeof(struct txrdma_raft_server) + ALIGN8(a);
		}
		n += ALIGN8(is->data.len);
	}
	return n > MSG_MAX ? 0 : (size_t)n;
}

static uint8_t entry_type_out(unsigned short t)
{
	switch (t) {
	case RAFT_COMMAND:
		return TXRDMA_RAFT_ENTRY_COMMAND;
	case RAFT_BARRIER:
		return TXRDMA_RAFT_ENTRY_BARRIER;
	case RAFT_CHANGE:
		return TXRDMA_RAFT_ENTRY_CHANGE;
	default:
		return 0;
	}
}

static int entry_type_in(uint8_t t, unsigned short *out)
{
	switch (t) {
	case TXRDMA_RAFT_ENTRY_COMMAND:
		*out = RAFT_COMMAND;
		return 0;
	case TXRDMA_RAFT_ENTRY_BARRIER:
		*out = RAFT_BARRIER;
		return 0;
	case TXRDMA_RAFT_ENTRY_CHANGE:
		*out = RAFT_CHANGE;
		return 0;
	default:
		return -EBADMSG;
	}
}

/* the message's term: every RPC carries the sender's */
static raft_term term_of(const struct raft_message *m)
{
	switch (m->type) {
	case RAFT_IO_APPEND_ENTRIES:
		return m->append_entries.term;
	case RAFT_IO_APPEND_ENTRIES_RESULT:
		return m->append_entries_result.term;
	case RAFT_IO_REQUEST_VOTE:
		return m->request_vote.term;
	case RAFT_IO_REQUEST_VOTE_RESULT:
		return m->request_vote_result.term;
	case RAFT_IO_INSTALL_SNAPSHOT:
		return m->install_snapshot.term;
	default:
		return m->timeout_now.term;
	}
}

long txraft_wire_encode(const struct raft_message *m, uint64_t from,
			void *buf, size_t cap)
{
	size_t need = txraft_wire_size(m), off, covered, i;
	struct txrdma_raft_hdr *h = buf;
	uint8_t *p = buf;

	if (!need || !from)
		return -EINVAL;
	if (cap < need)
		return -ENOSPC;
	memset(buf, 0, need);
	off = HDR;
	switch (m->type) {
	case RAFT_IO_APPEND_ENTRIES: {
		const struct raft_append_entries *ae = &m->append_entries;
		struct txrdma_raft_append_entries *b = (void *)(p + off);
		struct txrdma_raft_entry *d;
		size_t data;

		for (i = 0; i < ae->n_entries; i++)
			if (!entry_type_out(ae->entries[i].type))
				return -EINVAL;
		b->prev_log_index = htole64(ae->prev_log_index);
		b->prev_log_term = htole64(ae->prev_log_term);
		b->leader_commit = htole64(ae->leader_commit);
		b->n_entries = htole32(ae->n_entries);
		off += sizeof(*b);
		d = (void *)(p + off);
		data = off + ae->n_entries * sizeof(*d);
		for (i = 0; i < ae->n_entries; i++) {
			const struct raft_entry *e = &ae->entries[i];

			d[i].term = htole64(e->term);
			d[i].len = htole32((uint32_t)e->buf.len);
			d[i].crc = htole32(crc_of(e->buf.base, e->buf.len));
			d[i].type = entry_type_out(e->type);
			if (e->buf.len)
				memcpy(p + data, e->buf.base, e->buf.len);
			data += ALIGN8(e->buf.len);
		}
		covered = off + ae->n_entries * sizeof(*d);
		break;
	}
	case RAFT_IO_APPEND_ENTRIES_RESULT: {
		struct txrdma_raft_append_entries_result *b = (void *)(p + off);

		b->rejected = htole64(m->append_entries_result.rejected);
		b->last_log_index =
			htole64(m->append_entries_result.last_log_index);
		covered = need;
		break;
	}
	case RAFT_IO_REQUEST_VOTE: {
		const struct raft_request_vote *rv = &m->request_vote;
		struct txrdma_raft_request_vote *b = (void *)(p + off);

		b->candidate = htole64(rv->candidate_id);
		b->last_log_index = htole64(rv->last_log_index);
		b->last_log_term = htole64(rv->last_log_term);
		b->flags = htole32((rv->disrupt_leader ?
				    TXRDMA_RAFT_VOTE_F_DISRUPT : 0) |
				   (rv->pre_vote ? TXRDMA_RAFT_VOTE_F_PRE : 0));
		covered = need;
		break;
	}
	case RAFT_IO_REQUEST_VOTE_RESULT: {
		const struct raft_request_vote_result *rr =
			&m->request_vote_result;
		struct txrdma_raft_request_vote_result *b = (void *)(p + off);
		uint32_t f = rr->vote_granted ? TXRDMA_RAFT_RESULT_F_GRANTED : 0;

		if (rr->pre_vote != raft_tribool_unknown)
			f |= TXRDMA_RAFT_RESULT_F_PRE_KNOWN;
		if (rr->pre_vote == raft_tribool_true)
			f |= TXRDMA_RAFT_RESULT_F_PRE;
		b->flags = htole32(f);
		covered = need;
		break;
	}
	case RAFT_IO_INSTALL_SNAPSHOT: {
		const struct raft_install_snapshot *is = &m->install_snapshot;
		struct txrdma_raft_install_snapshot *b = (void *)(p + off);

		b->last_index = htole64(is->last_index);
		b->last_term = htole64(is->last_term);
		b->conf_index = htole64(is->conf_index);
		b->data_len = htole64(is->data.len);
		b->n_servers = htole32(is->conf.n);
		b->data_crc = htole32(crc_of(is->data.base, is->data.len));
		off += sizeof(*b);
		for (i = 0; i < is->conf.n; i++) {
			const struct raft_server *s = &is->conf.servers[i];
			struct txrdma_raft_server *d = (void *)(p + off);
			size_t a = s->address ? strlen(s->address) : 0;

			if (!s->id || s->role < 0 || s->role > 255)
				return -EINVAL;
			d->id = htole64(s->id);
			d->role = (uint8_t)s->role;
			d->addr_len = (uint8_t)a;
			off += sizeof(*d);
			if (a)
				memcpy(p + off, s->address, a);
			off += ALIGN8(a);
		}
		covered = off;
		if (is->data.len)
			memcpy(p + off, is->data.base, is->data.len);
		break;
	}
	default: {
		struct txrdma_raft_timeout_now *b = (void *)(p + off);

		b->last_log_index = htole64(m->timeout_now.last_log_index);
		b->last_log_term = htole64(m->timeout_now.last_log_term);
		covered = need;
		break;
	}
	}
	h->magic = htole16(TXRDMA_RAFT_MAGIC);
	h->version = TXRDMA_RAFT_VERSION;
	h->type = (uint8_t)m->type;
	h->len = htole32((uint32_t)need);
	h->from = htole64(from);
	h->term = htole64(term_of(m));
	h->crc = htole32(crc_of(buf, covered));
	return (long)need;
}

/* the reserved bytes at @p are all zero */
static bool zero(const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n--)
		if (*b++)
			return false;
	return true;
}

/*
 * The structural checks: every length in @buf adds up to @len and
 * every reserved field is zero.  Sets *@covered: the bytes the
 * header's CRC covers.
 */
static int check_layout(const uint8_t *buf, size_t len, size_t *covered)
{
	const struct txrdma_raft_hdr *h = (const void *)buf;
	size_t off = HDR, body, i;
	unsigned long long n;

	if (len < HDR || le16toh(h->magic) != TXRDMA_RAFT_MAGIC ||
	    h->version != TXRDMA_RAFT_VERSION || le32toh(h->len) != len ||
	    !le64toh(h->from) || h->resv)
		return -EBADMSG;
	body = body_size(h->type);
	if (!body || len < HDR + body)
		return -EBADMSG;
	switch (h->type) {
	case RAFT_IO_APPEND_ENTRIES: {
		const struct txrdma_raft_append_entries *b =
			(const void *)(buf + off);
		const struct txrdma_raft_entry *d;
		uint32_t ne = le32toh(b->n_entries);

		if (b->resv || ne > TXRDMA_RAFT_MAX_ENTRIES)
			return -EBADMSG;
		off += sizeof(*b);
		if ((len - off) / sizeof(*d) < ne)
			return -EBADMSG;
		d = (const void *)(buf + off);
		off += ne * sizeof(*d);
		*covered = off;
		n = off;
		for (i = 0; i < ne; i++) {
			if (!zero(d[i].resv, sizeof(d[i].resv)))
				return -EBADMSG;
			n += ALIGN8((unsigned long long)le32toh(d[i].len));
		}
		return n == len ? 0 : -EBADMSG;
	}
	case RAFT_IO_INSTALL_SNAPSHOT: {
		const struct txrdma_raft_install_snapshot *b =
			(const void *)(buf + off);
		uint32_t ns = le32toh(b->n_servers);
		uint64_t dl = le64toh(b->data_len);

		if (ns > TXRDMA_RAFT_MAX_SERVERS || dl > MSG_MAX)
			return -EBADMSG;
		off += sizeof(*b);
		for (i = 0; i < ns; i++) {
			const struct txrdma_raft_server *s;

			if (len - off < sizeof(*s))
				return -EBADMSG;
			s = (const void *)(buf + off);
			if (!s->id || !zero(s->resv, sizeof(s->resv)))
				return -EBADMSG;
			off += sizeof(*s);
			if (len - off < ALIGN8(s->addr_len) ||
			    !zero(buf + off + s->addr_len,
				  ALIGN8(s->addr_len) - s->addr_len))
				return -EBADMSG;
			off += ALIGN8(s->addr_len);
		}
		*covered = off;
		return len - off == ALIGN8(dl) &&
		       zero(buf + off + dl, ALIGN8(dl) - dl) ? 0 : -EBADMSG;
	}
	case RAFT_IO_REQUEST_VOTE: {
		const struct txrdma_raft_request_vote *b =
			(const void *)(buf + off);

		if (b->resv || (le32toh(b->flags) & ~TXRDMA_RAFT_VOTE_FLAGS))
			return -EBADMSG;
		break;
	}
	case RAFT_IO_REQUEST_VOTE_RESULT: {
		const struct txrdma_raft_request_vote_result *b =
			(const void *)(buf + off);

		if (b->resv || (le32toh(b->flags) & ~TXRDMA_RAFT_RESULT_FLAGS))
			return -EBADMSG;
		break;
	}
	default:
		break;
	}
	*covered = len;
	return len == HDR + body ? 0 : -EBADMSG;
}

static int decode_entries(const uint8_t *buf, size_t len,
			  struct raft_append_entries *ae)
{
	const struct txrdma_raft_append_entries *b = (const void *)(buf + HDR);
	const struct txrdma_raft_entry *d = (const void *)(b + 1);
	uint32_t ne = le32toh(b->n_entries), i;
	size_t off = HDR + sizeof(*b) + ne * sizeof(*d), total = 0;
	uint8_t *batch;
	int ret;

	ae->prev_log_index = le64toh(b->prev_log_index);
	ae->prev_log_term = le64toh(b->prev_log_term);
	ae->leader_commit = le64toh(b->leader_commit);
	ae->n_entries = ne;
	ae->entries = NULL;
	if (!ne)
		return 0;
	/* every entry checks out before anything is allocated */
	for (i = 0; i < ne; i++) {
		uint32_t el = le32toh(d[i].len);
		unsigned short t;

		ret = entry_type_in(d[i].type, &t);
		if (ret)
			return ret;
		if (crc_of(buf + off, el) != le32toh(d[i].crc) ||
		    !zero(buf + off + el, ALIGN8(el) - el))
			return -EBADMSG;
		off += ALIGN8(el);
		total += el;
	}
	ae->entries = raft_calloc(ne, sizeof(*ae->entries));
	batch = raft_malloc(total ? total : 1);
	if (!ae->entries || !batch) {
		raft_free(ae->entries);
		raft_free(batch);
		ae->entries = NULL;
		return -ENOMEM;
	}
	off = HDR + sizeof(*b) + ne * sizeof(*d);
	total = 0;
	for (i = 0; i < ne; i++) {
		uint32_t el = le32toh(d[i].len);
		struct raft_entry *e = &ae->entries[i];

		e->term = le64toh(d[i].term);
		entry_type_in(d[i].type, &e->type);
		e->buf.base = batch + total;
		e->buf.len = el;
		e->batch = batch;
		memcpy(batch + total, buf + off, el);
		off += ALIGN8(el);
		total += el;
	}
	(void)len;
	return 0;
}

static int decode_snapshot(const uint8_t *buf, size_t len,
			   struct raft_install_snapshot *is)
{
	const struct txrdma_raft_install_snapshot *b =
		(const void *)(buf + HDR);
	uint32_t ns = le32toh(b->n_servers), i;
	size_t off = HDR + sizeof(*b), dl = le64toh(b->data_len);
	size_t data_off = len - ALIGN8(dl);
	char addr[TXRDMA_RAFT_MAX_ADDR + 1];

	if (crc_of(buf + data_off, dl) != le32toh(b->data_crc))
		return -EBADMSG;
	is->last_index = le64toh(b->last_index);
	is->last_term = le64toh(b->last_term);
	is->conf_index = le64toh(b->conf_index);
	raft_configuration_init(&is->conf);
	for (i = 0; i < ns; i++) {
		const struct txrdma_raft_server *s = (const void *)(buf + off);
		int rv;

		off += sizeof(*s);
		memcpy(addr, buf + off, s->addr_len);
		addr[s->addr_len] = '\0';
		off += ALIGN8(s->addr_len);
		rv = raft_configuration_add(&is->conf, le64toh(s->id), addr,
					    s->role);
		if (rv) {
			raft_configuration_close(&is->conf);
			return rv == RAFT_NOMEM ? -ENOMEM : -EBADMSG;
		}
	}
	is->data.len = dl;
	is->data.base = raft_malloc(dl ? dl : 1);
	if (!is->data.base) {
		raft_configuration_close(&is->conf);
		return -ENOMEM;
	}
	memcpy(is->data.base, buf + data_off, dl);
	return 0;
}

int txraft_wire_decode(const void *buf, size_t len, struct raft_message *m)
{
	const struct txrdma_raft_hdr *h = buf;
	const uint8_t *p = buf;
	struct txrdma_raft_hdr copy;
	size_t covered;
	uint32_t crc;
	int ret;

	ret = check_layout(buf, len, &covered);
	if (ret)
		return ret;
	copy = *h;
	copy.crc = 0;
	crc = crc_add(crc_begin(), &copy, HDR);
	crc = ~crc_add(crc, p + HDR, covered - HDR);
	if (crc != le32toh(h->crc))
		return -EBADMSG;

	memset(m, 0, sizeof(*m));
	m->type = h->type;
	m->server_id = le64toh(h->from);
	switch (h->type) {
	case RAFT_IO_APPEND_ENTRIES:
		m->append_entries.term = le64toh(h->term);
		return decode_entries(p, len, &m->append_entries);
	case RAFT_IO_APPEND_ENTRIES_RESULT: {
		const struct txrdma_raft_append_entries_result *b =
			(const void *)(p + HDR);

		m->append_entries_result.term = le64toh(h->term);
		m->append_entries_result.rejected = le64toh(b->rejected);
		m->append_entries_result.last_log_index =
			le64toh(b->last_log_index);
		return 0;
	}
	case RAFT_IO_REQUEST_VOTE: {
		const struct txrdma_raft_request_vote *b =
			(const void *)(p + HDR);
		uint32_t f = le32toh(b->flags);

		m->request_vote.term = le64toh(h->term);
		m->request_vote.candidate_id = le64toh(b->candidate);
		m->request_vote.last_log_index = le64toh(b->last_log_index);
		m->request_vote.last_log_term = le64toh(b->last_log_term);
		m->request_vote.disrupt_leader =
			!!(f & TXRDMA_RAFT_VOTE_F_DISRUPT);
		m->request_vote.pre_vote = !!(f & TXRDMA_RAFT_VOTE_F_PRE);
		return 0;
	}
	case RAFT_IO_REQUEST_VOTE_RESULT: {
		const struct txrdma_raft_request_vote_result *b =
			(const void *)(p + HDR);
		uint32_t f = le32toh(b->flags);

		m->request_vote_result.term = le64toh(h->term);
		m->request_vote_result.vote_granted =
			!!(f & TXRDMA_RAFT_RESULT_F_GRANTED);
		m->request_vote_result.pre_vote =
			!(f & TXRDMA_RAFT_RESULT_F_PRE_KNOWN) ?
			raft_tribool_unknown :
			TO_RAFT_TRIBOOL(f & TXRDMA_RAFT_RESULT_F_PRE);
		return 0;
	}
	case RAFT_IO_INSTALL_SNAPSHOT:
		m->install_snapshot.term = le64toh(h->term);
		return decode_snapshot(p, len, &m->install_snapshot);
	default: {
		const struct txrdma_raft_timeout_now *b =
			(const void *)(p + HDR);

		m->timeout_now.term = le64toh(h->term);
		m->timeout_now.last_log_index = le64toh(b->last_log_index);
		m->timeout_now.last_log_term = le64toh(b->last_log_term);
		return 0;
	}
	}
}

void txraft_wire_release(struct raft_message *m)
{
	switch (m->type) {
	case RAFT_IO_APPEND_ENTRIES:
		if (m->append_entries.entries) {
			raft_free(m->append_entries.entries[0].batch);
			raft_free(m->append_entries.entries);
		}
		m->append_entries.entries = NULL;
		m->append_entries.n_entries = 0;
		break;
	case RAFT_IO_INSTALL_SNAPSHOT:
		raft_configuration_close(&m->install_snapshot.conf);
		raft_free(m->install_snapshot.data.base);
		m->install_snapshot.data.base = NULL;
		break;
	default:
		break;
	}
}
