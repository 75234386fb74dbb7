// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ep.c: txrdma-admin ep show, and the endpoint counters that tenant show
 * prints as a tenant's traffic.
 *
 * Endpoints are made by processes through /dev/txrdma, not here: the
 * tool only reports them (TXRDMA_CMD_EP_GET, open to every user).
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/genl/genl.h>

#include "ep.h"
#include "nl.h"
#include "show.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

_Static_assert(TXA_ST_NR <= 32, "struct txa_stats.have holds every counter");

/* ---- counters ------------------------------------------------------- */

static const char *const stat_keys[TXA_ST_NR] = {
	[TXA_ST_TX_MSGS]	= "tx_msgs",
	[TXA_ST_TX_BYTES]	= "tx_bytes",
	[TXA_ST_RX_MSGS]	= "rx_msgs",
	[TXA_ST_RX_BYTES]	= "rx_bytes",
	[TXA_ST_RW_OPS]		= "rw_ops",
	[TXA_ST_RW_BYTES]	= "rw_bytes",
	[TXA_ST_CREDIT_STALLS]	= "credit_stalls",
	[TXA_ST_CREDIT_UPDATES]	= "credit_updates",
	[TXA_ST_SLOT_STALLS]	= "slot_stalls",
	[TXA_ST_THROTTLED]	= "throttled",
	[TXA_ST_ERR_CRC]	= "err_crc",
	[TXA_ST_ERR_SEQ]	= "err_seq",
	[TXA_ST_ERR_PROTO]	= "err_proto",
	[TXA_ST_ERR_QP]		= "err_qp",
	[TXA_ST_ERR_SQE]	= "err_sqe",
	[TXA_ST_TX_COALESCED]	= "tx_coalesced",
	[TXA_ST_RX_BATCHES]	= "rx_batches",
	[TXA_ST_TX_RESENT]	= "tx_resent",
	[TXA_ST_RESUMES]	= "resumes",
	[TXA_ST_PATH_MOVES]	= "path_moves",
};

/*
 * The attribute of each counter.  Not consecutive: TX_COALESCED and
 * RX_BATCHES came after LIMIT_LISTENERS, so no attribute is computed
 * from another; every lookup goes through this table.
 */
static const int stat_attrs[TXA_ST_NR] = {
	[TXA_ST_TX_MSGS]	= TXRDMA_A_STAT_TX_MSGS,
	[TXA_ST_TX_BYTES]	= TXRDMA_A_STAT_TX_BYTES,
	[TXA_ST_RX_MSGS]	= TXRDMA_A_STAT_RX_MSGS,
	[TXA_ST_RX_BYTES]	= TXRDMA_A_STAT_RX_BYTES,
	[TXA_ST_RW_OPS]		= TXRDMA_A_STAT_RW_OPS,
	[TXA_ST_RW_BYTES]	= TXRDMA_A_STAT_RW_BYTES,
	[TXA_ST_CREDIT_STALLS]	= TXRDMA_A_STAT_CREDIT_STALLS,
	[TXA_ST_CREDIT_UPDATES]	= TXRDMA_A_STAT_CREDIT_UPDATES,
	[TXA_ST_SLOT_STALLS]	= TXRDMA_A_STAT_SLOT_STALLS,
	[TXA_ST_THROTTLED]	= TXRDMA_A_STAT_THROTTLED,
	[TXA_ST_ERR_CRC]	= TXRDMA_A_STAT_ERR_CRC,
	[TXA_ST_ERR_SEQ]	= TXRDMA_A_STAT_ERR_SEQ,
	[TXA_ST_ERR_PROTO]	= TXRDMA_A_STAT_ERR_PROTO,
	[TXA_ST_ERR_QP]		= TXRDMA_A_STAT_ERR_QP,
	[TXA_ST_ERR_SQE]	= TXRDMA_A_STAT_ERR_SQE,
	[TXA_ST_TX_COALESCED]	= TXRDMA_A_STAT_TX_COALESCED,
	[TXA_ST_RX_BATCHES]	= TXRDMA_A_STAT_RX_BATCHES,
	[TXA_ST_TX_RESENT]	= TXRDMA_A_STAT_TX_RESENT,
	[TXA_ST_RESUMES]	= TXRDMA_A_STAT_RESUMES,
	[TXA_ST_PATH_MOVES]	= TXRDMA_A_STAT_PATH_MOVES,
};

