// SPDX-License-Identifier: GPL-2.0
/*
 * The control path's round robin: the methods take turns within each round
 * of trials, their figures and their ratios within rounds; and the rxe
 * packets one operation costs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mwbench.h"

unsigned int peer_losses;

/* the operations a trial of @m makes at @size */
static int rr_ops_of(const struct rr_method *m, uint64_t size, int ops)
{
	if (!m->slow)
		return ops;
	if (size >= 16 * MiB)
		return 1;
	return ops < 8 ? ops : 8;
}

/*
 * Round robin: in each round every (context, method) pair makes one trial,
 * so that slow drifts of the host (other guests, TCG) touch all figures
 * alike. Round 0 is a warm-up. v[ctx][method][trial] in us per operation;
 * a method that failed once is left out from then on (err[][] < 0).
 *
 * When a trial fails, @recover (if any) is asked whether the peer was lost
 * (see PEER_RECV_DEPTH); if it was, it connects a new one and rebuilds the
 * windows, and the round is made again from its start. Losses are counted
 * in peer_losses and reported.
 */
void round_robin(const char *section, void **ctxs, const uint64_t *sizes,
		 int nctx, struct rr_method *m, int nm, const int *trials,
		 const int *ops, double v[][RR_MAX][MAX_TRIALS],
		 int err[][RR_MAX], recover_fn recover, void *rarg)
{
	int t, i, k, n, tmax = 0, recoveries = 0;
	int64_t ns;

	for (i = 0; i < nctx; i++)
		if (trials[i] > tmax)
			tmax = trials[i];
	for (t = -1; t < tmax; t++) {
redo:
		for (i = 0; i < nctx; i++) {
			if (t >= trials[i])
				continue;
			for (k = 0; k < nm; k++) {
				if (!m[k].on || err[i][k])
					continue;
				if (getenv("MWBENCH_DEBUG"))
					say("round %d: %s %" PRIu64, t,
					    m[k].metric, sizes[i]);
				n = rr_ops_of(&m[k], sizes[i], ops[i]);
				ns = m[k].fn(ctxs[i], n);
				if (ns < 0 && recover && recoveries < 5 &&
				    !recover(rarg)) {
					recoveries++;
					peer_losses++;
					say("%s: the peer was lost during %s %" PRIu64 " (round %d): new peer, round again",
					    section, m[k].metric, sizes[i], t);
					goto redo;
				}
				if (ns < 0) {
					err[i][k] = (int)ns;
					say("%s %s %" PRIu64 ": %s", section,
					    m[k].metric, sizes[i],
					    strerror((int)-ns));
				} else if (t >= 0) {
					v[i][k][t] = ns / 1e3 / n;
				}
			}
		}
	}
}

/* record the round robin's figures */
void rr_results(const char *section, const uint64_t *sizes, int nctx,
		struct rr_method *m, int nm, const int *trials, const int *ops,
		double v[][RR_MAX][MAX_TRIALS], int err[][RR_MAX])
{
	struct stats s;
	int i, k;

	for (k = 0; k < nm; k++) {
		for (i = 0; i < nctx; i++) {
			if (!m[k].on)
				continue;
			if (err[i][k]) {
				add_failed(section, m[k].metric, sizes[i], 0,
					   "us/op", "failed: %s",
					   strerror(-err[i][k]));
				continue;
			}
			s = stats_of(v[i][k], trials[i]);
			add_result(section, m[k].metric, sizes[i], 0, &s,
				   rr_ops_of(&m[k], sizes[i], ops[i]), "us/op",
				   NULL);
			say("%-5s %-26s %10" PRIu64 ": %9.1f us/op [%.1f-%.1f]",
			    section, m[k].metric, sizes[i], s.med, s.p10,
			    s.p90);
		}
	}
}

/* the per-round ratio a/b of two methods, as a figure of its own */
void rr_ratio(const char *name, const uint64_t *sizes, int nctx, int a, int b,
	      const int *trials, double v[][RR_MAX][MAX_TRIALS],
	      int err[][RR_MAX])
{
	double r[MAX_TRIALS];
	struct stats s;
	int i, t;

	for (i = 0; i < nctx; i++) {
		if (err[i][a] || err[i][b])
			continue;
		for (t = 0; t < trials[i]; t++)
			r[t] = v[i][a][t] / v[i][b][t];
		s = stats_of(r, trials[i]);
		add_result("ratio", name, sizes[i], 0, &s, 1, "x", NULL);
	}
}

/* the same across contexts: method @a of context @ia over @b of @ib */
void rr_ratio_x(const char *name, uint64_t size, int ia, int a, int ib, int b,
		int trials, double v[][RR_MAX][MAX_TRIALS], int err[][RR_MAX])
{
	double r[MAX_TRIALS];
	struct stats s;
	int t;

	if (err[ia][a] || err[ib][b])
		return;
	for (t = 0; t < trials; t++)
		r[t] = v[ia][a][t] / v[ib][b][t];
	s = stats_of(r, trials);
	add_result("ratio", name, size, 0, &s, 1, "x", NULL);
}

/*
 * rxe packets per operation of @fn: the device's sent_pkts (every packet,
 * ACKs included) around @ops operations. The counters are cached for
 * 10 ms by the RDMA core and messages complete after the call returns:
 * the readings wait for both.
 */
void pkts_per_op(const char *metric, trial_fn fn, void *ctx, int ops)
{
	struct stats s = { .n = 1 };
	long long a, b;

	usleep(100000);
	a = pkts_read();
	if (a < 0 || fn(ctx, ops) < 0)
		return;
	usleep(100000);
	b = pkts_read();
	if (b < 0)
		return;
	s.med = s.p10 = s.p90 = s.mean = (double)(b - a) / ops;
	add_result("pkts", metric, 4 * KiB, 0, &s, ops, "pkts/op", NULL);
}
