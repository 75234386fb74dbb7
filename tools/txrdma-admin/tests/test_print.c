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
	TAP_TEST(test_yes_no, "print: yes/no"),
};

int main(void)
{
	return TAP_MAIN(tests);
}
