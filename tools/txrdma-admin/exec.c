// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * exec.c: txrdma-admin tenant exec NAME -- CMD.
 *
 * The module decides a process's tenant by its cgroup (v2) when it
 * opens /dev/txrdma or makes a region, so running a database "in a
 * tenant" means starting it in that cgroup.  This does what an
 * administrator would do by hand: look the tenant's cgroup up, write
 * our own pid into its cgroup.procs, exec the command.  Everything the
 * command starts stays there.  Moving a process needs write access to
 * cgroup.procs of the target (and of the common ancestor), i.e. root or
 * a delegated subtree: the error says so.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/limits.h>	/* PATH_MAX (../limits.h is the tool's own) */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/genl/genl.h>

#include <linux/txrdma.h>

#include "exec.h"
#include "nl.h"
#include "tenant.h"

/* Decode mountinfo's octal escapes of @in into @out (@len). */
static int unescape(const char *in, char *out, size_t len)
{
	size_t n = 0;

	while (*in) {
		char c = *in++;

		if (c == '\\' && in[0] >= '0' && in[0] <= '3' &&
		    in[1] >= '0' && in[1] <= '7' && in[2] >= '0' &&
		    in[2] <= '7') {
			c = (char)((in[0] - '0') * 64 + (in[1] - '0') * 8 +
				   (in[2] - '0'));
			in += 3;
		}
		if (n + 1 >= len)
			return -ENAMETOOLONG;
		out[n++] = c;
	}
	out[n] = '\0';
	return 0;
}

int txa_cgroup2_mount(FILE *mountinfo, char *buf, size_t len)
{
	char *line = NULL;
	size_t cap = 0;
	int ret = -ENOENT;

	/* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [OPTIONAL...] - FSTYPE ... */
	while (getline(&line, &cap, mountinfo) > 0) {
		char *save = NULL, *mnt = NULL, *tok, *root = NULL;
		bool dash = false;
		int field = 0;

		for (tok = strtok_r(line, " \n", &save); tok;
		     tok = strtok_r(NULL, " \n", &save), field++) {
			if (field == 3)
				root = tok;
			else if (field == 4)
				mnt = tok;
			else if (field > 5 && !dash && !strcmp(tok, "-"))
				dash = true;
			else if (dash)
				break;	/* tok is the file system type */
		}
		/* a bind mount of a subtree is not the hierarchy's root */
		if (!tok || !mnt || !root || strcmp(tok, "cgroup2") ||
		    strcmp(root, "/"))
			continue;
		ret = unescape(mnt, buf, len);
		break;
	}
	free(line);
	return ret;
}

/* TENANT_GET reply: the tenant's cgroup path */
static int got_tenant(struct nlmsghdr *nlh, void *arg)
{
	struct txa_tenant *t = arg;

	txa_tenant_free(t);
	return txa_tenant_parse(nlh, t);
}

/* The cgroup of tenant @name into @t (the caller frees it). */
static int lookup(const char *name, struct txa_tenant *t)
{
	struct nl_msg *msg;
	struct txa_nl nl;
	int ret = -1;

	if (txa_nl_open(&nl, "tenant exec"))
		return -1;
	msg = txa_nl_msg(&nl, TXRDMA_CMD_TENANT_GET, 0);
	if (!msg)
		goto out;
	if (nla_put_string(msg, TXRDMA_A_TENANT_NAME, name) < 0) {
		nlmsg_free(msg);
		fprintf(stderr, TXA_PROG ": tenant exec: %s\n",
			strerror(ENOMEM));
		goto out;
	}
	if (txa_nl_request(&nl, msg, got_tenant, t)) {
		char hint[TXRDMA_TENANT_NAME_MAX + 64];

		snprintf(hint, sizeof(hint), "no tenant \"%s\"", name);
		txa_nl_perror(&nl, nl.ext.error == ENOENT ? hint : NULL);
		goto out;
	}
	if (!t->cgroup || t->cgroup[0] != '/') {
		fprintf(stderr, TXA_PROG ": tenant exec: the module sent no cgroup for tenant \"%s\"\n",
			name);
		goto out;
	}
	ret = 0;
out:
	txa_nl_close(&nl);
	return ret;
}

/* Move this process into the cgroup @cg (a path under the cgroup2 mount). */
static int enter(const char *tenant, const char *cg)
{
	char mnt[PATH_MAX], path[PATH_MAX * 2], pid[24];
	FILE *mi;
	int fd, n, ret;

	mi = fopen("/proc/self/mountinfo", "re");
	if (!mi) {
		fprintf(stderr, TXA_PROG ": tenant exec: /proc/self/mountinfo: %s\n",
			strerror(errno));
		return -1;
	}
	ret = txa_cgroup2_mount(mi, mnt, sizeof(mnt));
	fclose(mi);
	if (ret) {
		fprintf(stderr, TXA_PROG ": tenant exec: %s\n",
			ret == -ENOENT ? "no cgroup2 file system is mounted (txrdma's tenants are cgroup v2 cgroups)"
				       : strerror(-ret));
		return -1;
	}
	snprintf(path, sizeof(path), "%s%s/cgroup.procs",
		 strcmp(mnt, "/") ? mnt : "", cg);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = errno;
		fprintf(stderr, TXA_PROG ": tenant exec: %s: %s%s\n", path,
			strerror(ret),
			ret == EACCES || ret == EPERM ?
			" (moving a process into a tenant's cgroup needs root, or write access to a delegated cgroup tree)" :
			ret == ENOENT ? " (the tenant's cgroup is gone)" : "");
		return -1;
	}
	n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (write(fd, pid, (size_t)n) != n) {
		ret = errno;
		close(fd);
		fprintf(stderr, TXA_PROG ": tenant exec: moving into tenant \"%s\" (%s): %s%s\n",
			tenant, path, strerror(ret),
			ret == EOPNOTSUPP || ret == EBUSY ?
			" (a cgroup with controllers enabled for its children takes no processes)" :
			"");
		return -1;
	}
	close(fd);
	return 0;
}

int txa_cmd_tenant_exec(const struct txa_args *a)
{
	struct txa_tenant t;
	int ret;

	memset(&t, 0, sizeof(t));
	if (lookup(a->tenant.name, &t)) {
		txa_tenant_free(&t);
		return TXA_EXIT_FAIL;
	}
	ret = enter(a->tenant.name, t.cgroup);
	txa_tenant_free(&t);
	if (ret)
		return TXA_EXIT_FAIL;
	fflush(NULL);
	execvp(a->tenant.argv[0], a->tenant.argv);
	ret = errno;
	fprintf(stderr, TXA_PROG ": tenant exec: %s: %s\n", a->tenant.argv[0],
		strerror(ret));
	return ret == ENOENT ? 127 : 126;
}
