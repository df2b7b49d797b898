// SPDX-License-Identifier: GPL-2.0
/*
 * kgr_bench_target -- the functions the kGraft/livepatch benchmark
 * patches, and a /proc interface that calls them in a timed loop.
 *
 * kgr_bench_fn_0() ... kgr_bench_fn_KGR_BENCH_NFN() are identical: each
 * counts its calls in a variable of its own and returns KGR_BENCH_OLD.
 * They are noipa, so that the loop calling them really calls them and
 * uses what they return (no inlining, no constant propagation).
 *
 *   /proc/kgr_bench/call     write "N LOOPS GATE", then read on the same
 *                            file descriptor: if GATE is 1, first wait in
 *                            kgr_bench_gate() until 'open' is written 1;
 *                            then call kgr_bench_fn_N() 64 times to warm
 *                            up, then LOOPS times with interrupts off,
 *                            timed with ktime_get_ns():
 *                            "fn=N loops=L ns=T sum=S kgr=K klp=P"
 *                            S is the sum of what the calls returned
 *                            (L: old code only, 2L: new code only); K is
 *                            1 while the caller is in kGraft's old
 *                            universe, P the caller's livepatch state
 *                            (-1 none, 0 unpatched, 1 patched)
 *   /proc/kgr_bench/open     write 1: let every waiter in the gate
 *                            through; 0: close the gate again
 *   /proc/kgr_bench/waiting  read: the number of tasks in the gate
 *   /proc/kgr_bench/sizes    read: sizes of what kGraft and livepatch
 *                            keep per task, per function and per patch
 *   /proc/kgr_bench/holds    write 1: time every call of the functions
 *                            that walk the task list under tasklist_lock
 *                            (kGraft's kgr_mark_all(), kgr_any_marked(),
 *                            livepatch's klp_start_transition(),
 *                            klp_try_complete_transition()) and of those
 *                            that look at a task pinned by
 *                            task_call_func(), its CPU's interrupts off
 *                            (kGraft's kgr_snap_fn(), kgr_at_exit_fn(),
 *                            kgr_switch_fn(),
 *                            livepatch's klp_check_and_switch_task()),
 *                            from now on;
 *                            0: stop. read: "NAME=CALLS/MAX_US ..." for
 *                            each, MAX_US the longest call (-1/-1: no probe,
 *                            the function is inlined or absent)
 */
#include <linux/atomic.h>
#include <linux/ftrace.h>
#include <linux/irqflags.h>
#include <linux/kernel.h>
#include <linux/kgr.h>
#include <linux/kprobes.h>
#include <linux/livepatch.h>
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

/* kernel/livepatch/patch.h: struct klp_ops, one per patched function */
#include "patch.h"
/* kernel/kgr_internal.h: struct kgr_loc_caches, one per function of a patch */
#include "kgr_internal.h"
/* struct ftrace_hash: what a filter of one function costs */
#include "trace.h"

#include "kgr_bench.h"

#define KGR_BENCH_WARMUP	64

