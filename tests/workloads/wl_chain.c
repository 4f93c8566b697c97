// SPDX-License-Identifier: MIT
/*
 * wl_chain ROUNDS MS: three processes pass a token through two pipes. The
 * first sleeps MS milliseconds (nanosleep) and writes a byte to the first
 * pipe; the middle one reads it and writes a byte to the second pipe; the
 * last one reads that. Only the first one sleeps, so the last one's waits
 * are the first one's timer, through the middle one: what its critical
 * path must say (tests/latency/witness-guest.sh). Prints
 * "first P middle P last P" once the children exist; the parent is the
 * first.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int relay(int in, int out, long rounds)
{
	char c;

	for (long i = 0; i < rounds; i++) {
		if (read(in, &c, 1) != 1)
			return 1;
		if (out >= 0 && write(out, &c, 1) != 1)
			return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: wl_chain ROUNDS MS\n");
		return 2;
	}
	long rounds = atol(argv[1]), ms = atol(argv[2]);

	if (rounds <= 0 || ms <= 0 || ms > 1000) {
		fprintf(stderr, "wl_chain: ROUNDS > 0, MS in 1..1000\n");
		return 2;
	}
	int p1[2], p2[2];

	if (pipe(p1) || pipe(p2)) {
		perror("pipe");
		return 1;
	}
	pid_t middle = fork();

	if (middle == 0) {
		close(p1[1]);
		close(p2[0]);
		_exit(relay(p1[0], p2[1], rounds));
	}
	pid_t last = fork();

	if (last == 0) {
		close(p1[0]);
		close(p1[1]);
		close(p2[1]);
		_exit(relay(p2[0], -1, rounds));
	}
	if (middle < 0 || last < 0) {
		perror("fork");
		return 1;
	}
	close(p1[0]);
	close(p2[0]);
	close(p2[1]);
	printf("first %d middle %d last %d\n", (int)getpid(), (int)middle, (int)last);
	fflush(stdout);

	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	int rc = 0, st;

	for (long i = 0; i < rounds && !rc; i++) {
		if (nanosleep(&ts, NULL) || write(p1[1], "t", 1) != 1)
			rc = 1;
	}
	close(p1[1]);
	waitpid(middle, &st, 0);
	rc |= !WIFEXITED(st) || WEXITSTATUS(st);
	waitpid(last, &st, 0);
	rc |= !WIFEXITED(st) || WEXITSTATUS(st);
	return rc;
}
