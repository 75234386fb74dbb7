// SPDX-License-Identifier: GPL-2.0-only
/*
 * Pool accounting.
 *
 * The pool keeps @min ready QPs while the peer is up, never more than
 * @max QPs alive (ready + lent + connecting), grows when takes find it
 * empty (each miss asks for one more ready QP, up to @max) and gives
 * that growth back when nothing was taken for TXRDMA_POOL_IDLE_NS.  A
 * QP that errors is never lent again: it is counted as closing and a
 * replacement is asked for.  Failed connection attempts back off
 * exponentially from 10 ms to 1 s, so an unreachable peer costs a few
 * attempts a second, not a storm; a success resets the backoff.  While
 * the peer is down nothing is connected, and everything it had is
 * closed at once: users learn immediately, and the pool refills by
 * itself when liveness says the peer is back.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/string.h>

#include "txrdma_pool.h"

/**
 * txrdma_pool_cfg_check() - validate pool sizes
 * @min: ready QPs to keep
 * @max: most QPs alive
 * @reason: set to a message for the admin on error
 *
 * Return: 0 or -EINVAL.
 */
int txrdma_pool_cfg_check(u32 min, u32 max, const char **reason)
{
	if (!max) {
		*reason = "pool max must be at least 1";
		return -EINVAL;
	}
	if (min > max) {
		*reason = "pool min must not exceed max";
		return -EINVAL;
	}
	if (max > TXRDMA_POOL_MAX_QPS) {
		*reason = "pool max is at most 1024 queue pairs per peer";
		return -EINVAL;
	}
	return 0;
}

void txrdma_pool_init(struct txrdma_pool *p, u32 min, u32 max, u64 now_ns)
{
	memset(p, 0, sizeof(*p));
	p->min = min;
	p->max = max;
	p->last_take_ns = now_ns;
	p->retry_at_ns = now_ns;
}

/**
 * txrdma_pool_set() - change sizes; excess is closed by to_close()
 * @p: pool
 * @min: new min
 * @max: new max
 * @reason: message on error
 *
 * Return: 0 or -EINVAL (nothing changed).
 */
int txrdma_pool_set(struct txrdma_pool *p, u32 min, u32 max,
		    const char **reason)
{
	int ret = txrdma_pool_cfg_check(min, max, reason);

	if (ret)
		return ret;
	p->min = min;
	p->max = max;
	p->want_extra = min_t(u32, p->want_extra, max - min);
	return 0;
}

static u32 txrdma_pool_alive(const struct txrdma_pool *p)
{
	return p->ready + p->in_use + p->connecting;
}

/**
 * txrdma_pool_want() - how many QPs this end wants in the pool now
 * @p: pool
 *
 * Return: min plus the extra that demand asked for, capped at max; this
 * is what an acceptor advertises to its initiator.
 */
u32 txrdma_pool_want(const struct txrdma_pool *p)
{
	return min_t(u32, p->min + p->want_extra, p->max);
}

/* What the connecting side aims at: its own want or the other end's. */
static u32 txrdma_pool_target(const struct txrdma_pool *p)
{
	return min_t(u32, max(txrdma_pool_want(p), p->remote_want), p->max);
}

/*
 * A take waits for a QP while a flap's hold keeps the refill back (and
 * there is room: the hold yields one QP, never one past @max).
 */
static bool txrdma_pool_wanted_now(const struct txrdma_pool *p)
{
	return p->wanted && !p->backoff_ns && !p->ready && !p->connecting &&
	       txrdma_pool_alive(p) < p->max;
}

/**
 * txrdma_pool_to_connect() - connection attempts to start now
 * @p: pool
 * @now_ns: clock
 *
 * The caller starts that many and counts them as connecting here.
 * Return: how many (0 while down, backing off, or full).
 */
