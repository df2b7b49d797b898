// SPDX-License-Identifier: GPL-2.0
/*
 * kgr_test_proc -- a /proc interface through which the kGraft tests call
 * the functions they patch, from user space, kthreads and interrupts.
 *
 * The functions live in the test scenarios' own modules: each line NAME
 * of scenarios.list gives a module kgr_test_target_NAME that exports
 * kgr_test_fn_NAME(), which returns KGR_TEST_OLD, and a patch module
 * kgr_test_patch_NAME that makes it return KGR_TEST_NEW. The files in
 * /proc/kgr_test/ call the function chosen with 'select':
 *
 *   select   write NAME: the function the files below call, from now on;
 *            kgr_test_target_NAME must be loaded (-ENOENT otherwise),
 *            and stays held (its refcount) until this module is removed.
 *            Before the first select the calls return 0.  read: NAME
 *   version  read: "V\n", from one call
 *   trip     read: one call, then sleep until released, then a second
 *            call, all in one system call: "V1 V2\n".  The sleep is
 *            killable but not interruptible (TASK_KILLABLE), so kGraft
 *            cannot nudge it out of the kernel
 *   trip_intr  the same with an interruptible sleep: a signal (or a
 *            kGraft nudge) ends it with -ERESTARTSYS, so that the read
 *            restarts, with a new first call, once the signal is handled
 *   release  write 1: let every trip reader through; 0: re-arm
 *   waiting  read: how many trip readers are asleep
 *   spin_ms  write MS: how long a spin read lasts (default 2000)
 *   spin     read: call the function in a loop for spin_ms, with
 *            cond_resched(), all in one system call:
 *            "calls=C first=F last=L old2new=A new2old=B\n"
 *   spin_bh  read: like spin, but each round calls the function three
 *            times in this task's context: plainly, with bottom halves
 *            disabled and with preemption disabled:
 *            "calls=C first=F last=L mixed=M old2new=A new2old=B\n",
 *            M counting the rounds whose three calls disagreed
 *   kthread  write 1: start (once) the test kthread "kgr_test_kthread"
 *            and hold it: it then calls the function every 100 ms and
 *            never passes a safe point (no kthread_should_stop(), no
 *            kgr_task_safe()); write 0: release it, it then loops through
 *            kthread_should_stop() again.
 *            read: "pid=P held=H version=V calls=C first=F old2new=A
 *            new2old=B", V from its latest call; C, F, A, B of its latest
 *            held stretch (the calls since the last write of 1, all in
 *            one trip): how many, the first version, switches up and down
 *   kthread_new  write 1: create (once) the kthread "kgr_test_unstarted"
 *            with kthread_create() and do not start it: it sleeps
 *            uninterruptibly in kthread() until woken; write 2: start it
 *            (wake_up_process()), it then loops through
 *            kthread_should_stop() every 100 ms; write 0: stop it.
 *            read: "pid=P started=S", S 1 once its function has run
 *   irq      write 1: start, on every online CPU, a pinned hrtimer that
 *            expires in hard interrupt context and a pinned timer_list
 *            timer (softirq), each calling kgr_test_fn_NAME() every
 *            KGR_TEST_IRQ_MS, NAME as irq_select says; write 0: stop them.
 *            read: one line per CPU and context: "cpu=C ctx=hardirq|softirq
 *            calls=N first=F last=L old2new=A new2old=B wrongctx=W",
 *            W counting calls that found themselves in the wrong context
 *            or on the wrong CPU
 *   deep     write 1: start (once) the kthread "kgr_test_deep", which
 *            loops: a safe point (kthread_should_stop()), then a call of
 *            kgr_test_deep(), which sleeps 100 ms, passes a safe point
 *            of its own in its middle and then calls kgr_test_deep_inner();
 *            write 0: stop it. kgr_test_patch_deep replaces both.
 *            read: "rounds=N old=A new=B mixed=M": rounds whose outer and
 *            inner versions were both old, both new, or mixed
 *   irq_select  write NAME: the function the irq timers call, as select
 *            does for the other files (0 before the first irq_select)
 *   hog      read: loop in the kernel for spin_ms on the CPU the reader
 *            runs on, with interrupts on but never scheduling, so that
 *            no other task (the per-CPU kworkers included) runs on that
 *            CPU meanwhile: "cpu=C"; hogging reads the CPU or -1;
 *            writing 0 to hogging ends the loop early
 *   fork_hold  write PID: hold the next fork of task PID after its child
 *            copied the parent's thread flags and before the child joins
 *            the task list: the kthread "kgr_test_forkhold" takes PID's
 *            mmap lock for reading, so that the fork sleeps in dup_mmap()
 *            (mmap_write_lock_killable()), and lets it go as soon as
 *            kGraft marks PID (TIF_KGR_IN_PROGRESS), or after 60 s;
 *            write 0: end the hold.  read: "pid=P state=S waiting=W",
 *            S one of idle, holding, marked (the hold ended because PID
 *            was marked), timeout; W 1 while a writer (the fork) waits
 *   cross_hold  write PID: hold task PID at its next call of
 *            stack_trace_save_tsk_reliable() (a kprobe), which kGraft
 *            makes at a kthread's safe point after it read
 *            kgr_trans.switch_allowed and before it clears the task's
 *            mark, until the task is marked (or 10 s passed): a busy wait, with
 *            preemption off; write 0: remove the kprobe.  read: "pid=P
 *            state=S", S one of idle, armed, window (held there now),
 *            marked (let go because it was marked), timeout
 */
