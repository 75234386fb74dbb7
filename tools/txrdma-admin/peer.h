/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * peer.h: the "peer" object: parsing of TXRDMA_A_PEER_* replies and
 * events, printing, and the add/set/del/show commands.
 */
#ifndef TXA_PEER_H
#define TXA_PEER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/netlink.h>
#include <linux/txrdma.h>

#include "args.h"
#include "json.h"

/*
 * Which fields of struct txa_peer the kernel sent: bit (1ULL << field).
 * Printing tests ranges (TX_US..RX_AUTH_DROPPED is the "bfd" group,
 * RTT_MIN..RTT_SAMPLES "rtt", POOL_MIN..POOL_ERRORS "pool"): keep groups
 * together.
 */
enum txa_peer_field {
	TXA_PF_NAME,
	TXA_PF_ID,
	TXA_PF_ADDR,
	TXA_PF_PORT,
	TXA_PF_DEV,
	TXA_PF_PATH_OF,
	TXA_PF_LOCAL_ADDR,
	TXA_PF_ROLE,
	TXA_PF_STATE,
	TXA_PF_OLD_STATE,
	TXA_PF_REMOTE_STATE,
	TXA_PF_DIAG,
	TXA_PF_REASON,
	TXA_PF_ADMIN_UP,
	TXA_PF_TX_US,
	TXA_PF_RX_US,
	TXA_PF_MULT,
	TXA_PF_NEG_TX_US,
	TXA_PF_DETECT_US,
	TXA_PF_LOCAL_DISC,
	TXA_PF_REMOTE_DISC,
	TXA_PF_TX_PKTS,
	TXA_PF_RX_PKTS,
	TXA_PF_RX_DROPPED,
	TXA_PF_TX_SKIPPED,
	TXA_PF_STALLS,
	TXA_PF_STALL_MAX,
	TXA_PF_AUTH_FAILS,
	TXA_PF_RX_AUTH_DROPPED,
	TXA_PF_RTT_MIN,
	TXA_PF_RTT_AVG,
	TXA_PF_RTT_MAX,
	TXA_PF_RTT_SAMPLES,
	TXA_PF_POOL_MIN,
	TXA_PF_POOL_MAX,
	TXA_PF_POOL_READY,
	TXA_PF_POOL_IN_USE,
	TXA_PF_POOL_CONNECTING,
	TXA_PF_POOL_CLOSING,
	TXA_PF_POOL_TAKES,
	TXA_PF_POOL_MISSES,
	TXA_PF_POOL_FAILURES,
	TXA_PF_POOL_ERRORS,
	TXA_PF_QPS,
	TXA_PF_UPS,
	TXA_PF_DOWNS,
	TXA_PF_LAST_CHANGE,
	TXA_PF_SILENCE,
	TXA_PF_FLAPS,
	TXA_PF_DOWNS_STALLED,
	TXA_PF_DOWNS_UNEXPLAINED,
	TXA_PF_REMOTE_STALL_MAX,
	TXA_PF_DOWN_CAUSE,	/* an event to Up after a Down: */
	TXA_PF_DOWN_NS,
	TXA_PF_DOWN_STALL,
	TXA_PF_FLAP,
	TXA_PF_TIME,		/* TXRDMA_A_EVENT_TIME_NS */
	TXA_PF_SEQ,		/* TXRDMA_A_EVENT_SEQ */
	TXA_PF_NR
};

