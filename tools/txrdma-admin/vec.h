/* SPDX-License-Identifier: GPL-2.0-only */
/* A growable array of fixed-size items, for the replies of a dump. */
#ifndef TXA_VEC_H
#define TXA_VEC_H

#include <stdlib.h>

/*
 * Make room for one more item in @arr, which holds @n items of @size
 * bytes in room for *@cap.  Returns the (possibly moved) array, or NULL
 * when memory runs out (then @arr is untouched and still owned).
 */
static inline void *txa_vec_room(void *arr, unsigned int n,
				 unsigned int *cap, size_t size)
{
	unsigned int ncap;
	void *grown;

	if (n < *cap)
		return arr;
	ncap = *cap ? *cap * 2 : 8;
	grown = realloc(arr, (size_t)ncap * size);
	if (grown)
		*cap = ncap;
	return grown;
}

#endif /* TXA_VEC_H */
