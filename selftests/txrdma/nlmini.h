/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A raw generic netlink client for the txrdma selftests.  Raw, not
 * libnl, because the tests must be able to send what a well-behaved
 * library never would: wrong types, oversized values, unknown
 * attributes, reserved header bits.
 */
#ifndef _TXRDMA_NLMINI_H
#define _TXRDMA_NLMINI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#define NLMINI_BUF	65536

struct nlmini {
	int fd;
	uint16_t family;
	uint32_t mcgrp_events;
	uint32_t seq;
	char extack[256];	/* NLMSGERR_ATTR_MSG of the last error */
	uint32_t extack_off;	/* NLMSGERR_ATTR_OFFS, or 0 */
};

/* A message being built: header, genl header, attributes. */
struct nlmini_msg {
	union {
		struct nlmsghdr nlh;
		char buf[8192];
	};
};

int nlmini_open(struct nlmini *nl);
void nlmini_close(struct nlmini *nl);
void nlmini_msg_init(struct nlmini *nl, struct nlmini_msg *m, uint8_t cmd,
		     uint16_t flags);
void nlmini_put(struct nlmini_msg *m, uint16_t type, const void *data,
		size_t len);
void nlmini_put_u8(struct nlmini_msg *m, uint16_t type, uint8_t v);
void nlmini_put_u32(struct nlmini_msg *m, uint16_t type, uint32_t v);
void nlmini_put_str(struct nlmini_msg *m, uint16_t type, const char *s);
struct nlattr *nlmini_nest_start(struct nlmini_msg *m, uint16_t type);
void nlmini_nest_end(struct nlmini_msg *m, struct nlattr *nest);

/*
 * Send @m and read until the ack or the end of a dump.  Each data
 * message is passed to @cb (may be NULL).  Returns 0 or -errno from the
 * kernel's ack; nl->extack holds the kernel's message, if any.
 */
typedef int (*nlmini_cb)(const struct nlmsghdr *nlh, void *arg);
int nlmini_talk(struct nlmini *nl, struct nlmini_msg *m, nlmini_cb cb,
		void *arg);

/* Receive one multicast message within @timeout_ms; 0, -ETIMEDOUT, ... */
int nlmini_recv_event(struct nlmini *nl, void *buf, size_t len,
		      int timeout_ms);
int nlmini_join_events(struct nlmini *nl);

/* Attribute table of a genl message (indexes up to @max). */
void nlmini_parse(const struct nlmsghdr *nlh, struct nlattr **tb, int max);
void nlmini_parse_nested(const struct nlattr *nest, struct nlattr **tb,
			 int max);

static inline void *nlmini_data(const struct nlattr *a)
{
	return (char *)a + NLA_HDRLEN;
}

static inline int nlmini_len(const struct nlattr *a)
{
	return a->nla_len - NLA_HDRLEN;
}

#endif
