// SPDX-License-Identifier: GPL-2.0-only
/*
 * Session hand-off: see txrdma_handoff.h.
 *
 * Why the tenant's name is in the token and not on the wire: pairs
 * form only between endpoints of tenants of one name (CONNECT carries
 * it), and a session must not change tenant by moving.  The new host's
 * module computes the token with the name of the tenant its process
 * runs in, the staying side with its own endpoint's: a process of
 * another tenant holding the state gets -EPERM as a forger would, and
 * the HANDOFF needs no room for the name (control messages have 80
 * bytes of payload).
 *
 * Why the sender's address is in the token: the control channel is
 * authenticated, not secret, so a HANDOFF can be seen on the fabric.
 * Another peer of B copying its claim and token onto its own control
 * QP, with the same endpoint number, would otherwise win the session
 * if its copy arrived first.  The address is the one B's administrator
 * gave that peer, which the other peer cannot change by anything it
 * sends (a boot id, by contrast, is the sender's to choose).
 *
 * What refuses a replay: the secret.  It changes with every move, so a
 * state exported before (and used already, or not) makes tokens with a
 * secret the session no longer has: -EPERM, whatever the claim, even
 * one made to look current (B's endpoint numbers and the generation are
 * no secret).  The mover's endpoint and the generation are checked
 * after the token, and only matter to the holder of the current
 * secret: a claim it altered is refused with -ESTALE.  The generation
 * is the one field sure to change with a move (endpoint numbers are
 * per host: the new endpoint may have the old one's number).
 *
 * Inputs are fixed-width big-endian fields after a label of their own,
 * so that no two different claims or identities MAC the same bytes.
 */
#include <linux/errno.h>
#include <linux/string.h>
#include <asm/unaligned.h>

#include <linux/log2.h>
#include <linux/txrdma.h>
#include <linux/txrdma_ring.h>

#include "txrdma_credit.h"
#include "txrdma_frame.h"
#include "txrdma_handoff.h"

#define TXRDMA_HANDOFF_ID_LEN		24	/* struct txrdma_handoff_id */
#define TXRDMA_HANDOFF_CLAIM_LEN	24	/* struct txrdma_handoff_claim */

/**
 * txrdma_handoff_secret() - a session secret
 * @peer_key: the key of the two hosts the session runs between (at
 *	pairing, the key of the path it was paired through; after a
 *	hand-off, the staying host's key for the new one)
 * @id: the session, both module incarnations and its generation
 * @out: the secret
 *
 * Both modules compute it from what each knows; a module that
 * restarted (a new boot id) derives another.
 *
 * Return: 0 or the crypto API's error.
 */
int txrdma_handoff_secret(const struct txrdma_auth *peer_key,
			  const struct txrdma_handoff_id *id,
			  u8 out[TXRDMA_HANDOFF_SECRET_LEN])
{
	u8 in[TXRDMA_HANDOFF_ID_LEN];

	put_unaligned_be32(id->conn_boot, in);
	put_unaligned_be32(id->acc_boot, in + 4);
	put_unaligned_be32(id->conn_ep, in + 8);
	put_unaligned_be32(id->acc_ep, in + 12);
	put_unaligned_be32(id->epoch, in + 16);
	put_unaligned_be32(id->gen, in + 20);
	return txrdma_auth_mac(peer_key, "txrdma-handoff-secret", in,
			       sizeof(in), NULL, 0, out);
}

/**
 * txrdma_handoff_key() - a session secret as a key for tokens
 * @key: set up (txrdma_auth_free() when done)
 * @secret: the secret
 *
 * Process context (allocates).  Tokens are then made and checked in
 * any context.
 *
 * Return: 0 or the crypto API's error.
 */
int txrdma_handoff_key(struct txrdma_auth *key,
		       const u8 secret[TXRDMA_HANDOFF_SECRET_LEN])
{
	return txrdma_auth_init(key, secret, TXRDMA_HANDOFF_SECRET_LEN);
}

