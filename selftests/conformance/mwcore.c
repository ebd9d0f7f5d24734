// SPDX-License-Identifier: GPL-2.0
/*
 * mwcore: the reference side of the conformance suite (see mwcore.h): the
 * userspace RDMA CM responder with rdma-core memory windows, and the raw
 * requester's atomics.
 */
#include "mwcore.h"

struct rawpeer_atomic {
	bool cas;
	uint32_t rkey, lkey;
	uint64_t raddr, a, b, local;
};

int64_t mwcore_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

const char *mwcore_qp_state_str(int s)
{
	switch (s) {
	case IBV_QPS_RESET: return "RESET";
	case IBV_QPS_INIT: return "INIT";
	case IBV_QPS_RTR: return "RTR";
	case IBV_QPS_RTS: return "RTS";
	case IBV_QPS_SQD: return "SQD";
	case IBV_QPS_SQE: return "SQE";
	case IBV_QPS_ERR: return "ERR";
	default: return "?";
	}
}

static int mwcore_post_recv(struct mwcore_conn *c, unsigned int slot)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(c->rbuf + slot * MWCORE_RECV_SIZE),
		.length = MWCORE_RECV_SIZE,
		.lkey = c->rmr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = slot, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return ibv_post_recv(c->qp, &wr, &bad);
}

static void mwcore_conn_free(struct mwcore_conn *c)
{
	if (!c)
		return;
	if (c->id && c->id->qp)
		rdma_destroy_qp(c->id);
	if (c->rmr)
		ibv_dereg_mr(c->rmr);
	if (c->scq)
		ibv_destroy_cq(c->scq);
	if (c->rcq)
		ibv_destroy_cq(c->rcq);
	free(c->rbuf);
	if (c->id)
		rdma_destroy_id(c->id);
	free(c);
}

/* CONNECT_REQUEST: a QP on the shared PD, receives, accept. */
static void mwcore_accept(struct mwcore_srv *s, struct rdma_cm_event *ev)
{
	struct rdma_cm_id *id = ev->id;
	const struct rdma_conn_param *req = &ev->param.conn;
	struct ibv_qp_init_attr qa = {};
	struct rdma_conn_param cp = {};
	struct mwin_wire_accept acc = {
		.magic = htole32(MWIN_WIRE_MAGIC),
		.version = MWIN_WIRE_VERSION,
	};
	struct mwcore_conn *c = calloc(1, sizeof(*c));
	unsigned int i;

	if (!c)
		goto reject;
	c->id = id;
	id->context = c;
	c->rbuf = calloc(MWCORE_RECVS, MWCORE_RECV_SIZE);
	c->scq = ibv_create_cq(id->verbs, 64, NULL, NULL, 0);
	c->rcq = ibv_create_cq(id->verbs, MWCORE_RECVS + 4, NULL, NULL, 0);
	if (!c->rbuf || !c->scq || !c->rcq)
		goto reject;
	c->rmr = ibv_reg_mr(s->pd, c->rbuf, MWCORE_RECVS * MWCORE_RECV_SIZE,
			    IBV_ACCESS_LOCAL_WRITE);
	if (!c->rmr)
		goto reject;
	qa.send_cq = c->scq;
	qa.recv_cq = c->rcq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = 32;
	qa.cap.max_recv_wr = MWCORE_RECVS;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	if (rdma_create_qp(id, s->pd, &qa))
		goto reject;
	c->qp = id->qp;
	for (i = 0; i < MWCORE_RECVS; i++)
		if (mwcore_post_recv(c, i))
			goto reject;

	pthread_mutex_lock(&s->lock);
	if (s->nconns == MWCORE_MAX_CONNS) {
		pthread_mutex_unlock(&s->lock);
		goto reject;
	}
	c->no = s->nconns + 1;
	s->conns[s->nconns++] = c;
	pthread_mutex_unlock(&s->lock);

	acc.peer = htole32(c->no);
	cp.private_data = &acc;
	cp.private_data_len = sizeof(acc);
	cp.responder_resources = req->initiator_depth < 16 ? req->initiator_depth : 16;
	cp.initiator_depth = 0;
	cp.rnr_retry_count = 7;
	if (rdma_accept(id, &cp)) {
		pthread_mutex_lock(&s->lock);
		c->state = MWCORE_CONN_FAILED;
		pthread_mutex_unlock(&s->lock);
	}
	return;
reject:
	rdma_reject(id, NULL, 0);
	id->context = NULL;
	if (c)
		mwcore_conn_free(c);	/* destroys the id too */
	else
		rdma_destroy_id(id);
}

