// SPDX-License-Identifier: GPL-2.0
/*
 * Peers: the RDMA CM listener, one PD, two CQs and two RC QPs per accepted
 * connection, grant and revoke messages, and teardown.
 *
 * The connected QP carries the messages and the peer's requests. The
 * peer's window operations (LOCAL_INV, REG_MR) go on a registration QP in
 * the same PD that carries nothing else (peer_create_reg_qp()), so that
 * they never wait behind a message.
 *
 * Sends (window operations and messages) complete on a softirq-polled CQ,
 * the fastest wake-up for a waiting caller. Receives complete on a
 * workqueue-polled CQ, because a remote invalidation takes window->lock.
 *
 * A peer is torn down once, by peer_kill(), from whichever notices first:
 * the CM (disconnect, device removal), a failed or flushed receive (rxe
 * moves the QP to error silently after a bad remote access), a failed
 * window operation or keepalive, PEER_DISCONNECT, device removal or unload.
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/inet.h>
#include <linux/slab.h>
#include <rdma/ib_cm.h>

#include "mwin.h"
#include "trace.h"

/* messages, one keepalive and the drain */
#define MWIN_SQ_DEPTH		(MWIN_SEND_DEPTH + 1 + 1)
#define MWIN_RQ_DEPTH		(MWIN_WIRE_RECV_DEPTH + 1)
/* window operations (two requests each at most), the kicks and the drain */
#define MWIN_REG_SQ_DEPTH	(2 * MWIN_OPS_DEPTH + MWIN_KICK_DEPTH + 1)
/* the drain's */
#define MWIN_REG_RQ_DEPTH	1

static struct mwin_peer *to_peer(struct mwin_obj *o)
{
	return o ? container_of(o, struct mwin_peer, obj) : NULL;
}

struct mwin_peer *peer_get(u32 id)
{
	return to_peer(mwin_obj_find(&mwin_peer_type, &id, false,
				     &mwin_module_caller));
}

static void peer_release(struct mwin_obj *o)
{
	struct mwin_peer *p = to_peer(o);

	if (p->tenant)
		tenant_put(p->tenant);
	mwin_dev_put(p->dev);
	kfree_rcu(p, obj.rcu);
}

/* Peers are the host's: any caller sees them all. Remote hosts make them. */
struct mwin_obj_type mwin_peer_type = {
	.xa = XARRAY_INIT(mwin_peer_type.xa, XA_FLAGS_ALLOC1),
	.release = peer_release,
};

void peer_put(struct mwin_peer *p)
{
	mwin_obj_put(&p->obj);
}

/* For the log: each enum mwin_down_reason explained. */
static const char *const peer_down_why[MWIN_DOWN_SLOTS] = {
	[MWIN_DOWN_DISCONNECT] = "disconnected",
	[MWIN_DOWN_QP_ERROR] = "a request failed (a remote access error?)",
	[MWIN_DOWN_KEEPALIVE] = "no answer to a keepalive",
	[MWIN_DOWN_CUT_OFF] = "cut off: a revoke did not complete in time",
	[MWIN_DOWN_OPERATOR] = "disconnected by the operator",
	[MWIN_DOWN_DEVICE] = "device removed",
	[MWIN_DOWN_HOSTILE] = "invalidated an rkey not its own",
	[MWIN_DOWN_NO_MESSAGES] = "takes no messages",
	[MWIN_DOWN_BAD_PROOF] = "its tenant proof did not verify",
	[MWIN_DOWN_NO_PROOF] = "sent no tenant proof in time",
	[MWIN_DOWN_TENANT] = "its tenant was destroyed",
	[MWIN_DOWN_UNLOAD] = "module unloaded",
	[MWIN_DOWN_QP_EVENT] = "the device reported its QP broken",
};

const char *peer_down_name(enum mwin_down_reason why)
{
	return why < MWIN_DOWN_SLOTS && peer_down_why[why] ?
	       peer_down_why[why] : "unknown";
}

/**
 * peer_kill() - tear a peer down, once, from a work item
 * @p: peer
 * @why: the reason, kept when it is the first
 */
void peer_kill(struct mwin_peer *p, enum mwin_down_reason why)
{
	if (!test_and_set_bit(MWIN_PEER_KILLED, &p->flags)) {
		p->down_reason = why;
		queue_work(mwin_wq, &p->teardown_work);
	}
}

/*
 * Caller holds a reference on @p. Unbounded: only device removal, unload,
 * and a batch whose chain the device did not even flush (its memory must
 * outlive the device's use of it) wait this way.
 */
void peer_kill_sync(struct mwin_peer *p, enum mwin_down_reason why)
{
	peer_kill(p, why);
	flush_work(&p->teardown_work);
}

/**
 * peer_wait_torn_down() - wait, as a caller, for a killed peer's teardown
 * @p: peer, killed; the caller holds a reference
 *
 * The teardown waits for the device to drain the peer's QP, which takes
 * long only on a device that does not flush a QP in error; the caller
 * waits op_timeout_ms at most all the same, and may be killed.
 *
 * Return: 0, -EAGAIN when the teardown is not done in time, or -EINTR.
 */
int peer_wait_torn_down(struct mwin_peer *p)
{
	long left = wait_for_completion_killable_timeout(&p->torn_down,
			msecs_to_jiffies(READ_ONCE(mwin_op_timeout_ms)));

	if (left > 0)
		return 0;
	return left ? -EINTR : -EAGAIN;
}

/**
 * peer_cut_off() - stop every remote access through a peer's PD, now
 * @p: peer; the caller keeps its QP alive (a window attached to @p and
 *	locked or batched by the caller)
 *
 * Moves the QP to ERR before returning: the device takes no more requests
 * from the peer, so every rkey granted to it is dead however long its
 * pending work requests take. Its registration QP follows, which flushes
 * the window requests it still holds. Then the peer is torn
 * down. A tenant's peer shares its PD, and so its rkeys, with the
 * tenant's other connections on the device: all of them are cut off.
 */
