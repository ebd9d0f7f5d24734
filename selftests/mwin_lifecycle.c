// SPDX-License-Identifier: GPL-2.0
/*
 * Device removal and module unload with live peers and windows.
 */
#include <signal.h>
#include <sys/wait.h>

#include "mwin_test.h"

FIXTURE(dev)
{
	int fd;
	uint32_t region;
	char *mem;
	bool rxet0;	/* the device of its own, rxe only */
};

FIXTURE_SETUP(dev)
{
	self->fd = mwin_open();
	ASSERT_LE(0, self->fd);
	/* rxet0, on a veth: the tests that remove a device remove it */
	self->rxet0 = test_on_rxe();
	if (self->rxet0)
		ASSERT_EQ(0, test_sh(
			"ip link add mwt0 type veth peer name mwt1 && "
			"ip addr add 10.99.0.1/24 dev mwt0 && "
			"ip link set mwt0 up && ip link set mwt1 up && "
			"rdma link add rxet0 type rxe netdev mwt0"));
	ASSERT_EQ(0, mwin_region_create(self->fd, 1 << 20, 0, &self->region,
					NULL));
	self->mem = mwin_region_mmap(self->fd, self->region, NULL);
	ASSERT_NE(NULL, self->mem);
}

FIXTURE_TEARDOWN(dev)
{
	munmap(self->mem, 1 << 20);
	mwin_region_destroy(self->fd, self->region, MWIN_REGION_DESTROY_FORCE);
	if (self->rxet0)
		test_sh("rdma link delete rxet0 2>/dev/null; "
			"ip link delete mwt0 2>/dev/null");
	close(self->fd);
}

TEST_F(dev, delete_with_live_windows_then_add_back)
{
	struct mwin_window_bind b, other;
	uint32_t pid = 0, pid2 = 0;
	int rfd, status;
	char verdict = 0;
	struct mwpeer *q;
	pid_t child;

	TEST_RXE_ONLY("removes an rxe device of its own");
	child = test_spawn_peer("10.99.0.1", 'D', &rfd);
	ASSERT_LT(0, child);
	ASSERT_EQ(sizeof(pid), read(rfd, &pid, sizeof(pid)));
	ASSERT_NE(0, pid);
	q = test_connect();		/* on rxe0: must not notice */
	ASSERT_NE(NULL, q);
	b = test_bind(self->region, pid, 0, 4096,
		      MWIN_ACCESS_READ | MWIN_ACCESS_WRITE, 0);
	ASSERT_EQ(0, mwin_window_create(self->fd, &b));
	other = test_bind(self->region, mwpeer_id(q), 8192, 4096,
			  MWIN_ACCESS_READ, 0);
	ASSERT_EQ(0, mwin_window_create(self->fd, &other));

	ASSERT_EQ(0, test_sh("rdma link delete rxet0"));
	EXPECT_EQ(1, read(rfd, &verdict, 1));
	EXPECT_EQ('D', verdict);	/* the module disconnected it */
	waitpid(child, &status, 0);
	close(rfd);
	EXPECT_EQ(-ENOENT, mwin_peer_get(self->fd, pid, 0,
					 &(struct mwin_peer_info){}));
	EXPECT_EQ(MWIN_WINDOW_UNBOUND, test_window_state(self->fd, b.id));
	EXPECT_EQ(MWIN_WINDOW_BOUND, test_window_state(self->fd, other.id));
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_read(q, other.rkey, 8192, NULL, 1));
	mwpeer_close(q);

	/* Add it back: a new peer on it gets the same window. */
	ASSERT_EQ(0, test_sh("rdma link add rxet0 type rxe netdev mwt0"));
	child = test_spawn_peer("10.99.0.1", 'G', &rfd);
	ASSERT_LT(0, child);
	ASSERT_EQ(sizeof(pid2), read(rfd, &pid2, sizeof(pid2)));
	ASSERT_NE(0, pid2);
	ASSERT_EQ(0, test_rebind(self->fd, &b, pid2, 0, 4096,
				 MWIN_ACCESS_READ | MWIN_ACCESS_WRITE));
	EXPECT_EQ(1, read(rfd, &verdict, 1));
	EXPECT_EQ('K', verdict);
	waitpid(child, &status, 0);
	close(rfd);
	EXPECT_EQ('d', self->mem[0]);
}