static void *mwcore_thread(void *arg)
{
	struct mwcore_srv *s = arg;

	while (!s->stop) {
		struct pollfd pfd = { .fd = s->ch->fd, .events = POLLIN };
		struct rdma_cm_event *ev;
		struct mwcore_conn *c;

		if (poll(&pfd, 1, 50) <= 0)
			continue;
		if (rdma_get_cm_event(s->ch, &ev))
			continue;
		c = ev->id->context;
		switch (ev->event) {
		case RDMA_CM_EVENT_CONNECT_REQUEST: {
			/* accept without holding the event: copy what is needed */
			struct rdma_cm_event copy = *ev;

			rdma_ack_cm_event(ev);
			mwcore_accept(s, &copy);
			continue;
		}
		case RDMA_CM_EVENT_ESTABLISHED:
			pthread_mutex_lock(&s->lock);
			if (c)
				c->state = MWCORE_CONN_ESTABLISHED;
			pthread_cond_broadcast(&s->cond);
			pthread_mutex_unlock(&s->lock);
			break;
		case RDMA_CM_EVENT_DISCONNECTED:
		case RDMA_CM_EVENT_CONNECT_ERROR:
		case RDMA_CM_EVENT_UNREACHABLE:
		case RDMA_CM_EVENT_REJECTED:
			pthread_mutex_lock(&s->lock);
			if (c)
				c->state = c->state == MWCORE_CONN_ESTABLISHED ?
					   MWCORE_CONN_DISCONNECTED : MWCORE_CONN_FAILED;
			pthread_cond_broadcast(&s->cond);
			pthread_mutex_unlock(&s->lock);
			if (c && ev->event == RDMA_CM_EVENT_DISCONNECTED)
				rdma_disconnect(c->id);
			break;
		default:
			break;
		}
		rdma_ack_cm_event(ev);
	}
	return NULL;
}

void mwcore_stop(struct mwcore_srv *s)
{
	unsigned int i;

	if (!s)
		return;
	if (s->thr_started) {
		s->stop = 1;
		pthread_join(s->thr, NULL);
	}
	for (i = 0; i < s->nmws; i++) {
		if (s->mws[i]->mw)
			ibv_dealloc_mw(s->mws[i]->mw);
		free(s->mws[i]);
	}
	for (i = 0; i < s->nconns; i++)
		mwcore_conn_free(s->conns[i]);
	if (s->mr)
		ibv_dereg_mr(s->mr);
	if (s->pd)
		ibv_dealloc_pd(s->pd);
	if (s->listen)
		rdma_destroy_id(s->listen);
	if (s->ch)
		rdma_destroy_event_channel(s->ch);
	free(s->mem);
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->cond);
	free(s);
}

