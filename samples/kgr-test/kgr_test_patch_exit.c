// SPDX-License-Identifier: GPL-2.0
/*
 * kgr_test_patch_exit -- kgr_test_patch for kgr_test_fn_23(), with a
 * module_exit, so that the module loader would let it go: kGraft must
 * keep it (its ftrace_ops and replacement stay in use while patched).
 */
#define KGR_TEST_FN 23
#include "kgr_test_patch.c"

static void __exit kgr_test_patch_exit(void)
{
}
module_exit(kgr_test_patch_exit);
