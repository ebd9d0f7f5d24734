// SPDX-License-Identifier: GPL-2.0
/*
 * Faults under load: the calling process killed (in the middle of calls
 * too), the RDMA device removed and added back, peers disconnected, and
 * the module unloaded and loaded again, while threads create, rebind,
 * invalidate and destroy windows (single calls and batches) and peers
 * hammer them with RDMA WRITE, READ and fetch-and-add.
 *
 * Processes. librdmacm keeps a device open for the life of the process
 * that used it, and rxe (or siw) cannot be deleted while a process holds
 * it, so the test process itself never uses verbs:
 *
 *  - peers: NPEERS child processes with one mwpeer each. They WRITE, READ
 *    and fetch-and-add through whatever grants they hold, now and then hand
 *    one back with Send-with-Invalidate, and reconnect when their
 *    connection dies. Each records how every connection ended: closed by
 *    the module ('D'), closed by the module after an access failed ('Q'),
 *    dropped by the peer itself ('S', on the test's request), not closed
 *    by the module within 5 s after an access failed ('T') or timed out
 *    ('O'), or dropped by the module (the test saw it go) without the
 *    peer seeing a disconnect within 5 s ('R'). T, O and R fail the test
 *    (R is what happened when the module tore down a peer whose CM id was
 *    not established yet: no DREQ, a REJ after the peer's RTU, which
 *    mwpeer did not take for a disconnect until it was told to). A
 *    message that breaks the protocol (a revoke of an rkey that is not
 *    the current grant, a gap in the sequence, ...) fails it too;
 *  - the controller: a child process that opens /dev/mwin, makes a
 *    module-owned and an fd-owned region and runs NTHREADS threads of
 *    window calls: creates (module-owned and MWIN_CREATE_FD_OWNED),
 *    rebinds, invalidations, destroys, batches of them, regions made and
 *    force-destroyed with windows in them, second file descriptors closed
 *    with fd-owned objects in them, listings. A call that returns what it
 *    cannot return under this load fails the test: anything but 0,
 *    ENOENT, EBUSY, ENOTCONN and EIO, or ENOENT for a window that only
 *    the calling thread destroys, or a window or region still there after
 *    its region was force-destroyed or its file released.
 *
 * After every fault, the test lets things settle (bounded), then checks
 * that the module and the peers agree: no fd-owned object outlives its
 * process; no window is BROKEN, or bound to a peer that no peer process
 * holds; every bound window is a grant its peer holds with the same rkey,
 * range and rights, and every grant a peer holds is a bound window (else a
 * revoke never arrived); no peer is left that no process holds. Then it
 * writes a pattern into every bound window through mmap; each peer reads
 * its windows, checks the pattern and writes its inverse, which the test
 * finds in memory. At the end of each test the peers stop and the module's
 * counts of peers, windows, regions and region bytes must be back where
 * they were. The last test compares slab memory with the start and checks
 * that mwin is loaded and the RDMA device is back and ACTIVE.
 *
 * Every wait is bounded: a call, a process or a command that does not
 * finish in time fails the test, and the kernel stacks of what is stuck are
 * printed. The seed and every injected fault, with when it was injected
 * and which calls were in flight, are printed as TAP comments.
 *
 * Environment:
 *  MWIN_FAULTS_SECONDS  seconds of load in each test (default 10, at most
 *                       120). With the default the file takes about 40 s
 *                       in the VM (3 min under the debug kernel), with 30
 *                       about 100 s; for long runs keep 4 times this plus a
 *                       minute under MWIN_TEST_TIMEOUT (guest-run.sh, 600 s
 *                       per binary).
 *  MWIN_FAULTS_SEED     seed of the random choices (default: from the time)
 *  MWIN_FAULTS_SLAB_KB  how many kB more slab objects in use than at the
 *                       start are tolerated at the end (default 2048; twice
 *                       that for /proc/meminfo's SUnreclaim)
 *  MWIN_KO              the module, for the reload (set by guest-run.sh)
 *
 * The framework is in selftests/faults/, one concern a file, declared in
 * faults/faults.h: peer.c (the peer processes), ctl.c (the controller),
 * drive.c (the test's side of both: start, command, watch, stop), check.c
 * (the module against the peers, and the data) and sys.c (processes,
 * the RDMA device, the module, slab memory). The device is the tests'
 * (test_dev_name(): rxe0, or siw0 with MWIN_PROVIDER=siw). This file
 * keeps the fixture and the tests.
 */
