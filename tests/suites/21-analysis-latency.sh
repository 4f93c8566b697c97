#!/usr/bin/env bash
# traceanalyze --latency and --critical-path end to end: golden reports of
# the committed traces, the latency figures checked against the analysis's
# own accounting (two independent walks) on ltt-synth traces with and
# without lost events, the JSON sections' invariants, and bad arguments
# rejected with a clear message.
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/tests/lib/sh-test.sh"
build=$root/${BUILD:-build}
[[ ${BUILD:-build} == /* ]] && build=${BUILD}
ta=$build/bin/traceanalyze synth=$build/bin/ltt-synth
data=$root/tests/data
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [[ ! -x $ta || ! -x $synth ]]; then
	t_fail "traceanalyze and ltt-synth built" "missing in $build/bin (run make)"
	t_summary
	exit
fi

# golden NAME EXPECTED-FILE ARGS...: run in tests/data (relative paths).
golden() {
	local name=$1 want=$2 out; shift 2
	out="$tmp/$(basename "$want")"
	if (cd "$data" && "$ta" "$@" >"$out" 2>"$out.err"); then
		if cmp -s "$out" "$data/$want"; then
			t_pass "$name"
		else
			t_fail "$name" "$(diff "$data/$want" "$out" | head -n 8)"
		fi
	else
		t_fail "$name" "exit status $?: $(head -c 300 "$out.err")"
	fi
}
golden "--latency (small)" small.latency.txt --latency small.trace small.proc
golden "--latency --worst 2 -p 100 -p 101 (small)" small.latency-pids.txt \
	--latency --worst 2 -p 100 -p 101 small.trace small.proc
golden "--latency with lost events (dropped and counted)" lost.latency.txt \
	--latency lost.trace lost.proc
golden "--critical-path (small)" small.critical-path.txt --critical-path 101 small.trace small.proc
golden "--json --latency --critical-path (small)" small.latency.json \
	--json --latency --critical-path 101 small.trace small.proc
golden "real trace from the VM: --latency" vm-sh.latency.txt --latency vm-sh.trace vm-sh.proc
# The off-CPU section of a real trace with stacks (traceview's fixture,
# tests/gui/data: wl_offcpu traced with tracedaemon -S, its kallsyms copy).
data=$root/tests/gui/data golden "real trace with stacks: --json --offcpu" \
	../../data/offcpu.json --json --offcpu offcpu.trace offcpu.proc

# The latency walk and the analysis's accounting are separate code: on
# ltt-synth traces (with and without lost events) their totals must agree.
for lost in 0 500; do
	args=(--events 300000 --cpus 3 --processes 12 --seed 7 -o "$tmp/s$lost")
	((lost)) && args+=(--lost "$lost")
	if ! "$synth" "${args[@]}" >/dev/null 2>"$tmp/synth.err"; then
		t_fail "ltt-synth (lost $lost)" "$(head -c 300 "$tmp/synth.err")"
		continue
	fi
	"$ta" --json --latency "$tmp/s$lost.trace" "$tmp/s$lost.proc" >"$tmp/s$lost.json" 2>/dev/null
	t_check "synth (lost $lost): latency totals equal the analysis's preempted and syscall time" \
		jq -e '
		([.processes[].time_preempted_ns] | add) == .latency.preemption.total_ns and
		([.processes[].syscall_table[].timed] | add) == .latency.syscall.count and
		([.processes[].syscall_table[].total_ns] | add) == .latency.syscall.total_ns and
		.latency.wakeup.count > 0 and .latency.irq.count > 0 and .latency.softirq.count > 0' \
		"$tmp/s$lost.json"
	t_check "synth (lost $lost): every distribution ordered, histogram sums to count, worst sorted" \
		jq -e '[.latency | .. | objects | select(has("p50_ns"))] | length > 10 and all(
			.min_ns <= .p50_ns and .p50_ns <= .p90_ns and .p90_ns <= .p99_ns and .p99_ns <= .max_ns
			and ([.histogram_us[].count] | add // 0) == .count
			and (.worst | length <= 5) and (.worst[0].ns // .max_ns) == .max_ns
			and ([.worst[].ns] == ([.worst[].ns] | sort | reverse)))' "$tmp/s$lost.json"
done
t_check "synth with lost events: instances across the gap dropped and counted" \
	jq -e '.trace.lost_events > 0 and .latency.lost_events == .trace.lost_events and
	       ([.latency[] | objects | .dropped] | add) > 0' "$tmp/s500.json"
t_check "synth without lost events: nothing dropped" \
	jq -e '[.latency[] | objects | .dropped] | add == 0' "$tmp/s0.json"

# The critical path covers its interval exactly, on a synthetic trace.
pid=$(jq '[.processes[] | select(.pid > 0)] | max_by(.sched_in) | .pid' "$tmp/s0.json")
"$ta" --json --critical-path "$pid" "$tmp/s0.trace" "$tmp/s0.proc" >"$tmp/cp.json" 2>/dev/null
# shellcheck disable=SC2016 # $c is jq's
t_check "critical path: segments cover [from, to] without gap or overlap; summary adds up" \
	jq -e '.critical_path as $c | ($c.segments | length) > 0 and
	       $c.segments[0].start_ns == $c.from_ns and $c.segments[-1].end_ns == $c.to_ns and
	       ([range(1; $c.segments | length) as $i |
	         $c.segments[$i].start_ns == $c.segments[$i - 1].end_ns] | all) and
	       ([$c.summary[].ns] | add) == $c.to_ns - $c.from_ns' "$tmp/cp.json"
t_check "critical path: --from/--to clip the interval" bash -c "
	'$ta' --json --critical-path $pid --from 0.001 --to 0.002 '$tmp/s0.trace' '$tmp/s0.proc' 2>/dev/null |
	jq -e '.critical_path | (.to_ns - .from_ns) <= 1000000 and (.to_ns - .from_ns) > 0'"

# --offcpu on an ltt-synth trace with STACK records: every blocked interval
# has a stack, the folded lines' weights add up to the text report's total
# (each rounded to the microsecond), and -p keeps one task's stacks.
if "$synth" --events 200000 --cpus 2 --processes 6 --seed 5 --stacks -o "$tmp/st" >/dev/null 2>&1; then
	"$ta" --offcpu "$tmp/st.trace" "$tmp/st.proc" >"$tmp/st.txt" 2>/dev/null
	"$ta" --offcpu --folded "$tmp/st.trace" "$tmp/st.proc" >"$tmp/st.folded" 2>/dev/null
	t_check "--offcpu: blocked intervals, all with a stack" \
		grep -Eq '^Blocked intervals: [1-9][0-9]*, [0-9.]+ s; without a stack: 0, ' "$tmp/st.txt"
	# shellcheck disable=SC2016 # an awk program
	t_check "--offcpu --folded: the weights add up to the blocked time (us, rounded per stack)" \
		awk -v lines="$(wc -l <"$tmp/st.folded")" '
			NR == FNR { if ($1 == "Blocked" && $2 == "intervals:") { s = $4; sub(",", "", s); want = s * 1e6 } next }
			{ got += $NF; if ($1 !~ /;0xffffffff81/) bad = 1 }
			END { exit !(lines > 0 && !bad && got >= want - lines && got <= want + lines) }' \
		"$tmp/st.txt" "$tmp/st.folded"
	one=$(head -n 1 "$tmp/st.folded" | cut -d';' -f1)
	pid=$(jq -r --arg n "$one" '.processes[] | select(.name == $n) | .pid' \
		<("$ta" --json "$tmp/st.trace" "$tmp/st.proc" 2>/dev/null) | head -n 1)
	t_check "--offcpu --folded -p $pid: only that task's stacks" bash -c "
		'$ta' --offcpu --folded -p '$pid' '$tmp/st.trace' '$tmp/st.proc' 2>/dev/null |
		awk -F';' 'BEGIN { n = 0 } { n++; if (\$1 != \"$one\") exit 1 } END { exit !n }'"
	# The JSON section holds what the folded lines and the text say.
	"$ta" --json --offcpu "$tmp/st.trace" "$tmp/st.proc" >"$tmp/st.json" 2>/dev/null
	t_check "--json --offcpu: stacks, processes and shares add up to the blocked time" \
		jq -e '.offcpu | .intervals > 0 and .without_stack == 0 and
			([.stacks[].blocked_ns] | add) == .blocked_ns and
			([.stacks[].intervals] | add) == .intervals and
			([.processes[].blocked_ns] | add) == .blocked_ns and
			([.processes[].intervals] | add) == .intervals and
			all(.stacks[]; ([.processes[].blocked_ns] | add) == .blocked_ns and
				([.processes[].intervals] | add) == .intervals and .recorded and
				(.user | length) == 8 and (.kernel | length) == 14) and
			([.stacks[].blocked_ns] == ([.stacks[].blocked_ns] | sort | reverse))' "$tmp/st.json"
	# shellcheck disable=SC2016 # a jq program
	t_check "--json --offcpu: its stacks are the folded lines (frames and microseconds)" \
		cmp -s <(sort "$tmp/st.folded") <(jq -r '.offcpu.stacks[] | select(.blocked_us > 0) |
			([.task] + .user + .kernel | join(";")) + " \(.blocked_us)"' "$tmp/st.json" | sort)
	read -r n secs < <(awk '/^Blocked intervals:/ { s = $4; sub(",", "", s); n = $3; sub(",", "", n); print n, s }' "$tmp/st.txt")
	# shellcheck disable=SC2016 # a jq program
	t_check "--json --offcpu: the text report's totals ($n intervals, $secs s)" \
		jq -e --argjson n "${n:-0}" --argjson s "${secs:-0}" \
		'.offcpu | .intervals == $n and $n > 0 and (.blocked_ns / 1e9 - $s | fabs) < 1e-6' "$tmp/st.json"
	read -r top name < <(jq -r '.offcpu.processes | max_by(.blocked_ns) | "\(.pid) \(.name)"' "$tmp/st.json")
	"$ta" --json --offcpu -p "$top" --from 0.01 "$tmp/st.trace" "$tmp/st.proc" >"$tmp/st-p.json" 2>/dev/null
	# shellcheck disable=SC2016 # a jq program
	t_check "--json --offcpu -p $top --from 0.01: that process alone, the interval clipped" \
		jq -e --argjson pid "${top:-0}" --arg name "$name" '.offcpu.from_ns == .trace.start_ns + 10000000 and
			.offcpu as $o | $o.pid == $pid and [$o.processes[].pid] == [$pid] and
			$o.to_ns > $o.from_ns and $o.blocked_ns > 0 and all($o.stacks[]; .task == $name)' "$tmp/st-p.json"
else
	t_fail "ltt-synth --stacks" "no trace"
fi
t_run_expect "--offcpu on a trace without stacks says so" 0 "STACK records were not selected" \
	"$ta" --offcpu "$data/small.trace" "$data/small.proc"

# Bad arguments: exit status 2 and a message that says what is wrong.
t_run_expect "bad --worst" 2 'bad --worst "x" \(0 to 1000\)' "$ta" --latency --worst x "$data/small.trace"
t_run_expect "--worst too large" 2 'bad --worst "1001"' "$ta" --latency --worst 1001 "$data/small.trace"
t_run_expect "bad --critical-path PID" 2 'bad --critical-path PID "abc"' \
	"$ta" --critical-path abc "$data/small.trace"
t_run_expect "--critical-path 0 (the idle task)" 2 'bad --critical-path PID "0" \(a task.s pid, not 0\)' \
	"$ta" --critical-path 0 "$data/small.trace"
t_run_expect "--from without --critical-path" 2 "--from and --to need --critical-path" \
	"$ta" --from 1 "$data/small.trace"
t_run_expect "bad --from" 2 'bad --from "-1"' "$ta" --critical-path 100 --from -1 "$data/small.trace"
t_run_expect "--to before --from" 2 "--to must be after --from" \
	"$ta" --critical-path 100 --from 2 --to 1 "$data/small.trace"
t_run_expect "several -p without --latency" 2 "several -p PIDs only with --latency" \
	"$ta" -a -p 100 -p 101 "$data/small.trace"
t_run_expect "--symfs not a directory" 2 "--symfs $tmp/none: not a directory" \
	"$ta" --callsites --symfs "$tmp/none" "$data/small.trace"
t_run_expect "--symfs without --callsites" 2 "--symfs needs --callsites" \
	"$ta" --symfs "$tmp" "$data/small.trace"
t_run_expect "--folded without --offcpu" 2 "--folded needs --offcpu" \
	"$ta" --folded "$data/small.trace"
t_run_expect "--offcpu --folded with -a" 2 "--folded writes folded stacks alone" \
	"$ta" --offcpu --folded -a "$data/small.trace"
t_run_expect "--json --offcpu on a trace without stacks says so in the section" 0 \
	'"stacks_recorded": false' "$ta" --json --offcpu "$data/small.trace" "$data/small.proc"
t_run_expect "--follow with --latency" 2 "--follow does not combine with" \
	"$ta" --follow --latency "$data/small.trace"
t_run_expect "--critical-path of a pid not in the trace" 1 \
	"--critical-path: PID 4242 is not in the trace$" \
	"$ta" --critical-path 4242 "$data/small.trace" "$data/small.proc"

t_summary
