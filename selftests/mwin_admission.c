// SPDX-License-Identifier: GPL-2.0
/*
 * Admission under attack. A connection that does not finish its handshake
 * (no RTU; for a tenant with a key, no proof) holds a handshake slot,
 * counted apart from connection slots, for at most auth_timeout_ms: an
 * honest peer is admitted beside such connections, or within that bound
 * when they hold every handshake slot, and strangers naming a tenant never
 * take one of its connection slots. A handshake that ends with no slot left
 * closes the connection. The rate limit counts an IPv6 address by its /64.
 *
 * A half-open client here is librdmacm without a QP, as the issue's
 * attacker: it connects with a made-up QP number and, given the module's
 * connect response, never calls rdma_establish(), so no RTU goes out; left
 * to the RDMA CM, the module's side would wait for one as long as the
 * client's REQ asks (minutes to hours). That client is the IB CM's (rxe's
 * here): iWARP's CM connects a QP, not a QP number, and has no RTU, so the
 * tests that make one skip on siw (HALF_OPEN_ONLY()).
 */
#include <arpa/inet.h>
#include <endian.h>
#include <poll.h>
#include <rdma/rdma_cma.h>
#include <sys/random.h>

#include "mwin_test.h"

/* auth_timeout_ms of the tests that wait for it, and the slack allowed */
#define AUTH_MS		3000
#define SLACK_MS	10000
/* long enough never to end within a test */
#define AUTH_LONG_MS	60000
/* handshakes one source address may hold (Documentation/mwin.rst) */
#define PER_SOURCE	16
/*
 * Made-up QP numbers: the half-open client has no QP. Each its own: the
 * CM refuses a second connection from the same remote QP as stale.
 */
static uint32_t no_qpn = 0x4200;

#define HALF_OPEN_ONLY()						\
	TEST_RXE_ONLY("a half-open client is the IB CM's: "		\
		      "a connect with no QP, no RTU")

struct half_open {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	uint32_t peer;		/* the module's id of it, from the accept */
	int reason;		/* the module's reject reason, or 0 */
	struct mwin_wire_challenge challenge;	/* reason challenge: it */
};

/* The next CM event within @ms, or NULL. */
static struct rdma_cm_event *cm_event(struct rdma_event_channel *ch, int ms)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;

	if (poll(&pfd, 1, ms) != 1 || rdma_get_cm_event(ch, &ev))
		return NULL;
	return ev;
}

static int cm_expect(struct rdma_event_channel *ch,
		     enum rdma_cm_event_type type)
{
	struct rdma_cm_event *ev = cm_event(ch, TEST_TIMEOUT_MS);
	int ok = ev && ev->event == type;

	if (ev)
		rdma_ack_cm_event(ev);
	return ok ? 0 : -EPROTO;
}

/*
 * A hello naming @tenant (NULL: anonymous) into @buf, or @req if given:
 * its length.
 */
static uint8_t hello(const char *tenant, const struct mwin_wire_proof_req *req,
		     void *buf)
{
	struct mwin_wire_hello_tenant *h = buf;

	if (req) {
		memcpy(buf, req, sizeof(*req));
		return sizeof(*req);
	}
	memset(h, 0, sizeof(*h));
	h->magic = htole32(MWIN_WIRE_MAGIC);
	if (!tenant) {
		h->version = MWIN_WIRE_VERSION;
		return sizeof(struct mwin_wire_hello);
	}
	h->version = MWIN_WIRE_VERSION_PROOF;
	memcpy(h->tenant, tenant, strnlen(tenant, sizeof(h->tenant)));
	return sizeof(*h);
}

/* The accept's or the reject's private data, read into @h. */
static int half_open_answer(struct half_open *h, struct rdma_cm_event *ev)
{
	const struct rdma_conn_param *c = &ev->param.conn;
	struct mwin_wire_accept acc;
	struct mwin_wire_reject rej;

	if (ev->event == RDMA_CM_EVENT_CONNECT_RESPONSE &&
	    c->private_data_len >= sizeof(acc)) {
		memcpy(&acc, c->private_data, sizeof(acc));
		h->peer = le32toh(acc.peer);
		return 0;
	}
	if (ev->event == RDMA_CM_EVENT_REJECTED &&
	    c->private_data_len >= sizeof(rej)) {
		memcpy(&rej, c->private_data, sizeof(rej));
		h->reason = rej.reason;
		if (c->private_data_len >= sizeof(h->challenge))
			memcpy(&h->challenge, c->private_data,
			       sizeof(h->challenge));
		return rej.reason;
	}
	return -EPROTO;
}

