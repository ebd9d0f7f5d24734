// SPDX-License-Identifier: GPL-2.0
/*
 * Regions: pages pinned for the region's life, DMA-mapped once per RDMA
 * device, when the first window on that device needs it. A module region's
 * are zeroed kernel pages, mmap-able through /dev/mwin; a user region's
 * are its creator's, pinned where they are, and a file region's a memfd's
 * or tmpfs file's (region_mem.c).
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "compat.h"
#include "mwin.h"

#define RANGE_START(r) ((r)->start)
#define RANGE_LAST(r) ((r)->last)
INTERVAL_TREE_DEFINE(struct mwin_range, rb, u64, subtree_last, RANGE_START,
		     RANGE_LAST, static inline, range_tree)

static struct mwin_region *to_region(struct mwin_obj *o)
{
	return o ? container_of(o, struct mwin_region, obj) : NULL;
}

struct mwin_region *region_get(u32 id, const struct mwin_caller *c)
{
	return to_region(mwin_obj_find(&mwin_region_type, &id, false, c));
}

/* Up to a million pages: may sleep. */
static void region_free_pages_only(struct mwin_region *r)
{
	unsigned long i;

	for (i = 0; i < r->npages && r->pages[i]; i++) {
		__free_page(r->pages[i]);
		r->pages[i] = NULL;
		cond_resched();
	}
}

static void region_free_pages(struct mwin_region *r)
{
	if (r->pages)
		region_free_pages_only(r);
	kvfree(r->pages);
}

/*
 * Pinned pages are charged as io_uring and RDMA user memory charge theirs:
 * to the opener's RLIMIT_MEMLOCK, in its user's locked_vm, unless the
 * caller has CAP_IPC_LOCK. The region holds the user until it is freed, so
 * that a region the module keeps after its opener exited stays charged.
 */
static int region_account(struct mwin_region *r, const struct cred *cred)
{
	unsigned long limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	struct user_struct *user = cred->user;
	unsigned long cur, new;

	if (ns_capable_noaudit(&init_user_ns, CAP_IPC_LOCK))
		return 0;
	cur = atomic_long_read(&user->locked_vm);
	do {
		new = cur + r->npages;
		if (new > limit || new < cur)
			return -ENOMEM;
	} while (!atomic_long_try_cmpxchg(&user->locked_vm, &cur, new));
	r->user = get_uid(user);
	return 0;
}

static void region_unaccount(struct mwin_region *r)
{
	if (!r->user)
		return;
	atomic_long_sub(r->npages, &r->user->locked_vm);
	free_uid(r->user);
}

/* No MR, window or mapping can reach the pages now: give them back. */
static void region_release(struct mwin_obj *o)
{
	struct mwin_region *r = to_region(o);

	WARN_ON(!list_empty(&r->maps));
	if (r->kind == MWIN_REGION_KIND_MODULE) {
		region_free_pages(r);
		region_unaccount(r);
	} else {
		region_release_backing(r);
	}
	atomic64_sub(r->length, &mwin_region_bytes);
	kfree_rcu(r, obj.rcu);
}

void region_put(struct mwin_region *r)
{
	mwin_obj_put(&r->obj);
}

/*
 * Allocate every chunk at @order; the last one keeps only what it needs.
 * A caller killed meanwhile stops it: 4 GiB take a while.
 */
static int region_alloc_chunks(struct mwin_region *r, unsigned int order)
{
	gfp_t gfp = GFP_KERNEL_ACCOUNT | __GFP_ZERO | __GFP_NOWARN |
		    (order ? __GFP_NORETRY : 0);
	unsigned long i, j, per = 1UL << order;
	struct page *page;

	for (i = 0; i < r->npages; i += per) {
		if (fatal_signal_pending(current))
			return -EINTR;
		/* no node asked: the caller's memory policy decides */
		if (r->node == NUMA_NO_NODE)
			page = alloc_pages(gfp, order);
		else
			page = alloc_pages_node(r->node, gfp, order);
		if (!page)
			return -ENOMEM;
		/* order-0 pages, each with its own count, for mmap and free */
		split_page(page, order);
		for (j = 0; j < per; j++) {
			if (i + j < r->npages)
				r->pages[i + j] = page + j;
			else
				__free_page(page + j);
		}
		cond_resched();
	}
	r->chunk_shift = PAGE_SHIFT + order;
	return 0;
}

