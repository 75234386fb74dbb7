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
#include <errno.h>
#include <stdlib.h>

#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/genl/genl.h>

#include "tap.h"
#include "../dev.h"
#include "../monitor.h"
#include "../nl.h"
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

struct ftenant {
	const char *name;
	uint32_t id;
	const char *cgroup;
	uint8_t prio;
	uint64_t limits[TXA_LIM_NR];
	uint64_t usage[3];
	uint64_t refused[5];	/* qps, endpoints, pinned, bw, ops */
};

static const struct ftenant ten_a = {
	"a", 1, "/db/a", TXRDMA_PRIO_NORMAL,
	{ 10, UNL, 64ULL << 20, 100ULL << 20, 10ULL << 20, 1000, 100 },
	{ 0, 0, 0 }, { 0, 0, 0, 0, 0 },
};

static const struct ftenant ten_b = {
	"b", 2, "/db/b \"q\"", TXRDMA_PRIO_BULK,
	{ UNL, UNL, UNL, UNL, UNL, UNL, UNL },
	{ 3, 5, 1536 }, { 4, 0, 1, 7, 9 },
};

static const struct ftenant *ftenants[2] = { &ten_a, &ten_b };

static void put_tenant_reply(struct nl_msg *m, const struct ftenant *t)
{
	static const int refused_attr[5] = {
		TXRDMA_A_LIMIT_QPS, TXRDMA_A_LIMIT_ENDPOINTS,
		TXRDMA_A_LIMIT_PINNED_BYTES, TXRDMA_A_LIMIT_BW_RATE,
		TXRDMA_A_LIMIT_OPS_RATE,
	};
	struct nlattr *nest;
	unsigned int i;

	nla_put_string(m, TXRDMA_A_TENANT_NAME, t->name);
	nla_put_u32(m, TXRDMA_A_TENANT_ID, t->id);
	nla_put_string(m, TXRDMA_A_TENANT_CGROUP, t->cgroup);
	nla_put_u8(m, TXRDMA_A_TENANT_PRIO, t->prio);
	nest = nla_nest_start(m, TXRDMA_A_TENANT_LIMITS | NLA_F_NESTED);
	for (i = 0; i < TXA_LIM_NR; i++)
		put_u64(m, TXRDMA_A_LIMIT_QPS + i, t->limits[i]);
	nla_nest_end(m, nest);
	nest = nla_nest_start(m, TXRDMA_A_TENANT_USAGE | NLA_F_NESTED);
	for (i = 0; i < 3; i++)
		put_u64(m, TXRDMA_A_LIMIT_QPS + i, t->usage[i]);
	nla_nest_end(m, nest);
	nest = nla_nest_start(m, TXRDMA_A_TENANT_REFUSED | NLA_F_NESTED);
	for (i = 0; i < 5; i++)
		put_u64(m, refused_attr[i], t->refused[i]);
	nla_nest_end(m, nest);
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
"    qps 0/10 refused 0  endpoints 0/unlimited refused 0  pinned 0/64M refused 0\n"
"    bw 100M/s burst 10M throttled 0  ops 1000/s burst 100 throttled 0\n"
"b: id 2 cgroup /db/b \"q\" prio bulk\n"
"    qps 3/unlimited refused 4  endpoints 5/unlimited refused 0  pinned 1536/unlimited refused 1\n"
"    bw unlimited throttled 7  ops unlimited throttled 9\n";

static const char tenant_a_json[] =
"{\"name\":\"a\",\"id\":1,\"cgroup\":\"/db/a\",\"prio\":\"normal\","
"\"limits\":{\"qps\":10,\"endpoints\":null,\"pinned_bytes\":67108864,\"bw_rate\":104857600,"
"\"bw_burst\":10485760,\"ops_rate\":1000,\"ops_burst\":100},"
"\"usage\":{\"qps\":0,\"endpoints\":0,\"pinned_bytes\":0},"
"\"refused\":{\"qps\":0,\"endpoints\":0,\"pinned_bytes\":0,\"bw\":0,\"ops\":0}}";

static const char tenant_b_json[] =
"{\"name\":\"b\",\"id\":2,\"cgroup\":\"/db/b \\\"q\\\"\",\"prio\":\"bulk\","
"\"limits\":{\"qps\":null,\"endpoints\":null,\"pinned_bytes\":null,\"bw_rate\":null,"
"\"bw_burst\":null,\"ops_rate\":null,\"ops_burst\":null},"
"\"usage\":{\"qps\":3,\"endpoints\":5,\"pinned_bytes\":1536},"
"\"refused\":{\"qps\":4,\"endpoints\":0,\"pinned_bytes\":1,\"bw\":7,\"ops\":9}}";

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
			      (1U << TXA_LIM_BW_RATE) | (1U << TXA_LIM_BW_BURST),
		.limits = { [TXA_LIM_QPS] = 10, [TXA_LIM_PINNED] = UNL,
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
		for (i = 0; i <= TXRDMA_A_MAX; i++)
			n += !!lim[i];
		TAP_CHECK_INT(n, 4);	/* only what was given */
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
		  !lim[TXRDMA_A_LIMIT_OPS_BURST] && !lim[TXRDMA_A_LIMIT_QPS]);
	teardown();
	cleanup_bufs();

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
};

int main(void)
{
	return TAP_MAIN(tests);
}