/*
 * Connect as @tenant (NULL: anonymous), or with @req, and stop at the
 * connect response. Return: 0 (half-open, h->peer set), the module's
 * reject reason, or -errno.
 */
static int half_open_start(struct half_open *h, const char *tenant,
			   const struct mwin_wire_proof_req *req)
{
	struct sockaddr_in dst = { .sin_family = AF_INET,
				   .sin_port = htons(mwpeer_default_port()) };
	uint8_t priv[sizeof(struct mwin_wire_proof_req)];
	struct rdma_conn_param cp = {
		.private_data = priv,
		.private_data_len = hello(tenant, req, priv),
		.responder_resources = 1,
		.initiator_depth = 1,
		.retry_count = 7,
		.rnr_retry_count = 6,
		.qp_num = no_qpn++,
	};
	struct rdma_cm_event *ev;
	int ret;

	memset(h, 0, sizeof(*h));
	if (inet_pton(AF_INET, test_host(), &dst.sin_addr) != 1 ||
	    !cp.private_data_len)
		return -EINVAL;
	h->ch = rdma_create_event_channel();
	if (!h->ch || rdma_create_id(h->ch, &h->id, NULL, RDMA_PS_TCP))
		return -errno;
	if (rdma_resolve_addr(h->id, NULL, (struct sockaddr *)&dst,
			      TEST_TIMEOUT_MS) ||
	    cm_expect(h->ch, RDMA_CM_EVENT_ADDR_RESOLVED) ||
	    rdma_resolve_route(h->id, TEST_TIMEOUT_MS) ||
	    cm_expect(h->ch, RDMA_CM_EVENT_ROUTE_RESOLVED) ||
	    rdma_connect(h->id, &cp))
		return -EPROTO;
	ev = cm_event(h->ch, TEST_TIMEOUT_MS);
	if (!ev)
		return -ETIMEDOUT;
	ret = half_open_answer(h, ev);
	rdma_ack_cm_event(ev);
	return ret;
}

/* The client gives up: its CM rejects the module's response. */
static void half_open_end(struct half_open *h)
{
	if (h->id)
		rdma_destroy_id(h->id);
	if (h->ch)
		rdma_destroy_event_channel(h->ch);
	memset(h, 0, sizeof(*h));
}

/* The module closed the connection: the client's CM says so. */
static bool half_open_closed(struct half_open *h)
{
	struct rdma_cm_event *ev = cm_event(h->ch, TEST_TIMEOUT_MS);
	bool closed = ev && (ev->event == RDMA_CM_EVENT_REJECTED ||
			     ev->event == RDMA_CM_EVENT_DISCONNECTED ||
			     ev->event == RDMA_CM_EVENT_CONNECT_ERROR);

	if (ev)
		rdma_ack_cm_event(ev);
	return closed;
}

static const uint8_t key_u[TEST_KEY_LEN] = { 0x75, 0x2d, 0x6b, 0x65, 0x79 };

/*
 * As tenant adm-u, with its key: take a challenge, then connect with the
 * proof and stop at the connect response, as half_open_start().
 */
static int proved_half_open(struct half_open *h)
{
	struct mwin_wire_proof_req r = {
		.magic = htole32(MWIN_WIRE_MAGIC),
		.version = MWIN_WIRE_VERSION_PROOF,
		.type = MWIN_WIRE_PROOF_REQ,
	};
	uint8_t proof[MWIN_WIRE_PROOF_LEN];
	int ret = half_open_start(h, "adm-u", NULL);

	if (ret != MWIN_REJECT_CHALLENGE)
		return ret ? ret : -EPROTO;
	r.tenant = h->challenge.tenant;
	memcpy(r.challenge, h->challenge.challenge, sizeof(r.challenge));
	if (getrandom(r.nonce, sizeof(r.nonce), 0) != sizeof(r.nonce) ||
	    mwpeer_proof4(key_u, TEST_KEY_LEN, false, r.challenge, r.nonce,
			  le32toh(r.tenant), proof))
		return -EIO;
	memcpy(r.proof, proof, sizeof(r.proof));
	half_open_end(h);
	return half_open_start(h, "adm-u", &r);
}

