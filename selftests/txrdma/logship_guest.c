// SPDX-License-Identifier: GPL-2.0-only
/*
 * Log shipping across hosts (lib/txn/txn_ship.c over real RDMA WRITEs):
 * two writers, one reader, run by logship_guest.sh (run_vm_tests.py
 * logship, three guests).
 *
 *   logship_guest reader SERVICE COUNT
 *   logship_guest writer PEER SERVICE ID COUNT
 *
 * The reader listens on SERVICE and accepts two pairs; each writer says
 * "hello ID" (ID 0 or 1, its id in the group) and the reader attaches
 * it: a ring region exported WRITE to that pair, announced by the RING
 * message.  Each writer appends COUNT/2 entries (payload 8..512 bytes,
 * length and bytes a function of (writer, sequence)) in batches of
 * 1..64, flushing after each (asynchronous WRITEs), and observes the
 * clock the reader forwards with its FEEDBACKs, so its later entries
 * causally follow the other writer's it was told of.  The reader merges
 * until it delivered COUNT entries and checks every one:
 *  - its writer's sequence goes 1, 2, 3... (its own clock component);
 *  - every other component is at most the entries of that writer
 *    delivered so far (nothing delivered before a predecessor), and
 *    each writer's clock never goes back;
 *  - its payload is the function of (writer, sequence), byte for byte:
 *    an entry handed out partly written would differ;
 *  - entries depending on the other writer's exist (the check is not
 *    vacuous), both writers' entries are all there.
 * A writer closes its pair once told that all its entries were
 * consumed, which may be while the reader still merges the other's:
 * the reader takes that pair's end (-ECONNRESET) as the writer's close
 * then, and as a failure before.  On a failure both sides print their
 * counters, the first completion that failed and their endpoints'
 * counters and errors (txrdma-admin ep show, $TXRDMA_ADMIN).
 * The entries the reader found due with their header but not whole
 * (and looked at again) are reported, as are both sides' counts.  TAP
 * on stdout; exit 1 on any failure.  Timeout: TXRDMA_LOGSHIP_TIMEOUT
 * seconds (default 1500).
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <txrdma.h>

#include "msg_pattern.h"
#include "txn_ship.h"

#define NW		2
#define RING_SIZE	(1u << 20)
#define REGION		(2u << 20)
#define RX_OFF		(1u << 20)
#define RX_STEP		(128u << 10)
#define MAX_MSG		256
#define HELLO_UD	0x68656c6cULL

static int tap_n, tap_failed;

static void tap(int pass, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void tap(int pass, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", pass ? "" : "not ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	if (!pass)
		tap_failed++;
}

/* what die() reports: the side's counters, the first failed completion */
static struct txn_ship_writer *the_writer;
static struct txn_ship_reader *the_reader;
static struct txrdma_cqe failed_cqe;
static int cqe_failed;

/*
 * Reap the CQ for the ship, keeping the first completion that failed.
 * Return: completions reaped, or the first error among them.
 */
static int reap(struct txrdma_cq *cq)
{
	struct txrdma_cqe *cqe;
	int rc, first = 0, n = 0;

	while ((cqe = txrdma_peek_cqe(cq))) {
		n++;
		rc = the_writer ? txn_ship_writer_cqe(the_writer, cqe) :
				  txn_ship_reader_cqe(the_reader, cqe);
		if (rc < 0 && !cqe_failed) {
			failed_cqe = *cqe;
			cqe_failed = 1;
		}
		if (rc < 0 && !first)
			first = rc;
		txrdma_cq_advance(cq, 1);
	}
	return first ? first : n;
}

/*
 * On failure: both sides' counters, the failed completion, and (while
 * our endpoints still exist) their counters and errors as
 * "txrdma-admin ep show" has them.
 */
