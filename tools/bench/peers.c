// SPDX-License-Identifier: GPL-2.0
/*
 * mwbench's connections: loopback RC pairs of its own (struct conn, struct
 * loop) for the userspace baselines, the module's peers on libmwinpeer
 * (struct peer), and the data path's loop of posts and polls over either.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mwbench.h"

#define RECV_SIZE MWIN_WIRE_RECV_SIZE
#define LOOP_PORT 18611
/*
 * Receives the loopback server keeps posted. A told baseline's sender
 * busy-polls, and the thread that reposts the server's receives
 * (conn_pump_start()) may wait for the sender's CPU: with 16, a trial of
 * 32 SENDs ran into an RNR NAK and rdma_cm's RNR timer (655 ms). Plenty of
 * receives keep RNR away, as PEER_RECV_DEPTH does for the module's peers.
 */
#define LOOP_SRV_RECV_DEPTH 1024

/* ------------------------------------------------- loopback connections */

static int cm_wait(struct rdma_event_channel *ch, enum rdma_cm_event_type want_ev,
		   struct rdma_cm_event **out, int timeout_ms)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;
	int ret;

	for (;;) {
		ret = poll(&pfd, 1, timeout_ms);
		if (ret <= 0)
			return ret ? -errno : -ETIMEDOUT;
		if (rdma_get_cm_event(ch, &ev))
			return -errno;
		if (ev->event == want_ev) {
			if (out)
				*out = ev;
			else
				rdma_ack_cm_event(ev);
			return 0;
		}
		say("rdma cm: %s while waiting for %s (status %d)",
		    rdma_event_str(ev->event), rdma_event_str(want_ev),
		    ev->status);
		ret = ev->event == RDMA_CM_EVENT_REJECTED ? -ECONNREFUSED :
		      -ECONNABORTED;
		rdma_ack_cm_event(ev);
		if (want_ev != RDMA_CM_EVENT_DISCONNECTED)
			return ret;
	}
}

static int post_recv(struct conn *c, unsigned int slot)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(c->mem + c->buf_size + slot * RECV_SIZE),
		.length = RECV_SIZE,
		.lkey = c->mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = slot, .sg_list = &sge, .num_sge = 1,
	}, *bad;

	return ibv_post_recv(c->qp, &wr, &bad);
}

/* PD, CQs, QP and memory of @c on @id; receives posted */
static int conn_setup_qp(struct conn *c, struct rdma_cm_id *id,
			 struct ibv_pd *pd)
{
	struct ibv_qp_init_attr qa = {};
	unsigned int i;

	c->id = id;
	c->pd = pd ? pd : ibv_alloc_pd(id->verbs);
	c->own_pd = !pd;
	c->cc = ibv_create_comp_channel(id->verbs);
	if (!c->pd || !c->cc)
		return -ENOMEM;
	c->scq = ibv_create_cq(id->verbs, 512, NULL, NULL, 0);
	c->rcq = ibv_create_cq(id->verbs, (int)c->recv_depth + 16, NULL, c->cc,
			       0);
	if (!c->scq || !c->rcq)
		return -ENOMEM;
	c->mem_size = c->buf_size + c->recv_depth * RECV_SIZE;
	c->mem = mmap(NULL, c->mem_size, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (c->mem == MAP_FAILED) {
		c->mem = NULL;
		return -ENOMEM;
	}
	c->mr = ibv_reg_mr(c->pd, c->mem, c->mem_size,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
			   IBV_ACCESS_REMOTE_WRITE);
	if (!c->mr)
		return -errno;
	qa.qp_type = IBV_QPT_RC;
	qa.send_cq = c->scq;
	qa.recv_cq = c->rcq;
	qa.cap.max_send_wr = 256;
	qa.cap.max_recv_wr = c->recv_depth;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	if (rdma_create_qp(id, c->pd, &qa))
		return -errno;
	c->qp = id->qp;
	for (i = 0; i < c->recv_depth; i++)
		if (post_recv(c, i))
			return -EIO;
	ibv_req_notify_cq(c->rcq, 0);
	return 0;
}

static void conn_rd_atom(struct conn *c, struct rdma_conn_param *cp)
{
	struct ibv_device_attr da;

	cp->initiator_depth = 16;
	cp->responder_resources = 16;
	if (!ibv_query_device(c->id->verbs, &da)) {
		if (da.max_qp_init_rd_atom < 16)
			cp->initiator_depth = (uint8_t)da.max_qp_init_rd_atom;
		if (da.max_qp_rd_atom < 16)
			cp->responder_resources = (uint8_t)da.max_qp_rd_atom;
	}
}

static void conn_close(struct conn *c)
{
	if (!c)
		return;
	if (c->id && c->qp)
		rdma_disconnect(c->id);
	if (c->qp)
		rdma_destroy_qp(c->id);
	if (c->mr)
		ibv_dereg_mr(c->mr);
	if (c->mem)
		munmap(c->mem, c->mem_size);
	if (c->scq)
		ibv_destroy_cq(c->scq);
	if (c->rcq)
		ibv_destroy_cq(c->rcq);
	if (c->cc)
		ibv_destroy_comp_channel(c->cc);
	if (c->pd && c->own_pd)
		ibv_dealloc_pd(c->pd);
	if (c->id)
		rdma_destroy_id(c->id);
	if (c->ch)
		rdma_destroy_event_channel(c->ch);
	free(c);
}

static struct conn *conn_new(size_t buf_size, unsigned int recv_depth)
{
	struct conn *c = calloc(1, sizeof(*c));