#define _GNU_SOURCE
#define FAULTS_MAIN	/* the file that runs the harness */
#include "faults/faults.h"

/* Its data, FIXTURE_DATA(faults), is in faults/faults.h. */
FIXTURE(faults);

FIXTURE_SETUP(faults)
{
	const char *env = getenv("MWIN_FAULTS_SECONDS");
	const char *seed = getenv("MWIN_FAULTS_SEED");

	self->t0 = test_now_ms();
	self->secs = env ? atof(env) : 10;
	if (!(self->secs > 0) || self->secs > 120)
		self->secs = 10;
	self->seed = seed ? strtoul(seed, NULL, 0) :
			    (unsigned int)time(NULL) ^ (unsigned int)getpid();
	self->sh = mmap(NULL, sizeof(*self->sh), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->sh);
	memset(self->sh, 0, sizeof(*self->sh));
	self->wins = calloc(MAX_WINDOWS, sizeof(*self->wins));
	ASSERT_NE(NULL, self->wins);
	self->fd = mwin_open();
	ASSERT_LE(0, self->fd);
	watched = self;
	set_base(self);
	TH_LOG("seed %u (MWIN_FAULTS_SEED=%u repeats its choices), %.1f s of load",
	       self->seed, self->seed, self->secs);
}

FIXTURE_TEARDOWN(faults)
{
	int i, status;

	watched = NULL;
	if (self->ctl) {
		kill(self->ctl, SIGKILL);
		wait_pid(self->ctl, 25000, &status);
	}
	for (i = 0; i < NSLOTS_PEER; i++)
		if (self->sh->peer[i].pid) {
			kill(self->sh->peer[i].pid, SIGKILL);
			wait_pid(self->sh->peer[i].pid, 10000, &status);
		}
	unmap_all(self);
	if (self->fd >= 0)
		close(self->fd);
	restore_world(_metadata);
	free(self->wins);
	munmap(self->sh, sizeof(*self->sh));
}

/* ------------------------------------------------------------- tests */

enum {
	KILL_ANYTIME, KILL_IN_BATCH, KILL_IN_REGION, KILL_IN_CREATE,
	KILL_AT_ONCE, NKILL
};

static const char *const kill_name[NKILL] = {
	"at a random time", "in a batch", "in a region or fd-close sequence",
	"in a create", "right after it got going",
};

/*
 * The calling process killed with SIGKILL while its threads churn windows
 * and the peers use them, at random points and in the middle of calls
 * (a batch, a create, a region or file being torn down); round after
 * round, the peers busy or idle. Its fd-owned objects must go with it
 * (revoked: no peer keeps a grant), even while another process still maps
 * its fd-owned region (whose pages stay until that unmaps); its
 * module-owned ones must stay, and work again once bound to a peer.
 */
