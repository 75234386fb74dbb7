// SPDX-License-Identifier: GPL-2.0-only
/*
 * The hostile tenant's ioctls: every TXRDMA_IOC_* (and unknown ones)
 * with a valid argument, one with a field mutated, random bytes, or a
 * pointer that is not one (see hostile.c); and the region calls.
 */
#define _GNU_SOURCE
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "hostile.h"

/* ---- ioctls ----------------------------------------------------------- */

struct cmdspec {
	unsigned long cmd;
	const char *name;
	unsigned int size;
	bool blocks;
};

static const struct cmdspec cmds[] = {
	{ TXRDMA_IOC_PROBE, "PROBE", sizeof(struct txrdma_probe), false },
	{ TXRDMA_IOC_TENANT_INFO, "TENANT_INFO", sizeof(struct txrdma_tenant_info), false },
	{ TXRDMA_IOC_REGION_CREATE, "REGION_CREATE", sizeof(struct txrdma_region_create), false },
	{ TXRDMA_IOC_REGION_REG_USER, "REGION_REG_USER", sizeof(struct txrdma_region_reg_user), false },
	{ TXRDMA_IOC_REGION_INFO, "REGION_INFO", sizeof(struct txrdma_region_info), false },
	{ TXRDMA_IOC_REGION_DESTROY, "REGION_DESTROY", sizeof(struct txrdma_region_info), false },
	{ TXRDMA_IOC_EP_CREATE, "EP_CREATE", sizeof(struct txrdma_ep_create), false },
	{ TXRDMA_IOC_EP_INFO, "EP_INFO", sizeof(struct txrdma_ep_info), false },
	{ TXRDMA_IOC_EP_DESTROY, "EP_DESTROY", sizeof(struct txrdma_ep_info), false },
	{ TXRDMA_IOC_RING_SETUP, "RING_SETUP", sizeof(struct txrdma_ring_setup), false },
	{ TXRDMA_IOC_RING_ENTER, "RING_ENTER", 0, false },
	{ TXRDMA_IOC_EP_LISTEN, "EP_LISTEN", sizeof(struct txrdma_ep_listen), false },
	{ TXRDMA_IOC_EP_CONNECT, "EP_CONNECT", sizeof(struct txrdma_ep_connect), true },
	{ TXRDMA_IOC_EP_ACCEPT, "EP_ACCEPT", sizeof(struct txrdma_ep_connect), true },
	{ TXRDMA_IOC_EP_EXPORT, "EP_EXPORT", sizeof(struct txrdma_ep_export), true },
	{ TXRDMA_IOC_EP_EXPORTS, "EP_EXPORTS", sizeof(struct txrdma_ep_exports), false },
	{ TXRDMA_IOC_EP_SESS_EXPORT, "EP_SESS_EXPORT", sizeof(struct txrdma_ep_sess_export), true },
	{ TXRDMA_IOC_EP_SESS_IMPORT, "EP_SESS_IMPORT", sizeof(struct txrdma_ep_sess_import), true },
};
#define NCMDS	(sizeof(cmds) / sizeof(cmds[0]))

union arg {
	struct txrdma_probe probe;
	struct txrdma_tenant_info ti;
	struct txrdma_region_create rc;
	struct txrdma_region_reg_user ru;
	struct txrdma_region_info ri;
	struct txrdma_ep_create ec;
	struct txrdma_ep_info ei;
	struct txrdma_ring_setup rs;
	struct txrdma_ep_listen el;
	struct txrdma_ep_connect c;
	struct txrdma_ep_export ex;
	struct txrdma_ep_exports xq;
	struct txrdma_ep_sess_export se;
	struct txrdma_ep_sess_import si;
	uint8_t b[1024];
};

/* the unsettled SENDs an export writes, or an import names */
static struct txrdma_sess_send sess_sends[TXRDMA_SESS_SENDS_MAX];

_Static_assert(sizeof(struct txrdma_ep_exports) <= 1024 &&
	       sizeof(union arg) % 8 == 0, "random bytes fill every argument");

unsigned long exports_asked, exports_bad;

