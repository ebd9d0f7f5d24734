// SPDX-License-Identifier: GPL-2.0
/*
 * Races that only a sleep in the module can line up. The module's test
 * build (MWIN_TEST=1, build/vm/mwin-test.ko, in MWIN_TEST_KO) sleeps for
 * test_delay_ms at test_delay_point (enum mwin_test_point, kmod/mwin.h),
 * and makes the faults of test_faults (a mask of points);
 * each test loads it, lets the other side of the race happen during the
 * sleep, and puts the module of MWIN_KO back. Without its fix, each race
 * is a use-after-free (KASAN reports it under make check-debug) or, for
 * the late hand-back, a peer disconnected as an attacker. The slow
 * teardown is a bound: callers must not wait for it as long as it lasts.
 * Two points are faults, not sleeps: the device holds a revoke's requests,
 * and the revoke must still end within its bound; or the peer's
 * registration QP is in error, and the revoke must still leave the rkey
 * dead when it returns.
 */
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>

#include "mwin_test.h"

/* enum mwin_test_point */
#define POINT_PEER_PUBLISH	1
#define POINT_BATCH_RELEASE	2
#define POINT_REMOTE_INV	3
#define POINT_MAP_DEV		4
#define POINT_TEARDOWN		5
#define POINT_STALL_REVOKE	6
#define POINT_POISON_REG	7
#define POINT_PEER_SETUP	8
#define POINT_PD_LEAVE		9
#define POINT_NO_PERMIT		10
#define POINT_POST_FAIL		11
#define POINT_POST_TORN		12
#define POINT_QP_STUCK		13
#define POINT_HOLD_DONE		14
#define POINT_HOLD_PERMIT	15
#define POINT_PERMITS_HELD	16
#define POINT_VICTIM_REGRANT	17

/* an unprivileged user, who shares the fixture's peers */
#define USER_A	60001

#define NWIN 8

static int set_delay(unsigned int point, unsigned int ms)
{
	return test_set_param("test_delay_ms", ms) ?:
	       test_set_param("test_delay_point", point);
}

/* Faults armed beside the sleep: a mask of (1 << point); 0 disarms. */
static int set_faults(unsigned int mask)
{
	return test_set_param("test_faults", mask);
}

FIXTURE(delays)
{
	bool loaded;
	int fd;
	uint32_t region;
};

FIXTURE_SETUP(delays)
{
	const char *ko = getenv("MWIN_TEST_KO");

	self->fd = -1;
	if (!ko || access(ko, R_OK))
		SKIP(return, "no test build of the module (MWIN_TEST_KO)");
	ASSERT_NE(NULL, getenv("MWIN_KO"));
	ASSERT_EQ(0, test_load(ko, NULL));
	self->loaded = true;
	self->fd = mwin_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, mwin_region_create(self->fd, NWIN * 8192, 0,
					&self->region, NULL));
}

FIXTURE_TEARDOWN(delays)
{
	if (self->fd >= 0) {
		mwin_region_destroy(self->fd, self->region,
				    MWIN_REGION_DESTROY_FORCE);
		close(self->fd);
	}
	if (self->loaded)
		EXPECT_EQ(0, test_load(getenv("MWIN_KO"), NULL));
}

/* A new peer still reads through a new window: the module carries on. */
static int module_carries_on(FIXTURE_DATA(delays) *self)
{
	struct mwpeer *p = test_connect();
	struct mwin_window_bind b;
	int st = -1;

	if (!p)
		return -1;
	b = test_bind(self->region, mwpeer_id(p), 0, 4096, MWIN_ACCESS_READ, 0);
	if (!mwin_window_create(self->fd, &b)) {
		st = mwpeer_read(p, b.rkey, b.iova, NULL, 8);
		mwin_window_destroy(self->fd, b.id);
	}
	mwpeer_close(p);
	return st;
}

/* A new peer with a window of 4 KiB, readable; NULL on failure. */
static struct mwpeer *peer_with_window(FIXTURE_DATA(delays) *self,
				       struct mwin_window_bind *b)
{
	struct mwpeer *p = test_connect();

	if (!p)
		return NULL;
	*b = test_bind(self->region, mwpeer_id(p), 0, 4096, MWIN_ACCESS_READ,
		       0);
	if (!mwin_window_create(self->fd, b))
		return p;
	mwpeer_close(p);
	return NULL;
}

/*
 * peer_with_window(), reading through it, and the module's QP number for
 * it in *@qpn; NULL on failure.
 */
static struct mwpeer *peer_reading(FIXTURE_DATA(delays) *self,
				   struct mwin_window_bind *b, uint32_t *qpn)
{
	struct mwpeer *p = peer_with_window(self, b);
	struct mwin_peer_info pi;

	if (p && !mwin_peer_get(self->fd, mwpeer_id(p), 0, &pi) &&
	    mwpeer_read(p, b->rkey, b->iova, NULL, 8) == IBV_WC_SUCCESS) {
		*qpn = pi.qpn;
		return p;
	}
	mwpeer_close(p);
	return NULL;
}

/*
 * Race 3 of the revocation issue: a peer faults right after the REP, while
 * the CONNECT_REQUEST handler has not published it yet. Its teardown must
 * wait for the handler, not free the peer the handler then publishes.
 */
TEST_F(delays, fault_before_the_peer_is_published)
{
	struct mwin_peer_info pi;
	struct mwpeer *p;
	uint32_t id, next;

	ASSERT_EQ(0, set_delay(POINT_PEER_PUBLISH, 500));
	p = test_connect();
	ASSERT_NE(NULL, p);
	id = mwpeer_id(p);
	/* longer than a receive: the module's QP fails, the peer goes down */
	mwpeer_send(p, NULL, 4096);
	EXPECT_EQ(0, test_wait_peer_gone(self->fd, id));
	ASSERT_EQ(0, set_delay(0, 0));
	mwpeer_close(p);
	/*
	 * Freed too early, the peer would have been published freed: look
	 * its id up, and walk all peers, once kfree_rcu() freed it (it
	 * batches for up to 5 s), for KASAN to see.
	 */
	sleep(6);
	EXPECT_EQ(-ENOENT, mwin_peer_get(self->fd, id, 0, &pi));
	for (next = 0; !mwin_peer_get(self->fd, next, MWIN_GET_NEXT, &pi);
	     next = pi.id)
		EXPECT_NE(id, pi.id);
	EXPECT_EQ(IBV_WC_SUCCESS, module_carries_on(self));
}

