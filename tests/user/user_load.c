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
 *
 * A ring holds about 1300 such events, so the enabled run waits for the
 * daemon's drain after each 1000 (not timed): the point is every event in
 * the trace, in order. Prints "COUNT events: N ns per event".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ltt/user.h>

#define BATCH 1000

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	struct ltt_user_type *t;
	char names[97][16];
	long count, i;
	double spent = 0, t0;
	int disabled, r;

	count = argc >= 2 ? atol(argv[1]) : 0;
	if (argc < 2 || argc > 3 || count <= 0) {
		fprintf(stderr, "usage: ltt-user-load COUNT [--disabled]\n");
		return 2;
	}
	disabled = argc == 3 && !strcmp(argv[2], "--disabled");
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
	for (i = 0; i < count; i += BATCH) {
		long j, end = i + BATCH < count ? i + BATCH : count;

		t0 = now_ns();
		for (j = i; j < end; j++)
			ltt_user_log(t, (int64_t)j, names[j % 97], j * 0.5);
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