#include <linux/atomic.h>
#include <linux/bottom_half.h>
#include <linux/ctype.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/list.h>
#include <linux/mmap_lock.h>
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timer.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

#include "kgr_test.h"

/*
 * A function selected once: kgr_test_fn_NAME() of kgr_test_target_NAME,
 * found with symbol_get(), which holds that module until this one goes.
 */
struct kgr_test_fn {
	struct list_head list;
	int (*fn)(void);
	char name[KGR_TEST_NAME_MAX + 1];
};

static LIST_HEAD(kgr_test_fn_list);
static DEFINE_MUTEX(kgr_test_fn_lock);

/* what the files call before the first select */
static int kgr_test_unselected(void)
{
	return 0;
}

static struct kgr_test_fn kgr_test_none = {
	.fn = kgr_test_unselected,
	.name = "-",
};

static struct kgr_test_fn *kgr_test_selected = &kgr_test_none;
static struct kgr_test_fn *kgr_test_irq_fn = &kgr_test_none;

/* the function a write of NAME to select or irq_select names */
static struct kgr_test_fn *kgr_test_fn_get(const char __user *buf, size_t len)
{
	char sym[sizeof("kgr_test_fn_") + KGR_TEST_NAME_MAX];
	struct kgr_test_fn *f;
	char *name, *p;
	void *fn;

	if (len > KGR_TEST_NAME_MAX + 1)
		return ERR_PTR(-EINVAL);
	name = memdup_user_nul(buf, len);
	if (IS_ERR(name))
		return ERR_CAST(name);
	strim(name);
	for (p = name; *p; p++) {
		if (!isalnum(*p) && *p != '_')
			break;
	}
	if (!*name || *p || strlen(name) > KGR_TEST_NAME_MAX) {
		f = ERR_PTR(-EINVAL);
		goto out;
	}

	mutex_lock(&kgr_test_fn_lock);
	list_for_each_entry(f, &kgr_test_fn_list, list) {
		if (!strcmp(f->name, name))
			goto unlock;
	}
	snprintf(sym, sizeof(sym), "kgr_test_fn_%s", name);
	fn = __symbol_get(sym);
	if (!fn) {
		f = ERR_PTR(-ENOENT);
		goto unlock;
	}
	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f) {
		symbol_put_addr(fn);
		f = ERR_PTR(-ENOMEM);
		goto unlock;
	}
	f->fn = fn;
	strscpy(f->name, name, sizeof(f->name));
	list_add(&f->list, &kgr_test_fn_list);
unlock:
	mutex_unlock(&kgr_test_fn_lock);
out:
	kfree(name);
	return f;
}

static void kgr_test_fn_put_all(void)
{
	struct kgr_test_fn *f, *tmp;

	list_for_each_entry_safe(f, tmp, &kgr_test_fn_list, list) {
		list_del(&f->list);
		symbol_put_addr(f->fn);
		kfree(f);
	}
}

static unsigned int kgr_test_spin_ms = 2000;
static bool kgr_test_released;
static atomic_t kgr_test_waiting = ATOMIC_INIT(0);
static DECLARE_WAIT_QUEUE_HEAD(kgr_test_wq);

static int kgr_test_call(void)
{
	return READ_ONCE(kgr_test_selected)->fn();
}

static struct task_struct *kgr_test_kthread;
static bool kgr_test_kthread_held;
static int kgr_test_kthread_version;
/* the latest held stretch: calls, first version, switches up and down */
static unsigned long kgr_test_kthread_calls;
static int kgr_test_kthread_first;
static unsigned long kgr_test_kthread_up, kgr_test_kthread_down;
static DEFINE_MUTEX(kgr_test_kthread_lock);

static int kgr_test_kthread_fn(void *unused)
{
	unsigned long n;
	int v;

	while (!kthread_should_stop()) {
		/* held: no safe point in this loop */
		for (n = 0; READ_ONCE(kgr_test_kthread_held); n++) {
			v = kgr_test_call();
			if (!n) {
				WRITE_ONCE(kgr_test_kthread_first, v);
				WRITE_ONCE(kgr_test_kthread_up, 0);
				WRITE_ONCE(kgr_test_kthread_down, 0);
			} else if (v > kgr_test_kthread_version) {
				WRITE_ONCE(kgr_test_kthread_up, kgr_test_kthread_up + 1);
			} else if (v < kgr_test_kthread_version) {
				WRITE_ONCE(kgr_test_kthread_down, kgr_test_kthread_down + 1);
			}
			WRITE_ONCE(kgr_test_kthread_version, v);
			WRITE_ONCE(kgr_test_kthread_calls, n + 1);
			schedule_timeout_interruptible(HZ / 10);
		}
		WRITE_ONCE(kgr_test_kthread_version, kgr_test_call());
		schedule_timeout_interruptible(HZ / 10);
	}
	return 0;
}

