#!/usr/bin/env bash
# libltt unit tests (GoogleTest): in the normal build (twice: traces built
# in format version 2, then 1), once built with ASan+UBSan in $BUILD-asan; and the check that the committed x86_64 syscall
# table is what the generator makes from the kernel source, when the
# kernel source is installed.
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/tests/lib/sh-test.sh"
source "$root/tests/lib/sanitizer-build.sh"
build=$root/${BUILD:-build}
[[ ${BUILD:-build} == /* ]] && build=${BUILD}

if [[ -x $build/bin/ltt_analysis_tests ]]; then
	t_gtest "$build/bin/ltt_analysis_tests"
	# Again with the tests' traces in format version 1 (the default is what
	# producers write, version 2), so every walk is tested on both.
	echo "format version 1:"
	LTT_TEST_FORMAT=1 t_gtest "$build/bin/ltt_analysis_tests"
else
	t_fail "ltt_analysis_tests built" "missing $build/bin/ltt_analysis_tests (run make)"
fi

# Sanitizer build: configured once, then incremental.
if sanitizer_build "$build-asan" address,undefined ltt_analysis_tests ltt-synth; then
	echo "ASan+UBSan:"
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		t_gtest "$build-asan/bin/ltt_analysis_tests"
fi

# traceanalyze --follow on traces written step by step.
source "$root/tests/unit/read/follow.sh"
if [[ -x $build/bin/traceanalyze && -x $build/bin/ltt-synth ]]; then
	follow_tests "$build"
else
	t_fail "traceanalyze --follow tests" "traceanalyze or ltt-synth missing in $build/bin (run make)"
fi

tarball=/usr/src/linux-source-6.1.tar.xz
if [[ -r $tarball ]]; then
	gen=$(mktemp)
	if "$root/analysis/describe/names/gen-syscalls.sh" "$tarball" >"$gen" 2>&1 &&
		cmp -s "$gen" "$root/analysis/describe/names/syscall_table_x86_64.inc"; then
		t_pass "syscall table matches linux-source-6.1 syscall_64.tbl"
	else
		t_fail "syscall table matches linux-source-6.1 syscall_64.tbl" \
			"$(diff "$gen" "$root/analysis/describe/names/syscall_table_x86_64.inc" | head -n 5)"
	fi
	rm -f "$gen"
else
	t_skip "syscall table matches the kernel's" "$tarball not installed"
fi
t_summary
