// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libmwin: thin wrappers over the /dev/mwin ioctls (<mwin/mwin.h>).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <mwin/mwin.h>

int mwin_open(void)
{
	int fd = open(MWIN_DEV_PATH, O_RDWR | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int mwin_close(int fd)
{
	return close(fd) ? -errno : 0;
}

int mwin_ioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

int mwin_info(int fd, struct mwin_info *info, struct mwin_dev_info *devs,
	      uint32_t ndevs)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	info->devs = (uintptr_t)devs;
	info->nr_devs = devs ? ndevs : 0;
	info->dev_info_size = sizeof(*devs);
	return mwin_ioctl(fd, MWIN_INFO, info);
}

/*
 * The ioctl's struct of @opts. A caller built against an older <mwin/mwin.h>
 * passes a smaller @opts->size: only the fields it covers are read, the
 * rest are 0, so that it gets what it got then (a module region). Every
 * version ends on an 8-byte boundary; a size that does not is no version.
 */
static int region_cmd(const struct mwin_region_opts *opts,
		      struct mwin_region_create *cmd)
{
	struct mwin_region_opts o = { 0 };

	if (opts->size < MWIN_REGION_OPTS_SIZE_VER0 ||
	    opts->size > sizeof(o) || opts->size % 8)
		return -EINVAL;
	memcpy(&o, opts, opts->size);
	if (o.__reserved)
		return -EINVAL;
	*cmd = (struct mwin_region_create){
		.size = sizeof(*cmd),
		.flags = o.flags,
		.length = o.length,
		.dev_index = o.dev_index,
		.kind = o.kind,
		.fd = o.fd,
		.addr = o.addr,
		.offset = o.offset,
	};
	return 0;
}

int mwin_region_create_opts(int fd, const struct mwin_region_opts *opts,
			    uint32_t *id, uint64_t *mmap_offset)
{
	struct mwin_region_create cmd;
	int ret = region_cmd(opts, &cmd);

	if (!ret)
		ret = mwin_ioctl(fd, MWIN_REGION_CREATE, &cmd);
	if (!ret) {
		*id = cmd.id;
		if (mmap_offset)
			*mmap_offset = cmd.mmap_offset;
	}
	return ret;
}

int mwin_region_create(int fd, uint64_t length, uint32_t flags, uint32_t *id,
		       uint64_t *mmap_offset)
{
	struct mwin_region_opts o = {
		.size = sizeof(o), .flags = flags, .length = length,
	};

	return mwin_region_create_opts(fd, &o, id, mmap_offset);
}

int mwin_region_create_near(int fd, uint64_t length, uint32_t flags,
			    uint32_t dev_index, uint32_t *id,
			    uint64_t *mmap_offset)
{
	struct mwin_region_opts o = {
		.size = sizeof(o),
		.flags = flags | MWIN_REGION_NEAR_DEV,
		.length = length,
		.dev_index = dev_index,
	};

	return mwin_region_create_opts(fd, &o, id, mmap_offset);
}

int mwin_region_create_user(int fd, void *addr, uint64_t length,
			    uint32_t flags, uint32_t *id)
{
	struct mwin_region_opts o = {
		.size = sizeof(o),
		.flags = flags,
		.length = length,
		.kind = MWIN_REGION_KIND_USER,
		.addr = (uintptr_t)addr,
	};

	return mwin_region_create_opts(fd, &o, id, NULL);
}

int mwin_region_create_file(int fd, int file_fd, uint64_t offset,
			    uint64_t length, uint32_t flags, uint32_t *id)
{
	struct mwin_region_opts o = {
		.size = sizeof(o),
		.flags = flags,
		.length = length,
		.kind = MWIN_REGION_KIND_FILE,
		.fd = file_fd,
		.offset = offset,
	};

	return mwin_region_create_opts(fd, &o, id, NULL);
}

static int mwin_by_id(int fd, unsigned long cmd, uint32_t id, uint32_t flags)
{
	struct mwin_destroy arg = {
		.size = sizeof(arg),
		.flags = flags,
		.id = id,
	};

	return mwin_ioctl(fd, cmd, &arg);
}

int mwin_region_destroy(int fd, uint32_t id, uint32_t flags)
{
	return mwin_by_id(fd, MWIN_REGION_DESTROY, id, flags);
}

int mwin_region_get(int fd, uint32_t id, uint32_t flags,
		    struct mwin_region_info *info)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	info->flags = flags;
	info->id = id;
	return mwin_ioctl(fd, MWIN_REGION_GET, info);
}

