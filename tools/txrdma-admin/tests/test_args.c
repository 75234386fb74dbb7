// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of the command-line parser (args.c). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"
#include <linux/txrdma.h>

#include "../args.h"
#include "../key.h"

static char *errbuf;
static size_t errlen;

/* parse a space-separated command line (after the program name) */
static int parse(const char *line, struct txa_args *a)
{
	char *copy = strdup(line), *tok, *save = NULL;
	static char *argv[32];	/* tenant exec keeps a pointer into it */
	static char *keep[16];
	static unsigned int nkeep;
	int argc = 0, ret;
	FILE *err;

	argv[argc++] = "txrdma-admin";
	for (tok = strtok_r(copy, " ", &save); tok && argc < 31;
	     tok = strtok_r(NULL, " ", &save))
		argv[argc++] = tok;
	argv[argc] = NULL;

	free(errbuf);
	errbuf = NULL;
	err = open_memstream(&errbuf, &errlen);
	ret = txa_parse_args(argc, argv, a, err);
	fclose(err);
	/* a->dev_name points into copy: keep it alive for the test */
	if (nkeep == 16) {
		for (nkeep = 0; nkeep < 16; nkeep++)
			free(keep[nkeep]);
		nkeep = 0;
	}
	keep[nkeep++] = copy;
	return ret;
}

static bool err_has(const char *s)
{
	return errbuf && strstr(errbuf, s);
}

static void test_matches(void)
{
	TAP_CHECK(txa_matches("d", "dev"));
	TAP_CHECK(txa_matches("dev", "dev"));
	TAP_CHECK(!txa_matches("devx", "dev"));
	TAP_CHECK(!txa_matches("", "dev"));
	TAP_CHECK(!txa_matches("x", "dev"));
}

static void test_lookup(void)
{
	static const char *const kw[] = { "show", "list", "set", "help", NULL };
	static const char *const kw2[] = { "setting", "set", NULL };

	TAP_CHECK_INT(txa_lookup("s", kw), 0);	/* order settles it */
	TAP_CHECK_INT(txa_lookup("sh", kw), 0);
	TAP_CHECK_INT(txa_lookup("se", kw), 2);
	TAP_CHECK_INT(txa_lookup("set", kw), 2);
	TAP_CHECK_INT(txa_lookup("h", kw), 3);
	TAP_CHECK_INT(txa_lookup("showx", kw), -1);
	TAP_CHECK_INT(txa_lookup("", kw), -1);
	TAP_CHECK_INT(txa_lookup("set", kw2), 1);	/* exact wins */
}

static void test_onoff_u64(void)
{
	uint64_t v = 7;

	TAP_CHECK_INT(txa_parse_onoff("on"), 1);
	TAP_CHECK_INT(txa_parse_onoff("off"), 0);
	TAP_CHECK_INT(txa_parse_onoff("yes"), 1);
	TAP_CHECK_INT(txa_parse_onoff("0"), 0);
	TAP_CHECK_INT(txa_parse_onoff("o"), -1);
	TAP_CHECK_INT(txa_parse_onoff(""), -1);
	TAP_CHECK_INT(txa_parse_u64("42", &v), 0);
	TAP_CHECK(v == 42);
	TAP_CHECK_INT(txa_parse_u64("18446744073709551615", &v), 0);
	TAP_CHECK(v == UINT64_MAX);
	TAP_CHECK_INT(txa_parse_u64("18446744073709551616", &v), -1);
	TAP_CHECK_INT(txa_parse_u64("-1", &v), -1);
	TAP_CHECK_INT(txa_parse_u64("+1", &v), -1);
	TAP_CHECK_INT(txa_parse_u64("1x", &v), -1);
	TAP_CHECK_INT(txa_parse_u64("", &v), -1);
}

static void test_dev_show(void)
{
	struct txa_args a;

	TAP_CHECK_INT(parse("dev show", &a), 0);
	TAP_CHECK_INT(a.cmd, TXA_CMD_DEV_SHOW);
	TAP_CHECK(a.dev_name == NULL);
	TAP_CHECK(!a.json && !a.pretty);

	TAP_CHECK_INT(parse("dev", &a), 0);
	TAP_CHECK_INT(a.cmd, TXA_CMD_DEV_SHOW);

	TAP_CHECK_INT(parse("d sh rxe0", &a), 0);
	TAP_CHECK_INT(a.cmd, TXA_CMD_DEV_SHOW);
	TAP_CHECK_STR(a.dev_name, "rxe0");

	TAP_CHECK_INT(parse("dev list", &a), 0);
	TAP_CHECK_INT(a.cmd, TXA_CMD_DEV_SHOW);

	TAP_CHECK_INT(parse("dev show rxe0 extra", &a), TXA_EXIT_USAGE);
	TAP_CHECK(err_has("unexpected argument \"extra\""));
}

static void test_options(void)
{
	struct txa_args a;

	TAP_CHECK_INT(parse("-j -p dev show", &a), 0);
	TAP_CHECK(a.json && a.pretty);
	TAP_CHECK_INT(parse("-jp dev", &a), 0);
	TAP_CHECK(a.json && a.pretty);
	TAP_CHECK_INT(parse("--json dev", &a), 0);
	TAP_CHECK(a.json && !a.pretty);
	TAP_CHECK_INT(parse("-json -pretty dev", &a), 0);
	TAP_CHECK(a.json && a.pretty);
	/* options end at the first word */
	TAP_CHECK_INT(parse("dev show -j", &a), 0);
	TAP_CHECK_STR(a.dev_name, "-j");
	TAP_CHECK(!a.json);

	TAP_CHECK_INT(parse("-x dev", &a), TXA_EXIT_USAGE);
	TAP_CHECK(err_has("unknown option \"-x\""));
	TAP_CHECK(err_has("Usage:"));
	TAP_CHECK_INT(parse("--bogus dev", &a), TXA_EXIT_USAGE);
	TAP_CHECK(err_has("unknown option \"--bogus\""));
}

static void test_help_version(void)
{
	struct txa_args a;

	TAP_CHECK_INT(parse("-h", &a), 0);
	TAP_CHECK_INT(a.cmd, TXA_CMD_HELP);
	TAP_CHECK_INT(a.help_topic, TXA_HELP_ALL);
	TAP_CHECK_INT(parse("--help", &a), 0);
	TAP_CHECK_INT(a.cmd, TXA_CMD_HELP);
	TAP_CHECK_INT(parse("help", &a), 0);
	TAP_CHECK_INT(a.cmd, TXA_CMD_HELP);
	TAP_CHECK_INT(parse("dev help", &a), 0);
	TAP_CHECK_INT(a.help_topic, TXA_HELP_DEV);
	TAP_CHECK_INT(parse("help dev", &a), 0);
	TAP_CHECK_INT(a.help_topic, TXA_HELP_DEV);
	TAP_CHECK_INT(parse("monitor help", &a), 0);
	TAP_CHECK_INT(a.help_topic, TXA_HELP_MONITOR);
	TAP_CHECK_INT(parse("-V", &a), 0);
	TAP_CHECK_INT(a.cmd, TXA_CMD_VERSION);
	TAP_CHECK_INT(parse("--version", &a), 0);
	TAP_CHECK_INT(a.cmd, TXA_CMD_VERSION);
	TAP_CHECK_INT(parse("help foo", &a), TXA_EXIT_USAGE);
}

static void test_dev_set(void)
{
	struct txa_args a;

	TAP_CHECK_INT(parse("dev set rxe0 enabled off", &a), 0);
	TAP_CHECK_INT(a.cmd, TXA_CMD_DEV_SET);
	TAP_CHECK_STR(a.dev_name, "rxe0");
	TAP_CHECK_INT(a.enabled, 0);
	TAP_CHECK_INT(parse("d se rxe0 en on", &a), 0);
	TAP_CHECK_INT(a.cmd, TXA_CMD_DEV_SET);
	TAP_CHECK_INT(a.enabled, 1);

	TAP_CHECK_INT(parse("dev set", &a), TXA_EXIT_USAGE);
	TAP_CHECK(err_has("missing device name"));
	TAP_CHECK_INT(parse("dev set rxe0", &a), TXA_EXIT_USAGE);
	TAP_CHECK(err_has("nothing to change"));
	TAP_CHECK_INT(parse("dev set rxe0 enabled", &a), TXA_EXIT_USAGE);
	TAP_CHECK_INT(parse("dev set rxe0 enabled maybe", &a), TXA_EXIT_USAGE);
	TAP_CHECK(err_has("\"maybe\" is not on or off"));
	TAP_CHECK_INT(parse("dev set rxe0 mtu 4096", &a), TXA_EXIT_USAGE);
	TAP_CHECK(err_has("unknown attribute \"mtu\""));

	/* the poller's CPU: a number or any; not given is left alone */
	TAP_CHECK_INT(parse("dev set rxe0 enabled on", &a), 0);
	TAP_CHECK_INT(a.poll_cpu, TXA_POLL_CPU_UNSET);
	TAP_CHECK_INT(parse("dev set rxe0 poll-cpu 1", &a), 0);
	TAP_CHECK_INT(a.poll_cpu, 1);
	TAP_CHECK_INT(a.enabled, -1);
	TAP_CHECK_INT(parse("dev set rxe0 poll-cpu any enabled off", &a), 0);
	TAP_CHECK_INT(a.poll_cpu, -1);
	TAP_CHECK_INT(a.enabled, 0);
	TAP_CHECK_INT(parse("dev set rxe0 poll-cpu 0", &a), 0);
	TAP_CHECK_INT(a.poll_cpu, 0);
	TAP_CHECK_INT(parse("dev set rxe0 poll-cpu", &a), TXA_EXIT_USAGE);
	TAP_CHECK(err_has("needs a CPU number or any"));
	TAP_CHECK_INT(parse("dev set rxe0 poll-cpu -1", &a), TXA_EXIT_USAGE);
	TAP_CHECK(err_has("\"-1\" is not a CPU number or any"));
	TAP_CHECK_INT(parse("dev set rxe0 poll-cpu 1x", &a), TXA_EXIT_USAGE);
	TAP_CHECK_INT(parse("dev set rxe0 poll-cpu 4294967296", &a),
		      TXA_EXIT_USAGE);
	TAP_CHECK_INT(parse("dev set rxe0 poll-cpu ''", &a), TXA_EXIT_USAGE);
}

