/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What mwin_bench uses of mwin.ko: the same declaration as in kmod/mwin.h,
 * kept here so that the benchmark module builds without mwin's private
 * header.
 */
#ifndef _MWIN_BENCH_H
#define _MWIN_BENCH_H

#include <linux/types.h>

/*
 * kmod/window.c: rebind a bound window @iterations times in the kernel;
 * with @inv_only, time the LOCAL_INVs alone
 */
int mwin_bench_rebind(u32 window_id, u32 iterations, u64 *ns, bool inv_only);

#endif /* _MWIN_BENCH_H */