/*
 * Race 5: a peer hands its rkey back (Send-with-Invalidate) while the
 * operator destroys the window; the module handles the receive only after
 * the destroy revoked the same rkey. A late hand-back of the peer's own
 * rkey is no attack: the peer stays connected.
 */
TEST_F(delays, hand_back_crossing_a_destroy)
{
	struct mwpeer *p = test_connect();
	struct mwin_window_bind b;
	struct mwin_peer_info pi;
	struct mwpeer_msg m;
	uint32_t id;

	ASSERT_NE(NULL, p);
	id = mwpeer_id(p);
	b = test_bind(self->region, id, 0, 4096, MWIN_ACCESS_READ, 0);
	ASSERT_EQ(0, mwin_window_create(self->fd, &b));
	ASSERT_EQ(0, mwpeer_next_msg(p, &m, -1));	/* the grant */

	ASSERT_EQ(0, set_delay(POINT_REMOTE_INV, 500));
	/* rxe invalidates the rkey now; the module looks at it 500 ms later */
	ASSERT_EQ(IBV_WC_SUCCESS, mwpeer_send_inv(p, b.rkey));
	ASSERT_EQ(0, mwin_window_destroy(self->fd, b.id));
	usleep(1000 * 1000);
	ASSERT_EQ(0, set_delay(0, 0));

	ASSERT_EQ(0, mwin_peer_get(self->fd, id, 0, &pi));
	EXPECT_EQ(0, pi.rejected_invalidations);
	EXPECT_FALSE(mwpeer_qp_error(p));
	b = test_bind(self->region, id, 0, 4096, MWIN_ACCESS_READ, 0);
	ASSERT_EQ(0, mwin_window_create(self->fd, &b));
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_read(p, b.rkey, b.iova, NULL, 8));
	mwpeer_close(p);
}

/*
 * Race 2: a window create holds its peer and waits for mwin_devs_lock to
 * map the region on the peer's device, which is removed meanwhile. The
 * peer pins its device: the create finds it dying and fails with ENOTCONN,
 * leaving nothing behind.
 */
TEST_F(delays, device_removed_during_a_create)
{
	struct test_create r = { .fd = self->fd };
	struct mwin_info before, after;
	uint32_t id = 0;
	char verdict = 0;
	int rfd, status;
	long long t0;
	pthread_t t;
	pid_t child;

	TEST_RXE_ONLY("adds an rxe device on a veth");
	ASSERT_EQ(0, test_sh("ip link add mwd0 type veth peer name mwd1 && "
			     "ip addr add 10.98.0.1/24 dev mwd0 && "
			     "ip link set mwd0 up && ip link set mwd1 up && "
			     "rdma link add rxed0 type rxe netdev mwd0"));
	child = test_spawn_peer("10.98.0.1", 'D', &rfd);
	ASSERT_LT(0, child);
	ASSERT_EQ(sizeof(id), read(rfd, &id, sizeof(id)));
	ASSERT_NE(0, id);
	ASSERT_EQ(0, mwin_info(self->fd, &before, NULL, 0));

	/*
	 * The removal must reach the module within the sleep, under the
	 * debug kernel too, where rdma link delete alone takes 2.3 s.
	 */
	ASSERT_EQ(0, set_delay(POINT_MAP_DEV, 4000));
	r.b = test_bind(self->region, id, 0, 4096, MWIN_ACCESS_READ, 0);
	ASSERT_EQ(0, pthread_create(&t, NULL, test_create_thread, &r));
	usleep(300 * 1000);		/* the create sleeps, its peer held */
	t0 = test_now_ms();
	EXPECT_EQ(0, test_sh("rdma link delete rxed0"));
	TH_LOG("rdma link delete took %lld ms", test_now_ms() - t0);
	pthread_join(t, NULL);
	ASSERT_EQ(0, set_delay(0, 0));
	EXPECT_EQ(1, read(rfd, &verdict, 1));
	EXPECT_EQ('D', verdict);	/* the module disconnected it */
	waitpid(child, &status, 0);
	close(rfd);
	test_sh("ip link delete mwd0");

	EXPECT_EQ(-ENOTCONN, r.ret);
	ASSERT_EQ(0, mwin_info(self->fd, &after, NULL, 0));
	EXPECT_EQ(before.nr_windows, after.nr_windows);
	EXPECT_EQ(before.nr_peers - 1, after.nr_peers);
	EXPECT_EQ(IBV_WC_SUCCESS, module_carries_on(self));
}

struct batch_run {
	int fd;
	struct mwin_batch_op ops[NWIN];
	uint32_t failed;
	int ret;
};

static void *batch_thread(void *arg)
{
	struct batch_run *r = arg;
	struct mwin_window_batch cmd = {
		.size = sizeof(cmd), .count = NWIN,
		.op_size = sizeof(r->ops[0]), .ops = (uintptr_t)r->ops,
	};

	r->ret = mwin_ioctl(r->fd, MWIN_WINDOW_BATCH, &cmd);
	r->failed = cmd.failed;
	return NULL;
}

/*
 * Race 1: a batch finished its entries and holds both peers' messages
 * when one peer is torn down to its end. The batch's chain keeps that peer
 * until it released its messages.
 */
TEST_F(delays, peer_torn_down_during_a_batch)
{
	struct mwpeer *peer[2] = { test_connect(), test_connect() };
	struct mwin_window_bind w[NWIN];
	struct batch_run r = { .fd = self->fd };
	struct mwin_window_info wi;
	pthread_t t;
	int i, k, done = 0;

	ASSERT_NE(NULL, peer[0]);
	ASSERT_NE(NULL, peer[1]);
	for (i = 0; i < NWIN; i++) {
		w[i] = test_bind(self->region, mwpeer_id(peer[i % 2]),
				 i * 8192, 4096, MWIN_ACCESS_READ, 0);
		ASSERT_EQ(0, mwin_window_create(self->fd, &w[i]));
		r.ops[i] = (struct mwin_batch_op){
			.opcode = MWIN_BATCH_REBIND, .id = w[i].id,
			.offset = i * 8192, .length = 4096,
			.access = MWIN_ACCESS_READ,
		};
	}
	/* past kfree_rcu()'s batching (up to 5 s), for KASAN to see a peer freed */
	ASSERT_EQ(0, set_delay(POINT_BATCH_RELEASE, 8000));
	ASSERT_EQ(0, pthread_create(&t, NULL, batch_thread, &r));
	/* every entry finished (a second bind each): the batch sleeps */
	for (k = 0; k < 1000 && done < NWIN; k++) {
		usleep(10000);
		for (i = done = 0; i < NWIN; i++)
			done += !mwin_window_get(self->fd, w[i].id, 0, &wi) &&
				wi.binds == 2;
	}
	ASSERT_EQ(NWIN, done);
	/* synchronous: peer 0's teardown is over when it returns */
	EXPECT_EQ(0, mwin_peer_disconnect(self->fd, mwpeer_id(peer[0])));
	pthread_join(t, NULL);
	ASSERT_EQ(0, set_delay(0, 0));

	EXPECT_EQ(0, r.ret);
	EXPECT_EQ(0, r.failed);
	for (i = 0; i < NWIN; i++)
		EXPECT_EQ(i % 2 ? MWIN_WINDOW_BOUND : MWIN_WINDOW_UNBOUND,
			  test_window_state(self->fd, w[i].id));
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_read(peer[1], r.ops[1].rkey,
					      r.ops[1].iova, NULL, 8));
	mwpeer_close(peer[0]);
	mwpeer_close(peer[1]);
}

