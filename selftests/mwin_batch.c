// SPDX-License-Identifier: GPL-2.0
/*
 * MWIN_WINDOW_BATCH: many window operations in one call, each with its own
 * result, with real traffic checking the rkeys they hand out and revoke.
 */
#include <pthread.h>

#include "mwin_test.h"

#define NWIN 64

FIXTURE(batch)
{
	int fd;
	uint32_t region;
	char *mem;
	struct mwpeer *a;
	struct mwpeer *b;
	struct mwin_window_bind w[NWIN];
};

FIXTURE_SETUP(batch)
{
	int i;

	self->fd = mwin_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, mwin_region_create(self->fd, NWIN * 8192, 0,
					&self->region, NULL));
	self->mem = mwin_region_mmap(self->fd, self->region, NULL);
	ASSERT_NE(NULL, self->mem);
	self->a = test_connect();
	ASSERT_NE(NULL, self->a);
	self->b = test_connect();
	ASSERT_NE(NULL, self->b);
	/* even windows for peer a, odd ones for peer b */
	for (i = 0; i < NWIN; i++) {
		self->w[i] = test_bind(self->region,
				       mwpeer_id(i % 2 ? self->b : self->a),
				       i * 8192, 4096, MWIN_ACCESS_READ, 0);
		ASSERT_EQ(0, mwin_window_create(self->fd, &self->w[i]));
	}
}

FIXTURE_TEARDOWN(batch)
{
	mwin_region_destroy(self->fd, self->region, MWIN_REGION_DESTROY_FORCE);
	munmap(self->mem, NWIN * 8192);
	mwpeer_close(self->a);
	mwpeer_close(self->b);
	close(self->fd);
}

static struct mwin_batch_op op_rebind(uint32_t id, uint64_t off, uint64_t len,
				      uint32_t access)
{
	return (struct mwin_batch_op){ .opcode = MWIN_BATCH_REBIND, .id = id,
				       .offset = off, .length = len,
				       .access = access };
}

/* Drain a peer's messages; return how many there were. */
static int drain(struct mwpeer *p)
{
	struct mwpeer_msg m;
	int n = 0;

	while (!mwpeer_next_msg(p, &m, 200))
		n++;
	return n;
}

/*
 * Take a rebind batch's messages to @p: a revoke then a grant per window,
 * in order. Return how many SENDs carried them, or -1.
 */
static int take_rebinds(struct mwpeer *p, int nwin)
{
	struct mwpeer_msg r, g;
	uint64_t recv = 0;
	int i, sends = 0;

	for (i = 0; i < nwin; i++) {
		if (mwpeer_next_msg(p, &r, TEST_TIMEOUT_MS) ||
		    mwpeer_next_msg(p, &g, TEST_TIMEOUT_MS) ||
		    r.type != MWIN_WIRE_REVOKE || g.type != MWIN_WIRE_GRANT ||
		    r.window != g.window || g.seq != r.seq + 1)
			return -1;
		sends += (r.recv != recv) + (g.recv != r.recv);
		recv = g.recv;
	}
	return sends;
}

TEST_F(batch, rebind_all_in_one_call)
{
	struct mwin_batch_op ops[NWIN];
	uint32_t failed = 1;
	int i;

	drain(self->a);
	drain(self->b);
	for (i = 0; i < NWIN; i++) {
		self->mem[i * 8192] = i;
		ops[i] = op_rebind(self->w[i].id, i * 8192, 4096,
				   MWIN_ACCESS_READ | MWIN_ACCESS_WRITE);
	}
	ASSERT_EQ(0, mwin_window_batch(self->fd, ops, NWIN, &failed));
	EXPECT_EQ(0, failed);
	for (i = 0; i < NWIN; i++) {
		struct mwpeer *p = i % 2 ? self->b : self->a;

		EXPECT_EQ(0, ops[i].result);
		EXPECT_NE(self->w[i].rkey, ops[i].rkey);
		EXPECT_EQ(self->w[i].rkey >> 8, ops[i].rkey >> 8);
		EXPECT_EQ(i * 8192, ops[i].iova);
		EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_read(p, ops[i].rkey, i * 8192,
						      NULL, 1));
		EXPECT_EQ(i, ((char *)mwpeer_buf(p))[0]);
	}
	/*
	 * Each peer: a revoke and a grant per window, in order, as few SENDs
	 * as they fit in.
	 */
	EXPECT_EQ(NWIN / MWIN_WIRE_MSGS_PER_SEND, take_rebinds(self->a, NWIN / 2));
	EXPECT_EQ(NWIN / MWIN_WIRE_MSGS_PER_SEND, take_rebinds(self->b, NWIN / 2));
	EXPECT_EQ(0, drain(self->a));
	EXPECT_EQ(0, mwpeer_proto_errors(self->a, NULL));
	/* the old keys are dead */
	EXPECT_ACCESS_REFUSED(self->a,
		  mwpeer_read(self->a, self->w[0].rkey, 0, NULL, 1));
	EXPECT_ACCESS_REFUSED(self->b,
		  mwpeer_read(self->b, self->w[NWIN - 1].rkey,
			      (NWIN - 1) * 8192, NULL, 1));
}

