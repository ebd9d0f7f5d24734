// SPDX-License-Identifier: GPL-2.0
/*
 * Windows over real RDMA traffic: a peer built on rdma-core connects to the
 * module and reads, writes and does atomics through the rkeys it is granted.
 * The fixture's tests run over a module region and over a user region (its
 * variants): rights, bounds, invalidate, rebind and every revocation hold
 * for either kind's memory. Large windows over the module's chunks have a
 * fixture of their own.
 */
#include <pthread.h>

#include "mwin_test.h"

#define REGION_LEN	(1UL << 20)

FIXTURE(win)
{
	int fd;
	struct test_region region;
	struct mwpeer *a;
	struct mwpeer *b;
};

FIXTURE_VARIANT(win)
{
	uint32_t kind;		/* the region's */
};

FIXTURE_VARIANT_ADD(win, module)
{
	.kind = MWIN_REGION_KIND_MODULE,
};

/* a buffer of this process */
FIXTURE_VARIANT_ADD(win, user)
{
	.kind = MWIN_REGION_KIND_USER,
};

FIXTURE_SETUP(win)
{
	self->fd = mwin_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, test_region_create(self->fd, variant->kind, REGION_LEN,
					&self->region));
	ASSERT_EQ(REGION_LEN, self->region.len);
	self->a = test_connect();
	ASSERT_NE(NULL, self->a);
	self->b = test_connect();
	ASSERT_NE(NULL, self->b);
}

FIXTURE_TEARDOWN(win)
{
	mwpeer_close(self->a);
	mwpeer_close(self->b);
	EXPECT_EQ(0, test_region_destroy(self->fd, &self->region));
	close(self->fd);
}

/* Create a window for peer @p and take its grant message. */
static int grant(struct __test_metadata *_metadata, FIXTURE_DATA(win) *self,
		 struct mwpeer *p, struct mwin_window_bind *b, uint64_t off,
		 uint64_t len, uint32_t access)
{
	struct mwpeer_msg m;
	int ret;

	*b = test_bind(self->region.id, mwpeer_id(p), off, len, access, 0);
	ret = mwin_window_create(self->fd, b);
	if (ret)
		return ret;
	EXPECT_EQ(0, mwpeer_next_msg(p, &m, TEST_TIMEOUT_MS));
	EXPECT_EQ(MWIN_WIRE_GRANT, m.type);
	EXPECT_EQ(b->id, m.window);
	EXPECT_EQ(b->rkey, m.rkey);
	EXPECT_EQ(off, m.iova);
	EXPECT_EQ(len, m.length);
	EXPECT_EQ(access, m.access);
	return 0;
}

TEST_F(win, write_read_land_in_region)
{
	struct mwin_window_bind b;
	char buf[64];

	ASSERT_EQ(0, grant(_metadata, self, self->a, &b, 4096, 8192,
			   MWIN_ACCESS_READ | MWIN_ACCESS_WRITE));
	EXPECT_EQ(4096, b.iova);
	EXPECT_EQ(MWIN_WINDOW_BOUND, test_window_state(self->fd, b.id));

	ASSERT_EQ(IBV_WC_SUCCESS, mwpeer_write(self->a, b.rkey, b.iova + 100,
					       "hello window", 12));
	EXPECT_EQ(0, memcmp(self->region.mem + 4096 + 100, "hello window",
			    12));

	memcpy(self->region.mem + 4096 + 8000, "from the region", 15);
	ASSERT_EQ(IBV_WC_SUCCESS, mwpeer_read(self->a, b.rkey, b.iova + 8000,
					      buf, 15));
	EXPECT_EQ(0, memcmp(buf, "from the region", 15));
}

/* Windows are byte-granular: first and last byte work, their neighbours not. */
TEST_F(win, byte_granular_edges)
{
	struct mwin_window_bind b;
	uint32_t peer = mwpeer_id(self->a);

	ASSERT_EQ(0, grant(_metadata, self, self->a, &b, 1001, 3000,
			   MWIN_ACCESS_READ | MWIN_ACCESS_WRITE));
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_write(self->a, b.rkey, 1001, "F", 1));
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_write(self->a, b.rkey, 4000, "L", 1));
	EXPECT_EQ('F', self->region.mem[1001]);
	EXPECT_EQ('L', self->region.mem[4000]);

	/* One byte before: remote access error, the peer is torn down. */
	EXPECT_ACCESS_REFUSED(self->a,
		  mwpeer_write(self->a, b.rkey, 1000, "x", 1));
	EXPECT_EQ(self->region.fill, self->region.mem[1000]);
	EXPECT_EQ(0, test_wait_peer_gone(self->fd, peer));
	EXPECT_EQ(MWIN_WINDOW_UNBOUND, test_window_state(self->fd, b.id));

	/* Rebind to the reconnected peer; one byte after fails too. */
	ASSERT_EQ(0, mwpeer_reconnect(self->a));
	ASSERT_EQ(0, test_rebind(self->fd, &b, mwpeer_id(self->a), 1001, 3000,
				 MWIN_ACCESS_READ | MWIN_ACCESS_WRITE));
	EXPECT_MSG(self->a, MWIN_WIRE_GRANT, b.id, b.rkey);
	EXPECT_ACCESS_REFUSED(self->a,
		  mwpeer_read(self->a, b.rkey, 4001, NULL, 1));
	/* A transfer that starts inside and ends outside fails whole. */
	ASSERT_EQ(0, mwpeer_reconnect(self->a));
	ASSERT_EQ(0, test_rebind(self->fd, &b, mwpeer_id(self->a), 1001, 3000,
				 MWIN_ACCESS_READ | MWIN_ACCESS_WRITE));
	EXPECT_MSG(self->a, MWIN_WIRE_GRANT, b.id, b.rkey);
	EXPECT_ACCESS_REFUSED(self->a,
		  mwpeer_write(self->a, b.rkey, 3990, "0123456789AB", 12));
	EXPECT_EQ(self->region.fill, self->region.mem[3990]);
}

