// SPDX-License-Identifier: GPL-2.0
/*
 * kgr-probe: one trip into the kernel through kgr_test_proc's /proc
 * files, then one more system call, for the consistency tests.
 *
 *   kgr-probe [-t|-f] [-w] trip|trip_intr|spin|spin_bh
 *
 *   trip|trip_intr|spin|spin_bh  read that file of /proc/kgr_test/ (one
 *              system call that calls the patched function twice or in
 *              a loop); print "tid=T", then "MODE=<the file's reply>"
 *   -t         do it in a second thread, not in the thread-group leader
 *   -f         do it in a child: first have kgr_test_proc hold this
 *              process's next fork (its pid to /proc/kgr_test/fork_hold),
 *              print "forker=PID", fork, and wait for the child
 *   -w         afterwards stay alive (in pause()) until killed,
 *              so that /proc/<pid>/kgr_in_progress can be read
 *
 * After the trip the same thread reads /proc/kgr_test/version, its next
 * system call: "next=V".
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *mode;

static int read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0) {
		perror(path);
		return -1;
	}
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0) {
		perror(path);
		return -1;
	}
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static void *probe(void *unused)
{
	char path[64], reply[128];

	printf("tid=%ld\n", (long)syscall(SYS_gettid));
	fflush(stdout);

	snprintf(path, sizeof(path), "/proc/kgr_test/%s", mode);
	if (read_file(path, reply, sizeof(reply)))
		exit(1);
	printf("%s=%s\n", mode, reply);
	if (read_file("/proc/kgr_test/version", reply, sizeof(reply)))
		exit(1);
	printf("next=%s\n", reply);
	fflush(stdout);
	return NULL;
}

/* the trip in a child whose fork kgr_test_proc held (fork_hold) */
static int probe_in_child(void)
{
	FILE *f = fopen("/proc/kgr_test/fork_hold", "w");
	int status;
	pid_t pid;

	if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f)) {
		perror("/proc/kgr_test/fork_hold");
		return 1;
	}
	printf("forker=%d\n", (int)getpid());
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (!pid) {
		probe(NULL);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid) {
		perror("waitpid");
		return 1;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int main(int argc, char **argv)
{
	int opt, thread = 0, child = 0, stay = 0;
	pthread_t t;

	while ((opt = getopt(argc, argv, "tfw")) != -1) {
		switch (opt) {
		case 't':
			thread = 1;
			break;
		case 'f':
			child = 1;
			break;
		case 'w':
			stay = 1;
			break;
		default:
			return 2;
		}
	}
	if (optind != argc - 1 || (strcmp(argv[optind], "trip") &&
				   strcmp(argv[optind], "trip_intr") &&
				   strcmp(argv[optind], "spin") &&
				   strcmp(argv[optind], "spin_bh"))) {
		fprintf(stderr, "usage: %s [-t|-f] [-w] trip|trip_intr|spin|spin_bh\n",
			argv[0]);
		return 2;
	}
	mode = argv[optind];

	if (child) {
		if (probe_in_child())
			return 1;
	} else if (thread) {
		if (pthread_create(&t, NULL, probe, NULL)) {
			perror("pthread_create");
			return 1;
		}
		/* the leader waits in user space, not in the kernel */
		while (pthread_tryjoin_np(t, NULL))
			;
	} else {
		probe(NULL);
	}

	/* left the kernel: nothing marks this task in progress again */
	while (stay)
		pause();
	return 0;
}
