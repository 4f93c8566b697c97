// SPDX-License-Identifier: MIT
/*
 * wl_syscalls N SIZE DIR: makes exactly N of each of these system calls, and
 * nothing else beyond the C library's start-up and exit_group:
 *   openat+close (N each, plus one openat/close pair for the data file),
 *   write (N x SIZE bytes to DIR/wl_syscalls.dat), lseek (N), read (N x SIZE),
 *   getpid (N), nanosleep (N x 1 us), ioctl (N, FIONREAD on the data file)
 * Every call goes through syscall(2) so the C library cannot merge, cache or
 * substitute them (glibc's nanosleep() is clock_nanosleep, for example).
 * The work runs in a forked child, so the counts of that process are exactly
 * these: no C library start-up, and none of what a launching shell does
 * between its fork and the exec (busybox closes a descriptor there). The
 * parent only waits. The accuracy tests compute the expected counts from N
 * and SIZE and look at the child (the wl_syscalls whose parent is one too).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long must(long r, const char *what)
{
	if (r < 0) {
		perror(what);
		exit(1);
	}
	return r;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: wl_syscalls N SIZE DIR\n");
		return 2;
	}
	long n = atol(argv[1]), size = atol(argv[2]);

	if (n <= 0 || size <= 0 || size > 65536) {
		fprintf(stderr, "wl_syscalls: N must be > 0 and SIZE in 1..65536\n");
		return 2;
	}
	static char buf[65536];
	char path[4096];

	snprintf(path, sizeof(path), "%s/wl_syscalls.dat", argv[3]);
	memset(buf, 'x', sizeof(buf));

	pid_t child = fork();

	if (child < 0) {
		perror("fork");
		return 1;
	}
	if (child > 0) {
		int status;

		if (waitpid(child, &status, 0) != child) {
			perror("waitpid");
			return 1;
		}
		return !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}

	int fd = must(syscall(SYS_openat, AT_FDCWD, path, O_RDWR | O_CREAT | O_TRUNC, 0644), "openat");

	for (long i = 0; i < n; i++)
		must(syscall(SYS_write, fd, buf, size), "write");
	for (long i = 0; i < n; i++)
		must(syscall(SYS_lseek, fd, (long)(i * size), SEEK_SET), "lseek");
	must(syscall(SYS_close, fd), "close");

	fd = must(syscall(SYS_openat, AT_FDCWD, path, O_RDONLY), "openat");
	for (long i = 0; i < n; i++)
		must(syscall(SYS_read, fd, buf, size), "read");
	for (long i = 0; i < n; i++) {
		int avail;

		must(syscall(SYS_ioctl, fd, FIONREAD, &avail), "ioctl");
	}
	must(syscall(SYS_close, fd), "close");

	for (long i = 0; i < n; i++)
		syscall(SYS_getpid);
	for (long i = 0; i < n; i++) {
		struct timespec ts = { 0, 1000 };

		must(syscall(SYS_nanosleep, &ts, NULL), "nanosleep");
	}
	for (long i = 0; i < n; i++) {
		int f = must(syscall(SYS_openat, AT_FDCWD, path, O_RDONLY), "openat");

		must(syscall(SYS_close, f), "close");
	}
	_exit(0);
}
