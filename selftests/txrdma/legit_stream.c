// SPDX-License-Identifier: GPL-2.0-only
/*
 * legit_stream: a well-behaved tenant's endpoint pair that streams both
 * ways and checks every byte, for as long as a hostile tenant attacks
 * the same module and peer (the "hostile" suite; hostile_guest.sh runs
 * a server and a client of it).
 *
 *   legit_stream server TENANT SERVICE STOP READY SEED
 *   legit_stream client TENANT PEER SERVICE STOP READY SEED
 *
 * Each side keeps up to WINDOW SENDs in flight (message i: its number
 * in the first 8 bytes, then msg_pattern.h's pattern; sizes 1 B to
 * 4 KiB, log-uniform, from SEED) and reads the other's stream: every
 * message complete, byte-exact, in order; every SEND's CQE exactly
 * once, in order, with its length.  READY is created once paired.
 * When STOP appears, each side finishes what is in flight and sends an
 * END (count, bytes, checksum of what it sent); each compares the
 * other's END with what it received.  The client then closes the pair.
 * Any error before the END (a CQE, the ring, a byte) fails the run:
 * nothing another tenant does may reach this pair.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attack_util.h"
#include "msg_pattern.h"

#define UNITS		4096
#define WINDOW		16
#define MAX_LEN		4096
#define KEY_C2S		0x6c65676974ULL		/* "legit" */
#define KEY_S2C		0x6c65676974ULL * 3
#define END_MAGIC	0x444e455f5449474cULL	/* "LGIT_END" */
#define END_OFF		(AT_SLOTS_OFF + WINDOW * MAX_LEN)
#define DRAIN_S		60
#define PROGRESS_S	10

struct end {
	uint64_t magic;
	uint64_t count, bytes, hash;
};

struct stream {
	struct gen g;
	uint64_t key;
	uint64_t n, bytes, hash;	/* messages sent or received */
	uint64_t done;			/* sent: CQEs seen */
	uint64_t bad;			/* wrong CQEs or messages */
	char err[200];
};

static void fail(struct stream *st, const char *fmt, unsigned long long a,
		 long long b, long long c)
{
	if (!st->bad++)
		snprintf(st->err, sizeof(st->err), fmt, a, b, c);
}

