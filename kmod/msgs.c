// SPDX-License-Identifier: GPL-2.0
/*
 * A peer's messages: the grants and revokes the module sends on its
 * connected QP, the keepalive, and what the peer sends (hand-backs);
 * the buffers of both. The QPs are peer.c's, the connection
 * cm.c's.
 */
#include <linux/slab.h>

#include "mwin.h"
#include "trace.h"

/*
 * Messages. Each operation queues its messages in the open slot and posts
 * the slot as one SEND when it is done (or the slot is full), so that a
 * rebind's revoke and grant, or all of a batch's messages to one peer,
 * cost the device one SEND, not one each. Messages go out in the order they
 * are queued, one sequence number each.
 *
 * Queuing never waits for the peer: its callers hold window locks, their
 * tenant's pd_lock, and through those hold up other tenants' connects and
 * device removal. When every slot is in flight, messages wait in the
 * peer's backlog, in order, and the send completion that frees a slot
 * packs the oldest of them into it. A peer that takes its messages too
 * slowly for that (its backlog full, or the oldest message in it queued
 * op_timeout_ms ago) is disconnected: what it costs is its own.
 */

/* The backlog's entries: a message, and when it was queued. */
struct mwin_backlog {
	struct mwin_wire_msg msg;
	unsigned long queued;
};

static struct mwin_wire_msg *peer_open_slot(struct mwin_peer *p)
{
	return p->send_msgs + p->send_open * MWIN_WIRE_MSGS_PER_SEND;
}

/* Post the open slot, which holds messages, as one SEND. */
static void peer_post_open(struct mwin_peer *p)
{
	struct ib_device *ibdev = p->dev->ibdev;
	struct ib_send_wr wr = {};
	struct ib_sge sge;

	lockdep_assert_held(&p->send_lock);
	sge.addr = p->send_dma + p->send_open * MWIN_WIRE_RECV_SIZE;
	sge.length = p->send_queued * sizeof(struct mwin_wire_msg);
	sge.lkey = p->pd->local_dma_lkey;
	ib_dma_sync_single_for_device(ibdev, sge.addr, sge.length,
				      DMA_TO_DEVICE);
	wr.wr_cqe = &p->send_cqe;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IB_WR_SEND;
	wr.send_flags = IB_SEND_SIGNALED;
	if (ib_post_send(p->qp, &wr, NULL)) {
		peer_kill(p, MWIN_DOWN_QP_ERROR);
		return;
	}
	mwin_count(p, MWIN_STAT_MSGS_SENT, p->send_queued);
	p->sends_inflight++;
	p->send_open = (p->send_open + 1) % MWIN_SEND_DEPTH;
	p->send_queued = 0;
}

/*
 * May @p be sent messages yet? On iWARP not before its first message
 * (provider.c): until then they wait in its backlog. Under send_lock.
 */
static bool peer_may_send(const struct mwin_peer *p)
{
	return !p->dev->initiator_first || test_bit(MWIN_PEER_HEARD, &p->flags);
}

/*
 * Move the oldest backlogged messages into free slots and post them, full
 * ones at once, the last one unless a holder will. Under send_lock. The
 * open slot is empty while the backlog is not: a message is backlogged
 * only when no slot is free, or behind another.
 */
static void peer_drain_backlog(struct mwin_peer *p)
{
	struct mwin_backlog *b;

	lockdep_assert_held(&p->send_lock);
	/* a failed post kills the peer, and leaves the slot full */
	while (p->backlog_len && p->sends_inflight < MWIN_SEND_DEPTH &&
	       peer_may_send(p) && !test_bit(MWIN_PEER_KILLED, &p->flags)) {
		b = &p->backlog[p->backlog_head];
		peer_open_slot(p)[p->send_queued++] = b->msg;
		p->backlog_head = (p->backlog_head + 1) % MWIN_SEND_BACKLOG;
		p->backlog_len--;
		if (p->send_queued == MWIN_WIRE_MSGS_PER_SEND ||
		    (!p->backlog_len && !p->send_holds))
			peer_post_open(p);
	}
}

/*
 * Why @p goes when a request of its completed in error. A flushed one was
 * failed by the QP's going to error: on rxe, silently after a bad remote
 * access; on iWARP when the connection closed too (provider.c).
 */
