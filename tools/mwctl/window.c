// SPDX-License-Identifier: GPL-2.0
/*
 * mwctl window: a byte range of a region with remote rights and an rkey,
 * granted to one peer, or to a tenant as a whole (its rkey then works
 * through every connection of the tenant). A failed bind is explained in
 * the module's terms (bind_failed()): which limit, which other window,
 * which device, which grantee. A grant may have a lease, which the module
 * ends by itself unless it is renewed, and a window may be one-shot: gone
 * with its grant's end.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mwctl.h"

static int usage_window(struct mw *mw)
{
	(void)mw;
	fputs("Usage: mwctl window [ show [ ID ] ]\n"
	      "       mwctl window create region ID { peer ID | tenant { NAME | ID } }\n"
	      "                           [ offset OFF ] len LEN access ACCESS [ overlap ] [ quiet ]\n"
	      "                           [ once ] [ expires DURATION ]\n"
	      "       mwctl window rebind ID [ offset OFF ] [ len LEN ] [ access ACCESS ]\n"
	      "                           [ peer ID | tenant { NAME | ID } ] [ overlap ]\n"
	      "                           [ expires DURATION ]\n"
	      "       mwctl window renew ID expires DURATION\n"
	      "       mwctl window invalidate ID\n"
	      "       mwctl window destroy ID\n"
	      "peer: grant the window to that connection; tenant: to the tenant as a whole,\n"
	      "its rkey working through each of its connections, each sent the grant.\n"
	      "ACCESS: letters r (read), w (write), a (atomic), e.g. rw.\n"
	      "OFF, LEN: bytes, decimal or 0x hex, with an optional K, M or G suffix.\n"
	      "overlap: allow the window to overlap other windows of its region.\n"
	      "quiet: send the peer no grant or revoke; hand the rkey out yourself.\n"
	      "expires: a lease; the module revokes the grant when it ends, unless renewed.\n"
	      "DURATION: 500ms, 2s, 1.5s (a bare number is ms), 1ms to 4294967295ms.\n"
	      "once: a one-shot window, destroyed when its rkey is handed back or expires.\n"
	      "rebind keeps the fields it is not given, but the lease: without expires the new\n"
	      "grant has none. The old rkey is dead when it returns.\n"
	      "renew: the live grant's lease now ends DURATION from now (same rkey; peer told).\n",
	      stdout);
	return 0;
}

/* Milliseconds from now to CLOCK_MONOTONIC @ns, rounded up; 0 once past. */
static uint64_t ms_until(uint64_t ns)
{
	struct timespec ts;
	uint64_t now;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	/* up: a lease that still runs never reads as 0ms */
	return ns > now ? (ns - now + 999999) / 1000000 : 0;
}

/* A lease's time left; nothing for a window without one. */
static void print_lease(uint64_t expires_ns)
{
	uint64_t left;
	char buf[32];

	if (!expires_ns)
		return;
	left = ms_until(expires_ns);
	pr_str(PR_TEXT, "expires", duration_str(left, buf, sizeof(buf)));
	pr_uint(PR_JSON, "expires_in_ms", left);
	pr_uint(PR_JSON, "expires_ns", expires_ns);
}

static void print_window(struct mw *mw, const union mw_info *info)
{
	const struct mwin_window_info *w = &info->window;
	char acc[5], tenant[MWIN_TENANT_NAME_MAX + 1];

	pr_label("window");
	pr_uint(PR_ANY, "id", w->id);
	pr_uint(PR_ANY, "region", w->region);
	pr_uint(PR_ANY, "peer", w->peer);
	pr_str(PR_ANY, "tenant", tenant_name(mw, w->tenant, tenant,
					     sizeof(tenant)));
	pr_uint(PR_JSON, "tenant_id", w->tenant);
	pr_str(PR_ANY, "state", mwin_window_state_name(w->state));
	/* only a bound window has a live rkey: text "-", JSON no "rkey" */
	if (w->state == MWIN_WINDOW_BOUND)
		pr_hex(PR_ANY, "rkey", w->rkey, 0);
	else
		pr_str(PR_TEXT, "rkey", "-");
	pr_hex(PR_ANY, "iova", w->iova, 0);
	pr_uint(PR_ANY, "len", w->length);
	pr_str(PR_ANY, "access", mwin_access_str(w->access, acc));
	print_lease(w->expires_ns);
	if (mw->details) {
		pr_uint(PR_ANY, "offset", w->offset);
		pr_bool(PR_ANY, "overlap", w->wflags & MWIN_WINDOW_OVERLAP);
		pr_bool(PR_ANY, "fd_owned", w->wflags & MWIN_CREATE_FD_OWNED);
		pr_bool(PR_ANY, "quiet", w->wflags & MWIN_WINDOW_QUIET);
		pr_bool(PR_ANY, "once", w->wflags & MWIN_WINDOW_ONCE);
		pr_uint(PR_ANY, "binds", w->binds);
		pr_uint(PR_ANY, "invalidations", w->invalidations);
		pr_uint(PR_ANY, "remote_invalidations", w->remote_invalidations);
	}
}

