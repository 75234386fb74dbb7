// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite txrdma_auth: txrdma_auth_mac() is HMAC-SHA256 (the
 * RFC 4231 test vectors whose keys our length rules admit) over the
 * label's bytes followed by the data; keys of other lengths are
 * refused; the handshake MACs cover every byte of the request and the
 * reply and are those the design essay of txrdma_auth.c names; session
 * keys pair up across the two ends, differ by direction and change
 * with either nonce.  A handshake built with txrdma_peer_wire's
 * encoders goes through end to end.
 */
#include <kunit/test.h>
#include <linux/errno.h>
#include <linux/string.h>

#include "../txrdma_auth.h"
#include "../txrdma_peer_wire.h"

/*
 * Key slots: the peer key, the same key as the other host holds it,
 * another host's key; the session keys of the initiator (I_) and of
 * the acceptor (A_); scratch (X_).
 */
enum { K, K_PEER, K_OTHER, I_TX, I_RX, A_TX, A_RX, X_TX, X_RX, NKEYS };

/* Keys of one case, freed after it whatever it asserted. */
struct auth_ctx {
	struct txrdma_auth k[NKEYS];
};

static int auth_test_init(struct kunit *test)
{
	test->priv = kunit_kzalloc(test, sizeof(struct auth_ctx), GFP_KERNEL);
	return test->priv ? 0 : -ENOMEM;
}

static void auth_test_exit(struct kunit *test)
{
	struct auth_ctx *ctx = test->priv;
	int i;

	for (i = 0; i < NKEYS; i++)
		txrdma_auth_free(&ctx->k[i]);
}

static struct txrdma_auth *key(struct kunit *test, int i)
{
	struct auth_ctx *ctx = test->priv;

	return &ctx->k[i];
}

/* Key @i set from @len bytes each @fill, or 1..@len if @fill is 0. */
static struct txrdma_auth *set_key(struct kunit *test, int i, u8 fill,
				   unsigned int len)
{
	u8 raw[TXRDMA_KEY_MAX];
	unsigned int j;

	KUNIT_ASSERT_LE(test, len, TXRDMA_KEY_MAX);
	for (j = 0; j < len; j++)
		raw[j] = fill ? fill : j + 1;
	txrdma_auth_free(key(test, i));
	KUNIT_ASSERT_EQ(test, txrdma_auth_init(key(test, i), raw, len), 0);
	return key(test, i);
}

static void expect_mac(struct kunit *test, const u8 *got, const u8 *want,
		       size_t len, const char *what)
{
	KUNIT_EXPECT_TRUE_MSG(test, !memcmp(got, want, len), "%s: %*ph",
			      what, (int)len, got);
}

/* RFC 4231 4.2, test case 1 */
static const u8 rfc_data1[] = "Hi There";
static const u8 rfc_mac1[TXRDMA_MAC_LEN] = {
	0xb0, 0x34, 0x4c, 0x61, 0xd8, 0xdb, 0x38, 0x53,
	0x5c, 0xa8, 0xaf, 0xce, 0xaf, 0x0b, 0xf1, 0x2b,
	0x88, 0x1d, 0xc2, 0x00, 0xc9, 0x83, 0x3d, 0xa7,
	0x26, 0xe9, 0x37, 0x6c, 0x2e, 0x32, 0xcf, 0xf7,
};

/* RFC 4231 4.4, test case 3 */
static const u8 rfc_mac3[TXRDMA_MAC_LEN] = {
	0x77, 0x3e, 0xa9, 0x1e, 0x36, 0x80, 0x0e, 0x46,
	0x85, 0x4d, 0xb8, 0xeb, 0xd0, 0x91, 0x81, 0xa7,
	0x29, 0x59, 0x09, 0x8b, 0x3e, 0xf8, 0xc1, 0x22,
	0xd9, 0x63, 0x55, 0x14, 0xce, 0xd5, 0x65, 0xfe,
};

/* RFC 4231 4.5, test case 4 */
static const u8 rfc_mac4[TXRDMA_MAC_LEN] = {
	0x82, 0x55, 0x8a, 0x38, 0x9a, 0x44, 0x3c, 0x0e,
	0xa4, 0xcc, 0x81, 0x98, 0x99, 0xf2, 0x08, 0x3a,
	0x85, 0xf0, 0xfa, 0xa3, 0xe5, 0x78, 0xf8, 0x07,
	0x7a, 0x2e, 0x3f, 0xf4, 0x67, 0x29, 0x66, 0x5b,
};

/* RFC 4231 4.6, test case 5: the MAC truncated to 128 bits */
static const u8 rfc_data5[] = "Test With Truncation";
static const u8 rfc_mac5[TXRDMA_REQ_MAC_LEN] = {
	0xa3, 0xb6, 0x16, 0x74, 0x73, 0x10, 0x0e, 0xe0,
	0x6e, 0x0c, 0x79, 0x6c, 0x29, 0x55, 0x55, 0x2b,
};

