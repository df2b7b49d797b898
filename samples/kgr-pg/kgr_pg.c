// SPDX-License-Identifier: GPL-2.0
/*
 * kgr_pg -- a kGraft patch of the system calls a PostgreSQL server and
 * its pgbench clients make all the time, for debian-guest/kgr-pg-bench ("make bench-debian-pg"):
 *
 *   ksys_read, ksys_write           read(2), write(2): WAL, pipes, signalfd
 *   __x64_sys_pread64, _pwrite64    data pages and WAL segments
 *   __x64_sys_sendto, _recvfrom     send(2) and recv(2) of the protocol
 *   __x64_sys_epoll_wait            WaitEventSetWait(): every idle process
 *   __x64_sys_futex                 the semaphores of LWLocks, glibc locks
 *   __x64_sys_fsync, _fdatasync     commits (wal_sync_method) and checkpoints
 *
 * Each new function does what the one it replaces does, step for step,
 * with the same callees: a program cannot tell which version ran.  The
 * callees that the kernel does not export are reached by .kgr.sym
 * references, resolved from kallsyms when the module loads (hence GPL
 * and MODULE_INFO(kgraft, "Y")).  The functions whose bodies gcc put
 * into their callers are patched at the level where a symbol exists
 * (pread64's and fsync's system call entries, whose ksys_* is inlined).
 *
 * The new code only adds a per-CPU count of its calls, which the module
 * prints when it is removed: the proof that the server ran it.
 */
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/futex.h>
#include <linux/kgr.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/ptrace.h>
#include <linux/socket.h>
#include <linux/time_namespace.h>
#include <linux/uaccess.h>

struct epoll_event;

/* The kernel's unexported functions, each under a name of our own. */
#define KGR_PG_SYM(name)	__asm__("\".kgr.sym.vmlinux." #name ",0\"")

unsigned long kgr_pg_fdget_pos(unsigned int fd) KGR_PG_SYM(__fdget_pos);
void kgr_pg_f_unlock_pos(struct file *file) KGR_PG_SYM(__f_unlock_pos);
ssize_t kgr_pg_vfs_read(struct file *file, char __user *buf, size_t count,
			loff_t *pos) KGR_PG_SYM(vfs_read);
ssize_t kgr_pg_vfs_write(struct file *file, const char __user *buf,
			 size_t count, loff_t *pos) KGR_PG_SYM(vfs_write);
int kgr_pg_sys_sendto_impl(int fd, void __user *buff, size_t len,
			   unsigned int flags, struct sockaddr __user *addr,
			   int addr_len) KGR_PG_SYM(__sys_sendto);
int kgr_pg_sys_recvfrom_impl(int fd, void __user *ubuf, size_t size,
			     unsigned int flags, struct sockaddr __user *addr,
			     int __user *addr_len) KGR_PG_SYM(__sys_recvfrom);
struct timespec64 kgr_pg_timespec64_add_safe(const struct timespec64 lhs,
					     const struct timespec64 rhs)
	KGR_PG_SYM(timespec64_add_safe);
/* fs/eventpoll.c's epoll_wait(): do_epoll_pwait(), restarted after a nudge */
int kgr_pg_ep_wait_restartable(int epfd, struct epoll_event __user *events,
			       int maxevents, struct timespec64 *to,
			       const void __user *sigmask, size_t sigsetsize,
			       bool compat) KGR_PG_SYM(ep_wait_restartable);
long kgr_pg_do_futex(u32 __user *uaddr, int op, u32 val, ktime_t *timeout,
		     u32 __user *uaddr2, u32 val2, u32 val3) KGR_PG_SYM(do_futex);
extern struct time_namespace kgr_pg_init_time_ns KGR_PG_SYM(init_time_ns);
ktime_t kgr_pg_do_timens_ktime_to_host(clockid_t clockid, ktime_t tim,
				       struct timens_offsets *offsets)
	KGR_PG_SYM(do_timens_ktime_to_host);
