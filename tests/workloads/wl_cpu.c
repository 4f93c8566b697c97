// SPDX-License-Identifier: MIT
/*
 * wl_cpu SECONDS OUT: a child process spins in user mode for SECONDS of
 * wall-clock time and exits; the parent then writes to OUT what the kernel's
 * own accounting says about that child over its whole life:
 *   {"pid": CHILD, "schedstat_run_ns": R, "schedstat_wait_ns": W,
 *    "utime_ticks": U, "stime_ticks": S, "clk_tck": HZ}
 * from /proc/CHILD/schedstat (time on CPU, ns) and /proc/CHILD/stat. The
 * parent reads them while the child is a zombie (waitid with WNOWAIT): the
 * figures are final, and cover exactly the life the trace shows for that
 * pid, from fork to exit. The accuracy test compares the trace's running and
 * user time with these.
 *
 * The clock is read only every few million iterations: in a guest without a
 * stable TSC (QEMU's software emulation) clock_gettime() is a real system
 * call, not a vDSO read, and checking it often would make this loop spend its
 * time in the kernel instead of in user mode.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void spin(double secs)
{
	volatile unsigned long x = 0;
	double end = now() + secs;

	while (now() < end)
		for (int i = 0; i < 5000000; i++)
			x += i;
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
	pid_t child = fork();

	if (child < 0) {
		perror("fork");
		return 1;
	}
	if (child == 0) {
		spin(secs);
		_exit(0);
	}
	siginfo_t info;

	if (waitid(P_PID, child, &info, WEXITED | WNOWAIT) != 0) {
		perror("waitid");
		return 1;
	}

	char path[64], line[4096];
	unsigned long long run = 0, wait = 0, slices = 0;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", child);
	FILE *f = fopen(path, "r");

	if (!f || fscanf(f, "%llu %llu %llu", &run, &wait, &slices) != 3) {
		perror(path);
		return 1;
	}
	fclose(f);
	snprintf(path, sizeof(path), "/proc/%d/stat", child);
	f = fopen(path, "r");
	if (!f || !fgets(line, sizeof(line), f)) {
		perror(path);
		return 1;
	}
	fclose(f);
	/* Fields after the ")" closing comm: state is field 3, utime 14, stime 15. */
	char *p = strrchr(line, ')');
	unsigned long utime = 0, stime = 0;

	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
			 &utime, &stime) != 2) {
		fprintf(stderr, "wl_cpu: cannot parse %s\n", path);
		return 1;
	}
	waitpid(child, NULL, 0);

	FILE *out = fopen(argv[2], "w");

	if (!out) {
		perror(argv[2]);
		return 1;
	}
	fprintf(out, "{\"pid\": %d, \"schedstat_run_ns\": %llu, \"schedstat_wait_ns\": %llu, ",
		child, run, wait);
	fprintf(out, "\"utime_ticks\": %lu, \"stime_ticks\": %lu, \"clk_tck\": %ld}\n",
		utime, stime, sysconf(_SC_CLK_TCK));
	return fclose(out) != 0;
}
