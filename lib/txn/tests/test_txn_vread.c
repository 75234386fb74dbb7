// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The READ glue of consistent one-sided reads (lib/txn/txn_vread.c) on
 * the host, where there is no module: a fake kernel lays out an SQ and a
 * CQ (libtxrdma's own txrdma_sq_init()/txrdma_cq_init() check them), and
 * a thread stands in for the NIC: it takes each READ SQE, copies the
 * bytes out of the "remote" memory in random 8-byte or 1-byte order or
 * in address order up or down, pausing now and then, and posts the CQE.
 * Meanwhile a writer thread rewrites the records (txn_vrec_write(), and
 * groups of 4 as one with txn_vrec_begin()/commit()).  Checked:
 *  - every record txn_vread_one() returns is exactly the value of the
 *    version it claims (length and bytes from (record, version)), torn
 *    copies were met and retried, versions never go backwards;
 *  - txn_vread_multi() of a group written as one returns equal versions
 *    whenever it reports no conflict, and conflicts were seen;
 *  - a slot whose CRC never matches is given up (-EBUSY) after exactly
 *    max_attempts READs, and the next read works; a wrong capacity is
 *    -EINVAL after one READ; READ errors (-EPERM) and short READs (-EIO)
 *    are returned unretried; bad arguments, a scratch area too small;
 *  - a READ whose CQE is late: -ETIMEDOUT, the next read waits for it
 *    (-ETIMEDOUT while it is in flight), then reads the right slot;
 *  - CQEs that are not the reader's go to the callback.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "../txn_vread.h"
#include "tap.h"
#include "txn_test.h"

/* ---- the fake kernel's rings ----------------------------------------- */

#define SQ_N		64
#define CQ_N		128
#define MAP_LEN		0x4000
#define SQO_HEAD	0x000
#define SQO_TAIL	0x040
#define SQO_MASK	0x080
#define SQO_ENTRIES	0x084
#define SQO_FLAGS	0x0c0
#define SQO_DROPPED	0x0c4
#define CQO_HEAD	0x100
#define CQO_TAIL	0x140
#define CQO_MASK	0x180
#define CQO_ENTRIES	0x184
#define CQO_OVERFLOW	0x188
#define SQO_SQES	0x1000
#define CQO_CQES	0x2000

#define EP		5
#define LOCAL_ID	11
#define REMOTE_ID	22
#define PERM_ID		23	/* READs of it fail -EPERM */
#define SHORT_ID	24	/* READs of it move half their bytes */
#define DELAY_ID	25	/* READs of it complete after DELAY_MS */
#define DELAY_MS	300
#define REMOTE_LEN	(1u << 20)
#define LOCAL_LEN	(256u << 10)

static unsigned char *ring;
static struct txrdma_sq sq;
static struct txrdma_cq cq;
static unsigned char *remote, *local;
static int nic_stop, nic_foreign;	/* atomics */

static unsigned int *W(unsigned int off)
{
	return (unsigned int *)(ring + off);
}

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void nap_us(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	nanosleep(&ts, NULL);
}

/* copy as an RDMA READ might (see test_txn_vrec.c's copy_slot()) */
static void nic_copy(unsigned char *dst, const unsigned char *src,
		     uint32_t len, uint64_t *seed)
{
	static uint32_t perm[(TXRDMA_VREC_SLOT_SIZE(4096) + 8)];
	uint64_t r = splitmix(seed);
	bool words = len % 8 == 0 && (uintptr_t)src % 8 == 0;
	uint32_t n, i, pause_at;
	int mode = words ? (int)(r % 4) : 1;

	n = mode == 1 ? len : len / 8;
	if (n > sizeof(perm) / sizeof(perm[0]))
		mode = 2;	/* large: in address order */
	pause_at = (r >> 8) % 4 == 0 && n ? (uint32_t)((r >> 16) % n) :
		   UINT32_MAX;
	if (mode <= 1) {
		for (i = 0; i < n; i++)
			perm[i] = i;
		for (i = n - 1; i > 0 && n; i--) {
			uint32_t j = (uint32_t)(splitmix(seed) % (i + 1)), t;

			t = perm[i];
			perm[i] = perm[j];
			perm[j] = t;
		}
	}
	for (i = 0; i < n; i++) {
		uint64_t v;
		uint32_t k;

		if (i == pause_at)
			sched_yield();
		switch (mode) {
		case 0:		/* random words */
			k = perm[i];
			v = __atomic_load_n((const uint64_t *)src + k,
					    __ATOMIC_RELAXED);
			break;
		case 1:		/* random bytes */
			dst[perm[i]] = __atomic_load_n(src + perm[i],
						       __ATOMIC_RELAXED);
			continue;
		case 2:		/* up */
			k = i;
			if (!words) {
				dst[k] = __atomic_load_n(src + k,
							 __ATOMIC_ACQUIRE);
				continue;
			}
			v = __atomic_load_n((const uint64_t *)src + k,
					    __ATOMIC_ACQUIRE);
			break;
		default:	/* down */
			k = n - 1 - i;
			v = __atomic_load_n((const uint64_t *)src + k,
					    __ATOMIC_ACQUIRE);
			break;
		}
		memcpy(dst + 8 * (size_t)k, &v, 8);
	}
}

static void nic_post(uint64_t ud, int32_t res)
{
	unsigned int tail = *W(CQO_TAIL);
	struct txrdma_cqe *c;

	while (tail - __atomic_load_n(W(CQO_HEAD), __ATOMIC_ACQUIRE) >= CQ_N)
		nap_us(50);
	c = (struct txrdma_cqe *)(ring + CQO_CQES) + (tail & (CQ_N - 1));
	memset(c, 0, sizeof(*c));
	c->user_data = ud;
	c->res = res;
	c->ep = EP;
	c->opcode = TXRDMA_OP_READ;
	__atomic_store_n(W(CQO_TAIL), tail + 1, __ATOMIC_RELEASE);
}

static void *nic_main(void *arg)
{
	uint64_t seed = 7;
	unsigned int head = *W(SQO_HEAD);

	(void)arg;
	while (!__atomic_load_n(&nic_stop, __ATOMIC_ACQUIRE)) {
		struct txrdma_sqe s;
		int32_t res;

		if (head == __atomic_load_n(W(SQO_TAIL), __ATOMIC_ACQUIRE)) {
			nap_us(20);
			continue;
		}
		s = ((struct txrdma_sqe *)(ring + SQO_SQES))[head & (SQ_N - 1)];
		__atomic_store_n(W(SQO_HEAD), ++head, __ATOMIC_RELEASE);
		if (__atomic_exchange_n(&nic_foreign, 0, __ATOMIC_ACQ_REL))
			nic_post(0xf00dULL, 0);
		res = (int32_t)s.len;
		if (s.opcode != TXRDMA_OP_READ || s.ep != EP ||
		    s.local_region != LOCAL_ID || s.flags ||
		    s.local_off + s.len > LOCAL_LEN) {
			res = -EINVAL;
		} else if (s.remote_region == PERM_ID) {
			res = -EPERM;
		} else if (s.remote_off + s.len > REMOTE_LEN) {
			res = -EFAULT;
		} else if (s.remote_region == SHORT_ID) {
			res = (int32_t)(s.len / 2);
		} else {
			if (s.remote_region == DELAY_ID)
				nap_us(DELAY_MS * 1000);
			else if (s.remote_region != REMOTE_ID)
				res = -EPERM;
			if (res > 0)
				nic_copy(local + s.local_off,
					 remote + s.remote_off, s.len, &seed);
		}
		nic_post(s.user_data, res);
	}
	return NULL;
}

static pthread_t nic_thr;

static void rings_up(void)
{
	struct txrdma_sq_offsets so = {
		.head = SQO_HEAD, .tail = SQO_TAIL, .ring_mask = SQO_MASK,
		.ring_entries = SQO_ENTRIES, .flags = SQO_FLAGS,
		.dropped = SQO_DROPPED, .sqes = SQO_SQES,
	};
	struct txrdma_cq_offsets co = {
		.head = CQO_HEAD, .tail = CQO_TAIL, .ring_mask = CQO_MASK,
		.ring_entries = CQO_ENTRIES, .overflow = CQO_OVERFLOW,
		.cqes = CQO_CQES,
	};

	ring = mmap(NULL, MAP_LEN, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	remote = aligned_alloc(64, REMOTE_LEN);
	local = aligned_alloc(64, LOCAL_LEN);
	if (ring == MAP_FAILED || !remote || !local) {
		printf("Bail out! out of memory\n");
		exit(1);
	}
	memset(ring, 0, MAP_LEN);
	memset(remote, 0, REMOTE_LEN);
	memset(local, 0xa5, LOCAL_LEN);
	*W(SQO_ENTRIES) = SQ_N;
	*W(SQO_MASK) = SQ_N - 1;
	*W(CQO_ENTRIES) = CQ_N;
	*W(CQO_MASK) = CQ_N - 1;
	if (txrdma_sq_init(&sq, ring, MAP_LEN, &so) ||
	    txrdma_cq_init(&cq, ring, MAP_LEN, &co)) {
		printf("Bail out! ring layout refused\n");
		exit(1);
	}
	if (pthread_create(&nic_thr, NULL, nic_main, NULL)) {
		printf("Bail out! pthread_create\n");
		exit(1);
	}
}

static void rings_down(void)
{
	__atomic_store_n(&nic_stop, 1, __ATOMIC_RELEASE);
	pthread_join(nic_thr, NULL);
	munmap(ring, MAP_LEN);
	free(remote);
	free(local);
}

static unsigned long foreign_seen;

static void on_other(void *arg, const struct txrdma_cqe *c)
{
	(void)arg;
	if (c->user_data == 0xf00dULL)
		foreign_seen++;
}

static void reader_init(struct txn_vread *r, uint64_t local_len,
			unsigned int max_attempts, uint32_t timeout_ms)
{
	struct txn_vread_cfg cfg = {
		.ctx = NULL, .sq = &sq, .cq = &cq, .ep = EP,
		.local_region = LOCAL_ID, .local_addr = local + 4096,
		.local_off = 4096, .local_len = local_len,
		.max_attempts = max_attempts, .timeout_ms = timeout_ms,
		.other_cqe = on_other,
	};

	if (txn_vread_init(r, &cfg)) {
		printf("Bail out! txn_vread_init\n");
		exit(1);
	}
}

/* ---- records: payload a function of (record, version) ---------------- */

#define NREC		64	/* 0..NGROUP*4-1 written in groups of 4 */
#define NGROUP		4
#define GROUP		4

static uint32_t rec_cap[NREC];
static uint64_t rec_off[NREC];
static int writer_stop;		/* atomic */
/* the reader holds the writer (hold), the writer says it stopped (held) */
static int writer_hold, writer_held;	/* atomics */
static unsigned long writer_writes;

static uint32_t gen_len(unsigned int rec, uint64_t ver, uint32_t cap)
{
	return ver ? 1 + mix((uint32_t)(rec * 7919u) ^ (uint32_t)ver ^
			     (uint32_t)(ver >> 32) * 31u) % cap : 0;
}

static uint8_t gen_byte(unsigned int rec, uint64_t ver, uint32_t k)
{
	return (uint8_t)(mix(mix(rec ^ (uint32_t)ver * 0x9e3779b9u) ^ k / 4) >>
			 (8 * (k % 4)));
}

static bool gen_is(unsigned int rec, const struct txn_vrec_view *v)
{
	const uint8_t *d = v->data;
	uint32_t k;

	if (v->version & 1 || v->len != gen_len(rec, v->version, rec_cap[rec]))
		return false;
	for (k = 0; k < v->len; k++)
		if (d[k] != gen_byte(rec, v->version, k))
			return false;
	return true;
}

static void gen_fill(unsigned int rec, uint64_t ver, uint8_t *p, uint32_t len)
{
	uint32_t k;

	for (k = 0; k < len; k++)
		p[k] = gen_byte(rec, ver, k);
}

static void *slot_of(unsigned int rec)
{
	return remote + rec_off[rec];
}

static struct txn_vread_slot slot_desc(unsigned int rec)
{
	return (struct txn_vread_slot){
		.region = REMOTE_ID, .cap = rec_cap[rec], .off = rec_off[rec],
	};
}

static void records_init(void)
{
	uint64_t off = 0;
	unsigned int i;

	for (i = 0; i < NREC; i++) {
		rec_cap[i] = 8u << (i % 10);	/* 8 .. 4096 */
		rec_off[i] = off;
		off += TXRDMA_VREC_STRIDE(rec_cap[i]);
		if (txn_vrec_init(slot_of(i), rec_cap[i]))
			abort();
	}
}

static void *writer_main(void *arg)
{
	static uint8_t buf[4096];
	uint64_t seed = 99;
	unsigned long writes = 0;

	(void)arg;
	while (!__atomic_load_n(&writer_stop, __ATOMIC_ACQUIRE)) {
		uint64_t r = splitmix(&seed);
		unsigned int rec, i;
		uint64_t ver;
		uint32_t len;

		if (__atomic_load_n(&writer_hold, __ATOMIC_ACQUIRE)) {
			__atomic_store_n(&writer_held, 1, __ATOMIC_RELEASE);
			while (__atomic_load_n(&writer_hold, __ATOMIC_ACQUIRE))
				sched_yield();
			__atomic_store_n(&writer_held, 0, __ATOMIC_RELEASE);
		}

		if (r % 4 == 0) {
			unsigned int g = (unsigned int)(r >> 8) % NGROUP;

			for (i = 0; i < GROUP; i++)
				if (txn_vrec_begin(slot_of(g * GROUP + i),
						   rec_cap[g * GROUP + i]))
					abort();
			for (i = 0; i < GROUP; i++) {
				rec = g * GROUP + i;
				/* odd now: the committed version is + 1 */
				ver = txn_vrec_version(slot_of(rec)) + 1;
				len = gen_len(rec, ver, rec_cap[rec]);
				gen_fill(rec, ver, buf, len);
				if (splitmix(&seed) % 8 == 0)
					sched_yield();
				if (txn_vrec_commit(slot_of(rec), rec_cap[rec],
						    buf, len))
					abort();
				writes++;
			}
		} else {
			rec = NGROUP * GROUP +
			      (unsigned int)(r >> 8) % (NREC - NGROUP * GROUP);
			ver = txn_vrec_version(slot_of(rec)) + 2;
			len = gen_len(rec, ver, rec_cap[rec]);
			gen_fill(rec, ver, buf, len);
			if (txn_vrec_write(slot_of(rec), rec_cap[rec], buf, len))
				abort();
			writes++;
		}
		if (splitmix(&seed) % 64 == 0)
			sched_yield();
	}
	writer_writes = writes;
	return NULL;
}

/* ---- tests ------------------------------------------------------------ */

static void test_args(void)
{
	struct txn_vread_cfg cfg = {
		.sq = &sq, .cq = &cq, .local_addr = local, .local_len = 64,
	};
	struct txn_vread_slot s = slot_desc(0), big = slot_desc(9);
	struct txn_vrec_view v;
	struct txn_vread r;

	TAP_CHECK_INT(txn_vread_init(NULL, &cfg), -EINVAL);
	TAP_CHECK_INT(txn_vread_init(&r, NULL), -EINVAL);
	cfg.local_off = 4;
	TAP_CHECK_INT(txn_vread_init(&r, &cfg), -EINVAL);
	cfg.local_off = 0;
	cfg.local_addr = local + 1;
	TAP_CHECK_INT(txn_vread_init(&r, &cfg), -EINVAL);
	cfg.local_addr = local;
	cfg.cq = NULL;
	TAP_CHECK_INT(txn_vread_init(&r, &cfg), -EINVAL);
	cfg.cq = &cq;
	TAP_CHECK_INT(txn_vread_init(&r, &cfg), 0);

	reader_init(&r, 4096, 4, 1000);
	TAP_CHECK_INT(txn_vread_one(&r, NULL, &v), -EINVAL);
	s.cap = 12;
	TAP_CHECK_INT(txn_vread_one(&r, &s, &v), -EINVAL);
	s.cap = 0;
	TAP_CHECK_INT(txn_vread_one(&r, &s, &v), -EINVAL);
	/* a slot of 4096 + 32 bytes does not fit 4096 */
	TAP_CHECK_INT(txn_vread_one(&r, &big, &v), -ENOSPC);
	s = slot_desc(0);
	TAP_CHECK_INT(txn_vread_multi(&r, &s, 0, &v, NULL), -EINVAL);
	TAP_CHECK_INT(txn_vread_multi(&r, &s, TXN_VREAD_MAX_MULTI + 1, &v,
				      NULL), -EINVAL);
	TAP_CHECK_INT(r.st.posted, 0);
}

static void test_errors(void)
{
	struct txn_vread_slot s = slot_desc(3), bad;
	struct txn_vrec_view v;
	struct txn_vread r;
	uint64_t posted;

	reader_init(&r, LOCAL_LEN - 4096, 5, 2000);
	/* the record as it is (no writer): version 0, empty */
	TAP_CHECK_INT(txn_vread_one(&r, &s, &v), 0);
	TAP_CHECK_INT(v.version, 0);
	TAP_CHECK_INT(v.len, 0);
	TAP_CHECK_INT(r.st.posted, 1);

	/* READ errors come back as they are, after one READ */
	bad = s;
	bad.region = PERM_ID;
	TAP_CHECK_INT(txn_vread_one(&r, &bad, &v), -EPERM);
	bad.region = SHORT_ID;
	TAP_CHECK_INT(txn_vread_one(&r, &bad, &v), -EIO);
	bad.region = REMOTE_ID;
	bad.off = REMOTE_LEN - 8;
	TAP_CHECK_INT(txn_vread_one(&r, &bad, &v), -EFAULT);
	TAP_CHECK_INT(r.st.posted, 4);
	TAP_CHECK_INT(r.st.errors, 3);
	TAP_CHECK_INT(r.st.retries, 0);

	/* the wrong capacity: never valid, no retry */
	bad = s;
	bad.cap = rec_cap[3] * 2;
	TAP_CHECK_INT(txn_vread_one(&r, &bad, &v), -EINVAL);
	TAP_CHECK_INT(r.st.posted, 5);

	/* a CRC that never matches: torn every time, given up after 5 */
	((uint8_t *)slot_of(3))[12] ^= 1;
	posted = r.st.posted;
	TAP_CHECK_INT(txn_vread_one(&r, &s, &v), -EBUSY);
	TAP_CHECK_INT(r.st.posted - posted, 5);
	TAP_CHECK_INT(r.st.retries, 4);
	TAP_CHECK_INT(r.st.gave_up, 1);
	/* in a multi-record read too, beside a good record */
	{
		struct txn_vread_slot two[2] = { slot_desc(5), s };
		struct txn_vrec_view vv[2];

		posted = r.st.posted;
		TAP_CHECK_INT(txn_vread_multi(&r, two, 2, vv, NULL), -EBUSY);
		TAP_CHECK_INT(r.st.posted - posted, 2 + 4);
		TAP_CHECK_INT(r.st.gave_up, 2);
	}
	((uint8_t *)slot_of(3))[12] ^= 1;
	/* the next read starts afresh */
	TAP_CHECK_INT(txn_vread_one(&r, &s, &v), 0);
	TAP_CHECK_INT(r.st.reads, 2);

	/* a CQE not ours goes to the callback */
	foreign_seen = 0;
	__atomic_store_n(&nic_foreign, 1, __ATOMIC_RELEASE);
	TAP_CHECK_INT(txn_vread_one(&r, &s, &v), 0);
	TAP_CHECK_INT(foreign_seen, 1);
	TAP_CHECK_INT(r.st.other_cqes, 1);
	TAP_CHECK_INT(txn_vread_inflight(&r), 0);
}

static void test_timeout(void)
{
	struct txn_vread_slot late = slot_desc(7), s = slot_desc(8);
	struct txn_vrec_view v;
	struct txn_vread r;
	static uint8_t buf[4096];

	/* record 8 holds a value of its own: a late copy of 7 is not it */
	gen_fill(8, 2, buf, gen_len(8, 2, rec_cap[8]));
	TAP_CHECK_INT(txn_vrec_write(slot_of(8), rec_cap[8], buf,
				     gen_len(8, 2, rec_cap[8])), 0);
	reader_init(&r, LOCAL_LEN - 4096, 4, 50);
	late.region = DELAY_ID;
	TAP_CHECK_INT(txn_vread_one(&r, &late, &v), -ETIMEDOUT);
	TAP_CHECK_INT(txn_vread_inflight(&r), 1);
	/* it still holds the scratch area: no new READ meanwhile */
	TAP_CHECK_INT(txn_vread_one(&r, &s, &v), -ETIMEDOUT);
	TAP_CHECK_INT(r.st.posted, 1);
	TAP_CHECK_INT(r.st.timeouts, 2);
	nap_us(DELAY_MS * 1000 + 100000);
	TAP_CHECK_INT(txn_vread_one(&r, &s, &v), 0);
	TAP_CHECK_INT(txn_vread_inflight(&r), 0);
	TAP_CHECK_INT(v.version, 2);
	TAP_CHECK(gen_is(8, &v));
}

#define RUN_NS		1500000000ULL

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void test_race(void)
{
	uint64_t seen[NREC] = { 0 }, seed = 3, end;
	unsigned long singles = 0, wrong = 0, back = 0, busy = 0, other = 0;
	unsigned long groups = 0, group_ok = 0, group_conflict = 0;
	unsigned long group_uneven = 0, mixed = 0, mixed_conflict = 0;
	unsigned long quiet = 0, quiet_ok = 0;
	struct txn_vread r;
	pthread_t wt;
	unsigned int i;

	records_init();
	reader_init(&r, LOCAL_LEN - 4096, 16, 5000);
	writer_stop = 0;
	if (pthread_create(&wt, NULL, writer_main, NULL)) {
		printf("Bail out! pthread_create\n");
		exit(1);
	}
	end = now_ns() + RUN_NS;
	while (now_ns() < end) {
		uint64_t x = splitmix(&seed);
		struct txn_vrec_view v[8];
		struct txn_vread_slot s[8];
		uint64_t changed[1];
		int ret;

		if (x % 16 == 0) {
			/* a group written as one, or 8 records at random */
			bool grp = x >> 8 & 1, hold;
			unsigned int n = grp ? GROUP : 8;
			unsigned int g = (unsigned int)(x >> 16) % NGROUP;
			unsigned int rec[8];

			/* distinct records (9 is prime to NREC) */
			for (i = 0; i < n; i++) {
				rec[i] = grp ? g * GROUP + i :
				       ((unsigned int)(x >> 24) + 9 * i) % NREC;
				s[i] = slot_desc(rec[i]);
			}
			/*
			 * One group read in four with the writer held: it
			 * must validate (the others race the writer, and on
			 * a loaded host may all see conflicts)
			 */
			hold = grp && (x >> 40) % 4 == 0;
			if (hold) {
				__atomic_store_n(&writer_hold, 1,
						 __ATOMIC_RELEASE);
				while (!__atomic_load_n(&writer_held,
							__ATOMIC_ACQUIRE))
					sched_yield();
			}
			ret = txn_vread_multi(&r, s, n, v, changed);
			if (hold) {
				__atomic_store_n(&writer_hold, 0,
						 __ATOMIC_RELEASE);
				quiet++;
				quiet_ok += ret == 0;
			}
			if (ret == -EBUSY) {
				busy++;
				continue;
			}
			if (ret < 0) {
				other++;
				tap_diag("multi: %d", ret);
				continue;
			}
			for (i = 0; i < n; i++) {
				if (!gen_is(rec[i], &v[i]))
					wrong++;
				if (v[i].version < seen[rec[i]])
					back++;
				seen[rec[i]] = v[i].version;
			}
			if (!grp) {
				mixed++;
				mixed_conflict += ret > 0;
				continue;
			}
			groups++;
			if (ret) {
				group_conflict++;
				continue;
			}
			group_ok++;
			for (i = 1; i < n; i++)
				if (v[i].version != v[0].version)
					group_uneven++;
			continue;
		}
		i = (unsigned int)(x >> 8) % NREC;
		s[0] = slot_desc(i);
		ret = txn_vread_one(&r, &s[0], &v[0]);
		if (ret == -EBUSY) {
			busy++;
			continue;
		}
		if (ret) {
			other++;
			tap_diag("one: %d", ret);
			continue;
		}
		singles++;
		if (!gen_is(i, &v[0]))
			wrong++;
		if (v[0].version < seen[i])
			back++;
		seen[i] = v[0].version;
	}
	__atomic_store_n(&writer_stop, 1, __ATOMIC_RELEASE);
	pthread_join(wt, NULL);
	tap_diag("%lu writes; %lu single reads, %lu retries, %lu given up; "
		 "%lu group reads (%lu validated, %lu conflicts), %lu mixed "
		 "(%lu with conflicts); %lu READs posted; %lu of %lu group "
		 "reads with the writer held validated",
		 writer_writes, singles, (unsigned long)r.st.retries, busy,
		 groups, group_ok, group_conflict, mixed, mixed_conflict,
		 (unsigned long)r.st.posted, quiet_ok, quiet);
	TAP_CHECK_INT(wrong, 0);
	TAP_CHECK_INT(back, 0);
	TAP_CHECK_INT(other, 0);
	TAP_CHECK_INT(group_uneven, 0);
	TAP_CHECK(singles > 1000);
	TAP_CHECK(writer_writes > 1000);
	/* the NIC's unordered copies met the writer: torn ones refused */
	TAP_CHECK(r.st.retries > 0);
	TAP_CHECK(quiet > 0 && quiet_ok == quiet);
	TAP_CHECK(group_ok >= quiet_ok);
	TAP_CHECK(r.st.multi == groups + mixed);
	TAP_CHECK_INT(r.st.multi_conflicts, group_conflict + mixed_conflict);
	TAP_CHECK_INT(txn_vread_inflight(&r), 0);
}

static const struct tap_test tests[] = {
	TAP_TEST(test_args, "bad arguments, a scratch area too small"),
	TAP_TEST(test_errors, "READ errors, a wrong capacity, a slot never valid: given up after max_attempts; foreign CQEs"),
	TAP_TEST(test_timeout, "a late CQE: -ETIMEDOUT, the scratch area held until it came"),
	TAP_TEST(test_race, "reads racing a writer through an unordered NIC: exact values, retries, validated groups"),
};

int main(void)
{
	int ret;

	rings_up();
	records_init();
	ret = TAP_MAIN(tests);
	rings_down();
	return ret;
}
