// SPDX-License-Identifier: GPL-2.0
/*
 * The ioctl layer: argument size and reserved-field checks, dispatch.
 *
 * Every argument starts with __u32 size and __u32 flags. The command number
 * selects the handler; the size encoded in the number is ignored so that
 * structs can grow (see the uAPI header).
 */
#include <linux/fs.h>
#include <linux/uaccess.h>

#include "mwin.h"

static int mwin_info_devs(struct mwin_info *info)
{
	struct mwin_dev_info __user *udevs = u64_to_user_ptr(info->devs);
	u32 usize = info->dev_info_size;
	struct mwin_dev_info di;
	struct mwin_dev *dev;
	u32 n = 0;
	int ret = 0;

	if (info->devs && usize < offsetofend(struct mwin_dev_info, nr_peers))
		return -EINVAL;

	mutex_lock(&mwin_devs_lock);
	list_for_each_entry(dev, &mwin_devs, node) {
		if (info->devs && n < info->nr_devs) {
			memset(&di, 0, sizeof(di));
			strscpy(di.name, dev_name(&dev->ibdev->dev),
				sizeof(di.name));
			di.index = dev->ibdev->index;
			di.max_pages = dev->max_pages;
			di.page_size_cap = dev->ibdev->attrs.page_size_cap;
			di.max_window_bytes = mwin_dev_max_window_bytes(dev);
			di.caps = (dev->fast_reg ? MWIN_DEV_CAP_FAST_REG : 0) |
				  (dev->atomic ? MWIN_DEV_CAP_ATOMIC : 0);
			di.nr_peers = READ_ONCE(dev->nr_peers);
			if (copy_to_user((u8 __user *)udevs + (size_t)n * usize,
					 &di, min_t(u32, usize, sizeof(di)))) {
				ret = -EFAULT;
				break;
			}
		}
		n++;
	}
	mutex_unlock(&mwin_devs_lock);
	info->nr_devs = n;
	return ret;
}

static int mwin_cmd_info(struct mwin_file *f, void *arg)
{
	struct mwin_info *info = arg;

	if (info->flags || info->__reserved)
		return -EINVAL;
	info->abi_version = MWIN_ABI_VERSION;
	info->port = mwin_port;
	info->max_region_bytes = (u64)READ_ONCE(mwin_max_region_mb) << 20;
	info->region_bytes = atomic64_read(&mwin_region_bytes);
	info->max_windows = READ_ONCE(mwin_max_windows);
	info->nr_windows = atomic_read(&mwin_nr_windows);
	info->max_peers = READ_ONCE(mwin_max_peers);
	info->nr_peers = atomic_read(&mwin_nr_peers);
	info->nr_regions = region_count();
	return mwin_info_devs(info);
}

static int mwin_cmd_region_create(struct mwin_file *f, void *arg)
{
	struct mwin_region_create *cmd = arg;

	if (cmd->flags & ~MWIN_CREATE_FD_OWNED || cmd->__reserved || cmd->id ||
	    cmd->mmap_offset)
		return -EINVAL;
	return region_create(f, cmd);
}

static int mwin_check_destroy(struct mwin_destroy *cmd, u32 allowed_flags)
{
	if (cmd->flags & ~allowed_flags || cmd->__reserved)
		return -EINVAL;
	return cmd->id ? 0 : -ENOENT;
}

static int mwin_cmd_region_destroy(struct mwin_file *f, void *arg)
{
	struct mwin_destroy *cmd = arg;

	return mwin_check_destroy(cmd, MWIN_REGION_DESTROY_FORCE) ?:
	       region_destroy(cmd->id, cmd->flags);
}

static int mwin_cmd_region_get(struct mwin_file *f, void *arg)
{
	struct mwin_region_info *info = arg;

	if (info->flags & ~MWIN_GET_NEXT || info->__reserved)
		return -EINVAL;
	return region_get_info(info);
}

static int mwin_check_bind(struct mwin_window_bind *cmd, u32 allowed_flags)
{
	if (cmd->flags & ~allowed_flags || cmd->__reserved || cmd->rkey ||
	    cmd->iova)
		return -EINVAL;
	if (!cmd->access || cmd->access & ~MWIN_ACCESS_ALL || !cmd->length)
		return -EINVAL;
	if (cmd->offset >= MWIN_REGION_MAX_BYTES ||
	    cmd->length > MWIN_REGION_MAX_BYTES - cmd->offset)
		return -ERANGE;
	return 0;
}

static int mwin_cmd_window_create(struct mwin_file *f, void *arg)
{
	struct mwin_window_bind *cmd = arg;

	if (cmd->id)
		return -EINVAL;
	return mwin_check_bind(cmd, MWIN_WINDOW_CREATE_FLAGS) ?:
	       window_create(f, cmd);
}

static int mwin_cmd_window_rebind(struct mwin_file *f, void *arg)
{
	struct mwin_window_bind *cmd = arg;

	if (cmd->region)
		return -EINVAL;
	return mwin_check_bind(cmd, MWIN_WINDOW_OVERLAP) ?:
	       window_rebind(cmd);
}

static int mwin_cmd_window_invalidate(struct mwin_file *f, void *arg)
{
	struct mwin_destroy *cmd = arg;

	return mwin_check_destroy(cmd, 0) ?: window_invalidate(cmd->id);
}

static int mwin_cmd_window_destroy(struct mwin_file *f, void *arg)
{
	struct mwin_destroy *cmd = arg;

	return mwin_check_destroy(cmd, 0) ?: window_destroy(cmd->id);
}

static int mwin_cmd_window_get(struct mwin_file *f, void *arg)
{
	struct mwin_window_info *info = arg;

	if (info->flags & ~MWIN_GET_NEXT || info->__reserved)
		return -EINVAL;
	return window_get_info(info);
}