/* Any mix: create, rebind (same and new range), invalidate, destroy. */
TEST_F(batch, mixed_entries_take_effect_in_order)
{
	struct mwin_batch_op ops[6] = {
		{ .opcode = MWIN_BATCH_CREATE, .region = self->region,
		  .peer = mwpeer_id(self->a), .offset = 4096, .length = 100,
		  .access = MWIN_ACCESS_WRITE },
		op_rebind(self->w[0].id, 0, 4096, MWIN_ACCESS_READ),
		op_rebind(self->w[2].id, 2 * 8192 + 1, 50, MWIN_ACCESS_READ),
		{ .opcode = MWIN_BATCH_INVALIDATE, .id = self->w[4].id },
		{ .opcode = MWIN_BATCH_DESTROY, .id = self->w[6].id },
		{ .opcode = MWIN_BATCH_INVALIDATE, .id = self->w[4].id },
	};
	uint32_t failed = 0;

	drain(self->a);
	ASSERT_EQ(0, mwin_window_batch(self->fd, ops, 6, &failed));
	EXPECT_EQ(1, failed);
	EXPECT_EQ(0, ops[0].result);
	EXPECT_NE(0, ops[0].id);
	EXPECT_EQ(4096, ops[0].iova);
	EXPECT_EQ(0, ops[1].result);
	EXPECT_EQ(0, ops[2].result);
	EXPECT_EQ(2 * 8192 + 1, ops[2].iova);
	EXPECT_EQ(0, ops[3].result);
	EXPECT_EQ(0, ops[4].result);
	EXPECT_EQ(-EINVAL, ops[5].result);	/* a window twice */

	EXPECT_EQ(MWIN_WINDOW_BOUND, test_window_state(self->fd, ops[0].id));
	EXPECT_EQ(MWIN_WINDOW_INVALIDATED,
		  test_window_state(self->fd, self->w[4].id));
	EXPECT_EQ(0, test_window_state(self->fd, self->w[6].id));
	EXPECT_EQ(IBV_WC_SUCCESS,
		  mwpeer_write(self->a, ops[0].rkey, 4096 + 99, "z", 1));
	EXPECT_EQ('z', self->mem[4096 + 99]);
	EXPECT_EQ(IBV_WC_SUCCESS,
		  mwpeer_read(self->a, ops[2].rkey, 2 * 8192 + 50, NULL, 1));
	EXPECT_EQ(IBV_WC_SUCCESS,
		  mwpeer_read(self->a, ops[1].rkey, 4095, NULL, 1));
	/* grant, revoke + grant, revoke + grant, revoke, revoke */
	EXPECT_EQ(7, drain(self->a));
	EXPECT_EQ(0, mwpeer_proto_errors(self->a, NULL));
	/* the range change revoked the old key before remapping */
	EXPECT_ACCESS_REFUSED(self->a,
		  mwpeer_read(self->a, ops[2].rkey, 2 * 8192, NULL, 1));
}

/*
 * Creates: their registrations go out as one chain per peer, their grants
 * after it in as few SENDs as fit; a bad entry fails alone.
 */
