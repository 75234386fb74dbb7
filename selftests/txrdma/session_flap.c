// SPDX-License-Identifier: GPL-2.0-only
/*
 * session_flap: an endpoint pair with TXRDMA_EP_F_SESSION while the host
 * cuts the link under it (the session suite, 2 guests, run by
 * session_guest.sh).
 *
 *   session_flap server SERVICE MODE [GRACE_MS]
 *   session_flap client PEER SERVICE MODE GRACE_MS STREAMING DONE
 *
 * The client streams messages of 1 B .. 8 KiB (message n holds its
 * number and msg_pattern.h's bytes for it, 32 in flight) and creates
 * STREAMING once 2000 have completed; the host then cuts the link, for
 * less than the grace (MODE short) or for longer (MODE long), restores
 * it and creates DONE.  Both check that the pair is a session with the
 * grace the client asked for (GRACE_MS, 0: the default).
 *
 * short: the client goes on until DONE exists and 2000 more messages
 * have completed, then sends END (a 16-byte message: a magic word and
 * the count).  Every SEND must complete once, successfully; the server
 * must see every message once, in order, byte for byte, and END's count.
 *
 * long: the client streams until SENDs fail.  Every SQE must complete
 * exactly once; from the first failure on, every one fails, each with
 * -ENOTCONN (the peer went Down, and the session did not come back);
 * the first failure comes no earlier than the grace after the last
 * success and at most 1.5 s later (the detection time, 0.5 s in the
 * suite, and 1 s for a stalled guest), and the receive ring reports
 * the error.  The server's ring fails too, after every message before
 * the cut arrived intact.
 *
 * Both print TAP lines (numbered from 1, no plan: the guest script
 * numbers them) and the longest gap between two deliveries: the
 * interruption the cut caused, as each side saw it.  Every mode exits
 * 0 only when all its results were ok.
 *
 *   session_flap rw-server SERVICE
 *   session_flap rw-client PEER SERVICE COUNT idempotent|plain
 *
 * READ and WRITE across a lost QP (fault_inject.sh, which makes a QP
 * post fail on one host).  The server exports 64 KiB of its region to
 * the pair and says where; the client writes block n (4 KiB of
 * msg_pattern.h's bytes) into slot n % 16 of it and reads it back,
 * COUNT times, one WRITE and READ at a time.  idempotent: both carry
 * TXRDMA_SQE_F_IDEMPOTENT, none may fail, every read matches byte for
 * byte.  plain: those in flight at the loss fail with -ECONNABORTED
 * (at least one, nothing else fails), the client runs them again
 * itself, every read that succeeded matches.  Every SQE completes
 * exactly once either way.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <txrdma.h>

#include "msg_pattern.h"
#include "pair_side.h"

#define UNITS		4096		/* 256 KiB ring */
#define WINDOW		32
#define MAX_LEN		8192
#define SEND_OFF	(1u << 20)	/* send slots, after the ring */
#define MAX_MSGS	(1u << 22)
#define KEY		0x5e5510f1a9ULL
#define END_MAGIC	0x21444e4550414c46ULL	/* "FLAPEND!" */
#define AFTER		2000	/* messages before and after the cut */

static struct pair_side side;
static unsigned int tap, tap_failed;

static double now_ms(void)
{
	return pair_now_ms();
}