TEST_F_TIMEOUT(faults, kill_caller_mid_call, 300)
{
	int64_t end = test_now_ms() + (int64_t)(self->secs * 1000);
	int round, rounds = 0, mode;

	start_peers(_metadata, self);
	for (round = 0; round < 40 && (round < 3 || test_now_ms() < end); round++) {
		struct mwin_info before, after;
		struct mwin_region_info ri;
		uint32_t fd_region;
		size_t len = 0;
		uint8_t *mem;
		int status, k, nw;

		ASSERT_EQ(0, start_ctl(_metadata, self, false));
		fd_region = self->sh->ctl_region[1];
		/* a mapping of the fd-owned region outlives its process */
		mem = region_mem(self, fd_region, &len);
		ASSERT_NE(NULL, mem);
		ASSERT_EQ(FD_REGION, len);
		mode = rand_r(&self->seed) % NKILL;
		if (mode == KILL_AT_ONCE)
			run_load(_metadata, self, rand_ms(self, 0, 20));
		else
			run_load(_metadata, self, rand_ms(self, 100, 1500));
		/*
		 * Every other round the peers stop their accesses (and keep
		 * taking messages) before the kill: a grant whose revoke never
		 * comes then stays for the check to find, where an access
		 * would fail, kill the connection and forget it.
		 */
		if (round % 2 == 0) {
			peers_cmd(self, 0, NPEERS, CMD_QUIESCE);
			ASSERT_EQ(0, peers_wait_ack(_metadata, self, 0, NPEERS,
						    30000));
		}
		if (mode == KILL_IN_BATCH) {
			static const int ops[] = { OP_BATCH };

			wait_for_op(self, ops, 1, 3000);
		} else if (mode == KILL_IN_REGION) {
			static const int ops[] = { OP_REGION, OP_FD };

			wait_for_op(self, ops, 2, 3000);
		} else if (mode == KILL_IN_CREATE) {
			static const int ops[] = { OP_CREATE };

			wait_for_op(self, ops, 1, 3000);
		}
		log_inflight(_metadata, self, "SIGKILL to the controller");
		status = reap_ctl(_metadata, self, true);
		EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
			self->failed = true;
		ctl_report(_metadata, self);
		TH_LOG("round %d: killed %s, the peers %s", round,
		       kill_name[mode], round % 2 ? "busy" : "idle");
		rounds++;

		/* its file is released: the fd-owned region is gone ... */
		EXPECT_EQ(-ENOENT, mwin_region_get(self->fd, fd_region, 0, &ri))
			self->failed = true;
		EXPECT_EQ(0, no_fd_owned(_metadata, self))
			self->failed = true;
		/* ... but our mapping keeps its pages until we unmap them */
		for (k = 0; k < FD_REGION; k += 4096)
			mem[k] ^= 0xff;
		ASSERT_EQ(0, mwin_info(self->fd, &before, NULL, 0));
		unmap_all(self);
		/*
		 * A window of that region whose peer's QP is still draining
		 * holds the region (and its pages) until the drain ends.
		 */
		for (k = 0; k < 5000; k++) {
			ASSERT_EQ(0, mwin_info(self->fd, &after, NULL, 0));
			if (after.region_bytes == before.region_bytes - FD_REGION)
				break;
			usleep(1000);
		}
		EXPECT_EQ(before.region_bytes - FD_REGION, after.region_bytes)
			self->failed = true;

		settle_and_check(_metadata, self, 0, NPEERS,
				 CHECK_REBIND | CHECK_VERIFY, "after the kill");
		if (self->failed)
			break;
		/* keep the leftovers of the rounds from piling up */
		nw = list_windows(self);
		for (k = 0; k < nw - 100; k++)
			EXPECT_EQ(0, mwin_window_destroy(self->fd,
							 self->wins[k].id));
	}
	TH_LOG("%d rounds", rounds);
	stop_peers(_metadata, self, 0, NPEERS);
	check_ends(_metadata, self, 0, NPEERS);
	cleanup_and_count(_metadata, self);
}

/*
 * MWIN_PEER_DISCONNECT of peers, peers dropping their own connections and
 * peer processes killed, at random points while the controller churns
 * (and disconnects peers itself now and then).
 */
