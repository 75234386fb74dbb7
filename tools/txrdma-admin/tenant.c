// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * tenant.c: txrdma-admin tenant add / set / del / show.
 *
 * The module is the authority on what is valid (names, cgroup paths,
 * rates and bursts of 0, the cgroup of an existing tenant): the tool
 * sends what it was given and prints the module's extack message, so the
 * rules live in one place.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/genl/genl.h>

#include "nl.h"
#include "show.h"
#include "tenant.h"

static struct nla_policy tenant_policy[TXRDMA_A_MAX + 1] = {
	[TXRDMA_A_TENANT_NAME]		= { .type = NLA_STRING,
					    .maxlen = TXRDMA_TENANT_NAME_MAX },
	[TXRDMA_A_TENANT_ID]		= { .type = NLA_U32 },
	[TXRDMA_A_TENANT_CGROUP]	= { .type = NLA_STRING,
					    .maxlen = TXRDMA_CGROUP_PATH_MAX },
	[TXRDMA_A_TENANT_PRIO]		= { .type = NLA_U8 },
	[TXRDMA_A_TENANT_LIMITS]	= { .type = NLA_NESTED },
	[TXRDMA_A_TENANT_USAGE]		= { .type = NLA_NESTED },
	[TXRDMA_A_TENANT_REFUSED]	= { .type = NLA_NESTED },
	[TXRDMA_A_TENANT_TRAFFIC]	= { .type = NLA_NESTED },
};

static struct nla_policy limit_policy[TXRDMA_A_MAX + 1] = {
	[TXRDMA_A_LIMIT_QPS]		= { .type = NLA_U64 },
	[TXRDMA_A_LIMIT_ENDPOINTS]	= { .type = NLA_U64 },
	[TXRDMA_A_LIMIT_PINNED_BYTES]	= { .type = NLA_U64 },
	[TXRDMA_A_LIMIT_BW_RATE]	= { .type = NLA_U64 },
	[TXRDMA_A_LIMIT_BW_BURST]	= { .type = NLA_U64 },
	[TXRDMA_A_LIMIT_OPS_RATE]	= { .type = NLA_U64 },
	[TXRDMA_A_LIMIT_OPS_BURST]	= { .type = NLA_U64 },
	[TXRDMA_A_LIMIT_LISTENERS]	= { .type = NLA_U64 },
};

/*
 * A LIMITS/USAGE/REFUSED nest into @vals, bit (1 << lim) into *@have.
 * By attribute type, whatever the order the module sends them in.
 */
static int parse_limits(struct nlattr *nest, uint64_t *vals,
			unsigned int *have)
{
	struct nlattr *tb[TXRDMA_A_MAX + 1];
	unsigned int i;

	if (nla_parse_nested(tb, TXRDMA_A_MAX, nest, limit_policy) < 0)
		return -EINVAL;
	for (i = 0; i < TXA_LIM_NR; i++) {
		struct nlattr *nla = tb[txa_limit_attr(i)];

		if (nla) {
			vals[i] = nla_get_u64(nla);
			*have |= 1U << i;
		}
	}
	return 0;
}

