// SPDX-License-Identifier: GPL-2.0
/*
 * Grants to a tenant as a whole: WINDOW_CREATE and WINDOW_REBIND with
 * @tenant register the window in the tenant's protection domain, so its
 * one rkey works through every live connection of the tenant and through
 * no one else's. Every connection is told of its grants and revokes, one
 * that authenticates later too; one that fails an access is dropped
 * alone; the last one gone leaves the window unbound, its rkey dead for
 * good, until the tenant connects again and is granted a new one. Then
 * the tenant's counters, the refusals, batch entries naming a tenant, the
 * lease of a window waiting for a connection, and TENANT_DESTROY under
 * traffic.
 *
 * Every tenant here is named tg-*: the setup and teardown destroy them,
 * so that a test killed by its timeout leaves none to the next.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <pthread.h>
#include <sys/stat.h>

#include "mwin_test.h"

#define REGION_LEN	(1UL << 20)
#define PREFIX		"tg-"
#define MAX_PEERS	8
/* the bytes the attacks of three_tenants_one_region might reach */
#define WATCHED		(3 * 4096)
#define USER_OWNER	60021
#define USER_OTHER	60022

static const uint8_t tenant_key[TEST_KEY_LEN] =
	"tenant-grants key: 31 bytes, ok";	/* and a NUL */

FIXTURE(grants)
{
	int fd;
	uint32_t region;
	uint8_t *mem;
	struct mwin_info before;	/* peers before the test */
	int qps;			/* QPs before the test */
	struct mwpeer *peers[MAX_PEERS];
	int n;
};

FIXTURE_SETUP(grants)
{
	self->fd = mwin_open();
	ASSERT_LE(0, self->fd);
	test_destroy_tenants(self->fd, PREFIX);
	ASSERT_EQ(0, mwin_region_create(self->fd, REGION_LEN, 0, &self->region,
					NULL));
	self->mem = mwin_region_mmap(self->fd, self->region, NULL);
	ASSERT_NE(NULL, self->mem);
	ASSERT_EQ(0, mwin_info(self->fd, &self->before, NULL, 0));
	self->qps = test_count_qps();
}

FIXTURE_TEARDOWN(grants)
{
	int i;

	/* gone before the next test counts peers and QPs */
	for (i = 0; i < self->n; i++)
		if (self->peers[i])
			test_close_peer(self->fd, self->peers[i]);
	test_destroy_tenants(self->fd, PREFIX);
	if (self->mem)
		munmap(self->mem, REGION_LEN);
	mwin_region_destroy(self->fd, self->region, MWIN_REGION_DESTROY_FORCE);
	close(self->fd);
}

/* ---- helpers -------------------------------------------------------- */

/* A window of the fixture's region for tenant @t: WINDOW_CREATE's result. */
static int grant(FIXTURE_DATA(grants) *self, uint32_t t, uint64_t off,
		 uint64_t len, uint32_t access, struct mwin_window_bind *b)
{
	return test_grant_tenant(self->fd, self->region, t, off, len, access,
				 b);
}

/* A tenant @name with the key tenant_key, owned by no one. */
static uint32_t keyed_tenant(int fd, const char *name)
{
	return test_make_tenant(fd, name, tenant_key, MWIN_NO_OWNER);
}

/* @p, for the teardown to close. */
static struct mwpeer *keep(FIXTURE_DATA(grants) *self, struct mwpeer *p)
{
	if (p && self->n < MAX_PEERS)
		self->peers[self->n++] = p;
	return p;
}

/* Close @p now: the teardown forgets it. */
static void leave(FIXTURE_DATA(grants) *self, struct mwpeer *p)
{
	int i;

	for (i = 0; i < self->n; i++)
		if (self->peers[i] == p)
			self->peers[i] = NULL;
	test_close_peer(self->fd, p);
}

/*
 * A connection of tenant @name with @key (NULL: none) that proved it: the
 * module has it CONNECTED, so windows may be granted to it.
 */
static struct mwpeer *join(struct __test_metadata *_metadata,
			   FIXTURE_DATA(grants) *self, const char *name,
			   const uint8_t *key)
{
	struct mwpeer *p;
	int err;

	ASSERT_GT(MAX_PEERS, self->n);
	p = keep(self, test_peer_of(name, key, NULL, &err));
	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, err);
	ASSERT_EQ(0, test_wait_peer_state(self->fd, mwpeer_id(p),
					  MWIN_PEER_CONNECTED));
	return p;
}

/* @p connects again, as a new peer of the same tenant, and proves it. */
static void rejoin(struct __test_metadata *_metadata, int fd,
		   struct mwpeer *p)
{
	ASSERT_EQ(0, mwpeer_reconnect(p));
	ASSERT_EQ(0, test_wait_peer_state(fd, mwpeer_id(p),
					  MWIN_PEER_CONNECTED));
}

/* @p is told of window @b's grant, as WINDOW_CREATE returned it. */
static void expect_grant(struct __test_metadata *_metadata, struct mwpeer *p,
			 const struct mwin_window_bind *b)
{
	struct mwpeer_msg m;

	ASSERT_EQ(0, mwpeer_wait_grant(p, b->id, 0, &m, TEST_TIMEOUT_MS));
	EXPECT_EQ(b->rkey, m.rkey);
	EXPECT_EQ(b->iova, m.iova);
	EXPECT_EQ(b->length, m.length);
	EXPECT_EQ(b->access, m.access);
}

/* ---- three tenants, one region ------------------------------------- */

/* One tenant of three_tenants_one_region: its connection and window. */
struct party {
	const char *name;
	const uint8_t *key;
	uint32_t access;
	uint64_t off;
	uint64_t len;
	uint32_t tenant;
	struct mwpeer *p;
	struct mwin_window_bind b;	/* .rkey: the one granted now */
};

enum op { OP_READ, OP_WRITE, OP_FADD, NR_OPS };

static const uint32_t op_right[NR_OPS] = {
	[OP_READ] = MWIN_ACCESS_READ,
	[OP_WRITE] = MWIN_ACCESS_WRITE,
	[OP_FADD] = MWIN_ACCESS_ATOMIC,
};

static const char *const op_name[NR_OPS] = {
	[OP_READ] = "read", [OP_WRITE] = "write", [OP_FADD] = "fetch-add",
};

/* @op through @p on the first 8 bytes of window @b, with its rkey */
static int do_op(struct mwpeer *p, const struct mwin_window_bind *b,
		 enum op op)
{
	uint64_t old;

	switch (op) {
	case OP_READ:
		return mwpeer_read(p, b->rkey, b->iova, NULL, 8);
	case OP_WRITE:
		return mwpeer_write(p, b->rkey, b->iova, "XXXXXXXX", 8);
	default:
		return mwpeer_fadd(p, b->rkey, b->iova, 1, &old);
	}
}

/*
 * What @x may do through its own window without changing a byte of
 * @mem: read, add 0, or write back the bytes that are there.
 */
static int probe(const struct party *x, const uint8_t *mem)
{
	uint64_t old;

	if (x->access & MWIN_ACCESS_READ)
		return mwpeer_read(x->p, x->b.rkey, x->b.iova, NULL, 8);
	if (x->access & MWIN_ACCESS_ATOMIC)
		return mwpeer_fadd(x->p, x->b.rkey, x->b.iova, 0, &old);
	return mwpeer_write(x->p, x->b.rkey, x->b.iova, mem + x->b.iova, 8);
}

