// SPDX-License-Identifier: GPL-2.0
/*
 * mwctl's tenants, run as a program against the real module: tenant
 * create, show, set and destroy, text and JSON, their keys and owners,
 * bad input, what a user without CAP_SYS_ADMIN may do, and a tenant's
 * peers and windows with their counters. Its own fixture, FIXTURE(tn),
 * below; running mwctl and reading its output: mwctl_run.h.
 */
#define _GNU_SOURCE
#include <pwd.h>
#include <sys/stat.h>

#include "mwctl_run.h"

/* Every tenant a test makes is named mwctl-*; the teardown destroys them. */
FIXTURE(tn)
{
	int fd;
	struct run r;
};

FIXTURE_SETUP(tn)
{
	memset(&self->r, 0, sizeof(self->r));
	self->fd = mwin_open();
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(tn)
{
	test_destroy_tenants(self->fd, "mwctl-");
	run_free(&self->r);
	close(self->fd);
	unlink("/tmp/mwctl-test.key");
}

/* A key file of @n bytes (the bytes of @key, or a pattern when NULL). */
static int put_key(const char *path, size_t n, const uint8_t *key)
{
	FILE *f = fopen(path, "w");
	size_t i;

	if (!f)
		return -errno;
	for (i = 0; i < n; i++)
		fputc(key ? key[i] : (int)(i * 37 + 11) & 0xff, f);
	return fclose(f) ? -errno : 0;
}

/* How mwctl names uid @uid: its user name, else the number. */
static const char *user_of(uid_t uid, char *buf, size_t len)
{
	const struct passwd *pw = getpwuid(uid);

	if (pw)
		return pw->pw_name;
	snprintf(buf, len, "%u", uid);
	return buf;
}

/* Every tenant with its counters ("-d -j tenant show"), to compare. */
static char *tenants_now(struct __test_metadata *_metadata, struct run *r)
{
	EXPECT_EQ(0, run_in(r, NULL, 0, AS_ROOT, "-d -j tenant show"));
	EXPECT_EQ(0, r->status);
	return strdup(r->out);
}

/* The id of tenant @name, 0 when there is none. */
static uint32_t tenant_id(int fd, const char *name)
{
	struct mwin_tenant_info t;

	return mwin_tenant_find(fd, name, &t) ? 0 : t.id;
}

TEST_F(tn, tenant_create_show_destroy)
{
	static const char key[] = "/tmp/mwctl-test.key";
	struct mwin_tenant_info ti;
	char want[512], wantd[512], owner[16], *line;
	const char *nobody = user_of(65534, owner, sizeof(owner));
	jv *j, *e, *a;
	uint32_t id, id2, i;

	/* every option */
	ASSERT_EQ(0, put_key(key, 32, NULL));
	RUN(&self->r, "tenant create mwctl-a key %s allow 10.0.2.0/24 allow fd00:1::/64 max-conns 4 max-windows 16 max-bytes 1M owner %s",
	    key, nobody);
	EXPECT_OK(&self->r);
	ASSERT_EQ(0, mwin_tenant_find(self->fd, "mwctl-a", &ti));
	id = ti.id;
	snprintf(want, sizeof(want),
		 "tenant mwctl-a id %u owner %s key yes allow 10.0.2.0/24,fd00:1::/64 max_conns 4 max_windows 16 max_bytes 1048576 conns 0 windows 0\n",
		 id, nobody);
	EXPECT_STREQ(want, self->r.out);
	EXPECT_EQ(32, ti.key_len);
	EXPECT_EQ(2, ti.nr_allow);
	EXPECT_EQ(4, ti.allow[0].family);
	EXPECT_EQ(24, ti.allow[0].prefix_len);
	EXPECT_EQ(0, memcmp(ti.allow[0].addr, "\x0a\x00\x02\x00", 4));
	EXPECT_EQ(6, ti.allow[1].family);
	EXPECT_EQ(64, ti.allow[1].prefix_len);
	EXPECT_EQ(4, ti.max_conns);
	EXPECT_EQ(16, ti.max_windows);
	EXPECT_EQ(1 << 20, ti.max_bytes);
	EXPECT_EQ(65534, ti.owner);

	/* show: by name, by id, abbreviated, all */
	RUN(&self->r, "tenant show mwctl-a");
	EXPECT_OK(&self->r);
	EXPECT_STREQ(want, self->r.out);
	RUN(&self->r, "tenant show %u", id);
	EXPECT_STREQ(want, self->r.out);
	RUN(&self->r, "ten sh %u", id);
	EXPECT_STREQ(want, self->r.out);
	RUN(&self->r, "tenant");
	EXPECT_OK(&self->r);
	line = text_line(self->r.out, "tenant mwctl-a ");
	ASSERT_NE(NULL, line);
	strcat(line, "\n");
	EXPECT_STREQ(want, line);
	free(line);

	/* JSON: the same fields; no counters without -d */
	RUN(&self->r, "-j tenant show mwctl-a");
	EXPECT_OK(&self->r);
	j = jparse(self->r.out);
	ASSERT_NE(NULL, j);
	ASSERT_NE(NULL, jget(j, "tenants"));
	EXPECT_EQ(1, jlen(jget(j, "tenants")));
	e = jfind(jget(j, "tenants"), "id", id);
	ASSERT_NE(NULL, e);
	EXPECT_STREQ("mwctl-a", jstr(e, "name"));
	EXPECT_STREQ(nobody, jstr(e, "owner"));
	EXPECT_EQ(65534, jnum(e, "owner_uid"));
	EXPECT_EQ(1, jbool(e, "key"));
	a = jget(e, "allow");
	ASSERT_NE(NULL, a);
	ASSERT_EQ(2, jlen(a));
	EXPECT_STREQ("10.0.2.0/24", jsval(jat(a, 0)));
	EXPECT_STREQ("fd00:1::/64", jsval(jat(a, 1)));
	EXPECT_EQ(4, jnum(e, "max_conns"));
	EXPECT_EQ(16, jnum(e, "max_windows"));
	EXPECT_EQ(1 << 20, jnum(e, "max_bytes"));
	EXPECT_EQ(0, jnum(e, "conns"));
	EXPECT_EQ(0, jnum(e, "windows"));
	EXPECT_EQ(NULL, jget(e, "connects"));
	EXPECT_EQ(NULL, jget(e, "grants"));
	EXPECT_EQ(NULL, jget(e, "bytes_granted"));
	EXPECT_EQ(NULL, jget(e, "rejects"));
	jfree(j);

	/* -d: the counters, and refusals: text only those not 0, JSON all */
	RUN(&self->r, "-d tenant show mwctl-a");
	EXPECT_OK(&self->r);
	snprintf(wantd, sizeof(wantd), "%.*s connects 0 grants 0 revokes 0 remote_invalidations 0 access_errors 0 bytes_granted 0 rejects -\n",
		 (int)strlen(want) - 1, want);
	EXPECT_STREQ(wantd, self->r.out);
	RUN(&self->r, "-d -j tenant show %u", id);
	j = jparse(self->r.out);
	ASSERT_NE(NULL, j);
	e = jfind(jget(j, "tenants"), "id", id);
	ASSERT_NE(NULL, e);
	EXPECT_EQ(0, jnum(e, "connects"));
	EXPECT_EQ(0, jnum(e, "grants"));
	EXPECT_EQ(0, jnum(e, "revokes"));
	EXPECT_EQ(0, jnum(e, "remote_invalidations"));
	EXPECT_EQ(0, jnum(e, "access_errors"));
	EXPECT_EQ(0, jnum(e, "bytes_granted"));
	a = jget(e, "rejects");
	ASSERT_NE(NULL, a);
	EXPECT_TRUE(jis_obj(a));
	EXPECT_EQ(MWIN_REJECT_CHALLENGE, jlen(a));
	for (i = 1; i <= MWIN_REJECT_CHALLENGE; i++)
		EXPECT_EQ(0, jnum(a, mwin_reject_reason_name(i)));
	jfree(j);

	/* no options: no key, any address, max_peers, no window limit */
	RUN(&self->r, "-j tenant create mwctl-b");
	EXPECT_OK(&self->r);
	j = jparse(self->r.out);
	ASSERT_NE(NULL, j);
	id2 = (uint32_t)jnum(j, "id");
	EXPECT_EQ(tenant_id(self->fd, "mwctl-b"), id2);
	EXPECT_STREQ("mwctl-b", jstr(j, "name"));
	EXPECT_STREQ("-", jstr(j, "owner"));
	EXPECT_EQ(NULL, jget(j, "owner_uid"));
	EXPECT_EQ(0, jbool(j, "key"));
	ASSERT_NE(NULL, jget(j, "allow"));
	EXPECT_EQ(0, jlen(jget(j, "allow")));
	EXPECT_EQ(test_param("max_peers"), jnum(j, "max_conns"));
	EXPECT_EQ(0, jnum(j, "max_windows"));
	jfree(j);
	RUN(&self->r, "tenant show mwctl-b");
	snprintf(want, sizeof(want),
		 "tenant mwctl-b id %u owner - key no allow any max_conns %lu max_windows - max_bytes - conns 0 windows 0\n",
		 id2, test_param("max_peers"));
	EXPECT_STREQ(want, self->r.out);

	/* destroy by name, by id; then the tenants are gone */
	RUN(&self->r, "tenant destroy mwctl-a");
	EXPECT_OK(&self->r);
	snprintf(want, sizeof(want), "tenant mwctl-a id %u destroyed\n", id);
	EXPECT_STREQ(want, self->r.out);
	EXPECT_EQ(-ENOENT, mwin_tenant_get(self->fd, id, 0, &ti));
	RUN(&self->r, "-j tenant destroy %u", id2);
	EXPECT_OK(&self->r);
	j = jparse(self->r.out);
	ASSERT_NE(NULL, j);
	EXPECT_STREQ("mwctl-b", jstr(j, "name"));
	EXPECT_EQ(id2, jnum(j, "id"));
	EXPECT_EQ(1, jbool(j, "destroyed"));
	jfree(j);
	EXPECT_EQ(0, tenant_id(self->fd, "mwctl-b"));
	RUN(&self->r, "tenant show mwctl-a");
	EXPECT_ERR(&self->r, 1, "mwctl: no tenant mwctl-a");
	RUN(&self->r, "tenant destroy %u", id);
	EXPECT_ERR(&self->r, 1, "mwctl: no tenant %u", id);
}

TEST_F(tn, tenant_set)
{
	static const char key[] = "/tmp/mwctl-test.key";
	struct mwin_tenant_info ti;
	char want[512], owner[16];
	jv *j;
	uint32_t id;

	RUN(&self->r, "tenant create mwctl-s allow 10.0.0.0/8 max-conns 3");
	ASSERT_OK(&self->r);
	id = tenant_id(self->fd, "mwctl-s");
	ASSERT_NE(0, id);

	/* one field: the others stay; set prints the tenant */
	RUN(&self->r, "tenant set mwctl-s max-conns 2");
	EXPECT_OK(&self->r);
	snprintf(want, sizeof(want),
		 "tenant mwctl-s id %u owner - key no allow 10.0.0.0/8 max_conns 2 max_windows - max_bytes - conns 0 windows 0\n",
		 id);
	EXPECT_STREQ(want, self->r.out);
	ASSERT_EQ(0, mwin_tenant_get(self->fd, id, 0, &ti));
	EXPECT_EQ(2, ti.max_conns);
	EXPECT_EQ(1, ti.nr_allow);
	EXPECT_EQ(0, ti.max_windows);

	RUN(&self->r, "tenant set %u max-windows 5", id);
	EXPECT_OK(&self->r);
	ASSERT_EQ(0, mwin_tenant_get(self->fd, id, 0, &ti));
	EXPECT_EQ(5, ti.max_windows);
	EXPECT_EQ(2, ti.max_conns);

	RUN(&self->r, "tenant set %u max-bytes 64K", id);
	EXPECT_OK(&self->r);
	ASSERT_EQ(0, mwin_tenant_get(self->fd, id, 0, &ti));
	EXPECT_EQ(65536, ti.max_bytes);
	EXPECT_EQ(5, ti.max_windows);

	RUN(&self->r, "tenant set mwctl-s owner 60001");
	EXPECT_OK(&self->r);
	snprintf(want, sizeof(want), " owner %s key no ",
		 user_of(60001, owner, sizeof(owner)));
	EXPECT_NE(NULL, strstr(self->r.out, want));
	ASSERT_EQ(0, mwin_tenant_get(self->fd, id, 0, &ti));
	EXPECT_EQ(60001, ti.owner);

	/* keys of the shortest and the longest lengths */
	ASSERT_EQ(0, put_key(key, MWIN_TENANT_KEY_MIN, NULL));
	RUN(&self->r, "tenant set mwctl-s key %s", key);
	EXPECT_OK(&self->r);
	EXPECT_NE(NULL, strstr(self->r.out, " key yes "));
	ASSERT_EQ(0, mwin_tenant_get(self->fd, id, 0, &ti));
	EXPECT_EQ(MWIN_TENANT_KEY_MIN, ti.key_len);
	ASSERT_EQ(0, put_key(key, MWIN_TENANT_KEY_MAX, NULL));
	RUN(&self->r, "tenant set mwctl-s key %s", key);
	EXPECT_OK(&self->r);
	ASSERT_EQ(0, mwin_tenant_get(self->fd, id, 0, &ti));
	EXPECT_EQ(MWIN_TENANT_KEY_MAX, ti.key_len);
	EXPECT_EQ(60001, ti.owner);

	/* allow replaces the whole list; one address is a /32 or a /128 */
	RUN(&self->r, "tenant set mwctl-s allow 192.0.2.0/24 allow 2001:db8::/32");
	EXPECT_OK(&self->r);
	EXPECT_NE(NULL, strstr(self->r.out, " allow 192.0.2.0/24,2001:db8::/32 "));
	ASSERT_EQ(0, mwin_tenant_get(self->fd, id, 0, &ti));
	EXPECT_EQ(2, ti.nr_allow);
	RUN(&self->r, "tenant set mwctl-s al 10.1.2.3 al ::1");
	EXPECT_OK(&self->r);
	EXPECT_NE(NULL, strstr(self->r.out, " allow 10.1.2.3/32,::1/128 "));
	ASSERT_EQ(0, mwin_tenant_get(self->fd, id, 0, &ti));
	EXPECT_EQ(2, ti.nr_allow);
	EXPECT_EQ(32, ti.allow[0].prefix_len);
	EXPECT_EQ(128, ti.allow[1].prefix_len);
	RUN(&self->r, "tenant set mwctl-s allow any");
	EXPECT_OK(&self->r);
	EXPECT_NE(NULL, strstr(self->r.out, " allow any "));
	ASSERT_EQ(0, mwin_tenant_get(self->fd, id, 0, &ti));
	EXPECT_EQ(0, ti.nr_allow);

	/* none: no key, no owner; several fields at once; JSON */
	RUN(&self->r, "-j tenant set mwctl-s key none owner none max-windows 0");
	EXPECT_OK(&self->r);
	j = jparse(self->r.out);
	ASSERT_NE(NULL, j);
	EXPECT_EQ(id, jnum(j, "id"));
	EXPECT_EQ(0, jbool(j, "key"));
	EXPECT_STREQ("-", jstr(j, "owner"));
	EXPECT_EQ(0, jnum(j, "max_windows"));
	EXPECT_EQ(2, jnum(j, "max_conns"));
	jfree(j);
	ASSERT_EQ(0, mwin_tenant_get(self->fd, id, 0, &ti));
	EXPECT_EQ(0, ti.key_len);
	EXPECT_EQ(MWIN_NO_OWNER, ti.owner);
	EXPECT_EQ(0, ti.max_windows);
	EXPECT_EQ(2, ti.max_conns);
}

/* Every bad input: one clear line, a non-zero status, no tenant changed. */
TEST_F(tn, tenant_bad_input)
{
	static const char *const cases[][3] = {
		{ "tenant create", "2", "mwctl: tenant create needs a tenant NAME" },
		{ "tenant create bad/name", "2",
		  "mwctl: bad tenant name 'bad/name' (1 to 23 of A-Z a-z 0-9 . _ -)" },
		{ "tenant create mwctl-0123456789abcdefgh", "2",	/* 24 */
		  "mwctl: bad tenant name 'mwctl-0123456789abcdefgh' (1 to 23 of A-Z a-z 0-9 . _ -)" },
		{ "tenant create mwctl-y key /tmp/mwctl-test.k15", "1",
		  "mwctl: key file /tmp/mwctl-test.k15 has 15 bytes: a key is 16 to 64 bytes (the file's bytes exactly, no newline stripped)" },
		{ "tenant create mwctl-y key /tmp/mwctl-test.k65", "1",
		  "mwctl: key file /tmp/mwctl-test.k65 has 65 bytes: a key is 16 to 64 bytes (the file's bytes exactly, no newline stripped)" },
		{ "tenant create mwctl-y key /nonexistent", "1",
		  "mwctl: cannot open key file /nonexistent: No such file or directory" },
		{ "tenant create mwctl-y allow 10.0.2.1/24", "2",
		  "mwctl: allow 10.0.2.1/24 has bits set past its /24 prefix (did you mean 10.0.2.0/24?)" },
		{ "tenant create mwctl-y allow fd00::1/64", "2",
		  "mwctl: allow fd00::1/64 has bits set past its /64 prefix (did you mean fd00::/64?)" },
		{ "tenant create mwctl-y allow 10.0.0.0/33", "2",
		  "mwctl: bad prefix length in '10.0.0.0/33' (0 to 32 for IPv4)" },
		{ "tenant create mwctl-y allow fd00::/129", "2",
		  "mwctl: bad prefix length in 'fd00::/129' (0 to 128 for IPv6)" },
		{ "tenant create mwctl-y allow 10.0.0.0/", "2",
		  "mwctl: bad prefix length in '10.0.0.0/' (0 to 32 for IPv4)" },
		{ "tenant create mwctl-y allow 10.0.0", "2",
		  "mwctl: bad address '10.0.0' for 'allow' (an IPv4 or IPv6 address, an optional /PREFIX, or any)" },
		{ "tenant create mwctl-y allow 1.0.0.1 allow 1.0.0.2 allow 1.0.0.3 allow 1.0.0.4 allow 1.0.0.5 allow 1.0.0.6 allow 1.0.0.7 allow 1.0.0.8 allow 1.0.0.9",
		  "2", "mwctl: at most 8 'allow' prefixes" },
		{ "tenant create mwctl-y allow any allow 10.0.0.0/8", "2",
		  "mwctl: 'allow any' cannot go with other 'allow' prefixes" },
		{ "tenant create mwctl-y owner mwctl-no-such-user", "2",
		  "mwctl: unknown user 'mwctl-no-such-user' for 'owner' (a user name, a numeric uid, or none)" },
		{ "tenant create mwctl-y owner 4294967295", "2",
		  "mwctl: unknown user '4294967295' for 'owner' (a user name, a numeric uid, or none)" },
		{ "tenant create mwctl-y max-conns 0", "2",
		  "mwctl: max-conns must be at least 1" },
		{ "tenant create mwctl-y max-windows 5x", "2",
		  "mwctl: bad count '5x' for 'max-windows' (a decimal number)" },
		{ "tenant create mwctl-y max-bytes 5Q", "2",
		  "mwctl: bad size '5Q' for 'max-bytes' (bytes: 4096, 0x1000, 64K, 2M, 1G)" },
		{ "tenant create mwctl-y m 3", "2",
		  "mwctl: 'm' is ambiguous for tenant create: max-conns, max-windows, max-bytes" },
		{ "tenant create mwctl-y max-conns 2 max-conns 3", "2",
		  "mwctl: 'max-conns' given twice" },
		{ "tenant create mwctl-y bogus 1", "2",
		  "mwctl: unknown keyword 'bogus' for tenant create (expected key, allow, max-conns, max-windows, max-bytes, owner)" },
		{ "tenant create mwctl-y allow", "2",
		  "mwctl: 'allow' needs a value (allow ADDR[/PREFIX])" },
		{ "tenant create mwctl-x", "1", "mwctl: a tenant mwctl-x exists" },
		{ "tenant set mwctl-x", "2",
		  "mwctl: tenant set needs something to change (key, allow, max-conns, max-windows, max-bytes, owner)" },
		{ "tenant set mwctl-x allow 10.0.0.1/8", "2",
		  "mwctl: allow 10.0.0.1/8 has bits set past its /8 prefix (did you mean 10.0.0.0/8?)" },
		{ "tenant set mwctl-x key /tmp/mwctl-test.k15", "1",
		  "mwctl: key file /tmp/mwctl-test.k15 has 15 bytes: a key is 16 to 64 bytes (the file's bytes exactly, no newline stripped)" },
		{ "tenant set mwctl-x owner mwctl-no-such-user", "2",
		  "mwctl: unknown user 'mwctl-no-such-user' for 'owner' (a user name, a numeric uid, or none)" },
		{ "tenant set mwctl-none max-conns 2", "1", "mwctl: no tenant mwctl-none" },
		{ "tenant set 4000000000 max-conns 2", "1", "mwctl: no tenant 4000000000" },
		{ "tenant set", "2", "mwctl: tenant set needs a tenant NAME or ID" },
		{ "tenant destroy mwctl-none", "1", "mwctl: no tenant mwctl-none" },
		{ "tenant destroy a/b", "2",
		  "mwctl: bad tenant name 'a/b' (1 to 23 of A-Z a-z 0-9 . _ -)" },
		{ "tenant destroy mwctl-x now", "2",
		  "mwctl: unexpected argument 'now' for tenant destroy" },
		{ "tenant show mwctl-none", "1", "mwctl: no tenant mwctl-none" },
		{ "-j tenant show 4000000000", "1", "mwctl: no tenant 4000000000" },
		{ "tenant show mwctl-x now", "2",
		  "mwctl: unexpected argument 'now' for tenant show" },
	};
	char *before, *after;
	size_t i;

	ASSERT_EQ(0, put_key("/tmp/mwctl-test.k15", 15, NULL));
	ASSERT_EQ(0, put_key("/tmp/mwctl-test.k65", 65, NULL));
	RUN(&self->r, "tenant create mwctl-x allow 10.0.0.0/8 max-conns 2");
	ASSERT_OK(&self->r);
	before = tenants_now(_metadata, &self->r);
	ASSERT_NE(NULL, strstr(before, "\"name\":\"mwctl-x\""));

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		RUN(&self->r, "%s", cases[i][0]);
		if (self->r.status != atoi(cases[i][1]) ||
		    strncmp(self->r.err, cases[i][2], strlen(cases[i][2])))
			TH_LOG("'mwctl %s': status %d, stderr %s", cases[i][0],
			       self->r.status, self->r.err);
		EXPECT_ERR(&self->r, atoi(cases[i][1]), "%s", cases[i][2]);
		after = tenants_now(_metadata, &self->r);
		EXPECT_STREQ(before, after);
		free(after);
	}

	/* over the module's max_peers: the module refuses, mwctl says why */
	RUN(&self->r, "tenant set mwctl-x max-conns %lu",
	    test_param("max_peers") + 1);
	EXPECT_ERR(&self->r, 1, "mwctl: max-conns %lu is over the module's max_peers %lu",
		   test_param("max_peers") + 1, test_param("max_peers"));
	after = tenants_now(_metadata, &self->r);
	EXPECT_STREQ(before, after);
	free(after);
	free(before);
	unlink("/tmp/mwctl-test.k15");
	unlink("/tmp/mwctl-test.k65");
}

