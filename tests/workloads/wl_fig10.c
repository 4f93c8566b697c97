// SPDX-License-Identifier: MIT
/*
 * wl_fig10 [SCALE]: the program of the LTT paper's Figure 10, which gprof
 * mis-profiles: fct_A counts in user mode, fct_B calls sched_yield() in a
 * loop and so spends its time in the kernel. SCALE divides the paper's loop
 * counts (10,000,000 and 1,000,000); default 10.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

static volatile int i, j;
static long loops_a = 10000000, loops_b = 1000000;

static void fct_A(void)
{
	for (i = 0, j = 0; j < loops_a; j++)
		i++;
	printf("i's value : %d\n", i);
}

static void fct_B(void)
{
	for (j = 0; j < loops_b; j++)
		sched_yield();
}

int main(int argc, char **argv)
{
	long scale = argc > 1 ? atol(argv[1]) : 10;

	if (scale <= 0) {
		fprintf(stderr, "usage: wl_fig10 [SCALE > 0]\n");
		return 2;
	}
	loops_a /= scale;
	loops_b /= scale;
	fct_A();
	fct_B();
	return 0;
}
