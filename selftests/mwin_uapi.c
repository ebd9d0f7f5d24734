// SPDX-License-Identifier: GPL-2.0
/*
 * Every ioctl with bad input: each gets its documented errno and changes
 * nothing (the listing of all objects is the same before and after).
 */
#include <fcntl.h>
#include <sys/ioctl.h>

#include "mwin_test.h"

/* Every object the module lists, as bytes, to compare before and after. */
struct snapshot {
	size_t len;
	uint8_t data[1 << 16];
};

static void take_snapshot(int fd, struct snapshot *s)
{
	struct mwin_region_info ri;
	struct mwin_window_info wi;
	struct mwin_peer_info pi;
	uint32_t id;

	s->len = 0;
#define ADD(x) do { if (s->len + sizeof(x) <= sizeof(s->data)) {	\
		memcpy(s->data + s->len, &(x), sizeof(x));		\
		s->len += sizeof(x); } } while (0)
	for (id = 0; !mwin_region_get(fd, id, MWIN_GET_NEXT, &ri); id = ri.id)
		ADD(ri);
	for (id = 0; !mwin_window_get(fd, id, MWIN_GET_NEXT, &wi); id = wi.id)
		ADD(wi);
	for (id = 0; !mwin_peer_get(fd, id, MWIN_GET_NEXT, &pi); id = pi.id) {
		/* message counters move with traffic, not with our calls */
		pi.msgs_sent = 0;
		ADD(pi);
	}
#undef ADD
}

FIXTURE(uapi)
{
	int fd;
	uint32_t region;
	struct mwpeer *peer;
	struct mwin_window_bind win;
	struct snapshot before, after;
};

FIXTURE_SETUP(uapi)
{
	self->fd = mwin_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, mwin_region_create(self->fd, 1 << 20, 0, &self->region,
					NULL));
	self->peer = test_connect();
	ASSERT_NE(NULL, self->peer);
	self->win = test_bind(self->region, mwpeer_id(self->peer), 0, 4096,
			      MWIN_ACCESS_READ, 0);
	ASSERT_EQ(0, mwin_window_create(self->fd, &self->win));
}

FIXTURE_TEARDOWN(uapi)
{
	mwin_region_destroy(self->fd, self->region, MWIN_REGION_DESTROY_FORCE);
	mwpeer_close(self->peer);
	close(self->fd);
}

/* Nothing changed since self->before was taken. */
#define EXPECT_UNCHANGED() do {						\
	take_snapshot(self->fd, &self->after);				\
	EXPECT_EQ(self->before.len, self->after.len);			\
	EXPECT_EQ(0, memcmp(self->before.data, self->after.data,	\
			    self->before.len));				\
} while (0)

/* Run one call expecting @err, and check that nothing changed. */
#define EXPECT_ERR_UNCHANGED(_err, _call) do {				\
	take_snapshot(self->fd, &self->before);				\
	EXPECT_EQ(_err, _call);						\
	EXPECT_UNCHANGED();						\
} while (0)

/* Raw ioctl with an arbitrary size field. */
static int raw(int fd, unsigned long cmd, void *arg, uint32_t size)
{
	*(uint32_t *)arg = size;
	return mwin_ioctl(fd, cmd, arg);
}

/* A command, its struct's size, and the size of its first version. */
struct cmd {
	unsigned long nr;
	size_t size;
	size_t ver0;
};

