/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * dev.h: the "dev" object: parsing of TXRDMA_A_DEV_* / TXRDMA_A_PORT_*
 * attributes (replies and events alike), printing, and the commands.
 */
#ifndef TXA_DEV_H
#define TXA_DEV_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/netlink.h>
#include <linux/txrdma.h>

#include "args.h"
#include "json.h"

#define TXA_NETDEV_MAX	64

/* which fields of struct txa_port / struct txa_dev the kernel sent */
enum {
	TXA_HAVE_NUM		= 1 << 0,
	TXA_HAVE_STATE		= 1 << 1,
	TXA_HAVE_OLD_STATE	= 1 << 2,
	TXA_HAVE_MTU		= 1 << 3,
	TXA_HAVE_NETDEV		= 1 << 4,
};

enum {
	TXA_HAVE_INDEX		= 1 << 0,
	TXA_HAVE_NAME		= 1 << 1,
	TXA_HAVE_GUID		= 1 << 2,
	TXA_HAVE_MAX_QP		= 1 << 3,
	TXA_HAVE_MAX_MR		= 1 << 4,
	TXA_HAVE_ENABLED	= 1 << 5,
	TXA_HAVE_PORTS		= 1 << 6,
	TXA_HAVE_TIME		= 1 << 7,
	TXA_HAVE_SEQ		= 1 << 8,
	TXA_HAVE_PORT		= 1 << 9,	/* top-level port attrs */
	TXA_HAVE_MRS		= 1 << 10,
	TXA_HAVE_CAN_REG	= 1 << 11,
	TXA_HAVE_POLLER		= 1 << 12,
};

/* the device's poller thread (TXRDMA_A_DEV_POLLER) */
struct txa_poller {
	int32_t cpu;		/* -1: the device's NUMA node (any CPU) */
	uint32_t pid;
	uint32_t rings;
	uint64_t passes, sqes, sleeps;
};

struct txa_port {
	unsigned int have;
	uint32_t num;
	uint8_t state;
	uint8_t old_state;
	uint32_t active_mtu;
	char netdev[TXA_NETDEV_MAX];
};

/* A device as a DEV_GET reply or an event describes it. */
struct txa_dev {
	uint8_t cmd;		/* genl command of the message */
	unsigned int have;
	uint32_t index;
	char name[TXRDMA_DEV_NAME_MAX];
	uint64_t node_guid;
	uint32_t max_qp;
	uint64_t max_mr_size;
	bool enabled;
	uint32_t mrs;		/* region registrations on the device */
	bool can_register;	/* the module can register memory on it */
	struct txa_poller poller;
	struct txa_port *ports;	/* from TXRDMA_A_DEV_PORTS */
	unsigned int nports;
	struct txa_port port;	/* DEV_PORT_NTF: port attrs at top level */
	uint64_t time_ns;
	uint64_t seq;
};

/*
 * Parse a txrdma genl message into @dev (zeroed first).  Missing
 * attributes are left out of dev->have; attributes of the wrong size make
 * the message invalid.  Returns 0, -EINVAL or -ENOMEM.  Call
 * txa_dev_free() afterwards in every case.
 */
int txa_dev_parse(const struct nlmsghdr *nlh, struct txa_dev *dev);
void txa_dev_free(struct txa_dev *dev);

/* dev show output of one device */
void txa_dev_print_plain(FILE *out, const struct txa_dev *dev);
void txa_dev_print_json(struct json_writer *w, const struct txa_dev *dev);

/* the device attributes (index onwards) as " key value" pairs */
void txa_dev_print_attrs_plain(FILE *out, const struct txa_dev *dev);
void txa_dev_print_attrs_json(struct json_writer *w, const struct txa_dev *dev);
void txa_port_print_plain(FILE *out, const struct txa_port *port);
void txa_port_print_json(struct json_writer *w, const struct txa_port *port);

struct txa_nl;
/* The commands on an open socket; output to @out, errors to nl->err. */
int txa_dev_show(struct txa_nl *nl, const struct txa_args *a, FILE *out);
int txa_dev_set(struct txa_nl *nl, const struct txa_args *a);

/* The commands: open the socket, run, close; return an exit status. */
int txa_cmd_dev_show(const struct txa_args *a);
int txa_cmd_dev_set(const struct txa_args *a);

#endif /* TXA_DEV_H */
