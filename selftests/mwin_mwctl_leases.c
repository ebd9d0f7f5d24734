// SPDX-License-Identifier: GPL-2.0
/*
 * mwctl and leases, run as a program (build/tools/mwctl, or $MWCTL)
 * against the real module with a real peer: "expires DURATION" and
 * "once" on window create and rebind, window renew, the time left that
 * window show prints, and the errors and usage errors of each. The rest
 * of mwctl is mwin_mwctl.c's.
 *
 * The fixture is mwctl_fixture.h's. A lease of LONG_MS outlives any
 * test, so its time left can be checked; one of SHORT_MS runs out while a
 * test waits for it.
 */
#define _GNU_SOURCE
#include "mwctl_fixture.h"

#define LONG_MS		60000
#define SHORT_MS	200

/* "-j window create" in the fixture's region for its peer: the new id. */
static uint32_t mk(struct __test_metadata *_metadata, FIXTURE_DATA(mw) *self,
		   const char *args)
{
	uint32_t id = 0;
	jv *j;

	EXPECT_EQ(0, run_in(&self->r, NULL, 0, AS_ROOT,
			    "-j window create region %u peer %u %s",
			    self->region, self->peer, args));
	EXPECT_OK(&self->r);
	j = jparse(self->r.out);
	if (j && jnum(j, "id") != JMISSING)
		id = (uint32_t)jnum(j, "id");
	jfree(j);
	EXPECT_NE(0, id);
	return id;
}

/* Window @w of "@opts-j window show W", in *@doc to jfree(). */
static jv *window_json(struct __test_metadata *_metadata,
			      struct run *r, const char *opts, uint32_t w,
			      jv **doc)
{
	EXPECT_EQ(0, run_in(r, NULL, 0, AS_ROOT, "%s-j window show %u",
			    opts, w));
	EXPECT_OK(r);
	*doc = jparse(r->out);
	return jfind(jget(*doc, "windows"), "id", w);
}

/* JSON window @e has some of its lease left, at most @ms. */
static void expect_left(struct __test_metadata *_metadata,
			const jv *e, uint64_t ms)
{
	uint64_t left = jnum(e, "expires_in_ms");

	EXPECT_NE(JMISSING, left);
	EXPECT_LT(0, left);
	EXPECT_GE(ms, left);
}

/* The usage names the new command and keywords; no module needed. */
TEST(usage)
{
	struct run r = { 0 };

	RUN(&r, "window renew help");
	EXPECT_OK(&r);
	EXPECT_EQ(0, strncmp(r.out, "Usage: mwctl window", 19));
	EXPECT_NE(NULL, strstr(r.out, "mwctl window renew ID expires DURATION"));
	EXPECT_NE(NULL, strstr(r.out, "[ once ] [ expires DURATION ]"));
	RUN(&r, "stats help");
	EXPECT_NE(NULL, strstr(r.out, "expiries"));
	run_free(&r);
}

/*
 * create ... expires: the module's deadline is the call's time plus the
 * lease, whatever unit it was given in; show prints the time left, and
 * nothing for a window without a lease.
 */
