// SPDX-License-Identifier: GPL-2.0-only
/*
 * pair_churn: endpoint pairs made and destroyed as fast as a client
 * can (the "pair_churn" suite of run_vm_tests.py, two guests of two
 * vCPUs; pair_churn_guest.sh runs it).
 *
 *   pair_churn server TENANT SERVICE RESULTS SECONDS
 *   pair_churn client TENANT PEER SERVICE RESULTS SECONDS SEED
 *
 * The client connects to SERVICE of PEER, sends one message (its pair
 * number in the first 8 bytes, then msg_pattern.h's pattern; length
 * drawn from SEED), waits for the SEND's CQE, and closes the pair: at
 * once, or (one time in two) after the server's close reached its
 * ring.  For the first half of SECONDS it makes about 10 pairs a
 * second, for the second half as many as it can.  Then it writes one
 * line per pair to RESULTS ("pair res"), atomically.
 *
 * The server accepts, reads one message, checks every byte and
 * destroys the pair, in a loop, until RESULTS appears and every pair
 * whose SEND succeeded there has been received (bounded).  It asserts:
 * every message byte-exact, none received twice, none that was not
 * sent; every SEND that completed with its length received; a SEND that
 * completed -ECONNRESET (the server's close overtook its ACK: outcome
 * unknown) may or may not have arrived; nothing else failed.
 *
 * Each pair takes a pooled QP and its close destroys it, so the pools
 * of both hosts build and tear down QPs as fast as pairs go.  Seen on
 * main within 5-40 s: "BUG kmalloc-512: Poison overwritten" (a CQ from
 * __ib_alloc_cq in txrdma_conn_create_qp, freed by txrdma_conn_destroy
 * from txrdma_peer_work, then written), then a general protection
 * fault in a tasklet and "Kernel panic - not syncing: Fatal exception
 * in interrupt".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attack_util.h"
#include "msg_pattern.h"

#define UNITS		256
#define KEY		0x636875726eULL		/* "churn" */
#define CONNECT_MS	2000
#define CQE_S		10
#define MSG_S		10
#define MAX_PAIRS	100000
#define SETTLE_S	60	/* server: after RESULTS, for the last pairs */
#define PROGRESS_S	10

/* what the client recorded of pair i: the SEND's res, or why no SEND */
#define R_NONE		INT32_MIN	/* no pair: connect failed */
#define R_NO_CQE	(INT32_MIN + 1)	/* no CQE within CQE_S */

static int32_t res_of[MAX_PAIRS];

