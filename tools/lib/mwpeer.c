// SPDX-License-Identifier: GPL-2.0
/*
 * mwpeer - userspace RDMA peer of mwin.ko. See mwpeer.h.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <rdma/rdma_cma.h>

#include "libmwin.h"
#include "mwpeer.h"

#define MSG_SIZE	sizeof(struct mwin_wire_msg)
#define RECV_SIZE	MWIN_WIRE_RECV_SIZE
#define MAX_SEND_WR	128
#define MAX_RECV_DEPTH	4096
#define MAX_RD_ATOM	16
#define MAX_QUEUED	(1U << 20)
/* how long an answer may trail the other side's DREQ: see answer_dreq() */
#define CLOSE_GRACE_MS	200
#define IB_CM_REJ_INVALID_SERVICE_ID	8
#define IB_CM_REJ_CONSUMER_DEFINED	28

_Static_assert(sizeof(struct mwin_wire_hello_tenant) == 48,
	       "the hello must fit in a REQ's 56 bytes of private data");
_Static_assert(sizeof(struct mwin_wire_accept_tenant) == 64, "wire layout");
_Static_assert(sizeof(struct mwin_wire_proof) == 64, "wire layout");
_Static_assert(sizeof(struct mwin_wire_reject) == 8, "wire layout");

struct mwpeer {
	/* options */
	char *dev;
	int timeout_ms;
	size_t buf_size;
	int recv_depth;		/* receives posted, 0 for none */
	uint8_t priv[256];
	size_t priv_len;
	bool raw_priv;
	uint8_t retry;
	uint8_t rnr_retry;
	/* a tenant's peer (wire version 3) when tenant[0] */
	char tenant[MWIN_TENANT_NAME_MAX];
	uint8_t key[MWIN_TENANT_KEY_MAX];
	size_t key_len;			/* 0: no key */
	bool no_proof;

	/* where mwpeer_open() connected to */
	char *host;
	uint16_t port;

	/*
	 * Memory, registered as one MR per connection:
	 * [0, buf_size) data | atomic result | send staging | receive slots
	 */
	uint8_t *mem;
	size_t mem_size;
	size_t atomic_off;
	size_t send_off;
	size_t recv_off;

	int epfd;

	/* the connection */
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_comp_channel *cc;
	struct ibv_cq *scq;
	struct ibv_cq *rcq;
	struct ibv_mr *mr;
	enum mwpeer_state state;
	bool qp_error;
	bool dreq_unanswered;	/* see answer_dreq() */
	uint32_t peer_id;
	uint32_t tenant_id;
	struct mwpeer_handshake hs;
	uint32_t qp_num;
	uint32_t max_inline;
	unsigned int max_send;
	char devname[64];

	/* the operation being waited for */
	uint64_t wr_seq;
	uint64_t wait_wr;
	bool wait_done;
	int wait_status;
	const char *wait_what;
	unsigned int send_outstanding;

	/* messages */
	struct mwpeer_msg *q;
	size_t q_cap;
	size_t q_head;
	size_t q_len;
	struct mwpeer_msg *grants;
	size_t n_grants;
	size_t grants_cap;
	uint32_t last_seq;
	uint64_t recvs;			/* SENDs taken from the module */
	unsigned int proto_errors;
	char proto_first[256];

	char errmsg[256];
	struct mwpeer_reject reject;
};

/* ---------------------------------------------------------------- util */

__attribute__((format(printf, 2, 3)))
static void seterr(struct mwpeer *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->errmsg, sizeof(p->errmsg), fmt, ap);
	va_end(ap);
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int ms_left(int64_t deadline)
{
	int64_t left = deadline - now_ms();

	if (left <= 0)
		return 0;
	return left > 1000000000 ? 1000000000 : (int)left;
}

static int set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

static int ep_add(struct mwpeer *p, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };

	if (epoll_ctl(p->epfd, EPOLL_CTL_ADD, fd, &ev) < 0)
		return -errno;
	return 0;
}

static void ep_del(struct mwpeer *p, int fd)
{
	epoll_ctl(p->epfd, EPOLL_CTL_DEL, fd, NULL);
}

static void ep_wait(struct mwpeer *p, int timeout_ms)
{
	struct epoll_event ev[4];

	/* EINTR or a failure: the caller loops and checks its deadline */
	if (epoll_wait(p->epfd, ev, 4, timeout_ms) < 0 && errno != EINTR)
		usleep(1000);
}

const char *mwpeer_status_str(int status)
{
	if (status >= 0)
		return ibv_wc_status_str((enum ibv_wc_status)status);
	switch (-status) {
	case ETIMEDOUT:
		return "timeout";
	case ENOTCONN:
		return "not connected";
	case EBUSY:
		return "busy";
	case EINVAL:
		return "invalid argument";
	case EMSGSIZE:
		return "too long";
	default:
		return strerror(-status);
	}
}

const char *mwpeer_access_str(unsigned int access, char buf[8])
{
	return mwin_access_str(access, buf);
}

const char *mwpeer_reason_str(unsigned int reason)
{
	return mwin_revoke_reason_name(reason);
}

const char *mwpeer_reject_reason_str(unsigned int reason)
{
	return reason ? mwin_reject_reason_name(reason) : "none";
}

const char *mwpeer_state_str(enum mwpeer_state s)
{
	switch (s) {
	case MWPEER_IDLE:
		return "idle";
	case MWPEER_CONNECTED:
		return "connected";
	case MWPEER_DISCONNECTED:
		return "disconnected";
	}
	return "unknown";
}

/* ------------------------------------------------------------ accessors */

enum mwpeer_state mwpeer_state(const struct mwpeer *p)
{
	return p->state;
}

uint32_t mwpeer_id(const struct mwpeer *p)
{
	return p->peer_id;
}

const char *mwpeer_tenant(const struct mwpeer *p)
{
	return p->tenant;
}

uint32_t mwpeer_tenant_id(const struct mwpeer *p)
{
	return p->tenant_id;
}

void mwpeer_handshake(const struct mwpeer *p, struct mwpeer_handshake *out)
{
	*out = p->hs;
}

bool mwpeer_qp_error(const struct mwpeer *p)
{
	return p->qp_error;
}

uint32_t mwpeer_qp_num(const struct mwpeer *p)
{
	return p->id ? p->qp_num : 0;
}

struct ibv_qp *mwpeer_ibv_qp(const struct mwpeer *p)
{
	return p->id ? p->id->qp : NULL;
}

const char *mwpeer_dev_name(const struct mwpeer *p)
{
	return p->devname;
}

const char *mwpeer_errmsg(const struct mwpeer *p)
{
	return p->errmsg;
}

