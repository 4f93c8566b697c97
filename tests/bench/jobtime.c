// SPDX-License-Identifier: MIT
/*
 * jobtime FILE COMMAND [ARGS...]: runs COMMAND, waits for it and appends
 * one line to FILE: its elapsed CLOCK_MONOTONIC time and the CPU time the
 * threads of jobtime's parent process used meanwhile, both in nanoseconds
 * (the second from /proc/PPID/task/ * /schedstat; -1 when unreadable). Exits
 * with COMMAND's status (128 + the signal when it was killed, 127 when it
 * could not be run). The benchmark of real jobs (scripts/bench-jobs.sh)
 * times each job with it, so the time covers exactly the job, not the shell
 * around it nor, when tracedaemon runs it as its command, the daemon's
 * start and end; the parent's CPU time is then the daemon's drain and write
 * work while the job ran.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The CPU time of every thread of process @pid, ns; -1 when unreadable. */
static long long cpu_ns(pid_t pid)
{
	char path[64];
	long long sum = 0, ns;
	struct dirent *d;
	DIR *dir;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return -1;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.16s/schedstat",
			 (int)pid, d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue; /* the thread ended meanwhile */
		if (fscanf(f, "%lld", &ns) == 1)
			sum += ns;
		fclose(f);
	}
	closedir(dir);
	return sum;
}

int main(int argc, char **argv)
{
	long long start, elapsed, cpu0, cpu1;
	pid_t parent = getppid();
	int status;
	pid_t pid;
	FILE *f;

	if (argc < 3) {
		fprintf(stderr, "usage: jobtime FILE COMMAND [ARGS...]\n");
		return 2;
	}
	cpu0 = cpu_ns(parent);
	start = now_ns();
	pid = fork();
	if (pid < 0) {
		perror("jobtime: fork");
		return 127;
	}
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		fprintf(stderr, "jobtime: %s: %s\n", argv[2], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			perror("jobtime: waitpid");
			return 127;
		}
	}
	elapsed = now_ns() - start;
	cpu1 = cpu_ns(parent);
	f = fopen(argv[1], "a");
	if (!f || fprintf(f, "%lld %lld\n", elapsed,
			  cpu0 < 0 || cpu1 < 0 ? -1 : cpu1 - cpu0) < 0 ||
	    fclose(f)) {
		fprintf(stderr, "jobtime: cannot write %s\n", argv[1]);
		return 127;
	}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
