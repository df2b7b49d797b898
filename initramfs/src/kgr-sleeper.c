// SPDX-License-Identifier: GPL-2.0
/*
 * kgr-sleeper: sleep in the kernel in one system call, then report what
 * that call returned and how long it took, for the tests of kGraft's
 * nudge (a task asleep in a system call is made to leave the kernel and
 * restart the call, which must not change what the call returns).
 *
 *   kgr-sleeper MODE MS
 *
 *   read       read(0, 1 byte); MS is not used (stdin: a FIFO)
 *   poll       poll(stdin, POLLIN, MS)
 *   select     select(stdin readable, timeout MS)
 *   select_ro  the same by the raw system call, with the timeout in a
 *              read-only page (the kernel cannot write the time left)
 *   pselect    pselect(stdin readable, timeout MS, no signal mask)
 *   ppoll      ppoll(stdin, POLLIN, timeout MS, no signal mask)
 *   epoll      epoll_wait(stdin, MS)          (MS -1: no timeout)
 *   epoll_pwait  epoll_pwait(stdin, MS, empty signal mask)
 *   futex      FUTEX_WAIT on a private word that nobody wakes, MS
 *   pause      pause(); SIGUSR1 (handled, no SA_RESTART) ends it
 *   nanosleep  nanosleep(MS, &rem), rem set to a marker before: prints
 *              "rem=kept" if the call left it alone, else "rem=written"
 *   wait4      fork a child that sleeps MS and exits 7; wait4() for it
 *   sigtimedwait  sigtimedwait() for SIGUSR2 (blocked), MS: a call that
 *              kGraft does not nudge (it would return EINTR)
 *   waitall    recv(8 bytes, MSG_WAITALL) from an AF_UNIX stream socket
 *              that holds 4 (a read a nudge would cut short); a child
 *              sends the other 4 once it reads a byte from stdin
 *   rcvlowat   the same with SO_RCVLOWAT 8 and a plain recv()
 *   accept     accept() on a listening AF_UNIX socket, its address
 *              length at an address with bit 8 set (MSG_WAITALL's value,
 *              were it flags); a child connects once it reads a byte
 *              from stdin; MS is not used
 *   pty_vmin   read(8 bytes) from a raw pty (VMIN 8, VTIME 0) that holds
 *              4; the child writes the other 4 the same way
 *   epoll_masked  epoll_pwait(stdin, MS) with SIGUSR1 in its temporary
 *              mask (not in the task's own): a SIGUSR1 sent meanwhile must
 *              wait for the call to end, which must not be EINTR
 *   kick_run   ioctl(/dev/kgr_test_kick, RUN), which stays in the kernel,
 *              running, until a signal is pending (a vCPU thread in
 *              KVM_RUN); called again after each EINTR, as QEMU does, and
 *              "kicks=N" printed with the number of EINTRs; MS not used
 *   kick_sleep the same with the ioctl that sleeps (a halted vCPU)
 *   ptrace     fork a child that stops itself under our ptrace, print
 *              "traced=PID"; read(0, 1 byte), then PTRACE_CONT the
 *              child, which sleeps MS and exits 7; wait4() for it
 *
 * Prints "pid=P" first, then "mode=M ret=R errno=E ms=T" once the call
 * returned (E is 0 or the errno name; T the milliseconds it took).
 * A plain signal kills it as usual; it exits 0 when the call returned.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <termios.h>
#include <fcntl.h>
#include <sys/ptrace.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static struct timespec ms_to_ts(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	return ts;
}

static void on_usr1(int sig)
{
	(void)sig;
}

static const char *errno_name(int e)
{
	switch (e) {
	case 0: return "0";
	case EINTR: return "EINTR";
	case ETIMEDOUT: return "ETIMEDOUT";
	case EAGAIN: return "EAGAIN";
	case ECHILD: return "ECHILD";
	default: return strerror(e);
	}
}

/* a child that sleeps ms, then exits 7; with trace, under our ptrace */
static pid_t sleeping_child(long ms, int trace)
{
	pid_t pid = fork();

	if (pid == 0) {
		struct timespec ts = ms_to_ts(ms);

		if (trace) {
			ptrace(PTRACE_TRACEME, 0, NULL, NULL);
			raise(SIGSTOP);
		}
		while (nanosleep(&ts, &ts))
			;
		_exit(7);
	}
	return pid;
}