#define KGR_BENCH_FN_DEFINE(n)						\
	static unsigned long kgr_bench_calls_##n;			\
	__attribute__((__noipa__)) int kgr_bench_fn_##n(void)		\
	{								\
		WRITE_ONCE(kgr_bench_calls_##n,				\
			   READ_ONCE(kgr_bench_calls_##n) + 1);		\
		return KGR_BENCH_OLD;					\
	}								\
	static unsigned long kgr_bench_loop_##n(unsigned long loops)	\
	{								\
		unsigned long i, sum = 0;				\
									\
		for (i = 0; i < loops; i++)				\
			sum += kgr_bench_fn_##n();			\
		return sum;						\
	}

KGR_BENCH_FN_DEFINE(0)
KGR_BENCH_FN_DEFINE(1)
KGR_BENCH_FN_DEFINE(2)
KGR_BENCH_FN_DEFINE(3)
KGR_BENCH_FN_DEFINE(4)
KGR_BENCH_FN_DEFINE(5)
KGR_BENCH_FN_DEFINE(6)
KGR_BENCH_FN_DEFINE(7)
KGR_BENCH_FN_DEFINE(8)
KGR_BENCH_FN_DEFINE(9)
KGR_BENCH_FN_DEFINE(10)
KGR_BENCH_FN_DEFINE(11)
KGR_BENCH_FN_DEFINE(12)
KGR_BENCH_FN_DEFINE(13)
KGR_BENCH_FN_DEFINE(14)
KGR_BENCH_FN_DEFINE(15)
KGR_BENCH_FN_DEFINE(16)
KGR_BENCH_FN_DEFINE(17)
KGR_BENCH_FN_DEFINE(18)
KGR_BENCH_FN_DEFINE(19)
KGR_BENCH_FN_DEFINE(20)
KGR_BENCH_FN_DEFINE(21)
KGR_BENCH_FN_DEFINE(22)
KGR_BENCH_FN_DEFINE(23)
KGR_BENCH_FN_DEFINE(24)
KGR_BENCH_FN_DEFINE(25)
KGR_BENCH_FN_DEFINE(26)

static unsigned long (*const kgr_bench_loops[KGR_BENCH_NFN + 1])(unsigned long) = {
	kgr_bench_loop_0, kgr_bench_loop_1, kgr_bench_loop_2,
	kgr_bench_loop_3, kgr_bench_loop_4, kgr_bench_loop_5,
	kgr_bench_loop_6, kgr_bench_loop_7, kgr_bench_loop_8,
	kgr_bench_loop_9, kgr_bench_loop_10, kgr_bench_loop_11,
	kgr_bench_loop_12, kgr_bench_loop_13, kgr_bench_loop_14,
	kgr_bench_loop_15, kgr_bench_loop_16, kgr_bench_loop_17,
	kgr_bench_loop_18, kgr_bench_loop_19, kgr_bench_loop_20,
	kgr_bench_loop_21, kgr_bench_loop_22, kgr_bench_loop_23,
	kgr_bench_loop_24, kgr_bench_loop_25, kgr_bench_loop_26,
};

static bool kgr_bench_open;
static atomic_t kgr_bench_waiting = ATOMIC_INIT(0);
static DECLARE_WAIT_QUEUE_HEAD(kgr_bench_wq);

void kgr_bench_gate_wait(void)
{
	atomic_inc(&kgr_bench_waiting);
	/*
	 * Killable, not interruptible: livepatch sends a fake signal to the
	 * tasks that hold its transition back for 15 s, and the gate must
	 * hold until it is opened.
	 */
	wait_event_killable(kgr_bench_wq, READ_ONCE(kgr_bench_open));
	atomic_dec(&kgr_bench_waiting);
}
EXPORT_SYMBOL_GPL(kgr_bench_gate_wait);

/*
 * Where a caller waits before its timed loop. The livepatch of the
 * per-call benchmark patches this function as well: a task asleep in it
 * cannot be switched, so it holds the livepatch transition open just as
 * a task asleep anywhere in the kernel holds kGraft's. The barrier()
 * after the call keeps this frame on the stack (no tail call).
 */
noinline void kgr_bench_gate(void)
{
	kgr_bench_gate_wait();
	barrier();
}
EXPORT_SYMBOL_GPL(kgr_bench_gate);

struct kgr_bench_req {
	unsigned int fn;
	unsigned long loops;
	unsigned int gate;
};

static int kgr_bench_klp_state(void)
{
	return current->patch_state;
}

static int call_open(struct inode *inode, struct file *file)
{
	struct kgr_bench_req *req = kzalloc(sizeof(*req), GFP_KERNEL);

	if (!req)
		return -ENOMEM;
	file->private_data = req;
	return 0;
}

static int call_release(struct inode *inode, struct file *file)
{
	kfree(file->private_data);
	return 0;
}

static ssize_t call_write(struct file *file, const char __user *buf,
			  size_t len, loff_t *pos)
{
	struct kgr_bench_req *req = file->private_data;
	struct kgr_bench_req new = {};
	char kbuf[64];

	if (len >= sizeof(kbuf))
		return -EINVAL;
	if (copy_from_user(kbuf, buf, len))
		return -EFAULT;
	kbuf[len] = '\0';
	if (sscanf(kbuf, "%u %lu %u", &new.fn, &new.loops, &new.gate) != 3)
		return -EINVAL;
	if (new.fn > KGR_BENCH_NFN)
		return -EINVAL;
	*req = new;
	*pos = 0;
	return len;
}

static ssize_t call_read(struct file *file, char __user *buf, size_t len,
			 loff_t *pos)
{
	struct kgr_bench_req *req = file->private_data;
	unsigned long (*loop)(unsigned long) = kgr_bench_loops[req->fn];
	unsigned long flags, sum;
	char reply[128];
	u64 t0, t1;
	int n;

	if (*pos)
		return 0;

	if (req->gate) {
		kgr_bench_gate();
		if (fatal_signal_pending(current))
			return -EINTR;
	}

	loop(KGR_BENCH_WARMUP);

	local_irq_save(flags);
	t0 = ktime_get_ns();
	sum = loop(req->loops);
	t1 = ktime_get_ns();
	local_irq_restore(flags);

	n = scnprintf(reply, sizeof(reply),
		      "fn=%u loops=%lu ns=%llu sum=%lu kgr=%d klp=%d\n",
		      req->fn, req->loops, t1 - t0, sum,
		      kgr_task_in_progress(current) ? 1 : 0,
		      kgr_bench_klp_state());
	return simple_read_from_buffer(buf, len, pos, reply, n);
}

static ssize_t open_write(struct file *file, const char __user *buf,
			  size_t len, loff_t *pos)
{
	unsigned int n;
	int ret = kstrtouint_from_user(buf, len, 0, &n);

	if (ret)
		return ret;
	WRITE_ONCE(kgr_bench_open, !!n);
	if (n)
		wake_up_all(&kgr_bench_wq);
	return len;
}

static int waiting_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%d\n", atomic_read(&kgr_bench_waiting));
	return 0;
}

static int waiting_open(struct inode *inode, struct file *file)
{
	return single_open(file, waiting_show, NULL);
}

/* what a kmalloc() of @size really takes */
static size_t kgr_bench_slab_size(size_t size)
{
	void *p = kmalloc(size, GFP_KERNEL);
	size_t real;

	if (!p)
		return 0;
	real = ksize(p);
	kfree(p);
	return real;
}

static int sizes_show(struct seq_file *m, void *v)
{
	/* kGraft: one bit in thread_info.flags; livepatch: that and an int */
	seq_printf(m, "kgr_task_bytes=0 kgr_task_bits=1 klp_task_bytes=%zu klp_task_bits=1\n",
		   sizeof(current->patch_state));
	/*
	 * kGraft's own per function: the patch's entry and the pointer to
	 * its caches (in the patch module), the caches and the function's
	 * kgr_func (slab caches of their own: sizeof is what they take);
	 * ftrace's for a direct call, two hash entries (the table of
	 * direct calls, the filter of kGraft's direct ops); the handler's
	 * ftrace_ops (kmalloc) and its filter only while the function
	 * needs the handler.
	 */
	seq_printf(m, "kgr_patch_fun=%zu kgr_caches_ptr=%zu kgr_loc_caches=%zu kgr_func=%zu ftrace_entry=%zu ftrace_ops=%zu ftrace_ops_slab=%zu ftrace_hash=%zu ftrace_bucket=%zu\n",
		   sizeof(struct kgr_patch_fun), sizeof(struct kgr_loc_caches *),
		   sizeof(struct kgr_loc_caches), sizeof(struct kgr_func),
		   kgr_bench_slab_size(sizeof(struct ftrace_func_entry)),
		   sizeof(struct ftrace_ops),
		   kgr_bench_slab_size(sizeof(struct ftrace_ops)),
		   kgr_bench_slab_size(sizeof(struct ftrace_hash)),
		   kgr_bench_slab_size(sizeof(struct hlist_head)));
	seq_printf(m, "kgr_patch=%zu kgr_patch_ptr=%zu nr_cpu_ids=%u\n",
		   sizeof(struct kgr_patch), sizeof(struct kgr_patch_fun *),
		   nr_cpu_ids);
	seq_printf(m, "klp_func=%zu klp_ops=%zu klp_ops_slab=%zu klp_object=%zu klp_patch=%zu\n",
		   sizeof(struct klp_func), sizeof(struct klp_ops),
		   kgr_bench_slab_size(sizeof(struct klp_ops)),
		   sizeof(struct klp_object), sizeof(struct klp_patch));
	return 0;
}

static int sizes_open(struct inode *inode, struct file *file)
{
	return single_open(file, sizes_show, NULL);
}

/*
 * The walks of the task list under tasklist_lock, each timed from entry
 * to return by a kretprobe: the longest call is about how long its
 * caller held the lock (a fork's write_lock_irq() waits that long with
 * its interrupts off). And the looks at one task pinned by
 * task_call_func(), which runs them with the task's pi_lock (and run
 * queue lock) held, interrupts off.
 */
struct kgr_bench_hold {
	struct kretprobe krp;
	bool armed;
	atomic_long_t calls;
	atomic64_t max_ns;
};

static int kgr_bench_hold_entry(struct kretprobe_instance *ri,
				struct pt_regs *regs)
{
	*(u64 *)ri->data = ktime_get_ns();
	return 0;
}

static int kgr_bench_hold_ret(struct kretprobe_instance *ri,
			      struct pt_regs *regs)
{
	struct kgr_bench_hold *h = container_of(get_kretprobe(ri),
						struct kgr_bench_hold, krp);
	s64 ns = ktime_get_ns() - *(u64 *)ri->data;
	s64 max = atomic64_read(&h->max_ns);

	atomic_long_inc(&h->calls);
	while (ns > max) {
		s64 old = atomic64_cmpxchg(&h->max_ns, max, ns);

		if (old == max)
			break;
		max = old;
	}
	return 0;
}

#define KGR_BENCH_HOLD(_sym)						\
	{ .krp = { .kp.symbol_name = _sym,				\
		   .entry_handler = kgr_bench_hold_entry,		\
		   .handler = kgr_bench_hold_ret,			\
		   .data_size = sizeof(u64), .maxactive = 4 } }

static struct kgr_bench_hold kgr_bench_holds[] = {
	KGR_BENCH_HOLD("kgr_mark_all"),
	KGR_BENCH_HOLD("kgr_any_marked"),
	KGR_BENCH_HOLD("klp_start_transition"),
	KGR_BENCH_HOLD("klp_try_complete_transition"),
	KGR_BENCH_HOLD("kgr_snap_fn"),
	KGR_BENCH_HOLD("kgr_at_exit_fn"),
	KGR_BENCH_HOLD("kgr_switch_fn"),
	KGR_BENCH_HOLD("klp_check_and_switch_task"),
};
static DEFINE_MUTEX(kgr_bench_holds_lock);

static void kgr_bench_holds_disarm(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(kgr_bench_holds); i++) {
		if (!kgr_bench_holds[i].armed)
			continue;
		unregister_kretprobe(&kgr_bench_holds[i].krp);
		kgr_bench_holds[i].armed = false;
	}
}

