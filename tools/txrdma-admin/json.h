/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A small streaming JSON writer.
 *
 * Calls append to a FILE; commas, colons and (when pretty) indentation are
 * inserted automatically.  Strings are escaped as RFC 8259 asks: quote,
 * backslash and control characters; valid UTF-8 passes through, and each
 * byte of an invalid UTF-8 sequence becomes U+FFFD so the output is always
 * valid JSON.  Misuse (a value where a key is due, too deep a nesting,
 * unbalanced ends) sets an error that json_finish() returns.
 */
#ifndef TXA_JSON_H
#define TXA_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH	32

struct json_writer {
	FILE *out;
	bool pretty;
	bool error;
	unsigned int depth;
	/* per level: true for an object, false for an array */
	bool is_obj[JSON_MAX_DEPTH];
	/* per level: number of members written so far */
	unsigned int count[JSON_MAX_DEPTH];
	bool key_pending;	/* a key was written, its value is due */
	bool done;		/* a complete top-level value was written */
};

void json_init(struct json_writer *w, FILE *out, bool pretty);
/* Ends the document with a newline; 0 if well-formed, -1 otherwise. */
int json_finish(struct json_writer *w);

void json_obj_start(struct json_writer *w);
void json_obj_end(struct json_writer *w);
void json_arr_start(struct json_writer *w);
void json_arr_end(struct json_writer *w);

void json_key(struct json_writer *w, const char *key);
void json_str(struct json_writer *w, const char *s);
void json_strn(struct json_writer *w, const char *s, size_t len);
void json_u64(struct json_writer *w, uint64_t v);
void json_s64(struct json_writer *w, int64_t v);
void json_bool(struct json_writer *w, bool v);
void json_null(struct json_writer *w);

/* key + value in one call */
void json_kv_str(struct json_writer *w, const char *key, const char *s);
void json_kv_u64(struct json_writer *w, const char *key, uint64_t v);
void json_kv_s64(struct json_writer *w, const char *key, int64_t v);
void json_kv_bool(struct json_writer *w, const char *key, bool v);

/* Write @s escaped, without quotes, to @out (also used by the tests). */
void json_escape(FILE *out, const char *s, size_t len);

#endif /* TXA_JSON_H */