static enum mwin_down_reason peer_failed_why(struct mwin_peer *p,
					     enum ib_wc_status status)
{
	if (status == IB_WC_WR_FLUSH_ERR && p->dev->flush_on_close)
		return MWIN_DOWN_DISCONNECT;
	return MWIN_DOWN_QP_ERROR;
}

static void peer_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct mwin_peer *p =
		container_of(wc->wr_cqe, struct mwin_peer, send_cqe);

	spin_lock(&p->send_lock);
	p->sends_inflight--;
	if (wc->status == IB_WC_SUCCESS)
		peer_drain_backlog(p);
	spin_unlock(&p->send_lock);
	wake_up(&p->send_wait);
	if (wc->status != IB_WC_SUCCESS) {
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			pr_info_ratelimited("mwin: peer %u: send failed: %s\n",
					    p->obj.id, ib_wc_status_msg(wc->status));
		peer_kill(p, peer_failed_why(p, wc->status));
	}
}

/*
 * The oldest backlogged message waited op_timeout_ms: the peer goes. Else
 * look again when it will have.
 */
static void peer_backlog_timeout(struct work_struct *work)
{
	struct mwin_peer *p = container_of(to_delayed_work(work),
					   struct mwin_peer, backlog_work);
	unsigned long due;
	bool late = false;

	spin_lock_bh(&p->send_lock);
	if (p->backlog_len && !test_bit(MWIN_PEER_KILLED, &p->flags)) {
		due = p->backlog[p->backlog_head].queued +
		      msecs_to_jiffies(READ_ONCE(mwin_op_timeout_ms));
		late = time_after_eq(jiffies, due);
		if (!late)
			queue_delayed_work(mwin_wq, &p->backlog_work,
					   due - jiffies);
	}
	spin_unlock_bh(&p->send_lock);
	if (late)
		peer_kill(p, MWIN_DOWN_NO_MESSAGES);
}

/* Backlog @m; a full backlog is a peer that takes too little: it goes. */
static void peer_backlog_add(struct mwin_peer *p,
			     const struct mwin_wire_msg *m)
{
	struct mwin_backlog *b;

	lockdep_assert_held(&p->send_lock);
	if (p->backlog_len == MWIN_SEND_BACKLOG) {
		pr_info_ratelimited("mwin: peer %u: %u messages backlogged\n",
				    p->obj.id, MWIN_SEND_BACKLOG);
		peer_kill(p, MWIN_DOWN_NO_MESSAGES);
		return;
	}
	b = &p->backlog[(p->backlog_head + p->backlog_len) % MWIN_SEND_BACKLOG];
	b->msg = *m;
	b->queued = jiffies;
	if (!p->backlog_len++)
		queue_delayed_work(mwin_wq, &p->backlog_work,
				   msecs_to_jiffies(READ_ONCE(mwin_op_timeout_ms)));
}

/*
 * The backlog, allocated the first time a message may need it: from the
 * caller's context, before send_lock. Failing, the peer cannot be told,
 * and goes.
 */
