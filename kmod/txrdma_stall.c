// SPDX-License-Identifier: GPL-2.0-only
/*
 * Stall logs and the explanation of a Down (see txrdma_stall.h).
 *
 * Clocks are u64 nanoseconds that may start anywhere and wrap, compared
 * by signed difference as BFD's are.  A log holds few entries and is
 * searched linearly: it changes only when a timer runs late or a probe
 * reports a stall, a few times a second at worst.
 */
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/string.h>
#include <linux/time64.h>

#include <linux/txrdma.h>

#include "txrdma_stall.h"

static bool stall_before(u64 a, u64 b)
{
	return (s64)(a - b) < 0;
}

static u64 stall_start(const struct txrdma_stall *s)
{
	return s->end_ns - s->len_ns;
}

/* [a) and [b) overlap or touch */
static bool stall_overlap(const struct txrdma_stall *a,
			  const struct txrdma_stall *b)
{
	return !stall_before(a->end_ns, stall_start(b)) &&
	       !stall_before(b->end_ns, stall_start(a));
}

/*
 * Log @n.  Overlapping stalls merge into their union, except a peer's
 * repeated report of one stall (@report, the same length): each copy
 * bounds its end from above (it arrived at least a little after it was
 * sent), so the earliest end is kept.  Otherwise @n takes an empty
 * entry or the one that ended first, unless it is older than all.
 */
static void stall_insert(struct txrdma_stall_log *log,
			 const struct txrdma_stall *n, bool report)
{
	struct txrdma_stall *e, *victim = NULL;
	unsigned int i;

	for (i = 0; i < TXRDMA_STALL_LOG_LEN; i++) {
		e = &log->s[i];
		if (!e->len_ns || !stall_overlap(e, n))
			continue;
		if (report && e->len_ns == n->len_ns) {
			if (stall_before(n->end_ns, e->end_ns))
				e->end_ns = n->end_ns;
		} else {
			u64 start = stall_start(e);

			if (stall_before(stall_start(n), start))
				start = stall_start(n);
			if (stall_before(e->end_ns, n->end_ns))
				e->end_ns = n->end_ns;
			e->len_ns = e->end_ns - start;
		}
		return;
	}
	for (i = 0; i < TXRDMA_STALL_LOG_LEN; i++) {
		e = &log->s[i];
		if (!e->len_ns) {
			*e = *n;
			return;
		}
		if (!victim || stall_before(e->end_ns, victim->end_ns))
			victim = e;
	}
	if (stall_before(victim->end_ns, n->end_ns))
		*victim = *n;
}

/**
 * txrdma_stall_add() - log a stall of this host
 * @log: the log
 * @end_ns: when it ended
 * @len_ns: its length; 0 is ignored
 *
 * A stall that overlaps a logged one is merged into it (the union):
 * several timers of one host fire late for the same stall.
 */
void txrdma_stall_add(struct txrdma_stall_log *log, u64 end_ns, u64 len_ns)
{
	struct txrdma_stall n = { .end_ns = end_ns, .len_ns = len_ns };

	if (len_ns)
		stall_insert(log, &n, false);
}

/**
 * txrdma_stall_covering() - the longest logged stall that can have
 *	caused a Down
 * @log: the log
 * @at_ns: the moment of the Down
 * @min_len_ns: the shortest stall that can have caused it
 * @end_slack_ns: how long after the stall's end the Down may come
 * @out: the stall found, when there is one
 *
 * Such a stall is at least @min_len_ns long and had begun at least
 * that long before the Down (TXRDMA_STALL_SLACK_NS less: the silence
 * it left began then), and the Down came no later than @end_slack_ns
 * after its end.  The second rule keeps a stall that began during a
 * cut's silence from taking the blame for it.
 *
 * Return: whether one was found.
 */
bool txrdma_stall_covering(const struct txrdma_stall_log *log, u64 at_ns,
			   u64 min_len_ns, u64 end_slack_ns,
			   struct txrdma_stall *out)
{
	const struct txrdma_stall *e, *best = NULL;
	u64 latest_start = at_ns - min_len_ns + TXRDMA_STALL_SLACK_NS;
	unsigned int i;