/* @x's window, bound with the same rkey, its connection up and working */
static void expect_intact(struct __test_metadata *_metadata, int fd,
			  const struct party *x, const uint8_t *mem)
{
	struct mwin_window_info wi;

	ASSERT_EQ(0, mwin_window_get(fd, x->b.id, 0, &wi));
	EXPECT_EQ(MWIN_WINDOW_BOUND, wi.state);
	EXPECT_EQ(x->b.rkey, wi.rkey);
	EXPECT_EQ(mwpeer_id(x->p), wi.peer);
	EXPECT_EQ(x->tenant, wi.tenant);
	EXPECT_EQ(MWIN_PEER_CONNECTED, test_peer_state(fd, mwpeer_id(x->p)));
	EXPECT_EQ(IBV_WC_SUCCESS, probe(x, mem));
}

/*
 * @x lost its only connection: its window waits unbound, still its. It
 * connects again and is granted the window anew, with a new rkey.
 */
static void expect_regranted(struct __test_metadata *_metadata, int fd,
			     struct party *x)
{
	struct mwin_window_info wi;
	struct mwpeer_msg m;
	uint32_t old = x->b.rkey;

	ASSERT_EQ(0, test_wait_window(fd, x->b.id, MWIN_WINDOW_UNBOUND, &wi));
	EXPECT_EQ(0, wi.peer);
	EXPECT_EQ(x->tenant, wi.tenant);
	rejoin(_metadata, fd, x->p);
	ASSERT_EQ(0, mwpeer_wait_grant(x->p, x->b.id, old, &m,
				       TEST_TIMEOUT_MS));
	EXPECT_NE(old, m.rkey);
	ASSERT_EQ(0, mwin_window_get(fd, x->b.id, 0, &wi));
	EXPECT_EQ(MWIN_WINDOW_BOUND, wi.state);
	EXPECT_EQ(m.rkey, wi.rkey);
	EXPECT_EQ(mwpeer_id(x->p), wi.peer);
	x->b.rkey = m.rkey;
}

/*
 * @x[by] tries @op on @x[on]'s window through its own connection, which
 * it may not: a remote access error, and the module drops that connection
 * alone. The others keep their windows, rkeys and connections, and the
 * region its bytes; the attacker is granted its window again.
 */
static void attack(struct __test_metadata *_metadata,
		   FIXTURE_DATA(grants) *self, struct party *x, int by,
		   int on, enum op op)
{
	uint8_t before[WATCHED];
	uint32_t id = mwpeer_id(x[by].p);
	int i;

	TH_LOG("%s: %s with %s's rkey", x[by].name, op_name[op], x[on].name);
	memcpy(before, self->mem, WATCHED);
	EXPECT_ACCESS_REFUSED(x[by].p, do_op(x[by].p, &x[on].b, op));
	ASSERT_EQ(0, test_wait_peer_gone(self->fd, id));
	EXPECT_EQ(0, memcmp(before, self->mem, WATCHED));
	for (i = 0; i < 3; i++)
		if (i != by)
			expect_intact(_metadata, self->fd, &x[i], self->mem);
	expect_regranted(_metadata, self->fd, &x[by]);
}

/* Each uses its own window with its own rights. */
static void use_own_rights(struct __test_metadata *_metadata,
			   FIXTURE_DATA(grants) *self, struct party *x,
			   bool atomics)
{
	uint64_t old = 0, *word = (uint64_t *)(self->mem + x[2].off);
	char buf[16];

	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_read(x[0].p, x[0].b.rkey,
					      x[0].b.iova, buf, 16));
	EXPECT_EQ(0, memcmp(buf, "aaaaaaaaaaaaaaaa", 16));
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_write(x[1].p, x[1].b.rkey,
					       x[1].b.iova, "bbbbbbbb", 8));
	EXPECT_EQ(0, memcmp(self->mem + x[1].off, "bbbbbbbb", 8));
	if (!atomics)
		return;
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_cas(x[2].p, x[2].b.rkey, x[2].b.iova,
					     5, 7, &old));
	EXPECT_EQ(5, old);
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_fadd(x[2].p, x[2].b.rkey,
					      x[2].b.iova, 3, &old));
	EXPECT_EQ(7, old);
	EXPECT_EQ(10, *word);
}

/*
 * Tenants A (with a key), B and C, one region: A's window read-only, B's
 * write-only, C's atomic-only (read-write where the device has no
 * atomics). Each works with its own rights; every right it lacks and
 * every rkey not its own fails, through its own connection, and hurts no
 * one else; an anonymous peer gets nowhere either. An invalidate of B's
 * window is told to B, and A and C go on.
 */
TEST_F_TIMEOUT(grants, three_tenants_one_region, 300)
{
	struct party x[3] = {
		{ .name = PREFIX "a", .key = tenant_key,
		  .access = MWIN_ACCESS_READ, .off = 0, .len = 4096 },
		{ .name = PREFIX "b", .access = MWIN_ACCESS_WRITE,
		  .off = 4096, .len = 4096 },
		{ .name = PREFIX "c", .access = MWIN_ACCESS_ATOMIC,
		  .off = 8192, .len = 64 },
	};
	struct mwpeer *anon;
	struct mwpeer_msg m;
	int i, by, on, op, err;
	bool atomics;

	for (i = 0; i < 3; i++) {
		x[i].tenant = test_make_tenant(self->fd, x[i].name, x[i].key,
					       MWIN_NO_OWNER);
		ASSERT_NE(0, x[i].tenant);
		x[i].p = join(_metadata, self, x[i].name, x[i].key);
	}
	atomics = test_dev_atomics(self->fd, mwpeer_dev_name(x[2].p));
	if (!atomics) {
		TH_LOG("%s has no atomics: C's window is read-write",
		       mwpeer_dev_name(x[2].p));
		x[2].access = MWIN_ACCESS_READ | MWIN_ACCESS_WRITE;
	}
	memset(self->mem, 'a', x[0].len);
	*(uint64_t *)(self->mem + x[2].off) = 5;
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, grant(self, x[i].tenant, x[i].off, x[i].len,
				   x[i].access, &x[i].b));
		expect_grant(_metadata, x[i].p, &x[i].b);
	}
	use_own_rights(_metadata, self, x, atomics);
	for (i = 0; i < 3; i++)
		expect_intact(_metadata, self->fd, &x[i], self->mem);

	for (by = 0; by < 3; by++)
		for (on = 0; on < 3; on++)
			for (op = 0; op < NR_OPS; op++) {
				bool allowed = x[on].access & op_right[op];

				if (op == OP_FADD && !atomics)
					continue;
				if (by == on ? !allowed : allowed)
					attack(_metadata, self, x, by, on, op);
			}

	/* a stranger: no tenant at all */
	anon = keep(self, test_peer_of(NULL, NULL, NULL, &err));
	if (!anon || err) {
		TH_LOG("no anonymous peer (%d): that part skipped", err);
	} else {
		EXPECT_ACCESS_REFUSED(anon,
			  do_op(anon, &x[0].b, OP_READ));
		EXPECT_EQ(0, test_wait_peer_gone(self->fd, mwpeer_id(anon)));
		for (i = 0; i < 3; i++)
			expect_intact(_metadata, self->fd, &x[i], self->mem);
	}

	/* B's window invalidated: B is told, A and C go on */
	ASSERT_EQ(0, mwin_window_invalidate(self->fd, x[1].b.id));
	ASSERT_EQ(0, test_next_about(x[1].p, MWIN_WIRE_REVOKE, x[1].b.id, &m));
	EXPECT_EQ(x[1].b.rkey, m.rkey);
	EXPECT_EQ(MWIN_REVOKE_INVALIDATE, m.access);
	EXPECT_EQ(MWIN_WINDOW_INVALIDATED,
		  test_window_state(self->fd, x[1].b.id));
	expect_intact(_metadata, self->fd, &x[0], self->mem);
	expect_intact(_metadata, self->fd, &x[2], self->mem);
	EXPECT_FALSE(test_told_about(x[0].p, 0, x[1].b.id));
	EXPECT_FALSE(test_told_about(x[2].p, 0, x[1].b.id));
	for (i = 0; i < 3; i++)
		EXPECT_EQ(0, mwpeer_proto_errors(x[i].p, NULL));
}