/**
 * txrdma_handoff_token() - what proves a HANDOFF's claim
 * @key: the session secret (txrdma_handoff_key())
 * @c: the claim
 * @tenant: the tenant's name, NUL-terminated (at most
 *	TXRDMA_HANDOFF_TENANT_LEN - 1 characters)
 * @out: the token
 *
 * Return: 0; -EINVAL for a name too long; or the crypto API's error.
 */
int txrdma_handoff_token(const struct txrdma_auth *key,
			 const struct txrdma_handoff_claim *c,
			 const char *tenant,
			 u8 out[TXRDMA_HANDOFF_TOKEN_LEN])
{
	u8 in[TXRDMA_HANDOFF_CLAIM_LEN + TXRDMA_HANDOFF_TENANT_LEN] = { 0 };
	size_t n = strnlen(tenant, TXRDMA_HANDOFF_TENANT_LEN);

	if (n == TXRDMA_HANDOFF_TENANT_LEN)
		return -EINVAL;
	put_unaligned_be32(c->dst_ep, in);
	put_unaligned_be32(c->old_ep, in + 4);
	put_unaligned_be32(c->new_ep, in + 8);
	put_unaligned_be32(c->epoch, in + 12);
	put_unaligned_be32(c->gen, in + 16);
	memcpy(in + 20, &c->from_addr, 4);
	memcpy(in + TXRDMA_HANDOFF_CLAIM_LEN, tenant, n);
	return txrdma_auth_mac(key, "txrdma-handoff", in, sizeof(in), NULL, 0,
			       out);
}

/**
 * txrdma_handoff_check() - may a HANDOFF move the session?
 * @s: the staying side's session
 * @c: the HANDOFF's claim, @c->from_addr the address of the peer it
 *	came through
 * @token: the HANDOFF's token
 *
 * Any context (the key is set up).
 *
 * Return: 0 (the caller moves the session to the sender's @c->new_ep,
 * generation @c->gen + 1, with the secret of that generation); -ENOENT
 * when @s is not the pair @c names (@c->dst_ep, @c->epoch), it ended,
 * or @c names no new endpoint; -EPERM when the token does not check
 * (forged, made for another sender, for a tenant of another name, or
 * with a secret the session no longer has: a state used already);
 * -ESTALE when the claim is genuine but does not name the session's
 * current place (the mover's endpoint, the generation); -EINVAL when
 * @s's tenant name is too long; or the crypto API's error.
 */
int txrdma_handoff_check(const struct txrdma_handoff_sess *s,
			 const struct txrdma_handoff_claim *c,
			 const u8 token[TXRDMA_HANDOFF_TOKEN_LEN])
{
	u8 want[TXRDMA_HANDOFF_TOKEN_LEN];
	int ret;

	if (s->ended || c->dst_ep != s->ep || c->epoch != s->epoch ||
	    !c->new_ep)
		return -ENOENT;
	ret = txrdma_handoff_token(s->key, c, s->tenant, want);
	if (!ret && !txrdma_auth_equal(want, token, sizeof(want)))
		ret = -EPERM;
	memzero_explicit(want, sizeof(want));
	if (ret)
		return ret;
	return c->old_ep == s->peer_ep && c->gen == s->gen ? 0 : -ESTALE;
}

/**
 * txrdma_handoff_trailer() - does a SEND of @len bytes carry a trailer?
 * @st: the session
 * @len: its payload bytes
 *
 * The rule the sender applied (txrdma_tx_send()): the other side's
 * process reads frames ahead, and the frame with its trailer still
 * fits the longest SEND that side takes.
 */
bool txrdma_handoff_trailer(const struct txrdma_sess_state *st, u32 len)
{
	return len <= st->peer_ahead_max &&
	       len + TXRDMA_FRAME_TRAILER_LEN <= st->peer_max_msg;
}

/* A ring size a pair may have (TXRDMA_IOC_EP_CONNECT's rule). */
static bool txrdma_handoff_ring_ok(u32 units)
{
	return units >= TXRDMA_RX_MIN_UNITS && units <= TXRDMA_RX_MAX_UNITS &&
	       is_power_of_2(units);
}

