// SPDX-License-Identifier: GPL-2.0
/*
 * kgr-hammer: read /proc/kgr_test/spin in a tight loop, one trip into the
 * kernel per read, until the file STOPFILE exists; every 8th trip fork a
 * child that makes 4 trips of its own and exits (fork/exit churn).
 *
 *   kgr-hammer [-a] STOPFILE
 *
 * Checks every trip: it saw one version only (first == last, no switch in
 * between), and no trip of this process saw an older version than an
 * earlier trip did; with -a (a revert runs meanwhile), versions may go
 * back and forth between trips. Prints
 *   "trips=T mixed=M new2old=N children=C badchildren=B flips=F"
 * (F: how often the version changed from one trip to the next) and exits
 * 0 when M, N and B are 0, 1 otherwise.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static unsigned long trips, mixed, new2old, flips;
static int newest, previous;
static int any_order;

static int trip(void)
{
	int fd = open("/proc/kgr_test/spin", O_RDONLY);
	unsigned long calls, o2n, n2o;
	int first, last;
	char buf[128];
	ssize_t n;

	if (fd < 0) {
		perror("/proc/kgr_test/spin");
		exit(2);
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		exit(2);
	buf[n] = 0;
	if (sscanf(buf, "calls=%lu first=%d last=%d old2new=%lu new2old=%lu",
		   &calls, &first, &last, &o2n, &n2o) != 5) {
		fprintf(stderr, "cannot parse '%s'\n", buf);
		exit(2);
	}
	trips++;
	if (first != last || o2n || n2o)
		mixed++;
	if (first < newest && !any_order)
		new2old++;
	if (last > newest)
		newest = last;
	if (previous && first != previous)
		flips++;
	previous = last;
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long children = 0, badchildren = 0;
	int i, status;
	pid_t pid;

	if (argc == 3 && !strcmp(argv[1], "-a")) {
		any_order = 1;
		argv++;
		argc--;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: %s [-a] STOPFILE\n", argv[0]);
		return 2;
	}

	while (access(argv[1], F_OK)) {
		trip();
		if (trips % 8)
			continue;
		pid = fork();
		if (pid < 0) {
			perror("fork");
			return 2;
		}
		if (pid == 0) {
			/* the child inherits this process's state: newest */
			trips = mixed = new2old = 0;
			for (i = 0; i < 4; i++)
				trip();
			_exit(mixed || new2old);
		}
		children++;
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			badchildren++;
	}

	printf("trips=%lu mixed=%lu new2old=%lu children=%lu badchildren=%lu flips=%lu\n",
	       trips, mixed, new2old, children, badchildren, flips);
	return mixed || new2old || badchildren;
}
