// SPDX-License-Identifier: GPL-2.0
/*
 * Admission: whether a CONNECT_REQUEST may become a peer, decided from its
 * hello, its device and its source address before the module spends
 * anything on it (no PD, no QP), and the tenant handshake that follows.
 *
 * A version 2 hello is an anonymous peer: admitted while the anonymous
 * parameter is set, up to max_anon_peers at once. A version 3 or 4 hello
 * names a tenant: admitted from the tenant's prefixes, up to its max_conns.
 * Every source address may connect conn_rate times a second (a token
 * bucket), whoever it claims to be. A refusal is a REJ whose private data
 * says why (struct mwin_wire_reject), counted for the module and the tenant
 * named. A connection's handshake (until it is established) is bounded by
 * the module, not by the peer's CM timeouts: it holds a handshake slot,
 * counted apart, for at most auth_timeout_ms.
 *
 * A tenant with a key proves itself in the connect request, before the
 * module makes anything for it: a PD or a QP of the tenant's, even without
 * access rights, could already take a Send-with-Invalidate of the tenant's
 * rkeys. Its hello is answered with a reject carrying a challenge, which
 * the module keeps nothing of (it is MACed with a secret); its next request
 * carries the challenge and an HMAC-SHA256 proof over it, and the module's
 * accept carries the module's proof (Documentation/wire.rst). A challenge
 * is good once: a recorded request proves nothing when replayed. The
 * challenges and proofs are proof.c's; when they are asked for is here.
 */
#include <linux/inet.h>
#include <linux/random.h>
#include <linux/siphash.h>
#include <net/ipv6.h>
#include <rdma/ib_cm.h>

#include "mwin.h"

bool mwin_anonymous;
module_param_named(anonymous, mwin_anonymous, bool, 0644);
MODULE_PARM_DESC(anonymous, "Admit peers that name no tenant (wire version 2); default off");

unsigned int mwin_max_anon_peers = 64;
module_param_named(max_anon_peers, mwin_max_anon_peers, uint, 0644);
MODULE_PARM_DESC(max_anon_peers, "Anonymous peers that may be connected at once");

unsigned int mwin_conn_rate = 200;
module_param_named(conn_rate, mwin_conn_rate, uint, 0644);
MODULE_PARM_DESC(conn_rate, "Connections a second one source address may make (0: no limit)");

char *mwin_devices = "";
module_param_named(devices, mwin_devices, charp, 0444);
MODULE_PARM_DESC(devices, "RDMA devices peers may connect through, comma-separated (default: all)");

/* Refused connections, by enum mwin_wire_reject_reason: MWIN_INFO. */
atomic64_t mwin_rejects[MWIN_REJECT_SLOTS];
static atomic_t mwin_nr_anon = ATOMIC_INIT(0);

static const char *const admit_why[MWIN_REJECT_SLOTS] = {
	[MWIN_REJECT_BAD_HELLO] = "bad hello",
	[MWIN_REJECT_ANONYMOUS] = "anonymous peers are off",
	[MWIN_REJECT_UNKNOWN_TENANT] = "unknown tenant",
	[MWIN_REJECT_ADDRESS] = "address not allowed",
	[MWIN_REJECT_QUOTA] = "no slot: the tenant is at its max-conns",
	[MWIN_REJECT_PEER_LIMIT] = "no slot: peers at their limit",
	[MWIN_REJECT_RATE] = "too many connections from the address",
	[MWIN_REJECT_RNR_RETRY] = "RNR retry count 7 (infinite)",
	[MWIN_REJECT_SETUP] = "cannot set up the connection",
	[MWIN_REJECT_DEVICE] = "device not served",
	[MWIN_REJECT_BAD_PROOF] = "bad tenant proof or challenge",
	[MWIN_REJECT_NO_PROOF] = "no tenant proof",
	[MWIN_REJECT_HALF_OPEN] = "too many connections in their handshake",
	[MWIN_REJECT_UNFINISHED] = "handshake not finished in time",
	[MWIN_REJECT_CHALLENGE] = "challenged",
};