/*
 * A teardown that the device makes slow (here a sleep before the drain,
 * as a device that does not flush a QP in error would): a caller waits
 * for it op_timeout_ms at most, and then gets EAGAIN, changing nothing.
 * PEER_DISCONNECT has moved the peer's QPs to ERR all the same: the peer
 * reaches nothing after the call returned.
 */
TEST_F(delays, slow_teardown_bounds_its_callers)
{
	struct mwin_window_bind b;
	struct mwpeer *p = peer_with_window(self, &b);
	int64_t t0, dis_ms, rebind_ms;
	struct mwin_peer_info pi;
	uint32_t id;
	int r;

	ASSERT_NE(NULL, p);
	id = mwpeer_id(p);
	ASSERT_EQ(0, mwin_peer_get(self->fd, id, 0, &pi));
	ASSERT_EQ(0, test_set_param("op_timeout_ms", 1000));
	ASSERT_EQ(0, set_delay(POINT_TEARDOWN, 6000));

	t0 = test_now_ms();
	r = mwin_peer_disconnect(self->fd, id);
	dis_ms = test_now_ms() - t0;
	EXPECT_EQ(-EAGAIN, r);
	EXPECT_EQ(0, test_qp_dead(pi.qpn));
	EXPECT_NE(IBV_WC_SUCCESS, mwpeer_read(p, b.rkey, b.iova, NULL, 8));
	/* the rebind waits for the same teardown, and gives up the same way */
	t0 = test_now_ms();
	r = test_rebind(self->fd, &b, 0, 0, 4096, MWIN_ACCESS_WRITE);
	rebind_ms = test_now_ms() - t0;
	EXPECT_EQ(-EAGAIN, r);
	TH_LOG("PEER_DISCONNECT returned after %lld ms, the rebind after %lld ms",
	       (long long)dis_ms, (long long)rebind_ms);
	EXPECT_LE(1000, dis_ms);
	EXPECT_GT(4000, dis_ms);
	EXPECT_LE(1000, rebind_ms);
	EXPECT_GT(4000, rebind_ms);

	/* the teardown ends on its own, and unbinds the window then */
	EXPECT_EQ(0, test_wait_peer_gone(self->fd, id));
	EXPECT_EQ(MWIN_WINDOW_UNBOUND, test_window_state(self->fd, b.id));
	ASSERT_EQ(0, set_delay(0, 0));
	EXPECT_EQ(0, test_wait_disconnected(p));
	mwpeer_close(p);
	EXPECT_EQ(0, mwin_window_destroy(self->fd, b.id));
	EXPECT_EQ(IBV_WC_SUCCESS, module_carries_on(self));
}

/*
 * Peer @id, gone for its callers, is torn down with its drain slowed past
 * op_timeout_ms (1 s; the sleep is 8 s, room for a slow connect before
 * the wait below) and had a window, destroyed since, over the first 4 KiB
 * of the fixture's region: its MR waits for the drain, and with it its
 * range and the region's DMA map. Until then no window is cut over those
 * bytes and a forced region destroy fails with EBUSY, changing nothing;
 * once the peer is gone, a window over them reads. Ends the sleep.
 */
static void expect_range_kept_until_drain(struct __test_metadata *_metadata,
					  FIXTURE_DATA(delays) *self,
					  uint32_t id)
{
	struct mwin_window_bind again;
	struct mwin_region_info ri;
	struct mwpeer *q = test_connect();
	int64_t t0, ms;
	int r;

	ASSERT_NE(NULL, q);
	again = test_bind(self->region, mwpeer_id(q), 0, 4096,
			  MWIN_ACCESS_READ, 0);
	EXPECT_EQ(-EBUSY, mwin_window_create(self->fd, &again));
	ASSERT_EQ(0, mwin_region_get(self->fd, self->region, 0, &ri));
	EXPECT_EQ(1, ri.nr_windows);
	t0 = test_now_ms();
	r = mwin_region_destroy(self->fd, self->region,
				MWIN_REGION_DESTROY_FORCE);
	ms = test_now_ms() - t0;
	TH_LOG("forced destroy during the drain: %d after %lld ms", r,
	       (long long)ms);
	EXPECT_EQ(-EBUSY, r);
	EXPECT_LE(1000, ms);
	EXPECT_GT(4000, ms);
	EXPECT_EQ(0, mwin_region_get(self->fd, self->region, 0, &ri));

	/* drained: the MR, and the range with it, are given back */
	EXPECT_EQ(0, test_wait_peer_gone(self->fd, id));
	ASSERT_EQ(0, set_delay(0, 0));
	ASSERT_EQ(0, mwin_region_get(self->fd, self->region, 0, &ri));
	EXPECT_EQ(0, ri.nr_windows);
	ASSERT_EQ(0, mwin_window_create(self->fd, &again));
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_read(q, again.rkey, again.iova,
					      NULL, 8));
	EXPECT_EQ(0, mwin_window_destroy(self->fd, again.id));
	mwpeer_close(q);
}

/*
 * Memory outlives every MR that maps it: a window destroyed while its peer
 * is torn down keeps its MR until the drain (slowed by the test build), and
 * with it its range and its region's DMA map (see above); a forced destroy
 * while such a drain is short waits for it.
 */
