#!/usr/bin/env bash
# make bench-peers: ltt against LTTng 2.13 and ftrace, in one boot of one
# kernel. Builds (or finds in the cache) the peers kernel
# (scripts/build-kernel.sh --peers: the ltt series plus
# kernel-patches/config/peers.config), the ltt module against it,
# lttng-modules 2.13.18 from Debian 13's lttng-modules-dkms source, and stages
# Debian's lttng-tools with its libraries into the guest. In the guest
# (tests/bench/peers-guest.sh) two workloads run BENCH_RUNS times for each
# tracer, the first run of each series dropped:
#   getppid  a loop of BENCH_ITERS getppid() calls (peers-bench getppid)
#   mixed    tests/bench/peers-mixed.sh: a pipeline, tmpfs file I/O with
#            fsync, fork and exec, sleeps, pipe ping-pong, sockets and IPC
# and the tracers:
#   none      no tracer module loaded
#   ltt_idle  ltt_tracer.ko loaded, no trace
#   ltt       tracedaemon -e core,process (details: syscall id and IP),
#             LTT_BUFFER per-CPU module buffers, normal mode
#   ftrace    tracefs: raw_syscalls sys_enter/sys_exit, sched_switch,
#             sched_wakeup, irq_handler_entry/exit, softirq_entry/exit;
#             FTRACE_KB per CPU, read after each run
#   lttng     a kernel session: a discard-mode channel of LTTNG_NSUBBUF x
#             LTTNG_SUBBUF per CPU, all syscalls (entry and exit) and the
#             same tracepoints as ftrace
# Every traced run is a session of its own, set up before the timed run
# and stopped after it; the tracer's own reader (tracedaemon,
# lttng-consumerd) runs during the run as it normally does, and ftrace's
# buffer is read after it (as trace-cmd's reader, which wakes when a
# buffer is half full, would with this buffer size).
#
# Figures, per (workload, tracer): medians of the measured runs and the
# spread (max - min) / median. $BUILD/bench/peers.json:
#   {"<workload>": {"<tracer>": {"ns_per_call": N, "events": N, "bytes": N,
#    "lost": N, "runs": N, "spread": F}}}
#   ns_per_call  getppid: ns per loop iteration; mixed: ns per workload run
#   events       events recorded by the tracer in one run's session (median):
#                ltt: records in the .trace (traceanalyze --json) but the
#                structure records (trace start, block start/end,
#                heartbeats, lost); ftrace: the per-CPU buffers' "entries"
#                (per_cpu/cpuN/stats) before they are read; lttng: the
#                event messages babeltrace2 reads from the session
#   bytes        trace data of one run's session (median): ltt: the .trace
#                file; ftrace: the ring-buffer pages read from
#                per_cpu/cpuN/trace_pipe_raw (whole 4 KiB pages, headers
#                included); lttng: the stream files (packets with their
#                headers; not the metadata or index files)
#   lost         summed over the measured runs: ltt: the lost counts of the
#                blocks; ftrace: overrun + commit overrun + dropped events;
#                lttng: the channel's discarded events (lttng list)
# A benchmark, not a test: it fails only when a run or a count is missing,
# or a tracer lost events (the figures assume lossless buffers).
#
# BENCH_MODE=icount (default): -icount shift=0,sleep=off on 1 vCPU (a
# second vCPU hangs at SMP bring-up under icount). Guest time counts
# instructions, and idle time jumps to the next timer, so figures repeat
# from boot to boot and do not depend on the host's load; they ignore
# caches and branch prediction. BENCH_MODE=wall: plain single-threaded
# TCG on 2 vCPUs; guest time is host time and varies with the host's load.
#
# ltt's clock: QEMU's emulated CPU does not advertise an invariant TSC
# (TCG cannot), so the module's automatic choice (clock=auto: the TSC only
# when it is constant, nonstop and stable) falls back to CLOCK_MONOTONIC
# (ktime_get_mono_fast_ns(), a read of the guest's hpet; LTTng's clock too;
# the local_clock() fallback this replaced cost about 45 guest instructions
# more per event than rdtsc). On
# real x86 machines of the last fifteen years the TSC is invariant and ltt
# uses it by itself. In icount mode the guest has one vCPU, whose TSC is
# trivially consistent (the kernel itself runs on the tsc clocksource), so
# ltt runs with clock=tsc, as on real hardware; in wall mode (2 vCPUs, the
# kernel finds their TSCs unsynchronized) with clock=auto. LTT_CLOCK
# overrides it (auto, tsc or local). ftrace and LTTng keep their default
# clocks (local_clock() and the monotonic clocksource).
#
# Environment: BENCH_RUNS (default 6), BENCH_ITERS (200000), LTT_CLOCK, FTRACE_KB
# (65536), LTT_BUFFER (32M), LTTNG_SUBBUF (4M), LTTNG_NSUBBUF (8),
# LTT_LTTNG_MODULES_VERSION (2.13.18-1+deb13u1), BUILD,
# LTT_CACHE (where the kernel, lttng-modules, the staged LTTng tools and
# babeltrace2 are cached). Needs apt-get (download only: nothing is
# installed on the host) the first time.
set -euo pipefail
# shellcheck source=tests/lib/vm-host.sh
source "$(dirname "$0")/../tests/lib/vm-host.sh"
cd "$vm_repo"
mode=${BENCH_MODE:-icount}
runs=${BENCH_RUNS:-6} iters=${BENCH_ITERS:-200000}
ftrace_kb=${FTRACE_KB:-65536} ltt_buf=${LTT_BUFFER:-32M}
subbuf=${LTTNG_SUBBUF:-4M} nsubbuf=${LTTNG_NSUBBUF:-8}
cache=${LTT_CACHE:-$HOME/.cache/ltt}/peers
out=$vm_build/bench/peers
die() { echo "bench-peers.sh: $*" >&2; exit 1; }
# shellcheck source=scripts/bench-lttng.sh
source scripts/bench-lttng.sh
bench_mode "$mode"
if [[ ! $runs =~ ^[0-9]+$ ]] || ((runs < 2)); then
	die "BENCH_RUNS must be 2 or more (the first run is dropped)"