u32 admit_nr_anon(void)
{
	return atomic_read(&mwin_nr_anon);
}

void admit_count(struct mwin_tenant *t, enum mwin_wire_reject_reason why)
{
	atomic64_inc(&mwin_rejects[why]);
	if (t) {
		spin_lock(&t->lock);
		t->rejects[why]++;
		spin_unlock(&t->lock);
	}
}

/* A hello of version 3 or 4: its tenant, by name. */
static int admit_read_tenant_hello(const struct rdma_conn_param *conn,
				   struct mwin_admission *a)
{
	const struct mwin_wire_hello_tenant *h = conn->private_data;

	if (conn->private_data_len < sizeof(*h) || !tenant_name_ok(h->tenant))
		return MWIN_REJECT_BAD_HELLO;
	/* version 4 has no nonce in its hello: the proof brings one */
	if (h->version == MWIN_WIRE_VERSION_PROOF &&
	    memchr_inv(h->nonce, 0, sizeof(h->nonce)))
		return MWIN_REJECT_BAD_HELLO;
	a->tenant = tenant_find(h->tenant);
	return a->tenant ? 0 : MWIN_REJECT_UNKNOWN_TENANT;
}

/* A version 4 request with a proof: its tenant, by id. */
static int admit_read_proof_req(const struct rdma_conn_param *conn,
				struct mwin_admission *a)
{
	const struct mwin_wire_proof_req *r = conn->private_data;
	u32 id = le32_to_cpu(r->tenant);

	if (conn->private_data_len < sizeof(*r) ||
	    memchr_inv(r->__reserved, 0, sizeof(r->__reserved)))
		return MWIN_REJECT_BAD_HELLO;
	a->proof_req = true;
	memcpy(a->challenge, r->challenge, sizeof(a->challenge));
	memcpy(a->nonce, r->nonce, sizeof(a->nonce));
	memcpy(a->proof, r->proof, sizeof(a->proof));
	a->tenant = tenant_lookup(id, &mwin_module_caller);
	return a->tenant ? 0 : MWIN_REJECT_UNKNOWN_TENANT;
}

/* The hello, or a request with a proof, and the tenant it names. */
static int admit_read_hello(const struct rdma_conn_param *conn,
			    struct mwin_admission *a)
{
	const struct mwin_wire_hello_tenant *h = conn->private_data;

	/* version 2 hellos are 8 bytes; the CM pads private data with zeros */
	if (conn->private_data_len < sizeof(struct mwin_wire_hello) ||
	    le32_to_cpu(h->magic) != MWIN_WIRE_MAGIC)
		return MWIN_REJECT_BAD_HELLO;
	a->version = h->version;
	/* in version 4 the first reserved byte is the request's type */
	if (h->version == MWIN_WIRE_VERSION_PROOF &&
	    h->__reserved[0] == MWIN_WIRE_PROOF_REQ)
		return admit_read_proof_req(conn, a);
	if (memchr_inv(h->__reserved, 0, sizeof(h->__reserved)))
		return MWIN_REJECT_BAD_HELLO;
	if (h->version == MWIN_WIRE_VERSION)
		return 0;
	if (h->version != MWIN_WIRE_VERSION_TENANT &&
	    h->version != MWIN_WIRE_VERSION_PROOF)
		return MWIN_REJECT_BAD_HELLO;
	return admit_read_tenant_hello(conn, a);
}

static bool admit_device_ok(struct ib_device *ibdev)
{
	const char *name = dev_name(&ibdev->dev), *list = mwin_devices;
	size_t len = strlen(name);

	if (!*list)
		return true;
	while (*list) {
		size_t n = strcspn(list, ",");

		if (n == len && !strncmp(list, name, n))
			return true;
		list += n + !!list[n];
	}
	return false;
}

