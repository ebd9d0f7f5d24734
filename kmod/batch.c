// SPDX-License-Identifier: GPL-2.0
/*
 * MWIN_WINDOW_BATCH: many window operations in one call.
 *
 * Creates, rebinds that keep their window's peer, MR and range,
 * invalidations, and destroys of bound windows are chained: the work
 * requests of all such entries for one peer go out in one post, with only
 * the last one signaled, and the caller waits once per peer; their
 * messages to that peer go out together, in as few SENDs as they fit in.
 * A create is made up to its REG_MR before the post, and a destroy is
 * finished once its LOCAL_INV completed. Other entries (a destroy of an
 * unbound window, a rebind that names a tenant, one to another peer or
 * one that needs a new MR) are carried out one by one through the single
 * calls, after the chains before them completed, so entries take effect
 * in order.
 *
 * A chained window is marked batched rather than locked between its post
 * and its completion (a batch would hold more locks than lockdep allows):
 * window_lock() waits for it.
 *
 * A chain is posted in pieces when its peer has fewer slots free than it
 * has entries (batch_post()): another caller holding a few slots delays a
 * batch by a piece's completion, and cannot make it cut the peer off.
 *
 * Leases that run out together are revoked the same way (batch_expire()).
 */
#include <linux/slab.h>

#include "mwin.h"

struct batch_item {
	struct mwin_batch_op *op;
	struct mwin_window *w;
	struct mwin_peer *p;
	struct batch_chain *chain;
	/* the next entry of its chain */
	struct batch_item *next;
	/* how its chain ended, when not by its own completion; 0 if it did */
	int error;
	u32 old_rkey;
	u8 key;
	bool pending;
	bool inv;
	bool reg;
	/* a create's window, made, to finalize once the caller has its id */
	struct mwin_obj *made;
	struct ib_send_wr inv_wr;
	struct ib_reg_wr reg_wr;
};

/*
 * The entries of one peer, and the completion of the last one of the
 * piece in flight. The chain holds its peer: a finished entry may let the
 * peer's teardown drop the last other reference while the batch still
 * works on the chain.
 * @first, @n: the entries not posted yet, @last the last of them
 * @piece_first, @piece_last, @piece: the piece in flight, its @piece
 *	entries; 0 when none is
 * @error: -ETIMEDOUT when the device may still hold part of the chain
 */
struct batch_chain {
	struct mwin_peer *p;
	struct ib_cqe cqe;
	struct completion done;
	int status;
	unsigned int n;
	unsigned int piece;
	bool revokes;
	unsigned long deadline;
	struct batch_item *first;
	struct batch_item *last;
	struct batch_item *piece_first;
	struct batch_item *piece_last;
	int error;
	u64 ns;		/* from the first post to the end, then its time */
};

/*
 * @reason: of its invalidations' revokes: MWIN_REVOKE_EXPIRED for a batch
 * of leases that ran out, which revokes only those still due
 * @ops: batch_alloc() with ops: entries for batch_expire()
 */
struct batch {
	struct batch_item *items;
	struct mwin_batch_op *ops;
	enum mwin_wire_reason reason;
	unsigned int pending;
	struct batch_chain chains[MWIN_OPS_DEPTH];
	unsigned int nchains;
};

static void batch_chain_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct batch_chain *c = container_of(wc->wr_cqe, struct batch_chain,
					     cqe);

	c->status = wc->status;
	complete(&c->done);
}

static struct batch_chain *batch_chain_of(struct batch *b,
					  struct mwin_peer *p)
{
	struct batch_chain *c;
	unsigned int i;

	for (i = 0; i < b->nchains; i++)
		if (b->chains[i].p == p)
			return &b->chains[i];
	c = &b->chains[b->nchains++];
	memset(c, 0, sizeof(*c));
	mwin_obj_get(&p->obj);
	c->p = p;
	c->cqe.done = batch_chain_done;
	init_completion(&c->done);
	return c;
}

