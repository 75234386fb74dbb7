// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite txrdma_ringmath: ring sizes, the indices a process writes
 * (including garbage and the 32-bit wrap), overflow-safe range checks,
 * and the SQE checks, ending with 100,000 random SQEs of which every
 * accepted one is shown to be well formed.
 */
#include <kunit/test.h>
#include <linux/limits.h>
#include <linux/string.h>
#include <linux/txrdma.h>

#include "../txrdma_ringmath.h"

static void ring_entries(struct kunit *test)
{
	u32 e = 77;

	KUNIT_EXPECT_EQ(test, txrdma_ring_entries(0, &e), -EINVAL);
	KUNIT_EXPECT_EQ(test, e, 77U);
	KUNIT_EXPECT_EQ(test, txrdma_ring_entries(32769, &e), -EINVAL);
	KUNIT_EXPECT_EQ(test, txrdma_ring_entries(1, &e), 0);
	KUNIT_EXPECT_EQ(test, e, 2U);
	KUNIT_EXPECT_EQ(test, txrdma_ring_entries(100, &e), 0);
	KUNIT_EXPECT_EQ(test, e, 128U);
	KUNIT_EXPECT_EQ(test, txrdma_ring_entries(32768, &e), 0);
	KUNIT_EXPECT_EQ(test, e, 32768U);
}

static void ring_sq_pending(struct kunit *test)
{
	u32 n = 5;

	KUNIT_EXPECT_EQ(test, txrdma_sq_pending(10, 10, 64, &n), 0);
	KUNIT_EXPECT_EQ(test, n, 0U);
	KUNIT_EXPECT_EQ(test, txrdma_sq_pending(10, 74, 64, &n), 0);
	KUNIT_EXPECT_EQ(test, n, 64U);
	KUNIT_EXPECT_EQ(test, txrdma_sq_pending(10, 75, 64, &n), -EINVAL);
	KUNIT_EXPECT_EQ(test, n, 0U);
	KUNIT_EXPECT_EQ(test, txrdma_sq_pending(10, 9, 64, &n), -EINVAL);
	KUNIT_EXPECT_EQ(test, txrdma_sq_pending(0xfffffffe, 3, 64, &n), 0);
	KUNIT_EXPECT_EQ(test, n, 5U);
	KUNIT_EXPECT_EQ(test, txrdma_sq_pending(3, 0xfffffffe, 64, &n),
			-EINVAL);
}

static void ring_cq_space(struct kunit *test)
{
	u32 s = 5;

	KUNIT_EXPECT_EQ(test, txrdma_cq_space(10, 10, 64, &s), 0);
	KUNIT_EXPECT_EQ(test, s, 64U);
	KUNIT_EXPECT_EQ(test, txrdma_cq_space(74, 10, 64, &s), 0);
	KUNIT_EXPECT_EQ(test, s, 0U);
	KUNIT_EXPECT_EQ(test, txrdma_cq_space(20, 10, 64, &s), 0);
	KUNIT_EXPECT_EQ(test, s, 54U);
	/* the process claims to have read what was never written */
	KUNIT_EXPECT_EQ(test, txrdma_cq_space(10, 11, 64, &s), -EINVAL);
	KUNIT_EXPECT_EQ(test, s, 0U);
	KUNIT_EXPECT_EQ(test, txrdma_cq_space(75, 10, 64, &s), -EINVAL);
	KUNIT_EXPECT_EQ(test, txrdma_cq_space(2, 0xfffffff0, 64, &s), 0);
	KUNIT_EXPECT_EQ(test, s, 46U);
}

static void ring_range(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, txrdma_range_ok(0, 4096, 4096));
	KUNIT_EXPECT_TRUE(test, txrdma_range_ok(4096, 0, 4096));
	KUNIT_EXPECT_FALSE(test, txrdma_range_ok(4097, 0, 4096));
	KUNIT_EXPECT_FALSE(test, txrdma_range_ok(1, 4096, 4096));
	KUNIT_EXPECT_FALSE(test, txrdma_range_ok(8, U64_MAX - 4, 4096));
	KUNIT_EXPECT_FALSE(test, txrdma_range_ok(U64_MAX, 2, 4096));
	KUNIT_EXPECT_TRUE(test, txrdma_range_ok(U64_MAX - 1, 1, U64_MAX));
}