unsigned int mwpeer_proto_errors(const struct mwpeer *p, const char **first)
{
	if (first)
		*first = p->proto_first;
	return p->proto_errors;
}

void mwpeer_reject(const struct mwpeer *p, struct mwpeer_reject *out)
{
	*out = p->reject;
}

int mwpeer_reject_reason(const struct mwpeer *p)
{
	return p->reject.wire_reason;
}

void *mwpeer_buf(const struct mwpeer *p)
{
	return p->mem;
}

size_t mwpeer_buf_size(const struct mwpeer *p)
{
	return p->buf_size;
}

void mwpeer_set_timeout(struct mwpeer *p, int timeout_ms)
{
	if (timeout_ms > 0)
		p->timeout_ms = timeout_ms;
}

int mwpeer_timeout(const struct mwpeer *p)
{
	return p->timeout_ms;
}

int mwpeer_fd(const struct mwpeer *p)
{
	return p->epfd;
}

size_t mwpeer_pending_msgs(const struct mwpeer *p)
{
	return p->q_len;
}

/* ------------------------------------------------------------ messages */

__attribute__((format(printf, 2, 3)))
static void proto_error(struct mwpeer *p, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (!p->proto_errors++)
		snprintf(p->proto_first, sizeof(p->proto_first), "%s", buf);
	seterr(p, "bad message: %s", buf);
}

static void queue_msg(struct mwpeer *p, const struct mwpeer_msg *m)
{
	if (p->q_head + p->q_len == p->q_cap) {
		if (p->q_head) {
			memmove(p->q, p->q + p->q_head, p->q_len * sizeof(*p->q));
			p->q_head = 0;
		} else {
			size_t cap = p->q_cap ? p->q_cap * 2 : 64;
			struct mwpeer_msg *q;

			if (cap > MAX_QUEUED ||
			    !(q = realloc(p->q, cap * sizeof(*q)))) {
				proto_error(p, "message seq %u dropped: %zu messages queued and not taken",
					    m->seq, p->q_len);
				return;
			}
			p->q = q;
			p->q_cap = cap;
		}
	}
	p->q[p->q_head + p->q_len++] = *m;
}

/* index of @window in the sorted grants, or where it would go */
static size_t grant_pos(const struct mwpeer *p, uint32_t window, bool *found)
{
	size_t lo = 0, hi = p->n_grants;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->grants[mid].window < window)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < p->n_grants && p->grants[lo].window == window;
	return lo;
}

static void apply_msg(struct mwpeer *p, const struct mwpeer_msg *m)
{
	bool found;
	size_t i = grant_pos(p, m->window, &found);

	if (m->type == MWIN_WIRE_GRANT) {
		if (!found) {
			if (p->n_grants == p->grants_cap) {
				size_t cap = p->grants_cap ? p->grants_cap * 2 : 16;
				struct mwpeer_msg *g = realloc(p->grants, cap * sizeof(*g));

				if (!g) {
					seterr(p, "out of memory for the grant of window %u",
					       m->window);
					return;
				}
				p->grants = g;
				p->grants_cap = cap;
			}
			memmove(p->grants + i + 1, p->grants + i,
				(p->n_grants - i) * sizeof(*p->grants));
			p->n_grants++;
		}
		p->grants[i] = *m;
		return;
	}
	if (!found) {
		proto_error(p, "seq %u revokes rkey 0x%x of window %u, which has no grant",
			    m->seq, m->rkey, m->window);
		return;
	}
	if (p->grants[i].rkey != m->rkey) {
		proto_error(p, "seq %u revokes rkey 0x%x of window %u, whose grant is rkey 0x%x",
			    m->seq, m->rkey, m->window, p->grants[i].rkey);
		return;
	}
	memmove(p->grants + i, p->grants + i + 1,
		(p->n_grants - i - 1) * sizeof(*p->grants));
	p->n_grants--;
}

static bool all_zero(const void *buf, size_t len)
{
	const uint8_t *b = buf;

	while (len--)
		if (*b++)
			return false;
	return true;
}

static void handle_msg(struct mwpeer *p, const void *raw,
		       const struct ibv_wc *wc)
{
	struct mwin_wire_msg w;
	struct mwpeer_msg m;
	unsigned int before = p->proto_errors;

	memcpy(&w, raw, sizeof(w));
	if (le32toh(w.magic) != MWIN_WIRE_MAGIC) {
		proto_error(p, "bad magic 0x%08x", le32toh(w.magic));
		return;
	}
	if (w.version != MWIN_WIRE_VERSION) {
		proto_error(p, "bad version %u", w.version);
		return;
	}
	if (w.type != MWIN_WIRE_GRANT && w.type != MWIN_WIRE_REVOKE) {
		proto_error(p, "bad type %u (seq %u)", w.type, le32toh(w.seq));
		return;
	}
	memset(&m, 0, sizeof(m));
	m.type = w.type;
	m.access = le16toh(w.access);
	m.seq = le32toh(w.seq);
	m.window = le32toh(w.window);
	m.rkey = le32toh(w.rkey);
	m.iova = le64toh(w.iova);
	m.length = le64toh(w.length);
	m.lease_ms = le32toh(w.lease_ms);
	m.flags = le32toh(w.flags);
	m.recv = p->recvs;

	if (m.seq != p->last_seq + 1)
		proto_error(p, "seq %u after seq %u", m.seq, p->last_seq);
	p->last_seq = m.seq;
	if (w.__reserved1 || !all_zero(w.__reserved, sizeof(w.__reserved)))
		proto_error(p, "seq %u: reserved bytes not zero", m.seq);
	if (wc->wc_flags & (IBV_WC_WITH_IMM | IBV_WC_WITH_INV))
		proto_error(p, "seq %u: sent with immediate data or invalidate",
			    m.seq);
	if (!m.window)
		proto_error(p, "seq %u: window id 0", m.seq);
	if (m.type == MWIN_WIRE_GRANT) {
		if (!m.access || (m.access & ~MWIN_ACCESS_ALL))
			proto_error(p, "seq %u: grant with access 0x%x",
				    m.seq, m.access);
		if (!m.length)
			proto_error(p, "seq %u: grant of 0 bytes", m.seq);
		if (m.flags & ~MWIN_WIRE_GRANT_ONCE)
			proto_error(p, "seq %u: grant flags 0x%x", m.seq, m.flags);
	} else if (m.access < MWIN_REVOKE_INVALIDATE ||
		   m.access > MWIN_REVOKE_EXPIRED) {
		proto_error(p, "seq %u: revoke reason %u", m.seq, m.access);
	} else if (m.lease_ms || m.flags) {
		proto_error(p, "seq %u: revoke with a lease or flags", m.seq);
	}
	m.valid = p->proto_errors == before;
	apply_msg(p, &m);
	if (p->proto_errors != before)
		m.valid = false;
	queue_msg(p, &m);
}