static int run(bool server, const char *tenant, const char *peer,
	       uint32_t service, const char *stop, const char *ready,
	       uint64_t seed)
{
	struct stream tx = { .g = { seed ^ (server ? 2 : 1), UINT32_MAX,
				    MAX_LEN, 0 },
			     .key = server ? KEY_S2C : KEY_C2S };
	struct stream rx = { .g = { seed ^ (server ? 1 : 2), UINT32_MAX,
				    MAX_LEN, 0 },
			     .key = server ? KEY_C2S : KEY_S2C };
	struct end theirs = { 0 }, *mine;
	bool stopping = false, end_sent = false, end_seen = false;
	bool end_done = false;
	int32_t end_res = 0;
	double t0, next_check = 0, next_progress;
	int ring_err = 0, ret, fd;
	const char *me = server ? "server" : "client";
	struct at_side s;

	at_require_tenant(tenant);
	if (at_side_open(&s, 256, UNITS))
		tap_bail("%s: rings and region", me);
	if (server) {
		ret = txrdma_ep_listen(s.ctx, service);
		if (!ret)
			ret = at_side_accept(&s, service, 120000);
	} else {
		ret = at_side_connect(&s, peer, service, 3000, 120);
	}
	if (!tap_ok(!ret, "%s of tenant %s paired on service %u (%s)", me,
		    tenant, service, ret ? strerror(-ret) : "ok"))
		return tap_done();
	fd = open(ready, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
	t0 = at_now();
	next_progress = t0 + PROGRESS_S;

	while (!end_seen || !end_done) {
		struct txrdma_cqe *c;
		const uint8_t *p;
		uint32_t len;
		bool progress = false;

		if (!stopping && at_now() > next_check) {
			stopping = !access(stop, F_OK);
			next_check = at_now() + 0.2;
		}
		if (stopping && at_now() > next_check + DRAIN_S)
			break;		/* the other side never ended */
		while (!stopping && tx.n - tx.done < WINDOW) {
			uint64_t off = AT_SLOTS_OFF + (tx.n % WINDOW) * MAX_LEN;

			len = gen_len(&tx.g, tx.n);
			tx.hash = hash_step(tx.hash, fill((uint8_t *)s.reg.addr +
							  off, tx.key, tx.n, len),
					    len);
			tx.bytes += len;
			if (at_side_send(&s, off, len, tx.n))
				break;
			tx.n++;
			progress = true;
		}
		if (stopping && !end_sent && tx.done == tx.n) {
			mine = (struct end *)((uint8_t *)s.reg.addr + END_OFF);
			*mine = (struct end){ END_MAGIC, tx.n, tx.bytes,
					      tx.hash };
			if (!at_side_send(&s, END_OFF, sizeof(*mine), ~0ULL))
				end_sent = true;
		}
		while ((c = txrdma_peek_cqe(&s.cq))) {
			if (c->user_data == ~0ULL) {
				end_done = true;
				end_res = c->res;
			} else if (c->user_data != tx.done ||
				   c->res != (int32_t)gen_len(&tx.g, tx.done)) {
				fail(&tx, "SEND %llu: CQE for %lld, res %lld",
				     tx.done, (long long)c->user_data, c->res);
				tx.done++;
			} else {
				tx.done++;
			}
			txrdma_cq_advance(&s.cq, 1);
			progress = true;
		}
		ret = 0;
		while (!end_seen &&
		       (ret = txrdma_rx_peek(&s.rx, (const void **)&p, &len)) == 1) {
			uint64_t d;
			long bad;

			if (len == sizeof(theirs) &&
			    ((const struct end *)p)->magic == END_MAGIC) {
				memcpy(&theirs, p, sizeof(theirs));
				end_seen = true;
			} else {
				bad = check(p, rx.key, rx.n, len, &d);
				if (len != gen_len(&rx.g, rx.n))
					fail(&rx, "message %llu: %lld bytes, sent %lld",
					     rx.n, len, gen_len(&rx.g, rx.n));
				else if (bad >= 0)
					fail(&rx, "message %llu (%lld bytes): byte %lld differs",
					     rx.n, len, bad);
				rx.hash = hash_step(rx.hash, d, len);
				rx.bytes += len;
				rx.n++;
			}
			txrdma_rx_release(&s.rx);
			progress = true;
		}
		if (ret < 0 && !end_seen) {
			ring_err = ret;
			break;
		}
		if (tx.bad || rx.bad)
			break;
		if (at_now() > next_progress) {
			tap_diag("%s: %.0f s: sent %llu (%llu completed), received %llu",
				 me, at_now() - t0, (unsigned long long)tx.n,
				 (unsigned long long)tx.done,
				 (unsigned long long)rx.n);
			next_progress += PROGRESS_S;
		}
		if (!progress)
			at_side_idle(&s);
	}
	tap_diag("%s: %.1f s: sent %llu messages (%llu bytes), received %llu (%llu bytes)",
		 me, at_now() - t0, (unsigned long long)tx.n,
		 (unsigned long long)tx.bytes, (unsigned long long)rx.n,
		 (unsigned long long)rx.bytes);
	tap_ok(!ring_err, "%s: the receive ring never failed before the end (%d)",
	       me, ring_err);
	tap_ok(!tx.bad && tx.done == tx.n,
	       "%s: every SEND completed once, in order, with its length (%llu of %llu) %s",
	       me, (unsigned long long)tx.done, (unsigned long long)tx.n,
	       tx.err);
	tap_ok(!rx.bad && rx.n,
	       "%s: every message received whole, byte-exact and in order (%llu) %s",
	       me, (unsigned long long)rx.n, rx.err);
	tap_ok(end_seen && theirs.count == rx.n && theirs.bytes == rx.bytes &&
	       theirs.hash == rx.hash,
	       "%s: the other side sent exactly what was received (its END: %llu messages, %llu bytes%s)",
	       me, (unsigned long long)theirs.count,
	       (unsigned long long)theirs.bytes,
	       theirs.hash == rx.hash ? ", same checksum" : ", checksum differs");
	/* the client closes once it has the END: the server's END may be
	 * overtaken by that close (outcome unknown; the client got it)
	 */
	tap_ok(end_done && (end_res == (int32_t)sizeof(struct end) ||
			    (server && end_res == -ECONNRESET)),
	       "%s: our END completed (%d)", me, end_res);
	tap_ok(!txrdma_cq_overflow(&s.cq) && !txrdma_sq_dropped(&s.sq),
	       "%s: no CQE lost, no SQE dropped (%u, %u)", me,
	       txrdma_cq_overflow(&s.cq), txrdma_sq_dropped(&s.sq));
	if (server) {
		/* the client closes: wait for it (bounded) */
		const uint8_t *p;
		uint32_t len;

		while ((ret = at_side_recv(&s, &p, &len, 30)) == 1)
			txrdma_rx_release(&s.rx);
		tap_ok(ret == -ECONNRESET, "server: the client closed the pair (%d)",
		       ret);
	}
	at_side_close(&s);
	return tap_done();
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 7 && !strcmp(argv[1], "server"))
		return run(true, argv[2], NULL, strtoul(argv[3], NULL, 0),
			   argv[4], argv[5], strtoull(argv[6], NULL, 0));
	if (argc == 8 && !strcmp(argv[1], "client"))
		return run(false, argv[2], argv[3], strtoul(argv[4], NULL, 0),
			   argv[5], argv[6], strtoull(argv[7], NULL, 0));
	fprintf(stderr, "usage: %s server TENANT SERVICE STOP READY SEED\n"
		"       %s client TENANT PEER SERVICE STOP READY SEED\n",
		argv[0], argv[0]);
	return 2;
}