static ssize_t holds_write(struct file *file, const char __user *ubuf,
			   size_t count, loff_t *ppos)
{
	bool on;
	int i, err;

	err = kstrtobool_from_user(ubuf, count, &on);
	if (err)
		return err;
	mutex_lock(&kgr_bench_holds_lock);
	kgr_bench_holds_disarm();
	for (i = 0; on && i < ARRAY_SIZE(kgr_bench_holds); i++) {
		struct kgr_bench_hold *h = &kgr_bench_holds[i];
		const char *sym = h->krp.kp.symbol_name;

		atomic_long_set(&h->calls, 0);
		atomic64_set(&h->max_ns, 0);
		/* registered again: the kprobe's state from the last time goes */
		memset(&h->krp.kp, 0, sizeof(h->krp.kp));
		h->krp.kp.symbol_name = sym;
		h->armed = !register_kretprobe(&h->krp);
	}
	mutex_unlock(&kgr_bench_holds_lock);
	return count;
}

static int holds_show(struct seq_file *m, void *v)
{
	int i;

	mutex_lock(&kgr_bench_holds_lock);
	for (i = 0; i < ARRAY_SIZE(kgr_bench_holds); i++) {
		struct kgr_bench_hold *h = &kgr_bench_holds[i];

		if (h->armed)
			seq_printf(m, "%s%s=%ld/%lld", i ? " " : "",
				   h->krp.kp.symbol_name,
				   atomic_long_read(&h->calls),
				   atomic64_read(&h->max_ns) / NSEC_PER_USEC);
		else
			seq_printf(m, "%s%s=-1/-1", i ? " " : "",
				   h->krp.kp.symbol_name);
	}
	seq_putc(m, '\n');
	mutex_unlock(&kgr_bench_holds_lock);
	return 0;
}

