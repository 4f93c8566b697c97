#!/usr/bin/env bash
# usage: tests/daemon/run-vm.sh check|bench [--no-build] [--out DIR]
# Builds the trace module against the cached patched kernel, boots it in
# QEMU (tests/lib/vm-host.sh) with tracedaemon, the trace wrappers and a
# workload, and runs tests/daemon/vm-guest.sh MODE inside. The guest's /out
# lands in DIR (default $BUILD/daemon-vm/MODE): results.txt, facts.txt, the
# traces, logs, dmesg.txt, console.log.
# Exit status: scripts/qemu-run.sh's; 205 when a prerequisite is missing
# (harness, module, or, with --no-build, the kernel not in the cache) rather
# than building it; 203 when the user-space build is missing.
set -uo pipefail
source "$(dirname "$0")/../lib/vm-host.sh"
cd "$vm_repo" || exit 203
mode=check nobuild= out=
while (($#)); do
	case $1 in
	check | bench) mode=$1 ;;
	--no-build) nobuild=--no-build ;;
	--out) out=$2; shift ;;
	*) echo "run-vm.sh: unknown argument '$1'" >&2; exit 203 ;;
	esac
	shift
done
out=${out:-$vm_build/daemon-vm/$mode}

vm_kernel ltt $nobuild || exit
vm_module ltt || exit
vm_bins=("$vm_build/bin/tracedaemon" "$vm_build/workloads/wl_syscalls")
vm_need "${vm_bins[@]}" || exit
vm_bins+=(scripts/trace scripts/tracecore scripts/tracecpuid)

# Two vCPUs when qemu-run.sh runs QEMU's TCG in one thread; with
# multi-threaded TCG (LTT_QEMU_MTTCG=1), QEMU 7.2 sometimes executes a stale
# INT3 while the kernel patches the ltt static key (an oops at START, seen
# in 2 of 4 runs), so the guest then gets one vCPU. LTT_DAEMON_VM_SMP
# overrides.
smp=${LTT_DAEMON_VM_SMP:-}
if [[ -z $smp ]]; then
	accel=$(scripts/qemu-run.sh --print-accel) || exit 203
	case $accel in
	*thread=single*) smp=2 ;;
	*) smp=1 ;;
	esac
fi
echo "run-vm.sh: guest with $smp vCPU(s)" >&2

vm_qemu=(--smp "$smp" --timeout 1500 --mem 1G)
rm -rf "$out"
mkdir -p "$out"
vm_boot "$out" tests/daemon/vm-guest.sh "$mode"