static uint64_t module_rejects(int fd, int why)
{
	struct mwin_info info;

	return mwin_info(fd, &info, NULL, 0) ? ~0ULL : info.rejects[why];
}

static uint64_t tenant_rejects(int fd, uint32_t tenant, int why)
{
	struct mwin_tenant_info t;

	return mwin_tenant_get(fd, tenant, 0, &t) ? ~0ULL : t.rejects[why];
}

static const char *const saved_params[] = {
	"auth_timeout_ms", "max_half_open", "max_anon_peers", "conn_rate",
};

#define NR_SAVED ARRAY_SIZE(saved_params)

FIXTURE(admission)
{
	int fd;
	unsigned long saved[NR_SAVED];
	uint32_t tenant;
	struct half_open h[PER_SOURCE + 1];
};

FIXTURE_SETUP(admission)
{
	struct mwin_tenant_info t;
	size_t i;

	self->fd = mwin_open();
	ASSERT_LE(0, self->fd);
	for (i = 0; i < NR_SAVED; i++)
		self->saved[i] = test_param(saved_params[i]);
	test_destroy_tenants(self->fd, "adm-");
	self->tenant = test_make_tenant(self->fd, "adm-u", key_u,
					MWIN_NO_OWNER);
	ASSERT_NE(0, self->tenant);
	t = (struct mwin_tenant_info){ .id = self->tenant, .max_conns = 2,
				       .flags = MWIN_TENANT_SET_MAX_CONNS };
	ASSERT_EQ(0, mwin_tenant_set(self->fd, &t));
	ASSERT_EQ(0, test_set_param("auth_timeout_ms", AUTH_LONG_MS));
}

FIXTURE_TEARDOWN(admission)
{
	size_t i;

	for (i = 0; i < PER_SOURCE + 1; i++)
		half_open_end(&self->h[i]);
	for (i = 0; i < NR_SAVED; i++)
		test_set_param(saved_params[i], self->saved[i]);
	test_destroy_tenants(self->fd, "adm-");
	close(self->fd);
}

/*
 * Four anonymous clients stop at the connect response with max_anon_peers
 * 4: they hold handshake slots, not anonymous ones, and an honest fifth is
 * admitted beside them at once.
 */
TEST_F(admission, half_open_peers_take_no_connection_slot)
{
	struct mwpeer *p;
	int i, err;

	HALF_OPEN_ONLY();
	ASSERT_EQ(0, test_set_param("max_anon_peers", 4));
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, half_open_start(&self->h[i], NULL, NULL));
		EXPECT_EQ(MWIN_PEER_CONNECTING,
			  test_peer_state(self->fd, self->h[i].peer));
	}
	p = test_peer_of(NULL, NULL, NULL, &err);
	EXPECT_EQ(0, err);
	EXPECT_EQ(0, test_wait_peer_state(self->fd, mwpeer_id(p),
					  MWIN_PEER_CONNECTED));
	for (i = 0; i < 4; i++)
		EXPECT_EQ(MWIN_PEER_CONNECTING,
			  test_peer_state(self->fd, self->h[i].peer));
	mwpeer_close(p);
}

/*
 * The module bounds a handshake, not the client's REQ: half-open
 * connections, anonymous or naming a tenant, are torn down after
 * auth_timeout_ms, counted as unfinished, and their clients told.
 */
TEST_F(admission, half_open_peers_go_after_auth_timeout)
{
	uint64_t mod = module_rejects(self->fd, MWIN_REJECT_UNFINISHED);
	uint64_t ten = tenant_rejects(self->fd, self->tenant,
				      MWIN_REJECT_UNFINISHED);
	int64_t start;
	int i;

	HALF_OPEN_ONLY();
	ASSERT_EQ(0, test_set_param("auth_timeout_ms", AUTH_MS));
	start = test_now_ms();
	ASSERT_EQ(0, half_open_start(&self->h[0], NULL, NULL));
	ASSERT_EQ(0, half_open_start(&self->h[1], NULL, NULL));
	ASSERT_EQ(0, proved_half_open(&self->h[2]));
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(0, test_wait_peer_gone(self->fd, self->h[i].peer));
		EXPECT_TRUE(half_open_closed(&self->h[i]));
		EXPECT_EQ(MWIN_DOWN_HANDSHAKE,
			  test_gone_reason(self->fd, self->h[i].peer));
	}
	TH_LOG("half-open connections gone %lld ms after the first request (auth_timeout_ms %d)",
	       (long long)(test_now_ms() - start), AUTH_MS);
	EXPECT_LE(AUTH_MS, test_now_ms() - start);
	EXPECT_GT(AUTH_MS + SLACK_MS, test_now_ms() - start);
	EXPECT_EQ(mod + 3, module_rejects(self->fd, MWIN_REJECT_UNFINISHED));
	EXPECT_EQ(ten + 1, tenant_rejects(self->fd, self->tenant,
					  MWIN_REJECT_UNFINISHED));
}