TEST_F(win, read_only_window_refuses_write)
{
	struct mwin_window_bind b;

	self->region.mem[0] = 'R';
	ASSERT_EQ(0, grant(_metadata, self, self->a, &b, 0, 4096,
			   MWIN_ACCESS_READ));
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_read(self->a, b.rkey, 0, NULL, 1));
	EXPECT_EQ('R', ((char *)mwpeer_buf(self->a))[0]);
	EXPECT_ACCESS_REFUSED(self->a,
		  mwpeer_write(self->a, b.rkey, 0, "W", 1));
	EXPECT_EQ('R', self->region.mem[0]);
}

TEST_F(win, atomics_need_the_right)
{
	struct mwin_window_bind b, rw;
	uint64_t old = 0, *word = (uint64_t *)(self->region.mem + 8192);
	struct mwin_info before, after;

	*word = 5;
	if (!test_dev_atomics(self->fd, mwpeer_dev_name(self->a))) {
		/* refused at once, and nothing is made */
		ASSERT_EQ(0, mwin_info(self->fd, &before, NULL, 0));
		EXPECT_EQ(-EOPNOTSUPP, grant(_metadata, self, self->a, &b,
					     8192, 64, MWIN_ACCESS_ATOMIC));
		ASSERT_EQ(0, mwin_info(self->fd, &after, NULL, 0));
		EXPECT_EQ(before.nr_windows, after.nr_windows);
		SKIP(return, "%s has no atomics", mwpeer_dev_name(self->a));
	}
	ASSERT_EQ(0, grant(_metadata, self, self->a, &b, 8192, 64,
			   MWIN_ACCESS_ATOMIC));
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_cas(self->a, b.rkey, 8192, 5, 7, &old));
	EXPECT_EQ(5, old);
	EXPECT_EQ(7, *word);
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_fadd(self->a, b.rkey, 8192, 3, &old));
	EXPECT_EQ(7, old);
	EXPECT_EQ(10, *word);

	/* Without the atomic right both fail and change nothing. */
	ASSERT_EQ(0, grant(_metadata, self, self->b, &rw, 16384, 64,
			   MWIN_ACCESS_READ | MWIN_ACCESS_WRITE));
	*(uint64_t *)(self->region.mem + 16384) = 1;
	EXPECT_ACCESS_REFUSED(self->b,
		  mwpeer_fadd(self->b, rw.rkey, 16384, 1, &old));
	EXPECT_EQ(1, *(uint64_t *)(self->region.mem + 16384));
}

/*
 * A window that may be written but not read: where the device refuses a
 * READ through it (rxe), it works so; where it cannot (siw answers a READ
 * through any valid STag), it is refused with EOPNOTSUPP and nothing made.
 */
TEST_F(win, write_only_window_is_never_readable)
{
	struct mwin_window_bind b;
	struct mwin_info before, after;
	int ret;

	ASSERT_EQ(0, mwin_info(self->fd, &before, NULL, 0));
	b = test_bind(self->region.id, mwpeer_id(self->a), 0, 4096,
		      MWIN_ACCESS_WRITE, 0);
	ret = mwin_window_create(self->fd, &b);
	if (!strcmp(test_provider(), "siw"))
		EXPECT_EQ(-EOPNOTSUPP, ret);
	if (ret) {
		EXPECT_EQ(-EOPNOTSUPP, ret);
		ASSERT_EQ(0, mwin_info(self->fd, &after, NULL, 0));
		EXPECT_EQ(before.nr_windows, after.nr_windows);
		return;
	}
	EXPECT_MSG(self->a, MWIN_WIRE_GRANT, b.id, b.rkey);
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_write(self->a, b.rkey, 0, "w", 1));
	EXPECT_EQ('w', self->region.mem[0]);
	EXPECT_ACCESS_REFUSED(self->a, mwpeer_read(self->a, b.rkey, 0, NULL, 1));
}

TEST_F(win, invalidate_kills_the_rkey)
{
	struct mwin_window_bind b;
	struct mwin_window_info wi;

	ASSERT_EQ(0, grant(_metadata, self, self->a, &b, 0, 4096,
			   MWIN_ACCESS_READ | MWIN_ACCESS_WRITE));
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_write(self->a, b.rkey, 0, "v", 1));
	ASSERT_EQ(0, mwin_window_invalidate(self->fd, b.id));
	EXPECT_MSG(self->a, MWIN_WIRE_REVOKE, b.id, b.rkey);
	ASSERT_EQ(0, mwin_window_get(self->fd, b.id, 0, &wi));
	EXPECT_EQ(MWIN_WINDOW_INVALIDATED, wi.state);
	EXPECT_EQ(1, wi.invalidations);
	/* Invalidating again is a no-op. */
	EXPECT_EQ(0, mwin_window_invalidate(self->fd, b.id));
	EXPECT_ACCESS_REFUSED(self->a,
		  mwpeer_write(self->a, b.rkey, 0, "x", 1));
	EXPECT_EQ('v', self->region.mem[0]);
}

