// SPDX-License-Identifier: GPL-2.0
/*
 * Tenants: named remote principals, made and changed by CAP_SYS_ADMIN.
 *
 * A tenant says who may connect as it: from which addresses, how many at
 * once, and with which key. admit.c decides each connection from what the
 * tenant says when it comes; a change (TENANT_SET) applies to connections
 * made after it. A tenant keeps a list of its peers, so that destroying it
 * disconnects them.
 *
 * The key lives only in a keyed HMAC-SHA256 transform, never in a field a
 * GET could copy out.
 */
#include <crypto/hash.h>
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/ctype.h>
#include <linux/slab.h>

#include "mwin.h"

static void tenant_release(struct mwin_obj *o);
static void tenant_finalize(struct mwin_obj *o);
static void tenant_abort(struct mwin_obj *o);
static void tenant_destroy_obj(struct mwin_obj *o);

struct mwin_obj_type mwin_tenant_type = {
	.xa = XARRAY_INIT(mwin_tenant_type.xa, XA_FLAGS_ALLOC1),
	.owned = true,
	.release = tenant_release,
	.finalize = tenant_finalize,
	.abort = tenant_abort,
	.destroy = tenant_destroy_obj,
};

/* Names of the tenants being made and made: unique. */
static DEFINE_MUTEX(mwin_tenants_lock);
static LIST_HEAD(mwin_tenants);

static struct mwin_tenant *to_tenant(struct mwin_obj *o)
{
	return o ? container_of(o, struct mwin_tenant, obj) : NULL;
}

void tenant_put(struct mwin_tenant *t)
{
	mwin_obj_put(&t->obj);
}

static void tenant_release(struct mwin_obj *o)
{
	struct mwin_tenant *t = to_tenant(o);

	crypto_free_shash(t->tfm);
	kfree_rcu(t, obj.rcu);
}

/**
 * tenant_find() - a live tenant by name, referenced
 * @name: NUL-terminated
 *
 * Return: the tenant, or NULL.
 */
struct mwin_tenant *tenant_find(const char *name)
{
	struct mwin_tenant *t, *found = NULL;

	mutex_lock(&mwin_tenants_lock);
	list_for_each_entry(t, &mwin_tenants, node) {
		if (t->live && !strcmp(t->name, name)) {
			if (kref_get_unless_zero(&t->obj.kref))
				found = t;
			break;
		}
	}
	mutex_unlock(&mwin_tenants_lock);
	return found;
}

/* 1 to MWIN_TENANT_NAME_MAX - 1 bytes of [A-Za-z0-9._-], NUL-padded. */
bool tenant_name_ok(const char *name)
{
	size_t len = strnlen(name, MWIN_TENANT_NAME_MAX);
	size_t i;

	if (!len || len == MWIN_TENANT_NAME_MAX ||
	    memchr_inv(name + len, 0, MWIN_TENANT_NAME_MAX - len))
		return false;
	for (i = 0; i < len; i++)
		if (!isalnum(name[i]) && !strchr("._-", name[i]))
			return false;
	return true;
}

/* No bit of @n's address past its prefix, no byte past its family's. */
static bool tenant_net_ok(const struct mwin_tenant_net *n)
{
	unsigned int bytes = n->family == 4 ? 4 : 16, bit;

	if ((n->family != 4 && n->family != 6) || n->__reserved[0] ||
	    n->__reserved[1] || n->prefix_len > bytes * 8 ||
	    memchr_inv(n->addr + bytes, 0, sizeof(n->addr) - bytes))
		return false;
	for (bit = n->prefix_len; bit < bytes * 8; bit++)
		if (n->addr[bit / 8] & (0x80 >> (bit % 8)))
			return false;
	return true;
}

/* A transform keyed with @key, NULL for no key, or an ERR_PTR. */
static struct crypto_shash *tenant_new_tfm(const u8 *key, u32 len)
{
	struct crypto_shash *tfm;
	int ret;

	if (!len)
		return NULL;
	if (len < MWIN_TENANT_KEY_MIN || len > MWIN_TENANT_KEY_MAX)
		return ERR_PTR(-EINVAL);
	tfm = crypto_alloc_shash("hmac(sha256)", 0, 0);
	if (IS_ERR(tfm))
		return tfm;
	ret = crypto_shash_setkey(tfm, key, len);
	if (ret) {
		crypto_free_shash(tfm);
		return ERR_PTR(ret);
	}
	return tfm;
}

