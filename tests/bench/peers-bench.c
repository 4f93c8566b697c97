// SPDX-License-Identifier: GPL-2.0
/*
 * peers-bench: the timing and draining helper of make bench-peers, run in
 * the QEMU guest (static). Times are CLOCK_MONOTONIC, which under QEMU's
 * -icount is virtual time (instructions executed).
 *   peers-bench getppid N     N getppid() calls after 1000 unmeasured ones;
 *                             prints "ns TOTAL" (the N calls)
 *   peers-bench time CMD ARG  runs CMD with its output to /dev/null, waits;
 *                             prints "ns TOTAL" (fork to reaped exit); exits
 *                             1 when CMD fails
 *   peers-bench drain FILE OUT
 *                             reads FILE without blocking (an ftrace
 *                             per_cpu/cpuN/trace_pipe_raw) until it has no
 *                             more data and writes it to OUT; prints
 *                             "bytes TOTAL"
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int print_usage(void)
{
	fprintf(stderr,
		"usage: peers-bench getppid N | time CMD [ARGS...] | drain FILE OUT\n");
	return 2;
}

static int do_getppid(const char *arg)
{
	char *end;
	long n = strtol(arg, &end, 10);
	uint64_t t0;
	long i;

	if (*arg == '\0' || *end != '\0' || n <= 0) {
		fprintf(stderr, "peers-bench: N must be a positive number, not '%s'\n",
			arg);
		return 2;
	}
	for (i = 0; i < 1000; i++)
		syscall(SYS_getppid);
	t0 = now_ns();
	for (i = 0; i < n; i++)
		syscall(SYS_getppid);
	printf("ns %llu\n", (unsigned long long)(now_ns() - t0));
	return 0;
}

static int do_time(char **argv)
{
	uint64_t t0 = now_ns();
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		perror("peers-bench: fork");
		return 1;
	}
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
			close(fd);
		}
		execvp(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0) {
		perror("peers-bench: waitpid");
		return 1;
	}
	printf("ns %llu\n", (unsigned long long)(now_ns() - t0));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "peers-bench: %s failed (status 0x%x)\n", argv[0],
			status);
		return 1;
	}
	return 0;
}

static int do_drain(const char *from, const char *to)
{
	static char buf[1 << 16];
	unsigned long long total = 0;
	int in = open(from, O_RDONLY | O_NONBLOCK);
	int out;

	if (in < 0) {
		fprintf(stderr, "peers-bench: %s: %s\n", from, strerror(errno));
		return 1;
	}
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0) {
		fprintf(stderr, "peers-bench: %s: %s\n", to, strerror(errno));
		close(in);
		return 1;
	}
	for (;;) {
		ssize_t n = read(in, buf, sizeof(buf));

		if (n == 0 || (n < 0 && errno == EAGAIN))
			break;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || write(out, buf, n) != n) {
			fprintf(stderr, "peers-bench: draining %s: %s\n", from,
				strerror(errno));
			close(in);
			close(out);
			return 1;
		}
		total += n;
	}
	close(in);
	if (close(out) < 0) {
		fprintf(stderr, "peers-bench: %s: %s\n", to, strerror(errno));
		return 1;
	}
	printf("bytes %llu\n", total);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "getppid") == 0)
		return do_getppid(argv[2]);
	if (argc >= 3 && strcmp(argv[1], "time") == 0)
		return do_time(argv + 2);
	if (argc == 4 && strcmp(argv[1], "drain") == 0)
		return do_drain(argv[2], argv[3]);
	return print_usage();
}