/**
 * txrdma_handoff_state_check() - may a session be resumed from @st?
 * @st: a session's state as a process gives it back
 *	(TXRDMA_IOC_EP_SESS_IMPORT)
 * @sends: its @st->nsends unsettled SENDs, oldest first
 * @frame_starts: if not NULL, filled with each frame's first unit in
 *	the other side's ring, free-running (what its trailer names)
 *
 * The importing module checks what the state says as it checks an
 * SQE: nothing in it may make the module write outside the process's
 * own ring and regions, place a frame where the credits it claims do
 * not allow, or send frames out of order.  A state that passes and
 * still lies can only break its own session (the other side's resume
 * report refuses frames that do not fit, txrdma_resume_plan()).  The
 * regions the SENDs name are the caller's to check.
 *
 * Return: 0, or -EINVAL.
 */
int txrdma_handoff_state_check(const struct txrdma_sess_state *st,
			       const struct txrdma_sess_send *sends,
			       u32 *frame_starts)
{
	struct txrdma_credit_tx c;
	u32 i, unit, units, first;

	if (st->version != TXRDMA_SESS_STATE_VERSION || st->resv0 ||
	    memchr_inv(st->resv, 0, sizeof(st->resv)))
		return -EINVAL;
	if (st->flags & ~TXRDMA_EP_F_ALL || !(st->flags & TXRDMA_EP_F_SESSION))
		return -EINVAL;
	if (!st->service || !st->ep || !st->peer_ep || !st->epoch ||
	    !st->grace_ms || st->grace_ms > TXRDMA_EP_GRACE_MAX_MS)
		return -EINVAL;
	/* our ring: as a connect would take it, its counters consistent */
	if (!txrdma_handoff_ring_ok(st->rx_units) || !st->rx_max_msg ||
	    st->rx_max_msg > txrdma_frame_ring_max(st->rx_units))
		return -EINVAL;
	if (st->rx_tail - st->rx_consumed > st->rx_units ||
	    st->rx_consumed - st->rx_reported > st->rx_units)
		return -EINVAL;
	/* the other side's ring */
	if (!txrdma_handoff_ring_ok(st->peer_units) || !st->peer_max_msg ||
	    st->peer_max_msg > txrdma_frame_ring_max(st->peer_units) ||
	    st->peer_ahead_max > st->peer_max_msg ||
	    st->peer_ahead_max > TXRDMA_RX_AHEAD_MAX_PAYLOAD)
		return -EINVAL;
	if (txrdma_credit_tx_init(&c, st->peer_units) ||
	    st->tx_head - st->tx_released > st->peer_units)
		return -EINVAL;
	/*
	 * A session keeps one send slot for credit updates
	 * (txrdma_tx_admit_slot_locked()): it never has every slot's SEND
	 * unsettled, and one imported so would leave its updates no slot
	 */
	if (st->nsends >= TXRDMA_SESS_SENDS_MAX)
		return -EINVAL;
	/*
	 * The unsettled SENDs are the last frames sent, in order, each
	 * placed right after the one before, the last ending at the head
	 */
	first = st->tx_seq - st->nsends;
	c.head = st->nsends ? sends[0].start : st->tx_head;
	for (i = 0; i < st->nsends; i++) {
		const struct txrdma_sess_send *s = &sends[i];

		if (s->resv || s->flags & ~(TXRDMA_SQE_F_NO_CQE |
					    TXRDMA_SQE_F_FENCE))
			return -EINVAL;
		if (s->seq != first + i || s->start != c.head ||
		    s->len > st->peer_max_msg)
			return -EINVAL;
		units = txrdma_frame_units(s->len +
					   (txrdma_handoff_trailer(st, s->len) ?
					    TXRDMA_FRAME_TRAILER_LEN : 0));
		/* where it goes, whatever the credits (checked below) */
		c.released = c.head;
		if (s->units != units || txrdma_credit_place(&c, units, &unit) ||
		    s->unit != unit)
			return -EINVAL;
		if (frame_starts)
			frame_starts[i] = c.head - units;
	}
	/*
	 * Not checked: that they lie after the other side's released
	 * units.  It may have taken, published and released a frame whose
	 * acknowledgment we never saw (its report came in a frame of its
	 * own first): that frame is unsettled here and released there.
	 */
	if (c.head != st->tx_head)
		return -EINVAL;
	return 0;
}