/*
 * kgr_test_deep() returns its own version and, in *inner, the version of
 * kgr_test_deep_inner() that it called after the safe point in its
 * middle. A task that ran the old kgr_test_deep() must get the old
 * kgr_test_deep_inner() from it: the safe point inside is not one.
 */
noinline int kgr_test_deep_inner(void)
{
	return KGR_TEST_OLD;
}

noinline int kgr_test_deep(int *inner)
{
	schedule_timeout_interruptible(HZ / 10);
	kthread_should_stop();		/* a safe point inside a function */
	*inner = kgr_test_deep_inner();
	return KGR_TEST_OLD;
}

static struct task_struct *kgr_test_deep_task;
static atomic_long_t kgr_test_deep_stat[3];	/* old, new, mixed */

static int kgr_test_deep_fn(void *unused)
{
	int v, inner;

	while (!kthread_should_stop()) {
		v = kgr_test_deep(&inner);
		if (v != inner)
			atomic_long_inc(&kgr_test_deep_stat[2]);
		else
			atomic_long_inc(&kgr_test_deep_stat[v == KGR_TEST_NEW]);
	}
	return 0;
}

/* The kthread that is created but not started (kthread_new). */
static struct task_struct *kgr_test_unstarted;
static bool kgr_test_unstarted_ran;

static int kgr_test_unstarted_fn(void *unused)
{
	WRITE_ONCE(kgr_test_unstarted_ran, true);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ / 10);
	return 0;
}

/* stop a kthread started with a reference held (get_task_struct()) */
static void kgr_test_kthread_put(struct task_struct **t)
{
	if (!*t)
		return;
	kthread_stop(*t);
	put_task_struct(*t);
	*t = NULL;
}

static ssize_t kgr_test_reply(char __user *buf, size_t len, loff_t *pos,
			      const char *fmt, ...)
{
	char reply[160];
	va_list args;
	int n;

	va_start(args, fmt);
	n = vscnprintf(reply, sizeof(reply), fmt, args);
	va_end(args);

	return simple_read_from_buffer(buf, len, pos, reply, n);
}

static int kgr_test_get_uint(const char __user *buf, size_t len,
			     unsigned int *val)
{
	return kstrtouint_from_user(buf, len, 0, val);
}

/*
 * The files that start something: writing 0 stops it, N stops it and
 * starts it again with N, both under @lock.
 */
static ssize_t kgr_test_restart(const char __user *buf, size_t len,
				struct mutex *lock, void (*stop)(void),
				int (*start)(unsigned int n))
{
	unsigned int n;
	int ret = kgr_test_get_uint(buf, len, &n);

	if (ret)
		return ret;

	mutex_lock(lock);
	stop();
	if (n)
		ret = start(n);
	mutex_unlock(lock);

	return ret ? ret : len;
}

/* select and irq_select: the function that *@sel calls from now on */
static ssize_t kgr_test_select(const char __user *buf, size_t len,
			       struct kgr_test_fn **sel)
{
	struct kgr_test_fn *f = kgr_test_fn_get(buf, len);

	if (IS_ERR(f))
		return PTR_ERR(f);
	WRITE_ONCE(*sel, f);
	return len;
}

static ssize_t select_write(struct file *file, const char __user *buf,
			    size_t len, loff_t *pos)
{
	return kgr_test_select(buf, len, &kgr_test_selected);
}

static ssize_t select_read(struct file *file, char __user *buf, size_t len,
			   loff_t *pos)
{
	return kgr_test_reply(buf, len, pos, "%s\n",
			      READ_ONCE(kgr_test_selected)->name);
}

static ssize_t version_read(struct file *file, char __user *buf,
			    size_t len, loff_t *pos)
{
	if (*pos)
		return 0;
	return kgr_test_reply(buf, len, pos, "%d\n", kgr_test_call());
}

static ssize_t kgr_test_trip(char __user *buf, size_t len, loff_t *pos,
			     bool interruptible)
{
	int v1, v2, ret;

	if (*pos)
		return 0;

	v1 = kgr_test_call();
	atomic_inc(&kgr_test_waiting);
	if (interruptible)
		ret = wait_event_interruptible(kgr_test_wq,
					       READ_ONCE(kgr_test_released));
	else
		ret = wait_event_killable(kgr_test_wq,
					  READ_ONCE(kgr_test_released));
	atomic_dec(&kgr_test_waiting);
	if (ret)
		return ret;
	v2 = kgr_test_call();

	return kgr_test_reply(buf, len, pos, "%d %d\n", v1, v2);
}

static ssize_t trip_read(struct file *file, char __user *buf, size_t len,
			 loff_t *pos)
{
	return kgr_test_trip(buf, len, pos, false);
}

static ssize_t trip_intr_read(struct file *file, char __user *buf,
			      size_t len, loff_t *pos)
{
	return kgr_test_trip(buf, len, pos, true);
}

static ssize_t release_write(struct file *file, const char __user *buf,
			     size_t len, loff_t *pos)
{
	unsigned int n;
	int ret = kgr_test_get_uint(buf, len, &n);

	if (ret)
		return ret;
	WRITE_ONCE(kgr_test_released, !!n);
	if (n)
		wake_up_all(&kgr_test_wq);
	return len;
}

