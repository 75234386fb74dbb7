/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Endpoints: a process's channel to a peer, holding one QP taken from
 * the peer's pool, charged to the process's tenant.
 */
#ifndef _TXRDMA_ENDPOINT_H
#define _TXRDMA_ENDPOINT_H

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/txrdma.h>
#include <linux/txrdma_ring.h>
#include <rdma/ib_verbs.h>

#include "txrdma_credit.h"
#include "txrdma_handoff.h"
#include "txrdma_poller.h"
#include "txrdma_region.h"
#include "txrdma_session.h"

struct txrdma_conn;
struct txrdma_dev;
struct txrdma_mr;
struct txrdma_file;
struct txrdma_peer;
struct txrdma_region;
struct txrdma_ring;
struct txrdma_tenant;
struct txrdma_ep;

/* send work requests one endpoint pair keeps in flight */
#define TXRDMA_EP_SLOTS		64
/*
 * per slot: a frame header, then its trailer (TXRDMA_FRAME_F_TRAILER),
 * then zeroes that are never written: the padding up to the next unit
 * when another frame follows in the same write (coalescing)
 */
#define TXRDMA_TX_HDR_STRIDE	128
#define TXRDMA_TX_ZERO_OFF	(TXRDMA_FRAME_HDR_LEN + TXRDMA_FRAME_TRAILER_LEN)
/* SGEs of the chain being built, for writes that carry several frames */
#define TXRDMA_TX_CHAIN_SGES	64
/* SGEs of one write: a frame takes up to 3 (header, payload, tail) */
#define TXRDMA_TX_WR_SGES	32
/* receive work requests posted per endpoint (frames and credit updates) */
#define TXRDMA_EP_RECVS		128

enum txrdma_ep_dstate {
	TXRDMA_EP_PLAIN,	/* TXRDMA_IOC_EP_CREATE: a lent QP, no pair */
	TXRDMA_EP_CONNECTING,	/* EP_CONNECT sent, waiting for the answer */
	TXRDMA_EP_CONNECTED,	/* paired: carries SENDs */
	TXRDMA_EP_REJECTED,	/* the peer answered EP_REJECT (@result) */
	TXRDMA_EP_CLOSED,	/* destroyed or failed */
};

/* what a slot carries: an SQE's opcode, or a credit update */
#define TXRDMA_SLOT_CREDIT	0xff

/**
 * struct txrdma_import - a range the other side exported to us
 * @region: its region's id on the other side (what SQEs name)
 * @access: TXRDMA_EXPORT_*
 * @off: its first byte in that region (what SQEs' remote_off count from)
 * @len: bytes
 * @addr: the address of its first byte in its registration
 * @rkey: the registration's key
 */
struct txrdma_import {
	u32 region;
	u32 access;
	u64 off;
	u64 len;
	u64 addr;
	u32 rkey;
};

/**
 * struct txrdma_export - a range of one of our regions exported to the
 *	other side; a free slot has no @r
 * @r: the region, referenced until the export is revoked or the
 *	endpoint goes
 * @m: the range's registration for the peer: exactly the range,
 *	exactly @access; deregistered when revoked or when the pair ends
 * @access: TXRDMA_EXPORT_*
 * @use: the range, claimed in @r while the peer may reach it (no
 *	receive ring may overlap it)
 */
struct txrdma_export {
	struct txrdma_region *r;
	struct txrdma_mr *m;
	u32 access;
	struct txrdma_region_use use;
};

