// SPDX-License-Identifier: GPL-2.0
/*
 * kgr_test_modpatch -- a kGraft patch of kgr_test_mod_fn() of the
 * module kgr_test_mod, loaded before or after it: its version returns
 * KGR_TEST_MODRET (2; kgr_test_modpatch2 includes this file with 3, a
 * second patch stacked on the first).
 */
#include <linux/kgr.h>
#include <linux/module.h>

#ifndef KGR_TEST_MODRET
#define KGR_TEST_MODRET	2
#endif

static noinline int kgr_test_modpatch_fn(void)
{
	return KGR_TEST_MODRET;
}
KGR_PATCHED_FUNCTION_POS(patch, kgr_test_mod_fn, kgr_test_modpatch_fn,
			 "kgr_test_mod:kgr_test_mod_fn", 0);

static struct kgr_patch patch = {
	.patches = {
		KGR_PATCH(kgr_test_mod_fn),
		KGR_PATCH_END
	}
};

static int __init kgr_test_modpatch_init(void)
{
	return kgr_start_patching(&patch);
}
module_init(kgr_test_modpatch_init);

static void __exit kgr_test_modpatch_exit(void)
{
}
module_exit(kgr_test_modpatch_exit);
MODULE_DESCRIPTION("kGraft test patch of a function of kgr_test_mod");
MODULE_LICENSE("GPL");