static const struct cmd cmds[] = {
	{ MWIN_INFO, sizeof(struct mwin_info), MWIN_INFO_SIZE_VER0 },
	{ MWIN_REGION_CREATE, sizeof(struct mwin_region_create),
	  MWIN_REGION_CREATE_SIZE_VER0 },
	{ MWIN_REGION_DESTROY, sizeof(struct mwin_destroy) },
	{ MWIN_REGION_GET, sizeof(struct mwin_region_info),
	  MWIN_REGION_INFO_SIZE_VER0 },
	{ MWIN_WINDOW_CREATE, sizeof(struct mwin_window_bind),
	  MWIN_WINDOW_BIND_SIZE_VER0 },
	{ MWIN_WINDOW_REBIND, sizeof(struct mwin_window_bind),
	  MWIN_WINDOW_BIND_SIZE_VER0 },
	{ MWIN_WINDOW_INVALIDATE, sizeof(struct mwin_destroy) },
	{ MWIN_WINDOW_DESTROY, sizeof(struct mwin_destroy) },
	{ MWIN_WINDOW_GET, sizeof(struct mwin_window_info),
	  MWIN_WINDOW_INFO_SIZE_VER0 },
	{ MWIN_PEER_GET, sizeof(struct mwin_peer_info),
	  MWIN_PEER_INFO_SIZE_VER0 },
	{ MWIN_PEER_DISCONNECT, sizeof(struct mwin_destroy) },
	{ MWIN_MONITOR, sizeof(struct mwin_monitor) },
	{ MWIN_WINDOW_BATCH, sizeof(struct mwin_window_batch) },
	{ MWIN_TENANT_CREATE, sizeof(struct mwin_tenant_info),
	  MWIN_TENANT_INFO_SIZE_VER0 },
	{ MWIN_TENANT_SET, sizeof(struct mwin_tenant_info),
	  MWIN_TENANT_INFO_SIZE_VER0 },
	{ MWIN_TENANT_GET, sizeof(struct mwin_tenant_info),
	  MWIN_TENANT_INFO_SIZE_VER0 },
	{ MWIN_TENANT_DESTROY, sizeof(struct mwin_destroy) },
	{ MWIN_STATS, sizeof(struct mwin_stats) },
	{ MWIN_WINDOW_RENEW, sizeof(struct mwin_window_renew) },
};

/* Room for the largest struct of cmds[] and 8 bytes past it. */
#define CMD_BUF_WORDS	80
_Static_assert(sizeof(struct mwin_stats) + 8 <= 8 * CMD_BUF_WORDS &&
	       sizeof(struct mwin_tenant_info) + 8 <= 8 * CMD_BUF_WORDS,
	       "CMD_BUF_WORDS is too small for a struct of cmds[]");

/* The size the command number encodes, and the least the module takes. */
static size_t cmd_ver0(const struct cmd *c)
{
	return c->ver0 ?: c->size;
}

/* Sizes: short is EINVAL, long with a non-zero tail E2BIG, bad pointer EFAULT. */
TEST_F(uapi, struct_sizes)
{
	uint64_t buf[CMD_BUF_WORDS];
	size_t i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		unsigned long nr = cmds[i].nr;
		size_t size = cmds[i].size;

		TH_LOG("command 0x%lx, size %zu", nr, size);
		memset(buf, 0, sizeof(buf));
		EXPECT_ERR_UNCHANGED(-EINVAL, raw(self->fd, nr, buf,
						  cmd_ver0(&cmds[i]) - 1));
		EXPECT_ERR_UNCHANGED(-EINVAL, raw(self->fd, nr, buf, 0));
		memset(buf, 0, sizeof(buf));
		((uint8_t *)buf)[size] = 1;
		EXPECT_ERR_UNCHANGED(-E2BIG, raw(self->fd, nr, buf, size + 8));
		EXPECT_ERR_UNCHANGED(-EFAULT, mwin_ioctl(self->fd, nr, NULL));
		EXPECT_ERR_UNCHANGED(-EFAULT,
				     mwin_ioctl(self->fd, nr, (void *)8));
	}
}

/*
 * The command number is checked whole: the right type and number with
 * other direction or size bits is ENOTTY, whatever the argument holds.
 */
