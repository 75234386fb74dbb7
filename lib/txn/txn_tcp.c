// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The transaction layer over plain TCP: the baseline that txrdma is
 * measured against, and the transport of a host without RDMA.
 *
 * One connection per pair of nodes, so that the messages of a pair stay
 * in order (the protocol's records of one transaction must).  Of each
 * pair the node with the lower id dials, and redials every
 * reconnect_ms while the peer is down; the other only accepts.  So two
 * nodes never race to build two connections, and a restarted node is
 * reached again without anyone configuring anything.
 *
 * Opening: the dialer sends a hello (magic, version, its id, the id it
 * meant to reach); the acceptor checks it names a peer it was told of,
 * with a lower id, and itself, then answers with its own hello.  Each
 * side reports the peer up when it has the other's hello.  An accepted
 * connection that does not say hello within a second is closed.  A
 * hello proves nothing about who sent it: this backend trusts its
 * network, as TCP baselines do; on a network that is not trusted, run
 * it inside a tunnel that authenticates (WireGuard, IPsec) or use
 * txrdma, whose peers prove a key.  What a stranger can do here is
 * bounded: it cannot take the place of a peer that is up without
 * naming it (and then the peer's traffic goes to the newer connection,
 * which is how a restarted peer is told from a dead one), and every
 * length it sends is checked.
 *
 * Messages: a 32-bit little-endian length, then that many bytes (1 ..
 * max_msg); any other length closes the connection.  Sends write
 * straight to the socket when nothing is queued (TCP_NODELAY: a
 * coordinator's batch leaves at once); what the socket does not take is
 * queued, up to max_queued bytes per peer, and written when epoll says
 * the socket is writable.
 *
 * Failures are reported, not acted on in the middle of a callback: a
 * send that hits a dead socket marks the connection, and the poll loop
 * closes it after the event at hand, reporting the peer down.  A
 * callback may therefore send to anyone, at any time.
 */
#define _GNU_SOURCE	/* accept4() */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "txn_clock.h"
#include "txn_tcp.h"

#define HELLO_MAGIC	0x544e5854u	/* "TXNT", little-endian */
#define HELLO_VERSION	1
#define HELLO_LEN	16
#define HELLO_WAIT_MS	1000
#define READ_CHUNK	65536
#define MAX_PENDING	256	/* accepted connections yet to say hello */

enum conn_state {
	C_DIALING = 1,	/* connect() in progress */
	C_HELLO,	/* waiting for the other side's hello */
	C_UP,
};

struct buf {
	uint8_t *p;
	size_t off, len, cap;	/* bytes [off, len) are live */
};

struct conn {
	int fd;
	uint8_t state;
	bool dialed;		/* we dialed it */
	bool dead;		/* failed: close after the event at hand */
	uint32_t node;		/* 0 until an accepted one says hello */
	uint64_t hello_by;	/* accepted: close unless hello by then */
	struct buf in, out;
	struct conn *next_dead;	/* on the grave list */
};

struct peer {
	uint32_t node;
	struct sockaddr_storage addr;
	socklen_t addr_len;
	struct conn *c;		/* NULL when down */
	uint64_t next_dial;
};

struct tcp {
	struct txn_transport t;
	uint32_t self, max_msg, max_queued, reconnect_ms;
	int ep, lfd;
	struct peer *peers;
	unsigned int npeers, cap_peers;
	struct conn **pending;	/* accepted, no hello yet */
	unsigned int npending, cap_pending;
	struct conn *grave;	/* closed this round, freed after it */
	struct txn_tcp_stats st;
	int delivered;
};

static struct tcp *to_tcp(const struct txn_transport *t)
{
	return (struct tcp *)t;
}

static struct peer *peer_of(struct tcp *s, uint32_t node)
{
	unsigned int i;

	for (i = 0; i < s->npeers; i++)
		if (s->peers[i].node == node)
			return &s->peers[i];
	return NULL;
}

/* make room for @n more bytes at the end of @b */
static int buf_reserve(struct buf *b, size_t n)
{
	size_t need;
	uint8_t *p;

	if (b->off && b->off == b->len)
		b->off = b->len = 0;
	if (b->cap - b->len >= n)
		return 0;
	if (b->off) {		/* compact first */
		memmove(b->p, b->p + b->off, b->len - b->off);
		b->len -= b->off;
		b->off = 0;
		if (b->cap - b->len >= n)
			return 0;
	}
	need = b->len + n;
	if (need < 2 * b->cap)
		need = 2 * b->cap;
	p = realloc(b->p, need);
	if (!p)
		return -ENOMEM;
	b->p = p;
	b->cap = need;
	return 0;
}

static int buf_put(struct buf *b, const void *p, size_t n)
{
	int ret = buf_reserve(b, n);

	if (ret)
		return ret;
	memcpy(b->p + b->len, p, n);
	b->len += n;
	return 0;
}

static void conn_events(struct tcp *s, struct conn *c)
{
	struct epoll_event ev = { .data.ptr = c };

	ev.events = EPOLLIN;
	if (c->state == C_DIALING || c->out.len > c->out.off)
		ev.events |= EPOLLOUT;
	if (epoll_ctl(s->ep, EPOLL_CTL_MOD, c->fd, &ev))
		c->dead = true;
}

static struct conn *conn_new(struct tcp *s, int fd, uint8_t state)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct conn *c = calloc(1, sizeof(*c));
	int one = 1;

	if (!c)
		return NULL;
	c->fd = fd;
	c->state = state;
	if (state == C_DIALING)
		ev.events |= EPOLLOUT;
	ev.data.ptr = c;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (epoll_ctl(s->ep, EPOLL_CTL_ADD, fd, &ev)) {
		free(c);
		return NULL;
	}
	return c;
}

static void conn_free(struct conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	free(c->in.p);
	free(c->out.p);
	free(c);
}

/*
 * Close @c now (the other side sees it at once) but free it only after
 * the round: a later event of the same epoll_wait() may still name it,
 * and is skipped because it is dead.
 */
static void conn_bury(struct tcp *s, struct conn *c)
{
	close(c->fd);
	c->fd = -1;
	c->dead = true;
	c->next_dead = s->grave;
	s->grave = c;
}

static void grave_empty(struct tcp *s)
{
	while (s->grave) {
		struct conn *c = s->grave;

		s->grave = c->next_dead;
		conn_free(c);
	}
}

static void pending_drop(struct tcp *s, struct conn *c)
{
	unsigned int i;

	for (i = 0; i < s->npending; i++)
		if (s->pending[i] == c) {
			s->pending[i] = s->pending[--s->npending];
			return;
		}
}

/* a peer's connection is gone: report it, and redial if that is ours */
static void peer_down(struct tcp *s, struct peer *p)
{
	struct conn *c = p->c;
	bool was_up = c && c->state == C_UP;

	if (!c)
		return;
	p->c = NULL;
	conn_bury(s, c);
	if (s->self < p->node)
		p->next_dial = txn_clock_ms() + s->reconnect_ms;
	if (was_up) {
		s->st.downs++;
		s->t.cb.peer(s->t.ctx, p->node, false);
	}
}

static void hello_fill(uint8_t *h, uint32_t self, uint32_t peer)
{
	uint32_t w[4] = {
		htole32(HELLO_MAGIC),
		htole32(HELLO_VERSION),
		htole32(self),
		htole32(peer),
	};

	memcpy(h, w, HELLO_LEN);
}

/* write what is queued; false when the connection failed */
static bool conn_flush(struct tcp *s, struct conn *c)
{
	while (c->out.len > c->out.off) {
		ssize_t n = send(c->fd, c->out.p + c->out.off,
				 c->out.len - c->out.off, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				break;
			if (errno == EINTR)
				continue;
			return false;
		}
		c->out.off += (size_t)n;
	}
	if (c->out.off == c->out.len)
		c->out.off = c->out.len = 0;
	conn_events(s, c);
	return true;
}

static int tcp_send(struct txn_transport *t, uint32_t node, const void *msg,
		    size_t len)
{
	struct tcp *s = to_tcp(t);
	struct peer *p = peer_of(s, node);
	uint32_t hdr = htole32((uint32_t)len);
	struct conn *c;
	size_t done = 0, total = sizeof(hdr) + len;

	if (!p || !msg || !len || len > s->max_msg)
		return -EINVAL;
	c = p->c;
	if (!c || c->state != C_UP || c->dead)
		return -ENOTCONN;
	if (c->out.len - c->out.off + total > s->max_queued) {
		s->st.queued_full++;
		return -ENOBUFS;
	}
	if (c->out.len == c->out.off) {
		/* nothing queued: straight to the socket */
		struct iovec iov[2] = {
			{ .iov_base = &hdr, .iov_len = sizeof(hdr) },
			{ .iov_base = (void *)msg, .iov_len = len },
		};
		struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };
		ssize_t n;

		do
			n = sendmsg(c->fd, &mh, MSG_NOSIGNAL);
		while (n < 0 && errno == EINTR);
		if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
			c->dead = true;	/* lost with its connection */
			return 0;
		}
		done = n < 0 ? 0 : (size_t)n;
	}
	if (done < total) {
		int ret = 0;

		if (done < sizeof(hdr))
			ret = buf_put(&c->out, (uint8_t *)&hdr + done,
				      sizeof(hdr) - done);
		if (!ret)
			ret = buf_put(&c->out, (const uint8_t *)msg +
				      (done > sizeof(hdr) ?
				       done - sizeof(hdr) : 0),
				      len - (done > sizeof(hdr) ?
					     done - sizeof(hdr) : 0));
		if (ret) {
			/* part of it went out: the stream is broken */
			c->dead = true;
			return 0;
		}
		conn_events(s, c);
	}
	s->st.msgs_out++;
	s->st.bytes_out += len;
	return 0;
}

