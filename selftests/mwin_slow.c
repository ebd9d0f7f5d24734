// SPDX-License-Identifier: GPL-2.0
/*
 * Slow peers: messages to a peer never wait for it. When all its send
 * slots are in flight they wait in its backlog, in order, and go out as
 * slots free; a peer whose backlog is full, or whose oldest backlogged
 * message waited op_timeout_ms, is disconnected (no-messages). A slow
 * tenant costs the others nothing: an honest tenant's connects, rebinds
 * and invalidates take as long beside it as without it.
 *
 * A slow peer here posts one receive (recv_depth 1) and reposts it only
 * when the test polls it: every SLOW_MS. The module's SENDs to it are
 * refused with RNR NAKs meanwhile and retried (every 655 ms on rxe), never
 * often enough to run out of retries (6 of them). iWARP has no RNR NAK: a
 * SEND that finds no receive ends the connection, so the tests of a slow
 * peer's SENDs skip on siw (SLOW_PEER_ONLY()).
 *
 * Every tenant here is named sl-*: the setup and teardown destroy them.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>

#include "mwin_test.h"

#define REGION_LEN	(1UL << 20)
#define PREFIX		"sl-"
#define SLOW_MS		150
#define MAX_SLOW	4
#define S_WINDOWS	8

#define SLOW_PEER_ONLY()						\
	TEST_RXE_ONLY("a slow peer's SENDs are retried after RNR NAKs; "	\
		      "on iWARP a SEND finding no receive ends the connection")

FIXTURE(slow)
{
	int fd;
	uint32_t region;
	unsigned long op_timeout_ms;
	/* the slow peers, polled every SLOW_MS by the poller alone */
	struct mwpeer *slow[MAX_SLOW];
	atomic_int nr_slow;
	atomic_bool stop;
	pthread_t poller;
	bool polling;
	struct mwpeer *other[MAX_SLOW];
	int nr_other;
};

static void *poll_slowly(void *arg)
{
	FIXTURE_DATA(slow) *self = arg;
	int i;

	while (!atomic_load(&self->stop)) {
		for (i = 0; i < atomic_load(&self->nr_slow); i++)
			mwpeer_poll(self->slow[i], 0);
		usleep(SLOW_MS * 1000);
	}
	return NULL;
}

FIXTURE_SETUP(slow)
{
	self->fd = mwin_open();
	ASSERT_LE(0, self->fd);
	test_destroy_tenants(self->fd, PREFIX);
	ASSERT_EQ(0, mwin_region_create(self->fd, REGION_LEN, 0, &self->region,
					NULL));
	self->op_timeout_ms = test_param("op_timeout_ms");
	ASSERT_LT(0, self->op_timeout_ms);
}

FIXTURE_TEARDOWN(slow)
{
	int i;

	atomic_store(&self->stop, true);
	if (self->polling)
		pthread_join(self->poller, NULL);
	for (i = 0; i < atomic_load(&self->nr_slow); i++)
		test_close_peer(self->fd, self->slow[i]);
	for (i = 0; i < self->nr_other; i++)
		test_close_peer(self->fd, self->other[i]);
	test_set_param("op_timeout_ms", self->op_timeout_ms);
	test_destroy_tenants(self->fd, PREFIX);
	mwin_region_destroy(self->fd, self->region, MWIN_REGION_DESTROY_FORCE);
	close(self->fd);
}

/* ---- helpers -------------------------------------------------------- */

/* A slow peer of tenant @name (NULL: anonymous), connected. */
static struct mwpeer *slow_peer(int fd, const char *name)
{
	struct mwpeer_opts o = { .timeout_ms = TEST_TIMEOUT_MS,
				 .recv_depth = 1, .rnr_retry_count = 6 };
	struct mwpeer *p;
	int err;

	p = test_peer_of(name, NULL, &o, &err);
	if (p && (err || test_wait_peer_state(fd, mwpeer_id(p),
					      MWIN_PEER_CONNECTED))) {
		mwpeer_close(p);
		p = NULL;
	}
	return p;
}

/* Hand @p to the poller, which from now on alone touches it. */
static void poll_slowly_too(FIXTURE_DATA(slow) *self, struct mwpeer *p)
{
	int n = atomic_load(&self->nr_slow);

	self->slow[n] = p;
	atomic_store(&self->nr_slow, n + 1);
	if (!self->polling)
		self->polling = !pthread_create(&self->poller, NULL,
						poll_slowly, self);
}

