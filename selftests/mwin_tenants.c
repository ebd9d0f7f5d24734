// SPDX-License-Identifier: GPL-2.0
/*
 * Tenants: named remote principals. The calls that make, change, read and
 * destroy them, every bad argument (refused with its errno, changing
 * nothing), who may call them (CAP_SYS_ADMIN; the owner may look), and
 * the connections: a peer of a tenant is admitted only with the right
 * name, key, address and quota, and each refusal says why and is counted.
 * Last, a tenant's windows over a module region and over a user region
 * (a fixture's variants): granted, read, written and revoked alike.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>

#include "mwin_test.h"

#define USER_A	60011
#define PAGE	4096UL

static void set_key(struct mwin_tenant_info *t, uint8_t fill, uint32_t len)
{
	memset(t->key, fill, len);
	t->key_len = len;
}

static struct mwin_tenant_net net4(uint8_t a, uint8_t b, uint8_t c,
				   uint8_t d, uint8_t prefix)
{
	struct mwin_tenant_net n = { .family = 4, .prefix_len = prefix };

	n.addr[0] = a;
	n.addr[1] = b;
	n.addr[2] = c;
	n.addr[3] = d;
	return n;
}

FIXTURE(tenants)
{
	int fd;
	uint32_t ids[16];
	int n;
};

FIXTURE_SETUP(tenants)
{
	self->fd = mwin_open();
	ASSERT_LE(0, self->fd);
	self->n = 0;
}

FIXTURE_TEARDOWN(tenants)
{
	int i;

	for (i = 0; i < self->n; i++)
		mwin_tenant_destroy(self->fd, self->ids[i]);
	close(self->fd);
}

/* Create @t; remember it for the teardown. */
static int make(FIXTURE_DATA(tenants) *self, struct mwin_tenant_info *t)
{
	int ret = mwin_tenant_create(self->fd, t);

	if (!ret && self->n < 16)
		self->ids[self->n++] = t->id;
	return ret;
}

/* Every tenant as GET returns it, to compare before and after a call. */
static size_t snapshot(int fd, struct mwin_tenant_info *out, size_t max)
{
	uint32_t id = 0;
	size_t n = 0;

	while (n < max && !mwin_tenant_get(fd, id, MWIN_GET_NEXT, &out[n]))
		id = out[n++].id;
	return n;
}

/* @call fails with @err, and no tenant changed. */
#define EXPECT_REFUSED(_err, _call) do {				\
	struct mwin_tenant_info _b[8], _a[8];				\
	size_t _nb = snapshot(self->fd, _b, 8);				\
									\
	EXPECT_EQ(_err, _call);						\
	EXPECT_EQ(_nb, snapshot(self->fd, _a, 8));			\
	EXPECT_EQ(0, memcmp(_b, _a, _nb * sizeof(_a[0])));		\
} while (0)

TEST_F(tenants, create_get_destroy)
{
	struct mwin_tenant_info t = test_tenant("alpha"), g;
	struct mwin_info info;

	t.allow[0] = net4(10, 0, 2, 0, 24);
	t.nr_allow = 1;
	t.max_conns = 3;
	t.max_windows = 7;
	set_key(&t, 0x5a, 32);
	ASSERT_EQ(0, make(self, &t));
	ASSERT_NE(0, t.id);

	ASSERT_EQ(0, mwin_tenant_get(self->fd, t.id, 0, &g));
	EXPECT_EQ(t.id, g.id);
	EXPECT_STREQ("alpha", g.name);
	EXPECT_EQ(MWIN_NO_OWNER, g.owner);
	EXPECT_EQ(32, g.key_len);
	EXPECT_EQ(0, g.key[0]);		/* the key never comes back */
	EXPECT_EQ(1, g.nr_allow);
	EXPECT_EQ(0, memcmp(&t.allow[0], &g.allow[0], sizeof(g.allow[0])));
	EXPECT_EQ(3, g.max_conns);
	EXPECT_EQ(7, g.max_windows);
	EXPECT_EQ(0, g.nr_conns);
	EXPECT_EQ(0, g.connects);

	ASSERT_EQ(0, mwin_tenant_find(self->fd, "alpha", &g));
	EXPECT_EQ(t.id, g.id);
	ASSERT_EQ(0, mwin_info(self->fd, &info, NULL, 0));
	EXPECT_EQ(1, info.nr_tenants);

	ASSERT_EQ(0, mwin_tenant_destroy(self->fd, t.id));
	EXPECT_EQ(-ENOENT, mwin_tenant_destroy(self->fd, t.id));
	EXPECT_EQ(-ENOENT, mwin_tenant_get(self->fd, t.id, 0, &g));
	ASSERT_EQ(0, mwin_info(self->fd, &info, NULL, 0));
	EXPECT_EQ(0, info.nr_tenants);
	self->n = 0;

	/* the name is free again; ids are not reused */
	t = test_tenant("alpha");
	ASSERT_EQ(0, make(self, &t));
	EXPECT_NE(g.id, t.id);
}

/* max_conns 0 at create is the module's max_peers. */
TEST_F(tenants, default_limits)
{
	struct mwin_tenant_info t = test_tenant("defaults"), g;

	ASSERT_EQ(0, make(self, &t));
	ASSERT_EQ(0, mwin_tenant_get(self->fd, t.id, 0, &g));
	EXPECT_EQ(test_param("max_peers"), g.max_conns);
	EXPECT_EQ(0, g.max_windows);
	EXPECT_EQ(0, g.key_len);
	EXPECT_EQ(0, g.nr_allow);
}

TEST_F(tenants, bad_names)
{
	static const char *const bad[] = {
		"", "has space", "slash/", "dollar$", "tab\t",
		"a234567890123456789012345",	/* 25 bytes: no NUL fits */
	};
	struct mwin_tenant_info t;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		t = test_tenant("");
		memcpy(t.name, bad[i], strnlen(bad[i], sizeof(t.name)));
		EXPECT_REFUSED(-EINVAL, make(self, &t));
	}
	/* garbage after the NUL */
	t = test_tenant("ok");
	t.name[5] = 'x';
	EXPECT_REFUSED(-EINVAL, make(self, &t));
	/* the longest name fits */
	t = test_tenant("a.b_c-d90123456789012.x");
	EXPECT_EQ(0, make(self, &t));
}

/* At most MWIN_TENANT_MAX tenants; the next is ENOSPC and changes nothing. */
TEST_F(tenants, limit)
{
	static uint32_t ids[MWIN_TENANT_MAX];
	struct mwin_tenant_info t;
	char name[MWIN_TENANT_NAME_MAX];
	struct mwin_info info;
	int i, n;

	for (n = 0; n < MWIN_TENANT_MAX; n++) {
		snprintf(name, sizeof(name), "many-%d", n);
		t = test_tenant(name);
		if (mwin_tenant_create(self->fd, &t))
			break;
		ids[n] = t.id;
	}
	EXPECT_EQ(MWIN_TENANT_MAX, n);
	t = test_tenant("one-too-many");
	EXPECT_REFUSED(-ENOSPC, mwin_tenant_create(self->fd, &t));
	ASSERT_EQ(0, mwin_info(self->fd, &info, NULL, 0));
	EXPECT_EQ(MWIN_TENANT_MAX, info.nr_tenants);
	for (i = 0; i < n; i++)
		EXPECT_EQ(0, mwin_tenant_destroy(self->fd, ids[i]));
}

