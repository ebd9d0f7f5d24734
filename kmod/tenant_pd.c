// SPDX-License-Identifier: GPL-2.0
/*
 * A tenant's protection domains: one per device the tenant is connected
 * on, shared by all its connections there. A window granted to the tenant
 * is registered in it, so its rkey works through each of those
 * connections and through nobody else's (an rkey of another PD fails the
 * device's check); a failed access breaks only the QP it came through,
 * not the MR.
 *
 * A tenant PD that has no connection left that is not being torn down is
 * joined by none: a new connection gets a new PD, and the old rkeys, whose
 * MRs go with the old connections' teardown, never work through it. The
 * module re-grants the tenant's windows with new MRs there (new rkeys).
 *
 * A peer of a tenant with a key joins only once it has proved the key in
 * its connect request (proof.c): an unproved one has no QP in the PD.
 */
#include <linux/slab.h>

#include "mwin.h"

void tenant_pd_get(struct mwin_tenant_pd *tpd)
{
	kref_get(&tpd->kref);
}

/* The last reference: no QP and no MR is left in the PD. */
static void tenant_pd_release(struct kref *kref)
{
	struct mwin_tenant_pd *tpd = container_of(kref, struct mwin_tenant_pd,
						  kref);
	struct mwin_tenant *t = tpd->tenant;

	list_del(&tpd->node);
	mutex_unlock(&t->pd_lock);
	ib_dealloc_pd(tpd->pd);
	mwin_dev_put(tpd->dev);
	tenant_put(t);
	kfree(tpd);
}

void tenant_pd_put(struct mwin_tenant_pd *tpd)
{
	kref_put_mutex(&tpd->kref, tenant_pd_release, &tpd->tenant->pd_lock);
}

static struct mwin_tenant_pd *tenant_pd_alloc(struct mwin_tenant *t,
					      struct mwin_dev *dev)
{
	struct mwin_tenant_pd *tpd;

	tpd = kzalloc(sizeof(*tpd), GFP_KERNEL);
	if (!tpd)
		return ERR_PTR(-ENOMEM);
	tpd->pd = ib_alloc_pd(dev->ibdev, 0);
	if (IS_ERR(tpd->pd)) {
		struct ib_pd *pd = tpd->pd;

		kfree(tpd);
		return ERR_CAST(pd);
	}
	kref_init(&tpd->kref);
	INIT_LIST_HEAD(&tpd->peers);
	mwin_obj_get(&t->obj);
	tpd->tenant = t;
	kref_get(&dev->kref);
	tpd->dev = dev;
	return tpd;
}

/*
 * Has @tpd a connection that is not being torn down, or one that is being
 * set up? Under pd_lock.
 */
static bool tenant_pd_live(struct mwin_tenant_pd *tpd)
{
	struct mwin_peer *p;

	if (tpd->nr_joining)
		return true;
	list_for_each_entry(p, &tpd->peers, tpd_node)
		if (!test_bit(MWIN_PEER_KILLED, &p->flags))
			return true;
	return false;
}

/**
 * tenant_pd_join() - give a new peer of a tenant its tenant's PD
 * @p: the peer, with its tenant and device, before its QP is made
 *
 * The PD of the tenant's live connections on the device, or a new one.
 * The peer is on its list once its QPs exist (tenant_pd_add()).
 *
 * Return: 0, or an errno from allocating the PD.
 */
int tenant_pd_join(struct mwin_peer *p)
{
	struct mwin_tenant *t = p->tenant;
	struct mwin_tenant_pd *tpd;
	int ret = 0;

	mutex_lock(&t->pd_lock);
	list_for_each_entry(tpd, &t->pds, node) {
		if (tpd->dev != p->dev || tpd->closed)
			continue;
		if (tenant_pd_live(tpd)) {
			kref_get(&tpd->kref);
			goto join;
		}
		tpd->closed = true;	/* none may join it again */
	}
	tpd = tenant_pd_alloc(t, p->dev);
	if (IS_ERR(tpd)) {
		ret = PTR_ERR(tpd);
		goto out;
	}
	list_add(&tpd->node, &t->pds);
join:
	tpd->nr_joining++;
	p->tpd = tpd;
	p->pd = tpd->pd;
out:
	mutex_unlock(&t->pd_lock);
	return ret;
}

