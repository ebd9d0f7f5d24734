// SPDX-License-Identifier: GPL-2.0
/*
 * The ioctl layer: argument size and reserved-field checks, dispatch.
 *
 * Every argument starts with __u32 size and __u32 flags. Only the command
 * numbers of the uAPI header are accepted, whole: type, number, direction
 * and encoded size (that of the first version of the struct). The size of
 * the struct the caller knows is read from its first field, so that
 * structs can grow (see the uAPI header).
 */
#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/uaccess.h>

#include "mwin.h"

static void mwin_fill_dev_info(struct mwin_dev_info *di,
			       const struct mwin_dev *dev)
{
	strscpy(di->name, dev_name(&dev->ibdev->dev), sizeof(di->name));
	di->index = dev->ibdev->index;
	di->max_pages = dev->max_pages;
	di->page_size_cap = dev->ibdev->attrs.page_size_cap;
	di->max_window_bytes = mwin_dev_max_window_bytes(dev);
	di->caps = (dev->fast_reg ? MWIN_DEV_CAP_FAST_REG : 0) |
		   (dev->atomic ? MWIN_DEV_CAP_ATOMIC : 0);
	di->nr_peers = READ_ONCE(dev->nr_peers);
}

/*
 * The devices are copied into a kernel buffer under mwin_devs_lock and to
 * user space after it is dropped: the caller's buffer may fault slowly
 * (userfaultfd, FUSE), and the lock is what accepting a peer and removing
 * a device wait for. The buffer holds at most one entry per device.
 */
static int mwin_info_devs(struct mwin_info *info)
{
	u8 __user *udevs = u64_to_user_ptr(info->devs);
	u32 usize = info->dev_info_size;
	struct mwin_dev_info *di = NULL;
	u32 cap = 0, n = 0, i, nr;
	struct mwin_dev *dev;
	int ret = 0;

	if (info->devs && usize < offsetofend(struct mwin_dev_info, nr_peers))
		return -EINVAL;

	mutex_lock(&mwin_devs_lock);
	list_for_each_entry(dev, &mwin_devs, node)
		n++;
	if (info->devs)
		cap = min(info->nr_devs, n);
	if (cap) {
		di = kcalloc(cap, sizeof(*di), GFP_KERNEL_ACCOUNT);
		if (!di) {
			mutex_unlock(&mwin_devs_lock);
			return -ENOMEM;
		}
	}
	i = 0;
	list_for_each_entry(dev, &mwin_devs, node) {
		if (i == cap)
			break;
		mwin_fill_dev_info(&di[i++], dev);
	}
	mutex_unlock(&mwin_devs_lock);

	nr = i;
	for (i = 0; i < nr; i++) {
		if (copy_to_user(udevs + (size_t)i * usize, &di[i],
				 min_t(u32, usize, sizeof(di[i])))) {
			ret = -EFAULT;
			break;
		}
	}
	kfree(di);
	info->nr_devs = n;
	return ret;
}

static void mwin_info_rejects(__u64 *rejects)
{
	int i;

	for (i = 0; i < MWIN_REJECT_SLOTS; i++)
		rejects[i] = atomic64_read(&mwin_rejects[i]);
}

static int mwin_cmd_info(struct mwin_ucmd *ucmd)
{
	struct mwin_info *info = ucmd->cmd;

	if (info->flags || info->__reserved)
		return -EINVAL;
	info->abi_version = MWIN_ABI_VERSION;
	info->port = mwin_port;
	info->max_region_bytes = (u64)READ_ONCE(mwin_max_region_mb) << 20;
	info->max_windows = READ_ONCE(mwin_max_windows);
	info->nr_windows = window_count(&ucmd->c);
	info->max_peers = READ_ONCE(mwin_max_peers);
	info->nr_peers = atomic_read(&mwin_nr_peers);
	info->nr_regions = region_count(&ucmd->c, &info->region_bytes);
	info->nr_tenants = mwin_obj_count(&mwin_tenant_type, &ucmd->c);
	info->nr_anon_peers = admit_nr_anon();
	mwin_info_rejects(info->rejects);
	return mwin_info_devs(info);
}