static int get_window(int fd, uint32_t id, uint32_t flags, union mw_info *info)
{
	return mwin_window_get(fd, id, flags, &info->window);
}

static const struct mw_object window_object = {
	.name = "window",
	.list = "windows",
	.get = get_window,
	.print = print_window,
};

static int window_show(struct mw *mw)
{
	return mw_show(mw, &window_object);
}

/*
 * Print window @id as the whole document. Should it be gone already (its
 * peer left, or someone destroyed it), print what bind @b made of it.
 */
static void window_result(struct mw *mw, uint32_t id,
			  const struct mwin_window_bind *b)
{
	union mw_info info;
	struct mwin_window_info *w = &info.window;

	if (get_window(mw->fd, id, 0, &info)) {
		memset(&info, 0, sizeof(info));
		w->id = id;
		if (b) {
			w->region = b->region;
			w->peer = b->peer;
			w->tenant = b->tenant;
			w->state = MWIN_WINDOW_BOUND;
			w->access = b->access;
			w->rkey = b->rkey;
			w->offset = b->offset;
			w->length = b->length;
			w->iova = b->iova;
		}
	}
	print_one(mw, &window_object, &info);
}

/*
 * Whom a bind grants the window to, for the messages: one peer, or a
 * tenant as a whole (then @peer is 0).
 */
struct grantee {
	uint32_t peer;
	uint32_t tenant;
	char name[MWIN_TENANT_NAME_MAX + 1];	/* the tenant's, or its id */
};

/*
 * The grantee the keywords name into @g; when they name none, window
 * @w's (NULL: none), which a rebind keeps.
 */
static void grantee_of(struct mw *mw, struct kw *kws,
		       const struct mwin_window_info *w, struct grantee *g)
{
	memset(g, 0, sizeof(*g));
	if (kw_set(kws, "tenant")) {
		g->tenant = tenant_arg_id(mw, kw_find(kws, "tenant")->s,
					  g->name, sizeof(g->name));
	} else if (kw_set(kws, "peer")) {
		g->peer = (uint32_t)kw_u(kws, "peer");
	} else if (w && w->tenant) {
		g->tenant = w->tenant;
		tenant_name(mw, w->tenant, g->name, sizeof(g->name));
	} else if (w) {
		g->peer = w->peer;
	}
}

/* A device name as struct mwin_peer_info has it, and a NUL. */
#define DEV_NAME_LEN	(sizeof(((struct mwin_peer_info *)0)->dev_name) + 1)

/* The first connection of tenant @tenant into @p; false when none. */
static bool tenant_conn(struct mw *mw, uint32_t tenant,
			struct mwin_peer_info *p)
{
	uint32_t id = 0;

	while (!mwin_peer_get(mw->fd, id, MWIN_GET_NEXT, p)) {
		if (p->tenant == tenant)
			return true;
		id = p->id;
	}
	return false;
}

/*
 * The device the window is mapped for: its peer's, or for a tenant that
 * of one of its connections. Its name into @dev (left as it is when there
 * is no such connection), its limits into @d.
 */
static bool grantee_dev(struct mw *mw, const struct grantee *g,
			char dev[DEV_NAME_LEN], struct mwin_dev_info *d)
{
	struct mwin_peer_info p;
	bool found = g->tenant ? tenant_conn(mw, g->tenant, &p) :
		     g->peer && !mwin_peer_get(mw->fd, g->peer, 0, &p);

	if (!found)
		return false;
	return find_dev(mw, name_str(dev, p.dev_name, sizeof(p.dev_name)), d);
}