/*
 * Allocate the region from physically contiguous chunks of the largest
 * order that succeeds for all of them, up to MWIN_CHUNK_ORDER, so that a
 * window can be mapped with large pages and its translation list stays
 * short. Under fragmentation it falls back to smaller chunks.
 */
static int region_alloc_pages(struct mwin_region *r)
{
	unsigned int order = min_t(unsigned int, MWIN_CHUNK_ORDER,
				   ilog2(r->npages));
	int ret;

	r->pages = kvcalloc(r->npages, sizeof(*r->pages), GFP_KERNEL_ACCOUNT);
	if (!r->pages)
		return -ENOMEM;
	for (;; order--) {
		ret = region_alloc_chunks(r, order);
		if (!ret)
			return 0;
		region_free_pages_only(r);
		if (ret == -EINTR || !order)
			return ret;
	}
}

static bool region_charge(u64 bytes)
{
	u64 limit = (u64)READ_ONCE(mwin_max_region_mb) << 20;

	if (atomic64_add_return(bytes, &mwin_region_bytes) <= limit)
		return true;
	atomic64_sub(bytes, &mwin_region_bytes);
	return false;
}

static void region_finalize(struct mwin_obj *o)
{
	mwin_obj_publish(o);
}

static void region_abort(struct mwin_obj *o)
{
	mwin_obj_unpublish(o);
	mwin_obj_put(o);
}

/* The pages of a new region of @arg->kind, charged; see region_release(). */
static int region_fill(struct mwin_region *r, struct mwin_region_create *arg,
		       const struct cred *cred)
{
	switch (arg->kind) {
	case MWIN_REGION_KIND_USER:
		return region_pin_user(r, arg->addr);
	case MWIN_REGION_KIND_FILE:
		return region_hold_file(r, arg->fd, arg->offset);
	}
	return region_account(r, cred) ?: region_alloc_pages(r);
}

/*
 * The region is whole when its id is reserved, and visible once the caller
 * has the id: see struct mwin_ucmd.
 */
int region_create(struct mwin_ucmd *ucmd)
{
	struct mwin_region_create *arg = ucmd->cmd;
	struct mwin_file *f = ucmd->f;
	struct mwin_region *r;
	int ret;

	if (!arg->length || arg->length > MWIN_REGION_MAX_BYTES)
		return -EINVAL;
	ret = arg->kind == MWIN_REGION_KIND_USER ? region_check_user(arg) :
	      arg->kind == MWIN_REGION_KIND_FILE ? region_check_file(arg) : 0;
	if (ret)
		return ret;

	r = kzalloc(sizeof(*r), GFP_KERNEL_ACCOUNT);
	if (!r)
		return -ENOMEM;
	mutex_init(&r->lock);
	INIT_LIST_HEAD(&r->maps);
	r->windows = RB_ROOT_CACHED;
	r->length = PAGE_ALIGN(arg->length);
	r->npages = r->length >> PAGE_SHIFT;
	r->flags = arg->flags;
	r->kind = arg->kind;
	r->node = NUMA_NO_NODE;
	if (arg->flags & MWIN_REGION_NEAR_DEV) {
		ret = mwin_dev_node(arg->dev_index, &r->node);
		if (ret) {
			kfree(r);
			return ret;
		}
	}
	if (!region_charge(r->length)) {
		kfree(r);
		return -ENOSPC;
	}
	mwin_obj_init(&r->obj, &mwin_region_type, f,
		      arg->flags & MWIN_CREATE_FD_OWNED);
	/* a failed fill is undone by region_release() */
	ret = region_fill(r, arg, f->cred);
	if (ret)
		goto err;
	ret = mwin_obj_reserve_id(&r->obj);
	if (ret)
		goto err;
	arg->id = r->obj.id;
	arg->mmap_offset = (u64)r->obj.id << MWIN_MMAP_SHIFT;
	ucmd->obj = &r->obj;
	return 0;

err:
	region_put(r);
	return ret;
}

static unsigned long region_nchunks(const struct mwin_region *r)
{
	return DIV_ROUND_UP(r->length, 1ULL << r->chunk_shift);
}

/* Bytes of chunk @i: all but the last are whole. */
static size_t region_chunk_bytes(const struct mwin_region *r, unsigned long i)
{
	u64 start = (u64)i << r->chunk_shift;

	return min_t(u64, 1ULL << r->chunk_shift, r->length - start);
}

static struct page *region_chunk_page(const struct mwin_region *r,
				      unsigned long i)
{
	return r->pages[i << (r->chunk_shift - PAGE_SHIFT)];
}