static int peer_backlog_alloc(struct mwin_peer *p)
{
	struct mwin_backlog *b;

	might_sleep();
	b = kvcalloc(MWIN_SEND_BACKLOG, sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	spin_lock_bh(&p->send_lock);
	if (!p->backlog) {
		p->backlog = b;
		b = NULL;
	}
	spin_unlock_bh(&p->send_lock);
	kvfree(b);
	return 0;
}

/* Queue @n messages; post them unless a holder will. */
static void peer_trace_msg(struct mwin_peer *p, const struct mwin_wire_msg *m)
{
	u32 window = le32_to_cpu(m->window), rkey = le32_to_cpu(m->rkey);

	if (m->type == MWIN_WIRE_GRANT)
		trace_mwin_msg_grant(window, p->obj.id, rkey, 0, p->seq);
	else
		trace_mwin_msg_revoke(window, p->obj.id, rkey,
				      le16_to_cpu(m->access), p->seq);
}

static void peer_queue_msgs(struct mwin_peer *p, struct mwin_wire_msg *m,
			    unsigned int n)
{
	bool backlog;

	spin_lock_bh(&p->send_lock);
	while (n && !test_bit(MWIN_PEER_KILLED, &p->flags)) {
		backlog = p->backlog_len ||
			  p->sends_inflight == MWIN_SEND_DEPTH ||
			  !peer_may_send(p);
		if (backlog && !p->backlog) {
			spin_unlock_bh(&p->send_lock);
			if (peer_backlog_alloc(p)) {
				peer_kill(p, MWIN_DOWN_NO_MESSAGES);
				return;
			}
			spin_lock_bh(&p->send_lock);
			continue;
		}
		m->seq = cpu_to_le32(++p->seq);
		peer_trace_msg(p, m);
		n--;
		if (backlog) {
			peer_backlog_add(p, m++);
			continue;
		}
		peer_open_slot(p)[p->send_queued++] = *m++;
		if (p->send_queued == MWIN_WIRE_MSGS_PER_SEND ||
		    (!n && !p->send_holds))
			peer_post_open(p);
	}
	spin_unlock_bh(&p->send_lock);
}

/* Has @p's backlog room for a burst, or is it going anyway? */
static bool peer_has_room(struct mwin_peer *p)
{
	return READ_ONCE(p->backlog_len) <= MWIN_SEND_BACKLOG / 2 ||
	       test_bit(MWIN_PEER_KILLED, &p->flags);
}

/**
 * peer_pace() - wait until @p's backlog has room for a burst
 * @p: the peer a caller sends messages to; the caller holds no lock
 *	anyone else needs
 *
 * Callers that loop on a peer's windows, and tenant_regrant() which tells
 * a new connection of each of its tenant's windows, go at the pace the
 * peer takes their messages: a peer that takes them as they go out is not
 * taken for one that does not. Never before a revoke: a call that revokes
 * waits once it is done. Killable; bounded: past op_timeout_ms the peer
 * goes all the same.
 *
 * Return: 0, or -EINTR.
 */
int peer_pace(struct mwin_peer *p)
{
	long left = wait_event_killable_timeout(p->send_wait,
			peer_has_room(p),
			msecs_to_jiffies(READ_ONCE(mwin_op_timeout_ms)));

	return left < 0 ? -EINTR : 0;
}

/*
 * Between peer_hold_msgs() and peer_release_msgs() messages to @p wait in
 * the open slot, to go out together.
 */
void peer_hold_msgs(struct mwin_peer *p)
{
	spin_lock_bh(&p->send_lock);
	p->send_holds++;
	spin_unlock_bh(&p->send_lock);
}

void peer_release_msgs(struct mwin_peer *p)
{
	spin_lock_bh(&p->send_lock);
	if (!--p->send_holds && p->send_queued &&
	    !test_bit(MWIN_PEER_KILLED, &p->flags))
		peer_post_open(p);
	spin_unlock_bh(&p->send_lock);
}

static void peer_msg_init(struct mwin_wire_msg *m, u8 type, u32 window,
			  u32 rkey)
{
	memset(m, 0, sizeof(*m));
	m->magic = cpu_to_le32(MWIN_WIRE_MAGIC);
	m->version = MWIN_WIRE_VERSION;
	m->type = type;
	m->window = cpu_to_le32(window);
	m->rkey = cpu_to_le32(rkey);
}

static void peer_msg_revoke(struct mwin_wire_msg *m, u32 peer,
			    const struct mwin_window *w, u32 rkey,
			    enum mwin_wire_reason reason)
{
	mwin_event(MWIN_EVENT_REVOKE, &w->obj, w->obj.id, peer, rkey, reason);
	peer_msg_init(m, MWIN_WIRE_REVOKE, w->obj.id, rkey);
	m->access = cpu_to_le16(reason);
}

/*
 * Grant @w's rkey; with @replaced, the rkey the same bind invalidated is
 * revoked in the same SEND, first. A quiet window's peer is told nothing;
 * the monitor still is.
 */
void peer_send_grant(struct mwin_peer *p, struct mwin_window *w,
		     const u32 *replaced)
{
	struct mwin_wire_msg m[2], *grant = &m[replaced ? 1 : 0];

	if (replaced) {
		peer_note_revoked(p, *replaced);
		peer_msg_revoke(&m[0], p->obj.id, w, *replaced,
				MWIN_REVOKE_REBIND);
	}
	u32 lease_ms = lease_left_ms(w);

	mwin_event(MWIN_EVENT_GRANT, &w->obj, w->obj.id, p->obj.id, w->rkey,
		   lease_ms);
	if (w->flags & MWIN_WINDOW_QUIET)
		return;
	peer_msg_init(grant, MWIN_WIRE_GRANT, w->obj.id, w->rkey);
	grant->access = cpu_to_le16(w->access);
	grant->lease_ms = cpu_to_le32(lease_ms);
	grant->iova = cpu_to_le64(window_offset(w));
	grant->length = cpu_to_le64(window_length(w));
	if (w->flags & MWIN_WINDOW_ONCE)
		grant->flags = cpu_to_le32(MWIN_WIRE_GRANT_ONCE);
	peer_queue_msgs(p, m, replaced ? 2 : 1);
}

/* A window whose creation was not finalized was never granted: quiet. */
void peer_send_revoke(struct mwin_peer *p, struct mwin_window *w, u32 rkey,
		      enum mwin_wire_reason reason)
{
	struct mwin_wire_msg m;

	if (!w->granted)
		return;
	peer_note_revoked(p, rkey);
	peer_msg_revoke(&m, p->obj.id, w, rkey, reason);
	if (!(w->flags & MWIN_WINDOW_QUIET))
		peer_queue_msgs(p, &m, 1);
}

/*
 * Keepalive. RC tells a sender, not an idle receiver, that the other end is
 * gone: a host that vanishes without a DREQ (power lost, link cut, VM
 * killed) would keep its peer, and the memory bound to that peer's windows,
 * until the module next sent it a message. So every keepalive_ms the module
 * posts a zero-length RDMA WRITE to a connected peer. It needs no rkey (a
 * zero-length access checks none), consumes no receive and completes
 * nothing on the peer's side; only the ACK matters. When the peer is gone
 * the QP's retries run out, the write fails and the peer is torn down.
 */
static void peer_keepalive_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct mwin_peer *p =
		container_of(wc->wr_cqe, struct mwin_peer, keepalive_cqe);

	clear_bit(MWIN_PEER_KEEPALIVE, &p->flags);
	if (wc->status != IB_WC_SUCCESS)
		peer_kill(p, wc->status == IB_WC_WR_FLUSH_ERR ?
			  peer_failed_why(p, wc->status) :
			  MWIN_DOWN_KEEPALIVE);
}