/**
 * struct txrdma_tx_slot - one send work request in flight
 * @cqe: completion context
 * @ep: owner
 * @region: the local region, referenced until the completion
 * @user_data: of the SQE
 * @len: payload bytes
 * @kind: the SQE's opcode (enum txrdma_op), or TXRDMA_SLOT_CREDIT
 * @no_cqe: the SQE asked for no CQE on success
 * @busy: queued or posted, and not completed yet (ep->lock)
 * @posted: on the QP (else queued in the endpoint's chain)
 * @seq: its place in the QP's send queue (ep->tx_posted when posted)
 * @wr_seq: @seq of the first slot whose frame is in the same write
 *	(coalescing: one WRITE_WITH_IMM carries several SENDs); == @seq
 *	for a slot with a write of its own
 * @rider: the next slot whose frame left in this slot's write, if any
 * @wr: its work request, built when the SQE is executed and posted
 *	with the chain it joins (txrdma_tx.c); unused by a rider
 * @sge: the header's, the payload's and the trailer's
 * @nsge: SEND: entries of @sge its frame uses
 * @trailer: SEND: its frame ends with a trailer (the last SGE)
 * @start: SEND: the credit head before its frame was placed (a resumed
 *	pair sends it again from there, txrdma_resume_plan())
 * @unit: SEND: where its frame starts in the peer's ring
 * @units: SEND: the frame's size in units
 */
struct txrdma_tx_slot {
	struct ib_cqe cqe;
	struct txrdma_ep *ep;
	struct txrdma_region *region;
	u64 user_data;
	u32 len;
	u8 kind;
	bool no_cqe;
	bool idempotent;	/* READ, WRITE: TXRDMA_SQE_F_IDEMPOTENT */
	bool rerun;		/* run again on a resumed session's QP */
	bool busy;
	bool posted;
	u32 seq;
	u32 wr_seq;
	u32 fseq;		/* a SEND's frame sequence (tracepoints) */
	struct txrdma_tx_slot *rider;
	struct ib_rdma_wr wr;
	struct ib_sge sge[3];
	u8 nsge;
	bool trailer;
	u32 start;
	u32 unit;
	u32 units;
	u32 rregion;		/* READ, WRITE: the other side's region */
	u64 roff;		/* and the offset in it, as the SQE named */
	u64 loff;		/* the local range's offset in @region */
	struct txrdma_dev *dev;	/* the device its local keys are on */
};

/**
 * struct txrdma_ep_stats - counters of one endpoint (netlink)
 *
 * Only u64 members: txrdma_ep_stats_v() walks them as an array.
 */
struct txrdma_ep_stats {
	u64 tx_msgs, tx_bytes, rx_msgs, rx_bytes;
	u64 credit_stalls, credit_updates, slot_stalls, throttled;
	u64 rw_ops, rw_bytes;
	u64 err_crc, err_seq, err_proto, err_qp, err_sqe;
	u64 tx_coalesced, rx_batches;
	u64 tx_resent, resumes, path_moves;
};

#define TXRDMA_EP_NR_STATS	(sizeof(struct txrdma_ep_stats) / sizeof(u64))

static inline u64 *txrdma_ep_stats_v(struct txrdma_ep_stats *s)
{
	BUILD_BUG_ON(sizeof(*s) % sizeof(u64));
	return (u64 *)s;
}

/**
 * struct txrdma_ep_snap - what netlink reports of one endpoint
 * @id: endpoint id
 * @service: service of the pair, 0 for a plain endpoint
 * @peer_ep: the other side's endpoint id, 0 if none
 * @qp_num: its QP's number, 0 once the QP is gone
 * @error: 0, or why it carries no more traffic
 * @dstate: enum txrdma_ep_dstate
 * @tenant: its tenant's name
 * @owner: its tenant, only to compare with (never dereferenced)
 * @peer: its peer's name
 * @session: a pair with TXRDMA_EP_F_SESSION: the next three are set
 * @sess_state: enum txrdma_sess_phase
 * @grace_ms: how long it may be away
 * @path: the peer whose QP carries it (@peer or another path)
 * @stats: its counters
 */
struct txrdma_ep_snap {
	u32 id;
	u32 service;
	u32 peer_ep;
	u32 qp_num;
	int error;
	u8 dstate;
	char tenant[TXRDMA_TENANT_NAME_MAX];
	const struct txrdma_tenant *owner;
	char peer[TXRDMA_PEER_NAME_MAX];
	bool session;
	u8 sess_state;
	u32 grace_ms;
	char path[TXRDMA_PEER_NAME_MAX];
	struct txrdma_ep_stats stats;
};