static void auth_rfc4231_case1(struct kunit *test)
{
	struct txrdma_auth *k = set_key(test, K, 0x0b, 20);
	const size_t n = sizeof(rfc_data1) - 1;
	u8 mac[TXRDMA_MAC_LEN];

	KUNIT_ASSERT_EQ(test, txrdma_auth_mac(k, "", rfc_data1, n, NULL, 0,
					      mac), 0);
	expect_mac(test, mac, rfc_mac1, sizeof(mac), "d1");
	/* the data may come in two pieces, either may be absent */
	KUNIT_ASSERT_EQ(test, txrdma_auth_mac(k, "", NULL, 0, rfc_data1, n,
					      mac), 0);
	expect_mac(test, mac, rfc_mac1, sizeof(mac), "d2");
	KUNIT_ASSERT_EQ(test, txrdma_auth_mac(k, "", rfc_data1, 2,
					      rfc_data1 + 2, n - 2, mac), 0);
	expect_mac(test, mac, rfc_mac1, sizeof(mac), "d1 || d2");
	KUNIT_ASSERT_EQ(test, txrdma_auth_mac(k, "", rfc_data1, n,
					      rfc_data1, 0, mac), 0);
	expect_mac(test, mac, rfc_mac1, sizeof(mac), "d1 || empty d2");
	/* and the label is the first piece of the message */
	KUNIT_ASSERT_EQ(test, txrdma_auth_mac(k, "Hi There", NULL, 0, NULL, 0,
					      mac), 0);
	expect_mac(test, mac, rfc_mac1, sizeof(mac), "label");
	KUNIT_ASSERT_EQ(test, txrdma_auth_mac(k, "Hi", rfc_data1 + 2, 3,
					      rfc_data1 + 5, n - 5, mac), 0);
	expect_mac(test, mac, rfc_mac1, sizeof(mac), "label || d1 || d2");
}

static void auth_rfc4231_case3_4(struct kunit *test)
{
	struct txrdma_auth *k3 = set_key(test, K, 0xaa, 20);
	/* 0x01..0x19: 25 bytes */
	struct txrdma_auth *k4 = set_key(test, K_OTHER, 0, 25);
	u8 data[50], mac[TXRDMA_MAC_LEN];

	memset(data, 0xdd, sizeof(data));
	KUNIT_ASSERT_EQ(test, txrdma_auth_mac(k3, "", data, sizeof(data),
					      NULL, 0, mac), 0);
	expect_mac(test, mac, rfc_mac3, sizeof(mac), "case 3");
	KUNIT_ASSERT_EQ(test, txrdma_auth_mac(k3, "", data, 17, data + 17,
					      sizeof(data) - 17, mac), 0);
	expect_mac(test, mac, rfc_mac3, sizeof(mac), "case 3 split");

	memset(data, 0xcd, sizeof(data));
	KUNIT_ASSERT_EQ(test, txrdma_auth_mac(k4, "", data, sizeof(data),
					      NULL, 0, mac), 0);
	expect_mac(test, mac, rfc_mac4, sizeof(mac), "case 4");
	KUNIT_ASSERT_EQ(test, txrdma_auth_mac(k4, "", data, 1, data + 1,
					      sizeof(data) - 1, mac), 0);
	expect_mac(test, mac, rfc_mac4, sizeof(mac), "case 4 split");
}

/* what a connection request carries: the first 128 bits */
static void auth_rfc4231_case5(struct kunit *test)
{
	struct txrdma_auth *k = set_key(test, K, 0x0c, 20);
	u8 mac[TXRDMA_MAC_LEN];

	KUNIT_ASSERT_EQ(test, txrdma_auth_mac(k, "", rfc_data5,
					      sizeof(rfc_data5) - 1, NULL, 0,
					      mac), 0);
	expect_mac(test, mac, rfc_mac5, sizeof(rfc_mac5), "case 5");
	KUNIT_EXPECT_TRUE(test, txrdma_auth_equal(mac, rfc_mac5,
						  TXRDMA_REQ_MAC_LEN));
}

/*
 * The bounds: 16 and 64 bytes (a block: used as is, not hashed).  MACs
 * from Python 3's hmac module, hmac.new(bytes(range(n)), b"txrdma",
 * hashlib.sha256).
 */
