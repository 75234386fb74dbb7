// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * peer.c: txrdma-admin peer add / set / del / show, and the parsing of
 * peer attributes that the monitor shares.
 *
 * The module is the authority on what is valid (names, addresses,
 * devices, intervals, pool sizes against each other): the tool checks
 * the syntax and the ranges of the attribute types, sends what it was
 * given and prints the module's extack message, so the rules live in one
 * place.
 *
 * The exception is the peer key (TXRDMA_A_PEER_KEY), a secret: it is
 * read from its file (key.c) only by peer add, just before the request
 * is built, and checked here so that a mistyped file never reaches the
 * kernel.  Nothing prints it; the struct that held it and the request
 * that carried it are wiped once the kernel answered.  The kernel never
 * reports it back, and the reply policy below does not read it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/genl/genl.h>

#include "key.h"
#include "nl.h"
#include "show.h"
#include "peer.h"
#include "print.h"

_Static_assert(TXA_PF_NR <= 64, "struct txa_peer.have holds every field");

/* ---- names ---------------------------------------------------------- */

static const char *const state_names[] = {
	[TXRDMA_PEER_ADMIN_DOWN]	= "admin_down",
	[TXRDMA_PEER_DOWN]		= "down",
	[TXRDMA_PEER_INIT]		= "init",
	[TXRDMA_PEER_UP]		= "up",
};

static const char *const role_names[] = {
	[TXRDMA_PEER_ROLE_UNKNOWN]	= "unknown",
	[TXRDMA_PEER_ROLE_INITIATOR]	= "initiator",
	[TXRDMA_PEER_ROLE_ACCEPTOR]	= "acceptor",
};

/* sparse: the BFD codes txrdma uses */
static const char *const diag_names[] = {
	[TXRDMA_PEER_DIAG_NONE]			= "none",
	[TXRDMA_PEER_DIAG_DETECT_EXPIRED]	= "detect_expired",
	[TXRDMA_PEER_DIAG_NEIGHBOR_DOWN]	= "neighbor_down",
	[TXRDMA_PEER_DIAG_ADMIN_DOWN]		= "admin_down",
};

static const char *const cause_names[] = {
	[TXRDMA_PEER_DOWN_NONE]		= "none",
	[TXRDMA_PEER_DOWN_UNEXPLAINED]	= "unexplained",
	[TXRDMA_PEER_DOWN_PEER_STALL]	= "peer_stall",
	[TXRDMA_PEER_DOWN_LOCAL_STALL]	= "local_stall",
	[TXRDMA_PEER_DOWN_RESTART]	= "restart",
};

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static const char *lookup_name(const char *const *names, size_t n,
			       unsigned int v)
{
	return v < n ? names[v] : NULL;
}

const char *txa_peer_state_str(unsigned int state, char *buf, size_t len)
{
	const char *name = lookup_name(state_names, ARRAY_SIZE(state_names),
				       state);

	if (name)
		return name;
	snprintf(buf, len, "unknown(%u)", state);
	return buf;
}

const char *txa_peer_role_str(unsigned int role, char *buf, size_t len)
{
	const char *name = lookup_name(role_names, ARRAY_SIZE(role_names),
				       role);

	if (name)
		return name;
	snprintf(buf, len, "unknown(%u)", role);
	return buf;
}

const char *txa_peer_diag_str(unsigned int diag, char *buf, size_t len)
{
	const char *name = lookup_name(diag_names, ARRAY_SIZE(diag_names),
				       diag);

	if (name)
		return name;
	snprintf(buf, len, "diag %u", diag);
	return buf;
}

const char *txa_peer_cause_str(unsigned int cause, char *buf, size_t len)
{
	const char *name = lookup_name(cause_names, ARRAY_SIZE(cause_names),
				       cause);

	if (name)
		return name;
	snprintf(buf, len, "cause %u", cause);
	return buf;
}

/* ---- parsing -------------------------------------------------------- */

/*
 * Expected types.  libnl checks minimum sizes (and maxlen) and that
 * strings are NUL-terminated; unknown attributes (and the PADs before
 * u64s) are ignored, so a newer module that adds attributes keeps
 * working.
 */