TEST_F(tenants, duplicate_name)
{
	struct mwin_tenant_info t = test_tenant("twice");
	struct mwin_tenant_info u = test_tenant("twice");

	ASSERT_EQ(0, make(self, &t));
	EXPECT_REFUSED(-EEXIST, make(self, &u));
}

TEST_F(tenants, bad_keys_and_limits)
{
	struct mwin_tenant_info t;

	t = test_tenant("k");
	set_key(&t, 1, MWIN_TENANT_KEY_MIN - 1);
	EXPECT_REFUSED(-EINVAL, make(self, &t));
	t = test_tenant("k");
	t.key_len = MWIN_TENANT_KEY_MAX + 1;
	EXPECT_REFUSED(-EINVAL, make(self, &t));
	t = test_tenant("k");
	t.max_conns = test_param("max_peers") + 1;
	EXPECT_REFUSED(-EINVAL, make(self, &t));
	t = test_tenant("k");
	t.nr_allow = MWIN_TENANT_ALLOW_MAX + 1;
	EXPECT_REFUSED(-EINVAL, make(self, &t));
	t = test_tenant("k");
	t.size = sizeof(t);
	t.flags = 1;
	EXPECT_REFUSED(-EINVAL, mwin_ioctl(self->fd, MWIN_TENANT_CREATE, &t));
	t = test_tenant("k");
	t.size = sizeof(t);
	t.id = 5;			/* an id is the module's to give */
	EXPECT_REFUSED(-EINVAL, mwin_ioctl(self->fd, MWIN_TENANT_CREATE, &t));
	t = test_tenant("k");
	set_key(&t, 1, MWIN_TENANT_KEY_MIN);
	t.max_conns = test_param("max_peers");
	EXPECT_EQ(0, make(self, &t));
}

TEST_F(tenants, bad_prefixes)
{
	struct mwin_tenant_net bad[] = {
		net4(10, 0, 2, 1, 24),		/* a bit past the prefix */
		net4(10, 0, 2, 0, 33),		/* prefix too long */
		{ .family = 5 },		/* no such family */
		{ .family = 6, .prefix_len = 129 },
		{ .family = 4, .__reserved = { 1 } },
		{ .family = 4, .addr = { [4] = 1 } },	/* past IPv4's bytes */
	};
	struct mwin_tenant_info t;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		t = test_tenant("nets");
		t.allow[0] = bad[i];
		t.nr_allow = 1;
		EXPECT_REFUSED(-EINVAL, make(self, &t));
	}
	t = test_tenant("nets");
	t.allow[0] = net4(0, 0, 0, 0, 0);
	t.allow[1] = (struct mwin_tenant_net){ .family = 6, .prefix_len = 128,
					       .addr = { [15] = 1 } };
	t.nr_allow = 2;
	EXPECT_EQ(0, make(self, &t));
}

TEST_F(tenants, set)
{
	struct mwin_tenant_info t = test_tenant("settable"), s, g;

	ASSERT_EQ(0, make(self, &t));
	s = t;
	s.flags = 0;
	EXPECT_REFUSED(-EINVAL, mwin_tenant_set(self->fd, &s));
	s.flags = 1 << 6;		/* unknown */
	EXPECT_REFUSED(-EINVAL, mwin_tenant_set(self->fd, &s));
	s.flags = MWIN_TENANT_SET_KEY;
	s.key_len = 3;
	EXPECT_REFUSED(-EINVAL, mwin_tenant_set(self->fd, &s));
	s = t;
	s.id = 0x7fffffff;
	s.flags = MWIN_TENANT_SET_MAX_CONNS;
	EXPECT_REFUSED(-ENOENT, mwin_tenant_set(self->fd, &s));

	s = t;
	s.flags = MWIN_TENANT_SET_KEY | MWIN_TENANT_SET_MAX_CONNS |
		  MWIN_TENANT_SET_OWNER | MWIN_TENANT_SET_MAX_BYTES;
	set_key(&s, 7, 20);
	s.max_conns = 2;
	s.max_bytes = 1 << 20;
	s.owner = USER_A;
	strcpy(s.name, "ignored");
	ASSERT_EQ(0, mwin_tenant_set(self->fd, &s));
	ASSERT_EQ(0, mwin_tenant_get(self->fd, t.id, 0, &g));
	EXPECT_STREQ("settable", g.name);
	EXPECT_EQ(20, g.key_len);
	EXPECT_EQ(2, g.max_conns);
	EXPECT_EQ(USER_A, g.owner);
	EXPECT_EQ(1 << 20, g.max_bytes);
	EXPECT_EQ(0, g.nr_allow);	/* not named: unchanged */

	s.flags = MWIN_TENANT_SET_KEY;
	s.key_len = 0;			/* no key any more */
	ASSERT_EQ(0, mwin_tenant_set(self->fd, &s));
	ASSERT_EQ(0, mwin_tenant_get(self->fd, t.id, 0, &g));
	EXPECT_EQ(0, g.key_len);
}

/* A user who owns tenant @id sees it, and only it; it changes nothing. */
static int owner_calls(int fd, uint32_t id)
{
	struct mwin_tenant_info t = test_tenant("mine"), g;
	struct mwin_info info;

	TEST_CHILD_CHECK(!mwin_tenant_get(fd, id, 0, &g));
	TEST_CHILD_CHECK(!strcmp(g.name, "owned"));
	TEST_CHILD_CHECK(!mwin_tenant_get(fd, 0, MWIN_GET_NEXT, &g) &&
			 g.id == id);
	TEST_CHILD_CHECK(mwin_tenant_get(fd, id, MWIN_GET_NEXT, &g) == -ENOENT);
	TEST_CHILD_CHECK(!mwin_info(fd, &info, NULL, 0) && info.nr_tenants == 1);
	TEST_CHILD_CHECK(mwin_tenant_create(fd, &t) == -EPERM);
	g.flags = MWIN_TENANT_SET_MAX_CONNS;
	g.max_conns = 1;
	TEST_CHILD_CHECK(mwin_tenant_set(fd, &g) == -EPERM);
	TEST_CHILD_CHECK(mwin_tenant_destroy(fd, id) == -EPERM);
	return 0;
}

/* Any other user sees no tenant at all. */
static int stranger_calls(int fd, uint32_t id)
{
	struct mwin_tenant_info g;
	struct mwin_info info;

	TEST_CHILD_CHECK(mwin_tenant_get(fd, id, 0, &g) == -ENOENT);
	TEST_CHILD_CHECK(mwin_tenant_get(fd, 0, MWIN_GET_NEXT, &g) == -ENOENT);
	TEST_CHILD_CHECK(!mwin_info(fd, &info, NULL, 0) && info.nr_tenants == 0);
	TEST_CHILD_CHECK(mwin_tenant_destroy(fd, id) == -EPERM);
	return 0;
}

