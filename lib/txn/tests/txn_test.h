/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What lib/txn's host tests share: a hash for deterministic choices and
 * payloads, and 127.0.0.1 addresses for the TCP transport.
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

/* 127.0.0.1:@port (0: any port) */
static inline struct sockaddr_in addr_of(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET };

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = htons((uint16_t)port);
	return a;
}

#endif /* TXN_TEST_H */
