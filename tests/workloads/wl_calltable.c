// SPDX-License-Identifier: MIT
/*
 * wl_calltable DIR [GO [STEP]]: makes, in its own process (no fork), exactly
 *   write 1000, read 500, getpid 2000, lseek 300, openat 100, close 100,
 *   ioctl 100
 * after one openat of DIR/wl_calltable.dat and before one close of it (so
 * openat and close are 101 each), then exit_group. Every call goes through
 * syscall(2). The calls are made by the task that ran it: when it is
 * started through su, or by tracedaemon's "-- COMMAND", it is the same
 * task that changed credentials or forked, without a context switch in
 * between, which is what attribution must get right. With GO, it first
 * waits (faccessat and nanosleep, 10 ms apart) until the file GO exists,
 * so that a session can start while it runs. With STEP, it also stops at
 * three points: after the writes and lseeks (1), after the reads and
 * getpids (2) and after its last close (3), before exit_group. At each it
 * creates the directory STEP.N (mkdirat) and waits, as for GO, until
 * STEP.N.go exists: a test changes the session there (a mask), or takes
 * a snapshot while the process still lives. None of these calls is in
 * the table. It prints nothing unless a call fails.
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

/* Until the file @path exists: faccessat every 10 ms. */
static void wait_for(const char *path)
{
	while (syscall(SYS_faccessat, AT_FDCWD, path, F_OK) != 0) {
		struct timespec ts = { 0, 10000000 };

		syscall(SYS_nanosleep, &ts, NULL);
	}
}

/* With @step: stop point @n (STEP.n made, wait for STEP.n.go). */
static void stop(const char *step, int n)
{
	char path[4096];

	if (!step)
		return;
	snprintf(path, sizeof(path), "%s.%d", step, n);
	must(syscall(SYS_mkdirat, AT_FDCWD, path, 0755), "mkdirat");
	snprintf(path, sizeof(path), "%s.%d.go", step, n);
	wait_for(path);
}

int main(int argc, char **argv)
{
	const char *step = argc == 4 ? argv[3] : NULL;
	char path[4096], buf[64] = { 0 };
	long fd;
	int i, avail;

	if (argc < 2 || argc > 4) {
		fprintf(stderr, "usage: wl_calltable DIR [GO [STEP]]\n");
		return 2;
	}
	if (argc >= 3)
		wait_for(argv[2]);
	snprintf(path, sizeof(path), "%s/wl_calltable.dat", argv[1]);
	fd = must(syscall(SYS_openat, AT_FDCWD, path, O_RDWR | O_CREAT | O_TRUNC, 0600),
		  "openat");
	for (i = 0; i < 1000; i++)
		must(syscall(SYS_write, fd, buf, sizeof(buf)), "write");
	for (i = 0; i < 300; i++)
		must(syscall(SYS_lseek, fd, (long)i * 8, SEEK_SET), "lseek");
	stop(step, 1);
	for (i = 0; i < 500; i++)
		must(syscall(SYS_read, fd, buf, 8), "read");
	for (i = 0; i < 2000; i++)
		syscall(SYS_getpid);
	stop(step, 2);
	for (i = 0; i < 100; i++)
		must(syscall(SYS_ioctl, fd, FIONREAD, &avail), "ioctl");
	for (i = 0; i < 100; i++)
		must(syscall(SYS_close, must(syscall(SYS_openat, AT_FDCWD, path, O_RDONLY),
					     "openat")),
		     "close");
	must(syscall(SYS_close, fd), "close");
	stop(step, 3);
	syscall(SYS_exit_group, 0);
	return 0;
}
