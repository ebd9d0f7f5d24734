// SPDX-License-Identifier: GPL-2.0
/*
 * Fail the 1st, 2nd, ... memory allocation of a call until it succeeds, in
 * the style of the kernel's tools/testing/selftests/iommu/iommufd_fail_nth.c.
 * Every failure must return its errno, change nothing (the object counts
 * and id listings before and after), and the same call without injection
 * must then work. Needs a kernel with CONFIG_FAULT_INJECTION (the debug
 * kernel of make check-debug); skips elsewhere.
 *
 * Ioctls fail through /proc/self/task/<tid>/fail-nth, which counts the
 * allocations (slab and page) of the calling task only. A peer's connect is
 * set up by the RDMA CM in a kernel worker, so for it failslab is armed for
 * kernel workers alone (task-filter, make-it-fail) to fail once, at the
 * n-th allocation of a worker after arming from a kmalloc cache of 512
 * bytes or more (cache-filter): interval = count + n, with count the
 * injector's hidden counter of the calls it has filtered (not readable:
 * kept in COUNT_FILE, 0 at boot). 6.1 has no stacktrace filter on x86_64,
 * so these are all the workers' allocations during a connect, the RDMA
 * core's and the peer's too, not only mwin's.
 */
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/syscall.h>

#include "mwin_test.h"

#define DBGFS		"/sys/kernel/debug"
#define COUNT_FILE	"/run/mwin_fail_nth.count"
#define MAX_NTH		1000
#define MAX_IDS		64
#define MAX_ERRNO	256

/* ------------------------------------------------------------ framework */

static int write_str(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY), ret;

	if (fd < 0)
		return -errno;
	ret = write(fd, val, strlen(val)) < 0 ? -errno : 0;
	close(fd);
	return ret;
}

static long read_long(const char *path)
{
	char buf[32] = "";
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	if (read(fd, buf, sizeof(buf) - 1) < 0)
		buf[0] = 0;
	close(fd);
	return strtol(buf, NULL, 0);
}

static int knob(const char *attr, const char *name, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), DBGFS "/%s/%s", attr, name);
	return write_str(path, val);
}

static char fail_nth_path[64];

/*
 * Both injectors quiet (no "forcing a failure" and no stack trace: vm-run
 * takes a Call Trace for a kernel bug), failing sleeping and highmem
 * allocations and single pages too, and off unless fail-nth asks.
 */
static bool fault_setup(void)
{
	static const char *const attrs[] = { "failslab", "fail_page_alloc" };
	unsigned int i;

	snprintf(fail_nth_path, sizeof(fail_nth_path),
		 "/proc/self/task/%ld/fail-nth", (long)syscall(SYS_gettid));
	if (access(fail_nth_path, W_OK))
		return false;
	for (i = 0; i < 2; i++) {
		if (knob(attrs[i], "verbose", "0") ||
		    knob(attrs[i], "probability", "0") ||
		    knob(attrs[i], "ignore-gfp-wait", "N") ||
		    knob(attrs[i], "task-filter", "N") ||
		    knob(attrs[i], "interval", "1") ||
		    knob(attrs[i], "space", "0") ||
		    knob(attrs[i], "times", "1"))
			return false;
	}
	return !knob("failslab", "cache-filter", "N") &&
	       !knob("fail_page_alloc", "ignore-gfp-highmem", "N") &&
	       !knob("fail_page_alloc", "min-order", "0");
}

static void fail_nth_arm(unsigned int nth)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%u", nth);
	write_str(fail_nth_path, buf);
}

/* Disarm; true when the armed allocation was reached (and failed). */
static bool fail_nth_reached(void)
{
	long left = read_long(fail_nth_path);

	write_str(fail_nth_path, "0");
	return left == 0;
}

/* What must not change when a call fails. */
struct state {
	struct mwin_info info;
	uint32_t regions[MAX_IDS], windows[MAX_IDS], peers[MAX_IDS];
	unsigned int nr_regions, nr_windows, nr_peers;
};