TEST_F(win, rebind_new_key_new_range)
{
	struct mwin_window_bind b;
	struct mwpeer_msg m;
	uint32_t old, seq;

	ASSERT_EQ(0, grant(_metadata, self, self->a, &b, 0, 1 << 16,
			   MWIN_ACCESS_READ | MWIN_ACCESS_WRITE));
	old = b.rkey;
	ASSERT_EQ(0, test_rebind(self->fd, &b, 0, 4096, 8192,
				 MWIN_ACCESS_READ));
	EXPECT_NE(old, b.rkey);
	/* a new range takes a new MR: an MR is never mapped twice */
	EXPECT_NE(old >> 8, b.rkey >> 8);
	EXPECT_EQ(4096, b.iova);

	/* Revoke of the old key, then grant of the new one, in order. */
	ASSERT_EQ(0, mwpeer_next_msg(self->a, &m, TEST_TIMEOUT_MS));
	EXPECT_EQ(MWIN_WIRE_REVOKE, m.type);
	EXPECT_EQ(old, m.rkey);
	EXPECT_EQ(MWIN_REVOKE_REBIND, m.access);
	seq = m.seq;
	ASSERT_EQ(0, mwpeer_next_msg(self->a, &m, TEST_TIMEOUT_MS));
	EXPECT_EQ(MWIN_WIRE_GRANT, m.type);
	EXPECT_EQ(b.rkey, m.rkey);
	EXPECT_EQ(seq + 1, m.seq);
	EXPECT_EQ(4096, m.iova);
	EXPECT_EQ(8192, m.length);

	self->region.mem[4096] = 'n';
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_read(self->a, b.rkey, 4096, NULL, 1));
	/* The old key is dead... */
	EXPECT_ACCESS_REFUSED(self->a,
		  mwpeer_read(self->a, old, 4096, NULL, 1));
}

/* New rights on the same range: same MR, new key byte, one round trip. */
TEST_F(win, rebind_rights_keeps_the_mr)
{
	struct mwpeer_msg revoke, m;
	struct mwin_window_bind b;
	uint32_t old;

	ASSERT_EQ(0, grant(_metadata, self, self->a, &b, 100, 5000,
			   MWIN_ACCESS_READ));
	old = b.rkey;
	ASSERT_EQ(0, test_rebind(self->fd, &b, 0, 100, 5000,
				 MWIN_ACCESS_READ | MWIN_ACCESS_WRITE));
	EXPECT_EQ(old >> 8, b.rkey >> 8);
	EXPECT_NE(old & 0xff, b.rkey & 0xff);
	/* Revoke and grant, in order, in one SEND. */
	ASSERT_EQ(0, mwpeer_next_msg(self->a, &revoke, TEST_TIMEOUT_MS));
	ASSERT_EQ(0, mwpeer_next_msg(self->a, &m, TEST_TIMEOUT_MS));
	EXPECT_EQ(MWIN_WIRE_REVOKE, revoke.type);
	EXPECT_EQ(old, revoke.rkey);
	EXPECT_EQ(MWIN_REVOKE_REBIND, revoke.access);
	EXPECT_EQ(MWIN_WIRE_GRANT, m.type);
	EXPECT_EQ(b.rkey, m.rkey);
	EXPECT_EQ(revoke.seq + 1, m.seq);
	EXPECT_EQ(revoke.recv, m.recv);
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_write(self->a, b.rkey, 5099, "w", 1));
	EXPECT_EQ('w', self->region.mem[5099]);
	EXPECT_ACCESS_REFUSED(self->a,
		  mwpeer_read(self->a, old, 100, NULL, 1));
}

/*
 * A quiet window: the caller hands the rkey out, the peer is told nothing,
 * revocation is as immediate. A loud window's grant, made after, is the
 * next message the peer sees.
 */
TEST_F(win, quiet_window_tells_the_peer_nothing)
{
	struct mwin_window_info wi;
	struct mwin_window_bind b, loud;
	struct mwpeer_msg m;
	uint32_t first;

	b = test_bind(self->region.id, mwpeer_id(self->a), 0, 4096,
		      MWIN_ACCESS_READ, MWIN_WINDOW_QUIET);
	ASSERT_EQ(0, mwin_window_create(self->fd, &b));
	ASSERT_EQ(0, mwin_window_get(self->fd, b.id, 0, &wi));
	EXPECT_EQ(MWIN_WINDOW_QUIET, wi.wflags & MWIN_WINDOW_QUIET);
	self->region.mem[10] = 'q';
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_read(self->a, b.rkey, 10, NULL, 1));
	EXPECT_EQ('q', ((char *)mwpeer_buf(self->a))[0]);

	/* QUIET is a property of the window: not a rebind flag. */
	first = b.rkey;
	b.flags = MWIN_WINDOW_QUIET;
	b.rkey = 0;
	b.iova = 0;
	EXPECT_EQ(-EINVAL, mwin_window_rebind(self->fd, &b));
	ASSERT_EQ(0, test_rebind(self->fd, &b, 0, 0, 4096,
				 MWIN_ACCESS_READ | MWIN_ACCESS_WRITE));
	EXPECT_NE(first, b.rkey);
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_write(self->a, b.rkey, 20, "w", 1));
	EXPECT_EQ('w', self->region.mem[20]);
	ASSERT_EQ(0, mwin_window_invalidate(self->fd, b.id));
	ASSERT_EQ(0, test_rebind(self->fd, &b, 0, 0, 4096, MWIN_ACCESS_READ));

	/* The first message on this connection: none came before it. */
	loud = test_bind(self->region.id, mwpeer_id(self->a), 8192, 4096,
			 MWIN_ACCESS_READ, 0);
	ASSERT_EQ(0, mwin_window_create(self->fd, &loud));
	ASSERT_EQ(0, mwpeer_next_msg(self->a, &m, TEST_TIMEOUT_MS));
	EXPECT_EQ(MWIN_WIRE_GRANT, m.type);
	EXPECT_EQ(loud.id, m.window);
	EXPECT_EQ(1, m.seq);
	EXPECT_EQ(-ETIMEDOUT, mwpeer_next_msg(self->a, &m, 200));
	EXPECT_EQ(0, mwpeer_proto_errors(self->a, NULL));
	EXPECT_ACCESS_REFUSED(self->a,
		  mwpeer_read(self->a, first, 0, NULL, 1));
}

