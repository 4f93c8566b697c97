#!/usr/bin/env bash
# traceview: the model's unit tests (gui/model, no toolkit, no display:
# traceview_model_tests), then under a virtual X display (Xvfb) the
# command-line behaviour and the self test (traceview-selftest, a program of
# its own: the shipped traceview holds no test code), which opens a
# committed trace, visits each tab, zooms, searches, filters and selects,
# checks the result structurally (rows, labels, counts) and saves
# screenshots in $BUILD/test-results/gui/. The GUI part is skipped, with a
# message, where gtkmm-4.0 or Xvfb is missing.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/tests/lib/sh-test.sh"
build=${BUILD:-build}
[[ $build == /* ]] || build=$root/$build
tv=$build/bin/traceview
selftest=$build/bin/traceview-selftest
data=$root/tests/gui/data
out=$build/test-results/gui

# The model: TraceDocument, FollowSession, GraphViewport (tests/unit/gui-model).
if [[ -x $build/bin/traceview_model_tests ]]; then
	t_gtest "$build/bin/traceview_model_tests"
else
	t_fail "traceview_model_tests built" "missing $build/bin/traceview_model_tests (run make)"
fi

if [[ ! -x $tv ]]; then
	if pkg-config --exists gtkmm-4.0 2>/dev/null; then
		t_fail "traceview is built" "gtkmm-4.0 is installed but $tv is missing"
	else
		t_skip "traceview" "gtkmm-4.0 not installed (scripts/install-deps.sh installs libgtkmm-4.0-dev)"
	fi
	t_summary
	exit
fi

t_run_expect "traceview --help prints the usage" 0 'usage: traceview \[--symfs DIR\] \[TRACE \[PROC\]\]' "$tv" --help
t_run_expect "--symfs needs a DIR" 2 'traceview: --symfs needs a DIR' "$tv" --symfs
t_run_expect "--symfs must be a directory" 2 'traceview: --symfs /nonexistent: not a directory' \
	"$tv" --symfs /nonexistent "$data/small.trace"
t_run_expect "unknown option is refused" 2 'unknown option --frobnicate' "$tv" --frobnicate
t_run_expect "--follow needs a TRACE" 2 'traceview: --follow needs a TRACE' "$tv" --follow
t_run_expect "no display: clear message" 3 'cannot open a display' \
	env -u DISPLAY -u WAYLAND_DISPLAY "$tv" "$data/small.trace"
# The self test and the benchmark are traceview-selftest's, not the
# shipped program's: no such options, no test code in the binary.
t_run_expect "traceview has no --selftest" 2 'unknown option --selftest' "$tv" --selftest
t_run_expect "traceview has no --bench" 2 'unknown option --bench' "$tv" --bench
if grep -aqE 'runSelfTest|runFollowSelfTest|runBenchmark|writeVarsTrace|selftest: ' "$tv"; then
	t_fail "the shipped traceview holds no test code" \
		"$(grep -aoE 'runSelfTest|runFollowSelfTest|runBenchmark|writeVarsTrace|selftest: ' "$tv" | sort -u | xargs)"
else
	t_pass "the shipped traceview holds no test code"
fi
if [[ ! -x $selftest ]]; then
	t_fail "traceview-selftest is built" "$selftest is missing"
	t_summary
	exit
fi
t_run_expect "traceview-selftest --help prints its usage" 0 \
	'usage: traceview-selftest OUTDIR TRACE PROC' "$selftest" --help
t_run_expect "traceview-selftest needs its arguments" 2 'usage:' "$selftest"
t_run_expect "traceview-selftest --follow does not combine with --bench" 2 'usage:' \
	"$selftest" --follow --bench a b
t_run_expect "traceview-selftest without a display: clear message" 3 'cannot open a display' \
	env -u DISPLAY -u WAYLAND_DISPLAY "$selftest" "$out" "$data/small.trace" "$data/small.proc"

if ! command -v xvfb-run >/dev/null; then
	t_skip "traceview self test" "xvfb-run not installed (package xvfb)"
	t_summary
	exit
fi

rm -rf "$out"
mkdir -p "$out"
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
# A private home: recent files and settings do not touch the user's.
run_gui() {
	timeout 300 xvfb-run -a -s "-screen 0 1400x900x24" \
		env HOME="$home" XDG_DATA_HOME="$home/data" XDG_CONFIG_HOME="$home/config" \
		XDG_CACHE_HOME="$home/cache" GSK_RENDERER=cairo GDK_BACKEND=x11 NO_AT_BRIDGE=1 \
		"$selftest" "$@"
}

log=$out/selftest.log
# Relative paths on purpose (they must work as well as absolute ones).
(cd "$root" && run_gui "$out" tests/gui/data/small.trace tests/gui/data/small.proc) >"$log" 2>&1
rc=$?
# fold_selftest NAME LOG STATUS: the self test's own checks, one by one,
# and the check that it ran to the end.
fold_selftest() {
	local line
	while IFS= read -r line; do
		case $line in
		"ok   - "*) t_pass "$1: ${line#ok   - }" ;;
		"FAIL - "*) t_fail "$1: ${line#FAIL - }" ;;
		esac
	done <"$2"
	if grep -Eq '^selftest: [0-9]+ passed, 0 failed$' "$2" && (($3 == 0)); then
		t_pass "$1 ran to the end (exit 0)"
	else
		t_fail "$1 ran to the end (exit 0)" "exit status $3: $(grep -v '^ok' "$2" | tail -n 5)"
	fi
}
fold_selftest selftest "$log" "$rc"
# A trace with user streams (application events beside the CPUs').
log=$out/user-selftest.log
(cd "$root" && run_gui "$out/user" tests/data/user.trace tests/data/user.proc) >"$log" 2>&1
fold_selftest "user streams selftest" "$log" "$?"

for shot in event-graph event-graph-zoomed event-graph-selected event-graph-kinds-hidden graph-view \
	cpu-view process-analysis process-selection time-breakdown raw-trace \
	raw-trace-filtered counter-strips latency-tab critical-path flame-graph; do
	f=$out/$shot.png
	if [[ -s $f ]] && [[ $(head -c 8 "$f" | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]]; then
		t_pass "screenshot $shot.png is a PNG"
	else
		t_fail "screenshot $shot.png is a PNG" "$f"
	fi
done

# The raw list's system call text is traceanalyze -d's (one code path): the
# fixture trace with VARS records the self test wrote, dumped.
ta=$build/bin/traceanalyze
if [[ -s $out/vars.trace ]]; then
	t_run_expect "traceanalyze -d shows the self test's openat as the raw list does" 0 \
		'Syscall exit .*RET : 3; openat\(AT_FDCWD, "/etc/passwd", O_RDONLY\) = 3$' \
		"$ta" -d "$out/vars.trace" /dev/null
else
	t_fail "the self test wrote vars.trace" "$out/vars.trace"
fi

# A file that is not a trace: the error names the file, the window stays up.
printf 'not a trace at all, just text padding the header out.....' >"$home/bad.trace"
run_gui "$out/bad" "$home/bad.trace" /dev/null >"$out/bad.log" 2>&1
if grep -q '^FAIL - open trace' "$out/bad.log" && grep -q 'bad.trace: offset 0' "$out/bad.log" &&
	! grep -Eq 'Segmentation|Aborted' "$out/bad.log"; then
	t_pass "a corrupt trace is refused with the file and offset, without a crash"
else
	t_fail "a corrupt trace is refused with the file and offset, without a crash" "$(tail -n 5 "$out/bad.log")"
fi

# Follow mode: a trace written block by block (blocks cut in half, the
# .proc late) while traceview --follow shows it; the self test checks that
# the view was updated as it grew and that, once the FINAL blocks arrived,
# every figure it shows is what opening the finished file shows.
synth=$build/bin/ltt-synth
if [[ -x $synth ]] && "$synth" --events 60000 --cpus 4 --processes 20 -o "$home/grow" >/dev/null; then
	"$root/tests/tools/follow-writer.py" "$home/grow.trace" "$home/live.trace" --pause 0.08 \
		--split --proc "$home/grow.proc" "$home/live.proc" --proc-after 10 >/dev/null &
	writer=$!
	log=$out/follow-selftest.log
	run_gui --follow "$out/follow" "$home/live.trace" "$home/live.proc" >"$log" 2>&1
	rc=$?
	wait "$writer"
	fold_selftest "follow selftest" "$log" "$rc"
else
	t_fail "ltt-synth writes the trace to follow" "$synth"
fi

t_summary