/**
 * struct txrdma_ep - one endpoint
 * @node: entry in txrdma_eps_list (txrdma_eps_lock)
 * @file_node: entry in its file's list once adopted (txrdma_eps_lock)
 * @adopted: its file may reach it: a plain endpoint from birth, a pair
 *	once the ioctl that paired it is done (txrdma_eps_lock)
 * @id: index in txrdma_eps (never reused soon: allocated cyclically)
 * @tf: the open file that created it
 * @tenant: owner, referenced; charged one endpoint and one QP
 * @peer: the peer, referenced
 * @conn: the lent connection, NULL once it is gone (peer->lock)
 * @qp_num: number of its QP
 * @error: 0, or why it can no longer carry traffic (peer->lock)
 * @ref: the file's reference, and one per connection that has work
 *	requests of this endpoint posted (dropped when its CQ is freed)
 * @lock: the data path state below (taken with _bh: completions)
 * @wait: TXRDMA_IOC_EP_CONNECT waits here for the answer
 * @dstate: enum txrdma_ep_dstate
 * @result: the peer's REJECT status
 * @ring: the file's rings (completions); NULL once closed
 * @service: the service of the pair
 * @peer_ep: the other side's endpoint id
 * @epoch: incarnation of the pair, chosen by the connector
 * @flags: TXRDMA_EP_F_*
 * @dev: device of the pair's QP (to find region registrations)
 * @poller: @dev's poller, referenced: the ring's poller once it joins
 * @held_by: the connection holding a reference on us, or NULL; its
 *	completions may still reach us while it is set (ep->lock)
 * @rx_region: region of our receive ring, referenced
 * @rx_base: kernel address of the ring area (header, then units)
 * @rx_mr: the registration that lets the peer write our ring's units,
 *	and nothing else (ep->lock; deregistered with the pair's QP)
 * @rx_addr: the address of unit 0 in @rx_mr (zero-based)
 * @rx_rkey: @rx_mr's remote key
 * @rx_units: units of our ring
 * @crx: credits of our ring
 * @rx_seq: next sequence number expected
 * @rx_cqe: context of every receive work request
 * @peer_addr: the address of the peer ring's unit 0
 * @peer_rkey: its key
 * @peer_units: its size
 * @ctx: credits we hold in the peer's ring
 * @tx_seq: sequence number of our next frame
 * @slots: TXRDMA_EP_SLOTS send contexts
 * @free: stack of free slot indices
 * @nfree: entries in @free
 * @hdrs: per slot, a frame header and its trailer
 *	(TXRDMA_TX_HDR_STRIDE bytes), DMA-mapped
 * @hdrs_dma: their DMA address (mapped on @dev)
 * @chain_first: the first slot queued and not posted yet (@lock)
 * @chain_last: the last one; their WRs are linked in that order
 * @nchain: frames and other work requests queued
 * @chain_rider: the last slot whose frame is in @chain_last's write
 * @chain_end: a frame placed at this unit may join @chain_last's
 *	write: the unit after its last frame, not masked on purpose (a
 *	write that ends at the ring's end is followed by a frame at 0,
 *	which must not join it)
 * @chain_bytes: bytes of @chain_last's write up to its last frame's end
 * @chain_pad: bytes from that frame's end to @chain_end's unit
 * @chain_tail: that frame's last SGE is its trailer (the padding after
 *	it is the zeroes that follow in its slot's buffer)
 * @chain_sge: SGEs of writes that carry several frames, until posted
 * @chain_nsge: entries of @chain_sge in use
 * @tx_posted: WRs posted on the QP so far (free-running)
 * @tx_done: of them, those completed (free-running)
 * @tx_order: slot index by post number (& (TXRDMA_EP_SLOTS - 1)):
 *	a signaled completion completes every WR posted before it
 * @acks: a session's SENDs the QP delivered whose frames the other
 *	side's process has not released yet (as last reported), oldest
 *	first, by slot index: they complete when it has
 *	(txrdma_tx_settle_locked()), or are sent again by a resume
 * @acks_head: the oldest of @acks (free-running, & TXRDMA_EP_SLOTS - 1)
 * @acks_tail: after the newest
 * @close_released: the released count the other side's EP_CLOSE
 *	carried, when @close_seen: its SENDs up to there end well when
 *	the pair fails (txrdma_tx_slot_end()); kept apart from @ctx,
 *	whose count only the QP's updates move, in their order
 * @close_seen: an EP_CLOSE came with a count that made sense
 * @blocked: a SEND waits for credits or slots (the poller skips the
 *	ring until a completion or update kicks it)
 * @stats: counters
 * @folded: the part of @stats already added to the tenant's retired
 *	totals (@lock); zero while the endpoint is listed
 * @imports: ranges the other side exported to us (@lock)
 * @nimports: entries in @imports
 * @imports_gen: changes of @imports
 * @exports: ranges of our regions exported to the other side (@lock;
 *	slots do not move: their @use is listed in the region)
 * @rx_use: the receive ring's range, claimed in @rx_region until the
 *	process destroys the endpoint
 * @mrs_gone: the pair's QP is destroyed: its registrations for the
 *	peer are gone and no new one may be made (ep->lock)
 * @rx_stop: publish no more frames: the process closed it, or a frame
 *	failed its checks (ep->lock)
 * @rx_due_ns: when a session's update, due only because its process
 *	released everything (txrdma_credit_rx_due()), was first held
 *	back (local_clock()); 0 when none waits (@lock)
 * @rx_refused: a session refused a frame on its current QP: nothing
 *	more of that QP is taken, until it is reaped (@lock)
 * @rx_refused_at: the sequence number of the frame last refused; a
 *	second refusal of the same frame fails the pair (@lock)
 * @rx_refusals: frames refused since @rx_refused_ns (none before:
 *	@rx_refused_at means nothing); past TXRDMA_RX_REFUSALS_MAX
 *	within a grace the pair fails (@lock)
 * @rx_refused_ns: when the first of @rx_refusals was (local_clock())
 * @rx_error: the error the receive ring reports once the QP is drained
 *	(frames that completed before the end come first), 0 if none
 * @export_pending: an export or revoke ioctl runs (one at a time per
 *	endpoint: it owns the export slots it changes)
 * @export_seq: number of the last EXPORT sent
 * @export_wait_seq: number of the EXPORT whose ACK is awaited, or 0
 * @export_result: that ACK's status, > 0 until it comes
 * @session: the pair outlives a lost QP (TXRDMA_EP_F_SESSION; set
 *	once paired, then constant)
 * @sess: its session (@lock; txrdma_pair_resume.c)
 * @sess_ready: SQEs may go: Up, and a resume's plan applied (always
 *	true for a pair that is no session) (@lock)
 * @sess_todo: TXRDMA_SESS_DO_* the work item still has to do (@lock)
 * @sess_qpn: acceptor: the connector's QP the RESUME held names
 * @sess_peer: the other side's last report (RESUME or RESUMED)
 * @sess_sent_ns: connector: when the last RESUME left
 * @sess_rx_seq: our rx_seq in the report we sent (the other side's
 *	report is checked against what we had then, not against frames
 *	that came on the new QP since)
 * @sess_released: our ctx.released then
 * @sess_dev: the device the ring's and exports' keys are on: a resume
 *	on another one (another path) makes them anew there
 * @path: the peer whose QP the pair holds or last held: @peer, or another
 *	path to its host (txrdma_pair_path.c); referenced; changes only
 *	while no QP is bound, under its old value's lock and @lock
 * @sess_from: acceptor: the path the held RESUME came through
 *	(referenced until answered)
 * @rx_gen: how often our ring was registered anew on another device
 *	(txrdma_path_rekey(); RESUME and RESUMED carry it)
 * @peer_rx_gen: the other side's @rx_gen as last applied: its ring's key
 *	may change only with it, and its exports (our imports) then died
 * @sess_raddr: the other side's ring address in its last report
 * @sess_rrkey: and its key
 * @sess_rgen: and its @rx_gen (applied with the report,
 *	txrdma_path_peer_ring_locked())
 * @sess_work: does what the state machine asks, outside the locks, and
 *	ticks while the session is away (grace, retries)
 * @sess_rnew: the other side's ring is not known yet (an imported
 *	session): its next report names it (@lock)
 *
 * Session hand-off (txrdma_pair_handoff.c), all under @lock:
 * @frozen: exported: the session moved away from this host; the
 *	endpoint carries nothing more and never resumes
 * @ho_ok: @ho_secret was derived (a session whose peer's key was there)
 * @ho_pending: imported, not Up yet: a HANDOFF goes before each RESUME
 * @ho_rehead: the other side moved: frames sent again get their headers
 *	anew (its new endpoint id), until the resume is applied
 * @ho_id: what the session secret is derived from (its generation
 *	rises with each move)
 * @ho_secret: the session secret (txrdma_handoff_secret())
 * @ho_old_ep: imported: the mover's endpoint before the move (the
 *	HANDOFF's claim); staying side: the same, of the last move taken
 *	(a HANDOFF repeated by a resume's retry is no news)
 * @ho_claim_gen: imported: the generation the HANDOFF claims
 * @ho_claim_secret: imported: the exported secret, the HANDOFF's proof
 * @ho_rekey: the other side moved: the ring is registered anew with the
 *	next QP (the old host's module knew its key)
 * @ho_prev_conn: the other side moved while this connection (to its old
 *	host) held us: frames it still completes name @ho_prev_ep; only
 *	compared, cleared when that connection is gone
 * @ho_prev_ep: the other side's endpoint before the move
 * @peers_was: staying side: peers the session moved away from, each
 *	referenced until the endpoint is freed (a reader of @peer that
 *	raced with a move still holds a live peer)
 * @npeers_was: entries of @peers_was
 */