TEST_F(win, rebind_outside_new_range_fails)
{
	struct mwin_window_bind b;

	ASSERT_EQ(0, grant(_metadata, self, self->a, &b, 0, 1 << 16,
			   MWIN_ACCESS_READ));
	ASSERT_EQ(0, test_rebind(self->fd, &b, 0, 4096, 8192,
				 MWIN_ACCESS_READ));
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_read(self->a, b.rkey, 4096, NULL, 1));
	EXPECT_ACCESS_REFUSED(self->a,
		  mwpeer_read(self->a, b.rkey, 0, NULL, 1));
}

/* An rkey works only through its own peer's connection. */
TEST_F(win, other_peer_cannot_use_rkey)
{
	struct mwin_window_bind b;

	ASSERT_EQ(0, grant(_metadata, self, self->a, &b, 0, 4096,
			   MWIN_ACCESS_READ | MWIN_ACCESS_WRITE));
	EXPECT_ACCESS_REFUSED(self->b,
		  mwpeer_write(self->b, b.rkey, 0, "B", 1));
	EXPECT_EQ(self->region.fill, self->region.mem[0]);
	/* A is unaffected. */
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_write(self->a, b.rkey, 0, "A", 1));
	EXPECT_EQ('A', self->region.mem[0]);
}

TEST_F(win, send_with_invalidate_revokes)
{
	struct mwin_window_bind b;
	struct mwin_window_info wi;
	struct mwin_peer_info pi;
	int i;

	ASSERT_EQ(0, grant(_metadata, self, self->a, &b, 0, 4096,
			   MWIN_ACCESS_READ | MWIN_ACCESS_WRITE));
	ASSERT_EQ(IBV_WC_SUCCESS, mwpeer_send_inv(self->a, b.rkey));
	for (i = 0; i < 100; i++) {
		ASSERT_EQ(0, mwin_window_get(self->fd, b.id, 0, &wi));
		if (wi.state == MWIN_WINDOW_INVALIDATED)
			break;
		usleep(10000);
	}
	EXPECT_EQ(MWIN_WINDOW_INVALIDATED, wi.state);
	EXPECT_EQ(1, wi.remote_invalidations);
	ASSERT_EQ(0, mwin_peer_get(self->fd, mwpeer_id(self->a), 0, &pi));
	EXPECT_EQ(1, pi.remote_invalidations);
	EXPECT_ACCESS_REFUSED(self->a,
		  mwpeer_read(self->a, b.rkey, 0, NULL, 1));
}

/*
 * iWARP refuses an invalidation of an STag of another PD (siw checks it;
 * rxe does not): B's attack then changes nothing but B's connection, which
 * goes. A is told nothing, its window stays bound, and it reads on.
 */
static bool foreign_inv_refused(struct __test_metadata *_metadata,
				FIXTURE_DATA(win) *self,
				const struct mwin_window_bind *b)
{
	struct mwpeer_msg m;

	if (!test_iwarp(self->a))
		return false;
	EXPECT_EQ(-ETIMEDOUT, mwpeer_next_msg(self->a, &m, 500));
	EXPECT_EQ(MWIN_WINDOW_BOUND, test_window_state(self->fd, b->id));
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_read(self->a, b->rkey, 0, NULL, 1));
	return true;
}

/*
 * rxe performs B's invalidation of A's rkey: the module must catch it,
 * and it costs A one rkey, not its access. B goes; A is told the rkey is
 * dead (reason remote) and granted a new one at once, with the lease it
 * had left, and reads through it.
 */
TEST_F(win, foreign_send_with_invalidate_is_an_attack)
{
	struct mwin_window_bind b;
	uint32_t bid = mwpeer_id(self->b);
	struct mwin_window_info wi;
	struct mwpeer_msg m;

	ASSERT_EQ(0, grant(_metadata, self, self->a, &b, 0, 4096,
			   MWIN_ACCESS_READ | MWIN_ACCESS_WRITE));
	mwpeer_send_inv(self->b, b.rkey);
	EXPECT_EQ(0, test_wait_peer_gone(self->fd, bid));
	if (foreign_inv_refused(_metadata, self, &b))
		return;
	ASSERT_EQ(0, mwpeer_next_msg(self->a, &m, TEST_TIMEOUT_MS));
	EXPECT_EQ(MWIN_WIRE_REVOKE, m.type);
	EXPECT_EQ(b.rkey, m.rkey);
	EXPECT_EQ(MWIN_REVOKE_REMOTE, m.access);
	ASSERT_EQ(0, mwpeer_next_msg(self->a, &m, TEST_TIMEOUT_MS));
	EXPECT_EQ(MWIN_WIRE_GRANT, m.type);
	EXPECT_EQ(b.id, m.window);
	EXPECT_NE(b.rkey, m.rkey);
	ASSERT_EQ(0, mwin_window_get(self->fd, b.id, 0, &wi));
	EXPECT_EQ(MWIN_WINDOW_BOUND, wi.state);
	EXPECT_EQ(m.rkey, wi.rkey);
	EXPECT_EQ(mwpeer_id(self->a), wi.peer);
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_write(self->a, m.rkey, 0, "A", 1));
	EXPECT_EQ('A', self->region.mem[0]);
	EXPECT_ACCESS_REFUSED(self->a,
		  mwpeer_read(self->a, b.rkey, 0, NULL, 1));
}

