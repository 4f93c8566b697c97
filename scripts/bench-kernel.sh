#!/usr/bin/env bash
# make bench-kernel: cost of the LTT hooks with no callback registered.
# Boots the patched kernel (CONFIG_LTT=y, nothing registered) and the
# vanilla kernel built from the same source and config side by side (at the
# same time, one vCPU each) and times a syscall-heavy loop (getppid + 64-byte read of /dev/zero) inside
# each. Prints every run, the medians and the ratio patched/vanilla
# (target <= 1.01). A benchmark, not a test: it never fails on the ratio.
#
# Environment: BENCH_REPS boots per kernel (default 5), BENCH_RUNS loops per
# boot (default 6; the first, which warms up QEMU's translation cache, is
# dropped), BENCH_ITERS iterations per loop (default 200000). Under TCG on
# a shared host single loops vary by tens of percent: the medians and
# minimums over many loops are what to compare.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
reps=${BENCH_REPS:-5} runs=${BENCH_RUNS:-6} iters=${BENCH_ITERS:-200000}
work=$(mktemp -d "${TMPDIR:-/tmp}/ltt-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "building (or finding) the kernels..."
ltt=$("$repo/scripts/build-kernel.sh" | tail -n 1)
van=$("$repo/scripts/build-kernel.sh" --vanilla | tail -n 1)
gcc -static -O2 -Wall -o "$work/ltt-workload" "$repo/tests/kernel/ltt-workload.c"

cmd="for i in \$(seq $runs); do /bin/ltt-workload --getppid-loop $iters || exit 1; done"
boot() { # KDIR -> loop_ns values
	"$repo/scripts/qemu-run.sh" --kernel "$1" --smp 1 --timeout 600 \
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
		awk -v k="$k" -v r="$r" -v n="$iters" \
			'{ printf "boot %d %-8s loop %.1f ns/iteration\n", r, k, $1 / n }' "$work/$k.$r"
	done
done
median() { sort -n "$1" | awk '{ a[NR] = $1 } END { if (NR == 0) exit 1; print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
minimum() { sort -n "$1" | head -n 1; }
mv=$(median "$work/vanilla") || { echo "no vanilla measurements" >&2; exit 1; }
ml=$(median "$work/ltt") || { echo "no patched measurements" >&2; exit 1; }
awk -v v="$mv" -v l="$ml" -v vmin="$(minimum "$work/vanilla")" -v lmin="$(minimum "$work/ltt")" \
	-v n="$iters" -v cv="$(wc -l <"$work/vanilla")" -v cl="$(wc -l <"$work/ltt")" 'BEGIN {
	printf "vanilla:              median %7.1f ns/iteration, min %7.1f (%d loops)\n", v / n, vmin / n, cv
	printf "patched, no tracer:   median %7.1f ns/iteration, min %7.1f (%d loops)\n", l / n, lmin / n, cl
	printf "ratio patched/vanilla: %.4f (medians; target <= 1.01), %.4f (minimums)\n", l / v, lmin / vmin
}'