#ifdef CONFIG_FAIL_FUTEX
bool kgr_pg_should_fail_futex(bool fshared) KGR_PG_SYM(should_fail_futex);
#else
static inline bool kgr_pg_should_fail_futex(bool fshared)
{
	return false;
}
#endif

/* how often each new function ran, per CPU; printed at module removal */
enum {
	KGR_PG_READ, KGR_PG_WRITE, KGR_PG_PREAD, KGR_PG_PWRITE,
	KGR_PG_SENDTO, KGR_PG_RECVFROM, KGR_PG_EPOLL, KGR_PG_FUTEX,
	KGR_PG_FSYNC, KGR_PG_FDATASYNC, KGR_PG_NR
};
static const char *const kgr_pg_names[KGR_PG_NR] = {
	"read", "write", "pread64", "pwrite64", "sendto", "recvfrom",
	"epoll_wait", "futex", "fsync", "fdatasync",
};
static DEFINE_PER_CPU(unsigned long [KGR_PG_NR], kgr_pg_calls);

static inline void kgr_pg_count(int which)
{
	this_cpu_inc(kgr_pg_calls[which]);
}

/* fs/read_write.c: the position to use, NULL for a stream */
static inline loff_t *kgr_pg_file_ppos(struct file *file)
{
	return file->f_mode & FMODE_STREAM ? NULL : &file->f_pos;
}

static ssize_t kgr_pg_ksys_read(unsigned int fd, char __user *buf,
				size_t count)
{
	struct fd f = __to_fd(kgr_pg_fdget_pos(fd));
	loff_t pos, *ppos;
	ssize_t ret;

	kgr_pg_count(KGR_PG_READ);
	if (!f.file)
		return -EBADF;
	ppos = kgr_pg_file_ppos(f.file);
	if (ppos) {
		pos = *ppos;
		ppos = &pos;
	}
	ret = kgr_pg_vfs_read(f.file, buf, count, ppos);
	if (ret >= 0 && ppos)
		f.file->f_pos = pos;
	if (f.flags & FDPUT_POS_UNLOCK)
		kgr_pg_f_unlock_pos(f.file);
	fdput(f);
	return ret;
}
KGR_PATCHED_FUNCTION(patch, ksys_read, kgr_pg_ksys_read);

static ssize_t kgr_pg_ksys_write(unsigned int fd, const char __user *buf,
				 size_t count)
{
	struct fd f = __to_fd(kgr_pg_fdget_pos(fd));
	loff_t pos, *ppos;
	ssize_t ret;

	kgr_pg_count(KGR_PG_WRITE);
	if (!f.file)
		return -EBADF;
	ppos = kgr_pg_file_ppos(f.file);
	if (ppos) {
		pos = *ppos;
		ppos = &pos;
	}
	ret = kgr_pg_vfs_write(f.file, buf, count, ppos);
	if (ret >= 0 && ppos)
		f.file->f_pos = pos;
	if (f.flags & FDPUT_POS_UNLOCK)
		kgr_pg_f_unlock_pos(f.file);
	fdput(f);
	return ret;
}
KGR_PATCHED_FUNCTION(patch, ksys_write, kgr_pg_ksys_write);

/*
 * The system call entries take the saved registers, in the order of the
 * x86-64 calling convention for system calls: di, si, dx, r10, r8, r9.
 */
static long kgr_pg_sys_pread64(const struct pt_regs *regs)
{
	unsigned int fd = regs->di;
	char __user *buf = (char __user *)regs->si;
	size_t count = regs->dx;
	loff_t pos = regs->r10;
	ssize_t ret = -ESPIPE;
	struct fd f;

	kgr_pg_count(KGR_PG_PREAD);
	if (pos < 0)
		return -EINVAL;
	f = fdget(fd);
	if (!f.file)
		return -EBADF;
	if (f.file->f_mode & FMODE_PREAD)
		ret = kgr_pg_vfs_read(f.file, buf, count, &pos);
	fdput(f);
	return ret;
}
KGR_PATCHED_FUNCTION(patch, __x64_sys_pread64, kgr_pg_sys_pread64);

