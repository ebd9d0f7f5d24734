// SPDX-License-Identifier: GPL-2.0
/*
 * The window calls of the uAPI but create (create.c) and batches
 * (batch.c): rebind, invalidate, renew, destroy, get. Each finds the
 * window its caller may use, takes it, and acts through the state machine
 * of window.c; a rebind or create first finds the grantee it names.
 */
#include "mwin.h"

void window_fill_result(struct mwin_window *w, struct mwin_window_bind *arg)
{
	arg->id = w->obj.id;
	arg->rkey = w->rkey;
	arg->iova = window_offset(w);
}

/*
 * The grantee a create or rebind names: peer @arg->peer (*@tp NULL), or
 * tenant @arg->tenant (*@tp), and *@pp the connection of the tenant that
 * will carry the window. Whatever the result, *@pp and *@tp are NULL or
 * referenced: see window_put_grantee().
 */
int window_find_grantee(const struct mwin_window_bind *arg,
			const struct mwin_caller *c, struct mwin_peer **pp,
			struct mwin_tenant **tp)
{
	*pp = NULL;
	*tp = NULL;
	if (arg->tenant) {
		*tp = tenant_lookup(arg->tenant, c);
		if (!*tp)
			return -ENOENT;
		*pp = tenant_carrier(*tp);
		return *pp ? 0 : -ENOTCONN;
	}
	*pp = peer_get(arg->peer);
	if (!*pp)
		return -ENOENT;
	return tenant_may_grant((*pp)->tenant, c) ? 0 : -EPERM;
}

void window_put_grantee(struct mwin_peer *p, struct mwin_tenant *t)
{
	if (p)
		peer_put(p);
	if (t)
		tenant_put(t);
}

/*
 * Rebind @w to @p: the new range is checked and reserved first, and given
 * up again, with the old one back, when the bind fails.
 */
static int window_rebind_locked(struct mwin_window *w, struct mwin_peer *p,
				struct mwin_tenant *t,
				struct mwin_window_bind *arg)
{
	u64 last = arg->offset + arg->length - 1;
	bool replaced;
	u32 old_rkey;
	int ret;

	ret = window_check_dev(p->dev, w->region, arg) ?:
	      region_move_range(w->region, &w->range, &w->old_range,
				arg->offset, last,
				arg->flags & MWIN_WINDOW_OVERLAP);
	if (ret)
		return ret;
	ret = window_bind(w, p, t, arg->access, &replaced, &old_rkey);
	region_end_move(w->region, &w->range, &w->old_range, ret);
	if (ret)
		return ret;
	lease_set(w, arg->expires_ms);
	window_fill_result(w, arg);
	window_tell_grant(w, replaced ? &old_rkey : NULL);
	return 0;
}

/*
 * A rebind that names no grantee keeps the window's: its peer, or its
 * tenant through the connection that carries it, or any other when its
 * last one went. Both referenced, as by window_find_grantee().
 */
int window_keep_grantee(struct mwin_window *w, struct mwin_peer **pp,
			struct mwin_tenant **tp)
{
	*tp = w->tenant;
	if (*tp)
		mwin_obj_get(&(*tp)->obj);
	*pp = w->peer;
	if (*pp)
		mwin_obj_get(&(*pp)->obj);
	else if (*tp)
		*pp = tenant_carrier(*tp);
	return *pp ? 0 : -ENOTCONN;
}

int window_rebind(struct mwin_window_bind *arg, const struct mwin_caller *c)
{
	bool keep = !arg->peer && !arg->tenant;
	struct mwin_tenant *t = NULL;
	struct mwin_peer *p = NULL;
	struct mwin_window *w;
	int ret;

	w = window_get(arg->id, c);
	if (!w)
		return -ENOENT;
	if (!keep) {
		ret = window_find_grantee(arg, c, &p, &t);
		if (ret)
			goto out_put;
	}

relock:
	ret = window_lock_killable(w);
	if (ret)
		goto out_put;
	if (w->dead) {
		ret = -ENOENT;
		goto out;
	}
	if (w->state == MWIN_WINDOW_BROKEN) {
		ret = -EIO;
		goto out;
	}
	ret = window_wait_old_peer(w);
	if (ret > 0)
		goto relock;
	if (ret)
		goto out_put;
	if (keep) {
		ret = window_keep_grantee(w, &p, &t);
		if (ret)
			goto out;
	} else if (t && t == w->tenant && w->peer) {
		/* the same tenant: the same carrier, so the MR may stay */
		peer_put(p);
		p = w->peer;
		mwin_obj_get(&p->obj);
	}
	if (!peer_takes_grants(p))
		ret = -ENOTCONN;
	else
		ret = window_rebind_locked(w, p, t, arg);
out:
	mutex_unlock(&w->lock);
	/* after the revoke: see window_pace() */
	if (p)
		peer_pace(p);
out_put:
	window_put_grantee(p, t);
	window_put(w);
	return ret;
}