TEST_F_TIMEOUT(faults, peer_disconnect_under_load, 300)
{
	int64_t end = test_now_ms() + (int64_t)(self->secs * 1000);
	unsigned int ioctl_dis = 0, drops = 0, kills = 0, k;
	/* how the peer may have seen it end: also 'S' if it was dropping */
	struct { uint32_t id; int slot; const char *how; } dis[256];
	int ndis = 0, status;

	start_peers(_metadata, self);
	ASSERT_EQ(0, start_ctl(_metadata, self, true));
	while (test_now_ms() < end) {
		int i = rand_r(&self->seed) % NPEERS;
		int what = rand_r(&self->seed) % 8;
		struct peer_slot *s = &self->sh->peer[i];
		struct mwin_peer_info pi;
		bool dropping;
		uint32_t id;
		int r, j;

		run_load(_metadata, self, rand_ms(self, 50, 500));
		/* before the id: a drop asked for may be of that connection */
		dropping = LOAD(s->drops) != LOAD(s->dropped);
		id = LOAD(s->id);
		if (what < 5 && id) {
			log_inflight(_metadata, self, "MWIN_PEER_DISCONNECT");
			r = mwin_peer_disconnect(self->fd, id);
			TH_LOG("    of peer %u (slot %d): %s", id, i,
			       r ? strerror(-r) : "done");
			EXPECT_TRUE(!r || r == -ENOENT);
			if (!r) {
				/* gone when the call returns */
				r = mwin_peer_get(self->fd, id, 0, &pi);
				EXPECT_EQ(-ENOENT, r);
				if (ndis < 256) {
					dis[ndis].id = id;
					dis[ndis].how = dropping ? "DQRS" : "DQR";
					dis[ndis++].slot = i;
				}
			}
			ioctl_dis++;
		} else if (what < 7) {
			log_inflight(_metadata, self, "a peer drops its connection");
			TH_LOG("    peer %u (slot %d)", id, i);
			INC(s->drops);
			drops++;
		} else {
			log_inflight(_metadata, self, "SIGKILL to a peer process");
			TH_LOG("    pid %d, peer %u (slot %d)", s->pid, id, i);
			kill(s->pid, SIGKILL);
			ASSERT_EQ(0, wait_pid(s->pid, 10000, &status));
			s->pid = 0;
			kills++;
			/* the module notices the vanished peer */
			if (id)
				EXPECT_EQ(0, test_wait_peer_gone(self->fd, id));
			/* it had no time to see the disconnects not seen yet */
			for (j = 0; j < ndis; j++)
				if (dis[j].slot == i &&
				    !peer_saw_end(self, dis[j].id, dis[j].how))
					dis[j--] = dis[--ndis];
			ASSERT_LT(0, start_peer(self, i, PEER_HAMMER, false));
		}
	}
	log_inflight(_metadata, self, "stopping the controller");
	status = reap_ctl(_metadata, self, false);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ctl_report(_metadata, self);
	EXPECT_EQ(0, no_fd_owned(_metadata, self));
	ASSERT_EQ(0, wait_peers_connected(self, 0, NPEERS, 20000));
	settle_and_check(_metadata, self, 0, NPEERS,
			 CHECK_REBIND | CHECK_VERIFY, "after the disconnects");
	/* every peer the module disconnected saw its connection end */
	for (k = 0; k < (unsigned int)ndis; k++) {
		bool seen = peer_saw_end(self, dis[k].id, dis[k].how);

		if (!seen)
			TH_LOG("peer %u was disconnected, but its process did not see the module close it",
			       dis[k].id);
		EXPECT_TRUE(seen);
	}
	TH_LOG("%u PEER_DISCONNECT calls, %u drops by peers, %u peer processes killed",
	       ioctl_dis, drops, kills);
	stop_peers(_metadata, self, 0, NPEERS);
	check_ends(_metadata, self, 0, NPEERS);
	cleanup_and_count(_metadata, self);
}

/*
 * The device (rxe0) deleted at a random point of the load: the peers
 * are disconnected and their processes exit (letting go of the device),
 * the calls in flight return, every window is left unbound; the device
 * added back, a fresh peer connects, the windows that lived through it
 * are bound to it and it reads and writes the right bytes through them
 * and through a new one.
 */
