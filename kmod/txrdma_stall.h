/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Stalls and what they explain, as pure logic (no timers, no rdma/
 * headers; the clock is the caller's, u64 nanoseconds): KUnit-tested
 * on UML.
 *
 * A host that is not scheduled for a while (a hypervisor running other
 * guests, an interrupt storm) sends no probes, and its peers declare it
 * Down although nothing died.  The host itself sees the stall: its
 * liveness timer fires late by as much.  It keeps its recent stalls in
 * a small log and reports the latest one long enough to matter (else
 * the longest) of the last two seconds in every probe, as a
 * length and an age ("I could not run for 180 ms, which ended 3 ms
 * before this probe left"); the receiver places it on its own clock and
 * keeps the peer's stalls in a second log.  When the session comes back
 * Up, the Down before it is explained by a stall of either side that
 * covers the moment of the Down and is long enough to have caused it
 * (the detection time minus one of the peer's intervals); otherwise it
 * stays unexplained: probes were lost while both hosts ran, which is
 * what a cut link or a dead peer looks like.
 *
 * The report can only reach the other side after the stall, so a Down
 * is classified when the session is Up again, never at the Down.
 *
 * A report is placed by the time its probe left, not by when it
 * arrived: the first probe after a stall is often held up on the way
 * (the stalled host's backlog, a loaded receiver), and a report placed
 * by its arrival puts the stall too late to explain the Down it caused
 * (seen in CI: a 60.6 ms stall placed 20 ms late).  Each probe carries
 * its sender's clock; the least (arrival - sending) over the current
 * second and the one before is the offset between the clocks plus the
 * quickest way a probe took, which maps a peer's time onto ours at
 * most that way late and never early.  The peer's word that it
 * declared us Down is placed the same way.
 */
#ifndef _TXRDMA_STALL_H
#define _TXRDMA_STALL_H

#include <linux/limits.h>
#include <linux/types.h>

/* Stalls each log keeps: the newest win. */
#define TXRDMA_STALL_LOG_LEN	8

/*
 * How long a stall stays in the probes' report after it ended: long
 * enough for a session that went Down meanwhile to come back Up
 * (a few probe intervals) on a host that stalls again.
 */
#define TXRDMA_STALL_REPORT_NS	(2000ULL * 1000 * 1000)

/*
 * Slack for what neither side can measure: the peer's report is placed
 * on our clock up to the quickest way of a probe late (struct
 * txrdma_stall_clock), and a timer that ran late yields 1 ms before it
 * sends (txrdma_liveness.c), so the silence a stall leaves is a little
 * longer than the stall measured.
 */
#define TXRDMA_STALL_SLACK_NS	(5ULL * 1000 * 1000)

/* The longest a report can say: U32_MAX microseconds means "capped". */
#define TXRDMA_STALL_WIRE_MAX_US	(U32_MAX - 1)

/**
 * struct txrdma_stall - an interval in which a host did not run
 * @end_ns: when it ended, on the log owner's clock
 * @len_ns: how long it was (0: an empty entry)
 */
struct txrdma_stall {
	u64 end_ns;
	u64 len_ns;
};

/**
 * struct txrdma_stall_log - the recent stalls of one host
 * @s: entries, unordered; empty ones have @len_ns 0; when none is empty
 *	the one that ended first gives way
 */
struct txrdma_stall_log {
	struct txrdma_stall s[TXRDMA_STALL_LOG_LEN];
};

/**
 * struct txrdma_stall_wire - a stall as a probe carries it
 * @len_us: its length in microseconds, 0: none to report
 * @ago_us: microseconds from its end to the probe's sending (capped)
 */
struct txrdma_stall_wire {
	u32 len_us;
	u32 ago_us;
};

/**
 * struct txrdma_stall_bounds - what a stall must be to explain a Down,
 *	from the session's parameters while it was Up
 * @peer_min_ns: the shortest stall of the peer that expires our
 *	detection: our detection time less one of the peer's intervals
 *	(and the slack)
 * @local_min_ns: the shortest stall of ours that expires the peer's
 *	detection of us: our multiplier less one, times our interval
 *	(and the slack)
 * @peer_tx_ns: the peer's interval: after our stall, the peer's Down
 *	reaches us with its next probe, up to this late
 * @peer_detect_ns: the peer's detection time of us: our multiplier
 *	times our interval
 */
struct txrdma_stall_bounds {
	u64 peer_min_ns;
	u64 local_min_ns;
	u64 peer_tx_ns;
	u64 peer_detect_ns;
};

/*
 * One window of the clock map: the offset is the least seen over the
 * current window and the one before it (however long ago that was:
 * after a long stall of the peer, its first probes are the slow ones),
 * so it follows a drift between the two clocks within two windows.
 */
#define TXRDMA_STALL_CLOCK_WIN_NS	(1000ULL * 1000 * 1000)

/**
 * struct txrdma_stall_clock - the peer's clock on ours
 * @min_off_ns: per window ([0] the current one), the least
 *	(arrival - the peer's sending time) of a probe, in our clock's
 *	units modulo 2^64
 * @win_ns: when window [0] began, on our clock
 * @disc: the peer session's discriminator the samples came from: a new
 *	one (the peer restarted, perhaps on another clock) starts afresh
 * @wins: windows that hold a sample: 0 (nothing heard), 1 or 2
 */
struct txrdma_stall_clock {
	u64 min_off_ns[2];
	u64 win_ns;
	u32 disc;
	u8 wins;
};

/* How a session left Up (txrdma_stall_down()). */
enum txrdma_stall_how {
	TXRDMA_STALL_DETECTED,	/* our detection time expired */
	TXRDMA_STALL_HEARD,	/* the peer said it declared us Down */
	TXRDMA_STALL_ADMIN,	/* an administrator, of either side */
	TXRDMA_STALL_RESTART,	/* the peer came back as a new session */
};

/**
 * struct txrdma_stall_track - one session's stalls and its open Down
 * @own: this host's stalls (its liveness timer ran late)
 * @peer: the peer's stalls, as it reported them, on our clock
 * @up: the bounds while the session is Up, refreshed before every call
 *	that may take it Down (the Down itself recomputes the session's
 *	timers)
 * @down: the bounds of the open Down
 * @clock: the peer's clock on ours, from every probe that passed its
 *	checks
 * @sent_ns: when the latest probe that passed its checks left, on our
 *	clock (txrdma_stall_clock_sent())
 * @down_at_ns: when the session left Up
 * @word_ns: for a Down the peer declared, when its word left, on our
 *	clock (txrdma_stall_clock_sent())
 * @open: a Down waits for the next Up to be explained
 * @how: enum txrdma_stall_how of that Down
 */
struct txrdma_stall_track {
	struct txrdma_stall_log own;
	struct txrdma_stall_log peer;
	struct txrdma_stall_bounds up;
	struct txrdma_stall_bounds down;
	struct txrdma_stall_clock clock;
	u64 sent_ns;
	u64 down_at_ns;
	u64 word_ns;
	bool open;
	u8 how;
};

/**
 * struct txrdma_stall_verdict - what explained a Down, at the next Up
 * @cause: enum txrdma_peer_down_cause
 * @stall_ns: the explaining stall's length, 0 when unexplained
 * @down_ns: how long the session was not Up
 */
struct txrdma_stall_verdict {
	u8 cause;
	u64 stall_ns;
	u64 down_ns;
};

void txrdma_stall_add(struct txrdma_stall_log *log, u64 end_ns, u64 len_ns);
bool txrdma_stall_covering(const struct txrdma_stall_log *log, u64 at_ns,
			   u64 min_len_ns, u64 end_slack_ns,
			   struct txrdma_stall *out);
void txrdma_stall_report(const struct txrdma_stall_log *log, u64 now_ns,
			 u64 min_len_ns, struct txrdma_stall_wire *w);
u64 txrdma_stall_heard(struct txrdma_stall_log *log,
		       const struct txrdma_stall_wire *w, u64 sent_ns);
void txrdma_stall_bounds(struct txrdma_stall_bounds *b, u64 detect_ns,
			 u8 remote_mult, u64 tx_interval_ns, u8 local_mult);
u8 txrdma_stall_explain(const struct txrdma_stall_track *t,
			u64 *stall_ns);
void txrdma_stall_down(struct txrdma_stall_track *t, u64 now_ns, u8 how,
		       u64 word_ns);
void txrdma_stall_clock_sample(struct txrdma_stall_clock *c, u32 disc,
			       u64 tx_ns, u64 now_ns);
u64 txrdma_stall_clock_sent(const struct txrdma_stall_clock *c, u64 tx_ns,
			    u64 now_ns);
bool txrdma_stall_up(struct txrdma_stall_track *t, u64 now_ns,
		     struct txrdma_stall_verdict *v);
void txrdma_stall_admin(struct txrdma_stall_track *t);

#endif /* _TXRDMA_STALL_H */
