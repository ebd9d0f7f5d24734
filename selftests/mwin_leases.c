// SPDX-License-Identifier: GPL-2.0
/*
 * Leases and one-shot windows, checked from the peer's side: a lease ends
 * the rkey at its deadline (not before, and soon after), a renew keeps it,
 * the expiry and a renew racing it end in one state, and a one-shot window
 * is destroyed when handed back or expired. The deadline is CLOCK_MONOTONIC
 * (struct mwin_window_info.expires_ns), which the peer, on the same host,
 * reads too. Each test runs over a module region and over a user region
 * (the fixture's variants): a lease ends a grant of either kind's memory
 * alike. Unload and device removal with leases: mwin_lifecycle.c.
 */
#include "mwin_test.h"

#define REGION_LEN	(1UL << 20)
/*
 * How late an rkey may die past its lease's deadline in this VM: the
 * timer's slack and the work item's latency, under TCG, and one
 * LOCAL_INV. What the module bounds is the LOCAL_INV's wait
 * (revoke_timeout_ms); the rest is the scheduler's, so this is generous.
 */
#define LATE_BOUND_NS	(500 * 1000 * 1000ULL)

FIXTURE(lease)
{
	int fd;
	struct test_region region;
	struct mwpeer *p;
};

FIXTURE_VARIANT(lease)
{
	uint32_t kind;		/* the region's */
};

FIXTURE_VARIANT_ADD(lease, module)
{
	.kind = MWIN_REGION_KIND_MODULE,
};

/* a buffer of this process */
FIXTURE_VARIANT_ADD(lease, user)
{
	.kind = MWIN_REGION_KIND_USER,
};

FIXTURE_SETUP(lease)
{
	self->fd = mwin_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, test_region_create(self->fd, variant->kind, REGION_LEN,
					&self->region));
	self->p = test_connect();
	ASSERT_NE(NULL, self->p);
}

FIXTURE_TEARDOWN(lease)
{
	mwpeer_close(self->p);
	EXPECT_EQ(0, test_region_destroy(self->fd, &self->region));
	close(self->fd);
}

/* Grant [@off, @off + 4096) to the fixture's peer with a lease of @ms. */
static int grant(FIXTURE_DATA(lease) *self, struct mwin_window_bind *b,
		 uint64_t off, uint32_t ms, uint32_t flags)
{
	*b = test_bind(self->region.id, mwpeer_id(self->p), off, 4096,
		       MWIN_ACCESS_READ, flags);
	b->expires_ms = ms;
	return mwin_window_create(self->fd, b);
}

static uint64_t expires_ns(int fd, uint32_t id)
{
	struct mwin_window_info wi;

	return mwin_window_get(fd, id, 0, &wi) ? ~0ULL : wi.expires_ns;
}

static uint64_t expiries(int fd)
{
	struct mwin_stats st;

	return mwin_stats(fd, MWIN_STATS_MODULE, 0, &st) ? ~0ULL :
	       st.stats[MWIN_STAT_EXPIRIES];
}

/* Wait for the module to hold @n windows: a one-shot window's MR gone. */
static int wait_nr_windows(int fd, uint32_t n)
{
	int i;

	for (i = 0; i < TEST_TIMEOUT_MS / 10; i++) {
		if (test_nr_windows(fd) == n)
			return 0;
		usleep(10000);
	}
	return -ETIMEDOUT;
}

/*
 * The grant says the lease, the revoke comes after the deadline with
 * reason expired, and the monitor sees both.
 */
