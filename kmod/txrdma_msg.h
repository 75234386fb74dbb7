/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The message layer of endpoint pairs, in files by direction (as rxe
 * splits requester, responder and completer):
 *
 *   txrdma_pair.c       pairing: connect, accept, endpoint messages
 *   txrdma_pair_life.c  a pair's data-path state, and its end
 *   txrdma_tx.c         slots, admission, SEND, READ/WRITE, send
 *                       completions, credit updates out
 *   txrdma_rx.c         receive completions: verdict, publication
 *   txrdma_export.c     exports and imports (EXPORT and its ACK)
 *
 * Data flows one way: process -> rings (txrdma_ringfile.c) -> poller
 * -> tx -> QP, and QP -> rx -> receive ring.  This header is the
 * files' interface to each other; the rest of the module reaches them
 * through txrdma_endpoint.h.
 *
 * Locking: peer->lock, then ep->lock, then ring->cq_lock (all _bh);
 * the poller holds ring->lock (mutex) while it processes a ring, and
 * endpoints join and leave ring->eps under it (design.rst "Lock order").
 */
#ifndef _TXRDMA_MSG_H
#define _TXRDMA_MSG_H

#include "txrdma_credit.h"
#include "txrdma_endpoint.h"

/* pairing and export requests wait this long unless the caller says */
#define TXRDMA_MSG_TIMEOUT_MS	3000

struct ib_cq;
struct ib_wc;
struct txrdma_pair_req;
struct txrdma_peer;

/* A word of the receive ring's header (TXRDMA_RX_OFF_*). */
static inline u32 *txrdma_rx_word(struct txrdma_ep *ep, u32 off)
{
	return (u32 *)(ep->rx_base + off);
}

/*
 * Caller holds ep->lock: the released units to report to the sender
 * now (in a frame or an update), also exported in the receive ring for
 * the process's doorbell rule (TXRDMA_RX_OFF_REPORTED).
 */
static inline u32 txrdma_rx_report(struct txrdma_ep *ep)
{
	u32 v = txrdma_credit_rx_report(&ep->crx);

	WRITE_ONCE(*txrdma_rx_word(ep, TXRDMA_RX_OFF_REPORTED), v);
	ep->rx_due_ns = 0;	/* nothing waits to be reported any more */
	return v;
}

/*
 * Caller holds ep->lock, or the endpoint is not reachable yet: the
 * words a process that reads ahead checks frames against (uapi
 * "Reading ahead"); the peer's id once it is known.
 */
static inline void txrdma_rx_ahead_words(struct txrdma_ep *ep)
{
	if (!ep->rx_ahead_max)
		return;
	WRITE_ONCE(*txrdma_rx_word(ep, TXRDMA_RX_OFF_AHEAD_EP), ep->id);
	WRITE_ONCE(*txrdma_rx_word(ep, TXRDMA_RX_OFF_AHEAD_PEER), ep->peer_ep);
	WRITE_ONCE(*txrdma_rx_word(ep, TXRDMA_RX_OFF_AHEAD_EPOCH), ep->epoch);
	WRITE_ONCE(*txrdma_rx_word(ep, TXRDMA_RX_OFF_AHEAD_MAX),
		   ep->rx_ahead_max);
}

/* txrdma_tx.c */
void txrdma_tx_done(struct ib_cq *cq, struct ib_wc *wc);
void txrdma_tx_fail_locked(struct txrdma_ep *ep, int error);
void txrdma_tx_settle_locked(struct txrdma_ep *ep);
void txrdma_tx_take_release(struct txrdma_ep *ep);
struct txrdma_sess_send;
u32 txrdma_tx_export_locked(struct txrdma_ep *ep, struct txrdma_sess_send *out);
void txrdma_tx_import_locked(struct txrdma_ep *ep,
			     const struct txrdma_sess_send *sends,
			     struct txrdma_region **regions, u32 n);

/* txrdma_rx.c */
int txrdma_rx_post_recv(struct txrdma_ep *ep);
void txrdma_rx_done(struct ib_cq *cq, struct ib_wc *wc);
void txrdma_rx_due_empty(struct txrdma_ep *ep, bool on);

/* txrdma_pair.c */
int txrdma_pair_take(struct txrdma_peer *peer, struct txrdma_ep *ep,
		     u32 remote_qpn);
struct txrdma_ep_connect;
struct txrdma_ep *txrdma_pair_new_ep(struct txrdma_file *tf,
				     struct txrdma_peer *peer,
				     const struct txrdma_ep_connect *req,
				     bool restore);
int txrdma_pair_join(struct txrdma_ring *ring, struct txrdma_ep *ep);

/* txrdma_pair_life.c */
int txrdma_pair_alloc(struct txrdma_ep *ep);
void txrdma_pair_fail_locked(struct txrdma_ep *ep, int error);
void txrdma_pair_close_qp(struct txrdma_ep *ep, int error);
void txrdma_pair_drop_mrs(struct txrdma_ep *ep);
void txrdma_pair_drop_keys(struct txrdma_ep *ep, bool forever);

/* txrdma_pair_path.c */
int txrdma_path_take(struct txrdma_ep *ep);
int txrdma_path_take_named(struct txrdma_ep *ep, u32 remote_qpn);
int txrdma_path_rekey(struct txrdma_ep *ep);
bool txrdma_path_elsewhere(struct txrdma_ep *ep, const struct txrdma_dev *dev);
void txrdma_path_peer_ring_locked(struct txrdma_ep *ep);

/* txrdma_pair_resume.c: pairs that outlive their QP */
void txrdma_resume_init(struct txrdma_ep *ep);
void txrdma_resume_start(struct txrdma_ep *ep, bool connector, u32 grace_ms);
void txrdma_resume_stop(struct txrdma_ep *ep);
bool txrdma_resume_keeps_locked(struct txrdma_ep *ep);
bool txrdma_resume_lost_locked(struct txrdma_ep *ep, int error);
bool txrdma_resume_drained_locked(struct txrdma_ep *ep);
void txrdma_resume_close_msg(struct txrdma_ep *ep, int error);
void txrdma_resume_rx(struct txrdma_pair_req *r);
void txrdma_resume_import_start(struct txrdma_ep *ep);
struct txrdma_peer *txrdma_resume_moved_locked(struct txrdma_ep *ep);

/* txrdma_pair_handoff.c: sessions that move to another host */
void txrdma_handoff_paired(struct txrdma_ep *ep, bool connector);
void txrdma_handoff_send(struct txrdma_ep *ep);
void txrdma_handoff_rx(struct txrdma_pair_req *r);
void txrdma_handoff_rx_reject(struct txrdma_pair_req *r);
int txrdma_tx_resume_locked(struct txrdma_ep *ep,
			    const struct txrdma_resume_report *peer);

/*
 * Caller holds ep->lock: the pair's QP is lost; a session waits for a
 * new one (txrdma_pair_resume.c), any other pair fails.
 */
static inline void txrdma_pair_lost_locked(struct txrdma_ep *ep, int error)
{
	if (!txrdma_resume_lost_locked(ep, error))
		txrdma_pair_fail_locked(ep, error);
}

/* txrdma_export.c */
struct txrdma_import *txrdma_import_find(struct txrdma_ep *ep, u32 id,
					 u64 off, u32 len);
void txrdma_export_rx(struct txrdma_pair_req *r);
void txrdma_export_rx_ack(struct txrdma_pair_req *r);

#endif /* _TXRDMA_MSG_H */
