/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * mwin - revocable RDMA memory windows over kernel-owned memory.
 */
#ifndef _UAPI_LINUX_MWIN_H
#define _UAPI_LINUX_MWIN_H

#include <linux/types.h>
#include <linux/ioctl.h>

/**
 * DOC: mwin uAPI
 *
 * /dev/mwin hands remote RDMA peers fine-grained, revocable access to
 * memory owned by the kernel. Four kinds of object exist, each named by a
 * positive 32-bit id that is never reused while the module is loaded:
 *
 *  - a *region*: pinned memory: zeroed kernel pages, mmap-able through
 *    /dev/mwin at the offset returned by MWIN_REGION_CREATE, or an address
 *    range of the process that created it (enum mwin_region_kind);
 *  - a *peer*: one RDMA CM connection accepted by the module; peers are
 *    created by remote hosts, never by ioctl;
 *  - a *window*: a byte range of a region with remote rights and an rkey,
 *    usable only through its peer's connection;
 *  - a *tenant*: a named remote principal, made by CAP_SYS_ADMIN. A peer
 *    that names a tenant in its hello (wire version 4) is admitted only
 *    from the tenant's addresses, within its connection quota, and, when
 *    the tenant has a key, after both sides proved they hold it, the peer
 *    in its connect request, before the module makes anything for it
 *    (HMAC-SHA256 over a challenge of the module's and a nonce of the
 *    peer's; the key never crosses the wire).
 *
 * Regions and windows have an owner: the user (effective uid) that opened
 * the file they were created through. Through a file opened by another
 * user they do not exist: calls that name them fail with ENOENT, listings
 * skip them, MWIN_INFO does not count them and a monitor gets no event
 * about them, unless the caller has CAP_SYS_ADMIN, which sees and may act
 * on every object. Peers belong to the host: every caller sees them and
 * may grant its own regions' windows to them, but for the peers of a
 * tenant: those take windows from the tenant's owner (the local user named
 * at its creation, or none) and CAP_SYS_ADMIN only (EPERM). The owner and
 * CAP_SYS_ADMIN see a tenant; only CAP_SYS_ADMIN creates, changes or
 * destroys tenants. A peer's tenant id is shown to every caller.
 *
 * Every ioctl argument starts with ``__u32 size`` (the size of the struct
 * as the caller knows it) and ``__u32 flags``. A caller built against an
 * older header passes a smaller size: missing fields read as zero. A caller
 * built against a newer header passes a larger size: the extra bytes must be
 * zero, else the call fails with E2BIG. A size smaller than the first
 * version of the struct fails with EINVAL. Unknown flags and non-zero
 * reserved fields fail with EINVAL. Output fields are written back up to
 * the caller's size.
 *
 * Errors common to all calls:
 *
 *  - ENOTTY: unknown command, or a known command number with other
 *    direction or size bits than the ones defined here;
 *  - EFAULT: the argument or an embedded pointer is not accessible; a
 *    create whose result cannot be written back leaves nothing: its object
 *    becomes visible (and a window's grant is sent) only once the result
 *    reached the caller;
 *  - EINVAL: bad size, unknown flag, non-zero reserved field, bad value;
 *  - E2BIG: the caller's struct is larger than the kernel's and its tail is
 *    not zero;
 *  - ENOENT: no object of that kind with that id that the caller may see
 *    (see the owners above);
 *  - EBADF: a command that changes state (REGION_CREATE, REGION_DESTROY,
 *    WINDOW_CREATE, WINDOW_REBIND, WINDOW_INVALIDATE, WINDOW_DESTROY,
 *    PEER_DISCONNECT, WINDOW_BATCH, TENANT_CREATE, TENANT_SET,
 *    TENANT_DESTROY, WINDOW_RENEW) on a file not opened for writing; INFO,
 *    the GETs and MONITOR need only read access. So does mmap, for a
 *    read-only mapping: a writable one needs write access (EACCES);
 *  - EPERM: the caller lacks CAP_SYS_ADMIN for a privileged operation.
 *
 * Errors of individual calls are listed with each struct.
 */

#define MWIN_ABI_VERSION	1
#define MWIN_DEFAULT_PORT	18520
/* Counters of refused connections: one per enum mwin_wire_reject_reason. */
#define MWIN_REJECT_SLOTS	16

/**
 * enum mwin_access - remote rights of a window
 * @MWIN_ACCESS_READ: RDMA READ
 * @MWIN_ACCESS_WRITE: RDMA WRITE
 * @MWIN_ACCESS_ATOMIC: compare-and-swap and fetch-and-add
 * @MWIN_ACCESS_ALL: all three
 */
enum mwin_access {
	MWIN_ACCESS_READ = 1 << 0,
	MWIN_ACCESS_WRITE = 1 << 1,
	MWIN_ACCESS_ATOMIC = 1 << 2,
	MWIN_ACCESS_ALL = MWIN_ACCESS_READ | MWIN_ACCESS_WRITE |
			  MWIN_ACCESS_ATOMIC,
};

/**
 * enum mwin_flags - flags of the calls
 * @MWIN_CREATE_FD_OWNED: REGION_CREATE, WINDOW_CREATE: objects belong to
 *	the module by default and outlive the process that made them; with
 *	this flag the object is destroyed (its windows revoked) when the file
 *	descriptor that created it is closed
 * @MWIN_WINDOW_OVERLAP: WINDOW_CREATE, WINDOW_REBIND: allow the window to
 *	overlap other windows of its region
 * @MWIN_WINDOW_QUIET: WINDOW_CREATE: the module sends the peer no grant
 *	or revoke for this window, ever; the caller hands the rkey out by its
 *	own means, as the consumer of an IB memory window does. Revocation is
 *	as immediate, and MWIN_MONITOR reports every grant and revoke
 * @MWIN_GET_NEXT: REGION_GET, WINDOW_GET, PEER_GET, TENANT_GET: return the object
 *	with the smallest id strictly greater than the one given (0 starts
 *	the walk), ENOENT past the last
 * @MWIN_REGION_DESTROY_FORCE: REGION_DESTROY: destroy a region that still
 *	has windows, revoking them first
 * @MWIN_GET_GONE: PEER_GET: a peer that went, from the module's history
 *	of the last MWIN_PEERS_GONE, as it was when it went, with the reason
 *	(with MWIN_GET_NEXT too: the next one of the history by id)
 * @MWIN_WINDOW_ONCE: WINDOW_CREATE: a one-shot window. The module
 *	destroys it, freeing its range, when its grantee hands its rkey back
 *	(Send-with-Invalidate) or its lease runs out; an invalidate, a lost
 *	connection or an error leave it as any window
 * @MWIN_REGION_NEAR_DEV: REGION_CREATE: allocate the region's pages on
 *	the NUMA node of the RDMA device of kernel index @dev_index (the
 *	node of its DMA device, or, for a device without one such as rxe, of
 *	its port's network device), the node whose memory that device reaches
 *	fastest. The node is preferred: memory of another node is taken
 *	when it has none to spare
 * @MWIN_REGION_READ_ONLY: REGION_CREATE: no window of the region may ever
 *	have MWIN_ACCESS_WRITE or MWIN_ACCESS_ATOMIC (WINDOW_CREATE,
 *	WINDOW_REBIND and a batch's creates and rebinds fail with EACCES);
 *	a user region (MWIN_REGION_KIND_USER) is then pinned for reading
 *	only, so a read-only mapping may back it, and a file region
 *	(MWIN_REGION_KIND_FILE) needs its file open only for reading
 */
enum mwin_flags {
	MWIN_CREATE_FD_OWNED = 1 << 0,
	MWIN_WINDOW_OVERLAP = 1 << 1,
	MWIN_WINDOW_QUIET = 1 << 2,
	MWIN_GET_NEXT = 1 << 0,
	MWIN_REGION_DESTROY_FORCE = 1 << 0,
	MWIN_GET_GONE = 1 << 1,
	MWIN_WINDOW_ONCE = 1 << 3,
	MWIN_REGION_NEAR_DEV = 1 << 4,
	MWIN_REGION_READ_ONLY = 1 << 5,
};

/**
 * enum mwin_region_kind - where a region's memory comes from
 * @MWIN_REGION_KIND_MODULE: pages the module allocates, zeroes and pins,
 *	mmap-able through /dev/mwin; the kind of every region made by a
 *	caller of the first version of &struct mwin_region_create
 * @MWIN_REGION_KIND_USER: an address range of the calling process,
 *	pinned where it is (&struct mwin_region_create.addr); not mmap-able
 *	through /dev/mwin (ENODEV): the process has it mapped already
 * @MWIN_REGION_KIND_FILE: pages of a memfd or tmpfs file
 *	(&struct mwin_region_create.fd and .offset), shared with every
 *	process that maps the file; not mmap-able through /dev/mwin (ENODEV):
 *	mmap() the file itself
 */
enum mwin_region_kind {
	MWIN_REGION_KIND_MODULE = 0,
	MWIN_REGION_KIND_USER = 1,
	MWIN_REGION_KIND_FILE = 2,
};

/* The peers that went that PEER_GET with MWIN_GET_GONE still finds. */
#define MWIN_PEERS_GONE		64

/**
 * struct mwin_dev_info - one RDMA device as mwin sees it
 * @name: device name, NUL-terminated
 * @index: kernel index of the device
 * @max_pages: pages one window can map (max_fast_reg_page_list_len)
 * @page_size_cap: page sizes the device can map, one bit per size
 * @max_window_bytes: largest window on this device
 * @caps: MWIN_DEV_CAP_* bits
 * @nr_peers: peers connected through this device
 * @__reserved: must be 0
 */
