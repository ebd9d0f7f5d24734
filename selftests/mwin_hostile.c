// SPDX-License-Identifier: GPL-2.0
/*
 * Hostile peers: malformed and oversized messages, floods, peers that
 * connect and vanish in a loop or take no messages. The module stays up,
 * tears the offender down when it must, and other peers are unaffected.
 *
 * A peer slow to take its messages does not break the windows created for
 * it meanwhile.
 *
 * No peer can stretch a revoke. A peer that asks for infinite RNR retries
 * is refused; one that takes no messages stalls the SENDs to it, not its
 * revokes, which run on a QP of their own: a revoke returns at once with
 * the rkey dead, while the peer reads as fast as it can and an honest peer
 * carries on beside it. (A revoke the device itself does not complete
 * cuts the peer off: mwin_delays.c.)
 *
 * A peer that sends requests to the module's registration QP, which takes
 * nothing from the network, costs itself its connection: every revoking
 * call after it returns with the peer's QPs in ERR.
 *
 * On iWARP a peer that never sends the first SEND it owes is told nothing
 * and is gone within auth_timeout_ms.
 */
#include <endian.h>
#include <pthread.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <time.h>

#include "mwctl_run.h"
#include "mwin_test.h"

#define MS(ns)	((ns) / 1000000)

FIXTURE(hostile)
{
	int fd;
	uint32_t region;
	struct mwpeer *good;
	struct mwin_window_bind gw;
};

FIXTURE_SETUP(hostile)
{
	self->fd = mwin_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, mwin_region_create(self->fd, 1 << 20, 0, &self->region,
					NULL));
	self->good = test_connect();
	ASSERT_NE(NULL, self->good);
	self->gw = test_bind(self->region, mwpeer_id(self->good), 0, 4096,
			     MWIN_ACCESS_READ, 0);
	ASSERT_EQ(0, mwin_window_create(self->fd, &self->gw));
}

FIXTURE_TEARDOWN(hostile)
{
	mwin_region_destroy(self->fd, self->region, MWIN_REGION_DESTROY_FORCE);
	mwpeer_close(self->good);
	close(self->fd);
}

/* The well-behaved peer still reads through its window. */
static int good_still_works(FIXTURE_DATA(hostile) *self)
{
	return mwpeer_read(self->good, self->gw.rkey, 0, NULL, 8);
}

/*
 * Connect a peer with @opts and create a window for it: 4 KiB of the
 * region at @offset, readable. NULL if either fails.
 */
static struct mwpeer *peer_with_window(FIXTURE_DATA(hostile) *self,
				       const struct mwpeer_opts *opts,
				       uint64_t offset,
				       struct mwin_window_bind *b)
{
	struct mwpeer *p = mwpeer_create(opts);

	if (p && !mwpeer_open(p, test_host(), 0)) {
		*b = test_bind(self->region, mwpeer_id(p), offset, 4096,
			       MWIN_ACCESS_READ, 0);
		if (!mwin_window_create(self->fd, b))
			return p;
	}
	mwpeer_close(p);
	return NULL;
}

/* Garbage of every size up to a message: counted, ignored. */
TEST_F(hostile, malformed_messages)
{
	struct mwpeer *p = test_connect();
	struct mwin_peer_info pi;
	uint8_t junk[64];
	size_t len;

	ASSERT_NE(NULL, p);
	memset(junk, 0xa5, sizeof(junk));
	for (len = 0; len <= sizeof(junk); len += 8)
		EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_send(p, junk, len));
	ASSERT_EQ(0, mwin_peer_get(self->fd, mwpeer_id(p), 0, &pi));
	EXPECT_EQ(MWIN_PEER_CONNECTED, pi.state);
	EXPECT_EQ(9, pi.msgs_received);
	EXPECT_EQ(IBV_WC_SUCCESS, good_still_works(self));
	mwpeer_close(p);
}

