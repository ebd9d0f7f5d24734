/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * <mwin/mwin.h> - libmwin, the local side of mwin.ko
 *
 * What an application on the module's host calls: thin wrappers over the
 * /dev/mwin ioctls of <linux/mwin.h> (regions, windows, tenants, peers,
 * counters), the module's events on a file descriptor to poll, and the
 * explanation of an error of each call in the words mwctl prints.
 * Documentation/libmwin.rst and libmwin(3) are the manual; <linux/mwin.h>
 * documents every struct and field. Link with `pkg-config --libs mwin`.
 *
 * Every call returns 0 (or a file descriptor) or a negative errno, and
 * fills in the size of the uAPI struct it passes. The library has no
 * state and no thread: a file descriptor may be shared by threads as the
 * module allows.
 *
 * Files: libmwin.c (the ioctls), names.c (the names of the uAPI's values),
 * events.c (the monitor), errors.c (mwin_strerror()).
 */
#ifndef _MWIN_MWIN_H
#define _MWIN_MWIN_H

#include <stddef.h>
#include <stdint.h>
#include <linux/mwin.h>

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default)

#define MWIN_DEV_PATH "/dev/mwin"

/* ------------------------------------------------------------ the device */

/* /dev/mwin, read-write and close-on-exec: a file descriptor or -errno. */
int mwin_open(void);
/* close() of a file of mwin_open() or mwin_events(): its owned objects go. */
int mwin_close(int fd);
/* An ioctl of <linux/mwin.h> as it is: 0 or -errno. */
int mwin_ioctl(int fd, unsigned long cmd, void *arg);
/*
 * MWIN_INFO: the module's figures into @info and up to @ndevs devices
 * into @devs (may be NULL); @info->nr_devs says how many it has.
 */
int mwin_info(int fd, struct mwin_info *info, struct mwin_dev_info *devs,
	      uint32_t ndevs);

/* ------------------------------------------------------------ regions */

/**
 * struct mwin_region_opts - what mwin_region_create_opts() makes
 * @size: sizeof(struct mwin_region_opts) as the caller knows it: any
 *	version's size from MWIN_REGION_OPTS_SIZE_VER0 up; the fields past
 *	it are taken as 0 (a caller built before them makes a module region)
 * @flags: MWIN_CREATE_FD_OWNED, MWIN_REGION_NEAR_DEV (module kind),
 *	MWIN_REGION_READ_ONLY, or 0
 * @length: bytes, at most 4 GiB; module kind: rounded up to whole pages;
 *	user and file kinds: a multiple of the page size
 * @dev_index: with MWIN_REGION_NEAR_DEV, the device (&struct
 *	mwin_dev_info.index) whose NUMA node holds the pages; else 0
 * @kind: enum mwin_region_kind: where the memory comes from
 * @fd: file kind: the caller's file descriptor of a memfd or tmpfs file
 * @addr: user kind: the first byte of the caller's range, page-aligned
 * @offset: file kind: the region's first byte in the file, page-aligned
 *
 * The fields mirror &struct mwin_region_create, which documents them.
 */
struct mwin_region_opts {
	uint32_t size;
	uint32_t flags;
	uint64_t length;
	uint32_t dev_index;
	uint32_t __reserved;
	/* MWIN_REGION_OPTS_SIZE_VER0 ends here */
	uint32_t kind;
	int32_t fd;
	uint64_t addr;
	uint64_t offset;
};

/* The first version of struct mwin_region_opts, up to @__reserved. */
#define MWIN_REGION_OPTS_SIZE_VER0	24

/*
 * MWIN_REGION_CREATE of @opts: *@id gets the region's id, *@mmap_offset
 * (may be NULL) the offset mmap() takes (a module region's alone maps).
 * EINVAL for an @opts->size the library does not know (under
 * MWIN_REGION_OPTS_SIZE_VER0, over sizeof, not a multiple of 8), or a
 * non-zero reserved field.
 */
int mwin_region_create_opts(int fd, const struct mwin_region_opts *opts,
			    uint32_t *id, uint64_t *mmap_offset);
/* The same with @length and @flags alone. */
int mwin_region_create(int fd, uint64_t length, uint32_t flags, uint32_t *id,
		       uint64_t *mmap_offset);
/* The same on the NUMA node of device @dev_index (MWIN_REGION_NEAR_DEV). */
int mwin_region_create_near(int fd, uint64_t length, uint32_t flags,
			    uint32_t dev_index, uint32_t *id,
			    uint64_t *mmap_offset);
