// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * key.c: read a peer key from a file or standard input, see key.h.
 *
 * The format is what `openssl rand -hex 32 > FILE` writes: hex digits,
 * optionally surrounded by whitespace (a trailing newline), 32 to 128 of
 * them (TXRDMA_PEER_KEY_MIN..TXRDMA_PEER_KEY_MAX bytes).  Hex rather
 * than raw bytes so that a key can be compared, copied between hosts
 * and checked by eye without a binary-safe tool, and so that a file
 * holding something else (a raw key, a passphrase) is refused instead
 * of being sent as a weaker key than intended.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "key.h"

void txa_key_wipe(struct txa_key *key)
{
	explicit_bzero(key, sizeof(*key));
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
	       c == '\f';
}

/* 0..15, or -1 for anything but a hex digit (no locale, no table) */
static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

enum txa_key_error txa_key_decode(const char *text, size_t len,
				  struct txa_key *key, size_t *where)
{
	size_t start = 0, end = len, i, digits;

	txa_key_wipe(key);
	*where = 0;
	while (start < end && is_space(text[start]))
		start++;
	while (end > start && is_space(text[end - 1]))
		end--;
	if (start == end)
		return TXA_KEY_EMPTY;
	for (i = start; i < end; i++) {
		if (hex_value(text[i]) < 0) {
			*where = i;
			return TXA_KEY_NOT_HEX;
		}
	}
	digits = end - start;
	if (digits % 2) {
		*where = digits;
		return TXA_KEY_ODD;
	}
	if (digits / 2 < TXRDMA_PEER_KEY_MIN ||
	    digits / 2 > TXRDMA_PEER_KEY_MAX) {
		*where = digits / 2;
		return TXA_KEY_LENGTH;
	}
	for (i = 0; i < digits / 2; i++)
		key->bytes[i] = (uint8_t)(hex_value(text[start + 2 * i]) << 4 |
					  hex_value(text[start + 2 * i + 1]));
	key->len = digits / 2;
	return TXA_KEY_OK;
}

/*
 * Read all of @fd into @buf (room for @size bytes).  The number of bytes
 * read, @size + 1 if there was more, or -1 (errno set).
 */
static ssize_t read_all(int fd, char *buf, size_t size)
{
	size_t n = 0;
	char extra;
	ssize_t r;

	while (n < size) {
		r = read(fd, buf + n, size - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			return (ssize_t)n;
		n += (size_t)r;
	}
	/* full: one more byte says whether it was too long */
	do {
		r = read(fd, &extra, 1);
	} while (r < 0 && errno == EINTR);
	explicit_bzero(&extra, sizeof(extra));
	if (r < 0)
		return -1;
	return r ? (ssize_t)size + 1 : (ssize_t)n;
}

static void explain(enum txa_key_error e, size_t where, const char *name,
		    char *why, size_t whylen)
{
	switch (e) {
	case TXA_KEY_EMPTY:
		snprintf(why, whylen,
			 "%s is empty: make a key with: openssl rand -hex 32",
			 name);
		break;
	case TXA_KEY_NOT_HEX:
		/* the position only: the byte itself may be part of a key */
		snprintf(why, whylen,
			 "%s is not hex text (byte %zu is not a hex digit): a key is %d to %d hex digits, e.g. from: openssl rand -hex 32",
			 name, where + 1, 2 * TXRDMA_PEER_KEY_MIN,
			 2 * TXRDMA_PEER_KEY_MAX);
		break;
	case TXA_KEY_ODD:
		snprintf(why, whylen,
			 "%s has an odd number of hex digits (%zu): two make a byte",
			 name, where);
		break;
	case TXA_KEY_LENGTH:
		snprintf(why, whylen,
			 "%s holds %zu bytes: a key is %d to %d bytes (%d to %d hex digits)",
			 name, where, TXRDMA_PEER_KEY_MIN, TXRDMA_PEER_KEY_MAX,
			 2 * TXRDMA_PEER_KEY_MIN, 2 * TXRDMA_PEER_KEY_MAX);
		break;
	case TXA_KEY_OK:
		break;
	}
}

int txa_key_load(const char *path, struct txa_key *key, char *why,
		 size_t whylen)
{
	bool use_stdin = !strcmp(path, TXA_KEY_STDIN);
	char text[TXA_KEY_TEXT_MAX], name[4096 + 16];
	enum txa_key_error e;
	int fd, ret = -1;
	struct stat st;
	size_t where;
	ssize_t n;

	txa_key_wipe(key);
	if (use_stdin)
		snprintf(name, sizeof(name), "the key on standard input");
	else
		snprintf(name, sizeof(name), "key file %s", path);

	if (use_stdin) {
		fd = STDIN_FILENO;
		if (isatty(fd)) {
			snprintf(why, whylen,
				 "key -: standard input is a terminal, which would show the key: pipe it in or give a file");
			return -1;
		}
	} else {
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
		if (fd < 0) {
			snprintf(why, whylen, "cannot read %s: %s", name,
				 strerror(errno));
			return -1;
		}
		/* of the file opened, not of a name that may change */
		if (fstat(fd, &st)) {
			snprintf(why, whylen, "cannot read %s: %s", name,
				 strerror(errno));
			goto out_close;
		}
		if (S_ISREG(st.st_mode) && (st.st_mode & (S_IRWXG | S_IRWXO))) {
			snprintf(why, whylen,
				 "%s is accessible by others: chmod 600 %s",
				 name, path);
			goto out_close;
		}
	}

	n = read_all(fd, text, sizeof(text));
	if (n < 0) {
		snprintf(why, whylen, "cannot read %s: %s", name,
			 strerror(errno));
		goto out_wipe;
	}
	if ((size_t)n > sizeof(text)) {
		snprintf(why, whylen,
			 "%s is too long: a key is %d to %d hex digits",
			 name, 2 * TXRDMA_PEER_KEY_MIN, 2 * TXRDMA_PEER_KEY_MAX);
		goto out_wipe;
	}
	e = txa_key_decode(text, (size_t)n, key, &where);
	if (e != TXA_KEY_OK) {
		explain(e, where, name, why, whylen);
		goto out_wipe;
	}
	ret = 0;

out_wipe:
	explicit_bzero(text, sizeof(text));
out_close:
	if (!use_stdin)
		close(fd);
	return ret;
}