/* A message longer than a receive buffer breaks only its sender. */
TEST_F(hostile, oversized_message)
{
	struct mwpeer *p = test_connect();
	uint32_t id;

	ASSERT_NE(NULL, p);
	id = mwpeer_id(p);
	mwpeer_send(p, NULL, 4096);
	EXPECT_EQ(0, test_wait_peer_gone(self->fd, id));
	EXPECT_EQ(IBV_WC_SUCCESS, good_still_works(self));
	mwpeer_close(p);
}

/*
 * Wait until the module took all but @ahead of the @sent messages of @p.
 * On iWARP a SEND completes once TCP has it, and one that finds no receive
 * ends the connection (there is no RNR): a peer there keeps no more than
 * the module's MWIN_WIRE_RECV_DEPTH receives' worth in flight.
 */
static void wait_taken(int fd, struct mwpeer *p, int sent, int ahead)
{
	struct mwin_peer_info pi;
	int i;

	for (i = 0; i < TEST_TIMEOUT_MS; i++) {
		if (mwin_peer_get(fd, mwpeer_id(p), 0, &pi) ||
		    (int)pi.msgs_received >= sent - ahead)
			return;
		usleep(1000);
	}
}

/* A flood of sends: the module keeps reposting its receives. */
TEST_F(hostile, flood)
{
	struct mwpeer *p = test_connect();
	struct mwin_peer_info pi;
	int i, ok = 0;
	bool iwarp;

	ASSERT_NE(NULL, p);
	iwarp = test_iwarp(p);
	for (i = 0; i < 2000; i++) {
		if (iwarp && i % (MWIN_WIRE_RECV_DEPTH / 2) == 0)
			wait_taken(self->fd, p, i, MWIN_WIRE_RECV_DEPTH / 2);
		ok += mwpeer_send(p, "flood", 5) == IBV_WC_SUCCESS;
	}
	EXPECT_EQ(2000, ok);
	/* acknowledged is received, but the module counts them a bit later */
	for (i = 0; i < TEST_TIMEOUT_MS / 10; i++) {
		ASSERT_EQ(0, mwin_peer_get(self->fd, mwpeer_id(p), 0, &pi));
		if (pi.msgs_received >= 2000)
			break;
		usleep(10000);
	}
	EXPECT_EQ(2000, pi.msgs_received);
	EXPECT_EQ(IBV_WC_SUCCESS, good_still_works(self));
	mwpeer_close(p);
}

/*
 * Start mwpeer connecting to the module; once it says it is connected,
 * kill it. A program of its own, not a fork of this one: a forked child
 * may not write to the verbs device this process opened, which libsiw
 * does to send (its first SEND on iWARP).
 */
static int vanishing_peer(void)
{
	int in[2], out[2], status;
	char line[256];
	size_t len = 0;
	ssize_t n = 1;
	pid_t pid;

	if (pipe(in) || pipe(out))
		return -errno;
	pid = fork();
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[1]);
		close(out[0]);
		execl(prog_path(PROG_MWPEER), "mwpeer", test_host(), NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	/* its first line: {"event":"connected","peer":N} */
	while (pid > 0 && n > 0 && len < sizeof(line) - 1 &&
	       !memchr(line, '\n', len)) {
		n = read(out[0], line + len, sizeof(line) - 1 - len);
		len += n > 0 ? n : 0;
	}
	line[len] = '\0';
	if (pid > 0) {
		kill(pid, SIGKILL);	/* no close: the kernel cleans up */
		waitpid(pid, &status, 0);
	}
	close(in[1]);
	close(out[0]);
	return pid > 0 && strstr(line, "\"connected\"") ? 0 : -EPROTO;
}