TEST_F(mw, create_with_lease)
{
	static const struct {
		const char *arg;
		uint64_t ms;
	} units[] = {
		{ "30000", 30000 }, { "30000ms", 30000 }, { "30s", 30000 },
		{ "29.5s", 29500 }, { "29.25s", 29250 },
	};
	struct mwin_window_info wi;
	struct mwpeer_msg m;
	uint64_t t0, t1;
	uint32_t w, plain;
	jv *j, *e;
	char args[128];
	size_t i;

	/* the created window as JSON: the lease's end and time left */
	w = mk(_metadata, self, "len 4K access rw expires 60s");
	ASSERT_NE(0, w);
	j = jparse(self->r.out);
	ASSERT_NE(NULL, j);
	ASSERT_EQ(0, mwin_window_get(self->fd, w, 0, &wi));
	EXPECT_NE(0, wi.expires_ns);
	EXPECT_EQ(wi.expires_ns, jnum(j, "expires_ns"));
	expect_left(_metadata, j, LONG_MS);
	jfree(j);

	/* show, JSON and text */
	e = window_json(_metadata, &self->r, "", w, &j);
	ASSERT_NE(NULL, e);
	EXPECT_EQ(wi.expires_ns, jnum(e, "expires_ns"));
	expect_left(_metadata, e, LONG_MS);
	jfree(j);
	RUN(&self->r, "window show %u", w);
	EXPECT_OK(&self->r);
	EXPECT_NE(NULL, strstr(self->r.out, " access rw expires "));

	/* the peer is told the lease, not more than was given */
	ASSERT_EQ(0, test_next_about(self->p, MWIN_WIRE_GRANT, w, &m));
	EXPECT_EQ(wi.rkey, m.rkey);
	EXPECT_LT(0, m.lease_ms);
	EXPECT_GE(LONG_MS, m.lease_ms);

	/* every unit gives the lease it says */
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		snprintf(args, sizeof(args), "offset %zuK len 4K access r expires %s",
			 4 * (i + 1), units[i].arg);
		t0 = test_now_ns();
		w = mk(_metadata, self, args);
		t1 = test_now_ns();
		ASSERT_EQ(0, mwin_window_get(self->fd, w, 0, &wi));
		if (wi.expires_ns < t0 + units[i].ms * 1000000 ||
		    wi.expires_ns > t1 + units[i].ms * 1000000)
			TH_LOG("expires %s: a lease of %lld ms", units[i].arg,
			       (long long)(wi.expires_ns - t0) / 1000000);
		EXPECT_LE(t0 + units[i].ms * 1000000, wi.expires_ns);
		EXPECT_GE(t1 + units[i].ms * 1000000, wi.expires_ns);
	}

	/* no lease: no expires, in JSON or in text */
	plain = mk(_metadata, self, "offset 32K len 4K access r");
	ASSERT_NE(0, plain);
	e = window_json(_metadata, &self->r, "", plain, &j);
	ASSERT_NE(NULL, e);
	EXPECT_EQ(NULL, jget(e, "expires_in_ms"));
	EXPECT_EQ(NULL, jget(e, "expires_ns"));
	jfree(j);
	RUN(&self->r, "-d window show %u", plain);
	EXPECT_OK(&self->r);
	EXPECT_EQ(NULL, strstr(self->r.out, " expires "));
}

/* once: a flag of the window, shown with -d as the others are */
TEST_F(mw, once_in_flags)
{
	struct mwin_window_info wi;
	uint32_t once, plain;
	jv *j, *e;

	once = mk(_metadata, self, "len 4K access r once expires 60s");
	ASSERT_NE(0, once);
	ASSERT_EQ(0, mwin_window_get(self->fd, once, 0, &wi));
	EXPECT_EQ(MWIN_WINDOW_ONCE, wi.wflags & MWIN_WINDOW_ONCE);
	plain = mk(_metadata, self, "offset 4K len 4K access r");
	ASSERT_NE(0, plain);

	RUN(&self->r, "-d window show %u", once);
	EXPECT_OK(&self->r);
	EXPECT_NE(NULL, strstr(self->r.out, " offset 0 once binds 1 "));
	e = window_json(_metadata, &self->r, "-d ", once, &j);
	ASSERT_NE(NULL, e);
	EXPECT_EQ(1, jbool(e, "once"));
	EXPECT_EQ(0, jbool(e, "quiet"));
	jfree(j);

	/* a flag that is not set: JSON false, text nothing */
	e = window_json(_metadata, &self->r, "-d ", plain, &j);
	ASSERT_NE(NULL, e);
	EXPECT_EQ(0, jbool(e, "once"));
	jfree(j);
	RUN(&self->r, "-d window show %u", plain);
	EXPECT_EQ(NULL, strstr(self->r.out, " once"));

	/* flags are for -d */
	RUN(&self->r, "window show %u", once);
	EXPECT_EQ(NULL, strstr(self->r.out, " once"));
	e = window_json(_metadata, &self->r, "", once, &j);
	ASSERT_NE(NULL, e);
	EXPECT_EQ(NULL, jget(e, "once"));
	jfree(j);
}

/*
 * renew: the same rkey, a later end, told to the peer; it prints the
 * window with its new lease. A grant without a lease gets one.
 */
