// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Host tests of libtxrdma's tenant and region calls.  There is no
 * txrdma module on the host: the "device" is a sparse memfd (so mmap at
 * the kernel's region offsets works) and ioctl is wrapped
 * (-Wl,--wrap=ioctl) to play the kernel's part and record what the
 * library asked.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "txrdma.h"

/* a flat sequence of checks: plain TAP lines */
static int tap_n, tap_failed;

static void tap_plan(int n)
{
	printf("TAP version 13\n1..%d\n", n);
}

static void tap_ok(int pass, const char *desc)
{
	tap_n++;
	if (!pass)
		tap_failed++;
	printf("%sok %d - %s\n", pass ? "" : "not ", tap_n, desc);
}

static void tap_bail(const char *why)
{
	printf("Bail out! %s\n", why);
	exit(1);
}

static int tap_done(void)
{
	return tap_failed ? 1 : 0;
}

static struct {
	int create_err, reg_err, info_err, destroy_err, tenant_err;
	__u64 mmap_offset;
	__u32 next_id, info_kind;
	unsigned int creates, destroys, regs;
	__u32 last_destroy;
	struct txrdma_region_create last_create;
	struct txrdma_region_reg_user last_reg;
} k;

int __wrap_ioctl(int fd, unsigned long req, ...);

int __wrap_ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;

	(void)fd;
	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);

	if (req == TXRDMA_IOC_PROBE) {
		struct txrdma_probe *p = arg;

		p->abi_version = TXRDMA_ABI_VERSION;
		p->features = TXRDMA_FEAT_ALL;
		return 0;
	}
	if (req == TXRDMA_IOC_REGION_CREATE) {
		struct txrdma_region_create *rc = arg;

		k.creates++;
		k.last_create = *rc;
		if (k.create_err) {
			errno = k.create_err;
			return -1;
		}
		rc->id = k.next_id;
		rc->mmap_offset = k.mmap_offset;
		return 0;
	}
	if (req == TXRDMA_IOC_REGION_REG_USER) {
		struct txrdma_region_reg_user *ru = arg;

		k.regs++;
		k.last_reg = *ru;
		if (k.reg_err) {
			errno = k.reg_err;
			return -1;
		}
		ru->id = k.next_id;
		return 0;
	}
	if (req == TXRDMA_IOC_REGION_INFO) {
		struct txrdma_region_info *ri = arg;

		if (k.info_err) {
			errno = k.info_err;
			return -1;
		}
		ri->size = 2 << 20;
		ri->kind = k.info_kind;
		ri->mmap_offset = k.mmap_offset;
		return 0;
	}
	if (req == TXRDMA_IOC_REGION_DESTROY) {
		struct txrdma_region_info *ri = arg;

		k.destroys++;
		k.last_destroy = ri->id;
		if (ri->flags || ri->resv[0] || ri->resv[1]) {
			errno = EINVAL;
			return -1;
		}
		if (k.destroy_err) {
			errno = k.destroy_err;
			return -1;
		}
		return 0;
	}
	if (req == TXRDMA_IOC_TENANT_INFO) {
		struct txrdma_tenant_info *ti = arg;

		if (k.tenant_err) {
			errno = k.tenant_err;
			return -1;
		}
		ti->id = 7;
		strcpy((char *)ti->name, "db-a");
		return 0;
	}
	errno = ENOTTY;
	return -1;
}

static void reset(void)
{
	memset(&k, 0, sizeof(k));
	k.next_id = 1;
	k.mmap_offset = 1ULL << 40;
	k.info_kind = TXRDMA_REGION_KIND_POOL;
}

static int mapped(void *addr, size_t len)
{
	return msync(addr, len, MS_ASYNC) == 0;
}

