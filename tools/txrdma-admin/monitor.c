// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * monitor.c: print txrdma events as they happen.
 *
 * The socket is non-blocking and we wait in ppoll() with SIGINT/SIGTERM
 * unblocked only while waiting: libnl retries recvmsg() on EINTR, so a
 * signal must not arrive while we are inside libnl.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include <netlink/msg.h>

#include "monitor.h"
#include "nl.h"
#include "print.h"

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

const char *txa_event_name(unsigned int cmd)
{
	switch (cmd) {
	case TXRDMA_CMD_DEV_ADD_NTF:
		return "dev_add";
	case TXRDMA_CMD_DEV_DEL_NTF:
		return "dev_del";
	case TXRDMA_CMD_DEV_PORT_NTF:
		return "port";
	case TXRDMA_CMD_DEV_SET_NTF:
		return "dev_set";
	case TXRDMA_CMD_PEER_STATE_NTF:
		return "peer";
	}
	return NULL;
}

/* "[2024-05-01T12:34:56.123456Z] " */
static void print_time_plain(FILE *out, bool have_time, uint64_t time_ns)
{
	char tbuf[TIME_STRLEN];
	struct timespec ts;

	if (!have_time) {
		/* no timestamp from the kernel: use the time we got it */
		clock_gettime(CLOCK_REALTIME, &ts);
		time_ns = (uint64_t)ts.tv_sec * 1000000000ULL +
			  (uint64_t)ts.tv_nsec;
	}
	fprintf(out, "[%s] ", time_ns_str(time_ns, tbuf, sizeof(tbuf)));
}

/* "event" (or "unknown" and "cmd"), "seq", "time_ns" and "time" */
static void print_head_json(struct json_writer *w, unsigned int cmd,
			    bool have_seq, uint64_t seq, bool have_time,
			    uint64_t time_ns)
{
	const char *name = txa_event_name(cmd);
	char tbuf[TIME_STRLEN];

	if (name) {
		json_kv_str(w, "event", name);
	} else {
		json_kv_str(w, "event", "unknown");
		json_kv_u64(w, "cmd", cmd);
	}
	if (have_seq)
		json_kv_u64(w, "seq", seq);
	if (have_time) {
		json_kv_u64(w, "time_ns", time_ns);
		json_kv_str(w, "time",
			    time_ns_str(time_ns, tbuf, sizeof(tbuf)));
	}
}

static const char *ev_dev_name(const struct txa_dev *ev)
{
	return ev->have & TXA_HAVE_NAME ? ev->name : "?";
}

void txa_event_print_plain(FILE *out, const struct txa_dev *ev)
{
	char s1[PORT_STATE_STRLEN], s2[PORT_STATE_STRLEN];
	const struct txa_port *port = &ev->port;
	unsigned int i;

	print_time_plain(out, ev->have & TXA_HAVE_TIME, ev->time_ns);
	switch (ev->cmd) {
	case TXRDMA_CMD_DEV_ADD_NTF:
		fprintf(out, "dev add %s", ev_dev_name(ev));
		txa_dev_print_attrs_plain(out, ev);
		for (i = 0; i < ev->nports; i++) {
			fputc(' ', out);
			txa_port_print_plain(out, &ev->ports[i]);
		}
		break;
	case TXRDMA_CMD_DEV_DEL_NTF:
		fprintf(out, "dev del %s", ev_dev_name(ev));
		txa_dev_print_attrs_plain(out, ev);
		break;
	case TXRDMA_CMD_DEV_SET_NTF:
		fprintf(out, "dev set %s", ev_dev_name(ev));
		txa_dev_print_attrs_plain(out, ev);
		break;
	case TXRDMA_CMD_DEV_PORT_NTF:
		fprintf(out, "port %s/", ev_dev_name(ev));
		if (port->have & TXA_HAVE_NUM)
			fprintf(out, "%u", port->num);
		else
			fputc('?', out);
		if (port->have & TXA_HAVE_OLD_STATE)
			fprintf(out, " %s ->", port_state_str(port->old_state,
							       s1, sizeof(s1)));
		if (port->have & TXA_HAVE_STATE)
			fprintf(out, " %s", port_state_str(port->state, s2,
							   sizeof(s2)));
		break;
	default:
		fprintf(out, "event %u dev %s", ev->cmd, ev_dev_name(ev));
		txa_dev_print_attrs_plain(out, ev);
		break;
	}
	fputc('\n', out);
}

