// SPDX-License-Identifier: GPL-2.0
/*
 * Peers: the object, one PD, two CQs and two RC QPs per accepted
 * connection, cutting them off, and teardown. The connection is cm.c's,
 * the messages msgs.c's.
 *
 * The connected QP carries the messages and the peer's requests. The
 * peer's window operations (LOCAL_INV, REG_MR) go on a registration QP in
 * the same PD that carries nothing else (peer_create_reg_qp()), so that
 * they never wait behind a message; on iWARP, which cannot connect it, on
 * the connected QP.
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
#include <linux/slab.h>

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
	[MWIN_DOWN_REG_QP] = "its registration QP failed: something was sent to it",
	[MWIN_DOWN_HANDSHAKE] = "handshake not finished in time, or no slot left",
};

const char *peer_down_name(enum mwin_down_reason why)
{
	return why < MWIN_DOWN_SLOTS && peer_down_why[why] ?
	       peer_down_why[why] : "unknown";
}

/*
 * The teardown of a killed peer is queued once its CONNECT_REQUEST handler
 * accepted it: a peer killed while it is set up (a cut-off of its tenant
 * PD, a receive failed after the REP) is torn down by the handler's own
 * undo when the setup fails, and queued by the handler when it succeeds.
 * Each side sets its bit, then looks at the other's.
 */
void peer_queue_teardown(struct mwin_peer *p)
{
	smp_mb__after_atomic();	/* the bit set before, against the tests */
	if (test_bit(MWIN_PEER_KILLED, &p->flags) &&
	    test_bit(MWIN_PEER_SET_UP, &p->flags) &&
	    !test_and_set_bit(MWIN_PEER_QUEUED, &p->flags))
		queue_work(mwin_wq, &p->teardown_work);
}

/* Mark @p killed for @why; true when this was the first reason. */
static bool peer_mark_killed(struct mwin_peer *p, enum mwin_down_reason why)
{
	if (test_and_set_bit(MWIN_PEER_KILLED, &p->flags))
		return false;
	p->down_reason = why;
	return true;
}

/**
 * peer_kill() - tear a peer down, once, from a work item
 * @p: peer
 * @why: the reason, kept when it is the first
 */
void peer_kill(struct mwin_peer *p, enum mwin_down_reason why)
{
	if (peer_mark_killed(p, why))
		peer_queue_teardown(p);
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
 * @p: peer; the caller keeps its QPs alive (a window attached to @p and
 *	locked or batched by the caller)
 * @why: the reason the peer goes, if it is the first
 *
 * A tenant's peer shares its PD, and so its rkeys, with the tenant's other
 * connections on the device: all of them are cut off.
 *
 * Return: 0 when every QP in the PD is in ERR; an errno when one could not
 * be moved there (see peer_cut_off_qp()).
 */
int peer_cut_off(struct mwin_peer *p, enum mwin_down_reason why)
{
	if (p->tpd)
		return tenant_pd_cut_off(p->tpd, why);
	return peer_cut_off_qp(p, why);
}

/* Has @p a registration QP of its own, not its connected QP? */
static bool peer_own_reg_qp(const struct mwin_peer *p)
{
	return p->reg_qp && p->reg_qp != p->qp;
}

static int peer_move_to_err(struct mwin_peer *p)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	int ret, reg_ret;

	if (mwin_test_at(MWIN_TEST_QP_STUCK))
		return -EIO;	/* test build: the device refuses */
	/* both, whatever the first says: each fails alone */
	ret = ib_modify_qp(p->qp, &attr, IB_QP_STATE);
	if (!peer_own_reg_qp(p))
		return ret;
	reg_ret = ib_modify_qp(p->reg_qp, &attr, IB_QP_STATE);
	return ret ?: reg_ret;
}