int main(void)
{
	struct txrdma_region r, r2;
	struct txrdma_ctx *ctx;
	char path[64], name[32];
	__u32 id = 0;
	int fd, ret;

	tap_plan(21);
	fd = memfd_create("txrdma-fake", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, (1LL << 41)) ||
	    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd) < 0 ||
	    setenv("TXRDMA_DEVICE", path, 1)) {
		tap_bail("cannot make the fake device");
	}
	reset();
	tap_ok(txrdma_open(&ctx, 0) == 0, "open the fake device");

	/* create: maps at the kernel's offset, memory usable */
	ret = txrdma_region_create(ctx, 2 << 20, TXRDMA_REGION_F_SMALL_PAGES, &r);
	tap_ok(ret == 0 && r.id == 1 && r.size == (2 << 20) && r.addr &&
	       r.kind == TXRDMA_REGION_KIND_POOL, "create fills the region");
	tap_ok(k.last_create.size == (2 << 20) &&
	       k.last_create.flags == TXRDMA_REGION_F_SMALL_PAGES &&
	       !k.last_create.resv[0] && !k.last_create.resv[1],
	       "create sends size and flags, reserved fields zero");
	memset(r.addr, 0xab, r.size);
	tap_ok(((unsigned char *)r.addr)[r.size - 1] == 0xab,
	       "the mapping is writable to its end");

	/* destroy: ioctl with the id, and the mapping goes */
	{
		void *a = r.addr;
		size_t len = r.size;

		ret = txrdma_region_destroy(ctx, &r);
		tap_ok(ret == 0 && k.destroys == 1 && k.last_destroy == 1,
		       "destroy asks the kernel with the id");
		tap_ok(!mapped(a, len), "destroy unmaps");
		tap_ok(r.id == 0 && r.addr == NULL, "destroy clears the region");
	}
	tap_ok(txrdma_region_destroy(ctx, &r) == -EINVAL,
	       "destroy of a cleared region is -EINVAL");

	/* a kernel refusal is returned as is, nothing to undo */
	reset();
	k.create_err = EDQUOT;
	tap_ok(txrdma_region_create(ctx, 2 << 20, 0, &r) == -EDQUOT &&
	       k.destroys == 0, "create: kernel's -EDQUOT returned");
	reset();
	k.create_err = EPERM;
	tap_ok(txrdma_region_create(ctx, 2 << 20, 0, &r) == -EPERM,
	       "create: kernel's -EPERM returned");

	/* the mapping fails: the region is destroyed again */
	reset();
	k.mmap_offset = (1ULL << 40) + 1;	/* not page-aligned */
	k.next_id = 9;
	tap_ok(txrdma_region_create(ctx, 2 << 20, 0, &r) == -EINVAL &&
	       k.destroys == 1 && k.last_destroy == 9,
	       "create: a failed mmap destroys the new region");

	/* register: passes the caller's memory, keeps its address */
	reset();
	{
		void *buf = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		k.next_id = 3;
		ret = txrdma_region_register(ctx, buf, 1 << 20, &r);
		tap_ok(ret == 0 && r.id == 3 && r.addr == buf &&
		       r.kind == TXRDMA_REGION_KIND_USER &&
		       k.last_reg.addr == (__u64)(uintptr_t)buf &&
		       k.last_reg.size == (1 << 20) && !k.last_reg.flags,
		       "register sends address and size");
		tap_ok(txrdma_region_destroy(ctx, &r) == 0 && mapped(buf, 1 << 20),
		       "destroying a user region leaves the caller's memory mapped");
		k.reg_err = EFAULT;
		tap_ok(txrdma_region_register(ctx, buf, 1 << 20, &r) == -EFAULT,
		       "register: kernel's -EFAULT returned");
		munmap(buf, 1 << 20);
	}

	/* open: maps a region by id; user regions are not mappable */
	reset();
	ret = txrdma_region_open(ctx, 5, &r2);
	tap_ok(ret == 0 && r2.id == 5 && r2.size == (2 << 20) && r2.addr,
	       "open maps a pool region by id");
	txrdma_region_close(&r2);
	tap_ok(r2.addr == NULL && k.destroys == 0,
	       "close unmaps without destroying");
	k.info_kind = TXRDMA_REGION_KIND_USER;
	tap_ok(txrdma_region_open(ctx, 5, &r2) == -EINVAL,
	       "open of a user region is -EINVAL");
	k.info_err = EACCES;
	tap_ok(txrdma_region_open(ctx, 5, &r2) == -EACCES,
	       "open: kernel's -EACCES returned");

	/* tenant */
	reset();
	tap_ok(txrdma_tenant(ctx, &id, name) == 0 && id == 7 &&
	       !strcmp(name, "db-a"), "tenant: id and name");
	k.tenant_err = EPERM;
	tap_ok(txrdma_tenant(ctx, &id, NULL) == -EPERM,
	       "tenant: -EPERM outside every tenant");

	/* NULL arguments */
	tap_ok(txrdma_region_create(NULL, 2 << 20, 0, &r) == -EINVAL &&
	       txrdma_region_create(ctx, 2 << 20, 0, NULL) == -EINVAL &&
	       txrdma_region_register(ctx, NULL, 0, NULL) == -EINVAL &&
	       txrdma_region_open(NULL, 1, &r) == -EINVAL &&
	       txrdma_tenant(NULL, NULL, NULL) == -EINVAL,
	       "NULL arguments are -EINVAL");
	txrdma_region_close(NULL);
	txrdma_close(ctx);
	close(fd);
	return tap_done();
}
