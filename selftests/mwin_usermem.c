// SPDX-License-Identifier: GPL-2.0
/*
 * User regions (MWIN_REGION_KIND_USER): a process turns a buffer it has
 * into a region, and a remote peer reads and writes that buffer through
 * windows, with every guarantee a module region has. The pages are pinned
 * until the region is freed and charged to the process's pinned memory
 * (VmPin) against its RLIMIT_MEMLOCK; what the process does meanwhile
 * (munmap(), fork(), exit) does not take them from the region. Every bad
 * input fails with its errno and leaves nothing pinned.
 *
 * File regions (MWIN_REGION_KIND_FILE): pages of a memfd that local
 * processes share, reached remotely through windows; the region keeps its
 * pages whatever the file does.
 */
#define _GNU_SOURCE
#include <sys/resource.h>
#include <sys/stat.h>

#include "mwin_test.h"

#define PAGE		4096UL
#define BUF_PAGES	16
#define BUF_LEN		(BUF_PAGES * PAGE)
#define USER_A		60011

/* The caller's pinned memory, VmPin of /proc/self/status, in KiB; -1. */
static long vm_pin_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmPin: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/*
 * Wait until VmPin is @kb: a region's pages go when its last window's MR
 * is deregistered, which may come after a revoking call returned.
 */
static long wait_pin_kb(long kb)
{
	long now = vm_pin_kb();
	int i;

	for (i = 0; now != kb && i < TEST_TIMEOUT_MS / 10; i++) {
		usleep(10000);
		now = vm_pin_kb();
	}
	return now;
}

FIXTURE(usermem)
{
	int fd;
	uint8_t *buf;
	uint32_t region;
	long pin0;		/* VmPin before the region */
	struct mwpeer *a;
};

FIXTURE_SETUP(usermem)
{
	self->fd = mwin_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(PAGE, sysconf(_SC_PAGESIZE));
	self->buf = test_map_anon(BUF_LEN, PROT_READ | PROT_WRITE);
	ASSERT_NE(NULL, self->buf);
	memset(self->buf, 'b', BUF_LEN);
	/* the peer's registered buffer is pinned memory of this process too */
	self->a = test_connect();
	ASSERT_NE(NULL, self->a);
	self->pin0 = vm_pin_kb();
	ASSERT_LE(0, self->pin0);
	ASSERT_EQ(0, test_usermem_create(self->fd, (uintptr_t)self->buf,
					 BUF_LEN, 0, &self->region));
	EXPECT_EQ(self->pin0 + BUF_LEN / 1024, vm_pin_kb());
}

FIXTURE_TEARDOWN(usermem)
{
	if (self->region)
		EXPECT_EQ(0, mwin_region_destroy(self->fd, self->region,
						 MWIN_REGION_DESTROY_FORCE));
	/* every pin of the region's, and its charge, given back */
	EXPECT_EQ(self->pin0, wait_pin_kb(self->pin0));
	mwpeer_close(self->a);
	munmap(self->buf, BUF_LEN);
	close(self->fd);
}

/* A window of @region for @p: 0 or -errno; @b gets the result. */
static int grant(int fd, uint32_t region, struct mwpeer *p,
		 struct mwin_window_bind *b, uint64_t off, uint64_t len,
		 uint32_t access)
{
	*b = test_bind(region, mwpeer_id(p), off, len, access, 0);
	return mwin_window_create(fd, b);
}

/* Reconnect @p after an access the module refused tore it down. */
static int peer_back(int fd, struct mwpeer *p)
{
	return test_wait_peer_gone(fd, mwpeer_id(p)) ?: mwpeer_reconnect(p);
}

/* The process writes its buffer; a remote READ sees the bytes, at once. */
TEST_F(usermem, remote_read_sees_process_bytes)
{
	struct mwin_window_bind b;
	char got[32];

	memcpy(self->buf + 3 * PAGE + 10, "bytes the process has", 21);
	ASSERT_EQ(0, grant(self->fd, self->region, self->a, &b, PAGE,
			   4 * PAGE, MWIN_ACCESS_READ));
	EXPECT_EQ(PAGE, b.iova);
	ASSERT_EQ(IBV_WC_SUCCESS, mwpeer_read(self->a, b.rkey,
					      3 * PAGE + 10, got, 21));
	EXPECT_EQ(0, memcmp(got, "bytes the process has", 21));

	/* the same pages: what the process writes later is seen too */
	memcpy(self->buf + 2 * PAGE, "and later", 9);
	ASSERT_EQ(IBV_WC_SUCCESS, mwpeer_read(self->a, b.rkey, 2 * PAGE,
					      got, 9));
	EXPECT_EQ(0, memcmp(got, "and later", 9));
}

/* A remote WRITE lands in the process's buffer, across a page boundary. */
TEST_F(usermem, remote_write_lands_in_buffer)
{
	struct mwin_window_bind b;

	ASSERT_EQ(0, grant(self->fd, self->region, self->a, &b, 0, BUF_LEN,
			   MWIN_ACCESS_READ | MWIN_ACCESS_WRITE));
	ASSERT_EQ(IBV_WC_SUCCESS,
		  test_write_fenced(self->a, test_iwarp(self->a), b.rkey,
				    5 * PAGE - 6, "remote write", 12));
	EXPECT_EQ(0, memcmp(self->buf + 5 * PAGE - 6, "remote write", 12));
	EXPECT_EQ('b', self->buf[5 * PAGE - 7]);
	EXPECT_EQ('b', self->buf[5 * PAGE + 6]);
}

