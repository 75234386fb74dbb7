// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * One-sided READ and WRITE of an exported range.  The server fills a
 * "table" region, exports all of it to the pair (READ and WRITE) and
 * tells the client its id in a message; the client finds the export in
 * txrdma_ep_exports(), READs 64 KiB of the table, checks the bytes,
 * WRITEs 4 KiB into its last page and says so; the server checks the
 * write, revokes the export and answers "verified".
 *
 *   onesided server SERVICE
 *   onesided client PEER SERVICE
 *
 * The table is a region of its own: an export can never overlap a
 * receive ring (the kernel refuses it with -EADDRINUSE), or the other side
 * could write over it.  An SQE names the bytes by the table's region
 * id and their offset in the table.
 */
#include "example.h"

#define READ_OFF	4096
#define READ_LEN	(64u << 10)
#define WRITE_LEN	4096
#define LOCAL_DST	(256u << 10)	/* where the client READs into */

/* the table's bytes: a function of where they are */
static unsigned char pat(size_t off, unsigned int seed)
{
	return (unsigned char)(off * 131 + seed);
}

static int server(__u32 service)
{
	struct txrdma_export_info x;
	struct txrdma_region table;
	char msg[EX_MAX_MSG];
	unsigned long off, len;
	unsigned int seed;
	struct ex_pair p;
	struct ex ex;
	size_t i;
	int ret;

	ex_open(&ex);
	if ((ret = txrdma_region_create(ex.ctx, EX_REGION, 0, &table)))
		ex_die("txrdma_region_create", ret);
	for (i = 0; i < table.size; i++)
		((unsigned char *)table.addr)[i] = pat(i, 7);
	if ((ret = txrdma_ep_listen(ex.ctx, service)))
		ex_die("txrdma_ep_listen", ret);
	printf("onesided server: listening on service %u\n", service);
	fflush(stdout);
	ex_pair(&ex, &p, 0, NULL, service);
	x = (struct txrdma_export_info){
		.region = table.id,
		.access = TXRDMA_EXPORT_READ | TXRDMA_EXPORT_WRITE,
		.off = 0, .len = table.size,
	};
	ret = txrdma_ep_export(ex.ctx, p.ep.id, &x, 0);
	if (ret)
		ex_die("txrdma_ep_export", ret);
	snprintf(msg, sizeof(msg), "table %u %llu", table.id,
		 (unsigned long long)table.size);
	ex_send(&p, msg, strlen(msg));
	ex_recv(&p, msg, sizeof(msg), 1);
	if (sscanf(msg, "done %lu %lu %u", &off, &len, &seed) != 3 ||
	    off + len > table.size) {
		fprintf(stderr, "onesided server: unexpected \"%s\"\n", msg);
		return 1;
	}
	for (i = 0; i < len; i++)
		if (((unsigned char *)table.addr)[off + i] != pat(off + i, seed)) {
			fprintf(stderr, "onesided server: byte %zu of the client's WRITE is wrong\n",
				off + i);
			return 1;
		}
	/* done with it: the client's READ/WRITE of it now fail -EPERM */
	if ((ret = txrdma_ep_unexport(ex.ctx, p.ep.id, &x, 0)))
		ex_die("txrdma_ep_unexport", ret);
	ex_send(&p, "verified", 8);
	printf("onesided server: exported table %u (%llu bytes); the client's WRITE of %lu bytes at %lu is there\n",
	       table.id, (unsigned long long)table.size, len, off);
	ex_recv(&p, msg, sizeof(msg), 1);	/* "bye": we close the pair */
	txrdma_ep_destroy(ex.ctx, p.ep.id);
	txrdma_close(ex.ctx);
	return 0;
}

