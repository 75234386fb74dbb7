// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* args.c: command-line parsing of txrdma-admin, see args.h. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <linux/txrdma.h>

#include "args.h"

bool txa_matches(const char *arg, const char *keyword)
{
	size_t len = strlen(arg);

	return len && len <= strlen(keyword) && !strncmp(arg, keyword, len);
}

int txa_lookup(const char *arg, const char *const *keywords)
{
	int i;

	for (i = 0; keywords[i]; i++)
		if (!strcmp(arg, keywords[i]))
			return i;
	for (i = 0; keywords[i]; i++)
		if (txa_matches(arg, keywords[i]))
			return i;
	return -1;
}

int txa_parse_onoff(const char *arg)
{
	static const char *const on[] = { "on", "yes", "true", "1", NULL };
	static const char *const off[] = { "off", "no", "false", "0", NULL };
	int i;

	for (i = 0; on[i]; i++)
		if (!strcmp(arg, on[i]))
			return 1;
	for (i = 0; off[i]; i++)
		if (!strcmp(arg, off[i]))
			return 0;
	return -1;
}

int txa_parse_u64(const char *arg, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!isdigit((unsigned char)arg[0]))
		return -1;
	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

int txa_parse_range(const char *arg, uint64_t min, uint64_t max,
		    uint64_t *out)
{
	uint64_t v;

	if (txa_parse_u64(arg, &v) || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

/* one u32 of MIN[:MAX]: [s, s + len) */
static int parse_u32_part(const char *s, size_t len, uint32_t *out)
{
	char buf[32];
	uint64_t v;

	if (!len || len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (txa_parse_range(buf, 0, UINT32_MAX, &v))
		return -1;
	*out = (uint32_t)v;
	return 0;
}

int txa_parse_pool(const char *arg, uint32_t *min, uint32_t *max,
		   bool *has_max)
{
	const char *colon = strchr(arg, ':');
	uint32_t lo, hi;

	if (parse_u32_part(arg, colon ? (size_t)(colon - arg) : strlen(arg),
			   &lo))
		return -1;
	if (!colon) {
		*min = lo;
		*has_max = false;
		return 0;
	}
	if (parse_u32_part(colon + 1, strlen(colon + 1), &hi))
		return -1;
	*min = lo;
	*max = hi;
	*has_max = true;
	return 0;
}

static const char limits_help[] =
"where  LIMITS := [ prio { critical | normal | bulk } ] [ qps { N | unlimited } ]\n"
"                 [ endpoints { N | unlimited } ] [ pinned { SIZE | unlimited } ]\n"
"                 [ listeners { N | unlimited } ]\n"
"                 [ bw { RATE[:BURST] | unlimited } ] [ ops { RATE[:BURST] | unlimited } ]\n"
"       SIZE and the bw RATE (bytes/s) and BURST (bytes) are N[K|M|G|T]\n"
"       (powers of 1024, also KiB..TiB); ops RATE (ops/s) and BURST are N;\n"
"       a new tenant gets pinned a quarter of RAM, listeners 1024 (services\n"
"       its processes listen on), the rest unlimited, unless given\n";

static const char peer_help[] =
"where  PEER_ATTRS := [ pool MIN[:MAX] ] [ tx USEC ] [ rx USEC ] [ mult N ]\n"
"       pool: ready QPs kept while the peer is up (MIN), most QPs (MAX);\n"
"       tx, rx: BFD min tx and rx intervals in microseconds; mult: detect\n"
"       multiplier 1..255; port: the peer's rdma_cm port (default 7388)\n"
"       key FILE: the secret both hosts hold for each other, 32 to 128 hex\n"
"       digits (16 to 64 bytes) in a file of mode 600, \"-\" for standard\n"
"       input; make one with: openssl rand -hex 32 > FILE.  Never shown.\n"
"       path-of PEER: this peer is another path (address, device) to the\n"
"       host of PEER, added before: sessions move between the host's paths\n";

static const char ep_help[] =
"where  ID is an endpoint id (just that one), NAME a tenant (only its\n"
"       endpoints); processes make endpoints through /dev/txrdma\n";

void txa_usage(FILE *out, enum txa_help_topic topic)
{
	if (topic == TXA_HELP_ALL)
		fprintf(out,
"Usage: " TXA_PROG " [ OPTIONS ] OBJECT { COMMAND | help }\n"
"       " TXA_PROG " -V | --version\n"
"       " TXA_PROG " -h | --help | help\n"
"where  OBJECT := { dev | tenant | peer | ep | monitor }\n"
"       OPTIONS := { -j[son] | -p[retty] }\n"
"\n");
	if (topic == TXA_HELP_ALL || topic == TXA_HELP_DEV)
		fprintf(out, "%s"
TXA_PROG " dev [ show [ NAME ] ]\n"
"       " TXA_PROG " dev set NAME [ enabled { on | off } ] [ poll-cpu { CPU | any } ]\n"
"       " TXA_PROG " dev help\n",
			topic == TXA_HELP_ALL ? "       " : "Usage: ");
	if (topic == TXA_HELP_ALL || topic == TXA_HELP_TENANT)
		fprintf(out, "%s"
TXA_PROG " tenant [ show [ NAME ] ]\n"
"       " TXA_PROG " tenant add NAME cgroup PATH [ LIMITS ]\n"
"       " TXA_PROG " tenant set NAME LIMITS\n"
"       " TXA_PROG " tenant del NAME [ force ]\n"
"       " TXA_PROG " tenant exec NAME [ -- ] CMD [ ARGS ]\n"
"       " TXA_PROG " tenant help\n",
			topic == TXA_HELP_ALL ? "       " : "Usage: ");
	if (topic == TXA_HELP_TENANT)
		fputs(limits_help, out);
	if (topic == TXA_HELP_ALL || topic == TXA_HELP_PEER)
		fprintf(out, "%s"
TXA_PROG " peer [ show [ NAME ] ]\n"
"       " TXA_PROG " peer add NAME addr IPV4 key FILE [ dev DEV ] [ path-of PEER ] [ port PORT ] [ PEER_ATTRS ]\n"
"       " TXA_PROG " peer set NAME [ PEER_ATTRS ] [ state { up | down } ]\n"
"       " TXA_PROG " peer del NAME\n"
"       " TXA_PROG " peer help\n",
			topic == TXA_HELP_ALL ? "       " : "Usage: ");
	if (topic == TXA_HELP_PEER)
		fputs(peer_help, out);
	if (topic == TXA_HELP_ALL || topic == TXA_HELP_EP)
		fprintf(out, "%s"
TXA_PROG " ep [ show [ id ID ] [ tenant NAME ] ]\n"
"       " TXA_PROG " ep help\n",
			topic == TXA_HELP_ALL ? "       " : "Usage: ");
	if (topic == TXA_HELP_EP)
		fputs(ep_help, out);
	if (topic == TXA_HELP_ALL || topic == TXA_HELP_MONITOR)
		fprintf(out, "%s"
TXA_PROG " monitor [ count N ]\n"
"       " TXA_PROG " monitor help\n",
			topic == TXA_HELP_ALL ? "       " : "Usage: ");
	if (topic == TXA_HELP_ALL) {
		fputs(limits_help, out);
		fputs(peer_help, out);
		fputs(ep_help, out);
	}
	if (topic == TXA_HELP_ALL)
		fprintf(out,
"\n"
"Keywords may be abbreviated (\"d sh\" is \"dev show\").  Changing a device,\n"
"a tenant or a peer needs CAP_NET_ADMIN.  Exit status: 0 success,\n"
"1 failure, 2 bad usage.\n");
}

static int usage_error(FILE *err, enum txa_help_topic topic,
		       const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int usage_error(FILE *err, enum txa_help_topic topic,
		       const char *fmt, ...)
{
	va_list ap;

	fputs(TXA_PROG ": ", err);
	va_start(ap, fmt);
	vfprintf(err, fmt, ap);
	va_end(ap);
	fputc('\n', err);
	txa_usage(err, topic);
	return TXA_EXIT_USAGE;
}

static int check_dev_name(FILE *err, const char *name)
{
	if (!*name || strlen(name) >= TXRDMA_DEV_NAME_MAX)
		return usage_error(err, TXA_HELP_DEV,
				   "invalid device name \"%s\"", name);
	return TXA_EXIT_OK;
}

static int parse_dev_show(int argc, char **argv, struct txa_args *a,
			  FILE *err)
{
	a->cmd = TXA_CMD_DEV_SHOW;
	if (argc == 0)
		return TXA_EXIT_OK;
	if (argc > 1)
		return usage_error(err, TXA_HELP_DEV,
				   "dev show: unexpected argument \"%s\"",
				   argv[1]);
	a->dev_name = argv[0];
	return check_dev_name(err, a->dev_name);
}

static int parse_dev_set(int argc, char **argv, struct txa_args *a,
			 FILE *err)
{
	static const char *const attrs[] = { "enabled", "poll-cpu", NULL };
	unsigned long cpu;
	char *end;
	int ret, v;

	a->cmd = TXA_CMD_DEV_SET;
	if (argc < 1)
		return usage_error(err, TXA_HELP_DEV, "dev set: %s",
				   "missing device name");
	a->dev_name = argv[0];
	ret = check_dev_name(err, a->dev_name);
	if (ret)
		return ret;
	argc--;
	argv++;
	if (argc == 0)
		return usage_error(err, TXA_HELP_DEV, "dev set: %s",
				   "nothing to change");
	while (argc > 0) {
		switch (txa_lookup(argv[0], attrs)) {
		case 0:	/* enabled */
			if (argc < 2)
				return usage_error(err, TXA_HELP_DEV,
						   "dev set: %s",
						   "\"enabled\" needs on or off");
			v = txa_parse_onoff(argv[1]);
			if (v < 0)
				return usage_error(err, TXA_HELP_DEV,
						   "dev set: enabled: \"%s\" is not on or off",
						   argv[1]);
			a->enabled = v;
			break;
		case 1:	/* poll-cpu */
			if (argc < 2)
				return usage_error(err, TXA_HELP_DEV,
						   "dev set: %s",
						   "\"poll-cpu\" needs a CPU number or any");
			if (!strcmp(argv[1], "any")) {
				a->poll_cpu = -1;
				break;
			}
			errno = 0;
			cpu = strtoul(argv[1], &end, 10);
			if (errno || end == argv[1] || *end ||
			    argv[1][0] == '-' || argv[1][0] == '+' ||
			    cpu > INT32_MAX)
				return usage_error(err, TXA_HELP_DEV,
						   "dev set: poll-cpu: \"%s\" is not a CPU number or any",
						   argv[1]);
			a->poll_cpu = (int)cpu;
			break;
		default:
			return usage_error(err, TXA_HELP_DEV,
					   "dev set: unknown attribute \"%s\"",
					   argv[0]);
		}
		argc -= 2;
		argv += 2;
	}
	return TXA_EXIT_OK;
}

static int parse_dev(int argc, char **argv, struct txa_args *a, FILE *err)
{
	static const char *const cmds[] = { "show", "list", "set", "help",
					    NULL };

	if (argc == 0)
		return parse_dev_show(0, argv, a, err);
	switch (txa_lookup(argv[0], cmds)) {
	case 0:
	case 1:
		return parse_dev_show(argc - 1, argv + 1, a, err);
	case 2:
		return parse_dev_set(argc - 1, argv + 1, a, err);
	case 3:
		a->cmd = TXA_CMD_HELP;
		a->help_topic = TXA_HELP_DEV;
		return TXA_EXIT_OK;
	}
	return usage_error(err, TXA_HELP_DEV, "dev: unknown command \"%s\"",
			   argv[0]);
}

/* ---- tenant --------------------------------------------------------- */

enum {
	TATTR_CGROUP,
	TATTR_PRIO,
	TATTR_QPS,
	TATTR_ENDPOINTS,
	TATTR_PINNED,
	TATTR_BW,
	TATTR_OPS,
	TATTR_LISTENERS,
};

static void set_limit(struct txa_tenant_args *t, enum txa_limit lim,
		      uint64_t v)
{
	t->limits[lim] = v;
	t->limits_set |= 1U << lim;
}

/* "qps N", "bw RATE[:BURST]", ... of tenant add/set; @what: "tenant add" */
static int parse_tenant_attrs(int argc, char **argv, struct txa_args *a,
			      const char *what, FILE *err)
{
	static const char *const attrs[] = {
		[TATTR_CGROUP]		= "cgroup",
		[TATTR_PRIO]		= "prio",
		[TATTR_QPS]		= "qps",
		[TATTR_ENDPOINTS]	= "endpoints",
		[TATTR_PINNED]		= "pinned",
		[TATTR_BW]		= "bw",
		[TATTR_OPS]		= "ops",
		[TATTR_LISTENERS]	= "listeners",
		NULL
	};
	struct txa_tenant_args *t = &a->tenant;
	unsigned int seen = 0;
	uint64_t v, rate, burst;
	bool has_burst, bytes;
	int k, p;

	while (argc > 0) {
		k = txa_lookup(argv[0], attrs);
		if (k < 0)
			return usage_error(err, TXA_HELP_TENANT,
					   "%s: unknown attribute \"%s\"",
					   what, argv[0]);
		if (argc < 2)
			return usage_error(err, TXA_HELP_TENANT,
					   "%s: \"%s\" needs a value", what,
					   attrs[k]);
		if (seen & (1U << k))
			return usage_error(err, TXA_HELP_TENANT,
					   "%s: \"%s\" given twice", what,
					   attrs[k]);
		seen |= 1U << k;
		switch (k) {
		case TATTR_CGROUP:
			t->cgroup = argv[1];
			break;
		case TATTR_PRIO:
			p = txa_parse_prio(argv[1]);
			if (p < 0)
				return usage_error(err, TXA_HELP_TENANT,
						   "%s: prio: \"%s\" is not critical, normal or bulk",
						   what, argv[1]);
			t->prio = p;
			break;
		case TATTR_QPS:
		case TATTR_ENDPOINTS:
		case TATTR_LISTENERS:
			if (txa_parse_limit(argv[1], false, &v))
				return usage_error(err, TXA_HELP_TENANT,
						   "%s: %s: \"%s\" is not a number or unlimited",
						   what, attrs[k], argv[1]);
			set_limit(t, k == TATTR_QPS ? TXA_LIM_QPS :
				  k == TATTR_ENDPOINTS ? TXA_LIM_ENDPOINTS :
				  TXA_LIM_LISTENERS, v);
			break;
		case TATTR_PINNED:
			if (txa_parse_limit(argv[1], true, &v))
				return usage_error(err, TXA_HELP_TENANT,
						   "%s: pinned: \"%s\" is not a size (N[K|M|G|T]) or unlimited",
						   what, argv[1]);
			set_limit(t, TXA_LIM_PINNED, v);
			break;
		case TATTR_BW:
		case TATTR_OPS:
			bytes = k == TATTR_BW;
			if (txa_parse_rate(argv[1], bytes, &rate, &burst,
					   &has_burst))
				return usage_error(err, TXA_HELP_TENANT,
						   "%s: %s: \"%s\" is not %s or unlimited",
						   what, attrs[k], argv[1],
						   bytes ? "RATE[:BURST] (N[K|M|G|T])" :
						   "RATE[:BURST] (N)");
			set_limit(t, bytes ? TXA_LIM_BW_RATE :
				  TXA_LIM_OPS_RATE, rate);
			if (has_burst)
				set_limit(t, bytes ? TXA_LIM_BW_BURST :
					  TXA_LIM_OPS_BURST, burst);
			break;
		}
		argc -= 2;
		argv += 2;
	}
	return TXA_EXIT_OK;
}

/* the NAME after the command; the module checks its characters */
static int tenant_name(int argc, char **argv, struct txa_args *a,
		       const char *what, FILE *err)
{
	if (argc < 1)
		return usage_error(err, TXA_HELP_TENANT, "%s: %s", what,
				   "missing tenant name");
	a->tenant.name = argv[0];
	return TXA_EXIT_OK;
}

static int parse_tenant_add(int argc, char **argv, struct txa_args *a,
			    FILE *err)
{
	int ret;

	a->cmd = TXA_CMD_TENANT_ADD;
	ret = tenant_name(argc, argv, a, "tenant add", err);
	if (!ret)
		ret = parse_tenant_attrs(argc - 1, argv + 1, a, "tenant add",
					 err);
	if (!ret && !a->tenant.cgroup)
		ret = usage_error(err, TXA_HELP_TENANT, "tenant add: %s",
				  "missing \"cgroup PATH\"");
	return ret;
}

static int parse_tenant_set(int argc, char **argv, struct txa_args *a,
			    FILE *err)
{
	int ret;

	a->cmd = TXA_CMD_TENANT_SET;
	ret = tenant_name(argc, argv, a, "tenant set", err);
	if (ret)
		return ret;
	if (argc == 1)
		return usage_error(err, TXA_HELP_TENANT, "tenant set: %s",
				   "nothing to change");
	/* cgroup is sent on: the module says why it cannot change */
	return parse_tenant_attrs(argc - 1, argv + 1, a, "tenant set", err);
}

static int parse_tenant_del(int argc, char **argv, struct txa_args *a,
			    FILE *err)
{
	static const char *const words[] = { "force", NULL };
	int ret;

	a->cmd = TXA_CMD_TENANT_DEL;
	ret = tenant_name(argc, argv, a, "tenant del", err);
	if (ret)
		return ret;
	for (argc--, argv++; argc > 0; argc--, argv++) {
		if (txa_lookup(argv[0], words) != 0)
			return usage_error(err, TXA_HELP_TENANT,
					   "tenant del: unexpected argument \"%s\"",
					   argv[0]);
		a->tenant.force = true;
	}
	return TXA_EXIT_OK;
}

/*
 * tenant exec NAME [--] CMD [ARGS]: everything after NAME (and an
 * optional "--") is the command, taken as it is, like ip netns exec.
 */
static int parse_tenant_exec(int argc, char **argv, struct txa_args *a,
			     FILE *err)
{
	int ret;

	a->cmd = TXA_CMD_TENANT_EXEC;
	ret = tenant_name(argc, argv, a, "tenant exec", err);
	if (ret)
		return ret;
	argc--;
	argv++;
	if (argc > 0 && !strcmp(argv[0], "--")) {
		argc--;
		argv++;
	}
	if (argc == 0 || !argv[0][0])
		return usage_error(err, TXA_HELP_TENANT, "tenant exec: %s",
				   "no command to run");
	a->tenant.argv = argv;	/* main()'s argv is NULL-terminated */
	return TXA_EXIT_OK;
}

static int parse_tenant(int argc, char **argv, struct txa_args *a,
			FILE *err)
{
	static const char *const cmds[] = { "show", "list", "add", "set",
					    "del", "delete", "help", "exec",
					    NULL };

	a->cmd = TXA_CMD_TENANT_SHOW;
	if (argc == 0)
		return TXA_EXIT_OK;
	switch (txa_lookup(argv[0], cmds)) {
	case 0:
	case 1:
		if (argc > 2)
			return usage_error(err, TXA_HELP_TENANT,
					   "tenant show: unexpected argument \"%s\"",
					   argv[2]);
		a->tenant.name = argc == 2 ? argv[1] : NULL;
		return TXA_EXIT_OK;
	case 2:
		return parse_tenant_add(argc - 1, argv + 1, a, err);
	case 3:
		return parse_tenant_set(argc - 1, argv + 1, a, err);
	case 4:
	case 5:
		return parse_tenant_del(argc - 1, argv + 1, a, err);
	case 6:
		a->cmd = TXA_CMD_HELP;
		a->help_topic = TXA_HELP_TENANT;
		return TXA_EXIT_OK;
	case 7:
		return parse_tenant_exec(argc - 1, argv + 1, a, err);
	}
	return usage_error(err, TXA_HELP_TENANT,
			   "tenant: unknown command \"%s\"", argv[0]);
}

/* ---- peer ----------------------------------------------------------- */

/*
 * in the order that settles prefixes: "p" is pool, "po" too, "por" port,
 * "pa" path-of
 */
enum {
	PATTR_ADDR,
	PATTR_DEV,
	PATTR_POOL,
	PATTR_PORT,
	PATTR_TX,
	PATTR_RX,
	PATTR_MULT,
	PATTR_STATE,
	PATTR_KEY,
	PATTR_PATH_OF,
};

static void peer_given(struct txa_peer_args *p, enum txa_peer_arg arg)
{
	p->given |= 1U << arg;
}

/* "addr IPV4" */
static int parse_peer_addr(const char *arg, struct txa_peer_args *p,
			   const char *what, FILE *err)
{
	unsigned char v6[16];

	if (inet_pton(AF_INET, arg, p->addr) == 1) {
		peer_given(p, TXA_PARG_ADDR);
		return TXA_EXIT_OK;
	}
	if (inet_pton(AF_INET6, arg, v6) == 1)
		return usage_error(err, TXA_HELP_PEER, "%s",
				   "IPv6 peers are not supported yet");
	return usage_error(err, TXA_HELP_PEER,
			   "%s: addr: \"%s\" is not an IPv4 address (a.b.c.d)",
			   what, arg);
}

/* "pool MIN[:MAX]" */
static int parse_peer_pool(const char *arg, struct txa_peer_args *p,
			   const char *what, FILE *err)
{
	uint32_t min, max = 0;
	bool has_max;

	if (txa_parse_pool(arg, &min, &max, &has_max))
		return usage_error(err, TXA_HELP_PEER,
				   "%s: pool: \"%s\" is not MIN[:MAX] (numbers from 0 to 4294967295)",
				   what, arg);
	if (has_max && min > max)
		return usage_error(err, TXA_HELP_PEER,
				   "%s: pool: MIN %u is above MAX %u", what,
				   min, max);
	p->pool_min = min;
	peer_given(p, TXA_PARG_POOL_MIN);
	if (has_max) {
		p->pool_max = max;
		peer_given(p, TXA_PARG_POOL_MAX);
	}
	return TXA_EXIT_OK;
}

/* "tx USEC", "rx USEC", "port N", "mult N": a number in a range */
static int parse_peer_num(const char *arg, int k, struct txa_peer_args *p,
			  const char *what, FILE *err)
{
	uint64_t v;

	switch (k) {
	case PATTR_PORT:
		if (txa_parse_range(arg, 1, UINT16_MAX, &v))
			return usage_error(err, TXA_HELP_PEER,
					   "%s: port: \"%s\" is not a port number (1 to 65535)",
					   what, arg);
		p->port = (uint16_t)v;
		peer_given(p, TXA_PARG_PORT);
		break;
	case PATTR_MULT:
		if (txa_parse_range(arg, 1, UINT8_MAX, &v))
			return usage_error(err, TXA_HELP_PEER,
					   "%s: mult: \"%s\" is not a detect multiplier (1 to 255)",
					   what, arg);
		p->mult = (uint8_t)v;
		peer_given(p, TXA_PARG_MULT);
		break;
	default:	/* tx, rx */
		if (txa_parse_range(arg, 0, UINT32_MAX, &v))
			return usage_error(err, TXA_HELP_PEER,
					   "%s: %s: \"%s\" is not a number of microseconds (0 to 4294967295)",
					   what, k == PATTR_TX ? "tx" : "rx",
					   arg);
		if (k == PATTR_TX) {
			p->tx_us = (uint32_t)v;
			peer_given(p, TXA_PARG_TX);
		} else {
			p->rx_us = (uint32_t)v;
			peer_given(p, TXA_PARG_RX);
		}
		break;
	}
	return TXA_EXIT_OK;
}

/* the KEYWORD VALUE pairs of peer add (@add) or peer set */
static int parse_peer_attrs(int argc, char **argv, struct txa_args *a,
			    bool add, FILE *err)
{
	static const char *const attrs[] = {
		[PATTR_ADDR]	= "addr",
		[PATTR_DEV]	= "dev",
		[PATTR_POOL]	= "pool",
		[PATTR_PORT]	= "port",
		[PATTR_TX]	= "tx",
		[PATTR_RX]	= "rx",
		[PATTR_MULT]	= "mult",
		[PATTR_STATE]	= "state",
		[PATTR_KEY]	= "key",
		[PATTR_PATH_OF]	= "path-of",
		NULL
	};
	static const char *const states[] = { "up", "down", NULL };
	const char *what = add ? "peer add" : "peer set";
	struct txa_peer_args *p = &a->peer;
	unsigned int seen = 0;
	int k, ret, st;

	while (argc > 0) {
		k = txa_lookup(argv[0], attrs);
		if (k < 0)
			return usage_error(err, TXA_HELP_PEER,
					   "%s: unknown attribute \"%s\"",
					   what, argv[0]);
		/* the module refuses them too, in the same words; the key
		 * file is not even read for a request that cannot succeed
		 */
		if (!add && (k == PATTR_ADDR || k == PATTR_DEV ||
			     k == PATTR_PORT || k == PATTR_KEY ||
			     k == PATTR_PATH_OF))
			return usage_error(err, TXA_HELP_PEER,
					   "peer set: \"%s\" cannot be changed: delete and add the peer",
					   attrs[k]);
		if (add && k == PATTR_STATE)
			return usage_error(err, TXA_HELP_PEER, "peer add: %s",
					   "\"state\" is only for peer set");
		if (argc < 2)
			return usage_error(err, TXA_HELP_PEER,
					   "%s: \"%s\" needs a value", what,
					   attrs[k]);
		if (seen & (1U << k))
			return usage_error(err, TXA_HELP_PEER,
					   "%s: \"%s\" given twice", what,
					   attrs[k]);
		seen |= 1U << k;
		ret = TXA_EXIT_OK;
		switch (k) {
		case PATTR_ADDR:
			ret = parse_peer_addr(argv[1], p, what, err);
			break;
		case PATTR_DEV:
			if (!*argv[1] || strlen(argv[1]) >= TXRDMA_DEV_NAME_MAX)
				return usage_error(err, TXA_HELP_PEER,
						   "peer add: dev: invalid device name \"%s\"",
						   argv[1]);
			p->dev = argv[1];
			peer_given(p, TXA_PARG_DEV);
			break;
		case PATTR_POOL:
			ret = parse_peer_pool(argv[1], p, what, err);
			break;
		case PATTR_STATE:
			st = txa_lookup(argv[1], states);
			if (st < 0)
				return usage_error(err, TXA_HELP_PEER,
						   "peer set: state: \"%s\" is not up or down",
						   argv[1]);
			p->admin_up = st == 0;
			peer_given(p, TXA_PARG_ADMIN_UP);
			break;
		case PATTR_KEY:
			/* read and checked by peer add, just before it sends */
			if (!*argv[1])
				return usage_error(err, TXA_HELP_PEER, "%s",
						   "peer add: key: the file name is empty");
			p->key_file = argv[1];
			peer_given(p, TXA_PARG_KEY);
			break;
		case PATTR_PATH_OF:
			/* the module says whether that peer exists */
			if (!*argv[1] ||
			    strlen(argv[1]) >= TXRDMA_PEER_NAME_MAX)
				return usage_error(err, TXA_HELP_PEER,
						   "peer add: path-of: invalid peer name \"%s\" (1 to %d bytes)",
						   argv[1],
						   TXRDMA_PEER_NAME_MAX - 1);
			p->path_of = argv[1];
			peer_given(p, TXA_PARG_PATH_OF);
			break;
		default:
			ret = parse_peer_num(argv[1], k, p, what, err);
			break;
		}
		if (ret)
			return ret;
		argc -= 2;
		argv += 2;
	}
	return TXA_EXIT_OK;
}

static int check_peer_name(FILE *err, const char *what, const char *name)
{
	if (!*name || strlen(name) >= TXRDMA_PEER_NAME_MAX)
		return usage_error(err, TXA_HELP_PEER,
				   "%s: invalid peer name \"%s\" (1 to %d bytes)",
				   what, name, TXRDMA_PEER_NAME_MAX - 1);
	return TXA_EXIT_OK;
}

/* the NAME after the command; the module checks its characters */
static int peer_name(int argc, char **argv, struct txa_args *a,
		     const char *what, FILE *err)
{
	if (argc < 1)
		return usage_error(err, TXA_HELP_PEER, "%s: %s", what,
				   "missing peer name");
	a->peer.name = argv[0];
	return check_peer_name(err, what, argv[0]);
}

static int parse_peer_add(int argc, char **argv, struct txa_args *a,
			  FILE *err)
{
	int ret;

	a->cmd = TXA_CMD_PEER_ADD;
	ret = peer_name(argc, argv, a, "peer add", err);
	if (!ret)
		ret = parse_peer_attrs(argc - 1, argv + 1, a, true, err);
	if (!ret && !(a->peer.given & (1U << TXA_PARG_ADDR)))
		ret = usage_error(err, TXA_HELP_PEER, "peer add: %s",
				  "missing \"addr IPV4\"");
	if (!ret && !(a->peer.given & (1U << TXA_PARG_KEY)))
		ret = usage_error(err, TXA_HELP_PEER, "%s",
				  TXA_PEER_NEEDS_KEY);
	return ret;
}

static int parse_peer_set(int argc, char **argv, struct txa_args *a,
			  FILE *err)
{
	int ret;

	a->cmd = TXA_CMD_PEER_SET;
	ret = peer_name(argc, argv, a, "peer set", err);
	if (ret)
		return ret;
	if (argc == 1)
		return usage_error(err, TXA_HELP_PEER, "peer set: %s",
				   "nothing to change");
	return parse_peer_attrs(argc - 1, argv + 1, a, false, err);
}

static int parse_peer_del(int argc, char **argv, struct txa_args *a,
			  FILE *err)
{
	int ret;

	a->cmd = TXA_CMD_PEER_DEL;
	ret = peer_name(argc, argv, a, "peer del", err);
	if (ret)
		return ret;
	if (argc > 1)
		return usage_error(err, TXA_HELP_PEER,
				   "peer del: unexpected argument \"%s\"",
				   argv[1]);
	return TXA_EXIT_OK;
}

static int parse_peer(int argc, char **argv, struct txa_args *a, FILE *err)
{
	static const char *const cmds[] = { "show", "list", "add", "set",
					    "del", "delete", "help", NULL };

	a->cmd = TXA_CMD_PEER_SHOW;
	if (argc == 0)
		return TXA_EXIT_OK;
	switch (txa_lookup(argv[0], cmds)) {
	case 0:
	case 1:
		if (argc > 2)
			return usage_error(err, TXA_HELP_PEER,
					   "peer show: unexpected argument \"%s\"",
					   argv[2]);
		if (argc == 1)
			return TXA_EXIT_OK;
		a->peer.name = argv[1];
		return check_peer_name(err, "peer show", argv[1]);
	case 2:
		return parse_peer_add(argc - 1, argv + 1, a, err);
	case 3:
		return parse_peer_set(argc - 1, argv + 1, a, err);
	case 4:
	case 5:
		return parse_peer_del(argc - 1, argv + 1, a, err);
	case 6:
		a->cmd = TXA_CMD_HELP;
		a->help_topic = TXA_HELP_PEER;
		return TXA_EXIT_OK;
	}
	return usage_error(err, TXA_HELP_PEER, "peer: unknown command \"%s\"",
			   argv[0]);
}

/* ---- ep ------------------------------------------------------------- */

static int parse_ep_show(int argc, char **argv, struct txa_args *a,
			 FILE *err)
{
	static const char *const attrs[] = { "id", "tenant", NULL };
	struct txa_ep_args *e = &a->ep;
	unsigned int seen = 0;
	uint64_t v;
	int k;

	a->cmd = TXA_CMD_EP_SHOW;
	while (argc > 0) {
		k = txa_lookup(argv[0], attrs);
		if (k < 0)
			return usage_error(err, TXA_HELP_EP,
					   "ep show: unknown attribute \"%s\"",
					   argv[0]);
		if (argc < 2)
			return usage_error(err, TXA_HELP_EP,
					   "ep show: \"%s\" needs a value",
					   attrs[k]);
		if (seen & (1U << k))
			return usage_error(err, TXA_HELP_EP,
					   "ep show: \"%s\" given twice",
					   attrs[k]);
		seen |= 1U << k;
		if (k == 0) {
			if (txa_parse_range(argv[1], 1, UINT32_MAX, &v))
				return usage_error(err, TXA_HELP_EP,
						   "ep show: id: \"%s\" is not an endpoint id (1 to 4294967295)",
						   argv[1]);
			e->has_id = true;
			e->id = (uint32_t)v;
		} else {
			if (!*argv[1] ||
			    strlen(argv[1]) >= TXRDMA_TENANT_NAME_MAX)
				return usage_error(err, TXA_HELP_EP,
						   "ep show: tenant: invalid tenant name \"%s\" (1 to %d bytes)",
						   argv[1],
						   TXRDMA_TENANT_NAME_MAX - 1);
			e->tenant = argv[1];
		}
		argc -= 2;
		argv += 2;
	}
	return TXA_EXIT_OK;
}

static int parse_ep(int argc, char **argv, struct txa_args *a, FILE *err)
{
	static const char *const cmds[] = { "show", "list", "help", NULL };

	a->cmd = TXA_CMD_EP_SHOW;
	if (argc == 0)
		return TXA_EXIT_OK;
	switch (txa_lookup(argv[0], cmds)) {
	case 0:
	case 1:
		return parse_ep_show(argc - 1, argv + 1, a, err);
	case 2:
		a->cmd = TXA_CMD_HELP;
		a->help_topic = TXA_HELP_EP;
		return TXA_EXIT_OK;
	}
	return usage_error(err, TXA_HELP_EP, "ep: unknown command \"%s\"",
			   argv[0]);
}

static int parse_monitor(int argc, char **argv, struct txa_args *a,
			 FILE *err)
{
	static const char *const words[] = { "count", "help", NULL };

	a->cmd = TXA_CMD_MONITOR;
	while (argc > 0) {
		switch (txa_lookup(argv[0], words)) {
		case 0:	/* count */
			if (argc < 2)
				return usage_error(err, TXA_HELP_MONITOR,
						   "monitor: %s",
						   "\"count\" needs a number");
			if (txa_parse_u64(argv[1], &a->count) || !a->count)
				return usage_error(err, TXA_HELP_MONITOR,
						   "monitor: count: \"%s\" is not a positive number",
						   argv[1]);
			argc -= 2;
			argv += 2;
			break;
		case 1:
			a->cmd = TXA_CMD_HELP;
			a->help_topic = TXA_HELP_MONITOR;
			return TXA_EXIT_OK;
		default:
			return usage_error(err, TXA_HELP_MONITOR,
					   "monitor: unexpected argument \"%s\"",
					   argv[0]);
		}
	}
	return TXA_EXIT_OK;
}

static int parse_help(int argc, char **argv, struct txa_args *a, FILE *err)
{
	static const char *const topics[] = { "dev", "monitor", "tenant",
					      "peer", "ep", NULL };

	a->cmd = TXA_CMD_HELP;
	a->help_topic = TXA_HELP_ALL;
	if (argc == 0)
		return TXA_EXIT_OK;
	switch (txa_lookup(argv[0], topics)) {
	case 0:
		a->help_topic = TXA_HELP_DEV;
		return TXA_EXIT_OK;
	case 1:
		a->help_topic = TXA_HELP_MONITOR;
		return TXA_EXIT_OK;
	case 2:
		a->help_topic = TXA_HELP_TENANT;
		return TXA_EXIT_OK;
	case 3:
		a->help_topic = TXA_HELP_PEER;
		return TXA_EXIT_OK;
	case 4:
		a->help_topic = TXA_HELP_EP;
		return TXA_EXIT_OK;
	}
	return usage_error(err, TXA_HELP_ALL, "help: unknown topic \"%s\"",
			   argv[0]);
}

int txa_parse_args(int argc, char **argv, struct txa_args *a, FILE *err)
{
	static const struct option opts[] = {
		{ "json",	no_argument, NULL, 'j' },
		{ "pretty",	no_argument, NULL, 'p' },
		{ "help",	no_argument, NULL, 'h' },
		{ "version",	no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	static const char *const objects[] = { "dev", "monitor", "help",
					       "tenant", "peer", "ep", NULL };
	char shortopt[3] = "-?";
	int c;

	memset(a, 0, sizeof(*a));
	a->enabled = -1;
	a->poll_cpu = TXA_POLL_CPU_UNSET;
	a->tenant.prio = -1;

	/* getopt keeps state in globals: start afresh, print nothing */
	optind = 0;
	opterr = 0;
	/* "+": stop at the first word, the rest belongs to the command */
	while ((c = getopt_long_only(argc, argv, "+jphV", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			a->json = true;
			break;
		case 'p':
			a->pretty = true;
			break;
		case 'h':
			a->cmd = TXA_CMD_HELP;
			return TXA_EXIT_OK;
		case 'V':
			a->cmd = TXA_CMD_VERSION;
			return TXA_EXIT_OK;
		default:
			if (optopt) {
				shortopt[1] = (char)optopt;
				return usage_error(err, TXA_HELP_ALL,
						   "unknown option \"%s\"",
						   shortopt);
			}
			return usage_error(err, TXA_HELP_ALL,
					   "unknown option \"%s\"",
					   argv[optind - 1]);
		}
	}
	argc -= optind;
	argv += optind;

	if (argc == 0)
		return usage_error(err, TXA_HELP_ALL, "%s",
				   "missing object");
	switch (txa_lookup(argv[0], objects)) {
	case 0:
		return parse_dev(argc - 1, argv + 1, a, err);
	case 1:
		return parse_monitor(argc - 1, argv + 1, a, err);
	case 2:
		return parse_help(argc - 1, argv + 1, a, err);
	case 3:
		return parse_tenant(argc - 1, argv + 1, a, err);
	case 4:
		return parse_peer(argc - 1, argv + 1, a, err);
	case 5:
		return parse_ep(argc - 1, argv + 1, a, err);
	}
	return usage_error(err, TXA_HELP_ALL, "unknown object \"%s\"",
			   argv[0]);
}