struct mwin_dev_info {
	char name[64];
	__u32 index;
	__u32 max_pages;
	__aligned_u64 page_size_cap;
	__aligned_u64 max_window_bytes;
	__u32 caps;
	__u32 nr_peers;
	__aligned_u64 __reserved;
};

/**
 * enum mwin_dev_caps - what a device can do for windows
 * @MWIN_DEV_CAP_FAST_REG: fast registration (IB_WR_REG_MR): windows work
 * @MWIN_DEV_CAP_ATOMIC: remote atomics: MWIN_ACCESS_ATOMIC works
 */
enum mwin_dev_caps {
	MWIN_DEV_CAP_FAST_REG = 1 << 0,
	MWIN_DEV_CAP_ATOMIC = 1 << 1,
};

/* The first version of struct mwin_info, up to @__reserved. */
#define MWIN_INFO_SIZE_VER0	72

/**
 * struct mwin_info - MWIN_INFO: module version, limits and devices
 * @size: sizeof(struct mwin_info)
 * @flags: must be 0
 * @abi_version: out, MWIN_ABI_VERSION of the module
 * @port: out, RDMA CM port the module listens on
 * @max_region_bytes: out, limit on the memory of all regions
 * @region_bytes: out, memory held by the regions the caller may see (all
 *	regions, being created too, for CAP_SYS_ADMIN)
 * @max_windows: out, limit on windows
 * @nr_windows: out, windows the caller may see
 * @max_peers: out, limit on peers
 * @nr_peers: out, peers now whose handshake is over (connections still in
 *	their handshake, at most ``max_half_open``, are not counted)
 * @nr_regions: out, regions the caller may see
 * @nr_devs: in, entries @devs can hold; out, devices present (may be more)
 * @devs: in, pointer to an array of struct mwin_dev_info, or 0
 * @dev_info_size: in, sizeof(struct mwin_dev_info) as the caller knows it
 * @__reserved: must be 0
 * @nr_tenants: out, tenants the caller may see
 * @nr_anon_peers: out, of @nr_peers, those that named no tenant (wire
 *	version 2)
 * @rejects: out, connection attempts refused since the module loaded, by
 *	enum mwin_wire_reject_reason (index 0 unused)
 */
struct mwin_info {
	__u32 size;
	__u32 flags;
	__u32 abi_version;
	__u32 port;
	__aligned_u64 max_region_bytes;
	__aligned_u64 region_bytes;
	__u32 max_windows;
	__u32 nr_windows;
	__u32 max_peers;
	__u32 nr_peers;
	__u32 nr_regions;
	__u32 nr_devs;
	__aligned_u64 devs;
	__u32 dev_info_size;
	__u32 __reserved;
	__u32 nr_tenants;
	__u32 nr_anon_peers;
	__aligned_u64 rejects[MWIN_REJECT_SLOTS];
};

/**
 * struct mwin_region_create - MWIN_REGION_CREATE: make a region
 * @size: sizeof(struct mwin_region_create)
 * @flags: MWIN_CREATE_FD_OWNED, MWIN_REGION_NEAR_DEV (module kind only),
 *	MWIN_REGION_READ_ONLY, or 0
 * @length: in, bytes, at most 4 GiB; module kind: rounded up to whole
 *	pages; user and file kinds: a multiple of the page size
 * @id: out, region id
 * @dev_index: with MWIN_REGION_NEAR_DEV, the kernel index of the RDMA
 *	device (&struct mwin_dev_info.index) whose NUMA node the pages are
 *	allocated on; must be 0 without it
 * @mmap_offset: out, pass to mmap() on /dev/mwin (MAP_SHARED) to reach
 *	the region's memory; a file opened read-only maps it PROT_READ; a
 *	file of a user that may not see the region gets ENOENT. User and
 *	file regions are given one too (it names the region), but mmap() of
 *	them fails with ENODEV
 * @kind: in, enum mwin_region_kind; callers of the first version
 *	(MWIN_REGION_CREATE_SIZE_VER0 bytes) make MWIN_REGION_KIND_MODULE
 * @fd: in, file kind: a file descriptor of the caller's, of a memfd or a
 *	tmpfs file, open for reading and, unless MWIN_REGION_READ_ONLY,
 *	writing; other kinds: must be 0
 * @addr: in, user kind: the first byte of the range of the caller's
 *	address space, page-aligned and not 0; other kinds: must be 0
 * @offset: in, file kind: the first byte of the region in the file,
 *	page-aligned; @offset + @length at most the file's size; other
 *	kinds: must be 0
 *
 * Module kind: the region's pages are allocated zeroed, pinned and
 * charged to the RLIMIT_MEMLOCK of the user that opened the file (its
 * locked_vm, as io_uring and RDMA user memory count), unless the caller
 * has CAP_IPC_LOCK; the charge lasts until the region is freed. They are
 * allocated with __GFP_ACCOUNT: the caller's memory cgroup pays for them.
 * Without MWIN_REGION_NEAR_DEV they come from where the caller's memory
 * policy says (set_mempolicy(2), numactl: by default the node of the CPU
 * it runs on): a region is not tied to one device, and the caller knows
 * best where its memory should be.
 *
 * User kind: the pages of [@addr, @addr + @length) in the caller's
 * address space are pinned long-term where they are, as ibv_reg_mr() pins
 * them (pin_user_pages(FOLL_LONGTERM), for writing unless
 * MWIN_REGION_READ_ONLY), and charged to the caller's pinned memory
 * (VmPin in /proc/PID/status) against its RLIMIT_MEMLOCK; CAP_IPC_LOCK
 * lifts the limit, not the charge. Windows are cut from the range at any
 * byte offset, as from a module region, and remote WRITEs land in the
 * caller's memory. The pages, the pin and the charge stay until the region
 * is freed, whatever the process does meanwhile: after munmap() of the
 * range the process no longer sees them and remote peers still do; a
 * child of fork() gets copies of the pinned pages, the region keeps the
 * parent's; the region outlives the process unless MWIN_CREATE_FD_OWNED,
 * as a module region does. See "Region kinds" in Documentation/mwin.rst.
 *
 * File kind: the pages of [@offset, @offset + @length) of the file (the
 * holes among them allocated) are held by the region, charged as a user
 * region's, and shared with every process that maps the file: what one
 * writes the windows show, what a remote WRITE puts there they see. The
 * region holds the file open, and for a writable region holds off
 * F_SEAL_WRITE as a writable shared mapping does (fcntl() fails with
 * EBUSY). The region keeps its pages whatever the file does: a truncation
 * or hole punch over them takes them out of the file, not out of the
 * region, and the processes then see other pages there.
 *
 * All kinds count against the module's limit on region memory
 * (&struct mwin_info.max_region_bytes).
 *
 * Errors: EINVAL (length 0 or over 4 GiB, an unknown flag or kind, a
 * @dev_index without MWIN_REGION_NEAR_DEV; user kind: @addr 0 or @addr or
 * @length not page-aligned, @addr + @length past the end of the address
 * space, MWIN_REGION_NEAR_DEV; file kind: @offset or @length not
 * page-aligned, the range past the file's end, the file not a memfd or
 * tmpfs file (a hugetlbfs memfd neither), MWIN_REGION_NEAR_DEV; an @fd or
 * @offset for other kinds, an @addr for other kinds than user),
 * EBADF (file kind: @fd is not an open file descriptor), EACCES (file
 * kind: @fd not open for reading, or for writing without
 * MWIN_REGION_READ_ONLY), EPERM (file kind, writable: the memfd is sealed
 * F_SEAL_WRITE or F_SEAL_FUTURE_WRITE), ENODEV (MWIN_REGION_NEAR_DEV: mwin
 * has no device of that index), ENOSPC (the module's region memory or
 * object limit would be exceeded; file kind: also the tmpfs is full),
 * ENOMEM (no memory, or the region would exceed the RLIMIT_MEMLOCK of the
 * opener's user (module kind) or of the caller's pinned memory (user and
 * file kinds)), EFAULT (user kind: a page of the range is not mapped, or
 * not writable without MWIN_REGION_READ_ONLY, or is I/O memory that cannot
 * be pinned), EINTR (killed while allocating or pinning). A failed create
 * leaves nothing allocated, pinned or charged.
 */
struct mwin_region_create {
	__u32 size;
	__u32 flags;
	__aligned_u64 length;
	__u32 id;
	__u32 dev_index;
	__aligned_u64 mmap_offset;
	__u32 kind;
	__s32 fd;
	__aligned_u64 addr;
	__aligned_u64 offset;
};

/* The first version of struct mwin_region_create, up to @mmap_offset. */
#define MWIN_REGION_CREATE_SIZE_VER0	32

