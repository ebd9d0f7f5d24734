// SPDX-License-Identifier: GPL-2.0
/*
 * User regions: an address range of the calling process, pinned where it
 * is, as ib_umem pins the memory of ibv_reg_mr() (drivers/infiniband/core/
 * umem.c), and charged the same way: to the caller's mm->pinned_vm against
 * its RLIMIT_MEMLOCK.
 *
 * The pages are the process's, not the module's: the region holds a pin
 * on each and gives it back in region_release(), once no MR can reach
 * them, whatever the process did with the range meanwhile (munmap(), fork(),
 * exit). Until then they cannot be migrated, reclaimed or freed. The rest
 * of the module sees a user region as any other: r->pages, one chunk per
 * page (user pages are not known to be contiguous).
 */
#include <linux/capability.h>
#include <linux/mm.h>
#include <linux/pid.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "compat.h"
#include "mwin.h"

/* Pages pinned per call: a killed caller is noticed between them. */
#define REGION_PIN_BATCH	512

/**
 * region_check_user() - are a user region's range and flags acceptable?
 * @arg: the create's argument, kind MWIN_REGION_KIND_USER
 *
 * The range must be whole pages: a window could otherwise reach bytes of
 * the first or last page that the caller did not name.
 *
 * Return: 0 or -EINVAL.
 */
int region_check_user(const struct mwin_region_create *arg)
{
	if (arg->flags & MWIN_REGION_NEAR_DEV)
		return -EINVAL;	/* the pages are where the process has them */
	if (!arg->addr || !PAGE_ALIGNED(arg->addr) ||
	    !PAGE_ALIGNED(arg->length))
		return -EINVAL;
	if (arg->addr + arg->length < arg->addr ||
	    !access_ok(u64_to_user_ptr(arg->addr), arg->length))
		return -EINVAL;
	return 0;
}

/*
 * As ib_umem: the pages count in the caller's pinned_vm whatever its
 * capabilities (VmPin shows them); CAP_IPC_LOCK only lifts the limit. The
 * region keeps the mm (not its address space: mmgrab()) to give the
 * charge back when it is freed, after the process may have exited.
 */
static int region_charge_pinned(struct mwin_region *r)
{
	unsigned long limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	struct mm_struct *mm = current->mm;
	u64 pinned;

	pinned = atomic64_add_return(r->npages, &mm->pinned_vm);
	if (pinned > limit &&
	    !ns_capable_noaudit(&init_user_ns, CAP_IPC_LOCK)) {
		atomic64_sub(r->npages, &mm->pinned_vm);
		return -ENOMEM;
	}
	mmgrab(mm);
	r->umem.mm = mm;
	return 0;
}

/* Pin [@addr, @addr + r->length) into r->pages, counting r->umem.npinned. */
static int region_pin_pages(struct mwin_region *r, u64 addr)
{
	unsigned int gup = r->flags & MWIN_REGION_READ_ONLY ?
			   MWIN_GUP_READ_ONLY : FOLL_LONGTERM | FOLL_WRITE;
	unsigned long left;
	int n;

	while ((left = r->npages - r->umem.npinned)) {
		if (fatal_signal_pending(current))
			return -EINTR;
		n = pin_user_pages_fast(addr + (r->umem.npinned << PAGE_SHIFT),
					min_t(unsigned long, left,
					      REGION_PIN_BATCH), gup,
					r->pages + r->umem.npinned);
		if (n < 0)
			return n;
		if (!n)
			return -EFAULT;
		r->umem.npinned += n;
		cond_resched();
	}
	return 0;
}

/**
 * region_pin_user() - pin a user region's pages
 * @r: the region being created: r->npages and r->flags set
 * @addr: the first byte, checked by region_check_user()
 *
 * On error, what was pinned and charged so far stays recorded in @r and
 * is given back by region_unpin_user() when the caller puts @r.
 *
 * Return: 0; -ENOMEM (no memory, or over RLIMIT_MEMLOCK); -EFAULT (a page
 * not mapped, not writable for a writable region, or not pinnable);
 * -EINTR.
 */
int region_pin_user(struct mwin_region *r, u64 addr)
{
	int ret;

	r->umem.addr = addr;
	r->umem.pid = get_task_pid(current, PIDTYPE_TGID);
	r->chunk_shift = PAGE_SHIFT;
	ret = region_charge_pinned(r);
	if (ret)
		return ret;
	r->pages = kvcalloc(r->npages, sizeof(*r->pages), GFP_KERNEL_ACCOUNT);
	if (!r->pages)
		return -ENOMEM;
	return region_pin_pages(r, addr);
}

/**
 * region_unpin_user() - give back a user region's pins and charge
 * @r: the region, released: no MR can reach its pages any more
 *
 * A writable region's pages are marked dirty: remote WRITEs changed them
 * behind the CPU's back, and a file page must be written back.
 */
void region_unpin_user(struct mwin_region *r)
{
	bool dirty = !(r->flags & MWIN_REGION_READ_ONLY);
	unsigned long i, n;

	for (i = 0; i < r->umem.npinned; i += n) {
		n = min_t(unsigned long, r->umem.npinned - i, REGION_PIN_BATCH);
		unpin_user_pages_dirty_lock(r->pages + i, n, dirty);
		cond_resched();
	}
	kvfree(r->pages);
	if (r->umem.mm) {
		atomic64_sub(r->npages, &r->umem.mm->pinned_vm);
		mmdrop(r->umem.mm);
	}
	put_pid(r->umem.pid);
}

/**
 * region_user_info() - REGION_GET's view of a user region's backing
 * @r: a user region
 * @info: filled in: @pid and @addr
 *
 * The pid as the caller's namespace numbers it, 0 once the process has
 * exited: its number may then belong to another one.
 */
void region_user_info(const struct mwin_region *r,
		      struct mwin_region_info *info)
{
	struct pid *pid = r->umem.pid;

	rcu_read_lock();
	info->pid = pid_has_task(pid, PIDTYPE_TGID) ? pid_vnr(pid) : 0;
	rcu_read_unlock();
	info->addr = r->umem.addr;
}
