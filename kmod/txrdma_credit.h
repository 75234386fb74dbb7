/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Credit-based flow control of one endpoint pair, as pure logic (KUnit
 * on UML).  A credit is one TXRDMA_FRAME_UNIT of the receiver's ring.
 *
 * The sender tracks @head, the units it has placed in the peer's ring
 * (frames and the tails it skipped so a frame would not wrap), and
 * @released, the units the peer's process has given back.  It may
 * place a frame only if head + skip + units - released <= ring_units:
 * it can never overrun the receiver.  The receiver checks the same
 * bound independently (a sender that breaks it is broken or hostile)
 * and returns credits in every frame it sends (frame->consumed) or,
 * when it has nothing to send, in an explicit update once a quarter of
 * its ring has been released unreported, or when everything that arrived
 * is released and what is unreported could hold the sender back (see
 * txrdma_credit_rx_due()).  All counters are free-running u32 values
 * compared by difference.
 */
#ifndef _TXRDMA_CREDIT_H
#define _TXRDMA_CREDIT_H

#include <linux/types.h>

/*
 * A session's receiver reports once this many units are released
 * unreported (txrdma_credit_rx_due(); TXRDMA_RX_SESSION_DUE_UNITS)
 */
#define TXRDMA_CREDIT_SESSION_UNITS	32

/**
 * struct txrdma_credit_tx - the sending side
 * @ring_units: size of the peer's receive ring, a power of two
 * @head: units placed so far
 * @released: units the peer's process released, as last reported
 * @stalls: frames that had to wait for credits
 */
struct txrdma_credit_tx {
	u32 ring_units;
	u32 head;
	u32 released;
	u64 stalls;
};

/**
 * struct txrdma_credit_rx - the receiving side
 * @ring_units: size of our receive ring, a power of two
 * @tail: units received so far (frames and skipped tails)
 * @consumed: units our process released
 * @reported: @consumed as last sent to the peer
 * @max_units: the largest frame the sender may place (@ring_units / 2,
 *	or less: txrdma_credit_rx_max_frame())
 * @ahead: our process reads ahead of the tail
 * @every_empty: a session's sender waits for every release (its SENDs
 *	complete on our reports): an update is due whenever everything
 *	that arrived is released (txrdma_credit_rx_should_update())
 */
struct txrdma_credit_rx {
	u32 ring_units;
	u32 tail;
	u32 consumed;
	u32 reported;
	u32 max_units;
	bool ahead;
	bool every_empty;
};

int txrdma_credit_tx_init(struct txrdma_credit_tx *c, u32 ring_units);
int txrdma_credit_place(struct txrdma_credit_tx *c, u32 units, u32 *unit);
int txrdma_credit_tx_update(struct txrdma_credit_tx *c, u32 released);
int txrdma_credit_tx_update_check(const struct txrdma_credit_tx *c,
				  u32 released);
u32 txrdma_credit_tx_free(const struct txrdma_credit_tx *c);

int txrdma_credit_rx_init(struct txrdma_credit_rx *r, u32 ring_units);
void txrdma_credit_rx_max_frame(struct txrdma_credit_rx *r, u32 units);
bool txrdma_credit_rx_due(u32 ring_units, u32 max_units, u32 tail,
			  u32 consumed, u32 reported);
int txrdma_credit_rx_frame(struct txrdma_credit_rx *r, u32 unit, u32 units);
int txrdma_credit_rx_frame_check(const struct txrdma_credit_rx *r, u32 unit,
				 u32 units);
int txrdma_credit_rx_release(struct txrdma_credit_rx *r, u32 consumed);
u32 txrdma_credit_rx_clamp(const struct txrdma_credit_rx *r, u32 consumed);
u32 txrdma_credit_rx_due_units(const struct txrdma_credit_rx *r);
bool txrdma_credit_rx_should_update(const struct txrdma_credit_rx *r);
u32 txrdma_credit_rx_report(struct txrdma_credit_rx *r);
u32 txrdma_credit_unwrap31(u32 last, u32 value31);

#endif /* _TXRDMA_CREDIT_H */
