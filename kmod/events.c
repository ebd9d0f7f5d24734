// SPDX-License-Identifier: GPL-2.0
/*
 * Events for monitors: an open file that called MWIN_MONITOR gets every
 * peer event, and the grant and revoke events of the windows its caller
 * may see (object.c), in a ring of its own and read()s them.
 * Posting never sleeps and never waits for a reader: a full ring drops
 * events and says how many with an MWIN_EVENT_LOST record.
 */
#include <linux/fs.h>
#include <linux/poll.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "mwin.h"

#define MWIN_EVENT_RING	4096

/*
 * A monitor: on the module's list from MWIN_MONITOR until its file is
 * released, and freed a grace period later, so that mwin_event() walks
 * the list under RCU alone.
 */
struct mwin_events {
	struct list_head node;
	struct rcu_head rcu;
	struct mwin_caller caller;	/* whose events it gets */
	spinlock_t lock;		/* the ring; taken in any context */
	wait_queue_head_t wait;
	unsigned int head;
	unsigned int count;
	u32 lost;
	u64 seq;
	struct mwin_event ring[MWIN_EVENT_RING];
};

/*
 * Monitors come and go under the mutex, and are counted per user (by the
 * opener's uid) there; mwin_event() takes neither.
 */
static LIST_HEAD(mwin_monitors);
static DEFINE_MUTEX(mwin_monitors_lock);
static DEFINE_XARRAY(mwin_monitor_users);	/* uid -> monitors, as a value */

/*
 * A monitor holds 160 KiB and its events cost every poster a push, and
 * read access is enough to start one: max_monitors bounds what one user
 * makes the module hold and do, root included (0: no bound).
 */
static int monitor_take(kuid_t uid)
{
	unsigned int max = READ_ONCE(mwin_max_monitors);

	if (max && mwin_user_count(&mwin_monitor_users, uid) >= max)
		return -EMFILE;
	return mwin_user_take(&mwin_monitor_users, uid);
}

/*
 * Interrupts are off for one record, not for the walk: mwin_event() is
 * called in process context and from the send CQ's softirq, and readers
 * must not be interrupted by either while they hold the ring.
 */
static void monitor_push(struct mwin_events *m, const struct mwin_event *ev)
{
	unsigned long flags;
	unsigned int tail;

	spin_lock_irqsave(&m->lock, flags);
	if (m->count == MWIN_EVENT_RING) {
		m->lost++;
	} else {
		tail = (m->head + m->count) % MWIN_EVENT_RING;
		m->ring[tail] = *ev;
		m->ring[tail].seq = ++m->seq;
		m->count++;
	}
	spin_unlock_irqrestore(&m->lock, flags);
	wake_up_interruptible(&m->wait);
}

/*
 * @about: the window the event is about, or NULL for one about a peer: a
 * monitor gets only the events about windows its caller may see.
 *
 * The event is in every ring before this returns, so events one caller
 * posts in turn (a window's, under its lock; a REVOKE and the
 * REJECTED_INVALIDATE it precedes) keep their order in each ring. Two
 * posted at once may reach two rings in different orders: the uAPI
 * orders a monitor's records, not different monitors' against each other.
 */
void mwin_event(enum mwin_event_type type, const struct mwin_obj *about,
		u32 window, u32 peer, u32 rkey, u32 reason)
{
	struct mwin_event ev = {
		.size = sizeof(ev),
		.type = type,
		.window = window,
		.peer = peer,
		.rkey = rkey,
		.reason = reason,
		.time_ns = ktime_get_ns(),
	};
	struct mwin_events *m;

	rcu_read_lock();
	list_for_each_entry_rcu(m, &mwin_monitors, node)
		if (mwin_obj_visible(about, &m->caller))
			monitor_push(m, &ev);
	rcu_read_unlock();
}

/* The file's monitor, once MWIN_MONITOR published it. */
static struct mwin_events *monitor_of(struct file *file)
{
	struct mwin_file *f = file->private_data;