	for (i = 0; i < TXRDMA_STALL_LOG_LEN; i++) {
		e = &log->s[i];
		if (!e->len_ns || e->len_ns < min_len_ns)
			continue;
		if (stall_before(latest_start, stall_start(e)) ||
		    stall_before(e->end_ns + end_slack_ns, at_ns))
			continue;
		if (!best || e->len_ns > best->len_ns)
			best = e;
	}
	if (!best)
		return false;
	*out = *best;
	return true;
}

/**
 * txrdma_stall_report() - what the next probe says of our stalls
 * @log: this host's log
 * @now_ns: the probe's sending time
 * @min_len_ns: the shortest stall of ours that can make the peer
 *	declare us Down
 * @w: output: of the stalls that ended within TXRDMA_STALL_REPORT_NS
 *	before @now_ns, the latest one at least @min_len_ns long, else the
 *	longest; zeroes without any
 *
 * The latest long one, not the longest: after a stall that caused a
 * Down, a shorter one that causes the next must reach the peer too.
 */
void txrdma_stall_report(const struct txrdma_stall_log *log, u64 now_ns,
			 u64 min_len_ns, struct txrdma_stall_wire *w)
{
	const struct txrdma_stall *e, *best = NULL, *latest = NULL;
	unsigned int i;

	memset(w, 0, sizeof(*w));
	for (i = 0; i < TXRDMA_STALL_LOG_LEN; i++) {
		e = &log->s[i];
		if (!e->len_ns || stall_before(now_ns, e->end_ns) ||
		    now_ns - e->end_ns > TXRDMA_STALL_REPORT_NS)
			continue;
		if (!best || e->len_ns > best->len_ns)
			best = e;
		if (e->len_ns >= min_len_ns &&
		    (!latest || stall_before(latest->end_ns, e->end_ns)))
			latest = e;
	}
	if (latest)
		best = latest;
	if (!best)
		return;
	w->len_us = min_t(u64, div_u64(best->len_ns, NSEC_PER_USEC),
			  TXRDMA_STALL_WIRE_MAX_US);
	w->ago_us = div_u64(now_ns - best->end_ns, NSEC_PER_USEC);
	if (!w->len_us)
		w->ago_us = 0;
}

/**
 * txrdma_stall_heard() - log a stall a peer reported
 * @log: the log of the peer's stalls
 * @w: the report, from a probe that passed its MAC check
 * @sent_ns: when the probe left, on our clock
 *	(txrdma_stall_clock_sent())
 *
 * The report is placed on our clock from the probe's sending; what the
 * map misses (the quickest way a probe took, a drift within its
 * window) places it a little late, which TXRDMA_STALL_SLACK_NS allows
 * for.  A report older than TXRDMA_STALL_REPORT_NS or at the wire's
 * cap (U32_MAX: a length nobody measured) is dropped.
 *
 * Return: the length logged in nanoseconds, 0 when nothing was.
 */
u64 txrdma_stall_heard(struct txrdma_stall_log *log,
		       const struct txrdma_stall_wire *w, u64 sent_ns)
{
	u64 ago = (u64)w->ago_us * NSEC_PER_USEC;
	struct txrdma_stall n;

	if (!w->len_us || w->len_us > TXRDMA_STALL_WIRE_MAX_US ||
	    ago > TXRDMA_STALL_REPORT_NS)
		return 0;
	n.end_ns = sent_ns - ago;
	n.len_ns = (u64)w->len_us * NSEC_PER_USEC;
	stall_insert(log, &n, true);
	return n.len_ns;
}

/**
 * txrdma_stall_clock_sample() - learn the peer's clock from a probe
 * @c: the map
 * @disc: the discriminator the probe came from (BFD's My Discriminator)
 * @tx_ns: the probe's sending time, on the peer's clock
 * @now_ns: its arrival, on ours
 *
 * (arrival - sending) is the clocks' offset plus the probe's way; the
 * least of a window is the offset plus the quickest way.  A window
 * lasts TXRDMA_STALL_CLOCK_WIN_NS from its first sample; the next
 * sample after it opens a new one and the old one is kept beside it,
 * even after a gap: the probes that end a long stall of the peer are
 * the slow ones, and a map made of them alone would place the stall's
 * report late.  A new discriminator (the peer restarted, maybe on
 * another clock) forgets everything.
 */
