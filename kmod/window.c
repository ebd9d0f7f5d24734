// SPDX-License-Identifier: GPL-2.0
/*
 * Windows: the state machine of mwin.h, one operation at a time under
 * window->lock.
 *
 * The rules that make a window a Type 2 memory window:
 *  - an rkey is handed out (ioctl result, grant message) only after its
 *    REG_MR completed;
 *  - a revoke is reported (revoke message, ioctl return) only after its
 *    LOCAL_INV completed;
 *  - a key byte is chosen at random among those the MR has not used yet;
 *    when all 256 are spent the MR is replaced, which gives a new index;
 *  - after a failed or flushed operation the MR is in an unknown state:
 *    the peer's QP is in error, so the peer is torn down and the MR
 *    deregistered once the device is done with it, never reused;
 *  - a revoke that does not complete within revoke_timeout_ms cuts the
 *    peer off (verbs.c): the rkey is dead when the call returns, whatever
 *    the peer does.
 */
#include <linux/random.h>
#include <linux/slab.h>

#include "mwin.h"
#include "trace.h"

static DECLARE_WAIT_QUEUE_HEAD(window_batch_wait);

/*
 * Take a window for an operation. A batch (batch.c) cannot hold the locks
 * of all its windows across the wait for the device, so it marks them
 * batched instead; an operation waits until the batch has finished with
 * the window. Both waits are bounded by the device's: a holder waits at
 * most op_timeout_ms for a completion, and a batch as long for each chain.
 * For work items and file release, which must not give up.
 */
void window_lock(struct mwin_window *w)
{
	mutex_lock(&w->lock);
	while (unlikely(w->batched)) {
		mutex_unlock(&w->lock);
		wait_event(window_batch_wait, !READ_ONCE(w->batched));
		mutex_lock(&w->lock);
	}
}

/**
 * window_pace() - a caller's pace is its window's peer's (peer_pace())
 * @w: the window of its call, which is done: after its revokes, not before
 *
 * @w->peer, read without the lock, only says whom to wait for. Peers are
 * freed a grace period after their last reference.
 *
 * Return: 0, or -EINTR.
 */
int window_pace(struct mwin_window *w)
{
	struct mwin_peer *p;
	int ret = 0;

	rcu_read_lock();
	p = READ_ONCE(w->peer);
	if (p && !kref_get_unless_zero(&p->obj.kref))
		p = NULL;
	rcu_read_unlock();
	if (p) {
		ret = peer_pace(p);
		peer_put(p);
	}
	return ret;
}

/* window_lock() for callers, who may be killed while they wait: -EINTR. */
int window_lock_killable(struct mwin_window *w)
{
	if (mutex_lock_killable(&w->lock))
		return -EINTR;
	while (unlikely(w->batched)) {
		mutex_unlock(&w->lock);
		if (wait_event_killable(window_batch_wait,
					!READ_ONCE(w->batched)) ||
		    mutex_lock_killable(&w->lock))
			return -EINTR;
	}
	return 0;
}

/* A batch is done with @w; called with @w->lock held. */
void window_unbatch(struct mwin_window *w)
{
	lockdep_assert_held(&w->lock);
	WRITE_ONCE(w->batched, false);
	wake_up_all(&window_batch_wait);
}

struct mwin_window *window_get(u32 id, const struct mwin_caller *c)
{
	return to_window(mwin_obj_find(&mwin_window_type, &id, false, c));
}

u32 window_count(const struct mwin_caller *c)
{
	return c->admin ? atomic_read(&mwin_nr_windows) :
			  mwin_obj_count(&mwin_window_type, c);
}

static void window_release(struct mwin_obj *o)
{
	struct mwin_window *w = to_window(o);

	WARN_ON(w->mr || w->peer || !RB_EMPTY_NODE(&w->lease_node));
	window_set_tenant(w, NULL);
	kvfree(w->sgl);
	region_put(w->region);
	atomic_dec(&mwin_nr_windows);
	mwin_share_give_back(w->obj.owner.uid);
	kfree_rcu(w, obj.rcu);
}

void window_put(struct mwin_window *w)
{
	mwin_obj_put(&w->obj);
}