TEST_F(lease, grant_and_revoke_say_so)
{
	struct mwin_event ev[4];
	struct mwin_window_bind b;
	struct mwpeer_msg m;
	uint64_t deadline, before = expiries(self->fd);
	int mon = mwin_open();
	ssize_t n;

	ASSERT_LE(0, mon);
	ASSERT_EQ(0, mwin_ioctl(mon, MWIN_MONITOR,
				&(struct mwin_monitor){
					.size = sizeof(struct mwin_monitor) }));
	ASSERT_EQ(0, grant(self, &b, 0, 300, 0));
	deadline = expires_ns(self->fd, b.id);
	EXPECT_LT(test_now_ns(), deadline);
	EXPECT_GE(test_now_ns() + 300000000ULL, deadline);

	ASSERT_EQ(0, test_next_about(self->p, MWIN_WIRE_GRANT, b.id, &m));
	EXPECT_TRUE(m.valid);
	EXPECT_LT(0, m.lease_ms);
	EXPECT_GE(300, m.lease_ms);
	EXPECT_EQ(0, m.flags);

	ASSERT_EQ(0, test_next_about(self->p, MWIN_WIRE_REVOKE, b.id, &m));
	EXPECT_LE(deadline, test_now_ns());
	EXPECT_TRUE(m.valid);
	EXPECT_EQ(MWIN_REVOKE_EXPIRED, m.access);
	EXPECT_EQ(b.rkey, m.rkey);
	EXPECT_EQ(MWIN_WINDOW_INVALIDATED, test_window_state(self->fd, b.id));
	EXPECT_EQ(0, expires_ns(self->fd, b.id));
	EXPECT_EQ(before + 1, expiries(self->fd));

	n = read(mon, ev, sizeof(ev));
	ASSERT_EQ(2 * sizeof(ev[0]), n);
	EXPECT_EQ(MWIN_EVENT_GRANT, ev[0].type);
	EXPECT_LT(0, ev[0].reason);	/* the lease, in ms */
	EXPECT_GE(300, ev[0].reason);
	EXPECT_EQ(MWIN_EVENT_REVOKE, ev[1].type);
	EXPECT_EQ(MWIN_REVOKE_EXPIRED, ev[1].reason);
	EXPECT_LE(deadline, ev[1].time_ns);
	EXPECT_GT(deadline + LATE_BOUND_NS, ev[1].time_ns);
	close(mon);
}

/*
 * A peer spinning RDMA READs through a leased window: none fails before
 * the deadline, none succeeds that started past the deadline and the
 * bound, and the rkey does die. The failed READ breaks the connection.
 */
TEST_F(lease, reads_stop_at_the_deadline)
{
	uint64_t deadline, start, last_ok = 0;
	struct mwin_window_bind b;
	int st;

	ASSERT_EQ(0, grant(self, &b, 0, 400, MWIN_WINDOW_QUIET));
	deadline = expires_ns(self->fd, b.id);
	do {
		start = test_now_ns();
		st = mwpeer_read(self->p, b.rkey, b.iova, NULL, 8);
		if (st == IBV_WC_SUCCESS)
			last_ok = start;
	} while (st == IBV_WC_SUCCESS &&
		 start < deadline + 10 * LATE_BOUND_NS);
	EXPECT_NE(IBV_WC_SUCCESS, st);
	EXPECT_LE(deadline, test_now_ns());	/* it failed after the deadline */
	EXPECT_LT(last_ok, deadline + LATE_BOUND_NS);
	TH_LOG("last READ that worked started %.3f ms after the deadline",
	       ((double)last_ok - (double)deadline) / 1e6);
	/* expired, then unbound with the connection the READ broke */
	EXPECT_EQ(0, test_wait_window(self->fd, b.id, MWIN_WINDOW_UNBOUND,
				      &(struct mwin_window_info){}));
	EXPECT_EQ(0, expires_ns(self->fd, b.id));
	ASSERT_EQ(0, mwpeer_reconnect(self->p));
}