/*
 * The same attack on a quiet window: its peer learns its rkeys from the
 * window's owner, not from mwin, so the window is left invalidated, for
 * the owner to rebind, and the peer is told nothing.
 */
TEST_F(win, foreign_invalidation_leaves_a_quiet_window_invalidated)
{
	struct mwin_window_bind b;
	uint32_t bid = mwpeer_id(self->b);
	struct mwpeer_msg m;

	b = test_bind(self->region.id, mwpeer_id(self->a), 0, 4096,
		      MWIN_ACCESS_READ, MWIN_WINDOW_QUIET);
	ASSERT_EQ(0, mwin_window_create(self->fd, &b));
	mwpeer_send_inv(self->b, b.rkey);
	EXPECT_EQ(0, test_wait_peer_gone(self->fd, bid));
	if (foreign_inv_refused(_metadata, self, &b))
		return;
	EXPECT_EQ(-ETIMEDOUT, mwpeer_next_msg(self->a, &m, 500));
	EXPECT_EQ(MWIN_WINDOW_INVALIDATED, test_window_state(self->fd, b.id));
	EXPECT_ACCESS_REFUSED(self->a,
		  mwpeer_read(self->a, b.rkey, 0, NULL, 1));
}

/*
 * A hand-back of an rkey the window had before a rebind that kept its MR
 * (same index, new key byte): rxe refuses the invalidation and ends the
 * sender's connection, siw performs it by the index and so kills the live
 * rkey. Either way what mwin shows is what the device does: a window shown
 * bound has a live rkey.
 */
TEST_F(win, stale_hand_back_leaves_no_dead_rkey_shown_bound)
{
	struct mwin_window_bind b;
	uint32_t old, state = 0;
	int i;

	ASSERT_EQ(0, grant(_metadata, self, self->a, &b, 0, 4096,
			   MWIN_ACCESS_READ));
	old = b.rkey;
	ASSERT_EQ(0, test_rebind(self->fd, &b, 0, 0, 4096,
				 MWIN_ACCESS_READ | MWIN_ACCESS_WRITE));
	ASSERT_EQ(old >> 8, b.rkey >> 8);
	mwpeer_send_inv(self->a, old);
	for (i = 0; i < 100; i++) {
		state = test_window_state(self->fd, b.id);
		if (state != MWIN_WINDOW_BOUND)
			break;
		usleep(10000);
	}
	if (state == MWIN_WINDOW_BOUND) {
		EXPECT_EQ(IBV_WC_SUCCESS,
			  mwpeer_read(self->a, b.rkey, 0, NULL, 1));
	}
	if (test_iwarp(self->a)) {
		struct mwpeer_msg m;

		/*
		 * killed by the index: shown invalidated, its peer kept and
		 * told of the live rkey's end (it named the old one)
		 */
		EXPECT_EQ(MWIN_WINDOW_INVALIDATED, state);
		do {
			ASSERT_EQ(0, test_next_about(self->a, MWIN_WIRE_REVOKE,
						     b.id, &m));
		} while (m.rkey != b.rkey);
		EXPECT_EQ(MWIN_REVOKE_HANDED_BACK, m.access);
		EXPECT_ACCESS_REFUSED(self->a,
				      mwpeer_read(self->a, b.rkey, 0, NULL, 1));
	}
}

/* A faulting peer is cleaned up and can reconnect; others keep working. */
TEST_F(win, faulting_peer_is_cleaned_up)
{
	struct mwin_window_bind ba, bb;
	uint32_t aid = mwpeer_id(self->a);

	ASSERT_EQ(0, grant(_metadata, self, self->a, &ba, 0, 4096,
			   MWIN_ACCESS_READ));
	ASSERT_EQ(0, grant(_metadata, self, self->b, &bb, 8192, 4096,
			   MWIN_ACCESS_READ | MWIN_ACCESS_WRITE));
	EXPECT_ACCESS_REFUSED(self->a,
		  mwpeer_write(self->a, ba.rkey, 0, "x", 1));
	EXPECT_EQ(0, test_wait_peer_gone(self->fd, aid));
	EXPECT_EQ(MWIN_WINDOW_UNBOUND, test_window_state(self->fd, ba.id));
	EXPECT_EQ(MWIN_WINDOW_BOUND, test_window_state(self->fd, bb.id));
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_write(self->b, bb.rkey, 8192, "b", 1));

	ASSERT_EQ(0, mwpeer_reconnect(self->a));
	EXPECT_NE(aid, mwpeer_id(self->a));
	ASSERT_EQ(0, test_rebind(self->fd, &ba, mwpeer_id(self->a), 0, 4096,
				 MWIN_ACCESS_READ));
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_read(self->a, ba.rkey, 0, NULL, 1));
}

