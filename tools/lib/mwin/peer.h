/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * <mwin/peer.h> - libmwinpeer, the remote side of mwin.ko
 *
 * A peer connects to mwin's RDMA CM listener, anonymously (wire version 2)
 * or as a tenant (version 3), follows the grants and revokes the module
 * sends and uses the windows it was granted: RDMA READ and WRITE, atomics,
 * hand-back by Send-with-Invalidate. Documentation/wire.rst is the protocol;
 * libmwinpeer(3) the manual. Link with `pkg-config --libs mwinpeer`.
 *
 * Licence: GPL-2.0 OR BSD-2-Clause, like rdma-core's libraries: any
 * application may link it.
 *
 * Two ways to drive a peer:
 *
 *  - Event-driven: mwpeer_fd() in the application's poll loop, with
 *    mwpeer_arm() before it sleeps; mwpeer_process() takes in what is
 *    ready (without a system call when it can) and hands back events
 *    (connected, grant, revoke, disconnected, operation done);
 *    mwpeer_post() starts an operation on a window by id and offset, many
 *    in flight, each completing as an event with the caller's cookie, in
 *    the order posted. The library checks the grant table first and fails
 *    at once (-ESTALE, -ERANGE, -EACCES, -ETIME) rather than send a
 *    request the module would answer by closing the connection.
 *  - Blocking, for simple programs and tests: mwpeer_do() runs one such
 *    operation to completion; mwpeer_read(), mwpeer_write() ... take a raw
 *    rkey and address and check nothing (tests of the module use them to
 *    misbehave); mwpeer_next_msg() and mwpeer_wait_grant() wait for
 *    messages. Use mwpeer_next_msg() or mwpeer_process(), not both: each
 *    message is handed out once.
 *
 * Thread safety, per object: a struct mwpeer is used by one thread at a
 * time (the caller locks if it shares one); distinct peers are independent,
 * in one thread or many. The functions that take no peer (mwpeer_proof(),
 * mwpeer_*_str(), mwpeer_default_port()) are safe from any thread.
 *
 * Rules that hold for the whole API:
 *
 *  - No global state: any number of peers may live in one process.
 *  - Nothing is printed and the process is never exited. Functions that can
 *    fail return a negative errno; mwpeer_errmsg() then describes the last
 *    failure of that peer in words.
 *  - Every blocking call is bounded by the peer's timeout
 *    (mwpeer_set_timeout()). The raw blocking operations return the
 *    completion status, an enum ibv_wc_status (>= 0, IBV_WC_SUCCESS == 0),
 *    or a negative errno when it could not be posted or did not complete:
 *    -ETIMEDOUT (no completion in time), -ENOTCONN (not connected, or the
 *    connection was closed by the other side), -EINVAL (bad argument),
 *    -EMSGSIZE (too long for the local buffer), -EBUSY (send queue full).
 *    mwpeer_status_str() names either kind.
 *  - While waiting for anything, the library also consumes the messages
 *    the module sends (reposting each receive at once, so that at least
 *    MWIN_WIRE_RECV_DEPTH stay posted) and RDMA CM events (a disconnect by
 *    the module). There is no thread: nothing is taken in between calls.
 *  - Once a completion failed, the QP is in the error state for good:
 *    mwpeer_qp_error() turns true and further operations fail without
 *    being posted (what the device would answer), until mwpeer_reconnect().
 *  - With the tenant's key (&struct mwpeer_opts.key), both sides prove they
 *    hold it before the connection is usable (see mwpeer_open()).
 */
#ifndef MWPEER_H
#define MWPEER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>
#include <linux/mwin.h>

