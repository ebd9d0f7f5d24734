/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the mwin selftests: open /dev/mwin, connect peers,
 * make regions and windows, and probe rkeys with real RDMA traffic.
 */
#ifndef _MWIN_TEST_H
#define _MWIN_TEST_H

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/*
 * A helper file linked into a test binary (a test's helpers or libtest.a in
 * the Makefile), with no TEST of its own, defines MWIN_TEST_HELPER first.
 * It gets the harness's macros (TH_LOG, EXPECT_*, ASSERT_* on a test's
 * _metadata), not the harness to run: its runner goes unused. Whatever the
 * harness of the day defines without static is defined again there; the
 * Makefile makes every symbol a helper's object defines weak (objcopy),
 * so the linker takes the test's file's. No test names a harness internal.
 */
#ifdef MWIN_TEST_HELPER
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop
#else
#include "kselftest_harness.h"
#endif
#include <mwin/mwin.h>
#include <mwin/peer.h>

/*
 * The harness kills a test after 30 s unless told otherwise. RDMA under
 * the debug kernel of make check-debug is about 30 times slower, and a
 * busy host slows both kernels: 120 s keeps a slow test from being called
 * hung. A hang is still caught, a little later; guest-run.sh bounds each
 * binary and vm-run the whole run.
 */
#undef TEST_TIMEOUT_DEFAULT
#define TEST_TIMEOUT_DEFAULT 120

#define TEST_TIMEOUT_MS 10000

/* An id no test will ever see: ids only grow, one per object made. */
#define NO_ID 4000000000U

/* CLOCK_MONOTONIC */
static inline uint64_t test_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static inline int64_t test_now_ms(void)
{
	return test_now_ns() / 1000000;
}

static inline double test_now_s(void)
{
	return test_now_ns() / 1e9;
}

/* The address the module listens on: the guest's eth0, set by the runner. */
static inline const char *test_host(void)
{
	const char *h = getenv("MWIN_TEST_HOST");

	return h ? h : "10.0.2.15";
}

/*
 * The RDMA device the tests run on, and its provider: what the VM set up
 * (tools/testing/vm/guest-setup.sh exports MWIN_DEV and MWIN_PROVIDER),
 * rxe0 of rxe when they are unset.
 */
static inline const char *test_dev_name(void)
{
	const char *d = getenv("MWIN_DEV");

	return d && *d ? d : "rxe0";
}

static inline const char *test_provider(void)
{
	const char *p = getenv("MWIN_PROVIDER");

	return p && *p ? p : "rxe";
}

static inline bool test_on_rxe(void)
{
	return !strcmp(test_provider(), "rxe");
}

/*
 * Running under make check-debug's kernel (KASAN, lockdep, ...), whose
 * release ends in the suffix (CONFIG_LOCALVERSION in
 * tools/testing/vm/debug.config)? One RDMA step there can take seconds:
 * for the few tests whose setup must outlast such a step.
 */
static inline bool test_debug_kernel(void)
{
	static const char suffix[] = "-mwin-debug";
	size_t n, len = sizeof(suffix) - 1;
	struct utsname u;

	if (uname(&u))
		return false;
	n = strlen(u.release);
	return n >= len && !strcmp(u.release + n - len, suffix);
}

/*
 * Skip the test on any provider but rxe: what it checks is rxe's own (a
 * quirk of rxe, or an rxe device it adds). First thing in a test, or in a
 * fixture's setup and again in each of its tests (the harness of 6.1 runs
 * a test whose setup skipped): a skip passes a test whatever failed before.
 */
#define TEST_RXE_ONLY(_why) do {					\
	if (!test_on_rxe())						\
		SKIP(return, "rxe only, the device is %s of %s: %s",	\
		     test_dev_name(), test_provider(), _why);		\
} while (0)

/*
 * Connect a peer and wait until the module, too, sees it established, so
 * that its state no longer changes under a test.
 */
static inline struct mwpeer *test_connect_to(const char *host)
{
	struct mwpeer *p = mwpeer_connect(host, 0, NULL, TEST_TIMEOUT_MS, NULL);
	struct mwin_peer_info pi;
	int fd = mwin_open(), i;

	for (i = 0; p && fd >= 0 && i < TEST_TIMEOUT_MS; i++) {
		if (!mwin_peer_get(fd, mwpeer_id(p), 0, &pi) &&
		    pi.state == MWIN_PEER_CONNECTED)
			break;
		usleep(1000);
	}
	if (fd >= 0)
		close(fd);
	return p;
}