/*
 * An export's range in a file's region: mostly in its second 2 MiB page
 * (no receive ring there: the export can succeed), or over the rings
 * (-EADDRINUSE), all of it (len 0), around its end, unaligned, or anything.
 */
void some_range(struct at_rng *r, __u64 *off, __u64 *len)
{
	switch (at_below(r, 8)) {
	case 0:
	case 1:
	case 2:
		*off = TXRDMA_REGION_HUGE_SIZE + PG * at_below(r, 256);
		*len = PG * (1 + at_below(r, 64));
		break;
	case 3:
		*off = at_below(r, NEP) * RX_SLOT + 64 * at_below(r, 4);
		*len = 1 + at_below(r, RX_SLOT);
		break;
	case 4:
		*off = 0;
		*len = 0;
		break;
	case 5:
		*off = REGION - at_below(r, 2 * PG + 1);
		*len = at_below(r, 3) * PG / 2;
		break;
	case 6:
		*off = at_below(r, REGION);
		*len = at_below(r, 2 * PG);
		break;
	default:
		*off = at_rand(r);
		*len = at_below(r, 2) ? at_rand(r) : ~0ULL - at_below(r, 4);
		break;
	}
}

/*
 * What TXRDMA_IOC_EP_EXPORTS answered (0): never more entries than
 * its arrays hold.  Counted; a bad answer logged.
 */
void exports_check(const struct txrdma_ep_exports *q)
{
	exports_asked++;
	if (q->nimported <= TXRDMA_EP_MAX_EXPORTS &&
	    q->nexported <= TXRDMA_EP_MAX_EXPORTS)
		return;
	exports_bad++;
	tap_diag("op %lu: EP_EXPORTS of endpoint %u: %u imported, %u exported",
		 opn, q->ep, q->nimported, q->nexported);
}

uint32_t some_region(struct at_rng *r, int i)
{
	switch (at_below(r, 4)) {
	case 0: return hf[i].region;
	case 1: return nregs ? regs[at_below(r, nregs)] : 0;
	case 2: return hf[at_below(r, NF)].region + at_below(r, 8);
	default: return at_rand(r);
	}
}

/* ours, the other tenant's, or any */
static uint32_t some_service(struct at_rng *r)
{
	switch (at_below(r, 4)) {
	case 0:
	case 1: return service;
	case 2: return victim_service ? victim_service : service + 1;
	default: return 1 + at_below(r, 300);
	}
}