/* One SEND from the module: 1 to MWIN_WIRE_MSGS_PER_SEND messages. */
static void handle_recv(struct mwpeer *p, const uint8_t *raw, uint32_t len,
			const struct ibv_wc *wc)
{
	uint32_t off;

	if (!len || len % MSG_SIZE) {
		proto_error(p, "receive of %u bytes, not a multiple of %zu",
			    len, MSG_SIZE);
		return;
	}
	p->recvs++;
	for (off = 0; off < len; off += MSG_SIZE)
		handle_msg(p, raw + off, wc);
}

int mwpeer_next_msg(struct mwpeer *p, struct mwpeer_msg *out, int timeout_ms)
{
	int64_t deadline;

	if (timeout_ms < 0)
		timeout_ms = p->timeout_ms;
	deadline = now_ms() + timeout_ms;
	for (;;) {
		int left;

		if (!p->q_len)
			mwpeer_poll(p, 0);
		if (p->q_len) {
			*out = p->q[p->q_head];
			p->q_head++;
			if (!--p->q_len)
				p->q_head = 0;
			return 0;
		}
		if (p->state != MWPEER_CONNECTED)
			return -ENOTCONN;
		left = ms_left(deadline);
		if (!left)
			return -ETIMEDOUT;
		ep_wait(p, left);
	}
}

int mwpeer_grant(const struct mwpeer *p, uint32_t window,
		 struct mwpeer_msg *out)
{
	bool found;
	size_t i = grant_pos(p, window, &found);

	if (!found)
		return -ENOENT;
	if (out)
		*out = p->grants[i];
	return 0;
}

int mwpeer_wait_grant(struct mwpeer *p, uint32_t window, uint32_t old_rkey,
		      struct mwpeer_msg *out, int timeout_ms)
{
	struct mwpeer_msg g;
	int64_t deadline;

	if (timeout_ms < 0)
		timeout_ms = p->timeout_ms;
	deadline = now_ms() + timeout_ms;
	for (;;) {
		int left;

		mwpeer_poll(p, 0);
		if (!mwpeer_grant(p, window, &g) && (!old_rkey || g.rkey != old_rkey)) {
			if (out)
				*out = g;
			return 0;
		}
		if (p->state != MWPEER_CONNECTED)
			return -ENOTCONN;
		left = ms_left(deadline);
		if (!left)
			return -ETIMEDOUT;
		ep_wait(p, left);
	}
}

size_t mwpeer_grants(const struct mwpeer *p, struct mwpeer_msg *out,
		     size_t max)
{
	size_t i;

	for (i = 0; i < p->n_grants && i < max; i++)
		out[i] = p->grants[i];
	return p->n_grants;
}

static void reset_msgs(struct mwpeer *p)
{
	p->q_head = 0;
	p->q_len = 0;
	p->n_grants = 0;
	p->last_seq = 0;
	p->recvs = 0;
	p->proto_errors = 0;
	p->proto_first[0] = '\0';
}

/* --------------------------------------------------------- completions */

static int post_recv(struct mwpeer *p, unsigned int slot)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(p->mem + p->recv_off + slot * RECV_SIZE),
		.length = RECV_SIZE,
		.lkey = p->mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = slot,
		.sg_list = &sge,
		.num_sge = 1,
	}, *bad;

	return ibv_post_recv(p->id->qp, &wr, &bad);
}

static void drain_recv(struct mwpeer *p)
{
	struct ibv_wc wc[16];
	int n, i;

	while ((n = ibv_poll_cq(p->rcq, 16, wc)) > 0) {
		for (i = 0; i < n; i++) {
			unsigned int slot = (unsigned int)wc[i].wr_id;
			uint8_t raw[RECV_SIZE];
			uint32_t len = wc[i].byte_len;
			int r;

			if (wc[i].status != IBV_WC_SUCCESS) {
				/* flushes follow any error, and a disconnect */
				if (wc[i].status != IBV_WC_WR_FLUSH_ERR ||
				    (!p->qp_error && p->state == MWPEER_CONNECTED))
					seterr(p, "receive failed: %s (vendor error 0x%x)",
					       ibv_wc_status_str(wc[i].status),
					       wc[i].vendor_err);
				p->qp_error = true;
				continue;
			}
			if (slot >= (unsigned int)p->recv_depth)
				continue;
			if (len > RECV_SIZE)
				len = RECV_SIZE;
			memcpy(raw, p->mem + p->recv_off + slot * RECV_SIZE,
			       len);
			r = post_recv(p, slot);
			if (r)
				seterr(p, "cannot repost a receive: %s",
				       strerror(r));
			handle_recv(p, raw, len, &wc[i]);
		}
	}
}

/*
 * Answer the other side's DREQ, which flushes the QP. Not while requests
 * are outstanding: the other side may have answered them just before it
 * closed (the module drops a peer after an access error), and rxe of 6.12
 * hands such an answer to its completer in a work item (6.1's: a tasklet)
 * that can run after the CM reported the DREQ. A flush then would hide the
 * answer. drain_send() answers when the last request completed, post_wait()
 * after CLOSE_GRACE_MS.
 */
static void answer_dreq(struct mwpeer *p)
{
	if (!p->dreq_unanswered)
		return;
	p->dreq_unanswered = false;
	rdma_disconnect(p->id);
}

static void drain_send(struct mwpeer *p)
{
	struct ibv_wc wc[16];
	int n, i;

	while ((n = ibv_poll_cq(p->scq, 16, wc)) > 0) {
		for (i = 0; i < n; i++) {
			bool mine = p->wait_wr && wc[i].wr_id == p->wait_wr;

			if (p->send_outstanding)
				p->send_outstanding--;
			if (wc[i].status != IBV_WC_SUCCESS) {
				if (wc[i].status != IBV_WC_WR_FLUSH_ERR ||
				    (!p->qp_error && p->state == MWPEER_CONNECTED))
					seterr(p, "%s failed: %s (vendor error 0x%x)",
					       mine ? p->wait_what :
					       "earlier timed-out request",
					       ibv_wc_status_str(wc[i].status),
					       wc[i].vendor_err);
				p->qp_error = true;
			}
			if (mine) {
				p->wait_done = true;
				p->wait_status = (int)wc[i].status;
				p->wait_wr = 0;
			}
		}
	}
	if (!p->send_outstanding)
		answer_dreq(p);
}

/* --------------------------------------------------------- CM events */