TEST_F(win, peer_disconnect_unbinds)
{
	struct mwin_window_bind b;
	uint32_t aid = mwpeer_id(self->a);

	ASSERT_EQ(0, grant(_metadata, self, self->a, &b, 0, 4096,
			   MWIN_ACCESS_READ));
	ASSERT_EQ(0, mwin_peer_disconnect(self->fd, aid));
	EXPECT_EQ(-ENOENT, mwin_peer_disconnect(self->fd, aid));
	EXPECT_EQ(MWIN_WINDOW_UNBOUND, test_window_state(self->fd, b.id));
	EXPECT_EQ(-ENOTCONN, test_rebind(self->fd, &b, 0, 0, 4096,
					 MWIN_ACCESS_READ));
}

TEST_F(win, overlap_needs_the_flag)
{
	struct mwin_window_bind b1, b2;

	ASSERT_EQ(0, grant(_metadata, self, self->a, &b1, 0, 4096,
			   MWIN_ACCESS_READ));
	b2 = test_bind(self->region.id, mwpeer_id(self->b), 4095, 10,
		       MWIN_ACCESS_READ, 0);
	EXPECT_EQ(-EBUSY, mwin_window_create(self->fd, &b2));
	b2 = test_bind(self->region.id, mwpeer_id(self->b), 4096, 10,
		       MWIN_ACCESS_READ, 0);
	EXPECT_EQ(0, mwin_window_create(self->fd, &b2));	/* adjacent */
	b2 = test_bind(self->region.id, mwpeer_id(self->b), 100, 10,
		       MWIN_ACCESS_READ, MWIN_WINDOW_OVERLAP);
	EXPECT_EQ(0, mwin_window_create(self->fd, &b2));
}

TEST_F(win, region_destroy_busy_then_force)
{
	struct mwin_window_bind b;

	ASSERT_EQ(0, grant(_metadata, self, self->a, &b, 0, 4096,
			   MWIN_ACCESS_READ));
	EXPECT_EQ(-EBUSY, mwin_region_destroy(self->fd, self->region.id, 0));
	EXPECT_EQ(MWIN_WINDOW_BOUND, test_window_state(self->fd, b.id));
	ASSERT_EQ(0, mwin_region_destroy(self->fd, self->region.id,
					 MWIN_REGION_DESTROY_FORCE));
	EXPECT_MSG(self->a, MWIN_WIRE_REVOKE, b.id, b.rkey);
	EXPECT_EQ(0, test_window_state(self->fd, b.id));	/* gone */
	EXPECT_ACCESS_REFUSED(self->a,
		  mwpeer_read(self->a, b.rkey, 0, NULL, 1));
	/* gone: the teardown has its bytes to unmap, nothing to destroy */
	self->region.id = 0;
}

TEST_F(win, destroy_revokes)
{
	struct mwin_window_bind b;

	ASSERT_EQ(0, grant(_metadata, self, self->a, &b, 0, 4096,
			   MWIN_ACCESS_READ));
	ASSERT_EQ(0, mwin_window_destroy(self->fd, b.id));
	EXPECT_MSG(self->a, MWIN_WIRE_REVOKE, b.id, b.rkey);
	EXPECT_EQ(-ENOENT, mwin_window_destroy(self->fd, b.id));
	EXPECT_ACCESS_REFUSED(self->a,
		  mwpeer_read(self->a, b.rkey, 0, NULL, 1));
}

/* A window tied to its file descriptor goes with it. */
TEST_F(win, fd_owned_window_dies_with_fd)
{
	struct mwin_window_bind b;
	int fd2 = mwin_open();

	ASSERT_LE(0, fd2);
	b = test_bind(self->region.id, mwpeer_id(self->a), 0, 4096,
		      MWIN_ACCESS_READ, MWIN_CREATE_FD_OWNED);
	ASSERT_EQ(0, mwin_window_create(fd2, &b));
	EXPECT_MSG(self->a, MWIN_WIRE_GRANT, b.id, b.rkey);
	close(fd2);
	EXPECT_MSG(self->a, MWIN_WIRE_REVOKE, b.id, b.rkey);
	EXPECT_EQ(0, test_window_state(self->fd, b.id));
}

/*
 * A region tied to its file descriptor goes with it, its windows revoked;
 * the file's module-owned region and other regions stay.
 */
TEST_F(win, fd_owned_region_dies_with_fd)
{
	struct mwin_region_info ri;
	struct mwin_window_bind b;
	uint32_t owned[3], kept;
	int fd2 = mwin_open();
	int i;

	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, mwin_region_create(fd2, 4096, MWIN_CREATE_FD_OWNED,
					&owned[0], NULL));
	ASSERT_EQ(0, mwin_region_create(fd2, 4096, 0, &kept, NULL));
	ASSERT_EQ(0, mwin_region_create(fd2, 4096, MWIN_CREATE_FD_OWNED,
					&owned[1], NULL));
	ASSERT_EQ(0, mwin_region_create(fd2, 4096, MWIN_CREATE_FD_OWNED,
					&owned[2], NULL));
	b = test_bind(owned[1], mwpeer_id(self->a), 0, 4096,
		      MWIN_ACCESS_READ, 0);
	ASSERT_EQ(0, mwin_window_create(fd2, &b));
	EXPECT_MSG(self->a, MWIN_WIRE_GRANT, b.id, b.rkey);
	close(fd2);
	EXPECT_MSG(self->a, MWIN_WIRE_REVOKE, b.id, b.rkey);
	EXPECT_EQ(0, test_window_state(self->fd, b.id));
	for (i = 0; i < 3; i++)
		EXPECT_EQ(-ENOENT, mwin_region_get(self->fd, owned[i], 0, &ri));
	EXPECT_EQ(0, mwin_region_get(self->fd, kept, 0, &ri));
	EXPECT_EQ(0, mwin_region_get(self->fd, self->region.id, 0, &ri));
	EXPECT_EQ(0, mwin_region_destroy(self->fd, kept, 0));
}

