// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Versioned records: consistent one-sided reads.  See
 * uapi/linux/txrdma_vrec.h for the format and txn_vrec.h for the
 * interface; this is why it is built the way it is.
 *
 * The problem.  A writer owns records in memory it exports; a reader on
 * another host fetches one with one RDMA READ, without a message to the
 * writer and without the writer knowing.  The READ may run while the
 * writer rewrites that record, and copies bytes in no order the IB
 * specification promises: the copy can hold, for each byte, the value
 * of any moment during the READ.  The reader must accept only copies
 * that are exactly one committed value, and say which version.
 *
 * Why not a seqlock.  A seqlock reader loads the version, then the data,
 * then the version again, each load ordered after the one before; two
 * equal even versions then bracket the data loads in time.  A READ has
 * no "before" and "after" inside it: the two version words may be
 * fetched first, or last, or in the middle.  So the versions alone prove
 * nothing about an unordered copy, and something must check the bytes
 * themselves.
 *
 * Two lines, and a torn copy must beat both:
 *  - Versions in the header and in a trailer at the end of the slot,
 *    both made odd before the writer touches a payload byte (W1), both
 *    made even again after the last one (W3).  In practice a NIC
 *    fetches a READ's bytes in ascending address order, a cache line or
 *    more at a time, though nothing promises it: in ascending order the
 *    header is read first and the trailer last, in descending order the
 *    other way round, and either way equal even versions bracket the
 *    payload reads the way a seqlock's loads do.  That is why both are
 *    marked at W1: with only the header made odd first and the trailer
 *    written with the new version at the end (a tempting shortcut), an
 *    ascending copy can read the header before W1, new payload bytes,
 *    and the trailer before W3, and see V ... V around a torn payload.
 *    And that is why the trailer is at the slot's end rather than after
 *    the payload: a write that changes the length would move it, an old
 *    trailer left in the middle of a longer payload could be read as the
 *    new one, and a torn length would point anywhere.
 *  - A CRC32C over the header (version, length, capacity) and the
 *    payload.  For a copy in any order it is the guarantee: header and
 *    trailer both read before a write, payload bytes during it, passes
 *    the versions; it passes the CRC with probability 2^-32 only.  (A
 *    million such copies a second would let one wrong value through
 *    every hour or so; but only a copy out of address order, racing a
 *    write, gets past the versions torn, so in practice the CRC is the
 *    second line.)  Covering the version matters: a copy with the new
 *    versions over the old length, CRC and payload would pass a CRC over
 *    the payload alone, and be taken as the new version's value.
 *
 * A copy that passes is the committed value of its version, however old
 * (two writes during one READ, a value written twice, A-B-A): the CRC
 * ties the payload to the version, so the worst an A-B-A can do is to be
 * accepted as the value it is.
 *
 * Ordering on the writer's side.  A READ is a DMA read: it sees memory,
 * coherently, so what matters is the order in which the writer's stores
 * reach memory, step by step: W1 before any store of W2, all of W2
 * before W3.  Within a step order does not matter.
 *  - On x86 stores reach memory in program order (TSO) and DMA reads
 *    snoop the caches, so only the compiler must not move stores across
 *    steps.  The fences below compile to no instruction there.
 *  - On weakly ordered CPUs (arm64, POWER) stores to different cache
 *    lines may become visible in any order.  A release fence after W1
 *    (dmb ish on arm64, lwsync on POWER) keeps W1 ahead of every later
 *    store; one before W3 keeps W2 ahead of both version stores.  A
 *    release *store* of the odd version would not do: release orders
 *    what comes before the store, and W2's stores could still become
 *    visible ahead of it.  Open point for an arm64 port: Linux orders
 *    stores for a device with dma_wmb() (dmb oshst, outer shareable),
 *    wider than the inner-shareable dmb a C11 fence gives; whether that
 *    matters for a NIC's coherent reads of ordinary memory is to be
 *    settled there (the tests run on x86).
 *  - Every store to a slot is a relaxed atomic 8-byte store (header
 *    words, payload words, trailer), so a reader in this address space
 *    (tests, a local reader) that loads with atomics races in a way the
 *    C11 memory model defines, and a word is never seen half-written.
 *    The __atomic builtins are C11's atomics on plain memory: a region's
 *    mapping has no _Atomic type to cast to.
 * In C11 terms the writer is a seqlock writer (Boehm's): W1 relaxed,
 * release fence, data relaxed, release fence, W3 relaxed; a reader in
 * this address space that copies with acquire loads in address order
 * (either direction) is ordered against it as an RDMA READ in that
 * order would be.
 *
 * txn_vrec_write() computes the CRC from the caller's bytes before W1,
 * so the record is odd (refused) only for the stores themselves.
 *
 * Errors the reader must not retry are told apart from the ones it must.
 * Only what a torn copy cannot produce is -EINVAL: bad arguments, a
 * capacity or reserved field that is not what the slot was made with
 * (written once, never torn), and nonzero padding under a matching CRC
 * (the writer wrote it).  A length beyond the slot is -EAGAIN although
 * no writer stores one: copied byte by byte, two lengths within the slot
 * can make one beyond it.  A slot broken in a field that changes (a bad
 * CRC for ever) also looks torn; txn_vrec_retry_next() bounds that.
 *
 * Several records at one instant (version vectors): READ them, accept
 * each, READ their version words again, and keep the set when nothing
 * changed (txn_vrec_validate()).  That is sound because versions only
 * grow and a write makes the header odd (W1) before any payload store;
 * a writer changing several records as one makes all of them odd before
 * writing any (txn_vrec_begin() on each, then txn_vrec_commit() on
 * each), so a set never holds part of its change.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "txn_vrec.h"
#include "txrdma_frame_check.h"

_Static_assert(sizeof(struct txrdma_vrec_hdr) == TXRDMA_VREC_HDR_SIZE,
	       "txrdma_vrec_hdr");
_Static_assert(sizeof(struct txrdma_vrec_tail) == TXRDMA_VREC_TAIL_SIZE,
	       "txrdma_vrec_tail");
_Static_assert(sizeof(struct txrdma_vrec_table) == TXRDMA_VREC_TABLE_HDR_SIZE,
	       "txrdma_vrec_table");
_Static_assert(TXRDMA_VREC_HDR_SIZE % TXRDMA_VREC_ALIGN == 0,
	       "payload starts aligned");
_Static_assert(TXRDMA_VREC_STRIDE(TXRDMA_VREC_MAX_CAP) <= 0x7fffffffU,
	       "a slot fits one READ");

/* the header as 8-byte words: what the writer stores */
#define W_VERSION	0	/* version */
#define W_LENCRC	8	/* len | crc << 32 */
#define W_CAP		16	/* cap | resv << 32 */

static bool cap_ok(uint32_t cap)
{
	return cap && cap <= TXRDMA_VREC_MAX_CAP && !(cap % TXRDMA_VREC_ALIGN);
}

static bool slot_aligned(const void *slot)
{
	return slot && !((uintptr_t)slot % TXRDMA_VREC_ALIGN);
}

static uint8_t *at(void *slot, uint64_t off)
{
	return (uint8_t *)slot + off;
}

static void st64(void *slot, uint64_t off, uint64_t v)
{
	__atomic_store_n((uint64_t *)at(slot, off), v, __ATOMIC_RELAXED);
}

static uint64_t ld64(const void *slot, uint64_t off)
{
	return __atomic_load_n((const uint64_t *)((const uint8_t *)slot + off),
			       __ATOMIC_RELAXED);
}

/* the slot's capacity as its header says (the writer's own memory) */
static bool slot_is(const void *slot, uint32_t cap)
{
	return ld64(slot, W_CAP) == htole64(cap);
}

/* CRC32C over a header with @version, @len, @cap, then @data and zeroes */
static uint32_t vrec_crc(uint64_t version, uint32_t len, uint32_t cap,
			 const void *data)
{
	static const uint8_t zero[TXRDMA_VREC_ALIGN];
	struct txrdma_vrec_hdr h = {
		.version	= htole64(version),
		.len		= htole32(len),
		.cap		= htole32(cap),
	};
	uint32_t crc;

	crc = txrdma_crc32c_update(~0u, &h, sizeof(h));
	crc = txrdma_crc32c_update(crc, data, len);
	crc = txrdma_crc32c_update(crc, zero, TXRDMA_VREC_PAD(len) - len);
	return ~crc;
}

int txn_vrec_init(void *slot, uint32_t cap)
{
	struct txrdma_vrec_hdr h;

	if (!slot_aligned(slot) || !cap_ok(cap))
		return -EINVAL;
	h = (struct txrdma_vrec_hdr) {
		.version	= htole64(0),
		.len		= htole32(0),
		.crc		= htole32(vrec_crc(0, 0, cap, NULL)),
		.cap		= htole32(cap),
	};
	/* no reader yet: plain stores; the trailer (0) is in the zeroes */
	memset(slot, 0, TXRDMA_VREC_SLOT_SIZE(cap));
	memcpy(slot, &h, sizeof(h));
	return 0;
}

uint64_t txn_vrec_version(const void *slot)
{
	return le64toh(__atomic_load_n((const uint64_t *)slot,
				       __ATOMIC_ACQUIRE));
}

/* W1: both versions odd, and visible before any later store */
static void vrec_mark(void *slot, uint32_t cap, uint64_t odd)
{
	st64(slot, W_VERSION, htole64(odd));
	st64(slot, TXRDMA_VREC_TAIL_OFF(cap), htole64(odd));
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

/* W2 and W3: the value, then both versions even (@version) */
static void vrec_store(void *slot, uint32_t cap, const void *data,
		       uint32_t len, uint64_t version, uint32_t crc)
{
	const uint8_t *src = data;
	uint64_t off, w;

	/* word by word; the last one takes the zero padding with it */
	for (off = 0; off < len; off += 8) {
		w = 0;
		memcpy(&w, src + off, len - off < 8 ? len - off : 8);
		st64(slot, TXRDMA_VREC_PAYLOAD_OFF + off, w);
	}
	st64(slot, W_LENCRC, htole64(len | (uint64_t)crc << 32));
	__atomic_thread_fence(__ATOMIC_RELEASE);
	st64(slot, TXRDMA_VREC_TAIL_OFF(cap), htole64(version));
	st64(slot, W_VERSION, htole64(version));
}

static int write_args(const void *slot, uint32_t cap, const void *data,
		      uint32_t len)
{
	if (!slot_aligned(slot) || !cap_ok(cap) || len > cap ||
	    (len && !data) || !slot_is(slot, cap))
		return -EINVAL;
	return 0;
}

int txn_vrec_begin(void *slot, uint32_t cap)
{
	uint64_t v;

	if (write_args(slot, cap, NULL, 0))
		return -EINVAL;
	v = le64toh(ld64(slot, W_VERSION));
	if (v & 1)
		return -EBUSY;
	vrec_mark(slot, cap, v + 1);
	return 0;
}

int txn_vrec_commit(void *slot, uint32_t cap, const void *data, uint32_t len)
{
	uint64_t v;

	if (write_args(slot, cap, data, len))
		return -EINVAL;
	v = le64toh(ld64(slot, W_VERSION));
	if (!(v & 1))
		return -EINVAL;
	vrec_store(slot, cap, data, len, v + 1, vrec_crc(v + 1, len, cap, data));
	return 0;
}

int txn_vrec_write(void *slot, uint32_t cap, const void *data, uint32_t len)
{
	uint64_t v;
	uint32_t crc;

	if (write_args(slot, cap, data, len))
		return -EINVAL;
	v = le64toh(ld64(slot, W_VERSION));
	if (v & 1)
		return -EBUSY;
	crc = vrec_crc(v + 2, len, cap, data);
	vrec_mark(slot, cap, v + 1);
	vrec_store(slot, cap, data, len, v + 2, crc);
	return 0;
}

int txn_vrec_check(const void *copy, uint32_t cap, struct txn_vrec_view *view)
{
	const uint8_t *p = copy, *pad;
	struct txrdma_vrec_hdr h;
	uint64_t version, tail;
	uint32_t len, crc;
	size_t i;

	if (!copy || !view || !cap_ok(cap))
		return -EINVAL;
	memcpy(&h, p, sizeof(h));
	/* 1: written once, when the slot was made: never torn */
	if (le32toh(h.cap) != cap || h.resv)
		return -EINVAL;
	/* 2: a write under way */
	version = le64toh(h.version);
	if (version & 1)
		return -EAGAIN;
	/* 3: header and trailer of different moments */
	memcpy(&tail, p + TXRDMA_VREC_TAIL_OFF(cap), sizeof(tail));
	if (le64toh(tail) != version)
		return -EAGAIN;
	/* 4: a length torn byte by byte can exceed the slot */
	len = le32toh(h.len);
	if (len > cap)
		return -EAGAIN;
	/* 5: the bytes themselves, in whatever order they were copied */
	crc = le32toh(h.crc);
	h.crc = 0;
	if (crc != ~txrdma_crc32c_update(txrdma_crc32c_update(~0u, &h, sizeof(h)),
					 p + TXRDMA_VREC_PAYLOAD_OFF,
					 TXRDMA_VREC_PAD(len)))
		return -EAGAIN;
	/* 6: the writer itself wrote what the CRC covers */
	pad = p + TXRDMA_VREC_PAYLOAD_OFF;
	for (i = len; i < TXRDMA_VREC_PAD(len); i++)
		if (pad[i])
			return -EINVAL;
	view->version = version;
	view->data = p + TXRDMA_VREC_PAYLOAD_OFF;
	view->len = len;
	return 0;
}

int txn_vrec_validate(const uint64_t *first, const uint64_t *reread,
		      unsigned int n, uint64_t *changed)
{
	unsigned int i;
	int count = 0;

	if (n && (!first || !reread))
		return -EINVAL;
	if (n > INT32_MAX)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (first[i] & 1)
			return -EINVAL;
	if (changed)
		memset(changed, 0, (n + 63) / 64 * sizeof(*changed));
	for (i = 0; i < n; i++) {
		/* odd (being written) never equals an even first version */
		if (le64toh(reread[i]) == first[i])
			continue;
		if (changed)
			changed[i / 64] |= (uint64_t)1 << (i % 64);
		count++;
	}
	return count;
}

void txn_vrec_retry_init(struct txn_vrec_retry *r, unsigned int max)
{
	*r = (struct txn_vrec_retry) {
		.max	= max ? max : TXN_VREC_RETRY_DEFAULT,
	};
}

int txn_vrec_retry_next(struct txn_vrec_retry *r, int err)
{
	if (err != -EAGAIN) {
		r->attempt = 0;
		return err;
	}
	if (++r->attempt >= r->max) {
		r->attempt = 0;
		r->gave_up++;
		return -EBUSY;
	}
	r->retries++;
	return -EAGAIN;
}

size_t txn_vrec_table_size(uint32_t cap, uint32_t nslots)
{
	uint64_t size;

	if (!cap_ok(cap) || !nslots)
		return 0;
	/* at most 2^32 slots of at most 2^30 + 64 bytes: no overflow */
	size = TXRDMA_VREC_TABLE_SLOT_OFF(cap, nslots);
	if (size > SIZE_MAX)
		return 0;
	return (size_t)size;
}

int txn_vrec_table_init(void *buf, size_t size, uint32_t cap, uint32_t nslots)
{
	struct txrdma_vrec_table t;
	size_t need = txn_vrec_table_size(cap, nslots);
	uint32_t i;

	if (!slot_aligned(buf) || !need || size < need)
		return -EINVAL;
	t = (struct txrdma_vrec_table) {
		.magic		= htole32(TXRDMA_VREC_MAGIC),
		.version	= TXRDMA_VREC_TABLE_VERSION,
		.cap		= htole32(cap),
		.stride		= htole32((uint32_t)TXRDMA_VREC_STRIDE(cap)),
		.nslots		= htole32(nslots),
	};
	memset(buf, 0, TXRDMA_VREC_TABLE_HDR_SIZE);
	memcpy(buf, &t, sizeof(t));
	for (i = 0; i < nslots; i++) {
		uint8_t *slot = at(buf, TXRDMA_VREC_TABLE_SLOT_OFF(cap, i));

		/* the gap up to the next slot: zeroes too */
		memset(slot, 0, TXRDMA_VREC_STRIDE(cap));
		txn_vrec_init(slot, cap);
	}
	return 0;
}

int txn_vrec_table_check(const void *copy, uint32_t *cap, uint32_t *nslots)
{
	struct txrdma_vrec_table t;
	uint32_t c, n;
	unsigned int i;

	if (!copy || !cap || !nslots)
		return -EINVAL;
	memcpy(&t, copy, sizeof(t));
	c = le32toh(t.cap);
	n = le32toh(t.nslots);
	if (le32toh(t.magic) != TXRDMA_VREC_MAGIC ||
	    t.version != TXRDMA_VREC_TABLE_VERSION || t.flags || t.resv0 ||
	    t.resv1 || !txn_vrec_table_size(c, n) ||
	    le32toh(t.stride) != TXRDMA_VREC_STRIDE(c))
		return -EINVAL;
	for (i = 0; i < sizeof(t.resv2) / sizeof(t.resv2[0]); i++)
		if (t.resv2[i])
			return -EINVAL;
	*cap = c;
	*nslots = n;
	return 0;
}

void *txn_vrec_table_slot(void *table, uint32_t i)
{
	uint32_t cap, nslots;

	if (!slot_aligned(table) || txn_vrec_table_check(table, &cap, &nslots) ||
	    i >= nslots)
		return NULL;
	return at(table, TXRDMA_VREC_TABLE_SLOT_OFF(cap, i));
}
