// SPDX-License-Identifier: GPL-2.0-only
/*
 * The attacker's tools for rogue_peer.c (see rogue_cm.h): keys and
 * HMAC-SHA256 over AF_ALG, the handshake's wire formats written from
 * their description in kmod/txrdma_peer_wire.c and kmod/txrdma_auth.c,
 * and RC connections to the module's rdma_cm port with a QP of our own.
 * Every wait is bounded.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <linux/if_alg.h>
#include <netinet/in.h>

#include "rogue_cm.h"

#ifndef SOL_ALG
#define SOL_ALG 279
#endif

double rg_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void rg_random(void *p, size_t len)
{
	uint8_t *b = p;

	while (len) {
		ssize_t n = getrandom(b, len, 0);

		if (n <= 0)
			continue;
		b += n;
		len -= n;
	}
}

/* ---- keys and MACs ------------------------------------------------- */

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int rg_key_load(const char *path, struct rg_key *k)
{
	char text[512];
	size_t n, i, digits = 0;
	int hi = -1, v;
	FILE *f = fopen(path, "r");

	memset(k, 0, sizeof(*k));
	if (!f)
		return -errno;
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = 0;
	for (i = 0; i < n; i++) {
		if (text[i] == '\n' || text[i] == ' ' || text[i] == '\r' ||
		    text[i] == '\t')
			continue;
		v = hexval(text[i]);
		if (v < 0 || k->len == RG_KEY_MAX)
			return -EINVAL;
		digits++;
		if (hi < 0) {
			hi = v;
		} else {
			k->b[k->len++] = hi << 4 | v;
			hi = -1;
		}
	}
	/* as txrdma-admin: 32 to 128 hex digits */
	if (hi >= 0 || digits < 32)
		return -EINVAL;
	return 0;
}

void rg_key_random(struct rg_key *k, size_t len)
{
	k->len = len > RG_KEY_MAX ? RG_KEY_MAX : len;
	rg_random(k->b, k->len);
}

int rg_hmac(const struct rg_key *k, const char *label, const void *d1,
	    size_t l1, const void *d2, size_t l2, uint8_t out[RG_MAC_LEN])
{
	struct sockaddr_alg sa = {
		.salg_family = AF_ALG,
		.salg_type = "hash",
		.salg_name = "hmac(sha256)",
	};
	uint8_t msg[512];
	size_t n = strlen(label);
	int s, op = -1, ret = 0;

	if (n + l1 + l2 > sizeof(msg))
		return -E2BIG;
	memcpy(msg, label, n);
	if (d1)
		memcpy(msg + n, d1, l1), n += l1;
	if (d2)
		memcpy(msg + n, d2, l2), n += l2;
	s = socket(AF_ALG, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -errno;
	if (bind(s, (struct sockaddr *)&sa, sizeof(sa)) ||
	    setsockopt(s, SOL_ALG, ALG_SET_KEY, k->b, k->len)) {
		ret = -errno;
		goto out;
	}
	op = accept4(s, NULL, NULL, SOCK_CLOEXEC);
	if (op < 0) {
		ret = -errno;
		goto out;
	}
	if (write(op, msg, n) != (ssize_t)n ||
	    read(op, out, RG_MAC_LEN) != RG_MAC_LEN)
		ret = errno ? -errno : -EIO;
out:
	if (op >= 0)
		close(op);
	close(s);
	return ret;
}

/* ---- wire formats -------------------------------------------------- */

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
}

/*
 * Request (48 bytes): magic, version, kind, pool_want (u16), boot_id
 * (u32), 4 reserved zero bytes, a 16-byte nonce, a 16-byte MAC.
 */
void rg_req_v2(uint8_t out[RG_REQ_LEN], uint8_t version, uint8_t kind,
	       uint16_t want, uint32_t boot_id)
{
	memset(out, 0, RG_REQ_LEN);
	put32(out, RG_MAGIC);
	out[4] = version;
	out[5] = kind;
	put16(out + 6, want);
	put32(out + 8, boot_id);
	rg_random(out + 16, 16);
}

int rg_req_seal(uint8_t req[RG_REQ_LEN], const struct rg_key *k)
{
	uint8_t mac[RG_MAC_LEN];
	int ret = rg_hmac(k, "txrdma-req", req, RG_HS_LEN, NULL, 0, mac);

	if (!ret)
		memcpy(req + RG_HS_LEN, mac, RG_REQ_MAC_LEN);
	return ret;
}

/* Today's main: magic, version 1, kind, pool_want, boot_id, zeroes. */
void rg_req_v1(uint8_t out[RG_REQ_V1_LEN], uint8_t kind, uint16_t want,
	       uint32_t boot_id)
{
	memset(out, 0, RG_REQ_V1_LEN);
	put32(out, RG_MAGIC);
	out[4] = 1;
	out[5] = kind;
	put16(out + 6, want);
	put32(out + 8, boot_id);
}