struct txrdma_ep {
	struct list_head node;
	struct list_head file_node;
	bool adopted;
	u32 id;
	struct txrdma_file *tf;
	struct txrdma_tenant *tenant;
	struct txrdma_peer *peer;
	/* written under peer->lock and ->lock both; read under either */
	struct txrdma_conn *conn;
	u32 qp_num;
	int error;

	struct kref ref;
	spinlock_t lock;	/* data path; order: design.rst "Lock order" */
	wait_queue_head_t wait;
	u8 dstate;
	int result;
	struct txrdma_ring *ring;
	u32 service;
	u32 peer_ep;
	u32 epoch;
	u32 flags;
	u32 grace_ms;		/* a session's (TXRDMA_EP_F_SESSION) */
	struct txrdma_dev *dev;
	struct txrdma_poller *poller;
	struct txrdma_conn *held_by;
	struct txrdma_region *rx_region;
	u8 *rx_base;
	struct txrdma_mr *rx_mr;
	u64 rx_addr;
	u32 rx_rkey;
	u32 rx_units;
	u32 rx_max_msg;		/* the longest SEND we take (declared) */
	/* our process reads frames up to this size ahead (0: none) */
	u32 rx_ahead_max;
	struct txrdma_credit_rx crx;
	u32 rx_seq;
	struct ib_cqe rx_cqe;
	u64 peer_addr;
	u32 peer_rkey;
	u32 peer_units;
	u32 peer_max_msg;	/* the longest SEND the peer takes */
	/* frames up to this many payload bytes get a trailer (0: none) */
	u32 peer_ahead_max;
	struct txrdma_credit_tx ctx;
	u32 tx_seq;
	struct txrdma_tx_slot *slots;
	u16 free[TXRDMA_EP_SLOTS];
	u32 nfree;
	void *hdrs;
	u64 hdrs_dma;
	struct txrdma_tx_slot *chain_first;
	struct txrdma_tx_slot *chain_last;
	u32 nchain;
	struct txrdma_tx_slot *chain_rider;
	u32 chain_end;
	u32 chain_bytes;
	u32 chain_pad;
	bool chain_tail;
	u32 chain_nsge;
	struct ib_sge chain_sge[TXRDMA_TX_CHAIN_SGES];
	u32 tx_posted;
	u32 tx_done;
	u8 tx_order[TXRDMA_EP_SLOTS];
	u8 acks[TXRDMA_EP_SLOTS];
	u32 acks_head;
	u32 acks_tail;
	u32 close_released;
	bool close_seen;
	bool blocked;
	struct txrdma_ep_stats stats;
	struct txrdma_ep_stats folded;
	struct txrdma_import imports[TXRDMA_EP_MAX_EXPORTS];
	u32 nimports;
	u32 imports_gen;
	struct txrdma_export exports[TXRDMA_EP_MAX_EXPORTS];
	struct txrdma_region_use rx_use;
	bool mrs_gone;
	bool rx_stop;
	u64 rx_due_ns;
	bool rx_refused;
	u32 rx_refused_at;
	u32 rx_refusals;
	u64 rx_refused_ns;
	bool accepted;		/* the other side's ACCEPT came (connector) */
	int rx_error;
	bool export_pending;
	u32 export_seq;
	u32 export_wait_seq;
	int export_result;
	bool session;
	struct txrdma_sess sess;
	bool sess_ready;
	unsigned int sess_todo;
	u32 sess_qpn;
	struct txrdma_resume_report sess_peer;
	u64 sess_sent_ns;
	u32 sess_rx_seq;
	u32 sess_released;
	struct txrdma_dev *sess_dev;
	struct delayed_work sess_work;
	struct txrdma_peer *path;
	struct txrdma_peer *sess_from;
	u32 rx_gen;
	u32 peer_rx_gen;
	u64 sess_raddr;
	u32 sess_rrkey;
	u32 sess_rgen;
	bool sess_rnew;
	bool frozen;
	bool ho_ok;
	bool ho_pending;
	bool ho_rehead;
	struct txrdma_handoff_id ho_id;
	u8 ho_secret[TXRDMA_HANDOFF_SECRET_LEN];
	u32 ho_old_ep;
	u32 ho_claim_gen;
	u8 ho_claim_secret[TXRDMA_HANDOFF_SECRET_LEN];
	bool ho_rekey;
	const struct txrdma_conn *ho_prev_conn;
	u32 ho_prev_ep;
	struct txrdma_peer **peers_was;
	u32 npeers_was;
};

