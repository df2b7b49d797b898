// SPDX-License-Identifier: GPL-2.0
/*
 * kgr_test_modbad -- a kGraft patch of a function that the module
 * kgr_test_mod does not have. Loaded while kgr_test_mod is not, it is
 * applied and waits; kgr_test_mod then does not load, unless
 * /sys/kernel/kgraft/force_load_module is 1.
 */
#include <linux/kgr.h>
#include <linux/module.h>

static noinline int kgr_test_modbad_fn(void)
{
	return 4;
}
KGR_PATCHED_FUNCTION_POS(patch, kgr_test_mod_nosuch, kgr_test_modbad_fn,
			 "kgr_test_mod:kgr_test_mod_nosuch", 0);

static struct kgr_patch patch = {
	.patches = {
		KGR_PATCH(kgr_test_mod_nosuch),
		KGR_PATCH_END
	}
};

static int __init kgr_test_modbad_init(void)
{
	return kgr_start_patching(&patch);
}
module_init(kgr_test_modbad_init);

static void __exit kgr_test_modbad_exit(void)
{
}
module_exit(kgr_test_modbad_exit);
MODULE_DESCRIPTION("kGraft test patch of a function kgr_test_mod does not have");
MODULE_LICENSE("GPL");