static void auth_key_bounds(struct kunit *test)
{
	static const u8 want16[TXRDMA_MAC_LEN] = {
		0x45, 0x67, 0x76, 0xee, 0xd0, 0xc8, 0x3a, 0x0f,
		0xc2, 0x3e, 0x86, 0x57, 0x2b, 0xf3, 0x89, 0x9b,
		0x99, 0x68, 0xcf, 0xe0, 0x85, 0x3d, 0xec, 0x5b,
		0xf1, 0xd6, 0x2e, 0x8a, 0x11, 0xb8, 0xd6, 0x8a,
	};
	static const u8 want64[TXRDMA_MAC_LEN] = {
		0xeb, 0x19, 0x29, 0xa4, 0xe6, 0xa5, 0xe1, 0x1d,
		0x80, 0x05, 0x3f, 0xc8, 0x42, 0x39, 0xc2, 0xf2,
		0x54, 0xeb, 0xd4, 0x3e, 0x18, 0xa4, 0xd0, 0x50,
		0x47, 0x0f, 0xf7, 0xe3, 0x0d, 0x9c, 0x19, 0x2c,
	};
	u8 raw[TXRDMA_KEY_MAX], mac[TXRDMA_MAC_LEN];
	unsigned int i;

	for (i = 0; i < sizeof(raw); i++)
		raw[i] = i;
	KUNIT_ASSERT_EQ(test, txrdma_auth_init(key(test, K), raw,
					       TXRDMA_KEY_MIN), 0);
	KUNIT_ASSERT_EQ(test, txrdma_auth_mac(key(test, K), "txrdma", NULL, 0,
					      NULL, 0, mac), 0);
	expect_mac(test, mac, want16, sizeof(mac), "16-byte key");
	KUNIT_ASSERT_EQ(test, txrdma_auth_init(key(test, K_OTHER), raw,
					       TXRDMA_KEY_MAX), 0);
	KUNIT_ASSERT_EQ(test, txrdma_auth_mac(key(test, K_OTHER), "txrdma",
					      NULL, 0, NULL, 0, mac), 0);
	expect_mac(test, mac, want64, sizeof(mac), "64-byte key");
}

static void expect_key_refused(struct kunit *test, const u8 *raw,
			       unsigned int len)
{
	struct txrdma_auth a;
	u8 mac[TXRDMA_MAC_LEN];

	memset(&a, 0xa5, sizeof(a));
	KUNIT_EXPECT_EQ_MSG(test, txrdma_auth_init(&a, raw, len), -EINVAL,
			    "key of %u bytes", len);
	/* nothing set up: no MAC with it, freeing it is harmless */
	KUNIT_EXPECT_NULL(test, a.tfm);
	KUNIT_EXPECT_EQ(test, txrdma_auth_mac(&a, "", raw, 1, NULL, 0, mac),
			-ENOKEY);
	txrdma_auth_free(&a);
	txrdma_auth_free(&a);
}

/*
 * RFC 4231's test case 2 ("Jefe", 4 bytes) is below our minimum and
 * cases 6 and 7 (131 bytes of 0xaa) above our maximum: refused.
 */
static void auth_key_lengths_refused(struct kunit *test)
{
	static const u8 jefe[] = "Jefe";
	u8 raw[131];

	memset(raw, 0xaa, sizeof(raw));
	expect_key_refused(test, jefe, 4);
	expect_key_refused(test, raw, 131);
	expect_key_refused(test, raw, TXRDMA_KEY_MIN - 1);
	expect_key_refused(test, raw, TXRDMA_KEY_MAX + 1);
	expect_key_refused(test, raw, 0);
	expect_key_refused(test, raw, 1);
	expect_key_refused(test, raw, 128);
	KUNIT_EXPECT_EQ(test, TXRDMA_KEY_MIN, 16);
	KUNIT_EXPECT_EQ(test, TXRDMA_KEY_MAX, 64);
}

/* Different purposes never share a MAC; the label is a plain prefix. */
static void auth_labels(struct kunit *test)
{
	static const char * const labels[] = {
		"", "txrdma-req", "txrdma-rep", "txrdma-auth",
		"txrdma-session-i2a", "txrdma-session-a2i",
	};
	struct txrdma_auth *k = set_key(test, K, 0x5c, 32);
	u8 data[40], pre[64], macs[ARRAY_SIZE(labels)][TXRDMA_MAC_LEN];
	u8 one[TXRDMA_MAC_LEN];
	unsigned int i, j;
	bool same;
	size_t n;

	for (i = 0; i < sizeof(data); i++)
		data[i] = 0x30 + i;
	for (i = 0; i < ARRAY_SIZE(labels); i++) {
		KUNIT_ASSERT_EQ(test, txrdma_auth_mac(k, labels[i], data,
						      sizeof(data), NULL, 0,
						      macs[i]), 0);
		for (j = 0; j < i; j++) {
			same = txrdma_auth_equal(macs[i], macs[j],
						 TXRDMA_MAC_LEN);
			KUNIT_EXPECT_FALSE_MSG(test, same, "'%s' and '%s'",
					       labels[i], labels[j]);
		}
		/* label || data == "" with the label's bytes as data */
		n = strlen(labels[i]);
		memcpy(pre, labels[i], n);
		memcpy(pre + n, data, 16);
		KUNIT_ASSERT_EQ(test, txrdma_auth_mac(k, "", pre, n + 16,
						      data + 16,
						      sizeof(data) - 16, one),
				0);
		expect_mac(test, one, macs[i], sizeof(one), labels[i]);
	}
	/* same label and data under another key: another MAC */
	KUNIT_ASSERT_EQ(test, txrdma_auth_mac(set_key(test, K_OTHER, 0x5d, 32),
					      labels[1], data, sizeof(data),
					      NULL, 0, one), 0);
	KUNIT_EXPECT_FALSE(test, txrdma_auth_equal(one, macs[1],
						   TXRDMA_MAC_LEN));
	/* a key 1 byte longer (same bytes plus one) is another key */
	KUNIT_ASSERT_EQ(test, txrdma_auth_mac(set_key(test, K_PEER, 0x5c, 33),
					      labels[1], data, sizeof(data),
					      NULL, 0, one), 0);
	KUNIT_EXPECT_FALSE(test, txrdma_auth_equal(one, macs[1],
						   TXRDMA_MAC_LEN));
	/* deterministic */
	KUNIT_ASSERT_EQ(test, txrdma_auth_mac(k, labels[1], data,
					      sizeof(data), NULL, 0, one), 0);
	expect_mac(test, one, macs[1], sizeof(one), "again");
}

