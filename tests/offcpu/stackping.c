// SPDX-License-Identifier: GPL-2.0
/*
 * stackping: the user stacks of tests/offcpu/cost.sh, run in the QEMU
 * guest (static, x86-64, built with frame pointers).
 *   stackping N DEPTH         a parent and a child pass one byte back and
 *                             forth through two pipes N times (as
 *                             wl_pingpong), each read made DEPTH calls
 *                             deep, so a task that blocks there has a
 *                             user stack of about DEPTH + 4 frames
 *   stackping N DEPTH fault   the same, but the read's frame pointer
 *                             points at an unmapped page above the stack:
 *                             the kernel's frame-pointer walk takes a
 *                             page fault on its first read of user memory
 * Exits 2 on a usage error, 1 when a read or write fails.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#if !defined(__x86_64__)
#error "stackping is x86-64 only (its read stub is assembly)"
#endif

/*
 * long sp_read(int fd, void *buf, long n, unsigned long fp): read(2) with
 * its own frame (push %rbp; mov %rsp, %rbp), or, when fp is not 0, with
 * %rbp = fp during the system call, which is what the kernel sees as the
 * task's frame pointer when it blocks there.
 */
long sp_read(int fd, void *buf, long n, unsigned long fp);
__asm__(".text\n"
	".globl sp_read\n"
	".type sp_read, @function\n"
	"sp_read:\n"
	"	push %rbp\n"
	"	mov %rsp, %rbp\n"
	"	test %rcx, %rcx\n"
	"	cmovnz %rcx, %rbp\n"
	"	mov $0, %eax\n" /* SYS_read */
	"	syscall\n"
	"	pop %rbp\n"
	"	ret\n"
	".size sp_read, . - sp_read\n");

/* The read DEPTH calls deep: each level a frame with a frame pointer. */
static __attribute__((noinline)) long deep(int fd, char *c, long depth, unsigned long fp)
{
	long r;

	if (depth <= 0)
		return sp_read(fd, c, 1, fp);
	r = deep(fd, c, depth - 1, fp);
	/* Not a tail call: the frame stays on the stack during the read. */
	__asm__ volatile("" : "+r"(r) : : "memory");
	return r;
}

/*
 * The start of an unmapped page above the stack (the vdso and its data,
 * placed just above the stack, are skipped), below the top of user space;
 * 0 when there is none.
 */
static unsigned long unmapped_above_stack(void)
{
	/* 0x7ffffffff000: the top of 4-level user space. */
	const unsigned long top = 0x7ffffffff000UL;
	unsigned long lo, hi, cur = 0;
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f) {
		fprintf(stderr, "stackping: /proc/self/maps: %s\n", strerror(errno));
		return 0;
	}
	/* The lines are in address order: the first gap after [stack]. */
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx", &lo, &hi) != 2)
			continue;
		if (strstr(line, "[stack]"))
			cur = hi;
		else if (cur && lo >= cur + 4096)
			break;
		else if (cur && hi > cur)
			cur = hi;
	}
	fclose(f);
	return cur && cur + 4096 <= top ? cur : 0;
}

static long parse_count(const char *s, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (*s == '\0' || *end != '\0' || errno || v < 0) {
		fprintf(stderr, "stackping: %s must be a number >= 0, not '%s'\n", what, s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	int ab[2], ba[2], status;
	unsigned long fp = 0;
	long n, depth, i;
	char c = 'p';
	pid_t child;

	if (argc < 3 || argc > 4 || (argc == 4 && strcmp(argv[3], "fault") != 0)) {
		fprintf(stderr, "usage: stackping N DEPTH [fault]\n");
		return 2;
	}
	n = parse_count(argv[1], "N");
	depth = parse_count(argv[2], "DEPTH");
	if (n == 0 || depth > 10000) {
		fprintf(stderr, "stackping: N must be > 0 and DEPTH <= 10000\n");
		return 2;
	}
	if (argc == 4) {
		fp = unmapped_above_stack();
		if (!fp) {
			fprintf(stderr, "stackping: no unmapped page above the stack\n");
			return 1;
		}
	}
	if (pipe(ab) || pipe(ba)) {
		perror("stackping: pipe");
		return 1;
	}
	child = fork();
	if (child < 0) {
		perror("stackping: fork");
		return 1;
	}
	if (child == 0) {
		for (i = 0; i < n; i++) {
			if (deep(ab[0], &c, depth, fp) != 1 || syscall(SYS_write, ba[1], &c, 1) != 1)
				_exit(1);
		}
		_exit(0);
	}
	for (i = 0; i < n; i++) {
		if (syscall(SYS_write, ab[1], &c, 1) != 1 || deep(ba[0], &c, depth, fp) != 1) {
			perror("stackping");
			return 1;
		}
	}
	if (waitpid(child, &status, 0) < 0) {
		perror("stackping: waitpid");
		return 1;
	}
	return !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}