static void state_get(int fd, struct state *s)
{
	struct mwin_region_info ri = { .id = 0 };
	struct mwin_window_info wi = { .id = 0 };
	struct mwin_peer_info pi = { .id = 0 };

	memset(s, 0, sizeof(*s));
	mwin_info(fd, &s->info, NULL, 0);
	while (s->nr_regions < MAX_IDS &&
	       !mwin_region_get(fd, ri.id, MWIN_GET_NEXT, &ri))
		s->regions[s->nr_regions++] = ri.id;
	while (s->nr_windows < MAX_IDS &&
	       !mwin_window_get(fd, wi.id, MWIN_GET_NEXT, &wi))
		s->windows[s->nr_windows++] = wi.id;
	while (s->nr_peers < MAX_IDS &&
	       !mwin_peer_get(fd, pi.id, MWIN_GET_NEXT, &pi))
		s->peers[s->nr_peers++] = pi.id;
}

/*
 * Each check that fails is counted by the harness; the checks of the sweep
 * also return whether they held, so that it can say at which nth they
 * failed (the harness's record of it is not for tests to read).
 */
static bool expect_state_eq(struct __test_metadata *_metadata,
			    const struct state *a, const struct state *b)
{
	bool ok = true;

	EXPECT_EQ(a->info.nr_regions, b->info.nr_regions)
		ok = false;
	EXPECT_EQ(a->info.region_bytes, b->info.region_bytes)
		ok = false;
	EXPECT_EQ(a->info.nr_windows, b->info.nr_windows)
		ok = false;
	EXPECT_EQ(a->info.nr_peers, b->info.nr_peers)
		ok = false;
	EXPECT_EQ(a->nr_regions, b->nr_regions)
		ok = false;
	EXPECT_EQ(a->nr_windows, b->nr_windows)
		ok = false;
	EXPECT_EQ(a->nr_peers, b->nr_peers)
		ok = false;
	EXPECT_EQ(0, memcmp(a->regions, b->regions, sizeof(a->regions)))
		ok = false;
	EXPECT_EQ(0, memcmp(a->windows, b->windows, sizeof(a->windows)))
		ok = false;
	EXPECT_EQ(0, memcmp(a->peers, b->peers, sizeof(a->peers)))
		ok = false;
	return ok;
}

/* Take whatever the module sent a peer, so its receives stay posted. */
static void drain(struct mwpeer *p)
{
	struct mwpeer_msg m;

	if (p)
		while (!mwpeer_next_msg(p, &m, 0))
			;
}

/* Bad messages @p received since the last look (*@seen before). */
static unsigned int proto_errors(struct mwpeer *p, unsigned int *seen)
{
	const char *first;
	unsigned int n, new;

	drain(p);
	n = mwpeer_proto_errors(p, &first);
	new = n - *seen;
	*seen = n;
	if (new)
		fprintf(stderr, "# peer %u: %u bad messages, the first: %s\n",
			mwpeer_id(p), n, first);
	return new;
}

FIXTURE(fail_nth)
{
	int fd;
	uint32_t region;
	struct mwpeer *a;
	struct mwpeer *b;
	struct mwpeer *c;	/* peer_connect's */
	unsigned int seen_a, seen_b;	/* bad messages a and b received */
	bool skipped;	/* the setup skipped: the test has nothing to run */
};

/* A call under test: 0 or a negative errno; undo() reverts a success. */
struct fail_call {
	const char *name;
	/* the errno a failure must return; 0: any */
	int err;
	/* how to fail the nth allocation; NULL: fail-nth of this task */
	void (*arm)(unsigned int nth);
	bool (*reached)(void);
	int (*call)(FIXTURE_DATA(fail_nth) *self, void *arg);
	void (*undo)(FIXTURE_DATA(fail_nth) *self, void *arg);
	/*
	 * After a failure: what else must hold (false: it did not), and
	 * undo the parts of the call that may succeed alone (batch
	 * entries); may be NULL.
	 */
	bool (*check)(struct __test_metadata *_metadata,
		      FIXTURE_DATA(fail_nth) *self, void *arg);
};

/*
 * Sweep nth = 1, 2, ... until the call succeeds without reaching the
 * armed allocation. Every failure: ENOMEM, nothing changed, and the call
 * then works without injection. Prints the number of injection points.
 */