/* Each kind takes the fields that name its memory, and only those. */
static int mwin_check_region_kind(const struct mwin_region_create *cmd)
{
	switch (cmd->kind) {
	case MWIN_REGION_KIND_MODULE:
		return cmd->addr || cmd->fd || cmd->offset ? -EINVAL : 0;
	case MWIN_REGION_KIND_USER:
		return cmd->fd || cmd->offset ? -EINVAL : 0;
	case MWIN_REGION_KIND_FILE:
		return cmd->addr ? -EINVAL : 0;
	}
	return -EINVAL;
}

static int mwin_cmd_region_create(struct mwin_ucmd *ucmd)
{
	struct mwin_region_create *cmd = ucmd->cmd;

	if (cmd->flags & ~(MWIN_CREATE_FD_OWNED | MWIN_REGION_NEAR_DEV |
			   MWIN_REGION_READ_ONLY) ||
	    (cmd->dev_index && !(cmd->flags & MWIN_REGION_NEAR_DEV)) ||
	    cmd->id || cmd->mmap_offset)
		return -EINVAL;
	return mwin_check_region_kind(cmd) ?: region_create(ucmd);
}

static int mwin_check_destroy(struct mwin_destroy *cmd, u32 allowed_flags)
{
	if (cmd->flags & ~allowed_flags || cmd->__reserved)
		return -EINVAL;
	return cmd->id ? 0 : -ENOENT;
}

static int mwin_cmd_region_destroy(struct mwin_ucmd *ucmd)
{
	struct mwin_destroy *cmd = ucmd->cmd;

	return mwin_check_destroy(cmd, MWIN_REGION_DESTROY_FORCE) ?:
	       region_destroy(cmd->id, cmd->flags, &ucmd->c);
}

static int mwin_cmd_region_get(struct mwin_ucmd *ucmd)
{
	struct mwin_region_info *info = ucmd->cmd;

	if (info->flags & ~MWIN_GET_NEXT || info->node || info->kind ||
	    info->pid || info->addr)
		return -EINVAL;
	return region_get_info(info, &ucmd->c);
}

static int mwin_check_bind(struct mwin_window_bind *cmd, u32 allowed_flags)
{
	if (cmd->flags & ~allowed_flags || cmd->rkey || cmd->iova ||
	    cmd->__reserved || (cmd->peer && cmd->tenant))
		return -EINVAL;
	if (!cmd->access || cmd->access & ~MWIN_ACCESS_ALL || !cmd->length)
		return -EINVAL;
	if (cmd->offset >= MWIN_REGION_MAX_BYTES ||
	    cmd->length > MWIN_REGION_MAX_BYTES - cmd->offset)
		return -ERANGE;
	return 0;
}

static int mwin_cmd_window_create(struct mwin_ucmd *ucmd)
{
	struct mwin_window_bind *cmd = ucmd->cmd;

	if (cmd->id)
		return -EINVAL;
	return mwin_check_bind(cmd, MWIN_WINDOW_CREATE_FLAGS) ?:
	       window_create(ucmd);
}

static int mwin_cmd_window_rebind(struct mwin_ucmd *ucmd)
{
	struct mwin_window_bind *cmd = ucmd->cmd;

	if (cmd->region)
		return -EINVAL;
	return mwin_check_bind(cmd, MWIN_WINDOW_OVERLAP) ?:
	       window_rebind(cmd, &ucmd->c);
}

static int mwin_cmd_window_invalidate(struct mwin_ucmd *ucmd)
{
	struct mwin_destroy *cmd = ucmd->cmd;

	return mwin_check_destroy(cmd, 0) ?:
	       window_invalidate(cmd->id, &ucmd->c);
}

