// SPDX-License-Identifier: GPL-2.0
/*
 * mwbench's lease section: how late a lease's rkey dies, and what a mass
 * expiry costs a window.
 *
 *  floor     the in-kernel floor under a revoke: mwin_bench.ko's debugfs
 *            file "invalidate" (mwin_bench_rebind() timing the LOCAL_INVs
 *            alone, each posted and waited for on its own), per round the
 *            mean of FLOOR_OPS, the median over FLOOR_ROUNDS rounds;
 *  lateness  quiet windows, each with a lease whose deadline comes
 *            LATE_GAP_MS after the previous one's, so that each expires
 *            alone: from its deadline (WINDOW_GET's expires_ns) to the
 *            monitor's REVOKE event with reason EXPIRED, whose time_ns the
 *            module takes when the LOCAL_INV completed: the rkey is dead.
 *            Both are CLOCK_MONOTONIC, read in the kernel;
 *  mass      windows granted as any window (the peer is told), whose
 *            leases all end at one instant: from the earliest deadline to
 *            the last EXPIRED event, per window, against single
 *            WINDOW_INVALIDATE ioctls of the same windows in the same run.
 *
 * Both ends of a lateness or a mass expiry are the kernel's clock (the
 * deadline, the event's time), so this program's scheduling does not enter
 * the figures; its reader only has to keep up with the monitor's ring.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mwbench.h"

#define FLOOR_ROUNDS 11
#define FLOOR_OPS 32
/*
 * Between two deadlines of the lateness run: the p99 bound, so that a
 * lease revoked within it never shares the work item's batch with the
 * next one; a late one shows as late, not as a batch.
 */
#define LATE_GAP_MS (LEASE_P99_US / 1000)
/* rebinds per call: the module's MWIN_OPS_DEPTH, see leases_arm() */
#define ARM_PER_CALL 64
/* How long to wait for the last expiry past the last deadline */
#define GIVE_UP_NS (30 * 1000000000ULL)

/* One leased window and what became of it. */
struct lease {
	uint32_t id;
	uint64_t deadline;	/* expires_ns: CLOCK_MONOTONIC */
	uint64_t dead;		/* time_ns of its EXPIRED revoke, 0 until then */
};

/* What the monitor told of a set of leases. */
struct expiry_log {
	unsigned int seen;	/* leases whose EXPIRED revoke came */
	unsigned int other;	/* their revokes for another reason */
	uint64_t lost;		/* events the monitor's ring dropped */
	uint64_t last;		/* time_ns of the last EXPIRED revoke */
};

#define WHY_LEN 96

/* What lease_report() says beside the figures. */
static struct {
	unsigned int leases;	/* lateness: leases made */
	unsigned int seen;
	unsigned int early;	/* revoked before their deadline: never */
	uint64_t lost;
	unsigned int windows;	/* mass expiry: windows made */
	char why_late[WHY_LEN];	/* why a run measured nothing */
	char why_mass[WHY_LEN];
} lsum;

static struct mwin_batch_op lease_ops[MWIN_BATCH_MAX];

/* a figure of one value (a quantile, a total) */
static void lease_figure(const char *section, const char *metric, double v,
			 int ops, const char *unit)
{
	struct stats s = { .med = v, .p10 = v, .p90 = v, .mean = v, .n = 1 };

	add_result(section, metric, 4 * KiB, 0, &s, ops, unit, NULL);
}

