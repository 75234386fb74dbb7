// SPDX-License-Identifier: GPL-2.0-only
/* Helpers of the adversarial selftests; see attack_util.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "attack_util.h"

/* ---- TAP ------------------------------------------------------------- */

static unsigned int tap_n, tap_failed;

bool tap_ok(bool good, const char *fmt, ...)
{
	va_list ap;

	tap_n++;
	if (!good)
		tap_failed++;
	printf("%s %u - ", good ? "ok" : "not ok", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	return good;
}

void tap_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

void tap_bail(const char *fmt, ...)
{
	va_list ap;

	tap_n++;
	tap_failed++;
	printf("not ok %u - ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n1..%u\n", tap_n);
	fflush(stdout);
	exit(1);
}

int tap_done(void)
{
	printf("1..%u\n", tap_n);
	fflush(stdout);
	return tap_failed ? 1 : 0;
}

/* ---- time ---------------------------------------------------------------- */

double at_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void at_msleep(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* ---- the caller's tenant ------------------------------------------------ */

int at_ioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

int at_tenant_name(char *name, size_t len)
{
	struct txrdma_tenant_info ti = { 0 };
	int fd, ret;

	fd = open("/dev/" TXRDMA_DEVICE_NAME, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = at_ioctl(fd, TXRDMA_IOC_TENANT_INFO, &ti);
	close(fd);
	if (!ret)
		snprintf(name, len, "%.*s", (int)sizeof(ti.name),
			 (const char *)ti.name);
	return ret;
}

void at_require_tenant(const char *want)
{
	char name[TXRDMA_TENANT_NAME_MAX];
	int ret = at_tenant_name(name, sizeof(name));

	if (ret)
		tap_bail("this process is in tenant %s: TENANT_INFO says %s (run it through its guest script)",
			 want, strerror(-ret));
	if (strcmp(name, want))
		tap_bail("this process is in tenant %s, not %s", name, want);
}

/* ---- raw files ---------------------------------------------------------- */

int at_file_open(struct at_file *f, unsigned int sq, uint64_t region_size,
		 bool map)
{
	struct txrdma_region_create rc = { .size = region_size };
	int ret;

	memset(f, 0, sizeof(*f));
	f->fd = open("/dev/" TXRDMA_DEVICE_NAME, O_RDWR | O_CLOEXEC);
	if (f->fd < 0)
		return -errno;
	f->rs.sq_entries = sq;
	ret = at_ioctl(f->fd, TXRDMA_IOC_RING_SETUP, &f->rs);
	if (ret)
		goto fail;
	if (map) {
		f->ring = mmap(NULL, f->rs.mmap_len, PROT_READ | PROT_WRITE,
			       MAP_SHARED, f->fd, f->rs.mmap_offset);
		if (f->ring == MAP_FAILED) {
			f->ring = NULL;
			ret = -errno;
			goto fail;
		}
	}
	if (!region_size)
		return 0;
	ret = at_ioctl(f->fd, TXRDMA_IOC_REGION_CREATE, &rc);
	if (ret)
		goto fail;
	f->region = rc.id;
	f->region_off = rc.mmap_offset;
	f->region_size = region_size;
	if (map) {
		f->region_addr = mmap(NULL, region_size, PROT_READ | PROT_WRITE,
				      MAP_SHARED, f->fd, rc.mmap_offset);
		if (f->region_addr == MAP_FAILED) {
			f->region_addr = NULL;
			ret = -errno;
			goto fail;
		}
	}
	return 0;
fail:
	at_file_close(f);
	return ret;
}

void at_file_close(struct at_file *f)
{
	if (f->region_addr)
		munmap(f->region_addr, f->region_size);
	if (f->ring)
		munmap(f->ring, f->rs.mmap_len);
	if (f->fd >= 0)
		close(f->fd);
	memset(f, 0, sizeof(*f));
	f->fd = -1;
}

int at_listen(int fd, uint32_t service)
{
	struct txrdma_ep_listen l = { .service = service };

	return at_ioctl(fd, TXRDMA_IOC_EP_LISTEN, &l);
}

int at_pair(int fd, const char *peer, uint32_t service, uint32_t region,
	    uint32_t units, uint64_t off, uint32_t timeout_ms,
	    struct txrdma_ep_connect *out)
{
	struct txrdma_ep_connect c = {
		.service = service, .rx_region = region, .rx_units = units,
		.rx_off = off, .timeout_ms = timeout_ms,
	};
	int ret;

	if (peer)
		snprintf((char *)c.peer, sizeof(c.peer), "%s", peer);
	ret = at_ioctl(fd, peer ? TXRDMA_IOC_EP_CONNECT : TXRDMA_IOC_EP_ACCEPT,
		       &c);
	if (!ret && out)
		*out = c;
	return ret;
}

int at_ep_destroy(int fd, uint32_t id)
{
	struct txrdma_ep_info i = { .id = id };

	return at_ioctl(fd, TXRDMA_IOC_EP_DESTROY, &i);
}

int at_ep_info(int fd, uint32_t id, struct txrdma_ep_info *info)
{
	memset(info, 0, sizeof(*info));
	info->id = id;
	return at_ioctl(fd, TXRDMA_IOC_EP_INFO, info);
}

/* ---- a libtxrdma side --------------------------------------------------- */

int at_side_open(struct at_side *s, unsigned int sq_entries, uint32_t units)
{
	int ret;

	memset(s, 0, sizeof(*s));
	s->units = units;
	ret = txrdma_open(&s->ctx, 0);
	if (ret) {
		tap_diag("txrdma_open: %s", strerror(-ret));
		return ret;
	}
	ret = txrdma_rings_setup(s->ctx, sq_entries, 0, &s->sq, &s->cq);
	if (ret) {
		tap_diag("txrdma_rings_setup: %s", strerror(-ret));
		goto fail;
	}
	ret = txrdma_region_create(s->ctx, 2 * TXRDMA_REGION_HUGE_SIZE, 0,
				   &s->reg);
	if (ret) {
		tap_diag("txrdma_region_create: %s", strerror(-ret));
		goto fail;
	}
	return 0;
fail:
	txrdma_close(s->ctx);
	s->ctx = NULL;
	return ret;
}

void at_side_close(struct at_side *s)
{
	if (!s->ctx)
		return;
	at_side_unpair(s);
	if (s->reg.id)
		txrdma_region_destroy(s->ctx, &s->reg);
	txrdma_close(s->ctx);
	s->ctx = NULL;
}

static struct txrdma_ep_params at_side_params(const struct at_side *s,
					      uint32_t service,
					      uint32_t timeout_ms)
{
	return (struct txrdma_ep_params){
		.service = service, .rx_region = s->reg.id,
		.rx_units = s->units, .rx_off = 0, .timeout_ms = timeout_ms,
	};
}

static int at_side_paired(struct at_side *s)
{
	s->paired = true;
	return txrdma_rx_init(&s->rx, s->ctx, &s->sq, s->reg.addr, s->units);
}

int at_side_connect(struct at_side *s, const char *peer, uint32_t service,
		    uint32_t timeout_ms, double retry_s)
{
	struct txrdma_ep_params p = at_side_params(s, service, timeout_ms);
	double end = at_now() + retry_s;
	int ret;

	for (;;) {
		ret = txrdma_ep_connect(s->ctx, peer, &p, &s->ep);
		if (!ret)
			return at_side_paired(s);
		if ((ret != -ECONNREFUSED && ret != -EAGAIN &&
		     ret != -ETIMEDOUT && ret != -EBUSY) || at_now() > end)
			return ret;
		at_msleep(20);
	}
}

int at_side_accept(struct at_side *s, uint32_t service, uint32_t timeout_ms)
{
	struct txrdma_ep_params p = at_side_params(s, service, timeout_ms);
	int ret = txrdma_ep_accept(s->ctx, &p, &s->ep);

	return ret ? ret : at_side_paired(s);
}

int at_side_unpair(struct at_side *s)
{
	if (!s->paired)
		return 0;
	s->paired = false;
	return txrdma_ep_destroy(s->ctx, s->ep.id);
}

int at_side_send(struct at_side *s, uint64_t off, uint32_t len,
		 uint64_t user_data)
{
	struct txrdma_sqe *sqe = txrdma_get_sqe(&s->sq);
	int ret;

	if (!sqe)
		return -EBUSY;
	txrdma_prep_send(sqe, s->ep.id, s->reg.id, off, len, user_data);
	ret = txrdma_submit(s->ctx, &s->sq);
	return ret < 0 ? ret : 0;
}

void at_side_idle(struct at_side *s)
{
	struct pollfd pfd = { .fd = txrdma_fd(s->ctx), .events = POLLIN };

	if (txrdma_sq_needs_wakeup(&s->sq))
		txrdma_rings_enter(s->ctx);
	poll(&pfd, 1, 1);
}

int at_side_cqe(struct at_side *s, struct txrdma_cqe *out, double secs)
{
	double end = at_now() + secs;
	struct txrdma_cqe *c;

	for (;;) {
		c = txrdma_peek_cqe(&s->cq);
		if (c) {
			*out = *c;
			txrdma_cq_advance(&s->cq, 1);
			return 1;
		}
		if (at_now() > end)
			return 0;
		at_side_idle(s);
	}
}

int at_side_recv(struct at_side *s, const uint8_t **p, uint32_t *len,
		 double secs)
{
	double end = at_now() + secs;
	int ret;

	for (;;) {
		ret = txrdma_rx_peek(&s->rx, (const void **)p, len);
		if (ret)
			return ret;
		if (at_now() > end)
			return 0;
		at_side_idle(s);
	}
}