/*
 * Reply (64 bytes): magic, version, kind, 2 reserved, boot_id, 4
 * reserved, nonce, MAC_K("txrdma-rep" | REQ[0..32) | REP[0..32)).
 */
int rg_rep_check(const uint8_t *rep, size_t len,
		 const uint8_t req[RG_REQ_LEN], uint8_t kind,
		 const struct rg_key *k)
{
	static const uint8_t zero[4];
	uint8_t mac[RG_MAC_LEN];
	int ret;

	if (len < RG_REP_LEN || get32(rep) != RG_MAGIC || rep[4] != RG_VERSION ||
	    rep[5] != kind || memcmp(rep + 6, zero, 2) ||
	    memcmp(rep + 12, zero, 4))
		return -EINVAL;
	ret = rg_hmac(k, "txrdma-rep", req, RG_HS_LEN, rep, RG_HS_LEN, mac);
	if (ret)
		return ret;
	return memcmp(mac, rep + RG_HS_LEN, RG_MAC_LEN) ? -EACCES : 0;
}

/* AUTH: header (magic, version, type 8), zeroes, sequence 0, MAC at 96. */
int rg_auth(uint8_t out[RG_CTRL_LEN], const uint8_t req[RG_REQ_LEN],
	    const uint8_t rep[RG_HS_LEN], const struct rg_key *k)
{
	memset(out, 0, RG_CTRL_LEN);
	put32(out, RG_MAGIC);
	out[4] = RG_VERSION;
	out[5] = RG_CTRL_AUTH;
	return rg_hmac(k, "txrdma-auth", req, RG_HS_LEN, rep, RG_HS_LEN,
		       out + RG_CTRL_MAC_OFF);
}

/* ---- connections --------------------------------------------------- */

/* One PD and one registered buffer per device context, for every QP. */
static struct {
	struct ibv_context *verbs;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	uint8_t *buf;
} dev;

uint8_t *rg_buf(void)
{
	return dev.buf;
}

static int dev_init(struct ibv_context *verbs)
{
	if (dev.verbs)
		return dev.verbs == verbs ? 0 : -EXDEV;
	dev.pd = ibv_alloc_pd(verbs);
	if (!dev.pd)
		return -errno;
	dev.buf = aligned_alloc(4096, RG_BUF_LEN);
	if (!dev.buf)
		return -ENOMEM;
	memset(dev.buf, 0, RG_BUF_LEN);
	dev.mr = ibv_reg_mr(dev.pd, dev.buf, RG_BUF_LEN,
			    IBV_ACCESS_LOCAL_WRITE);
	if (!dev.mr)
		return -errno;
	dev.verbs = verbs;
	return 0;
}