void peer_cut_off(struct mwin_peer *p)
{
	if (p->tpd)
		tenant_pd_cut_off(p->tpd);
	else
		peer_cut_off_qp(p);
}

/* peer_cut_off() of @p's QPs alone. */
void peer_cut_off_qp(struct mwin_peer *p)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	int ret, reg_ret;

	if (!test_and_set_bit(MWIN_PEER_CUT_OFF, &p->flags)) {
		trace_mwin_cut_off(p);
		mwin_count(p, MWIN_STAT_CUT_OFFS, 1);
		/* both, whatever the first says: each failure is its own */
		ret = ib_modify_qp(p->qp, &attr, IB_QP_STATE);
		reg_ret = ib_modify_qp(p->reg_qp, &attr, IB_QP_STATE);
		ret = ret ?: reg_ret;
		if (ret)
			pr_err_ratelimited("mwin: peer %u: cannot move its QPs to error: %d\n",
					   p->obj.id, ret);
		else
			pr_info_ratelimited("mwin: peer %u cut off: a revoke or registration did not complete in time\n",
					    p->obj.id);
	}
	peer_kill(p, MWIN_DOWN_CUT_OFF);
}

static bool peer_ops_take(struct mwin_peer *p, unsigned int n)
{
	int free = atomic_read(&p->ops_free);

	do {
		if (free < n)
			return false;
	} while (!atomic_try_cmpxchg(&p->ops_free, &free, free - n));
	return true;
}

/**
 * peer_ops_get() - take slots for @n window requests on a peer's send queue
 * @p: peer
 * @n: requests, at most MWIN_OPS_DEPTH, taken all at once so that two
 *	chains never each hold part of what the other waits for
 * @deadline: in jiffies
 * @killable: a fatal signal ends the wait
 *
 * Return: 0, -ETIMEDOUT or -EINTR.
 */
int peer_ops_get(struct mwin_peer *p, unsigned int n, unsigned long deadline,
		 bool killable)
{
	long left = max_t(long, deadline - jiffies, 1);

	if (killable)
		left = wait_event_killable_timeout(p->ops_wait,
						   peer_ops_take(p, n), left);
	else
		left = wait_event_timeout(p->ops_wait, peer_ops_take(p, n),
					  left);
	if (left > 0)
		return 0;
	return left ? -EINTR : -ETIMEDOUT;
}

void peer_ops_put(struct mwin_peer *p, unsigned int n)
{
	atomic_add(n, &p->ops_free);
	wake_up_all(&p->ops_wait);
}

/**
 * peer_note_revoked() - remember an rkey revoked from a peer
 * @p: peer
 * @rkey: the rkey, dead now
 *
 * The peer may hand it back (Send-with-Invalidate) before it learnt of the
 * revoke: see peer_revoked().
 */
void peer_note_revoked(struct mwin_peer *p, u32 rkey)
{
	spin_lock(&p->lock);
	p->revoked[p->revoked_next] = rkey;
	p->revoked_next = (p->revoked_next + 1) % MWIN_PEER_REVOKED;
	spin_unlock(&p->lock);
}

/* Was @rkey granted to @p and revoked since? */
bool peer_revoked(struct mwin_peer *p, u32 rkey)
{
	bool found = false;
	unsigned int i;

	spin_lock(&p->lock);
	for (i = 0; i < MWIN_PEER_REVOKED && !found; i++)
		found = p->revoked[i] == rkey && rkey;
	spin_unlock(&p->lock);
	return found;
}

/*
 * Messages. Each operation queues its messages in the open slot and posts
 * the slot as one SEND when it is done (or the slot is full), so that a
 * rebind's revoke and grant, or all of a batch's messages to one peer,
 * cost the device one SEND, not one each. Messages go out in the order they
 * are queued, one sequence number each. A peer that takes none (no
 * receives posted) stalls its SENDs: after op_timeout_ms it is
 * disconnected.
 */

static void peer_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct mwin_peer *p =
		container_of(wc->wr_cqe, struct mwin_peer, send_cqe);

	spin_lock(&p->send_lock);
	p->sends_inflight--;
	spin_unlock(&p->send_lock);
	wake_up(&p->send_wait);
	if (wc->status != IB_WC_SUCCESS) {
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			pr_info_ratelimited("mwin: peer %u: send failed: %s\n",
					    p->obj.id, ib_wc_status_msg(wc->status));
		peer_kill(p, MWIN_DOWN_QP_ERROR);
	}
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

/* The open slot can take a message: it is not the oldest one in flight. */
static bool peer_slot_free(struct mwin_peer *p)
{
	return READ_ONCE(p->sends_inflight) < MWIN_SEND_DEPTH ||
	       test_bit(MWIN_PEER_KILLED, &p->flags);
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
	struct mwin_wire_msg *slot;

	spin_lock_bh(&p->send_lock);
	while (n && !test_bit(MWIN_PEER_KILLED, &p->flags)) {
		if (p->sends_inflight == MWIN_SEND_DEPTH) {
			spin_unlock_bh(&p->send_lock);
			if (!wait_event_timeout(p->send_wait, peer_slot_free(p),
						msecs_to_jiffies(mwin_op_timeout_ms)))
				peer_kill(p, MWIN_DOWN_NO_MESSAGES);
			spin_lock_bh(&p->send_lock);
			continue;
		}
		m->seq = cpu_to_le32(++p->seq);
		peer_trace_msg(p, m);
		slot = p->send_msgs + p->send_open * MWIN_WIRE_MSGS_PER_SEND;
		slot[p->send_queued++] = *m++;
		n--;
		if (p->send_queued == MWIN_WIRE_MSGS_PER_SEND ||
		    (!n && !p->send_holds))
			peer_post_open(p);
	}
	spin_unlock_bh(&p->send_lock);
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
			  MWIN_DOWN_QP_ERROR : MWIN_DOWN_KEEPALIVE);
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

