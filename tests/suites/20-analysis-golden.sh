#!/usr/bin/env bash
# traceanalyze and ltt-synth end to end: golden reports of the committed
# traces in tests/data, ltt-synth's --expect figures reproduced exactly by
# traceanalyze --json, bad traces (exit status AND message naming the
# offset), a truncated trace analyzed with a warning, and the CLI contract.
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

# golden NAME EXPECTED-FILE ARGS...: runs in $golden_dir (tests/data, or the
# version 2 copies below) so paths are relative; compares with tests/data's.
golden_dir=$data
golden() {
	local name=$1 want=$2; shift 2
	local out
	out="$tmp/$(basename "$want")"
	if (cd "$golden_dir" && "$ta" "$@" >"$out" 2>"$out.err"); then
		if cmp -s "$out" "$data/$want"; then
			t_pass "$name"
		else
			t_fail "$name" "$(diff "$data/$want" "$out" | head -n 8)"
		fi
	else
		t_fail "$name" "exit status $?: $(head -c 300 "$out.err")"
	fi
}
# NAME|EXPECTED-FILE|ARGS (ARGS split on spaces).
goldens=(
	"report -a -s (small)|small.report.txt|-a -s small.trace small.proc"
	"report --json (small)|small.json|--json small.trace small.proc"
	"report with lost events (banner first)|lost.report.txt|-a -s lost.trace lost.proc"
	"dump -d (tiny)|tiny.dump.txt|-d tiny.trace tiny.proc"
	"dump -c 1 -t TYPES|small.dump-cpu1.txt|-d -c 1 -t syscall_entry,syscall_exit,schedchange small.trace small.proc"
	"summary -p -o TYPES|small.summary-omit.txt|-s -p 101 -o file_system small.trace small.proc"
	"analysis -p PID|small.pid100.txt|-a -p 100 small.trace small.proc"
	"real trace from the VM: report|vm-sh.report.txt|-a -s vm-sh.trace vm-sh.proc"
	"real trace from the VM: --json|vm-sh.json|--json vm-sh.trace vm-sh.proc"
	# Names from the trace and the .proc holding control characters, a
	# backslash and bytes that are not UTF-8 (tests/tools/craft-trace.py
	# names): escaped in text, valid JSON.
	"hostile names: report -a -s escaped|names.report.txt|-a -s names.trace names.proc"
	"hostile names: dump -d escaped|names.dump.txt|-d names.trace names.proc"
	"hostile names: --json|names.json|--json names.trace names.proc"
	# small.trace as traced with system calls masked out (craft-trace.py
	# mask-syscalls): every syscall figure says "masked out at trace time" / null.
	"syscalls masked: report -a -s|masked.report.txt|-a -s masked.trace small.proc"
	"syscalls masked: --json|masked.json|--json masked.trace small.proc"
	# Kernel-state variables (ltt-synth --vars, format 2): VARS records
	# described, system calls shown strace-style at their exits, and the
	# JSON event dump with the arguments and variables.
	"variables: dump -d strace-style|vars.dump.txt|-d vars.trace vars.proc"
	"variables: --json -d event dump|vars.json|--json -d vars.trace vars.proc"
	# Application events (ltt-synth --user-events, format 2): user streams
	# merged by time with the CPUs, by name with their fields, counted per
	# process and name, their lost events apart from the kernel's.
	"user events: dump -d|user.dump.txt|-d user.trace user.proc"
	"user events: --json -d|user.json|--json -d user.trace user.proc"
	"user events: report -a -s|user.report.txt|-a -s user.trace user.proc"
)
for g in "${goldens[@]}"; do
	IFS='|' read -r name want args <<<"$g"
	# shellcheck disable=SC2086 # ARGS are words
	golden "$name" "$want" $args
done

