// SPDX-License-Identifier: GPL-2.0-only
/*
 * The handoff test's blobs (handoff_blob.h): made by the host a session
 * leaves, sent over TCP to the host it moves to, and kept in the run's
 * job directory for the attacks and the record.
 *
 * Why TCP and not the job directory alone: the blob travels while the
 * stream is interrupted, and through the 9p share of three TCG guests
 * on two cores a write of 85-500 KiB took 40-220 ms and the reader's
 * poll for the name and its read another 5-100 ms - more than the
 * modules' own part of a hand-off (measured, Documentation/testing.rst).
 * A process restored on another host gets its memory over the network,
 * so the test does the same: the importer connects to the exporter's
 * listener well before the hand-off and waits on the socket; the
 * exporter accepts, writes the blob and closes.
 *
 * The job directory is a 9p share of the host's directory that every
 * guest mounts without caching: a file another guest renamed into place
 * is seen by the next lookup, and with all its bytes.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "handoff_blob.h"

#define FAILED_NAME	"handoff-failed"
/* more than any blob of this test: 32 SENDs of 16 KiB and their map */
#define BLOB_MAX	(64u << 20)

static void blob_path(char *buf, size_t n, const char *dir, unsigned int k)
{
	snprintf(buf, n, "%s/handoff-blob.%u", dir, k);
}

/* units of a ring area of @rx_area bytes, 0 if it has no room for any */
static uint32_t ring_units(uint32_t rx_area)
{
	return rx_area > TXRDMA_RX_HDR_LEN ?
	       (rx_area - TXRDMA_RX_HDR_LEN) / TXRDMA_FRAME_UNIT : 0;
}

static double mono_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int write_all(int fd, const void *p, size_t len)
{
	const char *c = p;

	while (len) {
		ssize_t w = write(fd, c, len);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		c += w;
		len -= (size_t)w;
	}
	return 0;
}

int blob_pack(struct blob_hdr *h, const struct txrdma_sess_send *sends,
	      const void *area, const void *base, uint64_t size,
	      const uint8_t *done, void **bufp)
{
	uint32_t units = ring_units(h->rx_area);
	uint8_t *buf, *p;
	uint64_t i;

	if (!units ||
	    (units & (units - 1)) || h->rx_unread > units)
		return -EINVAL;
	h->rx_part = TXRDMA_RX_HDR_LEN + h->rx_unread * TXRDMA_FRAME_UNIT;
	h->payload = 0;
	for (i = 0; i < h->nsends; i++) {
		if (sends[i].off > size || sends[i].len > size - sends[i].off)
			return -EINVAL;
		h->payload += sends[i].len;
	}
	h->total = sizeof(*h) + h->nsends * sizeof(*sends) + h->rx_part +
		   h->payload + (h->count + 7) / 8;
	if (h->total > BLOB_MAX)
		return -E2BIG;
	buf = malloc(h->total);
	if (!buf)
		return -ENOMEM;
	/* copied by the CPU: the region is the module's PFN map, which a
	 * write to the 9p share could not pin (-EFAULT)
	 */
	p = buf;
	memcpy(p, h, sizeof(*h));
	p += sizeof(*h);
	memcpy(p, sends, h->nsends * sizeof(*sends));
	p += h->nsends * sizeof(*sends);
	memcpy(p, area, TXRDMA_RX_HDR_LEN);
	p += TXRDMA_RX_HDR_LEN;
	for (i = 0; i < h->rx_unread; i++) {
		uint32_t u = (h->rx_head + (uint32_t)i) & (units - 1);

		memcpy(p, (const uint8_t *)area + TXRDMA_RX_HDR_LEN +
		       (size_t)u * TXRDMA_FRAME_UNIT, TXRDMA_FRAME_UNIT);
		p += TXRDMA_FRAME_UNIT;
	}
	for (i = 0; i < h->nsends; i++) {
		memcpy(p, (const uint8_t *)base + sends[i].off, sends[i].len);
		p += sends[i].len;
	}
	memset(p, 0, (h->count + 7) / 8);
	for (i = 0; i < h->count; i++)
		if (done[i])
			p[i / 8] |= 1u << (i % 8);
	*bufp = buf;
	return 0;
}