TEST_F(delays, memory_outlives_a_draining_mr)
{
	struct mwin_window_bind b;
	struct mwpeer *p = peer_with_window(self, &b), *q;
	struct mwin_region_info ri;
	uint32_t id, region;

	ASSERT_NE(NULL, p);
	id = mwpeer_id(p);
	ASSERT_EQ(0, test_set_param("op_timeout_ms", 1000));
	ASSERT_EQ(0, set_delay(POINT_TEARDOWN, 8000));
	EXPECT_EQ(-EAGAIN, mwin_peer_disconnect(self->fd, id));
	/* gone for its callers; its MR waits for the drain */
	EXPECT_EQ(0, mwin_window_destroy(self->fd, b.id));
	EXPECT_EQ(-ENOENT, mwin_window_destroy(self->fd, b.id));
	expect_range_kept_until_drain(_metadata, self, id);
	mwpeer_close(p);

	/* a forced destroy waits for a drain that ends within its bound */
	q = test_connect();
	ASSERT_NE(NULL, q);
	ASSERT_EQ(0, mwin_region_create(self->fd, 8192, 0, &region, NULL));
	b = test_bind(region, mwpeer_id(q), 0, 4096, MWIN_ACCESS_READ, 0);
	ASSERT_EQ(0, mwin_window_create(self->fd, &b));
	ASSERT_EQ(0, test_set_param("op_timeout_ms", 5000));
	ASSERT_EQ(0, set_delay(POINT_TEARDOWN, 1500));
	id = mwpeer_id(q);
	mwpeer_close(q);
	ASSERT_EQ(0, test_wait_peer_state(self->fd, id, MWIN_PEER_CLOSING));
	EXPECT_EQ(0, mwin_region_destroy(self->fd, region,
					 MWIN_REGION_DESTROY_FORCE));
	EXPECT_EQ(0, test_peer_state(self->fd, id));
	EXPECT_EQ(-ENOENT, mwin_region_get(self->fd, region, 0, &ri));
	ASSERT_EQ(0, set_delay(0, 0));
	EXPECT_EQ(IBV_WC_SUCCESS, module_carries_on(self));
}

/*
 * A revoke the device does not complete: the test build moves the peer's
 * registration QP to SQD before it posts the LOCAL_INV, so the device takes
 * it and holds it. The invalidate cuts the peer off when revoke_timeout_ms
 * has passed: it returns ECONNABORTED, the rkey is dead (a READ through it
 * fails), the peer goes and the window is unbound.
 */
TEST_F(delays, stalled_revoke_cuts_the_peer_off)
{
	unsigned long bound = test_param("revoke_timeout_ms");
	struct mwin_window_bind b;
	struct mwpeer *p = peer_with_window(self, &b);
	int64_t t0, ms;
	uint32_t id;
	int r;

	ASSERT_NE(NULL, p);
	id = mwpeer_id(p);
	ASSERT_EQ(IBV_WC_SUCCESS, mwpeer_read(p, b.rkey, b.iova, NULL, 8));
	ASSERT_EQ(0, set_delay(POINT_STALL_REVOKE, 0));

	t0 = test_now_ms();
	r = mwin_window_invalidate(self->fd, b.id);
	ms = test_now_ms() - t0;
	ASSERT_EQ(0, set_delay(0, 0));
	TH_LOG("invalidate: %d after %lld ms (revoke_timeout_ms %lu)", r,
	       (long long)ms, bound);
	EXPECT_EQ(-ECONNABORTED, r);
	EXPECT_LE((int64_t)bound, ms);
	EXPECT_GT((int64_t)bound + 1000, ms);
	EXPECT_NE(IBV_WC_SUCCESS, mwpeer_read(p, b.rkey, b.iova, NULL, 8));
	EXPECT_EQ(0, test_wait_peer_gone(self->fd, id));
	EXPECT_EQ(MWIN_WINDOW_UNBOUND, test_window_state(self->fd, b.id));
	mwpeer_close(p);
	EXPECT_EQ(0, mwin_window_destroy(self->fd, b.id));
	EXPECT_EQ(IBV_WC_SUCCESS, module_carries_on(self));
}

/*
 * A revoking call on peer @p's window @b returned @r, with the module's QP
 * for @p in ERR right then (the caller checked): the call said @want, a
 * READ through the old rkey fails, and the peer went for @reason. Closes
 * @p.
 */
static void expect_cut_off(struct __test_metadata *_metadata,
			   FIXTURE_DATA(delays) *self, struct mwpeer *p,
			   const struct mwin_window_bind *b, int want, int r,
			   uint32_t reason)
{
	struct mwin_peer_info pi;
	uint32_t id = mwpeer_id(p);

	EXPECT_EQ(want, r);
	EXPECT_NE(IBV_WC_SUCCESS, mwpeer_read(p, b->rkey, b->iova, NULL, 8));
	EXPECT_EQ(0, test_wait_peer_gone(self->fd, id));
	EXPECT_EQ(0, mwin_peer_get(self->fd, id, MWIN_GET_GONE, &pi));
	EXPECT_EQ(reason, pi.down_reason);
	mwpeer_close(p);
}

/*
 * A request sent to a peer's registration QP from the network (its number
 * follows the connected one's on rxe; the PSN is the peer's own) is
 * refused, and rxe moves that QP to ERR without an event, while the
 * connected QP stays in RTS. The test build puts the registration QP there
 * before a revoke is posted. Each revoking call then finds its LOCAL_INV
 * flushed, and must not return before the peer is cut off: read right
 * after the call, the module's connected QP is in ERR (no race to win: it
 * is already so, or the call failed closed too late), a READ through the
 * old rkey fails, and the peer goes for reason reg-qp. The call says why:
 * ENOTCONN where it fails; destroys succeed, as they do when a revoke had
 * to cut the peer off. An honest peer beside it reads on.
 */
