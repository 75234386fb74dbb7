// SPDX-License-Identifier: GPL-2.0-only
/*
 * handoff's movers: the side of the session that moves (A, then C, then
 * A ...).  One process per guest plays its segments in turn; a segment
 * streams, then either hands off (export, the blob, destroy) or, the
 * last, ends the stream.  The next segment's process, on the other
 * guest, waits with its context and region ready, restores what the
 * blob holds and imports.  See handoff.c for what is checked where.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "handoff.h"
#include "handoff_blob.h"
#include "msg_pattern.h"

#define SEND_OFF	(1u << 20)	/* the send slots */
#define CTL_OFF		(SEND_OFF - 4096) /* END, the -EXDEV probe */
#define NO_REGION	0x7ffffff0u
#define NO_PEER		"nosuchpeer"

static uint64_t slot_off(uint64_t n)
{
	return SEND_OFF + (n % WINDOW) * MAX_LEN;
}

/* the stream's state: the process's memory that moves with it */
struct run {
	uint8_t *done;		/* per message: completed */
	uint64_t next;		/* the next message to post */
	uint64_t inflight;	/* posted, not completed */
	uint64_t rev_next, rev_bad;
	uint64_t dup, wrong, failed;
	uint32_t flags;		/* BLOB_F_* */
	uint32_t with_sends;
	int first_fail;
	/* this host's */
	uint64_t here;		/* completions here */
	uint64_t from_old;	/* of them, SENDs posted on the old host */
	int ring_err;
	bool fin;
	uint64_t fin_count;
	/* the blob imported here, kept once the stream goes on again */
	struct blob kept;
	unsigned int kept_k;
};

/* our listener for the other mover (blob_listen()) */
static int lfd = -1;

static unsigned long seg_start(unsigned int s)
{
	return s * per;
}

static unsigned long seg_end(unsigned int s)
{
	return s == o.handoffs ? o.count : (s + 1) * per;
}

/* a SEND's completion here: of a message in flight, once, successful */
static void complete(struct run *r, uint64_t ud, int res, uint64_t start)
{
	if (ud >= r->next) {
		r->wrong++;
		return;
	}
	if (r->done[ud]) {
		r->dup++;
		return;
	}
	r->done[ud] = 1;
	r->inflight--;
	r->here++;
	r->from_old += ud < start;
	if (res != (int)msg_len(ud) && !r->failed++)
		r->first_fail = res;
}

static bool reap(struct pair_side *g, struct run *r, uint64_t start)
{
	struct txrdma_cqe *c;
	bool any = false;

	while ((c = txrdma_peek_cqe(&g->cq))) {
		complete(r, c->user_data, c->res, start);
		txrdma_cq_advance(&g->cq, 1);
		any = true;
	}
	return any;
}

/* the progress frames on our ring: each the next, in order */
static bool read_ring(struct pair_side *g, struct run *r)
{
	const void *m;
	bool any = false;
	uint64_t w[2], d;
	__u32 len;
	int ret;

	while ((ret = txrdma_rx_peek(&g->rx, &m, &len)) == 1) {
		any = true;
		memset(w, 0, sizeof(w));
		memcpy(w, m, len < 16 ? len : 16);
		if (len == 16 && le64toh(w[0]) == FIN_MAGIC) {
			r->fin = true;
			r->fin_count = le64toh(w[1]);
		} else if (len == PROG_LEN &&
			   check(m, KEY_REV, r->rev_next, len, &d) < 0) {
			r->rev_next++;
		} else {
			r->rev_bad++;
		}
		txrdma_rx_release(&g->rx);
	}
	if (ret < 0)
		r->ring_err = ret;
	return any;
}

struct attack {
	const char *what;
	unsigned int blob;
	bool forge;
	const char *peer;
	int ret;
	double ms;
	unsigned int nsends, cqes, bad;	/* what it left in its CQ ring */
};

