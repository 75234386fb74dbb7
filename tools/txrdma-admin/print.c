// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* print.c: formatting helpers, see print.h. */
#include <stdio.h>
#include <time.h>

#include <linux/txrdma.h>

#include "print.h"

static const char *const port_states[] = {
	[TXRDMA_PORT_NOP]		= "NOP",
	[TXRDMA_PORT_DOWN]		= "DOWN",
	[TXRDMA_PORT_INIT]		= "INIT",
	[TXRDMA_PORT_ARMED]		= "ARMED",
	[TXRDMA_PORT_ACTIVE]		= "ACTIVE",
	[TXRDMA_PORT_ACTIVE_DEFER]	= "ACTIVE_DEFER",
};

const char *port_state_name(unsigned int state)
{
	if (state < sizeof(port_states) / sizeof(port_states[0]))
		return port_states[state];
	return NULL;
}

const char *port_state_str(unsigned int state, char *buf, size_t len)
{
	const char *name = port_state_name(state);

	if (name)
		return name;
	snprintf(buf, len, "UNKNOWN(%u)", state);
	return buf;
}

const char *guid_str(uint64_t guid, char *buf, size_t len)
{
	snprintf(buf, len, "%04x:%04x:%04x:%04x",
		 (unsigned int)(guid >> 48) & 0xffff,
		 (unsigned int)(guid >> 32) & 0xffff,
		 (unsigned int)(guid >> 16) & 0xffff,
		 (unsigned int)guid & 0xffff);
	return buf;
}

const char *ipv4_str(const uint8_t *addr, char *buf, size_t len)
{
	snprintf(buf, len, "%u.%u.%u.%u", addr[0], addr[1], addr[2], addr[3]);
	return buf;
}

const char *time_ns_str(uint64_t ns, char *buf, size_t len)
{
	time_t secs = (time_t)(ns / 1000000000ULL);
	unsigned int usecs = (unsigned int)(ns % 1000000000ULL / 1000);
	struct tm tm;
	char date[32];

	if (!gmtime_r(&secs, &tm) ||
	    !strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm)) {
		snprintf(buf, len, "@%llu.%06u", (unsigned long long)secs,
			 usecs);
		return buf;
	}
	snprintf(buf, len, "%s.%06uZ", date, usecs);
	return buf;
}

const char *time_ns_short_str(uint64_t ns, char *buf, size_t len)
{
	time_t secs = (time_t)(ns / 1000000000ULL);
	unsigned int msecs = (unsigned int)(ns % 1000000000ULL / 1000000);
	struct tm tm;
	char date[32];

	if (!gmtime_r(&secs, &tm) ||
	    !strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S", &tm)) {
		snprintf(buf, len, "@%llu.%03u", (unsigned long long)secs,
			 msecs);
		return buf;
	}
	snprintf(buf, len, "%s.%03u", date, msecs);
	return buf;
}

const char *ms_str(uint64_t ns, unsigned int decimals, char *buf,
		   size_t len)
{
	uint64_t unit = 1000000, scale = 1, q;
	unsigned int i;

	if (decimals > 6)
		decimals = 6;
	for (i = 0; i < decimals; i++) {
		unit /= 10;
		scale *= 10;
	}
	/* ns / unit rounded half up, without overflowing near U64_MAX */
	q = ns / unit + (ns % unit >= (unit + 1) / 2);
	if (decimals)
		snprintf(buf, len, "%llu.%0*llums",
			 (unsigned long long)(q / scale), (int)decimals,
			 (unsigned long long)(q % scale));
	else
		snprintf(buf, len, "%llums", (unsigned long long)q);
	return buf;
}
