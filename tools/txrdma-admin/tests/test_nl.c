// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * dev show / dev set / events against a fake kernel.
 *
 * libnl lets a socket's callbacks override send and receive; the fake
 * records each request and answers with messages laid out the way the
 * kernel lays them out (multi-part dumps ending in NLMSG_DONE, u64
 * attributes behind a PAD, NLA_F_NESTED nests, NLMSG_ERROR with extack
 * TLVs, capped or with the request echoed).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/genl/genl.h>

#include "tap.h"
#include "../dev.h"
#include "../ep.h"
#include "../key.h"
#include "../monitor.h"
#include "../nl.h"
#include "../peer.h"
#include "../tenant.h"

#define FAMILY	0x1c
#define QMAX	8

struct fport {
	uint32_t num;
	uint8_t state;
	uint32_t mtu;
	const char *netdev;
};

struct fdev {
	const char *name;
	uint32_t index;
	uint64_t guid;
	uint32_t max_qp;
	uint64_t max_mr;
	uint8_t enabled;
	unsigned int nports;
	struct fport ports[2];
};

static const struct fdev rxe0 = {
	"rxe0", 1, 0x505400fffe123456ULL, 1048576, UINT64_MAX, 1,
	1, { { 1, 4, 1024, "eth0" } },
};

static const struct fdev mlx = {
	"mlx5_0", 2, 0x0002c90300a1b2c3ULL, 262144, 1ULL << 40, 0,
	2, { { 1, 1, 4096, NULL }, { 2, 9, 4096, "ens2f1" } },
};

static struct {
	void (*handler)(const struct nlmsghdr *req);
	struct nlmsghdr *req;		/* copy of the last request */
	unsigned char *q[QMAX];		/* datagrams to hand out */
	size_t qlen[QMAX];
	unsigned int nq, head;
	int errno_to_send;
	const char *extack;
	bool capped;
	const struct fdev *devs[2];
	unsigned int ndevs;
	struct nl_msg *held;		/* the request itself, with a reference */
	bool old_stats;			/* stats nests of a module from before
					 * TX_COALESCED and RX_BATCHES
					 */
} fake;

/* ---- building kernel messages --------------------------------------- */

static void queue_append(struct nl_msg *m, bool new_datagram)
{
	struct nlmsghdr *nlh = nlmsg_hdr(m);
	unsigned int i;

	nlh->nlmsg_seq = fake.req ? fake.req->nlmsg_seq : 0;	/* events: 0 */
	if (new_datagram || !fake.nq) {
		fake.q[fake.nq] = NULL;
		fake.qlen[fake.nq] = 0;
		fake.nq++;
	}
	i = fake.nq - 1;
	fake.q[i] = realloc(fake.q[i], fake.qlen[i] + NLMSG_ALIGN(nlh->nlmsg_len));
	memset(fake.q[i] + fake.qlen[i], 0, NLMSG_ALIGN(nlh->nlmsg_len));
	memcpy(fake.q[i] + fake.qlen[i], nlh, nlh->nlmsg_len);
	fake.qlen[i] += NLMSG_ALIGN(nlh->nlmsg_len);
	nlmsg_free(m);
}

static struct nl_msg *genl_reply(uint8_t cmd, int flags)
{
	struct nl_msg *m = nlmsg_alloc();

	genlmsg_put(m, 0, 0, FAMILY, 0, flags, cmd, TXRDMA_GENL_VERSION);
	return m;
}

/* like the kernel's nla_put_u64_64bit(): a PAD first if misaligned */
static void put_u64(struct nl_msg *m, int type, uint64_t v)
{
	if ((nlmsg_hdr(m)->nlmsg_len + NLA_HDRLEN) % 8)
		nla_put(m, TXRDMA_A_PAD, 0, NULL);
	nla_put_u64(m, type, v);
}

static void put_port(struct nl_msg *m, const struct fport *p)
{
	nla_put_u32(m, TXRDMA_A_PORT_NUM, p->num);
	nla_put_u8(m, TXRDMA_A_PORT_STATE, p->state);
	nla_put_u32(m, TXRDMA_A_PORT_ACTIVE_MTU, p->mtu);
	if (p->netdev)
		nla_put_string(m, TXRDMA_A_PORT_NETDEV, p->netdev);
}

static void put_dev(struct nl_msg *m, const struct fdev *d)
{
	struct nlattr *ports, *port;
	unsigned int i;

	nla_put_u32(m, TXRDMA_A_DEV_INDEX, d->index);
	nla_put_string(m, TXRDMA_A_DEV_NAME, d->name);
	put_u64(m, TXRDMA_A_DEV_NODE_GUID, d->guid);
	nla_put_u32(m, TXRDMA_A_DEV_MAX_QP, d->max_qp);
	put_u64(m, TXRDMA_A_DEV_MAX_MR_SIZE, d->max_mr);
	nla_put_u8(m, TXRDMA_A_DEV_ENABLED, d->enabled);
	ports = nla_nest_start(m, TXRDMA_A_DEV_PORTS | NLA_F_NESTED);
	for (i = 0; i < d->nports; i++) {
		port = nla_nest_start(m, TXRDMA_A_PORT | NLA_F_NESTED);
		put_port(m, &d->ports[i]);
		nla_nest_end(m, port);
	}
	nla_nest_end(m, ports);
}

static void queue_done(int error)
{
	struct nl_msg *m = nlmsg_alloc_simple(NLMSG_DONE, NLM_F_MULTI);
	int err = -error;

	nlmsg_append(m, &err, sizeof(err), NLMSG_ALIGNTO);
	if (fake.extack) {
		nlmsg_hdr(m)->nlmsg_flags |= NLM_F_ACK_TLVS;
		nla_put_string(m, NLMSGERR_ATTR_MSG, fake.extack);
	}
	queue_append(m, false);
}

/* NLMSG_ERROR for the current request; @error 0 is an ACK */
static void queue_error(int error, const char *msg, bool capped)
{
	struct nl_msg *m = nlmsg_alloc_simple(NLMSG_ERROR, 0);
	struct nlmsgerr e = { .error = -error, .msg = *fake.req };

	nlmsg_append(m, &e, sizeof(e), NLMSG_ALIGNTO);
	if (capped)
		nlmsg_hdr(m)->nlmsg_flags |= NLM_F_CAPPED;
	else
		nlmsg_append(m, (char *)fake.req + NLMSG_HDRLEN,
			     fake.req->nlmsg_len - NLMSG_HDRLEN,
			     NLMSG_ALIGNTO);
	if (msg) {
		nlmsg_hdr(m)->nlmsg_flags |= NLM_F_ACK_TLVS;
		nla_put_string(m, NLMSGERR_ATTR_MSG, msg);
		nla_put_u32(m, NLMSGERR_ATTR_OFFS, 20);
	}
	queue_append(m, true);
}

/* ---- the fake kernel's side of the socket --------------------------- */

static int fake_send(struct nl_sock *sk, struct nl_msg *msg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);

	(void)sk;
	free(fake.req);
	fake.req = malloc(nlh->nlmsg_len);
	memcpy(fake.req, nlh, nlh->nlmsg_len);
	/* keep the tool's own buffer alive: was it wiped after sending? */
	if (!fake.held) {
		nlmsg_get(msg);
		fake.held = msg;
	}
	fake.handler(fake.req);
	return (int)nlh->nlmsg_len;
}

static int fake_recv(struct nl_sock *sk, struct sockaddr_nl *nla,
		     unsigned char **buf, struct ucred **creds)
{
	int n;

	(void)sk;
	memset(nla, 0, sizeof(*nla));
	nla->nl_family = AF_NETLINK;
	if (creds)
		*creds = NULL;
	if (fake.head == fake.nq)
		return -NLE_FAILURE;	/* the tool waits for more: a bug */
	*buf = fake.q[fake.head];	/* libnl frees it */
	n = (int)fake.qlen[fake.head];
	fake.q[fake.head++] = NULL;
	return n;
}

/* dump (all devices), or do (the device named in the request) */
static void handle_dev_get(const struct nlmsghdr *req)
{
	struct nlattr *tb[TXRDMA_A_MAX + 1];
	struct nl_msg *m;
	unsigned int i;

	if (fake.errno_to_send) {
		queue_error(fake.errno_to_send, fake.extack, fake.capped);
		return;
	}
	if (req->nlmsg_flags & NLM_F_DUMP) {
		for (i = 0; i < fake.ndevs; i++) {
			m = genl_reply(TXRDMA_CMD_DEV_GET, NLM_F_MULTI);
			put_dev(m, fake.devs[i]);
			queue_append(m, false);	/* several in one datagram */
		}
		queue_done(0);
		return;
	}
	genlmsg_parse((struct nlmsghdr *)req, 0, tb, TXRDMA_A_MAX, NULL);
	for (i = 0; i < fake.ndevs; i++) {
		if (tb[TXRDMA_A_DEV_NAME] &&
		    !strcmp(nla_get_string(tb[TXRDMA_A_DEV_NAME]),
			    fake.devs[i]->name)) {
			m = genl_reply(TXRDMA_CMD_DEV_GET, 0);
			put_dev(m, fake.devs[i]);
			queue_append(m, true);
			queue_error(0, NULL, true);	/* the ACK */
			return;
		}
	}
	queue_error(ENODEV, "no RDMA device \"foo\"", true);
}

static void handle_ack_or_error(const struct nlmsghdr *req)
{
	(void)req;
	queue_error(fake.errno_to_send, fake.extack, fake.capped);
}

/* ---- harness -------------------------------------------------------- */

static struct txa_nl nl;
static char *outbuf, *errbuf;
static size_t outlen, errlen;
static FILE *out;

static void setup(void (*handler)(const struct nlmsghdr *))
{
	struct nl_cb *cb;

	memset(&fake, 0, sizeof(fake));
	fake.handler = handler;
	fake.devs[0] = &rxe0;
	fake.devs[1] = &mlx;
	fake.ndevs = 2;

	memset(&nl, 0, sizeof(nl));
	nl.sk = nl_socket_alloc();
	nl.family = FAMILY;
	nl.what = "dev show";
	cb = nl_socket_get_cb(nl.sk);
	nl_cb_overwrite_send(cb, fake_send);
	nl_cb_overwrite_recv(cb, fake_recv);
	nl_cb_put(cb);

	out = open_memstream(&outbuf, &outlen);
	nl.err = open_memstream(&errbuf, &errlen);
}

static void teardown(void)
{
	unsigned int i;

	nl_socket_free(nl.sk);
	fclose(out);
	fclose(nl.err);
	/* what remains in the queue was not read: fine for some tests */
	for (i = 0; i < fake.nq; i++)
		free(fake.q[i]);
	free(fake.req);
	if (fake.held)
		nlmsg_free(fake.held);
}

/* every byte of the buffer of the request the tool sent is 0 */
static bool held_wiped(void)
{
	const unsigned char *b;
	size_t i, n;

	if (!fake.held)
		return false;
	b = (const unsigned char *)nlmsg_hdr(fake.held);
	n = nlmsg_get_max_size(fake.held);
	for (i = 0; i < n; i++)
		if (b[i])
			return false;
	return true;
}

static void cleanup_bufs(void)
{
	free(outbuf);
	free(errbuf);
	outbuf = errbuf = NULL;
}

static int run_show(const char *name, bool json, bool pretty)
{
	struct txa_args a = { .cmd = TXA_CMD_DEV_SHOW, .dev_name = name,
			      .json = json, .pretty = pretty, .enabled = -1 };
	int ret = txa_dev_show(&nl, &a, out);

	fflush(out);
	fflush(nl.err);
	return ret;
}

static const char plain_all[] =
"rxe0: index 1 node_guid 5054:00ff:fe12:3456 max_qp 1048576 max_mr_size 18446744073709551615 enabled yes\n"
"    port 1 state ACTIVE active_mtu 1024 netdev eth0\n"
"mlx5_0: index 2 node_guid 0002:c903:00a1:b2c3 max_qp 262144 max_mr_size 1099511627776 enabled no\n"
"    port 1 state DOWN active_mtu 4096\n"
"    port 2 state UNKNOWN(9) active_mtu 4096 netdev ens2f1\n";

static void test_show_dump_plain(void)
{
	setup(handle_dev_get);
	TAP_CHECK_INT(run_show(NULL, false, false), TXA_EXIT_OK);
	TAP_CHECK(fake.req->nlmsg_flags & NLM_F_DUMP);
	TAP_CHECK(((struct genlmsghdr *)nlmsg_data(fake.req))->cmd ==
		  TXRDMA_CMD_DEV_GET);
	TAP_CHECK_INT(fake.req->nlmsg_type, FAMILY);
	teardown();
	TAP_CHECK_STR(outbuf, plain_all);
	TAP_CHECK_STR(errbuf, "");
	cleanup_bufs();
}

static void test_show_dump_json(void)
{
	setup(handle_dev_get);
	TAP_CHECK_INT(run_show(NULL, true, false), TXA_EXIT_OK);
	teardown();
	TAP_CHECK_STR(outbuf,
"[{\"name\":\"rxe0\",\"index\":1,\"node_guid\":\"5054:00ff:fe12:3456\",\"max_qp\":1048576,"
"\"max_mr_size\":18446744073709551615,\"enabled\":true,\"ports\":[{\"port\":1,\"state\":\"ACTIVE\","
"\"active_mtu\":1024,\"netdev\":\"eth0\"}]},"
"{\"name\":\"mlx5_0\",\"index\":2,\"node_guid\":\"0002:c903:00a1:b2c3\",\"max_qp\":262144,"
"\"max_mr_size\":1099511627776,\"enabled\":false,\"ports\":[{\"port\":1,\"state\":\"DOWN\","
"\"active_mtu\":4096},{\"port\":2,\"state\":\"UNKNOWN(9)\",\"active_mtu\":4096,\"netdev\":\"ens2f1\"}]}]\n");
	cleanup_bufs();
}

static void test_show_empty(void)
{
	setup(handle_dev_get);
	fake.ndevs = 0;
	TAP_CHECK_INT(run_show(NULL, true, true), TXA_EXIT_OK);
	teardown();
	TAP_CHECK_STR(outbuf, "[]\n");
	cleanup_bufs();

	setup(handle_dev_get);
	fake.ndevs = 0;
	TAP_CHECK_INT(run_show(NULL, false, false), TXA_EXIT_OK);
	teardown();
	TAP_CHECK_STR(outbuf, "");
	cleanup_bufs();
}

static void test_show_do(void)
{
	struct nlattr *tb[TXRDMA_A_MAX + 1];

	setup(handle_dev_get);
	TAP_CHECK_INT(run_show("mlx5_0", false, false), TXA_EXIT_OK);
	TAP_CHECK(!(fake.req->nlmsg_flags & NLM_F_DUMP));
	TAP_CHECK(fake.req->nlmsg_flags & NLM_F_ACK);
	TAP_CHECK_INT(genlmsg_parse(fake.req, 0, tb, TXRDMA_A_MAX, NULL), 0);
	TAP_CHECK(tb[TXRDMA_A_DEV_NAME] &&
		  !strcmp(nla_get_string(tb[TXRDMA_A_DEV_NAME]), "mlx5_0"));
	teardown();
	TAP_CHECK_STR(outbuf, strstr(plain_all, "mlx5_0:"));
	cleanup_bufs();
}

static void test_show_unknown_capped(void)
{
	setup(handle_dev_get);
	TAP_CHECK_INT(run_show("foo", false, false), TXA_EXIT_FAIL);
	teardown();
	TAP_CHECK_STR(outbuf, "");
	TAP_CHECK_STR(errbuf, "txrdma-admin: dev show: no RDMA device \"foo\" (No such device)\n");
	cleanup_bufs();
}

static void test_show_error_uncapped(void)
{
	/* the request is echoed before the TLVs: they must still be found */
	setup(handle_dev_get);
	fake.errno_to_send = EINVAL;
	fake.extack = "attribute dev_name is bogus";
	fake.capped = false;
	TAP_CHECK_INT(run_show("rxe0", false, false), TXA_EXIT_FAIL);
	TAP_CHECK(nl.ext.has_offs && nl.ext.offs == 20);
	teardown();
	TAP_CHECK_STR(errbuf, "txrdma-admin: dev show: attribute dev_name is bogus (Invalid argument)\n");
	cleanup_bufs();
}

static void test_show_enodev_no_extack(void)
{
	setup(handle_dev_get);
	fake.errno_to_send = ENODEV;
	TAP_CHECK_INT(run_show("foo", false, false), TXA_EXIT_FAIL);
	teardown();
	TAP_CHECK_STR(errbuf, "txrdma-admin: dev show: no RDMA device \"foo\" (No such device)\n");
	cleanup_bufs();
}

static void handle_dump_fails(const struct nlmsghdr *req)
{
	struct nl_msg *m = genl_reply(TXRDMA_CMD_DEV_GET, NLM_F_MULTI);

	(void)req;
	put_dev(m, &rxe0);
	queue_append(m, true);
	fake.extack = "dump interrupted";
	queue_done(EIO);
}

static void test_show_dump_error_in_done(void)
{
	setup(handle_dump_fails);
	TAP_CHECK_INT(run_show(NULL, false, false), TXA_EXIT_FAIL);
	teardown();
	TAP_CHECK_STR(outbuf, "");
	TAP_CHECK_STR(errbuf, "txrdma-admin: dev show: dump interrupted (Input/output error)\n");
	cleanup_bufs();
}

/* a reply with a 2-byte MAX_QP, and one with nothing but the name */
static void handle_odd_replies(const struct nlmsghdr *req)
{
	struct nl_msg *m;
	uint16_t shortval = 5;

	(void)req;
	m = genl_reply(TXRDMA_CMD_DEV_GET, NLM_F_MULTI);
	nla_put_string(m, TXRDMA_A_DEV_NAME, "bad0");
	nla_put(m, TXRDMA_A_DEV_MAX_QP, sizeof(shortval), &shortval);
	queue_append(m, true);
	m = genl_reply(TXRDMA_CMD_DEV_GET, NLM_F_MULTI);
	nla_put_string(m, TXRDMA_A_DEV_NAME, "bare0");
	nla_put_u32(m, TXRDMA_A_MAX + 7, 1);	/* from a newer module */
	queue_append(m, false);
	queue_done(0);
}

static void test_show_malformed_and_sparse(void)
{
	setup(handle_odd_replies);
	TAP_CHECK_INT(run_show(NULL, false, false), TXA_EXIT_FAIL);
	teardown();
	TAP_CHECK_STR(outbuf, "bare0:\n");
	TAP_CHECK_STR(errbuf, "txrdma-admin: dev show: skipped a malformed reply from the kernel\n");
	cleanup_bufs();

	setup(handle_odd_replies);
	TAP_CHECK_INT(run_show(NULL, true, false), TXA_EXIT_FAIL);
	teardown();
	TAP_CHECK_STR(outbuf, "[{\"name\":\"bare0\"}]\n");
	cleanup_bufs();
}

static int run_set(int enabled)
{
	struct txa_args a = { .cmd = TXA_CMD_DEV_SET, .dev_name = "rxe0",
			      .enabled = enabled };
	int ret;

	nl.what = "dev set";
	ret = txa_dev_set(&nl, &a);
	fflush(out);
	fflush(nl.err);
	return ret;
}

static void test_set_request(void)
{
	struct nlattr *tb[TXRDMA_A_MAX + 1];

	setup(handle_ack_or_error);
	TAP_CHECK_INT(run_set(0), TXA_EXIT_OK);
	TAP_CHECK(((struct genlmsghdr *)nlmsg_data(fake.req))->cmd ==
		  TXRDMA_CMD_DEV_SET);
	TAP_CHECK(fake.req->nlmsg_flags & NLM_F_ACK);
	TAP_CHECK_INT(genlmsg_parse(fake.req, 0, tb, TXRDMA_A_MAX, NULL), 0);
	TAP_CHECK(tb[TXRDMA_A_DEV_NAME] &&
		  !strcmp(nla_get_string(tb[TXRDMA_A_DEV_NAME]), "rxe0"));
	TAP_CHECK(tb[TXRDMA_A_DEV_ENABLED] &&
		  nla_len(tb[TXRDMA_A_DEV_ENABLED]) == 1 &&
		  nla_get_u8(tb[TXRDMA_A_DEV_ENABLED]) == 0);
	teardown();
	TAP_CHECK_STR(outbuf, "");
	TAP_CHECK_STR(errbuf, "");
	cleanup_bufs();

	setup(handle_ack_or_error);
	TAP_CHECK_INT(run_set(1), TXA_EXIT_OK);
	TAP_CHECK_INT(genlmsg_parse(fake.req, 0, tb, TXRDMA_A_MAX, NULL), 0);
	TAP_CHECK(tb[TXRDMA_A_DEV_ENABLED] &&
		  nla_get_u8(tb[TXRDMA_A_DEV_ENABLED]) == 1);
	teardown();
	cleanup_bufs();
}

static void test_set_eperm(void)
{
	setup(handle_ack_or_error);
	fake.errno_to_send = EPERM;
	fake.capped = true;
	TAP_CHECK_INT(run_set(1), TXA_EXIT_FAIL);
	teardown();
	TAP_CHECK_STR(errbuf, "txrdma-admin: dev set: operation not permitted (changing txrdma needs CAP_NET_ADMIN)\n");
	cleanup_bufs();
}

static void test_set_ack_warning(void)
{
	setup(handle_ack_or_error);
	fake.extack = "rxe0 was already enabled";
	fake.capped = true;
	TAP_CHECK_INT(run_set(1), TXA_EXIT_OK);
	teardown();
	TAP_CHECK_STR(errbuf, "txrdma-admin: dev set: warning: rxe0 was already enabled\n");
	cleanup_bufs();
}