/* Pages of 2^@shift bytes that [@offset, @offset + @length) touches. */
u32 window_pages(u64 offset, u64 length, u32 shift)
{
	return ((offset + length - 1) >> shift) - (offset >> shift) + 1;
}

/*
 * The MR page size for a window of @r on @dev: the largest the device
 * supports within one chunk of the region (and within what the region's
 * DMA map allows, once mapped).
 */
u32 window_page_shift(struct mwin_dev *dev, struct mwin_region *r,
		      const struct mwin_region_map *map)
{
	return mwin_dev_page_shift(dev, map ? map->page_shift : r->chunk_shift);
}

/*
 * Can @dev carry a window of @arg's size and rights in @r? A read-only
 * region's pages may be pinned for reading only: no rkey may write them.
 */
int window_check_dev(struct mwin_dev *dev, struct mwin_region *r,
		     const struct mwin_window_bind *arg)
{
	u32 shift = window_page_shift(dev, r, NULL);

	if (r->flags & MWIN_REGION_READ_ONLY &&
	    arg->access & (MWIN_ACCESS_WRITE | MWIN_ACCESS_ATOMIC))
		return -EACCES;
	if (!dev->fast_reg)
		return -EOPNOTSUPP;
	if (!mwin_dev_can_grant(dev, arg->access))
		return -EOPNOTSUPP;
	if (window_pages(arg->offset, arg->length, shift) >
	    mwin_dev_max_pages(dev, shift)) {
		pr_info_ratelimited("mwin: %s maps at most %u pages of %lu KiB per window\n",
				    dev_name(&dev->ibdev->dev),
				    mwin_dev_max_pages(dev, shift),
				    1UL << (shift - 10));
		return -E2BIG;
	}
	return 0;
}

/*
 * Pages of a new MR for a window of @pages: just those, since an MR is
 * never mapped to another range (see verbs_map_mr()), and the device's
 * spare.
 */
static u32 window_mr_pages(struct mwin_dev *dev, u32 pages)
{
	return pages + dev->spare_pages;
}

/* A random key byte this MR has not handed out, or -ENOSPC. */
int window_pick_key(struct mwin_window *w)
{
	unsigned int left = MWIN_KEYS - bitmap_weight(w->keys_used, MWIN_KEYS);
	unsigned int nth, key;

	if (!left)
		return -ENOSPC;
	nth = get_random_u32_below(left);
	for_each_clear_bit(key, w->keys_used, MWIN_KEYS)
		if (!nth--)
			break;
	return key;
}

/* Count @w against @t's max_windows and max_bytes. Under @p->lock. */
static int window_charge_tenant(struct mwin_window *w, struct mwin_tenant *t)
{
	int ret = 0;

	if (!t)
		return 0;
	spin_lock(&t->lock);
	if ((t->max_windows && t->nr_windows >= t->max_windows) ||
	    (t->max_bytes &&
	     t->bytes_granted + window_length(w) > t->max_bytes)) {
		ret = -EDQUOT;
	} else {
		t->nr_windows++;
		w->charged = window_length(w);
		t->bytes_granted += w->charged;
	}
	spin_unlock(&t->lock);
	return ret;
}

static void window_uncharge_tenant(struct mwin_window *w,
				   struct mwin_tenant *t)
{
	if (!t)
		return;
	spin_lock(&t->lock);
	t->nr_windows--;
	t->bytes_granted -= w->charged;
	spin_unlock(&t->lock);
	w->charged = 0;
}

/* A bound rkey of @w is dead: count it for its peer and tenant. */
static void window_count_revoke(struct mwin_window *w)
{
	mwin_count(w->peer, MWIN_STAT_REVOKES, 1);
}

static bool window_id_less(struct rb_node *a, const struct rb_node *b)
{
	return rb_entry(a, struct mwin_window, tenant_node)->obj.id <
	       rb_entry(b, struct mwin_window, tenant_node)->obj.id;
}

/*
 * Grant @w to @t (NULL: to its peer alone). With @w's lock held, or at
 * its release: nobody else moves it between tenants' trees meanwhile.
 */
