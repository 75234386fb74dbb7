/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * show.h: "OBJECT show": collect the objects of a get or dump reply and
 * print them as plain blocks or one JSON array, for every object kind
 * whose parsed struct holds the message's genl command in a uint8_t.
 */
#ifndef TXA_SHOW_H
#define TXA_SHOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "json.h"
#include "nl.h"

struct txa_show_ops {
	uint8_t cmd;		/* the command of a reply that carries one */
	size_t size;		/* of one parsed object */
	size_t cmd_off;		/* offset of its uint8_t genl command */
	int (*parse)(const struct nlmsghdr *nlh, void *obj);
	void (*free)(void *obj);
	void (*print_plain)(FILE *out, const void *obj);
	void (*print_json)(struct json_writer *w, const void *obj);
};

/* what txa_show() did, for the caller's exit status and messages */
enum txa_show_result {
	TXA_SHOW_OK,
	TXA_SHOW_MALFORMED,	/* printed what parsed; said so on nl->err */
	TXA_SHOW_REQUEST_FAILED,	/* nothing printed; the caller reports */
};

enum txa_show_result txa_show(struct txa_nl *nl, struct nl_msg *msg,
			      const struct txa_show_ops *ops, bool json,
			      bool pretty, FILE *out);

#endif /* TXA_SHOW_H */
