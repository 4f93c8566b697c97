#!/usr/bin/env bash
# make bench-user: application events of libltt-user against LTTng-UST
# 2.13, in one boot of the peers kernel (the ltt series plus
# kernel-patches/config/peers.config: LTTng's tools need FILE_LOCKING,
# which the guest's usual config leaves out). tests/bench/user/user-bench.c logs
# BENCH_COUNT events of three fields (seq:i64 tag:str ratio:f64) in a loop,
# built three ways (user-bench-none, -ltt, -lttng); the guest
# (tests/bench/user/user-guest.sh) runs each configuration BENCH_RUNS
# times:
#   none            no tracing library: the loop and its arguments
#   ltt_disabled    libltt-user linked (statically), no tracedaemon
#   ltt             tracedaemon -e process -- user-bench-ltt: user events
#                   and, of the kernel's, only the process events (the
#                   loop makes none), so that the session is as near to
#                   LTTng's UST-only one as tracedaemon allows
#   lttng_disabled  the LTTng-UST tracepoint, no lttng-sessiond running
#   lttng           a UST-only session (lttng-sessiond --no-kernel,
#                   lttng-consumerd) on LTTng's default channel, enabling
#                   the tracepoint
#   ltt_fallback, ltt_fallback_paced
#                   ltt and ltt_paced with the module's clock=local (its
#                   fallback clock): the application stamps CLOCK_MONOTONIC
#                   instead of the TSC (docs/user-events.md, Clocks)
#   ltt_paced, lttng_paced
#                   the same two sessions, the loop in batches of
#                   BENCH_BATCH events with an untimed pause (250 ms) after
#                   each, in which tracedaemon (every 100 ms) and
#                   lttng-consumerd empty the buffers: the producer's cost
#                   when nothing is lost (a batch fits in either buffer)
# Both tracers run with their default buffers: libltt-user's per-thread
# ring of 16 MiB, which tracedaemon drains every 100 ms and whenever a ring
# passes half full (BENCH_RING sets another size), and LTTng's
# default UST channel (per-UID buffers); both discard, never block, when
# the buffer is full, and what they discarded is the "lost" column.
#
# Figures per configuration: medians over the runs of ns per event (the
# loop's time over COUNT), events recorded in one run (ltt: tracedaemon's
# summary of the user events it wrote; lttng: the event messages
# babeltrace2 reads from the session) and events lost (ltt: tracedaemon's
# lost count; lttng: the channel's discarded events, lttng list). Written
# to $BUILD/bench/user.json:
#   {"<config>": {"ns_per_event": X, "events": N, "lost": N, "runs": N,
#    "spread": F}}
# A benchmark, not a test: it fails only when a run or a count is missing.
#
# BENCH_MODE=icount (default): -icount shift=0,sleep=off on 1 vCPU, where
# guest time counts instructions (1 ns each), so figures repeat from boot
# to boot and ignore caches; ltt runs with clock=tsc (the TSC path; the
# one vCPU's TSC is the CPUs' shared clock; see scripts/bench-peers.sh on
# the emulated TSC), ltt_fallback with clock=local.
# BENCH_MODE=wall: plain TCG on 2 vCPUs, host time, clock=auto (ltt then
# takes the fallback clock when the TSC is found unusable).
#
# Environment: BENCH_RUNS (default 3), BENCH_COUNT (200000), BENCH_BATCH
# (1000; libltt-user's ring holds about 350 000 of these events),
# BENCH_RING (libltt-user's ring size, LTT_USER_RING_SIZE), LTT_BUFFER
# (the module's per-CPU buffer, 1M), LTT_CLOCK, BUILD, LTT_CACHE (where
# the staged LTTng tools and babeltrace2 are cached: shared with
# bench-peers). Needs apt-get (download only) the first time, and the
# LTTng-UST development files (liblttng-ust-dev) on the host.
set -euo pipefail
# shellcheck source=tests/lib/vm-host.sh
source "$(dirname "$0")/../tests/lib/vm-host.sh"
cd "$vm_repo"
mode=${BENCH_MODE:-icount}
runs=${BENCH_RUNS:-3} count=${BENCH_COUNT:-200000} batch=${BENCH_BATCH:-1000} ltt_buf=${LTT_BUFFER:-1M} ring=${BENCH_RING:-}
cache=${LTT_CACHE:-$HOME/.cache/ltt}/peers
out=$vm_build/bench/user
die() { echo "bench-user.sh: $*" >&2; exit 1; }
# shellcheck source=scripts/bench-lttng.sh
source scripts/bench-lttng.sh
bench_mode "$mode"
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "BENCH_RUNS must be a positive number"
[[ $count =~ ^[1-9][0-9]*$ ]] || die "BENCH_COUNT must be a positive number"
[[ $batch =~ ^[1-9][0-9]*$ ]] || die "BENCH_BATCH must be a positive number"
t0=$(date +%s)

