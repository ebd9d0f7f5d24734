// SPDX-License-Identifier: GPL-2.0
/*
 * Verbs for windows: fast-registration MRs, REG_MR and LOCAL_INV.
 *
 * A window operation posts at most two work requests on its peer's
 * registration QP: a LOCAL_INV of the current rkey, a REG_MR with a fresh
 * key, or LOCAL_INV chained with REG_MR. Only the last one is signaled; an
 * unsignaled one that fails still completes, with its own cqe, before the
 * flushed last one, so the first error is kept and the last completion
 * always wakes the caller.
 *
 * This file knows nothing of ioctls or window states: the caller holds
 * window->lock and decides what a result means.
 */
#include <linux/slab.h>

#include "mwin.h"
#include "trace.h"

static void verbs_first_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct mwin_window *w =
		container_of(wc->wr_cqe, struct mwin_window, inv_cqe);

	if (wc->status != IB_WC_SUCCESS && !w->wc_status)
		w->wc_status = wc->status;
}

static void verbs_last_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct mwin_window *w =
		container_of(wc->wr_cqe, struct mwin_window, reg_cqe);

	if (wc->status != IB_WC_SUCCESS && !w->wc_status)
		w->wc_status = wc->status;
#ifdef MWIN_TEST
	if (mwin_test_later(MWIN_TEST_HOLD_DONE, &w->test_done))
		return;
#endif
	complete(&w->done);
}

#ifdef MWIN_TEST
/*
 * MWIN_TEST_HOLD_DONE: the completion reaches the caller late. Its waiter,
 * or verbs_abandoned(), holds the window until then: the test keeps the
 * delay below op_timeout_ms.
 */
static void verbs_test_done(struct work_struct *work)
{
	struct mwin_window *w = container_of(to_delayed_work(work),
					     struct mwin_window, test_done);

	complete(&w->done);
}
#endif

static void verbs_abandoned(struct work_struct *work);

void verbs_init_window(struct mwin_window *w)
{
	init_completion(&w->done);
	w->inv_cqe.done = verbs_first_done;
	w->reg_cqe.done = verbs_last_done;
	INIT_WORK(&w->abandon_work, verbs_abandoned);
#ifdef MWIN_TEST
	INIT_DELAYED_WORK(&w->test_done, verbs_test_done);
#endif
}

static int verbs_alloc_sgl(struct mwin_window *w, u32 pages)
{
	struct scatterlist *sgl;

	if (w->sgl_cap >= pages)
		return 0;
	sgl = kvmalloc_array(pages, sizeof(*sgl), GFP_KERNEL_ACCOUNT);
	if (!sgl)
		return -ENOMEM;
	sg_init_table(sgl, pages);
	kvfree(w->sgl);
	w->sgl = sgl;
	w->sgl_cap = pages;
	return 0;
}

/**
 * verbs_alloc_mr() - give a window a fresh MR on a peer's PD
 * @w: window, with @p attached
 * @p: peer
 * @pages: pages the MR must be able to map
 *
 * The MR's index is recorded so that a remote invalidation can be traced to
 * its window. All 256 key bytes of a fresh MR are unused.
 *
 * Return: 0 or a negative errno.
 */
int verbs_alloc_mr(struct mwin_window *w, struct mwin_peer *p, u32 pages)
{
	struct ib_mr *mr;
	int ret;

	ret = verbs_alloc_sgl(w, pages);
	if (ret)
		return ret;
	mr = ib_alloc_mr(p->pd, IB_MR_TYPE_MEM_REG, pages);
	if (IS_ERR(mr))
		return PTR_ERR(mr);
	ret = xa_insert(&p->dev->mr_windows, mr->rkey >> 8, w, GFP_KERNEL);
	if (ret) {
		ib_dereg_mr(mr);
		return ret == -EBUSY ? -EIO : ret;
	}
	w->mr = mr;
	w->mr_pages = pages;
	w->mr_mapped = false;
	/* the PD lives as long as the MR: p may go first (tenant_pd.c) */
	w->mr_tpd = p->tpd;
	if (p->tpd)
		tenant_pd_get(p->tpd);
	bitmap_zero(w->keys_used, MWIN_KEYS);
	return 0;
}