/* An entry's last work request; its first is always its inv_wr. */
static struct ib_send_wr *batch_last_wr(struct batch_item *it)
{
	return it->reg ? &it->reg_wr.wr : &it->inv_wr;
}

static void batch_flush(struct batch *b, unsigned int nitems);

/*
 * Lock a window for a batch. Another batch may own it: flush this batch's
 * chains before waiting for it, so that two batches never wait for each
 * other's windows.
 */
static void batch_lock(struct batch *b, struct mwin_window *w,
		       unsigned int nitems)
{
	mutex_lock(&w->lock);
	if (!w->batched)
		return;
	mutex_unlock(&w->lock);
	batch_flush(b, nitems);
	window_lock(w);
}

/*
 * Chain a checked entry's work requests: its window, locked by the caller,
 * is batched from now on.
 */
static void batch_add(struct batch *b, struct batch_item *it)
{
	struct mwin_window *w = it->w;

	it->chain = batch_chain_of(b, it->p);
	it->old_rkey = w->rkey;
	w->wc_status = IB_WC_SUCCESS;
	it->chain->revokes |= it->inv;
	if (it->reg)
		verbs_prep_reg(w, &it->inv_wr, &it->reg_wr, it->key,
			       it->op->access);
	else
		verbs_prep_inv(w, &it->inv_wr, it->old_rkey);
	if (it->chain->last)
		it->chain->last->next = it;
	else
		it->chain->first = it;
	it->chain->last = it;
	it->chain->n++;
	it->pending = true;
	w->batched = true;
	b->pending++;
}

/**
 * batch_bind_of() - the single call's argument for @op
 * @op: a create or rebind entry
 *
 * An entry is checked and carried out as this argument, so that it gets
 * the single call's checks, errors and semantics, tenant and all.
 */
struct mwin_window_bind batch_bind_of(const struct mwin_batch_op *op)
{
	return (struct mwin_window_bind){
		.flags = op->flags, .id = op->id, .region = op->region,
		.peer = op->peer, .tenant = op->tenant, .access = op->access,
		.offset = op->offset, .length = op->length,
		.expires_ms = op->expires_ms,
	};
}

/*
 * A create's or rebind's result: @op gets the window's id, rkey and iova.
 * A new window (@uc->obj) is finalized (published, its grant sent) only
 * once the batch's results reached the caller: window_batch_end().
 */
static int batch_bound(struct mwin_batch_op *op, struct mwin_ucmd *uc,
		       int ret)
{
	struct mwin_window_bind *bind = uc->cmd;

	if (ret)
		return ret;
	op->id = bind->id;
	op->rkey = bind->rkey;
	op->iova = bind->iova;
	return 0;
}

/*
 * Check a rebind, invalidation or destroy and get its work requests ready.
 * Return: 0 when chained, 1 when it must go through the single call, or
 * the entry's error. A chained window is left batched and unlocked.
 */