/*
 * Leases end with their device's peers: no expiry comes after, and the
 * windows, one-shot ones too, are unbound as any window.
 */
TEST_F(dev, leases_end_with_their_device)
{
	struct mwin_window_bind b, once;
	struct mwin_window_info wi;
	struct mwin_stats before, after;
	uint32_t pid = 0;
	int64_t deadline, lease_ms;
	int rfd, status;
	char verdict = 0;
	pid_t child;

	TEST_RXE_ONLY("removes an rxe device of its own");
	child = test_spawn_peer("10.99.0.1", 'D', &rfd);
	ASSERT_LT(0, child);
	ASSERT_EQ(sizeof(pid), read(rfd, &pid, sizeof(pid)));
	ASSERT_NE(0, pid);
	/*
	 * Leases long enough for the device to go first: under the debug
	 * kernel its removal alone has taken more than 7 s.
	 */
	lease_ms = test_debug_kernel() ? 20000 : 5000;
	deadline = test_now_ms() + lease_ms;
	b = test_bind(self->region, pid, 0, 4096, MWIN_ACCESS_READ, 0);
	b.expires_ms = lease_ms;
	ASSERT_EQ(0, mwin_window_create(self->fd, &b));
	once = test_bind(self->region, pid, 8192, 4096, MWIN_ACCESS_READ,
			 MWIN_WINDOW_ONCE);
	once.expires_ms = lease_ms;
	ASSERT_EQ(0, mwin_window_create(self->fd, &once));
	ASSERT_EQ(0, mwin_stats(self->fd, MWIN_STATS_MODULE, 0, &before));

	ASSERT_EQ(0, test_sh("rdma link delete rxet0"));
	EXPECT_EQ(1, read(rfd, &verdict, 1));
	EXPECT_EQ('D', verdict);
	waitpid(child, &status, 0);
	close(rfd);
	/* the device went before the deadlines, or the test proves nothing */
	ASSERT_GT(deadline, test_now_ms());
	usleep((deadline - test_now_ms() + 500) * 1000);	/* past them */
	ASSERT_EQ(0, mwin_stats(self->fd, MWIN_STATS_MODULE, 0, &after));
	EXPECT_EQ(before.stats[MWIN_STAT_EXPIRIES],
		  after.stats[MWIN_STAT_EXPIRIES]);
	ASSERT_EQ(0, mwin_window_get(self->fd, b.id, 0, &wi));
	EXPECT_EQ(MWIN_WINDOW_UNBOUND, wi.state);
	EXPECT_EQ(0, wi.expires_ns);
	ASSERT_EQ(0, mwin_window_get(self->fd, once.id, 0, &wi));
	EXPECT_EQ(MWIN_WINDOW_UNBOUND, wi.state);
}

/* A peer process killed outright is cleaned up; its windows unbound. */
TEST_F(dev, vanished_peer_is_cleaned_up)
{
	struct mwin_window_bind b;
	uint32_t pid = 0;
	int rfd, status;
	pid_t child;

	child = test_spawn_peer(test_host(), 'D', &rfd);
	ASSERT_LT(0, child);
	ASSERT_EQ(sizeof(pid), read(rfd, &pid, sizeof(pid)));
	ASSERT_NE(0, pid);
	b = test_bind(self->region, pid, 0, 4096, MWIN_ACCESS_READ, 0);
	ASSERT_EQ(0, mwin_window_create(self->fd, &b));
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	close(rfd);
	EXPECT_EQ(0, test_wait_peer_gone(self->fd, pid));
	EXPECT_EQ(MWIN_WINDOW_UNBOUND, test_window_state(self->fd, b.id));
}

static int set_param(const char *name, unsigned long val, unsigned long *old)
{
	char path[128];
	FILE *f;
	int ret = 0;

	snprintf(path, sizeof(path), "/sys/module/mwin/parameters/%s", name);
	f = fopen(path, "r+");
	if (!f)
		return -errno;
	if (old && fscanf(f, "%lu", old) != 1)
		ret = -EINVAL;
	rewind(f);
	fprintf(f, "%lu\n", val);
	if (fclose(f))
		ret = -errno;
	return ret;
}

/*
 * A hello with the wrong magic or version is rejected with the module's
 * highest version and the reason.
 */