TEST_F(uapi, cmd_bits)
{
	uint64_t buf[CMD_BUF_WORDS];
	size_t i, j;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		unsigned int nr = _IOC_NR(cmds[i].nr);
		size_t size = cmd_ver0(&cmds[i]);
		const unsigned long bad[] = {
			_IOC(_IOC_READ, MWIN_IOCTL_MAGIC, nr, size),
			_IOC(_IOC_WRITE, MWIN_IOCTL_MAGIC, nr, size),
			_IOC(_IOC_NONE, MWIN_IOCTL_MAGIC, nr, size),
			_IOC(_IOC_NONE, MWIN_IOCTL_MAGIC, nr, 0),
			_IOC(_IOC_READ | _IOC_WRITE, MWIN_IOCTL_MAGIC, nr, 0),
			_IOC(_IOC_READ | _IOC_WRITE, MWIN_IOCTL_MAGIC, nr,
			     size - 8),
			_IOC(_IOC_READ | _IOC_WRITE, MWIN_IOCTL_MAGIC, nr,
			     size + 8),
			_IOC(_IOC_READ | _IOC_WRITE, MWIN_IOCTL_MAGIC, nr,
			     _IOC_SIZEMASK),
		};

		ASSERT_EQ(_IOC(_IOC_READ | _IOC_WRITE, MWIN_IOCTL_MAGIC, nr,
			       size), cmds[i].nr);
		for (j = 0; j < sizeof(bad) / sizeof(bad[0]); j++) {
			TH_LOG("command 0x%lx as 0x%lx", cmds[i].nr, bad[j]);
			memset(buf, 0, sizeof(buf));
			EXPECT_ERR_UNCHANGED(-ENOTTY,
					     raw(self->fd, bad[j], buf, size));
		}
	}
}

/* A batch entry is at most 4096 bytes: larger is EINVAL, nothing is done. */
TEST_F(uapi, batch_op_size)
{
	struct mwin_window_batch cmd = {
		.size = sizeof(cmd), .count = 1,
	};
	struct mwin_batch_op *op;
	uint8_t *ops;

	ops = calloc(1, 8192);
	ASSERT_NE(NULL, ops);
	op = (struct mwin_batch_op *)ops;
	op->opcode = MWIN_BATCH_INVALIDATE;
	op->id = self->win.id;
	cmd.ops = (uintptr_t)ops;

	cmd.op_size = 4097;
	EXPECT_ERR_UNCHANGED(-EINVAL, mwin_ioctl(self->fd, MWIN_WINDOW_BATCH,
						 &cmd));
	cmd.op_size = 8192;
	EXPECT_ERR_UNCHANGED(-EINVAL, mwin_ioctl(self->fd, MWIN_WINDOW_BATCH,
						 &cmd));
	cmd.op_size = ~0U;
	EXPECT_ERR_UNCHANGED(-EINVAL, mwin_ioctl(self->fd, MWIN_WINDOW_BATCH,
						 &cmd));
	EXPECT_EQ(MWIN_WINDOW_BOUND, test_window_state(self->fd,
						       self->win.id));

	/* 4096, zero tail: a newer caller's entry, carried out */
	cmd.op_size = 4096;
	ASSERT_EQ(0, mwin_ioctl(self->fd, MWIN_WINDOW_BATCH, &cmd));
	EXPECT_EQ(0, cmd.failed);
	EXPECT_EQ(0, op->result);
	EXPECT_EQ(MWIN_WINDOW_INVALIDATED, test_window_state(self->fd,
							     self->win.id));
	free(ops);
}

/* A bigger struct with a zero tail is what a newer userspace passes. */
TEST_F(uapi, newer_userspace_zero_tail)
{
	struct {
		struct mwin_window_info wi;
		uint64_t tail[4];
	} big = { 0 };

	big.wi.id = self->win.id;
	ASSERT_EQ(0, raw(self->fd, MWIN_WINDOW_GET, &big, sizeof(big)));
	EXPECT_EQ(self->win.rkey, big.wi.rkey);
	EXPECT_EQ(0, big.tail[0]);
}

/* An older userspace passes fewer bytes: nothing past them is written. */
TEST_F(uapi, info_devs)
{
	struct mwin_dev_info devs[2];
	struct mwin_info info;

	memset(&info, 0, sizeof(info));
	info.devs = 8;
	info.nr_devs = 1;
	info.dev_info_size = sizeof(devs[0]);
	EXPECT_EQ(-EFAULT, raw(self->fd, MWIN_INFO, &info, sizeof(info)));
	info.devs = (uintptr_t)devs;
	info.dev_info_size = 8;
	EXPECT_EQ(-EINVAL, raw(self->fd, MWIN_INFO, &info, sizeof(info)));
	info.dev_info_size = sizeof(devs[0]);
	info.flags = 1;
	EXPECT_EQ(-EINVAL, raw(self->fd, MWIN_INFO, &info, sizeof(info)));
	info.flags = 0;
	info.__reserved = 1;
	EXPECT_EQ(-EINVAL, raw(self->fd, MWIN_INFO, &info, sizeof(info)));
	info.__reserved = 0;
	memset(devs, 0xff, sizeof(devs));
	info.nr_devs = 0;
	ASSERT_EQ(0, raw(self->fd, MWIN_INFO, &info, sizeof(info)));
	EXPECT_LE(1, info.nr_devs);
	EXPECT_EQ(0xff, ((uint8_t *)devs)[0]);	/* capacity 0: untouched */
}

