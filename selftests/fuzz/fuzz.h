/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The machinery of mwin_fuzz.c's random_ioctls, in fuzz.c: the fuzzer
 * threads (random ioctls drawn from shared pools of ids, tallied per
 * operation and errno), the traffic peers (RDMA through whatever they are
 * granted, and probes of revoked rkeys), the stranger (another user's
 * calls at root's ids) and a /proc/meminfo reader. They share struct
 * shared, in memory that the stranger's process shares too; mwin_fuzz.c
 * starts them, stops them and checks what they leave.
 */
#ifndef _MWIN_FUZZ_H
#define _MWIN_FUZZ_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <mwin/mwin.h>
#include <mwin/peer.h>

#define NFUZZ		4
#define NTRAFFIC	2
#define POOL		32
#define WPOOL		256
#define STRANGER_UID	60003

/*
 * A lease runs out while the others hammer its window, or there is none;
 * at most LEASE_MAX_MS, so that all have run out in the quiet moment
 * before the final check (a one-shot window's expiry destroys it).
 */
#define LEASE_MAX_MS	300

enum {
	OP_REGION_CREATE, OP_REGION_DESTROY, OP_REGION_GET, OP_MMAP,
	OP_WINDOW_CREATE, OP_WINDOW_REBIND, OP_WINDOW_INVALIDATE,
	OP_WINDOW_DESTROY, OP_WINDOW_GET, OP_PEER_GET, OP_PEER_DISCONNECT,
	OP_INFO, OP_MONITOR, OP_RAW, OP_REOPEN, OP_WINDOW_RENEW, NOPS
};

extern const char *const op_name[NOPS];

/*
 * errs[]: the errnos counted per operation, 0 and these; anything else is
 * "other".
 * ECONNABORTED: a revoke that the device did not complete within
 * revoke_timeout_ms cut its peer off. On 6.12, whose rxe works in kworkers
 * that compete with the fuzzers for the two vCPUs, that happens.
 * ENODEV: REGION_CREATE with MWIN_REGION_NEAR_DEV of a device index that
 * mwin does not have.
 * EACCES: a window with write or atomic rights in a region that call()'s
 * random flag bit made MWIN_REGION_READ_ONLY.
 */
#define NERRS 20
extern const int errs[];

struct shared {
	double deadline;
	int stop;
	uint32_t regions[POOL];
	uint64_t rlen[POOL];
	uint32_t windows[WPOOL];
	uint32_t peers[NTRAFFIC];
	/* results */
	unsigned long count[NOPS][NERRS + 1];
	int other[NOPS];	/* the first errno counted as "other" */
	unsigned long traffic_ok, traffic_fail, reconnects, probes;
	unsigned long violations;
	char first[256];
	/* the stranger's, a process of its own: no lock */
	unsigned long stranger_calls, stranger_bad;
	char stranger_first[256];
	pthread_mutex_t lock;
};

/* in MAP_SHARED memory, for the stranger's process too */
extern struct shared *sh;

#define LOAD(x)		__atomic_load_n(&(x), __ATOMIC_SEQ_CST)
#define STORE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_SEQ_CST)

/* a fuzzer thread: its own fd (reopened now and then) and monitor fd */
struct fuzzer {
	int t;
	int fd;
	int mon;
	unsigned int seed;
};

/* a traffic peer thread, sh->peers[t] */
struct traffic {
	int t;
	int fd;
	bool access;		/* MWIN_FUZZ_TRAFFIC=0: connected, idle */
	unsigned int seed;
	struct mwpeer *p;
	/* grants as last seen, to know the range of a revoked rkey */
	struct mwpeer_msg seen[WPOOL];
	size_t nseen;
	struct { uint32_t rkey; uint64_t iova; double at; } revoked[16];
	unsigned int nrev;
};

/* pthread bodies: a struct fuzzer, a struct traffic */
void *fuzz_thread(void *arg);
void *traffic_thread(void *arg);

/* The stranger, in a process of its own, until sh->stop or the deadline. */
int stranger(void);

/* MemFree and the Slab lines of /proc/meminfo, in @out */
void meminfo(char *out, size_t len);

#endif /* _MWIN_FUZZ_H */
