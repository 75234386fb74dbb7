// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite txrdma_handoff: the secret and the token are the HMACs
 * the design essay names (known answers, computed apart with Python's
 * hmac module); the secret is the same on both modules of a session
 * and changes with every field of its identity and with the key; the
 * token changes with every field of the claim and with the tenant's
 * name; txrdma_handoff_check() takes exactly the claim the holder of
 * the current secret made for the session's current place, from the
 * host it was made for, and says why it refuses any other (-ENOENT,
 * -EPERM, -ESTALE); and over a session moved many times, with every
 * exported state kept and offered again (as it was, and made to look
 * current), each state moves the session at most once, only the newest
 * moves it at all, and the secret follows the moves.
 */
#include <kunit/test.h>
#include <linux/errno.h>
#include <linux/random.h>
#include <linux/string.h>

#include <linux/txrdma.h>
#include <linux/txrdma_ring.h>
#include "../txrdma_auth.h"
#include "../txrdma_credit.h"
#include "../txrdma_frame.h"
#include "../txrdma_handoff.h"

#define SECRET_LEN	TXRDMA_HANDOFF_SECRET_LEN
#define TOKEN_LEN	TXRDMA_HANDOFF_TOKEN_LEN
/* 198.51.100.7 and .9 (RFC 5737), network order */
#define ADDR_C		cpu_to_be32(0xc6336407)
#define ADDR_D		cpu_to_be32(0xc6336409)

/* keys and session keys of one case, freed after it */
struct ho_ctx {
	struct txrdma_auth k_ab;	/* A's key for B */
	struct txrdma_auth k_ba;	/* B's for A: the same bytes */
	struct txrdma_auth k_bc;	/* B's key for C (and C's for B) */
	struct txrdma_auth k_other;	/* a host pair's we are not */
	struct txrdma_auth s[4];	/* session secrets as keys */
};

static void ho_peer_key(struct kunit *test, struct txrdma_auth *a, u8 fill)
{
	u8 raw[32];

	memset(raw, fill, sizeof(raw));
	KUNIT_ASSERT_EQ(test, txrdma_auth_init(a, raw, sizeof(raw)), 0);
}

static int ho_init(struct kunit *test)
{
	struct ho_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	if (!c)
		return -ENOMEM;
	test->priv = c;
	ho_peer_key(test, &c->k_ab, 0x5a);
	ho_peer_key(test, &c->k_ba, 0x5a);
	ho_peer_key(test, &c->k_bc, 0x6b);
	ho_peer_key(test, &c->k_other, 0x5b);
	return 0;
}

static void ho_exit(struct kunit *test)
{
	struct ho_ctx *c = test->priv;
	unsigned int i;

	if (!c)
		return;
	txrdma_auth_free(&c->k_ab);
	txrdma_auth_free(&c->k_ba);
	txrdma_auth_free(&c->k_bc);
	txrdma_auth_free(&c->k_other);
	for (i = 0; i < ARRAY_SIZE(c->s); i++)
		txrdma_auth_free(&c->s[i]);
}

static const struct txrdma_handoff_id good_id = {
	.conn_boot = 0x1001, .acc_boot = 0x2002, .conn_ep = 0x11,
	.acc_ep = 0x22, .epoch = 0x01020305, .gen = 0,
};

/* the mover (connector 0x11) goes to endpoint 0x33 of host C */
static struct txrdma_handoff_claim good_claim(void)
{
	return (struct txrdma_handoff_claim) {
		.dst_ep = 0x22, .old_ep = 0x11, .new_ep = 0x33,
		.epoch = 0x01020305, .gen = 0, .from_addr = ADDR_C,
	};
}

/* HMAC-SHA256(32 x 0x5a, "txrdma-handoff-secret" | good_id, big-endian) */
static const u8 kat_secret[SECRET_LEN] = {
	0x0c, 0xd5, 0x14, 0x0a, 0xde, 0xee, 0x4a, 0x66,
	0x51, 0x61, 0xe8, 0x34, 0x81, 0x1a, 0x0e, 0x6a,
	0x97, 0xf9, 0xb0, 0x24, 0x1d, 0xdc, 0x55, 0x2c,
	0x04, 0x5c, 0xfd, 0xa6, 0x4c, 0xd0, 0x92, 0xb8,
};