TEST_F_TIMEOUT(faults, device_removal_under_load, 300)
{
	uint32_t own[NSLOTS_PEER] = { 0 }, region, nr;
	struct mwin_window_bind b;
	struct mwin_peer_info pi;
	int i, r, status, nw, k;
	const char *dev = test_dev_name();
	char path[128];
	int64_t t;

	start_peers(_metadata, self);
	ASSERT_EQ(0, mwin_region_create(self->fd, NPEERS * 16384, 0, &region,
					NULL));
	EXPECT_EQ(NPEERS, bind_own(self, region, 0, NPEERS, own));
	ASSERT_EQ(0, start_ctl(_metadata, self, false));
	run_load(_metadata, self, rand_ms(self, 300, self->secs * 1000));
	/* bound to live peers when the device goes */
	r = bind_own(self, region, 0, NPEERS, own);
	for (i = 0; i < NPEERS; i++)
		STORE(self->sh->peer[i].exit_when_gone, 1);
	log_inflight(_metadata, self, "rdma link delete");
	TH_LOG("    (%d windows of the test's own just bound again)", r);
	t = test_now_ms();
	r = rdma_link_delete(_metadata, 60000);
	TH_LOG("%.2fs: rdma link delete %s returned %d after %lld ms",
	       t_rel(self), dev, r, (long long)(test_now_ms() - t));
	ASSERT_EQ(0, r);
	EXPECT_FALSE(exists(dev_path(path, sizeof(path), "")));
	/* the device is gone only once every process let go of it */
	for (i = 0; i < NPEERS; i++) {
		struct peer_slot *s = &self->sh->peer[i];

		EXPECT_EQ(0, wait_pid(s->pid, 10000, &status));
		EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
		s->pid = 0;
	}
	/* the calls go on failing, and none hangs */
	run_load(_metadata, self, 1000);
	log_inflight(_metadata, self, "stopping the controller");
	status = reap_ctl(_metadata, self, false);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ctl_report(_metadata, self);
	check_ends(_metadata, self, 0, NPEERS);
	for (i = 0; i < NPEERS; i++) {
		struct peer_slot *s = &self->sh->peer[i];
		unsigned int n = s->nends;

		/* the last connection was closed by the module */
		EXPECT_LT(0, n);
		if (n)
			EXPECT_NE(NULL, strchr("DQR", s->ends[n - 1].how));
	}

	/* no peer, no device, every window unbound, nothing fd-owned */
	EXPECT_EQ(-ENOENT, mwin_peer_get(self->fd, 0, MWIN_GET_NEXT, &pi));
	EXPECT_FALSE(mwin_has_dev(self->fd, dev));
	EXPECT_EQ(0, no_fd_owned(_metadata, self));
	nw = list_windows(self);
	for (k = 0; k < nw; k++) {
		struct mwin_window_info *w = &self->wins[k];

		if (w->state != MWIN_WINDOW_UNBOUND || w->peer)
			TH_LOG("window %u is %s (peer %u) with its device gone",
			       w->id, mwin_window_state_name(w->state), w->peer);
		EXPECT_EQ(MWIN_WINDOW_UNBOUND, w->state);
	}
	TH_LOG("%d windows left, all unbound", nw);

	/* add it back */
	t = test_now_ms();
	ASSERT_EQ(0, rdma_link_add(_metadata, 30000));
	for (i = 0; i < 200 && !dev_active(); i++)
		usleep(50000);
	ASSERT_TRUE(dev_active());
	for (i = 0; i < 200 && !mwin_has_dev(self->fd, dev); i++)
		usleep(10000);
	EXPECT_TRUE(mwin_has_dev(self->fd, dev));
	TH_LOG("%.2fs: %s back and ACTIVE after %lld ms", t_rel(self), dev,
	       (long long)(test_now_ms() - t));

	/* a fresh peer: the old windows (rebound) and a new one work */
	ASSERT_LT(0, start_peer(self, SMOKE, PEER_IDLE, true));
	ASSERT_EQ(0, wait_peers_connected(self, SMOKE, SMOKE + 1, 20000));
	ASSERT_EQ(0, mwin_region_create(self->fd, 64 * 1024, 0, &nr, NULL));
	b = test_bind(nr, self->sh->peer[SMOKE].id, 100, 5000,
		      MWIN_ACCESS_READ | MWIN_ACCESS_WRITE, 0);
	ASSERT_EQ(0, mwin_window_create(self->fd, &b));
	settle_and_check(_metadata, self, SMOKE, SMOKE + 1,
			 CHECK_REBIND | CHECK_VERIFY, "after the device came back");
	stop_peers(_metadata, self, SMOKE, SMOKE + 1);
	check_ends(_metadata, self, SMOKE, SMOKE + 1);
	cleanup_and_count(_metadata, self);
}

/*
 * The controller killed while the peers hammer module-owned windows; rmmod
 * with /dev/mwin open or mapped must fail (the module is in use:
 * delete_module() says EWOULDBLOCK, rmmod(8) "in use") and change nothing;
 * rmmod once nothing holds it must succeed while the peers are connected
 * and their traffic runs, and they must see their connections closed;
 * then insmod, and the peers reconnect and use new windows.
 */