int window_invalidate(u32 id, const struct mwin_caller *c)
{
	struct mwin_window *w;
	int ret;

	w = window_get(id, c);
	if (!w)
		return -ENOENT;
	ret = window_lock_killable(w);
	if (ret)
		goto out_put;
	if (w->dead)
		ret = -ENOENT;
	else if (w->state == MWIN_WINDOW_BROKEN)
		ret = -EIO;
	else
		ret = window_revoke(w, MWIN_REVOKE_INVALIDATE);
	w->victim_rkey = 0;	/* invalidated it stays, as its owner says */
	mutex_unlock(&w->lock);
	window_pace(w);
out_put:
	window_put(w);
	return ret;
}

/*
 * The rest of a destroy, once @w is dead and unpublished: revoke, give its
 * range back (once its MR is gone), drop the id's reference. Drops
 * @w->lock.
 */
static void window_teardown_locked(struct mwin_window *w)
{
	lease_end(w);
	window_unbind(w, MWIN_REVOKE_DESTROY);
	window_release_range(w);
	mutex_unlock(&w->lock);
	window_put(w);		/* the id's reference */
}

/* Destroy @w, whose lock the caller took; drops it. */
int window_destroy_locked(struct mwin_window *w)
{
	if (w->dead) {
		mutex_unlock(&w->lock);
		return -ENOENT;
	}
	w->dead = true;
	mwin_obj_unpublish(&w->obj);
	window_teardown_locked(w);
	return 0;
}

/**
 * window_finish_destroy() - the destroy of a one-shot window handed back
 * @w: window the hand-back made dead (window_handed_back()); its id's
 *	reference is the caller's to give up
 */
void window_finish_destroy(struct mwin_window *w)
{
	window_lock(w);
	window_teardown_locked(w);
}

/**
 * window_end_once() - destroy a one-shot window whose lease ran out
 * @w: window, referenced, from lease.c's batch of due leases
 *
 * Not one renewed or rebound since (its lease did not run out then).
 */
void window_end_once(struct mwin_window *w)
{
	window_lock(w);
	if (w->flags & MWIN_WINDOW_ONCE && w->expired)
		window_destroy_locked(w);
	else
		mutex_unlock(&w->lock);
}

/* Push @w's lease back: see struct mwin_window_renew. */
static int window_renew_locked(struct mwin_window *w,
			       struct mwin_window_renew *arg)
{
	if (w->dead)
		return -ENOENT;
	if (w->state == MWIN_WINDOW_BROKEN)
		return -EIO;
	if (w->state != MWIN_WINDOW_BOUND && !w->waiting)
		return w->expired ? -ETIME : -ESTALE;
	lease_set(w, arg->expires_ms);
	arg->expires_ns = ktime_to_ns(w->expires);
	if (w->state == MWIN_WINDOW_BOUND && w->granted)
		window_tell_grant(w, NULL);
	return 0;
}

int window_renew(struct mwin_window_renew *arg, const struct mwin_caller *c)
{
	struct mwin_window *w = window_get(arg->id, c);
	int ret;

	if (!w)
		return -ENOENT;
	ret = window_lock_killable(w);
	if (!ret) {
		ret = window_renew_locked(w, arg);
		mutex_unlock(&w->lock);
		window_pace(w);
	}
	window_put(w);
	return ret;
}

/**
 * window_destroy_obj() - revoke and destroy a window
 * @w: window; the caller holds a reference
 *
 * For file release, unload and forced region destroy: does not give up on
 * a signal. A broken window is gone for its callers at once; its MR goes
 * when its peer's QP is drained.
 *
 * Return: 0, or -ENOENT when it is already dead (destroyed, or its
 * creation failed).
 */
int window_destroy_obj(struct mwin_window *w)
{
	window_lock(w);
	return window_destroy_locked(w);
}

int window_destroy(u32 id, const struct mwin_caller *c)
{
	struct mwin_window *w = window_get(id, c);
	int ret;

	if (!w)
		return -ENOENT;
	ret = window_lock_killable(w) ?: window_destroy_locked(w);
	window_put(w);
	return ret;
}

int window_get_info(struct mwin_window_info *info,
		    const struct mwin_caller *c)
{
	struct mwin_window *w;

	w = to_window(mwin_obj_find(&mwin_window_type, &info->id,
				    info->flags & MWIN_GET_NEXT, c));
	if (!w)
		return -ENOENT;
	mutex_lock(&w->lock);	/* a batch in flight shows its old state */
	info->region = w->region->obj.id;
	info->peer = w->peer ? w->peer->obj.id : 0;
	info->state = w->state;
	info->access = w->access;
	info->rkey = w->rkey;
	info->offset = window_offset(w);
	info->length = window_length(w);
	info->iova = window_offset(w);
	info->binds = w->binds;
	info->invalidations = w->invalidations;
	info->remote_invalidations = w->remote_invalidations;
	info->wflags = w->flags;
	info->tenant = w->tenant ? w->tenant->obj.id : 0;
	info->expires_ns = ktime_to_ns(w->expires);
	mutex_unlock(&w->lock);
	window_put(w);
	return 0;
}