TEST(bad_hello_is_rejected)
{
	struct mwin_wire_hello bad = {
		.magic = MWIN_WIRE_MAGIC, .version = MWIN_WIRE_VERSION_PROOF + 1,
	};
	struct mwpeer_opts opts = {
		.timeout_ms = TEST_TIMEOUT_MS,
		.private_data = &bad, .private_data_len = sizeof(bad),
	};
	struct mwpeer_reject rej;
	struct mwpeer *p = mwpeer_create(&opts);

	ASSERT_NE(NULL, p);
	EXPECT_EQ(-ECONNREFUSED, mwpeer_open(p, test_host(), 0));
	mwpeer_reject(p, &rej);
	EXPECT_TRUE(rej.rejected);
	EXPECT_TRUE(rej.by_module);
	EXPECT_TRUE(rej.version_valid);
	EXPECT_EQ(MWIN_WIRE_VERSION_PROOF, rej.version);
	EXPECT_EQ(MWIN_REJECT_BAD_HELLO, rej.wire_reason);
	mwpeer_close(p);

	/* the right version, but reserved bytes that are not zero */
	bad.version = MWIN_WIRE_VERSION;
	bad.__reserved[2] = 1;
	p = mwpeer_create(&opts);
	ASSERT_NE(NULL, p);
	EXPECT_EQ(-ECONNREFUSED, mwpeer_open(p, test_host(), 0));
	mwpeer_reject(p, &rej);
	EXPECT_TRUE(rej.by_module);
	EXPECT_EQ(MWIN_REJECT_BAD_HELLO, rej.wire_reason);
	mwpeer_close(p);

	opts.private_data_len = 0;	/* no hello at all */
	p = mwpeer_create(&opts);
	ASSERT_NE(NULL, p);
	EXPECT_EQ(-ECONNREFUSED, mwpeer_open(p, test_host(), 0));
	mwpeer_close(p);
}

/* Past max_peers a peer is rejected; the others are untouched. */
TEST(peer_limit)
{
	struct mwin_info info;
	struct mwpeer *p, *q;
	unsigned long old;
	int fd = mwin_open(), err = 0;

	ASSERT_LE(0, fd);
	p = test_connect();
	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, mwin_info(fd, &info, NULL, 0));
	ASSERT_EQ(0, set_param("max_peers", info.nr_peers, &old));
	q = mwpeer_connect(test_host(), 0, NULL, TEST_TIMEOUT_MS, &err);
	EXPECT_EQ(NULL, q);
	EXPECT_EQ(-ECONNREFUSED, err);
	ASSERT_EQ(0, set_param("max_peers", old, NULL));
	EXPECT_EQ(mwpeer_id(p) ? 0 : -1,
		  mwin_peer_get(fd, mwpeer_id(p), 0, &(struct mwin_peer_info){}));
	q = test_connect();
	EXPECT_NE(NULL, q);
	mwpeer_close(q);
	mwpeer_close(p);
	close(fd);
}

/*
 * A peer whose host falls silent (no DREQ, no ACK ever again) is found by
 * the keepalive alone and torn down, its window unbound; with keepalive_ms
 * at 0 nothing notices. The peer's QP moved to the error state plays the
 * silent host: rxe drops the packets that reach it and answers nothing.
 * Not so on siw, which closes the QP's TCP stream: the module sees the
 * disconnect at once, so the test skips there.
 */
FIXTURE(keepalive)
{
	int fd;
	uint32_t region;
	unsigned long old_ms;
};

FIXTURE_SETUP(keepalive)
{
	self->fd = mwin_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, mwin_region_create(self->fd, 4096, 0, &self->region,
					NULL));
	ASSERT_EQ(0, set_param("keepalive_ms", 0, &self->old_ms));
}

FIXTURE_TEARDOWN(keepalive)
{
	set_param("keepalive_ms", self->old_ms, NULL);
	mwin_region_destroy(self->fd, self->region, MWIN_REGION_DESTROY_FORCE);
	close(self->fd);
}

