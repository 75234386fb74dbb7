/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Peers: remote txrdma hosts, the pool of RC queue pairs connected to
 * each, and the liveness session that watches it.
 *
 *   txrdma_peer.c      peer objects, their netlink ops, the peer's work
 *                      item (which alone creates and destroys connections)
 *   txrdma_conn.c      rdma_cm glue: listener, connect, accept, teardown
 *   txrdma_liveness.c  probes on the control QP, the BFD timer, and the
 *                      queue of state changes
 *
 * Locking (the order of all the module's locks: Documentation/design.rst,
 * "Lock order"): txrdma_peers_lock (mutex) protects the set of peers; lookups
 * from rdma_cm handlers walk the list under RCU.  peer->lock (spinlock,
 * taken with _bh: CQ completions and the BFD timer run in softirq)
 * protects everything that changes after creation.  A connection's
 * @mutex orders its rdma_cm handler against its teardown.  Nothing is
 * destroyed while a spinlock is held, and no cm_id is destroyed inside
 * its own handler.
 */
#ifndef _TXRDMA_PEER_H
#define _TXRDMA_PEER_H

#include <linux/hrtimer.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <net/genetlink.h>
#include <rdma/rdma_cm.h>

#include "txrdma_auth.h"
#include "txrdma_bfd.h"
#include "txrdma_peer_wire.h"
#include "txrdma_pool.h"
#include "txrdma_stall.h"

struct txrdma_dev;
struct txrdma_ep;

#define TXRDMA_MAX_PEERS		1024
#define TXRDMA_POOL_DEF_MIN		2
#define TXRDMA_POOL_DEF_MAX		16
/* a connection not established in this time is abandoned and retried */
#define TXRDMA_CONNECT_TIMEOUT_NS	(3000ULL * NSEC_PER_MSEC)
/*
 * A control QP that has accepted nothing for this long while the
 * session is not Up is closed, and the initiator dials a new one.  Its
 * own retries (about 2 s, txrdma_conn.c) should end a QP whose other
 * end is gone, but one was seen to outlive a rebooted peer for minutes
 * with every send slot in flight and no completion: probes were
 * skipped, the peer never heard, and nothing dialled again.
 */
#define TXRDMA_CTRL_STALE_NS		(4000ULL * NSEC_PER_MSEC)
#define TXRDMA_RESOLVE_TIMEOUT_MS	1000

/* control QP: probes in flight and receive buffers posted */
#define TXRDMA_CTRL_TX_SLOTS		32
/*
 * twice the other side's send slots: when a control QP outlives a
 * partition, everything the other side had in flight arrives at once
 * after the heal, and the fresh probes behind it still find buffers
 */
#define TXRDMA_CTRL_RX_SLOTS		64
#define TXRDMA_CTRL_SLOT_SIZE		TXRDMA_CTRL_LEN
/* pooled QPs carry endpoint pairs: TXRDMA_EP_SLOTS sends, TXRDMA_EP_RECVS
 * receives (txrdma_endpoint.h)
 */

#define TXRDMA_PEER_EVQ			16
/* nonces of the last connection requests accepted: replays are refused */
#define TXRDMA_PEER_NONCES		64

enum txrdma_conn_state {
	TXRDMA_CONN_CONNECTING,	/* resolving, connecting or accepted */
	TXRDMA_CONN_READY,	/* established */
	TXRDMA_CONN_FAILED,	/* never established; to be destroyed */
	TXRDMA_CONN_ERROR,	/* was established, broke; to be destroyed */
	TXRDMA_CONN_CLOSE,	/* closed on purpose; to be destroyed */
};

/* Which of the pool's counters a connection is counted in. */
enum txrdma_conn_acct {
	TXRDMA_ACCT_NONE,	/* control, mirror, or no longer counted */
	TXRDMA_ACCT_CONNECTING,
	TXRDMA_ACCT_READY,
	TXRDMA_ACCT_IN_USE,	/* lent to an endpoint (@ep) */
	TXRDMA_ACCT_CLOSING,
};

struct txrdma_conn;

/**
 * struct txrdma_ctrl_slot - one probe buffer of the control QP
 * @cqe: completion context
 * @conn: owner
 * @buf: TXRDMA_CTRL_SLOT_SIZE bytes inside the connection's block
 * @dma: its DMA address
 * @tx: a send slot (else a receive slot)
 * @index: position in its array
 */
struct txrdma_ctrl_slot {
	struct ib_cqe cqe;
	struct txrdma_conn *conn;
	u8 *buf;
	u64 dma;
	bool tx;
	u8 index;
};