/* Is [0, @size) of region @table exported to us, READ and WRITE? */
static int imported(struct ex *ex, struct ex_pair *p, unsigned int table,
		    unsigned long long size)
{
	struct txrdma_ep_exports x;
	unsigned int i;
	int ret;

	if ((ret = txrdma_ep_exports(ex->ctx, p->ep.id, &x)))
		ex_die("txrdma_ep_exports", ret);
	for (i = 0; i < x.nimported; i++)
		if (x.imported[i].region == table && !x.imported[i].off &&
		    x.imported[i].len == size &&
		    x.imported[i].access ==
		    (TXRDMA_EXPORT_READ | TXRDMA_EXPORT_WRITE))
			return 1;
	return 0;
}

static int client(const char *peer, __u32 service)
{
	unsigned char *local;
	unsigned long long size;
	char msg[EX_MAX_MSG];
	struct txrdma_sqe *sqe;
	unsigned int table;
	struct ex_pair p;
	struct ex ex;
	size_t i;
	int res;

	ex_open(&ex);
	ex_pair(&ex, &p, 0, peer, service);
	ex_recv(&p, msg, sizeof(msg), 1);
	if (sscanf(msg, "table %u %llu", &table, &size) != 2 ||
	    size < READ_OFF + READ_LEN + WRITE_LEN) {
		fprintf(stderr, "onesided client: unexpected \"%s\"\n", msg);
		return 1;
	}
	/* the server's export returned after ours had it: no wait */
	if (!imported(&ex, &p, table, size)) {
		fprintf(stderr, "onesided client: table %u not in txrdma_ep_exports()\n",
			table);
		return 1;
	}
	local = (unsigned char *)ex.r.addr;

	/* READ 64 KiB of the table into our region, check every byte */
	sqe = txrdma_get_sqe(&ex.sq);
	txrdma_prep_read(sqe, p.ep.id, ex.r.id, LOCAL_DST, READ_LEN, table,
			 READ_OFF, 1);
	txrdma_submit(ex.ctx, &ex.sq);
	if ((res = ex_complete(&ex, 1)) != READ_LEN)
		ex_die("READ", res < 0 ? res : -EIO);
	for (i = 0; i < READ_LEN; i++)
		if (local[LOCAL_DST + i] != pat(READ_OFF + i, 7)) {
			fprintf(stderr, "onesided client: byte %zu read wrong\n",
				READ_OFF + i);
			return 1;
		}

	/* WRITE 4 KiB of ours into the table's last page, then say so */
	for (i = 0; i < WRITE_LEN; i++)
		local[LOCAL_DST + i] = pat(size - WRITE_LEN + i, 99);
	sqe = txrdma_get_sqe(&ex.sq);
	txrdma_prep_write(sqe, p.ep.id, ex.r.id, LOCAL_DST, WRITE_LEN, table,
			  size - WRITE_LEN, 2);
	txrdma_submit(ex.ctx, &ex.sq);
	if ((res = ex_complete(&ex, 2)) != WRITE_LEN)
		ex_die("WRITE", res < 0 ? res : -EIO);
	/* a SEND after a WRITE: the WRITE is there when this is read */
	snprintf(msg, sizeof(msg), "done %llu %u %u", size - WRITE_LEN,
		 WRITE_LEN, 99);
	ex_send(&p, msg, strlen(msg));
	ex_recv(&p, msg, sizeof(msg), 1);
	if (strcmp(msg, "verified")) {
		fprintf(stderr, "onesided client: unexpected \"%s\"\n", msg);
		return 1;
	}
	ex_bye(&p);
	printf("onesided client: READ %u bytes of table %u right, WRITE of %u bytes verified by the server\n",
	       READ_LEN, table, WRITE_LEN);
	txrdma_ep_destroy(ex.ctx, p.ep.id);
	txrdma_close(ex.ctx);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "server"))
		return server((__u32)strtoul(argv[2], NULL, 0));
	if (argc == 4 && !strcmp(argv[1], "client"))
		return client(argv[2], (__u32)strtoul(argv[3], NULL, 0));
	fprintf(stderr, "usage: onesided server SERVICE\n"
			"       onesided client PEER SERVICE\n");
	return 2;
}