/* Peers that connect and vanish (process killed) in a loop. */
TEST_F(hostile, connect_and_vanish_loop)
{
	struct mwin_info before, after;
	int i;

	ASSERT_EQ(0, mwin_info(self->fd, &before, NULL, 0));
	for (i = 0; i < 10; i++)
		EXPECT_EQ(0, vanishing_peer());
	for (i = 0; i < 500; i++) {
		ASSERT_EQ(0, mwin_info(self->fd, &after, NULL, 0));
		if (after.nr_peers == before.nr_peers)
			break;
		usleep(20000);
	}
	EXPECT_EQ(before.nr_peers, after.nr_peers);
	EXPECT_EQ(IBV_WC_SUCCESS, good_still_works(self));
}

/* A peer that posts no receives cannot take its grants: it is dropped. */
TEST_F(hostile, takes_no_messages)
{
	struct mwpeer_opts opts = { .timeout_ms = TEST_TIMEOUT_MS,
				    .recv_depth = -1 };
	struct mwin_window_bind b;
	struct mwpeer *p = peer_with_window(self, &opts, 8192, &b);
	uint32_t id;
	int i;

	ASSERT_NE(NULL, p);
	id = mwpeer_id(p);
	for (i = 0; i < 60 && test_wait_peer_gone(self->fd, id); i++)
		;
	EXPECT_EQ(-ENOENT, mwin_peer_get(self->fd, id, 0,
					 &(struct mwin_peer_info){}));
	EXPECT_EQ(MWIN_WINDOW_UNBOUND, test_window_state(self->fd, b.id));
	EXPECT_EQ(IBV_WC_SUCCESS, good_still_works(self));
	mwpeer_close(p);
}

/* A connected client of its own, librdmacm's, anonymous, and what it got */
struct raw_peer {
	struct rdma_cm_id *id;
	struct ibv_mr *mr;
	uint32_t peer;		/* the module's id of it, from the accept */
	char buf[4 * sizeof(struct mwin_wire_msg)];
};

static int raw_connect(struct raw_peer *r)
{
	struct mwin_wire_hello h = { .magic = htole32(MWIN_WIRE_MAGIC),
				     .version = MWIN_WIRE_VERSION };
	struct rdma_conn_param cp = { .private_data = &h,
				      .private_data_len = sizeof(h),
				      .responder_resources = 1,
				      .initiator_depth = 1 };
	struct ibv_qp_init_attr qa = { .cap = { .max_send_wr = 1,
						.max_recv_wr = 4,
						.max_send_sge = 1,
						.max_recv_sge = 1 } };
	struct rdma_addrinfo hints = { .ai_port_space = RDMA_PS_TCP }, *ai;
	const size_t msg = sizeof(struct mwin_wire_msg);
	struct mwin_wire_accept acc;
	char port[8];
	size_t i;
	int ret;

	memset(r, 0, sizeof(*r));
	snprintf(port, sizeof(port), "%u", mwpeer_default_port());
	if (rdma_getaddrinfo(test_host(), port, &hints, &ai))
		return -errno;
	ret = rdma_create_ep(&r->id, ai, NULL, &qa);
	rdma_freeaddrinfo(ai);
	if (ret)
		return -errno;
	r->mr = rdma_reg_msgs(r->id, r->buf, sizeof(r->buf));
	if (!r->mr)
		return -errno;
	for (i = 0; i < sizeof(r->buf) / msg; i++)
		if (rdma_post_recv(r->id, NULL, r->buf + i * msg, msg, r->mr))
			return -errno;
	/* synchronous: returns once established, the accept in id->event */
	if (rdma_connect(r->id, &cp))
		return -errno;
	if (!r->id->event || r->id->event->param.conn.private_data_len <
			     sizeof(acc))
		return -EPROTO;
	memcpy(&acc, r->id->event->param.conn.private_data, sizeof(acc));
	r->peer = le32toh(acc.peer);
	return 0;
}

static void raw_close(struct raw_peer *r)
{
	if (r->mr)
		rdma_dereg_mr(r->mr);
	if (r->id)
		rdma_destroy_ep(r->id);
}