TEST_F(batch, create_all_in_one_call)
{
	struct mwin_batch_op ops[NWIN + 2];
	struct mwin_info before, after;
	struct mwpeer_msg m;
	uint32_t failed = 0;
	int i, k, sends;

	drain(self->a);
	drain(self->b);
	ASSERT_EQ(0, mwin_info(self->fd, &before, NULL, 0));
	/* into the gaps between the fixture's windows */
	for (i = 0; i < NWIN; i++) {
		ops[i] = (struct mwin_batch_op){
			.opcode = MWIN_BATCH_CREATE, .region = self->region,
			.peer = mwpeer_id(i % 2 ? self->b : self->a),
			.offset = i * 8192 + 4096, .length = 4096,
			.access = MWIN_ACCESS_READ | MWIN_ACCESS_WRITE };
		self->mem[i * 8192 + 4096] = i;
	}
	ops[NWIN] = ops[0];			/* its range is taken now */
	ops[NWIN + 1] = ops[1];
	ops[NWIN + 1].region = 999999;
	ASSERT_EQ(0, mwin_window_batch(self->fd, ops, NWIN + 2, &failed));
	EXPECT_EQ(2, failed);
	EXPECT_EQ(-EBUSY, ops[NWIN].result);
	EXPECT_EQ(-ENOENT, ops[NWIN + 1].result);
	ASSERT_EQ(0, mwin_info(self->fd, &after, NULL, 0));
	EXPECT_EQ(before.nr_windows + NWIN, after.nr_windows);

	for (k = 0; k < 2; k++) {
		struct mwpeer *p = k ? self->b : self->a;
		uint64_t recv = 0;

		for (i = k, sends = 0; i < NWIN; i += 2) {
			ASSERT_EQ(0, ops[i].result);
			ASSERT_EQ(0, mwpeer_next_msg(p, &m, TEST_TIMEOUT_MS));
			EXPECT_EQ(MWIN_WIRE_GRANT, m.type);
			EXPECT_EQ(ops[i].id, m.window);
			EXPECT_EQ(ops[i].rkey, m.rkey);
			EXPECT_EQ(i * 8192 + 4096, m.iova);
			sends += m.recv != recv;
			recv = m.recv;
			EXPECT_EQ(IBV_WC_SUCCESS,
				  mwpeer_read(p, ops[i].rkey, ops[i].iova,
					      NULL, 1));
			EXPECT_EQ(i, ((char *)mwpeer_buf(p))[0]);
		}
		EXPECT_EQ(NWIN / 2 / MWIN_WIRE_MSGS_PER_SEND, sends);
		EXPECT_EQ(0, drain(p));
		EXPECT_EQ(0, mwpeer_proto_errors(p, NULL));
	}
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_write(self->b, ops[NWIN - 1].rkey,
					       ops[NWIN - 1].iova + 4095,
					       "w", 1));
	EXPECT_EQ('w', self->mem[NWIN * 8192 - 1]);
	EXPECT_EQ(MWIN_WINDOW_BOUND, test_window_state(self->fd, ops[0].id));
}

/*
 * Destroys of bound windows: their revokes go out as one chain per peer,
 * each window is gone once its rkey is dead, and its range is free again.
 * An invalidated window and a window twice take the single call's paths.
 */
TEST_F(batch, destroy_all_in_one_call)
{
	struct mwin_batch_op ops[NWIN + 2];
	struct mwin_window_bind again;
	struct mwpeer_msg m;
	uint32_t failed = 0;
	int i, k, sends;

	/* last, so that the single call's flush does not split the chains */
	ASSERT_EQ(0, mwin_window_invalidate(self->fd, self->w[NWIN - 1].id));
	drain(self->a);
	drain(self->b);
	for (i = 0; i < NWIN; i++)
		ops[i] = (struct mwin_batch_op){ .opcode = MWIN_BATCH_DESTROY,
						 .id = self->w[i].id };
	ops[NWIN] = ops[5];
	ops[NWIN + 1] = (struct mwin_batch_op){ .opcode = MWIN_BATCH_DESTROY,
						.id = 999999 };
	ASSERT_EQ(0, mwin_window_batch(self->fd, ops, NWIN + 2, &failed));
	EXPECT_EQ(2, failed);
	for (i = 0; i < NWIN; i++) {
		EXPECT_EQ(0, ops[i].result);
		EXPECT_EQ(0, test_window_state(self->fd, self->w[i].id));
	}
	EXPECT_EQ(-EINVAL, ops[NWIN].result);	/* a window twice */
	EXPECT_EQ(-ENOENT, ops[NWIN + 1].result);

	/* each peer: one revoke per bound window, in as few SENDs as fit */
	for (k = 0; k < 2; k++) {
		struct mwpeer *p = k ? self->b : self->a;
		uint64_t recv = 0;

		for (i = sends = 0; i < NWIN / 2 - k; i++) {
			ASSERT_EQ(0, mwpeer_next_msg(p, &m, TEST_TIMEOUT_MS));
			EXPECT_EQ(MWIN_WIRE_REVOKE, m.type);
			EXPECT_EQ(MWIN_REVOKE_DESTROY, m.access);
			sends += m.recv != recv;
			recv = m.recv;
		}
		EXPECT_EQ(0, drain(p));
		EXPECT_EQ(NWIN / 2 / MWIN_WIRE_MSGS_PER_SEND, sends);
		EXPECT_EQ(0, mwpeer_proto_errors(p, NULL));
	}
	/* the ranges are the region's again */
	again = test_bind(self->region, mwpeer_id(self->a), 0, NWIN * 8192,
			  MWIN_ACCESS_READ, 0);
	ASSERT_EQ(0, mwin_window_create(self->fd, &again));
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_read(self->a, again.rkey,
					      NWIN * 8192 - 1, NULL, 1));
	/* the old keys are dead (each read kills its peer's QP) */
	EXPECT_ACCESS_REFUSED(self->a,
		  mwpeer_read(self->a, self->w[0].rkey, 0, NULL, 1));
	EXPECT_ACCESS_REFUSED(self->b,
		  mwpeer_read(self->b, self->w[1].rkey, 8192, NULL, 1));
}

