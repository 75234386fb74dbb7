// SPDX-License-Identifier: GPL-2.0-only
/*
 * BFD-style liveness state machine (RFC 5880, asynchronous mode).
 *
 * Timing: our packets go every max(our desired tx, peer's required rx),
 * less 0-25 % jitter; the peer is declared dead when nothing arrived for
 * its detect mult x max(our required rx, its desired tx).  Unlike RFC
 * 5880 6.8.3, a session that is not Up sends at the configured rate, not
 * at one packet per second: peers are configured by an operator (there
 * are no sessions to strangers to protect against), a packet is 24
 * bytes on a QP that exists anyway, and a restarted peer must be usable
 * again within a few intervals, not seconds, because transactions wait
 * on it.
 *
 * Time: the clock is a free-running u64 that may start anywhere and
 * wrap; times are compared by the sign of their difference, so a
 * deadline up to 2^63 ns ahead is ordered correctly across a wrap.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/time64.h>

#include "txrdma_bfd.h"

/* RFC 5880 6.8.1: bfd.RemoteMinRxInterval starts at 1 us */
#define BFD_REMOTE_MIN_RX_INIT	1

/* true if time @a is at or after time @b (modulo 2^64) */
static bool bfd_after_eq(u64 a, u64 b)
{
	return (s64)(a - b) >= 0;
}

/**
 * txrdma_bfd_cfg_default() - fill in txrdma's default parameters
 * @cfg: parameters to fill
 */
void txrdma_bfd_cfg_default(struct txrdma_bfd_cfg *cfg)
{
	cfg->desired_min_tx_us = TXRDMA_BFD_DEF_TX_US;
	cfg->required_min_rx_us = TXRDMA_BFD_DEF_RX_US;
	cfg->detect_mult = TXRDMA_BFD_DEF_MULT;
}

/**
 * txrdma_bfd_cfg_check() - validate local parameters
 * @cfg: parameters
 * @reason: set to a static message for extack when invalid; may be NULL
 *
 * Intervals below 1 ms cannot be kept by a timer on a loaded host and
 * would only produce false failures; above 60 s, or a multiplier above
 * 50, liveness detection is meaningless.  A multiplier of 0 would
 * declare the peer dead on every tick.
 *
 * Return: 0 or -EINVAL.
 */
int txrdma_bfd_cfg_check(const struct txrdma_bfd_cfg *cfg,
			 const char **reason)
{
	const char *why = NULL;

	if (cfg->desired_min_tx_us < TXRDMA_BFD_MIN_INTERVAL_US)
		why = "BFD tx interval below 1 ms";
	else if (cfg->desired_min_tx_us > TXRDMA_BFD_MAX_INTERVAL_US)
		why = "BFD tx interval above 60 s";
	else if (cfg->required_min_rx_us < TXRDMA_BFD_MIN_INTERVAL_US)
		why = "BFD rx interval below 1 ms";
	else if (cfg->required_min_rx_us > TXRDMA_BFD_MAX_INTERVAL_US)
		why = "BFD rx interval above 60 s";
	else if (!cfg->detect_mult)
		why = "BFD detect multiplier is 0";
	else if (cfg->detect_mult > TXRDMA_BFD_MAX_MULT)
		why = "BFD detect multiplier above 50";
	if (!why)
		return 0;
	if (reason)
		*reason = why;
	return -EINVAL;
}

/**
 * txrdma_bfd_pkt_check() - validate a control packet's fields
 * @pkt: packet, decoded or about to be encoded
 *
 * The checks of RFC 5880 6.8.6 that need nothing but the packet, plus
 * what txrdma does not implement: authentication and demand mode
 * (-EPROTO: a valid BFD packet we cannot honour), and a peer asking
 * for no packets at all (required rx 0), which would leave it unable
 * to detect our death.
 *
 * Return: 0, -EPROTO for a version or feature we do not speak, or
 * -EINVAL for a malformed packet.
 */
