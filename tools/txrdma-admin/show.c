// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * show.c: collect the objects of a get or dump reply, then print them.
 * Collecting first keeps a dump's JSON a single well-formed array even
 * when a reply in the middle cannot be parsed (it is skipped and
 * reported once).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/errno.h>

#include "args.h"
#include "show.h"
#include "vec.h"

struct show_list {
	const struct txa_show_ops *ops;
	unsigned char *v;
	unsigned int n, cap;
	bool bad;		/* a reply could not be parsed */
};

static int collect(struct nlmsghdr *nlh, void *arg)
{
	struct show_list *list = arg;
	const struct txa_show_ops *ops = list->ops;
	unsigned char *obj, *v;
	int ret;

	obj = calloc(1, ops->size);
	if (!obj)
		return -NLE_NOMEM;
	ret = ops->parse(nlh, obj);
	if (ret || obj[ops->cmd_off] != ops->cmd) {
		ops->free(obj);
		free(obj);
		if (ret == -ENOMEM)
			return -NLE_NOMEM;
		if (ret)
			list->bad = true;
		return NL_OK;
	}
	v = txa_vec_room(list->v, list->n, &list->cap, ops->size);
	if (!v) {
		ops->free(obj);
		free(obj);
		return -NLE_NOMEM;
	}
	list->v = v;
	memcpy(list->v + (size_t)list->n++ * ops->size, obj, ops->size);
	free(obj);
	return NL_OK;
}

/**
 * txa_show() - send a get/dump request, print what comes back
 * @nl: the connection (nl->what names the command in messages)
 * @msg: the request, consumed
 * @ops: the object kind
 * @json: print one JSON array instead of plain blocks
 * @pretty: indent the JSON
 * @out: where to print
 *
 * Return: what happened; on TXA_SHOW_REQUEST_FAILED the caller reports
 * the kernel's error its own way.
 */
enum txa_show_result txa_show(struct txa_nl *nl, struct nl_msg *msg,
			      const struct txa_show_ops *ops, bool json,
			      bool pretty, FILE *out)
{
	struct show_list list = { .ops = ops };
	enum txa_show_result ret = TXA_SHOW_REQUEST_FAILED;
	struct json_writer w;
	unsigned int i;

	if (txa_nl_request(nl, msg, collect, &list))
		goto out_free;
	if (list.bad)
		fprintf(nl->err, TXA_PROG ": %s: skipped a malformed reply from the kernel\n",
			nl->what);
	if (json) {
		json_init(&w, out, pretty);
		json_arr_start(&w);
		for (i = 0; i < list.n; i++)
			ops->print_json(&w, list.v + (size_t)i * ops->size);
		json_arr_end(&w);
		json_finish(&w);
	} else {
		for (i = 0; i < list.n; i++)
			ops->print_plain(out, list.v + (size_t)i * ops->size);
	}
	ret = list.bad ? TXA_SHOW_MALFORMED : TXA_SHOW_OK;

out_free:
	for (i = 0; i < list.n; i++)
		ops->free(list.v + (size_t)i * ops->size);
	free(list.v);
	return ret;
}