/*
 * iWARP's MPA lets the module, which accepts, send nothing before the
 * peer's first message (wire.rst, "Connecting"). A peer that never sends
 * it is established for its CM, not up for the module: a window can be
 * made for it, but it is not told of it, nor of anything, and its
 * handshake, never over, ends its connection within auth_timeout_ms.
 */
TEST_F(hostile, iwarp_peer_owes_its_first_send)
{
	unsigned long auth = test_param("auth_timeout_ms");
	struct mwin_peer_info pi;
	struct mwin_window_bind b;
	struct raw_peer r;
	struct ibv_wc wc;
	int i;

	if (!test_iwarp(self->good))
		SKIP(return, "iWARP's rule: RoCE's CM ends a handshake with the RTU");
	ASSERT_NE(0, auth);
	ASSERT_EQ(0, test_set_param("auth_timeout_ms", 2000));
	ASSERT_EQ(0, raw_connect(&r));
	ASSERT_EQ(0, mwin_peer_get(self->fd, r.peer, 0, &pi));
	EXPECT_EQ(MWIN_PEER_CONNECTING, pi.state);
	b = test_bind(self->region, r.peer, 8192, 4096, MWIN_ACCESS_READ, 0);
	EXPECT_EQ(0, mwin_window_create(self->fd, &b));
	for (i = 0; i < 10 && test_wait_peer_gone(self->fd, r.peer); i++)
		;
	EXPECT_EQ(-ENOENT, mwin_peer_get(self->fd, r.peer, 0, &pi));
	/* its receives flushed at most: no message came */
	while (ibv_poll_cq(r.id->recv_cq, 1, &wc) == 1)
		EXPECT_NE(IBV_WC_SUCCESS, wc.status);
	EXPECT_EQ(MWIN_WINDOW_UNBOUND, test_window_state(self->fd, b.id));
	EXPECT_EQ(IBV_WC_SUCCESS, good_still_works(self));
	raw_close(&r);
	EXPECT_EQ(0, test_set_param("auth_timeout_ms", auth));
}

/* RNR retry count 7 means "forever": such a peer is refused. */
TEST_F(hostile, infinite_rnr_retry_is_refused)
{
	struct mwpeer_opts opts = { .timeout_ms = TEST_TIMEOUT_MS,
				    .rnr_retry_count = 7 };
	struct mwin_info before, after;
	struct mwpeer *p;

	if (test_iwarp(self->good))
		SKIP(return, "iWARP has no RNR retry: its connect request carries no count");
	p = mwpeer_create(&opts);
	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, mwin_info(self->fd, &before, NULL, 0));
	EXPECT_EQ(-ECONNREFUSED, mwpeer_open(p, test_host(), 0));
	ASSERT_EQ(0, mwin_info(self->fd, &after, NULL, 0));
	EXPECT_EQ(before.nr_peers, after.nr_peers);
	mwpeer_close(p);

	opts.rnr_retry_count = 6;
	p = mwpeer_create(&opts);
	ASSERT_NE(NULL, p);
	EXPECT_EQ(0, mwpeer_open(p, test_host(), 0));
	mwpeer_close(p);
}

/*
 * A peer slow to post receives: the grant SEND to it gets RNR NAKs and is
 * retried, while a window created for it registers behind that SEND. rxe
 * runs again what a retried SEND has behind it, and a REG_MR run twice
 * fails and kills the peer; the module fences every REG_MR behind a
 * LOCAL_INV (verbs_prep_reg()), so the window waits for the SEND instead.
 */
