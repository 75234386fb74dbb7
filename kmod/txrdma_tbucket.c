// SPDX-License-Identifier: GPL-2.0-only
/*
 * Token bucket arithmetic.
 *
 * Refill is exact: elapsed * rate is split as
 *   elapsed = s * 1e9 + f          (f < 1e9)
 *   rate    = rh * 1e9 + rl        (rl < 1e9)
 *   elapsed * rate = 1e9 * (s * rate + f * rh) + f * rl
 * so whole tokens are s * rate + f * rh + (f * rl + rem) / 1e9 and the
 * remainder is carried in @rem.  f * rl < 1e18 fits in 64 bits; the
 * other products saturate instead of wrapping.  Refilling every
 * nanosecond or once a minute yields the same tokens: no drift.
 *
 * The clock is a free-running u64; "now - last" is taken modulo 2^64,
 * so a clock that wraps keeps working, and a difference that is
 * negative as s64 is a clock that went backwards: nothing is credited
 * and the bucket rebases on the new clock value.
 *
 * A request larger than the burst could never be admitted by a strict
 * bucket; a transport must still send it.  It is admitted when the
 * bucket is full and leaves the bucket in debt, so the long-run rate is
 * still the configured one.
 */
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/overflow.h>
#include <linux/time64.h>

#include "txrdma_tbucket.h"

static u64 tb_sat_add(u64 a, u64 b)
{
	u64 r;

	return check_add_overflow(a, b, &r) ? U64_MAX : r;
}

static u64 tb_sat_mul(u64 a, u64 b)
{
	u64 r;

	return check_mul_overflow(a, b, &r) ? U64_MAX : r;
}

/**
 * txrdma_tb_init() - start a bucket full
 * @tb: bucket
 * @rate: tokens per second, 0 for none, TXRDMA_TB_UNLIMITED for no limit
 * @burst: capacity; clamped to S64_MAX
 * @now_ns: current clock
 */
void txrdma_tb_init(struct txrdma_tb *tb, u64 rate, u64 burst, u64 now_ns)
{
	WRITE_ONCE(tb->rate, rate);	/* read unlocked: txrdma_tx.c */
	tb->burst = min_t(u64, burst, S64_MAX);
	tb->tokens = tb->burst;
	tb->last_ns = now_ns;
	tb->rem = 0;
}

/**
 * txrdma_tb_set() - change rate and burst, keeping what was earned
 * @tb: bucket
 * @rate: new rate
 * @burst: new capacity; tokens above it are dropped
 * @now_ns: current clock
 *
 * Tokens earned at the old rate up to @now_ns are credited first, so a
 * rate change never rewrites the past.
 */
void txrdma_tb_set(struct txrdma_tb *tb, u64 rate, u64 burst, u64 now_ns)
{
	txrdma_tb_refill(tb, now_ns);
	WRITE_ONCE(tb->rate, rate);
	tb->burst = min_t(u64, burst, S64_MAX);
	if (tb->tokens > (s64)tb->burst) {
		tb->tokens = tb->burst;
		tb->rem = 0;
	}
}

/**
 * txrdma_tb_refill() - credit the tokens earned since the last refill
 * @tb: bucket
 * @now_ns: current clock
 */
void txrdma_tb_refill(struct txrdma_tb *tb, u64 now_ns)
{
	u64 elapsed = now_ns - tb->last_ns;
	u64 s, f, rh, rl, num, add, room;
	u32 frac;

	if ((s64)elapsed <= 0) {
		/* clock went backwards (or did not move): rebase only */
		tb->last_ns = now_ns;
		return;
	}
	tb->last_ns = now_ns;
	if (tb->rate == TXRDMA_TB_UNLIMITED) {
		tb->tokens = tb->burst;
		return;
	}
	if (tb->tokens >= (s64)tb->burst) {
		tb->rem = 0;
		return;
	}

	s = div_u64_rem(elapsed, NSEC_PER_SEC, &frac);
	f = frac;
	rh = div_u64_rem(tb->rate, NSEC_PER_SEC, &frac);
	rl = frac;
	num = f * rl + tb->rem;
	add = tb_sat_add(tb_sat_mul(s, tb->rate), tb_sat_mul(f, rh));
	add = tb_sat_add(add, div_u64_rem(num, NSEC_PER_SEC, &frac));
	tb->rem = frac;

	/* room to the cap, computed in u64: tokens may be negative */
	room = tb->burst - (u64)tb->tokens;
	if (add >= room) {
		tb->tokens = tb->burst;
		tb->rem = 0;
	} else {
		tb->tokens = (s64)((u64)tb->tokens + add);
	}
}

/**
 * txrdma_tb_take() - admit a request of @n tokens if the bucket allows
 * @tb: bucket
 * @now_ns: current clock
 * @n: tokens the request costs (bytes or 1 operation)
 *
 * Return: true if admitted (tokens taken), false if it must wait.
 */
bool txrdma_tb_take(struct txrdma_tb *tb, u64 now_ns, u64 n)
{
	txrdma_tb_refill(tb, now_ns);
	if (tb->rate == TXRDMA_TB_UNLIMITED)
		return true;
	if (n > tb->burst) {
		/* only a full bucket admits an oversized request */
		if (tb->tokens < (s64)tb->burst)
			return false;
		/* debt of n - burst, bounded so tokens stays above S64_MIN */
		tb->tokens = -(s64)min_t(u64, n - tb->burst, S64_MAX);
		return true;
	}
	if (tb->tokens < (s64)n)
		return false;
	tb->tokens -= n;
	return true;
}

/**
 * txrdma_tb_wait_ns() - how long until a request of @n would be admitted
 * @tb: bucket
 * @now_ns: current clock
 * @n: tokens the request costs
 *
 * Return: 0 if it would be admitted now, U64_MAX if never (rate 0 and
 * not enough tokens), else the nanoseconds to wait, rounded up.
 */
u64 txrdma_tb_wait_ns(struct txrdma_tb *tb, u64 now_ns, u64 n)
{
	u64 need, ns, rem;

	txrdma_tb_refill(tb, now_ns);
	if (tb->rate == TXRDMA_TB_UNLIMITED)
		return 0;
	need = min_t(u64, n, tb->burst);
	if (tb->tokens >= (s64)need)
		return 0;
	if (!tb->rate)
		return U64_MAX;
	need = need - (u64)tb->tokens;	/* tokens < need, may be negative */
	/* ns = ceil((need * 1e9 - rem) / rate), saturating */
	if (need > U64_MAX / NSEC_PER_SEC)
		return U64_MAX;
	ns = need * NSEC_PER_SEC - tb->rem;
	ns = div64_u64_rem(ns, tb->rate, &rem);
	return rem ? ns + 1 : ns;
}

/**
 * txrdma_tb_refund() - give back @n tokens taken for a request that
 *	could not go after all
 * @tb: bucket
 * @n: tokens txrdma_tb_take() took
 *
 * Never above @burst.
 */
void txrdma_tb_refund(struct txrdma_tb *tb, u64 n)
{
	if (tb->rate == TXRDMA_TB_UNLIMITED)
		return;
	n = min_t(u64, n, S64_MAX);
	if (tb->tokens > (s64)tb->burst - (s64)min_t(u64, n, tb->burst))
		tb->tokens = tb->burst;
	else
		tb->tokens += n;
}
