/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * limits.h: parsing and printing of tenant limits (sizes, rates, counts,
 * "unlimited") and priorities.  Pure: no netlink, so the unit tests can
 * drive it.
 */
#ifndef TXA_LIMITS_H
#define TXA_LIMITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The limits in the order the module sends them: the countable
 * resources (quotas), then the two token buckets.  The attributes are
 * not consecutive (TXRDMA_A_LIMIT_LISTENERS came later): map an index to
 * its attribute with txa_limit_attr() and back with txa_limit_of_attr().
 */
enum txa_limit {
	TXA_LIM_QPS,
	TXA_LIM_ENDPOINTS,
	TXA_LIM_PINNED,
	TXA_LIM_LISTENERS,
	TXA_LIM_BW_RATE,
	TXA_LIM_BW_BURST,
	TXA_LIM_OPS_RATE,
	TXA_LIM_OPS_BURST,
	TXA_LIM_NR
};

/* "qps 0/unlimited" etc.: "unlimited" or 20 digits, + suffix, + NUL */
#define TXA_LIMIT_STRLEN	32
/* "unknown(255)" + NUL */
#define TXA_PRIO_STRLEN		16

/* JSON key of a limit: "qps", "pinned_bytes", "bw_rate", ... */
const char *txa_limit_key(enum txa_limit lim);
/* its TXRDMA_A_LIMIT_* attribute, 0 for none */
int txa_limit_attr(enum txa_limit lim);
/* the limit of a TXRDMA_A_LIMIT_* attribute, -1 for none */
int txa_limit_of_attr(int attr);
/* true for the quotas: the limits with a usage (qps .. listeners) */
bool txa_limit_is_quota(enum txa_limit lim);
/* true for the limits counted in bytes (pinned, bw rate and burst) */
bool txa_limit_is_bytes(enum txa_limit lim);

/*
 * A byte count: decimal digits and an optional suffix K, M, G or T
 * (powers of 1024, either case), also written KiB, MiB, GiB, TiB.  No
 * sign, no space, no overflow.  0 or -1.
 */
int txa_parse_size(const char *arg, uint64_t *out);

/*
 * A limit value: "unlimited" (or a prefix of it) is TXRDMA_UNLIMITED,
 * else a size (@bytes) or a plain decimal count.  0 or -1.
 */
int txa_parse_limit(const char *arg, bool bytes, uint64_t *out);

/*
 * RATE[:BURST] or "unlimited".  RATE may end in "/s".  *has_burst says
 * whether a burst was given; "unlimited" sets both to TXRDMA_UNLIMITED
 * and *has_burst.  Rates and bursts of 0 are passed on: the module
 * refuses them.  0 or -1.
 */
int txa_parse_rate(const char *arg, bool bytes, uint64_t *rate,
		   uint64_t *burst, bool *has_burst);

/*
 * "unlimited" for TXRDMA_UNLIMITED; bytes with the largest suffix
 * (K, M, G, T) that divides them exactly, else plain; counts plain.
 * txa_parse_limit() reads every output back to the same value.
 */
const char *txa_fmt_limit(uint64_t v, bool bytes, char *buf, size_t len);

/* critical/normal/bulk as a prefix; -1 for anything else */
int txa_parse_prio(const char *arg);
/* Name of a known enum txrdma_prio value, or NULL. */
const char *txa_prio_name(unsigned int prio);
/* its name, or "unknown(<n>)" */
const char *txa_prio_str(unsigned int prio, char *buf, size_t len);

#endif /* TXA_LIMITS_H */
