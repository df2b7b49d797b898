// SPDX-License-Identifier: GPL-2.0
/*
 * kgr-bench: the guest side of the kGraft/livepatch benchmark.
 *
 *   kgr-bench call N LOOPS GATE
 *	one timed loop of LOOPS calls of kgr_bench_fn_N() in the kernel
 *	(/proc/kgr_bench/call of samples/kgr-bench/kgr_bench_target), after
 *	waiting in the target's gate if GATE is 1; prints the reply
 *	"fn=N loops=L ns=T sum=S kgr=K klp=P"
 *
 *   kgr-bench trans KIND TAG MODULE BUSY SLEEPERS SLEEP_MS SAMPLE_MS TIMEOUT_S
 *	start BUSY tasks calling getppid() in a loop and SLEEPERS tasks
 *	sleeping in nanosleep() for SLEEP_MS at a time, load the patch
 *	MODULE (KIND kgr: a kGraft patch, done at "kgr succeeded"; klp: a
 *	livepatch, done at "'NAME': patching complete"), and count every
 *	SAMPLE_MS the threads still in the old universe (kgr: the
 *	/proc/PID/task/TID/kgr_in_progress files that read 1; klp: the
 *	patch_state files that read 0), from just before the load until
 *	done or TIMEOUT_S.  Prints
 *	  KGR-BENCH sample TAG KIND t_ms=T old=O threads=N
 *	for each sample (N: all threads) and at the end
 *	  KGR-BENCH trans TAG KIND init_us=I done_us=D
 *	I is how long the module's init (finit_module()) took, D the time
 *	from just before finit_module() to the completion message, both
 *	from the kernel log's own time stamps (D is -1 on timeout).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_CHILDREN	256

static pid_t children[MAX_CHILDREN];
static int nchildren;

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static int cmd_call(int argc, char **argv)
{
	char buf[256];
	ssize_t n;
	int fd;

	if (argc != 5) {
		fprintf(stderr, "usage: kgr-bench call N LOOPS GATE\n");
		return 2;
	}
	fd = open("/proc/kgr_bench/call", O_RDWR);
	if (fd < 0)
		die("/proc/kgr_bench/call");
	n = snprintf(buf, sizeof(buf), "%s %s %s", argv[2], argv[3], argv[4]);
	if (write(fd, buf, n) != n)
		die("write /proc/kgr_bench/call");
	n = read(fd, buf, sizeof(buf) - 1);
	if (n <= 0)
		die("read /proc/kgr_bench/call");
	buf[n] = '\0';
	fputs(buf, stdout);
	close(fd);
	return 0;
}

static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* fork a child that runs BODY, a loop that never returns */
static void spawn(void (*body)(void))
{
	pid_t pid;

	if (nchildren == MAX_CHILDREN) {
		fprintf(stderr, "kgr-bench: too many tasks\n");
		exit(2);
	}
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0)
		body();
	children[nchildren++] = pid;
}

static void reap(void)
{
	int i;

	for (i = 0; i < nchildren; i++)
		kill(children[i], SIGKILL);
	for (i = 0; i < nchildren; i++)
		waitpid(children[i], NULL, 0);
	nchildren = 0;
}

/* the first character of FILE, or 0 */
static int first_char(const char *file)
{
	char c[4];
	int fd = open(file, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, c, sizeof(c));
	close(fd);
	return n > 0 ? c[0] : 0;
}