TEST_F(tenants, who_may_call)
{
	struct mwin_tenant_info owned = test_tenant("owned");
	struct mwin_tenant_info other = test_tenant("other"), g;
	struct stat st;

	ASSERT_EQ(0, stat(MWIN_DEV_PATH, &st));
	ASSERT_EQ(0, chmod(MWIN_DEV_PATH, 0666));
	owned.owner = USER_A;
	ASSERT_EQ(0, make(self, &owned));
	ASSERT_EQ(0, make(self, &other));
	EXPECT_EQ(0, test_as_user(USER_A, owner_calls, owned.id));
	EXPECT_EQ(0, test_as_user(USER_A + 1, stranger_calls, owned.id));
	chmod(MWIN_DEV_PATH, st.st_mode & 07777);
	/* nothing changed */
	ASSERT_EQ(0, mwin_tenant_get(self->fd, owned.id, 0, &g));
	EXPECT_EQ(test_param("max_peers"), g.max_conns);
}

/* ---- connections ------------------------------------------------------ */

static const uint8_t key_a[TEST_KEY_LEN] = "0123456789abcdef0123456789abcde";
static const uint8_t key_b[TEST_KEY_LEN] = "fedcba9876543210fedcba987654321";

static uint64_t rejects(int fd, uint32_t tenant, int why)
{
	struct mwin_tenant_info t;

	return mwin_tenant_get(fd, tenant, 0, &t) ? ~0ULL : t.rejects[why];
}

static uint64_t module_rejects(int fd, int why)
{
	struct mwin_info info;

	return mwin_info(fd, &info, NULL, 0) ? ~0ULL : info.rejects[why];
}

FIXTURE(conns)
{
	int fd;
	uint32_t tenant;
	uint32_t region;
	struct mwin_info before;
	int qps;
};

FIXTURE_SETUP(conns)
{
	struct mwin_tenant_info t = test_tenant("acme");

	self->fd = mwin_open();
	ASSERT_LE(0, self->fd);
	set_key(&t, 0, 0);
	memcpy(t.key, key_a, TEST_KEY_LEN);
	t.key_len = TEST_KEY_LEN;
	ASSERT_EQ(0, mwin_tenant_create(self->fd, &t));
	self->tenant = t.id;
	ASSERT_EQ(0, mwin_region_create(self->fd, 1 << 20, 0, &self->region,
					NULL));
	/* the counts start from nothing: an earlier test's peers are gone */
	ASSERT_EQ(0, test_wait_no_peers(self->fd));
	ASSERT_EQ(0, mwin_info(self->fd, &self->before, NULL, 0));
	self->qps = test_count_qps();
}

FIXTURE_TEARDOWN(conns)
{
	mwin_tenant_destroy(self->fd, self->tenant);
	mwin_region_destroy(self->fd, self->region, MWIN_REGION_DESTROY_FORCE);
	close(self->fd);
}

/* After refused connections: no peer and no QP more than before. */
#define EXPECT_NOTHING_KEPT() do {					\
	struct mwin_info _now;						\
									\
	ASSERT_EQ(0, mwin_info(self->fd, &_now, NULL, 0));		\
	EXPECT_EQ(self->before.nr_peers, _now.nr_peers);		\
	EXPECT_EQ(self->qps, test_count_qps());				\
} while (0)

/* The right key: both proofs verify; the peer is granted and reads. */
TEST_F(conns, right_key_connects)
{
	struct mwin_window_bind b;
	struct mwin_peer_info pi;
	struct mwin_tenant_info t;
	struct mwpeer *p;
	int err;

	p = test_peer_of("acme", key_a, NULL, &err);
	ASSERT_EQ(0, err);
	EXPECT_EQ(self->tenant, mwpeer_tenant_id(p));
	ASSERT_EQ(0, test_wait_peer_state(self->fd, mwpeer_id(p),
					  MWIN_PEER_CONNECTED));
	ASSERT_EQ(0, mwin_peer_get(self->fd, mwpeer_id(p), 0, &pi));
	EXPECT_EQ(self->tenant, pi.tenant);
	ASSERT_EQ(0, mwin_tenant_get(self->fd, self->tenant, 0, &t));
	EXPECT_EQ(1, t.nr_conns);
	EXPECT_EQ(1, t.connects);

	b = test_bind(self->region, mwpeer_id(p), 0, 4096, MWIN_ACCESS_READ, 0);
	ASSERT_EQ(0, mwin_window_create(self->fd, &b));
	EXPECT_MSG(p, MWIN_WIRE_GRANT, b.id, b.rkey);
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_read(p, b.rkey, b.iova, NULL, 64));
	mwpeer_close(p);
	EXPECT_EQ(0, test_wait_peer_gone(self->fd, pi.id));
	ASSERT_EQ(0, mwin_tenant_get(self->fd, self->tenant, 0, &t));
	EXPECT_EQ(0, t.nr_conns);
	mwin_window_destroy(self->fd, b.id);
}

/*
 * Connect once with @priv as the request, as "acme" with @key: the error,
 * and on a reject its reason and private data in @rej.
 */
static int raw_connect(const void *priv, size_t len, const void *key,
		       struct mwpeer_reject *rej, struct mwpeer **out)
{
	struct mwpeer_opts o = { .timeout_ms = TEST_TIMEOUT_MS,
				 .private_data = priv,
				 .private_data_len = len };
	struct mwpeer *p;
	int err;

	p = test_peer_of("acme", key, &o, &err);
	memset(rej, 0, sizeof(*rej));
	if (p)
		mwpeer_reject(p, rej);
	if (out)
		*out = p;
	else
		mwpeer_close(p);
	return err;
}

/* A version 4 hello naming "acme": the challenge of the module's reject. */
static int challenge_of(struct mwin_wire_challenge *c)
{
	struct mwin_wire_hello_tenant h = {
		.magic = MWIN_WIRE_MAGIC,
		.version = MWIN_WIRE_VERSION_PROOF,
		.tenant = "acme",
	};
	struct mwpeer_reject rej;
	int err = raw_connect(&h, sizeof(h), NULL, &rej, NULL);

	if (err != -ECONNREFUSED || rej.wire_reason != MWIN_REJECT_CHALLENGE ||
	    rej.data_len < sizeof(*c))
		return err ? err : -EPROTO;
	memcpy(c, rej.data, sizeof(*c));
	return 0;
}

/* The request answering @c with @key's proof, a nonce of @fill bytes. */
static void proof_req(const struct mwin_wire_challenge *c, const void *key,
		      uint8_t fill, struct mwin_wire_proof_req *r)
{
	uint8_t proof[MWIN_WIRE_PROOF_LEN];

	memset(r, 0, sizeof(*r));
	r->magic = MWIN_WIRE_MAGIC;
	r->version = MWIN_WIRE_VERSION_PROOF;
	r->type = MWIN_WIRE_PROOF_REQ;
	r->tenant = c->tenant;
	memcpy(r->challenge, c->challenge, sizeof(r->challenge));
	memset(r->nonce, fill, sizeof(r->nonce));
	if (!mwpeer_proof4(key, TEST_KEY_LEN, false, r->challenge, r->nonce,
			   le32toh(c->tenant), proof))
		memcpy(r->proof, proof, sizeof(r->proof));
}

