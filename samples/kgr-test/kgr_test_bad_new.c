// SPDX-License-Identifier: GPL-2.0
/*
 * kgr_test_bad_new -- a kGraft patch that must be refused: the
 * replacement of kgr_test_fn_badnew() is notrace, so kGraft cannot
 * resolve its fentry site. Loading must fail and leave
 * kgr_test_fn_badnew() unpatched.
 */
#include <linux/kgr.h>
#include <linux/module.h>

#include "kgr_test.h"

static noinline notrace int kgr_test_bad_new_fn(void)
{
	return KGR_TEST_NEW;
}
KGR_PATCHED_FUNCTION(patch, kgr_test_fn_badnew, kgr_test_bad_new_fn);

static struct kgr_patch patch = {
	.patches = {
		KGR_PATCH(kgr_test_fn_badnew),
		KGR_PATCH_END
	}
};

static int __init kgr_test_bad_new_init(void)
{
	return kgr_start_patching(&patch);
}
module_init(kgr_test_bad_new_init);
MODULE_DESCRIPTION("kGraft test patch whose replacement cannot be resolved");
MODULE_LICENSE("GPL");