int txa_tenant_parse(const struct nlmsghdr *nlh, struct txa_tenant *t)
{
	struct nlattr *tb[TXRDMA_A_MAX + 1];
	struct genlmsghdr *ghdr;

	memset(t, 0, sizeof(*t));
	if (!genlmsg_valid_hdr((struct nlmsghdr *)nlh, 0))
		return -EINVAL;
	ghdr = nlmsg_data(nlh);
	t->cmd = ghdr->cmd;

	if (genlmsg_parse((struct nlmsghdr *)nlh, 0, tb, TXRDMA_A_MAX,
			  tenant_policy) < 0)
		return -EINVAL;

	if (tb[TXRDMA_A_TENANT_NAME]) {
		snprintf(t->name, sizeof(t->name), "%s",
			 nla_get_string(tb[TXRDMA_A_TENANT_NAME]));
		t->have |= TXA_TEN_HAVE_NAME;
	}
	if (tb[TXRDMA_A_TENANT_ID]) {
		t->id = nla_get_u32(tb[TXRDMA_A_TENANT_ID]);
		t->have |= TXA_TEN_HAVE_ID;
	}
	if (tb[TXRDMA_A_TENANT_PRIO]) {
		t->prio = nla_get_u8(tb[TXRDMA_A_TENANT_PRIO]);
		t->have |= TXA_TEN_HAVE_PRIO;
	}
	if (tb[TXRDMA_A_TENANT_LIMITS] &&
	    parse_limits(tb[TXRDMA_A_TENANT_LIMITS], t->limits,
			 &t->limits_have))
		return -EINVAL;
	if (tb[TXRDMA_A_TENANT_USAGE] &&
	    parse_limits(tb[TXRDMA_A_TENANT_USAGE], t->usage, &t->usage_have))
		return -EINVAL;
	if (tb[TXRDMA_A_TENANT_REFUSED] &&
	    parse_limits(tb[TXRDMA_A_TENANT_REFUSED], t->refused,
			 &t->refused_have))
		return -EINVAL;
	if (tb[TXRDMA_A_TENANT_TRAFFIC]) {
		if (txa_stats_parse(tb[TXRDMA_A_TENANT_TRAFFIC], &t->traffic))
			return -EINVAL;
		t->have |= TXA_TEN_HAVE_TRAFFIC;
	}
	if (tb[TXRDMA_A_TENANT_CGROUP]) {
		t->cgroup = strdup(nla_get_string(tb[TXRDMA_A_TENANT_CGROUP]));
		if (!t->cgroup)
			return -ENOMEM;
		t->have |= TXA_TEN_HAVE_CGROUP;
	}
	return 0;
}

void txa_tenant_free(struct txa_tenant *t)
{
	free(t->cgroup);
	t->cgroup = NULL;
}

/* ---- printing ------------------------------------------------------- */

static bool has(unsigned int mask, enum txa_limit lim)
{
	return mask & (1U << lim);
}

/* "  qps 0/10 refused 0": a resource limit with its usage */
static void print_resource(FILE *out, const struct txa_tenant *t,
			   enum txa_limit lim, const char *label, bool *first)
{
	bool bytes = txa_limit_is_bytes(lim);
	char buf[TXA_LIMIT_STRLEN];

	if (!has(t->limits_have, lim) && !has(t->usage_have, lim) &&
	    !has(t->refused_have, lim))
		return;
	fprintf(out, "%s%s ", *first ? "    " : "  ", label);
	*first = false;
	if (has(t->usage_have, lim))
		fprintf(out, "%s/",
			txa_fmt_limit(t->usage[lim], bytes, buf, sizeof(buf)));
	fputs(has(t->limits_have, lim) ?
	      txa_fmt_limit(t->limits[lim], bytes, buf, sizeof(buf)) : "?",
	      out);
	if (has(t->refused_have, lim))
		fprintf(out, " refused %llu",
			(unsigned long long)t->refused[lim]);
}

/* "  bw 100M/s burst 10M throttled 0": a token bucket */
static void print_bucket(FILE *out, const struct txa_tenant *t,
			 enum txa_limit rate, enum txa_limit burst,
			 const char *label, bool *first)
{
	bool bytes = txa_limit_is_bytes(rate);
	char buf[TXA_LIMIT_STRLEN];
	bool unlimited = false;

	if (!has(t->limits_have, rate) && !has(t->limits_have, burst) &&
	    !has(t->refused_have, rate))
		return;
	fprintf(out, "%s%s ", *first ? "    " : "  ", label);
	*first = false;
	if (!has(t->limits_have, rate)) {
		fputc('?', out);
	} else if (t->limits[rate] == TXRDMA_UNLIMITED) {
		fputs("unlimited", out);
		unlimited = true;
	} else {
		fprintf(out, "%s/s",
			txa_fmt_limit(t->limits[rate], bytes, buf, sizeof(buf)));
	}
	/* an unlimited rate has no bucket to speak of */
	if (has(t->limits_have, burst) &&
	    !(unlimited && t->limits[burst] == TXRDMA_UNLIMITED))
		fprintf(out, " burst %s",
			txa_fmt_limit(t->limits[burst], bytes, buf, sizeof(buf)));
	if (has(t->refused_have, rate))
		fprintf(out, " throttled %llu",
			(unsigned long long)t->refused[rate]);
}