static void test_set_other_errors(void)
{
	setup(handle_ack_or_error);
	fake.errno_to_send = EOPNOTSUPP;
	TAP_CHECK_INT(run_set(1), TXA_EXIT_FAIL);
	teardown();
	TAP_CHECK_STR(errbuf, "txrdma-admin: dev set: the loaded txrdma module does not support this command (Operation not supported)\n");
	cleanup_bufs();

	setup(handle_ack_or_error);
	fake.errno_to_send = EBUSY;
	fake.capped = true;
	TAP_CHECK_INT(run_set(1), TXA_EXIT_FAIL);
	teardown();
	TAP_CHECK_STR(errbuf, "txrdma-admin: dev set: Device or resource busy\n");
	cleanup_bufs();
}

/* hand-made NLMSG_ERROR with NLMSGERR_ATTR_MISS_TYPE */
static void test_extack_miss_type(void)
{
	unsigned char buf[256] __attribute__((aligned(8))) = { 0 };
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
	struct nlmsgerr *e = NLMSG_DATA(nlh);
	struct nlattr *nla = (struct nlattr *)(buf + NLMSG_HDRLEN +
					       NLMSG_ALIGN(sizeof(*e)));
	struct txa_extack ext;

	nlh->nlmsg_type = NLMSG_ERROR;
	nlh->nlmsg_flags = NLM_F_CAPPED | NLM_F_ACK_TLVS;
	e->error = -EINVAL;
	nla->nla_type = NLMSGERR_ATTR_MISS_TYPE;
	nla->nla_len = NLA_HDRLEN + 4;
	*(uint32_t *)((char *)nla + NLA_HDRLEN) = TXRDMA_A_DEV_NAME;
	nlh->nlmsg_len = (char *)nla - (char *)buf + NLA_ALIGN(nla->nla_len);

	TAP_CHECK_INT(txa_extack_parse(nlh, &ext), 0);
	TAP_CHECK_INT(ext.error, EINVAL);
	TAP_CHECK(ext.has_miss_type && ext.miss_type == TXRDMA_A_DEV_NAME);
	TAP_CHECK_STR(ext.msg, "");

	/* a TLV running past the message is ignored, the error stays */
	nla->nla_len = 200;
	TAP_CHECK_INT(txa_extack_parse(nlh, &ext), 0);
	TAP_CHECK_INT(ext.error, EINVAL);
	TAP_CHECK(!ext.has_miss_type);

	/* too short for an error code */
	nlh->nlmsg_len = NLMSG_HDRLEN + 2;
	TAP_CHECK_INT(txa_extack_parse(nlh, &ext), -1);

	/* the message text for it */
	setup(handle_ack_or_error);
	nl.ext.error = EINVAL;
	nl.ext.has_miss_type = true;
	nl.ext.miss_type = TXRDMA_A_DEV_NAME;
	txa_nl_perror(&nl, NULL);
	teardown();
	TAP_CHECK_STR(errbuf, "txrdma-admin: dev show: missing attribute dev_name (Invalid argument)\n");
	cleanup_bufs();
}

/* ---- events --------------------------------------------------------- */

static struct nl_msg *event(uint8_t cmd, uint64_t seq)
{
	struct nl_msg *m = nlmsg_alloc();

	genlmsg_put(m, 0, 0, FAMILY, 0, 0, cmd, TXRDMA_GENL_VERSION);
	put_u64(m, TXRDMA_A_EVENT_TIME_NS, 1714566896123456789ULL);
	put_u64(m, TXRDMA_A_EVENT_SEQ, seq);
	return m;
}

static void print_event(struct nl_msg *m, char **plain, char **json)
{
	struct txa_dev ev;
	size_t len;
	FILE *f;

	TAP_CHECK_INT(txa_dev_parse(nlmsg_hdr(m), &ev), 0);
	f = open_memstream(plain, &len);
	txa_event_print_plain(f, &ev);
	fclose(f);
	f = open_memstream(json, &len);
	txa_event_print_json(f, &ev);
	fclose(f);
	txa_dev_free(&ev);
	nlmsg_free(m);
}

static void test_event_port(void)
{
	struct nl_msg *m = event(TXRDMA_CMD_DEV_PORT_NTF, 5);
	char *plain, *json;

	nla_put_u32(m, TXRDMA_A_DEV_INDEX, 1);
	nla_put_string(m, TXRDMA_A_DEV_NAME, "rxe0");
	nla_put_u32(m, TXRDMA_A_PORT_NUM, 1);
	nla_put_u8(m, TXRDMA_A_PORT_OLD_STATE, TXRDMA_PORT_DOWN);
	nla_put_u8(m, TXRDMA_A_PORT_STATE, TXRDMA_PORT_ACTIVE);
	print_event(m, &plain, &json);
	TAP_CHECK_STR(plain, "[2024-05-01T12:34:56.123456Z] port rxe0/1 DOWN -> ACTIVE\n");
	TAP_CHECK_STR(json, "{\"event\":\"port\",\"seq\":5,\"time_ns\":1714566896123456789,"
		      "\"time\":\"2024-05-01T12:34:56.123456Z\",\"dev\":\"rxe0\",\"index\":1,"
		      "\"port\":1,\"old_state\":\"DOWN\",\"state\":\"ACTIVE\"}\n");
	free(plain);
	free(json);
}

static void test_event_add_del_set(void)
{
	struct nl_msg *m = event(TXRDMA_CMD_DEV_ADD_NTF, 1);
	char *plain, *json;

	put_dev(m, &rxe0);
	print_event(m, &plain, &json);
	TAP_CHECK_STR(plain, "[2024-05-01T12:34:56.123456Z] dev add rxe0 index 1 node_guid 5054:00ff:fe12:3456 "
		      "max_qp 1048576 max_mr_size 18446744073709551615 enabled yes port 1 state ACTIVE "
		      "active_mtu 1024 netdev eth0\n");
	TAP_CHECK_STR(json, "{\"event\":\"dev_add\",\"seq\":1,\"time_ns\":1714566896123456789,"
		      "\"time\":\"2024-05-01T12:34:56.123456Z\",\"dev\":\"rxe0\",\"index\":1,"
		      "\"node_guid\":\"5054:00ff:fe12:3456\",\"max_qp\":1048576,"
		      "\"max_mr_size\":18446744073709551615,\"enabled\":true,\"ports\":[{\"port\":1,"
		      "\"state\":\"ACTIVE\",\"active_mtu\":1024,\"netdev\":\"eth0\"}]}\n");
	free(plain);
	free(json);

	m = event(TXRDMA_CMD_DEV_DEL_NTF, 2);
	nla_put_u32(m, TXRDMA_A_DEV_INDEX, 1);
	nla_put_string(m, TXRDMA_A_DEV_NAME, "rxe0");
	print_event(m, &plain, &json);
	TAP_CHECK_STR(plain, "[2024-05-01T12:34:56.123456Z] dev del rxe0 index 1\n");
	TAP_CHECK_STR(json, "{\"event\":\"dev_del\",\"seq\":2,\"time_ns\":1714566896123456789,"
		      "\"time\":\"2024-05-01T12:34:56.123456Z\",\"dev\":\"rxe0\",\"index\":1}\n");
	free(plain);
	free(json);

	m = event(TXRDMA_CMD_DEV_SET_NTF, 3);
	nla_put_u32(m, TXRDMA_A_DEV_INDEX, 1);
	nla_put_string(m, TXRDMA_A_DEV_NAME, "rxe0");
	nla_put_u8(m, TXRDMA_A_DEV_ENABLED, 0);
	print_event(m, &plain, &json);
	TAP_CHECK_STR(plain, "[2024-05-01T12:34:56.123456Z] dev set rxe0 index 1 enabled no\n");
	TAP_CHECK_STR(json, "{\"event\":\"dev_set\",\"seq\":3,\"time_ns\":1714566896123456789,"
		      "\"time\":\"2024-05-01T12:34:56.123456Z\",\"dev\":\"rxe0\",\"index\":1,"
		      "\"enabled\":false}\n");
	free(plain);
	free(json);
}

static void test_event_unknown(void)
{
	/* a fixed number: TXRDMA_CMD_MAX grows with every new command */
	struct nl_msg *m = event(200, 9);
	char *plain, *json;

	nla_put_string(m, TXRDMA_A_DEV_NAME, "rxe\"0");
	print_event(m, &plain, &json);
	TAP_CHECK_STR(plain, "[2024-05-01T12:34:56.123456Z] event 200 dev rxe\"0\n");
	TAP_CHECK_STR(json, "{\"event\":\"unknown\",\"cmd\":200,\"seq\":9,\"time_ns\":1714566896123456789,"
		      "\"time\":\"2024-05-01T12:34:56.123456Z\",\"dev\":\"rxe\\\"0\"}\n");
	free(plain);
	free(json);

	/* a port event with an unknown state and no old state */
	m = event(TXRDMA_CMD_DEV_PORT_NTF, 10);
	nla_put_string(m, TXRDMA_A_DEV_NAME, "rxe0");
	nla_put_u32(m, TXRDMA_A_PORT_NUM, 2);
	nla_put_u8(m, TXRDMA_A_PORT_STATE, 42);
	print_event(m, &plain, &json);
	TAP_CHECK_STR(plain, "[2024-05-01T12:34:56.123456Z] port rxe0/2 UNKNOWN(42)\n");
	TAP_CHECK(strstr(json, "\"port\":2,\"state\":\"UNKNOWN(42)\"}"));
	free(plain);
	free(json);
}

static void test_monitor_loop(void)
{
	struct txa_args a = { .cmd = TXA_CMD_MONITOR, .json = true,
			      .count = 2, .enabled = -1 };
	struct txa_monitor mon;
	struct nl_msg *m;

	setup(NULL);
	nl.what = "monitor";
	m = event(TXRDMA_CMD_DEV_PORT_NTF, 1);
	nla_put_string(m, TXRDMA_A_DEV_NAME, "rxe0");
	nla_put_u32(m, TXRDMA_A_PORT_NUM, 1);
	nla_put_u8(m, TXRDMA_A_PORT_OLD_STATE, TXRDMA_PORT_ACTIVE);
	nla_put_u8(m, TXRDMA_A_PORT_STATE, TXRDMA_PORT_DOWN);
	queue_append(m, true);
	m = nlmsg_alloc_simple(FAMILY + 1, 0);	/* another family: ignored */
	queue_append(m, true);
	m = event(TXRDMA_CMD_DEV_SET_NTF, 4);	/* 2 and 3 were lost */
	nla_put_string(m, TXRDMA_A_DEV_NAME, "rxe0");
	nla_put_u8(m, TXRDMA_A_DEV_ENABLED, 1);
	queue_append(m, true);
	m = event(TXRDMA_CMD_DEV_DEL_NTF, 5);	/* past the count */
	queue_append(m, true);

	if (!TAP_CHECK_INT(txa_monitor_init(&mon, &nl, &a, out), 0)) {
		teardown();
		cleanup_bufs();
		return;
	}
	TAP_CHECK_INT(txa_monitor_recv(&mon, &nl), 0);
	TAP_CHECK_INT(txa_monitor_recv(&mon, &nl), 0);
	TAP_CHECK_INT(txa_monitor_recv(&mon, &nl), 1);
	TAP_CHECK(mon.seen == 2);
	txa_monitor_fini(&mon);
	fflush(nl.err);
	teardown();
	TAP_CHECK_STR(outbuf,
"{\"event\":\"port\",\"seq\":1,\"time_ns\":1714566896123456789,\"time\":\"2024-05-01T12:34:56.123456Z\","
"\"dev\":\"rxe0\",\"port\":1,\"old_state\":\"ACTIVE\",\"state\":\"DOWN\"}\n"
"{\"event\":\"dev_set\",\"seq\":4,\"time_ns\":1714566896123456789,\"time\":\"2024-05-01T12:34:56.123456Z\","
"\"dev\":\"rxe0\",\"enabled\":true}\n");
	TAP_CHECK_STR(errbuf, "txrdma-admin: monitor: 2 event(s) lost\n");
	cleanup_bufs();
}

/* ---- tenants -------------------------------------------------------- */

#define UNL	TXRDMA_UNLIMITED

/* the order of the kernel's nests (txrdma_tenant.c) */
static const int limit_attr[8] = {
	TXRDMA_A_LIMIT_QPS, TXRDMA_A_LIMIT_ENDPOINTS,
	TXRDMA_A_LIMIT_PINNED_BYTES, TXRDMA_A_LIMIT_LISTENERS,
	TXRDMA_A_LIMIT_BW_RATE, TXRDMA_A_LIMIT_BW_BURST,
	TXRDMA_A_LIMIT_OPS_RATE, TXRDMA_A_LIMIT_OPS_BURST,
};
static const int refused_attr[6] = {
	TXRDMA_A_LIMIT_QPS, TXRDMA_A_LIMIT_ENDPOINTS,
	TXRDMA_A_LIMIT_PINNED_BYTES, TXRDMA_A_LIMIT_LISTENERS,
	TXRDMA_A_LIMIT_BW_RATE, TXRDMA_A_LIMIT_OPS_RATE,
};

struct ftenant {
	const char *name;
	uint32_t id;
	const char *cgroup;
	uint8_t prio;
	bool reversed;		/* each nest in the opposite order */
	uint64_t limits[8];	/* as limit_attr[] */
	uint64_t usage[4];	/* qps, endpoints, pinned, listeners */
	uint64_t refused[6];	/* as refused_attr[] */
};

static const struct ftenant ten_a = {
	"a", 1, "/db/a", TXRDMA_PRIO_NORMAL, false,
	{ 10, UNL, 64ULL << 20, 1024, 100ULL << 20, 10ULL << 20, 1000, 100 },
	{ 0, 0, 0, 0 }, { 0, 0, 0, 0, 0, 0 },
};

/* the tool reads the nests by attribute type, not by position */
static const struct ftenant ten_b = {
	"b", 2, "/db/b \"q\"", TXRDMA_PRIO_BULK, true,
	{ UNL, UNL, UNL, UNL, UNL, UNL, UNL, UNL },
	{ 3, 5, 1536, 2 }, { 4, 0, 1, 6, 7, 9 },
};

static const struct ftenant *ftenants[2] = { &ten_a, &ten_b };

static void put_nest(struct nl_msg *m, int type, const int *attrs,
		     const uint64_t *vals, unsigned int n, bool reversed)
{
	struct nlattr *nest = nla_nest_start(m, type | NLA_F_NESTED);
	unsigned int i, j;

	for (i = 0; i < n; i++) {
		j = reversed ? n - 1 - i : i;
		put_u64(m, attrs[j], vals[j]);
	}
	nla_nest_end(m, nest);
}

static void put_tenant_reply(struct nl_msg *m, const struct ftenant *t)
{
	nla_put_string(m, TXRDMA_A_TENANT_NAME, t->name);
	nla_put_u32(m, TXRDMA_A_TENANT_ID, t->id);
	nla_put_string(m, TXRDMA_A_TENANT_CGROUP, t->cgroup);
	nla_put_u8(m, TXRDMA_A_TENANT_PRIO, t->prio);
	put_nest(m, TXRDMA_A_TENANT_LIMITS, limit_attr, t->limits, 8,
		 t->reversed);
	put_nest(m, TXRDMA_A_TENANT_USAGE, limit_attr, t->usage, 4,
		 t->reversed);
	put_nest(m, TXRDMA_A_TENANT_REFUSED, refused_attr, t->refused, 6,
		 t->reversed);
}

static void handle_tenant_get(const struct nlmsghdr *req)
{
	struct nlattr *tb[TXRDMA_A_MAX + 1];
	struct nl_msg *m;
	unsigned int i;

	if (fake.errno_to_send) {
		queue_error(fake.errno_to_send, fake.extack, true);
		return;
	}
	if (req->nlmsg_flags & NLM_F_DUMP) {
		for (i = 0; i < fake.ndevs; i++) {
			m = genl_reply(TXRDMA_CMD_TENANT_GET, NLM_F_MULTI);
			put_tenant_reply(m, ftenants[i]);
			queue_append(m, i == 1);	/* two datagrams */
		}
		queue_done(0);
		return;
	}
	genlmsg_parse((struct nlmsghdr *)req, 0, tb, TXRDMA_A_MAX, NULL);
	for (i = 0; i < 2; i++) {
		if (tb[TXRDMA_A_TENANT_NAME] &&
		    !strcmp(nla_get_string(tb[TXRDMA_A_TENANT_NAME]),
			    ftenants[i]->name)) {
			m = genl_reply(TXRDMA_CMD_TENANT_GET, 0);
			put_tenant_reply(m, ftenants[i]);
			queue_append(m, true);
			queue_error(0, NULL, true);
			return;
		}
	}
	queue_error(ENOENT, "no such tenant", true);
}

static int run_tenant(enum txa_cmd cmd, const char *what,
		      const struct txa_tenant_args *t, bool json, bool pretty)
{
	struct txa_args a = { .cmd = cmd, .json = json, .pretty = pretty,
			      .enabled = -1, .tenant = *t };
	int ret;

	nl.what = what;
	switch (cmd) {
	case TXA_CMD_TENANT_SHOW:
		ret = txa_tenant_show(&nl, &a, out);
		break;
	case TXA_CMD_TENANT_ADD:
		ret = txa_tenant_add(&nl, &a);
		break;
	case TXA_CMD_TENANT_SET:
		ret = txa_tenant_set(&nl, &a);
		break;
	default:
		ret = txa_tenant_del(&nl, &a);
		break;
	}
	fflush(out);
	fflush(nl.err);
	return ret;
}

static const struct txa_tenant_args no_tenant_args = { .prio = -1 };

static const char tenant_plain[] =
"a: id 1 cgroup /db/a prio normal\n"
"    qps 0/10 refused 0  endpoints 0/unlimited refused 0  pinned 0/64M refused 0  listeners 0/1024 refused 0\n"
"    bw 100M/s burst 10M throttled 0  ops 1000/s burst 100 throttled 0\n"
"b: id 2 cgroup /db/b \"q\" prio bulk\n"
"    qps 3/unlimited refused 4  endpoints 5/unlimited refused 0  pinned 1536/unlimited refused 1  listeners 2/unlimited refused 6\n"
"    bw unlimited throttled 7  ops unlimited throttled 9\n";

static const char tenant_a_json[] =
"{\"name\":\"a\",\"id\":1,\"cgroup\":\"/db/a\",\"prio\":\"normal\","
"\"limits\":{\"qps\":10,\"endpoints\":null,\"pinned_bytes\":67108864,\"listeners\":1024,"
"\"bw_rate\":104857600,\"bw_burst\":10485760,\"ops_rate\":1000,\"ops_burst\":100},"
"\"usage\":{\"qps\":0,\"endpoints\":0,\"pinned_bytes\":0,\"listeners\":0},"
"\"refused\":{\"qps\":0,\"endpoints\":0,\"pinned_bytes\":0,\"listeners\":0,\"bw\":0,\"ops\":0}}";

/* in the tool's order, whatever order the nests came in */
static const char tenant_b_json[] =
"{\"name\":\"b\",\"id\":2,\"cgroup\":\"/db/b \\\"q\\\"\",\"prio\":\"bulk\","
"\"limits\":{\"qps\":null,\"endpoints\":null,\"pinned_bytes\":null,\"listeners\":null,"
"\"bw_rate\":null,\"bw_burst\":null,\"ops_rate\":null,\"ops_burst\":null},"
"\"usage\":{\"qps\":3,\"endpoints\":5,\"pinned_bytes\":1536,\"listeners\":2},"
"\"refused\":{\"qps\":4,\"endpoints\":0,\"pinned_bytes\":1,\"listeners\":6,\"bw\":7,\"ops\":9}}";

static void test_tenant_dump(void)
{
	char want[2048];

	setup(handle_tenant_get);
	TAP_CHECK_INT(run_tenant(TXA_CMD_TENANT_SHOW, "tenant show",
				 &no_tenant_args, false, false), TXA_EXIT_OK);
	TAP_CHECK(fake.req->nlmsg_flags & NLM_F_DUMP);
	TAP_CHECK(((struct genlmsghdr *)nlmsg_data(fake.req))->cmd ==
		  TXRDMA_CMD_TENANT_GET);
	teardown();
	TAP_CHECK_STR(outbuf, tenant_plain);
	TAP_CHECK_STR(errbuf, "");
	cleanup_bufs();

	setup(handle_tenant_get);
	TAP_CHECK_INT(run_tenant(TXA_CMD_TENANT_SHOW, "tenant show",
				 &no_tenant_args, true, false), TXA_EXIT_OK);
	teardown();
	snprintf(want, sizeof(want), "[%s,%s]\n", tenant_a_json, tenant_b_json);
	TAP_CHECK_STR(outbuf, want);
	cleanup_bufs();

	/* pretty JSON: the same document, indented */
	setup(handle_tenant_get);
	TAP_CHECK_INT(run_tenant(TXA_CMD_TENANT_SHOW, "tenant show",
				 &no_tenant_args, true, true), TXA_EXIT_OK);
	teardown();
	TAP_CHECK(strstr(outbuf, "\n    {\n        \"name\": \"a\","));
	TAP_CHECK(strstr(outbuf, "\"endpoints\": null"));
	cleanup_bufs();

	setup(handle_tenant_get);
	fake.ndevs = 0;
	TAP_CHECK_INT(run_tenant(TXA_CMD_TENANT_SHOW, "tenant show",
				 &no_tenant_args, true, false), TXA_EXIT_OK);
	teardown();
	TAP_CHECK_STR(outbuf, "[]\n");
	cleanup_bufs();
}

