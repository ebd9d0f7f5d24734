// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libmwinpeer: the version 3 handshake: hello, accept, proofs.
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

int mwpeer_proof(const void *key, size_t key_len, bool module,
		 const uint8_t peer_nonce[MWIN_WIRE_NONCE_LEN],
		 const uint8_t module_nonce[MWIN_WIRE_NONCE_LEN],
		 uint32_t peer, uint8_t out[MWIN_WIRE_PROOF_LEN])
{
	/* label (no NUL) | first nonce | second nonce | peer id, LE32 */
	uint8_t msg[sizeof(LABEL_MODULE) - 1 + 2 * MWIN_WIRE_NONCE_LEN + 4];
	const uint8_t *first = module ? peer_nonce : module_nonce;
	const uint8_t *second = module ? module_nonce : peer_nonce;
	size_t n = module ? sizeof(LABEL_MODULE) - 1 : sizeof(LABEL_PEER) - 1;
	uint32_t le_peer = htole32(peer);
	unsigned int out_len = 0;

	if (!key || key_len < MWIN_TENANT_KEY_MIN ||
	    key_len > MWIN_TENANT_KEY_MAX)
		return -EINVAL;
	memcpy(msg, module ? LABEL_MODULE : LABEL_PEER, n);
	memcpy(msg + n, first, MWIN_WIRE_NONCE_LEN);
	n += MWIN_WIRE_NONCE_LEN;
	memcpy(msg + n, second, MWIN_WIRE_NONCE_LEN);
	n += MWIN_WIRE_NONCE_LEN;
	memcpy(msg + n, &le_peer, 4);
	n += 4;
	if (!HMAC(EVP_sha256(), key, (int)key_len, msg, n, out, &out_len) ||
	    out_len != MWIN_WIRE_PROOF_LEN)
		return -EIO;
	return 0;
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

/* the hello of the next connection: a fresh nonce for a peer with a key */
int peer_tenant_hello(struct mwpeer *p)
{
	struct mwin_wire_hello_tenant h;
	size_t got = 0;

	memset(&p->hs, 0, sizeof(p->hs));
	if (p->raw_priv) {
		/* the caller's bytes; the nonce is whatever they hold */
		if (p->priv_len >= sizeof(h)) {
			memcpy(&h, p->priv, sizeof(h));
			memcpy(p->hs.peer_nonce, h.nonce, sizeof(h.nonce));
		}
		return 0;
	}
	memset(&h, 0, sizeof(h));
	h.magic = htole32(MWIN_WIRE_MAGIC);
	h.version = MWIN_WIRE_VERSION_TENANT;
	memcpy(h.tenant, p->tenant, sizeof(h.tenant));
	while (p->key_len && got < sizeof(h.nonce)) {
		ssize_t n = getrandom(h.nonce + got, sizeof(h.nonce) - got, 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			peer_seterr(p, "getrandom: %s", strerror(errno));
			return -errno;
		}
		got += (size_t)n;
	}
	memcpy(p->hs.peer_nonce, h.nonce, sizeof(h.nonce));
	memcpy(p->priv, &h, sizeof(h));
	p->priv_len = sizeof(h);
	return 0;
}

/*
 * The version 3 accept: the ids, then with a key the module's proof checked
 * and ours sent, as the connection's first SEND.
 */
int peer_tenant_accept(struct mwpeer *p, const void *data, size_t len)
{
	struct mwin_wire_accept_tenant a;
	struct mwin_wire_proof pr;
	uint8_t want[MWIN_WIRE_PROOF_LEN];
	int r;

	if (!data || len < sizeof(a)) {
		peer_seterr(p, "accept without mwin version 3 private data (%zu bytes, not %zu)",
		       data ? len : 0, sizeof(a));
		return -EPROTO;
	}
	memcpy(&a, data, sizeof(a));
	if (le32toh(a.magic) != MWIN_WIRE_MAGIC ||
	    a.version != MWIN_WIRE_VERSION_TENANT) {
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
	memcpy(p->hs.module_nonce, a.nonce, sizeof(a.nonce));
	memcpy(p->hs.module_proof, a.proof, sizeof(a.proof));

	if (!p->key_len) {
		if (a.flags & MWIN_WIRE_PROOF_NEEDED) {
			peer_seterr(p, "tenant %s has a key, and none was given",
			       p->tenant);
			return -ENOKEY;
		}
		return 0;
	}
	if (!(a.flags & MWIN_WIRE_PROOF_NEEDED)) {
		peer_seterr(p, "the module could not prove it holds the key: it asked for no proof (tenant %s has no key there)",
		       p->tenant);
		return -EACCES;
	}
	r = mwpeer_proof(p->key, p->key_len, true, p->hs.peer_nonce,
			 a.nonce, p->peer_id, want);
	if (r) {
		peer_seterr(p, "HMAC-SHA256 of the module's proof failed");
		return r;
	}
	if (CRYPTO_memcmp(want, a.proof, sizeof(want))) {
		peer_seterr(p, "the module could not prove it holds the key");
		return -EACCES;
	}

	memset(&pr, 0, sizeof(pr));
	pr.magic = htole32(MWIN_WIRE_MAGIC);
	pr.version = MWIN_WIRE_VERSION_TENANT;
	pr.type = MWIN_WIRE_PROOF;
	r = mwpeer_proof(p->key, p->key_len, false, p->hs.peer_nonce,
			 a.nonce, p->peer_id, pr.proof);
	if (r) {
		peer_seterr(p, "HMAC-SHA256 of the peer's proof failed");
		return r;
	}
	memcpy(p->hs.peer_proof, pr.proof, sizeof(pr.proof));
	if (p->no_proof)
		return 0;
	r = peer_send_op(p, false, 0, &pr, sizeof(pr));
	if (r) {
		char msg[sizeof(p->errmsg)];

		memcpy(msg, p->errmsg, sizeof(msg));
		peer_seterr(p, "sending the proof: %s", msg);
		return r > 0 ? -ECONNABORTED : r;
	}
	p->hs.proof_sent = true;
	return 0;
}

