// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of tenant limit parsing and formatting (limits.c). */
#include <linux/txrdma.h>

#include "tap.h"
#include "../limits.h"

static uint64_t size_of(const char *s, int *ret)
{
	uint64_t v = 12345;

	*ret = txa_parse_size(s, &v);
	return v;
}

static void test_size_suffixes(void)
{
	int r;

	TAP_CHECK(size_of("0", &r) == 0 && r == 0);
	TAP_CHECK(size_of("42", &r) == 42 && r == 0);
	TAP_CHECK(size_of("1K", &r) == 1024 && r == 0);
	TAP_CHECK(size_of("1k", &r) == 1024 && r == 0);
	TAP_CHECK(size_of("64M", &r) == 64ULL << 20 && r == 0);
	TAP_CHECK(size_of("3G", &r) == 3ULL << 30 && r == 0);
	TAP_CHECK(size_of("2T", &r) == 2ULL << 40 && r == 0);
	TAP_CHECK(size_of("1KiB", &r) == 1024 && r == 0);
	TAP_CHECK(size_of("5MiB", &r) == 5ULL << 20 && r == 0);
	TAP_CHECK(size_of("7GiB", &r) == 7ULL << 30 && r == 0);
	TAP_CHECK(size_of("1TiB", &r) == 1ULL << 40 && r == 0);
	TAP_CHECK(size_of("0K", &r) == 0 && r == 0);
	TAP_CHECK(size_of("18446744073709551615", &r) == UINT64_MAX && r == 0);
	/* the largest that fit with each suffix */
	TAP_CHECK(size_of("16777215T", &r) == 16777215ULL << 40 && r == 0);
	TAP_CHECK(size_of("17179869183G", &r) == 17179869183ULL << 30 &&
		  r == 0);
}

static void test_size_rejects(void)
{
	static const char *const bad[] = {
		"", "-1", "+1", " 1", "1 ", "K", "1X", "1KB", "1kb", "1Ki",
		"1KiBx", "1.5M", "0x10", "1e3", "1MK", "18446744073709551616",
		"16777216T", "17179869184G", "17592186044416M",
		"18014398509481984K", "99999999999999999999999", "1M/s",
		NULL
	};
	uint64_t v = 99;
	int i;

	for (i = 0; bad[i]; i++) {
		if (!TAP_CHECK_INT(txa_parse_size(bad[i], &v), -1))
			tap_diag("  accepted \"%s\"", bad[i]);
	}
	TAP_CHECK(v == 99);	/* not written on failure */
}

static void test_limit(void)
{
	uint64_t v;

	TAP_CHECK_INT(txa_parse_limit("unlimited", false, &v), 0);
	TAP_CHECK(v == TXRDMA_UNLIMITED);
	TAP_CHECK_INT(txa_parse_limit("unl", true, &v), 0);
	TAP_CHECK(v == TXRDMA_UNLIMITED);
	TAP_CHECK_INT(txa_parse_limit("10", false, &v), 0);
	TAP_CHECK(v == 10);
	/* counts take no suffix, sizes do */
	TAP_CHECK_INT(txa_parse_limit("10K", false, &v), -1);
	TAP_CHECK_INT(txa_parse_limit("10K", true, &v), 0);
	TAP_CHECK(v == 10240);
	TAP_CHECK_INT(txa_parse_limit("unlimitedx", false, &v), -1);
	TAP_CHECK_INT(txa_parse_limit("", false, &v), -1);
	TAP_CHECK_INT(txa_parse_limit("-5", false, &v), -1);
	TAP_CHECK_INT(txa_parse_limit("none", true, &v), -1);
}