/* HMAC-SHA256(kat_secret, "txrdma-handoff" | good_claim | "db" padded) */
static const u8 kat_token[TOKEN_LEN] = {
	0xde, 0xc4, 0x32, 0x83, 0x7e, 0xa1, 0x4b, 0x27,
	0xf7, 0xfd, 0xf7, 0x2d, 0xa0, 0x9a, 0x3e, 0x91,
	0xd0, 0x96, 0x43, 0x0d, 0xcf, 0x2f, 0xe1, 0x37,
	0xf7, 0xb0, 0xd4, 0x30, 0x3d, 0x58, 0xec, 0x6e,
};

static void secret_of(struct kunit *test, const struct txrdma_auth *k,
		      const struct txrdma_handoff_id *id, u8 *out)
{
	KUNIT_ASSERT_EQ(test, txrdma_handoff_secret(k, id, out), 0);
}

/* session key slot @i of the case, keyed with secret @secret */
static struct txrdma_auth *skey(struct kunit *test, unsigned int i,
				const u8 *secret)
{
	struct ho_ctx *c = test->priv;

	txrdma_auth_free(&c->s[i]);
	KUNIT_ASSERT_EQ(test, txrdma_handoff_key(&c->s[i], secret), 0);
	return &c->s[i];
}

static void token_of(struct kunit *test, const struct txrdma_auth *key,
		     const struct txrdma_handoff_claim *cl, const char *tenant,
		     u8 *out)
{
	KUNIT_ASSERT_EQ(test, txrdma_handoff_token(key, cl, tenant, out), 0);
}

static void handoff_known_answers(struct kunit *test)
{
	struct ho_ctx *c = test->priv;
	struct txrdma_handoff_claim cl = good_claim();
	u8 s[SECRET_LEN], t[TOKEN_LEN];

	secret_of(test, &c->k_ab, &good_id, s);
	KUNIT_EXPECT_EQ(test, memcmp(s, kat_secret, SECRET_LEN), 0);
	token_of(test, skey(test, 0, s), &cl, "db", t);
	KUNIT_EXPECT_EQ(test, memcmp(t, kat_token, TOKEN_LEN), 0);
}

static void handoff_secret(struct kunit *test)
{
	struct ho_ctx *c = test->priv;
	u8 a[SECRET_LEN], b[SECRET_LEN], x[SECRET_LEN];
	struct txrdma_handoff_id id;
	int f;

	/* both ends of the pairing derive the same secret */
	secret_of(test, &c->k_ab, &good_id, a);
	secret_of(test, &c->k_ba, &good_id, b);
	KUNIT_EXPECT_EQ(test, memcmp(a, b, SECRET_LEN), 0);
	/* another key, another secret */
	secret_of(test, &c->k_other, &good_id, x);
	KUNIT_EXPECT_NE(test, memcmp(a, x, SECRET_LEN), 0);
	/* each field of the identity changes it, even by one bit */
	for (f = 0; f < 6; f++) {
		id = good_id;
		switch (f) {
		case 0:
			id.conn_boot ^= 1;
			break;
		case 1:
			id.acc_boot ^= 0x80000000;
			break;
		case 2:
			id.conn_ep ^= 1;
			break;
		case 3:
			id.acc_ep ^= 1;
			break;
		case 4:
			id.epoch ^= 1;
			break;
		default:
			id.gen++;
			break;
		}
		secret_of(test, &c->k_ab, &id, x);
		KUNIT_EXPECT_NE_MSG(test, memcmp(a, x, SECRET_LEN), 0,
				    "field %d", f);
	}
	/* the fields are not interchangeable: both ids swapped differ */
	id = good_id;
	swap(id.conn_ep, id.acc_ep);
	secret_of(test, &c->k_ab, &id, x);
	KUNIT_EXPECT_NE(test, memcmp(a, x, SECRET_LEN), 0);
}

