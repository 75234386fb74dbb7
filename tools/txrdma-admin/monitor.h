/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* monitor.h: txrdma-admin monitor (events of the "events" group). */
#ifndef TXA_MONITOR_H
#define TXA_MONITOR_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <netlink/handlers.h>

#include "args.h"
#include "dev.h"
#include "peer.h"

/* One event, as one line of text or one JSON object and a newline. */
void txa_event_print_plain(FILE *out, const struct txa_dev *ev);
void txa_event_print_json(FILE *out, const struct txa_dev *ev);
/* The same for TXRDMA_CMD_PEER_STATE_NTF. */
void txa_peer_event_print_plain(FILE *out, const struct txa_peer *ev);
void txa_peer_event_print_json(FILE *out, const struct txa_peer *ev);

/* Short name of an event command ("dev_add", "port", "peer"), or NULL. */
const char *txa_event_name(unsigned int cmd);

struct txa_nl;

struct txa_monitor {
	const struct txa_args *args;
	FILE *out;		/* events */
	FILE *errf;		/* warnings and errors */
	int family;
	struct nl_cb *cb;
	uint64_t seen;
	bool have_last_seq;
	uint64_t last_seq;
	int err;		/* -ENOMEM while parsing */
};

/*
 * Prepare @mon to print the events arriving on @nl (already joined to
 * the group) to @out.  0, or -1 after reporting on nl->err.
 */
int txa_monitor_init(struct txa_monitor *mon, struct txa_nl *nl,
		     const struct txa_args *a, FILE *out);
/*
 * Read and print what is queued on the socket.  0: go on; 1: the count
 * is reached; -1: a fatal error, reported.
 */
int txa_monitor_recv(struct txa_monitor *mon, struct txa_nl *nl);
void txa_monitor_fini(struct txa_monitor *mon);

int txa_cmd_monitor(const struct txa_args *a);

#endif /* TXA_MONITOR_H */
