// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Host tests of libtxrdma's session hand-off calls (txrdma_sess_export,
 * txrdma_sess_import).  No kernel module: the context is opened on
 * /dev/null and the binary is linked with -Wl,--wrap=ioctl so that a
 * fake kernel answers, records what the library sent and can fail.
 * What the kernel does with a state (freeze, token, resume) is the
 * handoff suite's (run_vm_tests.py handoff); here: that the library
 * sends exactly what it was given, refuses what it must before the
 * system call, and never hands back more than the caller has room for.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <txrdma.h>
#include "fake_dev.h"
#include "tap.h"

#define SENTINEL	FAKE_SENTINEL

/* ---- fake kernel ---------------------------------------------------- */

static struct {
	unsigned int calls;		/* hand-off ioctls seen */
	int err;			/* fail them with this errno */
	unsigned long last_req;
	struct txrdma_ep_sess_export exp;	/* as the library sent it */
	struct txrdma_ep_sess_import imp;	/* as the library sent it */
	struct txrdma_sess_state state;	/* EXPORT's answer */
	__u32 nsends;			/* entries EXPORT writes */
	__u32 report_nsends;		/* and says it wrote (may lie) */
	struct txrdma_sess_send import_sends[TXRDMA_SESS_SENDS_MAX];
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

	if (fake_probe(req, arg))
		return 0;
	if (req != TXRDMA_IOC_EP_SESS_EXPORT &&
	    req != TXRDMA_IOC_EP_SESS_IMPORT) {
		errno = ENOTTY;
		return -1;
	}
	k.calls++;
	k.last_req = req;
	if (req == TXRDMA_IOC_EP_SESS_EXPORT) {
		struct txrdma_ep_sess_export *e = arg;
		struct txrdma_sess_send *s =
			(struct txrdma_sess_send *)(uintptr_t)e->sends;
		__u32 i;

		k.exp = *e;
		if (k.err) {
			/* a failed ioctl may have scribbled on its struct */
			memset(e, 0xee, sizeof(*e));
			errno = k.err;
			return -1;
		}
		for (i = 0; i < k.nsends && i < e->max_sends; i++)
			s[i] = (struct txrdma_sess_send){
				.user_data = 1000 + i, .off = 64 * i,
				.region = 7, .len = 100 + i, .seq = 50 + i,
				.start = 4 * i, .unit = 4 * i, .units = 3,
			};
		e->state = k.state;
		e->state.nsends = k.report_nsends;
		return 0;
	}
	k.imp = *(struct txrdma_ep_sess_import *)arg;
	if (k.imp.sends && k.imp.state.nsends <= TXRDMA_SESS_SENDS_MAX)
		memcpy(k.import_sends,
		       (const void *)(uintptr_t)k.imp.sends,
		       k.imp.state.nsends * sizeof(k.import_sends[0]));
	if (k.err) {
		memset(arg, 0xee, sizeof(struct txrdma_ep_sess_import));
		errno = k.err;
		return -1;
	}
	((struct txrdma_ep_sess_import *)arg)->id = 33;
	((struct txrdma_ep_sess_import *)arg)->qp_num = 0x4321;
	return 0;
}

/* a state as a module might export it: every field its own value */
static void make_state(struct txrdma_sess_state *s, __u32 nsends)
{
	unsigned int i;

	memset(s, 0, sizeof(*s));
	s->version = TXRDMA_SESS_STATE_VERSION;
	s->flags = TXRDMA_EP_F_SESSION | TXRDMA_EP_F_DATA_CRC;
	s->ep = 11;
	s->peer_ep = 22;
	s->epoch = 0x01020304;
	s->ho_gen = 3;
	s->grace_ms = 4000;
	s->service = 7460;
	s->rx_units = 1024;
	s->rx_max_msg = 2000;
	s->rx_seq = 5;
	s->rx_tail = 6;
	s->rx_consumed = 7;
	s->rx_reported = 8;
	s->rx_gen = 2;
	s->peer_units = 16384;
	s->peer_max_msg = 65504;
	s->peer_ahead_max = 9;
	s->peer_rx_gen = 1;
	s->tx_seq = 12345;
	s->tx_head = 0xfffffff0u;
	s->tx_released = 0xffffff00u;
	s->nsends = nsends;
	for (i = 0; i < sizeof(s->secret); i++)
		s->secret[i] = (__u8)(0x80 + i);
}

static void reset(void)
{
	memset(&k, 0, sizeof(k));
	make_state(&k.state, 0);
}

