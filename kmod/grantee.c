// SPDX-License-Identifier: GPL-2.0
/*
 * What a window's grantees do to it: a peer hands its rkey back
 * (Send-with-Invalidate), or invalidates one that is not its own; a
 * tenant's connection proves its key and is told of its tenant's windows;
 * a tenant is destroyed and its windows are granted to nobody. The window
 * states are window.c's.
 */
#include "mwin.h"
#include "trace.h"

/* The window whose current MR has the index of @rkey, referenced. */
static struct mwin_window *window_find_rkey(struct mwin_dev *dev, u32 rkey)
{
	struct mwin_window *w;

	rcu_read_lock();
	w = xa_load(&dev->mr_windows, rkey >> 8);
	if (w && !kref_get_unless_zero(&w->obj.kref))
		w = NULL;
	rcu_read_unlock();
	return w;
}

/*
 * Is @w granted to @p: its peer, or a proved connection of its tenant in
 * the PD of its MR? Under @w->lock.
 */
static bool window_granted_to(const struct mwin_window *w,
			      const struct mwin_peer *p)
{
	return w->peer == p ||
	       (w->tenant && w->mr_tpd && p->tpd == w->mr_tpd);
}

/*
 * A one-shot window handed back is gone for its callers at once; lease.c
 * finishes the destroy, which may wait for the device, out of the receive
 * handler. Its range stays taken until then: its region's DMA maps must
 * outlive its MR (a forced region destroy waits for the window to leave
 * the region). A window whose creation was not finalized is left to it.
 */
static void window_handed_back(struct mwin_window *w)
{
	if (!(w->flags & MWIN_WINDOW_ONCE) || !w->granted || w->dead)
		return;
	w->dead = true;
	mwin_obj_unpublish(&w->obj);
	lease_reap(w);
}

/*
 * Grant @w again, after a foreign invalidation of its @rkey, from a work
 * item: the receive handler that saw it must not wait for the device. Under
 * @w->lock, while @w is still bound with @rkey. A quiet window is left
 * invalidated: its peer learns its rkeys from its owner, not from mwin.
 */
static void window_queue_victim(struct mwin_window *w, u32 rkey)
{
	if (w->flags & MWIN_WINDOW_QUIET)
		return;
	w->victim_rkey = rkey;
	w->victim_lease_ms = lease_left_ms(w);
	mwin_obj_get(&w->obj);
	if (!queue_work(mwin_wq, &w->victim_work))
		window_put(w);	/* queued already: never the last reference */
}

/**
 * window_victim_regrant() - grant a window whose rkey a stranger killed
 * @work: the window's victim_work, which holds a reference on it
 *
 * To its grantees as they were, with the lease it had left, as a rebind
 * that names no grantee would: a new rkey, a grant after the revoke
 * (reason remote) they were sent. Unless its owner changed it meanwhile
 * (rebound, invalidated, destroyed): theirs is the last word.
 */
void window_victim_regrant(struct work_struct *work)
{
	struct mwin_window *w = container_of(work, struct mwin_window,
					     victim_work);
	struct mwin_tenant *t;
	struct mwin_peer *p;
	bool replaced;
	u32 old_rkey;

	mwin_test_delay(MWIN_TEST_VICTIM_REGRANT);
	window_lock(w);
	if (w->dead || w->state != MWIN_WINDOW_INVALIDATED ||
	    !w->victim_rkey || w->rkey != w->victim_rkey)
		goto out;
	w->victim_rkey = 0;
	if (window_keep_grantee(w, &p, &t))
		goto out_put;
	if (peer_takes_grants(p) &&
	    !window_bind(w, p, t, w->access, &replaced, &old_rkey)) {
		lease_set(w, w->victim_lease_ms);
		window_tell_grant(w, NULL);
	}
out_put:
	window_put_grantee(p, t);
out:
	mutex_unlock(&w->lock);
	window_put(w);
}

/**
 * window_remote_invalidate() - a peer sent Send-with-Invalidate of @rkey
 * @p: the sender
 * @rkey: the rkey its message invalidated
 *
 * rxe performs the invalidation without checking that the MR belongs to the
 * sender's PD; siw kills the live rkey of the MR whatever key byte @rkey
 * has (mwin_dev_inv_kills()): the window is hit as if by that rkey, and a
 * sender that named an older one is told of the live one's end. An
 * rkey that is not the sender's own is an attack: the sender is
 * disconnected, the window it hit is marked invalidated, its
 * grantees are told, and then granted the window again with a new rkey
 * (window_victim_regrant()): an attack costs them one rkey, not their
 * access. A tenant's window is the own of each of the tenant's proved
 * connections in the PD of its MR. Receives are handled after the fact, so
 * the rkey may have been revoked from the sender meanwhile (invalidated,
 * rebound, destroyed): one it was granted and lost is its own, handed back
 * too late.
 */
