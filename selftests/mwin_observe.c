// SPDX-License-Identifier: GPL-2.0
/*
 * What an operator sees of the module, held against what happened: why a
 * peer went (MWIN_MONITOR's PEER_DOWN, the downs of MWIN_STATS, the
 * tracepoint), counters that move by exactly the binds, revokes,
 * messages and attacks made, a window's story in the tracepoints (system
 * "mwin" in tracefs), the module's QPs, MRs, PDs and CQs in iproute2's
 * rdma tool, mwctl stats, and mwpeer's command line.
 *
 * Tenants made here are named ob-*: the setup and the teardown destroy
 * them, so that a test killed by its timeout leaves none to the next.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <poll.h>

#include "mwctl_run.h"
#include "mwin_trace.h"

#define REGION_LEN	(1UL << 20)
#define PREFIX		"ob-"
#define MAX_PEERS	8

/* ---- without the module: the command lines ------------------------ */

/* mwpeer: --help and --version; a bad value names its option. */
TEST(mwpeer_command_line)
{
	static const char *const bad[][2] = {
		{ "-t x 10.0.2.15", "bad value 'x' for --timeout (milliseconds)" },
		{ "--timeout 0 10.0.2.15", "bad value '0' for --timeout (milliseconds)" },
		{ "-p 70000 10.0.2.15", "bad value '70000' for --port (1 to 65535)" },
		{ "--buffer 0 10.0.2.15", "bad value '0' for --buffer (bytes, 1 to 4 GiB)" },
		{ "-r 8 10.0.2.15", "bad value '8' for --retry (1 to 7)" },
		{ "--tenant a/b 10.0.2.15",
		  "bad value 'a/b' for --tenant (1 to 23 of A-Z a-z 0-9 . _ -)" },
		{ "--retry", "option --retry needs a value (try 'mwpeer --help')" },
		{ "--key k 10.0.2.15", "--key needs --tenant" },
		{ "--bogus 10.0.2.15",
		  "unknown or ambiguous option '--bogus' (try 'mwpeer --help')" },
		{ "-z 10.0.2.15", "unknown option '-z' (try 'mwpeer --help')" },
		{ "", "no HOST to connect to (try 'mwpeer --help')" },
		{ "a b", "unexpected argument 'b' after HOST a" },
	};
	static const char *const help[] = { "--help", "-h" };
	static const char *const version[] = { "--version", "-V" };
	struct run r = { 0 };
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ASSERT_EQ(0, run_prog(&r, PROG_MWPEER, NULL, 0, AS_ROOT, "%s",
				      bad[i][0]));
		EXPECT_ERR(&r, 2, "mwpeer: %s", bad[i][1]);
	}
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, run_prog(&r, PROG_MWPEER, NULL, 0, AS_ROOT, "%s",
				      help[i]));
		EXPECT_OK(&r);
		EXPECT_EQ(0, strncmp(r.out, "usage: mwpeer ", 14));
		EXPECT_NE(NULL, strstr(r.out, "-t, --timeout TIMEOUT_MS"));
		EXPECT_NE(NULL, strstr(r.out, "-V, --version"));
		ASSERT_EQ(0, run_prog(&r, PROG_MWPEER, NULL, 0, AS_ROOT, "%s",
				      version[i]));
		EXPECT_OK(&r);
		EXPECT_EQ(0, strncmp(r.out, "mwpeer ", 7));
		EXPECT_NE(NULL, strstr(r.out, "(mwin wire versions 2 and 4)\n"));
	}
	run_free(&r);
}

/* mwctl stats: usage errors, before /dev/mwin is opened. */
TEST(mwctl_stats_usage)
{
	static const char *const cases[][2] = {
		{ "stats peer 1 tenant ob-x",
		  "stats show takes 'peer ID' or 'tenant NAME', not both" },
		{ "stats peer x", "bad peer id 'x' (a positive number)" },
		{ "stats show peer", "'peer' needs a value (peer ID)" },
		{ "stats tenant a/b",
		  "bad tenant name 'a/b' (1 to 23 of A-Z a-z 0-9 . _ -)" },
		{ "stats bogus",
		  "unknown keyword 'bogus' for stats show (expected peer, tenant)" },
	};
	static const char *const help[] = { "stats help", "stats -h", "st sh -h" };
	struct run r = { 0 };
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ASSERT_EQ(0, run_in(&r, NULL, 0, AS_NODEV, "%s", cases[i][0]));
		EXPECT_ERR(&r, 2, "mwctl: %s", cases[i][1]);
	}
	for (i = 0; i < sizeof(help) / sizeof(help[0]); i++) {
		ASSERT_EQ(0, run_in(&r, NULL, 0, AS_NODEV, "%s", help[i]));
		EXPECT_OK(&r);
		EXPECT_EQ(0, strncmp(r.out, "Usage: mwctl stats ", 19));
	}
	run_free(&r);
}

/* ---- with the module ------------------------------------------------ */

FIXTURE(obs)
{
	int fd;
	uint32_t region;
	struct mwpeer *peers[MAX_PEERS];
	int n;
	char trace[256];	/* a tracing instance made, to remove */
	struct run r;
};

FIXTURE_SETUP(obs)
{
	self->fd = mwin_open();
	ASSERT_LE(0, self->fd);
	test_destroy_tenants(self->fd, PREFIX);
	ASSERT_EQ(0, mwin_region_create(self->fd, REGION_LEN, 0, &self->region,
					NULL));
}

FIXTURE_TEARDOWN(obs)
{
	int i;

	if (self->trace[0])
		rmdir(self->trace);
	/* gone before the next test counts */
	for (i = 0; i < self->n; i++)
		test_close_peer(self->fd, self->peers[i]);
	test_destroy_tenants(self->fd, PREFIX);
	mwin_region_destroy(self->fd, self->region, MWIN_REGION_DESTROY_FORCE);
	run_free(&self->r);
	close(self->fd);
}

