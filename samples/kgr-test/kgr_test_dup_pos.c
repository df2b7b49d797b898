// SPDX-License-Identifier: GPL-2.0
/*
 * kgr_test_dup_pos -- patch the second kgr_test_dup_fn() of kgr_test_dup
 * (the one of kgr_test_dup_b.c), named with its module and position.
 * kgr_test_dup_pos3 (kgr_test_dup_pos3.c) includes this file with
 * KGR_TEST_DUP_POS 3, a position that does not exist: it must be refused.
 */
#include <linux/kgr.h>
#include <linux/module.h>

#include "kgr_test.h"

#ifndef KGR_TEST_DUP_POS
#define KGR_TEST_DUP_POS	2
#endif

static noinline int kgr_test_dup_pos_new(void)
{
	return KGR_TEST_NEW;
}
KGR_PATCHED_FUNCTION_POS(patch, kgr_test_dup_b, kgr_test_dup_pos_new,
			 "kgr_test_dup:kgr_test_dup_fn", KGR_TEST_DUP_POS);

static struct kgr_patch patch = {
	.patches = {
		KGR_PATCH(kgr_test_dup_b),
		KGR_PATCH_END
	}
};

static int __init kgr_test_dup_pos_init(void)
{
	return kgr_start_patching(&patch);
}
module_init(kgr_test_dup_pos_init);
MODULE_DESCRIPTION("kGraft test patch naming a function by module and position");
MODULE_LICENSE("GPL");