static void test_rate(void)
{
	uint64_t rate = 1, burst = 1;
	bool hb = false;

	TAP_CHECK_INT(txa_parse_rate("100M", true, &rate, &burst, &hb), 0);
	TAP_CHECK(rate == 100ULL << 20 && !hb);
	TAP_CHECK_INT(txa_parse_rate("100M:10M", true, &rate, &burst, &hb), 0);
	TAP_CHECK(rate == 100ULL << 20 && hb && burst == 10ULL << 20);
	TAP_CHECK_INT(txa_parse_rate("100M/s:10M", true, &rate, &burst, &hb),
		      0);
	TAP_CHECK(rate == 100ULL << 20 && hb && burst == 10ULL << 20);
	TAP_CHECK_INT(txa_parse_rate("1000:100", false, &rate, &burst, &hb),
		      0);
	TAP_CHECK(rate == 1000 && hb && burst == 100);
	TAP_CHECK_INT(txa_parse_rate("1000/s", false, &rate, &burst, &hb), 0);
	TAP_CHECK(rate == 1000 && !hb);
	TAP_CHECK_INT(txa_parse_rate("unlimited", true, &rate, &burst, &hb),
		      0);
	TAP_CHECK(rate == TXRDMA_UNLIMITED && burst == TXRDMA_UNLIMITED && hb);
	/* 0 is the module's to refuse */
	TAP_CHECK_INT(txa_parse_rate("0:0", true, &rate, &burst, &hb), 0);
	TAP_CHECK(rate == 0 && burst == 0 && hb);

	TAP_CHECK_INT(txa_parse_rate("", true, &rate, &burst, &hb), -1);
	TAP_CHECK_INT(txa_parse_rate(":1", true, &rate, &burst, &hb), -1);
	TAP_CHECK_INT(txa_parse_rate("1:", true, &rate, &burst, &hb), -1);
	TAP_CHECK_INT(txa_parse_rate("1:2:3", true, &rate, &burst, &hb), -1);
	TAP_CHECK_INT(txa_parse_rate("1K:2", false, &rate, &burst, &hb), -1);
	TAP_CHECK_INT(txa_parse_rate("1:2K", false, &rate, &burst, &hb), -1);
	TAP_CHECK_INT(txa_parse_rate("/s", false, &rate, &burst, &hb), -1);
	TAP_CHECK_INT(txa_parse_rate("1:2/s", false, &rate, &burst, &hb), -1);
	TAP_CHECK_INT(txa_parse_rate("unlimited:5", true, &rate, &burst, &hb),
		      -1);
	TAP_CHECK_INT(txa_parse_rate("5:unlimited", true, &rate, &burst, &hb),
		      -1);
	TAP_CHECK_INT(txa_parse_rate("16777216T", true, &rate, &burst, &hb),
		      -1);
	TAP_CHECK_INT(txa_parse_rate("-1:-1", false, &rate, &burst, &hb), -1);
	TAP_CHECK_INT(txa_parse_rate("1:111111111111111111111111111111111111111111111111111111111111111111",
				     false, &rate, &burst, &hb), -1);
}

static void test_format(void)
{
	char buf[TXA_LIMIT_STRLEN];

	TAP_CHECK_STR(txa_fmt_limit(TXRDMA_UNLIMITED, true, buf, sizeof(buf)),
		      "unlimited");
	TAP_CHECK_STR(txa_fmt_limit(TXRDMA_UNLIMITED, false, buf, sizeof(buf)),
		      "unlimited");
	TAP_CHECK_STR(txa_fmt_limit(0, true, buf, sizeof(buf)), "0");
	TAP_CHECK_STR(txa_fmt_limit(1023, true, buf, sizeof(buf)), "1023");
	TAP_CHECK_STR(txa_fmt_limit(1024, true, buf, sizeof(buf)), "1K");
	TAP_CHECK_STR(txa_fmt_limit(1536, true, buf, sizeof(buf)), "1536");
	TAP_CHECK_STR(txa_fmt_limit(3072, true, buf, sizeof(buf)), "3K");
	TAP_CHECK_STR(txa_fmt_limit(64ULL << 20, true, buf, sizeof(buf)),
		      "64M");
	TAP_CHECK_STR(txa_fmt_limit(1536ULL << 20, true, buf, sizeof(buf)),
		      "1536M");
	TAP_CHECK_STR(txa_fmt_limit(1ULL << 30, true, buf, sizeof(buf)), "1G");
	TAP_CHECK_STR(txa_fmt_limit(1ULL << 50, true, buf, sizeof(buf)),
		      "1024T");
	TAP_CHECK_STR(txa_fmt_limit(UINT64_MAX - 1, true, buf, sizeof(buf)),
		      "18446744073709551614");
	TAP_CHECK_STR(txa_fmt_limit(UINT64_MAX << 40, true, buf, sizeof(buf)),
		      "16777215T");
	/* counts never get a suffix */
	TAP_CHECK_STR(txa_fmt_limit(1024, false, buf, sizeof(buf)), "1024");
	TAP_CHECK_STR(txa_fmt_limit(0, false, buf, sizeof(buf)), "0");
}