/**
 * peer_qps_to_err() - move a peer's QPs to ERR, once
 * @p: peer whose QPs exist
 * @moved: out, may be NULL: this call moved them
 *
 * The connected QP then takes no more requests from the peer, so no rkey
 * works through it however long the peer's pending requests take; the
 * registration QP flushes the window requests it still holds.
 *
 * Return: 0 when both are in ERR (now or before, or drained by the
 * teardown); an errno when the device refused: nothing is then taken for
 * done, and a later call tries again.
 */
int peer_qps_to_err(struct mwin_peer *p, bool *moved)
{
	bool this_call = false;
	int ret = 0;

	mutex_lock(&p->cut_lock);
	/* still in RESET, they stay there: peer_qp_ready() looks first */
	if (!test_bit(MWIN_PEER_QPS_UP, &p->flags))
		set_bit(MWIN_PEER_CUT_OFF, &p->flags);
	if (!test_bit(MWIN_PEER_CUT_OFF, &p->flags) &&
	    !test_bit(MWIN_PEER_DRAINED, &p->flags)) {
		ret = peer_move_to_err(p);
		if (!ret)
			set_bit(MWIN_PEER_CUT_OFF, &p->flags);
		this_call = !ret;
	}
	mutex_unlock(&p->cut_lock);
	if (moved)
		*moved = this_call;
	return ret;
}

/**
 * peer_cut_off_qp() - peer_cut_off() of @p's QPs alone
 * @p: peer whose QPs exist
 * @why: the reason the peer goes, if it is the first
 *
 * Counted and told as a cut-off when this call moved the QPs. The peer is
 * torn down in any case.
 *
 * Return: see peer_qps_to_err().
 */
int peer_cut_off_qp(struct mwin_peer *p, enum mwin_down_reason why)
{
	/*
	 * The reason first: the QPs in ERR flush the peer's receives, whose
	 * failure would otherwise be taken for the reason (a request failed).
	 */
	bool first = peer_mark_killed(p, why), moved;
	int ret = peer_qps_to_err(p, &moved);

	if (ret)
		pr_err_ratelimited("mwin: peer %u: cannot move its QPs to error: %d\n",
				   p->obj.id, ret);
	if (moved) {
		trace_mwin_cut_off(p);
		mwin_count(p, MWIN_STAT_CUT_OFFS, 1);
		pr_info_ratelimited("mwin: peer %u: QPs moved to error: %s\n",
				    p->obj.id, peer_down_name(why));
	}
	if (first)
		peer_queue_teardown(p);
	return ret;
}

/**
 * peer_reg_qp_failed() - a window request failed on @p's registration QP
 * @p: peer whose QPs exist
 *
 * A registration QP of its own takes nothing from the network: its failure
 * is the peer's doing. On iWARP the window requests go on the connected
 * QP, which fails as the connection does: a request failed there.
 *
 * Return: see peer_qps_to_err().
 */
int peer_reg_qp_failed(struct mwin_peer *p)
{
	return peer_cut_off_qp(p, peer_own_reg_qp(p) ? MWIN_DOWN_REG_QP :
					MWIN_DOWN_QP_ERROR);
}

/* Take up to @n slots, as many as are free, one at least: *@taken. */
static bool peer_ops_take(struct mwin_peer *p, unsigned int n, int *taken)
{
	int free = atomic_read(&p->ops_free);

	do {
		if (free <= 0)
			return false;
		*taken = min_t(int, free, n);
	} while (!atomic_try_cmpxchg(&p->ops_free, &free, free - *taken));
	return true;
}

/**
 * peer_ops_get() - take slots for up to @n window requests on a peer's
 *	send queue
 * @p: peer
 * @n: requests, at most MWIN_OPS_DEPTH
 * @deadline: in jiffies
 * @killable: a fatal signal ends the wait
 *
 * Slots are taken as they are free, not all at once, so that a caller
 * holding a few cannot starve a batch: a batch posts what it got and waits
 * for it to complete before it asks for more, so no chain holds slots
 * while it waits for others (batch.c). The test build hides every slot from
 * killable callers (MWIN_TEST_PERMITS_HELD).
 *
 * Return: the number taken, 1 to @n; -ETIMEDOUT or -EINTR.
 */
