/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The module's tracepoints (events/txrdma/ in tracefs): where a message
 * is on its way, for a per-hop breakdown and for tools that follow one
 * tenant (tools/trace/).  Each event names its endpoint and tenant by
 * id, the numbers netlink shows, so a trace joins `txrdma-admin ep show`.
 *
 *   txrdma_doorbell     a process's doorbell (TXRDMA_IOC_RING_ENTER)
 *   txrdma_frame_tx     a SEND's frame placed in the peer's ring
 *   txrdma_credit_stall a SEND held back: the peer's ring has no room
 *   txrdma_tx_done      a SEND's write completed (or failed)
 *   txrdma_send_done    a SEND whose frame left completed to its process
 *                       (or failed): with txrdma_frame_tx, its time in
 *                       flight
 *   txrdma_frame_rx     a received frame judged (txrdma_frame_accept())
 *   txrdma_rx_publish   accepted frames published to the process
 *   txrdma_peer_state   a peer's liveness changed state
 *   txrdma_conn         a peer's connection (control or pooled QP) was
 *                       established or ended: which QP a peer's probes
 *                       and pairs use, and when it changed
 *   txrdma_frame_again  a session's frame sent again on its new QP
 *   txrdma_session      an event of a session (TXRDMA_EP_F_SESSION)
 *                       that changed its state or asked for something
 *
 * An event costs a static branch while it is off.  Fields are copied
 * into the event, never pointers: a trace read later outlives the
 * endpoint.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM txrdma

#if !defined(TXRDMA_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define TXRDMA_TRACE_H

#include <linux/tracepoint.h>

TRACE_EVENT(txrdma_doorbell,
	    TP_PROTO(u32 tenant, bool kick),
	    TP_ARGS(tenant, kick),
	    TP_STRUCT__entry(__field(u32, tenant)
			     __field(bool, kick)),
	    TP_fast_assign(__entry->tenant = tenant;
			   __entry->kick = kick;),
	    TP_printk("tenant=%u kick=%d", __entry->tenant, __entry->kick)
);

TRACE_EVENT(txrdma_frame_tx,
	    TP_PROTO(u32 tenant, u32 ep, u32 peer_ep, u32 seq, u32 len,
		     u32 unit, bool joined),
	    TP_ARGS(tenant, ep, peer_ep, seq, len, unit, joined),
	    TP_STRUCT__entry(__field(u32, tenant)
			     __field(u32, ep)
			     __field(u32, peer_ep)
			     __field(u32, seq)
			     __field(u32, len)
			     __field(u32, unit)
			     __field(bool, joined)),
	    TP_fast_assign(__entry->tenant = tenant;
			   __entry->ep = ep;
			   __entry->peer_ep = peer_ep;
			   __entry->seq = seq;
			   __entry->len = len;
			   __entry->unit = unit;
			   __entry->joined = joined;),
	    TP_printk("tenant=%u ep=%u peer_ep=%u seq=%u len=%u unit=%u joined=%d",
		      __entry->tenant, __entry->ep, __entry->peer_ep, __entry->seq,
		      __entry->len, __entry->unit, __entry->joined)
);

TRACE_EVENT(txrdma_credit_stall,
	    TP_PROTO(u32 tenant, u32 ep, u32 seq, u32 units),
	    TP_ARGS(tenant, ep, seq, units),
	    TP_STRUCT__entry(__field(u32, tenant)
			     __field(u32, ep)
			     __field(u32, seq)
			     __field(u32, units)),
	    TP_fast_assign(__entry->tenant = tenant;
			   __entry->ep = ep;
			   __entry->seq = seq;
			   __entry->units = units;),
	    TP_printk("tenant=%u ep=%u seq=%u units=%u", __entry->tenant,
		      __entry->ep, __entry->seq, __entry->units)
);

TRACE_EVENT(txrdma_tx_done,
	    TP_PROTO(u32 tenant, u32 ep, u32 wr_seq, int status),
	    TP_ARGS(tenant, ep, wr_seq, status),
	    TP_STRUCT__entry(__field(u32, tenant)
			     __field(u32, ep)
			     __field(u32, wr_seq)
			     __field(int, status)),
	    TP_fast_assign(__entry->tenant = tenant;
			   __entry->ep = ep;
			   __entry->wr_seq = wr_seq;
			   __entry->status = status;),
	    TP_printk("tenant=%u ep=%u wr_seq=%u status=%d", __entry->tenant,
		      __entry->ep, __entry->wr_seq, __entry->status)
);

TRACE_EVENT(txrdma_send_done,
	    TP_PROTO(u32 tenant, u32 ep, u32 seq, u32 len, int status),
	    TP_ARGS(tenant, ep, seq, len, status),
	    TP_STRUCT__entry(__field(u32, tenant)
			     __field(u32, ep)
			     __field(u32, seq)
			     __field(u32, len)
			     __field(int, status)),
	    TP_fast_assign(__entry->tenant = tenant;
			   __entry->ep = ep;
			   __entry->seq = seq;
			   __entry->len = len;
			   __entry->status = status;),
	    TP_printk("tenant=%u ep=%u seq=%u len=%u status=%d",
		      __entry->tenant, __entry->ep, __entry->seq, __entry->len,
		      __entry->status)
);