void txa_event_print_json(FILE *out, const struct txa_dev *ev)
{
	char sbuf[PORT_STATE_STRLEN];
	const struct txa_port *port = &ev->port;
	struct json_writer w;

	json_init(&w, out, false);	/* JSON Lines: never pretty */
	json_obj_start(&w);
	print_head_json(&w, ev->cmd, ev->have & TXA_HAVE_SEQ, ev->seq,
			ev->have & TXA_HAVE_TIME, ev->time_ns);
	if (ev->have & TXA_HAVE_NAME)
		json_kv_str(&w, "dev", ev->name);
	if (ev->cmd == TXRDMA_CMD_DEV_PORT_NTF) {
		if (ev->have & TXA_HAVE_INDEX)
			json_kv_u64(&w, "index", ev->index);
		if (port->have & TXA_HAVE_NUM)
			json_kv_u64(&w, "port", port->num);
		if (port->have & TXA_HAVE_OLD_STATE)
			json_kv_str(&w, "old_state",
				    port_state_str(port->old_state, sbuf,
						   sizeof(sbuf)));
		if (port->have & TXA_HAVE_STATE)
			json_kv_str(&w, "state",
				    port_state_str(port->state, sbuf,
						   sizeof(sbuf)));
		if (port->have & TXA_HAVE_MTU)
			json_kv_u64(&w, "active_mtu", port->active_mtu);
		if (port->have & TXA_HAVE_NETDEV)
			json_kv_str(&w, "netdev", port->netdev);
	} else {
		txa_dev_print_attrs_json(&w, ev);
	}
	json_obj_end(&w);
	json_finish(&w);
}

void txa_peer_event_print_plain(FILE *out, const struct txa_peer *ev)
{
	char abuf[IPV4_STRLEN], sbuf[TXA_PEER_NAME_STRLEN], mbuf[MS_STRLEN];

	print_time_plain(out, txa_peer_has(ev, TXA_PF_TIME), ev->time_ns);
	fprintf(out, "peer %s", txa_peer_has(ev, TXA_PF_NAME) ? ev->name : "?");
	if (txa_peer_has(ev, TXA_PF_ADDR))
		fprintf(out, " %s", ipv4_str(ev->addr, abuf, sizeof(abuf)));
	if (txa_peer_has(ev, TXA_PF_OLD_STATE))
		fprintf(out, " %s ->", txa_peer_state_str(ev->old_state, sbuf,
							  sizeof(sbuf)));
	if (txa_peer_has(ev, TXA_PF_STATE))
		fprintf(out, " %s", txa_peer_state_str(ev->state, sbuf,
						       sizeof(sbuf)));
	txa_peer_print_diag_plain(out, ev);
	if (txa_peer_has(ev, TXA_PF_SILENCE))
		fprintf(out, " silence %s", ms_str(ev->silence_ns, 1, mbuf,
						   sizeof(mbuf)));
	/* back Up: "after 230.4ms down (flap): peer_stall 181.0ms" */
	if (txa_peer_has(ev, TXA_PF_DOWN_CAUSE)) {
		if (txa_peer_has(ev, TXA_PF_DOWN_NS))
			fprintf(out, " after %s down", ms_str(ev->down_ns, 1,
							      mbuf,
							      sizeof(mbuf)));
		if (txa_peer_has(ev, TXA_PF_FLAP) && ev->flap)
			fputs(" (flap)", out);
		fprintf(out, ": %s", txa_peer_cause_str(ev->down_cause, sbuf,
							sizeof(sbuf)));
		if (txa_peer_has(ev, TXA_PF_DOWN_STALL) && ev->down_stall_ns)
			fprintf(out, " %s", ms_str(ev->down_stall_ns, 1, mbuf,
						   sizeof(mbuf)));
	}
	fputc('\n', out);
}

