// SPDX-License-Identifier: GPL-2.0
/*
 * mwbench's peerlib section: what libmwinpeer costs an application.
 *
 *  - per operation, on one connection to the module, through one window:
 *    RDMA READ and WRITE of 64 B to 1 MiB posted by the library, by window
 *    and offset (mwpeer_post(), mwpeer_process()), and raw, with
 *    ibv_post_send() and ibv_poll_cq() on the same QP and buffer (dp_run());
 *    latency with one in flight, throughput with 16, the two taking turns
 *    within each round;
 *  - the reaction to a revoke: from WINDOW_INVALIDATE's return (its revoke
 *    is on its way) to the library's grant table refusing the window, the
 *    check mwpeer_post() makes, with the application calling
 *    mwpeer_process() in a loop.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mwbench.h"

static const uint64_t lib_sizes[] = { 64, 4 * KiB, 64 * KiB, 1 * MiB };
#define NR_LIB		(sizeof(lib_sizes) / sizeof(lib_sizes[0]))
#define LIB_DEPTH	16
#define LIB_REVOKES	200

static const struct {
	const char *name;
	enum ibv_wr_opcode raw;
	uint32_t lib;
} lib_ops[] = {
	{ "READ", IBV_WR_RDMA_READ, MWPEER_OP_READ },
	{ "WRITE", IBV_WR_RDMA_WRITE, MWPEER_OP_WRITE },
};

/*
 * dp_run() through the library: @count operations of @len bytes at the
 * window's start, @depth in flight. Return: ns, 0 on failure.
 */
static uint64_t lib_run(struct mwpeer *mp, uint32_t window, uint32_t type,
			size_t len, int depth, int count, double *lat_us)
{
	struct mwpeer_op op = { .type = type, .window = window, .len = len };
	uint64_t t0 = now_ns(), t_op = 0, deadline = t0 + 60000000000ULL;
	int posted = 0, done = 0, n, i, r;
	struct mwpeer_event ev[16];

	while (done < count) {
		while (posted < count && posted - done < depth) {
			if (lat_us)
				t_op = now_ns();
			op.cookie = posted;
			r = mwpeer_post(mp, &op);
			if (r) {
				say("mwpeer_post: %s (%s)", strerror(-r),
				    mwpeer_errmsg(mp));
				return 0;
			}
			posted++;
		}
		n = mwpeer_process(mp, ev, 16);
		for (i = 0; i < n; i++) {
			if (ev[i].type != MWPEER_EV_DONE)
				continue;
			if (ev[i].status != IBV_WC_SUCCESS) {
				say("library operation of %zu bytes: %s", len,
				    ibv_wc_status_str(ev[i].status));
				return 0;
			}
			if (lat_us)
				lat_us[done] = (now_ns() - t_op) / 1e3;
			done++;
		}
		if (!n && now_ns() > deadline) {
			say("library: no completion for 60 s");
			return 0;
		}
	}
	t0 = now_ns() - t0;
	return t0 ? t0 : 1;
}

/*
 * Latency, one in flight: raw and library take turns operation by
 * operation (who goes first alternates), so that drift touches both;
 * the figure is the median of the pairs' differences, lib - raw, and of
 * those differences in % of the raw operation's.
 */
static void lib_latency(struct peer *p, const struct dp_qp *q, uint32_t w,
			uint64_t rkey, uint64_t iova, size_t o, uint64_t len)
{
	enum { N = 150 };
	int n = len >= 256 * KiB ? 20 : N, k;
	double raw[N], lib[N], diff[N], rel[N];
	char m[48];
	struct stats s;

	for (k = 0; k < n; k++) {
		int g;

		for (g = 0; g < 2; g++) {
			bool ok = (g ^ (k & 1)) ?
				  lib_run(p->mp, w, lib_ops[o].lib, len, 1, 1,
					  &lib[k]) :
				  dp_run(q, lib_ops[o].raw, (uint32_t)rkey,
					 iova, len, 1, 1, &raw[k]);

			if (!ok) {
				add_failed("peerlib", "library-raw latency",
					   len, 1, "us", "failed");
				return;
			}
		}
		diff[k] = lib[k] - raw[k];
		rel[k] = 100 * diff[k] / raw[k];
	}
	snprintf(m, sizeof(m), "raw %s latency", lib_ops[o].name);
	s = stats_of(raw, n);
	add_result("peerlib", m, len, 1, &s, n, "us", NULL);
	snprintf(m, sizeof(m), "library %s latency", lib_ops[o].name);
	s = stats_of(lib, n);
	add_result("peerlib", m, len, 1, &s, n, "us", NULL);
	snprintf(m, sizeof(m), "library-raw %s latency", lib_ops[o].name);
	s = stats_of(diff, n);
	add_result("ratio", m, len, 1, &s, n, "us", NULL);
	snprintf(m, sizeof(m), "library-raw %s latency, %%", lib_ops[o].name);
	s = stats_of(rel, n);
	add_result("ratio", m, len, 1, &s, n, "%", NULL);
}