static void fail_nth_sweep(struct __test_metadata *_metadata,
			   FIXTURE_DATA(fail_nth) *self,
			   const struct fail_call *c, void *arg)
{
	unsigned int nth, failed = 0, survived = 0, errs[MAX_ERRNO] = {};
	struct state before, after;
	bool reached, ok;
	int ret;

	if (self->skipped)
		return;
	for (nth = 1; nth <= MAX_NTH; nth++) {
		ok = true;
		drain(self->a);
		drain(self->b);
		state_get(self->fd, &before);
		(c->arm ?: fail_nth_arm)(nth);
		ret = c->call(self, arg);
		reached = (c->reached ?: fail_nth_reached)();
		if (!reached) {
			ASSERT_EQ(0, ret);
			c->undo(self, arg);
			break;
		}
		if (!ret) {
			/* the failure was absorbed (a fallback, a retry) */
			survived++;
			c->undo(self, arg);
		} else {
			failed++;
			if (ret != (c->err ?: ret))
				TH_LOG("%s: nth %u: %s", c->name, nth,
				       strerror(-ret));
			EXPECT_EQ(c->err ?: ret, ret)
				ok = false;
			EXPECT_GT(0, ret)
				ok = false;
			if (ret < 0 && ret > -MAX_ERRNO)
				errs[-ret]++;
			if (c->check && !c->check(_metadata, self, arg))
				ok = false;
			state_get(self->fd, &after);
			if (!expect_state_eq(_metadata, &before, &after))
				ok = false;
			/* the same call, without injection, works */
			ASSERT_EQ(0, c->call(self, arg)) {
				TH_LOG("%s: after a failure at nth %u",
				       c->name, nth);
			}
			c->undo(self, arg);
		}
		state_get(self->fd, &after);
		if (!expect_state_eq(_metadata, &before, &after))
			ok = false;
		/* the peers saw only messages that make sense */
		EXPECT_EQ(0, proto_errors(self->a, &self->seen_a))
			ok = false;
		EXPECT_EQ(0, proto_errors(self->b, &self->seen_b))
			ok = false;
		/* go on, to find every failing nth */
		if (!ok)
			TH_LOG("%s: the checks above failed at nth %u",
			       c->name, nth);
	}
	EXPECT_GE(MAX_NTH, nth);
	printf("# %s: %u injection points (%u failed the call:",
	       c->name, nth - 1, failed);
	for (ret = 1; ret < MAX_ERRNO; ret++)
		if (errs[ret])
			printf(" %u %s", errs[ret], strerror(ret));
	printf("; %u absorbed)\n", survived);
	fflush(stdout);	/* the harness's child ends with _exit() */
}

FIXTURE_SETUP(fail_nth)
{
	if (!fault_setup()) {
		self->skipped = true;
		SKIP(return, "no fault injection (CONFIG_FAULT_INJECTION, "
			     "FAILSLAB, FAIL_PAGE_ALLOC, debugfs knobs)");
	}
	self->fd = mwin_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, mwin_region_create(self->fd, 1 << 20, 0, &self->region,
					NULL));
	self->a = test_connect();
	ASSERT_NE(NULL, self->a);
	self->b = test_connect();
	ASSERT_NE(NULL, self->b);
}

FIXTURE_TEARDOWN(fail_nth)
{
	if (self->fd <= 0)
		return;
	knob("failslab", "probability", "0");
	knob("fail_page_alloc", "probability", "0");
	mwin_region_destroy(self->fd, self->region, MWIN_REGION_DESTROY_FORCE);
	mwpeer_close(self->a);
	mwpeer_close(self->b);
	close(self->fd);
}

/* ---------------------------------------------------------------- ioctls */

static uint32_t new_id;

static int region_create(FIXTURE_DATA(fail_nth) *self, void *arg)
{
	return mwin_region_create(self->fd, *(uint64_t *)arg, 0, &new_id, NULL);
}

static void region_destroy(FIXTURE_DATA(fail_nth) *self, void *arg)
{
	mwin_region_destroy(self->fd, new_id, 0);
}