/* an accepted connection named @node in its hello: adopt it */
static bool adopt(struct tcp *s, struct conn *c, uint32_t node)
{
	struct peer *p = peer_of(s, node);
	uint8_t h[HELLO_LEN];

	/* a stranger, a node that should be dialed by us, or ourselves */
	if (!p || node >= s->self)
		return false;
	if (p->c)		/* the newer connection wins: it restarted */
		peer_down(s, p);
	hello_fill(h, s->self, node);
	if (buf_put(&c->out, h, sizeof(h)))
		return false;
	pending_drop(s, c);
	c->node = node;
	c->state = C_UP;
	p->c = c;
	s->st.ups++;
	s->t.cb.peer(s->t.ctx, node, true);
	if (!conn_flush(s, c))
		c->dead = true;	/* closed at the end of the round */
	return true;
}

/*
 * Parse what arrived on @c: a hello while opening, then messages.
 * Return: false when the connection must close.
 */
static bool conn_parse(struct tcp *s, struct conn *c)
{
	struct buf *b = &c->in;

	if (c->state == C_HELLO) {
		uint32_t w[4];

		if (b->len - b->off < HELLO_LEN)
			return true;
		memcpy(w, b->p + b->off, HELLO_LEN);
		b->off += HELLO_LEN;
		if (le32toh(w[0]) != HELLO_MAGIC ||
		    le32toh(w[1]) != HELLO_VERSION ||
		    le32toh(w[3]) != s->self)
			return false;
		if (!c->dialed) {
			if (!adopt(s, c, le32toh(w[2])))
				return false;
		} else {
			struct peer *p = peer_of(s, c->node);

			if (le32toh(w[2]) != c->node || !p || p->c != c)
				return false;
			c->state = C_UP;
			s->st.ups++;
			s->t.cb.peer(s->t.ctx, c->node, true);
		}
	}
	while (c->state == C_UP && !c->dead && b->len - b->off >= 4) {
		uint32_t l;

		memcpy(&l, b->p + b->off, 4);
		l = le32toh(l);
		if (!l || l > s->max_msg) {
			s->st.protocol_errors++;
			return false;
		}
		if (b->len - b->off < 4 + (size_t)l)
			break;
		s->st.msgs_in++;
		s->st.bytes_in += l;
		s->delivered++;
		s->t.cb.msg(s->t.ctx, c->node, b->p + b->off + 4, l);
		b->off += 4 + (size_t)l;
	}
	return true;
}