static int client(const char *tenant, const char *peer, uint32_t service,
		  const char *results, double secs, uint64_t seed)
{
	unsigned long made = 0, ok = 0, reset = 0, bad = 0, nocon = 0;
	unsigned long waited = 0, slow_pairs = 0, errs[256] = { 0 };
	struct at_rng rng = { seed };
	double t0, t_half, t_end, next, progress;
	char tmp[4096];
	struct at_side s;
	uint32_t i, n = 0;
	FILE *f;
	int ret, e;

	at_require_tenant(tenant);
	if (at_side_open(&s, 64, UNITS))
		tap_bail("client: rings and region");
	t0 = at_now();
	t_half = t0 + secs / 2;
	t_end = t0 + secs;
	next = t0;
	progress = t0 + PROGRESS_S;
	for (i = 0; i < MAX_PAIRS && at_now() < t_end; i++) {
		struct txrdma_cqe c;
		uint32_t len;
		uint8_t *buf;
		bool slow = at_now() < t_half;

		if (at_now() > progress) {	/* what a crash cut short */
			tap_diag("client: %.0f s: %lu pairs, %lu SENDs ok",
				 at_now() - t0, made, ok);
			progress += PROGRESS_S;
		}

		if (slow) {		/* ~10 pairs a second */
			while (at_now() < next)
				at_msleep(5);
			next += 0.1;
		}
		n = i + 1;
		/* the first waits for the server to listen */
		ret = at_side_connect(&s, peer, service, CONNECT_MS,
				      made ? 10 : 120);
		if (ret) {
			res_of[i] = R_NONE;
			nocon++;
			errs[-ret < 256 ? -ret : 0]++;
			continue;
		}
		made++;
		slow_pairs += slow;
		len = 8 + at_below(&rng, s.ep.max_msg - 7);
		buf = (uint8_t *)s.reg.addr + AT_SLOTS_OFF;
		fill(buf, KEY, i, len);
		ret = at_side_send(&s, AT_SLOTS_OFF, len, i);
		if (ret || at_side_cqe(&s, &c, CQE_S) != 1) {
			res_of[i] = ret ? ret : R_NO_CQE;
			bad++;
		} else if (c.user_data != i || c.ep != s.ep.id) {
			res_of[i] = R_NO_CQE;
			bad++;
		} else {
			res_of[i] = c.res;
			if (c.res == (int32_t)len)
				ok++;
			else if (c.res == -ECONNRESET)
				reset++;
			else
				bad++;
		}
		if (at_below(&rng, 2)) {
			const uint8_t *p;
			uint32_t l;

			/* the server closes after reading: wait for it */
			while ((ret = at_side_recv(&s, &p, &l, MSG_S)) == 1)
				txrdma_rx_release(&s.rx);
			waited += ret == -ECONNRESET;
		}
		at_side_unpair(&s);
	}
	at_side_close(&s);

	snprintf(tmp, sizeof(tmp), "%s.tmp", results);
	f = fopen(tmp, "w");
	if (!f)
		tap_bail("client: %s: %s", tmp, strerror(errno));
	for (i = 0; i < n; i++)
		fprintf(f, "%u %d\n", i, res_of[i]);
	if (fclose(f) || rename(tmp, results))
		tap_bail("client: writing %s: %s", results, strerror(errno));

	tap_diag("client: %u attempts in %.1f s: %lu pairs (%lu paced at 10/s, %lu as fast as possible), %lu SENDs ok, %lu -ECONNRESET, %lu other, %lu connects failed; %lu closes after the server's",
		 n, at_now() - t0, made, slow_pairs, made - slow_pairs, ok,
		 reset, bad, nocon, waited);
	for (e = 0; e < 256; e++)
		if (errs[e])
			tap_diag("client: connect failed %lu times with %s",
				 errs[e], e ? strerrorname_np(e) : "?");
	tap_ok(slow_pairs >= secs / 2 * 10 / 4,
	       "paced phase: %lu pairs in %.0f s (at least a quarter of 10/s)",
	       slow_pairs, secs / 2);
	tap_ok(made - slow_pairs >= slow_pairs / 4,
	       "fast phase: %lu pairs in %.0f s", made - slow_pairs, secs / 2);
	tap_ok(!nocon, "every connect succeeded (%lu failed)", nocon);
	tap_ok(!bad, "every SEND completed with its length or -ECONNRESET (%lu did not)",
	       bad);
	return tap_done();
}

/* pair i: what the server saw */
static uint8_t seen[MAX_PAIRS];

/* Read RESULTS into res_of[]: the number of pairs, or -1 if not there. */
static int load_results(const char *results)
{
	unsigned int i;
	int32_t r;
	int n = 0;
	FILE *f = fopen(results, "r");

	if (!f)
		return -1;
	while (fscanf(f, "%u %d", &i, &r) == 2 && i < MAX_PAIRS) {
		res_of[i] = r;
		n = i + 1;
	}
	fclose(f);
	return n;
}

