// SPDX-License-Identifier: GPL-2.0
/*
 * mwbench's parallel section: the aggregate rate of loud rebinds (each
 * sends its peer a revoke and a grant) made by PAR_PEERS callers at once,
 * each a thread rebinding a window of a peer of its own, against one
 * caller rebinding a window of one peer; the two take turns within each
 * round. Whether the callers overlap depends on where the module's
 * completions go: with every peer's CQ on one completion vector, they
 * queue behind one another on one CPU.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mwbench.h"

#define PAR_PEERS 4

/* A thread of its own rebinding @win, a window of its own peer. */
struct par_caller {
	struct peer *peer;
	uint32_t win;
	uint32_t flip;
	int ops;
	int ret;
	pthread_barrier_t *start;
	pthread_t thread;
};

struct par_ctx {
	uint32_t region;
	struct par_caller callers[PAR_PEERS];
};

static int rebind_loop(struct par_caller *c)
{
	int i, ret;

	for (i = 0; i < c->ops; i++) {
		ret = win_rebind(c->win, 0, 4 * KiB,
				 ++c->flip & 1 ? MWIN_ACCESS_READ : RW);
		if (ret)
			return ret;
	}
	return 0;
}

static void *caller_run(void *arg)
{
	struct par_caller *c = arg;

	pthread_barrier_wait(c->start);
	c->ret = rebind_loop(c);
	return NULL;
}

/* one caller, the first peer's window */
static int64_t t_one_caller(void *arg, int ops)
{
	struct par_ctx *x = arg;
	uint64_t t0 = now_ns();
	int ret;

	x->callers[0].ops = ops;
	ret = rebind_loop(&x->callers[0]);
	return ret ? ret : (int64_t)(now_ns() - t0);
}

/*
 * PAR_PEERS callers, @ops rebinds each, started together: the wall time
 * over PAR_PEERS, so that the round robin's us per operation is that of
 * the aggregate rate.
 */
static int64_t t_all_callers(void *arg, int ops)
{
	struct par_ctx *x = arg;
	pthread_barrier_t start;
	int i, ret = 0;
	uint64_t t0;

	pthread_barrier_init(&start, NULL, PAR_PEERS + 1);
	for (i = 0; i < PAR_PEERS; i++) {
		x->callers[i].ops = ops;
		x->callers[i].start = &start;
		if (pthread_create(&x->callers[i].thread, NULL, caller_run,
				   &x->callers[i]))
			die("pthread_create");
	}
	pthread_barrier_wait(&start);
	t0 = now_ns();
	for (i = 0; i < PAR_PEERS; i++) {
		pthread_join(x->callers[i].thread, NULL);
		if (x->callers[i].ret && !ret)
			ret = x->callers[i].ret;
	}
	t0 = now_ns() - t0;
	pthread_barrier_destroy(&start);
	return ret ? ret : (int64_t)(t0 / PAR_PEERS);
}

/* a peer and a loud window of 4 KiB on @x->region for each caller */
static void par_setup(struct par_ctx *x)
{
	struct mwin_window_bind b;
	int i, ret;

	ret = region_create(2 * MiB, &x->region);
	if (ret)
		die("REGION_CREATE: %s", strerror(-ret));
	for (i = 0; i < PAR_PEERS; i++) {
		x->callers[i].peer = peer_connect();
		if (!x->callers[i].peer)
			die("no peer");
		ret = win_create(x->region, x->callers[i].peer->peer_id, 0,
				 4 * KiB, RW, &b);
		if (ret)
			die("WINDOW_CREATE: %s", strerror(-ret));
		x->callers[i].win = b.id;
	}
}

static void par_teardown(struct par_ctx *x)
{
	int i;

	for (i = 0; i < PAR_PEERS; i++) {
		mwin_window_destroy(mfd, x->callers[i].win);
		peer_close(x->callers[i].peer);
	}
	mwin_region_destroy(mfd, x->region, MWIN_REGION_DESTROY_FORCE);
}

void bench_parallel(void)
{
	static const uint64_t sizes[] = { 4 * KiB };
	static double v[1][RR_MAX][MAX_TRIALS];
	static int err[1][RR_MAX];
	struct rr_method m[] = {
		{ "rebind, 1 peer 1 caller", t_one_caller, true, false },
		{ "rebind, 4 peers 4 callers", t_all_callers, true, false },
	};
	int trials[] = { opt.trials }, ops[] = { opt.ops };
	struct par_ctx x = {};
	long long cnt0[NR_CNT];
	void *ctxp[] = { &x };

	say("parallel: loud rebinds of 4 KiB, 1 caller against %d callers of %d peers at once, %d rounds of %d ops each",
	    PAR_PEERS, PAR_PEERS, opt.trials, opt.ops);
	cnt_read(cnt0);
	par_setup(&x);
	round_robin("parallel", ctxp, sizes, 1, m, ARRAY_SIZE(m), trials, ops,
		    v, err, NULL, NULL);
	rr_results("parallel", sizes, 1, m, ARRAY_SIZE(m), trials, ops, v, err);
	rr_ratio("4x4/1x1 rebind rate", sizes, 1, 0, 1, trials, v, err);
	peer_check(x.callers[0].peer, "after the parallel rebinds");
	par_teardown(&x);
	cnt_section("parallel", cnt0);
}

void parallel_report(FILE *out)
{
	const struct result *one = find("parallel", "rebind, 1 peer 1 caller",
					4 * KiB, 0);
	const struct result *all = find("parallel", "rebind, 4 peers 4 callers",
					4 * KiB, 0);

	if (!one || !all)
		return;
	fprintf(out, "\nParallel loud rebinds of 4 KiB windows, us per rebind (%d callers: the wall time over all their rebinds)\n",
		PAR_PEERS);
	fprintf(out, "  1 peer, 1 caller: %.1f [%.1f-%.1f]; %d peers, %d callers: %.1f [%.1f-%.1f]; rate ratio %.2fx\n",
		one->s.med, one->s.p10, one->s.p90, PAR_PEERS, PAR_PEERS,
		all->s.med, all->s.p10, all->s.p90,
		med("ratio", "4x4/1x1 rebind rate", 4 * KiB, 0));
}