static struct nla_policy peer_policy[TXRDMA_A_MAX + 1] = {
	[TXRDMA_A_PEER_NAME]		= { .type = NLA_STRING,
					    .maxlen = TXRDMA_PEER_NAME_MAX },
	[TXRDMA_A_PEER_ID]		= { .type = NLA_U32 },
	[TXRDMA_A_PEER_ADDR]		= { .type = NLA_UNSPEC, .minlen = 4,
					    .maxlen = 4 },
	[TXRDMA_A_PEER_PORT]		= { .type = NLA_U16 },
	[TXRDMA_A_PEER_DEV]		= { .type = NLA_STRING,
					    .maxlen = TXRDMA_DEV_NAME_MAX },
	[TXRDMA_A_PEER_PATH_OF]		= { .type = NLA_STRING,
					    .maxlen = TXRDMA_PEER_NAME_MAX },
	[TXRDMA_A_PEER_POOL_MIN]	= { .type = NLA_U32 },
	[TXRDMA_A_PEER_POOL_MAX]	= { .type = NLA_U32 },
	[TXRDMA_A_PEER_TX_US]		= { .type = NLA_U32 },
	[TXRDMA_A_PEER_RX_US]		= { .type = NLA_U32 },
	[TXRDMA_A_PEER_MULT]		= { .type = NLA_U8 },
	[TXRDMA_A_PEER_STATE]		= { .type = NLA_U8 },
	[TXRDMA_A_PEER_OLD_STATE]	= { .type = NLA_U8 },
	[TXRDMA_A_PEER_DIAG]		= { .type = NLA_U8 },
	[TXRDMA_A_PEER_REASON]		= { .type = NLA_STRING },
	[TXRDMA_A_PEER_REMOTE_STATE]	= { .type = NLA_U8 },
	[TXRDMA_A_PEER_LOCAL_ADDR]	= { .type = NLA_UNSPEC, .minlen = 4,
					    .maxlen = 4 },
	[TXRDMA_A_PEER_ROLE]		= { .type = NLA_U8 },
	[TXRDMA_A_PEER_LOCAL_DISC]	= { .type = NLA_U32 },
	[TXRDMA_A_PEER_REMOTE_DISC]	= { .type = NLA_U32 },
	[TXRDMA_A_PEER_NEG_TX_US]	= { .type = NLA_U32 },
	[TXRDMA_A_PEER_DETECT_US]	= { .type = NLA_U32 },
	[TXRDMA_A_PEER_RTT_MIN_NS]	= { .type = NLA_U64 },
	[TXRDMA_A_PEER_RTT_AVG_NS]	= { .type = NLA_U64 },
	[TXRDMA_A_PEER_RTT_MAX_NS]	= { .type = NLA_U64 },
	[TXRDMA_A_PEER_RTT_SAMPLES]	= { .type = NLA_U64 },
	[TXRDMA_A_PEER_LAST_CHANGE_NS]	= { .type = NLA_U64 },
	[TXRDMA_A_PEER_SILENCE_NS]	= { .type = NLA_U64 },
	[TXRDMA_A_PEER_POOL_READY]	= { .type = NLA_U32 },
	[TXRDMA_A_PEER_POOL_IN_USE]	= { .type = NLA_U32 },
	[TXRDMA_A_PEER_POOL_CONNECTING]	= { .type = NLA_U32 },
	[TXRDMA_A_PEER_POOL_CLOSING]	= { .type = NLA_U32 },
	[TXRDMA_A_PEER_POOL_TAKES]	= { .type = NLA_U64 },
	[TXRDMA_A_PEER_POOL_MISSES]	= { .type = NLA_U64 },
	[TXRDMA_A_PEER_POOL_FAILURES]	= { .type = NLA_U64 },
	[TXRDMA_A_PEER_POOL_ERRORS]	= { .type = NLA_U64 },
	[TXRDMA_A_PEER_QPS]		= { .type = NLA_U32 },
	[TXRDMA_A_PEER_TX_PKTS]		= { .type = NLA_U64 },
	[TXRDMA_A_PEER_RX_PKTS]		= { .type = NLA_U64 },
	[TXRDMA_A_PEER_RX_DROPPED]	= { .type = NLA_U64 },
	[TXRDMA_A_PEER_TX_SKIPPED]	= { .type = NLA_U64 },
	[TXRDMA_A_PEER_STALLS]		= { .type = NLA_U64 },
	[TXRDMA_A_PEER_STALL_MAX_NS]	= { .type = NLA_U64 },
	[TXRDMA_A_PEER_AUTH_FAILS]	= { .type = NLA_U64 },
	[TXRDMA_A_PEER_RX_AUTH_DROPPED]	= { .type = NLA_U64 },
	[TXRDMA_A_PEER_UPS]		= { .type = NLA_U64 },
	[TXRDMA_A_PEER_DOWNS]		= { .type = NLA_U64 },
	[TXRDMA_A_PEER_ADMIN_UP]	= { .type = NLA_U8 },
	[TXRDMA_A_PEER_FLAPS]		= { .type = NLA_U64 },
	[TXRDMA_A_PEER_DOWNS_STALLED]	= { .type = NLA_U64 },
	[TXRDMA_A_PEER_DOWNS_UNEXPLAINED] = { .type = NLA_U64 },
	[TXRDMA_A_PEER_REMOTE_STALL_MAX_NS] = { .type = NLA_U64 },
	[TXRDMA_A_PEER_DOWN_CAUSE]	= { .type = NLA_U8 },
	[TXRDMA_A_PEER_DOWN_NS]		= { .type = NLA_U64 },
	[TXRDMA_A_PEER_DOWN_STALL_NS]	= { .type = NLA_U64 },
	[TXRDMA_A_PEER_FLAP]		= { .type = NLA_U8 },
	[TXRDMA_A_EVENT_TIME_NS]	= { .type = NLA_U64 },
	[TXRDMA_A_EVENT_SEQ]		= { .type = NLA_U64 },
};

/* a numeric attribute and the member of struct txa_peer it fills */
struct num_attr {
	uint16_t attr;
	uint8_t field;		/* enum txa_peer_field */
	uint8_t size;		/* of the member: 1, 2, 4 or 8 bytes */
	uint16_t off;		/* of the member */
};

#define NUM(a, f, m)	{ TXRDMA_A_##a, TXA_PF_##f,			\
			  sizeof(((struct txa_peer *)0)->m),		\
			  offsetof(struct txa_peer, m) }