TRACE_EVENT(txrdma_frame_rx,
	    TP_PROTO(u32 tenant, u32 ep, u32 seq, u32 len, int verdict),
	    TP_ARGS(tenant, ep, seq, len, verdict),
	    TP_STRUCT__entry(__field(u32, tenant)
			     __field(u32, ep)
			     __field(u32, seq)
			     __field(u32, len)
			     __field(int, verdict)),
	    TP_fast_assign(__entry->tenant = tenant;
			   __entry->ep = ep;
			   __entry->seq = seq;
			   __entry->len = len;
			   __entry->verdict = verdict;),
	    TP_printk("tenant=%u ep=%u seq=%u len=%u verdict=%d",
		      __entry->tenant, __entry->ep, __entry->seq, __entry->len,
		      __entry->verdict)
);

TRACE_EVENT(txrdma_rx_publish,
	    TP_PROTO(u32 tenant, u32 ep, u32 frames, u32 next_seq),
	    TP_ARGS(tenant, ep, frames, next_seq),
	    TP_STRUCT__entry(__field(u32, tenant)
			     __field(u32, ep)
			     __field(u32, frames)
			     __field(u32, next_seq)),
	    TP_fast_assign(__entry->tenant = tenant;
			   __entry->ep = ep;
			   __entry->frames = frames;
			   __entry->next_seq = next_seq;),
	    TP_printk("tenant=%u ep=%u frames=%u next_seq=%u", __entry->tenant,
		      __entry->ep, __entry->frames, __entry->next_seq)
);

TRACE_EVENT(txrdma_peer_state,
	    TP_PROTO(u32 peer, const char *name, u8 old_state, u8 state,
		     u8 diag, u64 silence_ns),
	    TP_ARGS(peer, name, old_state, state, diag, silence_ns),
	    TP_STRUCT__entry(__field(u32, peer)
			     __string(name, name)
			     __field(u8, old_state)
			     __field(u8, state)
			     __field(u8, diag)
			     __field(u64, silence_ns)),
	    TP_fast_assign(__entry->peer = peer;
			   __assign_str(name, name);
			   __entry->old_state = old_state;
			   __entry->state = state;
			   __entry->diag = diag;
			   __entry->silence_ns = silence_ns;),
	    TP_printk("peer=%u name=%s old=%u state=%u diag=%u silence_ns=%llu",
		      __entry->peer, __get_str(name), __entry->old_state,
		      __entry->state, __entry->diag, __entry->silence_ns)
);

TRACE_EVENT(txrdma_conn,
	    TP_PROTO(u32 peer, u8 kind, bool passive, u8 old_state, u8 state,
		     u32 qpn, u32 remote_qpn, bool ctrl),
	    TP_ARGS(peer, kind, passive, old_state, state, qpn, remote_qpn,
		    ctrl),
	    TP_STRUCT__entry(__field(u32, peer)
			     __field(u8, kind)
			     __field(bool, passive)
			     __field(u8, old_state)
			     __field(u8, state)
			     __field(u32, qpn)
			     __field(u32, remote_qpn)
			     __field(bool, ctrl)),
	    TP_fast_assign(__entry->peer = peer;
			   __entry->kind = kind;
			   __entry->passive = passive;
			   __entry->old_state = old_state;
			   __entry->state = state;
			   __entry->qpn = qpn;
			   __entry->remote_qpn = remote_qpn;
			   __entry->ctrl = ctrl;),
	    TP_printk("peer=%u kind=%u passive=%u old=%u state=%u qpn=%u remote_qpn=%u ctrl=%u",
		      __entry->peer, __entry->kind, __entry->passive,
		      __entry->old_state, __entry->state, __entry->qpn,
		      __entry->remote_qpn, __entry->ctrl)
);

TRACE_EVENT(txrdma_frame_again,
	    TP_PROTO(u32 tenant, u32 ep, u32 seq, u32 len, u32 unit),
	    TP_ARGS(tenant, ep, seq, len, unit),
	    TP_STRUCT__entry(__field(u32, tenant)
			     __field(u32, ep)
			     __field(u32, seq)
			     __field(u32, len)
			     __field(u32, unit)),
	    TP_fast_assign(__entry->tenant = tenant;
			   __entry->ep = ep;
			   __entry->seq = seq;
			   __entry->len = len;
			   __entry->unit = unit;),
	    TP_printk("tenant=%u ep=%u seq=%u len=%u unit=%u",
		      __entry->tenant, __entry->ep, __entry->seq, __entry->len,
		      __entry->unit)
);

TRACE_EVENT(txrdma_session,
	    TP_PROTO(u32 tenant, u32 ep, u8 ev, u8 old_state, u8 state,
		     u32 act, u32 gen),
	    TP_ARGS(tenant, ep, ev, old_state, state, act, gen),
	    TP_STRUCT__entry(__field(u32, tenant)
			     __field(u32, ep)
			     __field(u8, ev)
			     __field(u8, old_state)
			     __field(u8, state)
			     __field(u32, act)
			     __field(u32, gen)),
	    TP_fast_assign(__entry->tenant = tenant;
			   __entry->ep = ep;
			   __entry->ev = ev;
			   __entry->old_state = old_state;
			   __entry->state = state;
			   __entry->act = act;
			   __entry->gen = gen;),
	    TP_printk("tenant=%u ep=%u ev=%u old=%u state=%u act=%#x gen=%u",
		      __entry->tenant, __entry->ep, __entry->ev,
		      __entry->old_state, __entry->state, __entry->act,
		      __entry->gen)
);

#endif /* TXRDMA_TRACE_H */

/* where define_trace.h finds this file again: the module's directory */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE txrdma_trace
#include <trace/define_trace.h>