TEST_F(hostile, registration_behind_a_retried_message)
{
	struct mwpeer_opts opts = { .timeout_ms = TEST_TIMEOUT_MS,
				    .recv_depth = 1, .rnr_retry_count = 6 };
	struct mwin_window_bind a, b;
	struct test_create c = { .fd = self->fd };
	struct mwpeer *p;
	pthread_t t;
	uint32_t id;

	if (test_iwarp(self->good))
		SKIP(return, "iWARP retries no message: a SEND finding no receive ends the connection");
	/* its one receive takes a's grant; it is not posted again yet */
	p = peer_with_window(self, &opts, 8192, &a);
	ASSERT_NE(NULL, p);
	id = mwpeer_id(p);
	usleep(100000);
	/* b's grant finds no receive: RNR NAK, a retry every 655 ms */
	b = test_bind(self->region, id, 16384, 4096, MWIN_ACCESS_READ, 0);
	ASSERT_EQ(0, mwin_window_create(self->fd, &b));
	c.b = test_bind(self->region, id, 24576, 4096, MWIN_ACCESS_WRITE, 0);
	ASSERT_EQ(0, pthread_create(&t, NULL, test_create_thread, &c));
	usleep(300000);
	/* a receive again: the next retry of b's grant goes through */
	mwpeer_poll(p, 0);
	pthread_join(t, NULL);
	EXPECT_EQ(0, c.ret);
	EXPECT_EQ(0, mwin_peer_get(self->fd, id, 0,
				   &(struct mwin_peer_info){}));
	EXPECT_EQ(0, mwpeer_wait_grant(p, b.id, 0, NULL, TEST_TIMEOUT_MS));
	EXPECT_EQ(0, mwpeer_wait_grant(p, c.b.id, 0, NULL, TEST_TIMEOUT_MS));
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_write(p, c.b.rkey, c.b.iova, NULL, 8));
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_read(p, b.rkey, b.iova, NULL, 8));
	EXPECT_EQ(IBV_WC_SUCCESS, good_still_works(self));
	mwpeer_close(p);
}

/* A hostile peer reads through its window as fast as it can. */
struct reader {
	struct mwpeer *p;
	uint32_t rkey;
	uint64_t iova;
	atomic_uint ok;
	/* READs posted after a time that still succeeded: the last one */
	uint64_t last_ok_post_ns;
	uint64_t failed_post_ns;
	int failed_status;
};

static void *reader_run(void *arg)
{
	struct reader *r = arg;
	uint64_t t;
	int st;

	for (;;) {
		t = test_now_ns();
		st = mwpeer_read(r->p, r->rkey, r->iova, NULL, 8);
		if (st != IBV_WC_SUCCESS) {
			r->failed_post_ns = t;
			r->failed_status = st;
			return NULL;
		}
		r->last_ok_post_ns = t;
		atomic_fetch_add(&r->ok, 1);
	}
}

/* An honest peer rebinds and reads beside it. */
struct honest {
	int fd;
	struct mwpeer *p;
	struct mwin_window_bind w;
	atomic_bool stop;
	unsigned int rebinds, reads, errors;
	uint64_t max_rebind_ns;
};

static void *honest_run(void *arg)
{
	struct honest *h = arg;
	uint64_t t;

	while (!atomic_load(&h->stop)) {
		t = test_now_ns();
		if (test_rebind(h->fd, &h->w, 0, 0, 4096, MWIN_ACCESS_READ)) {
			h->errors++;
			continue;
		}
		t = test_now_ns() - t;
		if (t > h->max_rebind_ns)
			h->max_rebind_ns = t;
		h->rebinds++;
		if (mwpeer_read(h->p, h->w.rkey, h->w.iova, NULL, 8))
			h->errors++;
		h->reads++;
	}
	return NULL;
}

/*
 * A peer that posts no receives: the module's grant to it is refused with
 * RNR NAKs and retried. The LOCAL_INV of its window does not wait for that
 * SEND (the registration QP carries none): the invalidate succeeds well
 * within the revoke bound, no READ posted after it returned succeeds, and
 * an honest peer's rebinds and reads go on meanwhile. The stalled peer
 * goes: its next READ, through a dead rkey, breaks its connection.
 */
