// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of tenant exec's pure part: finding the cgroup2 mount. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tap.h"

#include "../exec.h"

static int mount_of(const char *text, char *buf, size_t len)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int ret;

	ret = txa_cgroup2_mount(f, buf, len);
	fclose(f);
	return ret;
}

static void test_mountinfo(void)
{
	char buf[64];

	/* a Debian 12 host: optional fields between the options and "-" */
	TAP_CHECK_INT(mount_of(
		"22 27 0:21 / /proc rw,nosuid shared:12 - proc proc rw\n"
		"25 27 0:5 / /dev rw,nosuid shared:2 - devtmpfs udev rw\n"
		"30 26 0:26 / /sys/fs/cgroup rw,nosuid,nodev shared:9 - cgroup2 cgroup2 rw,nsdelegate\n",
		buf, sizeof(buf)), 0);
	TAP_CHECK_STR(buf, "/sys/fs/cgroup");
	/* no optional field at all */
	TAP_CHECK_INT(mount_of("30 26 0:26 / /cg rw - cgroup2 none rw\n",
			       buf, sizeof(buf)), 0);
	TAP_CHECK_STR(buf, "/cg");
	/* a v1 hierarchy is not it; a "-" in the options is not the end */
	TAP_CHECK_INT(mount_of(
		"31 26 0:27 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n"
		"32 26 0:28 / /x rw,a-b shared:1 - tmpfs cgroup2 rw\n",
		buf, sizeof(buf)), -ENOENT);
	/* a bind mount of a subtree is skipped for the hierarchy's root */
	TAP_CHECK_INT(mount_of(
		"40 26 0:26 /sub /mnt/sub rw - cgroup2 cgroup2 rw\n"
		"41 26 0:26 / /mnt/my\\040cg rw - cgroup2 cgroup2 rw\n",
		buf, sizeof(buf)), 0);
	TAP_CHECK_STR(buf, "/mnt/my cg");
	TAP_CHECK_INT(mount_of("", buf, sizeof(buf)), -ENOENT);
	TAP_CHECK_INT(mount_of("1 2 0:3 / /a/very/long/path/indeed rw - cgroup2 c rw\n",
			       buf, 8), -ENAMETOOLONG);
	/* a truncated line is not a match */
	TAP_CHECK_INT(mount_of("30 26 0:26 / /cg rw -\n", buf, sizeof(buf)),
		      -ENOENT);
}

static const struct tap_test tests[] = {
	TAP_TEST(test_mountinfo, "exec: the cgroup2 mount from mountinfo"),
};

int main(void)
{
	return TAP_MAIN(tests);
}