int peer_ops_get(struct mwin_peer *p, unsigned int n, unsigned long deadline,
		 bool killable)
{
	bool held = killable && mwin_test_at(MWIN_TEST_PERMITS_HELD);
	long left = max_t(long, deadline - jiffies, 1);
	int taken = 0;

	if (killable)
		left = wait_event_killable_timeout(p->ops_wait,
						   !held &&
						   peer_ops_take(p, n, &taken),
						   left);
	else
		left = wait_event_timeout(p->ops_wait,
					  peer_ops_take(p, n, &taken), left);
	if (left > 0)
		return taken;
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
 * holds. Only on rxe (mwin_dev.kick): another provider may fail such a
 * LOCAL_INV, and its registration QP with it.
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
	};

	/* a peer on another device than rxe has no kick_mr */
	if (!p->kick_mr || test_bit(MWIN_PEER_KILLED, &p->flags) ||
	    atomic_dec_if_positive(&p->kicks_free) < 0)
		return;
	wr.ex.invalidate_rkey = p->kick_mr->rkey;
	if (ib_post_send(p->reg_qp, &wr, NULL))
		atomic_inc(&p->kicks_free);
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
 * module chooses. Moved as rdma_accept() would. The registration QP takes
 * the same path and grants nothing, ever.
 */
static int peer_qp_to(struct mwin_peer *p, struct ib_qp *qp,
		      enum ib_qp_state state,
		      const struct rdma_conn_param *param)
{
	struct ib_qp_attr attr = { .qp_state = state };
	bool reg = qp != p->qp;
	int mask, ret;

	ret = rdma_init_qp_attr(p->cm_id, &attr, &mask);
	if (ret)
		return ret;
	/* at any transition: the iw_cm gives remote rights at RTR too */
	if (reg && mask & IB_QP_ACCESS_FLAGS)
		attr.qp_access_flags = 0;
	if (state == IB_QPS_RTR)
		attr.max_dest_rd_atomic = reg ? 0 : param->responder_resources;
	if (state == IB_QPS_RTS)
		attr.max_rd_atomic = reg ? 0 : param->initiator_depth;
	return ib_modify_qp(qp, &attr, mask);
}