TEST_F(hostile, stalled_peer_cannot_stretch_a_revoke)
{
	struct mwpeer_opts opts = { .timeout_ms = TEST_TIMEOUT_MS,
				    .recv_depth = -1, .rnr_retry_count = 6 };
	struct reader r = { 0 };
	struct honest h = { .fd = self->fd, .p = self->good, .w = self->gw };
	unsigned long bound = test_param("revoke_timeout_ms");
	/*
	 * No READ posted a second after the revoke began succeeds: the
	 * default bound (250 ms) and then some. make check-debug loads the
	 * module with a longer bound for its slower kernel.
	 */
	unsigned long late_ms = bound + 750;
	struct mwin_window_bind b;
	pthread_t rt, ht;
	uint64_t t0, t1;
	uint32_t id;
	int i, ret;

	if (test_iwarp(self->good))
		SKIP(return, "iWARP retries no message: a peer without receives is cut off at its first");
	r.p = peer_with_window(self, &opts, 8192, &b);
	ASSERT_NE(NULL, r.p);
	id = mwpeer_id(r.p);
	r.rkey = b.rkey;
	r.iova = b.iova;

	ASSERT_EQ(0, pthread_create(&rt, NULL, reader_run, &r));
	for (i = 0; i < 10000 && atomic_load(&r.ok) < 20 && !r.failed_post_ns;
	     i++)
		usleep(1000);
	ASSERT_LE(20, atomic_load(&r.ok));
	ASSERT_EQ(0, pthread_create(&ht, NULL, honest_run, &h));
	usleep(50000);

	t0 = test_now_ns();
	ret = mwin_window_invalidate(self->fd, b.id);
	t1 = test_now_ns();
	usleep(50000);
	atomic_store(&h.stop, true);
	pthread_join(ht, NULL);
	pthread_join(rt, NULL);

	late_ms = late_ms < 1000 ? 1000 : late_ms;
	TH_LOG("invalidate: %d after %llu ms; %u READs succeeded, the last posted %lld ms after it began; the first failure (status %d) posted %lld ms after",
	       ret, (unsigned long long)MS(t1 - t0), atomic_load(&r.ok),
	       (long long)MS((int64_t)(r.last_ok_post_ns - t0)),
	       r.failed_status, (long long)MS((int64_t)(r.failed_post_ns - t0)));
	TH_LOG("honest peer: %u rebinds (the slowest %llu ms), %u reads, %u errors",
	       h.rebinds, (unsigned long long)MS(h.max_rebind_ns), h.reads,
	       h.errors);
	EXPECT_EQ(0, ret);
	EXPECT_GT(bound, MS(t1 - t0));
	EXPECT_GT(t1, r.last_ok_post_ns);
	EXPECT_GT(t0 + late_ms * 1000000ull, r.last_ok_post_ns);
	EXPECT_NE(IBV_WC_SUCCESS, r.failed_status);
	EXPECT_EQ(0, test_wait_peer_gone(self->fd, id));
	EXPECT_EQ(MWIN_WINDOW_UNBOUND, test_window_state(self->fd, b.id));

	EXPECT_EQ(0, h.errors);
	EXPECT_LT(0, h.rebinds);
	EXPECT_GT(1000, MS(h.max_rebind_ns));
	self->gw = h.w;
	EXPECT_EQ(IBV_WC_SUCCESS, mwpeer_read(self->good, self->gw.rkey,
					      self->gw.iova, NULL, 8));
	mwpeer_close(r.p);
}

/*
 * The module's registration QP for peer @p, as the rdma tool shows it: the
 * module's QP whose remote QP is @p's, other than @qpn (the connected
 * one). Its number in *@reg, the PSN it expects next (the peer's own first
 * one) in *@psn. 0, or -1 when there is none.
 */