static void peer_keepalive_arm(struct mwin_peer *p)
{
	unsigned int ms = READ_ONCE(mwin_keepalive_ms);

	/* Switched off: look again in a second. */
	queue_delayed_work(mwin_wq, &p->keepalive_work,
			   msecs_to_jiffies(ms ?: MSEC_PER_SEC));
}

static void peer_keepalive(struct work_struct *work)
{
	struct mwin_peer *p = container_of(to_delayed_work(work),
					   struct mwin_peer, keepalive_work);
	struct ib_rdma_wr wr = {
		.wr.wr_cqe = &p->keepalive_cqe,
		.wr.opcode = IB_WR_RDMA_WRITE,
		.wr.send_flags = IB_SEND_SIGNALED,
	};

	bool failed = false;

	if (test_bit(MWIN_PEER_KILLED, &p->flags))
		return;
	/*
	 * Only on a quiet connection: a message in flight finds out as
	 * well, and a write behind a SEND the peer keeps refusing (RNR)
	 * would restart rxe's count of RNR retries. One at a time: the last
	 * one may still be retrying.
	 */
	spin_lock_bh(&p->send_lock);
	if (READ_ONCE(mwin_keepalive_ms) && !p->sends_inflight &&
	    !test_and_set_bit(MWIN_PEER_KEEPALIVE, &p->flags) &&
	    ib_post_send(p->qp, &wr.wr, NULL)) {
		clear_bit(MWIN_PEER_KEEPALIVE, &p->flags);
		failed = true;
	}
	spin_unlock_bh(&p->send_lock);
	if (failed) {
		peer_kill(p, MWIN_DOWN_QP_ERROR);
		return;
	}
	peer_keepalive_arm(p);
}

/* Receives, and what a peer owes before it is up */

