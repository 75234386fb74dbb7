/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * tap.h: a tiny TAP (version 13) producer for txrdma's host unit tests.
 *
 * A test program lists its tests in a table and hands it to tap_main():
 *
 *	static void test_foo(void) { TAP_CHECK(1 + 1 == 2); }
 *	static const struct tap_test tests[] = {
 *		TAP_TEST(test_foo, "one plus one"),
 *	};
 *	int main(void) { return TAP_MAIN(tests); }
 *
 * Output: "TAP version 13", "1..N", then one "ok K - desc" or
 * "not ok K - desc" line per test, "# SKIP reason" appended for skipped
 * tests, diagnostics as "# ..." lines.  The exit status is 1 if any test
 * failed, else 0.  Each test may run many checks; the first failing
 * check is reported with its file and line, later ones too.
 */
#ifndef TXRDMA_TAP_H
#define TXRDMA_TAP_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

struct tap_test {
	void (*fn)(void);
	const char *desc;
};

#define TAP_TEST(fn, desc)	{ fn, desc }
#define TAP_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define TAP_MAIN(tests)		tap_main(tests, TAP_ARRAY_SIZE(tests))

static struct {
	bool failed;		/* current test failed */
	const char *skip;	/* current test skipped, with this reason */
} tap_cur;

static inline void tap_diag(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static inline void tap_diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
}

static inline bool tap_check(bool pass, const char *file, int line,
			     const char *expr)
{
	if (!pass) {
		tap_cur.failed = true;
		tap_diag("check failed at %s:%d: %s", file, line, expr);
	}
	return pass;
}

/* Skip the current test; the caller should return right after. */
static inline void tap_skip(const char *reason)
{
	tap_cur.skip = reason;
}

#define TAP_CHECK(cond)	tap_check(!!(cond), __FILE__, __LINE__, #cond)

#define TAP_CHECK_INT(a, b) ({						\
	long long __a = (long long)(a), __b = (long long)(b);		\
	bool __ok = tap_check(__a == __b, __FILE__, __LINE__,		\
			      #a " == " #b);				\
	if (!__ok)							\
		tap_diag("  got %lld, want %lld", __a, __b);		\
	__ok;								\
})

#define TAP_CHECK_STR(a, b) ({						\
	const char *__a = (a), *__b = (b);				\
	bool __ok = tap_check(__a && __b && !strcmp(__a, __b),		\
			      __FILE__, __LINE__, #a " == " #b);	\
	if (!__ok)							\
		tap_diag("  got \"%s\", want \"%s\"",			\
			 __a ? __a : "(null)", __b ? __b : "(null)");	\
	__ok;								\
})

static inline int tap_main(const struct tap_test *tests, size_t n)
{
	size_t i, failed = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n1..%zu\n", n);
	for (i = 0; i < n; i++) {
		tap_cur.failed = false;
		tap_cur.skip = NULL;
		tests[i].fn();
		fflush(stdout);
		if (tap_cur.skip && !tap_cur.failed) {
			printf("ok %zu - %s # SKIP %s\n", i + 1, tests[i].desc,
			       tap_cur.skip);
		} else if (tap_cur.failed) {
			printf("not ok %zu - %s\n", i + 1, tests[i].desc);
			failed++;
		} else {
			printf("ok %zu - %s\n", i + 1, tests[i].desc);
		}
	}
	if (failed)
		tap_diag("%zu of %zu tests failed", failed, n);
	return failed ? 1 : 0;
}

#endif /* TXRDMA_TAP_H */