/* A devs array in memory that cannot be written: EFAULT, nothing changes. */
TEST_F(uapi, info_devs_fault)
{
	long pagesz = sysconf(_SC_PAGESIZE);
	struct mwin_info info;
	uint8_t *mem;

	mem = mmap(NULL, 2 * pagesz, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, mem);
	memset(&info, 0, sizeof(info));
	info.nr_devs = 4;
	info.dev_info_size = sizeof(struct mwin_dev_info);

	ASSERT_EQ(0, mprotect(mem, 2 * pagesz, PROT_NONE));
	info.devs = (uintptr_t)mem;
	EXPECT_ERR_UNCHANGED(-EFAULT, raw(self->fd, MWIN_INFO, &info,
					  sizeof(info)));
	EXPECT_EQ(4, info.nr_devs);
	ASSERT_EQ(0, mprotect(mem, 2 * pagesz, PROT_READ));
	EXPECT_ERR_UNCHANGED(-EFAULT, raw(self->fd, MWIN_INFO, &info,
					  sizeof(info)));

	/* the first device fits in the writable page, the rest does not */
	ASSERT_EQ(0, mprotect(mem, pagesz, PROT_READ | PROT_WRITE));
	info.devs = (uintptr_t)(mem + pagesz - info.dev_info_size);
	info.nr_devs = 1;
	ASSERT_EQ(0, raw(self->fd, MWIN_INFO, &info, sizeof(info)));
	EXPECT_LE(1, info.nr_devs);
	munmap(mem, 2 * pagesz);
}

/*
 * A create whose result cannot be copied out (the argument is readable,
 * not writable) fails with EFAULT and leaves nothing: no region or window
 * nobody knows the id of, no memory held, no grant to the peer.
 */
TEST_F(uapi, create_efault_leaves_nothing)
{
	long pagesz = sysconf(_SC_PAGESIZE);
	struct mwin_info before, after;
	struct mwin_region_create *rc;
	struct mwin_window_bind *wb;
	struct mwpeer_msg m;
	uint8_t *mem;

	EXPECT_MSG(self->peer, MWIN_WIRE_GRANT, self->win.id, self->win.rkey);
	mem = mmap(NULL, pagesz, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, mem);
	rc = (void *)mem;
	wb = (void *)(mem + 256);
	*rc = (struct mwin_region_create){ .size = sizeof(*rc),
					   .length = 1 << 20 };
	*wb = test_bind(self->region, mwpeer_id(self->peer), 8192, 4096,
			MWIN_ACCESS_READ, 0);
	ASSERT_EQ(0, mprotect(mem, pagesz, PROT_READ));

	ASSERT_EQ(0, mwin_info(self->fd, &before, NULL, 0));
	EXPECT_ERR_UNCHANGED(-EFAULT, mwin_ioctl(self->fd, MWIN_REGION_CREATE,
						 rc));
	EXPECT_ERR_UNCHANGED(-EFAULT, mwin_ioctl(self->fd, MWIN_WINDOW_CREATE,
						 wb));
	ASSERT_EQ(0, mwin_info(self->fd, &after, NULL, 0));
	EXPECT_EQ(before.nr_regions, after.nr_regions);
	EXPECT_EQ(before.region_bytes, after.region_bytes);
	EXPECT_EQ(before.nr_windows, after.nr_windows);
	EXPECT_EQ(-ETIMEDOUT, mwpeer_next_msg(self->peer, &m, 500));
	munmap(mem, pagesz);

	/* and the same calls work with a writable argument */
	wb = &(struct mwin_window_bind){ 0 };
	*wb = test_bind(self->region, mwpeer_id(self->peer), 8192, 4096,
			MWIN_ACCESS_READ, 0);
	ASSERT_EQ(0, mwin_window_create(self->fd, wb));
	EXPECT_MSG(self->peer, MWIN_WIRE_GRANT, wb->id, wb->rkey);
}

