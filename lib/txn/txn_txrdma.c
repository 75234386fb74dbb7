// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The transaction layer over txrdma endpoint pairs.
 *
 * One pair per pair of nodes, so a pair's messages stay in order (RC
 * delivers a SEND's frames in order, the receive ring publishes them in
 * order).  Node n listens on service service_base + n, so that several
 * nodes can share a host; of each pair the lower id connects, the
 * other accepts.  The peer is a txrdma peer, which proved the
 * administrator's key when it was added; the hello that the connector
 * sends first ({magic, version, its id, the id it meant}) only says
 * which node of that host it is, and the acceptor takes it only from a
 * peer name it was given for that node.
 *
 * Data path: a message is one SEND from this peer's send slots (the
 * caller's bytes are copied once into registered memory: records are
 * small and a batch is built anew per turn), and arrives in the
 * receiver's ring, where the callback reads it in place before the
 * frame is released: no copy on receipt, no system call on either side
 * while the kernel's poller is awake.  SEND completions come back in
 * posting order on a pair (RC), so a peer's slots are a ring: posted -
 * completed of them are in flight.
 *
 * Pairing blocks in the kernel (connect waits for the accept), so it
 * runs in a thread of its own that only makes ioctls; everything else,
 * the rings included, stays on the caller's thread.  The thread hands
 * pairs over through a locked queue and an eventfd that is in the
 * transport's epoll set beside the context's fd.  Accepting needs a
 * ring before anyone knows which node connects: the thread accepts
 * into a spare region, and the pair brings it to its peer once its
 * hello named the node.
 *
 * A peer is down when its ring returns an error or a SEND completes
 * with one: the pair is destroyed, the peer reported down, and the
 * connector dials again every redial_ms.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <txrdma.h>

#include "txn_clock.h"
#include "txn_txrdma.h"

#define HELLO_MAGIC	0x52585854u	/* "TXXR", little-endian */
#define HELLO_VERSION	1
#define HELLO_LEN	16
#define HELLO_WAIT_MS	2000
#define RING_SPAN	(2u << 20)	/* the ring's 2 MiB page */
#define CONNECT_MS	1000
#define ACCEPT_MS	100
#define MAX_PENDING	16
/* results the thread may owe at once: 8 dials, 8 export jobs, 1 accept */
#define MAX_RESULTS	32
#define MAX_BACKLOG	(8u << 20)	/* bytes queued per peer */
#define MAX_EXPORTS	4
#define EXPORT_MS	1000

struct rpeer {
	uint32_t node;
	char name[TXRDMA_PEER_NAME_MAX];
	struct txrdma_region r;	/* ring at 0, send slots at RING_SPAN */
	bool up;
	bool dialing;		/* a dial is with the pairing thread */
	struct txrdma_ep_pair ep;
	struct txrdma_rx rx;
	uint32_t gen;		/* pairs so far: tags its SENDs */
	uint64_t posted, completed;
	uint64_t next_dial;
	/*
	 * Ranges of xr.exp exported on this pair (in order), whether the
	 * pairing thread is at it, when to try again after a failure
	 */
	unsigned int nexported;
	bool exporting;
	uint64_t next_export;
	/*
	 * Messages waiting for a send slot (or an SQE), each a 32-bit
	 * length then its bytes, in order; at most max_backlog bytes.
	 */
	uint8_t *bl;
	size_t bl_off, bl_len, bl_cap;
};

/* an accepted pair waiting for its hello */
struct pend {
	struct txrdma_ep_pair ep;
	struct txrdma_region r;
	struct txrdma_rx rx;
	uint64_t by;
};

/* what the pairing thread hands over */
struct result {
	int ret;
	bool accepted;
	bool exported;		/* an export job's: @idx, @gen, @nexported */
	uint32_t gen;
	unsigned int nexported;	/* ranges of xr.exp exported on it */
	uint32_t idx;		/* dial: the peer */
	struct txrdma_ep_pair ep;
	struct txrdma_region r;	/* accept: the spare it used */
};

struct xr {
	struct txn_transport t;
	struct txn_txrdma_cfg cfg;
	struct txrdma_ctx *ctx;
	struct txrdma_sq sq;
	struct txrdma_cq cq;
	int ep, efd;
	uint64_t region_size;
	struct rpeer *peers;
	unsigned int npeers, cap_peers;
	struct pend pend[MAX_PENDING];
	unsigned int npend;
	struct txrdma_region *spares;	/* regions for accepts */
	unsigned int nspares, cap_spares;
	struct txn_txrdma_stats st;
	int delivered;

