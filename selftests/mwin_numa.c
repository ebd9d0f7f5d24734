// SPDX-License-Identifier: GPL-2.0
/*
 * Region memory and NUMA: a region made MWIN_REGION_NEAR_DEV has its pages
 * on its device's node; one made without it follows the caller's memory
 * policy (by default the node of the CPU it runs on).
 *
 * The placement is only seen on a machine of two nodes or more: make check
 * boots one for this test (MWIN_VM_NUMA: rxe0's NIC on node 1, each node a
 * CPU) and sets MWIN_NUMA=1, which makes a machine of one node a failure
 * rather than a skip. On one node the node the module reports is still
 * checked against sysfs.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "mwctl_run.h"

#define DEV		(test_dev_name())	/* rxe0, or siw0 */
#define REGION_LEN	(1UL << 20)
#define PAGE		4096UL

FIXTURE(numa)
{
	int fd;
	struct mwin_dev_info dev;
	uint32_t regions[3];
	int n;
};

FIXTURE_SETUP(numa)
{
	self->fd = mwin_open();
	ASSERT_LE(0, self->fd);
	ASSERT_TRUE(test_dev(self->fd, DEV, &self->dev));
}

FIXTURE_TEARDOWN(numa)
{
	while (self->n)
		mwin_region_destroy(self->fd, self->regions[--self->n], 0);
	close(self->fd);
}

/* The first integer of sysfs file @path, or @none. */
static int read_int(const char *path, int none)
{
	FILE *f = fopen(path, "r");
	int v = none;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = none;
		fclose(f);
	}
	return v;
}

/*
 * @dev's node as sysfs has it: its own device's, or, for a device without
 * one (rxe), the nearest numa_node up from the network device of its
 * first port's first GID. -1: not known.
 */
static int sysfs_dev_node(const char *dev)
{
	char link[PATH_MAX], path[PATH_MAX], ndev[64] = "", *slash;
	FILE *f;
	int node;

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/device/numa_node",
		 dev);
	node = read_int(path, -2);
	if (node != -2)
		return node;
	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/ports/1/gid_attrs/ndevs/0", dev);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%63s", ndev) != 1)
		ndev[0] = '\0';
	if (f)
		fclose(f);
	snprintf(link, sizeof(link), "/sys/class/net/%s/device", ndev);
	if (!ndev[0] || !realpath(link, path))
		return -1;
	while ((slash = strrchr(path, '/')) && slash != path) {
		size_t len = strlen(path);

		snprintf(path + len, sizeof(path) - len, "/numa_node");
		node = read_int(path, -2);
		if (node != -2)
			return node;
		*slash = '\0';
	}
	return -1;
}

static int nr_nodes(void)
{
	char path[64];
	int n = 0;

	for (;;) {
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d", n);
		if (access(path, F_OK))
			return n;
		n++;
	}
}

/* Run on the CPUs of @node alone (cpulist "N" or "N-M"). */
static int run_on_node(int node)
{
	char path[64];
	int first, last;
	cpu_set_t set;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist",
		 node);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%d-%d", &first, &last) == 1)
		last = first;
	fclose(f);
	CPU_ZERO(&set);
	for (; first <= last; first++)
		CPU_SET(first, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/*
 * The node of every page of region @id, through a mapping of it (faulted
 * in) and move_pages(2) without a target, which only reports: the node
 * all are on, or -1 when they are not on one.
 */
static int region_node(int fd, uint32_t id)
{
	size_t len, i, n;
	void **pages;
	int *status, node;
	char *m = mwin_region_mmap(fd, id, &len);

	if (m == MAP_FAILED)
		return -2;
	n = len / PAGE;
	pages = calloc(n, sizeof(*pages));
	status = calloc(n, sizeof(*status));
	for (i = 0; i < n; i++) {
		pages[i] = m + i * PAGE;
		(void)*(volatile char *)pages[i];
	}
	node = syscall(SYS_move_pages, 0, n, pages, NULL, status, 0) ? -3 :
	       status[0];
	for (i = 1; i < n && node >= 0; i++)
		if (status[i] != node)
			node = -1;
	free(pages);
	free(status);
	munmap(m, len);
	return node;
}

/* The node REGION_GET reports of region @id. */
static int reported_node(int fd, uint32_t id)
{
	struct mwin_region_info ri;

	return mwin_region_get(fd, id, 0, &ri) ? INT_MIN : ri.node;
}

/* A region of the fixture's, near its device when @near. */
static uint32_t make_region(struct __test_metadata *_metadata,
			    FIXTURE_DATA(numa) *self, bool near)
{
	uint32_t id;

	if (near) {
		ASSERT_EQ(0, mwin_region_create_near(self->fd, REGION_LEN, 0,
						     self->dev.index, &id, NULL));
	} else {
		ASSERT_EQ(0, mwin_region_create(self->fd, REGION_LEN, 0, &id,
						NULL));
	}
	self->regions[self->n++] = id;
	return id;
}

/* REGION_GET says the node the pages were asked of: the device's, or -1. */
TEST_F(numa, node_reported)
{
	struct mwin_region_info ri;
	uint32_t id;

	id = make_region(_metadata, self, true);
	EXPECT_EQ(sysfs_dev_node(DEV), reported_node(self->fd, id));
	ASSERT_EQ(0, mwin_region_get(self->fd, id, 0, &ri));
	EXPECT_EQ(MWIN_REGION_NEAR_DEV, ri.rflags);
	id = make_region(_metadata, self, false);
	EXPECT_EQ(-1, reported_node(self->fd, id));
}

/*
 * From a CPU of another node than the device's, a region made near the
 * device has every page on the device's node; one made without the flag,
 * on the caller's node.
 */
TEST_F(numa, pages_on_device_node)
{
	int dev_node = sysfs_dev_node(DEV), other;

	if (nr_nodes() < 2 || dev_node < 0) {
		if (getenv("MWIN_NUMA"))
			ASSERT_TRUE(false) TH_LOG("MWIN_NUMA: %d nodes, %s on node %d",
						  nr_nodes(), DEV, dev_node);
		SKIP(return, "one NUMA node, or %s's node not known", DEV);
	}
	other = dev_node ? 0 : 1;
	ASSERT_EQ(0, run_on_node(other));
	EXPECT_EQ(dev_node, region_node(self->fd,
					make_region(_metadata, self, true)));
	EXPECT_EQ(other, region_node(self->fd,
				     make_region(_metadata, self, false)));
}

/* mwctl region create near DEV, and the node it prints. */
TEST_F(numa, mwctl_near)
{
	int node = sysfs_dev_node(DEV);
	struct run r = { 0 };
	jv *j;

	RUN(&r, "-j region create size 64K near %s", DEV);
	EXPECT_OK(&r);
	j = jparse(r.out);
	ASSERT_NE(NULL, j);
	self->regions[self->n++] = (uint32_t)jnum(j, "id");
	if (node >= 0) {
		EXPECT_EQ(node, (int)jnum(j, "node"));
	} else {
		EXPECT_EQ(NULL, jget(j, "node"));
	}
	jfree(j);
	EXPECT_EQ(node, reported_node(self->fd, self->regions[self->n - 1]));

	RUN(&r, "region create size 64K near nosuchdev");
	EXPECT_ERR(&r, 2, "mwctl: no RDMA device nosuchdev (mwctl dev show lists them)");
	run_free(&r);
}

TEST_HARNESS_MAIN