/* Receives posted, ready to send before the REP tells the peer the QP. */
int peer_qp_ready(struct mwin_peer *p, const struct rdma_conn_param *param)
{
	int ret;

	/* a cut-off before this keeps them in RESET: see peer_qps_to_err() */
	mutex_lock(&p->cut_lock);
	if (test_bit(MWIN_PEER_CUT_OFF, &p->flags)) {
		ret = -ECONNREFUSED;
		goto out;
	}
	set_bit(MWIN_PEER_QPS_UP, &p->flags);
	ret = peer_qp_to(p, p->qp, IB_QPS_INIT, param) ?:
	      peer_post_recvs(p) ?:
	      peer_qp_to(p, p->qp, IB_QPS_RTR, param) ?:
	      peer_qp_to(p, p->qp, IB_QPS_RTS, param);
	if (ret || !peer_own_reg_qp(p))
		goto out;
	ret = peer_qp_to(p, p->reg_qp, IB_QPS_INIT, param) ?:
	      peer_qp_to(p, p->reg_qp, IB_QPS_RTR, param) ?:
	      peer_qp_to(p, p->reg_qp, IB_QPS_RTS, param);
out:
	mutex_unlock(&p->cut_lock);
	return ret;
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
	bool reg = peer_own_reg_qp(p) && ev->element.qp == p->reg_qp;
	enum mwin_down_reason why;

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
		pr_info_ratelimited("mwin: peer %u: %s%s\n", p->obj.id,
				    ib_event_msg(ev->event),
				    reg ? " on its registration QP" : "");
		/*
		 * The registration QP takes nothing from the network: an
		 * event there is the peer's doing. Its QPs are moved to ERR
		 * by the teardown, or sooner by a window operation that the
		 * broken QP fails (verbs_chain_end()): this may be atomic.
		 */
		if (reg) {
			why = MWIN_DOWN_REG_QP;
		} else if (ev->event == IB_EVENT_QP_ACCESS_ERR) {
			/* an access error, as the failed request it reports */
			mwin_count(p, MWIN_STAT_QP_ACCESS_ERRORS, 1);
			why = MWIN_DOWN_QP_ERROR;
		} else {
			why = MWIN_DOWN_QP_EVENT;
		}
		peer_kill(p, why);
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
 *
 * iWARP connects a QP to a TCP stream of the iw_cm's, and a QP sends
 * nothing until then: the connected QP takes the window requests too
 * (its send queue has room for both, peer_create_qp()). Such a QP is
 * reached through its stream alone, and iWARP acknowledges nothing that
 * a LOCAL_INV would wait for: in order behind the module's SENDs, it waits
 * only for them to be handed to TCP.
 */
static int peer_create_reg_qp(struct mwin_peer *p)
{
	struct ib_qp *qp = p->qp;
	struct ib_mr *mr;

	if (!p->dev->reg_on_conn_qp)
		qp = peer_new_qp(p, MWIN_REG_SQ_DEPTH, MWIN_REG_RQ_DEPTH);
	if (IS_ERR(qp))
		return PTR_ERR(qp);
	p->reg_qp = qp;
	if (!p->dev->kick)
		return 0;
	mr = ib_alloc_mr(p->pd, IB_MR_TYPE_MEM_REG, 1);
	if (IS_ERR(mr))
		return PTR_ERR(mr);
	p->kick_mr = mr;
	return 0;
}

int peer_create_qp(struct mwin_peer *p)
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

	qp = peer_new_qp(p, MWIN_SQ_DEPTH + (p->dev->reg_on_conn_qp ?
					     MWIN_REG_SQ_DEPTH - 1 : 0),
			 MWIN_RQ_DEPTH);
	if (IS_ERR(qp))
		return PTR_ERR(qp);
	p->qp = qp;
	p->qpn = qp->qp_num;
	ret = peer_create_reg_qp(p);
	if (ret)
		return ret;
	/* its QPs exist: a cut-off of its tenant PD can move them to ERR */
	if (p->tpd)
		tenant_pd_add(p);
	mwin_test_delay(MWIN_TEST_PEER_SETUP);
	return peer_alloc_bufs(p);
}

/* Everything peer_create_qp() made; the QPs are drained or never used. */
void peer_destroy_qp(struct mwin_peer *p)
{
	/* no cut-off of its tenant PD may touch the QPs from here on */
	if (p->tpd)
		tenant_pd_remove(p);
	if (p->kick_mr)
		ib_dereg_mr(p->kick_mr);
	if (peer_own_reg_qp(p))
		ib_destroy_qp(p->reg_qp);
	if (p->qp)
		ib_destroy_qp(p->qp);
	peer_free_bufs(p);
	if (!IS_ERR_OR_NULL(p->recv_cq))
		ib_free_cq(p->recv_cq);
	if (!IS_ERR_OR_NULL(p->send_cq))
		ib_free_cq(p->send_cq);
	mwin_test_delay(MWIN_TEST_PD_LEAVE);
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

/*
 * Drained, the connected QP goes back to RESET, which drops whatever the
 * device still holds of the peer's requests: rxe keeps the MR of a READ
 * its responder was answering when the QP went to error until then, and
 * deregistering it (peer_unbind_windows()) would wait for that, a window
 * lock held. The registration QP stays in ERR: a window request posted
 * until its window is detached completes flushed. So does the connected
 * QP when it is the registration QP too (iWARP).
 */
static void peer_qp_reset(struct mwin_peer *p)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_RESET };

	if (!peer_own_reg_qp(p))
		return;
	if (ib_modify_qp(p->qp, &attr, IB_QP_STATE))
		pr_warn_ratelimited("mwin: peer %u: cannot reset its QP\n",
				    p->obj.id);
}

