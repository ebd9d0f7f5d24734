// SPDX-License-Identifier: GPL-2.0
/*
 * mwin: revocable RDMA memory windows over kernel-owned memory.
 *
 * Module parameters, the misc device and module load and unload.
 */
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "mwin.h"

unsigned short mwin_port = MWIN_DEFAULT_PORT;
module_param_named(port, mwin_port, ushort, 0444);
MODULE_PARM_DESC(port, "RDMA CM port peers connect to");

unsigned long mwin_max_region_mb = 4096;
module_param_named(max_region_mb, mwin_max_region_mb, ulong, 0644);
MODULE_PARM_DESC(max_region_mb, "Memory all regions may hold, in MiB");

unsigned int mwin_max_windows = 131072;
module_param_named(max_windows, mwin_max_windows, uint, 0644);
MODULE_PARM_DESC(max_windows, "Windows that may exist at once");

unsigned int mwin_max_peers = 256;
module_param_named(max_peers, mwin_max_peers, uint, 0644);
MODULE_PARM_DESC(max_peers, "Peers that may be connected at once");

unsigned int mwin_max_half_open = 64;
module_param_named(max_half_open, mwin_max_half_open, uint, 0644);
MODULE_PARM_DESC(max_half_open, "Connections that may be in their handshake at once, apart from max_peers");

unsigned int mwin_max_monitors = 8;
module_param_named(max_monitors, mwin_max_monitors, uint, 0644);
MODULE_PARM_DESC(max_monitors,
		 "Monitors one user may hold at once (0: no limit)");

/*
 * Parameters that bound a wait. A value out of range would break every
 * window operation (0 ms) or leave callers blocked for hours, so it is
 * refused with EINVAL, at load and on a write to
 * /sys/module/mwin/parameters/, and the old value stays.
 */
struct mwin_ms_param {
	unsigned int *ms;
	unsigned int min, max;
	bool off;		/* 0 is allowed too: "never" */
};

static int mwin_ms_param_set(const char *val, const struct kernel_param *kp)
{
	const struct mwin_ms_param *p = kp->arg;
	unsigned int n;

	if (kstrtouint(val, 0, &n))
		return -EINVAL;
	if (!(p->off && !n) && (n < p->min || n > p->max))
		return -EINVAL;
	WRITE_ONCE(*p->ms, n);
	return 0;
}

static int mwin_ms_param_get(char *buf, const struct kernel_param *kp)
{
	const struct mwin_ms_param *p = kp->arg;

	return sysfs_emit(buf, "%u\n", READ_ONCE(*p->ms));
}

static const struct kernel_param_ops mwin_ms_param_ops = {
	.set = mwin_ms_param_set,
	.get = mwin_ms_param_get,
};

unsigned int mwin_op_timeout_ms = 10000;
static struct mwin_ms_param mwin_op_timeout = {
	&mwin_op_timeout_ms, 100, 60000
};
module_param_cb(op_timeout_ms, &mwin_ms_param_ops, &mwin_op_timeout, 0644);
__MODULE_PARM_TYPE(op_timeout_ms, "uint");
MODULE_PARM_DESC(op_timeout_ms,
		 "How long to wait for the device to complete a window operation (100-60000)");

unsigned int mwin_auth_timeout_ms = 5000;
static struct mwin_ms_param mwin_auth_timeout = {
	&mwin_auth_timeout_ms, 100, 60000
};
module_param_cb(auth_timeout_ms, &mwin_ms_param_ops, &mwin_auth_timeout,
		0644);
__MODULE_PARM_TYPE(auth_timeout_ms, "uint");
MODULE_PARM_DESC(auth_timeout_ms,
		 "How long a connection has, from its request, to be established, and a tenant's challenge lasts (100-60000)");

unsigned int mwin_keepalive_ms = 5000;
static struct mwin_ms_param mwin_keepalive = {
	&mwin_keepalive_ms, 100, 3600000, true
};
module_param_cb(keepalive_ms, &mwin_ms_param_ops, &mwin_keepalive, 0644);
__MODULE_PARM_TYPE(keepalive_ms, "uint");
MODULE_PARM_DESC(keepalive_ms,
		 "How often to check that a connected peer still answers (0: never, else 100-3600000)");

unsigned int mwin_revoke_timeout_ms = 250;
static struct mwin_ms_param mwin_revoke_timeout = {
	&mwin_revoke_timeout_ms, 10, 5000
};
module_param_cb(revoke_timeout_ms, &mwin_ms_param_ops, &mwin_revoke_timeout,
		0644);
__MODULE_PARM_TYPE(revoke_timeout_ms, "uint");
MODULE_PARM_DESC(revoke_timeout_ms,
		 "How long a revoke waits for its invalidation before the peer is cut off (10-5000)");