/* Windows stay byte-granular: a byte past the window is refused. */
TEST_F(usermem, window_edges)
{
	struct mwin_window_bind b;

	ASSERT_EQ(0, grant(self->fd, self->region, self->a, &b, 1001, 3000,
			   MWIN_ACCESS_READ | MWIN_ACCESS_WRITE));
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_read(self->a, b.rkey, 1001, NULL,
					      3000));
	EXPECT_ACCESS_REFUSED(self->a,
			      mwpeer_write(self->a, b.rkey, 4001, "x", 1));
	EXPECT_EQ('b', self->buf[4001]);
	/* and no window leaves the region */
	b = test_bind(self->region, 0, BUF_LEN - 1, 2, MWIN_ACCESS_READ, 0);
	ASSERT_EQ(0, peer_back(self->fd, self->a));
	b.peer = mwpeer_id(self->a);
	EXPECT_EQ(-ERANGE, mwin_window_create(self->fd, &b));
}

/* Each revoking call kills the rkey before it returns, as on any region. */
TEST_F(usermem, revoke_refuses_access)
{
	struct mwin_window_bind b;
	enum test_revoke c;
	uint32_t old;

	for (c = 0; c < TEST_NR_REVOKES; c++) {
		TH_LOG("%s", test_revoke_name(c));
		ASSERT_EQ(0, grant(self->fd, self->region, self->a, &b,
				   c * PAGE, PAGE, MWIN_ACCESS_READ));
		ASSERT_EQ(IBV_WC_SUCCESS, mwpeer_read(self->a, b.rkey,
						      c * PAGE, NULL, 8));
		old = b.rkey;
		ASSERT_EQ(0, test_revoke(self->fd, c, &b, self->region));
		if (c == TEST_REVOKE_REGION_DESTROY)
			self->region = 0;
		EXPECT_ACCESS_REFUSED(self->a, mwpeer_read(self->a, old,
							   c * PAGE, NULL, 8));
		ASSERT_EQ(0, peer_back(self->fd, self->a));
	}
	/* the region's pins are given back with its last window */
	EXPECT_EQ(self->pin0, wait_pin_kb(self->pin0));
}

/* A batch of one entry: its result. */
static int batch_one(int fd, struct mwin_batch_op *op)
{
	struct mwin_window_batch wb = {
		.size = sizeof(wb),
		.count = 1,
		.op_size = sizeof(*op),
		.ops = (uintptr_t)op,
	};
	int ret = mwin_ioctl(fd, MWIN_WINDOW_BATCH, &wb);

	return ret ?: op->result;
}

/*
 * A read-only region may be made of a read-only mapping. No window of it
 * gets WRITE or ATOMIC (EACCES, nothing changed); READ works.
 */
TEST_F(usermem, read_only_region)
{
	uint32_t peer = mwpeer_id(self->a), ro;
	struct mwin_window_bind b, w;
	struct mwin_region_info ri;
	uint32_t nr_windows = test_nr_windows(self->fd);
	struct mwin_batch_op op;
	uint8_t *mem;
	char got[8];
	long pin;

	mem = test_map_anon(4 * PAGE, PROT_READ | PROT_WRITE);
	ASSERT_NE(NULL, mem);
	memset(mem, 'R', 4 * PAGE);
	ASSERT_EQ(0, mprotect(mem, 4 * PAGE, PROT_READ));
	pin = vm_pin_kb();
	/* writable: GUP refuses the read-only mapping */
	EXPECT_EQ(-EFAULT, test_usermem_create(self->fd, (uintptr_t)mem,
					       4 * PAGE, 0, &ro));
	EXPECT_EQ(pin, vm_pin_kb());
	ASSERT_EQ(0, test_usermem_create(self->fd, (uintptr_t)mem, 4 * PAGE,
					 MWIN_REGION_READ_ONLY, &ro));
	EXPECT_EQ(pin + 16, vm_pin_kb());
	ASSERT_EQ(0, mwin_region_get(self->fd, ro, 0, &ri));
	EXPECT_EQ(MWIN_REGION_READ_ONLY, ri.rflags);

	b = test_bind(ro, peer, 0, PAGE, MWIN_ACCESS_READ | MWIN_ACCESS_WRITE,
		      0);
	EXPECT_EQ(-EACCES, mwin_window_create(self->fd, &b));
	b = test_bind(ro, peer, 0, PAGE, MWIN_ACCESS_READ | MWIN_ACCESS_ATOMIC,
		      0);
	EXPECT_EQ(-EACCES, mwin_window_create(self->fd, &b));
	memset(&op, 0, sizeof(op));
	op.opcode = MWIN_BATCH_CREATE;
	op.region = ro;
	op.peer = peer;
	op.access = MWIN_ACCESS_WRITE | MWIN_ACCESS_READ;
	op.length = PAGE;
	EXPECT_EQ(-EACCES, batch_one(self->fd, &op));
	EXPECT_EQ(nr_windows, test_nr_windows(self->fd));

	ASSERT_EQ(0, grant(self->fd, ro, self->a, &w, 100, 2 * PAGE,
			   MWIN_ACCESS_READ));
	ASSERT_EQ(IBV_WC_SUCCESS, mwpeer_read(self->a, w.rkey, PAGE, got, 8));
	EXPECT_EQ(0, memcmp(got, "RRRRRRRR", 8));

	/* a rebind to write, single or batched, changes nothing */
	b = w;
	EXPECT_EQ(-EACCES, test_rebind(self->fd, &b, 0, 100, 2 * PAGE,
				       MWIN_ACCESS_READ | MWIN_ACCESS_WRITE));
	memset(&op, 0, sizeof(op));
	op.opcode = MWIN_BATCH_REBIND;
	op.id = w.id;
	op.access = MWIN_ACCESS_READ | MWIN_ACCESS_WRITE;
	op.offset = 100;
	op.length = 2 * PAGE;
	EXPECT_EQ(-EACCES, batch_one(self->fd, &op));
	EXPECT_EQ(MWIN_WINDOW_BOUND, test_window_state(self->fd, w.id));
	ASSERT_EQ(IBV_WC_SUCCESS, mwpeer_read(self->a, w.rkey, 100, got, 8));
	EXPECT_EQ(0, memcmp(got, "RRRRRRRR", 8));
	/* and the READ rkey cannot write */
	EXPECT_ACCESS_REFUSED(self->a, mwpeer_write(self->a, w.rkey, 200,
						    "W", 1));
	EXPECT_EQ('R', mem[200]);

	EXPECT_EQ(0, mwin_region_destroy(self->fd, ro,
					 MWIN_REGION_DESTROY_FORCE));
	EXPECT_EQ(pin, wait_pin_kb(pin));
	munmap(mem, 4 * PAGE);
}

