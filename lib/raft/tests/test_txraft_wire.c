// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The Raft RPC wire format (lib/raft/txraft_wire.c) on the host, under
 * ASan and UBSan:
 *  - every message type survives encode and decode field for field,
 *    entries and snapshot data byte for byte;
 *  - every single-bit flip of an encoded AppendEntries, InstallSnapshot
 *    and RequestVote, and every truncation, is refused, and so are a
 *    wrong length, version and reserved field: nothing half-decoded;
 *  - what cannot be encoded (unknown type, a long address, too little
 *    room) is refused with the documented error;
 *  - random bytes never decode (and never crash).
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/txrdma_raft.h>

#include "../txraft_wire.h"
#include "tap.h"
#include "txn_test.h"

static uint64_t buf8[1 << 14];	/* 128 KiB, 8-byte aligned */
static uint64_t copy8[1 << 14];

static struct raft_message ae_with(struct raft_entry *es, unsigned int n)
{
	struct raft_message m = { .type = RAFT_IO_APPEND_ENTRIES, .server_id = 2 };

	m.append_entries = (struct raft_append_entries) {
		.term = 7, .prev_log_index = 41, .prev_log_term = 6,
		.leader_commit = 40, .entries = es, .n_entries = n,
	};
	return m;
}

static uint8_t payload[3][5000];
static struct raft_entry entries[3];

static void make_entries(void)
{
	static const size_t len[3] = { 1, 64, 4099 };
	static const unsigned short type[3] = { RAFT_COMMAND, RAFT_BARRIER,
						RAFT_CHANGE };
	unsigned int i, j;

	for (i = 0; i < 3; i++) {
		for (j = 0; j < len[i]; j++)
			payload[i][j] = (uint8_t)mix(i * 7919 + j);
		entries[i] = (struct raft_entry) {
			.term = 5 + i, .type = type[i],
			.buf = { .base = payload[i], .len = len[i] },
		};
	}
}

static long encode(const struct raft_message *m)
{
	return txraft_wire_encode(m, 3, buf8, sizeof(buf8));
}

static void test_append_entries(void)
{
	struct raft_message m, d;
	long n;
	unsigned int i;

	make_entries();
	m = ae_with(entries, 3);
	n = encode(&m);
	TAP_CHECK(n > 0 && (size_t)n == txraft_wire_size(&m));
	TAP_CHECK(n % 8 == 0);
	TAP_CHECK_INT(txraft_wire_decode(buf8, (size_t)n, &d), 0);
	TAP_CHECK_INT(d.type, RAFT_IO_APPEND_ENTRIES);
	TAP_CHECK_INT(d.server_id, 3);
	TAP_CHECK_INT(d.append_entries.term, 7);
	TAP_CHECK_INT(d.append_entries.prev_log_index, 41);
	TAP_CHECK_INT(d.append_entries.prev_log_term, 6);
	TAP_CHECK_INT(d.append_entries.leader_commit, 40);
	TAP_CHECK_INT(d.append_entries.n_entries, 3);
	for (i = 0; i < 3 && d.append_entries.entries; i++) {
		const struct raft_entry *e = &d.append_entries.entries[i];

		TAP_CHECK_INT(e->term, entries[i].term);
		TAP_CHECK_INT(e->type, entries[i].type);
		TAP_CHECK_INT(e->buf.len, entries[i].buf.len);
		TAP_CHECK(!memcmp(e->buf.base, entries[i].buf.base, e->buf.len));
		/* one batch, as libraft frees it */
		TAP_CHECK(e->batch == d.append_entries.entries[0].batch);
	}
	txraft_wire_release(&d);

	/* a heartbeat: no entries */
	m = ae_with(NULL, 0);
	n = encode(&m);
	TAP_CHECK_INT(n, (long)(sizeof(struct txrdma_raft_hdr) +
				sizeof(struct txrdma_raft_append_entries)));
	TAP_CHECK_INT(txraft_wire_decode(buf8, (size_t)n, &d), 0);
	TAP_CHECK(d.append_entries.entries == NULL);
	TAP_CHECK_INT(d.append_entries.n_entries, 0);
	txraft_wire_release(&d);
}

