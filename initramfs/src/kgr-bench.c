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
 *   kgr-bench trans KIND TAG MODULE BUSY SLEEPERS SLEEP_MS DAEMONS SAMPLE_MS
 *		     TIMEOUT_S
 *	start BUSY tasks calling getppid() in a loop, SLEEPERS tasks
 *	sleeping in nanosleep() for SLEEP_MS at a time and DAEMONS tasks of
 *	each kind below, asleep in the kernel for good as idle daemons are
 *	(nothing ever wakes them; the timeouts are an hour), load the patch
 *	MODULE (KIND kgr: a kGraft patch, done at "kgr succeeded"; klp: a
 *	livepatch, done at "'NAME': patching complete"), and count every
 *	SAMPLE_MS the threads still in the old universe (kgr: the
 *	/proc/PID/task/TID/kgr_in_progress files that read 1; klp: the
 *	patch_state files that read 0), from just before the load until
 *	done or TIMEOUT_S.  Prints
 *	  KGR-BENCH sample TAG KIND t_ms=T old=O threads=N
 *	for each sample (N: all threads) and at the end
 *	  KGR-BENCH trans TAG KIND init_us=I done_us=D[ fin_ms=A last_us=B
 *	  trigger=T work_us=W]
 *	  KGR-BENCH daemons TAG KIND tasks=N returned=R
 *	and, before the load, where the first daemon of each kind sleeps
 *	(/proc/PID/wchan, in the order of the list below)
 *	  KGR-BENCH asleep TAG KIND WCHAN,WCHAN,...
 *	I is how long the module's init (finit_module()) took, D the time
 *	from just before finit_module() to the end of the transition, both
 *	from the kernel log's own time stamps (D is -1 on timeout).  The end
 *	is livepatch's "'NAME': patching complete", logged once it is all
 *	done, and kGraft's "kgr: transition finalized A ms after its start,
 *	B us after the last task crossed (checked at once|periodic check)",
 *	logged after kgr_finalize() (the switch to the fast stubs), which
 *	comes after "kgr succeeded".  A, B and T (at-once or periodic) are
 *	from that line, W is the time from "kgr succeeded" to it, what
 *	kgr_finalize() took (all -1 when a line is missing).  R counts
 *	the system calls of the daemons that returned during the run at
 *	all: none should (a nudge must restart the call transparently).
 *
 *	The daemons, DAEMONS of each kind:
 *	  poll    poll() on a pipe nobody writes, 1 h timeout
 *	  epoll   epoll_wait() on that pipe, no timeout
 *	  read    read() of that pipe
 *	  futex   FUTEX_WAIT on a word nobody changes, no timeout
 *	  select  select() on that pipe, 1 h timeout
 *	  pause   pause()
 *	  wait4   wait4() for a child of its own that sleeps in pause()
 *		  (two tasks)
 *
 *   kgr-bench threads KIND TAG MODULE N MODE TIMEOUT_S [PARAMS]
 *	start N threads in one process, MODE sleep: each asleep in a
 *	FUTEX_WAIT that nothing ends (a call kGraft nudges, and the thread
 *	restarts it); busy: each calling getppid() in a loop at nice 19;
 *	mix: half of each; sleepfn: as sleep, for a patch that settles for
 *	function-level consistency (PARAMS say so). Meanwhile a task forks a
 *	child that exits at once, again and again, and times each fork()
 *	and wait. Then load MODULE with its
 *	parameters PARAMS (KIND as for trans) and wait for the end of the
 *	transition, or TIMEOUT_S; then revert the patch, with the threads
 *	still there (kgr: write 1 to /sys/kernel/kgraft/NAME/revert; klp:
 *	0 to /sys/kernel/livepatch/NAME/enabled), and wait for the end of
 *	that transition too. The module stays loaded. Prints
 *	  KGR-BENCH threads TAG KIND n=N mode=MODE spawn_ms=S init_us=I
 *	  done_us=D forks=F fork_max_us=M fork_base_max_us=B
 *	  revert_us=V rforks=RF rfork_max_us=RM returned=R
 *	S is how long the threads took to start, I and D as for trans (D
 *	-1 on timeout), F the forks from the load to the end, M the
 *	longest of them, B the longest of the forks in the second before
 *	the load (the same machine without a transition), V the time from
 *	just before the write that starts the revert to the end of its
 *	transition (-1 on timeout, or when the apply did not end), RF and
 *	RM the forks during the revert and the longest of them, R the
 *	FUTEX_WAITs that returned during apply and revert (none should: a
 *	nudge restarts the call).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/select.h>
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
	/*
	 * shared: the samples the sampler has printed, so that the parent
	 * does not kill it before its first one (a count of every thread
	 * can take longer than a whole transition on a slow kernel)
	 */
	volatile int *samples;
} trans;