static void handoff_token(struct kunit *test)
{
	struct ho_ctx *c = test->priv;
	struct txrdma_handoff_claim cl;
	char long_name[TXRDMA_HANDOFF_TENANT_LEN + 1];
	u8 s[SECRET_LEN], t[TOKEN_LEN], x[TOKEN_LEN];
	struct txrdma_auth *k;
	int f;

	secret_of(test, &c->k_ab, &good_id, s);
	k = skey(test, 0, s);
	cl = good_claim();
	token_of(test, k, &cl, "db", t);
	/* the same claim, the same token; another secret, another */
	token_of(test, k, &cl, "db", x);
	KUNIT_EXPECT_EQ(test, memcmp(t, x, TOKEN_LEN), 0);
	s[SECRET_LEN - 1] ^= 1;
	token_of(test, skey(test, 1, s), &cl, "db", x);
	KUNIT_EXPECT_NE(test, memcmp(t, x, TOKEN_LEN), 0);
	/* each field of the claim changes it */
	for (f = 0; f < 6; f++) {
		cl = good_claim();
		switch (f) {
		case 0:
			cl.dst_ep++;
			break;
		case 1:
			cl.old_ep++;
			break;
		case 2:
			cl.new_ep++;
			break;
		case 3:
			cl.epoch++;
			break;
		case 4:
			cl.gen++;
			break;
		default:
			cl.from_addr = ADDR_D;
			break;
		}
		token_of(test, k, &cl, "db", x);
		KUNIT_EXPECT_NE_MSG(test, memcmp(t, x, TOKEN_LEN), 0,
				    "field %d", f);
	}
	/* and the tenant's name: another, a longer one */
	cl = good_claim();
	token_of(test, k, &cl, "dc", x);
	KUNIT_EXPECT_NE(test, memcmp(t, x, TOKEN_LEN), 0);
	token_of(test, k, &cl, "db0", x);
	KUNIT_EXPECT_NE(test, memcmp(t, x, TOKEN_LEN), 0);
	/* a name of 31 characters is one; 32 are not */
	memset(long_name, 'a', sizeof(long_name));
	long_name[TXRDMA_HANDOFF_TENANT_LEN - 1] = '\0';
	token_of(test, k, &cl, long_name, x);
	long_name[TXRDMA_HANDOFF_TENANT_LEN - 1] = 'a';
	long_name[TXRDMA_HANDOFF_TENANT_LEN] = '\0';
	KUNIT_EXPECT_EQ(test, txrdma_handoff_token(k, &cl, long_name, x),
			-EINVAL);
}

/* B's session as good_claim() finds it, with key @key */
static void good_sess(struct txrdma_handoff_sess *s,
		      const struct txrdma_auth *key)
{
	*s = (struct txrdma_handoff_sess) {
		.ep = 0x22, .peer_ep = 0x11, .epoch = 0x01020305, .gen = 0,
		.tenant = "db", .key = key,
	};
}

static void handoff_check(struct kunit *test)
{
	struct ho_ctx *c = test->priv;
	u8 sa[SECRET_LEN], sb[SECRET_LEN], sx[SECRET_LEN];
	u8 t[TOKEN_LEN], bad[TOKEN_LEN];
	struct txrdma_auth *ka, *kb;
	struct txrdma_handoff_claim cl, good = good_claim();
	struct txrdma_handoff_sess s;
	unsigned int i;
	int f;

	/* A's process got sa; B derived sb on its own */
	secret_of(test, &c->k_ab, &good_id, sa);
	secret_of(test, &c->k_ba, &good_id, sb);
	ka = skey(test, 0, sa);
	kb = skey(test, 1, sb);
	token_of(test, ka, &good, "db", t);
	good_sess(&s, kb);
	KUNIT_EXPECT_EQ(test, txrdma_handoff_check(&s, &good, t), 0);

	/* not this pair: its endpoint, its epoch; ended; no new endpoint */
	for (f = 0; f < 4; f++) {
		cl = good;
		good_sess(&s, kb);
		if (f == 0)
			cl.dst_ep++;
		else if (f == 1)
			cl.epoch++;
		else if (f == 2)
			cl.new_ep = 0;
		else
			s.ended = true;
		/* whatever the token: nothing to check it against */
		token_of(test, ka, &cl, "db", bad);
		KUNIT_EXPECT_EQ_MSG(test, txrdma_handoff_check(&s, &cl, bad),
				    -ENOENT, "case %d", f);
	}

	/* a token with any byte wrong */
	good_sess(&s, kb);
	for (i = 0; i < TOKEN_LEN; i++) {
		memcpy(bad, t, TOKEN_LEN);
		bad[i] ^= 1 << (i % 8);
		KUNIT_EXPECT_EQ_MSG(test, txrdma_handoff_check(&s, &good, bad),
				    -EPERM, "byte %u", i);
	}
	/* ... made with another pairing's secret */
	secret_of(test, &c->k_other, &good_id, sx);
	token_of(test, skey(test, 2, sx), &good, "db", bad);
	KUNIT_EXPECT_EQ(test, txrdma_handoff_check(&s, &good, bad), -EPERM);
	/* ... by a process of a tenant of another name */
	token_of(test, ka, &good, "web", bad);
	KUNIT_EXPECT_EQ(test, txrdma_handoff_check(&s, &good, bad), -EPERM);
	/* ... claiming another new endpoint than it proves */
	cl = good;
	cl.new_ep = 0x34;
	KUNIT_EXPECT_EQ(test, txrdma_handoff_check(&s, &cl, t), -EPERM);
	/* ... or C's genuine HANDOFF copied by host D onto its own QP */
	cl = good;
	cl.from_addr = ADDR_D;
	KUNIT_EXPECT_EQ(test, txrdma_handoff_check(&s, &cl, t), -EPERM);

	/* genuine, for the mover's endpoint before a move */
	cl = good;
	cl.old_ep = 0x10;
	token_of(test, ka, &cl, "db", bad);
	KUNIT_EXPECT_EQ(test, txrdma_handoff_check(&s, &cl, bad), -ESTALE);
	/* genuine, of an older generation, and of a newer one */
	s.gen = 1;
	KUNIT_EXPECT_EQ(test, txrdma_handoff_check(&s, &good, t), -ESTALE);
	cl = good;
	cl.gen = 2;
	token_of(test, ka, &cl, "db", bad);
	KUNIT_EXPECT_EQ(test, txrdma_handoff_check(&s, &cl, bad), -ESTALE);
	cl.gen = 1;
	token_of(test, ka, &cl, "db", bad);
	KUNIT_EXPECT_EQ(test, txrdma_handoff_check(&s, &cl, bad), 0);
	/* a forged token says forged, whatever it claims */
	bad[0] ^= 1;
	s.gen = 2;
	KUNIT_EXPECT_EQ(test, txrdma_handoff_check(&s, &cl, bad), -EPERM);
}