/* @p, which joined its tenant PD, has its QPs: on the PD's list. */
void tenant_pd_add(struct mwin_peer *p)
{
	struct mwin_tenant_pd *tpd = p->tpd;

	mutex_lock(&tpd->tenant->pd_lock);
	tpd->nr_joining--;
	list_add_tail(&p->tpd_node, &tpd->peers);
	mutex_unlock(&tpd->tenant->pd_lock);
}

/* @p's QPs are about to go: off the list, or no longer joining. */
void tenant_pd_remove(struct mwin_peer *p)
{
	struct mwin_tenant_pd *tpd = p->tpd;

	mutex_lock(&tpd->tenant->pd_lock);
	if (list_empty(&p->tpd_node))
		tpd->nr_joining--;	/* it never had its QPs */
	else
		list_del_init(&p->tpd_node);
	mutex_unlock(&tpd->tenant->pd_lock);
}

/* @p's QPs are destroyed, and it is off the list: it leaves its PD. */
void tenant_pd_leave(struct mwin_peer *p)
{
	struct mwin_tenant_pd *tpd = p->tpd;

	WRITE_ONCE(p->tpd, NULL);
	p->pd = NULL;
	tenant_pd_put(tpd);
}

/**
 * tenant_pd_cut_off() - stop every remote access through a tenant PD
 * @tpd: the PD
 * @why: the reason its peers go, if it is their first
 *
 * An rkey in a tenant PD whose revoke did not complete may be used through
 * any QP in the PD: each is moved to ERR (see peer_cut_off()).
 *
 * Return: 0, or the first error of a QP that could not be moved.
 */
int tenant_pd_cut_off(struct mwin_tenant_pd *tpd, enum mwin_down_reason why)
{
	struct mwin_peer *p;
	int ret = 0, err;

	mutex_lock(&tpd->tenant->pd_lock);
	list_for_each_entry(p, &tpd->peers, tpd_node) {
		err = peer_cut_off_qp(p, why);
		ret = ret ?: err;
	}
	mutex_unlock(&tpd->tenant->pd_lock);
	return ret;
}

/**
 * tenant_cut_off() - a destroyed tenant's connections reach nothing more
 * @t: the tenant, off the tenant list: no connection is admitted for it
 *
 * Every QP of its connections, in each of its PDs, is moved to ERR and the
 * connection torn down. A connection still being set up has its QPs moved
 * too when it has them, and is refused at publication otherwise
 * (tenant_add_peer()).
 *
 * Return: 0, or the first error of a QP that could not be moved.
 */
int tenant_cut_off(struct mwin_tenant *t)
{
	struct mwin_tenant_pd *tpd;
	struct mwin_peer *p;
	int ret = 0, err;

	mutex_lock(&t->pd_lock);
	list_for_each_entry(tpd, &t->pds, node) {
		list_for_each_entry(p, &tpd->peers, tpd_node) {
			/* the reason before the flushes that would say another */
			peer_kill(p, MWIN_DOWN_TENANT);
			err = peer_qps_to_err(p, NULL);
			ret = ret ?: err;
		}
	}
	mutex_unlock(&t->pd_lock);
	return ret;
}

/* Can @p carry a tenant's windows: proved, and not being torn down? */
static bool tenant_pd_can_carry(struct mwin_peer *p)
{
	return peer_takes_grants(p) && !test_bit(MWIN_PEER_KILLED, &p->flags);
}

/* tenant_pd_carrier() under pd_lock */
static struct mwin_peer *tenant_pd_find_carrier(struct mwin_tenant_pd *tpd,
						struct mwin_peer *not)
{
	struct mwin_peer *p;

