/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The transaction layer's transport seam: what the state machines'
 * records travel on.  A transport carries messages (a batch of records,
 * uapi/linux/txrdma_txn.h) between nodes named by 32-bit ids, in order
 * per pair of nodes, and says when a peer comes up or goes down.  It may
 * lose messages when a connection fails (the protocol retries); it
 * never delivers one twice, out of order, or partly.
 *
 * Two backends: txrdma endpoint pairs, and plain TCP (txn_tcp.c), the
 * latter to compare like with like and for hosts without RDMA.  The
 * caller drives a transport from one thread: txn_transport_poll() (or
 * its fd in the caller's own epoll) runs the callbacks.
 */
#ifndef TXN_TRANSPORT_H
#define TXN_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct txn_transport;

/* What a transport calls, from txn_transport_poll() only. */
struct txn_transport_cb {
	/* a message from @node; @msg is valid during the call only */
	void (*msg)(void *ctx, uint32_t node, const void *msg, size_t len);
	/* @node's connection came up, or went down (messages may be lost) */
	void (*peer)(void *ctx, uint32_t node, bool up);
};

struct txn_transport_ops {
	const char *name;
	int (*send)(struct txn_transport *t, uint32_t node, const void *msg,
		    size_t len);
	int (*poll)(struct txn_transport *t, int timeout_ms);
	int (*fd)(const struct txn_transport *t);
	bool (*peer_up)(const struct txn_transport *t, uint32_t node);
	void (*close)(struct txn_transport *t);
};

struct txn_transport {
	const struct txn_transport_ops *ops;
	struct txn_transport_cb cb;
	void *ctx;
};

/*
 * Queue one message of @len bytes (1..the backend's limit) to @node.
 * Return: 0 (it will be sent, or lost with its connection); -EINVAL (not
 * a peer, bad length); -ENOTCONN (the peer is down: nothing queued);
 * -ENOBUFS (too much queued to it already: poll, then retry).
 */
static inline int txn_transport_send(struct txn_transport *t, uint32_t node,
				     const void *msg, size_t len)
{
	return t->ops->send(t, node, msg, len);
}

/*
 * Do the I/O that is ready, waiting up to @timeout_ms (0: do not wait,
 * -1: until something happens), and run the callbacks.  Return: the
 * number of messages delivered, or a negative errno (the transport
 * itself failed).
 */
static inline int txn_transport_poll(struct txn_transport *t, int timeout_ms)
{
	return t->ops->poll(t, timeout_ms);
}

/* A file descriptor that is readable when txn_transport_poll() has work. */
static inline int txn_transport_fd(const struct txn_transport *t)
{
	return t->ops->fd(t);
}

/* Is @node's connection up (its last peer callback said up)? */
static inline bool txn_transport_peer_up(const struct txn_transport *t,
					 uint32_t node)
{
	return t->ops->peer_up(t, node);
}

/* Close every connection (no callback runs) and free @t. */
static inline void txn_transport_close(struct txn_transport *t)
{
	if (t)
		t->ops->close(t);
}

enum txn_backend {
	TXN_BACKEND_TXRDMA,
	TXN_BACKEND_TCP,
	TXN_BACKEND_AUTO,	/* txrdma, or TCP where this host has none */
};

struct txn_txrdma_cfg;
struct txn_tcp_cfg;

/*
 * Open the transport @want asks for (its configuration: @xc for
 * txrdma, @tc for TCP; AUTO needs both).  AUTO opens TCP only when this
 * host has no txrdma for us (no module, no RDMA device, no tenant), and
 * then writes why into @why (at most @why_len bytes, NUL-terminated;
 * "" when txrdma was opened), for the caller to log; any other error
 * of txrdma (a bad configuration, a service in use) is returned.
 * Peers are then added with the backend's own call
 * (txn_txrdma_add_peer(), txn_tcp_add_peer(); t->ops->name says
 * which).  Return: 0 and *@tp, or a negative errno.
 */
int txn_transport_open(struct txn_transport **tp, enum txn_backend want,
		       const struct txn_txrdma_cfg *xc,
		       const struct txn_tcp_cfg *tc,
		       const struct txn_transport_cb *cb, void *ctx,
		       char *why, size_t why_len);

#endif /* TXN_TRANSPORT_H */