static void test_small_messages(void)
{
	struct raft_message m = { .server_id = 1 }, d;
	static const raft_tribool pv[3] = { raft_tribool_unknown,
					    raft_tribool_true,
					    raft_tribool_false };
	unsigned int i;
	long n;

	m.type = RAFT_IO_REQUEST_VOTE;
	m.request_vote = (struct raft_request_vote) {
		.term = 9, .candidate_id = 3, .last_log_index = 100,
		.last_log_term = 8, .disrupt_leader = true, .pre_vote = true,
	};
	n = encode(&m);
	TAP_CHECK_INT(txraft_wire_decode(buf8, (size_t)n, &d), 0);
	TAP_CHECK_INT(d.server_id, 3);
	TAP_CHECK_INT(d.request_vote.term, 9);
	TAP_CHECK_INT(d.request_vote.candidate_id, 3);
	TAP_CHECK_INT(d.request_vote.last_log_index, 100);
	TAP_CHECK_INT(d.request_vote.last_log_term, 8);
	TAP_CHECK(d.request_vote.disrupt_leader && d.request_vote.pre_vote);

	for (i = 0; i < 3; i++) {
		m.type = RAFT_IO_REQUEST_VOTE_RESULT;
		m.request_vote_result = (struct raft_request_vote_result) {
			.term = 10 + i, .vote_granted = i & 1, .pre_vote = pv[i],
		};
		n = encode(&m);
		TAP_CHECK_INT(txraft_wire_decode(buf8, (size_t)n, &d), 0);
		TAP_CHECK_INT(d.request_vote_result.term, 10 + i);
		TAP_CHECK_INT(d.request_vote_result.vote_granted, i & 1);
		TAP_CHECK_INT(d.request_vote_result.pre_vote, pv[i]);
	}

	m.type = RAFT_IO_APPEND_ENTRIES_RESULT;
	m.append_entries_result = (struct raft_append_entries_result) {
		.term = 4, .rejected = 17, .last_log_index = 16,
	};
	n = encode(&m);
	TAP_CHECK_INT(txraft_wire_decode(buf8, (size_t)n, &d), 0);
	TAP_CHECK_INT(d.append_entries_result.term, 4);
	TAP_CHECK_INT(d.append_entries_result.rejected, 17);
	TAP_CHECK_INT(d.append_entries_result.last_log_index, 16);

	m.type = RAFT_IO_TIMEOUT_NOW;
	m.timeout_now = (struct raft_timeout_now) {
		.term = 12, .last_log_index = 99, .last_log_term = 11,
	};
	n = encode(&m);
	TAP_CHECK_INT(txraft_wire_decode(buf8, (size_t)n, &d), 0);
	TAP_CHECK_INT(d.timeout_now.term, 12);
	TAP_CHECK_INT(d.timeout_now.last_log_index, 99);
	TAP_CHECK_INT(d.timeout_now.last_log_term, 11);
}

static struct raft_message snapshot_msg(struct raft_configuration *conf,
					uint8_t *data, size_t len)
{
	struct raft_message m = { .type = RAFT_IO_INSTALL_SNAPSHOT,
				  .server_id = 2 };

	raft_configuration_init(conf);
	raft_configuration_add(conf, 1, "10.0.0.1:7000", RAFT_VOTER);
	raft_configuration_add(conf, 2, "host-b", RAFT_STANDBY);
	raft_configuration_add(conf, 3, "c", RAFT_SPARE);
	m.install_snapshot = (struct raft_install_snapshot) {
		.term = 3, .last_index = 500, .last_term = 2, .conf = *conf,
		.conf_index = 450, .data = { .base = data, .len = len },
	};
	return m;
}

static void test_install_snapshot(void)
{
	struct raft_configuration conf;
	struct raft_message m, d;
	uint8_t data[777];
	unsigned int i;
	long n;

	for (i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)mix(i);
	m = snapshot_msg(&conf, data, sizeof(data));
	n = encode(&m);
	TAP_CHECK(n > 0);
	TAP_CHECK_INT(txraft_wire_decode(buf8, (size_t)n, &d), 0);
	TAP_CHECK_INT(d.install_snapshot.term, 3);
	TAP_CHECK_INT(d.install_snapshot.last_index, 500);
	TAP_CHECK_INT(d.install_snapshot.last_term, 2);
	TAP_CHECK_INT(d.install_snapshot.conf_index, 450);
	TAP_CHECK_INT(d.install_snapshot.conf.n, 3);
	for (i = 0; i < 3 && i < d.install_snapshot.conf.n; i++) {
		TAP_CHECK_INT(d.install_snapshot.conf.servers[i].id,
			      conf.servers[i].id);
		TAP_CHECK_INT(d.install_snapshot.conf.servers[i].role,
			      conf.servers[i].role);
		TAP_CHECK_STR(d.install_snapshot.conf.servers[i].address,
			      conf.servers[i].address);
	}
	TAP_CHECK_INT(d.install_snapshot.data.len, sizeof(data));
	TAP_CHECK(!memcmp(d.install_snapshot.data.base, data, sizeof(data)));
	txraft_wire_release(&d);
	raft_configuration_close(&conf);
}