static ssize_t waiting_read(struct file *file, char __user *buf,
			    size_t len, loff_t *pos)
{
	return kgr_test_reply(buf, len, pos, "%d\n",
			      atomic_read(&kgr_test_waiting));
}

static ssize_t spin_ms_write(struct file *file, const char __user *buf,
			     size_t len, loff_t *pos)
{
	unsigned int ms;
	int ret = kgr_test_get_uint(buf, len, &ms);

	if (ret)
		return ret;
	WRITE_ONCE(kgr_test_spin_ms, ms);
	return len;
}

static ssize_t spin_read(struct file *file, char __user *buf, size_t len,
			 loff_t *pos)
{
	unsigned long end, calls = 1, old2new = 0, new2old = 0;
	int first, last, v;

	if (*pos)
		return 0;

	end = jiffies + msecs_to_jiffies(READ_ONCE(kgr_test_spin_ms));
	first = last = kgr_test_call();
	while (time_before(jiffies, end)) {
		v = kgr_test_call();
		calls++;
		if (v > last)
			old2new++;
		else if (v < last)
			new2old++;
		last = v;
		cond_resched();
	}

	return kgr_test_reply(buf, len, pos,
			      "calls=%lu first=%d last=%d old2new=%lu new2old=%lu\n",
			      calls, first, last, old2new, new2old);
}

static ssize_t spin_bh_read(struct file *file, char __user *buf,
			    size_t len, loff_t *pos)
{
	unsigned long end, calls = 0, mixed = 0, old2new = 0, new2old = 0;
	int first = 0, last = 0, v, v_bh, v_preempt;

	if (*pos)
		return 0;

	end = jiffies + msecs_to_jiffies(READ_ONCE(kgr_test_spin_ms));
	do {
		v = kgr_test_call();
		local_bh_disable();
		v_bh = kgr_test_call();
		local_bh_enable();
		preempt_disable();
		v_preempt = kgr_test_call();
		preempt_enable();
		if (v != v_bh || v != v_preempt)
			mixed++;
		if (!calls)
			first = v;
		else if (v > last)
			old2new++;
		else if (v < last)
			new2old++;
		last = v;
		calls += 3;
		cond_resched();
	} while (time_before(jiffies, end));

	return kgr_test_reply(buf, len, pos,
			      "calls=%lu first=%d last=%d mixed=%lu old2new=%lu new2old=%lu\n",
			      calls, first, last, mixed, old2new, new2old);
}

static ssize_t kthread_write(struct file *file, const char __user *buf,
			     size_t len, loff_t *pos)
{
	struct task_struct *t;
	unsigned int n;
	int ret = kgr_test_get_uint(buf, len, &n);

	if (ret)
		return ret;

	mutex_lock(&kgr_test_kthread_lock);
	WRITE_ONCE(kgr_test_kthread_held, !!n);
	if (n && !kgr_test_kthread) {
		t = kthread_run(kgr_test_kthread_fn, NULL, "kgr_test_kthread");
		if (IS_ERR(t))
			ret = PTR_ERR(t);
		else
			kgr_test_kthread = t;
	}
	mutex_unlock(&kgr_test_kthread_lock);

	return ret ? ret : len;
}

static ssize_t kthread_read(struct file *file, char __user *buf, size_t len,
			    loff_t *pos)
{
	int pid;

	mutex_lock(&kgr_test_kthread_lock);
	pid = kgr_test_kthread ? task_pid_nr(kgr_test_kthread) : 0;
	mutex_unlock(&kgr_test_kthread_lock);

	return kgr_test_reply(buf, len, pos,
			      "pid=%d held=%d version=%d calls=%lu first=%d old2new=%lu new2old=%lu\n",
			      pid, READ_ONCE(kgr_test_kthread_held),
			      READ_ONCE(kgr_test_kthread_version),
			      READ_ONCE(kgr_test_kthread_calls),
			      READ_ONCE(kgr_test_kthread_first),
			      READ_ONCE(kgr_test_kthread_up),
			      READ_ONCE(kgr_test_kthread_down));
}

static ssize_t kthread_new_write(struct file *file, const char __user *buf,
				 size_t len, loff_t *pos)
{
	struct task_struct *t;
	unsigned int n;
	int ret = kgr_test_get_uint(buf, len, &n);

	if (ret)
		return ret;
	if (n > 2)
		return -EINVAL;

	mutex_lock(&kgr_test_kthread_lock);
	if (n == 1 && !kgr_test_unstarted) {
		t = kthread_create(kgr_test_unstarted_fn, NULL, "kgr_test_unstarted");
		if (IS_ERR(t))
			ret = PTR_ERR(t);
		else
			kgr_test_unstarted = get_task_struct(t);
	} else if (n == 2 && kgr_test_unstarted) {
		wake_up_process(kgr_test_unstarted);
	} else if (n == 0) {
		kgr_test_kthread_put(&kgr_test_unstarted);
	}
	mutex_unlock(&kgr_test_kthread_lock);

	return ret ? ret : len;
}

static ssize_t kthread_new_read(struct file *file, char __user *buf,
				size_t len, loff_t *pos)
{
	int pid;

	mutex_lock(&kgr_test_kthread_lock);
	pid = kgr_test_unstarted ? task_pid_nr(kgr_test_unstarted) : 0;
	mutex_unlock(&kgr_test_kthread_lock);

	return kgr_test_reply(buf, len, pos, "pid=%d started=%d\n", pid,
			      READ_ONCE(kgr_test_unstarted_ran));
}