static void handle_cm_events(struct mwpeer *p)
{
	struct rdma_cm_event *ev;

	while (p->ch && rdma_get_cm_event(p->ch, &ev) == 0) {
		enum rdma_cm_event_type type = ev->event;

		rdma_ack_cm_event(ev);
		switch (type) {
		case RDMA_CM_EVENT_DISCONNECTED:
		case RDMA_CM_EVENT_DEVICE_REMOVAL:
		/*
		 * A module that drops the peer before its CM took our RTU
		 * answers with a REJ, not a DREQ: closed all the same.
		 */
		case RDMA_CM_EVENT_REJECTED:
		case RDMA_CM_EVENT_UNREACHABLE:
		case RDMA_CM_EVENT_CONNECT_ERROR:
			if (p->state == MWPEER_CONNECTED) {
				p->state = MWPEER_DISCONNECTED;
				seterr(p, "connection closed by the other side (%s)",
				       rdma_event_str(type));
				p->dreq_unanswered = true;
				if (!p->send_outstanding)
					answer_dreq(p);
			}
			break;
		default:
			break;
		}
	}
}

int mwpeer_poll(struct mwpeer *p, int timeout_ms)
{
	struct ibv_cq *cq;
	void *ctx;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		if (pass) {
			if (timeout_ms <= 0 || !p->id)
				break;
			ep_wait(p, timeout_ms);
		}
		handle_cm_events(p);
		if (!p->cc)
			continue;
		while (ibv_get_cq_event(p->cc, &cq, &ctx) == 0)
			ibv_ack_cq_events(cq, 1);
		/* arm, then drain: a completion after the drain wakes the fd */
		ibv_req_notify_cq(p->rcq, 0);
		ibv_req_notify_cq(p->scq, 0);
		drain_recv(p);
		drain_send(p);
	}
	return 0;
}

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
static bool tenant_name_ok(const char *name)
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
static int tenant_hello(struct mwpeer *p)
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
			seterr(p, "getrandom: %s", strerror(errno));
			return -errno;
		}
		got += (size_t)n;
	}
	memcpy(p->hs.peer_nonce, h.nonce, sizeof(h.nonce));
	memcpy(p->priv, &h, sizeof(h));
	p->priv_len = sizeof(h);
	return 0;
}

static int send_op(struct mwpeer *p, bool inv, uint32_t rkey,
		   const void *buf, size_t len);

/*
 * The version 3 accept: the ids, then with a key the module's proof checked
 * and ours sent, as the connection's first SEND.
 */
static int tenant_accept(struct mwpeer *p, const void *data, size_t len)
{
	struct mwin_wire_accept_tenant a;
	struct mwin_wire_proof pr;
	uint8_t want[MWIN_WIRE_PROOF_LEN];
	int r;

	if (!data || len < sizeof(a)) {
		seterr(p, "accept without mwin version 3 private data (%zu bytes, not %zu)",
		       data ? len : 0, sizeof(a));
		return -EPROTO;
	}
	memcpy(&a, data, sizeof(a));
	if (le32toh(a.magic) != MWIN_WIRE_MAGIC ||
	    a.version != MWIN_WIRE_VERSION_TENANT) {
		seterr(p, "accept with magic 0x%08x version %u",
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
			seterr(p, "tenant %s has a key, and none was given",
			       p->tenant);
			return -ENOKEY;
		}
		return 0;
	}
	if (!(a.flags & MWIN_WIRE_PROOF_NEEDED)) {
		seterr(p, "the module could not prove it holds the key: it asked for no proof (tenant %s has no key there)",
		       p->tenant);
		return -EACCES;
	}
	r = mwpeer_proof(p->key, p->key_len, true, p->hs.peer_nonce,
			 a.nonce, p->peer_id, want);
	if (r) {
		seterr(p, "HMAC-SHA256 of the module's proof failed");
		return r;
	}
	if (CRYPTO_memcmp(want, a.proof, sizeof(want))) {
		seterr(p, "the module could not prove it holds the key");
		return -EACCES;
	}

	memset(&pr, 0, sizeof(pr));
	pr.magic = htole32(MWIN_WIRE_MAGIC);
	pr.version = MWIN_WIRE_VERSION_TENANT;
	pr.type = MWIN_WIRE_PROOF;
	r = mwpeer_proof(p->key, p->key_len, false, p->hs.peer_nonce,
			 a.nonce, p->peer_id, pr.proof);
	if (r) {
		seterr(p, "HMAC-SHA256 of the peer's proof failed");
		return r;
	}
	memcpy(p->hs.peer_proof, pr.proof, sizeof(pr.proof));
	if (p->no_proof)
		return 0;
	r = send_op(p, false, 0, &pr, sizeof(pr));
	if (r) {
		char msg[sizeof(p->errmsg)];

		memcpy(msg, p->errmsg, sizeof(msg));
		seterr(p, "sending the proof: %s", msg);
		return r > 0 ? -ECONNABORTED : r;
	}
	p->hs.proof_sent = true;
	return 0;
}

/* ----------------------------------------------------------- lifetime */

static void conn_destroy(struct mwpeer *p)
{
	if (p->id) {
		if (p->state == MWPEER_CONNECTED)
			rdma_disconnect(p->id);
		answer_dreq(p);
		if (p->id->qp)
			rdma_destroy_qp(p->id);
	}
	if (p->mr)
		ibv_dereg_mr(p->mr);
	if (p->scq)
		ibv_destroy_cq(p->scq);
	if (p->rcq)
		ibv_destroy_cq(p->rcq);
	if (p->cc) {
		ep_del(p, p->cc->fd);
		ibv_destroy_comp_channel(p->cc);
	}
	if (p->pd)
		ibv_dealloc_pd(p->pd);
	if (p->id)
		rdma_destroy_id(p->id);
	if (p->ch) {
		ep_del(p, p->ch->fd);
		rdma_destroy_event_channel(p->ch);
	}
	p->mr = NULL;
	p->scq = NULL;
	p->rcq = NULL;
	p->cc = NULL;
	p->pd = NULL;
	p->id = NULL;
	p->ch = NULL;
	p->state = MWPEER_IDLE;
	p->qp_error = false;
	p->qp_num = 0;
	p->wait_wr = 0;
	p->send_outstanding = 0;
	p->devname[0] = '\0';
}

struct mwpeer *mwpeer_create(const struct mwpeer_opts *opts)
{
	static const struct mwpeer_opts defaults;
	struct mwpeer *p;
	size_t sz;
	void *mem;
	int e;