/* @sa as 4 bytes (IPv4, also IPv4-mapped IPv6) or 16; its family, 4 or 6. */
static u8 admit_addr_bytes(const struct sockaddr *sa, const u8 **bytes)
{
	const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)sa;

	if (sa->sa_family == AF_INET) {
		*bytes = (const u8 *)&((const struct sockaddr_in *)sa)->sin_addr;
		return 4;
	}
	if (ipv6_addr_v4mapped(&sin6->sin6_addr)) {
		*bytes = (const u8 *)&sin6->sin6_addr.s6_addr32[3];
		return 4;
	}
	*bytes = sin6->sin6_addr.s6_addr;
	return 6;
}

static bool admit_net_match(const struct mwin_tenant_net *n, u8 family,
			    const u8 *addr)
{
	unsigned int full = n->prefix_len / 8, rest = n->prefix_len % 8;

	if (n->family != family || memcmp(n->addr, addr, full))
		return false;
	return !rest || !((n->addr[full] ^ addr[full]) & (0xff << (8 - rest)));
}

/* Under @t->lock. */
static bool admit_addr_allowed(const struct mwin_tenant *t,
			       const struct sockaddr *sa)
{
	const u8 *addr;
	u8 family = admit_addr_bytes(sa, &addr);
	u32 i;

	if (!t->nr_allow)
		return true;
	for (i = 0; i < t->nr_allow; i++)
		if (admit_net_match(&t->allow[i], family, addr))
			return true;
	return false;
}

/*
 * Source addresses: a token bucket each, conn_rate tokens a second up to
 * conn_rate, and a count of their connections in their handshake, in a
 * small table. An IPv6 address counts by its /64, which one host can
 * rotate through. The table is keyed with a secret (siphash), so nobody
 * picks whose entry they share: addresses that collide share one bucket and
 * one count, which is only ever stricter. No entry starts over for a
 * newcomer.
 */
#define ADMIT_SOURCES		256
#define ADMIT_HALF_OPEN_PER_SOURCE	16

struct admit_source {
	u64 milli;		/* tokens, in thousandths */
	unsigned long stamp;	/* jiffies of the last refill; 0: never */
	u32 half_open;
};

static DEFINE_SPINLOCK(admit_sources_lock);
static struct admit_source admit_sources[ADMIT_SOURCES];
static siphash_key_t admit_source_key;

/* @sa as the rate table counts it: its family, then 4 or 8 bytes. */
void admit_source_bytes(const struct sockaddr *sa, u8 key[1 + 8])
{
	const u8 *addr;

	memset(key, 0, 1 + 8);
	key[0] = admit_addr_bytes(sa, &addr);
	memcpy(key + 1, addr, key[0] == 4 ? 4 : 8);
}

static u16 admit_source(const struct sockaddr *sa)
{
	u8 key[1 + 8];

	admit_source_bytes(sa, key);
	get_random_once(&admit_source_key, sizeof(admit_source_key));
	return siphash(key, sizeof(key), &admit_source_key) % ADMIT_SOURCES;
}

static bool admit_rate_ok(u16 source)
{
	u64 rate = READ_ONCE(mwin_conn_rate), full = rate * 1000;
	struct admit_source *s = &admit_sources[source];
	bool ok;

	if (!rate)
		return true;
	spin_lock(&admit_sources_lock);
	if (!s->stamp)
		s->milli = full;
	else
		s->milli = min(full, s->milli + rate *
			       jiffies_to_msecs(jiffies - s->stamp));
	s->stamp = jiffies ?: 1;
	ok = s->milli >= 1000;
	if (ok)
		s->milli -= 1000;
	spin_unlock(&admit_sources_lock);
	return ok;
}

static bool admit_source_hold(u16 source)
{
	struct admit_source *s = &admit_sources[source];
	bool ok;

	spin_lock(&admit_sources_lock);
	ok = s->half_open < ADMIT_HALF_OPEN_PER_SOURCE;
	if (ok)
		s->half_open++;
	spin_unlock(&admit_sources_lock);
	return ok;
}

static void admit_source_put(u16 source)
{
	spin_lock(&admit_sources_lock);
	admit_sources[source].half_open--;
	spin_unlock(&admit_sources_lock);
}

