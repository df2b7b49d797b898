// SPDX-License-Identifier: GPL-2.0
/*
 * kgr_test_slowexit -- make one task slow on its way back to user mode:
 * a kprobe on kgr_task_cross(), where a marked task crosses as it leaves
 * the kernel, busy-waits 'ms' milliseconds (800 unless set) the next time
 * the task whose pid is written to 'pid' passes there, then forgets it.
 * A task nudged out of a sleep has already written back what its call
 * writes back, and restarts the call after this point: the delay shows
 * whether the restart depends on when it happens. 'hits' counts the
 * delays.
 */
#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/sched.h>

static int pid;
module_param(pid, int, 0600);
MODULE_PARM_DESC(pid, "the task to delay once, at its next crossing");

static unsigned int ms = 800;
module_param(ms, uint, 0600);
MODULE_PARM_DESC(ms, "how long to delay it");

static atomic_t hits = ATOMIC_INIT(0);
module_param_named(hits, hits.counter, int, 0400);
MODULE_PARM_DESC(hits, "delays made");

static int kgr_test_slowexit_pre(struct kprobe *p, struct pt_regs *regs)
{
	int want = READ_ONCE(pid);

	if (!want || current->pid != want || cmpxchg(&pid, want, 0) != want)
		return 0;
	mdelay(READ_ONCE(ms));
	atomic_inc(&hits);
	return 0;
}

static struct kprobe kgr_test_slowexit_kp = {
	.symbol_name = "kgr_task_cross",
	.pre_handler = kgr_test_slowexit_pre,
};

static int __init kgr_test_slowexit_init(void)
{
	return register_kprobe(&kgr_test_slowexit_kp);
}

static void __exit kgr_test_slowexit_exit(void)
{
	unregister_kprobe(&kgr_test_slowexit_kp);
}

module_init(kgr_test_slowexit_init);
module_exit(kgr_test_slowexit_exit);
MODULE_DESCRIPTION("delay one task as it crosses, for the kGraft tests");
MODULE_LICENSE("GPL");