	/*
	 * One-sided operations beside the messages (txn_txrdma.h).  The
	 * ranges to export only grow: written under lock, by this thread.
	 */
	struct { uint32_t region; uint64_t off, len; } exp[MAX_EXPORTS];
	unsigned int nexp;
	void (*hook)(void *arg, const struct txrdma_cqe *cqe);
	void *hook_arg;

	/* shared with the pairing thread, under lock */
	pthread_t thr;
	bool thr_started;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stop;
	bool accepting;		/* some peer dials us */
	bool spare_ready;
	struct txrdma_region spare;	/* the thread accepts into it */
	struct { uint32_t idx; char name[TXRDMA_PEER_NAME_MAX];
		 uint32_t service, region; } dial[8];
	unsigned int ndial;
	/* pairs to export ranges on, from range @from on */
	struct { uint32_t idx, gen, ep; unsigned int from; } xjob[8];
	unsigned int nxjob;
	struct result res[MAX_RESULTS];
	unsigned int nres;
	/*
	 * Set by the thread with a result or a spare taken, read without
	 * the lock on every poll: the steady state makes no system call
	 * and takes no lock for pairing.
	 */
	int news;
};

static struct xr *to_xr(const struct txn_transport *t)
{
	return (struct xr *)t;
}

static struct txrdma_ep_params params(const struct xr *x, uint32_t service,
				      uint32_t region)
{
	return (struct txrdma_ep_params) {
		.service = service,
		.flags = x->cfg.ep_flags,
		.rx_region = region,
		.rx_off = 0,
		.rx_units = 0,	/* sized by the library for rx_max_msg */
		.timeout_ms = CONNECT_MS,
		.rx_max_msg = x->cfg.max_msg,
	};
}

/* ---- the pairing thread --------------------------------------------- */

static void post_result(struct xr *x, const struct result *r)
{
	uint64_t one = 1;

	/*
	 * Room for every result the thread can owe at once (MAX_RESULTS):
	 * a dial or export job is queued only while its result is not
	 * pending, and one accept runs at a time
	 */
	if (x->nres < sizeof(x->res) / sizeof(x->res[0]))
		x->res[x->nres++] = *r;
	__atomic_store_n(&x->news, 1, __ATOMIC_RELEASE);
	if (write(x->efd, &one, sizeof(one)) < 0) {
		/* the counter is full: the main loop is awake anyway */
	}
}

/*
 * The pairing thread exports the ranges of txn_txrdma_export() on the
 * pairs the caller's thread asks for (export_due(): a pair once it is
 * up, the hello sent or taken; a range added later; a failure to try
 * again).  An export waits for the other module (a control round
 * trip), so it stays off the caller's thread, and after the hello, so
 * that it never delays one past the acceptor's HELLO_WAIT_MS.  Called
 * and returning with the lock held.  Return: the ranges now exported
 * (in order: a failure stops there).
 */
static unsigned int export_new(struct xr *x, uint32_t ep, unsigned int from)
{
	unsigned int i, n = x->nexp;
	typeof(x->exp[0]) exp[MAX_EXPORTS];

	memcpy(exp, x->exp, n * sizeof(exp[0]));
	pthread_mutex_unlock(&x->lock);
	for (i = from; i < n; i++) {
		const struct txrdma_export_info e = {
			.region = exp[i].region,
			.access = TXRDMA_EXPORT_READ,
			.off = exp[i].off,
			.len = exp[i].len,
		};

		if (txrdma_ep_export(x->ctx, ep, &e, EXPORT_MS))
			break;
	}
	pthread_mutex_lock(&x->lock);
	return i;
}

