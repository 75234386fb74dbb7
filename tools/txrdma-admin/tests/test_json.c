// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of the JSON writer (json.c). */
#define _GNU_SOURCE
#include <stdlib.h>

#include "tap.h"
#include "../json.h"

static char *buf;
static size_t buflen;
static FILE *mem;
static struct json_writer w;

static void begin(bool pretty)
{
	mem = open_memstream(&buf, &buflen);
	json_init(&w, mem, pretty);
}

/* finish, compare with @want, and report json_finish()'s verdict */
static void end_expect(const char *want, int want_finish)
{
	int ret = json_finish(&w);

	fclose(mem);
	TAP_CHECK_INT(ret, want_finish);
	TAP_CHECK_STR(buf, want);
	free(buf);
	buf = NULL;
}

static char *escape(const char *s, size_t len)
{
	char *out = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&out, &n);

	json_escape(f, s, len);
	fclose(f);
	return out;
}

#define CHECK_ESCAPE(in, want) do {					\
	char *__e = escape(in, sizeof(in) - 1);				\
	TAP_CHECK_STR(__e, want);					\
	free(__e);							\
} while (0)

static void test_scalars(void)
{
	begin(false);
	json_arr_start(&w);
	json_u64(&w, 0);
	json_u64(&w, UINT64_MAX);
	json_s64(&w, INT64_MIN);
	json_bool(&w, true);
	json_bool(&w, false);
	json_null(&w);
	json_str(&w, NULL);
	json_arr_end(&w);
	end_expect("[0,18446744073709551615,-9223372036854775808,true,false,null,null]\n", 0);
}

static void test_quote_backslash(void)
{
	CHECK_ESCAPE("a\"b", "a\\\"b");
	CHECK_ESCAPE("a\\b", "a\\\\b");
	CHECK_ESCAPE("\\\"", "\\\\\\\"");
	CHECK_ESCAPE("/", "/");
}

static void test_control_chars(void)
{
	CHECK_ESCAPE("\n\r\t\b\f", "\\n\\r\\t\\b\\f");
	CHECK_ESCAPE("\x01\x1f", "\\u0001\\u001f");
	CHECK_ESCAPE("\x7f", "\\u007f");
	/* an embedded NUL in a counted string */
	CHECK_ESCAPE("a\0b", "a\\u0000b");
}

static void test_utf8(void)
{
	/* 2, 3 and 4 byte sequences pass through unchanged */
	CHECK_ESCAPE("caf\xc3\xa9", "caf\xc3\xa9");
	CHECK_ESCAPE("\xe2\x82\xac", "\xe2\x82\xac");
	CHECK_ESCAPE("\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80");
}

static void test_invalid_utf8(void)
{
	CHECK_ESCAPE("\xff", "\\ufffd");		/* never valid */
	CHECK_ESCAPE("\x80x", "\\ufffdx");		/* stray continuation */
	CHECK_ESCAPE("\xc3", "\\ufffd");		/* truncated */
	CHECK_ESCAPE("\xc0\xaf", "\\ufffd\\ufffd");	/* overlong '/' */
	CHECK_ESCAPE("\xed\xa0\x80", "\\ufffd\\ufffd\\ufffd"); /* surrogate */
	CHECK_ESCAPE("\xf4\x90\x80\x80", "\\ufffd\\ufffd\\ufffd\\ufffd");
}

static void test_nesting_commas(void)
{
	begin(false);
	json_obj_start(&w);
	json_kv_str(&w, "name", "rxe0");
	json_key(&w, "ports");
	json_arr_start(&w);
	json_obj_start(&w);
	json_kv_u64(&w, "port", 1);
	json_kv_bool(&w, "up", true);
	json_obj_end(&w);
	json_obj_start(&w);
	json_obj_end(&w);
	json_arr_end(&w);
	json_key(&w, "empty");
	json_arr_start(&w);
	json_arr_end(&w);
	json_kv_s64(&w, "neg", -5);
	json_obj_end(&w);
	end_expect("{\"name\":\"rxe0\",\"ports\":[{\"port\":1,\"up\":true},{}],\"empty\":[],\"neg\":-5}\n", 0);
}

static void test_key_escaping(void)
{
	begin(false);
	json_obj_start(&w);
	json_kv_str(&w, "k\"\n", "v\x01");
	json_obj_end(&w);
	end_expect("{\"k\\\"\\n\":\"v\\u0001\"}\n", 0);
}

static void test_pretty(void)
{
	begin(true);
	json_arr_start(&w);
	json_obj_start(&w);
	json_kv_u64(&w, "a", 1);
	json_key(&w, "b");
	json_arr_start(&w);
	json_arr_end(&w);
	json_obj_end(&w);
	json_arr_end(&w);
	end_expect("[\n    {\n        \"a\": 1,\n        \"b\": []\n    }\n]\n", 0);
}

static void test_misuse(void)
{
	/* a value where a key is due */
	begin(false);
	json_obj_start(&w);
	json_u64(&w, 1);
	json_obj_end(&w);
	end_expect("{", -1);

	/* a key in an array */
	begin(false);
	json_arr_start(&w);
	json_key(&w, "x");
	json_arr_end(&w);
	end_expect("[", -1);

	/* mismatched end, unclosed document, second top-level value */
	begin(false);
	json_arr_start(&w);
	json_obj_end(&w);
	end_expect("[", -1);

	begin(false);
	json_obj_start(&w);
	end_expect("{", -1);

	begin(false);
	json_u64(&w, 1);
	json_u64(&w, 2);
	end_expect("1\n", -1);

	/* a key without its value */
	begin(false);
	json_obj_start(&w);
	json_key(&w, "x");
	json_obj_end(&w);
	end_expect("{\"x\":", -1);
}

static void test_depth_limit(void)
{
	unsigned int i;

	begin(false);
	for (i = 0; i < JSON_MAX_DEPTH; i++)
		json_arr_start(&w);
	for (i = 0; i < JSON_MAX_DEPTH; i++)
		json_arr_end(&w);
	TAP_CHECK_INT(json_finish(&w), 0);
	fclose(mem);
	free(buf);

	begin(false);
	for (i = 0; i < JSON_MAX_DEPTH + 1; i++)
		json_arr_start(&w);
	TAP_CHECK(w.error);
	fclose(mem);
	free(buf);
}

static const struct tap_test tests[] = {
	TAP_TEST(test_scalars, "json: numbers, bools and null"),
	TAP_TEST(test_quote_backslash, "json: quote and backslash are escaped"),
	TAP_TEST(test_control_chars, "json: control characters are escaped"),
	TAP_TEST(test_utf8, "json: valid UTF-8 passes through"),
	TAP_TEST(test_invalid_utf8, "json: invalid UTF-8 becomes U+FFFD"),
	TAP_TEST(test_nesting_commas, "json: nesting and commas"),
	TAP_TEST(test_key_escaping, "json: keys are escaped too"),
	TAP_TEST(test_pretty, "json: pretty printing"),
	TAP_TEST(test_misuse, "json: misuse is detected"),
	TAP_TEST(test_depth_limit, "json: nesting depth limit"),
};

int main(void)
{
	return TAP_MAIN(tests);
}
