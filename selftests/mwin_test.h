/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the mwin selftests: open /dev/mwin, connect peers,
 * make regions and windows, and probe rkeys with real RDMA traffic.
 */
#ifndef _MWIN_TEST_H
#define _MWIN_TEST_H

#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "libmwin.h"
#include "mwpeer.h"

/*
 * The harness kills a test after 30 s unless told otherwise. RDMA under
 * the debug kernel of make check-debug is about 30 times slower, and a
 * busy host slows both kernels: 120 s keeps a slow test from being called
 * hung. A hang is still caught, a little later; guest-run.sh bounds each
 * binary and vm-run the whole run.
 */
#undef TEST_TIMEOUT_DEFAULT
#define TEST_TIMEOUT_DEFAULT 120

#define TEST_TIMEOUT_MS 10000

/* CLOCK_MONOTONIC */
static inline uint64_t test_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static inline int64_t test_now_ms(void)
{
	return test_now_ns() / 1000000;
}

static inline double test_now_s(void)
{
	return test_now_ns() / 1e9;
}

/* The address the module listens on: the guest's eth0, set by the runner. */
static inline const char *test_host(void)
{
	const char *h = getenv("MWIN_TEST_HOST");

	return h ? h : "10.0.2.15";
}

/*
 * Connect a peer and wait until the module, too, sees it established, so
 * that its state no longer changes under a test.
 */
static inline struct mwpeer *test_connect_to(const char *host)
{
	struct mwpeer *p = mwpeer_connect(host, 0, NULL, TEST_TIMEOUT_MS, NULL);
	struct mwin_peer_info pi;
	int fd = mwin_open(), i;

	for (i = 0; p && fd >= 0 && i < TEST_TIMEOUT_MS; i++) {
		if (!mwin_peer_get(fd, mwpeer_id(p), 0, &pi) &&
		    pi.state == MWIN_PEER_CONNECTED)
			break;
		usleep(1000);
	}
	if (fd >= 0)
		close(fd);
	return p;
}

static inline struct mwpeer *test_connect(void)
{
	return test_connect_to(test_host());
}

/* Bind helper: fills a struct mwin_window_bind. */
static inline struct mwin_window_bind test_bind(uint32_t region, uint32_t peer,
						uint64_t offset, uint64_t length,
						uint32_t access, uint32_t flags)
{
	struct mwin_window_bind b = {
		.size = sizeof(b),
		.flags = flags,
		.region = region,
		.peer = peer,
		.access = access,
		.offset = offset,
		.length = length,
	};

	return b;
}

/* Rebind window @b->id; @b gets the result. */
static inline int test_rebind(int fd, struct mwin_window_bind *b,
			      uint32_t peer, uint64_t offset, uint64_t length,
			      uint32_t access)
{
	uint32_t id = b->id;

	*b = test_bind(0, peer, offset, length, access, 0);
	b->id = id;
	return mwin_window_rebind(fd, b);
}

/* Wait for the next message and check its kind and window. */
#define EXPECT_MSG(_peer, _type, _window, _rkey) do {			\
	struct mwpeer_msg _m;						\
	ASSERT_EQ(0, mwpeer_next_msg(_peer, &_m, TEST_TIMEOUT_MS));	\
	EXPECT_TRUE(_m.valid);						\
	EXPECT_EQ(_type, _m.type);					\
	EXPECT_EQ(_window, _m.window);					\
	EXPECT_EQ(_rkey, _m.rkey);					\
} while (0)

/* The state the module reports for a window. */
static inline uint32_t test_window_state(int fd, uint32_t id)
{
	struct mwin_window_info wi;

	if (mwin_window_get(fd, id, 0, &wi))
		return 0;
	return wi.state;
}

/* A module parameter's value, from sysfs; 0 when it cannot be read. */
static inline unsigned long test_param(const char *name)
{
	unsigned long val = 0;
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/mwin/parameters/%s", name);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%lu", &val) != 1)
		val = 0;
	fclose(f);
	return val;
}

