/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The TCP backend of the transaction layer's transport (txn_transport.h):
 * one TCP connection per pair of nodes, messages length-prefixed on it,
 * non-blocking sockets under one epoll.  See txn_tcp.c for the design.
 */
#ifndef TXN_TCP_H
#define TXN_TCP_H

#include <sys/socket.h>

#include "txn_transport.h"

#define TXN_TCP_MAX_MSG_DEFAULT		(1U << 20)
#define TXN_TCP_MAX_QUEUED_DEFAULT	(64U << 20)
#define TXN_TCP_RECONNECT_MS_DEFAULT	100

struct txn_tcp_cfg {
	uint32_t self;		/* this node, not 0 */
	const struct sockaddr *listen;	/* where peers reach us */
	socklen_t listen_len;
	uint32_t max_msg;	/* largest message, 0: the default */
	uint32_t max_queued;	/* bytes queued per peer, 0: the default */
	uint32_t reconnect_ms;	/* between dials of a down peer, 0: default */
};

/* counters, never reset */
struct txn_tcp_stats {
	uint64_t msgs_out, msgs_in, bytes_out, bytes_in;
	uint64_t ups, downs;		/* peer events delivered */
	uint64_t dials, accepts;
	uint64_t refused;	/* accepted connections closed before they
				 * named a peer: a bad hello, a stranger, a
				 * node that should dial us, silence */
	uint64_t protocol_errors;	/* a peer's bad length: closed */
	uint64_t queued_full;	/* sends refused with -ENOBUFS */
};

/*
 * Open a transport listening at @cfg->listen.  Return: 0 and *@tp set,
 * or a negative errno (bad @cfg or @cb, the address in use, ...).
 */
int txn_tcp_open(struct txn_transport **tp, const struct txn_tcp_cfg *cfg,
		 const struct txn_transport_cb *cb, void *ctx);

/*
 * Name a peer: @node (not 0, not ourselves, not named before) listens at
 * @addr.  Of each pair the node with the lower id dials and redials
 * while the peer is down; the other accepts.  Return: 0, -EINVAL,
 * -EEXIST, -ENOMEM.
 */
int txn_tcp_add_peer(struct txn_transport *t, uint32_t node,
		     const struct sockaddr *addr, socklen_t addr_len);

/* The port the transport listens on (host order), e.g. after port 0. */
int txn_tcp_port(const struct txn_transport *t);

/* Is @node's connection up? */
bool txn_tcp_peer_up(const struct txn_transport *t, uint32_t node);

void txn_tcp_stats(const struct txn_transport *t, struct txn_tcp_stats *s);

#endif /* TXN_TCP_H */
