// SPDX-License-Identifier: GPL-2.0
/*
 * Objects: ids, references, owners and open files, for regions, windows and
 * peers alike (struct mwin_obj, after iommufd's struct iommufd_object).
 *
 * An object is made in two steps: its id is reserved while the call that
 * makes it runs, and published only once the call's result reached the
 * caller (finalize), or the object is undone (abort). It is freed an RCU
 * grace period after its last reference, so a lookup may try it under
 * rcu_read_lock().
 *
 * Regions and windows have an owner, the user whose open created them:
 * only opens of that user, or a caller with CAP_SYS_ADMIN, see them. To
 * anyone else an object of another user does not exist: a lookup finds
 * nothing (ENOENT), a listing skips it, a count leaves it out. Peers are
 * the host's and have no owner. A MWIN_CREATE_FD_OWNED object is also on
 * its file's list, and goes when the file is released.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/slab.h>

#include "mwin.h"

/* The module's own calls (unload, file release): it sees everything. */
const struct mwin_caller mwin_module_caller = { .admin = true };

/*
 * The caller of an ioctl or mmap through @f: the user that opened @f, and
 * whether the calling task may administer mwin. noaudit: a user who lacks
 * CAP_SYS_ADMIN merely sees less, which is no denial worth a record.
 */
void mwin_caller_init(struct mwin_caller *c, const struct mwin_file *f)
{
	c->uid = f->cred->euid;
	c->admin = ns_capable_noaudit(&init_user_ns, CAP_SYS_ADMIN);
}

bool mwin_obj_visible(const struct mwin_obj *o, const struct mwin_caller *c)
{
	return !o || !o->type->owned || c->admin ||
	       uid_eq(o->owner.uid, c->uid);
}

/*
 * Per-user counts: a value in @xa keyed by uid, under the caller's lock
 * (the windows each user holds here, its monitors in events.c).
 */
unsigned long mwin_user_count(struct xarray *xa, kuid_t uid)
{
	unsigned long key = from_kuid(&init_user_ns, uid);

	return xa_to_value(xa_load(xa, key) ?: xa_mk_value(0));
}

int mwin_user_take(struct xarray *xa, kuid_t uid)
{
	unsigned long key = from_kuid(&init_user_ns, uid);

	return xa_err(xa_store(xa, key,
			       xa_mk_value(mwin_user_count(xa, uid) + 1),
			       GFP_KERNEL));
}

void mwin_user_give_back(struct xarray *xa, kuid_t uid)
{
	unsigned long key = from_kuid(&init_user_ns, uid);
	unsigned long n = mwin_user_count(xa, uid);

	if (n > 1)	/* replaces an entry: allocates nothing */
		xa_store(xa, key, xa_mk_value(n - 1), GFP_KERNEL);
	else
		xa_erase(xa, key);
}

/*
 * Shares. A user without CAP_SYS_ADMIN may hold at most half of
 * max_windows, so that it cannot keep the other users from making any.
 * Every window counts against its owner, an administrator's too, whose
 * count is not held to the share.
 */
static DEFINE_MUTEX(mwin_shares_lock);
static DEFINE_XARRAY(mwin_user_windows);	/* uid -> windows, as a value */

int mwin_share_take(kuid_t uid, bool admin)
{
	int ret = -ENOSPC;

	mutex_lock(&mwin_shares_lock);
	if (admin || mwin_user_count(&mwin_user_windows, uid) <
		     READ_ONCE(mwin_max_windows) / 2)
		ret = mwin_user_take(&mwin_user_windows, uid);
	mutex_unlock(&mwin_shares_lock);
	return ret;
}

void mwin_share_give_back(kuid_t uid)
{
	mutex_lock(&mwin_shares_lock);
	mwin_user_give_back(&mwin_user_windows, uid);
	mutex_unlock(&mwin_shares_lock);
}

/* Open files */

struct mwin_file *mwin_file_alloc(const struct cred *cred)
{
	struct mwin_file *f = kzalloc(sizeof(*f), GFP_KERNEL_ACCOUNT);

	if (!f)
		return NULL;
	kref_init(&f->kref);
	f->cred = cred;
	spin_lock_init(&f->obj_lock);
	INIT_LIST_HEAD(&f->objects);
	return f;
}

static void mwin_file_free(struct kref *kref)
{
	kfree(container_of(kref, struct mwin_file, kref));
}

static void mwin_file_put(struct mwin_file *f)
{
	kref_put(&f->kref, mwin_file_free);
}

/* Take @o off its file's list, if it is on it. */
static void mwin_obj_unlist(struct mwin_obj *o)
{
	struct mwin_file *f = o->owner.file;

	if (!f)
		return;
	spin_lock(&f->obj_lock);
	list_del_init(&o->file_node);
	spin_unlock(&f->obj_lock);
}

/*
 * The file is released: destroy its objects, newest first (a window
 * before the region it was cut from), then let go of it. An object
 * another caller is destroying meanwhile is already off the list, or has
 * no reference left to take.
 */
