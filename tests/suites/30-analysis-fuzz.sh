#!/usr/bin/env bash
# Fuzzes libltt's reader (libFuzzer, ASan+UBSan) for a short fixed budget:
# the committed traces replayed, then LTT_FUZZ_SECONDS (default 30) of
# mutation. `make fuzz` runs the same for longer.
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/tests/lib/sh-test.sh"
export BUILD=${BUILD:-build}
seconds=${LTT_FUZZ_SECONDS:-30}

if ! command -v clang++ >/dev/null; then
	t_skip "fuzz the trace reader" "clang++ not installed"
	t_summary
	exit
fi
log=$(mktemp)
if nice make --no-print-directory -C "$root" fuzz-build >"$log" 2>&1; then
	t_pass "build the reader fuzzer (clang, libFuzzer, ASan+UBSan)"
	fuzzer=$BUILD/fuzz/bin/trace_reader_fuzzer
	[[ $fuzzer == /* ]] || fuzzer=$root/$fuzzer
	t_check "fuzz the trace reader for ${seconds}s" \
		"$root/tests/fuzz/run-fuzz.sh" "$fuzzer" "$seconds"
else
	t_fail "build the reader fuzzer (clang, libFuzzer, ASan+UBSan)" "$(tail -n 5 "$log")"
fi
rm -f "$log"
t_summary
