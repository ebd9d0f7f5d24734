// SPDX-License-Identifier: GPL-2.0
/*
 * Making a window: WINDOW_CREATE, and a batch's creates. A create is made
 * up to its REG_MR (window_create_prep()), then finished with the REG_MR's
 * result (window_create_end()), so that a batch chains the REG_MRs of many
 * creates; the window becomes visible, its grant is sent and its lease
 * starts only when it is finalized, once the caller has its id. The
 * window's states are window.c's.
 */
#include <linux/slab.h>

#include "mwin.h"
#include "trace.h"

/* A new window of the caller's, within the module's limit and its share. */
static struct mwin_window *
window_alloc(struct mwin_ucmd *ucmd, struct mwin_region *r,
	     const struct mwin_window_bind *arg)
{
	struct mwin_window *w;
	int ret;

	if (atomic_inc_return(&mwin_nr_windows) > READ_ONCE(mwin_max_windows)) {
		atomic_dec(&mwin_nr_windows);
		return ERR_PTR(-ENOSPC);
	}
	ret = mwin_share_take(ucmd->c.uid, ucmd->c.admin);
	if (ret) {
		atomic_dec(&mwin_nr_windows);
		return ERR_PTR(ret);
	}
	w = kzalloc(sizeof(*w), GFP_KERNEL_ACCOUNT);
	if (!w) {
		mwin_share_give_back(ucmd->c.uid);
		atomic_dec(&mwin_nr_windows);
		return ERR_PTR(-ENOMEM);
	}
	/* the owner is ucmd->c.uid: the file's opener */
	mwin_obj_init(&w->obj, &mwin_window_type, ucmd->f,
		      arg->flags & MWIN_CREATE_FD_OWNED);
	mutex_init(&w->lock);
	INIT_LIST_HEAD(&w->peer_node);
	RB_CLEAR_NODE(&w->lease_node);
	RB_CLEAR_NODE(&w->tenant_node);
	INIT_LIST_HEAD(&w->reap_node);
	INIT_WORK(&w->victim_work, window_victim_regrant);
	verbs_init_window(w);
	w->region = r;		/* the window holds the region from now on */
	w->range.window = w;
	w->old_range.window = w;
	w->state = MWIN_WINDOW_UNBOUND;
	w->flags = arg->flags;
	w->range.start = arg->offset;
	w->range.last = arg->offset + arg->length - 1;
	return w;
}

/* The caller has the new window's id: publish it and tell its peer. */
void window_finalize(struct mwin_obj *o)
{
	struct mwin_window *w = to_window(o);

	window_lock(w);
	if (!w->dead) {
		mwin_obj_publish(o);
		w->granted = true;
		/*
		 * The lease starts now, not at the REG_MR: however short, it
		 * cannot end the window before the caller has its id.
		 */
		if (w->state == MWIN_WINDOW_BOUND) {
			lease_set(w, w->create_lease_ms);
			window_tell_grant(w, NULL);
		}
		/* destroyed meanwhile, it missed this window: see tenant_kill() */
		if (w->tenant && !tenant_alive(w->tenant))
			window_set_tenant(w, NULL);
	}
	mutex_unlock(&w->lock);
	window_put(w);		/* the call's reference */
}

/* The caller never learnt of the window: destroy it; nobody is told. */
void window_abort(struct mwin_obj *o)
{
	struct mwin_window *w = to_window(o);

	window_lock(w);
	window_destroy_locked(w);
	window_put(w);		/* the call's reference */
}

/*
 * A create failed once @w's range was taken: @w dies unpublished, nobody
 * was told of it, as window_abort()'s does. Drops @w->lock. Return: @ret.
 */
static int window_create_fail(struct mwin_window *w, int ret)
{
	window_destroy_locked(w);
	return ret;
}

