#!/usr/bin/env bash
# Latency analyses against witnesses no one here wrote, in the QEMU guest on
# the patched kernel and on Debian's stock kernel (the tracepoint backend):
# wakeup latencies of a timer-woken thread among CPU hogs against ftrace's
# raw sched_waking/sched_switch pairs (histogram.rst's wakeup_latency rule,
# after a check of ftrace's clock against the hrtimers' "now"), and the critical
# path of the last of three processes passing a token, where only the
# first sleeps (tests/latency/witness-guest.sh, checked on the host by
# tests/latency/check_witness.py). A kernel not in the cache is skipped,
# not built here. LTT_SKIP_VM=1 skips the suite.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo" || exit 1
source tests/lib/sh-test.sh
source tests/lib/vm-host.sh
vm_suite_skip_if_requested "latency witness suite"
# shellcheck disable=SC2086 # the kernels are words
vm_checked_runs latency-witness tests/latency/witness-guest.sh tests/latency/check_witness.py \
	${LTT_WITNESS_KERNELS:-ltt stock}
t_summary