/*
 * Handshake slots are few (max_half_open): past them a request is
 * refused, an honest one too, until one is given back.
 */
TEST_F(admission, handshake_slots_are_bounded)
{
	uint64_t before = module_rejects(self->fd, MWIN_REJECT_HALF_OPEN);
	struct mwpeer *p;
	uint32_t id;
	int err;

	HALF_OPEN_ONLY();
	ASSERT_EQ(0, test_set_param("max_half_open", 2));
	ASSERT_EQ(0, half_open_start(&self->h[0], NULL, NULL));
	ASSERT_EQ(0, half_open_start(&self->h[1], NULL, NULL));
	EXPECT_EQ(MWIN_REJECT_HALF_OPEN, half_open_start(&self->h[2], NULL, NULL));
	p = test_peer_of(NULL, NULL, NULL, &err);
	EXPECT_EQ(-ECONNREFUSED, err);
	EXPECT_EQ(MWIN_REJECT_HALF_OPEN, mwpeer_reject_reason(p));
	mwpeer_close(p);
	EXPECT_EQ(before + 2, module_rejects(self->fd, MWIN_REJECT_HALF_OPEN));

	/* the client gives up: its slot comes back, an honest peer gets it */
	id = self->h[0].peer;
	half_open_end(&self->h[0]);
	EXPECT_EQ(0, test_wait_peer_gone(self->fd, id));
	p = test_peer_of(NULL, NULL, NULL, &err);
	EXPECT_EQ(0, err);
	mwpeer_close(p);
}

/* One source address holds at most PER_SOURCE handshakes at once. */
TEST_F(admission, one_address_holds_few_handshakes)
{
	int i;

	HALF_OPEN_ONLY();
	for (i = 0; i < PER_SOURCE; i++)
		ASSERT_EQ(0, half_open_start(&self->h[i], NULL, NULL));
	EXPECT_EQ(MWIN_REJECT_HALF_OPEN,
		  half_open_start(&self->h[PER_SOURCE], NULL, NULL));
}

/*
 * Strangers naming tenant U (max-conns 2, a key) and never proving it:
 * their hellos are answered with a challenge, and their requests with a
 * made-up proof refused, before any handshake slot is taken. They hold
 * nothing of U's, so U's own client is admitted at once, beside them.
 */
TEST_F(admission, strangers_cannot_keep_a_tenant_out)
{
	struct mwin_wire_proof_req r = {
		.magic = MWIN_WIRE_MAGIC,
		.version = MWIN_WIRE_VERSION_PROOF,
		.type = MWIN_WIRE_PROOF_REQ,
	};
	struct mwin_tenant_info t;
	struct mwpeer *p;
	int err, i;

	HALF_OPEN_ONLY();
	for (i = 0; i < 4; i++)
		EXPECT_EQ(MWIN_REJECT_CHALLENGE,
			  half_open_start(&self->h[i], "adm-u", NULL));
	r.tenant = htole32(self->tenant);
	memset(r.challenge, 0x5a, sizeof(r.challenge));
	EXPECT_EQ(MWIN_REJECT_BAD_PROOF,
		  half_open_start(&self->h[4], "adm-u", &r));
	ASSERT_EQ(0, mwin_tenant_get(self->fd, self->tenant, 0, &t));
	EXPECT_EQ(0, t.nr_conns);
	EXPECT_EQ(4, t.rejects[MWIN_REJECT_CHALLENGE]);
	EXPECT_EQ(1, t.rejects[MWIN_REJECT_BAD_PROOF]);

	p = test_peer_of("adm-u", key_u, NULL, &err);
	ASSERT_EQ(0, err);
	EXPECT_EQ(0, test_wait_peer_state(self->fd, mwpeer_id(p),
					  MWIN_PEER_CONNECTED));
	ASSERT_EQ(0, mwin_tenant_get(self->fd, self->tenant, 0, &t));
	EXPECT_EQ(1, t.nr_conns);
	EXPECT_EQ(0, t.rejects[MWIN_REJECT_HALF_OPEN]);
	mwpeer_close(p);
}