/**
 * window_create_prep() - the first half of a create: all but the REG_MR
 * @ucmd: the call
 * @arg: its argument
 * @key: out, the key byte to register the window's MR with
 *
 * A new window of the caller's, its id reserved (lookups see it only once
 * it is published: see struct mwin_ucmd), its range taken, attached to the
 * peer that carries it with its MR mapped (window_bind_prep()).
 *
 * Return: the window, locked; or an ERR_PTR, with nothing made.
 */
struct mwin_window *window_create_prep(struct mwin_ucmd *ucmd,
				       const struct mwin_window_bind *arg,
				       int *key)
{
	struct mwin_region *r;
	struct mwin_window *w;
	struct mwin_tenant *t;
	struct mwin_peer *p;
	bool inv;
	int ret;

	r = region_get(arg->region, &ucmd->c);
	if (!r)
		return ERR_PTR(-ENOENT);
	/* a create revokes nothing: its pace (peer_pace()) comes first */
	ret = window_find_grantee(arg, &ucmd->c, &p, &t) ?:
	      !peer_takes_grants(p) ? -ENOTCONN :
	      window_check_dev(p->dev, r, arg) ?: peer_pace(p);
	if (ret) {
		w = ERR_PTR(ret);
		goto out_region;
	}
	w = window_alloc(ucmd, r, arg);
	if (IS_ERR(w))
		goto out_region;
	ret = mwin_obj_reserve_id(&w->obj);
	if (ret)
		goto err_free;
	/*
	 * Locked before it is in the region's tree: a forced region destroy
	 * that finds it there waits until it is published or dead.
	 */
	mutex_lock(&w->lock);
	ret = region_insert_range(r, &w->range,
				  arg->flags & MWIN_WINDOW_OVERLAP);
	if (ret) {
		mutex_unlock(&w->lock);
		mwin_obj_unpublish(&w->obj);
		goto err_free;
	}
	w->in_region = true;
	/* the window holds its peer and tenant from here on */
	*key = window_bind_prep(w, p, t, &inv);
	if (*key < 0)
		w = ERR_PTR(window_create_fail(w, *key));
	window_put_grantee(p, t);
	return w;

err_free:
	window_put(w);		/* and the region with it */
	window_put_grantee(p, t);
	return ERR_PTR(ret);
out_region:
	region_put(r);
	window_put_grantee(p, t);
	return w;
}

/**
 * window_create_end() - the second half: the REG_MR ended with @ret
 * @ucmd: the call; its @obj is the window from now on
 * @w: window_create_prep()'s window, still locked
 * @arg: the call's argument, given the window's id, rkey and iova
 * @ret: 0, or verbs_register()'s error
 *
 * Drops @w->lock. The window is published and its grant sent when it is
 * finalized, once the caller has its id. A failed one dies unpublished;
 * its MR, when a killed caller left its REG_MR on the device, with it
 * (window_chain_failed()).
 *
 * Return: 0, or the error (-EINTR for a killed caller's).
 */
int window_create_end(struct mwin_ucmd *ucmd, struct mwin_window *w,
		      struct mwin_window_bind *arg, int ret)
{
	if (ret)
		return window_create_fail(w, window_chain_failed(w, false,
								 false, ret));
	window_bound(w, arg->access, false);
	w->create_lease_ms = arg->expires_ms;	/* window_finalize() arms it */
	/* The id will hold the initial reference, the call one more. */
	mwin_obj_get(&w->obj);
	ucmd->obj = &w->obj;
	window_fill_result(w, arg);
	mutex_unlock(&w->lock);
	return 0;
}

/* Create and bind a window: both halves, with the REG_MR between them. */
int window_create(struct mwin_ucmd *ucmd)
{
	struct mwin_window_bind *arg = ucmd->cmd;
	struct mwin_window *w;
	int key;

	w = window_create_prep(ucmd, arg, &key);
	if (IS_ERR(w))
		return PTR_ERR(w);
	return window_create_end(ucmd, w, arg,
				 verbs_register(w, key, arg->access, false));
}