/* a valid (or nearly) argument for cmds[c] on file @i */
static void valid_arg(struct at_rng *r, unsigned int c, int i, union arg *a)
{
	memset(a, 0, sizeof(*a));
	switch (cmds[c].cmd) {
	case TXRDMA_IOC_REGION_CREATE:
		a->rc.size = at_below(r, 2) ? TXRDMA_REGION_HUGE_SIZE :
					      PG * (1 + at_below(r, 16));
		a->rc.flags = a->rc.size % TXRDMA_REGION_HUGE_SIZE ?
			      TXRDMA_REGION_F_SMALL_PAGES : 0;
		break;
	case TXRDMA_IOC_REGION_REG_USER:
		a->ru.addr = (uintptr_t)(at_below(r, 2) ? anon :
					 at_below(r, 2) ? hf[i].ring :
							  hf[i].region_addr);
		a->ru.size = PG * (1 + at_below(r, 4));
		break;
	case TXRDMA_IOC_REGION_INFO:
	case TXRDMA_IOC_REGION_DESTROY:
		a->ri.id = some_region(r, i);
		break;
	case TXRDMA_IOC_EP_CREATE:
		snprintf((char *)a->ec.peer, sizeof(a->ec.peer), "%s",
			 at_below(r, 4) ? peer : "nosuchpeer");
		break;
	case TXRDMA_IOC_EP_INFO:
	case TXRDMA_IOC_EP_DESTROY:
		a->ei.id = some_id(r, i);
		break;
	case TXRDMA_IOC_RING_SETUP:
		a->rs.sq_entries = 1 + at_below(r, 64);
		break;
	case TXRDMA_IOC_EP_LISTEN:
		a->el.service = some_service(r);
		break;
	case TXRDMA_IOC_EP_CONNECT:
	case TXRDMA_IOC_EP_ACCEPT:
		if (cmds[c].cmd == TXRDMA_IOC_EP_CONNECT)
			snprintf((char *)a->c.peer, sizeof(a->c.peer), "%s", peer);
		a->c.service = some_service(r);
		a->c.rx_region = some_region(r, i);
		a->c.rx_units = 16U << at_below(r, 11);
		a->c.rx_off = (uint64_t)at_below(r, 32768) * 64;
		a->c.timeout_ms = 1 + at_below(r, 10);
		break;
	case TXRDMA_IOC_EP_EXPORT:
		a->ex.ep = some_id(r, i);
		a->ex.region = some_region(r, i);
		/* 0 revokes */
		a->ex.access = at_below(r, 4);
		a->ex.timeout_ms = 1 + at_below(r, 10);
		some_range(r, &a->ex.off, &a->ex.len);
		break;
	case TXRDMA_IOC_EP_EXPORTS:
		a->xq.ep = some_id(r, i);
		break;
	case TXRDMA_IOC_EP_SESS_EXPORT:
		a->se.ep = some_id(r, i);
		a->se.timeout_ms = 1 + at_below(r, 10);
		a->se.max_sends = at_below(r, 4) ? TXRDMA_SESS_SENDS_MAX :
						   at_below(r, 80);
		a->se.sends = (uintptr_t)sess_sends;
		break;
	case TXRDMA_IOC_EP_SESS_IMPORT:
		snprintf((char *)a->si.peer, sizeof(a->si.peer), "%s", peer);
		a->si.rx_region = some_region(r, i);
		a->si.rx_off = (uint64_t)at_below(r, 32768) * 64;
		a->si.timeout_ms = 1 + at_below(r, 10);
		a->si.sends = (uintptr_t)sess_sends;
		/* a state that passes the first checks: a session of guesses */
		a->si.state = (struct txrdma_sess_state) {
			.version	= TXRDMA_SESS_STATE_VERSION,
			.flags		= TXRDMA_EP_F_SESSION,
			.ep		= 1 + at_below(r, 64),
			.peer_ep	= 1 + at_below(r, 64),
			.epoch		= at_rand(r) | 1,
			.ho_gen		= at_below(r, 3),
			.grace_ms	= 1 + at_below(r, 100),
			.service	= some_service(r),
			.rx_units	= 16U << at_below(r, 5),
			.rx_max_msg	= 64,
			.peer_units	= 64,
			.peer_max_msg	= 64,
			.tx_seq		= at_rand(r),
			.tx_head	= at_rand(r),
			.nsends		= at_below(r, 3),
		};
		a->si.state.tx_released = a->si.state.tx_head;
		for (unsigned int k = 0; k < a->si.state.nsends; k++) {
			sess_sends[k] = (struct txrdma_sess_send) {
				.region	= some_region(r, i),
				.off	= at_below(r, 2) ? 0 : at_rand(r),
				.seq	= a->si.state.tx_seq -
					  a->si.state.nsends + k,
				.start	= a->si.state.tx_head,
				.units	= 1,
			};
		}
		break;
	default:
		break;
	}
}

/* @a in a read-only page: the kernel reads it, cannot answer in it */
static void *ro_copy(const union arg *a)
{
	if (mprotect(ro_page, PG, PROT_READ | PROT_WRITE))
		return NULL;
	memcpy(ro_page, a, sizeof(*a));
	mprotect(ro_page, PG, PROT_READ);
	return ro_page;
}

struct call {
	int fd;
	unsigned long cmd;
	void *arg;
	int ret;
};

/* the kernel faults nothing in: an EFAULT; this is for our own reads */
static void do_call(void *p)
{
	struct call *c = p;

	c->ret = ioctl(c->fd, c->cmd, c->arg);
}

