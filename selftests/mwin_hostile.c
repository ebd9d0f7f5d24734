// SPDX-License-Identifier: GPL-2.0
/*
 * Hostile peers: malformed and oversized messages, floods, peers that
 * connect and vanish in a loop or take no messages. The module stays up,
 * tears the offender down when it must, and other peers are unaffected.
 */
#include <sys/wait.h>

#include "mwin_test.h"

FIXTURE(hostile)
{
	int fd;
	uint32_t region;
	struct mwpeer *good;
	struct mwin_window_bind gw;
};

FIXTURE_SETUP(hostile)
{
	self->fd = mwin_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, mwin_region_create(self->fd, 1 << 20, 0, &self->region,
					NULL));
	self->good = test_connect();
	ASSERT_NE(NULL, self->good);
	self->gw = test_bind(self->region, mwpeer_id(self->good), 0, 4096,
			     MWIN_ACCESS_READ, 0);
	ASSERT_EQ(0, mwin_window_create(self->fd, &self->gw));
}

FIXTURE_TEARDOWN(hostile)
{
	mwin_region_destroy(self->fd, self->region, MWIN_REGION_DESTROY_FORCE);
	mwpeer_close(self->good);
	close(self->fd);
}

/* The well-behaved peer still reads through its window. */
static int good_still_works(FIXTURE_DATA(hostile) *self)
{
	return mwpeer_read(self->good, self->gw.rkey, 0, NULL, 8);
}

/* Garbage of every size up to a message: counted, ignored. */
TEST_F(hostile, malformed_messages)
{
	struct mwpeer *p = test_connect();
	struct mwin_peer_info pi;
	uint8_t junk[64];
	size_t len;

	ASSERT_NE(NULL, p);
	memset(junk, 0xa5, sizeof(junk));
	for (len = 0; len <= sizeof(junk); len += 8)
		EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_send(p, junk, len));
	ASSERT_EQ(0, mwin_peer_get(self->fd, mwpeer_id(p), 0, &pi));
	EXPECT_EQ(MWIN_PEER_CONNECTED, pi.state);
	EXPECT_EQ(9, pi.msgs_received);
	EXPECT_EQ(IBV_WC_SUCCESS, good_still_works(self));
	mwpeer_close(p);
}

/* A message longer than a receive buffer breaks only its sender. */
TEST_F(hostile, oversized_message)
{
	struct mwpeer *p = test_connect();
	uint32_t id;

	ASSERT_NE(NULL, p);
	id = mwpeer_id(p);
	mwpeer_send(p, NULL, 4096);
	EXPECT_EQ(0, test_wait_peer_gone(self->fd, id));
	EXPECT_EQ(IBV_WC_SUCCESS, good_still_works(self));
	mwpeer_close(p);
}

/* A flood of sends: the module keeps reposting its receives. */
TEST_F(hostile, flood)
{
	struct mwpeer *p = test_connect();
	struct mwin_peer_info pi;
	int i, ok = 0;

	ASSERT_NE(NULL, p);
	for (i = 0; i < 2000; i++)
		ok += mwpeer_send(p, "flood", 5) == IBV_WC_SUCCESS;
	EXPECT_EQ(2000, ok);
	ASSERT_EQ(0, mwin_peer_get(self->fd, mwpeer_id(p), 0, &pi));
	EXPECT_EQ(2000, pi.msgs_received);
	EXPECT_EQ(IBV_WC_SUCCESS, good_still_works(self));
	mwpeer_close(p);
}

/* Peers that connect and vanish (process killed) in a loop. */
TEST_F(hostile, connect_and_vanish_loop)
{
	struct mwin_info before, after;
	int i, status;
	pid_t pid;

	ASSERT_EQ(0, mwin_info(self->fd, &before, NULL, 0));
	for (i = 0; i < 10; i++) {
		pid = fork();
		if (pid == 0) {
			struct mwpeer *p = mwpeer_connect(test_host(), 0, NULL,
							  TEST_TIMEOUT_MS, NULL);

			_exit(p ? 0 : 1);	/* no close: the kernel cleans up */
		}
		ASSERT_LT(0, pid);
		waitpid(pid, &status, 0);
		EXPECT_EQ(0, WEXITSTATUS(status));
	}
	for (i = 0; i < 500; i++) {
		ASSERT_EQ(0, mwin_info(self->fd, &after, NULL, 0));
		if (after.nr_peers == before.nr_peers)
			break;
		usleep(20000);
	}
	EXPECT_EQ(before.nr_peers, after.nr_peers);
	EXPECT_EQ(IBV_WC_SUCCESS, good_still_works(self));
}

/* A peer that posts no receives cannot take its grants: it is dropped. */
TEST_F(hostile, takes_no_messages)
{
	struct mwpeer_opts opts = { .timeout_ms = TEST_TIMEOUT_MS,
				    .recv_depth = -1 };
	struct mwpeer *p = mwpeer_create(&opts);
	struct mwin_window_bind b;
	uint32_t id;
	int i;

	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, mwpeer_open(p, test_host(), 0));
	id = mwpeer_id(p);
	b = test_bind(self->region, id, 8192, 4096, MWIN_ACCESS_READ, 0);
	ASSERT_EQ(0, mwin_window_create(self->fd, &b));
	for (i = 0; i < 60 && test_wait_peer_gone(self->fd, id); i++)
		;
	EXPECT_EQ(-ENOENT, mwin_peer_get(self->fd, id, 0,
					 &(struct mwin_peer_info){}));
	EXPECT_EQ(MWIN_WINDOW_UNBOUND, test_window_state(self->fd, b.id));
	EXPECT_EQ(IBV_WC_SUCCESS, good_still_works(self));
	mwpeer_close(p);
}

TEST_HARNESS_MAIN
