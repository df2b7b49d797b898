// SPDX-License-Identifier: GPL-2.0
/*
 * kgr_test_twin_a, kgr_test_twin_b -- two modules, each with a function
 * called kgr_test_twin_fn(), returning 1. kgr_test_twinpatch names it
 * without a module, by its position among the two in kallsyms' order,
 * which changes when a module is loaded again. /proc/kgr_test_twin_X
 * reads "V\n", from one call of the module's kgr_test_twin_fn().
 *
 * kgr_test_twin_a.c and kgr_test_twin_b.c include this file.
 */
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>

noinline int kgr_test_twin_fn(void)
{
	/* not folded into its callers, and not merged with another */
	asm volatile("");
	return 1;
}

static int kgr_test_twin_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%d\n", kgr_test_twin_fn());
	return 0;
}

static int __init kgr_test_twin_init(void)
{
	if (!proc_create_single(KBUILD_MODNAME, 0444, NULL, kgr_test_twin_show))
		return -ENOMEM;
	return 0;
}
module_init(kgr_test_twin_init);

static void __exit kgr_test_twin_exit(void)
{
	remove_proc_entry(KBUILD_MODNAME, NULL);
}
module_exit(kgr_test_twin_exit);
MODULE_DESCRIPTION("kGraft test: a module with a function that another module has too");
MODULE_LICENSE("GPL");