static const struct num_attr num_attrs[] = {
	NUM(PEER_ID, ID, id),
	NUM(PEER_PORT, PORT, port),
	NUM(PEER_ROLE, ROLE, role),
	NUM(PEER_STATE, STATE, state),
	NUM(PEER_OLD_STATE, OLD_STATE, old_state),
	NUM(PEER_REMOTE_STATE, REMOTE_STATE, remote_state),
	NUM(PEER_DIAG, DIAG, diag),
	NUM(PEER_ADMIN_UP, ADMIN_UP, admin_up),
	NUM(PEER_TX_US, TX_US, tx_us),
	NUM(PEER_RX_US, RX_US, rx_us),
	NUM(PEER_MULT, MULT, mult),
	NUM(PEER_NEG_TX_US, NEG_TX_US, neg_tx_us),
	NUM(PEER_DETECT_US, DETECT_US, detect_us),
	NUM(PEER_LOCAL_DISC, LOCAL_DISC, local_disc),
	NUM(PEER_REMOTE_DISC, REMOTE_DISC, remote_disc),
	NUM(PEER_TX_PKTS, TX_PKTS, tx_pkts),
	NUM(PEER_RX_PKTS, RX_PKTS, rx_pkts),
	NUM(PEER_RX_DROPPED, RX_DROPPED, rx_dropped),
	NUM(PEER_TX_SKIPPED, TX_SKIPPED, tx_skipped),
	NUM(PEER_STALLS, STALLS, stalls),
	NUM(PEER_STALL_MAX_NS, STALL_MAX, stall_max_ns),
	NUM(PEER_AUTH_FAILS, AUTH_FAILS, auth_fails),
	NUM(PEER_RX_AUTH_DROPPED, RX_AUTH_DROPPED, rx_auth_dropped),
	NUM(PEER_RTT_MIN_NS, RTT_MIN, rtt_min_ns),
	NUM(PEER_RTT_AVG_NS, RTT_AVG, rtt_avg_ns),
	NUM(PEER_RTT_MAX_NS, RTT_MAX, rtt_max_ns),
	NUM(PEER_RTT_SAMPLES, RTT_SAMPLES, rtt_samples),
	NUM(PEER_POOL_MIN, POOL_MIN, pool_min),
	NUM(PEER_POOL_MAX, POOL_MAX, pool_max),
	NUM(PEER_POOL_READY, POOL_READY, pool_ready),
	NUM(PEER_POOL_IN_USE, POOL_IN_USE, pool_in_use),
	NUM(PEER_POOL_CONNECTING, POOL_CONNECTING, pool_connecting),
	NUM(PEER_POOL_CLOSING, POOL_CLOSING, pool_closing),
	NUM(PEER_POOL_TAKES, POOL_TAKES, pool_takes),
	NUM(PEER_POOL_MISSES, POOL_MISSES, pool_misses),
	NUM(PEER_POOL_FAILURES, POOL_FAILURES, pool_failures),
	NUM(PEER_POOL_ERRORS, POOL_ERRORS, pool_errors),
	NUM(PEER_QPS, QPS, qps),
	NUM(PEER_UPS, UPS, ups),
	NUM(PEER_DOWNS, DOWNS, downs),
	NUM(PEER_LAST_CHANGE_NS, LAST_CHANGE, last_change_ns),
	NUM(PEER_SILENCE_NS, SILENCE, silence_ns),
	NUM(PEER_FLAPS, FLAPS, flaps),
	NUM(PEER_DOWNS_STALLED, DOWNS_STALLED, downs_stalled),
	NUM(PEER_DOWNS_UNEXPLAINED, DOWNS_UNEXPLAINED, downs_unexplained),
	NUM(PEER_REMOTE_STALL_MAX_NS, REMOTE_STALL_MAX, remote_stall_max_ns),
	NUM(PEER_DOWN_CAUSE, DOWN_CAUSE, down_cause),
	NUM(PEER_DOWN_NS, DOWN_NS, down_ns),
	NUM(PEER_DOWN_STALL_NS, DOWN_STALL, down_stall_ns),
	NUM(PEER_FLAP, FLAP, flap),
	NUM(EVENT_TIME_NS, TIME, time_ns),
	NUM(EVENT_SEQ, SEQ, seq),
};

/* the policy checks the size too: this keeps a slip in the table safe */
static int get_num(const struct nlattr *nla, const struct num_attr *na,
		   struct txa_peer *p)
{
	char *dst = (char *)p + na->off;
	struct nlattr *a = (struct nlattr *)nla;
	uint16_t v16;
	uint32_t v32;
	uint64_t v64;

	if (nla_len(nla) < na->size)
		return -EINVAL;
	switch (na->size) {
	case 1:
		*(uint8_t *)dst = nla_get_u8(a);
		break;
	case 2:
		v16 = nla_get_u16(a);
		memcpy(dst, &v16, sizeof(v16));
		break;
	case 4:
		v32 = nla_get_u32(a);
		memcpy(dst, &v32, sizeof(v32));
		break;
	default:
		v64 = nla_get_u64(a);
		memcpy(dst, &v64, sizeof(v64));
		break;
	}
	p->have |= 1ULL << na->field;
	return 0;
}

/* a 4-byte IPv4 address: exactly 4 bytes, whatever libnl's policy did */
static int get_addr(const struct nlattr *nla, uint8_t *addr)
{
	if (nla_len(nla) != 4)
		return -EINVAL;
	memcpy(addr, nla_data(nla), 4);
	return 0;
}

static void copy_string(char *dst, size_t len, const struct nlattr *nla)
{
	snprintf(dst, len, "%s", nla_get_string((struct nlattr *)nla));
}

int txa_peer_parse(const struct nlmsghdr *nlh, struct txa_peer *p)
{
	struct nlattr *tb[TXRDMA_A_MAX + 1];
	struct genlmsghdr *ghdr;
	unsigned int i;

	memset(p, 0, sizeof(*p));
	if (!genlmsg_valid_hdr((struct nlmsghdr *)nlh, 0))
		return -EINVAL;
	ghdr = nlmsg_data(nlh);
	p->cmd = ghdr->cmd;

	if (genlmsg_parse((struct nlmsghdr *)nlh, 0, tb, TXRDMA_A_MAX,
			  peer_policy) < 0)
		return -EINVAL;

	if (tb[TXRDMA_A_PEER_NAME]) {
		copy_string(p->name, sizeof(p->name), tb[TXRDMA_A_PEER_NAME]);
		p->have |= 1ULL << TXA_PF_NAME;
	}
	if (tb[TXRDMA_A_PEER_DEV]) {
		copy_string(p->dev, sizeof(p->dev), tb[TXRDMA_A_PEER_DEV]);
		p->have |= 1ULL << TXA_PF_DEV;
	}
	if (tb[TXRDMA_A_PEER_PATH_OF]) {
		copy_string(p->path_of, sizeof(p->path_of),
			    tb[TXRDMA_A_PEER_PATH_OF]);
		p->have |= 1ULL << TXA_PF_PATH_OF;
	}
	if (tb[TXRDMA_A_PEER_ADDR]) {
		if (get_addr(tb[TXRDMA_A_PEER_ADDR], p->addr))
			return -EINVAL;
		p->have |= 1ULL << TXA_PF_ADDR;
	}
	if (tb[TXRDMA_A_PEER_LOCAL_ADDR]) {
		if (get_addr(tb[TXRDMA_A_PEER_LOCAL_ADDR], p->local_addr))
			return -EINVAL;
		p->have |= 1ULL << TXA_PF_LOCAL_ADDR;
	}
	for (i = 0; i < ARRAY_SIZE(num_attrs); i++)
		if (tb[num_attrs[i].attr] &&
		    get_num(tb[num_attrs[i].attr], &num_attrs[i], p))
			return -EINVAL;
	if (tb[TXRDMA_A_PEER_REASON]) {
		p->reason = strdup(nla_get_string(tb[TXRDMA_A_PEER_REASON]));
		if (!p->reason)
			return -ENOMEM;
		p->have |= 1ULL << TXA_PF_REASON;
	}
	return 0;
}

