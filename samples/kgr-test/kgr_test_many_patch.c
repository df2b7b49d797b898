// SPDX-License-Identifier: GPL-2.0
/*
 * kgr_test_many_patch -- one patch of the 1024 functions of kgr_test_many
 * (of the first nr=N): each new function returns 2. per_function=1: the
 * patch settles for function-level consistency.
 */
#include <linux/kgr.h>
#include <linux/module.h>

#include "kgr_test_many.h"

KGR_TEST_MANY(KGR_TEST_MANY_NEW)

static struct kgr_patch patch = {
	.patches = {
		KGR_TEST_MANY(KGR_TEST_MANY_ENTRY)
		KGR_PATCH_END
	}
};

/* nr=N: only the first N functions (a cumulative patch's nops on fewer) */
static unsigned int nr = KGR_TEST_MANY_NR;
module_param(nr, uint, 0444);
static bool per_function;
module_param(per_function, bool, 0444);

static int __init kgr_test_many_patch_init(void)
{
	if (!nr || nr > KGR_TEST_MANY_NR)
		return -EINVAL;
	if (nr < KGR_TEST_MANY_NR)
		patch.patches[nr] = KGR_PATCH_END;
	patch.per_function = per_function;
	return kgr_start_patching(&patch);
}
module_init(kgr_test_many_patch_init);

static void __exit kgr_test_many_patch_exit(void)
{
}
module_exit(kgr_test_many_patch_exit);
MODULE_DESCRIPTION("kGraft test: a patch of 1024 functions");
MODULE_LICENSE("GPL");
