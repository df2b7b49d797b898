// SPDX-License-Identifier: GPL-2.0
/*
 * kgr_test_dup -- a target module with two static functions of the same
 * name, kgr_test_dup_fn(), one in each of its two files (kgr_test_dup_a.c
 * first, kgr_test_dup_b.c second), for the tests of ambiguous symbols:
 * a patch that names kgr_test_dup_fn without a position must be refused;
 * with position 1 or 2 it patches the one of that file.
 *
 * /proc/kgr_test_dup/a and .../b: "V\n", one call of that file's function.
 */
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>

#include "kgr_test.h"

static unsigned long kgr_test_dup_calls_a;

static noinline int kgr_test_dup_fn(void)
{
	WRITE_ONCE(kgr_test_dup_calls_a, READ_ONCE(kgr_test_dup_calls_a) + 1);
	return KGR_TEST_OLD;
}

int kgr_test_dup_b_call(void);

static int kgr_test_dup_show(struct seq_file *m, void *v)
{
	int (*fn)(void) = m->private;

	seq_printf(m, "%d\n", fn());
	return 0;
}

static struct proc_dir_entry *kgr_test_dup_dir;

static int __init kgr_test_dup_init(void)
{
	kgr_test_dup_dir = proc_mkdir("kgr_test_dup", NULL);
	if (!kgr_test_dup_dir)
		return -ENOMEM;
	if (!proc_create_single_data("a", 0444, kgr_test_dup_dir,
				     kgr_test_dup_show, kgr_test_dup_fn) ||
	    !proc_create_single_data("b", 0444, kgr_test_dup_dir,
				     kgr_test_dup_show, kgr_test_dup_b_call)) {
		proc_remove(kgr_test_dup_dir);
		return -ENOMEM;
	}
	return 0;
}

static void __exit kgr_test_dup_exit(void)
{
	proc_remove(kgr_test_dup_dir);
}

module_init(kgr_test_dup_init);
module_exit(kgr_test_dup_exit);
MODULE_DESCRIPTION("kGraft test target with two functions of one name");
MODULE_LICENSE("GPL");