/**
 * struct mwin_destroy - REGION_DESTROY, WINDOW_DESTROY, WINDOW_INVALIDATE,
 *	PEER_DISCONNECT: act on one object
 * @size: sizeof(struct mwin_destroy)
 * @flags: MWIN_REGION_DESTROY_FORCE for REGION_DESTROY, else 0
 * @id: object id
 * @__reserved: must be 0
 *
 * Errors: ENOENT; EBUSY (REGION_DESTROY of a region with windows, without
 * the force flag; with it, an MR over the region still waits for its
 * peer's drain after op_timeout_ms: nothing changed); ENOTCONN
 * (WINDOW_INVALIDATE of a window whose peer is gone, or whose peer's
 * registration QP was in error: its LOCAL_INV completed flushed); EIO (the
 * device failed the operation); after either, the peer's QPs were moved to
 * error (or, were the device to refuse, the MR deregistered) before the
 * call returned: the rkey is dead and the window is unbound with the
 * peer. ECONNABORTED (WINDOW_INVALIDATE: the LOCAL_INV did not complete
 * within the module's revoke_timeout_ms, or could not be posted, so the
 * peer was cut off: its QPs were moved to error before the call returned,
 * the rkey is dead and the window is unbound with the peer); ETIMEDOUT
 * (the module could not prove the device done with the MR: cut off and
 * not even flushed, posted in part, or not completed and a QP the device
 * would not move to error: the window is broken, and keeps its MR, its
 * range and its region until the peer's QPs are drained); EINTR (killed
 * while waiting for the window, or REGION_DESTROY for a drain: nothing
 * changed).
 * PEER_DISCONNECT: the peer's QPs are in the error state when it returns;
 * EPERM (the caller lacks CAP_SYS_ADMIN: a peer is the host's, not an
 * opener's), EIO (the device refused to move its QPs to error; the peer
 * goes all the same), EAGAIN (the teardown did not end within
 * op_timeout_ms: the device has not drained the peer's QP; the peer is
 * disconnected and goes when it has), EINTR (killed while waiting; the
 * peer goes all the same).
 * WINDOW_DESTROY succeeds also when it had to cut the peer off; the window's
 * range stays taken until its MR is deregistered (after the peer's drain).
 */
struct mwin_destroy {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 __reserved;
};

/**
 * struct mwin_window_bind - WINDOW_CREATE and WINDOW_REBIND
 * @size: sizeof(struct mwin_window_bind)
 * @flags: MWIN_WINDOW_OVERLAP, and for create MWIN_CREATE_FD_OWNED and
 *	MWIN_WINDOW_QUIET
 * @id: create: out, new window id; rebind: in, window id
 * @region: create: in, region id; rebind: must be 0 (a window stays in its
 *	region)
 * @peer: in, peer the window is granted to; for rebind 0 (with @tenant
 *	0) keeps the current grantee, peer or tenant
 * @access: in, MWIN_ACCESS_* rights, at least one
 * @offset: in, first byte of the window in the region, any alignment
 * @length: in, bytes, at least 1
 * @rkey: out, the rkey the peer uses; valid once the call returns
 * @tenant: in, instead of @peer: the tenant the window is granted to. Its
 *	MR is registered in the tenant's protection domain on the device of
 *	one of its connections, so the rkey works through every connection
 *	of the tenant on that device and through no other; each of them is
 *	sent the grant. See "Tenants" in Documentation/mwin.rst.
 * @iova: out, the remote address of the window's first byte (its offset
 *	in the region)
 * @expires_ms: in, the lease of the grant: the module revokes it by
 *	itself @expires_ms milliseconds after the call bound it (a create:
 *	after its id was returned, however short the lease; revoke
 *	reason MWIN_REVOKE_EXPIRED), unless renewed (MWIN_WINDOW_RENEW);
 *	0: no lease, the grant lasts until revoked. Each bind sets the lease
 *	anew: a rebind without one ends the old one. See "Leases" in
 *	Documentation/mwin.rst. Callers of the first version
 *	(MWIN_WINDOW_BIND_SIZE_VER0 bytes) pass none
 * @__reserved: must be 0
 *
 * A rebind invalidates the current rkey before the new one is registered:
 * when the call returns the old rkey is dead, whatever the result, unless
 * the call was refused by its checks (ENOENT, ERANGE, EBUSY, E2BIG,
 * EOPNOTSUPP, EACCES, ENOTCONN, EAGAIN, EINTR): then nothing changed. A failed rebind keeps
 * the window's old range. A failed create leaves nothing behind.
 *
 * Errors: EINVAL (both @peer and @tenant); ENOENT (region, peer, tenant
 * or window; a tenant is seen only by its owner and CAP_SYS_ADMIN);
 * ERANGE (the range leaves the
 * region); EBUSY (overlaps another window of the region, without
 * MWIN_WINDOW_OVERLAP); E2BIG (larger than the device can map, see
 * &struct mwin_dev_info.max_window_bytes); ENOTCONN (the peer is gone, a
 * tenant without a connection, or a rebind with peer 0 of a window that has none); EDQUOT
 * (the tenant, or the peer's, has its max_windows windows bound, or the
 * window would take it past its max_bytes; a rebind to another grantee
 * has revoked the old rkey by then, and the window is unbound); EOPNOTSUPP (the device
 * lacks fast registration, or atomics for MWIN_ACCESS_ATOMIC); EACCES
 * (MWIN_ACCESS_WRITE or MWIN_ACCESS_ATOMIC in a region made
 * MWIN_REGION_READ_ONLY: nothing changed); EPERM (a
 * tenant's peer, and the caller neither owns the tenant nor has
 * CAP_SYS_ADMIN: nothing changed; such a caller does not see the tenant
 * itself: ENOENT); ENOSPC
 * (window limit, or a caller without CAP_SYS_ADMIN whose user holds half
 * of it already); EIO; ECONNABORTED (the operation did not complete in
 * time, the post failed or a registering caller was killed: the peer was
 * cut off, every rkey it held is dead); ETIMEDOUT (cut off, and the device
 * did not even flush: the window is broken); EAGAIN (a rebind of a window
 * whose peer is being torn down, when the teardown did not end within
 * op_timeout_ms); EINTR (killed while waiting).
 */
struct mwin_window_bind {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 region;
	__u32 peer;
	__u32 access;
	__aligned_u64 offset;
	__aligned_u64 length;
	__u32 rkey;
	__u32 tenant;
	__aligned_u64 iova;
	__u32 expires_ms;
	__u32 __reserved;
};

/* The first version of struct mwin_window_bind, up to @iova. */
#define MWIN_WINDOW_BIND_SIZE_VER0	56

/**
 * enum mwin_window_state - what a window's rkey can do
 * @MWIN_WINDOW_BOUND: the rkey grants the window's rights to its peer
 * @MWIN_WINDOW_INVALIDATED: invalidated locally or by the peer; the range,
 *	rights and peer are kept for a rebind
 * @MWIN_WINDOW_UNBOUND: the peer is gone; rebind names a new peer
 * @MWIN_WINDOW_BROKEN: the device did not complete an operation in time;
 *	the window is reclaimed when its peer's connection is torn down and
 *	can only be destroyed
 */
enum mwin_window_state {
	MWIN_WINDOW_BOUND = 1,
	MWIN_WINDOW_INVALIDATED = 2,
	MWIN_WINDOW_UNBOUND = 3,
	MWIN_WINDOW_BROKEN = 4,
};

/**
 * struct mwin_window_info - MWIN_WINDOW_GET: one window
 * @size: sizeof(struct mwin_window_info)
 * @flags: MWIN_GET_NEXT or 0
 * @id: in, window id (or where to start with MWIN_GET_NEXT); out, its id
 * @region: out, region id
 * @peer: out, peer id, 0 when unbound; for a window granted to a tenant,
 *	the connection of the tenant whose QP carries the window's work
 *	requests, 0 while the tenant has none on the window's device
 * @state: out, enum mwin_window_state
 * @access: out, MWIN_ACCESS_* rights
 * @rkey: out, current rkey (meaningful when bound)
 * @offset: out, first byte in the region
 * @length: out, bytes
 * @iova: out, remote address of the first byte
 * @binds: out, successful registrations
 * @invalidations: out, local invalidations
 * @remote_invalidations: out, invalidations by the peer
 *	(Send-with-Invalidate)
 * @wflags: out, MWIN_WINDOW_OVERLAP, MWIN_CREATE_FD_OWNED and
 *	MWIN_WINDOW_QUIET as created
 * @tenant: out, the tenant the window is granted to, 0 for a window
 *	granted to one peer (or to nobody)
 * @expires_ns: out, when its lease runs out: CLOCK_MONOTONIC
 *	nanoseconds, as clock_gettime() reads them; 0 for a window without a
 *	lease (its last one ran out, was ended, or it never had one)
 */
struct mwin_window_info {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 region;
	__u32 peer;
	__u32 state;
	__u32 access;
	__u32 rkey;
	__aligned_u64 offset;
	__aligned_u64 length;
	__aligned_u64 iova;
	__aligned_u64 binds;
	__aligned_u64 invalidations;
	__aligned_u64 remote_invalidations;
	__u32 wflags;
	__u32 tenant;
	__aligned_u64 expires_ns;
};

/* The first version of struct mwin_window_info, up to @tenant. */
#define MWIN_WINDOW_INFO_SIZE_VER0	88

/**
 * struct mwin_window_renew - MWIN_WINDOW_RENEW: push a lease back
 * @size: sizeof(struct mwin_window_renew)
 * @flags: must be 0
 * @id: in, window id
 * @expires_ms: in, the lease now ends this many milliseconds from the
 *	call, at least 1; earlier or later than before
 * @expires_ns: out, the new end, CLOCK_MONOTONIC nanoseconds
 *
 * The window's grantees are sent its grant again, same rkey, with the new
 * lease (a window without a lease gets one). A renew and the expiry of
 * the same lease are ordered by the window: the renew either comes first
 * and the rkey lives on, or finds the lease ended (ETIME) and the rkey
 * dead; never both, never a renewed rkey that dies of the old lease.
 *
 * Errors: EINVAL (@expires_ms 0, flags, reserved), ENOENT (no such window;
 * a one-shot window whose lease ran out is destroyed by then), ETIME (its
 * lease ran out: the rkey is dead; rebind it for a new grant), ESTALE (it
 * has no live grant: invalidated, handed back, unbound, or never bound
 * since its last expiry), EIO (broken), EINTR (killed while waiting for
 * the window). A window granted to a tenant that waits for its next
 * connection (see &struct mwin_window_bind.tenant) may be renewed.
 */
struct mwin_window_renew {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 expires_ms;
	__aligned_u64 expires_ns;
};

