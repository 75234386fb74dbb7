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
#include <stdbool.h>
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

_Static_assert(sizeof(struct txrdma_ep_params) == 32, "ep_params size");
_Static_assert(sizeof(struct txrdma_ep_pair) == 48 + TXRDMA_PEER_NAME_MAX,
	       "ep_pair size");

/* The longest SEND a ring of @units takes: a frame of half of it. */
static __u32 ring_max_msg(__u32 units)
{
	__u32 half = units / 2 * TXRDMA_FRAME_UNIT - TXRDMA_FRAME_HDR_LEN;

	return half < TXRDMA_FRAME_MAX_PAYLOAD ? half : TXRDMA_FRAME_MAX_PAYLOAD;
}

/*
 * Credits come back in steps of a quarter of the ring, or when the
 * ring empties and the sender might not fit its largest frame in what
 * is left (the kernel's rule, txrdma_credit_rx_due()).  A ring of 8
 * frames of the largest message keeps both rare: a quarter holds two
 * messages, and an emptied ring always has room for the next one, so
 * a stream costs at most one update per two messages and a ping-pong
 * none (the replies carry the credits).
 */
TXRDMA_EXPORT __u32 txrdma_rx_units_for(__u32 max_msg)
{
	__u32 frame, units = TXRDMA_RX_MIN_UNITS;

	if (!max_msg)
		max_msg = TXRDMA_FRAME_MAX_PAYLOAD;
	if (max_msg > TXRDMA_FRAME_MAX_PAYLOAD)
		return 0;
	frame = (TXRDMA_FRAME_HDR_LEN + max_msg + TXRDMA_FRAME_UNIT - 1) /
		TXRDMA_FRAME_UNIT;
	while (units < 8 * frame)
		units *= 2;
	return units <= TXRDMA_RX_MAX_UNITS ? units : 0;
}

/* the request both CONNECT and ACCEPT send: params checked and copied */
static int ep_request(const struct txrdma_ep_params *p,
		      struct txrdma_ep_connect *req)
{
	__u32 units = p->rx_units ? p->rx_units :
		      txrdma_rx_units_for(p->rx_max_msg);

	if (!p->service || !txrdma_rx_area_size(units) ||
	    (p->rx_off & (TXRDMA_FRAME_UNIT - 1)) ||
	    p->rx_max_msg > ring_max_msg(units))
		return -EINVAL;
	memset(req, 0, sizeof(*req));
	req->service = p->service;
	req->flags = p->flags;
	req->rx_region = p->rx_region;
	req->rx_units = units;
	req->rx_off = p->rx_off;
	req->timeout_ms = p->timeout_ms;
	req->rx_max_msg = p->rx_max_msg;
	return 0;
}

/* what the kernel answered, as the library's result type */
static void ep_pair_from(struct txrdma_ep_pair *out,
			 const struct txrdma_ep_connect *req)
{
	memset(out, 0, sizeof(*out));
	out->id = req->id;
	out->peer_ep = req->peer_ep;
	out->qp_num = req->qp_num;
	out->max_msg = req->max_msg;
	out->service = req->service;
	out->flags = req->flags;
	out->rx_region = req->rx_region;
	out->rx_units = req->rx_units;
	out->rx_off = req->rx_off;
	out->rx_max_msg = req->rx_max_msg;
	out->grace_ms = req->grace_ms;
	memcpy(out->peer, req->peer, sizeof(out->peer));
	out->peer[sizeof(out->peer) - 1] = 0;
}

/* @session: with TXRDMA_EP_F_SESSION and @grace_ms (0: the default) */
static int ep_connect(struct txrdma_ctx *ctx, const char *peer,
		      const struct txrdma_ep_params *p, bool session,
		      __u32 grace_ms, struct txrdma_ep_pair *out)
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
	if (session) {
		if (grace_ms > TXRDMA_EP_GRACE_MAX_MS)
			return -EINVAL;
		req.flags |= TXRDMA_EP_F_SESSION;
		req.grace_ms = grace_ms;
	}
	memcpy(req.peer, peer, len);	/* the rest stays NUL */
	if (ioctl(txrdma_fd(ctx), TXRDMA_IOC_EP_CONNECT, &req) < 0)
		return -errno;
	ep_pair_from(out, &req);
	return 0;
}

TXRDMA_EXPORT int txrdma_ep_connect(struct txrdma_ctx *ctx, const char *peer,
				    const struct txrdma_ep_params *p,
				    struct txrdma_ep_pair *out)
{
	return ep_connect(ctx, peer, p, false, 0, out);
}

TXRDMA_EXPORT int txrdma_ep_connect_session(struct txrdma_ctx *ctx,
					    const char *peer,
					    const struct txrdma_ep_params *p,
					    __u32 grace_ms,
					    struct txrdma_ep_pair *out)
{
	return ep_connect(ctx, peer, p, true, grace_ms, out);
}

TXRDMA_EXPORT int txrdma_ep_accept(struct txrdma_ctx *ctx,
				   const struct txrdma_ep_params *p,
				   struct txrdma_ep_pair *out)
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
	ep_pair_from(out, &req);
	return 0;
}

static int ep_export_ioctl(struct txrdma_ctx *ctx, __u32 ep,
			   const struct txrdma_export_info *x, __u32 access,
			   __u32 timeout_ms)
{
	struct txrdma_ep_export e;

	memset(&e, 0, sizeof(e));
	e.ep = ep;
	e.region = x->region;
	e.access = access;
	e.timeout_ms = timeout_ms;
	e.off = x->off;
	e.len = x->len;
	if (ioctl(txrdma_fd(ctx), TXRDMA_IOC_EP_EXPORT, &e) < 0)
		return -errno;
	return 0;
}

TXRDMA_EXPORT int txrdma_ep_export(struct txrdma_ctx *ctx, __u32 ep,
				   const struct txrdma_export_info *x,
				   __u32 timeout_ms)
{
	if (!ctx || !x || !x->access ||
	    (x->access & ~(__u32)(TXRDMA_EXPORT_READ | TXRDMA_EXPORT_WRITE)))
		return -EINVAL;
	return ep_export_ioctl(ctx, ep, x, x->access, timeout_ms);
}

TXRDMA_EXPORT int txrdma_ep_unexport(struct txrdma_ctx *ctx, __u32 ep,
				     const struct txrdma_export_info *x,
				     __u32 timeout_ms)
{
	if (!ctx || !x)
		return -EINVAL;
	/* access 0 revokes */
	return ep_export_ioctl(ctx, ep, x, 0, timeout_ms);
}

TXRDMA_EXPORT int txrdma_ep_exports(struct txrdma_ctx *ctx, __u32 ep,
				    struct txrdma_ep_exports *out)
{
	struct txrdma_ep_exports q;

	if (!ctx || !out)
		return -EINVAL;
	memset(&q, 0, sizeof(q));
	q.ep = ep;
	if (ioctl(txrdma_fd(ctx), TXRDMA_IOC_EP_EXPORTS, &q) < 0)
		return -errno;
	/* never trust counts beyond the arrays */
	if (q.nimported > TXRDMA_EP_MAX_EXPORTS ||
	    q.nexported > TXRDMA_EP_MAX_EXPORTS)
		return -EPROTO;
	*out = q;
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