const char *txa_stat_key(enum txa_stat st)
{
	return (unsigned int)st < TXA_ST_NR ? stat_keys[st] : NULL;
}

int txa_stat_attr(enum txa_stat st)
{
	return (unsigned int)st < TXA_ST_NR ? stat_attrs[st] : 0;
}

int txa_stat_of_attr(int attr)
{
	int i;

	for (i = 0; i < TXA_ST_NR; i++)
		if (stat_attrs[i] == attr)
			return i;
	return -1;
}

/* NLA_U64 at the attribute of each counter: filled from stat_attrs[] */
static struct nla_policy stat_policy[TXRDMA_A_MAX + 1];

static struct nla_policy *stat_policy_get(void)
{
	unsigned int i;

	if (stat_policy[stat_attrs[0]].type != NLA_U64)
		for (i = 0; i < TXA_ST_NR; i++)
			stat_policy[stat_attrs[i]].type = NLA_U64;
	return stat_policy;
}

int txa_stats_parse(const struct nlattr *nest, struct txa_stats *st)
{
	struct nlattr *tb[TXRDMA_A_MAX + 1];
	unsigned int i;

	memset(st, 0, sizeof(*st));
	if (nla_parse_nested(tb, TXRDMA_A_MAX, (struct nlattr *)nest,
			     stat_policy_get()) < 0)
		return -EINVAL;
	for (i = 0; i < TXA_ST_NR; i++) {
		struct nlattr *nla = tb[stat_attrs[i]];

		/* libnl checks a minimum size only: a u64 is 8 bytes */
		if (!nla)
			continue;
		if (nla_len(nla) != sizeof(uint64_t))
			return -EINVAL;
		st->v[i] = nla_get_u64(nla);
		st->have |= 1U << i;
	}
	return 0;
}

static bool st_has(const struct txa_stats *st, enum txa_stat s)
{
	return st->have & (1U << s);
}

/* "N label" or "label N" */
static void st_item(FILE *out, const struct txa_stats *st, enum txa_stat s,
		    const char *before, const char *after)
{
	fprintf(out, " %s%s%llu%s%s", before, *before ? " " : "",
		(unsigned long long)st->v[s], *after ? " " : "", after);
}

/*
 * One group ("tx 1 msgs 64 bytes") of the counters that were sent, two
 * spaces before all but the first group; returns whether none was yet.
 */
static bool st_group(FILE *out, const struct txa_stats *st, bool first,
		     const char *label, const enum txa_stat *items,
		     const char *const *before, const char *const *after,
		     unsigned int n)
{
	unsigned int i;
	bool any = false;

	for (i = 0; i < n; i++)
		any |= st_has(st, items[i]);
	if (!any)
		return first;
	fprintf(out, "%s%s", first ? "" : "  ", label);
	for (i = 0; i < n; i++)
		if (st_has(st, items[i]))
			st_item(out, st, items[i], before[i], after[i]);
	return false;
}