static int batch_prepare(struct batch *b, struct batch_item *it,
			 unsigned int index)
{
	struct mwin_batch_op *op = it->op;
	struct mwin_window *w = it->w;
	struct mwin_window_bind bind = batch_bind_of(op);
	u32 shift;
	int key, ret;

	batch_lock(b, w, index);
	if (w->dead) {
		ret = -ENOENT;
		goto out;
	}
	if (w->state == MWIN_WINDOW_BROKEN) {
		ret = op->opcode == MWIN_BATCH_DESTROY ? 1 : -EIO;
		goto out;
	}
	it->p = w->peer;
	it->inv = w->state == MWIN_WINDOW_BOUND;
	if (op->opcode == MWIN_BATCH_DESTROY) {
		ret = it->inv ? 0 : 1;	/* no rkey to revoke: the single call */
		goto chain;
	}
	if (op->opcode == MWIN_BATCH_INVALIDATE) {
		ret = it->inv ? 0 : 2;	/* nothing to revoke: done */
		if (b->reason != MWIN_REVOKE_EXPIRED)
			goto chain;
		if (!lease_due(w))
			ret = 2;	/* renewed or ended meanwhile */
		else if (!it->inv)
			lease_expired(w);	/* a tenant's, waiting: no rkey */
		goto chain;
	}

	/* naming a tenant: its lookup and permission are the single call's */
	ret = 1;
	if (!it->p || (op->peer && op->peer != it->p->obj.id) || op->tenant ||
	    !w->map)
		goto out;
	if (READ_ONCE(it->p->state) == MWIN_PEER_CLOSING) {
		ret = -ENOTCONN;
		goto out;
	}
	ret = window_check_dev(it->p->dev, w->region, &bind);
	if (ret)
		goto out;
	shift = window_page_shift(it->p->dev, w->region, w->map);
	if (window_pages(op->offset, op->length, shift) > w->mr_pages) {
		ret = 1;
		goto out;
	}
	/* A new range takes a new MR (verbs_map_mr()): the single call. */
	if (op->offset != window_offset(w) || op->length != window_length(w) ||
	    !verbs_mr_mapped(w, shift)) {
		ret = 1;
		goto out;
	}
	ret = region_check_range(w->region, &w->range, op->offset,
				 op->offset + op->length - 1,
				 op->flags & MWIN_WINDOW_OVERLAP);
	if (ret)
		goto out;
	key = window_pick_key(w);
	if (key < 0) {
		ret = 1;
		goto out;
	}
	set_bit(key, w->keys_used);
	mwin_count(w->peer, MWIN_STAT_KEYS_SPENT, 1);
	it->key = key;
	it->reg = true;

chain:
	if (!ret)
		batch_add(b, it);
out:
	mutex_unlock(&w->lock);
	return ret;
}

/*
 * Get a create ready: all but its REG_MR (window_create_prep()), which is
 * chained. Return: 0, or the entry's error.
 */
static int batch_prepare_create(struct batch *b, struct batch_item *it,
				struct mwin_ucmd *ucmd)
{
	struct mwin_window_bind bind = batch_bind_of(it->op);
	struct mwin_ucmd uc = { .f = ucmd->f, .c = ucmd->c, .cmd = &bind };
	struct mwin_window *w;
	int key;

	w = window_create_prep(&uc, &bind, &key);
	if (IS_ERR(w))
		return PTR_ERR(w);
	mwin_obj_get(&w->obj);	/* the batch's, as window_get()'s */
	it->w = w;
	it->p = w->peer;
	it->key = key;
	it->reg = true;
	batch_add(b, it);
	mutex_unlock(&w->lock);
	return 0;
}

/*
 * The entries of @c not posted yet end with @ret, and none will be: the
 * chain was cut off, or its caller killed, or it got no slot.
 */
static void batch_stop(struct batch_chain *c, int ret)
{
	struct batch_item *it = c->first;

	for (; c->n; c->n--, it = it->next)
		it->error = ret;
	if (ret == -ETIMEDOUT)
		c->error = ret;
}

/*
 * Post the next piece of a chain: as many of its entries as the peer has
 * slots free, one at least (verbs_permits()), so that a caller holding a
 * few does not starve the batch. A grant chain that gets none, its caller
 * killed or the slots busy past its bound, ends without touching the peer;
 * a revoke chain cuts the peer off, as a single call would.
 *
 * ORDER: only the piece's last request is signaled; see verbs_run().
 */
static void batch_post(struct batch_chain *c)
{
	struct batch_item *it = c->first;
	struct ib_send_wr *last;
	int n, ret;

	n = verbs_permits(c->p, c->n, c->deadline, c->revokes);
	if (n < 0) {
		batch_stop(c, n);
		return;
	}
	c->piece_first = it;
	for (c->piece = 1; c->piece < n; c->piece++) {
		batch_last_wr(it)->next = &it->next->inv_wr;
		it = it->next;
	}
	last = batch_last_wr(it);
	last->next = NULL;
	last->wr_cqe = &c->cqe;
	last->send_flags |= IB_SEND_SIGNALED;
	c->piece_last = it;
	c->first = it->next;
	c->n -= n;
	c->status = IB_WC_SUCCESS;
	reinit_completion(&c->done);
	ret = verbs_post_taken(c->p, n, &c->piece_first->inv_wr, c->revokes);
	if (ret) {
		c->first = c->piece_first;
		c->n += n;
		c->piece = 0;
		batch_stop(c, ret);
	}
}