/* read what is there; false when the connection must close */
static bool conn_read(struct tcp *s, struct conn *c)
{
	ssize_t n;

	if (buf_reserve(&c->in, READ_CHUNK))
		return false;
	do
		n = recv(c->fd, c->in.p + c->in.len, c->in.cap - c->in.len, 0);
	while (n < 0 && errno == EINTR);
	if (n == 0)
		return false;
	if (n < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK;
	c->in.len += (size_t)n;
	return conn_parse(s, c);
}

static void on_accept(struct tcp *s)
{
	for (;;) {
		int fd = accept4(s->lfd, NULL, NULL,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct conn *c;

		if (fd < 0)
			return;
		s->st.accepts++;
		if (s->npending >= MAX_PENDING) {	/* a flood */
			close(fd);
			s->st.refused++;
			continue;
		}
		if (s->npending == s->cap_pending) {
			unsigned int cap = s->cap_pending ? 2 * s->cap_pending
							  : 8;
			struct conn **pp = realloc(s->pending,
						   cap * sizeof(*pp));

			if (!pp) {
				close(fd);
				s->st.refused++;
				continue;
			}
			s->pending = pp;
			s->cap_pending = cap;
		}
		c = conn_new(s, fd, C_HELLO);
		if (!c) {
			close(fd);
			continue;
		}
		c->hello_by = txn_clock_ms() + HELLO_WAIT_MS;
		s->pending[s->npending++] = c;
	}
}

static void dial(struct tcp *s, struct peer *p)
{
	int fd = socket(p->addr.ss_family,
			SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	struct conn *c;

	p->next_dial = txn_clock_ms() + s->reconnect_ms;
	if (fd < 0)
		return;
	s->st.dials++;
	if (connect(fd, (struct sockaddr *)&p->addr, p->addr_len) &&
	    errno != EINPROGRESS) {
		close(fd);
		return;
	}
	c = conn_new(s, fd, C_DIALING);
	if (!c) {
		close(fd);
		return;
	}
	c->dialed = true;
	c->node = p->node;
	p->c = c;
}

/* a dialed connection became writable: connected, or failed */
static bool on_connected(struct tcp *s, struct conn *c)
{
	uint8_t h[HELLO_LEN];
	socklen_t l = sizeof(int);
	int err = 0;

	if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &l) || err)
		return false;
	c->state = C_HELLO;
	hello_fill(h, s->self, c->node);
	if (buf_put(&c->out, h, sizeof(h)))
		return false;
	return conn_flush(s, c);
}

static void conn_close(struct tcp *s, struct conn *c)
{
	struct peer *p = c->node ? peer_of(s, c->node) : NULL;
	unsigned int n = s->npending;

	if (p && p->c == c) {
		peer_down(s, p);
		return;
	}
	pending_drop(s, c);
	if (s->npending != n)
		s->st.refused++;
	conn_bury(s, c);
}

/* close the peers' connections that failed during this round */
static void reap(struct tcp *s)
{
	unsigned int i;

	for (i = 0; i < s->npeers; i++)
		if (s->peers[i].c && s->peers[i].c->dead)
			peer_down(s, &s->peers[i]);
}

static int tcp_poll(struct txn_transport *t, int timeout_ms)
{
	struct tcp *s = to_tcp(t);
	struct epoll_event ev[64];
	uint64_t now = 0, next = UINT64_MAX;	/* read when needed */
	unsigned int i;
	int n, k;

	for (i = 0; i < s->npeers; i++) {
		struct peer *p = &s->peers[i];

		if (s->self < p->node && !p->c) {
			if (!now)
				now = txn_clock_ms();
			if (p->next_dial <= now)
				dial(s, p);
			if (!p->c && p->next_dial < next)
				next = p->next_dial;
		}
	}
	for (i = 0; i < s->npending; i++)
		if (s->pending[i]->hello_by < next)
			next = s->pending[i]->hello_by;
	if (next != UINT64_MAX) {
		uint64_t wait;

		if (!now)
			now = txn_clock_ms();
		wait = next > now ? next - now : 0;
		if (timeout_ms < 0 || wait < (uint64_t)timeout_ms)
			timeout_ms = (int)wait;
	}
	s->delivered = 0;
	n = epoll_wait(s->ep, ev, 64, timeout_ms);
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	for (k = 0; k < n; k++) {
		struct conn *c = ev[k].data.ptr;
		bool ok = true;

		if (!c) {
			on_accept(s);
			continue;
		}
		if (c->dead)	/* failed earlier this round */
			continue;
		if (c->state == C_DIALING) {
			ok = on_connected(s, c);
		} else {
			if (ev[k].events & EPOLLOUT)
				ok = conn_flush(s, c);
			if (ok && (ev[k].events & (EPOLLIN | EPOLLHUP |
						   EPOLLERR)))
				ok = conn_read(s, c);
		}
		if (!ok)
			conn_close(s, c);
	}
	now = s->npending ? txn_clock_ms() : 0;
	for (i = 0; i < s->npending; )
		if (s->pending[i]->hello_by <= now) {
			struct conn *c = s->pending[i];

			s->pending[i] = s->pending[--s->npending];
			s->st.refused++;
			conn_bury(s, c);
		} else {
			i++;
		}
	reap(s);
	grave_empty(s);
	return s->delivered;
}

static int tcp_fd(const struct txn_transport *t)
{
	return to_tcp(t)->ep;
}

static void tcp_close(struct txn_transport *t)
{
	struct tcp *s = to_tcp(t);
	unsigned int i;

	for (i = 0; i < s->npeers; i++)
		if (s->peers[i].c)
			conn_free(s->peers[i].c);
	for (i = 0; i < s->npending; i++)
		conn_free(s->pending[i]);
	grave_empty(s);
	close(s->lfd);
	close(s->ep);
	free(s->peers);
	free(s->pending);
	free(s);
}

static const struct txn_transport_ops tcp_ops = {
	.name	= "tcp",
	.send	= tcp_send,
	.poll	= tcp_poll,
	.fd	= tcp_fd,
	.peer_up = txn_tcp_peer_up,
	.close	= tcp_close,
};

int txn_tcp_open(struct txn_transport **tp, const struct txn_tcp_cfg *cfg,
		 const struct txn_transport_cb *cb, void *ctx)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };
	struct tcp *s;
	int one = 1, ret;

	if (!tp || !cfg || !cb || !cb->msg || !cb->peer || !cfg->self ||
	    !cfg->listen || cfg->listen_len < sizeof(sa_family_t) ||
	    cfg->listen_len > sizeof(struct sockaddr_storage))
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->t.ops = &tcp_ops;
	s->t.cb = *cb;
	s->t.ctx = ctx;
	s->self = cfg->self;
	s->max_msg = cfg->max_msg ? cfg->max_msg : TXN_TCP_MAX_MSG_DEFAULT;
	s->max_queued = cfg->max_queued ? cfg->max_queued :
					  TXN_TCP_MAX_QUEUED_DEFAULT;
	s->reconnect_ms = cfg->reconnect_ms ? cfg->reconnect_ms :
					      TXN_TCP_RECONNECT_MS_DEFAULT;
	s->ep = epoll_create1(EPOLL_CLOEXEC);
	s->lfd = socket(cfg->listen->sa_family,
			SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->ep < 0 || s->lfd < 0)
		goto fail;
	setsockopt(s->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(s->lfd, cfg->listen, cfg->listen_len) ||
	    listen(s->lfd, 64) ||
	    epoll_ctl(s->ep, EPOLL_CTL_ADD, s->lfd, &ev))
		goto fail;
	*tp = &s->t;
	return 0;
