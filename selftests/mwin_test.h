/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the mwin selftests: open /dev/mwin, connect peers,
 * make regions and windows, and probe rkeys with real RDMA traffic.
 */
#ifndef _MWIN_TEST_H
#define _MWIN_TEST_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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

#endif /* _MWIN_TEST_H */