struct mwcore_srv *mwcore_start(const char *host, uint16_t port,
				size_t len, char *err, size_t errlen)
{
	struct mwcore_srv *s = calloc(1, sizeof(*s));
	struct sockaddr_in sin = { .sin_family = AF_INET };
	int tries;

	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->cond, NULL);
	if (inet_pton(AF_INET, host, &sin.sin_addr) != 1) {
		snprintf(err, errlen, "bad address %s", host);
		goto fail;
	}
	s->ch = rdma_create_event_channel();
	if (!s->ch || rdma_create_id(s->ch, &s->listen, NULL, RDMA_PS_TCP)) {
		snprintf(err, errlen, "rdma_create_id: %s", strerror(errno));
		goto fail;
	}
	for (tries = 0; tries < 50; tries++) {
		s->port = port ? port : 20000 + (uint16_t)((getpid() * 7 + tries * 131) % 20000);
		sin.sin_port = htons(s->port);
		if (!rdma_bind_addr(s->listen, (struct sockaddr *)&sin))
			break;
		if (port || errno != EADDRINUSE) {
			snprintf(err, errlen, "rdma_bind_addr %s:%u: %s", host,
				 s->port, strerror(errno));
			goto fail;
		}
	}
	if (!s->listen->verbs) {
		snprintf(err, errlen, "%s is not on an RDMA device", host);
		goto fail;
	}
	if (rdma_listen(s->listen, 64)) {
		snprintf(err, errlen, "rdma_listen: %s", strerror(errno));
		goto fail;
	}
	s->ctx = s->listen->verbs;
	s->pd = ibv_alloc_pd(s->ctx);
	s->len = len;
	if (posix_memalign((void **)&s->mem, 4096, len) || !s->pd) {
		snprintf(err, errlen, "ibv_alloc_pd/memory: %s", strerror(errno));
		goto fail;
	}
	memset(s->mem, 0, len);
	/* No remote rights of its own: remote access only through windows. */
	s->mr = ibv_reg_mr(s->pd, s->mem, len,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
	if (!s->mr) {
		snprintf(err, errlen, "ibv_reg_mr(MW_BIND): %s", strerror(errno));
		goto fail;
	}
	if (pthread_create(&s->thr, NULL, mwcore_thread, s)) {
		snprintf(err, errlen, "pthread_create failed");
		goto fail;
	}
	s->thr_started = true;
	return s;
fail:
	mwcore_stop(s);
	return NULL;
}

struct mwcore_conn *mwcore_conn(struct mwcore_srv *s, uint32_t no,
				int timeout_ms)
{
	int64_t deadline = mwcore_now_ms() + timeout_ms;
	struct mwcore_conn *c = NULL;

	pthread_mutex_lock(&s->lock);
	for (;;) {
		struct timespec ts;

		if (no >= 1 && no <= s->nconns) {
			c = s->conns[no - 1];
			if (c->state != MWCORE_CONN_CONNECTING)
				break;
		}
		if (mwcore_now_ms() >= deadline)
			break;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 10 * 1000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&s->cond, &s->lock, &ts);
	}
	pthread_mutex_unlock(&s->lock);
	return c;
}

int mwcore_qp_state(struct mwcore_conn *c)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	if (!c || !c->qp || ibv_query_qp(c->qp, &a, IBV_QP_STATE, &ia))
		return -1;
	return a.qp_state;
}

/*
 * Wait for the completion of @wr_id on @c's send queue. Earlier
 * completions (unsignaled requests that failed) are folded in: the first
 * error wins. Returns the wc status, or -ETIMEDOUT.
 */
static int mwcore_wait_send(struct mwcore_conn *c, uint64_t wr_id)
{
	int64_t deadline = mwcore_now_ms() + MWCORE_OP_TIMEOUT_MS;
	int status = IBV_WC_SUCCESS;

	for (;;) {
		struct ibv_wc wc;
		int n = ibv_poll_cq(c->scq, 1, &wc);

		if (n == 1) {
			if (wc.status != IBV_WC_SUCCESS && status == IBV_WC_SUCCESS)
				status = wc.status;
			if (wc.wr_id == wr_id)
				return status;
			continue;
		}
		if (n < 0)
			return -EIO;
		if (mwcore_now_ms() >= deadline)
			return -ETIMEDOUT;
		usleep(200);
	}
}

static int mwcore_access(uint32_t mwin_access)
{
	return (mwin_access & MWIN_ACCESS_READ ? IBV_ACCESS_REMOTE_READ : 0) |
	       (mwin_access & MWIN_ACCESS_WRITE ? IBV_ACCESS_REMOTE_WRITE : 0) |
	       (mwin_access & MWIN_ACCESS_ATOMIC ? IBV_ACCESS_REMOTE_ATOMIC : 0);
}

struct mwcore_mw *mwcore_alloc_mw(struct mwcore_srv *s,
				  enum ibv_mw_type type)
{
	struct mwcore_mw *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->type = type;
	m->mw = ibv_alloc_mw(s->pd, type);
	if (!m->mw) {
		free(m);
		return NULL;
	}
	m->rkey = m->mw->rkey;
	/* Type 1 starts valid with length 0; both start with no access. */
	m->state = MWCORE_MW_FREE;
	pthread_mutex_lock(&s->lock);
	if (s->nmws < sizeof(s->mws) / sizeof(s->mws[0])) {
		s->mws[s->nmws++] = m;
	} else {
		pthread_mutex_unlock(&s->lock);
		ibv_dealloc_mw(m->mw);
		free(m);
		return NULL;
	}
	pthread_mutex_unlock(&s->lock);
	return m;
}