static ssize_t deep_write(struct file *file, const char __user *buf,
			  size_t len, loff_t *pos)
{
	struct task_struct *t;
	unsigned int n;
	int ret = kgr_test_get_uint(buf, len, &n);

	if (ret)
		return ret;

	mutex_lock(&kgr_test_kthread_lock);
	if (n && !kgr_test_deep_task) {
		t = kthread_run(kgr_test_deep_fn, NULL, "kgr_test_deep");
		if (IS_ERR(t))
			ret = PTR_ERR(t);
		else
			kgr_test_deep_task = get_task_struct(t);
	} else if (!n) {
		kgr_test_kthread_put(&kgr_test_deep_task);
	}
	mutex_unlock(&kgr_test_kthread_lock);

	return ret ? ret : len;
}

static ssize_t deep_read(struct file *file, char __user *buf, size_t len,
			 loff_t *pos)
{
	long old = atomic_long_read(&kgr_test_deep_stat[0]);
	long new = atomic_long_read(&kgr_test_deep_stat[1]);
	long mixed = atomic_long_read(&kgr_test_deep_stat[2]);

	return kgr_test_reply(buf, len, pos, "rounds=%ld old=%ld new=%ld mixed=%ld\n",
			      old + new + mixed, old, new, mixed);
}

/* Timers in interrupt context: they call what irq_select chose. */
#define KGR_TEST_IRQ_MS	4

enum { KGR_TEST_HARDIRQ, KGR_TEST_SOFTIRQ, KGR_TEST_NCTX };
static const char *const kgr_test_ctx_name[KGR_TEST_NCTX] = {
	"hardirq", "softirq",
};

struct kgr_test_irq_stat {
	unsigned long calls, old2new, new2old, wrongctx;
	int first, last;
};

struct kgr_test_irq_cpu {
	struct hrtimer hrtimer;
	struct timer_list timer;
	int cpu;
	struct kgr_test_irq_stat stat[KGR_TEST_NCTX];
};

static DEFINE_PER_CPU(struct kgr_test_irq_cpu, kgr_test_irq);
static bool kgr_test_irq_on;
static DEFINE_MUTEX(kgr_test_irq_lock);

/* only the timer of this CPU and context writes @s */
static void kgr_test_irq_call(struct kgr_test_irq_cpu *c, int ctx, bool right)
{
	struct kgr_test_irq_stat *s = &c->stat[ctx];
	int v = READ_ONCE(kgr_test_irq_fn)->fn();

	if (!right || smp_processor_id() != c->cpu)
		WRITE_ONCE(s->wrongctx, s->wrongctx + 1);
	if (!s->calls)
		WRITE_ONCE(s->first, v);
	else if (v > s->last)
		WRITE_ONCE(s->old2new, s->old2new + 1);
	else if (v < s->last)
		WRITE_ONCE(s->new2old, s->new2old + 1);
	WRITE_ONCE(s->last, v);
	WRITE_ONCE(s->calls, s->calls + 1);
}

static enum hrtimer_restart kgr_test_hrtimer_fn(struct hrtimer *t)
{
	struct kgr_test_irq_cpu *c = container_of(t, struct kgr_test_irq_cpu,
						  hrtimer);

	kgr_test_irq_call(c, KGR_TEST_HARDIRQ, in_hardirq());
	if (!READ_ONCE(kgr_test_irq_on))
		return HRTIMER_NORESTART;
	hrtimer_forward_now(t, ms_to_ktime(KGR_TEST_IRQ_MS));
	return HRTIMER_RESTART;
}

static void kgr_test_timer_fn(struct timer_list *t)
{
	struct kgr_test_irq_cpu *c = from_timer(c, t, timer);

	kgr_test_irq_call(c, KGR_TEST_SOFTIRQ,
			  in_serving_softirq() && !in_hardirq());
	/* a pinned timer re-armed from its callback stays on this CPU */
	if (READ_ONCE(kgr_test_irq_on))
		mod_timer(t, jiffies + msecs_to_jiffies(KGR_TEST_IRQ_MS));
}

/* runs on each CPU (IPI): a pinned hrtimer is armed on the current CPU */
static void kgr_test_irq_start_cpu(void *unused)
{
	struct kgr_test_irq_cpu *c = this_cpu_ptr(&kgr_test_irq);

	hrtimer_start(&c->hrtimer, ms_to_ktime(KGR_TEST_IRQ_MS),
		      HRTIMER_MODE_REL_PINNED_HARD);
}

static void kgr_test_irq_stop(void)
{
	int cpu;

	WRITE_ONCE(kgr_test_irq_on, false);
	for_each_possible_cpu(cpu) {
		struct kgr_test_irq_cpu *c = per_cpu_ptr(&kgr_test_irq, cpu);

		if (!c->timer.function)
			continue;	/* never started */
		hrtimer_cancel(&c->hrtimer);
		del_timer_sync(&c->timer);
	}
}

