// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libtxrdma: session hand-off (TXRDMA_FEAT_HANDOFF).  A session's end
 * leaves one host with its process (txrdma_sess_export()) and comes
 * back on another (txrdma_sess_import()).  Thin wrappers around the two
 * ioctls, in the style of txrdma_ep.c: plainly wrong arguments are
 * refused before the system call, reserved fields go as 0, and the
 * caller's outputs are left alone on failure.
 *
 * What the library must be able to trust is checked here too: the
 * count of unsettled SENDs the kernel reports against the array the
 * caller gave, and the ring size of a state to import (the library
 * hands it back in struct txrdma_ep_pair, from which the process sets
 * up its ring view).  Everything else in a state is the kernel's to
 * judge: it was made by a module, it may have been altered on the way,
 * and only the module holds what proves it genuine.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>

#include "txrdma.h"
#include "txrdma_int.h"

_Static_assert(sizeof(struct txrdma_sess_send) == 48, "sess_send ABI size");
_Static_assert(sizeof(struct txrdma_sess_state) == 160, "sess_state ABI size");
_Static_assert(sizeof(struct txrdma_ep_sess_export) == 192,
	       "ep_sess_export ABI size");
_Static_assert(sizeof(struct txrdma_ep_sess_import) == 240,
	       "ep_sess_import ABI size");
_Static_assert(sizeof(((struct txrdma_ep_sess_import *)0)->peer) ==
	       TXRDMA_PEER_NAME_MAX, "import peer name field");

TXRDMA_EXPORT int txrdma_sess_export(struct txrdma_ctx *ctx, __u32 ep,
				     __u32 timeout_ms,
				     struct txrdma_sess_state *state,
				     struct txrdma_sess_send *sends,
				     __u32 max_sends)
{
	struct txrdma_ep_sess_export e;

	/*
	 * Room for every SEND a session can have, so that an export never
	 * stops half done for want of it (the kernel's rule too).
	 */
	if (!ctx || !state || !sends || max_sends < TXRDMA_SESS_SENDS_MAX)
		return -EINVAL;
	/* more room than a session's slots is never used: not offered */
	if (max_sends > TXRDMA_SESS_SENDS_MAX)
		max_sends = TXRDMA_SESS_SENDS_MAX;
	memset(&e, 0, sizeof(e));
	e.ep = ep;
	e.timeout_ms = timeout_ms;
	e.max_sends = max_sends;
	e.sends = (__u64)(uintptr_t)sends;
	if (ioctl(txrdma_fd(ctx), TXRDMA_IOC_EP_SESS_EXPORT, &e) < 0)
		return -errno;
	/* never trust a count beyond the caller's array */
	if (e.state.nsends > max_sends)
		return -EPROTO;
	*state = e.state;
	return 0;
}

TXRDMA_EXPORT int txrdma_sess_import(struct txrdma_ctx *ctx, const char *peer,
				     const struct txrdma_sess_state *state,
				     const struct txrdma_sess_send *sends,
				     __u32 rx_region, __u64 rx_off,
				     __u32 timeout_ms,
				     struct txrdma_ep_pair *out)
{
	struct txrdma_ep_sess_import im;
	size_t len;

	if (!ctx || !peer || !state || !out)
		return -EINVAL;
	len = strnlen(peer, sizeof(im.peer));
	if (!len)
		return -EINVAL;
	if (len >= sizeof(im.peer))
		return -ENAMETOOLONG;
	/*
	 * The ring's size and place: what the caller's ring view is made
	 * from (txrdma_rx_init() with out->rx_units), so a state whose
	 * ring no view can have is refused here as connect refuses it.
	 */
	if (!txrdma_rx_area_size(state->rx_units) ||
	    (rx_off & (TXRDMA_FRAME_UNIT - 1)))
		return -EINVAL;
	if (state->nsends > TXRDMA_SESS_SENDS_MAX ||
	    (state->nsends && !sends))
		return -EINVAL;
	memset(&im, 0, sizeof(im));
	memcpy(im.peer, peer, len);	/* the rest stays NUL */
	im.rx_region = rx_region;
	im.rx_off = rx_off;
	im.sends = (__u64)(uintptr_t)sends;
	im.timeout_ms = timeout_ms;
	im.state = *state;
	if (ioctl(txrdma_fd(ctx), TXRDMA_IOC_EP_SESS_IMPORT, &im) < 0)
		return -errno;

	/* the pair as txrdma_ep_connect() would have described it */
	memset(out, 0, sizeof(*out));
	out->id = im.id;
	out->qp_num = im.qp_num;
	out->peer_ep = state->peer_ep;
	out->max_msg = state->peer_max_msg;
	out->service = state->service;
	out->flags = state->flags;
	out->rx_region = rx_region;
	out->rx_units = state->rx_units;
	out->rx_off = rx_off;
	out->rx_max_msg = state->rx_max_msg;
	out->grace_ms = state->grace_ms;
	memcpy(out->peer, peer, len);
	return 0;
}
