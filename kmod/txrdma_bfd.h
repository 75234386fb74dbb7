/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * BFD-style liveness of a peer (RFC 5880 asynchronous mode, no echo, no
 * authentication, no demand mode) as pure logic: no timers, no
 * allocation, no rdma/ headers.  The caller owns the timer and the QP,
 * injects the clock (u64 nanoseconds, any starting value, wraps
 * allowed) and a random u32 for jitter, and serialises calls on one
 * session (the peer's lock), so that KUnit drives every case on UML.
 */
#ifndef _TXRDMA_BFD_H
#define _TXRDMA_BFD_H

#include <linux/types.h>

/* Session states, numbered as on the wire (RFC 5880 section 4.1). */
enum txrdma_bfd_state {
	TXRDMA_BFD_ADMIN_DOWN	= 0,
	TXRDMA_BFD_DOWN		= 1,
	TXRDMA_BFD_INIT		= 2,
	TXRDMA_BFD_UP		= 3,
};

/* Diagnostic codes (RFC 5880 section 4.1); the ones txrdma sends. */
enum txrdma_bfd_diag {
	TXRDMA_BFD_DIAG_NONE		= 0,
	TXRDMA_BFD_DIAG_DETECT_EXPIRED	= 1,
	TXRDMA_BFD_DIAG_NEIGHBOR_DOWN	= 3,
	TXRDMA_BFD_DIAG_ADMIN_DOWN	= 7,
};

/* Defaults: detect a dead peer in 4 x 20 ms = 80 ms (design.rst). */
#define TXRDMA_BFD_DEF_TX_US		20000
#define TXRDMA_BFD_DEF_RX_US		20000
#define TXRDMA_BFD_DEF_MULT		4

/* Accepted configuration range; beyond it a value is a mistake. */
#define TXRDMA_BFD_MIN_INTERVAL_US	1000
#define TXRDMA_BFD_MAX_INTERVAL_US	60000000
#define TXRDMA_BFD_MAX_MULT		50

/**
 * struct txrdma_bfd_cfg - what the local side asks for
 * @desired_min_tx_us: fastest rate at which it wants to send
 * @required_min_rx_us: fastest rate at which it can take packets
 * @detect_mult: packets the peer may miss before declaring us dead
 */
struct txrdma_bfd_cfg {
	u32 desired_min_tx_us;
	u32 required_min_rx_us;
	u8 detect_mult;
};

/* Wire size of a control packet: RFC 5880 section 4.1 without auth. */
#define TXRDMA_BFD_PKT_LEN		24
#define TXRDMA_BFD_VERSION		1

/* Bits of txrdma_bfd_pkt.flags, at their wire positions in byte 1. */
#define TXRDMA_BFD_PKT_POLL		0x20
#define TXRDMA_BFD_PKT_FINAL		0x10
#define TXRDMA_BFD_PKT_CPI		0x08	/* accepted, ignored */
#define TXRDMA_BFD_PKT_AUTH		0x04	/* never valid here */
#define TXRDMA_BFD_PKT_DEMAND		0x02	/* never valid here */
#define TXRDMA_BFD_PKT_MULTI		0x01	/* reserved by the RFC */

/**
 * struct txrdma_bfd_pkt - a decoded control packet
 * @version: protocol version, TXRDMA_BFD_VERSION
 * @diag: sender's diagnostic (enum txrdma_bfd_diag or another RFC code)
 * @state: sender's state (enum txrdma_bfd_state)
 * @flags: TXRDMA_BFD_PKT_POLL, TXRDMA_BFD_PKT_FINAL, TXRDMA_BFD_PKT_CPI
 * @detect_mult: sender's detection multiplier
 * @my_disc: sender's discriminator, never 0
 * @your_disc: receiver's discriminator as the sender knows it, 0 if
 *	it knows none (only allowed in Down and AdminDown)
 * @desired_min_tx_us: sender's desired transmit interval
 * @required_min_rx_us: sender's required receive interval
 */
struct txrdma_bfd_pkt {
	u8 version;
	u8 diag;
	u8 state;
	u8 flags;
	u8 detect_mult;
	u32 my_disc;
	u32 your_disc;
	u32 desired_min_tx_us;
	u32 required_min_rx_us;
};

/* Bits of txrdma_bfd.flags */
#define TXRDMA_BFD_S_POLL	0x01	/* poll sequence in progress */
#define TXRDMA_BFD_S_FINAL	0x02	/* next packet answers a poll */
#define TXRDMA_BFD_S_HEARD	0x04	/* detection timer is running */
#define TXRDMA_BFD_S_QUEUED	0x08	/* @queued waits for the poll */

/**
 * struct txrdma_bfd - one liveness session (one per peer)
 * @cfg: local parameters as advertised in every packet
 * @queued: parameters set during a poll sequence, started after it
 * @eff_tx_us: local desired tx interval in effect for our sending
 * @eff_rx_us: local required rx interval in effect for detection
 * @state: local state (enum txrdma_bfd_state)
 * @remote_state: last state the peer sent
 * @diag: local diagnostic, reason for the last state change
 * @remote_diag: last diagnostic the peer sent
 * @flags: TXRDMA_BFD_S_*
 * @remote_mult: peer's detection multiplier
 * @local_disc: our discriminator, non-zero, unique on this host
 * @remote_disc: peer's discriminator, 0 until heard or after timeout
 * @remote_min_tx_us: peer's desired tx interval
 * @remote_min_rx_us: peer's required rx interval (1 until heard)
 * @tx_interval_ns: negotiated interval between our packets
 * @detect_ns: negotiated detection time
 * @last_rx_ns: clock of the last accepted packet
 * @next_tx_ns: clock at which the next periodic packet is due
 * @rx_pkts: packets accepted
 * @rx_dropped: packets dropped (wrong discriminator, invalid)
 * @tx_pkts: packets built
 * @restarts: times the peer came back with a new discriminator
 * @stalls: times our own stall was excused (txrdma_bfd_excuse_stall())
 */
struct txrdma_bfd {
	struct txrdma_bfd_cfg cfg;
	struct txrdma_bfd_cfg queued;
	u32 eff_tx_us;
	u32 eff_rx_us;
	u8 state;
	u8 remote_state;
	u8 diag;
	u8 remote_diag;
	u8 flags;
	u8 remote_mult;
	u32 local_disc;
	u32 remote_disc;
	u32 remote_min_tx_us;
	u32 remote_min_rx_us;
	u64 tx_interval_ns;
	u64 detect_ns;
	u64 last_rx_ns;
	u64 next_tx_ns;
	u64 rx_pkts;
	u64 rx_dropped;
	u64 tx_pkts;
	u32 restarts;
	u32 stalls;
};

/* Events returned by txrdma_bfd_rx(), _tick(), _admin_*(), _set_cfg() */
#define TXRDMA_BFD_EV_STATE	0x01	/* local state changed */
#define TXRDMA_BFD_EV_UP	0x02	/* session came Up */
#define TXRDMA_BFD_EV_DOWN	0x04	/* session was Up and no longer is */
#define TXRDMA_BFD_EV_TX_NOW	0x08	/* build and send a packet now */
#define TXRDMA_BFD_EV_DROP	0x10	/* packet dropped */
#define TXRDMA_BFD_EV_RESTART	0x20	/* peer restarted (new disc) */
#define TXRDMA_BFD_EV_POLL_DONE	0x40	/* poll sequence completed */
#define TXRDMA_BFD_EV_TIMEOUT	0x80	/* detection time expired */

int txrdma_bfd_cfg_check(const struct txrdma_bfd_cfg *cfg,
			 const char **reason);
void txrdma_bfd_cfg_default(struct txrdma_bfd_cfg *cfg);

int txrdma_bfd_pkt_check(const struct txrdma_bfd_pkt *pkt);
int txrdma_bfd_encode(const struct txrdma_bfd_pkt *pkt,
		      u8 buf[TXRDMA_BFD_PKT_LEN]);
int txrdma_bfd_decode(struct txrdma_bfd_pkt *pkt, const u8 *buf,
		      size_t len);

int txrdma_bfd_init(struct txrdma_bfd *s, const struct txrdma_bfd_cfg *cfg,
		    u32 local_disc, u64 now_ns);
u32 txrdma_bfd_rx(struct txrdma_bfd *s, const struct txrdma_bfd_pkt *pkt,
		  u64 now_ns);
u32 txrdma_bfd_tick(struct txrdma_bfd *s, u64 now_ns);
u64 txrdma_bfd_next_deadline(const struct txrdma_bfd *s);
void txrdma_bfd_excuse_stall(struct txrdma_bfd *s, u64 now_ns, u64 stall_ns);
void txrdma_bfd_build_tx(struct txrdma_bfd *s, struct txrdma_bfd_pkt *pkt,
			 u64 now_ns, u32 rnd);
u32 txrdma_bfd_admin_down(struct txrdma_bfd *s, u64 now_ns);
u32 txrdma_bfd_admin_up(struct txrdma_bfd *s, u64 now_ns);
int txrdma_bfd_set_cfg(struct txrdma_bfd *s, const struct txrdma_bfd_cfg *cfg,
		       u64 now_ns, const char **reason);
u64 txrdma_bfd_jitter_ns(u64 interval_ns, u8 detect_mult, u32 rnd);
const char *txrdma_bfd_state_name(u8 state);
const char *txrdma_bfd_diag_name(u8 diag);

#endif /* _TXRDMA_BFD_H */
