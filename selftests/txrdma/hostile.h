/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The hostile tenant's process (hostile.c says what it does): its state
 * and the operations, shared by its three files: hostile.c (main, the
 * files and pairs, the processes and threads), hostile_mem.c (words,
 * SQEs and mappings it shares with the module) and hostile_ioctl.c
 * (every ioctl, with valid, mutated and garbage arguments).
 */
#ifndef _TXRDMA_HOSTILE_H
#define _TXRDMA_HOSTILE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "attack_util.h"

#define PG		4096UL
#define NF		3		/* server, client, spare */
#define F_SRV		0
#define F_CLI		1
#define NEP		16		/* endpoints at once: slots of rx rings */
#define RX_SLOT		(128UL << 10)	/* per endpoint, first 2 MiB page */
#define NREG		64
#define NXMAP		16
#define REGION		(2 * TXRDMA_REGION_HUGE_SIZE)
#define BLOCK_MS	300		/* timer on blocking ioctls */

/* an endpoint of a pair this process made */
struct hep {
	bool live;
	int file;
	uint32_t id, units, max_msg;
};

struct xmap {
	void *addr;
	size_t len;
};

extern struct at_file hf[NF];		/* each with rings and a region */
extern struct hep eps[NEP];		/* receive ring e at e * RX_SLOT */
extern uint32_t regs[NREG], nregs;	/* regions made by operations */
extern struct xmap xmaps[NXMAP];	/* mappings kept to scribble on */
extern atomic_uint id_max;		/* highest endpoint id seen */
extern const char *peer;
extern uint32_t service, victim_service;
extern FILE *oplog;			/* NULL in children */
extern unsigned long opn, faults;
extern bool child;			/* a forked child: no timer */
extern void *ro_page, *edge_page, *anon;

/* the operation log: "number what" */
#define LOG(fmt, ...) do { \
	if (oplog) \
		fprintf(oplog, "%lu " fmt "\n", opn, ##__VA_ARGS__); \
} while (0)

/* hostile.c */
void guarded(void (*fn)(void *), void *arg);
void block_arm(unsigned int ms);
void block_disarm(void);
void saw_id(uint32_t id);
uint32_t some_id(struct at_rng *r, int file);

/* hostile_mem.c */
uint32_t near_value(struct at_rng *r, uint32_t old, uint32_t entries);
void keep_xmap(struct at_rng *r, void *addr, size_t len);
void touch_guarded(void *m, size_t len, size_t at, uint8_t v, bool read,
		   bool write);
void op_scribble(struct at_rng *r);
void op_sqes(struct at_rng *r);
void op_doorbell(struct at_rng *r);
void op_mmap(struct at_rng *r);

/* hostile_ioctl.c */
extern unsigned long exports_asked, exports_bad;	/* EP_EXPORTS answers */
uint32_t some_region(struct at_rng *r, int i);
void some_range(struct at_rng *r, __u64 *off, __u64 *len);
void exports_check(const struct txrdma_ep_exports *q);
void op_ioctl(struct at_rng *r);
void op_region(struct at_rng *r);

#endif
