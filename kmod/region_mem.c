// SPDX-License-Identifier: GPL-2.0
/*
 * Regions over memory the caller has:
 *
 *  - user regions: an address range of the calling process, pinned where
 *    it is, as ib_umem pins the memory of ibv_reg_mr() (drivers/infiniband/
 *    core/umem.c);
 *  - file regions: pages of a memfd or tmpfs file, held by reference as
 *    drivers that hand shmem pages to a device hold them (i915's shmem
 *    objects), shared with every process that maps the file.
 *
 * Both are charged as ib_umem charges: to the caller's mm->pinned_vm
 * against its RLIMIT_MEMLOCK. The pages are not the module's: the region
 * holds a pin or a reference on each and gives it back in
 * region_release(), once no MR can reach them, whatever the process or
 * the file did meanwhile (munmap(), fork(), exit, truncate). Until then they
 * cannot be migrated, reclaimed or freed. The rest of the module sees such
 * a region as any other: r->pages, one chunk per page (the pages are not
 * known to be contiguous).
 */
#include <linux/capability.h>
#include <linux/fcntl.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/pid.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/shmem_fs.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "compat.h"
#include "mwin.h"

/* Pages pinned per call: a killed caller is noticed between them. */
#define REGION_PIN_BATCH	512

static bool region_writable(const struct mwin_region *r)
{
	return !(r->flags & MWIN_REGION_READ_ONLY);
}

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
	r->back.mm = mm;
	return 0;
}

/* What both kinds start with: the creator, the charge, the page array. */
static int region_start_backing(struct mwin_region *r, u64 addr)
{
	int ret;

	r->back.addr = addr;
	r->back.pid = get_task_pid(current, PIDTYPE_TGID);
	r->chunk_shift = PAGE_SHIFT;
	ret = region_charge_pinned(r);
	if (ret)
		return ret;
	r->pages = kvcalloc(r->npages, sizeof(*r->pages), GFP_KERNEL_ACCOUNT);
	return r->pages ? 0 : -ENOMEM;
}