	if (!c)
		die("out of memory");
	c->buf_size = buf_size;
	c->recv_depth = recv_depth;
	return c;
}

/* resolve @host:@port on a new id of @c; checks the device */
static int conn_resolve(struct conn *c, const char *host, uint16_t port)
{
	struct addrinfo hints = { .ai_family = AF_INET }, *ai;
	char portstr[8];
	int ret;

	c->ch = rdma_create_event_channel();
	if (!c->ch || rdma_create_id(c->ch, &c->id, NULL, RDMA_PS_TCP))
		return -errno;
	snprintf(portstr, sizeof(portstr), "%u", port);
	if (getaddrinfo(host, portstr, &hints, &ai))
		return -EHOSTUNREACH;
	ret = rdma_resolve_addr(c->id, NULL, ai->ai_addr, 2000);
	freeaddrinfo(ai);
	if (ret)
		return -errno;
	ret = cm_wait(c->ch, RDMA_CM_EVENT_ADDR_RESOLVED, NULL, 5000);
	if (ret)
		return ret;
	if (rdma_resolve_route(c->id, 2000))
		return -errno;
	ret = cm_wait(c->ch, RDMA_CM_EVENT_ROUTE_RESOLVED, NULL, 5000);
	if (ret)
		return ret;
	if (strcmp(ibv_get_device_name(c->id->verbs->device), opt.dev)) {
		say("route to %s goes through %s, not %s", host,
		    ibv_get_device_name(c->id->verbs->device), opt.dev);
		return -ENODEV;
	}
	return 0;
}

void loop_close(struct loop *l)
{
	conn_close(l->cli);
	conn_close(l->srv);
	if (l->listen)
		rdma_destroy_id(l->listen);
	if (l->lch)
		rdma_destroy_event_channel(l->lch);
	memset(l, 0, sizeof(*l));
}

int loop_open(struct loop *l, size_t cli_buf, size_t srv_buf)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons(LOOP_PORT) };
	struct rdma_conn_param cp = { .retry_count = 3, .rnr_retry_count = 7 };
	struct rdma_conn_param sp = { .retry_count = 3, .rnr_retry_count = 7 };
	struct rdma_cm_event *ev;
	int ret;

	memset(l, 0, sizeof(*l));
	inet_pton(AF_INET, opt.host, &sin.sin_addr);
	l->lch = rdma_create_event_channel();
	if (!l->lch || rdma_create_id(l->lch, &l->listen, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(l->listen, (struct sockaddr *)&sin) ||
	    rdma_listen(l->listen, 4)) {
		ret = -errno;
		goto fail;
	}
	l->cli = conn_new(cli_buf, 16);
	l->srv = conn_new(srv_buf, LOOP_SRV_RECV_DEPTH);
	ret = conn_resolve(l->cli, opt.host, LOOP_PORT);
	if (!ret)
		ret = conn_setup_qp(l->cli, l->cli->id, NULL);
	if (ret)
		goto fail;
	conn_rd_atom(l->cli, &cp);
	if (rdma_connect(l->cli->id, &cp)) {
		ret = -errno;
		goto fail;
	}
	ret = cm_wait(l->lch, RDMA_CM_EVENT_CONNECT_REQUEST, &ev, 10000);
	if (ret)
		goto fail;
	ret = conn_setup_qp(l->srv, ev->id, NULL);
	sp.responder_resources = ev->param.conn.initiator_depth;
	sp.initiator_depth = ev->param.conn.responder_resources;
	if (!ret && rdma_accept(ev->id, &sp))
		ret = -errno;
	rdma_ack_cm_event(ev);
	if (ret)
		goto fail;
	ret = cm_wait(l->cli->ch, RDMA_CM_EVENT_ESTABLISHED, NULL, 10000);
	if (!ret)
		ret = cm_wait(l->lch, RDMA_CM_EVENT_ESTABLISHED, NULL, 10000);
	if (ret)
		goto fail;
	return 0;
fail:
	say("cannot make a loopback connection on %s: %s", opt.dev,
	    strerror(-ret));
	loop_close(l);
	return ret;
}