/*
 * Kicks. rxe of Linux 6.1 runs a QP's requester and completer as two
 * tasklets. A LOCAL_INV that finds an earlier request not yet completed
 * (rxe_wqe_is_fenced()) marks the requester as waiting for the completer;
 * when the completer finishes that request between the requester's check
 * and its mark, it does not see the mark (do_complete()), and the send
 * queue stalls until something is posted to it again. Nothing may be: the
 * caller waits for that very queue. So a chain that takes longer than it
 * should posts a kick to the registration QP, which makes the device look
 * at the queue again (verbs_wait()): a LOCAL_INV of an MR that was never
 * registered, the one request that QP takes that changes nothing. A few
 * are in flight at most; when none is left, the chain's own bound still
 * holds.
 */
static void peer_kick_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct mwin_peer *p =
		container_of(wc->wr_cqe, struct mwin_peer, kick_cqe);

	/* in error, the QP is too: whoever waits for it finds out */
	atomic_inc(&p->kicks_free);
}

void peer_kick(struct mwin_peer *p)
{
	struct ib_send_wr wr = {
		.wr_cqe = &p->kick_cqe,
		.opcode = IB_WR_LOCAL_INV,
		.send_flags = IB_SEND_SIGNALED,
		.ex.invalidate_rkey = p->kick_mr->rkey,
	};

	if (test_bit(MWIN_PEER_KILLED, &p->flags) ||
	    atomic_dec_if_positive(&p->kicks_free) < 0)
		return;
	if (ib_post_send(p->reg_qp, &wr, NULL))
		atomic_inc(&p->kicks_free);
}

/* Receives */

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
 * The peer is up: say so, start its keepalive and, for a tenant's peer,
 * tell it of its tenant's windows. Under @p->lock.
 */
static void peer_up(struct mwin_peer *p)
{
	p->state = MWIN_PEER_CONNECTED;
	trace_mwin_peer_up(p);
	peer_keepalive_arm(p);
	if (p->tenant)
		peer_queue_regrant(p);
}

/*
 * The QP of a peer that owes a proof grants no remote access (see
 * peer_qp_to()): it is in its tenant's PD, with its tenant's MRs. Once
 * proved, it grants what the CM negotiated.
 */
static int peer_grant_access(struct mwin_peer *p)
{
	struct ib_qp_attr attr = { .qp_access_flags = p->qp_access };

	return ib_modify_qp(p->qp, &attr, IB_QP_ACCESS_FLAGS);
}

/*
 * A peer of a tenant with a key owes its proof as its first message
 * (admit.c): anything else, or a wrong one, and it goes. The proof may
 * come before the CM's ESTABLISHED event; then that event finds the peer
 * authentic.
 */
static void peer_check_proof(struct mwin_peer *p, struct mwin_recv *r,
			     u32 len)
{
	struct ib_device *ibdev = p->dev->ibdev;
	u64 dma = p->recv_dma + r->index * sizeof(struct mwin_wire_msg);
	bool ok, up;

	BUILD_BUG_ON(sizeof(struct mwin_wire_proof) !=
		     sizeof(struct mwin_wire_msg));
	if (test_bit(MWIN_PEER_KILLED, &p->flags))
		return;		/* a hostile hand-back came with it */
	ib_dma_sync_single_for_cpu(ibdev, dma, sizeof(struct mwin_wire_msg),
				   DMA_FROM_DEVICE);
	ok = len == sizeof(struct mwin_wire_proof) &&
	     admit_check_proof(p, (void *)&p->recv_msgs[r->index]);
	ib_dma_sync_single_for_device(ibdev, dma, sizeof(struct mwin_wire_msg),
				      DMA_FROM_DEVICE);
	if (!ok) {
		admit_count(p->tenant, MWIN_REJECT_BAD_PROOF);
		peer_kill(p, MWIN_DOWN_BAD_PROOF);
		return;
	}
	if (peer_grant_access(p)) {
		peer_kill(p, MWIN_DOWN_QP_ERROR);
		return;
	}
	spin_lock(&p->lock);
	set_bit(MWIN_PEER_AUTHENTIC, &p->flags);
	up = p->state == MWIN_PEER_AUTHENTICATING;
	if (up)
		peer_up(p);
	spin_unlock(&p->lock);
	if (up)
		mwin_event(MWIN_EVENT_PEER_UP, NULL, 0, p->obj.id, 0, 0);
}

/* No proof within op_timeout_ms of the ESTABLISHED event. */
static void peer_auth_timeout(struct work_struct *work)
{
	struct mwin_peer *p = container_of(to_delayed_work(work),
					   struct mwin_peer, auth_work);

	if (test_bit(MWIN_PEER_AUTHENTIC, &p->flags) ||
	    test_bit(MWIN_PEER_KILLED, &p->flags))
		return;
	admit_count(p->tenant, MWIN_REJECT_NO_PROOF);
	peer_kill(p, MWIN_DOWN_NO_PROOF);
}

/*
 * The payload of a peer's message carries nothing the module acts on; only
 * the invalidation a Send-with-Invalidate performed does.
 */
