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
#include <txrdma.h>
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

/* a leader's export of its tables, as our pair with it sees it */
struct kv_os_import {
	bool known;
	uint32_t gen;		/* the pair's (txn_txrdma_pair()) */
	uint32_t region;	/* the leader's region id */
	uint64_t off;		/* where its block starts in it */
	uint64_t retry_ns;	/* not exported yet: look again then */
};

/* one shard's READs for one order slot (kv_onesided.c) */
struct kv_os_batch {
	bool active;		/* READs of the order's attempt @ogen */
	uint8_t n;		/* records */
	uint8_t pending;	/* READs of this round not completed */
	uint16_t seq;		/* tags this batch's READs */
	uint32_t ogen;
	uint32_t leader, ep, region;
	uint32_t todo;		/* positions of this round */
	unsigned int inflight;	/* READs posted whose CQE did not come */
	/* the records by their place in the leader's memory: position p */
	uint8_t rec_at[KV_RD_MAX];	/* p -> the order's record k */
	uint64_t roff[KV_RD_MAX];	/* p -> its offset there */
	uint8_t tries[KV_RD_MAX];	/* p -> its READs so far */
	/* this round's READs: each of cnt adjacent slots from pos */
	uint8_t nruns;
	uint8_t run_pos[KV_RD_MAX], run_cnt[KV_RD_MAX];
	int32_t res[KV_RD_MAX];		/* run -> its CQE's res */
};

/* one-sided reads (kv_onesided.c), txrdma only */
struct kv_os {
	bool on;
	struct txrdma_ctx *ctx;		/* the read service's */
	struct txrdma_sq *sq;
	struct txrdma_region tables;	/* kv_node.tblock, registered */
	struct txrdma_region scratch;	/* where READs land */
	void *scratch_mem;
	struct kv_os_import imp[KV_MAX_NODES + 1];
	struct kv_os_batch *b;		/* [slot * nshard + shard] */
};

struct kv_node {
	struct kv_node_cfg cfg;
	unsigned int ngroups;
	struct kv_group grp[KV_MAX_GROUPS];
	struct kv_shard *shard[KV_MAX_SHARDS];
	/*
	 * Every shard's table in one block, shard s at s * tstride (page
	 * aligned): one region to register and export (kv_onesided.c)
	 */
	void *table[KV_MAX_SHARDS];
	void *tblock;
	size_t tblock_size, tstride;
	struct kv_os os;
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
/* record @k of shard @s's read of order @o, as read: 0, or -EINVAL */
int kv_take_rec(struct kv_order *o, uint32_t s, unsigned int k,
		uint64_t version, const void *value, uint32_t len);
/* every record of shard @s was taken: when it was the last, commit */
void kv_order_shard_read(struct kv_node *n, struct kv_order *o, uint32_t s);
/* shard @s's records of @o by the leader's read service: 0, -EAGAIN */
int kv_read_by_service(struct kv_node *n, struct kv_order *o, uint32_t s);

/*
 * kv_onesided.c.  kv_os_open(): on a txrdma read service, register and
 * export the tables; 0 or -errno (reads then go to the service).
 * kv_os_start(): READ shard @s's records of @o from @leader's memory:
 * 0 (under way: kv_order_shard_read() when they are in), or -errno
 * (read them through the service instead).  kv_os_close() before the
 * transport closes, kv_os_free() after.
 */
int kv_os_open(struct kv_node *n);
int kv_os_start(struct kv_node *n, struct kv_order *o, uint32_t s,
		uint32_t leader);
void kv_os_close(struct kv_node *n);
void kv_os_free(struct kv_node *n);

#endif /* KV_NODE_INT_H */