TEST_F(uapi, region_create_bad)
{
	struct mwin_region_create c;

#define RC(field, val, err) do {					\
	memset(&c, 0, sizeof(c));					\
	c.length = 4096;						\
	c.field = val;							\
	EXPECT_ERR_UNCHANGED(err, raw(self->fd, MWIN_REGION_CREATE,	\
				      &c, sizeof(c)));			\
} while (0)
	RC(flags, 2, -EINVAL);
	RC(flags, 1U << 31, -EINVAL);
	/* a device index without MWIN_REGION_NEAR_DEV */
	RC(dev_index, 1, -EINVAL);
	/* the first flag past those REGION_CREATE knows */
	RC(flags, MWIN_REGION_READ_ONLY << 1, -EINVAL);
	RC(id, 5, -EINVAL);
	RC(mmap_offset, 4096, -EINVAL);
	RC(length, 0, -EINVAL);
	RC(length, (1ULL << 32) + 1, -EINVAL);
	RC(length, ~0ULL, -EINVAL);
#undef RC
	/* near a device mwin does not have */
	memset(&c, 0, sizeof(c));
	c.length = 4096;
	c.flags = MWIN_REGION_NEAR_DEV;
	c.dev_index = 999999;
	EXPECT_ERR_UNCHANGED(-ENODEV, raw(self->fd, MWIN_REGION_CREATE, &c,
					  sizeof(c)));
}

TEST_F(uapi, region_limit)
{
	FILE *f = fopen("/sys/module/mwin/parameters/max_region_mb", "r+");
	unsigned long old;
	uint32_t id;

	struct mwin_info info;

	ASSERT_EQ(0, mwin_info(self->fd, &info, NULL, 0));
	TH_LOG("regions %u, %llu bytes", info.nr_regions,
	       (unsigned long long)info.region_bytes);
	ASSERT_NE(NULL, f);
	ASSERT_EQ(1, fscanf(f, "%lu", &old));
	rewind(f);
	fprintf(f, "2\n");
	fflush(f);
	/* 1 MiB is taken by the fixture's region */
	EXPECT_ERR_UNCHANGED(-ENOSPC, mwin_region_create(self->fd, 2 << 20, 0,
							 &id, NULL));
	EXPECT_EQ(0, mwin_region_create(self->fd, 1 << 20, 0, &id, NULL));
	EXPECT_EQ(0, mwin_region_destroy(self->fd, id, 0));
	rewind(f);
	fprintf(f, "%lu\n", old);
	fclose(f);
}

TEST_F(uapi, window_create_bad)
{
	uint32_t peer = mwpeer_id(self->peer);
	struct mwin_window_bind b;
	struct mwin_info info;
	struct mwin_dev_info dev;

#define WC(field, val, err) do {					\
	b = test_bind(self->region, peer, 8192, 4096, MWIN_ACCESS_READ, 0); \
	b.field = val;							\
	EXPECT_ERR_UNCHANGED(err, mwin_window_create(self->fd, &b));	\
} while (0)
	WC(flags, 1U << 4, -EINVAL);
	WC(flags, 1U << 31, -EINVAL);
	WC(__reserved, 1, -EINVAL);
	WC(tenant, 1, -EINVAL);			/* a peer and a tenant */
	WC(tenant, ~0U, -EINVAL);
	WC(rkey, 1, -EINVAL);
	WC(iova, 1, -EINVAL);
	WC(id, 1, -EINVAL);
	WC(access, 0, -EINVAL);
	WC(access, 8, -EINVAL);
	WC(access, MWIN_ACCESS_READ | 16, -EINVAL);
	WC(length, 0, -EINVAL);
	WC(offset, 1 << 20, -ERANGE);
	WC(offset, (1 << 20) - 1, -ERANGE);	/* 4096 bytes from the last */
	WC(offset, ~0ULL, -ERANGE);
	WC(length, ~0ULL, -ERANGE);
	WC(length, (1 << 20) - 8191, -ERANGE);	/* one past the end */
	WC(region, 0, -ENOENT);
	WC(region, 999999, -ENOENT);
	WC(peer, 0, -ENOENT);
	WC(peer, 999999, -ENOENT);
	WC(offset, 4095, -EBUSY);		/* overlaps the fixture's */

	ASSERT_EQ(0, mwin_info(self->fd, &info, &dev, 1));
	WC(offset, 0, -EBUSY);
	b = test_bind(self->region, peer, 0, dev.max_window_bytes + 1,
		      MWIN_ACCESS_READ, MWIN_WINDOW_OVERLAP);
	EXPECT_ERR_UNCHANGED(-E2BIG, mwin_window_create(self->fd, &b));
