// SPDX-License-Identifier: MIT
/*
 * wl_calltable DIR [GO]: makes, in its own process (no fork), exactly
 *   write 1000, read 500, getpid 2000, lseek 300, openat 100, close 100,
 *   ioctl 100
 * after one openat of DIR/wl_calltable.dat and before one close of it (so
 * openat and close are 101 each), then exit_group. Every call goes through
 * syscall(2). The calls are made by the task that ran it: when it is
 * started through su, or by tracedaemon's "-- COMMAND", it is the same
 * task that changed credentials or forked, without a context switch in
 * between, which is what attribution must get right. With GO, it first
 * waits (faccessat and nanosleep, 10 ms apart) until the file GO exists,
 * so that a session can start while it runs. It prints nothing unless a
 * call fails.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long must(long r, const char *what)
{
	if (r < 0) {
		perror(what);
		_exit(1);
	}
	return r;
}

int main(int argc, char **argv)
{
	char path[4096], buf[64] = { 0 };
	long fd;
	int i, avail;

	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: wl_calltable DIR [GO]\n");
		return 2;
	}
	while (argc == 3 && syscall(SYS_faccessat, AT_FDCWD, argv[2], F_OK) != 0) {
		struct timespec ts = { 0, 10000000 };

		syscall(SYS_nanosleep, &ts, NULL);
	}
	snprintf(path, sizeof(path), "%s/wl_calltable.dat", argv[1]);
	fd = must(syscall(SYS_openat, AT_FDCWD, path, O_RDWR | O_CREAT | O_TRUNC, 0600),
		  "openat");
	for (i = 0; i < 1000; i++)
		must(syscall(SYS_write, fd, buf, sizeof(buf)), "write");
	for (i = 0; i < 300; i++)
		must(syscall(SYS_lseek, fd, (long)i * 8, SEEK_SET), "lseek");
	for (i = 0; i < 500; i++)
		must(syscall(SYS_read, fd, buf, 8), "read");
	for (i = 0; i < 2000; i++)
		syscall(SYS_getpid);
	for (i = 0; i < 100; i++)
		must(syscall(SYS_ioctl, fd, FIONREAD, &avail), "ioctl");
	for (i = 0; i < 100; i++)
		must(syscall(SYS_close, must(syscall(SYS_openat, AT_FDCWD, path, O_RDONLY),
					     "openat")),
		     "close");
	must(syscall(SYS_close, fd), "close");
	syscall(SYS_exit_group, 0);
	return 0;
}