/* The owner uid in the caller's namespace: INVALID_UID for none. */
static int tenant_owner(u32 owner, kuid_t *uid)
{
	if (owner == MWIN_NO_OWNER) {
		*uid = INVALID_UID;
		return 0;
	}
	*uid = make_kuid(current_user_ns(), owner);
	return uid_valid(*uid) ? 0 : -EINVAL;
}

/* The fields of @ti that @what names, checked. */
static int tenant_check_limits(const struct mwin_tenant_info *ti, u32 what)
{
	u32 i;

	if (what & MWIN_TENANT_SET_MAX_CONNS &&
	    ti->max_conns > READ_ONCE(mwin_max_peers))
		return -EINVAL;
	if (!(what & MWIN_TENANT_SET_ALLOW))
		return 0;
	if (ti->nr_allow > MWIN_TENANT_ALLOW_MAX)
		return -EINVAL;
	for (i = 0; i < ti->nr_allow; i++)
		if (!tenant_net_ok(&ti->allow[i]))
			return -EINVAL;
	return 0;
}

/*
 * Apply @ti's fields named by @what to @t. The new transform is made
 * first: nothing changes unless everything can.
 */
static int tenant_apply(struct mwin_tenant *t,
			const struct mwin_tenant_info *ti, u32 what)
{
	struct crypto_shash *tfm = NULL;
	kuid_t owner = INVALID_UID;
	int ret;

	ret = tenant_check_limits(ti, what);
	if (!ret && what & MWIN_TENANT_SET_OWNER)
		ret = tenant_owner(ti->owner, &owner);
	if (ret)
		return ret;
	if (what & MWIN_TENANT_SET_KEY) {
		tfm = tenant_new_tfm(ti->key, ti->key_len);
		if (IS_ERR(tfm))
			return PTR_ERR(tfm);
	}

	spin_lock(&t->lock);
	if (what & MWIN_TENANT_SET_KEY) {
		swap(t->tfm, tfm);
		t->key_len = ti->key_len;
	}
	if (what & MWIN_TENANT_SET_ALLOW) {
		memcpy(t->allow, ti->allow, sizeof(t->allow));
		t->nr_allow = ti->nr_allow;
	}
	if (what & MWIN_TENANT_SET_MAX_CONNS)
		t->max_conns = ti->max_conns ?: READ_ONCE(mwin_max_peers);
	if (what & MWIN_TENANT_SET_MAX_WINDOWS)
		t->max_windows = ti->max_windows;
	if (what & MWIN_TENANT_SET_MAX_BYTES)
		t->max_bytes = ti->max_bytes;
	if (what & MWIN_TENANT_SET_OWNER)
		WRITE_ONCE(t->obj.owner.uid, owner);
	spin_unlock(&t->lock);
	crypto_free_shash(tfm);	/* the old one, or none */
	return 0;
}

#define MWIN_TENANT_SET_ALL \
	(MWIN_TENANT_SET_KEY | MWIN_TENANT_SET_ALLOW | \
	 MWIN_TENANT_SET_MAX_CONNS | MWIN_TENANT_SET_MAX_WINDOWS | \
	 MWIN_TENANT_SET_OWNER | MWIN_TENANT_SET_MAX_BYTES)

/* Reserve @t's name and id; visible once the call's result is out. */
static int tenant_add(struct mwin_tenant *t)
{
	struct mwin_tenant *other;
	unsigned int n = 0;
	int ret = 0;

	mutex_lock(&mwin_tenants_lock);
	list_for_each_entry(other, &mwin_tenants, node) {
		if (!strcmp(other->name, t->name))
			ret = -EEXIST;
		n++;	/* those being made too */
	}
	if (!ret && n >= MWIN_TENANT_MAX)
		ret = -ENOSPC;
	if (!ret)
		ret = mwin_obj_reserve_id(&t->obj);
	if (!ret)
		list_add_tail(&t->node, &mwin_tenants);
	mutex_unlock(&mwin_tenants_lock);
	return ret;
}

