// SPDX-License-Identifier: GPL-2.0
/*
 * The module itself: /dev/mwin, INFO, RDMA devices coming and going.
 */
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "mwin_test.h"

static int sh(const char *cmd)
{
	int ret = system(cmd);

	return WIFEXITED(ret) ? WEXITSTATUS(ret) : -1;
}

/* Is an RDMA device named @name in the module's INFO? */
static int info_has_dev(int fd, const char *name, struct mwin_dev_info *out)
{
	struct mwin_dev_info devs[16];
	struct mwin_info info;
	uint32_t i;

	if (mwin_info(fd, &info, devs, 16))
		return -1;
	for (i = 0; i < info.nr_devs && i < 16; i++) {
		if (!strcmp(devs[i].name, name)) {
			if (out)
				*out = devs[i];
			return 1;
		}
	}
	return 0;
}

TEST(dev_node)
{
	struct stat st;

	ASSERT_EQ(0, stat("/sys/module/mwin", &st));
	ASSERT_EQ(0, stat(MWIN_DEV_PATH, &st));
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ(0600, st.st_mode & 0777);
}

TEST(info)
{
	struct mwin_dev_info dev;
	struct mwin_info info;
	int fd = mwin_open();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, mwin_info(fd, &info, NULL, 0));
	EXPECT_EQ(MWIN_ABI_VERSION, info.abi_version);
	EXPECT_EQ(MWIN_DEFAULT_PORT, info.port);
	EXPECT_LE(1, info.nr_devs);
	EXPECT_LT(0, info.max_windows);
	EXPECT_LT(0, info.max_peers);
	EXPECT_LT(0, info.max_region_bytes);

	ASSERT_EQ(1, info_has_dev(fd, "rxe0", &dev));
	EXPECT_TRUE(dev.caps & MWIN_DEV_CAP_FAST_REG);
	EXPECT_TRUE(dev.caps & MWIN_DEV_CAP_ATOMIC);
	/* rxe advertises 512 pages per fast-registration MR, of any size */
	EXPECT_EQ(512, dev.max_pages);
	EXPECT_TRUE(dev.page_size_cap & (2 << 20));
	/* 512 pages of 2 MiB: a region's chunks */
	EXPECT_EQ(1ULL << 30, dev.max_window_bytes);
	close(fd);
}

/* A device added and removed while the module is loaded is seen. */
TEST(device_add_remove)
{
	int fd = mwin_open();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, sh("ip link add mwm0 type veth peer name mwm1 && "
			"ip link set mwm0 up && ip link set mwm1 up"));
	ASSERT_EQ(0, sh("rdma link add rxem0 type rxe netdev mwm0"));
	EXPECT_EQ(1, info_has_dev(fd, "rxem0", NULL));
	ASSERT_EQ(0, sh("rdma link delete rxem0"));
	EXPECT_EQ(0, info_has_dev(fd, "rxem0", NULL));
	EXPECT_EQ(1, info_has_dev(fd, "rxe0", NULL));
	sh("ip link delete mwm0");
	close(fd);
}

TEST(unknown_ioctl)
{
	int fd = mwin_open();
	struct mwin_destroy d = { .size = sizeof(d) };

	ASSERT_LE(0, fd);
	EXPECT_EQ(-ENOTTY, mwin_ioctl(fd, _IOWR(MWIN_IOCTL_MAGIC, 0x1f,
						struct mwin_destroy), &d));
	EXPECT_EQ(-ENOTTY, mwin_ioctl(fd, _IOWR('x', MWIN_CMD_INFO,
						struct mwin_info), &d));
	close(fd);
}

TEST_HARNESS_MAIN
