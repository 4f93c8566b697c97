#!/usr/bin/env bash
# usage: tests/module/run-vm.sh check|unload|faults|bench|idle [--debug]
#        [--tracepoints] [--out DIR] [--no-build] [--smp N] [--icount]
#        [--cycles N]
# Builds the trace module against the cached patched kernel (the debug one
# with --debug; KERNELDIR overrides the normal one; with --tracepoints the
# module takes the kernel's tracepoints, not its facility) and the static test
# program, boots the kernel in QEMU (tests/lib/vm-host.sh) and runs
# tests/module/guest.sh MODE inside (faults: tests/module/faults.sh, with
# tracedaemon from $BUILD/bin). Results land in DIR (default
# $BUILD/module/vm-MODE[-debug]): results.txt, bench.txt, dmesg.txt,
# console.log. `bench` and `idle` print bench.txt. --icount runs the guest
# with --cycles N (check, unload) the START/STOP cycles under load
# are N (default 300: a tracepoint backend's cycle waits for RCU grace
# periods, tens of times slower on the debug kernel);
# with -icount shift=0 (its clock counts instructions, so the figures of
# `idle` repeat from run to run; needs single-threaded TCG, qemu-run.sh's
# default; it implies --smp 1, since the boot hangs at SMP bring-up with
# two vCPUs, and so does not suit `bench`, which logs on 2 CPUs). Exit status: scripts/qemu-run.sh's;
# 205 with --no-build when the kernel is not in the cache (or the harness is
# missing) rather than building it.
set -uo pipefail
source "$(dirname "$0")/../lib/vm-host.sh"
cd "$vm_repo" || exit 203
mode=${1:-check}
shift || true
variant=ltt out= nobuild= smp= icount=() tp= cycles=()
while (($#)); do
	case $1 in
	--debug) variant=debug ;;
	--tracepoints) tp=-tp ;;
	--cycles)
		[[ ${2:-} =~ ^[1-9][0-9]*$ ]] || { echo "run-vm.sh: --cycles needs a positive number" >&2; exit 203; }
		cycles=("$2"); shift ;;
	--smp) smp=$2; shift ;;
	--no-build) nobuild=--no-build ;;
	--icount) icount=(--qemu-arg -icount --qemu-arg shift=0) ;;
	--out) out=$2; shift ;;
	*) echo "run-vm.sh: unknown argument '$1'" >&2; exit 203 ;;
	esac
	shift
done
# -icount does not get a second vCPU past SMP bring-up (the boot hangs).
[[ -z $smp ]] && smp=$(( ${#icount[@]} ? 1 : 2 ))
out=${out:-$vm_build/module/vm-$mode$([[ $variant == debug ]] && echo -debug)$tp}
variant+=$tp

vm_kernel "$variant" $nobuild || exit
vm_module "$variant" || exit
make -s BUILD="$vm_build" module-test >&2 || exit 203
vm_bins=("$vm_build/module/ltt_modtest")
script=tests/module/guest.sh
if [[ $mode == faults ]]; then
	vm_need "$vm_build/bin/tracedaemon" || exit
	vm_bins+=("$vm_build/bin/tracedaemon")
	script=tests/module/faults.sh
fi
timeout=1500
[[ $variant == debug* ]] && timeout=3000
vm_qemu=(--timeout "$timeout" --mem 1G --smp "$smp" "${icount[@]}")
rm -rf "$out"
mkdir -p "$out"
vm_boot "$out" "$script" "$mode" "${cycles[@]}"
rc=$?
if [[ $mode == bench || $mode == idle ]]; then
	cat "$out/bench.txt" 2>/dev/null || echo "run-vm.sh: no bench.txt (qemu-run status $rc)"
fi
exit $rc