/**
 * struct txrdma_conn - one RC connection to a peer
 * @node: entry in peer->conns (peer->lock)
 * @peer: owner; the connection holds a reference
 * @id: its rdma_cm id
 * @qp: its QP: rdma_cm's for an active connection, our own for a
 *	passive one (txrdma_conn.c says why); NULL until created
 * @drainable: @qp left RESET, so teardown drains it
 * @dev: the txrdma device of @id, with a user reference, once known
 * @cq: completions of its QP: a CQ of the device's shared pool
 *	(txrdma_conn_create_qp() says why); teardown drains the QP first
 * @cq_entries: what @cq was taken for (given back at teardown)
 * @max_sge: SGEs a send work request of @qp may carry (data QPs: up
 *	to TXRDMA_TX_WR_SGES, at least 3; as the device allows)
 * @mutex: orders rdma_cm handlers against teardown (@dead)
 * @kind: enum txrdma_conn_kind
 * @state: enum txrdma_conn_state (peer->lock)
 * @passive: accepted, not initiated
 * @mirror: the accepting half of a connection of a peer to itself;
 *	not counted in the pool
 * @acct: which pool counter holds it (enum txrdma_conn_acct)
 * @dead: teardown has begun; handlers return at once (@mutex)
 * @established: ESTABLISHED was seen, so disconnect on teardown
 * @started_ns: when the attempt began (connect timeout)
 * @ep: the endpoint it is lent to (peer->lock), or NULL
 * @held_ep: the endpoint pair whose work requests it carries: a
 *	reference, dropped when the CQ is freed (txrdma_pair_life.c)
 * @remote_qpn: the other end's QP number, from rdma_cm
 * @remote_want: acceptor: the pool demand the request carried, applied
 *	once the initiator is authenticated
 * @remote_boot_id: acceptor: the initiator's boot id, likewise
 * @resp_res: RDMA READs we serve at once on @qp
 * @init_depth: RDMA READs we issue at once on @qp
 * @hs_req: the request of the handshake, as its MACs cover it
 * @hs_rep: the reply, likewise
 * @hs_buf: the AUTH message (received by an acceptor, sent by an
 *	initiator), DMA-mapped at @hs_dma
 * @hs_dma: its DMA address
 * @hs_cqe: its completion context
 * @hs_work: acceptor: opens remote access once AUTH is checked
 * @authed: the other end proved the key (peer->lock)
 * @opened: remote access is open on @qp (peer->lock)
 * @half_open: counted among passive connections not authenticated yet
 * @tx_key: control QP: key of the messages we send
 * @rx_key: control QP: key of the messages we receive
 * @tx_seq: control QP: sequence number of our last message (peer->lock)
 * @rx_seq: control QP: that of the last one accepted (peer->lock)
 * @rx_last_ns: control QP: when it was ready or last accepted a
 *	message (peer->lock); see TXRDMA_CTRL_STALE_NS
 * @block: control QP only: slot buffers, DMA-mapped as one
 * @block_dma: DMA address of @block
 * @tx_busy: control QP only: bitmap of send slots in flight
 * @slots: control QP only: TX_SLOTS send slots, then RX_SLOTS receive
 */
struct txrdma_conn {
	struct list_head node;
	struct txrdma_peer *peer;
	struct rdma_cm_id *id;
	struct ib_qp *qp;
	bool drainable;
	struct txrdma_dev *dev;
	struct ib_cq *cq;
	u32 cq_entries;
	u32 max_sge;
	struct mutex mutex;	/* handler vs teardown */
	u8 kind;
	u8 state;
	bool passive;
	bool mirror;
	u8 acct;
	bool dead;
	bool established;
	u64 started_ns;
	struct txrdma_ep *ep;
	struct txrdma_ep *held_ep;
	u32 remote_qpn;
	u16 remote_want;
	u32 remote_boot_id;
	u8 resp_res;
	u8 init_depth;
	u8 hs_req[TXRDMA_HS_LEN];
	u8 hs_rep[TXRDMA_HS_LEN];
	void *hs_buf;
	u64 hs_dma;
	struct ib_cqe hs_cqe;
	struct work_struct hs_work;
	bool authed;
	bool opened;
	bool half_open;
	struct txrdma_auth tx_key;
	struct txrdma_auth rx_key;
	u64 tx_seq;
	u64 rx_seq;
	u64 rx_last_ns;
	void *block;
	u64 block_dma;
	unsigned long tx_busy;
	struct txrdma_ctrl_slot *slots;
};

