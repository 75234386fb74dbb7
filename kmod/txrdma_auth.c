// SPDX-License-Identifier: GPL-2.0-only
/*
 * Who may be a peer: a host that proves it holds the key the admin gave
 * for it (txrdma-admin peer add ... key FILE).  A source address proves
 * nothing: any local user can open rdma_cm connections to our port.
 *
 * Every RC connection, control or pooled, is authenticated in its own
 * handshake, with fresh nonces from both sides, so that nothing
 * recorded from an earlier connection is accepted in a later one:
 *
 *   initiator                                   acceptor
 *   REQ  private data: kind, boot id, Ni,
 *        MAC_K("txrdma-req" | REQ[0..32))[0..16)  ->  checked before
 *                                                    any QP is made
 *   <- REP  private data: boot id, Na,
 *           MAC_K("txrdma-rep" | REQ[0..32) | REP[0..32))
 *   checked on ESTABLISHED
 *   AUTH (first SEND on the QP):
 *        MAC_K("txrdma-auth" | REQ[0..32) | REP[0..32))  ->  checked;
 *                                                    only then is the
 *                                                    QP used
 *
 * The request's MAC only filters forgeries cheaply (a replayed request
 * passes it); the reply's proves the acceptor to the initiator and the
 * AUTH message the initiator to the acceptor, both over both nonces.
 * Until AUTH arrives the acceptor's QP allows no remote access and
 * counts against a small bound of half-open connections; after the
 * connect timeout it is closed.
 *
 * Control QPs then carry keyed messages (RFC 5880 section 6.7 style,
 * "meticulous"): each has a sequence number that grows by one per
 * message and an HMAC-SHA256 over the whole message under a key of
 * this connection and direction, derived from K and both nonces; a
 * message whose MAC or sequence does not check is dropped and counted,
 * never acted on.
 *
 * MAC input is the label's bytes (no NUL) followed by the data; labels
 * keep the MACs of different purposes apart.
 */
#include <crypto/algapi.h>
#include <crypto/hash.h>
#include <linux/err.h>
#include <linux/string.h>

#include "txrdma_auth.h"

/**
 * txrdma_auth_init() - make a key usable
 * @a: filled in
 * @key: the key bytes
 * @len: TXRDMA_KEY_MIN..TXRDMA_KEY_MAX; a derived key is TXRDMA_MAC_LEN
 *
 * Process context (allocates).
 *
 * Return: 0, -EINVAL for a length out of range, or the crypto API's
 * error (-ENOENT when hmac(sha256) is not available).
 */
int txrdma_auth_init(struct txrdma_auth *a, const u8 *key, unsigned int len)
{
	struct crypto_shash *tfm;
	int ret;

	a->tfm = NULL;
	if (len < TXRDMA_KEY_MIN || len > TXRDMA_KEY_MAX)
		return -EINVAL;
	tfm = crypto_alloc_shash("hmac(sha256)", 0, 0);
	if (IS_ERR(tfm))
		return PTR_ERR(tfm);
	ret = crypto_shash_setkey(tfm, key, len);
	if (ret) {
		crypto_free_shash(tfm);
		return ret;
	}
	a->tfm = tfm;
	return 0;
}

/* Forget a key (process context); @a may be unset. */
void txrdma_auth_free(struct txrdma_auth *a)
{
	if (a->tfm)
		crypto_free_shash(a->tfm);
	a->tfm = NULL;
}

/**
 * txrdma_auth_mac() - MAC of a label and up to two pieces of data
 * @a: the key
 * @label: what the MAC is for
 * @d1: data, or NULL
 * @l1: its length
 * @d2: more data, or NULL
 * @l2: its length
 * @out: the MAC
 *
 * Any context: the transform's key is set before it is shared, and
 * each call has its own descriptor.
 *
 * Return: 0 or the crypto API's error (-ENOKEY without a key).
 */
int txrdma_auth_mac(const struct txrdma_auth *a, const char *label,
		    const u8 *d1, size_t l1, const u8 *d2, size_t l2,
		    u8 out[TXRDMA_MAC_LEN])
{
	SHASH_DESC_ON_STACK(desc, a->tfm);
	int ret;

	if (!a->tfm)
		return -ENOKEY;
	desc->tfm = a->tfm;
	ret = crypto_shash_init(desc);
	if (!ret)
		ret = crypto_shash_update(desc, label, strlen(label));
	if (!ret && d1)
		ret = crypto_shash_update(desc, d1, l1);
	if (!ret && d2)
		ret = crypto_shash_update(desc, d2, l2);
	if (!ret)
		ret = crypto_shash_final(desc, out);
	shash_desc_zero(desc);
	return ret;
}

