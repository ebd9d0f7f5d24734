// SPDX-License-Identifier: GPL-2.0
/*
 * mwin_bench - the in-kernel floor under a window rebind, for benchmarks.
 *
 * Not for production: it only exposes mwin_bench_rebind() of mwin.ko to
 * userspace, through one debugfs file:
 *
 *   echo "WINDOW ITERATIONS" > /sys/kernel/debug/mwin_bench/rebind
 *   cat /sys/kernel/debug/mwin_bench/rebind
 *
 * The write makes ITERATIONS rebinds (LOCAL_INV + REG_MR, each waited for)
 * of window WINDOW inside the kernel, with no ioctl, lookup or message per
 * rebind, and fails with the errno of mwin_bench_rebind(). The read returns
 * "WINDOW ITERATIONS NS" of the last successful run.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/uaccess.h>

#include "mwin_bench.h"

#define BENCH_MAX_ITERATIONS	BIT(20)

static struct dentry *bench_dir;
static DEFINE_MUTEX(bench_lock);	/* one run at a time; the result */
static u32 bench_window;
static u32 bench_iterations;
static u64 bench_ns;

static ssize_t bench_rebind_write(struct file *file, const char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	char buf[32];
	u32 window, iterations;
	u64 ns = 0;
	int ret;

	if (!count || count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	if (sscanf(buf, "%u %u", &window, &iterations) != 2)
		return -EINVAL;
	if (!window || !iterations || iterations > BENCH_MAX_ITERATIONS)
		return -EINVAL;

	mutex_lock(&bench_lock);
	ret = mwin_bench_rebind(window, iterations, &ns);
	if (!ret) {
		bench_window = window;
		bench_iterations = iterations;
		bench_ns = ns;
	}
	mutex_unlock(&bench_lock);
	return ret ? ret : count;
}

static ssize_t bench_rebind_read(struct file *file, char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	char buf[64];
	int len;

	mutex_lock(&bench_lock);
	len = scnprintf(buf, sizeof(buf), "%u %u %llu\n", bench_window,
			bench_iterations, bench_ns);
	mutex_unlock(&bench_lock);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static const struct file_operations bench_rebind_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = bench_rebind_read,
	.write = bench_rebind_write,
	.llseek = default_llseek,
};

static int __init mwin_bench_init(void)
{
	bench_dir = debugfs_create_dir("mwin_bench", NULL);
	debugfs_create_file("rebind", 0600, bench_dir, NULL,
			    &bench_rebind_fops);
	return 0;
}

static void __exit mwin_bench_exit(void)
{
	debugfs_remove_recursive(bench_dir);
}

module_init(mwin_bench_init);
module_exit(mwin_bench_exit);
MODULE_DESCRIPTION("mwin benchmark: in-kernel rebind floor (not for production)");
MODULE_LICENSE("GPL");