/**
 * struct txrdma_peer_ev - a state change waiting to be multicast
 * @old_state: state before
 * @state: state after
 * @diag: enum txrdma_peer_diag of the change
 * @restart: the peer came back with a new discriminator
 * @deleted: the peer is being deleted
 * @time_ns: CLOCK_REALTIME of the change
 * @silence_ns: time since the last probe was heard, at the change
 * @cause: a change to Up after a Down: enum txrdma_peer_down_cause of
 *	that Down; else TXRDMA_PEER_DOWN_NONE
 * @flap: with @cause: the session was back within TXRDMA_PEER_FLAP_NS
 * @down_ns: with @cause: how long it was not Up
 * @stall_ns: with @cause: the length of the stall that explains it
 */
struct txrdma_peer_ev {
	u8 old_state;
	u8 state;
	u8 diag;
	bool restart;
	bool deleted;
	u8 cause;
	bool flap;
	u64 time_ns;
	u64 silence_ns;
	u64 down_ns;
	u64 stall_ns;
};

/*
 * A Down followed by Up within this time is a flap, not a failure: the
 * grace a session will get before its operations fail (issue 17).
 */
#define TXRDMA_PEER_FLAP_NS	(1000ULL * NSEC_PER_MSEC)

/**
 * struct txrdma_peer - one remote host
 * @node: entry in txrdma_peers (txrdma_peers_lock, RCU for readers)
 * @rcu: frees the structure after readers of the list are done
 * @ref: the list's reference, one per connection, one per RCU lookup
 * @id: assigned at creation, never reused while the module is loaded
 * @name: admin-chosen name
 * @addr: the peer's IPv4 address (network order)
 * @port: the peer's rdma_cm port
 * @devname: device the admin asked for, "" for the routed one
 * @self: @addr is one of this host's: the peer is this host
 * @auth: the key it must prove (never changes; freed when it is gone)
 * @lock: protects everything below (taken with _bh)
 * @bfd: the liveness session
 * @pool: counts of the pooled QPs
 * @rtt: probe round trips since the last Up
 * @conns: every connection, in any state
 * @ctrl: the established control connection used for sending, or NULL
 * @role: enum txrdma_peer_role
 * @local_addr: our address towards the peer, once resolved (0: not yet)
 * @used_dev: device name of the control connection, "" if none
 * @admin_up: false holds the session in AdminDown
 * @dying: deletion has begun: no new connection, no accept
 * @ctrl_pending: a control connection attempt is in flight
 * @ctrl_backoff_ns: delay before the next control attempt after failures
 * @ctrl_retry_at_ns: no control attempt before this
 * @echo_ns: tx_ns of the last probe received, echoed in ours
 * @echo_rx_ns: when it was received
 * @remote_boot_id: boot id of the peer's module, from its side of the
 *	last control connection (authenticated by the handshake's MACs)
 * @last_change_ns: CLOCK_REALTIME of the last state change, 0 if none
 * @ups: transitions to Up
 * @downs: transitions from Up
 * @tx_skipped: probes not sent (no control QP, or all slots in flight)
 * @auth_fails: connections refused because they did not prove the key
 * @rx_auth_dropped: control messages dropped: bad MAC or sequence
 * @nmirror: self peer: accepting halves of its own connections
 * @nhalf_open: its passive connections not authenticated yet
 * @nonces: the nonces of the last TXRDMA_PEER_NONCES requests it made
 *	that we answered, a ring (a replayed request is refused at once)
 * @nonce_next: where the next goes in @nonces
 * @stall_max_ns: the latest the liveness timer ever fired: how long this
 *	host could not run its probes (bfd.stalls counts the late firings)
 * @stalls: this host's and the peer's recent stalls, and the Down
 *	that waits for the next Up to be explained (txrdma_stall.h)
 * @peer_stall_max_ns: the longest stall the peer ever reported
 * @flaps: Downs followed by Up within TXRDMA_PEER_FLAP_NS
 * @downs_stalled: Downs explained by a stall of either side
 * @downs_unexplained: Downs no stall explains (counted at the next Up)
 * @evq: state changes not yet multicast
 * @ev_head: oldest entry of @evq
 * @ev_count: entries in @evq
 * @ev_lost: changes dropped because @evq was full
 * @timer_yielded: the timer ran late and yielded once (liveness.c)
 * @timer: BFD timer (soft hrtimer, CLOCK_MONOTONIC)
 * @work: the peer's work item: events, connections, pool
 * @group: the id of the first peer of its host: peers of one group are
 *	paths to one host (TXRDMA_A_PEER_PATH_OF), and a session moves
 *	between them (txrdma_pair_path.c); its own id when it is the first
 * @path_of: the name it was added as a path of, or ""
 */
struct txrdma_peer {
	struct list_head node;
	struct rcu_head rcu;
	struct kref ref;
	u32 id;
	char name[TXRDMA_PEER_NAME_MAX];
	__be32 addr;
	u16 port;
	char devname[TXRDMA_DEV_NAME_MAX];
	bool self;
	u32 group;
	char path_of[TXRDMA_PEER_NAME_MAX];
	struct txrdma_auth auth;

