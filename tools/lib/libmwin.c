// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libmwin: thin wrappers over the /dev/mwin ioctls.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "libmwin.h"

int mwin_open(void)
{
	int fd = open(MWIN_DEV_PATH, O_RDWR | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
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

static int region_create(int fd, uint64_t length, uint32_t flags,
			 uint32_t dev_index, uint32_t *id, uint64_t *mmap_offset)
{
	struct mwin_region_create cmd = {
		.size = sizeof(cmd),
		.flags = flags,
		.length = length,
		.dev_index = dev_index,
	};
	int ret = mwin_ioctl(fd, MWIN_REGION_CREATE, &cmd);

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
	return region_create(fd, length, flags, 0, id, mmap_offset);
}

int mwin_region_create_near(int fd, uint64_t length, uint32_t flags,
			    uint32_t dev_index, uint32_t *id,
			    uint64_t *mmap_offset)
{
	return region_create(fd, length, flags | MWIN_REGION_NEAR_DEV,
			     dev_index, id, mmap_offset);
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

/* Entry @i of the @n names of a table indexed by a uAPI enum. */
static const char *table_name(const char *const *names, size_t n, uint32_t i)
{
	return i < n && names[i] ? names[i] : "unknown";
}

#define TABLE_NAME(names, i) \
	table_name(names, sizeof(names) / sizeof(names[0]), i)

const char *mwin_reject_reason_name(uint32_t reason)
{
	static const char *const names[] = {
		[MWIN_REJECT_BAD_HELLO] = "bad-hello",
		[MWIN_REJECT_ANONYMOUS] = "anonymous",
		[MWIN_REJECT_UNKNOWN_TENANT] = "unknown-tenant",
		[MWIN_REJECT_ADDRESS] = "address",
		[MWIN_REJECT_QUOTA] = "quota",
		[MWIN_REJECT_PEER_LIMIT] = "peer-limit",
		[MWIN_REJECT_RATE] = "rate",
		[MWIN_REJECT_RNR_RETRY] = "rnr-retry",
		[MWIN_REJECT_SETUP] = "setup",
		[MWIN_REJECT_DEVICE] = "device",
		[MWIN_REJECT_BAD_PROOF] = "bad-proof",
		[MWIN_REJECT_NO_PROOF] = "no-proof",
		[MWIN_REJECT_HALF_OPEN] = "half-open",
		[MWIN_REJECT_UNFINISHED] = "unfinished",
		[MWIN_REJECT_CHALLENGE] = "challenge",
	};

	return TABLE_NAME(names, reason);
}

const char *mwin_down_reason_name(uint32_t reason)
{
	static const char *const names[] = {
		[MWIN_DOWN_DISCONNECT] = "disconnect",
		[MWIN_DOWN_QP_ERROR] = "qp-error",
		[MWIN_DOWN_KEEPALIVE] = "keepalive",
		[MWIN_DOWN_CUT_OFF] = "cut-off",
		[MWIN_DOWN_OPERATOR] = "operator",
		[MWIN_DOWN_DEVICE] = "device-removed",
		[MWIN_DOWN_HOSTILE] = "hostile",
		[MWIN_DOWN_NO_MESSAGES] = "no-messages",
		[MWIN_DOWN_BAD_PROOF] = "bad-proof",
		[MWIN_DOWN_NO_PROOF] = "no-proof",
		[MWIN_DOWN_TENANT] = "tenant-destroyed",
		[MWIN_DOWN_UNLOAD] = "unload",
		[MWIN_DOWN_QP_EVENT] = "qp-event",
		[MWIN_DOWN_REG_QP] = "reg-qp",
		[MWIN_DOWN_HANDSHAKE] = "handshake",
	};

	return TABLE_NAME(names, reason);
}

const char *mwin_stat_name(uint32_t stat)
{
	static const char *const names[] = {
		[MWIN_STAT_GRANTS] = "grants",
		[MWIN_STAT_REVOKES] = "revokes",
		[MWIN_STAT_REMOTE_INVALIDATIONS] = "remote_invalidations",
		[MWIN_STAT_ATTACKS] = "attacks",
		[MWIN_STAT_ACCESS_ERRORS] = "access_errors",
		[MWIN_STAT_CUT_OFFS] = "cut_offs",
		[MWIN_STAT_TIMEOUTS] = "timeouts",
		[MWIN_STAT_KEYS_SPENT] = "keys_spent",
		[MWIN_STAT_MR_REPLACEMENTS] = "mr_replacements",
		[MWIN_STAT_QP_EVENTS] = "qp_events",
		[MWIN_STAT_QP_ACCESS_ERRORS] = "qp_access_errors",
		[MWIN_STAT_MSGS_SENT] = "msgs_sent",
		[MWIN_STAT_MSGS_RECEIVED] = "msgs_received",
		[MWIN_STAT_EXPIRIES] = "expiries",
	};

	return TABLE_NAME(names, stat);
}

const char *mwin_window_state_name(uint32_t state)
{
	switch (state) {
	case MWIN_WINDOW_BOUND:
		return "bound";
	case MWIN_WINDOW_INVALIDATED:
		return "invalidated";
	case MWIN_WINDOW_UNBOUND:
		return "unbound";
	case MWIN_WINDOW_BROKEN:
		return "broken";
	}
	return "unknown";
}

const char *mwin_peer_state_name(uint32_t state)
{
	switch (state) {
	case MWIN_PEER_CONNECTING:
		return "connecting";
	case MWIN_PEER_CONNECTED:
		return "connected";
	case MWIN_PEER_CLOSING:
		return "closing";
	case MWIN_PEER_AUTHENTICATING:
		return "authenticating";
	}
	return "unknown";
}

const char *mwin_access_str(uint32_t access, char buf[5])
{
	char *p = buf;

	if (access & MWIN_ACCESS_READ)
		*p++ = 'r';
	if (access & MWIN_ACCESS_WRITE)
		*p++ = 'w';
	if (access & MWIN_ACCESS_ATOMIC)
		*p++ = 'a';
	if (access & ~MWIN_ACCESS_ALL)
		*p++ = '?';
	*p = '\0';
	return buf;
}

const char *mwin_revoke_reason_name(uint32_t reason)
{
	switch (reason) {
	case MWIN_REVOKE_INVALIDATE:
		return "invalidate";
	case MWIN_REVOKE_REBIND:
		return "rebind";
	case MWIN_REVOKE_DESTROY:
		return "destroy";
	case MWIN_REVOKE_REMOTE:
		return "remote";
	case MWIN_REVOKE_ERROR:
		return "error";
	case MWIN_REVOKE_HANDED_BACK:
		return "handed-back";
	case MWIN_REVOKE_EXPIRED:
		return "expired";
	}
	return "unknown";
}

int mwin_access_parse(const char *s)
{
	int access = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		switch (*s) {
		case 'r':
			access |= MWIN_ACCESS_READ;
			break;
		case 'w':
			access |= MWIN_ACCESS_WRITE;
			break;
		case 'a':
			access |= MWIN_ACCESS_ATOMIC;
			break;
		default:
			return -EINVAL;
		}
	}
	return access;
}
