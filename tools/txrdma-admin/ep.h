/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * ep.h: the "ep" object: parsing of TXRDMA_A_EP_* replies, the
 * TXRDMA_A_STAT_* counters (shared with the tenants' traffic totals),
 * printing, and the show command.
 */
#ifndef TXA_EP_H
#define TXA_EP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/netlink.h>
#include <linux/txrdma.h>

#include "args.h"
#include "json.h"

/*
 * The counters, in the order the outputs list them.  Their attributes
 * are not consecutive (TXRDMA_A_STAT_TX_COALESCED and _RX_BATCHES came
 * after the others, at the end of the attribute enum): map a counter to
 * its attribute with txa_stat_attr() and back with txa_stat_of_attr().
 */
enum txa_stat {
	TXA_ST_TX_MSGS,
	TXA_ST_TX_BYTES,
	TXA_ST_RX_MSGS,
	TXA_ST_RX_BYTES,
	TXA_ST_RW_OPS,
	TXA_ST_RW_BYTES,
	TXA_ST_CREDIT_STALLS,
	TXA_ST_CREDIT_UPDATES,
	TXA_ST_SLOT_STALLS,
	TXA_ST_THROTTLED,
	TXA_ST_ERR_CRC,
	TXA_ST_ERR_SEQ,
	TXA_ST_ERR_PROTO,
	TXA_ST_ERR_QP,
	TXA_ST_ERR_SQE,
	TXA_ST_TX_COALESCED,
	TXA_ST_RX_BATCHES,
	TXA_ST_TX_RESENT,
	TXA_ST_RESUMES,
	TXA_ST_PATH_MOVES,
	TXA_ST_NR
};

/* A nest of TXRDMA_A_STAT_* as the kernel sent it. */
struct txa_stats {
	unsigned int have;		/* bit (1 << enum txa_stat): sent */
	uint64_t v[TXA_ST_NR];
};

/* JSON key of a counter: "tx_msgs" .. "err_sqe", "tx_coalesced", ... */
const char *txa_stat_key(enum txa_stat st);
/* its TXRDMA_A_STAT_* attribute, 0 for none */
int txa_stat_attr(enum txa_stat st);
/* the counter of a TXRDMA_A_STAT_* attribute, -1 for none */
int txa_stat_of_attr(int attr);

/* Parse a nest into @st (zeroed first); 0 or -EINVAL. */
int txa_stats_parse(const struct nlattr *nest, struct txa_stats *st);

/*
 * "tx 2 msgs 128 bytes 1 coalesced  rx 4 msgs 256 bytes 1 batches  rw ..
 * errors crc 0 seq 0 proto 0 qp 0 sqe 0  session 1 resumes 4 resent
 * 1 moves": the counters that were sent, no indent, no newline.
 */
void txa_stats_print_plain(FILE *out, const struct txa_stats *st);

/* An object of the counters that were sent. */
void txa_stats_print_json(struct json_writer *w, const struct txa_stats *st);

/*
 * Is an endpoint's receive ring small for its messages?  When it sent
 * an explicit credit update for every other message received or more
 * (over at least TXA_RING_SMALL_MIN_MSGS): each costs the pair an RDMA
 * WRITE, which a ring of txrdma_rx_units_for() avoids.
 */
#define TXA_RING_SMALL_MIN_MSGS	64
bool txa_ep_ring_small(const struct txa_stats *st);

/* which fields of struct txa_ep the kernel sent */
enum {
	TXA_EP_HAVE_ID		= 1 << 0,
	TXA_EP_HAVE_TENANT	= 1 << 1,
	TXA_EP_HAVE_PEER	= 1 << 2,
	TXA_EP_HAVE_STATE	= 1 << 3,
	TXA_EP_HAVE_SERVICE	= 1 << 4,
	TXA_EP_HAVE_PEER_EP	= 1 << 5,
	TXA_EP_HAVE_QPN		= 1 << 6,
	TXA_EP_HAVE_ERROR	= 1 << 7,
	TXA_EP_HAVE_STATS	= 1 << 8,
	TXA_EP_HAVE_SESSION	= 1 << 9,	/* session, grace_ms, path */
};

/* An endpoint as an EP_GET reply describes it. */
struct txa_ep {
	uint8_t cmd;			/* genl command of the message */
	unsigned int have;
	uint32_t id;
	char tenant[TXRDMA_TENANT_NAME_MAX];
	char peer[TXRDMA_PEER_NAME_MAX];
	uint8_t state;			/* enum txrdma_ep_state */
	uint32_t service;
	uint32_t peer_ep;
	uint32_t qpn;
	int32_t error;			/* 0 or a negative errno */
	uint8_t session;		/* enum txrdma_ep_session */
	uint32_t grace_ms;
	char path[TXRDMA_PEER_NAME_MAX];	/* peer whose QP it is on */
	struct txa_stats stats;
};

/* "unknown(N)" + NUL, with room to spare */
#define TXA_EP_STATE_STRLEN	24
/* "-2147483648" + NUL, with room to spare */
#define TXA_ERRNO_STRLEN	24

/* plain, connecting, connected, rejected, closed, else "unknown(N)" */
const char *txa_ep_state_str(unsigned int state, char *buf, size_t len);

/* up, draining, waiting, resuming, failed, else "unknown(N)" */
const char *txa_ep_session_str(unsigned int phase, char *buf, size_t len);

/* "ECONNRESET" for -ECONNRESET, a number for one this tool does not name */
const char *txa_errno_str(int32_t error, char *buf, size_t len);

/* Parse a txrdma genl message into @ep (zeroed first); 0 or -EINVAL. */
int txa_ep_parse(const struct nlmsghdr *nlh, struct txa_ep *ep);

void txa_ep_print_plain(FILE *out, const struct txa_ep *ep);
void txa_ep_print_json(struct json_writer *w, const struct txa_ep *ep);

struct txa_nl;
/* ep show on an open socket; output to @out, errors to nl->err. */
int txa_ep_show(struct txa_nl *nl, const struct txa_args *a, FILE *out);

/* Open the socket, run the command of @a, close; return an exit status. */
int txa_cmd_ep(const struct txa_args *a);

#endif /* TXA_EP_H */