struct attacks {
	struct attack a[4];
	unsigned int n;
	unsigned int tried;
	const char *err;	/* a step before the imports failed */
	int err_ret;
};

static int restore(struct pair_side *g, const struct blob *b,
		   struct txrdma_sess_send *sends);

/*
 * An import that must be refused, from context @p: not the session's
 * own, because an import that fails after the module took the SENDs
 * completes each of them with its error in the importing context's
 * ring.  Return its result; *@cqes the completions it left, *@bad
 * those that were not its error.
 */
static int try_import(struct pair_side *p, const char *peer,
		      const struct txrdma_sess_state *st,
		      const struct txrdma_sess_send *sends, unsigned int *cqes,
		      unsigned int *bad, double *ms)
{
	struct txrdma_ep_pair ep;
	struct txrdma_cqe *c;
	double t0 = now_ms();
	int ret;

	ret = txrdma_sess_import(p->ctx, peer, st, sends, p->reg.id, RX_OFF,
				 3000, &ep);
	*ms = now_ms() - t0;
	/* moved after all: give it back at once (and fail) */
	if (!ret)
		txrdma_ep_destroy(p->ctx, ep.id);
	*cqes = *bad = 0;
	while ((c = txrdma_peek_cqe(&p->cq))) {
		(*cqes)++;
		*bad += c->res != ret;
		txrdma_cq_advance(&p->cq, 1);
	}
	return ret;
}

/* a refused import left nothing, or each SEND failed with its error */
static bool cqes_ok(unsigned int nsends, unsigned int cqes, unsigned int bad)
{
	return (!cqes || cqes == nsends) && !bad;
}

/*
 * The last mover's thread: states that must not move the session
 * again, from a context of its own while the stream goes on.
 */
static void *attack_thread(void *arg)
{
	struct txrdma_sess_send sends[TXRDMA_SESS_SENDS_MAX];
	struct txrdma_sess_state st;
	struct attacks *at = arg;
	struct blob b;
	struct pair_side g;
	unsigned int i;
	int ret;

	ret = seg_open(&g, &at->err);
	if (ret) {
		at->err_ret = ret;
		return NULL;
	}
	for (i = 0; i < at->n; i++) {
		struct attack *a = &at->a[i];

		ret = blob_read(o.jobdir, a->blob, &b);
		if (!ret)
			ret = restore(&g, &b, sends);
		if (ret) {
			at->err = "read and restore a blob";
			at->err_ret = ret;
			break;
		}
		st = b.h.state;
		if (a->forge)
			st.secret[17] ^= 0x01;
		a->nsends = st.nsends;
		a->ret = try_import(&g, a->peer, &st, sends, &a->cqes, &a->bad,
				    &a->ms);
		at->tried++;
		blob_free(&b);
	}
	seg_close(&g);
	return NULL;
}

static void attacks_report(const struct attacks *at)
{
	unsigned int i;

	/* seg_open() names each step it takes: only a failure counts */
	if (at->err_ret)
		tap(false, "the refused imports: %s: %d", at->err, at->err_ret);
	for (i = 0; i < at->n; i++) {
		const struct attack *a = &at->a[i];
		bool good = a->peer != o.peer ? a->ret < 0 : a->ret == -EPERM;

		if (i >= at->tried) {
			tap(false, "after the last hand-off, %s: not tried",
			    a->what);
			continue;
		}
		tap(good && cqes_ok(a->nsends, a->cqes, a->bad),
		    "after the last hand-off, %s: refused with %d (%s) in %.1f ms; its %u SENDs left %u completions, %u not with that error",
		    a->what, a->ret, a->ret ? strerror(-a->ret) : "moved!",
		    a->ms, a->nsends, a->cqes, a->bad);
	}
}

/*
 * Post and reap until segment @s's last message is posted (an export
 * follows), or, in the last segment, until every message completed.
 */
