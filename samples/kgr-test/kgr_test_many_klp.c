// SPDX-License-Identifier: GPL-2.0
/*
 * kgr_test_many_klp -- a livepatch (the kernel's own live patching) of the
 * functions of kgr_test_many, the first nr=N of them (all 1024 by default):
 * each new function returns 2, as kgr_test_many_patch's do. For the
 * benchmark's rows that apply and revert patches of N functions with
 * kGraft and with livepatch in one boot.
 */
#include <linux/kernel.h>
#include <linux/livepatch.h>
#include <linux/module.h>

#include "kgr_test_many.h"

#define KGR_TEST_MANY_KLP_NEW(n)					\
	static noinline int kgr_test_many_klp_ ## n(void)		\
	{								\
		asm volatile("" : : "i" (0 ## n));			\
		return 2;						\
	}
KGR_TEST_MANY(KGR_TEST_MANY_KLP_NEW)

#define KGR_TEST_MANY_KLP_FUNC(n)					\
	{								\
		.old_name = "kgr_test_many_fn_" #n,			\
		.new_func = kgr_test_many_klp_ ## n,			\
	},

static struct klp_func funcs[KGR_TEST_MANY_NR + 1] = {
	KGR_TEST_MANY(KGR_TEST_MANY_KLP_FUNC)
};

static struct klp_object objs[] = {
	{
		.name = "kgr_test_many",
		.funcs = funcs,
	},
	{ }
};

static struct klp_patch patch = {
	.mod = THIS_MODULE,
	.objs = objs,
};

/* nr=N: only the first N functions */
static unsigned int nr = KGR_TEST_MANY_NR;
module_param(nr, uint, 0444);

static int __init kgr_test_many_klp_init(void)
{
	if (!nr || nr > KGR_TEST_MANY_NR)
		return -EINVAL;
	/* the array ends with an empty entry */
	memset(&funcs[nr], 0, sizeof(funcs[nr]));
	return klp_enable_patch(&patch);
}

static void __exit kgr_test_many_klp_exit(void)
{
}

module_init(kgr_test_many_klp_init);
module_exit(kgr_test_many_klp_exit);
MODULE_DESCRIPTION("livepatch of the functions of kgr_test_many, for the benchmark");
MODULE_LICENSE("GPL");
MODULE_INFO(livepatch, "Y");
