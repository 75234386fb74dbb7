/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A txkv node: one database process of the cluster, on the public API
 * only.  Every node holds a replica of every shard and of the
 * coordinators' decision logs, each a Raft group of its own (libraft on
 * libtxrdma_raft's raft_io), and runs a transaction-layer node (two-
 * phase commit) and a read service.  The node that leads a shard's
 * group is that shard's participant.  Nodes 1..nclients may run a
 * client (a coordinator of new orders), each with a decision log of
 * its own that it leads.  See kv_node.c for the design.
 *
 * Transports, one per group (txrdma endpoint pairs, or TCP to compare):
 * shard s is group s, client c's decision log group nshard + c - 1,
 * two-phase commit nshard + nclients, reads nshard + nclients + 1.  On
 * txrdma node n of group g listens on service base + 16 g + n; on TCP
 * at port base + 16 g + n, or on a port of the system's choosing when
 * base is 0 (kv_node_port() tells which).
 *
 * One thread drives a node: kv_node_poll().
 */
#ifndef KV_NODE_H
#define KV_NODE_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

#include <txn_transport.h>

#include "kv_neworder.h"
#include "kv_shard.h"

#define KV_MAX_NODES	7
#define KV_MAX_SHARDS	8
/* groups (and transports: + 2) of @nshard shards and @nclients clients */
#define KV_GROUPS(nshard, nclients)	((nshard) + (nclients))
#define KV_PORTS(nshard, nclients)	(KV_GROUPS(nshard, nclients) + 2)
#define KV_MAX_GROUPS	KV_GROUPS(KV_MAX_SHARDS, KV_MAX_NODES)

struct kv_node_cfg {
	uint32_t self;		/* 1..nnodes */
	uint32_t nnodes;	/* 3..KV_MAX_NODES */
	struct kv_no_cfg no;	/* the schema; no.nshard shards */
	enum txn_backend backend;	/* TXRDMA or TCP */
	uint32_t base;		/* service or port base (see above) */
	uint32_t epoch;		/* this incarnation, for transaction ids */
	/*
	 * The node that should lead group g first (its election timer is
	 * short): prefer[g], 0 for none.  Raft decides; this only places
	 * the first leaders apart.
	 */
	uint32_t prefer[KV_MAX_GROUPS];
	uint32_t nclients;	/* nodes 1..nclients may run a client; 0: 1 */
	uint32_t max_msg;	/* transport messages, 0: 16 KiB */
	uint32_t ep_flags;	/* txrdma: TXRDMA_EP_F_RX_AHEAD, ... */
	/*
	 * Write-ahead files, one per group (group-<g>.wal: libraft's term,
	 * vote, log and last snapshot, synced before libraft is told),
	 * and "epoch"; NULL: memory only.  A node opened again on the
	 * same directory is the node that crashed, coming back: it takes
	 * an epoch above every earlier one and rejoins its groups.
	 */
	const char *wal_dir;
	unsigned int wal_flags;	/* TXRAFT_STORE_NOSYNC: tests only */
	/*
	 * txrdma: read remote records through the leaders' read service
	 * (a message each way) instead of by RDMA READ from their memory
	 * (kv_onesided.c): to compare the two
	 */
	bool service_reads;
};

/* counters, never reset */
struct kv_node_stats {
	uint64_t prepares, votes_yes, votes_no, decides;
	uint64_t reads_served, reads_refused;	/* refused: not the leader */
	uint64_t apply_failed;	/* raft_apply() refused or failed */
	/* failover: a new shard leader and what the old one left */
	uint64_t orphans;	/* prepared transactions found unhandled */
	uint64_t asks, answers;	/* decisions asked for; answered (coord) */
	uint64_t resolved_commit, resolved_abort;	/* applied by us */
	uint64_t stuck_acked;	/* decisions ACKed once the log had them */
	uint64_t learned;	/* our votes decided by another's answer */
};

/* the client's (coordinator's) view */
struct kv_client_stats {
	uint64_t started, committed, aborted;
	uint64_t abort_stale, abort_locked, abort_leader, abort_other;
	uint64_t read_retries;		/* a read refused or timed out */
	uint64_t lat_ns_sum;
	uint64_t read_ns_sum;	/* committed orders: start to last read */
	uint64_t log_failed;	/* decisions the log did not take (or a
				 * deposed client's): the client stopped */
	uint64_t hist_lost;	/* committed orders the history missed */
	/*
	 * shard reads: by RDMA READ (kv_onesided.c), by the read service,
	 * of our own replica (we lead the shard)
	 */
	uint64_t os_reads, svc_reads, local_reads;
	uint64_t os_errors;	/* batches failed: the service read instead */
	int64_t os_last_error;	/* the latest one's -errno */
	uint64_t os_posted;	/* READs posted */
	uint64_t os_retries;	/* copies READ again (torn) */
};

/* every record's version after the load, before any transaction */
#define KV_LOAD_VERSION	2

struct kv_node;

/* open the transports and the machines; nothing is connected yet */
int kv_node_open(struct kv_node **np, const struct kv_node_cfg *cfg);