static void good_sqe(struct txrdma_sqe *s, u8 op)
{
	memset(s, 0, sizeof(*s));
	s->opcode = op;
	s->ep = 3;
	s->user_data = 0x1122334455667788ULL;
	if (op == TXRDMA_OP_NOP)
		return;
	s->local_region = 1;
	s->len = 4096;
	s->local_off = 8192;
	if (op != TXRDMA_OP_SEND) {
		s->remote_region = 2;
		s->remote_off = 64;
	}
}

static void ring_sqe_check(struct kunit *test)
{
	struct txrdma_sqe s;
	u8 op;

	for (op = 0; op < TXRDMA_OP_LAST; op++) {
		good_sqe(&s, op);
		KUNIT_EXPECT_EQ(test, txrdma_sqe_check(&s), 0);
		s.prio = TXRDMA_PRIO_CLASSES - 1;
		s.flags = TXRDMA_SQE_F_NO_CQE;
		KUNIT_EXPECT_EQ(test, txrdma_sqe_check(&s), 0);
		good_sqe(&s, op);
		s.prio = TXRDMA_PRIO_CLASSES;
		KUNIT_EXPECT_EQ(test, txrdma_sqe_check(&s), -EINVAL);
		good_sqe(&s, op);
		s.flags = 0x80;
		KUNIT_EXPECT_EQ(test, txrdma_sqe_check(&s), -EINVAL);
		/* a fence orders SEND, READ and WRITE; a NOP has none */
		good_sqe(&s, op);
		s.flags = TXRDMA_SQE_F_FENCE | TXRDMA_SQE_F_NO_CQE;
		KUNIT_EXPECT_EQ(test, txrdma_sqe_check(&s),
				op == TXRDMA_OP_NOP ? -EINVAL : 0);
		/* only a one-sided operation may run twice */
		good_sqe(&s, op);
		s.flags = TXRDMA_SQE_F_IDEMPOTENT | TXRDMA_SQE_F_FENCE;
		KUNIT_EXPECT_EQ(test, txrdma_sqe_check(&s),
				op == TXRDMA_OP_READ || op == TXRDMA_OP_WRITE ?
				0 : -EINVAL);
		good_sqe(&s, op);
		s.flags = 0x8000;
		KUNIT_EXPECT_EQ(test, txrdma_sqe_check(&s), -EINVAL);
		good_sqe(&s, op);
		s.resv1 = 1;
		KUNIT_EXPECT_EQ(test, txrdma_sqe_check(&s), -EINVAL);
		good_sqe(&s, op);
		s.resv2[1] = 1;
		KUNIT_EXPECT_EQ(test, txrdma_sqe_check(&s), -EINVAL);
	}
	good_sqe(&s, TXRDMA_OP_LAST);
	KUNIT_EXPECT_EQ(test, txrdma_sqe_check(&s), -EINVAL);
	good_sqe(&s, 0xff);
	KUNIT_EXPECT_EQ(test, txrdma_sqe_check(&s), -EINVAL);
	good_sqe(&s, TXRDMA_OP_NOP);
	s.len = 1;
	KUNIT_EXPECT_EQ(test, txrdma_sqe_check(&s), -EINVAL);
	good_sqe(&s, TXRDMA_OP_SEND);
	s.len = TXRDMA_FRAME_MAX_PAYLOAD;
	KUNIT_EXPECT_EQ(test, txrdma_sqe_check(&s), 0);
	s.len++;
	KUNIT_EXPECT_EQ(test, txrdma_sqe_check(&s), -EINVAL);
	good_sqe(&s, TXRDMA_OP_SEND);
	s.len = 0;
	KUNIT_EXPECT_EQ(test, txrdma_sqe_check(&s), 0);	/* empty message */
	s.remote_off = 1;
	KUNIT_EXPECT_EQ(test, txrdma_sqe_check(&s), -EINVAL);
	good_sqe(&s, TXRDMA_OP_READ);
	s.len = 0;
	KUNIT_EXPECT_EQ(test, txrdma_sqe_check(&s), -EINVAL);
	/* what cqe->res (s32) can still report, and one more */
	s.len = TXRDMA_SQE_MAX_LEN;
	KUNIT_EXPECT_EQ(test, txrdma_sqe_check(&s), 0);
	s.len++;
	KUNIT_EXPECT_EQ(test, txrdma_sqe_check(&s), -EINVAL);
	good_sqe(&s, TXRDMA_OP_WRITE);
	s.len = U32_MAX;
	KUNIT_EXPECT_EQ(test, txrdma_sqe_check(&s), -EINVAL);
}