static void *pairing(void *arg)
{
	struct xr *x = arg;

	pthread_mutex_lock(&x->lock);
	while (!x->stop) {
		struct result r = { 0 };

		if (x->ndial) {
			typeof(x->dial[0]) d = x->dial[0];
			struct txrdma_ep_params p = params(x, d.service,
							   d.region);

			memmove(x->dial, x->dial + 1,
				--x->ndial * sizeof(x->dial[0]));
			pthread_mutex_unlock(&x->lock);
			r.ret = txrdma_ep_connect(x->ctx, d.name, &p, &r.ep);
			r.idx = d.idx;
			pthread_mutex_lock(&x->lock);
			post_result(x, &r);
			continue;
		}
		if (x->nxjob) {
			typeof(x->xjob[0]) j = x->xjob[0];

			memmove(x->xjob, x->xjob + 1,
				--x->nxjob * sizeof(x->xjob[0]));
			r.exported = true;
			r.idx = j.idx;
			r.gen = j.gen;
			r.nexported = export_new(x, j.ep, j.from);
			post_result(x, &r);
			continue;
		}
		if (x->accepting && x->spare_ready) {
			struct txrdma_ep_params p =
				params(x, x->cfg.service_base + x->cfg.self,
				       x->spare.id);

			p.timeout_ms = ACCEPT_MS;
			r.r = x->spare;
			pthread_mutex_unlock(&x->lock);
			r.ret = txrdma_ep_accept(x->ctx, &p, &r.ep);
			pthread_mutex_lock(&x->lock);
			if (!r.ret) {
				r.accepted = true;
				x->spare_ready = false;
				post_result(x, &r);
			}
			continue;
		}
		pthread_cond_wait(&x->cond, &x->lock);
	}
	pthread_mutex_unlock(&x->lock);
	return NULL;
}

/* ---- peers ---------------------------------------------------------- */

static struct rpeer *peer_of(struct xr *x, uint32_t node)
{
	unsigned int i;

	for (i = 0; i < x->npeers; i++)
		if (x->peers[i].node == node)
			return &x->peers[i];
	return NULL;
}

static void peer_down(struct xr *x, struct rpeer *p)
{
	if (!p->up)
		return;
	txrdma_ep_destroy(x->ctx, p->ep.id);
	p->up = false;
	p->bl_off = p->bl_len = 0;	/* lost with the pair, as TCP's queue */
	p->next_dial = txn_clock_ms() + x->cfg.redial_ms;
	x->st.downs++;
	x->t.cb.peer(x->t.ctx, p->node, false);
}

static void peer_up(struct xr *x, struct rpeer *p,
		    const struct txrdma_ep_pair *ep)
{
	p->ep = *ep;
	p->gen++;
	p->posted = p->completed = 0;
	p->up = true;
	/* export_due() has the pairing thread export on it */
	p->nexported = 0;
	p->exporting = false;
	p->next_export = 0;
	x->st.ups++;
	x->t.cb.peer(x->t.ctx, p->node, true);
}

/*
 * A SEND's user_data: the pair's generation (24 bits) and the peer's
 * index (16 bits), so that the top 24 bits stay 0 and a one-sided
 * operation's (txn_txrdma_cqe_hook()) are told apart.
 */
#define TAG_GEN(g)	((uint64_t)((g) & 0xffffff) << 16)

static uint64_t tag(const struct xr *x, const struct rpeer *p)
{
	return TAG_GEN(p->gen) | (uint64_t)(p - x->peers);
}

/* one SEND of @len bytes from @p's next slot */
static int post(struct xr *x, struct rpeer *p, const void *msg, size_t len)
{
	uint64_t off = RING_SPAN + (p->posted % x->cfg.depth) *
				   (uint64_t)x->cfg.max_msg;
	struct txrdma_sqe *sqe;

	if (p->posted - p->completed >= x->cfg.depth)
		return -ENOBUFS;
	sqe = txrdma_get_sqe(&x->sq);
	if (!sqe)
		return -ENOBUFS;
	memcpy((uint8_t *)p->r.addr + off, msg, len);
	txrdma_prep_send(sqe, p->ep.id, p->r.id, off, (uint32_t)len,
			 tag(x, p));
	p->posted++;
	txrdma_submit(x->ctx, &x->sq);
	return 0;
}

/* the backlog's first messages, as slots and SQEs allow */
static void backlog_drain(struct xr *x, struct rpeer *p)
{
	while (p->up && p->bl_len > p->bl_off) {
		uint32_t l;

		memcpy(&l, p->bl + p->bl_off, 4);
		if (post(x, p, p->bl + p->bl_off + 4, l))
			return;
		p->bl_off += 4 + (size_t)l;
	}
	p->bl_off = p->bl_len = 0;
}

