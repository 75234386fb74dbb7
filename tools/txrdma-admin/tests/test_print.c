// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of the formatting helpers (print.c). */
#include <linux/txrdma.h>

#include "tap.h"
#include "../print.h"

static void test_guid(void)
{
	char buf[GUID_STRLEN];

	TAP_CHECK_STR(guid_str(0x505400fffe123456ULL, buf, sizeof(buf)),
		      "5054:00ff:fe12:3456");
	TAP_CHECK_STR(guid_str(0, buf, sizeof(buf)), "0000:0000:0000:0000");
	TAP_CHECK_STR(guid_str(UINT64_MAX, buf, sizeof(buf)),
		      "ffff:ffff:ffff:ffff");
	TAP_CHECK_STR(guid_str(0x0001000200030004ULL, buf, sizeof(buf)),
		      "0001:0002:0003:0004");
}

static void test_port_states(void)
{
	char buf[PORT_STATE_STRLEN];

	TAP_CHECK_STR(port_state_name(TXRDMA_PORT_NOP), "NOP");
	TAP_CHECK_STR(port_state_name(TXRDMA_PORT_DOWN), "DOWN");
	TAP_CHECK_STR(port_state_name(TXRDMA_PORT_INIT), "INIT");
	TAP_CHECK_STR(port_state_name(TXRDMA_PORT_ARMED), "ARMED");
	TAP_CHECK_STR(port_state_name(TXRDMA_PORT_ACTIVE), "ACTIVE");
	TAP_CHECK_STR(port_state_name(TXRDMA_PORT_ACTIVE_DEFER),
		      "ACTIVE_DEFER");
	TAP_CHECK_STR(port_state_str(TXRDMA_PORT_ACTIVE, buf, sizeof(buf)),
		      "ACTIVE");
}

static void test_port_state_unknown(void)
{
	char buf[PORT_STATE_STRLEN];

	TAP_CHECK(port_state_name(6) == NULL);
	TAP_CHECK(port_state_name(255) == NULL);
	TAP_CHECK(port_state_name(~0u) == NULL);
	TAP_CHECK_STR(port_state_str(6, buf, sizeof(buf)), "UNKNOWN(6)");
	TAP_CHECK_STR(port_state_str(255, buf, sizeof(buf)), "UNKNOWN(255)");
}

static void test_time(void)
{
	char buf[TIME_STRLEN];

	TAP_CHECK_STR(time_ns_str(0, buf, sizeof(buf)),
		      "1970-01-01T00:00:00.000000Z");
	/* 2024-05-01T12:34:56Z + 123456789 ns: microseconds, truncated */
	TAP_CHECK_STR(time_ns_str(1714566896123456789ULL, buf, sizeof(buf)),
		      "2024-05-01T12:34:56.123456Z");
	TAP_CHECK_STR(time_ns_str(1714566896000000999ULL, buf, sizeof(buf)),
		      "2024-05-01T12:34:56.000000Z");
}

static void test_time_short(void)
{
	char buf[TIME_STRLEN];

	TAP_CHECK_STR(time_ns_short_str(0, buf, sizeof(buf)),
		      "1970-01-01 00:00:00.000");
	/* milliseconds, truncated */
	TAP_CHECK_STR(time_ns_short_str(1796047200123456789ULL, buf, sizeof(buf)),
		      "2026-11-30 14:00:00.123");
	TAP_CHECK_STR(time_ns_short_str(1796047200999999999ULL, buf, sizeof(buf)),
		      "2026-11-30 14:00:00.999");
}

static void test_ms(void)
{
	char buf[MS_STRLEN];

	TAP_CHECK_STR(ms_str(120000, 3, buf, sizeof(buf)), "0.120ms");
	TAP_CHECK_STR(ms_str(1200000, 3, buf, sizeof(buf)), "1.200ms");
	TAP_CHECK_STR(ms_str(0, 3, buf, sizeof(buf)), "0.000ms");
	/* rounded half up to the last digit */
	TAP_CHECK_STR(ms_str(120499, 3, buf, sizeof(buf)), "0.120ms");
	TAP_CHECK_STR(ms_str(120500, 3, buf, sizeof(buf)), "0.121ms");
	TAP_CHECK_STR(ms_str(999999, 3, buf, sizeof(buf)), "1.000ms");
	TAP_CHECK_STR(ms_str(81200000, 1, buf, sizeof(buf)), "81.2ms");
	TAP_CHECK_STR(ms_str(81249999, 1, buf, sizeof(buf)), "81.2ms");
	TAP_CHECK_STR(ms_str(81250000, 1, buf, sizeof(buf)), "81.3ms");
	TAP_CHECK_STR(ms_str(1500000, 0, buf, sizeof(buf)), "2ms");
	TAP_CHECK_STR(ms_str(1234567, 6, buf, sizeof(buf)), "1.234567ms");
	TAP_CHECK_STR(ms_str(1234567, 9, buf, sizeof(buf)), "1.234567ms");
	/* no overflow at the top */
	TAP_CHECK_STR(ms_str(UINT64_MAX, 1, buf, sizeof(buf)),
		      "18446744073709.6ms");
	TAP_CHECK_STR(ms_str(UINT64_MAX, 6, buf, sizeof(buf)),
		      "18446744073709.551615ms");
}

static void test_ipv4(void)
{
	static const uint8_t a[4] = { 198, 18, 0, 2 };
	static const uint8_t b[4] = { 255, 255, 255, 255 };
	static const uint8_t z[4] = { 0 };
	char buf[IPV4_STRLEN];

	TAP_CHECK_STR(ipv4_str(a, buf, sizeof(buf)), "198.18.0.2");
	TAP_CHECK_STR(ipv4_str(b, buf, sizeof(buf)), "255.255.255.255");
	TAP_CHECK_STR(ipv4_str(z, buf, sizeof(buf)), "0.0.0.0");
}

static void test_yes_no(void)
{
	TAP_CHECK_STR(yes_no(true), "yes");
	TAP_CHECK_STR(yes_no(false), "no");
}

static const struct tap_test tests[] = {
	TAP_TEST(test_guid, "print: GUIDs as four 16-bit groups"),
	TAP_TEST(test_port_states, "print: known port state names"),
	TAP_TEST(test_port_state_unknown, "print: unknown port states"),
	TAP_TEST(test_time, "print: ISO 8601 UTC time with microseconds"),
	TAP_TEST(test_time_short, "print: short UTC time with milliseconds"),
	TAP_TEST(test_ms, "print: durations in ms, rounded, no overflow"),
	TAP_TEST(test_ipv4, "print: IPv4 addresses"),
	TAP_TEST(test_yes_no, "print: yes/no"),
};

int main(void)
{
	return TAP_MAIN(tests);
}