/* Without CAP_SYS_ADMIN: create, set and destroy fail and change nothing. */
TEST_F(tn, tenant_not_admin)
{
	static const char *const cases[][2] = {
		{ "tenant create mwctl-n", "create" },
		{ "tenant set mwctl-own max-conns 1", "set" },
		{ "tenant set mwctl-other max-conns 1", "set" },	/* unseen */
		{ "tenant destroy mwctl-own", "destroy" },
		{ "tenant destroy mwctl-other", "destroy" },
	};
	char *before, *after;
	struct stat st;
	jv *j, *a;
	size_t i;

	RUN(&self->r, "tenant create mwctl-own owner 65534");
	ASSERT_OK(&self->r);
	RUN(&self->r, "tenant create mwctl-other");
	ASSERT_OK(&self->r);
	before = tenants_now(_metadata, &self->r);
	ASSERT_EQ(0, stat(MWIN_DEV_PATH, &st));
	ASSERT_EQ(0, chmod(MWIN_DEV_PATH, 0666));

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		EXPECT_EQ(0, run_in(&self->r, NULL, 0, AS_NOBODY, "%s",
				    cases[i][0]));
		EXPECT_ERR(&self->r, 1, "mwctl: tenant %s: Operation not permitted (needs CAP_SYS_ADMIN)",
			   cases[i][1]);
	}
	/* the owner sees its tenant, and no other */
	EXPECT_EQ(0, run_in(&self->r, NULL, 0, AS_NOBODY, "-j tenant show"));
	EXPECT_EQ(0, self->r.status);
	j = jparse(self->r.out);
	a = jget(j, "tenants");
	EXPECT_NE(NULL, a);
	if (a) {
		EXPECT_EQ(1, jlen(a));
		EXPECT_STREQ("mwctl-own", jstr(jat(a, 0), "name"));
	}
	jfree(j);
	EXPECT_EQ(0, run_in(&self->r, NULL, 0, AS_NOBODY,
			    "tenant show mwctl-other"));
	EXPECT_ERR(&self->r, 1, "mwctl: no tenant mwctl-other");

	chmod(MWIN_DEV_PATH, st.st_mode & 07777);
	after = tenants_now(_metadata, &self->r);
	EXPECT_STREQ(before, after);
	free(after);
	free(before);
}

