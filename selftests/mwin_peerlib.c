// SPDX-License-Identifier: GPL-2.0
/*
 * libmwinpeer, the remote side: its grant table fed with messages by hand
 * (gaps, a revoke of a stale rkey, of an unknown window, thousands of
 * windows), then against the module: operations by window and offset
 * checked locally (ESTALE, ERANGE, EACCES, EINVAL) with the connection
 * kept, many in flight completing in order, hand-back, a request the
 * module refuses reported as a disconnect and a reconnect on demand; last
 * the examples, in C and in Python: a tenant's application through a
 * rebind (tenant_rw), and an owner lending its own buffer to a tenant's
 * peer through a leased window, renewed and revoked (share_buffer).
 */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <sys/wait.h>

#include "mwin_test.h"
#include "peer/internal.h"

#define REGION_LEN	(1UL << 20)

/* ---- the grant table, without a connection --------------------------- */

FIXTURE(table)
{
	struct mwpeer *p;
	uint32_t seq;
};

FIXTURE_SETUP(table)
{
	self->p = mwpeer_create(NULL);
	ASSERT_NE(NULL, self->p);
}

FIXTURE_TEARDOWN(table)
{
	mwpeer_close(self->p);
}

/* The module's message @type, numbered @seq, as the receive path takes it. */
static void feed(struct mwpeer *p, uint8_t type, uint32_t seq,
		 uint32_t window, uint32_t rkey)
{
	struct mwin_wire_msg w = {
		.magic = htole32(MWIN_WIRE_MAGIC),
		.version = MWIN_WIRE_VERSION,
		.type = type,
		.access = htole16(type == MWIN_WIRE_GRANT ? MWIN_ACCESS_READ :
					 MWIN_REVOKE_INVALIDATE),
		.seq = htole32(seq),
		.window = htole32(window),
		.rkey = htole32(rkey),
		.iova = htole64(0x10000),
		.length = htole64(4096),
	};
	struct ibv_wc wc = { .byte_len = sizeof(w) };

	peer_handle_recv(p, (const uint8_t *)&w, sizeof(w), &wc);
}

#define GRANT(w, k)	feed(self->p, MWIN_WIRE_GRANT, ++self->seq, w, k)
#define REVOKE(w, k)	feed(self->p, MWIN_WIRE_REVOKE, ++self->seq, w, k)

static uint32_t rkey_of(struct mwpeer *p, uint32_t window)
{
	struct mwpeer_msg m;

	return mwpeer_grant(p, window, &m) ? 0 : m.rkey;
}

TEST_F(table, grant_rebind_revoke)
{
	struct mwpeer_event ev[8];

	GRANT(7, 0x100);
	EXPECT_EQ(0x100, rkey_of(self->p, 7));
	REVOKE(7, 0x100);
	GRANT(7, 0x101);
	EXPECT_EQ(0x101, rkey_of(self->p, 7));
	REVOKE(7, 0x101);
	EXPECT_EQ(-ENOENT, mwpeer_grant(self->p, 7, NULL));
	EXPECT_EQ(0, mwpeer_proto_errors(self->p, NULL));
	/* each message is one event, in order */
	ASSERT_EQ(4, mwpeer_process(self->p, ev, 8));
	EXPECT_EQ(MWPEER_EV_GRANT, ev[0].type);
	EXPECT_EQ(MWPEER_EV_REVOKE, ev[1].type);
	EXPECT_EQ(MWIN_REVOKE_INVALIDATE, ev[1].msg.access);
	EXPECT_EQ(0x101, ev[2].msg.rkey);
	EXPECT_EQ(4, ev[3].msg.seq);
	EXPECT_TRUE(ev[3].msg.valid);
	EXPECT_EQ(0, mwpeer_process(self->p, ev, 8));
}