/* The flag holds for module regions too. */
TEST_F(usermem, read_only_module_region)
{
	struct mwin_region_create c = {
		.size = sizeof(c),
		.flags = MWIN_REGION_READ_ONLY,
		.length = PAGE,
	};
	struct mwin_window_bind b;

	ASSERT_EQ(0, mwin_ioctl(self->fd, MWIN_REGION_CREATE, &c));
	b = test_bind(c.id, mwpeer_id(self->a), 0, PAGE, MWIN_ACCESS_WRITE, 0);
	EXPECT_EQ(-EACCES, mwin_window_create(self->fd, &b));
	b = test_bind(c.id, mwpeer_id(self->a), 0, PAGE, MWIN_ACCESS_READ, 0);
	EXPECT_EQ(0, mwin_window_create(self->fd, &b));
	EXPECT_EQ(0, mwin_region_destroy(self->fd, c.id,
					 MWIN_REGION_DESTROY_FORCE));
}

/* Each bad input: its errno, no region, nothing pinned. */
TEST_F(usermem, bad_inputs)
{
	uint64_t buf = (uintptr_t)self->buf;
	struct mwin_region_create c;
	struct mwin_info before, after;
	long pin = vm_pin_kb();
	uint8_t *m;
	uint32_t id;

	ASSERT_EQ(0, mwin_info(self->fd, &before, NULL, 0));
#define BAD(_addr, _len, _flags, _err) do {				\
	EXPECT_EQ(_err,							\
		  test_usermem_create(self->fd, _addr, _len, _flags, &id)); \
	EXPECT_EQ(pin, vm_pin_kb());					\
} while (0)
	BAD(0, PAGE, 0, -EINVAL);
	BAD(buf + 1, PAGE, 0, -EINVAL);
	BAD(buf + 512, PAGE, 0, -EINVAL);
	BAD(buf, PAGE - 1, 0, -EINVAL);
	BAD(buf, PAGE + 1, 0, -EINVAL);
	BAD(buf, 0, 0, -EINVAL);
	BAD(buf, (1ULL << 32) + PAGE, 0, -EINVAL);
	BAD(~0ULL - PAGE + 1, 2 * PAGE, 0, -EINVAL);	/* wraps */
	BAD(0xffff888000000000ULL, PAGE, 0, -EINVAL);	/* the kernel's */
	BAD(buf, PAGE, MWIN_REGION_NEAR_DEV, -EINVAL);
	BAD(buf, PAGE, 1U << 31, -EINVAL);

	/* an unmapped page last: those pinned before it are given back */
	m = test_map_anon(4 * PAGE, PROT_READ | PROT_WRITE);
	ASSERT_NE(NULL, m);
	memset(m, 1, 4 * PAGE);
	ASSERT_EQ(0, munmap(m + 3 * PAGE, PAGE));
	BAD((uintptr_t)m, 4 * PAGE, 0, -EFAULT);
	BAD((uintptr_t)m + 3 * PAGE, PAGE, 0, -EFAULT);
	/* read-only last page of a writable region: the same */
	ASSERT_EQ(0, mprotect(m + 2 * PAGE, PAGE, PROT_READ));
	BAD((uintptr_t)m, 3 * PAGE, 0, -EFAULT);
	/* no access at all, even read-only */
	ASSERT_EQ(0, mprotect(m, PAGE, PROT_NONE));
	BAD((uintptr_t)m, PAGE, 0, -EFAULT);
	munmap(m, 3 * PAGE);
	/* past the largest region, the whole of it mapped */
	m = mmap(NULL, (4ULL << 30) + PAGE, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	ASSERT_NE(MAP_FAILED, m);
	BAD((uintptr_t)m, (4ULL << 30) + PAGE, 0, -EINVAL);
	munmap(m, (4ULL << 30) + PAGE);
#undef BAD

#define BAD_FIELD(_field, _val) do {					\
	memset(&c, 0, sizeof(c));					\
	c.size = sizeof(c);						\
	c.length = PAGE;						\
	c.kind = MWIN_REGION_KIND_USER;					\
	c.addr = buf;							\
	c._field = _val;						\
	EXPECT_EQ(-EINVAL, mwin_ioctl(self->fd, MWIN_REGION_CREATE, &c)); \
	EXPECT_EQ(pin, vm_pin_kb());					\
} while (0)
	BAD_FIELD(fd, 3);
	BAD_FIELD(fd, -1);
	BAD_FIELD(offset, PAGE);
	BAD_FIELD(kind, 3);
	BAD_FIELD(kind, ~0U);
	/* a module region names no address */
	BAD_FIELD(kind, MWIN_REGION_KIND_MODULE);