static bool round_trip(uint64_t v, bool bytes)
{
	char buf[TXA_LIMIT_STRLEN];
	uint64_t back = ~v;

	txa_fmt_limit(v, bytes, buf, sizeof(buf));
	if (txa_parse_limit(buf, bytes, &back) || back != v) {
		tap_diag("  %llu -> \"%s\" -> %llu", (unsigned long long)v, buf,
			 (unsigned long long)back);
		return false;
	}
	return true;
}

static void test_round_trip(void)
{
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	unsigned int i, s;

	for (s = 0; s < 64; s++) {
		TAP_CHECK(round_trip(1ULL << s, true));
		TAP_CHECK(round_trip((1ULL << s) - 1, true));
		TAP_CHECK(round_trip(3ULL << s, true));
		TAP_CHECK(round_trip(1ULL << s, false));
	}
	TAP_CHECK(round_trip(UINT64_MAX, true));
	TAP_CHECK(round_trip(UINT64_MAX, false));
	TAP_CHECK(round_trip(UINT64_MAX - 1, true));
	TAP_CHECK(round_trip(0, true));
	for (i = 0; i < 2000; i++) {
		/* xorshift; values with many low zero bits as well */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		TAP_CHECK(round_trip(x, true));
		TAP_CHECK(round_trip(x & ~((1ULL << (i % 50)) - 1), true));
		TAP_CHECK(round_trip(x >> (i % 64), false));
	}
}

static void test_prio(void)
{
	char buf[TXA_PRIO_STRLEN];

	TAP_CHECK_INT(txa_parse_prio("critical"), TXRDMA_PRIO_CRITICAL);
	TAP_CHECK_INT(txa_parse_prio("c"), TXRDMA_PRIO_CRITICAL);
	TAP_CHECK_INT(txa_parse_prio("normal"), TXRDMA_PRIO_NORMAL);
	TAP_CHECK_INT(txa_parse_prio("n"), TXRDMA_PRIO_NORMAL);
	TAP_CHECK_INT(txa_parse_prio("bulk"), TXRDMA_PRIO_BULK);
	TAP_CHECK_INT(txa_parse_prio("bu"), TXRDMA_PRIO_BULK);
	TAP_CHECK_INT(txa_parse_prio("high"), -1);
	TAP_CHECK_INT(txa_parse_prio(""), -1);
	TAP_CHECK_INT(txa_parse_prio("1"), -1);
	TAP_CHECK_STR(txa_prio_str(TXRDMA_PRIO_BULK, buf, sizeof(buf)), "bulk");
	TAP_CHECK_STR(txa_prio_str(7, buf, sizeof(buf)), "unknown(7)");
	TAP_CHECK(txa_prio_name(__TXRDMA_PRIO_MAX) == NULL);
	TAP_CHECK_STR(txa_limit_key(TXA_LIM_PINNED), "pinned_bytes");
	TAP_CHECK_STR(txa_limit_key(TXA_LIM_OPS_BURST), "ops_burst");
	TAP_CHECK(txa_limit_key(TXA_LIM_NR) == NULL);
}