static bool untouched(const void *p, size_t len)
{
	return bytes_are(p, len, SENTINEL);
}

static bool all_zero(const void *p, size_t len)
{
	return bytes_are(p, len, 0);
}

/* ---- export --------------------------------------------------------- */

/*
 * The request: ep, timeout, the caller's array and its size, flags and
 * reserved 0, the state's bytes 0 (it is out only); the answer: the
 * kernel's state copied whole, the SENDs where the kernel wrote them.
 */
static void test_export(void)
{
	struct txrdma_ctx *ctx = fake_ctx();
	struct txrdma_sess_send sends[TXRDMA_SESS_SENDS_MAX];
	struct txrdma_sess_send *big;
	struct txrdma_sess_state st;

	reset();
	make_state(&k.state, 0);
	k.nsends = k.report_nsends = 3;
	memset(&st, SENTINEL, sizeof(st));
	memset(sends, SENTINEL, sizeof(sends));
	TAP_CHECK_INT(txrdma_sess_export(ctx, 11, 250, &st, sends,
					 TXRDMA_SESS_SENDS_MAX), 0);
	TAP_CHECK_INT(k.calls, 1);
	TAP_CHECK(k.last_req == TXRDMA_IOC_EP_SESS_EXPORT);
	TAP_CHECK_INT(k.exp.ep, 11);
	TAP_CHECK_INT(k.exp.timeout_ms, 250);
	TAP_CHECK_INT(k.exp.max_sends, TXRDMA_SESS_SENDS_MAX);
	TAP_CHECK(k.exp.sends == (__u64)(uintptr_t)sends);
	TAP_CHECK(!k.exp.flags && !k.exp.resv);
	TAP_CHECK(all_zero(&k.exp.state, sizeof(k.exp.state)));
	/* the state as the kernel gave it, every byte */
	k.state.nsends = 3;
	TAP_CHECK(!memcmp(&st, &k.state, sizeof(st)));
	TAP_CHECK_INT(st.nsends, 3);
	TAP_CHECK_INT(sends[0].user_data, 1000);
	TAP_CHECK_INT(sends[2].len, 102);
	/* the library itself wrote nothing past what the kernel did */
	TAP_CHECK(untouched(&sends[3], sizeof(sends) - 3 * sizeof(sends[0])));

	/* none unsettled; timeout 0 is the kernel's default */
	reset();
	memset(&st, SENTINEL, sizeof(st));
	TAP_CHECK_INT(txrdma_sess_export(ctx, 4, 0, &st, sends,
					 TXRDMA_SESS_SENDS_MAX), 0);
	TAP_CHECK(!k.exp.timeout_ms);
	TAP_CHECK_INT(st.nsends, 0);
	TAP_CHECK_INT(st.rx_units, 1024);

	/* an array longer than a session's slots: only the slots offered */
	reset();
	k.nsends = k.report_nsends = TXRDMA_SESS_SENDS_MAX;
	big = calloc(1000, sizeof(*big));
	if (!TAP_CHECK(big))
		return;
	TAP_CHECK_INT(txrdma_sess_export(ctx, 4, 0, &st, big, 1000), 0);
	TAP_CHECK_INT(k.exp.max_sends, TXRDMA_SESS_SENDS_MAX);
	TAP_CHECK_INT(st.nsends, TXRDMA_SESS_SENDS_MAX);
	TAP_CHECK_INT(big[TXRDMA_SESS_SENDS_MAX - 1].user_data,
		      1000 + TXRDMA_SESS_SENDS_MAX - 1);
	TAP_CHECK(all_zero(&big[TXRDMA_SESS_SENDS_MAX],
			   (1000 - TXRDMA_SESS_SENDS_MAX) * sizeof(*big)));
	free(big);
}

/* refused before the ioctl: @state and @sends untouched, no call */
static void test_export_bad_args(void)
{
	struct txrdma_ctx *ctx = fake_ctx();
	struct txrdma_sess_send sends[TXRDMA_SESS_SENDS_MAX];
	struct txrdma_sess_state st;
	const __u32 max = TXRDMA_SESS_SENDS_MAX;

	reset();
	memset(&st, SENTINEL, sizeof(st));
	memset(sends, SENTINEL, sizeof(sends));
	TAP_CHECK_INT(txrdma_sess_export(NULL, 1, 0, &st, sends, max), -EINVAL);
	TAP_CHECK_INT(txrdma_sess_export(ctx, 1, 0, NULL, sends, max), -EINVAL);
	TAP_CHECK_INT(txrdma_sess_export(ctx, 1, 0, &st, NULL, max), -EINVAL);
	TAP_CHECK_INT(txrdma_sess_export(ctx, 1, 0, &st, NULL, 0), -EINVAL);
	/* room for fewer than a session may have: never enough for sure */
	TAP_CHECK_INT(txrdma_sess_export(ctx, 1, 0, &st, sends, 0), -EINVAL);
	TAP_CHECK_INT(txrdma_sess_export(ctx, 1, 0, &st, sends, max - 1),
		      -EINVAL);
	TAP_CHECK_INT(k.calls, 0);
	TAP_CHECK(untouched(&st, sizeof(st)));
	TAP_CHECK(untouched(sends, sizeof(sends)));
}