fi
[[ $iters =~ ^[1-9][0-9]*$ ]] || die "BENCH_ITERS must be a positive number"
t0=$(date +%s)

# lttng-modules from Debian 13's lttng-modules-dkms source: 2.13.18, the
# version Debian ships for its 6.12 kernels (bookworm's 2.13.9 does not
# build against 6.12), pinned (LTT_LTTNG_MODULES_VERSION overrides it),
# downloaded with scripts/stock-kernel.sh --download through its private
# apt configuration (the host's apt names bookworm only), and built against
# KDIR into a cache directory keyed by the source's version, this
# function's text (the edits below) and KDIR (whose path holds the
# kernel's build key). Two edits of the copied source:
#  - lttng-probe-timer is left out (its line deleted from
#    src/probes/Kbuild): Debian's 6.12 sources carry a stable backport
#    that gave trace_hrtimer_start a third argument (was_armed), which
#    2.13.18's probe does not know; none of the benchmark's events come
#    from it.
#  - the 32-bit compat syscall tables leave out sigaction when the kernel
#    has no COMPAT_OLD_SIGACTION (no IA32_EMULATION, as in the guest's
#    config): 2.13.18 drops that syscall's event then but not its table
#    entry, which then names an undefined probe.
build_lttng_modules() {
	local ver=${LTT_LTTNG_MODULES_VERSION:-2.13.18-1+deb13u1} deb key dir tmp old ovr
	[[ $ver =~ ^2\.13\.[0-9]+-[0-9A-Za-z.+~]+$ ]] ||
		die "LTT_LTTNG_MODULES_VERSION must be a Debian version of lttng-modules-dkms 2.13 (like 2.13.18-1+deb13u1), not '$ver'"
	deb=$(scripts/stock-kernel.sh --download "lttng-modules-dkms=$ver" "$cache/debs") ||
		die "cannot download lttng-modules-dkms $ver"
	key=$(printf '%s\n' "$(basename "$deb")" "$vm_kdir" "$(declare -f build_lttng_modules)" | sha256sum | cut -c1-12)
	dir=$cache/lttng-modules-$key
	if [[ ! -f $dir/.built ]]; then
		echo "building lttng-modules ($(basename "$deb" .deb)) against $vm_kdir" >&2
		rm -rf "$dir" "$dir.tmp"
		tmp=$dir.tmp
		unpack "$tmp/deb" "$deb"
		cp -a "$tmp"/deb/usr/src/lttng-modules-* "$tmp/src"
		rm -rf "$tmp/deb"
		sed -i '/lttng-probe-timer\.o/d' "$tmp/src/src/probes/Kbuild"
		ovr=$tmp/src/include/instrumentation/syscalls/headers/x86-32-syscalls_pointers_override.h
		if ! grep -q OVERRIDE_TABLE_32_sigaction "$ovr"; then
			sed -i 's|^#else\t/\* CREATE_SYSCALL_TABLE \*/$|&\n#if defined(CONFIG_X86_64) \&\& !defined(CONFIG_COMPAT_OLD_SIGACTION)\n#define OVERRIDE_TABLE_32_sigaction\n#endif|' "$ovr"
			grep -q OVERRIDE_TABLE_32_sigaction "$ovr" || die "lttng-modules $ver: cannot edit $ovr"
		fi
		make -C "$vm_kdir" M="$tmp/src/src" CONFIG_LTTNG=m CONFIG_LTTNG_CLOCK_PLUGIN_TEST=m \
			-j"${LTT_JOBS:-2}" modules >"$tmp/build.log" 2>&1 ||
			{ tail -n 30 "$tmp/build.log" >&2; die "lttng-modules build failed (log: $tmp/build.log)"; }
		mkdir -p "$tmp/ko"
		(cd "$tmp/src/src" && find . -name '*.ko' -exec cp --parents {} "$tmp/ko/" \;)
		rm -rf "$tmp/src"
		echo "$vm_kdir" >"$tmp/kdir"
		touch "$tmp/.built"
		mv "$tmp" "$dir"
		# Builds for kernels that are no longer in the cache go.
		for old in "$cache"/lttng-modules-*/kdir; do
			[[ -f $old && ! -d $(cat "$old") ]] && rm -rf "$(dirname "$old")"
		done
	fi
	echo "$dir"
}