static void test_tenant_show_do(void)
{
	struct txa_tenant_args t = { .name = "a", .prio = -1 };
	struct nlattr *tb[TXRDMA_A_MAX + 1];
	char want[1024];

	setup(handle_tenant_get);
	TAP_CHECK_INT(run_tenant(TXA_CMD_TENANT_SHOW, "tenant show", &t,
				 true, false), TXA_EXIT_OK);
	TAP_CHECK(!(fake.req->nlmsg_flags & NLM_F_DUMP));
	TAP_CHECK_INT(genlmsg_parse(fake.req, 0, tb, TXRDMA_A_MAX, NULL), 0);
	TAP_CHECK(tb[TXRDMA_A_TENANT_NAME] &&
		  !strcmp(nla_get_string(tb[TXRDMA_A_TENANT_NAME]), "a"));
	teardown();
	snprintf(want, sizeof(want), "[%s]\n", tenant_a_json);
	TAP_CHECK_STR(outbuf, want);
	cleanup_bufs();

	t.name = "zz";
	setup(handle_tenant_get);
	TAP_CHECK_INT(run_tenant(TXA_CMD_TENANT_SHOW, "tenant show", &t,
				 false, false), TXA_EXIT_FAIL);
	teardown();
	TAP_CHECK_STR(outbuf, "");
	TAP_CHECK_STR(errbuf, "txrdma-admin: tenant show: no such tenant (No such file or directory)\n");
	cleanup_bufs();

	/* without an extack message the tool names the tenant */
	setup(handle_tenant_get);
	fake.errno_to_send = ENOENT;
	TAP_CHECK_INT(run_tenant(TXA_CMD_TENANT_SHOW, "tenant show", &t,
				 false, false), TXA_EXIT_FAIL);
	teardown();
	TAP_CHECK_STR(errbuf, "txrdma-admin: tenant show: no tenant \"zz\" (No such file or directory)\n");
	cleanup_bufs();
}

/* a LIMITS nest with a 4-byte QPS, then a tenant with nothing but a name */
static void handle_tenant_odd(const struct nlmsghdr *req)
{
	struct nlattr *nest;
	struct nl_msg *m;

	(void)req;
	m = genl_reply(TXRDMA_CMD_TENANT_GET, NLM_F_MULTI);
	nla_put_string(m, TXRDMA_A_TENANT_NAME, "bad");
	nest = nla_nest_start(m, TXRDMA_A_TENANT_LIMITS | NLA_F_NESTED);
	nla_put_u32(m, TXRDMA_A_LIMIT_QPS, 1);
	nla_nest_end(m, nest);
	queue_append(m, true);
	m = genl_reply(TXRDMA_CMD_TENANT_GET, NLM_F_MULTI);
	nla_put_string(m, TXRDMA_A_TENANT_NAME, "bare");
	nla_put_u32(m, TXRDMA_A_MAX + 5, 1);	/* from a newer module */
	queue_append(m, false);
	queue_done(0);
}

static void test_tenant_malformed(void)
{
	setup(handle_tenant_odd);
	TAP_CHECK_INT(run_tenant(TXA_CMD_TENANT_SHOW, "tenant show",
				 &no_tenant_args, false, false), TXA_EXIT_FAIL);
	teardown();
	TAP_CHECK_STR(outbuf, "bare:\n");
	TAP_CHECK_STR(errbuf, "txrdma-admin: tenant show: skipped a malformed reply from the kernel\n");
	cleanup_bufs();

	setup(handle_tenant_odd);
	TAP_CHECK_INT(run_tenant(TXA_CMD_TENANT_SHOW, "tenant show",
				 &no_tenant_args, true, false), TXA_EXIT_FAIL);
	teardown();
	TAP_CHECK_STR(outbuf, "[{\"name\":\"bare\"}]\n");
	cleanup_bufs();
}

static bool req_limit(struct nlattr **tb, int attr, uint64_t v)
{
	return tb[attr] && nla_len(tb[attr]) == 8 && nla_get_u64(tb[attr]) == v;
}

static void test_tenant_add_request(void)
{
	struct txa_tenant_args t = {
		.name = "a", .cgroup = "/db/a", .prio = TXRDMA_PRIO_CRITICAL,
		.limits_set = (1U << TXA_LIM_QPS) | (1U << TXA_LIM_PINNED) |
			      (1U << TXA_LIM_LISTENERS) |
			      (1U << TXA_LIM_BW_RATE) | (1U << TXA_LIM_BW_BURST),
		.limits = { [TXA_LIM_QPS] = 10, [TXA_LIM_PINNED] = UNL,
			    [TXA_LIM_LISTENERS] = 64,
			    [TXA_LIM_BW_RATE] = 1ULL << 20,
			    [TXA_LIM_BW_BURST] = 4096 },
	};
	struct nlattr *tb[TXRDMA_A_MAX + 1], *lim[TXRDMA_A_MAX + 1];
	int i, n = 0;

	setup(handle_ack_or_error);
	TAP_CHECK_INT(run_tenant(TXA_CMD_TENANT_ADD, "tenant add", &t, false,
				 false), TXA_EXIT_OK);
	TAP_CHECK(((struct genlmsghdr *)nlmsg_data(fake.req))->cmd ==
		  TXRDMA_CMD_TENANT_NEW);
	TAP_CHECK(fake.req->nlmsg_flags & NLM_F_ACK);
	TAP_CHECK_INT(genlmsg_parse(fake.req, 0, tb, TXRDMA_A_MAX, NULL), 0);
	TAP_CHECK(tb[TXRDMA_A_TENANT_NAME] &&
		  !strcmp(nla_get_string(tb[TXRDMA_A_TENANT_NAME]), "a"));
	TAP_CHECK(tb[TXRDMA_A_TENANT_CGROUP] &&
		  !strcmp(nla_get_string(tb[TXRDMA_A_TENANT_CGROUP]), "/db/a"));
	TAP_CHECK(tb[TXRDMA_A_TENANT_PRIO] &&
		  nla_len(tb[TXRDMA_A_TENANT_PRIO]) == 1 &&
		  nla_get_u8(tb[TXRDMA_A_TENANT_PRIO]) == TXRDMA_PRIO_CRITICAL);
	TAP_CHECK(!tb[TXRDMA_A_TENANT_FORCE]);
	TAP_CHECK(tb[TXRDMA_A_TENANT_LIMITS] &&
		  (tb[TXRDMA_A_TENANT_LIMITS]->nla_type & NLA_F_NESTED));
	if (tb[TXRDMA_A_TENANT_LIMITS]) {
		TAP_CHECK_INT(nla_parse_nested(lim, TXRDMA_A_MAX,
					       tb[TXRDMA_A_TENANT_LIMITS],
					       NULL), 0);
		TAP_CHECK(req_limit(lim, TXRDMA_A_LIMIT_QPS, 10));
		TAP_CHECK(req_limit(lim, TXRDMA_A_LIMIT_PINNED_BYTES, UNL));
		TAP_CHECK(req_limit(lim, TXRDMA_A_LIMIT_BW_RATE, 1ULL << 20));
		TAP_CHECK(req_limit(lim, TXRDMA_A_LIMIT_BW_BURST, 4096));
		TAP_CHECK(req_limit(lim, TXRDMA_A_LIMIT_LISTENERS, 64));
		for (i = 0; i <= TXRDMA_A_MAX; i++)
			n += !!lim[i];
		TAP_CHECK_INT(n, 5);	/* only what was given */
	}
	teardown();
	TAP_CHECK_STR(errbuf, "");
	TAP_CHECK_STR(outbuf, "");
	cleanup_bufs();

	/* no limits given: no nest at all */
	t.limits_set = 0;
	t.prio = -1;
	setup(handle_ack_or_error);
	TAP_CHECK_INT(run_tenant(TXA_CMD_TENANT_ADD, "tenant add", &t, false,
				 false), TXA_EXIT_OK);
	TAP_CHECK_INT(genlmsg_parse(fake.req, 0, tb, TXRDMA_A_MAX, NULL), 0);
	TAP_CHECK(!tb[TXRDMA_A_TENANT_LIMITS] && !tb[TXRDMA_A_TENANT_PRIO]);
	teardown();
	cleanup_bufs();
}

static void test_tenant_set_del_request(void)
{
	struct txa_tenant_args t = {
		.name = "a", .prio = -1,
		.limits_set = 1U << TXA_LIM_OPS_RATE,
		.limits = { [TXA_LIM_OPS_RATE] = 500 },
	};
	struct nlattr *tb[TXRDMA_A_MAX + 1], *lim[TXRDMA_A_MAX + 1];

	setup(handle_ack_or_error);
	TAP_CHECK_INT(run_tenant(TXA_CMD_TENANT_SET, "tenant set", &t, false,
				 false), TXA_EXIT_OK);
	TAP_CHECK(((struct genlmsghdr *)nlmsg_data(fake.req))->cmd ==
		  TXRDMA_CMD_TENANT_SET);
	TAP_CHECK_INT(genlmsg_parse(fake.req, 0, tb, TXRDMA_A_MAX, NULL), 0);
	TAP_CHECK(!tb[TXRDMA_A_TENANT_CGROUP] && !tb[TXRDMA_A_TENANT_PRIO]);
	TAP_CHECK(tb[TXRDMA_A_TENANT_LIMITS] &&
		  !nla_parse_nested(lim, TXRDMA_A_MAX,
				    tb[TXRDMA_A_TENANT_LIMITS], NULL) &&
		  req_limit(lim, TXRDMA_A_LIMIT_OPS_RATE, 500) &&
		  !lim[TXRDMA_A_LIMIT_OPS_BURST] && !lim[TXRDMA_A_LIMIT_QPS] &&
		  !lim[TXRDMA_A_LIMIT_LISTENERS]);
	teardown();
	cleanup_bufs();

	/* listeners alone: one u64 in the nest, unlimited as ~0 */
	t.limits_set = 1U << TXA_LIM_LISTENERS;
	t.limits[TXA_LIM_LISTENERS] = UNL;
	setup(handle_ack_or_error);
	TAP_CHECK_INT(run_tenant(TXA_CMD_TENANT_SET, "tenant set", &t, false,
				 false), TXA_EXIT_OK);
	TAP_CHECK_INT(genlmsg_parse(fake.req, 0, tb, TXRDMA_A_MAX, NULL), 0);
	TAP_CHECK(tb[TXRDMA_A_TENANT_LIMITS] &&
		  !nla_parse_nested(lim, TXRDMA_A_MAX,
				    tb[TXRDMA_A_TENANT_LIMITS], NULL) &&
		  req_limit(lim, TXRDMA_A_LIMIT_LISTENERS, UNL) &&
		  !lim[TXRDMA_A_LIMIT_OPS_RATE]);
	teardown();
	cleanup_bufs();
	t.limits_set = 1U << TXA_LIM_OPS_RATE;

	t.force = true;
	t.cgroup = "/ignored";
	setup(handle_ack_or_error);
	TAP_CHECK_INT(run_tenant(TXA_CMD_TENANT_DEL, "tenant del", &t, false,
				 false), TXA_EXIT_OK);
	TAP_CHECK(((struct genlmsghdr *)nlmsg_data(fake.req))->cmd ==
		  TXRDMA_CMD_TENANT_DEL);
	TAP_CHECK_INT(genlmsg_parse(fake.req, 0, tb, TXRDMA_A_MAX, NULL), 0);
	TAP_CHECK(tb[TXRDMA_A_TENANT_NAME] &&
		  !strcmp(nla_get_string(tb[TXRDMA_A_TENANT_NAME]), "a"));
	TAP_CHECK(tb[TXRDMA_A_TENANT_FORCE] &&
		  nla_len(tb[TXRDMA_A_TENANT_FORCE]) == 0);
	TAP_CHECK(!tb[TXRDMA_A_TENANT_LIMITS] && !tb[TXRDMA_A_TENANT_CGROUP]);
	teardown();
	cleanup_bufs();

	t.force = false;
	setup(handle_ack_or_error);
	TAP_CHECK_INT(run_tenant(TXA_CMD_TENANT_DEL, "tenant del", &t, false,
				 false), TXA_EXIT_OK);
	TAP_CHECK_INT(genlmsg_parse(fake.req, 0, tb, TXRDMA_A_MAX, NULL), 0);
	TAP_CHECK(!tb[TXRDMA_A_TENANT_FORCE]);
	teardown();
	cleanup_bufs();
}

static void test_tenant_warning_ack(void)
{
	struct txa_tenant_args t = {
		.name = "a", .prio = -1, .limits_set = 1U << TXA_LIM_QPS,
		.limits = { [TXA_LIM_QPS] = 2 },
	};

	setup(handle_ack_or_error);
	fake.extack = "qps limit is below current use (3 > 2): applies to new requests";
	fake.capped = true;
	TAP_CHECK_INT(run_tenant(TXA_CMD_TENANT_SET, "tenant set", &t, false,
				 false), TXA_EXIT_OK);
	teardown();
	TAP_CHECK_STR(outbuf, "");
	TAP_CHECK_STR(errbuf, "txrdma-admin: tenant set: warning: qps limit is below current use (3 > 2): applies to new requests\n");
	cleanup_bufs();

	/* an uncapped ACK (an old kernel): the TLVs are found all the same */
	setup(handle_ack_or_error);
	fake.extack = "careful";
	fake.capped = false;
	TAP_CHECK_INT(run_tenant(TXA_CMD_TENANT_SET, "tenant set", &t, false,
				 false), TXA_EXIT_OK);
	teardown();
	TAP_CHECK_STR(errbuf, "txrdma-admin: tenant set: warning: careful\n");
	cleanup_bufs();
}

static void check_tenant_error(enum txa_cmd cmd, const char *what, int error,
			       const char *extack, const char *want)
{
	struct txa_tenant_args t = { .name = "a", .cgroup = "/db/a",
				     .prio = -1 };

	setup(handle_ack_or_error);
	fake.errno_to_send = error;
	fake.extack = extack;
	fake.capped = true;
	TAP_CHECK_INT(run_tenant(cmd, what, &t, false, false), TXA_EXIT_FAIL);
	teardown();
	TAP_CHECK_STR(errbuf, want);
	cleanup_bufs();
}

static void test_tenant_errors(void)
{
	check_tenant_error(TXA_CMD_TENANT_ADD, "tenant add", EEXIST,
			   "tenant \"a\" exists",
			   "txrdma-admin: tenant add: tenant \"a\" exists (File exists)\n");
	check_tenant_error(TXA_CMD_TENANT_ADD, "tenant add", EPERM, NULL,
			   "txrdma-admin: tenant add: operation not permitted (changing txrdma needs CAP_NET_ADMIN)\n");
	check_tenant_error(TXA_CMD_TENANT_DEL, "tenant del", EPERM, NULL,
			   "txrdma-admin: tenant del: operation not permitted (changing txrdma needs CAP_NET_ADMIN)\n");
	check_tenant_error(TXA_CMD_TENANT_ADD, "tenant add", ENOENT, NULL,
			   "txrdma-admin: tenant add: no cgroup \"/db/a\" under the cgroup2 mount (No such file or directory)\n");
	check_tenant_error(TXA_CMD_TENANT_ADD, "tenant add", EEXIST, NULL,
			   "txrdma-admin: tenant add: tenant \"a\", or a tenant of cgroup \"/db/a\", exists (File exists)\n");
	check_tenant_error(TXA_CMD_TENANT_ADD, "tenant add", ENOSPC, NULL,
			   "txrdma-admin: tenant add: too many tenants (No space left on device)\n");
	check_tenant_error(TXA_CMD_TENANT_SET, "tenant set", ENOENT, NULL,
			   "txrdma-admin: tenant set: no tenant \"a\" (No such file or directory)\n");
	check_tenant_error(TXA_CMD_TENANT_SET, "tenant set", EOPNOTSUPP, NULL,
			   "txrdma-admin: tenant set: the cgroup of a tenant cannot be changed (Operation not supported)\n");
	check_tenant_error(TXA_CMD_TENANT_SET, "tenant set", EOPNOTSUPP,
			   "a tenant's cgroup cannot change",
			   "txrdma-admin: tenant set: a tenant's cgroup cannot change (Operation not supported)\n");
	check_tenant_error(TXA_CMD_TENANT_DEL, "tenant del", EBUSY, NULL,
			   "txrdma-admin: tenant del: tenant \"a\" holds resources (\"force\" deletes it anyway) (Device or resource busy)\n");
	check_tenant_error(TXA_CMD_TENANT_DEL, "tenant del", EBUSY,
			   "tenant a holds 3 QPs",
			   "txrdma-admin: tenant del: tenant a holds 3 QPs (Device or resource busy)\n");
	check_tenant_error(TXA_CMD_TENANT_ADD, "tenant add", EINVAL,
			   "bw burst without a bw rate",
			   "txrdma-admin: tenant add: bw burst without a bw rate (Invalid argument)\n");
}

static void test_tenant_print_sparse(void)
{
	struct txa_tenant t = { 0 };
	char *buf = NULL;
	size_t len;
	FILE *f;

	/* only some limits, an unknown priority, no counters */
	snprintf(t.name, sizeof(t.name), "s");
	t.have = TXA_TEN_HAVE_NAME | TXA_TEN_HAVE_PRIO;
	t.prio = 9;
	t.limits_have = (1U << TXA_LIM_QPS) | (1U << TXA_LIM_BW_RATE) |
			(1U << TXA_LIM_BW_BURST);
	t.limits[TXA_LIM_QPS] = 4;
	t.limits[TXA_LIM_BW_RATE] = UNL;
	t.limits[TXA_LIM_BW_BURST] = 3072;
	f = open_memstream(&buf, &len);
	txa_tenant_print_plain(f, &t);
	fclose(f);
	TAP_CHECK_STR(buf, "s: prio unknown(9)\n    qps 4\n    bw unlimited burst 3K\n");
	free(buf);

	/* listeners alone (usage and refusals only, no limit yet) */
	t.have = TXA_TEN_HAVE_NAME;
	t.limits_have = 0;
	t.usage_have = t.refused_have = 1U << TXA_LIM_LISTENERS;
	t.usage[TXA_LIM_LISTENERS] = 7;
	t.refused[TXA_LIM_LISTENERS] = 2;
	buf = NULL;
	f = open_memstream(&buf, &len);
	txa_tenant_print_plain(f, &t);
	fclose(f);
	TAP_CHECK_STR(buf, "s:\n    listeners 7/? refused 2\n");
	free(buf);
}

/* ---- peers ---------------------------------------------------------- */

#define G1_CHANGE_NS	1796047200123456789ULL	/* 2026-11-30 14:00:00.123 */

static void put_addr(struct nl_msg *m, int type, uint8_t a, uint8_t b,
		     uint8_t c, uint8_t d)
{
	uint8_t v[4] = { a, b, c, d };

	nla_put(m, type, sizeof(v), v);
}

/* g1: every attribute of a GET reply, Up, a second path to the host
 * of g0; "rxe0" shifts the u64s so that PADs are needed
 */
static void put_peer_g1(struct nl_msg *m)
{
	nla_put_string(m, TXRDMA_A_PEER_NAME, "g1");
	nla_put_u32(m, TXRDMA_A_PEER_ID, 1);
	put_addr(m, TXRDMA_A_PEER_ADDR, 198, 18, 0, 2);
	nla_put_u16(m, TXRDMA_A_PEER_PORT, 7388);
	nla_put_string(m, TXRDMA_A_PEER_PATH_OF, "g0");
	nla_put_string(m, TXRDMA_A_PEER_DEV, "rxe0");
	put_addr(m, TXRDMA_A_PEER_LOCAL_ADDR, 198, 18, 0, 1);
	nla_put_u8(m, TXRDMA_A_PEER_ROLE, TXRDMA_PEER_ROLE_INITIATOR);
	nla_put_u8(m, TXRDMA_A_PEER_STATE, TXRDMA_PEER_UP);
	nla_put_u8(m, TXRDMA_A_PEER_REMOTE_STATE, TXRDMA_PEER_UP);
	nla_put_u8(m, TXRDMA_A_PEER_DIAG, TXRDMA_PEER_DIAG_NONE);
	nla_put_u8(m, TXRDMA_A_PEER_ADMIN_UP, 1);
	nla_put_u32(m, TXRDMA_A_PEER_TX_US, 20000);
	nla_put_u32(m, TXRDMA_A_PEER_RX_US, 20000);
	nla_put_u8(m, TXRDMA_A_PEER_MULT, 4);
	nla_put_u32(m, TXRDMA_A_PEER_NEG_TX_US, 20000);
	nla_put_u32(m, TXRDMA_A_PEER_DETECT_US, 80000);
	nla_put_u32(m, TXRDMA_A_PEER_LOCAL_DISC, 0x1234);
	nla_put_u32(m, TXRDMA_A_PEER_REMOTE_DISC, 0x5678);
	put_u64(m, TXRDMA_A_PEER_TX_PKTS, 120);
	put_u64(m, TXRDMA_A_PEER_RX_PKTS, 118);
	put_u64(m, TXRDMA_A_PEER_RX_DROPPED, 0);
	put_u64(m, TXRDMA_A_PEER_TX_SKIPPED, 0);
	put_u64(m, TXRDMA_A_PEER_STALLS, 2);
	put_u64(m, TXRDMA_A_PEER_STALL_MAX_NS, 23400000);
	put_u64(m, TXRDMA_A_PEER_RTT_MIN_NS, 120000);
	put_u64(m, TXRDMA_A_PEER_RTT_AVG_NS, 300000);
	put_u64(m, TXRDMA_A_PEER_RTT_MAX_NS, 1200000);
	put_u64(m, TXRDMA_A_PEER_RTT_SAMPLES, 118);
	put_u64(m, TXRDMA_A_PEER_UPS, 1);
	put_u64(m, TXRDMA_A_PEER_DOWNS, 0);
	put_u64(m, TXRDMA_A_PEER_FLAPS, 5);
	put_u64(m, TXRDMA_A_PEER_DOWNS_STALLED, 6);
	put_u64(m, TXRDMA_A_PEER_DOWNS_UNEXPLAINED, 7);
	put_u64(m, TXRDMA_A_PEER_REMOTE_STALL_MAX_NS, 181500000);
	put_u64(m, TXRDMA_A_PEER_LAST_CHANGE_NS, G1_CHANGE_NS);
	nla_put_u32(m, TXRDMA_A_PEER_POOL_MIN, 2);
	nla_put_u32(m, TXRDMA_A_PEER_POOL_MAX, 8);
	nla_put_u32(m, TXRDMA_A_PEER_POOL_READY, 2);
	nla_put_u32(m, TXRDMA_A_PEER_POOL_IN_USE, 0);
	nla_put_u32(m, TXRDMA_A_PEER_POOL_CONNECTING, 0);
	nla_put_u32(m, TXRDMA_A_PEER_POOL_CLOSING, 0);
	put_u64(m, TXRDMA_A_PEER_POOL_TAKES, 0);
	put_u64(m, TXRDMA_A_PEER_POOL_MISSES, 0);
	put_u64(m, TXRDMA_A_PEER_POOL_FAILURES, 0);
	put_u64(m, TXRDMA_A_PEER_POOL_ERRORS, 0);
	nla_put_u32(m, TXRDMA_A_PEER_QPS, 3);
	put_u64(m, TXRDMA_A_PEER_AUTH_FAILS, 3);
	put_u64(m, TXRDMA_A_PEER_RX_AUTH_DROPPED, 1);
}

