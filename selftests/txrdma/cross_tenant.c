// SPDX-License-Identifier: GPL-2.0-only
/*
 * cross_tenant: services belong to tenants (the "cross_tenant" suite
 * of run_vm_tests.py, two guests; cross_tenant_guest.sh runs it).
 *
 *   cross_tenant server TENANT SERVICE READY DONE SECONDS EXPECT
 *   cross_tenant client TENANT PEER SERVICE COUNT SEED
 *
 * On guest 1, tenants ct-a and ct-b each run a server on the same
 * SERVICE, ct-a's first.  A server listens (and creates READY either
 * way), then accepts pairs until DONE appears (or SECONDS pass): it
 * checks each message against the pattern, and answers the first
 * message of each pair with "tenant <its name>".  EXPECT says what it
 * should get: "nothing" (ct-a) or "all" (ct-b).
 *
 * On guest 0, a client of tenant ct-b (a tenant of the same name: the
 * modules match tenants across hosts by name) connects to SERVICE,
 * sends COUNT messages (sizes from SEED) and waits for the answer.
 *
 * What the module must do (asserted): services are per tenant, so both
 * listens succeed; the ct-b client is paired with ct-b's server, never
 * with ct-a's: ct-a's server accepts nothing and reads nothing; ct-b's
 * server receives all COUNT messages byte-exact and the client hears
 * "tenant ct-b".
 *
 * On main (listeners are one global table keyed by service, and the
 * pairing request carries no tenant): ct-b's listen fails with
 * -EADDRINUSE, and ct-b's client is paired with ct-a's process, which
 * reads every one of ct-b's messages.  This test fails there, for
 * that reason.
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

#define UNITS		1024
#define KEY		0x63726f7373ULL		/* "cross" */
#define HDR		16	/* magic, seq, count; then the pattern */
#define MAGIC		0x746e616e6574ULL	/* "tenant" */
#define REPLY_OFF	AT_SLOTS_OFF
#define CQE_S		10

struct hdr {
	uint64_t magic;
	uint32_t seq;
	uint32_t count;
};

static void touch(const char *path)
{
	int fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);

	if (fd >= 0)
		close(fd);
}

static int server(const char *tenant, uint32_t service, const char *ready,
		  const char *done, double secs, const char *expect)
{
	unsigned long pairs = 0, msgs = 0, intact = 0, bad = 0, answered = 0;
	bool want_all = !strcmp(expect, "all");
	double end = at_now() + secs;
	uint32_t announced = 0;
	struct at_side s;
	int lret, ret;

	at_require_tenant(tenant);
	if (at_side_open(&s, 64, UNITS))
		tap_bail("%s: rings and region", tenant);
	lret = txrdma_ep_listen(s.ctx, service);
	touch(ready);
	tap_ok(!lret, "tenant %s listens on service %u (%s)", tenant, service,
	       lret ? strerror(-lret) : "ok");
	while (at_now() < end && access(done, F_OK)) {
		const uint8_t *p;
		uint32_t len;
		uint64_t d;

		if (lret) {		/* not listening: nothing to accept */
			at_msleep(100);
			continue;
		}
		ret = at_side_accept(&s, service, 500);
		if (ret)
			continue;
		pairs++;
		tap_diag("%s: accepted a pair from %s (endpoint %u, theirs %u)",
			 tenant, (char *)s.ep.peer, s.ep.id, s.ep.peer_ep);
		while ((ret = at_side_recv(&s, &p, &len, 30)) == 1) {
			struct hdr h;

			msgs++;
			memcpy(&h, p, sizeof(h));
			if (len >= HDR && h.magic == MAGIC &&
			    check(p + HDR, KEY, h.seq, len - HDR, &d) < 0) {
				intact++;
				announced = h.count;
			} else {
				bad++;
			}
			txrdma_rx_release(&s.rx);
			if (msgs == 1) {
				char *a = (char *)s.reg.addr + REPLY_OFF;
				struct txrdma_cqe c;

				len = snprintf(a, 64, "tenant %s", tenant) + 1;
				if (!at_side_send(&s, REPLY_OFF, len, 1) &&
				    at_side_cqe(&s, &c, CQE_S) == 1 &&
				    c.res == (int32_t)len)
					answered++;
			}
		}
		at_side_unpair(&s);
	}
	at_side_close(&s);
	tap_diag("%s: %lu pairs, %lu messages (%lu intact, %lu not), answered %lu",
		 tenant, pairs, msgs, intact, bad, answered);
	if (want_all) {
		tap_ok(pairs == 1, "tenant %s's server was paired with its client (%lu pairs)",
		       tenant, pairs);
		tap_ok(msgs && msgs == announced && intact == msgs,
		       "tenant %s's server received all %u messages byte-exact (%lu, %lu intact)",
		       tenant, announced, msgs, intact);
		tap_ok(answered == pairs && pairs,
		       "tenant %s's server answered its client", tenant);
	} else {
		tap_ok(!pairs, "tenant %s's server was paired with no other tenant's client (%lu pairs)",
		       tenant, pairs);
		tap_ok(!msgs, "tenant %s's server read no other tenant's message (%lu read, %lu of them intact)",
		       tenant, msgs, intact);
	}
	return tap_done();
}

