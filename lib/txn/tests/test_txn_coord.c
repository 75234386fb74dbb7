// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The two-phase-commit machines (lib/txn/txn_coord.c, txn_part.c), one
 * scenario at a time, on the host under ASan and UBSan.  A fake
 * transport records every record sent and every event raised; records
 * handed to a machine went through the wire writer and reader first, so
 * a participant reads a PREPARE's ids as it would from a batch.  Each
 * machine's memory is malloc'ed at exactly txn_*_memsize(), so a write
 * past it is caught.  The exhaustive search over faults is
 * test_txn_model.c; here each behaviour is pinned by name:
 *  - coordinator: commit, abort on no, vote timeout with retries, ACK
 *    loss, window full, bad input, strangers, INQUIRE answers, Down/Up,
 *    restore, calls back in from callbacks, 1..64 participants, 64
 *    transactions in flight decided independently;
 *  - participant: prepare/vote/decide/applied, duplicates, decisions for
 *    transactions not held, inquiries, Down/Up, restore, full, strangers;
 *  - both, end to end over the wire.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../txn_coord.h"
#include "../txn_part.h"
#include "tap.h"

#define MAX_SENT	20000
#define MAX_EV		4096

struct sent {
	uint32_t node;
	struct txn_rec r;	/* .parts: host-endian copy below */
	uint32_t parts[TXRDMA_TXN_MAX_PARTS];
};

struct fake {
	struct sent *s;
	unsigned int ns, cap;
	struct txn_event ev[MAX_EV];
	unsigned int nev;
	/* coordinator: what log() got */
	struct txn_id log_id[MAX_EV];
	uint32_t log_nodes[TXRDMA_TXN_MAX_PARTS];
	uint16_t log_n;
	unsigned int nlog;
	/* behaviours */
	struct txn_coord *c;
	int log_sync;		/* log() calls txn_coord_logged() at once */
	const struct txn_branch *begin_br;	/* DONE begins another */
	uint16_t begin_n;
	int begin_ret;
	struct txn_part *p;
	int vote_sync;		/* PREPARE votes yes at once */
	/* the last PREPARE event's record, copied */
	uint32_t prep_parts[TXRDMA_TXN_MAX_PARTS];
	uint16_t prep_n;
	char prep_data[64];
	uint32_t prep_len;
};

static struct sent sent_c[MAX_SENT], sent_p[MAX_SENT];
static struct fake fc, fp;

static void f_send(void *ctx, uint32_t node, const struct txn_rec *r)
{
	struct fake *f = ctx;
	struct sent *s;

	TAP_CHECK_INT(txn_rec_check(r), 0);
	if (!TAP_CHECK(f->ns < f->cap))
		return;
	s = &f->s[f->ns++];
	s->node = node;
	s->r = *r;
	if (r->nparts) {
		memcpy(s->parts, r->parts, r->nparts * sizeof(uint32_t));
		s->r.parts = s->parts;
	}
}

static void f_log(void *ctx, const struct txn_id *id, const uint32_t *nodes,
		  uint16_t n)
{
	struct fake *f = ctx;

	if (!TAP_CHECK(f->nlog < MAX_EV))
		return;
	f->log_id[f->nlog++] = *id;
	memcpy(f->log_nodes, nodes, n * sizeof(*nodes));
	f->log_n = n;
	if (f->log_sync)
		TAP_CHECK_INT(txn_coord_logged(f->c, id, 0), 0);
}

static void f_event(void *ctx, const struct txn_event *ev)
{
	struct fake *f = ctx;
	struct txn_id id;
	unsigned int k;

	if (!TAP_CHECK(f->nev < MAX_EV))
		return;
	f->ev[f->nev++] = *ev;
	f->ev[f->nev - 1].rec = NULL;
	if (ev->type == TXN_EV_PREPARE) {
		f->prep_n = ev->rec->nparts;
		for (k = 0; k < ev->rec->nparts; k++)
			f->prep_parts[k] = txn_rec_part(ev->rec, k);
		f->prep_len = ev->rec->data_len;
		if (ev->rec->data_len <= sizeof(f->prep_data))
			memcpy(f->prep_data, ev->rec->data, ev->rec->data_len);
		if (f->vote_sync)
			TAP_CHECK_INT(txn_part_vote(f->p, &ev->id, 1, 0, 0), 0);
	}
	if (ev->type == TXN_EV_DONE && f->begin_br) {
		f->begin_ret = txn_coord_begin(f->c, f->begin_br, f->begin_n,
					       0, &id);
		f->begin_br = NULL;
	}
}

static const struct txn_ops ops = {
	.send	= f_send,
	.log	= f_log,
	.event	= f_event,
};

/* through the wire: what a machine reads from a batch */
static uint8_t wbuf[16][8192];
static unsigned int wnext;

static struct txn_rec wire(const struct txn_rec *in)
{
	uint8_t *b = wbuf[wnext++ % 16];
	struct txn_reader rd;
	struct txn_writer w;
	struct txn_rec out = { 0 };
	size_t len;

	txn_writer_init(&w, b, sizeof(wbuf[0]));
	TAP_CHECK_INT(txn_writer_add(&w, in), 0);
	len = txn_writer_finish(&w);
	TAP_CHECK_INT(txn_reader_init(&rd, b, len), 0);
	TAP_CHECK_INT(txn_reader_next(&rd, &out), 1);
	return out;
}

static struct txn_rec mk(uint8_t type, const struct txn_id *id, uint8_t flags,
			 uint32_t arg)
{
	struct txn_rec r = {
		.type	= type,
		.flags	= flags,
		.id	= *id,
		.arg	= arg,
	};

	return wire(&r);
}

static struct txn_rec mkprep(const struct txn_id *id, const uint32_t *parts,
			     uint16_t n, const char *data)
{
	struct txn_rec r = {
		.type		= TXRDMA_TXN_PREPARE,
		.nparts		= n,
		.id		= *id,
		.parts		= parts,
		.data		= data,
		.data_len	= (uint32_t)strlen(data),
	};

	return wire(&r);
}

static bool id_eq(const struct txn_id *a, const struct txn_id *b)
{
	return a->coord == b->coord && a->epoch == b->epoch &&
	       a->seq == b->seq;
}

/* records of @type to @node (0: any) sent since @from */
static unsigned int count(const struct fake *f, unsigned int from,
			  uint8_t type, uint32_t node)
{
	unsigned int i, n = 0;

	for (i = from; i < f->ns; i++)
		if (f->s[i].r.type == type && (!node || f->s[i].node == node))
			n++;
	return n;
}

static unsigned int count_ev(const struct fake *f, unsigned int from,
			     uint8_t type)
{
	unsigned int i, n = 0;

	for (i = from; i < f->nev; i++)
		n += f->ev[i].type == type;
	return n;
}

static const struct txn_event *last_ev(const struct fake *f)
{
	return f->nev ? &f->ev[f->nev - 1] : NULL;
}

static const struct sent *last_sent(const struct fake *f)
{
	return f->ns ? &f->s[f->ns - 1] : NULL;
}

/* ---- fixtures ---- */

static struct txn_coord C;
static void *cmem;

static struct txn_coord_cfg ccfg(void)
{
	return (struct txn_coord_cfg) {
		.self		= 1,
		.epoch		= 5,
		.window		= 8,
		.max_parts	= 8,
		.vote_retries	= 2,
		.vote_timeout_ns = 100,
		.ack_timeout_ns	= 50,
	};
}

static void coord_up(const struct txn_coord_cfg *cfg)
{
	size_t len = txn_coord_memsize(cfg);

	free(cmem);
	memset(&fc, 0, sizeof(fc));
	fc.s = sent_c;
	fc.cap = MAX_SENT;
	fc.c = &C;
	cmem = malloc(len);
	TAP_CHECK(len && cmem);
	TAP_CHECK_INT(txn_coord_init(&C, cfg, &ops, &fc, cmem, len), 0);
}

static struct txn_part P;
static void *pmem;

static struct txn_part_cfg pcfg(void)
{
	return (struct txn_part_cfg) {
		.self			= 2,
		.max_txns		= 8,
		.inquire_timeout_ns	= 100,
	};
}

static void part_up(const struct txn_part_cfg *cfg)
{
	size_t len = txn_part_memsize(cfg);

	free(pmem);
	memset(&fp, 0, sizeof(fp));
	fp.s = sent_p;
	fp.cap = MAX_SENT;
	fp.p = &P;
	pmem = malloc(len);
	TAP_CHECK(len && pmem);
	TAP_CHECK_INT(txn_part_init(&P, cfg, &ops, &fp, pmem, len), 0);
}

static void teardown(void)
{
	free(cmem);
	free(pmem);
	cmem = pmem = NULL;
}

static int vote(uint32_t from, const struct txn_id *id, int yes,
		uint64_t now)
{
	struct txn_rec r = mk(TXRDMA_TXN_VOTE, id, yes ? TXRDMA_TXN_F_YES : 0,
			      yes ? 0 : 42);

	return txn_coord_on_rec(&C, from, &r, now);
}

static int ack(uint32_t from, const struct txn_id *id, uint64_t now)
{
	struct txn_rec r = mk(TXRDMA_TXN_ACK, id, 0, TXRDMA_TXN_COMMIT);

	return txn_coord_on_rec(&C, from, &r, now);
}

static int inq(uint32_t from, const struct txn_id *id, uint64_t now)
{
	struct txn_rec r = mk(TXRDMA_TXN_INQUIRE, id, 0, 0);

	return txn_coord_on_rec(&C, from, &r, now);
}

static const char *const pay[] = { "a", "bb", "ccc", "dddd" };
static struct txn_branch br3[3] = {
	{ .node = 10, .len = 1, .data = "a" },
	{ .node = 11, .len = 2, .data = "bb" },
	{ .node = 12, .len = 0, .data = NULL },
};

/* ---- the table both machines keep (txn_sm.c) ---- */

