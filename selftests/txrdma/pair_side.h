/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One side of an endpoint pair for the two-host selftests (msg_kill,
 * session_flap): a context with rings, a 2 MiB region whose first bytes
 * hold the receive ring, the pair (accepted, or connected, retrying
 * while the other side does not listen yet), and the ring's reader.
 */
#ifndef _TXRDMA_PAIR_SIDE_H
#define _TXRDMA_PAIR_SIDE_H

#include <errno.h>
#include <stdbool.h>
#include <time.h>
#include <unistd.h>

#include <txrdma.h>

struct pair_side {
	struct txrdma_ctx *ctx;
	struct txrdma_sq sq;
	struct txrdma_cq cq;
	struct txrdma_region reg;
	struct txrdma_ep_pair ep;
	struct txrdma_rx rx;
};

static inline double pair_now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/*
 * Set @s up for @service with a ring of @units: accept when @peer is
 * NULL (waiting up to 120 s), else connect to @peer (a session with
 * @grace_ms when @session), retrying for up to 120 s while the other
 * side does not listen yet or the peer is Down (-ENOTCONN: on a
 * crowded TCG host a guest that did not run for longer than the
 * detection time is declared Down, and comes back).  Return: 0, or a
 * negative errno with *@what naming the step that failed.
 */
static inline int pair_side_setup(struct pair_side *s, __u32 service,
				  const char *peer, __u32 units, bool session,
				  __u32 grace_ms, const char **what)
{
	struct txrdma_ep_params p = {
		.service = service, .rx_units = units, .timeout_ms = 5000,
	};
	double t0 = pair_now_ms();
	int ret;

	*what = "open";
	ret = txrdma_open(&s->ctx, 0);
	if (ret)
		return ret;
	*what = "rings";
	ret = txrdma_rings_setup(s->ctx, 256, 0, &s->sq, &s->cq);
	if (ret)
		return ret;
	*what = "region";
	ret = txrdma_region_create(s->ctx, 2 << 20, 0, &s->reg);
	if (ret)
		return ret;
	p.rx_region = s->reg.id;
	if (!peer) {
		*what = "listen";
		ret = txrdma_ep_listen(s->ctx, service);
		if (ret)
			return ret;
		*what = "accept";
		p.timeout_ms = 120000;
		ret = txrdma_ep_accept(s->ctx, &p, &s->ep);
	} else {
		*what = "connect";
		do {
			ret = session ?
			      txrdma_ep_connect_session(s->ctx, peer, &p,
							grace_ms, &s->ep) :
			      txrdma_ep_connect(s->ctx, peer, &p, &s->ep);
		} while ((ret == -ECONNREFUSED || ret == -EAGAIN ||
			  ret == -ETIMEDOUT || ret == -ENOTCONN) &&
			 pair_now_ms() - t0 < 120000 && !usleep(50000));
	}
	if (ret)
		return ret;
	*what = "rx_init";
	return txrdma_rx_init(&s->rx, s->ctx, &s->sq, s->reg.addr, units);
}

#endif