static int holds_open(struct inode *inode, struct file *file)
{
	return single_open(file, holds_show, NULL);
}

#define KGR_BENCH_FILE(_name, _mode, _open, _read, _write, _release)	\
	{ .name = _name, .mode = _mode,					\
	  .ops = { .proc_open = _open, .proc_read = _read,		\
		   .proc_write = _write, .proc_release = _release,	\
		   .proc_lseek = default_llseek } }

static const struct kgr_bench_file {
	const char *name;
	umode_t mode;
	const struct proc_ops ops;
} kgr_bench_files[] = {
	KGR_BENCH_FILE("call", 0600, call_open, call_read, call_write,
		       call_release),
	KGR_BENCH_FILE("open", 0200, NULL, NULL, open_write, NULL),
	KGR_BENCH_FILE("waiting", 0444, waiting_open, seq_read, NULL,
		       single_release),
	KGR_BENCH_FILE("sizes", 0444, sizes_open, seq_read, NULL,
		       single_release),
	KGR_BENCH_FILE("holds", 0600, holds_open, seq_read, holds_write,
		       single_release),
};

static struct proc_dir_entry *kgr_bench_dir;

static int __init kgr_bench_target_init(void)
{
	int i;

	kgr_bench_dir = proc_mkdir("kgr_bench", NULL);
	if (!kgr_bench_dir)
		return -ENOMEM;

	for (i = 0; i < ARRAY_SIZE(kgr_bench_files); i++) {
		const struct kgr_bench_file *f = &kgr_bench_files[i];

		if (!proc_create(f->name, f->mode, kgr_bench_dir, &f->ops)) {
			proc_remove(kgr_bench_dir);
			return -ENOMEM;
		}
	}
	return 0;
}

static void __exit kgr_bench_target_exit(void)
{
	WRITE_ONCE(kgr_bench_open, true);
	wake_up_all(&kgr_bench_wq);
	proc_remove(kgr_bench_dir);
	mutex_lock(&kgr_bench_holds_lock);
	kgr_bench_holds_disarm();
	mutex_unlock(&kgr_bench_holds_lock);
}

module_init(kgr_bench_target_init);
module_exit(kgr_bench_target_exit);
MODULE_DESCRIPTION("functions for the kGraft/livepatch benchmark to patch");
MODULE_LICENSE("GPL");