/* seq 1, then 4: two messages lost, said in the event; the grant counts. */
TEST_F(table, gap_in_seq)
{
	struct mwpeer_event ev[2];

	GRANT(1, 0x200);
	self->seq += 2;
	GRANT(2, 0x300);
	EXPECT_EQ(1, mwpeer_proto_errors(self->p, NULL));
	EXPECT_EQ(0x300, rkey_of(self->p, 2));
	ASSERT_EQ(2, mwpeer_process(self->p, ev, 2));
	EXPECT_EQ(0, ev[0].msg.missed);
	EXPECT_EQ(2, ev[1].msg.missed);
	EXPECT_FALSE(ev[1].msg.valid);
}

/* A late revoke of the window's old rkey leaves the new grant alone. */
TEST_F(table, revoke_of_an_old_rkey)
{
	GRANT(3, 0x400);
	GRANT(3, 0x401);
	REVOKE(3, 0x400);
	EXPECT_EQ(1, mwpeer_proto_errors(self->p, NULL));
	EXPECT_EQ(0x401, rkey_of(self->p, 3));
}

TEST_F(table, revoke_of_an_unknown_window)
{
	GRANT(4, 0x500);
	REVOKE(5, 0x500);
	EXPECT_EQ(1, mwpeer_proto_errors(self->p, NULL));
	EXPECT_EQ(1, mwpeer_grants(self->p, NULL, 0));
	EXPECT_EQ(0x500, rkey_of(self->p, 4));
}

/* Thousands of windows granted and revoked at random against a model. */
TEST_F(table, many_windows)
{
	enum { N = 3000 };
	static uint32_t model[N + 1];
	static struct mwpeer_msg all[N];
	uint32_t i, w, live = 0, k = 1;

	srandom(1);
	for (i = 0; i < 40000; i++) {
		/* ids spread like an xarray's and clustered, both */
		w = 1 + (uint32_t)random() % N;
		if (model[w] && random() % 2) {
			REVOKE(w * 4096, model[w]);
			model[w] = 0;
			live--;
		} else {
			live += !model[w];
			model[w] = ++k;
			GRANT(w * 4096, k);
		}
	}
	ASSERT_EQ(0, mwpeer_proto_errors(self->p, NULL));
	ASSERT_EQ(live, mwpeer_grants(self->p, all, N));
	for (i = 1; i < live; i++)
		ASSERT_LT(all[i - 1].window, all[i].window);
	for (w = 1; w <= N; w++)
		ASSERT_EQ(model[w], rkey_of(self->p, w * 4096));
}

/* Not connected: nothing is posted, and nothing is checked first. */
TEST_F(table, post_needs_a_connection)
{
	struct mwpeer_op op = { .type = MWPEER_OP_READ, .window = 1 };

	GRANT(1, 0x600);
	EXPECT_EQ(-ENOTCONN, mwpeer_post(self->p, &op));
	EXPECT_EQ(-ENOTCONN, mwpeer_do(self->p, &op, NULL));
}

/* ---- against the module ---------------------------------------------- */

FIXTURE(live)
{
	int fd;
	uint32_t region;
	uint8_t *mem;
	struct mwpeer *p;
};

FIXTURE_SETUP(live)
{
	size_t len;

	self->fd = mwin_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, mwin_region_create(self->fd, REGION_LEN, 0,
					&self->region, NULL));
	self->mem = mwin_region_mmap(self->fd, self->region, &len);
	ASSERT_NE(MAP_FAILED, self->mem);
	self->p = test_connect();
	ASSERT_NE(NULL, self->p);
}

FIXTURE_TEARDOWN(live)
{
	mwpeer_close(self->p);
	munmap(self->mem, REGION_LEN);
	mwin_region_destroy(self->fd, self->region, MWIN_REGION_DESTROY_FORCE);
	close(self->fd);
}

/* The next event, waiting up to the test's timeout; its type, or 0. */
static uint32_t next_event(struct mwpeer *p, struct mwpeer_event *ev)
{
	int64_t end = test_now_ms() + TEST_TIMEOUT_MS;

	do {
		if (mwpeer_process(p, ev, 1) == 1)
			return ev->type;
		mwpeer_poll(p, 50);
	} while (test_now_ms() < end);
	return 0;
}