TEST_F(mw, renew_pushes_the_lease_back)
{
	struct mwin_window_info wi;
	struct mwpeer_msg m;
	uint64_t old;
	uint32_t w, plain;
	char want[256];
	jv *j;

	w = mk(_metadata, self, "len 4K access rw expires 10s");
	ASSERT_NE(0, w);
	ASSERT_EQ(0, mwin_window_get(self->fd, w, 0, &wi));
	old = wi.expires_ns;
	ASSERT_EQ(0, test_next_about(self->p, MWIN_WIRE_GRANT, w, &m));

	RUN(&self->r, "-j window renew %u expires 60s", w);
	EXPECT_OK(&self->r);
	j = jparse(self->r.out);
	ASSERT_NE(NULL, j);
	EXPECT_EQ(w, jnum(j, "id"));
	EXPECT_STREQ("bound", jstr(j, "state"));
	EXPECT_EQ(wi.rkey, jnum(j, "rkey"));
	EXPECT_LT(old, jnum(j, "expires_ns"));
	/* more than the 10 s the old lease had */
	EXPECT_LT(10000, jnum(j, "expires_in_ms"));
	expect_left(_metadata, j, LONG_MS);
	ASSERT_EQ(0, mwin_window_get(self->fd, w, 0, &wi));
	EXPECT_EQ(wi.expires_ns, jnum(j, "expires_ns"));
	jfree(j);

	/* the peer is granted the same rkey again, with the new lease */
	ASSERT_EQ(0, test_next_about(self->p, MWIN_WIRE_GRANT, w, &m));
	EXPECT_EQ(wi.rkey, m.rkey);
	EXPECT_LT(10000, m.lease_ms);
	EXPECT_GE(LONG_MS, m.lease_ms);

	/* text: the window as create prints it, and the time left */
	RUN(&self->r, "window renew %u expires 45s", w);
	EXPECT_OK(&self->r);
	snprintf(want, sizeof(want),
		 "window %u region %u peer %u tenant - state bound rkey 0x%x iova 0x0 len 4096 access rw expires ",
		 w, self->region, self->peer, wi.rkey);
	EXPECT_EQ(0, strncmp(self->r.out, want, strlen(want)));
	EXPECT_EQ(MWIN_WINDOW_BOUND, test_window_state(self->fd, w));

	/* a grant without a lease */
	plain = mk(_metadata, self, "offset 4K len 4K access r");
	ASSERT_NE(0, plain);
	RUN(&self->r, "window renew %u expires 60s", plain);
	EXPECT_OK(&self->r);
	EXPECT_NE(NULL, strstr(self->r.out, " expires "));
	ASSERT_EQ(0, mwin_window_get(self->fd, plain, 0, &wi));
	EXPECT_NE(0, wi.expires_ns);
}

/*
 * A lease that ran out: its rkey is dead (revoke reason expired), renew
 * says so and fails, rebind grants it again; a one-shot window is gone.
 */
TEST_F(mw, renew_after_expiry)
{
	struct mwin_window_info wi;
	struct mwpeer_msg m;
	uint32_t w, once;
	char args[64];
	jv *j;

	snprintf(args, sizeof(args), "len 4K access r expires %u", SHORT_MS);
	w = mk(_metadata, self, args);
	ASSERT_NE(0, w);
	ASSERT_EQ(0, test_wait_window(self->fd, w, MWIN_WINDOW_INVALIDATED,
				      &wi));
	EXPECT_EQ(0, wi.expires_ns);
	ASSERT_EQ(0, test_next_about(self->p, MWIN_WIRE_REVOKE, w, &m));
	EXPECT_EQ(MWIN_REVOKE_EXPIRED, m.access);
	RUN(&self->r, "window show %u", w);
	EXPECT_OK(&self->r);
	EXPECT_NE(NULL, strstr(self->r.out, " state invalidated "));
	EXPECT_EQ(NULL, strstr(self->r.out, " expires "));

	RUN(&self->r, "window renew %u expires 1s", w);
	EXPECT_ERR(&self->r, 1, "mwctl: window %u: its lease ran out; rebind it for a new grant",
		   w);
	EXPECT_EQ(MWIN_WINDOW_INVALIDATED, test_window_state(self->fd, w));

	/* counted, for the module and for the peer of this test alone */
	RUN(&self->r, "-j stats");
	EXPECT_OK(&self->r);
	j = jparse(self->r.out);
	ASSERT_NE(NULL, j);
	EXPECT_NE(JMISSING, jnum(j, "expiries"));
	EXPECT_LE(1, jnum(j, "expiries"));
	jfree(j);
	RUN(&self->r, "stats peer %u", self->peer);
	EXPECT_OK(&self->r);
	EXPECT_EQ(1, tnum(self->r.out, "expiries"));

	/* a rebind with a lease grants it again; one without ends the lease */
	RUN(&self->r, "window rebind %u expires 60s", w);
	EXPECT_OK(&self->r);
	EXPECT_NE(NULL, strstr(self->r.out, " state bound "));
	EXPECT_NE(NULL, strstr(self->r.out, " expires "));
	RUN(&self->r, "window rebind %u", w);
	EXPECT_OK(&self->r);
	EXPECT_EQ(NULL, strstr(self->r.out, " expires "));
	ASSERT_EQ(0, mwin_window_get(self->fd, w, 0, &wi));
	EXPECT_EQ(0, wi.expires_ns);

	/* one-shot: destroyed with its lease */
	snprintf(args, sizeof(args), "offset 4K len 4K access r once expires %u",
		 SHORT_MS);
	once = mk(_metadata, self, args);
	ASSERT_NE(0, once);
	ASSERT_EQ(0, test_wait_window_gone(self->fd, once));
	RUN(&self->r, "window renew %u expires 1s", once);
	EXPECT_ERR(&self->r, 1, "mwctl: no window %u", once);
}

