// SPDX-License-Identifier: GPL-2.0
/*
 * Random ioctl sequences against /dev/mwin from several threads, for
 * MWIN_FUZZ_SECONDS (default 60), while peers run traffic through the
 * windows they are granted.
 *
 *  - NFUZZ threads, each with its own file descriptor (reopened now and
 *    then, which destroys its MWIN_CREATE_FD_OWNED objects), call every
 *    command with mostly valid arguments drawn from shared pools of
 *    region and window ids and the traffic peers' ids, and sometimes bad
 *    ones: wrong sizes, unknown flags, reserved fields, bad pointers,
 *    random command numbers and random bytes. Region sizes stay small
 *    (the guest has 2 GiB, the module allows 4 GiB). mmap, munmap and
 *    monitor reads are mixed in. Some grants have leases short enough to
 *    run out under the other calls (renewed now and then), some windows
 *    are one-shot: their expiry destroys them.
 *  - a stranger, a process of another user (STRANGER_UID, with /dev/mwin
 *    opened to it for the test), fires the calls that name an object at
 *    the ids of the pools, which are root's: each must fail with ENOENT
 *    (EPERM for PEER_DISCONNECT), as if the object did not exist, and
 *    leave it as it was.
 *  - NTRAFFIC peer threads each keep one mwpeer connected (reconnecting
 *    when a window vanished under an access), take its messages, and
 *    READ, WRITE and fetch-and-add through whatever is granted, within
 *    the grant's range and rights. Now and then a peer probes an rkey
 *    whose revoke message it received less than half a second ago: that
 *    access must fail (a revoke is sent only after the rkey is dead).
 *
 * Afterwards: every listed object is consistent with the others (GET by
 * id works, windows lie in their regions, counts agree, MWIN_INFO agrees),
 * everything is destroyed, the counts return to where they started, and
 * a fresh window is granted and read through. /proc/meminfo (Slab,
 * SUnreclaim, MemFree) before and after is logged.
 *
 * MWIN_FUZZ_SECONDS: duration (at most MAX_SECS); MWIN_FUZZ_TRAFFIC=0: the peers stay
 * connected (windows are granted to them) but send nothing.
 *
 * The fuzzers, the traffic peers and the stranger: fuzz/fuzz.c, whose
 * fuzz.h says what they share with the test.
 */
#define _GNU_SOURCE
#include <sys/stat.h>
#include <time.h>

#include "mwin_test.h"
#include "fuzz/fuzz.h"

#define DEFAULT_SECS	60
/*
 * The harness's bound of the test is a constant (TEST_F_TIMEOUT): a longer
 * run is capped at what it allows, with 2 minutes for the checks after it
 * (guest-run.sh's bound of a binary, 600 s by default, may need raising).
 */
#define MAX_SECS	1800

FIXTURE(fuzz)
{
	int fd;
};