static void test_table(void)
{
	uint64_t mem[64];
	struct txn_tab t;
	struct txn_tab_iter it;
	struct txn_id id[5];
	uint32_t i, got[5];
	unsigned int k;

	TAP_CHECK(txn_tab_memsize(5) <= sizeof(mem));
	txn_tab_init(&t, 5, mem);
	for (k = 0; k < 5; k++) {
		/* ids that differ in their epoch only */
		id[k] = (struct txn_id) { .coord = 1, .epoch = k + 1, .seq = 9 };
		TAP_CHECK_INT(txn_tab_add(&t, &id[k]), k);
	}
	TAP_CHECK_INT(txn_tab_add(&t, &(struct txn_id){ 1, 9, 9 }), TXN_NIL);
	for (k = 0; k < 5; k++)
		TAP_CHECK_INT(txn_tab_find(&t, &id[k]), k);
	TAP_CHECK_INT(txn_tab_find(&t, &(struct txn_id){ 1, 1, 8 }), TXN_NIL);
	/* the lowest free slot is taken, whatever the order of frees */
	txn_tab_del(&t, 3);
	txn_tab_del(&t, 1);
	TAP_CHECK_INT(txn_tab_find(&t, &id[1]), TXN_NIL);
	TAP_CHECK_INT(txn_tab_find(&t, &id[4]), 4);
	TAP_CHECK_INT(txn_tab_add(&t, &id[3]), 1);
	TAP_CHECK_INT(txn_tab_add(&t, &id[1]), 3);
	TAP_CHECK_INT(txn_tab_find(&t, &id[3]), 1);
	/* timers: two queues, fired in deadline order, ties to queue 0 */
	TAP_CHECK_INT(txn_tab_next(&t), TXN_NEVER);
	txn_tab_clock(&t, 100);
	txn_tab_clock(&t, 50);			/* never back */
	TAP_CHECK_INT(t.now, 100);
	txn_tab_arm(&t, 0, 0, 30);		/* 130 */
	txn_tab_arm(&t, 1, 1, 10);		/* 110 */
	txn_tab_arm(&t, 2, 0, 30);		/* 130 */
	txn_tab_arm(&t, 3, 1, 30);		/* 130, after 0 and 2 */
	txn_tab_arm(&t, 4, 1, 10);		/* raised to 130: sorted */
	TAP_CHECK_INT(t.s[4].when, 130);
	TAP_CHECK_INT(txn_tab_next(&t), 110);
	txn_tab_iter_init(&t, &it);
	for (k = 0; (i = txn_tab_iter_next(&t, &it)) != TXN_NIL; k++)
		got[k] = i;
	TAP_CHECK_INT(k, 5);
	TAP_CHECK(got[0] == 1 && got[1] == 0 && got[2] == 2 && got[3] == 3 &&
		  got[4] == 4);
	TAP_CHECK_INT(txn_tab_due(&t), TXN_NIL);
	txn_tab_clock(&t, 130);
	TAP_CHECK_INT(txn_tab_due(&t), 1);
	txn_tab_disarm(&t, 1);
	txn_tab_disarm(&t, 2);			/* from the middle */
	txn_tab_del(&t, 0);			/* disarms too */
	TAP_CHECK_INT(txn_tab_due(&t), 3);
	txn_tab_arm(&t, 3, 0, 5);		/* re-armed: moves queue */
	TAP_CHECK_INT(txn_tab_due(&t), 4);
	txn_tab_disarm(&t, 4);
	TAP_CHECK_INT(txn_tab_next(&t), 135);
	/* a deadline past the end of time stays short of TXN_NEVER */
	txn_tab_arm(&t, 4, 1, UINT64_MAX);
	TAP_CHECK_INT(t.s[4].when, TXN_NEVER - 1);
	TAP_CHECK_INT(t.used, 4);
}

/* ---- coordinator ---- */

static void test_coord_commit(void)
{
	struct txn_coord_cfg cfg = ccfg();
	struct txn_coord_info info;
	struct txn_id id;
	unsigned int k, m;

	coord_up(&cfg);
	TAP_CHECK_INT(txn_coord_next_deadline(&C), TXN_NEVER);
	TAP_CHECK_INT(txn_coord_begin(&C, br3, 3, 1000, &id), 0);
	TAP_CHECK(id.coord == 1 && id.epoch == 5 && id.seq == 1);
	TAP_CHECK_INT(count(&fc, 0, TXRDMA_TXN_PREPARE, 0), 3);
	for (k = 0; k < 3; k++) {
		const struct sent *s = &fc.s[k];

		TAP_CHECK_INT(s->node, br3[k].node);
		TAP_CHECK_INT(s->r.nparts, 3);
		TAP_CHECK(s->parts[0] == 10 && s->parts[1] == 11 &&
			  s->parts[2] == 12);
		TAP_CHECK_INT(s->r.data_len, br3[k].len);
		TAP_CHECK(s->r.data == br3[k].data);
		TAP_CHECK(id_eq(&s->r.id, &id));
	}
	TAP_CHECK_INT(txn_coord_next_deadline(&C), 1100);
	TAP_CHECK_INT(vote(10, &id, 1, 1010), 0);
	TAP_CHECK_INT(vote(12, &id, 1, 1020), 0);
	TAP_CHECK_INT(fc.nlog, 0);
	TAP_CHECK_INT(vote(11, &id, 1, 1030), 0);
	/* logging: the COMMIT goes to the log, not yet to anyone */
	TAP_CHECK_INT(fc.nlog, 1);
	TAP_CHECK(id_eq(&fc.log_id[0], &id));
	TAP_CHECK(fc.log_n == 3 && fc.log_nodes[0] == 10 &&
		  fc.log_nodes[2] == 12);
	TAP_CHECK_INT(count(&fc, 0, TXRDMA_TXN_COMMIT, 0), 0);
	TAP_CHECK_INT(fc.nev, 0);
	TAP_CHECK_INT(txn_coord_next_deadline(&C), TXN_NEVER);
	TAP_CHECK_INT(txn_coord_get(&C, &id, &info), 0);
	TAP_CHECK_INT(info.phase, TXN_CP_LOGGING);
	TAP_CHECK_INT(info.yes, 7);
	txn_coord_tick(&C, 5000);	/* no timer while logging */
	TAP_CHECK_INT(fc.ns, 3);
	m = fc.ns;
	TAP_CHECK_INT(txn_coord_logged(&C, &id, 5000), 0);
	TAP_CHECK_INT(count(&fc, m, TXRDMA_TXN_COMMIT, 0), 3);
	TAP_CHECK_INT(count_ev(&fc, 0, TXN_EV_DONE), 1);
	TAP_CHECK_INT(last_ev(&fc)->decision, TXRDMA_TXN_COMMIT);
	TAP_CHECK(id_eq(&last_ev(&fc)->id, &id));
	TAP_CHECK_INT(txn_coord_logged(&C, &id, 5000), -EINVAL);
	TAP_CHECK_INT(txn_coord_next_deadline(&C), 5050);
	/* the slot is held until the last ACK */
	TAP_CHECK_INT(txn_coord_get(&C, &id, &info), 0);
	TAP_CHECK_INT(info.phase, TXN_CP_ACKING);
	TAP_CHECK_INT(ack(10, &id, 5001), 0);
	TAP_CHECK_INT(ack(10, &id, 5001), -EALREADY);
	TAP_CHECK_INT(ack(11, &id, 5002), 0);
	TAP_CHECK_INT(count_ev(&fc, 0, TXN_EV_FORGET), 0);
	TAP_CHECK_INT(ack(12, &id, 5003), 0);
	TAP_CHECK_INT(count_ev(&fc, 0, TXN_EV_FORGET), 1);
	TAP_CHECK(id_eq(&last_ev(&fc)->id, &id));
	TAP_CHECK_INT(txn_coord_get(&C, &id, &info), -ENOENT);
	TAP_CHECK_INT(C.tab.used, 0);
	TAP_CHECK_INT(txn_coord_next_deadline(&C), TXN_NEVER);
	TAP_CHECK_INT(C.stats.committed, 1);
	TAP_CHECK_INT(C.stats.votes_yes, 3);
	TAP_CHECK_INT(C.stats.acks, 3);
	TAP_CHECK_INT(C.stats.stale, 1);
	TAP_CHECK_INT(C.stats.forgotten, 1);
	/* a late ACK (a resend crossed ours) */
	TAP_CHECK_INT(ack(12, &id, 5004), -ENOENT);
	TAP_CHECK_INT(C.stats.unknown, 1);
	teardown();
}

static void test_coord_abort_on_no(void)
{
	struct txn_coord_cfg cfg = ccfg();
	const struct txn_event *ev;
	struct txn_id id;
	unsigned int m;

	coord_up(&cfg);
	TAP_CHECK_INT(txn_coord_begin(&C, br3, 3, 0, &id), 0);
	TAP_CHECK_INT(vote(10, &id, 1, 1), 0);
	m = fc.ns;
	TAP_CHECK_INT(vote(11, &id, 0, 2), 0);
	/* ABORT to everyone, the no voter too; nothing logged */
	TAP_CHECK_INT(count(&fc, m, TXRDMA_TXN_ABORT, 0), 3);
	TAP_CHECK_INT(count(&fc, m, TXRDMA_TXN_ABORT, 11), 1);
	TAP_CHECK_INT(fc.nlog, 0);
	ev = last_ev(&fc);
	TAP_CHECK(ev && ev->type == TXN_EV_DONE);
	TAP_CHECK_INT(ev->decision, TXRDMA_TXN_ABORT);
	TAP_CHECK_INT(ev->why, TXN_WHY_VOTE);
	TAP_CHECK_INT(ev->node, 11);
	TAP_CHECK_INT(ev->reason, 42);
	TAP_CHECK_INT(C.tab.used, 0);
	TAP_CHECK_INT(txn_coord_next_deadline(&C), TXN_NEVER);
	TAP_CHECK_INT(C.stats.aborted[TXN_WHY_VOTE], 1);
	/* the last vote comes late: presumed abort answers it */
	m = fc.ns;
	TAP_CHECK_INT(vote(12, &id, 1, 3), 0);
	TAP_CHECK_INT(count(&fc, m, TXRDMA_TXN_ABORT, 12), 1);
	TAP_CHECK_INT(fc.ns, m + 1);
	TAP_CHECK_INT(count_ev(&fc, 0, TXN_EV_DONE), 1);
	teardown();
}

