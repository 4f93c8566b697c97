// SPDX-License-Identifier: MIT
/*
 * wl_getppid N: exactly N getppid calls through syscall(2), then exit: a
 * load of system calls that no other workload makes N of (a filler for
 * a flight recorder's ring, say).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n, i;
	char *end;

	if (argc != 2) {
		fprintf(stderr, "usage: wl_getppid N\n");
		return 2;
	}
	n = strtol(argv[1], &end, 10);
	if (n < 0 || *end) {
		fprintf(stderr, "wl_getppid: bad N '%s'\n", argv[1]);
		return 2;
	}
	for (i = 0; i < n; i++)
		syscall(SYS_getppid);
	return 0;
}
