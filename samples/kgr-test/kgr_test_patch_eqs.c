// SPDX-License-Identifier: GPL-2.0
/*
 * kgr_test_patch_eqs -- a kGraft patch of default_idle(), the x86 idle
 * routine of a guest without a cpuidle driver: do_idle() calls it between
 * ct_idle_enter() and ct_idle_exit(), where RCU does not watch the CPU.
 * kGraft's handler and trampolines run there too, and what they read must
 * outlive them although synchronize_rcu() does not wait for such a CPU.
 *
 * The new default_idle() counts its calls ('calls') and halts as the old
 * one does, without the CPU buffer clearing of the MDS mitigation (not
 * exported), which a test guest does not miss. kgr_test_patch_eqs2 is the
 * same patch again, to be stacked on this one.
 */
#include <linux/kgr.h>
#include <linux/module.h>
#include <linux/atomic.h>

static atomic_t calls = ATOMIC_INIT(0);
module_param_named(calls, calls.counter, int, 0400);
MODULE_PARM_DESC(calls, "calls of the new default_idle()");

static noinline void kgr_test_default_idle_new(void)
{
	atomic_inc(&calls);
	/* enable interrupts and halt until one comes, as safe_halt() */
	asm volatile("sti; hlt" : : : "memory");
}

KGR_PATCHED_FUNCTION(patch, default_idle, kgr_test_default_idle_new);

static struct kgr_patch patch = {
	.patches = {
		KGR_PATCH(default_idle),
		KGR_PATCH_END
	}
};

static int __init kgr_test_patch_eqs_init(void)
{
	return kgr_start_patching(&patch);
}
module_init(kgr_test_patch_eqs_init);

/* only reached after the revert: the core holds the module until then */
static void __exit kgr_test_patch_eqs_exit(void)
{
}
module_exit(kgr_test_patch_eqs_exit);
MODULE_DESCRIPTION("kGraft test patch of default_idle(), run where RCU does not watch");
MODULE_LICENSE("GPL");