static long kgr_pg_sys_pwrite64(const struct pt_regs *regs)
{
	unsigned int fd = regs->di;
	const char __user *buf = (const char __user *)regs->si;
	size_t count = regs->dx;
	loff_t pos = regs->r10;
	ssize_t ret = -ESPIPE;
	struct fd f;

	kgr_pg_count(KGR_PG_PWRITE);
	if (pos < 0)
		return -EINVAL;
	f = fdget(fd);
	if (!f.file)
		return -EBADF;
	if (f.file->f_mode & FMODE_PWRITE)
		ret = kgr_pg_vfs_write(f.file, buf, count, &pos);
	fdput(f);
	return ret;
}
KGR_PATCHED_FUNCTION(patch, __x64_sys_pwrite64, kgr_pg_sys_pwrite64);

static long kgr_pg_sys_sendto(const struct pt_regs *regs)
{
	kgr_pg_count(KGR_PG_SENDTO);
	return kgr_pg_sys_sendto_impl((int)regs->di, (void __user *)regs->si,
				      (size_t)regs->dx,
				      (unsigned int)regs->r10,
				      (struct sockaddr __user *)regs->r8,
				      (int)regs->r9);
}
KGR_PATCHED_FUNCTION(patch, __x64_sys_sendto, kgr_pg_sys_sendto);

static long kgr_pg_sys_recvfrom(const struct pt_regs *regs)
{
	kgr_pg_count(KGR_PG_RECVFROM);
	return kgr_pg_sys_recvfrom_impl((int)regs->di, (void __user *)regs->si,
					(size_t)regs->dx,
					(unsigned int)regs->r10,
					(struct sockaddr __user *)regs->r8,
					(int __user *)regs->r9);
}
KGR_PATCHED_FUNCTION(patch, __x64_sys_recvfrom, kgr_pg_sys_recvfrom);

/* fs/eventpoll.c: a timeout in ms to an absolute end, NULL for none */
static struct timespec64 *kgr_pg_ep_timeout(struct timespec64 *to, long ms)
{
	struct timespec64 now;

	if (ms < 0)
		return NULL;
	if (!ms) {
		to->tv_sec = 0;
		to->tv_nsec = 0;
		return to;
	}
	to->tv_sec = ms / MSEC_PER_SEC;
	to->tv_nsec = NSEC_PER_MSEC * (ms % MSEC_PER_SEC);
	ktime_get_ts64(&now);
	*to = kgr_pg_timespec64_add_safe(now, *to);
	return to;
}

static long kgr_pg_sys_epoll_wait(const struct pt_regs *regs)
{
	struct timespec64 to;

	kgr_pg_count(KGR_PG_EPOLL);
	return kgr_pg_ep_wait_restartable((int)regs->di,
					  (struct epoll_event __user *)regs->si,
					  (int)regs->dx,
					  kgr_pg_ep_timeout(&to, (int)regs->r10),
					  NULL, 0, false);
}
KGR_PATCHED_FUNCTION(patch, __x64_sys_epoll_wait, kgr_pg_sys_epoll_wait);

/* kernel/futex/syscalls.c: the operations that take a timeout */
static bool kgr_pg_futex_has_timeout(u32 cmd)
{
	switch (cmd) {
	case FUTEX_WAIT:
	case FUTEX_LOCK_PI:
	case FUTEX_LOCK_PI2:
	case FUTEX_WAIT_BITSET:
	case FUTEX_WAIT_REQUEUE_PI:
		return true;
	}
	return false;
}

/* the timeout as the futex code wants it: absolute, on the host's clock */
static int kgr_pg_futex_timeout(u32 cmd, u32 op, struct timespec64 *ts,
				ktime_t *t)
{
	struct time_namespace *ns;

	if (!timespec64_valid(ts))
		return -EINVAL;
	*t = timespec64_to_ktime(*ts);
	if (cmd == FUTEX_WAIT) {
		*t = ktime_add_safe(ktime_get(), *t);
	} else if (cmd != FUTEX_LOCK_PI && !(op & FUTEX_CLOCK_REALTIME)) {
		ns = current->nsproxy->time_ns;
		if (ns != &kgr_pg_init_time_ns)
			*t = kgr_pg_do_timens_ktime_to_host(CLOCK_MONOTONIC, *t,
							    &ns->offsets);
	}
	return 0;
}

