/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel API differences between the kernels mwin builds against, in one
 * place: 6.1 (Debian 12) up to the newest Debian offers (6.12). Kbuild
 * probes the kernel's headers and defines MWIN_HAVE_* for what it finds.
 */
#ifndef _MWIN_COMPAT_H
#define _MWIN_COMPAT_H

#include <linux/mm.h>
#include <linux/slab.h>

#ifndef MWIN_HAVE_VM_FLAGS_SET
/* vm_flags became read-only, set through vm_flags_set(), in 6.3. */
static inline void vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags |= flags;
}
#endif

/*
 * rxe's page tables, which neither its attributes nor the kernel's headers
 * tell (Kbuild defines MWIN_RXE_PAGE_MAPS before 6.3). Until 6.3, rxe kept
 * an MR's pages in maps of RXE_BUF_PER_MAP, and rxe_mr_copy() read one map
 * pointer past the end of an MR whose last page it touched when that page
 * ended the last map: an rxe MR gets a spare page there, so that the last
 * page of a window never ends the map. Since 6.12.118 (a stable backport),
 * rxe keeps one 16-byte entry per PAGE_SIZE of an MR's pages in a table it
 * kcallocs for the MR's allocated pages times the MR's page size
 * (rxe_map_mr_sg()): beyond KMALLOC_MAX_SIZE the allocation warns and fails,
 * so mwin keeps every rxe MR within it.
 */
#ifdef MWIN_RXE_PAGE_MAPS
#define MWIN_RXE_SPARE_PAGES		1
#define MWIN_RXE_MAX_SMALL_PAGES	U32_MAX
#else
#define MWIN_RXE_SPARE_PAGES		0
#define MWIN_RXE_MAX_SMALL_PAGES	((u32)(KMALLOC_MAX_SIZE / 16))
#endif

/*
 * A long-term pin for reading only. Since 6.2 such a pin of a COW mapping
 * unshares the page (the shared zero page too), so that the process and
 * the pin keep seeing the same page; before, ib_umem pinned read-only
 * memory with FOLL_FORCE | FOLL_WRITE, breaking COW at pin time, and so
 * does mwin there (Kbuild defines MWIN_GUP_RO_FORCE before 6.2). Forced,
 * a read-only MAP_SHARED mapping cannot be pinned (EFAULT).
 */
#ifdef MWIN_GUP_RO_FORCE
#define MWIN_GUP_READ_ONLY	(FOLL_LONGTERM | FOLL_FORCE | FOLL_WRITE)
#else
#define MWIN_GUP_READ_ONLY	FOLL_LONGTERM
#endif

#endif /* _MWIN_COMPAT_H */