void txa_tenant_print_plain(FILE *out, const struct txa_tenant *t)
{
	char buf[TXA_PRIO_STRLEN];
	bool first;

	fprintf(out, "%s:", t->have & TXA_TEN_HAVE_NAME ? t->name : "?");
	if (t->have & TXA_TEN_HAVE_ID)
		fprintf(out, " id %u", t->id);
	if (t->have & TXA_TEN_HAVE_CGROUP)
		fprintf(out, " cgroup %s", t->cgroup);
	if (t->have & TXA_TEN_HAVE_PRIO)
		fprintf(out, " prio %s", txa_prio_str(t->prio, buf, sizeof(buf)));
	fputc('\n', out);

	first = true;
	print_resource(out, t, TXA_LIM_QPS, "qps", &first);
	print_resource(out, t, TXA_LIM_ENDPOINTS, "endpoints", &first);
	print_resource(out, t, TXA_LIM_PINNED, "pinned", &first);
	print_resource(out, t, TXA_LIM_LISTENERS, "listeners", &first);
	if (!first)
		fputc('\n', out);

	first = true;
	print_bucket(out, t, TXA_LIM_BW_RATE, TXA_LIM_BW_BURST, "bw", &first);
	print_bucket(out, t, TXA_LIM_OPS_RATE, TXA_LIM_OPS_BURST, "ops",
		     &first);
	if (!first)
		fputc('\n', out);

	if ((t->have & TXA_TEN_HAVE_TRAFFIC) && t->traffic.have) {
		fputs("    traffic ", out);
		txa_stats_print_plain(out, &t->traffic);
		fputc('\n', out);
	}
}

static void json_kv_limit(struct json_writer *w, const char *key, uint64_t v)
{
	json_key(w, key);
	if (v == TXRDMA_UNLIMITED)
		json_null(w);
	else
		json_u64(w, v);
}

void txa_tenant_print_json(struct json_writer *w, const struct txa_tenant *t)
{
	char buf[TXA_PRIO_STRLEN];
	unsigned int i;

	json_obj_start(w);
	if (t->have & TXA_TEN_HAVE_NAME)
		json_kv_str(w, "name", t->name);
	if (t->have & TXA_TEN_HAVE_ID)
		json_kv_u64(w, "id", t->id);
	if (t->have & TXA_TEN_HAVE_CGROUP)
		json_kv_str(w, "cgroup", t->cgroup);
	if (t->have & TXA_TEN_HAVE_PRIO)
		json_kv_str(w, "prio", txa_prio_str(t->prio, buf, sizeof(buf)));
	if (t->limits_have) {
		json_key(w, "limits");
		json_obj_start(w);
		for (i = 0; i < TXA_LIM_NR; i++)
			if (has(t->limits_have, i))
				json_kv_limit(w, txa_limit_key(i),
					      t->limits[i]);
		json_obj_end(w);
	}
	if (t->usage_have) {
		json_key(w, "usage");
		json_obj_start(w);
		for (i = 0; i < TXA_LIM_NR; i++)
			if (txa_limit_is_quota(i) && has(t->usage_have, i))
				json_kv_u64(w, txa_limit_key(i), t->usage[i]);
		json_obj_end(w);
	}
	if (t->refused_have) {
		json_key(w, "refused");
		json_obj_start(w);
		for (i = 0; i < TXA_LIM_NR; i++)
			if (txa_limit_is_quota(i) && has(t->refused_have, i))
				json_kv_u64(w, txa_limit_key(i),
					    t->refused[i]);
		if (has(t->refused_have, TXA_LIM_BW_RATE))
			json_kv_u64(w, "bw", t->refused[TXA_LIM_BW_RATE]);
		if (has(t->refused_have, TXA_LIM_OPS_RATE))
			json_kv_u64(w, "ops", t->refused[TXA_LIM_OPS_RATE]);
		json_obj_end(w);
	}
	if (t->have & TXA_TEN_HAVE_TRAFFIC) {
		json_key(w, "traffic");
		txa_stats_print_json(w, &t->traffic);
	}
	json_obj_end(w);
}

