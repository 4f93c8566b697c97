// SPDX-License-Identifier: MIT
/*
 * wl_offcpu DEVICE: blocks in three known kernel code paths, for the
 * off-CPU stacks test (tests/offcpu/): a pipe read (a child writes after
 * 200 ms), a 300 ms nanosleep, and an fsync of 4 MiB written to DEVICE (a
 * scratch block device: the write-back waits for the disk). Each system
 * call is made by inline assembly in a function of its own, built with
 * frame pointers, so that the user stack names the function the task
 * blocked in. Prints, for the checker, its pid and for each call its wall
 * time less the time the task ran meanwhile (CLOCK_THREAD_CPUTIME_ID), the
 * time it spent off the CPU, and of that the time it waited on a run
 * queue (run_delay of /proc/thread-self/schedstat: after its wakeup, or
 * preempted):
 *   pid PID
 *   pipe OFF_NS WAIT_NS
 *   sleep OFF_NS WAIT_NS
 *   fsync OFF_NS WAIT_NS
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long raw1(long nr, long a)
{
	long ret;

	__asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a) : "rcx", "r11", "memory");
	return ret;
}

static long raw3(long nr, long a, long b, long c)
{
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a), "S"(b), "d"(c)
			 : "rcx", "r11", "memory");
	return ret;
}

static long long clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Wall time less this thread's CPU time: the time spent off the CPU. */
static long long now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC) - clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

/* This thread's time on a run queue so far (schedstat's second field). */
static long long run_delay(void)
{
	unsigned long long cpu = 0, delay = 0;
	FILE *f = fopen("/proc/thread-self/schedstat", "r");

	if (f) {
		if (fscanf(f, "%llu %llu", &cpu, &delay) != 2)
			delay = 0;
		fclose(f);
	}
	return (long long)delay;
}

__attribute__((noinline)) long block_in_pipe(int fd)
{
	char c;

	return raw3(SYS_read, fd, (long)&c, 1);
}

__attribute__((noinline)) long block_in_sleep(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	return raw3(SYS_nanosleep, (long)&ts, 0, 0);
}

__attribute__((noinline)) long block_in_fsync(int fd)
{
	/* On the stack: a function that uses it has a frame of its own. */
	volatile long arg = fd;

	return raw1(SYS_fsync, arg);
}

int main(int argc, char **argv)
{
	static char buf[1 << 20];
	long long t0, d0, pipe_ns, sleep_ns, fsync_ns; /* off the CPU */
	long long pipe_d, sleep_d, fsync_d; /* on a run queue meanwhile */
	int p[2], fd, status;
	pid_t child;

	if (argc != 2) {
		fprintf(stderr, "usage: wl_offcpu DEVICE\n");
		return 2;
	}
	fd = open(argv[1], O_WRONLY);
	if (fd < 0 || pipe(p) != 0) {
		perror("wl_offcpu");
		return 1;
	}
	child = fork();
	if (child < 0) {
		perror("fork");
		return 1;
	}
	if (child == 0) {
		struct timespec ts = { 0, 200000000L };

		nanosleep(&ts, NULL);
		if (write(p[1], "x", 1) != 1)
			_exit(1);
		_exit(0);
	}
	d0 = run_delay();
	t0 = now_ns();
	if (block_in_pipe(p[0]) != 1) {
		fprintf(stderr, "wl_offcpu: pipe read failed\n");
		return 1;
	}
	pipe_ns = now_ns() - t0;
	pipe_d = run_delay() - d0;
	d0 = run_delay();
	t0 = now_ns();
	if (block_in_sleep(300) != 0) {
		fprintf(stderr, "wl_offcpu: nanosleep failed\n");
		return 1;
	}
	sleep_ns = now_ns() - t0;
	sleep_d = run_delay() - d0;
	memset(buf, 0x5a, sizeof(buf));
	for (int i = 0; i < 4; i++)
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
			perror("write");
			return 1;
		}
	d0 = run_delay();
	t0 = now_ns();
	if (block_in_fsync(fd) != 0) {
		fprintf(stderr, "wl_offcpu: fsync failed\n");
		return 1;
	}
	fsync_ns = now_ns() - t0;
	fsync_d = run_delay() - d0;
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0) {
		fprintf(stderr, "wl_offcpu: the writer failed\n");
		return 1;
	}
	printf("pid %d\npipe %lld %lld\nsleep %lld %lld\nfsync %lld %lld\n", (int)getpid(),
	       pipe_ns, pipe_d, sleep_ns, sleep_d, fsync_ns, fsync_d);
	return 0;
}