static void peer_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct mwin_recv *r = container_of(wc->wr_cqe, struct mwin_recv, cqe);
	struct mwin_peer *p = r->peer;

	if (wc->status != IB_WC_SUCCESS) {
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			pr_info_ratelimited("mwin: peer %u: receive failed: %s\n",
					    p->obj.id, ib_wc_status_msg(wc->status));
		peer_kill(p, MWIN_DOWN_QP_ERROR);
		return;
	}
	mwin_count(p, MWIN_STAT_MSGS_RECEIVED, 1);
	/* done by the device whoever sent it: hostile before the proof */
	if (wc->wc_flags & IB_WC_WITH_INVALIDATE) {
		mwin_test_delay(MWIN_TEST_REMOTE_INV);
		window_remote_invalidate(p, wc->ex.invalidate_rkey);
	}
	if (!test_bit(MWIN_PEER_AUTHENTIC, &p->flags))
		peer_check_proof(p, r, wc->byte_len);
	if (peer_post_recv(p, r))
		peer_kill(p, MWIN_DOWN_QP_ERROR);
}

/* Setup and teardown */

static void peer_free_bufs(struct mwin_peer *p)
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
	kfree(p->send_msgs);
	kfree(p->recv_msgs);
	kfree(p->recvs);
}

static int peer_alloc_bufs(struct mwin_peer *p)
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

/* An anonymous peer's own PD; a tenant's peer's is its tenant's. */
static int peer_get_pd(struct mwin_peer *p)
{
	struct ib_pd *pd;

	if (p->tenant)
		return tenant_pd_join(p);
	pd = ib_alloc_pd(p->dev->ibdev, 0);
	if (IS_ERR(pd))
		return PTR_ERR(pd);
	p->pd = pd;
	return 0;
}

static void peer_put_pd(struct mwin_peer *p)
{
	if (p->tpd)
		tenant_pd_leave(p);
	else if (p->pd)
		ib_dealloc_pd(p->pd);
}

/*
 * The QPs are the module's, not the CM's (no rdma_create_qp()), so that
 * the connected one can be moved to RTS with the remote access rights the
 * module chooses: none for a peer that owes a proof. Moved as
 * rdma_accept() would. The registration QP takes the same path and grants
 * nothing, ever.
 */
static int peer_qp_to(struct mwin_peer *p, struct ib_qp *qp,
		      enum ib_qp_state state,
		      const struct rdma_conn_param *param)
{
	struct ib_qp_attr attr = { .qp_state = state };
	bool reg = qp == p->reg_qp;
	int mask, ret;

	ret = rdma_init_qp_attr(p->cm_id, &attr, &mask);
	if (ret)
		return ret;
	if (state == IB_QPS_INIT && mask & IB_QP_ACCESS_FLAGS) {
		if (!reg)
			p->qp_access = attr.qp_access_flags;
		if (reg || test_bit(MWIN_PEER_NEEDS_PROOF, &p->flags))
			attr.qp_access_flags = 0;
	}
	if (state == IB_QPS_RTR)
		attr.max_dest_rd_atomic = reg ? 0 : param->responder_resources;
	if (state == IB_QPS_RTS)
		attr.max_rd_atomic = reg ? 0 : param->initiator_depth;
	return ib_modify_qp(qp, &attr, mask);
}

/* Receives posted, ready to send before the REP tells the peer the QP. */
static int peer_qp_ready(struct mwin_peer *p,
			 const struct rdma_conn_param *param)
{
	unsigned int i;
	int ret;

	ret = peer_qp_to(p, p->qp, IB_QPS_INIT, param);
	for (i = 0; !ret && i < MWIN_WIRE_RECV_DEPTH; i++) {
		p->recvs[i].peer = p;
		p->recvs[i].index = i;
		p->recvs[i].cqe.done = peer_recv_done;
		ret = peer_post_recv(p, &p->recvs[i]);
	}
	return ret ?: peer_qp_to(p, p->qp, IB_QPS_RTR, param) ?:
	       peer_qp_to(p, p->qp, IB_QPS_RTS, param) ?:
	       peer_qp_to(p, p->reg_qp, IB_QPS_INIT, param) ?:
	       peer_qp_to(p, p->reg_qp, IB_QPS_RTR, param) ?:
	       peer_qp_to(p, p->reg_qp, IB_QPS_RTS, param);
}

/*
 * The device's asynchronous events on a peer's QP: counted and traced.
 * One that says the QP is broken tears the peer down (rxe reports few; a
 * broken QP's receives complete flushed as well). A first request that
 * came before the RTU establishes the connection, as the CM is told.
 */
static void peer_qp_event(struct ib_event *ev, void *context)
{
	struct mwin_peer *p = context;

	trace_mwin_qp_event(p, ev->event);
	mwin_count(p, MWIN_STAT_QP_EVENTS, 1);
	switch (ev->event) {
	case IB_EVENT_COMM_EST:
		if (ev->element.qp == p->qp)
			rdma_notify(p->cm_id, ev->event);
		break;
	case IB_EVENT_QP_ACCESS_ERR:
	case IB_EVENT_QP_FATAL:
	case IB_EVENT_QP_REQ_ERR:
		pr_info_ratelimited("mwin: peer %u: %s\n", p->obj.id,
				    ib_event_msg(ev->event));
		/* an access error, as the failed request it reports */
		if (ev->event == IB_EVENT_QP_ACCESS_ERR)
			mwin_count(p, MWIN_STAT_QP_ACCESS_ERRORS, 1);
		peer_kill(p, ev->event == IB_EVENT_QP_ACCESS_ERR ?
			  MWIN_DOWN_QP_ERROR : MWIN_DOWN_QP_EVENT);
		break;
	default:
		break;
	}
}

/*
 * Peers take the device's completion vectors in turn, both CQs of one peer
 * the same, so that on a device with an interrupt per vector (mlx5) the
 * completions of many peers are handled on as many CPUs, and those of one
 * peer on one. Vectors beyond the online CPUs would share their CPUs.
 */
