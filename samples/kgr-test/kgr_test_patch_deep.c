// SPDX-License-Identifier: GPL-2.0
/*
 * kgr_test_patch_deep -- one kGraft patch of two functions of
 * kgr_test_proc: kgr_test_deep(), which has a kthread safe point in
 * its middle, and kgr_test_deep_inner(), which it calls after that point.
 * The new kgr_test_deep() reports new versions for both.
 */
#include <linux/kgr.h>
#include <linux/module.h>

#include "kgr_test.h"

static noinline int kgr_test_deep_new(int *inner)
{
	/* as the old one, so that the kthread does not spin */
	schedule_timeout_interruptible(HZ / 10);
	*inner = KGR_TEST_NEW;
	return KGR_TEST_NEW;
}
KGR_PATCHED_FUNCTION(patch, kgr_test_deep, kgr_test_deep_new);

static noinline int kgr_test_deep_inner_new(void)
{
	return KGR_TEST_NEW;
}
KGR_PATCHED_FUNCTION(patch, kgr_test_deep_inner, kgr_test_deep_inner_new);

static struct kgr_patch patch = {
	.patches = {
		KGR_PATCH(kgr_test_deep),
		KGR_PATCH(kgr_test_deep_inner),
		KGR_PATCH_END
	}
};

static int __init kgr_test_patch_deep_init(void)
{
	return kgr_start_patching(&patch);
}
module_init(kgr_test_patch_deep_init);
MODULE_DESCRIPTION("kGraft test patch of a function with a safe point inside");
MODULE_LICENSE("GPL");
