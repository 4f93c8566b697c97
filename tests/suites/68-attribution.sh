#!/usr/bin/env bash
# Every event to the right process, whatever the session recorded
# (docs/analysis.md, "Attribution"), in the QEMU guest on the patched
# kernel and on Debian's stock kernel (the tracepoint backend): a workload
# whose per-call table is known (tests/workloads/wl_calltable) traced by
# `-e SYSCALL -- COMMAND`, by `-e SYSCALL -P PID`, by the default session
# started while it runs, by the default session whose scheduling events
# are dropped and restored through its control FIFO while it runs, by a
# flight recorder whose ring was overwritten before it ran (the snapshot
# taken while it lives), and by a restricted session of uid 1000 while
# root starts it through su and through a setuid-to-user helper
# (tests/attribution/attribution-guest.sh). On the host,
# tests/attribution/check_attribution.py checks each trace's table
# exactly, that no other process and no unattributed entry got any of it,
# and what makes each shape what it claims. A kernel not in the cache is
# skipped, not built here.
# LTT_SKIP_VM=1 skips the suite.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo" || exit 1
source tests/lib/sh-test.sh
source tests/lib/vm-host.sh
vm_suite_skip_if_requested "attribution suite"
# shellcheck disable=SC2086 # the kernels are words
vm_checked_runs attribution tests/attribution/attribution-guest.sh \
	tests/attribution/check_attribution.py ${LTT_ATTRIBUTION_KERNELS:-ltt stock}
t_summary
