// SPDX-License-Identifier: GPL-2.0
/*
 * Admission: whether a CONNECT_REQUEST may become a peer, decided from its
 * hello, its device and its source address before the module spends
 * anything on it (no PD, no QP), and the tenant handshake that follows.
 *
 * A version 2 hello is an anonymous peer: admitted while the anonymous
 * parameter is set, up to max_anon_peers at once. A version 3 hello names a
 * tenant: admitted from the tenant's prefixes, up to its max_conns. Every
 * source address may connect conn_rate times a second (a token bucket),
 * whoever it claims to be. A refusal is a REJ whose private data says why
 * (struct mwin_wire_reject), counted for the module and the tenant named.
 *
 * A tenant with a key proves itself both ways with HMAC-SHA256 over nonces
 * of both sides (Documentation/wire.rst): the module's proof goes in the
 * accept, the peer's comes as its first SEND. Each connection gets a new
 * module nonce, so a recorded handshake proves nothing when replayed.
 */
#include <crypto/algapi.h>
#include <crypto/hash.h>
#include <linux/inet.h>
#include <linux/jhash.h>
#include <linux/random.h>
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
	[MWIN_REJECT_ANONYMOUS] = "anonymous peers refused",
	[MWIN_REJECT_UNKNOWN_TENANT] = "unknown tenant",
	[MWIN_REJECT_ADDRESS] = "address not allowed",
	[MWIN_REJECT_QUOTA] = "tenant over its connection quota",
	[MWIN_REJECT_PEER_LIMIT] = "peer limit reached",
	[MWIN_REJECT_RATE] = "too many connections from the address",
	[MWIN_REJECT_RNR_RETRY] = "RNR retry count 7 (infinite)",
	[MWIN_REJECT_SETUP] = "cannot set up the connection",
	[MWIN_REJECT_DEVICE] = "device not served",
	[MWIN_REJECT_BAD_PROOF] = "bad tenant proof",
	[MWIN_REJECT_NO_PROOF] = "no tenant proof",
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

/**
 * admit_reject() - refuse a CONNECT_REQUEST, saying why
 * @id: its CM id
 * @t: the tenant it named, or NULL
 * @why: the reason, counted and put in the REJ's private data
 */
void admit_reject(struct rdma_cm_id *id, struct mwin_tenant *t,
		  enum mwin_wire_reject_reason why)
{
	struct mwin_wire_reject rej = {
		.magic = cpu_to_le32(MWIN_WIRE_MAGIC),
		.version = MWIN_WIRE_VERSION_TENANT,
		.reason = why,
	};

	admit_count(t, why);
	pr_info_ratelimited("mwin: refused a peer from %pISpc%s%s: %s\n",
			    &id->route.addr.dst_addr, t ? " as " : "",
			    t ? t->name : "", admit_why[why]);
	rdma_reject(id, &rej, sizeof(rej), IB_CM_REJ_CONSUMER_DEFINED);
}

/* The hello, version 2 or 3; a tenant's name is checked, not looked up. */
static int admit_read_hello(const struct rdma_conn_param *conn,
			    struct mwin_admission *a)
{
	const struct mwin_wire_hello_tenant *h = conn->private_data;