/* Window [@off, @off + @len) for the fixture's peer, its grant taken in. */
static uint32_t grant(struct __test_metadata *_metadata,
		      FIXTURE_DATA(live) *self, uint64_t off, uint64_t len,
		      uint32_t access)
{
	struct mwin_window_bind b = test_bind(self->region, mwpeer_id(self->p),
					      off, len, access, 0);
	struct mwpeer_event ev;

	EXPECT_EQ(0, mwin_window_create(self->fd, &b));
	while (next_event(self->p, &ev) == MWPEER_EV_CONNECTED)
		;
	EXPECT_EQ(MWPEER_EV_GRANT, ev.type);
	EXPECT_EQ(b.id, ev.msg.window);
	return b.id;
}

#define OP(t, w, o, l)	((struct mwpeer_op){ .type = t, .window = w, \
					     .offset = o, .len = l })

TEST_F(live, checked_locally)
{
	bool atomics = test_dev_atomics(self->fd, mwpeer_dev_name(self->p));
	uint32_t ro = grant(_metadata, self, 0, 4096, MWIN_ACCESS_READ);
	uint32_t rwa = grant(_metadata, self, 8192, 4096,
			     test_all_access(self->fd, self->p));
	struct mwpeer_op op = OP(MWPEER_OP_CAS, ro, 0, 0);
	struct mwpeer_event ev;

	memcpy(self->mem, "read only", 10);
	EXPECT_EQ(-EACCES, mwpeer_post(self->p, &OP(MWPEER_OP_WRITE, ro, 0, 8)));
	EXPECT_EQ(-EACCES, mwpeer_post(self->p, &op));
	EXPECT_EQ(-ERANGE, mwpeer_post(self->p, &OP(MWPEER_OP_READ, ro, 4000, 97)));
	EXPECT_EQ(-ERANGE, mwpeer_post(self->p, &OP(MWPEER_OP_READ, ro, 4097, 0)));
	EXPECT_EQ(-ESTALE, mwpeer_post(self->p, &OP(MWPEER_OP_READ, ro + 1000, 0, 8)));
	EXPECT_EQ(-EINVAL, mwpeer_post(self->p, &OP(9, ro, 0, 8)));
	/* without the right, that is what is refused first */
	EXPECT_EQ(atomics ? -EINVAL : -EACCES,
		  mwpeer_post(self->p, &OP(MWPEER_OP_FADD, rwa, 4, 0)));
	EXPECT_EQ(-EINVAL, mwpeer_post(self->p, &((struct mwpeer_op){
		.type = MWPEER_OP_READ, .window = ro, .len = 8,
		.local = &op })));
	EXPECT_EQ(atomics ? -ERANGE : -EACCES,
		  mwpeer_post(self->p, &OP(MWPEER_OP_FADD, rwa, 4096, 0)));
	/* the edges are fine */
	EXPECT_EQ(0, mwpeer_do(self->p, &OP(MWPEER_OP_READ, ro, 0, 4096), NULL));
	EXPECT_EQ(0, memcmp(mwpeer_buf(self->p), "read only", 10));
	if (atomics)
		EXPECT_EQ(0, mwpeer_do(self->p, &OP(MWPEER_OP_FADD, rwa, 4088, 0),
				       NULL));

	/* revoked: refused here, and the connection lives on */
	ASSERT_EQ(0, mwin_window_invalidate(self->fd, ro));
	ASSERT_EQ(MWPEER_EV_REVOKE, next_event(self->p, &ev));
	EXPECT_EQ(ro, ev.msg.window);
	EXPECT_EQ(-ESTALE, mwpeer_post(self->p, &OP(MWPEER_OP_READ, ro, 0, 8)));
	EXPECT_EQ(0, mwpeer_do(self->p, &OP(MWPEER_OP_READ, rwa, 0, 8), NULL));
	EXPECT_FALSE(mwpeer_qp_error(self->p));
	EXPECT_EQ(MWIN_PEER_CONNECTED, test_peer_state(self->fd,
						       mwpeer_id(self->p)));
	EXPECT_EQ(0, mwpeer_process(self->p, &ev, 1));
}