echo "bench-peers: mode $mode; building (or finding) the peers kernel, the modules, LTTng..."
make -s BUILD="$vm_build" >&2 || die "make (user space) failed"
vm_need "$vm_build/bin/tracedaemon" "$vm_build/bin/traceanalyze" || exit 1
vm_kernel peers || exit 1
vm_module peers || exit 1
kver=$(cat "$vm_kdir/include/config/kernel.release")
lmod=$(build_lttng_modules)
tools=$(stage_lttng_tools)
bt=$(stage_babeltrace)
lttng_guest_adds "$tools"
mkdir -p "$vm_build/bench"
gcc -static -O2 -Wall -Wextra -o "$vm_build/bench/peers-bench" tests/bench/peers-bench.c ||
	die "building peers-bench failed"

# The lttng-modules as /lib/modules/KVER/extra, with depmod's indexes, so
# that lttng-sessiond's libkmod finds them and their dependencies. libkmod
# refuses to work without every index, modules.builtin.bin included:
# depmod makes that from the kernel's modules.builtin.
modroot=$(mktemp -d "${TMPDIR:-/tmp}/ltt-peers-mods.XXXXXX")
trap 'rm -rf "$modroot"' EXIT
mkdir -p "$modroot/lib/modules/$kver"
cp -a "$lmod/ko" "$modroot/lib/modules/$kver/extra"
cp "$vm_kdir"/modules.{builtin,builtin.modinfo,order} "$modroot/lib/modules/$kver/"
depmod -b "$modroot" -F "$vm_kdir/System.map" "$kver" || die "depmod failed"
echo "bench-peers: prepared in $(($(date +%s) - t0)) s; booting the guest ($runs runs per series)"

vm_bins=("$vm_build/bin/tracedaemon" "$vm_build/bench/peers-bench")
vm_workloads=1
vm_qemu+=(--timeout 5400 --mem 2G --out-size 4G
	--add "tests/bench/peers-mixed.sh:/opt/ltt/bench/"
	--add "$modroot/lib/modules/$kver:/lib/modules/$kver"
	"${lttng_adds[@]}")
rm -rf "$out"
mkdir -p "$out"
t1=$(date +%s)
rc=0
vm_boot "$out" tests/bench/peers-guest.sh "$runs" "$iters" "$ftrace_kb" "$ltt_buf" "$subbuf" "$nsubbuf" "$ltt_clock" \
	>"$out/guest.log" 2>&1 || rc=$?
echo "bench-peers: guest run took $(($(date +%s) - t1)) s (status $rc)"
grep -h '^FAIL\|^# ' "$out/results.txt" 2>/dev/null || true
((rc == 0)) || { tail -n 20 "$out/guest.log" >&2; die "the guest run failed (status $rc; $out/guest.log, $out/console.log)"; }
[[ -s $out/runs.txt ]] || die "the guest wrote no runs.txt"

# Event counts of the kept ltt and LTTng traces, one line per run:
# "count TRACER WORKLOAD I events=N lost=N".
counts=$out/counts.txt
: >"$counts"
for d in "$out"/traces/ltt-*-* "$out"/traces/lttng-*-*; do
	[[ -d $d ]] || continue
	IFS=- read -r tracer wl i <<<"$(basename "$d")"
	if [[ $tracer == ltt ]]; then
		"$vm_build/bin/traceanalyze" --json "$d/ltt.trace" "$d/ltt.proc" >"$d/analysis.json" ||
			die "traceanalyze failed on $d/ltt.trace"
		jq -r --arg t "$tracer" --arg w "$wl" --arg i "$i" '. as $a |
			[.event_counts | to_entries[] | select(.key | IN("trace_start", "block_start",
				"block_end", "heartbeat", "lost") | not) | .value] | add as $n |
			"count \($t) \($w) \($i) events=\($n) lost=\($a.trace.lost_events)"' "$d/analysis.json" >>"$counts"
	else
		n=$(bt_count "$bt" "$d/session")
		echo "count $tracer $wl $i events=$n" >>"$counts"
	fi
done
python3 tests/bench/peers-report.py --iters "$iters" --mode "$mode" --runs "$out/runs.txt" \
	--counts "$counts" --json "$vm_build/bench/peers.json" | tee "$out/table.txt"
echo "bench-peers: $vm_build/bench/peers.json; total $(($(date +%s) - t0)) s"
