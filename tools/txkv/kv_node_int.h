/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * txkv node internals, shared by kv_node.c (groups, participant,
 * client, read service) and kv_failover.c (what a new shard leader
 * does about what the old one left): not an interface.
 */
#ifndef KV_NODE_INT_H
#define KV_NODE_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include <raft.h>
#include <txn_node.h>
#include <txn_transport.h>
#include <txraft_dlog.h>
#include <txraft_io.h>

#include "kv_node.h"

#define MS		1000000ULL
#define MAX_TXNS	1024
#define MAX_WINDOW	64
#define BR_MAX		2048	/* a branch: a node's shards' PREPAREs */
#define READ_TIMEOUT_NS	(500 * MS)

/* why a participant says no (vote reasons are not 0) */
enum {
	KVR_RES = 100,		/* + enum kv_res: the shard's answer */
	KVR_NOT_LEADER = 200,	/* a shard this node does not lead */
	KVR_FULL,		/* no room for another transaction */
	KVR_FAILED,		/* the log could not take the command */
	KVR_BAD,		/* a branch that is not one */
};

/* a branch, little-endian: this header, then per shard one entry */
struct kv_br_hdr {
	uint8_t nsh;
	uint8_t resv[7];
};

struct kv_br_ent {
	uint32_t shard;
	uint32_t len;		/* the PREPARE command, padded to 8 */
};

/* the read service's messages, little-endian */
#define KV_RD_REQ	0x5152564bU	/* "KVRQ" */
#define KV_RD_RESP	0x5352564bU	/* "KVRS" */
#define KV_RD_SYNC	0x5953564bU	/* "KVSY": a barrier's index */
#define KV_RD_SYNCED	0x4453564bU	/* "KVSD": its answer */
#define KV_RD_MAX	16		/* records per request */

/* sync: the leader's applied index once a barrier went through */
struct kv_rd_sync {
	uint32_t magic;
	uint32_t shard;
	uint64_t index;		/* answer: applied there; 0: not the leader */
};

struct kv_barrier {
	struct raft_barrier req;
	struct kv_node *n;
	uint32_t shard;
	uint64_t term;		/* ours when it was proposed */
};

struct kv_rd_req {
	uint32_t magic;
	uint32_t tag;
	uint32_t shard;
	uint16_t n;
	uint16_t resv;
	uint32_t index[KV_RD_MAX];
};

struct kv_rd_rec {
	uint64_t version;
	uint32_t len;
	uint32_t resv;
	uint8_t value[KV_NO_CAP];
};

struct kv_rd_resp {
	uint32_t magic;
	uint32_t tag;
	uint32_t shard;
	uint16_t n;
	int16_t status;		/* 0, or -EAGAIN: not the leader */
	struct kv_rd_rec rec[KV_RD_MAX];
};

struct kv_node;
struct kv_pend;

/*
 * A transaction prepared on a shard we lead that no kv_pend of ours
 * handles: its participant was the shard's old leader.  We ask its
 * coordinator for the decision and apply it through the shard's log.
 */
#define KV_ORPHANS	256
struct kv_orphan {
	bool used, proposing;
	uint32_t shard;
	struct txn_id id;
	uint64_t asked_ns;
	uint64_t term;		/* the shard's, when found */
	struct raft_apply req;
	struct kv_node *n;
	uint8_t op;		/* what is being proposed */
};

struct kv_group {
	struct kv_node *n;
	unsigned int g;
	struct txraft_io *x;
	struct txraft_store *store;	/* cfg.wal_dir: its write-ahead file */
	struct txn_transport *t;
	struct raft raft;
	struct raft_fsm fsm;		/* shards: ours */
	struct txraft_dlog *dlog;	/* the decision log's group */
	struct raft_transfer xfer;
	bool inited, closed, xfer_busy;
};

struct kv_apply {
	struct raft_apply req;
	struct kv_pend *p;
	uint8_t si;
};

enum { P_PREPARING = 1, P_VOTED, P_DECIDING, P_ABORTING, P_STUCK };

/* a transaction this node takes part in */
struct kv_pend {
	bool used;
	uint8_t phase, nsh, outstanding;
	struct txn_id id;
	uint8_t shard[KV_MAX_SHARDS];
	uint8_t res[KV_MAX_SHARDS];
	uint32_t reason;
	bool aborted;		/* ABORT decided while preparing */
	uint8_t decision;	/* DECIDING: KV_OP_COMMIT or KV_OP_ABORT */
	uint64_t voted_ns;	/* VOTED: since when */
	struct kv_apply ap[KV_MAX_SHARDS];
};

enum { O_IDLE, O_READING, O_COMMITTING };

