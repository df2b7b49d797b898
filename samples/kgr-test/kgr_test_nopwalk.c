// SPDX-License-Identifier: GPL-2.0
/*
 * kgr_test_nopwalk -- a kthread that checks its stack against the nops of
 * a replace_all patch in its transition, while a module that goes takes
 * one of them off.
 *
 * The kthread "kgr_test_walker" loops in kgr_test_nopwalk_fn() until the
 * parameter 'stop' is set, passing a safe point every millisecond. While
 * kgr_test_nopwalk_patch (replace_all, a patch of that function) is in its
 * transition, the kthread never crosses, as the old function is on its
 * stack, and each of its safe points compares its stack with every
 * function of the patch and every nop (kgr_addr_patched()).
 *
 * 'hold' set arms two probes. One on kgr_func_has_addr() notes which
 * kgr_loc_caches the walker compares with, and the function (struct
 * kgr_func) each belongs to. One on kmem_cache_free() (both come from
 * slab caches of kGraft's own) catches the free of such a
 * function, its last patch taken off (an rmmod of its module): it stops
 * there until the walker has begun to compare with that patch again, a
 * nop, and the walker waits inside that comparison until the nop is
 * freed too, or for 500 ms. kGraft may free the nop only after a grace
 * period, that is after the walker is done with it: 'freed_under' counts
 * the nops freed while the walker was comparing with them (and KASAN
 * reports what the walker reads next). 'caught' counts the frees that
 * found the walker comparing with the nop, so that the test knows that
 * the window was there.
 *
 * 'timing' set arms a kretprobe on kgr_task_cross() that times the
 * walker's safe points, with preemption off, stack check and all:
 * 'cross_calls', 'cross_ns_sum', 'cross_ns_max'.
 */
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kgr.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/timekeeping.h>

/* struct kgr_loc_caches: its ->func, the function it belongs to */
#include "kgr_internal.h"

static bool stop;
module_param(stop, bool, 0600);
MODULE_PARM_DESC(stop, "let the walker leave kgr_test_nopwalk_fn()");

static int caught;
module_param(caught, int, 0400);
MODULE_PARM_DESC(caught, "frees of a function that found the walker comparing with its nop");

static int freed_under;
module_param(freed_under, int, 0400);
MODULE_PARM_DESC(freed_under, "nops freed while the walker compared with them");

static struct task_struct *walker;

static unsigned long cross_calls, cross_ns_sum, cross_ns_max;
module_param(cross_calls, ulong, 0400);
MODULE_PARM_DESC(cross_calls, "the walker's timed calls of kgr_task_cross()");
module_param(cross_ns_sum, ulong, 0400);
MODULE_PARM_DESC(cross_ns_sum, "their time in all, in ns");
module_param(cross_ns_max, ulong, 0400);
MODULE_PARM_DESC(cross_ns_max, "the longest of them, in ns");

/*
 * What the walker compared with (kgr_func_has_addr()'s first argument):
 * room for a nop on every function a whole run of the tests leaves patched.
 */
#define KGR_TEST_SEEN	256
static const struct kgr_loc_caches *seen[KGR_TEST_SEEN];
static const struct kgr_func *seen_func[KGR_TEST_SEEN];
static unsigned int nseen;

/* the nop the walker is to wait in, the one whose free is watched */
static const struct kgr_loc_caches *park_at, *watch;
static bool parked, watch_freed;

noinline int kgr_test_nopwalk_fn(void)
{
	while (!READ_ONCE(stop) && !kthread_should_stop()) {
		kgr_task_safe(current);
		usleep_range(1000, 2000);
	}
	return 1;
}

static int kgr_test_walker_fn(void *unused)
{
	kgr_test_nopwalk_fn();
	while (!kthread_should_stop())
		msleep(20);
	return 0;
}

#ifdef CONFIG_KRETPROBES
static void kgr_test_seen_add(const struct kgr_loc_caches *c)
{
	unsigned int i, n = nseen;

	for (i = 0; i < n; i++)
		if (seen[i] == c)
			return;
	if (n == KGR_TEST_SEEN)
		return;
	seen[n] = c;
	seen_func[n] = READ_ONCE(c->func);
	smp_store_release(&nseen, n + 1);
}

/* the walker compares with @c (preemption off) */
static int kgr_test_has_addr_pre(struct kprobe *kp, struct pt_regs *regs)
{
	const struct kgr_loc_caches *c = (void *)regs->di;
	unsigned long end;

	if (current != walker)
		return 0;
	kgr_test_seen_add(c);
	if (c != READ_ONCE(park_at))
		return 0;
	/* once: wait here until the nop is freed, or for 500 ms */
	WRITE_ONCE(park_at, NULL);
	WRITE_ONCE(parked, true);
	end = jiffies + HZ / 2;
	while (!READ_ONCE(watch_freed) && time_before(jiffies, end))
		cpu_relax();
	if (READ_ONCE(watch_freed))
		freed_under++;
	WRITE_ONCE(parked, false);
	return 0;
}

static struct kprobe has_addr_kp = {
	.symbol_name = "kgr_func_has_addr",
	.pre_handler = kgr_test_has_addr_pre,
};

