// SPDX-License-Identifier: GPL-2.0
/*
 * The module itself: /dev/mwin, INFO, RDMA devices coming and going, its
 * parameters.
 */
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>

#include "mwin_test.h"

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

	ASSERT_EQ(1, info_has_dev(fd, test_dev_name(), &dev));
	EXPECT_TRUE(dev.caps & MWIN_DEV_CAP_FAST_REG);
	EXPECT_LT(0, dev.max_pages);
	EXPECT_LT(0, dev.max_window_bytes);
	close(fd);
}

/* What the module reports of rxe0: its fast-registration MRs, its atomics. */
TEST(info_rxe)
{
	struct mwin_dev_info dev;
	int fd;

	TEST_RXE_ONLY("rxe's figures");
	fd = mwin_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(1, info_has_dev(fd, test_dev_name(), &dev));
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
	int fd;

	TEST_RXE_ONLY("adds an rxe device");
	fd = mwin_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, test_sh("ip link add mwm0 type veth peer name mwm1 && "
			"ip link set mwm0 up && ip link set mwm1 up"));
	ASSERT_EQ(0, test_sh("rdma link add rxem0 type rxe netdev mwm0"));
	EXPECT_EQ(1, info_has_dev(fd, "rxem0", NULL));
	ASSERT_EQ(0, test_sh("rdma link delete rxem0"));
	EXPECT_EQ(0, info_has_dev(fd, "rxem0", NULL));
	EXPECT_EQ(1, info_has_dev(fd, test_dev_name(), NULL));
	test_sh("ip link delete mwm0");
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

struct info_call {
	int fd;
	void *devs;
	int ret;
	struct mwin_info info;
};

static void *info_thread(void *arg)
{
	struct info_call *c = arg;

	memset(&c->info, 0, sizeof(c->info));
	c->info.size = sizeof(c->info);
	c->info.devs = (uintptr_t)c->devs;
	c->info.nr_devs = 4;
	c->info.dev_info_size = sizeof(struct mwin_dev_info);
	c->ret = mwin_ioctl(c->fd, MWIN_INFO, &c->info);
	return NULL;
}

/*
 * An INFO whose devs buffer faults slowly (here: a userfaultfd page nobody
 * fills yet) holds no lock while it waits: a peer can connect meanwhile.
 */
TEST(info_slow_buffer)
{
	long pagesz = sysconf(_SC_PAGESIZE);
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { 0 };
	struct uffdio_copy copy = { 0 };
	struct mwin_dev_info *devs;
	struct info_call c = { 0 };
	struct uffd_msg msg;
	struct pollfd pfd;
	struct mwpeer *p;
	char *mem, *src;
	pthread_t t;
	int uffd;

	uffd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (uffd < 0)
		SKIP(return, "no userfaultfd: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_API, &api));
	mem = mmap(NULL, pagesz, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, mem);
	src = calloc(1, pagesz);
	ASSERT_NE(NULL, src);
	reg.range.start = (uintptr_t)mem;
	reg.range.len = pagesz;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_REGISTER, &reg));

	c.fd = mwin_open();
	ASSERT_LE(0, c.fd);
	c.devs = mem;
	ASSERT_EQ(0, pthread_create(&t, NULL, info_thread, &c));
	pfd.fd = uffd;
	pfd.events = POLLIN;
	ASSERT_EQ(1, poll(&pfd, 1, TEST_TIMEOUT_MS));
	ASSERT_EQ(sizeof(msg), read(uffd, &msg, sizeof(msg)));
	EXPECT_EQ(UFFD_EVENT_PAGEFAULT, msg.event);

	/* the INFO waits in its copy to user space; a peer connects */
	p = test_connect();
	EXPECT_NE(NULL, p);

	copy.dst = (uintptr_t)mem;
	copy.src = (uintptr_t)src;
	copy.len = pagesz;
	EXPECT_EQ(0, ioctl(uffd, UFFDIO_COPY, &copy));
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ(0, c.ret);
	EXPECT_LE(1, c.info.nr_devs);
	devs = (struct mwin_dev_info *)mem;
	EXPECT_NE(0, devs[0].name[0]);
	EXPECT_TRUE(devs[0].caps & MWIN_DEV_CAP_FAST_REG);

	mwpeer_close(p);
	close(c.fd);
	munmap(mem, pagesz);
	free(src);
	close(uffd);
}

