// SPDX-License-Identifier: GPL-2.0
/*
 * The RDMA CM side of peers: the listeners, a connect request admitted
 * (admit.c), set up with its QPs (peer.c) and accepted, the CM's events.
 * A peer killed while it is set up is undone here, or torn down once it
 * is accepted (peer_queue_teardown()).
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/inet.h>
#include <linux/slab.h>
#include <rdma/ib_cm.h>

#include "mwin.h"

/*
 * The module's own transport timers, not the peer's: an ACK timeout of
 * 4.096 us * 2^18 (about 1.07 s) a try, and a peer whose receive queue is
 * empty is asked to retry a SEND after 0.64 ms.
 */
#define MWIN_ACK_TIMEOUT	18
#define MWIN_MIN_RNR_TIMER	IB_RNR_TIMER_000_64

static int peer_accept_conn(struct mwin_peer *p,
			    const struct rdma_conn_param *req,
			    const struct mwin_admission *a)
{
	struct ib_device_attr *attrs = &p->dev->ibdev->attrs;
	union mwin_accept_buf acc;
	int len = admit_accept_data(p, a, &acc);
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
	 * @p before it is published: its teardown waits for MWIN_PEER_SET_UP.
	 */
	ret = peer_accept_conn(p, req, a);
	if (ret)
		goto err_destroy;
	mwin_test_delay(MWIN_TEST_PEER_PUBLISH);
	peer_bound_handshake(p);
	peer_publish(p);
	set_bit(MWIN_PEER_SET_UP, &p->flags);
	peer_queue_teardown(p);	/* killed meanwhile: now it may be */
	pr_debug("mwin: peer %u from %pISpc on %s\n", p->obj.id, &p->addr,
		 p->dev_name);
	return 0;

err_destroy:
	/*
	 * Not set up, so no teardown was queued (a cut-off of its tenant PD
	 * may have killed it): this undo is its teardown. Let none be.
	 */
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
	if (ret)
		admit_reject(id, t, MWIN_REJECT_SETUP);
	if (t)
		tenant_put(t);
	return ret;
}

static int peer_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct mwin_peer *p = id->context;

	switch (ev->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		return peer_connect_request(id, &ev->param.conn);
	case RDMA_CM_EVENT_ESTABLISHED:
		peer_established(p);
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
	/*
	 * One family per listener: an iWARP device listens with TCP sockets
	 * of the address's own family, so an IPv6 wildcard that maps IPv4
	 * (as RoCE's CM does) hears no IPv4 peer there.
	 */
	ret = (sa->sa_family == AF_INET6 ? rdma_set_afonly(id, 1) : 0) ?:
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

/* The wildcards of both families, on every transport. */
static int peer_listen_any(void)
{
	struct sockaddr_in6 any6 = {
		.sin6_family = AF_INET6,
		.sin6_port = htons(mwin_port),
		.sin6_addr = IN6ADDR_ANY_INIT,
	};
	struct sockaddr_in any4 = {
		.sin_family = AF_INET,
		.sin_port = htons(mwin_port),
		.sin_addr.s_addr = htonl(INADDR_ANY),
	};
	int ret;

	ret = peer_listen_on((struct sockaddr *)&any4, &mwin_listen_ids[0]) ?:
	      peer_listen_on((struct sockaddr *)&any6, &mwin_listen_ids[1]);
	if (ret)
		peer_stop_listen();
	return ret;
}

/*
 * Listen on every device, present or not: on the addresses of the listen
 * parameter, or on all.
 */
int peer_listen(void)
{
	const char *list = mwin_listen;
	struct sockaddr_storage ss;
	int i, ret;

	if (!*list)
		return peer_listen_any();
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

