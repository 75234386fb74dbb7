/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* print.h: formatting helpers shared by the txrdma-admin commands. */
#ifndef TXA_PRINT_H
#define TXA_PRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* "5054:00ff:fe12:3456" + NUL */
#define GUID_STRLEN		20
/* "UNKNOWN(255)" + NUL, with room to spare */
#define PORT_STATE_STRLEN	24
/* "2024-05-01T12:34:56.123456Z" + NUL, with room for 5-digit years */
#define TIME_STRLEN		40
/* "18446744073709.551615ms" + NUL, with room to spare */
#define MS_STRLEN		32
/* "255.255.255.255" + NUL */
#define IPV4_STRLEN		16

/* Name of a known enum txrdma_port_state value, or NULL. */
const char *port_state_name(unsigned int state);
/* Name of @state, or "UNKNOWN(<n>)" for a value this tool does not know. */
const char *port_state_str(unsigned int state, char *buf, size_t len);

/* @guid (host byte order) as four groups of 16-bit hex, like rdma(8). */
const char *guid_str(uint64_t guid, char *buf, size_t len);

/* 4 bytes of an IPv4 address in network order as a.b.c.d. */
const char *ipv4_str(const uint8_t *addr, char *buf, size_t len);

/* CLOCK_REALTIME nanoseconds as ISO 8601 UTC with microseconds. */
const char *time_ns_str(uint64_t ns, char *buf, size_t len);

/* The same as "2024-05-01 12:34:56.123" (UTC, milliseconds, truncated). */
const char *time_ns_short_str(uint64_t ns, char *buf, size_t len);

/*
 * A duration in nanoseconds as milliseconds with @decimals (0 to 6)
 * digits after the point, rounded half up: "0.120ms", "81.2ms".
 */
const char *ms_str(uint64_t ns, unsigned int decimals, char *buf,
		   size_t len);

static inline const char *yes_no(bool v)
{
	return v ? "yes" : "no";
}

#endif /* TXA_PRINT_H */