static void test_limit_attrs(void)
{
	static const struct {
		enum txa_limit lim;
		int attr;
		const char *key;
		bool bytes, quota;
	} want[] = {
		{ TXA_LIM_QPS, TXRDMA_A_LIMIT_QPS, "qps", false, true },
		{ TXA_LIM_ENDPOINTS, TXRDMA_A_LIMIT_ENDPOINTS, "endpoints", false, true },
		{ TXA_LIM_PINNED, TXRDMA_A_LIMIT_PINNED_BYTES, "pinned_bytes", true, true },
		{ TXA_LIM_LISTENERS, TXRDMA_A_LIMIT_LISTENERS, "listeners", false, true },
		{ TXA_LIM_BW_RATE, TXRDMA_A_LIMIT_BW_RATE, "bw_rate", true, false },
		{ TXA_LIM_BW_BURST, TXRDMA_A_LIMIT_BW_BURST, "bw_burst", true, false },
		{ TXA_LIM_OPS_RATE, TXRDMA_A_LIMIT_OPS_RATE, "ops_rate", false, false },
		{ TXA_LIM_OPS_BURST, TXRDMA_A_LIMIT_OPS_BURST, "ops_burst", false, false },
	};
	unsigned int i;

	/* every limit once, in the module's order: quotas, then buckets */
	TAP_CHECK_INT(TAP_ARRAY_SIZE(want), TXA_LIM_NR);
	for (i = 0; i < TAP_ARRAY_SIZE(want); i++) {
		TAP_CHECK_INT(want[i].lim, i);
		TAP_CHECK_INT(txa_limit_attr(want[i].lim), want[i].attr);
		TAP_CHECK_INT(txa_limit_of_attr(want[i].attr), want[i].lim);
		TAP_CHECK_STR(txa_limit_key(want[i].lim), want[i].key);
		TAP_CHECK_INT(txa_limit_is_bytes(want[i].lim), want[i].bytes);
		TAP_CHECK_INT(txa_limit_is_quota(want[i].lim), want[i].quota);
	}
	/* LISTENERS is not next to the others: no arithmetic on them */
	TAP_CHECK(TXRDMA_A_LIMIT_LISTENERS != TXRDMA_A_LIMIT_QPS + TXA_LIM_LISTENERS);
	TAP_CHECK_INT(txa_limit_attr(TXA_LIM_NR), 0);
	TAP_CHECK_INT(txa_limit_of_attr(TXRDMA_A_TENANT_NAME), -1);
	TAP_CHECK_INT(txa_limit_of_attr(0), -1);
	/* a listeners limit is a count: no suffix */
	TAP_CHECK_INT(txa_parse_limit("1024", txa_limit_is_bytes(TXA_LIM_LISTENERS),
				      &(uint64_t){ 0 }), 0);
	TAP_CHECK_INT(txa_parse_limit("1K", txa_limit_is_bytes(TXA_LIM_LISTENERS),
				      &(uint64_t){ 0 }), -1);
}

static const struct tap_test tests[] = {
	TAP_TEST(test_size_suffixes, "limits: sizes with K/M/G/T and KiB..TiB"),
	TAP_TEST(test_size_rejects, "limits: garbage, sign, overflow refused"),
	TAP_TEST(test_limit, "limits: unlimited, counts vs sizes"),
	TAP_TEST(test_rate, "limits: RATE[:BURST], /s, unlimited"),
	TAP_TEST(test_format, "limits: largest exact suffix, unlimited"),
	TAP_TEST(test_round_trip, "limits: format then parse gives the value back"),
	TAP_TEST(test_prio, "limits: priorities and keys"),
	TAP_TEST(test_limit_attrs, "limits: attribute of each limit (listeners too), keys, quotas"),
};

int main(void)
{
	return TAP_MAIN(tests);
}