#undef BAD_FIELD

	ASSERT_EQ(0, mwin_info(self->fd, &after, NULL, 0));
	EXPECT_EQ(before.nr_regions, after.nr_regions);
	EXPECT_EQ(before.region_bytes, after.region_bytes);
}

/*
 * RLIMIT_MEMLOCK bounds the process's pinned memory: in a child without
 * CAP_IPC_LOCK, whose VmPin starts at 0 (fork() does not inherit it).
 */
static int within_memlock(int fd, uint32_t unused)
{
	struct rlimit rl = { 16 * PAGE, 16 * PAGE };
	uint8_t *m = test_map_anon(32 * PAGE, PROT_READ | PROT_WRITE);
	struct mwin_region_info ri;
	uint32_t id, id2;

	TEST_CHILD_CHECK(m);
	TEST_CHILD_CHECK(!setrlimit(RLIMIT_MEMLOCK, &rl));
	TEST_CHILD_CHECK(vm_pin_kb() == 0);
	TEST_CHILD_CHECK(test_usermem_create(fd, (uintptr_t)m, 32 * PAGE, 0,
					     &id) == -ENOMEM);
	TEST_CHILD_CHECK(vm_pin_kb() == 0);
	TEST_CHILD_CHECK(test_usermem_create(fd, (uintptr_t)m, 12 * PAGE, 0,
					     &id) == 0);
	TEST_CHILD_CHECK(vm_pin_kb() == 48);
	/* the limit counts what the process has pinned already */
	TEST_CHILD_CHECK(test_usermem_create(fd, (uintptr_t)m + 16 * PAGE,
					     8 * PAGE, 0, &id2) == -ENOMEM);
	TEST_CHILD_CHECK(vm_pin_kb() == 48);
	TEST_CHILD_CHECK(test_usermem_create(fd, (uintptr_t)m + 16 * PAGE,
					     4 * PAGE, 0, &id2) == 0);
	TEST_CHILD_CHECK(vm_pin_kb() == 64);
	TEST_CHILD_CHECK(!mwin_region_get(fd, id, 0, &ri));
	TEST_CHILD_CHECK(ri.kind == MWIN_REGION_KIND_USER);
	TEST_CHILD_CHECK(ri.pid == getpid());
	TEST_CHILD_CHECK(!mwin_region_destroy(fd, id, 0));
	TEST_CHILD_CHECK(!mwin_region_destroy(fd, id2, 0));
	TEST_CHILD_CHECK(vm_pin_kb() == 0);
	return 0;
}

/* An unprivileged user, /dev/mwin opened to it, within its limit. */
TEST_F(usermem, rlimit_memlock_unprivileged)
{
	struct stat st;

	ASSERT_EQ(0, stat(MWIN_DEV_PATH, &st));
	ASSERT_EQ(0, chmod(MWIN_DEV_PATH, 0666));
	EXPECT_EQ(0, test_as_user(USER_A, within_memlock, 0));
	chmod(MWIN_DEV_PATH, st.st_mode & 07777);
}

/* Root is charged too: CAP_IPC_LOCK lifts the limit, not the count. */
static int over_memlock_capable(int fd, uint32_t unused)
{
	struct rlimit rl = { 4 * PAGE, 4 * PAGE };
	uint8_t *m = test_map_anon(8 * PAGE, PROT_READ | PROT_WRITE);
	uint32_t id;

	TEST_CHILD_CHECK(m);
	TEST_CHILD_CHECK(!setrlimit(RLIMIT_MEMLOCK, &rl));
	TEST_CHILD_CHECK(!test_usermem_create(fd, (uintptr_t)m, 8 * PAGE, 0,
					      &id));
	TEST_CHILD_CHECK(vm_pin_kb() == 32);
	TEST_CHILD_CHECK(!mwin_region_destroy(fd, id, 0));
	TEST_CHILD_CHECK(vm_pin_kb() == 0);
	return 0;
}

