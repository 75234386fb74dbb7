// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The txrdma transport (lib/txn/txn_txrdma.c) where the host has no
 * module, as this test host has not (the module runs in guests, where
 * tools/bench/txn_bench.sh drives the transport over real endpoint
 * pairs): a bad configuration is refused before anything is opened;
 * without /dev/txrdma, open fails with libtxrdma's error (the caller
 * can then fall back to TCP and say why) and leaves nothing behind
 * (ASan: no leak; every descriptor closed); the one-sided calls
 * (rings, pair, export, hook) refuse a transport that is not txrdma.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <unistd.h>

#include "../txn_tcp.h"
#include "../txn_txrdma.h"
#include "tap.h"

static void on_msg(void *ctx, uint32_t node, const void *m, size_t len)
{
	(void)ctx;
	(void)node;
	(void)m;
	(void)len;
}

static void on_peer(void *ctx, uint32_t node, bool up)
{
	(void)ctx;
	(void)node;
	(void)up;
}

static const struct txn_transport_cb cb = { .msg = on_msg, .peer = on_peer };

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static void test_bad_cfg(void)
{
	struct txn_txrdma_cfg c = { .self = 1, .service_base = 100 };
	struct txn_transport *t = NULL;
	static const struct txn_transport_cb half = { .msg = on_msg };

	TAP_CHECK_INT(txn_txrdma_open(NULL, &c, &cb, NULL), -EINVAL);
	TAP_CHECK_INT(txn_txrdma_open(&t, NULL, &cb, NULL), -EINVAL);
	TAP_CHECK_INT(txn_txrdma_open(&t, &c, NULL, NULL), -EINVAL);
	TAP_CHECK_INT(txn_txrdma_open(&t, &c, &half, NULL), -EINVAL);
	c.self = 0;
	TAP_CHECK_INT(txn_txrdma_open(&t, &c, &cb, NULL), -EINVAL);
	c.self = 1;
	c.service_base = 0;
	TAP_CHECK_INT(txn_txrdma_open(&t, &c, &cb, NULL), -EINVAL);
	c.service_base = UINT32_MAX;
	TAP_CHECK_INT(txn_txrdma_open(&t, &c, &cb, NULL), -EINVAL);
	c.service_base = 100;
	c.max_msg = 65537;
	TAP_CHECK_INT(txn_txrdma_open(&t, &c, &cb, NULL), -EINVAL);
	TAP_CHECK(t == NULL);
	TAP_CHECK_INT(txn_txrdma_add_peer(NULL, 2, "self"), -EINVAL);
	TAP_CHECK(!txn_txrdma_peer_up(NULL, 2));
}

static void test_no_module(void)
{
	struct txn_txrdma_cfg c = { .self = 1, .service_base = 100 };
	struct txn_transport *t = NULL;
	int before = open_fds(), ret;

	if (!access("/dev/txrdma", F_OK)) {
		tap_skip("/dev/txrdma exists here: the guest suites cover it");
		return;
	}
	ret = txn_txrdma_open(&t, &c, &cb, NULL);
	TAP_CHECK_INT(ret, -ENOENT);
	TAP_CHECK(t == NULL);
	TAP_CHECK_INT(open_fds(), before);
	tap_diag("without the module: %s", strerror(-ret));
}

/* AUTO on a host without txrdma: TCP, and why */
static void test_auto(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	struct txn_txrdma_cfg xc = { .self = 1, .service_base = 100 };
	struct txn_tcp_cfg tc = {
		.self = 1, .listen = (struct sockaddr *)&a,
		.listen_len = sizeof(a),
	};
	struct txn_transport *t = NULL;
	char why[160] = "junk";

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (!access("/dev/txrdma", F_OK)) {
		tap_skip("/dev/txrdma exists here: the guest suites cover it");
		return;
	}
	TAP_CHECK_INT(txn_transport_open(&t, TXN_BACKEND_TXRDMA, &xc, &tc,
					 &cb, NULL, why, sizeof(why)),
		      -ENOENT);
	TAP_CHECK(t == NULL);
	TAP_CHECK_INT(txn_transport_open(&t, TXN_BACKEND_AUTO, &xc, &tc, &cb,
					 NULL, why, sizeof(why)), 0);
	if (!TAP_CHECK(t != NULL))
		return;
	TAP_CHECK_STR(t->ops->name, "tcp");
	TAP_CHECK(strstr(why, "no /dev/txrdma") && strstr(why, "using TCP"));
	tap_diag("%s", why);
	/* the one-sided calls refuse what is not a txrdma transport */
	TAP_CHECK_INT(txn_txrdma_rings(t, NULL, NULL, NULL), -EINVAL);
	TAP_CHECK_INT(txn_txrdma_rings(NULL, NULL, NULL, NULL), -EINVAL);
	TAP_CHECK_INT(txn_txrdma_pair(t, 2, NULL, NULL), -EINVAL);
	TAP_CHECK_INT(txn_txrdma_export(t, 1, 0, 4096), -EINVAL);
	txn_txrdma_cqe_hook(t, NULL, NULL);	/* ignored */
	txn_transport_close(t);
	/* a bad txrdma configuration is an error, not a reason for TCP */
	xc.service_base = 0;
	t = NULL;
	TAP_CHECK_INT(txn_transport_open(&t, TXN_BACKEND_AUTO, &xc, &tc, &cb,
					 NULL, why, sizeof(why)), -EINVAL);
	TAP_CHECK(t == NULL);
	TAP_CHECK_INT(txn_transport_open(&t, 7, &xc, &tc, &cb, NULL, NULL, 0),
		      -EINVAL);
}

static const struct tap_test tests[] = {
	TAP_TEST(test_bad_cfg, "bad configurations refused before anything is opened"),
	TAP_TEST(test_no_module, "no /dev/txrdma: libtxrdma's error, nothing left open"),
	TAP_TEST(test_auto, "AUTO without txrdma opens TCP and says why; a bad txrdma configuration stays an error"),
};

int main(void)
{
	return TAP_MAIN(tests);
}