/* Throughput: 16 in flight, the two alternating who goes first. */
static void lib_throughput(struct peer *p, const struct dp_qp *q, uint32_t w,
			   uint64_t rkey, uint64_t iova, size_t o,
			   uint64_t len, int trials)
{
	int count = (int)(1 * MiB / len), t;
	double ratio[MAX_TRIALS], mbs[2][MAX_TRIALS];
	uint64_t ns[2];
	char m[48];
	struct stats s;

	if (count < 16)
		count = 16;
	if (count > 1024)
		count = 1024;
	for (t = 0; t < trials; t++) {
		int first = t & 1, g;

		for (g = 0; g < 2; g++) {
			bool lib = (g ^ first) != 0;

			ns[lib] = lib ? lib_run(p->mp, w, lib_ops[o].lib, len,
						LIB_DEPTH, count, NULL) :
					dp_run(q, lib_ops[o].raw,
					       (uint32_t)rkey, iova, len,
					       LIB_DEPTH, count, NULL);
			if (!ns[lib]) {
				add_failed("peerlib", "library/raw throughput",
					   len, LIB_DEPTH, "x", "failed");
				return;
			}
			mbs[lib][t] = (double)len * count / ns[lib] * 1e3;
		}
		ratio[t] = (double)ns[0] / ns[1];
	}
	snprintf(m, sizeof(m), "raw %s throughput", lib_ops[o].name);
	s = stats_of(mbs[0], trials);
	add_result("peerlib", m, len, LIB_DEPTH, &s, count, "MB/s", NULL);
	snprintf(m, sizeof(m), "library %s throughput", lib_ops[o].name);
	s = stats_of(mbs[1], trials);
	add_result("peerlib", m, len, LIB_DEPTH, &s, count, "MB/s", NULL);
	snprintf(m, sizeof(m), "library/raw %s throughput", lib_ops[o].name);
	s = stats_of(ratio, trials);
	add_result("ratio", m, len, LIB_DEPTH, &s, count, "x", NULL);
}

/*
 * From WINDOW_INVALIDATE's return to the grant gone from the library's
 * table, @n times; the window is rebound between times.
 */
static void lib_revoke_reaction(struct peer *p, uint32_t region, int n)
{
	const struct mwin_window_bind rb = {
		.size = sizeof(rb), .access = RW, .offset = 1 * MiB,
		.length = 4 * KiB,
	};
	struct mwin_window_bind b = rb, rebind;
	double us[LIB_REVOKES];
	const char *why = "";
	struct mwpeer_event ev[16];
	struct stats s;
	int i, done = 0;

	b.region = region;
	b.peer = p->peer_id;
	if (mwin_window_create(mfd, &b)) {
		add_failed("peerlib", "revoke reaction", 4 * KiB, 0, "us",
			   "WINDOW_CREATE: %s", strerror(errno));
		return;
	}
	for (i = 0; i < n; i++) {
		uint64_t t0, deadline;

		/* the grant in the table first */
		deadline = now_ns() + 5000000000ULL;
		while (mwpeer_grant(p->mp, b.id, NULL) && now_ns() < deadline)
			mwpeer_process(p->mp, ev, 16);
		if (mwin_window_invalidate(mfd, b.id)) {
			why = "WINDOW_INVALIDATE failed";
			break;
		}
		t0 = now_ns();
		while (!mwpeer_grant(p->mp, b.id, NULL) && now_ns() < deadline)
			mwpeer_process(p->mp, ev, 16);
		if (now_ns() >= deadline) {
			why = "no grant, or no revoke, in 5 s";
			break;
		}
		us[done++] = (now_ns() - t0) / 1e3;
		rebind = rb;
		rebind.id = b.id;
		if (mwin_window_rebind(mfd, &rebind)) {
			why = "WINDOW_REBIND failed";
			break;
		}
	}
	mwin_window_destroy(mfd, b.id);
	if (done < n) {
		add_failed("peerlib", "revoke reaction", 4 * KiB, 0, "us",
			   "%d of %d revokes seen: %s", done, n, why);
		return;
	}
	qsort(us, done, sizeof(us[0]), cmp_double);
	s = stats_of(us, done);
	add_result("peerlib", "revoke reaction", 4 * KiB, 0, &s, done, "us",
		   NULL);
	s.med = pct(us, done, 0.99);
	add_result("peerlib", "revoke reaction p99", 4 * KiB, 0, &s, done,
		   "us", NULL);
}