int tenant_create(struct mwin_ucmd *ucmd)
{
	struct mwin_tenant_info *ti = ucmd->cmd;
	struct mwin_tenant *t;
	int ret;

	if (!ucmd->c.admin)
		return -EPERM;
	if (ti->flags || ti->id || !tenant_name_ok(ti->name))
		return -EINVAL;
	t = kzalloc(sizeof(*t), GFP_KERNEL_ACCOUNT);
	if (!t)
		return -ENOMEM;
	mwin_obj_init(&t->obj, &mwin_tenant_type, NULL, false);
	spin_lock_init(&t->lock);
	INIT_LIST_HEAD(&t->peers);
	INIT_LIST_HEAD(&t->node);
	mutex_init(&t->pd_lock);
	INIT_LIST_HEAD(&t->pds);
	t->windows = RB_ROOT;
	memcpy(t->name, ti->name, sizeof(t->name));
	ret = tenant_apply(t, ti, MWIN_TENANT_SET_ALL);
	if (!ret)
		ret = tenant_add(t);
	if (ret) {
		crypto_free_shash(t->tfm);
		kfree(t);
		return ret;
	}
	ti->id = t->obj.id;
	ucmd->obj = &t->obj;
	return 0;
}

static void tenant_finalize(struct mwin_obj *o)
{
	struct mwin_tenant *t = to_tenant(o);

	mutex_lock(&mwin_tenants_lock);
	WRITE_ONCE(t->live, true);
	mutex_unlock(&mwin_tenants_lock);
	mwin_obj_publish(o);
}

/* Take @t off the list. Return: it was on it (one caller gets true). */
static bool tenant_unlist(struct mwin_tenant *t)
{
	bool listed;

	mutex_lock(&mwin_tenants_lock);
	listed = !list_empty(&t->node);
	list_del_init(&t->node);
	WRITE_ONCE(t->live, false);
	mutex_unlock(&mwin_tenants_lock);
	return listed;
}

static void tenant_abort(struct mwin_obj *o)
{
	struct mwin_tenant *t = to_tenant(o);

	tenant_unlist(t);
	mwin_obj_unpublish(o);
	tenant_put(t);
}

/*
 * No new peers (it is off the list, so admit.c cannot find it), and the
 * QPs of the peers it has are in ERR before this returns (they reach no
 * memory more), then they are torn down; a peer admitted but not yet on
 * @peers finds it dead in tenant_add_peer().
 *
 * Return: 0 when this call destroyed it (of racing calls, one does);
 * -ENOENT when another did; -EIO when it did, but the device refused to
 * move a QP of the tenant's to ERR (its teardown tries again).
 */
static int tenant_kill(struct mwin_tenant *t)
{
	struct mwin_peer *p;
	int ret;

	if (!tenant_unlist(t))
		return -ENOENT;
	mwin_obj_unpublish(&t->obj);
	ret = tenant_cut_off(t) ? -EIO : 0;
	spin_lock(&t->lock);
	list_for_each_entry(p, &t->peers, tenant_node)
		peer_kill(p, MWIN_DOWN_TENANT);
	spin_unlock(&t->lock);
	window_forget_tenant(t);
	tenant_put(t);		/* the id's reference */
	return ret;
}

/* Unload; a tenant has no file to be released with. */
static void tenant_destroy_obj(struct mwin_obj *o)
{
	tenant_kill(to_tenant(o));
}

int tenant_destroy(u32 id, const struct mwin_caller *c)
{
	struct mwin_tenant *t;
	int ret;

	t = to_tenant(mwin_obj_find(&mwin_tenant_type, &id, false, c));
	if (!t)
		return -ENOENT;
	ret = tenant_kill(t);
	tenant_put(t);
	return ret;
}

int tenant_set(struct mwin_ucmd *ucmd)
{
	struct mwin_tenant_info *ti = ucmd->cmd;
	struct mwin_tenant *t;
	int ret;

	if (!ucmd->c.admin)
		return -EPERM;
	if (!ti->flags || ti->flags & ~MWIN_TENANT_SET_ALL)
		return -EINVAL;
	t = to_tenant(mwin_obj_find(&mwin_tenant_type, &ti->id, false,
				    &ucmd->c));
	if (!t)
		return -ENOENT;
	ret = tenant_apply(t, ti, ti->flags);
	tenant_put(t);
	return ret;
}