/* ---- errors --------------------------------------------------------- */

static void nomem(struct txa_nl *nl)
{
	fprintf(nl->err, TXA_PROG ": %s: %s\n", nl->what, strerror(ENOMEM));
}

/* the failure of the last request, with hints for messages-less errors */
static void report(struct txa_nl *nl, const struct txa_args *a)
{
	const struct txa_tenant_args *t = &a->tenant;
	char hint[TXRDMA_CGROUP_PATH_MAX + 128];
	const char *name = t->name ? t->name : "";

	hint[0] = '\0';
	switch (nl->ext.error) {
	case EPERM:
		txa_nl_perror(nl, "changing txrdma needs CAP_NET_ADMIN");
		return;
	case ENOENT:
		if (a->cmd == TXA_CMD_TENANT_ADD)
			snprintf(hint, sizeof(hint),
				 "no cgroup \"%s\" under the cgroup2 mount",
				 t->cgroup);
		else
			snprintf(hint, sizeof(hint), "no tenant \"%s\"", name);
		break;
	case EEXIST:
		snprintf(hint, sizeof(hint),
			 "tenant \"%s\", or a tenant of cgroup \"%s\", exists",
			 name, t->cgroup ? t->cgroup : "");
		break;
	case EBUSY:
		snprintf(hint, sizeof(hint),
			 "tenant \"%s\" holds resources (\"force\" deletes it anyway)",
			 name);
		break;
	case ENOSPC:
		snprintf(hint, sizeof(hint), "too many tenants");
		break;
	case EOPNOTSUPP:
		/* txa_nl_perror() would blame the module's version */
		if (!nl->ext.msg[0] && a->cmd == TXA_CMD_TENANT_SET &&
		    t->cgroup) {
			fprintf(nl->err, TXA_PROG ": %s: the cgroup of a tenant cannot be changed (%s)\n",
				nl->what, strerror(EOPNOTSUPP));
			return;
		}
		break;
	}
	txa_nl_perror(nl, hint[0] ? hint : NULL);
}

/* ---- tenant show ---------------------------------------------------- */

static int show_parse(const struct nlmsghdr *nlh, void *obj)
{
	return txa_tenant_parse(nlh, obj);
}

static void show_free(void *obj)
{
	txa_tenant_free(obj);
}

static void show_plain(FILE *out, const void *obj)
{
	txa_tenant_print_plain(out, obj);
}

static void show_json(struct json_writer *w, const void *obj)
{
	txa_tenant_print_json(w, obj);
}

static const struct txa_show_ops tenant_show_ops = {
	.cmd		= TXRDMA_CMD_TENANT_GET,
	.size		= sizeof(struct txa_tenant),
	.cmd_off	= offsetof(struct txa_tenant, cmd),
	.parse		= show_parse,
	.free		= show_free,
	.print_plain	= show_plain,
	.print_json	= show_json,
};

