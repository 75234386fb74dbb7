// SPDX-License-Identifier: GPL-2.0-only
/*
 * Credit-based flow control: see txrdma_credit.h.
 *
 * Placement rule, shared by both sides: a frame of @units starts at
 * (head mod ring_units) if it fits before the end of the ring;
 * otherwise the rest of the ring is skipped and it starts at unit 0.
 * The receiver learns the start from the immediate data and checks it
 * against the same rule, so the two never disagree silently.
 */
#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/log2.h>

#include "txrdma_credit.h"

/* Largest ring: unit counters must stay comparable modulo 2^31. */
#define TXRDMA_CREDIT_MAX_UNITS	BIT(30)

static bool txrdma_credit_ring_ok(u32 ring_units)
{
	return ring_units >= 2 && ring_units <= TXRDMA_CREDIT_MAX_UNITS &&
	       is_power_of_2(ring_units);
}

/* Units to skip so that @units starting at @pos do not wrap. */
static u32 txrdma_credit_skip(u32 ring_units, u32 pos, u32 units)
{
	u32 off = pos & (ring_units - 1);

	return off + units > ring_units ? ring_units - off : 0;
}

/**
 * txrdma_credit_tx_init() - a sender facing a ring of @ring_units
 * @c: state to initialise
 * @ring_units: the peer's receive ring, a power of two, 2..2^30
 *
 * Return: 0 or -EINVAL.
 */
int txrdma_credit_tx_init(struct txrdma_credit_tx *c, u32 ring_units)
{
	if (!txrdma_credit_ring_ok(ring_units))
		return -EINVAL;
	*c = (struct txrdma_credit_tx) { .ring_units = ring_units };
	return 0;
}

/* Credits left: units that may still be placed. */
u32 txrdma_credit_tx_free(const struct txrdma_credit_tx *c)
{
	return c->ring_units - (c->head - c->released);
}

/**
 * txrdma_credit_place() - take credits for a frame
 * @c: sender
 * @units: the frame's size in units (txrdma_frame_units())
 * @unit: where the frame starts in the peer's ring
 *
 * Return: 0 with @c->head advanced past the frame (and any skipped
 * tail); -ENOSPC when the credits do not cover it yet (counted in
 * @c->stalls; nothing changes, retry after an update); -EMSGSIZE when
 * the frame could never fit (more than half the ring, which would let
 * one skipped tail plus one frame exceed it).
 */
int txrdma_credit_place(struct txrdma_credit_tx *c, u32 units, u32 *unit)
{
	u32 skip;

	if (!units || units > c->ring_units / 2)
		return -EMSGSIZE;
	skip = txrdma_credit_skip(c->ring_units, c->head, units);
	if (skip + units > txrdma_credit_tx_free(c)) {
		c->stalls++;
		return -ENOSPC;
	}
	c->head += skip;
	*unit = c->head & (c->ring_units - 1);
	c->head += units;
	return 0;
}

/**
 * txrdma_credit_tx_update() - the peer reports its released units
 * @c: sender
 * @released: the peer's counter (frame->consumed, or unwrapped from an
 *	explicit update)
 *
 * Updates arrive in order on one RC QP, so the counter never goes back
 * and never passes what was placed.
 *
 * Return: 0, or -EPROTO for a report that breaks either rule (the
 * endpoint is then failed: the peer cannot be trusted to count).
 */
int txrdma_credit_tx_update(struct txrdma_credit_tx *c, u32 released)
{
	int ret = txrdma_credit_tx_update_check(c, released);

	if (!ret)
		c->released = released;
	return ret;
}

/* txrdma_credit_tx_update()'s verdict, changing nothing. */
int txrdma_credit_tx_update_check(const struct txrdma_credit_tx *c,
				  u32 released)
{
	if ((s32)(released - c->released) < 0 ||
	    released - c->released > c->head - c->released)
		return -EPROTO;
	return 0;
}

/**
 * txrdma_credit_rx_init() - a receiver with a ring of @ring_units
 * @r: state to initialise
 * @ring_units: a power of two, 2..2^30
 *
 * Return: 0 or -EINVAL.
 */
int txrdma_credit_rx_init(struct txrdma_credit_rx *r, u32 ring_units)
{
	if (!txrdma_credit_ring_ok(ring_units))
		return -EINVAL;
	*r = (struct txrdma_credit_rx) {
		.ring_units = ring_units,
		.max_units = ring_units / 2,
	};
	return 0;
}

/**
 * txrdma_credit_rx_frame() - account a frame that arrived
 * @r: receiver
 * @unit: where the sender says it starts (immediate data)
 * @units: its size in units
 *
 * Return: 0 with @r->tail past it; -EPROTO when it is larger than the
 * receiver takes (@r->max_units: half the ring, or what its process
 * declared) or does not start where the placement rule puts it;
 * -ENOSPC when it overruns the units our
 * process still holds (the sender ignored its credits).  Either error
 * fails the endpoint; nothing changes.
 */
int txrdma_credit_rx_frame(struct txrdma_credit_rx *r, u32 unit, u32 units)
{
	int ret = txrdma_credit_rx_frame_check(r, unit, units);

	if (!ret)
		r->tail += txrdma_credit_skip(r->ring_units, r->tail, units) +
			   units;
	return ret;
}