/* ---- two connections, one rkey ------------------------------------- */

/*
 * A tenant with two connections and one window: both are granted the
 * same rkey and use it. A bad access on the first drops the first alone;
 * the second goes on with the same rkey and now carries the window. The
 * first connects again and is granted that same rkey.
 */
TEST_F(grants, two_connections_one_rkey)
{
	uint32_t t = keyed_tenant(self->fd, PREFIX "two");
	struct mwin_window_bind b;
	struct mwin_window_info wi;
	struct mwpeer *p1, *p2;
	struct mwpeer_msg m;
	uint32_t id1, id2;
	char buf[16];

	ASSERT_NE(0, t);
	p1 = join(_metadata, self, PREFIX "two", tenant_key);
	p2 = join(_metadata, self, PREFIX "two", tenant_key);
	id1 = mwpeer_id(p1);
	id2 = mwpeer_id(p2);
	ASSERT_EQ(0, grant(self, t, 0, 8192,
			   MWIN_ACCESS_READ | MWIN_ACCESS_WRITE, &b));
	expect_grant(_metadata, p1, &b);
	expect_grant(_metadata, p2, &b);
	ASSERT_EQ(0, mwin_window_get(self->fd, b.id, 0, &wi));
	EXPECT_EQ(MWIN_WINDOW_BOUND, wi.state);
	EXPECT_EQ(t, wi.tenant);
	EXPECT_EQ(b.rkey, wi.rkey);
	EXPECT_TRUE(wi.peer == id1 || wi.peer == id2);

	/* both reach it, each reads what the other wrote */
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_write(p1, b.rkey, 0, "from one", 8));
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_write(p2, b.rkey, 100, "from two", 8));
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_read(p1, b.rkey, 100, buf, 8));
	EXPECT_EQ(0, memcmp(buf, "from two", 8));
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_read(p2, b.rkey, 0, buf, 8));
	EXPECT_EQ(0, memcmp(buf, "from one", 8));
	EXPECT_EQ(0, memcmp(self->mem + 100, "from two", 8));

	/* the first reads past the end: it alone is dropped */
	EXPECT_ACCESS_REFUSED(p1,
		  mwpeer_read(p1, b.rkey, 8192, NULL, 1));
	ASSERT_EQ(0, test_wait_peer_gone(self->fd, id1));
	ASSERT_EQ(0, test_wait_window_peer(self->fd, b.id, id2, &wi));
	EXPECT_EQ(b.rkey, wi.rkey);
	EXPECT_EQ(t, wi.tenant);
	EXPECT_EQ(MWIN_PEER_CONNECTED, test_peer_state(self->fd, id2));
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_write(p2, b.rkey, 200, "two more", 8));
	EXPECT_EQ(0, memcmp(self->mem + 200, "two more", 8));
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_read(p2, b.rkey, 0, buf, 8));
	/* nothing was revoked: the second was told of no revoke */
	EXPECT_FALSE(test_told_about(p2, MWIN_WIRE_REVOKE, b.id));
	EXPECT_EQ(0, mwpeer_grant(p2, b.id, &m));
	EXPECT_EQ(b.rkey, m.rkey);

	/* the first again: the same rkey, granted to it */
	rejoin(_metadata, self->fd, p1);
	ASSERT_EQ(0, mwpeer_wait_grant(p1, b.id, 0, &m, TEST_TIMEOUT_MS));
	EXPECT_EQ(b.rkey, m.rkey);
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_read(p1, b.rkey, 200, buf, 8));
	EXPECT_EQ(0, memcmp(buf, "two more", 8));
	ASSERT_EQ(0, mwin_window_get(self->fd, b.id, 0, &wi));
	EXPECT_EQ(b.rkey, wi.rkey);
	EXPECT_EQ(0, mwpeer_proto_errors(p1, NULL));
	EXPECT_EQ(0, mwpeer_proto_errors(p2, NULL));
}

/*
 * A proved connection of another tenant invalidates this tenant's rkey
 * (rxe performs it across PDs): it is dropped, and the tenant loses one
 * rkey, not its access: each of its connections is told the rkey is dead
 * (reason remote) and granted a new one, which works through both.
 */
TEST_F(grants, foreign_invalidation_costs_one_rkey)
{
	uint32_t t = keyed_tenant(self->fd, PREFIX "victim");
	uint32_t u = keyed_tenant(self->fd, PREFIX "thief");
	struct mwpeer *p1, *p2, *x;
	struct mwin_window_bind b;
	struct mwin_window_info wi;
	struct mwpeer_msg m1, m2;
	uint32_t xid;
	char buf[8];

	ASSERT_NE(0, t);
	ASSERT_NE(0, u);
	p1 = join(_metadata, self, PREFIX "victim", tenant_key);
	p2 = join(_metadata, self, PREFIX "victim", tenant_key);
	x = join(_metadata, self, PREFIX "thief", tenant_key);
	xid = mwpeer_id(x);
	ASSERT_EQ(0, grant(self, t, 0, 8192, MWIN_ACCESS_READ, &b));
	expect_grant(_metadata, p1, &b);
	expect_grant(_metadata, p2, &b);
	memcpy(self->mem, "victim's", 8);

	mwpeer_send_inv(x, b.rkey);
	ASSERT_EQ(0, test_wait_peer_gone(self->fd, xid));
	ASSERT_EQ(0, test_next_about(p1, MWIN_WIRE_REVOKE, b.id, &m1));
	EXPECT_EQ(b.rkey, m1.rkey);
	EXPECT_EQ(MWIN_REVOKE_REMOTE, m1.access);
	ASSERT_EQ(0, mwpeer_wait_grant(p1, b.id, b.rkey, &m1,
				       TEST_TIMEOUT_MS));
	ASSERT_EQ(0, mwpeer_wait_grant(p2, b.id, b.rkey, &m2,
				       TEST_TIMEOUT_MS));
	EXPECT_NE(b.rkey, m1.rkey);
	EXPECT_EQ(m1.rkey, m2.rkey);
	ASSERT_EQ(0, mwin_window_get(self->fd, b.id, 0, &wi));
	EXPECT_EQ(MWIN_WINDOW_BOUND, wi.state);
	EXPECT_EQ(m1.rkey, wi.rkey);
	EXPECT_EQ(t, wi.tenant);
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_read(p1, m1.rkey, 0, buf, 8));
	EXPECT_EQ(0, memcmp(buf, "victim's", 8));
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_read(p2, m1.rkey, 0, buf, 8));
	EXPECT_EQ(MWIN_PEER_CONNECTED, test_peer_state(self->fd,
							mwpeer_id(p1)));
	EXPECT_EQ(MWIN_DOWN_HOSTILE, test_gone_reason(self->fd, xid));
}

/* ---- the last connection gone -------------------------------------- */

/*
 * The tenant's only connection goes: the window waits unbound, still the
 * tenant's. Its next connection is granted it with a new rkey, which
 * works, while the old one is dead through it too; and so again.
 */