/**
 * struct mwin_region_info - MWIN_REGION_GET: one region
 * @size: sizeof(struct mwin_region_info)
 * @flags: MWIN_GET_NEXT or 0
 * @id: in/out, as for &struct mwin_window_info
 * @nr_windows: out, windows cut from the region
 * @length: out, bytes
 * @mmap_offset: out, mmap() offset on /dev/mwin (a user region's fails
 *	with ENODEV)
 * @rflags: out, MWIN_CREATE_FD_OWNED, MWIN_REGION_NEAR_DEV and
 *	MWIN_REGION_READ_ONLY as created
 * @node: out, the NUMA node its pages were allocated on when created
 *	MWIN_REGION_NEAR_DEV; -1 when created without it or when the
 *	device's node is not known. In: must be 0 (it was a reserved field)
 * @kind: out, enum mwin_region_kind
 * @pid: out, user and file kinds: the process that made the region (for
 *	the user kind, whose memory it pins), as the caller's PID namespace
 *	numbers it; 0 once that process has exited, when the caller's
 *	namespace does not see it, and for the module kind
 * @addr: out, user kind: the address of the region's first byte in that
 *	process (where it was when pinned); file kind: its offset in the
 *	file; 0 for the module kind
 *
 * @kind, @pid and @addr are in: must be 0 (callers of the first version,
 * MWIN_REGION_INFO_SIZE_VER0 bytes, do not pass them).
 */
struct mwin_region_info {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 nr_windows;
	__aligned_u64 length;
	__aligned_u64 mmap_offset;
	__u32 rflags;
	__s32 node;
	__u32 kind;
	__s32 pid;
	__aligned_u64 addr;
};

/* The first version of struct mwin_region_info, up to @node. */
#define MWIN_REGION_INFO_SIZE_VER0	40

/**
 * enum mwin_peer_state - connection state of a peer
 * @MWIN_PEER_CONNECTING: accepted, not yet established (on iWARP: or
 *	its first SEND not yet come, see Documentation/wire.rst)
 * @MWIN_PEER_CONNECTED: established; windows can be granted
 * @MWIN_PEER_CLOSING: being torn down; its windows are being unbound
 * @MWIN_PEER_AUTHENTICATING: no longer used: a peer of a tenant with a
 *	key proves it in its connect request (wire version 4)
 */
enum mwin_peer_state {
	MWIN_PEER_CONNECTING = 1,
	MWIN_PEER_CONNECTED = 2,
	MWIN_PEER_CLOSING = 3,
	MWIN_PEER_AUTHENTICATING = 4,
};

/* The first version of struct mwin_peer_info, up to @rejected_invalidations. */
#define MWIN_PEER_INFO_SIZE_VER0	248

/**
 * struct mwin_peer_info - MWIN_PEER_GET: one peer
 * @size: sizeof(struct mwin_peer_info)
 * @flags: MWIN_GET_NEXT, MWIN_GET_GONE, both or 0
 * @id: in/out, as for &struct mwin_window_info
 * @state: out, enum mwin_peer_state (MWIN_PEER_CLOSING for a gone one)
 * @qpn: out, the module's QP number for this peer
 * @nr_windows: out, windows granted to the peer
 * @dev_name: out, RDMA device, NUL-terminated
 * @addr: out, the peer's address, a struct sockaddr_in or sockaddr_in6
 * @msgs_sent: out, grant and revoke messages sent
 * @msgs_received: out, messages received from the peer
 * @remote_invalidations: out, windows the peer invalidated
 * @rejected_invalidations: out, Send-with-Invalidate naming an rkey that
 *	is not the peer's (the peer is disconnected for it)
 * @tenant: out, the tenant the peer connected as, 0 for an anonymous peer
 * @down_reason: out, with MWIN_GET_GONE: why it went, enum
 *	mwin_down_reason; 0 for a live peer
 */
struct mwin_peer_info {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 state;
	__u32 qpn;
	__u32 nr_windows;
	char dev_name[64];
	__u8 addr[128];
	__aligned_u64 msgs_sent;
	__aligned_u64 msgs_received;
	__aligned_u64 remote_invalidations;
	__aligned_u64 rejected_invalidations;
	__u32 tenant;
	__u32 down_reason;
};

/**
 * enum mwin_down_reason - why the module let a peer go, the first reason
 *	found (MWIN_EVENT_PEER_DOWN, struct mwin_stats.downs)
 * @MWIN_DOWN_DISCONNECT: the peer, or the RDMA CM, closed the connection
 * @MWIN_DOWN_QP_ERROR: a request on its QP failed: a remote access error
 *	of the peer's, most often (reported by a failed completion or by
 *	IB_EVENT_QP_ACCESS_ERR), or transport retries exhausted
 * @MWIN_DOWN_KEEPALIVE: it did not acknowledge a keepalive
 * @MWIN_DOWN_CUT_OFF: a revoke did not complete in time: its QP was moved
 *	to the error state (see revoke_timeout_ms)
 * @MWIN_DOWN_OPERATOR: MWIN_PEER_DISCONNECT
 * @MWIN_DOWN_DEVICE: its RDMA device went away
 * @MWIN_DOWN_HOSTILE: it invalidated an rkey that is not its own
 * @MWIN_DOWN_NO_MESSAGES: it took its messages too slowly: one waited
 *	op_timeout_ms to be sent, or 1024 waited
 * @MWIN_DOWN_BAD_PROOF: no longer used (version 3's proof SEND)
 * @MWIN_DOWN_NO_PROOF: no longer used (version 3's proof SEND)
 * @MWIN_DOWN_TENANT: its tenant was destroyed
 * @MWIN_DOWN_UNLOAD: the module is being unloaded
 * @MWIN_DOWN_QP_EVENT: the device reported a fatal asynchronous event on
 *	its QP (IB_EVENT_QP_FATAL, IB_EVENT_QP_REQ_ERR; IB_EVENT_QP_ACCESS_ERR
 *	is MWIN_DOWN_QP_ERROR)
 * @MWIN_DOWN_REG_QP: a window operation failed on its registration QP, or
 *	the device reported an event there: something was sent to that QP,
 *	which takes nothing from the network. Its QPs were moved to the error
 *	state before the revoking call that found it returned. On iWARP,
 *	whose window operations go on the connected QP, such a failure is
 *	MWIN_DOWN_QP_ERROR
 * @MWIN_DOWN_HANDSHAKE: it was not established (no RTU; on iWARP, no
 *	first SEND) within auth_timeout_ms of its connect request, or when
 *	its handshake ended (established) the module, the anonymous peers or
 *	its tenant had no connection slot left (see
 *	struct mwin_stats.rejects for which)
 */
enum mwin_down_reason {
	MWIN_DOWN_DISCONNECT = 1,
	MWIN_DOWN_QP_ERROR = 2,
	MWIN_DOWN_KEEPALIVE = 3,
	MWIN_DOWN_CUT_OFF = 4,
	MWIN_DOWN_OPERATOR = 5,
	MWIN_DOWN_DEVICE = 6,
	MWIN_DOWN_HOSTILE = 7,
	MWIN_DOWN_NO_MESSAGES = 8,
	MWIN_DOWN_BAD_PROOF = 9,
	MWIN_DOWN_NO_PROOF = 10,
	MWIN_DOWN_TENANT = 11,
	MWIN_DOWN_UNLOAD = 12,
	MWIN_DOWN_QP_EVENT = 13,
	MWIN_DOWN_REG_QP = 14,
	MWIN_DOWN_HANDSHAKE = 15,
};

/* Entries of struct mwin_stats.downs: enum mwin_down_reason, 0 unused. */
#define MWIN_DOWN_SLOTS		16

/**
 * enum mwin_stat - the counters of MWIN_STATS, each an index of
 *	struct mwin_stats.stats
 * @MWIN_STAT_GRANTS: binds: rkeys registered and handed out
 * @MWIN_STAT_REVOKES: rkeys the module killed: invalidate, rebind,
 *	destroy, a failed operation, a grantee's last connection gone
 * @MWIN_STAT_REMOTE_INVALIDATIONS: rkeys handed back by their peers
 *	(Send-with-Invalidate)
 * @MWIN_STAT_ATTACKS: Send-with-Invalidate of an rkey not the sender's
 * @MWIN_STAT_ACCESS_ERRORS: connections that ended because a request
 *	failed (MWIN_DOWN_QP_ERROR)
 * @MWIN_STAT_CUT_OFFS: QPs moved to error because a revoke did not
 *	complete within revoke_timeout_ms
 * @MWIN_STAT_TIMEOUTS: window operations (chains) that did not complete
 *	in time: revoke_timeout_ms for a revoke, op_timeout_ms otherwise
 * @MWIN_STAT_KEYS_SPENT: key bytes drawn, one per bind; an MR has 256
 * @MWIN_STAT_MR_REPLACEMENTS: MRs registered for windows that had one
 *	(all its keys spent, a larger or other range, another PD)
 * @MWIN_STAT_QP_EVENTS: asynchronous events the device reported on the
 *	module's QPs
 * @MWIN_STAT_QP_ACCESS_ERRORS: of those, IB_EVENT_QP_ACCESS_ERR: a
 *	request of the peer's broke the rules of an rkey
 * @MWIN_STAT_MSGS_SENT: grant and revoke messages sent
 * @MWIN_STAT_MSGS_RECEIVED: messages received from peers
 * @MWIN_STAT_EXPIRIES: leases that ran out (their rkeys revoked with
 *	reason MWIN_REVOKE_EXPIRED, counted for the peer that carried the
 *	window; or a tenant's window waiting for a connection that waits no
 *	more, counted for the tenant and the module alone: it has no peer)
 * @MWIN_NR_STATS: the number of counters this header knows
 */