/* A monitor sees grants and revokes, in order, with their rkeys. */
TEST_F(win, monitor_events)
{
	struct mwin_monitor mon = { .size = sizeof(mon) };
	struct mwin_event ev[4];
	struct mwin_window_bind b;
	int mfd = mwin_open();
	ssize_t n;

	ASSERT_LE(0, mfd);
	/* Not a monitor yet: nothing to read. */
	EXPECT_EQ(-1, read(mfd, ev, sizeof(ev)));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(0, mwin_ioctl(mfd, MWIN_MONITOR, &mon));
	EXPECT_EQ(-1, read(mfd, ev, sizeof(ev[0]) - 1));
	EXPECT_EQ(EINVAL, errno);

	ASSERT_EQ(0, grant(_metadata, self, self->a, &b, 0, 4096,
			   MWIN_ACCESS_READ));
	ASSERT_EQ(0, mwin_window_invalidate(self->fd, b.id));
	n = read(mfd, ev, sizeof(ev));
	if (n == sizeof(ev[0]))
		n += read(mfd, &ev[1], sizeof(ev) - sizeof(ev[0]));
	ASSERT_EQ(2 * sizeof(ev[0]), n);
	EXPECT_EQ(MWIN_EVENT_GRANT, ev[0].type);
	EXPECT_EQ(b.id, ev[0].window);
	EXPECT_EQ(mwpeer_id(self->a), ev[0].peer);
	EXPECT_EQ(b.rkey, ev[0].rkey);
	EXPECT_EQ(MWIN_EVENT_REVOKE, ev[1].type);
	EXPECT_EQ(b.rkey, ev[1].rkey);
	EXPECT_EQ(MWIN_REVOKE_INVALIDATE, ev[1].reason);
	EXPECT_EQ(ev[0].seq + 1, ev[1].seq);
	EXPECT_LE(ev[0].time_ns, ev[1].time_ns);
	close(mfd);
}

/*
 * Key bytes are random and never handed out twice by one MR: after 256
 * binds the MR is replaced (a new index).
 */
TEST_F(win, keys_random_never_reused)
{
	static uint8_t seen[1 << 16][32];	/* bitmap of key bytes per index */
	struct mwin_window_bind b;
	unsigned int i, indexes = 1, sequential = 0, rebinds = 600;
	uint32_t prev;

	ASSERT_EQ(0, grant(_metadata, self, self->a, &b, 0, 4096,
			   MWIN_ACCESS_READ));
	memset(seen, 0, sizeof(seen));
	prev = b.rkey;
	seen[(prev >> 8) & 0xffff][(prev & 0xff) / 8] |= 1 << (prev & 7);
	for (i = 0; i < rebinds; i++) {
		ASSERT_EQ(0, test_rebind(self->fd, &b, 0, 0, 4096,
					 MWIN_ACCESS_READ));
		mwpeer_poll(self->a, 0);	/* keep taking the messages */
		if ((b.rkey >> 8) != (prev >> 8))
			indexes++;
		else if (((prev + 1) & 0xff) == (b.rkey & 0xff))
			sequential++;
		EXPECT_FALSE(seen[(b.rkey >> 8) & 0xffff][(b.rkey & 0xff) / 8] &
			     (1 << (b.rkey & 7)));
		seen[(b.rkey >> 8) & 0xffff][(b.rkey & 0xff) / 8] |=
			1 << (b.rkey & 7);
		prev = b.rkey;
	}
	TH_LOG("%u rebinds: %u MRs, %u sequential key bytes", rebinds, indexes,
	       sequential);
	/* 601 keys from 256 per MR: at least 3 MRs */
	EXPECT_LE(3, indexes);
	/* a random byte follows its predecessor + 1 about once in 256 */
	EXPECT_GT(20, sequential);
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_read(self->a, b.rkey, 0, NULL, 1));
}

struct churn {
	int fd;
	uint32_t region;
	uint32_t peer;
	uint64_t base;
	uint32_t all;
	int errors;
	int *done;
};