static long wait_child(pid_t pid)
{
	int status;
	long ret = wait4(pid, &status, 0, NULL);

	if (ret == pid && !(WIFEXITED(status) && WEXITSTATUS(status) == 7)) {
		fprintf(stderr, "child %d: status %#x\n", pid, status);
		return -2;
	}
	return ret;
}

/*
 * Put 4 bytes into a channel, and fork a child that writes 4 more to
 * wfd once it reads a byte from stdin. rfd, the reading end, is the
 * caller's to read 8 bytes from.
 */
static int half_then_rest(int wfd)
{
	char c;

	if (write(wfd, "abcd", 4) != 4)
		return -1;
	if (fork() == 0) {
		if (read(0, &c, 1) != 1 || write(wfd, "efgh", 4) != 4)
			_exit(1);
		_exit(0);
	}
	return 0;
}

/* a raw pty whose slave reads 8 bytes at once: the slave, or -1 */
static int raw_pty(int *master)
{
	struct termios t;
	int s;

	*master = posix_openpt(O_RDWR | O_NOCTTY);
	if (*master < 0 || grantpt(*master) || unlockpt(*master))
		return -1;
	s = open(ptsname(*master), O_RDWR | O_NOCTTY);
	if (s < 0 || tcgetattr(s, &t))
		return -1;
	cfmakeraw(&t);
	t.c_cc[VMIN] = 8;
	t.c_cc[VTIME] = 0;
	if (tcsetattr(s, TCSANOW, &t))
		return -1;
	return s;
}