/*
 * A connection of tenant @name (NULL: anonymous) that the module has
 * CONNECTED; the teardown closes it.
 */
static struct mwpeer *join(struct __test_metadata *_metadata,
			   FIXTURE_DATA(obs) *self, const char *name)
{
	struct mwpeer *p;
	int err;

	ASSERT_GT(MAX_PEERS, self->n);
	p = test_peer_of(name, NULL, NULL, &err);
	ASSERT_NE(NULL, p);
	self->peers[self->n++] = p;
	ASSERT_EQ(0, err);
	ASSERT_EQ(0, test_wait_peer_state(self->fd, mwpeer_id(p),
					  MWIN_PEER_CONNECTED));
	return p;
}

/* 4 KiB at @off of the fixture's region for @p, rw; @p has the grant. */
static void grant(struct __test_metadata *_metadata, FIXTURE_DATA(obs) *self,
		  struct mwpeer *p, uint64_t off, struct mwin_window_bind *b)
{
	*b = test_bind(self->region, mwpeer_id(p), off, 4096,
		       MWIN_ACCESS_READ | MWIN_ACCESS_WRITE, 0);
	ASSERT_EQ(0, mwin_window_create(self->fd, b));
	ASSERT_EQ(0, mwpeer_wait_grant(p, b->id, 0, NULL, TEST_TIMEOUT_MS));
}

/* Rebind @b with @access, its range and peer @p kept; @p has the grant. */
static void rebind(struct __test_metadata *_metadata, FIXTURE_DATA(obs) *self,
		   struct mwpeer *p, struct mwin_window_bind *b,
		   uint32_t access)
{
	uint32_t old = b->rkey;

	ASSERT_EQ(0, test_rebind(self->fd, b, 0, b->offset, b->length, access));
	ASSERT_EQ(0, mwpeer_wait_grant(p, b->id, old, NULL, TEST_TIMEOUT_MS));
}

/* Take @p's messages up to the revoke of @rkey of window @w. */
static int took_revoke(struct mwpeer *p, uint32_t w, uint32_t rkey)
{
	struct mwpeer_msg m;

	while (!test_next_about(p, MWIN_WIRE_REVOKE, w, &m))
		if (m.rkey == rkey)
			return 0;
	return -ETIMEDOUT;
}

/*
 * A remote access error's reason: a request failed (qp-error), or the
 * device told of the QP's error first (qp-event: IB_EVENT_QP_ACCESS_ERR,
 * which newer rxe reports).
 */
static bool is_access_error(uint32_t reason)
{
	return reason == MWIN_DOWN_QP_ERROR || reason == MWIN_DOWN_QP_EVENT;
}

/* @p reads 8 bytes across the end of its window @b: the module drops it. */
static void read_past_end(struct __test_metadata *_metadata,
			  FIXTURE_DATA(obs) *self, struct mwpeer *p,
			  const struct mwin_window_bind *b)
{
	uint32_t id = mwpeer_id(p);

	EXPECT_ACCESS_REFUSED(p,
		  mwpeer_read(p, b->rkey, b->iova + b->length - 4, NULL, 8));
	ASSERT_EQ(0, test_wait_peer_gone(self->fd, id));
}

/* The standard output of shell command @cmd. */
static char *sh_out(const char *cmd)
{
	FILE *f = popen(cmd, "r");
	char *out;

	if (!f)
		return strdup("");
	out = read_all(fileno(f));
	pclose(f);
	return out;
}

/* ---- the RDMA tools -------------------------------------------------- */

/*
 * A peer's QP, as MWIN_PEER_GET and mwctl give its number, is in rdma
 * resource show qp, a kernel QP of mwin's connected to the peer's QP; its
 * window's MR is in rdma resource show mr with the window's rkey, and
 * mwin's PDs and CQs are listed too.
 */
TEST_F(obs, qp_in_rdma_tool)
{
	struct mwin_window_bind b;
	struct mwin_peer_info pi;
	char cmd[128], want[64], *out, *line;
	struct mwpeer *p;
	jv *j;

	if (test_sh("command -v rdma > /dev/null 2>&1"))
		SKIP(return, "no rdma tool (iproute2)");
	p = join(_metadata, self, NULL);
	ASSERT_EQ(0, mwin_peer_get(self->fd, mwpeer_id(p), 0, &pi));
	RUN(&self->r, "-j peer show %u", pi.id);
	EXPECT_OK(&self->r);
	j = jparse(self->r.out);
	ASSERT_NE(NULL, j);
	EXPECT_EQ(pi.qpn, jnum(jfind(jget(j, "peers"), "id", pi.id), "qpn"));
	jfree(j);

	snprintf(cmd, sizeof(cmd), "rdma resource show qp lqpn %u 2>&1", pi.qpn);
	out = sh_out(cmd);
	snprintf(want, sizeof(want), " lqpn %u ", pi.qpn);
	line = line_with(out, want);
	ASSERT_NE(NULL, line) TH_LOG("%s: %s", cmd, out);
	/* iproute2 prints a kernel owner's name in brackets */
	EXPECT_NE(NULL, strstr(line, " comm [mwin]")) TH_LOG("%s", line);
	/*
	 * siw gives the tool neither (siw_query_qp() fills no state, and
	 * iWARP has no remote QP number): "rqpn 0 type RC state RESET"
	 */
	snprintf(want, sizeof(want), " rqpn %u ", mwpeer_qp_num(p));
	if (test_on_rxe()) {
		EXPECT_NE(NULL, strstr(line, want)) TH_LOG("%s", line);
		EXPECT_NE(NULL, strstr(line, " type RC state RTS "))
			TH_LOG("%s", line);
	}
	free(line);
	free(out);

	snprintf(cmd, sizeof(cmd), "rdma -j resource show qp lqpn %u", pi.qpn);
	out = sh_out(cmd);
	j = jparse(out);
	ASSERT_NE(NULL, j) TH_LOG("%s: %s", cmd, out);
	EXPECT_STREQ("mwin", jstr(jfind(j, "lqpn", pi.qpn), "comm"));
	jfree(j);
	free(out);

	grant(_metadata, self, p, 0, &b);
	out = sh_out("rdma resource show mr");
	snprintf(want, sizeof(want), " rkey 0x%x ", b.rkey);
	line = line_with(out, want);
	ASSERT_NE(NULL, line) TH_LOG("no MR with rkey 0x%x: %s", b.rkey, out);
	EXPECT_NE(NULL, strstr(line, " comm [mwin]")) TH_LOG("%s", line);
	free(line);
	free(out);
	out = sh_out("rdma resource show pd");
	EXPECT_NE(NULL, strstr(out, " comm [mwin]")) TH_LOG("%s", out);
	free(out);
	out = sh_out("rdma resource show cq");
	EXPECT_NE(NULL, strstr(out, " comm [mwin]")) TH_LOG("%s", out);
	free(out);
}