static int reg_qp_of(struct mwpeer *p, uint32_t qpn, uint32_t *reg,
		     uint32_t *psn)
{
	char line[1024], want[32];
	unsigned int l, rq;
	const char *at;
	FILE *f;
	int ret = -1;

	f = popen("rdma resource show qp 2>/dev/null", "r");
	if (!f)
		return -1;
	snprintf(want, sizeof(want), " rqpn %u ", mwpeer_qp_num(p));
	while (ret && fgets(line, sizeof(line), f)) {
		at = strstr(line, " lqpn ");
		if (!strstr(line, want) || !at || sscanf(at, " lqpn %u", &l) != 1 ||
		    l == qpn)
			continue;
		at = strstr(line, " rq-psn ");
		if (at && sscanf(at, " rq-psn %u", &rq) == 1) {
			*reg = l;
			*psn = rq;
			ret = 0;
		}
	}
	pclose(f);
	return ret;
}

/* Is QP @qpn in state @state, as the rdma tool shows it, within 2 s? */
static bool qp_becomes(uint32_t qpn, const char *state)
{
	char cmd[256];
	int i;

	snprintf(cmd, sizeof(cmd),
		 "rdma resource show qp 2>/dev/null | grep -q ' lqpn %u .* state %s '",
		 qpn, state);
	for (i = 0; i < 200; i++) {
		if (!test_sh(cmd))
			return true;
		usleep(10000);
	}
	return false;
}

/*
 * What a peer can do with its own verbs: a QP of its own, connected by hand
 * to the module's registration QP (number @reg, next PSN @psn) along the
 * path of its connection, sends an RDMA WRITE and a READ there through the
 * rkey it was granted. 0 once both completed (in error: the module's QP
 * refuses them), -1 when the peer could not send them.
 */
static int poison(struct mwpeer *p, uint32_t reg, uint32_t psn,
		  uint32_t rkey, uint64_t iova)
{
	struct ibv_qp *conn = mwpeer_ibv_qp(p);
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a, path;
	struct ibv_sge sge;
	struct ibv_send_wr wr[2] = { 0 }, *bad;
	struct ibv_wc wc[2];
	struct ibv_qp *qp = NULL;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	static char buf[64];
	int ret = -1, n = 0, i;

	if (!conn || ibv_query_qp(conn, &path, IBV_QP_AV | IBV_QP_PATH_MTU,
				  &init))
		return -1;
	cq = ibv_create_cq(conn->context, 4, NULL, NULL, 0);
	mr = ibv_reg_mr(conn->pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	if (!cq || !mr)
		goto out;
	init = (struct ibv_qp_init_attr){
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 2, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	qp = ibv_create_qp(conn->pd, &init);
	if (!qp)
		goto out;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = path.ah_attr.port_num;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		goto out;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = path.path_mtu;
	a.dest_qp_num = reg;
	a.ah_attr = path.ah_attr;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		goto out;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = psn;
	a.timeout = 10;
	a.retry_cnt = 1;
	a.rnr_retry = 1;
	a.max_rd_atomic = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
			  IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			  IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC))
		goto out;

	sge = (struct ibv_sge){ (uintptr_t)buf, 8, mr->lkey };
	for (i = 0; i < 2; i++) {
		wr[i].wr_id = i;
		wr[i].sg_list = &sge;
		wr[i].num_sge = 1;
		wr[i].opcode = i ? IBV_WR_RDMA_READ : IBV_WR_RDMA_WRITE;
		wr[i].send_flags = IBV_SEND_SIGNALED;
		wr[i].wr.rdma.rkey = rkey;
		wr[i].wr.rdma.remote_addr = iova;
		wr[i].next = i ? NULL : &wr[1];
	}
	if (ibv_post_send(qp, wr, &bad))
		goto out;
	for (i = 0; i < 5000 && n < 2; i++) {
		int got = ibv_poll_cq(cq, 2 - n, wc);

		if (got < 0)
			goto out;
		n += got;
		if (n < 2)
			usleep(1000);
	}
	ret = n == 2 ? 0 : -1;
out:
	if (qp)
		ibv_destroy_qp(qp);
	if (mr)
		ibv_dereg_mr(mr);
	if (cq)
		ibv_destroy_cq(cq);
	return ret;
}

