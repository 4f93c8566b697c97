// SPDX-License-Identifier: GPL-2.0
/*
 * wl_callsites: system calls from known call sites, for the call-site
 * symbolization tests. make_getpids() makes getpid 2 000 times and
 * make_more_getpids() 500 times (or the counts given as arguments; a third
 * argument is seconds to sleep first, or a path (it has a '/') to wait for,
 * so the process can be alive when a trace starts and be known from its
 * .proc snapshot), each
 * from one `syscall` instruction inlined into the function itself, so the
 * user address a system call entry records lies in that function (a call
 * through libc's getpid() would record an address in libc).
 *
 * Built several ways (tests/workloads/CMakeLists.txt): static and dynamic,
 * PIE and not, and a stripped copy of the dynamic PIE.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static inline long raw_getpid(void)
{
	long ret;

	asm volatile("syscall" : "=a"(ret) : "0"(39L) : "rcx", "r11", "memory");
	return ret;
}

__attribute__((noinline)) void make_getpids(long n)
{
	for (volatile long i = 0; i < n; i++)
		raw_getpid();
}

__attribute__((noinline)) void make_more_getpids(long n)
{
	for (volatile long i = 0; i < n; i++)
		raw_getpid();
}

int main(int argc, char **argv)
{
	if (argc > 3 && strchr(argv[3], '/')) {
		/* Up to 10 minutes: a debug kernel under TCG starts slowly. */
		for (int i = 0; access(argv[3], F_OK) != 0; i++) {
			if (i == 60000) {
				fprintf(stderr, "wl_callsites: %s never appeared\n", argv[3]);
				return 1;
			}
			usleep(10000);
		}
	} else if (argc > 3) {
		sleep((unsigned int)atoi(argv[3]));
	}
	make_getpids(argc > 1 ? atol(argv[1]) : 2000);
	make_more_getpids(argc > 2 ? atol(argv[2]) : 500);
	return 0;
}