/* An honest peer of tenant @name, connected: its connect's ms, or -1. */
static int64_t honest_peer(FIXTURE_DATA(slow) *self, const char *name,
			   struct mwpeer **pp)
{
	int64_t t0 = test_now_ms();
	struct mwpeer *p;
	int err;

	p = test_peer_of(name, NULL, NULL, &err);
	if (!p)
		return -1;
	if (err || test_wait_peer_state(self->fd, mwpeer_id(p),
					MWIN_PEER_CONNECTED)) {
		mwpeer_close(p);
		return -1;
	}
	*pp = p;
	return test_now_ms() - t0;
}

/* Rebind tenant @t's window @b (its new rkey into @b): the call's ms. */
static int64_t rebind_tenant(int fd, struct mwin_window_bind *b, uint32_t t,
			     int *ret)
{
	struct mwin_window_bind n = test_bind(0, 0, b->offset, b->length,
					      MWIN_ACCESS_READ, 0);
	int64_t t0 = test_now_ms();

	n.id = b->id;
	n.tenant = t;
	*ret = mwin_window_rebind(fd, &n);
	if (!*ret)
		*b = n;
	return test_now_ms() - t0;
}

/* The slowest of an honest tenant's operations, in ms. */
struct times {
	int64_t connect, rebind, invalidate;
};

static void note(int64_t *worst, int64_t ms)
{
	if (ms > *worst)
		*worst = ms;
}

/*
 * Honest tenant @t, with its peer @h and window @w: connect another peer
 * (closed again), then rebinds, each rkey read through, and invalidates.
 */
static void honest_round(struct __test_metadata *_metadata,
			 FIXTURE_DATA(slow) *self, const char *name,
			 uint32_t t, struct mwpeer *h,
			 struct mwin_window_bind *w, struct times *worst)
{
	struct mwpeer *p = NULL;
	int64_t ms, t0;
	int i, ret;

	ms = honest_peer(self, name, &p);
	ASSERT_LE(0, ms);
	note(&worst->connect, ms);
	test_close_peer(self->fd, p);
	for (i = 0; i < 5; i++) {
		note(&worst->rebind, rebind_tenant(self->fd, w, t, &ret));
		ASSERT_EQ(0, ret);
		ASSERT_EQ(0, mwpeer_wait_grant(h, w->id, 0, NULL,
					       TEST_TIMEOUT_MS));
		EXPECT_EQ(IBV_WC_SUCCESS,
			  mwpeer_read(h, w->rkey, w->iova, NULL, 8));
		t0 = test_now_ms();
		ASSERT_EQ(0, mwin_window_invalidate(self->fd, w->id));
		note(&worst->invalidate, test_now_ms() - t0);
		EXPECT_EQ(MWIN_WINDOW_INVALIDATED,
			  test_window_state(self->fd, w->id));
	}
}

/* Rebinds tenant S's windows until told to stop. */
struct churn {
	int fd;
	uint32_t tenant;
	struct mwin_window_bind *w;
	atomic_bool stop;
	unsigned int rebinds;
	int64_t started_ms;
};

static void *churn_run(void *arg)
{
	struct churn *c = arg;
	unsigned int i = 0;
	int ret;

	c->started_ms = test_now_ms();
	while (!atomic_load(&c->stop)) {
		rebind_tenant(c->fd, &c->w[i++ % S_WINDOWS], c->tenant, &ret);
		if (!ret)
			c->rebinds++;
		usleep(40000);	/* its backlog grows, and is not full in time */
	}
	return NULL;
}

/* Wait up to @ms for peer @id to be gone: its down reason, or 0. */
static uint32_t gone_within(int fd, uint32_t id, int64_t ms)
{
	int64_t end = test_now_ms() + ms;

	while (test_now_ms() < end) {
		if (mwin_peer_get(fd, id, 0, &(struct mwin_peer_info){}) ==
		    -ENOENT)
			return test_gone_reason(fd, id);
		usleep(20000);
	}
	return 0;
}

/* Another slow peer of tenant @name, connected by a thread of its own. */
struct joiner {
	int fd;
	const char *name;
	struct mwpeer *p;
};

static void *join_run(void *arg)
{
	struct joiner *j = arg;

	j->p = slow_peer(j->fd, j->name);
	return NULL;
}

/* ---- tests ---------------------------------------------------------- */

/*
 * Tenant S's peers take their messages slowly while S's windows are
 * rebound over and over, and S connects again meanwhile; honest tenant H's
 * connects, rebinds and invalidates take no longer than they did before S
 * began: far below op_timeout_ms, which is what a wait for S's send slots
 * under a lock H needs would cost. S's peers go once their oldest message
 * waited op_timeout_ms (no-messages); S keeps its windows.
 */