/*
 * The device must still be there: the caller holds mwin_devs_lock, or the
 * map's last user, an MR on the device, let go just now.
 */
static void region_unmap(struct mwin_region *r, struct mwin_region_map *map)
{
	struct ib_device *ibdev = map->dev->ibdev;
	unsigned long i;

	lockdep_assert_held(&r->lock);
	list_del(&map->node);
	for (i = 0; i < region_nchunks(r); i++)
		ib_dma_unmap_page(ibdev, map->dma[i], region_chunk_bytes(r, i),
				  DMA_BIDIRECTIONAL);
	kvfree(map);
}

static struct mwin_region_map *region_find_map(struct mwin_region *r,
					       struct mwin_dev *dev)
{
	struct mwin_region_map *map;

	list_for_each_entry(map, &r->maps, node)
		if (map->dev == dev)
			return map;
	return NULL;
}

/*
 * Map each chunk once. The map's page size is the chunk size, unless an
 * IOMMU gave a chunk a less aligned address: a page of the MR must be
 * aligned in DMA space as in the region.
 */
static struct mwin_region_map *region_new_map(struct mwin_region *r,
					      struct mwin_dev *dev)
{
	unsigned long i, n = region_nchunks(r);
	struct ib_device *ibdev = dev->ibdev;
	struct mwin_region_map *map;
	size_t bytes;

	map = kvzalloc(struct_size(map, dma, n), GFP_KERNEL_ACCOUNT);
	if (!map)
		return ERR_PTR(-ENOMEM);
	map->dev = dev;
	map->chunk_shift = r->chunk_shift;
	map->page_shift = r->chunk_shift;
	for (i = 0; i < n; i++) {
		bytes = region_chunk_bytes(r, i);
		map->dma[i] = ib_dma_map_page(ibdev, region_chunk_page(r, i), 0,
					      bytes, DMA_BIDIRECTIONAL);
		if (ib_dma_mapping_error(ibdev, map->dma[i]))
			goto err;
		if (map->dma[i])
			map->page_shift = min_t(u32, map->page_shift,
						__ffs64(map->dma[i]));
	}
	return map;

err:
	while (i--)
		ib_dma_unmap_page(ibdev, map->dma[i], region_chunk_bytes(r, i),
				  DMA_BIDIRECTIONAL);
	kvfree(map);
	return ERR_PTR(-ENOMEM);
}

/**
 * region_map_dev() - the region's DMA addresses on a device
 * @r: region
 * @dev: device
 *
 * Maps the region on first use. The map lives until the region is
 * destroyed or the device removed, and after the destroy for as long as an
 * MR maps through it (region_map_hold()).
 *
 * Return: the map, held for the caller (region_map_put()), or an ERR_PTR:
 * -ENOTCONN when the device is going away, -ENOENT when the region is.
 */
struct mwin_region_map *region_map_dev(struct mwin_region *r,
				       struct mwin_dev *dev)
{
	struct mwin_region_map *map;

	mwin_test_delay(MWIN_TEST_MAP_DEV);
	mutex_lock(&mwin_devs_lock);
	mutex_lock(&r->lock);
	map = region_find_map(r, dev);
	if (r->dead) {
		map = ERR_PTR(-ENOENT);
		goto out;
	}
	if (map)
		goto hold;
	if (READ_ONCE(dev->dying)) {
		map = ERR_PTR(-ENOTCONN);
		goto out;
	}
	map = region_new_map(r, dev);
	if (IS_ERR(map))
		goto out;
	list_add(&map->node, &r->maps);
hold:
	map->users++;
out:
	mutex_unlock(&r->lock);
	mutex_unlock(&mwin_devs_lock);
	return map;
}

/**
 * region_map_hold() - one more hold on a map held already
 * @r: region
 * @map: held by the caller (region_map_dev(), or a window's MR that maps
 *	through it)
 */
void region_map_hold(struct mwin_region *r, struct mwin_region_map *map)
{
	mutex_lock(&r->lock);
	map->users++;
	mutex_unlock(&r->lock);
}

/**
 * region_map_put() - drop a hold on @map: an MR that mapped through it is
 *	deregistered, or a caller is done with it
 * @r: region
 * @map: held
 *
 * The last hold on a destroyed region's map unmaps it: the region's destroy
 * left it to the MRs (region_destroy_obj()).
 */
void region_map_put(struct mwin_region *r, struct mwin_region_map *map)
{
	mutex_lock(&r->lock);
	if (!--map->users && r->dead)
		region_unmap(r, map);
	mutex_unlock(&r->lock);
}