/*
 * Wait for a chain's piece in flight, within the chain's bound, and end it
 * as a single call would (verbs_chain_end()). A request that failed leaves
 * the piece's last one flushed or failed: c->status says whether any did;
 * each entry's own status says which, the last one's given c->status. The
 * entries not posted yet end as the piece did, when it did not complete
 * cleanly: the peer is in error or cut off.
 */
static void batch_wait_piece(struct batch_chain *c)
{
	struct mwin_window *w = c->piece_last->w;
	unsigned int n = c->piece;
	int ret;

	c->piece = 0;
	if (verbs_wait(c->p, &c->done, c->deadline, false) > 0) {
		peer_ops_put(c->p, n);
		if (!c->status)
			return;
		if (!w->wc_status)
			w->wc_status = c->status;
		verbs_chain_end(c->p, NULL, VERBS_FAILED);
		batch_stop(c, -ENOTCONN);	/* as if flushed */
		return;
	}
	mwin_count(c->p, MWIN_STAT_TIMEOUTS, 1);
	ret = verbs_chain_end(c->p, &c->done, VERBS_LOST);
	if (ret == -ECONNABORTED)
		peer_ops_put(c->p, n);	/* flushed */
	c->first = c->piece_first;
	c->n += n;
	batch_stop(c, ret);
}

/* Post a chain's pieces, each once the one before completed. */
static void batch_wait(struct batch_chain *c)
{
	while (c->piece) {
		batch_wait_piece(c);
		if (c->n)
			batch_post(c);
	}
	c->ns = ktime_get_ns() - c->ns;
}

/* A create's REG_MR ended with @ret: window_create_end() drops the lock. */
static void batch_finish_create(struct batch_item *it, int ret)
{
	struct mwin_window_bind bind = batch_bind_of(it->op);
	struct mwin_ucmd uc = { .cmd = &bind };

	ret = window_create_end(&uc, it->w, &bind, ret);
	it->op->result = batch_bound(it->op, &uc, ret);
	it->made = uc.obj;
}

/*
 * Give an entry its result and its peer the messages, as the single call.
 * A destroy succeeds even when its revoke failed, as window_destroy().
 */
static void batch_finish(struct batch *b, struct batch_item *it)
{
	bool destroy = it->op->opcode == MWIN_BATCH_DESTROY;
	enum mwin_wire_reason why = destroy ? MWIN_REVOKE_DESTROY : b->reason;
	struct mwin_window *w = it->w;
	struct batch_chain *c = it->chain;
	int ret;

	mutex_lock(&w->lock);
	ret = it->error ?: verbs_status_errno(w, w->wc_status);
	w->op_ns = c->ns;
	it->pending = false;
	window_unbatch(w);	/* waiters take the lock after this entry */
	if (it->op->opcode == MWIN_BATCH_CREATE) {
		batch_finish_create(it, ret);
		return;
	}
	if (ret) {
		ret = window_chain_failed(w, true, it->inv, ret);
		if (!destroy)
			it->op->result = ret;
	} else if (it->reg) {
		window_bound(w, it->op->access, it->inv);
		lease_set(w, it->op->expires_ms);
		window_tell_grant(w, it->inv ? &it->old_rkey : NULL);
		it->op->rkey = w->rkey;
		it->op->iova = window_offset(w);
	} else {
		window_invalidated(w, why);
		window_tell_revoke(w, it->old_rkey, why, NULL);
	}
	if (destroy)
		window_destroy_locked(w);	/* unbound now; drops the lock */
	else
		mutex_unlock(&w->lock);
}

/*
 * Post every chain, wait for them, and finish the pending entries among
 * the first @nitems in order.
 */