void *mwin_region_mmap(int fd, uint32_t id, size_t *length)
{
	struct mwin_region_info info;
	void *p;

	if (mwin_region_get(fd, id, 0, &info))
		return NULL;
	p = mmap(NULL, info.length, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 (off_t)info.mmap_offset);
	if (p == MAP_FAILED)
		return NULL;
	if (length)
		*length = info.length;
	return p;
}

int mwin_window_create(int fd, struct mwin_window_bind *bind)
{
	bind->size = sizeof(*bind);
	return mwin_ioctl(fd, MWIN_WINDOW_CREATE, bind);
}

int mwin_window_rebind(int fd, struct mwin_window_bind *bind)
{
	bind->size = sizeof(*bind);
	return mwin_ioctl(fd, MWIN_WINDOW_REBIND, bind);
}

int mwin_window_invalidate(int fd, uint32_t id)
{
	return mwin_by_id(fd, MWIN_WINDOW_INVALIDATE, id, 0);
}

int mwin_window_destroy(int fd, uint32_t id)
{
	return mwin_by_id(fd, MWIN_WINDOW_DESTROY, id, 0);
}

int mwin_window_renew(int fd, uint32_t id, uint32_t expires_ms,
		      uint64_t *expires_ns)
{
	struct mwin_window_renew r = {
		.size = sizeof(r), .id = id, .expires_ms = expires_ms,
	};
	int ret = mwin_ioctl(fd, MWIN_WINDOW_RENEW, &r);

	if (!ret && expires_ns)
		*expires_ns = r.expires_ns;
	return ret;
}

int mwin_window_batch(int fd, struct mwin_batch_op *ops, uint32_t count,
		      uint32_t *failed)
{
	struct mwin_window_batch b = {
		.size = sizeof(b),
		.count = count,
		.op_size = sizeof(*ops),
		.ops = (uintptr_t)ops,
	};
	int ret = mwin_ioctl(fd, MWIN_WINDOW_BATCH, &b);

	if (!ret && failed)
		*failed = b.failed;
	return ret;
}

int mwin_window_get(int fd, uint32_t id, uint32_t flags,
		    struct mwin_window_info *info)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	info->flags = flags;
	info->id = id;
	return mwin_ioctl(fd, MWIN_WINDOW_GET, info);
}

int mwin_peer_get(int fd, uint32_t id, uint32_t flags,
		  struct mwin_peer_info *info)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	info->flags = flags;
	info->id = id;
	return mwin_ioctl(fd, MWIN_PEER_GET, info);
}

int mwin_peer_disconnect(int fd, uint32_t id)
{
	return mwin_by_id(fd, MWIN_PEER_DISCONNECT, id, 0);
}

/*
 * TENANT_CREATE and TENANT_SET take the caller's struct as it is (name, key,
 * allow list, limits; flags for SET); size is filled in.
 */
int mwin_tenant_create(int fd, struct mwin_tenant_info *t)
{
	t->size = sizeof(*t);
	t->flags = 0;
	t->id = 0;
	return mwin_ioctl(fd, MWIN_TENANT_CREATE, t);
}

int mwin_tenant_set(int fd, struct mwin_tenant_info *t)
{
	t->size = sizeof(*t);
	return mwin_ioctl(fd, MWIN_TENANT_SET, t);
}

int mwin_tenant_get(int fd, uint32_t id, uint32_t flags,
		    struct mwin_tenant_info *info)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	info->flags = flags;
	info->id = id;
	return mwin_ioctl(fd, MWIN_TENANT_GET, info);
}

/* The tenant named @name, by walking them all. */
int mwin_tenant_find(int fd, const char *name, struct mwin_tenant_info *info)
{
	uint32_t id = 0;
	int ret;

	while (!(ret = mwin_tenant_get(fd, id, MWIN_GET_NEXT, info))) {
		if (!strncmp(info->name, name, sizeof(info->name)))
			return 0;
		id = info->id;
	}
	return ret;
}

int mwin_tenant_destroy(int fd, uint32_t id)
{
	return mwin_by_id(fd, MWIN_TENANT_DESTROY, id, 0);
}

int mwin_stats(int fd, uint32_t scope, uint32_t id, struct mwin_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	st->scope = scope;
	st->id = id;
	return mwin_ioctl(fd, MWIN_STATS, st);
}