/*
 * The device must be done with the MR: no work request on it in flight.
 *
 * Return: 0, or the error of a device that refused to deregister it: the
 * device keeps the MR then, and its rkey may still work.
 */
int verbs_free_mr(struct mwin_window *w)
{
	int ret;

	if (!w->mr)
		return 0;
	xa_erase(&w->peer->dev->mr_windows, w->mr->rkey >> 8);
	ret = ib_dereg_mr(w->mr);
	if (ret)
		pr_err_ratelimited("mwin: window %u: the device refused to deregister its MR\n",
				   w->obj.id);
	w->mr = NULL;
	w->mr_pages = 0;
	w->mr_failed = false;
	if (w->mr_tpd)
		tenant_pd_put(w->mr_tpd);
	w->mr_tpd = NULL;
	return ret;
}

/* Does @w's MR map the window's range in pages of 2^@shift already? */
bool verbs_mr_mapped(struct mwin_window *w, u32 shift)
{
	return w->mr_mapped && w->mapped_start == window_offset(w) &&
	       w->mapped_len == window_length(w) && w->mapped_shift == shift;
}

/**
 * verbs_map_mr() - point a window's MR at the window's range
 * @w: window with an MR big enough for its range in pages of 2^@shift
 * @map: the region's DMA addresses on the MR's device
 * @shift: log2 of the MR's page size, at most @map->page_shift
 *
 * The remote address of a byte is its offset in the region, so the iova is
 * the window's offset; its offset in the first page equals the DMA
 * address's, as hardware requires. The MR keeps its page list across
 * REG_MR and LOCAL_INV, so an unchanged range is not mapped again. An MR
 * is never mapped twice: rxe takes the bounds and pages of an MR from the
 * MR itself, and a request that passed its rkey check before a LOCAL_INV
 * may still be copying after it completed. A new range takes a new MR;
 * deregistering the old one waits for such requests.
 *
 * Return: 0 or -EIO.
 */
int verbs_map_mr(struct mwin_window *w, const struct mwin_region_map *map,
		 u32 shift)
{
	u64 off = window_offset(w), len = window_length(w);
	u64 psize = 1ULL << shift, cmask = (1ULL << map->chunk_shift) - 1;
	u64 base, first = off >> shift;
	u32 i, n = ((off + len - 1) >> shift) - first + 1;
	unsigned int sg_off = off & (psize - 1);
	unsigned int tail = ((first + n) << shift) - (off + len);
	int mapped;

	if (verbs_mr_mapped(w, shift))
		return 0;
	if (WARN_ON_ONCE(w->mr_mapped))
		return -EIO;
	for (i = 0; i < n; i++) {
		base = (first + i) << shift;
		sg_dma_address(&w->sgl[i]) = map->dma[base >> map->chunk_shift] +
					     (base & cmask);
		sg_dma_len(&w->sgl[i]) = psize;
	}
	/* the window's bytes and no more: siw takes the MR's length here */
	sg_dma_address(&w->sgl[0]) += sg_off;
	sg_dma_len(&w->sgl[0]) -= sg_off;
	sg_dma_len(&w->sgl[n - 1]) -= tail;
	w->mr_mapped = false;
	mapped = ib_map_mr_sg(w->mr, w->sgl, n, NULL, psize);
	if (mapped != n || w->mr->length != len)
		return -EIO;
	w->mr->iova = off;
	w->mr_mapped = true;
	w->mapped_start = off;
	w->mapped_len = len;
	w->mapped_shift = shift;
	return 0;
}

static int verbs_ib_access(u32 access)
{
	return IB_ACCESS_LOCAL_WRITE |
	       (access & MWIN_ACCESS_READ ? IB_ACCESS_REMOTE_READ : 0) |
	       (access & MWIN_ACCESS_WRITE ? IB_ACCESS_REMOTE_WRITE : 0) |
	       (access & MWIN_ACCESS_ATOMIC ? IB_ACCESS_REMOTE_ATOMIC : 0);
}

/* An unsignaled LOCAL_INV of @rkey; a failure still completes, on @w. */
void verbs_prep_inv(struct mwin_window *w, struct ib_send_wr *wr, u32 rkey)
{
	memset(wr, 0, sizeof(*wr));
	wr->opcode = IB_WR_LOCAL_INV;
	wr->ex.invalidate_rkey = rkey;
	wr->wr_cqe = &w->inv_cqe;
}