static long kgr_pg_sys_futex(const struct pt_regs *regs)
{
	u32 __user *uaddr = (u32 __user *)regs->di;
	int op = regs->si;
	u32 val = regs->dx;
	const struct __kernel_timespec __user *utime =
		(const struct __kernel_timespec __user *)regs->r10;
	u32 __user *uaddr2 = (u32 __user *)regs->r8;
	u32 val3 = regs->r9;
	int ret, cmd = op & FUTEX_CMD_MASK;
	ktime_t t, *tp = NULL;
	struct timespec64 ts;

	kgr_pg_count(KGR_PG_FUTEX);
	if (utime && kgr_pg_futex_has_timeout(cmd)) {
		if (unlikely(kgr_pg_should_fail_futex(!(op & FUTEX_PRIVATE_FLAG))))
			return -EFAULT;
		if (get_timespec64(&ts, utime))
			return -EFAULT;
		ret = kgr_pg_futex_timeout(cmd, op, &ts, &t);
		if (ret)
			return ret;
		tp = &t;
	}
	return kgr_pg_do_futex(uaddr, op, val, tp, uaddr2,
			       (unsigned long)utime, val3);
}
KGR_PATCHED_FUNCTION(patch, __x64_sys_futex, kgr_pg_sys_futex);

/* fs/sync.c's do_fsync() */
static long kgr_pg_fsync(unsigned int fd, int datasync)
{
	struct fd f = fdget(fd);
	int ret;

	if (!f.file)
		return -EBADF;
	ret = vfs_fsync(f.file, datasync);
	fdput(f);
	return ret;
}

static long kgr_pg_sys_fsync(const struct pt_regs *regs)
{
	kgr_pg_count(KGR_PG_FSYNC);
	return kgr_pg_fsync((unsigned int)regs->di, 0);
}
KGR_PATCHED_FUNCTION(patch, __x64_sys_fsync, kgr_pg_sys_fsync);

static long kgr_pg_sys_fdatasync(const struct pt_regs *regs)
{
	kgr_pg_count(KGR_PG_FDATASYNC);
	return kgr_pg_fsync((unsigned int)regs->di, 1);
}
KGR_PATCHED_FUNCTION(patch, __x64_sys_fdatasync, kgr_pg_sys_fdatasync);

static struct kgr_patch patch = {
	.patches = {
		KGR_PATCH(ksys_read),
		KGR_PATCH(ksys_write),
		KGR_PATCH(__x64_sys_pread64),
		KGR_PATCH(__x64_sys_pwrite64),
		KGR_PATCH(__x64_sys_sendto),
		KGR_PATCH(__x64_sys_recvfrom),
		KGR_PATCH(__x64_sys_epoll_wait),
		KGR_PATCH(__x64_sys_futex),
		KGR_PATCH(__x64_sys_fsync),
		KGR_PATCH(__x64_sys_fdatasync),
		KGR_PATCH_END
	}
};

static int __init kgr_pg_init(void)
{
	return kgr_start_patching(&patch);
}
module_init(kgr_pg_init);

/* reached only once the patch is reverted: kGraft holds the module until then */
static void __exit kgr_pg_exit(void)
{
	unsigned long sum;
	char buf[256];
	int i, cpu, len = 0;

	for (i = 0; i < KGR_PG_NR; i++) {
		sum = 0;
		for_each_possible_cpu(cpu)
			sum += per_cpu(kgr_pg_calls, cpu)[i];
		len += scnprintf(buf + len, sizeof(buf) - len, " %s=%lu",
				 kgr_pg_names[i], sum);
	}
	pr_info("kgr_pg: calls of the new code:%s\n", buf);
}
module_exit(kgr_pg_exit);

MODULE_DESCRIPTION("kGraft patch of PostgreSQL's hot system calls, same behaviour");
MODULE_LICENSE("GPL");
MODULE_INFO(kgraft, "Y");