/*
 * Slots. A request takes a handshake slot: the module's (max_half_open),
 * its tenant's (as many as its max_conns) and its source address's. When
 * the handshake is over (established) the peer trades it for a connection
 * slot: the module's (max_peers) and its tenant's (max_conns) or an
 * anonymous one (max_anon_peers). Strangers who cannot prove a tenant's
 * key never hold a slot of its: they are refused before they take one.
 */
static atomic_t mwin_nr_half_open = ATOMIC_INIT(0);

/* Is a connection slot free, for a request to ask for a handshake slot? */
static int admit_slot_free(struct mwin_tenant *t, const struct sockaddr *sa)
{
	int why = 0;

	if (t) {
		spin_lock(&t->lock);
		if (!admit_addr_allowed(t, sa))
			why = MWIN_REJECT_ADDRESS;
		else if (t->nr_conns >= t->max_conns)
			why = MWIN_REJECT_QUOTA;
		spin_unlock(&t->lock);
	} else if (!READ_ONCE(mwin_anonymous)) {
		why = MWIN_REJECT_ANONYMOUS;
	} else if (atomic_read(&mwin_nr_anon) >=
		   READ_ONCE(mwin_max_anon_peers)) {
		why = MWIN_REJECT_PEER_LIMIT;
	}
	if (!why &&
	    atomic_read(&mwin_nr_peers) >= READ_ONCE(mwin_max_peers))
		why = MWIN_REJECT_PEER_LIMIT;
	return why;
}

static bool admit_tenant_half_open(struct mwin_tenant *t, int delta)
{
	bool ok = true;

	spin_lock(&t->lock);
	if (delta > 0)
		ok = t->nr_half_open < t->max_conns;
	if (ok)
		t->nr_half_open += delta;
	spin_unlock(&t->lock);
	return ok;
}

static int admit_hold_half_open(struct mwin_admission *a)
{
	if (atomic_inc_return(&mwin_nr_half_open) >
	    READ_ONCE(mwin_max_half_open))
		goto full;
	if (a->tenant && !admit_tenant_half_open(a->tenant, 1))
		goto full;
	if (!admit_source_hold(a->source)) {
		if (a->tenant)
			admit_tenant_half_open(a->tenant, -1);
		goto full;
	}
	a->half_open = true;
	return 0;
full:
	atomic_dec(&mwin_nr_half_open);
	return MWIN_REJECT_HALF_OPEN;
}

static void admit_put_half_open(struct mwin_tenant *t, u16 source)
{
	admit_source_put(source);
	if (t)
		admit_tenant_half_open(t, -1);
	atomic_dec(&mwin_nr_half_open);
}

static int admit_take_slot(struct mwin_tenant *t)
{
	int why = 0;

	if (atomic_inc_return(&mwin_nr_peers) > READ_ONCE(mwin_max_peers)) {
		atomic_dec(&mwin_nr_peers);
		return MWIN_REJECT_PEER_LIMIT;
	}
	if (t) {
		spin_lock(&t->lock);
		if (t->nr_conns >= t->max_conns) {
			why = MWIN_REJECT_QUOTA;
		} else {
			t->nr_conns++;
			t->connects++;
		}
		spin_unlock(&t->lock);
	} else if (atomic_inc_return(&mwin_nr_anon) >
		   READ_ONCE(mwin_max_anon_peers)) {
		atomic_dec(&mwin_nr_anon);
		why = MWIN_REJECT_PEER_LIMIT;
	}
	if (why)
		atomic_dec(&mwin_nr_peers);
	return why;
}

static void admit_put_slot(struct mwin_tenant *t)
{
	if (t) {
		spin_lock(&t->lock);
		t->nr_conns--;
		spin_unlock(&t->lock);
	} else {
		atomic_dec(&mwin_nr_anon);
	}
	atomic_dec(&mwin_nr_peers);
}