static int peer_post_recv(struct mwin_peer *p, struct mwin_recv *r)
{
	struct ib_recv_wr wr = {};
	struct ib_sge sge;

	sge.addr = p->recv_dma + r->index * sizeof(struct mwin_wire_msg);
	sge.length = sizeof(struct mwin_wire_msg);
	sge.lkey = p->pd->local_dma_lkey;
	wr.wr_cqe = &r->cqe;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	return ib_post_recv(p->qp, &wr, NULL);
}

/* Send a proved peer of a tenant its tenant's grants, from a work item. */
static void peer_regrant(struct work_struct *work)
{
	struct mwin_peer *p = container_of(work, struct mwin_peer,
					   regrant_work);

	tenant_regrant(p);
	peer_put(p);
}

void peer_queue_regrant(struct mwin_peer *p)
{
	mwin_obj_get(&p->obj);
	if (!queue_work(mwin_wq, &p->regrant_work))
		peer_put(p);	/* queued already: never the last reference */
}

/*
 * The peer's handshake is over (the CM's ESTABLISHED, and on iWARP its
 * first message too): it is up, if a connection slot is left (admit.c);
 * say so, start its keepalive and, for a tenant's peer, tell it of its
 * tenant's windows. Under @p->lock.
 */
static bool peer_up(struct mwin_peer *p)
{
	int why = admit_peer_up(p);

	if (why) {
		admit_count(p->tenant, why);
		peer_kill(p, MWIN_DOWN_HANDSHAKE);
		return false;
	}
	p->state = MWIN_PEER_CONNECTED;
	trace_mwin_peer_up(p);
	peer_keepalive_arm(p);
	if (p->tenant)
		peer_queue_regrant(p);
	return true;
}

/*
 * A handshake is the module's to bound, not the peer's: a client that never
 * sends its RTU would otherwise hold its slot as long as the REQ's own CM
 * timeouts say (hours).
 */
void peer_bound_handshake(struct mwin_peer *p)
{
	queue_delayed_work(mwin_wq, &p->handshake_work,
			   msecs_to_jiffies(READ_ONCE(mwin_auth_timeout_ms)));
}

/* Not established within auth_timeout_ms of its request. */
static void peer_handshake_timeout(struct work_struct *work)
{
	struct mwin_peer *p = container_of(to_delayed_work(work),
					   struct mwin_peer, handshake_work);
	enum mwin_peer_state state;

	spin_lock(&p->lock);
	state = p->state;
	spin_unlock(&p->lock);
	if (test_bit(MWIN_PEER_KILLED, &p->flags))
		return;
	if (state == MWIN_PEER_CONNECTING) {
		admit_count(p->tenant, MWIN_REJECT_UNFINISHED);
		peer_kill(p, MWIN_DOWN_HANDSHAKE);
	}
}

/* Up: the CM said ESTABLISHED and, on iWARP, its first message came. */
static void peer_try_up(struct mwin_peer *p)
{
	bool up = false;

	spin_lock(&p->lock);
	if (p->state == MWIN_PEER_CONNECTING &&
	    test_bit(MWIN_PEER_ESTABLISHED, &p->flags) && peer_may_send(p))
		up = peer_up(p);
	spin_unlock(&p->lock);
	if (up)
		mwin_event(MWIN_EVENT_PEER_UP, NULL, 0, p->obj.id, 0, 0);
}

/*
 * The peer's first message, on iWARP: the messages held for it go out now,
 * and it is up if the CM said so already.
 */
static void peer_heard(struct mwin_peer *p)
{
	spin_lock_bh(&p->send_lock);
	set_bit(MWIN_PEER_HEARD, &p->flags);
	peer_drain_backlog(p);
	spin_unlock_bh(&p->send_lock);
	peer_try_up(p);
}

/*
 * The payload of a peer's message carries nothing the module acts on; only
 * the invalidation a Send-with-Invalidate performed does, and on iWARP the
 * first message's coming (peer_heard()).
 */