static int backlog_put(struct xr *x, struct rpeer *p, const void *msg,
		       size_t len)
{
	uint32_t l = (uint32_t)len;

	if (p->bl_len - p->bl_off + 4 + len > MAX_BACKLOG) {
		x->st.full++;
		return -ENOBUFS;
	}
	if (p->bl_cap - p->bl_len < 4 + len) {
		size_t live = p->bl_len - p->bl_off, cap = p->bl_cap;
		uint8_t *b;

		memmove(p->bl, p->bl + p->bl_off, live);
		p->bl_off = 0;
		p->bl_len = live;
		while (cap - live < 4 + len)
			cap = cap ? 2 * cap : 65536;
		if (cap != p->bl_cap) {
			b = realloc(p->bl, cap);
			if (!b)
				return -ENOBUFS;
			p->bl = b;
			p->bl_cap = cap;
		}
	}
	memcpy(p->bl + p->bl_len, &l, 4);
	memcpy(p->bl + p->bl_len + 4, msg, len);
	p->bl_len += 4 + len;
	x->st.queued++;
	return 0;
}

static int xr_send(struct txn_transport *t, uint32_t node, const void *msg,
		   size_t len)
{
	struct xr *x = to_xr(t);
	struct rpeer *p = peer_of(x, node);
	int ret;

	if (!p || !msg || !len || len > x->cfg.max_msg)
		return -EINVAL;
	if (!p->up)
		return -ENOTCONN;
	if (len > p->ep.max_msg)	/* the peer's ring takes less */
		return -EINVAL;
	/* behind queued ones, or when the slots are full: queue it */
	ret = p->bl_len > p->bl_off ? -ENOBUFS : post(x, p, msg, len);
	if (ret == -ENOBUFS)
		ret = backlog_put(x, p, msg, len);
	if (!ret) {
		x->st.msgs_out++;
		x->st.bytes_out += len;
	}
	return ret;
}

/* ---- the main loop's side of pairing -------------------------------- */

static int spare_get(struct xr *x, struct txrdma_region *r)
{
	if (x->nspares) {
		*r = x->spares[--x->nspares];
		return 0;
	}
	return txrdma_region_create(x->ctx, x->region_size, 0, r);
}

static void spare_put(struct xr *x, const struct txrdma_region *r)
{
	if (x->nspares == x->cap_spares) {
		unsigned int cap = x->cap_spares ? 2 * x->cap_spares : 4;
		struct txrdma_region *s = realloc(x->spares, cap * sizeof(*s));

		if (!s) {
			struct txrdma_region c = *r;

			txrdma_region_destroy(x->ctx, &c);
			return;
		}
		x->spares = s;
		x->cap_spares = cap;
	}
	x->spares[x->nspares++] = *r;
}

/* give the pairing thread a region to accept into, if it needs one */
static void feed_spare(struct xr *x)
{
	struct txrdma_region r;
	bool need;

	pthread_mutex_lock(&x->lock);
	need = x->accepting && !x->spare_ready;
	pthread_mutex_unlock(&x->lock);
	if (!need || spare_get(x, &r))
		return;
	pthread_mutex_lock(&x->lock);
	x->spare = r;
	x->spare_ready = true;
	pthread_cond_signal(&x->cond);
	pthread_mutex_unlock(&x->lock);
}

static void send_hello(struct xr *x, struct rpeer *p)
{
	uint32_t h[4] = {
		htole32(HELLO_MAGIC), htole32(HELLO_VERSION),
		htole32(x->cfg.self), htole32(p->node),
	};

	if (post(x, p, h, sizeof(h)))
		peer_down(x, p);
}