static void stream(struct pair_side *g, struct run *r, unsigned int s)
{
	unsigned long start = seg_start(s), end = seg_end(s);
	bool last = s == o.handoffs, attacking = false;
	double deadline = now_ms() + 1800e3, t0 = now_ms();
	struct attacks at = { .n = 0 };
	pthread_t thr;
	uint64_t n0 = r->next;
	int ret;

	for (;;) {
		bool idle = true;

		while (r->next < end && r->inflight < WINDOW) {
			uint64_t n = r->next;
			struct txrdma_sqe *e;

			/* slot n % WINDOW is free once message n - WINDOW is */
			if (n >= WINDOW && !r->done[n - WINDOW])
				break;
			e = txrdma_get_sqe(&g->sq);
			if (!e)
				break;
			fill((uint8_t *)g->reg.addr + slot_off(n), KEY, n,
			     msg_len(n));
			txrdma_prep_send(e, g->ep.id, g->reg.id, slot_off(n),
					 msg_len(n), n);
			r->next++;
			r->inflight++;
			idle = false;
		}
		if (!idle) {
			ret = txrdma_submit(g->ctx, &g->sq);
			if (ret < 0)
				die("submit", ret);
		}
		if (reap(g, r, start))
			idle = false;
		/* the imported blob into the job directory (the attacks
		 * replay it), once the stream goes on: not in the pause
		 */
		if (r->kept.buf && r->next >= start + 2 * WINDOW) {
			ret = blob_store(o.jobdir, r->kept_k, r->kept.buf,
					 r->kept.h.total);
			if (ret)
				die("blob_store", ret);
			blob_free(&r->kept);
		}
		/* before an export, leave the last progress frames unread */
		if ((last || r->next + HOLD < end) && read_ring(g, r))
			idle = false;
		if (last && !attacking && r->next >= start + per / 4) {
			unsigned int k = o.handoffs;

			at.a[at.n++] = (struct attack){
				.what = "a replay of the state this process imported at the last hand-off",
				.blob = k, .peer = o.peer };
			if (k >= 2)
				at.a[at.n++] = (struct attack){
					.what = "a replay of the state this process exported at the hand-off before",
					.blob = k - 1, .peer = o.peer };
			at.a[at.n++] = (struct attack){
				.what = "the last state forged (a secret byte flipped)",
				.blob = k, .forge = true, .peer = o.peer };
			at.a[at.n++] = (struct attack){
				.what = "an import naming a peer that does not exist",
				.blob = k, .peer = NO_PEER };
			ret = pthread_create(&thr, NULL, attack_thread, &at);
			if (ret)
				die("pthread_create", -ret);
			attacking = true;
		}
		if (!last && r->next == end)
			break;
		if (last && r->next == end && !r->inflight)
			break;
		if (r->failed || r->ring_err)
			break;
		if (now_ms() > deadline)
			die("the segment did not finish within 30 minutes",
			    -ETIMEDOUT);
		if (idle)
			usleep(50);
	}
	printf("# mover g%u: segment %u: messages %llu..%llu posted in %.1f s\n",
	       o.guest, s, (unsigned long long)n0,
	       (unsigned long long)r->next - 1, (now_ms() - t0) / 1e3);
	if (attacking) {
		pthread_join(thr, NULL);
		attacks_report(&at);
	}
}

/* ---- the hand-off ------------------------------------------------------ */

/* the ring area and each payload where they were, in our region */
static int restore(struct pair_side *g, const struct blob *b,
		   struct txrdma_sess_send *sends)
{
	const uint8_t *p = b->payload;
	uint32_t i;

	if (b->h.rx_off > g->reg.size ||
	    b->h.rx_area > g->reg.size - b->h.rx_off)
		return -EINVAL;
	blob_ring(b, (uint8_t *)g->reg.addr + b->h.rx_off);
	for (i = 0; i < b->h.nsends; i++) {
		sends[i] = b->sends[i];
		if (sends[i].off > g->reg.size ||
		    sends[i].len > g->reg.size - sends[i].off)
			return -EINVAL;
		memcpy((uint8_t *)g->reg.addr + sends[i].off, p, sends[i].len);
		p += sends[i].len;
		/* the same layout here: only the region's id changes */
		sends[i].region = g->reg.id;
	}
	return 0;
}