/*
 * The kernel's errors returned once, @state untouched; a kernel that
 * says it wrote more SENDs than the array holds is not believed
 * (-EPROTO, @state untouched).
 */
static void test_export_errors(void)
{
	static const int errs[] = {
		EBUSY, EINVAL, ENOENT, ENOTTY, EINTR, ETIMEDOUT, EFAULT,
	};
	struct txrdma_ctx *ctx = fake_ctx();
	struct txrdma_sess_send sends[TXRDMA_SESS_SENDS_MAX];
	const __u32 max = TXRDMA_SESS_SENDS_MAX;
	struct txrdma_sess_state st;
	unsigned int i;

	for (i = 0; i < TAP_ARRAY_SIZE(errs); i++) {
		reset();
		k.err = errs[i];
		memset(&st, SENTINEL, sizeof(st));
		if (!TAP_CHECK_INT(txrdma_sess_export(ctx, 3, 0, &st, sends,
						      max), -errs[i]) ||
		    !TAP_CHECK_INT(k.calls, 1) ||
		    !TAP_CHECK(untouched(&st, sizeof(st))))
			tap_diag("  errno %d", errs[i]);
	}
	/* counts past the array: 65 of 64, 2^32-1 */
	reset();
	k.nsends = max;
	k.report_nsends = max + 1;
	memset(&st, SENTINEL, sizeof(st));
	TAP_CHECK_INT(txrdma_sess_export(ctx, 3, 0, &st, sends, max), -EPROTO);
	TAP_CHECK(untouched(&st, sizeof(st)));
	reset();
	k.report_nsends = 0xffffffffu;
	TAP_CHECK_INT(txrdma_sess_export(ctx, 3, 0, &st, sends, max), -EPROTO);
	TAP_CHECK(untouched(&st, sizeof(st)));
	TAP_CHECK_INT(k.calls, 1);
}

/* ---- import --------------------------------------------------------- */

static void make_sends(struct txrdma_sess_send *s, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		s[i] = (struct txrdma_sess_send){
			.user_data = 500 + i, .off = (1u << 20) + 16384 * i,
			.region = 9, .len = 1 + i, .seq = 40 + i,
			.start = 300 * i, .unit = 300 * i, .units = 1,
		};
}

/*
 * The request: the peer NUL-padded, ring, array, timeout, the state
 * copied byte for byte (the kernel judges it, secret included), flags
 * and reserved fields 0, outputs 0.  The answer: the kernel's id and
 * QP, and the rest of the pair from the state and the arguments, as
 * txrdma_ep_connect() describes a pair.  The caller's state and SENDs
 * are const and stay so.
 */