void window_set_tenant(struct mwin_window *w, struct mwin_tenant *t)
{
	struct mwin_tenant *old = w->tenant;

	if (old == t)
		return;
	if (t) {
		mwin_obj_get(&t->obj);
		spin_lock(&t->lock);
		rb_add(&w->tenant_node, &t->windows, window_id_less);
		spin_unlock(&t->lock);
	}
	if (old) {
		spin_lock(&old->lock);
		rb_erase(&w->tenant_node, &old->windows);
		spin_unlock(&old->lock);
		tenant_put(old);
	}
	w->tenant = t;
	w->waiting = false;
}

/**
 * tenant_next_window() - @t's window of the lowest id from *@from on
 * @t: the tenant
 * @from: where to start; out: past the window found
 * @none: if not NULL, set to U64_MAX when there is none, under the lock
 *	that a window joining the tree takes (see struct mwin_peer's
 *	regrant_mark)
 *
 * The tenant's lock is held for the lookup alone, so the caller can lock
 * each window found; by id, a window that left the tree meanwhile does
 * not lose the walk its place. One on its way out (no reference left) is
 * skipped.
 *
 * Return: the window, referenced, or NULL when there is none.
 */
struct mwin_window *tenant_next_window(struct mwin_tenant *t, u64 *from,
				       u64 *none)
{
	struct rb_node *n, *first = NULL;
	struct mwin_window *w = NULL;

	spin_lock(&t->lock);
	for (n = t->windows.rb_node; n;) {
		w = rb_entry(n, struct mwin_window, tenant_node);
		if (w->obj.id >= *from) {
			first = n;
			n = n->rb_left;
		} else {
			n = n->rb_right;
		}
	}
	for (w = NULL, n = first; n && !w; n = rb_next(n)) {
		w = rb_entry(n, struct mwin_window, tenant_node);
		if (!kref_get_unless_zero(&w->obj.kref))
			w = NULL;
	}
	if (!w && none)
		WRITE_ONCE(*none, U64_MAX);
	spin_unlock(&t->lock);
	if (w)
		*from = (u64)w->obj.id + 1;
	return w;
}

/*
 * @w, without a peer, is carried by @p from now on: charged to @p's
 * tenant when @charge (a new bind), not when it moves within its tenant.
 */
static int window_attach(struct mwin_window *w, struct mwin_peer *p,
			 bool charge)
{
	int ret = 0;

	spin_lock(&p->lock);
	if (!peer_takes_grants(p))
		ret = -ENOTCONN;
	else if (charge)
		ret = window_charge_tenant(w, p->tenant);
	if (!ret) {
		mwin_obj_get(&p->obj);
		mwin_obj_get(&w->obj);
		list_add_tail(&w->peer_node, &p->windows);
		p->nr_windows++;
		WRITE_ONCE(w->peer, p);
	}
	spin_unlock(&p->lock);
	return ret;
}

/*
 * Can the MR go now? Not while its peer is being torn down and its QP not
 * yet drained: rxe may still hold the MR for a request its responder
 * began. The teardown detaches the window after the drain. Nor, under the
 * lock, while the chain of a killed caller is on the device
 * (verbs_abandon()): window_abandoned() drops it then.
 */
static bool window_mr_releasable(const struct mwin_window *w)
{
	return !READ_ONCE(w->batched) &&
	       (!test_bit(MWIN_PEER_KILLED, &w->peer->flags) ||
		test_bit(MWIN_PEER_DRAINED, &w->peer->flags));
}

/*
 * Give dead @w's range back to its region; @w is locked. Not while an MR
 * over it may still be used by the device (its peer not yet drained):
 * until then no other window can be cut over those bytes, and the region
 * keeps them, mapped. window_detach() calls again.
 */
void window_release_range(struct mwin_window *w)
{
	lockdep_assert_held(&w->lock);
	if (!w->dead || w->peer || !w->in_region)
		return;
	region_remove_range(w->region, &w->range);
	w->in_region = false;
}

/*
 * Drop the MR and the peer. The device must be done with the MR: it is
 * invalid, or its QP is drained, or its last work request completed.
 */