TEST_F(grants, last_connection_gone)
{
	uint32_t t = keyed_tenant(self->fd, PREFIX "last");
	struct mwin_window_bind b;
	struct mwin_window_info wi;
	struct mwin_tenant_info ti;
	struct mwpeer *p, *q, *r;
	struct mwpeer_msg m, n;
	uint32_t id, old;
	char buf[8];

	ASSERT_NE(0, t);
	p = join(_metadata, self, PREFIX "last", tenant_key);
	id = mwpeer_id(p);
	ASSERT_EQ(0, grant(self, t, 4096, 4096,
			   MWIN_ACCESS_READ | MWIN_ACCESS_WRITE, &b));
	expect_grant(_metadata, p, &b);
	old = b.rkey;
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_write(p, old, 4096, "kept", 4));

	leave(self, p);
	ASSERT_EQ(0, test_wait_peer_gone(self->fd, id));
	ASSERT_EQ(0, test_wait_window(self->fd, b.id, MWIN_WINDOW_UNBOUND,
				      &wi));
	EXPECT_EQ(0, wi.peer);
	EXPECT_EQ(t, wi.tenant);
	ASSERT_EQ(0, mwin_tenant_get(self->fd, t, 0, &ti));
	EXPECT_EQ(0, ti.nr_conns);

	/* the next connection: a new rkey, with nothing asked */
	q = join(_metadata, self, PREFIX "last", tenant_key);
	ASSERT_EQ(0, mwpeer_wait_grant(q, b.id, 0, &m, TEST_TIMEOUT_MS));
	EXPECT_NE(old, m.rkey);
	EXPECT_EQ(b.iova, m.iova);
	EXPECT_EQ(b.length, m.length);
	EXPECT_EQ(b.access, m.access);
	ASSERT_EQ(0, mwin_window_get(self->fd, b.id, 0, &wi));
	EXPECT_EQ(MWIN_WINDOW_BOUND, wi.state);
	EXPECT_EQ(m.rkey, wi.rkey);
	EXPECT_EQ(mwpeer_id(q), wi.peer);
	EXPECT_EQ(t, wi.tenant);
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_read(q, m.rkey, 4096, buf, 4));
	EXPECT_EQ(0, memcmp(buf, "kept", 4));
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_write(q, m.rkey, 4100, "more", 4));
	EXPECT_EQ(0, memcmp(self->mem + 4100, "more", 4));

	/* the old rkey is dead, through the tenant's new connection too */
	id = mwpeer_id(q);
	EXPECT_ACCESS_REFUSED(q, mwpeer_read(q, old, 4096, NULL, 4));
	ASSERT_EQ(0, test_wait_peer_gone(self->fd, id));
	ASSERT_EQ(0, test_wait_window(self->fd, b.id, MWIN_WINDOW_UNBOUND,
				      &wi));
	EXPECT_EQ(t, wi.tenant);

	/* and the one after is granted yet another */
	r = join(_metadata, self, PREFIX "last", tenant_key);
	ASSERT_EQ(0, mwpeer_wait_grant(r, b.id, 0, &n, TEST_TIMEOUT_MS));
	EXPECT_NE(old, n.rkey);
	EXPECT_NE(m.rkey, n.rkey);
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_read(r, n.rkey, 4096, buf, 8));
	EXPECT_EQ(0, memcmp(buf, "keptmore", 8));
}

/* ---- every connection is told --------------------------------------- */

/* @p's next message: @type about window @w with @rkey and @access. */
#define EXPECT_NEXT(_p, _type, _w, _rkey, _access, _m) do {		\
	ASSERT_EQ(0, mwpeer_next_msg(_p, _m, TEST_TIMEOUT_MS));		\
	EXPECT_EQ(_type, (_m)->type);					\
	EXPECT_EQ(_w, (_m)->window);					\
	EXPECT_EQ(_rkey, (_m)->rkey);					\
	EXPECT_EQ(_access, (_m)->access);				\
} while (0)

/*
 * Two connections of a tenant: each is sent the revoke of an invalidate,
 * the grant of the rebind of the invalidated window, the revoke and grant
 * of a rebind of the bound window, in order, and the revoke of a destroy.
 */
TEST_F(grants, invalidate_and_rebind_tell_every_connection)
{
	uint32_t t = keyed_tenant(self->fd, PREFIX "tell");
	struct mwin_window_bind b;
	struct mwin_window_info wi;
	struct mwpeer_msg m, g;
	struct mwpeer *p[2];
	uint32_t k1, k2;
	char buf[8];
	int i;

	ASSERT_NE(0, t);
	for (i = 0; i < 2; i++)
		p[i] = join(_metadata, self, PREFIX "tell", tenant_key);
	ASSERT_EQ(0, grant(self, t, 0, 4096, MWIN_ACCESS_READ, &b));
	k1 = b.rkey;
	for (i = 0; i < 2; i++)
		expect_grant(_metadata, p[i], &b);

	ASSERT_EQ(0, mwin_window_invalidate(self->fd, b.id));
	EXPECT_EQ(MWIN_WINDOW_INVALIDATED, test_window_state(self->fd, b.id));
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, test_next_about(p[i], MWIN_WIRE_REVOKE, b.id, &m));
		EXPECT_EQ(k1, m.rkey);
		EXPECT_EQ(MWIN_REVOKE_INVALIDATE, m.access);
	}

	/* peer 0, tenant 0: the window stays the tenant's */
	ASSERT_EQ(0, test_rebind(self->fd, &b, 0, 0, 4096, MWIN_ACCESS_READ));
	k2 = b.rkey;
	EXPECT_NE(k1, k2);
	ASSERT_EQ(0, mwin_window_get(self->fd, b.id, 0, &wi));
	EXPECT_EQ(t, wi.tenant);
	for (i = 0; i < 2; i++)
		EXPECT_NEXT(p[i], MWIN_WIRE_GRANT, b.id, k2, MWIN_ACCESS_READ,
			    &m);

	ASSERT_EQ(0, test_rebind(self->fd, &b, 0, 0, 4096,
				 MWIN_ACCESS_READ | MWIN_ACCESS_WRITE));
	EXPECT_NE(k2, b.rkey);
	for (i = 0; i < 2; i++) {
		EXPECT_NEXT(p[i], MWIN_WIRE_REVOKE, b.id, k2,
			    MWIN_REVOKE_REBIND, &m);
		EXPECT_NEXT(p[i], MWIN_WIRE_GRANT, b.id, b.rkey,
			    MWIN_ACCESS_READ | MWIN_ACCESS_WRITE, &g);
		EXPECT_EQ(m.seq + 1, g.seq);
	}
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_write(p[0], b.rkey, 8, "rebound", 7));
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_read(p[1], b.rkey, 8, buf, 7));
	EXPECT_EQ(0, memcmp(buf, "rebound", 7));

	ASSERT_EQ(0, mwin_window_destroy(self->fd, b.id));
	for (i = 0; i < 2; i++) {
		EXPECT_NEXT(p[i], MWIN_WIRE_REVOKE, b.id, b.rkey,
			    MWIN_REVOKE_DESTROY, &m);
		EXPECT_EQ(0, mwpeer_proto_errors(p[i], NULL));
	}
	EXPECT_ACCESS_REFUSED(p[1], mwpeer_read(p[1], b.rkey, 8, NULL, 1));
}

/* ---- the tenant's counters ------------------------------------------ */

/* Tenant @t's counters are @base's plus these. */
#define EXPECT_COUNTS(_base, _t, _grants, _revokes, _remote, _errors) do { \
	struct mwin_tenant_info _now;					\
									\
	ASSERT_EQ(0, mwin_tenant_get(self->fd, _t, 0, &_now));		\
	EXPECT_EQ((_base).grants + (_grants), _now.grants);		\
	EXPECT_EQ((_base).revokes + (_revokes), _now.revokes);		\
	EXPECT_EQ((_base).remote_invalidations + (_remote),		\
		  _now.remote_invalidations);				\
	EXPECT_EQ((_base).access_errors + (_errors), _now.access_errors); \
} while (0)

/* Tenant @t has @n windows, of @bytes, granted to it. */
#define EXPECT_GRANTED(_t, _n, _bytes) do {				\
	struct mwin_tenant_info _now;					\
									\
	ASSERT_EQ(0, mwin_tenant_get(self->fd, _t, 0, &_now));		\
	EXPECT_EQ(_n, _now.nr_windows);					\
	EXPECT_EQ(_bytes, _now.bytes_granted);				\
} while (0)