TEST_F_TIMEOUT(fail_nth, region_create, 300)
{
	const struct fail_call c = { .name = "region create", .err = -ENOMEM,
				     .call = region_create,
				     .undo = region_destroy };
	uint64_t len = 1 << 20;

	fail_nth_sweep(_metadata, self, &c, &len);
}

/* Large enough that the page array is no longer one kmalloc. */
TEST_F_TIMEOUT(fail_nth, region_create_large, 300)
{
	const struct fail_call c = { .name = "region create 8 MiB",
				     .err = -ENOMEM, .call = region_create,
				     .undo = region_destroy };
	uint64_t len = 8 << 20;

	fail_nth_sweep(_metadata, self, &c, &len);
}

static int window_create(FIXTURE_DATA(fail_nth) *self, void *arg)
{
	struct mwin_window_bind b = test_bind(self->region, mwpeer_id(self->a),
					      4096, 3 * 4096 + 5,
					      MWIN_ACCESS_READ, 0);
	int ret = mwin_window_create(self->fd, &b);

	new_id = b.id;
	return ret;
}

static void window_destroy(FIXTURE_DATA(fail_nth) *self, void *arg)
{
	mwin_window_destroy(self->fd, new_id);
}

TEST_F_TIMEOUT(fail_nth, window_create, 300)
{
	const struct fail_call c = { .name = "window create", .err = -ENOMEM,
				     .call = window_create,
				     .undo = window_destroy };

	fail_nth_sweep(_metadata, self, &c, NULL);
}

/* Rebind of window new_id from peer a, range 1 to peer/range of @arg. */
struct rebind {
	struct mwin_window_info orig;
	struct mwpeer *to;
	uint64_t offset, length;
};

static int rebind(FIXTURE_DATA(fail_nth) *self, void *arg)
{
	struct rebind *r = arg;
	struct mwin_window_bind b = { .id = r->orig.id };

	return test_rebind(self->fd, &b, mwpeer_id(r->to), r->offset,
			   r->length, MWIN_ACCESS_READ | MWIN_ACCESS_WRITE);
}

static void rebind_back(FIXTURE_DATA(fail_nth) *self, void *arg)
{
	struct rebind *r = arg;
	struct mwin_window_bind b = { .id = r->orig.id };

	test_rebind(self->fd, &b, r->orig.peer, r->orig.offset,
		    r->orig.length, r->orig.access);
}

/* A failed rebind keeps range, rights and peer; its old rkey is dead. */
static bool rebind_check(struct __test_metadata *_metadata,
			 FIXTURE_DATA(fail_nth) *self, void *arg)
{
	struct rebind *r = arg;
	struct mwin_window_info wi;
	bool ok = true;

	ASSERT_EQ(0, mwin_window_get(self->fd, r->orig.id, 0, &wi));
	EXPECT_EQ(r->orig.offset, wi.offset)
		ok = false;
	EXPECT_EQ(r->orig.length, wi.length)
		ok = false;
	EXPECT_EQ(r->orig.access, wi.access)
		ok = false;
	EXPECT_NE(MWIN_WINDOW_BROKEN, wi.state)
		ok = false;
	if (wi.state != MWIN_WINDOW_UNBOUND) {
		EXPECT_EQ(r->orig.peer, wi.peer)
			ok = false;
	}
	if (wi.state == MWIN_WINDOW_BOUND) {
		EXPECT_NE(r->orig.rkey, wi.rkey)
			ok = false;
	}
	return ok;
}

static void rebind_sweep(struct __test_metadata *_metadata,
			 FIXTURE_DATA(fail_nth) *self, const char *name,
			 struct mwpeer *to, uint64_t offset, uint64_t length)
{
	const struct fail_call c = { .name = name, .err = -ENOMEM,
				     .call = rebind, .undo = rebind_back,
				     .check = rebind_check };
	struct rebind r = { .to = to, .offset = offset, .length = length };

	if (self->skipped)
		return;
	ASSERT_EQ(0, window_create(self, NULL));
	ASSERT_EQ(0, mwin_window_get(self->fd, new_id, 0, &r.orig));
	fail_nth_sweep(_metadata, self, &c, &r);
	mwin_window_destroy(self->fd, r.orig.id);
}