static void window_detach(struct mwin_window *w)
{
	struct mwin_peer *p = w->peer;
	bool listed = false;

	lockdep_assert_held(&w->lock);
	if (!p)
		return;
	verbs_free_mr(w);
	spin_lock(&p->lock);
	if (!list_empty(&w->peer_node)) {
		list_del_init(&w->peer_node);
		p->nr_windows--;
		listed = true;
	}
	spin_unlock(&p->lock);
	window_uncharge_tenant(w, p->tenant);
	if (w->state == MWIN_WINDOW_BOUND) {
		/* the rkey died with the MR: its tenant's last connection went */
		trace_mwin_window_revoke(w, w->rkey, 0, 0);
		window_count_revoke(w);
		w->waiting = w->tenant && !w->dead;
	}
	if (!w->waiting)
		lease_end(w);
	if (w->map)
		region_map_put(w->region, w->map);
	WRITE_ONCE(w->peer, NULL);
	w->map = NULL;
	w->state = MWIN_WINDOW_UNBOUND;
	window_release_range(w);
	peer_put(p);
	if (listed)
		window_put(w);		/* the list's; never the last */
}

/**
 * window_draining_peer() - the peer whose drain @w's MR waits for
 * @w: window; the caller holds a reference
 *
 * Return: that peer, referenced; NULL when the MR does not wait (or there
 * is none); ERR_PTR(-EINTR) when the caller was killed.
 */
struct mwin_peer *window_draining_peer(struct mwin_window *w)
{
	struct mwin_peer *p = NULL;

	if (window_lock_killable(w))
		return ERR_PTR(-EINTR);
	if (w->peer && !window_mr_releasable(w)) {
		p = w->peer;
		mwin_obj_get(&p->obj);
	}
	mutex_unlock(&w->lock);
	return p;
}

/**
 * window_detach_peer() - unbind a window from a peer that is torn down
 * @w: window, taken off @p's list by the caller, who holds its reference
 * @p: peer whose QP is drained
 */
void window_detach_peer(struct mwin_window *w, struct mwin_peer *p)
{
	struct mwin_peer *q = NULL;

	window_lock(w);
	if (w->peer == p) {
		/*
		 * A tenant's window goes on through another of its connections
		 * in the same PD, with the same MR and rkey: the MR was never
		 * the dead connection's.
		 */
		if (w->tenant && !w->mr_failed)
			q = tenant_pd_carrier(p->tpd, p);
		if (!q || window_attach(w, q, false))
			window_detach(w);
		else
			peer_put(p);	/* was w->peer's */
	}
	mutex_unlock(&w->lock);
	if (q)
		peer_put(q);
}

/*
 * The device is done with @w's chain: it completed in error
 * (window_op_failed()), or a killed caller's REG_MR completed
 * (window_abandoned()); but the MR may still be reached through the other
 * QPs of its tenant PD, or through the peer's own when the device would not
 * move them to ERR or was not asked to. Deregistered now, it is reached
 * through none; were the device to refuse that too, the QPs of the PD are
 * moved to ERR, and if even that fails the window is BROKEN until the
 * drain.
 */
static int window_drop_mr(struct mwin_window *w, int ret, bool was_bound,
			  u32 rkey)
{
	struct mwin_tenant_pd *tpd = w->mr_tpd;

	if (tpd)
		tenant_pd_get(tpd);
	if (verbs_free_mr(w) && peer_cut_off(w->peer, MWIN_DOWN_REG_QP)) {
		w->state = MWIN_WINDOW_BROKEN;
		w->mr_failed = true;
		ret = -ETIMEDOUT;
	} else {
		if (was_bound && w->tenant)
			window_tell_revoke(w, rkey, MWIN_REVOKE_ERROR, w->peer);
		window_detach(w);
	}
	if (tpd)
		tenant_pd_put(tpd);
	return ret;
}