static inline struct mwpeer *test_connect(void)
{
	return test_connect_to(test_host());
}

/* Bind helper: fills a struct mwin_window_bind. */
static inline struct mwin_window_bind test_bind(uint32_t region, uint32_t peer,
						uint64_t offset, uint64_t length,
						uint32_t access, uint32_t flags)
{
	struct mwin_window_bind b = {
		.size = sizeof(b),
		.flags = flags,
		.region = region,
		.peer = peer,
		.access = access,
		.offset = offset,
		.length = length,
	};

	return b;
}

/* Rebind window @b->id; @b gets the result. */
static inline int test_rebind(int fd, struct mwin_window_bind *b,
			      uint32_t peer, uint64_t offset, uint64_t length,
			      uint32_t access)
{
	uint32_t id = b->id;

	*b = test_bind(0, peer, offset, length, access, 0);
	b->id = id;
	return mwin_window_rebind(fd, b);
}

/*
 * The calls that revoke a window's rkey, for the tests that check each of
 * them fails closed: TEST_NR_REVOKES of them.
 */
enum test_revoke {
	TEST_REVOKE_INVALIDATE,
	TEST_REVOKE_REBIND,
	TEST_REVOKE_DESTROY,
	TEST_REVOKE_REGION_DESTROY,
	TEST_NR_REVOKES,
};

static inline const char *test_revoke_name(enum test_revoke c)
{
	switch (c) {
	case TEST_REVOKE_INVALIDATE:
		return "window invalidate";
	case TEST_REVOKE_REBIND:
		return "window rebind";
	case TEST_REVOKE_DESTROY:
		return "window destroy";
	default:
		return "region destroy --force";
	}
}

/*
 * Revoke window @b (of @region, at @b->offset, 4 KiB) by call @c: the
 * rebind moves it to read and write. Its result.
 */
static inline int test_revoke(int fd, enum test_revoke c,
			      struct mwin_window_bind *b, uint32_t region)
{
	switch (c) {
	case TEST_REVOKE_INVALIDATE:
		return mwin_window_invalidate(fd, b->id);
	case TEST_REVOKE_REBIND:
		return test_rebind(fd, b, 0, b->offset, 4096,
				   MWIN_ACCESS_READ | MWIN_ACCESS_WRITE);
	case TEST_REVOKE_DESTROY:
		return mwin_window_destroy(fd, b->id);
	default:
		return mwin_region_destroy(fd, region,
					   MWIN_REGION_DESTROY_FORCE);
	}
}

/* What @c returns when the peer's registration QP was poisoned. */
static inline int test_revoke_poisoned(enum test_revoke c)
{
	return c == TEST_REVOKE_INVALIDATE || c == TEST_REVOKE_REBIND ?
	       -ENOTCONN : 0;
}

/* Wait for the next message and check its kind and window. */
#define EXPECT_MSG(_peer, _type, _window, _rkey) do {			\
	struct mwpeer_msg _m;						\
	ASSERT_EQ(0, mwpeer_next_msg(_peer, &_m, TEST_TIMEOUT_MS));	\
	EXPECT_TRUE(_m.valid);						\
	EXPECT_EQ(_type, _m.type);					\
	EXPECT_EQ(_window, _m.window);					\
	EXPECT_EQ(_rkey, _m.rkey);					\
} while (0)

/* The state the module reports for a window. */
static inline uint32_t test_window_state(int fd, uint32_t id)
{
	struct mwin_window_info wi;

	if (mwin_window_get(fd, id, 0, &wi))
		return 0;
	return wi.state;
}

/* The number file @path holds, or @err when it cannot be read. */
static inline long test_read_long(const char *path, long err)
{
	long val;
	FILE *f = fopen(path, "r");

	if (!f)
		return err;
	if (fscanf(f, "%ld", &val) != 1)
		val = err;
	fclose(f);
	return val;
}

/* A module parameter's value, from sysfs; 0 when it cannot be read. */
static inline unsigned long test_param(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/module/mwin/parameters/%s", name);
	return test_read_long(path, 0);
}

