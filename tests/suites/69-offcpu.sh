#!/usr/bin/env bash
# Off-CPU stacks (tracedaemon -S, traceanalyze --offcpu --folded) in the
# QEMU guest on the patched kernel and on Debian's stock kernel (the
# tracepoint backend): a workload that blocks in a pipe read, a nanosleep
# and an fsync of a scratch disk (tests/workloads/wl_offcpu) is traced
# with stacks while ftrace's stacktrace trigger on sched_switch records
# the kernel's own stacks of the same switches
# (tests/offcpu/offcpu-guest.sh); on the host,
# tests/offcpu/check_offcpu.py checks the folded stacks' weights against
# the workload's own timing, their user frames, each kernel stack against
# ftrace's, and that a restricted session records no kernel stack. A
# kernel not in the cache is skipped, not built here. LTT_SKIP_VM=1 skips
# the suite.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo" || exit 1
source tests/lib/sh-test.sh
source tests/lib/vm-host.sh
vm_suite_skip_if_requested "off-CPU suite"
build=$vm_build

for variant in ${LTT_OFFCPU_KERNELS:-ltt stock}; do
	out=$build/test-results/offcpu-$variant
	log=$out.log
	rm -rf "$out"
	mkdir -p "$out"
	rc=0
	vm_kernel "$variant" --no-build >"$log" 2>&1 || rc=$?
	((rc == 0)) && { vm_module "$variant" >>"$log" 2>&1 || rc=$?; }
	((rc == 0)) && { vm_need "$build/bin/tracedaemon" "$build/workloads/wl_offcpu" >>"$log" 2>&1 || rc=$?; }
	if ((rc == 0)); then
		vm_bins=("$build/bin/tracedaemon") vm_workloads=1
		# The scratch disk's writes limited to 4 MiB/s: the fsync of
		# 4 MiB then sleeps for most of a second (QEMU lets a tenth of
		# the rate through at once). Unthrottled, the host's page cache
		# took the data at once, and the fsync slept 0 to 2 ms.
		vm_qemu=(--timeout 1200 --mem 1G --smp 2 --disk 64M --disk-write-bps 4194304)
		vm_boot "$out" tests/offcpu/offcpu-guest.sh >>"$log" 2>&1
		rc=$?
	fi
	vm_report "$rc" "$log" "$out" "[$variant] off-CPU run" "[$variant] " || continue
	python3 tests/offcpu/check_offcpu.py "$out" "$build/bin/traceanalyze" "$build/workloads" \
		"[$variant] " >"$out/check.txt"
	vm_import "$out/check.txt"
	if ! [[ $(tail -n 1 "$out/check.txt") =~ ^[0-9]+\ passed,\ [0-9]+\ failed$ ]]; then
		t_fail "[$variant] off-CPU checker reported its totals" "$(tail -n 5 "$out/check.txt")"
	fi
done
t_summary