int txrdma_bfd_pkt_check(const struct txrdma_bfd_pkt *pkt)
{
	if (pkt->version != TXRDMA_BFD_VERSION)
		return -EPROTO;
	if (pkt->flags & (TXRDMA_BFD_PKT_AUTH | TXRDMA_BFD_PKT_DEMAND))
		return -EPROTO;
	if (pkt->flags & TXRDMA_BFD_PKT_MULTI)
		return -EINVAL;
	if ((pkt->flags & TXRDMA_BFD_PKT_POLL) &&
	    (pkt->flags & TXRDMA_BFD_PKT_FINAL))
		return -EINVAL;
	if (pkt->flags & ~(TXRDMA_BFD_PKT_POLL | TXRDMA_BFD_PKT_FINAL |
			   TXRDMA_BFD_PKT_CPI))
		return -EINVAL;
	if (pkt->state > TXRDMA_BFD_UP || pkt->diag > 31)
		return -EINVAL;
	if (!pkt->detect_mult || !pkt->my_disc)
		return -EINVAL;
	if (!pkt->your_disc && pkt->state != TXRDMA_BFD_DOWN &&
	    pkt->state != TXRDMA_BFD_ADMIN_DOWN)
		return -EINVAL;
	/* 0 is reserved for the desired tx interval */
	if (!pkt->desired_min_tx_us)
		return -EINVAL;
	if (!pkt->required_min_rx_us)
		return -EPROTO;
	return 0;
}

