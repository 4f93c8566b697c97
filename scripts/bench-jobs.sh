#!/usr/bin/env bash
# make bench-jobs: the paper's Figure 3 today. Real jobs in the QEMU guest
# (a tar | gzip of a file tree, a find | xargs grep over it, a sort, a shell
# loop that forks two processes per iteration, a pipe ping-pong) timed
# untraced and under tracedaemon with core events (-e CORE), all events
# without details (-D NONE), all events with details (the default) and all
# events with a PID filter naming an idle process (-P: every hook runs, no
# event matches). The configurations are interleaved within one boot, each
# job runs BENCH_REPS times in each, and the slowdown is
# median(traced) / median(untraced) - 1. The guest side is
# tests/bench/jobs-guest.sh. A benchmark, not a test: it fails only when a
# job or the daemon fails, never on a figure.
#
# BENCH_MODE=icount (default): -icount shift=0,sleep=off, one vCPU (a second
#   one hangs the boot under icount): guest time counts instructions, so the
#   figures repeat from run to run and ignore the host's load.
# BENCH_MODE=wall: plain TCG, two vCPUs; guest time is host time, so the
#   figures move with the host's load (compare medians).
# BENCH_MODE=both: an icount boot, then a wall boot, one table.
#
# ltt's clock: clock=tsc in icount mode (one vCPU), clock=auto in wall
# mode; LTT_CLOCK overrides it. scripts/bench-peers.sh says why.
#
# Environment: BENCH_REPS timed runs per job and configuration (default 5
# in icount mode, where runs agree to ~0.01 %, and 7 in wall mode),
# BENCH_SCALE the jobs' size in percent (default 100), BENCH_BUFFER the
# module's per-CPU buffers, tracedaemon -b (default 1M, the daemon's own
# default, which loses no event in these jobs), BENCH_JOBS a subset of
# "compress findgrep sort forks pingpong". Writes $BUILD/bench-jobs/:
# MODE/ (the guest's runs.txt, the last run's trace of each job and
# configuration, counts.txt from traceanalyze --json, console.log) and
# table.md, which it also prints. BENCH_REUSE=1 makes the table again from
# those files (same BENCH_MODE and BENCH_JOBS), without building or booting.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
mode=${BENCH_MODE:-icount}
case $mode in
icount | wall) modes=("$mode") ;;
both) modes=(icount wall) ;;
*) echo "bench-jobs.sh: BENCH_MODE is icount, wall or both" >&2; exit 2 ;;
esac
scale=${BENCH_SCALE:-100} buffer=${BENCH_BUFFER:-1M}
jobs=${BENCH_JOBS:-compress findgrep sort forks pingpong}
for v in "${BENCH_REPS:-5}" "$scale"; do
	[[ $v =~ ^[1-9][0-9]*$ ]] || { echo "bench-jobs.sh: BENCH_REPS and BENCH_SCALE are positive integers" >&2; exit 2; }
done
for j in $jobs; do
	case $j in
	compress | findgrep | sort | forks | pingpong) ;;
	*) echo "bench-jobs.sh: unknown job '$j' in BENCH_JOBS" >&2; exit 2 ;;
	esac
done

source "$repo/tests/lib/vm-host.sh"
build=$vm_build
top=$build/bench-jobs
if [[ -z ${BENCH_REUSE:-} ]]; then
	vm_kernel ltt
	vm_module ltt
	vm_need "$build/bin/tracedaemon" "$build/bin/traceanalyze" "$build/workloads/wl_pingpong"
	mkdir -p "$build/bench"
	gcc -static -O2 -Wall -Wextra -o "$build/bench/jobtime" tests/bench/jobtime.c
	vm_bins=("$build/bin/tracedaemon" "$build/bench/jobtime")
	vm_workloads=1
fi