# The same goldens from the committed (version 1) traces re-encoded in format
# version 2 (ltt-synth --recode-v2): byte-identical reports. Only vm-sh.trace
# differs, where the re-encoding writes a heartbeat before each record more
# than 2^27 ticks after the one before (the version 2 producer's rule): its
# heartbeat count, and the event totals that include them, are higher by
# the same number; everything else is identical (checked below). No report
# prints a file offset or a record size of a whole trace.
v2=$tmp/v2
mkdir -p "$v2"
cp "$data"/*.proc "$v2/"
for t in small lost tiny vm-sh names masked; do
	t_check "recode $t.trace to version 2" "$synth" --recode-v2 "$data/$t.trace" "$v2/$t.trace"
done
cp "$data/vars.trace" "$data/user.trace" "$v2/" # written in version 2 already
golden_dir=$v2
for g in "${goldens[@]}"; do
	IFS='|' read -r name want args <<<"$g"
	[[ $args == *vm-sh* ]] && continue
	# shellcheck disable=SC2086 # ARGS are words
	golden "version 2: $name" "$want" $args
done
golden_dir=$data
# vm-sh: identical but for the added heartbeats.
t_check "version 2: real trace from the VM: --json equal but for added heartbeats" bash -c "
	cd '$v2' && '$ta' --json vm-sh.trace vm-sh.proc >vm.json &&
	jq -e --slurpfile a '$data/vm-sh.json' '
		(.event_counts.heartbeat - \$a[0].event_counts.heartbeat) as \$extra |
		\$extra > 0 and .trace.events - \$a[0].trace.events == \$extra and
		([.system.cpus[].events] | add) - ([\$a[0].system.cpus[].events] | add) == \$extra and
		(del(.event_counts.heartbeat, .trace.events, .system.cpus[].events) ==
		 (\$a[0] | del(.event_counts.heartbeat, .trace.events, .system.cpus[].events)))' vm.json"
t_check "version 2: real trace from the VM: report equal but for the event counts" bash -c "
	cd '$v2' && '$ta' -a -s vm-sh.trace vm-sh.proc >vm.txt &&
	diff '$data/vm-sh.report.txt' vm.txt | grep '^[<>]' |
		grep -Ev '^[<>] (Events: |  Heartbeat |  (0|1|all) )' | wc -l | grep -qx 0 &&
	! cmp -s '$data/vm-sh.report.txt' vm.txt"
t_run_expect "--recode-v2 refuses a version 2 trace" 1 "format version 2, not 1" \
	"$synth" --recode-v2 "$v2/small.trace" "$tmp/again.trace"
t_run_expect "--recode-v2 needs OUT" 2 "OUT is required" "$synth" --recode-v2 "$data/small.trace"

t_check "hostile names: no control character in text output" bash -c \
	"cd '$data' && ! '$ta' -a -s -d names.trace names.proc | tr -d '\n' | grep -q '[[:cntrl:]]'"
t_check "hostile names: --json is strict UTF-8 JSON" python3 -c \
	"import json, sys; json.loads(open(sys.argv[1], 'rb').read().decode('utf-8'))" "$data/names.json"

t_check "user events: ltt_mark shows as name and text" \
	grep -q ' ltt_mark text="phase 2 begins"$' "$data/user.dump.txt"
t_check "user events: a string with a quote, a backslash, a newline and a tab, escaped" \
	grep -qF 'path="/srv/\"quoted\" a\\b\n\ttab"' "$data/user.dump.txt"
t_check "user events: --json -d has name and typed fields, per-process counts" \
	jq -e '([.events[] | select(.event == "user" and .subtype == "EVENT")] | length) == .trace.user_events
	       and ([.events[] | select(.name == "request")][0].fields | (.id | type) == "number"
	            and (.ratio | type) == "number" and (.path | type) == "string")
	       and (.trace.user_lost_events == 3)
	       and ([.processes[] | select(.pid == 100)][0].user_events == {"ltt_mark": 1, "request": 16})' \
	"$data/user.json"
t_check "lost-events banner is the first line" \
	grep -qm1 '^!!!!' <(head -n 1 "$data/lost.report.txt")
t_check "--json is valid JSON with the documented keys" \
	jq -e '.trace.start_ns and .trace.end_ns and .trace.duration_ns and .trace.cpus and .trace.events
	       and (.trace.lost_events == 0) and .event_counts.syscall_entry and (.processes | length > 0)
	       and (.processes[0] | has("syscall_table") and has("time_io_wait_ns") and has("sched_in"))
	       and (.system | has("user_ns") and has("kernel_ns") and has("irq_ns") and has("idle_ns"))' \
	"$data/small.json"

# The committed expectations and a few fresh configurations: every figure
# ltt-synth promises, traceanalyze reproduces exactly.
for base in small lost; do
	t_check "--expect figures reproduced ($base)" bash -c \
		"cd '$data' && '$ta' --json $base.trace $base.proc >'$tmp/$base.json' &&
		 '$root/tests/tools/compare-expect.sh' $base.expect.json '$tmp/$base.json'"
done
for args in "--events 20000 --cpus 4 --processes 8 --seed 11" \
	"--events 50000 --cpus 1 --processes 3 --seed 12" \
	"--events 30000 --cpus 3 --processes 5 --lost 500 --seed 13" \
	"--events 20000 --cpus 16 --processes 40 --seed 14" \
	"--events 30000 --cpus 24 --processes 30 --lost 300 --seed 15" \
	"--events 20000 --cpus 2 --processes 4 --lost 400 --seed 16 --vars all"; do
	t_check "ltt-synth $args: analysis = --expect" bash -c \
		"'$synth' $args -o '$tmp/s' --expect >'$tmp/s.expect' &&
		 '$ta' --json '$tmp/s.trace' '$tmp/s.proc' >'$tmp/s.json' &&
		 '$root/tests/tools/compare-expect.sh' '$tmp/s.expect' '$tmp/s.json'"
done
t_check "ltt-synth is deterministic" bash -c \
	"'$synth' --events 5000 --cpus 2 --processes 3 --seed 9 -o '$tmp/d1' &&
	 '$synth' --events 5000 --cpus 2 --processes 3 --seed 9 -o '$tmp/d2' &&
	 cmp '$tmp/d1.trace' '$tmp/d2.trace' && cmp '$tmp/d1.proc' '$tmp/d2.proc'"

# Bad traces: exit 1 and a message naming the file and the offset of the
# damaged field (recorded by ltt-synth --corrupt when they were made).
declare -A why=(
	[magic]="not an ltt trace \(bad magic\)"
	[version]="unsupported format version 99"
	[block-magic]="bad block magic"
	[block-length]="bad block length 77"
	[cpu]="block CPU 63 >= CPU count 2"
	[record-size]="bad record size 12"
	[block-end]="block does not end with a BLOCK_END record"
	# Damage followed by further whole blocks is corruption, not a tail
	# (tests/tools/craft-trace.py middle-zeros, middle-length).
	[middle-zeros]="expected BLOCK_START record, found event id 0"
	[middle-length]="bad block length 1048576"
)
for kind in "${!why[@]}"; do
	off=$(cat "$data/bad/$kind.offset")
	t_run_expect "bad trace: $kind" 1 \
		"^traceanalyze: bad/$kind.trace: offset $off \(0x[0-9a-f]+\): ${why[$kind]}$" \
		bash -c "cd '$data' && '$ta' -a -s bad/$kind.trace small.proc"
done
# Fresh corruptions of a different trace, every kind: the offset ltt-synth
# reports is the one traceanalyze names.
# Both format versions (version 2's record-size damage: an EXT record of 6
# bytes).
for format in 1 2; do
	for kind in magic version block-magic block-length cpu record-size block-end; do
		off=$("$synth" --events 4000 --cpus 3 --processes 4 --seed 21 --format $format \
			--corrupt "$kind" -o "$tmp/c" --expect | jq -r .corrupt.offset)
		t_run_expect "fresh corruption $kind (format $format) names offset $off" 1 \
			"$tmp/c.trace: offset $off \(" "$ta" --json "$tmp/c.trace" "$tmp/c.proc"
	done
done
t_run_expect "fresh corruption record-size (format 2): EXT of 6 bytes" 1 \
	": bad record size 6$" bash -c "'$synth' --events 4000 --cpus 3 --processes 4 --seed 21 \
	--corrupt record-size -o '$tmp/c' && '$ta' -s '$tmp/c.trace' '$tmp/c.proc'"
off=$(cat "$data/bad/truncate.offset")
t_run_expect "truncated trace: warning with offset, exit 0" 0 \
	"^traceanalyze: warning: bad/truncate.trace: offset $off .*last block is cut short" \
	bash -c "cd '$data' && '$ta' -s bad/truncate.trace small.proc"
t_run_expect "truncated trace: report says where it stopped" 0 \
	"Truncated:  the file ends inside a block at offset $off" \
	bash -c "cd '$data' && '$ta' -s bad/truncate.trace small.proc 2>/dev/null"
t_run_expect "truncated trace: --json truncated_at" 0 "\"truncated_at\": $off" \
	bash -c "cd '$data' && '$ta' --json bad/truncate.trace small.proc 2>/dev/null"
t_run_expect "killed producer (no final block): warning names the CPU" 0 \
	"^traceanalyze: warning: bad/truncate.trace: offset $off .*trace did not end cleanly: no final block for CPU 1 " \
	bash -c "cd '$data' && '$ta' -s bad/truncate.trace small.proc"
t_run_expect "killed producer: --json ended_cleanly false" 0 '"ended_cleanly": false' \
	bash -c "cd '$data' && '$ta' --json bad/truncate.trace small.proc 2>/dev/null"
# Power-cut tails (tests/tools/craft-trace.py tail-*): zeros, garbage or a
# half-written block after the last whole block of tiny.trace. A warning
# naming the offset where the whole blocks end, exit 0, and the analysis of
# everything before it, identical to tiny.trace's.
(cd "$data" && "$ta" -a tiny.trace tiny.proc >"$tmp/tiny.a" 2>/dev/null)
declare -A tail=(
	[tail-zeros]="trace ends in 4096 zero bytes after the last whole block"
	[tail-garbage]="trace ends in 3000 bytes that hold no whole block \(expected BLOCK_START record, found event id 79\)"
	[tail-partial]="trace ends in 4096 bytes that hold no whole block \(block does not end with a BLOCK_END record\)"
)
for kind in "${!tail[@]}"; do
	off=$(cat "$data/bad/$kind.offset")
	t_run_expect "power-cut tail $kind: warning with offset, exit 0" 0 \
		"^traceanalyze: warning: bad/$kind.trace: offset $off \(0x[0-9a-f]+\): ${tail[$kind]}; analyzed up to here$" \
		bash -c "cd '$data' && '$ta' -a bad/$kind.trace tiny.proc"
	t_check "power-cut tail $kind: the analysis of the whole blocks" bash -c \
		"cd '$data' && '$ta' -a bad/$kind.trace tiny.proc 2>/dev/null | cmp - '$tmp/tiny.a'"
	t_run_expect "power-cut tail $kind: report says where it stopped" 0 \
		"^Truncated:  no whole block from offset $off to the end of the file; analyzed up to there$" \
		bash -c "cd '$data' && '$ta' -s bad/$kind.trace tiny.proc 2>/dev/null"
	t_run_expect "power-cut tail $kind: --json truncated_at" 0 "\"truncated_at\": $off" \
		bash -c "cd '$data' && '$ta' --json bad/$kind.trace tiny.proc 2>/dev/null"
done
# A block of nearly 4 GiB (the header's max_block 0) whose record sizes wrap
# a 32-bit offset back to its first record, followed by a whole block: a
# sparse file of 4 GiB made by craft-trace.py wrap. The length is out of
# bounds, and the block is not the tail: an error naming the length field.
if off=$(python3 "$root/tests/tools/craft-trace.py" wrap "$tmp/wrap.trace" 2>"$tmp/wrap.err"); then
	for args in -s -d --json; do
		t_run_expect "4 GiB block whose record offsets wrap ($args): error, no hang" 1 \
			"^traceanalyze: $tmp/wrap.trace: offset $off \(0x[0-9a-f]+\): bad block length 4294967288$" \
			bash -c "timeout 60 '$ta' $args '$tmp/wrap.trace' >/dev/null"
	done
	rm -f "$tmp/wrap.trace"
else
	t_skip "4 GiB block whose record offsets wrap" "cannot write a sparse 4 GiB file: $(head -c 200 "$tmp/wrap.err")"
fi
head -c 100 "$data/small.trace" >"$tmp/short.trace"
t_run_expect "trace shorter than its header" 1 \
	"short.trace: offset 0 \(0x0\): file too short for a trace header \(100 bytes, need 320\)" \
	"$ta" "$tmp/short.trace"
: >"$tmp/empty.trace"
t_run_expect "empty file" 1 "empty.trace: offset 0 .*file too short" "$ta" "$tmp/empty.trace"
t_run_expect "missing trace file" 1 "nope.trace: offset 0 \(0x0\): cannot open: No such file or directory" \
	"$ta" "$tmp/nope.trace" "$data/small.proc"
t_run_expect "directory as trace" 1 "cannot open: not a regular file" "$ta" "$tmp"
printf 'PID: 1; PPID: 0; NAME: init\nPID: 2; NAME: x\n' >"$tmp/bad.proc"
t_run_expect "bad .proc line names file and line" 1 "^traceanalyze: $tmp/bad.proc:2: PID line without PPID$" \
	"$ta" "$data/small.trace" "$tmp/bad.proc"
# A .proc whose last line was cut (a crash while it was written): no newline
# at the end, so the line may have lost fields or digits. Ignored with a
# warning naming the file and line; the lines before it are used.
printf 'PID: 1; PPID: 0; NAME: init\nPID: 2; PP' >"$tmp/cut1.proc"
printf 'PID: 1; PPID: 0; NAME: init\nPID: 100; PPID: 1; NAME: bas' >"$tmp/cut2.proc"
printf 'PID: 1; PPID: 0; NAME: init\n\0\0\0\0\0\0\0\0' >"$tmp/cut3.proc"
for k in 1 2 3; do
	t_run_expect "cut last .proc line ($k): warning, exit 0" 0 \
		"^traceanalyze: warning: $tmp/cut$k.proc:2: last line is cut short \(no newline at the end of the file\); ignored$" \
		"$ta" -a "$data/small.trace" "$tmp/cut$k.proc"
done
t_run_expect "cut last .proc line: the task it named is unknown" 0 "unknown \(100\)" \
	"$ta" -a "$data/small.trace" "$tmp/cut2.proc"

# Events masked out at trace time: said so, never printed as zeros. The
# header's event mask of a copy of small.trace loses syscalls and
# file-system events (offset 64, little-endian).
cp "$data/small.trace" "$tmp/masked.trace"
printf '\xf9\xf7\x3f\x00\x00\x00\x00\x00' | dd of="$tmp/masked.trace" bs=1 seek=64 conv=notrunc status=none
t_run_expect "masked events: header line" 0 "^Masked out at trace time: system calls, file-system events$" \
	"$ta" -s "$tmp/masked.trace" "$data/small.proc"
t_run_expect "masked events: per-process figures" 0 "Number of system calls: +masked out at trace time" \
	"$ta" -a "$tmp/masked.trace" "$data/small.proc"
t_run_expect "masked events: syscall accounting" 0 "System call accounting : masked out at trace time" \
	"$ta" -a "$tmp/masked.trace" "$data/small.proc"
t_check "masked events: JSON nulls and masked_out" bash -c \
	"'$ta' --json '$tmp/masked.trace' '$data/small.proc' | jq -e '
	   (.masked_out == [\"system calls\", \"file-system events\"]) and
	   ([.processes[] | select(.syscalls != null or .bytes_read != null or .syscall_table != null)] | length == 0) and
	   (.processes[] | select(.pid == 100) | .time_running_ns > 0)'"

# CLI contract.
t_run_expect "--help" 0 "^usage: traceanalyze \[options\] TRACE \[PROC \[OUT\]\]" "$ta" --help
t_run_expect "--version" 0 "^traceanalyze \(ltt\) [0-9]+\.[0-9]+" "$ta" --version
t_run_expect "unknown option" 2 "usage: traceanalyze" "$ta" --frobnicate "$data/small.trace"
t_run_expect "no arguments" 2 "missing TRACE file" "$ta"
t_run_expect "too many arguments" 2 "too many arguments" "$ta" a b c d
t_run_expect "unknown event type: tracedaemon's message" 2 \
	"^traceanalyze: unknown event 'bogus' for -t; known events: START,SYS_ENTRY,.*,CORE,ALL,NONE$" \
	"$ta" -t bogus "$data/small.trace"
t_run_expect "unknown event type in -o" 2 "^traceanalyze: unknown event 'FSX' for -o; known events: " \
	"$ta" -o FS,FSX "$data/small.trace"
# -o/-t read tracedaemon -e's names and groups.
t_check "-t FS: the same counts as -t file_system" bash -c \
	"cd '$data' && '$ta' -s -t FS small.trace small.proc >'$tmp/fs1' &&
	 '$ta' -s -t file_system small.trace small.proc >'$tmp/fs2' && cmp '$tmp/fs1' '$tmp/fs2' &&
	 grep -q '^  File system  *[0-9]' '$tmp/fs1' && ! grep -q '^  Sched change' '$tmp/fs1'"
t_check "-o CORE: no core event counted, the others kept" bash -c \
	"cd '$data' && '$ta' -s -o CORE small.trace small.proc >'$tmp/core' &&
	 ! grep -Eq '^  (Syscall|Trap|IRQ|Sched change|Kernel timer|Soft IRQ)' '$tmp/core' &&
	 grep -q '^  File system ' '$tmp/core' && grep -q '^  Process ' '$tmp/core'"
t_check "--json -t FS: only file_system in event_counts" bash -c \
	"cd '$data' && '$ta' --json -t FS small.trace small.proc | jq -e '.event_counts | keys == [\"file_system\"]'"
t_run_expect "bad --cpu" 2 "bad CPU \"x\"" "$ta" --cpu x "$data/small.trace"
t_run_expect "no PROC: warning, processes unknown" 0 "warning: no PROC file" "$ta" -s "$data/small.trace"
t_check "OUT argument receives the report" bash -c \
	"cd '$data' && '$ta' -a -s small.trace small.proc '$tmp/out.txt' && cmp '$tmp/out.txt' small.report.txt"
t_check "long options equal short ones" bash -c \
	"cd '$data' && '$ta' --analyze --summarize small.trace small.proc | cmp - small.report.txt"
t_check "no progress or chatter on stderr when not a terminal" bash -c \
	"cd '$data' && '$ta' -a -s small.trace small.proc 2>'$tmp/err' >/dev/null && ! test -s '$tmp/err'"
t_run_expect "ltt-synth --help" 0 "usage: ltt-synth --events N --cpus C --processes P" "$synth" --help
t_run_expect "ltt-synth needs -o" 2 "-o PREFIX is required" "$synth" --events 10
t_run_expect "ltt-synth bad --cpus" 2 "--cpus must be 1..64" "$synth" --cpus 0 -o "$tmp/x"
t_run_expect "ltt-synth bad --format" 2 "bad --format \"3\" \(1 or 2\)" "$synth" --format 3 -o "$tmp/x"
t_check "ltt-synth --format 1 writes a version 1 trace, 2 (the default) version 2" bash -c "
	'$synth' --events 2000 --format 1 -o '$tmp/f1' && '$synth' --events 2000 -o '$tmp/f2' &&
	[[ \$(od -An -tu2 -j12 -N2 '$tmp/f1.trace') -eq 1 && \$(od -An -tu2 -j12 -N2 '$tmp/f2.trace') -eq 2 ]]"
t_check "ltt-synth --format 1: analysis = --expect" bash -c "
	'$synth' --events 20000 --cpus 3 --seed 4 --format 1 -o '$tmp/g1' --expect >'$tmp/g1.expect' &&
	'$ta' --json '$tmp/g1.trace' '$tmp/g1.proc' >'$tmp/g1.json' &&
	'$root/tests/tools/compare-expect.sh' '$tmp/g1.expect' '$tmp/g1.json'"
t_run_expect "ltt-synth unknown corruption" 1 "unknown corruption kind \"nope\"" \
	"$synth" --events 3000 --corrupt nope -o "$tmp/x"
t_summary
