// SPDX-License-Identifier: MIT
/*
 * wl_pssample INTERVAL_MS COUNT OUT: what `ps` would report, sampled COUNT
 * times every INTERVAL_MS while a trace runs, for the paper's Figure 8
 * comparison (scripts/ltt-vs-ps). Each sample is
 *   SAMPLE <uptime seconds> <clock ticks per second>
 * followed by one line per process from /proc/PID/stat:
 *   <pid> <utime ticks> <stime ticks> <start time ticks> <comm>
 * ps computes %CPU as (utime + stime) / (uptime - start time); the script
 * does the same from these lines, so the figures are exactly ps's.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void sample(FILE *out)
{
	double up = 0;
	FILE *f = fopen("/proc/uptime", "r");

	if (!f || fscanf(f, "%lf", &up) != 1) {
		perror("/proc/uptime");
		exit(1);
	}
	fclose(f);
	fprintf(out, "SAMPLE %.2f %ld\n", up, sysconf(_SC_CLK_TCK));
	DIR *d = opendir("/proc");

	if (!d) {
		perror("/proc");
		exit(1);
	}
	struct dirent *e;

	while ((e = readdir(d))) {
		char path[300], line[1024];

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue; /* exited meanwhile */
		char *ok = fgets(line, sizeof(line), f);

		fclose(f);
		char *open = strchr(line, '('), *close = strrchr(line, ')');

		if (!ok || !open || !close)
			continue;
		*close = '\0';
		unsigned long ut, st;
		unsigned long long start;
		/* after ")": state(3) ... utime(14) stime(15) ... starttime(22) */
		if (sscanf(close + 2,
			   "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu %*d %*d %*d %*d %*d %*d %llu",
			   &ut, &st, &start) != 3)
			continue;
		fprintf(out, "%s %lu %lu %llu %s\n", e->d_name, ut, st, start, open + 1);
	}
	closedir(d);
	fflush(out);
}

int main(int argc, char **argv)
{
	if (argc != 4 || atol(argv[1]) <= 0 || atol(argv[2]) <= 0) {
		fprintf(stderr, "usage: wl_pssample INTERVAL_MS COUNT OUT\n");
		return 2;
	}
	long ms = atol(argv[1]), count = atol(argv[2]);
	FILE *out = fopen(argv[3], "w");

	if (!out) {
		perror(argv[3]);
		return 1;
	}
	for (long i = 0; i < count; i++) {
		struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

		nanosleep(&ts, NULL);
		sample(out);
	}
	return fclose(out) != 0;
}
