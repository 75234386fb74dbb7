// SPDX-License-Identifier: GPL-2.0-only
/*
 * /dev/txrdma: the probe ioctl reports the ABI and what the module
 * tracks, and every malformed request is refused without effect.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/txrdma.h>

#include "kselftest_harness.h"
#include "common.h"

FIXTURE(dev) {
	int fd;
};

FIXTURE_SETUP(dev)
{
	self->fd = open("/dev/txrdma", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd) TH_LOG("open /dev/txrdma: %s", strerror(errno));
}

FIXTURE_TEARDOWN(dev)
{
	close(self->fd);
}

TEST_F(dev, probe_reports_abi_and_devices)
{
	struct txrdma_probe p;

	memset(&p, 0, sizeof(p));
	ASSERT_EQ(0, ioctl(self->fd, TXRDMA_IOC_PROBE, &p));
	EXPECT_EQ(TXRDMA_ABI_VERSION, p.abi_version);
	EXPECT_EQ(TXRDMA_FEAT_ALL, p.features);
	EXPECT_NE(0, p.features & TXRDMA_FEAT_NL_DEV);
	/* the module tracks exactly the devices the RDMA core has */
	EXPECT_EQ(sysfs_rdma_count(), (int)p.ndevs);
	EXPECT_LT(0, (int)p.ndevs);
	EXPECT_EQ(0, p.flags);
	EXPECT_EQ(0, p.resv0);
	for (int i = 0; i < 4; i++)
		EXPECT_EQ(0, p.resv[i]);
}

TEST_F(dev, probe_rejects_flags_and_reserved)
{
	struct txrdma_probe p;

	for (int bit = 0; bit < 32; bit++) {
		memset(&p, 0, sizeof(p));
		p.flags = 1U << bit;
		EXPECT_EQ(-1, ioctl(self->fd, TXRDMA_IOC_PROBE, &p));
		EXPECT_EQ(EINVAL, errno);
		/* nothing was written back */
		EXPECT_EQ(0, p.abi_version);
	}
	memset(&p, 0, sizeof(p));
	p.resv0 = 1;
	EXPECT_EQ(-1, ioctl(self->fd, TXRDMA_IOC_PROBE, &p));
	EXPECT_EQ(EINVAL, errno);
	for (int i = 0; i < 4; i++) {
		memset(&p, 0, sizeof(p));
		p.resv[i] = 1;
		EXPECT_EQ(-1, ioctl(self->fd, TXRDMA_IOC_PROBE, &p));
		EXPECT_EQ(EINVAL, errno);
		EXPECT_EQ(0, p.features);
	}
}

TEST_F(dev, unknown_ioctl_is_enotty)
{
	struct txrdma_probe p;
	char small[8] = { 0 };

	memset(&p, 0, sizeof(p));
	/* unknown number, same magic */
	EXPECT_EQ(-1, ioctl(self->fd, _IOWR(TXRDMA_IOC_MAGIC, 0x7f,
					    struct txrdma_probe), &p));
	EXPECT_EQ(ENOTTY, errno);
	/* the probe number with a different size is a different command */
	EXPECT_EQ(-1, ioctl(self->fd, _IOWR(TXRDMA_IOC_MAGIC, 0x00,
					    char[8]), small));
	EXPECT_EQ(ENOTTY, errno);
	/* the probe number with a different direction */
	EXPECT_EQ(-1, ioctl(self->fd, _IOR(TXRDMA_IOC_MAGIC, 0x00,
					   struct txrdma_probe), &p));
	EXPECT_EQ(ENOTTY, errno);
	/* another magic */
	EXPECT_EQ(-1, ioctl(self->fd, _IO('T', 0x01), 0));
	EXPECT_EQ(ENOTTY, errno);
}

TEST_F(dev, probe_bad_pointer_is_efault)
{
	EXPECT_EQ(-1, ioctl(self->fd, TXRDMA_IOC_PROBE, NULL));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(self->fd, TXRDMA_IOC_PROBE, (void *)8));
	EXPECT_EQ(EFAULT, errno);
}

TEST(device_node_open_to_all)
{
	struct stat st;

	ASSERT_EQ(0, stat("/dev/txrdma", &st));
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ(0666, st.st_mode & 0777);
}

TEST_HARNESS_MAIN