static bool one_of(int ret, int a, int b, int c)
{
	return ret == a || ret == b || ret == c;
}

/*
 * Before the real import of hand-off @k: imports that must be refused
 * and change nothing (the real one then succeeds), from a context of
 * their own with the blob restored into its region as a real attempt
 * would have it.  At PROBE, the state with a secret byte flipped; at
 * the first hand-off that has unsettled SENDs, a SEND in a region that
 * is not ours and one across its region's end.  Their
 * hand-off is noted in the job directory: the receiver does not hold
 * its pause to the bound.
 */
static void refused_imports(struct run *r, unsigned int k,
			    const struct blob *b)
{
	bool forge = k == o.probe;
	bool bad_sends = b->h.nsends && !(r->flags & BLOB_F_BAD_SENDS_DONE);
	struct txrdma_sess_send sends[TXRDMA_SESS_SENDS_MAX];
	struct txrdma_sess_send bad[TXRDMA_SESS_SENDS_MAX];
	struct txrdma_sess_state st = b->h.state;
	unsigned int n = b->h.nsends, cqes, nbad;
	const char *what;
	struct pair_side p;
	double ms;
	int ret;

	if (!forge && !bad_sends)
		return;
	blob_note_refused(o.jobdir, k);
	ret = seg_open(&p, &what);
	if (ret)
		die(what, ret);
	ret = restore(&p, b, sends);
	if (ret)
		die("restore for the refused imports", ret);
	if (forge) {
		st.secret[5] ^= 0x80;
		ret = try_import(&p, o.peer, &st, sends, &cqes, &nbad, &ms);
		tap(ret == -EPERM && cqes_ok(n, cqes, nbad),
		    "hand-off %u: the state with a secret byte flipped refused with %d (-EPERM wanted) in %.1f ms; its %u SENDs left %u completions, %u not with that error",
		    k, ret, ms, n, cqes, nbad);
		if (!ret)
			die("a forged state moved the session", -EPERM);
	}
	if (bad_sends) {
		r->flags |= BLOB_F_BAD_SENDS_DONE;
		memcpy(bad, sends, n * sizeof(*bad));
		bad[n - 1].region = NO_REGION;
		ret = try_import(&p, o.peer, &b->h.state, bad, &cqes, &nbad,
				 &ms);
		tap(one_of(ret, -EINVAL, -ENOENT, -EFAULT) &&
		    cqes_ok(n, cqes, nbad),
		    "hand-off %u: an unsettled SEND in a region that is not ours refused with %d in %.1f ms (%u completions left)",
		    k, ret, ms, cqes);
		if (!ret)
			die("a SEND in no region of ours moved the session",
			    -EINVAL);
		memcpy(bad, sends, n * sizeof(*bad));
		/* across the region's end, or (1 byte) just past it */
		bad[n - 1].off = bad[n - 1].len < 2 ? REGION_SIZE :
				 REGION_SIZE - bad[n - 1].len / 2;
		ret = try_import(&p, o.peer, &b->h.state, bad, &cqes, &nbad,
				 &ms);
		tap(one_of(ret, -EINVAL, -ENOENT, -EFAULT) &&
		    cqes_ok(n, cqes, nbad),
		    "hand-off %u: an unsettled SEND across its region's end refused with %d in %.1f ms (%u completions left)",
		    k, ret, ms, cqes);
		if (!ret)
			die("a SEND past its region moved the session",
			    -EINVAL);
	}
	seg_close(&p);
}

