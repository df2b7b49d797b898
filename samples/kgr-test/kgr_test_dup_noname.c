// SPDX-License-Identifier: GPL-2.0
/*
 * kgr_test_dup_noname -- a kGraft patch that must be refused: it names
 * kgr_test_dup_fn, of which kgr_test_dup has two (one per file), without
 * saying which. Loading must fail with a message that says so, and leave
 * both unpatched.
 */
#include <linux/kgr.h>
#include <linux/module.h>

#include "kgr_test.h"

static noinline int kgr_test_dup_noname_new(void)
{
	return KGR_TEST_NEW;
}
KGR_PATCHED_FUNCTION(patch, kgr_test_dup_fn, kgr_test_dup_noname_new);

static struct kgr_patch patch = {
	.patches = {
		KGR_PATCH(kgr_test_dup_fn),
		KGR_PATCH_END
	}
};

static int __init kgr_test_dup_noname_init(void)
{
	return kgr_start_patching(&patch);
}
module_init(kgr_test_dup_noname_init);
MODULE_DESCRIPTION("kGraft test patch naming an ambiguous function");
MODULE_LICENSE("GPL");
