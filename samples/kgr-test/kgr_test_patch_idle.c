// SPDX-License-Identifier: GPL-2.0
/*
 * kgr_test_patch_idle -- one kGraft patch of the two calls that bracket
 * each iteration of the idle loop (do_idle()): arch_cpu_idle_exit()
 * first, then arch_cpu_idle_enter(). The idle tasks call them in task
 * context. Each iteration must run both old or both new:
 *
 *   the new arch_cpu_idle_enter() marks the CPU's iteration as new,
 *   the new arch_cpu_idle_exit() counts it as mixed when the iteration
 *   was not entered through the new enter, and the new enter counts the
 *   previous iteration as mixed when it was entered through the new
 *   enter but not left through the new exit.
 *
 * /proc/kgr_test_idle: "iterations=N mixed=M" (the new code's count).
 *
 * The new arch_cpu_idle_enter() leaves out x86's tsc_verify_tsc_adjust()
 * (not exported; it only checks the TSC_ADJUST MSR), which a test guest
 * does not miss.
 */
#include <linux/kgr.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>

#include <asm/nmi.h>

static DEFINE_PER_CPU(bool, kgr_test_idle_in_new);
static atomic_long_t kgr_test_idle_iterations, kgr_test_idle_mixed;

static noinline void kgr_test_idle_enter_new(void)
{
	if (this_cpu_read(kgr_test_idle_in_new))
		atomic_long_inc(&kgr_test_idle_mixed);
	this_cpu_write(kgr_test_idle_in_new, true);
	local_touch_nmi();
}

static noinline void kgr_test_idle_exit_new(void)
{
	if (!this_cpu_read(kgr_test_idle_in_new))
		atomic_long_inc(&kgr_test_idle_mixed);
	this_cpu_write(kgr_test_idle_in_new, false);
	atomic_long_inc(&kgr_test_idle_iterations);
}

KGR_PATCHED_FUNCTION(patch, arch_cpu_idle_exit, kgr_test_idle_exit_new);
KGR_PATCHED_FUNCTION(patch, arch_cpu_idle_enter, kgr_test_idle_enter_new);

static struct kgr_patch patch = {
	.patches = {
		KGR_PATCH(arch_cpu_idle_exit),
		KGR_PATCH(arch_cpu_idle_enter),
		KGR_PATCH_END
	}
};

static int kgr_test_idle_show(struct seq_file *m, void *v)
{
	seq_printf(m, "iterations=%ld mixed=%ld\n",
		   atomic_long_read(&kgr_test_idle_iterations),
		   atomic_long_read(&kgr_test_idle_mixed));
	return 0;
}

static int __init kgr_test_patch_idle_init(void)
{
	struct proc_dir_entry *pde;
	int ret;

	pde = proc_create_single("kgr_test_idle", 0444, NULL, kgr_test_idle_show);
	if (!pde)
		return -ENOMEM;
	ret = kgr_start_patching(&patch);
	if (ret)
		proc_remove(pde);
	return ret;
}
module_init(kgr_test_patch_idle_init);
MODULE_DESCRIPTION("kGraft test patch of the idle loop's enter and exit calls");
MODULE_LICENSE("GPL");
