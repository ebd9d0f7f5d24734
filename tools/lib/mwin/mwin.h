/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * <mwin/mwin.h> - libmwin: thin wrappers over the /dev/mwin ioctls, shared
 * by mwctl and the selftests (the names of the uAPI's values in names.c).
 * Every call returns 0 or a negative errno; sizes are filled in.
 */
#ifndef _MWIN_MWIN_H
#define _MWIN_MWIN_H

#include <stddef.h>
#include <stdint.h>
#include <linux/mwin.h>

#define MWIN_DEV_PATH "/dev/mwin"

int mwin_open(void);
int mwin_ioctl(int fd, unsigned long cmd, void *arg);

int mwin_info(int fd, struct mwin_info *info, struct mwin_dev_info *devs,
	      uint32_t ndevs);
int mwin_region_create(int fd, uint64_t length, uint32_t flags, uint32_t *id,
		       uint64_t *mmap_offset);
/* The same on the NUMA node of device @dev_index (MWIN_REGION_NEAR_DEV). */
int mwin_region_create_near(int fd, uint64_t length, uint32_t flags,
			    uint32_t dev_index, uint32_t *id,
			    uint64_t *mmap_offset);
int mwin_region_destroy(int fd, uint32_t id, uint32_t flags);
int mwin_region_get(int fd, uint32_t id, uint32_t flags,
		    struct mwin_region_info *info);
void *mwin_region_mmap(int fd, uint32_t id, size_t *length);

int mwin_window_create(int fd, struct mwin_window_bind *bind);
int mwin_window_rebind(int fd, struct mwin_window_bind *bind);
int mwin_window_invalidate(int fd, uint32_t id);
int mwin_window_destroy(int fd, uint32_t id);
/* MWIN_WINDOW_RENEW; *@expires_ns (may be NULL) gets the new deadline. */
int mwin_window_renew(int fd, uint32_t id, uint32_t expires_ms,
		      uint64_t *expires_ns);
int mwin_window_get(int fd, uint32_t id, uint32_t flags,
		    struct mwin_window_info *info);

int mwin_peer_get(int fd, uint32_t id, uint32_t flags,
		  struct mwin_peer_info *info);
int mwin_peer_disconnect(int fd, uint32_t id);

int mwin_tenant_create(int fd, struct mwin_tenant_info *t);
int mwin_tenant_set(int fd, struct mwin_tenant_info *t);
int mwin_tenant_get(int fd, uint32_t id, uint32_t flags,
		    struct mwin_tenant_info *info);
int mwin_tenant_find(int fd, const char *name, struct mwin_tenant_info *info);
int mwin_tenant_destroy(int fd, uint32_t id);

/* MWIN_STATS: the counters of the module (@id 0), a peer or a tenant. */
int mwin_stats(int fd, uint32_t scope, uint32_t id, struct mwin_stats *st);

const char *mwin_window_state_name(uint32_t state);
/* "unknown-tenant", "address", ... for enum mwin_wire_reject_reason. */
const char *mwin_reject_reason_name(uint32_t reason);
const char *mwin_peer_state_name(uint32_t state);
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

#endif /* _MWIN_MWIN_H */
