/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Session hand-off: one side of a session moves to another host (the
 * same process, checkpointed and restored there), as pure logic (no
 * rdma/ headers; HMAC-SHA256 through txrdma_auth.h): KUnit on UML.
 *
 * The parties: the mover's old host A, the host B that stays, the new
 * host C (C may be A again: nothing assumes otherwise).  A and B
 * paired the session; C is a peer of B with a key of its own that has
 * never seen the session.
 *
 * What proves that C speaks for the session: a secret that only the
 * two modules the session runs between and the process that moves it
 * know.  Both modules derive it (txrdma_handoff_secret()) from their
 * peer key, both module incarnations, the session's identity and its
 * hand-off generation; nothing carries it on the wire.  A's module
 * hands it to its process in the exported state and to no one else:
 * the peer key stays in the kernel (HMAC is one-way), and a secret is
 * worth one generation of one session.
 *
 * What C sends B, on its own authenticated control QP: HANDOFF, naming
 * B's endpoint, the mover's endpoint before and after, the epoch, the
 * generation, and a token: HMAC(secret) over those, the address C
 * sends from as B knows it, and the tenant's name
 * (txrdma_handoff_token()).  B checks it (txrdma_handoff_check()): a
 * session of its own by that endpoint and epoch, not ended (else
 * -ENOENT); a token that checks (else -EPERM: forged, sent by another
 * host than the one it was made for, for a tenant of another name, or
 * made with a secret the session no longer has: a state exported
 * before and used already); the mover's endpoint and the generation as
 * B knows them now (else -ESTALE: the current state, altered).
 *
 * Then B moves the session to C: the mover's endpoint, the peer, the
 * generation one higher, and a new secret, which B and C derive from
 * their own key (K_BC) and the new generation: whoever kept a copy of
 * an older state (a second copy of the checkpoint, A's module, a log)
 * holds a secret B no longer takes, even for a claim made to look
 * current.  C's process learns the new secret only when it exports in
 * turn.  So one exported state moves a session at most once, and
 * only the newest moves it at all.
 *
 * What B does next is a resume (txrdma_session.h): the mover drives it
 * from the new host (it is the connector from then on, whichever side
 * connected), B closes and reaps the old host's QP if it had not lost
 * it yet, and the RESUME/RESUMED reports say which frames to send
 * again.  A's module froze the session when its process exported it:
 * it sends nothing more for it, never resumes it, and forgets its
 * secret.
 *
 * Peer keys must differ between host pairs: a key several hosts share
 * lets each of them derive the others' session secrets.
 */
#ifndef _TXRDMA_HANDOFF_H
#define _TXRDMA_HANDOFF_H

#include <linux/types.h>

#include "txrdma_auth.h"

#define TXRDMA_HANDOFF_SECRET_LEN	TXRDMA_MAC_LEN
#define TXRDMA_HANDOFF_TOKEN_LEN	TXRDMA_MAC_LEN
/* a tenant's name in the token: NUL-padded, as on the wire */
#define TXRDMA_HANDOFF_TENANT_LEN	32

/**
 * struct txrdma_handoff_id - what a session secret is derived from
 * @conn_boot: the connecting side's module incarnation (its boot id);
 *	after a hand-off, the new host's (the mover connects from then on)
 * @acc_boot: the other side's
 * @conn_ep: the connecting side's endpoint id (after a hand-off, the
 *	mover's new one)
 * @acc_ep: the other side's
 * @epoch: the pair's epoch (chosen by the connector at pairing)
 * @gen: hand-offs the session had (0 at pairing)
 */
struct txrdma_handoff_id {
	u32 conn_boot;
	u32 acc_boot;
	u32 conn_ep;
	u32 acc_ep;
	u32 epoch;
	u32 gen;
};

/**
 * struct txrdma_handoff_claim - what a HANDOFF says
 * @dst_ep: the staying side's endpoint
 * @old_ep: the mover's endpoint before the move
 * @new_ep: its endpoint after, on the host that sends the HANDOFF
 * @epoch: the pair's epoch
 * @gen: hand-offs the session had before this one
 * @from_addr: the IPv4 address the HANDOFF's control QP comes from, as
 *	the staying side's peer entry has it (network order): a token
 *	made for one host is worth nothing from another
 */
struct txrdma_handoff_claim {
	u32 dst_ep;
	u32 old_ep;
	u32 new_ep;
	u32 epoch;
	u32 gen;
	__be32 from_addr;
};

/**
 * struct txrdma_handoff_sess - the staying side's session, as a
 *	HANDOFF is checked against it (a snapshot taken under its lock)
 * @ep: its endpoint id
 * @peer_ep: the mover's endpoint, as the session knows it now
 * @epoch: the pair's epoch
 * @gen: hand-offs the session had
 * @ended: it failed, is being closed, or its grace is over
 * @tenant: its tenant's name (NUL-terminated)
 * @key: the current session secret, as a key (txrdma_handoff_key())
 */
struct txrdma_handoff_sess {
	u32 ep;
	u32 peer_ep;
	u32 epoch;
	u32 gen;
	bool ended;
	const char *tenant;
	const struct txrdma_auth *key;
};

int txrdma_handoff_secret(const struct txrdma_auth *peer_key,
			  const struct txrdma_handoff_id *id,
			  u8 out[TXRDMA_HANDOFF_SECRET_LEN]);
int txrdma_handoff_key(struct txrdma_auth *key,
		       const u8 secret[TXRDMA_HANDOFF_SECRET_LEN]);
int txrdma_handoff_token(const struct txrdma_auth *key,
			 const struct txrdma_handoff_claim *c,
			 const char *tenant,
			 u8 out[TXRDMA_HANDOFF_TOKEN_LEN]);
int txrdma_handoff_check(const struct txrdma_handoff_sess *s,
			 const struct txrdma_handoff_claim *c,
			 const u8 token[TXRDMA_HANDOFF_TOKEN_LEN]);

struct txrdma_sess_state;
struct txrdma_sess_send;
bool txrdma_handoff_trailer(const struct txrdma_sess_state *st, u32 len);
int txrdma_handoff_state_check(const struct txrdma_sess_state *st,
			       const struct txrdma_sess_send *sends,
			       u32 *frame_starts);

#endif /* _TXRDMA_HANDOFF_H */
