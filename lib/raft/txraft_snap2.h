/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The snapshot of a state machine whose whole state is two numbers
 * (say, how many commands it applied and a hash of them): what the
 * tests, benchmarks and examples of lib/raft run.  libraft asks every
 * state machine for snapshot and restore (it snapshots every 1,024
 * entries by default), so each of them needs these two; they live
 * once, here.  Host byte order: a snapshot travels between servers of
 * one architecture only.
 */
#ifndef TXRAFT_SNAP2_H
#define TXRAFT_SNAP2_H

#include <stdint.h>

#include <raft.h>

/* for fsm->snapshot: @a and @b in one buffer libraft will free */
static inline int txraft_snap2_make(uint64_t a, uint64_t b,
				    struct raft_buffer *bufs[],
				    unsigned int *n_bufs)
{
	uint64_t *v;

	*bufs = raft_malloc(sizeof(**bufs));
	v = raft_malloc(2 * sizeof(*v));
	if (!*bufs || !v) {
		raft_free(*bufs);
		raft_free(v);
		return RAFT_NOMEM;
	}
	v[0] = a;
	v[1] = b;
	(*bufs)[0].base = v;
	(*bufs)[0].len = 2 * sizeof(*v);
	*n_bufs = 1;
	return 0;
}

/*
 * For fsm->restore: the two numbers back.  The buffer is the state
 * machine's to free, and is freed here whatever the outcome.
 * Return: 0, or RAFT_MALFORMED (not a snapshot of two numbers).
 */
static inline int txraft_snap2_take(struct raft_buffer *buf, uint64_t *a,
				    uint64_t *b)
{
	const uint64_t *v = buf->base;
	int rv = RAFT_MALFORMED;

	if (buf->len == 2 * sizeof(*v)) {
		*a = v[0];
		*b = v[1];
		rv = 0;
	}
	raft_free(buf->base);
	buf->base = NULL;
	return rv;
}

#endif /* TXRAFT_SNAP2_H */