/*
 * The two steps, by hand: a challenge for the tenant and the source
 * address, counted apart from refusals, and a request with the proof that
 * the module accepts with its own proof.
 */
TEST_F(conns, challenge_then_proof)
{
	struct mwin_wire_proof_req r;
	struct mwin_wire_challenge c;
	struct mwpeer_handshake hs;
	struct mwpeer_reject rej;
	struct mwpeer *p;

	ASSERT_EQ(0, challenge_of(&c));
	EXPECT_EQ(MWIN_WIRE_VERSION_PROOF, c.version);
	EXPECT_EQ(self->tenant, le32toh(c.tenant));
	EXPECT_EQ(1, rejects(self->fd, self->tenant, MWIN_REJECT_CHALLENGE));
	EXPECT_NOTHING_KEPT();

	proof_req(&c, key_a, 0x11, &r);
	ASSERT_EQ(0, raw_connect(&r, sizeof(r), key_a, &rej, &p));
	mwpeer_handshake(p, &hs);
	EXPECT_EQ(MWIN_WIRE_VERSION_PROOF, hs.version);
	EXPECT_EQ(MWIN_WIRE_PROOF_NEEDED, hs.flags);
	EXPECT_EQ(self->tenant, mwpeer_tenant_id(p));
	EXPECT_EQ(0, test_wait_peer_state(self->fd, mwpeer_id(p),
					  MWIN_PEER_CONNECTED));
	mwpeer_close(p);
}

/*
 * A wrong key: the module refuses the proof, and no connection is made.
 * A module without the key cannot prove itself either: a peer that holds
 * another key than the module's proof refuses it, and leaves.
 */
TEST_F(conns, peer_refuses_a_module_without_the_key)
{
	struct mwin_wire_proof_req r;
	struct mwin_wire_challenge c;
	struct mwpeer_reject rej;
	struct mwpeer *p;
	uint32_t id;
	int err;

	p = test_peer_of("acme", key_b, NULL, &err);
	EXPECT_EQ(-ECONNREFUSED, err);
	EXPECT_EQ(MWIN_REJECT_BAD_PROOF, mwpeer_reject_reason(p));
	mwpeer_close(p);
	EXPECT_EQ(1, rejects(self->fd, self->tenant, MWIN_REJECT_BAD_PROOF));
	EXPECT_NOTHING_KEPT();

	/* the module proves it holds key_a; the peer holds key_b */
	ASSERT_EQ(0, challenge_of(&c));
	proof_req(&c, key_a, 0x22, &r);
	EXPECT_EQ(-EACCES, raw_connect(&r, sizeof(r), key_b, &rej, &p));
	id = mwpeer_id(p);
	mwpeer_close(p);
	if (id)
		EXPECT_EQ(0, test_wait_peer_gone(self->fd, id));

	/* and without any key, the peer learns that it needs one */
	p = test_peer_of("acme", NULL, NULL, &err);
	EXPECT_EQ(-ENOKEY, err);
	mwpeer_close(p);
}

/*
 * A version 3 hello naming a tenant with a key: refused as a bad hello,
 * the reject saying version 4; nothing of it is made.
 */
TEST_F(conns, version_3_is_refused_for_a_key)
{
	struct mwin_wire_hello_tenant h = {
		.magic = MWIN_WIRE_MAGIC,
		.version = MWIN_WIRE_VERSION_TENANT,
		.tenant = "acme",
	};
	struct mwin_tenant_info t;
	struct mwpeer_reject rej;

	EXPECT_EQ(-ECONNREFUSED, raw_connect(&h, sizeof(h), key_a, &rej,
					     NULL));
	EXPECT_EQ(MWIN_REJECT_BAD_HELLO, rej.wire_reason);
	EXPECT_EQ(MWIN_WIRE_VERSION_PROOF, rej.version);
	EXPECT_EQ(1, rejects(self->fd, self->tenant, MWIN_REJECT_BAD_HELLO));
	ASSERT_EQ(0, mwin_tenant_get(self->fd, self->tenant, 0, &t));
	EXPECT_EQ(0, t.nr_conns);
	EXPECT_NOTHING_KEPT();
}

/* A wrong proof over a good challenge: refused, counted, nothing made. */
TEST_F(conns, bad_proof_is_refused)
{
	struct mwin_wire_proof_req r;
	struct mwin_wire_challenge c;
	struct mwpeer_reject rej;

	ASSERT_EQ(0, challenge_of(&c));
	proof_req(&c, key_a, 0x33, &r);
	r.proof[0] ^= 1;
	EXPECT_EQ(-ECONNREFUSED, raw_connect(&r, sizeof(r), key_a, &rej,
					     NULL));
	EXPECT_EQ(MWIN_REJECT_BAD_PROOF, rej.wire_reason);
	EXPECT_EQ(1, rejects(self->fd, self->tenant, MWIN_REJECT_BAD_PROOF));
	EXPECT_NOTHING_KEPT();
}

/*
 * A challenge the module did not issue (one bit of its MAC changed), with
 * a proof over it made with the right key: refused.
 */
TEST_F(conns, forged_challenge_is_refused)
{
	struct mwin_wire_proof_req r;
	struct mwin_wire_challenge c;
	struct mwpeer_reject rej;

	ASSERT_EQ(0, challenge_of(&c));
	c.challenge[MWIN_WIRE_CHALLENGE_LEN - 1] ^= 1;
	proof_req(&c, key_a, 0x44, &r);
	EXPECT_EQ(-ECONNREFUSED, raw_connect(&r, sizeof(r), key_a, &rej,
					     NULL));
	EXPECT_EQ(MWIN_REJECT_BAD_PROOF, rej.wire_reason);
	EXPECT_EQ(1, rejects(self->fd, self->tenant, MWIN_REJECT_BAD_PROOF));
	EXPECT_NOTHING_KEPT();
}

/* A challenge past auth_timeout_ms, with the right proof: refused. */
TEST_F(conns, expired_challenge_is_refused)
{
	unsigned long old = test_param("auth_timeout_ms");
	struct mwin_wire_proof_req r;
	struct mwin_wire_challenge c;
	struct mwpeer_reject rej;

	ASSERT_EQ(0, test_set_param("auth_timeout_ms", 100));
	ASSERT_EQ(0, challenge_of(&c));
	usleep(400 * 1000);
	proof_req(&c, key_a, 0x55, &r);
	EXPECT_EQ(-ECONNREFUSED, raw_connect(&r, sizeof(r), key_a, &rej,
					     NULL));
	EXPECT_EQ(MWIN_REJECT_BAD_PROOF, rej.wire_reason);
	EXPECT_EQ(1, rejects(self->fd, self->tenant, MWIN_REJECT_BAD_PROOF));
	EXPECT_EQ(0, test_set_param("auth_timeout_ms", old));
	EXPECT_NOTHING_KEPT();
}