/* Create a window of tenant @t that connections @p[0..1] are told of. */
static void grant_both(struct __test_metadata *_metadata,
		       FIXTURE_DATA(grants) *self, uint32_t t,
		       struct mwpeer **p, uint64_t off, uint64_t len,
		       uint32_t access, struct mwin_window_bind *b)
{
	ASSERT_EQ(0, grant(self, t, off, len, access, b));
	expect_grant(_metadata, p[0], b);
	expect_grant(_metadata, p[1], b);
}

/*
 * grants (one a bind, however many connections are told), revokes
 * (rebind, destroy, invalidate, the rkeys that die with the last
 * connection; not a connection lost while another stays), access_errors,
 * remote_invalidations and bytes_granted move by exactly what was done.
 */
TEST_F(grants, per_tenant_counters)
{
	uint32_t t = keyed_tenant(self->fd, PREFIX "count");
	struct mwin_window_bind w1, w2, w3, w4;
	struct mwin_tenant_info base;
	struct mwin_window_info wi;
	struct mwpeer *p[2];
	uint32_t id1, id2;

	ASSERT_NE(0, t);
	p[0] = join(_metadata, self, PREFIX "count", tenant_key);
	p[1] = join(_metadata, self, PREFIX "count", tenant_key);
	id1 = mwpeer_id(p[0]);
	id2 = mwpeer_id(p[1]);
	ASSERT_EQ(0, mwin_tenant_get(self->fd, t, 0, &base));
	EXPECT_EQ(0, base.grants);
	EXPECT_EQ(0, base.revokes);
	EXPECT_EQ(0, base.bytes_granted);

	grant_both(_metadata, self, t, p, 0, 4096,
		   MWIN_ACCESS_READ | MWIN_ACCESS_WRITE, &w1);
	grant_both(_metadata, self, t, p, 8192, 8192, MWIN_ACCESS_READ, &w2);
	grant_both(_metadata, self, t, p, 65536, 100, MWIN_ACCESS_READ, &w3);
	EXPECT_COUNTS(base, t, 3, 0, 0, 0);
	EXPECT_GRANTED(t, 3, 4096 + 8192 + 100);

	/* new rights, then a smaller range: a revoke and a grant each */
	ASSERT_EQ(0, test_rebind(self->fd, &w1, 0, 0, 4096, MWIN_ACCESS_READ));
	EXPECT_COUNTS(base, t, 4, 1, 0, 0);
	EXPECT_GRANTED(t, 3, 4096 + 8192 + 100);
	ASSERT_EQ(0, test_rebind(self->fd, &w2, 0, 8192, 4096,
				 MWIN_ACCESS_READ));
	EXPECT_COUNTS(base, t, 5, 2, 0, 0);
	EXPECT_GRANTED(t, 3, 4096 + 4096 + 100);

	/* destroy of a bound window: a revoke, its bytes granted no more */
	ASSERT_EQ(0, mwin_window_destroy(self->fd, w3.id));
	EXPECT_COUNTS(base, t, 5, 3, 0, 0);
	EXPECT_GRANTED(t, 2, 4096 + 4096);

	ASSERT_EQ(0, mwin_window_invalidate(self->fd, w1.id));
	EXPECT_COUNTS(base, t, 5, 4, 0, 0);

	/* a failed access: counted, that connection ends, no rkey dies */
	EXPECT_ACCESS_REFUSED(p[1],
		  mwpeer_write(p[1], w2.rkey, w2.iova, "x", 1));
	ASSERT_EQ(0, test_wait_peer_gone(self->fd, id2));
	ASSERT_EQ(0, test_wait_window_peer(self->fd, w2.id, id1, &wi));
	EXPECT_EQ(w2.rkey, wi.rkey);
	EXPECT_COUNTS(base, t, 5, 4, 0, 1);

	/* its own rkey handed back through its connection */
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_send_inv(p[0], w2.rkey));
	ASSERT_EQ(0, test_wait_window(self->fd, w2.id, MWIN_WINDOW_INVALIDATED,
				      &wi));
	EXPECT_EQ(1, wi.remote_invalidations);
	EXPECT_EQ(MWIN_PEER_CONNECTED, test_peer_state(self->fd, id1));
	EXPECT_COUNTS(base, t, 5, 4, 1, 1);

	/* the last connection gone: the rkey of its bound window dies */
	ASSERT_EQ(0, grant(self, t, 16384, 4096, MWIN_ACCESS_READ, &w4));
	expect_grant(_metadata, p[0], &w4);
	EXPECT_COUNTS(base, t, 6, 4, 1, 1);
	leave(self, p[0]);
	ASSERT_EQ(0, test_wait_window(self->fd, w4.id, MWIN_WINDOW_UNBOUND,
				      &wi));
	EXPECT_COUNTS(base, t, 6, 5, 1, 1);
}

/* ---- refusals ------------------------------------------------------- */

/*
 * @call fails with @err, and no window was made: the module has as many
 * as before, tenant @t as many granted, as many grants and bytes.
 */
#define EXPECT_REFUSED(_err, _t, _call) do {				\
	struct mwin_tenant_info _tb = { 0 }, _ta = { 0 };		\
	uint32_t _nb = test_nr_windows(self->fd);			\
									\
	mwin_tenant_get(self->fd, _t, 0, &_tb);				\
	EXPECT_EQ(_err, _call);						\
	mwin_tenant_get(self->fd, _t, 0, &_ta);				\
	EXPECT_EQ(_nb, test_nr_windows(self->fd));			\
	EXPECT_EQ(_tb.nr_windows, _ta.nr_windows);			\
	EXPECT_EQ(_tb.grants, _ta.grants);				\
	EXPECT_EQ(_tb.bytes_granted, _ta.bytes_granted);		\
} while (0)

/* Window @id is still bound to tenant @t with @rkey. */
#define EXPECT_KEPT(_id, _t, _rkey) do {				\
	struct mwin_window_info _wi;					\
									\
	ASSERT_EQ(0, mwin_window_get(self->fd, _id, 0, &_wi));		\
	EXPECT_EQ(MWIN_WINDOW_BOUND, _wi.state);			\
	EXPECT_EQ(_t, _wi.tenant);					\
	EXPECT_EQ(_rkey, _wi.rkey);					\
} while (0)

/*
 * Entries @ops, of @op_size bytes each as the caller lays them out, in
 * one WINDOW_BATCH: the call's result; @ops get the entries' results and
 * *@failed the number that failed.
 */
static int run_ops(int fd, struct mwin_batch_op *ops, uint32_t n,
		   uint32_t op_size, uint32_t *failed)
{
	size_t len = op_size < sizeof(*ops) ? op_size : sizeof(*ops);
	char buf[4 * sizeof(*ops)] = { 0 };
	struct mwin_window_batch cmd = {
		.size = sizeof(cmd), .count = n, .op_size = op_size,
		.ops = (uintptr_t)buf,
	};
	uint32_t i;
	int ret;

	if (n * op_size > sizeof(buf))
		return -E2BIG;
	for (i = 0; i < n; i++)
		memcpy(buf + i * op_size, &ops[i], len);
	ret = mwin_ioctl(fd, MWIN_WINDOW_BATCH, &cmd);
	for (i = 0; i < n; i++)
		memcpy(&ops[i], buf + i * op_size, len);
	*failed = cmd.failed;
	return ret;
}

/* A create (@b->id 0) or rebind entry with @b's argument. */
static struct mwin_batch_op op_of(const struct mwin_window_bind *b)
{
	return (struct mwin_batch_op){
		.opcode = b->id ? MWIN_BATCH_REBIND : MWIN_BATCH_CREATE,
		.flags = b->flags, .id = b->id, .region = b->region,
		.peer = b->peer, .tenant = b->tenant, .access = b->access,
		.offset = b->offset, .length = b->length,
		.expires_ms = b->expires_ms,
	};
}

