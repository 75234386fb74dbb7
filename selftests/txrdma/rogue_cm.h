/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The hostile side of rogue_peer: rdma_cm connections to txrdma's port
 * made by hand with librdmacm and libibverbs (no txrdma code), the
 * handshake's wire formats rebuilt from their description
 * (kmod/txrdma_peer_wire.c, kmod/txrdma_auth.c) rather than shared with
 * the module, and HMAC-SHA256 through the kernel's AF_ALG socket (no
 * crypto library).
 */
#ifndef _TXRDMA_ROGUE_CM_H
#define _TXRDMA_ROGUE_CM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rdma/rdma_cma.h>

/* ---- keys and MACs ------------------------------------------------- */

#define RG_MAC_LEN	32
#define RG_KEY_MAX	64

struct rg_key {
	uint8_t b[RG_KEY_MAX];
	size_t len;
};

/* Read a key file (hex text, as txrdma-admin takes it): 0 or -errno. */
int rg_key_load(const char *path, struct rg_key *k);
/* A random key of @len bytes (the "other" key of forged MACs). */
void rg_key_random(struct rg_key *k, size_t len);

/*
 * HMAC-SHA256(key, label | d1 | d2) through AF_ALG "hmac(sha256)", the
 * way kmod/txrdma_auth.c computes its MACs (label bytes without NUL).
 * @d1 and @d2 may be NULL.  Returns 0 or -errno (-EAFNOSUPPORT: no
 * AF_ALG in this kernel).
 */
int rg_hmac(const struct rg_key *k, const char *label, const void *d1,
	    size_t l1, const void *d2, size_t l2, uint8_t out[RG_MAC_LEN]);

/* ---- wire formats (big-endian) ------------------------------------- */

#define RG_MAGIC	0x54585243	/* "TXRC" */
#define RG_VERSION	8		/* kmod/txrdma_peer_wire.h's */
#define RG_KIND_CTRL	1
#define RG_KIND_POOL	2
#define RG_HS_LEN	32		/* what the handshake MACs cover */
#define RG_REQ_LEN	48		/* v2 request: 32 + truncated MAC */
#define RG_REQ_MAC_LEN	16
#define RG_REP_LEN	64		/* v2 reply: 32 + MAC */
#define RG_REQ_V1_LEN	16		/* today's main (wire v1): no MAC */
#define RG_CTRL_LEN	128		/* control message, AUTH among them */
#define RG_CTRL_AUTH	8
#define RG_CTRL_MAC_OFF	96

/* v2 request without its MAC (bytes 32..47 zero). */
void rg_req_v2(uint8_t out[RG_REQ_LEN], uint8_t version, uint8_t kind,
	       uint16_t want, uint32_t boot_id);
/* Put the request's truncated MAC under @k: 0 or -errno. */
int rg_req_seal(uint8_t req[RG_REQ_LEN], const struct rg_key *k);
/* v1 request (today's main): 16 bytes, no nonce, no MAC. */
void rg_req_v1(uint8_t out[RG_REQ_V1_LEN], uint8_t kind, uint16_t want,
	       uint32_t boot_id);
/*
 * Check a reply to @req: form (magic, version 2, @kind, reserved bytes)
 * and its MAC under @k.  0, -EINVAL (form) or -EACCES (MAC).
 */
int rg_rep_check(const uint8_t *rep, size_t len,
		 const uint8_t req[RG_REQ_LEN], uint8_t kind,
		 const struct rg_key *k);
/* The AUTH message that ends the handshake of (@req, @rep): 0 or -errno. */
int rg_auth(uint8_t out[RG_CTRL_LEN], const uint8_t req[RG_REQ_LEN],
	    const uint8_t rep[RG_HS_LEN], const struct rg_key *k);

/* ---- connections --------------------------------------------------- */

/* Where the attacker connects from and to. */
struct rg_target {
	char addr[64];		/* the module's (and our own) IPv4 address */
	uint16_t port;		/* its rdma_cm port */
};

/**
 * struct rg_conn - one hand-made RC connection to the module
 * @ch: its own event channel (its fd can be polled with others)
 * @id: the rdma_cm id, with a QP of ours
 * @cq: send and receive completions
 * @state: the last rdma_cm event that changed it (RDMA_CM_EVENT_*), -1
 *	before any
 * @est, @rejected, @disc: ESTABLISHED, REJECTED, DISCONNECTED seen;
 *	@disc also when REJECTED came after ESTABLISHED (@disc_by_rej): the
 *	other side closed before its CM had the RTU
 * @reject_status: the status of the REJECTED event
 * @remote_qpn: the module's QP number (from the reply), 0 if none
 * @rep, @rep_len: the reply's private data
 * @t_est, @t_disc: when ESTABLISHED and DISCONNECTED came (CLOCK_MONOTONIC s)
 */
struct rg_conn {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	struct ibv_cq *cq;
	int state;
	bool est, rejected, disc, disc_by_rej;
	int reject_status;
	uint32_t remote_qpn;
	uint8_t rep[RG_REP_LEN];
	size_t rep_len;
	double t_est, t_disc;
};

double rg_now(void);

/*
 * Resolve address and route to @t from @t->addr itself (so the module
 * sees the address of its self peer) and create an RC QP: 0 or -errno.
 * On failure @c is closed.
 */
int rg_open(struct rg_conn *c, const struct rg_target *t);
/* Send the connection request with @priv (NULL: none). 0 or -errno. */
int rg_connect_start(struct rg_conn *c, const void *priv, uint8_t len);
/*
 * Take one event of @c if there is one within @timeout_s: 1 (taken), 0
 * (none), -errno.  Updates the fields above.
 */
int rg_event(struct rg_conn *c, double timeout_s);
/*
 * rg_connect_start(), then wait (bounded) for the answer: ESTABLISHED,
 * REJECTED or another error event.  Returns the event, or -ETIMEDOUT.
 */
int rg_connect(struct rg_conn *c, const void *priv, uint8_t len,
	       double timeout_s);
/* Wait for the close (@disc): seconds since ESTABLISHED, or -1 on timeout. */
double rg_wait_disc(struct rg_conn *c, double timeout_s);
/*
 * Post one signalled SEND of @len bytes, or RDMA READ or WRITE of @len
 * bytes at (@rkey, @raddr), from or into our own buffer at @loff, and
 * wait (bounded) for its completion.  Returns the completion's
 * ibv_wc_status, or -errno (-ETIMEDOUT: no completion).
 */
int rg_post(struct rg_conn *c, enum ibv_wr_opcode op, uint32_t rkey,
	    uint64_t raddr, uint32_t len, uint32_t loff);
/* Our registered buffer (RG_BUF_LEN bytes): what SENDs and WRITEs carry. */
#define RG_BUF_LEN	65536
uint8_t *rg_buf(void);
/* Disconnect (if connected), destroy QP, CQ, id and channel. */
void rg_close(struct rg_conn *c);

#endif