/* Pin [@addr, @addr + r->length) into r->pages, counting r->back.npinned. */
static int region_pin_pages(struct mwin_region *r, u64 addr)
{
	unsigned int gup = region_writable(r) ? FOLL_LONGTERM | FOLL_WRITE :
			   MWIN_GUP_READ_ONLY;
	unsigned long left;
	int n;

	while ((left = r->npages - r->back.npinned)) {
		if (fatal_signal_pending(current))
			return -EINTR;
		n = pin_user_pages_fast(addr + (r->back.npinned << PAGE_SHIFT),
					min_t(unsigned long, left,
					      REGION_PIN_BATCH), gup,
					r->pages + r->back.npinned);
		if (n < 0)
			return n;
		if (!n)
			return -EFAULT;
		r->back.npinned += n;
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
 * is given back by region_release_backing() when the caller puts @r.
 *
 * Return: 0; -ENOMEM (no memory, or over RLIMIT_MEMLOCK); -EFAULT (a page
 * not mapped, not writable for a writable region, or not pinnable);
 * -EINTR.
 */
int region_pin_user(struct mwin_region *r, u64 addr)
{
	return region_start_backing(r, addr) ?: region_pin_pages(r, addr);
}

/**
 * region_check_file() - are a file region's range and flags acceptable?
 * @arg: the create's argument, kind MWIN_REGION_KIND_FILE
 *
 * Return: 0 or -EINVAL.
 */
int region_check_file(const struct mwin_region_create *arg)
{
	if (arg->flags & MWIN_REGION_NEAR_DEV)
		return -EINVAL;	/* the pages are where the file has them */
	if (!PAGE_ALIGNED(arg->offset) || !PAGE_ALIGNED(arg->length) ||
	    arg->offset + arg->length < arg->offset)
		return -EINVAL;
	return 0;
}

/*
 * May @r hold @file's pages over [@offset, @offset + r->length)? A
 * writable region writes the file as a writable shared mapping does, so
 * it needs what such a mapping needs: write access, no write seal, and a
 * writable mapping's count for its life, which keeps F_SEAL_WRITE off.
 */
static int region_take_file(struct mwin_region *r, struct file *file,
			    u64 offset)
{
	struct inode *inode = file_inode(file);

	if (!shmem_file(file))
		return -EINVAL;
	if (offset + r->length > i_size_read(inode))
		return -EINVAL;
	if (!(file->f_mode & FMODE_READ) ||
	    (region_writable(r) && !(file->f_mode & FMODE_WRITE)))
		return -EACCES;
	if (region_writable(r)) {
		if (SHMEM_I(inode)->seals & F_SEAL_FUTURE_WRITE)
			return -EPERM;
		if (mapping_map_writable(file->f_mapping))
			return -EPERM;		/* F_SEAL_WRITE */
	}
	r->back.file = get_file(file);
	return 0;
}

/* Hold the file's pages from @first on, allocating its holes. */
static int region_get_file_pages(struct mwin_region *r, pgoff_t first)
{
	struct address_space *mapping = r->back.file->f_mapping;
	struct page *page;

	while (r->back.npinned < r->npages) {
		if (fatal_signal_pending(current))
			return -EINTR;
		page = shmem_read_mapping_page_gfp(mapping,
						   first + r->back.npinned,
						   mapping_gfp_mask(mapping));
		if (IS_ERR(page))
			return PTR_ERR(page);
		r->pages[r->back.npinned++] = page;
		cond_resched();
	}
	return 0;
}

/**
 * region_hold_file() - take a file region's pages
 * @r: the region being created: r->npages and r->flags set
 * @fd: the caller's file descriptor of a memfd or tmpfs file
 * @offset: the region's first byte in the file, checked by
 *	region_check_file()
 *
 * The region keeps the pages it took whatever the file does: a truncation
 * takes them out of the file's page cache, not out of the region. On
 * error, what was taken so far stays recorded in @r and is given back by
 * region_release_backing() when the caller puts @r.
 *
 * Return: 0; -EBADF; -EINVAL (not a shmem file, or the range past its
 * end); -EACCES (the file's mode); -EPERM (write-sealed); -ENOMEM (no
 * memory, or over RLIMIT_MEMLOCK); -ENOSPC (the tmpfs is full); -EINTR.
 */
int region_hold_file(struct mwin_region *r, int fd, u64 offset)
{
	struct file *file = fget(fd);
	int ret;

	if (!file)
		return -EBADF;
	ret = region_take_file(r, file, offset);
	fput(file);
	if (ret)
		return ret;
	return region_start_backing(r, offset) ?:
	       region_get_file_pages(r, offset >> PAGE_SHIFT);
}

/*
 * A writable region's pages are marked dirty when given back: remote
 * WRITEs changed them behind the CPU's back, and a file or swap-cache page
 * must be written back before it is dropped.
 */
static void region_unpin_user_pages(struct mwin_region *r)
{
	unsigned long i, n;

	for (i = 0; i < r->back.npinned; i += n) {
		n = min_t(unsigned long, r->back.npinned - i,
			  REGION_PIN_BATCH);
		unpin_user_pages_dirty_lock(r->pages + i, n,
					    region_writable(r));
		cond_resched();
	}
}

static void region_put_file_pages(struct mwin_region *r)
{
	unsigned long i;

	for (i = 0; i < r->back.npinned; i++) {
		if (region_writable(r))
			set_page_dirty_lock(r->pages[i]);
		put_page(r->pages[i]);
		if (!(i % REGION_PIN_BATCH))
			cond_resched();
	}
}

/**
 * region_release_backing() - give back a user or file region's pages,
 *	file and charge
 * @r: the region, released: no MR can reach its pages any more
 */
void region_release_backing(struct mwin_region *r)
{
	struct file *file = r->back.file;

	if (r->kind == MWIN_REGION_KIND_USER)
		region_unpin_user_pages(r);
	else
		region_put_file_pages(r);
	kvfree(r->pages);
	if (file) {
		if (region_writable(r))
			mapping_unmap_writable(file->f_mapping);
		fput(file);
	}
	if (r->back.mm) {
		atomic64_sub(r->npages, &r->back.mm->pinned_vm);
		mmdrop(r->back.mm);
	}
	put_pid(r->back.pid);
}

/**
 * region_backing_info() - REGION_GET's view of a user or file region
 * @r: a user or file region
 * @info: filled in: @pid and @addr
 *
 * The pid as the caller's namespace numbers it, 0 once the process has
 * exited: its number may then belong to another one.
 */
void region_backing_info(const struct mwin_region *r,
			 struct mwin_region_info *info)
{
	struct pid *pid = r->back.pid;

	rcu_read_lock();
	info->pid = pid && pid_has_task(pid, PIDTYPE_TGID) ? pid_vnr(pid) : 0;
	rcu_read_unlock();
	info->addr = r->back.addr;
}