	if (!opts)
		opts = &defaults;
	if (opts->private_data_len > sizeof(p->priv) ||
	    (opts->private_data_len && !opts->private_data) ||
	    opts->retry_count > 7 || opts->rnr_retry_count > 7 ||
	    opts->timeout_ms < 0 ||
	    (opts->tenant && !tenant_name_ok(opts->tenant)) ||
	    ((opts->key || opts->key_len) &&
	     (!opts->tenant || !opts->key ||
	      opts->key_len < MWIN_TENANT_KEY_MIN ||
	      opts->key_len > MWIN_TENANT_KEY_MAX))) {
		errno = EINVAL;
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->epfd = -1;
	if (opts->dev && !(p->dev = strdup(opts->dev)))
		goto fail;
	p->timeout_ms = opts->timeout_ms ? opts->timeout_ms :
			MWPEER_DEFAULT_TIMEOUT_MS;
	p->buf_size = opts->buf_size ? opts->buf_size : MWPEER_DEFAULT_BUF_SIZE;
	if (p->buf_size > (1UL << 40)) {
		errno = EINVAL;
		goto fail;
	}
	p->recv_depth = opts->recv_depth < 0 ? 0 :
			opts->recv_depth ? opts->recv_depth :
			MWPEER_DEFAULT_RECV_DEPTH;
	if (p->recv_depth > MAX_RECV_DEPTH)
		p->recv_depth = MAX_RECV_DEPTH;
	if (opts->tenant) {
		/* NUL-padded; tenant_hello() makes the hello at each connect */
		memcpy(p->tenant, opts->tenant, strlen(opts->tenant));
		if (opts->key) {
			memcpy(p->key, opts->key, opts->key_len);
			p->key_len = opts->key_len;
		}
		p->no_proof = opts->no_proof;
	}
	if (opts->private_data) {
		p->raw_priv = true;
		p->priv_len = opts->private_data_len;
		memcpy(p->priv, opts->private_data, p->priv_len);
	} else if (p->tenant[0]) {
		p->priv_len = sizeof(struct mwin_wire_hello_tenant);
	} else {
		struct mwin_wire_hello h = {
			.magic = htole32(MWIN_WIRE_MAGIC),
			.version = MWIN_WIRE_VERSION,
		};

		memcpy(p->priv, &h, sizeof(h));
		p->priv_len = sizeof(h);
	}
	p->retry = opts->retry_count ? opts->retry_count : MWPEER_DEFAULT_RETRY;
	p->rnr_retry = opts->rnr_retry_count ? opts->rnr_retry_count :
		       MWPEER_DEFAULT_RNR_RETRY;

	p->atomic_off = (p->buf_size + 63) & ~(size_t)63;
	p->send_off = p->atomic_off + 64;
	p->recv_off = p->send_off + MWPEER_SEND_MAX;
	sz = p->recv_off + (size_t)p->recv_depth * RECV_SIZE;
	sz = (sz + 4095) & ~(size_t)4095;
	if (posix_memalign(&mem, 4096, sz)) {
		errno = ENOMEM;
		goto fail;
	}
	memset(mem, 0, sz);
	p->mem = mem;
	p->mem_size = sz;

	p->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (p->epfd < 0)
		goto fail;
	return p;
fail:
	e = errno;
	mwpeer_close(p);
	errno = e;
	return NULL;
}

/* wait for the next CM event on the (nonblocking) channel */
static int get_cm_event(struct mwpeer *p, int64_t deadline,
			struct rdma_cm_event **ev)
{
	for (;;) {
		struct pollfd pfd = { .fd = p->ch->fd, .events = POLLIN };
		int left;

		if (rdma_get_cm_event(p->ch, ev) == 0)
			return 0;
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			return -errno;
		left = ms_left(deadline);
		if (!left)
			return -ETIMEDOUT;
		poll(&pfd, 1, left);
	}
}

static int cm_status_err(int status, int dflt)
{
	return status < 0 ? status : dflt;
}

uint16_t mwpeer_default_port(void)
{
	const char *env = getenv("MWIN_PORT");
	char *end;
	unsigned long v;

	if (!env || !*env)
		return MWIN_DEFAULT_PORT;
	v = strtoul(env, &end, 10);
	return *end || !v || v > 65535 ? MWIN_DEFAULT_PORT : (uint16_t)v;
}

/* resolve @host:@port into @dst and the dev option into @src */
static int resolve(struct mwpeer *p, const char *host, uint16_t port,
		   struct sockaddr_storage *dst, struct sockaddr_storage *src,
		   bool *have_src)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res;
	char portstr[8];
	int r;

	snprintf(portstr, sizeof(portstr), "%u", port);
	r = getaddrinfo(host, portstr, &hints, &res);
	if (r) {
		seterr(p, "cannot resolve %s: %s", host, gai_strerror(r));
		return r == EAI_SYSTEM ? -errno : -EHOSTUNREACH;
	}
	memcpy(dst, res->ai_addr, res->ai_addrlen);
	freeaddrinfo(res);

	*have_src = false;
	if (p->dev) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)src;
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)src;

		memset(src, 0, sizeof(*src));
		if (inet_pton(AF_INET, p->dev, &s4->sin_addr) == 1) {
			s4->sin_family = AF_INET;
			*have_src = true;
		} else if (inet_pton(AF_INET6, p->dev, &s6->sin6_addr) == 1) {
			s6->sin6_family = AF_INET6;
			*have_src = true;
		}
	}
	return 0;
}