static void auth_equal(struct kunit *test)
{
	u8 a[TXRDMA_MAC_LEN], b[TXRDMA_MAC_LEN];
	unsigned int i;

	for (i = 0; i < sizeof(a); i++)
		a[i] = i * 7 + 1;
	memcpy(b, a, sizeof(b));
	KUNIT_EXPECT_TRUE(test, txrdma_auth_equal(a, b, sizeof(a)));
	KUNIT_EXPECT_TRUE(test, txrdma_auth_equal(a, b, TXRDMA_REQ_MAC_LEN));
	KUNIT_EXPECT_TRUE(test, txrdma_auth_equal(a, b, 0));
	for (i = 0; i < sizeof(a); i++) {
		b[i] ^= 0x01;
		KUNIT_EXPECT_FALSE_MSG(test, txrdma_auth_equal(a, b, sizeof(a)),
				       "byte %u", i);
		b[i] ^= 0x81;
		KUNIT_EXPECT_FALSE_MSG(test, txrdma_auth_equal(a, b, sizeof(a)),
				       "byte %u", i);
		/* only the first @len bytes count */
		KUNIT_EXPECT_TRUE(test, txrdma_auth_equal(a, b, i));
		b[i] ^= 0x80;
	}
	KUNIT_EXPECT_TRUE(test, txrdma_auth_equal(a, b, sizeof(a)));
}

static void hs_fill(u8 req[TXRDMA_HS_LEN], u8 rep[TXRDMA_HS_LEN])
{
	unsigned int i;

	for (i = 0; i < TXRDMA_HS_LEN; i++) {
		req[i] = 0x40 + i;
		rep[i] = 0xc0 ^ i;
	}
}

/* The handshake MACs are the ones txrdma_auth.c's essay names. */
static void hs_mac_definitions(struct kunit *test)
{
	struct txrdma_auth *k = set_key(test, K, 0x42, 32);
	u8 req[TXRDMA_HS_LEN], rep[TXRDMA_HS_LEN];
	u8 mac[TXRDMA_MAC_LEN], want[TXRDMA_MAC_LEN];
	u8 all[2 * TXRDMA_HS_LEN];

	hs_fill(req, rep);
	memcpy(all, req, TXRDMA_HS_LEN);
	memcpy(all + TXRDMA_HS_LEN, rep, TXRDMA_HS_LEN);

	KUNIT_ASSERT_EQ(test, txrdma_hs_req_mac(k, req, mac), 0);
	KUNIT_ASSERT_EQ(test, txrdma_auth_mac(k, "txrdma-req", req,
					      TXRDMA_HS_LEN, NULL, 0, want),
			0);
	expect_mac(test, mac, want, sizeof(mac), "req");

	KUNIT_ASSERT_EQ(test, txrdma_hs_rep_mac(k, req, rep, mac), 0);
	KUNIT_ASSERT_EQ(test, txrdma_auth_mac(k, "txrdma-rep", all,
					      sizeof(all), NULL, 0, want), 0);
	expect_mac(test, mac, want, sizeof(mac), "rep");

	KUNIT_ASSERT_EQ(test, txrdma_hs_auth_mac(k, req, rep, mac), 0);
	KUNIT_ASSERT_EQ(test, txrdma_auth_mac(k, "txrdma-auth", all,
					      sizeof(all), NULL, 0, want), 0);
	expect_mac(test, mac, want, sizeof(mac), "auth");

	/* the acceptor's proof is not the initiator's */
	KUNIT_ASSERT_EQ(test, txrdma_hs_rep_mac(k, req, rep, want), 0);
	KUNIT_EXPECT_FALSE(test, txrdma_auth_equal(mac, want, sizeof(mac)));
}

