// SPDX-License-Identifier: GPL-2.0-only
/*
 * Two-phase commit across three hosts over txrdma: the program each
 * guest of the "txn" suite runs (txn_guest.sh, run_vm_tests.py txn).
 *
 *   txn_guest coord COUNT SERVICE WINDOW LOG DONE_FILE [HALF_FILE]
 *   txn_guest part NODE EPOCH COUNT SERVICE SEED LOG DONE_FILE
 *
 * The coordinator is node 1 (peer "g0"), its participants nodes 2 and
 * 3 (peers "g1" and "g2"); node n listens on SERVICE + n.  The
 * coordinator runs COUNT transactions, each on both participants, with
 * WINDOW in flight, and creates HALF_FILE when half are done (the
 * suite cuts a link or kills a participant then).  Once all are done
 * and every COMMIT is acknowledged it creates DONE_FILE.
 *
 * Each participant votes no on about 5 % of the transactions (so about
 * 10 % of them abort), chosen by a hash of SEED, the node and the
 * transaction: a participant restarted with a higher EPOCH votes on a
 * resent PREPARE as it did before.  It exits once DONE_FILE exists and
 * it holds no transaction it prepared without a decision.  With
 * TXN_GUEST_CRASH_AT=N in its environment it kills itself (SIGKILL)
 * at the first poll after its Nth PREPARE where it holds prepared
 * transactions without a decision, so that its restart has some to
 * restore.
 *
 * Both keep the log the protocol relies on, one line per step, and the
 * suite's checker (txn_check.py) reads them afterwards:
 *   coordinator: "L epoch seq"            COMMIT made durable (the log
 *                                          hook, before COMMIT leaves)
 *                "D epoch seq C|A why us" the outcome, with its latency
 *   participant: "P epoch seq"            prepared, before voting yes
 *                "N epoch seq"            voted no
 *                "C|A epoch seq"          decision applied
 * A participant writes each line with write(2) before it answers, so a
 * line survives the process being killed (the page cache keeps it),
 * and a restarted participant restores from its log every transaction
 * it prepared and has no decision for: the durability a database owes
 * the protocol, in miniature.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <txn_node.h>
#include <txn_txrdma.h>

#include "msg_pattern.h"

#define COORD		1
#define VOTE_NO_PCT	5
#define VOTE_TIMEOUT_NS	1000000000ull
#define VOTE_RETRIES	2
#define UP_WAIT_S	120
#define DRAIN_WAIT_S	60

static const char *prog = "txn_guest";

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "%s: ", prog);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t num(const char *s, const char *what)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || end == s)
		die("bad %s '%s'", what, s);
	return v;
}

static bool exists(const char *path)
{
	return access(path, F_OK) == 0;
}

static void touch(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0)
		die("create %s: %s", path, strerror(errno));
	close(fd);
}

/* a line of the log, written before the step it records is answered */
static void log_line(int fd, const char *fmt, ...)
{
	char buf[96];
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (write(fd, buf, (size_t)len) != len)
		die("log write: %s", strerror(errno));
}

static struct txn_transport *open_transport(uint32_t self, uint32_t service)
{
	struct txn_txrdma_cfg xc = { .self = self, .service_base = service };
	struct txn_transport *t;
	int ret;

	ret = txn_txrdma_open(&t, &xc, &txn_node_transport_cb, NULL);
	if (ret)
		die("txn_txrdma_open: %s", strerror(-ret));
	return t;
}

static struct txn_node *open_node(struct txn_transport *t, uint32_t self,
				  uint32_t epoch, uint32_t window,
				  const struct txn_node_hooks *h, void *ctx)
{
	struct txn_node_cfg nc = {
		.self = self, .epoch = epoch, .window = window,
		.max_parts = 2, .vote_retries = VOTE_RETRIES,
		.max_txns = 4096, .max_batch = 16384,
		.vote_timeout_ns = VOTE_TIMEOUT_NS,
		.ack_timeout_ns = VOTE_TIMEOUT_NS,
		.inquire_timeout_ns = VOTE_TIMEOUT_NS,
	};
	struct txn_node *n;
	int ret;

	ret = txn_node_open(&n, &nc, t, h, ctx);
	if (ret)
		die("txn_node_open: %s", strerror(-ret));
	return n;
}

