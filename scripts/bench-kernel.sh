#!/usr/bin/env bash
# make bench-kernel: cost of the LTT hooks with no callback registered.
# Boots the patched kernel (CONFIG_LTT=y, nothing registered) and the
# vanilla kernel built from the same source and config side by side (at the
# same time, one vCPU each; BENCH_BASE=noltt takes the series built with
# CONFIG_LTT=n, which suite 50 builds, instead of the vanilla kernel) and
# times a syscall-heavy loop (getppid + 64-byte read of /dev/zero) inside
# each. Prints every run, the medians and the ratio patched/vanilla
# (target <= 1.01). A benchmark, not a test: it never fails on the ratio.
#
# BENCH_MODE=icount (default): QEMU runs with -icount shift=0, so guest time
# advances with the instructions executed, not with the host clock: the
# loop time is then deterministic (runs agree to ~0.1%) and independent of
# the host's load, and the ratio measures the instructions the hooks add.
# It ignores cache and branch-prediction effects.
# BENCH_MODE=wall: plain TCG, guest time is host time; on a shared host
# single loops then vary by tens of percent (compare medians and minimums).
#
# Environment: BENCH_BASE (vanilla, the default, or noltt), BENCH_REPS
# boots per kernel (default 3 icount, 5 wall),
# BENCH_RUNS loops per boot (default 4; the first, which warms up QEMU's
# translation cache, is dropped), BENCH_ITERS iterations per loop (default
# 100000).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
mode=${BENCH_MODE:-icount}
# shellcheck disable=SC2054 # shift=0,sleep=off is one argument
case $mode in
icount) reps=${BENCH_REPS:-3} qemu=(--qemu-arg -icount --qemu-arg shift=0,sleep=off) ;;
wall) reps=${BENCH_REPS:-5} qemu=() ;;
*) echo "bench-kernel.sh: BENCH_MODE is icount or wall" >&2; exit 2 ;;
esac
runs=${BENCH_RUNS:-4} iters=${BENCH_ITERS:-100000}
base=${BENCH_BASE:-vanilla}
case $base in
vanilla | noltt) ;;
*) echo "bench-kernel.sh: BENCH_BASE is vanilla or noltt, not '$base'" >&2; exit 2 ;;
esac
work=$(mktemp -d "${TMPDIR:-/tmp}/ltt-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "mode $mode; base $base; building (or finding) the kernels..."
source "$repo/tests/lib/vm-host.sh"
vm_kernel ltt
ltt=$vm_kdir
if [[ $base == vanilla ]]; then
	vm_kernel vanilla
	van=$vm_kdir
else
	van=$("$repo/scripts/build-kernel.sh" --no-ltt | tail -n 1) || { echo "bench-kernel.sh: the CONFIG_LTT=n kernel build failed" >&2; exit 1; }
fi
gcc -static -O2 -Wall -o "$work/ltt-workload" "$repo/tests/kernel/ltt-workload.c"

cmd="for i in \$(seq $runs); do /bin/ltt-workload --getppid-loop $iters || exit 1; done"
boot() { # KDIR -> loop_ns values
	"$repo/scripts/qemu-run.sh" --kernel "$1" --smp 1 --timeout 900 "${qemu[@]}" \
		--add "$work/ltt-workload:/bin/ltt-workload" "$cmd" 2>/dev/null |
		awk '/^loop_ns/ && ++n > 1 { print $2 }'
}
: >"$work/ltt" && : >"$work/vanilla"
for r in $(seq "$reps"); do
	# Side by side: both kernels run at the same time, one vCPU each, so
	# the load of a shared host hits both alike.
	boot "$van" >"$work/vanilla.$r" &
	boot "$ltt" >"$work/ltt.$r" &
	wait
	for k in vanilla ltt; do
		cat "$work/$k.$r" >>"$work/$k"
		label=$k
		[[ $k == vanilla ]] && label=$base
		awk -v k="$label" -v r="$r" -v n="$iters" \
			'{ printf "boot %d %-8s loop %.1f ns/iteration\n", r, k, $1 / n }' "$work/$k.$r"
	done
done
median() { sort -n "$1" | awk '{ a[NR] = $1 } END { if (NR == 0) exit 1; print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
minimum() { sort -n "$1" | head -n 1; }
mv=$(median "$work/vanilla") || { echo "no vanilla measurements" >&2; exit 1; }
ml=$(median "$work/ltt") || { echo "no patched measurements" >&2; exit 1; }
awk -v v="$mv" -v l="$ml" -v vmin="$(minimum "$work/vanilla")" -v lmin="$(minimum "$work/ltt")" \
	-v n="$iters" -v cv="$(wc -l <"$work/vanilla")" -v cl="$(wc -l <"$work/ltt")" -v b="$base" 'BEGIN {
	printf "%-21s median %7.1f ns/iteration, min %7.1f (%d loops)\n", b ":", v / n, vmin / n, cv
	printf "patched, no tracer:   median %7.1f ns/iteration, min %7.1f (%d loops)\n", l / n, lmin / n, cl
	printf "ratio patched/%s: %.4f (medians; target <= 1.01), %.4f (minimums)\n", b, l / v, lmin / vmin
}'