/* Called on device removal, after every peer on @dev is gone. */
void region_unmap_dev_all(struct mwin_dev *dev)
{
	struct mwin_region_map *map;
	struct mwin_region *r;
	u32 id = 0;

	/*
	 * A region leaves its id under mwin_devs_lock (region_destroy()), so
	 * none of those found here is put for the last time.
	 */
	lockdep_assert_held(&mwin_devs_lock);
	while ((r = to_region(mwin_obj_find(&mwin_region_type, &id, true,
					    &mwin_module_caller)))) {
		mutex_lock(&r->lock);
		map = region_find_map(r, dev);
		if (map && !WARN_ON(map->users))
			region_unmap(r, map);
		mutex_unlock(&r->lock);
		region_put(r);
	}
}

int region_insert_range(struct mwin_region *r, struct mwin_range *range,
			bool overlap)
{
	int ret = 0;

	mutex_lock(&r->lock);
	if (r->dead)
		ret = -ENOENT;
	else if (range->last >= r->length)
		ret = -ERANGE;
	else if (!overlap &&
		 range_tree_iter_first(&r->windows, range->start, range->last))
		ret = -EBUSY;
	if (!ret) {
		range_tree_insert(range, &r->windows);
		r->nr_windows++;
	}
	mutex_unlock(&r->lock);
	return ret;
}

/*
 * Is [@start, @last] inside @r and, unless @overlap, clear of every window
 * but @self (both of its nodes while it moves)?
 */
static int region_range_ok(struct mwin_region *r,
			   const struct mwin_range *self, u64 start, u64 last,
			   bool overlap)
{
	struct mwin_range *it;

	lockdep_assert_held(&r->lock);
	if (last >= r->length)
		return -ERANGE;
	if (overlap)
		return 0;
	for (it = range_tree_iter_first(&r->windows, start, last); it;
	     it = range_tree_iter_next(it, start, last))
		if (it->window != self->window)
			return -EBUSY;
	return 0;
}

/**
 * region_check_range() - could a window's range become [@start, @last]?
 * @r: region
 * @range: the window's range, in the tree
 * @start: first byte
 * @last: last byte
 * @overlap: the range may overlap other windows
 *
 * Return: 0, -ERANGE or -EBUSY.
 */
int region_check_range(struct mwin_region *r, struct mwin_range *range,
		       u64 start, u64 last, bool overlap)
{
	int ret;

	mutex_lock(&r->lock);
	ret = region_range_ok(r, range, start, last, overlap);
	mutex_unlock(&r->lock);
	return ret;
}

/**
 * region_move_range() - give a window a new range, keeping the old one
 * @r: region
 * @range: the window's range, in the tree
 * @old: the window's spare node: it holds the old range in the tree, so
 *	that no other window is cut over bytes the old rkey may still reach,
 *	until region_end_move()
 * @start: new first byte
 * @last: new last byte
 * @overlap: the new range may overlap other windows
 *
 * Return: 0, -ERANGE or -EBUSY; on error nothing changed.
 */
int region_move_range(struct mwin_region *r, struct mwin_range *range,
		      struct mwin_range *old, u64 start, u64 last, bool overlap)
{
	int ret;

	mutex_lock(&r->lock);
	ret = region_range_ok(r, range, start, last, overlap);
	if (!ret) {
		range_tree_remove(range, &r->windows);
		old->start = range->start;
		old->last = range->last;
		range->start = start;
		range->last = last;
		range_tree_insert(old, &r->windows);
		range_tree_insert(range, &r->windows);
	}
	mutex_unlock(&r->lock);
	return ret;
}

/**
 * region_end_move() - the rebind that moved a window is over
 * @r: region
 * @range: the window's range
 * @old: as given to region_move_range()
 * @undo: the rebind failed: the window keeps its old range
 */
void region_end_move(struct mwin_region *r, struct mwin_range *range,
		     struct mwin_range *old, bool undo)
{
	mutex_lock(&r->lock);
	range_tree_remove(old, &r->windows);
	if (undo) {
		range_tree_remove(range, &r->windows);
		range->start = old->start;
		range->last = old->last;
		range_tree_insert(range, &r->windows);
	}
	mutex_unlock(&r->lock);
}

void region_remove_range(struct mwin_region *r, struct mwin_range *range)
{
	mutex_lock(&r->lock);
	range_tree_remove(range, &r->windows);
	r->nr_windows--;
	mutex_unlock(&r->lock);
}