/* A bad entry fails alone; the others are carried out. */
TEST_F(batch, partial_failure_is_exact)
{
	struct mwin_batch_op ops[5] = {
		op_rebind(self->w[0].id, 0, 4096, MWIN_ACCESS_READ),
		op_rebind(999999, 0, 4096, MWIN_ACCESS_READ),
		op_rebind(self->w[2].id, 2 * 8192, NWIN * 8192, MWIN_ACCESS_READ),
		{ .opcode = 77, .id = self->w[4].id },
		op_rebind(self->w[8].id, 7 * 8192 + 4095, 2, MWIN_ACCESS_READ),
	};
	uint32_t failed = 0;

	ASSERT_EQ(0, mwin_window_batch(self->fd, ops, 5, &failed));
	EXPECT_EQ(4, failed);
	EXPECT_EQ(0, ops[0].result);
	EXPECT_EQ(-ENOENT, ops[1].result);
	EXPECT_EQ(-ERANGE, ops[2].result);
	EXPECT_EQ(-EINVAL, ops[3].result);
	EXPECT_EQ(-EBUSY, ops[4].result);	/* overlaps window 7 */
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_read(self->a, self->w[2].rkey,
					      2 * 8192, NULL, 1));
}

/*
 * A batch whose results cannot be written back (its entries readable, not
 * writable): EFAULT, and its creates are undone as a single create's would
 * be: no window left that nobody knows the id of, its peer told nothing,
 * the ranges free again.
 */
TEST_F(batch, creates_undone_when_results_cannot_be_written)
{
	struct mwin_window_batch cmd = {
		.size = sizeof(cmd), .count = 4, .op_size = sizeof(cmd),
	};
	struct mwin_info before, after;
	struct mwin_batch_op *ops;
	struct mwpeer_msg m;
	uint32_t failed = 1;
	int i, grants = 0;

	ops = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ops);
	for (i = 0; i < 4; i++)
		ops[i] = (struct mwin_batch_op){
			.opcode = MWIN_BATCH_CREATE, .region = self->region,
			.peer = mwpeer_id(self->a),
			.offset = i * 8192 + 4096, .length = 4096,
			.access = MWIN_ACCESS_READ };
	drain(self->a);
	ASSERT_EQ(0, mwin_info(self->fd, &before, NULL, 0));
	ASSERT_EQ(0, mprotect(ops, 4096, PROT_READ));
	cmd.op_size = sizeof(*ops);
	cmd.ops = (uintptr_t)ops;
	EXPECT_EQ(-EFAULT, mwin_ioctl(self->fd, MWIN_WINDOW_BATCH, &cmd));
	ASSERT_EQ(0, mwin_info(self->fd, &after, NULL, 0));
	EXPECT_EQ(before.nr_windows, after.nr_windows);
	while (!mwpeer_next_msg(self->a, &m, 300))
		grants += m.type == MWIN_WIRE_GRANT;
	EXPECT_EQ(0, grants);

	/* the same creates, their results writable: every range was free */
	ASSERT_EQ(0, mprotect(ops, 4096, PROT_READ | PROT_WRITE));
	ASSERT_EQ(0, mwin_window_batch(self->fd, ops, 4, &failed));
	EXPECT_EQ(0, failed);
	for (i = 0; i < 4; i++) {
		EXPECT_EQ(0, ops[i].result);
		EXPECT_EQ(0, test_next_about(self->a, MWIN_WIRE_GRANT,
					     ops[i].id, &m));
		EXPECT_EQ(0, mwin_window_destroy(self->fd, ops[i].id));
	}
	munmap(ops, 4096);
}