fail:
	ret = -errno;
	if (s->lfd >= 0)
		close(s->lfd);
	if (s->ep >= 0)
		close(s->ep);
	free(s);
	return ret ? ret : -EIO;
}

int txn_tcp_add_peer(struct txn_transport *t, uint32_t node,
		     const struct sockaddr *addr, socklen_t addr_len)
{
	struct tcp *s;
	struct peer *p;

	if (!t || t->ops != &tcp_ops || !node || !addr ||
	    addr_len < sizeof(sa_family_t) ||
	    addr_len > sizeof(struct sockaddr_storage))
		return -EINVAL;
	s = to_tcp(t);
	if (node == s->self)
		return -EINVAL;
	if (peer_of(s, node))
		return -EEXIST;
	if (s->npeers == s->cap_peers) {
		unsigned int cap = s->cap_peers ? 2 * s->cap_peers : 8;

		p = realloc(s->peers, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		s->peers = p;
		s->cap_peers = cap;
	}
	p = &s->peers[s->npeers++];
	memset(p, 0, sizeof(*p));
	p->node = node;
	memcpy(&p->addr, addr, addr_len);
	p->addr_len = addr_len;
	return 0;
}

int txn_tcp_port(const struct txn_transport *t)
{
	struct sockaddr_storage ss;
	socklen_t l = sizeof(ss);

	if (!t || t->ops != &tcp_ops ||
	    getsockname(to_tcp(t)->lfd, (struct sockaddr *)&ss, &l))
		return -EINVAL;
	if (ss.ss_family == AF_INET)
		return ntohs(((struct sockaddr_in *)&ss)->sin_port);
	if (ss.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	return -EINVAL;
}

bool txn_tcp_peer_up(const struct txn_transport *t, uint32_t node)
{
	struct peer *p;

	if (!t || t->ops != &tcp_ops)
		return false;
	p = peer_of(to_tcp(t), node);
	return p && p->c && p->c->state == C_UP;
}

void txn_tcp_stats(const struct txn_transport *t, struct txn_tcp_stats *st)
{
	if (t && t->ops == &tcp_ops && st)
		*st = to_tcp(t)->st;
}