/* The three handshake MACs of one request and reply. */
struct hs_macs {
	u8 req[TXRDMA_MAC_LEN];
	u8 rep[TXRDMA_MAC_LEN];
	u8 auth[TXRDMA_MAC_LEN];
};

static void hs_macs(struct kunit *test, const struct txrdma_auth *k,
		    const u8 *req, const u8 *rep, struct hs_macs *m)
{
	KUNIT_ASSERT_EQ(test, txrdma_hs_req_mac(k, req, m->req), 0);
	KUNIT_ASSERT_EQ(test, txrdma_hs_rep_mac(k, req, rep, m->rep), 0);
	KUNIT_ASSERT_EQ(test, txrdma_hs_auth_mac(k, req, rep, m->auth), 0);
}

static void expect_differs(struct kunit *test, const u8 *a, const u8 *b,
			   size_t len, const char *what, unsigned int i)
{
	KUNIT_EXPECT_FALSE_MSG(test, txrdma_auth_equal(a, b, len),
			       "%s, byte %u", what, i);
}

/* Flipping a bit of the request or the reply changes each MAC over it. */
static void hs_mac_every_byte(struct kunit *test)
{
	struct txrdma_auth *k = set_key(test, K, 0x42, 32);
	u8 req[TXRDMA_HS_LEN], rep[TXRDMA_HS_LEN];
	struct hs_macs m0, m;
	unsigned int i, bit;

	hs_fill(req, rep);
	hs_macs(test, k, req, rep, &m0);
	for (i = 0; i < TXRDMA_HS_LEN; i++) {
		for (bit = 0; bit < 8; bit += 7) {
			req[i] ^= 1 << bit;
			hs_macs(test, k, req, rep, &m);
			req[i] ^= 1 << bit;
			/* a request carries the first 128 bits of its MAC */
			expect_differs(test, m.req, m0.req, TXRDMA_REQ_MAC_LEN,
				       "req MAC, req", i);
			expect_differs(test, m.rep, m0.rep, TXRDMA_MAC_LEN,
				       "rep MAC, req", i);
			expect_differs(test, m.auth, m0.auth, TXRDMA_MAC_LEN,
				       "auth MAC, req", i);

			rep[i] ^= 1 << bit;
			hs_macs(test, k, req, rep, &m);
			rep[i] ^= 1 << bit;
			expect_differs(test, m.rep, m0.rep, TXRDMA_MAC_LEN,
				       "rep MAC, rep", i);
			expect_differs(test, m.auth, m0.auth, TXRDMA_MAC_LEN,
				       "auth MAC, rep", i);
			/* the request's MAC does not cover the reply */
			expect_mac(test, m.req, m0.req, TXRDMA_MAC_LEN,
				   "req MAC, reply changed");
		}
	}
	/* restored: the same MACs again */
	hs_macs(test, k, req, rep, &m);
	expect_mac(test, m.req, m0.req, TXRDMA_MAC_LEN, "restored req");
	expect_mac(test, m.rep, m0.rep, TXRDMA_MAC_LEN, "restored rep");
	expect_mac(test, m.auth, m0.auth, TXRDMA_MAC_LEN, "restored auth");
	/* another key: other MACs */
	hs_macs(test, set_key(test, K_OTHER, 0x43, 32), req, rep, &m);
	expect_differs(test, m.req, m0.req, TXRDMA_REQ_MAC_LEN, "key", 0);
	expect_differs(test, m.rep, m0.rep, TXRDMA_MAC_LEN, "key", 0);
	expect_differs(test, m.auth, m0.auth, TXRDMA_MAC_LEN, "key", 0);
}

/* MAC of a fixed message under @k. */
static void probe_mac(struct kunit *test, struct txrdma_auth *k,
		      u8 out[TXRDMA_MAC_LEN])
{
	static const u8 msg[TXRDMA_CTRL_MAC_OFF] = { 0x54, 0x58, 0x52, 0x43,
						     0x02, 0x01, [95] = 9 };

	KUNIT_ASSERT_EQ(test, txrdma_auth_mac(k, "", msg, sizeof(msg), NULL,
					      0, out), 0);
}