TEST_F(delays, poisoned_registration_qp_fails_closed)
{
	struct mwin_window_bind hb;
	struct mwpeer *honest = peer_with_window(self, &hb);
	enum test_revoke c;

	ASSERT_NE(NULL, honest);
	for (c = 0; c < TEST_NR_REVOKES; c++) {
		uint32_t region = self->region, id;
		struct mwin_window_bind b;
		struct mwin_peer_info pi;
		struct mwpeer *p;
		int r;

		if (c == TEST_REVOKE_REGION_DESTROY)
			ASSERT_EQ(0, mwin_region_create(self->fd, 1 << 20, 0,
							&region, NULL));
		p = test_connect();
		ASSERT_NE(NULL, p);
		id = mwpeer_id(p);
		b = test_bind(region, id, 8192, 4096, MWIN_ACCESS_READ, 0);
		ASSERT_EQ(0, mwin_window_create(self->fd, &b));
		ASSERT_EQ(IBV_WC_SUCCESS, mwpeer_read(p, b.rkey, b.iova, NULL, 8));
		ASSERT_EQ(0, mwin_peer_get(self->fd, id, 0, &pi));

		ASSERT_EQ(0, set_delay(POINT_POISON_REG, 0));
		r = test_revoke(self->fd, c, &b, region);
		/* right after the call: no race to win */
		EXPECT_EQ(0, test_qp_dead(pi.qpn))
			TH_LOG("%s returned %d with the peer's QP alive",
			       test_revoke_name(c), r);
		ASSERT_EQ(0, set_delay(0, 0));
		TH_LOG("%s with a poisoned registration QP: %d (%s)",
		       test_revoke_name(c), r, r ? strerror(-r) : "ok");
		/* the calls that fail say why; destroys succeed */
		expect_cut_off(_metadata, self, p, &b, test_revoke_poisoned(c),
			       r, MWIN_DOWN_REG_QP);
		if (test_revoke_poisoned(c))
			EXPECT_EQ(0, mwin_window_destroy(self->fd, b.id));
		/* the honest peer was not touched */
		EXPECT_EQ(IBV_WC_SUCCESS,
			  mwpeer_read(honest, hb.rkey, hb.iova, NULL, 8));
	}
	mwpeer_close(honest);
	EXPECT_EQ(0, mwin_window_destroy(self->fd, hb.id));
	EXPECT_EQ(IBV_WC_SUCCESS, module_carries_on(self));
}

/*
 * A revoke whose chain never reached the device: no slot on the
 * registration QP within the bound, or a post that failed whole. The call
 * cuts the peer off before it returns: ECONNABORTED, the peer's QP in ERR
 * right after, the rkey dead, the peer gone for reason cut-off, and the
 * window unbound then.
 */
TEST_F(delays, unposted_revoke_cuts_the_peer_off)
{
	static const unsigned int fault[] = { POINT_NO_PERMIT, POINT_POST_FAIL };
	unsigned int i;

	for (i = 0; i < 2; i++) {
		struct mwin_window_bind b;
		uint32_t qpn;
		struct mwpeer *p = peer_reading(self, &b, &qpn);
		int r;

		ASSERT_NE(NULL, p);
		ASSERT_EQ(0, set_faults(1u << fault[i]));
		r = mwin_window_invalidate(self->fd, b.id);
		EXPECT_EQ(0, test_qp_dead(qpn));
		ASSERT_EQ(0, set_faults(0));
		TH_LOG("invalidate, fault %u: %d", fault[i], r);
		expect_cut_off(_metadata, self, p, &b, -ECONNABORTED, r,
			       MWIN_DOWN_CUT_OFF);
		EXPECT_EQ(MWIN_WINDOW_UNBOUND, test_window_state(self->fd, b.id));
		EXPECT_EQ(0, mwin_window_destroy(self->fd, b.id));
	}
	EXPECT_EQ(IBV_WC_SUCCESS, module_carries_on(self));
}

/*
 * A revoking rebind whose chain the device took in part (its LOCAL_INV,
 * not its REG_MR). The peer is cut off before the call returns, but the
 * device may still hold what it took: ETIMEDOUT, the window BROKEN, and
 * its MR, range and DMA map kept until the peer's QPs are drained (slowed
 * here): no window is cut over those bytes, and a forced region destroy
 * fails with EBUSY, until then.
 */
TEST_F(delays, torn_revoke_breaks_the_window)
{
	struct mwin_window_bind b;
	uint32_t qpn, id;
	struct mwpeer *p = peer_reading(self, &b, &qpn);
	int r;

	ASSERT_NE(NULL, p);
	id = mwpeer_id(p);
	ASSERT_EQ(0, test_set_param("op_timeout_ms", 1000));
	ASSERT_EQ(0, set_delay(POINT_TEARDOWN, 8000));
	ASSERT_EQ(0, set_faults(1u << POINT_POST_TORN));
	r = test_rebind(self->fd, &b, 0, 0, 4096,
			MWIN_ACCESS_READ | MWIN_ACCESS_WRITE);
	EXPECT_EQ(0, test_qp_dead(qpn));
	ASSERT_EQ(0, set_faults(0));
	EXPECT_EQ(-ETIMEDOUT, r);
	EXPECT_EQ(MWIN_WINDOW_BROKEN, test_window_state(self->fd, b.id));
	EXPECT_NE(IBV_WC_SUCCESS, mwpeer_read(p, b.rkey, b.iova, NULL, 8));
	EXPECT_EQ(-EIO, mwin_window_invalidate(self->fd, b.id));
	EXPECT_EQ(0, mwin_window_destroy(self->fd, b.id));
	expect_range_kept_until_drain(_metadata, self, id);
	mwpeer_close(p);
}

/*
 * A device that will not move a peer's QPs to ERR. A revoke whose LOCAL_INV
 * completed flushed (a poisoned registration QP) cannot cut the peer off,
 * but the device is done with the chain: the MR is deregistered before the
 * call returns, so the rkey is dead while the QP is still up (the
 * teardown's drain is slowed; the peer library, told of the disconnect,
 * posts nothing more, so the rdma tool shows it): ENOTCONN, the window
 * unbound. Then PEER_DISCONNECT says EIO, and the peer goes all the same.
 */
TEST_F(delays, stuck_qp_still_fails_closed)
{
	struct mwin_window_bind b;
	uint32_t qpn, id;
	struct mwpeer *p = peer_reading(self, &b, &qpn);
	int r;

	ASSERT_NE(NULL, p);
	id = mwpeer_id(p);
	ASSERT_EQ(0, set_delay(POINT_TEARDOWN, 3000));
	ASSERT_EQ(0, set_faults(1u << POINT_POISON_REG | 1u << POINT_QP_STUCK));
	r = mwin_window_invalidate(self->fd, b.id);
	EXPECT_EQ(MWIN_WINDOW_UNBOUND, test_window_state(self->fd, b.id));
	/* the QP is up, the MR, and so the rkey, gone */
	EXPECT_EQ(1, test_qp_dead(qpn));
	EXPECT_EQ(0, test_mr_gone(b.rkey));
	ASSERT_EQ(0, set_faults(0));
	expect_cut_off(_metadata, self, p, &b, -ENOTCONN, r, MWIN_DOWN_REG_QP);
	EXPECT_EQ(0, mwin_window_destroy(self->fd, b.id));

	/* the teardown's drain, after a second, moves the QPs itself */
	ASSERT_EQ(0, set_delay(POINT_TEARDOWN, 1000));
	p = peer_with_window(self, &b);
	ASSERT_NE(NULL, p);
	id = mwpeer_id(p);
	ASSERT_EQ(0, set_faults(1u << POINT_QP_STUCK));
	EXPECT_EQ(-EIO, mwin_peer_disconnect(self->fd, id));
	ASSERT_EQ(0, set_faults(0));
	EXPECT_EQ(0, test_wait_peer_gone(self->fd, id));
	ASSERT_EQ(0, set_delay(0, 0));
	mwpeer_close(p);
	EXPECT_EQ(0, mwin_window_destroy(self->fd, b.id));
	EXPECT_EQ(IBV_WC_SUCCESS, module_carries_on(self));
}

