/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * args.h: command-line parsing of txrdma-admin, kept free of netlink so
 * that the unit tests can drive it.
 */
#ifndef TXA_ARGS_H
#define TXA_ARGS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "limits.h"

#define TXA_PROG	"txrdma-admin"

/* exit statuses */
#define TXA_EXIT_OK	0
#define TXA_EXIT_FAIL	1	/* the operation failed */
#define TXA_EXIT_USAGE	2	/* bad command line */

enum txa_cmd {
	TXA_CMD_NONE,
	TXA_CMD_HELP,		/* help_topic says which */
	TXA_CMD_VERSION,
	TXA_CMD_DEV_SHOW,	/* dev_name NULL: all devices */
	TXA_CMD_DEV_SET,
	TXA_CMD_MONITOR,
	TXA_CMD_TENANT_SHOW,	/* tenant.name NULL: all tenants */
	TXA_CMD_TENANT_ADD,
	TXA_CMD_TENANT_SET,
	TXA_CMD_TENANT_DEL,
};

enum txa_help_topic {
	TXA_HELP_ALL,
	TXA_HELP_DEV,
	TXA_HELP_MONITOR,
	TXA_HELP_TENANT,
};

/* tenant add/set/del/show NAME ... */
struct txa_tenant_args {
	const char *name;
	const char *cgroup;		/* add (and set, which the module refuses) */
	int prio;			/* enum txrdma_prio, -1 not given */
	unsigned int limits_set;	/* bit (1 << enum txa_limit): given */
	uint64_t limits[TXA_LIM_NR];	/* TXRDMA_UNLIMITED for "unlimited" */
	bool force;			/* del */
};

struct txa_args {
	bool json;
	bool pretty;
	enum txa_cmd cmd;
	enum txa_help_topic help_topic;
	const char *dev_name;
	int enabled;		/* dev set: -1 not given, else 0/1 */
	uint64_t count;		/* monitor: stop after this many, 0 = never */
	struct txa_tenant_args tenant;
};

/*
 * Parse @argv into @a.  Returns TXA_EXIT_OK, or TXA_EXIT_USAGE after
 * printing the reason and a usage hint to @err.
 */
int txa_parse_args(int argc, char **argv, struct txa_args *a, FILE *err);

/* iproute2 style: @arg is a non-empty prefix of @keyword. */
bool txa_matches(const char *arg, const char *keyword);

/*
 * First keyword in the NULL-terminated @keywords of which @arg is a
 * prefix, an exact match winning over a prefix; -1 if none.  The order
 * of @keywords settles ambiguous prefixes ("s" is "show", not "set").
 */
int txa_lookup(const char *arg, const char *const *keywords);

/* on/off, yes/no, true/false, 1/0; -1 for anything else */
int txa_parse_onoff(const char *arg);

/* decimal u64 without sign or trailing junk; 0 or -1 */
int txa_parse_u64(const char *arg, uint64_t *out);

void txa_usage(FILE *out, enum txa_help_topic topic);

#endif /* TXA_ARGS_H */