/* Set a module parameter; 0 or -errno. */
static inline int test_set_param(const char *name, unsigned long val)
{
	char path[128];
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), "/sys/module/mwin/parameters/%s", name);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	ret = fprintf(f, "%lu\n", val) < 0 ? -EIO : 0;
	return fclose(f) ? -errno : ret;
}

/* Poll until the module has torn a peer down (its id is gone). */
static inline int test_wait_peer_gone(int fd, uint32_t id)
{
	struct mwin_peer_info pi;
	int i;

	for (i = 0; i < TEST_TIMEOUT_MS / 10; i++) {
		if (mwin_peer_get(fd, id, 0, &pi) == -ENOENT)
			return 0;
		usleep(10000);
	}
	return -ETIMEDOUT;
}

/*
 * Poll until the module holds no peer: one a test closed may still be
 * torn down (mwpeer_close() returns at once).
 */
static inline int test_wait_no_peers(int fd)
{
	struct mwin_info info;
	int i;

	for (i = 0; i < TEST_TIMEOUT_MS / 10; i++) {
		if (!mwin_info(fd, &info, NULL, 0) && !info.nr_peers)
			return 0;
		usleep(10000);
	}
	return -ETIMEDOUT;
}

/* Why the module let peer @id go, from its history; 0 if it did not. */
static inline uint32_t test_gone_reason(int fd, uint32_t id)
{
	struct mwin_peer_info pi;

	return mwin_peer_get(fd, id, MWIN_GET_GONE, &pi) ? 0 : pi.down_reason;
}

/* Run @cmd with the shell; its exit status, or -1. */
static inline int test_sh(const char *cmd)
{
	int ret = system(cmd);

	return WIFEXITED(ret) ? WEXITSTATUS(ret) : -1;
}

/* Drop root for user and group 65534, capabilities and all: 0 or -1. */
static inline int test_become_nobody(void)
{
	gid_t gid = 65534;

	return setgroups(1, &gid) || setgid(gid) || setuid(65534) ? -1 : 0;
}

/*
 * Load module @ko, unloading mwin first if it is loaded, with @params, or
 * with the runner's MWIN_MODULE_PARAMS when @params is NULL.
 */
static inline int test_load(const char *ko, const char *params)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd),
		 "rmmod mwin 2>/dev/null; insmod %s %s && udevadm settle", ko,
		 params ?: getenv("MWIN_MODULE_PARAMS") ?: "");
	return test_sh(cmd);
}

/* A WINDOW_CREATE in a thread of its own, for a test to race against. */
struct test_create {
	int fd;
	struct mwin_window_bind b;
	int ret;
};

static inline void *test_create_thread(void *arg)
{
	struct test_create *c = arg;

	c->ret = mwin_window_create(c->fd, &c->b);
	return NULL;
}

/* Wait until the module has closed @p's connection. */
static inline int test_wait_disconnected(struct mwpeer *p)
{
	int i;

	for (i = 0; i < TEST_TIMEOUT_MS / 50; i++) {
		if (mwpeer_state(p) == MWPEER_DISCONNECTED)
			return 0;
		mwpeer_poll(p, 50);
	}
	return -ETIMEDOUT;
}

/*
 * A peer in a child process, e.g. on a device a test removes: librdmacm keeps a device open for the
 * life of the process that used it, and rxe cannot take a device away from
 * a process that holds it. The child reports its peer id, then whether the
 * module disconnected it, and exits, letting go of the device.
 */
static inline char test_peer_use_grant(struct mwpeer *p)
{
	struct mwpeer_msg m;

	if (mwpeer_next_msg(p, &m, TEST_TIMEOUT_MS) || m.type != MWIN_WIRE_GRANT)
		return 'T';
	if (mwpeer_write(p, m.rkey, m.iova, "d", 1) ||
	    mwpeer_read(p, m.rkey, m.iova, NULL, 1) ||
	    ((char *)mwpeer_buf(p))[0] != 'd')
		return 'F';
	return 'K';
}

/*
 * @then: 'D' waits until the module disconnects the peer and answers 'D'
 * ('T' on timeout); 'G' waits for a grant, writes and reads through it and
 * answers 'K' ('F' when that fails).
 */