void op_ioctl(struct at_rng *r)
{
	struct call call;
	unsigned int c = at_below(r, NCMDS), mode = at_below(r, 10), off;
	int i = at_below(r, NF), ret;
	unsigned long cmd = cmds[c].cmd;
	static union arg a;
	void *p = &a;

	if (child && cmds[c].blocks)
		return;
	valid_arg(r, c, i, &a);
	if (mode >= 4 && mode <= 6 && cmds[c].size) {	/* one field */
		off = at_below(r, cmds[c].size) & ~3U;
		*(uint32_t *)(a.b + off) = at_below(r, 2) ? at_rand(r) :
					   near_value(r, *(uint32_t *)(a.b + off), 16);
	} else if (mode == 7) {
		for (off = 0; off < sizeof(a.b); off += 8)
			*(uint64_t *)(a.b + off) = at_rand(r);
	} else if (mode == 8) {
		static const uintptr_t bad[] = { 0, 1, 0xffff888000000000UL,
						 0xffffffffff600000UL };

		switch (at_below(r, 5)) {
		case 0: p = (void *)bad[at_below(r, 4)]; break;
		case 1: p = ro_copy(&a); break;
		case 2: p = (char *)edge_page + PG - at_below(r, cmds[c].size + 1); break;
		case 3: p = hf[i].ring; break;
		default: p = hf[i].region_addr; break;
		}
	} else if (mode == 9) {
		cmd = at_below(r, 2) ? at_rand(r) :
		      _IOC(at_below(r, 4), TXRDMA_IOC_MAGIC, at_below(r, 32),
			   at_below(r, 512));
	}
	LOG("ioctl file %d %s mode %u cmd %#lx arg %p", i, cmds[c].name, mode,
	    cmd, p);
	if (cmds[c].blocks)
		block_arm(BLOCK_MS);
	call = (struct call){ hf[i].fd, cmd, p, -1 };
	guarded(do_call, &call);
	ret = call.ret;
	if (cmds[c].blocks)
		block_disarm();
	if (!ret && cmd == TXRDMA_IOC_REGION_CREATE && p == &a && nregs < NREG)
		regs[nregs++] = a.rc.id;
	if (!ret && (cmd == TXRDMA_IOC_EP_CONNECT ||
		     cmd == TXRDMA_IOC_EP_ACCEPT) && p == &a)
		saw_id(a.c.id);
	if (!ret && cmd == TXRDMA_IOC_EP_EXPORTS && p == &a)
		exports_check(&a.xq);
}

static unsigned int cmd_index(unsigned long cmd)
{
	unsigned int c;

	for (c = 0; c < NCMDS && cmds[c].cmd != cmd; c++)
		;
	return c;
}

/* ---- regions ------------------------------------------------------- */

void op_region(struct at_rng *r)
{
	int i = at_below(r, NF), ret = -1;
	uint64_t size;
	unsigned int c;
	union arg a;
	void *m;

	switch (at_below(r, 5)) {
	case 0:
		c = cmd_index(TXRDMA_IOC_REGION_CREATE);
		break;
	case 1:
		c = cmd_index(TXRDMA_IOC_REGION_DESTROY);
		break;
	case 2:
		c = cmd_index(TXRDMA_IOC_REGION_INFO);
		break;
	case 3:
		c = cmd_index(TXRDMA_IOC_REGION_REG_USER);
		break;
	default:	/* create, map, destroy, then touch the mapping */
		valid_arg(r, cmd_index(TXRDMA_IOC_REGION_CREATE), i, &a);
		LOG("region create-map-destroy file %d size %#llx", i,
		    (unsigned long long)a.rc.size);
		if (ioctl(hf[i].fd, TXRDMA_IOC_REGION_CREATE, &a))
			return;
		size = a.rc.size;
		if (nregs < NREG)
			regs[nregs++] = a.rc.id;
		m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED,
			 hf[i].fd, a.rc.mmap_offset);
		a.ri = (struct txrdma_region_info){ .id = a.rc.id };
		ioctl(hf[i].fd, TXRDMA_IOC_REGION_DESTROY, &a);
		if (m != MAP_FAILED) {
			touch_guarded(m, PG, 0, 0x5a, true, true);
			keep_xmap(r, m, size);
		}
		return;
	}
	valid_arg(r, c, i, &a);
	LOG("region %s file %d id %u", cmds[c].name, i, a.ri.id);
	ret = ioctl(hf[i].fd, cmds[c].cmd, &a);
	if (!ret && cmds[c].cmd == TXRDMA_IOC_REGION_CREATE && nregs < NREG)
		regs[nregs++] = a.rc.id;
}