void blob_ring(const struct blob *b, void *area)
{
	uint32_t units = ring_units(b->h.rx_area);
	const uint8_t *p = b->ring + TXRDMA_RX_HDR_LEN;
	uint32_t i;

	memcpy(area, b->ring, TXRDMA_RX_HDR_LEN);
	for (i = 0; i < b->h.rx_unread; i++, p += TXRDMA_FRAME_UNIT)
		memcpy((uint8_t *)area + TXRDMA_RX_HDR_LEN +
		       (size_t)((b->h.rx_head + i) & (units - 1)) *
		       TXRDMA_FRAME_UNIT, p, TXRDMA_FRAME_UNIT);
}

void blob_done(const struct blob *b, uint8_t *done)
{
	uint64_t i;

	for (i = 0; i < b->h.count; i++)
		done[i] = (b->done[i / 8] >> (i % 8)) & 1;
}

int blob_store(const char *dir, unsigned int k, const void *buf,
	       uint64_t len)
{
	char path[512], tmp[600];
	int fd, ret;

	blob_path(path, sizeof(path), dir, k);
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	ret = write_all(fd, buf, len);
	/*
	 * No fsync: the readers are guests of the same host, whose lookups
	 * go to the host's page cache; each write reached the host before
	 * it returned (9p without a cache).
	 */
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret)
		unlink(tmp);
	return ret;
}

/* @buf of @len bytes into @b, which owns it from here (freed if bad) */
static int blob_parse(void *buf, size_t len, unsigned int k, struct blob *b)
{
	const uint8_t *p;
	uint64_t want;
	uint32_t units;

	memset(b, 0, sizeof(*b));
	if (len < sizeof(b->h))
		goto bad;
	memcpy(&b->h, buf, sizeof(b->h));
	units = ring_units(b->h.rx_area);
	if (b->h.magic != BLOB_MAGIC || b->h.handoff != k ||
	    b->h.nsends > TXRDMA_SESS_SENDS_MAX ||
	    b->h.nsends != b->h.state.nsends || !units ||
	    (units & (units - 1)) || b->h.rx_unread > units ||
	    b->h.rx_part != TXRDMA_RX_HDR_LEN +
			    b->h.rx_unread * TXRDMA_FRAME_UNIT ||
	    b->h.count > BLOB_MAX)
		goto bad;
	want = sizeof(b->h) + (uint64_t)b->h.nsends * sizeof(*b->sends) +
	       b->h.rx_part + b->h.payload + (b->h.count + 7) / 8;
	if (want != len || want != b->h.total)
		goto bad;
	p = (const uint8_t *)buf + sizeof(b->h);
	b->sends = (const struct txrdma_sess_send *)p;
	p += b->h.nsends * sizeof(*b->sends);
	b->ring = p;
	p += b->h.rx_part;
	b->payload = p;
	p += b->h.payload;
	b->done = p;
	b->buf = buf;
	return 0;
bad:
	free(buf);
	return -EBADMSG;
}

static int read_file(const char *path, void **bufp, size_t *lenp)
{
	struct stat st;
	size_t got = 0;
	char *buf;
	int fd, ret = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		ret = -errno;
		goto out;
	}
	if ((uint64_t)st.st_size > BLOB_MAX) {
		ret = -EBADMSG;
		goto out;
	}
	buf = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!buf) {
		ret = -ENOMEM;
		goto out;
	}
	while (got < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			ret = r < 0 ? -errno : -EBADMSG;
			free(buf);
			goto out;
		}
		got += (size_t)r;
	}
	*bufp = buf;
	*lenp = got;
out:
	close(fd);
	return ret;
}

int blob_read(const char *dir, unsigned int k, struct blob *b)
{
	char path[512];
	size_t len = 0;
	void *buf = NULL;
	int ret;

	blob_path(path, sizeof(path), dir, k);
	ret = read_file(path, &buf, &len);
	if (ret)
		return ret;
	return blob_parse(buf, len, k, b);
}

