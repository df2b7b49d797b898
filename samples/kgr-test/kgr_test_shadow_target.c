// SPDX-License-Identifier: GPL-2.0
/*
 * kgr_test_shadow_target -- the function that the shadow variable test
 * patches: kgr_test_shadow_fn() returns 0. Reading the parameter 'call'
 * calls it once and shows what it returned.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sysfs.h>

noinline int kgr_test_shadow_fn(void)
{
	return 0;
}

static int kgr_test_shadow_call(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", kgr_test_shadow_fn());
}

static const struct kernel_param_ops kgr_test_shadow_call_ops = {
	.get = kgr_test_shadow_call,
};
module_param_cb(call, &kgr_test_shadow_call_ops, NULL, 0444);
MODULE_PARM_DESC(call, "read: call kgr_test_shadow_fn() once, show what it returned");

MODULE_LICENSE("GPL");
