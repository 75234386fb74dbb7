// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libtxrdma: what an error of a txrdma call means, in txrdma's terms.
 *
 * The calls return negative errnos; strerror() gives their generic
 * text ("Operation not permitted"), which does not tell a database
 * developer that the fix is to start the process in a tenant's cgroup.
 * These texts say what the module means by each code, and what to do.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "txrdma.h"
#include "txrdma_int.h"

static const struct {
	int err;
	const char *text;
} txrdma_errtext[] = {
	{ EPERM, "not permitted: the process's cgroup belongs to no txrdma tenant (start it with \"txrdma-admin tenant exec NAME -- CMD\"), or the peer did not export that access" },
	{ ENOENT, "no such object (/dev/txrdma missing: is txrdma.ko loaded?; or no such region, endpoint or peer)" },
	{ EDQUOT, "the tenant's quota is used up (txrdma-admin tenant show)" },
	{ ENOTCONN, "the peer is not Up (txrdma-admin peer show)" },
	{ EAGAIN, "the peer's pool had no ready QP in time (a connect waits for one up to its timeout_ms)" },
	{ ECONNREFUSED, "nobody listens on that service at the peer (in the same tenant)" },
	{ ECONNRESET, "the endpoint pair ended: the other side closed it, or its QP failed" },
	{ ECONNABORTED, "a READ or WRITE was in flight when its session moved to a new QP: it may or may not have run (mark it TXRDMA_SQE_F_IDEMPOTENT to have it run again instead)" },
	{ ECANCELED, "the operation was cancelled: its endpoint was closed" },
	{ ETIMEDOUT, "the other side did not answer in time" },
	{ EADDRINUSE, "the service is already served in this tenant" },
	{ EMSGSIZE, "the message is longer than the other side's receive ring takes (max_msg)" },
	{ EXDEV, "the endpoint's session was exported to move to another host (txrdma_sess_export()): it carries nothing more here; destroy it" },
	{ ENOTTY, "the kernel module does not have this operation (an older txrdma.ko)" },
	{ EPROTO, "the kernel module speaks another ABI version than this library" },
};

TXRDMA_EXPORT const char *txrdma_strerror(int err)
{
	const char *s;
	size_t i;

	if (err < 0)	/* -INT_MIN does not exist: no code anyway */
		err = err == INT_MIN ? 0 : -err;
	for (i = 0; i < sizeof(txrdma_errtext) / sizeof(txrdma_errtext[0]); i++)
		if (txrdma_errtext[i].err == err)
			return txrdma_errtext[i].text;
	/* thread-safe, unlike strerror(); NULL for an unknown code */
	s = strerrordesc_np(err);
	return s ? s : "unknown error";
}
