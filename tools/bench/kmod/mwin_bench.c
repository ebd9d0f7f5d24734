// SPDX-License-Identifier: GPL-2.0
/*
 * mwin_bench - the in-kernel floors under a window rebind and a revoke,
 * for benchmarks.
 *
 * Not for production: it only exposes mwin_bench_rebind() of mwin.ko to
 * userspace, through two debugfs files of the same protocol:
 *
 *   echo "WINDOW ITERATIONS" > /sys/kernel/debug/mwin_bench/rebind
 *   cat /sys/kernel/debug/mwin_bench/rebind
 *
 * The write makes ITERATIONS rebinds (LOCAL_INV + REG_MR, each waited for)
 * of window WINDOW inside the kernel, with no ioctl, lookup or message per
 * rebind, and fails with the errno of mwin_bench_rebind(). The read returns
 * "WINDOW ITERATIONS NS" of the last successful run of that file.
 *
 * "invalidate" makes the same rebinds but times only their LOCAL_INVs,
 * each posted and waited for alone: the floor under a revoke (an
 * invalidation, an expired lease). NS is the sum of those alone.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/uaccess.h>

#include "mwin_bench.h"

#define BENCH_MAX_ITERATIONS	BIT(20)

/* One debugfs file and the result of its last successful run. */
struct bench_file {
	const char *name;
	bool inv_only;		/* time the LOCAL_INVs alone */
	u32 window;
	u32 iterations;
	u64 ns;
};

static struct bench_file bench_files[] = {
	{ .name = "rebind" },
	{ .name = "invalidate", .inv_only = true },
};

static struct dentry *bench_dir;
static DEFINE_MUTEX(bench_lock);	/* one run at a time; the results */

static ssize_t bench_write(struct file *file, const char __user *ubuf,
			   size_t count, loff_t *ppos)
{
	struct bench_file *bf = file->private_data;
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
	ret = mwin_bench_rebind(window, iterations, &ns, bf->inv_only);
	if (!ret) {
		bf->window = window;
		bf->iterations = iterations;
		bf->ns = ns;
	}
	mutex_unlock(&bench_lock);
	return ret ? ret : count;
}

static ssize_t bench_read(struct file *file, char __user *ubuf, size_t count,
			  loff_t *ppos)
{
	struct bench_file *bf = file->private_data;
	char buf[64];
	int len;

	mutex_lock(&bench_lock);
	len = scnprintf(buf, sizeof(buf), "%u %u %llu\n", bf->window,
			bf->iterations, bf->ns);
	mutex_unlock(&bench_lock);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static const struct file_operations bench_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = bench_read,
	.write = bench_write,
	.llseek = default_llseek,
};

static int __init mwin_bench_init(void)
{
	unsigned int i;

	bench_dir = debugfs_create_dir("mwin_bench", NULL);
	for (i = 0; i < ARRAY_SIZE(bench_files); i++)
		debugfs_create_file(bench_files[i].name, 0600, bench_dir,
				    &bench_files[i], &bench_fops);
	return 0;
}

static void __exit mwin_bench_exit(void)
{
	debugfs_remove_recursive(bench_dir);
}

module_init(mwin_bench_init);
module_exit(mwin_bench_exit);
MODULE_DESCRIPTION("mwin benchmark: in-kernel rebind and revoke floors (not for production)");
MODULE_LICENSE("GPL");