/* A tenant's peers: peer show names the tenant; counters; destroy ends them. */
TEST_F(tn, tenant_peers)
{
	static const char key[] = "/tmp/mwctl-test.key";
	static const uint8_t bytes[32] = "mwctl tenant test key, 32 bytes";
	struct mwin_peer_info pi = { 0 };
	struct mwin_info info;
	struct mwpeer *p, *refused;
	uint32_t id, peer;
	uint64_t address;
	char want[256];
	jv *j, *e;
	int err, i;

	ASSERT_EQ(0, put_key(key, sizeof(bytes), bytes));
	RUN(&self->r, "tenant create mwctl-p key %s allow %s", key, test_host());
	ASSERT_OK(&self->r);
	id = tenant_id(self->fd, "mwctl-p");
	ASSERT_NE(0, id);
	p = mwpeer_connect_tenant(test_host(), 0, NULL, TEST_TIMEOUT_MS,
				  "mwctl-p", bytes, sizeof(bytes), &err);
	ASSERT_NE(NULL, p);
	peer = mwpeer_id(p);
	for (i = 0; i < TEST_TIMEOUT_MS; i++) {
		if (!mwin_peer_get(self->fd, peer, 0, &pi) &&
		    pi.state == MWIN_PEER_CONNECTED)
			break;
		usleep(1000);
	}
	EXPECT_EQ(id, pi.tenant);

	RUN(&self->r, "peer show %u", peer);
	EXPECT_OK(&self->r);
	EXPECT_NE(NULL, strstr(self->r.out, " tenant mwctl-p dev "));
	EXPECT_NE(NULL, strstr(self->r.out, " state connected "));
	RUN(&self->r, "-j peer show %u", peer);
	j = jparse(self->r.out);
	ASSERT_NE(NULL, j);
	e = jfind(jget(j, "peers"), "id", peer);
	ASSERT_NE(NULL, e);
	EXPECT_STREQ("mwctl-p", jstr(e, "tenant"));
	EXPECT_EQ(id, jnum(e, "tenant_id"));
	jfree(j);
	RUN(&self->r, "tenant show mwctl-p");
	EXPECT_NE(NULL, strstr(self->r.out, " key yes "));
	EXPECT_NE(NULL, strstr(self->r.out, " conns 1 windows 0\n"));

	/* refused from outside its prefixes: counted by reason */
	ASSERT_EQ(0, mwin_info(self->fd, &info, NULL, 0));
	address = info.rejects[MWIN_REJECT_ADDRESS];
	RUN(&self->r, "tenant set mwctl-p allow 192.0.2.0/24");
	EXPECT_OK(&self->r);
	refused = mwpeer_connect_tenant(test_host(), 0, NULL, TEST_TIMEOUT_MS,
					"mwctl-p", bytes, sizeof(bytes), &err);
	EXPECT_EQ(NULL, refused);
	EXPECT_EQ(-ECONNREFUSED, err);
	RUN(&self->r, "-d tenant show mwctl-p");
	EXPECT_OK(&self->r);
	EXPECT_NE(NULL, strstr(self->r.out, " conns 1 windows 0 connects 1 grants 0 revokes 0 remote_invalidations 0 access_errors 0 bytes_granted 0 rejects address:1,challenge:1\n"));
	RUN(&self->r, "-d -j tenant show mwctl-p");
	j = jparse(self->r.out);
	ASSERT_NE(NULL, j);
	e = jfind(jget(j, "tenants"), "id", id);
	ASSERT_NE(NULL, e);
	EXPECT_EQ(1, jnum(e, "connects"));
	EXPECT_EQ(1, jnum(jget(e, "rejects"), "address"));
	EXPECT_EQ(0, jnum(jget(e, "rejects"), "quota"));
	jfree(j);
	RUN(&self->r, "-d -j dev show");
	j = jparse(self->r.out);
	ASSERT_NE(NULL, j);
	EXPECT_EQ(address + 1, jnum(jget(j, "rejects"), "address"));
	jfree(j);
	RUN(&self->r, "-d dev show");
	snprintf(want, sizeof(want), "address:%llu",
		 (unsigned long long)address + 1);
	EXPECT_NE(NULL, strstr(self->r.out, want));

	/* destroy: its peer is disconnected */
	RUN(&self->r, "tenant destroy mwctl-p");
	EXPECT_OK(&self->r);
	EXPECT_EQ(0, test_wait_peer_gone(self->fd, peer));
	mwpeer_close(p);
}

