// SPDX-License-Identifier: GPL-2.0-only
/*
 * ep_race: endpoint pairing raced by the process's own threads (the
 * "ep_race" suite of run_vm_tests.py; ep_race_guest.sh runs it).
 *
 *   ep_race TENANT PEER SERVICE SECONDS SEED
 *
 * A process of tenant TENANT pairs with itself through PEER, a self
 * peer (the guest's own address: rxe loopback), on SERVICE, for
 * SECONDS, with four threads:
 *
 *  acceptor   EP_ACCEPT on the server file, destroys what it got;
 *  connector  EP_CONNECT on the client file, destroys what it got;
 *  destroyer  EP_DESTROY (and EP_INFO, then EP_DESTROY) on both files
 *	       for the ids just above the highest one seen: endpoint ids
 *	       are allocated in order, so those are the endpoints being
 *	       paired right now (the connector's, the acceptor's);
 *  churner    replaces the server or the client file under its fd
 *	       (dup2 of a fresh file with rings and a region: the old
 *	       file is released when the ioctl in flight on it returns),
 *	       and opens a third file that connects and is closed at once.
 *
 * Every ioctl may fail (that is the race); what the process asserts
 * is that pairs were still made, and that every thread came back from
 * its ioctl within the bound (a thread stuck in the kernel fails the
 * test).  The guest script asserts the rest: the tenant's QPs,
 * endpoints and pinned bytes back to 0 after the process, tenant del
 * without force, rmmod, and the runner a clean kernel log.
 *
 * Seen on main (1 vCPU, preempt=full, ~75 s): "BUG: kernel NULL pointer
 * dereference ... RIP: mutex_lock ... txrdma_pair_join+0x29 ...
 * txrdma_ioctl_ep_accept+0x42b": an endpoint destroyed by its owner
 * between its publication and its join of the file's rings.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "attack_util.h"

#define UNITS		64
#define PAIR_TMO_MS	300	/* every blocking ioctl returns within this */
#define STRAY_TMO_MS	50
#define ID_WINDOW	8	/* ids above the highest seen to destroy */
#define JOIN_S		10	/* a thread not back by then is stuck */
#define NERR		160

static const char *peer;
static uint32_t service;
static double t_end;
static atomic_bool stop;
static atomic_uint hi_id;		/* highest endpoint id seen */
/* the files' fds keep their numbers; their regions change with them */
static int fd_srv, fd_cli;
static atomic_uint srv_region, cli_region;
static unsigned long relisten_failed;

struct stats {
	const char *name;
	atomic_ulong calls, ok, hits;
	atomic_ulong err[NERR];		/* by errno */
	atomic_ulong last_call;		/* ioctls begun, for a stuck report */
};

static struct stats st_acc = { .name = "acceptor" };
static struct stats st_con = { .name = "connector" };
static struct stats st_des = { .name = "destroyer" };
static struct stats st_chu = { .name = "churner" };

static void count(struct stats *s, int ret)
{
	s->calls++;
	if (!ret)
		s->ok++;
	else
		s->err[-ret < NERR ? -ret : 0]++;
}

static void saw_id(uint32_t id)
{
	unsigned int h = atomic_load(&hi_id);

	while (id > h && !atomic_compare_exchange_weak(&hi_id, &h, id))
		;
}

static bool running(void)
{
	return !atomic_load(&stop) && at_now() < t_end;
}

/*
 * Accept (@to NULL) or connect to @to on *@fd with the ring in *@region,
 * and destroy each endpoint made, until the end.
 */
static void pair_loop(struct stats *s, const int *fd,
		      const atomic_uint *region, const char *to)
{
	struct txrdma_ep_connect ep;
	int ret;

	while (running()) {
		ret = at_pair(*fd, to, service, atomic_load(region), UNITS, 0,
			      PAIR_TMO_MS, &ep);
		count(s, ret);
		if (ret) {
			if (ret == -EINVAL)	/* a fresh file: not listening yet */
				at_msleep(1);
			continue;
		}
		saw_id(ep.id);
		at_ep_destroy(*fd, ep.id);
	}
}

static void *acceptor(void *arg)
{
	(void)arg;
	pair_loop(&st_acc, &fd_srv, &srv_region, NULL);
	return NULL;
}

static void *connector(void *arg)
{
	(void)arg;
	pair_loop(&st_con, &fd_cli, &cli_region, peer);
	return NULL;
}

static void *destroyer(void *arg)
{
	struct txrdma_ep_info info;
	unsigned long round = 0;
	int fds[2], i, d, ret;

	(void)arg;
	while (running()) {
		unsigned int h = atomic_load(&hi_id);

		fds[0] = fd_srv;
		fds[1] = fd_cli;
		for (d = 1; d <= ID_WINDOW; d++) {
			for (i = 0; i < 2; i++) {
				if (round & 1) {
					/* learn it first, as a tool would */
					if (at_ep_info(fds[i], h + d, &info))
						continue;
				}
				ret = at_ep_destroy(fds[i], h + d);
				count(&st_des, ret);
				if (!ret) {
					st_des.hits++;
					saw_id(h + d);
				}
			}
		}
		round++;
		sched_yield();
	}
	return NULL;
}

/* A file with rings and a region, for @fd's place: 0 or -errno. */
static int fresh_file(struct at_file *f)
{
	return at_file_open(f, 16, TXRDMA_REGION_HUGE_SIZE, false);
}