TEST_F(slow, slow_tenant_costs_others_nothing)
{
	uint32_t h_t, s_t, s1, s2;
	struct mwin_window_bind hw, sw[S_WINDOWS];
	struct times base = { 0 }, busy = { 0 };
	struct churn c = { .fd = self->fd, .w = sw };
	struct joiner j = { .fd = self->fd, .name = PREFIX "s" };
	int64_t bound = self->op_timeout_ms / 4, gone_ms;
	struct mwin_window_info wi;
	struct mwpeer *h = NULL, *s;
	pthread_t ct, jt;
	uint32_t why;
	int i;

	SLOW_PEER_ONLY();
	h_t = test_make_tenant(self->fd, PREFIX "h", NULL, MWIN_NO_OWNER);
	s_t = test_make_tenant(self->fd, PREFIX "s", NULL, MWIN_NO_OWNER);
	ASSERT_NE(0, h_t);
	ASSERT_NE(0, s_t);
	ASSERT_LE(0, honest_peer(self, PREFIX "h", &h));
	self->other[self->nr_other++] = h;
	ASSERT_EQ(0, test_grant_tenant(self->fd, self->region, h_t, 0, 4096,
				       MWIN_ACCESS_READ, &hw));

	/* H alone */
	honest_round(_metadata, self, PREFIX "h", h_t, h, &hw, &base);
	TH_LOG("H alone: connect %lld ms, rebind %lld ms, invalidate %lld ms (slowest)",
	       (long long)base.connect, (long long)base.rebind,
	       (long long)base.invalidate);

	/* S: a slow peer, its windows rebound over and over */
	s = slow_peer(self->fd, PREFIX "s");
	ASSERT_NE(NULL, s);
	s1 = mwpeer_id(s);
	for (i = 0; i < S_WINDOWS; i++)
		ASSERT_EQ(0, test_grant_tenant(self->fd, self->region, s_t,
					       65536 + i * 4096, 4096,
					       MWIN_ACCESS_READ, &sw[i]));
	poll_slowly_too(self, s);
	c.tenant = s_t;
	ASSERT_EQ(0, pthread_create(&ct, NULL, churn_run, &c));
	/* its slots fill (32 SENDs), its backlog begins */
	usleep(3000000);

	/* S connects again, granted its windows, as slow; H meanwhile */
	ASSERT_EQ(0, pthread_create(&jt, NULL, join_run, &j));
	honest_round(_metadata, self, PREFIX "h", h_t, h, &hw, &busy);
	pthread_join(jt, NULL);
	ASSERT_NE(NULL, j.p);
	s2 = mwpeer_id(j.p);
	poll_slowly_too(self, j.p);

	TH_LOG("H beside slow S: connect %lld ms, rebind %lld ms, invalidate %lld ms (slowest); S rebound %u times",
	       (long long)busy.connect, (long long)busy.rebind,
	       (long long)busy.invalidate, c.rebinds);
	EXPECT_GT(bound, busy.connect);
	EXPECT_GT(bound, busy.rebind);
	EXPECT_GT(bound, busy.invalidate);

	/* S's backlog began 32 rebinds in: it goes op_timeout_ms later */
	why = gone_within(self->fd, s1, self->op_timeout_ms + 20000);
	gone_ms = test_now_ms() - c.started_ms;
	TH_LOG("S's first peer gone %lld ms after its churn began",
	       (long long)gone_ms);
	EXPECT_EQ(MWIN_DOWN_NO_MESSAGES, why);
	EXPECT_GT((int64_t)self->op_timeout_ms + 20000, gone_ms);
	EXPECT_LE((int64_t)self->op_timeout_ms, gone_ms);
	EXPECT_EQ(MWIN_DOWN_NO_MESSAGES,
		  gone_within(self->fd, s2, self->op_timeout_ms + 20000));
	atomic_store(&c.stop, true);
	pthread_join(ct, NULL);

	/* S's windows stay S's, waiting for its next connection */
	for (i = 0; i < S_WINDOWS; i++) {
		ASSERT_EQ(0, mwin_window_get(self->fd, sw[i].id, 0, &wi));
		EXPECT_EQ(s_t, wi.tenant);
	}
	/* and H still works */
	base = (struct times){ 0 };
	honest_round(_metadata, self, PREFIX "h", h_t, h, &hw, &base);
}

