// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite txrdma_abi: the uapi checks reject every flag and reserved
 * field they do not know and fill every output field.
 */
#include <kunit/test.h>
#include <linux/string.h>

#include "../txrdma_abi.h"

static void abi_probe_accepts_zero(struct kunit *test)
{
	struct txrdma_probe p;

	memset(&p, 0, sizeof(p));
	KUNIT_EXPECT_EQ(test, txrdma_probe_check(&p), 0);
	/* output fields are ignored on input */
	p.abi_version = 99;
	p.features = ~0ULL;
	p.ndevs = 7;
	KUNIT_EXPECT_EQ(test, txrdma_probe_check(&p), 0);
}

static void abi_probe_rejects_flags(struct kunit *test)
{
	struct txrdma_probe p;
	unsigned int bit;

	for (bit = 0; bit < 32; bit++) {
		memset(&p, 0, sizeof(p));
		p.flags = 1U << bit;
		KUNIT_EXPECT_EQ(test, txrdma_probe_check(&p), -EINVAL);
	}
}

static void abi_probe_rejects_resv(struct kunit *test)
{
	struct txrdma_probe p;
	unsigned int i;

	memset(&p, 0, sizeof(p));
	p.resv0 = 1;
	KUNIT_EXPECT_EQ(test, txrdma_probe_check(&p), -EINVAL);
	for (i = 0; i < ARRAY_SIZE(p.resv); i++) {
		memset(&p, 0, sizeof(p));
		p.resv[i] = 1ULL << 63;
		KUNIT_EXPECT_EQ(test, txrdma_probe_check(&p), -EINVAL);
	}
}

static void abi_probe_fill(struct kunit *test)
{
	struct txrdma_probe p;
	unsigned int i;

	memset(&p, 0xa5, sizeof(p));
	txrdma_probe_fill(&p, 3);
	KUNIT_EXPECT_EQ(test, p.abi_version, (u32)TXRDMA_ABI_VERSION);
	KUNIT_EXPECT_EQ(test, p.features, (u64)TXRDMA_FEAT_ALL);
	KUNIT_EXPECT_EQ(test, p.ndevs, 3U);
	KUNIT_EXPECT_EQ(test, p.flags, 0U);
	KUNIT_EXPECT_EQ(test, p.resv0, 0U);
	for (i = 0; i < ARRAY_SIZE(p.resv); i++)
		KUNIT_EXPECT_EQ(test, p.resv[i], 0ULL);
	/* what the kernel returns passes its own check */
	p.abi_version = 0;
	p.features = 0;
	KUNIT_EXPECT_EQ(test, txrdma_probe_check(&p), 0);
}

static void abi_tenant_info_check(struct kunit *test)
{
	struct txrdma_tenant_info ti;

	memset(&ti, 0, sizeof(ti));
	KUNIT_EXPECT_EQ(test, txrdma_tenant_info_check(&ti), 0);
	/* output fields are ignored on input */
	ti.id = 5;
	ti.name[0] = 'x';
	KUNIT_EXPECT_EQ(test, txrdma_tenant_info_check(&ti), 0);
	ti.flags = 1;
	KUNIT_EXPECT_EQ(test, txrdma_tenant_info_check(&ti), -EINVAL);
	ti.flags = 0;
	ti.resv[1] = 1;
	KUNIT_EXPECT_EQ(test, txrdma_tenant_info_check(&ti), -EINVAL);
}

static void ep_create_valid(struct txrdma_ep_create *c)
{
	memset(c, 0, sizeof(*c));
	strscpy((char *)c->peer, "db-2", sizeof(c->peer));
}

static void abi_ep_create_check(struct kunit *test)
{
	struct txrdma_ep_create c;
	unsigned int i;

	ep_create_valid(&c);
	KUNIT_EXPECT_EQ(test, txrdma_ep_create_check(&c), 0);
	/* a name of 31 bytes and its NUL fills the field exactly */
	memset(c.peer, 'p', sizeof(c.peer) - 1);
	KUNIT_EXPECT_EQ(test, txrdma_ep_create_check(&c), 0);
	/* no NUL at all, or an empty name */
	memset(c.peer, 'p', sizeof(c.peer));
	KUNIT_EXPECT_EQ(test, txrdma_ep_create_check(&c), -EINVAL);
	ep_create_valid(&c);
	c.peer[0] = 0;
	KUNIT_EXPECT_EQ(test, txrdma_ep_create_check(&c), -EINVAL);
	ep_create_valid(&c);
	c.flags = 1;
	KUNIT_EXPECT_EQ(test, txrdma_ep_create_check(&c), -EINVAL);
	/* output fields must come in as zero: they may become inputs */
	ep_create_valid(&c);
	c.id = 1;
	KUNIT_EXPECT_EQ(test, txrdma_ep_create_check(&c), -EINVAL);
	ep_create_valid(&c);
	c.qp_num = 1;
	KUNIT_EXPECT_EQ(test, txrdma_ep_create_check(&c), -EINVAL);
	ep_create_valid(&c);
	c.resv0 = 1;
	KUNIT_EXPECT_EQ(test, txrdma_ep_create_check(&c), -EINVAL);
	for (i = 0; i < ARRAY_SIZE(c.resv); i++) {
		ep_create_valid(&c);
		c.resv[i] = 1ULL << 63;
		KUNIT_EXPECT_EQ(test, txrdma_ep_create_check(&c), -EINVAL);
	}
}

static void abi_ep_info_check(struct kunit *test)
{
	struct txrdma_ep_info e;

	memset(&e, 0, sizeof(e));
	KUNIT_EXPECT_EQ(test, txrdma_ep_info_check(&e), 0);
	/* output fields are ignored on input */
	e.peer_id = 3;
	e.qp_num = 17;
	e.error = -5;
	e.id = 9;
	KUNIT_EXPECT_EQ(test, txrdma_ep_info_check(&e), 0);
	e.flags = 2;
	KUNIT_EXPECT_EQ(test, txrdma_ep_info_check(&e), -EINVAL);
	e.flags = 0;
	e.resv0 = 1;
	KUNIT_EXPECT_EQ(test, txrdma_ep_info_check(&e), -EINVAL);
	e.resv0 = 0;
	e.resv[1] = 1;
	KUNIT_EXPECT_EQ(test, txrdma_ep_info_check(&e), -EINVAL);
}

static struct kunit_case txrdma_abi_cases[] = {
	KUNIT_CASE(abi_probe_accepts_zero),
	KUNIT_CASE(abi_probe_rejects_flags),
	KUNIT_CASE(abi_probe_rejects_resv),
	KUNIT_CASE(abi_probe_fill),
	KUNIT_CASE(abi_tenant_info_check),
	KUNIT_CASE(abi_ep_create_check),
	KUNIT_CASE(abi_ep_info_check),
	{}
};

static struct kunit_suite txrdma_abi_suite = {
	.name = "txrdma_abi",
	.test_cases = txrdma_abi_cases,
};

kunit_test_suite(txrdma_abi_suite);

MODULE_LICENSE("GPL");