/* -d tenant show's counters, as the module has them */
static void expect_counters(struct __test_metadata *_metadata, struct run *r,
			    int fd, uint32_t id)
{
	struct mwin_tenant_info ti;
	char want[256];
	jv *j, *e;

	ASSERT_EQ(0, mwin_tenant_get(fd, id, 0, &ti));
	ASSERT_EQ(0, run_in(r, NULL, 0, AS_ROOT, "-d tenant show %u", id));
	EXPECT_EQ(0, r->status);
	snprintf(want, sizeof(want), " connects %llu grants %llu revokes %llu remote_invalidations %llu access_errors %llu bytes_granted %llu rejects ",
		 (unsigned long long)ti.connects,
		 (unsigned long long)ti.grants,
		 (unsigned long long)ti.revokes,
		 (unsigned long long)ti.remote_invalidations,
		 (unsigned long long)ti.access_errors,
		 (unsigned long long)ti.bytes_granted);
	EXPECT_NE(NULL, strstr(r->out, want));
	ASSERT_EQ(0, run_in(r, NULL, 0, AS_ROOT, "-d -j tenant show %u", id));
	j = jparse(r->out);
	ASSERT_NE(NULL, j);
	e = jfind(jget(j, "tenants"), "id", id);
	EXPECT_NE(NULL, e);
	if (e) {
		EXPECT_EQ(ti.grants, jnum(e, "grants"));
		EXPECT_EQ(ti.revokes, jnum(e, "revokes"));
		EXPECT_EQ(ti.remote_invalidations,
			  jnum(e, "remote_invalidations"));
		EXPECT_EQ(ti.access_errors, jnum(e, "access_errors"));
		EXPECT_EQ(ti.bytes_granted, jnum(e, "bytes_granted"));
	}
	jfree(j);
}