/*
 * kmem_cache_free(cache, @obj): the free of a function the walker
 * compares a nop of waits until the walker waits in that comparison; the
 * nop's own free is watched (its return handler runs). Any other free
 * goes on at once.
 */
static int kgr_test_free_entry(struct kretprobe_instance *ri,
			       struct pt_regs *regs)
{
	const void *obj = (void *)regs->si;
	unsigned int i, n = smp_load_acquire(&nseen);
	unsigned long end;

	if (!obj || current == walker)
		return 1;
	if (obj == READ_ONCE(watch))
		return 0;
	for (i = 0; i < n && seen_func[i] != obj; i++)
		;
	if (i == n || READ_ONCE(watch))
		return 1;
	WRITE_ONCE(watch, seen[i]);
	WRITE_ONCE(park_at, seen[i]);
	/* preemption is off here: a busy wait, the walker runs elsewhere */
	end = jiffies + 2 * HZ;
	while (!READ_ONCE(parked) && time_before(jiffies, end))
		cpu_relax();
	if (READ_ONCE(parked))
		caught++;
	WRITE_ONCE(park_at, NULL);
	return 1;
}

static int kgr_test_free_ret(struct kretprobe_instance *ri,
			     struct pt_regs *regs)
{
	WRITE_ONCE(watch_freed, true);
	return 0;
}

static struct kretprobe free_krp = {
	.kp.symbol_name = "kmem_cache_free",
	.entry_handler = kgr_test_free_entry,
	.handler = kgr_test_free_ret,
	.maxactive = 8,
};

static int kgr_test_cross_entry(struct kretprobe_instance *ri,
				struct pt_regs *regs)
{
	if (current != walker)
		return 1;
	*(u64 *)ri->data = ktime_get_ns();
	return 0;
}

static int kgr_test_cross_ret(struct kretprobe_instance *ri,
			      struct pt_regs *regs)
{
	u64 ns = ktime_get_ns() - *(u64 *)ri->data;

	/* the walker only: one at a time */
	cross_calls++;
	cross_ns_sum += ns;
	if (ns > cross_ns_max)
		cross_ns_max = ns;
	return 0;
}

static struct kretprobe cross_krp = {
	.kp.symbol_name = "kgr_task_cross",
	.entry_handler = kgr_test_cross_entry,
	.handler = kgr_test_cross_ret,
	.data_size = sizeof(u64),
	.maxactive = 2,
};

static bool timed;

static int timing_set(const char *val, const struct kernel_param *kp)
{
	bool on;
	int ret = kstrtobool(val, &on);

	if (ret || on == timed)
		return ret;
	if (!on) {
		unregister_kretprobe(&cross_krp);
		timed = false;
		return 0;
	}
	ret = register_kretprobe(&cross_krp);
	if (!ret)
		timed = true;
	return ret;
}

static bool armed;

static int hold_set(const char *val, const struct kernel_param *kp)
{
	bool on;
	int ret = kstrtobool(val, &on);

	if (ret)
		return ret;
	if (on == armed)
		return 0;
	if (!on) {
		unregister_kretprobe(&free_krp);
		unregister_kprobe(&has_addr_kp);
		armed = false;
		return 0;
	}
	ret = register_kprobe(&has_addr_kp);
	if (ret)
		return ret;
	ret = register_kretprobe(&free_krp);
	if (ret) {
		unregister_kprobe(&has_addr_kp);
		return ret;
	}
	armed = true;
	return 0;
}
#else
static bool armed, timed;

static int hold_set(const char *val, const struct kernel_param *kp)
{
	return -EOPNOTSUPP;
}

static int timing_set(const char *val, const struct kernel_param *kp)
{
	return -EOPNOTSUPP;
}
#endif /* CONFIG_KRETPROBES */

static int timing_get(char *buf, const struct kernel_param *kp)
{
	return sprintf(buf, "%d\n", timed);
}

static const struct kernel_param_ops timing_ops = {
	.set = timing_set,
	.get = timing_get,
};
module_param_cb(timing, &timing_ops, NULL, 0600);
MODULE_PARM_DESC(timing, "time the walker's calls of kgr_task_cross()");

static int hold_get(char *buf, const struct kernel_param *kp)
{
	return sprintf(buf, "%d\n", armed);
}

static const struct kernel_param_ops hold_ops = {
	.set = hold_set,
	.get = hold_get,
};
module_param_cb(hold, &hold_ops, NULL, 0600);
MODULE_PARM_DESC(hold, "hold the free of a function until the walker compares with its nop");

static int __init kgr_test_nopwalk_init(void)
{
	struct task_struct *t = kthread_run(kgr_test_walker_fn, NULL,
					    "kgr_test_walker");

	if (IS_ERR(t))
		return PTR_ERR(t);
	walker = get_task_struct(t);
	return 0;
}
module_init(kgr_test_nopwalk_init);

static void __exit kgr_test_nopwalk_exit(void)
{
	hold_set("0", NULL);
	timing_set("0", NULL);
	kthread_stop(walker);
	put_task_struct(walker);
}
module_exit(kgr_test_nopwalk_exit);
MODULE_DESCRIPTION("kGraft test: a kthread that walks a replace_all patch's nops");
MODULE_LICENSE("GPL");