static void test_coord_vote_timeout(void)
{
	struct txn_coord_cfg cfg = ccfg();
	const struct txn_event *ev;
	struct txn_id id;
	unsigned int m;

	coord_up(&cfg);
	TAP_CHECK_INT(txn_coord_begin(&C, br3, 3, 1000, &id), 0);
	TAP_CHECK_INT(vote(11, &id, 1, 1010), 0);
	txn_coord_tick(&C, 1099);
	TAP_CHECK_INT(fc.ns, 3);
	/* retry 1: PREPARE to the two that have not voted, same payload */
	m = fc.ns;
	txn_coord_tick(&C, 1100);
	TAP_CHECK_INT(count(&fc, m, TXRDMA_TXN_PREPARE, 0), 2);
	TAP_CHECK_INT(count(&fc, m, TXRDMA_TXN_PREPARE, 10), 1);
	TAP_CHECK_INT(count(&fc, m, TXRDMA_TXN_PREPARE, 12), 1);
	TAP_CHECK(fc.s[m].r.data == br3[0].data);
	TAP_CHECK_INT(txn_coord_next_deadline(&C), 1200);
	TAP_CHECK_INT(vote(10, &id, 1, 1150), 0);
	/* retry 2, to 12 only; a late tick fires once */
	m = fc.ns;
	txn_coord_tick(&C, 1250);
	TAP_CHECK_INT(count(&fc, m, TXRDMA_TXN_PREPARE, 12), 1);
	TAP_CHECK_INT(fc.ns, m + 1);
	TAP_CHECK_INT(txn_coord_next_deadline(&C), 1350);
	/* no retries left: ABORT */
	m = fc.ns;
	txn_coord_tick(&C, 1350);
	TAP_CHECK_INT(count(&fc, m, TXRDMA_TXN_ABORT, 0), 3);
	ev = last_ev(&fc);
	TAP_CHECK(ev && ev->type == TXN_EV_DONE &&
		  ev->decision == TXRDMA_TXN_ABORT);
	TAP_CHECK_INT(ev->why, TXN_WHY_TIMEOUT);
	TAP_CHECK_INT(ev->node, 12);
	TAP_CHECK_INT(C.stats.prepare_resends, 3);
	TAP_CHECK_INT(C.stats.aborted[TXN_WHY_TIMEOUT], 1);
	TAP_CHECK_INT(txn_coord_next_deadline(&C), TXN_NEVER);
	/* no retries at all */
	cfg.vote_retries = 0;
	coord_up(&cfg);
	TAP_CHECK_INT(txn_coord_begin(&C, br3, 1, 0, &id), 0);
	txn_coord_tick(&C, 100);
	TAP_CHECK_INT(count(&fc, 0, TXRDMA_TXN_PREPARE, 0), 1);
	TAP_CHECK_INT(last_ev(&fc)->why, TXN_WHY_TIMEOUT);
	teardown();
}

static struct txn_id commit3(uint64_t now)
{
	struct txn_id id;

	TAP_CHECK_INT(txn_coord_begin(&C, br3, 3, now, &id), 0);
	TAP_CHECK_INT(vote(10, &id, 1, now), 0);
	TAP_CHECK_INT(vote(11, &id, 1, now), 0);
	TAP_CHECK_INT(vote(12, &id, 1, now), 0);
	TAP_CHECK_INT(txn_coord_logged(&C, &id, now), 0);
	return id;
}

static void test_coord_ack_loss(void)
{
	struct txn_coord_cfg cfg = ccfg();
	struct txn_id id;
	unsigned int m;
	int i;

	coord_up(&cfg);
	id = commit3(1000);
	TAP_CHECK_INT(ack(10, &id, 1001), 0);
	TAP_CHECK_INT(ack(12, &id, 1002), 0);
	/* 11's ACK was lost: COMMIT to 11 alone, every ack_timeout */
	for (i = 1; i <= 3; i++) {
		m = fc.ns;
		txn_coord_tick(&C, 1000 + 50 * (uint64_t)i);
		TAP_CHECK_INT(count(&fc, m, TXRDMA_TXN_COMMIT, 11), 1);
		TAP_CHECK_INT(fc.ns, m + 1);
	}
	TAP_CHECK_INT(C.stats.commit_resends, 3);
	/* an INQUIRE from it meanwhile is answered */
	m = fc.ns;
	TAP_CHECK_INT(inq(11, &id, 1160), 0);
	TAP_CHECK_INT(count(&fc, m, TXRDMA_TXN_COMMIT, 11), 1);
	TAP_CHECK_INT(ack(11, &id, 1170), 0);
	TAP_CHECK_INT(count_ev(&fc, 0, TXN_EV_FORGET), 1);
	TAP_CHECK_INT(txn_coord_next_deadline(&C), TXN_NEVER);
	teardown();
}

static void test_coord_window(void)
{
	struct txn_coord_cfg cfg = ccfg();
	struct txn_id id[5], x;
	unsigned int i;

	cfg.window = 4;
	coord_up(&cfg);
	for (i = 0; i < 4; i++)
		TAP_CHECK_INT(txn_coord_begin(&C, br3, 2, 0, &id[i]), 0);
	TAP_CHECK_INT(txn_coord_begin(&C, br3, 2, 0, &x), -EBUSY);
	TAP_CHECK_INT(fc.ns, 8);
	/* an ABORT frees its slot at once */
	TAP_CHECK_INT(vote(10, &id[1], 0, 1), 0);
	TAP_CHECK_INT(txn_coord_begin(&C, br3, 2, 0, &id[4]), 0);
	TAP_CHECK_INT(id[4].seq, 5);
	TAP_CHECK_INT(txn_coord_begin(&C, br3, 2, 0, &x), -EBUSY);
	/* a COMMIT holds it past DONE, until the last ACK */
	TAP_CHECK_INT(vote(10, &id[0], 1, 1), 0);
	TAP_CHECK_INT(vote(11, &id[0], 1, 1), 0);
	TAP_CHECK_INT(txn_coord_logged(&C, &id[0], 1), 0);
	TAP_CHECK_INT(last_ev(&fc)->type, TXN_EV_DONE);
	TAP_CHECK_INT(txn_coord_begin(&C, br3, 2, 0, &x), -EBUSY);
	TAP_CHECK_INT(ack(10, &id[0], 2), 0);
	TAP_CHECK_INT(txn_coord_begin(&C, br3, 2, 0, &x), -EBUSY);
	TAP_CHECK_INT(ack(11, &id[0], 2), 0);
	TAP_CHECK_INT(txn_coord_begin(&C, br3, 2, 0, &x), 0);
	TAP_CHECK_INT(C.tab.used, 4);
	teardown();
}

static void test_coord_bad_input(void)
{
	struct txn_coord_cfg cfg = ccfg();
	struct txn_branch b[9];
	struct txn_id id = { 0 };
	unsigned int i;

	coord_up(&cfg);
	for (i = 0; i < 9; i++)
		b[i] = (struct txn_branch) { .node = 20 + i };
	TAP_CHECK_INT(txn_coord_begin(&C, b, 0, 0, &id), -EINVAL);
	TAP_CHECK_INT(txn_coord_begin(&C, NULL, 2, 0, &id), -EINVAL);
	TAP_CHECK_INT(txn_coord_begin(&C, b, 9, 0, &id), -EINVAL);
	b[3].node = 0;
	TAP_CHECK_INT(txn_coord_begin(&C, b, 4, 0, &id), -EINVAL);
	b[3].node = 21;
	TAP_CHECK_INT(txn_coord_begin(&C, b, 4, 0, &id), -EINVAL);
	b[3].node = 23;
	b[2].len = 3;
	TAP_CHECK_INT(txn_coord_begin(&C, b, 4, 0, &id), -EINVAL);
	b[2].data = "xyz";
	b[1].len = UINT32_MAX;
	b[1].data = "x";
	TAP_CHECK_INT(txn_coord_begin(&C, b, 4, 0, &id), -EINVAL);
	/* nothing changed: no send, no slot, no sequence number used */
	TAP_CHECK_INT(fc.ns, 0);
	TAP_CHECK_INT(C.tab.used, 0);
	TAP_CHECK_INT(C.stats.begun, 0);
	TAP_CHECK_INT(txn_coord_next_deadline(&C), TXN_NEVER);
	TAP_CHECK_INT(id.seq, 0);
	b[1].len = 1;
	TAP_CHECK_INT(txn_coord_begin(&C, b, 8, 0, &id), 0);
	TAP_CHECK_INT(id.seq, 1);
	TAP_CHECK_INT(fc.ns, 8);
	/* bad configurations, memory */
	cfg = ccfg();
	cfg.max_parts = TXRDMA_TXN_MAX_PARTS + 1;
	TAP_CHECK_INT(txn_coord_memsize(&cfg), 0);
	cfg = ccfg();
	cfg.window = 0;
	TAP_CHECK_INT(txn_coord_memsize(&cfg), 0);
	cfg = ccfg();
	cfg.epoch = 0;
	TAP_CHECK_INT(txn_coord_memsize(&cfg), 0);
	cfg = ccfg();
	cfg.ack_timeout_ns = 0;
	TAP_CHECK_INT(txn_coord_init(&C, &cfg, &ops, &fc, cmem, 1 << 20),
		      -EINVAL);
	cfg = ccfg();
	TAP_CHECK_INT(txn_coord_init(&C, &cfg, &ops, &fc, cmem,
				     txn_coord_memsize(&cfg) - 1), -EINVAL);
	TAP_CHECK_INT(txn_coord_init(&C, &cfg, &ops, &fc,
				     (uint8_t *)cmem + 4,
				     txn_coord_memsize(&cfg)), -EINVAL);
	teardown();
}

