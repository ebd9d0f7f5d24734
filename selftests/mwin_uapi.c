// SPDX-License-Identifier: GPL-2.0
/*
 * Every ioctl with bad input: each gets its documented errno and changes
 * nothing (the listing of all objects is the same before and after).
 */
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

/* Run one call expecting @err, and check that nothing changed. */
#define EXPECT_ERR_UNCHANGED(_err, _call) do {				\
	take_snapshot(self->fd, &self->before);				\
	EXPECT_EQ(_err, _call);						\
	take_snapshot(self->fd, &self->after);				\
	EXPECT_EQ(self->before.len, self->after.len);			\
	EXPECT_EQ(0, memcmp(self->before.data, self->after.data,	\
			    self->before.len));				\
} while (0)

/* Raw ioctl with an arbitrary size field. */
static int raw(int fd, unsigned long cmd, void *arg, uint32_t size)
{
	*(uint32_t *)arg = size;
	return mwin_ioctl(fd, cmd, arg);
}

struct cmd {
	unsigned long nr;
	size_t size;
};

static const struct cmd cmds[] = {
	{ MWIN_INFO, sizeof(struct mwin_info) },
	{ MWIN_REGION_CREATE, sizeof(struct mwin_region_create) },
	{ MWIN_REGION_DESTROY, sizeof(struct mwin_destroy) },
	{ MWIN_REGION_GET, sizeof(struct mwin_region_info) },
	{ MWIN_WINDOW_CREATE, sizeof(struct mwin_window_bind) },
	{ MWIN_WINDOW_REBIND, sizeof(struct mwin_window_bind) },
	{ MWIN_WINDOW_INVALIDATE, sizeof(struct mwin_destroy) },
	{ MWIN_WINDOW_DESTROY, sizeof(struct mwin_destroy) },
	{ MWIN_WINDOW_GET, sizeof(struct mwin_window_info) },
	{ MWIN_PEER_GET, sizeof(struct mwin_peer_info) },
	{ MWIN_PEER_DISCONNECT, sizeof(struct mwin_destroy) },
	{ MWIN_MONITOR, sizeof(struct mwin_monitor) },
	{ MWIN_WINDOW_BATCH, sizeof(struct mwin_window_batch) },
};

/* Sizes: short is EINVAL, long with a non-zero tail E2BIG, bad pointer EFAULT. */
TEST_F(uapi, struct_sizes)
{
	uint64_t buf[64];
	size_t i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		unsigned long nr = cmds[i].nr;
		size_t size = cmds[i].size;

		TH_LOG("command 0x%lx, size %zu", nr, size);
		memset(buf, 0, sizeof(buf));
		EXPECT_ERR_UNCHANGED(-EINVAL, raw(self->fd, nr, buf, size - 1));
		EXPECT_ERR_UNCHANGED(-EINVAL, raw(self->fd, nr, buf, 0));
		memset(buf, 0, sizeof(buf));
		((uint8_t *)buf)[size] = 1;
		EXPECT_ERR_UNCHANGED(-E2BIG, raw(self->fd, nr, buf, size + 8));
		EXPECT_ERR_UNCHANGED(-EFAULT, mwin_ioctl(self->fd, nr, NULL));
		EXPECT_ERR_UNCHANGED(-EFAULT,
				     mwin_ioctl(self->fd, nr, (void *)8));
	}
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
	RC(__reserved, 1, -EINVAL);
	RC(id, 5, -EINVAL);
	RC(mmap_offset, 4096, -EINVAL);
	RC(length, 0, -EINVAL);
	RC(length, (1ULL << 32) + 1, -EINVAL);
	RC(length, ~0ULL, -EINVAL);
#undef RC
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
	WC(flags, 1U << 3, -EINVAL);
	WC(flags, 1U << 31, -EINVAL);
	WC(__reserved, 1, -EINVAL);
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
	WR(flags, 1U << 9, -EINVAL);
	WR(__reserved, 1, -EINVAL);
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
	EXPECT_EQ(-EINVAL, mwin_peer_get(self->fd, 1, 2, &pi));
	EXPECT_EQ(-ENOENT, mwin_window_get(self->fd, 999999, 0, &wi));
	EXPECT_EQ(-ENOENT, mwin_window_get(self->fd, ~0U, MWIN_GET_NEXT, &wi));
	EXPECT_EQ(-ENOENT, mwin_region_get(self->fd, 0, 0, &ri));
	memset(&ri, 0, sizeof(ri));
	ri.size = sizeof(ri);
	ri.id = self->region;
	ri.__reserved = 1;
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

TEST_HARNESS_MAIN