/*
 * A recorded request replayed: the challenge is good once. The first is
 * admitted, the same bytes again are refused, whoever sends them.
 */
TEST_F(conns, replayed_request_is_refused)
{
	struct mwin_wire_proof_req r;
	struct mwin_wire_challenge c;
	struct mwpeer_reject rej;
	struct mwpeer *p;
	uint32_t id;

	ASSERT_EQ(0, challenge_of(&c));
	proof_req(&c, key_a, 0x66, &r);
	ASSERT_EQ(0, raw_connect(&r, sizeof(r), key_a, &rej, &p));
	id = mwpeer_id(p);
	mwpeer_close(p);
	EXPECT_EQ(0, test_wait_peer_gone(self->fd, id));
	ASSERT_EQ(0, mwin_info(self->fd, &self->before, NULL, 0));

	EXPECT_EQ(-ECONNREFUSED, raw_connect(&r, sizeof(r), key_a, &rej,
					     NULL));
	EXPECT_EQ(MWIN_REJECT_BAD_PROOF, rej.wire_reason);
	EXPECT_EQ(1, rejects(self->fd, self->tenant, MWIN_REJECT_BAD_PROOF));
	EXPECT_NOTHING_KEPT();
}

/*
 * Rate tests send their attempts together, as a burst does: one after
 * another they would each take longer than a token's refill on a slow
 * (debug) kernel, and no attempt would ever find the bucket empty.
 */
#define RATE_BURST 6

struct rate_gate {
	pthread_mutex_t lock;
	pthread_cond_t open_cond;
	bool open;
};

struct rate_try {
	struct rate_gate *gate;
	const void *priv;	/* the request's private data; NULL: a peer's */
	size_t len;
	int err;
	int reason;
};

static void *rate_try(void *arg)
{
	struct rate_try *r = arg;
	struct mwpeer_reject rej;
	struct mwpeer *p;

	pthread_mutex_lock(&r->gate->lock);
	while (!r->gate->open)
		pthread_cond_wait(&r->gate->open_cond, &r->gate->lock);
	pthread_mutex_unlock(&r->gate->lock);
	if (r->priv) {
		r->err = raw_connect(r->priv, r->len, key_a, &rej, NULL);
		r->reason = rej.wire_reason;
		return NULL;
	}
	p = test_peer_of("acme", key_a, NULL, &r->err);
	r->reason = p ? mwpeer_reject_reason(p) : 0;
	mwpeer_close(p);
	return NULL;
}

/*
 * RATE_BURST connections to "acme" at once with key_a, each sending @priv
 * (or, when NULL, what the peer library sends), their outcomes in @r.
 */
static int rate_burst(const void *priv, size_t len, struct rate_try *r)
{
	struct rate_gate gate = { PTHREAD_MUTEX_INITIALIZER,
				  PTHREAD_COND_INITIALIZER, false };
	pthread_t t[RATE_BURST];
	int i, n, err = 0;

	for (n = 0; n < RATE_BURST && !err; n++) {
		r[n] = (struct rate_try){ .gate = &gate, .priv = priv,
					  .len = len, .err = -EINPROGRESS };
		err = -pthread_create(&t[n], NULL, rate_try, &r[n]);
	}
	if (err)
		n--;
	pthread_mutex_lock(&gate.lock);
	gate.open = true;
	pthread_cond_broadcast(&gate.open_cond);
	pthread_mutex_unlock(&gate.lock);
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return err;
}

/*
 * Guesses cost what connections cost: a request whose challenge is good
 * takes no conn_rate token (its hello took one) unless its proof is wrong.
 * With a bucket of 2, a hello and one wrong proof empty it; the next wrong
 * proofs are refused for the rate (but what refilled meanwhile); the right
 * proof, paid for by its hello, is still admitted.
 */
TEST_F(conns, wrong_proofs_take_rate_tokens)
{
	unsigned long old = test_param("conn_rate");
	struct mwin_wire_proof_req r, bad;
	struct rate_try t[RATE_BURST];
	struct mwin_wire_challenge c;
	struct mwpeer_reject rej;
	int i, wrong = 0, limited = 0;
	struct mwpeer *p;
	double start;

	ASSERT_EQ(0, test_set_param("conn_rate", 2));
	usleep(1100 * 1000);	/* a full bucket */
	start = test_now_s();
	ASSERT_EQ(0, challenge_of(&c));
	proof_req(&c, key_a, 0x77, &r);
	bad = r;
	bad.proof[0] ^= 1;
	ASSERT_EQ(0, rate_burst(&bad, sizeof(bad), t));
	for (i = 0; i < RATE_BURST; i++) {
		EXPECT_EQ(-ECONNREFUSED, t[i].err);
		wrong += t[i].reason == MWIN_REJECT_BAD_PROOF;
		limited += t[i].reason == MWIN_REJECT_RATE;
	}
	/* one token left after the hello, and what refilled meanwhile */
	EXPECT_GE(1 + (int)(2 * (test_now_s() - start)), wrong);
	EXPECT_LE(1, wrong);
	EXPECT_LE(1, limited);
	EXPECT_EQ(RATE_BURST, wrong + limited);
	EXPECT_EQ(limited, rejects(self->fd, self->tenant, MWIN_REJECT_RATE));
	ASSERT_EQ(0, raw_connect(&r, sizeof(r), key_a, &rej, &p));
	EXPECT_EQ(0, test_wait_peer_state(self->fd, mwpeer_id(p),
					  MWIN_PEER_CONNECTED));
	mwpeer_close(p);
	EXPECT_EQ(0, test_set_param("conn_rate", old));
}

/*
 * Issue 32: a stranger naming the tenant must not kill its rkeys with a
 * Send-with-Invalidate before any proof. Here it gets no connection to
 * send one on: its version 3 hello, its version 4 hello and its request
 * with a proof made with another key are all refused, and the tenant's
 * proved connection reads on with the same rkey.
 */