long txrdma_ioctl_ep_create(struct txrdma_file *tf, void __user *uarg);
long txrdma_ioctl_ep_info(struct txrdma_file *tf, void __user *uarg);
long txrdma_ioctl_ep_destroy(struct txrdma_file *tf, void __user *uarg);
void txrdma_eps_file_release(struct txrdma_file *tf);
void txrdma_eps_tenant_revoke(struct txrdma_tenant *t);
void txrdma_eps_dev_gone(struct txrdma_dev *dev);
void txrdma_eps_peer_gone(struct txrdma_peer *peer);

/* txrdma_pair_path.c */
struct txrdma_peer *txrdma_path_lock(struct txrdma_ep *ep);
struct txrdma_peer *txrdma_path_get(struct txrdma_ep *ep);
bool txrdma_path_same_host(const struct txrdma_peer *a,
			   const struct txrdma_peer *b);
void txrdma_ep_detach_locked(struct txrdma_conn *c, int error);
int txrdma_ep_status(struct txrdma_file *tf, u32 id);
void txrdma_ep_put(struct txrdma_ep *ep);
struct txrdma_ep *txrdma_ep_get_id(u32 id);
struct txrdma_ep *txrdma_ep_get_file(struct txrdma_file *tf, u32 id);
int txrdma_ep_publish(struct txrdma_ep *ep);
int txrdma_ep_adopt(struct txrdma_file *tf, struct txrdma_ep *ep);
struct txrdma_ep *txrdma_ep_new(struct txrdma_file *tf,
				struct txrdma_peer *peer,
				struct txrdma_tenant *t);