/* the epoch this node runs with (cfg.epoch, or above the last run's) */
uint32_t kv_node_epoch(const struct kv_node *n);

/* the TCP port of group @g (after a base of 0), or -1 */
int kv_node_port(const struct kv_node *n, unsigned int g);

/*
 * Name node @node: through the txrdma peer @peer_name, or on TCP at
 * @addr with @ports[g] the port of each group.  Return: 0 or -errno.
 */
int kv_node_add_peer(struct kv_node *n, uint32_t node, const char *peer_name,
		     const struct in_addr *addr, const int *ports);

/* start every Raft group (all nodes bootstrap the same configuration) */
int kv_node_start(struct kv_node *n);

/* run what is ready, waiting up to @timeout_ms; 0 or -errno */
int kv_node_poll(struct kv_node *n, int timeout_ms);

/* close the groups (polling until libraft let go) and free @n */
void kv_node_close(struct kv_node *n);

/* the leader of group @g as this node sees it, 0 when none is known */
uint32_t kv_node_leader(const struct kv_node *n, unsigned int g);

/*
 * The client: keep @window new orders in flight until @orders are
 * done (0: until kv_node_client_stop()), from seed @seed.  This node
 * must lead the decision log.  Return: 0, -EINVAL, -EBUSY (running),
 * -EAGAIN (not the decision log's leader), -ENOMEM.
 */
int kv_node_client_start(struct kv_node *n, uint32_t window, uint64_t seed,
			 uint64_t orders);
void kv_node_client_stop(struct kv_node *n);
/* started and every order finished */
bool kv_node_client_done(const struct kv_node *n);
void kv_node_client_stats(const struct kv_node *n, struct kv_client_stats *s);
/* latency of committed orders, nanoseconds, in commit order */
const uint64_t *kv_node_client_lat(const struct kv_node *n, size_t *count);
const struct kv_no_tally *kv_node_tally(const struct kv_node *n);

/*
 * Before kv_node_client_start(): keep the tally and the history in @t
 * and @h (the caller's, initialised, outliving the node) instead of
 * the node's own, so that a client started after another's death goes
 * on with one tally and one history.  Return: 0, -EINVAL.
 */
int kv_node_client_share(struct kv_node *n, struct kv_no_tally *t,
			 struct kv_history *h);

/* an order whose transaction began and whose outcome the client lacks */
struct kv_doubt {
	struct txn_id id;
	const struct kv_no_plan *plan;
	const struct kv_no_seen *seen;
	uint64_t t0;		/* when it began (ns, CLOCK_MONOTONIC) */
};

/* @fn on each order in doubt (its coordinator died; NULL: count): how many */
unsigned int kv_node_client_in_doubt(const struct kv_node *n,
				     void (*fn)(void *ctx,
						const struct kv_doubt *d),
				     void *ctx);
/* Does this node's replica of the decision log hold COMMIT @id? */
bool kv_node_decision_held(const struct kv_node *n, const struct txn_id *id);
/* Count order @d committed (tally and history), known at @end (ns). */
void kv_node_client_history_add(struct kv_node *n, const struct kv_doubt *d,
				uint64_t end);
/*
 * Check the client's history of committed orders against this node's
 * replicas (kv_history.h: strictly serializable, nothing lost or
 * extra); call when they are settled.  0, or -EPROTO/-ENOMEM with @why.
 */
int kv_node_check_history(struct kv_node *n, char *why, size_t cap);

/*
 * Is every group led by its preferred node (cfg.prefer)?  A node that
 * leads a group another should lead hands it over (raft_transfer());
 * keep polling.
 */
bool kv_node_placed(struct kv_node *n);

/*
 * Has the node taken the steady election timeouts: every group seen led
 * by its preferred node once, or 10 s gone since kv_node_open()?
 */
bool kv_node_steady(const struct kv_node *n);

/*
 * Catch up with the shards' leaders: kv_node_sync() asks each for the
 * index of a barrier (every entry before it applied there), then
 * kv_node_synced() (keep polling) says when this node applied that far
 * on every shard: what it holds then includes everything the leaders
 * had applied when asked.
 */
int kv_node_sync(struct kv_node *n);
bool kv_node_synced(struct kv_node *n);
/* COMMIT decisions the decision log holds (not yet ACKed by all) */
size_t kv_node_decisions_held(const struct kv_node *n);

/* transactions prepared on this node's replica of shard @s */
unsigned int kv_node_prepared(const struct kv_node *n, unsigned int s);

/* this node's replicas of every shard, as applied so far */
const struct kv_shard *const *kv_node_shards(const struct kv_node *n);
/* this node's replica of shard @s, as applied so far */
const struct kv_shard *kv_node_shard(const struct kv_node *n, unsigned int s);
/* the last index applied by group @g here */
uint64_t kv_node_applied(const struct kv_node *n, unsigned int g);
void kv_node_stats(const struct kv_node *n, struct kv_node_stats *s);

#endif /* KV_NODE_H */
