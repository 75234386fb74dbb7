// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Two-phase commit end to end on the host: three nodes (txn_node.c)
 * over the TCP transport on 127.0.0.1, in one thread, under ASan and
 * UBSan.  Node 1 and node 2 coordinate transactions over the other two
 * nodes, each with a payload per participant; participants vote no on
 * about one in ten (chosen from the id).  The applications keep what
 * must be durable (a participant's prepared transactions, a
 * coordinator's COMMIT log, applied decisions) in memory that survives
 * the restarts the test makes, and check:
 *  - atomicity: no transaction applied COMMIT at one participant and
 *    ABORT at another, and every COMMIT the coordinator reported was
 *    applied by every participant, every ABORT by none as a COMMIT;
 *  - every transaction decided: each begun one got its DONE, nothing is
 *    held anywhere at the end (all ACKed, nobody in doubt);
 *  - the same with a participant closed and reopened in the middle
 *    (its in-doubt transactions restored), and with a coordinator
 *    closed and reopened under a new epoch (its logged COMMITs
 *    restored, the rest presumed aborted).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../txn_node.h"
#include "../txn_tcp.h"
#include "tap.h"
#include "txn_test.h"

#define NODES		3
#define EPOCHS		4
#define MAXSEQ		40000
#define MS		1000000ull

/* what survives a restart of a node: its "disk" */
struct durable {
	uint8_t done[EPOCHS][MAXSEQ];	/* coordinator: DONE decision */
	/* participant: decision applied, per coordinator, epoch, seq */
	uint8_t applied[NODES + 1][EPOCHS][MAXSEQ];
	struct txn_id prepared[4096];	/* voted yes, not applied */
	unsigned int nprepared;
	struct { struct txn_id id; uint32_t nodes[2]; } log[4096];
	unsigned int nlog;		/* COMMITs logged, not forgotten */
	uint32_t epoch;
};

struct app {
	uint32_t id;
	int port;
	struct txn_transport *t;
	struct txn_node *n;
	struct durable *d;
	unsigned long begun, inflight, violations, events;
	unsigned long commits, aborts, votes_no;
	unsigned long restored;	/* COMMITs and prepared ones taken back */
};

static struct app apps[NODES + 1];
static const char payload[] = "the branch's payload";

static bool votes_no(const struct txn_id *id)
{
	return mix((uint32_t)id->seq * 31 + id->coord * 7 + id->epoch) % 10 == 0;
}

static void violation(struct app *a, const char *what, const struct txn_id *id)
{
	if (a->violations++ < 10)
		tap_diag("node %u: %s: txn %u/%u/%llu", a->id, what, id->coord,
			 id->epoch, (unsigned long long)id->seq);
}

static bool id_ok(const struct txn_id *id)
{
	return id->coord >= 1 && id->coord <= NODES && id->epoch < EPOCHS &&
	       id->seq < MAXSEQ;
}

static void prepared_del(struct durable *d, const struct txn_id *id)
{
	unsigned int i;

	for (i = 0; i < d->nprepared; i++)
		if (!memcmp(&d->prepared[i], id, sizeof(*id))) {
			d->prepared[i] = d->prepared[--d->nprepared];
			return;
		}
}

static void log_del(struct durable *d, const struct txn_id *id)
{
	unsigned int i;

	for (i = 0; i < d->nlog; i++)
		if (!memcmp(&d->log[i].id, id, sizeof(*id))) {
			d->log[i] = d->log[--d->nlog];
			return;
		}
}

static void hook_log(void *ctx, const struct txn_id *id, const uint32_t *nodes,
		     uint16_t n)
{
	struct app *a = ctx;
	struct durable *d = a->d;

	if (n != 2 || d->nlog == 4096) {
		violation(a, "log", id);
		return;
	}
	d->log[d->nlog].id = *id;
	memcpy(d->log[d->nlog].nodes, nodes, sizeof(d->log[0].nodes));
	d->nlog++;
	txn_node_logged(a->n, id);	/* durable on return */
}

static void hook_event(void *ctx, const struct txn_event *ev, void *user)
{
	struct app *a = ctx;
	struct durable *d = a->d;
	uint8_t *slot;

	a->events++;
	if (!id_ok(&ev->id)) {
		violation(a, "id out of range", &ev->id);
		return;
	}
	switch (ev->type) {
	case TXN_EV_DONE:
		if (ev->id.coord != a->id || user != a ||
		    d->done[ev->id.epoch][ev->id.seq]) {
			violation(a, "DONE", &ev->id);
			break;
		}
		d->done[ev->id.epoch][ev->id.seq] = ev->decision;
		a->inflight--;
		if (ev->decision == TXRDMA_TXN_COMMIT)
			a->commits++;
		else
			a->aborts++;
		break;
	case TXN_EV_FORGET:
		log_del(d, &ev->id);
		break;
	case TXN_EV_PREPARE:
		if (ev->rec->data_len != sizeof(payload) ||
		    memcmp(ev->rec->data, payload, sizeof(payload)))
			violation(a, "payload", &ev->id);
		if (votes_no(&ev->id)) {
			a->votes_no++;
			txn_node_vote(a->n, &ev->id, false, 22);
			break;
		}
		if (d->nprepared == 4096) {
			txn_node_vote(a->n, &ev->id, false, 28);
			break;
		}
		d->prepared[d->nprepared++] = ev->id;	/* durable first */
		txn_node_vote(a->n, &ev->id, true, 0);
		break;
	case TXN_EV_DECIDE:
		slot = &d->applied[ev->id.coord][ev->id.epoch][ev->id.seq];
		if (*slot && *slot != ev->decision)
			violation(a, "decided twice, differently", &ev->id);
		*slot = ev->decision;
		prepared_del(d, &ev->id);
		txn_node_applied(a->n, &ev->id);
		break;
	default:
		violation(a, "event type", &ev->id);
	}
}

static const struct txn_node_hooks hooks = {
	.log = hook_log,
	.event = hook_event,
};

/* open node @id (on its old port after a restart) and restore it */
static int app_open(uint32_t id, uint32_t epoch)
{
	struct app *a = &apps[id];
	struct sockaddr_in la = addr_of(a->port);
	struct txn_tcp_cfg tc = {
		.self = id, .listen = (struct sockaddr *)&la,
		.listen_len = sizeof(la), .reconnect_ms = 10,
	};
	struct txn_node_cfg nc = {
		.self = id, .epoch = epoch, .window = 64, .max_parts = 4,
		.vote_retries = 3, .max_txns = 1024, .max_batch = 65536,
		.vote_timeout_ns = 100 * MS, .ack_timeout_ns = 50 * MS,
		.inquire_timeout_ns = 50 * MS,
	};
	unsigned int i;
	int ret;

	ret = txn_tcp_open(&a->t, &tc, &txn_node_transport_cb, NULL);
	if (ret)
		return ret;
	a->port = txn_tcp_port(a->t);
	a->d->epoch = epoch;
	a->inflight = 0;
	ret = txn_node_open(&a->n, &nc, a->t, &hooks, a);
	if (ret)
		return ret;
	for (i = 0; i < a->d->nlog; i++)
		if (txn_node_restore_commit(a->n, &a->d->log[i].id,
					    a->d->log[i].nodes, 2))
			violation(a, "restore commit", &a->d->log[i].id);
	for (i = 0; i < a->d->nprepared; i++)
		if (txn_node_restore_prepared(a->n, &a->d->prepared[i]))
			violation(a, "restore prepared", &a->d->prepared[i]);
	a->restored += a->d->nlog + a->d->nprepared;
	return 0;
}

static void app_peers(uint32_t id)
{
	uint32_t j;

	for (j = 1; j <= NODES; j++) {
		struct sockaddr_in sa;

		if (j == id)
			continue;
		sa = addr_of(apps[j].port);
		TAP_CHECK_INT(txn_tcp_add_peer(apps[id].t, j,
					       (struct sockaddr *)&sa,
					       sizeof(sa)), 0);
	}
}

static void app_close(uint32_t id)
{
	txn_node_close(apps[id].n);
	txn_transport_close(apps[id].t);
	apps[id].n = NULL;
	apps[id].t = NULL;
}

static void app_restart(uint32_t id)
{
	int i;

	app_close(id);
	for (i = 0; i < 100; i++) {	/* the port may linger: retry */
		if (!app_open(id, apps[id].d->epoch + 1))
			break;
		app_close(id);
		usleep(10000);
	}
	if (TAP_CHECK(apps[id].n != NULL))
		app_peers(id);
}

static void start(void)
{
	uint32_t i;

	memset(apps, 0, sizeof(apps));
	for (i = 1; i <= NODES; i++) {
		apps[i].id = i;
		apps[i].d = calloc(1, sizeof(struct durable));
		if (!apps[i].d || app_open(i, 1)) {
			printf("Bail out! node %u\n", i);
			exit(1);
		}
	}
	for (i = 1; i <= NODES; i++)
		app_peers(i);
}

static void stop(void)
{
	uint32_t i;

	for (i = 1; i <= NODES; i++) {
		app_close(i);
		free(apps[i].d);
		apps[i].d = NULL;
	}
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void count_c(void *arg, const struct txn_coord_info *info)
{
	(void)arg;
	(void)info;
}

static void count_p(void *arg, const struct txn_part_info *info)
{
	(void)arg;
	(void)info;
}

/* transactions a node holds, as coordinator and as participant */
static unsigned int held(uint32_t id)
{
	return txn_coord_walk(txn_node_coord(apps[id].n), count_c, NULL) +
	       txn_part_walk(txn_node_part(apps[id].n), count_p, NULL);
}

/* branches of a coordinator's transactions: two others, or one and itself */
static bool self_branch;

static void branches(uint32_t coord, uint32_t *o1, uint32_t *o2)
{
	*o1 = coord % NODES + 1;
	*o2 = self_branch ? coord : *o1 % NODES + 1;
}

/* begin what the window allows on the coordinators */
static void feed(unsigned long per_coord, const uint32_t *coords,
		 unsigned int ncoords)
{
	unsigned int k;

	for (k = 0; k < ncoords; k++) {
		/* the branches live until DONE: one static set per node */
		static struct txn_branch brs[NODES + 1][2];
		struct app *a = &apps[coords[k]];
		struct txn_branch *br = brs[coords[k]];
		uint32_t o1, o2;

		branches(coords[k], &o1, &o2);
		br[0] = (struct txn_branch){ o1, sizeof(payload), payload };
		br[1] = (struct txn_branch){ o2, sizeof(payload), payload };
		while (a->begun < per_coord) {
			int ret = txn_node_begin(a->n, br, 2, a, NULL);

			if (ret == -EBUSY)
				break;
			if (!TAP_CHECK_INT(ret, 0))
				return;
			a->begun++;
			a->inflight++;
		}
	}
}

static bool quiet(const uint32_t *coords, unsigned int ncoords,
		  unsigned long per_coord)
{
	unsigned int k;
	uint32_t i;

	for (k = 0; k < ncoords; k++)
		if (apps[coords[k]].begun < per_coord ||
		    apps[coords[k]].inflight)
			return false;
	for (i = 1; i <= NODES; i++)
		if (held(i))
			return false;
	return true;
}

/*
 * Run @per_coord transactions on each of @coords; @fault() is called
 * once, when half are begun and @ready() says the fault will hit
 * something (a transaction in doubt, a COMMIT not ACKed).  Then check
 * what every node did.
 */
static void run(unsigned long per_coord, const uint32_t *coords,
		unsigned int ncoords, void (*fault)(void), bool (*ready)(void),
		const char *what)
{
	double t0 = now_s(), end = t0 + 60;
	unsigned long commits = 0, aborts = 0, checked = 0, viol = 0;
	bool faulted = !fault;
	unsigned int k;
	uint32_t i, e;
	uint64_t s;

	while (now_s() < end) {
		feed(per_coord, coords, ncoords);
		for (i = 1; i <= NODES; i++)
			TAP_CHECK(txn_node_poll(apps[i].n, 0) >= 0);
		if (!faulted && apps[coords[0]].begun >= per_coord / 2 &&
		    ready()) {
			faulted = true;
			fault();
		}
		if (faulted && quiet(coords, ncoords, per_coord))
			break;
	}
	TAP_CHECK(quiet(coords, ncoords, per_coord));
	/* atomicity and completeness, over every transaction begun */
	for (k = 0; k < ncoords; k++) {
		struct app *a = &apps[coords[k]];
		uint32_t o1, o2;

		branches(coords[k], &o1, &o2);
		commits += a->commits;
		aborts += a->aborts;
		for (e = 1; e < EPOCHS; e++)
			for (s = 1; s < MAXSEQ; s++) {
				uint8_t dd = a->d->done[e][s];
				uint8_t p1 = apps[o1].d->applied[a->id][e][s];
				uint8_t p2 = apps[o2].d->applied[a->id][e][s];

				if (!dd && !p1 && !p2)
					continue;
				checked++;
				if (p1 && p2 && p1 != p2)
					viol++;	/* split decision */
				if (dd == TXRDMA_TXN_COMMIT &&
				    (p1 != TXRDMA_TXN_COMMIT ||
				     p2 != TXRDMA_TXN_COMMIT))
					viol++;	/* a commit not applied */
				if (dd != TXRDMA_TXN_COMMIT &&
				    (p1 == TXRDMA_TXN_COMMIT ||
				     p2 == TXRDMA_TXN_COMMIT) &&
				    dd)
					viol++;	/* applied against DONE */
				if (!dd && e == a->d->epoch)
					viol++;	/* never decided */
			}
	}
	for (i = 1; i <= NODES; i++) {
		viol += apps[i].violations;
		TAP_CHECK_INT(apps[i].d->nprepared, 0);	/* nobody in doubt */
		TAP_CHECK_INT(apps[i].d->nlog, 0);	/* every COMMIT ACKed */
	}
	TAP_CHECK_INT(viol, 0);
	TAP_CHECK(commits > 0 && aborts > 0);
	tap_diag("%s: %lu transactions checked, %lu committed, %lu aborted, %.2f s",
		 what, checked, commits, aborts, now_s() - t0);
}

static void test_plain(void)
{
	static const uint32_t coords[] = { 1, 2 };
	struct txn_node_stats st;

	start();
	run(10000, coords, 2, NULL, NULL, "2 coordinators x 10,000");
	txn_node_stats(apps[1].n, &st);
	/* batching: many records share a message */
	TAP_CHECK(st.records_out > st.batches_out);
	tap_diag("node 1: %llu records in %llu batches out, %llu lost",
		 (unsigned long long)st.records_out,
		 (unsigned long long)st.batches_out,
		 (unsigned long long)st.lost);
	stop();
}

/*
 * Each coordinator a participant of its own transactions: its records
 * to itself never touch the transport and everything else holds
 */
static void test_self(void)
{
	static const uint32_t coords[] = { 1, 2 };

	start();
	self_branch = true;
	run(5000, coords, 2, NULL, NULL, "2 coordinators x 5,000, each its own participant");
	self_branch = false;
	stop();
}

/* poll every node until @cond holds (at most 5 s) */
static bool poll_until(bool (*cond)(void))
{
	double end = now_s() + 5;
	uint32_t i;

	while (!cond() && now_s() < end)
		for (i = 1; i <= NODES; i++)
			txn_node_poll(apps[i].n, 0);
	return cond();
}

static bool mesh_up(void)
{
	return txn_transport_peer_up(apps[1].t, 2) &&
	       txn_transport_peer_up(apps[1].t, 3) &&
	       txn_transport_peer_up(apps[2].t, 1) &&
	       txn_transport_peer_up(apps[3].t, 1);
}

static bool both_voted(void)
{
	struct txn_node_stats s2, s3;

	txn_node_stats(apps[2].n, &s2);
	txn_node_stats(apps[3].n, &s3);
	return s2.records_out >= 40 && s3.records_out >= 40;
}

/*
 * A corked window of 40 begins leaves as one batch per participant,
 * and each participant, voting inside its PREPARE hook, answers the 40
 * in one batch when its poll ends (not one message per vote).
 */
static void test_batching(void)
{
	static const uint32_t coords[] = { 1 };
	struct txn_node_stats st;
	uint32_t i;

	start();
	TAP_CHECK(poll_until(mesh_up));
	txn_node_cork(apps[1].n);
	feed(40, coords, 1);
	txn_node_stats(apps[1].n, &st);
	TAP_CHECK_INT(st.batches_out, 0);	/* corked: all held */
	txn_node_uncork(apps[1].n);
	txn_node_stats(apps[1].n, &st);
	TAP_CHECK_INT(st.batches_out, 2);
	TAP_CHECK_INT(st.records_out, 80);
	TAP_CHECK(poll_until(both_voted));
	for (i = 2; i <= 3; i++) {
		txn_node_stats(apps[i].n, &st);
		TAP_CHECK_INT(st.records_out, 40);
		TAP_CHECK_INT(st.batches_out, 1);
	}
	run(400, coords, 1, NULL, NULL, "1 coordinator x 400, batched");
	stop();
}

static void restart_3(void)
{
	app_restart(3);
}

static bool in_doubt_3(void)
{
	return apps[3].d->nprepared > 0;
}

static void test_participant_restart(void)
{
	static const uint32_t coords[] = { 1 };

	start();
	run(10000, coords, 1, restart_3, in_doubt_3,
	    "participant 3 restarted");
	TAP_CHECK(apps[3].restored > 0);
	tap_diag("participant 3 took back %lu transactions in doubt",
		 apps[3].restored);
	stop();
}

static void restart_1(void)
{
	app_restart(1);
}

static bool logged_1(void)
{
	return apps[1].d->nlog > 0;
}

static void test_coordinator_restart(void)
{
	static const uint32_t coords[] = { 1 };

	start();
	run(10000, coords, 1, restart_1, logged_1,
	    "coordinator 1 restarted");
	TAP_CHECK(apps[1].restored > 0);
	tap_diag("coordinator 1 took back %lu logged COMMITs", apps[1].restored);
	stop();
}

static const struct tap_test tests[] = {
	TAP_TEST(test_plain, "2PC over TCP, 3 nodes, 2 coordinators: atomic, every transaction decided, batched"),
	TAP_TEST(test_self, "a coordinator that takes part in its own transactions: atomic, all decided"),
	TAP_TEST(test_batching, "a corked window: one batch per participant; votes made in hooks: one batch per poll"),
	TAP_TEST(test_participant_restart, "a participant closed and reopened midway: atomic, all decided, nobody in doubt"),
	TAP_TEST(test_coordinator_restart, "a coordinator reopened under a new epoch: logged COMMITs restored, the rest presumed aborted"),
};

int main(void)
{
	return TAP_MAIN(tests);
}