/*
 * @b's create or rebind as the one entry of a batch of @op_size-byte
 * entries: the entry's result (or the call's), and @b's id, rkey and iova
 * as the single call fills them.
 */
static int batch_bind(int fd, struct mwin_window_bind *b, uint32_t op_size)
{
	struct mwin_batch_op op = op_of(b);
	uint32_t failed;
	int ret = run_ops(fd, &op, 1, op_size, &failed);

	if (ret || op.result)
		return ret ?: op.result;
	b->id = op.id;
	b->rkey = op.rkey;
	b->iova = op.iova;
	return 0;
}

/* how grant_as_user() grants: WINDOW_CREATE, or a batch's create entry */
static bool grant_by_batch;

/*
 * In a child as another user: a window of its own region for tenant @t.
 * 0 when it was granted, else the errno (100 and up: no region to try).
 */
static int grant_as_user(int fd, uint32_t t)
{
	struct mwin_window_bind b;
	uint32_t region;
	int ret;

	if (mwin_region_create(fd, 1 << 16, MWIN_CREATE_FD_OWNED, &region,
			       NULL))
		return 100;
	b = test_bind(region, 0, 0, 4096, MWIN_ACCESS_READ, 0);
	b.tenant = t;
	ret = grant_by_batch ? batch_bind(fd, &b, sizeof(struct mwin_batch_op)) :
	      mwin_window_create(fd, &b);
	if (!ret)
		mwin_window_destroy(fd, b.id);
	mwin_region_destroy(fd, region, MWIN_REGION_DESTROY_FORCE);
	return -ret;
}

/*
 * Both a peer and a tenant: EINVAL; no such tenant: ENOENT; a tenant with
 * no connection, also when a stranger without its key tried: ENOTCONN; a
 * user who neither owns the tenant nor has CAP_SYS_ADMIN does not see it:
 * ENOENT (uapi/linux/mwin.h; EPERM is for a tenant's peer). None makes a
 * window; a refused rebind leaves the window as it was.
 */
TEST_F(grants, errors)
{
	uint32_t t, idle, gone, unproved;
	struct mwin_window_bind b, w;
	struct mwpeer *p, *q;
	struct stat st;
	int err;

	t = test_make_tenant(self->fd, PREFIX "err", tenant_key, USER_OWNER);
	idle = test_make_tenant(self->fd, PREFIX "idle", NULL, MWIN_NO_OWNER);
	gone = test_make_tenant(self->fd, PREFIX "gone", NULL, MWIN_NO_OWNER);
	unproved = keyed_tenant(self->fd, PREFIX "unproved");
	ASSERT_TRUE(t && idle && gone && unproved);
	ASSERT_EQ(0, mwin_tenant_destroy(self->fd, gone));
	p = join(_metadata, self, PREFIX "err", tenant_key);

	b = test_bind(self->region, mwpeer_id(p), 0, 4096, MWIN_ACCESS_READ, 0);
	b.tenant = t;
	EXPECT_REFUSED(-EINVAL, t, mwin_window_create(self->fd, &b));
	EXPECT_REFUSED(-ENOENT, t,
		       grant(self, gone, 0, 4096, MWIN_ACCESS_READ, &b));
	EXPECT_REFUSED(-ENOENT, t,
		       grant(self, 0x7fffffff, 0, 4096, MWIN_ACCESS_READ, &b));
	EXPECT_REFUSED(-ENOTCONN, idle,
		       grant(self, idle, 0, 4096, MWIN_ACCESS_READ, &b));

	/* a stranger without the key: no connection to grant to */
	q = keep(self, test_peer_of(PREFIX "unproved", NULL, NULL, &err));
	ASSERT_NE(NULL, q);
	ASSERT_EQ(-ENOKEY, err);
	EXPECT_REFUSED(-ENOTCONN, unproved,
		       grant(self, unproved, 0, 4096, MWIN_ACCESS_READ, &b));

	/* a rebind refused the same ways keeps the window and its rkey */
	ASSERT_EQ(0, grant(self, t, 0, 4096, MWIN_ACCESS_READ, &w));
	expect_grant(_metadata, p, &w);
	b = test_bind(0, mwpeer_id(p), 0, 4096, MWIN_ACCESS_READ, 0);
	b.id = w.id;
	b.tenant = t;
	EXPECT_REFUSED(-EINVAL, t, mwin_window_rebind(self->fd, &b));
	EXPECT_KEPT(w.id, t, w.rkey);
	b = test_bind(0, 0, 0, 4096, MWIN_ACCESS_READ, 0);
	b.id = w.id;
	b.tenant = gone;
	EXPECT_REFUSED(-ENOENT, t, mwin_window_rebind(self->fd, &b));
	EXPECT_KEPT(w.id, t, w.rkey);

	/* another user: the tenant is not one it sees; the owner may */
	ASSERT_EQ(0, stat(MWIN_DEV_PATH, &st));
	ASSERT_EQ(0, chmod(MWIN_DEV_PATH, 0666));
	EXPECT_REFUSED(ENOENT, t, test_as_user(USER_OTHER, grant_as_user, t));
	EXPECT_EQ(0, test_as_user(USER_OWNER, grant_as_user, t));
	chmod(MWIN_DEV_PATH, st.st_mode & 07777);
	EXPECT_KEPT(w.id, t, w.rkey);
}

/* ---- batch entries naming a tenant --------------------------------- */

/*
 * A batch's create entry naming a tenant, and its rebind entry moving a
 * window of one connection to the tenant, are grants to the tenant: each
 * connection reads through the one rkey, one that proves its key later is
 * sent them, and one that fails an access is dropped alone.
 */
TEST_F(grants, batch_grants_to_a_tenant)
{
	uint32_t t = keyed_tenant(self->fd, PREFIX "batch");
	struct mwin_window_bind made, moved;
	struct mwin_window_info wi;
	struct mwin_batch_op ops[2];
	struct mwpeer *p, *q;
	struct mwpeer_msg m;
	uint32_t failed, old, id;
	char buf[8];
	int i;

	ASSERT_NE(0, t);
	p = join(_metadata, self, PREFIX "batch", tenant_key);
	moved = test_bind(self->region, mwpeer_id(p), 8192, 4096,
			  MWIN_ACCESS_READ, 0);
	ASSERT_EQ(0, mwin_window_create(self->fd, &moved));
	ASSERT_EQ(0, mwpeer_wait_grant(p, moved.id, 0, NULL, TEST_TIMEOUT_MS));
	old = moved.rkey;
	memcpy(self->mem + 8192, "moved ok", 8);

	made = test_bind(self->region, 0, 0, 4096,
			 MWIN_ACCESS_READ | MWIN_ACCESS_WRITE, 0);
	made.tenant = t;
	moved.peer = 0;
	moved.region = 0;
	moved.tenant = t;
	ops[0] = op_of(&made);
	ops[1] = op_of(&moved);
	ASSERT_EQ(0, run_ops(self->fd, ops, 2, sizeof(ops[0]), &failed));
	EXPECT_EQ(0, failed);
	ASSERT_EQ(0, ops[0].result);
	ASSERT_EQ(0, ops[1].result);
	made.id = ops[0].id;
	made.rkey = ops[0].rkey;
	made.iova = ops[0].iova;
	moved.rkey = ops[1].rkey;
	moved.iova = ops[1].iova;
	EXPECT_NE(old, moved.rkey);
	expect_grant(_metadata, p, &made);
	/* p had a grant of its own for it: the tenant's replaces it */
	ASSERT_EQ(0, mwpeer_wait_grant(p, moved.id, old, &m, TEST_TIMEOUT_MS));
	EXPECT_EQ(moved.rkey, m.rkey);
	EXPECT_EQ(moved.iova, m.iova);
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, mwin_window_get(self->fd, ops[i].id, 0, &wi));
		EXPECT_EQ(MWIN_WINDOW_BOUND, wi.state);
		EXPECT_EQ(t, wi.tenant);
		EXPECT_EQ(ops[i].rkey, wi.rkey);
	}

	/* a connection that proves its key later is sent both */
	q = join(_metadata, self, PREFIX "batch", tenant_key);
	expect_grant(_metadata, q, &made);
	expect_grant(_metadata, q, &moved);
	EXPECT_EQ(IBV_WC_SUCCESS,
		  mwpeer_write(p, made.rkey, made.iova, "by batch", 8));
	EXPECT_EQ(IBV_WC_SUCCESS,
		  mwpeer_read(q, made.rkey, made.iova, buf, 8));
	EXPECT_EQ(0, memcmp(buf, "by batch", 8));
	EXPECT_EQ(IBV_WC_SUCCESS,
		  mwpeer_read(q, moved.rkey, moved.iova, buf, 8));
	EXPECT_EQ(0, memcmp(buf, "moved ok", 8));

	/* the rkey of p's own grant died: p is dropped, q reads on */
	id = mwpeer_id(p);
	EXPECT_ACCESS_REFUSED(p,
		  mwpeer_read(p, old, moved.iova, NULL, 8));
	ASSERT_EQ(0, test_wait_peer_gone(self->fd, id));
	ASSERT_EQ(0, test_wait_window_peer(self->fd, moved.id, mwpeer_id(q),
					   &wi));
	EXPECT_EQ(moved.rkey, wi.rkey);
	EXPECT_EQ(IBV_WC_SUCCESS,
		  mwpeer_read(q, moved.rkey, moved.iova, buf, 8));
	EXPECT_EQ(0, mwpeer_proto_errors(q, NULL));
}