u32 txrdma_pool_to_connect(struct txrdma_pool *p, u64 now_ns)
{
	u32 target, have, room, n;

	if (!p->up)
		return 0;
	if ((s64)(now_ns - p->retry_at_ns) < 0) {
		/*
		 * Held back after a flap, one QP still goes when a take
		 * found none (a session waiting for its path, a connect):
		 * the hold limits the refill, not what is waited for.
		 * Not after a failure: that backoff holds for everyone.
		 */
		if (!txrdma_pool_wanted_now(p))
			return 0;
		p->connecting++;
		return 1;
	}
	target = txrdma_pool_target(p);
	have = p->ready + p->connecting;
	if (have >= target)
		return 0;
	room = p->max - min_t(u32, txrdma_pool_alive(p), p->max);
	n = min(target - have, room);
	/* after a failure, probe with one attempt before a burst */
	if (p->backoff_ns && n > 1)
		n = 1;
	p->connecting += n;
	return n;
}

/**
 * txrdma_pool_to_close() - ready QPs to close now
 * @p: pool
 * @now_ns: clock
 *
 * Above max after a resize, or growth unused for TXRDMA_POOL_IDLE_NS.
 * The caller closes that many ready QPs; they are counted as closing.
 * Return: how many.
 */
u32 txrdma_pool_to_close(struct txrdma_pool *p, u64 now_ns)
{
	u32 alive = txrdma_pool_alive(p), n = 0;

	if (alive > p->max)
		n = min(alive - p->max, p->ready);
	if (p->want_extra &&
	    now_ns - p->last_take_ns >= TXRDMA_POOL_IDLE_NS) {
		p->want_extra = 0;	/* demand has gone */
	}
	if (p->ready - n > txrdma_pool_target(p) &&
	    now_ns - p->last_take_ns >= TXRDMA_POOL_IDLE_NS)
		n = p->ready - txrdma_pool_target(p);
	p->ready -= n;
	p->closing += n;
	return n;
}

/* An attempt counted by to_connect() is established. */
void txrdma_pool_connected(struct txrdma_pool *p)
{
	if (p->connecting)
		p->connecting--;
	p->ready++;
	p->backoff_ns = 0;
}

/**
 * txrdma_pool_accept() - the other end asks to connect one more QP
 * @p: pool of the accepting side
 *
 * Counted as connecting until txrdma_pool_connected() or
 * txrdma_pool_connect_failed(); refused beyond max, so an initiator
 * with a larger max cannot make us hold more than we were told to.
 *
 * Return: 0, or -ENOSPC when the pool is full.
 */
int txrdma_pool_accept(struct txrdma_pool *p)
{
	if (txrdma_pool_alive(p) >= p->max)
		return -ENOSPC;
	p->connecting++;
	return 0;
}

/**
 * txrdma_pool_set_remote_want() - record the other end's demand
 * @p: pool of the initiating side
 * @want: QPs the acceptor wants; capped by our own max when used
 */
void txrdma_pool_set_remote_want(struct txrdma_pool *p, u32 want)
{
	p->remote_want = want;
}

/* An attempt counted by to_connect() failed: back off. */
void txrdma_pool_connect_failed(struct txrdma_pool *p, u64 now_ns)
{
	if (p->connecting)
		p->connecting--;
	p->failures++;
	p->backoff_ns = p->backoff_ns ?
			min_t(u64, p->backoff_ns * 2,
			      TXRDMA_POOL_BACKOFF_MAX_NS) :
			TXRDMA_POOL_BACKOFF_MIN_NS;
	/* a flap's hold still running (the attempt was a waiter's) stays */
	if ((s64)(now_ns + p->backoff_ns - p->retry_at_ns) > 0)
		p->retry_at_ns = now_ns + p->backoff_ns;
}

/**
 * txrdma_pool_take() - lend a ready QP
 * @p: pool
 * @now_ns: clock
 *
 * Return: 0 (the caller takes one of its ready QPs), -EAGAIN when none
 * is ready (the pool is asked to grow by one), -ENOTCONN when the peer
 * is down.
 */
