/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The framework of mwin_faults.c (read its opening comment first): what
 * the test process, the peer processes and the controller share through
 * one MAP_SHARED page, the fixture's data, and the helpers the tests call.
 *
 *  peer.c   the peer processes: RDMA traffic through their grants
 *  ctl.c    the controller process: threads of window and region calls
 *  drive.c  the test's side of both: start, command, watch, stop, report
 *  check.c  the module's objects against what the peers hold, and data
 *  sys.c    the world around: processes, the RDMA device, the module,
 *           slab memory
 */
#ifndef _MWIN_FAULTS_H
#define _MWIN_FAULTS_H

#include <stdarg.h>

#ifndef FAULTS_MAIN
#define MWIN_TEST_HELPER	/* one of the helper files: see mwin_test.h */
#endif
#include "../mwin_test.h"

#define NPEERS		3
#define SMOKE		NPEERS		/* slot of the fresh peer */
#define NSLOTS_PEER	(NPEERS + 1)
#define NTHREADS	4
#define MAX_GRANTS	256
#define MAX_ENDS	16384
#define MAX_MAPS	128
#define MAX_WINDOWS	4096
#define WIN_MAX		(16 * 1024)
#define FD_REGION	(256 * 1024)

#define LOAD(x)		__atomic_load_n(&(x), __ATOMIC_SEQ_CST)
#define STORE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_SEQ_CST)
#define INC(x)		__atomic_add_fetch(&(x), 1, __ATOMIC_SEQ_CST)

/* ------------------------------------------------------------ shared */

enum { PEER_HAMMER, PEER_IDLE };
enum { CMD_RUN, CMD_QUIESCE, CMD_VERIFY, CMD_STOP };

struct grant {
	uint32_t window;
	uint32_t rkey;
	uint64_t iova;
	uint64_t length;
	uint32_t access;
};

struct conn_end {
	uint32_t id;
	char how;
};

/* One peer process; the test writes the first block, the peer the rest. */
struct peer_slot {
	pid_t pid;
	int mode;
	int exit_when_gone;	/* exit once a reconnect fails */
	int cmd;
	unsigned int epoch;
	unsigned int drops;	/* drop the connection when this changes */

	unsigned int ack;	/* epoch of the last command carried out */
	unsigned int dropped;	/* drops carried out */
	uint32_t id;		/* peer id of the live connection, or 0 */
	uint32_t lost_id;	/* waiting to see the module close this one */
	int lost_gone;		/* the test saw the module drop lost_id */
	unsigned long ops, ok, failed, timeouts, self_inv;
	unsigned long grants_seen, revokes_seen;
	unsigned int connects, connect_fails;
	unsigned int proto_errors;
	unsigned int nends;
	struct conn_end ends[MAX_ENDS];
	char proto_first[160];

	/* what it held when it acknowledged the last quiesce or verify */
	int snap_connected;
	uint32_t snap_id;
	unsigned int snap_proto;
	unsigned int nsnap;
	struct grant snap[MAX_GRANTS];

	/* the last verify */
	unsigned int v_windows, v_fail;
	char v_msg[200];
};

enum {
	OP_NONE, OP_CREATE, OP_REBIND, OP_INVALIDATE, OP_DESTROY, OP_BATCH,
	OP_REGION, OP_FD, OP_QUERY, OP_DISCONNECT, OP_RACY, NOPS
};

extern const char *const op_name[NOPS];

struct ctl_thread {
	int op;			/* the call in flight, OP_NONE between calls */
	int64_t since_ms;	/* when it started */
	unsigned long calls[NOPS];
	unsigned long errors[NOPS];	/* allowed errors */
	unsigned long bad;
	char bad_msg[200];
};

struct shared {
	struct peer_slot peer[NSLOTS_PEER];
	int ctl_ready;
	int ctl_stop;
	int ctl_disconnects;	/* the controller may disconnect peers */
	int calm;		/* peers hand no grant back */
	uint32_t ctl_region[2];	/* module-owned, fd-owned */
	struct ctl_thread ct[NTHREADS];
};

/* The byte the test writes at @off of @window for the peers to check. */
static inline uint8_t pat(uint32_t window, uint64_t off)
{
	return (uint8_t)(window * 131 + off * 7 + 1);
}

/* ------------------------------------------------------- the fixture */

struct rmap {
	uint32_t id;
	uint8_t *mem;
	size_t len;
};

/* mwin_faults.c's FIXTURE(faults) */
FIXTURE_DATA(faults) {
	int fd;
	struct shared *sh;
	struct mwin_info info0;
	uint32_t base_window, base_region;
	pid_t ctl;
	unsigned int seed;
	double secs;
	int64_t t0;
	struct rmap maps[MAX_MAPS];
	int nmaps;
	struct mwin_window_info *wins;
	/*
	 * A check of this test failed: the harness counts each failure, and
	 * this tells the test's own loops to stop (the harness's record of
	 * it is not for tests to read).
	 */
	bool failed;
};

