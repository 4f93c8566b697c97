// SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT
/*
 * ltt-user-load: logs COUNT events of type "load" (seq:i64 name:str
 * value:f64) through libltt-user and prints what each cost. Event i has
 * seq i, name "item-(i % 97)", value i * 0.5; checkers recompute them.
 *
 *   ltt-user-load COUNT            wait (5 s) for a daemon to enable us,
 *                                  log, wait until it drained everything
 *   ltt-user-load COUNT --disabled log without waiting (the disabled path
 *                                  while no daemon records us)
 *   ltt-user-load COUNT --burst [NS]
 *                                  log all COUNT at once (NS: spinning NS
 *                                  ns after each event, a producer that
 *                                  does some work), then wait until the
 *                                  daemon drained everything
 *   ltt-user-load COUNT --threads N
 *                                  N threads, one after another, each
 *                                  logs COUNT events and exits; event i
 *                                  of thread k has seq k * COUNT + i
 *   ltt-user-load COUNT --bracket N
 *                                  N threads at once, each logs COUNT / N
 *                                  events, each between two getppid()
 *                                  system calls (the kernel events the
 *                                  checker places it between); event i
 *                                  of thread k has seq k * COUNT / N + i
 *
 * The plain enabled run waits for the daemon's drain after each 1000
 * (not timed): the point is every event in the trace, in order. Prints
 * "COUNT events: N ns per event".
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <ltt/user.h>

#define BATCH 1000

static struct ltt_user_type *t;
static char names[97][16];
static long per_thread;

struct job {
	long first;
};

static void *thread_main(void *arg)
{
	const struct job *j = arg;
	long i;

	for (i = j->first; i < j->first + per_thread; i++)
		ltt_user_log(t, (int64_t)i, names[i % 97], i * 0.5);
	return NULL;
}

static pthread_barrier_t start_line;

static void *bracket_main(void *arg)
{
	const struct job *j = arg;
	long i;

	pthread_barrier_wait(&start_line);
	for (i = j->first; i < j->first + per_thread; i++) {
		syscall(SYS_getppid);
		ltt_user_log(t, (int64_t)i, names[i % 97], i * 0.5);
		syscall(SYS_getppid);
	}
	return NULL;
}

/* N threads at once, each logging between system calls. */
static int run_bracket(long n)
{
	pthread_t th[64];
	struct job jobs[64];
	long k;

	pthread_barrier_init(&start_line, NULL, (unsigned int)n);
	for (k = 0; k < n; k++) {
		jobs[k].first = k * per_thread;
		if (pthread_create(&th[k], NULL, bracket_main, &jobs[k]) != 0) {
			perror("ltt-user-load: pthread_create");
			return 1;
		}
	}
	for (k = 0; k < n; k++)
		pthread_join(th[k], NULL);
	pthread_barrier_destroy(&start_line);
	return 0;
}

/* N short-lived threads, one after another: each ring is given back. */
static int run_threads(long n)
{
	long k;

	for (k = 0; k < n; k++) {
		struct job j = { k * per_thread };
		pthread_t th;

		if (pthread_create(&th, NULL, thread_main, &j) != 0) {
			perror("ltt-user-load: pthread_create");
			return 1;
		}
		pthread_join(th, NULL);
	}
	return 0;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long count, i, threads = 0, bracket = 0, batch = BATCH, pace = 0;
	double spent = 0, t0;
	int disabled = 0, r;

	count = argc >= 2 ? atol(argv[1]) : 0;
	if (argc == 3 && !strcmp(argv[2], "--disabled"))
		disabled = 1;
	else if ((argc == 3 || argc == 4) && !strcmp(argv[2], "--burst"))
		batch = count, pace = argc == 4 ? atol(argv[3]) : 0;
	else if (argc == 4 && !strcmp(argv[2], "--threads"))
		threads = atol(argv[3]);
	else if (argc == 4 && !strcmp(argv[2], "--bracket"))
		bracket = atol(argv[3]);
	if (argc < 2 || count <= 0 || (argc == 3 && !disabled && batch != count) ||
	    (argc == 4 && threads <= 0 && pace <= 0 && bracket <= 0) || argc > 4 ||
	    bracket > 64 || (bracket && count % bracket)) {
		fprintf(stderr,
			"usage: ltt-user-load COUNT [--disabled | --burst [NS] | --threads N | --bracket N]\n"
			"  (--bracket: at most 64 threads, COUNT a multiple of N)\n");
		return 2;
	}
	for (i = 0; i < 97; i++)
		snprintf(names[i], sizeof(names[i]), "item-%ld", i);
	t = ltt_user_declare("load", "seq:i64 name:str value:f64");
	if (!t) {
		perror("ltt-user-load: ltt_user_declare");
		return 1;
	}
	if (!disabled) {
		r = ltt_user_wait_enabled(5000);
		if (r) {
			fprintf(stderr, "ltt-user-load: not enabled: %s\n",
				strerror(-r));
			return 1;
		}
	}
	if (bracket) {
		per_thread = count / bracket;
		t0 = now_ns();
		if (run_bracket(bracket))
			return 1;
		spent = now_ns() - t0;
		r = ltt_user_flush(5000);
		if (r) {
			fprintf(stderr, "ltt-user-load: not drained: %s\n",
				strerror(-r));
			return 1;
		}
		printf("%ld events from %ld threads: %.1f ns per event and its two getppid()\n",
		       count, bracket, spent / per_thread);
		return 0;
	}
	if (threads) {
		per_thread = count;
		t0 = now_ns();
		if (run_threads(threads))
			return 1;
		spent = now_ns() - t0;
		r = ltt_user_flush(5000);
		if (r) {
			fprintf(stderr, "ltt-user-load: not drained: %s\n",
				strerror(-r));
			return 1;
		}
		printf("%ld threads of %ld events: %.1f us per thread\n",
		       threads, count, spent / threads / 1000);
		return 0;
	}
	for (i = 0; i < count; i += batch) {
		long j, end = i + batch < count ? i + batch : count;

		t0 = now_ns();
		for (j = i; j < end; j++) {
			ltt_user_log(t, (int64_t)j, names[j % 97], j * 0.5);
			if (pace) {
				double until = now_ns() + pace;

				while (now_ns() < until)
					;
			}
		}
		spent += now_ns() - t0;
		if (!disabled) {
			r = ltt_user_flush(5000);
			if (r) {
				fprintf(stderr, "ltt-user-load: not drained: %s\n",
					strerror(-r));
				return 1;
			}
		}
	}
	printf("%ld events: %.1f ns per event (%s)\n", count, spent / count,
	       disabled ? "disabled" : "enabled");
	return 0;
}