/* g2: held AdminDown, unresolved, some counters only (no auth ones:
 * a module from before peer keys)
 */
static void put_peer_g2(struct nl_msg *m)
{
	nla_put_string(m, TXRDMA_A_PEER_NAME, "g2");
	nla_put_u32(m, TXRDMA_A_PEER_ID, 2);
	put_addr(m, TXRDMA_A_PEER_ADDR, 10, 0, 0, 9);
	nla_put_u16(m, TXRDMA_A_PEER_PORT, 7000);
	nla_put_u8(m, TXRDMA_A_PEER_ROLE, TXRDMA_PEER_ROLE_UNKNOWN);
	nla_put_u8(m, TXRDMA_A_PEER_STATE, TXRDMA_PEER_ADMIN_DOWN);
	nla_put_u8(m, TXRDMA_A_PEER_REMOTE_STATE, TXRDMA_PEER_DOWN);
	nla_put_u8(m, TXRDMA_A_PEER_DIAG, TXRDMA_PEER_DIAG_ADMIN_DOWN);
	nla_put_string(m, TXRDMA_A_PEER_REASON, "held down by \"ops\"");
	nla_put_u8(m, TXRDMA_A_PEER_ADMIN_UP, 0);
	nla_put_u32(m, TXRDMA_A_PEER_TX_US, 1000);
	nla_put_u32(m, TXRDMA_A_PEER_RX_US, 2000);
	nla_put_u8(m, TXRDMA_A_PEER_MULT, 3);
	nla_put_u32(m, TXRDMA_A_PEER_LOCAL_DISC, 0xabcdef01);
	nla_put_u32(m, TXRDMA_A_PEER_REMOTE_DISC, 0);
	put_u64(m, TXRDMA_A_PEER_TX_PKTS, 5);
	put_u64(m, TXRDMA_A_PEER_RX_PKTS, 0);
	put_u64(m, TXRDMA_A_PEER_RX_DROPPED, 2);
	put_u64(m, TXRDMA_A_PEER_TX_SKIPPED, 1);
	put_u64(m, TXRDMA_A_PEER_RTT_SAMPLES, 0);
	put_u64(m, TXRDMA_A_PEER_UPS, 0);
	put_u64(m, TXRDMA_A_PEER_DOWNS, 0);
	put_u64(m, TXRDMA_A_PEER_LAST_CHANGE_NS, 0);
	nla_put_u32(m, TXRDMA_A_PEER_POOL_MIN, 0);
	nla_put_u32(m, TXRDMA_A_PEER_POOL_MAX, 4);
	put_u64(m, TXRDMA_A_PEER_POOL_TAKES, UINT64_MAX);
	nla_put_u32(m, TXRDMA_A_PEER_QPS, 0);
}

static void (*const fpeers[2])(struct nl_msg *) = { put_peer_g1, put_peer_g2 };
static const char *const fpeer_names[2] = { "g1", "g2" };

/* dump (fake.ndevs peers, in two datagrams) or do (by name) */
static void handle_peer_get(const struct nlmsghdr *req)
{
	struct nlattr *tb[TXRDMA_A_MAX + 1];
	struct nl_msg *m;
	unsigned int i;

	if (fake.errno_to_send) {
		queue_error(fake.errno_to_send, fake.extack, true);
		return;
	}
	if (req->nlmsg_flags & NLM_F_DUMP) {
		for (i = 0; i < fake.ndevs; i++) {
			m = genl_reply(TXRDMA_CMD_PEER_GET, NLM_F_MULTI);
			fpeers[i](m);
			queue_append(m, i == 1);
		}
		queue_done(0);
		return;
	}
	genlmsg_parse((struct nlmsghdr *)req, 0, tb, TXRDMA_A_MAX, NULL);
	for (i = 0; i < 2; i++) {
		if (tb[TXRDMA_A_PEER_NAME] &&
		    !strcmp(nla_get_string(tb[TXRDMA_A_PEER_NAME]),
			    fpeer_names[i])) {
			m = genl_reply(TXRDMA_CMD_PEER_GET, 0);
			fpeers[i](m);
			queue_append(m, true);
			queue_error(0, NULL, true);
			return;
		}
	}
	queue_error(ENOENT, "no such peer", true);
}

static int run_peer(enum txa_cmd cmd, const char *what,
		    const struct txa_peer_args *p, bool json, bool pretty)
{
	struct txa_args a = { .cmd = cmd, .json = json, .pretty = pretty,
			      .enabled = -1, .peer = *p };
	int ret;

	nl.what = what;
	switch (cmd) {
	case TXA_CMD_PEER_SHOW:
		ret = txa_peer_show(&nl, &a, out);
		break;
	case TXA_CMD_PEER_ADD:
		ret = txa_peer_add(&nl, &a);
		break;
	case TXA_CMD_PEER_SET:
		ret = txa_peer_set(&nl, &a);
		break;
	default:
		ret = txa_peer_del(&nl, &a);
		break;
	}
	fflush(out);
	fflush(nl.err);
	return ret;
}

static const struct txa_peer_args no_peer_args;

static const char peer_plain[] =
"g1: id 1 addr 198.18.0.2 port 7388 dev rxe0 path-of g0 local 198.18.0.1 role initiator state up remote up admin up\n"
"    bfd tx 20000us rx 20000us mult 4 negotiated tx 20000us detect 80000us disc 0x1234/0x5678 "
"probes tx 120 rx 118 dropped 0 skipped 0 stalls 2 (max 23.4ms) auth fails 3 dropped 1\n"
"    rtt min 0.120ms avg 0.300ms max 1.200ms (118 samples) ups 1 downs 0 flaps 5 stalled 6 unexplained 7 "
"(peer stalled max 181.5ms) last change 2026-11-30 14:00:00.123\n"
"    pool min 2 max 8 ready 2 in use 0 connecting 0 closing 0 takes 0 misses 0 failures 0 errors 0 qps 3\n"
"g2: id 2 addr 10.0.0.9 port 7000 role unknown state admin_down (admin_down: held down by \"ops\") "
"remote down admin down\n"
"    bfd tx 1000us rx 2000us mult 3 disc 0xabcdef01/0x0 probes tx 5 rx 0 dropped 2 skipped 1\n"
"    rtt (0 samples) ups 0 downs 0 last change never\n"
"    pool min 0 max 4 takes 18446744073709551615 qps 0\n";

static const char peer_g1_json[] =
"{\"name\":\"g1\",\"id\":1,\"addr\":\"198.18.0.2\",\"port\":7388,\"dev\":\"rxe0\","
"\"path_of\":\"g0\",\"local_addr\":\"198.18.0.1\",\"role\":\"initiator\",\"state\":\"up\",\"remote_state\":\"up\","
"\"diag\":\"none\",\"admin\":\"up\","
"\"bfd\":{\"tx_us\":20000,\"rx_us\":20000,\"mult\":4,\"neg_tx_us\":20000,\"detect_us\":80000,"
"\"local_disc\":4660,\"remote_disc\":22136,\"tx_pkts\":120,\"rx_pkts\":118,\"rx_dropped\":0,"
"\"tx_skipped\":0,\"stalls\":2,\"stall_max_ns\":23400000,\"auth_fails\":3,\"rx_auth_dropped\":1},"
"\"rtt\":{\"min_ns\":120000,\"avg_ns\":300000,\"max_ns\":1200000,\"samples\":118},"
"\"pool\":{\"min\":2,\"max\":8,\"ready\":2,\"in_use\":0,\"connecting\":0,\"closing\":0,"
"\"takes\":0,\"misses\":0,\"failures\":0,\"errors\":0},"
"\"qps\":3,\"ups\":1,\"downs\":0,\"flaps\":5,\"downs_stalled\":6,\"downs_unexplained\":7,"
"\"remote_stall_max_ns\":181500000,\"last_change_ns\":1796047200123456789}";

static const char peer_g2_json[] =
"{\"name\":\"g2\",\"id\":2,\"addr\":\"10.0.0.9\",\"port\":7000,\"role\":\"unknown\","
"\"state\":\"admin_down\",\"remote_state\":\"down\",\"diag\":\"admin_down\","
"\"reason\":\"held down by \\\"ops\\\"\",\"admin\":\"down\","
"\"bfd\":{\"tx_us\":1000,\"rx_us\":2000,\"mult\":3,\"local_disc\":2882400001,\"remote_disc\":0,"
"\"tx_pkts\":5,\"rx_pkts\":0,\"rx_dropped\":2,\"tx_skipped\":1},"
"\"rtt\":{\"samples\":0},"
"\"pool\":{\"min\":0,\"max\":4,\"takes\":18446744073709551615},"
"\"qps\":0,\"ups\":0,\"downs\":0,\"last_change_ns\":0}";

static void test_peer_dump(void)
{
	char want[4096];

	setup(handle_peer_get);
	TAP_CHECK_INT(run_peer(TXA_CMD_PEER_SHOW, "peer show", &no_peer_args,
			       false, false), TXA_EXIT_OK);
	TAP_CHECK(fake.req->nlmsg_flags & NLM_F_DUMP);
	TAP_CHECK(((struct genlmsghdr *)nlmsg_data(fake.req))->cmd ==
		  TXRDMA_CMD_PEER_GET);
	TAP_CHECK_INT(fake.req->nlmsg_type, FAMILY);
	teardown();
	TAP_CHECK_STR(outbuf, peer_plain);
	TAP_CHECK_STR(errbuf, "");
	cleanup_bufs();

	setup(handle_peer_get);
	TAP_CHECK_INT(run_peer(TXA_CMD_PEER_SHOW, "peer show", &no_peer_args,
			       true, false), TXA_EXIT_OK);
	teardown();
	snprintf(want, sizeof(want), "[%s,%s]\n", peer_g1_json, peer_g2_json);
	TAP_CHECK_STR(outbuf, want);
	cleanup_bufs();

	/* pretty: the same document, indented by four */
	setup(handle_peer_get);
	TAP_CHECK_INT(run_peer(TXA_CMD_PEER_SHOW, "peer show", &no_peer_args,
			       true, true), TXA_EXIT_OK);
	teardown();
	TAP_CHECK(!strncmp(outbuf, "[\n    {\n        \"name\": \"g1\",\n        \"id\": 1,\n", 47));
	TAP_CHECK(strstr(outbuf, "\n        \"bfd\": {\n            \"tx_us\": 20000,\n"));
	TAP_CHECK(strstr(outbuf, "\n        \"last_change_ns\": 0\n    }\n]\n"));
	cleanup_bufs();

	setup(handle_peer_get);
	fake.ndevs = 0;
	TAP_CHECK_INT(run_peer(TXA_CMD_PEER_SHOW, "peer show", &no_peer_args,
			       true, false), TXA_EXIT_OK);
	teardown();
	TAP_CHECK_STR(outbuf, "[]\n");
	cleanup_bufs();

	setup(handle_peer_get);
	fake.ndevs = 0;
	TAP_CHECK_INT(run_peer(TXA_CMD_PEER_SHOW, "peer show", &no_peer_args,
			       false, false), TXA_EXIT_OK);
	teardown();
	TAP_CHECK_STR(outbuf, "");
	cleanup_bufs();
}

static void test_peer_show_do(void)
{
	struct txa_peer_args p = { .name = "g2" };
	struct nlattr *tb[TXRDMA_A_MAX + 1];
	char want[2048];
	int i, n = 0;

	setup(handle_peer_get);
	TAP_CHECK_INT(run_peer(TXA_CMD_PEER_SHOW, "peer show", &p, true,
			       false), TXA_EXIT_OK);
	TAP_CHECK(!(fake.req->nlmsg_flags & NLM_F_DUMP));
	TAP_CHECK(fake.req->nlmsg_flags & NLM_F_ACK);
	TAP_CHECK_INT(genlmsg_parse(fake.req, 0, tb, TXRDMA_A_MAX, NULL), 0);
	TAP_CHECK(tb[TXRDMA_A_PEER_NAME] &&
		  !strcmp(nla_get_string(tb[TXRDMA_A_PEER_NAME]), "g2"));
	for (i = 0; i <= TXRDMA_A_MAX; i++)
		n += !!tb[i];
	TAP_CHECK_INT(n, 1);
	teardown();
	snprintf(want, sizeof(want), "[%s]\n", peer_g2_json);
	TAP_CHECK_STR(outbuf, want);	/* a one-element array */
	cleanup_bufs();

	setup(handle_peer_get);
	TAP_CHECK_INT(run_peer(TXA_CMD_PEER_SHOW, "peer show", &p, false,
			       false), TXA_EXIT_OK);
	teardown();
	TAP_CHECK_STR(outbuf, strstr(peer_plain, "g2:"));
	cleanup_bufs();

	p.name = "zz";
	setup(handle_peer_get);
	TAP_CHECK_INT(run_peer(TXA_CMD_PEER_SHOW, "peer show", &p, false,
			       false), TXA_EXIT_FAIL);
	teardown();
	TAP_CHECK_STR(outbuf, "");
	TAP_CHECK_STR(errbuf, "txrdma-admin: peer show: no such peer (No such file or directory)\n");
	cleanup_bufs();

	/* without an extack message the tool names the peer */
	setup(handle_peer_get);
	fake.errno_to_send = ENOENT;
	TAP_CHECK_INT(run_peer(TXA_CMD_PEER_SHOW, "peer show", &p, false,
			       false), TXA_EXIT_FAIL);
	teardown();
	TAP_CHECK_STR(errbuf, "txrdma-admin: peer show: no peer \"zz\" (No such file or directory)\n");
	cleanup_bufs();

	/* a module from before peers: the command is unknown to it */
	setup(handle_peer_get);
	fake.errno_to_send = EOPNOTSUPP;
	TAP_CHECK_INT(run_peer(TXA_CMD_PEER_SHOW, "peer show", &no_peer_args,
			       false, false), TXA_EXIT_FAIL);
	teardown();
	TAP_CHECK_STR(errbuf, "txrdma-admin: peer show: the loaded txrdma module does not support this command (Operation not supported)\n");
	cleanup_bufs();
}

/* a 5-byte address, a 2-byte u32, then a peer with nothing but a name */
static void handle_peer_odd(const struct nlmsghdr *req)
{
	uint8_t five[5] = { 1, 2, 3, 4, 5 };
	uint16_t shortval = 3;
	struct nl_msg *m;

	(void)req;
	m = genl_reply(TXRDMA_CMD_PEER_GET, NLM_F_MULTI);
	nla_put_string(m, TXRDMA_A_PEER_NAME, "bad1");
	nla_put(m, TXRDMA_A_PEER_ADDR, sizeof(five), five);
	queue_append(m, true);
	m = genl_reply(TXRDMA_CMD_PEER_GET, NLM_F_MULTI);
	nla_put_string(m, TXRDMA_A_PEER_NAME, "bad2");
	nla_put(m, TXRDMA_A_PEER_POOL_MIN, sizeof(shortval), &shortval);
	queue_append(m, false);
	m = genl_reply(TXRDMA_CMD_PEER_GET, NLM_F_MULTI);
	nla_put_string(m, TXRDMA_A_PEER_NAME, "bad3");
	nla_put(m, TXRDMA_A_PEER_LOCAL_ADDR, 3, five);
	queue_append(m, false);
	m = genl_reply(TXRDMA_CMD_PEER_GET, NLM_F_MULTI);
	nla_put_string(m, TXRDMA_A_PEER_NAME, "bare");
	nla_put_u32(m, TXRDMA_A_MAX + 3, 1);	/* from a newer module */
	queue_append(m, false);
	queue_done(0);
}

static void test_peer_malformed(void)
{
	setup(handle_peer_odd);
	TAP_CHECK_INT(run_peer(TXA_CMD_PEER_SHOW, "peer show", &no_peer_args,
			       false, false), TXA_EXIT_FAIL);
	teardown();
	TAP_CHECK_STR(outbuf, "bare:\n");
	TAP_CHECK_STR(errbuf, "txrdma-admin: peer show: skipped a malformed reply from the kernel\n");
	cleanup_bufs();

	setup(handle_peer_odd);
	TAP_CHECK_INT(run_peer(TXA_CMD_PEER_SHOW, "peer show", &no_peer_args,
			       true, false), TXA_EXIT_FAIL);
	teardown();
	TAP_CHECK_STR(outbuf, "[{\"name\":\"bare\"}]\n");
	cleanup_bufs();
}

static bool addr_eq(const uint8_t *a, uint8_t b0, uint8_t b1, uint8_t b2,
		    uint8_t b3)
{
	return a[0] == b0 && a[1] == b1 && a[2] == b2 && a[3] == b3;
}

#define PF(f)	(1ULL << TXA_PF_##f)

/* a GET reply built here, parsed into struct txa_peer */
static void test_peer_parse_reply(void)
{
	struct nl_msg *m = genl_reply(TXRDMA_CMD_PEER_GET, 0);
	struct nlattr *tb[TXRDMA_A_MAX + 1];
	struct txa_peer p;

	put_peer_g1(m);
	/* the layout really has PADs before some u64s */
	TAP_CHECK_INT(genlmsg_parse(nlmsg_hdr(m), 0, tb, TXRDMA_A_MAX, NULL), 0);
	TAP_CHECK(tb[TXRDMA_A_PAD] != NULL);

	TAP_CHECK_INT(txa_peer_parse(nlmsg_hdr(m), &p), 0);
	TAP_CHECK_INT(p.cmd, TXRDMA_CMD_PEER_GET);
	TAP_CHECK_STR(p.name, "g1");
	TAP_CHECK_INT(p.id, 1);
	TAP_CHECK(addr_eq(p.addr, 198, 18, 0, 2));
	TAP_CHECK_INT(p.port, 7388);
	TAP_CHECK_STR(p.dev, "rxe0");
	TAP_CHECK_STR(p.path_of, "g0");
	TAP_CHECK(addr_eq(p.local_addr, 198, 18, 0, 1));
	TAP_CHECK_INT(p.role, TXRDMA_PEER_ROLE_INITIATOR);
	TAP_CHECK_INT(p.state, TXRDMA_PEER_UP);
	TAP_CHECK_INT(p.remote_state, TXRDMA_PEER_UP);
	TAP_CHECK_INT(p.diag, TXRDMA_PEER_DIAG_NONE);
	TAP_CHECK_INT(p.admin_up, 1);
	TAP_CHECK(p.tx_us == 20000 && p.rx_us == 20000 && p.mult == 4);
	TAP_CHECK(p.neg_tx_us == 20000 && p.detect_us == 80000);
	TAP_CHECK(p.local_disc == 0x1234 && p.remote_disc == 0x5678);
	TAP_CHECK(p.tx_pkts == 120 && p.rx_pkts == 118);
	TAP_CHECK(p.rtt_min_ns == 120000 && p.rtt_avg_ns == 300000 &&
		  p.rtt_max_ns == 1200000 && p.rtt_samples == 118);
	TAP_CHECK(p.ups == 1 && p.downs == 0);
	TAP_CHECK(p.flaps == 5 && p.downs_stalled == 6 &&
		  p.downs_unexplained == 7 &&
		  p.remote_stall_max_ns == 181500000);
	TAP_CHECK(p.last_change_ns == G1_CHANGE_NS);
	TAP_CHECK(p.pool_min == 2 && p.pool_max == 8 && p.pool_ready == 2);
	TAP_CHECK_INT(p.qps, 3);
	TAP_CHECK(p.auth_fails == 3 && p.rx_auth_dropped == 1);
	TAP_CHECK(p.reason == NULL);
	/* every field but the event-only ones */
	TAP_CHECK(p.have == (((1ULL << TXA_PF_NR) - 1) &
			     ~(PF(OLD_STATE) | PF(REASON) | PF(SILENCE) |
			       PF(DOWN_CAUSE) | PF(DOWN_NS) | PF(DOWN_STALL) |
			       PF(FLAP) | PF(TIME) | PF(SEQ))));
	txa_peer_free(&p);
	nlmsg_free(m);

	m = genl_reply(TXRDMA_CMD_PEER_GET, 0);
	put_peer_g2(m);
	TAP_CHECK_INT(txa_peer_parse(nlmsg_hdr(m), &p), 0);
	TAP_CHECK_STR(p.reason, "held down by \"ops\"");
	TAP_CHECK(p.pool_takes == UINT64_MAX);
	TAP_CHECK(p.local_disc == 0xabcdef01);
	TAP_CHECK(!txa_peer_has(&p, TXA_PF_DEV) &&
		  !txa_peer_has(&p, TXA_PF_PATH_OF) && !p.path_of[0] &&
		  !txa_peer_has(&p, TXA_PF_LOCAL_ADDR) &&
		  !txa_peer_has(&p, TXA_PF_RTT_MIN) &&
		  !txa_peer_has(&p, TXA_PF_AUTH_FAILS) &&
		  !txa_peer_has(&p, TXA_PF_RX_AUTH_DROPPED) &&
		  txa_peer_has(&p, TXA_PF_RTT_SAMPLES));
	txa_peer_free(&p);
	txa_peer_free(&p);	/* twice is harmless */
	nlmsg_free(m);

	/* not a genl message at all */
	m = nlmsg_alloc_simple(FAMILY, 0);
	TAP_CHECK_INT(txa_peer_parse(nlmsg_hdr(m), &p), -EINVAL);
	txa_peer_free(&p);
	nlmsg_free(m);
}

