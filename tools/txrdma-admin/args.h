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
	TXA_CMD_TENANT_EXEC,	/* tenant.name, tenant.argv */
	TXA_CMD_PEER_SHOW,	/* peer.name NULL: all peers */
	TXA_CMD_PEER_ADD,
	TXA_CMD_PEER_SET,
	TXA_CMD_PEER_DEL,
	TXA_CMD_EP_SHOW,	/* ep: filters of struct txa_ep_args */
};

enum txa_help_topic {
	TXA_HELP_ALL,
	TXA_HELP_DEV,
	TXA_HELP_MONITOR,
	TXA_HELP_TENANT,
	TXA_HELP_PEER,
	TXA_HELP_EP,
};

/* tenant add/set/del/show NAME ... */
struct txa_tenant_args {
	const char *name;
	const char *cgroup;		/* add (and set, which the module refuses) */
	int prio;			/* enum txrdma_prio, -1 not given */
	unsigned int limits_set;	/* bit (1 << enum txa_limit): given */
	uint64_t limits[TXA_LIM_NR];	/* TXRDMA_UNLIMITED for "unlimited" */
	bool force;			/* del */
	char **argv;			/* exec: the command, NULL-terminated */
};

/* what peer add/set were given: bit (1 << enum txa_peer_arg) of given */
enum txa_peer_arg {
	TXA_PARG_ADDR,
	TXA_PARG_DEV,
	TXA_PARG_PORT,
	TXA_PARG_POOL_MIN,
	TXA_PARG_POOL_MAX,
	TXA_PARG_TX,
	TXA_PARG_RX,
	TXA_PARG_MULT,
	TXA_PARG_ADMIN_UP,
	TXA_PARG_KEY,
	TXA_PARG_PATH_OF,
};

/* peer add/set/del/show NAME ... */
struct txa_peer_args {
	const char *name;
	unsigned int given;		/* bit (1 << enum txa_peer_arg) */
	uint8_t addr[4];		/* add: IPv4, network order */
	const char *dev;		/* add */
	uint16_t port;			/* add: 1..65535 */
	uint32_t pool_min, pool_max;
	uint32_t tx_us, rx_us;
	uint8_t mult;			/* 1..255 */
	bool admin_up;			/* set: state up|down */
	const char *key_file;		/* add: path of the key, "-" stdin */
	const char *path_of;		/* add: the peer this is a path of */
};

/* peer add without "key FILE": said before anything is sent */
#define TXA_PEER_NEEDS_KEY \
	"peer add needs key FILE: the hex key both hosts hold (openssl rand -hex 32 > FILE)"

/* ep show [ id ID ] [ tenant NAME ] */
struct txa_ep_args {
	bool has_id;
	uint32_t id;			/* 1..2^32-1 */
	const char *tenant;		/* NULL: every tenant's */
};

/* dev set: poll-cpu not given */
#define TXA_POLL_CPU_UNSET	(-2)

struct txa_args {
	bool json;
	bool pretty;
	enum txa_cmd cmd;
	enum txa_help_topic help_topic;
	const char *dev_name;
	int enabled;		/* dev set: -1 not given, else 0/1 */
	int poll_cpu;		/* dev set: TXA_POLL_CPU_UNSET, -1 any, CPU */
	uint64_t count;		/* monitor: stop after this many, 0 = never */
	struct txa_tenant_args tenant;
	struct txa_peer_args peer;
	struct txa_ep_args ep;
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

/* txa_parse_u64() within [@min, @max]; 0 or -1 (*@out untouched) */
int txa_parse_range(const char *arg, uint64_t min, uint64_t max,
		    uint64_t *out);

/*
 * MIN or MIN:MAX, each a decimal u32 (pool of peer add/set).  *has_max
 * says whether MAX was given.  0, or -1 for garbage, a sign, an empty
 * part or a value above 2^32-1; MIN > MAX is the caller's to refuse.
 */
int txa_parse_pool(const char *arg, uint32_t *min, uint32_t *max,
		   bool *has_max);

void txa_usage(FILE *out, enum txa_help_topic topic);

#endif /* TXA_ARGS_H */
