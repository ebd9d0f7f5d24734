// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libmwinpeer: the tenant handshake: hello, challenge, proof, accept.
 */
#include "internal.h"

#include <endian.h>
#include <string.h>
#include <sys/random.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>

/* ------------------------------------------------------------ tenants */

#define LABEL_MODULE	"mwin-module"
#define LABEL_PEER	"mwin-peer"
#define LABEL_MODULE4	"mwin-module-4"
#define LABEL_PEER4	"mwin-peer-4"

/* HMAC-SHA256(key, label (no NUL) | a | b | id LE32) */
static int peer_hmac(const void *key, size_t key_len, const char *label,
		     const uint8_t *a, size_t a_len, const uint8_t *b,
		     size_t b_len, uint32_t id, uint8_t out[MWIN_WIRE_PROOF_LEN])
{
	uint8_t msg[sizeof(LABEL_MODULE4) - 1 + 2 * MWIN_WIRE_NONCE_LEN + 4];
	size_t n = strlen(label);
	uint32_t le_id = htole32(id);
	unsigned int out_len = 0;

	if (!key || key_len < MWIN_TENANT_KEY_MIN ||
	    key_len > MWIN_TENANT_KEY_MAX)
		return -EINVAL;
	memcpy(msg, label, n);
	memcpy(msg + n, a, a_len);
	n += a_len;
	memcpy(msg + n, b, b_len);
	n += b_len;
	memcpy(msg + n, &le_id, 4);
	n += 4;
	if (!HMAC(EVP_sha256(), key, (int)key_len, msg, n, out, &out_len) ||
	    out_len != MWIN_WIRE_PROOF_LEN)
		return -EIO;
	return 0;
}

int mwpeer_proof(const void *key, size_t key_len, bool module,
		 const uint8_t peer_nonce[MWIN_WIRE_NONCE_LEN],
		 const uint8_t module_nonce[MWIN_WIRE_NONCE_LEN],
		 uint32_t peer, uint8_t out[MWIN_WIRE_PROOF_LEN])
{
	if (module)
		return peer_hmac(key, key_len, LABEL_MODULE, peer_nonce,
				 MWIN_WIRE_NONCE_LEN, module_nonce,
				 MWIN_WIRE_NONCE_LEN, peer, out);
	return peer_hmac(key, key_len, LABEL_PEER, module_nonce,
			 MWIN_WIRE_NONCE_LEN, peer_nonce, MWIN_WIRE_NONCE_LEN,
			 peer, out);
}

int mwpeer_proof4(const void *key, size_t key_len, bool module,
		  const uint8_t challenge[MWIN_WIRE_CHALLENGE_LEN],
		  const uint8_t nonce[MWIN_WIRE_PEER_NONCE_LEN],
		  uint32_t id, uint8_t out[MWIN_WIRE_PROOF_LEN])
{
	if (module)
		return peer_hmac(key, key_len, LABEL_MODULE4, nonce,
				 MWIN_WIRE_PEER_NONCE_LEN, challenge,
				 MWIN_WIRE_CHALLENGE_LEN, id, out);
	return peer_hmac(key, key_len, LABEL_PEER4, challenge,
			 MWIN_WIRE_CHALLENGE_LEN, nonce,
			 MWIN_WIRE_PEER_NONCE_LEN, id, out);
}

/* the name the module takes: 1 to MWIN_TENANT_NAME_MAX - 1 of [A-Za-z0-9._-] */
bool peer_tenant_name_ok(const char *name)
{
	size_t len = strnlen(name, MWIN_TENANT_NAME_MAX);
	size_t i;

	if (!len || len >= MWIN_TENANT_NAME_MAX)
		return false;
	for (i = 0; i < len; i++) {
		char ch = name[i];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' ||
		      ch == '-'))
			return false;
	}
	return true;
}

static int peer_random(struct mwpeer *p, uint8_t *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = getrandom(buf + got, len - got, 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			peer_seterr(p, "getrandom: %s", strerror(errno));
			return -errno;
		}
		got += (size_t)n;
	}
	return 0;
}

/* the request with our proof, answering the module's challenge */
static int peer_tenant_proof_req(struct mwpeer *p)
{
	struct mwin_wire_proof_req r;
	uint8_t proof[MWIN_WIRE_PROOF_LEN];
	int e;

	memset(&r, 0, sizeof(r));
	r.magic = htole32(MWIN_WIRE_MAGIC);
	r.version = MWIN_WIRE_VERSION_PROOF;
	r.type = MWIN_WIRE_PROOF_REQ;
	r.tenant = htole32(p->hs.tenant);
	memcpy(r.challenge, p->hs.module_nonce, sizeof(r.challenge));
	e = peer_random(p, r.nonce, sizeof(r.nonce));
	if (e)
		return e;
	e = mwpeer_proof4(p->key, p->key_len, false, r.challenge, r.nonce,
			  p->hs.tenant, proof);
	if (e) {
		peer_seterr(p, "HMAC-SHA256 of the peer's proof failed");
		return e;
	}
	memcpy(r.proof, proof, sizeof(r.proof));
	memcpy(p->hs.peer_nonce, r.nonce, sizeof(r.nonce));
	memcpy(p->hs.peer_proof, r.proof, sizeof(r.proof));
	p->hs.proof_sent = true;
	memcpy(p->priv, &r, sizeof(r));
	p->priv_len = sizeof(r);
	return 0;
}