/* random bytes as SQEs: what passes is well formed */
static void ring_sqe_fuzz(struct kunit *test)
{
	struct txrdma_sqe s;
	u32 seed = 7, *w = (u32 *)&s;
	unsigned int i, k, passed = 0;

	for (i = 0; i < 100000; i++) {
		for (k = 0; k < sizeof(s) / 4; k++) {
			seed = seed * 1664525 + 1013904223;
			w[k] = seed;
		}
		/* make some of them close to valid */
		if (i % 2) {
			s.opcode %= TXRDMA_OP_LAST + 1;
			s.flags &= 3;
			s.prio %= TXRDMA_PRIO_CLASSES + 1;
			s.resv1 = i % 3 ? 0 : s.resv1;
			s.resv2[0] = 0;
			s.resv2[1] = 0;
			if (i % 4 == 1)
				s.len %= 2 * TXRDMA_FRAME_MAX_PAYLOAD;
			if (i % 8 == 1) {
				s.remote_region = 0;
				s.remote_off = 0;
			}
		}
		if (txrdma_sqe_check(&s))
			continue;
		passed++;
		KUNIT_ASSERT_LT(test, s.opcode, (u8)TXRDMA_OP_LAST);
		KUNIT_ASSERT_EQ(test, s.flags & ~TXRDMA_SQE_F_ALL, 0);
		KUNIT_ASSERT_LT(test, s.prio, (u8)TXRDMA_PRIO_CLASSES);
		KUNIT_ASSERT_TRUE(test, !s.resv1 && !s.resv2[0] && !s.resv2[1]);
		/* the per-opcode field rules, stated independently */
		if (s.opcode == TXRDMA_OP_NOP)
			KUNIT_ASSERT_TRUE(test, !s.len && !s.local_region &&
					  !s.local_off && !s.remote_region &&
					  !s.remote_off &&
					  !(s.flags & TXRDMA_SQE_F_FENCE));
		if (s.opcode == TXRDMA_OP_SEND)
			KUNIT_ASSERT_TRUE(test, !s.remote_region &&
					  !s.remote_off);
		if (s.opcode == TXRDMA_OP_SEND)
			KUNIT_ASSERT_LE(test, s.len, TXRDMA_FRAME_MAX_PAYLOAD);
		if (s.opcode == TXRDMA_OP_READ || s.opcode == TXRDMA_OP_WRITE)
			KUNIT_ASSERT_GT(test, s.len, 0U);
	}
	/* the generator does reach the accepting paths */
	KUNIT_EXPECT_GT(test, passed, 1000U);
}

/* a process lowers its SQEs' class, never raises it */
static void ring_sqe_class(struct kunit *test)
{
	u8 t, p;

	for (t = 0; t < __TXRDMA_PRIO_MAX; t++) {
		for (p = 0; p < TXRDMA_PRIO_CLASSES; p++)
			KUNIT_EXPECT_EQ(test, txrdma_sqe_class(t, p),
					(u8)max(t, p));
		/* out of range: the tenant's; the SQE is refused later */
		KUNIT_EXPECT_EQ(test, txrdma_sqe_class(t, TXRDMA_PRIO_CLASSES),
				t);
		KUNIT_EXPECT_EQ(test, txrdma_sqe_class(t, 0xff), t);
	}
	KUNIT_EXPECT_EQ(test, txrdma_sqe_class(TXRDMA_PRIO_CRITICAL, 0), 0);
	KUNIT_EXPECT_EQ(test, txrdma_sqe_class(TXRDMA_PRIO_BULK, 0),
			(u8)TXRDMA_PRIO_BULK);
	/* a tenant value past the classes is the least urgent class */
	KUNIT_EXPECT_EQ(test, txrdma_sqe_class(200, 0),
			(u8)(TXRDMA_PRIO_CLASSES - 1));
}

/*
 * The budgets, and what they do to rings that all have a backlog: a
 * model of the poller's passes (class by class, each ring its class's
 * budget) must finish the urgent ring first and give every class some
 * service in every pass.
 */