	/* connectors waiting for a QP to lend (txrdma_peer_lend_wake()) */
	wait_queue_head_t lend_wait;

	spinlock_t lock;	/* everything below */
	struct txrdma_bfd bfd;
	struct txrdma_pool pool;
	struct txrdma_rtt rtt;
	struct list_head conns;
	struct txrdma_conn *ctrl;
	u8 role;
	__be32 local_addr;
	char used_dev[TXRDMA_DEV_NAME_MAX];
	bool admin_up;
	bool dying;
	bool ctrl_pending;
	u64 ctrl_backoff_ns;
	u64 ctrl_retry_at_ns;
	u64 echo_ns;
	u64 echo_rx_ns;
	u32 remote_boot_id;
	u64 last_change_ns;
	u64 ups;
	u64 downs;
	u64 tx_skipped;
	u64 auth_fails;
	u64 rx_auth_dropped;
	u32 nmirror;
	u32 nhalf_open;
	u8 nonces[TXRDMA_PEER_NONCES][TXRDMA_NONCE_LEN];
	u32 nonce_next;
	u64 stall_max_ns;
	struct txrdma_stall_track stalls;
	u64 peer_stall_max_ns;
	u64 flaps;
	u64 downs_stalled;
	u64 downs_unexplained;
	struct txrdma_peer_ev evq[TXRDMA_PEER_EVQ];
	u8 ev_head;
	u8 ev_count;
	u64 ev_lost;
	bool timer_yielded;

	struct hrtimer timer;
	struct delayed_work work;
};

unsigned int txrdma_peer_paths(struct txrdma_peer *peer,
			       struct txrdma_peer **out, unsigned int max);

extern u32 txrdma_boot_id;
extern struct workqueue_struct *txrdma_peer_wq;

/* txrdma_peer.c */
int txrdma_peers_init(void);
void txrdma_peers_exit(void);
void txrdma_peers_drop_dev(struct txrdma_dev *dev);
struct txrdma_peer *txrdma_peer_find_addr(__be32 addr);
struct txrdma_peer *txrdma_peer_get_name(const char *name);
void txrdma_peer_put(struct txrdma_peer *peer);
void txrdma_peer_kick(struct txrdma_peer *peer);
void txrdma_peer_conn_done(struct txrdma_peer *peer, struct txrdma_conn *c,
			   u8 state);
bool txrdma_conn_usable(const struct txrdma_conn *c);
bool txrdma_conn_lendable(const struct txrdma_conn *c);
bool txrdma_peer_may_lend(struct txrdma_peer *peer);
void txrdma_peer_lend_wake(struct txrdma_peer *peer);

int txrdma_nl_peer_get_doit(struct sk_buff *skb, struct genl_info *info);
int txrdma_nl_peer_get_dumpit(struct sk_buff *skb,
			      struct netlink_callback *cb);
int txrdma_nl_peer_new_doit(struct sk_buff *skb, struct genl_info *info);
int txrdma_nl_peer_set_doit(struct sk_buff *skb, struct genl_info *info);
int txrdma_nl_peer_del_doit(struct sk_buff *skb, struct genl_info *info);

extern const struct nla_policy txrdma_peer_get_policy[];
extern const struct nla_policy txrdma_peer_new_policy[];
#define TXRDMA_PEER_GET_MAXATTR	TXRDMA_A_PEER_NAME
#define TXRDMA_PEER_NEW_MAXATTR	TXRDMA_A_PEER_PATH_OF

/* txrdma_conn.c */
int txrdma_listener_init(u16 port);
void txrdma_listener_exit(void);
int txrdma_conn_start(struct txrdma_peer *peer, u8 kind, u8 acct);
void txrdma_conn_trace(const struct txrdma_conn *c, u8 old);
void txrdma_conn_destroy(struct txrdma_conn *c);

/* txrdma_liveness.c */
void txrdma_liveness_init(struct txrdma_peer *peer);
void txrdma_liveness_start(struct txrdma_peer *peer);
void txrdma_liveness_stop(struct txrdma_peer *peer);
int txrdma_ctrl_setup(struct txrdma_conn *c);
void txrdma_ctrl_teardown(struct txrdma_conn *c);
void txrdma_ctrl_send_locked(struct txrdma_peer *peer, u64 now_ns);
int txrdma_ctrl_send_ep(struct txrdma_peer *peer,
			const struct txrdma_ctrl_ep *e);
void txrdma_peer_stall_bounds_locked(struct txrdma_peer *peer);
void txrdma_peer_state_changed(struct txrdma_peer *peer, u8 old_state,
			       u32 ev, u64 now_ns);

#endif /* _TXRDMA_PEER_H */