static int conn_setup(struct mwpeer *p, const char *host, uint16_t port)
{
	struct sockaddr_storage dst, src;
	struct ibv_device_attr da;
	struct ibv_qp_init_attr qa;
	struct rdma_conn_param cp;
	struct rdma_cm_event *ev;
	bool have_src = false;
	int64_t deadline = now_ms() + p->timeout_ms;
	int r, i;

	r = resolve(p, host, port, &dst, &src, &have_src);
	if (r)
		return r;

	p->ch = rdma_create_event_channel();
	if (!p->ch) {
		r = -errno;
		seterr(p, "rdma_create_event_channel: %s%s", strerror(-r),
		       r == -ENOENT || r == -ENODEV ?
		       " (is rdma_ucm loaded?)" : "");
		return r;
	}
	r = set_nonblock(p->ch->fd);
	if (!r)
		r = ep_add(p, p->ch->fd);
	if (r) {
		seterr(p, "event channel: %s", strerror(-r));
		return r;
	}
	if (rdma_create_id(p->ch, &p->id, p, RDMA_PS_TCP)) {
		r = -errno;
		seterr(p, "rdma_create_id: %s", strerror(-r));
		return r;
	}

	/* address */
	if (rdma_resolve_addr(p->id, have_src ? (struct sockaddr *)&src : NULL,
			      (struct sockaddr *)&dst,
			      ms_left(deadline) ? ms_left(deadline) : 1)) {
		r = -errno;
		seterr(p, "rdma_resolve_addr %s: %s", host, strerror(-r));
		return r;
	}
	r = get_cm_event(p, deadline, &ev);
	if (r) {
		seterr(p, "resolving the address of %s: %s", host,
		       strerror(-r));
		return r;
	}
	if (ev->event != RDMA_CM_EVENT_ADDR_RESOLVED) {
		r = cm_status_err(ev->status, -EHOSTUNREACH);
		seterr(p, "resolving the address of %s: %s (%s)", host,
		       rdma_event_str(ev->event), strerror(-r));
		rdma_ack_cm_event(ev);
		return r;
	}
	rdma_ack_cm_event(ev);
	snprintf(p->devname, sizeof(p->devname), "%s",
		 ibv_get_device_name(p->id->verbs->device));
	if (p->dev && !have_src && strcmp(p->dev, p->devname)) {
		seterr(p, "%s is reached through %s, not %s", host,
		       p->devname, p->dev);
		return -ENODEV;
	}

	/* route */
	if (rdma_resolve_route(p->id, ms_left(deadline) ? ms_left(deadline) : 1)) {
		r = -errno;
		seterr(p, "rdma_resolve_route %s: %s", host, strerror(-r));
		return r;
	}
	r = get_cm_event(p, deadline, &ev);
	if (r) {
		seterr(p, "resolving the route to %s: %s", host, strerror(-r));
		return r;
	}
	if (ev->event != RDMA_CM_EVENT_ROUTE_RESOLVED) {
		r = cm_status_err(ev->status, -EHOSTUNREACH);
		seterr(p, "resolving the route to %s: %s (%s)", host,
		       rdma_event_str(ev->event), strerror(-r));
		rdma_ack_cm_event(ev);
		return r;
	}
	rdma_ack_cm_event(ev);

	/* verbs resources */
	if (ibv_query_device(p->id->verbs, &da)) {
		r = -errno;
		seterr(p, "ibv_query_device %s: %s", p->devname, strerror(-r));
		return r;
	}
	p->pd = ibv_alloc_pd(p->id->verbs);
	if (!p->pd) {
		r = -errno;
		seterr(p, "ibv_alloc_pd: %s", strerror(-r));
		return r;
	}
	p->mr = ibv_reg_mr(p->pd, p->mem, p->mem_size, IBV_ACCESS_LOCAL_WRITE);
	if (!p->mr) {
		r = -errno;
		seterr(p, "ibv_reg_mr of %zu bytes: %s", p->mem_size,
		       strerror(-r));
		return r;
	}
	p->cc = ibv_create_comp_channel(p->id->verbs);
	if (!p->cc) {
		r = -errno;
		seterr(p, "ibv_create_comp_channel: %s", strerror(-r));
		return r;
	}
	r = set_nonblock(p->cc->fd);
	if (!r)
		r = ep_add(p, p->cc->fd);
	if (r) {
		seterr(p, "completion channel: %s", strerror(-r));
		return r;
	}
	p->max_send = MAX_SEND_WR;
	if (da.max_qp_wr > 0 && (unsigned int)da.max_qp_wr < p->max_send)
		p->max_send = (unsigned int)da.max_qp_wr;
	p->scq = ibv_create_cq(p->id->verbs, (int)p->max_send, p, p->cc, 0);
	p->rcq = ibv_create_cq(p->id->verbs,
			       p->recv_depth ? p->recv_depth : 1, p, p->cc, 0);
	if (!p->scq || !p->rcq) {
		r = -errno;
		seterr(p, "ibv_create_cq: %s", strerror(-r));
		return r;
	}
	memset(&qa, 0, sizeof(qa));
	qa.send_cq = p->scq;
	qa.recv_cq = p->rcq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = p->max_send;
	qa.cap.max_recv_wr = p->recv_depth ? (uint32_t)p->recv_depth : 1;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	qa.cap.max_inline_data = MSG_SIZE;
	if (rdma_create_qp(p->id, p->pd, &qa)) {
		qa.cap.max_inline_data = 0;
		if (rdma_create_qp(p->id, p->pd, &qa)) {
			r = -errno;
			seterr(p, "rdma_create_qp: %s", strerror(-r));
			return r;
		}
	}
	p->max_inline = qa.cap.max_inline_data;
	p->qp_num = p->id->qp->qp_num;
	ibv_req_notify_cq(p->rcq, 0);
	ibv_req_notify_cq(p->scq, 0);
	for (i = 0; i < p->recv_depth; i++) {
		r = post_recv(p, (unsigned int)i);
		if (r) {
			seterr(p, "ibv_post_recv: %s", strerror(r));
			return -r;
		}
	}

	/* connect */
	memset(&cp, 0, sizeof(cp));
	cp.private_data = p->priv_len ? p->priv : NULL;
	cp.private_data_len = (uint8_t)p->priv_len;
	cp.initiator_depth = (uint8_t)(da.max_qp_init_rd_atom < MAX_RD_ATOM ?
				       da.max_qp_init_rd_atom : MAX_RD_ATOM);
	cp.responder_resources = (uint8_t)(da.max_qp_rd_atom < MAX_RD_ATOM ?
					   da.max_qp_rd_atom : MAX_RD_ATOM);
	cp.retry_count = p->retry;
	cp.rnr_retry_count = p->rnr_retry;
	memset(&p->reject, 0, sizeof(p->reject));
	if (p->tenant[0]) {
		r = tenant_hello(p);
		if (r)
			return r;
	}
	if (rdma_connect(p->id, &cp)) {
		r = -errno;
		seterr(p, "rdma_connect: %s", strerror(-r));
		return r;
	}
	for (;;) {
		r = get_cm_event(p, deadline, &ev);
		if (r) {
			seterr(p, "connecting to %s:%u: %s", host, port,
			       strerror(-r));
			return r;
		}
		if (ev->event == RDMA_CM_EVENT_ESTABLISHED)
			break;
		if (ev->event == RDMA_CM_EVENT_REJECTED) {
			const struct rdma_conn_param *c = &ev->param.conn;
			struct mwpeer_reject *rj = &p->reject;

			rj->rejected = true;
			rj->reason = ev->status;
			rj->by_module = ev->status == IB_CM_REJ_CONSUMER_DEFINED;
			rj->data_len = c->private_data ? c->private_data_len : 0;
			if (rj->data_len > sizeof(rj->data))
				rj->data_len = sizeof(rj->data);
			if (rj->data_len)
				memcpy(rj->data, c->private_data, rj->data_len);
			if (rj->data_len >= sizeof(struct mwin_wire_reject)) {
				struct mwin_wire_reject h;

				memcpy(&h, rj->data, sizeof(h));
				if (le32toh(h.magic) == MWIN_WIRE_MAGIC) {
					rj->version_valid = true;
					rj->version = h.version;
					rj->wire_reason = h.reason;
				}
			}
			if (rj->version_valid && rj->wire_reason && p->tenant[0])
				seterr(p, "tenant %s rejected by mwin on %s:%u: %s",
				       p->tenant, host, port,
				       mwpeer_reject_reason_str(rj->wire_reason));
			else if (rj->version_valid && rj->wire_reason)
				seterr(p, "rejected by mwin on %s:%u: %s",
				       host, port,
				       mwpeer_reject_reason_str(rj->wire_reason));
			else if (rj->version_valid)
				seterr(p, "rejected by mwin on %s:%u (it speaks wire version %u)",
				       host, port, rj->version);
			else if (rj->by_module)
				seterr(p, "rejected by the listener on %s:%u", host, port);
			else if (ev->status == IB_CM_REJ_INVALID_SERVICE_ID)
				seterr(p, "nobody listens on %s:%u", host, port);
			else
				seterr(p, "rejected by %s:%u (reason %d)", host,
				       port, ev->status);
			rdma_ack_cm_event(ev);
			return -ECONNREFUSED;
		}
		if (ev->event == RDMA_CM_EVENT_UNREACHABLE ||
		    ev->event == RDMA_CM_EVENT_CONNECT_ERROR ||
		    ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL) {
			r = cm_status_err(ev->status,
					  ev->event == RDMA_CM_EVENT_UNREACHABLE ?
					  -EHOSTUNREACH : -ECONNABORTED);
			seterr(p, "connecting to %s:%u: %s (%s)", host, port,
			       rdma_event_str(ev->event), strerror(-r));
			rdma_ack_cm_event(ev);
			return r;
		}
		/* anything else (address change...) is of no interest here */
		rdma_ack_cm_event(ev);
	}

	/* established: the accept's private data holds our id */
	if (p->tenant[0]) {
		const struct rdma_conn_param *c = &ev->param.conn;
		uint8_t data[sizeof(struct mwin_wire_accept_tenant)];
		size_t full = c->private_data ? c->private_data_len : 0;

		if (full)
			memcpy(data, c->private_data,
			       full < sizeof(data) ? full : sizeof(data));
		rdma_ack_cm_event(ev);
		p->state = MWPEER_CONNECTED;	/* to disconnect on failure */
		r = tenant_accept(p, full ? data : NULL, full);
		if (r)
			return r;
	} else {
		const struct rdma_conn_param *c = &ev->param.conn;
		struct mwin_wire_accept a;

		if (!c->private_data || c->private_data_len < sizeof(a)) {
			seterr(p, "accept without mwin private data (%u bytes)",
			       c->private_data ? c->private_data_len : 0);
			rdma_ack_cm_event(ev);
			p->state = MWPEER_CONNECTED;	/* to disconnect */
			return -EPROTO;
		}
		memcpy(&a, c->private_data, sizeof(a));
		rdma_ack_cm_event(ev);
		p->state = MWPEER_CONNECTED;
		if (le32toh(a.magic) != MWIN_WIRE_MAGIC ||
		    a.version != MWIN_WIRE_VERSION) {
			seterr(p, "accept with magic 0x%08x version %u",
			       le32toh(a.magic), a.version);
			return -EPROTO;
		}
		p->peer_id = le32toh(a.peer);
		p->hs.version = a.version;
		p->hs.peer = p->peer_id;
	}
	p->errmsg[0] = '\0';
	return 0;
}