/* the first other window of @region that meets [off, off + len) */
static bool find_overlap(struct mw *mw, uint32_t region, uint32_t self,
			 uint64_t off, uint64_t len,
			 struct mwin_window_info *out)
{
	struct mwin_window_info w;
	uint32_t id = 0;

	while (!mwin_window_get(mw->fd, id, MWIN_GET_NEXT, &w)) {
		id = w.id;
		if (w.region != region || w.id == self)
			continue;
		if (w.offset <= off + len - 1 && off <= w.offset + w.length - 1) {
			*out = w;
			return true;
		}
	}
	return false;
}

/* E2BIG: the window is more than device @d (named @dev) can map */
static void __attribute__((noreturn))
too_big(const struct mwin_window_bind *b, const struct mwin_dev_info *d,
	const char *dev)
{
	uint64_t ps = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t pages = ((b->offset + b->length - 1) / ps) - b->offset / ps + 1;

	if (b->length > d->max_window_bytes) {
		char a[32];

		die("window larger than %s can map (at most %s); use a smaller len or several windows",
		    dev, human(d->max_window_bytes, a, sizeof(a)));
	}
	die("window spans %" PRIu64 " pages, more than %s can map (at most %u); align offset to %" PRIu64 " or use a smaller len",
	    pages, dev, d->max_pages, ps);
}

/* ENOENT: which of the window, its region and its grantee is missing */
static void no_such(struct mw *mw, uint32_t id, uint32_t region,
		    const struct grantee *g)
{
	union mw_info info;

	if (id && mwin_window_get(mw->fd, id, 0, &info.window) == -ENOENT)
		die("no window %u", id);
	if (region && mwin_region_get(mw->fd, region, 0, &info.region) == -ENOENT)
		die("no region %u", region);
	if (g->peer && mwin_peer_get(mw->fd, g->peer, 0, &info.peer) == -ENOENT)
		die("no peer %u", g->peer);
	if (g->tenant &&
	    mwin_tenant_get(mw->fd, g->tenant, 0, &info.tenant) == -ENOENT)
		die("no tenant %s", g->name);
}

/* ENOTCONN: the grantee has no connection the window can be bound to */
static void __attribute__((noreturn))
not_connected(struct mw *mw, const char *who, const struct grantee *g)
{
	struct mwin_peer_info p;

	if (g->tenant)
		die("tenant %s has no connection that proved its key", g->name);
	if (g->peer && !mwin_peer_get(mw->fd, g->peer, 0, &p) &&
	    p.state == MWIN_PEER_AUTHENTICATING)
		die("peer %u has not proved its tenant's key yet", g->peer);
	if (g->peer)
		die("peer %u is gone", g->peer);
	die("%s is unbound (its peer is gone); pass 'peer ID' or 'tenant NAME'",
	    who);
}

/* EDQUOT of tenant @t's max_bytes, which @who names */
static void __attribute__((noreturn))
over_bytes(const char *who, const struct mwin_window_bind *b,
	   const struct mwin_tenant_info *t)
{
	char a[32], c[32], d[32];

	die("a window of %s would take %s past its max-bytes (%s of %s bound)",
	    human(b->length, a, sizeof(a)), who,
	    human(t->bytes_granted, c, sizeof(c)),
	    human(t->max_bytes, d, sizeof(d)));
}

/* EDQUOT: which limit of the grantee's tenant the window would pass */
static void __attribute__((noreturn))
over_quota(struct mw *mw, const struct grantee *g,
	   const struct mwin_window_bind *b)
{
	struct mwin_tenant_info t;
	struct mwin_peer_info p;
	char who[MWIN_TENANT_NAME_MAX + 32];
	uint32_t id = g->tenant;

	if (g->tenant) {
		snprintf(who, sizeof(who), "tenant %s", g->name);
	} else {
		snprintf(who, sizeof(who), "peer %u's tenant", g->peer);
		if (!mwin_peer_get(mw->fd, g->peer, 0, &p))
			id = p.tenant;
	}
	if (id && !mwin_tenant_get(mw->fd, id, 0, &t)) {
		if (t.max_windows && t.nr_windows >= t.max_windows)
			die("%s has its max-windows windows bound (%u)", who,
			    t.max_windows);
		if (t.max_bytes)
			over_bytes(who, b, &t);
	}
	die("%s has its max-windows windows or its max-bytes bytes bound", who);
}