void window_remote_invalidate(struct mwin_peer *p, u32 rkey)
{
	struct mwin_window *w = window_find_rkey(p->dev, rkey);
	bool hit = false, own = false, knows;
	u32 wid = 0;

	if (w) {
		window_lock(w);
		wid = w->obj.id;
		own = window_granted_to(w, p);
		hit = w->state == MWIN_WINDOW_BOUND &&
		      mwin_dev_inv_kills(p->dev, w->rkey, rkey);
		/* a stale key that killed the live one: tell its sender */
		knows = own && rkey == w->rkey;
		if (hit)
			rkey = w->rkey;
		if (hit && !own)
			window_queue_victim(w, rkey);
		if (hit) {
			lease_end(w);
			w->state = MWIN_WINDOW_INVALIDATED;
			w->remote_invalidations++;
			if (own)
				peer_note_revoked(p, rkey);
			window_tell_revoke(w, rkey, own ?
					   MWIN_REVOKE_HANDED_BACK :
					   MWIN_REVOKE_REMOTE, knows ? p : NULL);
		}
		if (hit && own)
			window_handed_back(w);
		mutex_unlock(&w->lock);
	}
	trace_mwin_remote_invalidate(wid, p, rkey, own);

	if (own) {
		if (hit) {
			mwin_count(p, MWIN_STAT_REMOTE_INVALIDATIONS, 1);
			mwin_event(MWIN_EVENT_REMOTE_INVALIDATE, &w->obj, wid,
				   p->obj.id, rkey, 0);
		}
		goto out;
	}
	if (!hit && peer_revoked(p, rkey))
		goto out;
	mwin_count(p, MWIN_STAT_ATTACKS, 1);
	/* the events about a window are for those who may see it */
	mwin_event(MWIN_EVENT_REJECTED_INVALIDATE, w ? &w->obj : NULL, wid,
		   p->obj.id, rkey, 0);
	pr_warn_ratelimited("mwin: peer %u invalidated rkey 0x%x, not its own: disconnecting it\n",
			    p->obj.id, rkey);
	peer_kill(p, MWIN_DOWN_HOSTILE);
out:
	if (w)
		window_put(w);
}

/**
 * window_regrant() - tell a connection that proved its tenant's key of @w
 * @w: a window, referenced
 * @p: the connection
 *
 * A window of @p's tenant bound in @p's PD is granted to @p too; one that
 * waits for a connection of its tenant (its last one went while it was
 * bound) is bound through @p, with a new MR and rkey, and granted to each
 * proved connection in @p's PD.
 */
void window_regrant(struct mwin_window *w, struct mwin_peer *p)
{
	bool replaced;
	u32 old_rkey;

	bool told;

	window_lock(w);
	/* from here on @p hears of @w as its other grantees do */
	told = READ_ONCE(p->regrant_mark) > w->obj.id;
	if (!told)
		WRITE_ONCE(p->regrant_mark, (u64)w->obj.id + 1);
	if (w->dead || !w->granted || !w->tenant || w->tenant != p->tenant)
		goto out;
	if (w->peer) {
		/* p's teardown may be under way: its PD then matches none */
		if (!told && w->peer->tpd == READ_ONCE(p->tpd) &&
		    w->state == MWIN_WINDOW_BOUND)
			peer_send_grant(p, w, NULL);
	} else if (w->waiting &&
		   !window_bind(w, p, w->tenant, w->access, &replaced,
				&old_rkey)) {
		window_tell_grant(w, NULL);
	}
out:
	mutex_unlock(&w->lock);
}

/**
 * window_forget_tenant() - a tenant is destroyed: its windows are nobody's
 * @t: the tenant, whose peers are being torn down
 *
 * Its windows stay bound until their carriers' teardown unbinds them, and
 * are not bound again.
 */
void window_forget_tenant(struct mwin_tenant *t)
{
	struct mwin_window *w;
	u64 from = 0;

	while ((w = tenant_next_window(t, &from, NULL))) {
		window_lock(w);
		if (w->tenant == t)
			window_set_tenant(w, NULL);
		mutex_unlock(&w->lock);
		window_put(w);
	}
}

