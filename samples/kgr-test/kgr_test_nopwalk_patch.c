// SPDX-License-Identifier: GPL-2.0
/*
 * kgr_test_nopwalk_patch -- a cumulative patch (replace_all) of
 * kgr_test_nopwalk_fn() of the module kgr_test_nopwalk: its transition
 * takes back every function patched before it with a nop, and lasts as
 * long as that module's kthread stays in the old function.
 */
#include <linux/kgr.h>
#include <linux/module.h>

static noinline int kgr_test_nopwalk_new(void)
{
	return 2;
}
KGR_PATCHED_FUNCTION_POS(patch, kgr_test_nopwalk_fn, kgr_test_nopwalk_new,
			 "kgr_test_nopwalk:kgr_test_nopwalk_fn", 0);

static struct kgr_patch patch = {
	.replace_all = true,
	.patches = {
		KGR_PATCH(kgr_test_nopwalk_fn),
		KGR_PATCH_END
	}
};

static int __init kgr_test_nopwalk_patch_init(void)
{
	return kgr_start_patching(&patch);
}
module_init(kgr_test_nopwalk_patch_init);

static void __exit kgr_test_nopwalk_patch_exit(void)
{
}
module_exit(kgr_test_nopwalk_patch_exit);
MODULE_DESCRIPTION("kGraft test: a replace_all patch of kgr_test_nopwalk_fn()");
MODULE_LICENSE("GPL");