#ifdef MWIN_TEST
static unsigned int mwin_test_point;
module_param_named(test_delay_point, mwin_test_point, uint, 0644);
MODULE_PARM_DESC(test_delay_point, "Test build: where to sleep, or the fault to make (enum mwin_test_point)");
static unsigned int mwin_test_delay_ms;
module_param_named(test_delay_ms, mwin_test_delay_ms, uint, 0644);
MODULE_PARM_DESC(test_delay_ms, "Test build: how long to sleep there (at most 10000)");
/* more points at once: faults to make together, or during a sleep */
static unsigned int mwin_test_faults;
module_param_named(test_faults, mwin_test_faults, uint, 0644);
MODULE_PARM_DESC(test_faults, "Test build: a mask of points (1 << enum mwin_test_point) armed beside test_delay_point");

bool mwin_test_at(enum mwin_test_point point)
{
	return READ_ONCE(mwin_test_point) == point ||
	       READ_ONCE(mwin_test_faults) & BIT(point);
}

void mwin_test_delay(enum mwin_test_point point)
{
	if (mwin_test_at(point))
		msleep(min(READ_ONCE(mwin_test_delay_ms), 10000U));
}

/* At @point, queue @dw test_delay_ms from now: true when it was queued. */
bool mwin_test_later(enum mwin_test_point point, struct delayed_work *dw)
{
	unsigned int ms;

	if (!mwin_test_at(point))
		return false;
	ms = min(READ_ONCE(mwin_test_delay_ms), 10000U);
	queue_delayed_work(mwin_wq, dw, msecs_to_jiffies(ms));
	return true;
}
#endif

atomic64_t mwin_region_bytes;
/* mwin_exit() runs: peers go for that reason, not their device's */
bool mwin_unloading;
atomic_t mwin_nr_windows;
atomic_t mwin_nr_peers;
struct workqueue_struct *mwin_wq;

static int mwin_open(struct inode *inode, struct file *file)
{
	struct mwin_file *f = mwin_file_alloc(file->f_cred);

	if (!f)
		return -ENOMEM;
	file->private_data = f;
	return 0;
}

static int mwin_release(struct inode *inode, struct file *file)
{
	struct mwin_file *f = file->private_data;

	mwin_monitor_stop(f);
	mwin_file_release(f);
	return 0;
}

static const struct file_operations mwin_fops = {
	.owner = THIS_MODULE,
	.open = mwin_open,
	.release = mwin_release,
	.unlocked_ioctl = mwin_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = mwin_mmap,
	.read = mwin_read,
	.poll = mwin_poll,
	.llseek = noop_llseek,
};

static struct miscdevice mwin_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "mwin",
	.fops = &mwin_fops,
	.mode = 0600,
};

static int __init mwin_init(void)
{
	int ret;

	mwin_wq = alloc_workqueue("mwin", WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	if (!mwin_wq)
		return -ENOMEM;

	ret = lease_init();
	if (ret)
		goto err_wq;

	ret = ib_register_client(&mwin_client);
	if (ret)
		goto err_lease;

	ret = peer_listen();
	if (ret)
		goto err_client;

	ret = misc_register(&mwin_misc);
	if (ret)
		goto err_listen;

	pr_info("mwin: ABI %u, listening on port %u\n", MWIN_ABI_VERSION,
		mwin_port);
	return 0;

err_listen:
	peer_stop_listen();
err_client:
	ib_unregister_client(&mwin_client);
err_lease:
	lease_exit();
err_wq:
	destroy_workqueue(mwin_wq);
	return ret;
}

/*
 * The misc device goes first: open files hold the module, so no ioctl runs
 * past this point. Then no new peers, then every peer is torn down with its
 * device, and what is left (unbound windows, regions) is destroyed.
 */
static void __exit mwin_exit(void)
{
	misc_deregister(&mwin_misc);
	peer_stop_listen();
	WRITE_ONCE(mwin_unloading, true);
	ib_unregister_client(&mwin_client);
	mwin_obj_destroy_all(&mwin_window_type);
	lease_exit();
	mwin_obj_destroy_all(&mwin_region_type);
	mwin_obj_destroy_all(&mwin_tenant_type);
	destroy_workqueue(mwin_wq);
	WARN_ON(mwin_obj_any(&mwin_peer_type));
	rcu_barrier();		/* monitors are freed by call_rcu() */
	pr_info("mwin: unloaded\n");
}

module_init(mwin_init);
module_exit(mwin_exit);

MODULE_DESCRIPTION("Revocable RDMA memory windows over kernel-owned memory");
MODULE_LICENSE("GPL");