/* A peer as a PEER_GET reply or a PEER_STATE_NTF event describes it. */
struct txa_peer {
	uint8_t cmd;			/* genl command of the message */
	uint64_t have;			/* bit (1ULL << txa_peer_field) */
	char name[TXRDMA_PEER_NAME_MAX];
	uint32_t id;
	uint8_t addr[4];		/* IPv4, network order */
	uint16_t port;
	char dev[TXRDMA_DEV_NAME_MAX];
	char path_of[TXRDMA_PEER_NAME_MAX];	/* another path to its host */
	uint8_t local_addr[4];		/* IPv4, network order */
	uint8_t role;			/* enum txrdma_peer_role */
	uint8_t state, old_state;	/* enum txrdma_peer_state */
	uint8_t remote_state;
	uint8_t diag;			/* enum txrdma_peer_diag */
	char *reason;			/* malloc'ed */
	uint8_t admin_up;		/* 0: held AdminDown */
	/* BFD session */
	uint32_t tx_us, rx_us;
	uint8_t mult;
	uint32_t neg_tx_us, detect_us;
	uint32_t local_disc, remote_disc;
	uint64_t tx_pkts, rx_pkts, rx_dropped, tx_skipped;
	uint64_t stalls, stall_max_ns;	/* our timer ran late */
	/* connections that did not prove the key; control messages with a
	 * bad MAC or sequence number (there is no field for the key: the
	 * module never reports it, and a reply that did is not read)
	 */
	uint64_t auth_fails, rx_auth_dropped;
	uint64_t rtt_min_ns, rtt_avg_ns, rtt_max_ns, rtt_samples;
	/* QP pool */
	uint32_t pool_min, pool_max;
	uint32_t pool_ready, pool_in_use, pool_connecting, pool_closing;
	uint64_t pool_takes, pool_misses, pool_failures, pool_errors;
	uint32_t qps;
	uint64_t ups, downs;
	/* Downs: back within 1 s; explained by a stall; not explained */
	uint64_t flaps, downs_stalled, downs_unexplained;
	uint64_t remote_stall_max_ns;	/* longest the peer reported */
	uint64_t last_change_ns;	/* CLOCK_REALTIME, 0: never */
	uint64_t silence_ns;
	/* an event to Up after a Down: what explains that Down */
	uint8_t down_cause;		/* enum txrdma_peer_down_cause */
	uint8_t flap;
	uint64_t down_ns, down_stall_ns;
	/* events */
	uint64_t time_ns;
	uint64_t seq;
};

static inline bool txa_peer_has(const struct txa_peer *p,
				enum txa_peer_field f)
{
	return p->have & (1ULL << f);
}

/* "unknown(255)", "diag 255" + NUL */
#define TXA_PEER_NAME_STRLEN	16

/* admin_down, down, init, up; else "unknown(<n>)" */
const char *txa_peer_state_str(unsigned int state, char *buf, size_t len);
/* unknown, initiator, acceptor; else "unknown(<n>)" */
const char *txa_peer_role_str(unsigned int role, char *buf, size_t len);
/* none, detect_expired, neighbor_down, admin_down; else "diag <n>" */
const char *txa_peer_diag_str(unsigned int diag, char *buf, size_t len);
/* none, unexplained, peer_stall, local_stall; else "cause <n>" */
const char *txa_peer_cause_str(unsigned int cause, char *buf, size_t len);

/*
 * Parse a txrdma genl message into @p (zeroed first).  Returns 0, -EINVAL
 * (attributes of the wrong size or type) or -ENOMEM.  Call
 * txa_peer_free() afterwards in every case.
 */
int txa_peer_parse(const struct nlmsghdr *nlh, struct txa_peer *p);
void txa_peer_free(struct txa_peer *p);

/* peer show output of one peer */
void txa_peer_print_plain(FILE *out, const struct txa_peer *p);
void txa_peer_print_json(struct json_writer *w, const struct txa_peer *p);

/* " (detect_expired: reason)" when there is a diagnostic or a reason */
void txa_peer_print_diag_plain(FILE *out, const struct txa_peer *p);

struct txa_nl;
/*
 * The commands on an open socket; output to @out, errors to nl->err.
 * txa_peer_add() reads the key of a->peer.key_file just before it
 * sends and wipes every copy after (TXA_EXIT_USAGE for a key refused).
 */
int txa_peer_show(struct txa_nl *nl, const struct txa_args *a, FILE *out);
int txa_peer_add(struct txa_nl *nl, const struct txa_args *a);
int txa_peer_set(struct txa_nl *nl, const struct txa_args *a);
int txa_peer_del(struct txa_nl *nl, const struct txa_args *a);

/* Open the socket, run the command of @a, close; return an exit status. */
int txa_cmd_peer(const struct txa_args *a);

#endif /* TXA_PEER_H */