TEST_F_TIMEOUT(keepalive, silent_peer_is_dropped, 90)
{
	struct ibv_qp_attr err = { .qp_state = IBV_QPS_ERR };
	struct mwin_peer_info pi;
	struct mwin_window_bind b;
	struct mwpeer *p;
	uint32_t pid;
	int i;

	TEST_RXE_ONLY("a QP in the error state is a silent host on rxe; "
		      "siw closes its stream");
	p = test_connect();
	ASSERT_NE(NULL, p);
	pid = mwpeer_id(p);
	b = test_bind(self->region, pid, 0, 4096, MWIN_ACCESS_READ, 0);
	ASSERT_EQ(0, mwin_window_create(self->fd, &b));
	ASSERT_EQ(0, ibv_modify_qp(mwpeer_ibv_qp(p), &err, IBV_QP_STATE));

	sleep(3);
	EXPECT_EQ(0, mwin_peer_get(self->fd, pid, 0, &pi));
	EXPECT_EQ(MWIN_WINDOW_BOUND, test_window_state(self->fd, b.id));

	/* The QP's retries (a few seconds on rxe) decide, then teardown. */
	ASSERT_EQ(0, set_param("keepalive_ms", 200, NULL));
	for (i = 0; i < 1200; i++) {
		if (mwin_peer_get(self->fd, pid, 0, &pi) == -ENOENT)
			break;
		usleep(50000);
	}
	EXPECT_EQ(-ENOENT, mwin_peer_get(self->fd, pid, 0, &pi));
	EXPECT_EQ(MWIN_WINDOW_UNBOUND, test_window_state(self->fd, b.id));
	TH_LOG("silent peer dropped %.1f s after the keepalive was on",
	       i * 0.05);
	mwpeer_close(p);
}

/* Unload with a connected peer, a region and a bound window, then reload. */
TEST(unload_with_live_windows)
{
	const char *ko = getenv("MWIN_KO");
	struct mwin_window_bind b;
	struct mwpeer *p;
	uint32_t region;
	int fd = mwin_open();

	ASSERT_NE(NULL, ko);
	ASSERT_LE(0, fd);
	p = test_connect();
	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, mwin_region_create(fd, 1 << 20, 0, &region, NULL));
	b = test_bind(region, mwpeer_id(p), 0, 1 << 20, test_all_access(fd, p),
		      0);
	ASSERT_EQ(0, mwin_window_create(fd, &b));
	/* An open file holds the module. */
	EXPECT_NE(0, test_sh("rmmod mwin 2>/dev/null"));
	close(fd);

	ASSERT_EQ(0, test_sh("rmmod mwin"));
	EXPECT_EQ(0, test_wait_disconnected(p));
	EXPECT_NE(IBV_WC_SUCCESS, mwpeer_read(p, b.rkey, 0, NULL, 1));
	mwpeer_close(p);

	ASSERT_EQ(0, test_load(ko, NULL));
	fd = mwin_open();
	ASSERT_LE(0, fd);
	EXPECT_EQ(-ENOENT, mwin_region_destroy(fd, region, 0));
	close(fd);
}

/*
 * Unload with leases pending and a one-shot window being destroyed: the
 * timer and the work are done with before the module's text goes (a timer
 * left armed would fire into freed memory once the deadlines pass).
 */
TEST(unload_with_leases)
{
	const char *ko = getenv("MWIN_KO");
	struct mwin_window_bind b;
	struct mwpeer *p;
	uint32_t region;
	int fd = mwin_open(), i;

	ASSERT_NE(NULL, ko);
	ASSERT_LE(0, fd);
	p = test_connect();
	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, mwin_region_create(fd, 1 << 20, 0, &region, NULL));
	for (i = 0; i < 8; i++) {
		b = test_bind(region, mwpeer_id(p), i * 4096, 4096,
			      MWIN_ACCESS_READ, i % 2 ? MWIN_WINDOW_ONCE : 0);
		b.expires_ms = 500 + i * 100;
		ASSERT_EQ(0, mwin_window_create(fd, &b));
	}
	/* the last one-shot window handed back: the module destroys it */
	ASSERT_EQ(IBV_WC_SUCCESS, mwpeer_send_inv(p, b.rkey));
	close(fd);
	ASSERT_EQ(0, test_sh("rmmod mwin"));
	EXPECT_EQ(0, test_wait_disconnected(p));
	mwpeer_close(p);
	usleep(1500000);	/* past every deadline */
	ASSERT_EQ(0, test_load(ko, NULL));
}

TEST_HARNESS_MAIN
