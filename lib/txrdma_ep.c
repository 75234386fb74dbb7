// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libtxrdma: endpoint pairs (listen, connect, accept, destroy).  Thin
 * wrappers around the ioctls that refuse plainly wrong arguments before
 * the system call, send every reserved field as 0 and leave the
 * caller's output alone on failure.  The receive ring itself is read by
 * the inline helpers of <txrdma_ring.h>.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>

#include "txrdma.h"
#include "txrdma_int.h"

_Static_assert(sizeof(struct txrdma_ep_listen) == 24, "ep_listen ABI size");
_Static_assert(sizeof(struct txrdma_ep_connect) == 96, "ep_connect ABI size");
_Static_assert(sizeof(struct txrdma_ep_info) == 40, "ep_info ABI size");
_Static_assert(sizeof(((struct txrdma_ep_connect *)0)->peer) ==
	       TXRDMA_PEER_NAME_MAX, "peer name field");

TXRDMA_EXPORT int txrdma_ep_listen(struct txrdma_ctx *ctx, __u32 service)
{
	struct txrdma_ep_listen l;

	if (!ctx || !service)
		return -EINVAL;
	memset(&l, 0, sizeof(l));
	l.service = service;
	if (ioctl(txrdma_fd(ctx), TXRDMA_IOC_EP_LISTEN, &l) < 0)
		return -errno;
	return 0;
}

/* the request both CONNECT and ACCEPT send: params checked and copied */
static int ep_request(const struct txrdma_ep_params *p,
		      struct txrdma_ep_connect *req)
{
	if (!p->service || !txrdma_rx_area_size(p->rx_units) ||
	    (p->rx_off & (TXRDMA_FRAME_UNIT - 1)))
		return -EINVAL;
	memset(req, 0, sizeof(*req));
	req->service = p->service;
	req->flags = p->flags;
	req->rx_region = p->rx_region;
	req->rx_units = p->rx_units;
	req->rx_off = p->rx_off;
	req->timeout_ms = p->timeout_ms;
	return 0;
}

TXRDMA_EXPORT int txrdma_ep_connect(struct txrdma_ctx *ctx, const char *peer,
				    const struct txrdma_ep_params *p,
				    struct txrdma_ep_connect *out)
{
	struct txrdma_ep_connect req;
	size_t len;
	int ret;

	if (!ctx || !peer || !p || !out)
		return -EINVAL;
	len = strnlen(peer, sizeof(req.peer));
	if (!len)
		return -EINVAL;
	if (len >= sizeof(req.peer))
		return -ENAMETOOLONG;
	ret = ep_request(p, &req);
	if (ret)
		return ret;
	memcpy(req.peer, peer, len);	/* the rest stays NUL */
	if (ioctl(txrdma_fd(ctx), TXRDMA_IOC_EP_CONNECT, &req) < 0)
		return -errno;
	*out = req;
	return 0;
}

TXRDMA_EXPORT int txrdma_ep_accept(struct txrdma_ctx *ctx,
				   const struct txrdma_ep_params *p,
				   struct txrdma_ep_connect *out)
{
	struct txrdma_ep_connect req;
	int ret;

	if (!ctx || !p || !out)
		return -EINVAL;
	ret = ep_request(p, &req);
	if (ret)
		return ret;
	if (ioctl(txrdma_fd(ctx), TXRDMA_IOC_EP_ACCEPT, &req) < 0)
		return -errno;
	req.peer[sizeof(req.peer) - 1] = 0;
	*out = req;
	return 0;
}

TXRDMA_EXPORT int txrdma_ep_destroy(struct txrdma_ctx *ctx, __u32 id)
{
	struct txrdma_ep_info ei;

	if (!ctx)
		return -EINVAL;
	memset(&ei, 0, sizeof(ei));
	ei.id = id;
	if (ioctl(txrdma_fd(ctx), TXRDMA_IOC_EP_DESTROY, &ei) < 0)
		return -errno;
	return 0;
}
