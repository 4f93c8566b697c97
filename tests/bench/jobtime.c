// SPDX-License-Identifier: MIT
/*
 * jobtime FILE COMMAND [ARGS...]: runs COMMAND, waits for it and appends
 * one line to FILE: its elapsed CLOCK_MONOTONIC time and the CPU time the
 * threads of jobtime's parent process used meanwhile, both in nanoseconds
 * (the second from /proc/PPID/task/ * /schedstat, thread by thread; -1 when
 * unreadable). Exits with COMMAND's status (128 + the signal when it was
 * killed, 127 when it could not be run). The benchmark of real jobs (scripts/bench-jobs.sh)
 * times each job with it, so the time covers exactly the job, not the shell
 * around it nor, when tracedaemon runs it as its command, the daemon's
 * start and end; the parent's CPU time is then the daemon's drain and write
 * work while the job ran.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
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

#define MAX_THREADS 64

/* One thread's accumulated CPU time, ns, from /proc/PID/task/TID/schedstat. */
struct thread_cpu {
	long tid;
	long long ns;
};

/*
 * The CPU time of each thread of process @pid into @t (at most
 * MAX_THREADS); returns how many, or -1 when /proc/@pid/task is unreadable.
 */
static int threads_cpu(pid_t pid, struct thread_cpu *t)
{
	char path[64];
	struct dirent *d;
	int n = 0;
	DIR *dir;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return -1;
	while (n < MAX_THREADS && (d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.16s/schedstat",
			 (int)pid, d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue; /* the thread ended meanwhile */
		if (fscanf(f, "%lld", &t[n].ns) == 1) {
			t[n].tid = atol(d->d_name);
			n++;
		}
		fclose(f);
	}
	closedir(dir);
	return n;
}

/*
 * The CPU time the threads of @after used since @before: a thread in both
 * counts its difference, a thread new in @after all of its time; a thread
 * that ended in between is left out (its last moments are lost, never
 * counted negative).
 */
static long long cpu_since(const struct thread_cpu *before, int nb,
			   const struct thread_cpu *after, int na)
{
	long long sum = 0;
	int i, j;

	for (i = 0; i < na; i++) {
		long long start = 0;

		for (j = 0; j < nb; j++)
			if (before[j].tid == after[i].tid)
				start = before[j].ns;
		sum += after[i].ns - start;
	}
	return sum;
}

int main(int argc, char **argv)
{
	struct thread_cpu before[MAX_THREADS], after[MAX_THREADS];
	long long start, elapsed;
	pid_t parent = getppid();
	int nb, na;
	int status;
	pid_t pid;
	FILE *f;

	if (argc < 3) {
		fprintf(stderr, "usage: jobtime FILE COMMAND [ARGS...]\n");
		return 2;
	}
	nb = threads_cpu(parent, before);
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
	na = threads_cpu(parent, after);
	f = fopen(argv[1], "a");
	if (!f || fprintf(f, "%lld %lld\n", elapsed,
			  nb < 0 || na < 0 ? -1 :
			  cpu_since(before, nb, after, na)) < 0 ||
	    fclose(f)) {
		fprintf(stderr, "jobtime: cannot write %s\n", argv[1]);
		return 127;
	}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