/* ---- tracepoints ----------------------------------------------------- */

/*
 * A peer connects, a window is granted to it, rebound, invalidated and
 * rebound again, then the peer reads past its end and is dropped: the
 * mwin events tell it all, in that order, with the rkeys.
 */
TEST_F(obs, tracepoints_tell_the_story)
{
	struct mwin_window_bind b;
	struct mwin_peer_info pi;
	struct want_ev w[12];
	uint32_t r1, r2, r3, id;
	const char *why = trace_start("mwin_observe", self->trace,
				      sizeof(self->trace));
	struct mwpeer *p;
	char *t;
	int k;

	if (why)
		SKIP(return, "%s", why);
	p = join(_metadata, self, NULL);
	id = mwpeer_id(p);
	ASSERT_EQ(0, mwin_peer_get(self->fd, id, 0, &pi));
	grant(_metadata, self, p, 0, &b);
	r1 = b.rkey;
	rebind(_metadata, self, p, &b, MWIN_ACCESS_READ);
	r2 = b.rkey;
	ASSERT_EQ(0, mwin_window_invalidate(self->fd, b.id));
	rebind(_metadata, self, p, &b, MWIN_ACCESS_READ);
	r3 = b.rkey;
	read_past_end(_metadata, self, p, &b);
	EXPECT_EQ(0, trace_put(self->trace, "events/mwin/enable", "0"));
	t = trace_read(self->trace, "trace");

	want(&w[0], "mwin_peer_up", "peer=%u tenant=0 qpn=%u", id, pi.qpn);
	want(&w[1], "mwin_window_bind", "window=%u peer=%u rkey=0x%x old_rkey=0x0",
	     b.id, id, r1);
	want(&w[2], "mwin_msg_grant", "window=%u peer=%u rkey=0x%x", b.id, id, r1);
	/* a rebind kills the old rkey before the new one is bound */
	want(&w[3], "mwin_window_revoke", "window=%u rkey=0x%x reason=rebind",
	     b.id, r1);
	want(&w[4], "mwin_window_bind", "window=%u rkey=0x%x old_rkey=0x%x",
	     b.id, r2, r1);
	want(&w[5], "mwin_msg_revoke", "window=%u peer=%u rkey=0x%x reason=rebind",
	     b.id, id, r1);
	want(&w[6], "mwin_msg_grant", "window=%u rkey=0x%x", b.id, r2);
	want(&w[7], "mwin_window_revoke",
	     "window=%u peer=%u rkey=0x%x reason=invalidate ns=*", b.id, id, r2);
	want(&w[8], "mwin_msg_revoke", "window=%u rkey=0x%x reason=invalidate",
	     b.id, r2);
	/* nothing was alive to kill */
	want(&w[9], "mwin_window_bind", "window=%u rkey=0x%x old_rkey=0x0",
	     b.id, r3);
	want(&w[10], "mwin_msg_grant", "window=%u rkey=0x%x", b.id, r3);
	want(&w[11], "mwin_peer_down", "peer=%u reason=%s|%s", id,
	     mwin_down_reason_name(MWIN_DOWN_QP_ERROR),
	     mwin_down_reason_name(MWIN_DOWN_QP_EVENT));
	k = story_told(t, w, 12);
	EXPECT_EQ(12, k) {
		TH_LOG("no %s: %s after the %d before it in:\n%.6000s",
		       w[k].event, w[k].fields, k, t);
	}
	free(t);
}

/* The completion vectors of the first RDMA device (rxe: one per CPU). */
static int device_vectors(void)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = list && list[0] ?
				  ibv_open_device(list[0]) : NULL;
	int n = ctx ? ctx->num_comp_vectors : 0;

	if (ctx)
		ibv_close_device(ctx);
	if (list)
		ibv_free_device_list(list);
	return n;
}

/* The vector mwin_peer_up gave peer @id in trace @t, or -1. */
static int peer_vector(const char *t, uint32_t id)
{
	char tag[64];
	const char *at, *v;

	snprintf(tag, sizeof(tag), " mwin_peer_up: peer=%u ", id);
	at = strstr(t, tag);
	v = at ? strstr(at, " vector=") : NULL;
	return v ? atoi(v + strlen(" vector=")) : -1;
}

/*
 * Peers' CQs take the device's completion vectors in turn: two peers that
 * connect one after the other are on different vectors, when the device
 * and the CPUs give two.
 */