static void kgr_test_irq_start(void)
{
	int cpu;

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		struct kgr_test_irq_cpu *c = per_cpu_ptr(&kgr_test_irq, cpu);

		memset(c->stat, 0, sizeof(c->stat));
		c->cpu = cpu;
		hrtimer_init(&c->hrtimer, CLOCK_MONOTONIC,
			     HRTIMER_MODE_REL_PINNED_HARD);
		c->hrtimer.function = kgr_test_hrtimer_fn;
		timer_setup(&c->timer, kgr_test_timer_fn, TIMER_PINNED);
	}
	WRITE_ONCE(kgr_test_irq_on, true);
	on_each_cpu(kgr_test_irq_start_cpu, NULL, 1);
	for_each_online_cpu(cpu) {
		struct kgr_test_irq_cpu *c = per_cpu_ptr(&kgr_test_irq, cpu);

		c->timer.expires = jiffies + msecs_to_jiffies(KGR_TEST_IRQ_MS);
		add_timer_on(&c->timer, cpu);
	}
	cpus_read_unlock();
}

static int kgr_test_irq_restart(unsigned int n)
{
	kgr_test_irq_start();
	return 0;
}

static ssize_t irq_write(struct file *file, const char __user *buf,
			 size_t len, loff_t *pos)
{
	return kgr_test_restart(buf, len, &kgr_test_irq_lock,
				kgr_test_irq_stop, kgr_test_irq_restart);
}

static ssize_t irq_read(struct file *file, char __user *buf, size_t len,
			loff_t *pos)
{
	size_t size = PAGE_SIZE, n = 0;
	ssize_t ret;
	char *reply;
	int cpu, ctx;

	reply = kmalloc(size, GFP_KERNEL);
	if (!reply)
		return -ENOMEM;

	for_each_online_cpu(cpu) {
		struct kgr_test_irq_cpu *c = per_cpu_ptr(&kgr_test_irq, cpu);

		for (ctx = 0; ctx < KGR_TEST_NCTX; ctx++) {
			struct kgr_test_irq_stat *s = &c->stat[ctx];

			n += scnprintf(reply + n, size - n,
				       "cpu=%d ctx=%s calls=%lu first=%d last=%d old2new=%lu new2old=%lu wrongctx=%lu\n",
				       cpu, kgr_test_ctx_name[ctx],
				       READ_ONCE(s->calls), READ_ONCE(s->first),
				       READ_ONCE(s->last), READ_ONCE(s->old2new),
				       READ_ONCE(s->new2old),
				       READ_ONCE(s->wrongctx));
		}
	}
	ret = simple_read_from_buffer(buf, len, pos, reply, n);
	kfree(reply);
	return ret;
}

static ssize_t irq_select_write(struct file *file, const char __user *buf,
				size_t len, loff_t *pos)
{
	return kgr_test_select(buf, len, &kgr_test_irq_fn);
}

static int kgr_test_hog_cpu = -1;
static bool kgr_test_hog_stop;

static ssize_t hog_read(struct file *file, char __user *buf, size_t len,
			loff_t *pos)
{
	unsigned long end;
	int cpu;

	if (*pos)
		return 0;

	/*
	 * Nothing else runs on this CPU meanwhile: preemption is off (on a
	 * PREEMPT_NONE kernel, not calling cond_resched() would be enough).
	 */
	cpu = get_cpu();
	WRITE_ONCE(kgr_test_hog_stop, false);
	WRITE_ONCE(kgr_test_hog_cpu, cpu);
	end = jiffies + msecs_to_jiffies(READ_ONCE(kgr_test_spin_ms));
	while (time_before(jiffies, end) && !READ_ONCE(kgr_test_hog_stop))
		cpu_relax();
	WRITE_ONCE(kgr_test_hog_cpu, -1);
	put_cpu();

	return kgr_test_reply(buf, len, pos, "cpu=%d\n", cpu);
}

static ssize_t hogging_read(struct file *file, char __user *buf,
			    size_t len, loff_t *pos)
{
	return kgr_test_reply(buf, len, pos, "%d\n",
			      READ_ONCE(kgr_test_hog_cpu));
}

static ssize_t hogging_write(struct file *file, const char __user *buf,
			     size_t len, loff_t *pos)
{
	unsigned int val;
	int ret = kgr_test_get_uint(buf, len, &val);

	if (ret)
		return ret;
	if (val)
		return -EINVAL;
	WRITE_ONCE(kgr_test_hog_stop, true);
	return len;
}

/* fork_hold: the holder, the task whose fork it holds, and that task's mm */
enum { KGR_FH_IDLE, KGR_FH_HOLDING, KGR_FH_MARKED, KGR_FH_TIMEOUT };
static const char *const kgr_test_fh_states[] = {
	"idle", "holding", "marked", "timeout",
};
static struct task_struct *kgr_test_fh_task;
static struct task_struct *kgr_test_fh_target;
static struct mm_struct *kgr_test_fh_mm;
static pid_t kgr_test_fh_pid;
static int kgr_test_fh_state;
static DECLARE_COMPLETION(kgr_test_fh_held);