static inline pid_t test_spawn_peer(const char *host, char then, int *rfd)
{
	int pfd[2];
	pid_t pid;

	if (pipe(pfd))
		return -1;
	pid = fork();
	if (pid == 0) {
		struct mwpeer *p = test_connect_to(host);
		uint32_t id = p ? mwpeer_id(p) : 0;
		char verdict;

		close(pfd[0]);
		if (write(pfd[1], &id, sizeof(id)) != sizeof(id) || !p)
			_exit(1);
		if (then == 'D')
			verdict = test_wait_disconnected(p) ? 'T' : 'D';
		else
			verdict = test_peer_use_grant(p);
		if (write(pfd[1], &verdict, 1) != 1)
			_exit(1);
		_exit(0);
	}
	close(pfd[1]);
	*rfd = pfd[0];
	return pid;
}

/* Close @p and wait until the module, too, let it go. */
static inline void test_close_peer(int fd, struct mwpeer *p)
{
	uint32_t id = mwpeer_id(p);

	mwpeer_close(p);
	if (id)
		test_wait_peer_gone(fd, id);
}

/* The windows the module has (that the caller sees), ~0 when unknown. */
static inline uint32_t test_nr_windows(int fd)
{
	struct mwin_info info;

	return mwin_info(fd, &info, NULL, 0) ? ~0U : info.nr_windows;
}

/* Wait until window @id is in @state; its info in @wi. */
static inline int test_wait_window(int fd, uint32_t id, uint32_t state,
				   struct mwin_window_info *wi)
{
	int i;

	for (i = 0; i < TEST_TIMEOUT_MS / 10; i++) {
		if (!mwin_window_get(fd, id, 0, wi) && wi->state == state)
			return 0;
		usleep(10000);
	}
	return -ETIMEDOUT;
}

/* Wait until window @id is gone: a one-shot window's end. */
static inline int test_wait_window_gone(int fd, uint32_t id)
{
	struct mwin_window_info wi;
	int i;

	for (i = 0; i < TEST_TIMEOUT_MS / 10; i++) {
		if (mwin_window_get(fd, id, 0, &wi) == -ENOENT)
			return 0;
		usleep(10000);
	}
	return -ETIMEDOUT;
}

/* Wait until window @id is bound, carried by peer @peer; its info in @wi. */
static inline int test_wait_window_peer(int fd, uint32_t id, uint32_t peer,
					struct mwin_window_info *wi)
{
	int i;

	for (i = 0; i < TEST_TIMEOUT_MS / 10; i++) {
		if (!mwin_window_get(fd, id, 0, wi) && wi->peer == peer &&
		    wi->state == MWIN_WINDOW_BOUND)
			return 0;
		usleep(10000);
	}
	return -ETIMEDOUT;
}

/* Take @p's messages up to the next of @type about window @w, into @m. */
static inline int test_next_about(struct mwpeer *p, uint8_t type, uint32_t w,
				  struct mwpeer_msg *m)
{
	int ret;

	while (!(ret = mwpeer_next_msg(p, m, TEST_TIMEOUT_MS)))
		if (m->type == type && m->window == w)
			return 0;
	return ret;
}

/*
 * Take all of @p's messages: whether one was of @type (0: any) about
 * window @w. Called once the module has sent what it would have sent
 * with it: 200 ms without a message ends the wait.
 */
static inline bool test_told_about(struct mwpeer *p, uint8_t type, uint32_t w)
{
	struct mwpeer_msg m;
	bool told = false;

	while (!mwpeer_next_msg(p, &m, 200))
		told |= m.window == w && (!type || m.type == type);
	return told;
}

/* RDMA device @name as the module sees it, into @out: false if none. */
static inline bool test_dev(int fd, const char *name,
			    struct mwin_dev_info *out)
{
	struct mwin_dev_info devs[8];
	struct mwin_info info;
	uint32_t i;

	if (mwin_info(fd, &info, devs, 8))
		return false;
	for (i = 0; i < info.nr_devs && i < 8; i++) {
		if (!strcmp(devs[i].name, name)) {
			*out = devs[i];
			return true;
		}
	}
	return false;
}

/* RDMA device @name does remote atomics, as the module sees it. */
static inline bool test_dev_atomics(int fd, const char *name)
{
	struct mwin_dev_info dev;

	return test_dev(fd, name, &dev) && (dev.caps & MWIN_DEV_CAP_ATOMIC);
}