/* Set a module parameter; 0 or -errno. */
static inline int test_set_param(const char *name, unsigned long val)
{
	char path[128];
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), "/sys/module/mwin/parameters/%s", name);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	ret = fprintf(f, "%lu\n", val) < 0 ? -EIO : 0;
	return fclose(f) ? -errno : ret;
}

/* Poll until the module has torn a peer down (its id is gone). */
static inline int test_wait_peer_gone(int fd, uint32_t id)
{
	struct mwin_peer_info pi;
	int i;

	for (i = 0; i < TEST_TIMEOUT_MS / 10; i++) {
		if (mwin_peer_get(fd, id, 0, &pi) == -ENOENT)
			return 0;
		usleep(10000);
	}
	return -ETIMEDOUT;
}

/* Run @cmd with the shell; its exit status, or -1. */
static inline int test_sh(const char *cmd)
{
	int ret = system(cmd);

	return WIFEXITED(ret) ? WEXITSTATUS(ret) : -1;
}

/* Drop root for user and group 65534, capabilities and all: 0 or -1. */
static inline int test_become_nobody(void)
{
	gid_t gid = 65534;

	return setgroups(1, &gid) || setgid(gid) || setuid(65534) ? -1 : 0;
}

/*
 * Load module @ko, unloading mwin first if it is loaded, with @params, or
 * with the runner's MWIN_MODULE_PARAMS when @params is NULL.
 */
static inline int test_load(const char *ko, const char *params)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd),
		 "rmmod mwin 2>/dev/null; insmod %s %s && udevadm settle", ko,
		 params ?: getenv("MWIN_MODULE_PARAMS") ?: "");
	return test_sh(cmd);
}

/* A WINDOW_CREATE in a thread of its own, for a test to race against. */
struct test_create {
	int fd;
	struct mwin_window_bind b;
	int ret;
};

static inline void *test_create_thread(void *arg)
{
	struct test_create *c = arg;

	c->ret = mwin_window_create(c->fd, &c->b);
	return NULL;
}

/* Wait until the module has closed @p's connection. */
static inline int test_wait_disconnected(struct mwpeer *p)
{
	int i;

	for (i = 0; i < TEST_TIMEOUT_MS / 50; i++) {
		if (mwpeer_state(p) == MWPEER_DISCONNECTED)
			return 0;
		mwpeer_poll(p, 50);
	}
	return -ETIMEDOUT;
}

/*
 * A peer in a child process, e.g. on a device a test removes: librdmacm keeps a device open for the
 * life of the process that used it, and rxe cannot take a device away from
 * a process that holds it. The child reports its peer id, then whether the
 * module disconnected it, and exits, letting go of the device.
 */
static inline char test_peer_use_grant(struct mwpeer *p)
{
	struct mwpeer_msg m;

	if (mwpeer_next_msg(p, &m, TEST_TIMEOUT_MS) || m.type != MWIN_WIRE_GRANT)
		return 'T';
	if (mwpeer_write(p, m.rkey, m.iova, "d", 1) ||
	    mwpeer_read(p, m.rkey, m.iova, NULL, 1) ||
	    ((char *)mwpeer_buf(p))[0] != 'd')
		return 'F';
	return 'K';
}

/*
 * @then: 'D' waits until the module disconnects the peer and answers 'D'
 * ('T' on timeout); 'G' waits for a grant, writes and reads through it and
 * answers 'K' ('F' when that fails).
 */
static inline pid_t test_spawn_peer(const char *host, char then, int *rfd)
{
	int pfd[2];
	pid_t pid;

	if (pipe(pfd))
		return -1;
	pid = fork();
	if (pid == 0) {
		struct mwpeer *p = test_connect_to(host);
		uint32_t id = p ? mwpeer_id(p) : 0;
		char verdict;

		close(pfd[0]);
		if (write(pfd[1], &id, sizeof(id)) != sizeof(id) || !p)
			_exit(1);
		if (then == 'D')
			verdict = test_wait_disconnected(p) ? 'T' : 'D';
		else
			verdict = test_peer_use_grant(p);
		if (write(pfd[1], &verdict, 1) != 1)
			_exit(1);
		_exit(0);
	}
	close(pfd[1]);
	*rfd = pfd[0];
	return pid;
}

#endif /* _MWIN_TEST_H */