/**
 * verbs_prep_reg() - a REG_MR of a window's mapped MR, behind a LOCAL_INV
 * @w: the window
 * @inv_wr: filled with an unsignaled LOCAL_INV of the MR's current key
 * @reg_wr: filled with an unsignaled REG_MR with key byte @key, linked
 *          after @inv_wr
 * @key: the new key byte
 * @access: MWIN_ACCESS_* rights
 *
 * ORDER: every REG_MR goes behind a LOCAL_INV of its MR, also when there
 * is nothing to revoke (the MR was never registered, or its key is dead;
 * invalidating it again changes nothing): a REG_MR needs its MR free
 * (rxe_reg_fast_mr()), and only then is it free whatever happened before.
 * Both go on the peer's registration QP, which carries no SEND that rxe
 * could retry and so run them twice (peer_create_reg_qp()).
 */
void verbs_prep_reg(struct mwin_window *w, struct ib_send_wr *inv_wr,
		    struct ib_reg_wr *reg_wr, u8 key, u32 access)
{
	verbs_prep_inv(w, inv_wr, w->mr->rkey);
	memset(reg_wr, 0, sizeof(*reg_wr));
	ib_update_fast_reg_key(w->mr, key);
	reg_wr->wr.opcode = IB_WR_REG_MR;
	reg_wr->wr.wr_cqe = &w->inv_cqe;
	reg_wr->mr = w->mr;
	reg_wr->key = w->mr->rkey;
	reg_wr->access = verbs_ib_access(access);
	inv_wr->next = &reg_wr->wr;
}

/* The first error a window's requests completed with, as an errno. */
int verbs_status_errno(struct mwin_window *w, int status)
{
	switch (status) {
	case IB_WC_SUCCESS:
		return 0;
	case IB_WC_WR_FLUSH_ERR:
		return -ENOTCONN;
	default:
		pr_warn_ratelimited("mwin: window %u: registration or invalidation failed: %s\n",
				    w->obj.id, ib_wc_status_msg(status));
		return -EIO;
	}
}

/**
 * verbs_timeout() - how long a window's chain may take on the device
 * @revokes: the chain invalidates an rkey
 *
 * A revoke is bounded by revoke_timeout_ms, whatever the peer does; a
 * registration alone by op_timeout_ms.
 *
 * Return: the bound, in jiffies.
 */
unsigned long verbs_timeout(bool revokes)
{
	return msecs_to_jiffies(revokes ? READ_ONCE(mwin_revoke_timeout_ms) :
				READ_ONCE(mwin_op_timeout_ms));
}

/* A stalled registration QP is kicked this often (peer_kick()). */
#define VERBS_KICK_MS	20

/**
 * verbs_wait() - wait for the last request of a window chain
 * @p: the peer
 * @done: completed with that request
 * @deadline: in jiffies
 * @killable: a fatal signal ends the wait
 *
 * Every VERBS_KICK_MS (a quarter of the wait, when that is less) that
 * passes without the completion kicks @p's registration QP (peer_kick()).
 *
 * Return: > 0 when @done completed, 0 at @deadline, -ERESTARTSYS when
 * killed.
 */
long verbs_wait(struct mwin_peer *p, struct completion *done,
		unsigned long deadline, bool killable)
{
	long slice = min_t(long, (long)(deadline - jiffies) / 4,
			   msecs_to_jiffies(VERBS_KICK_MS));
	long left, ret;

	slice = max(slice, 1L);
	for (;;) {
		left = clamp_t(long, (long)(deadline - jiffies), 1, slice);
		if (killable)
			ret = wait_for_completion_killable_timeout(done, left);
		else
			ret = wait_for_completion_timeout(done, left);
		if (ret)
			return ret;
		if (!time_before(jiffies, deadline))
			return 0;
		peer_kick(p);
	}
}

/**
 * verbs_flushed() - wait for the device to flush a cut-off peer's requests
 * @done: completion of the last request of a chain
 *
 * The peer's QPs are in ERR: the device completes what was queued at once,
 * in error. Bounded by op_timeout_ms; past it the device may still use the
 * chain's MRs.
 *
 * Return: true when the chain completed.
 */