static void hs_session_keys(struct kunit *test)
{
	struct txrdma_auth *k = set_key(test, K, 0x42, 32);
	u8 req[TXRDMA_HS_LEN], rep[TXRDMA_HS_LEN];
	u8 i_tx[TXRDMA_MAC_LEN], i_rx[TXRDMA_MAC_LEN];
	u8 a_tx[TXRDMA_MAC_LEN], a_rx[TXRDMA_MAC_LEN];
	u8 m_k[TXRDMA_MAC_LEN], mac[TXRDMA_MAC_LEN], dir[TXRDMA_MAC_LEN];

	hs_fill(req, rep);
	KUNIT_ASSERT_EQ(test, txrdma_hs_session(k, true, req, rep,
						key(test, I_TX),
						key(test, I_RX)), 0);
	KUNIT_ASSERT_EQ(test, txrdma_hs_session(k, false, req, rep,
						key(test, A_TX),
						key(test, A_RX)), 0);
	probe_mac(test, key(test, I_TX), i_tx);
	probe_mac(test, key(test, I_RX), i_rx);
	probe_mac(test, key(test, A_TX), a_tx);
	probe_mac(test, key(test, A_RX), a_rx);
	probe_mac(test, k, m_k);

	/* what one end sends, the other checks */
	expect_mac(test, i_tx, a_rx, sizeof(i_tx), "initiator to acceptor");
	expect_mac(test, a_tx, i_rx, sizeof(a_tx), "acceptor to initiator");
	/* a message cannot be reflected to its sender */
	KUNIT_EXPECT_FALSE(test, txrdma_auth_equal(i_tx, a_tx, TXRDMA_MAC_LEN));
	KUNIT_EXPECT_FALSE(test, txrdma_auth_equal(i_tx, i_rx, TXRDMA_MAC_LEN));
	/* and the peer key itself is none of them */
	KUNIT_EXPECT_FALSE(test, txrdma_auth_equal(i_tx, m_k, TXRDMA_MAC_LEN));
	KUNIT_EXPECT_FALSE(test, txrdma_auth_equal(a_tx, m_k, TXRDMA_MAC_LEN));

	/* the derivation of the essay: HMAC_K(label || req || rep) */
	KUNIT_ASSERT_EQ(test, txrdma_auth_mac(k, "txrdma-session-i2a", req,
					      TXRDMA_HS_LEN, rep, TXRDMA_HS_LEN,
					      dir), 0);
	KUNIT_ASSERT_EQ(test, txrdma_auth_init(key(test, X_TX), dir,
					       sizeof(dir)), 0);
	probe_mac(test, key(test, X_TX), mac);
	expect_mac(test, mac, i_tx, sizeof(mac), "i2a derivation");
	KUNIT_ASSERT_EQ(test, txrdma_auth_mac(k, "txrdma-session-a2i", req,
					      TXRDMA_HS_LEN, rep, TXRDMA_HS_LEN,
					      dir), 0);
	KUNIT_ASSERT_EQ(test, txrdma_auth_init(key(test, X_RX), dir,
					       sizeof(dir)), 0);
	probe_mac(test, key(test, X_RX), mac);
	expect_mac(test, mac, a_tx, sizeof(mac), "a2i derivation");
}

/* Session keys of @req/@rep: the initiator's tx MAC and rx MAC. */
static void session_macs(struct kunit *test, struct txrdma_auth *k,
			 const u8 *req, const u8 *rep, u8 tx[TXRDMA_MAC_LEN],
			 u8 rx[TXRDMA_MAC_LEN])
{
	struct txrdma_auth *t = key(test, X_TX), *r = key(test, X_RX);

	KUNIT_ASSERT_EQ(test, txrdma_hs_session(k, true, req, rep, t, r), 0);
	probe_mac(test, t, tx);
	probe_mac(test, r, rx);
	txrdma_auth_free(t);
	txrdma_auth_free(r);
}

/* Either side's fresh nonce (or any other byte) gives fresh keys. */
static void hs_session_nonces(struct kunit *test)
{
	struct txrdma_auth *k = set_key(test, K, 0x42, 32);
	u8 req[TXRDMA_HS_LEN], rep[TXRDMA_HS_LEN];
	u8 tx0[TXRDMA_MAC_LEN], rx0[TXRDMA_MAC_LEN];
	u8 tx[TXRDMA_MAC_LEN], rx[TXRDMA_MAC_LEN];
	unsigned int i;

	hs_fill(req, rep);
	session_macs(test, k, req, rep, tx0, rx0);
	/* repeatable: both ends derive the same from the same bytes */
	session_macs(test, k, req, rep, tx, rx);
	expect_mac(test, tx, tx0, sizeof(tx), "same tx");
	expect_mac(test, rx, rx0, sizeof(rx), "same rx");

	for (i = 16; i < 32; i++) {
		req[i] ^= 0x01;
		session_macs(test, k, req, rep, tx, rx);
		KUNIT_EXPECT_FALSE_MSG(test, txrdma_auth_equal(tx, tx0,
							       sizeof(tx)),
				       "initiator nonce byte %u", i);
		KUNIT_EXPECT_FALSE_MSG(test, txrdma_auth_equal(rx, rx0,
							       sizeof(rx)),
				       "initiator nonce byte %u", i);
		req[i] ^= 0x01;
		rep[i] ^= 0x80;
		session_macs(test, k, req, rep, tx, rx);
		KUNIT_EXPECT_FALSE_MSG(test, txrdma_auth_equal(tx, tx0,
							       sizeof(tx)),
				       "acceptor nonce byte %u", i);
		KUNIT_EXPECT_FALSE_MSG(test, txrdma_auth_equal(rx, rx0,
							       sizeof(rx)),
				       "acceptor nonce byte %u", i);
		rep[i] ^= 0x80;
	}
	/* the same nonces under another peer key */
	session_macs(test, set_key(test, K_OTHER, 0x43, 32), req, rep, tx, rx);
	KUNIT_EXPECT_FALSE(test, txrdma_auth_equal(tx, tx0, sizeof(tx)));
	KUNIT_EXPECT_FALSE(test, txrdma_auth_equal(rx, rx0, sizeof(rx)));
}

