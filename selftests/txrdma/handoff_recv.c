// SPDX-License-Identifier: GPL-2.0-only
/*
 * handoff's receiver: the side of the session that stays (B).  It
 * checks the stream byte for byte, in order, once each, answers every
 * PROG_EVERY messages with a progress frame (and FIN after END), and
 * times each delivery: the longest gap around a hand-off is what the
 * move cost the side that stayed.  See handoff.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "handoff.h"
#include "handoff_blob.h"
#include "msg_pattern.h"

#define RWINDOW		16		/* progress frames in flight */
#define RSEND_OFF	(RECV_UNITS * 64 + 4096)	/* after the ring */

/*
 * The interruptions: the longest gap between two deliveries around
 * each hand-off (@t: when each of @got messages came).  A hand-off
 * whose importer first ran imports meant to be refused (the job
 * directory says which) paused for those too: printed, not held to
 * the bound.
 */
static void interruptions(const double *t, unsigned long got)
{
	unsigned long worst_at = 0, max_at = 0, i;
	double gap, worst = 0, maxgap = 0;
	unsigned int k, over = 0, held = 0;

	for (i = 1; i < got && i < o.count; i++)
		if (t[i] - t[i - 1] > maxgap) {
			maxgap = t[i] - t[i - 1];
			max_at = i;
		}
	for (k = 1; k <= o.handoffs; k++) {
		unsigned long b = k * per, lo = b - per / 2, hi = b + per / 2;
		unsigned long at = 0;
		bool probed = o.jobdir && blob_refused(o.jobdir, k);

		gap = 0;
		for (i = lo + 1; i < hi && i < got; i++)
			if (t[i] - t[i - 1] > gap) {
				gap = t[i] - t[i - 1];
				at = i;
			}
		/* its ends on CLOCK_MONOTONIC: the guest script puts the
		 * module's session events (trace_clock mono) between them
		 */
		printf("# receiver: hand-off %u: interruption %.1f ms (messages %lu -> %lu, mono %.3f..%.3f ms)%s\n",
		       k, gap, at ? at - 1 : 0, at, at ? t[at - 1] : 0,
		       at ? t[at] : 0,
		       probed ? " (imports meant to be refused ran first: not held to the bound)" : "");
		if (probed)
			continue;
		held++;
		if (gap > worst) {
			worst = gap;
			worst_at = k;
		}
		over += gap >= o.bound_ms;
	}
	printf("# receiver: longest gap between two deliveries %.1f ms (messages %lu -> %lu); longest at a hand-off held to the bound %.1f ms (hand-off %lu)\n",
	       maxgap, max_at ? max_at - 1 : 0, max_at, worst, worst_at);
	if (over)
		printf("# receiver: BOUND NOT MET: %u of %u hand-offs interrupted the stream for %u ms or more (max %.1f ms, hand-off %lu)\n",
		       over, held, o.bound_ms, worst, worst_at);
	tap(!over && held && got == o.count,
	    "each of %u hand-offs interrupted the stream for less than %u ms (max %.1f ms at hand-off %lu)%s",
	    held, o.bound_ms, worst, worst_at, over ? ": not met" : "");
}