void bench_peerlib(int trials)
{
	struct mwin_window_bind b = { .size = sizeof(b), .access = RW,
				      .length = 1 * MiB };
	uint64_t deadline = now_ns() + 10000000000ULL;
	struct peer *p;
	struct dp_qp q;
	size_t o, i;

	if (region_create(2 * MiB, &b.region))
		die("REGION_CREATE");
	p = peer_connect();
	if (!p)
		die("no peer");
	b.peer = p->peer_id;
	if (mwin_window_create(mfd, &b))
		die("WINDOW_CREATE 1 MiB: %s", strerror(errno));
	/* the pump takes the grant in; then the benchmark drives the peer */
	while (!atomic_load(&p->msgs) && now_ns() < deadline)
		usleep(1000);
	q = peer_dp(p);
	if (mwpeer_grant(p->mp, b.id, NULL))
		die("libmwinpeer has no grant for window %u", b.id);
	say("peerlib: library against raw verbs on peer %u, window %u",
	    p->peer_id, b.id);
	for (o = 0; o < 2; o++) {
		for (i = 0; i < NR_LIB; i++) {
			/* warm both up */
			lib_run(p->mp, b.id, lib_ops[o].lib, lib_sizes[i], 4,
				16, NULL);
			dp_run(&q, lib_ops[o].raw, b.rkey, b.iova,
			       lib_sizes[i], 4, 16, NULL);
			lib_latency(p, &q, b.id, b.rkey, b.iova, o,
				    lib_sizes[i]);
			lib_throughput(p, &q, b.id, b.rkey, b.iova, o,
				       lib_sizes[i], trials);
		}
	}
	lib_revoke_reaction(p, b.region, LIB_REVOKES);
	mwin_window_destroy(mfd, b.id);
	peer_close(p);
	mwin_region_destroy(mfd, b.region, MWIN_REGION_DESTROY_FORCE);
}

/* the metric @what reads at @len for @op in @m, or false: none there */
static bool worst_metric(enum lib_worst what, uint64_t len, const char *op,
			 char *m, size_t mlen)
{
	if (what == LIB_THROUGHPUT)
		snprintf(m, mlen, "library/raw %s throughput", op);
	else if (what == LIB_LATENCY_US && len <= LIB_LATENCY_US_MAX)
		snprintf(m, mlen, "library-raw %s latency", op);
	else if (what == LIB_LATENCY_PCT && len > LIB_LATENCY_US_MAX)
		snprintf(m, mlen, "library-raw %s latency, %%", op);
	else
		return false;
	return true;
}

/*
 * The worst size of library/raw throughput (smallest), or of library -
 * raw latency (largest): in us up to LIB_LATENCY_US_MAX, in % above.
 */
double peerlib_worst(enum lib_worst what, char *where, size_t len)
{
	bool larger = what != LIB_THROUGHPUT;
	double worst = NAN, x;
	char m[48];
	size_t o, i;

	for (o = 0; o < 2; o++) {
		for (i = 0; i < NR_LIB; i++) {
			if (!worst_metric(what, lib_sizes[i], lib_ops[o].name,
					  m, sizeof(m)))
				continue;
			x = med("ratio", m, lib_sizes[i],
				larger ? 1 : LIB_DEPTH);
			if (isnan(x) || (!isnan(worst) &&
					 (larger ? x <= worst : x >= worst)))
				continue;
			worst = x;
			snprintf(where, len, "(%s %llu B)", lib_ops[o].name,
				 (unsigned long long)lib_sizes[i]);
		}
	}
	return worst;
}

void peerlib_report(FILE *out)
{
	const struct result *r = find("peerlib", "revoke reaction", 4 * KiB, 0);
	char m[48];
	size_t o, i;

	if (!find("peerlib", "raw READ latency", 64, 1) && !r)
		return;
	fprintf(out, "\nlibmwinpeer against raw verbs on the same connection (us; MB/s at %d in flight)\n",
		LIB_DEPTH);
	fprintf(out, "  %-6s %8s %9s %9s %9s %11s %11s %7s\n", "op", "bytes",
		"raw lat", "lib lat", "lib-raw", "raw MB/s", "lib MB/s",
		"lib/raw");
	for (o = 0; o < 2; o++) {
		for (i = 0; i < NR_LIB; i++) {
			const char *n = lib_ops[o].name;
			uint64_t l = lib_sizes[i];
			double v[6];

			snprintf(m, sizeof(m), "raw %s latency", n);
			v[0] = med("peerlib", m, l, 1);
			snprintf(m, sizeof(m), "library %s latency", n);
			v[1] = med("peerlib", m, l, 1);
			snprintf(m, sizeof(m), "library-raw %s latency", n);
			v[2] = med("ratio", m, l, 1);
			snprintf(m, sizeof(m), "raw %s throughput", n);
			v[3] = med("peerlib", m, l, LIB_DEPTH);
			snprintf(m, sizeof(m), "library %s throughput", n);
			v[4] = med("peerlib", m, l, LIB_DEPTH);
			snprintf(m, sizeof(m), "library/raw %s throughput", n);
			v[5] = med("ratio", m, l, LIB_DEPTH);
			fprintf(out, "  %-6s %8llu %9.1f %9.1f %9.2f %11.1f %11.1f %6.3fx\n",
				n, (unsigned long long)l, v[0], v[1], v[2],
				v[3], v[4], v[5]);
		}
	}
	if (r)
		fprintf(out, "  revoke reaction (WINDOW_INVALIDATE returned -> the library refuses the window): median %.1f us [%.1f-%.1f], p99 %.1f us, %d revokes\n",
			r->s.med, r->s.p10, r->s.p90,
			med("peerlib", "revoke reaction p99", 4 * KiB, 0),
			r->ops);
}
