// SPDX-License-Identifier: GPL-2.0
/*
 * kgr-iopl: call iopl(2) once and report the result, for the in-guest tests.
 *
 *   kgr-iopl [-u UID] [-p] LEVEL
 *
 *   -u UID  drop to UID (setgid/setuid) before the call
 *   -p      after a successful call, read I/O port 0x80; that only works
 *           when the kernel really granted the I/O privilege
 *
 * Prints "iopl(LEVEL) = 0" or "iopl(LEVEL) = -1 ERRNAME" and exits 0 when
 * the call succeeded, 1 when it failed, 2 on a usage error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/io.h>
#include <unistd.h>

static const char *errname(int e)
{
	switch (e) {
	case EPERM:	return "EPERM";
	case EINVAL:	return "EINVAL";
	case ENOSYS:	return "ENOSYS";
	default:	return strerror(e);
	}
}

int main(int argc, char **argv)
{
	int opt, level, uid = -1, port = 0;

	while ((opt = getopt(argc, argv, "u:p")) != -1) {
		switch (opt) {
		case 'u':
			uid = atoi(optarg);
			break;
		case 'p':
			port = 1;
			break;
		default:
			return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "usage: %s [-u UID] [-p] LEVEL\n", argv[0]);
		return 2;
	}
	level = atoi(argv[optind]);

	if (uid >= 0 && (setgid(uid) || setuid(uid))) {
		perror("setuid");
		return 2;
	}

	if (iopl(level)) {
		int e = errno;

		printf("iopl(%d) = -1 %s\n", level, errname(e));
		return 1;
	}
	printf("iopl(%d) = 0\n", level);
	if (port) {
		/* SIGSEGV here if the I/O bitmap was not granted */
		unsigned char v = inb(0x80);

		printf("inb(0x80) = %u\n", v);
	}
	return 0;
}