/*
 * The daemons.  The pipe's write end stays open in every task and nobody
 * writes it; *daemon_returned (shared memory) counts the calls that
 * returned anyway.
 */
#define DAEMON_TIMEOUT_MS	(3600 * 1000)

static int daemon_pipe[2];
static volatile int *daemon_returned;

static void daemon_returned_once(void)
{
	__atomic_add_fetch(daemon_returned, 1, __ATOMIC_SEQ_CST);
}

static void poll_body(void)
{
	struct pollfd p = { .fd = daemon_pipe[0], .events = POLLIN };

	for (;;) {
		poll(&p, 1, DAEMON_TIMEOUT_MS);
		daemon_returned_once();
	}
}

static void epoll_body(void)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int ep = epoll_create1(0);

	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, daemon_pipe[0], &ev))
		die("epoll");
	for (;;) {
		epoll_wait(ep, &ev, 1, -1);
		daemon_returned_once();
	}
}

static void read_body(void)
{
	char c;

	for (;;) {
		read(daemon_pipe[0], &c, 1);
		daemon_returned_once();
	}
}

static void futex_body(void)
{
	static int word;

	for (;;) {
		syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
		daemon_returned_once();
	}
}

static void select_body(void)
{
	for (;;) {
		struct timeval tv = { DAEMON_TIMEOUT_MS / 1000, 0 };
		fd_set r;

		FD_ZERO(&r);
		FD_SET(daemon_pipe[0], &r);
		select(daemon_pipe[0] + 1, &r, NULL, NULL, &tv);
		daemon_returned_once();
	}
}

static void pause_body(void)
{
	for (;;) {
		pause();
		daemon_returned_once();
	}
}

static void wait4_body(void)
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (pid == 0) {
		/* killed with its parent by reap() */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() == 1)
			_exit(0);
		pause_body();
	}
	for (;;) {
		wait4(pid, NULL, 0, NULL);
		daemon_returned_once();
	}
}

static void (*const daemon_bodies[])(void) = {
	poll_body, epoll_body, read_body, futex_body, select_body,
	pause_body, wait4_body,
};
#define NDAEMON_KINDS	(sizeof(daemon_bodies) / sizeof(daemon_bodies[0]))

/* the state of PID in /proc/PID/stat ('S', 'R', ...), or 0 */
static char proc_state(pid_t pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

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
		__atomic_add_fetch(trans.samples, 1, __ATOMIC_SEQ_CST);
		sleep_ms(trans.sample_ms);
	}
}

/*
 * Read what /dev/kmsg has now (records "PRIO,SEQ,TS,FLAGS;TEXT"); for
 * each needle[i] not yet found (ts[i] < 0) whose text a record contains,
 * set ts[i] to that record's time stamp in microseconds and copy the
 * text from the needle on to text[i] (KMSG_TEXT bytes).
 */
#define KMSG_TEXT	256

static void kmsg_scan(int fd, const char *const *needle, long long *ts,
		      char (*text)[KMSG_TEXT], int n)
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
			char *p, *q;

			if (ts[i] >= 0 || !(q = strstr(rec, needle[i])))
				continue;
			snprintf(text[i], KMSG_TEXT, "%.*s",
				 (int)strcspn(q, "\n"), q);
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

/* MODULE's file, and the kernel log from its end: what a load needs */
static void open_module_and_log(const char *module, int *mfd, int *kfd)
{
	*mfd = open(module, O_RDONLY | O_CLOEXEC);
	if (*mfd < 0)
		die(module);
	*kfd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (*kfd < 0)
		die("/dev/kmsg");
	lseek(*kfd, 0, SEEK_END);
}

