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
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "mwin.h"

#define MWIN_EVENT_RING	4096

static LIST_HEAD(mwin_monitors);
static DEFINE_SPINLOCK(mwin_monitors_lock);

static void monitor_push(struct mwin_file *f, const struct mwin_event *ev)
{
	unsigned int tail;

	spin_lock(&f->ev_lock);
	if (f->ev_count == MWIN_EVENT_RING) {
		f->ev_lost++;
	} else {
		tail = (f->ev_head + f->ev_count) % MWIN_EVENT_RING;
		f->ev_ring[tail] = *ev;
		f->ev_ring[tail].seq = ++f->ev_seq;
		f->ev_count++;
	}
	spin_unlock(&f->ev_lock);
	wake_up_interruptible(&f->ev_wait);
}

/*
 * @about: the window the event is about, or NULL for one about a peer: a
 * monitor gets only the events about windows its caller may see.
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
	struct mwin_file *f;
	unsigned long flags;

	spin_lock_irqsave(&mwin_monitors_lock, flags);
	list_for_each_entry(f, &mwin_monitors, ev_node)
		if (mwin_obj_visible(about, &f->ev_caller))
			monitor_push(f, &ev);
	spin_unlock_irqrestore(&mwin_monitors_lock, flags);
}

/* @c: the caller; it decides what the monitor gets from now on */
int mwin_monitor_start(struct mwin_file *f, const struct mwin_caller *c)
{
	struct mwin_event *ring;
	unsigned long flags;

	ring = kvcalloc(MWIN_EVENT_RING, sizeof(*ring), GFP_KERNEL);
	if (!ring)
		return -ENOMEM;
	spin_lock_irqsave(&mwin_monitors_lock, flags);
	if (f->ev_ring) {
		spin_unlock_irqrestore(&mwin_monitors_lock, flags);
		kvfree(ring);
		return 0;	/* already monitoring */
	}
	f->ev_ring = ring;
	f->ev_caller = *c;
	list_add_tail(&f->ev_node, &mwin_monitors);
	spin_unlock_irqrestore(&mwin_monitors_lock, flags);
	return 0;
}

void mwin_monitor_stop(struct mwin_file *f)
{
	unsigned long flags;

	if (!f->ev_ring)
		return;
	spin_lock_irqsave(&mwin_monitors_lock, flags);
	list_del(&f->ev_node);
	spin_unlock_irqrestore(&mwin_monitors_lock, flags);
	kvfree(f->ev_ring);
}

/* Take up to @max records, a LOST record first when events were dropped. */
static unsigned int monitor_pop(struct mwin_file *f, struct mwin_event *out,
				unsigned int max)
{
	unsigned int n = 0;
	unsigned long flags;

	spin_lock_irqsave(&f->ev_lock, flags);
	if (f->ev_lost && max) {
		out[n] = (struct mwin_event){
			.size = sizeof(*out),
			.type = MWIN_EVENT_LOST,
			.rkey = f->ev_lost,
			.seq = ++f->ev_seq,
			.time_ns = ktime_get_ns(),
		};
		f->ev_lost = 0;
		n++;
	}
	while (n < max && f->ev_count) {
		out[n++] = f->ev_ring[f->ev_head];
		f->ev_head = (f->ev_head + 1) % MWIN_EVENT_RING;
		f->ev_count--;
	}
	spin_unlock_irqrestore(&f->ev_lock, flags);
	return n;
}

static bool monitor_ready(struct mwin_file *f)
{
	return READ_ONCE(f->ev_count) || READ_ONCE(f->ev_lost);
}

ssize_t mwin_read(struct file *file, char __user *buf, size_t len,
		  loff_t *ppos)
{
	struct mwin_file *f = file->private_data;
	struct mwin_event batch[8];
	unsigned int n;
	int ret;

	if (!f->ev_ring || len < sizeof(batch[0]))
		return -EINVAL;
	if (!monitor_ready(f)) {
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		ret = wait_event_interruptible(f->ev_wait, monitor_ready(f));
		if (ret)
			return ret;
	}
	n = monitor_pop(f, batch, min_t(size_t, ARRAY_SIZE(batch),
					len / sizeof(batch[0])));
	if (copy_to_user(buf, batch, n * sizeof(batch[0])))
		return -EFAULT;
	return n * sizeof(batch[0]);
}

__poll_t mwin_poll(struct file *file, struct poll_table_struct *pt)
{
	struct mwin_file *f = file->private_data;

	if (!f->ev_ring)
		return EPOLLERR;
	poll_wait(file, &f->ev_wait, pt);
	return monitor_ready(f) ? EPOLLIN | EPOLLRDNORM : 0;
}