static u32 peer_pick_vector(struct mwin_dev *dev)
{
	int nr = min_t(int, dev->ibdev->num_comp_vectors, num_online_cpus());

	if (nr <= 1)
		return 0;
	return (u32)atomic_inc_return(&dev->next_vector) % nr;
}

/* An RC QP of @p's on its two CQs. */
static struct ib_qp *peer_new_qp(struct mwin_peer *p, u32 send_wr,
				 u32 recv_wr)
{
	struct ib_qp_init_attr attr = {};

	attr.event_handler = peer_qp_event;
	attr.qp_context = p;
	attr.qp_type = IB_QPT_RC;
	attr.sq_sig_type = IB_SIGNAL_REQ_WR;
	attr.send_cq = p->send_cq;
	attr.recv_cq = p->recv_cq;
	attr.cap.max_send_wr = send_wr;
	attr.cap.max_recv_wr = recv_wr;
	attr.cap.max_send_sge = 1;
	attr.cap.max_recv_sge = 1;
	return ib_create_qp(p->pd, &attr);
}

/*
 * The registration QP takes the LOCAL_INV and REG_MR of the peer's
 * windows, and kicks; nothing else. rxe makes a LOCAL_INV wait until every
 * earlier request of its send queue completed (rxe_wqe_is_fenced()): on
 * the connected QP that was the last message's SEND, done only when the
 * peer acknowledged it. An MR registered on any QP of the PD works on all
 * of them. The QP is connected as the other one is, but never sends a
 * packet: it takes local requests only, has no receive posted (but the
 * drain's) and grants no remote access (peer_qp_to()), so whatever reaches
 * it is refused.
 */
static int peer_create_reg_qp(struct mwin_peer *p)
{
	struct ib_qp *qp = peer_new_qp(p, MWIN_REG_SQ_DEPTH,
				       MWIN_REG_RQ_DEPTH);
	struct ib_mr *mr;

	if (IS_ERR(qp))
		return PTR_ERR(qp);
	p->reg_qp = qp;
	mr = ib_alloc_mr(p->pd, IB_MR_TYPE_MEM_REG, 1);
	if (IS_ERR(mr))
		return PTR_ERR(mr);
	p->kick_mr = mr;
	return 0;
}

static int peer_create_qp(struct mwin_peer *p)
{
	struct ib_device *ibdev = p->dev->ibdev;
	struct ib_qp *qp;
	int ret;

	ret = peer_get_pd(p);
	if (ret)
		return ret;
	p->comp_vector = peer_pick_vector(p->dev);
	p->send_cq = ib_alloc_cq(ibdev, p, MWIN_SQ_DEPTH + MWIN_REG_SQ_DEPTH,
				 p->comp_vector, IB_POLL_SOFTIRQ);
	if (IS_ERR(p->send_cq))
		return PTR_ERR(p->send_cq);
	p->recv_cq = ib_alloc_cq(ibdev, p, MWIN_RQ_DEPTH + MWIN_REG_RQ_DEPTH,
				 p->comp_vector, IB_POLL_WORKQUEUE);
	if (IS_ERR(p->recv_cq))
		return PTR_ERR(p->recv_cq);

	qp = peer_new_qp(p, MWIN_SQ_DEPTH, MWIN_RQ_DEPTH);
	if (IS_ERR(qp))
		return PTR_ERR(qp);
	p->qp = qp;
	p->qpn = qp->qp_num;
	return peer_create_reg_qp(p) ?: peer_alloc_bufs(p);
}

/* Everything peer_create_qp() made; the QPs are drained or never used. */
static void peer_destroy_qp(struct mwin_peer *p)
{
	if (p->kick_mr)
		ib_dereg_mr(p->kick_mr);
	if (p->reg_qp)
		ib_destroy_qp(p->reg_qp);
	if (p->qp)
		ib_destroy_qp(p->qp);
	peer_free_bufs(p);
	if (!IS_ERR_OR_NULL(p->recv_cq))
		ib_free_cq(p->recv_cq);
	if (!IS_ERR_OR_NULL(p->send_cq))
		ib_free_cq(p->send_cq);
	peer_put_pd(p);
}

/* What PEER_GET says of @p, into @info, whose id is @p's. */
static void peer_info_of(struct mwin_peer *p, struct mwin_peer_info *info)
{
	spin_lock(&p->lock);
	info->state = p->state;
	info->nr_windows = p->nr_windows;
	spin_unlock(&p->lock);
	info->qpn = p->qpn;
	strscpy(info->dev_name, p->dev_name, sizeof(info->dev_name));
	BUILD_BUG_ON(sizeof(info->addr) < sizeof(p->addr));
	memcpy(info->addr, &p->addr, sizeof(p->addr));
	info->msgs_sent = mwin_counter(&p->counters, MWIN_STAT_MSGS_SENT);
	info->msgs_received = mwin_counter(&p->counters,
					   MWIN_STAT_MSGS_RECEIVED);
	info->remote_invalidations =
		mwin_counter(&p->counters, MWIN_STAT_REMOTE_INVALIDATIONS);
	info->rejected_invalidations = mwin_counter(&p->counters,
						    MWIN_STAT_ATTACKS);
	info->tenant = p->tenant ? p->tenant->obj.id : 0;
}

int peer_fill_info(struct mwin_peer_info *info)
{
	struct mwin_peer *p;

	p = to_peer(mwin_obj_find(&mwin_peer_type, &info->id,
				  info->flags & MWIN_GET_NEXT, &mwin_module_caller));
	if (!p)
		return -ENOENT;
	peer_info_of(p, info);
	peer_put(p);
	return 0;
}

/*
 * The last MWIN_PEERS_GONE peers that went, as they were then, for
 * PEER_GET with MWIN_GET_GONE: an operator that learns of a failure
 * after the fact still finds the peer, and why it went.
 */