/* Compare MACs in constant time: true if equal. */
bool txrdma_auth_equal(const u8 *a, const u8 *b, size_t len)
{
	return !crypto_memneq(a, b, len);
}

/**
 * txrdma_hs_req_mac() - MAC of a connection request
 * @k: the peer's key
 * @req: the request's first TXRDMA_HS_LEN bytes
 * @out: the full MAC; the request carries its first TXRDMA_REQ_MAC_LEN
 *
 * Return: 0 or -errno.
 */
int txrdma_hs_req_mac(const struct txrdma_auth *k,
		      const u8 req[TXRDMA_HS_LEN], u8 out[TXRDMA_MAC_LEN])
{
	return txrdma_auth_mac(k, "txrdma-req", req, TXRDMA_HS_LEN, NULL, 0,
			       out);
}

/**
 * txrdma_hs_rep_mac() - MAC of a connection reply
 * @k: the peer's key
 * @req: the request it answers (first TXRDMA_HS_LEN bytes)
 * @rep: the reply's first TXRDMA_HS_LEN bytes
 * @out: the MAC the reply carries
 *
 * Return: 0 or -errno.
 */
int txrdma_hs_rep_mac(const struct txrdma_auth *k,
		      const u8 req[TXRDMA_HS_LEN], const u8 rep[TXRDMA_HS_LEN],
		      u8 out[TXRDMA_MAC_LEN])
{
	return txrdma_auth_mac(k, "txrdma-rep", req, TXRDMA_HS_LEN, rep,
			       TXRDMA_HS_LEN, out);
}

/**
 * txrdma_hs_auth_mac() - MAC of the initiator's AUTH message
 * @k: the peer's key
 * @req: the request (first TXRDMA_HS_LEN bytes)
 * @rep: the reply (first TXRDMA_HS_LEN bytes)
 * @out: the MAC
 *
 * Return: 0 or -errno.
 */
int txrdma_hs_auth_mac(const struct txrdma_auth *k,
		       const u8 req[TXRDMA_HS_LEN],
		       const u8 rep[TXRDMA_HS_LEN], u8 out[TXRDMA_MAC_LEN])
{
	return txrdma_auth_mac(k, "txrdma-auth", req, TXRDMA_HS_LEN, rep,
			       TXRDMA_HS_LEN, out);
}

/**
 * txrdma_hs_session() - the keys of a control connection's messages
 * @k: the peer's key
 * @initiator: we sent the request
 * @req: the request (first TXRDMA_HS_LEN bytes)
 * @rep: the reply (first TXRDMA_HS_LEN bytes)
 * @tx: key of what we send, set up
 * @rx: key of what we receive, set up
 *
 * One key per direction, so a message cannot be reflected back to its
 * sender; both depend on both nonces, so none outlives its connection.
 * Process context.
 *
 * Return: 0 or -errno (nothing is left set up).
 */
int txrdma_hs_session(const struct txrdma_auth *k, bool initiator,
		      const u8 req[TXRDMA_HS_LEN], const u8 rep[TXRDMA_HS_LEN],
		      struct txrdma_auth *tx, struct txrdma_auth *rx)
{
	u8 i2a[TXRDMA_MAC_LEN], a2i[TXRDMA_MAC_LEN];
	int ret;

	ret = txrdma_auth_mac(k, "txrdma-session-i2a", req, TXRDMA_HS_LEN,
			      rep, TXRDMA_HS_LEN, i2a);
	if (!ret)
		ret = txrdma_auth_mac(k, "txrdma-session-a2i", req,
				      TXRDMA_HS_LEN, rep, TXRDMA_HS_LEN, a2i);
	if (!ret)
		ret = txrdma_auth_init(tx, initiator ? i2a : a2i,
				       TXRDMA_MAC_LEN);
	if (!ret) {
		ret = txrdma_auth_init(rx, initiator ? a2i : i2a,
				       TXRDMA_MAC_LEN);
		if (ret)
			txrdma_auth_free(tx);
	}
	memzero_explicit(i2a, sizeof(i2a));
	memzero_explicit(a2i, sizeof(a2i));
	return ret;
}
