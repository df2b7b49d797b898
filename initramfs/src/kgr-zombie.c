// SPDX-License-Identifier: GPL-2.0
/*
 * kgr-zombie: leave a zombie behind and stay busy in user space.
 *
 *   kgr-zombie
 *
 * Forks a child that exits at once and never reaps it; prints
 * "child=PID" once the child has exited, then spins in user space (no
 * system call, so this process itself is never asleep in the kernel)
 * until a signal ends it.  Its parent (the test) can then see whether a
 * zombie holds a kGraft transition back.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
	siginfo_t info;
	pid_t child;

	child = fork();
	if (child < 0) {
		perror("fork");
		return 1;
	}
	if (!child)
		_exit(0);

	/* wait until it is a zombie, but leave it one (WNOWAIT) */
	if (waitid(P_PID, child, &info, WEXITED | WNOWAIT)) {
		perror("waitid");
		return 1;
	}
	printf("child=%d\n", (int)child);
	fflush(stdout);

	for (;;)
		;
}