static struct mwin_peer_info peer_gone[MWIN_PEERS_GONE];
static unsigned int peer_gone_next;
static DEFINE_SPINLOCK(peer_gone_lock);

static void peer_remember(struct mwin_peer *p)
{
	struct mwin_peer_info info = { .id = p->obj.id };

	peer_info_of(p, &info);
	info.down_reason = p->down_reason;
	spin_lock(&peer_gone_lock);
	peer_gone[peer_gone_next++ % MWIN_PEERS_GONE] = info;
	spin_unlock(&peer_gone_lock);
}

/* The gone peer *@info names, or with MWIN_GET_NEXT the next by id. */
int peer_fill_gone(struct mwin_peer_info *info)
{
	const struct mwin_peer_info *e, *found = NULL;
	bool next = info->flags & MWIN_GET_NEXT;
	u32 size = info->size, flags = info->flags;

	spin_lock(&peer_gone_lock);
	for (e = peer_gone; e < peer_gone + MWIN_PEERS_GONE; e++) {
		if (!e->id || (next ? e->id <= info->id : e->id != info->id))
			continue;
		if (!found || e->id < found->id)
			found = e;
	}
	if (found) {
		*info = *found;
		info->size = size;
		info->flags = flags;
	}
	spin_unlock(&peer_gone_lock);
	return found ? 0 : -ENOENT;
}

static void peer_unbind_windows(struct mwin_peer *p)
{
	struct mwin_window *w;

	for (;;) {
		spin_lock(&p->lock);
		w = list_first_entry_or_null(&p->windows, struct mwin_window,
					     peer_node);
		if (w) {
			list_del_init(&w->peer_node);
			p->nr_windows--;
		}
		spin_unlock(&p->lock);
		if (!w)
			break;
		window_detach_peer(w, p);
		window_put(w);		/* the list's reference */
	}
}

static void peer_teardown(struct work_struct *work)
{
	struct mwin_peer *p = container_of(work, struct mwin_peer,
					   teardown_work);
	struct mwin_dev *dev = p->dev;

	/* A receive may fail before the CONNECT_REQUEST handler published @p. */
	wait_for_completion(&p->set_up);
	spin_lock(&p->lock);
	p->state = MWIN_PEER_CLOSING;
	spin_unlock(&p->lock);

	cancel_delayed_work_sync(&p->keepalive_work);
	cancel_delayed_work_sync(&p->auth_work);
	/*
	 * Messages are posted under send_lock once MWIN_PEER_KILLED was seen
	 * clear: after this, none is being posted and none will be, and the
	 * drain below waits for those posted.
	 */
	spin_lock_bh(&p->send_lock);
	spin_unlock_bh(&p->send_lock);
	/* rxe leaves a faulted peer's QP silently in error: say so at once. */
	rdma_disconnect(p->cm_id);
	mwin_test_delay(MWIN_TEST_TEARDOWN);
	ib_drain_qp(p->qp);
	ib_drain_qp(p->reg_qp);
	set_bit(MWIN_PEER_DRAINED, &p->flags);
	peer_remember(p);	/* with the windows it had */
	peer_unbind_windows(p);
	mwin_count_down(p);
	trace_mwin_peer_down(p);
	if (p->tenant)
		tenant_regrant_elsewhere(p->tenant);

	spin_lock(&dev->lock);
	list_del(&p->dev_node);
	dev->nr_peers--;
	spin_unlock(&dev->lock);

	peer_destroy_qp(p);
	rdma_destroy_id(p->cm_id);
	admit_peer_gone(p);
	atomic_dec(&mwin_nr_peers);
	/*
	 * Last: a caller that finds the peer gone finds its connection slot,
	 * its tenant's count and the module's given back too.
	 */
	mwin_obj_unpublish(&p->obj);
	mwin_event(MWIN_EVENT_PEER_DOWN, NULL, 0, p->obj.id, 0,
		   p->down_reason);
	pr_info_ratelimited("mwin: peer %u down: %s\n", p->obj.id,
			    peer_down_name(p->down_reason));
	complete_all(&p->torn_down);
	peer_put(p);
}

/* A new peer, which takes what its request was admitted with. */
static struct mwin_peer *peer_alloc(struct rdma_cm_id *id,
				    struct mwin_dev *dev,
				    struct mwin_admission *a)
{
	struct mwin_peer *p;

	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return NULL;
	mwin_obj_init(&p->obj, &mwin_peer_type, NULL, false);
	spin_lock_init(&p->lock);
	spin_lock_init(&p->send_lock);
	init_waitqueue_head(&p->send_wait);
	init_completion(&p->set_up);
	init_completion(&p->torn_down);
	atomic_set(&p->ops_free, MWIN_OPS_DEPTH);
	atomic_set(&p->kicks_free, MWIN_KICK_DEPTH);
	init_waitqueue_head(&p->ops_wait);
	INIT_LIST_HEAD(&p->windows);
	INIT_LIST_HEAD(&p->dev_node);
	INIT_LIST_HEAD(&p->tenant_node);
	INIT_WORK(&p->teardown_work, peer_teardown);
	INIT_WORK(&p->regrant_work, peer_regrant);
	INIT_LIST_HEAD(&p->tpd_node);
	INIT_DELAYED_WORK(&p->keepalive_work, peer_keepalive);
	INIT_DELAYED_WORK(&p->auth_work, peer_auth_timeout);
	p->send_cqe.done = peer_send_done;
	p->keepalive_cqe.done = peer_keepalive_done;
	p->kick_cqe.done = peer_kick_done;
	p->state = MWIN_PEER_CONNECTING;
	p->cm_id = id;
	kref_get(&dev->kref);
	p->dev = dev;
	strscpy(p->dev_name, dev_name(&dev->ibdev->dev), sizeof(p->dev_name));
	memcpy(&p->addr, &id->route.addr.dst_addr, sizeof(p->addr));
	admit_take(p, a);
	return p;
}

