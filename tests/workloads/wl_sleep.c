// SPDX-License-Identifier: MIT
/*
 * wl_sleep COUNT MS: sleeps COUNT times MS milliseconds in nanosleep(2). The
 * trace must show ~COUNT*MS ms sleeping and almost no running time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: wl_sleep COUNT MS\n");
		return 2;
	}
	long count = atol(argv[1]), ms = atol(argv[2]);

	if (count <= 0 || ms <= 0 || ms > 10000) {
		fprintf(stderr, "wl_sleep: COUNT > 0, MS in 1..10000\n");
		return 2;
	}
	for (long i = 0; i < count; i++) {
		struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

		if (syscall(SYS_nanosleep, &ts, NULL) != 0) {
			perror("nanosleep");
			return 1;
		}
	}
	return 0;
}
