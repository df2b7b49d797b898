// SPDX-License-Identifier: GPL-2.0
/*
 * kgr_test_newdup -- a kGraft patch of kgr_test_fn_symbols() whose
 * replacement, kgr_test_newdup_new() of kgr_test_newdup_b.c, shares its
 * name with a static function of kgr_test_newdup_a.c (this file, linked
 * first) that returns 3. kGraft must send the callers to the replacement
 * the patch gives (by its address), not to the first function of that
 * name.
 */
#include <linux/module.h>

#include "kgr_test.h"

int kgr_test_newdup_start(void);

/* not the replacement: a namesake, linked before it */
static noinline int kgr_test_newdup_new(void)
{
	return 3;
}

static int __init kgr_test_newdup_init(void)
{
	pr_info("kgr_test_newdup: the namesake returns %d\n",
		kgr_test_newdup_new());
	return kgr_test_newdup_start();
}
module_init(kgr_test_newdup_init);
MODULE_DESCRIPTION("kGraft test patch whose replacement has a namesake");
MODULE_LICENSE("GPL");