/*
 * Windows granted to a tenant as a whole: create and rebind name it by
 * NAME or ID, show prints it, each refusal is one line in mwctl's terms
 * and makes no window, -d tenant show has the tenant's counters, and
 * tenant destroy leaves the windows unbound and without a tenant.
 */
TEST_F(tn, tenant_windows)
{
	static const char key[] = "/tmp/mwctl-test.key";
	static const uint8_t bytes[32] = "mwctl tenant test key, 32 bytes";
	struct mwin_window_info wi;
	struct mwin_tenant_info ti;
	struct mwpeer_msg m;
	struct mwpeer *p;
	uint32_t id, region, mine, w, w2, n;
	char want[512];
	struct stat st;
	jv *j, *e;
	int err;

	ASSERT_EQ(0, put_key(key, sizeof(bytes), bytes));
	RUN(&self->r, "tenant create mwctl-g key %s", key);
	ASSERT_OK(&self->r);
	RUN(&self->r, "tenant create mwctl-e");
	ASSERT_OK(&self->r);
	id = tenant_id(self->fd, "mwctl-g");
	ASSERT_NE(0, id);
	/* the region goes with the fixture's file, its windows with it */
	ASSERT_EQ(0, mwin_region_create(self->fd, 1 << 16, MWIN_CREATE_FD_OWNED,
					&region, NULL));
	p = mwpeer_connect_tenant(test_host(), 0, NULL, TEST_TIMEOUT_MS,
				  "mwctl-g", bytes, sizeof(bytes), &err);
	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, test_wait_peer_state(self->fd, mwpeer_id(p),
					  MWIN_PEER_CONNECTED));

	/* by name: the tenant's connection carries it, and is granted it */
	RUN(&self->r, "window create region %u tenant mwctl-g len 4K access rw",
	    region);
	EXPECT_OK(&self->r);
	w = first_id(self->r.out, "window");
	ASSERT_EQ(0, mwin_window_get(self->fd, w, 0, &wi));
	EXPECT_EQ(id, wi.tenant);
	EXPECT_EQ(mwpeer_id(p), wi.peer);
	snprintf(want, sizeof(want),
		 "window %u region %u peer %u tenant mwctl-g state bound rkey 0x%x iova 0x0 len 4096 access rw\n",
		 w, region, wi.peer, wi.rkey);
	EXPECT_STREQ(want, self->r.out);
	ASSERT_EQ(0, mwpeer_wait_grant(p, w, 0, &m, TEST_TIMEOUT_MS));
	EXPECT_EQ(wi.rkey, m.rkey);
	RUN(&self->r, "window show %u", w);
	EXPECT_STREQ(want, self->r.out);
	RUN(&self->r, "-j window show %u", w);
	EXPECT_OK(&self->r);
	j = jparse(self->r.out);
	ASSERT_NE(NULL, j);
	e = jfind(jget(j, "windows"), "id", w);
	ASSERT_NE(NULL, e);
	EXPECT_STREQ("mwctl-g", jstr(e, "tenant"));
	EXPECT_EQ(id, jnum(e, "tenant_id"));
	EXPECT_EQ(wi.peer, jnum(e, "peer"));
	jfree(j);

	/* by id; a rebind that names no grantee keeps the tenant */
	RUN(&self->r, "window create region %u tenant %u offset 8K len 4K access r",
	    region, id);
	EXPECT_OK(&self->r);
	w2 = first_id(self->r.out, "window");
	EXPECT_NE(NULL, strstr(self->r.out, " tenant mwctl-g state bound "));
	RUN(&self->r, "window rebind %u access r", w);
	EXPECT_OK(&self->r);
	EXPECT_NE(NULL, strstr(self->r.out, " tenant mwctl-g state bound "));
	ASSERT_EQ(0, mwin_window_get(self->fd, w, 0, &wi));
	EXPECT_EQ(id, wi.tenant);
	EXPECT_EQ(0, mwpeer_wait_grant(p, w, m.rkey, &m, TEST_TIMEOUT_MS));
	EXPECT_EQ(wi.rkey, m.rkey);

	/* refusals: one line each, and no window made */
	n = test_nr_windows(self->fd);
	RUN(&self->r, "window create region %u tenant mwctl-none len 4K access r",
	    region);
	EXPECT_ERR(&self->r, 1, "mwctl: no tenant mwctl-none");
	RUN(&self->r, "window create region %u tenant %u len 4K access r",
	    region, NO_ID);
	EXPECT_ERR(&self->r, 1, "mwctl: no tenant %u", NO_ID);
	RUN(&self->r, "window create region %u tenant mwctl-e offset 16K len 4K access r",
	    region);
	EXPECT_ERR(&self->r, 1, "mwctl: tenant mwctl-e has no connection that proved its key");
	EXPECT_EQ(n, test_nr_windows(self->fd));

	/* another user's region: to that user the tenant does not exist */
	ASSERT_EQ(0, stat(MWIN_DEV_PATH, &st));
	ASSERT_EQ(0, chmod(MWIN_DEV_PATH, 0666));
	EXPECT_EQ(0, run_in(&self->r, NULL, 0, AS_NOBODY,
			    "region create size 4K"));
	mine = first_id(self->r.out, "region");
	EXPECT_NE(0, mine);
	EXPECT_EQ(0, run_in(&self->r, NULL, 0, AS_NOBODY,
			    "window create region %u tenant %u len 4K access r",
			    mine, id));
	EXPECT_ERR(&self->r, 1, "mwctl: no tenant %u", id);
	/* by its name either */
	EXPECT_EQ(0, run_in(&self->r, NULL, 0, AS_NOBODY,
			    "window create region %u tenant mwctl-g len 4K access r",
			    mine));
	EXPECT_ERR(&self->r, 1, "mwctl: no tenant mwctl-g");
	chmod(MWIN_DEV_PATH, st.st_mode & 07777);
	EXPECT_EQ(n, test_nr_windows(self->fd));
	if (mine)
		EXPECT_EQ(0, mwin_region_destroy(self->fd, mine, 0));

	/* the counters: two windows of 4 KiB, granted and rebound once */
	ASSERT_EQ(0, mwin_tenant_get(self->fd, id, 0, &ti));
	EXPECT_EQ(3, ti.grants);
	EXPECT_EQ(1, ti.revokes);
	EXPECT_EQ(8192, ti.bytes_granted);
	EXPECT_EQ(2, ti.nr_windows);
	expect_counters(_metadata, &self->r, self->fd, id);

	/* destroy: its windows are unbound, and granted to no one */
	RUN(&self->r, "tenant destroy mwctl-g");
	EXPECT_OK(&self->r);
	EXPECT_EQ(0, test_wait_peer_gone(self->fd, mwpeer_id(p)));
	RUN(&self->r, "window show %u", w2);
	EXPECT_OK(&self->r);
	EXPECT_NE(NULL, strstr(self->r.out, " peer 0 tenant - state unbound "));
	RUN(&self->r, "window rebind %u", w2);
	EXPECT_ERR(&self->r, 1, "mwctl: window %u is unbound (its peer is gone); pass 'peer ID' or 'tenant NAME'",
		   w2);
	mwpeer_close(p);
}

TEST_HARNESS_MAIN