int main(int argc, char **argv)
{
	const char *mode;
	long ms, start, ret;
	int err;
	char c;

	if (argc != 3) {
		fprintf(stderr, "usage: %s MODE MS\n", argv[0]);
		return 2;
	}
	mode = argv[1];
	ms = atol(argv[2]);
	signal(SIGUSR1, on_usr1);	/* no SA_RESTART: pause() sees EINTR */
	printf("pid=%d\n", getpid());
	fflush(stdout);

	start = now_ms();
	errno = 0;
	if (!strcmp(mode, "read")) {
		ret = read(0, &c, 1);
	} else if (!strcmp(mode, "poll")) {
		struct pollfd p = { .fd = 0, .events = POLLIN };

		ret = poll(&p, 1, ms);
	} else if (!strcmp(mode, "select")) {
		struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };
		fd_set r;

		FD_ZERO(&r);
		FD_SET(0, &r);
		ret = select(1, &r, NULL, NULL, &tv);
	} else if (!strcmp(mode, "select_ro")) {
		struct timeval *tv = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
					  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		fd_set r;

		if (tv == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
		tv->tv_sec = ms / 1000;
		tv->tv_usec = (ms % 1000) * 1000;
		if (mprotect(tv, 4096, PROT_READ)) {
			perror("mprotect");
			return 1;
		}
		FD_ZERO(&r);
		FD_SET(0, &r);
		start = now_ms();
		ret = syscall(SYS_select, 1, &r, NULL, NULL, tv);
	} else if (!strcmp(mode, "pselect")) {
		struct timespec ts = ms_to_ts(ms);
		fd_set r;

		FD_ZERO(&r);
		FD_SET(0, &r);
		ret = pselect(1, &r, NULL, NULL, &ts, NULL);
	} else if (!strcmp(mode, "ppoll")) {
		struct pollfd p = { .fd = 0, .events = POLLIN };
		struct timespec ts = ms_to_ts(ms);

		ret = ppoll(&p, 1, &ts, NULL);
	} else if (!strcmp(mode, "epoll") || !strcmp(mode, "epoll_pwait")) {
		struct epoll_event ev = { .events = EPOLLIN };
		int ep = epoll_create1(0);
		sigset_t none;

		if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, 0, &ev)) {
			perror("epoll");
			return 1;
		}
		sigemptyset(&none);
		start = now_ms();
		if (!strcmp(mode, "epoll"))
			ret = epoll_wait(ep, &ev, 1, ms);
		else
			ret = epoll_pwait(ep, &ev, 1, ms, &none);
	} else if (!strcmp(mode, "futex")) {
		static int word;
		struct timespec ts = ms_to_ts(ms);

		ret = syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0, &ts,
			      NULL, 0);
	} else if (!strcmp(mode, "pause")) {
		ret = pause();
	} else if (!strcmp(mode, "nanosleep")) {
		struct timespec ts = ms_to_ts(ms);
		struct timespec rem = { 12345, 678 };

		ret = nanosleep(&ts, &rem);
		err = errno;
		printf("rem=%s\n", rem.tv_sec == 12345 && rem.tv_nsec == 678 ?
		       "kept" : "written");
		errno = err;
	} else if (!strcmp(mode, "waitall") || !strcmp(mode, "rcvlowat")) {
		int sv[2], lowat = 8;
		char buf[8];

		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) {
			perror("socketpair");
			return 3;
		}
		if (!strcmp(mode, "rcvlowat") &&
		    setsockopt(sv[0], SOL_SOCKET, SO_RCVLOWAT, &lowat,
			       sizeof(lowat))) {
			perror("SO_RCVLOWAT");
			return 1;
		}
		if (half_then_rest(sv[1]))
			return 1;
		start = now_ms();
		ret = recv(sv[0], buf, sizeof(buf),
			   !strcmp(mode, "waitall") ? MSG_WAITALL : 0);
	} else if (!strcmp(mode, "accept")) {
		char *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		struct sockaddr_un sun = { .sun_family = AF_UNIX };
		socklen_t *len = (socklen_t *)(page + 0x100);
		int lfd = socket(AF_UNIX, SOCK_STREAM, 0);
		char c;

		/* an abstract name of our own */
		snprintf(sun.sun_path + 1, sizeof(sun.sun_path) - 1,
			 "kgr-sleeper-%d", getpid());
		if (page == MAP_FAILED || lfd < 0 ||
		    bind(lfd, (struct sockaddr *)&sun, sizeof(sun)) ||
		    listen(lfd, 1)) {
			perror("accept setup");
			return 3;
		}
		if (fork() == 0) {
			int cfd = socket(AF_UNIX, SOCK_STREAM, 0);

			if (read(0, &c, 1) != 1 ||
			    connect(cfd, (struct sockaddr *)&sun, sizeof(sun)))
				_exit(1);
			_exit(0);
		}
		*len = sizeof(struct sockaddr_un);
		start = now_ms();
		ret = accept(lfd, (struct sockaddr *)(page + 0x200), len);
	} else if (!strcmp(mode, "pty_vmin")) {
		int master, slave = raw_pty(&master);
		char buf[8];

		if (slave < 0) {
			perror("pty");
			return 3;
		}
		if (half_then_rest(master))
			return 1;
		start = now_ms();
		ret = read(slave, buf, sizeof(buf));
	} else if (!strcmp(mode, "epoll_masked")) {
		struct epoll_event ev = { .events = EPOLLIN };
		int ep = epoll_create1(0);
		sigset_t mask;

		if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, 0, &ev)) {
			perror("epoll");
			return 1;
		}
		sigemptyset(&mask);
		sigaddset(&mask, SIGUSR1);
		start = now_ms();
		ret = epoll_pwait(ep, &ev, 1, ms, &mask);
	} else if (!strcmp(mode, "wait4")) {
		pid_t pid = sleeping_child(ms, 0);

		start = now_ms();
		ret = wait_child(pid);
	} else if (!strcmp(mode, "sigtimedwait")) {
		struct timespec ts = ms_to_ts(ms);
		sigset_t set;

		sigemptyset(&set);
		sigaddset(&set, SIGUSR2);
		sigprocmask(SIG_BLOCK, &set, NULL);
		ret = sigtimedwait(&set, NULL, &ts);
	} else if (!strcmp(mode, "kick_run") || !strcmp(mode, "kick_sleep")) {
		unsigned long cmd = !strcmp(mode, "kick_run") ? 0x4b00 : 0x4b01;
		int fd = open("/dev/kgr_test_kick", O_RDWR);
		long kicks = 0;

		if (fd < 0) {
			perror("/dev/kgr_test_kick");
			return 1;
		}
		while ((ret = ioctl(fd, cmd)) < 0 && errno == EINTR)
			kicks++;
		printf("kicks=%ld\n", kicks);
	} else if (!strcmp(mode, "ptrace")) {
		pid_t pid = sleeping_child(ms, 1);
		int status;

		if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status)) {
			fprintf(stderr, "child %d did not stop\n", pid);
			return 1;
		}
		printf("traced=%d\n", pid);
		fflush(stdout);
		if (read(0, &c, 1) != 1) {
			perror("read");
			return 1;
		}
		ptrace(PTRACE_CONT, pid, NULL, NULL);
		start = now_ms();
		ret = wait_child(pid);
	} else {
		fprintf(stderr, "%s: unknown mode %s\n", argv[0], mode);
		return 2;
	}
	err = ret < 0 ? errno : 0;
	printf("mode=%s ret=%ld errno=%s ms=%ld\n", mode, ret, errno_name(err),
	       now_ms() - start);
	return 0;
}
