/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel API differences between the kernels mwin builds against, in one
 * place: 6.1 (Debian 12) up to the newest Debian offers (6.12). Kbuild
 * probes the kernel's headers and defines MWIN_HAVE_* for what it finds.
 */
#ifndef _MWIN_COMPAT_H
#define _MWIN_COMPAT_H

#include <linux/mm.h>

#ifndef MWIN_HAVE_VM_FLAGS_SET
/* vm_flags became read-only, set through vm_flags_set(), in 6.3. */
static inline void vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags |= flags;
}
#endif

#endif /* _MWIN_COMPAT_H */
