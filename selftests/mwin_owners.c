// SPDX-License-Identifier: GPL-2.0
/*
 * Owners: a region or a window belongs to the user that opened the file it
 * was made through. Through an open of another user it does not exist: each
 * call that names it fails with ENOENT and changes nothing, listings and
 * counts leave it out, a monitor hears nothing of it. CAP_SYS_ADMIN sees
 * everything. A region's pinned pages are charged to its owner's
 * RLIMIT_MEMLOCK. A user, root too, may hold max_monitors monitors at once,
 * and a monitor's queue is charged to its caller's memory cgroup.
 *
 * Users are real: children that setresuid() to USER_A or USER_B, which
 * drops every capability, with /dev/mwin opened to them (mode 0666) for
 * the test, as an installer's udev rule opens it to a group.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "mwin_test.h"

#define USER_A	60001
#define USER_B	60002
#define REGION_BYTES	(64 * 1024)

/* What user A made, for the others to poke at. */
struct objects {
	uint32_t peer;
	uint32_t region;
	uint32_t window;
	uint32_t rkey;
};

/* In a child: report a failed check and make the child fail. */
#define CHILD_CHECK(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "%s:%d: as uid %u: failed: %s\n",	\
			__FILE__, __LINE__, getuid(), #cond);		\
		return 1;						\
	}								\
} while (0)