TEST_F(obs, peers_take_vectors_in_turn)
{
	const char *why = trace_start("mwin_observe", self->trace,
				      sizeof(self->trace));
	uint32_t a, b;
	int va, vb;
	char *t;

	if (why)
		SKIP(return, "%s", why);
	if (device_vectors() < 2 || sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "one completion vector or one CPU");
	a = mwpeer_id(join(_metadata, self, NULL));
	b = mwpeer_id(join(_metadata, self, NULL));
	EXPECT_EQ(0, trace_put(self->trace, "events/mwin/enable", "0"));
	t = trace_read(self->trace, "trace");
	va = peer_vector(t, a);
	vb = peer_vector(t, b);
	EXPECT_LE(0, va) TH_LOG("%.4000s", t);
	EXPECT_LE(0, vb) TH_LOG("%.4000s", t);
	EXPECT_NE(va, vb);
	free(t);
}

/* ---- counters -------------------------------------------------------- */

/* By how much each counter of one scope must have moved since a snapshot. */
struct moved {
	int64_t stats[MWIN_NR_STATS];
	int64_t downs[MWIN_DOWN_SLOTS];
};

/* QP events come as the device pleases (rxe reports few): not exact */
static bool exact(uint32_t stat)
{
	return stat != MWIN_STAT_QP_EVENTS && stat != MWIN_STAT_QP_ACCESS_ERRORS;
}

/*
 * How many counters of @now did not move by @m since @base; each is
 * logged when @_metadata is given.
 */
static int counts_off(struct __test_metadata *_metadata,
		      const struct mwin_stats *now,
		      const struct mwin_stats *base, const struct moved *m)
{
	int64_t d;
	uint32_t i;
	int off = 0;

	for (i = 0; i < MWIN_NR_STATS; i++) {
		d = now->stats[i] - base->stats[i];
		if (exact(i) && d != m->stats[i] && ++off && _metadata)
			TH_LOG("scope %u id %u: %s moved by %lld, not %lld",
			       now->scope, now->id, mwin_stat_name(i),
			       (long long)d, (long long)m->stats[i]);
	}
	for (i = 0; i < MWIN_DOWN_SLOTS; i++) {
		d = now->downs[i] - base->downs[i];
		if (d != m->downs[i] && ++off && _metadata)
			TH_LOG("scope %u id %u: downs %s moved by %lld, not %lld",
			       now->scope, now->id, mwin_down_reason_name(i),
			       (long long)d, (long long)m->downs[i]);
	}
	return off;
}

/*
 * The counters of @scope @id moved by @m since @base. The module counts
 * after the fact (completions, teardowns): wait for it.
 */
static void expect_moved(struct __test_metadata *_metadata, int fd,
			 uint32_t scope, uint32_t id,
			 const struct mwin_stats *base, const struct moved *m)
{
	struct mwin_stats now;
	int tries;

	for (tries = 0; tries < TEST_TIMEOUT_MS / 10; tries++) {
		ASSERT_EQ(0, mwin_stats(fd, scope, id, &now));
		if (!counts_off(NULL, &now, base, m))
			return;
		usleep(10000);
	}
	EXPECT_EQ(0, counts_off(_metadata, &now, base, m));
}

/* Counter MWIN_STAT_@_s of each struct moved of @_ms moves by @_n more. */
#define MOVE(_ms, _s, _n) do {						\
	struct moved *const *_m;					\
	for (_m = _ms; *_m; _m++)					\
		(*_m)->stats[MWIN_STAT_##_s] += (_n);			\
} while (0)

/* The reason the module counted an access error under, by @base; 0: none. */
static uint32_t access_error_reason(int fd, const struct mwin_stats *base)
{
	struct mwin_stats now;
	uint32_t r;
	int i;

	for (i = 0; i < TEST_TIMEOUT_MS / 10; i++) {
		if (mwin_stats(fd, MWIN_STATS_MODULE, 0, &now))
			return 0;
		for (r = 1; r < MWIN_DOWN_SLOTS; r++)
			if (is_access_error(r) && now.downs[r] > base->downs[r])
				return r;
		usleep(10000);
	}
	return 0;
}

static bool all_zero(const __u64 *a, size_t n)
{
	while (n--)
		if (a[n])
			return false;
	return true;
}

/* MWIN_STATS refuses what it cannot answer, and changes nothing. */
static void expect_bad_stats_refused(struct __test_metadata *_metadata,
				     int fd, const struct mwin_stats *before)
{
	static const struct {
		uint32_t flags, scope, id, reserved;
		int err;
	} bad[] = {
		{ 1, MWIN_STATS_MODULE, 0, 0, -EINVAL },
		{ 0, 0, 0, 0, -EINVAL },
		{ 0, MWIN_STATS_TENANT + 1, 1, 0, -EINVAL },
		{ 0, MWIN_STATS_MODULE, 1, 0, -EINVAL },
		{ 0, MWIN_STATS_PEER, 0, 0, -EINVAL },
		{ 0, MWIN_STATS_TENANT, 0, 0, -EINVAL },
		{ 0, MWIN_STATS_MODULE, 0, 1, -EINVAL },
		{ 0, MWIN_STATS_PEER, NO_ID, 0, -ENOENT },
		{ 0, MWIN_STATS_TENANT, NO_ID, 0, -ENOENT },
	};
	struct mwin_stats st;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&st, 0, sizeof(st));
		st.size = sizeof(st);
		st.flags = bad[i].flags;
		st.scope = bad[i].scope;
		st.id = bad[i].id;
		st.__reserved = bad[i].reserved;
		EXPECT_EQ(bad[i].err, mwin_ioctl(fd, MWIN_STATS, &st)) {
			TH_LOG("flags %u scope %u id %u reserved %u",
			       bad[i].flags, bad[i].scope, bad[i].id,
			       bad[i].reserved);
		}
	}
	/* shorter than the first version */
	memset(&st, 0, sizeof(st));
	st.size = 8;
	st.scope = MWIN_STATS_MODULE;
	EXPECT_EQ(-EINVAL, mwin_ioctl(fd, MWIN_STATS, &st));
	ASSERT_EQ(0, mwin_stats(fd, MWIN_STATS_MODULE, 0, &st));
	EXPECT_EQ(0, memcmp(before->stats, st.stats, sizeof(st.stats)));
	EXPECT_EQ(0, memcmp(before->downs, st.downs, sizeof(st.downs)));
	EXPECT_EQ(0, memcmp(before->rejects, st.rejects, sizeof(st.rejects)));
}