/*
 * @b as the single call and as a batch entry: both refused with @_err,
 * neither makes a window or changes tenant @_t's.
 */
#define EXPECT_BOTH_REFUSED(_err, _t, _b) do {				\
	struct mwin_window_bind _s = (_b);				\
									\
	EXPECT_REFUSED(_err, _t, _s.id ?				\
		       mwin_window_rebind(self->fd, &_s) :		\
		       mwin_window_create(self->fd, &_s));		\
	_s = (_b);							\
	EXPECT_REFUSED(_err, _t, batch_bind(self->fd, &_s,		\
					    sizeof(struct mwin_batch_op))); \
} while (0)

/*
 * A batch entry naming a tenant is refused as the single call is, with
 * its errno, and changes nothing: a peer too (EINVAL), a tenant that is
 * gone or never was (ENOENT), one without a connection (ENOTCONN), one
 * the caller does not see (ENOENT); a tenant on an invalidation: EINVAL.
 * Entries of the first version (56 bytes) have no tenant: one named past
 * them is not read.
 */
TEST_F(grants, batch_tenant_errors)
{
	struct mwin_batch_op inv = { .opcode = MWIN_BATCH_INVALIDATE };
	uint32_t t, idle, gone, failed;
	struct mwin_window_bind b, w;
	struct mwin_window_info wi;
	struct mwpeer *p;
	struct stat st;

	t = test_make_tenant(self->fd, PREFIX "berr", tenant_key, USER_OWNER);
	idle = test_make_tenant(self->fd, PREFIX "bidle", NULL, MWIN_NO_OWNER);
	gone = test_make_tenant(self->fd, PREFIX "bgone", NULL, MWIN_NO_OWNER);
	ASSERT_TRUE(t && idle && gone);
	ASSERT_EQ(0, mwin_tenant_destroy(self->fd, gone));
	p = join(_metadata, self, PREFIX "berr", tenant_key);

	b = test_bind(self->region, mwpeer_id(p), 0, 4096, MWIN_ACCESS_READ, 0);
	b.tenant = t;
	EXPECT_BOTH_REFUSED(-EINVAL, t, b);
	b.peer = 0;
	b.tenant = gone;
	EXPECT_BOTH_REFUSED(-ENOENT, t, b);
	b.tenant = 0x7fffffff;
	EXPECT_BOTH_REFUSED(-ENOENT, t, b);
	b.tenant = idle;
	EXPECT_BOTH_REFUSED(-ENOTCONN, idle, b);

	/* rebind entries refused the same ways keep the window and rkey */
	ASSERT_EQ(0, grant(self, t, 0, 4096, MWIN_ACCESS_READ, &w));
	expect_grant(_metadata, p, &w);
	b = test_bind(0, mwpeer_id(p), 0, 4096, MWIN_ACCESS_READ, 0);
	b.id = w.id;
	b.tenant = t;
	EXPECT_BOTH_REFUSED(-EINVAL, t, b);
	b.peer = 0;
	b.tenant = gone;
	EXPECT_BOTH_REFUSED(-ENOENT, t, b);
	b.tenant = idle;
	EXPECT_BOTH_REFUSED(-ENOTCONN, t, b);
	EXPECT_KEPT(w.id, t, w.rkey);
	inv.id = w.id;
	inv.tenant = t;
	ASSERT_EQ(0, run_ops(self->fd, &inv, 1, sizeof(inv), &failed));
	EXPECT_EQ(-EINVAL, inv.result);
	EXPECT_KEPT(w.id, t, w.rkey);

	/* another user does not see the tenant; its owner may grant to it */
	ASSERT_EQ(0, stat(MWIN_DEV_PATH, &st));
	ASSERT_EQ(0, chmod(MWIN_DEV_PATH, 0666));
	grant_by_batch = true;
	EXPECT_REFUSED(ENOENT, t, test_as_user(USER_OTHER, grant_as_user, t));
	EXPECT_EQ(0, test_as_user(USER_OWNER, grant_as_user, t));
	grant_by_batch = false;
	chmod(MWIN_DEV_PATH, st.st_mode & 07777);

	/* 56 bytes: the tenant past them is not read, the peer is the grantee */
	b = test_bind(self->region, mwpeer_id(p), 8192, 4096,
		      MWIN_ACCESS_READ, 0);
	b.tenant = t;
	ASSERT_EQ(0, batch_bind(self->fd, &b, MWIN_BATCH_OP_SIZE_VER0));
	ASSERT_EQ(0, mwin_window_get(self->fd, b.id, 0, &wi));
	EXPECT_EQ(MWIN_WINDOW_BOUND, wi.state);
	EXPECT_EQ(mwpeer_id(p), wi.peer);
	EXPECT_EQ(0, wi.tenant);
	ASSERT_EQ(0, mwpeer_wait_grant(p, b.id, 0, NULL, TEST_TIMEOUT_MS));
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_read(p, b.rkey, b.iova, NULL, 8));
}

/* ---- a waiting window's lease --------------------------------------- */

/* The counter @s of @scope @id. */
static uint64_t stat_of(int fd, uint32_t scope, uint32_t id, uint32_t s)
{
	struct mwin_stats st;

	return mwin_stats(fd, scope, id, &st) ? UINT64_MAX : st.stats[s];
}

/*
 * A tenant's window waiting for a connection is given a short lease that
 * runs out before one comes: one expiry of the tenant's and the module's
 * (no peer carries the window), and the window stays unbound, the
 * tenant's, its wait over (a renew: ETIME).
 */
