/* SPDX-License-Identifier: GPL-2.0-only */
/* Helpers shared by the txrdma selftests: what sysfs says about RDMA. */
#ifndef _TXRDMA_SELFTEST_COMMON_H
#define _TXRDMA_SELFTEST_COMMON_H

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Number of RDMA devices the RDMA core has registered. */
static inline int sysfs_rdma_count(void)
{
	DIR *d = opendir("/sys/class/infiniband");
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

static inline int sysfs_read(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = 0;
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = 0;
	return 0;
}

/* node_guid as sysfs prints it ("5054:00ff:fe12:3456") to a u64. */
static inline int sysfs_node_guid(const char *dev, uint64_t *guid)
{
	unsigned int a, b, c, d;
	char path[256], buf[64];

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/node_guid",
		 dev);
	if (sysfs_read(path, buf, sizeof(buf)) ||
	    sscanf(buf, "%x:%x:%x:%x", &a, &b, &c, &d) != 4)
		return -1;
	*guid = (uint64_t)a << 48 | (uint64_t)b << 32 | (uint64_t)c << 16 | d;
	return 0;
}

/* Port state number as sysfs prints it ("4: ACTIVE"). */
static inline int sysfs_port_state(const char *dev, unsigned int port)
{
	char path[256], buf[64];
	int st;

	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/ports/%u/state", dev, port);
	if (sysfs_read(path, buf, sizeof(buf)) || sscanf(buf, "%d", &st) != 1)
		return -1;
	return st;
}

#endif