TEST_F(usermem, rlimit_memlock_cap_ipc_lock)
{
	EXPECT_EQ(0, test_as_user(0, over_memlock_capable, 0));
}

/*
 * munmap() of the range: the process no longer sees the pages, remote
 * peers still do, until the region goes; the charge stays with them.
 */
TEST_F(usermem, munmap_keeps_pages)
{
	struct mwin_window_bind b;
	char got[8];
	uint8_t *again;

	memset(self->buf + PAGE, 'M', PAGE);
	ASSERT_EQ(0, grant(self->fd, self->region, self->a, &b, 0, BUF_LEN,
			   MWIN_ACCESS_READ | MWIN_ACCESS_WRITE));
	ASSERT_EQ(0, munmap(self->buf, BUF_LEN));
	EXPECT_EQ(self->pin0 + BUF_LEN / 1024, vm_pin_kb());
	/* other memory at the same address is not the region's */
	again = mmap(self->buf, BUF_LEN, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	ASSERT_EQ(self->buf, again);
	memset(again, 'N', BUF_LEN);

	ASSERT_EQ(IBV_WC_SUCCESS, mwpeer_read(self->a, b.rkey, PAGE, got, 8));
	EXPECT_EQ(0, memcmp(got, "MMMMMMMM", 8));
	ASSERT_EQ(IBV_WC_SUCCESS,
		  test_write_fenced(self->a, test_iwarp(self->a), b.rkey,
				    2 * PAGE, "unseen", 6));
	ASSERT_EQ(IBV_WC_SUCCESS, mwpeer_read(self->a, b.rkey, 2 * PAGE,
					      got, 6));
	EXPECT_EQ(0, memcmp(got, "unseen", 6));
	EXPECT_EQ('N', again[2 * PAGE]);

	EXPECT_EQ(0, mwin_region_destroy(self->fd, self->region,
					 MWIN_REGION_DESTROY_FORCE));
	self->region = 0;
	EXPECT_EQ(self->pin0, wait_pin_kb(self->pin0));
}

/*
 * fork(): the child gets copies of the pinned pages; the region, and so
 * the remote peer, keeps the parent's, which the parent goes on sharing.
 */
TEST_F(usermem, fork_child_gets_copies)
{
	struct mwin_window_bind b;
	int status;
	char got[8];
	pid_t pid;

	memset(self->buf, 'P', PAGE);
	ASSERT_EQ(0, grant(self->fd, self->region, self->a, &b, 0, BUF_LEN,
			   MWIN_ACCESS_READ | MWIN_ACCESS_WRITE));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (self->buf[0] != 'P' || vm_pin_kb() != 0)
			_exit(1);
		memset(self->buf, 'C', PAGE);
		_exit(self->buf[8] == 'C' ? 0 : 2);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ('P', self->buf[8]);

	ASSERT_EQ(IBV_WC_SUCCESS, mwpeer_read(self->a, b.rkey, 0, got, 8));
	EXPECT_EQ(0, memcmp(got, "PPPPPPPP", 8));
	memcpy(self->buf + 16, "parent!!", 8);
	ASSERT_EQ(IBV_WC_SUCCESS, mwpeer_read(self->a, b.rkey, 16, got, 8));
	EXPECT_EQ(0, memcmp(got, "parent!!", 8));
	ASSERT_EQ(IBV_WC_SUCCESS,
		  test_write_fenced(self->a, test_iwarp(self->a), b.rkey, 32,
				    "remote", 6));
	EXPECT_EQ(0, memcmp(self->buf + 32, "remote", 6));
}

/* What a child that makes a region and exits leaves for the parent. */
struct made {
	uint32_t region;
	uint32_t window;
	uint32_t rkey;
	int32_t pid;
};

/*
 * A process makes a region of its buffer and a window for @peer, then
 * exits: a module-owned region keeps the pages; an fd-owned one goes.
 */
static void make_and_exit(struct made *out, uint32_t peer, uint32_t flags)
{
	uint8_t *m = test_map_anon(4 * PAGE, PROT_READ | PROT_WRITE);
	struct mwin_window_bind b;
	int fd = mwin_open();

	if (!m || fd < 0)
		_exit(1);
	memset(m, 'X', 4 * PAGE);
	if (test_usermem_create(fd, (uintptr_t)m, 4 * PAGE, flags,
				&out->region))
		_exit(2);
	b = test_bind(out->region, peer, 0, 4 * PAGE, MWIN_ACCESS_READ, 0);
	if (mwin_window_create(fd, &b))
		_exit(3);
	out->window = b.id;
	out->rkey = b.rkey;
	out->pid = getpid();
	_exit(0);
}

static struct made *run_maker(struct __test_metadata *_metadata,
			      uint32_t peer, uint32_t flags)
{
	struct made *out = mmap(NULL, sizeof(*out), PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int status;
	pid_t pid;

	if (out == MAP_FAILED)
		return NULL;
	pid = fork();
	if (pid == 0)
		make_and_exit(out, peer, flags);
	EXPECT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	return out;
}

TEST_F(usermem, exit_module_owned_region_stays)
{
	struct mwin_region_info ri;
	struct made *m;
	char got[8];

	m = run_maker(_metadata, mwpeer_id(self->a), 0);
	ASSERT_NE(NULL, m);
	ASSERT_EQ(0, mwin_region_get(self->fd, m->region, 0, &ri));
	EXPECT_EQ(MWIN_REGION_KIND_USER, ri.kind);
	EXPECT_EQ(0, ri.pid);		/* the process is gone */
	EXPECT_EQ(4 * PAGE, ri.length);
	EXPECT_EQ(1, ri.nr_windows);
	ASSERT_EQ(IBV_WC_SUCCESS, mwpeer_read(self->a, m->rkey, 3 * PAGE,
					      got, 8));
	EXPECT_EQ(0, memcmp(got, "XXXXXXXX", 8));

	EXPECT_EQ(0, mwin_region_destroy(self->fd, m->region,
					 MWIN_REGION_DESTROY_FORCE));
	EXPECT_ACCESS_REFUSED(self->a, mwpeer_read(self->a, m->rkey, 0,
						   NULL, 8));
	munmap(m, sizeof(*m));
}

TEST_F(usermem, exit_fd_owned_region_goes)
{
	struct mwin_region_info ri;
	struct made *m;

	m = run_maker(_metadata, mwpeer_id(self->a), MWIN_CREATE_FD_OWNED);
	ASSERT_NE(NULL, m);
	EXPECT_EQ(-ENOENT, mwin_region_get(self->fd, m->region, 0, &ri));
	EXPECT_ACCESS_REFUSED(self->a, mwpeer_read(self->a, m->rkey, 0,
						   NULL, 8));
	munmap(m, sizeof(*m));
}

/* REGION_GET says the kind, the process and the address. */
TEST_F(usermem, region_get_reports_kind)
{
	struct mwin_region_create c = {
		.size = MWIN_REGION_CREATE_SIZE_VER0,
		.length = PAGE,
	};
	struct mwin_region_info ri;

	ASSERT_EQ(0, mwin_region_get(self->fd, self->region, 0, &ri));
	EXPECT_EQ(MWIN_REGION_KIND_USER, ri.kind);
	EXPECT_EQ(getpid(), ri.pid);
	EXPECT_EQ((uintptr_t)self->buf, ri.addr);
	EXPECT_EQ(BUF_LEN, ri.length);
	EXPECT_EQ(0, ri.rflags);
	EXPECT_EQ(-1, ri.node);

	/* a caller of the first version makes a module region */
	ASSERT_EQ(0, mwin_ioctl(self->fd, MWIN_REGION_CREATE, &c));
	ASSERT_EQ(0, mwin_region_get(self->fd, c.id, 0, &ri));
	EXPECT_EQ(MWIN_REGION_KIND_MODULE, ri.kind);
	EXPECT_EQ(0, ri.pid);
	EXPECT_EQ(0, ri.addr);
	EXPECT_EQ(0, mwin_region_destroy(self->fd, c.id, 0));

	/* the first version of the info, and in-fields that must be 0 */
	memset(&ri, 0, sizeof(ri));
	ri.size = MWIN_REGION_INFO_SIZE_VER0;
	ri.id = self->region;
	ASSERT_EQ(0, mwin_ioctl(self->fd, MWIN_REGION_GET, &ri));
	EXPECT_EQ(BUF_LEN, ri.length);
	EXPECT_EQ(0, ri.kind);		/* not written past its size */
	memset(&ri, 0, sizeof(ri));
	ri.size = sizeof(ri);
	ri.id = self->region;
	ri.kind = MWIN_REGION_KIND_USER;
	EXPECT_EQ(-EINVAL, mwin_ioctl(self->fd, MWIN_REGION_GET, &ri));
}

/* The process has the pages mapped; /dev/mwin does not map them again. */
TEST_F(usermem, mmap_refused)
{
	struct mwin_region_info ri;
	void *p;

	ASSERT_EQ(0, mwin_region_get(self->fd, self->region, 0, &ri));
	p = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, self->fd,
		 (off_t)ri.mmap_offset);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(ENODEV, errno);
	EXPECT_EQ(NULL, mwin_region_mmap(self->fd, self->region, NULL));
}

/* A lease ends a window of a user region as any other. */
TEST_F(usermem, lease_expires)
{
	struct mwin_window_bind b;
	struct mwin_window_info wi;

	b = test_bind(self->region, mwpeer_id(self->a), 0, PAGE,
		      MWIN_ACCESS_READ, 0);
	b.expires_ms = 300;
	ASSERT_EQ(0, mwin_window_create(self->fd, &b));
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_read(self->a, b.rkey, 0, NULL, 8));
	EXPECT_EQ(0, test_wait_window(self->fd, b.id, MWIN_WINDOW_INVALIDATED,
				      &wi));
	EXPECT_ACCESS_REFUSED(self->a, mwpeer_read(self->a, b.rkey, 0, NULL,
						   8));
}