/*
 * A region of the caller's own memory, [@addr, @addr + @length), pinned
 * where it is (MWIN_REGION_KIND_USER): both page-aligned. @flags:
 * MWIN_CREATE_FD_OWNED, MWIN_REGION_READ_ONLY (a read-only pin; no window
 * may write), or 0. The memory stays pinned until the region goes.
 */
int mwin_region_create_user(int fd, void *addr, uint64_t length,
			    uint32_t flags, uint32_t *id);
/*
 * A region of bytes [@offset, @offset + @length) of the memfd or tmpfs
 * file @file_fd (MWIN_REGION_KIND_FILE), both page-aligned; the region
 * holds the file. @flags as for mwin_region_create_user(); a writable
 * region needs @file_fd open O_RDWR.
 */
int mwin_region_create_file(int fd, int file_fd, uint64_t offset,
			    uint64_t length, uint32_t flags, uint32_t *id);
/* MWIN_REGION_DESTROY; @flags MWIN_REGION_DESTROY_FORCE or 0. */
int mwin_region_destroy(int fd, uint32_t id, uint32_t flags);
/*
 * MWIN_REGION_GET of region @id; with @flags MWIN_GET_NEXT the region of
 * the next id after @id (0 starts a list, -ENOENT ends it); @info gets
 * the whole of today's struct, the kind and backing (kind, pid, addr) too.
 * The same holds for mwin_window_get(), mwin_peer_get() and
 * mwin_tenant_get().
 */
int mwin_region_get(int fd, uint32_t id, uint32_t flags,
		    struct mwin_region_info *info);
/*
 * The whole of region @id mapped read-write (MAP_SHARED) into the caller;
 * *@length (may be NULL) gets its size, for munmap(). NULL on failure,
 * errno set (ENODEV: a user or file region, whose memory the caller maps
 * itself).
 */
void *mwin_region_mmap(int fd, uint32_t id, size_t *length);

/* ------------------------------------------------------------ windows */

/* MWIN_WINDOW_CREATE of @bind; the module fills in id, rkey and iova. */
int mwin_window_create(int fd, struct mwin_window_bind *bind);
/* MWIN_WINDOW_REBIND of window @bind->id: new range, rights or grantee. */
int mwin_window_rebind(int fd, struct mwin_window_bind *bind);
int mwin_window_invalidate(int fd, uint32_t id);
int mwin_window_destroy(int fd, uint32_t id);
/* MWIN_WINDOW_RENEW; *@expires_ns (may be NULL) gets the new deadline. */
int mwin_window_renew(int fd, uint32_t id, uint32_t expires_ms,
		      uint64_t *expires_ns);
int mwin_window_get(int fd, uint32_t id, uint32_t flags,
		    struct mwin_window_info *info);
/*
 * MWIN_WINDOW_BATCH of the @count entries of @ops (at most
 * MWIN_BATCH_MAX): each entry's result in its @result field, and in
 * *@failed (may be NULL) how many failed. An error of the call itself
 * means that no entry was carried out (<linux/mwin.h> says the exception).
 */
int mwin_window_batch(int fd, struct mwin_batch_op *ops, uint32_t count,
		      uint32_t *failed);

/* ------------------------------------------------------------ peers */

int mwin_peer_get(int fd, uint32_t id, uint32_t flags,
		  struct mwin_peer_info *info);
int mwin_peer_disconnect(int fd, uint32_t id);

/* ------------------------------------------------------------ tenants */

/* MWIN_TENANT_CREATE of @t (name, key, allow list, limits); id out. */
int mwin_tenant_create(int fd, struct mwin_tenant_info *t);
/* MWIN_TENANT_SET: the fields @t->flags (MWIN_TENANT_SET_*) name. */
int mwin_tenant_set(int fd, struct mwin_tenant_info *t);
int mwin_tenant_get(int fd, uint32_t id, uint32_t flags,
		    struct mwin_tenant_info *info);
/* The tenant named @name, by walking them all; -ENOENT if none. */
int mwin_tenant_find(int fd, const char *name, struct mwin_tenant_info *info);
int mwin_tenant_destroy(int fd, uint32_t id);

/* ------------------------------------------------------------ counters */

/* MWIN_STATS: the counters of the module (@id 0), a peer or a tenant. */
int mwin_stats(int fd, uint32_t scope, uint32_t id, struct mwin_stats *st);