static void test_coord_strangers(void)
{
	struct txn_coord_cfg cfg = ccfg();
	struct txn_id id, other, future, later;
	struct txn_rec r;
	unsigned int m;

	coord_up(&cfg);
	TAP_CHECK_INT(txn_coord_begin(&C, br3, 2, 0, &id), 0);
	m = fc.ns;
	/* a vote from a node not in the transaction */
	TAP_CHECK_INT(vote(99, &id, 0, 1), -EPROTO);
	/* another coordinator's transaction */
	other = id;
	other.coord = 2;
	TAP_CHECK_INT(vote(10, &other, 1, 1), -EPROTO);
	TAP_CHECK_INT(inq(10, &other, 1), -EPROTO);
	/* ids we never issued: a later epoch, a later sequence number */
	future = id;
	future.epoch = 6;
	TAP_CHECK_INT(inq(10, &future, 1), -EPROTO);
	later = id;
	later.seq = 2;
	TAP_CHECK_INT(vote(10, &later, 1, 1), -EPROTO);
	TAP_CHECK_INT(ack(10, &later, 1), -EPROTO);
	/* records only a coordinator sends */
	r = mk(TXRDMA_TXN_COMMIT, &id, 0, 0);
	TAP_CHECK_INT(txn_coord_on_rec(&C, 10, &r, 1), -EPROTO);
	r = mk(TXRDMA_TXN_ABORT, &id, 0, 0);
	TAP_CHECK_INT(txn_coord_on_rec(&C, 10, &r, 1), -EPROTO);
	r = mkprep(&id, &br3[0].node, 1, "x");
	TAP_CHECK_INT(txn_coord_on_rec(&C, 10, &r, 1), -EPROTO);
	/* an ACK while voting; an ACK of an ABORT */
	TAP_CHECK_INT(ack(10, &id, 1), -EPROTO);
	r = mk(TXRDMA_TXN_ACK, &id, 0, TXRDMA_TXN_ABORT);
	TAP_CHECK_INT(txn_coord_on_rec(&C, 10, &r, 1), -EPROTO);
	TAP_CHECK_INT(C.stats.ignored, 11);
	/* none of it moved anything */
	TAP_CHECK_INT(fc.ns, m);
	TAP_CHECK_INT(fc.nev, 0);
	TAP_CHECK_INT(vote(10, &id, 1, 2), 0);
	TAP_CHECK_INT(vote(10, &id, 1, 2), -EALREADY);
	TAP_CHECK_INT(vote(10, &id, 0, 2), -EALREADY);	/* no change of mind */
	TAP_CHECK_INT(vote(11, &id, 1, 2), 0);
	TAP_CHECK_INT(vote(11, &id, 1, 2), -EALREADY);	/* while logging */
	TAP_CHECK_INT(C.stats.stale, 3);
	TAP_CHECK_INT(fc.nlog, 1);
	teardown();
}

static void test_coord_inquire(void)
{
	struct txn_coord_cfg cfg = ccfg();
	struct txn_id a, b, old;
	unsigned int m;

	coord_up(&cfg);
	TAP_CHECK_INT(txn_coord_begin(&C, br3, 2, 0, &a), 0);
	TAP_CHECK_INT(txn_coord_begin(&C, br3, 2, 0, &b), 0);
	m = fc.ns;
	/* undecided, voting: no answer */
	TAP_CHECK_INT(inq(10, &a, 1), 0);
	TAP_CHECK_INT(fc.ns, m);
	/* undecided, logging: no answer */
	TAP_CHECK_INT(vote(10, &a, 1, 1), 0);
	TAP_CHECK_INT(vote(11, &a, 1, 1), 0);
	TAP_CHECK_INT(inq(10, &a, 1), 0);
	TAP_CHECK_INT(fc.ns, m);
	/* decided: COMMIT */
	TAP_CHECK_INT(txn_coord_logged(&C, &a, 2), 0);
	m = fc.ns;
	TAP_CHECK_INT(inq(11, &a, 3), 0);
	TAP_CHECK_INT(fc.ns, m + 1);
	TAP_CHECK_INT(last_sent(&fc)->r.type, TXRDMA_TXN_COMMIT);
	TAP_CHECK_INT(last_sent(&fc)->node, 11);
	/* aborted and forgotten: ABORT */
	TAP_CHECK_INT(vote(10, &b, 0, 3), 0);
	m = fc.ns;
	TAP_CHECK_INT(inq(11, &b, 4), 0);
	TAP_CHECK_INT(fc.ns, m + 1);
	TAP_CHECK_INT(last_sent(&fc)->r.type, TXRDMA_TXN_ABORT);
	TAP_CHECK_INT(last_sent(&fc)->node, 11);
	TAP_CHECK(id_eq(&last_sent(&fc)->r.id, &b));
	/* an older epoch's, not restored: ABORT */
	old = (struct txn_id) { .coord = 1, .epoch = 4, .seq = 77 };
	TAP_CHECK_INT(inq(12, &old, 5), 0);
	TAP_CHECK_INT(last_sent(&fc)->r.type, TXRDMA_TXN_ABORT);
	TAP_CHECK_INT(last_sent(&fc)->node, 12);
	/* committed, every ACK in, forgotten: cannot be asked (nobody in
	 * doubt is left), and would get ABORT: the essay's argument */
	TAP_CHECK_INT(C.stats.inquiries, 5);
	TAP_CHECK_INT(C.stats.answers, 3);
	teardown();
}

static void test_coord_peer(void)
{
	struct txn_coord_cfg cfg = ccfg();
	struct txn_coord_info info;
	struct txn_id a, b, c, d;
	unsigned int m;

	coord_up(&cfg);
	TAP_CHECK_INT(txn_coord_begin(&C, br3, 3, 0, &a), 0);	/* 11 no vote */
	TAP_CHECK_INT(txn_coord_begin(&C, br3, 3, 0, &b), 0);	/* 11 yes */
	TAP_CHECK_INT(txn_coord_begin(&C, br3, 2, 0, &c), 0);	/* 11 acking */
	TAP_CHECK_INT(txn_coord_begin(&C, &br3[2], 1, 0, &d), 0); /* w/o 11 */
	TAP_CHECK_INT(vote(11, &b, 1, 1), 0);
	TAP_CHECK_INT(vote(10, &c, 1, 1), 0);
	TAP_CHECK_INT(vote(11, &c, 1, 1), 0);
	TAP_CHECK_INT(txn_coord_logged(&C, &c, 1), 0);
	TAP_CHECK_INT(ack(10, &c, 1), 0);
	m = fc.ns;
	txn_coord_peer(&C, 11, 0, 2);
	/* a: aborted at once; ABORT to all three (the Down may be wrong) */
	TAP_CHECK_INT(count_ev(&fc, 0, TXN_EV_DONE), 2);
	TAP_CHECK_INT(fc.ev[fc.nev - 1].why, TXN_WHY_DOWN);
	TAP_CHECK_INT(fc.ev[fc.nev - 1].node, 11);
	TAP_CHECK(id_eq(&fc.ev[fc.nev - 1].id, &a));
	TAP_CHECK_INT(count(&fc, m, TXRDMA_TXN_ABORT, 0), 3);
	TAP_CHECK_INT(count(&fc, m, TXRDMA_TXN_ABORT, 11), 1);
	TAP_CHECK_INT(C.stats.aborted[TXN_WHY_DOWN], 1);
	/* b: 11 voted yes, goes on, parked */
	TAP_CHECK_INT(txn_coord_get(&C, &b, &info), 0);
	TAP_CHECK_INT(info.phase, TXN_CP_VOTING);
	TAP_CHECK_INT(info.parked, 2);
	/* c: parked, the ACK timer off since only 11 is left */
	TAP_CHECK_INT(txn_coord_get(&C, &c, &info), 0);
	TAP_CHECK_INT(info.parked, 2);
	TAP_CHECK_INT(info.deadline, TXN_NEVER);
	/* d: untouched */
	TAP_CHECK_INT(txn_coord_get(&C, &d, &info), 0);
	TAP_CHECK_INT(info.parked, 0);
	/* b commits; COMMIT is not sent to the parked 11 */
	TAP_CHECK_INT(vote(10, &b, 1, 3), 0);
	TAP_CHECK_INT(vote(12, &b, 1, 3), 0);
	m = fc.ns;
	TAP_CHECK_INT(txn_coord_logged(&C, &b, 3), 0);
	TAP_CHECK_INT(count(&fc, m, TXRDMA_TXN_COMMIT, 0), 2);
	TAP_CHECK_INT(count(&fc, m, TXRDMA_TXN_COMMIT, 11), 0);
	TAP_CHECK_INT(last_ev(&fc)->decision, TXRDMA_TXN_COMMIT);
	TAP_CHECK_INT(ack(10, &b, 4), 0);
	TAP_CHECK_INT(ack(12, &b, 4), 0);
	TAP_CHECK_INT(txn_coord_get(&C, &b, &info), 0);
	TAP_CHECK_INT(info.deadline, TXN_NEVER);
	/* ticks send nothing to a parked node (d's vote timer fires) */
	m = fc.ns;
	txn_coord_tick(&C, 1000);
	TAP_CHECK_INT(count(&fc, m, TXRDMA_TXN_COMMIT, 0), 0);
	/* a wrong Down of an unrelated node changes nothing */
	txn_coord_peer(&C, 55, 0, 1000);
	txn_coord_peer(&C, 55, 1, 1000);
	/* Up: COMMIT at once for b and c, timers back */
	m = fc.ns;
	txn_coord_peer(&C, 11, 1, 1001);
	TAP_CHECK_INT(count(&fc, m, TXRDMA_TXN_COMMIT, 11), 2);
	TAP_CHECK_INT(txn_coord_get(&C, &c, &info), 0);
	TAP_CHECK_INT(info.parked, 0);
	TAP_CHECK_INT(info.deadline, 1051);
	/* a second Up is nothing new */
	m = fc.ns;
	txn_coord_peer(&C, 11, 1, 1002);
	TAP_CHECK_INT(fc.ns, m);
	TAP_CHECK_INT(ack(11, &b, 1003), 0);
	TAP_CHECK_INT(ack(11, &c, 1003), 0);
	TAP_CHECK_INT(count_ev(&fc, 0, TXN_EV_FORGET), 2);
	teardown();
}