/*
 * A session moves 32 times between hosts whose endpoint numbers
 * collide (every new endpoint has the number of the one before, so
 * only the generation tells the places apart).  At each move an
 * attacker holds every state exported so far (secret, endpoint,
 * generation) and offers each to B twice: as it was, then made to look
 * current (B's endpoint and generation now, which are no secret).  B
 * accepts exactly one HANDOFF per move, the newest state's as it was;
 * every other is refused with -EPERM, because B's secret follows the
 * moves (an older state's secret is not the session's any more, and
 * neither is the newest one's once it moved the session).  The newest
 * state with its generation changed is genuine for what it claims and
 * refused with -ESTALE.
 */
#define HO_MOVES	32

struct ho_state {
	u8 secret[SECRET_LEN];
	u32 ep;
	u32 gen;
};

static void handoff_moves(struct kunit *test)
{
	struct ho_ctx *c = test->priv;
	struct ho_state *states;
	struct txrdma_handoff_claim cl;
	struct txrdma_handoff_sess s;
	struct txrdma_handoff_id id = good_id;
	u8 sb[SECRET_LEN], t[TOKEN_LEN];
	struct rnd_state rnd;
	unsigned int move, j, k, n = 0, accepted, stale = 0, forged = 0;
	const u32 ep = 0x11;	/* every host gives the mover number 0x11 */

	states = kunit_kcalloc(test, HO_MOVES, sizeof(*states), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, states);
	prandom_seed_state(&rnd, 42);
	secret_of(test, &c->k_ba, &id, sb);
	good_sess(&s, skey(test, 1, sb));
	for (move = 0; move < HO_MOVES; move++) {
		struct ho_state *cur = &states[n++];
		struct txrdma_auth *key;
		int ret;

		/* the mover's process exports: the secret, where it is */
		memcpy(cur->secret, sb, SECRET_LEN);
		cur->ep = ep;
		cur->gen = s.gen;
		/* the newest state, its generation changed: genuine, stale */
		cl = (struct txrdma_handoff_claim) {
			.dst_ep = s.ep, .old_ep = ep, .new_ep = ep,
			.epoch = s.epoch, .gen = s.gen + 1,
			.from_addr = ADDR_C,
		};
		key = skey(test, 2, cur->secret);
		token_of(test, key, &cl, "db", t);
		ret = txrdma_handoff_check(&s, &cl, t);
		KUNIT_EXPECT_EQ_MSG(test, ret, -ESTALE, "move %u", move);
		stale += ret == -ESTALE;

		accepted = 0;
		/* every state so far, from a random one on, wrapping */
		k = prandom_u32_state(&rnd) % n;
		for (j = 0; j < 2 * n; j++, k = (k + 1) % n) {
			bool as_now = j >= n;

			key = skey(test, 2, states[k].secret);
			cl = (struct txrdma_handoff_claim) {
				.dst_ep = s.ep, .epoch = s.epoch,
				.new_ep = ep, .from_addr = ADDR_C,
				.old_ep = as_now ? s.peer_ep : states[k].ep,
				.gen = as_now ? s.gen : states[k].gen,
			};
			token_of(test, key, &cl, "db", t);
			ret = txrdma_handoff_check(&s, &cl, t);
			if (!ret) {
				/* only the newest, as it was, once */
				KUNIT_EXPECT_EQ(test, k, n - 1);
				KUNIT_EXPECT_FALSE(test, as_now);
				KUNIT_EXPECT_EQ(test, accepted, 0U);
				accepted++;
				/* B moves it: the new host's key, gen + 1 */
				id.gen = s.gen + 1;
				secret_of(test, &c->k_bc, &id, sb);
				good_sess(&s, skey(test, 1, sb));
				s.peer_ep = cl.new_ep;
				s.gen = id.gen;
				continue;
			}
			KUNIT_EXPECT_EQ_MSG(test, ret, -EPERM,
					    "move %u state %u %s", move, k,
					    as_now ? "as now" : "as was");
			forged += ret == -EPERM;
		}
		KUNIT_EXPECT_EQ_MSG(test, accepted, 1U, "move %u", move);
	}
	KUNIT_EXPECT_EQ(test, s.gen, (u32)HO_MOVES);
	KUNIT_EXPECT_EQ(test, stale, (unsigned int)HO_MOVES);
	/* per move m: 2 (m + 1) offers, one of them accepted */
	KUNIT_EXPECT_EQ(test, forged, (unsigned int)(HO_MOVES * HO_MOVES));
}

