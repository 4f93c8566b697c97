// SPDX-License-Identifier: MIT
/*
 * wl_vars MOUNTPOINT FILE WRITERS N: the known calls of the kernel-state
 * variables test (tests/module/vars-guest.sh), each through syscall(2) so
 * the C library cannot substitute or merge them:
 *
 *   openat(AT_FDCWD, "/etc/passwd", O_RDONLY) = 3   (stdin/out/err open)
 *   read(3, buf, 100) = 100
 *   openat(AT_FDCWD, "/dev/null", O_WRONLY) = 4
 *   write(4, buf, 100) = 100
 *   close(3) = 0, close(4) = 0
 *   getrusage(RUSAGE_SELF, &ru) = 0                  (the minflt it reports)
 *   mount("none", MOUNTPOINT, "tmpfs", 0, NULL) = 0
 *   umount2(MOUNTPOINT, 0) = 0
 *
 * then forks WRITERS children that each append N 4 KiB writes to FILE at
 * once (inode lock contention for the LOCK events), and waits for them.
 * It prints what it knows of itself, one "key value" per line: pid, ppid,
 * uid, minflt (from getrusage above), for the host to hold the VARS
 * records against.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static long must(long r, const char *what)
{
	if (r < 0) {
		perror(what);
		exit(1);
	}
	return r;
}

static char buf[4096];

int main(int argc, char **argv)
{
	struct rusage ru;
	long fd, out, n;
	int writers, i;

	if (argc != 5) {
		fprintf(stderr, "usage: wl_vars MOUNTPOINT FILE WRITERS N\n");
		return 2;
	}
	writers = atoi(argv[3]);
	n = atol(argv[4]);
	/* Touch what the calls write so that no fault happens inside them. */
	memset(buf, 'x', sizeof(buf));
	memset(&ru, 0, sizeof(ru));

	fd = must(syscall(SYS_openat, AT_FDCWD, "/etc/passwd", O_RDONLY), "openat");
	must(syscall(SYS_read, fd, buf, 100), "read");
	out = must(syscall(SYS_openat, AT_FDCWD, "/dev/null", O_WRONLY), "openat");
	must(syscall(SYS_write, out, buf, 100), "write");
	must(syscall(SYS_close, fd), "close");
	must(syscall(SYS_close, out), "close");
	must(syscall(SYS_getrusage, RUSAGE_SELF, &ru), "getrusage");
	must(syscall(SYS_mount, "none", argv[1], "tmpfs", 0, NULL), "mount");
	must(syscall(SYS_umount2, argv[1], 0), "umount2");

	for (i = 0; i < writers; i++) {
		pid_t c = fork();

		if (c < 0) {
			perror("fork");
			return 1;
		}
		if (c == 0) {
			long f = must(open(argv[2], O_WRONLY | O_APPEND | O_CREAT, 0600), "open");
			long k;

			for (k = 0; k < n; k++)
				must(write(f, buf, sizeof(buf)), "write");
			_exit(0);
		}
	}
	while (wait(NULL) > 0)
		;
	printf("pid %d\nppid %d\nuid %d\nminflt %ld\n", getpid(), getppid(), getuid(), ru.ru_minflt);
	return 0;
}