static void test_coord_restore(void)
{
	struct txn_coord_cfg cfg = ccfg();
	static const uint32_t nodes[] = { 10, 11 };
	struct txn_coord_info info;
	struct txn_id old = { .coord = 1, .epoch = 4, .seq = 9 }, bad, x;
	unsigned int m;

	coord_up(&cfg);
	TAP_CHECK_INT(txn_coord_restore(&C, &old, nodes, 2, 100), 0);
	TAP_CHECK_INT(count(&fc, 0, TXRDMA_TXN_COMMIT, 0), 2);
	TAP_CHECK_INT(fc.nev, 0);		/* no DONE for it */
	TAP_CHECK_INT(txn_coord_next_deadline(&C), 150);
	TAP_CHECK_INT(txn_coord_restore(&C, &old, nodes, 2, 100), -EEXIST);
	bad = old;
	bad.epoch = 5;				/* ours */
	TAP_CHECK_INT(txn_coord_restore(&C, &bad, nodes, 2, 100), -EINVAL);
	bad.epoch = 6;
	TAP_CHECK_INT(txn_coord_restore(&C, &bad, nodes, 2, 100), -EINVAL);
	bad = old;
	bad.coord = 3;
	TAP_CHECK_INT(txn_coord_restore(&C, &bad, nodes, 2, 100), -EINVAL);
	bad = old;
	bad.seq = 10;
	TAP_CHECK_INT(txn_coord_restore(&C, &bad, nodes, 0, 100), -EINVAL);
	TAP_CHECK_INT(txn_coord_restore(&C, &bad, NULL, 2, 100), -EINVAL);
	/* an INQUIRE about it: COMMIT; a vote about it: late */
	m = fc.ns;
	TAP_CHECK_INT(inq(11, &old, 110), 0);
	TAP_CHECK_INT(count(&fc, m, TXRDMA_TXN_COMMIT, 11), 1);
	TAP_CHECK_INT(vote(10, &old, 1, 110), -EALREADY);
	/* resent until ACKed */
	m = fc.ns;
	txn_coord_tick(&C, 150);
	TAP_CHECK_INT(count(&fc, m, TXRDMA_TXN_COMMIT, 0), 2);
	TAP_CHECK_INT(ack(10, &old, 160), 0);
	TAP_CHECK_INT(txn_coord_get(&C, &old, &info), 0);
	TAP_CHECK_INT(info.acked, 1);
	TAP_CHECK_INT(ack(11, &old, 160), 0);
	TAP_CHECK_INT(last_ev(&fc)->type, TXN_EV_FORGET);
	TAP_CHECK(id_eq(&last_ev(&fc)->id, &old));
	TAP_CHECK_INT(C.stats.restored, 1);
	/* new transactions start at seq 1 of the new epoch */
	TAP_CHECK_INT(txn_coord_begin(&C, br3, 1, 200, &x), 0);
	TAP_CHECK(x.epoch == 5 && x.seq == 1);
	/* restores take window slots */
	cfg.window = 1;
	coord_up(&cfg);
	TAP_CHECK_INT(txn_coord_restore(&C, &old, nodes, 2, 0), 0);
	bad = old;
	bad.seq = 10;
	TAP_CHECK_INT(txn_coord_restore(&C, &bad, nodes, 2, 0), -EBUSY);
	TAP_CHECK_INT(txn_coord_begin(&C, br3, 1, 0, &x), -EBUSY);
	teardown();
}

/* DONE's handler begins the next; log() completes at once */
static void test_coord_reentry(void)
{
	struct txn_coord_cfg cfg = ccfg();
	struct txn_id a, b;

	cfg.window = 1;
	coord_up(&cfg);
	fc.log_sync = 1;
	TAP_CHECK_INT(txn_coord_begin(&C, br3, 1, 0, &a), 0);
	TAP_CHECK_INT(vote(10, &a, 1, 1), 0);
	/* logged inside log(): COMMIT and DONE already */
	TAP_CHECK_INT(count(&fc, 0, TXRDMA_TXN_COMMIT, 10), 1);
	TAP_CHECK_INT(last_ev(&fc)->decision, TXRDMA_TXN_COMMIT);
	TAP_CHECK_INT(ack(10, &a, 2), 0);
	/* an ABORT frees the one slot before DONE: its handler can begin */
	TAP_CHECK_INT(txn_coord_begin(&C, br3, 1, 2, &a), 0);
	fc.begin_br = br3;
	fc.begin_n = 2;
	fc.begin_ret = 1;
	txn_coord_peer(&C, 10, 0, 3);
	TAP_CHECK_INT(fc.begin_ret, 0);
	/* the new one includes 10, Down: the scan does not touch it */
	b = a;
	b.seq++;
	TAP_CHECK_INT(txn_coord_get(&C, &b, &(struct txn_coord_info){ 0 }),
		      0);
	TAP_CHECK_INT(C.stats.aborted[TXN_WHY_DOWN], 1);
	/* and from a tick's timeout */
	fc.begin_br = br3;
	fc.begin_n = 1;
	fc.begin_ret = 1;
	txn_coord_tick(&C, 1000);	/* retry */
	txn_coord_tick(&C, 2000);	/* retry */
	txn_coord_tick(&C, 3000);	/* abort, begins seq 4 */
	TAP_CHECK_INT(fc.begin_ret, 0);
	TAP_CHECK_INT(C.seq, 4);
	TAP_CHECK_INT(C.tab.used, 1);
	TAP_CHECK_INT(txn_coord_next_deadline(&C), 3100);
	teardown();
}

static void test_coord_many_parts(void)
{
	struct txn_coord_cfg cfg = ccfg();
	struct txn_branch b[TXRDMA_TXN_MAX_PARTS];
	struct txn_id id;
	unsigned int n, k, m;

	cfg.max_parts = TXRDMA_TXN_MAX_PARTS;
	cfg.window = 2;
	coord_up(&cfg);
	for (k = 0; k < TXRDMA_TXN_MAX_PARTS; k++)
		b[k] = (struct txn_branch) {
			.node = 1000 + 7 * k, .len = k % 4 + 1,
			.data = pay[k % 4],
		};
	for (n = 1; n <= TXRDMA_TXN_MAX_PARTS; n++) {
		fc.ns = 0;
		TAP_CHECK_INT(txn_coord_begin(&C, b, (uint16_t)n, n, &id), 0);
		TAP_CHECK_INT(count(&fc, 0, TXRDMA_TXN_PREPARE, 0), n);
		TAP_CHECK_INT(fc.s[n - 1].r.nparts, n);
		TAP_CHECK_INT(fc.s[n - 1].parts[n - 1], b[n - 1].node);
		for (k = 0; k < n; k++)
			TAP_CHECK_INT(vote(b[k].node, &id, 1, n), 0);
		TAP_CHECK_INT(fc.log_n, n);
		m = fc.ns;
		TAP_CHECK_INT(txn_coord_logged(&C, &id, n), 0);
		TAP_CHECK_INT(count(&fc, m, TXRDMA_TXN_COMMIT, 0), n);
		for (k = 0; k < n; k++)
			TAP_CHECK_INT(ack(b[n - 1 - k].node, &id, n), 0);
		TAP_CHECK_INT(C.tab.used, 0);
	}
	TAP_CHECK_INT(C.stats.forgotten, TXRDMA_TXN_MAX_PARTS);
	/* 64 with one no: the 64th */
	TAP_CHECK_INT(txn_coord_begin(&C, b, 64, 0, &id), 0);
	for (k = 0; k < 63; k++)
		TAP_CHECK_INT(vote(b[k].node, &id, 1, 0), 0);
	m = fc.ns;
	TAP_CHECK_INT(vote(b[63].node, &id, 0, 0), 0);
	TAP_CHECK_INT(count(&fc, m, TXRDMA_TXN_ABORT, 0), 64);
	/* 64, one never votes: the timeout names it */
	cfg.vote_retries = 0;
	coord_up(&cfg);
	TAP_CHECK_INT(txn_coord_begin(&C, b, 64, 0, &id), 0);
	for (k = 0; k < 64; k++)
		if (k != 40)
			TAP_CHECK_INT(vote(b[k].node, &id, 1, 0), 0);
	txn_coord_tick(&C, 100);
	TAP_CHECK_INT(last_ev(&fc)->why, TXN_WHY_TIMEOUT);
	TAP_CHECK_INT(last_ev(&fc)->node, b[40].node);
	teardown();
}

static uint64_t rnd_state = 0x2545f4914f6cdd1dULL;

static uint32_t rnd(uint32_t n)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return (uint32_t)(rnd_state % n);
}

static void shuffle(uint32_t *a, unsigned int n)
{
	unsigned int i, j;
	uint32_t t;

	for (i = n - 1; i > 0; i--) {
		j = rnd(i + 1);
		t = a[i];
		a[i] = a[j];
		a[j] = t;
	}
}

/* 64 in flight, 4 participants each, votes in any order */
static void test_coord_pipeline(void)
{
	struct txn_coord_cfg cfg = ccfg();
	static const struct txn_branch b4[4] = {
		{ .node = 10 }, { .node = 11 }, { .node = 12 }, { .node = 13 },
	};
	struct txn_id id[64];
	uint32_t order[256];
	uint8_t want[64], got[64];
	unsigned int i, k, round;

	cfg.window = 64;
	cfg.max_parts = 4;
	coord_up(&cfg);
	for (round = 0; round < 4; round++) {
		fc.nev = 0;
		fc.nlog = 0;
		for (i = 0; i < 64; i++) {
			TAP_CHECK_INT(txn_coord_begin(&C, b4, 4, round, &id[i]),
				      0);
			/* every 5th: one no */
			want[i] = (i + round) % 5 ? TXRDMA_TXN_COMMIT :
						    TXRDMA_TXN_ABORT;
			got[i] = 0;
		}
		TAP_CHECK_INT(txn_coord_begin(&C, b4, 4, round, &id[0]) ,
			      -EBUSY);
		for (k = 0; k < 256; k++)
			order[k] = k;
		shuffle(order, 256);
		for (k = 0; k < 256; k++) {
			unsigned int t = order[k] / 4, p = order[k] % 4;
			int yes = want[t] == TXRDMA_TXN_COMMIT || p != 2;
			int ret = vote(b4[p].node, &id[t], yes, round);

			/* votes after a no are late */
			TAP_CHECK(ret == 0 || ret == -EALREADY);
		}
		/* the log completes in reverse order */
		for (k = fc.nlog; k-- > 0;)
			TAP_CHECK_INT(txn_coord_logged(&C, &fc.log_id[k], round),
				      0);
		for (k = 0; k < fc.nev; k++) {
			const struct txn_event *ev = &fc.ev[k];

			if (ev->type != TXN_EV_DONE)
				continue;
			i = (unsigned int)(ev->id.seq - 1) % 64;
			TAP_CHECK(id_eq(&ev->id, &id[i]));
			TAP_CHECK_INT(got[i], 0);
			got[i] = ev->decision;
		}
		for (i = 0; i < 64; i++)
			TAP_CHECK_INT(got[i], want[i]);
		shuffle(order, 256);
		for (k = 0; k < 256; k++) {
			unsigned int t = order[k] / 4, p = order[k] % 4;

			if (want[t] == TXRDMA_TXN_COMMIT)
				TAP_CHECK_INT(ack(b4[p].node, &id[t], round), 0);
		}
		TAP_CHECK_INT(C.tab.used, 0);
		TAP_CHECK_INT(txn_coord_next_deadline(&C), TXN_NEVER);
	}
	TAP_CHECK_INT(C.stats.committed + C.stats.aborted[TXN_WHY_VOTE], 256);
	teardown();
}