/*
 * The private data of the next connect: a version 4 hello, or once the
 * module sent a challenge (peer_tenant_challenge()) the request with our
 * proof.
 */
int peer_tenant_request(struct mwpeer *p)
{
	struct mwin_wire_hello_tenant h;
	struct mwin_wire_proof_req r;

	if (p->raw_priv) {
		/* the caller's bytes: a request with a proof tells its nonce */
		memset(&p->hs, 0, sizeof(p->hs));
		memcpy(&r, p->priv, p->priv_len < sizeof(r) ? p->priv_len :
		       sizeof(r));
		if (p->priv_len >= sizeof(r) &&
		    r.version == MWIN_WIRE_VERSION_PROOF &&
		    r.type == MWIN_WIRE_PROOF_REQ) {
			memcpy(p->hs.peer_nonce, r.nonce, sizeof(r.nonce));
			memcpy(p->hs.module_nonce, r.challenge,
			       sizeof(r.challenge));
			memcpy(p->hs.peer_proof, r.proof, sizeof(r.proof));
			p->hs.proof_sent = true;
		}
		return 0;
	}
	if (p->hs.tenant)
		return peer_tenant_proof_req(p);
	memset(&p->hs, 0, sizeof(p->hs));
	memset(&h, 0, sizeof(h));
	h.magic = htole32(MWIN_WIRE_MAGIC);
	h.version = MWIN_WIRE_VERSION_PROOF;
	memcpy(h.tenant, p->tenant, sizeof(h.tenant));
	memcpy(p->priv, &h, sizeof(h));
	p->priv_len = sizeof(h);
	return 0;
}

/*
 * A reject with a challenge: keep it for the next connect. Return: 0 to
 * connect again, or why not.
 */
int peer_tenant_challenge(struct mwpeer *p, const void *data, size_t len)
{
	struct mwin_wire_challenge c;

	if (p->raw_priv || p->hs.tenant || len < sizeof(c))
		return -ECONNREFUSED;
	memcpy(&c, data, sizeof(c));
	if (!p->key_len) {
		peer_seterr(p, "tenant %s has a key, and none was given",
			    p->tenant);
		return -ENOKEY;
	}
	p->hs.tenant = le32toh(c.tenant);
	if (!p->hs.tenant)
		return -ECONNREFUSED;
	memcpy(p->hs.module_nonce, c.challenge, sizeof(c.challenge));
	return 0;
}

/* The accept: the ids, then with a key the module's proof checked. */
int peer_tenant_accept(struct mwpeer *p, const void *data, size_t len)
{
	struct mwin_wire_accept_tenant a;
	uint8_t want[MWIN_WIRE_PROOF_LEN];
	int r;

	if (!data || len < sizeof(a)) {
		peer_seterr(p, "accept without mwin tenant private data (%zu bytes, not %zu)",
		       data ? len : 0, sizeof(a));
		return -EPROTO;
	}
	memcpy(&a, data, sizeof(a));
	if (le32toh(a.magic) != MWIN_WIRE_MAGIC ||
	    (a.version != MWIN_WIRE_VERSION_PROOF &&
	     a.version != MWIN_WIRE_VERSION_TENANT)) {
		peer_seterr(p, "accept with magic 0x%08x version %u",
		       le32toh(a.magic), a.version);
		return -EPROTO;
	}
	p->peer_id = le32toh(a.peer);
	p->tenant_id = le32toh(a.tenant);
	p->hs.version = a.version;
	p->hs.flags = a.flags;
	p->hs.peer = p->peer_id;
	p->hs.tenant = p->tenant_id;
	memcpy(p->hs.module_proof, a.proof, sizeof(a.proof));

	if (!p->key_len) {
		if (a.flags & MWIN_WIRE_PROOF_NEEDED) {
			peer_seterr(p, "tenant %s has a key, and none was given",
			       p->tenant);
			return -ENOKEY;
		}
		return 0;
	}
	if (!(a.flags & MWIN_WIRE_PROOF_NEEDED) || !p->hs.proof_sent) {
		peer_seterr(p, "the module could not prove it holds the key: it asked for no proof (tenant %s has no key there)",
		       p->tenant);
		return -EACCES;
	}
	r = mwpeer_proof4(p->key, p->key_len, true, p->hs.module_nonce,
			  p->hs.peer_nonce, p->peer_id, want);
	if (r) {
		peer_seterr(p, "HMAC-SHA256 of the module's proof failed");
		return r;
	}
	if (CRYPTO_memcmp(want, a.proof, sizeof(want))) {
		peer_seterr(p, "the module could not prove it holds the key");
		return -EACCES;
	}
	return 0;
}
