// SPDX-License-Identifier: GPL-2.0
/*
 * Verbs for windows: fast-registration MRs, REG_MR and LOCAL_INV.
 *
 * A window operation posts at most two work requests on its peer's QP: a
 * LOCAL_INV of the current rkey, a REG_MR with a fresh key, or LOCAL_INV
 * chained with REG_MR. Only the last one is signaled; an unsignaled one that
 * fails still completes, with its own cqe, before the flushed last one, so
 * the first error is kept and the last completion always wakes the caller.
 *
 * This file knows nothing of ioctls or window states: the caller holds
 * window->lock and decides what a result means.
 */
#include <linux/slab.h>

#include "mwin.h"

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
	complete(&w->done);
}

void verbs_init_window(struct mwin_window *w)
{
	init_completion(&w->done);
	w->inv_cqe.done = verbs_first_done;
	w->reg_cqe.done = verbs_last_done;
}

static int verbs_alloc_sgl(struct mwin_window *w, u32 pages)
{
	struct scatterlist *sgl;

	if (w->sgl_cap >= pages)
		return 0;
	sgl = kvmalloc_array(pages, sizeof(*sgl), GFP_KERNEL);
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
	bitmap_zero(w->keys_used, MWIN_KEYS);
	return 0;
}

/* The device must be done with the MR: no work request on it in flight. */
void verbs_free_mr(struct mwin_window *w)
{
	if (!w->mr)
		return;
	xa_erase(&w->peer->dev->mr_windows, w->mr->rkey >> 8);
	ib_dereg_mr(w->mr);
	w->mr = NULL;
	w->mr_pages = 0;
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
	w->mr_mapped = false;
	mapped = ib_map_mr_sg(w->mr, w->sgl, n, &sg_off, psize);
	if (mapped != n)
		return -EIO;
	w->mr->iova = off;
	w->mr->length = len;
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

/* An unsignaled REG_MR of @w's mapped MR with key byte @key. */
void verbs_prep_reg(struct mwin_window *w, struct ib_reg_wr *wr, u8 key,
		    u32 access)
{
	memset(wr, 0, sizeof(*wr));
	ib_update_fast_reg_key(w->mr, key);
	wr->wr.opcode = IB_WR_REG_MR;
	wr->wr.wr_cqe = &w->inv_cqe;
	wr->mr = w->mr;
	wr->key = w->mr->rkey;
	wr->access = verbs_ib_access(access);
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
				    w->id, ib_wc_status_msg(status));
		return -EIO;
	}
}

/**
 * verbs_post_wait() - invalidate and/or register a window's MR, and wait
 * @w: window, attached to a peer, with an MR
 * @inv: post LOCAL_INV of @w->rkey
 * @reg: post REG_MR of the mapped MR with key byte @key and rights @access
 * @key: the new key byte
 * @access: MWIN_ACCESS_* rights
 *
 * Waits at most op_timeout_ms. Caller holds @w->lock.
 *
 * Return: 0 when every request completed successfully; -ENOTCONN when the
 * QP was already in error (flushed); -EIO when the device failed a request;
 * -ETIMEDOUT when it did not answer, or -ESHUTDOWN when the post failed:
 * then the device may still use the MR.
 */
int verbs_post_wait(struct mwin_window *w, bool inv, bool reg, u8 key,
		    u32 access)
{
	unsigned long timeout = msecs_to_jiffies(mwin_op_timeout_ms);
	struct mwin_peer *p = w->peer;
	struct ib_send_wr inv_wr, *last;
	struct ib_reg_wr reg_wr;
	int ret;

	if (down_timeout(&p->ops, timeout))
		return -ETIMEDOUT;

	reinit_completion(&w->done);
	w->wc_status = IB_WC_SUCCESS;
	if (inv)
		verbs_prep_inv(w, &inv_wr, w->rkey);
	if (reg) {
		verbs_prep_reg(w, &reg_wr, key, access);
		if (inv)
			inv_wr.next = &reg_wr.wr;
	}
	last = reg ? &reg_wr.wr : &inv_wr;
	last->wr_cqe = &w->reg_cqe;
	last->send_flags = IB_SEND_SIGNALED;

	ret = ib_post_send(p->qp, inv ? &inv_wr : &reg_wr.wr, NULL);
	if (ret) {
		/* Part of the chain may be queued: keep the slot too. */
		return -ESHUTDOWN;
	}
	if (!wait_for_completion_timeout(&w->done, timeout)) {
		/* The slot stays taken: the request is still queued. */
		return -ETIMEDOUT;
	}
	up(&p->ops);
	return verbs_status_errno(w, w->wc_status);
}