#ifdef __cplusplus
extern "C" {
#endif

/* what this header declares is the library's interface; the rest is hidden */
#pragma GCC visibility push(default)

struct mwpeer;

#define MWPEER_DEFAULT_TIMEOUT_MS	10000
#define MWPEER_DEFAULT_BUF_SIZE		(4UL << 20)
#define MWPEER_DEFAULT_RECV_DEPTH	(8 * MWIN_WIRE_RECV_DEPTH)
#define MWPEER_MAX_RECV_DEPTH		8192
#define MWPEER_DEFAULT_RETRY		2
/* the most the module accepts: 7 would mean "forever" */
#define MWPEER_DEFAULT_RNR_RETRY	6
/* mwpeer_send() and mwpeer_send_inv_data() copy at most this much */
#define MWPEER_SEND_MAX			4096

/**
 * struct mwpeer_opts - how to connect; zeroed fields take their default
 * @dev: RDMA device name the connection must use (e.g. "rxe0"), or a local
 *	IP address to connect from; NULL: whatever the route picks
 * @timeout_ms: bound for connecting and for each operation;
 *	0: MWPEER_DEFAULT_TIMEOUT_MS
 * @buf_size: bytes of the local buffer (mwpeer_buf());
 *	0: MWPEER_DEFAULT_BUF_SIZE
 * @recv_depth: receives kept posted (at most MWPEER_MAX_RECV_DEPTH, more is
 *	cut to it); 0: MWPEER_DEFAULT_RECV_DEPTH,
 *	more than the MWIN_WIRE_RECV_DEPTH the protocol asks for, so that a
 *	test that makes many windows without letting the peer poll does not
 *	run the module into RNR; negative: none at all (a misbehaving peer)
 * @private_data: connect private data; NULL: a valid struct
 *	mwin_wire_hello, or with @tenant a version 4 struct
 *	mwin_wire_hello_tenant, and for a tenant with a key a struct
 *	mwin_wire_proof_req with a fresh nonce once the module sent its
 *	challenge. Non-NULL sends exactly @private_data_len bytes (0
 *	allowed), once (a challenge is not answered): for tests of the
 *	module's checks. With @tenant too, the accept is taken as a struct
 *	mwin_wire_accept_tenant and, when @private_data is a struct
 *	mwin_wire_proof_req and @key is given, the module's proof is checked
 *	against its challenge and nonce: a test can replay a request
 * @private_data_len: bytes of @private_data (RDMA CM allows 56 on IB/RoCE)
 * @retry_count: transport retries (1..7); 0: MWPEER_DEFAULT_RETRY. With
 *	it a request to a dead QP fails with "transport retry counter
 *	exceeded" well within the default timeout (rxe: about 2.2 s a try).
 *	Note that rxe retries forever with 7, unlike the IB spec.
 * @rnr_retry_count: RNR retries the module's QP makes when this peer has
 *	no receive posted (1..7, 7 = forever, which the module refuses);
 *	0: MWPEER_DEFAULT_RNR_RETRY
 * @tenant: NULL: an anonymous peer (wire version 2). Else the tenant to
 *	connect as (wire version 4): 1 to MWIN_TENANT_NAME_MAX - 1 bytes of
 *	[A-Za-z0-9._-]
 * @key: the tenant's key, @key_len bytes (MWIN_TENANT_KEY_MIN to
 *	MWIN_TENANT_KEY_MAX), copied; NULL for a tenant without a key. Only
 *	with @tenant
 * @key_len: bytes of @key
 * @no_proof: ignored: since wire version 4 the peer's proof is in its
 *	connect request, and there is no connection without it
 */
struct mwpeer_opts {
	const char *dev;
	int timeout_ms;
	size_t buf_size;
	int recv_depth;
	const void *private_data;
	size_t private_data_len;
	uint8_t retry_count;
	uint8_t rnr_retry_count;
	const char *tenant;
	const void *key;
	size_t key_len;
	bool no_proof;
};

/* ------------------------------------------------------------ lifetime */

/**
 * mwpeer_default_port() - the module's port, where none is given
 *
 * Return: the environment's MWIN_PORT (1 to 65535), else MWIN_DEFAULT_PORT:
 * so that every tool and test reaches a module loaded with another port
 * (make qualify's).
 */
uint16_t mwpeer_default_port(void);

/**
 * mwpeer_connect() - create a peer and connect it (mwpeer_create() +
 *	mwpeer_open())
 * @host: the module's host, IPv4/IPv6 address or name
 * @port: RDMA CM port, 0 for mwpeer_default_port()
 * @dev: as &struct mwpeer_opts.dev, may be NULL
 * @timeout_ms: as &struct mwpeer_opts.timeout_ms, 0 for the default
 * @err: if not NULL, set to 0 or the negative errno of the failure
 *	(-ECONNREFUSED: rejected, or nobody listens on @port; -ETIMEDOUT;
 *	-EPROTO: the accept's private data is not a valid mwin_wire_accept;
 *	-ENODEV: not the device @dev; -ENOMEM ...)
 *
 * Return: the connected peer, or NULL. Use mwpeer_create() and
 * mwpeer_open() to read the error message or the reject details.
 */
struct mwpeer *mwpeer_connect(const char *host, uint16_t port,
			      const char *dev, int timeout_ms, int *err);

/**
 * mwpeer_connect_tenant() - mwpeer_connect() as a peer of a tenant
 * @host: as for mwpeer_connect()
 * @port: as for mwpeer_connect()
 * @dev: as for mwpeer_connect()
 * @timeout_ms: as for mwpeer_connect()
 * @tenant: as &struct mwpeer_opts.tenant, not NULL
 * @key: as &struct mwpeer_opts.key, NULL for a tenant without a key
 * @key_len: bytes of @key
 * @err: as for mwpeer_connect(); also the errors of mwpeer_open() of a
 *	tenant's peer (-ENOKEY, -EACCES) and -EINVAL for a bad @tenant or
 *	@key_len
 *
 * Return: the connected peer, or NULL.
 */
struct mwpeer *mwpeer_connect_tenant(const char *host, uint16_t port,
				     const char *dev, int timeout_ms,
				     const char *tenant, const void *key,
				     size_t key_len, int *err);

/**
 * mwpeer_create() - allocate an unconnected peer
 * @opts: options, NULL for all defaults; copied (private data, tenant and
 *	key too)
 *
 * Return: the peer, or NULL with errno set (ENOMEM, EINVAL: among others a
 * tenant name that is empty, too long or has a byte outside
 * [A-Za-z0-9._-], a key without a tenant, a key of the wrong length).
 */
struct mwpeer *mwpeer_create(const struct mwpeer_opts *opts);

/**
 * mwpeer_open() - connect an unconnected peer
 * @p: peer from mwpeer_create(), not connected
 * @host: as for mwpeer_connect()
 * @port: as for mwpeer_connect()
 *
 * Resolves the address and route, creates the PD, CQs, QP and MR, posts
 * the receives, connects with the hello and waits (bounded by the timeout)
 * until the connection is established; then mwpeer_id() is the peer id the
 * module gave. On failure everything but @p is released; on -ECONNREFUSED
 * mwpeer_reject() and mwpeer_reject_reason() tell why.
 *
 * A peer of a tenant sends a version 4 struct mwin_wire_hello_tenant and
 * reads a struct mwin_wire_accept_tenant (then mwpeer_tenant_id() is the
 * tenant's id). For a tenant with a key the module rejects the hello with
 * a challenge (struct mwin_wire_challenge); the peer connects again, a new
 * connection, with a struct mwin_wire_proof_req: a fresh nonce and its
 * proof (mwpeer_proof4()). It checks the module's proof in the accept and
 * fails when it is wrong. Both connects are bounded by one timeout.
 *
 * On iWARP it then sends the module the one empty SEND that ends the
 * handshake there (the module sends nothing before it: wire.rst), and
 * waits for its completion.
 *
 * Return: 0 or a negative errno, as for mwpeer_connect(), and for a
 * tenant's peer: -ENOKEY (the tenant has a key, and none was given),
 * -EACCES (a key was given, and the module's proof is wrong or it asked
 * for none: the module could not prove it holds the key), -EPROTO (the
 * accept is not a valid struct mwin_wire_accept_tenant).
 */
int mwpeer_open(struct mwpeer *p, const char *host, uint16_t port);

/**
 * mwpeer_reconnect() - drop the connection and connect again
 * @p: peer that was opened once (connected, in error or disconnected)
 *
 * Makes a new connection to the same host and port, so the module sees a
 * new peer with a new id. Messages, grants and error state of the old
 * connection are forgotten. mwpeer_buf() stays the same, and so do the
 * tenant and key (with a new challenge and nonce).
 *
 * Return: 0 or a negative errno, as for mwpeer_open().
 */
int mwpeer_reconnect(struct mwpeer *p);

/**
 * mwpeer_disconnect() - close the connection, keep the peer
 * @p: peer, in any state
 *
 * The module sees a disconnect. mwpeer_open() or mwpeer_reconnect() may
 * follow.
 */
void mwpeer_disconnect(struct mwpeer *p);

/** mwpeer_close() - disconnect and free everything; NULL is ignored */
void mwpeer_close(struct mwpeer *p);

/* --------------------------------------------------------------- state */

enum mwpeer_state {
	MWPEER_IDLE = 0,	/* never connected, or mwpeer_disconnect() */
	MWPEER_CONNECTED,	/* established (the QP may be in error) */
	MWPEER_DISCONNECTED,	/* the module closed the connection */
};

enum mwpeer_state mwpeer_state(const struct mwpeer *p);
/* "idle", "connected", "disconnected" */
const char *mwpeer_state_str(enum mwpeer_state s);

/** mwpeer_id() - peer id from the module's accept, 0 if never connected */
uint32_t mwpeer_id(const struct mwpeer *p);

/** mwpeer_tenant() - the tenant @p connects as, "" for an anonymous peer */
const char *mwpeer_tenant(const struct mwpeer *p);

/**
 * mwpeer_tenant_id() - the tenant's id from the module's accept; 0 for an
 *	anonymous peer or before a connection was made
 */
uint32_t mwpeer_tenant_id(const struct mwpeer *p);

/**
 * struct mwpeer_handshake - the tenant handshake of the last connection
 * @version: wire version spoken: MWIN_WIRE_VERSION (anonymous; nothing
 *	below is set) or the accept's, MWIN_WIRE_VERSION_PROOF (or
 *	MWIN_WIRE_VERSION_TENANT); 0 before an accept came
 * @flags: the accept's flags (MWIN_WIRE_PROOF_NEEDED)
 * @peer: the peer id
 * @tenant: the tenant id (of the challenge, then of the accept)
 * @peer_nonce: the nonce of the request with the proof, in its first
 *	MWIN_WIRE_PEER_NONCE_LEN bytes
 * @module_nonce: the challenge the proof answered
 * @module_proof: the accept's proof (checked when the peer has a key)
 * @peer_proof: the peer's proof, in its first MWIN_WIRE_REQ_PROOF_LEN
 *	bytes
 * @proof_sent: the connect request carried a proof
 */
struct mwpeer_handshake {
	uint8_t version;
	uint8_t flags;
	uint32_t peer;
	uint32_t tenant;
	uint8_t peer_nonce[MWIN_WIRE_NONCE_LEN];
	uint8_t module_nonce[MWIN_WIRE_NONCE_LEN];
	uint8_t module_proof[MWIN_WIRE_PROOF_LEN];
	uint8_t peer_proof[MWIN_WIRE_PROOF_LEN];
	bool proof_sent;
};

void mwpeer_handshake(const struct mwpeer *p, struct mwpeer_handshake *out);

/**
 * mwpeer_proof() - compute a proof of the version 3 handshake (which the
 *	module no longer accepts for a tenant with a key: see mwpeer_proof4())
 * @key: the tenant's key
 * @key_len: its bytes (MWIN_TENANT_KEY_MIN to MWIN_TENANT_KEY_MAX)
 * @module: true: the module's proof, HMAC-SHA256(@key, "mwin-module" |
 *	@peer_nonce | @module_nonce | @peer); false: the peer's,
 *	HMAC-SHA256(@key, "mwin-peer" | @module_nonce | @peer_nonce | @peer).
 *	The labels are their ASCII bytes without a NUL, @peer is 4 bytes
 *	little-endian
 * @peer_nonce: the hello's nonce
 * @module_nonce: the accept's nonce
 * @peer: the peer id of the accept
 * @out: the proof
 *
 * Return: 0, -EINVAL (@key_len out of range) or -EIO (libcrypto failed).
 */
int mwpeer_proof(const void *key, size_t key_len, bool module,
		 const uint8_t peer_nonce[MWIN_WIRE_NONCE_LEN],
		 const uint8_t module_nonce[MWIN_WIRE_NONCE_LEN],
		 uint32_t peer, uint8_t out[MWIN_WIRE_PROOF_LEN]);

/**
 * mwpeer_proof4() - compute a proof of the version 4 handshake
 * @key: the tenant's key
 * @key_len: its bytes (MWIN_TENANT_KEY_MIN to MWIN_TENANT_KEY_MAX)
 * @module: true: the module's proof, HMAC-SHA256(@key, "mwin-module-4" |
 *	@nonce | @challenge | @id), @id the peer id of the accept; false:
 *	the peer's, HMAC-SHA256(@key, "mwin-peer-4" | @challenge | @nonce |
 *	@id), @id the tenant id of the challenge, of which the request
 *	carries the first MWIN_WIRE_REQ_PROOF_LEN bytes. The labels are
 *	their ASCII bytes without a NUL, @id is 4 bytes little-endian
 * @challenge: the challenge of the module's reject
 * @nonce: the nonce of the request with the proof
 * @id: as said above
 * @out: the HMAC, 32 bytes
 *
 * Return: 0, -EINVAL (@key_len out of range) or -EIO (libcrypto failed).
 */
int mwpeer_proof4(const void *key, size_t key_len, bool module,
		  const uint8_t challenge[MWIN_WIRE_CHALLENGE_LEN],
		  const uint8_t nonce[MWIN_WIRE_PEER_NONCE_LEN],
		  uint32_t id, uint8_t out[MWIN_WIRE_PROOF_LEN]);

/** mwpeer_qp_error() - a completion failed: the QP is in the error state */
bool mwpeer_qp_error(const struct mwpeer *p);

/** mwpeer_qp_num() - local QP number, 0 when not connected */
uint32_t mwpeer_qp_num(const struct mwpeer *p);

/**
 * mwpeer_ibv_qp() - the connection's QP, NULL when not connected
 *
 * For what the library does not do. Posting on it behind the library's
 * back confuses its completions; querying or modifying it does not.
 */
struct ibv_qp *mwpeer_ibv_qp(const struct mwpeer *p);

/** mwpeer_dev_name() - RDMA device of the connection, "" if none */
const char *mwpeer_dev_name(const struct mwpeer *p);

/**
 * mwpeer_errmsg() - the last failure of @p in words
 *
 * Covers failed calls, failed completions and bad messages (whichever
 * happened last); "" if none.
 */
const char *mwpeer_errmsg(const struct mwpeer *p);

/**
 * mwpeer_proto_errors() - messages from the module that broke the protocol
 * @p: peer
 * @first: if not NULL, set to a description of the first one ("" if none)
 *
 * A message is bad when it has the wrong size, magic, version, type,
 * non-zero reserved bytes, a seq other than the previous one + 1, unknown
 * access bits or revoke reason, or revokes an rkey that is not the
 * window's current grant. Counted since the connection was made.
 *
 * Return: number of bad messages.
 */
unsigned int mwpeer_proto_errors(const struct mwpeer *p, const char **first);

/**
 * struct mwpeer_reject - why the last mwpeer_open() got -ECONNREFUSED
 * @rejected: a reject was received (false: not refused)
 * @reason: the CM reject reason (IB CM: 28 = rejected by the module,
 *	8 = nobody listens on the port)
 * @by_module: @reason says the module itself rejected
 * @version_valid: the reject's private data is a struct mwin_wire_reject
 *	(whose first 8 bytes are laid out as a struct mwin_wire_hello) with
 *	the right magic
 * @version: then, the highest wire version the module speaks
 * @data_len: bytes in @data
 * @data: the reject's private data as received (may be padded with zeros)
 * @wire_reason: then, the module's reason, enum mwin_wire_reject_reason;
 *	0 when it gave none (a version 2 module)
 */
struct mwpeer_reject {
	bool rejected;
	int reason;
	bool by_module;
	bool version_valid;
	uint8_t version;
	size_t data_len;
	uint8_t data[256];
	uint8_t wire_reason;
};

void mwpeer_reject(const struct mwpeer *p, struct mwpeer_reject *out);

/**
 * mwpeer_reject_reason() - why the module refused the last connection
 *
 * Return: &struct mwpeer_reject.wire_reason of the last mwpeer_open() (enum
 * mwin_wire_reject_reason), 0 if it was not refused or the module gave no
 * reason.
 */
int mwpeer_reject_reason(const struct mwpeer *p);

/**
 * mwpeer_reject_reason_str() - name of an enum mwin_wire_reject_reason,
 *	as Documentation/wire.rst and mwctl give it (mwin_reject_reason_name():
 *	"bad-hello", "anonymous", "unknown-tenant", "address", "quota",
 *	"peer-limit", "rate", "rnr-retry", "setup", "device", "bad-proof",
 *	"no-proof", "half-open", "unfinished", "challenge"); "none" for 0,
 *	"unknown" for others
 */
const char *mwpeer_reject_reason_str(unsigned int reason);

/* ------------------------------------------------------ local buffer */

/**
 * mwpeer_buf() - the local registered buffer
 *
 * Source of mwpeer_write() and destination of mwpeer_read() when they are
 * passed a NULL buffer (both use it from its first byte). Stays at the same
 * address for the life of @p.
 */
void *mwpeer_buf(const struct mwpeer *p);
size_t mwpeer_buf_size(const struct mwpeer *p);

/** mwpeer_set_timeout() - bound for each following operation (ms > 0) */
void mwpeer_set_timeout(struct mwpeer *p, int timeout_ms);
int mwpeer_timeout(const struct mwpeer *p);

/* ---------------------------------------------------------- operations */

/*
 * Each posts one signaled work request and waits for its completion.
 * Return: enum ibv_wc_status (>= 0) or a negative errno, see the top.
 * @raddr is the remote address: the window's iova + the byte's offset in
 * the window. @len may be 0: a zero-length operation, whose rkey and
 * address the responder does not check (IB spec C9-88; rxe succeeds even
 * with a bad rkey).
 */

/**
 * mwpeer_write() - RDMA WRITE
 * @buf: @len bytes to write; NULL: the first @len bytes of mwpeer_buf()
 */
int mwpeer_write(struct mwpeer *p, uint32_t rkey, uint64_t raddr,
		 const void *buf, size_t len);

/**
 * mwpeer_read() - RDMA READ into the start of mwpeer_buf()
 * @buf: if not NULL, the bytes read are copied there too (on success)
 */
int mwpeer_read(struct mwpeer *p, uint32_t rkey, uint64_t raddr,
		void *buf, size_t len);

/**
 * mwpeer_cas() - 8-byte atomic compare and swap at @raddr (8-aligned)
 * @old: if not NULL, the value before the operation (on success)
 *
 * A misaligned @raddr is posted as it is: the device decides (rxe's
 * provider refuses it locally: -EINVAL, the QP stays usable).
 */
int mwpeer_cas(struct mwpeer *p, uint32_t rkey, uint64_t raddr,
	       uint64_t compare, uint64_t swap, uint64_t *old);

/** mwpeer_fadd() - 8-byte atomic fetch and add at @raddr (8-aligned) */
int mwpeer_fadd(struct mwpeer *p, uint32_t rkey, uint64_t raddr,
		uint64_t add, uint64_t *old);

/** mwpeer_send_inv() - Send-with-Invalidate of @rkey, no payload */
int mwpeer_send_inv(struct mwpeer *p, uint32_t rkey);

/**
 * mwpeer_send_inv_data() - Send-with-Invalidate of @rkey with a payload
 * @buf: payload, at most MWPEER_SEND_MAX bytes; NULL: the first @len
 *	bytes of mwpeer_buf() (then up to its size)
 */
int mwpeer_send_inv_data(struct mwpeer *p, uint32_t rkey,
			 const void *buf, size_t len);

/**
 * mwpeer_send() - plain SEND (the protocol has none: for hostile-peer tests)
 * @buf: payload, at most MWPEER_SEND_MAX bytes; NULL: the first @len
 *	bytes of mwpeer_buf() (then up to its size)
 */
int mwpeer_send(struct mwpeer *p, const void *buf, size_t len);

/**
 * mwpeer_status_str() - name of an operation's result
 *
 * rdma-core's ibv_wc_status_str() for status >= 0 ("success", "remote
 * access error", "Work Request Flushed Error", ...); for negative errnos
 * "timeout" (-ETIMEDOUT), "not connected" (-ENOTCONN), "busy" (-EBUSY),
 * else strerror().
 */
const char *mwpeer_status_str(int status);

/* ------------------------------------------------- messages and grants */

/**
 * struct mwpeer_msg - one grant or revoke, decoded to host order
 * @type: MWIN_WIRE_GRANT or MWIN_WIRE_REVOKE
 * @valid: false when it broke the protocol (see mwpeer_proto_errors());
 *	messages too broken to have a known type are not queued at all
 * @access: grant: MWIN_ACCESS_* bits; revoke: enum mwin_wire_reason
 * @seq: message number, from 1
 * @window: window id
 * @rkey: rkey granted or revoked
 * @iova: remote address of the window's first byte
 * @length: window bytes
 * @recv: the receive that carried it, counted from 1 on this connection:
 *	messages with the same @recv came in one SEND
 * @lease_ms: grant: the milliseconds its lease had left when the module
 *	sent it, 0 for none (a grant of an rkey held already renews it)
 * @flags: grant: MWIN_WIRE_GRANT_ONCE for a one-shot window
 * @missed: seq numbers skipped just before this one (a gap: messages were
 *	lost, which the protocol never does; counted as a protocol error)
 */
struct mwpeer_msg {
	uint8_t type;
	bool valid;
	uint16_t access;
	uint32_t seq;
	uint32_t window;
	uint32_t rkey;
	uint64_t iova;
	uint64_t length;
	uint64_t recv;
	uint32_t lease_ms;
	uint32_t flags;
	uint32_t missed;
};

/**
 * mwpeer_next_msg() - take the oldest message not yet taken
 * @p: peer
 * @out: the message
 * @timeout_ms: how long to wait if none is queued (0: don't wait,
 *	negative: the peer's timeout)
 *
 * Messages received before a disconnect can still be taken after it.
 *
 * Return: 0, -ETIMEDOUT, or -ENOTCONN (none queued and not connected).
 */
int mwpeer_next_msg(struct mwpeer *p, struct mwpeer_msg *out, int timeout_ms);

/** mwpeer_pending_msgs() - messages queued and not yet taken */
size_t mwpeer_pending_msgs(const struct mwpeer *p);

/**
 * mwpeer_grant() - the current grant of a window
 *
 * A grant message adds or replaces the window's entry, a revoke of the
 * same rkey removes it. Kept until mwpeer_reconnect() (also after a
 * disconnect). Up to date with the messages received so far: call
 * mwpeer_poll() first to take in new ones.
 *
 * Return: 0 and the grant message in @out (may be NULL), or -ENOENT.
 */
int mwpeer_grant(const struct mwpeer *p, uint32_t window,
		 struct mwpeer_msg *out);

/**
 * mwpeer_wait_grant() - wait until a window has a (new) grant
 * @window: window id
 * @old_rkey: wait for a grant with another rkey than this one (after a
 *	rebind); 0 for any
 * @out: the grant (may be NULL)
 * @timeout_ms: as for mwpeer_next_msg()
 *
 * Looks at the grant table only: the messages stay queued for
 * mwpeer_next_msg().
 *
 * Return: 0, -ETIMEDOUT, or -ENOTCONN (no such grant and not connected).
 */
int mwpeer_wait_grant(struct mwpeer *p, uint32_t window, uint32_t old_rkey,
		      struct mwpeer_msg *out, int timeout_ms);

/**
 * mwpeer_grants() - all current grants, by increasing window id
 * @out: array of @max entries (may be NULL when @max is 0)
 *
 * Return: the number of current grants (may be more than @max).
 */
size_t mwpeer_grants(const struct mwpeer *p, struct mwpeer_msg *out,
		     size_t max);

/**
 * mwpeer_poll() - take in completions, messages and CM events
 * @timeout_ms: if > 0 and connected, wait up to this long for the next
 *	thing to happen (returns after the first), then take it in
 *
 * Return: 0.
 */
int mwpeer_poll(struct mwpeer *p, int timeout_ms);

/**
 * mwpeer_fd() - a file descriptor that turns readable when mwpeer_poll()
 *	or, after mwpeer_arm(), mwpeer_process() has something to do (for
 *	poll()/epoll in event loops); stays the same for the life of @p,
 *	across reconnects
 */
int mwpeer_fd(const struct mwpeer *p);

/* ---------------------------------------- windows, event-driven */

/**
 * enum mwpeer_op_type - what &struct mwpeer_op does to its window
 * @MWPEER_OP_READ: RDMA READ of @len bytes at @offset into @local;
 *	needs MWIN_ACCESS_READ
 * @MWPEER_OP_WRITE: RDMA WRITE of @len bytes from @local to @offset;
 *	needs MWIN_ACCESS_WRITE
 * @MWPEER_OP_CAS: 8-byte compare (@compare_add) and swap (@swap) at
 *	@offset (8-aligned); needs MWIN_ACCESS_ATOMIC
 * @MWPEER_OP_FADD: 8-byte fetch and add (@compare_add) at @offset;
 *	needs MWIN_ACCESS_ATOMIC
 * @MWPEER_OP_HAND_BACK: Send-with-Invalidate of the window's rkey: the
 *	peer gives the window back (a one-shot window is then destroyed).
 *	The grant leaves the table at once; @offset, @len and @local unused
 */
enum mwpeer_op_type {
	MWPEER_OP_READ = 1,
	MWPEER_OP_WRITE,
	MWPEER_OP_CAS,
	MWPEER_OP_FADD,
	MWPEER_OP_HAND_BACK,
};

/**
 * struct mwpeer_op - an operation on a granted window
 * @type: enum mwpeer_op_type
 * @window: the window's id (&struct mwpeer_msg.window of its grant)
 * @offset: byte offset in the window; the library adds the grant's iova
 * @len: READ and WRITE: bytes, 0 to 2^31; atomics: ignored (8)
 * @local: READ and WRITE: @len bytes inside mwpeer_buf() or a range given
 *	to mwpeer_reg_mem() (zero-copy: the device reads or writes them while
 *	the operation is in flight); NULL: the start of mwpeer_buf().
 *	Atomics: ignored, the old value comes in &struct mwpeer_event.value
 * @compare_add: CAS: the value expected; FADD: what to add
 * @swap: CAS: the new value
 * @cookie: the caller's, handed back in the operation's event
 */
struct mwpeer_op {
	uint32_t type;
	uint32_t window;
	uint64_t offset;
	uint64_t len;
	void *local;
	uint64_t compare_add;
	uint64_t swap;
	uint64_t cookie;
};

/**
 * mwpeer_post() - start an operation on a window
 * @p: peer
 * @op: the operation, copied
 *
 * The grant table says the window's rkey and iova. Checked here, before
 * anything is sent (a request the module refuses closes the connection):
 *
 * Return: 0, posted: one MWPEER_EV_DONE event follows, with @op->cookie,
 * after the events of the operations posted before it. Or, with nothing
 * posted: -ESTALE (the window has no grant: never granted, revoked or
 * handed back), -ETIME (its lease ran out by the local clock), -ERANGE
 * (@offset + @len outside the window), -EACCES (the grant lacks the
 * right), -EINVAL (bad @type, misaligned atomic, @local outside the
 * registered memory), -ENOTCONN (not connected), -EREMOTEIO (the QP is in
 * error: a request failed), -EAGAIN (MWPEER_MAX_INFLIGHT operations in
 * flight: take events first), or ibv_post_send()'s error.
 */
int mwpeer_post(struct mwpeer *p, const struct mwpeer_op *op);

/* operations of mwpeer_post() in flight at most, per peer */
#define MWPEER_MAX_INFLIGHT	64

/**
 * mwpeer_do() - mwpeer_post() and wait for its completion
 * @p: peer
 * @op: the operation; @op->cookie is not used
 * @old: atomics: the old value, on success (may be NULL)
 *
 * Events of the operations and messages meanwhile stay queued for
 * mwpeer_process().
 *
 * Return: the completion status (enum ibv_wc_status, >= 0), an error of
 * mwpeer_post(), -ETIMEDOUT or -ENOTCONN as for mwpeer_read().
 */
int mwpeer_do(struct mwpeer *p, const struct mwpeer_op *op, uint64_t *old);

/**
 * enum mwpeer_event_type - what &struct mwpeer_event tells
 * @MWPEER_EV_CONNECTED: mwpeer_open() or mwpeer_reconnect() connected:
 *	the first event of each connection (after the DONE events of the
 *	operations the reconnect flushed)
 * @MWPEER_EV_GRANT: &struct mwpeer_event.msg: a window granted, rebound
 *	(new rkey) or its lease renewed; the grant table has it already
 * @MWPEER_EV_REVOKE: &struct mwpeer_event.msg: a grant revoked, the
 *	reason in its access field (enum mwin_wire_reason); gone from the
 *	table already: new operations on it fail with -ESTALE
 * @MWPEER_EV_DONE: an operation of mwpeer_post() (or mwpeer_post_raw())
 *	completed: &struct mwpeer_event.cookie, .status, .value
 * @MWPEER_EV_DISCONNECTED: the connection broke; .status says why:
 *	-EREMOTEIO (a request or receive failed; the QP is in error and the
 *	module drops the peer) or -ECONNRESET (the module closed it). Once
 *	per connection, its last event: after the DONE events of every
 *	operation that was in flight (flushed, at the latest 200 ms after
 *	the close). The grants stay readable; mwpeer_reconnect() starts anew
 */
enum mwpeer_event_type {
	MWPEER_EV_CONNECTED = 1,
	MWPEER_EV_GRANT,
	MWPEER_EV_REVOKE,
	MWPEER_EV_DONE,
	MWPEER_EV_DISCONNECTED,
};

/**
 * struct mwpeer_event - one event of mwpeer_process()
 * @type: enum mwpeer_event_type
 * @status: DONE: enum ibv_wc_status (IBV_WC_SUCCESS, 0, or why it
 *	failed; IBV_WC_WR_FLUSH_ERR for those flushed by a broken or closed
 *	connection); DISCONNECTED: a negative errno, as above
 * @cookie: DONE: the operation's cookie
 * @value: DONE of an atomic that succeeded: the old value
 * @msg: GRANT and REVOKE: the message (&struct mwpeer_msg.missed reports a
 *	gap in seq, .valid a protocol error)
 */
struct mwpeer_event {
	uint32_t type;
	int32_t status;
	uint64_t cookie;
	uint64_t value;
	struct mwpeer_msg msg;
};

/**
 * mwpeer_process() - take in what is ready and hand back events
 * @p: peer
 * @ev: array of @max events
 * @max: room in @ev
 *
 * Never blocks. It polls the completion queues in user space and makes a
 * system call once in 64 calls (for the CM events: a disconnect): a
 * caller may spin on it for its operations. Events not handed back stay
 * for the next call. An event loop:
 *
 *	for (;;) {
 *		n = mwpeer_process(p, ev, max);
 *		... handle n events ...
 *		if (n < max && !mwpeer_arm(p))
 *			poll on mwpeer_fd(p)
 *	}
 *
 * Return: the number of events in @ev.
 */
int mwpeer_process(struct mwpeer *p, struct mwpeer_event *ev, int max);

/**
 * mwpeer_arm() - get ready to sleep on mwpeer_fd()
 * @p: peer
 *
 * Arms the completion notifications and takes in what came meanwhile
 * (CM events too), so that mwpeer_fd() turns readable for whatever comes
 * next. Without it, mwpeer_fd() may stay quiet while events wait.
 *
 * Return: 0: nothing is ready, sleep; 1: events are ready, call
 * mwpeer_process() first.
 */
int mwpeer_arm(struct mwpeer *p);

/**
 * mwpeer_reg_mem() - register the application's memory for operations
 * @p: peer
 * @addr: first byte
 * @len: bytes, not 0; the range must not overlap another registered one
 *
 * The range is registered with the connection's protection domain now
 * and at every reconnect, until mwpeer_dereg_mem() or mwpeer_close().
 *
 * Return: 0, -EINVAL, -EEXIST (overlap), -ENOMEM, or ibv_reg_mr()'s errno.
 */
int mwpeer_reg_mem(struct mwpeer *p, void *addr, size_t len);

/**
 * mwpeer_dereg_mem() - forget a range of mwpeer_reg_mem()
 *
 * Not while an operation on it is in flight.
 *
 * Return: 0 or -ENOENT (@addr starts no registered range).
 */
int mwpeer_dereg_mem(struct mwpeer *p, const void *addr);

/**
 * mwpeer_lkey() - the local key of @len bytes at @addr, in mwpeer_buf() or
 *	a registered range; 0 when they are in neither or not connected
 */
uint32_t mwpeer_lkey(const struct mwpeer *p, const void *addr, size_t len);

/**
 * mwpeer_post_raw() - post any work request on the connection
 * @p: peer
 * @wr: one work request (@wr->next must be NULL); its wr_id is replaced and
 *	it is made signaled; scatter entries use mwpeer_lkey()
 * @cookie: handed back in its MWPEER_EV_DONE event
 *
 * The escape hatch, for what the library does not do (the conformance
 * tests' requests). Nothing is checked.
 *
 * Return: 0, -EINVAL, -ENOTCONN, -EREMOTEIO, -EAGAIN, or ibv_post_send()'s.
 */
int mwpeer_post_raw(struct mwpeer *p, struct ibv_send_wr *wr,
		    uint64_t cookie);

/**
 * mwpeer_post_ex() - post one work request through the extended QP API
 * @p: peer
 * @build: called between ibv_wr_start() and ibv_wr_complete() with the
 *	connection's struct ibv_qp_ex, whose wr_id and wr_flags are set
 *	(signaled): calls one ibv_wr_*() operation and its ibv_wr_set_*()
 * @arg: for @build
 * @cookie: handed back in its MWPEER_EV_DONE event
 *
 * The escape hatch for requests ibv_post_send() would refuse (rxe's
 * provider checks an atomic's alignment there, not here). The connection's
 * QP is on the extended API when the device offers it; nothing is checked.
 *
 * Return: 0, -EOPNOTSUPP (no extended API), -ENOTCONN, -EREMOTEIO,
 * -EAGAIN, or ibv_wr_complete()'s error.
 */
int mwpeer_post_ex(struct mwpeer *p,
		   void (*build)(struct ibv_qp_ex *qpx, void *arg), void *arg,
		   uint64_t cookie);

/**
 * mwpeer_event_str() - "connected", "grant", "revoke", "done",
 *	"disconnected", or "unknown"
 */
const char *mwpeer_event_str(unsigned int type);

/** mwpeer_access_str() - "r", "w", "a" letters of MWIN_ACCESS_* bits */
const char *mwpeer_access_str(unsigned int access, char buf[8]);

/** mwpeer_reason_str() - "invalidate", "rebind", "destroy", "remote",
 *	"error", or "unknown" */
const char *mwpeer_reason_str(unsigned int reason);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif /* MWPEER_H */