enum mwin_stat {
	MWIN_STAT_GRANTS,
	MWIN_STAT_REVOKES,
	MWIN_STAT_REMOTE_INVALIDATIONS,
	MWIN_STAT_ATTACKS,
	MWIN_STAT_ACCESS_ERRORS,
	MWIN_STAT_CUT_OFFS,
	MWIN_STAT_TIMEOUTS,
	MWIN_STAT_KEYS_SPENT,
	MWIN_STAT_MR_REPLACEMENTS,
	MWIN_STAT_QP_EVENTS,
	MWIN_STAT_QP_ACCESS_ERRORS,
	MWIN_STAT_MSGS_SENT,
	MWIN_STAT_MSGS_RECEIVED,
	MWIN_STAT_EXPIRIES,
	MWIN_NR_STATS
};

/* Entries of struct mwin_stats.stats: room for counters to come. */
#define MWIN_STATS_MAX		32

/**
 * enum mwin_stats_scope - whose counters MWIN_STATS reads
 * @MWIN_STATS_MODULE: the module's, since it was loaded (@id 0)
 * @MWIN_STATS_PEER: peer @id's, since it connected
 * @MWIN_STATS_TENANT: tenant @id's, since it was made
 */
enum mwin_stats_scope {
	MWIN_STATS_MODULE = 1,
	MWIN_STATS_PEER = 2,
	MWIN_STATS_TENANT = 3,
};

/**
 * struct mwin_stats - MWIN_STATS: counters of the module, a peer or a tenant
 * @size: sizeof(struct mwin_stats)
 * @flags: must be 0
 * @scope: in, enum mwin_stats_scope
 * @id: in, the peer or tenant; 0 for the module
 * @nr_stats: out, the entries of @stats the module fills: MWIN_NR_STATS
 *	of its uAPI header (those past it are 0)
 * @__reserved: must be 0
 * @stats: out, by enum mwin_stat
 * @downs: out, peers that went, by enum mwin_down_reason (module and
 *	tenant; for a peer, 0)
 * @rejects: out, refused connection attempts by enum
 *	mwin_wire_reject_reason (module: all, tenant: those naming it; for a
 *	peer, 0)
 *
 * Errors: EINVAL (bad @flags, @scope, @id 0 for a peer or tenant, @id not 0
 * for the module), ENOENT (no such peer, or a tenant the caller may not
 * see). Anyone who may open /dev/mwin reads the module's and any peer's.
 */
struct mwin_stats {
	__u32 size;
	__u32 flags;
	__u32 scope;
	__u32 id;
	__u32 nr_stats;
	__u32 __reserved;
	__aligned_u64 stats[MWIN_STATS_MAX];
	__aligned_u64 downs[MWIN_DOWN_SLOTS];
	__aligned_u64 rejects[MWIN_REJECT_SLOTS];
};

/**
 * enum mwin_event_type - what a struct mwin_event reports
 * @MWIN_EVENT_PEER_UP: a peer connected (@peer)
 * @MWIN_EVENT_PEER_DOWN: a peer is gone (@peer); its windows are unbound
 * @MWIN_EVENT_GRANT: window @window was granted to @peer with @rkey;
 *	@reason is its lease in milliseconds, 0 for none. A renewal
 *	(MWIN_WINDOW_RENEW) is a grant of the same rkey with the new lease
 * @MWIN_EVENT_REVOKE: @rkey of window @window is dead; @reason is an
 *	enum mwin_wire_reason
 * @MWIN_EVENT_REMOTE_INVALIDATE: @peer invalidated its own @rkey of window
 *	@window with Send-with-Invalidate
 * @MWIN_EVENT_REJECTED_INVALIDATE: @peer invalidated @rkey, not its own:
 *	it is disconnected; when @rkey was window @window's live rkey, a
 *	REVOKE (reason MWIN_REVOKE_REMOTE) to the window's peer precedes it
 * @MWIN_EVENT_LOST: the reader was too slow; @rkey events were dropped
 */
enum mwin_event_type {
	MWIN_EVENT_PEER_UP = 1,
	MWIN_EVENT_PEER_DOWN = 2,
	MWIN_EVENT_GRANT = 3,
	MWIN_EVENT_REVOKE = 4,
	MWIN_EVENT_REMOTE_INVALIDATE = 5,
	MWIN_EVENT_REJECTED_INVALIDATE = 6,
	MWIN_EVENT_LOST = 7,
};

/**
 * struct mwin_event - one event, as read() from /dev/mwin after MWIN_MONITOR
 * @size: sizeof(struct mwin_event); a reader skips @size bytes per record
 * @type: enum mwin_event_type
 * @window: window id, or 0
 * @peer: peer id, or 0
 * @rkey: the rkey concerned (for MWIN_EVENT_LOST: events dropped)
 * @reason: MWIN_EVENT_REVOKE: enum mwin_wire_reason; MWIN_EVENT_PEER_DOWN:
 *	enum mwin_down_reason; MWIN_EVENT_GRANT: the lease in milliseconds,
 *	0 for none; else 0
 * @__reserved: 0
 * @seq: event number on this file descriptor, from 1
 * @time_ns: CLOCK_MONOTONIC time of the event
 *
 * read() returns whole records (EINVAL if the buffer holds none, or the
 * file is not a monitor), blocks until one is queued unless O_NONBLOCK
 * (then EAGAIN); poll() reports POLLIN. Up to 4096 records are queued per
 * file descriptor.
 */
struct mwin_event {
	__u32 size;
	__u32 type;
	__u32 window;
	__u32 peer;
	__u32 rkey;
	__u32 reason;
	__aligned_u64 seq;
	__aligned_u64 time_ns;
};

/**
 * struct mwin_monitor - MWIN_MONITOR: start queueing events for this file
 * @size: sizeof(struct mwin_monitor)
 * @flags: must be 0
 *
 * The file gets every peer event, and the events about the windows the
 * caller of MWIN_MONITOR may see (all of them with CAP_SYS_ADMIN). It
 * counts against its opener's user, root's too, until the file is
 * closed: one user may hold the module parameter max_monitors monitors
 * at once (8 by default, 0 for no limit). Calling it again on a monitor
 * does nothing and returns 0. The ring (160 KiB) is charged to the
 * caller's memory cgroup.
 *
 * Errors: EINVAL (@flags); EMFILE (the opener's user holds max_monitors
 * monitors already: the file stays no monitor); ENOMEM.
 */
struct mwin_monitor {
	__u32 size;
	__u32 flags;
};

/**
 * enum mwin_batch_opcode - what one entry of a batch does
 * @MWIN_BATCH_CREATE: WINDOW_CREATE
 * @MWIN_BATCH_REBIND: WINDOW_REBIND
 * @MWIN_BATCH_INVALIDATE: WINDOW_INVALIDATE
 * @MWIN_BATCH_DESTROY: WINDOW_DESTROY
 */
enum mwin_batch_opcode {
	MWIN_BATCH_CREATE = 1,
	MWIN_BATCH_REBIND = 2,
	MWIN_BATCH_INVALIDATE = 3,
	MWIN_BATCH_DESTROY = 4,
};

/**
 * struct mwin_batch_op - one window operation of MWIN_WINDOW_BATCH
 * @opcode: enum mwin_batch_opcode
 * @flags: as for the single call (create: MWIN_WINDOW_OVERLAP,
 *	MWIN_CREATE_FD_OWNED, MWIN_WINDOW_QUIET; rebind: MWIN_WINDOW_OVERLAP;
 *	else 0)
 * @id: window id; for create: out
 * @region: create: region id; else 0
 * @peer: create, rebind: as for &struct mwin_window_bind; else 0
 * @access: create, rebind: MWIN_ACCESS_* rights; else 0
 * @offset: create, rebind: first byte; else 0
 * @length: create, rebind: bytes; else 0
 * @rkey: out, the new rkey (create, rebind)
 * @result: out, 0 or the negative errno the single call would return
 * @iova: out, the new iova (create, rebind)
 * @expires_ms: create, rebind: the lease, as &struct
 *	mwin_window_bind.expires_ms; else 0. Entries of the first version
 *	(56 bytes) have none
 * @tenant: create, rebind: instead of @peer, the tenant the window is
 *	granted to, as &struct mwin_window_bind.tenant (same checks, same
 *	errors: EINVAL with @peer too); else 0. Entries of the first version
 *	have none; in entries of 64 bytes made before it was added, this was
 *	a reserved field that had to be 0: no tenant
 */
struct mwin_batch_op {
	__u32 opcode;
	__u32 flags;
	__u32 id;
	__u32 region;
	__u32 peer;
	__u32 access;
	__aligned_u64 offset;
	__aligned_u64 length;
	__u32 rkey;
	__s32 result;
	__aligned_u64 iova;
	__u32 expires_ms;
	__u32 tenant;
};

/* The first version of struct mwin_batch_op, up to @iova. */
#define MWIN_BATCH_OP_SIZE_VER0		56

/**
 * struct mwin_window_batch - MWIN_WINDOW_BATCH: many window operations
 * @size: sizeof(struct mwin_window_batch)
 * @flags: must be 0
 * @count: in, entries in @ops, at most MWIN_BATCH_MAX
 * @op_size: in, sizeof(struct mwin_batch_op) as the caller knows it; at
 *	least MWIN_BATCH_OP_SIZE_VER0, at most 4096
 * @ops: in, pointer to the array of operations; results written back
 * @failed: out, entries whose @result is not 0
 * @__reserved: must be 0
 *
 * Entries are checked, then carried out in order, any mix of operations
 * and peers; the work requests for each peer go out as one chain with one
 * signaled completion. Each entry gets its own result, as if made by the
 * single call: a bad entry fails alone (EINVAL, ENOENT, ...), and a device
 * failure fails the entries of that peer that were in flight. A window may
 * appear only once per batch (EINVAL for later entries naming it).
 * The call itself fails only when the batch cannot be read (EINVAL for a
 * bad @count, @op_size or flag; E2BIG for an entry larger than the
 * module's with a non-zero tail; EFAULT; ENOMEM); then no entry was
 * carried out. EFAULT while writing the results back comes after the
 * entries were carried out, except creates: as a single create, a
 * window made by the batch becomes visible (its id, its grant, its lease)
 * only once every result reached the caller, and is destroyed, nobody
 * told, when they could not be written.
 */
