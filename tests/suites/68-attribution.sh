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
build=$vm_build

for variant in ${LTT_ATTRIBUTION_KERNELS:-ltt stock}; do
	out=$build/test-results/attribution-$variant
	log=$out.log
	rm -rf "$out"
	mkdir -p "$out"
	rc=0
	vm_kernel "$variant" --no-build >"$log" 2>&1 || rc=$?
	((rc == 0)) && { vm_module "$variant" >>"$log" 2>&1 || rc=$?; }
	if ((rc == 0)); then
		vm_bins=("$build/bin/tracedaemon") vm_workloads=1
		vm_qemu=(--timeout 1200 --mem 1G --smp 2)
		vm_boot "$out" tests/attribution/attribution-guest.sh >>"$log" 2>&1
		rc=$?
	fi
	vm_report "$rc" "$log" "$out" "[$variant] attribution run" "[$variant] " || continue
	python3 tests/attribution/check_attribution.py "$out" "$build/bin/traceanalyze" \
		"[$variant] " >"$out/check.txt"
	vm_import "$out/check.txt"
	if ! [[ $(tail -n 1 "$out/check.txt") =~ ^[0-9]+\ passed,\ [0-9]+\ failed$ ]]; then
		t_fail "[$variant] attribution checker reported its totals" "$(tail -n 5 "$out/check.txt")"
	fi
done
t_summary
