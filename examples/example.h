/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the three examples share: a context with rings and one 2 MiB
 * region, an endpoint pair whose receive ring lives in the region's
 * second MiB, and blocking send/receive built on poll(2) of the
 * context's descriptor (readable while completions or messages wait).
 *
 * Region layout:  0 .. 1 MiB      send buffers (and READ targets)
 *                 1 MiB ..        receive rings, 128 KiB apart
 */
#ifndef TXRDMA_EXAMPLE_H
#define TXRDMA_EXAMPLE_H

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <txrdma.h>

#define EX_REGION	(2u << 20)
#define EX_RING_OFF	(1u << 20)
#define EX_RING_STEP	(128u << 10)
#define EX_MAX_MSG	4096		/* the longest message we take */
#define EX_TIMEOUT_MS	30000

struct ex {
	struct txrdma_ctx *ctx;
	struct txrdma_sq sq;
	struct txrdma_cq cq;
	struct txrdma_region r;
};

struct ex_pair {
	struct ex *ex;
	struct txrdma_ep_pair ep;	/* ep.id names the pair in SQEs */
	struct txrdma_rx rx;
	__u64 send_off;			/* this pair's send buffer */
};

static inline void ex_die(const char *what, int err)
{
	fprintf(stderr, "%s: %s\n", what, txrdma_strerror(err));
	exit(1);
}

static inline double ex_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static inline void ex_open(struct ex *ex)
{
	int ret;

	memset(ex, 0, sizeof(*ex));
	if ((ret = txrdma_open(&ex->ctx, 0)))
		ex_die("txrdma_open", ret);
	if ((ret = txrdma_rings_setup(ex->ctx, 64, 0, &ex->sq, &ex->cq)))
		ex_die("txrdma_rings_setup", ret);
	if ((ret = txrdma_region_create(ex->ctx, EX_REGION, 0, &ex->r)))
		ex_die("txrdma_region_create", ret);
}

/*
 * Pair number @i of this context: connect to @service of @peer, or
 * (@peer NULL) accept on it (listen first).  The library sizes the
 * ring for EX_MAX_MSG (rx_units 0); connect waits for the peer to be
 * Up with a ready QP.
 */
static inline void ex_pair(struct ex *ex, struct ex_pair *p, unsigned int i,
			   const char *peer, __u32 service)
{
	struct txrdma_ep_params prm = {
		.service = service, .rx_region = ex->r.id,
		.rx_off = EX_RING_OFF + i * EX_RING_STEP,
		.timeout_ms = EX_TIMEOUT_MS, .rx_max_msg = EX_MAX_MSG,
	};
	int ret;

	p->ex = ex;
	p->send_off = (__u64)i * EX_MAX_MSG;
	ret = peer ? txrdma_ep_connect(ex->ctx, peer, &prm, &p->ep) :
		     txrdma_ep_accept(ex->ctx, &prm, &p->ep);
	if (ret)
		ex_die(peer ? "txrdma_ep_connect" : "txrdma_ep_accept", ret);
	ret = txrdma_rx_init(&p->rx, ex->ctx, &ex->sq,
			     (char *)ex->r.addr + prm.rx_off, p->ep.rx_units);
	if (ret)
		ex_die("txrdma_rx_init", ret);
}

/* Sleep in poll(2) until the kernel has something for us (or 100 ms). */
static inline void ex_wait(struct ex *ex)
{
	struct pollfd pfd = { .fd = txrdma_fd(ex->ctx), .events = POLLIN };

	if (txrdma_sq_needs_wakeup(&ex->sq))
		txrdma_rings_enter(ex->ctx);
	poll(&pfd, 1, 100);
}

/* Wait for the CQE of @user_data (others are dropped): its res. */
static inline int ex_complete(struct ex *ex, __u64 user_data)
{
	struct txrdma_cqe *cqe;
	int res;

	for (;;) {
		while ((cqe = txrdma_peek_cqe(&ex->cq))) {
			__u64 ud = cqe->user_data;

			res = cqe->res;
			txrdma_cq_advance(&ex->cq, 1);
			if (ud == user_data)
				return res;
		}
		ex_wait(ex);
	}
}

/* SEND @len bytes of @msg on @p and wait until it is placed. */
static inline void ex_send(struct ex_pair *p, const void *msg, __u32 len)
{
	struct txrdma_sqe *sqe = txrdma_get_sqe(&p->ex->sq);
	int res;

	if (!sqe)
		ex_die("txrdma_get_sqe", -EBUSY);
	memcpy((char *)p->ex->r.addr + p->send_off, msg, len);
	txrdma_prep_send(sqe, p->ep.id, p->ex->r.id, p->send_off, len,
			 p->ep.id);
	txrdma_submit(p->ex->ctx, &p->ex->sq);
	res = ex_complete(p->ex, p->ep.id);
	if (res != (int)len)
		ex_die("SEND", res < 0 ? res : -EIO);
}

/*
 * The next message of @p into @buf (NUL-terminated, at most @cap - 1
 * bytes kept): 1, or 0 when none waits and @block is false.
 */
static inline int ex_recv(struct ex_pair *p, char *buf, size_t cap,
			  int block)
{
	const void *msg;
	__u32 len;
	int ret;

	while (!(ret = txrdma_rx_peek(&p->rx, &msg, &len))) {
		if (!block)
			return 0;
		ex_wait(p->ex);
	}
	if (ret < 0)
		ex_die("txrdma_rx_peek", ret);
	if (len >= cap)
		len = cap - 1;
	memcpy(buf, msg, len);
	buf[len] = 0;
	txrdma_rx_release(&p->rx);
	return 1;
}

/*
 * End the conversation: say "bye" and wait until the other side, which
 * closes the pair when it reads it, has done so.  Why not just close?
 * A SEND completes with -ECONNRESET when the pair ends before its
 * completion is taken, even if it arrived.  So the side that reads the
 * last message closes, and the side that sent it waits for that: every
 * earlier message of either side has completed by then.  Our "bye"
 * itself may complete either way: the other side's close is the proof
 * that it arrived.
 */
static inline void ex_bye(struct ex_pair *p)
{
	struct txrdma_sqe *sqe = txrdma_get_sqe(&p->ex->sq);
	const void *msg;
	__u32 len;
	int res;

	if (!sqe)
		ex_die("txrdma_get_sqe", -EBUSY);
	memcpy((char *)p->ex->r.addr + p->send_off, "bye", 3);
	txrdma_prep_send(sqe, p->ep.id, p->ex->r.id, p->send_off, 3,
			 p->ep.id);
	txrdma_submit(p->ex->ctx, &p->ex->sq);
	res = ex_complete(p->ex, p->ep.id);
	if (res != 3 && res != -ECONNRESET)
		ex_die("SEND bye", res < 0 ? res : -EIO);
	for (;;) {
		res = txrdma_rx_peek(&p->rx, &msg, &len);
		if (res == -ECONNRESET)
			return;			/* closed by the other side */
		if (res < 0)
			ex_die("waiting for the close", res);
		if (res)
			txrdma_rx_release(&p->rx);	/* late: ignored */
		else
			ex_wait(p->ex);
	}
}

#endif /* TXRDMA_EXAMPLE_H */
