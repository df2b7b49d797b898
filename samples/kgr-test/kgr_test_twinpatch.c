// SPDX-License-Identifier: GPL-2.0
/*
 * kgr_test_twinpatch -- patch the second kgr_test_twin_fn() in kallsyms'
 * order (of kgr_test_twin_a and kgr_test_twin_b, whichever is second),
 * named without its module: the new one returns 2.
 */
#include <linux/kgr.h>
#include <linux/module.h>

#include "kgr_test.h"

static noinline int kgr_test_twin_new(void)
{
	return KGR_TEST_NEW;
}
KGR_PATCHED_FUNCTION_POS(patch, kgr_test_twin_fn, kgr_test_twin_new,
			 "kgr_test_twin_fn", 2);

static struct kgr_patch patch = {
	.patches = {
		KGR_PATCH(kgr_test_twin_fn),
		KGR_PATCH_END
	}
};

static int __init kgr_test_twinpatch_init(void)
{
	return kgr_start_patching(&patch);
}
module_init(kgr_test_twinpatch_init);

/* an exit, so that the module can be removed after its revert */
static void __exit kgr_test_twinpatch_exit(void)
{
}
module_exit(kgr_test_twinpatch_exit);
MODULE_DESCRIPTION("kGraft test patch naming a function by its position among modules");
MODULE_LICENSE("GPL");