/*
 * The counters of the module, of a tenant and of its peers move by
 * exactly what happened: binds (a key each), revokes, messages, an rkey
 * handed back, an access error, an attack, and peers that went for
 * four reasons. Refused MWIN_STATS calls count nothing.
 */
TEST_F(obs, stats_count_exactly)
{
	struct mwin_stats m0, t0, p0;
	struct moved mm = { 0 }, tm = { 0 }, pm = { 0 };
	struct moved *all[] = { &mm, &tm, &pm, NULL }, *shared[] = { &mm, NULL };
	struct mwin_window_bind w, w2;
	struct mwpeer *p, *q, *r;
	struct mwpeer_msg msg;
	uint32_t t, pid, why;

	ASSERT_EQ(0, test_wait_no_peers(self->fd));
	t = test_make_tenant(self->fd, PREFIX "stats", NULL, MWIN_NO_OWNER);
	ASSERT_NE(0, t);
	ASSERT_EQ(0, mwin_stats(self->fd, MWIN_STATS_MODULE, 0, &m0));
	ASSERT_EQ(0, mwin_stats(self->fd, MWIN_STATS_TENANT, t, &t0));
	EXPECT_EQ(MWIN_NR_STATS, m0.nr_stats);
	expect_bad_stats_refused(_metadata, self->fd, &m0);

	/* a connection of the tenant: binds, revokes, messages, a hand-back */
	p = join(_metadata, self, PREFIX "stats");
	pid = mwpeer_id(p);
	ASSERT_EQ(0, mwin_stats(self->fd, MWIN_STATS_PEER, pid, &p0));
	grant(_metadata, self, p, 0, &w);
	rebind(_metadata, self, p, &w, MWIN_ACCESS_READ);
	ASSERT_EQ(0, mwin_window_invalidate(self->fd, w.id));
	ASSERT_EQ(0, took_revoke(p, w.id, w.rkey));
	rebind(_metadata, self, p, &w, MWIN_ACCESS_READ);
	ASSERT_EQ(IBV_WC_SUCCESS, mwpeer_send_inv(p, w.rkey));
	MOVE(all, GRANTS, 3);
	MOVE(all, KEYS_SPENT, 3);
	MOVE(all, REVOKES, 2);		/* the rebind's, the invalidation's */
	/* grant; revoke and grant; revoke; grant: none for the hand-back */
	MOVE(all, MSGS_SENT, 5);
	MOVE(all, REMOTE_INVALIDATIONS, 1);
	MOVE(all, MSGS_RECEIVED, 1);
	expect_moved(_metadata, self->fd, MWIN_STATS_PEER, pid, &p0, &pm);
	expect_moved(_metadata, self->fd, MWIN_STATS_TENANT, t, &t0, &tm);
	expect_moved(_metadata, self->fd, MWIN_STATS_MODULE, 0, &m0, &mm);
	/* downs and rejects are the module's and tenants': a peer's are 0 */
	ASSERT_EQ(0, mwin_stats(self->fd, MWIN_STATS_PEER, pid, &p0));
	EXPECT_TRUE(all_zero(p0.downs, MWIN_DOWN_SLOTS));
	EXPECT_TRUE(all_zero(p0.rejects, MWIN_REJECT_SLOTS));

	/* it reads through the rkey it handed back: an access error */
	EXPECT_ACCESS_REFUSED(p, mwpeer_read(p, w.rkey, w.iova, NULL, 8));
	ASSERT_EQ(0, test_wait_peer_gone(self->fd, pid));
	EXPECT_EQ(-ENOENT, mwin_stats(self->fd, MWIN_STATS_PEER, pid, &p0));
	why = access_error_reason(self->fd, &m0);
	ASSERT_TRUE(is_access_error(why));
	mm.downs[why]++;
	tm.downs[why]++;
	if (why == MWIN_DOWN_QP_ERROR)
		MOVE(all, ACCESS_ERRORS, 1);
	expect_moved(_metadata, self->fd, MWIN_STATS_TENANT, t, &t0, &tm);
	expect_moved(_metadata, self->fd, MWIN_STATS_MODULE, 0, &m0, &mm);

	/* again, and an anonymous peer invalidates its rkey: an attack */
	ASSERT_EQ(0, mwpeer_reconnect(p));
	pid = mwpeer_id(p);
	ASSERT_EQ(0, test_wait_peer_state(self->fd, pid, MWIN_PEER_CONNECTED));
	ASSERT_EQ(0, mwin_stats(self->fd, MWIN_STATS_PEER, pid, &p0));
	memset(&pm, 0, sizeof(pm));
	grant(_metadata, self, p, 8192, &w2);
	q = join(_metadata, self, NULL);
	mwpeer_send_inv(q, w2.rkey);
	ASSERT_EQ(0, test_wait_peer_gone(self->fd, mwpeer_id(q)));
	ASSERT_EQ(0, took_revoke(p, w2.id, w2.rkey));
	/* and p is granted the window again, with a new rkey */
	ASSERT_EQ(0, test_next_about(p, MWIN_WIRE_GRANT, w2.id, &msg));
	MOVE(all, GRANTS, 2);
	MOVE(all, KEYS_SPENT, 2);
	/* the grant, the revoke (remote), the new grant */
	MOVE(all, MSGS_SENT, 3);
	/* the attacker's: the module's alone, it has no tenant */
	MOVE(shared, MSGS_RECEIVED, 1);
	MOVE(shared, ATTACKS, 1);
	mm.downs[MWIN_DOWN_HOSTILE]++;
	expect_moved(_metadata, self->fd, MWIN_STATS_PEER, pid, &p0, &pm);
	expect_moved(_metadata, self->fd, MWIN_STATS_TENANT, t, &t0, &tm);
	expect_moved(_metadata, self->fd, MWIN_STATS_MODULE, 0, &m0, &mm);

	/* the operator disconnects it; another connection leaves */
	ASSERT_EQ(0, mwin_peer_disconnect(self->fd, pid));
	r = join(_metadata, self, PREFIX "stats");
	pid = mwpeer_id(r);
	mwpeer_disconnect(r);
	ASSERT_EQ(0, test_wait_peer_gone(self->fd, pid));
	mm.downs[MWIN_DOWN_OPERATOR]++;
	tm.downs[MWIN_DOWN_OPERATOR]++;
	mm.downs[MWIN_DOWN_DISCONNECT]++;
	tm.downs[MWIN_DOWN_DISCONNECT]++;
	/* w2, granted again after the attack, died with p: a revoke */
	mm.stats[MWIN_STAT_REVOKES]++;
	tm.stats[MWIN_STAT_REVOKES]++;
	expect_moved(_metadata, self->fd, MWIN_STATS_TENANT, t, &t0, &tm);
	expect_moved(_metadata, self->fd, MWIN_STATS_MODULE, 0, &m0, &mm);

	/* of the QP events, the access errors are a part */
	ASSERT_EQ(0, mwin_stats(self->fd, MWIN_STATS_MODULE, 0, &p0));
	EXPECT_LE(p0.stats[MWIN_STAT_QP_ACCESS_ERRORS] -
		  m0.stats[MWIN_STAT_QP_ACCESS_ERRORS],
		  p0.stats[MWIN_STAT_QP_EVENTS] - m0.stats[MWIN_STAT_QP_EVENTS]);
	if (why == MWIN_DOWN_QP_EVENT)
		EXPECT_LT(m0.stats[MWIN_STAT_QP_EVENTS],
			  p0.stats[MWIN_STAT_QP_EVENTS]);
}