/* Rebinds tenant S's windows, without a pause, @n times. */
struct burst {
	int fd;
	uint32_t tenant;
	struct mwin_window_bind *w;
	int n;
};

static void *burst_run(void *arg)
{
	struct burst *b = arg;
	int i, ret;

	for (i = 0; i < b->n; i++)
		rebind_tenant(b->fd, &b->w[i % S_WINDOWS], b->tenant, &ret);
	return NULL;
}

/*
 * Tenant S's peer takes nothing at all (one receive, never posted again):
 * its SENDs are retried until its QP fails, seconds later. Meanwhile S's
 * windows are rebound past its 32 send slots, and S connects again, which
 * needs S's tenant PD; then honest tenant H connects. Had a message to S
 * waited for a send slot under S's pd_lock, S's connect would wait for it
 * under mwin_devs_lock, and H's behind it, until S's QP failed: seconds.
 * H's connect takes its usual time.
 */
TEST_F(slow, stalled_tenant_holds_up_no_connect)
{
	struct mwin_window_bind sw[S_WINDOWS];
	struct joiner j = { .fd = self->fd, .name = PREFIX "s" };
	struct burst bu = { .fd = self->fd, .w = sw, .n = 80 };
	int64_t bound = self->op_timeout_ms / 4, alone, busy;
	struct mwpeer *h = NULL, *s;
	pthread_t bt, jt;
	uint32_t s_t;
	int i;

	SLOW_PEER_ONLY();
	ASSERT_NE(0, test_make_tenant(self->fd, PREFIX "h", NULL,
				      MWIN_NO_OWNER));
	s_t = test_make_tenant(self->fd, PREFIX "s", NULL, MWIN_NO_OWNER);
	ASSERT_NE(0, s_t);
	alone = honest_peer(self, PREFIX "h", &h);
	ASSERT_LE(0, alone);
	test_close_peer(self->fd, h);

	s = slow_peer(self->fd, PREFIX "s");
	ASSERT_NE(NULL, s);
	self->other[self->nr_other++] = s;	/* never polled */
	for (i = 0; i < S_WINDOWS; i++)
		ASSERT_EQ(0, test_grant_tenant(self->fd, self->region, s_t,
					       65536 + i * 4096, 4096,
					       MWIN_ACCESS_READ, &sw[i]));
	bu.tenant = s_t;
	ASSERT_EQ(0, pthread_create(&bt, NULL, burst_run, &bu));
	usleep(500000);		/* its slots full */
	ASSERT_EQ(0, pthread_create(&jt, NULL, join_run, &j));
	usleep(200000);		/* S's connect under way */
	busy = honest_peer(self, PREFIX "h", &h);
	ASSERT_LE(0, busy);
	self->other[self->nr_other++] = h;
	TH_LOG("H's connect: alone %lld ms, beside stalled S %lld ms",
	       (long long)alone, (long long)busy);
	EXPECT_GT(bound, busy);
	pthread_join(bt, NULL);
	pthread_join(jt, NULL);
	if (j.p)
		self->other[self->nr_other++] = j.p;
}

/*
 * A peer that stalls, then resumes, gets every message in order: no gap,
 * revoke before grant for each rebind, the last grant the current rkey.
 * It keeps its 64 receives posted, but takes in its messages (and posts
 * its receives again) only every second and a half while N rebinds go
 * on, two messages each: 64 SENDs taken, 32 in flight, the rest
 * backlogged. Then it resumes, at once: its oldest message waited far
 * less than op_timeout_ms.
 */