/* Does @p's device speak iWARP (its node type is an RNIC)? */
static inline bool test_iwarp(const struct mwpeer *p)
{
	char path[128], type[8] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/node_type",
		 mwpeer_dev_name(p));
	f = fopen(path, "r");
	if (f) {
		if (!fgets(type, sizeof(type), f))
			type[0] = 0;
		fclose(f);
	}
	return type[0] == '4';
}

/*
 * The status of a request that the rkey check must refuse, as RoCE gives
 * it: IBV_WC_REM_ACCESS_ERR. iWARP answers such a request with a TERMINATE
 * that ends the connection: a READ or an atomic completes in error or
 * flushed (or, posted after the TERMINATE, fails as a local QP operation
 * error), a WRITE (done once handed to TCP) succeeds locally and the
 * connection goes. Either is taken for IBV_WC_REM_ACCESS_ERR there; a
 * request that succeeded on a connection that stays keeps its status.
 */
static inline int test_refused_status(struct mwpeer *p, int status)
{
	if (!test_iwarp(p))
		return status;
	if (status == IBV_WC_WR_FLUSH_ERR || status == IBV_WC_REM_OP_ERR ||
	    status == IBV_WC_REM_INV_REQ_ERR ||
	    status == IBV_WC_LOC_QP_OP_ERR || status < 0)
		return IBV_WC_REM_ACCESS_ERR;
	if (status == IBV_WC_SUCCESS && !test_wait_disconnected(p))
		return IBV_WC_REM_ACCESS_ERR;
	return status;
}

/*
 * A WRITE whose bytes are in place when it returns: an iWARP WRITE
 * completes once TCP has it, and a refused one ends the connection later;
 * a READ of its first byte behind it on the same connection returns after
 * it was placed or refused (RDMAP orders the READ behind it), so that
 * READ's status stands for both. The window must allow READs (mwin refuses
 * write-only windows on iWARP). @iwarp: test_iwarp(@p), which the caller
 * keeps rather than read sysfs on every WRITE.
 */
static inline int test_write_fenced(struct mwpeer *p, bool iwarp,
				    uint32_t rkey, uint64_t raddr,
				    const void *buf, size_t len)
{
	int st = mwpeer_write(p, rkey, raddr, buf, len);

	if (st != IBV_WC_SUCCESS || !iwarp)
		return st;
	return mwpeer_read(p, rkey, raddr, NULL, 1);
}

#define EXPECT_ACCESS_REFUSED(p, status) \
	EXPECT_EQ(IBV_WC_REM_ACCESS_ERR, test_refused_status((p), (status)))
#define ASSERT_ACCESS_REFUSED(p, status) \
	ASSERT_EQ(IBV_WC_REM_ACCESS_ERR, test_refused_status((p), (status)))

/* All rights @p's device can grant: no atomics where it has none. */
static inline uint32_t test_all_access(int fd, const struct mwpeer *p)
{
	return test_dev_atomics(fd, mwpeer_dev_name(p)) ? MWIN_ACCESS_ALL :
	       MWIN_ACCESS_READ | MWIN_ACCESS_WRITE;
}

/* ---- user regions ------------------------------------------------- */