static void test_peer_names(void)
{
	char buf[TXA_PEER_NAME_STRLEN];

	TAP_CHECK_STR(txa_peer_state_str(TXRDMA_PEER_ADMIN_DOWN, buf, sizeof(buf)),
		      "admin_down");
	TAP_CHECK_STR(txa_peer_state_str(TXRDMA_PEER_DOWN, buf, sizeof(buf)), "down");
	TAP_CHECK_STR(txa_peer_state_str(TXRDMA_PEER_INIT, buf, sizeof(buf)), "init");
	TAP_CHECK_STR(txa_peer_state_str(TXRDMA_PEER_UP, buf, sizeof(buf)), "up");
	TAP_CHECK_STR(txa_peer_state_str(4, buf, sizeof(buf)), "unknown(4)");
	TAP_CHECK_STR(txa_peer_state_str(255, buf, sizeof(buf)), "unknown(255)");
	TAP_CHECK_STR(txa_peer_role_str(TXRDMA_PEER_ROLE_UNKNOWN, buf, sizeof(buf)),
		      "unknown");
	TAP_CHECK_STR(txa_peer_role_str(TXRDMA_PEER_ROLE_INITIATOR, buf, sizeof(buf)),
		      "initiator");
	TAP_CHECK_STR(txa_peer_role_str(TXRDMA_PEER_ROLE_ACCEPTOR, buf, sizeof(buf)),
		      "acceptor");
	TAP_CHECK_STR(txa_peer_role_str(3, buf, sizeof(buf)), "unknown(3)");
	TAP_CHECK_STR(txa_peer_diag_str(0, buf, sizeof(buf)), "none");
	TAP_CHECK_STR(txa_peer_diag_str(1, buf, sizeof(buf)), "detect_expired");
	TAP_CHECK_STR(txa_peer_diag_str(3, buf, sizeof(buf)), "neighbor_down");
	TAP_CHECK_STR(txa_peer_diag_str(7, buf, sizeof(buf)), "admin_down");
	TAP_CHECK_STR(txa_peer_diag_str(2, buf, sizeof(buf)), "diag 2");
	TAP_CHECK_STR(txa_peer_diag_str(5, buf, sizeof(buf)), "diag 5");
	TAP_CHECK_STR(txa_peer_diag_str(8, buf, sizeof(buf)), "diag 8");
	TAP_CHECK_STR(txa_peer_diag_str(255, buf, sizeof(buf)), "diag 255");
}

static char *print_peer(const struct txa_peer *p)
{
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	txa_peer_print_plain(f, p);
	fclose(f);
	return buf;
}

static void test_peer_print_sparse(void)
{
	struct txa_peer p = { 0 };
	char *buf;

	/* nothing at all */
	buf = print_peer(&p);
	TAP_CHECK_STR(buf, "?:\n");
	free(buf);

	snprintf(p.name, sizeof(p.name), "s");
	p.have = PF(NAME) | PF(STATE) | PF(DIAG);
	p.state = TXRDMA_PEER_INIT;
	p.diag = 2;
	buf = print_peer(&p);
	TAP_CHECK_STR(buf, "s: state init (diag 2)\n");
	free(buf);

	/* one half of the discriminators, ups without rtt, qps alone */
	p.have = PF(NAME) | PF(REMOTE_DISC) | PF(UPS) | PF(QPS) | PF(POOL_READY);
	p.remote_disc = 5;
	p.ups = 2;
	p.qps = 1;
	p.pool_ready = 1;
	buf = print_peer(&p);
	TAP_CHECK_STR(buf, "s:\n    bfd disc ?/0x5\n    ups 2\n    pool ready 1 qps 1\n");
	free(buf);

	p.have = PF(NAME) | PF(LOCAL_DISC) | PF(RTT_AVG) | PF(RTT_SAMPLES) |
		 PF(LAST_CHANGE) | PF(QPS);
	p.local_disc = 0xffffffff;
	p.rtt_avg_ns = 999;
	p.rtt_samples = 1;
	p.last_change_ns = 1;
	buf = print_peer(&p);
	TAP_CHECK_STR(buf, "s:\n    bfd disc 0xffffffff/?\n"
		      "    rtt avg 0.001ms (1 sample) last change 1970-01-01 00:00:00.000\n"
		      "    qps 1\n");
	free(buf);

	/* the auth counters alone, one of them alone */
	p.have = PF(NAME) | PF(AUTH_FAILS) | PF(RX_AUTH_DROPPED);
	p.auth_fails = 18446744073709551615ULL;
	p.rx_auth_dropped = 0;
	buf = print_peer(&p);
	TAP_CHECK_STR(buf, "s:\n    bfd auth fails 18446744073709551615 dropped 0\n");
	free(buf);
	p.have = PF(NAME) | PF(RX_AUTH_DROPPED) | PF(STALLS);
	p.stalls = 0;
	p.rx_auth_dropped = 4;
	buf = print_peer(&p);
	TAP_CHECK_STR(buf, "s:\n    bfd stalls 0 auth dropped 4\n");
	free(buf);

	/* path-of alone, and right after dev */
	p.have = PF(NAME) | PF(PATH_OF);
	snprintf(p.path_of, sizeof(p.path_of), "g0");
	buf = print_peer(&p);
	TAP_CHECK_STR(buf, "s: path-of g0\n");
	free(buf);
	p.have = PF(NAME) | PF(DEV) | PF(PATH_OF) | PF(STATE);
	snprintf(p.dev, sizeof(p.dev), "mlx5_1");
	p.state = TXRDMA_PEER_UP;
	buf = print_peer(&p);
	TAP_CHECK_STR(buf, "s: dev mlx5_1 path-of g0 state up\n");
	free(buf);

	/* a reason without a diagnostic; an empty reason is no reason */
	p.have = PF(NAME) | PF(STATE) | PF(REASON) | PF(DIAG);
	p.state = TXRDMA_PEER_DOWN;
	p.diag = TXRDMA_PEER_DIAG_NONE;
	p.reason = "no route";
	buf = print_peer(&p);
	TAP_CHECK_STR(buf, "s: state down (no route)\n");
	free(buf);
	p.reason = "";
	buf = print_peer(&p);
	TAP_CHECK_STR(buf, "s: state down\n");
	free(buf);
}

static bool req_attr(struct nlattr **tb, int attr, int len)
{
	return tb[attr] && nla_len(tb[attr]) == len;
}

static int count_attrs(struct nlattr **tb)
{
	int i, n = 0;

	for (i = 0; i <= TXRDMA_A_MAX; i++)
		n += !!tb[i];
	return n;
}

#define ALL_ADD	((1U << TXA_PARG_ADMIN_UP) - 1)

/* ---- peer keys ------------------------------------------------------ */

/* 32 bytes no other attribute of the tests holds */
static const uint8_t test_key[32] = {
	0xc0, 0xff, 0xee, 0x00, 0xde, 0xad, 0xbe, 0xef,
	0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
	0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10,
	0x0f, 0x1e, 0x2d, 0x3c, 0x4b, 0x5a, 0x69, 0x78,
};
#define TEST_KEY_HEX \
	"c0ffee00deadbeef0123456789abcdeffedcba98765432100f1e2d3c4b5a6978"

static char keydir[64];
static char key_path[128], open_key_path[128];

/* @path: @text, mode @mode exactly */
static void write_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	size_t len = strlen(text);

	if (fd < 0 || write(fd, text, len) != (ssize_t)len || fchmod(fd, mode))
		tap_diag("  cannot make %s", path);
	if (fd >= 0)
		close(fd);
}

