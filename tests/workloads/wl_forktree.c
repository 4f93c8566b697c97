// SPDX-License-Identifier: MIT
/*
 * wl_forktree DEPTH FANOUT LEAF: a process tree of known shape. Every process
 * above DEPTH forks FANOUT children and waits for them; every process at depth
 * DEPTH execs LEAF (a program whose name the trace must show after the exec),
 * which exits at once. DEPTH 2 FANOUT 3: 1 + 3 + 9 processes, 9 execs.
 * Prints nothing; the accuracy tests derive the expected tree from the
 * arguments and the parent/child links in the trace.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void node(int depth, int max, int fanout, const char *leaf)
{
	if (depth == max) {
		execl(leaf, leaf, (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < fanout; i++) {
		pid_t p = fork();

		if (p < 0) {
			perror("fork");
			_exit(1);
		}
		if (p == 0) {
			node(depth + 1, max, fanout, leaf);
			_exit(0);
		}
	}
	int status, bad = 0;

	while (wait(&status) > 0)
		bad |= !WIFEXITED(status) || WEXITSTATUS(status) != 0;
	if (bad)
		_exit(1);
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: wl_forktree DEPTH FANOUT LEAF\n");
		return 2;
	}
	int depth = atoi(argv[1]), fanout = atoi(argv[2]);

	if (depth < 1 || depth > 6 || fanout < 1 || fanout > 8) {
		fprintf(stderr, "wl_forktree: DEPTH in 1..6, FANOUT in 1..8\n");
		return 2;
	}
	node(0, depth, fanout, argv[3]);
	return 0;
}
