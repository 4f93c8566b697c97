// SPDX-License-Identifier: MIT
/*
 * user-bench (make bench-user, scripts/bench-user.sh): logs COUNT events
 * of three fields (seq:i64 tag:str ratio:f64) in a loop and prints what
 * the loop cost per event. One source, three programs:
 *
 *   -DBENCH_NONE   user-bench-none:  no tracing library; the loop computes
 *                  the same values and hands them to an empty asm, so the
 *                  baseline pays for the loop and the arguments
 *   -DBENCH_LTT    user-bench-ltt:   ltt_user_log() of libltt-user
 *   -DBENCH_LTTNG  user-bench-lttng: an LTTng-UST 2.13 tracepoint
 *                  (user-bench-tp.h: ctf integer, string and float)
 *
 * usage: user-bench-* COUNT [enabled|disabled [BATCH]]
 *        user-bench-none clock COUNT
 * (the second form times COUNT clock_gettime(CLOCK_MONOTONIC) calls, the
 * clock LTTng-UST reads for each event, and prints "ns_per_call X")
 * The second argument says what the run expects of the tracer: with
 * "enabled" user-bench-ltt first waits (up to 5 s) for a tracedaemon to
 * enable it, and both tracing programs fail unless their event is enabled
 * when the loop starts; with "disabled" they fail unless it is disabled.
 * LTTng-UST registers with lttng-sessiond in its constructor, before
 * main(), and waits there for the session's setup (up to its
 * LTTNG_UST_REGISTER_TIMEOUT). After the timed loop, user-bench-ltt waits
 * (up to 5 s, not timed) until tracedaemon has taken every event out of
 * its rings; lttng stop does the same for LTTng.
 * With BATCH, the loop runs in batches of BATCH events with a pause of
 * PAUSE_MS between them, not timed, in which the tracer's reader
 * (tracedaemon drains every 100 ms; lttng-consumerd) empties the buffers:
 * the figure is then the producer's cost alone, without losses when a
 * batch fits in the buffer.
 * Prints "ns_per_event X" and "ns_total N" (CLOCK_MONOTONIC, timed
 * batches only).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(BENCH_LTT)
#include <ltt/user.h>
#define BENCH_NAME "user-bench-ltt"
#elif defined(BENCH_LTTNG)
#define LTTNG_UST_TRACEPOINT_DEFINE
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#include "user-bench-tp.h"
#define BENCH_NAME "user-bench-lttng"
#elif defined(BENCH_NONE)
#define BENCH_NAME "user-bench-none"
#else
#error "build with one of -DBENCH_NONE, -DBENCH_LTT, -DBENCH_LTTNG"
#endif

#define NTAGS 8
#define PAUSE_MS 250

static const char *const tags[NTAGS] = {
	"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
};

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, BENCH_NAME ": %s\n", what);
	exit(1);
}

int main(int argc, char **argv)
{
	int64_t count, batch, i, t0, spent = 0;
	int expect_enabled = -1, enabled = 0;
	char *end;

#if defined(BENCH_NONE)
	if (argc == 3 && !strcmp(argv[1], "clock")) {
		count = strtoll(argv[2], &end, 10);
		if (*end || count <= 0)
			die("COUNT must be a positive number");
		t0 = now_ns();
		for (i = 0; i < count; i++)
			now_ns();
		printf("ns_per_call %.2f\n", (double)(now_ns() - t0) / (double)count);
		return 0;
	}
#endif
	if (argc < 2 || argc > 4)
		die("usage: user-bench-* COUNT [enabled|disabled [BATCH]]");
	errno = 0;
	count = strtoll(argv[1], &end, 10);
	if (errno || *end || count <= 0)
		die("COUNT must be a positive number");
	batch = count;
	if (argc == 4) {
		errno = 0;
		batch = strtoll(argv[3], &end, 10);
		if (errno || *end || batch <= 0)
			die("BATCH must be a positive number");
	}
	if (argc >= 3) {
		if (!strcmp(argv[2], "enabled"))
			expect_enabled = 1;
		else if (!strcmp(argv[2], "disabled"))
			expect_enabled = 0;
		else
			die("the second argument is enabled or disabled");
	}

#if defined(BENCH_LTT)
	struct ltt_user_type *type =
		ltt_user_declare("bench", "seq:i64 tag:str ratio:f64");

	if (!type)
		die("ltt_user_declare failed");
	if (expect_enabled == 1) {
		int r = ltt_user_wait_enabled(5000);

		if (r) {
			fprintf(stderr, BENCH_NAME ": not enabled: %s\n", strerror(-r));
			return 1;
		}
	}
	enabled = ltt_user_active != 0;
#elif defined(BENCH_LTTNG)
	enabled = lttng_ust_tracepoint_enabled(ltt_bench, event) != 0;
#endif
	if (expect_enabled >= 0 && enabled != expect_enabled)
		die(enabled ? "the event is enabled, expected disabled"
			    : "the event is disabled, expected enabled");

	t0 = now_ns();
	for (i = 0; i < count; i++) {
		if (i && i % batch == 0) {
			const struct timespec pause = { 0, PAUSE_MS * 1000000L };

			spent += now_ns() - t0;
			nanosleep(&pause, NULL);
			t0 = now_ns();
		}
		const char *tag = tags[i % NTAGS];
		double ratio = (double)i * 0.5;

#if defined(BENCH_LTT)
		ltt_user_log(type, i, tag, ratio);
#elif defined(BENCH_LTTNG)
		lttng_ust_tracepoint(ltt_bench, event, i, tag, ratio);
#else
		/* The values must exist, as they do for a tracer's call. */
		__asm__ volatile("" : : "r"(i), "r"(tag), "x"(ratio) : "memory");
#endif
	}
	spent += now_ns() - t0;

#if defined(BENCH_LTT)
	if (enabled) {
		int r = ltt_user_flush(5000);

		if (r)
			fprintf(stderr, BENCH_NAME ": flush: %s\n", strerror(-r));
	}
#endif
	printf("ns_per_event %.2f\nns_total %lld\n", (double)spent / (double)count,
	       (long long)spent);
	return 0;
}
