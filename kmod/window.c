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
 *    deregistered after its QP is drained, never reused.
 */
#include <linux/random.h>
#include <linux/slab.h>

#include "mwin.h"

static u32 window_next_id;

static DECLARE_WAIT_QUEUE_HEAD(window_batch_wait);

/*
 * Take a window for an operation. A batch (batch.c) cannot hold the locks
 * of all its windows across the wait for the device, so it marks them
 * batched instead; an operation waits until the batch has finished with
 * the window. The wait is bounded by the batch's own, op_timeout_ms.
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

/* A batch is done with @w; called with @w->lock held. */
void window_unbatch(struct mwin_window *w)
{
	lockdep_assert_held(&w->lock);
	WRITE_ONCE(w->batched, false);
	wake_up_all(&window_batch_wait);
}

static struct kref *window_kref(void *obj)
{
	return &((struct mwin_window *)obj)->kref;
}

struct mwin_window *window_get(u32 id)
{
	return mwin_find_get(&mwin_windows, &id, false, window_kref);
}

static void window_release(struct kref *kref)
{
	struct mwin_window *w = container_of(kref, struct mwin_window, kref);

	WARN_ON(w->mr || w->peer);
	kvfree(w->sgl);
	region_put(w->region);
	atomic_dec(&mwin_nr_windows);
	kfree_rcu(w, rcu);
}

