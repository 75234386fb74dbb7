// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Choosing a transport: txrdma where this host has it, else TCP, and
 * say which and why, so that a database runs on a host without RDMA
 * and its operator knows that it does.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "txn_tcp.h"
#include "txn_transport.h"
#include "txn_txrdma.h"

static const char *txrdma_why(int err)
{
	switch (err) {
	case -ENOENT:
		return "no /dev/txrdma (the module is not loaded)";
	case -ENODEV:
		return "no RDMA device";
	case -EPERM:
	case -EACCES:
		return "this process is in no txrdma tenant";
	default:
		return NULL;
	}
}

int txn_transport_open(struct txn_transport **tp, enum txn_backend want,
		       const struct txn_txrdma_cfg *xc,
		       const struct txn_tcp_cfg *tc,
		       const struct txn_transport_cb *cb, void *ctx,
		       char *why, size_t why_len)
{
	const char *reason;
	int ret, xerr;

	if (!tp || (want != TXN_BACKEND_TCP && !xc) ||
	    (want != TXN_BACKEND_TXRDMA && !tc) || want > TXN_BACKEND_AUTO)
		return -EINVAL;
	if (why && why_len)
		why[0] = 0;
	if (want == TXN_BACKEND_TCP)
		return txn_tcp_open(tp, tc, cb, ctx);
	ret = txn_txrdma_open(tp, xc, cb, ctx);
	if (!ret || want == TXN_BACKEND_TXRDMA)
		return ret;
	/* only for a host without txrdma: a bad configuration is an error */
	xerr = ret;
	reason = txrdma_why(xerr);
	if (!reason)
		return xerr;
	ret = txn_tcp_open(tp, tc, cb, ctx);
	if (!ret && why && why_len)
		snprintf(why, why_len, "txrdma: %s (%s): using TCP", reason,
			 strerror(-xerr));
	return ret;
}