static void report(void)
{
	const char *admin = getenv("TXRDMA_ADMIN");
	char cmd[512];

	if (the_writer) {
		struct txn_ship_writer_stats st;

		txn_ship_writer_stats(the_writer, &st);
		printf("# writer: %llu entries, pos %llu, flushed %llu, consumed %llu, %llu WRITEs (%llu bytes), inflight %llu, pending %llu, %llu FEEDBACKs, full %llu, SQ full %llu, foreign %llu\n",
		       (unsigned long long)st.entries, (unsigned long long)st.pos,
		       (unsigned long long)st.flushed, (unsigned long long)st.consumed,
		       (unsigned long long)st.writes, (unsigned long long)st.write_bytes,
		       (unsigned long long)st.inflight, (unsigned long long)st.pending,
		       (unsigned long long)st.feedbacks, (unsigned long long)st.full,
		       (unsigned long long)st.sq_full, (unsigned long long)st.foreign);
	}
	if (the_reader) {
		struct txn_ship_reader_stats st;
		unsigned int i;

		txn_ship_reader_stats(the_reader, &st);
		printf("# reader: %llu entries (%llu bytes), %llu incomplete, %llu looks, %llu FEEDBACKs, %llu deferred, foreign %llu\n",
		       (unsigned long long)st.entries, (unsigned long long)st.bytes,
		       (unsigned long long)st.incomplete, (unsigned long long)st.retries,
		       (unsigned long long)st.feedbacks, (unsigned long long)st.fb_busy,
		       (unsigned long long)st.foreign);
		for (i = 0; i < NW; i++)
			printf("# reader: writer %u consumed up to %llu\n", i,
			       (unsigned long long)txn_ship_reader_consumed(the_reader, i));
	}
	if (cqe_failed)
		printf("# failed completion: endpoint %u opcode %u res %d (%s) flags 0x%x user_data 0x%llx\n",
		       failed_cqe.ep, failed_cqe.opcode, failed_cqe.res,
		       txrdma_strerror(failed_cqe.res), failed_cqe.flags,
		       (unsigned long long)failed_cqe.user_data);
	else
		printf("# no completion failed\n");
	fflush(stdout);
	if (admin) {
		snprintf(cmd, sizeof(cmd), "'%s' ep show 2>&1 | sed 's/^/# /'",
			 admin);
		if (system(cmd) != 0)
			printf("# %s ep show failed\n", admin);
	}
}

