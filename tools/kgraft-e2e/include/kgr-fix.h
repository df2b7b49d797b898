/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kgr-fix.h: what the source of a fix may say to the patch module that
 * kgr-fix.sh makes from it, beyond new code. kgr-fix.sh compiles the
 * fix's objects with this directory on the include path; a fix includes
 * <kgr-fix.h> in the file it changes.
 *
 * KGR_PRE_PATCH_CALLBACK(fn), KGR_POST_PATCH_CALLBACK(fn),
 * KGR_PRE_REVERT_CALLBACK(fn), KGR_POST_REVERT_CALLBACK(fn): fn, a
 * function the fix adds, is that callback of the patch module for the
 * object the file is part of: vmlinux, or its module, whose callbacks
 * also run as it loads and goes (struct kgr_callbacks in
 * include/linux/kgr.h). One of each kind per object. The pointer goes to
 * a section of its own, .kgr.callbacks.<kind>, which kgr-diff.py reads;
 * the module carries fn.
 */
#ifndef KGR_FIX_H
#define KGR_FIX_H

#include <linux/compiler.h>
#include <linux/kgr.h>

typedef int (*kgr_fix_pre_patch_t)(struct kgr_patch *patch);
typedef void (*kgr_fix_callback_t)(struct kgr_patch *patch);

#define __KGR_FIX_CALLBACK(kind, type, fn)				\
	static const type __kgr_fix_##kind##_##fn			\
	__used __section(".kgr.callbacks." #kind) = fn

#define KGR_PRE_PATCH_CALLBACK(fn)					\
	__KGR_FIX_CALLBACK(pre_patch, kgr_fix_pre_patch_t, fn)
#define KGR_POST_PATCH_CALLBACK(fn)					\
	__KGR_FIX_CALLBACK(post_patch, kgr_fix_callback_t, fn)
#define KGR_PRE_REVERT_CALLBACK(fn)					\
	__KGR_FIX_CALLBACK(pre_revert, kgr_fix_callback_t, fn)
#define KGR_POST_REVERT_CALLBACK(fn)					\
	__KGR_FIX_CALLBACK(post_revert, kgr_fix_callback_t, fn)

#endif /* KGR_FIX_H */