void txa_peer_event_print_json(FILE *out, const struct txa_peer *ev)
{
	char abuf[IPV4_STRLEN], sbuf[TXA_PEER_NAME_STRLEN];
	struct json_writer w;

	json_init(&w, out, false);	/* JSON Lines: never pretty */
	json_obj_start(&w);
	print_head_json(&w, ev->cmd, txa_peer_has(ev, TXA_PF_SEQ), ev->seq,
			txa_peer_has(ev, TXA_PF_TIME), ev->time_ns);
	if (txa_peer_has(ev, TXA_PF_NAME))
		json_kv_str(&w, "name", ev->name);
	if (txa_peer_has(ev, TXA_PF_ID))
		json_kv_u64(&w, "id", ev->id);
	if (txa_peer_has(ev, TXA_PF_ADDR))
		json_kv_str(&w, "addr", ipv4_str(ev->addr, abuf, sizeof(abuf)));
	if (txa_peer_has(ev, TXA_PF_OLD_STATE))
		json_kv_str(&w, "old_state",
			    txa_peer_state_str(ev->old_state, sbuf,
					       sizeof(sbuf)));
	if (txa_peer_has(ev, TXA_PF_STATE))
		json_kv_str(&w, "state",
			    txa_peer_state_str(ev->state, sbuf, sizeof(sbuf)));
	if (txa_peer_has(ev, TXA_PF_DIAG))
		json_kv_str(&w, "diag",
			    txa_peer_diag_str(ev->diag, sbuf, sizeof(sbuf)));
	if (txa_peer_has(ev, TXA_PF_REASON))
		json_kv_str(&w, "reason", ev->reason);
	if (txa_peer_has(ev, TXA_PF_SILENCE))
		json_kv_u64(&w, "silence_ns", ev->silence_ns);
	if (txa_peer_has(ev, TXA_PF_DOWN_CAUSE))
		json_kv_str(&w, "down_cause",
			    txa_peer_cause_str(ev->down_cause, sbuf,
					       sizeof(sbuf)));
	if (txa_peer_has(ev, TXA_PF_DOWN_NS))
		json_kv_u64(&w, "down_ns", ev->down_ns);
	if (txa_peer_has(ev, TXA_PF_DOWN_STALL))
		json_kv_u64(&w, "down_stall_ns", ev->down_stall_ns);
	if (txa_peer_has(ev, TXA_PF_FLAP))
		json_kv_bool(&w, "flap", ev->flap);
	json_obj_end(&w);
	json_finish(&w);
}

/* a jump in the module's event counter: the kernel dropped some for us */
static void check_seq(struct txa_monitor *mon, bool have_seq, uint64_t seq)
{
	if (!have_seq)
		return;
	if (mon->have_last_seq && seq > mon->last_seq + 1)
		fprintf(mon->errf, TXA_PROG ": monitor: %llu event(s) lost\n",
			(unsigned long long)(seq - mon->last_seq - 1));
	mon->have_last_seq = true;
	mon->last_seq = seq;
}

/* an event was printed: NL_STOP once the count is reached */
static int printed(struct txa_monitor *mon)
{
	fflush(mon->out);
	mon->seen++;
	if (mon->args->count && mon->seen >= mon->args->count)
		return NL_STOP;
	return NL_OK;
}

/* -ENOMEM stops the monitor; anything else unparsable is skipped */
static int parse_failed(struct txa_monitor *mon, int ret)
{
	if (ret == -ENOMEM) {
		mon->err = ret;
		return NL_STOP;
	}
	fprintf(mon->errf, TXA_PROG ": monitor: skipped a malformed event\n");
	return NL_OK;
}

static int on_peer_event(struct nlmsghdr *nlh, struct txa_monitor *mon)
{
	struct txa_peer ev;
	int ret;

	ret = txa_peer_parse(nlh, &ev);
	if (ret) {
		txa_peer_free(&ev);
		return parse_failed(mon, ret);
	}
	check_seq(mon, txa_peer_has(&ev, TXA_PF_SEQ), ev.seq);
	if (mon->args->json)
		txa_peer_event_print_json(mon->out, &ev);
	else
		txa_peer_event_print_plain(mon->out, &ev);
	txa_peer_free(&ev);
	return printed(mon);
}

static int on_event(struct nlmsghdr *nlh, void *arg)
{
	struct txa_monitor *mon = arg;
	struct txa_dev ev;
	int ret;

	if (genlmsg_valid_hdr(nlh, 0) &&
	    ((struct genlmsghdr *)nlmsg_data(nlh))->cmd ==
	    TXRDMA_CMD_PEER_STATE_NTF)
		return on_peer_event(nlh, mon);

	ret = txa_dev_parse(nlh, &ev);
	if (ret) {
		txa_dev_free(&ev);
		return parse_failed(mon, ret);
	}
	if (ev.cmd == TXRDMA_CMD_DEV_GET) {	/* not an event */
		txa_dev_free(&ev);
		return NL_OK;
	}
	check_seq(mon, ev.have & TXA_HAVE_SEQ, ev.seq);
	if (mon->args->json)
		txa_event_print_json(mon->out, &ev);
	else
		txa_event_print_plain(mon->out, &ev);
	txa_dev_free(&ev);
	return printed(mon);
}