bool verbs_flushed(struct completion *done)
{
	return wait_for_completion_timeout(done,
			msecs_to_jiffies(READ_ONCE(mwin_op_timeout_ms))) > 0;
}

/*
 * Test build, before a revoke's chain is posted. MWIN_TEST_STALL_REVOKE: a
 * device that takes the chain and sits on it: in SQD the registration QP
 * queues what is posted without running it, until a cut-off moves it to
 * ERR and so flushes it. MWIN_TEST_POISON_REG: the registration QP in ERR,
 * as a request a peer sent it leaves it on rxe; the connected QP stays in
 * RTS, and the chain completes flushed.
 */
static void verbs_test_fault(struct mwin_peer *p)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_SQD };

	if (mwin_test_at(MWIN_TEST_POISON_REG))
		attr.qp_state = IB_QPS_ERR;
	else if (!mwin_test_at(MWIN_TEST_STALL_REVOKE))
		return;
	if (ib_modify_qp(p->reg_qp, &attr, IB_QP_STATE))
		pr_warn("mwin: test build: cannot fault peer %u\n", p->obj.id);
}

/*
 * ib_post_send() on @p's registration QP; the test build makes a revoke's
 * post fail whole (MWIN_TEST_POST_FAIL) or in part (MWIN_TEST_POST_TORN:
 * all but the last request posted), as a device out of room would.
 */
static int verbs_post(struct mwin_peer *p, struct ib_send_wr *first,
		      const struct ib_send_wr **bad_wr, bool revokes)
{
	struct ib_send_wr *last = first, *end;
	int ret;

	if (revokes && mwin_test_at(MWIN_TEST_POST_FAIL)) {
		*bad_wr = first;
		return -ENOMEM;
	}
	if (!revokes || !first->next || !mwin_test_at(MWIN_TEST_POST_TORN))
		return ib_post_send(p->reg_qp, first, bad_wr);
	while (last->next->next)
		last = last->next;
	end = last->next;
	last->next = NULL;
	ret = ib_post_send(p->reg_qp, first, bad_wr);
	last->next = end;
	if (!ret)
		*bad_wr = end;
	return ret ?: -ENOMEM;
}

/**
 * verbs_permits() - take slots for up to @n requests of a window chain
 * @p: the peer whose registration QP is to take the chain
 * @n: requests still to post
 * @deadline: in jiffies
 * @revokes: the chain invalidates an rkey: its wait is not killable
 *
 * A grant that gets no slot leaves the peer alone: nothing is posted, so
 * nothing is live that was not before. A revoke that gets none cuts the
 * peer off, as the fail-closed rule says.
 *
 * Return: the slots taken, 1 to @n; for a grant -EINTR (killed) or
 * -EAGAIN (none free in time); for a revoke, verbs_chain_end()'s result for
 * a chain not posted.
 */
int verbs_permits(struct mwin_peer *p, unsigned int n, unsigned long deadline,
		  bool revokes)
{
	int ret = peer_ops_get(p, n, deadline, !revokes);

	if (ret > 0 && revokes && mwin_test_at(MWIN_TEST_NO_PERMIT)) {
		peer_ops_put(p, ret);
		ret = -ETIMEDOUT;
	}
	if (ret > 0)
		return ret;
	if (!revokes)
		return ret == -EINTR ? ret : -EAGAIN;
	return verbs_chain_end(p, NULL, VERBS_UNPOSTED);
}

/**
 * verbs_post_taken() - post a window chain whose slots were taken
 * @p: the peer whose registration QP takes it; the caller keeps its QPs
 *	alive
 * @n: slots taken for it (verbs_permits())
 * @first: its first request; the last one is signaled
 * @revokes: the chain invalidates an rkey
 *
 * Return: 0 when the chain was posted whole; otherwise verbs_chain_end()'s
 * result for a chain not posted, or posted in part.
 */
int verbs_post_taken(struct mwin_peer *p, unsigned int n,
		     struct ib_send_wr *first, bool revokes)
{
	const struct ib_send_wr *bad_wr;
	int ret;