void txa_peer_free(struct txa_peer *p)
{
	free(p->reason);
	p->reason = NULL;
}

/* ---- printing ------------------------------------------------------- */

static bool has_any(const struct txa_peer *p, enum txa_peer_field from,
		    enum txa_peer_field to)
{
	unsigned int f;

	for (f = from; f <= to; f++)
		if (txa_peer_has(p, f))
			return true;
	return false;
}

void txa_peer_print_diag_plain(FILE *out, const struct txa_peer *p)
{
	bool diag = txa_peer_has(p, TXA_PF_DIAG) &&
		    p->diag != TXRDMA_PEER_DIAG_NONE;
	bool reason = txa_peer_has(p, TXA_PF_REASON) && p->reason[0];
	char buf[TXA_PEER_NAME_STRLEN];

	if (!diag && !reason)
		return;
	fputs(" (", out);
	if (diag)
		fputs(txa_peer_diag_str(p->diag, buf, sizeof(buf)), out);
	if (diag && reason)
		fputs(": ", out);
	if (reason)
		fputs(p->reason, out);
	fputc(')', out);
}

/* before an item of an indented line: the indent first, then a space */
static void sep(FILE *out, bool *first)
{
	fputs(*first ? "    " : " ", out);
	*first = false;
}

static void end_line(FILE *out, bool first)
{
	if (!first)
		fputc('\n', out);
}

/* " label 42" if the kernel sent field @f */
static void item(FILE *out, const struct txa_peer *p, enum txa_peer_field f,
		 const char *label, uint64_t v)
{
	if (txa_peer_has(p, f))
		fprintf(out, " %s %llu", label, (unsigned long long)v);
}

/*
 * "    bfd tx 20000us ... probes tx 120 rx 118 dropped 0 skipped 0
 * stalls 0 auth fails 0 dropped 0"
 */
static void print_bfd_plain(FILE *out, const struct txa_peer *p)
{
	bool first = true;

	if (!has_any(p, TXA_PF_TX_US, TXA_PF_RX_AUTH_DROPPED))
		return;
	sep(out, &first);
	fputs("bfd", out);
	if (txa_peer_has(p, TXA_PF_TX_US))
		fprintf(out, " tx %uus", p->tx_us);
	if (txa_peer_has(p, TXA_PF_RX_US))
		fprintf(out, " rx %uus", p->rx_us);
	item(out, p, TXA_PF_MULT, "mult", p->mult);
	if (txa_peer_has(p, TXA_PF_NEG_TX_US))
		fprintf(out, " negotiated tx %uus", p->neg_tx_us);
	if (txa_peer_has(p, TXA_PF_DETECT_US))
		fprintf(out, " detect %uus", p->detect_us);
	if (has_any(p, TXA_PF_LOCAL_DISC, TXA_PF_REMOTE_DISC)) {
		fputs(" disc ", out);
		if (txa_peer_has(p, TXA_PF_LOCAL_DISC))
			fprintf(out, "0x%x", p->local_disc);
		else
			fputc('?', out);
		if (txa_peer_has(p, TXA_PF_REMOTE_DISC))
			fprintf(out, "/0x%x", p->remote_disc);
		else
			fputs("/?", out);
	}
	if (has_any(p, TXA_PF_TX_PKTS, TXA_PF_TX_SKIPPED))
		fputs(" probes", out);
	item(out, p, TXA_PF_TX_PKTS, "tx", p->tx_pkts);
	item(out, p, TXA_PF_RX_PKTS, "rx", p->rx_pkts);
	item(out, p, TXA_PF_RX_DROPPED, "dropped", p->rx_dropped);
	item(out, p, TXA_PF_TX_SKIPPED, "skipped", p->tx_skipped);
	/* this host's own stalls: why a session may flap on a loaded host */
	item(out, p, TXA_PF_STALLS, "stalls", p->stalls);
	if (txa_peer_has(p, TXA_PF_STALL_MAX) && p->stalls)
		fprintf(out, " (max %.1fms)", p->stall_max_ns / 1e6);
	/* connections and control messages that failed the key */
	if (has_any(p, TXA_PF_AUTH_FAILS, TXA_PF_RX_AUTH_DROPPED))
		fputs(" auth", out);
	item(out, p, TXA_PF_AUTH_FAILS, "fails", p->auth_fails);
	item(out, p, TXA_PF_RX_AUTH_DROPPED, "dropped", p->rx_auth_dropped);
	end_line(out, first);
}

