#!/usr/bin/env bash
# run-suites: kernels ltt debug
# The trace module in the QEMU guest, on the patched kernel and on the debug
# kernel (lockdep, KASAN, ...), there with either event source (suite 61
# runs the tracepoint backend's): every ioctl, filters, test-mode counts and
# order, lost accounting, SIGIO/poll/read, a reader killed mid-trace,
# START/STOP under load, unload under load, the cost of the loaded module
# while idle; and the fault suite (tests/module/faults.sh: rmmod
# under load, the daemon SIGKILLed, ioctl fuzzing, CPU hotplug, a full
# disk). The guest program reports one line per check; each
# becomes a check here, prefixed by the kernel variant. A console with a
# kernel warning fails the run (scripts/qemu-run.sh exits 200). The runs go
# through tests/lib/vm-host.sh.
# A kernel variant not yet in the cache is skipped, not built here (run
# `make kernel kernel-debug`, or the kernel suite, first).
# LTT_SKIP_VM=1 skips the suite (no QEMU on the machine).
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo" || exit 1
source tests/lib/sh-test.sh
source tests/lib/vm-host.sh
vm_suite_skip_if_requested "module suite"

mkdir -p "$vm_build/module"
# Each kernel variant: the functional checks on 2 vCPUs (ending with 300
# START/STOP cycles under a syscall load on both, each of which patches the
# hook sites), then the load/unload checks on 1 vCPU. On the patched kernel
# also the idle cost: the getppid() loop with the module loaded and idle
# within 2 % of the loop without it, under -icount (the guest's clock
# counts instructions, so the ratio repeats; -icount does not get a second
# vCPU past SMP bring-up, hence 1 vCPU). debug-tp is the debug kernel with
# the module built for the tracepoint backend (the one a stock kernel
# gets), so that backend runs under lockdep and KASAN too; each of its
# START/STOP cycles waits for RCU grace periods (3.8 s there against
# 0.28 s with the facility), so it runs 30 of them.
# Suite 61 runs this file with --tracepoints: the tracepoint backend's
# runs on the debug kernel, a suite of its own so that the runner runs them
# beside these (each guest keeps one core busy).
runs=(ltt:check:2 ltt:unload:1 ltt:faults:2 ltt:idle:1 debug:check:2 debug:unload:1 debug:faults:2)
[[ ${1:-} == --tracepoints ]] && runs=(debug-tp:check:2 debug-tp:unload:1 debug-tp:faults:2)
for run in "${runs[@]}"; do
	IFS=: read -r variant mode smp <<<"$run"
	flag=()
	[[ $variant == debug* ]] && flag=(--debug)
	[[ $variant == *-tp ]] && flag+=(--tracepoints --cycles 30)
	[[ $mode == idle ]] && flag+=(--icount)
	out=$vm_build/module/vm-$mode-$variant
	log=$vm_build/module/$mode-$variant.log
	tests/module/run-vm.sh "$mode" "${flag[@]}" --smp "$smp" --no-build --out "$out" >"$log" 2>&1
	vm_report $? "$log" "$out" "[$variant] $mode run" "[$variant/$mode] "
done
t_summary
