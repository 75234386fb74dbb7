/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What lib/txn's host tests share: a hash for deterministic choices and
 * payloads, a seeded random generator, and 127.0.0.1 addresses for the
 * TCP transport.
 */
#ifndef TXN_TEST_H
#define TXN_TEST_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>

/* a 32-bit finalizer: well-spread values from counters */
static inline uint32_t mix(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352du;
	x ^= x >> 15;
	x *= 0x846ca68bu;
	x ^= x >> 16;
	return x;
}

/* splitmix64 over the test's own state: reproducible random numbers */
static inline uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* 127.0.0.1:@port (0: any port) */
static inline struct sockaddr_in addr_of(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET };

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = htons((uint16_t)port);
	return a;
}

#endif /* TXN_TEST_H */
