/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Authentication between txrdma modules: HMAC-SHA256 keys and the MACs
 * of the connection handshake and of control messages (the protocol is
 * described in txrdma_auth.c and Documentation/design.rst).
 *
 * No rdma/ header: KUnit tests it on UML with the RFC 4231 vectors.
 */
#ifndef _TXRDMA_AUTH_H
#define _TXRDMA_AUTH_H

#include <linux/types.h>

#define TXRDMA_KEY_MIN		16	/* bytes of a peer key */
#define TXRDMA_KEY_MAX		64
#define TXRDMA_MAC_LEN		32	/* HMAC-SHA256 */
#define TXRDMA_NONCE_LEN	16
/* the part of a connection request or reply that the MACs cover */
#define TXRDMA_HS_LEN		32
/* a request's MAC is truncated (RFC 4868 allows 128 bits): private
 * data of a connection request is short
 */
#define TXRDMA_REQ_MAC_LEN	16

struct crypto_shash;

/**
 * struct txrdma_auth - one HMAC-SHA256 key
 * @tfm: the keyed transform; digests may run concurrently in any
 *	context once it is set up (the key never changes)
 */
struct txrdma_auth {
	struct crypto_shash *tfm;
};

int txrdma_auth_init(struct txrdma_auth *a, const u8 *key, unsigned int len);
void txrdma_auth_free(struct txrdma_auth *a);
int txrdma_auth_mac(const struct txrdma_auth *a, const char *label,
		    const u8 *d1, size_t l1, const u8 *d2, size_t l2,
		    u8 out[TXRDMA_MAC_LEN]);
bool txrdma_auth_equal(const u8 *a, const u8 *b, size_t len);

int txrdma_hs_req_mac(const struct txrdma_auth *k,
		      const u8 req[TXRDMA_HS_LEN], u8 out[TXRDMA_MAC_LEN]);
int txrdma_hs_rep_mac(const struct txrdma_auth *k,
		      const u8 req[TXRDMA_HS_LEN], const u8 rep[TXRDMA_HS_LEN],
		      u8 out[TXRDMA_MAC_LEN]);
int txrdma_hs_auth_mac(const struct txrdma_auth *k,
		       const u8 req[TXRDMA_HS_LEN],
		       const u8 rep[TXRDMA_HS_LEN], u8 out[TXRDMA_MAC_LEN]);
int txrdma_hs_session(const struct txrdma_auth *k, bool initiator,
		      const u8 req[TXRDMA_HS_LEN], const u8 rep[TXRDMA_HS_LEN],
		      struct txrdma_auth *tx, struct txrdma_auth *rx);

#endif /* _TXRDMA_AUTH_H */