/* A renew before the deadline keeps the rkey working, and tells the peer. */
TEST_F(lease, renew_keeps_it)
{
	struct mwin_window_bind b;
	struct mwpeer_msg m;
	uint64_t old, renewed;

	ASSERT_EQ(0, grant(self, &b, 0, 300, 0));
	ASSERT_EQ(0, test_next_about(self->p, MWIN_WIRE_GRANT, b.id, &m));
	old = expires_ns(self->fd, b.id);
	usleep(100000);
	ASSERT_EQ(0, mwin_window_renew(self->fd, b.id, 3000, &renewed));
	EXPECT_LT(old + 2000000000ULL, renewed);
	EXPECT_EQ(renewed, expires_ns(self->fd, b.id));

	/* the renewal: a grant of the same rkey with the new lease */
	ASSERT_EQ(0, test_next_about(self->p, MWIN_WIRE_GRANT, b.id, &m));
	EXPECT_TRUE(m.valid);
	EXPECT_EQ(b.rkey, m.rkey);
	EXPECT_LT(2500, m.lease_ms);
	EXPECT_GE(3000, m.lease_ms);

	usleep(500000);		/* well past the old deadline */
	EXPECT_EQ(MWIN_WINDOW_BOUND, test_window_state(self->fd, b.id));
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_read(self->p, b.rkey, b.iova, NULL, 8));
	EXPECT_FALSE(test_told_about(self->p, MWIN_WIRE_REVOKE, b.id));

	/* a renew may bring the deadline closer too */
	ASSERT_EQ(0, mwin_window_renew(self->fd, b.id, 50, NULL));
	ASSERT_EQ(0, test_next_about(self->p, MWIN_WIRE_REVOKE, b.id, &m));
	EXPECT_EQ(MWIN_REVOKE_EXPIRED, m.access);
}

/* Renew of what has no live grant fails, clearly, and changes nothing. */
TEST_F(lease, renew_errors)
{
	struct mwin_window_renew r = { .size = sizeof(r), .expires_ms = 100 };
	struct mwin_window_info before, after;
	struct mwin_window_bind b;

	ASSERT_EQ(0, grant(self, &b, 0, 50, 0));
	ASSERT_EQ(0, test_wait_window(self->fd, b.id, MWIN_WINDOW_INVALIDATED,
				      &before));
	EXPECT_EQ(-ETIME, mwin_window_renew(self->fd, b.id, 1000, NULL));
	ASSERT_EQ(0, mwin_window_get(self->fd, b.id, 0, &after));
	EXPECT_EQ(0, memcmp(&before, &after, sizeof(before)));

	/* rebound, the window works again, without a lease this time */
	ASSERT_EQ(0, test_rebind(self->fd, &b, 0, 0, 4096, MWIN_ACCESS_READ));
	EXPECT_EQ(0, expires_ns(self->fd, b.id));
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_read(self->p, b.rkey, b.iova, NULL, 8));
	/* a renew gives a bound window without a lease one */
	ASSERT_EQ(0, mwin_window_renew(self->fd, b.id, 60000, NULL));
	EXPECT_NE(0, expires_ns(self->fd, b.id));
	/* a rebind without a lease ends it */
	ASSERT_EQ(0, test_rebind(self->fd, &b, 0, 0, 4096, MWIN_ACCESS_READ));
	EXPECT_EQ(0, expires_ns(self->fd, b.id));

	ASSERT_EQ(0, mwin_window_invalidate(self->fd, b.id));
	EXPECT_EQ(-ESTALE, mwin_window_renew(self->fd, b.id, 1000, NULL));
	EXPECT_EQ(-ENOENT, mwin_window_renew(self->fd, NO_ID, 1000, NULL));
	EXPECT_EQ(-ENOENT, mwin_window_renew(self->fd, 0, 1000, NULL));
	EXPECT_EQ(-EINVAL, mwin_window_renew(self->fd, b.id, 0, NULL));
	r.id = b.id;
	r.flags = 1;
	EXPECT_EQ(-EINVAL, mwin_ioctl(self->fd, MWIN_WINDOW_RENEW, &r));
	r.flags = 0;
	r.expires_ns = 1;	/* an output */
	EXPECT_EQ(-EINVAL, mwin_ioctl(self->fd, MWIN_WINDOW_RENEW, &r));
	EXPECT_EQ(MWIN_WINDOW_INVALIDATED, test_window_state(self->fd, b.id));
	EXPECT_EQ(0, expires_ns(self->fd, b.id));
}