int mwpeer_open(struct mwpeer *p, const char *host, uint16_t port)
{
	int r;

	if (p->id) {
		seterr(p, "already connected");
		return -EISCONN;
	}
	if (!host) {
		seterr(p, "no host");
		return -EINVAL;
	}
	if (!port)
		port = mwpeer_default_port();
	if (host != p->host) {
		char *h = strdup(host);

		if (!h) {
			seterr(p, "out of memory");
			return -ENOMEM;
		}
		free(p->host);
		p->host = h;
	}
	p->port = port;
	reset_msgs(p);
	p->peer_id = 0;
	p->tenant_id = 0;
	memset(&p->hs, 0, sizeof(p->hs));
	r = conn_setup(p, p->host, port);
	if (r) {
		char msg[sizeof(p->errmsg)];

		/* teardown must not hide why */
		memcpy(msg, p->errmsg, sizeof(msg));
		conn_destroy(p);
		memcpy(p->errmsg, msg, sizeof(msg));
		p->peer_id = 0;
		p->tenant_id = 0;
	}
	return r;
}

int mwpeer_reconnect(struct mwpeer *p)
{
	if (!p->host) {
		seterr(p, "never connected");
		return -EINVAL;
	}
	conn_destroy(p);
	return mwpeer_open(p, p->host, p->port);
}

void mwpeer_disconnect(struct mwpeer *p)
{
	conn_destroy(p);
}

/* mwpeer_create(@o) and mwpeer_open(): the peer, or NULL with *@err */
static struct mwpeer *connect_with(const struct mwpeer_opts *o,
				   const char *host, uint16_t port, int *err)
{
	struct mwpeer *p = mwpeer_create(o);
	int r;

	if (!p) {
		if (err)
			*err = -errno;
		return NULL;
	}
	r = mwpeer_open(p, host, port);
	if (err)
		*err = r;
	if (r) {
		mwpeer_close(p);
		return NULL;
	}
	return p;
}

struct mwpeer *mwpeer_connect(const char *host, uint16_t port,
			      const char *dev, int timeout_ms, int *err)
{
	struct mwpeer_opts o = { .dev = dev, .timeout_ms = timeout_ms };

	return connect_with(&o, host, port, err);
}

struct mwpeer *mwpeer_connect_tenant(const char *host, uint16_t port,
				     const char *dev, int timeout_ms,
				     const char *tenant, const void *key,
				     size_t key_len, int *err)
{
	struct mwpeer_opts o = {
		.dev = dev, .timeout_ms = timeout_ms,
		.tenant = tenant, .key = key, .key_len = key_len,
	};

	if (!tenant) {
		if (err)
			*err = -EINVAL;
		return NULL;
	}
	return connect_with(&o, host, port, err);
}

void mwpeer_close(struct mwpeer *p)
{
	if (!p)
		return;
	conn_destroy(p);
	OPENSSL_cleanse(p->key, sizeof(p->key));
	if (p->epfd >= 0)
		close(p->epfd);
	free(p->mem);
	free(p->q);
	free(p->grants);
	free(p->dev);
	free(p->host);
	free(p);
}

/* ---------------------------------------------------------- operations */

