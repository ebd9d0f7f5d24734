// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libmwinpeer: operations: by rkey and waiting, by window and asynchronous.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#include <mwin/mwin.h>

/* ---------------------------------------------------------- operations */

static int post_wait(struct mwpeer *p, struct ibv_send_wr *wr,
		     const char *what)
{
	struct ibv_send_wr *bad;
	int64_t deadline, closed = 0;
	int r;

	mwpeer_poll(p, 0);
	if (p->state != MWPEER_CONNECTED) {
		peer_seterr(p, "%s: not connected", what);
		return -ENOTCONN;
	}
	if (p->qp_error) {
		/* what the device answers: the QP stays in error for good */
		peer_seterr(p, "%s: the QP is in the error state", what);
		return IBV_WC_WR_FLUSH_ERR;
	}
	if (p->send_outstanding >= p->max_send) {
		peer_seterr(p, "%s: send queue full of timed-out requests", what);
		return -EBUSY;
	}
	wr->wr_id = ++p->wr_seq;
	wr->send_flags |= IBV_SEND_SIGNALED;
	r = ibv_post_send(p->id->qp, wr, &bad);
	if (r) {
		peer_seterr(p, "%s: ibv_post_send: %s", what, strerror(r));
		return -r;
	}
	p->send_outstanding++;
	p->wait_wr = wr->wr_id;
	p->wait_done = false;
	p->wait_what = what;
	deadline = peer_now_ms() + p->timeout_ms;
	for (;;) {
		int left;

		mwpeer_poll(p, 0);
		if (p->wait_done)
			return p->wait_status;
		/* the answer may trail the DREQ: see peer_answer_dreq() */
		if (p->state != MWPEER_CONNECTED && !closed)
			closed = peer_now_ms() + CLOSE_GRACE_MS;
		if (closed && !peer_ms_left(closed)) {
			peer_answer_dreq(p);
			p->wait_wr = 0;
			peer_seterr(p, "%s: connection closed by the other side", what);
			return -ENOTCONN;
		}
		left = peer_ms_left(closed && closed < deadline ? closed : deadline);
		if (!left) {
			p->wait_wr = 0;
			peer_seterr(p, "%s: no completion in %d ms", what,
			       p->timeout_ms);
			return -ETIMEDOUT;
		}
		peer_ep_wait(p, left);
	}
}