void window_put(struct mwin_window *w)
{
	kref_put(&w->kref, window_release);
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

/* Can @dev carry a window of @arg's size and rights in @r? */
int window_check_dev(struct mwin_dev *dev, struct mwin_region *r,
		     const struct mwin_window_bind *arg)
{
	u32 shift = window_page_shift(dev, r, NULL);

	if (!dev->fast_reg)
		return -EOPNOTSUPP;
	if (arg->access & MWIN_ACCESS_ATOMIC && !dev->atomic)
		return -EOPNOTSUPP;
	if (window_pages(arg->offset, arg->length, shift) > dev->max_pages) {
		pr_info_ratelimited("mwin: %s maps at most %u pages of %lu KiB per window\n",
				    dev_name(&dev->ibdev->dev), dev->max_pages,
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

static int window_attach(struct mwin_window *w, struct mwin_peer *p)
{
	int ret = 0;

	spin_lock(&p->lock);
	if (p->state == MWIN_PEER_CLOSING) {
		ret = -ENOTCONN;
	} else {
		kref_get(&p->kref);
		kref_get(&w->kref);
		list_add_tail(&w->peer_node, &p->windows);
		p->nr_windows++;
		w->peer = p;
	}
	spin_unlock(&p->lock);
	return ret;
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
	w->peer = NULL;
	w->map = NULL;
	w->state = MWIN_WINDOW_UNBOUND;
	peer_put(p);
	if (listed)
		kref_put(&w->kref, window_release);	/* never the last */
}

/**
 * window_detach_peer() - unbind a window from a peer that is torn down
 * @w: window, taken off @p's list by the caller, who holds its reference
 * @p: peer whose QP is drained
 */
void window_detach_peer(struct mwin_window *w, struct mwin_peer *p)
{
	window_lock(w);
	if (w->peer == p)
		window_detach(w);
	mutex_unlock(&w->lock);
}

/*
 * Record a failed operation and tear the peer down: its QP is in error, or
 * the device does not answer. The rkey is dead either way, since the QP is
 * the only way to it. The MR may still be in use only when a request is
 * still queued (-ETIMEDOUT, -ESHUTDOWN): the window is then broken until
 * the QP is drained.
 */
int window_op_failed(struct mwin_window *w, int ret)
{
	bool queued = ret == -ETIMEDOUT || ret == -ESHUTDOWN;

	w->state = queued ? MWIN_WINDOW_BROKEN : MWIN_WINDOW_INVALIDATED;
	peer_kill(w->peer);
	return ret == -ESHUTDOWN ? -ENOTCONN : ret;
}

/* Revoke the rkey of a bound window; the window keeps its MR. */
static int window_revoke(struct mwin_window *w, enum mwin_wire_reason why)
{
	int ret;

	if (w->state != MWIN_WINDOW_BOUND)
		return 0;
	ret = verbs_post_wait(w, true, false, 0, 0);
	if (ret)
		return window_op_failed(w, ret);
	w->state = MWIN_WINDOW_INVALIDATED;
	w->invalidations++;
	peer_send_revoke(w->peer, w, w->rkey, why);
	return 0;
}

/*
 * Wait for a broken window's peer to be torn down; its MR is deregistered
 * only after the QP is drained. Drops and retakes @w->lock.
 */
static void window_reclaim_broken(struct mwin_window *w)
{
	struct mwin_peer *p = w->peer;

	if (w->state != MWIN_WINDOW_BROKEN || !p)
		return;
	kref_get(&p->kref);
	mutex_unlock(&w->lock);
	peer_kill_sync(p);
	peer_put(p);
	window_lock(w);
}

/* Revoke, then give back the MR and the peer. */
static void window_unbind(struct mwin_window *w, enum mwin_wire_reason why)
{
	window_revoke(w, why);
	window_reclaim_broken(w);
	window_detach(w);
}

/*
 * Bind @w, whose range is set, to @p with @access. A bound window is
 * invalidated first (new MR), and its peer told at once, or in the same
 * post (same MR, same peer): then *@replaced says so and *@old_rkey is the
 * rkey to revoke with the grant. The grant is the caller's to send.
 */
static int window_bind(struct mwin_window *w, struct mwin_peer *p, u32 access,
		       bool *replaced, u32 *old_rkey)
{
	const struct mwin_region_map *map = w->peer == p ? w->map : NULL;
	bool inv = w->state == MWIN_WINDOW_BOUND;
	u32 shift, pages;
	int key, ret;

	*replaced = false;
	*old_rkey = w->rkey;

	if (!map) {
		map = region_map_dev(w->region, p->dev);
		if (IS_ERR(map))
			return PTR_ERR(map);
	}
	shift = window_page_shift(p->dev, w->region, map);
	pages = window_pages(window_offset(w), window_length(w), shift);
	if (pages > p->dev->max_pages)
		return -E2BIG;	/* the DMA map is less aligned than hoped */

	key = w->peer == p && w->mr && pages <= w->mr_pages &&
	      (!w->mr_mapped || verbs_mr_mapped(w, shift)) ?
	      window_pick_key(w) : -ENOSPC;
	if (key < 0) {
		/*
		 * A new MR (another peer's PD, more pages, all keys used, or a
		 * new range: see verbs_map_mr()): revoke the old key first,
		 * then drop the old MR.
		 */
		ret = window_revoke(w, MWIN_REVOKE_REBIND);
		if (ret)
			return ret;
		window_detach(w);
		inv = false;
		ret = window_attach(w, p);
		if (ret)
			return ret;
		w->map = map;
		ret = verbs_alloc_mr(w, p, window_mr_pages(p->dev, pages));
		if (ret)
			goto err_detach;
		key = window_pick_key(w);
	}

	ret = verbs_map_mr(w, map, shift);
	if (ret)
		goto err_detach;

	set_bit(key, w->keys_used);
	ret = verbs_post_wait(w, inv, true, key, access);
	if (ret)
		return window_op_failed(w, ret);

	w->rkey = w->mr->rkey;
	w->access = access;
	w->state = MWIN_WINDOW_BOUND;
	w->binds++;
	if (inv) {
		w->invalidations++;
		*replaced = true;
	}
	return 0;

err_detach:
	/* Nothing was posted since the old key, if any, was revoked. */
	if (inv && window_revoke(w, MWIN_REVOKE_REBIND))
		return ret;
	window_detach(w);
	return ret;
}

static void window_fill_result(struct mwin_window *w,
			       struct mwin_window_bind *arg)
{
	arg->id = w->id;
	arg->rkey = w->rkey;
	arg->iova = window_offset(w);
}

int window_create(struct mwin_file *f, struct mwin_window_bind *arg)
{
	struct mwin_region *r;
	struct mwin_window *w;
	struct mwin_peer *p;
	bool replaced;
	u32 id, old_rkey;
	int ret;

	r = region_get(arg->region);
	if (!r)
		return -ENOENT;
	p = peer_get(arg->peer);
	if (!p) {
		region_put(r);
		return -ENOENT;
	}
	ret = window_check_dev(p->dev, r, arg);
	if (ret)
		goto err_put;
	if (atomic_inc_return(&mwin_nr_windows) > READ_ONCE(mwin_max_windows)) {
		atomic_dec(&mwin_nr_windows);
		ret = -ENOSPC;
		goto err_put;
	}
	w = kzalloc(sizeof(*w), GFP_KERNEL);
	if (!w) {
		atomic_dec(&mwin_nr_windows);
		ret = -ENOMEM;
		goto err_put;
	}
	kref_init(&w->kref);
	mutex_init(&w->lock);
	INIT_LIST_HEAD(&w->peer_node);
	verbs_init_window(w);
	w->region = r;		/* the window holds the region from now on */
	w->state = MWIN_WINDOW_UNBOUND;
	w->flags = arg->flags;
	w->range.start = arg->offset;
	w->range.last = arg->offset + arg->length - 1;
	if (arg->flags & MWIN_CREATE_FD_OWNED) {
		w->owner = f;
		f->owns_objects = true;
	}

	/*
	 * Locked before it is in the region's tree: a forced region destroy
	 * that finds it there waits until it is published or dead.
	 */
	mutex_lock(&w->lock);
	ret = region_insert_range(r, &w->range,
				  arg->flags & MWIN_WINDOW_OVERLAP);
	if (ret) {
		mutex_unlock(&w->lock);
		goto err_free;
	}
	ret = window_bind(w, p, arg->access, &replaced, &old_rkey);
	if (!ret)
		ret = mwin_alloc_id(&mwin_windows, &id, w, &window_next_id);
	if (ret) {
		w->dead = true;
		window_unbind(w, MWIN_REVOKE_DESTROY);
		mutex_unlock(&w->lock);
		region_remove_range(r, &w->range);
		goto err_free;
	}
	/* Published: the xarray holds the initial reference. */
	w->id = id;
	window_fill_result(w, arg);
	peer_send_grant(p, w, NULL);
	mutex_unlock(&w->lock);
	peer_put(p);
	return 0;

err_free:
	window_put(w);
	peer_put(p);
	return ret;
err_put:
	region_put(r);
	peer_put(p);
	return ret;
}

int window_rebind(struct mwin_window_bind *arg)
{
	struct mwin_window *w;
	struct mwin_peer *p = NULL;
	u64 last = arg->offset + arg->length - 1;
	bool replaced;
	u32 old_rkey;
	int ret;

	w = window_get(arg->id);
	if (!w)
		return -ENOENT;
	if (arg->peer) {
		p = peer_get(arg->peer);
		if (!p) {
			window_put(w);
			return -ENOENT;
		}
	}

	window_lock(w);
	if (w->dead) {
		ret = -ENOENT;
		goto out;
	}
	if (w->state == MWIN_WINDOW_BROKEN) {
		ret = -EIO;
		goto out;
	}
	if (!p) {
		p = w->peer;
		if (!p) {
			ret = -ENOTCONN;
			goto out;
		}
		kref_get(&p->kref);
	}
	if (READ_ONCE(p->state) == MWIN_PEER_CLOSING) {
		ret = -ENOTCONN;
		goto out;
	}
	ret = window_check_dev(p->dev, w->region, arg) ?:
	      region_move_range(w->region, &w->range, arg->offset, last,
				arg->flags & MWIN_WINDOW_OVERLAP);
	if (ret)
		goto out;

	ret = window_bind(w, p, arg->access, &replaced, &old_rkey);
	if (!ret) {
		window_fill_result(w, arg);
		peer_send_grant(p, w, replaced ? &old_rkey : NULL);
	}
out:
	mutex_unlock(&w->lock);
	if (p)
		peer_put(p);
	window_put(w);
	return ret;
}

int window_invalidate(u32 id)
{
	struct mwin_window *w;
	int ret;

	w = window_get(id);
	if (!w)
		return -ENOENT;
	window_lock(w);
	if (w->dead)
		ret = -ENOENT;
	else if (w->state == MWIN_WINDOW_BROKEN)
		ret = -EIO;
	else
		ret = window_revoke(w, MWIN_REVOKE_INVALIDATE);
	mutex_unlock(&w->lock);
	window_put(w);
	return ret;
}

/**
 * window_destroy_obj() - revoke and destroy a window
 * @w: window; the caller holds a reference
 *
 * Return: 0, or -ENOENT when it is already dead (destroyed, or its
 * creation failed).
 */
int window_destroy_obj(struct mwin_window *w)
{
	window_lock(w);
	if (w->dead) {
		mutex_unlock(&w->lock);
		return -ENOENT;
	}
	w->dead = true;
	xa_erase(&mwin_windows, w->id);
	window_unbind(w, MWIN_REVOKE_DESTROY);
	mutex_unlock(&w->lock);
	region_remove_range(w->region, &w->range);
	window_put(w);		/* the id's reference */
	return 0;
}

int window_destroy(u32 id)
{
	struct mwin_window *w = window_get(id);
	int ret;

	if (!w)
		return -ENOENT;
	ret = window_destroy_obj(w);
	window_put(w);
	return ret;
}

int window_get_info(struct mwin_window_info *info)
{
	struct mwin_window *w;

	w = mwin_find_get(&mwin_windows, &info->id,
			  info->flags & MWIN_GET_NEXT, window_kref);
	if (!w)
		return -ENOENT;
	mutex_lock(&w->lock);	/* a batch in flight shows its old state */
	info->region = w->region->id;
	info->peer = w->peer ? w->peer->id : 0;
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
	mutex_unlock(&w->lock);
	window_put(w);
	return 0;
}

/* The window whose current MR has the index of @rkey, referenced. */
static struct mwin_window *window_find_rkey(struct mwin_dev *dev, u32 rkey)
{
	struct mwin_window *w;

	rcu_read_lock();
	w = xa_load(&dev->mr_windows, rkey >> 8);
	if (w && !kref_get_unless_zero(&w->kref))
		w = NULL;
	rcu_read_unlock();
	return w;
}

/**
 * window_remote_invalidate() - a peer sent Send-with-Invalidate of @rkey
 * @p: the sender
 * @rkey: the rkey its message invalidated
 *
 * rxe performs the invalidation without checking that the MR belongs to the
 * sender's PD. An rkey that is not the sender's own is an attack: the
 * sender is disconnected, and the window it hit is marked invalidated and
 * its owner told.
 */
void window_remote_invalidate(struct mwin_peer *p, u32 rkey)
{
	struct mwin_window *w = window_find_rkey(p->dev, rkey);
	struct mwin_peer *owner = NULL;
	bool hit = false;
	u32 wid = 0;

	if (w) {
		window_lock(w);
		wid = w->id;
		owner = w->peer;
		hit = w->state == MWIN_WINDOW_BOUND && w->rkey == rkey;
		if (hit) {
			w->state = MWIN_WINDOW_INVALIDATED;
			w->remote_invalidations++;
		}
		if (hit && owner != p)
			peer_send_revoke(owner, w, rkey, MWIN_REVOKE_REMOTE);
		mutex_unlock(&w->lock);
		window_put(w);
	}

	if (w && owner == p) {
		if (hit) {
			atomic64_inc(&p->remote_invalidations);
			mwin_event(MWIN_EVENT_REMOTE_INVALIDATE, wid, p->id, rkey,
				   0);
		}
		return;
	}
	atomic64_inc(&p->rejected_invalidations);
	mwin_event(MWIN_EVENT_REJECTED_INVALIDATE, wid, p->id, rkey, 0);
	pr_warn_ratelimited("mwin: peer %u invalidated rkey 0x%x, not its own: disconnecting it\n",
			    p->id, rkey);
	peer_kill(p);
}

/**
 * mwin_bench_rebind() - the floor under a rebind, for the benchmark module
 * @id: a bound window
 * @iterations: rebinds to make
 * @ns: out, nanoseconds they took
 *
 * Posts the same LOCAL_INV + REG_MR chain as WINDOW_REBIND in a loop, with
 * no ioctl, no lookup and no message per rebind, and key bytes drawn as
 * usual (a key byte may repeat once all 256 were used: the MR is not
 * replaced inside the loop). The peer gets one grant, of the last rkey.
 * Not used by the module itself.
 *
 * Return: 0, -ENOENT, -EINVAL (not bound) or a verbs error.
 */
int mwin_bench_rebind(u32 id, u32 iterations, u64 *ns)
{
	struct mwin_window *w = window_get(id);
	u64 start;
	int key, ret = 0;
	u32 i;

	if (!w)
		return -ENOENT;
	window_lock(w);
	if (w->dead || w->state != MWIN_WINDOW_BOUND) {
		ret = w->dead ? -ENOENT : -EINVAL;
		goto out;
	}
	start = ktime_get_ns();
	for (i = 0; i < iterations; i++) {
		key = window_pick_key(w);
		if (key < 0) {
			bitmap_zero(w->keys_used, MWIN_KEYS);
			key = window_pick_key(w);
		}
		set_bit(key, w->keys_used);
		ret = verbs_post_wait(w, true, true, key, w->access);
		if (ret) {
			window_op_failed(w, ret);
			goto out;
		}
		w->rkey = w->mr->rkey;
		w->binds++;
		w->invalidations++;
	}
	*ns = ktime_get_ns() - start;
	peer_send_grant(w->peer, w, NULL);
out:
	mutex_unlock(&w->lock);
	window_put(w);
	return ret;
}
EXPORT_SYMBOL_GPL(mwin_bench_rebind);

void window_release_owned(struct mwin_file *f)
{
	struct mwin_window *w;
	unsigned long id;

	xa_for_each(&mwin_windows, id, w)
		if (w->owner == f)
			window_destroy(id);
}