static void take_results(struct xr *x)
{
	struct result res[MAX_RESULTS];
	unsigned int n, i;
	uint64_t v;

	if (!__atomic_exchange_n(&x->news, 0, __ATOMIC_ACQUIRE))
		return;
	if (read(x->efd, &v, sizeof(v)) < 0) {
		/* nothing new: EAGAIN */
	}
	feed_spare(x);
	pthread_mutex_lock(&x->lock);
	n = x->nres;
	memcpy(res, x->res, n * sizeof(res[0]));
	x->nres = 0;
	pthread_mutex_unlock(&x->lock);
	for (i = 0; i < n; i++) {
		struct result *r = &res[i];

		if (r->exported) {
			struct rpeer *p = r->idx < x->npeers ?
					  &x->peers[r->idx] : NULL;

			/* for a pair since replaced: its successor asks anew */
			if (!p || !p->up || p->gen != r->gen || !p->exporting)
				continue;
			p->exporting = false;
			if (r->nexported > p->nexported) {
				x->st.exports += r->nexported - p->nexported;
				p->nexported = r->nexported;
			}
			if (p->nexported < x->nexp) {
				x->st.export_errors++;
				p->next_export = txn_clock_ms() +
						 x->cfg.redial_ms;
			}
			continue;
		}
		if (r->accepted) {
			struct pend *q;

			x->st.accepts++;
			if (x->npend == MAX_PENDING) {
				txrdma_ep_destroy(x->ctx, r->ep.id);
				spare_put(x, &r->r);
				x->st.refused++;
				continue;
			}
			q = &x->pend[x->npend];
			q->ep = r->ep;
			q->r = r->r;
			q->by = txn_clock_ms() + HELLO_WAIT_MS;
			if (txrdma_rx_init(&q->rx, x->ctx, &x->sq, q->r.addr,
					   q->ep.rx_units)) {
				txrdma_ep_destroy(x->ctx, r->ep.id);
				spare_put(x, &r->r);
				continue;
			}
			x->npend++;
			continue;
		}
		if (r->idx >= x->npeers)
			continue;
		x->peers[r->idx].dialing = false;
		if (r->ret) {
			x->peers[r->idx].next_dial = txn_clock_ms() +
						     x->cfg.redial_ms;
			x->st.dial_errors++;
			x->st.last_dial_error = r->ret;
			continue;
		}
		if (txrdma_rx_init(&x->peers[r->idx].rx, x->ctx, &x->sq,
				   x->peers[r->idx].r.addr, r->ep.rx_units)) {
			txrdma_ep_destroy(x->ctx, r->ep.id);
			continue;
		}
		peer_up(x, &x->peers[r->idx], &r->ep);
		send_hello(x, &x->peers[r->idx]);
	}
}

static void pend_drop(struct xr *x, unsigned int i, bool refused)
{
	txrdma_ep_destroy(x->ctx, x->pend[i].ep.id);
	spare_put(x, &x->pend[i].r);
	if (refused)
		x->st.refused++;
	x->pend[i] = x->pend[--x->npend];
}

/* accepted pairs: a hello makes one a peer's */
static void check_pending(struct xr *x)
{
	uint64_t now = x->npend ? txn_clock_ms() : 0;
	unsigned int i = 0;

	while (i < x->npend) {
		struct pend *q = &x->pend[i];
		const void *msg;
		uint32_t h[4];
		struct rpeer *p;
		__u32 len;
		int ret = txrdma_rx_peek(&q->rx, &msg, &len);

		if (ret == 0) {
			if (q->by <= now)
				pend_drop(x, i, true);
			else
				i++;
			continue;
		}
		if (ret < 0 || len != HELLO_LEN) {
			pend_drop(x, i, true);
			continue;
		}
		memcpy(h, msg, sizeof(h));
		txrdma_rx_release(&q->rx);
		p = peer_of(x, le32toh(h[2]));
		if (le32toh(h[0]) != HELLO_MAGIC ||
		    le32toh(h[1]) != HELLO_VERSION ||
		    le32toh(h[3]) != x->cfg.self || !p ||
		    p->node >= x->cfg.self ||
		    strncmp(p->name, q->ep.peer, sizeof(p->name))) {
			pend_drop(x, i, true);
			continue;
		}
		/* a newer pair from a peer replaces the older (it came back) */
		peer_down(x, p);
		spare_put(x, &p->r);
		p->r = q->r;
		p->rx = q->rx;
		peer_up(x, p, &q->ep);
		x->pend[i] = x->pend[--x->npend];
	}
}

/* a SEND of ours completed */
static void send_done(struct xr *x, uint64_t ud, int res)
{
	uint32_t idx = (uint32_t)(ud & 0xffff);

	if (idx >= x->npeers || TAG_GEN(x->peers[idx].gen) != (ud & ~0xffffULL))
		return;	/* a pair gone since */
	x->peers[idx].completed++;
	if (res < 0) {
		x->st.send_errors++;
		peer_down(x, &x->peers[idx]);
	}
}