TEST_F_TIMEOUT(faults, rmmod_under_load, 300)
{
	static struct wsnap s1[MAX_WINDOWS], s2[MAX_WINDOWS];
	char *const rmmod_argv[] = { "rmmod", "mwin", NULL };
	uint32_t own[NSLOTS_PEER] = { 0 };
	struct mwin_info i1, i2;
	unsigned long ok0, ends0;
	uint32_t region, nr;
	uint64_t moff;
	void *mem;
	int n1, n2, r, i, status;
	int64_t t;

	if (!getenv("MWIN_KO"))
		SKIP(return, "MWIN_KO is not set");
	start_peers(_metadata, self);
	ASSERT_EQ(0, start_ctl(_metadata, self, false));
	region = self->sh->ctl_region[0];
	run_load(_metadata, self, rand_ms(self, 200, self->secs * 500));
	log_inflight(_metadata, self, "SIGKILL to the controller");
	status = reap_ctl(_metadata, self, true);
	EXPECT_TRUE(WIFSIGNALED(status));
	ctl_report(_metadata, self);
	EXPECT_EQ(0, no_fd_owned(_metadata, self));
	/* from now on nothing churns: every access must succeed */
	STORE(self->sh->calm, 1);
	settle_and_check(_metadata, self, 0, NPEERS,
			 CHECK_REBIND | CHECK_VERIFY, "after the kill");
	ASSERT_EQ(0, mwin_region_create(self->fd, NPEERS * 16384, 0, &nr,
					&moff));
	EXPECT_EQ(NPEERS, bind_own(self, nr, 0, NPEERS, own));
	ASSERT_EQ(0, wait_peers_connected(self, 0, NPEERS, 20000));
	run_load(_metadata, self, 300);

	/*
	 * rmmod with the file open, then with only a mapping: the module is
	 * in use. delete_module() says EWOULDBLOCK (rmmod(8) itself reads
	 * the refcnt first and says "in use", EBUSY).
	 */
	ASSERT_EQ(0, mwin_info(self->fd, &i1, NULL, 0));
	n1 = snap_windows(self, s1);
	ok0 = peers_ok(self);
	ends0 = peers_ends(self);
	EXPECT_LE(1, module_refcnt());
	r = module_call(_metadata, false, 30000);
	TH_LOG("%.2fs: rmmod with /dev/mwin open: %s (refcnt %d)", t_rel(self),
	       strerror(-r), module_refcnt());
	EXPECT_EQ(-EWOULDBLOCK, r);
	EXPECT_NE(0, run_cmd(_metadata, 30000, rmmod_argv));
	mem = mmap(NULL, NPEERS * 16384, PROT_READ | PROT_WRITE, MAP_SHARED,
		   self->fd, moff);
	ASSERT_NE(MAP_FAILED, mem);
	madvise(mem, NPEERS * 16384, MADV_DONTFORK);
	close(self->fd);
	self->fd = -1;
	EXPECT_LE(1, module_refcnt());
	r = module_call(_metadata, false, 30000);
	TH_LOG("%.2fs: rmmod with a region mapped: %s (refcnt %d)",
	       t_rel(self), strerror(-r), module_refcnt());
	EXPECT_EQ(-EWOULDBLOCK, r);
	EXPECT_NE(0, run_cmd(_metadata, 30000, rmmod_argv));
	munmap(mem, NPEERS * 16384);
	self->fd = mwin_open();
	ASSERT_LE(0, self->fd);
	run_load(_metadata, self, 300);
	ASSERT_EQ(0, mwin_info(self->fd, &i2, NULL, 0));
	n2 = snap_windows(self, s2);
	EXPECT_EQ(i1.nr_peers, i2.nr_peers);
	EXPECT_EQ(i1.nr_windows, i2.nr_windows);
	EXPECT_EQ(i1.nr_regions, i2.nr_regions);
	EXPECT_EQ(i1.region_bytes, i2.region_bytes);
	ASSERT_EQ(n1, n2);
	EXPECT_EQ(0, memcmp(s1, s2, n1 * sizeof(s1[0])));
	EXPECT_EQ(ends0, peers_ends(self));	/* nobody was disconnected */
	EXPECT_LT(ok0, peers_ok(self));		/* and the traffic ran */

	/* now with nothing holding it, under traffic */
	close(self->fd);
	self->fd = -1;
	EXPECT_EQ(0, module_refcnt());
	ok0 = peers_ok(self);
	log_inflight(_metadata, self, "rmmod mwin");
	t = test_now_ms();
	r = module_call(_metadata, false, 60000);
	TH_LOG("%.2fs: rmmod: %s after %lld ms (%lu accesses meanwhile)",
	       t_rel(self), r ? strerror(-r) : "done",
	       (long long)(test_now_ms() - t), peers_ok(self) - ok0);
	ASSERT_EQ(0, r);
	EXPECT_FALSE(exists("/dev/mwin"));
	EXPECT_FALSE(exists("/sys/module/mwin"));
	/* every peer sees its connection closed */
	for (t = test_now_ms(); test_now_ms() - t < 15000;) {
		for (i = 0; i < NPEERS; i++)
			if (LOAD(self->sh->peer[i].id))
				break;
		if (i == NPEERS)
			break;
		usleep(10000);
	}
	for (i = 0; i < NPEERS; i++)
		EXPECT_EQ(0, LOAD(self->sh->peer[i].id));
	EXPECT_LE(ends0 + NPEERS, peers_ends(self));

	t = test_now_ms();
	r = module_call(_metadata, true, 30000);
	TH_LOG("%.2fs: insmod: %s after %lld ms", t_rel(self),
	       r ? strerror(-r) : "done", (long long)(test_now_ms() - t));
	ASSERT_EQ(0, r);
	for (i = 0; i < 200 && !exists("/dev/mwin"); i++)
		usleep(10000);
	self->fd = mwin_open();
	ASSERT_LE(0, self->fd);
	memset(&self->info0, 0, sizeof(self->info0));
	self->base_window = 0;
	self->base_region = 0;
	EXPECT_EQ(-ENOENT, mwin_region_destroy(self->fd, region, 0));
	/* the peers reconnect to the new module and use new windows */
	ASSERT_EQ(0, wait_peers_connected(self, 0, NPEERS, 20000));
	ASSERT_EQ(0, mwin_region_create(self->fd, NPEERS * 16384, 0, &nr,
					NULL));
	memset(own, 0, sizeof(own));
	EXPECT_EQ(NPEERS, bind_own(self, nr, 0, NPEERS, own));
	run_load(_metadata, self, 500);
	settle_and_check(_metadata, self, 0, NPEERS, CHECK_VERIFY,
			 "after the reload");
	stop_peers(_metadata, self, 0, NPEERS);
	check_ends(_metadata, self, 0, NPEERS);
	cleanup_and_count(_metadata, self);
}

