// SPDX-License-Identifier: MIT
/*
 * wl_become N PROG [ARG...]: a setuid-to-user helper. Installed owned by a
 * user with mode 4755 and run by another one, it starts with that user as
 * its effective and saved uid only; it makes N getppid calls, then its
 * real, effective and saved uids all its effective one (setresuid), then
 * N getppid calls more, then execs PROG with ARGs in the same task, no
 * fork. ptrace would let the user read none of it before the exec: until
 * setresuid its real uid is another user's, and after it the task is
 * still not dumpable (the setuid exec took that away). From the exec on,
 * PROG is the user's like any of its processes. Every call goes through
 * syscall(2); getppid is the only call it makes N times.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n, i, uid;
	char *end;

	if (argc < 3) {
		fprintf(stderr, "usage: wl_become N PROG [ARG...]\n");
		return 2;
	}
	n = strtol(argv[1], &end, 10);
	if (*end || n < 0) {
		fprintf(stderr, "wl_become: bad N '%s'\n", argv[1]);
		return 2;
	}
	for (i = 0; i < n; i++)
		syscall(SYS_getppid);
	uid = syscall(SYS_geteuid);
	if (syscall(SYS_setresuid, uid, uid, uid) != 0) {
		perror("wl_become: setresuid");
		return 1;
	}
	for (i = 0; i < n; i++)
		syscall(SYS_getppid);
	execv(argv[2], argv + 2);
	perror("wl_become: execv");
	return 1;
}