static int kgr_test_fh_fn(void *unused)
{
	struct task_struct *target = kgr_test_fh_target;
	struct mm_struct *mm = kgr_test_fh_mm;
	unsigned long end = jiffies + 60 * HZ;
	int state = KGR_FH_TIMEOUT;

	mmap_read_lock(mm);
	WRITE_ONCE(kgr_test_fh_state, KGR_FH_HOLDING);
	complete(&kgr_test_fh_held);
	while (!kthread_should_stop() && time_before(jiffies, end)) {
		if (test_tsk_thread_flag(target, TIF_KGR_IN_PROGRESS)) {
			state = KGR_FH_MARKED;
			break;
		}
		usleep_range(100, 200);
	}
	mmap_read_unlock(mm);
	WRITE_ONCE(kgr_test_fh_state, state);
	mmput(mm);
	put_task_struct(target);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ / 10);
	return 0;
}

/* start holding task @nr's next fork (kgr_test_kthread_lock held) */
static int kgr_test_fh_start(unsigned int nr)
{
	struct task_struct *target, *t;
	struct mm_struct *mm = NULL;
	struct pid *pid;

	pid = find_get_pid(nr);
	target = get_pid_task(pid, PIDTYPE_PID);
	put_pid(pid);
	if (target)
		mm = get_task_mm(target);
	if (!mm) {
		if (target)
			put_task_struct(target);
		return -ESRCH;
	}
	kgr_test_fh_target = target;
	kgr_test_fh_mm = mm;
	kgr_test_fh_pid = nr;
	WRITE_ONCE(kgr_test_fh_state, KGR_FH_IDLE);
	reinit_completion(&kgr_test_fh_held);
	t = kthread_run(kgr_test_fh_fn, NULL, "kgr_test_forkhold");
	if (IS_ERR(t)) {
		mmput(mm);
		put_task_struct(target);
		return PTR_ERR(t);
	}
	kgr_test_fh_task = get_task_struct(t);
	wait_for_completion(&kgr_test_fh_held);
	return 0;
}

static void kgr_test_fh_stop(void)
{
	kgr_test_kthread_put(&kgr_test_fh_task);
}

static ssize_t fork_hold_write(struct file *file, const char __user *buf,
			       size_t len, loff_t *pos)
{
	return kgr_test_restart(buf, len, &kgr_test_kthread_lock,
				kgr_test_fh_stop, kgr_test_fh_start);
}

static ssize_t fork_hold_read(struct file *file, char __user *buf,
			      size_t len, loff_t *pos)
{
	int state, waiting = 0;
	pid_t nr;

	mutex_lock(&kgr_test_kthread_lock);
	nr = kgr_test_fh_task ? kgr_test_fh_pid : 0;
	state = READ_ONCE(kgr_test_fh_state);
	/* the mm is only used while the holder holds it */
	if (kgr_test_fh_task && state == KGR_FH_HOLDING)
		waiting = mmap_lock_is_contended(kgr_test_fh_mm);
	mutex_unlock(&kgr_test_kthread_lock);

	return kgr_test_reply(buf, len, pos, "pid=%d state=%s waiting=%d\n",
			      nr, kgr_test_fh_states[state], waiting);
}

/*
 * cross_hold: a task held inside kgr_task_cross(), between its read of
 * kgr_trans.switch_allowed and the clear of its mark. The kprobe's handler
 * runs with preemption off, so the hold is a busy wait, as long as a
 * long interrupt or a vCPU the host does not run would be.
 */
enum { KGR_XH_IDLE, KGR_XH_ARMED, KGR_XH_WINDOW, KGR_XH_MARKED, KGR_XH_TIMEOUT };
static const char *const kgr_test_xh_states[] = {
	"idle", "armed", "window", "marked", "timeout",
};
static struct task_struct *kgr_test_xh_target;
static pid_t kgr_test_xh_pid;
static int kgr_test_xh_state;

#ifdef CONFIG_KPROBES
static int kgr_test_xh_pre(struct kprobe *kp, struct pt_regs *regs)
{
	unsigned long end = jiffies + 10 * HZ;

	if (current != READ_ONCE(kgr_test_xh_target) ||
	    cmpxchg(&kgr_test_xh_state, KGR_XH_ARMED, KGR_XH_WINDOW) != KGR_XH_ARMED)
		return 0;
	while (!test_tsk_thread_flag(current, TIF_KGR_IN_PROGRESS)) {
		if (time_after(jiffies, end)) {
			WRITE_ONCE(kgr_test_xh_state, KGR_XH_TIMEOUT);
			return 0;
		}
		cpu_relax();
	}
	WRITE_ONCE(kgr_test_xh_state, KGR_XH_MARKED);
	return 0;
}

static struct kprobe kgr_test_xh_kp;
static bool kgr_test_xh_registered;

/* (kgr_test_kthread_lock held) */
static void kgr_test_xh_stop(void)
{
	if (kgr_test_xh_registered)
		unregister_kprobe(&kgr_test_xh_kp);
	kgr_test_xh_registered = false;
	if (kgr_test_xh_target)
		put_task_struct(kgr_test_xh_target);
	WRITE_ONCE(kgr_test_xh_target, NULL);
	WRITE_ONCE(kgr_test_xh_state, KGR_XH_IDLE);
}

