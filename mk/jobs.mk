# The paper's Figure 3 today (included by the top Makefile).
#   make bench-jobs   real jobs in the QEMU guest (tar | gzip, find | grep,
#                     sort, a forking shell loop, a pipe ping-pong) untraced
#                     and under tracedaemon in four configurations; prints
#                     the slowdown table (docs/performance.md). BENCH_MODE=
#                     icount (default), wall or both; BENCH_REPS, BENCH_SCALE,
#                     BENCH_BUFFER, BENCH_JOBS: see scripts/bench-jobs.sh
.PHONY: bench-jobs

bench-jobs: all
	@scripts/bench-jobs.sh