/* Seconds since the test started, for the log. */
static inline double t_rel(FIXTURE_DATA(faults) *self)
{
	return (test_now_ms() - self->t0) / 1000.0;
}

/* ------------------------------------------------------------ peer.c */

void __attribute__((noreturn)) peer_main(struct shared *sh, int i,
					 unsigned int seed);

/* ------------------------------------------------------------- ctl.c */

void __attribute__((noreturn)) ctl_main(struct shared *sh, unsigned int seed);

/* ----------------------------------------------------------- drive.c */

extern FIXTURE_DATA(faults) *watched;

void step_failed(struct __test_metadata *_metadata,
		 FIXTURE_DATA(faults) *self);
void watch_lost(void);
pid_t start_peer(FIXTURE_DATA(faults) *self, int i, int mode, bool fresh);
void start_peers(struct __test_metadata *_metadata,
		 FIXTURE_DATA(faults) *self);
int wait_peers_connected(FIXTURE_DATA(faults) *self, int from, int to,
			 int ms);
void peers_cmd(FIXTURE_DATA(faults) *self, int from, int to, int cmd);
int peers_wait_ack(struct __test_metadata *_metadata,
		   FIXTURE_DATA(faults) *self, int from, int to, int ms);
void check_ends(struct __test_metadata *_metadata,
		FIXTURE_DATA(faults) *self, int from, int to);
bool peer_saw_end(FIXTURE_DATA(faults) *self, uint32_t id, const char *how);
void stop_peers(struct __test_metadata *_metadata,
		FIXTURE_DATA(faults) *self, int from, int to);
unsigned long peers_ok(FIXTURE_DATA(faults) *self);
unsigned int peers_ends(FIXTURE_DATA(faults) *self);

void log_inflight(struct __test_metadata *_metadata,
		  FIXTURE_DATA(faults) *self, const char *what);
int start_ctl(struct __test_metadata *_metadata,
	      FIXTURE_DATA(faults) *self, bool disconnects);
void run_load(struct __test_metadata *_metadata,
	      FIXTURE_DATA(faults) *self, int ms);
int rand_ms(FIXTURE_DATA(faults) *self, int lo, int hi);
bool wait_for_op(FIXTURE_DATA(faults) *self, const int *ops, int nops,
		 int ms);
int reap_ctl(struct __test_metadata *_metadata,
	     FIXTURE_DATA(faults) *self, bool kill_it);
void ctl_report(struct __test_metadata *_metadata,
		FIXTURE_DATA(faults) *self);

/* ----------------------------------------------------------- check.c */

enum { CHECK_REBIND = 1, CHECK_VERIFY = 2 };

struct wsnap {
	uint32_t id, state, rkey, peer;
	uint64_t binds;
};

void set_base(FIXTURE_DATA(faults) *self);
void unmap_all(FIXTURE_DATA(faults) *self);
uint8_t *region_mem(FIXTURE_DATA(faults) *self, uint32_t id, size_t *len);
int list_windows(FIXTURE_DATA(faults) *self);
int snap_windows(FIXTURE_DATA(faults) *self, struct wsnap *out);
int bind_own(FIXTURE_DATA(faults) *self, uint32_t region, int from, int to,
	     uint32_t *ids);
void settle_and_check(struct __test_metadata *_metadata,
		      FIXTURE_DATA(faults) *self, int from, int to,
		      int what, const char *when);
int no_fd_owned(struct __test_metadata *_metadata,
		FIXTURE_DATA(faults) *self);
void cleanup_and_count(struct __test_metadata *_metadata,
		       FIXTURE_DATA(faults) *self);

/* ------------------------------------------------------------- sys.c */

/* Taken when the binary starts, before any test. */
struct start_state {
	long slab_kb, sunreclaim_kb, used_kb, mwin_objs;
	struct mwin_info info;
	int info_ok;
};

extern struct start_state at_start;

void child_init(void);
int wait_pid(pid_t pid, int ms, int *status);
void dump_stacks(struct __test_metadata *_metadata, pid_t pid,
		 const char *who);
int run_cmd(struct __test_metadata *_metadata, int ms, char *const argv[]);
long meminfo_kb(const char *key);
long slab_used_kb(void);
long mwin_slab_objs(void);
void drop_slab_caches(void);
bool exists(const char *path);
const char *dev_path(char *buf, size_t size, const char *tail);
bool dev_active(void);
int rdma_link_delete(struct __test_metadata *_metadata, int ms);
int rdma_link_add(struct __test_metadata *_metadata, int ms);
int module_call(struct __test_metadata *_metadata, bool load, int ms);
int module_refcnt(void);
bool mwin_has_dev(int fd, const char *name);
void restore_world(struct __test_metadata *_metadata);

#endif /* _MWIN_FAULTS_H */
