// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libmwinpeer: completions and CM events: mwpeer_poll(), mwpeer_process().
 */
#include "internal.h"

#include <string.h>

/* --------------------------------------------------------- completions */

int peer_post_recv(struct mwpeer *p, unsigned int slot)
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

/* The module's messages received: how many receives completed. */
static int drain_recv(struct mwpeer *p)
{
	struct ibv_wc wc[16];
	int n, i, taken = 0;

	while ((n = ibv_poll_cq(p->rcq, 16, wc)) > 0) {
		taken += n;
		for (i = 0; i < n; i++) {
			unsigned int slot = (unsigned int)wc[i].wr_id;
			uint8_t raw[RECV_SIZE];
			uint32_t len = wc[i].byte_len;
			int r;

			if (wc[i].status != IBV_WC_SUCCESS) {
				/* flushes follow any error, and a disconnect */
				if (wc[i].status != IBV_WC_WR_FLUSH_ERR ||
				    (!p->qp_error && p->state == MWPEER_CONNECTED))
					peer_seterr(p, "receive failed: %s (vendor error 0x%x)",
					       ibv_wc_status_str(wc[i].status),
					       wc[i].vendor_err);
				peer_went_down(p, -EREMOTEIO);
				continue;
			}
			if (slot >= (unsigned int)p->recv_depth)
				continue;
			if (len > RECV_SIZE)
				len = RECV_SIZE;
			memcpy(raw, p->mem + p->recv_off + slot * RECV_SIZE,
			       len);
			r = peer_post_recv(p, slot);
			if (r)
				peer_seterr(p, "cannot repost a receive: %s",
				       strerror(r));
			peer_handle_recv(p, raw, len, &wc[i]);
		}
	}
	return taken;
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
void peer_answer_dreq(struct mwpeer *p)
{
	if (!p->dreq_unanswered)
		return;
	p->dreq_unanswered = false;
	rdma_disconnect(p->id);
}

/* Our requests completed: how many. */
static int drain_send(struct mwpeer *p)
{
	struct ibv_wc wc[16];
	int n, i, taken = 0;

	while ((n = ibv_poll_cq(p->scq, 16, wc)) > 0) {
		taken += n;
		for (i = 0; i < n; i++) {
			bool mine = p->wait_wr && wc[i].wr_id == p->wait_wr;

			if (p->send_outstanding)
				p->send_outstanding--;
			if (wc[i].status != IBV_WC_SUCCESS) {
				if (wc[i].status != IBV_WC_WR_FLUSH_ERR ||
				    (!p->qp_error && p->state == MWPEER_CONNECTED))
					peer_seterr(p, "%s failed: %s (vendor error 0x%x)",
					       mine ? p->wait_what :
					       "earlier timed-out request",
					       ibv_wc_status_str(wc[i].status),
					       wc[i].vendor_err);
				peer_went_down(p, -EREMOTEIO);
			}
			if (wc[i].wr_id & ASYNC_WR)
				peer_op_completed(p, &wc[i]);
			if (mine) {
				p->wait_done = true;
				p->wait_status = (int)wc[i].status;
				p->wait_wr = 0;
			}
		}
	}
	if (!p->send_outstanding)
		peer_answer_dreq(p);
	return taken;
}

/*
 * The connection broke (@why: -EREMOTEIO, a completion failed and the QP
 * is in error; -ECONNRESET, the other side closed it): what
 * MWPEER_EV_DISCONNECTED will say.
 */
void peer_went_down(struct mwpeer *p, int why)
{
	if (why == -EREMOTEIO)
		p->qp_error = true;
	/* a request refused says more than the disconnect that follows it */
	if (!p->ev_down || (why == -EREMOTEIO && !p->ev_down_sent))
		p->ev_down = why;
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
				peer_went_down(p, -ECONNRESET);
				p->state = MWPEER_DISCONNECTED;
				p->closed_ms = peer_now_ms();
				peer_seterr(p, "connection closed by the other side (%s)",
				       rdma_event_str(type));
				p->dreq_unanswered = true;
				if (!p->send_outstanding)
					peer_answer_dreq(p);
			}
			break;
		default:
			break;
		}
	}
}

/* Requests that never complete after a close: flush them (answer_dreq()). */
static void answer_late_dreq(struct mwpeer *p)
{
	if (p->dreq_unanswered &&
	    peer_now_ms() - p->closed_ms >= CLOSE_GRACE_MS)
		peer_answer_dreq(p);
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
			peer_ep_wait(p, timeout_ms);
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
		answer_late_dreq(p);
	}
	return 0;
}

/* Something for mwpeer_process() to hand out? */
static bool events_ready(const struct mwpeer *p)
{
	return p->ev_connected || p->q_len ||
	       (p->ops_len && p->ops[p->ops_head].done) ||
	       (p->ev_down && !p->ev_down_sent && !p->ops_len);
}

int mwpeer_arm(struct mwpeer *p)
{
	mwpeer_poll(p, 0);
	return events_ready(p);
}

/* ------------------------------------------------------------- events */

int mwpeer_process(struct mwpeer *p, struct mwpeer_event *ev, int max)
{
	int n = 0;

	/*
	 * The CQs, in user space: a caller spinning for its operations pays
	 * no system call, not even a clock's (without a TSC the guests we
	 * test on read the HPET in a system call). The CM events (a
	 * disconnect) every CM_CHECK_EVERY calls; arming for mwpeer_fd() is
	 * mwpeer_arm()'s.
	 */
	if (p->cc) {
		drain_recv(p);
		drain_send(p);
		if (!(++p->process_calls % CM_CHECK_EVERY)) {
			handle_cm_events(p);
			answer_late_dreq(p);
		}
	}
	/* the last connection's operations, flushed by mwpeer_reconnect() */
	while (n < max && p->ops_old && peer_op_event(p, &ev[n])) {
		p->ops_old--;
		n++;
	}
	if (n < max && !p->ops_old && p->ev_connected) {
		ev[n++] = (struct mwpeer_event){ .type = MWPEER_EV_CONNECTED };
		p->ev_connected = false;
	}
	while (n < max && peer_take_msg(p, &ev[n].msg)) {
		struct mwpeer_msg m = ev[n].msg;

		ev[n] = (struct mwpeer_event){
			.type = m.type == MWIN_WIRE_GRANT ? MWPEER_EV_GRANT :
							     MWPEER_EV_REVOKE,
			.msg = m,
		};
		n++;
	}
	while (n < max && peer_op_event(p, &ev[n]))
		n++;
	/* the last event of a connection: after every operation's */
	if (n < max && p->ev_down && !p->ev_down_sent && !p->ops_len) {
		ev[n++] = (struct mwpeer_event){ .type = MWPEER_EV_DISCONNECTED,
						 .status = p->ev_down };
		p->ev_down_sent = true;
	}
	return n;
}