static int server(const char *tenant, uint32_t service, const char *results,
		  double secs)
{
	unsigned long pairs = 0, msgs = 0, bytes = 0, bad_data = 0, dup = 0;
	unsigned long unknown = 0, empty = 0, other_err = 0, missing = 0;
	unsigned long lost_reset = 0;
	double t0 = at_now(), end = t0 + secs + 600, settle = 0;
	int n = -1, ret, i;
	struct at_side s;
	char first[256] = "";

	at_require_tenant(tenant);
	if (at_side_open(&s, 64, UNITS))
		tap_bail("server: rings and region");
	ret = txrdma_ep_listen(s.ctx, service);
	if (ret)
		tap_bail("server: listen on %#x: %s", service, strerror(-ret));
	tap_diag("server: listening on %#x", service);
	while (at_now() < end) {
		const uint8_t *p;
		uint64_t seq, d;
		uint32_t len;

		if (n < 0) {
			n = load_results(results);
			if (n >= 0)
				settle = at_now() + SETTLE_S;
		}
		if (n >= 0) {
			/* done once every SEND that succeeded was received */
			missing = 0;
			for (i = 0; i < n; i++)
				missing += res_of[i] > 0 && !seen[i];
			if (!missing || at_now() > settle)
				break;
		}
		ret = at_side_accept(&s, service, 500);
		if (ret == -ETIMEDOUT)
			continue;
		if (ret) {
			other_err++;
			if (!first[0])
				snprintf(first, sizeof(first), "accept: %s",
					 strerror(-ret));
			at_msleep(10);
			continue;
		}
		pairs++;
		ret = at_side_recv(&s, &p, &len, MSG_S);
		if (ret == 1) {
			msgs++;
			bytes += len;
			memcpy(&seq, p, 8);
			seq = le64toh(seq);
			if (len < 8 || seq >= MAX_PAIRS) {
				unknown++;
			} else {
				if (seen[seq]++)
					dup++;
				if (check(p, KEY, seq, len, &d) >= 0) {
					bad_data++;
					if (!first[0])
						snprintf(first, sizeof(first),
							 "pair %llu: %u bytes differ",
							 (unsigned long long)seq,
							 len);
				}
			}
			txrdma_rx_release(&s.rx);
		} else if (ret == -ECONNRESET) {
			empty++;	/* the client failed before sending */
		} else {
			other_err++;
			if (!first[0])
				snprintf(first, sizeof(first),
					 "pair %lu: no message (%d)", pairs, ret);
		}
		at_side_unpair(&s);
	}
	at_side_close(&s);

	tap_ok(n >= 0, "the client's results (%s) appeared", results);
	for (i = 0; i < (n > 0 ? n : 0); i++) {
		if (seen[i] && res_of[i] == R_NONE)
			unknown++;	/* arrived, yet the client had no pair */
		lost_reset += res_of[i] == -ECONNRESET && !seen[i];
	}
	for (i = n > 0 ? n : 0; i < MAX_PAIRS; i++)
		unknown += seen[i] != 0;
	tap_diag("server: %lu pairs, %lu messages, %lu bytes in %.1f s; %lu pairs without a message",
		 pairs, msgs, bytes, at_now() - t0, empty);
	tap_diag("server: of the client's %d pairs, %lu SENDs that completed -ECONNRESET did not arrive",
		 n, lost_reset);
	tap_ok(msgs > 0 && !bad_data, "%lu messages received, every byte as sent (%lu differ) %s",
	       msgs, bad_data, first);
	tap_ok(!dup, "no message received twice (%lu)", dup);
	tap_ok(!unknown, "no message the client did not send (%lu)", unknown);
	tap_ok(!missing, "every SEND that completed with its length was received (%lu missing)",
	       missing);
	tap_ok(!other_err, "no accept or receive failed (%lu) %s", other_err,
	       first);
	return tap_done();
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 6 && !strcmp(argv[1], "server"))
		return server(argv[2], strtoul(argv[3], NULL, 0), argv[4],
			      atof(argv[5]));
	if (argc == 8 && !strcmp(argv[1], "client")) {
		tap_diag("pair_churn client: seed %s", argv[7]);
		return client(argv[2], argv[3], strtoul(argv[4], NULL, 0),
			      argv[5], atof(argv[6]),
			      strtoull(argv[7], NULL, 0));
	}
	fprintf(stderr, "usage: %s server TENANT SERVICE RESULTS SECONDS\n"
		"       %s client TENANT PEER SERVICE RESULTS SECONDS SEED\n",
		argv[0], argv[0]);
	return 2;
}