static void batch_flush(struct batch *b, unsigned int nitems)
{
	struct batch_chain *c;
	unsigned int i;

	if (!b->pending)
		return;
	for (i = 0; i < b->nchains; i++) {
		c = &b->chains[i];
		c->deadline = jiffies + verbs_timeout(c->revokes);
		c->ns = ktime_get_ns();
		batch_post(c);
	}
	for (i = 0; i < b->nchains; i++) {
		batch_wait(&b->chains[i]);
		peer_hold_msgs(b->chains[i].p);
	}
	for (i = 0; i < nitems; i++)
		if (b->items[i].pending)
			batch_finish(b, &b->items[i]);
	mwin_test_delay(MWIN_TEST_BATCH_RELEASE);
	/* Each peer's messages of this flush go out together. */
	for (i = 0; i < b->nchains; i++)
		peer_release_msgs(b->chains[i].p);
	/*
	 * A chain the device did not even flush still names this batch's
	 * memory: drain its QP before it goes. This waits only for a device
	 * that does not flush a QP in error.
	 */
	for (i = 0; i < b->nchains; i++) {
		c = &b->chains[i];
		if (c->error == -ETIMEDOUT)
			peer_kill_sync(c->p, MWIN_DOWN_CUT_OFF);
		peer_put(c->p);
	}
	b->pending = 0;
	b->nchains = 0;
}

/* Carry out one entry through the single calls. */
static int batch_single(struct mwin_ucmd *batch, struct mwin_batch_op *op)
{
	struct mwin_window_bind bind = batch_bind_of(op);
	struct mwin_ucmd ucmd = { .f = batch->f, .c = batch->c, .cmd = &bind };

	switch (op->opcode) {
	case MWIN_BATCH_REBIND:
		return batch_bound(op, &ucmd, window_rebind(&bind, &batch->c));
	case MWIN_BATCH_INVALIDATE:
		return window_invalidate(op->id, &batch->c);
	default:	/* creates are always chained */
		return window_destroy(op->id, &batch->c);
	}
}

/* Is @id named by an entry before @n? */
static bool batch_seen(struct mwin_batch_op *ops, unsigned int n, u32 id)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (ops[i].opcode != MWIN_BATCH_CREATE && ops[i].id == id)
			return true;
	return false;
}

/**
 * batch_alloc() - a batch of up to @n entries
 * @n: entries
 * @ops: with room for @n entries of its own, for batch_expire()
 * @gfp: GFP_KERNEL_ACCOUNT for a caller's batch, charged to it
 */
struct batch *batch_alloc(unsigned int n, bool ops, gfp_t gfp)
{
	struct batch *b = kzalloc(sizeof(*b), gfp);

	if (!b)
		return NULL;
	b->items = kvcalloc(n, sizeof(*b->items), gfp);
	if (ops)
		b->ops = kvcalloc(n, sizeof(*b->ops), gfp);
	if (!b->items || (ops && !b->ops)) {
		batch_free(b);
		return NULL;
	}
	return b;
}

void batch_free(struct batch *b)
{
	kvfree(b->ops);
	kvfree(b->items);
	kfree(b);
}

/*
 * Carry out @n entries, in order. The windows of entries whose item has
 * one already (batch_expire()) are the caller's; the others are looked up
 * and referenced here.
 */
static void batch_run(struct batch *b, struct mwin_ucmd *ucmd,
		      struct mwin_batch_op *ops, unsigned int n)
{
	struct batch_item *it;
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		it = &b->items[i];
		it->op = &ops[i];
		if (it->op->result)
			continue;
		if (!it->w && it->op->opcode != MWIN_BATCH_CREATE &&
		    batch_seen(ops, i, it->op->id)) {
			it->op->result = -EINVAL;
			continue;
		}
		if (it->op->opcode == MWIN_BATCH_CREATE) {
			ret = batch_prepare_create(b, it, ucmd);
		} else {
			if (!it->w)
				it->w = window_get(it->op->id, &ucmd->c);
			ret = it->w ? batch_prepare(b, it, i) : -ENOENT;
		}
		if (ret == 0 && (b->pending == MWIN_OPS_DEPTH ||
				 b->nchains == MWIN_OPS_DEPTH)) {
			batch_flush(b, i + 1);
		} else if (ret == 1) {
			batch_flush(b, i);
			ret = batch_single(ucmd, it->op);
		}
		if (ret < 0)
			it->op->result = ret;
	}
	batch_flush(b, n);
}