/* renew of a window without a live grant, or of none at all */
TEST_F(mw, renew_errors)
{
	uint32_t w;

	w = mk(_metadata, self, "len 4K access r");
	ASSERT_NE(0, w);
	RUN(&self->r, "window invalidate %u", w);
	ASSERT_OK(&self->r);
	RUN(&self->r, "window renew %u expires 1s", w);
	EXPECT_ERR(&self->r, 1, "mwctl: window %u: no live grant (invalidated, handed back or unbound)",
		   w);
	EXPECT_EQ(MWIN_WINDOW_INVALIDATED, test_window_state(self->fd, w));

	RUN(&self->r, "window renew %u expires 1s", NO_ID);
	EXPECT_ERR(&self->r, 1, "mwctl: no window %u", NO_ID);
	RUN(&self->r, "-j window renew %u expires 500ms", NO_ID);
	EXPECT_ERR(&self->r, 1, "mwctl: no window %u", NO_ID);
}

/*
 * Bad durations, on each command that takes one: a usage error (status
 * 2) before anything is done: as many windows, ours as it was, and its
 * peer told nothing.
 */
TEST_F(mw, bad_durations)
{
	static const char *const bad[][2] = {
		{ "0", "mwctl: expires must be at least 1ms" },
		{ "-1", "mwctl: bad duration '-1' for 'expires' (500ms, 2s, 1.5s; a bare number is ms)" },
		{ "abc", "mwctl: bad duration 'abc' for 'expires' (500ms, 2s, 1.5s; a bare number is ms)" },
		{ "5h", "mwctl: bad duration '5h' for 'expires' (500ms, 2s, 1.5s; a bare number is ms)" },
		{ "99999999999ms", "mwctl: expires 99999999999ms is longer than the longest lease, 4294967295ms (49.7 days)" },
	};
	const char *cmds[3];
	char create[128], rebind[64], renew[64], *before;
	struct mwpeer_msg m;
	uint32_t w, n;
	size_t i, c;

	w = mk(_metadata, self, "len 4K access rw");
	ASSERT_NE(0, w);
	ASSERT_EQ(0, test_next_about(self->p, MWIN_WIRE_GRANT, w, &m));
	snprintf(create, sizeof(create),
		 "window create region %u peer %u offset 8K len 4K access r expires",
		 self->region, self->peer);
	snprintf(rebind, sizeof(rebind), "window rebind %u access r expires", w);
	snprintf(renew, sizeof(renew), "window renew %u expires", w);
	cmds[0] = create;
	cmds[1] = rebind;
	cmds[2] = renew;

	n = test_nr_windows(self->fd);
	RUN(&self->r, "-d -j window show %u", w);
	ASSERT_OK(&self->r);
	before = strdup(self->r.out);
	ASSERT_NE(NULL, before);

	for (c = 0; c < 3; c++) {
		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			RUN(&self->r, "%s %s", cmds[c], bad[i][0]);
			if (self->r.status != 2 || strncmp(self->r.err, bad[i][1],
							   strlen(bad[i][1])))
				TH_LOG("'mwctl %s %s': status %d, stderr %s",
				       cmds[c], bad[i][0], self->r.status,
				       self->r.err);
			EXPECT_ERR(&self->r, 2, "%s", bad[i][1]);
			EXPECT_EQ(n, test_nr_windows(self->fd));
			RUN(&self->r, "-d -j window show %u", w);
			EXPECT_STREQ(before, self->r.out);
		}
	}
	EXPECT_FALSE(test_told_about(self->p, 0, w));
	free(before);
}

TEST_HARNESS_MAIN