void txrdma_ep_discard(struct txrdma_ep *ep);
int txrdma_ep_snap_id(u32 id, struct txrdma_ep_snap *s);
int txrdma_eps_walk(u32 start,
		    int (*fn)(const struct txrdma_ep_snap *s, void *arg),
		    void *arg);
void txrdma_eps_tenant_traffic(struct txrdma_tenant *t,
			       struct txrdma_ep_stats *sum);

/* txrdma_ep_nl.c: TXRDMA_CMD_EP_GET */
struct genl_info;
struct netlink_callback;
struct nla_policy;
struct sk_buff;
int txrdma_nl_put_stats(struct sk_buff *skb, int nest_attr,
			const struct txrdma_ep_stats *st);
int txrdma_nl_ep_get_doit(struct sk_buff *skb, struct genl_info *info);
int txrdma_nl_ep_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
extern const struct nla_policy txrdma_ep_get_policy[];
#define TXRDMA_EP_GET_MAXATTR	TXRDMA_A_EP_TENANT

/* endpoint pairs: the message layer (txrdma_msg.h lists its files) */
struct txrdma_ctrl_ep;
struct txrdma_sqe;
long txrdma_ioctl_ep_listen(struct txrdma_file *tf, void __user *uarg);
long txrdma_ioctl_ep_connect(struct txrdma_file *tf, void __user *uarg);
long txrdma_ioctl_ep_accept(struct txrdma_file *tf, void __user *uarg);
void txrdma_pair_file_release(struct txrdma_file *tf);
void txrdma_pair_ctrl_rx(struct txrdma_peer *peer,
			 const struct txrdma_ctrl_ep *e);