	if (revokes)
		verbs_test_fault(p);
	/*
	 * Posted with bottom halves off: a provider that runs its send
	 * queue in a tasklet (rxe before 6.4) then runs the chain here, at
	 * local_bh_enable(), and its completion finds the caller not yet
	 * asleep, instead of waking ksoftirqd to run it and then the caller.
	 * ib_post_send() never sleeps; others do what they did.
	 */
	local_bh_disable();
	ret = verbs_post(p, first, &bad_wr, revokes);
	local_bh_enable();
	if (!ret)
		return 0;
	if (bad_wr != first)
		return verbs_chain_end(p, NULL, VERBS_TORN);
	peer_ops_put(p, n);
	return verbs_chain_end(p, NULL, VERBS_UNPOSTED);
}

/**
 * verbs_chain_end() - end a window chain that did not complete cleanly
 * @p: the peer whose registration QP took the chain, or was to take it;
 *	the caller keeps its QPs alive (a window attached to @p, locked or
 *	batched)
 * @done: completed with the chain's last request (VERBS_LOST)
 * @how: what happened to the chain
 *
 * The fail-closed rule, for single calls, batches and lease expiry alike:
 * a LOCAL_INV that did not complete successfully may not have run, so its
 * rkey is dead only once every QP that could use the MR is in ERR.
 *
 * - VERBS_FAILED: @p's QPs are moved to ERR (a peer that aimed a request
 *   at its registration QP goes so). The device is done with the chain:
 *   its MRs that other QPs could reach are deregistered by
 *   window_op_failed(), those in a tenant PD and, when the device would
 *   not move @p's QPs, all of them. Each request's status then says the
 *   call's result (verbs_status_errno()).
 * - VERBS_LOST, VERBS_UNPOSTED, VERBS_TORN: the peer is cut off, with
 *   every QP of its tenant PD (peer_cut_off()); then the flush of a lost
 *   chain is awaited, op_timeout_ms at most.
 *
 * Return: 0 (VERBS_FAILED); -ECONNABORTED: cut off, and the device holds
 * nothing of the chain; -ETIMEDOUT: the device may still use the chain's
 * MRs (a lost chain not flushed, a torn one), or, the chain not completed,
 * a QP could not be moved to ERR: the windows are BROKEN, and keep their
 * MRs (and regions) until the peer's teardown drained its QPs.
 */
int verbs_chain_end(struct mwin_peer *p, struct completion *done,
		    enum verbs_end how)
{
	if (how == VERBS_FAILED) {
		peer_reg_qp_failed(p);
		return 0;
	}
	if (peer_cut_off(p, MWIN_DOWN_CUT_OFF))
		return -ETIMEDOUT;
	switch (how) {
	case VERBS_LOST:
		return verbs_flushed(done) ? -ECONNABORTED : -ETIMEDOUT;
	case VERBS_UNPOSTED:
		return -ECONNABORTED;
	default:
		return -ETIMEDOUT;	/* the torn chain's end never completes */
	}
}

/*
 * The end of a chain verbs_run() posted, once verbs_wait() returned @left
 * (> 0: completed, 0: not in time).
 */
static int verbs_end(struct mwin_window *w, long left, bool revokes)
{
	struct mwin_peer *p = w->peer;
	int ret;

	if (!left) {
		trace_mwin_op_timeout(w, revokes);
		mwin_count(p, MWIN_STAT_TIMEOUTS, 1);
		ret = verbs_chain_end(p, &w->done, VERBS_LOST);
		if (ret == -ECONNABORTED)
			peer_ops_put(p, 1);	/* flushed */
		return ret;
	}
	w->op_ns = ktime_get_ns() - w->op_ns;
	peer_ops_put(p, 1);
	if (w->wc_status)
		verbs_chain_end(p, NULL, VERBS_FAILED);
	return verbs_status_errno(w, w->wc_status);
}

/*
 * A registering caller was killed while the device holds its chain. The
 * chain proves nothing dead that the caller must answer for (its LOCAL_INV
 * only invalidates a dead key), so the peer is not cut off for it: the
 * window stays busy (batched: window_lock() waits) and referenced until a
 * work item has waited for the chain, within the caller's deadline, and
 * window_abandoned() has undone the grant. Only a chain that fails or
 * does not complete in time ends the peer, as it would with the caller.
 *
 * Return: -EINPROGRESS, for window_chain_failed().
 */
