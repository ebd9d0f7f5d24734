// SPDX-License-Identifier: GPL-2.0
/*
 * mwctl stats: the module's counters (MWIN_STATS), or one peer's or one
 * tenant's, in the style of iproute2's "rdma statistic": one line of
 * "name value" pairs. The counters that are 0 are left out unless -d, so
 * that what happened stands out; -d also adds the peers gone and the
 * connections refused, by reason.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "mwctl.h"

static int usage_stats(struct mw *mw)
{
	(void)mw;
	fputs("Usage: mwctl stats [ show ] [ peer ID | tenant { NAME | ID } ]\n"
	      "The module's counters since it was loaded, a peer's since it connected,\n"
	      "or a tenant's since it was made (of all its connections, the gone ones\n"
	      "too): grants, revokes, remote_invalidations, attacks, access_errors,\n"
	      "cut_offs, timeouts, keys_spent, mr_replacements, qp_events,\n"
	      "qp_access_errors, msgs_sent, msgs_received, expiries (leases that ran\n"
	      "out). Those that are 0 are left out unless -d, which adds, for the\n"
	      "module and a tenant, downs (peers gone, by reason) and rejects\n"
	      "(connections refused, by reason).\n",
	      stdout);
	return 0;
}

/* Whose counters: what MWIN_STATS takes, and the tenant's name. */
struct whose {
	uint32_t scope;
	uint32_t id;
	char name[MWIN_TENANT_NAME_MAX + 1];	/* a tenant's, or its id */
};

/* The module's, or those of the peer or tenant the keywords name. */
static void whose_of(struct mw *mw, struct kw *kws, struct whose *w)
{
	memset(w, 0, sizeof(*w));
	w->scope = MWIN_STATS_MODULE;
	if (kw_set(kws, "peer")) {
		w->scope = MWIN_STATS_PEER;
		w->id = (uint32_t)kw_u(kws, "peer");
	} else if (kw_set(kws, "tenant")) {
		w->scope = MWIN_STATS_TENANT;
		w->id = tenant_arg_id(mw, kw_find(kws, "tenant")->s, w->name,
				      sizeof(w->name));
	}
}

static void __attribute__((noreturn))
stats_failed(struct mw *mw, int err, const struct whose *w)
{
	if (err == -ENOENT && w->scope == MWIN_STATS_PEER)
		die("no peer %u", w->id);
	if (err == -ENOENT && w->scope == MWIN_STATS_TENANT)
		die("no tenant %s", w->name);
	cmd_failed(mw, err);
}

/* "stats module", "stats peer 4", "stats tenant acme" */
static void print_whose(const struct whose *w)
{
	static const char *const scopes[] = {
		[MWIN_STATS_MODULE] = "module",
		[MWIN_STATS_PEER] = "peer",
		[MWIN_STATS_TENANT] = "tenant",
	};

	pr_label("stats");
	pr_str(PR_ANY, "scope", scopes[w->scope]);
	if (w->scope == MWIN_STATS_PEER) {
		pr_label("");
		pr_uint(PR_ANY, "peer", w->id);
	} else if (w->scope == MWIN_STATS_TENANT) {
		pr_label("");
		pr_str(PR_ANY, "tenant", w->name);
		pr_uint(PR_JSON, "tenant_id", w->id);
	}
}

/* The counters the module filled, by enum mwin_stat; 0s with -d only. */
static void print_counters(struct mw *mw, const struct mwin_stats *st)
{
	uint32_t i, n = st->nr_stats;
	char unknown[24];

	if (n > MWIN_STATS_MAX)
		n = MWIN_STATS_MAX;
	for (i = 0; i < n; i++)
		if (st->stats[i] || mw->details)
			pr_uint(PR_ANY, enum_str(mwin_stat_name, i, "stat_",
						 unknown, sizeof(unknown)),
				st->stats[i]);
}

static int stats_show(struct mw *mw)
{
	struct kw kws[] = {
		KW("peer", KW_ID, "ID", false),
		KW("tenant", KW_STR, "NAME", false),
		{ 0 },
	};
	struct mwin_stats st;
	struct whose w;
	int ret;

	parse_kws(mw, kws);
	check_grantee(mw, kws, false);
	mw_open(mw);
	whose_of(mw, kws, &w);
	ret = mwin_stats(mw->fd, w.scope, w.id, &st);
	if (ret)
		stats_failed(mw, ret, &w);

	pr_doc_begin();
	print_whose(&w);
	print_counters(mw, &st);
	/* a peer's are 0: it is gone, or refused, before they could count */
	if (mw->details && w.scope != MWIN_STATS_PEER) {
		print_reasons("downs", st.downs, MWIN_DOWN_SLOTS,
			      mwin_down_reason_name);
		print_reasons("rejects", st.rejects, MWIN_REJECT_SLOTS,
			      mwin_reject_reason_name);
	}
	pr_doc_end();
	return 0;
}

/* A word that names a command of stats, not its first keyword. */
static bool is_stats_command(const char *arg)
{
	size_t n = strlen(arg);

	return is_help(arg) ||
	       (n && (!strncmp(arg, "show", n) || !strncmp(arg, "help", n)));
}

int cmd_stats(struct mw *mw)
{
	static const struct mw_cmd cmds[] = {
		{ "show", stats_show, MWIN_CALL_STATS },
		{ "help", usage_stats, MWIN_CALL_ANY },
		{ 0 },
	};

	/* "stats peer 4" is "stats show peer 4", as in rdma statistic */
	if (mw->argc && !is_stats_command(mw->argv[0])) {
		mw->obj = "stats";
		mw->cmd = "show";
		mw->call = MWIN_CALL_STATS;
		mw->usage = usage_stats;
		return stats_show(mw);
	}
	return mw_object(mw, "stats", usage_stats, cmds);
}