static void peer_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct mwin_recv *r = container_of(wc->wr_cqe, struct mwin_recv, cqe);
	struct mwin_peer *p = r->peer;

	if (wc->status != IB_WC_SUCCESS) {
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			pr_info_ratelimited("mwin: peer %u: receive failed: %s\n",
					    p->obj.id, ib_wc_status_msg(wc->status));
		peer_kill(p, peer_failed_why(p, wc->status));
		return;
	}
	/* on iWARP the first one ends the handshake: not a message */
	if (p->dev->initiator_first && !test_bit(MWIN_PEER_HEARD, &p->flags))
		peer_heard(p);
	else
		mwin_count(p, MWIN_STAT_MSGS_RECEIVED, 1);
	if (wc->wc_flags & IB_WC_WITH_INVALIDATE) {
		mwin_test_delay(MWIN_TEST_REMOTE_INV);
		window_remote_invalidate(p, wc->ex.invalidate_rkey);
	}
	if (peer_post_recv(p, r))
		peer_kill(p, MWIN_DOWN_QP_ERROR);
}

/* Setup and teardown */

/* Every receive of @p's connected QP posted, before its REP goes out. */
int peer_post_recvs(struct mwin_peer *p)
{
	unsigned int i;
	int ret = 0;

	for (i = 0; !ret && i < MWIN_WIRE_RECV_DEPTH; i++) {
		p->recvs[i].peer = p;
		p->recvs[i].index = i;
		p->recvs[i].cqe.done = peer_recv_done;
		ret = peer_post_recv(p, &p->recvs[i]);
	}
	return ret;
}

/*
 * The CM's ESTABLISHED: the peer is up, on iWARP once its first message
 * came too. peer_up() under the lock, so that a teardown, which marks the
 * peer closing before it cancels the keepalive, finds it armed or never to
 * be armed.
 */
void peer_established(struct mwin_peer *p)
{
	set_bit(MWIN_PEER_ESTABLISHED, &p->flags);
	peer_try_up(p);
}

void peer_free_bufs(struct mwin_peer *p)
{
	struct ib_device *ibdev = p->dev->ibdev;

	if (p->send_dma)
		ib_dma_unmap_single(ibdev, p->send_dma,
				    MWIN_SEND_DEPTH * MWIN_WIRE_RECV_SIZE,
				    DMA_TO_DEVICE);
	if (p->recv_dma)
		ib_dma_unmap_single(ibdev, p->recv_dma,
				    MWIN_WIRE_RECV_DEPTH * sizeof(*p->recv_msgs),
				    DMA_FROM_DEVICE);
	/* no completion or timeout touches the backlog any more */
	cancel_delayed_work_sync(&p->backlog_work);
	kvfree(p->backlog);
	kfree(p->send_msgs);
	kfree(p->recv_msgs);
	kfree(p->recvs);
}

int peer_alloc_bufs(struct mwin_peer *p)
{
	struct ib_device *ibdev = p->dev->ibdev;
	size_t send_size = MWIN_SEND_DEPTH * MWIN_WIRE_RECV_SIZE;
	size_t recv_size = MWIN_WIRE_RECV_DEPTH * sizeof(*p->recv_msgs);
	u64 dma;

	p->send_msgs = kzalloc(send_size, GFP_KERNEL);
	p->recv_msgs = kzalloc(recv_size, GFP_KERNEL);
	p->recvs = kcalloc(MWIN_WIRE_RECV_DEPTH, sizeof(*p->recvs),
			   GFP_KERNEL);
	if (!p->send_msgs || !p->recv_msgs || !p->recvs)
		return -ENOMEM;

	dma = ib_dma_map_single(ibdev, p->send_msgs, send_size, DMA_TO_DEVICE);
	if (ib_dma_mapping_error(ibdev, dma))
		return -ENOMEM;
	p->send_dma = dma;
	dma = ib_dma_map_single(ibdev, p->recv_msgs, recv_size,
				DMA_FROM_DEVICE);
	if (ib_dma_mapping_error(ibdev, dma))
		return -ENOMEM;
	p->recv_dma = dma;
	return 0;
}

/* The message and receive parts of a new peer (peer_alloc()). */
void peer_msgs_init(struct mwin_peer *p)
{
	spin_lock_init(&p->send_lock);
	init_waitqueue_head(&p->send_wait);
	INIT_WORK(&p->regrant_work, peer_regrant);
	INIT_DELAYED_WORK(&p->keepalive_work, peer_keepalive);
	INIT_DELAYED_WORK(&p->handshake_work, peer_handshake_timeout);
	INIT_DELAYED_WORK(&p->backlog_work, peer_backlog_timeout);
	p->send_cqe.done = peer_send_done;
	p->keepalive_cqe.done = peer_keepalive_done;
}