/* ---- participant ---- */

static const struct txn_id tid = { .coord = 1, .epoch = 5, .seq = 3 };
static const uint32_t parts2[] = { 7, 2 };

static int prep_rec(const struct txn_id *id, uint64_t now)
{
	struct txn_rec r = mkprep(id, parts2, 2, "payload");

	return txn_part_on_rec(&P, id->coord, &r, now);
}

static int decision(uint8_t type, const struct txn_id *id, uint64_t now)
{
	struct txn_rec r = mk(type, id, 0, 0);

	return txn_part_on_rec(&P, id->coord, &r, now);
}

static void test_part_commit(void)
{
	struct txn_part_cfg cfg = pcfg();
	struct txn_part_info info;
	const struct txn_event *ev;

	part_up(&cfg);
	TAP_CHECK_INT(prep_rec(&tid, 1000), 0);
	ev = last_ev(&fp);
	TAP_CHECK(ev && ev->type == TXN_EV_PREPARE);
	TAP_CHECK(id_eq(&ev->id, &tid));
	TAP_CHECK_INT(ev->node, 1);
	TAP_CHECK(fp.prep_n == 2 && fp.prep_parts[0] == 7 &&
		  fp.prep_parts[1] == 2);
	TAP_CHECK(fp.prep_len == 7 && !memcmp(fp.prep_data, "payload", 7));
	TAP_CHECK_INT(fp.ns, 0);
	TAP_CHECK_INT(txn_part_next_deadline(&P), TXN_NEVER);
	TAP_CHECK_INT(txn_part_vote(&P, &tid, 1, 0, 1010), 0);
	TAP_CHECK_INT(fp.ns, 1);
	TAP_CHECK_INT(fp.s[0].node, 1);
	TAP_CHECK_INT(fp.s[0].r.type, TXRDMA_TXN_VOTE);
	TAP_CHECK_INT(fp.s[0].r.flags, TXRDMA_TXN_F_YES);
	TAP_CHECK_INT(txn_part_get(&P, &tid, &info), 0);
	TAP_CHECK_INT(info.phase, TXN_PP_IN_DOUBT);
	TAP_CHECK_INT(txn_part_next_deadline(&P), 1110);
	TAP_CHECK_INT(txn_part_vote(&P, &tid, 1, 0, 1010), -EALREADY);
	TAP_CHECK_INT(txn_part_applied(&P, &tid, 1010), -EINVAL);
	TAP_CHECK_INT(decision(TXRDMA_TXN_COMMIT, &tid, 1020), 0);
	ev = last_ev(&fp);
	TAP_CHECK(ev && ev->type == TXN_EV_DECIDE &&
		  ev->decision == TXRDMA_TXN_COMMIT && ev->why == TXN_WHY_NONE);
	TAP_CHECK_INT(txn_part_next_deadline(&P), TXN_NEVER);
	/* a resent COMMIT while applying: nothing (no early ACK) */
	TAP_CHECK_INT(decision(TXRDMA_TXN_COMMIT, &tid, 1021), -EALREADY);
	TAP_CHECK_INT(fp.ns, 1);
	TAP_CHECK_INT(txn_part_applied(&P, &tid, 1030), 0);
	TAP_CHECK_INT(fp.ns, 2);
	TAP_CHECK_INT(fp.s[1].r.type, TXRDMA_TXN_ACK);
	TAP_CHECK_INT(fp.s[1].r.arg, TXRDMA_TXN_COMMIT);
	TAP_CHECK_INT(fp.s[1].node, 1);
	TAP_CHECK_INT(txn_part_get(&P, &tid, &info), -ENOENT);
	TAP_CHECK_INT(P.tab.used, 0);
	/* resent again after: ACK again, it is applied (rule 2) */
	TAP_CHECK_INT(decision(TXRDMA_TXN_COMMIT, &tid, 1040), 0);
	TAP_CHECK_INT(last_sent(&fp)->r.type, TXRDMA_TXN_ACK);
	TAP_CHECK_INT(txn_part_applied(&P, &tid, 1040), -ENOENT);
	TAP_CHECK_INT(P.stats.acks, 2);
	TAP_CHECK_INT(P.stats.commits, 1);
	teardown();
}

static void test_part_abort(void)
{
	struct txn_part_cfg cfg = pcfg();
	const struct txn_event *ev;

	/* ABORT before the vote */
	part_up(&cfg);
	TAP_CHECK_INT(prep_rec(&tid, 0), 0);
	TAP_CHECK_INT(decision(TXRDMA_TXN_ABORT, &tid, 1), 0);
	ev = last_ev(&fp);
	TAP_CHECK(ev && ev->type == TXN_EV_DECIDE &&
		  ev->decision == TXRDMA_TXN_ABORT);
	TAP_CHECK_INT(txn_part_vote(&P, &tid, 1, 0, 2), -EALREADY);
	TAP_CHECK_INT(txn_part_applied(&P, &tid, 2), 0);
	TAP_CHECK_INT(fp.ns, 0);	/* an ABORT is not ACKed */
	TAP_CHECK_INT(txn_part_vote(&P, &tid, 1, 0, 2), -ENOENT);
	/* ABORT in doubt */
	TAP_CHECK_INT(prep_rec(&tid, 3), 0);
	TAP_CHECK_INT(txn_part_vote(&P, &tid, 1, 0, 3), 0);
	TAP_CHECK_INT(decision(TXRDMA_TXN_ABORT, &tid, 4), 0);
	TAP_CHECK_INT(last_ev(&fp)->decision, TXRDMA_TXN_ABORT);
	TAP_CHECK_INT(txn_part_applied(&P, &tid, 5), 0);
	TAP_CHECK_INT(fp.ns, 1);
	TAP_CHECK_INT(P.tab.used, 0);
	/* ABORT of one not held: nothing */
	TAP_CHECK_INT(decision(TXRDMA_TXN_ABORT, &tid, 6), -ENOENT);
	TAP_CHECK_INT(fp.ns, 1);
	TAP_CHECK_INT(P.stats.unknown, 1);
	teardown();
}

static void test_part_duplicates(void)
{
	struct txn_part_cfg cfg = pcfg();
	struct txn_part_info info;
	unsigned int nev;

	part_up(&cfg);
	TAP_CHECK_INT(prep_rec(&tid, 0), 0);
	/* not voted yet: the application is on it, ignore */
	TAP_CHECK_INT(prep_rec(&tid, 1), -EALREADY);
	TAP_CHECK_INT(count_ev(&fp, 0, TXN_EV_PREPARE), 1);
	TAP_CHECK_INT(fp.ns, 0);
	/* yes: the same yes again */
	TAP_CHECK_INT(txn_part_vote(&P, &tid, 1, 0, 2), 0);
	TAP_CHECK_INT(prep_rec(&tid, 3), 0);
	TAP_CHECK_INT(fp.ns, 2);
	TAP_CHECK_INT(fp.s[1].r.type, TXRDMA_TXN_VOTE);
	TAP_CHECK_INT(fp.s[1].r.flags, TXRDMA_TXN_F_YES);
	TAP_CHECK_INT(count_ev(&fp, 0, TXN_EV_PREPARE), 1);
	/* no: the same no (and reason) again, never a new PREPARE event */
	part_up(&cfg);
	TAP_CHECK_INT(prep_rec(&tid, 0), 0);
	TAP_CHECK_INT(txn_part_vote(&P, &tid, 0, 0, 1), -EINVAL);
	TAP_CHECK_INT(txn_part_vote(&P, &tid, 0, 33, 1), 0);
	TAP_CHECK_INT(fp.s[0].r.flags, 0);
	TAP_CHECK_INT(fp.s[0].r.arg, 33);
	TAP_CHECK_INT(txn_part_get(&P, &tid, &info), 0);
	TAP_CHECK_INT(info.phase, TXN_PP_ABORTED);
	nev = fp.nev;
	TAP_CHECK_INT(prep_rec(&tid, 2), 0);
	TAP_CHECK_INT(fp.nev, nev);
	TAP_CHECK_INT(last_sent(&fp)->r.flags, 0);
	TAP_CHECK_INT(last_sent(&fp)->r.arg, 33);
	TAP_CHECK_INT(P.stats.resent, 1);
	/* COMMIT for it: a coordinator bug, ignored */
	TAP_CHECK_INT(decision(TXRDMA_TXN_COMMIT, &tid, 3), -EPROTO);
	/* it inquires until the ABORT comes */
	TAP_CHECK_INT(txn_part_next_deadline(&P), 101);
	txn_part_tick(&P, 101);
	TAP_CHECK_INT(last_sent(&fp)->r.type, TXRDMA_TXN_INQUIRE);
	TAP_CHECK_INT(decision(TXRDMA_TXN_ABORT, &tid, 150), 0);
	TAP_CHECK_INT(txn_part_get(&P, &tid, &info), -ENOENT);
	TAP_CHECK_INT(txn_part_next_deadline(&P), TXN_NEVER);
	TAP_CHECK_INT(fp.nev, nev);	/* the application knew already */
	teardown();
}

