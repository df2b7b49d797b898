// SPDX-License-Identifier: GPL-2.0
/*
 * kgr_test_target_NAME -- the function of one test scenario:
 * kgr_test_fn_NAME() returns KGR_TEST_OLD until kgr_test_patch_NAME (or
 * a patch of the scenario's own) replaces it. It is exported for
 * kgr_test_proc, which calls it when told to by a write of NAME to
 * /proc/kgr_test/select. build.sh generates one source per line of
 * scenarios.list: "#define KGR_TEST_SCN NAME" followed by an #include of
 * this file.
 */
#include <linux/export.h>
#include <linux/module.h>
#include <linux/stringify.h>

#include "kgr_test.h"

#ifndef KGR_TEST_SCN
#error "KGR_TEST_SCN must name the scenario"
#endif

noinline int KGR_TEST_OLD_FN(void)
{
	return KGR_TEST_OLD;
}
EXPORT_SYMBOL_GPL(KGR_TEST_OLD_FN);

MODULE_DESCRIPTION("kGraft test target kgr_test_fn_" __stringify(KGR_TEST_SCN) "()");
MODULE_LICENSE("GPL");