int txrdma_pool_take(struct txrdma_pool *p, u64 now_ns)
{
	if (!p->up)
		return -ENOTCONN;
	p->last_take_ns = now_ns;
	if (!p->ready) {
		p->misses++;
		p->wanted = true;
		if (p->min + p->want_extra < p->max)
			p->want_extra++;
		return -EAGAIN;
	}
	p->ready--;
	p->in_use++;
	p->takes++;
	p->wanted = false;	/* served */
	return 0;
}

/* A lent QP comes back healthy. */
void txrdma_pool_give_back(struct txrdma_pool *p)
{
	if (p->in_use)
		p->in_use--;
	p->ready++;
}

/* A ready or lent QP went to error: it closes, to_connect() replaces it. */
void txrdma_pool_qp_error(struct txrdma_pool *p, bool was_in_use)
{
	u32 *from = was_in_use ? &p->in_use : &p->ready;

	if (*from)
		(*from)--;
	p->closing++;
	p->errors++;
}

/* A lent QP is closed on purpose (its endpoint pair ended): no error. */
void txrdma_pool_retire(struct txrdma_pool *p)
{
	if (p->in_use)
		p->in_use--;
	p->closing++;
}

/* A closing QP is gone. */
void txrdma_pool_closed(struct txrdma_pool *p)
{
	if (p->closing)
		p->closing--;
}

/**
 * txrdma_pool_peer_down() - the peer is down: close everything
 * @p: pool
 * @now_ns: clock
 *
 * An Up that lasted less than TXRDMA_POOL_STABLE_NS was a flap: the
 * next refill is held back, 100 ms doubling to 5 s, so that a flapping
 * session (an overloaded host, a bad link) does not tear down and
 * rebuild its QPs on every flap, which costs the CPU whose shortage may
 * be what makes it flap.  A session that stayed Up long enough refills
 * at once the next time.
 *
 * Return: how many ready and lent QPs the caller must close (connecting
 * ones are cancelled by the caller and reported as failures or closes).
 */
u32 txrdma_pool_peer_down(struct txrdma_pool *p, u64 now_ns)
{
	u32 n = p->ready + p->in_use;

	if (p->up) {
		if (now_ns - p->up_since_ns < TXRDMA_POOL_STABLE_NS)
			p->hold_ns = p->hold_ns ?
				min_t(u64, p->hold_ns * 2,
				      TXRDMA_POOL_HOLD_MAX_NS) :
				TXRDMA_POOL_HOLD_MIN_NS;
		else
			p->hold_ns = 0;
	}
	p->up = false;
	p->closing += n;
	p->ready = 0;
	p->in_use = 0;
	p->want_extra = 0;
	p->wanted = false;
	p->remote_want = 0;	/* the next probe tells it again */
	return n;
}

/* The peer is up again: refill without backoff, after any hold-down. */
void txrdma_pool_peer_up(struct txrdma_pool *p, u64 now_ns)
{
	p->up = true;
	p->up_since_ns = now_ns;
	p->backoff_ns = 0;
	p->retry_at_ns = now_ns + p->hold_ns;
}

/**
 * txrdma_pool_next_event() - when the pool needs attention again
 * @p: pool
 * @now_ns: clock
 *
 * Return: the retry time while backing off with QPs missing, the idle
 * deadline while there is growth to give back, else U64_MAX.
 */
u64 txrdma_pool_next_event(const struct txrdma_pool *p, u64 now_ns)
{
	u32 target = txrdma_pool_target(p);
	u64 t = U64_MAX;

	if (p->up && p->ready + p->connecting < target)
		t = (s64)(p->retry_at_ns - now_ns) > 0 &&
		    !txrdma_pool_wanted_now(p) ? p->retry_at_ns : now_ns;
	if (p->ready > target || p->want_extra)
		t = min_t(u64, t, p->last_take_ns + TXRDMA_POOL_IDLE_NS);
	return t;
}