static void die(const char *what, int err)
{
	report();
	tap(0, "%s: %s", what, txrdma_strerror(err));
	printf("1..%d\n", tap_n);
	exit(1);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double deadline;

static void check_time(const char *what)
{
	if (now_s() > deadline)
		die(what, -ETIMEDOUT);
}

static uint32_t mix(uint32_t x)
{
	return (uint32_t)mix64(x);
}

/* the entries writer @w appends of @count in all */
static uint64_t share(uint64_t count, unsigned int w)
{
	return w ? count - count / 2 : count / 2;
}

/* the payload of entry @seq of writer @w: its length and bytes */
static uint32_t pay_len(unsigned int w, uint64_t seq)
{
	return 8 + mix((uint32_t)seq * 2 + w) % 505;
}

static uint8_t pay_byte(unsigned int w, uint64_t seq, uint32_t i)
{
	return (uint8_t)(mix((uint32_t)seq ^ (w << 30)) + i * 151 + (i >> 8));
}

struct host {
	struct txrdma_ctx *ctx;
	struct txrdma_sq sq;
	struct txrdma_cq cq;
	struct txrdma_region r;	/* send buffer at 0, rx rings at 1 MiB */
};

struct pair {
	struct txrdma_ep_pair ep;
	struct txrdma_rx rx;
};

static void host_open(struct host *h)
{
	int rc;

	memset(h, 0, sizeof(*h));
	if ((rc = txrdma_open(&h->ctx, 0)))
		die("txrdma_open", rc);
	if ((rc = txrdma_rings_setup(h->ctx, 64, 0, &h->sq, &h->cq)))
		die("txrdma_rings_setup", rc);
	if ((rc = txrdma_region_create(h->ctx, REGION, 0, &h->r)))
		die("txrdma_region_create", rc);
}

static void host_wait(struct host *h, int ms)
{
	struct pollfd pfd = { .fd = txrdma_fd(h->ctx), .events = POLLIN };

	if (txrdma_sq_needs_wakeup(&h->sq))
		txrdma_rings_enter(h->ctx);
	poll(&pfd, 1, ms);
}

static void pair_make(struct host *h, struct pair *p, unsigned int i,
		      const char *peer, uint32_t service)
{
	struct txrdma_ep_params prm = {
		.service = service, .rx_region = h->r.id,
		.rx_off = RX_OFF + i * RX_STEP, .timeout_ms = 30000,
		.rx_max_msg = MAX_MSG,
	};
	int rc;

	/* a writer's guest may take long to come: accept again */
	do {
		check_time("waiting for the writers");
		rc = peer ? txrdma_ep_connect(h->ctx, peer, &prm, &p->ep) :
			    txrdma_ep_accept(h->ctx, &prm, &p->ep);
	} while (!peer && rc == -ETIMEDOUT);
	if (rc)
		die(peer ? "txrdma_ep_connect" : "txrdma_ep_accept", rc);
	rc = txrdma_rx_init(&p->rx, h->ctx, &h->sq,
			    (char *)h->r.addr + prm.rx_off, p->ep.rx_units);
	if (rc)
		die("txrdma_rx_init", rc);
}

/* ---- the reader ------------------------------------------------------ */

static int reader(uint32_t service, uint64_t count)
{
	uint64_t delivered[NW] = { 0 }, last[NW][NW] = { { 0 } };
	uint64_t deps[NW] = { 0 }, bad_seq = 0, bad_order = 0, bad_clock = 0;
	uint64_t bad_bytes = 0, bad_writer = 0, total = 0, idle = 0;
	struct txn_ship_reader_cfg cfg = {
		.nwriters = NW, .ring_size = RING_SIZE,
	};
	struct txn_ship_reader_stats st;
	struct txn_ship_reader *r;
	struct pair p[NW];
	int who[NW] = { -1, -1 };
	unsigned int wid[NW];
	struct txn_log_entry e;
	struct host h;
	unsigned int i, j;
	double t0;
	int rc;

	host_open(&h);
	if ((rc = txrdma_ep_listen(h.ctx, service)))
		die("txrdma_ep_listen", rc);
	printf("# logship reader: listening on service %u\n", service);
	fflush(stdout);
	if ((rc = txn_ship_reader_open(&r, h.ctx, &h.sq, &h.cq, &cfg)))
		die("txn_ship_reader_open", rc);
	the_reader = r;
	for (i = 0; i < NW; i++) {
		const void *msg;
		uint32_t len;
		unsigned int id;
		char buf[32];

		pair_make(&h, &p[i], i, NULL, service);
		while (!(rc = txrdma_rx_peek(&p[i].rx, &msg, &len))) {
			check_time("waiting for a writer's hello");
			host_wait(&h, 10);
		}
		if (rc < 0)
			die("hello", rc);
		snprintf(buf, sizeof(buf), "%.*s", (int)(len < 31 ? len : 31),
			 (const char *)msg);
		txrdma_rx_release(&p[i].rx);
		if (sscanf(buf, "hello %u", &id) != 1 || id >= NW || who[id] >= 0)
			die("a writer's hello", -EPROTO);
		who[id] = (int)i;
		wid[i] = id;
		if ((rc = txn_ship_reader_attach(r, id, p[i].ep.id)))
			die("txn_ship_reader_attach", rc);
		printf("# writer %u is %s (endpoint %u)\n", id, p[i].ep.peer,
		       p[i].ep.id);
	}
	tap(1, "reader: two writers attached, rings of %u bytes exported WRITE to their pairs",
	    RING_SIZE);

	t0 = now_s();
	while (total < count) {
		rc = txn_ship_reader_next(r, &e);
		if (rc < 0)
			die("txn_ship_reader_next", rc);
		if (!rc) {
			/* a WRITE gives no event: look again, sleep a little */
			if (++idle % 64 == 0) {
				/*
				 * A writer told that all its entries were
				 * consumed closes its pair (see the end
				 * below), maybe while we still merge the
				 * other's: its last FEEDBACK may complete
				 * with -ECONNRESET, having arrived, and its
				 * pair ends so.  Anything else is a failure.
				 */
				rc = reap(&h.cq);
				if (rc < 0 && rc != -ECONNRESET)
					die("a FEEDBACK's completion", rc);
				rc = txn_ship_reader_poll(r);
				if (rc < 0 && rc != -ECONNRESET)
					die("txn_ship_reader_poll", rc);
				for (i = 0; i < NW; i++) {
					const void *msg;
					uint32_t len;

					rc = txrdma_rx_peek(&p[i].rx, &msg, &len);
					if (rc == -ECONNRESET &&
					    delivered[wid[i]] == share(count, wid[i]))
						continue;
					if (rc)
						die("a writer's pair", rc < 0 ? rc : -EPROTO);
				}
				check_time("merging");
				if (idle % 1024 == 0) {
					struct timespec ts = { 0, 50000 };

					nanosleep(&ts, NULL);
				}
			}
			continue;
		}
		total++;
		if (e.writer >= NW || e.nclock != NW) {
			bad_writer++;
			continue;
		}
		i = e.writer;
		if (e.clock[i] != delivered[i] + 1)
			bad_seq++;
		for (j = 0; j < NW; j++) {
			if (j != i && e.clock[j] > delivered[j])
				bad_order++;
			if (e.clock[j] < last[i][j])
				bad_clock++;
			last[i][j] = e.clock[j];
		}
		for (j = 0; j < NW; j++)
			if (j != i && e.clock[j])
				deps[i]++;
		if (e.len != pay_len(i, e.clock[i])) {
			bad_bytes++;
		} else {
			uint32_t k;

			for (k = 0; k < e.len; k++)
				if (e.payload[k] != pay_byte(i, e.clock[i], k)) {
					bad_bytes++;
					break;
				}
		}
		delivered[i]++;
	}
	t0 = now_s() - t0;
	/* the end: tell both writers everything was consumed */
	while ((rc = txn_ship_reader_feedback(r)) == -EAGAIN) {
		check_time("the last FEEDBACKs");
		txn_ship_reader_poll(r);
		host_wait(&h, 1);
	}
	if (rc < 0)
		die("txn_ship_reader_feedback", rc);
	txn_ship_reader_stats(r, &st);
	printf("# %llu entries (%llu payload bytes) in %.1f s: %.0f entries/s\n",
	       (unsigned long long)total, (unsigned long long)st.bytes, t0,
	       t0 > 0 ? total / t0 : 0.0);
	tap(total == count, "reader: %llu entries delivered", (unsigned long long)total);
	tap(!bad_writer, "reader: every entry from a writer of the group (%llu not)",
	    (unsigned long long)bad_writer);
	tap(delivered[0] == share(count, 0) && delivered[1] == share(count, 1),
	    "reader: writer 0 %llu, writer 1 %llu entries",
	    (unsigned long long)delivered[0], (unsigned long long)delivered[1]);
	tap(!bad_seq, "reader: each writer's entries in sequence 1, 2, 3... (%llu out of it)",
	    (unsigned long long)bad_seq);
	tap(!bad_order, "reader: no entry before one its clock depends on (%llu early)",
	    (unsigned long long)bad_order);
	tap(!bad_clock, "reader: no writer's clock went back (%llu)",
	    (unsigned long long)bad_clock);
	tap(!bad_bytes, "reader: every payload byte for byte (%llu wrong)",
	    (unsigned long long)bad_bytes);
	tap(deps[0] && deps[1], "reader: entries depending on the other writer's: %llu of writer 0, %llu of writer 1",
	    (unsigned long long)deps[0], (unsigned long long)deps[1]);
	printf("# entries seen due but not whole yet (looked at again): %llu, looks: %llu\n",
	       (unsigned long long)st.incomplete, (unsigned long long)st.retries);
	printf("# FEEDBACKs sent: %llu (%.1f entries each), deferred: %llu, foreign CQEs: %llu\n",
	       (unsigned long long)st.feedbacks,
	       st.feedbacks ? (double)total / st.feedbacks : 0.0,
	       (unsigned long long)st.fb_busy, (unsigned long long)st.foreign);
	tap(st.feedbacks * 4 < total, "reader: FEEDBACKs not per entry (%llu for %llu entries)",
	    (unsigned long long)st.feedbacks, (unsigned long long)total);

	/*
	 * The writers close their pairs once told: our last SENDs may
	 * complete with -ECONNRESET, having arrived (see ex_bye()).
	 */
	while (!txn_ship_reader_idle(r)) {
		check_time("the last FEEDBACKs' completions");
		rc = txn_ship_reader_poll(r);
		if (rc < 0 && rc != -ECONNRESET)
			die("the last FEEDBACKs", rc);
		host_wait(&h, 1);
	}
	for (i = 0; i < NW; i++) {
		const void *msg;
		uint32_t len;

		while (!(rc = txrdma_rx_peek(&p[i].rx, &msg, &len))) {
			check_time("the writers' close");
			host_wait(&h, 10);
		}
		tap(rc == -ECONNRESET, "reader: %s closed its pair once told (%s)",
		    p[i].ep.peer, rc < 0 ? txrdma_strerror(rc) : "a message");
		txrdma_ep_destroy(h.ctx, p[i].ep.id);
	}
	tap(txn_ship_reader_close(r) == 0, "reader: closed");
	txrdma_close(h.ctx);
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

/* ---- a writer -------------------------------------------------------- */

/* txn_ship_writer_poll(), its completions reaped by reap() first */
static int writer_poll(struct txn_ship_writer *w, struct host *h)
{
	int n = reap(&h->cq), rc;

	rc = txn_ship_writer_poll(w);
	return n < 0 ? n : rc < 0 ? rc : n + rc;
}

static int writer(const char *peer, uint32_t service, unsigned int id,
		  uint64_t count)
{
	struct txn_ship_writer_cfg cfg = {
		.id = id, .nwriters = NW, .flags = TXN_SHIP_F_OBSERVE,
		.timeout_ms = 60000,
	};
	struct txn_ship_writer_stats st;
	struct txn_ship_writer *w;
	uint64_t seq = 0, batches = 0, waits = 0, n = share(count, id);
	struct txrdma_sqe *sqe;
	struct txrdma_cqe *cqe;
	uint8_t pay[512];
	struct pair p;
	struct host h;
	double t0;
	int rc, len;

	host_open(&h);
	/* the reader may not listen yet */
	for (;;) {
		struct txrdma_ep_params prm = {
			.service = service, .rx_region = h.r.id,
			.rx_off = RX_OFF, .timeout_ms = 30000,
			.rx_max_msg = MAX_MSG,
		};

		rc = txrdma_ep_connect(h.ctx, peer, &prm, &p.ep);
		if (rc != -ECONNREFUSED)
			break;
		check_time("connecting");
		host_wait(&h, 200);
	}
	if (rc)
		die("txrdma_ep_connect", rc);
	rc = txrdma_rx_init(&p.rx, h.ctx, &h.sq, (char *)h.r.addr + RX_OFF,
			    p.ep.rx_units);
	if (rc)
		die("txrdma_rx_init", rc);
	len = snprintf((char *)h.r.addr, 32, "hello %u", id);
	sqe = txrdma_get_sqe(&h.sq);
	txrdma_prep_send(sqe, p.ep.id, h.r.id, 0, (uint32_t)len, HELLO_UD);
	txrdma_submit(h.ctx, &h.sq);
	for (;;) {
		cqe = txrdma_peek_cqe(&h.cq);
		if (cqe) {
			rc = cqe->res;
			txrdma_cq_advance(&h.cq, 1);
			if (rc != len)
				die("SEND hello", rc < 0 ? rc : -EIO);
			break;
		}
		check_time("the hello");
		host_wait(&h, 10);
	}
	if ((rc = txn_ship_writer_open(&w, h.ctx, &h.sq, &h.cq, p.ep.id,
				       &p.rx, &cfg)))
		die("txn_ship_writer_open", rc);
	the_writer = w;
	tap(1, "writer %u: the reader's ring is exported to our pair, WRITE", id);

	t0 = now_s();
	while (seq < n) {
		unsigned int b = 1 + mix((uint32_t)batches++ * 2 + id) % 64;

		while (b && seq < n) {
			uint32_t l = pay_len(id, seq + 1), k;

			for (k = 0; k < l; k++)
				pay[k] = pay_byte(id, seq + 1, k);
			rc = txn_ship_writer_append(w, pay, l, NULL);
			if (rc == -ENOSPC) {
				/* the reader has not said it consumed enough */
				if ((rc = txn_ship_writer_flush(w)) < 0 ||
				    (rc = writer_poll(w, &h)) < 0)
					die("waiting for room", rc);
				if (!rc) {
					waits++;
					check_time("waiting for room");
					host_wait(&h, 1);
				}
				continue;
			}
			if (rc)
				die("txn_ship_writer_append", rc);
			seq++;
			b--;
		}
		if ((rc = txn_ship_writer_flush(w)) < 0 ||
		    (rc = writer_poll(w, &h)) < 0)
			die("flush", rc);
	}
	/* until the reader says it consumed everything */
	for (;;) {
		if ((rc = txn_ship_writer_flush(w)) < 0 ||
		    (rc = writer_poll(w, &h)) < 0)
			die("the end", rc);
		txn_ship_writer_stats(w, &st);
		if (txn_ship_writer_idle(w) && st.consumed == st.pos)
			break;
		check_time("the reader's last FEEDBACK");
		if (!rc)
			host_wait(&h, 1);
	}
	t0 = now_s() - t0;
	printf("# writer %u: %llu entries (%llu bytes, log %llu bytes) in %.1f s, %llu batches\n",
	       id, (unsigned long long)st.entries, (unsigned long long)st.bytes,
	       (unsigned long long)st.pos, t0, (unsigned long long)batches);
	printf("# writer %u: %llu WRITEs (%.0f bytes each), %llu FEEDBACKs, %llu appends refused full, %llu waits, %llu posts deferred (SQ), %llu foreign CQEs\n",
	       id, (unsigned long long)st.writes,
	       st.writes ? (double)st.write_bytes / st.writes : 0.0,
	       (unsigned long long)st.feedbacks, (unsigned long long)st.full,
	       (unsigned long long)waits, (unsigned long long)st.sq_full,
	       (unsigned long long)st.foreign);
	tap(st.entries == n, "writer %u: %llu entries appended", id,
	    (unsigned long long)st.entries);
	tap(!st.inflight && !st.pending && st.flushed == st.pos &&
	    st.write_bytes <= st.flushed,
	    "writer %u: every WRITE completed (%llu bytes of %llu handed out: PADs are not written)",
	    id, (unsigned long long)st.write_bytes, (unsigned long long)st.flushed);
	tap(st.consumed == st.pos, "writer %u: the reader consumed all of it (%llu)",
	    id, (unsigned long long)st.consumed);
	tap(txn_ship_writer_clock(w)[id] == n && txn_ship_writer_clock(w)[!id],
	    "writer %u: clock (%llu, %llu): observed the other writer's entries",
	    id, (unsigned long long)txn_ship_writer_clock(w)[0],
	    (unsigned long long)txn_ship_writer_clock(w)[1]);
	tap(st.writes < st.entries, "writer %u: WRITEs in batches (%llu for %llu entries)",
	    id, (unsigned long long)st.writes, (unsigned long long)st.entries);
	/* we read the last message: we close (the reader waits for it) */
	txrdma_ep_destroy(h.ctx, p.ep.id);
	tap(txn_ship_writer_close(w) == 0, "writer %u: closed", id);
	txrdma_close(h.ctx);
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *t = getenv("TXRDMA_LOGSHIP_TIMEOUT");

	deadline = now_s() + (t ? atof(t) : 1500);
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n");
	if (argc == 4 && !strcmp(argv[1], "reader"))
		return reader((uint32_t)strtoul(argv[2], NULL, 0),
			      strtoull(argv[3], NULL, 0));
	if (argc == 6 && !strcmp(argv[1], "writer") &&
	    strtoul(argv[4], NULL, 0) < NW)
		return writer(argv[2], (uint32_t)strtoul(argv[3], NULL, 0),
			      (unsigned int)strtoul(argv[4], NULL, 0),
			      strtoull(argv[5], NULL, 0));
	fprintf(stderr, "usage: logship_guest reader SERVICE COUNT\n"
			"       logship_guest writer PEER SERVICE ID COUNT\n");
	return 2;
}