/* Run @fn(@arg) in a child as @uid, with no groups and no capabilities. */
static int as_user(uid_t uid, int (*fn)(void *arg), void *arg)
{
	gid_t gid = uid;
	int status;
	pid_t pid;

	pid = fork();
	if (pid == 0) {
		if (setgroups(1, &gid) || setresgid(gid, gid, gid) ||
		    setresuid(uid, uid, uid))
			_exit(100);
		_exit(fn(arg));
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* User A: a region, module-owned, with bytes in it, and a window on it. */
static int make_objects(void *arg)
{
	struct objects *o = arg;
	struct mwin_window_bind b;
	int fd = mwin_open();
	char *mem;

	CHILD_CHECK(fd >= 0);
	CHILD_CHECK(!mwin_region_create(fd, REGION_BYTES, 0, &o->region,
					NULL));
	mem = mwin_region_mmap(fd, o->region, NULL);
	CHILD_CHECK(mem);
	memset(mem, 0xa5, REGION_BYTES);
	b = test_bind(o->region, o->peer, 0, 4096, MWIN_ACCESS_READ, 0);
	CHILD_CHECK(!mwin_window_create(fd, &b));
	o->window = b.id;
	o->rkey = b.rkey;
	close(fd);
	return 0;
}

/* Every call user A's objects can be named in, through another user's open. */
static int poke_everything(void *arg)
{
	struct objects *o = arg;
	struct mwin_window_bind b = test_bind(o->region, o->peer, 4096, 4096,
					      MWIN_ACCESS_READ, 0);
	struct mwin_batch_op op = { .opcode = MWIN_BATCH_INVALIDATE,
				    .id = o->window };
	struct mwin_window_batch batch = { .size = sizeof(batch), .count = 1,
					   .op_size = sizeof(op),
					   .ops = (uintptr_t)&op };
	struct mwin_region_info ri;
	struct mwin_window_info wi;
	struct mwin_peer_info pi;
	struct mwin_info info;
	int fd = mwin_open();
	void *mem;

	CHILD_CHECK(fd >= 0);
	CHILD_CHECK(mwin_region_get(fd, o->region, 0, &ri) == -ENOENT);
	CHILD_CHECK(mwin_region_get(fd, 0, MWIN_GET_NEXT, &ri) == -ENOENT);
	CHILD_CHECK(mwin_window_get(fd, o->window, 0, &wi) == -ENOENT);
	CHILD_CHECK(mwin_window_get(fd, 0, MWIN_GET_NEXT, &wi) == -ENOENT);
	CHILD_CHECK(mwin_window_create(fd, &b) == -ENOENT);
	b = test_bind(0, 0, 0, 4096, MWIN_ACCESS_READ | MWIN_ACCESS_WRITE, 0);
	b.id = o->window;
	CHILD_CHECK(mwin_window_rebind(fd, &b) == -ENOENT);
	CHILD_CHECK(mwin_window_invalidate(fd, o->window) == -ENOENT);
	CHILD_CHECK(mwin_window_destroy(fd, o->window) == -ENOENT);
	CHILD_CHECK(!mwin_ioctl(fd, MWIN_WINDOW_BATCH, &batch));
	CHILD_CHECK(batch.failed == 1 && op.result == -ENOENT);
	CHILD_CHECK(mwin_region_destroy(fd, o->region,
					MWIN_REGION_DESTROY_FORCE) == -ENOENT);
	mem = mmap(NULL, REGION_BYTES, PROT_READ, MAP_SHARED, fd,
		   (off_t)o->region << 32);
	CHILD_CHECK(mem == MAP_FAILED && errno == ENOENT);
	CHILD_CHECK(!mwin_info(fd, &info, NULL, 0));
	CHILD_CHECK(info.nr_regions == 0 && info.nr_windows == 0 &&
		    info.region_bytes == 0);
	/* peers are the host's: everybody sees them */
	CHILD_CHECK(info.nr_peers >= 1);
	CHILD_CHECK(!mwin_peer_get(fd, o->peer, 0, &pi));
	close(fd);
	return 0;
}

/* User A itself sees its objects, and only those. */
static int sees_own(void *arg)
{
	struct objects *o = arg;
	struct mwin_region_info ri;
	struct mwin_window_info wi;
	struct mwin_info info;
	int fd = mwin_open();
	char *mem;

	CHILD_CHECK(fd >= 0);
	CHILD_CHECK(!mwin_region_get(fd, 0, MWIN_GET_NEXT, &ri));
	CHILD_CHECK(ri.id == o->region);
	CHILD_CHECK(mwin_region_get(fd, ri.id, MWIN_GET_NEXT, &ri) == -ENOENT);
	CHILD_CHECK(!mwin_window_get(fd, o->window, 0, &wi));
	CHILD_CHECK(!mwin_info(fd, &info, NULL, 0));
	CHILD_CHECK(info.nr_regions == 1 && info.nr_windows == 1 &&
		    info.region_bytes == REGION_BYTES);
	mem = mwin_region_mmap(fd, o->region, NULL);
	CHILD_CHECK(mem && mem[REGION_BYTES - 1] == (char)0xa5);
	close(fd);
	return 0;
}

FIXTURE(owners)
{
	int fd;
	mode_t mode;
	struct mwpeer *peer;
	struct objects *o;	/* shared with the children */
};

FIXTURE_SETUP(owners)
{
	struct stat st;

	self->fd = mwin_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, stat(MWIN_DEV_PATH, &st));
	self->mode = st.st_mode & 07777;
	ASSERT_EQ(0, chmod(MWIN_DEV_PATH, 0666));
	self->o = mmap(NULL, sizeof(*self->o), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->o);
	self->peer = test_connect();
	ASSERT_NE(NULL, self->peer);
	self->o->peer = mwpeer_id(self->peer);
	ASSERT_EQ(0, as_user(USER_A, make_objects, self->o));
}

FIXTURE_TEARDOWN(owners)
{
	if (self->o->region)
		mwin_region_destroy(self->fd, self->o->region,
				    MWIN_REGION_DESTROY_FORCE);
	mwpeer_close(self->peer);
	chmod(MWIN_DEV_PATH, self->mode);
	munmap(self->o, sizeof(*self->o));
	close(self->fd);
}

/* What root, which sees everything, can tell of user A's objects. */
static void snapshot(int fd, const struct objects *o,
		     struct mwin_region_info *ri, struct mwin_window_info *wi)
{
	memset(ri, 0, sizeof(*ri));
	memset(wi, 0, sizeof(*wi));
	mwin_region_get(fd, o->region, 0, ri);
	mwin_window_get(fd, o->window, 0, wi);
}

TEST_F(owners, others_objects_do_not_exist)
{
	struct mwin_region_info ri0, ri1;
	struct mwin_window_info wi0, wi1;
	unsigned char *mem;
	size_t len, i;

	snapshot(self->fd, self->o, &ri0, &wi0);
	ASSERT_EQ(MWIN_WINDOW_BOUND, wi0.state);
	ASSERT_EQ(self->o->rkey, wi0.rkey);

	EXPECT_EQ(0, as_user(USER_B, poke_everything, self->o));

	snapshot(self->fd, self->o, &ri1, &wi1);
	EXPECT_EQ(0, memcmp(&ri0, &ri1, sizeof(ri0)));
	EXPECT_EQ(0, memcmp(&wi0, &wi1, sizeof(wi0)));
	mem = mwin_region_mmap(self->fd, self->o->region, &len);
	ASSERT_NE(NULL, mem);
	for (i = 0; i < len && mem[i] == 0xa5; i++)
		;
	EXPECT_EQ(len, i);
	munmap(mem, len);
	EXPECT_EQ(0, as_user(USER_A, sees_own, self->o));
}

/* Root's open sees user A's objects and may act on them. */
TEST_F(owners, cap_sys_admin_sees_everything)
{
	struct mwin_region_info ri;
	struct mwin_info info;

	ASSERT_EQ(0, mwin_region_get(self->fd, self->o->region, 0, &ri));
	ASSERT_EQ(0, mwin_info(self->fd, &info, NULL, 0));
	EXPECT_LE(1, info.nr_regions);
	EXPECT_LE(1, info.nr_windows);
	EXPECT_EQ(0, mwin_window_invalidate(self->fd, self->o->window));
	EXPECT_EQ(MWIN_WINDOW_INVALIDATED,
		  test_window_state(self->fd, self->o->window));
}

/* Events of the monitor on @fd, without waiting; how many name @window. */
static int events_about(int fd, uint32_t window, int *total)
{
	struct mwin_event ev[64];
	ssize_t n;
	int i, about = 0;

	*total = 0;
	while ((n = read(fd, ev, sizeof(ev))) > 0) {
		for (i = 0; i < n / (ssize_t)sizeof(ev[0]); i++)
			about += ev[i].window == window;
		*total += n / sizeof(ev[0]);
	}
	return about;
}

struct monitor_run {
	struct objects *o;
	int ready[2];	/* the child is monitoring */
	int go[2];	/* the events were made */
};

/* User B monitors while root rebinds user A's window: it hears nothing. */
static int monitor_as_b(void *arg)
{
	struct monitor_run *m = arg;
	struct mwin_monitor mon = { .size = sizeof(mon) };
	int fd = open(MWIN_DEV_PATH, O_RDWR | O_NONBLOCK);
	int total;
	char c;

	CHILD_CHECK(fd >= 0);
	CHILD_CHECK(!mwin_ioctl(fd, MWIN_MONITOR, &mon));
	CHILD_CHECK(write(m->ready[1], "r", 1) == 1);
	CHILD_CHECK(read(m->go[0], &c, 1) == 1);
	CHILD_CHECK(events_about(fd, m->o->window, &total) == 0);
	close(fd);
	return 0;
}

TEST_F(owners, monitor_hears_only_its_users_windows)
{
	struct mwin_monitor mon = { .size = sizeof(mon) };
	struct monitor_run m = { .o = self->o };
	struct mwin_window_bind b = test_bind(0, 0, 0, 4096,
					      MWIN_ACCESS_READ, 0);
	int mfd, total, status;
	pid_t pid;
	char c;

	ASSERT_EQ(0, pipe(m.ready));
	ASSERT_EQ(0, pipe(m.go));
	mfd = open(MWIN_DEV_PATH, O_RDWR | O_NONBLOCK);
	ASSERT_LE(0, mfd);
	ASSERT_EQ(0, mwin_ioctl(mfd, MWIN_MONITOR, &mon));
	pid = fork();
	if (pid == 0)
		_exit(as_user(USER_B, monitor_as_b, &m));
	ASSERT_LT(0, pid);
	ASSERT_EQ(1, read(m.ready[0], &c, 1));

	b.id = self->o->window;
	ASSERT_EQ(0, mwin_window_rebind(self->fd, &b));
	ASSERT_EQ(0, mwin_window_invalidate(self->fd, self->o->window));
	ASSERT_EQ(1, write(m.go[1], "g", 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* root's monitor heard them: revoke, grant, revoke */
	EXPECT_EQ(3, events_about(mfd, self->o->window, &total));
	close(mfd);
}

/* User A, with one window, makes more: max_windows is 8, its share 4. */
static int windows_as_a(void *arg)
{
	struct objects *o = arg;
	struct mwin_info before, after;
	struct mwin_window_bind b;
	int fd = mwin_open(), i;

	CHILD_CHECK(fd >= 0);
	for (i = 1; i < 4; i++) {
		b = test_bind(o->region, o->peer, i * 4096, 4096,
			      MWIN_ACCESS_READ, 0);
		CHILD_CHECK(!mwin_window_create(fd, &b));
	}
	CHILD_CHECK(!mwin_info(fd, &before, NULL, 0));
	b = test_bind(o->region, o->peer, 4 * 4096, 4096, MWIN_ACCESS_READ, 0);
	CHILD_CHECK(mwin_window_create(fd, &b) == -ENOSPC);
	CHILD_CHECK(!mwin_info(fd, &after, NULL, 0));
	CHILD_CHECK(after.nr_windows == before.nr_windows);
	close(fd);
	return 0;
}

/* A user may hold half of max_windows; root, with CAP_SYS_ADMIN, more. */
TEST_F(owners, a_user_holds_half_the_windows)
{
	unsigned long max = test_param("max_windows");
	struct mwin_window_bind b;

	ASSERT_EQ(0, test_set_param("max_windows", 8));
	EXPECT_EQ(0, as_user(USER_A, windows_as_a, self->o));
	b = test_bind(self->o->region, self->o->peer, 4 * 4096, 4096,
		      MWIN_ACCESS_READ, 0);
	EXPECT_EQ(0, mwin_window_create(self->fd, &b));
	EXPECT_EQ(0, test_set_param("max_windows", max));
}

/* User A under RLIMIT_MEMLOCK of 1 MiB: what fits is charged, and comes back. */
static int memlock_as_a(void *arg)
{
	struct rlimit rl = { .rlim_cur = 1 << 20, .rlim_max = 1 << 20 };
	struct mwin_info before, after;
	uint32_t r1, r2, r3;
	int fd = mwin_open(), fd2;

	CHILD_CHECK(fd >= 0);
	CHILD_CHECK(!setrlimit(RLIMIT_MEMLOCK, &rl));
	CHILD_CHECK(!mwin_info(fd, &before, NULL, 0));
	CHILD_CHECK(mwin_region_create(fd, 8 << 20, 0, &r1, NULL) == -ENOMEM);
	CHILD_CHECK(!mwin_info(fd, &after, NULL, 0));
	CHILD_CHECK(after.nr_regions == before.nr_regions &&
		    after.region_bytes == before.region_bytes);

	CHILD_CHECK(!mwin_region_create(fd, 512 << 10, 0, &r1, NULL));
	CHILD_CHECK(!mwin_region_create(fd, 512 << 10, 0, &r2, NULL));
	CHILD_CHECK(mwin_region_create(fd, 4096, 0, &r3, NULL) == -ENOMEM);
	/* the charge comes back on destroy */
	CHILD_CHECK(!mwin_region_destroy(fd, r2, 0));
	CHILD_CHECK(!mwin_region_create(fd, 512 << 10, 0, &r2, NULL));
	CHILD_CHECK(!mwin_region_destroy(fd, r1, 0));
	CHILD_CHECK(!mwin_region_destroy(fd, r2, 0));

	/* ... and when the file that owns the region closes */
	fd2 = mwin_open();
	CHILD_CHECK(fd2 >= 0);
	CHILD_CHECK(!mwin_region_create(fd2, 1 << 20, MWIN_CREATE_FD_OWNED,
					&r1, NULL));
	CHILD_CHECK(mwin_region_create(fd, 4096, 0, &r3, NULL) == -ENOMEM);
	close(fd2);
	CHILD_CHECK(!mwin_region_create(fd, 1 << 20, 0, &r1, NULL));
	CHILD_CHECK(!mwin_region_destroy(fd, r1, 0));
	close(fd);
	return 0;
}

/* Root, with CAP_IPC_LOCK, is not held to RLIMIT_MEMLOCK. */
static int memlock_as_root(void *arg)
{
	struct rlimit rl = { .rlim_cur = 1 << 20, .rlim_max = 1 << 20 };
	int fd = mwin_open();
	uint32_t r;

	CHILD_CHECK(fd >= 0);
	CHILD_CHECK(!setrlimit(RLIMIT_MEMLOCK, &rl));
	CHILD_CHECK(!mwin_region_create(fd, 8 << 20, 0, &r, NULL));
	CHILD_CHECK(!mwin_region_destroy(fd, r, 0));
	close(fd);
	return 0;
}

TEST_F(owners, memlock_charges_the_owner)
{
	pid_t pid;
	int status;

	/* user A's only charge is what this test makes */
	ASSERT_EQ(0, mwin_region_destroy(self->fd, self->o->region,
					 MWIN_REGION_DESTROY_FORCE));
	self->o->region = 0;
	EXPECT_EQ(0, as_user(USER_A, memlock_as_a, NULL));
	pid = fork();
	if (pid == 0)
		_exit(memlock_as_root(NULL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* Monitors: the limit per user, and what a monitor's queue is charged to. */

#define MONITORS	3

FIXTURE(monitors)
{
	mode_t mode;
	unsigned long max;
};

FIXTURE_SETUP(monitors)
{
	struct stat st;

	ASSERT_EQ(0, stat(MWIN_DEV_PATH, &st));
	self->mode = st.st_mode & 07777;
	ASSERT_EQ(0, chmod(MWIN_DEV_PATH, 0666));
	self->max = test_param("max_monitors");
	ASSERT_EQ(8, self->max);	/* the documented default */
	ASSERT_EQ(0, test_set_param("max_monitors", MONITORS));
}

FIXTURE_TEARDOWN(monitors)
{
	test_set_param("max_monitors", self->max);
	chmod(MWIN_DEV_PATH, self->mode);
}

/* A monitor on a new read-only open (read access is enough), or -errno. */
static int monitor_open(void)
{
	struct mwin_monitor mon = { .size = sizeof(mon) };
	int fd = open(MWIN_DEV_PATH, O_RDONLY | O_NONBLOCK);
	int ret;

	if (fd < 0)
		return -errno;
	ret = mwin_ioctl(fd, MWIN_MONITOR, &mon);
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

/* A monitor reads EAGAIN when it has nothing; any other file EINVAL. */
static int monitor_read_errno(int fd)
{
	struct mwin_event ev;

	return read(fd, &ev, sizeof(ev)) < 0 ? errno : 0;
}

/*
 * The caller's user holds MONITORS monitors; one more fails with EMFILE
 * and leaves its file no monitor; closing one lets it start. Also what a
 * child of as_user() runs: 0, or the line that failed.
 */
static int monitor_limit(void *arg)
{
	struct mwin_monitor mon = { .size = sizeof(mon) };
	int fds[MONITORS], extra, i;

	for (i = 0; i < MONITORS; i++) {
		fds[i] = monitor_open();
		CHILD_CHECK(fds[i] >= 0);
	}
	extra = open(MWIN_DEV_PATH, O_RDONLY | O_NONBLOCK);
	CHILD_CHECK(extra >= 0);
	CHILD_CHECK(mwin_ioctl(extra, MWIN_MONITOR, &mon) == -EMFILE);
	CHILD_CHECK(monitor_read_errno(extra) == EINVAL);
	CHILD_CHECK(mwin_ioctl(extra, MWIN_MONITOR, &mon) == -EMFILE);
	/* again on a monitor: nothing, and no second count */
	CHILD_CHECK(!mwin_ioctl(fds[0], MWIN_MONITOR, &mon));
	CHILD_CHECK(monitor_read_errno(fds[0]) == EAGAIN);
	close(fds[0]);
	CHILD_CHECK(!mwin_ioctl(extra, MWIN_MONITOR, &mon));
	CHILD_CHECK(monitor_read_errno(extra) == EAGAIN);
	fds[0] = monitor_open();
	CHILD_CHECK(fds[0] == -EMFILE);
	close(extra);
	for (i = 1; i < MONITORS; i++)
		close(fds[i]);
	return 0;
}

TEST_F(monitors, root_holds_max_monitors)
{
	int fds[MONITORS + 1], i;

	EXPECT_EQ(0, monitor_limit(NULL));
	/* all given back at close; 0 lifts the limit */
	ASSERT_EQ(0, test_set_param("max_monitors", 0));
	for (i = 0; i <= MONITORS; i++)
		EXPECT_LE(0, fds[i] = monitor_open());
	for (i = 0; i <= MONITORS; i++)
		close(fds[i]);
}

/* Counted per user: root's monitors leave user A its own. */
TEST_F(monitors, a_user_holds_max_monitors)
{
	int fds[MONITORS], i;

	for (i = 0; i < MONITORS; i++)
		ASSERT_LE(0, fds[i] = monitor_open());
	EXPECT_EQ(0, as_user(USER_A, monitor_limit, NULL));
	EXPECT_EQ(0, as_user(USER_B, monitor_limit, NULL));
	EXPECT_EQ(-EMFILE, monitor_open());
	for (i = 0; i < MONITORS; i++)
		close(fds[i]);
}

#define CGROUP_ROOT	"/sys/fs/cgroup"
#define CGROUP		CGROUP_ROOT "/mwin-monitors"
/* far above what a CPU's charge cache (64 pages) hides */
#define CHARGED		16
#define RING_BYTES	(4096 * sizeof(struct mwin_event))


static int cgroup_write(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, val, strlen(val));
	close(fd);
	return n == (ssize_t)strlen(val) ? 0 : -1;
}

/*
 * In the cgroup: what CHARGED monitors add to memory.current, and take
 * back when closed. Written to @arg: before, with them, after.
 */
static int monitors_charged(void *arg)
{
	long *cur = arg;
	int fds[CHARGED], i;

	CHILD_CHECK(!cgroup_write(CGROUP "/cgroup.procs", "0"));
	cur[0] = test_read_long(CGROUP "/memory.current", -1);
	for (i = 0; i < CHARGED; i++)
		CHILD_CHECK((fds[i] = monitor_open()) >= 0);
	cur[1] = test_read_long(CGROUP "/memory.current", -1);
	for (i = 0; i < CHARGED; i++)
		close(fds[i]);
	/* the rings go a grace period later */
	for (i = 0; i < 200; i++) {
		cur[2] = test_read_long(CGROUP "/memory.current", -1);
		if (cur[2] < cur[1] - (long)(CHARGED * RING_BYTES) / 2)
			break;
		usleep(10000);
	}
	return 0;
}

/* A monitor's queue is charged to the memory cgroup of its caller. */
TEST_F(monitors, queue_charged_to_memory_cgroup)
{
	bool mounted = false;
	long *cur;
	pid_t pid;
	int status;

	if (access(CGROUP_ROOT "/cgroup.controllers", F_OK)) {
		if (mount("none", CGROUP_ROOT, "cgroup2", 0, NULL))
			SKIP(return, "no cgroup v2: %s", strerror(errno));
		mounted = true;
	}
	if (cgroup_write(CGROUP_ROOT "/cgroup.subtree_control", "+memory") ||
	    (mkdir(CGROUP, 0755) && errno != EEXIST)) {
		if (mounted)
			umount(CGROUP_ROOT);
		SKIP(return, "no memory controller");
	}
	cur = mmap(NULL, 3 * sizeof(*cur), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, cur);
	ASSERT_EQ(0, test_set_param("max_monitors", CHARGED));
	pid = fork();
	if (pid == 0)
		_exit(monitors_charged(cur));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	TH_LOG("memory.current %ld, %ld with %d monitors, %ld after",
	       cur[0], cur[1], CHARGED, cur[2]);
	EXPECT_LE(0, cur[0]);
	/* each ring, less what the charge caches of two CPUs may hide */
	EXPECT_LE(cur[0] + (long)(CHARGED * RING_BYTES) - 512 * 1024, cur[1]);
	EXPECT_GE(cur[1] - (long)(CHARGED * RING_BYTES) + 512 * 1024, cur[2]);
	EXPECT_EQ(0, rmdir(CGROUP));
	if (mounted)
		umount(CGROUP_ROOT);
	munmap(cur, 3 * sizeof(*cur));
}

TEST_HARNESS_MAIN