/* record that @metric measured nothing, and why, for the report too */
__attribute__((format(printf, 4, 5)))
static void lease_fail(const char *metric, const char *unit, char *why,
		       const char *fmt, ...)
{
	char buf[WHY_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	add_failed("lease", metric, 4 * KiB, 0, unit, "%s", buf);
	if (why)
		snprintf(why, WHY_LEN, "%s", buf);
}

/* ------------------------------------------------------------ windows */

/* the entries of the next call: what is left, at most @max */
static unsigned int next_call(unsigned int left, unsigned int max)
{
	return left < max ? left : max;
}

/* lease_ops[0..@n) as one MWIN_WINDOW_BATCH: the call's or first entry's error */
static int lease_batch(unsigned int n)
{
	uint32_t failed, i;
	int ret = win_batch(lease_ops, n, &failed);

	for (i = 0; !ret && i < n; i++)
		ret = lease_ops[i].result;
	return ret;
}

/*
 * Create @n windows of 4 KiB on @region for @peer, MWIN_BATCH_MAX a call,
 * window i with a lease of @lead_ms + i * @gap_ms (@lead_ms 0: none). The
 * ids of those made are in @ls, also on failure.
 */
static int leases_create(struct lease *ls, unsigned int n, uint32_t region,
			 uint32_t peer, uint32_t flags, uint32_t lead_ms,
			 uint32_t gap_ms)
{
	unsigned int i, j, k;
	int ret = 0;

	for (i = 0; i < n && !ret; i += k) {
		k = next_call(n - i, MWIN_BATCH_MAX);
		for (j = 0; j < k; j++) {
			struct mwin_batch_op *o = &lease_ops[j];

			memset(o, 0, sizeof(*o));
			o->opcode = MWIN_BATCH_CREATE;
			o->flags = MWIN_WINDOW_OVERLAP | flags;
			o->region = region;
			o->peer = peer;
			o->access = RW;
			o->length = 4 * KiB;
			if (lead_ms)
				o->expires_ms = lead_ms + (i + j) * gap_ms;
		}
		ret = lease_batch(k);
		for (j = 0; j < k; j++)
			if (!lease_ops[j].result)
				ls[i + j].id = lease_ops[j].id;
	}
	return ret;
}

/*
 * Rebind every window of @ls (same range and rights) with a lease that ends
 * at @deadline, as near as milliseconds allow. A batch of up to 64 rebinds
 * (the module's MWIN_OPS_DEPTH) is one chain, and the leases of its entries
 * are set together when the chain completed, near the call's end: each
 * call's lease is the time from its expected end (its start plus the
 * previous call's duration) to @deadline, to the nearest millisecond. So
 * the deadlines end up within about a millisecond of each other, where
 * creations (single calls inside a batch) would spread them over the time
 * the creations took.
 */
static int leases_arm(struct lease *ls, unsigned int n, uint64_t deadline)
{
	uint64_t t0, took = 0;
	unsigned int i, j, k;
	int64_t left;
	uint32_t ms;
	int ret = 0;

	for (i = 0; i < n && !ret; i += k) {
		k = next_call(n - i, ARM_PER_CALL);
		t0 = now_ns();
		left = (int64_t)(deadline - t0 - took);
		ms = left > 1000000 ? (uint32_t)((left + 500000) / 1000000) : 1;
		for (j = 0; j < k; j++) {
			struct mwin_batch_op *o = &lease_ops[j];

			memset(o, 0, sizeof(*o));
			o->opcode = MWIN_BATCH_REBIND;
			o->flags = MWIN_WINDOW_OVERLAP;
			o->id = ls[i + j].id;
			o->access = RW;
			o->length = 4 * KiB;
			o->expires_ms = ms;
		}
		ret = lease_batch(k);
		took = now_ns() - t0;
	}
	return ret;
}

/* destroy the windows of @ls (ids 0 skipped), MWIN_BATCH_MAX a call */
static void leases_destroy(struct lease *ls, unsigned int n)
{
	unsigned int i, k = 0;

	for (i = 0; i < n; i++) {
		if (!ls[i].id)
			continue;
		memset(&lease_ops[k], 0, sizeof(lease_ops[k]));
		lease_ops[k].opcode = MWIN_BATCH_DESTROY;
		lease_ops[k].id = ls[i].id;
		if (++k == MWIN_BATCH_MAX) {
			lease_batch(k);
			k = 0;
		}
	}
	if (k)
		lease_batch(k);
}

/*
 * Each window's deadline as the module keeps it, and the earliest and
 * latest. -ENODATA: a window has no lease: it ran out already.
 */
static int leases_deadlines(struct lease *ls, unsigned int n, uint64_t *first,
			    uint64_t *last)
{
	struct mwin_window_info wi;
	unsigned int i;
	int ret;

	*first = UINT64_MAX;
	*last = 0;
	for (i = 0; i < n; i++) {
		ret = mwin_window_get(mfd, ls[i].id, 0, &wi);
		if (ret)
			return ret;
		if (!wi.expires_ns)
			return -ENODATA;
		ls[i].deadline = wi.expires_ns;
		ls[i].dead = 0;
		if (wi.expires_ns < *first)
			*first = wi.expires_ns;
		if (wi.expires_ns > *last)
			*last = wi.expires_ns;
	}
	return 0;
}

static int lease_cmp(const void *a, const void *b)
{
	const struct lease *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* ----------------------------------------------------------- monitor */

/* a file of its own that gets the events (read() on it returns them) */
static int monitor_open(void)
{
	struct mwin_monitor m = { .size = sizeof(m) };
	int fd = mwin_open(), ret;

	if (fd < 0)
		return fd;
	ret = mwin_ioctl(fd, MWIN_MONITOR, &m);
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

static void expiry_note(const struct mwin_event *ev, struct lease *ls,
			unsigned int n, struct expiry_log *log)
{
	struct lease key = { .id = ev->window }, *l;

	if (ev->type == MWIN_EVENT_LOST) {
		log->lost += ev->rkey;
		return;
	}
	if (ev->type != MWIN_EVENT_REVOKE)
		return;
	l = bsearch(&key, ls, n, sizeof(*ls), lease_cmp);
	if (!l)
		return;
	if (ev->reason != MWIN_REVOKE_EXPIRED) {
		log->other++;
		return;
	}
	if (l->dead)
		return;
	l->dead = ev->time_ns;
	log->seen++;
	if (ev->time_ns > log->last)
		log->last = ev->time_ns;
}

/*
 * Read the monitor @mon until every lease of @ls (sorted by id) had its
 * EXPIRED revoke, or until @give_up. The ring holds 4096 events per file:
 * reading them as they come keeps a mass expiry from overflowing it.
 */
static void expiries_collect(int mon, struct lease *ls, unsigned int n,
			     uint64_t give_up, struct expiry_log *log)
{
	struct pollfd pfd = { .fd = mon, .events = POLLIN };
	uint8_t buf[64 * sizeof(struct mwin_event)];
	struct mwin_event ev;
	uint32_t size;
	ssize_t got, off;

	memset(log, 0, sizeof(*log));
	while (log->seen < n && now_ns() < give_up) {
		if (poll(&pfd, 1, 100) <= 0)
			continue;
		got = read(mon, buf, sizeof(buf));
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			say("lease: reading events: %s", strerror(errno));
			return;
		}
		/* a record is @size bytes: a newer module's may be longer */
		for (off = 0; off + (ssize_t)sizeof(size) <= got; off += size) {
			memcpy(&size, buf + off, sizeof(size));
			if (size < sizeof(ev) || size > got - off) {
				say("lease: bad event record of %u bytes", size);
				return;
			}
			memcpy(&ev, buf + off, sizeof(ev));
			expiry_note(&ev, ls, n, log);
		}
	}
}

/* -------------------------------------------------------------- floor */

/* The revoke floor on window @win: us per LOCAL_INV, median over rounds. */
static void revoke_floor(uint32_t win)
{
	double v[FLOOR_ROUNDS];
	struct stats s;
	int64_t ns;
	int t;

	if (access(INV_FLOOR_PATH, W_OK)) {
		say("%s: %s (is mwin_bench.ko loaded?)", INV_FLOOR_PATH,
		    strerror(errno));
		lease_fail("revoke floor", "us/op", NULL,
			   "unavailable (mwin_bench.ko not loaded)");
		return;
	}
	for (t = -1; t < FLOOR_ROUNDS; t++) {	/* round -1: a warm-up */
		ns = floor_run_at(INV_FLOOR_PATH, win, FLOOR_OPS);
		if (ns < 0) {
			lease_fail("revoke floor", "us/op", NULL, "failed: %s",
				   strerror((int)-ns));
			return;
		}
		if (t >= 0)
			v[t] = ns / 1e3 / FLOOR_OPS;
	}
	s = stats_of(v, FLOOR_ROUNDS);
	add_result("lease", "revoke floor", 4 * KiB, 0, &s, FLOOR_OPS, "us/op",
		   NULL);
	say("lease revoke floor (one LOCAL_INV alone, in the kernel): %.1f us [%.1f-%.1f]",
	    s.med, s.p10, s.p90);
}

/* a quiet window of 4 KiB for @peer, and the floor on it */
static void lease_floor(uint32_t region, uint32_t peer)
{
	struct mwin_window_bind b = {
		.flags = MWIN_WINDOW_OVERLAP | MWIN_WINDOW_QUIET,
		.region = region, .peer = peer, .access = RW,
		.length = 4 * KiB,
	};
	int ret = mwin_window_create(mfd, &b);

	if (ret) {
		lease_fail("revoke floor", "us/op", NULL,
			   "failed: WINDOW_CREATE: %s", strerror(-ret));
		return;
	}
	revoke_floor(b.id);
	mwin_window_destroy(mfd, b.id);
}

/* ----------------------------------------------------------- lateness */

/* the lateness of each lease of @ls whose revoke came, in us; sorted */
static unsigned int lateness_of(const struct lease *ls, unsigned int n,
				double *late)
{
	unsigned int i, k = 0;

	for (i = 0; i < n; i++) {
		if (!ls[i].dead)
			continue;
		late[k] = ((double)ls[i].dead - (double)ls[i].deadline) / 1e3;
		lsum.early += late[k] < 0;
		k++;
	}
	qsort(late, k, sizeof(*late), cmp_double);
	return k;
}

static void lateness_results(const double *late, unsigned int k)
{
	struct stats s = stats_of(late, (int)k);
	double p99 = pct(late, (int)k, 0.99);

	add_result("lease", "lateness", 4 * KiB, 0, &s, (int)k, "us", NULL);
	lease_figure("lease", "lateness p99", p99, (int)k, "us");
	lease_figure("lease", "lateness max", late[k - 1], (int)k, "us");
	say("lease lateness over %u leases: median %.1f us [%.1f-%.1f], p99 %.1f, max %.1f",
	    k, s.med, s.p10, s.p90, p99, late[k - 1]);
}

/*
 * @n quiet windows with leases LATE_GAP_MS apart, and how late each rkey
 * died. The first deadline is a second and a millisecond per lease away
 * (a creation costs about a tenth of that under TCG), so that every window
 * is made and its deadline read before any expires; the monitor starts
 * after that, so it holds no grants, only the revokes.
 */
static void lease_lateness(uint32_t region, uint32_t peer, unsigned int n)
{
	struct lease *ls = calloc(n, sizeof(*ls));
	double *late = calloc(n, sizeof(*late));
	uint64_t first, last;
	struct expiry_log log;
	unsigned int k;
	int mon = -1, ret;

	if (!ls || !late)
		die("out of memory");
	lsum.leases = n;
	say("lease lateness: %u quiet windows, deadlines %d ms apart", n,
	    LATE_GAP_MS);
	ret = leases_create(ls, n, region, peer, MWIN_WINDOW_QUIET, 1000 + n,
			    LATE_GAP_MS);
	if (!ret)
		ret = leases_deadlines(ls, n, &first, &last);
	if (!ret) {
		mon = monitor_open();
		ret = mon < 0 ? mon : 0;
	}
	if (ret) {
		lease_fail("lateness", "us", lsum.why_late, "failed: %s%s",
			   strerror(-ret),
			   ret == -ENODATA ? " (a lease ran out during the setup)" : "");
		goto out;
	}
	if (now_ns() >= first)
		say("lease lateness: the setup ran past the first deadline");
	qsort(ls, n, sizeof(*ls), lease_cmp);
	expiries_collect(mon, ls, n, last + GIVE_UP_NS, &log);
	lsum.seen = log.seen;
	lsum.lost = log.lost;
	if (log.seen < n || log.lost || log.other)
		say("lease lateness: %u of %u expiries seen, %llu events lost, %u revoked otherwise",
		    log.seen, n, (unsigned long long)log.lost, log.other);
	k = lateness_of(ls, n, late);
	if (lsum.early)
		say("lease lateness: %u rkeys died before their deadline",
		    lsum.early);
	if (k)
		lateness_results(late, k);
	else
		lease_fail("lateness", "us", lsum.why_late,
			   "failed: no expiry seen");
out:
	if (mon >= 0)
		close(mon);
	leases_destroy(ls, n);
	free(late);
	free(ls);
}

/* -------------------------------------------------------- mass expiry */

/* @n single WINDOW_INVALIDATE ioctls, one per window: the ns they took */
static int64_t invalidate_all(const struct lease *ls, unsigned int n)
{
	uint64_t t0 = now_ns();
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = mwin_window_invalidate(mfd, ls[i].id);
		if (ret)
			return ret;
	}
	return (int64_t)(now_ns() - t0);
}

/* the figures of a mass expiry whose events @log holds */
static void mass_results(unsigned int n, int64_t inv_ns, uint64_t first,
			 uint64_t last, const struct expiry_log *log)
{
	double total = (double)log->last - (double)first;
	double per = total / 1e3 / n, inv = inv_ns / 1e3 / n;

	lease_figure("lease", "single invalidate", inv, (int)n, "us/op");
	lease_figure("lease", "expiry per window", per, (int)n, "us/op");
	lease_figure("lease", "expiry total", total / 1e6, (int)n, "ms");
	lease_figure("lease", "deadline spread", (last - first) / 1e6, (int)n,
		     "ms");
	lease_figure("ratio", "single invalidate/expiry", inv / per, 1, "x");
	say("lease mass expiry of %u windows (deadlines within %.2f ms): %.1f ms from the first deadline to the last revoke, %.2f us per window; single invalidate %.2f us: %.2fx",
	    n, (last - first) / 1e6, total / 1e6, per, inv, inv / per);
}

/*
 * @n windows, granted to @peer as any window is (the peer is told of each
 * grant and revoke; the leases' revokes go in the batches' SENDs), first
 * invalidated one by one (the anchor), then bound again with leases that
 * all end at one instant. The instant is a second and twice the
 * invalidations' time away: rebinding and reading the deadlines cost less
 * than the invalidations, so no lease runs out before the monitor starts.
 */
static void lease_mass(uint32_t region, uint32_t peer, unsigned int n)
{
	struct lease *ls = calloc(n, sizeof(*ls));
	uint64_t first, last, deadline;
	struct expiry_log log;
	struct mwin_stats st0, st1;
	bool counted;
	int64_t inv_ns;
	int mon = -1, ret;

	if (!ls)
		die("out of memory");
	lsum.windows = n;
	say("lease mass expiry: %u windows, their single invalidations, then leases ending together",
	    n);
	ret = leases_create(ls, n, region, peer, 0, 0, 0);
	inv_ns = ret ? ret : invalidate_all(ls, n);
	if (inv_ns < 0) {
		ret = (int)inv_ns;
		goto fail;
	}
	/* the module's count of expiries, to check the monitor's against */
	counted = !mwin_stats(mfd, MWIN_STATS_MODULE, 0, &st0);
	deadline = now_ns() + 1000000000ULL + 2 * (uint64_t)inv_ns;
	ret = leases_arm(ls, n, deadline);
	if (!ret)
		ret = leases_deadlines(ls, n, &first, &last);
	if (!ret) {
		mon = monitor_open();
		ret = mon < 0 ? mon : 0;
	}
	if (!ret && now_ns() >= first)
		ret = -ENODATA;
	if (ret)
		goto fail;
	qsort(ls, n, sizeof(*ls), lease_cmp);
	expiries_collect(mon, ls, n, last + GIVE_UP_NS, &log);
	if (counted && !mwin_stats(mfd, MWIN_STATS_MODULE, 0, &st1))
		say("lease mass expiry: %u expiries seen, %llu events lost, %u revoked otherwise; the module counted %llu expiries",
		    log.seen, (unsigned long long)log.lost, log.other,
		    (unsigned long long)(st1.stats[MWIN_STAT_EXPIRIES] -
					 st0.stats[MWIN_STAT_EXPIRIES]));
	/* the last revoke may be among the lost: then no total */
	if (log.seen == n)
		mass_results(n, inv_ns, first, last, &log);
	else
		lease_fail("expiry per window", "us/op", lsum.why_mass,
			   "failed: %u of %u expiries seen, %llu events lost",
			   log.seen, n, (unsigned long long)log.lost);
	goto out;
fail:
	lease_fail("expiry per window", "us/op", lsum.why_mass, "failed: %s%s",
		   strerror(-ret),
		   ret == -ENODATA ? " (a lease ran out during the setup)" : "");
out:
	if (mon >= 0)
		close(mon);
	leases_destroy(ls, n);
	free(ls);
}

/* ------------------------------------------------------------ section */

/*
 * The floor, then @leases leases for the lateness, then a mass expiry of
 * @expiry_windows windows (0: that part left out), on one region of
 * 2 MiB and one peer.
 */
void bench_lease(unsigned int leases, unsigned int expiry_windows)
{
	long long cnt0[NR_CNT];
	uint32_t region;
	struct peer *p;
	int ret;

	say("lease: revoke floor, lateness of %u leases, mass expiry of %u windows",
	    leases, expiry_windows);
	cnt_read(cnt0);
	ret = region_create(2 * MiB, &region);
	if (ret)
		die("REGION_CREATE: %s", strerror(-ret));
	p = peer_connect();
	if (!p)
		die("no peer");
	lease_floor(region, p->peer_id);
	if (leases)
		lease_lateness(region, p->peer_id, leases);
	if (!peer_alive(p)) {
		say("lease: the peer was lost (see dmesg): a new one for the mass expiry");
		peer_close(p);
		p = peer_connect();
		if (!p)
			die("no peer");
	}
	/* room for the other sections' leftovers, as revoke-all leaves */
	if (expiry_windows + 300 > max_windows) {
		expiry_windows = max_windows > 300 ? max_windows - 300 : 0;
		say("lease: max_windows %u: mass expiry of %u windows only",
		    max_windows, expiry_windows);
	}
	if (expiry_windows)
		lease_mass(region, p->peer_id, expiry_windows);
	if (!peer_alive(p))
		say("lease: the peer was lost during the mass expiry (see dmesg)");
	mwin_region_destroy(mfd, region, MWIN_REGION_DESTROY_FORCE);
	peer_close(p);
	cnt_section("lease", cnt0);
}

/* ------------------------------------------------------------- report */

void lease_report(FILE *out)
{
	const struct result *fl = find("lease", "revoke floor", 4 * KiB, 0);
	const struct result *la = find("lease", "lateness", 4 * KiB, 0);
	const struct result *ex = find("lease", "expiry per window", 4 * KiB, 0);

	if (!fl && !lsum.leases && !lsum.windows)
		return;
	fprintf(out, "\nLeases: from a lease's deadline until its rkey is dead (the monitor's EXPIRED revoke, stamped\n");
	fprintf(out, "when its LOCAL_INV completed); the module's timer slack is %d us\n",
		LEASE_SLACK_US);
	if (fl)
		fprintf(out, "  in-kernel revoke floor (one LOCAL_INV posted and waited for alone): %.1f us [%.1f-%.1f], %d rounds of %d\n",
			fl->s.med, fl->s.p10, fl->s.p90, fl->s.n, fl->ops);
	else
		fprintf(out, "  in-kernel revoke floor: not measured (mwin_bench.ko)\n");
	if (la)
		fprintf(out, "  lateness of %u leases %d ms apart (quiet windows, each expiring alone): median %.1f us [%.1f-%.1f], p99 %.1f, max %.1f us\n",
			lsum.leases, LATE_GAP_MS, la->s.med, la->s.p10,
			la->s.p90, med("lease", "lateness p99", 4 * KiB, 0),
			med("lease", "lateness max", 4 * KiB, 0));
	else if (lsum.leases)
		fprintf(out, "  lateness: %s\n", lsum.why_late);
	if (la && (lsum.seen < lsum.leases || lsum.lost || lsum.early))
		fprintf(out, "    %u of %u expiries seen, %llu events lost, %u before their deadline\n",
			lsum.seen, lsum.leases, (unsigned long long)lsum.lost,
			lsum.early);
	if (ex) {
		fprintf(out, "  mass expiry of %u windows, deadlines within %.2f ms: %.1f ms from the earliest deadline to the last revoke,\n",
			lsum.windows, med("lease", "deadline spread", 4 * KiB, 0),
			med("lease", "expiry total", 4 * KiB, 0));
		fprintf(out, "    %.2f us per window; %u single WINDOW_INVALIDATE ioctls of the same windows: %.2f us per window (%.2fx)\n",
			ex->s.med, lsum.windows,
			med("lease", "single invalidate", 4 * KiB, 0),
			med("ratio", "single invalidate/expiry", 4 * KiB, 0));
	} else if (lsum.windows) {
		fprintf(out, "  mass expiry: %s\n", lsum.why_mass);
	}
}