static int mwin_cmd_window_destroy(struct mwin_ucmd *ucmd)
{
	struct mwin_destroy *cmd = ucmd->cmd;

	return mwin_check_destroy(cmd, 0) ?: window_destroy(cmd->id, &ucmd->c);
}

static int mwin_cmd_window_renew(struct mwin_ucmd *ucmd)
{
	struct mwin_window_renew *cmd = ucmd->cmd;

	if (cmd->flags || !cmd->expires_ms || cmd->expires_ns)
		return -EINVAL;
	return cmd->id ? window_renew(cmd, &ucmd->c) : -ENOENT;
}

static int mwin_cmd_window_get(struct mwin_ucmd *ucmd)
{
	struct mwin_window_info *info = ucmd->cmd;

	if (info->flags & ~MWIN_GET_NEXT)
		return -EINVAL;
	return window_get_info(info, &ucmd->c);
}

static int mwin_cmd_peer_get(struct mwin_ucmd *ucmd)
{
	struct mwin_peer_info *info = ucmd->cmd;

	if (info->flags & ~(MWIN_GET_NEXT | MWIN_GET_GONE))
		return -EINVAL;
	return info->flags & MWIN_GET_GONE ? peer_fill_gone(info) :
	       peer_fill_info(info);
}

/* A peer is the host's, not an opener's: only an administrator drops one. */
static int mwin_cmd_peer_disconnect(struct mwin_ucmd *ucmd)
{
	struct mwin_destroy *cmd = ucmd->cmd;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	return mwin_check_destroy(cmd, 0) ?: peer_disconnect(cmd->id);
}

/* Tenants: tenant.c checks the rest, and who may do what. */
static int mwin_cmd_tenant_destroy(struct mwin_ucmd *ucmd)
{
	struct mwin_destroy *cmd = ucmd->cmd;

	if (!ucmd->c.admin)
		return -EPERM;
	return mwin_check_destroy(cmd, 0) ?: tenant_destroy(cmd->id, &ucmd->c);
}

/* The checks the single call makes of its argument, for one batch entry. */
static int mwin_check_batch_op(struct mwin_batch_op *op)
{
	struct mwin_window_bind bind = batch_bind_of(op);

	if (op->rkey || op->result || op->iova)
		return -EINVAL;
	switch (op->opcode) {
	case MWIN_BATCH_CREATE:
		return bind.id ? -EINVAL :
		       mwin_check_bind(&bind, MWIN_WINDOW_CREATE_FLAGS);
	case MWIN_BATCH_REBIND:
		return bind.region ? -EINVAL :
		       mwin_check_bind(&bind, MWIN_WINDOW_OVERLAP) ?:
		       (bind.id ? 0 : -ENOENT);
	case MWIN_BATCH_INVALIDATE:
	case MWIN_BATCH_DESTROY:
		if (op->flags || op->region || op->peer || op->access ||
		    op->offset || op->length || op->expires_ms || op->tenant)
			return -EINVAL;
		return op->id ? 0 : -ENOENT;
	default:
		return -EINVAL;
	}
}

/*
 * An entry is the caller's sizeof(struct mwin_batch_op): room for it to
 * grow, but not so much that a batch asks for megabytes of tail to check.
 */
#define MWIN_BATCH_OP_MAX_SIZE	4096