/* dup2 a fresh file over @fd; its region's id goes to *@region */
static int replace_file(struct stats *s, int fd, atomic_uint *region)
{
	struct at_file f;
	int ret = fresh_file(&f);

	count(s, ret);
	if (ret)
		return ret;
	atomic_store(region, f.region);
	ret = dup2(f.fd, fd) < 0 ? -errno : 0;
	count(s, ret);
	close(f.fd);
	return ret;
}

static void replace_server(struct stats *s)
{
	double end;
	int ret;

	if (replace_file(s, fd_srv, &srv_region))
		return;
	/* the old file's listener goes once the accept in flight returns */
	end = at_now() + 5;
	do {
		ret = at_listen(fd_srv, service);
		count(s, ret);
		if (ret == -EADDRINUSE)
			at_msleep(1);	/* a bounded poll */
	} while (ret == -EADDRINUSE && at_now() < end);
	/* the old file is still there 5 s later: something holds it */
	if (ret && !relisten_failed++)
		tap_diag("churner: listen on the new server file: %s (the old file was not released within 5 s; said once)",
			 strerror(-ret));
}

/* a third file connects and goes at once, paired or not */
static void stray(struct stats *s, struct at_rng *r)
{
	struct txrdma_ep_connect ep;
	struct at_file f;
	int ret;

	ret = fresh_file(&f);
	count(s, ret);
	if (ret)
		return;
	ret = at_pair(f.fd, peer, service, f.region, UNITS, 0,
		      1 + at_below(r, STRAY_TMO_MS), &ep);
	count(s, ret);
	if (!ret)
		saw_id(ep.id);
	at_file_close(&f);
}

static void *churner(void *arg)
{
	struct at_rng *r = arg;

	while (running()) {
		switch (at_below(r, 4)) {
		case 0:
			replace_server(&st_chu);
			break;
		case 1:
			replace_file(&st_chu, fd_cli, &cli_region);
			break;
		default:
			stray(&st_chu, r);
			break;
		}
		at_msleep(20 + at_below(r, 200));	/* pace, not sync */
	}
	return NULL;
}

static void report(const struct stats *s)
{
	char buf[1024];
	size_t n = 0;
	int e;

	for (e = 0; e < NERR; e++)
		if (s->err[e] && n < sizeof(buf) - 64)
			n += snprintf(buf + n, sizeof(buf) - n, " %s %lu",
				      e ? strerrorname_np(e) : "other",
				      (unsigned long)s->err[e]);
	tap_diag("%s: %lu calls, %lu ok%s%s", s->name,
		 (unsigned long)s->calls, (unsigned long)s->ok,
		 n ? "; errors:" : "", n ? buf : "");
}

int main(int argc, char **argv)
{
	struct stats *all[] = { &st_acc, &st_con, &st_des, &st_chu };
	void *(*fn[])(void *) = { acceptor, connector, destroyer, churner };
	struct at_file srv, cli;
	struct at_rng rng;
	pthread_t th[4];
	struct timespec ts;
	bool stuck = false;
	double secs, t0;
	int i, ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 6) {
		fprintf(stderr, "usage: %s TENANT PEER SERVICE SECONDS SEED\n",
			argv[0]);
		return 2;
	}
	peer = argv[2];
	service = strtoul(argv[3], NULL, 0);
	secs = atof(argv[4]);
	rng.s = strtoull(argv[5], NULL, 0);
	tap_diag("ep_race: tenant %s peer %s service %u for %.0f s, seed %#llx",
		 argv[1], peer, service, secs, (unsigned long long)rng.s);
	at_require_tenant(argv[1]);

	ret = fresh_file(&srv);
	if (!ret)
		ret = at_listen(srv.fd, service);
	if (!ret)
		ret = fresh_file(&cli);
	if (ret)
		tap_bail("server and client files (rings, region, listen): %s",
			 strerror(-ret));
	fd_srv = srv.fd;
	fd_cli = cli.fd;
	atomic_store(&srv_region, srv.region);
	atomic_store(&cli_region, cli.region);

	t0 = at_now();
	t_end = t0 + secs;
	for (i = 0; i < 4; i++) {
		ret = pthread_create(&th[i], NULL, fn[i], i == 3 ? &rng : NULL);
		if (ret)
			tap_bail("pthread_create: %s", strerror(ret));
	}
	/* wait for the end; then every thread must be back in JOIN_S */
	while (at_now() < t_end)
		at_msleep(100);
	atomic_store(&stop, true);
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += JOIN_S;
	for (i = 0; i < 4; i++) {
		ret = pthread_timedjoin_np(th[i], NULL, &ts);
		if (ret) {
			stuck = true;
			tap_ok(false, "%s came back from the kernel within %d s of the end (%lu ioctls; it is stuck in one)",
			       all[i]->name, JOIN_S,
			       (unsigned long)all[i]->calls);
		}
	}
	for (i = 0; i < 4; i++)
		report(all[i]);
	if (relisten_failed)
		tap_diag("churner: the server file could not listen again %lu times",
			 relisten_failed);
	tap_ok(!stuck, "all four threads came back within %d s of the end (%.1f s run)",
	       JOIN_S, at_now() - t0);
	tap_ok(st_acc.ok + st_con.ok > 0,
	       "pairs were made while racing: %lu accepted, %lu connected, %lu endpoints destroyed by id",
	       (unsigned long)st_acc.ok, (unsigned long)st_con.ok,
	       (unsigned long)st_des.hits);
	if (stuck) {
		/* a thread holds a file in the kernel: do not wait for it */
		tap_done();
		_exit(1);
	}
	close(fd_srv);
	close(fd_cli);
	return tap_done();
}
