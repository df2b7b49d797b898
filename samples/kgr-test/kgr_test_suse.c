// SPDX-License-Identifier: GPL-2.0
/*
 * kgr_test_suse -- a kGraft patch written to the API SUSE shipped:
 * struct kgr_patch with its name and owner, entries made by
 * KGR_PATCH(name, new), KGR_PATCH_OBJ() and KGR_PATCH_OBJPOS() with no
 * declaration of their own, kgr_patch_kernel() and kgr_patch_remove().
 * It patches kgr_test_fn_api() of kgr_test_target_api, kgr_test_mod_fn() of
 * kgr_test_mod and the first kgr_test_dup_fn() of kgr_test_dup; each
 * version returns 2. Its directory is /sys/kernel/kgraft/kgr_test_suse_api.
 */
#include <linux/kgr.h>
#include <linux/module.h>

#include "kgr_test.h"

static noinline int kgr_test_suse_fn_api(void)
{
	return KGR_TEST_NEW;
}

static noinline int kgr_test_suse_mod_fn(void)
{
	return KGR_TEST_NEW;
}

static noinline int kgr_test_suse_dup_fn(void)
{
	return KGR_TEST_NEW;
}

static struct kgr_patch patch = {
	.name = "kgr_test_suse_api",
	.owner = THIS_MODULE,
	.patches = {
		KGR_PATCH(kgr_test_fn_api, kgr_test_suse_fn_api),
		KGR_PATCH_OBJ(kgr_test_mod_fn, kgr_test_suse_mod_fn,
			      "kgr_test_mod"),
		KGR_PATCH_OBJPOS(kgr_test_dup_fn, kgr_test_suse_dup_fn,
				 "kgr_test_dup", 1),
		KGR_PATCH_END
	}
};

static int __init kgr_test_suse_init(void)
{
	return kgr_patch_kernel(&patch);
}
module_init(kgr_test_suse_init);

static void __exit kgr_test_suse_exit(void)
{
	kgr_patch_remove(&patch);
}
module_exit(kgr_test_suse_exit);
MODULE_DESCRIPTION("kGraft test patch written to SUSE's API");
MODULE_LICENSE("GPL");