/* Explicit byte order so the layout never depends on the host */
static void bfd_put32(u8 *p, u32 v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static u32 bfd_get32(const u8 *p)
{
	return (u32)p[0] << 24 | (u32)p[1] << 16 | (u32)p[2] << 8 | p[3];
}

/**
 * txrdma_bfd_encode() - write a packet in its 24-byte wire layout
 * @pkt: packet
 * @buf: output, TXRDMA_BFD_PKT_LEN bytes
 *
 * Layout (big-endian, RFC 5880 4.1 without the auth section): version
 * (3 bits) and diag (5), state (2) and P F C A D M flags, detect mult,
 * length (24), my disc, your disc, desired min tx, required min rx,
 * required min echo rx (always 0: no echo function).
 *
 * Return: 0, or the error of txrdma_bfd_pkt_check(): a packet the peer
 * would reject is never built.
 */
int txrdma_bfd_encode(const struct txrdma_bfd_pkt *pkt,
		      u8 buf[TXRDMA_BFD_PKT_LEN])
{
	int err = txrdma_bfd_pkt_check(pkt);

	if (err)
		return err;
	buf[0] = pkt->version << 5 | pkt->diag;
	buf[1] = pkt->state << 6 | pkt->flags;
	buf[2] = pkt->detect_mult;
	buf[3] = TXRDMA_BFD_PKT_LEN;
	bfd_put32(buf + 4, pkt->my_disc);
	bfd_put32(buf + 8, pkt->your_disc);
	bfd_put32(buf + 12, pkt->desired_min_tx_us);
	bfd_put32(buf + 16, pkt->required_min_rx_us);
	bfd_put32(buf + 20, 0);
	return 0;
}

/**
 * txrdma_bfd_decode() - parse and validate a received packet
 * @pkt: output, meaningful only on success
 * @buf: received bytes
 * @len: how many; more than 24 is padding and ignored
 *
 * The length field must be exactly 24: without authentication nothing
 * may follow the fixed part, and a larger value would claim bytes the
 * sender did not mean as BFD.  The echo interval is ignored.
 *
 * Return: 0, -EINVAL (short or malformed) or -EPROTO (unsupported).
 */
int txrdma_bfd_decode(struct txrdma_bfd_pkt *pkt, const u8 *buf, size_t len)
{
	if (len < TXRDMA_BFD_PKT_LEN)
		return -EINVAL;
	pkt->version = buf[0] >> 5;
	pkt->diag = buf[0] & 0x1f;
	pkt->state = buf[1] >> 6;
	pkt->flags = buf[1] & 0x3f;
	pkt->detect_mult = buf[2];
	pkt->my_disc = bfd_get32(buf + 4);
	pkt->your_disc = bfd_get32(buf + 8);
	pkt->desired_min_tx_us = bfd_get32(buf + 12);
	pkt->required_min_rx_us = bfd_get32(buf + 16);
	/* version first: another version may lay out the rest differently */
	if (pkt->version != TXRDMA_BFD_VERSION)
		return -EPROTO;
	if (buf[3] != TXRDMA_BFD_PKT_LEN && !(pkt->flags & TXRDMA_BFD_PKT_AUTH))
		return -EINVAL;
	return txrdma_bfd_pkt_check(pkt);
}

/* Recompute the negotiated tx interval and detection time (6.8.7, 6.8.4) */
static void bfd_update_timers(struct txrdma_bfd *s)
{
	u32 tx = max(s->eff_tx_us, s->remote_min_rx_us);
	u32 rx = max(s->eff_rx_us, s->remote_min_tx_us);

	s->tx_interval_ns = (u64)tx * NSEC_PER_USEC;
	/* at most 255 * 2^32 us, about 1.1e15 ns: no overflow */
	s->detect_ns = (u64)s->remote_mult * rx * NSEC_PER_USEC;
}

/*
 * Not Up: no detection of an Up session to protect, so the latest
 * parameters (queued ones included) apply in full and any poll ends.
 */
static void bfd_apply_all(struct txrdma_bfd *s)
{
	s->flags &= ~TXRDMA_BFD_S_POLL;
	if (s->flags & TXRDMA_BFD_S_QUEUED) {
		s->flags &= ~TXRDMA_BFD_S_QUEUED;
		s->cfg = s->queued;
	}
	s->eff_tx_us = s->cfg.desired_min_tx_us;
	s->eff_rx_us = s->cfg.required_min_rx_us;
	bfd_update_timers(s);
}

/*
 * Start a poll sequence for @cfg while Up (RFC 5880 6.8.3).  Changes
 * that cannot cause a false failure apply at once: sending faster, and
 * waiting longer before declaring the peer dead.  The others wait for
 * the peer's Final, which proves it has seen the new values: sending
 * slower (its detection time still assumes our old rate), and a
 * shorter detection time (it still sends at our old required rate).
 */
static void bfd_poll_start(struct txrdma_bfd *s,
			   const struct txrdma_bfd_cfg *cfg)
{
	s->eff_tx_us = min(s->cfg.desired_min_tx_us, cfg->desired_min_tx_us);
	s->eff_rx_us = max(s->cfg.required_min_rx_us,
			   cfg->required_min_rx_us);
	s->cfg = *cfg;
	s->flags |= TXRDMA_BFD_S_POLL;
	bfd_update_timers(s);
}

static u32 bfd_set_state(struct txrdma_bfd *s, u8 state, u8 diag)
{
	u32 ev = TXRDMA_BFD_EV_STATE;

	if (s->state == TXRDMA_BFD_UP)
		ev |= TXRDMA_BFD_EV_DOWN;
	if (state == TXRDMA_BFD_UP) {
		ev |= TXRDMA_BFD_EV_UP;
		/* the reason for the last Down no longer describes us */
		diag = TXRDMA_BFD_DIAG_NONE;
	} else {
		bfd_apply_all(s);
	}
	s->state = state;
	s->diag = diag;
	return ev;
}

/**
 * txrdma_bfd_init() - start a session in Down
 * @s: session
 * @cfg: local parameters (txrdma_bfd_cfg_check() must accept them)
 * @local_disc: our discriminator, non-zero and unique on this host
 * @now_ns: current clock
 *
 * The first packet is due at once, so that the peer hears of us
 * without waiting an interval.
 *
 * Return: 0 or -EINVAL.
 */
int txrdma_bfd_init(struct txrdma_bfd *s, const struct txrdma_bfd_cfg *cfg,
		    u32 local_disc, u64 now_ns)
{
	if (txrdma_bfd_cfg_check(cfg, NULL) || !local_disc)
		return -EINVAL;
	*s = (struct txrdma_bfd) {
		.cfg = *cfg,
		.eff_tx_us = cfg->desired_min_tx_us,
		.eff_rx_us = cfg->required_min_rx_us,
		.state = TXRDMA_BFD_DOWN,
		.remote_state = TXRDMA_BFD_DOWN,
		.local_disc = local_disc,
		.remote_min_rx_us = BFD_REMOTE_MIN_RX_INIT,
		.last_rx_ns = now_ns,
		.next_tx_ns = now_ns,
	};
	bfd_update_timers(s);
	return 0;
}

/**
 * txrdma_bfd_rx() - apply a received packet (RFC 5880 6.8.6)
 * @s: session
 * @pkt: packet, from txrdma_bfd_decode()
 * @now_ns: current clock (time of reception)
 *
 * The caller routes a packet to its peer's session (by QP), so a zero
 * Your Discriminator still finds the right session.  A packet naming
 * another discriminator of ours is stale or misrouted and is dropped.
 * A packet from a new discriminator while Init or Up means the peer
 * restarted: the session goes Down (Neighbor Signaled Down) and the
 * packet is then processed as the new peer's first, so the handshake
 * restarts without waiting for a timeout.  This relies on a peer's
 * packets arriving in order, which its RC QP guarantees.
 *
 * Return: TXRDMA_BFD_EV_* bits.
 */
u32 txrdma_bfd_rx(struct txrdma_bfd *s, const struct txrdma_bfd_pkt *pkt,
		  u64 now_ns)
{
	u32 ev = 0;

	if (txrdma_bfd_pkt_check(pkt) ||
	    (pkt->your_disc && pkt->your_disc != s->local_disc)) {
		s->rx_dropped++;
		return TXRDMA_BFD_EV_DROP;
	}
	s->rx_pkts++;
	if ((s->state == TXRDMA_BFD_INIT || s->state == TXRDMA_BFD_UP) &&
	    s->remote_disc && pkt->my_disc != s->remote_disc) {
		s->restarts++;
		ev |= TXRDMA_BFD_EV_RESTART;
		ev |= bfd_set_state(s, TXRDMA_BFD_DOWN,
				    TXRDMA_BFD_DIAG_NEIGHBOR_DOWN);
	}
	s->remote_disc = pkt->my_disc;
	s->remote_state = pkt->state;
	s->remote_diag = pkt->diag;
	s->remote_mult = pkt->detect_mult;
	s->remote_min_tx_us = pkt->desired_min_tx_us;
	s->remote_min_rx_us = pkt->required_min_rx_us;
	if ((pkt->flags & TXRDMA_BFD_PKT_FINAL) &&
	    (s->flags & TXRDMA_BFD_S_POLL)) {
		/* the peer has seen our values: all of them apply now */
		s->flags &= ~TXRDMA_BFD_S_POLL;
		s->eff_tx_us = s->cfg.desired_min_tx_us;
		s->eff_rx_us = s->cfg.required_min_rx_us;
		ev |= TXRDMA_BFD_EV_POLL_DONE;
		/* values set during the poll need a poll of their own */
		if (s->flags & TXRDMA_BFD_S_QUEUED) {
			s->flags &= ~TXRDMA_BFD_S_QUEUED;
			bfd_poll_start(s, &s->queued);
		}
	}
	bfd_update_timers(s);
	s->last_rx_ns = now_ns;
	s->flags |= TXRDMA_BFD_S_HEARD;

	if (s->state == TXRDMA_BFD_ADMIN_DOWN)
		return ev;

	if (pkt->state == TXRDMA_BFD_ADMIN_DOWN) {
		if (s->state != TXRDMA_BFD_DOWN)
			ev |= bfd_set_state(s, TXRDMA_BFD_DOWN,
					    TXRDMA_BFD_DIAG_NEIGHBOR_DOWN);
	} else if (s->state == TXRDMA_BFD_DOWN) {
		if (pkt->state == TXRDMA_BFD_DOWN)
			ev |= bfd_set_state(s, TXRDMA_BFD_INIT, s->diag);
		else if (pkt->state == TXRDMA_BFD_INIT)
			ev |= bfd_set_state(s, TXRDMA_BFD_UP, s->diag);
	} else if (s->state == TXRDMA_BFD_INIT) {
		if (pkt->state != TXRDMA_BFD_DOWN)
			ev |= bfd_set_state(s, TXRDMA_BFD_UP, s->diag);
	} else if (pkt->state == TXRDMA_BFD_DOWN) {
		ev |= bfd_set_state(s, TXRDMA_BFD_DOWN,
				    TXRDMA_BFD_DIAG_NEIGHBOR_DOWN);
	}

	if (pkt->flags & TXRDMA_BFD_PKT_POLL) {
		/* RFC 5880 6.8.7: answer at once, regardless of the timer */
		s->flags |= TXRDMA_BFD_S_FINAL;
		ev |= TXRDMA_BFD_EV_TX_NOW;
	}
	return ev;
}

/**
 * txrdma_bfd_tick() - run the timers
 * @s: session
 * @now_ns: current clock
 *
 * Call when the deadline of txrdma_bfd_next_deadline() is reached,
 * after every packet already received has gone through
 * txrdma_bfd_rx(): a packet that waited behind a stall must count.
 * When the detection time has passed since the last packet, Init and
 * Up go Down (Control Detection Time Expired) and, in every state, the
 * peer's discriminator is forgotten (RFC 5880 6.8.1) so that a peer
 * that restarted meanwhile is accepted.  The expiry is exactly
 * @detect_ns after the last packet: 1 ns earlier the session is alive.
 *
 * Return: TXRDMA_BFD_EV_* bits; TXRDMA_BFD_EV_TX_NOW when a periodic
 * packet is due (send it with txrdma_bfd_build_tx()).
 */
u32 txrdma_bfd_tick(struct txrdma_bfd *s, u64 now_ns)
{
	u32 ev = 0;

	if ((s->flags & TXRDMA_BFD_S_HEARD) &&
	    bfd_after_eq(now_ns, s->last_rx_ns + s->detect_ns)) {
		ev |= TXRDMA_BFD_EV_TIMEOUT;
		s->flags &= ~TXRDMA_BFD_S_HEARD;
		s->remote_disc = 0;
		s->remote_state = TXRDMA_BFD_DOWN;
		if (s->state == TXRDMA_BFD_INIT || s->state == TXRDMA_BFD_UP)
			ev |= bfd_set_state(s, TXRDMA_BFD_DOWN,
					    TXRDMA_BFD_DIAG_DETECT_EXPIRED);
	}
	if (bfd_after_eq(now_ns, s->next_tx_ns))
		ev |= TXRDMA_BFD_EV_TX_NOW;
	return ev;
}

/**
 * txrdma_bfd_excuse_stall() - do not count our own stall as the peer's
 *	silence
 * @s: session
 * @now_ns: current clock
 * @stall_ns: how long we could not run (our timer fired this late)
 *
 * A host that was not scheduled (an overloaded hypervisor, a long
 * interrupt storm) could neither receive nor send; without this, it
 * would blame every peer for the silence its own stall caused.  The
 * detection timer is pushed back by the stall, never past @now_ns, so a
 * peer that really died is declared Down at most @stall_ns later.
 * Call before txrdma_bfd_tick() when the timer ran late.
 */
void txrdma_bfd_excuse_stall(struct txrdma_bfd *s, u64 now_ns, u64 stall_ns)
{
	u64 t;

	if (!(s->flags & TXRDMA_BFD_S_HEARD))
		return;
	t = s->last_rx_ns + stall_ns;
	if (bfd_after_eq(t, now_ns))
		t = now_ns;
	s->last_rx_ns = t;
	s->stalls++;
}

/**
 * txrdma_bfd_next_deadline() - when the caller's timer must fire next
 * @s: session
 *
 * Return: the earlier of the next periodic packet and, while the
 * detection timer runs, the detection deadline.
 */
u64 txrdma_bfd_next_deadline(const struct txrdma_bfd *s)
{
	u64 t = s->next_tx_ns;
	u64 detect = s->last_rx_ns + s->detect_ns;

	if ((s->flags & TXRDMA_BFD_S_HEARD) && !bfd_after_eq(detect, t))
		t = detect;
	return t;
}

/**
 * txrdma_bfd_jitter_ns() - an interval less RFC 5880 6.8.7 jitter
 * @interval_ns: negotiated interval
 * @detect_mult: local detection multiplier
 * @rnd: random value, uniform over u32
 *
 * Jitter keeps many sessions started together from sending in bursts.
 * The result is 75 % to 100 % of @interval_ns, or 75 % to 90 % with a
 * multiplier of 1, where a single late packet must not cost the
 * session.
 *
 * Return: the delay before the next packet, in ns.
 */
u64 txrdma_bfd_jitter_ns(u64 interval_ns, u8 detect_mult, u32 rnd)
{
	u64 base = interval_ns - interval_ns / 4;
	u64 span = detect_mult == 1 ? div_u64(interval_ns * 3, 20) :
				      interval_ns / 4;

	/* (span * rnd) >> 32 < span: the top is never quite reached */
	return base + mul_u64_u32_shr(span, rnd, 32);
}

/**
 * txrdma_bfd_build_tx() - fill in the next packet and reschedule
 * @s: session
 * @pkt: output
 * @now_ns: current clock (time of sending)
 * @rnd: random u32 for the jitter (get_random_u32() in the module)
 *
 * A pending Final answers a poll; a packet never carries both Poll and
 * Final, so an own poll resumes with the next packet.  The next
 * periodic packet is scheduled a jittered interval after this one,
 * whatever triggered it.
 */
void txrdma_bfd_build_tx(struct txrdma_bfd *s, struct txrdma_bfd_pkt *pkt,
			 u64 now_ns, u32 rnd)
{
	*pkt = (struct txrdma_bfd_pkt) {
		.version = TXRDMA_BFD_VERSION,
		.diag = s->diag,
		.state = s->state,
		.detect_mult = s->cfg.detect_mult,
		.my_disc = s->local_disc,
		.your_disc = s->remote_disc,
		.desired_min_tx_us = s->cfg.desired_min_tx_us,
		.required_min_rx_us = s->cfg.required_min_rx_us,
	};
	if (s->flags & TXRDMA_BFD_S_FINAL) {
		pkt->flags = TXRDMA_BFD_PKT_FINAL;
		s->flags &= ~TXRDMA_BFD_S_FINAL;
	} else if (s->flags & TXRDMA_BFD_S_POLL) {
		pkt->flags = TXRDMA_BFD_PKT_POLL;
	}
	s->tx_pkts++;
	s->next_tx_ns = now_ns + txrdma_bfd_jitter_ns(s->tx_interval_ns,
						      s->cfg.detect_mult, rnd);
}

/**
 * txrdma_bfd_admin_down() - take the session down by administration
 * @s: session
 * @now_ns: current clock (unused: kept for a uniform calling convention)
 *
 * Packets keep going out, with state AdminDown, so that the peer goes
 * Down at once with Neighbor Signaled Down instead of timing out and
 * blaming the network; received packets are then ignored.
 *
 * Return: TXRDMA_BFD_EV_* bits.
 */
u32 txrdma_bfd_admin_down(struct txrdma_bfd *s, u64 now_ns)
{
	if (s->state == TXRDMA_BFD_ADMIN_DOWN)
		return 0;
	s->flags &= ~(TXRDMA_BFD_S_HEARD | TXRDMA_BFD_S_FINAL);
	return bfd_set_state(s, TXRDMA_BFD_ADMIN_DOWN,
			     TXRDMA_BFD_DIAG_ADMIN_DOWN);
}

/**
 * txrdma_bfd_admin_up() - leave AdminDown for Down
 * @s: session
 * @now_ns: current clock: a packet is due at once
 *
 * The detection timer restarts with the next packet received.
 *
 * Return: TXRDMA_BFD_EV_* bits (TXRDMA_BFD_EV_TX_NOW included).
 */
u32 txrdma_bfd_admin_up(struct txrdma_bfd *s, u64 now_ns)
{
	if (s->state != TXRDMA_BFD_ADMIN_DOWN)
		return 0;
	s->next_tx_ns = now_ns;
	return bfd_set_state(s, TXRDMA_BFD_DOWN, TXRDMA_BFD_DIAG_NONE) |
	       TXRDMA_BFD_EV_TX_NOW;
}

/**
 * txrdma_bfd_set_cfg() - change the local parameters
 * @s: session
 * @cfg: new parameters
 * @now_ns: current clock (unused: the change rides on periodic packets)
 * @reason: set to a static message for extack when invalid; may be NULL
 *
 * Not Up: everything applies at once (no detection of an Up session to
 * protect).  Up: a poll sequence starts, the new values are advertised
 * in every packet until the peer's Final, and only the safe half of
 * the change applies before it (see bfd_poll_start()).  A change made
 * during a poll is queued and gets its own poll after the current one,
 * because a Final cannot say which Poll it answers.  The multiplier
 * applies at once: the peer uses the value of each packet it receives.
 *
 * Return: 0 or -EINVAL.
 */
int txrdma_bfd_set_cfg(struct txrdma_bfd *s, const struct txrdma_bfd_cfg *cfg,
		       u64 now_ns, const char **reason)
{
	int err = txrdma_bfd_cfg_check(cfg, reason);

	if (err)
		return err;
	if (s->state != TXRDMA_BFD_UP) {
		s->cfg = *cfg;
		s->flags &= ~TXRDMA_BFD_S_QUEUED;
		bfd_apply_all(s);
		return 0;
	}
	if (s->flags & TXRDMA_BFD_S_POLL) {
		s->queued = *cfg;
		s->flags |= TXRDMA_BFD_S_QUEUED;
		s->cfg.detect_mult = cfg->detect_mult;
		return 0;
	}
	bfd_poll_start(s, cfg);
	return 0;
}

/**
 * txrdma_bfd_state_name() - name of a state, as RFC 5880 spells it
 * @state: enum txrdma_bfd_state
 *
 * Return: a static string, "unknown" if out of range.
 */
const char *txrdma_bfd_state_name(u8 state)
{
	switch (state) {
	case TXRDMA_BFD_ADMIN_DOWN:
		return "AdminDown";
	case TXRDMA_BFD_DOWN:
		return "Down";
	case TXRDMA_BFD_INIT:
		return "Init";
	case TXRDMA_BFD_UP:
		return "Up";
	}
	return "unknown";
}

/**
 * txrdma_bfd_diag_name() - name of a diagnostic code
 * @diag: enum txrdma_bfd_diag or another RFC 5880 code
 *
 * Return: a static string; codes txrdma never sends still get their
 * RFC name, since a peer of another implementation may send them.
 */
const char *txrdma_bfd_diag_name(u8 diag)
{
	static const char * const names[] = {
		"none", "detection-time-expired", "echo-failed",
		"neighbor-down", "forwarding-reset", "path-down",
		"concatenated-path-down", "admin-down",
		"reverse-concatenated-path-down",
	};

	return diag < ARRAY_SIZE(names) ? names[diag] : "unknown";
}