/* every bit flip and every truncation of the message in buf8 is refused */
static void check_tamper(size_t n, const char *what)
{
	struct raft_message d;
	size_t i, taken = 0;
	unsigned int bit;

	memcpy(copy8, buf8, n);
	for (i = 0; i < n; i++)
		for (bit = 0; bit < 8; bit++) {
			((uint8_t *)copy8)[i] ^= (uint8_t)(1u << bit);
			if (!txraft_wire_decode(copy8, n, &d)) {
				taken++;
				txraft_wire_release(&d);
			}
			((uint8_t *)copy8)[i] ^= (uint8_t)(1u << bit);
		}
	for (i = 0; i < n; i++)
		if (!txraft_wire_decode(copy8, i, &d)) {
			taken++;
			txraft_wire_release(&d);
		}
	if (taken)
		tap_diag("%s: %zu tampered copies decoded", what, taken);
	TAP_CHECK_INT(taken, 0);
}

static void test_tamper(void)
{
	struct raft_configuration conf;
	struct raft_message m;
	uint8_t data[40];
	long n;

	make_entries();
	entries[2].buf.len = 300;	/* keep the flip loop short */
	m = ae_with(entries, 3);
	n = encode(&m);
	TAP_CHECK(n > 0);
	check_tamper((size_t)n, "AppendEntries");

	memset(data, 0x5a, sizeof(data));
	m = snapshot_msg(&conf, data, sizeof(data) - 3);
	n = encode(&m);
	TAP_CHECK(n > 0);
	check_tamper((size_t)n, "InstallSnapshot");
	raft_configuration_close(&conf);

	m = (struct raft_message) { .type = RAFT_IO_REQUEST_VOTE,
				    .server_id = 1 };
	m.request_vote.term = 2;
	n = encode(&m);
	check_tamper((size_t)n, "RequestVote");
}

static void test_encode_refusals(void)
{
	struct raft_configuration conf;
	struct raft_message m = { .type = 99, .server_id = 1 };
	char longaddr[300];
	uint8_t data[8] = { 0 };

	TAP_CHECK_INT(txraft_wire_size(&m), 0);
	TAP_CHECK_INT(encode(&m), -EINVAL);

	make_entries();
	m = ae_with(entries, 3);
	TAP_CHECK_INT(txraft_wire_encode(&m, 3, buf8, 100), -ENOSPC);
	TAP_CHECK_INT(txraft_wire_encode(&m, 0, buf8, sizeof(buf8)), -EINVAL);
	entries[1].type = 77;
	TAP_CHECK_INT(encode(&m), -EINVAL);

	memset(longaddr, 'a', sizeof(longaddr) - 1);
	longaddr[sizeof(longaddr) - 1] = '\0';
	m = snapshot_msg(&conf, data, sizeof(data));
	raft_configuration_add(&conf, 4, longaddr, RAFT_VOTER);
	m.install_snapshot.conf = conf;
	TAP_CHECK_INT(txraft_wire_size(&m), 0);
	TAP_CHECK_INT(encode(&m), -EINVAL);
	raft_configuration_close(&conf);
}

static void test_random_bytes(void)
{
	struct raft_message d;
	uint64_t st = 42;
	unsigned int i, j, taken = 0;
	size_t n;

	for (i = 0; i < 20000; i++) {
		n = splitmix64(&st) % 512;
		for (j = 0; j < (n + 7) / 8; j++)
			copy8[j] = splitmix64(&st);
		if (i & 1 && n >= sizeof(struct txrdma_raft_hdr)) {
			/* a plausible header: only the CRC stops it */
			struct txrdma_raft_hdr *h = (void *)copy8;

			h->magic = htole16(TXRDMA_RAFT_MAGIC);
			h->version = TXRDMA_RAFT_VERSION;
			h->type = (uint8_t)(1 + i % 6);
			h->len = htole32((uint32_t)n);
			h->resv = 0;
		}
		if (!txraft_wire_decode(copy8, n, &d)) {
			taken++;
			txraft_wire_release(&d);
		}
	}
	TAP_CHECK_INT(taken, 0);
}

static const struct tap_test tests[] = {
	TAP_TEST(test_append_entries, "AppendEntries: fields, entries byte for byte, one batch; a heartbeat"),
	TAP_TEST(test_small_messages, "RequestVote(Result), AppendEntriesResult, TimeoutNow round-trip"),
	TAP_TEST(test_install_snapshot, "InstallSnapshot: configuration and data round-trip"),
	TAP_TEST(test_tamper, "every bit flip and truncation is refused"),
	TAP_TEST(test_encode_refusals, "unknown type, bad entry type, long address, no room: refused"),
	TAP_TEST(test_random_bytes, "20,000 random messages never decode"),
};

int main(void)
{
	return TAP_MAIN(tests);
}