/*
 * EPERM: a tenant's peer, of a tenant the caller does not own. (A
 * tenant named as the grantee is one the caller does not see: ENOENT.)
 */
static void __attribute__((noreturn))
not_owner(const struct grantee *g)
{
	if (g->tenant)
		die("tenant %s is not yours (its owner and CAP_SYS_ADMIN grant to it)",
		    g->name);
	die("peer %u belongs to a tenant that is not yours (its owner and CAP_SYS_ADMIN grant to it)",
	    g->peer);
}

/* EBUSY: the window of the region that @b overlaps */
static void __attribute__((noreturn))
overlaps(struct mw *mw, const char *who, uint32_t id, uint32_t region,
	 const struct mwin_window_bind *b)
{
	struct mwin_window_info w;

	if (find_overlap(mw, region, id, b->offset, b->length, &w))
		die("%s overlaps window %u (offset %" PRIu64 "-%" PRIu64 "); pass 'overlap' to allow",
		    who, w.id, (uint64_t)w.offset,
		    (uint64_t)(w.offset + w.length - 1));
	die("%s overlaps another window of region %u; pass 'overlap' to allow",
	    who, region);
}

/*
 * Explain a failed WINDOW_CREATE (@id 0) or WINDOW_REBIND of window @id in
 * this module's terms, and exit. @region is the window's region, @g whom
 * it was to be granted to (none: a rebind that kept an unknown peer).
 */
static void __attribute__((noreturn))
bind_failed(struct mw *mw, int err, uint32_t id, uint32_t region,
	    const struct grantee *g, const struct mwin_window_bind *b)
{
	const char *what = id ? "window rebind" : "window create";
	char who[32];
	struct mwin_region_info r;
	struct mwin_window_info w;
	struct mwin_dev_info d;
	struct mwin_info info;
	bool have_dev;
	char dev[DEV_NAME_LEN] = "the device";

	if (id)
		snprintf(who, sizeof(who), "window %u", id);
	else
		snprintf(who, sizeof(who), "new window");

	/* most errors are about the device of the grantee */
	have_dev = grantee_dev(mw, g, dev, &d);

	switch (err) {
	case -ENOENT:
		no_such(mw, id, region, g);
		break;
	case -ENOTCONN:
		not_connected(mw, who, g);
	case -EDQUOT:
		over_quota(mw, g, b);
	case -EPERM:
		not_owner(g);
	case -EBUSY:
		overlaps(mw, who, id, region, b);
	case -E2BIG:
		if (have_dev)
			too_big(b, &d, dev);
		die("%s; use a smaller len", mwin_strerror(mw->call, err));
	case -ERANGE:
		if (!mwin_region_get(mw->fd, region, 0, &r))
			die("offset %" PRIu64 " len %" PRIu64 " leaves region %u (%" PRIu64 " bytes)",
			    (uint64_t)b->offset, (uint64_t)b->length, region,
			    (uint64_t)r.length);
		die("offset %" PRIu64 " len %" PRIu64 " leaves region %u",
		    (uint64_t)b->offset, (uint64_t)b->length, region);
	case -EOPNOTSUPP:
		if (have_dev && !(d.caps & MWIN_DEV_CAP_FAST_REG))
			die("%s cannot map windows (no fast registration)", dev);
		if (b->access & MWIN_ACCESS_ATOMIC)
			die("%s has no atomics; drop 'a' from access", dev);
		if (!(b->access & MWIN_ACCESS_READ))
			die("%s cannot refuse a READ through a window it lets be written; add 'r' to access", dev);
		die("%s cannot map this window: %s", dev, strerror(-err));
	case -ENOSPC:
		if (!mwin_info(mw->fd, &info, NULL, 0))
			die("%s (%u of max_windows %u)",
			    mwin_strerror(mw->call, err), info.nr_windows,
			    info.max_windows);
		die("%s", mwin_strerror(mw->call, err));
	case -EIO:
		if (id && !mwin_window_get(mw->fd, id, 0, &w))
			die("%s failed in the device (%s); window %u is now %s and its peer is being torn down",
			    what, strerror(-err), id, mwin_window_state_name(w.state));
		die("%s failed in the device (%s); the peer is being torn down",
		    what, strerror(-err));
	case -ETIMEDOUT:
		die("%s: %s did not answer in time; the window is broken and its peer is being torn down",
		    what, dev);
	}
	cmd_failed(mw, err);
}

