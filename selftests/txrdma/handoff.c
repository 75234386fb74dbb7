// SPDX-License-Identifier: GPL-2.0-only
/*
 * handoff: a session's end moves between hosts under a stream (the
 * handoff suite, three guests, run by handoff_guest.sh).
 *
 *   handoff receiver [-s SERVICE] [-n COUNT] [-k HANDOFFS] [-g GRACE_MS]
 *                    [-b BOUND_MS] [-j JOBDIR]
 *   handoff mover -p PEER -m MOVER -j JOBDIR -f FIRST [-s SERVICE]
 *                 [-n COUNT] [-k HANDOFFS] [-g GRACE_MS] [-x PROBE]
 *                 [-w WAIT_S] [-G GUEST]
 *
 * The receiver (B, guest 1) accepts one session and checks a stream of
 * COUNT messages (1 B .. 16 KiB, msg_pattern.h's bytes for the message
 * number) byte for byte, in order, none missing or twice, then END (a
 * magic word and the count).  Every 64 messages it sends a progress
 * frame back (its number and msg_pattern.h's bytes), and FIN (the
 * number of them) after END, so that the mover's receive ring carries
 * frames across the moves too.  It times every delivery: the longest
 * gap around each hand-off is that hand-off's interruption as the
 * stayer sees it, and every one must be below BOUND_MS (300), except
 * those whose importer first ran the imports meant to be refused
 * (below): they are printed, and JOBDIR tells the receiver which.
 *
 * The movers (guests 0 and 2) are one process per guest that plays the
 * mover's part in turns: segment 0 on guest 0 (FIRST 0) connects the
 * session; segment s ends with hand-off s + 1: with up to 32 SENDs in
 * flight the process stops posting (after every SQE was taken by the
 * module), exports, sends the blob (handoff_blob.h: state, unsettled
 * SENDs, ring area and payload bytes, which message is next, which
 * completed) over TCP to the other mover (MOVER, its IPv4 address; port
 * SERVICE) and destroys its endpoint; the other guest (FIRST 1) has
 * its context, rings and a fresh region ready, restores the bytes into
 * its region at the same offsets, rewrites the SENDs' region ids to its
 * own, imports, and goes on from the next message.  HANDOFFS (10) moves,
 * guest 0 -> 2 -> 0 ...  Each message must complete exactly once over
 * all the hosts: on the host it was posted on before the export, or on
 * the next one after the import (the done map travels in the blob).
 *
 * Checked at each export: the state describes this session (its
 * endpoints, ring, grace, one more hand-off than the last); the
 * unsettled SENDs are exactly the messages that did not complete here,
 * oldest first, with their payload's region, offset and length; no
 * SEND completes here after the export; an SQE on the exported
 * endpoint fails with -EXDEV; the endpoint is destroyed.  At each
 * import: the session is Up here, its ring still holds the frames the
 * old host had not released (the mover stops reading its ring for the
 * last 192 messages before an export so that some are left), every
 * completion here is for a message in flight, once and successful.
 * At hand-off PROBE (3), before the real import: the state with one
 * byte of its secret flipped (-EPERM), and, at the first import with
 * unsettled SENDs from then on, a SEND naming a region that is not
 * ours and one across its region's end (-EINVAL, -EFAULT or -ENOENT);
 * the real import must then succeed: a refused import changes nothing.
 * These run from a context of their own (an import that fails after
 * the module took the SENDs completes them with its error in the
 * importing context's ring): each leaves no completion, or one per
 * SEND with its error.
 * After the last hand-off, while the stream goes on, a thread of the
 * last mover (a context of its own) imports again the state it had
 * exported at the hand-off before, the one it imported itself, that
 * one forged, and one naming a peer that does not exist: all refused
 * (-EPERM, the last an error), and the receiver still gets the rest of
 * the stream byte for byte.
 *
 * TAP: "ok N - receiver: ..." / "ok N - mover gG: ...", the plan last;
 * exit status 1 when any line is "not ok".  A mover that fails creates
 * JOBDIR/handoff-failed, so that the other does not wait for a blob.
 * An importer keeps each blob as JOBDIR/handoff-blob.K, for the attacks
 * on old states.
 *
 * Files: this one (options, TAP, what both roles share), handoff_recv.c
 * (the receiver), handoff_move.c (the movers), handoff_blob.c (what
 * moves between the movers, and how).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "handoff.h"
#include "handoff_blob.h"
#include "msg_pattern.h"

struct opts o = {
	.service = 7460, .count = 20000, .handoffs = 10, .probe = 3,
	.grace_ms = 10000, .bound_ms = 300, .wait_s = 900,
};
unsigned long per;
const char *role = "handoff";
static char role_buf[32];	/* "mover gG" */

/* ---- TAP ---------------------------------------------------------------- */

static unsigned int tap_n, tap_failed;