/*
 * After all that: mwin loaded, the device back and ACTIVE, no more objects than
 * at the start, and slab memory about where it was.
 */
TEST_F_TIMEOUT(faults, after_all_faults, 60)
{
	const char *env = getenv("MWIN_FAULTS_SLAB_KB");
	long tol = env ? atol(env) : 2048, slab, sunr, used, objs;
	struct mwin_info info;
	char path[128];
	int i;

	EXPECT_TRUE(exists("/sys/module/mwin"));
	EXPECT_TRUE(exists(dev_path(path, sizeof(path), "")));
	for (i = 0; i < 100 && !dev_active(); i++)
		usleep(50000);
	EXPECT_TRUE(dev_active());
	EXPECT_TRUE(mwin_has_dev(self->fd, test_dev_name()));
	ASSERT_EQ(0, mwin_info(self->fd, &info, NULL, 0));
	EXPECT_EQ(0, info.nr_peers);
	if (at_start.info_ok) {
		EXPECT_GE(at_start.info.nr_windows, info.nr_windows);
		EXPECT_GE(at_start.info.nr_regions, info.nr_regions);
		EXPECT_GE(at_start.info.region_bytes, info.region_bytes);
	}

	/* what is freed after a grace period, and the caches, first */
	sleep(2);
	drop_slab_caches();
	slab = meminfo_kb("Slab");
	sunr = meminfo_kb("SUnreclaim");
	used = slab_used_kb();
	objs = mwin_slab_objs();
	TH_LOG("slab: %ld kB at the start, %ld kB now (unreclaimable %ld kB, %ld kB; objects in use %ld kB, %ld kB); mwin slab objects %ld, %ld; tolerance %ld kB",
	       at_start.slab_kb, slab, at_start.sunreclaim_kb, sunr,
	       at_start.used_kb, used, at_start.mwin_objs, objs, tol);
	EXPECT_LT(used - at_start.used_kb, tol);
	EXPECT_LT(sunr - at_start.sunreclaim_kb, 2 * tol);
	EXPECT_GE(at_start.mwin_objs, objs);
}

TEST_HARNESS_MAIN
