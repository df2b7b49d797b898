// SPDX-License-Identifier: GPL-2.0
/*
 * kgr_test_klp -- a livepatch (the kernel's own live patching) of
 * kgr_test_fn_coexist_klp() of kgr_test_target_coexist_klp: its version
 * returns 4. For the coexistence test: kGraft and livepatch must not
 * both redirect one function, and whichever comes second is refused
 * cleanly.
 */
#include <linux/kernel.h>
#include <linux/livepatch.h>
#include <linux/module.h>

static noinline int kgr_test_klp_fn_coexist(void)
{
	return 4;
}

static struct klp_func funcs[] = {
	{
		.old_name = "kgr_test_fn_coexist_klp",
		.new_func = kgr_test_klp_fn_coexist,
	},
	{ }
};

static struct klp_object objs[] = {
	{
		.name = "kgr_test_target_coexist_klp",
		.funcs = funcs,
	},
	{ }
};

static struct klp_patch patch = {
	.mod = THIS_MODULE,
	.objs = objs,
};

static int __init kgr_test_klp_init(void)
{
	return klp_enable_patch(&patch);
}

static void __exit kgr_test_klp_exit(void)
{
}

module_init(kgr_test_klp_init);
module_exit(kgr_test_klp_exit);
MODULE_DESCRIPTION("livepatch of kgr_test_fn_coexist_klp() for the kGraft coexistence test");
MODULE_LICENSE("GPL");
MODULE_INFO(livepatch, "Y");