#undef WC
}

TEST_F(uapi, window_rebind_bad)
{
	struct mwin_window_bind b;

#define WR(field, val, err) do {					\
	b = test_bind(0, 0, 8192, 4096, MWIN_ACCESS_READ, 0);		\
	b.id = self->win.id;						\
	b.field = val;							\
	EXPECT_ERR_UNCHANGED(err, mwin_window_rebind(self->fd, &b));	\
} while (0)
	WR(region, self->region, -EINVAL);
	WR(flags, MWIN_CREATE_FD_OWNED, -EINVAL);
	WR(flags, MWIN_WINDOW_QUIET, -EINVAL);
	WR(flags, MWIN_WINDOW_ONCE, -EINVAL);
	WR(flags, 1U << 9, -EINVAL);
	WR(tenant, 999999, -ENOENT);
	b = test_bind(0, mwpeer_id(self->peer), 8192, 4096, MWIN_ACCESS_READ, 0);
	b.id = self->win.id;
	b.tenant = 1;			/* a peer and a tenant */
	EXPECT_ERR_UNCHANGED(-EINVAL, mwin_window_rebind(self->fd, &b));
	WR(rkey, self->win.rkey, -EINVAL);
	WR(iova, 1, -EINVAL);
	WR(access, 0, -EINVAL);
	WR(length, 0, -EINVAL);
	WR(offset, 1 << 20, -ERANGE);
	WR(id, 0, -ENOENT);
	WR(id, 999999, -ENOENT);
	WR(peer, 999999, -ENOENT);
#undef WR
}

TEST_F(uapi, by_id_bad)
{
	static const unsigned long nrs[] = {
		MWIN_REGION_DESTROY, MWIN_WINDOW_INVALIDATE,
		MWIN_WINDOW_DESTROY, MWIN_PEER_DISCONNECT,
	};
	struct mwin_destroy d;
	size_t i;

	for (i = 0; i < sizeof(nrs) / sizeof(nrs[0]); i++) {
		TH_LOG("command 0x%lx", nrs[i]);
		d = (struct mwin_destroy){ .size = sizeof(d), .id = 999999 };
		EXPECT_ERR_UNCHANGED(-ENOENT, mwin_ioctl(self->fd, nrs[i], &d));
		d.id = 0;
		EXPECT_ERR_UNCHANGED(-ENOENT, mwin_ioctl(self->fd, nrs[i], &d));
		d.id = self->win.id;
		d.__reserved = 1;
		EXPECT_ERR_UNCHANGED(-EINVAL, mwin_ioctl(self->fd, nrs[i], &d));
		d.__reserved = 0;
		d.flags = 1U << 7;
		EXPECT_ERR_UNCHANGED(-EINVAL, mwin_ioctl(self->fd, nrs[i], &d));
	}
	EXPECT_ERR_UNCHANGED(-EBUSY, mwin_region_destroy(self->fd,
							 self->region, 0));
}

TEST_F(uapi, get_bad)
{
	struct mwin_window_info wi;
	struct mwin_region_info ri;
	struct mwin_peer_info pi;

	EXPECT_EQ(-EINVAL, mwin_window_get(self->fd, self->win.id, 2, &wi));
	EXPECT_EQ(-EINVAL, mwin_region_get(self->fd, self->region, 2, &ri));
	EXPECT_EQ(-EINVAL, mwin_peer_get(self->fd, 1, 4, &pi));
	EXPECT_EQ(-EINVAL, mwin_window_get(self->fd, self->win.id,
					   MWIN_GET_GONE, &wi));
	EXPECT_EQ(-ENOENT, mwin_window_get(self->fd, 999999, 0, &wi));
	EXPECT_EQ(-ENOENT, mwin_window_get(self->fd, ~0U, MWIN_GET_NEXT, &wi));
	EXPECT_EQ(-ENOENT, mwin_region_get(self->fd, 0, 0, &ri));
	memset(&ri, 0, sizeof(ri));
	ri.size = sizeof(ri);
	ri.id = self->region;
	ri.node = 1;
	EXPECT_EQ(-EINVAL, mwin_ioctl(self->fd, MWIN_REGION_GET, &ri));
}

