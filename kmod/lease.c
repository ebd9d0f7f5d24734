// SPDX-License-Identifier: GPL-2.0
/*
 * Leases: grants that end by themselves, and one-shot windows.
 *
 * A bind with a lease puts its window in one tree of leases, ordered by
 * deadline (CLOCK_MONOTONIC). One hrtimer, armed for the earliest
 * deadline, queues one work item, which takes every lease that is due, up
 * to a batch at a time, and revokes them as one WINDOW_BATCH of
 * invalidations would (batch_expire()): a LOCAL_INV chain per peer, one
 * wait per chain, whatever the number of leases ending together. A lease is
 * never ended early: the rkey works until its deadline and dies within the
 * timer's slack, the work's latency and one LOCAL_INV after it.
 *
 * A renew and an expiry are ordered by window->lock: the work takes due
 * leases off the tree, then checks each again under the window's lock
 * (lease_due()); a renew meanwhile put it back with a later deadline.
 *
 * The tree holds a reference on each window in it, so no timer or work
 * ever finds freed memory; a lease ends (lease_end()) when its rkey dies
 * otherwise or its window is destroyed, and lease_exit() waits for the
 * work at unload.
 *
 * One-shot windows (MWIN_WINDOW_ONCE) are destroyed when their grant ends
 * by expiry, here, or when handed back: the receive handler takes the
 * window from its callers (dead, unpublished) and leaves the rest of the
 * destroy, which may wait for the device, to this work (lease_reap()).
 */
#include <linux/hrtimer.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "mwin.h"
#include "trace.h"

/*
 * Lets the kernel fire the timer up to this late, to coalesce wakeups: a
 * task's default timer slack. Every microsecond of it is one more that
 * the rkey lives past its deadline (under TCG the timer fires some 300 us
 * later still), so it stays small; the work batches what is due anyway.
 */
#define LEASE_SLACK_NS		(50 * NSEC_PER_USEC)

static DEFINE_SPINLOCK(lease_lock);	/* the tree, the reap list */
static struct rb_root_cached lease_tree = RB_ROOT_CACHED;
static LIST_HEAD(lease_reap_list);
static struct hrtimer lease_timer;
static struct work_struct lease_work;
/* for the work alone: it never runs twice at once */
static struct batch *lease_batch;
static struct mwin_window *lease_due_windows[MWIN_BATCH_MAX];

static struct mwin_window *lease_first(void)
{
	struct rb_node *n = rb_first_cached(&lease_tree);

	return n ? rb_entry(n, struct mwin_window, lease_node) : NULL;
}

/* Arm the timer for the earliest lease. Under lease_lock. */
static void lease_arm(void)
{
	struct mwin_window *w = lease_first();

	if (w)
		hrtimer_start_range_ns(&lease_timer, w->expires,
				       LEASE_SLACK_NS, HRTIMER_MODE_ABS);
}

static void lease_erase(struct mwin_window *w)
{
	rb_erase_cached(&w->lease_node, &lease_tree);
	RB_CLEAR_NODE(&w->lease_node);
}

/**
 * lease_end() - @w's lease ends without expiring: its rkey died otherwise
 * @w: window, locked; the caller holds a reference
 */
void lease_end(struct mwin_window *w)
{
	bool listed;

	lockdep_assert_held(&w->lock);
	w->expires = 0;
	spin_lock(&lease_lock);
	listed = !RB_EMPTY_NODE(&w->lease_node);
	if (listed)
		lease_erase(w);
	spin_unlock(&lease_lock);
	if (listed)
		window_put(w);		/* the tree's; never the last */
}

/**
 * lease_set() - give @w's grant a lease of @ms milliseconds from now
 * @w: window, locked, bound (or a tenant's, waiting for a connection)
 * @ms: the lease; 0 ends any lease: the grant lasts until revoked
 */
void lease_set(struct mwin_window *w, u32 ms)
{
	struct rb_node **link, *parent = NULL;
	bool leftmost = true;

	lease_end(w);
	w->expired = false;
	if (!ms)
		return;
	w->expires = ktime_add_ms(ktime_get(), ms);
	mwin_obj_get(&w->obj);		/* the tree's */
	spin_lock(&lease_lock);
	link = &lease_tree.rb_root.rb_node;
	while (*link) {
		struct mwin_window *o;

		parent = *link;
		o = rb_entry(parent, struct mwin_window, lease_node);
		if (ktime_before(w->expires, o->expires)) {
			link = &parent->rb_left;
		} else {
			link = &parent->rb_right;
			leftmost = false;
		}
	}
	rb_link_node(&w->lease_node, parent, link);
	rb_insert_color_cached(&w->lease_node, &lease_tree, leftmost);
	if (leftmost)
		lease_arm();
	spin_unlock(&lease_lock);
}