static void reap_cq(struct xr *x)
{
	struct txrdma_cqe *cqe;
	uint32_t idx;

	while ((cqe = txrdma_peek_cqe(&x->cq))) {
		struct txrdma_cqe c = *cqe;

		txrdma_cq_advance(&x->cq, 1);
		/* our user_data has its top 24 bits 0 (tag()) */
		if (c.user_data >> 40) {
			x->st.foreign_cqes++;
			if (x->hook)
				x->hook(x->hook_arg, &c);
			continue;
		}
		send_done(x, c.user_data, c.res);
	}
	for (idx = 0; idx < x->npeers; idx++)
		if (x->peers[idx].bl_len > x->peers[idx].bl_off)
			backlog_drain(x, &x->peers[idx]);
}

static void receive(struct xr *x)
{
	unsigned int i;

	for (i = 0; i < x->npeers; i++) {
		struct rpeer *p = &x->peers[i];
		const void *msg;
		__u32 len;
		int ret;

		while (p->up && (ret = txrdma_rx_peek(&p->rx, &msg, &len))) {
			if (ret < 0) {
				peer_down(x, p);
				break;
			}
			x->st.msgs_in++;
			x->st.bytes_in += len;
			x->delivered++;
			x->t.cb.msg(x->t.ctx, p->node, msg, len);
			txrdma_rx_release(&p->rx);
		}
	}
}

/* pairs that lack a range: the pairing thread exports it */
static void export_due(struct xr *x)
{
	uint64_t now = 0;
	unsigned int i;

	for (i = 0; i < x->npeers; i++) {
		struct rpeer *p = &x->peers[i];

		if (!p->up || p->exporting || p->nexported >= x->nexp)
			continue;
		if (!now)
			now = txn_clock_ms();
		if (p->next_export > now)
			continue;
		pthread_mutex_lock(&x->lock);
		if (x->nxjob < sizeof(x->xjob) / sizeof(x->xjob[0])) {
			x->xjob[x->nxjob].idx = i;
			x->xjob[x->nxjob].gen = p->gen;
			x->xjob[x->nxjob].ep = p->ep.id;
			x->xjob[x->nxjob].from = p->nexported;
			x->nxjob++;
			p->exporting = true;
			pthread_cond_signal(&x->cond);
		}
		pthread_mutex_unlock(&x->lock);
	}
}

static void dial_due(struct xr *x, uint64_t *next)
{
	uint64_t now = 0;	/* read only for a peer to dial */
	unsigned int i;

	for (i = 0; i < x->npeers; i++) {
		struct rpeer *p = &x->peers[i];

		if (x->cfg.self > p->node || p->up || p->dialing)
			continue;
		if (!now)
			now = txn_clock_ms();
		if (p->next_dial > now) {
			if (p->next_dial < *next)
				*next = p->next_dial;
			continue;
		}
		pthread_mutex_lock(&x->lock);
		if (x->ndial < sizeof(x->dial) / sizeof(x->dial[0])) {
			x->dial[x->ndial].idx = i;
			memcpy(x->dial[x->ndial].name, p->name,
			       sizeof(p->name));
			x->dial[x->ndial].service = x->cfg.service_base +
						    p->node;
			x->dial[x->ndial].region = p->r.id;
			x->ndial++;
			p->dialing = true;
			x->st.dials++;
			pthread_cond_signal(&x->cond);
		}
		pthread_mutex_unlock(&x->lock);
	}
}

static int xr_poll(struct txn_transport *t, int timeout_ms)
{
	struct xr *x = to_xr(t);
	uint64_t next = UINT64_MAX, now;
	struct epoll_event ev[4];
	int round;

	x->delivered = 0;
	for (round = 0; round < 2; round++) {
		take_results(x);
		check_pending(x);
		reap_cq(x);
		receive(x);
		export_due(x);
		dial_due(x, &next);
		if (x->delivered || !timeout_ms || round)
			break;
		/* nothing yet: sleep until the kernel or the thread wakes us */
		now = txn_clock_ms();
		if (x->npend && timeout_ms != 0)
			next = next < now + 10 ? next : now + 10;
		if (next != UINT64_MAX) {
			uint64_t w = next > now ? next - now : 0;

			if (timeout_ms < 0 || w < (uint64_t)timeout_ms)
				timeout_ms = (int)w;
		}
		if (txrdma_sq_needs_wakeup(&x->sq))
			txrdma_rings_enter(x->ctx);
		if (epoll_wait(x->ep, ev, 4, timeout_ms) < 0 && errno != EINTR)
			return -errno;
	}
	return x->delivered;
}