	list_for_each_entry(p, &tpd->peers, tpd_node) {
		if (p != not && tenant_pd_can_carry(p)) {
			mwin_obj_get(&p->obj);
			return p;
		}
	}
	return NULL;
}

/**
 * tenant_pd_carrier() - a connection to post a tenant window's requests on
 * @tpd: the window's tenant PD
 * @not: a connection that is going: not that one
 *
 * Return: a proved connection in @tpd that is not being torn down,
 * referenced, or NULL.
 */
struct mwin_peer *tenant_pd_carrier(struct mwin_tenant_pd *tpd,
				    struct mwin_peer *not)
{
	struct mwin_peer *p;

	mutex_lock(&tpd->tenant->pd_lock);
	p = tenant_pd_find_carrier(tpd, not);
	mutex_unlock(&tpd->tenant->pd_lock);
	return p;
}

/* A connection of @t, on any device, that can carry windows; referenced. */
struct mwin_peer *tenant_carrier(struct mwin_tenant *t)
{
	struct mwin_tenant_pd *tpd;
	struct mwin_peer *p = NULL;

	mutex_lock(&t->pd_lock);
	list_for_each_entry(tpd, &t->pds, node) {
		p = tenant_pd_find_carrier(tpd, NULL);
		if (p)
			break;
	}
	mutex_unlock(&t->pd_lock);
	return p;
}

/*
 * A tenant window's grant and revokes go to each proved connection in its
 * PD that tenant_regrant() told of it, or will not: one that proves its
 * key later is told by tenant_regrant(), once. Under @w->lock. Queuing a
 * message never waits for its peer: a slow connection holds pd_lock, which
 * its tenant's connects need, no longer than a fast one.
 */
static bool tenant_pd_tells(const struct mwin_peer *p,
			    const struct mwin_window *w)
{
	return READ_ONCE(p->regrant_mark) > w->obj.id;
}

void tenant_pd_tell_grant(struct mwin_tenant_pd *tpd, struct mwin_window *w,
			  const u32 *replaced)
{
	struct mwin_peer *p;

	mutex_lock(&tpd->tenant->pd_lock);
	list_for_each_entry(p, &tpd->peers, tpd_node)
		if (tenant_pd_tells(p, w))
			peer_send_grant(p, w, replaced);
	mutex_unlock(&tpd->tenant->pd_lock);
}

/* @not: a connection that handed the rkey back, and knows. */
void tenant_pd_tell_revoke(struct mwin_tenant_pd *tpd, struct mwin_window *w,
			   u32 rkey, enum mwin_wire_reason why,
			   struct mwin_peer *not)
{
	struct mwin_peer *p;

	mutex_lock(&tpd->tenant->pd_lock);
	list_for_each_entry(p, &tpd->peers, tpd_node)
		if (p != not && tenant_pd_tells(p, w))
			peer_send_revoke(p, w, rkey, why);
	mutex_unlock(&tpd->tenant->pd_lock);
}

/**
 * tenant_regrant() - tell a connection that proved its key of its grants
 * @p: a proved peer of a tenant; the caller holds a reference
 *
 * Grants of the tenant's windows bound in its PD are sent to it; windows
 * of the tenant that wait for a connection (their last one went) are bound
 * through it, with new rkeys, and granted to its PD.
 */
void tenant_regrant(struct mwin_peer *p)
{
	struct mwin_window *w;
	u64 from = 0;

	while (peer_takes_grants(p) &&
	       (w = tenant_next_window(p->tenant, &from,
					&p->regrant_mark))) {
		window_regrant(w, p);
		window_put(w);
		/* a tenant of many windows: no lock held, at the peer's pace */
		peer_pace(p);
	}
}

/**
 * tenant_regrant_elsewhere() - a connection of @t went: bind its waiting
 *	windows through another one, if @t has one on any device
 * @t: the tenant
 */
void tenant_regrant_elsewhere(struct mwin_tenant *t)
{
	struct mwin_peer *p = tenant_carrier(t);

	if (p) {
		peer_queue_regrant(p);
		peer_put(p);
	}
}