/* A tenant for the tenant PD races, with its connection; tenant id or 0. */
static uint32_t race_tenant(FIXTURE_DATA(delays) *self, const char *name)
{
	return test_make_tenant(self->fd, name, NULL, MWIN_NO_OWNER);
}

/*
 * A peer of a tenant is on its tenant PD's list only while its QPs exist,
 * and a peer killed while it is set up is torn down by its setup's own
 * undo, or queued when the setup ends. A connection of tenant T sleeps in
 * its setup, its QPs made (POINT_PEER_SETUP), while TENANT_DESTROY cuts
 * every QP of T's PDs off: the connection is refused or torn down, and no
 * teardown runs on a peer its setup freed (KASAN, under make
 * check-debug). Then a connection of T sleeps in its teardown between
 * destroying its QPs and leaving the PD (POINT_PD_LEAVE) while T is
 * destroyed: the cut-off does not touch the destroyed QPs.
 */
TEST_F(delays, tenant_pd_cut_off_races_setup_and_teardown)
{
	struct mwin_info info;
	struct mwpeer *p;
	uint32_t t, id;
	int status, err, i;
	pid_t child;

	/* (1) destroyed while a connection of it is set up */
	t = race_tenant(self, "delay-setup");
	ASSERT_NE(0, t);
	ASSERT_EQ(0, set_delay(POINT_PEER_SETUP, 1500));
	child = fork();
	if (!child) {
		/* refused, or torn down: either is right */
		p = test_peer_of("delay-setup", NULL, NULL, &err);
		if (p)
			mwpeer_close(p);
		_exit(0);
	}
	ASSERT_LT(0, child);
	usleep(700 * 1000);	/* the connection sleeps in its setup */
	EXPECT_EQ(0, mwin_tenant_destroy(self->fd, t));
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_EQ(0, set_delay(0, 0));
	/* whatever became of it, nothing of it is left */
	for (i = 0; i < TEST_TIMEOUT_MS / 100; i++) {
		ASSERT_EQ(0, mwin_info(self->fd, &info, NULL, 0));
		if (!info.nr_peers)
			break;
		usleep(100 * 1000);
	}
	EXPECT_EQ(0, info.nr_peers);
	sleep(6);	/* kfree_rcu() of a freed peer, for KASAN */

	/* (2) destroyed while a connection of it leaves its PD */
	t = race_tenant(self, "delay-leave");
	ASSERT_NE(0, t);
	p = test_peer_of("delay-leave", NULL, NULL, &err);
	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, err);
	id = mwpeer_id(p);
	ASSERT_EQ(0, set_delay(POINT_PD_LEAVE, 3000));
	mwpeer_close(p);	/* the module tears the peer down */
	usleep(1000 * 1000);	/* its QPs are destroyed; it sleeps */
	EXPECT_EQ(0, mwin_tenant_destroy(self->fd, t));
	EXPECT_EQ(0, test_wait_peer_gone(self->fd, id));
	ASSERT_EQ(0, set_delay(0, 0));
	EXPECT_EQ(IBV_WC_SUCCESS, module_carries_on(self));
}

/*
 * For the children of user A below: a pipe; and the fixture's file, to
 * watch them from.
 */
static int a_out = -1, a_in = -1, a_fd = -1;

/* As user A: a window on peer @peer, over a region of A's own. */
static int a_create(int fd, uint32_t peer)
{
	struct mwin_window_bind b;
	uint32_t region;

	if (mwin_region_create(fd, 1 << 20, 0, &region, NULL))
		return 1;
	b = test_bind(region, peer, 0, 4096, MWIN_ACCESS_READ, 0);
	return mwin_window_create(fd, &b) ? 2 : 0;
}

/* As user A: a batch of NWIN creates on peer @peer. */
static int a_batch_create(int fd, uint32_t peer)
{
	struct mwin_batch_op ops[NWIN] = { 0 };
	struct mwin_window_batch cmd = {
		.size = sizeof(cmd), .count = NWIN,
		.op_size = sizeof(ops[0]), .ops = (uintptr_t)ops,
	};
	uint32_t region;
	int i;

	if (mwin_region_create(fd, 1 << 20, 0, &region, NULL))
		return 1;
	for (i = 0; i < NWIN; i++)
		ops[i] = (struct mwin_batch_op){
			.opcode = MWIN_BATCH_CREATE, .region = region,
			.peer = peer, .offset = i * 8192, .length = 4096,
			.access = MWIN_ACCESS_READ,
		};
	return mwin_ioctl(fd, MWIN_WINDOW_BATCH, &cmd) ? 2 : 0;
}

/*
 * As user A: a window on peer @peer, its bind written to a_out; then, once
 * a byte came on a_in, an invalidate of it.
 */
static int a_create_then_invalidate(int fd, uint32_t peer)
{
	struct mwin_window_bind b;
	uint32_t region;
	char go;

	if (mwin_region_create(fd, 1 << 20, 0, &region, NULL))
		return 1;
	b = test_bind(region, peer, 0, 4096, MWIN_ACCESS_READ, 0);
	if (mwin_window_create(fd, &b) ||
	    write(a_out, &b, sizeof(b)) != sizeof(b) ||
	    read(a_in, &go, 1) != 1)
		return 2;
	return mwin_window_invalidate(fd, b.id) ? 3 : 0;
}

/*
 * Run @fn as user A on peer @peer, SIGKILL it @ms after it started, or
 * after the module counted more than @windows windows when @windows is
 * not 0 (after it wrote a_out when @sync: then @sync is armed,
 * test_faults, and the child told to go), and reap it: it died of the
 * signal.
 */