/*
 * Some live window of @r, referenced, or NULL when it has none. A dead
 * window stays in the tree while its MR waits for its peer's drain
 * (window_release_range()), or while another caller destroys it.
 */
static struct mwin_window *region_live_window(struct mwin_region *r)
{
	struct mwin_window *w = NULL;
	struct mwin_range *it;

	mutex_lock(&r->lock);
	for (it = range_tree_iter_first(&r->windows, 0, U64_MAX); it;
	     it = range_tree_iter_next(it, 0, U64_MAX)) {
		if (!READ_ONCE(it->window->dead)) {
			w = it->window;
			mwin_obj_get(&w->obj);
			break;
		}
	}
	mutex_unlock(&r->lock);
	return w;
}

/*
 * @r's windows, each referenced once, into *@ws: @n of them. A window that
 * moves has two nodes in the tree; its spare one is skipped.
 */
static int region_windows(struct mwin_region *r, struct mwin_window ***ws,
			  unsigned int *n)
{
	struct mwin_range *it;

	*n = 0;
	*ws = NULL;
	mutex_lock(&r->lock);
	if (r->nr_windows)
		*ws = kvmalloc_array(r->nr_windows, sizeof(**ws), GFP_KERNEL_ACCOUNT);
	if (r->nr_windows && !*ws) {
		mutex_unlock(&r->lock);
		return -ENOMEM;
	}
	for (it = range_tree_iter_first(&r->windows, 0, U64_MAX);
	     it && *n < r->nr_windows;
	     it = range_tree_iter_next(it, 0, U64_MAX)) {
		if (it == &it->window->old_range)
			continue;
		mwin_obj_get(&it->window->obj);
		(*ws)[(*n)++] = it->window;
	}
	mutex_unlock(&r->lock);
	return 0;
}

/*
 * Wait, as a caller, for the peers whose drain an MR over @r waits for:
 * that of a broken window, or of a window whose peer is being torn down.
 * Each wait is peer_wait_torn_down()'s.
 *
 * Return: 0; -EBUSY when a drain is not over in time; -EINTR; -ENOMEM.
 */
static int region_wait_drains(struct mwin_region *r)
{
	struct mwin_window **ws;
	struct mwin_peer *p;
	unsigned int n, i;
	int ret;

	ret = region_windows(r, &ws, &n);
	for (i = 0; i < n; i++) {
		p = ret ? NULL : window_draining_peer(ws[i]);
		if (IS_ERR(p)) {
			ret = PTR_ERR(p);
		} else if (p) {
			ret = peer_wait_torn_down(p);
			peer_put(p);
		}
		window_put(ws[i]);
	}
	kvfree(ws);
	return ret == -EAGAIN ? -EBUSY : ret;
}

/*
 * Destroy @r, which the caller holds; with FORCE, its windows first. A
 * caller (@wait) waits for the drains that would keep MRs over @r first;
 * the release of an owner's file, and unload, do not, and the MRs that
 * still map @r after its destroy keep its DMA map (region_map_put()) and,
 * through their windows, its pages.
 */
static int region_destroy_obj(struct mwin_region *r, u32 flags, bool wait)
{
	struct mwin_region_map *map, *tmp;
	struct mwin_window *w;
	int ret = 0;

	if (wait && (flags & MWIN_REGION_DESTROY_FORCE)) {
		ret = region_wait_drains(r);
		if (ret)
			return ret;
	}
	mutex_lock(&r->lock);
	if (r->dead)
		ret = -ENOENT;
	else if (r->nr_windows && !(flags & MWIN_REGION_DESTROY_FORCE))
		ret = -EBUSY;
	if (ret) {
		mutex_unlock(&r->lock);
		return ret;
	}
	r->dead = true;
	mutex_unlock(&r->lock);

	/* No window can be added now; revoke and destroy those there are. */
	while ((w = region_live_window(r))) {
		window_destroy_obj(w);
		window_put(w);
	}

	mutex_lock(&mwin_devs_lock);
	mwin_obj_unpublish(&r->obj);
	mutex_lock(&r->lock);
	list_for_each_entry_safe(map, tmp, &r->maps, node)
		if (!map->users)
			region_unmap(r, map);
	mutex_unlock(&r->lock);
	mutex_unlock(&mwin_devs_lock);

	region_put(r);	/* the id's reference */
	return 0;
}

int region_destroy(u32 id, u32 flags, const struct mwin_caller *c)
{
	struct mwin_region *r = region_get(id, c);
	int ret;

	if (!r)
		return -ENOENT;
	ret = region_destroy_obj(r, flags, true);
	region_put(r);
	return ret;
}

