#!/usr/bin/env bash
# tracedaemon on the host: the GoogleTest unit tests (options, configuration
# mapping, /proc snapshot, block accounting, whole sessions against a fake
# module), also under ASan+UBSan and the sessions and the user-event server
# under TSan, the libFuzzer targets for a short while, then the real binary's
# command-line errors and the wrappers'.
# run-suites: alone
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/tests/lib/sh-test.sh"
source "$root/tests/lib/sanitizer-build.sh"
build=${BUILD:-build}
[[ $build == /* ]] || build=$root/$build
bin=$build/bin
td=$bin/tracedaemon
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [[ -x $bin/tracedaemon_test ]]; then
	t_gtest "$bin/tracedaemon_test"
else
	t_fail "tracedaemon_test built" "missing $bin/tracedaemon_test (is libgtest-dev installed?)"
fi

# The same tests built with ASan+UBSan ($BUILD-asan, shared with suite 10);
# the whole sessions, where the drain loop and the /proc snapshot thread run
# together, and the user-event server, whose drain thread reads memory that
# libltt-user's threads write, also with TSan ($BUILD-tsan). Configured
# once, then incremental.
if sanitizer_build "$build-asan" address,undefined tracedaemon_test; then
	echo "ASan+UBSan:"
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		t_gtest "$build-asan/bin/tracedaemon_test"
fi
# Under TSan the two load tests (a 200 000-event burst, 1000 threads one
# after another) measure TSan's slowdown, not races: they run in the plain
# and ASan builds above; every other user-server test runs here.
if sanitizer_build "$build-tsan" thread tracedaemon_test; then
	echo "TSan (TraceSession: drain loop and snapshot thread; UserServer, UserCxxWrapper: drain thread and rings, the library in this process):"
	TSAN_OPTIONS=second_deadlock_stack=1 t_gtest "$build-tsan/bin/tracedaemon_test" \
		--gtest_filter='TraceSession.*:UserServer.*:UserCxxWrapper.*:-UserServer.ABurstBetweenTwoTicksLosesNothing:UserServer.ExitedThreadsGiveTheirRingsBack'
fi

# libFuzzer (clang, ASan+UBSan, $BUILD-fuzz): the user-event records as the
# server reads them and the control lines, LTT_DAEMON_FUZZ_SECONDS each
# (default 20); `make fuzz` runs them longer.
fuzz_log=$tmp/fuzz.log
"$root/tests/daemon/fuzz/run-fuzz.sh" "$build-fuzz" "${LTT_DAEMON_FUZZ_SECONDS:-20}" >"$fuzz_log" 2>&1
case $? in
0) t_pass "fuzz the user-event records and the control lines ($(grep -c '^Done' "$fuzz_log") targets)" ;;
77) t_skip "fuzz the user-event records and the control lines" "clang++ not installed" ;;
*) t_fail "fuzz the user-event records and the control lines" "$(tail -n 20 "$fuzz_log")" ;;
esac

if [[ ! -x $td ]]; then
	t_fail "tracedaemon built" "missing $td"
	t_summary
	exit
fi

# Statically linked: it runs in the busybox guest.
t_check "tracedaemon is static" bash -c "! readelf -l '$td' | grep -q INTERP"

t_run_expect "--help" 0 '^Usage: tracedaemon \[OPTIONS\] \[DEVICE\] TRACEFILE PROCFILE' "$td" --help
# The trace format written is the one the accepted ABI major's module writes:
# major 1, version 1; major 2, version 2.
t_run_expect "--version" 0 '^tracedaemon [0-9.]+ \(ltt ABI ([0-9]+)\.[0-9]+, trace format \1\)' "$td" --version
t_run_expect "no arguments" 2 'tracedaemon: missing TRACEFILE and PROCFILE' "$td"
t_run_expect "unknown option" 2 "tracedaemon: unknown option '-x'" "$td" -x a b
t_run_expect "bad duration" 2 "invalid duration 'soon' for --duration" "$td" --duration soon a b
t_run_expect "bad -t" 2 "invalid duration 'x' for -t" "$td" -tx a b
t_run_expect "bad buffer size" 2 "invalid buffer size '12' for -b: expected 4096 to 67108864" "$td" -b 12 a b
t_run_expect "unknown event" 2 "unknown event 'bogus' for -e; known events: " "$td" -e bogus a b
t_run_expect "bad PID" 2 "invalid PID 'abc' for -P" "$td" -P abc a b
t_run_expect "bad syscall depth" 2 "invalid syscall IP depth '99' for -sd" "$td" -sd99 a b
t_run_expect "missing value" 2 "option '--uid' needs a value" "$td" a b --uid
t_run_expect "empty command" 2 "'--' must be followed by a COMMAND" "$td" a b --
t_run_expect "usage hint" 2 "Try 'tracedaemon --help'" "$td" -x
t_run_expect "device missing" 1 "cannot open $tmp/tracer: No such file or directory.*trace module" \
	"$td" --device "$tmp/tracer" "$tmp/a.trace" "$tmp/a.proc"
t_check "no files left when the device is missing" test ! -e "$tmp/a.trace" -a ! -e "$tmp/a.proc"
t_run_expect "not a trace device" 1 "/dev/null does not answer the ltt ABI version request.*not an ltt trace device" \
	"$td" /dev/null "$tmp/a.trace" "$tmp/a.proc"
t_run_expect "not a character device" 1 "is not a character device" \
	"$td" /etc/hostname "$tmp/a.trace" "$tmp/a.proc"

# The wrappers check their arguments before starting anything.
t_run_expect "trace: usage" 2 'usage: trace SECONDS NAME' "$root/scripts/trace"
t_run_expect "trace: bad SECONDS" 2 "trace: SECONDS must be a positive number, not 'abc'" "$root/scripts/trace" abc out
t_run_expect "trace: bad NAME" 2 "trace: NAME must be a file name prefix" "$root/scripts/trace" 5 -x
t_run_expect "tracecore: usage" 2 'usage: tracecore SECONDS NAME' "$root/scripts/tracecore" 5
t_run_expect "trace: runs tracedaemon with the duration and files" 1 \
	"cannot open $tmp/tracer: No such file" \
	env TRACEDAEMON="$td" "$root/scripts/trace" 2 "$tmp/out" --device "$tmp/tracer"
t_run_expect "tracecore: passes -e CORE" 2 "unknown option '-Z'" \
	env TRACEDAEMON="$td" "$root/scripts/tracecore" 2 "$tmp/out" -Z

# make install puts the daemon and the wrappers under DESTDIR/PREFIX.
if make -s -C "$root" install BUILD="$build" DESTDIR="$tmp/dest" PREFIX=/opt/ltt >"$tmp/install.log" 2>&1; then
	t_check "make install" test -x "$tmp/dest/opt/ltt/bin/tracedaemon" -a -x "$tmp/dest/opt/ltt/bin/trace" \
		-a -x "$tmp/dest/opt/ltt/bin/tracecore" -a -x "$tmp/dest/opt/ltt/bin/tracecpuid"
	t_run_expect "installed trace finds its tracedaemon" 1 "cannot open $tmp/tracer" \
		"$tmp/dest/opt/ltt/bin/trace" 1 "$tmp/inst" --device "$tmp/tracer"
else
	t_fail "make install" "$(tail -n 5 "$tmp/install.log")"
fi

t_summary