/*
 * A renew racing the expiry: either the renew came first, and the rkey
 * lives on past the old deadline, or it failed with ETIME and the rkey is
 * dead; never a renewed rkey that dies of its old lease.
 */
TEST_F(lease, renew_racing_the_expiry)
{
	struct mwin_window_bind b;
	int i, ret, renewed = 0, late = 0;

	for (i = 0; i < 40; i++) {
		ASSERT_EQ(0, grant(self, &b, 0, 20, MWIN_WINDOW_QUIET));
		usleep(19000 + (i % 8) * 250);
		ret = mwin_window_renew(self->fd, b.id, 2000, NULL);
		if (ret == 0) {
			renewed++;
			usleep(100000);
			EXPECT_EQ(MWIN_WINDOW_BOUND,
				  test_window_state(self->fd, b.id));
			EXPECT_EQ(IBV_WC_SUCCESS,
				  mwpeer_read(self->p, b.rkey, b.iova, NULL, 8));
		} else {
			late++;
			EXPECT_EQ(-ETIME, ret);
			EXPECT_EQ(MWIN_WINDOW_INVALIDATED,
				  test_window_state(self->fd, b.id));
			EXPECT_EQ(0, expires_ns(self->fd, b.id));
		}
		ASSERT_EQ(0, mwin_window_destroy(self->fd, b.id));
	}
	TH_LOG("%d renews came first, %d after the expiry", renewed, late);
}

/*
 * 512 leases ending together, from two batches: more than one batch of the
 * expiry's. Each ends once, all of them end.
 */
TEST_F(lease, many_end_together)
{
	uint64_t before = expiries(self->fd);
	static struct mwin_batch_op ops[2][256];
	struct mwin_window_batch wb = {
		.size = sizeof(wb), .count = 256, .op_size = sizeof(ops[0][0]),
	};
	int i, j;

	for (i = 0; i < 2; i++) {
		for (j = 0; j < 256; j++)
			ops[i][j] = (struct mwin_batch_op){
				.opcode = MWIN_BATCH_CREATE,
				.flags = MWIN_WINDOW_QUIET | MWIN_WINDOW_OVERLAP,
				.region = self->region.id,
				.peer = mwpeer_id(self->p),
				.access = MWIN_ACCESS_READ, .length = 4096,
				.expires_ms = 1000,
			};
		wb.ops = (uintptr_t)ops[i];
		ASSERT_EQ(0, mwin_ioctl(self->fd, MWIN_WINDOW_BATCH, &wb));
		ASSERT_EQ(0, wb.failed);
	}
	ASSERT_EQ(0, test_wait_window(self->fd, ops[1][255].id,
				      MWIN_WINDOW_INVALIDATED,
				      &(struct mwin_window_info){}));
	for (i = 0; i < 2; i++)
		for (j = 0; j < 256; j++)
			EXPECT_EQ(MWIN_WINDOW_INVALIDATED,
				  test_window_state(self->fd, ops[i][j].id));
	EXPECT_EQ(before + 512, expiries(self->fd));
}