uint8_t mwcore_random_key(uint32_t cur)
{
	uint8_t k;

	do {
		k = (uint8_t)random();
	} while (k == (uint8_t)cur);
	return k;
}

int mwcore_bind(struct mwcore_srv *s, struct mwcore_conn *c,
		struct mwcore_mw *m, uint64_t off, uint64_t len,
		uint32_t access, uint8_t key)
{
	struct ibv_send_wr inv = {}, bind = {}, *bad;
	uint32_t newkey;
	int r;

	if (!c || !c->qp)
		return -ENOTCONN;
	if (m->type == IBV_MW_TYPE_1) {
		struct ibv_mw_bind mb = {};

		mb.wr_id = ++c->wr_seq;
		mb.send_flags = IBV_SEND_SIGNALED;
		mb.bind_info.mr = s->mr;
		mb.bind_info.addr = (uintptr_t)s->mem + off;
		mb.bind_info.length = len;
		mb.bind_info.mw_access_flags = mwcore_access(access);
		r = ibv_bind_mw(c->qp, m->mw, &mb);
		if (r)
			return -r;
		r = mwcore_wait_send(c, mb.wr_id);
		if (r == IBV_WC_SUCCESS) {
			m->rkey = m->mw->rkey;
			m->state = MWCORE_MW_BOUND;
			m->conn = c;
			m->addr = (uintptr_t)s->mem + off;
			m->len = len;
			m->access = mwcore_access(access);
		}
		return r;
	}

	if (m->state == MWCORE_MW_BOUND && m->conn != c &&
	    mwcore_qp_state(m->conn) == IBV_QPS_RTS) {
		inv.opcode = IBV_WR_LOCAL_INV;
		inv.invalidate_rkey = m->rkey;
		inv.send_flags = IBV_SEND_SIGNALED;
		inv.wr_id = ++m->conn->wr_seq;
		r = ibv_post_send(m->conn->qp, &inv, &bad);
		if (r)
			return -r;
		r = mwcore_wait_send(m->conn, inv.wr_id);
		if (r)
			return r;
		m->state = MWCORE_MW_FREE;
		memset(&inv, 0, sizeof(inv));
	}
	newkey = (m->rkey & ~0xffU) | key;
	bind.opcode = IBV_WR_BIND_MW;
	bind.send_flags = IBV_SEND_SIGNALED;
	bind.wr_id = ++c->wr_seq;
	bind.bind_mw.mw = m->mw;
	bind.bind_mw.rkey = newkey;
	bind.bind_mw.bind_info.mr = s->mr;
	bind.bind_mw.bind_info.addr = (uintptr_t)s->mem + off;
	bind.bind_mw.bind_info.length = len;
	bind.bind_mw.bind_info.mw_access_flags = mwcore_access(access);
	if (m->state == MWCORE_MW_BOUND) {
		inv.opcode = IBV_WR_LOCAL_INV;
		inv.invalidate_rkey = m->rkey;
		inv.wr_id = ++c->wr_seq;
		inv.next = &bind;
		r = ibv_post_send(c->qp, &inv, &bad);
	} else {
		r = ibv_post_send(c->qp, &bind, &bad);
	}
	if (r)
		return -r;
	r = mwcore_wait_send(c, bind.wr_id);
	if (m->state == MWCORE_MW_BOUND && r != -ETIMEDOUT)
		m->state = MWCORE_MW_FREE;	/* at least the invalidation ran */
	if (r == IBV_WC_SUCCESS) {
		/* rxe: ibv_post_send() does not update the MW's rkey */
		m->mw->rkey = newkey;
		m->rkey = newkey;
		m->state = MWCORE_MW_BOUND;
		m->conn = c;
		m->addr = (uintptr_t)s->mem + off;
		m->len = len;
		m->access = mwcore_access(access);
	}
	return r;
}