/* "    rtt min 0.120ms ... (118 samples) ups 1 downs 0 last change ..." */
static void print_rtt_plain(FILE *out, const struct txa_peer *p)
{
	char buf[MS_STRLEN], tbuf[TIME_STRLEN];
	bool first = true;

	if (has_any(p, TXA_PF_RTT_MIN, TXA_PF_RTT_SAMPLES)) {
		sep(out, &first);
		fputs("rtt", out);
	}
	if (txa_peer_has(p, TXA_PF_RTT_MIN))
		fprintf(out, " min %s", ms_str(p->rtt_min_ns, 3, buf,
					       sizeof(buf)));
	if (txa_peer_has(p, TXA_PF_RTT_AVG))
		fprintf(out, " avg %s", ms_str(p->rtt_avg_ns, 3, buf,
					       sizeof(buf)));
	if (txa_peer_has(p, TXA_PF_RTT_MAX))
		fprintf(out, " max %s", ms_str(p->rtt_max_ns, 3, buf,
					       sizeof(buf)));
	if (txa_peer_has(p, TXA_PF_RTT_SAMPLES))
		fprintf(out, " (%llu sample%s)",
			(unsigned long long)p->rtt_samples,
			p->rtt_samples == 1 ? "" : "s");
	if (txa_peer_has(p, TXA_PF_UPS)) {
		sep(out, &first);
		fprintf(out, "ups %llu", (unsigned long long)p->ups);
	}
	if (txa_peer_has(p, TXA_PF_DOWNS)) {
		sep(out, &first);
		fprintf(out, "downs %llu", (unsigned long long)p->downs);
	}
	/* what explained them, known at each return to Up */
	if (txa_peer_has(p, TXA_PF_FLAPS)) {
		sep(out, &first);
		fprintf(out, "flaps %llu", (unsigned long long)p->flaps);
	}
	if (txa_peer_has(p, TXA_PF_DOWNS_STALLED)) {
		sep(out, &first);
		fprintf(out, "stalled %llu",
			(unsigned long long)p->downs_stalled);
	}
	if (txa_peer_has(p, TXA_PF_DOWNS_UNEXPLAINED)) {
		sep(out, &first);
		fprintf(out, "unexplained %llu",
			(unsigned long long)p->downs_unexplained);
	}
	if (txa_peer_has(p, TXA_PF_REMOTE_STALL_MAX) &&
	    p->remote_stall_max_ns) {
		sep(out, &first);
		fprintf(out, "(peer stalled max %s)",
			ms_str(p->remote_stall_max_ns, 1, buf, sizeof(buf)));
	}
	if (txa_peer_has(p, TXA_PF_LAST_CHANGE)) {
		sep(out, &first);
		fprintf(out, "last change %s", p->last_change_ns ?
			time_ns_short_str(p->last_change_ns, tbuf,
					  sizeof(tbuf)) : "never");
	}
	end_line(out, first);
}

/* "    pool min 2 max 8 ready 2 in use 0 ... errors 0 qps 3" */
static void print_pool_plain(FILE *out, const struct txa_peer *p)
{
	bool first = true;

	if (has_any(p, TXA_PF_POOL_MIN, TXA_PF_POOL_ERRORS)) {
		sep(out, &first);
		fputs("pool", out);
	}
	item(out, p, TXA_PF_POOL_MIN, "min", p->pool_min);
	item(out, p, TXA_PF_POOL_MAX, "max", p->pool_max);
	item(out, p, TXA_PF_POOL_READY, "ready", p->pool_ready);
	item(out, p, TXA_PF_POOL_IN_USE, "in use", p->pool_in_use);
	item(out, p, TXA_PF_POOL_CONNECTING, "connecting", p->pool_connecting);
	item(out, p, TXA_PF_POOL_CLOSING, "closing", p->pool_closing);
	item(out, p, TXA_PF_POOL_TAKES, "takes", p->pool_takes);
	item(out, p, TXA_PF_POOL_MISSES, "misses", p->pool_misses);
	item(out, p, TXA_PF_POOL_FAILURES, "failures", p->pool_failures);
	item(out, p, TXA_PF_POOL_ERRORS, "errors", p->pool_errors);
	if (txa_peer_has(p, TXA_PF_QPS)) {
		sep(out, &first);
		fprintf(out, "qps %u", p->qps);
	}
	end_line(out, first);
}

void txa_peer_print_plain(FILE *out, const struct txa_peer *p)
{
	char buf[TXA_PEER_NAME_STRLEN], abuf[IPV4_STRLEN];

	fprintf(out, "%s:", txa_peer_has(p, TXA_PF_NAME) ? p->name : "?");
	if (txa_peer_has(p, TXA_PF_ID))
		fprintf(out, " id %u", p->id);
	if (txa_peer_has(p, TXA_PF_ADDR))
		fprintf(out, " addr %s", ipv4_str(p->addr, abuf, sizeof(abuf)));
	if (txa_peer_has(p, TXA_PF_PORT))
		fprintf(out, " port %u", p->port);
	if (txa_peer_has(p, TXA_PF_DEV))
		fprintf(out, " dev %s", p->dev);
	if (txa_peer_has(p, TXA_PF_PATH_OF))
		fprintf(out, " path-of %s", p->path_of);
	if (txa_peer_has(p, TXA_PF_LOCAL_ADDR))
		fprintf(out, " local %s",
			ipv4_str(p->local_addr, abuf, sizeof(abuf)));
	if (txa_peer_has(p, TXA_PF_ROLE))
		fprintf(out, " role %s",
			txa_peer_role_str(p->role, buf, sizeof(buf)));
	if (txa_peer_has(p, TXA_PF_STATE))
		fprintf(out, " state %s",
			txa_peer_state_str(p->state, buf, sizeof(buf)));
	txa_peer_print_diag_plain(out, p);
	if (txa_peer_has(p, TXA_PF_REMOTE_STATE))
		fprintf(out, " remote %s",
			txa_peer_state_str(p->remote_state, buf, sizeof(buf)));
	if (txa_peer_has(p, TXA_PF_ADMIN_UP))
		fprintf(out, " admin %s", p->admin_up ? "up" : "down");
	fputc('\n', out);

	print_bfd_plain(out, p);
	print_rtt_plain(out, p);
	print_pool_plain(out, p);
}