static int verbs_abandon(struct mwin_window *w, unsigned long deadline)
{
	w->abandon_deadline = deadline;
	mwin_obj_get(&w->obj);
	WRITE_ONCE(w->batched, true);
	queue_work(mwin_wq, &w->abandon_work);
	return -EINPROGRESS;
}

/* The window is busy: @w->peer and its QPs stay while this waits. */
static void verbs_abandoned(struct work_struct *work)
{
	struct mwin_window *w = container_of(work, struct mwin_window,
					     abandon_work);
	long left = verbs_wait(w->peer, &w->done, w->abandon_deadline, false);

	mutex_lock(&w->lock);
	window_abandoned(w, verbs_end(w, left, false));
	mutex_unlock(&w->lock);
	window_put(w);
}

/*
 * Post @first..@last, a chain of one window's requests, and wait for the
 * last one. A revoke's waits are short and not interrupted: it must end
 * with the rkey dead, also for a caller that is exiting. A registration's
 * are killable, and a killed one leaves its chain to verbs_abandon().
 *
 * ORDER: only @last is signaled. Requests on one send queue complete in
 * order, so its completion means the whole chain is done; an unsignaled
 * request that fails still completes, on inv_cqe, before the flushed last
 * one, which keeps the first error.
 */
static int verbs_run(struct mwin_window *w, struct ib_send_wr *first,
		     struct ib_send_wr *last, bool revokes)
{
	unsigned long deadline = jiffies + verbs_timeout(revokes);
	struct mwin_peer *p = w->peer;
	long left;
	int ret;

	reinit_completion(&w->done);
	w->wc_status = IB_WC_SUCCESS;
	last->wr_cqe = &w->reg_cqe;
	last->send_flags = IB_SEND_SIGNALED;
	ret = verbs_permits(p, 1, deadline, revokes);
	if (ret < 0)
		return ret;
	mwin_test_delay(MWIN_TEST_HOLD_PERMIT);
	w->op_ns = ktime_get_ns();
	ret = verbs_post_taken(p, 1, first, revokes);
	if (ret)
		return ret;
	left = verbs_wait(p, &w->done, deadline, !revokes);
	if (left < 0)
		return verbs_abandon(w, deadline);
	return verbs_end(w, left, revokes);
}

/*
 * Each of these posts one window's chain and waits for it. The caller
 * holds @w->lock; @w is attached to a peer and has an MR.
 *
 * Return: 0 when every request completed successfully. A registration
 * (not a revoke) that ends before it bound anything leaves the peer alone:
 * -EINTR when its caller was killed or -EAGAIN when no slot was free in
 * time, before anything was posted; -EINPROGRESS when its caller was
 * killed after (verbs_abandon()). Otherwise an error
 * after which the window's rkey is dead and the peer is being torn down
 * (verbs_chain_end()): -ENOTCONN when the registration QP was in error
 * (flushed), -EIO when the device failed a request: either way the peer's
 * QPs were moved to ERR, or, when the device refused, window_op_failed()
 * deregisters the MR; -ECONNABORTED when the chain did not complete in
 * time, a revoke got no slot in time or the post failed: the peer was cut off
 * and the device is done with the MR; -ETIMEDOUT when the device may
 * still use the MR (cut off, it did not even flush the chain) or a QP
 * could not be moved to ERR.
 */

/* LOCAL_INV of the window's rkey. */
int verbs_invalidate(struct mwin_window *w)
{
	struct ib_send_wr inv_wr;

	verbs_prep_inv(w, &inv_wr, w->rkey);
	return verbs_run(w, &inv_wr, &inv_wr, true);
}

/*
 * LOCAL_INV of the window's MR, then REG_MR of it with key byte @key and
 * rights @access, in one post; @revokes when the LOCAL_INV kills a live
 * rkey (see verbs_prep_reg() for why there is one when it does not).
 */
int verbs_register(struct mwin_window *w, u8 key, u32 access, bool revokes)
{
	struct ib_send_wr inv_wr;
	struct ib_reg_wr reg_wr;

	verbs_prep_reg(w, &inv_wr, &reg_wr, key, access);
	return verbs_run(w, &inv_wr, &reg_wr.wr, revokes);
}