TEST_F_TIMEOUT(fail_nth, window_rebind_other_peer, 300)
{
	rebind_sweep(_metadata, self, "window rebind to another peer",
		     self->b, 4096, 3 * 4096 + 5);
}

TEST_F_TIMEOUT(fail_nth, window_rebind_larger_range, 300)
{
	rebind_sweep(_metadata, self, "window rebind to a larger range",
		     self->a, 0, 64 * 4096);
}

/* A batch of creates for both peers (and a rebind of a window of a's). */
#define NBATCH 4

struct batch {
	uint32_t win;
	uint32_t failed;
	struct mwin_batch_op ops[NBATCH];
};

static int batch(FIXTURE_DATA(fail_nth) *self, void *arg)
{
	struct batch *bt = arg;
	struct mwin_window_batch cmd = {
		.size = sizeof(cmd),
		.count = NBATCH,
		.op_size = sizeof(bt->ops[0]),
		.ops = (uintptr_t)bt->ops,
	};
	int i, ret;

	for (i = 0; i < NBATCH - 1; i++)
		bt->ops[i] = (struct mwin_batch_op){
			.opcode = MWIN_BATCH_CREATE, .region = self->region,
			.peer = mwpeer_id(i % 2 ? self->b : self->a),
			.offset = (i + 1) * 65536, .length = 8192 + i,
			.access = MWIN_ACCESS_WRITE,
		};
	bt->ops[i] = (struct mwin_batch_op){
		.opcode = MWIN_BATCH_REBIND, .id = bt->win,
		.peer = mwpeer_id(self->b), .offset = 0, .length = 4096,
		.access = MWIN_ACCESS_READ,
	};
	ret = mwin_ioctl(self->fd, MWIN_WINDOW_BATCH, &cmd);
	bt->failed = cmd.failed;
	if (ret)
		return ret;
	for (i = 0; i < NBATCH; i++)
		if (bt->ops[i].result)
			return bt->ops[i].result;
	/* failed entries, none with a result: batch_check() says more */
	return cmd.failed ? -EBADMSG : 0;
}

/* Destroy the windows the batch created; put the rebound one back. */
static void batch_undo(FIXTURE_DATA(fail_nth) *self, void *arg)
{
	struct batch *bt = arg;
	struct mwin_window_bind b = { .id = bt->win };
	int i;

	for (i = 0; i < NBATCH - 1; i++)
		if (!bt->ops[i].result && bt->ops[i].id)
			mwin_window_destroy(self->fd, bt->ops[i].id);
	test_rebind(self->fd, &b, mwpeer_id(self->a), 4096, 3 * 4096 + 5,
		    MWIN_ACCESS_READ);
}

/* Each entry failed alone, with ENOMEM; then undo what succeeded. */
static bool batch_check(struct __test_metadata *_metadata,
			FIXTURE_DATA(fail_nth) *self, void *arg)
{
	struct batch *bt = arg;
	unsigned int i, nfailed = 0;
	bool ok = true;

	for (i = 0; i < NBATCH; i++) {
		nfailed += !!bt->ops[i].result;
		if (bt->ops[i].result) {
			EXPECT_EQ(-ENOMEM, bt->ops[i].result)
				ok = false;
		}
		if (i < NBATCH - 1 && bt->ops[i].result) {
			EXPECT_EQ(0, test_window_state(self->fd,
						       bt->ops[i].id))
				ok = false;
		}
	}
	/* "failed" counts the entries whose result is not 0 */
	EXPECT_EQ(nfailed, bt->failed)
		ok = false;
	batch_undo(self, arg);
	return ok;
}

TEST_F_TIMEOUT(fail_nth, window_batch, 300)
{
	const struct fail_call c = { .name = "window batch", .err = -ENOMEM,
				     .call = batch, .undo = batch_undo,
				     .check = batch_check };
	struct batch bt;

	if (self->skipped)
		return;
	ASSERT_EQ(0, window_create(self, NULL));
	bt.win = new_id;
	fail_nth_sweep(_metadata, self, &c, &bt);
	mwin_window_destroy(self->fd, bt.win);
}

/* ---------------------------------------------------------- peer connect */