/*
 * A tenant with a key: a hello gets a challenge, a request with a proof
 * is checked, challenge first, then the proof, then the challenge's use.
 * A request with a good challenge took no rate token (admit_request());
 * one whose proof is wrong takes one, or is refused for the rate: guesses
 * cost what connections cost.
 */
static int admit_check_proof(struct mwin_admission *a)
{
	if (!a->proof_req)
		return proof_keyed(a->tenant) ? MWIN_REJECT_CHALLENGE : 0;
	if (!a->expiry)
		return MWIN_REJECT_BAD_PROOF;
	if (!proof_ok(a))
		return admit_rate_ok(a->source) ? MWIN_REJECT_BAD_PROOF :
						  MWIN_REJECT_RATE;
	return proof_challenge_use(a);
}

/**
 * admit_reject() - refuse a CONNECT_REQUEST, saying why
 * @id: its CM id
 * @t: the tenant it named, or NULL
 * @why: the reason, counted and put in the REJ's private data
 */
void admit_reject(struct rdma_cm_id *id, struct mwin_tenant *t,
		  enum mwin_wire_reject_reason why)
{
	struct mwin_wire_challenge rej = {
		.magic = cpu_to_le32(MWIN_WIRE_MAGIC),
		.version = MWIN_WIRE_VERSION_PROOF,
		.reason = why,
	};

	admit_count(t, why);
	if (why == MWIN_REJECT_CHALLENGE) {
		/* the handshake's first step, not a refusal */
		rej.tenant = cpu_to_le32(t->obj.id);
		proof_challenge_make(t, (struct sockaddr *)&id->route.addr.dst_addr,
				     rej.challenge);
		rdma_reject(id, &rej, sizeof(rej), IB_CM_REJ_CONSUMER_DEFINED);
		return;
	}
	pr_info_ratelimited("mwin: refused a peer from %pISpc%s%s: %s\n",
			    &id->route.addr.dst_addr, t ? " as " : "",
			    t ? t->name : "", admit_why[why]);
	rdma_reject(id, &rej, sizeof(struct mwin_wire_reject),
		    IB_CM_REJ_CONSUMER_DEFINED);
}

/**
 * admit_request() - may this CONNECT_REQUEST become a peer?
 * @id: its CM id
 * @conn: its parameters and private data
 * @a: filled in: the hello, and the tenant (referenced) it named
 *
 * On 0 the request holds a handshake slot until admit_undo() or, once a
 * peer has it, admit_peer_up() or admit_peer_gone().
 *
 * Return: 0, or an enum mwin_wire_reject_reason; @a->tenant may be set
 * then too (for the counts): admit_undo() drops it.
 */
int admit_request(struct rdma_cm_id *id, const struct rdma_conn_param *conn,
		  struct mwin_admission *a)
{
	const struct sockaddr *sa = (struct sockaddr *)&id->route.addr.dst_addr;
	int why;

	memset(a, 0, sizeof(*a));
	why = admit_read_hello(conn, a);
	if (why)
		return why;
	/* else a stranger would just speak version 3 */
	if (a->version == MWIN_WIRE_VERSION_TENANT && proof_keyed(a->tenant))
		return MWIN_REJECT_BAD_HELLO;
	if (!admit_device_ok(id->device))
		return MWIN_REJECT_DEVICE;
	a->source = admit_source(sa);
	/* a connection costs one token: a good challenge's hello took it */
	if (a->proof_req)
		a->expiry = proof_challenge_expiry(a, sa);
	if (!a->expiry && !admit_rate_ok(a->source))
		return MWIN_REJECT_RATE;
	/*
	 * The peer's REQ sets the RNR retries of the module's own QP; 7 is
	 * "forever": a peer that then takes no SEND would stall the send
	 * queue, and every revoke on it, for good.
	 */
	if (conn->rnr_retry_count >= 7)
		return MWIN_REJECT_RNR_RETRY;
	why = admit_slot_free(a->tenant, sa);
	if (!why && a->tenant)
		why = admit_check_proof(a);
	return why ?: admit_hold_half_open(a);
}

