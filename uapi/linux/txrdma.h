/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * txrdma: the ABI shared by txrdma.ko, libtxrdma and txrdma-admin.
 *
 * Two interfaces:
 *  - the misc device /dev/txrdma (ioctls, later mmap of rings and buffers);
 *  - the generic netlink family "txrdma" (administration and events).
 *
 * Rules (see Documentation/design.rst): fixed-size types only, user
 * pointers as __u64, explicit padding named resv*, sizes pinned by
 * static asserts on both sides.  Unknown flags and non-zero reserved
 * fields are rejected with -EINVAL.  The ABI grows by new feature bits,
 * new flags and new commands, never by changing an existing field.
 */
#ifndef _UAPI_LINUX_TXRDMA_H
#define _UAPI_LINUX_TXRDMA_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define TXRDMA_ABI_VERSION	1
#define TXRDMA_DEVICE_NAME	"txrdma"	/* /dev/txrdma */

/* Feature bits reported by TXRDMA_IOC_PROBE in txrdma_probe.features. */
enum {
	/* generic netlink "dev" object: get/dump/set and add/del/port events */
	TXRDMA_FEAT_NL_DEV		= 1ULL << 0,
};

#define TXRDMA_FEAT_ALL		(TXRDMA_FEAT_NL_DEV)

/*
 * TXRDMA_IOC_PROBE: what this kernel module speaks.
 * In:  flags must be 0, every resv field must be 0.
 * Out: abi_version, features, ndevs (RDMA devices txrdma tracks now).
 */
struct txrdma_probe {
	__u32 abi_version;
	__u32 flags;
	__u64 features;
	__u32 ndevs;
	__u32 resv0;
	__u64 resv[4];
};

#define TXRDMA_IOC_MAGIC	0xB8
#define TXRDMA_IOC_PROBE	_IOWR(TXRDMA_IOC_MAGIC, 0x00, struct txrdma_probe)

/* ------------------------------------------------------------------ */
/* Generic netlink family "txrdma".                                    */

#define TXRDMA_GENL_NAME	"txrdma"
#define TXRDMA_GENL_VERSION	1
#define TXRDMA_GENL_MCGRP_EVENTS "events"

enum txrdma_cmd {
	TXRDMA_CMD_UNSPEC,
	TXRDMA_CMD_DEV_GET,		/* do (by NAME or INDEX) and dump */
	TXRDMA_CMD_DEV_SET,		/* CAP_NET_ADMIN: ENABLED */
	TXRDMA_CMD_DEV_ADD_NTF,		/* event: a device appeared */
	TXRDMA_CMD_DEV_DEL_NTF,		/* event: a device went away */
	TXRDMA_CMD_DEV_PORT_NTF,	/* event: a port changed state */
	TXRDMA_CMD_DEV_SET_NTF,		/* event: an admin changed a device */

	__TXRDMA_CMD_MAX,
	TXRDMA_CMD_MAX = __TXRDMA_CMD_MAX - 1
};

/* Port states, numerically equal to IB port states (enum ib_port_state). */
enum txrdma_port_state {
	TXRDMA_PORT_NOP		= 0,
	TXRDMA_PORT_DOWN	= 1,
	TXRDMA_PORT_INIT	= 2,
	TXRDMA_PORT_ARMED	= 3,
	TXRDMA_PORT_ACTIVE	= 4,
	TXRDMA_PORT_ACTIVE_DEFER = 5,
};

enum txrdma_attr {
	TXRDMA_A_UNSPEC,
	TXRDMA_A_PAD,
	TXRDMA_A_DEV_INDEX,		/* u32: ib_device index */
	TXRDMA_A_DEV_NAME,		/* string, < 64 bytes */
	TXRDMA_A_DEV_NODE_GUID,		/* u64, host byte order */
	TXRDMA_A_DEV_MAX_QP,		/* u32 */
	TXRDMA_A_DEV_MAX_MR_SIZE,	/* u64 */
	TXRDMA_A_DEV_ENABLED,		/* u8: 0/1, txrdma may use it */
	TXRDMA_A_DEV_PORTS,		/* nest of TXRDMA_A_PORT */
	TXRDMA_A_PORT,			/* nest of TXRDMA_A_PORT_* */
	TXRDMA_A_PORT_NUM,		/* u32 */
	TXRDMA_A_PORT_STATE,		/* u8: enum txrdma_port_state */
	TXRDMA_A_PORT_OLD_STATE,	/* u8: in DEV_PORT_NTF only */
	TXRDMA_A_PORT_ACTIVE_MTU,	/* u32: bytes */
	TXRDMA_A_PORT_NETDEV,		/* string: bound net device, if any */
	TXRDMA_A_EVENT_TIME_NS,		/* u64: CLOCK_REALTIME of the event */
	TXRDMA_A_EVENT_SEQ,		/* u64: per-module event counter */

	__TXRDMA_A_MAX,
	TXRDMA_A_MAX = __TXRDMA_A_MAX - 1
};

#define TXRDMA_DEV_NAME_MAX	64	/* IB_DEVICE_NAME_MAX, with NUL */

#endif /* _UAPI_LINUX_TXRDMA_H */