int rg_event(struct rg_conn *c, double timeout_s)
{
	struct pollfd pfd = { .fd = c->ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;
	int n;

	n = poll(&pfd, 1, timeout_s > 0 ? (int)(timeout_s * 1000) : 0);
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	if (!n)
		return 0;
	if (rdma_get_cm_event(c->ch, &ev))
		return errno == EAGAIN ? 0 : -errno;
	switch (ev->event) {
	case RDMA_CM_EVENT_ESTABLISHED:
		c->est = true;
		c->t_est = rg_now();
		c->remote_qpn = ev->param.conn.qp_num;
		c->rep_len = ev->param.conn.private_data_len;
		if (c->rep_len > RG_REP_LEN)
			c->rep_len = RG_REP_LEN;
		if (ev->param.conn.private_data)
			memcpy(c->rep, ev->param.conn.private_data,
			       c->rep_len);
		else
			c->rep_len = 0;
		break;
	case RDMA_CM_EVENT_REJECTED:
		c->rejected = true;
		c->reject_status = ev->status;
		/*
		 * After ESTABLISHED: the other side destroyed its id before
		 * it saw the RTU (its CM answers with a REJ, not a DREQ).
		 * The connection is closed all the same.
		 */
		if (c->est && !c->disc) {
			c->disc = true;
			c->disc_by_rej = true;
			c->t_disc = rg_now();
		}
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		c->disc = true;
		c->t_disc = rg_now();
		break;
	default:
		break;
	}
	c->state = ev->event;
	rdma_ack_cm_event(ev);
	return 1;
}

/* Wait (bounded) until @c's state is @want: 0, -EPROTO (another), -ETIMEDOUT. */
static int rg_wait_state(struct rg_conn *c, int want, double timeout_s)
{
	double end = rg_now() + timeout_s;
	int ret;

	while (rg_now() < end) {
		ret = rg_event(c, end - rg_now());
		if (ret < 0)
			return ret;
		if (ret && c->state == want)
			return 0;
		if (ret)
			return -EPROTO;
	}
	return -ETIMEDOUT;
}

int rg_open(struct rg_conn *c, const struct rg_target *t)
{
	struct sockaddr_in src = { .sin_family = AF_INET };
	struct sockaddr_in dst = {
		.sin_family = AF_INET,
		.sin_port = htons(t->port),
	};
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = {
			.max_send_wr = 4,
			.max_recv_wr = 4,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
	};
	int ret;

	memset(c, 0, sizeof(*c));
	c->state = -1;
	if (inet_pton(AF_INET, t->addr, &dst.sin_addr) != 1)
		return -EINVAL;
	src.sin_addr = dst.sin_addr;
	c->ch = rdma_create_event_channel();
	if (!c->ch)
		return -errno;
	if (rdma_create_id(c->ch, &c->id, c, RDMA_PS_TCP)) {
		ret = -errno;
		c->id = NULL;
		goto fail;
	}
	if (rdma_resolve_addr(c->id, (struct sockaddr *)&src,
			      (struct sockaddr *)&dst, 2000)) {
		ret = -errno;
		goto fail;
	}
	ret = rg_wait_state(c, RDMA_CM_EVENT_ADDR_RESOLVED, 20);
	if (ret)
		goto fail;
	if (rdma_resolve_route(c->id, 2000)) {
		ret = -errno;
		goto fail;
	}
	ret = rg_wait_state(c, RDMA_CM_EVENT_ROUTE_RESOLVED, 20);
	if (ret)
		goto fail;
	ret = dev_init(c->id->verbs);
	if (ret)
		goto fail;
	c->cq = ibv_create_cq(c->id->verbs, 16, NULL, NULL, 0);
	if (!c->cq) {
		ret = -errno;
		goto fail;
	}
	qa.send_cq = c->cq;
	qa.recv_cq = c->cq;
	if (rdma_create_qp(c->id, dev.pd, &qa)) {
		ret = -errno;
		goto fail;
	}
	return 0;
fail:
	rg_close(c);
	return ret ? ret : -EIO;
}

int rg_connect_start(struct rg_conn *c, const void *priv, uint8_t len)
{
	struct rdma_conn_param p = {
		.private_data = priv,
		.private_data_len = priv ? len : 0,
		/* RDMA READs: the module's answer to them is what we test */
		.responder_resources = 1,
		.initiator_depth = 1,
		.retry_count = 3,
		/* a SEND nobody posted a receive for fails instead of
		 * retrying for ever (today's main posts none)
		 */
		.rnr_retry_count = 3,
	};

	return rdma_connect(c->id, &p) ? -errno : 0;
}

int rg_connect(struct rg_conn *c, const void *priv, uint8_t len,
	       double timeout_s)
{
	double end = rg_now() + timeout_s;
	int ret = rg_connect_start(c, priv, len);

	if (ret)
		return ret;
	while (rg_now() < end) {
		ret = rg_event(c, end - rg_now());
		if (ret < 0)
			return ret;
		if (ret && c->state != RDMA_CM_EVENT_CONNECT_RESPONSE)
			return c->state;
	}
	return -ETIMEDOUT;
}

double rg_wait_disc(struct rg_conn *c, double timeout_s)
{
	double end = rg_now() + timeout_s;

	while (!c->disc && rg_now() < end)
		if (rg_event(c, end - rg_now()) < 0)
			break;
	return c->disc ? c->t_disc - c->t_est : -1;
}

int rg_post(struct rg_conn *c, enum ibv_wr_opcode op, uint32_t rkey,
	    uint64_t raddr, uint32_t len, uint32_t loff)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)dev.buf + loff,
		.length = len,
		.lkey = dev.mr ? dev.mr->lkey : 0,
	};
	struct ibv_send_wr wr = {
		.wr_id = 1,
		.sg_list = &sge,
		.num_sge = len ? 1 : 0,
		.opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	struct ibv_wc wc;
	double end = rg_now() + 20;
	int n;

	if (!c->id || !c->id->qp || loff + len > RG_BUF_LEN)
		return -EINVAL;
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	if (ibv_post_send(c->id->qp, &wr, &bad))
		return -errno;
	do {
		n = ibv_poll_cq(c->cq, 1, &wc);
		if (n < 0)
			return -EIO;
		if (n)
			return wc.status;
		usleep(500);
	} while (rg_now() < end);
	return -ETIMEDOUT;
}

void rg_close(struct rg_conn *c)
{
	if (c->id) {
		if (c->est && !c->disc)
			rdma_disconnect(c->id);
		if (c->id->qp)
			rdma_destroy_qp(c->id);
	}
	if (c->cq)
		ibv_destroy_cq(c->cq);
	if (c->id)
		rdma_destroy_id(c->id);
	if (c->ch)
		rdma_destroy_event_channel(c->ch);
	c->id = NULL;
	c->cq = NULL;
	c->ch = NULL;
}