/* segment @s > 0: the session comes here with blob @s */
static void arrive(struct pair_side *g, struct run *r, unsigned int s,
		   int *last_gen)
{
	struct txrdma_sess_send sends[TXRDMA_SESS_SENDS_MAX];
	double t0, t_wait, t_read, t_imp;
	unsigned int ready;
	struct blob b;
	int fd, ret;

	t0 = now_ms();
	/* connected long before the other mover's export: only the
	 * bytes travel in the interruption
	 */
	fd = blob_connect(o.mover, (uint16_t)o.service, o.jobdir, o.wait_s);
	if (fd < 0)
		die("connecting to the other mover", fd);
	ret = blob_recv(fd, o.jobdir, s, o.wait_s, &b);
	close(fd);
	if (ret)
		die("receiving the other mover's blob", ret);
	t_wait = now_ms();
	if (b.h.count != o.count || b.h.next != seg_start(s) ||
	    b.h.rx_off != RX_OFF)
		die("the blob is not this stream's", -EBADMSG);
	ret = restore(g, &b, sends);
	if (ret)
		die("restore", ret);
	/* the process's memory as it was on the old host */
	blob_done(&b, r->done);
	r->next = b.h.next;
	r->inflight = b.h.nsends;
	r->rev_next = b.h.rev_next;
	r->rev_bad = b.h.rev_bad;
	r->dup = b.h.dup;
	r->wrong = b.h.wrong;
	r->failed = b.h.failed;
	r->flags = b.h.flags;
	r->with_sends = b.h.with_sends;
	r->here = r->from_old = 0;
	*last_gen = (int)b.h.state.ho_gen;

	t_read = now_ms();
	refused_imports(r, s, &b);
	t_imp = now_ms();
	ret = txrdma_sess_import(g->ctx, o.peer, &b.h.state, sends, g->reg.id,
				 RX_OFF, o.grace_ms, &g->ep);
	if (ret)
		die("import", ret);
	printf("# mover g%u: hand-off %u: blob of g%u (%llu bytes) here after %.1f s, restored in %.1f ms, imported in %.1f ms: endpoint %u (QP %u) <-> %u, %u unsettled SENDs\n",
	       o.guest, s, b.h.from_guest, (unsigned long long)b.h.total,
	       (t_wait - t0) / 1e3,
	       t_read - t_wait, now_ms() - t_imp, g->ep.id, g->ep.qp_num,
	       g->ep.peer_ep, b.h.nsends);
	tap(g->ep.peer_ep == b.h.state.peer_ep &&
	    g->ep.rx_units == MOVER_UNITS && g->ep.grace_ms == o.grace_ms &&
	    (g->ep.flags & TXRDMA_EP_F_SESSION),
	    "hand-off %u: imported: the session is Up here (endpoint %u, QP %u)",
	    s, g->ep.id, g->ep.qp_num);
	ret = txrdma_rx_init(&g->rx, g->ctx, &g->sq,
			     (uint8_t *)g->reg.addr + RX_OFF, g->ep.rx_units);
	if (ret)
		die("rx_init on the imported ring", ret);
	ready = txrdma_rx_ready(&g->rx);
	tap(ready >= b.h.rx_unread,
	    "hand-off %u: the ring goes on: %u units the old host had not released are here (%u published)",
	    s, b.h.rx_unread, ready);
	/* for the attacks on old states: stream() keeps it, not now */
	r->kept = b;
	r->kept_k = s;
}

/* the state describes this session, one hand-off on from the last */
static bool state_ok(const struct pair_side *g,
		     const struct txrdma_sess_state *st, int last_gen)
{
	return st->version == TXRDMA_SESS_STATE_VERSION &&
	       (st->flags & TXRDMA_EP_F_SESSION) && st->ep == g->ep.id &&
	       st->peer_ep == g->ep.peer_ep && st->service == o.service &&
	       st->rx_units == MOVER_UNITS && st->grace_ms == o.grace_ms &&
	       st->nsends <= WINDOW &&
	       (last_gen < 0 || st->ho_gen == (uint32_t)last_gen + 1);
}