static int mwin_cmd_window_batch(struct mwin_ucmd *ucmd)
{
	struct mwin_window_batch *cmd = ucmd->cmd;
	u8 __user *uops = u64_to_user_ptr(cmd->ops);
	size_t usize = cmd->op_size;
	struct mwin_obj **made = NULL;
	struct mwin_batch_op *ops;
	u32 i, n = cmd->count;
	int ret = 0;

	if (cmd->flags || cmd->__reserved || cmd->failed || !n ||
	    n > MWIN_BATCH_MAX ||
	    usize < MWIN_BATCH_OP_SIZE_VER0 ||
	    usize > MWIN_BATCH_OP_MAX_SIZE)
		return -EINVAL;
	ops = kcalloc(n, sizeof(*ops), GFP_KERNEL_ACCOUNT);
	made = kcalloc(n, sizeof(*made), GFP_KERNEL_ACCOUNT);
	if (!ops || !made) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n && !ret; i++)
		ret = copy_struct_from_user(&ops[i], sizeof(ops[i]),
					    uops + i * usize, usize);
	if (ret)
		goto out;
	for (i = 0; i < n; i++)
		ops[i].result = mwin_check_batch_op(&ops[i]);

	ret = window_batch(ucmd, ops, n, &cmd->failed, made);
	if (ret)
		goto out;

	for (i = 0; i < n; i++)
		if (copy_to_user(uops + i * usize, &ops[i],
				 min(usize, sizeof(ops[i]))))
			ret = -EFAULT;
	/* as a single create: published once its id reached the caller */
	window_batch_end(made, n, !ret);
out:
	kfree(made);
	kfree(ops);
	return ret;
}

static int mwin_cmd_monitor(struct mwin_ucmd *ucmd)
{
	struct mwin_monitor *cmd = ucmd->cmd;

	if (cmd->flags)
		return -EINVAL;
	return mwin_monitor_start(ucmd->f, &ucmd->c);
}

union mwin_ucmd_buffer {
	struct mwin_info info;
	struct mwin_region_create region_create;
	struct mwin_region_info region_info;
	struct mwin_destroy destroy;
	struct mwin_window_bind window_bind;
	struct mwin_window_info window_info;
	struct mwin_peer_info peer_info;
	struct mwin_monitor monitor;
	struct mwin_window_batch batch;
	struct mwin_tenant_info tenant;
	struct mwin_stats stats;
	struct mwin_window_renew renew;
};

/* The command numbers of structs that grew encode their first version. */
static_assert(offsetofend(struct mwin_info, __reserved) ==
	      MWIN_INFO_SIZE_VER0);
static_assert(offsetofend(struct mwin_region_create, mmap_offset) ==
	      MWIN_REGION_CREATE_SIZE_VER0);
static_assert(offsetofend(struct mwin_region_info, node) ==
	      MWIN_REGION_INFO_SIZE_VER0);
static_assert(offsetofend(struct mwin_peer_info, rejected_invalidations) ==
	      MWIN_PEER_INFO_SIZE_VER0);
static_assert(offsetofend(struct mwin_tenant_info, rejects) ==
	      MWIN_TENANT_INFO_SIZE_VER0);
static_assert(offsetofend(struct mwin_window_bind, iova) ==
	      MWIN_WINDOW_BIND_SIZE_VER0);
static_assert(offsetofend(struct mwin_window_info, tenant) ==
	      MWIN_WINDOW_INFO_SIZE_VER0);
static_assert(offsetofend(struct mwin_batch_op, iova) ==
	      MWIN_BATCH_OP_SIZE_VER0);

struct mwin_ioctl_op {
	unsigned int ioctl_num;
	unsigned int size;
	unsigned int min_size;
	bool changes;		/* needs a file opened for writing */
	int (*execute)(struct mwin_ucmd *ucmd);
};

#define IOCTL_OP_MODE(_cmd, _fn, _struct, _last, _changes)		\
	[MWIN_CMD_##_cmd] = {						\
		.ioctl_num = MWIN_##_cmd,				\
		.size = sizeof(_struct) +				\
			BUILD_BUG_ON_ZERO(sizeof(_struct) >		\
					  sizeof(union mwin_ucmd_buffer)), \
		.min_size = offsetofend(_struct, _last),		\
		.changes = _changes,					\
		.execute = _fn,						\
	}
/* a command that only reads, and one that changes state */
#define IOCTL_OP(_cmd, _fn, _struct, _last)				\
	IOCTL_OP_MODE(_cmd, _fn, _struct, _last, false)
#define IOCTL_OP_W(_cmd, _fn, _struct, _last)				\
	IOCTL_OP_MODE(_cmd, _fn, _struct, _last, true)