static void kill_a_after(struct __test_metadata *_metadata,
			 int (*fn)(int fd, uint32_t id), uint32_t peer,
			 unsigned int ms, struct mwin_window_bind *sync,
			 unsigned int faults, uint32_t windows)
{
	int status, pi[2], po[2], i;
	struct mwin_info info;
	pid_t pid;

	ASSERT_EQ(0, pipe(pi));
	ASSERT_EQ(0, pipe(po));
	a_out = pi[1];
	a_in = po[0];
	pid = test_start_as_user(USER_A, fn, peer);
	ASSERT_LT(0, pid);
	if (sync) {
		ASSERT_EQ(sizeof(*sync), read(pi[0], sync, sizeof(*sync)));
		ASSERT_EQ(0, set_faults(faults));
		ASSERT_EQ(1, write(po[1], "g", 1));
	}
	/* a slow kernel takes a while to get the child's call that far */
	for (i = 0; windows && i < TEST_TIMEOUT_MS / 10; i++) {
		if (!mwin_info(a_fd, &info, NULL, 0) &&
		    info.nr_windows > windows)
			break;
		usleep(10 * 1000);
	}
	usleep(ms * 1000);
	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status));
	close(pi[0]);
	close(pi[1]);
	close(po[0]);
	close(po[1]);
}

/*
 * Until the windows of the module number @n, at most TEST_TIMEOUT_MS:
 * a killed caller's window goes once the device is done with its chain.
 */
static uint32_t windows_settle(int fd, uint32_t n)
{
	struct mwin_info info = { 0 };
	int i;

	for (i = 0; i < TEST_TIMEOUT_MS / 100; i++) {
		if (!mwin_info(fd, &info, NULL, 0) && info.nr_windows == n)
			break;
		usleep(100 * 1000);
	}
	return info.nr_windows;
}

/*
 * User B's window @b on peer @p (module QP @qpn) is untouched: the QP is
 * not in ERR, and the same rkey reads.
 */
static void expect_b_reads(struct __test_metadata *_metadata,
			   FIXTURE_DATA(delays) *self, struct mwpeer *p,
			   const struct mwin_window_bind *b, uint32_t qpn)
{
	EXPECT_EQ(1, test_qp_dead(qpn));
	EXPECT_EQ(MWIN_WINDOW_BOUND, test_window_state(self->fd, b->id));
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_read(p, b->rkey, b->iova, NULL, 8));
}

/* /dev/mwin opened to user A; Return: its mode before, to put back. */
static mode_t open_to_a(void)
{
	struct stat st;

	if (stat(MWIN_DEV_PATH, &st) || chmod(MWIN_DEV_PATH, 0666))
		return 0600;
	return st.st_mode & 07777;
}

/*
 * A local user affects only its own windows. User A's create, killed
 * while it waits for its REG_MR (the test build's device completes it,
 * and the module sees that, 1.5 s later), returns, and the device keeps
 * the chain: the peer B's window is on is not cut off (its QP not in ERR,
 * the same rkey reads), A's window is never made, and once the chain
 * completed its MR is gone, and nothing of the window is left.
 */
TEST_F(delays, killed_grant_leaves_a_shared_peer_alone)
{
	struct mwin_window_bind b;
	struct mwin_info info;
	uint32_t qpn;
	struct mwpeer *p = peer_reading(self, &b, &qpn);
	mode_t mode = open_to_a();
	int64_t t0 = test_now_ms();

	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, mwin_info(self->fd, &info, NULL, 0));
	ASSERT_EQ(0, set_delay(POINT_HOLD_DONE, 1500));
	/* its window is made: its REG_MR follows at once */
	a_fd = self->fd;
	kill_a_after(_metadata, a_create, mwpeer_id(p), 200, NULL, 0,
		     info.nr_windows);
	ASSERT_EQ(0, set_delay(0, 0));
	expect_b_reads(_metadata, self, p, &b, qpn);
	/* A's REG_MR completes, late: its MR, and the window, go then */
	EXPECT_EQ(info.nr_windows, windows_settle(self->fd, info.nr_windows));
	TH_LOG("A's window gone %lld ms after its create began",
	       (long long)(test_now_ms() - t0));
	expect_b_reads(_metadata, self, p, &b, qpn);
	chmod(MWIN_DEV_PATH, mode);
	mwpeer_close(p);
	EXPECT_EQ(0, mwin_window_destroy(self->fd, b.id));
}

/*
 * User A's batch of creates, and a create, killed while they wait for
 * slots on the registration QP (the test build hides every slot from
 * grants): nothing was posted, so the peer B's window is on stays, and
 * nothing of A's windows is left when the calls return.
 */
TEST_F(delays, killed_batch_before_its_post_leaves_a_shared_peer_alone)
{
	int (*fn[])(int fd, uint32_t id) = { a_batch_create, a_create };
	struct mwin_window_bind b;
	struct mwin_info info;
	uint32_t qpn;
	struct mwpeer *p = peer_reading(self, &b, &qpn);
	mode_t mode = open_to_a();
	unsigned int i;

	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, mwin_info(self->fd, &info, NULL, 0));
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, set_faults(1u << POINT_PERMITS_HELD));
		kill_a_after(_metadata, fn[i], mwpeer_id(p), 300, NULL, 0, 0);
		ASSERT_EQ(0, set_faults(0));
		expect_b_reads(_metadata, self, p, &b, qpn);
		EXPECT_EQ(info.nr_windows,
			  windows_settle(self->fd, info.nr_windows));
	}
	chmod(MWIN_DEV_PATH, mode);
	mwpeer_close(p);
	EXPECT_EQ(0, mwin_window_destroy(self->fd, b.id));
}

struct held_permit {
	int fd;
	struct mwin_window_bind b;
	int ret;
};

static void *rebind_thread(void *arg)
{
	struct held_permit *h = arg;

	h->ret = test_rebind(h->fd, &h->b, 0, h->b.offset, h->b.length,
			     MWIN_ACCESS_READ);
	return NULL;
}

/*
 * Another caller holds one slot of a peer's registration QP (the test
 * build sleeps 1.5 s in its rebind, the slot taken): a batch of 64
 * invalidations on that peer takes the 63 free slots, then the one its
 * first piece gives back, and completes at once; the peer is not cut off,
 * where waiting for 64 slots at once ran out revoke_timeout_ms and cut it
 * off.
 */