/* ------------------------------------------------------------ events */

/*
 * A new file of /dev/mwin, read-only and close-on-exec, made a monitor
 * (MWIN_MONITOR): poll() it for POLLIN, read its events with
 * mwin_next_event(), close it with mwin_close(). A file descriptor or
 * -errno: of opening /dev/mwin, or of MWIN_MONITOR (EMFILE: the user holds
 * max_monitors monitors; ENOTTY or EINVAL: a module without a monitor).
 */
int mwin_events(void);
/*
 * The next event of @efd into @ev, whatever the size of the module's
 * records (fields it lacks are 0). Blocks unless @efd is O_NONBLOCK
 * (then -EAGAIN when none is queued); -EINTR on a signal.
 */
int mwin_next_event(int efd, struct mwin_event *ev);

/* ------------------------------------------------------------ errors */

/* The calls whose errors mwin_strerror() explains. */
enum mwin_call {
	MWIN_CALL_ANY,
	MWIN_CALL_OPEN,
	MWIN_CALL_INFO,
	MWIN_CALL_REGION_CREATE,
	MWIN_CALL_REGION_DESTROY,
	MWIN_CALL_REGION_GET,
	MWIN_CALL_REGION_MMAP,
	MWIN_CALL_WINDOW_CREATE,
	MWIN_CALL_WINDOW_REBIND,
	MWIN_CALL_WINDOW_INVALIDATE,
	MWIN_CALL_WINDOW_DESTROY,
	MWIN_CALL_WINDOW_RENEW,
	MWIN_CALL_WINDOW_GET,
	MWIN_CALL_WINDOW_BATCH,
	MWIN_CALL_PEER_GET,
	MWIN_CALL_PEER_DISCONNECT,
	MWIN_CALL_TENANT_CREATE,
	MWIN_CALL_TENANT_SET,
	MWIN_CALL_TENANT_GET,
	MWIN_CALL_TENANT_DESTROY,
	MWIN_CALL_STATS,
	MWIN_CALL_EVENTS,
};

/*
 * What error @err (negative or positive errno) of @call means, in the
 * words mwctl prints after "OBJECT ID: " or "OBJECT COMMAND: ": "No such
 * file or directory (is the mwin module loaded?)" for MWIN_CALL_OPEN and
 * -ENOENT, "its lease ran out; rebind it for a new grant" for
 * MWIN_CALL_WINDOW_RENEW and -ETIME; strerror()'s words for an error the
 * call gives no other meaning. The string lives until the calling thread
 * calls mwin_strerror() again.
 */
const char *mwin_strerror(enum mwin_call call, int err);

/* ------------------------------------------------------------ names */

/* "peer_up", "grant", "revoke", ... for enum mwin_event_type. */
const char *mwin_event_name(uint32_t type);
const char *mwin_window_state_name(uint32_t state);
/* "unknown-tenant", "address", ... for enum mwin_wire_reject_reason. */
const char *mwin_reject_reason_name(uint32_t reason);
const char *mwin_peer_state_name(uint32_t state);
/* "module", "user", "file" for enum mwin_region_kind; "unknown" for others. */
const char *mwin_region_kind_name(uint32_t kind);
/* "rwa" letters of MWIN_ACCESS_* rights ('?' for unknown bits) into buf. */
const char *mwin_access_str(uint32_t access, char buf[5]);
/*
 * "invalidate", "rebind", "destroy", "remote", "error", "handed-back",
 * "expired" or "unknown".
 */
const char *mwin_revoke_reason_name(uint32_t reason);
/*
 * Why a peer went, for enum mwin_down_reason: "disconnect", "qp-error",
 * "keepalive", "cut-off", "operator", "device-removed", "hostile",
 * "no-messages", "bad-proof", "no-proof", "tenant-destroyed", "unload",
 * "qp-event"; "unknown" for others. The module's tracepoint mwin_peer_down
 * prints the same names.
 */
const char *mwin_down_reason_name(uint32_t reason);
/*
 * The counter at index @stat of struct mwin_stats.stats (enum mwin_stat):
 * "grants", "revokes", ..., "msgs_received", "expiries"; "unknown" for
 * others.
 */
const char *mwin_stat_name(uint32_t stat);
/* Parse "r", "rw", "rwa"...; returns the bits or -EINVAL. */
int mwin_access_parse(const char *s);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif /* _MWIN_MWIN_H */
