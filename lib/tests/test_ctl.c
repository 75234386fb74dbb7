// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Host unit tests of libtxrdma's control path (open/probe/close).
 *
 * They run without the kernel module: TXRDMA_DEVICE points at files that
 * exist here, and the test binary is linked with -Wl,--wrap=ioctl so that
 * a fake kernel can answer TXRDMA_IOC_PROBE when a test asks for one.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <txrdma.h>
#include "tap.h"

/* ---- fake kernel ---------------------------------------------------- */

enum fake_mode {
	FAKE_OFF,	/* pass every ioctl to the real one */
	FAKE_OK,	/* answer PROBE like a healthy module */
	FAKE_BAD_ABI,	/* answer PROBE with an unknown ABI version */
	FAKE_EIO,	/* fail PROBE with EIO */
};

static struct {
	enum fake_mode mode;
	unsigned int calls;
	struct txrdma_probe last_in;	/* what the library sent */
	__u64 features;
	__u32 ndevs;
} fake;

int __real_ioctl(int fd, unsigned long req, ...);
int __wrap_ioctl(int fd, unsigned long req, ...);

int __wrap_ioctl(int fd, unsigned long req, ...)
{
	struct txrdma_probe *p;
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);

	if (fake.mode == FAKE_OFF)
		return __real_ioctl(fd, req, arg);

	fake.calls++;
	if (req != TXRDMA_IOC_PROBE) {
		errno = ENOTTY;
		return -1;
	}
	p = arg;
	fake.last_in = *p;
	switch (fake.mode) {
	case FAKE_EIO:
		errno = EIO;
		return -1;
	case FAKE_BAD_ABI:
		p->abi_version = TXRDMA_ABI_VERSION + 1;
		p->features = fake.features;
		return 0;
	default:
		p->abi_version = TXRDMA_ABI_VERSION;
		p->features = fake.features;
		p->ndevs = fake.ndevs;
		return 0;
	}
}

static void fake_set(enum fake_mode mode, __u64 features, __u32 ndevs)
{
	fake.mode = mode;
	fake.calls = 0;
	fake.features = features;
	fake.ndevs = ndevs;
	memset(&fake.last_in, 0xa5, sizeof(fake.last_in));
}

/* ---- helpers -------------------------------------------------------- */