/* the kernel log's line for the end of livepatch's transition of NAME.ko */
static void klp_done_needle(char *buf, size_t size, const char *name)
{
	/* the module name: the file name without .ko */
	snprintf(buf, size, "'%.*s': patching complete",
		 (int)(strcspn(name, ".")), name);
}

static int cmd_trans(int argc, char **argv)
{
	char needle[160], mark0[160], mark1[160];
	const char *kind, *tag, *module, *file, *name;
	/* the two marks, the completion, kGraft's "transition finalized" */
	const char *needles[4] = { mark0, mark1, needle,
				   "kgr: transition finalized " };
	long long ts[4] = { -1, -1, -1, -1 };
	char text[4][KMSG_TEXT];
	int busy, sleepers, daemons, sample_ms, timeout_s, old_c, i, k;
	int mfd, kfd, nneedles, extra = 0, first_daemon, ndaemon_tasks;
	long long t_end, fin_ms = -1, last_us = -1, work_us = -1, end;
	char trigger[64] = "-1";

	if (argc != 11) {
		fprintf(stderr, "usage: kgr-bench trans KIND TAG MODULE BUSY SLEEPERS SLEEP_MS\n"
			"       DAEMONS SAMPLE_MS TIMEOUT_S\n");
		return 2;
	}
	kind = argv[2];
	tag = argv[3];
	module = argv[4];
	busy = atoi(argv[5]);
	sleepers = atoi(argv[6]);
	trans.sleep_ms = atol(argv[7]);
	daemons = atoi(argv[8]);
	sample_ms = atoi(argv[9]);
	timeout_s = atoi(argv[10]);

	name = strrchr(module, '/');
	name = name ? name + 1 : module;
	if (!strcmp(kind, "kgr")) {
		file = "kgr_in_progress";
		old_c = '1';
		snprintf(needle, sizeof(needle), "kgr succeeded");
		nneedles = 4;
	} else if (!strcmp(kind, "klp")) {
		file = "patch_state";
		old_c = '0';
		klp_done_needle(needle, sizeof(needle), name);
		nneedles = 3;
	} else {
		fprintf(stderr, "kgr-bench: KIND is kgr or klp\n");
		return 2;
	}

	open_module_and_log(module, &mfd, &kfd);

	for (i = 0; i < busy; i++)
		spawn(busy_body);
	for (i = 0; i < sleepers; i++)
		spawn(sleeper_body);

	daemon_returned = mmap(NULL, sizeof(*daemon_returned),
			       PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
			       -1, 0);
	if (daemon_returned == MAP_FAILED)
		die("mmap");
	if (pipe(daemon_pipe))
		die("pipe");
	first_daemon = nchildren;
	for (i = 0; i < daemons; i++)
		for (k = 0; k < (int)NDAEMON_KINDS; k++)
			spawn(daemon_bodies[k]);
	/* wait4's children are not ours */
	ndaemon_tasks = daemons * (NDAEMON_KINDS + 1);
	/* until every daemon sleeps (at most 10 s), then let all get going */
	for (i = 0; i < 100; i++) {
		for (k = first_daemon; k < nchildren; k++)
			if (proc_state(children[k]) != 'S')
				break;
		if (k == nchildren)
			break;
		sleep_ms(100);
	}
	if (i == 100)
		fprintf(stderr, "kgr-bench: %s %s: not every daemon asleep after 10 s\n",
			tag, kind);
	sleep_ms(500);
	/* where the daemons sleep, one per kind (the first of each) */
	if (daemons) {
		printf("KGR-BENCH asleep %s %s", tag, kind);
		for (k = 0; k < (int)NDAEMON_KINDS; k++) {
			char path[64], w[64] = "?";
			int fd;

			snprintf(path, sizeof(path), "/proc/%d/wchan",
				 children[first_daemon + k]);
			fd = open(path, O_RDONLY);
			if (fd >= 0) {
				ssize_t n = read(fd, w, sizeof(w) - 1);

				w[n > 0 ? n : 0] = '\0';
				close(fd);
			}
			printf("%s%s", k ? "," : " ", w);
		}
		printf("\n");
	}

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
	trans.samples = mmap(NULL, sizeof(int), PROT_READ | PROT_WRITE,
			     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (trans.samples == MAP_FAILED)
		die("mmap");
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
		kmsg_scan(kfd, needles, ts, text, nneedles);
		for (i = 0; i < nneedles && ts[i] >= 0; i++)
			;
		if (i == nneedles && extra++ >= 2)
			break;
		if (now_us() > t_end)
			break;
		sleep_ms(sample_ms);
	}
	/* at least one sample, even if it comes after the end */
	while (!*trans.samples && now_us() < t_end)
		sleep_ms(sample_ms);
	reap();

	end = ts[2];
	if (nneedles == 4 && ts[3] >= 0) {
		char how[64] = "";

		end = ts[3];
		work_us = ts[2] >= 0 ? ts[3] - ts[2] : -1;
		if (sscanf(text[3], "kgr: transition finalized %lld ms after its start, "
			   "%lld us after the last task crossed (%63[^)])",
			   &fin_ms, &last_us, how) != 3) {
			fprintf(stderr, "kgr-bench: cannot parse \"%s\"\n", text[3]);
			fin_ms = last_us = -1;
		} else if (!strcmp(how, "checked at once")) {
			strcpy(trigger, "at-once");
		} else if (!strcmp(how, "periodic check")) {
			strcpy(trigger, "periodic");
		} else {
			strcpy(trigger, "other");
		}
	}
	printf("KGR-BENCH trans %s %s init_us=%lld done_us=%lld",
	       tag, kind, ts[0] >= 0 && ts[1] >= 0 ? ts[1] - ts[0] : -1,
	       ts[0] >= 0 && ts[2] >= 0 && end >= 0 ? end - ts[0] : -1);
	if (nneedles == 4)
		printf(" fin_ms=%lld last_us=%lld trigger=%s work_us=%lld",
		       fin_ms, last_us, trigger, work_us);
	printf("\n");
	printf("KGR-BENCH daemons %s %s tasks=%d returned=%d\n", tag, kind,
	       ndaemon_tasks, *daemon_returned);
	return 0;
}