void txrdma_pair_exit(void);
/* txrdma_pair_life.c */
void txrdma_pair_detach_locked(struct txrdma_ep *ep, int error);
/* txrdma_pair_resume.c */
void txrdma_resume_abort_locked(struct txrdma_ep *ep, int error);
void txrdma_resume_dev_gone(struct txrdma_ep *ep, struct txrdma_dev *dev);
void txrdma_pair_close(struct txrdma_ep *ep);
void txrdma_pair_free(struct txrdma_ep *ep);
void txrdma_pair_conn_destroyed(struct txrdma_conn *c);
/* txrdma_export.c */
long txrdma_ioctl_ep_export(struct txrdma_file *tf, void __user *uarg);
long txrdma_ioctl_ep_exports(struct txrdma_file *tf, void __user *uarg);
/* txrdma_pair_handoff.c */
long txrdma_ioctl_ep_sess_export(struct txrdma_file *tf, void __user *uarg);
long txrdma_ioctl_ep_sess_import(struct txrdma_file *tf, void __user *uarg);
int txrdma_ep_peer_secret(struct txrdma_peer *peer,
			  const struct txrdma_handoff_id *id, u8 *out);
/* txrdma_tx.c and txrdma_rx.c: for txrdma_ringfile.c only */
int txrdma_tx_send(struct txrdma_ring *ring, const struct txrdma_sqe *sqe);
int txrdma_tx_rw(struct txrdma_ring *ring, const struct txrdma_sqe *sqe);
void txrdma_tx_ring_flush(struct txrdma_ring *ring);
void txrdma_tx_ring_credits(struct txrdma_ring *ring);
bool txrdma_tx_ring_owes(struct txrdma_ring *ring);
bool txrdma_rx_ring_readable(struct txrdma_ring *ring);

#endif /* _TXRDMA_ENDPOINT_H */