FIXTURE_SETUP(fuzz)
{
	self->fd = mwin_open();
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(fuzz)
{
	close(self->fd);
}

static double fuzz_seconds(void)
{
	const char *env = getenv("MWIN_FUZZ_SECONDS");
	double s = env ? atof(env) : DEFAULT_SECS;

	if (s > MAX_SECS)
		return MAX_SECS;
	return s > 0 ? s : DEFAULT_SECS;
}

TEST_F_TIMEOUT(fuzz, random_ioctls, MAX_SECS + 120)
{
	struct fuzzer fz[NFUZZ];
	struct traffic tr[NTRAFFIC];
	pthread_t ft[NFUZZ], tt[NTRAFFIC];
	struct mwin_info before, after;
	struct mwin_window_info wi;
	struct mwin_region_info ri;
	struct mwin_peer_info pi;
	char mem_before[256], mem_after[256];
	unsigned int nw = 0, nr = 0, np = 0, bad = 0;
	uint64_t bytes = 0;
	double secs = fuzz_seconds(), t0;
	pid_t stranger_pid;
	struct stat st;
	int i, j, status;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, sh);
	memset(sh, 0, sizeof(*sh));
	pthread_mutex_init(&sh->lock, NULL);
	meminfo(mem_before, sizeof(mem_before));
	TH_LOG("meminfo before: %s", mem_before);
	ASSERT_EQ(0, mwin_info(self->fd, &before, NULL, 0));

	t0 = test_now_s();
	sh->deadline = t0 + secs;
	/* before any thread or RDMA resource: a plain fork */
	ASSERT_EQ(0, stat(MWIN_DEV_PATH, &st));
	ASSERT_EQ(0, chmod(MWIN_DEV_PATH, 0666));
	stranger_pid = fork();
	if (stranger_pid == 0)
		_exit(stranger());
	ASSERT_LT(0, stranger_pid);
	for (i = 0; i < NTRAFFIC; i++) {
		tr[i] = (struct traffic){ .t = i, .fd = self->fd,
			.access = !getenv("MWIN_FUZZ_TRAFFIC") ||
				  atoi(getenv("MWIN_FUZZ_TRAFFIC")),
			.seed = (unsigned int)time(NULL) + 17 * i };
		ASSERT_EQ(0, pthread_create(&tt[i], NULL, traffic_thread, &tr[i]));
	}
	/* the fuzzers start once the traffic peers are there */
	for (i = 0; i < 5000 && !(LOAD(sh->peers[0]) && LOAD(sh->peers[NTRAFFIC - 1])); i++)
		usleep(1000);
	for (i = 0; i < NFUZZ; i++) {
		fz[i] = (struct fuzzer){ .t = i, .mon = -1,
			.seed = (unsigned int)time(NULL) * 31 + i };
		fz[i].fd = mwin_open();
		ASSERT_LE(0, fz[i].fd);
		ASSERT_EQ(0, pthread_create(&ft[i], NULL, fuzz_thread, &fz[i]));
	}
	for (i = 0; i < NFUZZ; i++)
		pthread_join(ft[i], NULL);
	STORE(sh->stop, 1);
	ASSERT_EQ(stranger_pid, waitpid(stranger_pid, &status, 0));
	chmod(MWIN_DEV_PATH, st.st_mode & 07777);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	TH_LOG("stranger (uid %d): %lu calls at root's ids, %lu not refused",
	       STRANGER_UID, sh->stranger_calls, sh->stranger_bad);
	if (sh->stranger_bad)
		TH_LOG("first: %s", sh->stranger_first);
	EXPECT_LT(0, sh->stranger_calls);
	EXPECT_EQ(0, sh->stranger_bad);
	for (i = 0; i < NTRAFFIC; i++)
		pthread_join(tt[i], NULL);
	TH_LOG("%.1f s of fuzzing", test_now_s() - t0);

	for (i = 0; i < NOPS; i++) {
		char line[512];
		size_t n = 0;
		unsigned long tot = 0;

		for (j = 0; j <= (int)NERRS; j++)
			tot += sh->count[i][j];
		n += snprintf(line + n, sizeof(line) - n, "%-17s %6lu:", op_name[i], tot);
		for (j = 0; j <= (int)NERRS; j++) {
			if (!sh->count[i][j])
				continue;
			n += snprintf(line + n, sizeof(line) - n, " %s %lu",
				      j == NERRS ? "other" : j == 0 ? "ok" :
				      strerrorname_np(errs[j]), sh->count[i][j]);
			if (j == NERRS && n < sizeof(line))
				n += snprintf(line + n, sizeof(line) - n,
					      " (first: %s)",
					      strerrorname_np(sh->other[i]));
			if (n >= sizeof(line))
				break;
		}
		TH_LOG("%s", line);
	}
	TH_LOG("traffic: %lu accesses OK, %lu failed (windows revoked under them), %lu reconnects, %lu probes of revoked rkeys",
	       sh->traffic_ok, sh->traffic_fail, sh->reconnects, sh->probes);
	if (sh->violations)
		TH_LOG("%lu violations, first: %s", sh->violations, sh->first);
	EXPECT_EQ(0, sh->violations);
	/* errnos outside the documented ones (random commands aside) */
	for (i = 0; i < NOPS; i++)
		if (i != OP_RAW)
			EXPECT_EQ(0, sh->count[i][NERRS]);

	/* a quiet moment: pending teardowns finish, leases run out */
	for (i = 0; i < NFUZZ; i++) {
		if (fz[i].mon >= 0)
			close(fz[i].mon);
	}
	usleep(500000 + 2 * LEASE_MAX_MS * 1000);

	/* every window is consistent with its region and peer */
	for (wi.id = 0; !mwin_window_get(self->fd, wi.id, MWIN_GET_NEXT, &wi);) {
		struct mwin_window_info again;

		nw++;
		if (mwin_window_get(self->fd, wi.id, 0, &again) ||
		    again.region != wi.region || again.offset != wi.offset ||
		    again.length != wi.length) {
			bad++;
			TH_LOG("window %u: GET by id disagrees", wi.id);
		}
		if (mwin_region_get(self->fd, wi.region, 0, &ri)) {
			bad++;
			TH_LOG("window %u (%s, rkey 0x%x) outlives its region %u, which is no longer listed",
			       wi.id, mwin_window_state_name(wi.state), wi.rkey,
			       wi.region);
		} else if (wi.offset + wi.length > ri.length || !wi.length ||
		    wi.iova != wi.offset || !wi.access ||
		    (wi.access & ~MWIN_ACCESS_ALL) || !wi.binds ||
		    wi.state < MWIN_WINDOW_BOUND || wi.state > MWIN_WINDOW_BROKEN ||
		    (wi.state == MWIN_WINDOW_UNBOUND) != !wi.peer ||
		    (wi.peer && mwin_peer_get(self->fd, wi.peer, 0, &pi))) {
			bad++;
			TH_LOG("window %u inconsistent: region %u [%llu, +%llu) state %s peer %u access 0x%x binds %llu",
			       wi.id, wi.region, (unsigned long long)wi.offset,
			       (unsigned long long)wi.length,
			       mwin_window_state_name(wi.state), wi.peer,
			       wi.access, (unsigned long long)wi.binds);
		}
	}
	for (ri.id = 0; !mwin_region_get(self->fd, ri.id, MWIN_GET_NEXT, &ri);) {
		unsigned int c = 0;

		nr++;
		bytes += ri.length;
		for (wi.id = 0; !mwin_window_get(self->fd, wi.id, MWIN_GET_NEXT, &wi);)
			c += wi.region == ri.id;
		if (c != ri.nr_windows || ri.length % 4096 ||
		    ri.mmap_offset != (uint64_t)ri.id << 32) {
			bad++;
			TH_LOG("region %u: %u windows listed, nr_windows %u, length %llu",
			       ri.id, c, ri.nr_windows,
			       (unsigned long long)ri.length);
		}
	}
	for (pi.id = 0; !mwin_peer_get(self->fd, pi.id, MWIN_GET_NEXT, &pi);) {
		unsigned int c = 0;

		np++;
		for (wi.id = 0; !mwin_window_get(self->fd, wi.id, MWIN_GET_NEXT, &wi);)
			c += wi.peer == pi.id;
		if (c != pi.nr_windows) {
			bad++;
			TH_LOG("peer %u: %u windows listed, nr_windows %u",
			       pi.id, c, pi.nr_windows);
		}
	}
	ASSERT_EQ(0, mwin_info(self->fd, &after, NULL, 0));
	TH_LOG("after fuzzing: %u windows, %u regions (%llu bytes), %u peers listed; info: %u, %u (%llu), %u",
	       nw, nr, (unsigned long long)bytes, np, after.nr_windows,
	       after.nr_regions, (unsigned long long)after.region_bytes,
	       after.nr_peers);
	EXPECT_EQ(0, bad);
	EXPECT_EQ(nw, after.nr_windows);
	EXPECT_EQ(nr, after.nr_regions);
	EXPECT_EQ(bytes, after.region_bytes);
	EXPECT_EQ(np, after.nr_peers);

	/* destroy everything: windows, then regions */
	while (!mwin_window_get(self->fd, 0, MWIN_GET_NEXT, &wi))
		ASSERT_EQ(0, mwin_window_destroy(self->fd, wi.id));
	while (!mwin_region_get(self->fd, 0, MWIN_GET_NEXT, &ri))
		ASSERT_EQ(0, mwin_region_destroy(self->fd, ri.id, 0));
	for (i = 0; i < NFUZZ; i++)
		close(fz[i].fd);

	/* the module still works: a fresh window, a read through it */
	{
		struct mwin_window_bind b;
		struct mwpeer *p = test_connect();
		uint32_t region;
		struct mwpeer_msg m;
		uint8_t *mem;
		size_t len;
		char buf[8];

		ASSERT_NE(NULL, p);
		ASSERT_EQ(0, mwin_region_create(self->fd, 8192, 0, &region, NULL));
		mem = mwin_region_mmap(self->fd, region, &len);
		ASSERT_NE(NULL, mem);
		memcpy(mem + 4100, "alive!", 6);
		b = test_bind(region, mwpeer_id(p), 4096, 100,
			      MWIN_ACCESS_READ, 0);
		ASSERT_EQ(0, mwin_window_create(self->fd, &b));
		ASSERT_EQ(0, mwpeer_wait_grant(p, b.id, 0, &m, TEST_TIMEOUT_MS));
		EXPECT_EQ(b.rkey, m.rkey);
		EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_read(p, b.rkey, 4100, buf, 6));
		EXPECT_EQ(0, memcmp(buf, "alive!", 6));
		munmap(mem, len);
		EXPECT_EQ(0, mwin_region_destroy(self->fd, region,
						 MWIN_REGION_DESTROY_FORCE));
		mwpeer_close(p);
	}
	for (i = 0; i < NTRAFFIC; i++)
		mwpeer_close(tr[i].p);
	for (i = 0; i < 5000; i++) {
		ASSERT_EQ(0, mwin_info(self->fd, &after, NULL, 0));
		if (after.nr_peers == before.nr_peers)
			break;
		usleep(1000);
	}
	EXPECT_EQ(before.nr_windows, after.nr_windows);
	EXPECT_EQ(before.nr_regions, after.nr_regions);
	EXPECT_EQ(before.region_bytes, after.region_bytes);
	EXPECT_EQ(before.nr_peers, after.nr_peers);
	meminfo(mem_after, sizeof(mem_after));
	TH_LOG("meminfo after: %s", mem_after);
	munmap(sh, sizeof(*sh));
}

TEST_HARNESS_MAIN