void txrdma_stall_clock_sample(struct txrdma_stall_clock *c, u32 disc,
			       u64 tx_ns, u64 now_ns)
{
	u64 off = now_ns - tx_ns;
	s64 age = now_ns - c->win_ns;

	if (c->wins && c->disc != disc)
		c->wins = 0;
	if (c->wins && age < (s64)TXRDMA_STALL_CLOCK_WIN_NS) {
		/* within the window (or a clock read out of order) */
		if ((s64)(off - c->min_off_ns[0]) < 0)
			c->min_off_ns[0] = off;
		return;
	}
	if (c->wins) {
		c->min_off_ns[1] = c->min_off_ns[0];
		c->wins = 2;
	} else {
		c->wins = 1;
	}
	c->min_off_ns[0] = off;
	c->win_ns = now_ns;
	c->disc = disc;
}

/**
 * txrdma_stall_clock_sent() - when a probe left, on our clock
 * @c: the map, with that probe sampled
 * @tx_ns: the probe's sending time, on the peer's clock
 * @now_ns: its arrival, on ours
 *
 * Return: @tx_ns plus the least offset of the map's windows: at most
 * the quickest way late, never before the true time (drift aside);
 * never after @now_ns, nor more than TXRDMA_STALL_REPORT_NS before it
 * (a probe that waited longer, or a peer whose clock jumped, is placed
 * as if it had waited that long: reports placed from it stay within
 * twice that of now, so no end or length wraps); @now_ns while the
 * map is empty.
 */
u64 txrdma_stall_clock_sent(const struct txrdma_stall_clock *c, u64 tx_ns,
			    u64 now_ns)
{
	u64 off, sent;

	if (!c->wins)
		return now_ns;
	off = c->min_off_ns[0];
	if (c->wins > 1 && (s64)(c->min_off_ns[1] - off) < 0)
		off = c->min_off_ns[1];
	sent = tx_ns + off;
	if ((s64)(now_ns - sent) < 0)
		return now_ns;
	if (now_ns - sent > TXRDMA_STALL_REPORT_NS)
		return now_ns - TXRDMA_STALL_REPORT_NS;
	return sent;
}

static u64 sat_sub(u64 a, u64 b)
{
	return a > b ? a - b : 0;
}

/**
 * txrdma_stall_bounds() - what a stall must be to explain a Down
 * @b: output
 * @detect_ns: our detection time of the peer: @remote_mult of its
 *	intervals
 * @remote_mult: the peer's multiplier (0 taken as 1)
 * @tx_interval_ns: our interval between probes
 * @local_mult: our multiplier, which the peer applies to @tx_interval_ns
 *	to detect us (0 taken as 1)
 *
 * A host that sends every interval and stalls for L is silent for at
 * most L plus an interval, and the stall its timer measures begins at
 * the next probe due, at most an interval after the last one heard: a
 * stall that expires a detection is at least the detection time less
 * one interval.  TXRDMA_STALL_SLACK_NS less, for what the measure
 * misses (the timer's yield, the probe's way).
 */
void txrdma_stall_bounds(struct txrdma_stall_bounds *b, u64 detect_ns,
			 u8 remote_mult, u64 tx_interval_ns, u8 local_mult)
{
	b->peer_tx_ns = div_u64(detect_ns, max_t(u8, remote_mult, 1));
	b->peer_min_ns = sat_sub(detect_ns - b->peer_tx_ns,
				 TXRDMA_STALL_SLACK_NS);
	b->local_min_ns = sat_sub((u64)(max_t(u8, local_mult, 1) - 1) *
				  tx_interval_ns, TXRDMA_STALL_SLACK_NS);
	b->peer_detect_ns = (u64)max_t(u8, local_mult, 1) * tx_interval_ns;
}