/* ---- file regions ------------------------------------------------- */

#define FILE_PAGES	16

/* A file region over [@off, @off + @len) of @fd: 0 or -errno. */
static int filemem_create(int fd, int file, uint64_t off, uint64_t len,
			  uint32_t flags, uint32_t *id)
{
	struct mwin_region_create c = {
		.size = sizeof(c),
		.flags = flags,
		.length = len,
		.kind = MWIN_REGION_KIND_FILE,
		.fd = file,
		.offset = off,
	};
	int ret = mwin_ioctl(fd, MWIN_REGION_CREATE, &c);

	if (!ret && id)
		*id = c.id;
	return ret;
}

FIXTURE(filemem)
{
	int fd;
	int memfd;
	uint8_t *map;		/* this process's shared mapping of it */
	long pin0;
	struct mwpeer *a;
};

FIXTURE_SETUP(filemem)
{
	self->fd = mwin_open();
	ASSERT_LE(0, self->fd);
	self->memfd = memfd_create("mwin-test", MFD_ALLOW_SEALING);
	ASSERT_LE(0, self->memfd);
	ASSERT_EQ(0, ftruncate(self->memfd, FILE_PAGES * PAGE));
	self->map = mmap(NULL, FILE_PAGES * PAGE, PROT_READ | PROT_WRITE,
			 MAP_SHARED, self->memfd, 0);
	ASSERT_NE(MAP_FAILED, self->map);
	self->a = test_connect();
	ASSERT_NE(NULL, self->a);
	self->pin0 = vm_pin_kb();
}