/*
 * A grant whose lease ran out by the local clock is refused here (-ETIME),
 * also before the module's revoke is taken in; mwpeer_arm() says that
 * revoke is waiting (1) rather than let the caller sleep on it, and once it
 * is taken in the window is unknown (-ESTALE).
 */
TEST_F(live, lease_runs_out_locally)
{
	struct mwin_window_bind b = test_bind(self->region, mwpeer_id(self->p),
					      0, 4096, MWIN_ACCESS_READ, 0);
	struct mwpeer_op op = OP(MWPEER_OP_READ, 0, 0, 8);
	struct mwin_window_info wi;
	struct mwpeer_event ev;
	int64_t end;

	b.expires_ms = 300;
	ASSERT_EQ(0, mwin_window_create(self->fd, &b));
	while (next_event(self->p, &ev) == MWPEER_EV_CONNECTED)
		;
	/* the library's deadline is before now + lease_ms */
	end = test_now_ms() + ev.msg.lease_ms + 1;
	ASSERT_EQ(MWPEER_EV_GRANT, ev.type);
	EXPECT_GE(300, ev.msg.lease_ms);
	EXPECT_LT(0, ev.msg.lease_ms);
	/* past the lease and its revoke, nothing taken in meanwhile */
	ASSERT_EQ(0, test_wait_window(self->fd, b.id,
				      MWIN_WINDOW_INVALIDATED, &wi));
	while (test_now_ms() < end)
		usleep(10000);
	op.window = b.id;
	EXPECT_EQ(-ETIME, mwpeer_post(self->p, &op));
	end = test_now_ms() + TEST_TIMEOUT_MS;
	while (mwpeer_arm(self->p) != 1 && test_now_ms() < end)
		usleep(10000);
	EXPECT_EQ(1, mwpeer_arm(self->p));
	ASSERT_EQ(MWPEER_EV_REVOKE, next_event(self->p, &ev));
	EXPECT_EQ(b.id, ev.msg.window);
	EXPECT_EQ(MWIN_REVOKE_EXPIRED, ev.msg.access);
	EXPECT_EQ(-ESTALE, mwpeer_post(self->p, &op));
	EXPECT_EQ(0, mwpeer_arm(self->p));
}

/* MWPEER_MAX_INFLIGHT operations at once, into the caller's memory. */
TEST_F(live, many_in_flight_complete_in_order)
{
	enum { N = MWPEER_MAX_INFLIGHT, CHUNK = 1024 };
	uint32_t w = grant(_metadata, self, 0, N * CHUNK,
			   test_all_access(self->fd, self->p));
	static uint8_t mine[N * CHUNK];
	struct mwpeer_event ev;
	uint64_t i;

	for (i = 0; i < N * CHUNK; i++)
		self->mem[i] = (uint8_t)(i * 7 + i / 251);
	ASSERT_EQ(0, mwpeer_reg_mem(self->p, mine, sizeof(mine)));
	EXPECT_EQ(-EEXIST, mwpeer_reg_mem(self->p, mine + 1, 8));
	for (i = 0; i < N; i++) {
		struct mwpeer_op op = OP(MWPEER_OP_READ, w, i * CHUNK, CHUNK);

		op.local = mine + i * CHUNK;
		op.cookie = 1000 + i;
		ASSERT_EQ(0, mwpeer_post(self->p, &op));
	}
	EXPECT_EQ(-EAGAIN, mwpeer_post(self->p, &OP(MWPEER_OP_READ, w, 0, 8)));
	for (i = 0; i < N; i++) {
		ASSERT_EQ(MWPEER_EV_DONE, next_event(self->p, &ev));
		EXPECT_EQ(1000 + i, ev.cookie);
		EXPECT_EQ(IBV_WC_SUCCESS, ev.status);
	}
	EXPECT_EQ(0, memcmp(mine, self->mem, sizeof(mine)));
	EXPECT_EQ(0, mwpeer_dereg_mem(self->p, mine));
	EXPECT_EQ(-ENOENT, mwpeer_dereg_mem(self->p, mine));
	if (!test_dev_atomics(self->fd, mwpeer_dev_name(self->p)))
		SKIP(return, "%s has no atomics", mwpeer_dev_name(self->p));

	/* atomics: each gets the value before it, in order */
	memset(self->mem, 0, 8);
	for (i = 0; i < 16; i++) {
		struct mwpeer_op op = OP(MWPEER_OP_FADD, w, 0, 0);

		op.compare_add = 1;
		op.cookie = i;
		ASSERT_EQ(0, mwpeer_post(self->p, &op));
	}
	for (i = 0; i < 16; i++) {
		ASSERT_EQ(MWPEER_EV_DONE, next_event(self->p, &ev));
		EXPECT_EQ(i, ev.cookie);
		EXPECT_EQ(i, ev.value);
	}
	EXPECT_EQ(16, *(uint64_t *)(void *)self->mem);
}