static void kv_u64(struct json_writer *w, const struct txa_peer *p,
		   enum txa_peer_field f, const char *key, uint64_t v)
{
	if (txa_peer_has(p, f))
		json_kv_u64(w, key, v);
}

void txa_peer_print_json(struct json_writer *w, const struct txa_peer *p)
{
	char buf[TXA_PEER_NAME_STRLEN], abuf[IPV4_STRLEN];

	json_obj_start(w);
	if (txa_peer_has(p, TXA_PF_NAME))
		json_kv_str(w, "name", p->name);
	kv_u64(w, p, TXA_PF_ID, "id", p->id);
	if (txa_peer_has(p, TXA_PF_ADDR))
		json_kv_str(w, "addr", ipv4_str(p->addr, abuf, sizeof(abuf)));
	kv_u64(w, p, TXA_PF_PORT, "port", p->port);
	if (txa_peer_has(p, TXA_PF_DEV))
		json_kv_str(w, "dev", p->dev);
	if (txa_peer_has(p, TXA_PF_PATH_OF))
		json_kv_str(w, "path_of", p->path_of);
	if (txa_peer_has(p, TXA_PF_LOCAL_ADDR))
		json_kv_str(w, "local_addr",
			    ipv4_str(p->local_addr, abuf, sizeof(abuf)));
	if (txa_peer_has(p, TXA_PF_ROLE))
		json_kv_str(w, "role",
			    txa_peer_role_str(p->role, buf, sizeof(buf)));
	if (txa_peer_has(p, TXA_PF_STATE))
		json_kv_str(w, "state",
			    txa_peer_state_str(p->state, buf, sizeof(buf)));
	if (txa_peer_has(p, TXA_PF_REMOTE_STATE))
		json_kv_str(w, "remote_state",
			    txa_peer_state_str(p->remote_state, buf,
					       sizeof(buf)));
	if (txa_peer_has(p, TXA_PF_DIAG))
		json_kv_str(w, "diag",
			    txa_peer_diag_str(p->diag, buf, sizeof(buf)));
	if (txa_peer_has(p, TXA_PF_REASON))
		json_kv_str(w, "reason", p->reason);
	if (txa_peer_has(p, TXA_PF_ADMIN_UP))
		json_kv_str(w, "admin", p->admin_up ? "up" : "down");

	if (has_any(p, TXA_PF_TX_US, TXA_PF_RX_AUTH_DROPPED)) {
		json_key(w, "bfd");
		json_obj_start(w);
		kv_u64(w, p, TXA_PF_TX_US, "tx_us", p->tx_us);
		kv_u64(w, p, TXA_PF_RX_US, "rx_us", p->rx_us);
		kv_u64(w, p, TXA_PF_MULT, "mult", p->mult);
		kv_u64(w, p, TXA_PF_NEG_TX_US, "neg_tx_us", p->neg_tx_us);
		kv_u64(w, p, TXA_PF_DETECT_US, "detect_us", p->detect_us);
		kv_u64(w, p, TXA_PF_LOCAL_DISC, "local_disc", p->local_disc);
		kv_u64(w, p, TXA_PF_REMOTE_DISC, "remote_disc",
		       p->remote_disc);
		kv_u64(w, p, TXA_PF_TX_PKTS, "tx_pkts", p->tx_pkts);
		kv_u64(w, p, TXA_PF_RX_PKTS, "rx_pkts", p->rx_pkts);
		kv_u64(w, p, TXA_PF_RX_DROPPED, "rx_dropped", p->rx_dropped);
		kv_u64(w, p, TXA_PF_TX_SKIPPED, "tx_skipped", p->tx_skipped);
		kv_u64(w, p, TXA_PF_STALLS, "stalls", p->stalls);
		kv_u64(w, p, TXA_PF_STALL_MAX, "stall_max_ns", p->stall_max_ns);
		kv_u64(w, p, TXA_PF_AUTH_FAILS, "auth_fails", p->auth_fails);
		kv_u64(w, p, TXA_PF_RX_AUTH_DROPPED, "rx_auth_dropped",
		       p->rx_auth_dropped);
		json_obj_end(w);
	}
	if (has_any(p, TXA_PF_RTT_MIN, TXA_PF_RTT_SAMPLES)) {
		json_key(w, "rtt");
		json_obj_start(w);
		kv_u64(w, p, TXA_PF_RTT_MIN, "min_ns", p->rtt_min_ns);
		kv_u64(w, p, TXA_PF_RTT_AVG, "avg_ns", p->rtt_avg_ns);
		kv_u64(w, p, TXA_PF_RTT_MAX, "max_ns", p->rtt_max_ns);
		kv_u64(w, p, TXA_PF_RTT_SAMPLES, "samples", p->rtt_samples);
		json_obj_end(w);
	}
	if (has_any(p, TXA_PF_POOL_MIN, TXA_PF_POOL_ERRORS)) {
		json_key(w, "pool");
		json_obj_start(w);
		kv_u64(w, p, TXA_PF_POOL_MIN, "min", p->pool_min);
		kv_u64(w, p, TXA_PF_POOL_MAX, "max", p->pool_max);
		kv_u64(w, p, TXA_PF_POOL_READY, "ready", p->pool_ready);
		kv_u64(w, p, TXA_PF_POOL_IN_USE, "in_use", p->pool_in_use);
		kv_u64(w, p, TXA_PF_POOL_CONNECTING, "connecting",
		       p->pool_connecting);
		kv_u64(w, p, TXA_PF_POOL_CLOSING, "closing", p->pool_closing);
		kv_u64(w, p, TXA_PF_POOL_TAKES, "takes", p->pool_takes);
		kv_u64(w, p, TXA_PF_POOL_MISSES, "misses", p->pool_misses);
		kv_u64(w, p, TXA_PF_POOL_FAILURES, "failures",
		       p->pool_failures);
		kv_u64(w, p, TXA_PF_POOL_ERRORS, "errors", p->pool_errors);
		json_obj_end(w);
	}
	kv_u64(w, p, TXA_PF_QPS, "qps", p->qps);
	kv_u64(w, p, TXA_PF_UPS, "ups", p->ups);
	kv_u64(w, p, TXA_PF_DOWNS, "downs", p->downs);
	kv_u64(w, p, TXA_PF_FLAPS, "flaps", p->flaps);
	kv_u64(w, p, TXA_PF_DOWNS_STALLED, "downs_stalled", p->downs_stalled);
	kv_u64(w, p, TXA_PF_DOWNS_UNEXPLAINED, "downs_unexplained",
	       p->downs_unexplained);
	kv_u64(w, p, TXA_PF_REMOTE_STALL_MAX, "remote_stall_max_ns",
	       p->remote_stall_max_ns);
	kv_u64(w, p, TXA_PF_LAST_CHANGE, "last_change_ns", p->last_change_ns);
	json_obj_end(w);
}