	/* version 2 hellos are 8 bytes; the CM pads private data with zeros */
	if (conn->private_data_len < sizeof(struct mwin_wire_hello) ||
	    le32_to_cpu(h->magic) != MWIN_WIRE_MAGIC ||
	    memchr_inv(h->__reserved, 0, sizeof(h->__reserved)))
		return MWIN_REJECT_BAD_HELLO;
	a->version = h->version;
	if (h->version == MWIN_WIRE_VERSION)
		return 0;
	if (h->version != MWIN_WIRE_VERSION_TENANT ||
	    conn->private_data_len < sizeof(*h) || !tenant_name_ok(h->tenant))
		return MWIN_REJECT_BAD_HELLO;
	memcpy(a->nonce, h->nonce, sizeof(a->nonce));
	return 0;
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
 * The rate limit: a token bucket per source address, conn_rate tokens a
 * second up to conn_rate, in a small table. Addresses that share a slot
 * take it from each other (the newcomer starts full): a table an attacker
 * can churn, but then a slot is only ever as strict as one address's.
 */
#define ADMIT_RATE_SLOTS	256

struct admit_rate {
	u8 addr[16];
	u64 milli;		/* tokens, in thousandths */
	unsigned long stamp;	/* jiffies of the last refill */
};

static DEFINE_SPINLOCK(admit_rate_lock);
static struct admit_rate admit_rates[ADMIT_RATE_SLOTS];

static bool admit_rate_ok(const struct sockaddr *sa)
{
	u64 rate = READ_ONCE(mwin_conn_rate), full = rate * 1000;
	struct admit_rate *r;
	u8 key[16] = {};
	const u8 *addr;
	bool ok;

	if (!rate)
		return true;
	if (admit_addr_bytes(sa, &addr) == 4)
		memcpy(key, addr, 4);
	else
		memcpy(key, addr, 16);
	r = &admit_rates[jhash(key, sizeof(key), 0) % ADMIT_RATE_SLOTS];

	spin_lock(&admit_rate_lock);
	if (memcmp(r->addr, key, sizeof(key)) || !r->stamp) {
		memcpy(r->addr, key, sizeof(key));
		r->milli = full;
	} else {
		r->milli = min(full, r->milli + rate *
			       jiffies_to_msecs(jiffies - r->stamp));
	}
	r->stamp = jiffies;
	ok = r->milli >= 1000;
	if (ok)
		r->milli -= 1000;
	spin_unlock(&admit_rate_lock);
	return ok;
}

/* Take one of @t's connections. */
static int admit_tenant(struct mwin_tenant *t, const struct sockaddr *sa)
{
	int why = 0;

	spin_lock(&t->lock);
	if (!admit_addr_allowed(t, sa))
		why = MWIN_REJECT_ADDRESS;
	else if (t->nr_conns >= t->max_conns)
		why = MWIN_REJECT_QUOTA;
	if (!why) {
		t->nr_conns++;
		t->connects++;
	}
	spin_unlock(&t->lock);
	return why;
}

static int admit_anonymous(void)
{
	if (!READ_ONCE(mwin_anonymous))
		return MWIN_REJECT_ANONYMOUS;
	if (atomic_inc_return(&mwin_nr_anon) > READ_ONCE(mwin_max_anon_peers)) {
		atomic_dec(&mwin_nr_anon);
		return MWIN_REJECT_ANONYMOUS;
	}
	return 0;
}

/**
 * admit_request() - may this CONNECT_REQUEST become a peer?
 * @id: its CM id
 * @conn: its parameters and private data
 * @a: filled in: the hello, and the tenant (referenced) it named
 *
 * On 0 the request holds a connection slot (anonymous, or of @a->tenant)
 * until admit_undo() or, once a peer has it, admit_peer_gone().
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
	if (a->version == MWIN_WIRE_VERSION_TENANT) {
		const struct mwin_wire_hello_tenant *h = conn->private_data;

		a->tenant = tenant_find(h->tenant);
		if (!a->tenant)
			return MWIN_REJECT_UNKNOWN_TENANT;
	}
	if (!admit_device_ok(id->device))
		return MWIN_REJECT_DEVICE;
	if (!admit_rate_ok(sa))
		return MWIN_REJECT_RATE;
	/*
	 * The peer's REQ sets the RNR retries of the module's own QP; 7 is
	 * "forever": a peer that then takes no SEND would stall the send
	 * queue, and every revoke on it, for good.
	 */
	if (conn->rnr_retry_count >= 7)
		return MWIN_REJECT_RNR_RETRY;
	why = a->tenant ? admit_tenant(a->tenant, sa) : admit_anonymous();
	a->slot = !why;
	return why;
}

static void admit_give_back(struct mwin_tenant *t)
{
	if (!t) {
		atomic_dec(&mwin_nr_anon);
		return;
	}
	spin_lock(&t->lock);
	t->nr_conns--;
	spin_unlock(&t->lock);
}

/* A request refused, or whose setup failed: give back what it took. */
void admit_undo(struct mwin_admission *a)
{
	if (a->slot)
		admit_give_back(a->tenant);
	if (a->tenant)
		tenant_put(a->tenant);
}

/**
 * admit_take() - a new peer takes what its request was admitted with
 * @p: the peer
 * @a: from admit_request(), which returned 0
 *
 * Ownership of the connection slot and of the tenant's reference passes to
 * @p: admit_peer_gone() gives the slot back, peer_release() the tenant.
 */
void admit_take(struct mwin_peer *p, struct mwin_admission *a)
{
	p->tenant = a->tenant;
	a->tenant = NULL;
	a->slot = false;
}

/* The peer's teardown, or a setup undone: its slot, its tenant's list. */
void admit_peer_gone(struct mwin_peer *p)
{
	admit_give_back(p->tenant);
	if (p->tenant)
		tenant_del_peer(p->tenant, p);
}