/* ---- the monitor ----------------------------------------------------- */

/* The next PEER_DOWN of peer @peer on monitor @mfd, into @out. */
static int next_peer_down(int mfd, uint32_t peer, struct mwin_event *out)
{
	int64_t end = test_now_ms() + TEST_TIMEOUT_MS;
	struct mwin_event ev[16];

	while (test_now_ms() < end) {
		struct pollfd pfd = { .fd = mfd, .events = POLLIN };
		ssize_t n, i;

		if (poll(&pfd, 1, (int)(end - test_now_ms())) <= 0)
			continue;
		n = read(mfd, ev, sizeof(ev));
		for (i = 0; i < n / (ssize_t)sizeof(ev[0]); i++) {
			if (ev[i].type == MWIN_EVENT_PEER_DOWN &&
			    ev[i].peer == peer) {
				*out = ev[i];
				return 0;
			}
		}
	}
	return -ETIMEDOUT;
}

/*
 * MWIN_MONITOR's PEER_DOWN says why: the operator disconnected it, it
 * failed an access, it left.
 */
TEST_F(obs, monitor_says_why)
{
	struct mwin_monitor mon = { .size = sizeof(mon) };
	struct mwin_window_bind b;
	struct mwin_event ev;
	struct mwpeer *p;
	int mfd = mwin_open();
	uint32_t id;

	ASSERT_LE(0, mfd);
	ASSERT_EQ(0, mwin_ioctl(mfd, MWIN_MONITOR, &mon));

	p = join(_metadata, self, NULL);
	id = mwpeer_id(p);
	ASSERT_EQ(0, mwin_peer_disconnect(self->fd, id));
	ASSERT_EQ(0, next_peer_down(mfd, id, &ev));
	EXPECT_EQ(MWIN_DOWN_OPERATOR, ev.reason);

	p = join(_metadata, self, NULL);
	id = mwpeer_id(p);
	grant(_metadata, self, p, 0, &b);
	read_past_end(_metadata, self, p, &b);
	ASSERT_EQ(0, next_peer_down(mfd, id, &ev));
	EXPECT_TRUE(is_access_error(ev.reason)) {
		TH_LOG("reason %u (%s)", ev.reason,
		       mwin_down_reason_name(ev.reason));
	}

	p = join(_metadata, self, NULL);
	id = mwpeer_id(p);
	mwpeer_disconnect(p);
	ASSERT_EQ(0, next_peer_down(mfd, id, &ev));
	EXPECT_EQ(MWIN_DOWN_DISCONNECT, ev.reason);
	close(mfd);
}

/*
 * mwctl -j peer gone's document for @pi, an anonymous IPv4 peer that went
 * for @reason, byte for byte as Documentation/mwctl.rst describes it.
 */
static void gone_json(const struct mwin_peer_info *pi, const char *reason,
		      char *buf, size_t len)
{
	char host[INET_ADDRSTRLEN] = "?";
	struct sockaddr_in sin;

	memcpy(&sin, pi->addr, sizeof(sin));
	inet_ntop(AF_INET, &sin.sin_addr, host, sizeof(host));
	snprintf(buf, len,
		 "{\"gone\":[{\"id\":%u,\"addr\":\"%s\",\"port\":%u,"
		 "\"tenant\":\"-\",\"tenant_id\":0,\"dev\":\"%.*s\","
		 "\"qpn\":%u,\"state\":\"closing\",\"windows\":%u,"
		 "\"reason\":\"%s\"}]}\n",
		 pi->id, host, ntohs(sin.sin_port),
		 (int)strnlen(pi->dev_name, sizeof(pi->dev_name)), pi->dev_name,
		 pi->qpn, pi->nr_windows, reason);
}