static void test_import(void)
{
	struct txrdma_ctx *ctx = fake_ctx();
	struct txrdma_sess_send sends[3], sends0[3];
	struct txrdma_sess_state st, st0;
	struct txrdma_ep_pair out;

	reset();
	make_state(&st, 3);
	make_sends(sends, 3);
	st0 = st;
	memcpy(sends0, sends, sizeof(sends));
	memset(&out, SENTINEL, sizeof(out));
	memset(&k.imp, 0xa5, sizeof(k.imp));
	TAP_CHECK_INT(txrdma_sess_import(ctx, "g1", &st, sends, 4, 0x40, 700,
					 &out), 0);
	TAP_CHECK_INT(k.calls, 1);
	TAP_CHECK(k.last_req == TXRDMA_IOC_EP_SESS_IMPORT);
	TAP_CHECK(!memcmp(k.imp.peer, "g1", 3));
	TAP_CHECK(all_zero(k.imp.peer + 2, sizeof(k.imp.peer) - 2));
	TAP_CHECK_INT(k.imp.rx_region, 4);
	TAP_CHECK_INT(k.imp.rx_off, 0x40);
	TAP_CHECK(k.imp.sends == (__u64)(uintptr_t)sends);
	TAP_CHECK_INT(k.imp.timeout_ms, 700);
	TAP_CHECK(!k.imp.flags && !k.imp.id && !k.imp.qp_num &&
		  !k.imp.resv0 && !k.imp.resv1);
	TAP_CHECK(!memcmp(&k.imp.state, &st, sizeof(st)));
	TAP_CHECK(!memcmp(k.import_sends, sends, sizeof(sends)));
	/* const in, const after */
	TAP_CHECK(!memcmp(&st, &st0, sizeof(st)));
	TAP_CHECK(!memcmp(sends, sends0, sizeof(sends)));
	/* the pair */
	TAP_CHECK_INT(out.id, 33);
	TAP_CHECK_INT(out.qp_num, 0x4321);
	TAP_CHECK_INT(out.peer_ep, 22);
	TAP_CHECK_INT(out.max_msg, 65504);
	TAP_CHECK_INT(out.service, 7460);
	TAP_CHECK_INT(out.flags, TXRDMA_EP_F_SESSION | TXRDMA_EP_F_DATA_CRC);
	TAP_CHECK_INT(out.rx_region, 4);
	TAP_CHECK_INT(out.rx_units, 1024);
	TAP_CHECK_INT(out.rx_off, 0x40);
	TAP_CHECK_INT(out.rx_max_msg, 2000);
	TAP_CHECK_INT(out.grace_ms, 4000);
	TAP_CHECK_STR(out.peer, "g1");
	TAP_CHECK(all_zero(out.peer + 2, sizeof(out.peer) - 2));

	/* none unsettled: no array; a name of 31 characters fits */
	reset();
	make_state(&st, 0);
	TAP_CHECK_INT(txrdma_sess_import(ctx, "abcdefghijklmnopqrstuvwxyz01234",
					 &st, NULL, 4, 0, 0, &out), 0);
	TAP_CHECK(!k.imp.sends && !k.imp.timeout_ms && !k.imp.rx_off);
	TAP_CHECK(!memcmp(k.imp.peer, "abcdefghijklmnopqrstuvwxyz01234", 32));
	TAP_CHECK_STR(out.peer, "abcdefghijklmnopqrstuvwxyz01234");
	/* an array given with none unsettled is passed on, not looked at */
	TAP_CHECK_INT(txrdma_sess_import(ctx, "g1", &st, sends, 4, 0, 0, &out),
		      0);
	/* the ring's extremes; all of a session's SENDs */
	reset();
	{
		struct txrdma_sess_send all[TXRDMA_SESS_SENDS_MAX];

		make_state(&st, TXRDMA_SESS_SENDS_MAX);
		make_sends(all, TXRDMA_SESS_SENDS_MAX);
		st.rx_units = TXRDMA_RX_MIN_UNITS;
		TAP_CHECK_INT(txrdma_sess_import(ctx, "g1", &st, all, 4, 0, 0,
						 &out), 0);
		TAP_CHECK_INT(out.rx_units, TXRDMA_RX_MIN_UNITS);
		TAP_CHECK(!memcmp(k.import_sends, all, sizeof(all)));
		st.rx_units = TXRDMA_RX_MAX_UNITS;
		TAP_CHECK_INT(txrdma_sess_import(ctx, "g1", &st, all, 4, 0, 0,
						 &out), 0);
		TAP_CHECK_INT(out.rx_units, TXRDMA_RX_MAX_UNITS);
	}
	TAP_CHECK_INT(k.calls, 2);
}

/* refused before any system call, @out untouched */
static void import_bad(const char *peer, const struct txrdma_sess_state *st,
		       const struct txrdma_sess_send *sends, __u64 rx_off,
		       int want, const char *what)
{
	struct txrdma_ep_pair out;
	int ret;

	reset();
	memset(&out, SENTINEL, sizeof(out));
	ret = txrdma_sess_import(fake_ctx(), peer, st, sends, 4, rx_off, 0,
				 &out);
	if (!TAP_CHECK_INT(ret, want) || !TAP_CHECK_INT(k.calls, 0) ||
	    !TAP_CHECK(untouched(&out, sizeof(out))))
		tap_diag("  case: %s", what);
}