# boot MODE: one guest run into $top/MODE, then counts.txt: JOB CONFIG
# EVENTS LOST from traceanalyze --json on each trace the guest kept.
boot() {
	local m=$1 dir=$top/$1 t name rc=0 reps
	case $m in
	icount) reps=${BENCH_REPS:-5} vm_qemu=(--smp 1 --qemu-arg -icount --qemu-arg "shift=0,sleep=off") clock=${LTT_CLOCK:-tsc} ;;
	wall) reps=${BENCH_REPS:-7} vm_qemu=(--smp 2) clock=${LTT_CLOCK:-auto} ;;
	esac
	case $clock in
	auto | tsc | local) ;;
	*) echo "bench-jobs.sh: LTT_CLOCK is auto, tsc or local, not '$clock'" >&2; exit 2 ;;
	esac
	vm_qemu+=(--mem 1G --timeout 3000)
	rm -rf "$dir"
	mkdir -p "$dir"
	echo "$m: $reps runs per cell, BENCH_SCALE=$scale BENCH_BUFFER=$buffer, ltt clock=$clock, at $(git describe --always --dirty 2>/dev/null || echo '?')" >"$dir/about.txt"
	echo "bench-jobs: $m mode, $reps runs of each job in each configuration, one boot..." >&2
	local t0=$SECONDS
	# shellcheck disable=SC2086 # the job list is a word list
	vm_boot "$dir" tests/bench/jobs-guest.sh "$reps" "$scale" "$buffer" "$clock" $jobs >"$dir/guest.log" 2>&1 || rc=$?
	echo "bench-jobs: $m boot took $((SECONDS - t0)) s (status $rc)" >&2
	if ((rc != 0)) || grep -q '^FAIL' "$dir/results.txt" 2>/dev/null || [[ ! -s $dir/runs.txt ]]; then
		echo "bench-jobs: the $m run failed (status $rc); $dir/guest.log, $dir/console.log:" >&2
		grep -h '^FAIL' "$dir/results.txt" >&2 2>/dev/null || tail -n 10 "$dir/guest.log" >&2
		return 1
	fi
	: >"$dir/counts.txt"
	for t in "$dir"/*.trace; do
		name=$(basename "$t" .trace)
		"$build/bin/traceanalyze" --json --no-progress "$t" "${t%.trace}.proc" "$dir/$name.json" ||
			{ echo "bench-jobs: traceanalyze failed on $t" >&2; return 1; }
		echo "${name%-*} ${name##*-} $(jq -r '"\(.trace.events) \(.trace.lost_events)"' "$dir/$name.json")" >>"$dir/counts.txt"
	done
}
if [[ -z ${BENCH_REUSE:-} ]]; then
	for m in "${modes[@]}"; do boot "$m"; done
else
	for m in "${modes[@]}"; do
		[[ -s $top/$m/runs.txt ]] || { echo "bench-jobs.sh: BENCH_REUSE: no $top/$m/runs.txt" >&2; exit 1; }
	done
fi

# The table: one row per job and configuration; the icount and wall
# columns from whichever modes ran, the other figures from the first mode
# that ran (icount when it did).
table() {
	local i=$top/icount w=$top/wall
	[[ " ${modes[*]} " == *" icount "* ]] || i=
	[[ " ${modes[*]} " == *" wall "* ]] || w=
	awk -v jobs="$jobs" -v icount="$i" -v wall="$w" '
	function median(mode, key,    n, k, v, a, t, x) {
		n = split(times[mode, key], v, " ")
		if (n == 0) return ""
		for (k = 1; k <= n; k++) a[k] = v[k] + 0
		for (k = 2; k <= n; k++) { x = a[k]; t = k - 1; while (t > 0 && a[t] > x) { a[t + 1] = a[t]; t-- }; a[t + 1] = x }
		return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	function load(mode, dir,    f, line, p, key) {
		if (dir == "") return
		f = dir "/runs.txt"
		while ((getline line < f) > 0) {
			# run JOB CONFIG REP NS BYTES LOST EXIT CPU
			split(line, p, " ")
			key = p[2] " " p[3]
			times[mode, key] = times[mode, key] " " p[5]
			if (p[4] + 0 >= lastrep[mode, key]) { lastrep[mode, key] = p[4] + 0; lastns[mode, key] = p[5]; bytes[mode, key] = p[6]; cpu[mode, key] = p[9] }
			if (p[7] + 0 > lost[key]) lost[key] = p[7] + 0
		}
		close(f)
		f = dir "/counts.txt"
		while ((getline line < f) > 0) {
			split(line, p, " ")	# JOB CONFIG EVENTS LOST
			events[mode, p[1] " " p[2]] = p[3]
			if (p[4] + 0 > lost[p[1] " " p[2]]) lost[p[1] " " p[2]] = p[4] + 0
		}
		close(f)
	}
	function pct(mode, job, cfg,    b, t) {
		b = median(mode, job " base"); t = median(mode, job " " cfg)
		return (b == "" || t == "") ? "–" : sprintf("%+.2f %%", 100 * (t / b - 1))
	}
	# The median and, in parentheses, the fastest and slowest run: the
	# spread says what size of effect the column can resolve.
	function secs(mode, key,    n, k, v, lo, hi) {
		n = split(times[mode, key], v, " ")
		if (n == 0) return "–"
		lo = hi = v[1] + 0
		for (k = 2; k <= n; k++) { if (v[k] + 0 < lo) lo = v[k] + 0; if (v[k] + 0 > hi) hi = v[k] + 0 }
		return sprintf("%.3f s (%.3f–%.3f)", median(mode, key) / 1e9, lo / 1e9, hi / 1e9)
	}
	function rate(key) {
		if (!((m, key) in events) || !lastns[m, key]) return "–"
		return sprintf("%.0f", events[m, key] / (lastns[m, key] / 1e9))
	}
	# The extra time per event: for -P, per event the hooks saw (the
	# events the all-events run recorded).
	function perevent(job, cfg,    n, b, t) {
		n = events[m, job " " (cfg == "pid" ? "details" : cfg)]
		b = median(m, job " base"); t = median(m, job " " cfg)
		return (n > 0 && b != "" && t != "" && t > b) ? sprintf("%.0f", (t - b) / n) : "–"
	}
	function daemon(key) {
		return ((m, key) in cpu) && cpu[m, key] >= 0 && lastns[m, key] ? sprintf("%.2f %%", 100 * cpu[m, key] / lastns[m, key]) : "–"
	}
	function kib(key,    k) {
		if (!((m, key) in bytes)) return "–"
		k = bytes[m, key] / 1024
		return sprintf(k < 10 ? "%.1f" : "%.0f", k)
	}
	BEGIN {
		load("icount", icount); load("wall", wall)
		m = icount != "" ? "icount" : "wall"
		name["base"] = "untraced"; name["core"] = "core events (-e CORE)"
		name["all"] = "all events, no details (-D NONE)"; name["details"] = "all events with details"
		name["pid"] = "all events, PID filter on an idle process (-P)"
		print "| job | configuration | icount | wall | events/s | ns per event | daemon CPU | trace KiB | lost |"
		print "|---|---|---:|---:|---:|---:|---:|---:|---:|"
		nj = split(jobs, J, " ")
		nc = split("core all details pid", C, " ")
		for (j = 1; j <= nj; j++) {
			printf "| %s | %s | %s | %s | | | | | |\n", J[j], name["base"], secs("icount", J[j] " base"), secs("wall", J[j] " base")
			for (c = 1; c <= nc; c++) {
				key = J[j] " " C[c]
				printf "| | %s | %s | %s | %s | %s | %s | %s | %d |\n", name[C[c]], pct("icount", J[j], C[c]),
					pct("wall", J[j], C[c]), rate(key), perevent(J[j], C[c]), daemon(key), kib(key), lost[key]
			}
		}
		print ""
		print "untraced: the median time of the job (the fastest and slowest run); traced: the median"
		print "slowdown against it."
		print "From the last run in " m " mode: events/s (recorded events over the job time); daemon CPU"
		print "(the CPU time tracedaemon used while the job ran, over the job time); trace KiB."
		print "ns per event: the extra median " m " time per recorded event (for -P, per event the"
		print "all-events run recorded, i.e. per hook that ran; – when the run was not slower)."
		print "lost: the most in any run."
	}'
}
{
	for m in "${modes[@]}"; do cat "$top/$m/about.txt" 2>/dev/null || echo "$m: ?"; done
	echo
	table
} | tee "$top/table.md"
if awk '$1 == "run" && $7 > 0 { bad = 1 } END { exit !bad }' "$top"/*/runs.txt; then
	echo "bench-jobs: events were lost; the traced figures with losses understate the cost (raise BENCH_BUFFER)" >&2
fi
