// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * txrdma-admin: administer the txrdma kernel module over generic netlink.
 *
 *	txrdma-admin [-j] [-p] dev show [NAME]
 *	txrdma-admin dev set NAME enabled on|off
 *	txrdma-admin [-j] monitor [count N]
 *	txrdma-admin [-j] [-p] tenant show [NAME]
 *	txrdma-admin tenant { add | set | del } NAME ...
 *	txrdma-admin tenant exec NAME [--] CMD [ARGS]
 *	txrdma-admin [-j] [-p] peer show [NAME]
 *	txrdma-admin peer { add | set | del } NAME ...
 *	txrdma-admin [-j] [-p] ep show [id ID] [tenant NAME]
 */
#include <stdio.h>
#include <string.h>
#include <errno.h>

#include <linux/txrdma.h>

#include "args.h"
#include "dev.h"
#include "ep.h"
#include "exec.h"
#include "monitor.h"
#include "peer.h"
#include "tenant.h"

#ifndef TXA_VERSION
#define TXA_VERSION	"0.1.0"
#endif

static int finish_output(int ret)
{
	/* a full disk or a closed pipe must not look like success */
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, TXA_PROG ": write error: %s\n",
			strerror(errno));
		return TXA_EXIT_FAIL;
	}
	return ret;
}

int main(int argc, char **argv)
{
	struct txa_args a;
	int ret;

	ret = txa_parse_args(argc, argv, &a, stderr);
	if (ret)
		return ret;

	switch (a.cmd) {
	case TXA_CMD_HELP:
		txa_usage(stdout, a.help_topic);
		ret = TXA_EXIT_OK;
		break;
	case TXA_CMD_VERSION:
		printf(TXA_PROG " %s (txrdma ABI %d, generic netlink family \"%s\" version %d)\n",
		       TXA_VERSION, TXRDMA_ABI_VERSION, TXRDMA_GENL_NAME,
		       TXRDMA_GENL_VERSION);
		ret = TXA_EXIT_OK;
		break;
	case TXA_CMD_DEV_SHOW:
		ret = txa_cmd_dev_show(&a);
		break;
	case TXA_CMD_DEV_SET:
		ret = txa_cmd_dev_set(&a);
		break;
	case TXA_CMD_MONITOR:
		ret = txa_cmd_monitor(&a);
		break;
	case TXA_CMD_TENANT_SHOW:
	case TXA_CMD_TENANT_ADD:
	case TXA_CMD_TENANT_SET:
	case TXA_CMD_TENANT_DEL:
		ret = txa_cmd_tenant(&a);
		break;
	case TXA_CMD_TENANT_EXEC:
		ret = txa_cmd_tenant_exec(&a);
		break;
	case TXA_CMD_PEER_SHOW:
	case TXA_CMD_PEER_ADD:
	case TXA_CMD_PEER_SET:
	case TXA_CMD_PEER_DEL:
		ret = txa_cmd_peer(&a);
		break;
	case TXA_CMD_EP_SHOW:
		ret = txa_cmd_ep(&a);
		break;
	default:
		txa_usage(stderr, TXA_HELP_ALL);
		ret = TXA_EXIT_USAGE;
		break;
	}
	return finish_output(ret);
}