/*
 * Item 1 of the fail-closed issue, with real traffic: a peer that spins
 * READs through its window sends an RDMA WRITE and a READ to the module's
 * registration QP (its number and PSN from the rdma tool, as the peer's
 * host shows them; the PSN is the peer's own first one). rxe refuses them
 * and moves that QP to ERR without an event, the connected QP staying in
 * RTS. Then each revoking call: read right after it returned, the module's
 * connected QP for the peer is in ERR already (no race to win), no READ
 * posted after it returned succeeded, the peer goes for reason reg-qp and
 * the call says why (ENOTCONN; destroys succeed). The honest peer of the
 * fixture reads on.
 */
TEST_F(hostile, poisoned_registration_qp_from_the_network)
{
	enum test_revoke c;

	if (test_iwarp(self->good))
		SKIP(return, "iWARP: the connected QP registers, and a QP is reached through its own TCP stream alone");
	for (c = 0; c < TEST_NR_REVOKES; c++) {
		uint32_t region = self->region, id, reg, psn;
		struct mwin_window_bind b;
		struct mwin_peer_info pi;
		struct reader r = { 0 };
		uint64_t t1;
		pthread_t rt;
		int ret, i;

		if (c == TEST_REVOKE_REGION_DESTROY)
			ASSERT_EQ(0, mwin_region_create(self->fd, 1 << 20, 0,
							&region, NULL));
		r.p = test_connect();
		ASSERT_NE(NULL, r.p);
		id = mwpeer_id(r.p);
		b = test_bind(region, id, 8192, 4096, MWIN_ACCESS_READ, 0);
		ASSERT_EQ(0, mwin_window_create(self->fd, &b));
		ASSERT_EQ(0, mwin_peer_get(self->fd, id, 0, &pi));
		ASSERT_EQ(0, reg_qp_of(r.p, pi.qpn, &reg, &psn));
		r.rkey = b.rkey;
		r.iova = b.iova;
		ASSERT_EQ(0, pthread_create(&rt, NULL, reader_run, &r));
		for (i = 0; i < 10000 && atomic_load(&r.ok) < 20; i++)
			usleep(1000);
		ASSERT_LE(20, atomic_load(&r.ok));

		ASSERT_EQ(0, poison(r.p, reg, psn, b.rkey, b.iova));
		ASSERT_TRUE(qp_becomes(reg, "ERR"));
		ret = test_revoke(self->fd, c, &b, region);
		t1 = test_now_ns();
		/* right after the call: no race to win */
		EXPECT_EQ(0, test_qp_dead(pi.qpn))
			TH_LOG("%s returned %d with the peer's QP alive",
			       test_revoke_name(c), ret);
		pthread_join(rt, NULL);
		TH_LOG("%s after poisoning QP %u: %d (%s); %u READs succeeded, the last posted %lld us before the return",
		       test_revoke_name(c), reg, ret,
		       ret ? strerror(-ret) : "ok", atomic_load(&r.ok),
		       (long long)((int64_t)(t1 - r.last_ok_post_ns) / 1000));
		EXPECT_EQ(test_revoke_poisoned(c), ret);
		EXPECT_GT(t1, r.last_ok_post_ns);
		EXPECT_NE(IBV_WC_SUCCESS, r.failed_status);
		EXPECT_EQ(0, test_wait_peer_gone(self->fd, id));
		ASSERT_EQ(0, mwin_peer_get(self->fd, id, MWIN_GET_GONE, &pi));
		EXPECT_EQ(MWIN_DOWN_REG_QP, pi.down_reason);
		mwpeer_close(r.p);
		if (test_revoke_poisoned(c))
			EXPECT_EQ(0, mwin_window_destroy(self->fd, b.id));
		EXPECT_EQ(IBV_WC_SUCCESS, good_still_works(self));
	}
}

TEST_HARNESS_MAIN