void txa_stats_print_plain(FILE *out, const struct txa_stats *st)
{
	static const enum txa_stat tx[] = { TXA_ST_TX_MSGS, TXA_ST_TX_BYTES,
					    TXA_ST_TX_COALESCED };
	static const enum txa_stat rx[] = { TXA_ST_RX_MSGS, TXA_ST_RX_BYTES,
					    TXA_ST_RX_BATCHES };
	static const enum txa_stat rw[] = { TXA_ST_RW_OPS, TXA_ST_RW_BYTES };
	static const enum txa_stat credit[] = { TXA_ST_CREDIT_STALLS,
						TXA_ST_CREDIT_UPDATES };
	static const enum txa_stat slot[] = { TXA_ST_SLOT_STALLS };
	static const enum txa_stat thr[] = { TXA_ST_THROTTLED };
	static const enum txa_stat err[] = { TXA_ST_ERR_CRC, TXA_ST_ERR_SEQ,
					     TXA_ST_ERR_PROTO, TXA_ST_ERR_QP,
					     TXA_ST_ERR_SQE };
	static const enum txa_stat sess[] = { TXA_ST_RESUMES,
					      TXA_ST_TX_RESENT,
					      TXA_ST_PATH_MOVES };
	static const char *const none[] = { "", "", "", "", "" };
	static const char *const tx_msgs[] = { "msgs", "bytes", "coalesced" };
	static const char *const rx_msgs[] = { "msgs", "bytes", "batches" };
	static const char *const ops[] = { "ops", "bytes" };
	static const char *const stalls_updates[] = { "stalls", "updates" };
	static const char *const stalls[] = { "stalls" };
	static const char *const kinds[] = { "crc", "seq", "proto", "qp",
					     "sqe" };
	static const char *const resumes[] = { "resumes", "resent", "moves" };
	bool first = true;

	first = st_group(out, st, first, "tx", tx, none, tx_msgs, 3);
	first = st_group(out, st, first, "rx", rx, none, rx_msgs, 3);
	first = st_group(out, st, first, "rw", rw, none, ops, 2);
	first = st_group(out, st, first, "credit", credit, stalls_updates,
			 none, 2);
	first = st_group(out, st, first, "slot", slot, stalls, none, 1);
	first = st_group(out, st, first, "throttled", thr, none, none, 1);
	first = st_group(out, st, first, "errors", err, kinds, none, 5);
	st_group(out, st, first, "session", sess, none, resumes, 3);
}

bool txa_ep_ring_small(const struct txa_stats *st)
{
	uint64_t msgs, updates;

	if (!st_has(st, TXA_ST_RX_MSGS) || !st_has(st, TXA_ST_CREDIT_UPDATES))
		return false;
	msgs = st->v[TXA_ST_RX_MSGS];
	updates = st->v[TXA_ST_CREDIT_UPDATES];
	return msgs >= TXA_RING_SMALL_MIN_MSGS && updates * 2 >= msgs;
}

void txa_stats_print_json(struct json_writer *w, const struct txa_stats *st)
{
	unsigned int i;

	json_obj_start(w);
	for (i = 0; i < TXA_ST_NR; i++)
		if (st_has(st, i))
			json_kv_u64(w, stat_keys[i], st->v[i]);
	json_obj_end(w);
}

/* ---- names ---------------------------------------------------------- */

/* names[v], or "unknown(v)" in @buf for a value this tool does not name */
static const char *name_of(const char *const *names, size_t n,
			   unsigned int v, char *buf, size_t len)
{
	if (v < n && names[v])
		return names[v];
	snprintf(buf, len, "unknown(%u)", v);
	return buf;
}

static const char *const state_names[] = {
	[TXRDMA_EP_STATE_PLAIN]		= "plain",
	[TXRDMA_EP_STATE_CONNECTING]	= "connecting",
	[TXRDMA_EP_STATE_CONNECTED]	= "connected",
	[TXRDMA_EP_STATE_REJECTED]	= "rejected",
	[TXRDMA_EP_STATE_CLOSED]	= "closed",
};

const char *txa_ep_state_str(unsigned int state, char *buf, size_t len)
{
	return name_of(state_names, ARRAY_SIZE(state_names), state, buf, len);
}

static const char *const session_names[] = {
	[TXRDMA_EP_SESSION_UP]		= "up",
	[TXRDMA_EP_SESSION_DRAINING]	= "draining",
	[TXRDMA_EP_SESSION_WAITING]	= "waiting",
	[TXRDMA_EP_SESSION_RESUMING]	= "resuming",
	[TXRDMA_EP_SESSION_FAILED]	= "failed",
};

const char *txa_ep_session_str(unsigned int phase, char *buf, size_t len)
{
	return name_of(session_names, ARRAY_SIZE(session_names), phase, buf,
		       len);
}

#define E(name)	{ name, #name }
/* what the module puts in an endpoint's error */
static const struct {
	int code;
	const char *name;
} errno_names[] = {
	E(EPERM), E(ENOENT), E(EIO), E(EAGAIN), E(ENOMEM), E(EACCES),
	E(EFAULT), E(EBUSY), E(EINVAL), E(ENOSPC), E(EPROTO), E(EMSGSIZE),
	E(EOPNOTSUPP), E(ENETUNREACH), E(ECONNABORTED), E(ECONNRESET),
	E(ENOTCONN), E(ETIMEDOUT), E(ECONNREFUSED), E(EHOSTUNREACH),
	E(ECANCELED),
};
#undef E