static void test_part_inquire(void)
{
	struct txn_part_cfg cfg = pcfg();
	unsigned int m;
	int i;

	part_up(&cfg);
	TAP_CHECK_INT(prep_rec(&tid, 0), 0);
	TAP_CHECK_INT(txn_part_vote(&P, &tid, 1, 0, 0), 0);
	txn_part_tick(&P, 99);
	TAP_CHECK_INT(fp.ns, 1);
	for (i = 1; i <= 3; i++) {
		m = fp.ns;
		txn_part_tick(&P, 100 * (uint64_t)i);
		TAP_CHECK_INT(fp.ns, m + 1);
		TAP_CHECK_INT(last_sent(&fp)->r.type, TXRDMA_TXN_INQUIRE);
		TAP_CHECK_INT(last_sent(&fp)->node, 1);
		TAP_CHECK(id_eq(&last_sent(&fp)->r.id, &tid));
	}
	/* the answer */
	TAP_CHECK_INT(decision(TXRDMA_TXN_COMMIT, &tid, 310), 0);
	m = fp.ns;
	txn_part_tick(&P, 1000);
	TAP_CHECK_INT(fp.ns, m);
	TAP_CHECK_INT(P.stats.inquiries, 3);
	teardown();
}

static void test_part_peer(void)
{
	struct txn_part_cfg cfg = pcfg();
	struct txn_id a = tid, b = tid, c = tid, o = tid;
	struct txn_part_info info;
	const struct txn_event *ev;
	unsigned int m;

	part_up(&cfg);
	b.seq = 4;
	c.seq = 5;
	o.coord = 9;			/* another coordinator's */
	TAP_CHECK_INT(prep_rec(&a, 0), 0);	/* not voted */
	TAP_CHECK_INT(prep_rec(&b, 0), 0);	/* in doubt */
	TAP_CHECK_INT(prep_rec(&c, 0), 0);	/* deciding */
	TAP_CHECK_INT(prep_rec(&o, 0), 0);
	TAP_CHECK_INT(txn_part_vote(&P, &b, 1, 0, 0), 0);
	TAP_CHECK_INT(txn_part_vote(&P, &c, 1, 0, 0), 0);
	TAP_CHECK_INT(decision(TXRDMA_TXN_COMMIT, &c, 0), 0);
	m = fp.ns;
	txn_part_peer(&P, 1, 0, 10);
	/* a: a no of our own, told to the application */
	TAP_CHECK_INT(fp.ns, m + 1);
	TAP_CHECK_INT(last_sent(&fp)->r.type, TXRDMA_TXN_VOTE);
	TAP_CHECK_INT(last_sent(&fp)->r.arg, TXN_REASON_DOWN);
	ev = last_ev(&fp);
	TAP_CHECK(ev && ev->type == TXN_EV_DECIDE &&
		  ev->decision == TXRDMA_TXN_ABORT && ev->why == TXN_WHY_DOWN);
	TAP_CHECK(id_eq(&ev->id, &a));
	TAP_CHECK_INT(txn_part_vote(&P, &a, 1, 0, 10), -EALREADY);
	TAP_CHECK_INT(txn_part_applied(&P, &a, 10), 0);
	TAP_CHECK_INT(P.stats.unilateral, 1);
	/* a resent PREPARE for it gets that no */
	TAP_CHECK_INT(prep_rec(&a, 11), 0);
	TAP_CHECK_INT(last_sent(&fp)->r.arg, TXN_REASON_DOWN);
	/* b: parked, no inquiries */
	TAP_CHECK_INT(txn_part_get(&P, &b, &info), 0);
	TAP_CHECK(info.phase == TXN_PP_IN_DOUBT && info.parked);
	/* o: another coordinator's inquires on */
	TAP_CHECK_INT(txn_part_get(&P, &o, &info), 0);
	TAP_CHECK(info.phase == TXN_PP_PREPARING && !info.parked);
	TAP_CHECK_INT(txn_part_next_deadline(&P), TXN_NEVER);
	m = fp.ns;
	txn_part_tick(&P, 10000);
	TAP_CHECK_INT(fp.ns, m);
	/* c: applied meanwhile, ACKed even while Down (the transport
	 * may drop it; a resent COMMIT gets another) */
	TAP_CHECK_INT(txn_part_applied(&P, &c, 10000), 0);
	TAP_CHECK_INT(last_sent(&fp)->r.type, TXRDMA_TXN_ACK);
	/* Up: a and b inquire at once */
	m = fp.ns;
	txn_part_peer(&P, 1, 1, 10001);
	TAP_CHECK_INT(count(&fp, m, TXRDMA_TXN_INQUIRE, 1), 2);
	TAP_CHECK_INT(txn_part_next_deadline(&P), 10101);
	TAP_CHECK_INT(decision(TXRDMA_TXN_ABORT, &a, 10002), 0);
	TAP_CHECK_INT(decision(TXRDMA_TXN_COMMIT, &b, 10002), 0);
	TAP_CHECK_INT(txn_part_applied(&P, &b, 10003), 0);
	TAP_CHECK_INT(P.tab.used, 1);	/* o */
	teardown();
}

static void test_part_restore(void)
{
	struct txn_part_cfg cfg = pcfg();
	struct txn_id bad = tid, b = tid;

	cfg.max_txns = 2;
	part_up(&cfg);
	TAP_CHECK_INT(txn_part_restore(&P, &tid, 500), 0);
	TAP_CHECK_INT(fp.ns, 1);
	TAP_CHECK_INT(fp.s[0].r.type, TXRDMA_TXN_INQUIRE);
	TAP_CHECK_INT(fp.s[0].node, 1);
	TAP_CHECK_INT(txn_part_next_deadline(&P), 600);
	TAP_CHECK_INT(txn_part_restore(&P, &tid, 500), -EEXIST);
	bad.coord = 0;
	TAP_CHECK_INT(txn_part_restore(&P, &bad, 500), -EINVAL);
	bad = tid;
	bad.seq = 0;
	TAP_CHECK_INT(txn_part_restore(&P, &bad, 500), -EINVAL);
	b.seq = 99;
	TAP_CHECK_INT(txn_part_restore(&P, &b, 500), 0);
	bad = tid;
	bad.seq = 100;
	TAP_CHECK_INT(txn_part_restore(&P, &bad, 500), -ENOSPC);
	/* a resent PREPARE (our yes was lost in the crash): yes again */
	TAP_CHECK_INT(prep_rec(&tid, 510), 0);
	TAP_CHECK_INT(last_sent(&fp)->r.flags, TXRDMA_TXN_F_YES);
	TAP_CHECK_INT(count_ev(&fp, 0, TXN_EV_PREPARE), 0);
	TAP_CHECK_INT(decision(TXRDMA_TXN_COMMIT, &tid, 520), 0);
	TAP_CHECK_INT(last_ev(&fp)->decision, TXRDMA_TXN_COMMIT);
	TAP_CHECK_INT(txn_part_applied(&P, &tid, 530), 0);
	TAP_CHECK_INT(decision(TXRDMA_TXN_ABORT, &b, 530), 0);
	TAP_CHECK_INT(txn_part_applied(&P, &b, 530), 0);
	TAP_CHECK_INT(P.tab.used, 0);
	TAP_CHECK_INT(P.stats.restored, 2);
	teardown();
}

/*
 * A decision learnt from the dead coordinator's log: taken as its
 * record would be, refused where the record would be, nothing held or
 * sent for what the participant does not hold
 */
static void test_part_learned(void)
{
	struct txn_part_cfg cfg = pcfg();
	const struct txn_event *ev;
	struct txn_id b = tid, c = tid;
	unsigned int ns;

	part_up(&cfg);
	TAP_CHECK_INT(prep_rec(&tid, 1000), 0);
	TAP_CHECK_INT(txn_part_vote(&P, &tid, 1, 0, 1010), 0);
	TAP_CHECK_INT(txn_part_learned(&P, &tid, TXRDMA_TXN_ACK, 1020),
		      -EINVAL);
	TAP_CHECK_INT(txn_part_learned(&P, &tid, TXRDMA_TXN_COMMIT, 1020), 0);
	ev = last_ev(&fp);
	TAP_CHECK(ev && ev->type == TXN_EV_DECIDE &&
		  ev->decision == TXRDMA_TXN_COMMIT);
	/* once decided, the coordinator's own record or a second answer */
	TAP_CHECK_INT(txn_part_learned(&P, &tid, TXRDMA_TXN_COMMIT, 1021),
		      -EALREADY);
	ns = fp.ns;
	TAP_CHECK_INT(txn_part_applied(&P, &tid, 1030), 0);
	TAP_CHECK_INT(fp.ns, ns + 1);
	TAP_CHECK_INT(last_sent(&fp)->r.type, TXRDMA_TXN_ACK);
	/* not held: nothing, not even an ACK */
	ns = fp.ns;
	TAP_CHECK_INT(txn_part_learned(&P, &tid, TXRDMA_TXN_COMMIT, 1040),
		      -ENOENT);
	TAP_CHECK_INT(fp.ns, ns);
	/* COMMIT of one not voted yes is refused, ABORT taken */
	b.seq = 7;
	TAP_CHECK_INT(prep_rec(&b, 1050), 0);
	TAP_CHECK(txn_part_learned(&P, &b, TXRDMA_TXN_COMMIT, 1060) < 0);
	TAP_CHECK_INT(txn_part_learned(&P, &b, TXRDMA_TXN_ABORT, 1060), 0);
	ev = last_ev(&fp);
	TAP_CHECK(ev && ev->type == TXN_EV_DECIDE &&
		  ev->decision == TXRDMA_TXN_ABORT);
	/* an in-doubt one restored after a restart */
	c.seq = 9;
	TAP_CHECK_INT(txn_part_restore(&P, &c, 1070), 0);
	TAP_CHECK_INT(txn_part_learned(&P, &c, TXRDMA_TXN_ABORT, 1080), 0);
	TAP_CHECK_INT(last_ev(&fp)->decision, TXRDMA_TXN_ABORT);
	teardown();
}