/*
 * The unsettled SENDs are the messages posted here or before and not
 * completed here, oldest first, each with its payload where it was,
 * their frames the last ones sent.
 * The slot rule keeps every such message within WINDOW of the next.
 */
static bool sends_ok(const struct pair_side *g, const struct run *r,
		     const struct txrdma_sess_state *st,
		     const struct txrdma_sess_send *sends, uint32_t n,
		     uint64_t *missing)
{
	uint64_t m = r->next > WINDOW ? r->next - WINDOW : 0;
	uint32_t i = 0;
	bool good = true;

	*missing = 0;
	for (; m < r->next; m++) {
		if (r->done[m])
			continue;
		if (i >= n || sends[i].user_data != m) {
			(*missing)++;
			good = false;
			continue;
		}
		/* the last frames sent, in order: an import needs it */
		good &= sends[i].region == g->reg.id &&
			sends[i].off == slot_off(m) &&
			sends[i].len == msg_len(m) && !sends[i].flags &&
			!sends[i].resv && sends[i].seq == st->tx_seq - n + i;
		i++;
	}
	return good && i == n;
}

/* segment @s ends: hand-off @s + 1 */
static void leave(struct pair_side *g, struct run *r, unsigned int s,
		  int *last_gen)
{
	struct txrdma_sess_send sends[TXRDMA_SESS_SENDS_MAX];
	struct txrdma_sess_state st;
	struct blob_hdr h = { .magic = BLOB_MAGIC };
	unsigned long late = 0, busy = 0;
	unsigned int k = s + 1, unread, head;
	double t0, t_exp, t_blob, deadline;
	uint64_t missing, here_before;
	bool good;
	struct txrdma_sqe *e;
	void *buf;
	int ret, xres;

	/* every SQE taken by the module: each SEND is then either settled
	 * or unsettled, none still in our ring
	 */
	deadline = now_ms() + 10000;
	while (txrdma_sq_ready(&g->sq) && now_ms() < deadline) {
		if (txrdma_sq_needs_wakeup(&g->sq))
			txrdma_rings_enter(g->ctx);
		/*
		 * The poller needs the CPU to take them, but no sleep: the
		 * export should find the last SENDs still unacknowledged
		 */
		sched_yield();
	}
	if (txrdma_sq_ready(&g->sq))
		tap(false, "hand-off %u: the module took our SQEs within 10 s (%u left)",
		    k, txrdma_sq_ready(&g->sq));
	t0 = now_ms();
	/* -EBUSY: the session is resuming (a QP of its was lost): later */
	while ((ret = txrdma_sess_export(g->ctx, g->ep.id, 0, &st, sends,
					 TXRDMA_SESS_SENDS_MAX)) == -EBUSY &&
	       now_ms() - t0 < 10000) {
		busy++;
		usleep(1000);
	}
	t_exp = now_ms();
	if (ret)
		die("export", ret);
	/* what the next host's process must find: released .. published */
	head = __atomic_load_n(g->rx.khead, __ATOMIC_RELAXED);
	unread = __atomic_load_n(g->rx.ktail, __ATOMIC_ACQUIRE) - head;
	/* what settled before the export completed here, before it returned */
	here_before = r->here;
	reap(g, r, seg_start(s));
	tap(state_ok(g, &st, *last_gen),
	    "hand-off %u: the exported state is this session's (version %u, flags %#x, ep %u<->%u, rx_units %u, grace %u ms, hand-offs %u, %u unsettled)",
	    k, st.version, st.flags, st.ep, st.peer_ep, st.rx_units,
	    st.grace_ms, st.ho_gen, st.nsends);
	good = sends_ok(g, r, &st, sends, st.nsends, &missing);
	tap(good,
	    "hand-off %u: the %u unsettled SENDs are the messages not completed here, oldest first, with their payloads (%llu missing)",
	    k, st.nsends, (unsigned long long)missing);
	*last_gen = (int)st.ho_gen;

	h.handoff = k;
	h.from_guest = o.guest;
	h.nsends = st.nsends;
	h.flags = r->flags;
	h.with_sends = r->with_sends + !!st.nsends;
	h.rx_area = (uint32_t)txrdma_rx_area_size(MOVER_UNITS);
	h.rx_unread = unread;
	h.rx_head = head;
	h.rx_off = RX_OFF;
	h.next = r->next;
	h.count = o.count;
	h.rev_next = r->rev_next;
	h.rev_bad = r->rev_bad;
	h.dup = r->dup;
	h.wrong = r->wrong;
	h.failed = r->failed;
	h.state = st;
	ret = blob_pack(&h, sends, (uint8_t *)g->reg.addr + RX_OFF,
			g->reg.addr, g->reg.size, r->done, &buf);
	if (ret)
		die("blob_pack", ret);
	ret = blob_send(lfd, o.jobdir, buf, h.total, o.wait_s);
	free(buf);
	if (ret)
		die("sending the blob to the other mover", ret);
	t_blob = now_ms();
	printf("# mover g%u: hand-off %u after message %llu: export %.1f ms (%lu times -EBUSY first), %u unsettled SENDs (seqs %u..%u), %llu completed here (%llu at the export), %u ring units left unread, blob of %llu bytes sent in %.1f ms\n",
	       o.guest, k, (unsigned long long)r->next - 1, t_exp - t0,
	       busy, st.nsends, st.nsends ? sends[0].seq : 0,
	       st.nsends ? sends[st.nsends - 1].seq : 0,
	       (unsigned long long)r->here,
	       (unsigned long long)(r->here - here_before), unread,
	       (unsigned long long)h.total, t_blob - t_exp);

	/* after the export: nothing completes here but a refused SQE */
	e = txrdma_get_sqe(&g->sq);
	if (!e)
		die("no SQE for the -EXDEV probe", -EBUSY);
	memset((uint8_t *)g->reg.addr + CTL_OFF, 0x11, 8);
	txrdma_prep_send(e, g->ep.id, g->reg.id, CTL_OFF, 8, UD_XDEV);
	txrdma_submit(g->ctx, &g->sq);
	xres = wait_cqe(g, UD_XDEV, &late);
	ret = txrdma_ep_destroy(g->ctx, g->ep.id);
	g->ep.id = 0;
	while (txrdma_peek_cqe(&g->cq)) {
		late++;
		txrdma_cq_advance(&g->cq, 1);
	}
	tap(xres == -EXDEV && !late && !ret,
	    "hand-off %u: after the export an SQE failed with %d (-EXDEV wanted), %lu other completions here, destroyed (%d)",
	    k, xres, late, ret);
}

