// SPDX-License-Identifier: MIT
/*
 * wl_cpu SECONDS OUT: spins in user mode for SECONDS of wall-clock time, then
 * writes to OUT what the kernel's own accounting says about this process:
 *   {"pid": P, "schedstat_run_ns": R, "utime_ticks": U, "stime_ticks": S,
 *    "clk_tck": HZ}
 * from /proc/self/schedstat (time on CPU, ns) and /proc/self/stat. The
 * accuracy test compares the trace's running and user time with these.
 *
 * The clock is read only every few million iterations: in a guest without a
 * stable TSC (QEMU's software emulation) clock_gettime() is a real system
 * call, not a vDSO read, and checking it often would make this loop spend its
 * time in the kernel instead of in user mode.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: wl_cpu SECONDS OUT\n");
		return 2;
	}
	double secs = atof(argv[1]);
	if (secs <= 0 || secs > 600) {
		fprintf(stderr, "wl_cpu: SECONDS must be in (0, 600]\n");
		return 2;
	}
	volatile unsigned long x = 0;
	double end = now() + secs;
	while (now() < end)
		for (int i = 0; i < 5000000; i++)
			x += i;

	/* schedstat's run time of a running task is only brought up to date by
	 * the scheduler (at a tick or a switch): yield once so it is current. */
	sched_yield();
	unsigned long long run = 0, wait = 0, slices = 0;
	FILE *f = fopen("/proc/self/schedstat", "r");
	if (!f || fscanf(f, "%llu %llu %llu", &run, &wait, &slices) != 3) {
		perror("/proc/self/schedstat");
		return 1;
	}
	fclose(f);
	char line[4096];
	f = fopen("/proc/self/stat", "r");
	if (!f || !fgets(line, sizeof(line), f)) {
		perror("/proc/self/stat");
		return 1;
	}
	fclose(f);
	/* Fields after the ")" closing comm: state is field 3, utime 14, stime 15. */
	char *p = strrchr(line, ')');
	unsigned long utime = 0, stime = 0;
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
			 &utime, &stime) != 2) {
		fprintf(stderr, "wl_cpu: cannot parse /proc/self/stat\n");
		return 1;
	}
	FILE *out = fopen(argv[2], "w");
	if (!out) {
		perror(argv[2]);
		return 1;
	}
	fprintf(out,
		"{\"pid\": %d, \"schedstat_run_ns\": %llu, \"schedstat_wait_ns\": %llu, "
		"\"utime_ticks\": %lu, \"stime_ticks\": %lu, \"clk_tck\": %ld}\n",
		getpid(), run, wait, utime, stime, sysconf(_SC_CLK_TCK));
	return fclose(out) != 0;
}
