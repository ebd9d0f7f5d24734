// SPDX-License-Identifier: GPL-2.0
/*
 * The benchmark's hook into the module (make bench: MWIN_BENCH=1, in the
 * benchmark's own build of mwin.ko, never in the one installed): rebinds
 * of one window in a loop, with no ioctl, lookup or message, the floor
 * under a rebind's figures (tools/bench/kmod/mwin_bench.c).
 */
#include "mwin.h"

/*
 * Ready @w, locked, for a benchmark run of @iterations binds: bound, and
 * with that many keys left, or a new MR (outside the timing), as a rebind
 * would take.
 */
static int window_bench_ready(struct mwin_window *w, u32 iterations)
{
	bool replaced;
	u32 old_rkey;
	int ret;

	if (w->dead)
		return -ENOENT;
	if (w->state != MWIN_WINDOW_BOUND || iterations >= MWIN_KEYS)
		return -EINVAL;
	if (MWIN_KEYS - bitmap_weight(w->keys_used, MWIN_KEYS) >= iterations)
		return 0;
	/* all keys spent: window_bind() takes a new MR */
	bitmap_fill(w->keys_used, MWIN_KEYS);
	ret = window_bind(w, w->peer, w->tenant, w->access, &replaced,
			  &old_rkey);
	if (!ret)
		window_tell_grant(w, NULL);
	return ret;
}

/* One rebind of the benchmark's: LOCAL_INV + REG_MR, or just a REG_MR. */
static int window_bench_bind(struct mwin_window *w, bool revokes)
{
	int key = window_pick_key(w);
	int ret;

	set_bit(key, w->keys_used);
	ret = verbs_register(w, key, w->access, revokes);
	if (ret)
		return window_chain_failed(w, true, revokes, ret);
	w->rkey = w->mr->rkey;
	w->binds++;
	w->invalidations++;
	return 0;
}

/**
 * mwin_bench_rebind() - the floor under a rebind, for the benchmark module
 * @id: a bound window
 * @iterations: rebinds to make, at most MWIN_KEYS - 1
 * @ns: out, nanoseconds they took
 * @inv_only: time only a LOCAL_INV per iteration, the floor under a
 *	revoke: each is posted and waited for alone, and the REG_MR that binds
 *	the window again before the next one is not timed
 *
 * Posts the same LOCAL_INV + REG_MR chain as WINDOW_REBIND in a loop, with
 * no ioctl, no lookup and no message per rebind, and key bytes drawn as
 * usual, never twice by one MR: when the MR has fewer keys left than
 * @iterations it is replaced first, outside the timing, as a rebind
 * would. The peer is told what a rebind would tell it: the revoke of the
 * rkey it knew and the grant of the last. Built only for the benchmark
 * (make bench: MWIN_BENCH=1), never into the module that is installed.
 *
 * Return: 0, -ENOENT, -EINVAL (not bound, or too many iterations) or a
 * verbs error.
 */
int mwin_bench_rebind(u32 id, u32 iterations, u64 *ns, bool inv_only)
{
	struct mwin_window *w = window_get(id, &mwin_module_caller);
	u32 i, known;
	u64 start;
	int ret;

	if (!w)
		return -ENOENT;
	window_lock(w);
	ret = window_bench_ready(w, iterations);
	if (ret)
		goto out;
	known = w->rkey;
	*ns = 0;
	for (i = 0; i < iterations && !ret; i++) {
		start = ktime_get_ns();
		if (inv_only) {
			ret = verbs_invalidate(w);
			*ns += ktime_get_ns() - start;
			if (ret)
				ret = window_op_failed(w, ret, true);
			else
				ret = window_bench_bind(w, false);
		} else {
			ret = window_bench_bind(w, true);
			*ns += ktime_get_ns() - start;
		}
	}
	if (!ret)
		window_tell_grant(w, &known);
out:
	mutex_unlock(&w->lock);
	window_put(w);
	return ret;
}
EXPORT_SYMBOL_GPL(mwin_bench_rebind);