echo "bench-user: mode $mode; building (or finding) the kernel, the module, LTTng..."
make -s BUILD="$vm_build" >&2 || die "make (user space) failed"
vm_need "$vm_build/bin/tracedaemon" || exit 1
lib=$vm_build/user/libltt-user.a
[[ -f $lib && -f user/include/ltt/user.h ]] || die "libltt-user is not built ($lib)"
[[ -f /usr/include/x86_64-linux-gnu/lttng/tracepoint.h ]] ||
	die "the LTTng-UST headers are missing (apt-get install liblttng-ust-dev)"
vm_kernel peers || exit 1
vm_module peers || exit 1
tools=$(stage_lttng_tools)
bt=$(stage_babeltrace)
lttng_guest_adds "$tools"

b=$vm_build/bench/user-bin
rm -rf "$b"
mkdir -p "$b/bin" "$b/ust-lib"
src=tests/bench/user/user-bench.c
cc=(gcc -O2 -Wall -Wextra -Werror -Itests/bench/user)
"${cc[@]}" -static -DBENCH_NONE -o "$b/bin/user-bench-none" "$src" || die "building user-bench-none failed"
"${cc[@]}" -static -DBENCH_LTT -Iuser/include -o "$b/bin/user-bench-ltt" "$src" "$lib" -pthread ||
	die "building user-bench-ltt failed"
# LTTng-UST is a shared library only (it loads its parts with dlopen):
# the program and the host's copies of its libraries (Debian's 2.13).
"${cc[@]}" -DBENCH_LTTNG -o "$b/bin/user-bench-lttng" "$src" -llttng-ust -ldl ||
	die "building user-bench-lttng failed"
ldd "$b/bin/user-bench-lttng" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | while read -r path; do
	cp -L "$path" "$b/ust-lib/"
done
[[ -f $b/ust-lib/liblttng-ust.so.1 ]] || die "liblttng-ust.so.1 not found by ldd"
echo "bench-user: prepared in $(($(date +%s) - t0)) s; booting the guest ($runs runs per configuration)"

vm_bins=("$vm_build/bin/tracedaemon" "$b/bin/user-bench-none" "$b/bin/user-bench-ltt" "$b/bin/user-bench-lttng")
vm_qemu+=(--timeout 3600 --mem 1G --out-size 1G
	--add "$b/ust-lib:/opt/ltt/ust-lib"
	"${lttng_adds[@]}")
rm -rf "$out"
mkdir -p "$out"
t1=$(date +%s)
rc=0
vm_boot "$out" tests/bench/user/user-guest.sh "$runs" "$count" "$batch" "$ltt_buf" "$ltt_clock" ${ring:+"$ring"} >"$out/guest.log" 2>&1 || rc=$?
echo "bench-user: guest run took $(($(date +%s) - t1)) s (status $rc)"
grep -h '^FAIL\|^# ' "$out/results.txt" 2>/dev/null || true
((rc == 0)) || { tail -n 20 "$out/guest.log" >&2; die "the guest run failed (status $rc; $out/guest.log, $out/console.log)"; }
[[ -s $out/runs.txt ]] || die "the guest wrote no runs.txt"

# The events of each LTTng session: "count lttng I events=N".
counts=$out/counts.txt
: >"$counts"
for d in "$out"/traces/lttng-[0-9]* "$out"/traces/lttng_paced-[0-9]*; do
	[[ -d $d/session ]] || continue
	c=$(basename "$d")
	n=$(bt_count "$bt" "$d/session")
	echo "count ${c%-*} ${c##*-} events=$n" >>"$counts"
done
python3 tests/bench/user/user-report.py --runs "$out/runs.txt" --counts "$counts" --count "$count" \
	--mode "$mode" --json "$vm_build/bench/user.json" | tee "$out/table.txt"
echo "bench-user: $vm_build/bench/user.json; total $(($(date +%s) - t0)) s"