FIXTURE_TEARDOWN(filemem)
{
	EXPECT_EQ(self->pin0, wait_pin_kb(self->pin0));
	mwpeer_close(self->a);
	if (self->map != MAP_FAILED)
		munmap(self->map, FILE_PAGES * PAGE);
	close(self->memfd);
	close(self->fd);
}

/*
 * Two local processes share a memfd: what another process writes through
 * its mapping a remote READ sees, and a remote WRITE shows in the file.
 */
TEST_F(filemem, shared_with_processes)
{
	struct mwin_window_bind b;
	struct mwin_region_info ri;
	uint32_t region;
	int status;
	char got[16];
	pid_t pid;

	/* holes too: the region allocates the file's pages it covers */
	ASSERT_EQ(0, filemem_create(self->fd, self->memfd, 2 * PAGE, 8 * PAGE,
				    0, &region));
	EXPECT_EQ(self->pin0 + 32, vm_pin_kb());
	ASSERT_EQ(0, mwin_region_get(self->fd, region, 0, &ri));
	EXPECT_EQ(MWIN_REGION_KIND_FILE, ri.kind);
	EXPECT_EQ(getpid(), ri.pid);
	EXPECT_EQ(2 * PAGE, ri.addr);
	EXPECT_EQ(8 * PAGE, ri.length);
	ASSERT_EQ(0, grant(self->fd, region, self->a, &b, 0, 8 * PAGE,
			   MWIN_ACCESS_READ | MWIN_ACCESS_WRITE));

	/* another process, its own mapping of the file */
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		uint8_t *m = mmap(NULL, FILE_PAGES * PAGE, PROT_WRITE,
				  MAP_SHARED, self->memfd, 0);

		if (m == MAP_FAILED)
			_exit(1);
		memcpy(m + 3 * PAGE + 5, "from a process", 14);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, WEXITSTATUS(status));
	ASSERT_EQ(IBV_WC_SUCCESS, mwpeer_read(self->a, b.rkey, PAGE + 5, got,
					      14));
	EXPECT_EQ(0, memcmp(got, "from a process", 14));

	ASSERT_EQ(IBV_WC_SUCCESS,
		  test_write_fenced(self->a, test_iwarp(self->a), b.rkey,
				    7 * PAGE, "remote", 6));
	EXPECT_EQ(0, memcmp(self->map + 9 * PAGE, "remote", 6));
	ASSERT_EQ(6, pread(self->memfd, got, 6, 9 * PAGE));
	EXPECT_EQ(0, memcmp(got, "remote", 6));

	/* a window stops at the region's end, not the file's */
	EXPECT_ACCESS_REFUSED(self->a, mwpeer_read(self->a, b.rkey, 8 * PAGE,
						   NULL, 1));
	EXPECT_EQ(0, mwin_region_destroy(self->fd, region,
					 MWIN_REGION_DESTROY_FORCE));
}

/*
 * Truncation: the region keeps its pages; the file, and the processes
 * that map it, get new ones.
 */
TEST_F(filemem, truncate_detaches_pages)
{
	struct mwin_window_bind b;
	uint32_t region;
	char got[8];

	memset(self->map, 'F', FILE_PAGES * PAGE);
	ASSERT_EQ(0, filemem_create(self->fd, self->memfd, 0, 4 * PAGE, 0,
				    &region));
	ASSERT_EQ(0, grant(self->fd, region, self->a, &b, 0, 4 * PAGE,
			   MWIN_ACCESS_READ | MWIN_ACCESS_WRITE));
	ASSERT_EQ(0, ftruncate(self->memfd, 0));
	ASSERT_EQ(0, ftruncate(self->memfd, FILE_PAGES * PAGE));
	EXPECT_EQ(0, self->map[PAGE]);

	ASSERT_EQ(IBV_WC_SUCCESS, mwpeer_read(self->a, b.rkey, PAGE, got, 8));
	EXPECT_EQ(0, memcmp(got, "FFFFFFFF", 8));
	ASSERT_EQ(IBV_WC_SUCCESS,
		  test_write_fenced(self->a, test_iwarp(self->a), b.rkey, 0,
				    "gone", 4));
	EXPECT_EQ(0, self->map[0]);
	EXPECT_EQ(self->pin0 + 16, vm_pin_kb());
	EXPECT_EQ(0, mwin_region_destroy(self->fd, region,
					 MWIN_REGION_DESTROY_FORCE));
	EXPECT_EQ(self->pin0, wait_pin_kb(self->pin0));
}