static void test_part_full(void)
{
	struct txn_part_cfg cfg = pcfg();
	struct txn_id a = tid, b = tid, c = tid;

	cfg.max_txns = 2;
	part_up(&cfg);
	b.seq = 4;
	c.seq = 5;
	TAP_CHECK_INT(prep_rec(&a, 0), 0);
	TAP_CHECK_INT(prep_rec(&b, 0), 0);
	TAP_CHECK_INT(prep_rec(&c, 0), -ENOSPC);
	TAP_CHECK_INT(count_ev(&fp, 0, TXN_EV_PREPARE), 2);
	TAP_CHECK_INT(last_sent(&fp)->r.type, TXRDMA_TXN_VOTE);
	TAP_CHECK_INT(last_sent(&fp)->r.arg, TXN_REASON_FULL);
	TAP_CHECK(id_eq(&last_sent(&fp)->r.id, &c));
	TAP_CHECK_INT(P.stats.full, 1);
	/* nothing kept: once there is room, a resend is new */
	TAP_CHECK_INT(txn_part_vote(&P, &a, 0, 5, 1), 0);
	TAP_CHECK_INT(decision(TXRDMA_TXN_ABORT, &a, 2), 0);
	TAP_CHECK_INT(prep_rec(&c, 3), 0);
	TAP_CHECK_INT(count_ev(&fp, 0, TXN_EV_PREPARE), 3);
	teardown();
}

static void test_part_strangers(void)
{
	struct txn_part_cfg cfg = pcfg();
	static const uint32_t others[] = { 7, 8 };
	struct txn_rec r;

	part_up(&cfg);
	/* from a node that is not the transaction's coordinator */
	r = mkprep(&tid, parts2, 2, "x");
	TAP_CHECK_INT(txn_part_on_rec(&P, 7, &r, 0), -EPROTO);
	r = mk(TXRDMA_TXN_COMMIT, &tid, 0, 0);
	TAP_CHECK_INT(txn_part_on_rec(&P, 7, &r, 0), -EPROTO);
	/* a PREPARE that does not name us */
	r = mkprep(&tid, others, 2, "x");
	TAP_CHECK_INT(txn_part_on_rec(&P, 1, &r, 0), -EPROTO);
	/* what only participants send */
	r = mk(TXRDMA_TXN_VOTE, &tid, TXRDMA_TXN_F_YES, 0);
	TAP_CHECK_INT(txn_part_on_rec(&P, 1, &r, 0), -EPROTO);
	r = mk(TXRDMA_TXN_ACK, &tid, 0, TXRDMA_TXN_COMMIT);
	TAP_CHECK_INT(txn_part_on_rec(&P, 1, &r, 0), -EPROTO);
	r = mk(TXRDMA_TXN_INQUIRE, &tid, 0, 0);
	TAP_CHECK_INT(txn_part_on_rec(&P, 1, &r, 0), -EPROTO);
	TAP_CHECK_INT(fp.ns, 0);
	TAP_CHECK_INT(fp.nev, 0);
	/* COMMIT for one we did not vote yes on */
	TAP_CHECK_INT(prep_rec(&tid, 0), 0);
	TAP_CHECK_INT(decision(TXRDMA_TXN_COMMIT, &tid, 0), -EPROTO);
	TAP_CHECK_INT(fp.nev, 1);
	TAP_CHECK_INT(P.stats.ignored, 7);
	/* vote and applied on what is not held */
	r.id = tid;
	r.id.seq = 9;
	TAP_CHECK_INT(txn_part_vote(&P, &r.id, 1, 0, 0), -ENOENT);
	TAP_CHECK_INT(txn_part_applied(&P, &r.id, 0), -ENOENT);
	/* bad configurations */
	cfg.max_txns = 0;
	TAP_CHECK_INT(txn_part_memsize(&cfg), 0);
	cfg = pcfg();
	cfg.inquire_timeout_ns = 0;
	TAP_CHECK_INT(txn_part_memsize(&cfg), 0);
	cfg = pcfg();
	TAP_CHECK_INT(txn_part_init(&P, &cfg, &ops, &fp, pmem,
				    txn_part_memsize(&cfg) - 1), -EINVAL);
	teardown();
}

/* ---- end to end: one coordinator, four participants, the wire ---- */

#define E2E_N	4

static struct txn_part EP[E2E_N];
static struct fake efp[E2E_N];
static void *epmem[E2E_N];

/* records delivered so far: to the participants, from each */
static unsigned int ci, pi[E2E_N];

static void deliver_all(uint64_t now)
{
	unsigned int k, moved;

	do {
		moved = 0;
		/* coordinator -> participants, through a batch each */
		for (; ci < fc.ns; ci++, moved++) {
			struct sent *s = &fc.s[ci];
			struct txn_rec r = wire(&s->r);

			TAP_CHECK(s->node >= 20 && s->node < 20 + E2E_N);
			txn_part_on_rec(&EP[s->node - 20], 1, &r, now);
		}
		for (k = 0; k < E2E_N; k++)
			for (; pi[k] < efp[k].ns; pi[k]++, moved++) {
				struct txn_rec r = wire(&efp[k].s[pi[k]].r);

				txn_coord_on_rec(&C, 20 + k, &r, now);
			}
	} while (moved);
}

static void test_end_to_end(void)
{
	struct txn_coord_cfg cfg = ccfg();
	struct txn_part_cfg pc = pcfg();
	struct txn_branch b[E2E_N];
	struct txn_id id;
	unsigned int k, t, commits = 0;

	cfg.window = 32;
	pc.max_txns = 32;
	coord_up(&cfg);
	ci = 0;
	memset(pi, 0, sizeof(pi));
	fc.log_sync = 1;
	for (k = 0; k < E2E_N; k++) {
		static struct sent ps[E2E_N][2048];

		pc.self = 20 + k;
		memset(&efp[k], 0, sizeof(efp[k]));
		efp[k].s = ps[k];
		efp[k].cap = 2048;
		efp[k].p = &EP[k];
		efp[k].vote_sync = 1;
		epmem[k] = malloc(txn_part_memsize(&pc));
		TAP_CHECK_INT(txn_part_init(&EP[k], &pc, &ops, &efp[k],
					    epmem[k], txn_part_memsize(&pc)),
			      0);
		b[k] = (struct txn_branch) {
			.node = 20 + k, .len = 4, .data = pay[3],
		};
	}
	for (t = 0; t < 32; t++)
		TAP_CHECK_INT(txn_coord_begin(&C, b, E2E_N, t, &id), 0);
	deliver_all(100);
	/* every participant applies what it was told */
	for (k = 0; k < E2E_N; k++) {
		unsigned int e;

		for (e = 0; e < efp[k].nev; e++)
			if (efp[k].ev[e].type == TXN_EV_DECIDE) {
				TAP_CHECK_INT(efp[k].ev[e].decision,
					      TXRDMA_TXN_COMMIT);
				TAP_CHECK_INT(txn_part_applied(&EP[k],
						&efp[k].ev[e].id, 101), 0);
			}
		TAP_CHECK_INT(efp[k].prep_len, 4);
		TAP_CHECK(!memcmp(efp[k].prep_data, "dddd", 4));
	}
	deliver_all(102);
	for (k = 0; k < fc.nev; k++)
		commits += fc.ev[k].type == TXN_EV_DONE &&
			   fc.ev[k].decision == TXRDMA_TXN_COMMIT;
	TAP_CHECK_INT(commits, 32);
	TAP_CHECK_INT(count_ev(&fc, 0, TXN_EV_FORGET), 32);
	TAP_CHECK_INT(C.tab.used, 0);
	for (k = 0; k < E2E_N; k++) {
		TAP_CHECK_INT(EP[k].tab.used, 0);
		TAP_CHECK_INT(txn_part_next_deadline(&EP[k]), TXN_NEVER);
		free(epmem[k]);
	}
	teardown();
}

static const struct tap_test tests[] = {
	TAP_TEST(test_table, "table: lookup, lowest free slot, timer queues"),
	TAP_TEST(test_coord_commit, "coordinator: all yes, logged, COMMIT, ACKs, slot freed"),
	TAP_TEST(test_coord_abort_on_no, "coordinator: one no aborts, to all, at once"),
	TAP_TEST(test_coord_vote_timeout, "coordinator: PREPARE resent to non-voters, then ABORT"),
	TAP_TEST(test_coord_ack_loss, "coordinator: COMMIT resent to who did not ACK"),
	TAP_TEST(test_coord_window, "coordinator: window full is -EBUSY until a slot frees"),
	TAP_TEST(test_coord_bad_input, "coordinator: bad input is -EINVAL and changes nothing"),
	TAP_TEST(test_coord_strangers, "coordinator: strangers, wrong types, duplicates ignored and counted"),
	TAP_TEST(test_coord_inquire, "coordinator: INQUIRE decided, undecided, unknown"),
	TAP_TEST(test_coord_peer, "coordinator: Down aborts non-voters, parks the rest; Up resends"),
	TAP_TEST(test_coord_restore, "coordinator: restore after a restart"),
	TAP_TEST(test_coord_reentry, "coordinator: callbacks call back in"),
	TAP_TEST(test_coord_many_parts, "coordinator: 1..64 participants"),
	TAP_TEST(test_coord_pipeline, "coordinator: 64 in flight, votes in any order"),
	TAP_TEST(test_part_commit, "participant: prepare, yes, COMMIT, applied, ACK"),
	TAP_TEST(test_part_abort, "participant: ABORT before and after the vote, not ACKed"),
	TAP_TEST(test_part_duplicates, "participant: duplicate PREPARE, a no stays no"),
	TAP_TEST(test_part_inquire, "participant: in doubt inquires until decided"),
	TAP_TEST(test_part_peer, "participant: Down aborts unvoted, parks in doubt; Up inquires"),
	TAP_TEST(test_part_restore, "participant: restore after a restart"),
	TAP_TEST(test_part_learned, "participant: a decision learnt from the dead coordinator's log"),
	TAP_TEST(test_part_full, "participant: full answers no and holds nothing"),
	TAP_TEST(test_part_strangers, "participant: strangers and wrong records ignored"),
	TAP_TEST(test_end_to_end, "end to end over the wire: 32 transactions, 4 participants"),
};

int main(void)
{
	return TAP_MAIN(tests);
}
