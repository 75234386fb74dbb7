/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers shared by the adversarial selftests (ep_race, pair_churn,
 * listen_flood, cross_tenant, hostile, legit_stream): TAP lines, a
 * clock, a seeded PRNG, the caller's tenant, raw files of /dev/txrdma
 * (ioctls only, so that a test controls every byte and every fd) and a
 * libtxrdma "side" (rings, a region and one endpoint pair, for the
 * processes that behave).
 *
 * These programs run in a tenant that their guest script made (cgroup
 * and tenant through txrdma-admin), so that the script, not the
 * program, checks afterwards that the tenant holds nothing and can be
 * deleted without force.  A program that finds itself in the wrong
 * tenant, or without what it needs, fails loudly: nothing here skips.
 */
#ifndef _TXRDMA_ATTACK_UTIL_H
#define _TXRDMA_ATTACK_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <txrdma.h>

/* ---- TAP ------------------------------------------------------------- */

/* "ok N - ..." or "not ok N - ..."; returns @good */
bool tap_ok(bool good, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* "# ..." */
void tap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* a failed line, the plan, exit 1: for what makes the rest meaningless */
void tap_bail(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));
/* print the plan; 0 if every line was ok, else 1 */
int tap_done(void);

/* ---- time and randomness ---------------------------------------------- */

double at_now(void);		/* CLOCK_MONOTONIC, seconds */
void at_msleep(int ms);		/* pacing and bounded polls only */

/* splitmix64: one stream per seed, the same on every run */
struct at_rng {
	uint64_t s;
};

static inline uint64_t at_rand(struct at_rng *r)
{
	uint64_t x = (r->s += 0x9e3779b97f4a7c15ULL);

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* uniform in [0, n), n > 0 */
static inline uint32_t at_below(struct at_rng *r, uint32_t n)
{
	return (uint32_t)(((at_rand(r) >> 32) * n) >> 32);
}

/* ---- the caller's tenant ------------------------------------------------ */

/* TXRDMA_IOC_TENANT_INFO: 0 and the name, or -errno (-EPERM: none) */
int at_tenant_name(char *name, size_t len);
/* bail out (TAP) unless the process is in tenant @want */
void at_require_tenant(const char *want);

/* ---- raw files ---------------------------------------------------------- */

/* ioctl(2): 0 or -errno */
int at_ioctl(int fd, unsigned long cmd, void *arg);

/**
 * struct at_file - an open /dev/txrdma with rings and one module region
 * @fd: the file
 * @rs: what TXRDMA_IOC_RING_SETUP returned
 * @ring: the rings' mapping (NULL if not mapped)
 * @region: the region's id (0: none)
 * @region_off: its mmap offset
 * @region_size: its bytes
 * @region_addr: its mapping (NULL if not mapped)
 */
struct at_file {
	int fd;
	struct txrdma_ring_setup rs;
	void *ring;
	uint32_t region;
	uint64_t region_off;
	uint64_t region_size;
	void *region_addr;
};

/*
 * Open the device, set up rings of @sq entries, create a region of
 * @region_size bytes (0: none); with @map, map both.  0 or -errno, and
 * nothing left open on failure.
 */
int at_file_open(struct at_file *f, unsigned int sq, uint64_t region_size,
		 bool map);
void at_file_close(struct at_file *f);

int at_listen(int fd, uint32_t service);
/*
 * TXRDMA_IOC_EP_CONNECT (@peer) or TXRDMA_IOC_EP_ACCEPT (@peer NULL)
 * with the receive ring at (@region, @off) of @units: 0 or -errno.
 */
int at_pair(int fd, const char *peer, uint32_t service, uint32_t region,
	    uint32_t units, uint64_t off, uint32_t timeout_ms,
	    struct txrdma_ep_connect *out);
int at_ep_destroy(int fd, uint32_t id);
int at_ep_info(int fd, uint32_t id, struct txrdma_ep_info *info);

/* ---- a libtxrdma side: rings, a region, one pair --------------------- */

#define AT_SLOTS_OFF	TXRDMA_REGION_HUGE_SIZE	/* send buffers: 2nd page */

/**
 * struct at_side - a well-behaved process's end of a pair
 * @ctx: its context
 * @sq: submission ring
 * @cq: completion ring
 * @reg: a region of 4 MiB: the receive ring at 0, send buffers from
 *	AT_SLOTS_OFF
 * @rx: the receive ring, once paired
 * @units: its size
 * @ep: the pair, once paired
 * @paired: @ep is ours to destroy
 */
struct at_side {
	struct txrdma_ctx *ctx;
	struct txrdma_sq sq;
	struct txrdma_cq cq;
	struct txrdma_region reg;
	struct txrdma_rx rx;
	uint32_t units;
	struct txrdma_ep_pair ep;
	bool paired;
};

/* 0 or -errno, with a TAP diagnostic naming the step that failed */
int at_side_open(struct at_side *s, unsigned int sq_entries, uint32_t units);
void at_side_close(struct at_side *s);
/*
 * Connect to @service of @peer; -ECONNREFUSED, -EAGAIN, -ETIMEDOUT and
 * -EBUSY are tried again until @retry_s passed.  0 or the last -errno.
 */
int at_side_connect(struct at_side *s, const char *peer, uint32_t service,
		    uint32_t timeout_ms, double retry_s);
int at_side_accept(struct at_side *s, uint32_t service, uint32_t timeout_ms);
/* destroy the pair (if any): 0 or -errno */
int at_side_unpair(struct at_side *s);
/* post one SEND of @len bytes at @off of the region: 0 or -errno */
int at_side_send(struct at_side *s, uint64_t off, uint32_t len,
		 uint64_t user_data);
/* the next CQE within @secs: 1 (copied to @out), 0 (none came) */
int at_side_cqe(struct at_side *s, struct txrdma_cqe *out, double secs);
/*
 * The next message within @secs: 1 (@p, @len; release it with
 * txrdma_rx_release()), 0 (none), or the ring's -errno.
 */
int at_side_recv(struct at_side *s, const uint8_t **p, uint32_t *len,
		 double secs);
/* nothing to do: wake the poller if it sleeps, wait up to 1 ms */
void at_side_idle(struct at_side *s);

#endif
