// SPDX-License-Identifier: GPL-2.0
/*
 * Objects: ids, lookups with a reference, and owners.
 *
 * Regions, windows and peers are found by id in an xarray each. An object
 * is published under its id once whole and freed an RCU grace period after
 * its last reference. Regions and windows have an owner, the user whose
 * open created them: only opens of that user, or a caller with
 * CAP_SYS_ADMIN, see them. To anyone else an object of another user does
 * not exist: a lookup finds nothing (ENOENT), a listing skips it, a count
 * leaves it out. Peers are the host's and have no owner.
 */
#include <linux/capability.h>
#include <linux/cred.h>

#include "mwin.h"

DEFINE_XARRAY_ALLOC1(mwin_regions);
DEFINE_XARRAY_ALLOC1(mwin_windows);
DEFINE_XARRAY_ALLOC1(mwin_peers);

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

/* A new object of the caller's user; @fd_owned ties it to the open @f. */
void mwin_owner_init(struct mwin_owner *o, struct mwin_file *f, bool fd_owned)
{
	o->uid = f->cred->euid;
	o->file = NULL;
	if (fd_owned) {
		o->file = f;
		f->owns_objects = true;
	}
}

bool mwin_may_use(const struct mwin_owner *o, const struct mwin_caller *c)
{
	return !o || c->admin || uid_eq(o->uid, c->uid);
}

/*
 * Give @entry an id. Ids grow: one is not reused while the module is loaded
 * (until 2^32 allocations wrap), so a stale id names nothing.
 */
int mwin_alloc_id(struct xarray *xa, u32 *id, void *entry, u32 *next)
{
	int ret = xa_alloc_cyclic(xa, id, entry, xa_limit_32b, next,
				  GFP_KERNEL);

	if (ret == -EBUSY)
		return -ENOSPC;
	return ret < 0 ? ret : 0;
}

/*
 * Make a reserved id name @entry. Storing into an index that xa_alloc()
 * reserved allocates nothing, so it cannot fail.
 */
void mwin_publish_id(struct xarray *xa, u32 id, void *entry)
{
	void *old = xa_store(xa, id, entry, 0);

	WARN_ON(old || xa_is_err(old));
}

static const struct mwin_owner *mwin_owner_of(const struct mwin_obj_class *cls,
					      void *obj)
{
	return cls->owner_of ? cls->owner_of(obj) : NULL;
}

/**
 * mwin_find_get() - find an object the caller may see, referenced
 * @cls: its class
 * @id: the id; with @next, out: the id found
 * @next: the first object after *@id instead
 * @c: the caller
 *
 * Objects are freed after an RCU grace period, so one seen under
 * rcu_read_lock() may be tried with kref_get_unless_zero(); one whose
 * count already dropped to zero is on its way out and is skipped, as is
 * one of another user.
 *
 * Return: the object, or NULL.
 */
void *mwin_find_get(const struct mwin_obj_class *cls, u32 *id, bool next,
		    const struct mwin_caller *c)
{
	unsigned long index = *id;
	void *obj;

	rcu_read_lock();
	for (;;) {
		if (next)
			obj = xa_find_after(cls->xa, &index, U32_MAX,
					    XA_PRESENT);
		else
			obj = xa_load(cls->xa, index);
		if (!obj || (mwin_may_use(mwin_owner_of(cls, obj), c) &&
			     kref_get_unless_zero(cls->kref_of(obj))))
			break;
		if (!next) {
			obj = NULL;
			break;
		}
	}
	rcu_read_unlock();
	if (obj)
		*id = index;
	return obj;
}

/* How many published objects of @cls the caller may see. */
u32 mwin_count(const struct mwin_obj_class *cls, const struct mwin_caller *c)
{
	unsigned long id;
	void *obj;
	u32 n = 0;

	rcu_read_lock();
	xa_for_each(cls->xa, id, obj)
		n += mwin_may_use(mwin_owner_of(cls, obj), c);
	rcu_read_unlock();
	return n;
}