struct mwin_window_batch {
	__u32 size;
	__u32 flags;
	__u32 count;
	__u32 op_size;
	__aligned_u64 ops;
	__u32 failed;
	__u32 __reserved;
};

#define MWIN_BATCH_MAX		256

/* A tenant's name: 1 to MWIN_TENANT_NAME_MAX - 1 bytes of [A-Za-z0-9._-]. */
#define MWIN_TENANT_NAME_MAX	24
/* A tenant's key: MWIN_TENANT_KEY_MIN to MWIN_TENANT_KEY_MAX bytes. */
#define MWIN_TENANT_KEY_MIN	16
#define MWIN_TENANT_KEY_MAX	64
/* Address prefixes a tenant may connect from. */
#define MWIN_TENANT_ALLOW_MAX	8

/**
 * struct mwin_tenant_net - an address prefix a tenant may connect from
 * @family: 4 (IPv4: @addr[0..3]) or 6 (IPv6: @addr[0..15])
 * @prefix_len: leading bits of @addr that must match: 0 to 32, or 0 to 128
 * @__reserved: must be 0
 * @addr: the address, network byte order; bits past @prefix_len and
 *	bytes past the family's length must be 0
 *
 * An IPv4 peer that connects over IPv6 (an IPv4-mapped address,
 * ::ffff:a.b.c.d) matches IPv4 prefixes.
 */
struct mwin_tenant_net {
	__u8 family;
	__u8 prefix_len;
	__u8 __reserved[2];
	__u8 addr[16];
};

/**
 * enum mwin_tenant_set - TENANT_SET: the fields to change
 * @MWIN_TENANT_SET_KEY: @key and @key_len (a @key_len of 0 removes the key)
 * @MWIN_TENANT_SET_ALLOW: @allow and @nr_allow
 * @MWIN_TENANT_SET_MAX_CONNS: @max_conns
 * @MWIN_TENANT_SET_MAX_WINDOWS: @max_windows
 * @MWIN_TENANT_SET_OWNER: @owner
 * @MWIN_TENANT_SET_MAX_BYTES: @max_bytes
 *
 * A change applies to connections made after it; live connections keep
 * what they were admitted with (TENANT_DESTROY or PEER_DISCONNECT ends
 * them). A lower @max_windows or @max_bytes applies to binds after it;
 * windows bound already stay.
 */
enum mwin_tenant_set {
	MWIN_TENANT_SET_KEY = 1 << 0,
	MWIN_TENANT_SET_ALLOW = 1 << 1,
	MWIN_TENANT_SET_MAX_CONNS = 1 << 2,
	MWIN_TENANT_SET_MAX_WINDOWS = 1 << 3,
	MWIN_TENANT_SET_OWNER = 1 << 4,
	MWIN_TENANT_SET_MAX_BYTES = 1 << 5,
};

/* @owner of a tenant that no local user owns */
#define MWIN_NO_OWNER		0xffffffffU

/* The first version of struct mwin_tenant_info, up to @rejects. */
#define MWIN_TENANT_INFO_SIZE_VER0	424

/**
 * struct mwin_tenant_info - MWIN_TENANT_CREATE, MWIN_TENANT_SET, MWIN_TENANT_GET
 * @size: sizeof(struct mwin_tenant_info)
 * @flags: CREATE: 0; SET: enum mwin_tenant_set bits, at least one; GET:
 *	MWIN_GET_NEXT or 0
 * @id: CREATE: out; SET: in; GET: in/out, as for &struct mwin_window_info
 * @owner: in (CREATE, SET) / out (GET): the uid (in the caller's user
 *	namespace) that owns the tenant, or MWIN_NO_OWNER
 * @name: CREATE: in; GET: out; SET: ignored. Unique among tenants.
 *	NUL-terminated; NUL-padded to the end
 * @key_len: CREATE, SET: in, bytes of @key, 0 for a tenant without a key
 *	(its peers are admitted by name and address alone); GET: out, the
 *	same, the key itself is never returned
 * @nr_allow: in (CREATE, SET) / out (GET): entries of @allow in use; 0:
 *	any address
 * @key: CREATE, SET: in, the key; GET: zeros
 * @allow: in / out: the prefixes a peer of this tenant may connect from
 * @max_conns: in / out: connections the tenant may have at once, 1 to the
 *	module's max_peers; 0 (CREATE, SET): max_peers
 * @max_windows: in / out: windows bound to the tenant or its peers at
 *	once (0: no limit but the module's); a create or rebind past it fails
 *	with EDQUOT
 * @nr_conns: out: its connections now, those whose handshake is over
 *	(established); connections still in their
 *	handshake are counted apart (their own quota, as many as
 *	@max_conns) and never take one of these slots
 * @nr_windows: out: windows bound to it or to its peers now
 * @connects: out: connections whose handshake ended with a slot, since
 *	the tenant was created
 * @rejects: out: connection attempts naming this tenant that were refused,
 *	by enum mwin_wire_reject_reason (index 0 unused)
 * @grants: out: grants of its windows: each bind of a window granted to
 *	the tenant or to one of its peers (not each message)
 * @revokes: out: revokes of its windows' rkeys: invalidate, rebind,
 *	destroy, failed operations, and the rkeys that died with its last
 *	connection on a device
 * @remote_invalidations: out: rkeys its peers handed back
 *	(Send-with-Invalidate)
 * @access_errors: out: its connections that ended because a request
 *	failed (a remote access error, most often)
 * @bytes_granted: out: bytes of the windows bound to it or to its peers
 *	now (those waiting for its next connection not counted)
 * @max_bytes: in / out: the most @bytes_granted may be (0: no limit); a
 *	create or rebind past it fails with EDQUOT. Callers of the first
 *	version (MWIN_TENANT_INFO_SIZE_VER0 bytes) pass none: 0
 *
 * Errors: EPERM (CREATE, SET without CAP_SYS_ADMIN), EEXIST (CREATE: the
 * name is taken), EINVAL (a name that is empty, too long, not
 * NUL-terminated or with other bytes; a key of another length; a bad
 * prefix; @nr_allow over MWIN_TENANT_ALLOW_MAX; @max_conns over
 * max_peers; an owner uid that does not map), ENOSPC (CREATE: the module
 * has MWIN_TENANT_MAX tenants).
 */
struct mwin_tenant_info {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 owner;
	char name[MWIN_TENANT_NAME_MAX];
	__u32 key_len;
	__u32 nr_allow;
	__u8 key[MWIN_TENANT_KEY_MAX];
	struct mwin_tenant_net allow[MWIN_TENANT_ALLOW_MAX];
	__u32 max_conns;
	__u32 max_windows;
	__u32 nr_conns;
	__u32 nr_windows;
	__aligned_u64 connects;
	__aligned_u64 rejects[MWIN_REJECT_SLOTS];
	__aligned_u64 grants;
	__aligned_u64 revokes;
	__aligned_u64 remote_invalidations;
	__aligned_u64 access_errors;
	__aligned_u64 bytes_granted;
	__aligned_u64 max_bytes;
};

/* The most tenants the module keeps. */
#define MWIN_TENANT_MAX		1024

#define MWIN_IOCTL_MAGIC	0xEA

enum {
	MWIN_CMD_INFO = 0x00,
	MWIN_CMD_REGION_CREATE,
	MWIN_CMD_REGION_DESTROY,
	MWIN_CMD_REGION_GET,
	MWIN_CMD_WINDOW_CREATE,
	MWIN_CMD_WINDOW_REBIND,
	MWIN_CMD_WINDOW_INVALIDATE,
	MWIN_CMD_WINDOW_DESTROY,
	MWIN_CMD_WINDOW_GET,
	MWIN_CMD_PEER_GET,
	MWIN_CMD_PEER_DISCONNECT,
	MWIN_CMD_MONITOR,
	MWIN_CMD_WINDOW_BATCH,
	MWIN_CMD_TENANT_CREATE,
	MWIN_CMD_TENANT_SET,
	MWIN_CMD_TENANT_GET,
	MWIN_CMD_TENANT_DESTROY,
	MWIN_CMD_STATS,
	MWIN_CMD_WINDOW_RENEW,
};

/*
 * Commands 0x00-0x1f of magic 0xEA. The size encoded in the number is that
 * of the first version of each struct, and stays so: for the structs that
 * grew since, MWIN_*_SIZE_VER0. The module accepts
 * each number exactly as defined here (type, number, direction and encoded
 * size; any other fails with ENOTTY) and reads the real size from the
 * struct's first field, so that structs can grow.
 */
#define MWIN_INFO		_IOC(_IOC_READ | _IOC_WRITE, MWIN_IOCTL_MAGIC, \
				     MWIN_CMD_INFO, MWIN_INFO_SIZE_VER0)
#define MWIN_REGION_CREATE	_IOC(_IOC_READ | _IOC_WRITE, MWIN_IOCTL_MAGIC, \
				     MWIN_CMD_REGION_CREATE, \
				     MWIN_REGION_CREATE_SIZE_VER0)