static void tenant_fill(const struct mwin_tenant *t,
			struct mwin_tenant_info *ti)
{
	kuid_t owner = READ_ONCE(t->obj.owner.uid);

	*ti = (struct mwin_tenant_info) {
		.size = ti->size,
		.flags = ti->flags,
	};
	ti->id = t->obj.id;
	ti->owner = uid_valid(owner) ?
		    from_kuid_munged(current_user_ns(), owner) : MWIN_NO_OWNER;
	memcpy(ti->name, t->name, sizeof(ti->name));
	ti->key_len = t->key_len;
	ti->nr_allow = t->nr_allow;
	memcpy(ti->allow, t->allow, sizeof(ti->allow));
	ti->max_conns = t->max_conns;
	ti->max_windows = t->max_windows;
	ti->nr_conns = t->nr_conns;
	ti->nr_windows = t->nr_windows;
	ti->connects = t->connects;
	memcpy(ti->rejects, t->rejects, sizeof(ti->rejects));
	ti->grants = mwin_counter(&t->counters, MWIN_STAT_GRANTS);
	ti->revokes = mwin_counter(&t->counters, MWIN_STAT_REVOKES);
	ti->remote_invalidations =
		mwin_counter(&t->counters, MWIN_STAT_REMOTE_INVALIDATIONS);
	ti->access_errors = mwin_counter(&t->counters,
					 MWIN_STAT_ACCESS_ERRORS);
	ti->bytes_granted = t->bytes_granted;
	ti->max_bytes = t->max_bytes;
}

int tenant_get(struct mwin_ucmd *ucmd)
{
	struct mwin_tenant_info *ti = ucmd->cmd;
	struct mwin_tenant *t;

	if (ti->flags & ~MWIN_GET_NEXT)
		return -EINVAL;
	t = to_tenant(mwin_obj_find(&mwin_tenant_type, &ti->id,
				    ti->flags & MWIN_GET_NEXT, &ucmd->c));
	if (!t)
		return -ENOENT;
	spin_lock(&t->lock);
	tenant_fill(t, ti);
	spin_unlock(&t->lock);
	tenant_put(t);
	return 0;
}

/* Made, and not destroyed: windows may be granted to it. */
bool tenant_alive(const struct mwin_tenant *t)
{
	return READ_ONCE(t->live);
}

/**
 * tenant_lookup() - a tenant to grant windows to, referenced
 * @id: its id
 * @c: the caller, who sees only the tenants it owns, or all with
 *	CAP_SYS_ADMIN: those it may grant to
 *
 * Return: the tenant, or NULL when there is none the caller may see, or
 * it is being made or destroyed.
 */
struct mwin_tenant *tenant_lookup(u32 id, const struct mwin_caller *c)
{
	struct mwin_tenant *t;

	t = to_tenant(mwin_obj_find(&mwin_tenant_type, &id, false, c));
	if (t && !tenant_alive(t)) {
		tenant_put(t);
		t = NULL;
	}
	return t;
}

/**
 * tenant_may_grant() - may @c grant windows to the peers of @t?
 * @t: a peer's tenant, NULL for an anonymous peer (anyone may)
 * @c: the caller
 *
 * A tenant's peers take windows from its owner and CAP_SYS_ADMIN only.
 */
bool tenant_may_grant(const struct mwin_tenant *t, const struct mwin_caller *c)
{
	return !t || c->admin || uid_eq(READ_ONCE(t->obj.owner.uid), c->uid);
}

/* The tenant's peer list: a peer joins when published, leaves when gone. */
void tenant_add_peer(struct mwin_tenant *t, struct mwin_peer *p)
{
	bool dead;

	mutex_lock(&mwin_tenants_lock);
	dead = list_empty(&t->node);
	spin_lock(&t->lock);
	list_add_tail(&p->tenant_node, &t->peers);
	spin_unlock(&t->lock);
	mutex_unlock(&mwin_tenants_lock);
	if (dead)
		peer_kill(p, MWIN_DOWN_TENANT);
}

void tenant_del_peer(struct mwin_tenant *t, struct mwin_peer *p)
{
	spin_lock(&t->lock);
	if (!list_empty(&p->tenant_node))
		list_del_init(&p->tenant_node);
	spin_unlock(&t->lock);
}