/**
 * window_op_failed() - a window operation failed: see verbs_invalidate()
 * @w: window, attached to its peer
 * @ret: the operation's error
 * @was_bound: the window had a live rkey, dead now
 *
 * The rkey is dead: the peer's QP is in error, or was moved there, or the
 * MR is deregistered. The peer is torn down. The MR is in an unknown state
 * and never reused: it is deregistered when the peer's QP is drained, and
 * the window is unbound then. When even the chain's flush did not come
 * (-ETIMEDOUT) the window is BROKEN until then.
 *
 * When the device completed the chain in error (-ENOTCONN, -EIO) it is
 * done with it, and an MR that other QPs could reach (a tenant PD's, or
 * any when the peer's QPs would not move to ERR) is deregistered at once
 * (window_drop_mr()); the tenant's other connections are told
 * (reason MWIN_REVOKE_ERROR) and stay. Otherwise (cut off)
 * verbs_chain_end() moved every QP of the PD to ERR.
 *
 * Return: @ret, or -ETIMEDOUT when the window is BROKEN.
 */
int window_op_failed(struct mwin_window *w, int ret, bool was_bound)
{
	u32 rkey = w->rkey;

	if (was_bound && w->granted)
		mwin_event(MWIN_EVENT_REVOKE, &w->obj, w->obj.id,
			   w->peer->obj.id, rkey, MWIN_REVOKE_ERROR);
	if (was_bound) {
		trace_mwin_window_revoke(w, rkey, MWIN_REVOKE_ERROR, 0);
		window_count_revoke(w);
	}
	peer_kill(w->peer, MWIN_DOWN_QP_ERROR);
	lease_end(w);
	w->state = ret == -ETIMEDOUT ? MWIN_WINDOW_BROKEN :
				       MWIN_WINDOW_INVALIDATED;
	if ((ret == -ENOTCONN || ret == -EIO) &&
	    (w->mr_tpd || !test_bit(MWIN_PEER_CUT_OFF, &w->peer->flags)))
		return window_drop_mr(w, ret, was_bound, rkey);
	w->mr_failed = true;
	return ret;
}

/**
 * window_chain_failed() - a grant's chain ended with @ret before it bound @w
 * @w: window, as window_bind_prep() left it
 * @regrant: see window_bind_undo()
 * @inv: the chain's LOCAL_INV killed a live rkey
 * @ret: its error (verbs_register())
 *
 * How a grant that did not bind ends: nothing posted (-EINTR, -EAGAIN) is
 * undone at once; a chain its killed caller left on the device
 * (-EINPROGRESS) is undone by window_abandoned() once the device is done
 * with it, the window busy till then; both leave the peer alone. Any other
 * error is a failed operation (window_op_failed()).
 *
 * Return: the call's result: -EINTR for -EINPROGRESS, otherwise @ret or
 * window_op_failed()'s.
 */
int window_chain_failed(struct mwin_window *w, bool regrant, bool inv,
			int ret)
{
	if (ret == -EINPROGRESS) {
		if (!regrant)
			window_set_tenant(w, NULL);
		return -EINTR;
	}
	if (ret == -EINTR || ret == -EAGAIN)
		return window_bind_undo(w, regrant, inv, ret);
	return window_op_failed(w, ret, inv);
}

/**
 * window_abandoned() - the end of a grant whose caller was killed
 * @w: window, locked, busy since verbs_abandon()
 * @ret: how its chain ended (0: the REG_MR completed)
 *
 * The caller got EINTR, and window_chain_failed() left the window as it
 * was before, with the MR. A completed REG_MR made an rkey nobody was told
 * of: it dies with the MR, deregistered now; the peer is cut off only
 * should the device refuse that. A chain that failed or did not complete
 * in time ends as it would have with the caller there.
 */
void window_abandoned(struct mwin_window *w, int ret)
{
	window_unbatch(w);
	if (ret)
		window_op_failed(w, ret, false);
	else
		window_drop_mr(w, 0, false, 0);
}

/* @w's LOCAL_INV completed: its rkey is dead, for reason @why. */
void window_invalidated(struct mwin_window *w, enum mwin_wire_reason why)
{
	trace_mwin_window_revoke(w, w->rkey, why, w->op_ns);
	if (why == MWIN_REVOKE_EXPIRED)
		lease_expired(w);
	else
		lease_end(w);
	w->state = MWIN_WINDOW_INVALIDATED;
	w->invalidations++;
	window_count_revoke(w);
}