static int on_valid(struct nl_msg *msg, void *arg)
{
	struct txa_monitor *mon = arg;
	struct nlmsghdr *nlh = nlmsg_hdr(msg);

	if (nlh->nlmsg_type != mon->family)
		return NL_SKIP;
	return on_event(nlh, mon);
}

int txa_monitor_init(struct txa_monitor *mon, struct txa_nl *nl,
		     const struct txa_args *a, FILE *out)
{
	struct nl_cb *sock_cb;

	memset(mon, 0, sizeof(*mon));
	mon->args = a;
	mon->out = out;
	mon->errf = nl->err;
	mon->family = nl->family;

	/* events are unsolicited: their seq is 0, never what we expect */
	nl_socket_disable_seq_check(nl->sk);
	/* clone so that the seq check stays off (and tests' overrides stay) */
	sock_cb = nl_socket_get_cb(nl->sk);
	mon->cb = sock_cb ? nl_cb_clone(sock_cb) : NULL;
	nl_cb_put(sock_cb);
	if (!mon->cb) {
		fprintf(mon->errf, TXA_PROG ": monitor: %s\n", strerror(ENOMEM));
		return -1;
	}
	nl_cb_set(mon->cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, mon);
	return 0;
}

void txa_monitor_fini(struct txa_monitor *mon)
{
	nl_cb_put(mon->cb);
	mon->cb = NULL;
}

int txa_monitor_recv(struct txa_monitor *mon, struct txa_nl *nl)
{
	int err = nl_recvmsgs(nl->sk, mon->cb);

	if (mon->err) {
		fprintf(mon->errf, TXA_PROG ": monitor: %s\n",
			strerror(-mon->err));
		return -1;
	}
	if (mon->args->count && mon->seen >= mon->args->count)
		return 1;
	if (err == -NLE_AGAIN || err >= 0)
		return 0;
	if (err == -NLE_NOMEM) {
		/* ENOBUFS: the kernel dropped events for us */
		fprintf(mon->errf, TXA_PROG ": monitor: receive buffer overrun, events were lost\n");
		return 0;
	}
	fprintf(mon->errf, TXA_PROG ": monitor: %s\n", nl_geterror(err));
	return -1;
}

int txa_cmd_monitor(const struct txa_args *a)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct txa_monitor mon;
	sigset_t block, waitmask;
	struct pollfd pfd;
	struct txa_nl nl;
	int ret = TXA_EXIT_FAIL, err;

	/* signals are blocked except inside ppoll() */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &waitmask);
	sigdelset(&waitmask, SIGINT);
	sigdelset(&waitmask, SIGTERM);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	if (txa_nl_open(&nl, "monitor"))
		goto out_sig;
	if (txa_nl_join_events(&nl))
		goto out_close;
	/* a burst of events must not overrun us too easily */
	nl_socket_set_buffer_size(nl.sk, 1 << 20, 0);
	err = nl_socket_set_nonblocking(nl.sk);
	if (err < 0) {
		fprintf(stderr, TXA_PROG ": monitor: %s\n", nl_geterror(err));
		goto out_close;
	}
	if (txa_monitor_init(&mon, &nl, a, stdout))
		goto out_close;

	pfd.fd = nl_socket_get_fd(nl.sk);
	pfd.events = POLLIN;
	while (!stop_signal) {
		if (ppoll(&pfd, 1, NULL, &waitmask) < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, TXA_PROG ": monitor: poll: %s\n",
				strerror(errno));
			goto out_mon;
		}
		err = txa_monitor_recv(&mon, &nl);
		if (err < 0)
			goto out_mon;
		if (err > 0)
			break;
	}
	ret = TXA_EXIT_OK;
out_mon:
	txa_monitor_fini(&mon);
out_close:
	txa_nl_close(&nl);
out_sig:
	sigprocmask(SIG_UNBLOCK, &block, NULL);
	return ret;
}
