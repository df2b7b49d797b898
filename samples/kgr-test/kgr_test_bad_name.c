// SPDX-License-Identifier: GPL-2.0
/*
 * kgr_test_bad_name -- a kGraft patch that must be refused: its first
 * function, kgr_test_fn_badname(), exists, its second does not. Loading
 * must fail with a clear message and leave kgr_test_fn_badname()
 * unpatched.
 */
#include <linux/kgr.h>
#include <linux/module.h>

#include "kgr_test.h"

static noinline int kgr_test_bad_name_fn(void)
{
	return KGR_TEST_NEW;
}
KGR_PATCHED_FUNCTION(patch, kgr_test_fn_badname, kgr_test_bad_name_fn);

static noinline int kgr_test_bad_name_missing(void)
{
	return KGR_TEST_NEW;
}
KGR_PATCHED_FUNCTION(patch, kgr_test_no_such_function, kgr_test_bad_name_missing);

static struct kgr_patch patch = {
	.patches = {
		KGR_PATCH(kgr_test_fn_badname),
		KGR_PATCH(kgr_test_no_such_function),
		KGR_PATCH_END
	}
};

static int __init kgr_test_bad_name_init(void)
{
	return kgr_start_patching(&patch);
}
module_init(kgr_test_bad_name_init);
MODULE_DESCRIPTION("kGraft test patch naming a function that does not exist");
MODULE_LICENSE("GPL");