const char *txa_errno_str(int32_t error, char *buf, size_t len)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(errno_names); i++)
		if (error == -errno_names[i].code)
			return errno_names[i].name;
	snprintf(buf, len, "%d", error);
	return buf;
}

/* ---- parsing -------------------------------------------------------- */

static struct nla_policy ep_policy[TXRDMA_A_MAX + 1] = {
	[TXRDMA_A_EP_ID]	= { .type = NLA_U32 },
	[TXRDMA_A_EP_TENANT]	= { .type = NLA_STRING,
				    .maxlen = TXRDMA_TENANT_NAME_MAX },
	[TXRDMA_A_EP_PEER]	= { .type = NLA_STRING,
				    .maxlen = TXRDMA_PEER_NAME_MAX },
	[TXRDMA_A_EP_STATE]	= { .type = NLA_U8 },
	[TXRDMA_A_EP_SERVICE]	= { .type = NLA_U32 },
	[TXRDMA_A_EP_PEER_EP]	= { .type = NLA_U32 },
	[TXRDMA_A_EP_QPN]	= { .type = NLA_U32 },
	[TXRDMA_A_EP_ERROR]	= { .type = NLA_U32 },	/* s32 */
	[TXRDMA_A_EP_STATS]	= { .type = NLA_NESTED },
	[TXRDMA_A_EP_SESSION]	= { .type = NLA_U8 },
	[TXRDMA_A_EP_GRACE_MS]	= { .type = NLA_U32 },
	[TXRDMA_A_EP_PATH]	= { .type = NLA_STRING,
				    .maxlen = TXRDMA_PEER_NAME_MAX },
};

int txa_ep_parse(const struct nlmsghdr *nlh, struct txa_ep *ep)
{
	struct nlattr *tb[TXRDMA_A_MAX + 1];
	struct genlmsghdr *ghdr;

	memset(ep, 0, sizeof(*ep));
	if (!genlmsg_valid_hdr((struct nlmsghdr *)nlh, 0))
		return -EINVAL;
	ghdr = nlmsg_data(nlh);
	ep->cmd = ghdr->cmd;

	if (genlmsg_parse((struct nlmsghdr *)nlh, 0, tb, TXRDMA_A_MAX,
			  ep_policy) < 0)
		return -EINVAL;

	if (tb[TXRDMA_A_EP_ID]) {
		ep->id = nla_get_u32(tb[TXRDMA_A_EP_ID]);
		ep->have |= TXA_EP_HAVE_ID;
	}
	if (tb[TXRDMA_A_EP_TENANT]) {
		snprintf(ep->tenant, sizeof(ep->tenant), "%s",
			 nla_get_string(tb[TXRDMA_A_EP_TENANT]));
		ep->have |= TXA_EP_HAVE_TENANT;
	}
	if (tb[TXRDMA_A_EP_PEER]) {
		snprintf(ep->peer, sizeof(ep->peer), "%s",
			 nla_get_string(tb[TXRDMA_A_EP_PEER]));
		ep->have |= TXA_EP_HAVE_PEER;
	}
	if (tb[TXRDMA_A_EP_STATE]) {
		ep->state = nla_get_u8(tb[TXRDMA_A_EP_STATE]);
		ep->have |= TXA_EP_HAVE_STATE;
	}
	if (tb[TXRDMA_A_EP_SERVICE]) {
		ep->service = nla_get_u32(tb[TXRDMA_A_EP_SERVICE]);
		ep->have |= TXA_EP_HAVE_SERVICE;
	}
	if (tb[TXRDMA_A_EP_PEER_EP]) {
		ep->peer_ep = nla_get_u32(tb[TXRDMA_A_EP_PEER_EP]);
		ep->have |= TXA_EP_HAVE_PEER_EP;
	}
	if (tb[TXRDMA_A_EP_QPN]) {
		ep->qpn = nla_get_u32(tb[TXRDMA_A_EP_QPN]);
		ep->have |= TXA_EP_HAVE_QPN;
	}
	if (tb[TXRDMA_A_EP_ERROR]) {
		ep->error = (int32_t)nla_get_u32(tb[TXRDMA_A_EP_ERROR]);
		ep->have |= TXA_EP_HAVE_ERROR;
	}
	/* the three come together (a session) or not at all */
	if (tb[TXRDMA_A_EP_SESSION] && tb[TXRDMA_A_EP_GRACE_MS] &&
	    tb[TXRDMA_A_EP_PATH]) {
		ep->session = nla_get_u8(tb[TXRDMA_A_EP_SESSION]);
		ep->grace_ms = nla_get_u32(tb[TXRDMA_A_EP_GRACE_MS]);
		snprintf(ep->path, sizeof(ep->path), "%s",
			 nla_get_string(tb[TXRDMA_A_EP_PATH]));
		ep->have |= TXA_EP_HAVE_SESSION;
	}
	if (tb[TXRDMA_A_EP_STATS]) {
		if (txa_stats_parse(tb[TXRDMA_A_EP_STATS], &ep->stats))
			return -EINVAL;
		ep->have |= TXA_EP_HAVE_STATS;
	}
	return 0;
}