static void wait_up(struct txn_node *n, struct txn_transport *t,
		    const uint32_t *nodes, int nn)
{
	uint64_t end = now_ns() + UP_WAIT_S * 1000000000ull;
	int i;

	for (;;) {
		for (i = 0; i < nn; i++)
			if (!txn_transport_peer_up(t, nodes[i]))
				break;
		if (i == nn)
			return;
		if (now_ns() > end) {
			struct txn_txrdma_stats s;

			txn_txrdma_stats(t, &s);
			die("node %u not up within %d s (dials %" PRIu64
			    ", failed %" PRIu64 ", the last with %s; accepts %"
			    PRIu64 ", refused %" PRIu64 ")", nodes[i], UP_WAIT_S,
			    s.dials, s.dial_errors,
			    strerror((int)-s.last_dial_error), s.accepts,
			    s.refused);
		}
		if (txn_node_poll(n, 10) < 0)
			die("poll failed while pairing");
	}
}

/* ---- the coordinator ------------------------------------------------ */

struct coord {
	struct txn_node *n;
	int log;
	uint64_t *start;	/* by transaction index */
	uint64_t done, commits, aborts[TXN_WHY_MAX];
	uint64_t max_us;
};

static void coord_log(void *ctx, const struct txn_id *id,
		      const uint32_t *nodes, uint16_t n)
{
	struct coord *c = ctx;
	int ret;

	(void)nodes;
	(void)n;
	log_line(c->log, "L %" PRIu32 " %" PRIu64 "\n", id->epoch, id->seq);
	ret = txn_node_logged(c->n, id);
	if (ret)
		die("txn_node_logged: %s", strerror(-ret));
}

static void coord_event(void *ctx, const struct txn_event *ev, void *user)
{
	struct coord *c = ctx;
	uint64_t us;

	if (ev->type != TXN_EV_DONE)
		return;
	us = (now_ns() - c->start[(uintptr_t)user]) / 1000;
	if (us > c->max_us)
		c->max_us = us;
	log_line(c->log, "D %" PRIu32 " %" PRIu64 " %c %u %" PRIu64 "\n",
		 ev->id.epoch, ev->id.seq,
		 ev->decision == TXRDMA_TXN_COMMIT ? 'C' : 'A', ev->why, us);
	if (ev->decision == TXRDMA_TXN_COMMIT)
		c->commits++;
	else if (ev->why < TXN_WHY_MAX)
		c->aborts[ev->why]++;
	c->done++;
}