int mwcore_invalidate(struct mwcore_srv *s, struct mwcore_conn *c,
		      struct mwcore_mw *m, bool force)
{
	struct ibv_send_wr inv = {}, *bad;
	int r;

	(void)s;
	if (!c)
		c = m->conn;
	if (!c || !c->qp)
		return -ENOTCONN;
	if (m->type == IBV_MW_TYPE_2 && m->state != MWCORE_MW_BOUND && !force)
		return -EALREADY;
	inv.opcode = IBV_WR_LOCAL_INV;
	inv.invalidate_rkey = m->rkey;
	inv.send_flags = IBV_SEND_SIGNALED;
	inv.wr_id = ++c->wr_seq;
	r = ibv_post_send(c->qp, &inv, &bad);
	if (r)
		return -r;
	r = mwcore_wait_send(c, inv.wr_id);
	if (r == IBV_WC_SUCCESS)
		m->state = MWCORE_MW_FREE;
	return r;
}

int mwcore_dealloc(struct mwcore_srv *s, struct mwcore_mw *m)
{
	int r = 0;

	(void)s;
	if (m->mw) {
		r = ibv_dealloc_mw(m->mw);
		if (!r)
			m->mw = NULL;
	}
	if (!r)
		m->state = MWCORE_MW_DEAD;
	return r ? -r : 0;
}

int mwcore_wait_recv(struct mwcore_srv *s, struct mwcore_conn *c,
		     struct ibv_wc *wc, int timeout_ms)
{
	int64_t deadline = mwcore_now_ms() + timeout_ms;
	unsigned int i;

	for (;;) {
		int n = ibv_poll_cq(c->rcq, 1, wc);

		if (n == 1)
			break;
		if (mwcore_now_ms() >= deadline)
			return 0;
		usleep(200);
	}
	if (wc->status == IBV_WC_SUCCESS) {
		/* rxe reports the kernel's IB_WC_WITH_INVALIDATE bit (0x4) */
		if (wc->wc_flags & (IBV_WC_WITH_INV | 0x4)) {
			pthread_mutex_lock(&s->lock);
			for (i = 0; i < s->nmws; i++)
				if (s->mws[i]->state == MWCORE_MW_BOUND &&
				    s->mws[i]->rkey == wc->invalidated_rkey &&
				    s->mws[i]->type == IBV_MW_TYPE_2)
					s->mws[i]->state = MWCORE_MW_FREE;
			pthread_mutex_unlock(&s->lock);
		}
		mwcore_post_recv(c, (unsigned int)wc->wr_id);
	}
	return 1;
}

static void rawpeer_build_atomic(struct ibv_qp_ex *qpx, void *arg)
{
	const struct rawpeer_atomic *at = arg;

	if (at->cas)
		ibv_wr_atomic_cmp_swp(qpx, at->rkey, at->raddr, at->a, at->b);
	else
		ibv_wr_atomic_fetch_add(qpx, at->rkey, at->raddr, at->a);
	ibv_wr_set_sge(qpx, at->lkey, at->local, 8);
}

int rawpeer_atomic(struct mwpeer *r, bool cas, uint32_t rkey,
		   uint64_t raddr, uint64_t a, uint64_t b,
		   uint64_t *old)
{
	int64_t deadline = mwcore_now_ms() + MWCORE_OP_TIMEOUT_MS;
	uint8_t *buf = mwpeer_buf(r);
	struct rawpeer_atomic at = {
		.cas = cas, .rkey = rkey, .raddr = raddr, .a = a, .b = b,
		.lkey = mwpeer_lkey(r, buf, 8), .local = (uintptr_t)buf,
	};
	struct mwpeer_event ev;
	int ret = mwpeer_post_ex(r, rawpeer_build_atomic, &at, 0);

	while (!ret) {
		if (mwpeer_process(r, &ev, 1) == 1) {
			if (ev.type != MWPEER_EV_DONE)
				continue;	/* the module's messages */
			if (ev.status == IBV_WC_SUCCESS && old)
				memcpy(old, buf, 8);
			return ev.status;
		}
		if (mwcore_now_ms() >= deadline)
			return -ETIMEDOUT;
		mwpeer_poll(r, 50);
	}
	return ret;
}