static int window_create(struct mw *mw)
{
	struct kw kws[] = {
		KW("region", KW_ID, "ID", true),
		KW("peer", KW_ID, "ID", false),
		KW("tenant", KW_STR, "NAME", false),
		KW("offset", KW_SIZE, "OFF", false),
		KW("len", KW_SIZE, "LEN", true),
		KW("access", KW_ACCESS, "ACCESS", true),
		KW("overlap", KW_FLAG, "", false),
		KW("quiet", KW_FLAG, "", false),
		KW("once", KW_FLAG, "", false),
		KW("expires", KW_DURATION, "DURATION", false),
		{ 0 },
	};
	struct mwin_window_bind b = { 0 };
	struct grantee g;
	int ret;

	parse_kws(mw, kws);
	kw_nonzero(kws, "len");
	check_grantee(mw, kws, true);
	b.region = (uint32_t)kw_u(kws, "region");
	b.offset = kw_u(kws, "offset");
	b.length = kw_u(kws, "len");
	b.access = (uint32_t)kw_u(kws, "access");
	b.flags = (kw_set(kws, "overlap") ? MWIN_WINDOW_OVERLAP : 0) |
		  (kw_set(kws, "quiet") ? MWIN_WINDOW_QUIET : 0) |
		  (kw_set(kws, "once") ? MWIN_WINDOW_ONCE : 0);
	b.expires_ms = (uint32_t)kw_u(kws, "expires");
	mw_open(mw);
	grantee_of(mw, kws, NULL, &g);
	b.peer = g.peer;
	b.tenant = g.tenant;
	ret = mwin_window_create(mw->fd, &b);
	if (ret)
		bind_failed(mw, ret, 0, b.region, &g, &b);
	window_result(mw, b.id, &b);
	return 0;
}

static int window_rebind(struct mw *mw)
{
	struct kw kws[] = {
		KW("offset", KW_SIZE, "OFF", false),
		KW("len", KW_SIZE, "LEN", false),
		KW("access", KW_ACCESS, "ACCESS", false),
		KW("peer", KW_ID, "ID", false),
		KW("tenant", KW_STR, "NAME", false),
		KW("overlap", KW_FLAG, "", false),
		KW("expires", KW_DURATION, "DURATION", false),
		{ 0 },
	};
	struct mwin_window_bind b = { 0 };
	const struct mwin_window_info *w;
	union mw_info info;
	struct grantee g;
	uint32_t id;
	int ret;

	id = take_id(mw);
	parse_kws(mw, kws);
	kw_nonzero(kws, "len");
	check_grantee(mw, kws, false);
	mw_open(mw);
	mw_get(mw, &window_object, id, &info);
	w = &info.window;
	if (w->state == MWIN_WINDOW_BROKEN)
		die("window %u is broken: it can only be destroyed", id);
	/* what is not given stays as it is */
	b.id = id;
	b.offset = kw_set(kws, "offset") ? kw_u(kws, "offset") : w->offset;
	b.length = kw_set(kws, "len") ? kw_u(kws, "len") : w->length;
	b.access = kw_set(kws, "access") ? (uint32_t)kw_u(kws, "access") :
					   w->access;
	b.flags = kw_set(kws, "overlap") ? MWIN_WINDOW_OVERLAP : 0;
	/* each bind sets the lease anew: none given, the new grant has none */
	b.expires_ms = (uint32_t)kw_u(kws, "expires");
	/* none given: the module keeps the window's peer or tenant */
	grantee_of(mw, kws, w, &g);
	if (kw_set(kws, "peer") || kw_set(kws, "tenant")) {
		b.peer = g.peer;
		b.tenant = g.tenant;
	}
	if (!g.peer && !g.tenant)
		die("window %u is unbound (its peer is gone); pass 'peer ID' or 'tenant NAME'",
		    id);
	ret = mwin_window_rebind(mw->fd, &b);
	if (ret)
		bind_failed(mw, ret, id, w->region, &g, &b);
	b.region = w->region;
	if (!b.peer && !b.tenant) {
		b.peer = w->peer;
		b.tenant = w->tenant;
	}
	window_result(mw, id, &b);
	return 0;
}