void mwin_file_release(struct mwin_file *f)
{
	struct mwin_obj *o;
	bool alive;

	for (;;) {
		spin_lock(&f->obj_lock);
		o = NULL;
		alive = false;
		if (!list_empty(&f->objects)) {
			o = list_last_entry(&f->objects, struct mwin_obj,
					    file_node);
			list_del_init(&o->file_node);
			alive = kref_get_unless_zero(&o->kref);
		}
		spin_unlock(&f->obj_lock);
		if (!o)
			break;
		if (alive) {
			o->type->destroy(o);
			mwin_obj_put(o);
		}
	}
	mwin_file_put(f);
}

/* Objects */

/*
 * A new object of @type with one reference, which becomes its id's once
 * published; owned by @f's opener, and with @fd_owned by @f itself.
 */
void mwin_obj_init(struct mwin_obj *o, struct mwin_obj_type *type,
		   struct mwin_file *f, bool fd_owned)
{
	kref_init(&o->kref);
	o->type = type;
	INIT_LIST_HEAD(&o->file_node);
	if (f)
		o->owner.uid = f->cred->euid;
	if (fd_owned) {
		kref_get(&f->kref);
		o->owner.file = f;
	}
}

/*
 * Give @o an id, not yet visible. Ids grow: one is not reused while the
 * module is loaded (until 2^32 allocations wrap), so a stale id names
 * nothing.
 */
int mwin_obj_reserve_id(struct mwin_obj *o)
{
	struct mwin_obj_type *t = o->type;
	int ret = xa_alloc_cyclic(&t->xa, &o->id, NULL, xa_limit_32b,
				  &t->next_id, GFP_KERNEL);

	if (ret == -EBUSY)
		return -ENOSPC;
	return ret < 0 ? ret : 0;
}

/*
 * Make @o's reserved id name it. Storing into an index that xa_alloc()
 * reserved allocates nothing, so it cannot fail.
 */
void mwin_obj_publish(struct mwin_obj *o)
{
	struct mwin_file *f = o->owner.file;
	void *old;

	if (f) {
		spin_lock(&f->obj_lock);
		list_add_tail(&o->file_node, &f->objects);
		spin_unlock(&f->obj_lock);
	}
	old = xa_store(&o->type->xa, o->id, o, 0);
	WARN_ON(old || xa_is_err(old));
}

/*
 * Take @o's id back, published or only reserved: lookups no longer find
 * it. The caller drops the id's reference, if it was published.
 */
void mwin_obj_unpublish(struct mwin_obj *o)
{
	xa_erase(&o->type->xa, o->id);
	mwin_obj_unlist(o);
}

static void mwin_obj_release(struct kref *kref)
{
	struct mwin_obj *o = container_of(kref, struct mwin_obj, kref);
	struct mwin_file *f = o->owner.file;

	mwin_obj_unlist(o);
	o->type->release(o);	/* @o is freed after a grace period */
	if (f)
		mwin_file_put(f);
}

void mwin_obj_put(struct mwin_obj *o)
{
	kref_put(&o->kref, mwin_obj_release);
}

/**
 * mwin_obj_find() - find an object the caller may see, referenced
 * @type: its kind
 * @id: the id; with @next, out: the id found
 * @next: the first object after *@id instead
 * @c: the caller
 *
 * One whose count already dropped to zero is on its way out and is
 * skipped, as is one of another user.
 *
 * Return: the object, or NULL.
 */
struct mwin_obj *mwin_obj_find(struct mwin_obj_type *type, u32 *id,
			       bool next, const struct mwin_caller *c)
{
	unsigned long index = *id;
	struct mwin_obj *o;

	rcu_read_lock();
	for (;;) {
		if (next)
			o = xa_find_after(&type->xa, &index, U32_MAX,
					  XA_PRESENT);
		else
			o = xa_load(&type->xa, index);
		if (!o || (mwin_obj_visible(o, c) &&
			   kref_get_unless_zero(&o->kref)))
			break;
		if (!next) {
			o = NULL;
			break;
		}
	}
	rcu_read_unlock();
	if (o)
		*id = index;
	return o;
}

/* How many published objects of @type the caller may see. */
u32 mwin_obj_count(struct mwin_obj_type *type, const struct mwin_caller *c)
{
	struct mwin_obj *o;
	unsigned long id;
	u32 n = 0;

	rcu_read_lock();
	xa_for_each(&type->xa, id, o)
		n += mwin_obj_visible(o, c);
	rcu_read_unlock();
	return n;
}

/* Unload: destroy every object of @type. */
void mwin_obj_destroy_all(struct mwin_obj_type *type)
{
	struct mwin_obj *o;
	u32 id = 0;

	while ((o = mwin_obj_find(type, &id, true, &mwin_module_caller))) {
		type->destroy(o);
		mwin_obj_put(o);
	}
}

bool mwin_obj_any(struct mwin_obj_type *type)
{
	return !xa_empty(&type->xa);
}