TEST_F(delays, batch_goes_in_pieces_beside_a_held_slot)
{
	struct mwin_batch_op ops[64] = { 0 };
	struct mwin_window_batch cmd = {
		.size = sizeof(cmd), .count = 64,
		.op_size = sizeof(ops[0]), .ops = (uintptr_t)ops,
	};
	struct held_permit h = { .fd = self->fd };
	struct mwin_window_bind b;
	int64_t t0, ms;
	uint32_t qpn;
	struct mwpeer *p = peer_reading(self, &b, &qpn);
	pthread_t t;
	int i, r;

	ASSERT_NE(NULL, p);
	/* unbound: its rebind only grants, and waits op_timeout_ms at most */
	h.b = test_bind(self->region, mwpeer_id(p), 8192, 4096,
			MWIN_ACCESS_READ, MWIN_WINDOW_OVERLAP);
	ASSERT_EQ(0, mwin_window_create(self->fd, &h.b));
	ASSERT_EQ(0, mwin_window_invalidate(self->fd, h.b.id));
	for (i = 0; i < 64; i++)
		ops[i] = (struct mwin_batch_op){
			.opcode = MWIN_BATCH_CREATE, .region = self->region,
			.peer = mwpeer_id(p), .offset = 16384, .length = 4096,
			.access = MWIN_ACCESS_READ,
			.flags = MWIN_WINDOW_OVERLAP,
		};
	ASSERT_EQ(0, mwin_ioctl(self->fd, MWIN_WINDOW_BATCH, &cmd));
	ASSERT_EQ(0, cmd.failed);
	for (i = 0; i < 64; i++)
		ops[i] = (struct mwin_batch_op){
			.opcode = MWIN_BATCH_INVALIDATE, .id = ops[i].id,
		};

	ASSERT_EQ(0, set_delay(POINT_HOLD_PERMIT, 1500));
	ASSERT_EQ(0, pthread_create(&t, NULL, rebind_thread, &h));
	usleep(300 * 1000);	/* it sleeps with its slot */
	t0 = test_now_ms();
	r = mwin_ioctl(self->fd, MWIN_WINDOW_BATCH, &cmd);
	ms = test_now_ms() - t0;
	pthread_join(t, NULL);
	ASSERT_EQ(0, set_delay(0, 0));
	TH_LOG("64 invalidations beside a held slot: %d, %u failed (first %d), %lld ms",
	       r, cmd.failed, ops[0].result, (long long)ms);
	EXPECT_EQ(0, r);
	EXPECT_EQ(0, cmd.failed);
	EXPECT_GT(1000, ms);
	EXPECT_EQ(0, h.ret);
	expect_b_reads(_metadata, self, p, &b, qpn);
	for (i = 0; i < 64; i++)
		EXPECT_EQ(MWIN_WINDOW_INVALIDATED,
			  test_window_state(self->fd, ops[i].id));
	mwpeer_close(p);
}

/*
 * The fail-closed rule stays: user A's invalidate that the device does
 * not complete (POINT_STALL_REVOKE), its caller killed while it waits, is
 * not cut short, and cuts A's peer off when revoke_timeout_ms has passed:
 * A's rkey is dead and the peer gone for reason cut-off. B's window on
 * another peer reads on.
 */
TEST_F(delays, killed_revoke_still_cuts_off)
{
	struct mwin_window_bind b, ab;
	struct mwin_peer_info pi;
	uint32_t qpn, aqpn, id;
	struct mwpeer *p = peer_reading(self, &b, &qpn);
	struct mwpeer *a = test_connect();
	mode_t mode = open_to_a();

	ASSERT_NE(NULL, p);
	ASSERT_NE(NULL, a);
	id = mwpeer_id(a);
	ASSERT_EQ(0, mwin_peer_get(self->fd, id, 0, &pi));
	aqpn = pi.qpn;
	kill_a_after(_metadata, a_create_then_invalidate, id, 100, &ab,
		     1u << POINT_STALL_REVOKE, 0);
	ASSERT_EQ(0, set_faults(0));
	EXPECT_EQ(0, test_qp_dead(aqpn));
	EXPECT_NE(IBV_WC_SUCCESS, mwpeer_read(a, ab.rkey, ab.iova, NULL, 8));
	EXPECT_EQ(0, test_wait_peer_gone(self->fd, id));
	EXPECT_EQ(0, mwin_peer_get(self->fd, id, MWIN_GET_GONE, &pi));
	EXPECT_EQ(MWIN_DOWN_CUT_OFF, pi.down_reason);
	expect_b_reads(_metadata, self, p, &b, qpn);
	chmod(MWIN_DEV_PATH, mode);
	mwpeer_close(a);
	mwpeer_close(p);
	EXPECT_EQ(0, mwin_window_destroy(self->fd, b.id));
}

/*
 * A stranger invalidates A's window, and its owner rebinds it before the
 * module grants it to A again: the owner's rebind is the last word, A is
 * granted its rkey and no other.
 */
TEST_F(delays, owner_rebinds_before_the_victim_is_granted_again)
{
	struct mwin_window_info wi;
	struct mwin_window_bind b;
	struct mwpeer *a, *stranger;
	struct mwpeer_msg m;
	uint32_t sid, first;

	a = peer_with_window(self, &b);
	ASSERT_NE(NULL, a);
	stranger = test_connect();
	ASSERT_NE(NULL, stranger);
	sid = mwpeer_id(stranger);
	ASSERT_EQ(0, mwpeer_next_msg(a, &m, -1));	/* the grant */
	first = b.rkey;

	ASSERT_EQ(0, set_delay(POINT_VICTIM_REGRANT, 1500));
	mwpeer_send_inv(stranger, b.rkey);
	EXPECT_EQ(0, test_wait_peer_gone(self->fd, sid));
	ASSERT_EQ(0, mwpeer_next_msg(a, &m, TEST_TIMEOUT_MS));
	EXPECT_EQ(MWIN_WIRE_REVOKE, m.type);
	EXPECT_EQ(MWIN_REVOKE_REMOTE, m.access);
	ASSERT_EQ(0, test_rebind(self->fd, &b, 0, 0, 4096, MWIN_ACCESS_READ));
	EXPECT_NE(first, b.rkey);
	usleep(2000 * 1000);	/* past the sleep */
	ASSERT_EQ(0, set_delay(0, 0));

	ASSERT_EQ(0, mwpeer_next_msg(a, &m, TEST_TIMEOUT_MS));
	EXPECT_EQ(MWIN_WIRE_GRANT, m.type);
	EXPECT_EQ(b.rkey, m.rkey);
	EXPECT_EQ(-ETIMEDOUT, mwpeer_next_msg(a, &m, 500));
	ASSERT_EQ(0, mwin_window_get(self->fd, b.id, 0, &wi));
	EXPECT_EQ(MWIN_WINDOW_BOUND, wi.state);
	EXPECT_EQ(b.rkey, wi.rkey);
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_read(a, b.rkey, b.iova, NULL, 8));
	mwpeer_close(stranger);
	mwpeer_close(a);
}

TEST_HARNESS_MAIN