/**
 * window_batch() - carry out @n checked entries of a batch
 * @ucmd: the call
 * @ops: entries, each already checked as the single call checks its
 *	argument (a non-zero @result marks an entry that failed that check)
 * @n: number of entries
 * @failed: out, the number of entries that failed
 * @made: out, @n entries: the windows its creates made, not visible yet
 *	(NULL for other entries), for window_batch_end()
 *
 * Return: 0, or -ENOMEM when no entry was carried out.
 */
int window_batch(struct mwin_ucmd *ucmd, struct mwin_batch_op *ops,
		 unsigned int n, u32 *failed, struct mwin_obj **made)
{
	struct batch *b = batch_alloc(n, false, GFP_KERNEL_ACCOUNT);
	unsigned int i;

	if (!b)
		return -ENOMEM;
	b->reason = MWIN_REVOKE_INVALIDATE;
	batch_run(b, ucmd, ops, n);
	*failed = 0;
	for (i = 0; i < n; i++) {
		if (b->items[i].w)
			window_put(b->items[i].w);
		made[i] = b->items[i].made;
		*failed += !!ops[i].result;
	}
	batch_free(b);
	return 0;
}

/**
 * window_batch_end() - the batch's results reached the caller, or not
 * @made: window_batch()'s windows
 * @n: entries of @made
 * @reached: the caller has every entry's result: the windows are
 *	published and granted, each peer's grants in as few SENDs as they
 *	fit; otherwise they are destroyed, nobody told, as a single create
 *	whose result could not be copied out
 */
void window_batch_end(struct mwin_obj **made, unsigned int n, bool reached)
{
	/* without it, the grants go out one SEND each */
	struct mwin_peer **held = kcalloc(n, sizeof(*held), GFP_KERNEL_ACCOUNT);
	struct mwin_window *w;
	unsigned int i;

	for (i = 0; held && reached && i < n; i++) {
		if (!made[i])
			continue;
		w = container_of(made[i], struct mwin_window, obj);
		mutex_lock(&w->lock);
		held[i] = w->peer;
		if (held[i]) {
			mwin_obj_get(&held[i]->obj);
			peer_hold_msgs(held[i]);
		}
		mutex_unlock(&w->lock);
	}
	for (i = 0; i < n; i++) {
		if (!made[i])
			continue;
		if (reached)
			made[i]->type->finalize(made[i]);
		else
			made[i]->type->abort(made[i]);
	}
	for (i = 0; held && i < n; i++) {
		if (!held[i])
			continue;
		peer_release_msgs(held[i]);
		peer_put(held[i]);
	}
	kfree(held);
}

/**
 * batch_expire() - revoke the leases of @ws that are still due
 * @b: a batch_alloc() with ops, of at least @n entries
 * @ws: windows lease.c took off its tree, referenced by the caller
 * @n: their number
 *
 * As a WINDOW_BATCH of invalidations, with reason MWIN_REVOKE_EXPIRED; a
 * window renewed or revoked since is left alone (batch_prepare()). No
 * entry goes through the single calls, so no caller is needed.
 */
void batch_expire(struct batch *b, struct mwin_window **ws, unsigned int n)
{
	unsigned int i;

	memset(b->items, 0, n * sizeof(*b->items));
	memset(b->ops, 0, n * sizeof(*b->ops));
	for (i = 0; i < n; i++) {
		b->ops[i].opcode = MWIN_BATCH_INVALIDATE;
		b->ops[i].id = ws[i]->obj.id;
		b->items[i].w = ws[i];
	}
	b->reason = MWIN_REVOKE_EXPIRED;
	batch_run(b, NULL, b->ops, n);
}