void tap(bool pass, const char *fmt, ...)
{
	va_list ap;

	tap_n++;
	tap_failed += !pass;
	printf("%sok %u - %s: ", pass ? "" : "not ", tap_n, role);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

int tap_end(void)
{
	printf("1..%u\n", tap_n);
	fflush(stdout);
	return tap_failed ? 1 : 0;
}

/*
 * A step that leaves nothing to check after it: say so, and stop; a
 * mover tells the other that no blob will come.
 */
void die(const char *what, int err)
{
	tap(false, "%s: %d (%s)", what, err, strerror(err < 0 ? -err : err));
	if (o.jobdir)
		blob_fail(o.jobdir);
	tap_end();
	exit(1);
}

/* ---- one host's side ----------------------------------------------------- */

/* a context with rings and a fresh region: what a restored process has */
int seg_open(struct pair_side *g, const char **what)
{
	int ret;

	memset(g, 0, sizeof(*g));
	*what = "open";
	ret = txrdma_open(&g->ctx, 0);
	if (ret)
		return ret;
	*what = "rings";
	ret = txrdma_rings_setup(g->ctx, 256, 0, &g->sq, &g->cq);
	if (!ret) {
		*what = "region";
		ret = txrdma_region_create(g->ctx, REGION_SIZE, 0, &g->reg);
	}
	if (ret) {
		txrdma_close(g->ctx);
		g->ctx = NULL;
	}
	return ret;
}

void seg_close(struct pair_side *g)
{
	if (!g->ctx)
		return;
	if (g->ep.id)
		txrdma_ep_destroy(g->ctx, g->ep.id);
	txrdma_region_destroy(g->ctx, &g->reg);
	txrdma_close(g->ctx);
	g->ctx = NULL;
}

/*
 * Message @n's length: 1 B .. MAX_LEN, the edge sizes first; the last
 * window of a segment that ends in a hand-off all of MAX_LEN, so that
 * the export finds SENDs still on the wire (with small ones every SEND
 * was often acknowledged before the export, and the unsettled SENDs'
 * import went untested)
 */
uint32_t msg_len(uint64_t n)
{
	if (per && n / per < o.handoffs && n % per >= per - WINDOW)
		return MAX_LEN;
	return gen_len(&(struct gen){ .seed = KEY, .max_len = MAX_LEN },
		       (uint32_t)n);
}

/* wait for the CQE of @ud (others go to @other); its res, or -ETIMEDOUT */
int wait_cqe(struct pair_side *g, uint64_t ud, unsigned long *other)
{
	double end = now_ms() + STEP_MS;
	struct txrdma_cqe *c;
	bool mine;
	int res;

	while (now_ms() < end) {
		c = txrdma_peek_cqe(&g->cq);
		if (!c) {
			usleep(50);
			continue;
		}
		res = c->res;
		mine = c->user_data == ud;
		txrdma_cq_advance(&g->cq, 1);
		if (mine)
			return res;
		(*other)++;
	}
	return -ETIMEDOUT;
}

static void __attribute__((noreturn)) usage(void)
{
	fprintf(stderr,
		"usage: handoff receiver [-s SERVICE] [-n COUNT] [-k HANDOFFS] [-g GRACE_MS] [-b BOUND_MS]\n"
		"                        [-j JOBDIR]\n"
		"       handoff mover -p PEER -m MOVER -j JOBDIR -f FIRST [-s SERVICE] [-n COUNT]\n"
		"                     [-k HANDOFFS] [-g GRACE_MS] [-x PROBE] [-w WAIT_S] [-G GUEST]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	bool recv;
	int c;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2)
		usage();
	recv = !strcmp(argv[1], "receiver");
	if (!recv && strcmp(argv[1], "mover"))
		usage();
	optind = 2;
	while ((c = getopt(argc, argv, "s:n:k:g:b:p:m:j:f:x:w:G:")) != -1) {
		switch (c) {
		case 's':
			o.service = strtoul(optarg, NULL, 0);
			break;
		case 'n':
			o.count = strtoul(optarg, NULL, 0);
			break;
		case 'k':
			o.handoffs = strtoul(optarg, NULL, 0);
			break;
		case 'g':
			o.grace_ms = strtoul(optarg, NULL, 0);
			break;
		case 'b':
			o.bound_ms = strtoul(optarg, NULL, 0);
			break;
		case 'p':
			o.peer = optarg;
			break;
		case 'm':
			o.mover = optarg;
			break;
		case 'j':
			o.jobdir = optarg;
			break;
		case 'f':
			o.first = strtoul(optarg, NULL, 0);
			break;
		case 'x':
			o.probe = strtoul(optarg, NULL, 0);
			break;
		case 'w':
			o.wait_s = strtoul(optarg, NULL, 0);
			break;
		case 'G':
			o.guest = strtoul(optarg, NULL, 0);
			break;
		default:
			usage();
		}
	}
	if (optind != argc || !o.handoffs || !o.service || !o.grace_ms ||
	    o.grace_ms > TXRDMA_EP_GRACE_MAX_MS)
		usage();
	per = o.count / (o.handoffs + 1);
	/* a segment must fill the window and leave the hold unread */
	if (per < 2 * HOLD + 2 * WINDOW || o.count >= UD_END) {
		fprintf(stderr, "handoff: COUNT must give each of the %u segments at least %u messages\n",
			o.handoffs + 1, 2 * HOLD + 2 * WINDOW);
		return 2;
	}
	if (o.probe > o.handoffs)
		o.probe = o.handoffs;
	printf("TAP version 13\n");
	printf("# handoff %s: %lu messages, %u hand-offs (%lu messages apart), grace %u ms, bound %u ms\n",
	       argv[1], o.count, o.handoffs, per, o.grace_ms, o.bound_ms);
	if (recv)
		return receiver();
	if (!o.peer || !o.mover || !o.jobdir || o.first > 1 ||
	    o.service > 65535)
		usage();
	snprintf(role_buf, sizeof(role_buf), "mover g%u", o.guest);
	role = role_buf;
	return mover();
}