TEST_F(grants, waiting_window_expiry_counts_for_tenant)
{
	uint32_t t = test_make_tenant(self->fd, PREFIX "lease", NULL,
				      MWIN_NO_OWNER);
	uint64_t tb, mb, ns;
	struct mwin_window_bind b;
	struct mwin_window_info wi;
	struct mwpeer *p;
	int i;

	ASSERT_NE(0, t);
	p = join(_metadata, self, PREFIX "lease", NULL);
	ASSERT_EQ(0, grant(self, t, 0, 4096, MWIN_ACCESS_READ, &b));
	expect_grant(_metadata, p, &b);
	leave(self, p);
	ASSERT_EQ(0, test_wait_window(self->fd, b.id, MWIN_WINDOW_UNBOUND,
				      &wi));
	tb = stat_of(self->fd, MWIN_STATS_TENANT, t, MWIN_STAT_EXPIRIES);
	mb = stat_of(self->fd, MWIN_STATS_MODULE, 0, MWIN_STAT_EXPIRIES);
	ASSERT_NE(UINT64_MAX, tb);

	ASSERT_EQ(0, mwin_window_renew(self->fd, b.id, 20, &ns));
	for (i = 0; i < TEST_TIMEOUT_MS / 10; i++) {
		if (stat_of(self->fd, MWIN_STATS_MODULE, 0,
			    MWIN_STAT_EXPIRIES) != mb)
			break;
		usleep(10000);
	}
	EXPECT_EQ(mb + 1, stat_of(self->fd, MWIN_STATS_MODULE, 0,
				  MWIN_STAT_EXPIRIES));
	EXPECT_EQ(tb + 1, stat_of(self->fd, MWIN_STATS_TENANT, t,
				  MWIN_STAT_EXPIRIES));
	ASSERT_EQ(0, mwin_window_get(self->fd, b.id, 0, &wi));
	EXPECT_EQ(MWIN_WINDOW_UNBOUND, wi.state);
	EXPECT_EQ(t, wi.tenant);
	EXPECT_EQ(0, wi.peer);
	EXPECT_EQ(0, wi.expires_ns);
	EXPECT_EQ(-ETIME, mwin_window_renew(self->fd, b.id, 1000, &ns));
}

/* ---- TENANT_DESTROY under traffic ----------------------------------- */

/* One connection reading two windows in a loop, in a thread of its own. */
struct reader {
	struct mwpeer *p;
	const struct mwin_window_bind *w[2];
	pthread_t thread;
	int stop;	/* set by the test: end now */
	int done;	/* set by the thread: it ended */
	int reads;	/* that succeeded */
	int status;	/* the read that ended it, 0 when stop did */
	uint64_t last_ok_ns;	/* when the last read that succeeded began */
};

static void *read_loop(void *arg)
{
	struct reader *r = arg;
	int i, st;

	for (i = 0; !__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE); i++) {
		const struct mwin_window_bind *w = r->w[i % 2];
		uint64_t t0 = test_now_ns();

		st = mwpeer_read(r->p, w->rkey, w->iova, NULL, 64);
		if (st) {
			r->status = st;
			break;
		}
		__atomic_store_n(&r->last_ok_ns, t0, __ATOMIC_RELEASE);
		__atomic_add_fetch(&r->reads, 1, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * Wait until @r did @n reads or ended by itself (each read is bounded by
 * the peer's timeout): whether it ended.
 */
static bool wait_reader(struct reader *r, int n)
{
	int i;

	for (i = 0; i < 3 * TEST_TIMEOUT_MS / 10; i++) {
		if (__atomic_load_n(&r->reads, __ATOMIC_ACQUIRE) >= n ||
		    __atomic_load_n(&r->done, __ATOMIC_ACQUIRE))
			break;
		usleep(10000);
	}
	return __atomic_load_n(&r->done, __ATOMIC_ACQUIRE);
}

/*
 * Wait until the module has @n peers, and the RDMA core @qps QPs or
 * fewer: a QP of the test before may still have been going at the setup.
 */
static int wait_counts(int fd, uint32_t n, int qps)
{
	struct mwin_info info;
	int i;

	for (i = 0; i < TEST_TIMEOUT_MS / 100; i++) {
		if (!mwin_info(fd, &info, NULL, 0) && info.nr_peers == n &&
		    test_count_qps() <= qps)
			return 0;
		usleep(100000);
	}
	return -ETIMEDOUT;
}

/*
 * TENANT_DESTROY while both connections of a tenant read its two windows:
 * when the call returns, their QPs are in ERR already, and no READ posted
 * after it succeeds (an operator destroys a tenant whose key leaked); both
 * connections end, the windows are unbound and granted to no one (a rebind
 * needs a new grantee), and no peer or QP is left behind.
 */
TEST_F(grants, destroy_tenant_under_traffic)
{
	uint32_t t = keyed_tenant(self->fd, PREFIX "busy");
	struct mwin_window_bind w[2], b;
	struct mwin_window_info wi;
	struct mwin_tenant_info ti;
	struct mwin_peer_info pi;
	struct mwin_info info;
	struct reader r[2];
	struct mwpeer *p[2];
	uint32_t id[2], qpn[2];
	uint64_t returned;
	int i;

	ASSERT_NE(0, t);
	for (i = 0; i < 2; i++) {
		p[i] = join(_metadata, self, PREFIX "busy", tenant_key);
		id[i] = mwpeer_id(p[i]);
		ASSERT_EQ(0, mwin_peer_get(self->fd, id[i], 0, &pi));
		qpn[i] = pi.qpn;
	}
	grant_both(_metadata, self, t, p, 0, 4096, MWIN_ACCESS_READ, &w[0]);
	grant_both(_metadata, self, t, p, 8192, 4096,
		   MWIN_ACCESS_READ | MWIN_ACCESS_WRITE, &w[1]);

	memset(r, 0, sizeof(r));
	for (i = 0; i < 2; i++) {
		r[i].p = p[i];
		r[i].w[0] = &w[0];
		r[i].w[1] = &w[1];
		ASSERT_EQ(0, pthread_create(&r[i].thread, NULL, read_loop,
					    &r[i]));
	}
	/* no ASSERT while the threads use the peers: teardown closes them */
	for (i = 0; i < 2; i++) {
		EXPECT_FALSE(wait_reader(&r[i], 20));
		EXPECT_LE(20, __atomic_load_n(&r[i].reads, __ATOMIC_ACQUIRE));
	}
	EXPECT_EQ(0, mwin_tenant_destroy(self->fd, t));
	returned = test_now_ns();
	for (i = 0; i < 2; i++)
		EXPECT_EQ(0, test_qp_dead(qpn[i]));
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(0, test_wait_peer_gone(self->fd, id[i]));
		EXPECT_TRUE(wait_reader(&r[i], INT_MAX));
	}
	for (i = 0; i < 2; i++) {
		__atomic_store_n(&r[i].stop, 1, __ATOMIC_RELEASE);
		pthread_join(r[i].thread, NULL);
		TH_LOG("connection %u: %d reads, then %s; the last that worked began %.3f ms before the call returned",
		       id[i], r[i].reads, mwpeer_status_str(r[i].status),
		       ((double)returned - r[i].last_ok_ns) / 1e6);
		EXPECT_NE(IBV_WC_SUCCESS, r[i].status);
		/* none posted after the call returned succeeded */
		EXPECT_GT(returned, r[i].last_ok_ns);
	}

	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, test_wait_window(self->fd, w[i].id,
					      MWIN_WINDOW_UNBOUND, &wi));
		EXPECT_EQ(0, wi.peer);
		EXPECT_EQ(0, wi.tenant);
	}
	EXPECT_EQ(-ENOENT, mwin_tenant_get(self->fd, t, 0, &ti));
	/* granted to no one: peer 0 and tenant 0 keep nothing */
	b = w[0];
	EXPECT_EQ(-ENOTCONN, test_rebind(self->fd, &b, 0, 0, 4096,
					 MWIN_ACCESS_READ));
	for (i = 0; i < 2; i++)
		leave(self, p[i]);
	EXPECT_EQ(0, wait_counts(self->fd, self->before.nr_peers, self->qps));
	ASSERT_EQ(0, mwin_info(self->fd, &info, NULL, 0));
	EXPECT_EQ(self->before.nr_peers, info.nr_peers);
	EXPECT_GE(self->qps, test_count_qps());
}

TEST_HARNESS_MAIN
