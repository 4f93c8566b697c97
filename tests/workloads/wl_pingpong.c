// SPDX-License-Identifier: MIT
/*
 * wl_pingpong N: a parent and a child pass one byte back and forth through
 * two pipes N times. Each side makes exactly N writes and N reads of one
 * byte; each read blocks until the other side writes, so the trace shows the
 * writer waking the reader about N times in each direction.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc != 2 || atol(argv[1]) <= 0) {
		fprintf(stderr, "usage: wl_pingpong N (N > 0)\n");
		return 2;
	}
	long n = atol(argv[1]);
	int ab[2], ba[2];

	if (pipe(ab) || pipe(ba)) {
		perror("pipe");
		return 1;
	}
	char c = 'p';
	pid_t child = fork();

	if (child < 0) {
		perror("fork");
		return 1;
	}
	if (child == 0) {
		for (long i = 0; i < n; i++) {
			if (syscall(SYS_read, ab[0], &c, 1) != 1 || syscall(SYS_write, ba[1], &c, 1) != 1)
				_exit(1);
		}
		_exit(0);
	}
	for (long i = 0; i < n; i++) {
		if (syscall(SYS_write, ab[1], &c, 1) != 1 || syscall(SYS_read, ba[0], &c, 1) != 1) {
			perror("pingpong");
			return 1;
		}
	}
	int status;

	waitpid(child, &status, 0);
	return !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}