/* Ids of destroyed objects name nothing, and are not given out again. */
TEST_F(uapi, destroyed_ids)
{
	struct mwin_window_bind b;
	uint32_t region2, old = self->win.id;

	ASSERT_EQ(0, mwin_window_destroy(self->fd, self->win.id));
	EXPECT_ERR_UNCHANGED(-ENOENT, mwin_window_destroy(self->fd, old));
	EXPECT_ERR_UNCHANGED(-ENOENT, mwin_window_invalidate(self->fd, old));
	b = test_bind(0, 0, 0, 4096, MWIN_ACCESS_READ, 0);
	b.id = old;
	EXPECT_ERR_UNCHANGED(-ENOENT, mwin_window_rebind(self->fd, &b));

	ASSERT_EQ(0, mwin_region_create(self->fd, 4096, 0, &region2, NULL));
	ASSERT_EQ(0, mwin_region_destroy(self->fd, region2, 0));
	b = test_bind(region2, mwpeer_id(self->peer), 0, 4096,
		      MWIN_ACCESS_READ, 0);
	EXPECT_ERR_UNCHANGED(-ENOENT, mwin_window_create(self->fd, &b));
	EXPECT_ERR_UNCHANGED(-ENOENT, mwin_region_destroy(self->fd, region2, 0));

	b = test_bind(self->region, mwpeer_id(self->peer), 0, 4096,
		      MWIN_ACCESS_READ, 0);
	ASSERT_EQ(0, mwin_window_create(self->fd, &b));
	EXPECT_LT(old, b.id);
}

/* mmap: only shared mappings, only inside a region. */
TEST_F(uapi, mmap_bad)
{
	struct mwin_region_info ri;
	void *p;

	ASSERT_EQ(0, mwin_region_get(self->fd, self->region, 0, &ri));
	p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, self->fd, ri.mmap_offset);
	EXPECT_EQ(MAP_FAILED, p);
	p = mmap(NULL, 2 << 20, PROT_READ, MAP_SHARED, self->fd,
		 ri.mmap_offset);
	EXPECT_EQ(MAP_FAILED, p);
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, self->fd,
		 ri.mmap_offset + (1 << 20));
	EXPECT_EQ(MAP_FAILED, p);
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, self->fd,
		 (off_t)999 << 32);
	EXPECT_EQ(MAP_FAILED, p);
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, self->fd,
		 ri.mmap_offset + 4096);
	ASSERT_NE(MAP_FAILED, p);
	munmap(p, 4096);
}

/*
 * A second file opened read-only maps a region MAP_SHARED, PROT_READ: the
 * same pages, never writable; MAP_PRIVATE is still refused.
 */
TEST_F(uapi, mmap_rdonly_fd)
{
	struct mwin_region_info ri;
	char *rw, *ro;
	int rofd;

	ASSERT_EQ(0, mwin_region_get(self->fd, self->region, 0, &ri));
	rw = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd,
		  ri.mmap_offset);
	ASSERT_NE(MAP_FAILED, rw);
	strcpy(rw + 4096, "seen read-only");

	rofd = open(MWIN_DEV_PATH, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, rofd);
	ro = mmap(NULL, 4096, PROT_READ, MAP_SHARED, rofd,
		  ri.mmap_offset + 4096);
	ASSERT_NE(MAP_FAILED, ro) TH_LOG("mmap: %s", strerror(errno));
	EXPECT_STREQ("seen read-only", ro);
	rw[4096] = 'S';
	EXPECT_EQ('S', ro[0]);
	EXPECT_EQ(-1, mprotect(ro, 4096, PROT_READ | PROT_WRITE));
	EXPECT_EQ(EACCES, errno);
	munmap(ro, 4096);

	EXPECT_EQ(MAP_FAILED, mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				   MAP_SHARED, rofd, ri.mmap_offset));
	EXPECT_EQ(EACCES, errno);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, rofd,
				   ri.mmap_offset));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 4096, PROT_READ, MAP_PRIVATE,
				   self->fd, ri.mmap_offset));
	EXPECT_EQ(EINVAL, errno);
	close(rofd);
	munmap(rw, 8192);
}

