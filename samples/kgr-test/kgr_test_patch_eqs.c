// SPDX-License-Identifier: GPL-2.0
/*
 * kgr_test_patch_eqs -- a kGraft patch of arch_cpu_idle(), which the idle
 * loop of a kernel without a cpuidle driver calls between ct_idle_enter()
 * and ct_idle_exit() (default_idle_call()), where RCU does not watch the
 * CPU. kGraft's handler and trampolines run there too, and what they read
 * must outlive them although synchronize_rcu() does not wait for such a
 * CPU.
 *
 * The new arch_cpu_idle() counts its calls ('calls') and halts, as x86's
 * default_idle() does, instead of calling the idle routine that the
 * kernel chose (a static pointer; in these QEMU guests the AMD E400 aware
 * routine, which halts the same way on a CPU without that erratum), and
 * without the CPU buffer clearing of the MDS mitigation, which a test
 * guest does not miss. kgr_test_patch_eqs2 is the same patch again, to be
 * stacked on this one.
 */
#include <linux/kgr.h>
#include <linux/module.h>
#include <linux/atomic.h>

static atomic_t calls = ATOMIC_INIT(0);
module_param_named(calls, calls.counter, int, 0400);
MODULE_PARM_DESC(calls, "calls of the new arch_cpu_idle()");

static noinline void kgr_test_arch_cpu_idle_new(void)
{
	atomic_inc(&calls);
	/* enable interrupts and halt until one comes, as safe_halt() */
	asm volatile("sti; hlt" : : : "memory");
}

KGR_PATCHED_FUNCTION(patch, arch_cpu_idle, kgr_test_arch_cpu_idle_new);

static struct kgr_patch patch = {
	.patches = {
		KGR_PATCH(arch_cpu_idle),
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
MODULE_DESCRIPTION("kGraft test patch of arch_cpu_idle(), run where RCU does not watch");
MODULE_LICENSE("GPL");
