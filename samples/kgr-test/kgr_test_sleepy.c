// SPDX-License-Identifier: GPL-2.0
/*
 * kgr_test_sleepy -- a patch of kgr_test_fn_force_keep() whose new code a
 * task can be made to sleep in: while the parameter 'hold' is 1, a call
 * of the new function waits inside it (uninterruptibly, in 10-ms naps),
 * counted in 'sleepers'. Such a task holds a revert of the patch for as
 * long as it sleeps; if the revert is forced, the module must stay
 * loaded, or the task would wake up in freed code.
 */
#include <linux/delay.h>
#include <linux/kgr.h>
#include <linux/module.h>

#include "kgr_test.h"

static bool hold;
module_param(hold, bool, 0600);
MODULE_PARM_DESC(hold, "make calls of the new function sleep in it");

static int sleepers;
module_param(sleepers, int, 0400);
MODULE_PARM_DESC(sleepers, "calls asleep in the new function");

static noinline int kgr_test_fn_new_force_keep(void)
{
	if (READ_ONCE(hold)) {
		WRITE_ONCE(sleepers, sleepers + 1);
		while (READ_ONCE(hold))
			msleep(10);
		WRITE_ONCE(sleepers, sleepers - 1);
	}
	return KGR_TEST_NEW;
}
KGR_PATCHED_FUNCTION(patch, kgr_test_fn_force_keep, kgr_test_fn_new_force_keep);

static struct kgr_patch patch = {
	.patches = {
		KGR_PATCH(kgr_test_fn_force_keep),
		KGR_PATCH_END
	}
};

static int __init kgr_test_sleepy_init(void)
{
	return kgr_start_patching(&patch);
}
module_init(kgr_test_sleepy_init);

static void __exit kgr_test_sleepy_exit(void)
{
}
module_exit(kgr_test_sleepy_exit);

MODULE_LICENSE("GPL");