static int coordinator(int argc, char **argv)
{
	static const struct txn_node_hooks hooks = {
		.log = coord_log, .event = coord_event,
	};
	static const uint32_t parts[] = { 2, 3 };
	static const char data[] = "move 10 from 2 to 3";
	struct txn_branch br[2] = {
		{ .node = 2, .len = sizeof(data), .data = data },
		{ .node = 3, .len = sizeof(data), .data = data },
	};
	uint64_t count, begun = 0, t0, drain_end, next_report;
	const char *half_file, *done_file;
	const struct txn_coord *cs;
	struct txn_transport *t;
	struct coord c = { 0 };
	uint32_t service, window;
	bool half = false;
	int ret;

	if (argc < 6 || argc > 7)
		die("usage: coord COUNT SERVICE WINDOW LOG DONE_FILE [HALF_FILE]");
	count = num(argv[1], "COUNT");
	service = (uint32_t)num(argv[2], "SERVICE");
	window = (uint32_t)num(argv[3], "WINDOW");
	done_file = argv[5];
	half_file = argc > 6 ? argv[6] : NULL;
	if (!count || !window)
		die("COUNT and WINDOW must not be 0");
	c.start = calloc(count, sizeof(*c.start));
	if (!c.start)
		die("out of memory");
	c.log = open(argv[4], O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
	if (c.log < 0)
		die("%s: %s", argv[4], strerror(errno));

	t = open_transport(COORD, service);
	if ((ret = txn_txrdma_add_peer(t, 2, "g1")) ||
	    (ret = txn_txrdma_add_peer(t, 3, "g2")))
		die("txn_txrdma_add_peer: %s", strerror(-ret));
	c.n = open_node(t, COORD, 1, window, &hooks, &c);
	wait_up(c.n, t, parts, 2);
	printf("# coordinator: both participants up; %" PRIu64
	       " transactions, window %u\n", count, window);
	fflush(stdout);

	t0 = now_ns();
	next_report = count / 10;
	while (c.done < count) {
		/* what the window allows, one batch per participant */
		txn_node_cork(c.n);
		while (begun < count) {
			c.start[begun] = now_ns();
			ret = txn_node_begin(c.n, br, 2, (void *)(uintptr_t)begun,
					     NULL);
			if (ret == -EBUSY)
				break;
			if (ret)
				die("txn_node_begin: %s", strerror(-ret));
			begun++;
		}
		txn_node_uncork(c.n);
		if (txn_node_poll(c.n, 1) < 0)
			die("txn_node_poll failed");
		if (half_file && !half && c.done >= count / 2) {
			touch(half_file);
			half = true;
		}
		if (c.done >= next_report) {
			printf("# coordinator: %" PRIu64 " done after %.1f s\n",
			       c.done, (now_ns() - t0) / 1e9);
			fflush(stdout);
			next_report += count / 10;
		}
	}
	printf("# coordinator: %" PRIu64 " transactions in %.1f s: %" PRIu64
	       " committed, aborted by vote %" PRIu64 ", timeout %" PRIu64
	       ", down %" PRIu64 "; slowest %" PRIu64 " us\n", count,
	       (now_ns() - t0) / 1e9, c.commits, c.aborts[TXN_WHY_VOTE],
	       c.aborts[TXN_WHY_TIMEOUT], c.aborts[TXN_WHY_DOWN], c.max_us);

	/* every COMMIT acknowledged: the participants applied them all */
	cs = txn_node_coord(c.n);
	drain_end = now_ns() + DRAIN_WAIT_S * 1000000000ull;
	while (cs->stats.forgotten < c.commits) {
		if (now_ns() > drain_end)
			die("%" PRIu64 " COMMITs not acknowledged within %d s",
			    c.commits - cs->stats.forgotten, DRAIN_WAIT_S);
		if (txn_node_poll(c.n, 10) < 0)
			die("txn_node_poll failed while draining");
	}
	printf("# coordinator: every COMMIT acknowledged; resent %" PRIu64
	       " PREPAREs and %" PRIu64 " COMMITs, answered %" PRIu64
	       " inquiries\n", cs->stats.prepare_resends,
	       cs->stats.commit_resends, cs->stats.inquiries);
	fflush(stdout);
	touch(done_file);
	/* the participants may still INQUIRE about aborted ones */
	drain_end = now_ns() + 2 * VOTE_TIMEOUT_NS;
	while (now_ns() < drain_end)
		txn_node_poll(c.n, 10);
	txn_node_close(c.n);
	txn_transport_close(t);
	close(c.log);
	free(c.start);
	return 0;
}

/* ---- a participant --------------------------------------------------- */

enum { S_NONE, S_PREPARED, S_NO, S_COMMIT, S_ABORT };

struct part {
	struct txn_node *n;
	uint32_t node;
	uint64_t seed, count;
	int log;
	uint8_t *state;		/* by seq, coordinator epoch 1 */
	uint64_t pending;	/* prepared, no decision */
	uint64_t prepares, no, commits, aborts, restored;
};

static bool votes_no(const struct part *p, const struct txn_id *id)
{
	return mix64(p->seed ^ ((uint64_t)p->node << 48) ^ id->seq) % 100 <
	       VOTE_NO_PCT;
}

/* our record of @id, NULL for a transaction this test never runs */
static uint8_t *state_of(struct part *p, const struct txn_id *id)
{
	if (id->coord != COORD || id->epoch != 1 || !id->seq ||
	    id->seq > p->count)
		return NULL;
	return &p->state[id->seq];
}

static void part_event(void *ctx, const struct txn_event *ev, void *user)
{
	struct part *p = ctx;
	uint8_t *st = state_of(p, &ev->id);
	bool commit;
	int ret;

	(void)user;
	if (!st)
		die("event %u for unexpected transaction %u/%u/%" PRIu64,
		    ev->type, ev->id.coord, ev->id.epoch, ev->id.seq);
	switch (ev->type) {
	case TXN_EV_PREPARE:
		p->prepares++;
		if (votes_no(p, &ev->id)) {
			log_line(p->log, "N %u %" PRIu64 "\n", ev->id.epoch,
				 ev->id.seq);
			*st = S_NO;
			p->no++;
			ret = txn_node_vote(p->n, &ev->id, false, EDEADLK);
		} else {
			log_line(p->log, "P %u %" PRIu64 "\n", ev->id.epoch,
				 ev->id.seq);
			if (*st != S_PREPARED)
				p->pending++;
			*st = S_PREPARED;
			ret = txn_node_vote(p->n, &ev->id, true, 0);
		}
		if (ret)
			die("txn_node_vote: %s", strerror(-ret));
		break;
	case TXN_EV_DECIDE:
		commit = ev->decision == TXRDMA_TXN_COMMIT;
		log_line(p->log, "%c %u %" PRIu64 "\n", commit ? 'C' : 'A',
			 ev->id.epoch, ev->id.seq);
		if (*st == S_PREPARED)
			p->pending--;
		*st = commit ? S_COMMIT : S_ABORT;
		if (commit)
			p->commits++;
		else
			p->aborts++;
		ret = txn_node_applied(p->n, &ev->id);
		if (ret)
			die("txn_node_applied: %s", strerror(-ret));
		break;
	default:
		break;
	}
}

/* what an earlier incarnation logged: its prepared ones come back */
static void part_restore(struct part *p, const char *path)
{
	FILE *f = fopen(path, "r");
	struct txn_id id = { .coord = COORD };
	char kind;
	uint64_t i;
	int ret;

	if (!f) {
		if (errno == ENOENT)
			return;
		die("%s: %s", path, strerror(errno));
	}
	while (fscanf(f, " %c %" SCNu32 " %" SCNu64, &kind, &id.epoch,
		      &id.seq) == 3) {
		uint8_t *st = state_of(p, &id);

		if (!st)
			die("%s: unexpected transaction %" PRIu64, path, id.seq);
		switch (kind) {
		case 'P':
			*st = S_PREPARED;
			break;
		case 'N':
			*st = S_NO;
			break;
		case 'C':
			*st = S_COMMIT;
			break;
		case 'A':
			*st = S_ABORT;
			break;
		default:
			die("%s: bad line kind '%c'", path, kind);
		}
	}
	fclose(f);
	id.epoch = 1;
	for (i = 1; i <= p->count; i++) {
		if (p->state[i] != S_PREPARED)
			continue;
		id.seq = i;
		ret = txn_node_restore_prepared(p->n, &id);
		if (ret)
			die("txn_node_restore_prepared: %s", strerror(-ret));
		p->pending++;
		p->restored++;
	}
}

static int participant(int argc, char **argv)
{
	static const struct txn_node_hooks hooks = { .event = part_event };
	static const uint32_t coord = COORD;
	const char *done_file, *log_path, *crash = getenv("TXN_GUEST_CRASH_AT");
	uint64_t done_at = 0, t0, crash_at = crash ? num(crash, "crash point") : 0;
	struct txn_transport *t;
	struct part p = { 0 };
	uint32_t epoch, service;
	int ret;

	if (argc != 8)
		die("usage: part NODE EPOCH COUNT SERVICE SEED LOG DONE_FILE");
	p.node = (uint32_t)num(argv[1], "NODE");
	epoch = (uint32_t)num(argv[2], "EPOCH");
	p.count = num(argv[3], "COUNT");
	service = (uint32_t)num(argv[4], "SERVICE");
	p.seed = num(argv[5], "SEED");
	log_path = argv[6];
	done_file = argv[7];
	if (p.node != 2 && p.node != 3)
		die("NODE must be 2 or 3");
	p.state = calloc(p.count + 1, 1);
	if (!p.state)
		die("out of memory");

	t = open_transport(p.node, service);
	ret = txn_txrdma_add_peer(t, COORD, "g0");
	if (ret)
		die("txn_txrdma_add_peer: %s", strerror(-ret));
	p.n = open_node(t, p.node, epoch, 1, &hooks, &p);
	part_restore(&p, log_path);
	p.log = open(log_path, O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (p.log < 0)
		die("%s: %s", log_path, strerror(errno));
	printf("# participant %u epoch %u: %" PRIu64
	       " prepared transactions restored from its log\n", p.node,
	       epoch, p.restored);
	fflush(stdout);
	wait_up(p.n, t, &coord, 1);

	t0 = now_ns();
	for (;;) {
		if (txn_node_poll(p.n, 10) < 0)
			die("txn_node_poll failed");
		if (crash_at && p.prepares >= crash_at && p.pending) {
			printf("# participant %u epoch %u: SIGKILL with %" PRIu64
			       " prepared transactions without a decision\n",
			       p.node, epoch, p.pending);
			fflush(stdout);
			raise(SIGKILL);
		}
		if (!done_at && exists(done_file))
			done_at = now_ns();
		if (done_at && !p.pending)
			break;
		if (done_at && now_ns() - done_at > DRAIN_WAIT_S * 1000000000ull)
			die("%" PRIu64 " prepared transactions still without a "
			    "decision %d s after the coordinator finished",
			    p.pending, DRAIN_WAIT_S);
	}
	printf("# participant %u epoch %u: %.1f s, %" PRIu64 " PREPAREs, %"
	       PRIu64 " no votes, %" PRIu64 " commits, %" PRIu64
	       " aborts applied; inquiries %" PRIu64 "\n", p.node, epoch,
	       (now_ns() - t0) / 1e9, p.prepares, p.no, p.commits, p.aborts,
	       txn_node_part(p.n)->stats.inquiries);
	txn_node_close(p.n);
	txn_transport_close(t);
	close(p.log);
	free(p.state);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && !strcmp(argv[1], "coord"))
		return coordinator(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "part"))
		return participant(argc - 1, argv + 1);
	fprintf(stderr, "usage: %s coord ...|part ... (see the source)\n",
		argv[0]);
	return 2;
}