#define MWIN_REGION_DESTROY	_IOWR(MWIN_IOCTL_MAGIC, MWIN_CMD_REGION_DESTROY, \
				     struct mwin_destroy)
#define MWIN_REGION_GET		_IOC(_IOC_READ | _IOC_WRITE, MWIN_IOCTL_MAGIC, \
				     MWIN_CMD_REGION_GET, MWIN_REGION_INFO_SIZE_VER0)
#define MWIN_WINDOW_CREATE	_IOC(_IOC_READ | _IOC_WRITE, MWIN_IOCTL_MAGIC, \
				     MWIN_CMD_WINDOW_CREATE, MWIN_WINDOW_BIND_SIZE_VER0)
#define MWIN_WINDOW_REBIND	_IOC(_IOC_READ | _IOC_WRITE, MWIN_IOCTL_MAGIC, \
				     MWIN_CMD_WINDOW_REBIND, MWIN_WINDOW_BIND_SIZE_VER0)
#define MWIN_WINDOW_INVALIDATE	_IOWR(MWIN_IOCTL_MAGIC, MWIN_CMD_WINDOW_INVALIDATE, \
				     struct mwin_destroy)
#define MWIN_WINDOW_DESTROY	_IOWR(MWIN_IOCTL_MAGIC, MWIN_CMD_WINDOW_DESTROY, \
				     struct mwin_destroy)
#define MWIN_WINDOW_GET		_IOC(_IOC_READ | _IOC_WRITE, MWIN_IOCTL_MAGIC, \
				     MWIN_CMD_WINDOW_GET, MWIN_WINDOW_INFO_SIZE_VER0)
#define MWIN_PEER_GET		_IOC(_IOC_READ | _IOC_WRITE, MWIN_IOCTL_MAGIC, \
				     MWIN_CMD_PEER_GET, MWIN_PEER_INFO_SIZE_VER0)
#define MWIN_PEER_DISCONNECT	_IOWR(MWIN_IOCTL_MAGIC, MWIN_CMD_PEER_DISCONNECT, \
				     struct mwin_destroy)
#define MWIN_MONITOR		_IOWR(MWIN_IOCTL_MAGIC, MWIN_CMD_MONITOR, \
				     struct mwin_monitor)
#define MWIN_WINDOW_BATCH	_IOWR(MWIN_IOCTL_MAGIC, MWIN_CMD_WINDOW_BATCH, \
				     struct mwin_window_batch)
#define MWIN_TENANT_CREATE	_IOC(_IOC_READ | _IOC_WRITE, MWIN_IOCTL_MAGIC, \
				     MWIN_CMD_TENANT_CREATE, MWIN_TENANT_INFO_SIZE_VER0)
#define MWIN_TENANT_SET		_IOC(_IOC_READ | _IOC_WRITE, MWIN_IOCTL_MAGIC, \
				     MWIN_CMD_TENANT_SET, MWIN_TENANT_INFO_SIZE_VER0)
#define MWIN_TENANT_GET		_IOC(_IOC_READ | _IOC_WRITE, MWIN_IOCTL_MAGIC, \
				     MWIN_CMD_TENANT_GET, MWIN_TENANT_INFO_SIZE_VER0)
/*
 * TENANT_DESTROY (CAP_SYS_ADMIN) disconnects the tenant's peers, which
 * unbinds their windows, and frees the name; their QPs are in the error
 * state when it returns. Errors: EPERM, ENOENT, EIO (the device refused
 * to move a QP to error; the tenant is destroyed all the same).
 */
#define MWIN_TENANT_DESTROY	_IOWR(MWIN_IOCTL_MAGIC, MWIN_CMD_TENANT_DESTROY, \
				     struct mwin_destroy)
/* Counters: struct mwin_stats. */
#define MWIN_STATS		_IOWR(MWIN_IOCTL_MAGIC, MWIN_CMD_STATS, \
				     struct mwin_stats)
#define MWIN_WINDOW_RENEW	_IOWR(MWIN_IOCTL_MAGIC, MWIN_CMD_WINDOW_RENEW, \
				     struct mwin_window_renew)

/**
 * DOC: wire protocol
 *
 * A peer connects with RDMA CM (RC, port MWIN_DEFAULT_PORT unless the
 * module's ``port`` parameter says otherwise, an RNR retry count of at most
 * 6: 7, "forever", is rejected) and puts a hello in the connect private
 * data: a struct mwin_wire_hello_tenant naming its tenant (version 3), or
 * a struct mwin_wire_hello (version 2, an anonymous peer, admitted only
 * while the module's ``anonymous`` parameter is set). A peer of a tenant
 * with a key speaks version 4: its hello is answered with a reject that
 * carries a challenge (struct mwin_wire_challenge), and it connects again
 * with its proof in the connect request (struct mwin_wire_proof_req); the
 * module checks it before it makes a PD or a QP, so an unproved peer has
 * no connection at all. The module accepts with a struct mwin_wire_accept
 * (version 2) or struct mwin_wire_accept_tenant (version 3 or 4; with a
 * key, the module's proof), or rejects with a struct mwin_wire_reject
 * that says why. See Documentation/wire.rst. The
 * peer must keep at least MWIN_WIRE_RECV_DEPTH receives of
 * MWIN_WIRE_RECV_SIZE bytes posted. The module tells the peer of every grant
 * and revoke with one struct mwin_wire_msg, in the order the changes
 * happened; one SEND carries 1 to MWIN_WIRE_MSGS_PER_SEND of them back to
 * back (a rebind's revoke and grant, a batch's messages to that peer). A
 * revoke is sent only after the rkey is dead. The peer may hand a window
 * back with Send-with-Invalidate of its rkey, with or without payload of at
 * most sizeof(struct mwin_wire_msg) bytes. All integers are little-endian.
 */
#define MWIN_WIRE_MAGIC		0x4e49574dU	/* "MWIN" in memory */
#define MWIN_WIRE_VERSION	2		/* anonymous peers */
#define MWIN_WIRE_VERSION_TENANT 3		/* peers of a tenant without a key */
#define MWIN_WIRE_VERSION_PROOF	4		/* peers of a tenant, proof in the REQ */
#define MWIN_WIRE_NONCE_LEN	16
#define MWIN_WIRE_PROOF_LEN	32		/* HMAC-SHA256 */
#define MWIN_WIRE_CHALLENGE_LEN	16
#define MWIN_WIRE_PEER_NONCE_LEN 12		/* of a struct mwin_wire_proof_req */
#define MWIN_WIRE_REQ_PROOF_LEN	16		/* HMAC-SHA256, first 128 bits */
#define MWIN_WIRE_RECV_DEPTH	64
#define MWIN_WIRE_MSGS_PER_SEND	16

/**
 * struct mwin_wire_hello - connect private data from the peer
 * @magic: MWIN_WIRE_MAGIC
 * @version: MWIN_WIRE_VERSION
 * @__reserved: must be 0
 */
struct mwin_wire_hello {
	__le32 magic;
	__u8 version;
	__u8 __reserved[3];
};

/**
 * struct mwin_wire_accept - accept private data from the module
 * @magic: MWIN_WIRE_MAGIC
 * @version: MWIN_WIRE_VERSION
 * @__reserved: 0
 * @peer: the peer's id on the module's host
 */
struct mwin_wire_accept {
	__le32 magic;
	__u8 version;
	__u8 __reserved[3];
	__le32 peer;
};

/**
 * struct mwin_wire_hello_tenant - connect private data of a tenant's peer
 * @magic: MWIN_WIRE_MAGIC
 * @version: MWIN_WIRE_VERSION_PROOF, or MWIN_WIRE_VERSION_TENANT (only
 *	for a tenant without a key)
 * @__reserved: must be 0 (in version 4, byte 5 is the type of the
 *	request: 0, a hello; see struct mwin_wire_proof_req)
 * @tenant: the tenant's name, NUL-padded (1 to MWIN_TENANT_NAME_MAX - 1
 *	bytes and a NUL)
 * @nonce: version 3: ignored, zeros; version 4: must be 0
 */
struct mwin_wire_hello_tenant {
	__le32 magic;
	__u8 version;
	__u8 __reserved[3];
	char tenant[MWIN_TENANT_NAME_MAX];
	__u8 nonce[MWIN_WIRE_NONCE_LEN];
};

/**
 * struct mwin_wire_accept_tenant - accept private data to a tenant's peer
 * @magic: MWIN_WIRE_MAGIC
 * @version: the version of the request: MWIN_WIRE_VERSION_PROOF, or
 *	MWIN_WIRE_VERSION_TENANT for a tenant without a key
 * @flags: MWIN_WIRE_PROOF_NEEDED: the tenant has a key and @proof is set
 *	(version 4 only; the peer sends no proof of its own afterwards)
 * @__reserved: 0
 * @peer: the peer's id on the module's host
 * @tenant: the tenant's id on the module's host
 * @nonce: 0 (the module's nonce of version 3, which no longer has keys)
 * @proof: HMAC-SHA256(key, "mwin-module-4" | peer nonce | challenge |
 *	@peer), the module's proof that it holds the key; 0 without a key
 */
struct mwin_wire_accept_tenant {
	__le32 magic;
	__u8 version;
	__u8 flags;
	__u8 __reserved[2];
	__le32 peer;
	__le32 tenant;
	__u8 nonce[MWIN_WIRE_NONCE_LEN];
	__u8 proof[MWIN_WIRE_PROOF_LEN];
};

#define MWIN_WIRE_PROOF_NEEDED	0x01