/*
 * A handshake that ends when no connection slot is left: the anonymous
 * slot (max_anon_peers 1) went to an honest peer while a half-open client
 * waited; when that client sends its RTU at last, it is closed, and the
 * honest peer keeps its slot.
 */
TEST_F(admission, no_slot_left_when_the_handshake_ends)
{
	uint64_t before = module_rejects(self->fd, MWIN_REJECT_PEER_LIMIT);
	struct half_open *h = &self->h[0];
	struct mwpeer *p;
	int err;

	HALF_OPEN_ONLY();
	ASSERT_EQ(0, test_set_param("max_anon_peers", 1));
	ASSERT_EQ(0, half_open_start(h, NULL, NULL));
	p = test_peer_of(NULL, NULL, NULL, &err);
	ASSERT_EQ(0, err);
	ASSERT_EQ(0, test_wait_peer_state(self->fd, mwpeer_id(p),
					  MWIN_PEER_CONNECTED));

	ASSERT_EQ(0, rdma_establish(h->id));
	EXPECT_EQ(0, test_wait_peer_gone(self->fd, h->peer));
	EXPECT_EQ(MWIN_DOWN_HANDSHAKE, test_gone_reason(self->fd, h->peer));
	EXPECT_EQ(before + 1, module_rejects(self->fd, MWIN_REJECT_PEER_LIMIT));
	EXPECT_EQ(MWIN_PEER_CONNECTED, test_peer_state(self->fd, mwpeer_id(p)));
	mwpeer_close(p);
}

/*
 * The rate limit counts an IPv6 address by its /64: a host rotating
 * through the addresses of its prefix shares one bucket. Two addresses of
 * one /64 on the test host's RDMA netdev, conn_rate 1: the second
 * address's first connection finds the bucket the first emptied.
 */
#define V6_A	"fd00:6d77::1"
#define V6_B	"fd00:6d77::2"

static int v6_addrs(const char *op)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd),
		 "dev=$(ip -o -4 addr show to %s | awk '{ print $2; exit }') && "
		 "ip -6 addr %s %s/64 dev $dev nodad && "
		 "ip -6 addr %s %s/64 dev $dev nodad",
		 test_host(), op, V6_A, op, V6_B);
	return test_sh(cmd);
}

static struct mwpeer *v6_peer(const char *src, int *err)
{
	struct mwpeer_opts o = { .timeout_ms = TEST_TIMEOUT_MS, .dev = src };
	struct mwpeer *p = mwpeer_create(&o);

	*err = p ? mwpeer_open(p, V6_A, 0) : -ENOMEM;
	return p;
}

TEST_F(admission, an_ipv6_prefix_shares_one_rate_bucket)
{
	uint64_t before = module_rejects(self->fd, MWIN_REJECT_RATE);
	struct mwpeer *a, *b;
	int err, i;

	ASSERT_EQ(0, v6_addrs("add"));
	/* rxe adds the addresses' GIDs from a netdev event: once one connects */
	for (i = 0, err = -1; err && i < 50; i++) {
		a = v6_peer(V6_A, &err);
		mwpeer_close(a);
		usleep(100000);
	}
	ASSERT_EQ(0, err);

	ASSERT_EQ(0, test_set_param("conn_rate", 1));
	usleep(1100 * 1000);	/* a full bucket: one connection */
	a = v6_peer(V6_A, &err);
	EXPECT_EQ(0, err);
	b = v6_peer(V6_B, &err);
	EXPECT_EQ(-ECONNREFUSED, err);
	EXPECT_EQ(MWIN_REJECT_RATE, mwpeer_reject_reason(b));
	EXPECT_EQ(before + 1, module_rejects(self->fd, MWIN_REJECT_RATE));
	mwpeer_close(b);
	mwpeer_close(a);
	EXPECT_EQ(0, v6_addrs("del"));
}

TEST_HARNESS_MAIN