/* ---- errors --------------------------------------------------------- */

static void nomem(struct txa_nl *nl)
{
	fprintf(nl->err, TXA_PROG ": %s: %s\n", nl->what, strerror(ENOMEM));
}

static bool given(const struct txa_peer_args *p, enum txa_peer_arg arg)
{
	return p->given & (1U << arg);
}

/* the failure of the last request, with hints for message-less errors */
static void report(struct txa_nl *nl, const struct txa_args *a)
{
	const struct txa_peer_args *p = &a->peer;
	char hint[TXRDMA_PEER_NAME_MAX + TXRDMA_DEV_NAME_MAX + 64];
	const char *name = p->name ? p->name : "";
	char abuf[IPV4_STRLEN];

	hint[0] = '\0';
	switch (nl->ext.error) {
	case EPERM:
		txa_nl_perror(nl, "changing txrdma needs CAP_NET_ADMIN");
		return;
	case ENOENT:
	case ENODEV:
		if (a->cmd == TXA_CMD_PEER_ADD) {
			/* a peer to be a path of is missing: ENOENT */
			if (nl->ext.error == ENOENT &&
			    given(p, TXA_PARG_PATH_OF))
				snprintf(hint, sizeof(hint),
					 "no peer \"%s\" to be a path of",
					 p->path_of);
			else if (given(p, TXA_PARG_DEV))
				snprintf(hint, sizeof(hint),
					 "no RDMA device \"%s\"", p->dev);
		} else if (nl->ext.error == ENOENT) {
			snprintf(hint, sizeof(hint), "no peer \"%s\"", name);
		}
		break;
	case EEXIST:
		snprintf(hint, sizeof(hint),
			 "peer \"%s\", or a peer of address %s, exists", name,
			 ipv4_str(p->addr, abuf, sizeof(abuf)));
		break;
	case ENOSPC:
		snprintf(hint, sizeof(hint), "too many peers");
		break;
	}
	txa_nl_perror(nl, hint[0] ? hint : NULL);
}

/* ---- peer show ------------------------------------------------------ */

static int show_parse(const struct nlmsghdr *nlh, void *obj)
{
	return txa_peer_parse(nlh, obj);
}

static void show_free(void *obj)
{
	txa_peer_free(obj);
}

static void show_plain(FILE *out, const void *obj)
{
	txa_peer_print_plain(out, obj);
}

static void show_json(struct json_writer *w, const void *obj)
{
	txa_peer_print_json(w, obj);
}

static const struct txa_show_ops peer_show_ops = {
	.cmd		= TXRDMA_CMD_PEER_GET,
	.size		= sizeof(struct txa_peer),
	.cmd_off	= offsetof(struct txa_peer, cmd),
	.parse		= show_parse,
	.free		= show_free,
	.print_plain	= show_plain,
	.print_json	= show_json,
};

int txa_peer_show(struct txa_nl *nl, const struct txa_args *a, FILE *out)
{
	const char *name = a->peer.name;
	struct nl_msg *msg;

	msg = txa_nl_msg(nl, TXRDMA_CMD_PEER_GET, name ? 0 : NLM_F_DUMP);
	if (!msg)
		return TXA_EXIT_FAIL;
	if (name && nla_put_string(msg, TXRDMA_A_PEER_NAME, name) < 0) {
		nlmsg_free(msg);
		nomem(nl);
		return TXA_EXIT_FAIL;
	}
	switch (txa_show(nl, msg, &peer_show_ops, a->json, a->pretty,
			 out)) {
	case TXA_SHOW_OK:
		return TXA_EXIT_OK;
	case TXA_SHOW_REQUEST_FAILED:
		report(nl, a);
		break;
	case TXA_SHOW_MALFORMED:
		break;
	}
	return TXA_EXIT_FAIL;
}

/* ---- peer add / set / del ------------------------------------------- */

