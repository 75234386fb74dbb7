/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* libtxrdma internals; not installed. */
#ifndef TXRDMA_INT_H
#define TXRDMA_INT_H

/* Mark a symbol as part of the ABI; it must also be in libtxrdma.map. */
#define TXRDMA_EXPORT	__attribute__((visibility("default")))

#define TXRDMA_STR_(x)	#x
#define TXRDMA_STR(x)	TXRDMA_STR_(x)
#define TXRDMA_VERSION_STRING				\
	TXRDMA_STR(TXRDMA_LIB_VERSION_MAJOR) "."	\
	TXRDMA_STR(TXRDMA_LIB_VERSION_MINOR) "."	\
	TXRDMA_STR(TXRDMA_LIB_VERSION_PATCH)


/* txrdma_rx_peek() in full, out of line (txrdma_rx_slow.c) */
int txrdma_rx_peek_full(struct txrdma_rx *rx, const void **payload,
			__u32 *len);

#endif /* TXRDMA_INT_H */