/* An anonymous private mapping of @len bytes: NULL when mmap() failed. */
static inline void *test_map_anon(size_t len, int prot)
{
	void *p = mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/*
 * A user region over [@addr, @addr + @len) of this process: 0 or -errno.
 * The ioctl itself, not libmwin's mwin_region_create_user(): the module's
 * checks are the test's, whatever the arguments.
 */
static inline int test_usermem_create(int fd, uint64_t addr, uint64_t len,
				      uint32_t flags, uint32_t *id)
{
	struct mwin_region_create c = {
		.size = sizeof(c),
		.flags = flags,
		.length = len,
		.kind = MWIN_REGION_KIND_USER,
		.addr = addr,
	};
	int ret = mwin_ioctl(fd, MWIN_REGION_CREATE, &c);

	if (!ret && id)
		*id = c.id;
	return ret;
}

/*
 * The region of a fixture that runs over both kinds, module and user
 * (FIXTURE_VARIANT with the kind): the same tests, the memory from either
 * place. @mem is the region's bytes as this process reaches them: a
 * module region's mapping of /dev/mwin, or the process's own buffer that
 * a user region is made of. The module zeroes its pages; the buffer is
 * filled with TEST_USER_FILL, so a READ of bytes nobody wrote shows whose
 * they are. @fill is that byte.
 */
struct test_region {
	uint32_t id;		/* 0 once destroyed */
	uint32_t kind;		/* enum mwin_region_kind */
	uint8_t *mem;
	size_t len;
	uint8_t fill;
};

#define TEST_USER_FILL	0xa5

/*
 * A region of @kind and @len bytes (whole pages) into @r: 0 or -errno.
 * test_region_destroy() undoes it, and what a failure left.
 */
static inline int test_region_create(int fd, uint32_t kind, size_t len,
				     struct test_region *r)
{
	int ret;

	memset(r, 0, sizeof(*r));
	r->kind = kind;
	if (kind == MWIN_REGION_KIND_MODULE) {
		ret = mwin_region_create(fd, len, 0, &r->id, NULL);
		if (ret)
			return ret;
		r->mem = mwin_region_mmap(fd, r->id, &r->len);
		return r->mem ? 0 : -errno;
	}
	r->mem = test_map_anon(len, PROT_READ | PROT_WRITE);
	if (!r->mem)
		return -errno;
	r->len = len;
	r->fill = TEST_USER_FILL;
	memset(r->mem, r->fill, len);
	return test_usermem_create(fd, (uintptr_t)r->mem, len, 0, &r->id);
}

/*
 * Destroy @r's region, its windows revoked, unless a test did (@r->id 0),
 * then unmap its bytes. Destroy's result.
 */
static inline int test_region_destroy(int fd, struct test_region *r)
{
	int ret = 0;

	if (r->id)
		ret = mwin_region_destroy(fd, r->id, MWIN_REGION_DESTROY_FORCE);
	r->id = 0;
	if (r->mem)
		munmap(r->mem, r->len);
	r->mem = NULL;
	return ret;
}

/* ---- tenants ------------------------------------------------------- */

/* The length of the keys the tenant tests give their tenants. */
#define TEST_KEY_LEN	32

/* Destroy every tenant whose name starts with @prefix: a test's own. */
static inline void test_destroy_tenants(int fd, const char *prefix)
{
	struct mwin_tenant_info t;
	uint32_t id = 0;

	while (!mwin_tenant_get(fd, id, MWIN_GET_NEXT, &t)) {
		id = t.id;
		if (!strncmp(t.name, prefix, strlen(prefix)))
			mwin_tenant_destroy(fd, id);
	}
}

/* A tenant @name with no key, any address, the default limits. */
static inline struct mwin_tenant_info test_tenant(const char *name)
{
	struct mwin_tenant_info t = { .owner = MWIN_NO_OWNER };

	/* NUL-padded: t is zeroed; a name of sizeof(t.name) has no NUL */
	memcpy(t.name, name, strnlen(name, sizeof(t.name)));
	return t;
}

/*
 * Tenant @name with @key of TEST_KEY_LEN bytes (NULL: none), owned by
 * @owner: its id, 0 when it could not be made.
 */
static inline uint32_t test_make_tenant(int fd, const char *name,
					const uint8_t *key, uint32_t owner)
{
	struct mwin_tenant_info t = test_tenant(name);

	t.owner = owner;
	if (key) {
		memcpy(t.key, key, TEST_KEY_LEN);
		t.key_len = TEST_KEY_LEN;
	}
	return mwin_tenant_create(fd, &t) ? 0 : t.id;
}

/* WINDOW_CREATE of [@off, @off + @len) with @access for tenant @tenant. */
static inline int test_grant_tenant(int fd, uint32_t region, uint32_t tenant,
				    uint64_t off, uint64_t len,
				    uint32_t access, struct mwin_window_bind *b)
{
	*b = test_bind(region, 0, off, len, access, 0);
	b->tenant = tenant;
	return mwin_window_create(fd, b);
}

/*
 * A peer of tenant @name (NULL: anonymous) with @key of TEST_KEY_LEN bytes
 * (NULL: none) and @o's other options (NULL: the defaults). *@err is
 * mwpeer_open()'s result; the peer is returned even when it failed, for
 * mwpeer_reject_reason() and mwpeer_close().
 */
static inline struct mwpeer *test_peer_of(const char *name, const void *key,
					  struct mwpeer_opts *o, int *err)
{
	struct mwpeer_opts d = { .timeout_ms = TEST_TIMEOUT_MS };
	struct mwpeer *p;

	if (!o)
		o = &d;
	o->tenant = name;
	o->key = key;
	o->key_len = key ? TEST_KEY_LEN : 0;
	p = mwpeer_create(o);
	if (!p) {
		*err = -errno;
		return NULL;
	}
	*err = mwpeer_open(p, test_host(), 0);
	return p;
}

/* The module's view of peer @id: its state, or 0 when it is gone. */
static inline uint32_t test_peer_state(int fd, uint32_t id)
{
	struct mwin_peer_info pi;

	return mwin_peer_get(fd, id, 0, &pi) ? 0 : pi.state;
}

/*
 * Wait until the module has peer @id in @state: a tenant's peer with a key
 * is CONNECTED only once the module checked its proof, which mwpeer_open()
 * does not wait for.
 */
static inline int test_wait_peer_state(int fd, uint32_t id, uint32_t state)
{
	int i;

	for (i = 0; i < TEST_TIMEOUT_MS; i++) {
		if (test_peer_state(fd, id) == state)
			return 0;
		usleep(1000);
	}
	return -ETIMEDOUT;
}

/* The QPs the RDMA core lists (iproute2's rdma tool): none is left behind. */
static inline int test_count_qps(void)
{
	return test_sh("exit $(rdma resource show qp 2>/dev/null | wc -l)");
}

/*
 * Is the QP @qpn (a module's QP, MWIN_PEER_GET's qpn) in the error state,
 * or gone, as the rdma tool shows it now? 0: it is; 1: it is in another
 * state; 2: the tool failed.
 */
static inline int test_qp_dead(uint32_t qpn)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd),
		 "out=$(rdma resource show qp 2>/dev/null) || exit 2; "
		 "line=$(printf '%%s\\n' \"$out\" | grep ' lqpn %u ') || exit 0; "
		 "case \"$line\" in *' state ERR '*) exit 0 ;; esac; "
		 "echo \"# QP %u alive: $line\"; exit 1", qpn, qpn);
	return test_sh(cmd);
}

