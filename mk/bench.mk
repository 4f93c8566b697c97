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
.PHONY: kernel-peers bench-peers bench-user

kernel-peers:
	@scripts/build-kernel.sh --peers

bench-peers:
	@scripts/bench-peers.sh

bench-user:
	@scripts/bench-user.sh