/**
 * txrdma_stall_explain() - what caused the open Down
 * @t: the session's track, with a Down open
 * @stall_ns: output: the explaining stall's length, 0 when unexplained
 *
 * The peer's stall is looked for first: an expired detection is the
 * peer's silence, ours being excused by the timer.  The silence may
 * outlast the stall by a little more than the slack: the clock map
 * places the stall as if its report had come the quickest way, and the
 * probes around it (the last one before, the first one after, which
 * left as the stall ended) may have come slower; so the stall may have
 * ended up to one of the peer's intervals before the Down, as ours may
 * below (CI, two TCG guests: a 60.4 ms stall, which alone can expire an
 * 80 ms detection, was left unexplained with the slack alone).  Ours
 * explains the Down of a host that the peer declared dead while it
 * stalled.  When
 * our own detection expired, our timer ran late: the Down came as the
 * stall ended, within one of the peer's intervals.  When the peer's
 * word took us Down, it is judged by when the word left the peer (its
 * way back does not count): the peer declared us Down as its detection
 * expired, before our first probe after the stall reached it, and said
 * so with its next probe (up to one of its intervals).  How late that
 * first probe of ours arrives after the stall is allowed up to the
 * peer's detection time of us: a chosen allowance, not a derived bound
 * (two TCG guests: a 64.5 ms stall, the word arriving about 60 ms
 * after it, way back included).  Its cost: a stall of ours that ended
 * within the allowance before the peer declared a cut takes the blame
 * for it.  A peer that restarted is its own cause: no stall explains
 * a new session.
 *
 * Return: enum txrdma_peer_down_cause.
 */
u8 txrdma_stall_explain(const struct txrdma_stall_track *t, u64 *stall_ns)
{
	struct txrdma_stall s;
	u64 end_slack, at = t->down_at_ns;

	*stall_ns = 0;
	if (t->how == TXRDMA_STALL_RESTART)
		return TXRDMA_PEER_DOWN_RESTART;
	end_slack = t->down.peer_tx_ns + TXRDMA_STALL_SLACK_NS;
	if (txrdma_stall_covering(&t->peer, t->down_at_ns,
				  t->down.peer_min_ns, end_slack, &s)) {
		*stall_ns = s.len_ns;
		return TXRDMA_PEER_DOWN_PEER_STALL;
	}
	if (t->how == TXRDMA_STALL_HEARD) {
		end_slack += t->down.peer_detect_ns;
		at = t->word_ns;
	}
	if (txrdma_stall_covering(&t->own, at,
				  t->down.local_min_ns, end_slack, &s)) {
		*stall_ns = s.len_ns;
		return TXRDMA_PEER_DOWN_LOCAL_STALL;
	}
	return TXRDMA_PEER_DOWN_UNEXPLAINED;
}

/**
 * txrdma_stall_down() - the session left Up
 * @t: its track
 * @now_ns: when
 * @how: enum txrdma_stall_how; an administrative Down has nothing to
 *	explain; TXRDMA_STALL_HEARD: BFD's Neighbor Signaled Session Down
 *	(not a restart)
 * @word_ns: with TXRDMA_STALL_HEARD, when the peer's word left, on our
 *	clock (txrdma_stall_clock_sent()); else ignored
 */
void txrdma_stall_down(struct txrdma_stall_track *t, u64 now_ns, u8 how,
		       u64 word_ns)
{
	t->open = how != TXRDMA_STALL_ADMIN;
	t->how = how;
	t->down = t->up;
	t->down_at_ns = now_ns;
	t->word_ns = how == TXRDMA_STALL_HEARD ? word_ns : now_ns;
}

/**
 * txrdma_stall_admin() - the session was held AdminDown here: a Down
 *	still open is no longer one to explain
 * @t: its track
 */
void txrdma_stall_admin(struct txrdma_stall_track *t)
{
	t->open = false;
}

/**
 * txrdma_stall_up() - the session is Up again
 * @t: its track
 * @now_ns: when
 * @v: output: what explained the Down before, when there was one
 *
 * Return: whether a Down was explained (@v filled in).
 */
bool txrdma_stall_up(struct txrdma_stall_track *t, u64 now_ns,
		     struct txrdma_stall_verdict *v)
{
	if (!t->open)
		return false;
	t->open = false;
	v->cause = txrdma_stall_explain(t, &v->stall_ns);
	v->down_ns = now_ns - t->down_at_ns;
	return true;
}