/*
 * Is no MR with rkey @rkey left, as the rdma tool shows them now? 0: none
 * is; 1: one is; 2: the tool failed.
 */
static inline int test_mr_gone(uint32_t rkey)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd),
		 "out=$(rdma resource show mr 2>/dev/null) || exit 2; "
		 "printf '%%s\\n' \"$out\" | grep -q ' rkey 0x%x ' && exit 1; "
		 "exit 0", rkey);
	return test_sh(cmd);
}

/*
 * test_as_user()'s child, not waited for: its pid (to signal, then reap),
 * or -1.
 */
static inline pid_t test_start_as_user(uid_t uid,
				       int (*fn)(int fd, uint32_t id),
				       uint32_t id)
{
	pid_t pid = fork();

	if (pid == 0) {
		gid_t gid = uid;
		int fd;

		/* as root, setgid() and setuid() set every id, saved too */
		if (setgroups(1, &gid) || setgid(gid) || setuid(uid))
			_exit(100);
		fd = open(MWIN_DEV_PATH, O_RDWR);
		_exit(fd < 0 ? 101 : fn(fd, id));
	}
	return pid;
}

/*
 * @fn(fd, @id) in a child as user and group @uid, without capabilities,
 * on its own open of /dev/mwin (which the test must open to it): 0, or
 * what @fn returned (TEST_CHILD_CHECK: the line that failed), 100 and up
 * when the child could not get that far, -1 when it died.
 */
static inline int test_as_user(uid_t uid, int (*fn)(int fd, uint32_t id),
			       uint32_t id)
{
	int status;
	pid_t pid = test_start_as_user(uid, fn, id);

	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* In a test_as_user() child: report a failed check, and fail the child. */
#define TEST_CHILD_CHECK(cond) do {					\
	if (!(cond)) {							\
		fprintf(stderr, "%s:%d: as uid %u: failed: %s\n",	\
			__FILE__, __LINE__, getuid(), #cond);		\
		return __LINE__ % 100 + 1;				\
	}								\
} while (0)

#endif /* _MWIN_TEST_H */