static void result(bool good, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void result(bool good, const char *fmt, ...)
{
	va_list ap;

	printf("%s %u - ", good ? "ok" : "not ok", ++tap);
	tap_failed += !good;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static void die(const char *what, int err)
{
	result(false, "session_flap: %s: %s", what, strerror(err));
	exit(1);
}

static void setup(__u32 service, const char *peer, __u32 grace_ms)
{
	const char *what;
	int ret = pair_side_setup(&side, service, peer, UNITS, true, grace_ms,
				  &what);

	if (ret)
		die(what, -ret);
}

static void touch(const char *file)
{
	int fd = open(file, O_CREAT | O_WRONLY, 0644);

	if (fd >= 0)
		close(fd);
}

static int server(__u32 service, bool lng, __u32 grace_ms)
{
	unsigned long got = 0, bad_seq = 0, bad_bytes = 0;
	double last = 0, gap = 0, gap_at = 0, t;
	uint64_t seq, total = 0, d;
	bool end = false;
	const void *p;
	__u32 len;
	int ret;

	setup(service, NULL, 0);
	printf("# server: pair %u <-> %u (flags %#x), receiving\n",
	       side.ep.id, side.ep.peer_ep, side.ep.flags);
	/* the connector's grace, as our module took it from CONNECT */
	result(side.ep.flags & TXRDMA_EP_F_SESSION &&
	       side.ep.grace_ms == (grace_ms ?: TXRDMA_EP_GRACE_MS),
	       "server: accepted a session with the connector's grace (%u ms)",
	       side.ep.grace_ms);
	for (;;) {
		ret = txrdma_rx_peek(&side.rx, &p, &len);
		if (ret < 0)
			break;
		if (!ret) {
			usleep(100);
			continue;
		}
		t = now_ms();
		if (last && t - last > gap) {
			gap = t - last;
			gap_at = t;
		}
		last = t;
		memcpy(&seq, p, len < 8 ? len : 8);
		seq = le64toh(seq);
		if (len == 16 && seq == END_MAGIC) {
			memcpy(&total, (const char *)p + 8, 8);
			total = le64toh(total);
			end = true;
			txrdma_rx_release(&side.rx);
			break;
		}
		/* a message shorter than 8 bytes is checked by its bytes */
		if (len >= 8 && seq != got)
			bad_seq++;
		else if (check(p, KEY, got, len, &d) >= 0)
			bad_bytes++;
		else if (len != gen_len(&(struct gen){ .seed = KEY,
				.max_len = MAX_LEN }, got))
			bad_bytes++;
		got++;
		txrdma_rx_release(&side.rx);
	}
	printf("# server: %lu messages, longest gap between two %.1f ms, ring %s (%d)\n",
	       got, gap, end ? "ended by END" : "failed", end ? 0 : ret);
	result(!bad_seq && !bad_bytes,
	       "server: every message in order, byte for byte (%lu out of sequence, %lu with wrong bytes)",
	       bad_seq, bad_bytes);
	if (lng)
		result(!end && (ret == -ENOTCONN || ret == -ECONNRESET),
		       "server: the ring failed once the grace ran out (%d: %s)",
		       ret, strerror(-ret));
	else
		result(end && total == got,
		       "server: END came and counts every message (%llu sent, %lu received)",
		       (unsigned long long)total, got);
	/* its ends on CLOCK_MONOTONIC, as the guest's trace has them */
	printf("# server: interruption %.1f ms (mono %.3f..%.3f ms)\n", gap,
	       gap_at - gap, gap_at);
	txrdma_close(side.ctx);
	return tap_failed ? 1 : 0;
}

static int client(const char *peer, __u32 service, bool lng, __u32 grace_ms,
		  const char *streaming, const char *done_file)
{
	unsigned long posted = 0, done = 0, ok = 0, failed = 0, dup = 0,
		      wrong = 0, ok_after = 0, stop_at = MAX_MSGS;
	double last_ok = 0, first_err = 0, gap = 0, gap_at = 0, looked = 0;
	double t, t_end;
	struct gen g = { .seed = KEY, .max_len = MAX_LEN };
	unsigned char *seen;
	int first_res = 0, rx_err = 0;
	bool end_sent = false, end_ok = false, cut_over = false;
	const void *p;
	__u32 len;

	setup(service, peer, grace_ms);
	printf("# client: pair %u <-> %u (flags %#x), grace %u ms\n",
	       side.ep.id, side.ep.peer_ep, side.ep.flags, grace_ms);
	result(side.ep.grace_ms == (grace_ms ?: TXRDMA_EP_GRACE_MS),
	       "client: a session with the grace asked for (%u ms)",
	       side.ep.grace_ms);
	seen = calloc(MAX_MSGS + 1, 1);
	if (!seen)
		die("calloc", ENOMEM);
	t_end = now_ms() + 300000;
	while (now_ms() < t_end) {
		struct txrdma_cqe *c;
		bool idle = true;

		while (!failed && posted - done < WINDOW && posted < stop_at) {
			struct txrdma_sqe *e = txrdma_get_sqe(&side.sq);
			__u32 l = gen_len(&g, posted);
			__u64 off = SEND_OFF + (posted % WINDOW) * MAX_LEN;

			/* slot posted % WINDOW is free: its last use is done */
			if (!e || (posted >= WINDOW && !seen[posted - WINDOW]))
				break;
			fill((uint8_t *)side.reg.addr + off, KEY, posted, l);
			txrdma_prep_send(e, side.ep.id, side.reg.id, off, l,
					 posted);
			posted++;
			idle = false;
		}
		/* END after the rest: it is the stream's last message */
		if (!lng && !failed && !end_sent && posted == stop_at &&
		    done == posted) {
			struct txrdma_sqe *e = txrdma_get_sqe(&side.sq);
			uint64_t w[2] = { htole64(END_MAGIC), htole64(posted) };

			if (e) {
				memcpy((char *)side.reg.addr + SEND_OFF, w, 16);
				txrdma_prep_send(e, side.ep.id, side.reg.id,
						 SEND_OFF, 16, MAX_MSGS);
				end_sent = true;
			}
		}
		txrdma_submit(side.ctx, &side.sq);
		while ((c = txrdma_peek_cqe(&side.cq))) {
			idle = false;
			if (c->user_data == MAX_MSGS && end_sent) {
				end_ok = c->res == 16;
				if (!end_ok)
					failed++;
			} else if (c->user_data >= posted) {
				wrong++;
			} else if (seen[c->user_data]++) {
				dup++;
			} else if (c->res >= 0) {
				t = now_ms();
				if (last_ok && t - last_ok > gap) {
					gap = t - last_ok;
					gap_at = t;
				}
				last_ok = t;
				ok++;
				if (failed)
					ok_after++;
			} else {
				if (!failed++) {
					first_err = now_ms();
					first_res = c->res;
				}
				if (c->res != first_res)
					wrong++;
			}
			if (c->user_data != MAX_MSGS)
				done++;
			txrdma_cq_advance(&side.cq, 1);
			if (ok == AFTER && c->res >= 0) {
				touch(streaming);
				printf("# client: %d SENDs done, %s created\n",
				       AFTER, streaming);
				fflush(stdout);
			}
		}
		/* the host's word that the cut is over, looked for often */
		if (!lng && !cut_over && ok > AFTER &&
		    now_ms() - looked > 10 && (looked = now_ms()) &&
		    !access(done_file, F_OK)) {
			cut_over = true;
			stop_at = posted + AFTER;
			printf("# client: the cut is over after %lu SENDs; %d more\n",
			       ok, AFTER);
		}
		if ((failed || end_ok) && done == posted)
			break;
		if (idle)
			usleep(100);
	}
	/* say so when the clock, not the stream, ended the loop */
	if (now_ms() >= t_end && !failed && !end_ok)
		printf("# client: the 300 s budget ran out first (%s, %lu SENDs in flight then)\n",
		       cut_over || lng ? "stream still going" :
		       "the host never said the cut was over",
		       posted - done);
	/*
	 * a failed pair's ring reports it after its frames, once the
	 * kernel let the pair go: a bounded wait
	 */
	if (lng) {
		t_end = now_ms() + 10000;
		while (!(rx_err = txrdma_rx_peek(&side.rx, &p, &len)) &&
		       now_ms() < t_end)
			usleep(1000);
	}
	printf("# client: %lu posted, %lu ok, %lu failed (first: %d, %.1f ms after the last success), %lu duplicate, %lu unknown or other error\n",
	       posted, ok, failed, first_res, first_err - last_ok, dup, wrong);
	printf("# client: longest gap between two completions %.1f ms\n",
	       gap);
	result(!dup && !wrong && done == posted,
	       "client: every SEND completed exactly once (%lu of %lu)",
	       done, posted);
	if (!lng) {
		result(!failed && end_ok && cut_over,
		       "client: no SEND failed across the cut (%lu ok, %lu failed, END %s)",
		       ok, failed, end_ok ? "delivered" : "not delivered");
		printf("# client: interruption %.1f ms (mono %.3f..%.3f ms)\n",
		       gap, gap_at - gap, gap_at);
	} else {
		result(failed && first_res == -ENOTCONN && !ok_after,
		       "client: from the first failure on every SEND failed with -ENOTCONN (%lu failed, first %d, %lu ok after)",
		       failed, first_res, ok_after);
		result(failed && first_err - last_ok >= grace_ms &&
		       first_err - last_ok <= grace_ms + 1500.0,
		       "client: the first failure came after the grace, not much later (%.1f ms after the last success, grace %u ms)",
		       first_err - last_ok, grace_ms);
		result(rx_err == -ENOTCONN,
		       "client: the receive ring reports the error (%d)",
		       rx_err);
	}
	txrdma_close(side.ctx);
	free(seen);
	return tap_failed ? 1 : 0;
}

#define RW_BLK		4096
#define RW_SLOTS	16
#define RW_EXP_OFF	(1u << 20)	/* the server's exported range */
#define RW_WR_OFF	(1u << 20)	/* the client's blocks to write */
#define RW_RD_OFF	((1u << 20) + 2 * RW_BLK)	/* and to read into */

/* wait for a message on our ring; its first 8 bytes, or -errno */
static long long rx_word(double timeout_ms)
{
	double t_end = now_ms() + timeout_ms;
	const void *p;
	uint64_t w = 0;
	__u32 len;
	int ret;

	while (!(ret = txrdma_rx_peek(&side.rx, &p, &len)) && now_ms() < t_end)
		usleep(200);
	if (ret <= 0)
		return ret ? ret : -ETIMEDOUT;
	memcpy(&w, p, len < 8 ? len : 8);
	txrdma_rx_release(&side.rx);
	return (long long)(le64toh(w) & 0xffffffffu);
}

/* post one SEND of a word and wait for its completion */
static int send_word(uint64_t w)
{
	struct txrdma_sqe *e = txrdma_get_sqe(&side.sq);
	struct txrdma_cqe *c;
	double t_end = now_ms() + 10000;
	int res;

	if (!e)
		return -EBUSY;
	w = htole64(w);
	memcpy((char *)side.reg.addr + SEND_OFF - 64, &w, 8);
	txrdma_prep_send(e, side.ep.id, side.reg.id, SEND_OFF - 64, 8, ~0ULL);
	txrdma_submit(side.ctx, &side.sq);
	while (!(c = txrdma_peek_cqe(&side.cq)) && now_ms() < t_end)
		usleep(200);
	if (!c)
		return -ETIMEDOUT;
	res = c->res;
	txrdma_cq_advance(&side.cq, 1);
	return res < 0 ? res : 0;
}

static int rw_server(__u32 service)
{
	struct txrdma_export_info x = {
		.off = RW_EXP_OFF, .len = RW_SLOTS * RW_BLK,
		.access = TXRDMA_EXPORT_READ | TXRDMA_EXPORT_WRITE,
	};
	long long w;
	int ret;

	setup(service, NULL, 0);
	x.region = side.reg.id;
	ret = txrdma_ep_export(side.ctx, side.ep.id, &x, 0);
	if (ret)
		die("export", -ret);
	ret = send_word(side.reg.id);
	if (ret)
		die("send the region", -ret);
	printf("# rw-server: pair %u <-> %u (flags %#x), region %u exported\n",
	       side.ep.id, side.ep.peer_ep, side.ep.flags, side.reg.id);
	/* until the client's word that it is done (or the pair's end) */
	w = rx_word(300000);
	result(w == 0x0b7e, "rw-server: the client said it is done (%lld)",
	       w);
	txrdma_close(side.ctx);
	return tap_failed ? 1 : 0;
}

/* one operation, waited for: its result */
static int rw_op(bool write, __u32 rreg, __u32 slot, __u16 flags,
		 uint64_t tag, unsigned long *dup)
{
	struct txrdma_sqe *e = txrdma_get_sqe(&side.sq);
	double t_end = now_ms() + 30000;
	struct txrdma_cqe *c;
	int res = -ETIMEDOUT;

	if (!e)
		return -EBUSY;
	if (write)
		txrdma_prep_write(e, side.ep.id, side.reg.id, RW_WR_OFF, RW_BLK,
				  rreg, RW_EXP_OFF + slot * RW_BLK, tag);
	else
		txrdma_prep_read(e, side.ep.id, side.reg.id, RW_RD_OFF, RW_BLK,
				 rreg, RW_EXP_OFF + slot * RW_BLK, tag);
	txrdma_sqe_set_flags(e, flags);
	txrdma_submit(side.ctx, &side.sq);
	while (now_ms() < t_end) {
		c = txrdma_peek_cqe(&side.cq);
		if (!c) {
			usleep(50);
			continue;
		}
		if (c->user_data != tag)
			(*dup)++;
		else
			res = c->res;
		txrdma_cq_advance(&side.cq, 1);
		if (c->user_data == tag)
			break;
	}
	return res;
}

/* one operation until it ran for sure (again after -ECONNABORTED) */
static int rw_until_run(bool write, __u32 rreg, __u32 slot, __u16 flags,
			uint64_t *tag, unsigned long *aborted,
			unsigned long *dup)
{
	int res;

	while ((res = rw_op(write, rreg, slot, flags, ++*tag, dup)) ==
	       -ECONNABORTED)
		(*aborted)++;
	return res;
}

static int rw_client(const char *peer, __u32 service, unsigned long count,
		     bool idem)
{
	unsigned long i, aborted = 0, other = 0, bad = 0, reads = 0, dup = 0;
	__u16 flags = idem ? TXRDMA_SQE_F_IDEMPOTENT : 0;
	uint64_t tag = 0, d;
	long long rreg;
	int res, first_other = 0;

	setup(service, peer, 0);
	rreg = rx_word(30000);
	if (rreg < 0)
		die("the server's region", (int)-rreg);
	printf("# rw-client: pair %u <-> %u (flags %#x), remote region %lld, %s\n",
	       side.ep.id, side.ep.peer_ep, side.ep.flags, rreg,
	       idem ? "TXRDMA_SQE_F_IDEMPOTENT" : "no flag");
	for (i = 0; i < count; i++) {
		__u32 slot = i % RW_SLOTS;

		fill((uint8_t *)side.reg.addr + RW_WR_OFF, KEY, i, RW_BLK);
		/* WRITE block i, then READ it back */
		res = rw_until_run(true, rreg, slot, flags, &tag, &aborted,
				   &dup);
		if (res == RW_BLK)
			res = rw_until_run(false, rreg, slot, flags, &tag,
					   &aborted, &dup);
		if (res != RW_BLK) {
			other++;
			first_other = res;
			break;
		}
		reads++;
		if (check((uint8_t *)side.reg.addr + RW_RD_OFF, KEY, i, RW_BLK,
			  &d) >= 0)
			bad++;
	}
	res = send_word(0x0b7e);
	printf("# rw-client: %lu of %lu blocks written and read back, %lu aborted, %lu other failures (first %d), bye %d\n",
	       reads, count, aborted, other, first_other, res);
	result(!other && !dup && reads == count && !res,
	       "rw-client: every READ and WRITE completed once, none with another error (%lu blocks, %lu failures, %lu stray CQEs)",
	       reads, other, dup);
	result(!bad, "rw-client: every block read back byte for byte (%lu differ)",
	       bad);
	if (idem)
		result(!aborted,
		       "rw-client: idempotent: none failed, those in flight at the loss ran again (%lu aborted)",
		       aborted);
	else
		result(aborted >= 1,
		       "rw-client: plain: those in flight at the loss failed with -ECONNABORTED (%lu)",
		       aborted);
	txrdma_close(side.ctx);
	return tap_failed ? 1 : 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && !strcmp(argv[1], "rw-server"))
		return rw_server(atoi(argv[2]));
	if (argc == 6 && !strcmp(argv[1], "rw-client"))
		return rw_client(argv[2], atoi(argv[3]), atol(argv[4]),
				 !strcmp(argv[5], "idempotent"));
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "server"))
		return server(atoi(argv[2]), !strcmp(argv[3], "long"),
			      argc == 5 ? atoi(argv[4]) : 0);
	if (argc == 8 && !strcmp(argv[1], "client"))
		return client(argv[2], atoi(argv[3]), !strcmp(argv[4], "long"),
			      atoi(argv[5]), argv[6], argv[7]);
	fprintf(stderr, "usage: session_flap server SERVICE MODE [GRACE_MS]\n"
		"       session_flap client PEER SERVICE MODE GRACE_MS STREAMING DONE\n"
		"       session_flap rw-server SERVICE\n"
		"       session_flap rw-client PEER SERVICE COUNT idempotent|plain\n"
		"MODE: long (a cut longer than the grace), anything else: shorter\n");
	return 2;
}