/* the last segment: END, then the receiver's FIN on our ring */
static void finish(struct pair_side *g, struct run *r)
{
	uint64_t v[2] = { htole64(END_MAGIC), htole64(o.count) };
	unsigned long i, never = 0, other = 0;
	struct txrdma_sqe *e;
	double end;
	int ret;

	e = txrdma_get_sqe(&g->sq);
	if (!e)
		die("no SQE for END", -EBUSY);
	memcpy((uint8_t *)g->reg.addr + CTL_OFF, v, 16);
	txrdma_prep_send(e, g->ep.id, g->reg.id, CTL_OFF, 16, UD_END);
	txrdma_submit(g->ctx, &g->sq);
	ret = wait_cqe(g, UD_END, &other);
	end = now_ms() + STEP_MS;
	while (!r->fin && !r->ring_err && now_ms() < end)
		if (!read_ring(g, r))
			usleep(200);
	/* the receiver closes once FIN completed there: wait for that,
	 * so that our end goes after its last completion
	 */
	end = now_ms() + STEP_MS;
	while (!r->ring_err && now_ms() < end)
		if (!read_ring(g, r))
			usleep(1000);
	printf("# mover g%u: END %d, FIN %s (%llu), our ring then ended with %d\n",
	       o.guest, ret, r->fin ? "read" : "not read",
	       (unsigned long long)r->fin_count, r->ring_err);
	for (i = 0; i < o.count; i++)
		never += !r->done[i];
	tap(ret == 16 && !other && !never && !r->dup && !r->wrong &&
	    !r->failed,
	    "every message of the stream completed exactly once over the hosts (%lu, %lu never, %llu twice, %llu unknown, %llu failed, first %d)",
	    o.count, never, (unsigned long long)r->dup,
	    (unsigned long long)r->wrong, (unsigned long long)r->failed,
	    r->first_fail);
	tap(r->fin && r->fin_count == r->rev_next && !r->rev_bad,
	    "every progress frame of the receiver read once, in order, over every move (%llu of %llu, %llu not the next)",
	    (unsigned long long)r->rev_next,
	    (unsigned long long)r->fin_count, (unsigned long long)r->rev_bad);
	tap(r->with_sends >= 1,
	    "hand-offs with SENDs in flight at the export: %u of %u",
	    r->with_sends, o.handoffs);
	tap(r->flags & BLOB_F_BAD_SENDS_DONE,
	    "imports with bad unsettled SENDs were tried (at the first hand-off with SENDs in flight)");
}

