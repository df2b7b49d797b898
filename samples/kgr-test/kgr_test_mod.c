// SPDX-License-Identifier: GPL-2.0
/*
 * kgr_test_mod -- a module whose function kGraft patches also when the
 * module is loaded after the patch.
 *
 * kgr_test_mod_fn() returns 1; kgr_test_modpatch makes it return 2,
 * kgr_test_modpatch2 (stacked on it) 3. The module's init calls it once,
 * before anything else can. /proc/kgr_test_mod/:
 *
 *   version  read: "V\n", from one call
 *   init     read: "V\n", what the call in the module's init returned
 */
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>

static int kgr_test_mod_init_version;
static struct proc_dir_entry *kgr_test_mod_dir;

noinline int kgr_test_mod_fn(void)
{
	/* not folded into its callers, and not merged with another */
	asm volatile("");
	return 1;
}

static int kgr_test_mod_version_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%d\n", kgr_test_mod_fn());
	return 0;
}

static int kgr_test_mod_init_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%d\n", kgr_test_mod_init_version);
	return 0;
}

static int __init kgr_test_mod_init(void)
{
	kgr_test_mod_init_version = kgr_test_mod_fn();
	kgr_test_mod_dir = proc_mkdir("kgr_test_mod", NULL);
	if (!kgr_test_mod_dir)
		return -ENOMEM;
	if (!proc_create_single("version", 0444, kgr_test_mod_dir,
				kgr_test_mod_version_show) ||
	    !proc_create_single("init", 0444, kgr_test_mod_dir,
				kgr_test_mod_init_show)) {
		proc_remove(kgr_test_mod_dir);
		return -ENOMEM;
	}
	return 0;
}
module_init(kgr_test_mod_init);

static void __exit kgr_test_mod_exit(void)
{
	proc_remove(kgr_test_mod_dir);
}
module_exit(kgr_test_mod_exit);
MODULE_DESCRIPTION("kGraft test: a module whose function is patched");
MODULE_LICENSE("GPL");