static void test_import_bad_args(void)
{
	static const struct {
		__u32 units;
		const char *what;
	} bad_units[] = {
		{ 0, "rx_units 0" },
		{ 8, "rx_units 8: below the minimum" },
		{ 48, "rx_units 48: not a power of two" },
		{ 2 * TXRDMA_RX_MAX_UNITS, "rx_units above the maximum" },
		{ 0x80000000u, "rx_units 2^31" },
	};
	struct txrdma_sess_send sends[TXRDMA_SESS_SENDS_MAX + 1];
	struct txrdma_sess_state st;
	struct txrdma_ep_pair out;
	char longname[100];
	unsigned int i;

	make_sends(sends, TXRDMA_SESS_SENDS_MAX + 1);
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = 0;
	make_state(&st, 2);

	reset();
	TAP_CHECK_INT(txrdma_sess_import(NULL, "g1", &st, sends, 4, 0, 0, &out),
		      -EINVAL);
	TAP_CHECK_INT(txrdma_sess_import(fake_ctx(), "g1", &st, sends, 4, 0, 0,
					 NULL), -EINVAL);
	TAP_CHECK_INT(k.calls, 0);
	import_bad(NULL, &st, sends, 0, -EINVAL, "NULL peer");
	import_bad("g1", NULL, sends, 0, -EINVAL, "NULL state");
	import_bad("", &st, sends, 0, -EINVAL, "empty peer");
	import_bad("abcdefghijklmnopqrstuvwxyz012345", &st, sends, 0,
		   -ENAMETOOLONG, "peer of 32 characters: no room for the NUL");
	import_bad(longname, &st, sends, 0, -ENAMETOOLONG,
		   "peer of 99 characters");
	import_bad("g1", &st, sends, 32, -EINVAL, "rx_off 32");
	import_bad("g1", &st, sends, 1, -EINVAL, "rx_off 1");
	import_bad("g1", &st, sends, (1ULL << 40) + 8, -EINVAL,
		   "large rx_off, misaligned");
	import_bad("g1", &st, NULL, 0, -EINVAL, "2 SENDs, NULL array");
	for (i = 0; i < TAP_ARRAY_SIZE(bad_units); i++) {
		make_state(&st, 0);
		st.rx_units = bad_units[i].units;
		import_bad("g1", &st, sends, 0, -EINVAL, bad_units[i].what);
	}
	make_state(&st, TXRDMA_SESS_SENDS_MAX + 1);
	import_bad("g1", &st, sends, 0, -EINVAL, "65 SENDs: more than a session has");
	make_state(&st, 0xffffffffu);
	import_bad("g1", &st, sends, 0, -EINVAL, "2^32-1 SENDs");
}

/*
 * The kernel's errors returned once (EINTR too: an import is not
 * retried by the library, it may have reached the other side), @out
 * untouched although the fake kernel scribbled on its copy.
 */
static void test_import_errors(void)
{
	static const int errs[] = {
		EPERM, ENOENT, ETIMEDOUT, EFAULT, EINVAL, ENOTTY, EINTR,
		ENOTCONN, EAGAIN, EADDRINUSE, EDQUOT,
	};
	struct txrdma_ctx *ctx = fake_ctx();
	struct txrdma_sess_send sends[2];
	struct txrdma_sess_state st;
	struct txrdma_ep_pair out;
	unsigned int i;

	make_state(&st, 2);
	make_sends(sends, 2);
	for (i = 0; i < TAP_ARRAY_SIZE(errs); i++) {
		reset();
		k.err = errs[i];
		memset(&out, SENTINEL, sizeof(out));
		if (!TAP_CHECK_INT(txrdma_sess_import(ctx, "g1", &st, sends, 4,
						      0, 0, &out), -errs[i]) ||
		    !TAP_CHECK_INT(k.calls, 1) ||
		    !TAP_CHECK(untouched(&out, sizeof(out))))
			tap_diag("  errno %d", errs[i]);
	}
	reset();
}

static const struct tap_test tests[] = {
	TAP_TEST(test_export, "sess_export sends ep, timeout and the array, copies the state out; room past 64 not offered"),
	TAP_TEST(test_export_bad_args, "sess_export: NULL ctx, state or array, room for fewer than 64 refused before the ioctl"),
	TAP_TEST(test_export_errors, "sess_export: the kernel's errors returned once, state untouched; -EPROTO on a count past the array"),
	TAP_TEST(test_import, "sess_import sends peer, ring, array, timeout and the state byte for byte; returns the pair as connect does"),
	TAP_TEST(test_import_bad_args, "sess_import: NULL, empty or long peer, bad ring, bad SEND count refused before the ioctl"),
	TAP_TEST(test_import_errors, "sess_import: the kernel's errors returned once (EINTR too), output untouched"),
};

int main(void)
{
	int ret = TAP_MAIN(tests);

	fake_ctx_close();
	return ret;
}
