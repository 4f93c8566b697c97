#!/usr/bin/env bash
# traceconvert --to perfetto end to end: the committed real traces of
# tests/data and ltt-synth traces (format versions 1 and 2, lost events, a
# truncated end) converted, decoded with protoc against the schema subset in
# tests/convert/perfetto (upstream field numbers), and checked against
# traceanalyze: the number of ftrace events of each kind, the accounting of
# the summary line (read = written + dropped, lost carried into the bundles'
# lost_events flag and ftrace_stats' overrun), per-CPU time order, no field
# outside the schema; the whole output of a hand-built trace
# (tests/convert/perfetto/hand-trace.py, hand.expect) and exact values on
# tiny.trace; system calls not matched across a loss; bad input and output;
# flat peak memory.
# protoc missing is a failure: without it nothing here is checked.
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/tests/lib/sh-test.sh"
build=$root/${BUILD:-build}
[[ ${BUILD:-build} == /* ]] && build=${BUILD}
tc=$build/bin/traceconvert ta=$build/bin/traceanalyze synth=$build/bin/ltt-synth
protos=$root/tests/convert/perfetto
data=$root/tests/data
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for tool in "$tc" "$ta" "$synth"; do
	if [[ ! -x $tool ]]; then
		t_fail "$(basename "$tool") built" "missing in $build/bin (run make)"
		t_summary
		exit
	fi
done
if ! command -v protoc >/dev/null; then
	t_fail "protoc installed" "protoc not found: install protobuf-compiler (scripts/install-deps.sh)"
	t_summary
	exit
fi

# decode FILE: the converted trace as flatten.py's lines.
decode() {
	protoc -I "$protos" --decode=perfetto.protos.Trace trace.proto <"$1" |
		python3 "$protos/flatten.py"
}

# The number of ftrace events of each kind the conversion must write, from
# traceanalyze: --json's event counts for the events with one ftrace
# counterpart, its dump (-d) for the subtypes of PROCESS, SOFT_IRQ and
# FILE_SYSTEM (whose lines per event add up to --json's counts, checked).
expected_counts() { # JSON DUMP
	local json=$1 dump=$2
	jq -r '.event_counts | "irq_handler_entry \(.irq_entry // 0)",
		"irq_handler_exit \(.irq_exit // 0)", "sched_switch \(.schedchange // 0)",
		"sys_enter \(.syscall_entry // 0)", "sys_exit \(.syscall_exit // 0)"' "$json"
	echo "sched_process_exit $(grep -cE '^[0-9]+ +Process .*  EXIT PID : ' "$dump")"
	echo "sched_waking $(grep -cE '^[0-9]+ +Process .*  WAKEUP PID : ' "$dump")"
	echo "softirq_entry $(grep -cE '^[0-9]+ +Soft IRQ .*  SOFTIRQ ENTRY : ' "$dump")"
	echo "softirq_exit $(grep -cE '^[0-9]+ +Soft IRQ .*  SOFTIRQ EXIT : ' "$dump")"
	echo "task_newtask $(grep -cE '^[0-9]+ +Process .*  (FORK|KTHREAD) PID : ' "$dump")"
	echo "task_rename $(grep -cE '^[0-9]+ +File system .*  EXEC : .' "$dump")"
}
actual_counts() { # FLAT
	for k in irq_handler_entry irq_handler_exit sched_switch sys_enter sys_exit \
		sched_process_exit sched_waking softirq_entry softirq_exit task_newtask task_rename; do
		echo "$k $(awk -v k="$k" '$1 == "event" && $5 == k' "$1" | wc -l)"
	done
}

# check NAME TRACE PROC [STDERR-PATTERNS]: converts and checks everything
# above that holds for any trace; each line of STDERR-PATTERNS must match a
# line of the converter's stderr.
check() {
	local name=$1 trace=$2 proc=$3 pat=${4:-}
	local out=$tmp/$name.pf flat=$tmp/$name.flat json=$tmp/$name.json dump=$tmp/$name.dump
	if ! "$tc" --to perfetto "$trace" "$proc" "$out" 2>"$tmp/$name.err"; then
		t_fail "$name: converts" "exit status $?: $(head -c 300 "$tmp/$name.err")"
		return
	fi
	local p
	while IFS= read -r p; do
		[[ -z $p ]] && continue
		if grep -Eq -- "$p" "$tmp/$name.err"; then
			t_pass "$name: stderr says /$p/"
		else
			t_fail "$name: stderr says /$p/" "$(head -c 300 "$tmp/$name.err")"
		fi
	done <<<"$pat"
	if ! decode "$out" >"$flat" 2>"$tmp/$name.perr"; then
		t_fail "$name: protoc decodes it as perfetto.protos.Trace" "$(head -c 300 "$tmp/$name.perr")"
		return
	fi
	"$ta" --json "$trace" "$proc" >"$json" 2>/dev/null
	"$ta" -d "$trace" "$proc" >"$dump" 2>/dev/null

	# The dump's lines per event are --json's counts (the subtypes below are
	# counted from it).
	local id want got bad=
	for id in process:Process soft_irq:"Soft IRQ" file_system:"File system"; do
		want=$(jq -r ".event_counts.${id%%:*} // 0" "$json")
		got=$(grep -cE "^[0-9]+ +${id#*:} +[0-9]" "$dump")
		[[ $want == "$got" ]] || bad+="${id%%:*}: --json $want, dump $got; "
	done
	if [[ -n $bad ]]; then
		t_fail "$name: traceanalyze's dump agrees with its --json" "$bad"
	fi

	if diff <(expected_counts "$json" "$dump") <(actual_counts "$flat") >"$tmp/$name.diff"; then
		t_pass "$name: ftrace events of each kind = traceanalyze's counts"
	else
		t_fail "$name: ftrace events of each kind = traceanalyze's counts" \
			"$(head -n 12 "$tmp/$name.diff" | tr '\n' ' ')"
	fi

	# Accounting: the summary line against --json and the output.
	local sum read written dropped lost events jlost nev
	sum=$(grep -E '^traceconvert: [0-9]+ events read' "$tmp/$name.err")
	read -r read written dropped lost < <(sed -E \
		's/^traceconvert: ([0-9]+) events read, ([0-9]+) written, ([0-9]+) dropped by rule( \([^)]*\))?, ([0-9]+) lost.*/\1 \2 \3 \5/' <<<"$sum")
	events=$(jq -r .trace.events "$json")
	jlost=$(jq -r .trace.lost_events "$json")
	nev=$(grep -c '^event ' "$flat")
	if [[ $read == "$events" && $written == "$nev" && $((written + dropped)) == "$read" &&
		$lost == "$jlost" ]]; then
		t_pass "$name: read $read = written $written + dropped $dropped; lost $lost"
	else
		t_fail "$name: summary accounts for every event" \
			"summary '$sum'; traceanalyze events $events lost $jlost; events in output $nev"
	fi

	# Which events the rule dropped: they add up, and none is of a kind
	# that has an ftrace counterpart (all these traces record its details).
	local by bysum
	by=$(sed -nE 's/.* dropped by rule \(([^)]*)\),.*/\1/p' <<<"$sum")
	bysum=$(tr ',' '\n' <<<"$by" | awk '{ s += $2 } END { print s + 0 }')
	if [[ $bysum == "$dropped" ]] &&
		! grep -qE '(^|, )(schedchange|syscall_entry|syscall_exit|irq_entry|irq_exit) ' <<<"$by"; then
		t_pass "$name: dropped by kind add up, none with an ftrace counterpart"
	else
		t_fail "$name: dropped by kind" "dropped $dropped, by kind ($by) = $bysum"
	fi

	# Lost events: carried as the lost_events flag of a bundle and as the
	# END_OF_TRACE overrun (START_OF_TRACE is 0), never silently dropped.
	local flagged overrun start
	flagged=$(grep -c '^bundle .* lost=1$' "$flat")
	overrun=$(awk '$1 == "stats" && $2 == "END_OF_TRACE" { split($4, a, "="); s += a[2] } END { print s + 0 }' "$flat")
	start=$(awk '$1 == "stats" && $2 == "START_OF_TRACE" { split($4, a, "="); s += a[2] } END { print s + 0 }' "$flat")
	if [[ $overrun == "$jlost" && $start == 0 ]] &&
		{ ((jlost == 0 && flagged == 0)) || ((jlost > 0 && flagged > 0)); }; then
		t_pass "$name: lost events carried ($jlost: $flagged bundles flagged, overrun $overrun)"
	else
		t_fail "$name: lost events carried" \
			"traceanalyze lost $jlost; bundles flagged $flagged; overrun end $overrun start $start"
	fi

	if grep -qx 'unknown 0' "$flat" && grep -qx 'sequence 0' "$flat" && grep -qx 'disorder 0' "$flat"; then
		t_pass "$name: only schema fields, one packet sequence, each CPU in time order"
	else
		t_fail "$name: only schema fields, one packet sequence, each CPU in time order" \
			"$(grep -E '^(unknown|sequence|disorder) ' "$flat" | tr '\n' ' ')"
	fi
}

# The committed traces (masked.trace: small.trace with system calls masked).
for t in small lost tiny vm-sh names; do
	check "$t.trace" "$data/$t.trace" "$data/$t.proc"
done
check "masked.trace" "$data/masked.trace" "$data/small.proc"

# ltt-synth traces: both format versions, lost events, a truncated end.
synth_check() { # NAME PATTERN SYNTH-ARGS...
	local name=$1 pat=$2
	shift 2
	if "$synth" "$@" -o "$tmp/$name" >/dev/null 2>"$tmp/$name.serr"; then
		check "$name" "$tmp/$name.trace" "$tmp/$name.proc" "$pat"
	else
		t_fail "ltt-synth $*" "$(head -c 300 "$tmp/$name.serr")"
	fi
}
synth_check synth-v1 "" --events 30000 --cpus 4 --processes 8 --seed 5 --format 1
synth_check synth-v2 "" --events 30000 --cpus 4 --processes 8 --seed 5 --format 2
synth_check synth-lost "" --events 30000 --cpus 4 --processes 8 --seed 6 --lost 500
synth_check synth-truncated \
	$'^traceconvert: warning: .*synth-truncated.trace: offset [0-9]+ \\(0x[0-9a-f]+\\): last block is cut short\n^traceconvert: [0-9]+ events read, .* \\(trace cut short\\)$' \
	--events 8000 --cpus 3 --processes 4 --seed 21 --corrupt truncate
# More windows than one: bundles of a CPU follow each other in time.
synth_check synth-big "" --events 200000 --cpus 8 --processes 40 --seed 2
if (($(grep -c '^bundle ' "$tmp/synth-big.flat") > 8)); then
	t_pass "a long trace is written in several windows of bundles"
else
	t_fail "a long trace is written in several windows of bundles" \
		"$(grep -c '^bundle ' "$tmp/synth-big.flat") bundles"
fi

# No system call matched across a loss: a sys_exit takes its number from
# the task's sys_enter only when neither the entry's CPU nor the exit's lost
# events in between. lost.trace: pid 100 entered read() on CPU 0, which then
# lost 200 events; the exit after them carries no id. Without losses, every
# exit whose entry is in the trace has its id.
unmatched() { # FLAT: exits without an id whose task had an entry pending
	awk '$1 == "event" && $5 == "sys_enter" { p[$4] = 1 }
	     $1 == "event" && $5 == "sys_exit" { if ($6 !~ /^id=/ && p[$4]) print; p[$4] = 0 }' "$1"
}
t_check "lost.trace: the exit after the loss has no syscall id, and only it" \
	test "$(unmatched "$tmp/lost.trace.flat")" = "event 0 5004336823 100 sys_exit ret=7157"
for t in small.trace vm-sh.trace synth-v2; do
	t_check "$t: every exit with its entry in the trace has its id" \
		test -z "$(unmatched "$tmp/$t.flat")"
done

# Streaming: peak memory does not grow with the number of events (20 times
# the events, and 20 times the trace file's mapped bytes, within 3 MiB).
# (GNU time: a parent that is small itself, as the child's peak counts the
# parent's pages it was forked with.)
peak_kib() { # CMD...: the command's peak resident set, KiB; -1 if it failed
	/usr/bin/time -f %M -o "$tmp/peak" "$@" >/dev/null 2>&1 && cat "$tmp/peak" || echo -1
}
"$synth" --events 50000 --cpus 4 --processes 20 --seed 8 -o "$tmp/rss-small" >/dev/null 2>&1
"$synth" --events 1000000 --cpus 4 --processes 20 --seed 8 -o "$tmp/rss-large" >/dev/null 2>&1
small_kib=$(peak_kib "$tc" --to perfetto "$tmp/rss-small.trace" "$tmp/rss-small.proc" "$tmp/rss-small.pf")
large_kib=$(peak_kib "$tc" --to perfetto "$tmp/rss-large.trace" "$tmp/rss-large.proc" "$tmp/rss-large.pf")
if ((small_kib > 0 && large_kib > 0 && large_kib - small_kib < 3072)); then
	t_pass "peak memory flat: ${small_kib} KiB at 50k events, ${large_kib} KiB at 1M"
else
	t_fail "peak memory flat" "${small_kib} KiB at 50k events, ${large_kib} KiB at 1M (-1: failed)"
fi

# The hand-built trace (tests/convert/perfetto/hand-trace.py lists its
# records): the whole decoded output is hand.expect, every field of every
# packet: timestamps (7 s + TSC - 1000 ns), the pids and comms of each
# switch, prev_state (S 1, dead 0x10, preempted 0x100), the read()'s
# sys_exit id 0 and ret -11, the fork of a process and of a thread (tgid
# 200), a kthread, the exec (task_rename, cmdline), the IRQ named from the
# .proc and a nested x86 vector, the softirq, the wakeup, the exit, the
# .proc's processes; then 5 events lost: a bundle of its own flagged
# lost_events, a write()'s exit after the loss without an id, overrun 5.
if python3 "$protos/hand-trace.py" "$tmp/hand"; then
	check hand.trace "$tmp/hand.trace" "$tmp/hand.proc"
	if diff "$protos/hand.expect" "$tmp/hand.trace.flat" >"$tmp/hand.diff"; then
		t_pass "hand.trace: the decoded output is hand.expect ($(grep -c '^event ' "$protos/hand.expect") events)"
	else
		t_fail "hand.trace: the decoded output is hand.expect" "$(head -n 10 "$tmp/hand.diff" | tr '\n' ' ')"
	fi
	t_run_expect "hand.trace: the summary names what was dropped" 0 \
		'^traceconvert: 26 events read, 19 written, 7 dropped by rule \(trap_entry 1, trap_exit 1, block_start 2, block_end 2, lost 1\), 5 lost by the tracer' \
		"$tc" --to perfetto --force "$tmp/hand.trace" "$tmp/hand.proc" "$tmp/hand.pf"
else
	t_fail "hand-trace.py writes the hand-built trace"
fi

# Exact values on tiny.trace (tests/data/tiny.dump.txt shows them): the
# anchor is at 5 s of CLOCK_MONOTONIC, so the dump's .000035673 s is
# 5000035673 ns.
flat=$tmp/tiny.trace.flat
want=(
	# Sched change IN : 0; OUT : 100; STATE : 0 -> preempted (R+, 0x100)
	'event 0 5000035673 100 sched_switch prev_comm="worker-0" prev_pid=100 prev_state=256 next_comm="swapper/0" next_pid=0'
	# Sched change out in state 2 (D)
	'event 0 5000088664 100 sched_switch prev_comm="worker-0" prev_pid=100 prev_state=2 next_comm="swapper/0" next_pid=0'
	# open() failing with ENOENT: sys_exit carries the entry's number
	'event 0 5000023846 100 sys_exit id=2 ret=-2'
	'event 0 5000023512 100 sys_enter id=2'
	# IRQ 14 named from the .proc
	'event 0 5000096705 0 irq_handler_entry irq=14 name="ata_piix"'
	'event 0 5000097301 0 sched_waking comm="worker-0" pid=100 success=1'
	'event 0 5000400819 100 task_newtask pid=1002 comm="worker-0" clone_flags=18874385'
	'event 0 5000615967 1002 task_rename pid=1002 oldcomm="worker-0" newcomm="child-1002"'
	# a process of the .proc, and one the trace created (ppid, exec-ed file)
	'process pid=100 ppid=1 cmdline="worker-0" uid=0 is_kthread=false cmdline_is_comm=true'
	'process pid=1002 ppid=100 cmdline="/usr/bin/child-1002"'
	'thread tid=1002 name="child-1002" tgid=1002'
	'sysinfo release "6.1.0-synthetic"'
	'sysinfo machine "x86_64"'
	'clock 6 5000000000'
	'clock 1 1700000000000000000'
	'primary BUILTIN_CLOCK_BOOTTIME'
)
for w in "${want[@]}"; do
	if grep -qxF -- "$w" "$flat"; then
		t_pass "tiny.trace: $w"
	else
		t_fail "tiny.trace: $w" "not in the decoded output"
	fi
done
# The dump's own lines for those events, so a change of tiny.trace shows here.
for line in '^0 +Sched change +1700000000 000035673 +0 +24 +IN : 0; OUT : 100; STATE : 0$' \
	'^0 +Syscall exit +1700000000 000023846 +100 +16 +RET : -2$' \
	'^0 +File system +1700000000 000615967 +1002 +48 +EXEC : /usr/bin/child-1002$'; do
	t_check "tiny.dump.txt has /$line/" grep -Eq -- "$line" "$data/tiny.dump.txt"
done

# Bad input and output: exit status 1, the message, no output left behind.
"$synth" --events 4000 --cpus 3 --processes 4 --seed 21 --corrupt block-magic \
	-o "$tmp/corrupt" >/dev/null 2>&1
t_run_expect "corrupt trace: exit 1, the offset named" 1 \
	"^traceconvert: .*corrupt.trace: offset [0-9]+ \(0x[0-9a-f]+\): bad block magic$" \
	"$tc" --to perfetto "$tmp/corrupt.trace" "$tmp/corrupt.proc" "$tmp/corrupt.pf"
t_check "corrupt trace: no output file" test ! -e "$tmp/corrupt.pf"
t_run_expect "missing trace: exit 1" 1 "nope.trace: .*cannot open: No such file" \
	"$tc" --to perfetto "$tmp/nope.trace" "$data/tiny.proc" "$tmp/nope.pf"
printf 'PID: x\n' >"$tmp/bad.proc"
t_run_expect "malformed .proc: exit 1, file and line" 1 "bad.proc:1: " \
	"$tc" --to perfetto "$data/tiny.trace" "$tmp/bad.proc" "$tmp/badproc.pf"
t_check "malformed .proc: no output file" test ! -e "$tmp/badproc.pf"
t_run_expect "unwritable output: exit 1" 1 "cannot create Perfetto output $tmp/no/dir.pf" \
	"$tc" --to perfetto "$data/tiny.trace" "$data/tiny.proc" "$tmp/no/dir.pf"
ln -s "$tmp/elsewhere" "$tmp/link.pf"
t_run_expect "output through a symbolic link refused" 1 "refusing to write Perfetto output .*symbolic link" \
	"$tc" --to perfetto "$data/tiny.trace" "$data/tiny.proc" "$tmp/link.pf"
t_check "nothing written through the link" test ! -e "$tmp/elsewhere"
t_check "output is private (0600)" bash -c "[[ \$(stat -c %a '$tmp/tiny.trace.pf') == 600 ]]"

t_summary