/*
 * A state as a sender leaves it: @n SENDs of growing sizes placed one
 * after the other from head @head0 in a peer ring of 128 units (so
 * that some wrap and skip the ring's tail), with trailers on those of
 * at most 256 bytes.
 */
static void ho_state(struct txrdma_sess_state *st,
		     struct txrdma_sess_send *sends, u32 n, u32 head0)
{
	struct txrdma_credit_tx c;
	u32 i, unit, units;

	*st = (struct txrdma_sess_state) {
		.version	= TXRDMA_SESS_STATE_VERSION,
		.flags		= TXRDMA_EP_F_SESSION,
		.ep		= 7,
		.peer_ep	= 9,
		.epoch		= 0x1234567,
		.grace_ms	= 1000,
		.service	= 5,
		.rx_units	= 128,
		.rx_max_msg	= 1024,
		.rx_seq		= 40,
		.rx_tail	= 300,
		.rx_consumed	= 250,
		.rx_reported	= 200,
		.peer_units	= 128,
		.peer_max_msg	= 128 / 2 * 64 - 32,
		.peer_ahead_max	= 256,
		.tx_seq		= 1000,
		.nsends		= n,
	};
	txrdma_credit_tx_init(&c, st->peer_units);
	c.head = head0;
	for (i = 0; i < n; i++) {
		u32 len = 100 * i + 30;

		c.released = c.head;
		units = txrdma_frame_units(len + (txrdma_handoff_trailer(st, len) ?
					   TXRDMA_FRAME_TRAILER_LEN : 0));
		sends[i] = (struct txrdma_sess_send) {
			.user_data	= i,
			.region		= 3,
			.off		= 4096 * i,
			.len		= len,
			.seq		= st->tx_seq - n + i,
			.start		= c.head,
			.units		= units,
		};
		txrdma_credit_place(&c, units, &unit);
		sends[i].unit = unit;
	}
	st->tx_head = c.head;
	st->tx_released = head0;
}

/*
 * What an import takes: a state exactly as left, with the frames'
 * places and the counters consistent; any one field altered so that
 * it would have the module place a frame elsewhere, out of order, or
 * beyond the credits, or name a ring it cannot have, is refused.
 */