/*
 * Seals: a write-sealed memfd makes only read-only regions; a writable
 * region holds F_SEAL_WRITE off, as a writable shared mapping does.
 */
TEST_F(filemem, write_seal)
{
	uint32_t region, ro;

	munmap(self->map, FILE_PAGES * PAGE);
	self->map = MAP_FAILED;
	ASSERT_EQ(0, filemem_create(self->fd, self->memfd, 0, PAGE, 0,
				    &region));
	EXPECT_EQ(-1, fcntl(self->memfd, F_ADD_SEALS, F_SEAL_WRITE));
	EXPECT_EQ(EBUSY, errno);
	EXPECT_EQ(0, mwin_region_destroy(self->fd, region, 0));
	ASSERT_EQ(0, fcntl(self->memfd, F_ADD_SEALS, F_SEAL_WRITE));

	EXPECT_EQ(-EPERM, filemem_create(self->fd, self->memfd, 0, PAGE, 0,
					 &region));
	EXPECT_EQ(self->pin0, vm_pin_kb());
	ASSERT_EQ(0, filemem_create(self->fd, self->memfd, 0, PAGE,
				    MWIN_REGION_READ_ONLY, &ro));
	EXPECT_EQ(0, mwin_region_destroy(self->fd, ro, 0));
}

/* Each bad input: its errno, no region, nothing held. */
TEST_F(filemem, bad_inputs)
{
	struct mwin_region_create c = {
		.size = sizeof(c),
		.length = PAGE,
		.kind = MWIN_REGION_KIND_FILE,
		.fd = self->memfd,
		.addr = (uintptr_t)self->map,
	};
	struct mwin_info before, after;
	int ro, devnull;
	char path[64];
	uint32_t id;

	ASSERT_EQ(0, mwin_info(self->fd, &before, NULL, 0));
	devnull = open("/dev/null", O_RDWR);
	ASSERT_LE(0, devnull);
	/* the same memfd, opened for reading only */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", self->memfd);
	ro = open(path, O_RDONLY);
	ASSERT_LE(0, ro);
#define BAD(_file, _off, _len, _flags, _err) do {				EXPECT_EQ(_err, filemem_create(self->fd, _file, _off, _len,					       _flags, &id));				EXPECT_EQ(self->pin0, vm_pin_kb());				} while (0)
	BAD(-1, 0, PAGE, 0, -EBADF);
	BAD(1000, 0, PAGE, 0, -EBADF);
	BAD(devnull, 0, PAGE, 0, -EINVAL);		/* not tmpfs */
	BAD(self->fd, 0, PAGE, 0, -EINVAL);		/* /dev/mwin */
	BAD(self->memfd, 1, PAGE, 0, -EINVAL);
	BAD(self->memfd, 0, PAGE + 1, 0, -EINVAL);
	BAD(self->memfd, 0, 0, 0, -EINVAL);
	BAD(self->memfd, (FILE_PAGES - 1) * PAGE, 2 * PAGE, 0, -EINVAL);
	BAD(self->memfd, ~0ULL - PAGE + 1, 2 * PAGE, 0, -EINVAL);
	BAD(self->memfd, 0, PAGE, MWIN_REGION_NEAR_DEV, -EINVAL);
	BAD(ro, 0, PAGE, 0, -EACCES);
#undef BAD
	/* an address is the user kind's */
	EXPECT_EQ(-EINVAL, mwin_ioctl(self->fd, MWIN_REGION_CREATE, &c));
	ASSERT_EQ(0, mwin_info(self->fd, &after, NULL, 0));
	EXPECT_EQ(before.nr_regions, after.nr_regions);

	/* read-only: the read-only open serves */
	ASSERT_EQ(0, filemem_create(self->fd, ro, 0, PAGE,
				    MWIN_REGION_READ_ONLY, &id));
	EXPECT_EQ(0, mwin_region_destroy(self->fd, id, 0));
	close(ro);
	close(devnull);
}

/* mmap() the file, not the region: ENODEV. */
TEST_F(filemem, mmap_refused)
{
	struct mwin_region_info ri;
	uint32_t region;

	ASSERT_EQ(0, filemem_create(self->fd, self->memfd, 0, PAGE, 0,
				    &region));
	ASSERT_EQ(0, mwin_region_get(self->fd, region, 0, &ri));
	EXPECT_EQ(MAP_FAILED, mmap(NULL, PAGE, PROT_READ, MAP_SHARED,
				   self->fd, (off_t)ri.mmap_offset));
	EXPECT_EQ(ENODEV, errno);
	EXPECT_EQ(0, mwin_region_destroy(self->fd, region, 0));
}

TEST_HARNESS_MAIN