static int count_fds(void)
{
	struct dirent *de;
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

static void set_device(const char *path)
{
	if (path)
		setenv(TXRDMA_DEVICE_ENV, path, 1);
	else
		unsetenv(TXRDMA_DEVICE_ENV);
}

/* open must fail with @want, leave *ctxp alone and leak no fd */
static void expect_open_fails(const char *dev, unsigned int flags, int want)
{
	struct txrdma_ctx *ctx = (struct txrdma_ctx *)&ctx;
	int before = count_fds();

	set_device(dev);
	TAP_CHECK_INT(txrdma_open(&ctx, flags), want);
	TAP_CHECK(ctx == (struct txrdma_ctx *)&ctx);
	TAP_CHECK_INT(count_fds(), before);
}

static bool probe_in_is_zero(const struct txrdma_probe *p)
{
	unsigned int i;

	if (p->flags || p->resv0)
		return false;
	for (i = 0; i < TAP_ARRAY_SIZE(p->resv); i++)
		if (p->resv[i])
			return false;
	return true;
}

/* ---- tests ---------------------------------------------------------- */

static void test_strerror(void)
{
	/* "not in a tenant" names the way in */
	TAP_CHECK(strstr(txrdma_strerror(-EPERM), "tenant exec NAME -- CMD"));
	TAP_CHECK_STR(txrdma_strerror(EPERM), txrdma_strerror(-EPERM));
	TAP_CHECK(strstr(txrdma_strerror(-EDQUOT), "quota"));
	TAP_CHECK(strstr(txrdma_strerror(-ENOTCONN), "not Up"));
	TAP_CHECK(strstr(txrdma_strerror(-ENOENT), "txrdma.ko"));
	TAP_CHECK(strstr(txrdma_strerror(-EXDEV), "txrdma_sess_export()"));
	/* no txrdma meaning: the C library's words */
	TAP_CHECK_STR(txrdma_strerror(-EBADF), "Bad file descriptor");
	TAP_CHECK_STR(txrdma_strerror(-123456), "unknown error");
	TAP_CHECK(txrdma_strerror(0) != NULL);
	TAP_CHECK(txrdma_strerror(-2147483647 - 1) != NULL);
}

static void test_version(void)
{
	const char *v = txrdma_version();
	char want[32];

	snprintf(want, sizeof(want), "%d.%d.%d", TXRDMA_LIB_VERSION_MAJOR,
		 TXRDMA_LIB_VERSION_MINOR, TXRDMA_LIB_VERSION_PATCH);
	TAP_CHECK(v && *v);
	TAP_CHECK_STR(v, want);
}

static void test_bad_flags(void)
{
	fake_set(FAKE_OK, 0, 0);
	expect_open_fails("/dev/null", 1, -EINVAL);
	expect_open_fails("/dev/null", 0x80000000u, -EINVAL);
	TAP_CHECK_INT(fake.calls, 0);	/* rejected before any ioctl */
	fake_set(FAKE_OFF, 0, 0);
}

static void test_null_ctxp(void)
{
	set_device("/dev/null");
	TAP_CHECK_INT(txrdma_open(NULL, 0), -EINVAL);
}

static void test_enoent(void)
{
	expect_open_fails("/nonexistent/txrdma", 0, -ENOENT);
}

static void test_enotty(void)
{
	fake_set(FAKE_OFF, 0, 0);
	expect_open_fails("/dev/null", 0, -ENOTTY);
}

static void test_eisdir(void)
{
	expect_open_fails("/", 0, -EISDIR);
}

static void test_default_path(void)
{
	if (access(TXRDMA_DEVICE_PATH, F_OK) == 0) {
		tap_skip(TXRDMA_DEVICE_PATH " exists on this host");
		return;
	}
	/* an empty override means "use the default" */
	expect_open_fails("", 0, -ENOENT);
	expect_open_fails(NULL, 0, -ENOENT);
}

static void test_fake_ok(void)
{
	struct txrdma_ctx *ctx = NULL;
	int before = count_fds(), fd;

	fake_set(FAKE_OK, TXRDMA_FEAT_NL_DEV | (1ULL << 40), 2);
	set_device("/dev/null");
	TAP_CHECK_INT(txrdma_open(&ctx, 0), 0);
	if (!TAP_CHECK(ctx))
		goto out;
	TAP_CHECK_INT(fake.calls, 1);
	TAP_CHECK(probe_in_is_zero(&fake.last_in));
	/* unknown feature bits pass through */
	TAP_CHECK(txrdma_features(ctx) == (TXRDMA_FEAT_NL_DEV | (1ULL << 40)));
	TAP_CHECK_INT(txrdma_abi_version(ctx), TXRDMA_ABI_VERSION);
	fd = txrdma_fd(ctx);
	TAP_CHECK(fd >= 0);
	TAP_CHECK(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	TAP_CHECK_INT(fcntl(fd, F_GETFL) & O_ACCMODE, O_RDWR);
	TAP_CHECK_INT(count_fds(), before + 1);
	txrdma_close(ctx);
	TAP_CHECK_INT(count_fds(), before);
out:
	fake_set(FAKE_OFF, 0, 0);
}

static void test_fake_bad_abi(void)
{
	fake_set(FAKE_BAD_ABI, 0, 0);
	expect_open_fails("/dev/null", 0, -EPROTO);
	TAP_CHECK_INT(fake.calls, 1);
	fake_set(FAKE_OFF, 0, 0);
}

static void test_fake_eio(void)
{
	fake_set(FAKE_EIO, 0, 0);
	expect_open_fails("/dev/null", 0, -EIO);
	fake_set(FAKE_OFF, 0, 0);
}

static void test_reprobe(void)
{
	struct txrdma_ctx *ctx = NULL;
	struct txrdma_probe out;

	fake_set(FAKE_OK, TXRDMA_FEAT_NL_DEV, 1);
	set_device("/dev/null");
	if (!TAP_CHECK_INT(txrdma_open(&ctx, 0), 0))
		goto out;

	fake_set(FAKE_OK, 0, 7);
	memset(&out, 0xff, sizeof(out));
	TAP_CHECK_INT(txrdma_probe(ctx, &out), 0);
	TAP_CHECK(probe_in_is_zero(&fake.last_in));
	TAP_CHECK_INT(out.abi_version, TXRDMA_ABI_VERSION);
	TAP_CHECK_INT(out.ndevs, 7);
	TAP_CHECK(out.features == 0);
	TAP_CHECK(txrdma_features(ctx) == 0);

	fake_set(FAKE_OK, TXRDMA_FEAT_NL_DEV, 3);
	TAP_CHECK_INT(txrdma_probe(ctx, NULL), 0);
	TAP_CHECK(txrdma_features(ctx) == TXRDMA_FEAT_NL_DEV);

	/* an ABI change under us is refused and leaves the ctx as it was */
	fake_set(FAKE_BAD_ABI, 0, 0);
	TAP_CHECK_INT(txrdma_probe(ctx, &out), -EPROTO);
	TAP_CHECK(txrdma_features(ctx) == TXRDMA_FEAT_NL_DEV);
	TAP_CHECK_INT(txrdma_abi_version(ctx), TXRDMA_ABI_VERSION);

	fake_set(FAKE_EIO, 0, 0);
	TAP_CHECK_INT(txrdma_probe(ctx, &out), -EIO);
	txrdma_close(ctx);
out:
	fake_set(FAKE_OFF, 0, 0);
}

static void test_null_ctx(void)
{
	txrdma_close(NULL);
	TAP_CHECK(txrdma_features(NULL) == 0);
	TAP_CHECK_INT(txrdma_abi_version(NULL), 0);
	TAP_CHECK_INT(txrdma_fd(NULL), -EINVAL);
	TAP_CHECK_INT(txrdma_probe(NULL, NULL), -EINVAL);
}

static void test_many_opens_no_leak(void)
{
	int before = count_fds(), i;

	fake_set(FAKE_OK, 0, 0);
	set_device("/dev/null");
	for (i = 0; i < 64; i++) {
		struct txrdma_ctx *ctx = NULL;

		if (!TAP_CHECK_INT(txrdma_open(&ctx, 0), 0))
			break;
		txrdma_close(ctx);
	}
	TAP_CHECK_INT(count_fds(), before);
	fake_set(FAKE_OFF, 0, 0);
}

static const struct tap_test tests[] = {
	TAP_TEST(test_version, "txrdma_version() is the header's version"),
	TAP_TEST(test_strerror, "txrdma_strerror(): txrdma's meaning, -EPERM names tenant exec"),
	TAP_TEST(test_bad_flags, "unknown open flags give -EINVAL before any ioctl"),
	TAP_TEST(test_null_ctxp, "open with a NULL ctxp gives -EINVAL"),
	TAP_TEST(test_enoent, "open of a missing device gives -ENOENT, no fd leak"),
	TAP_TEST(test_enotty, "open of /dev/null gives -ENOTTY, no fd leak"),
	TAP_TEST(test_eisdir, "open of a directory fails, no fd leak"),
	TAP_TEST(test_default_path, "empty or unset TXRDMA_DEVICE means /dev/txrdma"),
	TAP_TEST(test_fake_ok, "open against a fake module keeps ABI and features"),
	TAP_TEST(test_fake_bad_abi, "unknown ABI version gives -EPROTO, no fd leak"),
	TAP_TEST(test_fake_eio, "probe ioctl error is returned, no fd leak"),
	TAP_TEST(test_reprobe, "txrdma_probe() refreshes features and refuses ABI change"),
	TAP_TEST(test_null_ctx, "NULL ctx is safe for close and the getters"),
	TAP_TEST(test_many_opens_no_leak, "64 open/close cycles leak no fd"),
};

int main(void)
{
	return TAP_MAIN(tests);
}
