// SPDX-License-Identifier: GPL-2.0-only
/*
 * region_hold: a helper for shell selftests.  Creates N 2 MiB regions,
 * maps them and fills each with a pattern, prints "ready <id>...", then
 * for every line read on stdin: "check" verifies every byte and prints
 * "ok" or "bad", "create" makes one more region and prints its id,
 * "user" / "userhuge" registers 2 MiB of anonymous / MAP_HUGETLB memory
 * as a user region and prints its id or the error, "quit" exits 0.
 * The caller must be in a txrdma tenant.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/txrdma.h>

#define SZ	TXRDMA_REGION_HUGE_SIZE
#define MAXR	64

static int fd;
static unsigned char *maps[MAXR];
static unsigned int ids[MAXR];
static int nr;

static int create_one(void)
{
	struct txrdma_region_create rc = { .size = SZ };

	if (nr == MAXR || ioctl(fd, TXRDMA_IOC_REGION_CREATE, &rc))
		return -1;
	maps[nr] = mmap(NULL, SZ, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			rc.mmap_offset);
	if (maps[nr] == MAP_FAILED)
		return -1;
	for (size_t i = 0; i < SZ; i++)
		maps[nr][i] = (unsigned char)(i * 7 + rc.id);
	ids[nr++] = rc.id;
	return rc.id;
}

static void reg_user(int huge)
{
	struct txrdma_region_reg_user ru = { .size = SZ };
	void *p;

	p = mmap(NULL, SZ, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | (huge ? MAP_HUGETLB : 0), -1, 0);
	if (p == MAP_FAILED) {
		printf("error mmap %s\n", strerror(errno));
		return;
	}
	memset(p, 0x11, SZ);
	ru.addr = (unsigned long)p;
	if (ioctl(fd, TXRDMA_IOC_REGION_REG_USER, &ru))
		printf("error reg_user %s\n", strerror(errno));
	else
		printf("user %u\n", ru.id);
}

static int check_all(void)
{
	for (int r = 0; r < nr; r++)
		for (size_t i = 0; i < SZ; i++)
			if (maps[r][i] != (unsigned char)(i * 7 + ids[r]))
				return -1;
	return 0;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;
	char line[64];

	setvbuf(stdout, NULL, _IOLBF, 0);
	fd = open("/dev/txrdma", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		printf("error open %s\n", strerror(errno));
		return 1;
	}
	for (int i = 0; i < n; i++) {
		if (create_one() < 0) {
			printf("error create %s\n", strerror(errno));
			return 1;
		}
	}
	printf("ready");
	for (int r = 0; r < nr; r++)
		printf(" %u", ids[r]);
	printf("\n");
	while (fgets(line, sizeof(line), stdin)) {
		if (!strncmp(line, "check", 5)) {
			printf(check_all() ? "bad\n" : "ok\n");
		} else if (!strncmp(line, "create", 6)) {
			int id = create_one();

			if (id < 0)
				printf("error create %s\n", strerror(errno));
			else
				printf("created %d\n", id);
		} else if (!strncmp(line, "userhuge", 8)) {
			reg_user(1);
		} else if (!strncmp(line, "user", 4)) {
			reg_user(0);
		} else if (!strncmp(line, "quit", 4)) {
			return 0;
		}
	}
	return 0;
}