/*
 * PEER_GET with MWIN_GET_GONE: the peers that went are still found, as
 * they were, with why they went; mwctl peer gone prints the same, in
 * JSON as its manual says.
 */
TEST_F(obs, gone_peers_keep_their_reason)
{
	struct mwin_peer_info pi, live;
	struct mwin_window_bind b;
	char word[32], json[512];
	sa_family_t family;
	struct mwpeer *p;
	uint32_t id, qpn;

	p = join(_metadata, self, NULL);
	id = mwpeer_id(p);
	grant(_metadata, self, p, 0, &b);
	ASSERT_EQ(0, mwin_peer_get(self->fd, id, 0, &live));
	qpn = live.qpn;
	EXPECT_EQ(0, live.down_reason);
	EXPECT_EQ(-ENOENT, mwin_peer_get(self->fd, id, MWIN_GET_GONE, &pi));
	ASSERT_EQ(0, mwin_peer_disconnect(self->fd, id));

	ASSERT_EQ(0, mwin_peer_get(self->fd, id, MWIN_GET_GONE, &pi));
	EXPECT_EQ(id, pi.id);
	EXPECT_EQ(MWIN_DOWN_OPERATOR, pi.down_reason);
	EXPECT_EQ(MWIN_PEER_CLOSING, pi.state);
	EXPECT_EQ(qpn, pi.qpn);
	EXPECT_EQ(1, pi.nr_windows);
	EXPECT_EQ(-ENOENT, mwin_peer_get(self->fd, id, 0, &pi));
	/* the walk finds it too, and nothing past the last */
	ASSERT_EQ(0, mwin_peer_get(self->fd, id - 1,
				   MWIN_GET_GONE | MWIN_GET_NEXT, &pi));
	EXPECT_EQ(id, pi.id);
	EXPECT_EQ(-ENOENT, mwin_peer_get(self->fd, ~0U,
					 MWIN_GET_GONE | MWIN_GET_NEXT, &pi));

	RUN(&self->r, "peer gone %u", id);
	EXPECT_OK(&self->r);
	self->r.out[strcspn(self->r.out, "\n")] = '\0';	/* one line */
	EXPECT_STREQ("operator", tval(self->r.out, "reason", word,
				      sizeof(word)));
	EXPECT_EQ(qpn, tnum(self->r.out, "qpn"));
	RUN(&self->r, "peer show %u", id);
	EXPECT_EQ(1, self->r.status);

	ASSERT_EQ(0, mwin_peer_get(self->fd, id, MWIN_GET_GONE, &pi));
	memcpy(&family, pi.addr, sizeof(family));
	ASSERT_EQ(AF_INET, family);
	gone_json(&pi, "operator", json, sizeof(json));
	RUN(&self->r, "-j peer gone %u", id);
	EXPECT_OK(&self->r);
	EXPECT_STREQ(json, self->r.out);
	RUN(&self->r, "-j peer gone %u", NO_ID);
	EXPECT_ERR(&self->r, 1, "mwctl: no gone peer %u", NO_ID);
}

/* ---- mwctl stats ----------------------------------------------------- */

/*
 * mwctl's document @doc (a text line, or parsed JSON) gives each counter
 * of @st: those not 0, and with @details all of them.
 */
static void expect_counters(struct __test_metadata *_metadata,
			    const void *doc, bool json,
			    const struct mwin_stats *st, bool details)
{
	uint32_t i;

	for (i = 0; i < MWIN_NR_STATS; i++) {
		const char *name = mwin_stat_name(i);
		uint64_t v = json ? jnum(doc, name) : tnum(doc, name);

		EXPECT_EQ(st->stats[i] || details ? st->stats[i] : JMISSING, v) {
			TH_LOG("%s of %s", name,
			       json ? "JSON" : (const char *)doc);
		}
	}
}

/* mwctl @args prints one line, starting with @prefix: a copy of it. */
static char *stats_line(struct __test_metadata *_metadata, struct run *r,
			const char *prefix, const char *args)
{
	RUN(r, "%s", args);
	EXPECT_OK(r);
	EXPECT_EQ(0, strncmp(r->out, prefix, strlen(prefix))) {
		TH_LOG("mwctl %s: %s", args, r->out);
	}
	EXPECT_EQ(r->out + strlen(r->out) - 1, strchr(r->out, '\n'));
	return strndup(r->out, strcspn(r->out, "\n"));
}

/* mwctl -j @args: the document, checked to be of @scope. */
static jv *stats_doc(struct __test_metadata *_metadata,
			    struct run *r, const char *scope, const char *args)
{
	jv *j;

	RUN(r, "-j %s", args);
	EXPECT_OK(r);
	j = jparse(r->out);
	ASSERT_NE(NULL, j) TH_LOG("mwctl -j %s: %s", args, r->out);
	EXPECT_STREQ(scope, jstr(j, "scope"));
	return j;
}

/* Object @key of JSON @j has @counts[i] for each reason @name knows. */
static void expect_reasons(struct __test_metadata *_metadata,
			   const jv *j, const char *key,
			   const __u64 *counts, uint32_t slots,
			   const char *(*name)(uint32_t))
{
	const jv *o = jget(j, key);
	uint32_t i;

	ASSERT_NE(NULL, o) TH_LOG("no %s", key);
	for (i = 1; i < slots; i++) {
		if (strcmp(name(i), "unknown"))
			EXPECT_EQ(counts[i], jnum(o, name(i))) {
				TH_LOG("%s %s", key, name(i));
			}
	}
}