/* threads whose FILE reads OLD; *threads gets the number of all threads */
static int count_old(const char *file, int old, int *threads)
{
	char path[600];
	struct dirent *p, *t;
	DIR *proc, *task;
	int n = 0;

	*threads = 0;
	proc = opendir("/proc");
	if (!proc)
		die("/proc");
	while ((p = readdir(proc))) {
		if (!isdigit((unsigned char)p->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task", p->d_name);
		task = opendir(path);
		if (!task)
			continue;
		while ((t = readdir(task))) {
			if (!isdigit((unsigned char)t->d_name[0]))
				continue;
			snprintf(path, sizeof(path), "/proc/%s/task/%s/%s",
				 p->d_name, t->d_name, file);
			(*threads)++;
			if (first_char(path) == old)
				n++;
		}
		closedir(task);
	}
	closedir(proc);
	return n;
}

/* what the children of "trans" do */
static struct {
	const char *tag, *kind, *file;
	int old_c, sample_ms;
	long sleep_ms;
	long long t0;
} trans;

static void busy_body(void)
{
	for (;;)
		syscall(SYS_getppid);
}

static void sleeper_body(void)
{
	for (;;)
		sleep_ms(trans.sleep_ms);
}

static void sampler_body(void)
{
	int threads;

	for (;;) {
		long long t = now_us();
		int old = count_old(trans.file, trans.old_c, &threads);

		printf("KGR-BENCH sample %s %s t_ms=%lld old=%d threads=%d\n",
		       trans.tag, trans.kind, (t - trans.t0) / 1000, old, threads);
		sleep_ms(trans.sample_ms);
	}
}

/*
 * Read what /dev/kmsg has now (records "PRIO,SEQ,TS,FLAGS;TEXT"); for
 * each needle[i] not yet found (ts[i] < 0) whose text a record contains,
 * set ts[i] to that record's time stamp in microseconds.
 */
static void kmsg_scan(int fd, const char *const *needle, long long *ts, int n)
{
	char rec[2048];
	ssize_t len;
	int i;

	for (;;) {
		len = read(fd, rec, sizeof(rec) - 1);
		if (len < 0) {
			if (errno == EPIPE)	/* overwritten records */
				continue;
			break;			/* EAGAIN: nothing more now */
		}
		rec[len] = '\0';
		for (i = 0; i < n; i++) {
			char *p;

			if (ts[i] >= 0 || !strstr(rec, needle[i]))
				continue;
			p = strchr(rec, ',');
			p = p ? strchr(p + 1, ',') : NULL;
			if (p)
				ts[i] = strtoll(p + 1, NULL, 10);
		}
	}
}

/* add MSG to the kernel log */
static void kmsg_write(const char *msg)
{
	char line[256];
	int fd, n;

	fd = open("/dev/kmsg", O_WRONLY);
	if (fd < 0)
		die("/dev/kmsg");
	n = snprintf(line, sizeof(line), "<6>%s\n", msg);
	if (write(fd, line, n) != n)
		die("write /dev/kmsg");
	close(fd);
}

static int cmd_trans(int argc, char **argv)
{
	char needle[160], mark0[160], mark1[160];
	const char *kind, *tag, *module, *file, *name;
	const char *needles[3] = { mark0, mark1, needle };
	long long ts[3] = { -1, -1, -1 };
	int busy, sleepers, sample_ms, timeout_s, old_c, i;
	int mfd, kfd, extra = 0;
	long long t_end;

	if (argc != 10) {
		fprintf(stderr, "usage: kgr-bench trans KIND TAG MODULE BUSY SLEEPERS SLEEP_MS\n"
			"       SAMPLE_MS TIMEOUT_S\n");
		return 2;
	}
	kind = argv[2];
	tag = argv[3];
	module = argv[4];
	busy = atoi(argv[5]);
	sleepers = atoi(argv[6]);
	trans.sleep_ms = atol(argv[7]);
	sample_ms = atoi(argv[8]);
	timeout_s = atoi(argv[9]);

	name = strrchr(module, '/');
	name = name ? name + 1 : module;
	if (!strcmp(kind, "kgr")) {
		file = "kgr_in_progress";
		old_c = '1';
		snprintf(needle, sizeof(needle), "kgr succeeded");
	} else if (!strcmp(kind, "klp")) {
		file = "patch_state";
		old_c = '0';
		/* the module name: the file name without .ko */
		snprintf(needle, sizeof(needle), "'%.*s': patching complete",
			 (int)(strcspn(name, ".")), name);
	} else {
		fprintf(stderr, "kgr-bench: KIND is kgr or klp\n");
		return 2;
	}

	mfd = open(module, O_RDONLY | O_CLOEXEC);
	if (mfd < 0)
		die(module);
	kfd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kfd < 0)
		die("/dev/kmsg");
	lseek(kfd, 0, SEEK_END);

	for (i = 0; i < busy; i++)
		spawn(busy_body);
	for (i = 0; i < sleepers; i++)
		spawn(sleeper_body);
	sleep_ms(500);	/* let them all get going */

	/*
	 * A child counts the old universe from just before finit_module() on,
	 * so that the samples show the switches during the init as well.
	 */
	trans.tag = tag;
	trans.kind = kind;
	trans.file = file;
	trans.old_c = old_c;
	trans.sample_ms = sample_ms;
	trans.t0 = now_us();
	spawn(sampler_body);

	/* needles: the two marks around finit_module(), the completion */
	snprintf(mark0, sizeof(mark0), "kgr-bench: %s %s: loading %s", tag, kind, name);
	snprintf(mark1, sizeof(mark1), "kgr-bench: %s %s: loaded", tag, kind);
	kmsg_write(mark0);
	if (syscall(SYS_finit_module, mfd, "", 0)) {
		perror("finit_module");
		reap();
		return 1;
	}
	kmsg_write(mark1);
	close(mfd);

	t_end = trans.t0 + timeout_s * 1000000LL;
	for (;;) {
		kmsg_scan(kfd, needles, ts, 3);
		if (ts[0] >= 0 && ts[1] >= 0 && ts[2] >= 0 && extra++ >= 2)
			break;
		if (now_us() > t_end)
			break;
		sleep_ms(sample_ms);
	}
	reap();

	printf("KGR-BENCH trans %s %s init_us=%lld done_us=%lld\n",
	       tag, kind, ts[0] >= 0 && ts[1] >= 0 ? ts[1] - ts[0] : -1,
	       ts[0] >= 0 && ts[2] >= 0 ? ts[2] - ts[0] : -1);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && !strcmp(argv[1], "call"))
		return cmd_call(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "trans"))
		return cmd_trans(argc, argv);
	fprintf(stderr, "usage: kgr-bench call|trans ... (see the source)\n");
	return 2;
}