static int kgr_test_xh_start(unsigned int nr)
{
	struct task_struct *target;
	struct pid *pid;
	int ret;

	pid = find_get_pid(nr);
	target = get_pid_task(pid, PIDTYPE_PID);
	put_pid(pid);
	if (!target)
		return -ESRCH;
	kgr_test_xh_pid = nr;
	WRITE_ONCE(kgr_test_xh_target, target);
	WRITE_ONCE(kgr_test_xh_state, KGR_XH_ARMED);
	memset(&kgr_test_xh_kp, 0, sizeof(kgr_test_xh_kp));
	kgr_test_xh_kp.symbol_name = "stack_trace_save_tsk_reliable";
	kgr_test_xh_kp.pre_handler = kgr_test_xh_pre;
	ret = register_kprobe(&kgr_test_xh_kp);
	if (ret) {
		kgr_test_xh_stop();
		return ret;
	}
	kgr_test_xh_registered = true;
	return 0;
}
#else
static void kgr_test_xh_stop(void) { }
static int kgr_test_xh_start(unsigned int nr)
{
	return -EOPNOTSUPP;
}
#endif /* CONFIG_KPROBES */

static ssize_t cross_hold_write(struct file *file, const char __user *buf,
				size_t len, loff_t *pos)
{
	return kgr_test_restart(buf, len, &kgr_test_kthread_lock,
				kgr_test_xh_stop, kgr_test_xh_start);
}

static ssize_t cross_hold_read(struct file *file, char __user *buf,
			       size_t len, loff_t *pos)
{
	int state = READ_ONCE(kgr_test_xh_state);

	return kgr_test_reply(buf, len, pos, "pid=%d state=%s\n",
			      state == KGR_XH_IDLE ? 0 : kgr_test_xh_pid,
			      kgr_test_xh_states[state]);
}

#define KGR_TEST_FILE(_name, _mode, _read, _write)		\
	{ .name = _name, .mode = _mode,				\
	  .ops = { .proc_read = _read, .proc_write = _write,	\
		   .proc_lseek = default_llseek } }

static struct kgr_test_file {
	const char *name;
	umode_t mode;
	struct proc_ops ops;
} kgr_test_files[] = {
	KGR_TEST_FILE("select", 0600, select_read, select_write),
	KGR_TEST_FILE("version", 0444, version_read, NULL),
	KGR_TEST_FILE("trip", 0444, trip_read, NULL),
	KGR_TEST_FILE("trip_intr", 0444, trip_intr_read, NULL),
	KGR_TEST_FILE("release", 0200, NULL, release_write),
	KGR_TEST_FILE("waiting", 0444, waiting_read, NULL),
	KGR_TEST_FILE("spin_ms", 0200, NULL, spin_ms_write),
	KGR_TEST_FILE("spin", 0444, spin_read, NULL),
	KGR_TEST_FILE("spin_bh", 0444, spin_bh_read, NULL),
	KGR_TEST_FILE("kthread", 0600, kthread_read, kthread_write),
	KGR_TEST_FILE("kthread_new", 0600, kthread_new_read, kthread_new_write),
	KGR_TEST_FILE("irq", 0600, irq_read, irq_write),
	KGR_TEST_FILE("irq_select", 0200, NULL, irq_select_write),
	KGR_TEST_FILE("deep", 0600, deep_read, deep_write),
	KGR_TEST_FILE("hog", 0444, hog_read, NULL),
	KGR_TEST_FILE("hogging", 0600, hogging_read, hogging_write),
	KGR_TEST_FILE("fork_hold", 0600, fork_hold_read, fork_hold_write),
	KGR_TEST_FILE("cross_hold", 0600, cross_hold_read, cross_hold_write),
};

static struct proc_dir_entry *kgr_test_dir;

static int __init kgr_test_proc_init(void)
{
	int i;

	kgr_test_dir = proc_mkdir("kgr_test", NULL);
	if (!kgr_test_dir)
		return -ENOMEM;

	for (i = 0; i < ARRAY_SIZE(kgr_test_files); i++) {
		struct kgr_test_file *f = &kgr_test_files[i];

		if (!proc_create(f->name, f->mode, kgr_test_dir, &f->ops)) {
			proc_remove(kgr_test_dir);
			return -ENOMEM;
		}
	}
	return 0;
}

static void __exit kgr_test_proc_exit(void)
{
	mutex_lock(&kgr_test_irq_lock);
	kgr_test_irq_stop();
	mutex_unlock(&kgr_test_irq_lock);
	WRITE_ONCE(kgr_test_kthread_held, false);
	if (kgr_test_kthread)
		kthread_stop(kgr_test_kthread);
	kgr_test_kthread_put(&kgr_test_unstarted);
	kgr_test_kthread_put(&kgr_test_deep_task);
	kgr_test_fh_stop();
	mutex_lock(&kgr_test_kthread_lock);
	kgr_test_xh_stop();
	mutex_unlock(&kgr_test_kthread_lock);
	WRITE_ONCE(kgr_test_released, true);
	wake_up_all(&kgr_test_wq);
	proc_remove(kgr_test_dir);
	kgr_test_fn_put_all();
}

module_init(kgr_test_proc_init);
module_exit(kgr_test_proc_exit);
MODULE_DESCRIPTION("/proc/kgr_test: calls of the kGraft tests' functions");
MODULE_LICENSE("GPL");