/**
 * lease_left_ms() - what a grant message says of @w's lease
 * @w: window, locked
 *
 * Return: the milliseconds left, rounded down but at least 1 (a lease due
 * now is still running); 0 for none.
 */
u32 lease_left_ms(const struct mwin_window *w)
{
	s64 left;

	if (!w->expires)
		return 0;
	left = ktime_ms_delta(w->expires, ktime_get());
	return clamp_t(s64, left, 1, U32_MAX);
}

/**
 * lease_due() - is @w's lease, which the work took off the tree, due?
 * @w: window, locked
 *
 * False when it was renewed (back in the tree) or ended meanwhile.
 */
bool lease_due(const struct mwin_window *w)
{
	return w->expires && RB_EMPTY_NODE(&w->lease_node) &&
	       !ktime_before(ktime_get(), w->expires);
}

/**
 * lease_expired() - @w's lease ran out; its rkey, if any, is dead
 * @w: window, locked
 *
 * Traces how late the rkey died, from the deadline to now (the LOCAL_INV's
 * completion). A tenant's window waiting for a connection waits no more.
 */
void lease_expired(struct mwin_window *w)
{
	trace_mwin_lease_expire(w, ktime_to_ns(ktime_sub(ktime_get(),
							 w->expires)));
	/* waiting for a connection, it has no peer: its tenant's alone */
	if (w->peer)
		mwin_count(w->peer, MWIN_STAT_EXPIRIES, 1);
	else
		mwin_count_tenant(w->tenant, MWIN_STAT_EXPIRIES, 1);
	w->expires = 0;
	w->expired = true;
	w->waiting = false;
}

/* Take up to a batch of due leases off the tree, with their references. */
static unsigned int lease_take_due(void)
{
	ktime_t now = ktime_get();
	struct mwin_window *w;
	unsigned int n = 0;

	spin_lock(&lease_lock);
	while (n < MWIN_BATCH_MAX && (w = lease_first()) &&
	       !ktime_before(now, w->expires)) {
		lease_erase(w);
		lease_due_windows[n++] = w;
	}
	if (!n)
		lease_arm();
	spin_unlock(&lease_lock);
	return n;
}

/**
 * lease_reap() - finish the destroy of a one-shot window handed back
 * @w: window, locked, dead and unpublished by the caller; the reap takes
 *	the id's reference over
 */
void lease_reap(struct mwin_window *w)
{
	lockdep_assert_held(&w->lock);
	spin_lock(&lease_lock);
	list_add_tail(&w->reap_node, &lease_reap_list);
	spin_unlock(&lease_lock);
	queue_work(system_highpri_wq, &lease_work);
}

static void lease_reap_all(void)
{
	struct mwin_window *w;

	for (;;) {
		spin_lock(&lease_lock);
		w = list_first_entry_or_null(&lease_reap_list,
					     struct mwin_window, reap_node);
		if (w)
			list_del_init(&w->reap_node);
		spin_unlock(&lease_lock);
		if (!w)
			return;
		window_finish_destroy(w);
	}
}

static void lease_work_fn(struct work_struct *work)
{
	unsigned int i, n;

	lease_reap_all();
	while ((n = lease_take_due())) {
		batch_expire(lease_batch, lease_due_windows, n);
		for (i = 0; i < n; i++) {
			window_end_once(lease_due_windows[i]);
			window_put(lease_due_windows[i]);
		}
	}
}

static enum hrtimer_restart lease_timer_fn(struct hrtimer *timer)
{
	queue_work(system_highpri_wq, &lease_work);
	return HRTIMER_NORESTART;
}

int lease_init(void)
{
	/* the module's own, not its loader's */
	lease_batch = batch_alloc(MWIN_BATCH_MAX, true, GFP_KERNEL);
	if (!lease_batch)
		return -ENOMEM;
	INIT_WORK(&lease_work, lease_work_fn);
	hrtimer_init(&lease_timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
	lease_timer.function = lease_timer_fn;
	return 0;
}

/*
 * Unload: every window is destroyed, so the tree is empty and no lease
 * arms the timer again; the work may still have one-shot windows to reap.
 */
void lease_exit(void)
{
	flush_work(&lease_work);
	hrtimer_cancel(&lease_timer);
	cancel_work_sync(&lease_work);
	WARN_ON(!RB_EMPTY_ROOT(&lease_tree.rb_root) ||
		!list_empty(&lease_reap_list));
	batch_free(lease_batch);
}
