// SPDX-License-Identifier: GPL-2.0
/*
 * kgr_test_target -- functions for the kGraft tests to patch, and a /proc
 * interface through which user space calls them.
 *
 * kgr_test_fn_1() ... kgr_test_fn_KGR_TEST_NFN() return KGR_TEST_OLD;
 * kgr_test_patch_N makes kgr_test_fn_N() return KGR_TEST_NEW. The files
 * in /proc/kgr_test/ call the function chosen with 'select':
 *
 *   select   write N: the function the files below call (default 1)
 *   version  read: "V\n", from one call
 *   trip     read: one call, then sleep until released, then a second
 *            call, all in one system call: "V1 V2\n"
 *   release  write 1: let every trip reader through; 0: re-arm
 *   waiting  read: how many trip readers are asleep
 *   spin_ms  write MS: how long a spin read lasts (default 2000)
 *   spin     read: call the function in a loop for spin_ms, with
 *            cond_resched(), all in one system call:
 *            "calls=C first=F last=L old2new=A new2old=B\n"
 *   kthread  write 1: start (once) the test kthread "kgr_test_kthread"
 *            and hold it: it then calls the function every 100 ms and
 *            never passes a safe point (no kthread_should_stop(), no
 *            kgr_task_safe()); write 0: release it, it then loops through
 *            kthread_should_stop() again.
 *            read: "pid=P held=H version=V", V from its latest call
 */
#include <linux/atomic.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/sched.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

#include "kgr_test.h"

/*
 * Each function counts its calls in a variable of its own, so that the
 * compiler cannot fold them into one (gcc's -fipa-icf).
 */
#define KGR_TEST_FN_DEFINE(n)					\
	static unsigned long kgr_test_calls_##n;		\
	noinline int kgr_test_fn_##n(void)			\
	{							\
		WRITE_ONCE(kgr_test_calls_##n,			\
			   READ_ONCE(kgr_test_calls_##n) + 1);	\
		return KGR_TEST_OLD;				\
	}

KGR_TEST_FN_DEFINE(1)
KGR_TEST_FN_DEFINE(2)
KGR_TEST_FN_DEFINE(3)
KGR_TEST_FN_DEFINE(4)
KGR_TEST_FN_DEFINE(5)
KGR_TEST_FN_DEFINE(6)
KGR_TEST_FN_DEFINE(7)
KGR_TEST_FN_DEFINE(8)
KGR_TEST_FN_DEFINE(9)
KGR_TEST_FN_DEFINE(10)

static int (*const kgr_test_fns[KGR_TEST_NFN])(void) = {
	kgr_test_fn_1, kgr_test_fn_2, kgr_test_fn_3, kgr_test_fn_4,
	kgr_test_fn_5, kgr_test_fn_6, kgr_test_fn_7, kgr_test_fn_8,
	kgr_test_fn_9, kgr_test_fn_10,
};

static unsigned int kgr_test_selected = 1;
static unsigned int kgr_test_spin_ms = 2000;
static bool kgr_test_released;
static atomic_t kgr_test_waiting = ATOMIC_INIT(0);
static DECLARE_WAIT_QUEUE_HEAD(kgr_test_wq);

static int kgr_test_call(void)
{
	return kgr_test_fns[READ_ONCE(kgr_test_selected) - 1]();
}

static struct task_struct *kgr_test_kthread;
static bool kgr_test_kthread_held;
static int kgr_test_kthread_version;
static DEFINE_MUTEX(kgr_test_kthread_lock);

static int kgr_test_kthread_fn(void *unused)
{
	while (!kthread_should_stop()) {
		/* held: no safe point in this loop */
		while (READ_ONCE(kgr_test_kthread_held)) {
			WRITE_ONCE(kgr_test_kthread_version, kgr_test_call());
			schedule_timeout_interruptible(HZ / 10);
		}
		WRITE_ONCE(kgr_test_kthread_version, kgr_test_call());
		schedule_timeout_interruptible(HZ / 10);
	}
	return 0;
}

static ssize_t kgr_test_reply(char __user *buf, size_t len, loff_t *pos,
			      const char *fmt, ...)
{
	char reply[96];
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

static ssize_t select_write(struct file *file, const char __user *buf,
			    size_t len, loff_t *pos)
{
	unsigned int n;
	int ret = kgr_test_get_uint(buf, len, &n);

	if (ret)
		return ret;
	if (n < 1 || n > KGR_TEST_NFN)
		return -EINVAL;
	WRITE_ONCE(kgr_test_selected, n);
	return len;
}

static ssize_t select_read(struct file *file, char __user *buf, size_t len,
			   loff_t *pos)
{
	return kgr_test_reply(buf, len, pos, "%u\n",
			      READ_ONCE(kgr_test_selected));
}

static ssize_t version_read(struct file *file, char __user *buf,
			    size_t len, loff_t *pos)
{
	if (*pos)
		return 0;
	return kgr_test_reply(buf, len, pos, "%d\n", kgr_test_call());
}

static ssize_t trip_read(struct file *file, char __user *buf, size_t len,
			 loff_t *pos)
{
	int v1, v2, ret;

	if (*pos)
		return 0;

	v1 = kgr_test_call();
	atomic_inc(&kgr_test_waiting);
	ret = wait_event_interruptible(kgr_test_wq, READ_ONCE(kgr_test_released));
	atomic_dec(&kgr_test_waiting);
	if (ret)
		return ret;
	v2 = kgr_test_call();

	return kgr_test_reply(buf, len, pos, "%d %d\n", v1, v2);
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

	return kgr_test_reply(buf, len, pos, "pid=%d held=%d version=%d\n", pid,
			      READ_ONCE(kgr_test_kthread_held),
			      READ_ONCE(kgr_test_kthread_version));
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
	KGR_TEST_FILE("release", 0200, NULL, release_write),
	KGR_TEST_FILE("waiting", 0444, waiting_read, NULL),
	KGR_TEST_FILE("spin_ms", 0200, NULL, spin_ms_write),
	KGR_TEST_FILE("spin", 0444, spin_read, NULL),
	KGR_TEST_FILE("kthread", 0600, kthread_read, kthread_write),
};

static struct proc_dir_entry *kgr_test_dir;

static int __init kgr_test_target_init(void)
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

static void __exit kgr_test_target_exit(void)
{
	WRITE_ONCE(kgr_test_kthread_held, false);
	if (kgr_test_kthread)
		kthread_stop(kgr_test_kthread);
	WRITE_ONCE(kgr_test_released, true);
	wake_up_all(&kgr_test_wq);
	proc_remove(kgr_test_dir);
}

module_init(kgr_test_target_init);
module_exit(kgr_test_target_exit);
MODULE_DESCRIPTION("functions for the kGraft tests to patch");
MODULE_LICENSE("GPL");