/* key_path: TEST_KEY_HEX, mode 600; open_key_path: the same, mode 644 */
static void make_keys(void)
{
	if (keydir[0])
		return;
	snprintf(keydir, sizeof(keydir), "/tmp/txa-nl-XXXXXX");
	if (!mkdtemp(keydir)) {
		tap_diag("  mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(key_path, sizeof(key_path), "%s/peer.key", keydir);
	snprintf(open_key_path, sizeof(open_key_path), "%s/open.key", keydir);
	write_file(key_path, TEST_KEY_HEX "\n", 0600);
	write_file(open_key_path, TEST_KEY_HEX "\n", 0644);
}

static void remove_keys(void)
{
	if (!keydir[0])
		return;
	unlink(key_path);
	unlink(open_key_path);
	rmdir(keydir);
}

/* no form of test_key in @s: hex either case, raw bytes, a long run */
static bool no_key_in(const char *s)
{
	char upper[sizeof(TEST_KEY_HEX)], half[17];
	size_t i;

	if (!s)
		return true;
	for (i = 0; i < sizeof(upper); i++)
		upper[i] = (char)toupper((unsigned char)TEST_KEY_HEX[i]);
	if (strcasestr(s, TEST_KEY_HEX) || strstr(s, upper) ||
	    memmem(s, strlen(s), test_key, 8) ||
	    memmem(s, strlen(s), test_key + 16, 8))
		return false;
	/* any 16 hex digits of it (a part of the key is a leak too) */
	for (i = 0; i + 16 <= sizeof(TEST_KEY_HEX) - 1; i += 8) {
		memcpy(half, TEST_KEY_HEX + i, 16);
		half[16] = '\0';
		if (strcasestr(s, half))
			return false;
	}
	return true;
}

/* the request's key attribute holds exactly @key[0..@len) */
static bool req_key(struct nlattr **tb, const uint8_t *key, int len)
{
	return tb[TXRDMA_A_PEER_KEY] && nla_len(tb[TXRDMA_A_PEER_KEY]) == len &&
	       !memcmp(nla_data(tb[TXRDMA_A_PEER_KEY]), key, (size_t)len);
}

static void test_peer_add_request(void)
{
	struct txa_peer_args p = {
		.name = "g1", .given = ALL_ADD | (1U << TXA_PARG_KEY),
		.addr = { 198, 18, 0, 2 },
		.dev = "rxe0", .port = 7388, .pool_min = 2, .pool_max = 8,
		.tx_us = 20000, .rx_us = 30000, .mult = 4,
	};
	struct nlattr *tb[TXRDMA_A_MAX + 1];

	make_keys();
	p.key_file = key_path;

	setup(handle_ack_or_error);
	TAP_CHECK_INT(run_peer(TXA_CMD_PEER_ADD, "peer add", &p, false, false),
		      TXA_EXIT_OK);
	TAP_CHECK(((struct genlmsghdr *)nlmsg_data(fake.req))->cmd ==
		  TXRDMA_CMD_PEER_NEW);
	TAP_CHECK(fake.req->nlmsg_flags & NLM_F_ACK);
	TAP_CHECK(!(fake.req->nlmsg_flags & NLM_F_DUMP));
	TAP_CHECK_INT(genlmsg_parse(fake.req, 0, tb, TXRDMA_A_MAX, NULL), 0);
	TAP_CHECK(tb[TXRDMA_A_PEER_NAME] &&
		  !strcmp(nla_get_string(tb[TXRDMA_A_PEER_NAME]), "g1"));
	TAP_CHECK(req_attr(tb, TXRDMA_A_PEER_ADDR, 4) &&
		  addr_eq(nla_data(tb[TXRDMA_A_PEER_ADDR]), 198, 18, 0, 2));
	TAP_CHECK(tb[TXRDMA_A_PEER_DEV] &&
		  !strcmp(nla_get_string(tb[TXRDMA_A_PEER_DEV]), "rxe0"));
	TAP_CHECK(req_attr(tb, TXRDMA_A_PEER_PORT, 2) &&
		  nla_get_u16(tb[TXRDMA_A_PEER_PORT]) == 7388);
	TAP_CHECK(req_attr(tb, TXRDMA_A_PEER_POOL_MIN, 4) &&
		  nla_get_u32(tb[TXRDMA_A_PEER_POOL_MIN]) == 2);
	TAP_CHECK(req_attr(tb, TXRDMA_A_PEER_POOL_MAX, 4) &&
		  nla_get_u32(tb[TXRDMA_A_PEER_POOL_MAX]) == 8);
	TAP_CHECK(req_attr(tb, TXRDMA_A_PEER_TX_US, 4) &&
		  nla_get_u32(tb[TXRDMA_A_PEER_TX_US]) == 20000);
	TAP_CHECK(req_attr(tb, TXRDMA_A_PEER_RX_US, 4) &&
		  nla_get_u32(tb[TXRDMA_A_PEER_RX_US]) == 30000);
	TAP_CHECK(req_attr(tb, TXRDMA_A_PEER_MULT, 1) &&
		  nla_get_u8(tb[TXRDMA_A_PEER_MULT]) == 4);
	TAP_CHECK(!tb[TXRDMA_A_PEER_ADMIN_UP]);
	/* the key: exactly the bytes the hex in the file stands for */
	TAP_CHECK(req_key(tb, test_key, 32));
	TAP_CHECK_INT(count_attrs(tb), 10);
	/* and the tool's copy of the request was wiped after sending */
	TAP_CHECK(held_wiped());
	teardown();
	TAP_CHECK_STR(outbuf, "");
	TAP_CHECK_STR(errbuf, "");
	cleanup_bufs();

	/* another path to g0's host: path-of, a string as dev is */
	p.given = (1U << TXA_PARG_ADDR) | (1U << TXA_PARG_KEY) |
		  (1U << TXA_PARG_DEV) | (1U << TXA_PARG_PATH_OF);
	p.dev = "rxe1";
	p.path_of = "g0";
	setup(handle_ack_or_error);
	TAP_CHECK_INT(run_peer(TXA_CMD_PEER_ADD, "peer add", &p, false, false),
		      TXA_EXIT_OK);
	TAP_CHECK(((struct genlmsghdr *)nlmsg_data(fake.req))->cmd ==
		  TXRDMA_CMD_PEER_NEW);
	TAP_CHECK_INT(genlmsg_parse(fake.req, 0, tb, TXRDMA_A_MAX, NULL), 0);
	TAP_CHECK(req_attr(tb, TXRDMA_A_PEER_PATH_OF, 3) &&
		  !strcmp(nla_get_string(tb[TXRDMA_A_PEER_PATH_OF]), "g0"));
	TAP_CHECK(tb[TXRDMA_A_PEER_DEV] &&
		  !strcmp(nla_get_string(tb[TXRDMA_A_PEER_DEV]), "rxe1"));
	TAP_CHECK(req_key(tb, test_key, 32));
	TAP_CHECK_INT(count_attrs(tb), 5);
	TAP_CHECK(held_wiped());
	teardown();
	TAP_CHECK_STR(errbuf, "");
	cleanup_bufs();
	p.path_of = NULL;

	/* only the name, the address and the key */
	p.given = (1U << TXA_PARG_ADDR) | (1U << TXA_PARG_KEY);
	setup(handle_ack_or_error);
	TAP_CHECK_INT(run_peer(TXA_CMD_PEER_ADD, "peer add", &p, false, false),
		      TXA_EXIT_OK);
	TAP_CHECK_INT(genlmsg_parse(fake.req, 0, tb, TXRDMA_A_MAX, NULL), 0);
	TAP_CHECK(req_attr(tb, TXRDMA_A_PEER_ADDR, 4));
	TAP_CHECK(req_key(tb, test_key, 32));
	TAP_CHECK(!tb[TXRDMA_A_PEER_PATH_OF]);
	TAP_CHECK_INT(count_attrs(tb), 3);
	teardown();
	cleanup_bufs();
}

/* peer add ... key - with @text on standard input */
static int run_add_stdin(struct txa_peer_args *p, const char *text)
{
	int saved = dup(STDIN_FILENO), fds[2], ret;
	size_t len = strlen(text);

	if (saved < 0 || pipe(fds))
		return -1;
	if (write(fds[1], text, len) != (ssize_t)len)
		tap_diag("  short write to the pipe");
	close(fds[1]);
	dup2(fds[0], STDIN_FILENO);
	close(fds[0]);
	p->key_file = TXA_KEY_STDIN;
	ret = run_peer(TXA_CMD_PEER_ADD, "peer add", p, false, false);
	dup2(saved, STDIN_FILENO);
	close(saved);
	return ret;
}

static void test_peer_add_key(void)
{
	static const uint8_t ramp16[16] = {
		0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
	};
	struct txa_peer_args p = {
		.name = "g1", .addr = { 198, 18, 0, 2 },
		.given = (1U << TXA_PARG_ADDR) | (1U << TXA_PARG_KEY),
	};
	struct nlattr *tb[TXRDMA_A_MAX + 1];
	char want[512];

	make_keys();

	/* key -: 16 bytes of upper-case hex on standard input */
	setup(handle_ack_or_error);
	TAP_CHECK_INT(run_add_stdin(&p, "000102030405060708090A0B0C0D0E0F\n"),
		      TXA_EXIT_OK);
	TAP_CHECK(fake.req != NULL);
	if (fake.req) {
		TAP_CHECK_INT(genlmsg_parse(fake.req, 0, tb, TXRDMA_A_MAX,
					    NULL), 0);
		TAP_CHECK(req_key(tb, ramp16, 16));
	}
	TAP_CHECK(held_wiped());
	teardown();
	TAP_CHECK_STR(errbuf, "");
	cleanup_bufs();

	/* a bad key on standard input: exit 2, nothing sent */
	setup(handle_ack_or_error);
	TAP_CHECK_INT(run_add_stdin(&p, TEST_KEY_HEX "0\n"), TXA_EXIT_USAGE);
	TAP_CHECK(fake.req == NULL);
	teardown();
	TAP_CHECK_STR(errbuf, "txrdma-admin: peer add: the key on standard input has an odd number of hex digits (65): two make a byte\n");
	cleanup_bufs();

	/* no key: said before anything is read or sent (exit 2) */
	p.given = 1U << TXA_PARG_ADDR;
	p.key_file = NULL;
	setup(handle_ack_or_error);
	TAP_CHECK_INT(run_peer(TXA_CMD_PEER_ADD, "peer add", &p, false, false),
		      TXA_EXIT_USAGE);
	TAP_CHECK(fake.req == NULL);
	teardown();
	TAP_CHECK_STR(errbuf, "txrdma-admin: peer add needs key FILE: the hex key both hosts hold (openssl rand -hex 32 > FILE)\n");
	TAP_CHECK_STR(outbuf, "");
	cleanup_bufs();

	/* a key file others may read: refused unread, nothing sent */
	p.given = (1U << TXA_PARG_ADDR) | (1U << TXA_PARG_KEY);
	p.key_file = open_key_path;
	setup(handle_ack_or_error);
	TAP_CHECK_INT(run_peer(TXA_CMD_PEER_ADD, "peer add", &p, false, false),
		      TXA_EXIT_USAGE);
	TAP_CHECK(fake.req == NULL);
	teardown();
	snprintf(want, sizeof(want),
		 "txrdma-admin: peer add: key file %s is accessible by others: chmod 600 %s\n",
		 open_key_path, open_key_path);
	TAP_CHECK_STR(errbuf, want);
	TAP_CHECK(no_key_in(errbuf));
	cleanup_bufs();

	/* a missing file */
	snprintf(want, sizeof(want), "%s/none.key", keydir);
	p.key_file = want;
	setup(handle_ack_or_error);
	TAP_CHECK_INT(run_peer(TXA_CMD_PEER_ADD, "peer add", &p, false, false),
		      TXA_EXIT_USAGE);
	TAP_CHECK(fake.req == NULL);
	teardown();
	TAP_CHECK(errbuf && !strncmp(errbuf, "txrdma-admin: peer add: cannot read key file /tmp/txa-nl-", 57));
	TAP_CHECK(errbuf && strstr(errbuf, "/none.key: No such file or directory\n"));
	cleanup_bufs();

	/* the module refuses (its words, exit 1); the request is wiped too */
	p.key_file = key_path;
	setup(handle_ack_or_error);
	fake.errno_to_send = EINVAL;
	fake.extack = "a peer needs a key (16-64 bytes) that both hosts hold";
	fake.capped = true;
	TAP_CHECK_INT(run_peer(TXA_CMD_PEER_ADD, "peer add", &p, false, false),
		      TXA_EXIT_FAIL);
	TAP_CHECK(held_wiped());
	teardown();
	TAP_CHECK_STR(errbuf, "txrdma-admin: peer add: a peer needs a key (16-64 bytes) that both hosts hold (Invalid argument)\n");
	cleanup_bufs();

	/* an old kernel that echoes the whole request in its error: the
	 * tool still prints nothing of it
	 */
	setup(handle_ack_or_error);
	fake.errno_to_send = EEXIST;
	fake.capped = false;
	TAP_CHECK_INT(run_peer(TXA_CMD_PEER_ADD, "peer add", &p, false, false),
		      TXA_EXIT_FAIL);
	teardown();
	TAP_CHECK_STR(errbuf, "txrdma-admin: peer add: peer \"g1\", or a peer of address 198.18.0.2, exists (File exists)\n");
	TAP_CHECK(no_key_in(errbuf));
	cleanup_bufs();

	/* set and del never carry a key, whatever the arguments hold */
	p.given |= 1U << TXA_PARG_MULT;
	p.mult = 3;
	setup(handle_ack_or_error);
	TAP_CHECK_INT(run_peer(TXA_CMD_PEER_SET, "peer set", &p, false, false),
		      TXA_EXIT_OK);
	TAP_CHECK_INT(genlmsg_parse(fake.req, 0, tb, TXRDMA_A_MAX, NULL), 0);
	TAP_CHECK(!tb[TXRDMA_A_PEER_KEY]);
	teardown();
	cleanup_bufs();
	setup(handle_ack_or_error);
	TAP_CHECK_INT(run_peer(TXA_CMD_PEER_DEL, "peer del", &p, false, false),
		      TXA_EXIT_OK);
	TAP_CHECK_INT(genlmsg_parse(fake.req, 0, tb, TXRDMA_A_MAX, NULL), 0);
	TAP_CHECK(!tb[TXRDMA_A_PEER_KEY] && count_attrs(tb) == 1);
	teardown();
	cleanup_bufs();
}

static void test_peer_set_del_request(void)
{
	struct txa_peer_args p = {
		.name = "g1",
		.given = (1U << TXA_PARG_POOL_MIN) | (1U << TXA_PARG_MULT) |
			 (1U << TXA_PARG_ADMIN_UP),
		.pool_min = 5, .pool_max = 99, .mult = 7, .admin_up = false,
	};
	struct nlattr *tb[TXRDMA_A_MAX + 1];

	setup(handle_ack_or_error);
	TAP_CHECK_INT(run_peer(TXA_CMD_PEER_SET, "peer set", &p, false, false),
		      TXA_EXIT_OK);
	TAP_CHECK(((struct genlmsghdr *)nlmsg_data(fake.req))->cmd ==
		  TXRDMA_CMD_PEER_SET);
	TAP_CHECK_INT(genlmsg_parse(fake.req, 0, tb, TXRDMA_A_MAX, NULL), 0);
	TAP_CHECK(tb[TXRDMA_A_PEER_NAME] &&
		  !strcmp(nla_get_string(tb[TXRDMA_A_PEER_NAME]), "g1"));
	TAP_CHECK(req_attr(tb, TXRDMA_A_PEER_POOL_MIN, 4) &&
		  nla_get_u32(tb[TXRDMA_A_PEER_POOL_MIN]) == 5);
	TAP_CHECK(!tb[TXRDMA_A_PEER_POOL_MAX]);	/* not given */
	TAP_CHECK(req_attr(tb, TXRDMA_A_PEER_MULT, 1) &&
		  nla_get_u8(tb[TXRDMA_A_PEER_MULT]) == 7);
	TAP_CHECK(req_attr(tb, TXRDMA_A_PEER_ADMIN_UP, 1) &&
		  nla_get_u8(tb[TXRDMA_A_PEER_ADMIN_UP]) == 0);
	TAP_CHECK_INT(count_attrs(tb), 4);
	teardown();
	cleanup_bufs();

	p.given = 1U << TXA_PARG_ADMIN_UP;
	p.admin_up = true;
	setup(handle_ack_or_error);
	TAP_CHECK_INT(run_peer(TXA_CMD_PEER_SET, "peer set", &p, false, false),
		      TXA_EXIT_OK);
	TAP_CHECK_INT(genlmsg_parse(fake.req, 0, tb, TXRDMA_A_MAX, NULL), 0);
	TAP_CHECK(req_attr(tb, TXRDMA_A_PEER_ADMIN_UP, 1) &&
		  nla_get_u8(tb[TXRDMA_A_PEER_ADMIN_UP]) == 1);
	TAP_CHECK_INT(count_attrs(tb), 2);
	teardown();
	cleanup_bufs();

	/* del: the name only, whatever else the arguments hold */
	p.given = ALL_ADD | (1U << TXA_PARG_ADMIN_UP) |
		  (1U << TXA_PARG_PATH_OF);
	p.dev = "rxe0";
	p.path_of = "g0";
	setup(handle_ack_or_error);
	TAP_CHECK_INT(run_peer(TXA_CMD_PEER_DEL, "peer del", &p, false, false),
		      TXA_EXIT_OK);
	TAP_CHECK(((struct genlmsghdr *)nlmsg_data(fake.req))->cmd ==
		  TXRDMA_CMD_PEER_DEL);
	TAP_CHECK_INT(genlmsg_parse(fake.req, 0, tb, TXRDMA_A_MAX, NULL), 0);
	TAP_CHECK(tb[TXRDMA_A_PEER_NAME] &&
		  !strcmp(nla_get_string(tb[TXRDMA_A_PEER_NAME]), "g1"));
	TAP_CHECK_INT(count_attrs(tb), 1);
	teardown();
	TAP_CHECK_STR(errbuf, "");
	cleanup_bufs();
}

/* as check_peer_error(), with the TXA_PARG_* bits @given besides */
static void check_peer_error_given(enum txa_cmd cmd, const char *what,
				   int error, const char *extack,
				   unsigned int given, const char *want)
{
	struct txa_peer_args p = {
		.name = "g1", .addr = { 198, 18, 0, 2 }, .dev = "rxe9",
		.path_of = "g7",
		.given = (1U << TXA_PARG_ADDR) | (1U << TXA_PARG_KEY) | given,
	};

	make_keys();
	p.key_file = key_path;
	setup(handle_ack_or_error);
	fake.errno_to_send = error;
	fake.extack = extack;
	fake.capped = true;
	if (!TAP_CHECK_INT(run_peer(cmd, what, &p, false, false),
			   error ? TXA_EXIT_FAIL : TXA_EXIT_OK))
		tap_diag("  %s, errno %d", what, error);
	teardown();
	if (!TAP_CHECK_STR(errbuf, want))
		tap_diag("  %s, errno %d", what, error);
	TAP_CHECK_STR(outbuf, "");
	cleanup_bufs();
}

static void check_peer_error(enum txa_cmd cmd, const char *what, int error,
			     const char *extack, bool dev, const char *want)
{
	check_peer_error_given(cmd, what, error, extack,
			       dev ? 1U << TXA_PARG_DEV : 0, want);
}

static void test_peer_errors(void)
{
	check_peer_error(TXA_CMD_PEER_ADD, "peer add", EPERM, NULL, false,
			 "txrdma-admin: peer add: operation not permitted (changing txrdma needs CAP_NET_ADMIN)\n");
	check_peer_error(TXA_CMD_PEER_SET, "peer set", EPERM, NULL, false,
			 "txrdma-admin: peer set: operation not permitted (changing txrdma needs CAP_NET_ADMIN)\n");
	check_peer_error(TXA_CMD_PEER_DEL, "peer del", EPERM, NULL, false,
			 "txrdma-admin: peer del: operation not permitted (changing txrdma needs CAP_NET_ADMIN)\n");
	check_peer_error(TXA_CMD_PEER_ADD, "peer add", EEXIST, NULL, false,
			 "txrdma-admin: peer add: peer \"g1\", or a peer of address 198.18.0.2, exists (File exists)\n");
	check_peer_error(TXA_CMD_PEER_ADD, "peer add", EEXIST,
			 "a peer of that address exists", false,
			 "txrdma-admin: peer add: a peer of that address exists (File exists)\n");
	check_peer_error(TXA_CMD_PEER_ADD, "peer add", ENODEV, NULL, true,
			 "txrdma-admin: peer add: no RDMA device \"rxe9\" (No such device)\n");
	check_peer_error(TXA_CMD_PEER_ADD, "peer add", ENODEV, NULL, false,
			 "txrdma-admin: peer add: No such device\n");
	check_peer_error(TXA_CMD_PEER_ADD, "peer add", ENOSPC, NULL, false,
			 "txrdma-admin: peer add: too many peers (No space left on device)\n");
	check_peer_error(TXA_CMD_PEER_SET, "peer set", ENOENT, NULL, false,
			 "txrdma-admin: peer set: no peer \"g1\" (No such file or directory)\n");
	check_peer_error(TXA_CMD_PEER_DEL, "peer del", ENOENT, NULL, false,
			 "txrdma-admin: peer del: no peer \"g1\" (No such file or directory)\n");
	check_peer_error(TXA_CMD_PEER_SET, "peer set", EINVAL,
			 "tx interval must be 1 ms to 60 s", false,
			 "txrdma-admin: peer set: tx interval must be 1 ms to 60 s (Invalid argument)\n");
	check_peer_error(TXA_CMD_PEER_SET, "peer set", EINVAL,
			 "pool min above pool max", false,
			 "txrdma-admin: peer set: pool min above pool max (Invalid argument)\n");
	check_peer_error(TXA_CMD_PEER_ADD, "peer add", EOPNOTSUPP, NULL, false,
			 "txrdma-admin: peer add: the loaded txrdma module does not support this command (Operation not supported)\n");
	check_peer_error(TXA_CMD_PEER_DEL, "peer del", EBUSY, NULL, false,
			 "txrdma-admin: peer del: Device or resource busy\n");
	/* path-of: the peer it names is missing, or cannot have paths */
	check_peer_error_given(TXA_CMD_PEER_ADD, "peer add", ENOENT, NULL,
			       1U << TXA_PARG_PATH_OF,
			       "txrdma-admin: peer add: no peer \"g7\" to be a path of (No such file or directory)\n");
	check_peer_error_given(TXA_CMD_PEER_ADD, "peer add", ENOENT, NULL,
			       (1U << TXA_PARG_PATH_OF) | (1U << TXA_PARG_DEV),
			       "txrdma-admin: peer add: no peer \"g7\" to be a path of (No such file or directory)\n");
	check_peer_error_given(TXA_CMD_PEER_ADD, "peer add", ENODEV, NULL,
			       (1U << TXA_PARG_PATH_OF) | (1U << TXA_PARG_DEV),
			       "txrdma-admin: peer add: no RDMA device \"rxe9\" (No such device)\n");
	check_peer_error_given(TXA_CMD_PEER_ADD, "peer add", ENOENT,
			       "path-of: no such peer", 1U << TXA_PARG_PATH_OF,
			       "txrdma-admin: peer add: path-of: no such peer (No such file or directory)\n");
	check_peer_error_given(TXA_CMD_PEER_ADD, "peer add", EINVAL,
			       "path-of: this host has no other path to itself",
			       1U << TXA_PARG_PATH_OF,
			       "txrdma-admin: peer add: path-of: this host has no other path to itself (Invalid argument)\n");
	/* success with a warning in the ACK: exit 0 */
	check_peer_error(TXA_CMD_PEER_SET, "peer set", 0,
			 "pool max below QPs in use: applies as they close", false,
			 "txrdma-admin: peer set: warning: pool max below QPs in use: applies as they close\n");
}

/* ---- peer events ---------------------------------------------------- */

static void print_peer_event(struct nl_msg *m, struct txa_peer *ev,
			     char **plain, char **json)
{
	size_t len;
	FILE *f;

	TAP_CHECK_INT(txa_peer_parse(nlmsg_hdr(m), ev), 0);
	f = open_memstream(plain, &len);
	txa_peer_event_print_plain(f, ev);
	fclose(f);
	f = open_memstream(json, &len);
	txa_peer_event_print_json(f, ev);
	fclose(f);
	nlmsg_free(m);
}

static struct nl_msg *peer_event(uint64_t seq, uint8_t old, uint8_t state)
{
	struct nl_msg *m = event(TXRDMA_CMD_PEER_STATE_NTF, seq);

	nla_put_string(m, TXRDMA_A_PEER_NAME, "g1");
	nla_put_u32(m, TXRDMA_A_PEER_ID, 1);
	put_addr(m, TXRDMA_A_PEER_ADDR, 198, 18, 0, 2);
	nla_put_u8(m, TXRDMA_A_PEER_OLD_STATE, old);
	nla_put_u8(m, TXRDMA_A_PEER_STATE, state);
	return m;
}

static void test_peer_event(void)
{
	struct nl_msg *m = peer_event(7, TXRDMA_PEER_UP, TXRDMA_PEER_DOWN);
	char *plain, *json;
	struct txa_peer ev;

	nla_put_u8(m, TXRDMA_A_PEER_DIAG, TXRDMA_PEER_DIAG_DETECT_EXPIRED);
	nla_put_string(m, TXRDMA_A_PEER_REASON, "detection time expired");
	put_u64(m, TXRDMA_A_PEER_SILENCE_NS, 81200000);
	print_peer_event(m, &ev, &plain, &json);
	/* the struct */
	TAP_CHECK_INT(ev.cmd, TXRDMA_CMD_PEER_STATE_NTF);
	TAP_CHECK(ev.seq == 7 && ev.time_ns == 1714566896123456789ULL);
	TAP_CHECK(ev.old_state == TXRDMA_PEER_UP && ev.state == TXRDMA_PEER_DOWN);
	TAP_CHECK(ev.diag == TXRDMA_PEER_DIAG_DETECT_EXPIRED);
	TAP_CHECK(ev.silence_ns == 81200000);
	TAP_CHECK(addr_eq(ev.addr, 198, 18, 0, 2));
	TAP_CHECK(ev.have == (PF(NAME) | PF(ID) | PF(ADDR) | PF(OLD_STATE) |
			      PF(STATE) | PF(DIAG) | PF(REASON) | PF(SILENCE) |
			      PF(TIME) | PF(SEQ)));
	txa_peer_free(&ev);
	/* the output */
	TAP_CHECK_STR(plain, "[2024-05-01T12:34:56.123456Z] peer g1 198.18.0.2 up -> down "
		      "(detect_expired: detection time expired) silence 81.2ms\n");
	TAP_CHECK_STR(json, "{\"event\":\"peer\",\"seq\":7,\"time_ns\":1714566896123456789,"
		      "\"time\":\"2024-05-01T12:34:56.123456Z\",\"name\":\"g1\",\"id\":1,"
		      "\"addr\":\"198.18.0.2\",\"old_state\":\"up\",\"state\":\"down\","
		      "\"diag\":\"detect_expired\",\"reason\":\"detection time expired\","
		      "\"silence_ns\":81200000}\n");
	free(plain);
	free(json);

	/* back Up after a flap: what explained the Down */
	m = peer_event(9, TXRDMA_PEER_INIT, TXRDMA_PEER_UP);
	nla_put_u8(m, TXRDMA_A_PEER_DIAG, TXRDMA_PEER_DIAG_NONE);
	nla_put_u8(m, TXRDMA_A_PEER_DOWN_CAUSE, TXRDMA_PEER_DOWN_PEER_STALL);
	put_u64(m, TXRDMA_A_PEER_DOWN_NS, 230400000);
	put_u64(m, TXRDMA_A_PEER_DOWN_STALL_NS, 181000000);
	nla_put_u8(m, TXRDMA_A_PEER_FLAP, 1);
	print_peer_event(m, &ev, &plain, &json);
	TAP_CHECK(ev.down_cause == TXRDMA_PEER_DOWN_PEER_STALL &&
		  ev.down_ns == 230400000 && ev.down_stall_ns == 181000000 &&
		  ev.flap == 1);
	txa_peer_free(&ev);
	TAP_CHECK_STR(plain, "[2024-05-01T12:34:56.123456Z] peer g1 198.18.0.2 init -> up "
		      "after 230.4ms down (flap): peer_stall 181.0ms\n");
	TAP_CHECK_STR(json, "{\"event\":\"peer\",\"seq\":9,\"time_ns\":1714566896123456789,"
		      "\"time\":\"2024-05-01T12:34:56.123456Z\",\"name\":\"g1\",\"id\":1,"
		      "\"addr\":\"198.18.0.2\",\"old_state\":\"init\",\"state\":\"up\","
		      "\"diag\":\"none\",\"down_cause\":\"peer_stall\",\"down_ns\":230400000,"
		      "\"down_stall_ns\":181000000,\"flap\":true}\n");
	free(plain);
	free(json);
	/* a long one, unexplained, and a cause from a newer module */
	m = peer_event(10, TXRDMA_PEER_INIT, TXRDMA_PEER_UP);
	nla_put_u8(m, TXRDMA_A_PEER_DOWN_CAUSE, TXRDMA_PEER_DOWN_UNEXPLAINED);
	put_u64(m, TXRDMA_A_PEER_DOWN_NS, 2500000000ULL);
	put_u64(m, TXRDMA_A_PEER_DOWN_STALL_NS, 0);
	nla_put_u8(m, TXRDMA_A_PEER_FLAP, 0);
	print_peer_event(m, &ev, &plain, &json);
	txa_peer_free(&ev);
	TAP_CHECK_STR(plain, "[2024-05-01T12:34:56.123456Z] peer g1 198.18.0.2 init -> up "
		      "after 2500.0ms down: unexplained\n");
	free(plain);
	free(json);
	m = peer_event(11, TXRDMA_PEER_INIT, TXRDMA_PEER_UP);
	nla_put_u8(m, TXRDMA_A_PEER_DOWN_CAUSE, 9);
	print_peer_event(m, &ev, &plain, &json);
	txa_peer_free(&ev);
	TAP_CHECK_STR(plain, "[2024-05-01T12:34:56.123456Z] peer g1 198.18.0.2 init -> up: cause 9\n");
	free(plain);
	free(json);
	m = peer_event(12, TXRDMA_PEER_INIT, TXRDMA_PEER_UP);
	nla_put_u8(m, TXRDMA_A_PEER_DOWN_CAUSE, TXRDMA_PEER_DOWN_RESTART);
	print_peer_event(m, &ev, &plain, &json);
	txa_peer_free(&ev);
	TAP_CHECK_STR(plain, "[2024-05-01T12:34:56.123456Z] peer g1 198.18.0.2 init -> up: restart\n");
	TAP_CHECK(strstr(json, "\"down_cause\":\"restart\""));
	free(plain);
	free(json);

	/* coming Up: diagnostic none is left out of the plain line */
	m = peer_event(8, TXRDMA_PEER_INIT, TXRDMA_PEER_UP);
	nla_put_u8(m, TXRDMA_A_PEER_DIAG, TXRDMA_PEER_DIAG_NONE);
	print_peer_event(m, &ev, &plain, &json);
	txa_peer_free(&ev);
	TAP_CHECK_STR(plain, "[2024-05-01T12:34:56.123456Z] peer g1 198.18.0.2 init -> up\n");
	TAP_CHECK_STR(json, "{\"event\":\"peer\",\"seq\":8,\"time_ns\":1714566896123456789,"
		      "\"time\":\"2024-05-01T12:34:56.123456Z\",\"name\":\"g1\",\"id\":1,"
		      "\"addr\":\"198.18.0.2\",\"old_state\":\"init\",\"state\":\"up\","
		      "\"diag\":\"none\"}\n");
	free(plain);
	free(json);

	/* values this tool does not know; an admin taking it down */
	m = peer_event(9, TXRDMA_PEER_DOWN, 9);
	nla_put_u8(m, TXRDMA_A_PEER_DIAG, 4);
	print_peer_event(m, &ev, &plain, &json);
	txa_peer_free(&ev);
	TAP_CHECK_STR(plain, "[2024-05-01T12:34:56.123456Z] peer g1 198.18.0.2 down -> unknown(9) (diag 4)\n");
	TAP_CHECK(strstr(json, "\"old_state\":\"down\",\"state\":\"unknown(9)\",\"diag\":\"diag 4\"}\n"));
	free(plain);
	free(json);

	m = peer_event(10, TXRDMA_PEER_UP, TXRDMA_PEER_ADMIN_DOWN);
	nla_put_u8(m, TXRDMA_A_PEER_DIAG, TXRDMA_PEER_DIAG_ADMIN_DOWN);
	print_peer_event(m, &ev, &plain, &json);
	txa_peer_free(&ev);
	TAP_CHECK_STR(plain, "[2024-05-01T12:34:56.123456Z] peer g1 198.18.0.2 up -> admin_down (admin_down)\n");
	free(plain);
	free(json);

	/* the bare minimum: no name, no address, no old state */
	m = event(TXRDMA_CMD_PEER_STATE_NTF, 11);
	nla_put_u8(m, TXRDMA_A_PEER_STATE, TXRDMA_PEER_DOWN);
	print_peer_event(m, &ev, &plain, &json);
	txa_peer_free(&ev);
	TAP_CHECK_STR(plain, "[2024-05-01T12:34:56.123456Z] peer ? down\n");
	TAP_CHECK_STR(json, "{\"event\":\"peer\",\"seq\":11,\"time_ns\":1714566896123456789,"
		      "\"time\":\"2024-05-01T12:34:56.123456Z\",\"state\":\"down\"}\n");
	free(plain);
	free(json);
}

/* peer and dev events in one stream: shared seq, count, malformed ones */
static void test_monitor_peer_loop(void)
{
	struct txa_args a = { .cmd = TXA_CMD_MONITOR, .count = 3,
			      .enabled = -1 };
	uint8_t three[3] = { 1, 2, 3 };
	struct txa_monitor mon;
	struct nl_msg *m;

	setup(NULL);
	nl.what = "monitor";
	m = peer_event(1, TXRDMA_PEER_INIT, TXRDMA_PEER_UP);
	queue_append(m, true);
	m = event(TXRDMA_CMD_DEV_PORT_NTF, 2);
	nla_put_string(m, TXRDMA_A_DEV_NAME, "rxe0");
	nla_put_u32(m, TXRDMA_A_PORT_NUM, 1);
	nla_put_u8(m, TXRDMA_A_PORT_OLD_STATE, TXRDMA_PORT_ACTIVE);
	nla_put_u8(m, TXRDMA_A_PORT_STATE, TXRDMA_PORT_DOWN);
	queue_append(m, false);	/* same datagram */
	m = event(TXRDMA_CMD_PEER_STATE_NTF, 3);	/* malformed: skipped */
	nla_put(m, TXRDMA_A_PEER_ADDR, sizeof(three), three);
	queue_append(m, true);
	m = peer_event(6, TXRDMA_PEER_UP, TXRDMA_PEER_DOWN);	/* 4, 5 lost */
	nla_put_u8(m, TXRDMA_A_PEER_DIAG, TXRDMA_PEER_DIAG_NEIGHBOR_DOWN);
	put_u64(m, TXRDMA_A_PEER_SILENCE_NS, 12345678);
	queue_append(m, true);
	m = peer_event(7, TXRDMA_PEER_DOWN, TXRDMA_PEER_UP);	/* past the count */
	queue_append(m, true);

	if (!TAP_CHECK_INT(txa_monitor_init(&mon, &nl, &a, out), 0)) {
		teardown();
		cleanup_bufs();
		return;
	}
	TAP_CHECK_INT(txa_monitor_recv(&mon, &nl), 0);
	TAP_CHECK_INT(txa_monitor_recv(&mon, &nl), 0);
	TAP_CHECK_INT(txa_monitor_recv(&mon, &nl), 1);
	TAP_CHECK(mon.seen == 3);
	txa_monitor_fini(&mon);
	fflush(nl.err);
	teardown();
	TAP_CHECK_STR(outbuf,
"[2024-05-01T12:34:56.123456Z] peer g1 198.18.0.2 init -> up\n"
"[2024-05-01T12:34:56.123456Z] port rxe0/1 ACTIVE -> DOWN\n"
"[2024-05-01T12:34:56.123456Z] peer g1 198.18.0.2 up -> down (neighbor_down) silence 12.3ms\n");
	TAP_CHECK_STR(errbuf, "txrdma-admin: monitor: skipped a malformed event\n"
		      "txrdma-admin: monitor: 3 event(s) lost\n");
	cleanup_bufs();
}

/* ---- no key in any output ----------------------------------------- */

/* g1, from a module that (wrongly) sends the key back */
static void handle_peer_get_with_key(const struct nlmsghdr *req)
{
	struct nl_msg *m;

	if (req->nlmsg_flags & NLM_F_DUMP) {
		m = genl_reply(TXRDMA_CMD_PEER_GET, NLM_F_MULTI);
		put_peer_g1(m);
		nla_put(m, TXRDMA_A_PEER_KEY, sizeof(test_key), test_key);
		queue_append(m, true);
		queue_done(0);
		return;
	}
	m = genl_reply(TXRDMA_CMD_PEER_GET, 0);
	nla_put(m, TXRDMA_A_PEER_KEY, sizeof(test_key), test_key);
	put_peer_g1(m);
	queue_append(m, true);
	queue_error(0, NULL, true);
}

static void test_peer_show_no_key(void)
{
	struct txa_peer_args g1 = { .name = "g1" };
	char *plain, *json, want[4096];
	struct txa_peer ev;
	struct nl_msg *m;

	/* plain: exactly what it is without the key */
	setup(handle_peer_get_with_key);
	TAP_CHECK_INT(run_peer(TXA_CMD_PEER_SHOW, "peer show", &no_peer_args,
			       false, false), TXA_EXIT_OK);
	teardown();
	snprintf(want, sizeof(want), "%.*s",
		 (int)(strstr(peer_plain, "g2:") - peer_plain), peer_plain);
	TAP_CHECK_STR(outbuf, want);
	TAP_CHECK(no_key_in(outbuf) && no_key_in(errbuf));
	cleanup_bufs();

	/* JSON, pretty JSON, a single peer */
	setup(handle_peer_get_with_key);
	TAP_CHECK_INT(run_peer(TXA_CMD_PEER_SHOW, "peer show", &no_peer_args,
			       true, false), TXA_EXIT_OK);
	teardown();
	snprintf(want, sizeof(want), "[%s]\n", peer_g1_json);
	TAP_CHECK_STR(outbuf, want);
	TAP_CHECK(!strstr(outbuf, "key"));
	TAP_CHECK(no_key_in(outbuf));
	cleanup_bufs();
	setup(handle_peer_get_with_key);
	TAP_CHECK_INT(run_peer(TXA_CMD_PEER_SHOW, "peer show", &g1, true, true),
		      TXA_EXIT_OK);
	teardown();
	TAP_CHECK(outbuf && strstr(outbuf, "\"auth_fails\": 3"));
	TAP_CHECK(!strstr(outbuf, "key"));
	TAP_CHECK(no_key_in(outbuf));
	cleanup_bufs();

	/* nor in a monitor event that carried one */
	m = peer_event(3, TXRDMA_PEER_INIT, TXRDMA_PEER_UP);
	nla_put(m, TXRDMA_A_PEER_KEY, sizeof(test_key), test_key);
	print_peer_event(m, &ev, &plain, &json);
	txa_peer_free(&ev);
	TAP_CHECK(no_key_in(plain) && no_key_in(json));
	TAP_CHECK(!strstr(json, "key"));
	free(plain);
	free(json);

	/* and the helper itself sees a key where there is one */
	TAP_CHECK(!no_key_in("x " TEST_KEY_HEX));
	TAP_CHECK(!no_key_in("FEDCBA9876543210"));
	TAP_CHECK(no_key_in("fedcba98 76543210"));
}

/* ---- endpoints ------------------------------------------------------ */

/*
 * The counters in the order the module puts them (txrdma_stat_attrs[]):
 * the fake's own list, not the tool's.  The last two came later and are
 * not consecutive with the others.
 */
static const int fake_stat_attrs[] = {
	TXRDMA_A_STAT_TX_MSGS, TXRDMA_A_STAT_TX_BYTES,
	TXRDMA_A_STAT_RX_MSGS, TXRDMA_A_STAT_RX_BYTES,
	TXRDMA_A_STAT_RW_OPS, TXRDMA_A_STAT_RW_BYTES,
	TXRDMA_A_STAT_CREDIT_STALLS, TXRDMA_A_STAT_CREDIT_UPDATES,
	TXRDMA_A_STAT_SLOT_STALLS, TXRDMA_A_STAT_THROTTLED,
	TXRDMA_A_STAT_ERR_CRC, TXRDMA_A_STAT_ERR_SEQ, TXRDMA_A_STAT_ERR_PROTO,
	TXRDMA_A_STAT_ERR_QP, TXRDMA_A_STAT_ERR_SQE,
	TXRDMA_A_STAT_TX_COALESCED, TXRDMA_A_STAT_RX_BATCHES,
	TXRDMA_A_STAT_TX_RESENT, TXRDMA_A_STAT_RESUMES,
	TXRDMA_A_STAT_PATH_MOVES,
};
#define FAKE_NSTATS	TAP_ARRAY_SIZE(fake_stat_attrs)
/* what a module from before TX_COALESCED and RX_BATCHES sends */
#define FAKE_NSTATS_OLD	15

struct fep {
	uint32_t id;
	const char *tenant, *peer;
	uint8_t state;
	uint32_t service, peer_ep, qpn;
	int32_t error;
	uint64_t st[FAKE_NSTATS];	/* in the order of fake_stat_attrs[] */
	const char *path;		/* a session's, NULL: not a session */
	uint8_t session;
	uint32_t grace_ms;
};

static const struct fep fep_a = {
	3, "db1", "nodeB", TXRDMA_EP_STATE_CONNECTED, 7, 5, 20, 0,
	{ 1000, 64000, 998, 63872, 4, 16384, 2, 14, 1, 3, 0, 0, 0, 0, 0,
	  600, 300, 5, 2, 1 },
	"nodeB2", TXRDMA_EP_SESSION_RESUMING, 2000,
};

static const struct fep fep_b = {
	9, "db2", "nodeC", TXRDMA_EP_STATE_CLOSED, 8, 2, 0, -ECONNRESET,
	{ 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18,
	  19, 20 },
	NULL, 0, 0,
};

static const struct fep *feps[2] = { &fep_a, &fep_b };

static void put_stats(struct nl_msg *m, int type, const uint64_t *st)
{
	struct nlattr *nest = nla_nest_start(m, type | NLA_F_NESTED);
	unsigned int i, n = fake.old_stats ? FAKE_NSTATS_OLD : FAKE_NSTATS;

	for (i = 0; i < n; i++)
		put_u64(m, fake_stat_attrs[i], st[i]);
	nla_nest_end(m, nest);
}

static void put_ep(struct nl_msg *m, const struct fep *e)
{
	nla_put_u32(m, TXRDMA_A_EP_ID, e->id);
	nla_put_string(m, TXRDMA_A_EP_TENANT, e->tenant);
	nla_put_string(m, TXRDMA_A_EP_PEER, e->peer);
	nla_put_u8(m, TXRDMA_A_EP_STATE, e->state);
	nla_put_u32(m, TXRDMA_A_EP_SERVICE, e->service);
	nla_put_u32(m, TXRDMA_A_EP_PEER_EP, e->peer_ep);
	nla_put_u32(m, TXRDMA_A_EP_QPN, e->qpn);
	nla_put_s32(m, TXRDMA_A_EP_ERROR, e->error);
	put_stats(m, TXRDMA_A_EP_STATS, e->st);
	if (e->path && !fake.old_stats) {	/* an old module: none */
		nla_put_u8(m, TXRDMA_A_EP_SESSION, e->session);
		nla_put_u32(m, TXRDMA_A_EP_GRACE_MS, e->grace_ms);
		nla_put_string(m, TXRDMA_A_EP_PATH, e->path);
	}
}

/* dump (filtered by EP_TENANT as the module does), or do by EP_ID */
static void handle_ep_get(const struct nlmsghdr *req)
{
	struct nlattr *tb[TXRDMA_A_MAX + 1];
	const char *tenant = NULL;
	struct nl_msg *m;
	unsigned int i;

	if (fake.errno_to_send) {
		queue_error(fake.errno_to_send, fake.extack, true);
		return;
	}
	genlmsg_parse((struct nlmsghdr *)req, 0, tb, TXRDMA_A_MAX, NULL);
	if (tb[TXRDMA_A_EP_TENANT])
		tenant = nla_get_string(tb[TXRDMA_A_EP_TENANT]);
	if (req->nlmsg_flags & NLM_F_DUMP) {
		for (i = 0; i < fake.ndevs; i++) {
			if (tenant && strcmp(tenant, feps[i]->tenant))
				continue;
			m = genl_reply(TXRDMA_CMD_EP_GET, NLM_F_MULTI);
			put_ep(m, feps[i]);
			queue_append(m, true);	/* one per datagram */
		}
		queue_done(0);
		return;
	}
	for (i = 0; i < 2; i++) {
		if (tb[TXRDMA_A_EP_ID] &&
		    nla_get_u32(tb[TXRDMA_A_EP_ID]) == feps[i]->id) {
			m = genl_reply(TXRDMA_CMD_EP_GET, 0);
			put_ep(m, feps[i]);
			queue_append(m, true);
			queue_error(0, NULL, true);
			return;
		}
	}
	queue_error(ENOENT, "no such endpoint", true);
}

static int run_ep(const struct txa_ep_args *e, bool json, bool pretty)
{
	struct txa_args a = { .cmd = TXA_CMD_EP_SHOW, .json = json,
			      .pretty = pretty, .enabled = -1, .ep = *e };
	int ret;

	nl.what = "ep show";
	ret = txa_ep_show(&nl, &a, out);
	fflush(out);
	fflush(nl.err);
	return ret;
}

static const char ep_a_plain[] =
"ep 3 tenant db1 peer nodeB service 7 peer_ep 5 qpn 20 state connected session resuming grace 2000ms path nodeB2\n"
"    tx 1000 msgs 64000 bytes 600 coalesced  rx 998 msgs 63872 bytes 300 batches  rw 4 ops 16384 bytes  credit stalls 2 updates 14  slot stalls 1  throttled 3  errors crc 0 seq 0 proto 0 qp 0 sqe 0  session 2 resumes 5 resent 1 moves\n";

static const char ep_b_plain[] =
"ep 9 tenant db2 peer nodeC service 8 peer_ep 2 qpn 0 state closed error ECONNRESET\n"
"    tx 1 msgs 2 bytes 16 coalesced  rx 3 msgs 4 bytes 17 batches  rw 5 ops 6 bytes  credit stalls 7 updates 8  slot stalls 9  throttled 10  errors crc 11 seq 12 proto 13 qp 14 sqe 15  session 19 resumes 18 resent 20 moves\n";

static const char ep_a_json[] =
"{\"id\":3,\"tenant\":\"db1\",\"peer\":\"nodeB\",\"state\":\"connected\","
"\"service\":7,\"peer_ep\":5,\"qpn\":20,\"error\":0,"
"\"session\":{\"state\":\"resuming\",\"grace_ms\":2000,\"path\":\"nodeB2\"},"
"\"stats\":{\"tx_msgs\":1000,\"tx_bytes\":64000,\"rx_msgs\":998,\"rx_bytes\":63872,"
"\"rw_ops\":4,\"rw_bytes\":16384,\"credit_stalls\":2,\"credit_updates\":14,"
"\"slot_stalls\":1,\"throttled\":3,\"err_crc\":0,\"err_seq\":0,\"err_proto\":0,"
"\"err_qp\":0,\"err_sqe\":0,\"tx_coalesced\":600,\"rx_batches\":300,\"tx_resent\":5,\"resumes\":2,"
"\"path_moves\":1},"
"\"ring_small\":false}";

static const char ep_b_json[] =
"{\"id\":9,\"tenant\":\"db2\",\"peer\":\"nodeC\",\"state\":\"closed\","
"\"service\":8,\"peer_ep\":2,\"qpn\":0,\"error\":-104,\"error_name\":\"ECONNRESET\","
"\"stats\":{\"tx_msgs\":1,\"tx_bytes\":2,\"rx_msgs\":3,\"rx_bytes\":4,"
"\"rw_ops\":5,\"rw_bytes\":6,\"credit_stalls\":7,\"credit_updates\":8,"
"\"slot_stalls\":9,\"throttled\":10,\"err_crc\":11,\"err_seq\":12,\"err_proto\":13,"
"\"err_qp\":14,\"err_sqe\":15,\"tx_coalesced\":16,\"rx_batches\":17,\"tx_resent\":18,\"resumes\":19,"
"\"path_moves\":20},"
"\"ring_small\":false}";

/* the same endpoints from a module without TX_COALESCED and RX_BATCHES */
static const char ep_a_plain_old[] =
"ep 3 tenant db1 peer nodeB service 7 peer_ep 5 qpn 20 state connected\n"
"    tx 1000 msgs 64000 bytes  rx 998 msgs 63872 bytes  rw 4 ops 16384 bytes  credit stalls 2 updates 14  slot stalls 1  throttled 3  errors crc 0 seq 0 proto 0 qp 0 sqe 0\n";

static const char ep_b_plain_old[] =
"ep 9 tenant db2 peer nodeC service 8 peer_ep 2 qpn 0 state closed error ECONNRESET\n"
"    tx 1 msgs 2 bytes  rx 3 msgs 4 bytes  rw 5 ops 6 bytes  credit stalls 7 updates 8  slot stalls 9  throttled 10  errors crc 11 seq 12 proto 13 qp 14 sqe 15\n";

static const char ep_b_json_old[] =
"{\"id\":9,\"tenant\":\"db2\",\"peer\":\"nodeC\",\"state\":\"closed\","
"\"service\":8,\"peer_ep\":2,\"qpn\":0,\"error\":-104,\"error_name\":\"ECONNRESET\","
"\"stats\":{\"tx_msgs\":1,\"tx_bytes\":2,\"rx_msgs\":3,\"rx_bytes\":4,"
"\"rw_ops\":5,\"rw_bytes\":6,\"credit_stalls\":7,\"credit_updates\":8,"
"\"slot_stalls\":9,\"throttled\":10,\"err_crc\":11,\"err_seq\":12,\"err_proto\":13,"
"\"err_qp\":14,\"err_sqe\":15},\"ring_small\":false}";

static void test_ep_dump(void)
{
	struct txa_ep_args none = { 0 }, ten = { .tenant = "db2" };
	struct nlattr *tb[TXRDMA_A_MAX + 1];
	char want[2048];

	setup(handle_ep_get);
	TAP_CHECK_INT(run_ep(&none, false, false), TXA_EXIT_OK);
	TAP_CHECK(fake.req->nlmsg_flags & NLM_F_DUMP);
	TAP_CHECK(((struct genlmsghdr *)nlmsg_data(fake.req))->cmd ==
		  TXRDMA_CMD_EP_GET);
	TAP_CHECK_INT(genlmsg_parse(fake.req, 0, tb, TXRDMA_A_MAX, NULL), 0);
	TAP_CHECK(!tb[TXRDMA_A_EP_ID] && !tb[TXRDMA_A_EP_TENANT]);
	teardown();
	snprintf(want, sizeof(want), "%s%s", ep_a_plain, ep_b_plain);
	TAP_CHECK_STR(outbuf, want);
	TAP_CHECK_STR(errbuf, "");
	cleanup_bufs();

	setup(handle_ep_get);
	TAP_CHECK_INT(run_ep(&none, true, false), TXA_EXIT_OK);
	teardown();
	snprintf(want, sizeof(want), "[%s,%s]\n", ep_a_json, ep_b_json);
	TAP_CHECK_STR(outbuf, want);
	cleanup_bufs();

	setup(handle_ep_get);
	TAP_CHECK_INT(run_ep(&none, true, true), TXA_EXIT_OK);
	teardown();
	TAP_CHECK(strstr(outbuf, "\n        \"stats\": {\n            \"tx_msgs\": 1000,"));
	cleanup_bufs();

	/* the tenant filter is the module's: sent with the dump */
	setup(handle_ep_get);
	TAP_CHECK_INT(run_ep(&ten, true, false), TXA_EXIT_OK);
	TAP_CHECK(fake.req->nlmsg_flags & NLM_F_DUMP);
	TAP_CHECK_INT(genlmsg_parse(fake.req, 0, tb, TXRDMA_A_MAX, NULL), 0);
	TAP_CHECK(tb[TXRDMA_A_EP_TENANT] &&
		  !strcmp(nla_get_string(tb[TXRDMA_A_EP_TENANT]), "db2"));
	teardown();
	snprintf(want, sizeof(want), "[%s]\n", ep_b_json);
	TAP_CHECK_STR(outbuf, want);
	cleanup_bufs();

	setup(handle_ep_get);
	fake.ndevs = 0;
	TAP_CHECK_INT(run_ep(&none, true, false), TXA_EXIT_OK);
	teardown();
	TAP_CHECK_STR(outbuf, "[]\n");
	cleanup_bufs();

	setup(handle_ep_get);
	fake.ndevs = 0;
	TAP_CHECK_INT(run_ep(&none, false, false), TXA_EXIT_OK);
	teardown();
	TAP_CHECK_STR(outbuf, "");
	cleanup_bufs();
}

static void test_ep_show_do(void)
{
	struct txa_ep_args e = { .has_id = true, .id = 3 };
	struct nlattr *tb[TXRDMA_A_MAX + 1];

	setup(handle_ep_get);
	TAP_CHECK_INT(run_ep(&e, false, false), TXA_EXIT_OK);
	TAP_CHECK(!(fake.req->nlmsg_flags & NLM_F_DUMP));
	TAP_CHECK_INT(genlmsg_parse(fake.req, 0, tb, TXRDMA_A_MAX, NULL), 0);
	TAP_CHECK(tb[TXRDMA_A_EP_ID] && nla_len(tb[TXRDMA_A_EP_ID]) == 4 &&
		  nla_get_u32(tb[TXRDMA_A_EP_ID]) == 3);
	TAP_CHECK(!tb[TXRDMA_A_EP_TENANT]);
	teardown();
	TAP_CHECK_STR(outbuf, ep_a_plain);
	cleanup_bufs();

	e.id = 99999;
	setup(handle_ep_get);
	TAP_CHECK_INT(run_ep(&e, true, false), TXA_EXIT_FAIL);
	teardown();
	TAP_CHECK_STR(outbuf, "");
	TAP_CHECK_STR(errbuf, "txrdma-admin: ep show: no such endpoint (No such file or directory)\n");
	cleanup_bufs();

	/* without an extack message the tool names the endpoint */
	setup(handle_ep_get);
	fake.errno_to_send = ENOENT;
	TAP_CHECK_INT(run_ep(&e, false, false), TXA_EXIT_FAIL);
	teardown();
	TAP_CHECK_STR(errbuf, "txrdma-admin: ep show: no endpoint 99999 (No such file or directory)\n");
	cleanup_bufs();

	e.tenant = "db1";
	setup(handle_ep_get);
	fake.errno_to_send = ENOENT;
	TAP_CHECK_INT(run_ep(&e, false, false), TXA_EXIT_FAIL);
	teardown();
	TAP_CHECK_STR(errbuf, "txrdma-admin: ep show: no endpoint 99999 in tenant \"db1\" (No such file or directory)\n");
	cleanup_bufs();

	/* a module from before EP_GET */
	setup(handle_ep_get);
	fake.errno_to_send = EOPNOTSUPP;
	TAP_CHECK_INT(run_ep(&e, false, false), TXA_EXIT_FAIL);
	teardown();
	TAP_CHECK_STR(errbuf, "txrdma-admin: ep show: the loaded txrdma module does not support this command (Operation not supported)\n");
	cleanup_bufs();
}

/* a stats nest with a 4-byte counter, then an endpoint with just an id */
static void handle_ep_odd(const struct nlmsghdr *req)
{
	struct nlattr *nest;
	struct nl_msg *m;

	(void)req;
	m = genl_reply(TXRDMA_CMD_EP_GET, NLM_F_MULTI);
	nla_put_u32(m, TXRDMA_A_EP_ID, 1);
	nest = nla_nest_start(m, TXRDMA_A_EP_STATS | NLA_F_NESTED);
	nla_put_u32(m, TXRDMA_A_STAT_TX_MSGS, 1);
	nla_nest_end(m, nest);
	queue_append(m, true);
	m = genl_reply(TXRDMA_CMD_EP_GET, NLM_F_MULTI);
	nla_put_u32(m, TXRDMA_A_EP_ID, 2);
	nla_put_u8(m, TXRDMA_A_EP_STATE, 77);
	nest = nla_nest_start(m, TXRDMA_A_EP_STATS | NLA_F_NESTED);
	put_u64(m, TXRDMA_A_STAT_ERR_QP, 6);
	put_u64(m, TXRDMA_A_STAT_TX_BYTES, 64);
	nla_nest_end(m, nest);
	nla_put_u32(m, TXRDMA_A_MAX + 5, 1);	/* from a newer module */
	queue_append(m, false);
	queue_done(0);
}

static void test_ep_malformed(void)
{
	struct txa_ep_args none = { 0 };
	char buf[TXA_ERRNO_STRLEN];

	setup(handle_ep_odd);
	TAP_CHECK_INT(run_ep(&none, false, false), TXA_EXIT_FAIL);
	teardown();
	TAP_CHECK_STR(outbuf, "ep 2 state unknown(77)\n"
		      "    tx 64 bytes  errors qp 6\n");
	TAP_CHECK_STR(errbuf, "txrdma-admin: ep show: skipped a malformed reply from the kernel\n");
	cleanup_bufs();

	setup(handle_ep_odd);
	TAP_CHECK_INT(run_ep(&none, true, false), TXA_EXIT_FAIL);
	teardown();
	TAP_CHECK_STR(outbuf, "[{\"id\":2,\"state\":\"unknown(77)\","
		      "\"stats\":{\"tx_bytes\":64,\"err_qp\":6}}]\n");
	cleanup_bufs();

	TAP_CHECK_STR(txa_errno_str(-ENOTCONN, buf, sizeof(buf)), "ENOTCONN");
	TAP_CHECK_STR(txa_errno_str(-EPERM, buf, sizeof(buf)), "EPERM");
	TAP_CHECK_STR(txa_errno_str(-4095, buf, sizeof(buf)), "-4095");
	TAP_CHECK_STR(txa_ep_state_str(TXRDMA_EP_STATE_PLAIN, buf, sizeof(buf)),
		      "plain");
}

/* tenant a with the traffic of its endpoints */
static void handle_tenant_traffic(const struct nlmsghdr *req)
{
	struct nl_msg *m;

	(void)req;
	m = genl_reply(TXRDMA_CMD_TENANT_GET, NLM_F_MULTI);
	put_tenant_reply(m, &ten_a);
	put_stats(m, TXRDMA_A_TENANT_TRAFFIC, fep_b.st);
	queue_append(m, true);
	queue_done(0);
}

/*
 * A receive ring that sent a credit update for every other message or
 * more (over 64 messages at least) is called small, in plain and JSON.
 */
static void test_ep_ring_small(void)
{
	struct txa_ep ep = { .have = TXA_EP_HAVE_ID | TXA_EP_HAVE_STATS,
			     .id = 4 };
	struct json_writer w;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	ep.stats.have = 1U << TXA_ST_RX_MSGS | 1U << TXA_ST_CREDIT_UPDATES;
	ep.stats.v[TXA_ST_RX_MSGS] = 10001;
	ep.stats.v[TXA_ST_CREDIT_UPDATES] = 10001;
	TAP_CHECK(txa_ep_ring_small(&ep.stats));
	ep.stats.v[TXA_ST_CREDIT_UPDATES] = 5000;	/* < half */
	TAP_CHECK(!txa_ep_ring_small(&ep.stats));
	ep.stats.v[TXA_ST_CREDIT_UPDATES] = 5001;	/* >= half */
	TAP_CHECK(txa_ep_ring_small(&ep.stats));
	ep.stats.v[TXA_ST_RX_MSGS] = 63;		/* too few to tell */
	ep.stats.v[TXA_ST_CREDIT_UPDATES] = 63;
	TAP_CHECK(!txa_ep_ring_small(&ep.stats));
	ep.stats.v[TXA_ST_RX_MSGS] = 64;
	ep.stats.v[TXA_ST_CREDIT_UPDATES] = 32;
	TAP_CHECK(txa_ep_ring_small(&ep.stats));
	ep.stats.have = 1U << TXA_ST_RX_MSGS;		/* not sent: no claim */
	TAP_CHECK(!txa_ep_ring_small(&ep.stats));

	ep.stats.have = 1U << TXA_ST_RX_MSGS | 1U << TXA_ST_CREDIT_UPDATES;
	ep.stats.v[TXA_ST_RX_MSGS] = 10001;
	ep.stats.v[TXA_ST_CREDIT_UPDATES] = 10001;
	f = open_memstream(&buf, &len);
	txa_ep_print_plain(f, &ep);
	json_init(&w, f, false);
	txa_ep_print_json(&w, &ep);
	fclose(f);
	TAP_CHECK_STR(buf,
"ep 4\n"
"    rx 10001 msgs  credit updates 10001\n"
"    receive ring small for its messages: 10001 credit updates for 10001 messages (txrdma_rx_units_for() sizes it)\n"
"{\"id\":4,\"stats\":{\"rx_msgs\":10001,\"credit_updates\":10001},\"ring_small\":true}");
	free(buf);
}

static void test_tenant_traffic(void)
{
	const char *stats;
	char want[2048];

	setup(handle_tenant_traffic);
	TAP_CHECK_INT(run_tenant(TXA_CMD_TENANT_SHOW, "tenant show",
				 &no_tenant_args, false, false), TXA_EXIT_OK);
	teardown();
	TAP_CHECK_STR(outbuf,
"a: id 1 cgroup /db/a prio normal\n"
"    qps 0/10 refused 0  endpoints 0/unlimited refused 0  pinned 0/64M refused 0  listeners 0/1024 refused 0\n"
"    bw 100M/s burst 10M throttled 0  ops 1000/s burst 100 throttled 0\n"
"    traffic tx 1 msgs 2 bytes 16 coalesced  rx 3 msgs 4 bytes 17 batches  rw 5 ops 6 bytes  credit stalls 7 updates 8  slot stalls 9  throttled 10  errors crc 11 seq 12 proto 13 qp 14 sqe 15  session 19 resumes 18 resent 20 moves\n");
	TAP_CHECK_STR(errbuf, "");
	cleanup_bufs();

	setup(handle_tenant_traffic);
	TAP_CHECK_INT(run_tenant(TXA_CMD_TENANT_SHOW, "tenant show",
				 &no_tenant_args, true, false), TXA_EXIT_OK);
	teardown();
	/* the same keys as an endpoint's "stats" (not its ring_small) */
	stats = strstr(ep_b_json, "\"stats\":") + strlen("\"stats\":");
	snprintf(want, sizeof(want), "[%.*s,\"traffic\":%.*s}]\n",
		 (int)strlen(tenant_a_json) - 1, tenant_a_json,
		 (int)(strstr(stats, ",\"ring_small\"") - stats), stats);
	TAP_CHECK_STR(outbuf, want);
	cleanup_bufs();
}

/*
 * A module from before TX_COALESCED and RX_BATCHES: the counters it
 * sends print as they always did, and neither output names the others.
 */
static void test_ep_old_module(void)
{
	struct txa_ep_args none = { 0 }, ten = { .tenant = "db2" };
	const char *stats;
	char want[2048];

	setup(handle_ep_get);
	fake.old_stats = true;
	TAP_CHECK_INT(run_ep(&none, false, false), TXA_EXIT_OK);
	teardown();
	snprintf(want, sizeof(want), "%s%s", ep_a_plain_old, ep_b_plain_old);
	TAP_CHECK_STR(outbuf, want);
	TAP_CHECK_STR(errbuf, "");
	TAP_CHECK(!strstr(outbuf, "coalesced") && !strstr(outbuf, "batches") &&
		  !strstr(outbuf, "resum") && !strstr(outbuf, "moves"));
	cleanup_bufs();

	setup(handle_ep_get);
	fake.old_stats = true;
	TAP_CHECK_INT(run_ep(&ten, true, false), TXA_EXIT_OK);
	teardown();
	snprintf(want, sizeof(want), "[%s]\n", ep_b_json_old);
	TAP_CHECK_STR(outbuf, want);
	cleanup_bufs();

	setup(handle_tenant_traffic);
	fake.old_stats = true;
	TAP_CHECK_INT(run_tenant(TXA_CMD_TENANT_SHOW, "tenant show",
				 &no_tenant_args, false, false), TXA_EXIT_OK);
	teardown();
	TAP_CHECK(strstr(outbuf,
"\n    traffic tx 1 msgs 2 bytes  rx 3 msgs 4 bytes  rw 5 ops 6 bytes  credit stalls 7 updates 8  slot stalls 9  throttled 10  errors crc 11 seq 12 proto 13 qp 14 sqe 15\n"));
	TAP_CHECK_STR(errbuf, "");
	cleanup_bufs();

	setup(handle_tenant_traffic);
	fake.old_stats = true;
	TAP_CHECK_INT(run_tenant(TXA_CMD_TENANT_SHOW, "tenant show",
				 &no_tenant_args, true, false), TXA_EXIT_OK);
	teardown();
	stats = strstr(ep_b_json_old, "\"stats\":") + strlen("\"stats\":");
	snprintf(want, sizeof(want), "[%.*s,\"traffic\":%.*s}]\n",
		 (int)strlen(tenant_a_json) - 1, tenant_a_json,
		 (int)(strstr(stats, ",\"ring_small\"") - stats), stats);
	TAP_CHECK_STR(outbuf, want);
	cleanup_bufs();
}

/* each counter has an attribute of its own; the later two are apart */
static void test_stat_attrs(void)
{
	unsigned int i, j;

	for (i = 0; i < TXA_ST_NR; i++) {
		TAP_CHECK(txa_stat_attr(i) > 0 &&
			  txa_stat_attr(i) <= TXRDMA_A_MAX);
		TAP_CHECK_INT(txa_stat_of_attr(txa_stat_attr(i)), (int)i);
		TAP_CHECK(txa_stat_key(i) != NULL);
		for (j = 0; j < i; j++)
			TAP_CHECK(txa_stat_attr(i) != txa_stat_attr(j) &&
				  strcmp(txa_stat_key(i), txa_stat_key(j)));
	}
	/* the tool's table and the fake module's name the same attributes */
	TAP_CHECK_INT(TXA_ST_NR, (int)FAKE_NSTATS);
	for (i = 0; i < FAKE_NSTATS; i++)
		TAP_CHECK(txa_stat_of_attr(fake_stat_attrs[i]) >= 0);
	TAP_CHECK_INT(txa_stat_attr(TXA_ST_TX_MSGS), TXRDMA_A_STAT_TX_MSGS);
	TAP_CHECK_INT(txa_stat_attr(TXA_ST_ERR_SQE), TXRDMA_A_STAT_ERR_SQE);
	TAP_CHECK_INT(txa_stat_attr(TXA_ST_TX_COALESCED),
		      TXRDMA_A_STAT_TX_COALESCED);
	TAP_CHECK_INT(txa_stat_attr(TXA_ST_RX_BATCHES),
		      TXRDMA_A_STAT_RX_BATCHES);
	TAP_CHECK(TXRDMA_A_STAT_TX_COALESCED !=
		  TXRDMA_A_STAT_TX_MSGS + TXA_ST_TX_COALESCED);
	TAP_CHECK_STR(txa_stat_key(TXA_ST_TX_COALESCED), "tx_coalesced");
	TAP_CHECK_STR(txa_stat_key(TXA_ST_RX_BATCHES), "rx_batches");
	TAP_CHECK_INT(txa_stat_attr(TXA_ST_PATH_MOVES),
		      TXRDMA_A_STAT_PATH_MOVES);
	TAP_CHECK_INT(txa_stat_of_attr(TXRDMA_A_STAT_PATH_MOVES),
		      TXA_ST_PATH_MOVES);
	TAP_CHECK_STR(txa_stat_key(TXA_ST_PATH_MOVES), "path_moves");
	/* what follows ERR_SQE is another nest, not a counter */
	TAP_CHECK_INT(txa_stat_of_attr(TXRDMA_A_STAT_ERR_SQE + 1), -1);
	TAP_CHECK_INT(txa_stat_of_attr(0), -1);
	TAP_CHECK_INT(txa_stat_attr(TXA_ST_NR), 0);
	TAP_CHECK(txa_stat_key(TXA_ST_NR) == NULL);
}

/*
 * A nest of just the two later counters, in reverse order and after a
 * PAD, parses and prints in their groups; a 4-byte one is refused.
 */
static void test_stats_later_only(void)
{
	struct nl_msg *m = nlmsg_alloc();
	struct json_writer w;
	struct txa_stats st;
	struct nlattr *nest;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	nest = nla_nest_start(m, TXRDMA_A_EP_STATS | NLA_F_NESTED);
	put_u64(m, TXRDMA_A_STAT_RX_BATCHES, 7);
	put_u64(m, TXRDMA_A_STAT_TX_COALESCED, 5);
	nla_nest_end(m, nest);
	TAP_CHECK_INT(txa_stats_parse(nest, &st), 0);
	TAP_CHECK_INT(st.have, 1U << TXA_ST_TX_COALESCED |
			       1U << TXA_ST_RX_BATCHES);
	TAP_CHECK(st.v[TXA_ST_TX_COALESCED] == 5 &&
		  st.v[TXA_ST_RX_BATCHES] == 7);
	f = open_memstream(&buf, &len);
	txa_stats_print_plain(f, &st);
	fputc('\n', f);
	json_init(&w, f, false);
	txa_stats_print_json(&w, &st);
	fclose(f);
	TAP_CHECK_STR(buf, "tx 5 coalesced  rx 7 batches\n"
		      "{\"tx_coalesced\":5,\"rx_batches\":7}");
	free(buf);
	nlmsg_free(m);

	m = nlmsg_alloc();
	nest = nla_nest_start(m, TXRDMA_A_EP_STATS | NLA_F_NESTED);
	put_u64(m, TXRDMA_A_STAT_TX_MSGS, 1);
	nla_put_u32(m, TXRDMA_A_STAT_RX_BATCHES, 7);
	nla_nest_end(m, nest);
	TAP_CHECK_INT(txa_stats_parse(nest, &st), -EINVAL);
	nlmsg_free(m);
}

/* the session group: "moves" last; a module from before multi-path */
static char *print_stats(const struct txa_stats *st)
{
	struct json_writer w;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	f = open_memstream(&buf, &len);
	txa_stats_print_plain(f, st);
	fputc('\n', f);
	json_init(&w, f, false);
	txa_stats_print_json(&w, st);
	fclose(f);
	return buf;
}

static void test_stats_session(void)
{
	struct nl_msg *m = nlmsg_alloc();
	struct txa_stats st;
	struct nlattr *nest;
	char *buf;

	/* what the module sends, moves between the other two */
	nest = nla_nest_start(m, TXRDMA_A_EP_STATS | NLA_F_NESTED);
	put_u64(m, TXRDMA_A_STAT_TX_MSGS, 9);
	put_u64(m, TXRDMA_A_STAT_RESUMES, 4);
	put_u64(m, TXRDMA_A_STAT_PATH_MOVES, 3);
	put_u64(m, TXRDMA_A_STAT_TX_RESENT, 12);
	nla_nest_end(m, nest);
	TAP_CHECK_INT(txa_stats_parse(nest, &st), 0);
	TAP_CHECK_INT(st.have, 1U << TXA_ST_TX_MSGS | 1U << TXA_ST_RESUMES |
			       1U << TXA_ST_PATH_MOVES |
			       1U << TXA_ST_TX_RESENT);
	TAP_CHECK(st.v[TXA_ST_PATH_MOVES] == 3);
	buf = print_stats(&st);
	TAP_CHECK_STR(buf, "tx 9 msgs  session 4 resumes 12 resent 3 moves\n"
		      "{\"tx_msgs\":9,\"tx_resent\":12,\"resumes\":4,\"path_moves\":3}");
	free(buf);
	nlmsg_free(m);

	/* a module with sessions but one path: no moves, in either form */
	m = nlmsg_alloc();
	nest = nla_nest_start(m, TXRDMA_A_EP_STATS | NLA_F_NESTED);
	put_u64(m, TXRDMA_A_STAT_TX_RESENT, 0);
	put_u64(m, TXRDMA_A_STAT_RESUMES, 1);
	nla_nest_end(m, nest);
	TAP_CHECK_INT(txa_stats_parse(nest, &st), 0);
	buf = print_stats(&st);
	TAP_CHECK_STR(buf, "session 1 resumes 0 resent\n"
		      "{\"tx_resent\":0,\"resumes\":1}");
	free(buf);
	nlmsg_free(m);

	/* moves alone still open the group; a 4-byte one is refused */
	m = nlmsg_alloc();
	nest = nla_nest_start(m, TXRDMA_A_EP_STATS | NLA_F_NESTED);
	put_u64(m, TXRDMA_A_STAT_PATH_MOVES, UINT64_MAX);
	nla_nest_end(m, nest);
	TAP_CHECK_INT(txa_stats_parse(nest, &st), 0);
	buf = print_stats(&st);
	TAP_CHECK_STR(buf, "session 18446744073709551615 moves\n"
		      "{\"path_moves\":18446744073709551615}");
	free(buf);
	nlmsg_free(m);

	m = nlmsg_alloc();
	nest = nla_nest_start(m, TXRDMA_A_EP_STATS | NLA_F_NESTED);
	nla_put_u32(m, TXRDMA_A_STAT_PATH_MOVES, 1);
	nla_nest_end(m, nest);
	TAP_CHECK_INT(txa_stats_parse(nest, &st), -EINVAL);
	nlmsg_free(m);
}

static const struct tap_test tests[] = {
	TAP_TEST(test_show_dump_plain, "dev show: dump, plain output"),
	TAP_TEST(test_show_dump_json, "dev show: dump, JSON output"),
	TAP_TEST(test_show_empty, "dev show: no devices"),
	TAP_TEST(test_show_do, "dev show NAME: do request with the name"),
	TAP_TEST(test_show_unknown_capped, "dev show NAME: kernel extack reaches the user"),
	TAP_TEST(test_show_error_uncapped, "extack found after an echoed request"),
	TAP_TEST(test_show_enodev_no_extack, "dev show NAME: ENODEV without extack"),
	TAP_TEST(test_show_dump_error_in_done, "dev show: error in NLMSG_DONE of a dump"),
	TAP_TEST(test_show_malformed_and_sparse, "dev show: malformed reply skipped, sparse one printed"),
	TAP_TEST(test_set_request, "dev set: request carries name and u8 enabled"),
	TAP_TEST(test_set_eperm, "dev set: EPERM message names CAP_NET_ADMIN"),
	TAP_TEST(test_set_ack_warning, "dev set: extack warning on success is shown"),
	TAP_TEST(test_set_other_errors, "dev set: EOPNOTSUPP and plain errno messages"),
	TAP_TEST(test_extack_miss_type, "extack: missing-attribute TLV and bounds"),
	TAP_TEST(test_event_port, "monitor: port event, plain and JSON"),
	TAP_TEST(test_event_add_del_set, "monitor: dev add/del/set events"),
	TAP_TEST(test_event_unknown, "monitor: unknown event and port state"),
	TAP_TEST(test_monitor_loop, "monitor: unsolicited events (seq 0), count, lost events"),
	TAP_TEST(test_tenant_dump, "tenant show: dump of two tenants, plain and JSON (null = unlimited)"),
	TAP_TEST(test_tenant_show_do, "tenant show NAME: do request, unknown tenant"),
	TAP_TEST(test_tenant_malformed, "tenant show: malformed reply skipped, sparse one printed"),
	TAP_TEST(test_tenant_add_request, "tenant add: name, cgroup, prio, nested u64 limits"),
	TAP_TEST(test_tenant_set_del_request, "tenant set/del: only what was named, force flag"),
	TAP_TEST(test_tenant_warning_ack, "tenant set: extack warning on a success ACK, exit 0"),
	TAP_TEST(test_tenant_errors, "tenant add/set/del: extack and errno messages"),
	TAP_TEST(test_tenant_print_sparse, "tenant show: partial attributes, unknown prio"),
	TAP_TEST(test_peer_dump, "peer show: dump of two peers, plain, JSON, pretty, empty"),
	TAP_TEST(test_peer_show_do, "peer show NAME: do request, one-element array, errors"),
	TAP_TEST(test_peer_malformed, "peer show: bad address/u32 sizes skipped, sparse one printed"),
	TAP_TEST(test_peer_parse_reply, "peer: a PEER_GET reply with PADs parsed into struct txa_peer"),
	TAP_TEST(test_peer_names, "peer: state, role and diagnostic names"),
	TAP_TEST(test_peer_print_sparse, "peer show: partial attributes, diag and reason"),
	TAP_TEST(test_peer_add_request, "peer add: name, 4-byte addr, dev, path-of, u16 port, u32/u8 attrs, key bytes, request wiped"),
	TAP_TEST(test_peer_add_key, "peer add: key from stdin, refused key files and no key (nothing sent), kernel refusal"),
	TAP_TEST(test_peer_show_no_key, "peer show/monitor: a key in a reply is never printed (plain, JSON, pretty)"),
	TAP_TEST(test_peer_set_del_request, "peer set/del: only what was given, admin_up 0/1, del name only"),
	TAP_TEST(test_peer_errors, "peer add/set/del: extack and errno messages, path-of hints, warning ACK"),
	TAP_TEST(test_peer_event, "monitor: PEER_STATE_NTF parsed, plain and JSON"),
	TAP_TEST(test_monitor_peer_loop, "monitor: peer and dev events, seq gap, malformed, count"),
	TAP_TEST(test_ep_ring_small, "ep show: a receive ring with an update per message or two is called small"),
	TAP_TEST(test_ep_dump, "ep show: dump of two endpoints, plain, JSON, pretty, tenant filter, empty"),
	TAP_TEST(test_ep_show_do, "ep show id ID: do request with a u32 id, errors"),
	TAP_TEST(test_ep_malformed, "ep show: bad counter size skipped, sparse one printed, names"),
	TAP_TEST(test_tenant_traffic, "tenant show: the traffic of its endpoints, plain and JSON"),
	TAP_TEST(test_ep_old_module, "ep and tenant show: a module without tx_coalesced and rx_batches"),
	TAP_TEST(test_stat_attrs, "counters: an attribute and a key each, tx_coalesced and rx_batches apart"),
	TAP_TEST(test_stats_session, "counters: the session group with moves, without, moves alone, a short one refused"),
	TAP_TEST(test_stats_later_only, "counters: a nest of only tx_coalesced and rx_batches, a short one refused"),
};

int main(void)
{
	int ret = TAP_MAIN(tests);

	remove_keys();
	return ret;
}
