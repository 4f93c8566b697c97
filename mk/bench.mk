# Benchmarks against other tracers (included by the top Makefile). Never
# part of make check.
#   make kernel-peers  the peers kernel: the ltt series plus what LTTng 2.13
#                      needs (kernel-patches/config/peers.config), cached
#   make bench-peers   ltt against ftrace and LTTng 2.13 in one boot of that
#                      kernel: the getppid() loop and a mixed workload,
#                      untraced, ltt loaded idle, traced by each; prints a
#                      table and writes $(BUILD)/bench/peers.json
#                      (BENCH_MODE=icount, the default, or wall; see
#                      scripts/bench-peers.sh)
#   make bench-user    application events: libltt-user against LTTng-UST
#                      2.13 in one boot of the peers kernel (a loop logging
#                      three fields untraced, disabled, traced); prints a
#                      table and writes $(BUILD)/bench/user.json
#                      (scripts/bench-user.sh)
#   make bench-offcpu  what tracedaemon -S (off-CPU stacks) costs: pipe
#                      ping-pongs with short, 20-frame, past-the-bound and
#                      faulting user stacks, untraced, -e SCHED and
#                      -e SCHED -S, in one icount boot per kernel of
#                      BENCH_OFFCPU_KERNELS (default ltt, the facility; also
#                      ltt-tp, its tracepoint backend, and stock, Debian's
#                      6.1); prints instructions per blocking switch and
#                      writes $(BUILD)/bench/offcpu-KERNEL.json
#                      (tests/offcpu/cost.sh: COST_ITERS, COST_RUNS)
.PHONY: kernel-peers bench-peers bench-user bench-offcpu

kernel-peers:
	@scripts/build-kernel.sh --peers

bench-peers:
	@scripts/bench-peers.sh

bench-user:
	@scripts/bench-user.sh

BENCH_OFFCPU_KERNELS ?= ltt

bench-offcpu: all
	@for k in $(BENCH_OFFCPU_KERNELS); do \
		LTT_COST_KERNEL=$$k BUILD=$(BUILD) tests/offcpu/cost.sh || exit 1; \
	done