/* Handed back: gone from the table at once, invalidated in the module. */
TEST_F(live, hand_back)
{
	uint32_t w = grant(_metadata, self, 0, 4096, MWIN_ACCESS_READ);
	struct mwpeer_op op = OP(MWPEER_OP_HAND_BACK, w, 0, 0);
	struct mwin_window_info wi;
	struct mwpeer_event ev;

	op.cookie = 77;
	ASSERT_EQ(0, mwpeer_post(self->p, &op));
	EXPECT_EQ(-ESTALE, mwpeer_post(self->p, &OP(MWPEER_OP_READ, w, 0, 8)));
	ASSERT_EQ(MWPEER_EV_DONE, next_event(self->p, &ev));
	EXPECT_EQ(77, ev.cookie);
	EXPECT_EQ(IBV_WC_SUCCESS, ev.status);
	EXPECT_EQ(0, test_wait_window(self->fd, w, MWIN_WINDOW_INVALIDATED,
				      &wi));
}

/*
 * A request that passed the library's checks and that the module refuses
 * (the revoke not yet in: here a READ posted behind the library's back
 * with the dead rkey): a failed completion, a disconnect, and a reconnect
 * when asked, with a new peer id and an empty table.
 */
TEST_F(live, refused_request_then_reconnect)
{
	uint32_t w = grant(_metadata, self, 0, 4096, MWIN_ACCESS_READ);
	uint32_t old_id = mwpeer_id(self->p);
	struct ibv_sge sge = {
		.addr = (uintptr_t)mwpeer_buf(self->p), .length = 8,
		.lkey = mwpeer_lkey(self->p, mwpeer_buf(self->p), 8),
	};
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_RDMA_READ };
	bool done = false, down = false;
	struct mwpeer_msg m;
	int r;
	struct mwpeer_event ev;

	ASSERT_EQ(0, mwpeer_grant(self->p, w, &m));
	wr.wr.rdma.rkey = m.rkey;
	wr.wr.rdma.remote_addr = m.iova;
	ASSERT_EQ(0, mwin_window_invalidate(self->fd, w));
	ASSERT_EQ(0, mwpeer_post_raw(self->p, &wr, 5));
	/* the revoke may come before or after the other two */
	while (!done || !down) {
		ASSERT_NE(0, next_event(self->p, &ev));
		if (ev.type == MWPEER_EV_DONE) {
			EXPECT_EQ(5, ev.cookie);
			EXPECT_NE(IBV_WC_SUCCESS, ev.status);
			done = true;
		} else if (ev.type == MWPEER_EV_DISCONNECTED) {
			EXPECT_TRUE(done);	/* the last event */
			EXPECT_EQ(-EREMOTEIO, ev.status);
			down = true;
		} else {
			EXPECT_EQ(MWPEER_EV_REVOKE, ev.type);
		}
	}
	/* the QP in error, or by now the connection closed */
	r = mwpeer_post(self->p, &OP(MWPEER_OP_READ, w, 0, 8));
	EXPECT_TRUE(r == -EREMOTEIO || r == -ENOTCONN);

	ASSERT_EQ(0, mwpeer_reconnect(self->p));
	ASSERT_EQ(MWPEER_EV_CONNECTED, next_event(self->p, &ev));
	EXPECT_NE(old_id, mwpeer_id(self->p));
	EXPECT_EQ(0, mwpeer_grants(self->p, NULL, 0));
	w = grant(_metadata, self, 8192, 4096, MWIN_ACCESS_READ);
	EXPECT_EQ(0, mwpeer_do(self->p, &OP(MWPEER_OP_READ, w, 0, 8), NULL));
}