static void peer_teardown(struct work_struct *work)
{
	struct mwin_peer *p = container_of(work, struct mwin_peer,
					   teardown_work);
	struct mwin_dev *dev = p->dev;

	spin_lock(&p->lock);
	p->state = MWIN_PEER_CLOSING;
	spin_unlock(&p->lock);

	cancel_delayed_work_sync(&p->keepalive_work);
	cancel_delayed_work_sync(&p->handshake_work);
	/*
	 * Messages are posted under send_lock once MWIN_PEER_KILLED was seen
	 * clear: after this, none is being posted and none will be, and the
	 * drain below waits for those posted.
	 */
	spin_lock_bh(&p->send_lock);
	spin_unlock_bh(&p->send_lock);
	/*
	 * Nothing reaches memory through the peer from here on. To ERR
	 * before the disconnect: on iWARP the disconnect moves the QP to
	 * CLOSING, and siw flushes from there only the request it is
	 * sending; window requests queued behind it, on a connection siw
	 * itself dropped (a refused access), would then complete only when
	 * the QP is destroyed, and their caller wait for them in vain.
	 */
	peer_qps_to_err(p, NULL);
	/* rxe leaves a faulted peer's QP silently in error: say so at once. */
	rdma_disconnect(p->cm_id);
	mwin_test_delay(MWIN_TEST_TEARDOWN);
	ib_drain_qp(p->qp);
	if (peer_own_reg_qp(p))
		ib_drain_qp(p->reg_qp);
	/* after this no cut-off touches the QPs, which go below */
	mutex_lock(&p->cut_lock);
	set_bit(MWIN_PEER_DRAINED, &p->flags);
	mutex_unlock(&p->cut_lock);
	peer_qp_reset(p);
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
struct mwin_peer *peer_alloc(struct rdma_cm_id *id, struct mwin_dev *dev,
			     struct mwin_admission *a)
{
	struct mwin_peer *p;

	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return NULL;
	mwin_obj_init(&p->obj, &mwin_peer_type, NULL, false);
	spin_lock_init(&p->lock);
	mutex_init(&p->cut_lock);
	peer_msgs_init(p);
	init_completion(&p->torn_down);
	atomic_set(&p->ops_free, MWIN_OPS_DEPTH);
	atomic_set(&p->kicks_free, MWIN_KICK_DEPTH);
	init_waitqueue_head(&p->ops_wait);
	INIT_LIST_HEAD(&p->windows);
	INIT_LIST_HEAD(&p->dev_node);
	INIT_LIST_HEAD(&p->tenant_node);
	INIT_WORK(&p->teardown_work, peer_teardown);
	INIT_LIST_HEAD(&p->tpd_node);
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

/* A peer that was never published: give back all it took. */
void peer_free(struct mwin_peer *p)
{
	admit_peer_gone(p);
	if (p->tenant)
		tenant_put(p->tenant);
	mwin_dev_put(p->dev);
	kfree(p);
}

int peer_disconnect(u32 id)
{
	struct mwin_peer *p = peer_get(id);
	int ret;

	if (!p)
		return -ENOENT;
	/*
	 * Its QPs in ERR before the call returns, however long the teardown
	 * takes; -EIO when the device refused (the teardown tries again).
	 */
	peer_kill(p, MWIN_DOWN_OPERATOR);
	ret = peer_qps_to_err(p, NULL) ? -EIO : peer_wait_torn_down(p);
	peer_put(p);
	return ret;
}
