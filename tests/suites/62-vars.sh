#!/usr/bin/env bash
# run-suites: kernels ltt debug
# Kernel-state variables, decoded system calls, MOUNT and LOCK events in the
# QEMU guest (tests/module/vars-guest.sh), on the patched kernel, on the
# debug kernel (lockdep, KASAN: a warning on the console fails the run) and
# on Debian's unmodified kernel (the tracepoint backend):
# a workload with known calls (tests/workloads/wl_vars.c) traced with
# tracedaemon -V, then held on the host (tests/module/check_vars.py)
# against its own readings: traceanalyze -d shows its calls strace-style
# with exact values, the VARS records its pid, ppid, uid and minflt, the
# MOUNT events their paths, LOCK events appear only when selected. On the
# patched kernel also the cost per event with 0, 1 and 4 variables (the
# getppid() loop under -icount: instructions), noted, not checked.
# The control run (tests/module/control-guest.sh, checked on the host by
# tests/module/check_control.py): tracedaemon --control switches system
# calls off and on while wl_syscalls runs; the calls made while off are
# missing, the others complete, and the trace says when (CONFIG records).
# A kernel variant not yet in the cache is skipped, not built here.
# LTT_SKIP_VM=1 skips the suite (no QEMU on the machine).
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo" || exit 1
source tests/lib/sh-test.sh
source tests/lib/vm-host.sh
vm_suite_skip_if_requested "variables suite"

build=$vm_build
if ! vm_need "$build/bin/tracedaemon" "$build/bin/traceanalyze" "$build/workloads/wl_vars" \
	"$build/workloads/wl_syscalls"; then
	t_fail "variables: programs built" "run make BUILD=$build first"
	t_summary
	exit 1
fi
make -s BUILD="$build" module-test >&2 || t_fail "variables: ltt_modtest builds"

for run in ${LTT_VARS_RUNS:-ltt:check:2 debug:check:2 stock:check:2 ltt:bench:1 ltt:control:2 debug:control:2}; do
	IFS=: read -r variant mode smp <<<"$run"
	out=$build/test-results/vars-$mode-$variant
	log=$out.log
	rm -rf "$out"
	mkdir -p "$out"
	rc=0
	vm_kernel "$variant" --no-build >"$log" 2>&1 || rc=$?
	((rc == 0)) && { vm_module "$variant" >>"$log" 2>&1 || rc=$?; }
	if ((rc == 0)); then
		vm_bins=("$build/bin/tracedaemon" "$build/module/ltt_modtest") vm_workloads=1
		timeout=900
		[[ $variant == debug ]] && timeout=1800
		vm_qemu=(--timeout "$timeout" --mem 1G --smp "$smp")
		[[ $mode == bench ]] && vm_qemu+=(--qemu-arg -icount --qemu-arg shift=0)
		guest=tests/module/vars-guest.sh
		[[ $mode == control ]] && guest=tests/module/control-guest.sh
		vm_boot "$out" "$guest" "$mode" >>"$log" 2>&1
		rc=$?
	fi
	vm_report "$rc" "$log" "$out" "[$variant] variables $mode run" "[$variant/$mode] " || continue
	if [[ $mode == control ]]; then
		python3 tests/module/check_control.py "$out" "$build" >"$out/check.txt" 2>&1
		vm_import "$out/check.txt" "[$variant] "
		[[ $(tail -n 1 "$out/check.txt") =~ ^[0-9]+\ passed,\ [0-9]+\ failed$ ]] ||
			t_fail "[$variant] the control checker reported its totals" "$(tail -n 3 "$out/check.txt")"
	fi
	if [[ $mode == check ]]; then
		python3 tests/module/check_vars.py "$out" "$build" >"$out/check.txt" 2>&1
		vm_import "$out/check.txt" "[$variant] "
		[[ $(tail -n 1 "$out/check.txt") =~ ^[0-9]+\ passed,\ [0-9]+\ failed$ ]] ||
			t_fail "[$variant] the variables checker reported its totals" "$(tail -n 3 "$out/check.txt")"
	fi
done
t_summary