static int client(const char *tenant, const char *peer, uint32_t service,
		  uint32_t count, uint64_t seed)
{
	struct at_rng rng = { seed };
	unsigned long ok = 0;
	char want[64], got[64] = "";
	const uint8_t *p;
	struct txrdma_cqe c;
	struct at_side s;
	uint32_t i, len;
	int ret;

	at_require_tenant(tenant);
	if (at_side_open(&s, 64, UNITS))
		tap_bail("%s: rings and region", tenant);
	ret = at_side_connect(&s, peer, service, 3000, 60);
	if (ret)
		tap_bail("tenant %s connects to service %u of %s: %s", tenant,
			 service, peer, strerror(-ret));
	tap_diag("%s: paired with endpoint %u of %s", tenant, s.ep.peer_ep,
		 peer);
	for (i = 0; i < count; i++) {
		uint8_t *buf = (uint8_t *)s.reg.addr + AT_SLOTS_OFF;
		struct hdr h = { MAGIC, i, count };

		len = HDR + at_below(&rng, 1024);
		memcpy(buf, &h, sizeof(h));
		fill(buf + HDR, KEY, i, len - HDR);
		if (at_side_send(&s, AT_SLOTS_OFF, len, i) ||
		    at_side_cqe(&s, &c, CQE_S) != 1)
			break;
		ok += c.res == (int32_t)len;
	}
	tap_ok(ok == count, "tenant %s's client sent %u messages (%lu completed)",
	       tenant, count, ok);
	ret = at_side_recv(&s, &p, &len, CQE_S);
	if (ret == 1) {
		snprintf(got, sizeof(got), "%.*s", (int)len, (const char *)p);
		txrdma_rx_release(&s.rx);
	}
	snprintf(want, sizeof(want), "tenant %s", tenant);
	tap_ok(!strcmp(got, want),
	       "the client of tenant %s was answered by its own tenant's server (answer: \"%s\"%s)",
	       tenant, got, ret == 1 ? "" : ret ? ", the ring failed" : ", none");
	at_side_close(&s);
	return tap_done();
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 8 && !strcmp(argv[1], "server"))
		return server(argv[2], strtoul(argv[3], NULL, 0), argv[4],
			      argv[5], atof(argv[6]), argv[7]);
	if (argc == 7 && !strcmp(argv[1], "client"))
		return client(argv[2], argv[3], strtoul(argv[4], NULL, 0),
			      strtoul(argv[5], NULL, 0),
			      strtoull(argv[6], NULL, 0));
	fprintf(stderr, "usage: %s server TENANT SERVICE READY DONE SECONDS nothing|all\n"
		"       %s client TENANT PEER SERVICE COUNT SEED\n",
		argv[0], argv[0]);
	return 2;
}