/* what the threads of "threads" do */
static struct {
	int futex_word;		/* nobody changes it */
	int returned;		/* FUTEX_WAITs that returned */
	int started;
	int go;			/* the busy threads may start */
} thr;

static void *sleep_thread(void *arg)
{
	__atomic_add_fetch(&thr.started, 1, __ATOMIC_SEQ_CST);
	for (;;) {
		syscall(SYS_futex, &thr.futex_word, FUTEX_WAIT_PRIVATE, 0,
			NULL, NULL, 0);
		__atomic_add_fetch(&thr.returned, 1, __ATOMIC_SEQ_CST);
	}
	return arg;
}

/*
 * A busy thread runs at nice 19, and waits until all are created:
 * thousands of threads in a loop at the default priority leave every
 * other task (the creating thread, the module's load, the kernel's
 * workers of the transition) a thousandth of a CPU, and the figures
 * would be those of that starvation. At nice 19 they take what the
 * others leave, as a batch job does.
 */
static void *busy_thread(void *arg)
{
	/* Linux: the calling thread's own nice value */
	setpriority(PRIO_PROCESS, 0, 19);
	__atomic_add_fetch(&thr.started, 1, __ATOMIC_SEQ_CST);
	while (!__atomic_load_n(&thr.go, __ATOMIC_SEQ_CST))
		syscall(SYS_futex, &thr.go, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
	for (;;)
		syscall(SYS_getppid);
	return arg;
}

/*
 * The forker, a child: fork() a child that exits at once and wait for
 * it, in a loop; the longest round trip since the last report, and the
 * number of rounds, go to shared memory when the parent asks.
 */
static struct {
	volatile long long max_us;
	volatile int rounds;
	volatile int reset;	/* the parent asks for a new window */
} *forker;

static void forker_body(void)
{
	for (;;) {
		long long t0 = now_us(), d;
		pid_t pid = fork();

		if (pid < 0)
			die("fork");
		if (pid == 0)
			_exit(0);
		waitpid(pid, NULL, 0);
		d = now_us() - t0;
		if (forker->reset) {
			forker->max_us = 0;
			forker->rounds = 0;
			forker->reset = 0;
		}
		if (d > forker->max_us)
			forker->max_us = d;
		forker->rounds++;
		sleep_ms(1);
	}
}

/* the forker's longest round trip in a window of MS from now */
static long long fork_window(long ms)
{
	forker->reset = 1;
	sleep_ms(ms);
	return forker->max_us;
}

/* the holder of the threads: N of MODE, reports how many returned */
static void holder_body(int n, const char *mode, int report_fd)
{
	pthread_attr_t attr;
	pthread_t t;
	int i;

	pthread_attr_init(&attr);
	/* small stacks: 10000 threads fit a guest of 2 GiB */
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (i = 0; i < n; i++) {
		int busy = !strcmp(mode, "busy") ||
			   (!strcmp(mode, "mix") && i % 2);

		if (pthread_create(&t, &attr, busy ? busy_thread : sleep_thread,
				   NULL))
			die("pthread_create");
	}
	while (__atomic_load_n(&thr.started, __ATOMIC_SEQ_CST) < n)
		sleep_ms(10);
	__atomic_store_n(&thr.go, 1, __ATOMIC_SEQ_CST);
	syscall(SYS_futex, &thr.go, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
	if (write(report_fd, "s", 1) != 1)
		die("write");
	/* asked by the parent (a byte on stdin's pipe): the count */
	for (;;) {
		char c;

		if (read(STDIN_FILENO, &c, 1) != 1)
			_exit(0);
		dprintf(report_fd, "%d\n", thr.returned);
	}
}

/* read the kernel log until every needle is found, or the time is T_END */
static void kmsg_wait(int fd, const char *const *needle, long long *ts,
		      char (*text)[KMSG_TEXT], int n, long long t_end)
{
	int i;

	for (;;) {
		kmsg_scan(fd, needle, ts, text, n);
		for (i = 0; i < n && ts[i] >= 0; i++)
			;
		if (i == n || now_us() > t_end)
			return;
		sleep_ms(20);
	}
}

/*
 * The forker's rounds since the window began, and the longest in *max_us,
 * and a new window begins; a window in which no fork returned reads 0
 * rounds and -1.
 */
static int forker_take(long long *max_us)
{
	int rounds = forker->reset ? 0 : forker->rounds;

	*max_us = forker->reset ? -1 : forker->max_us;
	forker->reset = 1;
	return rounds;
}

/*
 * Revert the patch of NAME (a module file name) that a "threads" run
 * applied; ts[0] gets the kernel log's time stamp of the mark written
 * just before the write that starts the revert, ts[1] that of the end of
 * its transition (both -1 if not seen within TIMEOUT_S).
 */
static void threads_revert(const char *kind, const char *tag,
			   const char *name, int kfd, int timeout_s,
			   long long *ts)
{
	char file[160], mark[160], needle[160];
	const char *needles[2] = { mark, needle };
	char text[2][KMSG_TEXT];
	const char *val;
	long long t_end;
	int len = strcspn(name, "."), fd;

	if (!strcmp(kind, "kgr")) {
		snprintf(file, sizeof(file), "/sys/kernel/kgraft/%.*s/revert",
			 len, name);
		val = "1";
		snprintf(needle, sizeof(needle), "kgr: transition finalized ");
	} else {
		snprintf(file, sizeof(file), "/sys/kernel/livepatch/%.*s/enabled",
			 len, name);
		val = "0";
		snprintf(needle, sizeof(needle), "'%.*s': unpatching complete",
			 len, name);
	}
	snprintf(mark, sizeof(mark), "kgr-bench: %s %s: reverting %.*s", tag,
		 kind, len, name);
	fd = open(file, O_WRONLY);
	if (fd < 0)
		die(file);
	kmsg_write(mark);
	if (write(fd, val, 1) != 1)
		die(file);
	close(fd);
	t_end = now_us() + timeout_s * 1000000LL;
	kmsg_wait(kfd, needles, ts, text, 2, t_end);
}

static int cmd_threads(int argc, char **argv)
{
	char needle[160], mark0[160], mark1[160], buf[32];
	const char *kind, *tag, *module, *mode, *name, *params;
	const char *needles[3] = { mark0, mark1, needle };
	long long ts[3] = { -1, -1, -1 }, t0, spawn_ms, base_max, t_end;
	long long rts[2] = { -1, -1 }, fork_max, rfork_max;
	char text[3][KMSG_TEXT];
	int n, timeout_s, mfd, kfd, ask[2], rep[2], returned = -1;
	int forks, rforks;
	pid_t holder;
	ssize_t len;

	if (argc != 8 && argc != 9) {
		fprintf(stderr, "usage: kgr-bench threads KIND TAG MODULE N MODE TIMEOUT_S [PARAMS]\n");
		return 2;
	}
	params = argc == 9 ? argv[8] : "";
	kind = argv[2];
	tag = argv[3];
	module = argv[4];
	n = atoi(argv[5]);
	mode = argv[6];
	timeout_s = atoi(argv[7]);
	if (strcmp(mode, "sleep") && strcmp(mode, "sleepfn") &&
	    strcmp(mode, "busy") && strcmp(mode, "mix")) {
		fprintf(stderr, "kgr-bench: MODE is sleep, sleepfn, busy or mix\n");
		return 2;
	}
	name = strrchr(module, '/');
	name = name ? name + 1 : module;
	if (!strcmp(kind, "kgr")) {
		/* after kgr_finalize(): the transition is over */
		snprintf(needle, sizeof(needle), "kgr: transition finalized ");
	} else if (!strcmp(kind, "klp")) {
		klp_done_needle(needle, sizeof(needle), name);
	} else {
		fprintf(stderr, "kgr-bench: KIND is kgr or klp\n");
		return 2;
	}

	open_module_and_log(module, &mfd, &kfd);

	forker = mmap(NULL, sizeof(*forker), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (forker == MAP_FAILED)
		die("mmap");
	spawn(forker_body);

	if (pipe(ask) || pipe(rep))
		die("pipe");
	t0 = now_us();
	holder = fork();
	if (holder < 0)
		die("fork");
	if (holder == 0) {
		dup2(ask[0], STDIN_FILENO);
		close(ask[1]);
		close(rep[0]);
		holder_body(n, mode, rep[1]);
	}
	children[nchildren++] = holder;
	close(ask[0]);
	close(rep[1]);
	if (read(rep[0], buf, 1) != 1) {
		fprintf(stderr, "kgr-bench: %s %s: the %d threads did not start\n",
			tag, kind, n);
		reap();
		return 1;
	}
	spawn_ms = (now_us() - t0) / 1000;
	/* the sleepers settle; then the forks of a second without a transition */
	sleep_ms(500);
	base_max = fork_window(1000);

	snprintf(mark0, sizeof(mark0), "kgr-bench: %s %s: loading %s", tag, kind, name);
	snprintf(mark1, sizeof(mark1), "kgr-bench: %s %s: loaded", tag, kind);
	forker->reset = 1;
	kmsg_write(mark0);
	if (syscall(SYS_finit_module, mfd, params, 0)) {
		perror("finit_module");
		reap();
		return 1;
	}
	kmsg_write(mark1);
	close(mfd);

	t_end = now_us() + timeout_s * 1000000LL;
	kmsg_wait(kfd, needles, ts, text, 3, t_end);
	forks = forker_take(&fork_max);
	if (ts[2] >= 0)
		threads_revert(kind, tag, name, kfd, timeout_s, rts);
	rforks = forker_take(&rfork_max);
	/* the sleepers' count */
	if (write(ask[1], "?", 1) == 1) {
		len = read(rep[0], buf, sizeof(buf) - 1);
		if (len > 0) {
			buf[len] = '\0';
			returned = atoi(buf);
		}
	}
	printf("KGR-BENCH threads %s %s n=%d mode=%s spawn_ms=%lld init_us=%lld done_us=%lld forks=%d fork_max_us=%lld fork_base_max_us=%lld revert_us=%lld rforks=%d rfork_max_us=%lld returned=%d\n",
	       tag, kind, n, mode, spawn_ms,
	       ts[0] >= 0 && ts[1] >= 0 ? ts[1] - ts[0] : -1,
	       ts[0] >= 0 && ts[2] >= 0 ? ts[2] - ts[0] : -1,
	       forks, fork_max, base_max,
	       rts[0] >= 0 && rts[1] >= 0 ? rts[1] - rts[0] : -1,
	       rforks, rfork_max, returned);
	close(ask[1]);
	reap();
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && !strcmp(argv[1], "call"))
		return cmd_call(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "trans"))
		return cmd_trans(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "threads"))
		return cmd_threads(argc, argv);
	fprintf(stderr, "usage: kgr-bench call|trans|threads ... (see the source)\n");
	return 2;
}