/* ---- printing ------------------------------------------------------- */

void txa_ep_print_plain(FILE *out, const struct txa_ep *ep)
{
	char buf[TXA_EP_STATE_STRLEN], ebuf[TXA_ERRNO_STRLEN];

	fputs("ep", out);
	if (ep->have & TXA_EP_HAVE_ID)
		fprintf(out, " %u", ep->id);
	else
		fputs(" ?", out);
	if (ep->have & TXA_EP_HAVE_TENANT)
		fprintf(out, " tenant %s", ep->tenant);
	if (ep->have & TXA_EP_HAVE_PEER)
		fprintf(out, " peer %s", ep->peer);
	if (ep->have & TXA_EP_HAVE_SERVICE)
		fprintf(out, " service %u", ep->service);
	if (ep->have & TXA_EP_HAVE_PEER_EP)
		fprintf(out, " peer_ep %u", ep->peer_ep);
	if (ep->have & TXA_EP_HAVE_QPN)
		fprintf(out, " qpn %u", ep->qpn);
	if (ep->have & TXA_EP_HAVE_STATE)
		fprintf(out, " state %s",
			txa_ep_state_str(ep->state, buf, sizeof(buf)));
	if ((ep->have & TXA_EP_HAVE_ERROR) && ep->error)
		fprintf(out, " error %s",
			txa_errno_str(ep->error, ebuf, sizeof(ebuf)));
	if (ep->have & TXA_EP_HAVE_SESSION)
		fprintf(out, " session %s grace %ums path %s",
			txa_ep_session_str(ep->session, buf, sizeof(buf)),
			ep->grace_ms, ep->path);
	fputc('\n', out);
	if ((ep->have & TXA_EP_HAVE_STATS) && ep->stats.have) {
		fputs("    ", out);
		txa_stats_print_plain(out, &ep->stats);
		fputc('\n', out);
		if (txa_ep_ring_small(&ep->stats))
			fprintf(out, "    receive ring small for its messages: %llu credit updates for %llu messages (txrdma_rx_units_for() sizes it)\n",
				(unsigned long long)ep->stats.v[TXA_ST_CREDIT_UPDATES],
				(unsigned long long)ep->stats.v[TXA_ST_RX_MSGS]);
	}
}