TEST_F(slow, backlog_keeps_order)
{
	struct mwpeer_opts o = { .timeout_ms = TEST_TIMEOUT_MS,
				 .rnr_retry_count = 6 };
	enum { N = 300 };
	static uint32_t rkeys[N + 1];
	struct mwin_window_bind b;
	struct mwpeer_msg m;
	uint32_t seq, id;
	int64_t polled;
	struct mwpeer *p;
	int i, err;

	p = test_peer_of(NULL, NULL, &o, &err);
	ASSERT_NE(NULL, p);
	self->other[self->nr_other++] = p;
	ASSERT_EQ(0, err);
	id = mwpeer_id(p);
	b = test_bind(self->region, id, 0, 4096, MWIN_ACCESS_READ, 0);
	ASSERT_EQ(0, mwin_window_create(self->fd, &b));
	rkeys[0] = b.rkey;
	polled = test_now_ms();
	for (i = 1; i <= N; i++) {
		ASSERT_EQ(0, test_rebind(self->fd, &b, id, 0, 4096,
					 MWIN_ACCESS_READ));
		rkeys[i] = b.rkey;
		if (test_now_ms() - polled > 1500) {
			mwpeer_poll(p, 0);
			polled = test_now_ms();
		}
	}
	TH_LOG("%d rebinds in %lld ms", N, (long long)(test_now_ms() - polled));
	/* resume: every message, in order */
	EXPECT_EQ(MWIN_PEER_CONNECTED, test_peer_state(self->fd, id));
	ASSERT_EQ(0, mwpeer_next_msg(p, &m, TEST_TIMEOUT_MS));
	EXPECT_EQ(MWIN_WIRE_GRANT, m.type);
	EXPECT_EQ(rkeys[0], m.rkey);
	seq = m.seq;
	for (i = 1; i <= N; i++) {
		ASSERT_EQ(0, mwpeer_next_msg(p, &m, TEST_TIMEOUT_MS));
		EXPECT_EQ(++seq, m.seq);
		EXPECT_EQ(0, m.missed);
		EXPECT_EQ(MWIN_WIRE_REVOKE, m.type);
		EXPECT_EQ(rkeys[i - 1], m.rkey);
		ASSERT_EQ(0, mwpeer_next_msg(p, &m, TEST_TIMEOUT_MS));
		EXPECT_EQ(++seq, m.seq);
		EXPECT_EQ(0, m.missed);
		EXPECT_EQ(MWIN_WIRE_GRANT, m.type);
		EXPECT_EQ(rkeys[i], m.rkey);
		if (m.seq != seq)
			break;
	}
	ASSERT_EQ(0, mwpeer_grant(p, b.id, &m));
	EXPECT_EQ(b.rkey, m.rkey);
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_read(p, b.rkey, b.iova, NULL, 8));
	EXPECT_EQ(0, test_gone_reason(self->fd, id));
}

/* MWIN_WINDOW_BATCH of @n entries at @ops: its entries that failed. */
static uint32_t run_batch(int fd, struct mwin_batch_op *ops, uint32_t n)
{
	struct mwin_window_batch cmd = {
		.size = sizeof(cmd),
		.count = n,
		.op_size = sizeof(*ops),
		.ops = (uintptr_t)ops,
	};

	return mwin_ioctl(fd, MWIN_WINDOW_BATCH, &cmd) ? n : cmd.failed;
}

/*
 * A peer whose backlog fills goes at once, not op_timeout_ms later: with
 * op_timeout_ms at a minute, it is gone within seconds, for no-messages.
 * Single calls go at the pace of the peer they send to, and do not fill a
 * backlog; batches of rebinds (512 messages each) do.
 */
TEST_F(slow, full_backlog_disconnects_at_once)
{
	static struct mwin_batch_op ops[MWIN_BATCH_MAX];
	static struct mwin_batch_op rebinds[MWIN_BATCH_MAX];
	struct mwin_window_bind b;
	int64_t t0, ms;
	unsigned int n = 0;
	struct mwpeer *p;
	uint32_t id;
	int i;

	SLOW_PEER_ONLY();
	ASSERT_EQ(0, test_set_param("op_timeout_ms", 60000));
	p = slow_peer(self->fd, NULL);
	ASSERT_NE(NULL, p);
	id = mwpeer_id(p);
	poll_slowly_too(self, p);
	for (i = 0; i < MWIN_BATCH_MAX; i++) {
		b = test_bind(self->region, id, i * 4096, 4096,
			      MWIN_ACCESS_READ, 0);
		ASSERT_EQ(0, mwin_window_create(self->fd, &b));
		rebinds[i] = (struct mwin_batch_op){ .opcode = MWIN_BATCH_REBIND,
						 .id = b.id,
						 .offset = i * 4096,
						 .length = 4096,
						 .access = MWIN_ACCESS_READ };
	}
	t0 = test_now_ms();
	do {
		/* the results came back in them */
		memcpy(ops, rebinds, sizeof(ops));
		n++;
	} while (!run_batch(self->fd, ops, MWIN_BATCH_MAX) &&
		 test_now_ms() - t0 < 30000);
	ms = test_now_ms() - t0;
	TH_LOG("batch %u failed, after %lld ms", n, (long long)ms);
	EXPECT_EQ(MWIN_DOWN_NO_MESSAGES, gone_within(self->fd, id, 10000));
	/* 256 grants and one batch's 512 messages do not fill it */
	EXPECT_LE(2, n);
	EXPECT_GT(30000, ms);
}

TEST_HARNESS_MAIN
