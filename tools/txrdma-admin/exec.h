/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * exec.h: txrdma-admin tenant exec NAME -- CMD: run a command inside a
 * tenant's cgroup, so that what it opens of /dev/txrdma is the tenant's
 * (like ip netns exec for a network namespace).
 */
#ifndef TXA_EXEC_H
#define TXA_EXEC_H

#include <stddef.h>
#include <stdio.h>

#include "args.h"

/*
 * The mount point of the cgroup2 hierarchy as @mountinfo (the text of
 * /proc/self/mountinfo) lists it, into @buf (@len bytes, NUL
 * terminated).  Octal escapes (\040 for a space) are decoded.
 * Returns 0, -ENOENT (no cgroup2 mount) or -ENAMETOOLONG.
 */
int txa_cgroup2_mount(FILE *mountinfo, char *buf, size_t len);

/*
 * Run a->tenant.argv in tenant a->tenant.name's cgroup: look the tenant
 * up (netlink), move this process into <cgroup2 mount><its cgroup>, then
 * exec.  Returns only on failure: TXA_EXIT_FAIL when the tenant or its
 * cgroup cannot be had, 126 when the command cannot be run, 127 when it
 * is not found (as shells do), after a message on stderr.
 */
int txa_cmd_tenant_exec(const struct txa_args *a);

#endif /* TXA_EXEC_H */
