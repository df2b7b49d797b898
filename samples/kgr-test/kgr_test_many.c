// SPDX-License-Identifier: GPL-2.0
/*
 * kgr_test_many -- 1024 functions for one patch (kgr_test_many_patch):
 * kgr_test_many_fn_0000() ... kgr_test_many_fn_1777() (see
 * kgr_test_many.h for the names), each returning 1. /proc/kgr_test_many:
 * read, "S\n", the sum of one call of each (1024 unpatched, 2048 patched).
 */
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>

#include "kgr_test_many.h"

#define KGR_TEST_MANY_FN(n)						\
	noinline int kgr_test_many_fn_ ## n(void)			\
	{								\
		/* not merged with another: each has its own constant */ \
		asm volatile("" : : "i" (0 ## n));			\
		return 1;						\
	}
KGR_TEST_MANY(KGR_TEST_MANY_FN)

static int kgr_test_many_show(struct seq_file *m, void *v)
{
	int sum = 0;

#define KGR_TEST_MANY_CALL(n)	sum += kgr_test_many_fn_ ## n();
	KGR_TEST_MANY(KGR_TEST_MANY_CALL)
	seq_printf(m, "%d\n", sum);
	return 0;
}

static int __init kgr_test_many_init(void)
{
	return proc_create_single("kgr_test_many", 0444, NULL,
				  kgr_test_many_show) ? 0 : -ENOMEM;
}
module_init(kgr_test_many_init);

static void __exit kgr_test_many_exit(void)
{
	remove_proc_entry("kgr_test_many", NULL);
}
module_exit(kgr_test_many_exit);
MODULE_DESCRIPTION("kGraft test: 1024 functions for one patch");
MODULE_LICENSE("GPL");
