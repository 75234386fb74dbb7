// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * json.c: small streaming JSON writer, see json.h.
 */
#include <inttypes.h>
#include <string.h>

#include "json.h"

void json_init(struct json_writer *w, FILE *out, bool pretty)
{
	memset(w, 0, sizeof(*w));
	w->out = out;
	w->pretty = pretty;
}

static void indent(struct json_writer *w)
{
	unsigned int i;

	fputc('\n', w->out);
	for (i = 0; i < w->depth; i++)
		fputs("    ", w->out);
}

/*
 * Called before every value and every key: emits the separator that the
 * position requires and checks that a value (or key) is allowed here.
 */
static bool begin_item(struct json_writer *w, bool is_key)
{
	if (w->error)
		return false;
	if (w->depth == 0) {
		/* a second top-level value, or a key outside any object */
		if (w->done || is_key) {
			w->error = true;
			return false;
		}
		return true;
	}
	if (w->key_pending) {
		if (is_key) {
			w->error = true;
			return false;
		}
		w->key_pending = false;
		return true;	/* value right after "key": */
	}
	/* inside an object every member starts with a key */
	if (w->is_obj[w->depth - 1] != is_key) {
		w->error = true;
		return false;
	}
	if (w->count[w->depth - 1]++)
		fputc(',', w->out);
	if (w->pretty)
		indent(w);
	return true;
}

static void end_value(struct json_writer *w)
{
	if (w->depth == 0)
		w->done = true;
}

static void start(struct json_writer *w, bool obj)
{
	if (!begin_item(w, false))
		return;
	if (w->depth >= JSON_MAX_DEPTH) {
		w->error = true;
		return;
	}
	fputc(obj ? '{' : '[', w->out);
	w->is_obj[w->depth] = obj;
	w->count[w->depth] = 0;
	w->depth++;
}

static void end(struct json_writer *w, bool obj)
{
	if (w->error)
		return;
	if (w->depth == 0 || w->is_obj[w->depth - 1] != obj ||
	    w->key_pending) {
		w->error = true;
		return;
	}
	w->depth--;
	if (w->pretty && w->count[w->depth])
		indent(w);
	fputc(obj ? '}' : ']', w->out);
	end_value(w);
}

void json_obj_start(struct json_writer *w)
{
	start(w, true);
}

void json_obj_end(struct json_writer *w)
{
	end(w, true);
}

void json_arr_start(struct json_writer *w)
{
	start(w, false);
}

void json_arr_end(struct json_writer *w)
{
	end(w, false);
}

/* Length of the valid UTF-8 sequence at @s (at most @len bytes), or 0. */
static size_t utf8_seq_len(const unsigned char *s, size_t len)
{
	uint32_t cp;
	size_t n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;	/* continuation byte, overlong lead, > U+10FFFF */
	}
	if (len < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	/* reject overlong forms, surrogates and values past U+10FFFF */
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

void json_escape(FILE *out, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, n;

	while (i < len) {
		unsigned char c = s[i];

		switch (c) {
		case '"':
			fputs("\\\"", out);
			break;
		case '\\':
			fputs("\\\\", out);
			break;
		case '\b':
			fputs("\\b", out);
			break;
		case '\f':
			fputs("\\f", out);
			break;
		case '\n':
			fputs("\\n", out);
			break;
		case '\r':
			fputs("\\r", out);
			break;
		case '\t':
			fputs("\\t", out);
			break;
		default:
			if (c < 0x20 || c == 0x7f) {
				fprintf(out, "\\u%04x", c);
				break;
			}
			n = utf8_seq_len(s + i, len - i);
			if (!n) {
				fputs("\\ufffd", out);
				break;
			}
			fwrite(s + i, 1, n, out);
			i += n;
			continue;
		}
		i++;
	}
}

void json_key(struct json_writer *w, const char *key)
{
	if (!begin_item(w, true))
		return;
	fputc('"', w->out);
	json_escape(w->out, key, strlen(key));
	fputs(w->pretty ? "\": " : "\":", w->out);
	w->key_pending = true;
}

void json_strn(struct json_writer *w, const char *s, size_t len)
{
	if (!begin_item(w, false))
		return;
	fputc('"', w->out);
	json_escape(w->out, s, len);
	fputc('"', w->out);
	end_value(w);
}

void json_str(struct json_writer *w, const char *s)
{
	if (!s) {
		json_null(w);
		return;
	}
	json_strn(w, s, strlen(s));
}

void json_u64(struct json_writer *w, uint64_t v)
{
	if (!begin_item(w, false))
		return;
	fprintf(w->out, "%" PRIu64, v);
	end_value(w);
}

void json_s64(struct json_writer *w, int64_t v)
{
	if (!begin_item(w, false))
		return;
	fprintf(w->out, "%" PRId64, v);
	end_value(w);
}

void json_bool(struct json_writer *w, bool v)
{
	if (!begin_item(w, false))
		return;
	fputs(v ? "true" : "false", w->out);
	end_value(w);
}

void json_null(struct json_writer *w)
{
	if (!begin_item(w, false))
		return;
	fputs("null", w->out);
	end_value(w);
}

void json_kv_str(struct json_writer *w, const char *key, const char *s)
{
	json_key(w, key);
	json_str(w, s);
}

void json_kv_u64(struct json_writer *w, const char *key, uint64_t v)
{
	json_key(w, key);
	json_u64(w, v);
}

void json_kv_s64(struct json_writer *w, const char *key, int64_t v)
{
	json_key(w, key);
	json_s64(w, v);
}

void json_kv_bool(struct json_writer *w, const char *key, bool v)
{
	json_key(w, key);
	json_bool(w, v);
}

int json_finish(struct json_writer *w)
{
	if (w->depth || w->key_pending)
		w->error = true;
	if (w->done)
		fputc('\n', w->out);
	return w->error || !w->done ? -1 : 0;
}
