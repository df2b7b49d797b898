// SPDX-License-Identifier: GPL-2.0
/*
 * kgr_test_kick -- a stand-in for KVM_RUN: /dev/kgr_test_kick, whose
 * ioctl()s stay in the kernel until a signal is pending, then end with
 * EINTR, as KVM_RUN does when its vCPU thread is kicked. The file is
 * registered with kgr_register_ioctl_kick() (unless the parameter
 * 'register' is 0), as KVM registers its vCPU files.
 *
 *   KGR_TEST_KICK_RUN    runs: spins with cond_resched() (a vCPU running
 *                        its guest)
 *   KGR_TEST_KICK_SLEEP  sleeps interruptibly (a halted vCPU)
 *
 * Both return 0 once the parameter 'stop' is set, -EINTR when a signal
 * is pending, -ETIMEDOUT after 60 s (so that a broken test cannot leave
 * a task in the kernel for good). 'inside' counts the calls in progress.
 */
#include <linux/jiffies.h>
#include <linux/kgr.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/sched/signal.h>
#include <linux/wait.h>

#define KGR_TEST_KICK_RUN	0x4b00
#define KGR_TEST_KICK_SLEEP	0x4b01
#define KGR_TEST_KICK_LIMIT	(60 * HZ)

static bool reg = true;
module_param_named(register, reg, bool, 0400);
MODULE_PARM_DESC(register, "register the file with kgr_register_ioctl_kick()");

static bool stop;
module_param(stop, bool, 0600);
MODULE_PARM_DESC(stop, "end the calls in progress, and the next ones at once");

static atomic_t inside = ATOMIC_INIT(0);
module_param_named(inside, inside.counter, int, 0400);
MODULE_PARM_DESC(inside, "calls in progress");

static long kgr_test_kick_run(bool sleep)
{
	unsigned long end = jiffies + KGR_TEST_KICK_LIMIT;

	while (!READ_ONCE(stop)) {
		if (signal_pending(current))
			return -EINTR;
		if (time_after(jiffies, end))
			return -ETIMEDOUT;
		if (sleep) {
			set_current_state(TASK_INTERRUPTIBLE);
			if (!READ_ONCE(stop) && !signal_pending(current))
				schedule_timeout(HZ / 10);
			__set_current_state(TASK_RUNNING);
		} else {
			cpu_relax();
			cond_resched();
		}
	}
	return 0;
}

static long kgr_test_kick_ioctl(struct file *file, unsigned int cmd,
				unsigned long arg)
{
	long ret;

	if (cmd != KGR_TEST_KICK_RUN && cmd != KGR_TEST_KICK_SLEEP)
		return -ENOTTY;
	atomic_inc(&inside);
	ret = kgr_test_kick_run(cmd == KGR_TEST_KICK_SLEEP);
	atomic_dec(&inside);
	return ret;
}

static const struct file_operations kgr_test_kick_fops = {
	.owner = THIS_MODULE,
	.unlocked_ioctl = kgr_test_kick_ioctl,
};

static struct miscdevice kgr_test_kick_dev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "kgr_test_kick",
	.fops = &kgr_test_kick_fops,
};

static int __init kgr_test_kick_init(void)
{
	int ret;

	if (reg) {
		ret = kgr_register_ioctl_kick(&kgr_test_kick_fops);
		if (ret)
			return ret;
	}
	ret = misc_register(&kgr_test_kick_dev);
	if (ret && reg)
		kgr_unregister_ioctl_kick(&kgr_test_kick_fops);
	return ret;
}
module_init(kgr_test_kick_init);

static void __exit kgr_test_kick_exit(void)
{
	misc_deregister(&kgr_test_kick_dev);
	kgr_unregister_ioctl_kick(&kgr_test_kick_fops);
}
module_exit(kgr_test_kick_exit);

MODULE_LICENSE("GPL");