/*
 * The module's own transport timers, not the peer's: an ACK timeout of
 * 4.096 us * 2^18 (about 1.07 s) a try, and a peer whose receive queue is
 * empty is asked to retry a SEND after 0.64 ms.
 */
#define MWIN_ACK_TIMEOUT	18
#define MWIN_MIN_RNR_TIMER	IB_RNR_TIMER_000_64

static int peer_accept_conn(struct mwin_peer *p,
			    const struct rdma_conn_param *req,
			    const u8 *peer_nonce)
{
	struct ib_device_attr *attrs = &p->dev->ibdev->attrs;
	union mwin_accept_buf acc;
	int len = admit_accept_data(p, peer_nonce, &acc);
	struct rdma_conn_param param = {
		.private_data = &acc,
		.private_data_len = len,
		/* The peer reads and does atomics; the module does neither. */
		.responder_resources = min_t(u32, req->initiator_depth,
					     attrs->max_qp_rd_atom),
		.initiator_depth = 0,
		.rnr_retry_count = 6,
	};

	if (len < 0)
		return len;
	param.qp_num = p->qpn;
	return rdma_set_ack_timeout(p->cm_id, MWIN_ACK_TIMEOUT) ?:
	       rdma_set_min_rnr_timer(p->cm_id, MWIN_MIN_RNR_TIMER) ?:
	       peer_qp_ready(p, &param) ?:
	       rdma_accept(p->cm_id, &param);
}

/* The mwin_dev of an ib_device that is not going away. */
static struct mwin_dev *peer_find_dev(struct ib_device *ibdev)
{
	struct mwin_dev *dev;

	lockdep_assert_held(&mwin_devs_lock);
	list_for_each_entry(dev, &mwin_devs, node)
		if (dev->ibdev == ibdev && !READ_ONCE(dev->dying))
			return dev;
	return NULL;
}

/* A peer that was never published: give back all it took. */
static void peer_free(struct mwin_peer *p)
{
	admit_peer_gone(p);
	if (p->tenant)
		tenant_put(p->tenant);
	mwin_dev_put(p->dev);
	kfree(p);
}

/* Make @p visible: on its device's list, and by id. */
static void peer_publish(struct mwin_peer *p)
{
	struct mwin_dev *dev = p->dev;

	spin_lock(&dev->lock);
	list_add_tail(&p->dev_node, &dev->peers);
	dev->nr_peers++;
	spin_unlock(&dev->lock);
	if (p->tenant)
		tenant_add_peer(p->tenant, p);
	mwin_obj_publish(&p->obj);
}

/*
 * Set up and accept a peer. mwin_devs_lock is held throughout, so that the
 * device's remove callback, which takes it to mark the device dying, finds
 * the peer either published on the device's list or not begun.
 *
 * Return: 0, or an errno; then nothing is left but *@undo, if set, for
 * peer_undo_setup().
 */
static int peer_setup(struct rdma_cm_id *id, const struct rdma_conn_param *req,
		      struct mwin_admission *a, struct mwin_peer **undo)
{
	struct mwin_dev *dev;
	struct mwin_peer *p;
	int ret;

	lockdep_assert_held(&mwin_devs_lock);
	dev = peer_find_dev(id->device);
	if (!dev)
		return -ENODEV;
	p = peer_alloc(id, dev, a);
	if (!p)
		return -ENOMEM;

	/* Reserve the id: the accept tells it, lookups see it only later. */
	ret = mwin_obj_reserve_id(&p->obj);
	if (ret)
		goto err_free;
	ret = peer_create_qp(p);
	if (ret)
		goto err_destroy;
	id->context = p;
	/*
	 * Once the REP is out the peer may send, fail a receive and so kill
	 * @p before it is published: the teardown waits for set_up.
	 */
	ret = peer_accept_conn(p, req, a->nonce);
	if (ret)
		goto err_destroy;
	mwin_test_delay(MWIN_TEST_PEER_PUBLISH);
	peer_publish(p);
	complete(&p->set_up);
	pr_debug("mwin: peer %u from %pISpc on %s\n", p->obj.id, &p->addr,
		 p->dev_name);
	return 0;

err_destroy:
	/* No REP went out, so no teardown is queued; let none be. */
	set_bit(MWIN_PEER_KILLED, &p->flags);
	id->context = NULL;
	*undo = p;
	return ret;
err_free:
	peer_free(p);
	return ret;
}

/*
 * Undo a peer_setup() that failed after it made the QP, without
 * mwin_devs_lock: freeing a CQ waits for its completion work, which may
 * wait for a window lock, whose holder may wait for mwin_devs_lock.
 */
static void peer_undo_setup(struct mwin_peer *p)
{
	peer_destroy_qp(p);
	mwin_obj_unpublish(&p->obj);
	peer_free(p);
}

/*
 * CONNECT_REQUEST, on the new id. A non-zero return makes the CM destroy
 * the id, so everything else is undone here.
 */