int txa_tenant_show(struct txa_nl *nl, const struct txa_args *a, FILE *out)
{
	const char *name = a->tenant.name;
	struct nl_msg *msg;

	msg = txa_nl_msg(nl, TXRDMA_CMD_TENANT_GET, name ? 0 : NLM_F_DUMP);
	if (!msg)
		return TXA_EXIT_FAIL;
	if (name && nla_put_string(msg, TXRDMA_A_TENANT_NAME, name) < 0) {
		nlmsg_free(msg);
		nomem(nl);
		return TXA_EXIT_FAIL;
	}
	switch (txa_show(nl, msg, &tenant_show_ops, a->json, a->pretty,
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

/* ---- tenant add / set / del ----------------------------------------- */

/* NAME, CGROUP, PRIO and LIMITS as far as @t has them */
static int put_tenant(struct nl_msg *msg, const struct txa_tenant_args *t)
{
	struct nlattr *nest;
	unsigned int i;

	if (nla_put_string(msg, TXRDMA_A_TENANT_NAME, t->name) < 0)
		return -1;
	if (t->cgroup &&
	    nla_put_string(msg, TXRDMA_A_TENANT_CGROUP, t->cgroup) < 0)
		return -1;
	if (t->prio >= 0 &&
	    nla_put_u8(msg, TXRDMA_A_TENANT_PRIO, (uint8_t)t->prio) < 0)
		return -1;
	if (!t->limits_set)
		return 0;
	nest = nla_nest_start(msg, TXRDMA_A_TENANT_LIMITS | NLA_F_NESTED);
	if (!nest)
		return -1;
	for (i = 0; i < TXA_LIM_NR; i++)
		if (has(t->limits_set, i) &&
		    nla_put_u64(msg, txa_limit_attr(i), t->limits[i]) < 0)
			return -1;
	nla_nest_end(msg, nest);
	return 0;
}

static int change(struct txa_nl *nl, const struct txa_args *a, uint8_t cmd)
{
	struct nl_msg *msg;

	msg = txa_nl_msg(nl, cmd, 0);
	if (!msg)
		return TXA_EXIT_FAIL;
	if (put_tenant(msg, &a->tenant) ||
	    (a->tenant.force &&
	     nla_put_flag(msg, TXRDMA_A_TENANT_FORCE) < 0)) {
		nlmsg_free(msg);
		nomem(nl);
		return TXA_EXIT_FAIL;
	}
	/* a warning the module attaches to the ACK is printed by nl.c */
	if (!txa_nl_request(nl, msg, NULL, NULL))
		return TXA_EXIT_OK;
	report(nl, a);
	return TXA_EXIT_FAIL;
}

int txa_tenant_add(struct txa_nl *nl, const struct txa_args *a)
{
	return change(nl, a, TXRDMA_CMD_TENANT_NEW);
}

int txa_tenant_set(struct txa_nl *nl, const struct txa_args *a)
{
	return change(nl, a, TXRDMA_CMD_TENANT_SET);
}

int txa_tenant_del(struct txa_nl *nl, const struct txa_args *a)
{
	struct txa_args del = *a;

	/* only the name and the flag: nothing else belongs in a delete */
	del.tenant.cgroup = NULL;
	del.tenant.prio = -1;
	del.tenant.limits_set = 0;
	return change(nl, &del, TXRDMA_CMD_TENANT_DEL);
}

int txa_cmd_tenant(const struct txa_args *a)
{
	const char *what;
	struct txa_nl nl;
	int ret;

	switch (a->cmd) {
	case TXA_CMD_TENANT_SHOW:
		what = "tenant show";
		break;
	case TXA_CMD_TENANT_ADD:
		what = "tenant add";
		break;
	case TXA_CMD_TENANT_SET:
		what = "tenant set";
		break;
	case TXA_CMD_TENANT_DEL:
		what = "tenant del";
		break;
	default:
		return TXA_EXIT_USAGE;
	}
	if (txa_nl_open(&nl, what))
		return TXA_EXIT_FAIL;
	switch (a->cmd) {
	case TXA_CMD_TENANT_SHOW:
		ret = txa_tenant_show(&nl, a, stdout);
		break;
	case TXA_CMD_TENANT_ADD:
		ret = txa_tenant_add(&nl, a);
		break;
	case TXA_CMD_TENANT_SET:
		ret = txa_tenant_set(&nl, a);
		break;
	default:
		ret = txa_tenant_del(&nl, a);
		break;
	}
	txa_nl_close(&nl);
	return ret;
}