TEST_F(conns, stranger_gets_no_connection)
{
	struct mwin_wire_hello_tenant h = {
		.magic = MWIN_WIRE_MAGIC,
		.version = MWIN_WIRE_VERSION_TENANT,
		.tenant = "acme",
	};
	struct mwin_wire_proof_req r;
	struct mwin_wire_challenge c;
	struct mwin_window_bind b;
	struct mwpeer_reject rej;
	struct mwpeer *t1, *s;
	int err;

	t1 = test_peer_of("acme", key_a, NULL, &err);
	ASSERT_EQ(0, err);
	ASSERT_EQ(0, test_wait_peer_state(self->fd, mwpeer_id(t1),
					  MWIN_PEER_CONNECTED));
	b = test_bind(self->region, 0, 0, 4096, MWIN_ACCESS_READ, 0);
	b.tenant = self->tenant;
	ASSERT_EQ(0, mwin_window_create(self->fd, &b));
	EXPECT_MSG(t1, MWIN_WIRE_GRANT, b.id, b.rkey);
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_read(t1, b.rkey, b.iova, NULL, 64));
	ASSERT_EQ(0, mwin_info(self->fd, &self->before, NULL, 0));
	self->qps = test_count_qps();

	EXPECT_EQ(-ECONNREFUSED, raw_connect(&h, sizeof(h), NULL, &rej, NULL));
	EXPECT_EQ(MWIN_REJECT_BAD_HELLO, rej.wire_reason);
	h.version = MWIN_WIRE_VERSION_PROOF;
	EXPECT_EQ(-ECONNREFUSED, raw_connect(&h, sizeof(h), NULL, &rej, NULL));
	EXPECT_EQ(MWIN_REJECT_CHALLENGE, rej.wire_reason);
	ASSERT_EQ(0, challenge_of(&c));
	proof_req(&c, key_b, 0x77, &r);
	EXPECT_EQ(-ECONNREFUSED, raw_connect(&r, sizeof(r), key_b, &rej, NULL));
	EXPECT_EQ(MWIN_REJECT_BAD_PROOF, rej.wire_reason);
	s = test_peer_of("acme", key_b, NULL, &err);
	EXPECT_EQ(-ECONNREFUSED, err);
	mwpeer_close(s);
	EXPECT_NOTHING_KEPT();

	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_read(t1, b.rkey, b.iova, NULL, 64));
	EXPECT_EQ(MWIN_WINDOW_BOUND, test_window_state(self->fd, b.id));
	mwpeer_close(t1);
	mwin_window_destroy(self->fd, b.id);
}

TEST_F(conns, unknown_tenant_is_refused)
{
	uint64_t n = module_rejects(self->fd, MWIN_REJECT_UNKNOWN_TENANT);
	struct mwpeer *p;
	int err;

	p = test_peer_of("nosuch", key_a, NULL, &err);
	EXPECT_EQ(-ECONNREFUSED, err);
	EXPECT_EQ(MWIN_REJECT_UNKNOWN_TENANT, mwpeer_reject_reason(p));
	mwpeer_close(p);
	EXPECT_EQ(n + 1, module_rejects(self->fd, MWIN_REJECT_UNKNOWN_TENANT));
	EXPECT_NOTHING_KEPT();
}

TEST_F(conns, address_outside_allow_is_refused)
{
	struct mwin_tenant_info t = { .id = self->tenant,
				      .flags = MWIN_TENANT_SET_ALLOW };
	struct mwpeer *p;
	int err;

	t.allow[0] = net4(192, 0, 2, 0, 24);
	t.allow[1] = (struct mwin_tenant_net){ .family = 6, .prefix_len = 64,
					       .addr = { 0x20, 0x01, 0x0d, 0xb8 } };
	t.nr_allow = 2;
	ASSERT_EQ(0, mwin_tenant_set(self->fd, &t));
	p = test_peer_of("acme", key_a, NULL, &err);
	EXPECT_EQ(-ECONNREFUSED, err);
	EXPECT_EQ(MWIN_REJECT_ADDRESS, mwpeer_reject_reason(p));
	mwpeer_close(p);
	EXPECT_EQ(1, rejects(self->fd, self->tenant, MWIN_REJECT_ADDRESS));
	EXPECT_NOTHING_KEPT();

	/* the test host's network: admitted */
	t.allow[1] = net4(10, 0, 2, 0, 24);
	ASSERT_EQ(0, mwin_tenant_set(self->fd, &t));
	p = test_peer_of("acme", key_a, NULL, &err);
	EXPECT_EQ(0, err);
	mwpeer_close(p);
}

TEST_F(conns, connection_quota)
{
	struct mwin_tenant_info t = { .id = self->tenant, .max_conns = 1,
				      .flags = MWIN_TENANT_SET_MAX_CONNS };
	struct mwpeer *p, *q;
	int err;

	ASSERT_EQ(0, mwin_tenant_set(self->fd, &t));
	p = test_peer_of("acme", key_a, NULL, &err);
	ASSERT_EQ(0, err);
	/* a connection slot is taken once the proof verified */
	ASSERT_EQ(0, test_wait_peer_state(self->fd, mwpeer_id(p),
					  MWIN_PEER_CONNECTED));
	q = test_peer_of("acme", key_a, NULL, &err);
	EXPECT_EQ(-ECONNREFUSED, err);
	EXPECT_EQ(MWIN_REJECT_QUOTA, mwpeer_reject_reason(q));
	mwpeer_close(q);
	EXPECT_EQ(1, rejects(self->fd, self->tenant, MWIN_REJECT_QUOTA));

	/* the slot comes back when the first goes */
	err = mwpeer_id(p);
	mwpeer_close(p);
	ASSERT_EQ(0, test_wait_peer_gone(self->fd, err));
	q = test_peer_of("acme", key_a, NULL, &err);
	EXPECT_EQ(0, err);
	mwpeer_close(q);
}

/* Windows bound to a tenant's peers at once: max_windows. */
/* Set @t's limits on acme, then connect a peer of acme that proved it. */
static struct mwpeer *limited_peer(struct __test_metadata *_metadata,
				   int fd, struct mwin_tenant_info *t)
{
	struct mwpeer *p;
	int err;

	ASSERT_EQ(0, mwin_tenant_set(fd, t));
	p = test_peer_of("acme", key_a, NULL, &err);
	ASSERT_EQ(0, err);
	ASSERT_EQ(0, test_wait_peer_state(fd, mwpeer_id(p),
					  MWIN_PEER_CONNECTED));
	return p;
}

TEST_F(conns, window_quota)
{
	struct mwin_tenant_info t = { .id = self->tenant, .max_windows = 1,
				      .flags = MWIN_TENANT_SET_MAX_WINDOWS };
	struct mwin_window_bind a, b;
	struct mwpeer *p = limited_peer(_metadata, self->fd, &t);

	a = test_bind(self->region, mwpeer_id(p), 0, 4096, MWIN_ACCESS_READ, 0);
	ASSERT_EQ(0, mwin_window_create(self->fd, &a));
	b = test_bind(self->region, mwpeer_id(p), 8192, 4096,
		      MWIN_ACCESS_READ, 0);
	EXPECT_EQ(-EDQUOT, mwin_window_create(self->fd, &b));
	ASSERT_EQ(0, mwin_tenant_get(self->fd, self->tenant, 0, &t));
	EXPECT_EQ(1, t.nr_windows);
	ASSERT_EQ(0, mwin_window_destroy(self->fd, a.id));
	EXPECT_EQ(0, mwin_window_create(self->fd, &b));
	mwin_window_destroy(self->fd, b.id);
	mwpeer_close(p);
}