static int peer_connect_request(struct rdma_cm_id *id,
				const struct rdma_conn_param *req)
{
	struct mwin_peer *undo = NULL;
	struct mwin_admission a;
	struct mwin_tenant *t;
	int why, ret;

	why = admit_request(id, req, &a);
	if (!why &&
	    atomic_inc_return(&mwin_nr_peers) > READ_ONCE(mwin_max_peers)) {
		atomic_dec(&mwin_nr_peers);
		why = MWIN_REJECT_PEER_LIMIT;
	}
	if (why) {
		admit_reject(id, a.tenant, why);
		admit_undo(&a);
		return -ECONNREFUSED;
	}

	/* the peer takes the tenant's reference: one for the count below */
	t = a.tenant;
	if (t)
		mwin_obj_get(&t->obj);
	mutex_lock(&mwin_devs_lock);
	ret = peer_setup(id, req, &a, &undo);
	mutex_unlock(&mwin_devs_lock);
	if (undo)
		peer_undo_setup(undo);
	admit_undo(&a);		/* nothing, once a peer took it */
	if (ret) {
		atomic_dec(&mwin_nr_peers);
		admit_reject(id, t, MWIN_REJECT_SETUP);
	}
	if (t)
		tenant_put(t);
	return ret;
}

static int peer_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct mwin_peer *p = id->context;
	bool up;

	switch (ev->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		return peer_connect_request(id, &ev->param.conn);
	case RDMA_CM_EVENT_ESTABLISHED:
		/*
		 * Under the lock, so that a teardown, which marks the peer
		 * closing before it cancels the keepalive, finds it armed
		 * or never to be armed.
		 */
		spin_lock(&p->lock);
		up = p->state == MWIN_PEER_CONNECTING &&
		     test_bit(MWIN_PEER_AUTHENTIC, &p->flags);
		if (up) {
			peer_up(p);
		} else if (p->state == MWIN_PEER_CONNECTING) {
			/* the proof is to come: see peer_check_proof() */
			unsigned int ms = READ_ONCE(mwin_op_timeout_ms);

			p->state = MWIN_PEER_AUTHENTICATING;
			queue_delayed_work(mwin_wq, &p->auth_work,
					   msecs_to_jiffies(ms));
		}
		spin_unlock(&p->lock);
		if (up)
			mwin_event(MWIN_EVENT_PEER_UP, NULL, 0, p->obj.id, 0, 0);
		break;
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
	case RDMA_CM_EVENT_ADDR_CHANGE:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		if (p)
			peer_kill(p, ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL ?
				  MWIN_DOWN_DEVICE : MWIN_DOWN_DISCONNECT);
		break;
	default:
		break;
	}
	return 0;
}

char *mwin_listen = "";
module_param_named(listen, mwin_listen, charp, 0444);
MODULE_PARM_DESC(listen, "Addresses peers may connect to, comma-separated IPv4 or IPv6 literals (default: all)");

#define MWIN_LISTEN_MAX	8

static struct rdma_cm_id *mwin_listen_ids[MWIN_LISTEN_MAX];

/* The next address of the listen parameter at *@list, or -ENOENT. */
static int peer_listen_addr(const char **list, struct sockaddr_storage *ss)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	size_t n = strcspn(*list, ",");
	const char *word = *list;

	if (!n)
		return -ENOENT;
	*list += n + !!(*list)[n];
	memset(ss, 0, sizeof(*ss));
	if (in4_pton(word, n, (u8 *)&sin->sin_addr, -1, NULL)) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(mwin_port);
		return 0;
	}
	if (in6_pton(word, n, sin6->sin6_addr.s6_addr, -1, NULL)) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(mwin_port);
		return 0;
	}
	pr_err("mwin: listen: not an address: %.*s\n", (int)n, word);
	return -EINVAL;
}

static int peer_listen_on(struct sockaddr *sa, struct rdma_cm_id **out)
{
	struct rdma_cm_id *id;
	int ret;

	id = rdma_create_id(&init_net, peer_cm_handler, NULL, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id))
		return PTR_ERR(id);
	/* The wildcard listens for IPv4 and IPv6 alike. */
	ret = (sa->sa_family == AF_INET6 ? rdma_set_afonly(id, 0) : 0) ?:
	      rdma_bind_addr(id, sa) ?:
	      rdma_listen(id, 128);
	if (ret) {
		pr_err("mwin: cannot listen on %pISpc: %d%s\n", sa, ret,
		       ret == -EADDRINUSE ? " (port in use)" : "");
		rdma_destroy_id(id);
		return ret;
	}
	*out = id;
	return 0;
}

/*
 * Listen on every device, present or not: on the addresses of the listen
 * parameter, or on all.
 */
int peer_listen(void)
{
	struct sockaddr_in6 any = {
		.sin6_family = AF_INET6,
		.sin6_port = htons(mwin_port),
		.sin6_addr = IN6ADDR_ANY_INIT,
	};
	const char *list = mwin_listen;
	struct sockaddr_storage ss;
	int i, ret;

	if (!*list)
		return peer_listen_on((struct sockaddr *)&any,
				      &mwin_listen_ids[0]);
	for (i = 0; i < MWIN_LISTEN_MAX; i++) {
		ret = peer_listen_addr(&list, &ss);
		if (ret == -ENOENT)
			return 0;
		if (!ret)
			ret = peer_listen_on((struct sockaddr *)&ss,
					     &mwin_listen_ids[i]);
		if (ret)
			goto err;
	}
	if (!*list)
		return 0;
	pr_err("mwin: listen: more than %d addresses\n", MWIN_LISTEN_MAX);
	ret = -EINVAL;
err:
	peer_stop_listen();
	return ret;
}

void peer_stop_listen(void)
{
	int i;

	for (i = 0; i < MWIN_LISTEN_MAX; i++) {
		if (mwin_listen_ids[i])
			rdma_destroy_id(mwin_listen_ids[i]);
		mwin_listen_ids[i] = NULL;
	}
}

int peer_disconnect(u32 id)
{
	struct mwin_peer *p = peer_get(id);
	int ret;

	if (!p)
		return -ENOENT;
	peer_kill(p, MWIN_DOWN_OPERATOR);
	ret = peer_wait_torn_down(p);
	peer_put(p);
	return ret;
}