/* an order of the client */
struct kv_order {
	uint8_t phase;
	uint32_t gen;
	uint32_t need;			/* shards whose reads are awaited */
	uint64_t t0, deadline, t_read;
	struct kv_no_plan plan;
	struct kv_no_seen seen;
	struct txn_id id;		/* COMMITTING: its transaction */
	/* what each shard's read brings: kind and line per record */
	uint8_t rd_kind[KV_MAX_SHARDS][KV_RD_MAX];
	uint8_t rd_line[KV_MAX_SHARDS][KV_RD_MAX];
	uint32_t rd_index[KV_MAX_SHARDS][KV_RD_MAX];
	uint8_t rd_n[KV_MAX_SHARDS];
	struct txn_branch br[KV_MAX_NODES];
	uint8_t brbuf[KV_MAX_NODES][BR_MAX];
	uint16_t nbr;
};

struct kv_node {
	struct kv_node_cfg cfg;
	unsigned int ngroups;
	struct kv_group grp[KV_MAX_GROUPS];
	struct kv_shard *shard[KV_MAX_SHARDS];
	void *table[KV_MAX_SHARDS];
	struct txn_transport *txn_t, *rd_t;
	struct txn_node *txn;
	int epfd;
	struct kv_pend pend[MAX_TXNS];
	struct kv_node_stats st;
	/* the client */
	bool client;
	uint32_t window;
	uint64_t rng, orders, started;
	struct kv_order *ord;
	struct kv_no_tally own_tally;
	struct kv_no_tally *tally;	/* own_tally, or kv_node_client_share()'s */
	bool shared;			/* tally and hist are the caller's */
	uint64_t client_term;		/* our decision log's, at client start */
	struct kv_client_stats cst;
	uint64_t *lat;
	size_t nlat, lat_cap;
	struct kv_history *hist;	/* committed orders, for the check */
	/* kv_node_sync(): the leaders' indexes, and which came */
	uint64_t sync_index[KV_MAX_SHARDS];
	uint32_t sync_need;
	uint64_t sync_sent_ns;
	bool client_failed;
	/* one barrier at a time per shard; the nodes waiting for it */
	bool barrier_busy[KV_MAX_SHARDS];
	uint32_t barrier_waiters[KV_MAX_SHARDS];
	bool closing;		/* kv_node_close(): propose nothing more */
	bool steady;		/* placed once: steady election timeouts */
	uint64_t opened_ns;	/* kv_node_open(): placing ends by
				 * PLACING_MAX_NS after it */
	/* failover (kv_failover.c) */
	bool dlog_barrier_busy[KV_MAX_NODES + 1];	/* per client's log */
	struct kv_ask_q *askq;		/* asks waiting for a barrier */
	unsigned int naskq, askq_cap;
	uint64_t led_term[KV_MAX_SHARDS];	/* a barrier of ours went
						 * through in this term */
	uint64_t fo_next_ns;			/* the next kv_fo_tick() */
	struct kv_orphan orphan[KV_ORPHANS];
};

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* the decision log of client (coordinator) node @c; is there one? */
static inline unsigned int g_dlog_of(const struct kv_node *n, uint32_t c)
{
	return n->cfg.no.nshard + c - 1;
}

static inline bool has_dlog(const struct kv_node *n, uint32_t c)
{
	return c >= 1 && c <= n->cfg.nclients;
}

/* our own (only when has_dlog(n, self)) */
static inline unsigned int g_dlog(const struct kv_node *n)
{
	return g_dlog_of(n, n->cfg.self);
}

static inline bool leads(const struct kv_node *n, unsigned int g)
{
	return n->grp[g].inited && raft_state((struct raft *)&n->grp[g].raft) ==
	       RAFT_LEADER;
}

/*
 * Election timeouts (ms).  The preferred node of a group starts with a
 * short one, to win the first election; once every group is led as
 * preferred, every node takes the steady ones (kv_fo_tick()): a leader
 * also steps down when it has not heard a majority for that long, and
 * a client whose decision log changes term is fenced for good, so the
 * logs' timeout outlasts the stalls of a loaded TCG guest (seconds).
 */
#define PLACING_ELECTION_MS	300
/*
 * A node that never sees every group led as preferred (it was opened
 * again after a failover moved leadership away) still goes steady:
 * 300 ms timeouts kept for good would stand for election on every stall.
 */
#define PLACING_MAX_NS		(10000 * MS)
#define SHARD_ELECTION_MS	1500
#define DLOG_ELECTION_MS	5000

static inline unsigned int kv_election_ms(const struct kv_node *n,
					  unsigned int g)
{
	return g < n->cfg.no.nshard ? SHARD_ELECTION_MS : DLOG_ELECTION_MS;
}

/* kv_failover.c */
#define KV_RD_ASK	0x4b53564bU	/* "KVSK": a decision asked for */
#define KV_RD_TOLD	0x4c54564bU	/* "KVTL": its answer */
void kv_fo_tick(struct kv_node *n);
void kv_fo_msg(struct kv_node *n, uint32_t from, const void *msg, size_t len);
void kv_fo_barrier_done(struct kv_node *n, uint32_t s, uint64_t term);
/* the client may not log: the decision log's term moved since it began */
bool kv_fo_fenced(const struct kv_node *n);
int kv_fo_barrier(struct kv_node *n, uint32_t s);
/* kv_node.c */
void kv_xfer_done(struct raft_transfer *req);

#endif /* KV_NODE_INT_H */
