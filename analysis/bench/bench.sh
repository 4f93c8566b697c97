#!/usr/bin/env bash
# make bench: throughput and peak memory of `traceanalyze -a -s` on a
# 10-million-event ltt-synth trace (best of 3 runs for time, worst for
# memory; the analyzer is single-threaded), and the
# same on a 1-million-event trace to show memory does not grow with events.
# The machine may be shared: events/s is given per wall-clock second and per
# CPU second (user + system) of the analyzer's own process.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-build}
[[ $build == /* ]] || build=$root/$build
bin=$build/bin dir=$build/bench
mkdir -p "$dir"
command -v /usr/bin/time >/dev/null || { echo "bench: needs GNU time (/usr/bin/time)" >&2; exit 1; }

make_trace() { # NAME EVENTS [LTT-SYNTH OPTIONS...]
	local name=$1 events=$2
	shift 2
	if [[ ! -f $dir/$name.trace || $bin/ltt-synth -nt $dir/$name.trace ]]; then
		echo "generating $events-event trace $dir/$name.trace ..." >&2
		"$bin/ltt-synth" --events "$events" --cpus 4 --processes 32 --seed 1 "$@" -o "$dir/$name" --expect |
			jq -r .trace.events >"$dir/$name.events"
	fi
}

measure() { # NAME -> prints "events wall cpu rss_kb": the best of 3 runs each
	# Times come from bash's `time` (getrusage, to the millisecond: GNU
	# time's %U and %S drop everything below 10 ms), peak RSS from GNU time
	# in runs of their own.
	local name=$1 line wall user sys rss bw=999999 bc=999999 br=0
	local args=(-a -s "$dir/$name.trace" "$dir/$name.proc")
	for _ in 1 2 3; do
		line=$({ TIMEFORMAT='%3R %3U %3S'; time "$bin/traceanalyze" "${args[@]}" >/dev/null; } 2>&1)
		read -r wall user sys <<<"$line"
		rss=$(/usr/bin/time -f "%M" "$bin/traceanalyze" "${args[@]}" 2>&1 >/dev/null | tail -n 1)
		read -r bw bc br < <(awk -v w="$wall" -v u="$user" -v s="$sys" -v r="$rss" \
			-v bw="$bw" -v bc="$bc" -v br="$br" 'BEGIN {
			c = u + s; printf "%.3f %.3f %d\n", (w < bw ? w : bw), (c < bc ? c : bc), (r > br ? r : br) }')
	done
	echo "$(cat "$dir/$name.events") $bw $bc $br"
}

make_trace synth10m 10000000
make_trace synth1m 1000000
read -r ev wall cpu rss < <(measure synth10m)
read -r ev1 _ _ rss1 < <(measure synth1m)
size=$(stat -c %s "$dir/synth10m.trace")
awk -v ev="$ev" -v wall="$wall" -v cpu="$cpu" -v rss="$rss" -v size="$size" \
	-v ev1="$ev1" -v rss1="$rss1" 'BEGIN {
	printf "traceanalyze -a -s on %d events (%.0f MB trace, 4 CPUs, ltt-synth):\n", ev, size / 1048576
	printf "  events/s:    %.1f M/s (wall %.3f s)   %.1f M/s per CPU second (%.3f s)\n",
		ev / wall / 1e6, wall, ev / (cpu > 0 ? cpu : 0.01) / 1e6, cpu
	printf "  peak memory: %.1f MB RSS (trace file %.0f MB); %.1f MB on a %d-event trace\n",
		rss / 1024, size / 1048576, rss1 / 1024, ev1
	printf "  target: >= 50 M events/s on one core; memory not growing with events\n"
}'

# traceconvert --to ctf on the same traces: events/s (best of 3) and peak
# RSS (worst of 3), the CTF directory written beside them (removed before
# each run, so a run does not also pay for deleting the last one's files).
measure_convert() { # NAME -> prints "wall cpu rss_kb"
	local name=$1 line wall user sys rss bw=999999 bc=999999 br=0
	local args=(--to ctf --no-progress "$dir/$name.trace" "$dir/$name.proc" "$dir/$name.ctf")
	for _ in 1 2 3; do
		rm -rf "$dir/$name.ctf"
		line=$({ TIMEFORMAT='%3R %3U %3S'; time "$bin/traceconvert" "${args[@]}" 2>/dev/null; } 2>&1)
		read -r wall user sys <<<"$line"
		rm -rf "$dir/$name.ctf"
		rss=$(/usr/bin/time -f "%M" "$bin/traceconvert" "${args[@]}" 2>&1 >/dev/null | tail -n 1)
		read -r bw bc br < <(awk -v w="$wall" -v u="$user" -v s="$sys" -v r="$rss" \
			-v bw="$bw" -v bc="$bc" -v br="$br" 'BEGIN {
			c = u + s; printf "%.3f %.3f %d\n", (w < bw ? w : bw), (c < bc ? c : bc), (r > br ? r : br) }')
	done
	echo "$bw $bc $br"
}
read -r cwall ccpu crss < <(measure_convert synth10m)
read -r _ _ crss1 < <(measure_convert synth1m)
csize=$(du -sk "$dir/synth10m.ctf" | cut -f1)
awk -v ev="$ev" -v wall="$cwall" -v cpu="$ccpu" -v rss="$crss" -v rss1="$crss1" -v ev1="$ev1" \
	-v csize="$csize" 'BEGIN {
	printf "traceconvert --to ctf on the same %d events (%.0f MB of CTF written):\n", ev, csize / 1024
	printf "  events/s:    %.1f M/s (wall %.3f s)   %.1f M/s per CPU second (%.3f s)\n",
		ev / wall / 1e6, wall, ev / (cpu > 0 ? cpu : 0.01) / 1e6, cpu
	printf "  peak memory: %.1f MB RSS; %.1f MB on a %d-event trace\n", rss / 1024, rss1 / 1024, ev1
	printf "  target: >= 20 M events/s; memory not growing with events\n"
}'

# traceanalyze --latency and --critical-path on the same 10M-event trace:
# each a pass of its own (no -a -s), best of 3 (wall and CPU seconds).
measure_ta() { # ARGS... -> prints "wall cpu"
	local line wall user sys bw=999999 bc=999999
	for _ in 1 2 3; do
		line=$({ TIMEFORMAT='%3R %3U %3S'; time "$bin/traceanalyze" --no-progress "$@" >/dev/null; } 2>&1)
		read -r wall user sys <<<"$line"
		read -r bw bc < <(awk -v w="$wall" -v u="$user" -v s="$sys" -v bw="$bw" -v bc="$bc" 'BEGIN {
			c = u + s; printf "%.3f %.3f\n", (w < bw ? w : bw), (c < bc ? c : bc) }')
	done
	echo "$bw $bc"
}
read -r lwall lcpu < <(measure_ta --latency "$dir/synth10m.trace" "$dir/synth10m.proc")
# The critical path of the task with the most context switches.
cpid=$("$bin/traceanalyze" --json --no-progress "$dir/synth10m.trace" "$dir/synth10m.proc" |
	jq '[.processes[] | select(.pid > 0)] | max_by(.sched_in) | .pid')
read -r pwall pcpu < <(measure_ta --critical-path "$cpid" "$dir/synth10m.trace" "$dir/synth10m.proc")
awk -v ev="$ev" -v lwall="$lwall" -v lcpu="$lcpu" -v pwall="$pwall" -v pcpu="$pcpu" \
	-v pid="$cpid" 'BEGIN {
	printf "traceanalyze --latency on the same %d events:\n", ev
	printf "  events/s:    %.1f M/s (wall %.3f s)   %.1f M/s per CPU second (%.3f s)\n",
		ev / lwall / 1e6, lwall, ev / (lcpu > 0 ? lcpu : 0.01) / 1e6, lcpu
	printf "  target: >= 30 M events per CPU second\n"
	printf "traceanalyze --critical-path %d (the busiest task) on the same trace:\n", pid
	printf "  time:        %.3f s wall, %.3f s CPU\n", pwall, pcpu
	printf "  target: under one second\n"
}'

# traceanalyze --offcpu --folded on a 10M-event trace of the same shape with
# STACK records before every blocking switch (ltt-synth --stacks).
make_trace synth10m-stacks 10000000 --stacks
sev=$(cat "$dir/synth10m-stacks.events")
read -r fwall fcpu < <(measure_ta --offcpu --folded "$dir/synth10m-stacks.trace" "$dir/synth10m-stacks.proc")
awk -v ev="$sev" -v fwall="$fwall" -v fcpu="$fcpu" 'BEGIN {
	printf "traceanalyze --offcpu --folded on a %d-event trace with stacks:\n", ev
	printf "  events/s:    %.1f M/s (wall %.3f s)   %.1f M/s per CPU second (%.3f s)\n",
		ev / fwall / 1e6, fwall, ev / (fcpu > 0 ? fcpu : 0.01) / 1e6, fcpu
	printf "  target: >= 10 M events per CPU second\n"
}'