static int xr_fd(const struct txn_transport *t)
{
	return to_xr(t)->ep;
}

static void xr_close(struct txn_transport *t)
{
	struct xr *x = to_xr(t);
	unsigned int i;

	if (x->thr_started) {
		pthread_mutex_lock(&x->lock);
		x->stop = true;
		pthread_cond_signal(&x->cond);
		pthread_mutex_unlock(&x->lock);
		pthread_join(x->thr, NULL);
	}
	/* unmap, then closing the context destroys pairs and regions */
	for (i = 0; i < x->npeers; i++) {
		txrdma_region_close(&x->peers[i].r);
		free(x->peers[i].bl);
	}
	for (i = 0; i < x->npend; i++)
		txrdma_region_close(&x->pend[i].r);
	for (i = 0; i < x->nspares; i++)
		txrdma_region_close(&x->spares[i]);
	if (x->spare_ready)
		txrdma_region_close(&x->spare);
	if (x->ctx)
		txrdma_close(x->ctx);
	if (x->ep >= 0)
		close(x->ep);
	if (x->efd >= 0)
		close(x->efd);
	pthread_mutex_destroy(&x->lock);
	pthread_cond_destroy(&x->cond);
	free(x->peers);
	free(x->spares);
	free(x);
}

static const struct txn_transport_ops xr_ops = {
	.name	= "txrdma",
	.send	= xr_send,
	.poll	= xr_poll,
	.fd	= xr_fd,
	.peer_up = txn_txrdma_peer_up,
	.close	= xr_close,
};

