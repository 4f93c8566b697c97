#!/usr/bin/env bash
# traceconvert --to ctf end to end: babeltrace2 reads every converted trace
# (the committed traces in tests/data, the real one recorded in the VM
# among them, and fresh ltt-synth traces: format versions 1 and 2, one to
# four CPUs, lost events, a truncated end, bytes after the last whole
# block) with exit 0, and shows per ltt event type exactly traceanalyze
# --json's count less what traceconvert says it dropped by rule, every
# lost event as discarded, and every kept event at its time on its CPU
# (tests/tools/convert_ctf_counts.py);
# field values and wall-clock times of a small trace against known values;
# the CLI contract (usage errors exit 2, bad input exit 1 naming the file
# and offset, existing output refused, private output modes).
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/tests/lib/sh-test.sh"
build=$root/${BUILD:-build}
[[ ${BUILD:-build} == /* ]] && build=${BUILD}
tc=$build/bin/traceconvert ta=$build/bin/traceanalyze synth=$build/bin/ltt-synth
data=$root/tests/data
counts=$root/tests/tools/convert_ctf_counts.py
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [[ ! -x $tc || ! -x $ta || ! -x $synth ]]; then
	t_fail "traceconvert, traceanalyze and ltt-synth built" "missing in $build/bin (run make)"
	t_summary
	exit
fi
# Without babeltrace2 nothing says the output is CTF: a failure, never a skip.
bt=$(command -v babeltrace2 || true)
if [[ -z $bt ]]; then
	t_fail "babeltrace2 installed" \
		"babeltrace2 not found: scripts/install-deps.sh installs it (Debian package babeltrace2)"
fi

# check_trace NAME TRACE PROC: converts, has babeltrace2 read the result and
# compares its events with traceanalyze's counts and dump.
check_trace() {
	local name=$1 trace=$2 proc=$3 out=$tmp/ctf-$RANDOM$RANDOM
	if ! "$tc" --to ctf "$trace" "$proc" "$out" 2>"$out.sum"; then
		t_fail "$name: converts" "$(head -c 400 "$out.sum")"
		return
	fi
	t_pass "$name: converts ($(grep -o '[0-9]* events read.*' "$out.sum" | head -c 120))"
	[[ -n $bt ]] || return
	if ! "$bt" --no-delta --fields=loglevel --clock-seconds "$out" >"$out.bt" 2>"$out.bterr"; then
		t_fail "$name: babeltrace2 reads it" "$(head -c 400 "$out.bterr")"
		return
	fi
	t_pass "$name: babeltrace2 reads it (exit 0)"
	"$ta" --json "$trace" "$proc" >"$out.json" 2>/dev/null
	"$ta" -d "$trace" "$proc" >"$out.dump" 2>/dev/null
	t_check "$name: per-type counts, lost events, times and CPUs match traceanalyze" \
		python3 "$counts" "$out.json" "$out.bt" "$out.bterr" "$out.sum" "$out.dump"
}

# ------------------------------------------------------------ the traces
for t in tiny small lost vm-sh names; do
	check_trace "tests/data/$t.trace" "$data/$t.trace" "$data/$t.proc"
done
check_trace "tests/data/masked.trace (syscalls masked)" "$data/masked.trace" "$data/small.proc"

# NAME|ltt-synth arguments
synths=(
	"synth v2, 4 CPUs|--events 60000 --cpus 4 --processes 12 --seed 1"
	"synth v1, 3 CPUs|--events 40000 --cpus 3 --processes 9 --seed 2 --format 1"
	"synth v2, 1 CPU|--events 20000 --cpus 1 --processes 5 --seed 3"
	"synth v2, 2 CPUs, 700 lost|--events 40000 --cpus 2 --processes 6 --seed 4 --lost 700"
	"synth v1, 4 CPUs, 300 lost|--events 40000 --cpus 4 --processes 8 --seed 5 --lost 300 --format 1"
)
for s in "${synths[@]}"; do
	IFS='|' read -r name args <<<"$s"
	# shellcheck disable=SC2086 # args are words
	"$synth" $args -o "$tmp/s" >/dev/null
	check_trace "$name" "$tmp/s.trace" "$tmp/s.proc"
done

# A trace cut short: a warning naming the offset, what is whole converted.
for format in 1 2; do
	off=$("$synth" --events 30000 --cpus 3 --processes 6 --seed 6 --format $format \
		--corrupt truncate -o "$tmp/cut" --expect | jq -r .corrupt.offset)
	t_run_expect "truncated trace (format $format): warning naming the offset, exit 0" 0 \
		"^traceconvert: warning: $tmp/cut.trace: offset [0-9]+ \(0x[0-9a-f]+\): last block is cut short" \
		"$tc" --to ctf "$tmp/cut.trace" "$tmp/cut.proc" "$tmp/cut$format.ctf"
	t_run_expect "truncated trace (format $format): the summary says so" 0 \
		"lost by the tracer; .*\(trace cut short\)$" \
		"$tc" --to ctf --force "$tmp/cut.trace" "$tmp/cut.proc" "$tmp/cut$format.ctf"
	check_trace "truncated trace (format $format, cut at $off)" "$tmp/cut.trace" "$tmp/cut.proc"
done

# Bytes after the last whole block that hold no block (a power cut's zeros,
# garbage, a block started but never written): a warning, what is whole.
for kind in tail-zeros tail-garbage tail-partial; do
	off=$(cat "$data/bad/$kind.offset")
	t_run_expect "$kind: warning naming offset $off, exit 0" 0 \
		"^traceconvert: warning: bad/$kind.trace: offset $off \(0x" \
		bash -c "cd '$data' && '$tc' --to ctf bad/$kind.trace small.proc '$tmp/$kind.ctf'"
	check_trace "$kind" "$data/bad/$kind.trace" "$data/small.proc"
done

# --------------------------------------------- known values, tiny.trace
# tiny.dump.txt (traceanalyze -d) gives the times and details these come
# from; the names from tiny.proc; the wall clock from the trace header's
# anchor (1700000000 s).
if [[ -n $bt ]]; then
	"$tc" --to ctf "$data/tiny.trace" "$data/tiny.proc" "$tmp/tiny" 2>/dev/null
	"$bt" --no-delta --fields=loglevel --clock-seconds "$tmp/tiny" >"$tmp/tiny.bt" 2>&1
	known=(
		'[1700000000.000001000] lttng_statedump_process_state: { cpu_id = 0 }, { tid = 100, pid = 100, ppid = 1, name = "worker-0", type = 0, mode = 0, submode = 0, status = 5, cpu = 0, file_table_address = 0x0 }'
		'[1700000000.000001000] lttng_statedump_process_state: { cpu_id = 0 }, { tid = 2, pid = 2, ppid = 0, name = "kthreadd", type = 1, mode = 5, submode = 0, status = 5, cpu = 0, file_table_address = 0x0 }'
		'[1700000000.000001000] lttng_statedump_interrupt: { cpu_id = 0 }, { irq = 14, name = "", action = "ata_piix" }'
		'[1700000000.000001000] ltt_trace_start: { cpu_id = 0 }, { tsc_khz = 3000000, anchor_tsc = 1000000000, anchor_realtime_ns = 1700000000000000000, event_mask = 0x21FFFE, details_mask = 0x21FFFE }'
		'[1700000000.000004543] syscall_entry_read: { cpu_id = 0 }, { }'
		'[1700000000.000004780] ltt_file_system: { cpu_id = 0 }, { subtype = ( "READ" : container = 5 ), fd = 3, aux = 0, arg = 3696, name = "" }'
		'[1700000000.000005196] syscall_exit_read: { cpu_id = 0 }, { ret = 3696 }'
		'[1700000000.000023846] syscall_exit_open: { cpu_id = 0 }, { ret = -2 }'
		'[1700000000.000035673] sched_switch: { cpu_id = 0 }, { prev_comm = "worker-0", prev_tid = 100, prev_prio = 20, prev_state = 0, next_comm = "swapper/0", next_tid = 0, next_prio = 20 }'
		'[1700000000.000038372] irq_handler_entry: { cpu_id = 0 }, { irq = 0, name = "timer" }'
		'[1700000000.000040263] ltt_kernel_timer: { cpu_id = 0 }, { }'
		'[1700000000.000040263] irq_handler_exit: { cpu_id = 0 }, { irq = 0, ret = 1 }'
		'[1700000000.000040263] sched_switch: { cpu_id = 0 }, { prev_comm = "swapper/0", prev_tid = 0, prev_prio = 20, prev_state = 0, next_comm = "worker-0", next_tid = 100, next_prio = 20 }'
	)
	for k in "${known[@]}"; do
		if grep -qxF -- "$k" "$tmp/tiny.bt"; then
			t_pass "tiny: ${k:0:60}..."
		else
			t_fail "tiny: $k" "not in babeltrace2's output"
		fi
	done
	t_check "tiny: wall clock (UTC) from the header's anchor" \
		grep -q '^\[22:13:20.000035673\] (+[0-9.?]*) synth sched_switch:' \
		<("$bt" --clock-gmt "$tmp/tiny")
	# A fork, an exec renaming the child, and the child's name in later
	# switches (small.trace: worker-1 forks 1000).
	"$tc" --to ctf "$data/small.trace" "$data/small.proc" "$tmp/small" 2>/dev/null
	"$bt" --no-delta --fields=loglevel --clock-seconds "$tmp/small" >"$tmp/small.bt" 2>&1
	t_check "small: fork names the child after its parent" grep -qF \
		'sched_process_fork: { cpu_id = 1 }, { parent_comm = "worker-1", parent_tid = 101, parent_pid = 101, parent_ns_inum = 0, child_comm = "worker-1", child_tid = 1000,' \
		"$tmp/small.bt"
	exec_line=$(grep -m1 'sched_process_exec:' "$tmp/small.bt")
	exec_tid=$(sed -E 's/.* tid = ([0-9]+),.*/\1/' <<<"$exec_line")
	exec_base=$(sed -E 's/.*filename = "([^"]*)".*/\1/' <<<"$exec_line")
	exec_base=${exec_base##*/}
	t_check "small: after exec, tid $exec_tid switches as \"${exec_base:0:15}\"" grep -qE \
		"sched_switch: .*_comm = \"${exec_base:0:15}\", (prev|next)_tid = $exec_tid," "$tmp/small.bt"
fi
meta=$tmp/tiny/metadata
t_check "metadata: plain text CTF 1.8" grep -qx '/\* CTF 1.8 \*/' "$meta"
for kv in 'domain = "kernel";' 'tracer_name = "lttng-modules";' 'tracer_major = 2;' \
	'tracer_minor = 13;' 'sysname = "Linux";' 'hostname = "synth";' \
	'kernel_release = "6.1.0-synthetic";' 'offset_s = 1700000000;' 'freq = 1000000000;' \
	'uint32_t cpu_id;' 'unsigned long events_discarded;' 'uint64_t packet_seq_num;'; do
	t_check "metadata: $kv" grep -qF -- "$kv" "$meta"
done
t_check "same trace, same bytes (deterministic)" bash -c \
	"'$tc' --to ctf '$data/tiny.trace' '$data/tiny.proc' '$tmp/tiny2' 2>/dev/null &&
	 diff -r '$tmp/tiny' '$tmp/tiny2'"

# ------------------------------------------------------------- the CLI
t_run_expect "--help: usage on stdout, exit 0" 0 "^usage: traceconvert --to ctf\|perfetto" \
	"$tc" --help
t_run_expect "--version" 0 "^traceconvert \(ltt\) " "$tc" --version
t_run_expect "no arguments: exit 2" 2 "^traceconvert: missing --to ctf\|perfetto" "$tc"
t_run_expect "unknown format: exit 2" 2 'unknown format "svg" \(--to takes ctf or perfetto\)' \
	"$tc" --to svg a b c
t_run_expect "unknown option: exit 2" 2 "unrecognized option" "$tc" --to ctf --frobnicate a b c
t_run_expect "missing OUTPUT: exit 2" 2 "^traceconvert: missing OUTPUT" \
	"$tc" --to ctf "$data/tiny.trace" "$data/tiny.proc"
t_run_expect "missing PROC: exit 2" 2 "^traceconvert: missing PROC file" \
	"$tc" --to ctf "$data/tiny.trace"
t_run_expect "too many arguments: exit 2" 2 "^traceconvert: too many arguments" \
	"$tc" --to ctf a b c d
t_run_expect "missing trace: exit 1 naming it" 1 "^traceconvert: .*$tmp/nope.trace.*No such file" \
	"$tc" --to ctf "$tmp/nope.trace" "$data/tiny.proc" "$tmp/o-nope"
t_check "missing trace: no output left" test ! -e "$tmp/o-nope"
for kind in magic block-magic block-length record-size; do
	off=$(cat "$data/bad/$kind.offset")
	t_run_expect "corrupt trace ($kind): exit 1 naming file and offset $off" 1 \
		"^traceconvert: bad/$kind.trace: offset $off \(0x" \
		bash -c "cd '$data' && '$tc' --to ctf bad/$kind.trace small.proc '$tmp/o-$kind'"
	t_check "corrupt trace ($kind): no output left" test ! -e "$tmp/o-$kind"
done
printf 'PID: x\n' >"$tmp/bad.proc"
t_run_expect "bad PROC: exit 1 naming file and line" 1 "^traceconvert: $tmp/bad.proc:1: " \
	"$tc" --to ctf "$data/tiny.trace" "$tmp/bad.proc" "$tmp/o-badproc"

# Progress: on a terminal only (script(1) gives one), for a long trace, and
# not with --no-progress.
# no_progress NAME CMD...: passes when CMD exits 0 and prints no progress.
no_progress() {
	local name=$1 out rc; shift
	out=$("$@" 2>&1); rc=$?
	if ((rc != 0)); then
		t_fail "$name" "exit status $rc: $(head -c 300 <<<"$out")"
	elif grep -q '%' <<<"$out"; then
		t_fail "$name" "a progress line: $(tr '\r' '\n' <<<"$out" | grep -m1 '%')"
	else
		t_pass "$name"
	fi
}
"$synth" --events 4500000 --cpus 2 --processes 8 --seed 8 -o "$tmp/long" >/dev/null
if command -v script >/dev/null; then
	t_run_expect "progress line on a terminal" 0 "traceconvert: +[0-9]+%" \
		script -qec "'$tc' --to ctf '$tmp/long.trace' '$tmp/long.proc' '$tmp/long1'" /dev/null
	no_progress "no progress line with --no-progress" \
		script -qec "'$tc' --no-progress --to ctf '$tmp/long.trace' '$tmp/long.proc' '$tmp/long2'" /dev/null
else
	t_fail "script(1) installed (util-linux)" "needed to give traceconvert a terminal"
fi
no_progress "no progress line when stderr is not a terminal" \
	"$tc" --to ctf "$tmp/long.trace" "$tmp/long.proc" "$tmp/long3"
rm -rf "$tmp"/long*

# Existing output: refused unless --force; --force replaces a converted
# trace (stale streams of more CPUs removed) but never writes into a
# directory of other files, through a symbolic link, or over a file.
"$synth" --events 8000 --cpus 4 --processes 4 --seed 7 -o "$tmp/four" >/dev/null
"$tc" --to ctf "$tmp/four.trace" "$tmp/four.proc" "$tmp/out" 2>/dev/null
t_run_expect "existing non-empty output: refused, exit 1" 1 \
	"^traceconvert: refusing to overwrite $tmp/out: it exists and is not empty \(--force replaces it\)$" \
	"$tc" --to ctf "$data/tiny.trace" "$data/tiny.proc" "$tmp/out"
t_check "refused output left as it was" test -f "$tmp/out/channel0_3"
t_run_expect "--force replaces an earlier conversion" 0 "events read" \
	"$tc" --to ctf --force "$data/tiny.trace" "$data/tiny.proc" "$tmp/out"
t_check "--force: the earlier trace's extra streams are gone" \
	bash -c "test ! -e '$tmp/out/channel0_3' && test ! -e '$tmp/out/channel0_1'"
[[ -n $bt ]] && t_check "--force: the result reads" "$bt" "$tmp/out"
mkdir "$tmp/empty"
t_run_expect "an existing empty directory is used" 0 "events read" \
	"$tc" --to ctf "$data/tiny.trace" "$data/tiny.proc" "$tmp/empty"
mkdir "$tmp/other" && echo keep >"$tmp/other/notes.txt"
t_run_expect "--force into a directory of other files: refused" 1 \
	"refusing to write $tmp/other: it holds notes.txt, which is not part of a converted trace" \
	"$tc" --to ctf --force "$data/tiny.trace" "$data/tiny.proc" "$tmp/other"
t_check "the other files are untouched" grep -qx keep "$tmp/other/notes.txt"
echo data >"$tmp/file"
t_run_expect "--force over a regular file: refused" 1 "refusing to write $tmp/file: not a directory" \
	"$tc" --to ctf --force "$data/tiny.trace" "$data/tiny.proc" "$tmp/file"
mkdir "$tmp/target"
ln -s "$tmp/target" "$tmp/link"
t_run_expect "output through a symbolic link: refused" 1 "refusing to write $tmp/link: not a directory" \
	"$tc" --to ctf --force "$data/tiny.trace" "$data/tiny.proc" "$tmp/link"
t_check "nothing written through the link" bash -c "test -z \"\$(ls -A '$tmp/target')\""

# Private output: directory 0700, files 0600, whatever the umask.
(umask 000 && "$tc" --to ctf "$data/tiny.trace" "$data/tiny.proc" "$tmp/priv" 2>/dev/null)
t_check "output directory mode 0700 (umask 000)" test "$(stat -c %a "$tmp/priv")" = 700
modes=$(stat -c %a "$tmp/priv"/* | sort -u | tr '\n' ' ')
t_check "output files mode 0600 (umask 000): $modes" test "$modes" = "600 "
chmod 755 "$tmp/empty"
"$tc" --to ctf --force "$data/tiny.trace" "$data/tiny.proc" "$tmp/empty" 2>/dev/null
t_check "an existing directory is made 0700" test "$(stat -c %a "$tmp/empty")" = 700

t_summary
