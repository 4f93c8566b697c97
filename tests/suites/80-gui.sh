#!/usr/bin/env bash
# traceview under a virtual X display (Xvfb): command-line behaviour, then the
# self test, which opens a committed trace, visits each tab, zooms, searches,
# filters and selects, checks the result structurally (rows, labels, counts)
# and saves screenshots in $BUILD/test-results/gui/. Skipped, with a message,
# where gtkmm-4.0 or Xvfb is missing.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/tests/lib/sh-test.sh"
build=${BUILD:-build}
[[ $build == /* ]] || build=$root/$build
tv=$build/bin/traceview
data=$root/tests/gui/data
out=$build/test-results/gui

if [[ ! -x $tv ]]; then
	if pkg-config --exists gtkmm-4.0 2>/dev/null; then
		t_fail "traceview is built" "gtkmm-4.0 is installed but $tv is missing"
	else
		t_skip "traceview" "gtkmm-4.0 not installed (scripts/install-deps.sh installs libgtkmm-4.0-dev)"
	fi
	t_summary
	exit
fi

t_run_expect "traceview --help prints the usage" 0 'usage: traceview \[TRACE \[PROC\]\]' "$tv" --help
t_run_expect "unknown option is refused" 2 'unknown option --frobnicate' "$tv" --frobnicate
t_run_expect "--selftest needs its arguments" 2 'usage:' "$tv" --selftest
t_run_expect "--follow needs a TRACE" 2 'traceview: --follow needs a TRACE' "$tv" --follow
t_run_expect "--follow does not combine with --bench" 2 'usage:' "$tv" --follow --bench a b
t_run_expect "no display: clear message" 3 'cannot open a display' \
	env -u DISPLAY -u WAYLAND_DISPLAY "$tv" "$data/small.trace"

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
		"$tv" "$@"
}

log=$out/selftest.log
# Relative paths on purpose (they must work as well as absolute ones).
(cd "$root" && run_gui --selftest "$out" tests/gui/data/small.trace tests/gui/data/small.proc) >"$log" 2>&1
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
(cd "$root" && run_gui --selftest "$out/user" tests/data/user.trace tests/data/user.proc) >"$log" 2>&1
fold_selftest "user streams selftest" "$log" "$?"

for shot in event-graph event-graph-zoomed event-graph-selected event-graph-kinds-hidden graph-view \
	cpu-view process-analysis process-selection time-breakdown raw-trace \
	raw-trace-filtered counter-strips; do
	f=$out/$shot.png
	if [[ -s $f ]] && [[ $(head -c 8 "$f" | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]]; then
		t_pass "screenshot $shot.png is a PNG"
	else
		t_fail "screenshot $shot.png is a PNG" "$f"
	fi
done

# The raw list's system call text is traceanalyze -d's (one code path): the
# trace with VARS records the self test wrote, dumped.
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
run_gui --selftest "$out/bad" "$home/bad.trace" /dev/null >"$out/bad.log" 2>&1
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
	run_gui --follow --selftest "$out/follow" "$home/live.trace" "$home/live.proc" >"$log" 2>&1
	rc=$?
	wait "$writer"
	fold_selftest "follow selftest" "$log" "$rc"
else
	t_fail "ltt-synth writes the trace to follow" "$synth"
fi

t_summary
