// SPDX-License-Identifier: GPL-2.0-only
/*
 * The handoff test's blobs (handoff_blob.h): written by the host a
 * session leaves, read by the host it moves to, through the run's job
 * directory.
 *
 * The job directory is a 9p share of the host's directory that every
 * guest mounts without caching: a file another guest renamed into place
 * is seen by the next lookup, and with all its bytes (each write went
 * to the host before rename() was sent).  Nothing in 9p tells a guest
 * that a name appeared (no inotify across guests), so the reader polls
 * the name, with a bound, as tools/vm/guestlib.sh's txrdma_wait_file
 * does; every 1 ms rather than 100 ms, because the wait is part of the
 * hand-off's interruption that the test measures.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "handoff_blob.h"

#define FAILED_NAME	"handoff-failed"

static void blob_path(char *buf, size_t n, const char *dir, unsigned int k)
{
	snprintf(buf, n, "%s/handoff-blob.%u", dir, k);
}

/*
 * Through a bounce buffer: the job directory is a 9p share whose
 * zero-copy path pins the caller's pages, which the module's region
 * mappings (PFN maps) cannot give (-EFAULT).
 */
static int write_all(int fd, const void *p, size_t len)
{
	static char bounce[64 << 10];
	const char *c = p;

	while (len) {
		size_t n = len < sizeof(bounce) ? len : sizeof(bounce);
		ssize_t w;

		memcpy(bounce, c, n);
		w = write(fd, bounce, n);
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

int blob_write(const char *dir, struct blob_hdr *h,
	       const struct txrdma_sess_send *sends, const void *area,
	       const void *base, uint64_t size, const uint8_t *done)
{
	char path[512], tmp[600];
	uint32_t i;
	int fd, ret;

	h->payload = 0;
	for (i = 0; i < h->nsends; i++) {
		if (sends[i].off > size || sends[i].len > size - sends[i].off)
			return -EINVAL;
		h->payload += sends[i].len;
	}
	h->total = sizeof(*h) + h->nsends * sizeof(*sends) + h->rx_area +
		   h->payload + h->count;
	blob_path(path, sizeof(path), dir, h->handoff);
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	ret = write_all(fd, h, sizeof(*h));
	if (!ret)
		ret = write_all(fd, sends, h->nsends * sizeof(*sends));
	if (!ret)
		ret = write_all(fd, area, h->rx_area);
	for (i = 0; !ret && i < h->nsends; i++)
		ret = write_all(fd, (const char *)base + sends[i].off,
				sends[i].len);
	if (!ret)
		ret = write_all(fd, done, h->count);
	/*
	 * No fsync: the reader is another guest of the same host, whose
	 * lookups go to the host's page cache; each write above reached
	 * the host before it returned (9p without a cache), and durability
	 * is not what the test is about.
	 */
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret)
		unlink(tmp);
	return ret;
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
	const uint8_t *p;
	size_t len = 0;
	void *buf = NULL;
	uint64_t want;
	int ret;

	blob_path(path, sizeof(path), dir, k);
	ret = read_file(path, &buf, &len);
	if (ret)
		return ret;
	memset(b, 0, sizeof(*b));
	if (len < sizeof(b->h))
		goto bad;
	memcpy(&b->h, buf, sizeof(b->h));
	if (b->h.magic != BLOB_MAGIC || b->h.handoff != k ||
	    b->h.nsends > TXRDMA_SESS_SENDS_MAX ||
	    b->h.nsends != b->h.state.nsends)
		goto bad;
	want = sizeof(b->h) + (uint64_t)b->h.nsends * sizeof(*b->sends) +
	       b->h.rx_area + b->h.payload + b->h.count;
	if (want != len || want != b->h.total)
		goto bad;
	p = (const uint8_t *)buf + sizeof(b->h);
	b->sends = (const struct txrdma_sess_send *)p;
	p += b->h.nsends * sizeof(*b->sends);
	b->area = p;
	p += b->h.rx_area;
	b->payload = p;
	p += b->h.payload;
	b->done = p;
	b->buf = buf;
	return 0;
bad:
	free(buf);
	return -EBADMSG;
}

void blob_free(struct blob *b)
{
	free(b->buf);
	b->buf = NULL;
}

static double mono_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int blob_wait(const char *dir, unsigned int k, unsigned int timeout_s)
{
	double end = mono_ms() + timeout_s * 1e3, failed_look = 0;
	char path[512], failed[512];

	blob_path(path, sizeof(path), dir, k);
	snprintf(failed, sizeof(failed), "%s/" FAILED_NAME, dir);
	for (;;) {
		if (!access(path, F_OK))
			return 0;
		/* the other mover's failure, looked for less often */
		if (mono_ms() - failed_look > 100) {
			failed_look = mono_ms();
			if (!access(failed, F_OK))
				return -ECANCELED;
		}
		if (mono_ms() > end)
			return -ETIMEDOUT;
		usleep(1000);
	}
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