static void ring_class_budget(struct kunit *test)
{
	u32 left[TXRDMA_PRIO_CLASSES], done_at[TXRDMA_PRIO_CLASSES] = { 0 };
	u32 pass, c, n, at_first = 0;
	u8 cls;

	KUNIT_EXPECT_EQ(test, txrdma_class_budget(0), 256U);
	for (cls = 1; cls < TXRDMA_PRIO_CLASSES; cls++) {
		KUNIT_EXPECT_LT(test, txrdma_class_budget(cls),
				txrdma_class_budget(cls - 1));
		KUNIT_EXPECT_GT(test, txrdma_class_budget(cls), 0U);
	}
	KUNIT_EXPECT_EQ(test, txrdma_class_budget(TXRDMA_PRIO_CLASSES),
			txrdma_class_budget(TXRDMA_PRIO_CLASSES - 1));

	/* one ring per class, 4096 SQEs each */
	for (c = 0; c < TXRDMA_PRIO_CLASSES; c++)
		left[c] = 4096;
	for (pass = 1; pass < 10000; pass++) {
		bool any = false;

		for (c = 0; c < TXRDMA_PRIO_CLASSES; c++) {
			if (!left[c])
				continue;
			n = min(left[c], txrdma_class_budget(c));
			KUNIT_ASSERT_GT(test, n, 0U);	/* never starved */
			left[c] -= n;
			any = true;
			if (!left[c])
				done_at[c] = pass;
		}
		if (left[0] == 0 && !at_first)
			at_first = 4096 - left[TXRDMA_PRIO_CLASSES - 1];
		if (!any)
			break;
	}
	/* 16 passes for class 0; class 3 had 16 x 4 SQEs meanwhile */
	KUNIT_EXPECT_EQ(test, done_at[0], 16U);
	KUNIT_EXPECT_EQ(test, at_first, 64U);
	for (c = 1; c < TXRDMA_PRIO_CLASSES; c++)
		KUNIT_EXPECT_GT(test, done_at[c], done_at[c - 1]);
}

/* A stream takes the poller; a ping-pong's occasional quick doorbell not */
static void ring_doorbell_streak(struct kunit *test)
{
	const u64 idle = 200 * NSEC_PER_USEC;
	struct txrdma_doorbell db = { 0 };
	u64 t = 1000 * NSEC_PER_SEC;
	int i;

	/* the first doorbell ever, then slow ones: never */
	KUNIT_EXPECT_FALSE(test, txrdma_doorbell_streak(&db, t, idle));
	for (i = 0; i < 100; i++) {
		t += idle;	/* exactly the idle time is not quick */
		KUNIT_EXPECT_FALSE(test, txrdma_doorbell_streak(&db, t, idle));
	}
	KUNIT_EXPECT_EQ(test, db.streak, 0U);

	/* quick ones: the streak'th and every one after it */
	for (i = 1; i < TXRDMA_DOORBELL_STREAK; i++) {
		t += idle - 1;
		KUNIT_EXPECT_FALSE(test, txrdma_doorbell_streak(&db, t, idle));
	}
	for (i = 0; i < 1000; i++) {
		t += 1;
		KUNIT_EXPECT_TRUE(test, txrdma_doorbell_streak(&db, t, idle));
	}
	KUNIT_EXPECT_EQ(test, db.streak, (u32)TXRDMA_DOORBELL_STREAK);

	/* one slow doorbell ends it; a ping-pong alternating never gets one */
	t += idle;
	KUNIT_EXPECT_FALSE(test, txrdma_doorbell_streak(&db, t, idle));
	for (i = 0; i < 1000; i++) {
		t += i % 2 ? idle / 2 : 3 * idle;
		KUNIT_EXPECT_FALSE(test, txrdma_doorbell_streak(&db, t, idle));
	}
	/* three quick in a row between slow ones: still no stream */
	for (i = 0; i < 100; i++) {
		t += i % 4 ? idle / 4 : 2 * idle;
		KUNIT_EXPECT_FALSE(test, txrdma_doorbell_streak(&db, t, idle));
	}
	/* poll_idle_us 0: nothing is ever quick */
	for (i = 0; i < 100; i++) {
		t += 1;
		KUNIT_EXPECT_FALSE(test, txrdma_doorbell_streak(&db, t, 0));
	}
}

static struct kunit_case txrdma_ring_cases[] = {
	KUNIT_CASE(ring_entries),
	KUNIT_CASE(ring_sq_pending),
	KUNIT_CASE(ring_cq_space),
	KUNIT_CASE(ring_range),
	KUNIT_CASE(ring_sqe_check),
	KUNIT_CASE(ring_sqe_fuzz),
	KUNIT_CASE(ring_sqe_class),
	KUNIT_CASE(ring_class_budget),
	KUNIT_CASE(ring_doorbell_streak),
	{}
};

static struct kunit_suite txrdma_ringmath_suite = {
	.name = "txrdma_ringmath",
	.test_cases = txrdma_ring_cases,
};

kunit_test_suite(txrdma_ringmath_suite);