int txn_txrdma_open(struct txn_transport **tp, const struct txn_txrdma_cfg *cfg,
		    const struct txn_transport_cb *cb, void *ctx)
{
	struct epoll_event ev = { .events = EPOLLIN };
	uint64_t slots;
	struct xr *x;
	int ret;

	if (!tp || !cfg || !cb || !cb->msg || !cb->peer || !cfg->self ||
	    !cfg->service_base || cfg->max_msg > TXN_TXRDMA_MAX_MSG_MAX ||
	    cfg->service_base + (uint64_t)cfg->self > UINT32_MAX)
		return -EINVAL;
	x = calloc(1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	x->t.ops = &xr_ops;
	x->t.cb = *cb;
	x->t.ctx = ctx;
	x->cfg = *cfg;
	if (!x->cfg.max_msg)
		x->cfg.max_msg = TXN_TXRDMA_MAX_MSG_DEFAULT;
	if (!x->cfg.depth)
		x->cfg.depth = TXN_TXRDMA_DEPTH_DEFAULT;
	if (!x->cfg.redial_ms)
		x->cfg.redial_ms = TXN_TXRDMA_REDIAL_MS_DEFAULT;
	slots = (uint64_t)x->cfg.depth * x->cfg.max_msg;
	x->region_size = RING_SPAN + ((slots + RING_SPAN - 1) / RING_SPAN) *
				     RING_SPAN;
	x->ep = x->efd = -1;
	pthread_mutex_init(&x->lock, NULL);
	pthread_cond_init(&x->cond, NULL);
	if (txrdma_rx_area_size(txrdma_rx_units_for(x->cfg.max_msg)) >
	    RING_SPAN / 2) {
		ret = -EINVAL;
		goto fail;
	}
	ret = txrdma_open(&x->ctx, 0);
	if (ret)
		goto fail;
	ret = txrdma_rings_setup(x->ctx, 256, 0, &x->sq, &x->cq);
	if (!ret)
		ret = txrdma_ep_listen(x->ctx, cfg->service_base + cfg->self);
	if (ret)
		goto fail;
	x->ep = epoll_create1(EPOLL_CLOEXEC);
	x->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (x->ep < 0 || x->efd < 0) {
		ret = -errno;
		goto fail;
	}
	ev.data.fd = txrdma_fd(x->ctx);
	if (epoll_ctl(x->ep, EPOLL_CTL_ADD, txrdma_fd(x->ctx), &ev)) {
		ret = -errno;
		goto fail;
	}
	ev.data.fd = x->efd;
	if (epoll_ctl(x->ep, EPOLL_CTL_ADD, x->efd, &ev)) {
		ret = -errno;
		goto fail;
	}
	ret = -pthread_create(&x->thr, NULL, pairing, x);
	if (ret)
		goto fail;
	x->thr_started = true;
	*tp = &x->t;
	return 0;
fail:
	xr_close(&x->t);
	return ret;
}

int txn_txrdma_add_peer(struct txn_transport *t, uint32_t node,
			const char *peer_name)
{
	struct rpeer *p;
	struct xr *x;
	int ret;

	if (!t || t->ops != &xr_ops || !node || !peer_name || !*peer_name ||
	    strlen(peer_name) >= TXRDMA_PEER_NAME_MAX)
		return -EINVAL;
	x = to_xr(t);
	if (node == x->cfg.self ||
	    x->cfg.service_base + (uint64_t)node > UINT32_MAX)
		return -EINVAL;
	if (peer_of(x, node))
		return -EEXIST;
	if (x->npeers == 0x10000)	/* tag()'s 16 bits */
		return -ENOSPC;
	if (x->npeers == x->cap_peers) {
		unsigned int cap = x->cap_peers ? 2 * x->cap_peers : 8;

		p = realloc(x->peers, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		x->peers = p;
		x->cap_peers = cap;
	}
	p = &x->peers[x->npeers];
	memset(p, 0, sizeof(*p));
	p->node = node;
	strcpy(p->name, peer_name);
	ret = txrdma_region_create(x->ctx, x->region_size, 0, &p->r);
	if (ret)
		return ret;
	x->npeers++;
	if (node < x->cfg.self) {
		pthread_mutex_lock(&x->lock);
		x->accepting = true;
		pthread_mutex_unlock(&x->lock);
		feed_spare(x);
	}
	return 0;
}

bool txn_txrdma_peer_up(const struct txn_transport *t, uint32_t node)
{
	struct rpeer *p;

	if (!t || t->ops != &xr_ops)
		return false;
	p = peer_of(to_xr(t), node);
	return p && p->up;
}

void txn_txrdma_stats(const struct txn_transport *t,
		      struct txn_txrdma_stats *s)
{
	if (t && t->ops == &xr_ops && s)
		*s = to_xr(t)->st;
}

int txn_txrdma_rings(struct txn_transport *t, struct txrdma_ctx **ctx,
		     struct txrdma_sq **sq, struct txrdma_cq **cq)
{
	struct xr *x;

	if (!t || t->ops != &xr_ops)
		return -EINVAL;
	x = to_xr(t);
	if (ctx)
		*ctx = x->ctx;
	if (sq)
		*sq = &x->sq;
	if (cq)
		*cq = &x->cq;
	return 0;
}

void txn_txrdma_cqe_hook(struct txn_transport *t,
			 void (*fn)(void *arg, const struct txrdma_cqe *cqe),
			 void *arg)
{
	if (!t || t->ops != &xr_ops)
		return;
	to_xr(t)->hook = fn;
	to_xr(t)->hook_arg = arg;
}

int txn_txrdma_pair(const struct txn_transport *t, uint32_t node,
		    uint32_t *ep, uint32_t *gen)
{
	const struct rpeer *p;

	if (!t || t->ops != &xr_ops)
		return -EINVAL;
	p = peer_of(to_xr(t), node);
	if (!p)
		return -EINVAL;
	if (!p->up)
		return -ENOTCONN;
	if (ep)
		*ep = p->ep.id;
	if (gen)
		*gen = p->gen;
	return 0;
}

int txn_txrdma_export(struct txn_transport *t, uint32_t region, uint64_t off,
		      uint64_t len)
{
	struct xr *x;

	if (!t || t->ops != &xr_ops || !len)
		return -EINVAL;
	x = to_xr(t);
	if (x->nexp == MAX_EXPORTS)
		return -ENOSPC;
	/* the pairs up now get it from the next poll (export_due()) */
	pthread_mutex_lock(&x->lock);
	x->exp[x->nexp].region = region;
	x->exp[x->nexp].off = off;
	x->exp[x->nexp].len = len;
	x->nexp++;
	pthread_mutex_unlock(&x->lock);
	return 0;
}
