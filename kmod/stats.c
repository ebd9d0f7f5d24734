// SPDX-License-Identifier: GPL-2.0
/*
 * Counters: what happened, for the module, each peer and each tenant
 * (MWIN_STATS, mwctl stats). One call counts an event for all three, so
 * that their figures always agree: a tenant's are the sums of its peers',
 * the module's of all peers', whatever came and went since, plus what
 * happened to a tenant's window while it had no connection (the lease of
 * a window waiting for one), counted for the tenant and the module. The
 * tracepoints of trace.h are defined here too.
 */
#include "mwin.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

static struct mwin_counters mwin_module_counters;

static void mwin_counters_add(struct mwin_counters *c, enum mwin_stat s,
			      s64 n)
{
	atomic64_add(n, &c->stats[s]);
}

/**
 * mwin_count_tenant() - count @n events @s of tenant @t, through no peer
 * @t: the tenant, or NULL for an event of the module's alone
 * @s: what happened
 * @n: how many times
 *
 * For the module and @t. Any context.
 */
void mwin_count_tenant(struct mwin_tenant *t, enum mwin_stat s, s64 n)
{
	mwin_counters_add(&mwin_module_counters, s, n);
	if (t)
		mwin_counters_add(&t->counters, s, n);
}

/**
 * mwin_count() - count @n events @s of peer @p
 * @p: the peer, or NULL for an event of the module's alone
 * @s: what happened
 * @n: how many times
 *
 * For the module, @p, and @p's tenant. Any context.
 */
void mwin_count(struct mwin_peer *p, enum mwin_stat s, s64 n)
{
	mwin_count_tenant(p ? p->tenant : NULL, s, n);
	if (p)
		mwin_counters_add(&p->counters, s, n);
}

/* @p goes, for its reason: counted for the module and its tenant. */
void mwin_count_down(struct mwin_peer *p)
{
	enum mwin_down_reason why = p->down_reason;

	if (why == MWIN_DOWN_QP_ERROR)
		mwin_count(p, MWIN_STAT_ACCESS_ERRORS, 1);
	atomic64_inc(&mwin_module_counters.downs[why]);
	if (p->tenant)
		atomic64_inc(&p->tenant->counters.downs[why]);
}

u64 mwin_counter(const struct mwin_counters *c, enum mwin_stat s)
{
	return atomic64_read(&c->stats[s]);
}

static void mwin_stats_fill(struct mwin_stats *st,
			    const struct mwin_counters *c, bool downs)
{
	unsigned int i;

	BUILD_BUG_ON(MWIN_NR_STATS > MWIN_STATS_MAX);
	st->nr_stats = MWIN_NR_STATS;
	for (i = 0; i < MWIN_NR_STATS; i++)
		st->stats[i] = mwin_counter(c, i);
	for (i = 0; downs && i < MWIN_DOWN_SLOTS; i++)
		st->downs[i] = atomic64_read(&c->downs[i]);
}

static int mwin_stats_peer(struct mwin_stats *st)
{
	struct mwin_peer *p = peer_get(st->id);

	if (!p)
		return -ENOENT;
	mwin_stats_fill(st, &p->counters, false);
	peer_put(p);
	return 0;
}

static int mwin_stats_tenant(struct mwin_stats *st,
			     const struct mwin_caller *c)
{
	struct mwin_tenant *t = tenant_lookup(st->id, c);

	if (!t)
		return -ENOENT;
	mwin_stats_fill(st, &t->counters, true);
	spin_lock(&t->lock);
	memcpy(st->rejects, t->rejects, sizeof(st->rejects));
	spin_unlock(&t->lock);
	tenant_put(t);
	return 0;
}

static void mwin_stats_module(struct mwin_stats *st)
{
	unsigned int i;

	mwin_stats_fill(st, &mwin_module_counters, true);
	for (i = 0; i < MWIN_REJECT_SLOTS; i++)
		st->rejects[i] = atomic64_read(&mwin_rejects[i]);
}

/* MWIN_STATS: the module's counters, or one peer's or tenant's. */
int mwin_stats_get(struct mwin_ucmd *ucmd)
{
	struct mwin_stats *st = ucmd->cmd;
	u32 scope = st->scope, id = st->id;

	/* the module's have no id, a peer's or tenant's have one */
	if (st->flags || st->__reserved || (scope == MWIN_STATS_MODULE && id) ||
	    (scope != MWIN_STATS_MODULE && !id))
		return -EINVAL;
	*st = (struct mwin_stats) {
		.size = st->size, .scope = scope, .id = id,
	};
	switch (scope) {
	case MWIN_STATS_MODULE:
		mwin_stats_module(st);
		return 0;
	case MWIN_STATS_PEER:
		return mwin_stats_peer(st);
	case MWIN_STATS_TENANT:
		return mwin_stats_tenant(st, &ucmd->c);
	}
	return -EINVAL;
}
