/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mwin private header: objects, their states and the lock order.
 *
 * Objects
 *   region  pinned pages: the module's own (region.c), or a range of its
 *           creator's address space or a memfd's pages (region_mem.c);
 *           DMA-mapped once per RDMA device, lazily
 *   peer    one accepted RDMA CM connection: PD, send CQ, recv CQ, RC QP
 *   tenant  a named remote principal: who may connect, from where, how
 *           often, and with what key (tenant.c; admission in admit.c,
 *           its proof in proof.c)
 *   tenant PD  a tenant's PD on one device, shared by its connections
 *           there and by the MRs of the windows granted to it (tenant.c)
 *   window  a range of a region granted to one peer, or to a tenant,
 *           through a fast-registration MR allocated from the peer's PD
 *           (a tenant's peer's PD is its tenant PD)
 *
 *   Each is a struct mwin_obj (object.c): id, reference count, owner.
 *
 * References
 *   - a published id holds one reference on its object;
 *   - a window holds its region, and its peer while attached to it;
 *   - a peer's window list holds a reference on each window in it;
 *   - an mmap of a region holds the region;
 *   - a MWIN_CREATE_FD_OWNED object holds its open file (struct
 *     mwin_file), whose list of such objects holds none;
 *   - a peer holds its tenant; a tenant's peer list holds none (a peer
 *     leaves it in its teardown);
 *   - a tenant PD holds its tenant and device; a peer holds its tenant PD,
 *     and so does a window while it has an MR in it;
 *   - a window granted to a tenant holds the tenant; the tenant's tree of
 *     windows holds none (a window leaves it at its release at the latest);
 *   - the tree of leases holds each window in it (lease.c), and so does
 *     the list of one-shot windows handed back, to be destroyed.
 *
 * Memory
 *   What a call allocates for the caller's objects (its open file, regions
 *   and their page arrays and DMA maps, windows and their scatter lists,
 *   batches, tenants, a monitor's ring) is charged to the caller's memory
 *   cgroup (GFP_KERNEL_ACCOUNT), so that a cgroup's limit bounds what its
 *   tasks make the module hold. What a connection allocates in CM or
 *   device context (peers, tenant PDs, devices) has no such owner and is
 *   not charged.
 *
 * A file's obj_lock (object.c) is innermost: nothing is taken under it.
 *
 * Lock order (outer first)
 *   window->lock                   one operation on a window at a time;
 *                                  held across the wait for a completion
 *   mwin_devs_lock                 device list; a device's dying flag;
 *                                  setting up a peer; creating and
 *                                  removing a region's DMA map
 *   tenant->pd_lock                its tenant PDs and their peer lists
 *   peer->cut_lock                 moving a peer's QPs: out of RESET at
 *                                  its setup, to ERR (peer_qps_to_err())
 *   region->lock                   window tree, DMA maps
 *   dev->lock (spinlock)           a device's peer list
 *   peer->send_lock (spinlock)     message sequence and send slots
 *   peer->lock (spinlock)          peer state, window list, rkey history
 *   tenant->lock (spinlock)        a tenant's settings, peers and counts;
 *                                  its tree of windows, which a window
 *                                  joins and leaves under its own lock
 *                                  (window_set_tenant()) or at its
 *                                  release, and which is walked by id,
 *                                  window by window, without holding it
 *                                  (tenant_next_window())
 *   lease_lock (spinlock, lease.c) the tree of leases, the reap list
 *   admit_sources_lock (spinlock,  source addresses' rate buckets and
 *     admit.c)                     handshake counts; innermost
 *   proof_used_lock (spinlock,     challenges proved, until they expire;
 *     proof.c)                     innermost
 * and mwin_tenants_lock (tenant names, tenant.c) is taken under
 * mwin_devs_lock (publishing a peer), before any spinlock.
 * No global lock is held while waiting for the device. No lock another
 * tenant, a connect or a device removal takes (mwin_devs_lock, a tenant's
 * pd_lock, the CM's handler) is held while waiting for a peer: a message
 * to a peer waits in its backlog, not for its send slots (msgs.c), and a
 * peer's teardown, the one wait for its QPs, runs in a work item holding
 * none. Under pd_lock only QP state changes are waited for, of the local
 * device (a tenant PD's cut-off: fail closed needs them before a revoking
 * call returns).
 *
 * Window states (enum mwin_window_state in the uAPI)
 *
 *   create --REG_MR ok--> BOUND --LOCAL_INV ok / peer Send-with-Inv-->
 *   INVALIDATED --rebind: REG_MR ok--> BOUND
 *   BOUND|INVALIDATED --peer gone, QP error--> UNBOUND (MR deregistered)
 *   UNBOUND --rebind with a peer--> BOUND
 *   any --operation failed, or cut off--> UNBOUND (the peer is torn down)
 *   any --cut off, and the device did not even flush, or a QP the device
 *   would not move to ERR--> BROKEN (MR kept until the peer's QP is
 *   drained, then UNBOUND): see verbs_chain_end()
 *   UNBOUND|INVALIDATED --create or rebind: its caller killed, or no
 *   slot free in time, before the REG_MR was posted--> UNBOUND (a create:
 *   destroyed), the peer untouched; killed after: the same once the device
 *   completed the REG_MR, whose MR is deregistered then (verbs_abandon())
 *   BOUND --lease ran out: LOCAL_INV ok--> INVALIDATED (expired)
 *   a one-shot window handed back or expired --> destroyed
 *
 * Revocation bound
 *   A chain that revokes an rkey waits at most revoke_timeout_ms for its
 *   permits and its completion, and is not killable. Whatever else
 *   happens (past that, the post failed, a request completed in error: the
 *   registration QP flushed or poisoned), verbs_chain_end() decides, for
 *   single calls, batches and lease expiry alike: the QPs that could use
 *   the MR are moved to ERR before the call returns (peer_cut_off()), or
 *   the window is BROKEN and keeps its MR (and its region, pages) until the
 *   device is done with it. A chain that only grants is ended by a signal
 *   or a lack of permits without touching the peer (verbs_permits(),
 *   verbs_abandon()): a peer other users share is cut off only when a
 *   revoke, or the device, failed.
 */
#ifndef _MWIN_H
#define _MWIN_H

#include <linux/interval_tree_generic.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <linux/uidgid.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "../uapi/linux/mwin.h"

#define MWIN_REGION_MAX_BYTES	SZ_4G
/* mmap offset of a region: its id in the high 32 bits. */
#define MWIN_MMAP_SHIFT		32
#define MWIN_KEYS		256
/* Regions are allocated in chunks of up to 2^MWIN_CHUNK_ORDER pages. */
#define MWIN_CHUNK_ORDER	9
#define MWIN_SEND_DEPTH		32
/* Messages that wait for a send slot, at most, before the peer goes. */
#define MWIN_SEND_BACKLOG	1024
#define MWIN_WINDOW_CREATE_FLAGS \
	(MWIN_CREATE_FD_OWNED | MWIN_WINDOW_OVERLAP | MWIN_WINDOW_QUIET | \
	 MWIN_WINDOW_ONCE)
/* Window operations in flight on one peer: bounds its registration QP. */
#define MWIN_OPS_DEPTH		64
/* Kicks of a stalled registration QP in flight (peer_kick()). */
#define MWIN_KICK_DEPTH		4
/* rkeys a peer may still hand back after they were revoked: a batch's */
#define MWIN_PEER_REVOKED	MWIN_BATCH_MAX

/*
 * Counters (stats.c): the module's, and each peer's and tenant's, by
 * enum mwin_stat; peers gone by enum mwin_down_reason (the first reason
 * wins).
 */
struct mwin_counters {
	atomic64_t stats[MWIN_NR_STATS];
	atomic64_t downs[MWIN_DOWN_SLOTS];
};

/* Module parameters. */
extern unsigned short mwin_port;
extern unsigned long mwin_max_region_mb;
extern unsigned int mwin_max_windows;
extern unsigned int mwin_max_peers;
extern unsigned int mwin_max_half_open;
extern unsigned int mwin_auth_timeout_ms;
extern unsigned int mwin_op_timeout_ms;
extern unsigned int mwin_keepalive_ms;
extern unsigned int mwin_revoke_timeout_ms;
extern bool mwin_anonymous;
extern unsigned int mwin_max_anon_peers;
extern unsigned int mwin_conn_rate;
extern unsigned int mwin_max_monitors;
extern char *mwin_devices;
extern char *mwin_listen;

extern atomic64_t mwin_region_bytes;
extern bool mwin_unloading;
extern atomic_t mwin_nr_windows;
extern atomic_t mwin_nr_peers;
extern struct workqueue_struct *mwin_wq;

/*
 * Race windows a test build (MWIN_TEST=1, see Kbuild) can widen by a
 * sleep, each where a fix of selftests/mwin_delays.c's races made the
 * code safe against what happens meanwhile; and one fault it can make.
 */
enum mwin_test_point {
	MWIN_TEST_NONE,
	MWIN_TEST_PEER_PUBLISH,	/* accepted, not yet published */
	MWIN_TEST_BATCH_RELEASE, /* entries finished, messages held */
	MWIN_TEST_REMOTE_INV,	/* a hand-back received, not yet handled */
	MWIN_TEST_MAP_DEV,	/* a bind holds its peer, not mwin_devs_lock */
	MWIN_TEST_TEARDOWN,	/* a teardown, before it drains the QP */
	/* not a sleep: a revoke's chain is held by the device (verbs.c) */
	MWIN_TEST_STALL_REVOKE,
	/*
	 * not a sleep: the peer's registration QP is in ERR before a revoke
	 * is posted, as a request sent to it from the network leaves it on
	 * rxe (verbs.c); the connected QP stays in RTS
	 */
	MWIN_TEST_POISON_REG,
	/* a peer's setup, after it joined its tenant PD and made its QPs */
	MWIN_TEST_PEER_SETUP,
	/* a teardown, between destroying the QPs and leaving the tenant PD */
	MWIN_TEST_PD_LEAVE,
	/*
	 * faults of a revoke's chain (verbs_post_chain()), not sleeps: no slot
	 * on the registration QP within the bound; the post fails whole; all
	 * but the chain's last request posted
	 */
	MWIN_TEST_NO_PERMIT,
	MWIN_TEST_POST_FAIL,
	MWIN_TEST_POST_TORN,
	/* not a sleep: the device refuses to move a peer's QPs to ERR */
	MWIN_TEST_QP_STUCK,
	/*
	 * a slow device: a single call's chain completes, and the module sees
	 * it test_delay_ms later (verbs.c)
	 */
	MWIN_TEST_HOLD_DONE,
	/* a single call, its slot taken, sleeps before it posts (verbs.c) */
	MWIN_TEST_HOLD_PERMIT,
	/* not a sleep: a grant finds no slot free (peer_ops_get()) */
	MWIN_TEST_PERMITS_HELD,
	/* a window a stranger invalidated, before it is granted again */
	MWIN_TEST_VICTIM_REGRANT,
};

#ifdef MWIN_TEST
void mwin_test_delay(enum mwin_test_point point);
bool mwin_test_at(enum mwin_test_point point);
bool mwin_test_later(enum mwin_test_point point, struct delayed_work *dw);
#else
static inline void mwin_test_delay(enum mwin_test_point point) { }
static inline bool mwin_test_at(enum mwin_test_point point) { return false; }
static inline bool mwin_test_later(enum mwin_test_point point,
				   struct delayed_work *dw)
{
	return false;
}
#endif

/**
 * struct mwin_owner - whose an object is
 * @uid: the effective uid of the opener that created it
 * @file: for MWIN_CREATE_FD_OWNED objects, the open file whose release
 *	destroys it; NULL for objects the module keeps until destroyed
 */
struct mwin_owner {
	kuid_t uid;
	struct mwin_file *file;
};

/**
 * struct mwin_caller - who makes a call, for what it may see
 * @uid: the effective uid of the opener of the file it calls through
 * @admin: the calling task has CAP_SYS_ADMIN: it sees every object
 */
struct mwin_caller {
	kuid_t uid;
	bool admin;
};

struct mwin_obj;
struct mwin_events;
struct mwin_backlog;

/**
 * struct mwin_obj_type - one kind of object, and what object.c does with it
 * @xa: published objects by id; only object.c touches it
 * @next_id: for cyclic ids
 * @owned: its objects have owners (regions, windows); peers are the host's
 * @release: the last reference went: free the object, after a grace period
 * @finalize: the call that created the object has returned its id: publish
 *	it, and drop the call's reference
 * @abort: that call failed after the object was made: undo it, quietly,
 *	and drop the call's reference
 * @destroy: the module destroys the object, for unload or the release of
 *	its file; the caller holds a reference
 */
struct mwin_obj_type {
	struct xarray xa;
	u32 next_id;
	bool owned;
	void (*release)(struct mwin_obj *obj);
	void (*finalize)(struct mwin_obj *obj);
	void (*abort)(struct mwin_obj *obj);
	void (*destroy)(struct mwin_obj *obj);
};

/**
 * struct mwin_obj - what every region, window and peer is (object.c)
 * @id: reserved while the object is made, published once it is whole
 * @kref: references; a published id holds one
 * @rcu: the object is freed a grace period after its last reference, so
 *	that a lookup may try it under rcu_read_lock()
 * @type: its kind
 * @owner: whose it is, for owned types
 * @file_node: in @owner.file's objects while published
 */
struct mwin_obj {
	u32 id;
	struct kref kref;
	struct rcu_head rcu;
	struct mwin_obj_type *type;
	struct mwin_owner owner;
	struct list_head file_node;
};

extern struct mwin_obj_type mwin_region_type;
extern struct mwin_obj_type mwin_window_type;
extern struct mwin_obj_type mwin_peer_type;
extern struct mwin_obj_type mwin_tenant_type;
extern const struct mwin_caller mwin_module_caller;

void mwin_caller_init(struct mwin_caller *c, const struct mwin_file *f);
bool mwin_obj_visible(const struct mwin_obj *o, const struct mwin_caller *c);
void mwin_obj_init(struct mwin_obj *o, struct mwin_obj_type *type,
		   struct mwin_file *f, bool fd_owned);
int mwin_obj_reserve_id(struct mwin_obj *o);
void mwin_obj_publish(struct mwin_obj *o);
void mwin_obj_unpublish(struct mwin_obj *o);
struct mwin_obj *mwin_obj_find(struct mwin_obj_type *type, u32 *id,
			       bool next, const struct mwin_caller *c);
u32 mwin_obj_count(struct mwin_obj_type *type, const struct mwin_caller *c);
void mwin_obj_put(struct mwin_obj *o);
void mwin_obj_destroy_all(struct mwin_obj_type *type);
bool mwin_obj_any(struct mwin_obj_type *type);
unsigned long mwin_user_count(struct xarray *xa, kuid_t uid);
int mwin_user_take(struct xarray *xa, kuid_t uid);
void mwin_user_give_back(struct xarray *xa, kuid_t uid);
int mwin_share_take(kuid_t uid, bool admin);
void mwin_share_give_back(kuid_t uid);

static inline void mwin_obj_get(struct mwin_obj *o)
{
	kref_get(&o->kref);
}

/*
 * Per open file: its opener, its MWIN_CREATE_FD_OWNED objects, and a
 * monitor (events.c). Each of those objects holds a reference: one being
 * destroyed elsewhere still takes itself off @objects after the file was
 * released.
 */
struct mwin_file {
	struct kref kref;
	const struct cred *cred;	/* the opener's, as long as the file */
	spinlock_t obj_lock;		/* @objects */
	struct list_head objects;	/* published ones, newest last */
	struct mwin_events *ev;		/* set once, by MWIN_MONITOR */
};

struct mwin_file *mwin_file_alloc(const struct cred *cred);
void mwin_file_release(struct mwin_file *f);

/**
 * struct mwin_ucmd - one ioctl call
 * @f: the caller's file
 * @c: the caller
 * @cmd: the argument, copied in; copied back out after the handler
 * @obj: an object the handler made with its id reserved, not visible yet:
 *	mwin_ioctl() finalizes it once the result reached the caller, or
 *	aborts it, so that an EFAULT leaves nothing nobody knows of
 */
struct mwin_ucmd {
	struct mwin_file *f;
	struct mwin_caller c;
	void *cmd;
	struct mwin_obj *obj;
};

/**
 * struct mwin_dev - one RDMA device, from the ib_client add callback
 * @ibdev: the device
 * @node: in mwin_devs, under mwin_devs_lock
 * @peers: peers on this device, under @lock
 * @lock: protects @peers, @nr_peers and @dying
 * @kref: held by the device list and by each peer on the device
 * @dying: the remove callback runs: no new peers, no new DMA maps
 * @nr_peers: length of @peers
 * @max_pages: pages one MR can map, clamped to what the device advertises
 * @spare_pages: pages an MR gets beyond what its window needs (a quirk)
 * @max_small_pages: PAGE_SIZE pages one MR can span, whatever its page
 *	size (a limit of rxe's, see compat.h)
 * @page_size_cap: page sizes an MR can map, one bit per size
 * @fast_reg: the device supports IB_WR_REG_MR
 * @atomic: the device supports remote atomics
 * @kick: a send queue of its may stall until posted to again (rxe: see
 *	peer_kick())
 * @reg_on_conn_qp: a peer's window requests go on its connected QP
 *	(iWARP: see provider.c)
 * @flush_on_close: a QP goes to error when its connection closes (iWARP)
 * @initiator_first: the side that accepts a connection sends nothing
 *	before the first message of the side that connected (iWARP's MPA)
 * @inv_any_key: an invalidation kills its MR's rkey whatever its key byte
 *	(siw)
 * @reads_unchecked: an RDMA READ needs no read right of the MR (siw)
 * @transport: "InfiniBand", "RoCE" or "iWARP", for the log
 * @defect: what the device does that breaks a window's promise and mwin
 *	cannot mend, for the log; NULL: nothing known
 * @mr_windows: windows by MR index (rkey >> 8), to check remote
 *	invalidations
 * @next_vector: the completion vector the next peer's CQs take, round
 *	robin (peer_pick_vector())
 */
struct mwin_dev {
	struct ib_device *ibdev;
	struct list_head node;
	struct list_head peers;
	spinlock_t lock;		/* @peers, @nr_peers, @dying */
	struct kref kref;
	bool dying;
	unsigned int nr_peers;
	u32 max_pages;
	u32 spare_pages;
	u32 max_small_pages;
	u64 page_size_cap;
	bool fast_reg;
	bool atomic;
	bool kick;
	bool reg_on_conn_qp;
	bool flush_on_close;
	bool initiator_first;
	bool inv_any_key;
	bool reads_unchecked;
	const char *transport;
	const char *defect;
	struct xarray mr_windows;
	atomic_t next_vector;
};

/**
 * struct mwin_region_map - a region's chunks as one device sees them
 * @node: in region->maps
 * @dev: the device
 * @chunk_shift: log2 of the region's chunk size
 * @page_shift: log2 of the largest page an MR may map from this map: the
 *	chunk size, or less when a chunk's DMA address is less aligned
 * @users: windows whose MR maps through it, under the region's lock: a
 *	destroyed region keeps the map until the last of them lets go
 * @dma: one DMA address per chunk
 */
struct mwin_region_map {
	struct list_head node;
	struct mwin_dev *dev;
	u32 chunk_shift;
	u32 page_shift;
	unsigned int users;
	dma_addr_t dma[];
};

/**
 * struct mwin_region_backing - where a user or file region's pages come
 *	from (region_mem.c)
 * @mm: the creator's mm, grabbed (mmgrab()): charged for the pinned
 *	pages in its pinned_vm until the region is freed; NULL: not charged
 * @pid: the creating process (its thread group), for REGION_GET
 * @addr: user kind: the range's first byte in @mm; file kind: its offset
 *	in @file
 * @file: file kind: the file, held; a writable region holds a writable
 *	mapping's count on its mapping (mapping_map_writable()) too
 * @npinned: pages of the region's @pages pinned (user kind) or held (file
 *	kind) so far: all of them once created, fewer while pinning or after
 *	a failed pin
 */
struct mwin_region_backing {
	struct mm_struct *mm;
	struct pid *pid;
	u64 addr;
	struct file *file;
	unsigned long npinned;
};

/*
 * A region's memory outlives every MR that can reach it: the pages go in
 * region_release(), after the last window (which holds the region) and
 * mapping let go of it, whatever their kind.
 */
struct mwin_region {
	struct mwin_obj obj;
	u32 flags;
	u32 kind;			/* enum mwin_region_kind */
	/* charged for the pinned pages (RLIMIT_MEMLOCK); NULL: not charged */
	struct user_struct *user;
	struct mwin_region_backing back; /* user and file kinds */
	u64 length;
	unsigned long npages;
	struct page **pages;
	u32 chunk_shift;
	/* the node its pages were asked of (MWIN_REGION_NEAR_DEV), or -1 */
	int node;
	struct mutex lock;		/* @dead, @windows, @nr_windows, @maps */
	bool dead;
	struct rb_root_cached windows;
	unsigned int nr_windows;
	struct list_head maps;
};

/**
 * struct mwin_tenant_pd - a tenant's protection domain on one device
 * @kref: see "References" above
 * @tenant: its tenant
 * @dev: its device
 * @pd: the PD of the tenant's connections on @dev and of the MRs of its
 *	windows there: an rkey registered in it works through each of them
 * @node: in @tenant->pds, from its making to its release
 * @closed: new connections may not join it: it had no connection left that
 *	was not being torn down (tenant_pd_join())
 * @nr_joining: connections that took it and have no QPs yet
 * @peers: its peers whose QPs exist, under @tenant->pd_lock: each can be
 *	moved to ERR (tenant_pd_cut_off())
 */
struct mwin_tenant_pd {
	struct kref kref;
	struct mwin_tenant *tenant;
	struct mwin_dev *dev;
	struct ib_pd *pd;
	struct list_head node;
	bool closed;
	unsigned int nr_joining;
	struct list_head peers;
};

/**
 * struct mwin_tenant - a named remote principal (tenant.c)
 * @obj: its id; owned by @obj.owner.uid, INVALID_UID for none
 * @node: in the tenant list, under mwin_tenants_lock, from create to
 *	destroy (or abort)
 * @name: unique, NUL-terminated
 * @live: its create was finalized; until then it admits no one
 * @lock: everything below
 * @tfm: HMAC-SHA256 keyed with the tenant's key; NULL: no key
 * @key_len: its length, for TENANT_GET
 * @allow: prefixes its peers may connect from
 * @nr_allow: entries of @allow in use; 0: any address
 * @max_conns: connections at once
 * @max_windows: windows bound to it or its peers at once; 0: no limit
 * @peers: its peers, until their teardown
 * @nr_conns: connections that finished their handshake and are not yet
 *	gone; at most @max_conns
 * @nr_half_open: connections admitted, in their handshake; at most
 *	@max_conns too, counted apart so that strangers cannot take a slot
 *	of @nr_conns
 * @nr_windows: windows bound to its peers now
 * @connects: connections that finished their handshake, ever
 * @rejects: refused connection attempts that named it, by reason
 * @counters: of its peers and windows, not under @lock
 * @bytes_granted: bytes of the windows bound to it or its peers
 * @max_bytes: the most @bytes_granted may be; 0: no limit
 * @windows: the windows granted to it, by id (window_set_tenant()), so
 *	that re-granting and forgetting them walks these, not the module's
 * @pd_lock: @pds and their peer lists; a mutex: PDs are made under it
 * @pds: its PDs; of those not closed, one per device at most
 */
struct mwin_tenant {
	struct mwin_obj obj;
	struct list_head node;
	char name[MWIN_TENANT_NAME_MAX];
	bool live;
	spinlock_t lock;		/* everything below */
	struct crypto_shash *tfm;
	u32 key_len;
	struct mwin_tenant_net allow[MWIN_TENANT_ALLOW_MAX];
	u32 nr_allow;
	u32 max_conns;
	u32 max_windows;
	struct list_head peers;
	u32 nr_conns;
	u32 nr_half_open;
	u32 nr_windows;
	u64 connects;
	u64 rejects[MWIN_REJECT_SLOTS];
	struct mwin_counters counters;
	u64 bytes_granted;
	u64 max_bytes;
	struct rb_root windows;
	struct mutex pd_lock;		/* @pds, and each one's @peers */
	struct list_head pds;
};

struct mwin_peer {
	struct mwin_obj obj;
	struct mwin_dev *dev;
	/* NULL for an anonymous peer (wire version 2) */
	struct mwin_tenant *tenant;
	struct list_head tenant_node;
	/* a tenant's peer's PD is its tenant's on its device, shared */
	struct mwin_tenant_pd *tpd;
	struct list_head tpd_node;
	/* tells a proved peer of its tenant's windows (tenant_regrant()) */
	struct work_struct regrant_work;
	/*
	 * Its tenant's windows of lower ids were granted to it by its first
	 * tenant_regrant(), U64_MAX once that is over: of the others' grants
	 * and revokes it hears only then, so that it hears of none twice.
	 * Under the lock of the window it is compared with.
	 */
	u64 regrant_mark;
	/* its handshake's bound: auth_timeout_ms from its request */
	struct delayed_work handshake_work;
	/* its source address's entry in admit.c's table */
	u16 source;
	struct rdma_cm_id *cm_id;
	struct ib_pd *pd;
	struct ib_cq *send_cq;
	struct ib_cq *recv_cq;
	/* the completion vector of both CQs: see peer_pick_vector() */
	u32 comp_vector;
	/* the connected QP: messages, keepalives, the peer's requests */
	struct ib_qp *qp;
	u32 qpn;
	/* window requests and kicks only: see peer_create_reg_qp() */
	struct ib_qp *reg_qp;
	/* never registered: what a kick invalidates (peer_kick()) */
	struct ib_mr *kick_mr;
	char dev_name[IB_DEVICE_NAME_MAX];
	struct sockaddr_storage addr;
	struct list_head dev_node;

	spinlock_t lock;		/* @state, @windows, @nr_windows */
	enum mwin_peer_state state;
	struct list_head windows;
	unsigned int nr_windows;

	struct work_struct teardown_work;
	struct delayed_work keepalive_work;
	struct ib_cqe keepalive_cqe;
	struct ib_cqe kick_cqe;
	atomic_t kicks_free;
	unsigned long flags;
#define MWIN_PEER_KILLED	0
#define MWIN_PEER_KEEPALIVE	1	/* a keepalive is in flight */
#define MWIN_PEER_CUT_OFF	2	/* its QPs are in ERR: peer_qps_to_err() */
#define MWIN_PEER_DRAINED	3	/* the teardown drained its QPs */
#define MWIN_PEER_ESTABLISHED	4	/* the CM said ESTABLISHED */
#define MWIN_PEER_HEARD		5	/* a message of the peer's came */
#define MWIN_PEER_SET_UP	6	/* its CONNECT_REQUEST handler accepted it */
#define MWIN_PEER_QUEUED	7	/* its teardown is queued */
#define MWIN_PEER_QPS_UP	8	/* its QPs may have left RESET */
#define MWIN_PEER_HALF_OPEN	9	/* holds a handshake slot (admit.c) */
#define MWIN_PEER_SLOT		10	/* holds a connection slot (admit.c) */
	/* serializes moving its QPs to ERR (peer_qps_to_err()) */
	struct mutex cut_lock;
	enum mwin_down_reason down_reason;
	/* the teardown is done with the peer (peer_wait_torn_down()) */
	struct completion torn_down;

	/* slots for window requests on the registration QP: MWIN_OPS_DEPTH */
	atomic_t ops_free;
	wait_queue_head_t ops_wait;

	/* rkeys revoked from this peer, newest last, under @lock */
	u32 revoked[MWIN_PEER_REVOKED];
	unsigned int revoked_next;

	/*
	 * Messages: MWIN_SEND_DEPTH slots of MWIN_WIRE_MSGS_PER_SEND
	 * messages. The open slot fills until it is posted as one SEND;
	 * posted slots complete in order. Behind them, when every slot is in
	 * flight, a backlog of up to MWIN_SEND_BACKLOG messages, allocated
	 * when first needed, a ring (msgs.c).
	 */
	spinlock_t send_lock;		/* @seq, the send_* and backlog* fields */
	u32 seq;
	unsigned int send_open;		/* the open slot */
	unsigned int send_queued;	/* messages in the open slot */
	unsigned int sends_inflight;	/* slots posted, not completed */
	unsigned int send_holds;	/* holders of the open slot */
	struct mwin_backlog *backlog;
	unsigned int backlog_head;	/* its oldest message */
	unsigned int backlog_len;
	/* its oldest message's bound: op_timeout_ms */
	struct delayed_work backlog_work;
	/* a send completed: room in the backlog (peer_pace()) */
	wait_queue_head_t send_wait;
	struct mwin_wire_msg *send_msgs;
	u64 send_dma;
	struct ib_cqe send_cqe;

	struct mwin_recv *recvs;
	struct mwin_wire_msg *recv_msgs;
	u64 recv_dma;

	struct mwin_counters counters;
};

struct mwin_recv {
	struct ib_cqe cqe;
	struct mwin_peer *peer;
	unsigned int index;
};

/* A window's node in its region's interval tree: [start, last] bytes. */
struct mwin_range {
	struct rb_node rb;
	u64 start;
	u64 last;
	u64 subtree_last;
	struct mwin_window *window;
};

struct mwin_window {
	struct mwin_obj obj;
	u32 flags;
	struct mutex lock;		/* everything below; one op at a time */
	bool batched;			/* a batch owns the window: see window_lock() */
	bool dead;
	bool granted;			/* its creation was finalized */
	/* @range is in its region's tree: see window_release_range() */
	bool in_region;

	struct mwin_region *region;
	struct mwin_range range;
	/* holds the old range in the tree while a rebind moves the window */
	struct mwin_range old_range;
	u32 access;
	enum mwin_window_state state;

	/* the peer it is bound to; for a tenant's window, the one carrying it */
	struct mwin_peer *peer;
	struct list_head peer_node;
	/* granted to a tenant, referenced; NULL: granted to @peer alone */
	struct mwin_tenant *tenant;
	/* in @tenant's tree of windows, by id */
	struct rb_node tenant_node;

	/* fast-registration MR on peer->pd; NULL when unbound */
	struct ib_mr *mr;
	/* the tenant PD @mr is in, referenced; NULL: a peer's own PD */
	struct mwin_tenant_pd *mr_tpd;
	/* an operation on @mr failed and it stays until its peer is drained */
	bool mr_failed;
	/* its tenant's last connection on its device went while it was bound */
	bool waiting;
	/* bytes counted in its peer's tenant's bytes_granted */
	u64 charged;
	u32 mr_pages;
	u32 rkey;
	/* what the MR's page list maps, to skip mapping an unchanged range */
	bool mr_mapped;
	u32 mapped_shift;
	u64 mapped_start;
	u64 mapped_len;
	/* the region's map on the peer's device, while attached */
	struct mwin_region_map *map;
	DECLARE_BITMAP(keys_used, MWIN_KEYS);
	struct scatterlist *sgl;
	u32 sgl_cap;

	/* the operation in flight, under @lock */
	struct ib_cqe inv_cqe;
	struct ib_cqe reg_cqe;
	struct completion done;
	int wc_status;
	/* ns from its post to its completion, for the revoke tracepoint */
	u64 op_ns;
	/* a grant's chain whose caller was killed: verbs_abandon() */
	struct work_struct abandon_work;
	unsigned long abandon_deadline;
#ifdef MWIN_TEST
	/* completes @done late: MWIN_TEST_HOLD_DONE */
	struct delayed_work test_done;
#endif

	/* its lease's deadline, CLOCK_MONOTONIC; 0: none (lease.c) */
	ktime_t expires;
	/* the lease its create asked for, armed when it is finalized */
	u32 create_lease_ms;
	/* in the tree of leases while @expires is set, but while it expires */
	struct rb_node lease_node;
	/* its last lease ran out, and it was not bound since */
	bool expired;
	/* in lease.c's list of one-shot windows to destroy */
	struct list_head reap_node;
	/*
	 * A foreign invalidation killed @victim_rkey: its grantees get a new
	 * rkey, with the @victim_lease_ms it had left (grantee.c)
	 */
	struct work_struct victim_work;
	u32 victim_rkey;
	u32 victim_lease_ms;

	u64 binds;
	u64 invalidations;
	u64 remote_invalidations;
};

static inline struct mwin_window *to_window(struct mwin_obj *o)
{
	return o ? container_of(o, struct mwin_window, obj) : NULL;
}

static inline u64 window_offset(const struct mwin_window *w)
{
	return w->range.start;
}

static inline u64 window_length(const struct mwin_window *w)
{
	return w->range.last - w->range.start + 1;
}

/* stats.c */
void mwin_count_tenant(struct mwin_tenant *t, enum mwin_stat s, s64 n);
void mwin_count(struct mwin_peer *p, enum mwin_stat s, s64 n);
void mwin_count_down(struct mwin_peer *p);
u64 mwin_counter(const struct mwin_counters *c, enum mwin_stat s);
int mwin_stats_get(struct mwin_ucmd *ucmd);

/* ioctl.c */
long mwin_ioctl(struct file *file, unsigned int cmd, unsigned long arg);

/* events.c */
void mwin_event(enum mwin_event_type type, const struct mwin_obj *about,
		u32 window, u32 peer, u32 rkey, u32 reason);
int mwin_monitor_start(struct mwin_file *f, const struct mwin_caller *c);
void mwin_monitor_stop(struct mwin_file *f);
ssize_t mwin_read(struct file *file, char __user *buf, size_t len,
		  loff_t *ppos);
__poll_t mwin_poll(struct file *file, struct poll_table_struct *pt);

/* provider.c */
void mwin_dev_set_provider(struct mwin_dev *dev);
bool mwin_dev_can_grant(const struct mwin_dev *dev, u32 access);
bool mwin_dev_inv_kills(const struct mwin_dev *dev, u32 live, u32 rkey);
void mwin_dev_warn_defects(const struct mwin_dev *dev);

/* device.c */
extern struct ib_client mwin_client;
extern struct mutex mwin_devs_lock;
extern struct list_head mwin_devs;
u64 mwin_dev_max_window_bytes(const struct mwin_dev *dev);
u32 mwin_dev_max_pages(const struct mwin_dev *dev, u32 shift);
void mwin_dev_put(struct mwin_dev *dev);
int mwin_dev_node(u32 index, int *node);
u32 mwin_dev_page_shift(const struct mwin_dev *dev, u32 max_shift);

/* region.c */
int region_create(struct mwin_ucmd *ucmd);
int region_destroy(u32 id, u32 flags, const struct mwin_caller *c);
struct mwin_region *region_get(u32 id, const struct mwin_caller *c);
void region_put(struct mwin_region *r);
int region_get_info(struct mwin_region_info *info,
		    const struct mwin_caller *c);
u32 region_count(const struct mwin_caller *c, u64 *bytes);
struct mwin_region_map *region_map_dev(struct mwin_region *r,
				       struct mwin_dev *dev);
void region_map_hold(struct mwin_region *r, struct mwin_region_map *map);
void region_map_put(struct mwin_region *r, struct mwin_region_map *map);
void region_unmap_dev_all(struct mwin_dev *dev);
int region_insert_range(struct mwin_region *r, struct mwin_range *range,
			bool overlap);
int region_check_range(struct mwin_region *r, struct mwin_range *range,
		       u64 start, u64 last, bool overlap);
int region_move_range(struct mwin_region *r, struct mwin_range *range,
		      struct mwin_range *old, u64 start, u64 last, bool overlap);
void region_end_move(struct mwin_region *r, struct mwin_range *range,
		     struct mwin_range *old, bool undo);
void region_remove_range(struct mwin_region *r, struct mwin_range *range);

/* region_mem.c */
int region_check_user(const struct mwin_region_create *arg);
int region_pin_user(struct mwin_region *r, u64 addr);
int region_check_file(const struct mwin_region_create *arg);
int region_hold_file(struct mwin_region *r, int fd, u64 offset);
void region_release_backing(struct mwin_region *r);
void region_backing_info(const struct mwin_region *r,
			 struct mwin_region_info *info);
int mwin_mmap(struct file *file, struct vm_area_struct *vma);

/* batch.c */
struct batch;
struct batch *batch_alloc(unsigned int n, bool ops, gfp_t gfp);
void batch_free(struct batch *b);
struct mwin_window_bind batch_bind_of(const struct mwin_batch_op *op);
int window_batch(struct mwin_ucmd *ucmd, struct mwin_batch_op *ops,
		 unsigned int n, u32 *failed, struct mwin_obj **made);
void window_batch_end(struct mwin_obj **made, unsigned int n, bool reached);
void batch_expire(struct batch *b, struct mwin_window **ws, unsigned int n);

/* lease.c */
int lease_init(void);
void lease_exit(void);
void lease_set(struct mwin_window *w, u32 ms);
void lease_end(struct mwin_window *w);
u32 lease_left_ms(const struct mwin_window *w);
bool lease_due(const struct mwin_window *w);
void lease_expired(struct mwin_window *w);
void lease_reap(struct mwin_window *w);

/* window.c (the states), create.c (making one), grantee.c (its grantees) */
int window_create(struct mwin_ucmd *ucmd);
struct mwin_window *window_create_prep(struct mwin_ucmd *ucmd,
				       const struct mwin_window_bind *arg,
				       int *key);
int window_create_end(struct mwin_ucmd *ucmd, struct mwin_window *w,
		      struct mwin_window_bind *arg, int ret);
int window_rebind(struct mwin_window_bind *arg, const struct mwin_caller *c);
int window_invalidate(u32 id, const struct mwin_caller *c);
int window_destroy(u32 id, const struct mwin_caller *c);
int window_destroy_locked(struct mwin_window *w);
int window_destroy_obj(struct mwin_window *w);
void window_finish_destroy(struct mwin_window *w);
struct mwin_peer *window_draining_peer(struct mwin_window *w);
void window_end_once(struct mwin_window *w);
int window_renew(struct mwin_window_renew *arg, const struct mwin_caller *c);
int window_get_info(struct mwin_window_info *info,
		    const struct mwin_caller *c);
u32 window_count(const struct mwin_caller *c);
void window_put(struct mwin_window *w);
struct mwin_window *window_get(u32 id, const struct mwin_caller *c);
void window_lock(struct mwin_window *w);
void window_unbatch(struct mwin_window *w);
u32 window_pages(u64 offset, u64 length, u32 shift);
u32 window_page_shift(struct mwin_dev *dev, struct mwin_region *r,
		      const struct mwin_region_map *map);
int window_check_dev(struct mwin_dev *dev, struct mwin_region *r,
		     const struct mwin_window_bind *arg);
int window_pick_key(struct mwin_window *w);
int window_bind(struct mwin_window *w, struct mwin_peer *p,
		struct mwin_tenant *t, u32 access, bool *replaced,
		u32 *old_rkey);
int window_op_failed(struct mwin_window *w, int ret, bool was_bound);
int window_chain_failed(struct mwin_window *w, bool regrant, bool inv,
			int ret);
void window_abandoned(struct mwin_window *w, int ret);
void window_detach_peer(struct mwin_window *w, struct mwin_peer *p);
void window_remote_invalidate(struct mwin_peer *p, u32 rkey);
void window_regrant(struct mwin_window *w, struct mwin_peer *p);
void window_victim_regrant(struct work_struct *work);
void window_forget_tenant(struct mwin_tenant *t);
struct mwin_window *tenant_next_window(struct mwin_tenant *t, u64 *from,
				       u64 *none);
void window_set_tenant(struct mwin_window *w, struct mwin_tenant *t);
int window_find_grantee(const struct mwin_window_bind *arg,
			const struct mwin_caller *c, struct mwin_peer **pp,
			struct mwin_tenant **tp);
void window_put_grantee(struct mwin_peer *p, struct mwin_tenant *t);
int window_keep_grantee(struct mwin_window *w, struct mwin_peer **pp,
			struct mwin_tenant **tp);
void window_finalize(struct mwin_obj *o);
void window_unbind(struct mwin_window *w, enum mwin_wire_reason why);
int window_revoke(struct mwin_window *w, enum mwin_wire_reason why);
int window_lock_killable(struct mwin_window *w);
int window_pace(struct mwin_window *w);
int window_wait_old_peer(struct mwin_window *w);
void window_release_range(struct mwin_window *w);
int window_bind_undo(struct mwin_window *w, bool regrant, bool inv, int ret);
int window_bind_prep(struct mwin_window *w, struct mwin_peer *p,
		     struct mwin_tenant *t, bool *inv);
void window_fill_result(struct mwin_window *w, struct mwin_window_bind *arg);
void window_abort(struct mwin_obj *o);
void window_bound(struct mwin_window *w, u32 access, bool inv);
void window_invalidated(struct mwin_window *w, enum mwin_wire_reason why);
void window_tell_grant(struct mwin_window *w, const u32 *replaced);
void window_tell_revoke(struct mwin_window *w, u32 rkey,
			enum mwin_wire_reason why, struct mwin_peer *not);
int mwin_bench_rebind(u32 id, u32 iterations, u64 *ns, bool inv_only);

/* verbs.c */
void verbs_init_window(struct mwin_window *w);
int verbs_alloc_mr(struct mwin_window *w, struct mwin_peer *p, u32 pages);
int verbs_free_mr(struct mwin_window *w);
bool verbs_mr_mapped(struct mwin_window *w, u32 shift);
int verbs_map_mr(struct mwin_window *w, const struct mwin_region_map *map,
		 u32 shift);
unsigned long verbs_timeout(bool revokes);
long verbs_wait(struct mwin_peer *p, struct completion *done,
		unsigned long deadline, bool killable);
bool verbs_flushed(struct completion *done);
int verbs_permits(struct mwin_peer *p, unsigned int n, unsigned long deadline,
		  bool revokes);
int verbs_post_taken(struct mwin_peer *p, unsigned int n,
		     struct ib_send_wr *first, bool revokes);

/**
 * enum verbs_end - how a window chain that did not complete cleanly ended,
 *	for verbs_chain_end()
 * @VERBS_FAILED: it completed, a request in error (flushed, or failed)
 * @VERBS_LOST: it was posted and did not complete in time: the device
 *	holds it
 * @VERBS_UNPOSTED: nothing of it was posted (a revoke's: no permit, the
 *	post failed)
 * @VERBS_TORN: it was posted in part: its end never completes
 */
enum verbs_end {
	VERBS_FAILED,
	VERBS_LOST,
	VERBS_UNPOSTED,
	VERBS_TORN,
};

int verbs_chain_end(struct mwin_peer *p, struct completion *done,
		    enum verbs_end how);
int verbs_invalidate(struct mwin_window *w);
int verbs_register(struct mwin_window *w, u8 key, u32 access, bool revokes);
void verbs_prep_inv(struct mwin_window *w, struct ib_send_wr *wr, u32 rkey);
void verbs_prep_reg(struct mwin_window *w, struct ib_send_wr *inv_wr,
		    struct ib_reg_wr *reg_wr, u8 key, u32 access);
int verbs_status_errno(struct mwin_window *w, int status);

/* tenant.c */
int tenant_create(struct mwin_ucmd *ucmd);
int tenant_set(struct mwin_ucmd *ucmd);
int tenant_get(struct mwin_ucmd *ucmd);
int tenant_destroy(u32 id, const struct mwin_caller *c);
struct mwin_tenant *tenant_find(const char *name);
bool tenant_name_ok(const char *name);
void tenant_put(struct mwin_tenant *t);
bool tenant_may_grant(const struct mwin_tenant *t, const struct mwin_caller *c);
void tenant_add_peer(struct mwin_tenant *t, struct mwin_peer *p);
void tenant_del_peer(struct mwin_tenant *t, struct mwin_peer *p);
struct mwin_tenant *tenant_lookup(u32 id, const struct mwin_caller *c);
bool tenant_alive(const struct mwin_tenant *t);
int tenant_pd_join(struct mwin_peer *p);
void tenant_pd_add(struct mwin_peer *p);
void tenant_pd_remove(struct mwin_peer *p);
void tenant_pd_leave(struct mwin_peer *p);
int tenant_cut_off(struct mwin_tenant *t);
void tenant_pd_get(struct mwin_tenant_pd *tpd);
void tenant_pd_put(struct mwin_tenant_pd *tpd);
int tenant_pd_cut_off(struct mwin_tenant_pd *tpd,
		      enum mwin_down_reason why);
struct mwin_peer *tenant_pd_carrier(struct mwin_tenant_pd *tpd,
				    struct mwin_peer *not);
struct mwin_peer *tenant_carrier(struct mwin_tenant *t);
void tenant_pd_tell_grant(struct mwin_tenant_pd *tpd, struct mwin_window *w,
			  const u32 *replaced);
void tenant_pd_tell_revoke(struct mwin_tenant_pd *tpd, struct mwin_window *w,
			   u32 rkey, enum mwin_wire_reason why,
			   struct mwin_peer *not);
void tenant_regrant(struct mwin_peer *p);
void tenant_regrant_elsewhere(struct mwin_tenant *t);

/* admit.c */

/**
 * struct mwin_admission - what admit_request() found in a CONNECT_REQUEST
 * @version: of its hello
 * @tenant: the tenant it named, referenced; NULL: anonymous
 * @half_open: it holds a handshake slot: the module's, @tenant's and its
 *	source address's
 * @source: its source address's entry in admit.c's table
 * @proof_req: a struct mwin_wire_proof_req (admit_check_proof() checks
 *	it): @challenge, @nonce and @proof are its
 * @challenge: the challenge it answers
 * @expiry: the challenge's, when the module issued it for this tenant and
 *	source address and it is good still; else 0
 * @nonce: the peer's nonce
 * @proof: the peer's proof
 */
struct mwin_admission {
	u8 version;
	struct mwin_tenant *tenant;
	bool half_open;
	u16 source;
	bool proof_req;
	u8 challenge[MWIN_WIRE_CHALLENGE_LEN];
	u64 expiry;
	u8 nonce[MWIN_WIRE_PEER_NONCE_LEN];
	u8 proof[MWIN_WIRE_REQ_PROOF_LEN];
};

union mwin_accept_buf {
	struct mwin_wire_accept anon;
	struct mwin_wire_accept_tenant tenant;
};

/* proof.c: a tenant's proof in the connect request */
bool proof_keyed(struct mwin_tenant *t);
int proof_hmac(struct mwin_tenant *t, const char *label,
	       const u8 *a, size_t a_len, const u8 *b, size_t b_len,
	       u32 id, u8 out[MWIN_WIRE_PROOF_LEN]);
void proof_challenge_make(struct mwin_tenant *t, const struct sockaddr *sa,
			  u8 out[MWIN_WIRE_CHALLENGE_LEN]);
u64 proof_challenge_expiry(const struct mwin_admission *a,
			   const struct sockaddr *sa);
bool proof_ok(const struct mwin_admission *a);
int proof_challenge_use(const struct mwin_admission *a);

extern atomic64_t mwin_rejects[MWIN_REJECT_SLOTS];
u32 admit_nr_anon(void);
int admit_request(struct rdma_cm_id *id, const struct rdma_conn_param *conn,
		  struct mwin_admission *a);
void admit_reject(struct rdma_cm_id *id, struct mwin_tenant *t,
		  enum mwin_wire_reject_reason why);
void admit_count(struct mwin_tenant *t, enum mwin_wire_reject_reason why);
void admit_undo(struct mwin_admission *a);
void admit_source_bytes(const struct sockaddr *sa, u8 key[1 + 8]);
void admit_take(struct mwin_peer *p, struct mwin_admission *a);
int admit_peer_up(struct mwin_peer *p);
void admit_peer_gone(struct mwin_peer *p);
int admit_accept_data(struct mwin_peer *p, const struct mwin_admission *a,
		      union mwin_accept_buf *buf);

/* peer.c */

/* Can @p be granted windows? Connected or connecting. */
static inline bool peer_takes_grants(const struct mwin_peer *p)
{
	return READ_ONCE(p->state) != MWIN_PEER_CLOSING;
}

/* cm.c */
int peer_listen(void);
void peer_stop_listen(void);

struct mwin_peer *peer_get(u32 id);
void peer_put(struct mwin_peer *p);
void peer_kill(struct mwin_peer *p, enum mwin_down_reason why);
void peer_kill_sync(struct mwin_peer *p, enum mwin_down_reason why);
const char *peer_down_name(enum mwin_down_reason why);
int peer_wait_torn_down(struct mwin_peer *p);
struct mwin_peer *peer_alloc(struct rdma_cm_id *id, struct mwin_dev *dev,
			     struct mwin_admission *a);
void peer_free(struct mwin_peer *p);
int peer_create_qp(struct mwin_peer *p);
void peer_destroy_qp(struct mwin_peer *p);
int peer_qp_ready(struct mwin_peer *p, const struct rdma_conn_param *param);
void peer_queue_teardown(struct mwin_peer *p);
int peer_cut_off(struct mwin_peer *p, enum mwin_down_reason why);
int peer_cut_off_qp(struct mwin_peer *p, enum mwin_down_reason why);
int peer_reg_qp_failed(struct mwin_peer *p);
int peer_qps_to_err(struct mwin_peer *p, bool *moved);
void peer_queue_regrant(struct mwin_peer *p);
void peer_kick(struct mwin_peer *p);
int peer_ops_get(struct mwin_peer *p, unsigned int n, unsigned long deadline,
		 bool killable);
void peer_ops_put(struct mwin_peer *p, unsigned int n);
void peer_note_revoked(struct mwin_peer *p, u32 rkey);
bool peer_revoked(struct mwin_peer *p, u32 rkey);
int peer_disconnect(u32 id);
int peer_fill_info(struct mwin_peer_info *info);
int peer_fill_gone(struct mwin_peer_info *info);

/* msgs.c: what a peer is sent and sends */
void peer_msgs_init(struct mwin_peer *p);
int peer_alloc_bufs(struct mwin_peer *p);
void peer_free_bufs(struct mwin_peer *p);
int peer_post_recvs(struct mwin_peer *p);
void peer_established(struct mwin_peer *p);
void peer_bound_handshake(struct mwin_peer *p);
void peer_send_grant(struct mwin_peer *p, struct mwin_window *w,
		     const u32 *replaced);
void peer_hold_msgs(struct mwin_peer *p);
int peer_pace(struct mwin_peer *p);
void peer_release_msgs(struct mwin_peer *p);
void peer_send_revoke(struct mwin_peer *p, struct mwin_window *w, u32 rkey,
		      enum mwin_wire_reason reason);

#endif /* _MWIN_H */