	/* pairs with mwin_monitor_start(): the ring is set up when seen */
	return smp_load_acquire(&f->ev);
}

/* @c: the caller; it decides what the monitor gets from now on */
int mwin_monitor_start(struct mwin_file *f, const struct mwin_caller *c)
{
	struct mwin_events *m;
	int ret = 0;

	mutex_lock(&mwin_monitors_lock);
	if (f->ev)
		goto out;	/* already monitoring */
	ret = monitor_take(c->uid);
	if (ret)
		goto out;
	/* 160 KiB, for as long as the caller keeps the file: its own */
	m = kvzalloc(sizeof(*m), GFP_KERNEL_ACCOUNT);
	if (!m) {
		mwin_user_give_back(&mwin_monitor_users, c->uid);
		ret = -ENOMEM;
		goto out;
	}
	m->caller = *c;
	spin_lock_init(&m->lock);
	init_waitqueue_head(&m->wait);
	list_add_tail_rcu(&m->node, &mwin_monitors);
	/* a read() or poll() at once sees the ring set up: monitor_of() */
	smp_store_release(&f->ev, m);
out:
	mutex_unlock(&mwin_monitors_lock);
	return ret;
}

static void monitor_free(struct rcu_head *rcu)
{
	kvfree(container_of(rcu, struct mwin_events, rcu));
}

/* The file is released: nobody reads or polls it any more. */
void mwin_monitor_stop(struct mwin_file *f)
{
	struct mwin_events *m = f->ev;

	if (!m)
		return;
	mutex_lock(&mwin_monitors_lock);
	list_del_rcu(&m->node);
	mwin_user_give_back(&mwin_monitor_users, m->caller.uid);
	mutex_unlock(&mwin_monitors_lock);
	/*
	 * A walk that found it may still be pushing to it. Not kvfree_rcu(),
	 * which may sit on 160 KiB for seconds: its cgroup would be charged
	 * for a monitor its tasks closed.
	 */
	call_rcu(&m->rcu, monitor_free);
}

/* Take up to @max records, a LOST record first when events were dropped. */
static unsigned int monitor_pop(struct mwin_events *m, struct mwin_event *out,
				unsigned int max)
{
	unsigned int n = 0;
	unsigned long flags;

	spin_lock_irqsave(&m->lock, flags);
	if (m->lost && max) {
		out[n] = (struct mwin_event){
			.size = sizeof(*out),
			.type = MWIN_EVENT_LOST,
			.rkey = m->lost,
			.seq = ++m->seq,
			.time_ns = ktime_get_ns(),
		};
		m->lost = 0;
		n++;
	}
	while (n < max && m->count) {
		out[n++] = m->ring[m->head];
		m->head = (m->head + 1) % MWIN_EVENT_RING;
		m->count--;
	}
	spin_unlock_irqrestore(&m->lock, flags);
	return n;
}

static bool monitor_ready(struct mwin_events *m)
{
	return READ_ONCE(m->count) || READ_ONCE(m->lost);
}

ssize_t mwin_read(struct file *file, char __user *buf, size_t len,
		  loff_t *ppos)
{
	struct mwin_events *m = monitor_of(file);
	struct mwin_event batch[8];
	unsigned int n;
	int ret;

	if (!m || len < sizeof(batch[0]))
		return -EINVAL;
	if (!monitor_ready(m)) {
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		ret = wait_event_interruptible(m->wait, monitor_ready(m));
		if (ret)
			return ret;
	}
	n = monitor_pop(m, batch, min_t(size_t, ARRAY_SIZE(batch),
					len / sizeof(batch[0])));
	if (copy_to_user(buf, batch, n * sizeof(batch[0])))
		return -EFAULT;
	return n * sizeof(batch[0]);
}

__poll_t mwin_poll(struct file *file, struct poll_table_struct *pt)
{
	struct mwin_events *m = monitor_of(file);

	if (!m)
		return EPOLLERR;
	poll_wait(file, &m->wait, pt);
	return monitor_ready(m) ? EPOLLIN | EPOLLRDNORM : 0;
}