/* NAME and whatever else @p was given */
static int put_peer(struct nl_msg *msg, const struct txa_peer_args *p)
{
	if (nla_put_string(msg, TXRDMA_A_PEER_NAME, p->name) < 0)
		return -1;
	if (given(p, TXA_PARG_ADDR) &&
	    nla_put(msg, TXRDMA_A_PEER_ADDR, sizeof(p->addr), p->addr) < 0)
		return -1;
	if (given(p, TXA_PARG_DEV) &&
	    nla_put_string(msg, TXRDMA_A_PEER_DEV, p->dev) < 0)
		return -1;
	if (given(p, TXA_PARG_PATH_OF) &&
	    nla_put_string(msg, TXRDMA_A_PEER_PATH_OF, p->path_of) < 0)
		return -1;
	if (given(p, TXA_PARG_PORT) &&
	    nla_put_u16(msg, TXRDMA_A_PEER_PORT, p->port) < 0)
		return -1;
	if (given(p, TXA_PARG_POOL_MIN) &&
	    nla_put_u32(msg, TXRDMA_A_PEER_POOL_MIN, p->pool_min) < 0)
		return -1;
	if (given(p, TXA_PARG_POOL_MAX) &&
	    nla_put_u32(msg, TXRDMA_A_PEER_POOL_MAX, p->pool_max) < 0)
		return -1;
	if (given(p, TXA_PARG_TX) &&
	    nla_put_u32(msg, TXRDMA_A_PEER_TX_US, p->tx_us) < 0)
		return -1;
	if (given(p, TXA_PARG_RX) &&
	    nla_put_u32(msg, TXRDMA_A_PEER_RX_US, p->rx_us) < 0)
		return -1;
	if (given(p, TXA_PARG_MULT) &&
	    nla_put_u8(msg, TXRDMA_A_PEER_MULT, p->mult) < 0)
		return -1;
	if (given(p, TXA_PARG_ADMIN_UP) &&
	    nla_put_u8(msg, TXRDMA_A_PEER_ADMIN_UP, p->admin_up ? 1 : 0) < 0)
		return -1;
	return 0;
}

/*
 * Drop our reference to @msg, wiping all of its buffer first: it may
 * hold a key.  libnl never moves a message (nlmsg_reserve() fails
 * rather than grow it), so this is the only copy the tool made.
 */
static void free_wiped(struct nl_msg *msg)
{
	explicit_bzero(nlmsg_hdr(msg), nlmsg_get_max_size(msg));
	nlmsg_free(msg);
}

/* @key: the peer key to send (PEER_NEW), or NULL */
static int change(struct txa_nl *nl, const struct txa_args *a, uint8_t cmd,
		  const struct txa_key *key)
{
	struct nl_msg *msg;
	int ret;

	msg = txa_nl_msg(nl, cmd, 0);
	if (!msg)
		return TXA_EXIT_FAIL;
	if (put_peer(msg, &a->peer) ||
	    (key && nla_put(msg, TXRDMA_A_PEER_KEY, (int)key->len,
			    key->bytes) < 0)) {
		free_wiped(msg);
		nomem(nl);
		return TXA_EXIT_FAIL;
	}
	/* txa_nl_request() frees the request: keep it to wipe it after */
	nlmsg_get(msg);
	/* a warning the module attaches to the ACK is printed by nl.c */
	ret = txa_nl_request(nl, msg, NULL, NULL);
	free_wiped(msg);
	if (!ret)
		return TXA_EXIT_OK;
	report(nl, a);
	return TXA_EXIT_FAIL;
}

/*
 * The key of peer add into @key: TXA_EXIT_OK, or TXA_EXIT_USAGE with the
 * reason on @err (the parser refuses a missing key first; this keeps
 * other callers honest).
 */
static int load_key(const struct txa_args *a, struct txa_key *key,
		    FILE *err, const char *what)
{
	char why[TXA_KEY_WHY_MAX];

	if (!given(&a->peer, TXA_PARG_KEY) || !a->peer.key_file) {
		txa_key_wipe(key);
		fprintf(err, TXA_PROG ": %s\n", TXA_PEER_NEEDS_KEY);
		return TXA_EXIT_USAGE;
	}
	if (txa_key_load(a->peer.key_file, key, why, sizeof(why))) {
		fprintf(err, TXA_PROG ": %s: %s\n", what, why);
		return TXA_EXIT_USAGE;
	}
	return TXA_EXIT_OK;
}

int txa_peer_add(struct txa_nl *nl, const struct txa_args *a)
{
	struct txa_key key;
	int ret;

	ret = load_key(a, &key, nl->err, nl->what);
	if (!ret)
		ret = change(nl, a, TXRDMA_CMD_PEER_NEW, &key);
	txa_key_wipe(&key);
	return ret;
}

int txa_peer_set(struct txa_nl *nl, const struct txa_args *a)
{
	/* a key cannot change: the parser refused "key" already */
	return change(nl, a, TXRDMA_CMD_PEER_SET, NULL);
}

int txa_peer_del(struct txa_nl *nl, const struct txa_args *a)
{
	struct txa_args del = *a;

	/* only the name: nothing else belongs in a delete */
	del.peer.given = 0;
	return change(nl, &del, TXRDMA_CMD_PEER_DEL, NULL);
}

int txa_cmd_peer(const struct txa_args *a)
{
	struct txa_key key = { 0 };
	const char *what;
	struct txa_nl nl;
	int ret;

	switch (a->cmd) {
	case TXA_CMD_PEER_SHOW:
		what = "peer show";
		break;
	case TXA_CMD_PEER_ADD:
		what = "peer add";
		break;
	case TXA_CMD_PEER_SET:
		what = "peer set";
		break;
	case TXA_CMD_PEER_DEL:
		what = "peer del";
		break;
	default:
		return TXA_EXIT_USAGE;
	}
	/* a bad key file is reported whether or not the module is loaded */
	if (a->cmd == TXA_CMD_PEER_ADD) {
		ret = load_key(a, &key, stderr, what);
		if (ret)
			return ret;
	}
	if (txa_nl_open(&nl, what)) {
		txa_key_wipe(&key);
		return TXA_EXIT_FAIL;
	}
	switch (a->cmd) {
	case TXA_CMD_PEER_SHOW:
		ret = txa_peer_show(&nl, a, stdout);
		break;
	case TXA_CMD_PEER_ADD:
		ret = change(&nl, a, TXRDMA_CMD_PEER_NEW, &key);
		break;
	case TXA_CMD_PEER_SET:
		ret = txa_peer_set(&nl, a);
		break;
	default:
		ret = txa_peer_del(&nl, a);
		break;
	}
	txa_nl_close(&nl);
	txa_key_wipe(&key);
	return ret;
}