/* max_bytes: the bytes of its bound windows together, to a tenant too. */
TEST_F(conns, byte_quota)
{
	struct mwin_tenant_info t = { .id = self->tenant, .max_bytes = 12288,
				      .flags = MWIN_TENANT_SET_MAX_BYTES };
	struct mwin_window_bind a, b, c;
	struct mwpeer *p = limited_peer(_metadata, self->fd, &t);

	a = test_bind(self->region, mwpeer_id(p), 0, 8192, MWIN_ACCESS_READ, 0);
	ASSERT_EQ(0, mwin_window_create(self->fd, &a));
	b = test_bind(self->region, 0, 16384, 8192, MWIN_ACCESS_READ, 0);
	b.tenant = self->tenant;
	EXPECT_REFUSED(-EDQUOT, mwin_window_create(self->fd, &b));
	ASSERT_EQ(0, mwin_tenant_get(self->fd, self->tenant, 0, &t));
	EXPECT_EQ(1, t.nr_windows);
	EXPECT_EQ(8192, t.bytes_granted);
	/* a rebind that grows it past: refused, the window unbound */
	c = test_bind(0, 0, 0, 16384, MWIN_ACCESS_READ, 0);
	c.id = a.id;
	EXPECT_EQ(-EDQUOT, mwin_window_rebind(self->fd, &c));
	ASSERT_EQ(0, mwin_tenant_get(self->fd, self->tenant, 0, &t));
	EXPECT_EQ(0, t.nr_windows);
	EXPECT_EQ(0, t.bytes_granted);
	b.length = 12288;
	EXPECT_EQ(0, mwin_window_create(self->fd, &b));
	ASSERT_EQ(0, mwin_tenant_get(self->fd, self->tenant, 0, &t));
	EXPECT_EQ(12288, t.bytes_granted);
	mwin_window_destroy(self->fd, b.id);
	mwin_window_destroy(self->fd, a.id);
	mwpeer_close(p);
}

/* Anonymous peers: refused unless the module admits them, and capped. */
TEST_F(conns, anonymous_peers)
{
	struct mwpeer *p, *q, *r;
	int err;

	ASSERT_EQ(0, test_set_param("anonymous", 0));
	p = test_peer_of(NULL, NULL, NULL, &err);
	EXPECT_EQ(-ECONNREFUSED, err);
	EXPECT_EQ(MWIN_REJECT_ANONYMOUS, mwpeer_reject_reason(p));
	mwpeer_close(p);
	EXPECT_NOTHING_KEPT();

	/* one anonymous peer at most: it takes no tenant's slot */
	ASSERT_EQ(0, test_set_param("anonymous", 1));
	ASSERT_EQ(0, test_set_param("max_anon_peers", 1));
	p = test_peer_of(NULL, NULL, NULL, &err);
	EXPECT_EQ(0, err);
	ASSERT_EQ(0, test_wait_peer_state(self->fd, mwpeer_id(p),
					  MWIN_PEER_CONNECTED));
	q = test_peer_of(NULL, NULL, NULL, &err);
	EXPECT_EQ(-ECONNREFUSED, err);
	EXPECT_EQ(MWIN_REJECT_PEER_LIMIT, mwpeer_reject_reason(q));
	r = test_peer_of("acme", key_a, NULL, &err);
	EXPECT_EQ(0, err);
	mwpeer_close(r);
	mwpeer_close(q);
	mwpeer_close(p);
	EXPECT_EQ(0, test_set_param("max_anon_peers", 64));
}

/* One source address connects conn_rate times a second at most. */
TEST_F(conns, connection_rate)
{
	unsigned long old = test_param("conn_rate");
	struct rate_try r[RATE_BURST];
	int i, ok = 0, limited = 0;
	double start;

	ASSERT_EQ(0, test_set_param("conn_rate", 2));
	usleep(1100 * 1000);	/* a full bucket */
	start = test_now_s();
	ASSERT_EQ(0, rate_burst(NULL, 0, r));
	for (i = 0; i < RATE_BURST; i++) {
		ok += !r[i].err;
		limited += r[i].err == -ECONNREFUSED &&
			   r[i].reason == MWIN_REJECT_RATE;
	}
	/* no more than the full bucket and what refilled meanwhile */
	EXPECT_GE(2 + (int)(2 * (test_now_s() - start)), ok);
	EXPECT_EQ(0, test_set_param("conn_rate", old));
	EXPECT_LE(2, ok);
	EXPECT_LE(1, limited);
	EXPECT_EQ(RATE_BURST, ok + limited);
	EXPECT_EQ(limited, rejects(self->fd, self->tenant, MWIN_REJECT_RATE));
}

/* Destroying a tenant disconnects its peers; their windows are unbound. */
TEST_F(conns, destroy_disconnects)
{
	struct mwin_window_bind b;
	struct mwpeer *p, *q;
	uint32_t pid, qid;
	int err;

	p = test_peer_of("acme", key_a, NULL, &err);
	ASSERT_EQ(0, err);
	q = test_peer_of("acme", key_a, NULL, &err);
	ASSERT_EQ(0, err);
	pid = mwpeer_id(p);
	qid = mwpeer_id(q);
	ASSERT_EQ(0, test_wait_peer_state(self->fd, pid, MWIN_PEER_CONNECTED));
	b = test_bind(self->region, pid, 0, 4096,
		      MWIN_ACCESS_READ | MWIN_ACCESS_WRITE, 0);
	ASSERT_EQ(0, mwin_window_create(self->fd, &b));
	ASSERT_EQ(0, mwin_tenant_destroy(self->fd, self->tenant));
	EXPECT_EQ(0, test_wait_peer_gone(self->fd, pid));
	EXPECT_EQ(0, test_wait_peer_gone(self->fd, qid));
	EXPECT_EQ(MWIN_WINDOW_UNBOUND, test_window_state(self->fd, b.id));
	/* and no one connects as it any more */
	mwpeer_close(p);
	p = test_peer_of("acme", key_a, NULL, &err);
	EXPECT_EQ(-ECONNREFUSED, err);
	EXPECT_EQ(MWIN_REJECT_UNKNOWN_TENANT, mwpeer_reject_reason(p));
	mwpeer_close(p);
	mwpeer_close(q);
	mwin_window_destroy(self->fd, b.id);
}

/* A tenant without a key is admitted by name (and address) alone. */
TEST_F(conns, tenant_without_key)
{
	struct mwin_tenant_info t = test_tenant("open");
	struct mwpeer *p;
	int err;

	ASSERT_EQ(0, mwin_tenant_create(self->fd, &t));
	p = test_peer_of("open", NULL, NULL, &err);
	EXPECT_EQ(0, err);
	EXPECT_EQ(t.id, mwpeer_tenant_id(p));
	EXPECT_EQ(0, test_wait_peer_state(self->fd, mwpeer_id(p),
					  MWIN_PEER_CONNECTED));
	mwpeer_close(p);
	EXPECT_EQ(0, mwin_tenant_destroy(self->fd, t.id));
}

/* Windows for a tenant's peer: granted by the tenant's owner only. */
static int grant_to(int fd, uint32_t peer)
{
	struct mwin_window_bind b;
	uint32_t region;
	int ret;

	TEST_CHILD_CHECK(!mwin_region_create(fd, 1 << 16, MWIN_CREATE_FD_OWNED,
					&region, NULL));
	b = test_bind(region, peer, 0, 4096, MWIN_ACCESS_READ, 0);
	ret = mwin_window_create(fd, &b);
	if (!ret)
		mwin_window_destroy(fd, b.id);
	mwin_region_destroy(fd, region, MWIN_REGION_DESTROY_FORCE);
	return ret == -EPERM ? 2 : ret ? 3 : 0;
}

