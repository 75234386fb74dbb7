/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Monotonic time for the transaction layer's deadlines, dial schedules
 * and waits.  Internal to the library (not installed).
 *
 * Which clock: CLOCK_MONOTONIC_COARSE where a tick's precision (1-10 ms)
 * is enough and the call is on a hot path; it is read from the vDSO
 * page.  A precise read may be a system call plus a device access (a TCG
 * guest's HPET clocksource), which txn_bench measured at more than a
 * transaction's records; so precise reads stay where the caller needs
 * them and runs them rarely.
 */
#ifndef TXN_CLOCK_H
#define TXN_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t txn_clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* CLOCK_MONOTONIC in microseconds and milliseconds */
static inline uint64_t txn_clock_us(void)
{
	return txn_clock_ns(CLOCK_MONOTONIC) / 1000;
}

static inline uint64_t txn_clock_ms(void)
{
	return txn_clock_ns(CLOCK_MONOTONIC) / 1000000;
}

#endif /* TXN_CLOCK_H */