/**
 * struct mwin_wire_challenge - reject private data: a challenge (32 bytes)
 * @magic: MWIN_WIRE_MAGIC
 * @version: MWIN_WIRE_VERSION_PROOF
 * @reason: MWIN_REJECT_CHALLENGE
 * @__reserved0: 0
 * @tenant: the tenant's id on the module's host
 * @__reserved: 0
 * @challenge: opaque to the peer: the module's, bound to the tenant and
 *	the source address, valid for ``auth_timeout_ms``
 *
 * Its first 8 bytes are a struct mwin_wire_reject.
 */
struct mwin_wire_challenge {
	__le32 magic;
	__u8 version;
	__u8 reason;
	__u8 __reserved0[2];
	__le32 tenant;
	__u8 __reserved[4];
	__u8 challenge[MWIN_WIRE_CHALLENGE_LEN];
};

#define MWIN_WIRE_HELLO		0	/* type of a version 4 hello */
#define MWIN_WIRE_PROOF_REQ	2	/* type of a struct mwin_wire_proof_req */

/**
 * struct mwin_wire_proof_req - connect private data with a proof (56 bytes)
 * @magic: MWIN_WIRE_MAGIC
 * @version: MWIN_WIRE_VERSION_PROOF
 * @type: MWIN_WIRE_PROOF_REQ
 * @__reserved: must be 0
 * @tenant: the tenant's id, from the challenge
 * @challenge: the challenge, as received
 * @nonce: the peer's random nonce, new for every request
 * @proof: the first 16 bytes of HMAC-SHA256(key, "mwin-peer-4" |
 *	@challenge | @nonce | @tenant)
 */
struct mwin_wire_proof_req {
	__le32 magic;
	__u8 version;
	__u8 type;
	__u8 __reserved[2];
	__le32 tenant;
	__u8 challenge[MWIN_WIRE_CHALLENGE_LEN];
	__u8 nonce[MWIN_WIRE_PEER_NONCE_LEN];
	__u8 proof[MWIN_WIRE_REQ_PROOF_LEN];
};

/**
 * struct mwin_wire_proof - the peer's proof of version 3, its first SEND
 * (64 bytes); no longer accepted: a tenant with a key speaks version 4
 * @magic: MWIN_WIRE_MAGIC
 * @version: MWIN_WIRE_VERSION_TENANT
 * @type: MWIN_WIRE_PROOF
 * @__reserved0: must be 0
 * @proof: HMAC-SHA256(key, "mwin-peer" | module nonce | peer nonce | peer
 *	id), the peer id as 4 bytes little-endian
 * @__reserved: must be 0
 */
struct mwin_wire_proof {
	__le32 magic;
	__u8 version;
	__u8 type;
	__u8 __reserved0[2];
	__u8 proof[MWIN_WIRE_PROOF_LEN];
	__u8 __reserved[24];
};

/**
 * enum mwin_wire_reject_reason - why the module refused a connection
 * @MWIN_REJECT_BAD_HELLO: wrong magic, unknown version, bad name or
 *	non-zero reserved bytes, or a version 3 hello naming a tenant with a
 *	key (the reject's version says 4)
 * @MWIN_REJECT_ANONYMOUS: a version 2 hello, and the module's
 *	``anonymous`` parameter is off
 * @MWIN_REJECT_UNKNOWN_TENANT: no tenant of that name
 * @MWIN_REJECT_ADDRESS: the peer's address is outside the tenant's prefixes
 * @MWIN_REJECT_QUOTA: no slot: the tenant's connections are at its
 *	max_conns
 * @MWIN_REJECT_PEER_LIMIT: no slot: the module's peers are at
 *	``max_peers``, or, for a version 2 hello, the anonymous peers at
 *	``max_anon_peers``
 * @MWIN_REJECT_RATE: the peer's address connected more often than
 *	``conn_rate`` a second allows
 * @MWIN_REJECT_RNR_RETRY: an RNR retry count of 7 (infinite)
 * @MWIN_REJECT_SETUP: the module could not set the connection up (memory,
 *	device going away)
 * @MWIN_REJECT_DEVICE: the RDMA device is not one the module listens on
 *	(``devices`` parameter)
 * @MWIN_REJECT_BAD_PROOF: a struct mwin_wire_proof_req that does not
 *	verify: its challenge is not one the module issued for that tenant
 *	and source address within ``auth_timeout_ms``, or was used already,
 *	or its proof is wrong, or the tenant has no key
 * @MWIN_REJECT_NO_PROOF: no longer used (version 3's proof SEND)
 * @MWIN_REJECT_HALF_OPEN: too many connections still in their handshake:
 *	``max_half_open`` for the module, the tenant's max_conns for the
 *	tenant named, or 16 for the source address
 * @MWIN_REJECT_UNFINISHED: not established (no RTU) within
 *	``auth_timeout_ms`` of the connect request (counted, not sent)
 * @MWIN_REJECT_CHALLENGE: not a refusal: a version 4 hello naming a tenant
 *	with a key; the private data is a struct mwin_wire_challenge
 */
enum mwin_wire_reject_reason {
	MWIN_REJECT_BAD_HELLO = 1,
	MWIN_REJECT_ANONYMOUS = 2,
	MWIN_REJECT_UNKNOWN_TENANT = 3,
	MWIN_REJECT_ADDRESS = 4,
	MWIN_REJECT_QUOTA = 5,
	MWIN_REJECT_PEER_LIMIT = 6,
	MWIN_REJECT_RATE = 7,
	MWIN_REJECT_RNR_RETRY = 8,
	MWIN_REJECT_SETUP = 9,
	MWIN_REJECT_DEVICE = 10,
	MWIN_REJECT_BAD_PROOF = 11,
	MWIN_REJECT_NO_PROOF = 12,
	MWIN_REJECT_HALF_OPEN = 13,
	MWIN_REJECT_UNFINISHED = 14,
	MWIN_REJECT_CHALLENGE = 15,
};

/**
 * struct mwin_wire_reject - reject private data from the module
 * @magic: MWIN_WIRE_MAGIC
 * @version: the highest version the module speaks (4)
 * @reason: enum mwin_wire_reject_reason
 * @__reserved: 0
 *
 * Its first 8 bytes are laid out as a struct mwin_wire_hello, as version
 * 2 modules rejected with; they left @reason 0.
 */
struct mwin_wire_reject {
	__le32 magic;
	__u8 version;
	__u8 reason;
	__u8 __reserved[2];
};

enum mwin_wire_type {
	MWIN_WIRE_GRANT = 1,
	MWIN_WIRE_REVOKE = 2,
	MWIN_WIRE_PROOF = 3,
};

/**
 * enum mwin_wire_reason - why a revoke was sent
 * @MWIN_REVOKE_INVALIDATE: WINDOW_INVALIDATE
 * @MWIN_REVOKE_REBIND: WINDOW_REBIND (a grant follows, in the same SEND
 *	when the window keeps its peer and range, unless the rebind failed)
 * @MWIN_REVOKE_DESTROY: WINDOW_DESTROY or its region was force-destroyed
 * @MWIN_REVOKE_REMOTE: another peer invalidated this rkey; the module
 *	disconnected that peer
 * @MWIN_REVOKE_ERROR: the device failed an operation on the window, or
 *	the peer was cut off. The connection the operation failed on is dead
 *	by then and is not told; a tenant's other connections are
 * @MWIN_REVOKE_HANDED_BACK: another connection of the same tenant handed
 *	this rkey back (Send-with-Invalidate); it stays connected. Or this
 *	connection handed back an older rkey of the window on a device that
 *	invalidates by MR index (siw), which killed this one
 * @MWIN_REVOKE_EXPIRED: the grant's lease ran out (a one-shot window is
 *	destroyed with it)
 */
enum mwin_wire_reason {
	MWIN_REVOKE_INVALIDATE = 1,
	MWIN_REVOKE_REBIND = 2,
	MWIN_REVOKE_DESTROY = 3,
	MWIN_REVOKE_REMOTE = 4,
	MWIN_REVOKE_ERROR = 5,
	MWIN_REVOKE_HANDED_BACK = 6,
	MWIN_REVOKE_EXPIRED = 7,
};

/* struct mwin_wire_msg.flags of a grant: a one-shot window */
#define MWIN_WIRE_GRANT_ONCE	0x01

/**
 * struct mwin_wire_msg - a grant or revoke, module to peer
 * @magic: MWIN_WIRE_MAGIC
 * @version: MWIN_WIRE_VERSION
 * @type: enum mwin_wire_type
 * @access: grant: MWIN_ACCESS_* rights; revoke: enum mwin_wire_reason
 * @seq: message number on this connection, from 1, no gaps
 * @window: window id
 * @rkey: the rkey granted or revoked
 * @lease_ms: grant: milliseconds left of the grant's lease when the
 *	module built the message (rounded down, at least 1), 0 for no lease;
 *	revoke: 0. A grant of the rkey the peer holds renews its lease
 * @iova: grant: remote address of the window's first byte; revoke: 0
 * @length: grant: window bytes; revoke: 0
 * @flags: grant: MWIN_WIRE_GRANT_ONCE or 0; revoke: 0
 * @__reserved1: 0
 * @__reserved: 0
 */
struct mwin_wire_msg {
	__le32 magic;
	__u8 version;
	__u8 type;
	__le16 access;
	__le32 seq;
	__le32 window;
	__le32 rkey;
	__le32 lease_ms;
	__le64 iova;
	__le64 length;
	__le32 flags;
	__le32 __reserved1;
	__le64 __reserved[2];
};

/* What one receive must hold: a SEND of MWIN_WIRE_MSGS_PER_SEND messages. */
#define MWIN_WIRE_RECV_SIZE \
	(MWIN_WIRE_MSGS_PER_SEND * sizeof(struct mwin_wire_msg))

#endif /* _UAPI_LINUX_MWIN_H */