static const struct mwin_ioctl_op mwin_ioctl_ops[] = {
	IOCTL_OP(INFO, mwin_cmd_info, struct mwin_info, __reserved),
	IOCTL_OP_W(REGION_CREATE, mwin_cmd_region_create,
		   struct mwin_region_create, mmap_offset),
	IOCTL_OP_W(REGION_DESTROY, mwin_cmd_region_destroy,
		   struct mwin_destroy, __reserved),
	IOCTL_OP(REGION_GET, mwin_cmd_region_get,
		 struct mwin_region_info, node),
	IOCTL_OP_W(WINDOW_CREATE, mwin_cmd_window_create,
		   struct mwin_window_bind, iova),
	IOCTL_OP_W(WINDOW_REBIND, mwin_cmd_window_rebind,
		   struct mwin_window_bind, iova),
	IOCTL_OP_W(WINDOW_INVALIDATE, mwin_cmd_window_invalidate,
		   struct mwin_destroy, __reserved),
	IOCTL_OP_W(WINDOW_DESTROY, mwin_cmd_window_destroy,
		   struct mwin_destroy, __reserved),
	IOCTL_OP(WINDOW_GET, mwin_cmd_window_get,
		 struct mwin_window_info, tenant),
	IOCTL_OP(PEER_GET, mwin_cmd_peer_get, struct mwin_peer_info,
		 rejected_invalidations),
	IOCTL_OP_W(PEER_DISCONNECT, mwin_cmd_peer_disconnect,
		   struct mwin_destroy, __reserved),
	IOCTL_OP(MONITOR, mwin_cmd_monitor, struct mwin_monitor, flags),
	IOCTL_OP_W(WINDOW_BATCH, mwin_cmd_window_batch,
		   struct mwin_window_batch, __reserved),
	IOCTL_OP_W(TENANT_CREATE, tenant_create, struct mwin_tenant_info,
		   rejects),
	IOCTL_OP_W(TENANT_SET, tenant_set, struct mwin_tenant_info, rejects),
	IOCTL_OP(TENANT_GET, tenant_get, struct mwin_tenant_info, rejects),
	IOCTL_OP_W(TENANT_DESTROY, mwin_cmd_tenant_destroy,
		   struct mwin_destroy, __reserved),
	IOCTL_OP(STATS, mwin_stats_get, struct mwin_stats, rejects),
	IOCTL_OP_W(WINDOW_RENEW, mwin_cmd_window_renew,
		   struct mwin_window_renew, expires_ns),
};

long mwin_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;
	const struct mwin_ioctl_op *op;
	union mwin_ucmd_buffer buf;
	struct mwin_ucmd ucmd = {};
	unsigned int nr = _IOC_NR(cmd);
	u32 usize;
	int ret;

	if (nr >= ARRAY_SIZE(mwin_ioctl_ops))
		return -ENOTTY;
	op = &mwin_ioctl_ops[nr];
	/* the whole number: type, direction and encoded size too */
	if (!op->execute || op->ioctl_num != cmd)
		return -ENOTTY;
	if (op->changes && !(file->f_mode & FMODE_WRITE))
		return -EBADF;

	if (get_user(usize, (u32 __user *)uarg))
		return -EFAULT;
	if (usize < op->min_size)
		return -EINVAL;
	ret = copy_struct_from_user(&buf, op->size, uarg, usize);
	if (ret)
		return ret;

	ucmd.f = file->private_data;
	mwin_caller_init(&ucmd.c, ucmd.f);
	ucmd.cmd = &buf;
	ret = op->execute(&ucmd);
	if (!ret && copy_to_user(uarg, &buf, min_t(u32, usize, op->size)))
		ret = -EFAULT;
	/* Respond, then make the new object visible: EFAULT leaves nothing. */
	if (ucmd.obj && ret)
		ucmd.obj->type->abort(ucmd.obj);
	else if (ucmd.obj)
		ucmd.obj->type->finalize(ucmd.obj);
	return ret;
}