/*
 * mwctl stats gives what MWIN_STATS gives: the module's, a peer's, a
 * tenant's (by name or id), in text and JSON; the counters that are 0
 * only with -d, which adds the downs and rejects by reason (not for a
 * peer). A peer or tenant that is not there is named.
 */
TEST_F(obs, mwctl_stats)
{
	struct mwin_stats st, zero = { 0 };
	struct moved m = { 0 };
	struct moved *mine[] = { &m, NULL };
	struct mwin_window_bind b;
	char args[64], prefix[64], word[64], *line;
	struct mwpeer *p;
	uint32_t t, id;
	jv *j;

	ASSERT_EQ(0, test_wait_no_peers(self->fd));
	t = test_make_tenant(self->fd, PREFIX "ctl", NULL, MWIN_NO_OWNER);
	ASSERT_NE(0, t);
	p = join(_metadata, self, PREFIX "ctl");
	id = mwpeer_id(p);
	grant(_metadata, self, p, 0, &b);
	MOVE(mine, GRANTS, 1);
	MOVE(mine, KEYS_SPENT, 1);
	MOVE(mine, MSGS_SENT, 1);
	expect_moved(_metadata, self->fd, MWIN_STATS_PEER, id, &zero, &m);

	/* a peer's */
	ASSERT_EQ(0, mwin_stats(self->fd, MWIN_STATS_PEER, id, &st));
	snprintf(prefix, sizeof(prefix), "stats peer %u ", id);
	snprintf(args, sizeof(args), "stats peer %u", id);
	line = stats_line(_metadata, &self->r, prefix, args);
	expect_counters(_metadata, line, false, &st, false);
	free(line);
	snprintf(args, sizeof(args), "-d stats peer %u", id);
	line = stats_line(_metadata, &self->r, prefix, args);
	expect_counters(_metadata, line, false, &st, true);
	EXPECT_EQ(NULL, strstr(line, " downs ")) TH_LOG("%s", line);
	free(line);
	j = stats_doc(_metadata, &self->r, "peer", args);
	EXPECT_EQ(id, jnum(j, "peer"));
	expect_counters(_metadata, j, true, &st, true);
	EXPECT_EQ(NULL, jget(j, "downs"));
	jfree(j);
	snprintf(args, sizeof(args), "stats peer %u", id);
	j = stats_doc(_metadata, &self->r, "peer", args);
	expect_counters(_metadata, j, true, &st, false);
	jfree(j);

	/* a tenant's, by its name, by its id */
	ASSERT_EQ(0, mwin_stats(self->fd, MWIN_STATS_TENANT, t, &st));
	line = stats_line(_metadata, &self->r, "stats tenant " PREFIX "ctl ",
			  "stats tenant " PREFIX "ctl");
	expect_counters(_metadata, line, false, &st, false);
	free(line);
	snprintf(args, sizeof(args), "stats t %u", t);
	j = stats_doc(_metadata, &self->r, "tenant", args);
	EXPECT_STREQ(PREFIX "ctl", jstr(j, "tenant"));
	EXPECT_EQ(t, jnum(j, "tenant_id"));
	expect_counters(_metadata, j, true, &st, false);
	jfree(j);

	/* the module's, downs and rejects by every reason */
	ASSERT_EQ(0, mwin_stats(self->fd, MWIN_STATS_MODULE, 0, &st));
	line = stats_line(_metadata, &self->r, "stats module", "stats");
	expect_counters(_metadata, line, false, &st, false);
	free(line);
	j = stats_doc(_metadata, &self->r, "module", "-d stats show");
	expect_counters(_metadata, j, true, &st, true);
	expect_reasons(_metadata, j, "downs", st.downs, MWIN_DOWN_SLOTS,
		       mwin_down_reason_name);
	expect_reasons(_metadata, j, "rejects", st.rejects, MWIN_REJECT_SLOTS,
		       mwin_reject_reason_name);
	jfree(j);

	/* the operator takes the peer away: the tenant says why */
	RUN(&self->r, "peer disconnect %u", id);
	EXPECT_OK(&self->r);
	m.downs[MWIN_DOWN_OPERATOR] = 1;
	MOVE(mine, REVOKES, 1);		/* the window's rkey died with it */
	expect_moved(_metadata, self->fd, MWIN_STATS_TENANT, t, &zero, &m);
	line = stats_line(_metadata, &self->r, "stats tenant " PREFIX "ctl ",
			  "-d stats tenant " PREFIX "ctl");
	EXPECT_STREQ("operator:1", tval(line, "downs", word, sizeof(word)));
	EXPECT_STREQ("-", tval(line, "rejects", word, sizeof(word)));
	free(line);
	j = stats_doc(_metadata, &self->r, "tenant", "-d stats tenant " PREFIX "ctl");
	EXPECT_EQ(1, jnum(jget(j, "downs"), "operator"));
	EXPECT_EQ(0, jnum(jget(j, "downs"), "disconnect"));
	EXPECT_EQ(0, jnum(jget(j, "rejects"), "quota"));
	jfree(j);

	/* gone, or never there */
	RUN(&self->r, "stats peer %u", id);
	EXPECT_ERR(&self->r, 1, "mwctl: no peer %u", id);
	RUN(&self->r, "-j stats peer %u", NO_ID);
	EXPECT_ERR(&self->r, 1, "mwctl: no peer %u", NO_ID);
	RUN(&self->r, "stats tenant " PREFIX "none");
	EXPECT_ERR(&self->r, 1, "mwctl: no tenant " PREFIX "none");
	RUN(&self->r, "stats tenant %u", NO_ID);
	EXPECT_ERR(&self->r, 1, "mwctl: no tenant %u", NO_ID);
}

TEST_HARNESS_MAIN