void txa_ep_print_json(struct json_writer *w, const struct txa_ep *ep)
{
	char buf[TXA_EP_STATE_STRLEN], ebuf[TXA_ERRNO_STRLEN];

	json_obj_start(w);
	if (ep->have & TXA_EP_HAVE_ID)
		json_kv_u64(w, "id", ep->id);
	if (ep->have & TXA_EP_HAVE_TENANT)
		json_kv_str(w, "tenant", ep->tenant);
	if (ep->have & TXA_EP_HAVE_PEER)
		json_kv_str(w, "peer", ep->peer);
	if (ep->have & TXA_EP_HAVE_STATE)
		json_kv_str(w, "state",
			    txa_ep_state_str(ep->state, buf, sizeof(buf)));
	if (ep->have & TXA_EP_HAVE_SERVICE)
		json_kv_u64(w, "service", ep->service);
	if (ep->have & TXA_EP_HAVE_PEER_EP)
		json_kv_u64(w, "peer_ep", ep->peer_ep);
	if (ep->have & TXA_EP_HAVE_QPN)
		json_kv_u64(w, "qpn", ep->qpn);
	if (ep->have & TXA_EP_HAVE_ERROR) {
		json_kv_s64(w, "error", ep->error);
		if (ep->error)
			json_kv_str(w, "error_name",
				    txa_errno_str(ep->error, ebuf,
						  sizeof(ebuf)));
	}
	if (ep->have & TXA_EP_HAVE_SESSION) {
		json_key(w, "session");
		json_obj_start(w);
		json_kv_str(w, "state",
			    txa_ep_session_str(ep->session, buf, sizeof(buf)));
		json_kv_u64(w, "grace_ms", ep->grace_ms);
		json_kv_str(w, "path", ep->path);
		json_obj_end(w);
	}
	if (ep->have & TXA_EP_HAVE_STATS) {
		json_key(w, "stats");
		txa_stats_print_json(w, &ep->stats);
		if (st_has(&ep->stats, TXA_ST_RX_MSGS) &&
		    st_has(&ep->stats, TXA_ST_CREDIT_UPDATES))
			json_kv_bool(w, "ring_small",
				     txa_ep_ring_small(&ep->stats));
	}
	json_obj_end(w);
}

/* ---- ep show -------------------------------------------------------- */

static void nomem(struct txa_nl *nl)
{
	fprintf(nl->err, TXA_PROG ": %s: %s\n", nl->what, strerror(ENOMEM));
}

/* the failure of the last request, with hints for message-less errors */
static void report(struct txa_nl *nl, const struct txa_args *a)
{
	char hint[TXRDMA_TENANT_NAME_MAX + 64];

	hint[0] = '\0';
	if (nl->ext.error == ENOENT && a->ep.has_id) {
		if (a->ep.tenant)
			snprintf(hint, sizeof(hint),
				 "no endpoint %u in tenant \"%s\"", a->ep.id,
				 a->ep.tenant);
		else
			snprintf(hint, sizeof(hint), "no endpoint %u",
				 a->ep.id);
	}
	txa_nl_perror(nl, hint[0] ? hint : NULL);
}

static int show_parse(const struct nlmsghdr *nlh, void *obj)
{
	return txa_ep_parse(nlh, obj);
}

static void show_free(void *obj)
{
	(void)obj;
}

static void show_plain(FILE *out, const void *obj)
{
	txa_ep_print_plain(out, obj);
}

static void show_json(struct json_writer *w, const void *obj)
{
	txa_ep_print_json(w, obj);
}

static const struct txa_show_ops ep_show_ops = {
	.cmd		= TXRDMA_CMD_EP_GET,
	.size		= sizeof(struct txa_ep),
	.cmd_off	= offsetof(struct txa_ep, cmd),
	.parse		= show_parse,
	.free		= show_free,
	.print_plain	= show_plain,
	.print_json	= show_json,
};

int txa_ep_show(struct txa_nl *nl, const struct txa_args *a, FILE *out)
{
	const struct txa_ep_args *e = &a->ep;
	struct nl_msg *msg;

	/* one endpoint is a get; the tenant then only has to match */
	msg = txa_nl_msg(nl, TXRDMA_CMD_EP_GET, e->has_id ? 0 : NLM_F_DUMP);
	if (!msg)
		return TXA_EXIT_FAIL;
	if ((e->has_id && nla_put_u32(msg, TXRDMA_A_EP_ID, e->id) < 0) ||
	    (e->tenant &&
	     nla_put_string(msg, TXRDMA_A_EP_TENANT, e->tenant) < 0)) {
		nlmsg_free(msg);
		nomem(nl);
		return TXA_EXIT_FAIL;
	}
	switch (txa_show(nl, msg, &ep_show_ops, a->json, a->pretty, out)) {
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

int txa_cmd_ep(const struct txa_args *a)
{
	struct txa_nl nl;
	int ret;

	if (a->cmd != TXA_CMD_EP_SHOW)
		return TXA_EXIT_USAGE;
	if (txa_nl_open(&nl, "ep show"))
		return TXA_EXIT_FAIL;
	ret = txa_ep_show(&nl, a, stdout);
	txa_nl_close(&nl);
	return ret;
}
