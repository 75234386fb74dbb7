/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The observer's side of rogue_peer: what the attacked host says about
 * itself.  The self peer as "txrdma-admin -j peer show" reports it,
 * txrdma's MRs and the QPs as "rdma -j res show" lists them, the kernel
 * address of a region (through /proc/kcore), patterns to prove that no
 * byte changed, and endpoint pairs over the self peer made through
 * libtxrdma (whose rings and exports the attacker then goes after).
 */
#ifndef _TXRDMA_ROGUE_HOST_H
#define _TXRDMA_ROGUE_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/txrdma.h>

#include "txrdma.h"
#include "txrdma_ring.h"

#define PEER		"self"		/* the self peer's name */
#define HUGE		TXRDMA_REGION_HUGE_SIZE
#define RX_UNITS	64		/* receive rings of the pairs */
#define RX_LEN		(RX_UNITS * TXRDMA_FRAME_UNIT)

/* ---- commands ------------------------------------------------------ */

/* $TXRDMA_ADMIN, else the checkout's txrdma-admin next to this binary. */
const char *admin(void);
/* Run a shell command, its output (last newline cut) into @out: status. */
int __attribute__((format(printf, 3, 4)))
run(char *out, size_t len, const char *fmt, ...);
void msleep(int ms);
void rnd(void *p, size_t len);

/* ---- the self peer ------------------------------------------------- */

struct psnap {
	char state[16];
	long long downs, auth_fails;	/* auth_fails -1: not reported */
	unsigned int min, max, ready, in_use, connecting, closing, qps;
	long long takes, misses, failures, errors;
};

int peer_snap(struct psnap *p);
/* one of four static buffers: up to four in one printf */
const char *psnap_str(const struct psnap *p);
bool pool_same(const struct psnap *a, const struct psnap *b, bool takes);
bool pool_settle(const struct psnap *base, bool takes, double secs,
		 struct psnap *p);
bool peer_wait_up(double secs, struct psnap *p);

/* ---- MRs and QPs --------------------------------------------------- */

struct mr {
	uint32_t mrn, rkey;
	uint64_t len;
};

struct mrlist {
	int n;
	struct mr m[512];
};

int mr_list(const char *ibdev, struct mrlist *l);
bool mr_has(const struct mrlist *l, uint32_t rkey);
void mr_new(const struct mrlist *before, const struct mrlist *after,
	    struct mrlist *out);
bool mr_wait_gone(const char *ibdev, const struct mrlist *gone, double secs);
int qps_listed(const char *ibdev, const uint32_t *qpns, int n);

/* ---- kernel addresses and patterns --------------------------------- */

uint64_t kernel_addr(void *p);
void pat_fill(void *p, size_t len, uint32_t seed);
size_t pat_diff(const void *p, size_t len, uint32_t seed, size_t *first);

/* ---- endpoint pairs over the self peer ------------------------------ */

struct side {
	struct txrdma_ctx *ctx;
	struct txrdma_sq sq;
	struct txrdma_cq cq;
	struct txrdma_region ring;	/* receive ring at offset 0 */
	struct txrdma_ep_pair ep;
	bool paired;
};

struct lpair {
	struct side s[2];		/* [0] connects, [1] accepts */
	uint32_t svc;
	int accept_ret;
};

int lpair_prepare(struct lpair *p, uint32_t svc);
int lpair_connect(struct lpair *p);
int lpair_export(struct lpair *p, uint32_t id);
void lpair_end(struct lpair *p);
void lpair_close(struct lpair *p);
uint8_t *ring_units(struct side *s);

#endif