/* @w's REG_MR completed, after a LOCAL_INV of its live rkey with @inv. */
void window_bound(struct mwin_window *w, u32 access, bool inv)
{
	u32 old_rkey = inv ? w->rkey : 0;

	if (inv)
		trace_mwin_window_revoke(w, old_rkey, MWIN_REVOKE_REBIND,
					 w->op_ns);
	w->rkey = w->mr->rkey;
	w->access = access;
	w->state = MWIN_WINDOW_BOUND;
	w->waiting = false;
	w->binds++;
	mwin_count(w->peer, MWIN_STAT_GRANTS, 1);
	trace_mwin_window_bind(w, old_rkey);
	if (inv) {
		w->invalidations++;
		window_count_revoke(w);
	}
}

/**
 * window_tell_grant() - send @w's grant to those it is granted to
 * @w: a bound window
 * @replaced: see peer_send_grant()
 *
 * Its peer, or each proved connection of its tenant in its tenant PD.
 */
void window_tell_grant(struct mwin_window *w, const u32 *replaced)
{
	if (w->tenant)
		tenant_pd_tell_grant(w->peer->tpd, w, replaced);
	else
		peer_send_grant(w->peer, w, replaced);
}

/* The same for a revoke of @rkey; @not: one that knows already, or NULL */
void window_tell_revoke(struct mwin_window *w, u32 rkey,
			enum mwin_wire_reason why, struct mwin_peer *not)
{
	if (w->tenant)
		tenant_pd_tell_revoke(w->peer->tpd, w, rkey, why, not);
	else if (w->peer != not)
		peer_send_revoke(w->peer, w, rkey, why);
}

/* Revoke the rkey of a bound window; the window keeps its MR. */
int window_revoke(struct mwin_window *w, enum mwin_wire_reason why)
{
	int ret;

	if (w->state != MWIN_WINDOW_BOUND)
		return 0;
	ret = verbs_invalidate(w);
	if (ret)
		return window_op_failed(w, ret, true);
	window_invalidated(w, why);
	window_tell_revoke(w, w->rkey, why, NULL);
	return 0;
}

/*
 * Revoke, then give back the MR and the peer. A window whose peer is being
 * torn down keeps both until the peer's QP is drained: the teardown
 * detaches it.
 */
void window_unbind(struct mwin_window *w, enum mwin_wire_reason why)
{
	window_revoke(w, why);
	if (w->peer && window_mr_releasable(w))
		window_detach(w);
}

/*
 * Is @w still attached to a peer being torn down? Then its MR is the
 * teardown's to release: wait for it, unlocked.
 *
 * Return: 0 when it is not (@w still locked), 1 when the wait ended (look
 * again), or the wait's error.
 */
int window_wait_old_peer(struct mwin_window *w)
{
	struct mwin_peer *p = w->peer;
	int ret;

	if (!p || window_mr_releasable(w))
		return 0;
	mwin_obj_get(&p->obj);
	mutex_unlock(&w->lock);
	ret = peer_wait_torn_down(p);
	peer_put(p);
	return ret ?: 1;
}

/*
 * Undo window_bind_prep() after a failure that posted nothing since the
 * old key, if any, was revoked: drop the MR and, unless @regrant (@w was
 * granted to the same tenant before), the tenant. Return: @ret.
 */
int window_bind_undo(struct mwin_window *w, bool regrant, bool inv, int ret)
{
	if (inv && window_revoke(w, MWIN_REVOKE_REBIND))
		return ret;
	window_detach(w);
	if (!regrant)
		window_set_tenant(w, NULL);
	return ret;
}

/* window_bind_prep() with @map, the region's on @p's device, held. */
static int window_bind_prep_map(struct mwin_window *w, struct mwin_peer *p,
				struct mwin_tenant *t, bool *inv,
				struct mwin_region_map *map)
{
	bool regrant = w->tenant && w->tenant == t;
	u32 shift, pages;
	int key, ret;

	shift = window_page_shift(p->dev, w->region, map);
	pages = window_pages(window_offset(w), window_length(w), shift);
	if (pages > mwin_dev_max_pages(p->dev, shift))
		return -E2BIG;	/* the DMA map is less aligned than hoped */