TEST_F(conns, only_the_owner_grants)
{
	struct mwin_tenant_info t = test_tenant("owned-peers");
	struct mwpeer *p, *anon;
	struct stat st;
	int err;

	t.owner = USER_A;
	ASSERT_EQ(0, mwin_tenant_create(self->fd, &t));
	p = test_peer_of("owned-peers", NULL, NULL, &err);
	ASSERT_EQ(0, err);
	anon = test_peer_of(NULL, NULL, NULL, &err);
	ASSERT_EQ(0, err);
	ASSERT_EQ(0, test_wait_peer_state(self->fd, mwpeer_id(p),
					  MWIN_PEER_CONNECTED));
	ASSERT_EQ(0, stat(MWIN_DEV_PATH, &st));
	ASSERT_EQ(0, chmod(MWIN_DEV_PATH, 0666));
	EXPECT_EQ(0, test_as_user(USER_A, grant_to, mwpeer_id(p)));
	EXPECT_EQ(2, test_as_user(USER_A + 1, grant_to, mwpeer_id(p)));
	EXPECT_EQ(0, test_as_user(USER_A + 1, grant_to, mwpeer_id(anon)));
	chmod(MWIN_DEV_PATH, st.st_mode & 07777);
	mwpeer_close(anon);
	mwpeer_close(p);
	EXPECT_EQ(0, mwin_tenant_destroy(self->fd, t.id));
}

/* ---- a tenant's windows, over either kind of region ------------------- */

/*
 * The tenant "mem" with key_a, a region of the variant's kind, and a peer
 * of the tenant that proved the key.
 */
FIXTURE(tenant_mem)
{
	int fd;
	uint32_t tenant;
	struct test_region region;
	struct mwpeer *p;
};

FIXTURE_VARIANT(tenant_mem)
{
	uint32_t kind;		/* the region's */
};

FIXTURE_VARIANT_ADD(tenant_mem, module)
{
	.kind = MWIN_REGION_KIND_MODULE,
};

/* a buffer of this process */
FIXTURE_VARIANT_ADD(tenant_mem, user)
{
	.kind = MWIN_REGION_KIND_USER,
};

FIXTURE_SETUP(tenant_mem)
{
	int err;

	self->fd = mwin_open();
	ASSERT_LE(0, self->fd);
	self->tenant = test_make_tenant(self->fd, "mem", key_a, MWIN_NO_OWNER);
	ASSERT_NE(0, self->tenant);
	ASSERT_EQ(0, test_region_create(self->fd, variant->kind, 16 * PAGE,
					&self->region));
	self->p = test_peer_of("mem", key_a, NULL, &err);
	ASSERT_EQ(0, err);
	ASSERT_EQ(0, test_wait_peer_state(self->fd, mwpeer_id(self->p),
					  MWIN_PEER_CONNECTED));
}

FIXTURE_TEARDOWN(tenant_mem)
{
	mwpeer_close(self->p);
	EXPECT_EQ(0, test_region_destroy(self->fd, &self->region));
	EXPECT_EQ(0, mwin_tenant_destroy(self->fd, self->tenant));
	close(self->fd);
}

/*
 * A window granted to the tenant: its peer is told, reads the region's
 * bytes and writes them, across a page and within the window alone; an
 * invalidate kills the rkey before it returns.
 */
TEST_F(tenant_mem, reads_and_writes_until_revoked)
{
	uint8_t *mem = self->region.mem;
	struct mwin_window_bind b;
	char got[16];

	memcpy(mem + 2 * PAGE - 8, "the owner wrote!", 16);
	ASSERT_EQ(0, test_grant_tenant(self->fd, self->region.id, self->tenant,
				       PAGE, 2 * PAGE,
				       MWIN_ACCESS_READ | MWIN_ACCESS_WRITE,
				       &b));
	EXPECT_MSG(self->p, MWIN_WIRE_GRANT, b.id, b.rkey);
	EXPECT_EQ(PAGE, b.iova);
	ASSERT_EQ(IBV_WC_SUCCESS, mwpeer_read(self->p, b.rkey, 2 * PAGE - 8,
					      got, 16));
	EXPECT_EQ(0, memcmp(got, "the owner wrote!", 16));
	/* a byte nobody wrote: the region's own */
	ASSERT_EQ(IBV_WC_SUCCESS, mwpeer_read(self->p, b.rkey, PAGE, got, 1));
	EXPECT_EQ(self->region.fill, (uint8_t)got[0]);

	ASSERT_EQ(IBV_WC_SUCCESS,
		  test_write_fenced(self->p, test_iwarp(self->p), b.rkey,
				    3 * PAGE - 6, "tenant", 6));
	EXPECT_EQ(0, memcmp(mem + 3 * PAGE - 6, "tenant", 6));
	EXPECT_EQ(self->region.fill, mem[3 * PAGE]);

	ASSERT_EQ(0, mwin_window_invalidate(self->fd, b.id));
	EXPECT_MSG(self->p, MWIN_WIRE_REVOKE, b.id, b.rkey);
	EXPECT_ACCESS_REFUSED(self->p, mwpeer_write(self->p, b.rkey, PAGE,
						    "x", 1));
	EXPECT_EQ(self->region.fill, mem[PAGE]);
}

/*
 * Each call that revokes a tenant's window kills its rkey before it
 * returns; the tenant's peer, cut off by the refused READ, comes back
 * with its key for the next.
 */
TEST_F(tenant_mem, each_revoke_kills_the_rkey)
{
	struct mwin_window_bind b;
	enum test_revoke c;
	uint32_t old;
	int r;

	for (c = 0; c < TEST_NR_REVOKES; c++) {
		TH_LOG("%s", test_revoke_name(c));
		ASSERT_EQ(0, test_grant_tenant(self->fd, self->region.id,
					       self->tenant, c * PAGE, PAGE,
					       MWIN_ACCESS_READ, &b));
		ASSERT_EQ(IBV_WC_SUCCESS, mwpeer_read(self->p, b.rkey,
						      c * PAGE, NULL, 8));
		old = b.rkey;
		ASSERT_EQ(0, test_revoke(self->fd, c, &b, self->region.id));
		if (c == TEST_REVOKE_REGION_DESTROY)
			self->region.id = 0;
		EXPECT_ACCESS_REFUSED(self->p, mwpeer_read(self->p, old,
							   c * PAGE, NULL, 8));
		ASSERT_EQ(0, test_wait_peer_gone(self->fd,
						 mwpeer_id(self->p)));
		r = mwpeer_reconnect(self->p);
		if (r)
			TH_LOG("reconnect: %s", mwpeer_errmsg(self->p));
		ASSERT_EQ(0, r);
		ASSERT_EQ(0, test_wait_peer_state(self->fd, mwpeer_id(self->p),
						  MWIN_PEER_CONNECTED));
	}
}

TEST_HARNESS_MAIN