void blob_free(struct blob *b)
{
	free(b->buf);
	b->buf = NULL;
}

int blob_listen(uint16_t port)
{
	struct sockaddr_in a = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
		.sin_addr.s_addr = htonl(INADDR_ANY),
	};
	int fd, one = 1;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 4)) {
		int ret = -errno;

		close(fd);
		return ret;
	}
	return fd;
}

static bool failed_seen(const char *dir, double *last)
{
	char path[512];

	/* looked for every 100 ms: a 9p lookup is not free */
	if (mono_ms() - *last < 100)
		return false;
	*last = mono_ms();
	snprintf(path, sizeof(path), "%s/" FAILED_NAME, dir);
	return !access(path, F_OK);
}

/*
 * Until @fd is readable (@events POLLIN) or the other mover gave up or
 * @timeout_s passed: 0, -ECANCELED, -ETIMEDOUT.
 */
static int wait_fd(int fd, const char *dir, unsigned int timeout_s)
{
	double end = mono_ms() + timeout_s * 1e3, failed_look = 0;
	struct pollfd p = { .fd = fd, .events = POLLIN };

	for (;;) {
		int n = poll(&p, 1, 100);

		if (n > 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return -errno;
		if (failed_seen(dir, &failed_look))
			return -ECANCELED;
		if (mono_ms() > end)
			return -ETIMEDOUT;
	}
}

int blob_connect(const char *addr, uint16_t port, const char *dir,
		 unsigned int timeout_s)
{
	double end = mono_ms() + timeout_s * 1e3, failed_look = 0;
	struct sockaddr_in a = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
	};
	int fd, one = 1;

	if (inet_pton(AF_INET, addr, &a.sin_addr) != 1)
		return -EINVAL;
	for (;;) {
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return -errno;
		if (!connect(fd, (struct sockaddr *)&a, sizeof(a)))
			break;
		close(fd);
		/* the other mover has not started listening yet */
		if (errno != ECONNREFUSED && errno != EINTR &&
		    errno != ETIMEDOUT && errno != EHOSTUNREACH)
			return -errno;
		if (failed_seen(dir, &failed_look))
			return -ECANCELED;
		if (mono_ms() > end)
			return -ETIMEDOUT;
		usleep(20000);
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

int blob_send(int lfd, const char *dir, const void *buf, uint64_t len,
	      unsigned int timeout_s)
{
	int fd, ret;

	/* the importer connected long ago: it is in the backlog */
	ret = wait_fd(lfd, dir, timeout_s);
	if (ret)
		return ret;
	fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = write_all(fd, buf, len);
	if (close(fd) && !ret)
		ret = -errno;
	return ret;
}

static int read_all(int fd, void *p, size_t len)
{
	char *c = p;

	while (len) {
		ssize_t r = read(fd, c, len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -EPIPE;
		c += r;
		len -= (size_t)r;
	}
	return 0;
}

int blob_recv(int fd, const char *dir, unsigned int k, unsigned int timeout_s,
	      struct blob *b)
{
	struct blob_hdr h;
	char *buf;
	int ret;

	ret = wait_fd(fd, dir, timeout_s);
	if (!ret)
		ret = read_all(fd, &h, sizeof(h));
	if (ret)
		return ret;
	if (h.magic != BLOB_MAGIC || h.total < sizeof(h) || h.total > BLOB_MAX)
		return -EBADMSG;
	buf = malloc(h.total);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, &h, sizeof(h));
	/* the rest follows at once: the exporter wrote it in one go */
	ret = read_all(fd, buf + sizeof(h), h.total - sizeof(h));
	if (ret) {
		free(buf);
		return ret;
	}
	return blob_parse(buf, h.total, k, b);
}

static void touch(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

	if (fd >= 0)
		close(fd);
}

void blob_fail(const char *dir)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/" FAILED_NAME, dir);
	touch(path);
}

void blob_note_refused(const char *dir, unsigned int k)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/handoff-refused.%u", dir, k);
	touch(path);
}

bool blob_refused(const char *dir, unsigned int k)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/handoff-refused.%u", dir, k);
	return !access(path, F_OK);
}