/*
 * A file opened read-only can look but not change: every command that
 * changes state fails with EBADF, with arguments that succeed on a
 * read-write open, and changes nothing; INFO, the GETs and MONITOR work.
 */
TEST_F(uapi, readonly_open_changes_nothing)
{
	struct mwin_batch_op op = {
		.opcode = MWIN_BATCH_INVALIDATE, .id = self->win.id,
	};
	struct mwin_window_batch batch = {
		.size = sizeof(batch), .count = 1, .op_size = sizeof(op),
		.ops = (uintptr_t)&op,
	};
	struct mwin_monitor mon = { .size = sizeof(mon) };
	struct mwin_window_bind b = test_bind(self->region,
					      mwpeer_id(self->peer), 8192,
					      4096, MWIN_ACCESS_READ, 0);
	struct mwin_window_bind w = self->win;
	struct mwin_region_info ri;
	struct mwin_window_info wi;
	struct mwin_peer_info pi;
	struct mwin_stats st;
	struct mwin_info info;
	uint32_t id;
	int rofd = open(MWIN_DEV_PATH, O_RDONLY | O_CLOEXEC);

	ASSERT_LE(0, rofd);
	EXPECT_ERR_UNCHANGED(-EBADF, mwin_region_create(rofd, 4096, 0, &id,
							NULL));
	EXPECT_ERR_UNCHANGED(-EBADF, mwin_region_destroy(rofd, self->region,
					MWIN_REGION_DESTROY_FORCE));
	EXPECT_ERR_UNCHANGED(-EBADF, mwin_window_create(rofd, &b));
	EXPECT_ERR_UNCHANGED(-EBADF, test_rebind(rofd, &w, 0, 0, 4096,
						 MWIN_ACCESS_WRITE));
	EXPECT_ERR_UNCHANGED(-EBADF, mwin_window_invalidate(rofd,
							    self->win.id));
	EXPECT_ERR_UNCHANGED(-EBADF, mwin_window_destroy(rofd, self->win.id));
	EXPECT_ERR_UNCHANGED(-EBADF, mwin_peer_disconnect(rofd,
						mwpeer_id(self->peer)));
	EXPECT_ERR_UNCHANGED(-EBADF, mwin_ioctl(rofd, MWIN_WINDOW_BATCH,
						&batch));
	EXPECT_EQ(0, op.result);
	/* the window still works */
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_read(self->peer, self->win.rkey,
					      self->win.iova, NULL, 8));

	EXPECT_EQ(0, mwin_info(rofd, &info, NULL, 0));
	EXPECT_EQ(0, mwin_region_get(rofd, self->region, 0, &ri));
	EXPECT_EQ(0, mwin_window_get(rofd, self->win.id, 0, &wi));
	EXPECT_EQ(0, mwin_peer_get(rofd, mwpeer_id(self->peer), 0, &pi));
	EXPECT_EQ(0, mwin_stats(rofd, MWIN_STATS_PEER, mwpeer_id(self->peer),
				&st));
	EXPECT_EQ(0, mwin_ioctl(rofd, MWIN_MONITOR, &mon));
	close(rofd);
}

/*
 * A peer is not an opener's: disconnecting one needs CAP_SYS_ADMIN, also
 * through a file root opened. The caller's credentials decide.
 */
TEST_F(uapi, peer_disconnect_needs_cap_sys_admin)
{
	uint32_t id = mwpeer_id(self->peer);
	int status;
	pid_t pid;

	take_snapshot(self->fd, &self->before);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (test_become_nobody())
			_exit(2);
		_exit(mwin_peer_disconnect(self->fd, id) == -EPERM ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	EXPECT_UNCHANGED();
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_read(self->peer, self->win.rkey,
					      self->win.iova, NULL, 8));
}

TEST_HARNESS_MAIN