/*
 * failslab's count of the calls it filtered while armed with an interval
 * over 1 (attr->count in lib/fault-inject.c): 0 at boot, only this test
 * moves it, and it stops when the armed failure happened (times 0).
 */
static unsigned long slab_count;
static unsigned int slab_nth;

static void count_load(void)
{
	long c = read_long(COUNT_FILE);

	slab_count = c > 0 ? c : 0;
}

static void count_save(void)
{
	int fd = open(COUNT_FILE, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	char buf[32];

	snprintf(buf, sizeof(buf), "%lu", slab_count);
	if (fd >= 0) {
		if (write(fd, buf, strlen(buf)) < 0)
			perror(COUNT_FILE);
		close(fd);
	}
}

/* make-it-fail of every kernel worker (and, for @self, of this thread) */
static unsigned int flag_workers(const char *val)
{
	unsigned int n = 0;
	struct dirent *e;
	DIR *d = opendir("/proc");
	char path[300], comm[32];

	while (d && (e = readdir(d))) {
		int fd;

		if (!isdigit(e->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", e->d_name);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		memset(comm, 0, sizeof(comm));
		if (read(fd, comm, sizeof(comm) - 1) > 0 &&
		    !strncmp(comm, "kworker/", 8)) {
			snprintf(path, sizeof(path), "/proc/%s/make-it-fail",
				 e->d_name);
			n += !write_str(path, val);
		}
		close(fd);
	}
	if (d)
		closedir(d);
	return n;
}

/*
 * Only kmalloc caches of 512 bytes and more fail (cache-filter, with the
 * mark slub_debug=A,kmalloc-512,... gives them at boot): rxe makes
 * its queues with vmalloc_user(), and vmalloc warns with a stack trace
 * when its own small allocations (struct vm_struct, struct vmap_area)
 * fail. The peer, its message buffers, the PD, CQ and QP objects are in
 * these caches.
 */
static const char *const slab_caches[] = {
	"kmalloc-512", "kmalloc-1k", "kmalloc-2k", "kmalloc-4k", "kmalloc-8k",
};

/* The caches carry the failslab mark (slub_debug=A,... at boot)? */
static bool slab_caches_marked(void)
{
	char path[128];
	unsigned int i;

	for (i = 0; i < sizeof(slab_caches) / sizeof(slab_caches[0]); i++) {
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s/failslab",
			 slab_caches[i]);
		if (read_long(path) != 1)
			return false;
	}
	return true;
}

static void slab_filter(const char *val)
{
	knob("failslab", "cache-filter", *val == '1' ? "Y" : "N");
}

/* Fail the nth allocation of a flagged task from now on. */
static void slab_arm(unsigned long interval)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%lu", interval);
	knob("failslab", "interval", buf);
	knob("failslab", "times", "1");
	knob("failslab", "task-filter", "Y");
	slab_filter("1");
	knob("failslab", "probability", "100");
}

static bool slab_disarm(void)
{
	knob("failslab", "probability", "0");
	knob("failslab", "task-filter", "N");
	slab_filter("0");
	return read_long(DBGFS "/failslab/times") == 0;
}

static void workers_arm(unsigned int nth)
{
	unsigned int n;

	slab_nth = nth;
	n = flag_workers("1");
	if (nth == 1)
		printf("# peer connect: %u kernel workers flagged\n", n);
	slab_arm(slab_count + nth);
}

/* A batch of 16 entries naming no window: 896 bytes of kcalloc. */
static void batch_nothing(int fd)
{
	struct mwin_batch_op ops[16];
	struct mwin_window_batch cmd = {
		.size = sizeof(cmd),
		.count = 16,
		.op_size = sizeof(ops[0]),
		.ops = (uintptr_t)ops,
	};
	int i;

	for (i = 0; i < 16; i++)
		ops[i] = (struct mwin_batch_op){ .opcode = MWIN_BATCH_DESTROY,
						 .id = UINT32_MAX };
	mwin_ioctl(fd, MWIN_WINDOW_BATCH, &cmd);
}

static int slab_fd = -1;

static bool workers_reached(void)
{
	bool reached = slab_disarm();
	int i;

	flag_workers("0");
	if (slab_count + slab_nth > 1 && !reached) {
		/*
		 * The count moved by fewer than nth: move it on to
		 * slab_count + nth with allocations of this thread until
		 * the armed one fails.
		 */
		write_str("/proc/thread-self/make-it-fail", "1");
		slab_arm(slab_count + slab_nth);
		for (i = 0; i < 100000; i++) {
			batch_nothing(slab_fd);
			if (!read_long(DBGFS "/failslab/times"))
				break;
		}
		slab_disarm();
		write_str("/proc/thread-self/make-it-fail", "0");
		reached = false;
	}
	if (slab_count + slab_nth > 1)
		slab_count += slab_nth;
	count_save();
	return reached;
}

static uint32_t connect_peer;
static unsigned int rejects[2];	/* by the module, by the CM */

static int peer_connect(FIXTURE_DATA(fail_nth) *self, void *arg)
{
	struct mwpeer_opts o = { .timeout_ms = TEST_TIMEOUT_MS };
	struct mwpeer_reject rej;
	struct mwin_peer_info pi;
	int ret, i;

	self->c = mwpeer_create(&o);
	if (!self->c)
		return -errno;
	ret = mwpeer_open(self->c, test_host(), 0);
	if (ret) {
		mwpeer_reject(self->c, &rej);
		if (rej.rejected)
			rejects[!rej.by_module]++;
		mwpeer_close(self->c);
		self->c = NULL;
		return ret;
	}
	/* established on the module's side too */
	connect_peer = mwpeer_id(self->c);
	for (i = 0; i < TEST_TIMEOUT_MS; i++) {
		if (!mwin_peer_get(self->fd, connect_peer, 0, &pi) &&
		    pi.state == MWIN_PEER_CONNECTED)
			return 0;
		usleep(1000);
	}
	return -ETIMEDOUT;
}

/*
 * Wait until the module counts @n peers; return how many it counts. A
 * peer's id goes before its teardown ends, and INFO counts it until then.
 */
static uint32_t wait_nr_peers(int fd, uint32_t n)
{
	struct mwin_info info;
	int i;

	for (i = 0; i < 3 * TEST_TIMEOUT_MS / 10; i++) {
		mwin_info(fd, &info, NULL, 0);
		if (info.nr_peers == n)
			break;
		usleep(10000);
	}
	return info.nr_peers;
}

/* @arg: the number of peers before the call */
static void peer_disconnect(FIXTURE_DATA(fail_nth) *self, void *arg)
{
	mwpeer_close(self->c);
	self->c = NULL;
	test_wait_peer_gone(self->fd, connect_peer);
	wait_nr_peers(self->fd, *(uint32_t *)arg);
}

/* A failed connect leaves no peer: wait for the module to drop it. */
static bool connect_check(struct __test_metadata *_metadata,
			  FIXTURE_DATA(fail_nth) *self, void *arg)
{
	uint32_t nr = *(uint32_t *)arg;
	bool ok = true;

	EXPECT_EQ(nr, wait_nr_peers(self->fd, nr))
		ok = false;
	return ok;
}

TEST_F_TIMEOUT(fail_nth, peer_connect, 900)
{
	const struct fail_call c = { .name = "peer connect (kworkers, kmalloc-512+)",
				     .arm = workers_arm,
				     .reached = workers_reached,
				     .call = peer_connect,
				     .undo = peer_disconnect,
				     .check = connect_check };
	struct mwin_info info;

	if (self->skipped)
		return;
	if (access(DBGFS "/failslab/task-filter", W_OK))
		SKIP(return, "no failslab debugfs knobs");
	if (!slab_caches_marked())
		SKIP(return, "kmalloc-512 to -8k lack the failslab mark "
			     "(boot with slub_debug=A,kmalloc-512,...)");
	count_load();
	slab_fd = self->fd;
	ASSERT_EQ(0, mwin_info(self->fd, &info, NULL, 0));
	fail_nth_sweep(_metadata, self, &c, &info.nr_peers);
	printf("# peer connect: rejected %u times by the module, %u by the CM\n",
	       rejects[0], rejects[1]);
	fflush(stdout);
}

TEST_HARNESS_MAIN