/* One thread's share of windows: create, rebind, invalidate, destroy. */
static void *churn_thread(void *arg)
{
	struct churn *c = arg;
	struct mwin_window_bind b;
	int i;

	for (i = 0; i < 100; i++) {
		b = test_bind(c->region, c->peer, c->base, 4096 + i,
			      MWIN_ACCESS_READ | MWIN_ACCESS_WRITE, 0);
		if (mwin_window_create(c->fd, &b) ||
		    test_rebind(c->fd, &b, 0, c->base + 100, 8192,
				MWIN_ACCESS_READ) ||
		    mwin_window_invalidate(c->fd, b.id) ||
		    test_rebind(c->fd, &b, 0, c->base, 1, c->all) ||
		    mwin_window_destroy(c->fd, b.id))
			c->errors++;
	}
	__atomic_add_fetch(c->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Many threads at once, one peer taking all the messages. */
TEST_F(win, concurrent_churn)
{
	struct churn c[4];
	pthread_t t[4];
	struct mwin_window_info wi;
	struct mwin_window_bind b;
	struct mwpeer_msg m;
	int i, done = 0;

	for (i = 0; i < 4; i++) {
		c[i] = (struct churn){ .fd = self->fd,
				       .region = self->region.id,
				       .peer = mwpeer_id(self->a),
				       .base = (uint64_t)i << 16, .done = &done,
				       .all = test_all_access(self->fd, self->a) };
		ASSERT_EQ(0, pthread_create(&t[i], NULL, churn_thread, &c[i]));
	}
	while (__atomic_load_n(&done, __ATOMIC_ACQUIRE) < 4)
		mwpeer_poll(self->a, 10);
	for (i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		EXPECT_EQ(0, c[i].errors);
	}
	EXPECT_EQ(-ENOENT, mwin_window_get(self->fd, 0, MWIN_GET_NEXT, &wi));
	EXPECT_EQ(0, mwpeer_proto_errors(self->a, NULL));
	/*
	 * 4 x 100 x (create: grant; rebind: revoke + grant; invalidate:
	 * revoke; rebind of an invalidated window: grant; destroy: revoke)
	 */
	for (i = 0; mwpeer_next_msg(self->a, &m, 100) == 0; i++)
		;
	EXPECT_EQ(4 * 100 * 6, i);
	/* The peer is still healthy. */
	ASSERT_EQ(0, grant(_metadata, self, self->a, &b, 0, 4096,
			   MWIN_ACCESS_READ));
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_read(self->a, b.rkey, 0, NULL, 8));
}

/*
 * The module's own chunks, in module regions a test makes: a fixture
 * without the variants, since a user region has its process's pages.
 */
FIXTURE(chunks)
{
	int fd;
	struct mwpeer *a;
};

FIXTURE_SETUP(chunks)
{
	self->fd = mwin_open();
	ASSERT_LE(0, self->fd);
	self->a = test_connect();
	ASSERT_NE(NULL, self->a);
}

FIXTURE_TEARDOWN(chunks)
{
	mwpeer_close(self->a);
	close(self->fd);
}

/*
 * Regions come in large chunks, so windows map large pages: a window of
 * far more than 512 pages of 4 KiB binds, byte-granular at both ends, and
 * a 1 GiB one (512 pages of 2 MiB) too.
 */
TEST_F(chunks, large_windows)
{
	uint64_t off = 4096 + 7, len = (6 << 20) - 100;
	struct mwin_dev_info dev;
	struct mwin_window_bind b;
	uint32_t big;
	char *mem;

	ASSERT_TRUE(test_dev(self->fd, mwpeer_dev_name(self->a), &dev));
	ASSERT_EQ(0, mwin_region_create(self->fd, 8 << 20, 0, &big, NULL));
	if (dev.max_window_bytes < len) {
		/* a device of small pages alone (siw): E2BIG, as documented */
		b = test_bind(big, mwpeer_id(self->a), off, len,
			      MWIN_ACCESS_READ, 0);
		EXPECT_EQ(-E2BIG, mwin_window_create(self->fd, &b));
		EXPECT_EQ(0, mwin_region_destroy(self->fd, big, 0));
		SKIP(return, "%s maps %llu bytes per window at most",
		     dev.name, (unsigned long long)dev.max_window_bytes);
	}
	mem = mwin_region_mmap(self->fd, big, NULL);
	ASSERT_NE(NULL, mem);
	b = test_bind(big, mwpeer_id(self->a), off, len,
		      MWIN_ACCESS_READ | MWIN_ACCESS_WRITE, 0);
	ASSERT_EQ(0, mwin_window_create(self->fd, &b));
	EXPECT_MSG(self->a, MWIN_WIRE_GRANT, b.id, b.rkey);
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_write(self->a, b.rkey, off, "<", 1));
	EXPECT_EQ(IBV_WC_SUCCESS,
		  mwpeer_write(self->a, b.rkey, off + len - 1, ">", 1));
	EXPECT_EQ(IBV_WC_SUCCESS,
		  mwpeer_write(self->a, b.rkey, (3 << 20) - 2, "mid", 3));
	EXPECT_EQ('<', mem[off]);
	EXPECT_EQ('>', mem[off + len - 1]);
	EXPECT_EQ(0, memcmp(mem + (3 << 20) - 2, "mid", 3));
	EXPECT_ACCESS_REFUSED(self->a,
		  mwpeer_write(self->a, b.rkey, off + len, "x", 1));
	EXPECT_EQ(0, mem[off + len]);
	munmap(mem, 8 << 20);
	ASSERT_EQ(0, mwin_region_destroy(self->fd, big,
					 MWIN_REGION_DESTROY_FORCE));

	/* 1 GiB: the whole region in one window. */
	ASSERT_EQ(0, mwpeer_reconnect(self->a));
	ASSERT_EQ(0, mwin_region_create(self->fd, 1 << 30, 0, &big, NULL));
	b = test_bind(big, mwpeer_id(self->a), 0, 1 << 30,
		      MWIN_ACCESS_READ | MWIN_ACCESS_WRITE, 0);
	ASSERT_EQ(0, mwin_window_create(self->fd, &b));
	EXPECT_EQ(IBV_WC_SUCCESS,
		  mwpeer_write(self->a, b.rkey, (1 << 30) - 8, "lastbyte", 8));
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_read(self->a, b.rkey, 0, NULL, 8));
	/* A rebind to a smaller range, rights changed, same MR. */
	ASSERT_EQ(0, test_rebind(self->fd, &b, 0, 100, (512 << 20) + 3,
				 MWIN_ACCESS_READ));
	EXPECT_EQ(IBV_WC_SUCCESS,
		  mwpeer_read(self->a, b.rkey, (512 << 20) + 102, NULL, 1));
	ASSERT_EQ(0, mwin_region_destroy(self->fd, big,
					 MWIN_REGION_DESTROY_FORCE));
}

TEST_HARNESS_MAIN
