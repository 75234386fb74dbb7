/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * key.h: the secret of a peer (TXRDMA_A_PEER_KEY) as an operator keeps
 * it: a file of hex text, private to its owner like an ssh key, or the
 * same text on standard input.  Pure: no netlink, so the unit tests can
 * drive it.
 *
 * Nothing here prints the key or a byte of it (a message names a
 * position or a count, never a character), the file is read with
 * read(2) into buffers of ours (no stdio buffer keeps a copy), and every
 * buffer that held it is wiped with explicit_bzero() before it goes.
 */
#ifndef TXA_KEY_H
#define TXA_KEY_H

#include <stddef.h>
#include <stdint.h>

#include <linux/txrdma.h>

/* "key -": the key is read from standard input */
#define TXA_KEY_STDIN		"-"
/* the most a key file may hold: the hex digits and whitespace around */
#define TXA_KEY_TEXT_MAX	1024
/* room for any message of txa_key_load() about a path of PATH_MAX */
#define TXA_KEY_WHY_MAX		(2 * 4096 + 256)

struct txa_key {
	size_t len;		/* TXRDMA_PEER_KEY_MIN..TXRDMA_PEER_KEY_MAX */
	uint8_t bytes[TXRDMA_PEER_KEY_MAX];
};

/* what txa_key_decode() found wrong */
enum txa_key_error {
	TXA_KEY_OK,
	TXA_KEY_EMPTY,		/* nothing but whitespace */
	TXA_KEY_NOT_HEX,	/* *where: 0-based offset of the culprit */
	TXA_KEY_ODD,		/* *where: the number of hex digits */
	TXA_KEY_LENGTH,		/* *where: the number of bytes */
};

/*
 * Decode the hex digits (either case) in @text[0..@len), whitespace
 * before and after them allowed, into @key.  TXA_KEY_OK, or the error
 * with *@where as above; @key is wiped on every error.
 */
enum txa_key_error txa_key_decode(const char *text, size_t len,
				  struct txa_key *key, size_t *where);

/*
 * Read and decode the key in the file @path, or on standard input for
 * TXA_KEY_STDIN.  A regular file that its group or others may read,
 * write or execute is refused unread, as ssh refuses such a key; so is a
 * terminal on standard input (it would echo the key).  Returns 0, or -1
 * with a one-line reason in @why (no newline, no key material).
 */
int txa_key_load(const char *path, struct txa_key *key, char *why,
		 size_t whylen);

/* Forget the key: explicit_bzero(), which the compiler keeps. */
void txa_key_wipe(struct txa_key *key);

#endif /* TXA_KEY_H */
