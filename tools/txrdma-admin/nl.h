/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * nl.h: the generic netlink side of txrdma-admin: socket set-up, family
 * resolution, request/dump helpers and error reporting with extack.
 */
#ifndef TXA_NL_H
#define TXA_NL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <netlink/netlink.h>
#include <netlink/genl/genl.h>

#define TXA_EXTACK_MSG_MAX	256

/* What an NLMSG_ERROR (or an NLMSG_DONE of a dump) told us. */
struct txa_extack {
	int error;			/* errno, positive; 0 for none */
	char msg[TXA_EXTACK_MSG_MAX];	/* NLMSGERR_ATTR_MSG, "" if none */
	bool has_offs;
	uint32_t offs;			/* NLMSGERR_ATTR_OFFS */
	bool has_miss_type;
	uint32_t miss_type;		/* NLMSGERR_ATTR_MISS_TYPE */
};

struct txa_nl {
	struct nl_sock *sk;
	int family;
	const char *what;	/* "dev show": prefix of every message */
	FILE *err;		/* where failures are reported (stderr) */
	/* outcome of the last txa_nl_request() */
	int nlerr;		/* libnl error (positive NLE_*), 0 if none */
	struct txa_extack ext;	/* the kernel's error, ext.error 0 if none */
};

/*
 * Open a generic netlink socket with extended ACKs and resolve the txrdma
 * family.  On failure the reason is printed and -1 returned.
 */
int txa_nl_open(struct txa_nl *nl, const char *what);
void txa_nl_close(struct txa_nl *nl);

/* Join the "events" multicast group; prints the reason and -1 on error. */
int txa_nl_join_events(struct txa_nl *nl);

/* A new request for @cmd with NLM_F_* @flags; NULL (reported) on ENOMEM. */
struct nl_msg *txa_nl_msg(struct txa_nl *nl, uint8_t cmd, int flags);

/*
 * Called for each reply of our family.  Return NL_OK to go on, NL_STOP to
 * stop early, or a negative libnl error.
 */
typedef int (*txa_nl_reply_cb)(struct nlmsghdr *nlh, void *arg);

/*
 * Send @msg (consumed) and feed each reply to @cb until the ACK, the end
 * of the dump, or an error.  Returns 0 on success; -1 when the kernel
 * returned an error (nl->ext) or libnl failed (nl->nlerr).
 */
int txa_nl_request(struct txa_nl *nl, struct nl_msg *msg,
		   txa_nl_reply_cb cb, void *arg);

/*
 * Print the failure of the last request as
 *   txrdma-admin: <what>: <extack message> (<strerror>)
 * with @hint used for errors that carry no message of their own.
 */
void txa_nl_perror(const struct txa_nl *nl, const char *hint);

/*
 * Parse the error code and extack TLVs of an NLMSG_ERROR or NLMSG_DONE
 * message.  Pure: the unit tests feed it hand-made messages.  Returns 0,
 * or -1 if the message is too short to hold an error code.
 */
int txa_extack_parse(const struct nlmsghdr *nlh, struct txa_extack *ext);

/* Name of a TXRDMA_A_* attribute for messages ("dev_name"), or NULL. */
const char *txa_attr_name(unsigned int type);

#endif /* TXA_NL_H */
