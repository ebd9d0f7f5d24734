// SPDX-License-Identifier: GPL-2.0
/*
 * A tenant's proof, in the connect request (Documentation/wire.rst, "The
 * tenant handshake"): the challenges the module hands out, MACed with a
 * secret so that it keeps nothing of them; the HMAC-SHA256 proofs of both
 * sides; and the challenges proved, each good for one connection. The
 * admission decisions around them are admit.c's.
 */
#include <crypto/algapi.h>
#include <crypto/hash.h>
#include <linux/random.h>
#include <linux/siphash.h>

#include "mwin.h"

/* Has @t a key? TENANT_SET may swap its transform under its lock. */
bool proof_keyed(struct mwin_tenant *t)
{
	bool keyed;

	spin_lock(&t->lock);
	keyed = t->tfm;
	spin_unlock(&t->lock);
	return keyed;
}

/*
 * HMAC-SHA256(key, @label | @a | @b | @id as 4 bytes little-endian), the
 * proofs of Documentation/wire.rst. Under @t->lock, with a key.
 */
int proof_hmac(struct mwin_tenant *t, const char *label,
	       const u8 *a, size_t a_len, const u8 *b, size_t b_len,
	       u32 id, u8 out[MWIN_WIRE_PROOF_LEN])
{
	u8 buf[16 + MWIN_WIRE_CHALLENGE_LEN + MWIN_WIRE_PEER_NONCE_LEN + 4];
	size_t n = strlen(label);
	__le32 le_id = cpu_to_le32(id);
	SHASH_DESC_ON_STACK(desc, t->tfm);
	int ret;

	memcpy(buf, label, n);
	memcpy(buf + n, a, a_len);
	memcpy(buf + n + a_len, b, b_len);
	memcpy(buf + n + a_len + b_len, &le_id, sizeof(le_id));
	desc->tfm = t->tfm;
	ret = crypto_shash_digest(desc, buf, n + a_len + b_len + sizeof(le_id),
				  out);
	shash_desc_zero(desc);
	return ret;
}

/*
 * Challenges: expiry (the low 32 bits of the module's clock, in ms) |
 * salt | MAC, the MAC a siphash with a secret of the module's over the
 * whole expiry, the salt, the tenant and the source address. The module
 * keeps nothing of the challenges it hands out, only of those proved
 * (proof_challenge_use()); a challenge from the clock's last lap (49 days)
 * does not verify, its expiry taken for one of this lap.
 */
struct proof_challenge {
	__le32 expiry;
	u8 salt[4];
	__le64 mac;
};

static siphash_key_t proof_challenge_key;

static u64 proof_now_ms(void)
{
	return jiffies64_to_msecs(get_jiffies_64());
}

static __le64 proof_challenge_mac(u64 expiry, const u8 salt[4], u32 tenant,
				  const struct sockaddr *sa)
{
	struct {
		__le64 expiry;
		u8 salt[4];
		__le32 tenant;
		u8 source[1 + 8];
	} __packed in = {
		.expiry = cpu_to_le64(expiry),
		.tenant = cpu_to_le32(tenant),
	};

	memcpy(in.salt, salt, sizeof(in.salt));
	admit_source_bytes(sa, in.source);
	get_random_once(&proof_challenge_key, sizeof(proof_challenge_key));
	return cpu_to_le64(siphash(&in, sizeof(in), &proof_challenge_key));
}

void proof_challenge_make(struct mwin_tenant *t,
			  const struct sockaddr *sa,
			  u8 out[MWIN_WIRE_CHALLENGE_LEN])
{
	u64 expiry = proof_now_ms() + READ_ONCE(mwin_auth_timeout_ms);
	struct proof_challenge c = { .expiry = cpu_to_le32((u32)expiry) };

	BUILD_BUG_ON(sizeof(c) != MWIN_WIRE_CHALLENGE_LEN);
	get_random_bytes(c.salt, sizeof(c.salt));
	c.mac = proof_challenge_mac(expiry, c.salt, t->obj.id, sa);
	memcpy(out, &c, sizeof(c));
}

/* The challenge's expiry, if the module issued it and it is still good. */
u64 proof_challenge_expiry(const struct mwin_admission *a,
			   const struct sockaddr *sa)
{
	struct proof_challenge c;
	u64 now = proof_now_ms(), expiry;
	__le64 want;

	memcpy(&c, a->challenge, sizeof(c));
	expiry = now + (s32)(le32_to_cpu(c.expiry) - (u32)now);
	if (expiry <= now || expiry - now > READ_ONCE(mwin_auth_timeout_ms))
		return 0;
	want = proof_challenge_mac(expiry, c.salt, a->tenant->obj.id, sa);
	return crypto_memneq(&c.mac, &want, sizeof(want)) ? 0 : expiry;
}

/* Is the request's proof the tenant's? False without a key. */
bool proof_ok(const struct mwin_admission *a)
{
	struct mwin_tenant *t = a->tenant;
	u8 want[MWIN_WIRE_PROOF_LEN];
	bool ok;

	spin_lock(&t->lock);
	ok = t->tfm && !proof_hmac(t, "mwin-peer-4", a->challenge,
				   sizeof(a->challenge), a->nonce,
				   sizeof(a->nonce), t->obj.id, want) &&
	     !crypto_memneq(want, a->proof, sizeof(a->proof));
	spin_unlock(&t->lock);
	memzero_explicit(want, sizeof(want));
	return ok;
}

/*
 * Challenges proved, until they expire: each is good once. Only key
 * holders fill the list, and a tenant at most a quarter of it, so that one
 * tenant reconnecting fast cannot keep the others out; a request that
 * finds no room is refused (half-open).
 */
#define PROOF_USED		1024
#define PROOF_USED_PER_TENANT	(PROOF_USED / 4)

struct proof_used {
	u64 expiry;		/* ms of the module's clock; 0: free */
	u32 tenant;
	u8 challenge[MWIN_WIRE_CHALLENGE_LEN];
};

static DEFINE_SPINLOCK(proof_used_lock);
static struct proof_used proof_used[PROOF_USED];

int proof_challenge_use(const struct mwin_admission *a)
{
	struct proof_used *free = NULL, *u;
	u32 tenant = a->tenant->obj.id;
	u64 now = proof_now_ms();
	unsigned int held = 0;
	int why = 0;

	spin_lock(&proof_used_lock);
	for (u = proof_used; u < proof_used + PROOF_USED; u++) {
		if (u->expiry <= now) {
			free = free ?: u;
			continue;
		}
		if (!memcmp(u->challenge, a->challenge, sizeof(u->challenge))) {
			why = MWIN_REJECT_BAD_PROOF;
			break;
		}
		held += u->tenant == tenant;
	}
	if (!why && (!free || held >= PROOF_USED_PER_TENANT))
		why = MWIN_REJECT_HALF_OPEN;
	if (!why) {
		free->expiry = a->expiry;
		free->tenant = tenant;
		memcpy(free->challenge, a->challenge, sizeof(free->challenge));
	}
	spin_unlock(&proof_used_lock);
	return why;
}
