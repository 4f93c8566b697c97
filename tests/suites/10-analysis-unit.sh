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

# The event schema (analysis/describe/names/include/libltt/event_schema.hpp)
# must describe every event, subtype and field of include/ltt, which its
# static_asserts check when libltt compiles: event_schema.cpp compiles
# against the headers as they are, and fails against a copy of them with an
# event, a subtype or a field planted.
schema_src=$root/analysis/describe/names/event_schema.cpp
schema_compile() { # INCLUDE_DIR: prints the compiler's errors
	"${CXX:-c++}" -std=c++20 -fsyntax-only -I"$1" -I"$root/analysis/describe/names/include" \
		"$schema_src" 2>&1
}
planted=$(mktemp -d)
if out=$(schema_compile "$root/include"); then
	t_pass "event schema compiles against include/ltt"
else
	t_fail "event schema compiles against include/ltt" "$(head -n 5 <<<"$out")"
fi
plant() { # NAME FILE SED-SCRIPT PATTERN: the schema must not compile with it
	rm -rf "$planted/ltt" && cp -r "$root/include/ltt" "$planted/ltt"
	sed -i "$3" "$planted/ltt/$2"
	if cmp -s "$planted/ltt/$2" "$root/include/ltt/$2"; then
		t_fail "event schema refuses $1" "nothing planted in $2"
	elif out=$(schema_compile "$planted"); then
		t_fail "event schema refuses $1" "event_schema.cpp compiled"
	else
		t_check "event schema refuses $1" grep -q "$4" <<<"$out"
	fi
}
plant "an event appended to module_events.h" module_events.h \
	's|^\tLTT_EV_STACK = 29,.*|&\n\tLTT_EV_PLANTED = 30,|' "LTT_EV_PLANTED.*not handled"
plant "an event appended to events.h" events.h \
	's|^\tLTT_EV_MAX = 22|\tLTT_EV_PLANTED = 22,\n\tLTT_EV_MAX = 23|' "has no entry in event_schema.hpp"
plant "a subtype added to events.h" events.h \
	's|^\tLTT_FS_MAX = 11|\tLTT_FS_PLANTED = 11,\n\tLTT_FS_MAX = 12|' "a subtype enum of include/ltt"
plant "a subtype added to module_events.h" module_events.h \
	's|^\tLTT_CONTEXT_HIDDEN = 2,.*|&\n\tLTT_CONTEXT_PLANTED = 3,|' "LTT_CONTEXT_PLANTED.*not handled"
plant "a field added to a detail structure" events.h \
	's|^\t__u32 out_state;.*|&\n\t__u32 planted;|' "an entry disagrees with include/ltt"
plant "a field retyped in a detail structure" events.h \
	's|^\t__s64 ret;    /\* return value.*|\t__u64 ret;|' "type does not match"
rm -rf "$planted"

# The kernel series' source tarball (fetched once into the cache if need be).
if tarball=$("$root/scripts/build-kernel.sh" --print-source 2>&1 | tail -n 1) && [[ -r $tarball ]]; then
	gen=$(mktemp)
	if "$root/analysis/describe/names/gen-syscalls.sh" "$tarball" >"$gen" 2>&1 &&
		cmp -s "$gen" "$root/analysis/describe/names/syscall_table_x86_64.inc"; then
		t_pass "syscall table matches linux-source-6.12 syscall_64.tbl"
	else
		t_fail "syscall table matches linux-source-6.12 syscall_64.tbl" \
			"$(diff "$gen" "$root/analysis/describe/names/syscall_table_x86_64.inc" | head -n 5)"
	fi
	rm -f "$gen"
else
	t_fail "syscall table matches the kernel's" "no kernel source tarball: $tarball"
fi
t_summary