static int mwin_cmd_peer_get(struct mwin_file *f, void *arg)
{
	struct mwin_peer_info *info = arg;

	if (info->flags & ~MWIN_GET_NEXT)
		return -EINVAL;
	return peer_fill_info(info);
}

static int mwin_cmd_peer_disconnect(struct mwin_file *f, void *arg)
{
	struct mwin_destroy *cmd = arg;

	return mwin_check_destroy(cmd, 0) ?: peer_disconnect(cmd->id);
}

/* The checks the single call makes of its argument, for one batch entry. */
static int mwin_check_batch_op(struct mwin_batch_op *op)
{
	struct mwin_window_bind bind = {
		.flags = op->flags, .id = op->id, .region = op->region,
		.peer = op->peer, .access = op->access,
		.offset = op->offset, .length = op->length,
	};

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
		    op->offset || op->length)
			return -EINVAL;
		return op->id ? 0 : -ENOENT;
	default:
		return -EINVAL;
	}
}

static int mwin_cmd_window_batch(struct mwin_file *f, void *arg)
{
	struct mwin_window_batch *cmd = arg;
	u8 __user *uops = u64_to_user_ptr(cmd->ops);
	size_t usize = cmd->op_size;
	struct mwin_batch_op *ops;
	u32 i, n = cmd->count;
	int ret = 0;

	if (cmd->flags || cmd->__reserved || cmd->failed || !n ||
	    n > MWIN_BATCH_MAX ||
	    usize < offsetofend(struct mwin_batch_op, iova))
		return -EINVAL;
	ops = kcalloc(n, sizeof(*ops), GFP_KERNEL);
	if (!ops)
		return -ENOMEM;
	for (i = 0; i < n && !ret; i++)
		ret = copy_struct_from_user(&ops[i], sizeof(ops[i]),
					    uops + i * usize, usize);
	if (ret)
		goto out;
	for (i = 0; i < n; i++)
		ops[i].result = mwin_check_batch_op(&ops[i]);

	cmd->failed = window_batch(f, ops, n);

	for (i = 0; i < n; i++)
		if (copy_to_user(uops + i * usize, &ops[i],
				 min(usize, sizeof(ops[i]))))
			ret = -EFAULT;
out:
	kfree(ops);
	return ret;
}

static int mwin_cmd_monitor(struct mwin_file *f, void *arg)
{
	struct mwin_monitor *cmd = arg;

	if (cmd->flags)
		return -EINVAL;
	return mwin_monitor_start(f);
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
};

struct mwin_ioctl_op {
	unsigned int size;
	unsigned int min_size;
	int (*execute)(struct mwin_file *f, void *arg);
};

#define IOCTL_OP(_cmd, _fn, _struct, _last)				\
	[MWIN_CMD_##_cmd] = {						\
		.size = sizeof(_struct),				\
		.min_size = offsetofend(_struct, _last),		\
		.execute = _fn,						\
	}

static const struct mwin_ioctl_op mwin_ioctl_ops[] = {
	IOCTL_OP(INFO, mwin_cmd_info, struct mwin_info, __reserved),
	IOCTL_OP(REGION_CREATE, mwin_cmd_region_create,
		 struct mwin_region_create, mmap_offset),
	IOCTL_OP(REGION_DESTROY, mwin_cmd_region_destroy,
		 struct mwin_destroy, __reserved),
	IOCTL_OP(REGION_GET, mwin_cmd_region_get, struct mwin_region_info,
		 __reserved),
	IOCTL_OP(WINDOW_CREATE, mwin_cmd_window_create,
		 struct mwin_window_bind, iova),
	IOCTL_OP(WINDOW_REBIND, mwin_cmd_window_rebind,
		 struct mwin_window_bind, iova),
	IOCTL_OP(WINDOW_INVALIDATE, mwin_cmd_window_invalidate,
		 struct mwin_destroy, __reserved),
	IOCTL_OP(WINDOW_DESTROY, mwin_cmd_window_destroy,
		 struct mwin_destroy, __reserved),
	IOCTL_OP(WINDOW_GET, mwin_cmd_window_get, struct mwin_window_info,
		 __reserved),
	IOCTL_OP(PEER_GET, mwin_cmd_peer_get, struct mwin_peer_info,
		 rejected_invalidations),
	IOCTL_OP(PEER_DISCONNECT, mwin_cmd_peer_disconnect,
		 struct mwin_destroy, __reserved),
	IOCTL_OP(MONITOR, mwin_cmd_monitor, struct mwin_monitor, flags),
	IOCTL_OP(WINDOW_BATCH, mwin_cmd_window_batch, struct mwin_window_batch,
		 __reserved),
};

long mwin_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;
	const struct mwin_ioctl_op *op;
	union mwin_ucmd_buffer buf;
	unsigned int nr = _IOC_NR(cmd);
	u32 usize;
	int ret;

	if (_IOC_TYPE(cmd) != MWIN_IOCTL_MAGIC ||
	    nr >= ARRAY_SIZE(mwin_ioctl_ops) || !mwin_ioctl_ops[nr].execute)
		return -ENOTTY;
	op = &mwin_ioctl_ops[nr];

	if (get_user(usize, (u32 __user *)uarg))
		return -EFAULT;
	if (usize < op->min_size)
		return -EINVAL;
	ret = copy_struct_from_user(&buf, op->size, uarg, usize);
	if (ret)
		return ret;

	ret = op->execute(file->private_data, &buf);
	if (ret)
		return ret;
	if (copy_to_user(uarg, &buf, min_t(u32, usize, op->size)))
		return -EFAULT;
	return 0;
}