#define PARAM_DIR "/sys/module/mwin/parameters/"

/* Write @val to parameter @name: 0 or -errno. */
static int param_write(const char *name, const char *val)
{
	char path[128];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), PARAM_DIR "%s", name);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	if (n < 0)
		n = -errno;
	close(fd);
	return n < 0 ? (int)n : 0;
}

/* The value of parameter @name, or -1. */
static long long param_read(const char *name)
{
	char path[128];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), PARAM_DIR "%s", name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* The bounded parameters, their ranges and values that must be refused. */
static const struct bounded_param {
	const char *name;
	long long def;
	const char *good[4];
	const char *bad[8];
} bounded_params[] = {
	{ "op_timeout_ms", 10000, { "100", "60000", "0x3e8" },
	  { "0", "99", "60001", "4294967295", "4294967296", "-1", "abc" } },
	{ "keepalive_ms", 5000, { "0", "100", "3600000" },
	  { "1", "99", "3600001", "4294967296", "-1", "10ms" } },
	{ "revoke_timeout_ms", 250, { "10", "5000" },
	  { "0", "9", "5001", "4294967296", "-1", "x" } },
	{ "auth_timeout_ms", 5000, { "100", "60000" },
	  { "0", "99", "60001", "4294967296", "-1", "5s" } },
};

/*
 * op_timeout_ms, keepalive_ms, revoke_timeout_ms and auth_timeout_ms: an
 * out-of-range write
 * fails with EINVAL and leaves the value as it was; a value in range sticks.
 */
TEST(param_bounds)
{
	const struct bounded_param *bp;
	char buf[32], path[128];
	long long old, v;
	struct stat st;
	size_t i, j;

	for (i = 0; i < sizeof(bounded_params) / sizeof(bounded_params[0]); i++) {
		bp = &bounded_params[i];
		snprintf(path, sizeof(path), PARAM_DIR "%s", bp->name);
		ASSERT_EQ(0, stat(path, &st)) TH_LOG("%s", bp->name);
		EXPECT_EQ(0644, st.st_mode & 0777);
		old = param_read(bp->name);
		/* the default, unless the runner loaded another value */
		if (!strstr(getenv("MWIN_MODULE_PARAMS") ?: "", bp->name))
			ASSERT_EQ(bp->def, old) TH_LOG("%s", bp->name);
		for (j = 0; j < 8 && bp->bad[j]; j++) {
			EXPECT_EQ(-EINVAL, param_write(bp->name, bp->bad[j]))
				TH_LOG("%s=\"%s\"", bp->name, bp->bad[j]);
			EXPECT_EQ(old, param_read(bp->name))
				TH_LOG("%s=\"%s\"", bp->name, bp->bad[j]);
		}
		for (j = 0; j < 4 && bp->good[j]; j++) {
			EXPECT_EQ(0, param_write(bp->name, bp->good[j]))
				TH_LOG("%s=\"%s\"", bp->name, bp->good[j]);
			EXPECT_EQ(strtoll(bp->good[j], NULL, 0),
				  param_read(bp->name))
				TH_LOG("%s=\"%s\"", bp->name, bp->good[j]);
			/* refused after a good value: that one stays */
			EXPECT_EQ(-EINVAL, param_write(bp->name, bp->bad[0]));
			EXPECT_EQ(strtoll(bp->good[j], NULL, 0),
				  param_read(bp->name));
		}
		snprintf(buf, sizeof(buf), "%lld\n", old);
		EXPECT_EQ(0, param_write(bp->name, buf));
		v = param_read(bp->name);
		EXPECT_EQ(old, v);
	}
}