static void test_dev_name_length(void)
{
	char line[128];
	struct txa_args a;

	/* 63 characters fit (TXRDMA_DEV_NAME_MAX with the NUL), 64 do not */
	snprintf(line, sizeof(line), "dev show %.63s",
		 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
	TAP_CHECK_INT(parse(line, &a), 0);
	snprintf(line, sizeof(line), "dev show %.64s",
		 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
	TAP_CHECK_INT(parse(line, &a), TXA_EXIT_USAGE);
	TAP_CHECK(err_has("invalid device name"));
}

static void test_monitor(void)
{
	struct txa_args a;

	TAP_CHECK_INT(parse("monitor", &a), 0);
	TAP_CHECK_INT(a.cmd, TXA_CMD_MONITOR);
	TAP_CHECK(a.count == 0);
	TAP_CHECK_INT(parse("-j m c 3", &a), 0);
	TAP_CHECK_INT(a.cmd, TXA_CMD_MONITOR);
	TAP_CHECK(a.json);
	TAP_CHECK(a.count == 3);
	TAP_CHECK_INT(parse("monitor count", &a), TXA_EXIT_USAGE);
	TAP_CHECK_INT(parse("monitor count 0", &a), TXA_EXIT_USAGE);
	TAP_CHECK_INT(parse("monitor count -2", &a), TXA_EXIT_USAGE);
	TAP_CHECK_INT(parse("monitor bogus", &a), TXA_EXIT_USAGE);
}

static void test_unknown(void)
{
	struct txa_args a;

	TAP_CHECK_INT(parse("", &a), TXA_EXIT_USAGE);
	TAP_CHECK(err_has("missing object"));
	TAP_CHECK_INT(parse("foo", &a), TXA_EXIT_USAGE);
	TAP_CHECK(err_has("unknown object \"foo\""));
	TAP_CHECK_INT(parse("dev frob", &a), TXA_EXIT_USAGE);
	TAP_CHECK(err_has("dev: unknown command \"frob\""));
	TAP_CHECK(err_has("Usage: txrdma-admin dev"));
}

static bool lim(const struct txa_args *a, enum txa_limit l, uint64_t v)
{
	return (a->tenant.limits_set & (1U << l)) && a->tenant.limits[l] == v;
}

static void test_tenant_add(void)
{
	struct txa_args a;

	TAP_CHECK_INT(parse("tenant add a cgroup /db/a", &a), 0);
	TAP_CHECK_INT(a.cmd, TXA_CMD_TENANT_ADD);
	TAP_CHECK_STR(a.tenant.name, "a");
	TAP_CHECK_STR(a.tenant.cgroup, "/db/a");
	TAP_CHECK_INT(a.tenant.prio, -1);
	TAP_CHECK_INT(a.tenant.limits_set, 0);
	TAP_CHECK(!a.tenant.force);

	TAP_CHECK_INT(parse("tenant add a cgroup /db/a prio bulk qps 10 endpoints unlimited "
			    "pinned 64M listeners 16 bw 100M:10M ops 1000:100", &a), 0);
	TAP_CHECK_INT(a.tenant.prio, TXRDMA_PRIO_BULK);
	TAP_CHECK(lim(&a, TXA_LIM_QPS, 10));
	TAP_CHECK(lim(&a, TXA_LIM_ENDPOINTS, TXRDMA_UNLIMITED));
	TAP_CHECK(lim(&a, TXA_LIM_PINNED, 64ULL << 20));
	TAP_CHECK(lim(&a, TXA_LIM_LISTENERS, 16));
	TAP_CHECK(lim(&a, TXA_LIM_BW_RATE, 100ULL << 20));
	TAP_CHECK(lim(&a, TXA_LIM_BW_BURST, 10ULL << 20));
	TAP_CHECK(lim(&a, TXA_LIM_OPS_RATE, 1000));
	TAP_CHECK(lim(&a, TXA_LIM_OPS_BURST, 100));
	TAP_CHECK_INT(a.tenant.limits_set, (1U << TXA_LIM_NR) - 1);

	/* abbreviations: t a, c, pr, pi, e, b, o; rate without burst */
	TAP_CHECK_INT(parse("t a x c /x pr crit pi 1GiB e 3 b 5K o 7 q unl", &a), 0);
	TAP_CHECK_INT(a.cmd, TXA_CMD_TENANT_ADD);
	TAP_CHECK_INT(a.tenant.prio, TXRDMA_PRIO_CRITICAL);
	TAP_CHECK(lim(&a, TXA_LIM_PINNED, 1ULL << 30));
	TAP_CHECK(lim(&a, TXA_LIM_ENDPOINTS, 3));
	TAP_CHECK(lim(&a, TXA_LIM_BW_RATE, 5120));
	TAP_CHECK(!(a.tenant.limits_set & (1U << TXA_LIM_BW_BURST)));
	TAP_CHECK(lim(&a, TXA_LIM_OPS_RATE, 7));
	TAP_CHECK(lim(&a, TXA_LIM_QPS, TXRDMA_UNLIMITED));
	/* "l" is listeners; a count: no suffix, unlimited, 0 */
	TAP_CHECK_INT(parse("t a x c /x l unl", &a), 0);
	TAP_CHECK(lim(&a, TXA_LIM_LISTENERS, TXRDMA_UNLIMITED));
	TAP_CHECK_INT(a.tenant.limits_set, 1U << TXA_LIM_LISTENERS);
	TAP_CHECK_INT(parse("tenant add x cgroup /x listeners 0", &a), 0);
	TAP_CHECK(lim(&a, TXA_LIM_LISTENERS, 0));
	TAP_CHECK_INT(parse("tenant add x cgroup /x listeners 18446744073709551615", &a), 0);
	TAP_CHECK(lim(&a, TXA_LIM_LISTENERS, UINT64_MAX));
	/* "p" is prio, the first keyword */
	TAP_CHECK_INT(parse("tenant add a cgroup /a p normal", &a), 0);
	TAP_CHECK_INT(a.tenant.prio, TXRDMA_PRIO_NORMAL);
	/* bw unlimited clears both halves */
	TAP_CHECK_INT(parse("tenant add a cgroup /a bw unlimited", &a), 0);
	TAP_CHECK(lim(&a, TXA_LIM_BW_RATE, TXRDMA_UNLIMITED));
	TAP_CHECK(lim(&a, TXA_LIM_BW_BURST, TXRDMA_UNLIMITED));
	/* names and paths are the module's to judge */
	TAP_CHECK_INT(parse("tenant add a/b cgroup nope", &a), 0);
	TAP_CHECK_STR(a.tenant.name, "a/b");
	/* 0 goes to the module, which refuses it with a reason */
	TAP_CHECK_INT(parse("tenant add a cgroup /a bw 0:0", &a), 0);
	TAP_CHECK(lim(&a, TXA_LIM_BW_RATE, 0) && lim(&a, TXA_LIM_BW_BURST, 0));
}

static void test_tenant_add_errors(void)
{
	struct txa_args a;

	TAP_CHECK_INT(parse("tenant add", &a), TXA_EXIT_USAGE);
	TAP_CHECK(err_has("tenant add: missing tenant name"));
	TAP_CHECK(err_has("Usage: txrdma-admin tenant"));
	TAP_CHECK_INT(parse("tenant add a", &a), TXA_EXIT_USAGE);
	TAP_CHECK(err_has("missing \"cgroup PATH\""));
	TAP_CHECK_INT(parse("tenant add a qps 1", &a), TXA_EXIT_USAGE);
	TAP_CHECK(err_has("missing \"cgroup PATH\""));
	TAP_CHECK_INT(parse("tenant add a cgroup", &a), TXA_EXIT_USAGE);
	TAP_CHECK(err_has("\"cgroup\" needs a value"));
	TAP_CHECK_INT(parse("tenant add a cgroup /a qps", &a), TXA_EXIT_USAGE);
	TAP_CHECK(err_has("\"qps\" needs a value"));
	TAP_CHECK_INT(parse("tenant add a cgroup /a qps -1", &a), TXA_EXIT_USAGE);
	TAP_CHECK(err_has("qps: \"-1\" is not a number or unlimited"));
	TAP_CHECK_INT(parse("tenant add a cgroup /a qps 1K", &a), TXA_EXIT_USAGE);
	TAP_CHECK_INT(parse("tenant add a cgroup /a endpoints x", &a),
		      TXA_EXIT_USAGE);
	TAP_CHECK_INT(parse("tenant add a cgroup /a pinned 16777216T", &a),
		      TXA_EXIT_USAGE);
	TAP_CHECK(err_has("pinned: \"16777216T\" is not a size"));
	TAP_CHECK_INT(parse("tenant add a cgroup /a pinned 1.5G", &a),
		      TXA_EXIT_USAGE);
	TAP_CHECK_INT(parse("tenant add a cgroup /a bw 1M:", &a), TXA_EXIT_USAGE);
	TAP_CHECK(err_has("bw: \"1M:\" is not RATE[:BURST]"));
	TAP_CHECK_INT(parse("tenant add a cgroup /a ops 1K", &a), TXA_EXIT_USAGE);
	TAP_CHECK(err_has("ops: \"1K\" is not RATE[:BURST] (N)"));
	TAP_CHECK_INT(parse("tenant add a cgroup /a prio high", &a),
		      TXA_EXIT_USAGE);
	TAP_CHECK(err_has("prio: \"high\" is not critical, normal or bulk"));
	TAP_CHECK_INT(parse("tenant add a cgroup /a mtu 1", &a), TXA_EXIT_USAGE);
	TAP_CHECK(err_has("tenant add: unknown attribute \"mtu\""));
	TAP_CHECK_INT(parse("tenant add a cgroup /a qps 1 qps 2", &a),
		      TXA_EXIT_USAGE);
	TAP_CHECK(err_has("\"qps\" given twice"));
	TAP_CHECK_INT(parse("tenant add a cgroup /a cgroup /b", &a),
		      TXA_EXIT_USAGE);
	TAP_CHECK_INT(parse("tenant add a cgroup /a listeners", &a),
		      TXA_EXIT_USAGE);
	TAP_CHECK(err_has("\"listeners\" needs a value"));
	TAP_CHECK_INT(parse("tenant add a cgroup /a listeners 1K", &a),
		      TXA_EXIT_USAGE);
	TAP_CHECK(err_has("listeners: \"1K\" is not a number or unlimited"));
	TAP_CHECK_INT(parse("tenant add a cgroup /a listeners -1", &a),
		      TXA_EXIT_USAGE);
	TAP_CHECK_INT(parse("tenant add a cgroup /a listeners 18446744073709551616", &a),
		      TXA_EXIT_USAGE);
	TAP_CHECK_INT(parse("tenant add a cgroup /a l 1 listeners 2", &a),
		      TXA_EXIT_USAGE);
	TAP_CHECK(err_has("\"listeners\" given twice"));
}

static void test_tenant_set_del_show(void)
{
	struct txa_args a;

	TAP_CHECK_INT(parse("tenant set a qps 2", &a), 0);
	TAP_CHECK_INT(a.cmd, TXA_CMD_TENANT_SET);
	TAP_CHECK_STR(a.tenant.name, "a");
	TAP_CHECK(a.tenant.cgroup == NULL);
	TAP_CHECK_INT(a.tenant.limits_set, 1U << TXA_LIM_QPS);
	TAP_CHECK_INT(a.tenant.prio, -1);
	TAP_CHECK_INT(parse("t se a pr bulk", &a), 0);
	TAP_CHECK_INT(a.cmd, TXA_CMD_TENANT_SET);
	TAP_CHECK_INT(a.tenant.prio, TXRDMA_PRIO_BULK);
	TAP_CHECK_INT(a.tenant.limits_set, 0);
	/* sent on: the module refuses to move a tenant */
	TAP_CHECK_INT(parse("tenant set a cgroup /b", &a), 0);
	TAP_CHECK_STR(a.tenant.cgroup, "/b");
	TAP_CHECK_INT(parse("tenant set a", &a), TXA_EXIT_USAGE);
	TAP_CHECK(err_has("tenant set: nothing to change"));
	TAP_CHECK_INT(parse("tenant set", &a), TXA_EXIT_USAGE);
	TAP_CHECK(err_has("tenant set: missing tenant name"));
	TAP_CHECK_INT(parse("tenant set a ops 5:x", &a), TXA_EXIT_USAGE);
	/* listeners alone, and with another limit */
	TAP_CHECK_INT(parse("tenant set a listeners 4", &a), 0);
	TAP_CHECK_INT(a.tenant.limits_set, 1U << TXA_LIM_LISTENERS);
	TAP_CHECK(lim(&a, TXA_LIM_LISTENERS, 4));
	TAP_CHECK_INT(parse("t se a li unlimited q 3", &a), 0);
	TAP_CHECK(lim(&a, TXA_LIM_LISTENERS, TXRDMA_UNLIMITED));
	TAP_CHECK(lim(&a, TXA_LIM_QPS, 3));
	TAP_CHECK_INT(parse("tenant set a listeners x", &a), TXA_EXIT_USAGE);
	TAP_CHECK(err_has("tenant set: listeners: \"x\" is not a number or unlimited"));

	TAP_CHECK_INT(parse("tenant del a", &a), 0);
	TAP_CHECK_INT(a.cmd, TXA_CMD_TENANT_DEL);
	TAP_CHECK_STR(a.tenant.name, "a");
	TAP_CHECK(!a.tenant.force);
	TAP_CHECK_INT(parse("t d a f", &a), 0);
	TAP_CHECK_INT(a.cmd, TXA_CMD_TENANT_DEL);
	TAP_CHECK(a.tenant.force);
	TAP_CHECK_INT(parse("tenant delete a force", &a), 0);
	TAP_CHECK(a.tenant.force);
	TAP_CHECK_INT(parse("tenant del", &a), TXA_EXIT_USAGE);
	TAP_CHECK_INT(parse("tenant del a now", &a), TXA_EXIT_USAGE);
	TAP_CHECK(err_has("tenant del: unexpected argument \"now\""));

	/* exec: the rest of the line is the command, options and all */
	TAP_CHECK_INT(parse("tenant exec a -- env -i -j x", &a), 0);
	TAP_CHECK_INT(a.cmd, TXA_CMD_TENANT_EXEC);
	TAP_CHECK_STR(a.tenant.name, "a");
	TAP_CHECK_STR(a.tenant.argv[0], "env");
	TAP_CHECK_STR(a.tenant.argv[1], "-i");
	TAP_CHECK_STR(a.tenant.argv[2], "-j");
	TAP_CHECK_STR(a.tenant.argv[3], "x");
	TAP_CHECK(a.tenant.argv[4] == NULL);
	TAP_CHECK_INT(parse("t e db1 ./server --port 9", &a), 0);
	TAP_CHECK_INT(a.cmd, TXA_CMD_TENANT_EXEC);
	TAP_CHECK_STR(a.tenant.name, "db1");
	TAP_CHECK_STR(a.tenant.argv[0], "./server");
	TAP_CHECK_STR(a.tenant.argv[2], "9");
	TAP_CHECK(!a.json);
	/* only the first "--" is ours */
	TAP_CHECK_INT(parse("tenant exec a -- -- x", &a), 0);
	TAP_CHECK_STR(a.tenant.argv[0], "--");
	TAP_CHECK_INT(parse("tenant exec", &a), TXA_EXIT_USAGE);
	TAP_CHECK(err_has("tenant exec: missing tenant name"));
	TAP_CHECK_INT(parse("tenant exec a", &a), TXA_EXIT_USAGE);
	TAP_CHECK(err_has("tenant exec: no command to run"));
	TAP_CHECK_INT(parse("tenant exec a --", &a), TXA_EXIT_USAGE);
	TAP_CHECK(err_has("tenant exec: no command to run"));

	TAP_CHECK_INT(parse("tenant", &a), 0);
	TAP_CHECK_INT(a.cmd, TXA_CMD_TENANT_SHOW);
	TAP_CHECK(a.tenant.name == NULL);
	TAP_CHECK_INT(parse("-j t s a", &a), 0);
	TAP_CHECK_INT(a.cmd, TXA_CMD_TENANT_SHOW);
	TAP_CHECK(a.json);
	TAP_CHECK_STR(a.tenant.name, "a");
	TAP_CHECK_INT(parse("tenant list", &a), 0);
	TAP_CHECK_INT(a.cmd, TXA_CMD_TENANT_SHOW);
	TAP_CHECK_INT(parse("tenant show a b", &a), TXA_EXIT_USAGE);
	TAP_CHECK(err_has("tenant show: unexpected argument \"b\""));
	TAP_CHECK_INT(parse("tenant frob", &a), TXA_EXIT_USAGE);
	TAP_CHECK(err_has("tenant: unknown command \"frob\""));

	TAP_CHECK_INT(parse("tenant help", &a), 0);
	TAP_CHECK_INT(a.cmd, TXA_CMD_HELP);
	TAP_CHECK_INT(a.help_topic, TXA_HELP_TENANT);
	TAP_CHECK_INT(parse("help tenant", &a), 0);
	TAP_CHECK_INT(a.help_topic, TXA_HELP_TENANT);
	TAP_CHECK_INT(parse("help t", &a), 0);
	TAP_CHECK_INT(a.help_topic, TXA_HELP_TENANT);
}

/* ---- peer ----------------------------------------------------------- */

static bool pgiven(const struct txa_args *a, enum txa_peer_arg arg)
{
	return a->peer.given & (1U << arg);
}

static bool addr_is(const struct txa_args *a, uint8_t b0, uint8_t b1,
		    uint8_t b2, uint8_t b3)
{
	const uint8_t *p = a->peer.addr;

	return p[0] == b0 && p[1] == b1 && p[2] == b2 && p[3] == b3;
}

static void test_peer_add(void)
{
	struct txa_args a;

	TAP_CHECK_INT(parse("peer add g1 addr 198.18.0.2 key /k", &a), 0);
	TAP_CHECK_INT(a.cmd, TXA_CMD_PEER_ADD);
	TAP_CHECK_STR(a.peer.name, "g1");
	TAP_CHECK_INT(a.peer.given, (1U << TXA_PARG_ADDR) | (1U << TXA_PARG_KEY));
	TAP_CHECK(addr_is(&a, 198, 18, 0, 2));	/* network order */
	TAP_CHECK(a.peer.dev == NULL);
	TAP_CHECK(a.peer.path_of == NULL);
	TAP_CHECK_STR(a.peer.key_file, "/k");	/* read later, by peer add */

	TAP_CHECK_INT(parse("peer add g1 addr 198.18.0.2 dev rxe0 pool 2:8 port 7388 "
			    "tx 20000 rx 30000 mult 4 key /etc/txrdma/peer.key", &a), 0);
	TAP_CHECK_STR(a.peer.dev, "rxe0");
	TAP_CHECK(pgiven(&a, TXA_PARG_POOL_MIN) && a.peer.pool_min == 2);
	TAP_CHECK(pgiven(&a, TXA_PARG_POOL_MAX) && a.peer.pool_max == 8);
	TAP_CHECK(pgiven(&a, TXA_PARG_PORT) && a.peer.port == 7388);
	TAP_CHECK(pgiven(&a, TXA_PARG_TX) && a.peer.tx_us == 20000);
	TAP_CHECK(pgiven(&a, TXA_PARG_RX) && a.peer.rx_us == 30000);
	TAP_CHECK(pgiven(&a, TXA_PARG_MULT) && a.peer.mult == 4);
	TAP_CHECK(!pgiven(&a, TXA_PARG_ADMIN_UP));
	TAP_CHECK_INT(a.peer.given, ((1U << TXA_PARG_ADMIN_UP) - 1) |
		      (1U << TXA_PARG_KEY));
	TAP_CHECK_STR(a.peer.key_file, "/etc/txrdma/peer.key");

	/* abbreviations: "p" is pool, "por" port; pool MIN alone: no MAX */
	TAP_CHECK_INT(parse("pe a g2 a 10.0.0.1 d mlx5_0 p 3 por 1 t 1 r 0 m 255 key /k", &a), 0);
	TAP_CHECK_INT(a.cmd, TXA_CMD_PEER_ADD);
	TAP_CHECK(addr_is(&a, 10, 0, 0, 1));
	TAP_CHECK_STR(a.peer.dev, "mlx5_0");
	TAP_CHECK(pgiven(&a, TXA_PARG_POOL_MIN) && a.peer.pool_min == 3);
	TAP_CHECK(!pgiven(&a, TXA_PARG_POOL_MAX));
	TAP_CHECK(a.peer.port == 1 && a.peer.tx_us == 1 && a.peer.rx_us == 0);
	TAP_CHECK(a.peer.mult == 255);

	/* the edges of every range */
	TAP_CHECK_INT(parse("peer add g1 addr 1.2.3.4 port 65535 tx 4294967295 "
			    "rx 4294967295 mult 1 pool 4294967295:4294967295 key -", &a), 0);
	TAP_CHECK(a.peer.port == 65535 && a.peer.mult == 1);
	TAP_CHECK(a.peer.tx_us == UINT32_MAX && a.peer.rx_us == UINT32_MAX);
	TAP_CHECK_STR(a.peer.key_file, "-");	/* standard input */
	TAP_CHECK(a.peer.pool_min == UINT32_MAX && a.peer.pool_max == UINT32_MAX);
	TAP_CHECK_INT(parse("peer add g1 addr 1.2.3.4 pool 0:0 key /k", &a), 0);
	TAP_CHECK(a.peer.pool_min == 0 && a.peer.pool_max == 0 &&
		  pgiven(&a, TXA_PARG_POOL_MAX));
	TAP_CHECK_INT(parse("peer add g1 addr 1.2.3.4 pool 3:3 key /k", &a), 0);
	TAP_CHECK_INT(parse("peer add g1 addr 255.255.255.255 key /k", &a), 0);
	TAP_CHECK(addr_is(&a, 255, 255, 255, 255));
	/* keyword order does not matter; the module judges names */
	TAP_CHECK_INT(parse("peer add a.b-c_1 mult 2 addr 1.2.3.4 key /k", &a), 0);
	TAP_CHECK_STR(a.peer.name, "a.b-c_1");
	TAP_CHECK(addr_is(&a, 1, 2, 3, 4));
	/* another path to g1's host: its own address and device */
	TAP_CHECK_INT(parse("peer add g1b addr 198.18.1.2 key /k dev rxe1 path-of g1", &a), 0);
	TAP_CHECK_INT(a.cmd, TXA_CMD_PEER_ADD);
	TAP_CHECK_STR(a.peer.name, "g1b");
	TAP_CHECK_INT(a.peer.given, (1U << TXA_PARG_ADDR) | (1U << TXA_PARG_KEY) |
		      (1U << TXA_PARG_DEV) | (1U << TXA_PARG_PATH_OF));
	TAP_CHECK_STR(a.peer.path_of, "g1");
	TAP_CHECK_STR(a.peer.dev, "rxe1");
	TAP_CHECK(addr_is(&a, 198, 18, 1, 2));
	/* "pa" is path-of, "p" still pool; 31 bytes fit */
	TAP_CHECK_INT(parse("pe a g1b a 10.0.0.2 k /k pa xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx p 3", &a), 0);
	TAP_CHECK(pgiven(&a, TXA_PARG_PATH_OF));
	TAP_CHECK_STR(a.peer.path_of, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
	TAP_CHECK(pgiven(&a, TXA_PARG_POOL_MIN) && a.peer.pool_min == 3);
	TAP_CHECK(!pgiven(&a, TXA_PARG_DEV));
	/* "k" is key, anywhere on the line; a file name is not judged */
	TAP_CHECK_INT(parse("pe a g1 k ./my.key a 1.2.3.4", &a), 0);
	TAP_CHECK(pgiven(&a, TXA_PARG_KEY));
	TAP_CHECK_STR(a.peer.key_file, "./my.key");
}

/* @line fails with exit 2 and @msg in the message */
static void check_usage(const char *line, const char *msg)
{
	struct txa_args a;

	if (!TAP_CHECK_INT(parse(line, &a), TXA_EXIT_USAGE))
		tap_diag("  accepted \"%s\"", line);
	if (!TAP_CHECK(err_has(msg)))
		tap_diag("  \"%s\": %s", line, errbuf ? errbuf : "(null)");
	TAP_CHECK(err_has("Usage: txrdma-admin peer"));
}

static void test_peer_add_errors(void)
{
	static const char *const bad_addr[] = {
		"1.2.3", "1.2.3.256", "01.2.3.4", "0x1.2.3.4", "1.2.3.4/24",
		"host.example", "-1", "1.2.3.4.5", NULL
	};
	static const char *const v6[] = {
		"fe80::1", "::1", "::ffff:1.2.3.4", "2001:db8::2", NULL
	};
	static const char *const bad_port[] = {
		"0", "65536", "-1", "+1", "x", "1x", "99999999999999999999", NULL
	};
	static const char *const bad_us[] = {
		"-1", "4294967296", "18446744073709551616", "1.5", "x", "20ms",
		"+5", NULL
	};
	static const char *const bad_mult[] = {
		"0", "256", "-1", "x", "4294967300", NULL
	};
	static const char *const bad_pool[] = {
		"x", "-1", "+1", "1:", ":1", ":", "1:2:3", "4294967296",
		"1:4294967296", "1:-2", "1:x", "0x2", "2K", NULL
	};
	char line[256], msg[128];
	struct txa_args a;
	int i;

	check_usage("peer add", "peer add: missing peer name");
	check_usage("peer add g1", "peer add: missing \"addr IPV4\"");
	check_usage("peer add g1 pool 1", "peer add: missing \"addr IPV4\"");
	/* the key is required, said before anything is read or sent */
	check_usage("peer add g1 addr 1.2.3.4", "peer add needs key FILE");
	check_usage("peer add g1 addr 1.2.3.4 pool 2:4",
		    "txrdma-admin: peer add needs key FILE: the hex key both hosts hold");
	check_usage("peer add g1 addr 1.2.3.4 key",
		    "peer add: \"key\" needs a value");
	check_usage("peer add g1 addr 1.2.3.4 key /a key /b",
		    "peer add: \"key\" given twice");
	{
		/* an empty word, as a shell passes "" */
		char *argv[] = { "txrdma-admin", "peer", "add", "g1", "addr",
				 "1.2.3.4", "key", "", NULL };
		FILE *err;

		free(errbuf);
		errbuf = NULL;
		err = open_memstream(&errbuf, &errlen);
		TAP_CHECK_INT(txa_parse_args(8, argv, &a, err), TXA_EXIT_USAGE);
		fclose(err);
		TAP_CHECK(err_has("peer add: key: the file name is empty"));
	}
	check_usage("peer add g1 key /k", "peer add: missing \"addr IPV4\"");
	check_usage("peer add g1 addr", "peer add: \"addr\" needs a value");
	check_usage("peer add g1 addr 1.2.3.4 tx",
		    "peer add: \"tx\" needs a value");
	check_usage("peer add g1 addr 1.2.3.4 mtu 9000",
		    "peer add: unknown attribute \"mtu\"");
	check_usage("peer add g1 addr 1.2.3.4 poolx 1",
		    "peer add: unknown attribute \"poolx\"");
	check_usage("peer add g1 addr 1.2.3.4 tx 1 tx 2",
		    "peer add: \"tx\" given twice");
	check_usage("peer add g1 addr 1.2.3.4 addr 1.2.3.5",
		    "peer add: \"addr\" given twice");
	check_usage("peer add g1 addr 1.2.3.4 state down",
		    "peer add: \"state\" is only for peer set");
	check_usage("peer add g1 addr 1.2.3.4 pool 8:2",
		    "peer add: pool: MIN 8 is above MAX 2");
	check_usage("peer add g1 addr 1.2.3.4 dev xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
		    "peer add: dev: invalid device name");
	check_usage("peer add g1b addr 1.2.3.4 key /k path-of",
		    "peer add: \"path-of\" needs a value");
	check_usage("peer add g1b addr 1.2.3.4 key /k path-of g1 path-of g2",
		    "peer add: \"path-of\" given twice");
	check_usage("peer add g1b addr 1.2.3.4 key /k path-of xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
		    "peer add: path-of: invalid peer name \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\" (1 to 31 bytes)");
	check_usage("peer add g1b path-of g1 key /k",
		    "peer add: missing \"addr IPV4\"");
	{
		/* an empty peer name, as a shell passes "" */
		char *argv[] = { "txrdma-admin", "peer", "add", "g1b", "addr",
				 "1.2.3.4", "key", "/k", "path-of", "", NULL };
		FILE *err;

		free(errbuf);
		errbuf = NULL;
		err = open_memstream(&errbuf, &errlen);
		TAP_CHECK_INT(txa_parse_args(10, argv, &a, err), TXA_EXIT_USAGE);
		fclose(err);
		TAP_CHECK(err_has("peer add: path-of: invalid peer name \"\" (1 to 31 bytes)"));
	}
	/* 31 bytes fit (TXRDMA_PEER_NAME_MAX with the NUL), 32 do not */
	TAP_CHECK_INT(parse("peer add xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx addr 1.2.3.4 key /k", &a), 0);
	check_usage("peer add xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx addr 1.2.3.4",
		    "peer add: invalid peer name \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\" (1 to 31 bytes)");

	for (i = 0; bad_addr[i]; i++) {
		snprintf(line, sizeof(line), "peer add g1 addr %s", bad_addr[i]);
		snprintf(msg, sizeof(msg),
			 "peer add: addr: \"%s\" is not an IPv4 address (a.b.c.d)",
			 bad_addr[i]);
		check_usage(line, msg);
	}
	for (i = 0; v6[i]; i++) {
		snprintf(line, sizeof(line), "peer add g1 addr %s", v6[i]);
		check_usage(line, "IPv6 peers are not supported yet");
		/* exactly that, as the first line */
		TAP_CHECK(!strncmp(errbuf, "txrdma-admin: IPv6 peers are not supported yet\n",
				   47));
	}
	for (i = 0; bad_port[i]; i++) {
		snprintf(line, sizeof(line), "peer add g1 addr 1.2.3.4 port %s",
			 bad_port[i]);
		snprintf(msg, sizeof(msg),
			 "peer add: port: \"%s\" is not a port number (1 to 65535)",
			 bad_port[i]);
		check_usage(line, msg);
	}
	for (i = 0; bad_us[i]; i++) {
		snprintf(line, sizeof(line), "peer add g1 addr 1.2.3.4 tx %s",
			 bad_us[i]);
		snprintf(msg, sizeof(msg),
			 "peer add: tx: \"%s\" is not a number of microseconds (0 to 4294967295)",
			 bad_us[i]);
		check_usage(line, msg);
		snprintf(line, sizeof(line), "peer add g1 addr 1.2.3.4 rx %s",
			 bad_us[i]);
		snprintf(msg, sizeof(msg), "peer add: rx: \"%s\" is not", bad_us[i]);
		check_usage(line, msg);
	}
	for (i = 0; bad_mult[i]; i++) {
		snprintf(line, sizeof(line), "peer add g1 addr 1.2.3.4 mult %s",
			 bad_mult[i]);
		snprintf(msg, sizeof(msg),
			 "peer add: mult: \"%s\" is not a detect multiplier (1 to 255)",
			 bad_mult[i]);
		check_usage(line, msg);
	}
	for (i = 0; bad_pool[i]; i++) {
		snprintf(line, sizeof(line), "peer add g1 addr 1.2.3.4 pool %s",
			 bad_pool[i]);
		snprintf(msg, sizeof(msg),
			 "peer add: pool: \"%s\" is not MIN[:MAX] (numbers from 0 to 4294967295)",
			 bad_pool[i]);
		check_usage(line, msg);
	}
}

static void test_peer_pool_parse(void)
{
	uint32_t min = 7, max = 7;
	bool has_max = true;

	TAP_CHECK_INT(txa_parse_pool("5", &min, &max, &has_max), 0);
	TAP_CHECK(min == 5 && max == 7 && !has_max);	/* max untouched */
	TAP_CHECK_INT(txa_parse_pool("1:9", &min, &max, &has_max), 0);
	TAP_CHECK(min == 1 && max == 9 && has_max);
	/* MIN > MAX is syntactically fine: the caller refuses it */
	TAP_CHECK_INT(txa_parse_pool("9:1", &min, &max, &has_max), 0);
	TAP_CHECK(min == 9 && max == 1);
	min = max = 42;
	TAP_CHECK_INT(txa_parse_pool("2 ", &min, &max, &has_max), -1);
	TAP_CHECK_INT(txa_parse_pool("", &min, &max, &has_max), -1);
	TAP_CHECK_INT(txa_parse_pool("1:2:3", &min, &max, &has_max), -1);
	TAP_CHECK_INT(txa_parse_pool("99999999999999999999999999999999:1",
				     &min, &max, &has_max), -1);
	TAP_CHECK(min == 42 && max == 42);	/* not written on failure */
}

static void test_peer_set_del_show(void)
{
	struct txa_args a;

	TAP_CHECK_INT(parse("peer set g1 state down", &a), 0);
	TAP_CHECK_INT(a.cmd, TXA_CMD_PEER_SET);
	TAP_CHECK_STR(a.peer.name, "g1");
	TAP_CHECK_INT(a.peer.given, 1U << TXA_PARG_ADMIN_UP);
	TAP_CHECK(!a.peer.admin_up);
	TAP_CHECK_INT(parse("pe se g1 s u", &a), 0);
	TAP_CHECK_INT(a.cmd, TXA_CMD_PEER_SET);
	TAP_CHECK(pgiven(&a, TXA_PARG_ADMIN_UP) && a.peer.admin_up);
	TAP_CHECK_INT(parse("peer set g1 pool 4 tx 10000 rx 20000 mult 3", &a), 0);
	TAP_CHECK(a.peer.pool_min == 4 && !pgiven(&a, TXA_PARG_POOL_MAX));
	TAP_CHECK(a.peer.tx_us == 10000 && a.peer.rx_us == 20000 &&
		  a.peer.mult == 3);
	TAP_CHECK(!pgiven(&a, TXA_PARG_ADMIN_UP) && !pgiven(&a, TXA_PARG_ADDR));
	TAP_CHECK_INT(parse("peer set g1 pool 1:16 state up", &a), 0);
	TAP_CHECK(a.peer.pool_min == 1 && a.peer.pool_max == 16);

	check_usage("peer set g1", "peer set: nothing to change");
	check_usage("peer set", "peer set: missing peer name");
	check_usage("peer set g1 addr 1.2.3.4",
		    "peer set: \"addr\" cannot be changed: delete and add the peer");
	check_usage("peer set g1 dev rxe0",
		    "peer set: \"dev\" cannot be changed");
	check_usage("peer set g1 port 7000",
		    "peer set: \"port\" cannot be changed");
	/* refused here, in the module's words; the file is not read */
	check_usage("peer set g1 key /nonexistent",
		    "peer set: \"key\" cannot be changed: delete and add the peer");
	check_usage("peer set g1 tx 1000 key -",
		    "peer set: \"key\" cannot be changed");
	/* a peer's host is fixed at add, like its address and device */
	check_usage("peer set g1b path-of g1",
		    "peer set: \"path-of\" cannot be changed: delete and add the peer");
	check_usage("peer set g1b mult 3 pa g1",
		    "peer set: \"path-of\" cannot be changed");
	check_usage("peer set g1 state sideways",
		    "peer set: state: \"sideways\" is not up or down");
	check_usage("peer set g1 state", "peer set: \"state\" needs a value");
	check_usage("peer set g1 state up state down",
		    "peer set: \"state\" given twice");
	check_usage("peer set g1 pool 9:3", "peer set: pool: MIN 9 is above MAX 3");
	check_usage("peer set g1 mult 0", "peer set: mult: \"0\" is not");
	check_usage("peer set g1 bogus 1", "peer set: unknown attribute \"bogus\"");

	TAP_CHECK_INT(parse("peer del g1", &a), 0);
	TAP_CHECK_INT(a.cmd, TXA_CMD_PEER_DEL);
	TAP_CHECK_STR(a.peer.name, "g1");
	TAP_CHECK_INT(a.peer.given, 0);
	TAP_CHECK_INT(parse("peer delete g1", &a), 0);
	TAP_CHECK_INT(a.cmd, TXA_CMD_PEER_DEL);
	check_usage("peer del", "peer del: missing peer name");
	check_usage("peer del g1 force", "peer del: unexpected argument \"force\"");
	check_usage("peer del g1 key /k", "peer del: unexpected argument \"key\"");

	TAP_CHECK_INT(parse("peer", &a), 0);
	TAP_CHECK_INT(a.cmd, TXA_CMD_PEER_SHOW);
	TAP_CHECK(a.peer.name == NULL);
	TAP_CHECK_INT(parse("-j -p pe sh g1", &a), 0);
	TAP_CHECK_INT(a.cmd, TXA_CMD_PEER_SHOW);
	TAP_CHECK(a.json && a.pretty);
	TAP_CHECK_STR(a.peer.name, "g1");
	TAP_CHECK_INT(parse("peer list", &a), 0);
	TAP_CHECK_INT(a.cmd, TXA_CMD_PEER_SHOW);
	TAP_CHECK(a.peer.name == NULL);
	check_usage("peer show a b", "peer show: unexpected argument \"b\"");
	check_usage("peer show xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
		    "peer show: invalid peer name");
	check_usage("peer frob", "peer: unknown command \"frob\"");

	TAP_CHECK_INT(parse("peer help", &a), 0);
	TAP_CHECK_INT(a.cmd, TXA_CMD_HELP);
	TAP_CHECK_INT(a.help_topic, TXA_HELP_PEER);
	TAP_CHECK_INT(parse("help peer", &a), 0);
	TAP_CHECK_INT(a.help_topic, TXA_HELP_PEER);
	TAP_CHECK_INT(parse("help p", &a), 0);
	TAP_CHECK_INT(a.help_topic, TXA_HELP_PEER);
	/* "p" as an object is peer; the others keep their prefixes */
	TAP_CHECK_INT(parse("p", &a), 0);
	TAP_CHECK_INT(a.cmd, TXA_CMD_PEER_SHOW);
	TAP_CHECK_INT(parse("t", &a), 0);
	TAP_CHECK_INT(a.cmd, TXA_CMD_TENANT_SHOW);
}

/* @line fails with exit 2, @msg in the message, the ep usage after it */
static void check_ep_usage(const char *line, const char *msg)
{
	struct txa_args a;

	if (!TAP_CHECK_INT(parse(line, &a), TXA_EXIT_USAGE))
		tap_diag("  accepted \"%s\"", line);
	if (!TAP_CHECK(err_has(msg)))
		tap_diag("  \"%s\": %s", line, errbuf ? errbuf : "(null)");
	TAP_CHECK(err_has("Usage: txrdma-admin ep"));
}

static void test_ep_show(void)
{
	struct txa_args a;

	TAP_CHECK_INT(parse("ep", &a), 0);
	TAP_CHECK_INT(a.cmd, TXA_CMD_EP_SHOW);
	TAP_CHECK(!a.ep.has_id && !a.ep.tenant);
	TAP_CHECK_INT(parse("ep show", &a), 0);
	TAP_CHECK_INT(a.cmd, TXA_CMD_EP_SHOW);
	TAP_CHECK_INT(parse("ep list", &a), 0);
	TAP_CHECK_INT(a.cmd, TXA_CMD_EP_SHOW);
	TAP_CHECK_INT(parse("-j ep show id 3", &a), 0);
	TAP_CHECK(a.json && a.ep.has_id && a.ep.id == 3 && !a.ep.tenant);
	TAP_CHECK_INT(parse("ep show tenant db1", &a), 0);
	TAP_CHECK(!a.ep.has_id && a.ep.tenant && !strcmp(a.ep.tenant, "db1"));
	TAP_CHECK_INT(parse("e s t db1 i 4294967295", &a), 0);
	TAP_CHECK_INT(a.cmd, TXA_CMD_EP_SHOW);
	TAP_CHECK(a.ep.has_id && a.ep.id == UINT32_MAX);
	TAP_CHECK_STR(a.ep.tenant, "db1");

	check_ep_usage("ep show id 0",
		       "ep show: id: \"0\" is not an endpoint id (1 to 4294967295)");
	check_ep_usage("ep show id 4294967296", "ep show: id: \"4294967296\"");
	check_ep_usage("ep show id -1", "ep show: id: \"-1\"");
	check_ep_usage("ep show id x", "ep show: id: \"x\"");
	check_ep_usage("ep show id", "ep show: \"id\" needs a value");
	check_ep_usage("ep show id 1 id 2", "ep show: \"id\" given twice");
	check_ep_usage("ep show tenant", "ep show: \"tenant\" needs a value");
	check_ep_usage("ep show tenant xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
		       "ep show: tenant: invalid tenant name");
	check_ep_usage("ep show peer g1", "ep show: unknown attribute \"peer\"");
	check_ep_usage("ep frob", "ep: unknown command \"frob\"");

	TAP_CHECK_INT(parse("ep help", &a), 0);
	TAP_CHECK_INT(a.cmd, TXA_CMD_HELP);
	TAP_CHECK_INT(a.help_topic, TXA_HELP_EP);
	TAP_CHECK_INT(parse("help ep", &a), 0);
	TAP_CHECK_INT(a.help_topic, TXA_HELP_EP);
	TAP_CHECK_INT(parse("help e", &a), 0);
	TAP_CHECK_INT(a.help_topic, TXA_HELP_EP);
}

static void test_usage_text(void)
{
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	txa_usage(f, TXA_HELP_ALL);
	fclose(f);
	TAP_CHECK(strstr(buf, "OBJECT := { dev | tenant | peer | ep | monitor }"));
	TAP_CHECK(strstr(buf, "tenant add NAME cgroup PATH [ LIMITS ]"));
	TAP_CHECK(strstr(buf, "where  LIMITS :="));
	TAP_CHECK(strstr(buf, "peer add NAME addr IPV4 key FILE [ dev DEV ] [ path-of PEER ] [ port PORT ] [ PEER_ATTRS ]"));
	TAP_CHECK(strstr(buf, "key FILE: the secret both hosts hold"));
	TAP_CHECK(strstr(buf, "openssl rand -hex 32 > FILE"));
	TAP_CHECK(strstr(buf, "[ listeners { N | unlimited } ]"));
	TAP_CHECK(strstr(buf, "pinned a quarter of RAM, listeners 1024"));
	TAP_CHECK(strstr(buf, "peer set NAME [ PEER_ATTRS ] [ state { up | down } ]"));
	TAP_CHECK(strstr(buf, "where  PEER_ATTRS := [ pool MIN[:MAX] ] [ tx USEC ] [ rx USEC ] [ mult N ]"));
	TAP_CHECK(strstr(buf, "a tenant or a peer needs CAP_NET_ADMIN"));
	TAP_CHECK(strstr(buf, "ep [ show [ id ID ] [ tenant NAME ] ]"));
	free(buf);

	buf = NULL;
	f = open_memstream(&buf, &len);
	txa_usage(f, TXA_HELP_EP);
	fclose(f);
	TAP_CHECK(!strncmp(buf, "Usage: txrdma-admin ep [ show [ id ID ] [ tenant NAME ] ]\n", 58));
	TAP_CHECK(!strstr(buf, "LIMITS"));
	free(buf);

	buf = NULL;
	f = open_memstream(&buf, &len);
	txa_usage(f, TXA_HELP_PEER);
	fclose(f);
	TAP_CHECK(!strncmp(buf, "Usage: txrdma-admin peer [ show [ NAME ] ]\n", 43));
	TAP_CHECK(strstr(buf, "       txrdma-admin peer del NAME\n"));
	TAP_CHECK(strstr(buf, "PEER_ATTRS :="));
	TAP_CHECK(strstr(buf, "mode 600"));
	TAP_CHECK(strstr(buf, "path-of PEER: this peer is another path (address, device)"));
	TAP_CHECK(!strstr(buf, "LIMITS"));
	TAP_CHECK(!strstr(buf, "tenant"));
	free(buf);

	buf = NULL;
	f = open_memstream(&buf, &len);
	txa_usage(f, TXA_HELP_TENANT);
	fclose(f);
	TAP_CHECK(!strncmp(buf, "Usage: txrdma-admin tenant [ show [ NAME ] ]\n", 45));
	TAP_CHECK(strstr(buf, "tenant del NAME [ force ]"));
	TAP_CHECK(strstr(buf, "tenant exec NAME [ -- ] CMD [ ARGS ]"));
	TAP_CHECK(strstr(buf, "KiB..TiB"));
	TAP_CHECK(strstr(buf, "listeners { N | unlimited }"));
	TAP_CHECK(!strstr(buf, "key FILE"));
	TAP_CHECK(!strstr(buf, "monitor"));
	free(buf);
}

/* ---- peer key files (key.c) ----------------------------------------- */

static char keydir[64];

/* a file in keydir holding @len bytes of @text, mode @mode exactly */
static const char *key_file(const char *name, const char *text, size_t len,
			    mode_t mode)
{
	static char path[8][128];
	static unsigned int next;
	char *p = path[next++ % 8];
	int fd;

	if (!keydir[0]) {
		snprintf(keydir, sizeof(keydir), "/tmp/txa-key-XXXXXX");
		if (!mkdtemp(keydir))
			keydir[0] = '\0';
	}
	snprintf(p, sizeof(path[0]), "%s/%s", keydir, name);
	unlink(p);
	fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, text, len) != (ssize_t)len ||
	    fchmod(fd, mode))
		tap_diag("  cannot make %s", p);
	if (fd >= 0)
		close(fd);
	return p;
}

#define KEY_FILE(name, text, mode) key_file(name, text, sizeof(text) - 1, mode)

static const char hex32[] =
	"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";

/* the key is 0, 1, 2, ... @len - 1 */
static bool key_is_ramp(const struct txa_key *k, size_t len)
{
	size_t i;

	if (k->len != len)
		return false;
	for (i = 0; i < len; i++)
		if (k->bytes[i] != i)
			return false;
	return true;
}

static bool key_is_wiped(const struct txa_key *k)
{
	static const struct txa_key zero;

	return !memcmp(k, &zero, sizeof(zero));
}

/* load @path; 0/-1 and the reason in why[] */
static char why[TXA_KEY_WHY_MAX];

static int load(const char *path, struct txa_key *k)
{
	why[0] = '\0';
	return txa_key_load(path, k, why, sizeof(why));
}

static void test_key_decode(void)
{
	static const char spaced[] =
		" \t\r\n0A0b0C0d0E0f0A0b0C0d0E0f0A0b0C0d\r\n\n ";
	struct txa_key k;
	size_t where = 99;

	/* 16, 32, 64 bytes; either case; whitespace around */
	TAP_CHECK_INT(txa_key_decode(hex32, 32, &k, &where), TXA_KEY_OK);
	TAP_CHECK(key_is_ramp(&k, 16));
	TAP_CHECK_INT(txa_key_decode(hex32, 64, &k, &where), TXA_KEY_OK);
	TAP_CHECK(key_is_ramp(&k, 32));
	TAP_CHECK_INT(txa_key_decode(spaced, strlen(spaced), &k, &where),
		      TXA_KEY_OK);
	TAP_CHECK_INT(k.len, 16);
	TAP_CHECK(k.bytes[0] == 0x0a && k.bytes[1] == 0x0b && k.bytes[2] == 0x0c &&
		  k.bytes[15] == 0x0d);
	TAP_CHECK_INT(txa_key_decode("FFffFFffFFffFFffFFffFFffFFffFFff", 32, &k,
				     &where), TXA_KEY_OK);
	TAP_CHECK(k.len == 16 && k.bytes[0] == 0xff && k.bytes[15] == 0xff);

	/* refusals, and where */
	TAP_CHECK_INT(txa_key_decode("", 0, &k, &where), TXA_KEY_EMPTY);
	TAP_CHECK_INT(txa_key_decode(" \n\t", 3, &k, &where), TXA_KEY_EMPTY);
	TAP_CHECK_INT(txa_key_decode("  0x0102", 8, &k, &where), TXA_KEY_NOT_HEX);
	TAP_CHECK_INT(where, 3);
	TAP_CHECK_INT(txa_key_decode("0001 0203", 9, &k, &where), TXA_KEY_NOT_HEX);
	TAP_CHECK_INT(where, 4);	/* inside: not surrounding whitespace */
	TAP_CHECK_INT(txa_key_decode("00g1", 4, &k, &where), TXA_KEY_NOT_HEX);
	TAP_CHECK_INT(where, 2);
	TAP_CHECK_INT(txa_key_decode("00\0" "1", 4, &k, &where), TXA_KEY_NOT_HEX);
	TAP_CHECK_INT(where, 2);
	TAP_CHECK_INT(txa_key_decode(hex32, 33, &k, &where), TXA_KEY_ODD);
	TAP_CHECK_INT(where, 33);
	TAP_CHECK_INT(txa_key_decode(hex32, 30, &k, &where), TXA_KEY_LENGTH);
	TAP_CHECK_INT(where, 15);
	TAP_CHECK(key_is_wiped(&k));	/* nothing left of the last key */
}

static void test_key_files(void)
{
	char long_hex[2 * TXRDMA_PEER_KEY_MAX + 3], big[TXA_KEY_TEXT_MAX + 2];
	const char *path;
	struct txa_key k;
	char want[512];

	/* good: 16, 32 and 64 bytes, upper case, trailing newline */
	path = key_file("k16", hex32, 32, 0600);
	TAP_CHECK_INT(load(path, &k), 0);
	TAP_CHECK(key_is_ramp(&k, 16));
	TAP_CHECK_STR(why, "");
	path = KEY_FILE("k32", "000102030405060708090A0B0C0D0E0F"
			"101112131415161718191A1B1C1D1E1F\n", 0600);
	TAP_CHECK_INT(load(path, &k), 0);
	TAP_CHECK(key_is_ramp(&k, 32));
	snprintf(long_hex, sizeof(long_hex), "%s%s\r\n", hex32, hex32);
	path = key_file("k64", long_hex, strlen(long_hex), 0400);
	TAP_CHECK_INT(load(path, &k), 0);
	TAP_CHECK(k.len == 64 && k.bytes[0] == 0 && k.bytes[32] == 0 &&
		  k.bytes[63] == 0x1f);

	/* too short, too long, odd, not hex, empty */
	path = key_file("short", hex32, 30, 0600);
	TAP_CHECK_INT(load(path, &k), -1);
	snprintf(want, sizeof(want),
		 "key file %s holds 15 bytes: a key is 16 to 64 bytes (32 to 128 hex digits)",
		 path);
	TAP_CHECK_STR(why, want);
	TAP_CHECK(key_is_wiped(&k));
	snprintf(long_hex, sizeof(long_hex), "%s%s02", hex32, hex32);
	path = key_file("long", long_hex, strlen(long_hex), 0600);
	TAP_CHECK_INT(load(path, &k), -1);
	TAP_CHECK(strstr(why, "holds 65 bytes: a key is 16 to 64 bytes"));
	path = key_file("odd", hex32, 33, 0600);
	TAP_CHECK_INT(load(path, &k), -1);
	snprintf(want, sizeof(want),
		 "key file %s has an odd number of hex digits (33): two make a byte",
		 path);
	TAP_CHECK_STR(why, want);
	path = KEY_FILE("nothex", "0001020304050607080g0a0b0c0d0e0f\n", 0600);
	TAP_CHECK_INT(load(path, &k), -1);
	snprintf(want, sizeof(want),
		 "key file %s is not hex text (byte 20 is not a hex digit): a key is 32 to 128 hex digits, e.g. from: openssl rand -hex 32",
		 path);
	TAP_CHECK_STR(why, want);
	TAP_CHECK(!strstr(why, "0g"));
	/* a raw binary key: refused, and none of its bytes is shown */
	path = KEY_FILE("raw", "\x9c\xa7Q\x01\xfe\x80zz\x13\x37\xc0\xde\xba\xbe\xfa\xce", 0600);
	TAP_CHECK_INT(load(path, &k), -1);
	/* exactly this: the path and the position, none of its bytes */
	snprintf(want, sizeof(want),
		 "key file %s is not hex text (byte 1 is not a hex digit): a key is 32 to 128 hex digits, e.g. from: openssl rand -hex 32",
		 path);
	TAP_CHECK_STR(why, want);
	TAP_CHECK(!strchr(why, '\x9c') && !strchr(why, '\xfe'));
	path = KEY_FILE("empty", "", 0600);
	TAP_CHECK_INT(load(path, &k), -1);
	snprintf(want, sizeof(want),
		 "key file %s is empty: make a key with: openssl rand -hex 32", path);
	TAP_CHECK_STR(why, want);
	path = KEY_FILE("blank", " \n\n", 0600);
	TAP_CHECK_INT(load(path, &k), -1);
	TAP_CHECK(strstr(why, "is empty"));
	memset(big, ' ', sizeof(big));
	memcpy(big, hex32, 32);
	path = key_file("big", big, sizeof(big), 0600);
	TAP_CHECK_INT(load(path, &k), -1);
	TAP_CHECK(strstr(why, "is too long: a key is 32 to 128 hex digits"));
	path = key_file("fits", big, TXA_KEY_TEXT_MAX, 0600);
	TAP_CHECK_INT(load(path, &k), 0);	/* whitespace up to the limit */
	TAP_CHECK(key_is_ramp(&k, 16));

	/* accessible by group or others: refused unread, like ssh */
	path = key_file("g-r", hex32, 32, 0640);
	TAP_CHECK_INT(load(path, &k), -1);
	snprintf(want, sizeof(want),
		 "key file %s is accessible by others: chmod 600 %s", path, path);
	TAP_CHECK_STR(why, want);
	TAP_CHECK(key_is_wiped(&k));
	path = key_file("o-r", hex32, 32, 0604);
	TAP_CHECK_INT(load(path, &k), -1);
	TAP_CHECK(strstr(why, "is accessible by others: chmod 600"));
	path = key_file("g-w", hex32, 32, 0620);
	TAP_CHECK_INT(load(path, &k), -1);
	TAP_CHECK(strstr(why, "is accessible by others"));
	path = key_file("o-x", hex32, 32, 0601);
	TAP_CHECK_INT(load(path, &k), -1);
	TAP_CHECK(strstr(why, "is accessible by others"));
	path = key_file("bad-and-open", "xyz", 3, 0644);	/* mode first */
	TAP_CHECK_INT(load(path, &k), -1);
	TAP_CHECK(strstr(why, "is accessible by others"));

	/* missing, a directory */
	snprintf(want, sizeof(want), "%s/missing", keydir);
	TAP_CHECK_INT(load(want, &k), -1);
	TAP_CHECK(strstr(why, "cannot read key file /tmp/txa-key-") &&
		  strstr(why, "/missing: No such file or directory"));
	TAP_CHECK_INT(load(keydir, &k), -1);
	TAP_CHECK(strstr(why, ": Is a directory"));
	TAP_CHECK(key_is_wiped(&k));
}

/* txa_key_load("-") with @len bytes of @text on standard input */
static int load_stdin(const char *text, size_t len, struct txa_key *k)
{
	int saved = dup(STDIN_FILENO), fds[2], ret;

	if (saved < 0 || pipe(fds))
		return -2;
	if (write(fds[1], text, len) != (ssize_t)len)
		tap_diag("  short write to the pipe");
	close(fds[1]);
	dup2(fds[0], STDIN_FILENO);
	close(fds[0]);
	ret = load(TXA_KEY_STDIN, k);
	dup2(saved, STDIN_FILENO);
	close(saved);
	return ret;
}

static void test_key_stdin(void)
{
	struct txa_key k;
	int saved, fd, pty;

	TAP_CHECK_INT(load_stdin(hex32, 64, &k), 0);
	TAP_CHECK(key_is_ramp(&k, 32));
	TAP_CHECK_INT(load_stdin("000102030405060708090A0B0C0D0E0F\n", 33, &k), 0);
	TAP_CHECK(key_is_ramp(&k, 16));
	TAP_CHECK_INT(load_stdin(hex32, 31, &k), -1);
	TAP_CHECK_STR(why, "the key on standard input has an odd number of hex digits (31): two make a byte");
	TAP_CHECK_INT(load_stdin("", 0, &k), -1);
	TAP_CHECK_STR(why, "the key on standard input is empty: make a key with: openssl rand -hex 32");
	TAP_CHECK_INT(load_stdin(hex32, 16, &k), -1);
	TAP_CHECK(strstr(why, "the key on standard input holds 8 bytes"));
	TAP_CHECK_INT(load_stdin("secret passphrase", 17, &k), -1);
	TAP_CHECK(strstr(why, "is not hex text (byte 1 is not a hex digit)"));
	TAP_CHECK(!strstr(why, "secret") && !strstr(why, "passphrase"));

	/* a file on standard input: its mode is the shell's business */
	saved = dup(STDIN_FILENO);
	fd = open(key_file("stdin", hex32, 32, 0644), O_RDONLY | O_CLOEXEC);
	TAP_CHECK(saved >= 0 && fd >= 0);
	dup2(fd, STDIN_FILENO);
	TAP_CHECK_INT(load(TXA_KEY_STDIN, &k), 0);
	TAP_CHECK(key_is_ramp(&k, 16));
	dup2(saved, STDIN_FILENO);
	close(fd);

	/* a terminal would echo what is typed: refused */
	pty = posix_openpt(O_RDWR | O_NOCTTY);
	if (pty < 0 || grantpt(pty) || unlockpt(pty) ||
	    (fd = open(ptsname(pty), O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0) {
		tap_diag("no pseudo-terminal here: terminal case not checked");
	} else {
		dup2(fd, STDIN_FILENO);
		TAP_CHECK_INT(load(TXA_KEY_STDIN, &k), -1);
		TAP_CHECK(strstr(why, "key -: standard input is a terminal"));
		dup2(saved, STDIN_FILENO);
		close(fd);
	}
	if (pty >= 0)
		close(pty);
	close(saved);
}

static void key_cleanup(void)
{
	static const char *const names[] = {
		"k16", "k32", "k64", "short", "long", "odd", "nothex", "raw",
		"empty", "blank", "big", "fits", "g-r", "o-r", "g-w", "o-x",
		"bad-and-open", "stdin", NULL
	};
	char path[128];
	int i;

	if (!keydir[0])
		return;
	for (i = 0; names[i]; i++) {
		snprintf(path, sizeof(path), "%s/%s", keydir, names[i]);
		unlink(path);
	}
	if (rmdir(keydir))
		fprintf(stderr, "test_args: %s left behind\n", keydir);
}

static const struct tap_test tests[] = {
	TAP_TEST(test_matches, "args: prefix matching"),
	TAP_TEST(test_lookup, "args: keyword lookup, order and exact match"),
	TAP_TEST(test_onoff_u64, "args: on/off and number parsing"),
	TAP_TEST(test_dev_show, "args: dev show [NAME], abbreviations"),
	TAP_TEST(test_options, "args: -j/-p/--json/-json, unknown options"),
	TAP_TEST(test_help_version, "args: help topics and version"),
	TAP_TEST(test_dev_set, "args: dev set NAME enabled on|off poll-cpu CPU|any"),
	TAP_TEST(test_dev_name_length, "args: device name length limit"),
	TAP_TEST(test_monitor, "args: monitor [count N]"),
	TAP_TEST(test_unknown, "args: unknown object and command"),
	TAP_TEST(test_tenant_add, "args: tenant add, every limit, abbreviations"),
	TAP_TEST(test_tenant_add_errors, "args: tenant add usage errors (exit 2)"),
	TAP_TEST(test_tenant_set_del_show, "args: tenant set/del/show/help"),
	TAP_TEST(test_peer_add, "args: peer add, every attribute, abbreviations, range edges"),
	TAP_TEST(test_peer_add_errors, "args: peer add usage errors (exit 2), IPv6, ranges, pool"),
	TAP_TEST(test_peer_pool_parse, "args: pool MIN[:MAX] parsing"),
	TAP_TEST(test_ep_show, "args: ep show [id ID] [tenant NAME], usage errors"),
	TAP_TEST(test_peer_set_del_show, "args: peer set/del/show/help"),
	TAP_TEST(test_usage_text, "args: help text names tenant, peer, LIMITS and PEER_ATTRS"),
	TAP_TEST(test_key_decode, "key: hex of 16/32/64 bytes, either case, whitespace; refusals and where"),
	TAP_TEST(test_key_files, "key: files good and bad (length, odd, not hex, empty, mode, missing), no key bytes in messages"),
	TAP_TEST(test_key_stdin, "key: \"-\" reads standard input (pipe, file), refuses a terminal"),
};

int main(void)
{
	int ret = TAP_MAIN(tests);

	key_cleanup();
	free(errbuf);
	return ret;
}