/*
 * HMAC-SHA256(key, @label | @a | @b | @peer as 4 bytes little-endian), the
 * proofs of Documentation/wire.rst. Under @t->lock: TENANT_SET may swap the
 * transform.
 */
static int admit_proof(struct mwin_tenant *t, const char *label,
		       const u8 *a, const u8 *b, u32 peer, u8 *out)
{
	u8 buf[16 + 2 * MWIN_WIRE_NONCE_LEN + sizeof(__le32)];
	size_t n = strlen(label);
	__le32 id = cpu_to_le32(peer);
	SHASH_DESC_ON_STACK(desc, t->tfm);
	int ret;

	memcpy(buf, label, n);
	memcpy(buf + n, a, MWIN_WIRE_NONCE_LEN);
	memcpy(buf + n + MWIN_WIRE_NONCE_LEN, b, MWIN_WIRE_NONCE_LEN);
	memcpy(buf + n + 2 * MWIN_WIRE_NONCE_LEN, &id, sizeof(id));
	desc->tfm = t->tfm;
	ret = crypto_shash_digest(desc, buf, n + 2 * MWIN_WIRE_NONCE_LEN +
				  sizeof(id), out);
	shash_desc_zero(desc);
	return ret;
}

/*
 * The accept of a tenant's peer: its ids, and with a key the module's
 * nonce and proof; the proof the peer must send back is kept in @p.
 */
static int admit_accept_tenant(struct mwin_peer *p, const u8 *peer_nonce,
			       struct mwin_wire_accept_tenant *acc)
{
	struct mwin_tenant *t = p->tenant;
	int ret = 0;

	acc->magic = cpu_to_le32(MWIN_WIRE_MAGIC);
	acc->version = MWIN_WIRE_VERSION_TENANT;
	acc->peer = cpu_to_le32(p->obj.id);
	acc->tenant = cpu_to_le32(t->obj.id);
	get_random_bytes(acc->nonce, sizeof(acc->nonce));
	spin_lock(&t->lock);
	if (t->tfm) {
		acc->flags = MWIN_WIRE_PROOF_NEEDED;
		ret = admit_proof(t, "mwin-module", peer_nonce, acc->nonce,
				  p->obj.id, acc->proof) ?:
		      admit_proof(t, "mwin-peer", acc->nonce, peer_nonce,
				  p->obj.id, p->proof);
	}
	spin_unlock(&t->lock);
	if (!acc->flags)
		memset(acc->nonce, 0, sizeof(acc->nonce));
	return ret;
}

/**
 * admit_accept_data() - the accept's private data for a new peer
 * @p: the peer, its id reserved, after admit_take()
 * @peer_nonce: the nonce of its hello
 * @buf: filled with the accept
 *
 * A peer that owes no proof is authentic at once.
 *
 * Return: its length, or an errno.
 */
int admit_accept_data(struct mwin_peer *p, const u8 *peer_nonce,
		      union mwin_accept_buf *buf)
{
	int ret;

	if (!p->tenant) {
		buf->anon = (struct mwin_wire_accept) {
			.magic = cpu_to_le32(MWIN_WIRE_MAGIC),
			.version = MWIN_WIRE_VERSION,
			.peer = cpu_to_le32(p->obj.id),
		};
		set_bit(MWIN_PEER_AUTHENTIC, &p->flags);
		return sizeof(buf->anon);
	}
	memset(&buf->tenant, 0, sizeof(buf->tenant));
	ret = admit_accept_tenant(p, peer_nonce, &buf->tenant);
	if (ret)
		return ret;
	if (buf->tenant.flags & MWIN_WIRE_PROOF_NEEDED)
		set_bit(MWIN_PEER_NEEDS_PROOF, &p->flags);
	else
		set_bit(MWIN_PEER_AUTHENTIC, &p->flags);
	return sizeof(buf->tenant);
}

/**
 * admit_check_proof() - is this the proof @p owes?
 * @p: a peer whose tenant has a key
 * @m: the 64 bytes of its first SEND
 *
 * Return: true when it is; the caller counts and disconnects otherwise.
 */
bool admit_check_proof(const struct mwin_peer *p,
		       const struct mwin_wire_proof *m)
{
	return le32_to_cpu(m->magic) == MWIN_WIRE_MAGIC &&
	       m->version == MWIN_WIRE_VERSION_TENANT &&
	       m->type == MWIN_WIRE_PROOF &&
	       !memchr_inv(m->__reserved0, 0, sizeof(m->__reserved0)) &&
	       !memchr_inv(m->__reserved, 0, sizeof(m->__reserved)) &&
	       !crypto_memneq(m->proof, p->proof, sizeof(p->proof));
}
