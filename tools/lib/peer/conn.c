// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libmwinpeer: a peer's life: create, connect, reconnect, close.
 */
#include "internal.h"

#include <arpa/inet.h>
#include <endian.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <openssl/crypto.h>

/* ----------------------------------------------------------- lifetime */

static void conn_destroy(struct mwpeer *p)
{
	if (p->id) {
		if (p->state == MWPEER_CONNECTED)
			rdma_disconnect(p->id);
		peer_answer_dreq(p);
		if (p->id->qp)
			rdma_destroy_qp(p->id);
	}
	peer_ops_reset(p);
	peer_mems_deregister(p);
	if (p->mr)
		ibv_dereg_mr(p->mr);
	if (p->scq)
		ibv_destroy_cq(p->scq);
	if (p->rcq)
		ibv_destroy_cq(p->rcq);
	if (p->cc) {
		peer_ep_del(p, p->cc->fd);
		ibv_destroy_comp_channel(p->cc);
	}
	if (p->pd)
		ibv_dealloc_pd(p->pd);
	if (p->id)
		rdma_destroy_id(p->id);
	if (p->ch) {
		peer_ep_del(p, p->ch->fd);
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
	p->qpx = NULL;
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
	    (opts->tenant && !peer_tenant_name_ok(opts->tenant)) ||
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
		/* NUL-padded; peer_tenant_hello() makes the hello at each connect */
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

	/* slot 0 for the waiting operations, one per asynchronous one */
	p->atomic_off = (p->buf_size + 63) & ~(size_t)63;
	p->send_off = p->atomic_off + 8 * (MWPEER_MAX_INFLIGHT + 1);
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
		left = peer_ms_left(deadline);
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
		peer_seterr(p, "cannot resolve %s: %s", host, gai_strerror(r));
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

/*
 * The QP: on the extended API when the device offers it (mwpeer_post_ex()),
 * with inline data when it has room for a message.
 */
static int create_qp(struct mwpeer *p)
{
	struct ibv_qp_init_attr_ex qa;
	int ex, inl, r;

	for (ex = 1; ex >= 0; ex--) {
		for (inl = 1; inl >= 0; inl--) {
			memset(&qa, 0, sizeof(qa));
			qa.send_cq = p->scq;
			qa.recv_cq = p->rcq;
			qa.qp_type = IBV_QPT_RC;
			qa.cap.max_send_wr = p->max_send;
			qa.cap.max_recv_wr = p->recv_depth ?
					     (uint32_t)p->recv_depth : 1;
			qa.cap.max_send_sge = 1;
			qa.cap.max_recv_sge = 1;
			qa.cap.max_inline_data = inl ? MSG_SIZE : 0;
			qa.pd = p->pd;
			qa.comp_mask = IBV_QP_INIT_ATTR_PD;
			if (ex) {
				qa.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
				qa.send_ops_flags = EX_SEND_OPS;
			}
			if (!rdma_create_qp_ex(p->id, &qa)) {
				p->max_inline = qa.cap.max_inline_data;
				p->qpx = ex ? ibv_qp_to_qp_ex(p->id->qp) : NULL;
				return 0;
			}
		}
	}
	r = -errno;
	peer_seterr(p, "rdma_create_qp: %s", strerror(-r));
	return r;
}

/*
 * Connect once, by @deadline. Return: 0, a negative errno, or -EAGAIN
 * when the module sent a challenge: connect again, with the proof.
 */
static int conn_setup(struct mwpeer *p, const char *host, uint16_t port,
		      int64_t deadline)
{
	struct sockaddr_storage dst, src;
	struct ibv_device_attr da;
	struct rdma_conn_param cp;
	struct rdma_cm_event *ev;
	bool have_src = false;
	int r, i;

	r = resolve(p, host, port, &dst, &src, &have_src);
	if (r)
		return r;

	p->ch = rdma_create_event_channel();
	if (!p->ch) {
		r = -errno;
		peer_seterr(p, "rdma_create_event_channel: %s%s", strerror(-r),
		       r == -ENOENT || r == -ENODEV ?
		       " (is rdma_ucm loaded?)" : "");
		return r;
	}
	r = peer_set_nonblock(p->ch->fd);
	if (!r)
		r = peer_ep_add(p, p->ch->fd);
	if (r) {
		peer_seterr(p, "event channel: %s", strerror(-r));
		return r;
	}
	if (rdma_create_id(p->ch, &p->id, p, RDMA_PS_TCP)) {
		r = -errno;
		peer_seterr(p, "rdma_create_id: %s", strerror(-r));
		return r;
	}

	/* address */
	if (rdma_resolve_addr(p->id, have_src ? (struct sockaddr *)&src : NULL,
			      (struct sockaddr *)&dst,
			      peer_ms_left(deadline) ? peer_ms_left(deadline) : 1)) {
		r = -errno;
		peer_seterr(p, "rdma_resolve_addr %s: %s", host, strerror(-r));
		return r;
	}
	r = get_cm_event(p, deadline, &ev);
	if (r) {
		peer_seterr(p, "resolving the address of %s: %s", host,
		       strerror(-r));
		return r;
	}
	if (ev->event != RDMA_CM_EVENT_ADDR_RESOLVED) {
		r = cm_status_err(ev->status, -EHOSTUNREACH);
		peer_seterr(p, "resolving the address of %s: %s (%s)", host,
		       rdma_event_str(ev->event), strerror(-r));
		rdma_ack_cm_event(ev);
		return r;
	}
	rdma_ack_cm_event(ev);
	snprintf(p->devname, sizeof(p->devname), "%s",
		 ibv_get_device_name(p->id->verbs->device));
	if (p->dev && !have_src && strcmp(p->dev, p->devname)) {
		peer_seterr(p, "%s is reached through %s, not %s", host,
		       p->devname, p->dev);
		return -ENODEV;
	}

	/* route */
	if (rdma_resolve_route(p->id, peer_ms_left(deadline) ? peer_ms_left(deadline) : 1)) {
		r = -errno;
		peer_seterr(p, "rdma_resolve_route %s: %s", host, strerror(-r));
		return r;
	}
	r = get_cm_event(p, deadline, &ev);
	if (r) {
		peer_seterr(p, "resolving the route to %s: %s", host, strerror(-r));
		return r;
	}
	if (ev->event != RDMA_CM_EVENT_ROUTE_RESOLVED) {
		r = cm_status_err(ev->status, -EHOSTUNREACH);
		peer_seterr(p, "resolving the route to %s: %s (%s)", host,
		       rdma_event_str(ev->event), strerror(-r));
		rdma_ack_cm_event(ev);
		return r;
	}
	rdma_ack_cm_event(ev);

	/* verbs resources */
	if (ibv_query_device(p->id->verbs, &da)) {
		r = -errno;
		peer_seterr(p, "ibv_query_device %s: %s", p->devname, strerror(-r));
		return r;
	}
	p->pd = ibv_alloc_pd(p->id->verbs);
	if (!p->pd) {
		r = -errno;
		peer_seterr(p, "ibv_alloc_pd: %s", strerror(-r));
		return r;
	}
	p->mr = ibv_reg_mr(p->pd, p->mem, p->mem_size, peer_mr_access(p));
	if (!p->mr) {
		r = -errno;
		peer_seterr(p, "ibv_reg_mr of %zu bytes: %s", p->mem_size,
		       strerror(-r));
		return r;
	}
	r = peer_mems_register(p);
	if (r)
		return r;
	p->cc = ibv_create_comp_channel(p->id->verbs);
	if (!p->cc) {
		r = -errno;
		peer_seterr(p, "ibv_create_comp_channel: %s", strerror(-r));
		return r;
	}
	r = peer_set_nonblock(p->cc->fd);
	if (!r)
		r = peer_ep_add(p, p->cc->fd);
	if (r) {
		peer_seterr(p, "completion channel: %s", strerror(-r));
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
		peer_seterr(p, "ibv_create_cq: %s", strerror(-r));
		return r;
	}
	r = create_qp(p);
	if (r)
		return r;
	p->qp_num = p->id->qp->qp_num;
	ibv_req_notify_cq(p->rcq, 0);
	ibv_req_notify_cq(p->scq, 0);
	for (i = 0; i < p->recv_depth; i++) {
		r = peer_post_recv(p, (unsigned int)i);
		if (r) {
			peer_seterr(p, "ibv_post_recv: %s", strerror(r));
			return -r;
		}
	}

	/* connect */
	if (p->tenant[0]) {
		r = peer_tenant_request(p);
		if (r)
			return r;
	}
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
	if (rdma_connect(p->id, &cp)) {
		r = -errno;
		peer_seterr(p, "rdma_connect: %s", strerror(-r));
		return r;
	}
	for (;;) {
		r = get_cm_event(p, deadline, &ev);
		if (r) {
			peer_seterr(p, "connecting to %s:%u: %s", host, port,
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
			if (rj->version_valid && p->tenant[0] &&
			    rj->wire_reason == MWIN_REJECT_CHALLENGE) {
				r = peer_tenant_challenge(p, rj->data,
							  rj->data_len);
				if (r != -ECONNREFUSED) {
					rdma_ack_cm_event(ev);
					return r ? r : -EAGAIN;
				}
			}
			if (rj->version_valid && rj->wire_reason && p->tenant[0])
				peer_seterr(p, "tenant %s rejected by mwin on %s:%u: %s",
				       p->tenant, host, port,
				       mwpeer_reject_reason_str(rj->wire_reason));
			else if (rj->version_valid && rj->wire_reason)
				peer_seterr(p, "rejected by mwin on %s:%u: %s",
				       host, port,
				       mwpeer_reject_reason_str(rj->wire_reason));
			else if (rj->version_valid)
				peer_seterr(p, "rejected by mwin on %s:%u (it speaks wire version %u)",
				       host, port, rj->version);
			else if (rj->by_module)
				peer_seterr(p, "rejected by the listener on %s:%u", host, port);
			else if (ev->status == IB_CM_REJ_INVALID_SERVICE_ID)
				peer_seterr(p, "nobody listens on %s:%u", host, port);
			else
				peer_seterr(p, "rejected by %s:%u (reason %d)", host,
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
			peer_seterr(p, "connecting to %s:%u: %s (%s)", host, port,
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
		r = peer_tenant_accept(p, full ? data : NULL, full);
		if (r)
			return r;
	} else {
		const struct rdma_conn_param *c = &ev->param.conn;
		struct mwin_wire_accept a;

		if (!c->private_data || c->private_data_len < sizeof(a)) {
			peer_seterr(p, "accept without mwin private data (%u bytes)",
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
			peer_seterr(p, "accept with magic 0x%08x version %u",
			       le32toh(a.magic), a.version);
			return -EPROTO;
		}
		p->peer_id = le32toh(a.peer);
		p->hs.version = a.version;
		p->hs.peer = p->peer_id;
	}
	/*
	 * iWARP's MPA: the module, which accepted, sends nothing before our
	 * first message, and takes us for up only once it came (wire.rst).
	 */
	if (peer_iwarp(p)) {
		r = peer_send_op(p, false, 0, NULL, 0);
		if (r)
			return r < 0 ? r : -ECONNRESET;
	}
	p->errmsg[0] = '\0';
	return 0;
}

int mwpeer_open(struct mwpeer *p, const char *host, uint16_t port)
{
	int64_t deadline;
	int r;

	if (p->id) {
		peer_seterr(p, "already connected");
		return -EISCONN;
	}
	if (!host) {
		peer_seterr(p, "no host");
		return -EINVAL;
	}
	if (!port)
		port = mwpeer_default_port();
	if (host != p->host) {
		char *h = strdup(host);

		if (!h) {
			peer_seterr(p, "out of memory");
			return -ENOMEM;
		}
		free(p->host);
		p->host = h;
	}
	p->port = port;
	peer_reset_msgs(p);
	p->peer_id = 0;
	p->tenant_id = 0;
	memset(&p->hs, 0, sizeof(p->hs));
	deadline = peer_now_ms() + p->timeout_ms;
	r = conn_setup(p, p->host, port, deadline);
	if (r == -EAGAIN) {
		/* a tenant with a key: a new connection, with the proof */
		conn_destroy(p);
		r = conn_setup(p, p->host, port, deadline);
	}
	if (r) {
		char msg[sizeof(p->errmsg)];

		/* teardown must not hide why */
		memcpy(msg, p->errmsg, sizeof(msg));
		conn_destroy(p);
		memcpy(p->errmsg, msg, sizeof(msg));
		p->peer_id = 0;
		p->tenant_id = 0;
		return r;
	}
	p->ev_connected = true;
	p->ops_old = p->ops_len;
	p->ev_down = 0;
	p->ev_down_sent = false;
	return 0;
}

int mwpeer_reconnect(struct mwpeer *p)
{
	if (!p->host) {
		peer_seterr(p, "never connected");
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
	peer_grants_free(&p->grants);
	free(p->mems);
	free(p->dev);
	free(p->host);
	free(p);
}