/* A batch that cannot be read fails whole, and changes nothing. */
TEST_F(batch, unreadable_batch_changes_nothing)
{
	struct mwin_batch_op ops[2] = {
		op_rebind(self->w[0].id, 0, 4096, MWIN_ACCESS_READ),
		op_rebind(self->w[2].id, 2 * 8192, 4096, MWIN_ACCESS_READ),
	};
	struct {
		struct mwin_batch_op op;
		uint64_t tail;
	} big[2] = { { ops[0], 1 }, { ops[1], 0 } };
	struct mwin_window_batch cmd = {
		.size = sizeof(cmd), .count = 2, .op_size = sizeof(ops[0]),
		.ops = (uintptr_t)ops,
	};
	struct mwin_window_info wi;

	cmd.count = 0;
	EXPECT_EQ(-EINVAL, mwin_ioctl(self->fd, MWIN_WINDOW_BATCH, &cmd));
	cmd.count = MWIN_BATCH_MAX + 1;
	EXPECT_EQ(-EINVAL, mwin_ioctl(self->fd, MWIN_WINDOW_BATCH, &cmd));
	cmd.count = 2;
	cmd.op_size = MWIN_BATCH_OP_SIZE_VER0 - 8;
	EXPECT_EQ(-EINVAL, mwin_ioctl(self->fd, MWIN_WINDOW_BATCH, &cmd));
	cmd.op_size = sizeof(big[0]);
	cmd.ops = (uintptr_t)big;
	EXPECT_EQ(-E2BIG, mwin_ioctl(self->fd, MWIN_WINDOW_BATCH, &cmd));
	cmd.op_size = sizeof(ops[0]);
	cmd.ops = 8;
	EXPECT_EQ(-EFAULT, mwin_ioctl(self->fd, MWIN_WINDOW_BATCH, &cmd));
	cmd.ops = (uintptr_t)ops;
	cmd.flags = 1;
	EXPECT_EQ(-EINVAL, mwin_ioctl(self->fd, MWIN_WINDOW_BATCH, &cmd));

	ASSERT_EQ(0, mwin_window_get(self->fd, self->w[0].id, 0, &wi));
	EXPECT_EQ(self->w[0].rkey, wi.rkey);
	EXPECT_EQ(1, wi.binds);
	/* a newer userspace's bigger entries with zero tails are fine */
	big[0].tail = 0;
	cmd.flags = 0;
	cmd.op_size = sizeof(big[0]);
	cmd.ops = (uintptr_t)big;
	ASSERT_EQ(0, mwin_ioctl(self->fd, MWIN_WINDOW_BATCH, &cmd));
	EXPECT_EQ(0, cmd.failed);
	EXPECT_NE(self->w[0].rkey, big[0].op.rkey);
	EXPECT_EQ(0, big[0].tail);
}

/* A peer change in a batch goes through a new MR on the new peer's PD. */
TEST_F(batch, peer_change)
{
	struct mwin_batch_op op = op_rebind(self->w[0].id, 0, 4096,
					    MWIN_ACCESS_READ);
	uint32_t failed = 1;

	op.peer = mwpeer_id(self->b);
	ASSERT_EQ(0, mwin_window_batch(self->fd, &op, 1, &failed));
	EXPECT_EQ(0, failed);
	EXPECT_NE(self->w[0].rkey >> 8, op.rkey >> 8);
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_read(self->b, op.rkey, 0, NULL, 1));
	EXPECT_ACCESS_REFUSED(self->a,
		  mwpeer_read(self->a, op.rkey, 0, NULL, 1));
}

struct racer {
	int fd;
	FIXTURE_DATA(batch) *self;
	int reverse;
	int errors;
	int *done;
};