static void handoff_state(struct kunit *test)
{
	struct txrdma_sess_send sends[8], bad[8];
	struct txrdma_sess_state st, t;
	u32 starts[8], i;

	/* from every place in the ring, wrapping included */
	for (i = 0; i < 128; i++) {
		ho_state(&st, sends, 8, 0xffffffa0U + i);
		KUNIT_EXPECT_EQ_MSG(test, txrdma_handoff_state_check(&st, sends,
								     starts),
				    0, "head0 %u", i);
		KUNIT_EXPECT_EQ(test, starts[7] & 127, sends[7].unit);
	}
	ho_state(&st, sends, 0, 77);
	KUNIT_EXPECT_EQ(test, txrdma_handoff_state_check(&st, NULL, NULL), 0);
	/*
	 * The other side released frames still unsettled here (their
	 * acknowledgments lost, its report not): a state as good
	 */
	ho_state(&st, sends, 8, 60);
	st.tx_released = sends[5].start;
	KUNIT_EXPECT_EQ(test, txrdma_handoff_state_check(&st, sends, NULL), 0);

	ho_state(&st, sends, 8, 60);
#define HO_BAD_STATE(field, val) do {					\
		t = st;							\
		t.field = (val);					\
		KUNIT_EXPECT_EQ_MSG(test, txrdma_handoff_state_check(&t, sends, \
								     NULL), \
				    -EINVAL, #field);			\
	} while (0)
	HO_BAD_STATE(version, 2);
	HO_BAD_STATE(resv0, 1);
	HO_BAD_STATE(resv[3], 1);
	HO_BAD_STATE(flags, 0);
	HO_BAD_STATE(flags, TXRDMA_EP_F_SESSION | 0x100);
	HO_BAD_STATE(grace_ms, 0);
	HO_BAD_STATE(grace_ms, TXRDMA_EP_GRACE_MAX_MS + 1);
	HO_BAD_STATE(rx_units, 100);
	HO_BAD_STATE(rx_units, TXRDMA_RX_MAX_UNITS * 2);
	HO_BAD_STATE(rx_max_msg, 128 / 2 * 64);
	HO_BAD_STATE(rx_consumed, st.rx_tail - 129);
	HO_BAD_STATE(rx_reported, st.rx_consumed + 1);
	HO_BAD_STATE(peer_units, 32);
	HO_BAD_STATE(peer_max_msg, 0);
	HO_BAD_STATE(peer_ahead_max, st.peer_max_msg + 1);
	HO_BAD_STATE(tx_head, st.tx_head + 1);
	HO_BAD_STATE(tx_released, st.tx_head - 129);
	HO_BAD_STATE(tx_seq, st.tx_seq + 1);
	HO_BAD_STATE(nsends, TXRDMA_SESS_SENDS_MAX + 1);
	HO_BAD_STATE(nsends, TXRDMA_SESS_SENDS_MAX);
#undef HO_BAD_STATE
#define HO_BAD_SEND(k, field, val) do {					\
		memcpy(bad, sends, sizeof(bad));			\
		bad[k].field = (val);					\
		KUNIT_EXPECT_EQ_MSG(test, txrdma_handoff_state_check(&st, bad, \
								     NULL), \
				    -EINVAL, #field);			\
	} while (0)
	HO_BAD_SEND(3, seq, sends[3].seq + 1);
	HO_BAD_SEND(3, start, sends[3].start + 1);
	HO_BAD_SEND(3, unit, (sends[3].unit + 1) & 127);
	HO_BAD_SEND(3, units, sends[3].units + 1);
	HO_BAD_SEND(3, len, sends[3].len + 64);
	HO_BAD_SEND(3, len, st.peer_max_msg + 1);
	HO_BAD_SEND(3, flags, TXRDMA_SQE_F_IDEMPOTENT);
	HO_BAD_SEND(3, resv, 1);
	HO_BAD_SEND(0, start, sends[0].start - 1);
	/* the trailer rule decides the units: 30 bytes fit 1 without one */
	HO_BAD_SEND(0, units, txrdma_frame_units(sends[0].len));
#undef HO_BAD_SEND
}

static struct kunit_case txrdma_handoff_cases[] = {
	KUNIT_CASE(handoff_known_answers),
	KUNIT_CASE(handoff_secret),
	KUNIT_CASE(handoff_token),
	KUNIT_CASE(handoff_check),
	KUNIT_CASE(handoff_moves),
	KUNIT_CASE(handoff_state),
	{}
};

static struct kunit_suite txrdma_handoff_suite = {
	.name = "txrdma_handoff",
	.init = ho_init,
	.exit = ho_exit,
	.test_cases = txrdma_handoff_cases,
};

kunit_test_suite(txrdma_handoff_suite);