/* txrdma_credit_rx_frame()'s verdict, changing nothing. */
int txrdma_credit_rx_frame_check(const struct txrdma_credit_rx *r, u32 unit,
				 u32 units)
{
	u32 skip;

	if (!units || units > r->max_units)
		return -EPROTO;
	skip = txrdma_credit_skip(r->ring_units, r->tail, units);
	if (unit != ((r->tail + skip) & (r->ring_units - 1)))
		return -EPROTO;
	if (r->tail + skip + units - r->consumed > r->ring_units)
		return -ENOSPC;
	return 0;
}

/**
 * txrdma_credit_rx_release() - our process released units up to @consumed
 * @r: receiver
 * @consumed: the process's new head in units (read from shared memory)
 *
 * A process that reads frames ahead of the kernel (uapi "Reading
 * ahead", @r->ahead) releases them before they arrived here: a head
 * ahead of the tail by at most the ring counts as released up to the
 * tail, and the rest is taken by a later call, after the frames
 * arrived.  No credit is ever returned for units that did not arrive.
 *
 * Return: 0, or -EINVAL when the value is behind the last release or
 * ahead of what arrived (by more than a ring when @r->ahead): garbage
 * from the process; nothing changes.
 */
int txrdma_credit_rx_release(struct txrdma_credit_rx *r, u32 consumed)
{
	if ((s32)(consumed - r->consumed) < 0 ||
	    consumed - r->consumed > r->tail - r->consumed +
				     (r->ahead ? r->ring_units : 0))
		return -EINVAL;
	r->consumed = txrdma_credit_rx_clamp(r, consumed);
	return 0;
}

/* A head that the process may have released ahead, as far as it arrived. */
u32 txrdma_credit_rx_clamp(const struct txrdma_credit_rx *r, u32 consumed)
{
	return (s32)(consumed - r->tail) > 0 ? r->tail : consumed;
}

/**
 * txrdma_credit_rx_max_frame() - the sender cannot place frames above @units
 * @r: receiver
 * @units: the largest frame that fits the largest payload; only lowers
 *	@r->max_units (ring_units / 2 is the credit rule's own bound)
 */
void txrdma_credit_rx_max_frame(struct txrdma_credit_rx *r, u32 units)
{
	if (units && units < r->max_units)
		r->max_units = units;
}

/**
 * txrdma_credit_rx_due() - is an explicit update due?
 * @ring_units: the receive ring
 * @max_units: the largest frame the sender may place; 0: the sender
 *	waits for every release (a session's, whose SENDs complete on
 *	our reports): due then whenever everything that arrived is
 *	released, and whenever TXRDMA_CREDIT_SESSION_UNITS are released
 *	unreported (the sender holds a slot per frame unreported, and
 *	our process may hold one frame while it waits for the next: 32
 *	units are fewer than the frames of the sender's slots)
 * @tail: units arrived
 * @consumed: units the process released (@reported..@tail)
 * @reported: units last reported to the sender
 *
 * Due when a quarter of the ring was released unreported (a stream
 * gets its credits back in big steps), or when everything that arrived
 * is released and the sender could be waiting for some of it: once
 * the update lands it would see @ring_units - (@tail - @reported) free,
 * and a frame needs at most 2 * @max_units - 1 (the frame and a tail it
 * skips, shorter than the frame).  Without the second condition every
 * message that empties the ring would cost an update of its own: in a
 * ping-pong that is an RDMA WRITE per message more, when the reply a
 * moment later carries the same credits.  A sender that can still place
 * any frame gets them with the next message that goes its way or the
 * next quarter; one that cannot gets the update now.
 *
 * Return: true when an explicit update should be sent.
 */
bool txrdma_credit_rx_due(u32 ring_units, u32 max_units, u32 tail,
			  u32 consumed, u32 reported)
{
	u32 unreported = consumed - reported;

	if (!unreported)
		return false;
	if (unreported >= ring_units / 4)
		return true;
	if (!max_units && unreported >= TXRDMA_CREDIT_SESSION_UNITS)
		return true;
	if (consumed != tail)
		return false;
	return !max_units || ring_units - unreported < 2 * max_units - 1;
}

/* The max_units argument of txrdma_credit_rx_due() for @r. */
u32 txrdma_credit_rx_due_units(const struct txrdma_credit_rx *r)
{
	return r->every_empty ? 0 : r->max_units;
}

/* txrdma_credit_rx_due() on the receiver's own counters. */
bool txrdma_credit_rx_should_update(const struct txrdma_credit_rx *r)
{
	return txrdma_credit_rx_due(r->ring_units, txrdma_credit_rx_due_units(r),
				    r->tail, r->consumed, r->reported);
}

/* The value to send now (in a frame or an update); it is then reported. */
u32 txrdma_credit_rx_report(struct txrdma_credit_rx *r)
{
	r->reported = r->consumed;
	return r->consumed;
}

/**
 * txrdma_credit_unwrap31() - a full counter from its low 31 bits
 * @last: the full counter last known
 * @value31: the new value modulo 2^31 (an explicit update's immediate)
 *
 * Valid while the counter moves less than 2^30 between updates, which
 * the ring size bound guarantees.
 */
u32 txrdma_credit_unwrap31(u32 last, u32 value31)
{
	return last + ((value31 - last) & ((1U << 31) - 1));
}
