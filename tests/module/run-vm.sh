#!/usr/bin/env bash
# usage: tests/module/run-vm.sh check|unload|faults|bench [--debug]
#        [--out DIR] [--no-build] [--smp N]
# Builds the trace module against the cached patched kernel (the debug one
# with --debug; KERNELDIR overrides the normal one), builds the static test
# program, boots the kernel in QEMU (scripts/qemu-run.sh) and runs
# tests/module/guest.sh MODE inside (faults: tests/module/faults.sh, with
# tracedaemon from $BUILD/bin). Results land in DIR (default
# $BUILD/module/vm-MODE[-debug]): results.txt, bench.txt, dmesg.txt,
# console.log. `bench` prints bench.txt. Exit status: qemu-run.sh's; 205
# with --no-build when the kernel is not in the cache (or the harness is
# missing) rather than building it.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo" || exit 203
build=${BUILD:-build}
mode=${1:-check}
shift || true
debug=0 out= nobuild=0 smp=2
while (($#)); do
	case $1 in
	--debug) debug=1 ;;
	--smp) smp=$2; shift ;;
	--no-build) nobuild=1 ;;
	--out) out=$2; shift ;;
	*) echo "run-vm.sh: unknown argument '$1'" >&2; exit 203 ;;
	esac
	shift
done
variant=ltt flag=() qflag=()
if ((debug)); then variant=debug flag=(--debug) qflag=(--debug); fi
out=${out:-$build/module/vm-$mode$( ((debug)) && echo -debug)}

if [[ ! -x scripts/qemu-run.sh || ! -x scripts/build-kernel.sh ]]; then
	echo "run-vm.sh: scripts/qemu-run.sh or scripts/build-kernel.sh missing" >&2
	exit 205
fi
if ((!debug)) && [[ -n ${KERNELDIR:-} ]]; then
	kdir=$KERNELDIR
	qflag=(--kernel "$KERNELDIR")
elif ((nobuild)); then
	kdir=$(scripts/build-kernel.sh "${flag[@]}" --print-dir 2>/dev/null | tail -n 1) || {
		echo "run-vm.sh: the $variant kernel is not built (make kernel${flag:+-debug})" >&2
		exit 205; }
else
	kdir=$(scripts/build-kernel.sh "${flag[@]}" | tail -n 1) || {
		echo "run-vm.sh: kernel build failed" >&2; exit 203; }
fi
ko=$(module/build.sh "$kdir" "$build/module/$variant" | tail -n 1) || {
	echo "run-vm.sh: module build failed" >&2; exit 203; }
make -s BUILD="$build" module-test >&2 || exit 203

rm -rf "$out"
mkdir -p "$out"
timeout=1500
((debug)) && timeout=3000
guest=(--add tests/module/guest.sh:/t/ -- sh /t/guest.sh "$mode" /t)
if [[ $mode == faults ]]; then
	[[ -x $build/bin/tracedaemon ]] || {
		echo "run-vm.sh: $build/bin/tracedaemon not built (make BUILD=$build)" >&2; exit 203; }
	guest=(--add "$build/bin/tracedaemon:/t/" --add tests/module/faults.sh:/t/ -- sh /t/faults.sh /t)
fi
scripts/qemu-run.sh "${qflag[@]}" --timeout $timeout --mem 1G --smp "$smp" --out "$out" \
	--add "$ko:/t/" --add "$build/module/ltt_modtest:/t/" "${guest[@]}"
rc=$?
if [[ $mode == bench ]]; then
	cat "$out/bench.txt" 2>/dev/null || echo "run-vm.sh: no bench.txt (qemu-run status $rc)"
fi
exit $rc