/* Without a peer key nothing is set up. */
static void hs_session_no_key(struct kunit *test)
{
	struct txrdma_auth none = { };
	u8 req[TXRDMA_HS_LEN], rep[TXRDMA_HS_LEN], mac[TXRDMA_MAC_LEN];

	hs_fill(req, rep);
	KUNIT_EXPECT_EQ(test, txrdma_hs_session(&none, true, req, rep,
						key(test, I_TX),
						key(test, I_RX)), -ENOKEY);
	KUNIT_EXPECT_NULL(test, key(test, I_TX)->tfm);
	KUNIT_EXPECT_NULL(test, key(test, I_RX)->tfm);
	KUNIT_EXPECT_EQ(test, txrdma_hs_req_mac(&none, req, mac), -ENOKEY);
	KUNIT_EXPECT_EQ(test, txrdma_hs_rep_mac(&none, req, rep, mac),
			-ENOKEY);
	KUNIT_EXPECT_EQ(test, txrdma_hs_auth_mac(&none, req, rep, mac),
			-ENOKEY);
}

/*
 * The handshake of the essay with the wire encoders: request, reply,
 * AUTH, then a sealed probe; a host with another key fails each step.
 */
static void hs_end_to_end(struct kunit *test)
{
	struct txrdma_auth *ki = set_key(test, K, 0x42, 32);
	struct txrdma_auth *ka = set_key(test, K_PEER, 0x42, 32);
	struct txrdma_auth *kx = set_key(test, K_OTHER, 0x24, 32);
	struct txrdma_cm_priv p = { .kind = TXRDMA_CONN_CTRL,
				    .boot_id = 0x1234 };
	struct txrdma_ctrl_msg m = {
		.type = TXRDMA_CTRL_PROBE,
		.bfd = { .version = 1, .state = TXRDMA_BFD_DOWN,
			 .detect_mult = 4, .my_disc = 7,
			 .desired_min_tx_us = 20000,
			 .required_min_rx_us = 20000 },
		.tx_ns = 1,
	};
	u8 req[TXRDMA_CM_REQ_LEN], rep[TXRDMA_CM_REP_LEN];
	u8 msg[TXRDMA_CTRL_LEN], mac[TXRDMA_MAC_LEN];
	struct txrdma_cm_priv q;
	struct txrdma_ctrl_msg r;

	/* initiator: request with its nonce, MAC truncated */
	memset(p.nonce, 0x11, sizeof(p.nonce));
	KUNIT_ASSERT_EQ(test, txrdma_cm_req_encode(&p, req), 0);
	KUNIT_ASSERT_EQ(test, txrdma_hs_req_mac(ki, req, mac), 0);
	memcpy(req + TXRDMA_HS_LEN, mac, TXRDMA_REQ_MAC_LEN);
	/* acceptor: form, then MAC */
	KUNIT_ASSERT_EQ(test, txrdma_cm_req_decode(&q, req, sizeof(req)), 0);
	KUNIT_ASSERT_EQ(test, txrdma_hs_req_mac(ka, req, mac), 0);
	KUNIT_EXPECT_TRUE(test, txrdma_auth_equal(mac, req + TXRDMA_HS_LEN,
						  TXRDMA_REQ_MAC_LEN));
	KUNIT_ASSERT_EQ(test, txrdma_hs_req_mac(kx, req, mac), 0);
	KUNIT_EXPECT_FALSE(test, txrdma_auth_equal(mac, req + TXRDMA_HS_LEN,
						   TXRDMA_REQ_MAC_LEN));
	/* acceptor: reply with its nonce */
	memset(p.nonce, 0x22, sizeof(p.nonce));
	p.boot_id = 0x5678;
	KUNIT_ASSERT_EQ(test, txrdma_cm_rep_encode(&p, rep), 0);
	KUNIT_ASSERT_EQ(test, txrdma_hs_rep_mac(ka, req, rep, mac), 0);
	memcpy(rep + TXRDMA_HS_LEN, mac, TXRDMA_MAC_LEN);
	/* initiator checks it */
	KUNIT_ASSERT_EQ(test, txrdma_cm_rep_decode(&q, rep, sizeof(rep)), 0);
	KUNIT_EXPECT_EQ(test, q.boot_id, 0x5678U);
	KUNIT_ASSERT_EQ(test, txrdma_hs_rep_mac(ki, req, rep, mac), 0);
	KUNIT_EXPECT_TRUE(test, txrdma_auth_equal(mac, rep + TXRDMA_HS_LEN,
						  TXRDMA_MAC_LEN));
	KUNIT_ASSERT_EQ(test, txrdma_hs_rep_mac(kx, req, rep, mac), 0);
	KUNIT_EXPECT_FALSE(test, txrdma_auth_equal(mac, rep + TXRDMA_HS_LEN,
						   TXRDMA_MAC_LEN));
	/* initiator: AUTH; acceptor checks it */
	txrdma_ctrl_auth_encode(msg);
	KUNIT_ASSERT_EQ(test, txrdma_hs_auth_mac(ki, req, rep,
						 msg + TXRDMA_CTRL_MAC_OFF), 0);
	KUNIT_ASSERT_EQ(test, txrdma_ctrl_auth_decode(msg, sizeof(msg)), 0);
	KUNIT_ASSERT_EQ(test, txrdma_hs_auth_mac(ka, req, rep, mac), 0);
	KUNIT_EXPECT_TRUE(test, txrdma_auth_equal(mac,
						  msg + TXRDMA_CTRL_MAC_OFF,
						  TXRDMA_MAC_LEN));
	/* the reply's MAC does not pass as AUTH's */
	KUNIT_EXPECT_FALSE(test, txrdma_auth_equal(rep + TXRDMA_HS_LEN,
						   msg + TXRDMA_CTRL_MAC_OFF,
						   TXRDMA_MAC_LEN));

	/* session keys; the initiator seals a probe, the acceptor checks */
	KUNIT_ASSERT_EQ(test, txrdma_hs_session(ki, true, req, rep,
						key(test, I_TX),
						key(test, I_RX)), 0);
	KUNIT_ASSERT_EQ(test, txrdma_hs_session(ka, false, req, rep,
						key(test, A_TX),
						key(test, A_RX)), 0);
	KUNIT_ASSERT_EQ(test, txrdma_ctrl_encode(&m, 1, msg), 0);
	KUNIT_ASSERT_EQ(test, txrdma_auth_mac(key(test, I_TX), "", msg,
					      TXRDMA_CTRL_MAC_OFF, NULL, 0,
					      msg + TXRDMA_CTRL_MAC_OFF), 0);
	KUNIT_ASSERT_EQ(test, txrdma_ctrl_decode(&r, msg, sizeof(msg)), 0);
	KUNIT_EXPECT_EQ(test, txrdma_ctrl_seq(msg), 1ULL);
	KUNIT_ASSERT_EQ(test, txrdma_auth_mac(key(test, A_RX), "", msg,
					      TXRDMA_CTRL_MAC_OFF, NULL, 0,
					      mac), 0);
	KUNIT_EXPECT_TRUE(test, txrdma_auth_equal(mac,
						  msg + TXRDMA_CTRL_MAC_OFF,
						  TXRDMA_MAC_LEN));
	/* reflected back to the initiator, it does not check */
	KUNIT_ASSERT_EQ(test, txrdma_auth_mac(key(test, I_RX), "", msg,
					      TXRDMA_CTRL_MAC_OFF, NULL, 0,
					      mac), 0);
	KUNIT_EXPECT_FALSE(test, txrdma_auth_equal(mac,
						   msg + TXRDMA_CTRL_MAC_OFF,
						   TXRDMA_MAC_LEN));
	/* nor does it once its sequence number is changed */
	msg[TXRDMA_CTRL_SEQ_OFF + 7] = 2;
	KUNIT_ASSERT_EQ(test, txrdma_auth_mac(key(test, A_RX), "", msg,
					      TXRDMA_CTRL_MAC_OFF, NULL, 0,
					      mac), 0);
	KUNIT_EXPECT_FALSE(test, txrdma_auth_equal(mac,
						   msg + TXRDMA_CTRL_MAC_OFF,
						   TXRDMA_MAC_LEN));
}

static struct kunit_case txrdma_auth_cases[] = {
	KUNIT_CASE(auth_rfc4231_case1),
	KUNIT_CASE(auth_rfc4231_case3_4),
	KUNIT_CASE(auth_rfc4231_case5),
	KUNIT_CASE(auth_key_bounds),
	KUNIT_CASE(auth_key_lengths_refused),
	KUNIT_CASE(auth_labels),
	KUNIT_CASE(auth_equal),
	KUNIT_CASE(hs_mac_definitions),
	KUNIT_CASE(hs_mac_every_byte),
	KUNIT_CASE(hs_session_keys),
	KUNIT_CASE(hs_session_nonces),
	KUNIT_CASE(hs_session_no_key),
	KUNIT_CASE(hs_end_to_end),
	{}
};

static struct kunit_suite txrdma_auth_suite = {
	.name = "txrdma_auth",
	.init = auth_test_init,
	.exit = auth_test_exit,
	.test_cases = txrdma_auth_cases,
};

kunit_test_suite(txrdma_auth_suite);

MODULE_LICENSE("GPL");
