// SPDX-License-Identifier: GPL-2.0
/*
 * kgr-runas UID COMMAND [ARG...]: run COMMAND with user and group id UID
 * (busybox has no chpst/setuidgid here).
 */
#define _GNU_SOURCE
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int id;

	if (argc < 3) {
		fprintf(stderr, "usage: %s UID COMMAND [ARG...]\n", argv[0]);
		return 2;
	}
	id = atoi(argv[1]);
	if (setgroups(0, NULL) || setgid(id) || setuid(id)) {
		perror("setuid");
		return 2;
	}
	execvp(argv[2], argv + 2);
	perror(argv[2]);
	return 127;
}
