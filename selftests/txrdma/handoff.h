/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The handoff test's parts (handoff.c: what both roles share and main;
 * handoff_recv.c: the stayer; handoff_move.c: the movers).  See
 * handoff.c for what the test does.
 */
#ifndef _TXRDMA_HANDOFF_H
#define _TXRDMA_HANDOFF_H

#include <stdbool.h>
#include <stdint.h>

#include <txrdma.h>

#include "pair_side.h"

/* the patterns of the stream and of the progress frames */
#define KEY		0x4a4e4f4646444e48ULL
#define KEY_REV		0x5645524646444e48ULL
#define END_MAGIC	0x21444e4546464f48ULL	/* "HOFFEND!" */
#define FIN_MAGIC	0x214e494646464f48ULL	/* "HOFFFIN!" */
#define REGION_SIZE	(2u << 20)
#define RX_OFF		0		/* rings at their region's start */
#define MOVER_UNITS	1024		/* 64 KiB: progress frames */
#define RECV_UNITS	16384		/* 1 MiB: 64 frames of 16 KiB */
#define WINDOW		32		/* SENDs in flight (a session: 64) */
#define MAX_LEN		16384
#define PROG_EVERY	64		/* messages per progress frame */
#define PROG_LEN	24
#define HOLD		(3 * PROG_EVERY) /* unread before an export */
#define UD_END		(1ULL << 62)
#define UD_XDEV		(UD_END + 1)
#define UD_FIN		(UD_END + 2)
#define STEP_MS		60000.0		/* the longest a wait may take */

struct opts {
	const char *peer;	/* B's host, as this host's admin named it */
	const char *mover;	/* the other mover's IPv4 address (blobs) */
	const char *jobdir;
	unsigned int service;
	unsigned long count;
	unsigned int handoffs;
	unsigned int first;	/* the mover's first segment: 0 or 1 */
	unsigned int probe;	/* the hand-off of the refused imports */
	unsigned int grace_ms;
	unsigned int bound_ms;
	unsigned int wait_s;	/* for a blob */
	unsigned int guest;
};

extern struct opts o;
extern unsigned long per;	/* messages per segment */
extern const char *role;	/* in front of every TAP line */

static inline double now_ms(void)
{
	return pair_now_ms();
}

void tap(bool pass, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int tap_end(void);
void die(const char *what, int err) __attribute__((noreturn));

/*
 * One host's side of the session is a struct pair_side (pair_side.h):
 * what a (restored) process holds.  Its ep.id is 0 while it has no
 * endpoint (the module's ids start at 1).
 */
int seg_open(struct pair_side *g, const char **what);
void seg_close(struct pair_side *g);
uint32_t msg_len(uint64_t n);
int wait_cqe(struct pair_side *g, uint64_t ud, unsigned long *other);

int receiver(void);
int mover(void);

#endif
