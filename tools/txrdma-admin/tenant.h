/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * tenant.h: the "tenant" object: parsing of TXRDMA_A_TENANT_* replies,
 * printing, and the add/set/del/show commands.
 */
#ifndef TXA_TENANT_H
#define TXA_TENANT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/netlink.h>
#include <linux/txrdma.h>

#include "args.h"
#include "ep.h"
#include "json.h"
#include "limits.h"

/* which fields of struct txa_tenant the kernel sent */
enum {
	TXA_TEN_HAVE_NAME	= 1 << 0,
	TXA_TEN_HAVE_ID		= 1 << 1,
	TXA_TEN_HAVE_CGROUP	= 1 << 2,
	TXA_TEN_HAVE_PRIO	= 1 << 3,
	TXA_TEN_HAVE_TRAFFIC	= 1 << 4,
};

/* A tenant as a TENANT_GET reply describes it. */
struct txa_tenant {
	uint8_t cmd;			/* genl command of the message */
	unsigned int have;
	char name[TXRDMA_TENANT_NAME_MAX];
	uint32_t id;
	char *cgroup;			/* malloc'ed */
	uint8_t prio;
	/* per enum txa_limit; bit (1 << lim) of *_have: the kernel sent it */
	unsigned int limits_have, usage_have, refused_have;
	uint64_t limits[TXA_LIM_NR];
	uint64_t usage[TXA_LIM_NR];	/* the quotas: qps .. listeners */
	uint64_t refused[TXA_LIM_NR];	/* the quotas; bw/ops rate: throttled */
	struct txa_stats traffic;	/* its endpoints', past and present */
};

/*
 * Parse a txrdma genl message into @t (zeroed first).  Returns 0, -EINVAL
 * (attributes of the wrong size or type) or -ENOMEM.  Call
 * txa_tenant_free() afterwards in every case.
 */
int txa_tenant_parse(const struct nlmsghdr *nlh, struct txa_tenant *t);
void txa_tenant_free(struct txa_tenant *t);

/* tenant show output of one tenant */
void txa_tenant_print_plain(FILE *out, const struct txa_tenant *t);
void txa_tenant_print_json(struct json_writer *w, const struct txa_tenant *t);

struct txa_nl;
/* The commands on an open socket; output to @out, errors to nl->err. */
int txa_tenant_show(struct txa_nl *nl, const struct txa_args *a, FILE *out);
int txa_tenant_add(struct txa_nl *nl, const struct txa_args *a);
int txa_tenant_set(struct txa_nl *nl, const struct txa_args *a);
int txa_tenant_del(struct txa_nl *nl, const struct txa_args *a);

/* Open the socket, run the command of @a, close; return an exit status. */
int txa_cmd_tenant(const struct txa_args *a);

#endif /* TXA_TENANT_H */