/* Explain a failed WINDOW_RENEW of window @id, and exit. */
static void __attribute__((noreturn))
renew_failed(struct mw *mw, int err, uint32_t id)
{
	if (err == -ETIME || err == -ESTALE || err == -EIO)
		die("window %u: %s", id, mwin_strerror(mw->call, err));
	id_failed(mw, err, id);
}

/*
 * Print window @id after a renew, with the deadline the renew set
 * (@expires_ns) whatever a later call made of it; should the window be
 * gone already (a one-shot one whose new lease was short), its id alone.
 */
static void renew_result(struct mw *mw, uint32_t id, uint64_t expires_ns)
{
	union mw_info info;

	if (get_window(mw->fd, id, 0, &info)) {
		memset(&info, 0, sizeof(info));
		info.window.id = id;
	}
	info.window.expires_ns = expires_ns;
	print_one(mw, &window_object, &info);
}

static int window_renew(struct mw *mw)
{
	struct kw kws[] = {
		KW("expires", KW_DURATION, "DURATION", true),
		{ 0 },
	};
	uint64_t expires_ns;
	uint32_t id;
	int ret;

	id = take_id(mw);
	parse_kws(mw, kws);
	mw_open(mw);
	ret = mwin_window_renew(mw->fd, id, (uint32_t)kw_u(kws, "expires"),
				&expires_ns);
	if (ret)
		renew_failed(mw, ret, id);
	renew_result(mw, id, expires_ns);
	return 0;
}

/* ENOTCONN: whose connection window @id has lost */
static void __attribute__((noreturn))
invalidate_not_connected(struct mw *mw, uint32_t id)
{
	struct mwin_window_info w;

	if (mwin_window_get(mw->fd, id, 0, &w))
		die("window %u: its peer is gone", id);
	if (w.peer)
		die("peer %u of window %u is gone", w.peer, id);
	if (w.tenant) {
		char name[MWIN_TENANT_NAME_MAX + 1];

		die("window %u: tenant %s has no connection that proved its key",
		    id, tenant_name(mw, w.tenant, name, sizeof(name)));
	}
	die("window %u: its peer is gone", id);
}

static int window_invalidate(struct mw *mw)
{
	struct mwin_window_info w;
	uint32_t id;
	int ret;

	id = take_id(mw);
	no_args(mw);
	mw_open(mw);
	ret = mwin_window_invalidate(mw->fd, id);
	if (ret == -ENOTCONN)
		invalidate_not_connected(mw, id);
	if (ret == -EIO && !mwin_window_get(mw->fd, id, 0, &w) &&
	    w.state == MWIN_WINDOW_BROKEN)
		die("window %u is broken: it can only be destroyed", id);
	if (ret == -EIO || ret == -ETIMEDOUT)
		die("window invalidate: the device failed (%s); window %u's peer is being torn down",
		    strerror(-ret), id);
	if (ret)
		id_failed(mw, ret, id);
	window_result(mw, id, NULL);
	return 0;
}

static int window_destroy(struct mw *mw)
{
	uint32_t id;
	int ret;

	id = take_id(mw);
	no_args(mw);
	mw_open(mw);
	ret = mwin_window_destroy(mw->fd, id);
	if (ret)
		id_failed(mw, ret, id);
	print_done(mw, id, "destroyed");
	return 0;
}

int cmd_window(struct mw *mw)
{
	static const struct mw_cmd cmds[] = {
		{ "show", window_show, MWIN_CALL_WINDOW_GET },
		{ "create", window_create, MWIN_CALL_WINDOW_CREATE },
		{ "rebind", window_rebind, MWIN_CALL_WINDOW_REBIND },
		{ "renew", window_renew, MWIN_CALL_WINDOW_RENEW },
		{ "invalidate", window_invalidate, MWIN_CALL_WINDOW_INVALIDATE },
		{ "destroy", window_destroy, MWIN_CALL_WINDOW_DESTROY },
		{ "help", usage_window, MWIN_CALL_ANY },
		{ 0 },
	};

	return mw_object(mw, "window", usage_window, cmds);
}