static void *batch_racer(void *arg)
{
	struct racer *r = arg;
	struct mwin_batch_op ops[NWIN];
	uint32_t failed;
	int round, i, k;

	for (round = 0; round < 20; round++) {
		for (i = 0; i < NWIN; i++) {
			k = r->reverse ? NWIN - 1 - i : i;
			ops[i] = op_rebind(r->self->w[k].id, k * 8192, 4096,
					   MWIN_ACCESS_READ);
		}
		if (mwin_window_batch(r->fd, ops, NWIN, &failed) || failed)
			r->errors++;
	}
	__atomic_add_fetch(r->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Two batches over the same windows in opposite orders never deadlock. */
TEST_F(batch, concurrent_batches)
{
	struct racer r[2];
	pthread_t t[2];
	int i, done = 0;

	for (i = 0; i < 2; i++) {
		r[i] = (struct racer){ .fd = self->fd, .self = self,
				       .reverse = i, .done = &done };
		ASSERT_EQ(0, pthread_create(&t[i], NULL, batch_racer, &r[i]));
	}
	while (__atomic_load_n(&done, __ATOMIC_ACQUIRE) < 2) {
		mwpeer_poll(self->a, 5);
		mwpeer_poll(self->b, 5);
	}
	for (i = 0; i < 2; i++) {
		pthread_join(t[i], NULL);
		EXPECT_EQ(0, r[i].errors);
	}
	drain(self->a);
	drain(self->b);
	EXPECT_EQ(0, mwpeer_proto_errors(self->a, NULL));
	EXPECT_EQ(0, mwpeer_proto_errors(self->b, NULL));
	for (i = 0; i < NWIN; i++)
		EXPECT_EQ(MWIN_WINDOW_BOUND,
			  test_window_state(self->fd, self->w[i].id));
}

/* Two batches of one peer's windows, 96 entries between them. */
struct one_peer_racer {
	int fd;
	struct mwin_window_bind *w;
	unsigned int n;
	int errors;
	int *done;
};

static void *one_peer_racer(void *arg)
{
	struct one_peer_racer *r = arg;
	struct mwin_batch_op ops[48];
	uint32_t failed;
	unsigned int round, i;

	for (round = 0; round < 10; round++) {
		for (i = 0; i < r->n; i++)
			ops[i] = op_rebind(r->w[i].id, r->w[i].offset, 4096,
					   MWIN_ACCESS_READ);
		if (mwin_window_batch(r->fd, ops, r->n, &failed) || failed)
			r->errors++;
	}
	__atomic_add_fetch(r->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * Each chain takes its peer's 64 send-queue slots it needs at once: two
 * batches that need 96 between them never each hold part of what the
 * other waits for.
 */
TEST_F(batch, concurrent_batches_one_peer)
{
	struct mwin_window_bind w[96];
	struct one_peer_racer r[2];
	uint32_t region;
	pthread_t t[2];
	int i, done = 0;

	ASSERT_EQ(0, mwin_region_create(self->fd, 96 * 4096, 0, &region,
					NULL));
	for (i = 0; i < 96; i++) {
		w[i] = test_bind(region, mwpeer_id(self->a), i * 4096, 4096,
				 MWIN_ACCESS_READ, 0);
		ASSERT_EQ(0, mwin_window_create(self->fd, &w[i]));
	}
	for (i = 0; i < 2; i++) {
		r[i] = (struct one_peer_racer){ .fd = self->fd, .w = w + 48 * i,
						.n = 48, .done = &done };
		ASSERT_EQ(0, pthread_create(&t[i], NULL, one_peer_racer,
					    &r[i]));
	}
	while (__atomic_load_n(&done, __ATOMIC_ACQUIRE) < 2)
		mwpeer_poll(self->a, 5);
	for (i = 0; i < 2; i++) {
		pthread_join(t[i], NULL);
		EXPECT_EQ(0, r[i].errors);
	}
	drain(self->a);
	EXPECT_EQ(0, mwpeer_proto_errors(self->a, NULL));
	for (i = 0; i < 96; i++)
		EXPECT_EQ(MWIN_WINDOW_BOUND,
			  test_window_state(self->fd, w[i].id));
	EXPECT_EQ(0, mwin_region_destroy(self->fd, region,
					 MWIN_REGION_DESTROY_FORCE));
}

TEST_HARNESS_MAIN