static int rdma_op(struct mwpeer *p, enum ibv_wr_opcode op, uint32_t rkey,
		   uint64_t raddr, size_t len, const char *what)
{
	struct ibv_sge sge;
	struct ibv_send_wr wr;

	if (len > p->buf_size) {
		peer_seterr(p, "%s of %zu bytes: the local buffer has %zu", what,
		       len, p->buf_size);
		return -EMSGSIZE;
	}
	if (len > UINT32_MAX) {
		peer_seterr(p, "%s of %zu bytes: too long", what, len);
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
		peer_seterr(p, "%s: not connected", what);
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

/*
 * The rkey a Send-with-Invalidate invalidates. libsiw (rdma-core's siw
 * provider) sends the one in wr.rdma.rkey, which the other providers
 * ignore for a SEND: both are set.
 */
static void peer_set_inv_rkey(struct ibv_send_wr *wr, uint32_t rkey)
{
	wr->invalidate_rkey = rkey;
	wr->wr.rdma.rkey = rkey;
}

int peer_send_op(struct mwpeer *p, bool inv, uint32_t rkey,
		   const void *buf, size_t len)
{
	const char *what = inv ? "Send-with-Invalidate" : "SEND";
	struct ibv_sge sge;
	struct ibv_send_wr wr;

	if (len > (buf ? MWPEER_SEND_MAX : p->buf_size)) {
		peer_seterr(p, "%s of %zu bytes: too long", what, len);
		return -EMSGSIZE;
	}
	memset(&wr, 0, sizeof(wr));
	wr.opcode = inv ? IBV_WR_SEND_WITH_INV : IBV_WR_SEND;
	if (inv)
		peer_set_inv_rkey(&wr, rkey);
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
	return peer_send_op(p, true, rkey, NULL, 0);
}

int mwpeer_send_inv_data(struct mwpeer *p, uint32_t rkey,
			 const void *buf, size_t len)
{
	return peer_send_op(p, true, rkey, buf, len);
}

int mwpeer_send(struct mwpeer *p, const void *buf, size_t len)
{
	return peer_send_op(p, false, 0, buf, len);
}

/* ---------------------------------------------------- registered memory */

static struct peer_mem *mem_find(const struct mwpeer *p, const void *addr,
				 size_t len)
{
	const uint8_t *a = addr;
	unsigned int i;

	for (i = 0; i < p->n_mems; i++) {
		struct peer_mem *m = &p->mems[i];

		if (a >= m->addr && len <= m->len &&
		    (size_t)(a - m->addr) <= m->len - len)
			return m;
	}
	return NULL;
}

uint32_t mwpeer_lkey(const struct mwpeer *p, const void *addr, size_t len)
{
	const uint8_t *a = addr;
	const struct peer_mem *m;

	if (!p->mr)
		return 0;
	if (a >= p->mem && len <= p->buf_size &&
	    (size_t)(a - p->mem) <= p->buf_size - len)
		return p->mr->lkey;
	m = mem_find(p, addr, len);
	return m && m->mr ? m->mr->lkey : 0;
}

bool peer_iwarp(const struct mwpeer *p)
{
	return p->id->verbs->device->transport_type == IBV_TRANSPORT_IWARP;
}

/*
 * The rights of the library's memory: the sink of an RDMA READ. iWARP
 * places a READ's response as a tagged write to the sink's STag
 * (RFC 5040), which needs remote write rights there.
 */
int peer_mr_access(const struct mwpeer *p)
{
	return IBV_ACCESS_LOCAL_WRITE |
	       (peer_iwarp(p) ? IBV_ACCESS_REMOTE_WRITE : 0);
}

static int mem_register(struct mwpeer *p, struct peer_mem *m)
{
	m->mr = ibv_reg_mr(p->pd, m->addr, m->len, peer_mr_access(p));
	if (m->mr)
		return 0;
	peer_seterr(p, "ibv_reg_mr of %zu bytes at %p: %s", m->len,
		    (void *)m->addr, strerror(errno));
	return -errno;
}

/* The connection's PD is new: register the application's memory with it. */
int peer_mems_register(struct mwpeer *p)
{
	unsigned int i;

	for (i = 0; i < p->n_mems; i++) {
		int r = mem_register(p, &p->mems[i]);

		if (r)
			return r;
	}
	return 0;
}

void peer_mems_deregister(struct mwpeer *p)
{
	unsigned int i;

	for (i = 0; i < p->n_mems; i++) {
		if (p->mems[i].mr)
			ibv_dereg_mr(p->mems[i].mr);
		p->mems[i].mr = NULL;
	}
}

int mwpeer_reg_mem(struct mwpeer *p, void *addr, size_t len)
{
	uint8_t *a = addr;
	struct peer_mem *mems, *m;
	unsigned int i;

	if (!addr || !len || (uintptr_t)a + len < (uintptr_t)a) {
		peer_seterr(p, "no memory to register");
		return -EINVAL;
	}
	for (i = 0; i < p->n_mems; i++) {
		if (a < p->mems[i].addr + p->mems[i].len &&
		    p->mems[i].addr < a + len) {
			peer_seterr(p, "%p overlaps memory registered already",
				    addr);
			return -EEXIST;
		}
	}
	mems = realloc(p->mems, (p->n_mems + 1) * sizeof(*mems));
	if (!mems)
		return -ENOMEM;
	p->mems = mems;
	m = &mems[p->n_mems];
	*m = (struct peer_mem){ .addr = a, .len = len };
	if (p->pd && mem_register(p, m))
		return -errno;
	p->n_mems++;
	return 0;
}

int mwpeer_dereg_mem(struct mwpeer *p, const void *addr)
{
	unsigned int i;

	for (i = 0; i < p->n_mems; i++) {
		if ((const void *)p->mems[i].addr != addr)
			continue;
		if (p->mems[i].mr)
			ibv_dereg_mr(p->mems[i].mr);
		p->mems[i] = p->mems[--p->n_mems];
		return 0;
	}
	return -ENOENT;
}

/* ------------------------------------------------- operations on windows */

static const struct op_kind {
	uint16_t needs;
	enum ibv_wr_opcode opcode;
	const char *what;
} op_kinds[] = {
	[MWPEER_OP_READ] = { MWIN_ACCESS_READ, IBV_WR_RDMA_READ, "RDMA READ" },
	[MWPEER_OP_WRITE] = { MWIN_ACCESS_WRITE, IBV_WR_RDMA_WRITE,
			      "RDMA WRITE" },
	[MWPEER_OP_CAS] = { MWIN_ACCESS_ATOMIC, IBV_WR_ATOMIC_CMP_AND_SWP,
			    "atomic compare and swap" },
	[MWPEER_OP_FADD] = { MWIN_ACCESS_ATOMIC, IBV_WR_ATOMIC_FETCH_AND_ADD,
			     "atomic fetch and add" },
	[MWPEER_OP_HAND_BACK] = { 0, IBV_WR_SEND_WITH_INV, "hand-back" },
};

static bool is_atomic(uint32_t type)
{
	return type == MWPEER_OP_CAS || type == MWPEER_OP_FADD;
}

/* Can a request be posted now? As far as the events taken in tell. */
static int conn_usable(struct mwpeer *p)
{
	if (p->state != MWPEER_CONNECTED) {
		peer_seterr(p, "not connected");
		return -ENOTCONN;
	}
	if (p->qp_error) {
		peer_seterr(p, "the QP is in the error state: a request failed");
		return -EREMOTEIO;
	}
	return 0;
}

/* @op checked against its window's grant: the lengths it may touch. */
static int op_check(struct mwpeer *p, const struct mwpeer_op *op,
		    const struct mwpeer_msg **grant)
{
	const struct peer_grant *g;
	uint64_t len = is_atomic(op->type) ? 8 : op->len;

	if (!op->type || op->type >= sizeof(op_kinds) / sizeof(op_kinds[0])) {
		peer_seterr(p, "operation type %u", op->type);
		return -EINVAL;
	}
	g = peer_grant_find(&p->grants, op->window);
	if (!g) {
		peer_seterr(p, "window %u has no grant", op->window);
		return -ESTALE;
	}
	if (g->expires_ms && peer_now_ms() >= g->expires_ms) {
		peer_seterr(p, "the lease of window %u ran out", op->window);
		return -ETIME;
	}
	if ((g->m.access & op_kinds[op->type].needs) !=
	    op_kinds[op->type].needs) {
		peer_seterr(p, "%s: window %u is granted \"%s\" only",
			    op_kinds[op->type].what, op->window,
			    mwin_access_str(g->m.access, (char[8]){ 0 }));
		return -EACCES;
	}
	if (op->type != MWPEER_OP_HAND_BACK &&
	    (op->offset > g->m.length || len > g->m.length - op->offset)) {
		peer_seterr(p, "%s of %llu bytes at %llu: window %u has %llu",
			    op_kinds[op->type].what, (unsigned long long)len,
			    (unsigned long long)op->offset, op->window,
			    (unsigned long long)g->m.length);
		return -ERANGE;
	}
	if ((is_atomic(op->type) && ((g->m.iova + op->offset) & 7)) ||
	    len > 1ULL << 31) {
		peer_seterr(p, "%s: misaligned or too long",
			    op_kinds[op->type].what);
		return -EINVAL;
	}
	*grant = &g->m;
	return 0;
}

/* @op as a work request @wr over @sge; an atomic's old value lands in @res */
static int op_prepare(struct mwpeer *p, const struct mwpeer_op *op,
		      uint64_t *res, struct ibv_send_wr *wr,
		      struct ibv_sge *sge)
{
	const struct mwpeer_msg *g;
	uint8_t *local = op->local ? op->local : p->mem;
	int r = op_check(p, op, &g);

	if (r)
		return r;
	memset(wr, 0, sizeof(*wr));
	wr->opcode = op_kinds[op->type].opcode;
	switch (op->type) {
	case MWPEER_OP_READ:
	case MWPEER_OP_WRITE:
		wr->wr.rdma.remote_addr = g->iova + op->offset;
		wr->wr.rdma.rkey = g->rkey;
		if (!op->len)
			return 0;
		*sge = (struct ibv_sge){ .addr = (uintptr_t)local,
					 .length = (uint32_t)op->len,
					 .lkey = mwpeer_lkey(p, local, op->len) };
		if (!sge->lkey) {
			peer_seterr(p, "%p: not in registered memory",
				    (void *)local);
			return -EINVAL;
		}
		break;
	case MWPEER_OP_CAS:
	case MWPEER_OP_FADD:
		wr->wr.atomic.remote_addr = g->iova + op->offset;
		wr->wr.atomic.rkey = g->rkey;
		wr->wr.atomic.compare_add = op->compare_add;
		wr->wr.atomic.swap = op->swap;
		*res = 0;
		*sge = (struct ibv_sge){ .addr = (uintptr_t)res,
					 .length = sizeof(*res),
					 .lkey = p->mr->lkey };
		break;
	default:
		peer_set_inv_rkey(wr, g->rkey);
		return 0;
	}
	wr->sg_list = sge;
	wr->num_sge = 1;
	return 0;
}

/* The slot for the atomic result of asynchronous operation slot @i. */
static uint64_t *atomic_slot(struct mwpeer *p, unsigned int i)
{
	return (uint64_t *)(void *)(p->mem + p->atomic_off) + i;
}

/* Track the request @wr_id, just posted, as the next asynchronous one. */
static void op_track(struct mwpeer *p, uint64_t wr_id,
		     const struct mwpeer_op *op, uint64_t cookie)
{
	unsigned int i = (p->ops_head + p->ops_len) % MWPEER_MAX_INFLIGHT;

	p->ops[i] = (struct peer_op){
		.wr_id = wr_id,
		.cookie = cookie,
		.old = op && is_atomic(op->type) ? atomic_slot(p, i + 1) : NULL,
	};
	p->ops_len++;
	p->send_outstanding++;
	if (op && op->type == MWPEER_OP_HAND_BACK)
		peer_grant_forget(p, op->window);
}

/* Post @wr as the next asynchronous operation; the caller checked room. */
static int op_start(struct mwpeer *p, struct ibv_send_wr *wr,
		    const struct mwpeer_op *op, uint64_t cookie)
{
	struct ibv_send_wr *bad;
	int r;

	wr->wr_id = ASYNC_WR | ++p->wr_seq;
	wr->send_flags |= IBV_SEND_SIGNALED;
	r = ibv_post_send(p->id->qp, wr, &bad);
	if (r) {
		peer_seterr(p, "ibv_post_send: %s", strerror(r));
		return -r;
	}
	op_track(p, wr->wr_id, op, cookie);
	return 0;
}

static int op_room(struct mwpeer *p)
{
	int r = conn_usable(p);

	if (!r && (p->ops_len == MWPEER_MAX_INFLIGHT ||
		   p->send_outstanding >= p->max_send)) {
		peer_seterr(p, "%u operations in flight", p->ops_len);
		r = -EAGAIN;
	}
	return r;
}

int mwpeer_post(struct mwpeer *p, const struct mwpeer_op *op)
{
	unsigned int i = (p->ops_head + p->ops_len) % MWPEER_MAX_INFLIGHT;
	struct ibv_send_wr wr;
	struct ibv_sge sge;
	int r;

	r = op_room(p) ?: op_prepare(p, op, atomic_slot(p, i + 1), &wr, &sge);
	return r ?: op_start(p, &wr, op, op->cookie);
}

int mwpeer_post_raw(struct mwpeer *p, struct ibv_send_wr *wr,
		    uint64_t cookie)
{
	if (!wr || wr->next) {
		peer_seterr(p, "one work request at a time");
		return -EINVAL;
	}
	return op_room(p) ?: op_start(p, wr, NULL, cookie);
}

int mwpeer_post_ex(struct mwpeer *p,
		   void (*build)(struct ibv_qp_ex *qpx, void *arg), void *arg,
		   uint64_t cookie)
{
	uint64_t wr_id = ASYNC_WR | (p->wr_seq + 1);
	int r = op_room(p);

	if (r)
		return r;
	if (!p->qpx) {
		peer_seterr(p, "the device has no extended QP API");
		return -EOPNOTSUPP;
	}
	/* between start and complete, nothing else posts: see ibv_wr_post(3) */
	ibv_wr_start(p->qpx);
	p->qpx->wr_id = wr_id;
	p->qpx->wr_flags = IBV_SEND_SIGNALED;
	build(p->qpx, arg);
	r = ibv_wr_complete(p->qpx);
	if (r) {
		peer_seterr(p, "ibv_wr_complete: %s", strerror(r));
		return -r;
	}
	p->wr_seq++;
	op_track(p, wr_id, NULL, cookie);
	return 0;
}

int mwpeer_do(struct mwpeer *p, const struct mwpeer_op *op, uint64_t *old)
{
	uint64_t *res = atomic_slot(p, 0);
	struct ibv_send_wr wr;
	struct ibv_sge sge;
	int r;

	r = conn_usable(p) ?: op_prepare(p, op, res, &wr, &sge);
	if (r)
		return r;
	r = post_wait(p, &wr, op_kinds[op->type].what);
	/* posted: the window is given back, whether or not it completed */
	if (op->type == MWPEER_OP_HAND_BACK &&
	    (r >= 0 || r == -ETIMEDOUT || r == -ENOTCONN))
		peer_grant_forget(p, op->window);
	if (r == IBV_WC_SUCCESS && old && is_atomic(op->type))
		*old = *res;
	return r;
}

/* The completion of an asynchronous operation: in the order posted. */
void peer_op_completed(struct mwpeer *p, const struct ibv_wc *wc)
{
	unsigned int k;

	for (k = 0; k < p->ops_len; k++) {
		struct peer_op *o = &p->ops[(p->ops_head + k) %
					    MWPEER_MAX_INFLIGHT];

		if (o->wr_id != wc->wr_id)
			continue;
		o->done = true;
		o->status = (int)wc->status;
		return;
	}
}

/* The connection goes: what never completed is flushed. */
void peer_ops_reset(struct mwpeer *p)
{
	unsigned int k;

	for (k = 0; k < p->ops_len; k++) {
		struct peer_op *o = &p->ops[(p->ops_head + k) %
					    MWPEER_MAX_INFLIGHT];

		if (!o->done) {
			o->done = true;
			o->status = IBV_WC_WR_FLUSH_ERR;
			o->old = NULL;
		}
	}
}

/* The oldest operation, once done, as an event. */
bool peer_op_event(struct mwpeer *p, struct mwpeer_event *ev)
{
	struct peer_op *o = &p->ops[p->ops_head];

	if (!p->ops_len || !o->done)
		return false;
	*ev = (struct mwpeer_event){
		.type = MWPEER_EV_DONE,
		.status = o->status,
		.cookie = o->cookie,
		.value = o->old && o->status == IBV_WC_SUCCESS ? *o->old : 0,
	};
	p->ops_head = (p->ops_head + 1) % MWPEER_MAX_INFLIGHT;
	p->ops_len--;
	return true;
}