/* Wait for the completion of wr_id @want on @c's send CQ (busy poll). */
int wait_send(struct conn *c, uint64_t want)
{
	struct ibv_wc wc;
	uint64_t deadline = now_ns() + 10000000000ULL;
	int n, status = 0;

	for (;;) {
		n = ibv_poll_cq(c->scq, 1, &wc);
		if (n < 0)
			return -EIO;
		if (n) {
			if (wc.status != IBV_WC_SUCCESS && !status)
				status = wc.status;
			if (wc.wr_id == want)
				return status;
			continue;
		}
		if (now_ns() > deadline)
			return -ETIMEDOUT;
	}
}

/*
 * Tell the other side @len bytes of @msg (at most RECV_SIZE): one signaled
 * SEND from the start of @c's buffer, waited for.
 */
int conn_send(struct conn *c, const void *msg, size_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)c->mem, .length = (uint32_t)len,
		.lkey = c->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = ++c->wr_seq, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	int ret;

	memcpy(c->mem, msg, len);
	if (ibv_post_send(c->qp, &wr, &bad))
		return -errno;
	ret = wait_send(c, wr.wr_id);
	return ret > 0 ? -EIO : ret;
}

/* Take one receive completion of @c and post its slot again (busy poll). */
int conn_repost_recv(struct conn *c)
{
	uint64_t deadline = now_ns() + 10000000000ULL;
	struct ibv_wc wc;
	int n;

	do {
		n = ibv_poll_cq(c->rcq, 1, &wc);
		if (n < 0 || (n && wc.status != IBV_WC_SUCCESS))
			return -EIO;
		if (n)
			return post_recv(c, (unsigned int)wc.wr_id) ? -EIO : 0;
	} while (now_ns() < deadline);
	return -ETIMEDOUT;
}

/* Take every receive completion of @c and post its slot again: 0 or -EIO. */
static int conn_drain_recv(struct conn *c)
{
	struct ibv_wc wc[16];
	int n, i;

	while ((n = ibv_poll_cq(c->rcq, 16, wc)) > 0)
		for (i = 0; i < n; i++)
			if (wc[i].status != IBV_WC_SUCCESS ||
			    post_recv(c, (unsigned int)wc[i].wr_id))
				return -EIO;
	return n < 0 ? -EIO : 0;
}

/* conn_pump_start()'s thread: sleep on the channel, drain, arm again */
static void *conn_pump(void *arg)
{
	struct conn *c = arg;
	struct pollfd pfd = { .fd = c->cc->fd, .events = POLLIN };
	struct ibv_cq *cq;
	void *ctx;

	while (!atomic_load(&c->pump_stop)) {
		if (poll(&pfd, 1, 5) <= 0 || ibv_get_cq_event(c->cc, &cq, &ctx))
			continue;
		ibv_ack_cq_events(cq, 1);
		if (ibv_req_notify_cq(cq, 0) || conn_drain_recv(c))
			atomic_store(&c->pump_err, -EIO);
	}
	return NULL;
}

int conn_pump_start(struct conn *c)
{
	atomic_store(&c->pump_stop, false);
	atomic_store(&c->pump_err, 0);
	if (ibv_req_notify_cq(c->rcq, 0) || conn_drain_recv(c))
		return -EIO;
	return pthread_create(&c->pump, NULL, conn_pump, c) ? -EAGAIN : 0;
}

int conn_pump_stop(struct conn *c)
{
	atomic_store(&c->pump_stop, true);
	pthread_join(c->pump, NULL);
	return atomic_load(&c->pump_err);
}

/* ------------------------------------------------ peers of the module */

/*
 * The peer's thread, its libmwinpeer connection's only user while it
 * runs: takes in the grants and revokes and so reposts the receives.
 */
static void *pump(void *arg)
{
	struct peer *p = arg;
	struct mwpeer_event ev[64];
	int i, n;

	while (!atomic_load(&p->pump_stop)) {
		n = mwpeer_process(p->mp, ev, 64);
		for (i = 0; i < n; i++) {
			if (ev[i].type == MWPEER_EV_GRANT ||
			    ev[i].type == MWPEER_EV_REVOKE)
				atomic_fetch_add(&p->msgs, 1);
			else if (ev[i].type == MWPEER_EV_DISCONNECTED)
				atomic_fetch_add(&p->errors, 1);
		}
		if (!n)
			mwpeer_poll(p->mp, 5);
	}
	return NULL;
}

/* is the module's side of @p still connected? */
bool peer_alive(const struct peer *p)
{
	struct mwin_peer_info pi;

	return !mwin_peer_get(mfd, p->peer_id, 0, &pi) &&
	       pi.state == MWIN_PEER_CONNECTED;
}