/* Batch entries take leases; the first version of an entry has none. */
TEST_F(lease, batch_entries)
{
	struct mwin_batch_op ops[2] = {
		{ .opcode = MWIN_BATCH_CREATE, .region = self->region.id,
		  .peer = mwpeer_id(self->p), .access = MWIN_ACCESS_READ,
		  .length = 4096, .expires_ms = 60000 },
		{ .opcode = MWIN_BATCH_CREATE, .region = self->region.id,
		  .peer = mwpeer_id(self->p), .access = MWIN_ACCESS_READ,
		  .offset = 8192, .length = 4096, .expires_ms = 60000 },
	};
	struct mwin_window_batch wb = {
		.size = sizeof(wb), .count = 1, .op_size = sizeof(ops[0]),
		.ops = (uintptr_t)ops,
	};

	ASSERT_EQ(0, mwin_ioctl(self->fd, MWIN_WINDOW_BATCH, &wb));
	ASSERT_EQ(0, ops[0].result);
	EXPECT_NE(0, expires_ns(self->fd, ops[0].id));

	/* entries of the first version: the lease is past their end */
	wb.op_size = MWIN_BATCH_OP_SIZE_VER0;
	wb.ops = (uintptr_t)&ops[1];
	ASSERT_EQ(0, mwin_ioctl(self->fd, MWIN_WINDOW_BATCH, &wb));
	ASSERT_EQ(0, ops[1].result);
	EXPECT_EQ(0, expires_ns(self->fd, ops[1].id));

	/* a lease on an invalidate is a bad entry, and changes nothing */
	ops[0] = (struct mwin_batch_op){ .opcode = MWIN_BATCH_INVALIDATE,
					 .id = ops[0].id, .expires_ms = 10 };
	wb.op_size = sizeof(ops[0]);
	wb.ops = (uintptr_t)ops;
	ASSERT_EQ(0, mwin_ioctl(self->fd, MWIN_WINDOW_BATCH, &wb));
	EXPECT_EQ(-EINVAL, ops[0].result);
	EXPECT_EQ(MWIN_WINDOW_BOUND, test_window_state(self->fd, ops[0].id));
}

/* A lease on an old caller's struct, and bad bind fields. */
TEST_F(lease, bind_sizes_and_errors)
{
	struct mwin_window_bind b;

	/* 56 bytes: the first version, without a lease */
	uint32_t n = test_nr_windows(self->fd);

	b = test_bind(self->region.id, mwpeer_id(self->p), 0, 4096,
		      MWIN_ACCESS_READ, 0);
	b.size = MWIN_WINDOW_BIND_SIZE_VER0;
	b.expires_ms = 10;
	ASSERT_EQ(0, mwin_ioctl(self->fd, MWIN_WINDOW_CREATE, &b));
	EXPECT_EQ(0, expires_ns(self->fd, b.id));

	b = test_bind(self->region.id, mwpeer_id(self->p), 0, 4096,
		      MWIN_ACCESS_READ, 0);
	b.__reserved = 1;
	EXPECT_EQ(-EINVAL, mwin_window_create(self->fd, &b));
	b.__reserved = 0;
	b.region = 0;
	b.id = 1;
	b.flags = MWIN_WINDOW_ONCE;	/* create only */
	EXPECT_EQ(-EINVAL, mwin_window_rebind(self->fd, &b));
	EXPECT_EQ(n + 1, test_nr_windows(self->fd));
}

/* A lease ends with its peer: nothing expires after. */
TEST_F(lease, ends_with_its_peer)
{
	uint64_t before = expiries(self->fd);
	struct mwin_window_bind b;

	ASSERT_EQ(0, grant(self, &b, 0, 300, MWIN_WINDOW_ONCE));
	test_close_peer(self->fd, self->p);
	EXPECT_EQ(MWIN_WINDOW_UNBOUND, test_window_state(self->fd, b.id));
	EXPECT_EQ(0, expires_ns(self->fd, b.id));
	usleep(500000);
	EXPECT_EQ(before, expiries(self->fd));
	/* a one-shot window that lost its peer is kept, as any window */
	EXPECT_EQ(MWIN_WINDOW_UNBOUND, test_window_state(self->fd, b.id));
	self->p = test_connect();
	ASSERT_NE(NULL, self->p);
}

