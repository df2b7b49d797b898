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
 *   epoll      epoll_wait(stdin, MS)          (MS -1: no timeout)
 *   epoll_pwait  epoll_pwait(stdin, MS, empty signal mask)
 *   futex      FUTEX_WAIT on a private word that nobody wakes, MS
 *   pause      pause(); SIGUSR1 (handled, no SA_RESTART) ends it
 *   nanosleep  nanosleep(MS)
 *   wait4      fork a child that sleeps MS and exits 7; wait4() for it
 *   sigtimedwait  sigtimedwait() for SIGUSR2 (blocked), MS: a call that
 *              kGraft does not nudge (it would return EINTR)
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

		ret = nanosleep(&ts, NULL);
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