static int post_wait(struct mwpeer *p, struct ibv_send_wr *wr,
		     const char *what)
{
	struct ibv_send_wr *bad;
	int64_t deadline, closed = 0;
	int r;

	mwpeer_poll(p, 0);
	if (p->state != MWPEER_CONNECTED) {
		seterr(p, "%s: not connected", what);
		return -ENOTCONN;
	}
	if (p->qp_error) {
		/* what the device answers: the QP stays in error for good */
		seterr(p, "%s: the QP is in the error state", what);
		return IBV_WC_WR_FLUSH_ERR;
	}
	if (p->send_outstanding >= p->max_send) {
		seterr(p, "%s: send queue full of timed-out requests", what);
		return -EBUSY;
	}
	wr->wr_id = ++p->wr_seq;
	wr->send_flags |= IBV_SEND_SIGNALED;
	r = ibv_post_send(p->id->qp, wr, &bad);
	if (r) {
		seterr(p, "%s: ibv_post_send: %s", what, strerror(r));
		return -r;
	}
	p->send_outstanding++;
	p->wait_wr = wr->wr_id;
	p->wait_done = false;
	p->wait_what = what;
	deadline = now_ms() + p->timeout_ms;
	for (;;) {
		int left;

		mwpeer_poll(p, 0);
		if (p->wait_done)
			return p->wait_status;
		/* the answer may trail the DREQ: see answer_dreq() */
		if (p->state != MWPEER_CONNECTED && !closed)
			closed = now_ms() + CLOSE_GRACE_MS;
		if (closed && !ms_left(closed)) {
			answer_dreq(p);
			p->wait_wr = 0;
			seterr(p, "%s: connection closed by the other side", what);
			return -ENOTCONN;
		}
		left = ms_left(closed && closed < deadline ? closed : deadline);
		if (!left) {
			p->wait_wr = 0;
			seterr(p, "%s: no completion in %d ms", what,
			       p->timeout_ms);
			return -ETIMEDOUT;
		}
		ep_wait(p, left);
	}
}

static int rdma_op(struct mwpeer *p, enum ibv_wr_opcode op, uint32_t rkey,
		   uint64_t raddr, size_t len, const char *what)
{
	struct ibv_sge sge;
	struct ibv_send_wr wr;

	if (len > p->buf_size) {
		seterr(p, "%s of %zu bytes: the local buffer has %zu", what,
		       len, p->buf_size);
		return -EMSGSIZE;
	}
	if (len > UINT32_MAX) {
		seterr(p, "%s of %zu bytes: too long", what, len);
		return -EMSGSIZE;
	}
	memset(&wr, 0, sizeof(wr));
	wr.opcode = op;
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	if (len && p->mr) {
		sge.addr = (uintptr_t)p->mem;
		sge.length = (uint32_t)len;
		sge.lkey = p->mr->lkey;
		wr.sg_list = &sge;
		wr.num_sge = 1;
	}
	return post_wait(p, &wr, what);
}

int mwpeer_write(struct mwpeer *p, uint32_t rkey, uint64_t raddr,
		 const void *buf, size_t len)
{
	if (buf && len && len <= p->buf_size && buf != p->mem)
		memmove(p->mem, buf, len);
	return rdma_op(p, IBV_WR_RDMA_WRITE, rkey, raddr, len, "RDMA WRITE");
}

int mwpeer_read(struct mwpeer *p, uint32_t rkey, uint64_t raddr,
		void *buf, size_t len)
{
	int r = rdma_op(p, IBV_WR_RDMA_READ, rkey, raddr, len, "RDMA READ");

	if (r == IBV_WC_SUCCESS && buf && len && buf != p->mem)
		memmove(buf, p->mem, len);
	return r;
}

static int atomic_op(struct mwpeer *p, enum ibv_wr_opcode op, uint32_t rkey,
		     uint64_t raddr, uint64_t cmp_add, uint64_t swap,
		     uint64_t *old, const char *what)
{
	uint64_t *res = (uint64_t *)(void *)(p->mem + p->atomic_off);
	struct ibv_sge sge;
	struct ibv_send_wr wr;
	int r;

	if (p->state != MWPEER_CONNECTED) {
		seterr(p, "%s: not connected", what);
		return -ENOTCONN;
	}
	*res = 0;
	sge.addr = (uintptr_t)res;
	sge.length = sizeof(*res);
	sge.lkey = p->mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.opcode = op;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.wr.atomic.remote_addr = raddr;
	wr.wr.atomic.rkey = rkey;
	wr.wr.atomic.compare_add = cmp_add;
	wr.wr.atomic.swap = swap;
	r = post_wait(p, &wr, what);
	if (r == IBV_WC_SUCCESS && old)
		*old = *res;
	return r;
}

int mwpeer_cas(struct mwpeer *p, uint32_t rkey, uint64_t raddr,
	       uint64_t compare, uint64_t swap, uint64_t *old)
{
	return atomic_op(p, IBV_WR_ATOMIC_CMP_AND_SWP, rkey, raddr, compare,
			 swap, old, "atomic compare and swap");
}

int mwpeer_fadd(struct mwpeer *p, uint32_t rkey, uint64_t raddr,
		uint64_t add, uint64_t *old)
{
	return atomic_op(p, IBV_WR_ATOMIC_FETCH_AND_ADD, rkey, raddr, add, 0,
			 old, "atomic fetch and add");
}

static int send_op(struct mwpeer *p, bool inv, uint32_t rkey,
		   const void *buf, size_t len)
{
	const char *what = inv ? "Send-with-Invalidate" : "SEND";
	struct ibv_sge sge;
	struct ibv_send_wr wr;

	if (len > (buf ? MWPEER_SEND_MAX : p->buf_size)) {
		seterr(p, "%s of %zu bytes: too long", what, len);
		return -EMSGSIZE;
	}
	memset(&wr, 0, sizeof(wr));
	wr.opcode = inv ? IBV_WR_SEND_WITH_INV : IBV_WR_SEND;
	if (inv)
		wr.invalidate_rkey = rkey;
	if (len && p->mr) {
		if (buf && len <= p->max_inline) {
			sge.addr = (uintptr_t)buf;
			wr.send_flags = IBV_SEND_INLINE;
		} else if (buf) {
			memcpy(p->mem + p->send_off, buf, len);
			sge.addr = (uintptr_t)(p->mem + p->send_off);
		} else {
			sge.addr = (uintptr_t)p->mem;
		}
		sge.length = (uint32_t)len;
		sge.lkey = p->mr->lkey;
		wr.sg_list = &sge;
		wr.num_sge = 1;
	}
	return post_wait(p, &wr, what);
}

int mwpeer_send_inv(struct mwpeer *p, uint32_t rkey)
{
	return send_op(p, true, rkey, NULL, 0);
}

int mwpeer_send_inv_data(struct mwpeer *p, uint32_t rkey,
			 const void *buf, size_t len)
{
	return send_op(p, true, rkey, buf, len);
}

int mwpeer_send(struct mwpeer *p, const void *buf, size_t len)
{
	return send_op(p, false, 0, buf, len);
}
