// SPDX-License-Identifier: GPL-2.0-only
/*
 * Validation of uapi structures.  The rule is the io_uring one: every
 * flag the kernel does not know and every reserved field that is not
 * zero is -EINVAL, so that a later kernel can give them a meaning
 * without an old kernel silently ignoring a request it cannot honour.
 */
#include <linux/build_bug.h>
#include <linux/errno.h>
#include <linux/stddef.h>
#include <linux/string.h>

#include "txrdma_abi.h"

/* The ABI is frozen: these sizes and offsets may never change. */
static_assert(sizeof(struct txrdma_probe) == 56);
static_assert(offsetof(struct txrdma_probe, features) == 8);
static_assert(offsetof(struct txrdma_probe, ndevs) == 16);
static_assert(offsetof(struct txrdma_probe, resv) == 24);
static_assert(sizeof(struct txrdma_tenant_info) == 56);
static_assert(offsetof(struct txrdma_tenant_info, name) == 8);
static_assert(offsetof(struct txrdma_tenant_info, resv) == 40);
static_assert(sizeof(struct txrdma_region_create) == 40);
static_assert(offsetof(struct txrdma_region_create, mmap_offset) == 16);
static_assert(sizeof(struct txrdma_region_reg_user) == 40);
static_assert(offsetof(struct txrdma_region_reg_user, resv) == 24);
static_assert(sizeof(struct txrdma_region_info) == 48);
static_assert(offsetof(struct txrdma_region_info, kind) == 24);
static_assert(sizeof(struct txrdma_ep_create) == 80);
static_assert(offsetof(struct txrdma_ep_create, id) == 36);
static_assert(offsetof(struct txrdma_ep_create, resv) == 48);
static_assert(sizeof(struct txrdma_ep_info) == 40);
static_assert(offsetof(struct txrdma_ep_info, error) == 16);
static_assert(sizeof(struct txrdma_ep_connect) == 96);
static_assert(offsetof(struct txrdma_ep_connect, grace_ms) == 80);
static_assert(offsetof(struct txrdma_ep_connect, resv1) == 88);
static_assert(sizeof(struct txrdma_ep_export) == 32);
static_assert(offsetof(struct txrdma_ep_export, off) == 16);
static_assert(offsetof(struct txrdma_ep_export, len) == 24);
static_assert(sizeof(struct txrdma_export_info) == 24);
static_assert(sizeof(struct txrdma_ep_exports) ==
	      16 + 2 * TXRDMA_EP_MAX_EXPORTS * 24);
static_assert(offsetof(struct txrdma_ep_exports, imported) == 16);
static_assert(sizeof(struct txrdma_sess_send) == 48);
static_assert(sizeof(struct txrdma_sess_state) == 160);
static_assert(offsetof(struct txrdma_sess_state, secret) == 96);
static_assert(sizeof(struct txrdma_ep_sess_export) == 192);
static_assert(offsetof(struct txrdma_ep_sess_export, state) == 32);
static_assert(sizeof(struct txrdma_ep_sess_import) == 240);
static_assert(offsetof(struct txrdma_ep_sess_import, state) == 80);

/**
 * txrdma_probe_check() - validate a TXRDMA_IOC_PROBE request
 * @in: the structure as copied from user space
 *
 * Return: 0, or -EINVAL for a non-zero flags word or reserved field.
 * Output fields (abi_version, features, ndevs) are ignored on input.
 */
int txrdma_probe_check(const struct txrdma_probe *in)
{
	unsigned int i;

	if (in->flags || in->resv0)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(in->resv); i++)
		if (in->resv[i])
			return -EINVAL;
	return 0;
}

/**
 * txrdma_probe_fill() - build the TXRDMA_IOC_PROBE answer
 * @out: structure to fill; every field is written
 * @ndevs: number of RDMA devices the module tracks
 */
void txrdma_probe_fill(struct txrdma_probe *out, u32 ndevs)
{
	memset(out, 0, sizeof(*out));
	out->abi_version = TXRDMA_ABI_VERSION;
	out->features = TXRDMA_FEAT_ALL;
	out->ndevs = ndevs;
}

/**
 * txrdma_tenant_info_check() - validate a TXRDMA_IOC_TENANT_INFO request
 * @in: the structure as copied from user space
 *
 * Return: 0, or -EINVAL for a non-zero flags word or reserved field.
 */
int txrdma_tenant_info_check(const struct txrdma_tenant_info *in)
{
	if (in->flags || in->resv[0] || in->resv[1])
		return -EINVAL;
	return 0;
}

/**
 * txrdma_ep_create_check() - validate a TXRDMA_IOC_EP_CREATE request
 * @in: the structure as copied from user space
 *
 * Return: 0, or -EINVAL for flags, a non-zero reserved or output field,
 * or a peer name that is empty or not NUL-terminated.
 */
int txrdma_ep_create_check(const struct txrdma_ep_create *in)
{
	unsigned int i;

	if (in->flags || in->id || in->qp_num || in->resv0)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(in->resv); i++)
		if (in->resv[i])
			return -EINVAL;
	if (!in->peer[0] || !memchr(in->peer, 0, sizeof(in->peer)))
		return -EINVAL;
	return 0;
}

/**
 * txrdma_ep_info_check() - validate TXRDMA_IOC_EP_INFO / _EP_DESTROY
 * @in: the structure as copied from user space
 *
 * Return: 0, or -EINVAL for flags or a non-zero reserved field (output
 * fields are ignored on input).
 */
int txrdma_ep_info_check(const struct txrdma_ep_info *in)
{
	if (in->flags || in->resv0 || in->resv[0] || in->resv[1])
		return -EINVAL;
	return 0;
}