	key = w->peer == p && w->tenant == t && w->mr &&
	      pages <= w->mr_pages &&
	      (!w->mr_mapped || verbs_mr_mapped(w, shift)) ?
	      window_pick_key(w) : -ENOSPC;
	if (key < 0) {
		/*
		 * A new MR (another PD, other grantees, more pages, all keys
		 * used, or a new range: see verbs_map_mr()): revoke the old
		 * key first, then drop the old MR.
		 */
		ret = window_revoke(w, MWIN_REVOKE_REBIND);
		if (ret)
			return ret;
		/* window_rebind() waited for a dying peer; it died since */
		if (w->peer && !window_mr_releasable(w))
			return -ENOTCONN;
		if (w->mr)
			mwin_count(p, MWIN_STAT_MR_REPLACEMENTS, 1);
		window_detach(w);
		*inv = false;
		window_set_tenant(w, t);
		ret = window_attach(w, p, true);
		if (ret) {
			if (!regrant)
				window_set_tenant(w, NULL);
			return ret;
		}
		region_map_hold(w->region, map);
		w->map = map;
		ret = verbs_alloc_mr(w, p, window_mr_pages(p->dev, pages));
		if (ret)
			return window_bind_undo(w, regrant, false, ret);
		key = window_pick_key(w);
	}

	ret = verbs_map_mr(w, map, shift);
	if (ret)
		return window_bind_undo(w, regrant, *inv, ret);
	set_bit(key, w->keys_used);
	mwin_count(p, MWIN_STAT_KEYS_SPENT, 1);
	return key;
}

/*
 * Get @w, whose range is set, ready to bind to @p, granted to @p alone or
 * to @t, @p's tenant: an MR of @p's PD mapping the range, and a key byte,
 * spent. A bound window keeps its MR when it can (same PD and grantees,
 * room for the range, a key byte left): then *@inv says the REG_MR's
 * LOCAL_INV kills its live rkey. Otherwise its rkey is revoked and its MR
 * replaced here.
 *
 * The DMA map is held across: dropping the old MR may drop the map's last
 * hold, in a region being destroyed, before the new MR takes one.
 *
 * Return: the key byte, or a negative errno; then @w is as
 * window_bind_undo() leaves it.
 */
int window_bind_prep(struct mwin_window *w, struct mwin_peer *p,
		     struct mwin_tenant *t, bool *inv)
{
	struct mwin_region_map *map = w->peer == p ? w->map : NULL;
	int ret;

	*inv = w->state == MWIN_WINDOW_BOUND;
	if (map)
		region_map_hold(w->region, map);
	else
		map = region_map_dev(w->region, p->dev);
	if (IS_ERR(map))
		return PTR_ERR(map);
	ret = window_bind_prep_map(w, p, t, inv, map);
	region_map_put(w->region, map);
	return ret;
}

/*
 * Bind @w to @p with @access, as window_bind_prep(). A bound window is
 * invalidated first (new MR), and its grantees told at once, or in the
 * same post (same MR, same grantees): then *@replaced says so and
 * *@old_rkey is the rkey to revoke with the grant. The grant is the
 * caller's to send. A window that fails to bind to a new grantee is
 * granted to nobody.
 */
int window_bind(struct mwin_window *w, struct mwin_peer *p,
		struct mwin_tenant *t, u32 access, bool *replaced,
		u32 *old_rkey)
{
	bool regrant = w->tenant && w->tenant == t;
	bool inv;
	int key, ret;

	*replaced = false;
	*old_rkey = w->rkey;
	key = window_bind_prep(w, p, t, &inv);
	if (key < 0)
		return key;
	ret = verbs_register(w, key, access, inv);
	if (ret)
		return window_chain_failed(w, regrant, inv, ret);

	window_bound(w, access, inv);
	*replaced = inv;
	return 0;
}

/* Unload, or the release of the file that owns @o. */
static void window_destroy_owned(struct mwin_obj *o)
{
	window_destroy_obj(to_window(o));
}

struct mwin_obj_type mwin_window_type = {
	.xa = XARRAY_INIT(mwin_window_type.xa, XA_FLAGS_ALLOC1),
	.owned = true,
	.release = window_release,
	.finalize = window_finalize,
	.abort = window_abort,
	.destroy = window_destroy_owned,
};