/* One-shot: the hand-back destroys the window, and frees its range. */
TEST_F(lease, once_handed_back)
{
	struct mwin_window_bind b, again;
	struct mwpeer_msg m;
	uint32_t n = test_nr_windows(self->fd);

	ASSERT_EQ(0, grant(self, &b, 4096, 0, MWIN_WINDOW_ONCE));
	ASSERT_EQ(0, test_next_about(self->p, MWIN_WIRE_GRANT, b.id, &m));
	EXPECT_EQ(MWIN_WIRE_GRANT_ONCE, m.flags);
	EXPECT_EQ(0, m.lease_ms);
	ASSERT_EQ(IBV_WC_SUCCESS, mwpeer_send_inv(self->p, b.rkey));
	ASSERT_EQ(0, test_wait_window_gone(self->fd, b.id));
	EXPECT_EQ(-ENOENT, test_rebind(self->fd, &b, 0, 4096, 4096,
				       MWIN_ACCESS_READ));
	/* its MR given back, its range is free, without MWIN_WINDOW_OVERLAP */
	ASSERT_EQ(0, wait_nr_windows(self->fd, n));
	ASSERT_EQ(0, grant(self, &again, 4096, 0, 0));
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_read(self->p, again.rkey, again.iova,
					      NULL, 8));
	EXPECT_EQ(MWIN_PEER_CONNECTED,
		  test_peer_state(self->fd, mwpeer_id(self->p)));
}

/* One-shot: the expiry destroys it too; the peer is told it expired. */
TEST_F(lease, once_expired)
{
	struct mwin_window_bind b, again;
	struct mwpeer_msg m;
	uint32_t n = test_nr_windows(self->fd);

	ASSERT_EQ(0, grant(self, &b, 4096, 100, MWIN_WINDOW_ONCE));
	ASSERT_EQ(0, test_next_about(self->p, MWIN_WIRE_GRANT, b.id, &m));
	EXPECT_EQ(MWIN_WIRE_GRANT_ONCE, m.flags);
	ASSERT_EQ(0, test_next_about(self->p, MWIN_WIRE_REVOKE, b.id, &m));
	EXPECT_EQ(MWIN_REVOKE_EXPIRED, m.access);
	ASSERT_EQ(0, test_wait_window_gone(self->fd, b.id));
	EXPECT_EQ(-ENOENT, mwin_window_renew(self->fd, b.id, 10, NULL));
	ASSERT_EQ(0, wait_nr_windows(self->fd, n));
	ASSERT_EQ(0, grant(self, &again, 4096, 0, 0));
}

/*
 * A lease as short as 1 ms starts when the create is finalized, once the
 * caller has the id: the id returned names a window its peer was granted
 * before the lease could end it (then revoked for the expiry, and a
 * one-shot one destroyed), never one that expired, or was destroyed,
 * before anyone was told of it.
 */
TEST_F(lease, tiny_lease_starts_with_the_id)
{
	struct mwin_window_bind b;
	struct mwpeer_msg m;
	uint32_t n = test_nr_windows(self->fd);
	int i;

	for (i = 0; i < 20; i++) {
		bool once = i % 2;

		ASSERT_EQ(0, grant(self, &b, 8192, 1,
				   once ? MWIN_WINDOW_ONCE : 0));
		ASSERT_EQ(0, test_next_about(self->p, MWIN_WIRE_GRANT, b.id,
					     &m)) TH_LOG("round %d", i);
		EXPECT_EQ(b.rkey, m.rkey);
		ASSERT_EQ(0, test_next_about(self->p, MWIN_WIRE_REVOKE, b.id,
					     &m));
		EXPECT_EQ(MWIN_REVOKE_EXPIRED, m.access);
		/* a one-shot window is gone; the other one destroyed now */
		ASSERT_EQ(0, once ? test_wait_window_gone(self->fd, b.id) :
				    mwin_window_destroy(self->fd, b.id));
		/*
		 * The next round cuts the same range: a one-shot window's
		 * range is free once its MR is given back, in the lease work
		 * item, after its id is gone (mwin.rst "One-shot windows").
		 */
		ASSERT_EQ(0, wait_nr_windows(self->fd, n)) TH_LOG("round %d", i);
	}
}

TEST_HARNESS_MAIN
