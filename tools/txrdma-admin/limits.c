// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* limits.c: tenant limit values and priorities, see limits.h. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <linux/txrdma.h>

#include "args.h"
#include "limits.h"

static const char *const limit_keys[TXA_LIM_NR] = {
	[TXA_LIM_QPS]		= "qps",
	[TXA_LIM_ENDPOINTS]	= "endpoints",
	[TXA_LIM_PINNED]	= "pinned_bytes",
	[TXA_LIM_LISTENERS]	= "listeners",
	[TXA_LIM_BW_RATE]	= "bw_rate",
	[TXA_LIM_BW_BURST]	= "bw_burst",
	[TXA_LIM_OPS_RATE]	= "ops_rate",
	[TXA_LIM_OPS_BURST]	= "ops_burst",
};

static const int limit_attrs[TXA_LIM_NR] = {
	[TXA_LIM_QPS]		= TXRDMA_A_LIMIT_QPS,
	[TXA_LIM_ENDPOINTS]	= TXRDMA_A_LIMIT_ENDPOINTS,
	[TXA_LIM_PINNED]	= TXRDMA_A_LIMIT_PINNED_BYTES,
	[TXA_LIM_LISTENERS]	= TXRDMA_A_LIMIT_LISTENERS,
	[TXA_LIM_BW_RATE]	= TXRDMA_A_LIMIT_BW_RATE,
	[TXA_LIM_BW_BURST]	= TXRDMA_A_LIMIT_BW_BURST,
	[TXA_LIM_OPS_RATE]	= TXRDMA_A_LIMIT_OPS_RATE,
	[TXA_LIM_OPS_BURST]	= TXRDMA_A_LIMIT_OPS_BURST,
};

_Static_assert(TXA_LIM_NR <= 32, "a bit of an unsigned int per limit");

const char *txa_limit_key(enum txa_limit lim)
{
	return (unsigned int)lim < TXA_LIM_NR ? limit_keys[lim] : NULL;
}

int txa_limit_attr(enum txa_limit lim)
{
	return (unsigned int)lim < TXA_LIM_NR ? limit_attrs[lim] : 0;
}

int txa_limit_of_attr(int attr)
{
	int i;

	for (i = 0; i < TXA_LIM_NR; i++)
		if (limit_attrs[i] == attr)
			return i;
	return -1;
}

bool txa_limit_is_quota(enum txa_limit lim)
{
	return lim <= TXA_LIM_LISTENERS;
}

bool txa_limit_is_bytes(enum txa_limit lim)
{
	return lim == TXA_LIM_PINNED || lim == TXA_LIM_BW_RATE ||
	       lim == TXA_LIM_BW_BURST;
}

int txa_parse_size(const char *arg, uint64_t *out)
{
	unsigned long long v;
	unsigned int shift;
	char *end;

	if (!isdigit((unsigned char)arg[0]))
		return -1;
	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno)
		return -1;
	switch (*end) {
	case '\0':
		*out = v;
		return 0;
	case 'k': case 'K':
		shift = 10;
		break;
	case 'm': case 'M':
		shift = 20;
		break;
	case 'g': case 'G':
		shift = 30;
		break;
	case 't': case 'T':
		shift = 40;
		break;
	default:
		return -1;
	}
	end++;
	if (*end && strcasecmp(end, "ib"))
		return -1;
	if (v > (UINT64_MAX >> shift))
		return -1;
	*out = (uint64_t)v << shift;
	return 0;
}

int txa_parse_limit(const char *arg, bool bytes, uint64_t *out)
{
	if (txa_matches(arg, "unlimited")) {
		*out = TXRDMA_UNLIMITED;
		return 0;
	}
	return bytes ? txa_parse_size(arg, out) : txa_parse_u64(arg, out);
}

/* one number of RATE[:BURST]: [s, s + len) */
static int parse_part(const char *s, size_t len, bool bytes, uint64_t *out)
{
	char buf[64];

	if (!len || len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	return bytes ? txa_parse_size(buf, out) : txa_parse_u64(buf, out);
}

int txa_parse_rate(const char *arg, bool bytes, uint64_t *rate,
		   uint64_t *burst, bool *has_burst)
{
	const char *colon = strchr(arg, ':');
	size_t rlen = colon ? (size_t)(colon - arg) : strlen(arg);

	if (txa_matches(arg, "unlimited")) {
		*rate = TXRDMA_UNLIMITED;
		*burst = TXRDMA_UNLIMITED;
		*has_burst = true;
		return 0;
	}
	/* "100M/s" as the plain output prints it */
	if (rlen > 2 && !strncmp(arg + rlen - 2, "/s", 2))
		rlen -= 2;
	if (parse_part(arg, rlen, bytes, rate))
		return -1;
	*has_burst = false;
	if (!colon)
		return 0;
	if (parse_part(colon + 1, strlen(colon + 1), bytes, burst))
		return -1;
	*has_burst = true;
	return 0;
}

const char *txa_fmt_limit(uint64_t v, bool bytes, char *buf, size_t len)
{
	static const char suffix[] = "KMGT";
	int i;

	if (v == TXRDMA_UNLIMITED) {
		snprintf(buf, len, "unlimited");
		return buf;
	}
	if (bytes && v) {
		for (i = 3; i >= 0; i--) {
			unsigned int shift = 10 * (unsigned int)(i + 1);

			if (!(v & ((1ULL << shift) - 1))) {
				snprintf(buf, len, "%llu%c",
					 (unsigned long long)(v >> shift),
					 suffix[i]);
				return buf;
			}
		}
	}
	snprintf(buf, len, "%llu", (unsigned long long)v);
	return buf;
}

static const char *const prio_names[] = {
	[TXRDMA_PRIO_CRITICAL]	= "critical",
	[TXRDMA_PRIO_NORMAL]	= "normal",
	[TXRDMA_PRIO_BULK]	= "bulk",
};

_Static_assert(sizeof(prio_names) / sizeof(prio_names[0]) ==
	       __TXRDMA_PRIO_MAX, "a name for every priority");

int txa_parse_prio(const char *arg)
{
	static const char *const words[] = { "critical", "normal", "bulk",
					     NULL };

	return txa_lookup(arg, words);
}

const char *txa_prio_name(unsigned int prio)
{
	if (prio < sizeof(prio_names) / sizeof(prio_names[0]))
		return prio_names[prio];
	return NULL;
}

const char *txa_prio_str(unsigned int prio, char *buf, size_t len)
{
	const char *name = txa_prio_name(prio);

	if (name)
		return name;
	snprintf(buf, len, "unknown(%u)", prio);
	return buf;
}