int receiver(void)
{
	unsigned long got = 0, bad_seq = 0, bad_bytes = 0, rwrong = 0,
		      rfailed = 0, rdup = 0;
	uint64_t p_next = 0, p_done = 0, pending = 0, total = 0, w, d;
	struct txrdma_ep_params p = {
		.service = o.service, .rx_units = RECV_UNITS,
		.timeout_ms = 60000,
	};
	double *t, t_end, t_end_fin = 0;
	bool end = false;
	unsigned int r;
	int fin_res = -ENODATA;
	struct txrdma_cqe *c;
	const char *what;
	struct pair_side g;
	uint8_t *rdone;
	const void *m;
	__u32 len;
	int ret;

	role = "receiver";
	t = calloc(o.count + 1, sizeof(*t));
	rdone = calloc(o.count / PROG_EVERY + 2, 1);
	if (!t || !rdone)
		die("calloc", -ENOMEM);
	ret = seg_open(&g, &what);
	if (ret)
		die(what, ret);
	p.rx_region = g.reg.id;
	ret = txrdma_ep_listen(g.ctx, o.service);
	if (ret)
		die("listen", ret);
	printf("# receiver: listening on service %u\n", o.service);
	fflush(stdout);
	/* the first mover comes once its guest has its peers: minutes */
	for (r = 0; r < 10; r++) {
		ret = txrdma_ep_accept(g.ctx, &p, &g.ep);
		if (ret != -ETIMEDOUT)
			break;
	}
	if (ret)
		die("accept", ret);
	ret = txrdma_rx_init(&g.rx, g.ctx, &g.sq, g.reg.addr, RECV_UNITS);
	if (ret)
		die("rx_init", ret);
	printf("# receiver: pair %u <-> %u with %s (flags %#x, grace %u ms)\n",
	       g.ep.id, g.ep.peer_ep, g.ep.peer, g.ep.flags, g.ep.grace_ms);
	tap((g.ep.flags & TXRDMA_EP_F_SESSION) && g.ep.grace_ms == o.grace_ms,
	    "accepted a session with the mover's grace (%u ms)",
	    g.ep.grace_ms);

	t_end = now_ms() + 3600e3;
	while (now_ms() < t_end) {
		bool idle = true;

		/* the progress frames' completions: each once, successful */
		while ((c = txrdma_peek_cqe(&g.cq))) {
			idle = false;
			if (c->user_data >= p_next) {
				rwrong++;
			} else if (rdone[c->user_data]++) {
				rdup++;
			} else {
				p_done++;
				rfailed += c->res != PROG_LEN;
			}
			txrdma_cq_advance(&g.cq, 1);
		}
		/* slot p % RWINDOW is free once frame p - RWINDOW is */
		while (pending && p_next - p_done < RWINDOW &&
		       (p_next < RWINDOW || rdone[p_next - RWINDOW])) {
			struct txrdma_sqe *e = txrdma_get_sqe(&g.sq);
			uint64_t off = RSEND_OFF + (p_next % RWINDOW) * 64;

			if (!e)
				break;
			fill((uint8_t *)g.reg.addr + off, KEY_REV, p_next,
			     PROG_LEN);
			txrdma_prep_send(e, g.ep.id, g.reg.id, off, PROG_LEN,
					 p_next);
			p_next++;
			pending--;
			idle = false;
		}
		if (!idle)
			txrdma_submit(g.ctx, &g.sq);
		/* after END: until every progress frame completed */
		if (end) {
			if (!pending && p_done == p_next)
				break;
			if (now_ms() > t_end_fin)
				break;
			if (idle)
				usleep(100);
			continue;
		}
		ret = txrdma_rx_peek(&g.rx, &m, &len);
		if (ret < 0)
			break;
		if (!ret) {
			if (idle)
				usleep(100);
			continue;
		}
		w = 0;
		memcpy(&w, m, len < 8 ? len : 8);
		w = le64toh(w);
		if (len == 16 && w == END_MAGIC) {
			memcpy(&total, (const char *)m + 8, 8);
			total = le64toh(total);
			end = true;
			t_end_fin = now_ms() + STEP_MS;
			txrdma_rx_release(&g.rx);
			continue;
		}
		if (got < o.count)
			t[got] = now_ms();
		/* shorter than 8 bytes: the pattern of its number checks it */
		if (len >= 8 && w != got)
			bad_seq++;
		else if (len != msg_len(got) ||
			 check(m, KEY, got, len, &d) >= 0)
			bad_bytes++;
		got++;
		txrdma_rx_release(&g.rx);
		if (!(got % PROG_EVERY))
			pending++;
	}
	/* FIN: how many progress frames there were; then our end goes */
	if (end) {
		struct txrdma_sqe *e = txrdma_get_sqe(&g.sq);
		uint64_t v[2] = { htole64(FIN_MAGIC), htole64(p_next) };
		uint64_t off = RSEND_OFF + RWINDOW * 64;

		if (!e)
			die("no SQE for FIN", -EBUSY);
		memcpy((uint8_t *)g.reg.addr + off, v, 16);
		txrdma_prep_send(e, g.ep.id, g.reg.id, off, 16, UD_FIN);
		txrdma_submit(g.ctx, &g.sq);
		fin_res = wait_cqe(&g, UD_FIN, &rwrong);
	}
	printf("# receiver: %lu messages, %llu progress frames sent, ring %s (%d)\n",
	       got, (unsigned long long)p_next, end ? "ended by END" : "failed",
	       end ? 0 : ret);
	tap(!bad_seq && !bad_bytes && got == o.count,
	    "every message once, in order, byte for byte (%lu of %lu; %lu out of sequence, %lu with wrong bytes)",
	    got, o.count, bad_seq, bad_bytes);
	tap(end && total == got, "END came and counts every message (%llu sent, %lu received)",
	    (unsigned long long)total, got);
	tap(fin_res == 16 && !rwrong && !rdup && !rfailed && p_done == p_next,
	    "every progress frame and FIN completed once, successfully (%llu of %llu; %lu twice, %lu unknown, %lu failed; FIN %d)",
	    (unsigned long long)p_done, (unsigned long long)p_next, rdup,
	    rwrong, rfailed, fin_res);

	interruptions(t, got);
	seg_close(&g);
	free(t);
	free(rdone);
	return tap_end();
}