/* ---- the examples, as a tenant's application ------------------------- */

static const uint8_t example_key[TEST_KEY_LEN] = "examples' key, thirty-one bytes";

FIXTURE(example)
{
	int fd;
	uint32_t region;
	uint32_t tenant;
	uint8_t *mem;
};

FIXTURE_VARIANT(example)
{
	const char *cmd;
};

FIXTURE_VARIANT_ADD(example, c)
{
	.cmd = "build/examples/tenant_rw",
};

FIXTURE_VARIANT_ADD(example, python)
{
	.cmd = "MWIN_PEER_LIB=build/lib/libmwinpeer.so.1 "
	       "PYTHONPATH=tools/lib/python python3 -B tools/examples/tenant_rw.py",
};

FIXTURE_SETUP(example)
{
	size_t len;

	self->fd = mwin_open();
	ASSERT_LE(0, self->fd);
	test_destroy_tenants(self->fd, "ex-");
	self->tenant = test_make_tenant(self->fd, "ex-app", example_key,
					MWIN_NO_OWNER);
	ASSERT_NE(0, self->tenant);
	ASSERT_EQ(0, mwin_region_create(self->fd, REGION_LEN, 0,
					&self->region, NULL));
	self->mem = mwin_region_mmap(self->fd, self->region, &len);
	ASSERT_NE(MAP_FAILED, self->mem);
}

FIXTURE_TEARDOWN(example)
{
	munmap(self->mem, REGION_LEN);
	mwin_region_destroy(self->fd, self->region, MWIN_REGION_DESTROY_FORCE);
	test_destroy_tenants(self->fd, "ex-");
	close(self->fd);
}

/* Read the example's output up to a line that starts with @want. */
static bool wait_line(FILE *f, const char *want)
{
	char line[256];

	while (fgets(line, sizeof(line), f)) {
		printf("# example: %s", line);
		fflush(stdout);
		if (!strncmp(line, want, strlen(want)))
			return true;
	}
	return false;
}

/*
 * The window is granted to the tenant once its application connected; it
 * writes and reads it, the owner rebinds it, and it carries on with the
 * new rkey under the same window id. The test's clock starts when the
 * example says it connected: a Python interpreter can take longer than
 * TEST_TIMEOUT_MS to start under a debug kernel, and a grant loop that
 * gave up first would destroy the tenant under the coming connection.
 */