int mover(void)
{
	struct run r = { .first_fail = 0 };
	int last_gen = -1, ret;
	const char *what;
	unsigned int s;
	struct pair_side g;

	r.done = calloc(o.count, 1);
	if (!r.done)
		die("calloc", -ENOMEM);
	/* where the other mover comes for our blobs */
	lfd = blob_listen((uint16_t)o.service);
	if (lfd < 0)
		die("listening for the other mover", lfd);
	for (s = o.first; s <= o.handoffs; s += 2) {
		/* ready before the session comes: the wait is the pause */
		ret = seg_open(&g, &what);
		if (ret)
			die(what, ret);
		if (!s) {
			struct txrdma_ep_params p = {
				.service = o.service, .rx_region = g.reg.id,
				.rx_units = MOVER_UNITS, .rx_off = RX_OFF,
				.timeout_ms = 5000,
			};
			double t0 = now_ms();

			do {
				ret = txrdma_ep_connect_session(g.ctx, o.peer,
								&p, o.grace_ms,
								&g.ep);
			} while ((ret == -ECONNREFUSED || ret == -EAGAIN ||
				  ret == -ETIMEDOUT || ret == -ENOTCONN) &&
				 now_ms() - t0 < 120000 && !usleep(50000));
			if (ret)
				die("connect", ret);
			ret = txrdma_rx_init(&g.rx, g.ctx, &g.sq,
					     (uint8_t *)g.reg.addr + RX_OFF,
					     MOVER_UNITS);
			if (ret)
				die("rx_init", ret);
			printf("# mover g%u: session %u <-> %u with %s, grace %u ms\n",
			       o.guest, g.ep.id, g.ep.peer_ep, o.peer,
			       g.ep.grace_ms);
		} else {
			arrive(&g, &r, s, &last_gen);
		}
		stream(&g, &r, s);
		tap(!r.dup && !r.wrong && !r.failed && !r.ring_err,
		    "segment %u: every completion here was of a message in flight, once, successful (%llu here, %llu of them posted on the old host; ring %d)",
		    s, (unsigned long long)r.here,
		    (unsigned long long)r.from_old, r.ring_err);
		if (r.failed || r.ring_err)
			die("the stream failed", r.ring_err ?: r.first_fail);
		if (s < o.handoffs)
			leave(&g, &r, s, &last_gen);
		else
			finish(&g, &r);
		seg_close(&g);
	}
	free(r.done);
	close(lfd);
	return tap_end();
}