int region_get_info(struct mwin_region_info *info,
		    const struct mwin_caller *c)
{
	struct mwin_region *r;

	r = to_region(mwin_obj_find(&mwin_region_type, &info->id,
				    info->flags & MWIN_GET_NEXT, c));
	if (!r)
		return -ENOENT;
	mutex_lock(&r->lock);
	info->nr_windows = r->nr_windows;
	mutex_unlock(&r->lock);
	info->length = r->length;
	info->mmap_offset = (u64)r->obj.id << MWIN_MMAP_SHIFT;
	info->rflags = r->flags;
	info->node = r->node;
	info->kind = r->kind;
	if (r->kind != MWIN_REGION_KIND_MODULE)
		region_backing_info(r, info);
	region_put(r);
	return 0;
}

/*
 * The regions the caller may see: how many, and their bytes. An
 * administrator gets the module's totals, which also count the regions
 * being created.
 */
u32 region_count(const struct mwin_caller *c, u64 *bytes)
{
	struct mwin_region *r;
	u32 id = 0, n = 0;

	if (c->admin) {
		*bytes = atomic64_read(&mwin_region_bytes);
		return mwin_obj_count(&mwin_region_type, c);
	}
	*bytes = 0;
	while ((r = to_region(mwin_obj_find(&mwin_region_type, &id, true,
					    c)))) {
		n++;
		*bytes += r->length;
		region_put(r);
	}
	return n;
}

/* Unload, or the release of the file that owns @o. */
static void region_destroy_owned(struct mwin_obj *o)
{
	region_destroy_obj(to_region(o), MWIN_REGION_DESTROY_FORCE, false);
}

struct mwin_obj_type mwin_region_type = {
	.xa = XARRAY_INIT(mwin_region_type.xa, XA_FLAGS_ALLOC1),
	.owned = true,
	.release = region_release,
	.finalize = region_finalize,
	.abort = region_abort,
	.destroy = region_destroy_owned,
};

static void region_vm_open(struct vm_area_struct *vma)
{
	struct mwin_region *r = vma->vm_private_data;

	mwin_obj_get(&r->obj);
}

static void region_vm_close(struct vm_area_struct *vma)
{
	region_put(vma->vm_private_data);
}

static vm_fault_t region_vm_fault(struct vm_fault *vmf)
{
	struct mwin_region *r = vmf->vma->vm_private_data;
	pgoff_t pgoff = vmf->pgoff & ((1UL << (MWIN_MMAP_SHIFT - PAGE_SHIFT)) - 1);

	if (pgoff >= r->npages)
		return VM_FAULT_SIGBUS;
	vmf->page = r->pages[pgoff];
	get_page(vmf->page);
	return 0;
}

static const struct vm_operations_struct region_vm_ops = {
	.open = region_vm_open,
	.close = region_vm_close,
	.fault = region_vm_fault,
};

/*
 * The mmap offset names the region (high bits) and the page in it (low
 * bits). The mapping holds the region, not its windows: after destroy the
 * pages stay until the last mapping goes.
 */
int mwin_mmap(struct file *file, struct vm_area_struct *vma)
{
	unsigned long shift = MWIN_MMAP_SHIFT - PAGE_SHIFT;
	unsigned long first = vma->vm_pgoff & ((1UL << shift) - 1);
	unsigned long pages = vma_pages(vma);
	struct mwin_caller c;
	struct mwin_region *r;

	/*
	 * VM_MAYSHARE: a MAP_SHARED mapping of a file opened read-only has no
	 * VM_SHARED (it can never be written), and is shared all the same.
	 */
	if (!(vma->vm_flags & VM_MAYSHARE))
		return -EINVAL;
	mwin_caller_init(&c, file->private_data);
	r = region_get(vma->vm_pgoff >> shift, &c);
	if (!r)
		return -ENOENT;
	/*
	 * A user or file region's pages are anonymous or another file's:
	 * mapped here too, they would be in two places of rmap's view at
	 * once. The process has them mapped already, or maps the file.
	 */
	if (r->kind != MWIN_REGION_KIND_MODULE) {
		region_put(r);
		return -ENODEV;
	}
	if (first >= r->npages || pages > r->npages - first) {
		region_put(r);
		return -EINVAL;
	}
	vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	vma->vm_private_data = r;
	vma->vm_ops = &region_vm_ops;
	return 0;
}