/* The same bounds at load: insmod with a value out of range fails. */
TEST(param_bounds_at_load)
{
	static const char *const bad[] = {
		"op_timeout_ms=0", "op_timeout_ms=60001", "keepalive_ms=50",
		"keepalive_ms=3600001", "revoke_timeout_ms=0",
		"revoke_timeout_ms=5001", "auth_timeout_ms=99",
		"auth_timeout_ms=60001",
	};
	const char *ko = getenv("MWIN_KO");
	struct stat st;
	char cmd[512];
	size_t i;

	if (!ko)
		SKIP(return, "MWIN_KO is not set");
	ASSERT_EQ(0, test_sh("rmmod mwin"));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(cmd, sizeof(cmd), "insmod %s %s 2>/dev/null", ko,
			 bad[i]);
		EXPECT_NE(0, test_sh(cmd)) TH_LOG("%s", bad[i]);
		EXPECT_NE(0, stat("/sys/module/mwin", &st)) {
			TH_LOG("%s: loaded", bad[i]);
			test_sh("rmmod mwin");
		}
	}
	ASSERT_EQ(0, test_load(ko, "op_timeout_ms=100 keepalive_ms=0 revoke_timeout_ms=5000 auth_timeout_ms=60000"));
	EXPECT_EQ(100, param_read("op_timeout_ms"));
	EXPECT_EQ(0, param_read("keepalive_ms"));
	EXPECT_EQ(5000, param_read("revoke_timeout_ms"));
	EXPECT_EQ(60000, param_read("auth_timeout_ms"));
	ASSERT_EQ(0, test_load(ko, ""));
	EXPECT_EQ(10000, param_read("op_timeout_ms"));
	EXPECT_EQ(5000, param_read("keepalive_ms"));
	EXPECT_EQ(250, param_read("revoke_timeout_ms"));
	EXPECT_EQ(5000, param_read("auth_timeout_ms"));
	/* leave the module as the runner loaded it, for the next binaries */
	if (getenv("MWIN_MODULE_PARAMS"))
		ASSERT_EQ(0, test_load(ko, NULL));
}

/* A connection to the guest's address, anonymous: 0 or the error. */
static int try_connect(int *reason)
{
	struct mwpeer_opts o = { .timeout_ms = TEST_TIMEOUT_MS };
	struct mwpeer *p = mwpeer_create(&o);
	int err;

	if (!p)
		return -errno;
	err = mwpeer_open(p, test_host(), 0);
	*reason = mwpeer_reject_reason(p);
	mwpeer_close(p);
	return err;
}

/* listen and devices: the addresses and devices peers may come through. */
TEST(listen_and_devices)
{
	const char *ko = getenv("MWIN_KO");
	char params[256];
	int reason;

	if (!ko)
		SKIP(return, "MWIN_KO is not set");
	/* a word that is no address: the module does not load */
	EXPECT_NE(0, test_load(ko, "anonymous=1 listen=nonsense"));
	/* the guest's address: peers come */
	snprintf(params, sizeof(params), "anonymous=1 listen=%s", test_host());
	ASSERT_EQ(0, test_load(ko, params));
	EXPECT_EQ(0, try_connect(&reason));
	/*
	 * another address of the same device only (a loopback address would
	 * not do: RDMA CM takes a listener on one for any address of its
	 * device): nobody listens on the guest's
	 */
	ASSERT_EQ(0, test_sh("ip addr add 10.0.2.99/24 dev eth0"));
	ASSERT_EQ(0, test_load(ko, "anonymous=1 listen=10.0.2.99"));
	EXPECT_EQ(-ECONNREFUSED, try_connect(&reason));
	EXPECT_EQ(0, reason);
	ASSERT_EQ(0, test_load(ko, "anonymous=1"));
	EXPECT_EQ(0, test_sh("ip addr del 10.0.2.99/24 dev eth0"));
	/* another device only: refused, and the REJ says why */
	ASSERT_EQ(0, test_load(ko, "anonymous=1 devices=mlx5_0"));
	EXPECT_EQ(-ECONNREFUSED, try_connect(&reason));
	EXPECT_EQ(MWIN_REJECT_DEVICE, reason);
	snprintf(params, sizeof(params), "anonymous=1 devices=mlx5_0,%s",
		 test_dev_name());
	ASSERT_EQ(0, test_load(ko, params));
	EXPECT_EQ(0, try_connect(&reason));
	/* leave the module as the runner loaded it, for the next binaries */
	ASSERT_EQ(0, test_load(ko, NULL));
}

TEST_HARNESS_MAIN