TEST_F_TIMEOUT(example, survives_a_rebind, 120)
{
	struct mwin_window_bind b;
	char cmd[512], hex[2 * TEST_KEY_LEN + 1];
	FILE *f;
	int i, r;

	for (i = 0; i < TEST_KEY_LEN; i++)
		sprintf(hex + 2 * i, "%02x", example_key[i]);
	snprintf(cmd, sizeof(cmd), "%s -t 20 -k %s %s ex-app", variant->cmd,
		 hex, test_host());
	f = popen(cmd, "r");
	ASSERT_NE(NULL, f);
	ASSERT_TRUE(wait_line(f, "connected"));
	/* granted as soon as the tenant has a connection that proved itself */
	for (i = 0; i < TEST_TIMEOUT_MS / 10; i++) {
		r = test_grant_tenant(self->fd, self->region, self->tenant,
				      4096, 4096, MWIN_ACCESS_READ |
				      MWIN_ACCESS_WRITE, &b);
		if (r != -ENOTCONN)
			break;
		usleep(10000);
	}
	ASSERT_EQ(0, r);
	ASSERT_TRUE(wait_line(f, "round 1 ok"));
	EXPECT_STREQ("round 1 from ex-app", (char *)self->mem + 4096);
	ASSERT_EQ(0, test_rebind(self->fd, &b, 0, 4096, 4096,
				 MWIN_ACCESS_READ | MWIN_ACCESS_WRITE));
	ASSERT_TRUE(wait_line(f, "round 2 ok"));
	EXPECT_STREQ("round 2 from ex-app", (char *)self->mem + 4096);
	EXPECT_EQ(0, pclose(f));
	mwin_window_destroy(self->fd, b.id);
}

/*
 * share_buffer: the owner's side and the peer's in one program. It lends
 * its own buffer (a user region) to the tenant through a read-only window
 * with a lease, renews it twice, revokes it; its peer reads and checks
 * the bytes after each step and fails to read after the revoke. The
 * example checks the bytes itself and says "share_buffer: ok"; here the
 * steps are checked to come in order, and nothing to be left behind.
 */
FIXTURE(share)
{
	int fd;
	uint32_t tenant;
};

FIXTURE_VARIANT(share)
{
	const char *cmd;
};

FIXTURE_VARIANT_ADD(share, c)
{
	.cmd = "build/examples/share_buffer",
};

FIXTURE_VARIANT_ADD(share, python)
{
	.cmd = "MWIN_LIB=build/lib/libmwin.so.1 "
	       "MWIN_PEER_LIB=build/lib/libmwinpeer.so.1 "
	       "PYTHONPATH=tools/lib/python python3 -B tools/examples/share_buffer.py",
};

FIXTURE_SETUP(share)
{
	self->fd = mwin_open();
	ASSERT_LE(0, self->fd);
	test_destroy_tenants(self->fd, "ex-");
	self->tenant = test_make_tenant(self->fd, "ex-share", example_key,
					MWIN_NO_OWNER);
	ASSERT_NE(0, self->tenant);
}

FIXTURE_TEARDOWN(share)
{
	test_destroy_tenants(self->fd, "ex-");
	close(self->fd);
}

TEST_F_TIMEOUT(share, lends_renews_revokes, 120)
{
	static const char *const steps[] = {
		"peer: connected", "owner: window ",
		"peer: read 65536 bytes", "owner: lease of window",
		"peer: read 65536 bytes", "owner: lease of window",
		"peer: read 65536 bytes", "owner: window ",
		"peer: read of window", "owner: window ", "share_buffer: ok",
	};
	char cmd[512], hex[2 * TEST_KEY_LEN + 1];
	struct mwin_info before, after;
	size_t i;
	FILE *f;

	for (i = 0; i < TEST_KEY_LEN; i++)
		sprintf(hex + 2 * i, "%02x", example_key[i]);
	ASSERT_EQ(0, mwin_info(self->fd, &before, NULL, 0));
	snprintf(cmd, sizeof(cmd), "%s -t 20 -k %s %s ex-share", variant->cmd,
		 hex, test_host());
	f = popen(cmd, "r");
	ASSERT_NE(NULL, f);
	/*
	 * The owner's and the peer's lines interleave, each side in its
	 * order; the peer's first line may come before or after the owner's.
	 */
	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		ASSERT_TRUE(wait_line(f, steps[i]));
	EXPECT_EQ(0, pclose(f));
	/* its region was owned by its file: gone with it, windows too */
	ASSERT_EQ(0, mwin_info(self->fd, &after, NULL, 0));
	EXPECT_EQ(before.nr_regions, after.nr_regions);
	EXPECT_EQ(before.nr_windows, after.nr_windows);
}

TEST_HARNESS_MAIN
