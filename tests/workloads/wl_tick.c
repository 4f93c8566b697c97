// SPDX-License-Identifier: MIT
/*
 * wl_tick COUNT PERIOD_MS HOGS: a thread woken by a periodic timer while CPU
 * hogs compete. Starts HOGS children that spin (named wl_hog), then sleeps
 * COUNT times until the next multiple of PERIOD_MS (clock_nanosleep,
 * TIMER_ABSTIME on CLOCK_MONOTONIC), stops the hogs and exits. Each sleep
 * ends with one wakeup by the timer: the wakeup latencies of this process
 * are what traceanalyze --latency and ftrace's wakeup_latency histogram
 * both measure (tests/latency/witness-guest.sh). Prints its pid first and,
 * at the end, each sleep's deadline ("deadline SEC.NSEC", CLOCK_MONOTONIC):
 * the timer's wakeup can come no earlier, which tells a trace whose times
 * are late from one whose times are early.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: wl_tick COUNT PERIOD_MS HOGS\n");
		return 2;
	}
	long count = atol(argv[1]), ms = atol(argv[2]), hogs = atol(argv[3]);

	if (count <= 0 || ms <= 0 || ms > 1000 || hogs < 0 || hogs > 16) {
		fprintf(stderr, "wl_tick: COUNT > 0, PERIOD_MS in 1..1000, HOGS in 0..16\n");
		return 2;
	}
	printf("pid %d\n", (int)getpid());
	fflush(stdout);

	pid_t hog[16];

	for (long i = 0; i < hogs; i++) {
		hog[i] = fork();
		if (hog[i] < 0) {
			perror("fork");
			return 1;
		}
		if (hog[i] == 0) {
			volatile unsigned long n = 0;

			prctl(PR_SET_NAME, "wl_hog");
			for (;;)
				n++;
		}
	}

	struct timespec next, *deadline = calloc((size_t)count, sizeof(*deadline));
	long slept = 0;
	int rc = 0;

	if (!deadline) {
		perror("calloc");
		rc = 1;
		count = 0;
	}

	clock_gettime(CLOCK_MONOTONIC, &next);
	for (long i = 0; i < count; i++) {
		next.tv_nsec += ms * 1000000L;
		while (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		deadline[slept++] = next;
		int e = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);

		if (e) {
			fprintf(stderr, "wl_tick: clock_nanosleep: error %d\n", e);
			rc = 1;
			break;
		}
	}
	for (long i = 0; i < hogs; i++)
		kill(hog[i], SIGKILL);
	for (long i = 0; i < hogs; i++)
		waitpid(hog[i], NULL, 0);
	for (long i = 0; i < slept; i++)
		printf("deadline %lld.%09ld\n", (long long)deadline[i].tv_sec, deadline[i].tv_nsec);
	free(deadline);
	return rc;
}