/* A request refused, or whose setup failed: give back what it took. */
void admit_undo(struct mwin_admission *a)
{
	if (a->half_open)
		admit_put_half_open(a->tenant, a->source);
	if (a->tenant)
		tenant_put(a->tenant);
}

/**
 * admit_take() - a new peer takes what its request was admitted with
 * @p: the peer
 * @a: from admit_request(), which returned 0
 *
 * Ownership of the handshake slot and of the tenant's reference passes to
 * @p: admit_peer_up() or admit_peer_gone() gives the slot back,
 * peer_release() the tenant.
 */
void admit_take(struct mwin_peer *p, struct mwin_admission *a)
{
	p->tenant = a->tenant;
	p->source = a->source;
	if (a->half_open)
		set_bit(MWIN_PEER_HALF_OPEN, &p->flags);
	a->tenant = NULL;
	a->half_open = false;
}

/**
 * admit_peer_up() - the handshake of @p is over: trade its slot
 * @p: the peer, under its lock
 *
 * Return: 0, or why no connection slot was left (@p keeps none then).
 */
int admit_peer_up(struct mwin_peer *p)
{
	int why = admit_take_slot(p->tenant);

	if (!why)
		set_bit(MWIN_PEER_SLOT, &p->flags);
	if (test_and_clear_bit(MWIN_PEER_HALF_OPEN, &p->flags))
		admit_put_half_open(p->tenant, p->source);
	return why;
}

/* The peer's teardown, or a setup undone: its slot, its tenant's list. */
void admit_peer_gone(struct mwin_peer *p)
{
	if (test_and_clear_bit(MWIN_PEER_HALF_OPEN, &p->flags))
		admit_put_half_open(p->tenant, p->source);
	if (test_and_clear_bit(MWIN_PEER_SLOT, &p->flags))
		admit_put_slot(p->tenant);
	if (p->tenant)
		tenant_del_peer(p->tenant, p);
}

/*
 * The accept of a tenant's peer: its ids, and with a key the module's
 * proof. A key set since the request was admitted without a proof, or
 * gone since it was proved: no connection.
 */
static int admit_accept_tenant(struct mwin_peer *p,
			       const struct mwin_admission *a,
			       struct mwin_wire_accept_tenant *acc)
{
	struct mwin_tenant *t = p->tenant;
	int ret = 0;

	acc->magic = cpu_to_le32(MWIN_WIRE_MAGIC);
	acc->version = a->version;
	acc->peer = cpu_to_le32(p->obj.id);
	acc->tenant = cpu_to_le32(t->obj.id);
	spin_lock(&t->lock);
	if (!t->tfm != !a->proof_req)
		ret = -EACCES;
	else if (t->tfm)
		ret = proof_hmac(t, "mwin-module-4", a->nonce, sizeof(a->nonce),
				 a->challenge, sizeof(a->challenge), p->obj.id,
				 acc->proof);
	spin_unlock(&t->lock);
	if (a->proof_req)
		acc->flags = MWIN_WIRE_PROOF_NEEDED;
	return ret;
}

/**
 * admit_accept_data() - the accept's private data for a new peer
 * @p: the peer, its id reserved, after admit_take()
 * @a: what its request was admitted with
 * @buf: filled with the accept
 *
 * Return: its length, or an errno.
 */
int admit_accept_data(struct mwin_peer *p, const struct mwin_admission *a,
		      union mwin_accept_buf *buf)
{
	int ret;

	if (!p->tenant) {
		buf->anon = (struct mwin_wire_accept) {
			.magic = cpu_to_le32(MWIN_WIRE_MAGIC),
			.version = MWIN_WIRE_VERSION,
			.peer = cpu_to_le32(p->obj.id),
		};
		return sizeof(buf->anon);
	}
	memset(&buf->tenant, 0, sizeof(buf->tenant));
	ret = admit_accept_tenant(p, a, &buf->tenant);
	return ret ?: sizeof(buf->tenant);
}