/* messages the module sent this peer against those the pump took in */
void peer_check(struct peer *p, const char *when)
{
	struct mwin_peer_info pi;

	if (mwin_peer_get(mfd, p->peer_id, 0, &pi))
		say("peer %u (%s): gone", p->peer_id, when);
	else
		say("peer %u (%s): module sent %llu messages, %lu received, %d errors",
		    p->peer_id, when, (unsigned long long)pi.msgs_sent,
		    atomic_load(&p->msgs), atomic_load(&p->errors));
}

/* Stop the thread: the caller may use @p->mp itself. */
void peer_pause(struct peer *p)
{
	if (!p->pumping)
		return;
	atomic_store(&p->pump_stop, true);
	pthread_join(p->pump, NULL);
	p->pumping = false;
}

void peer_close(struct peer *p)
{
	if (!p)
		return;
	peer_pause(p);
	mwpeer_close(p->mp);
	free(p);
}

/* A peer of the module on opt.dev, with a thread taking in its messages. */
struct peer *peer_connect(void)
{
	struct mwpeer_opts o = {
		.dev = opt.dev,
		.timeout_ms = 10000,
		.buf_size = 2 * MiB,
		.recv_depth = PEER_RECV_DEPTH,
		.retry_count = 3,
	};
	struct peer *p = calloc(1, sizeof(*p));
	struct mwin_peer_info pi;
	int ret, i;

	if (!p)
		die("out of memory");
	p->mp = mwpeer_create(&o);
	if (!p->mp)
		die("mwpeer_create: %s", strerror(errno));
	ret = mwpeer_open(p->mp, opt.host, 0);
	if (ret) {
		say("cannot connect to the module at %s: %s (%s)", opt.host,
		    strerror(-ret), mwpeer_errmsg(p->mp));
		peer_close(p);
		return NULL;
	}
	p->peer_id = mwpeer_id(p->mp);
	/* wait until the module, too, sees it established */
	for (i = 0; i < 5000; i++) {
		if (!mwin_peer_get(mfd, p->peer_id, 0, &pi) &&
		    pi.state == MWIN_PEER_CONNECTED)
			break;
		usleep(1000);
	}
	if (pthread_create(&p->pump, NULL, pump, p))
		die("pthread_create");
	p->pumping = true;
	return p;
}

/* ------------------------------------------------------------ data path */

/* The data path's view of the loopback client @c. */
struct dp_qp conn_dp(struct conn *c)
{
	return (struct dp_qp){ c->qp, c->scq, c->mem, c->mr->lkey,
			       &c->wr_seq };
}

/* ... and of the peer @p, paused: the same QP and buffer libmwinpeer uses */
struct dp_qp peer_dp(struct peer *p)
{
	struct ibv_qp *qp = mwpeer_ibv_qp(p->mp);
	uint8_t *buf = mwpeer_buf(p->mp);

	peer_pause(p);
	return (struct dp_qp){ qp, qp->send_cq, buf,
			       mwpeer_lkey(p->mp, buf, 1), &p->wr_seq };
}

/*
 * @count operations of @len bytes, @depth in flight, each signaled.
 * @lat_us: if not NULL (then @depth is 1), each operation's round trip.
 * Return: elapsed ns, or 0 on failure.
 */
uint64_t dp_run(const struct dp_qp *q, enum ibv_wr_opcode op, uint32_t rkey,
		uint64_t raddr, size_t len, int depth, int count,
		double *lat_us)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)q->buf, .length = (uint32_t)len,
		.lkey = q->lkey,
	};
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = raddr, .rkey = rkey },
	}, *bad;
	struct ibv_wc wc[16];
	int posted = 0, done = 0, n, i;
	uint64_t t0 = now_ns(), t_op = 0, deadline = t0 + 60000000000ULL;

	while (done < count) {
		while (posted < count && posted - done < depth) {
			wr.wr_id = ++*q->wr_seq;
			if (lat_us)
				t_op = now_ns();
			if (ibv_post_send(q->qp, &wr, &bad)) {
				say("post %s failed: %s",
				    op == IBV_WR_RDMA_READ ? "READ" : "WRITE",
				    strerror(errno));
				return 0;
			}
			posted++;
		}
		n = ibv_poll_cq(q->cq, 16, wc);
		if (n < 0)
			return 0;
		for (i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				say("%s of %zu bytes failed: %s",
				    op == IBV_WR_RDMA_READ ? "READ" : "WRITE",
				    len, ibv_wc_status_str(wc[i].status));
				return 0;
			}
			if (lat_us)
				lat_us[done] = (now_ns() - t_op) / 1e3;
			done++;
		}
		if (!n && now_ns() > deadline) {
			say("data path: no completion for 60 s");
			return 0;
		}
	}
	t0 = now_ns() - t0;
	return t0 ? t0 : 1;
}
