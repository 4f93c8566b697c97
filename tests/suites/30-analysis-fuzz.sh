#!/usr/bin/env bash
# Fuzzes libltt's readers (libFuzzer, ASan+UBSan) for a short fixed budget:
# every fuzzer target of the clang build (tests/fuzz/*_fuzzer.cpp: the
# trace reader, the .proc reader), its committed seeds replayed, then
# LTT_FUZZ_SECONDS (default 20) of mutation each. `make fuzz` runs the same
# for longer. (The daemon's fuzzers, user-event records and control lines,
# run in suite 40.)
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/tests/lib/sh-test.sh"
export BUILD=${BUILD:-build}
seconds=${LTT_FUZZ_SECONDS:-20}

if ! command -v clang++ >/dev/null; then
	t_skip "fuzz libltt's readers" "clang++ not installed"
	t_summary
	exit
fi
log=$(mktemp)
dir=$BUILD/fuzz
[[ $dir == /* ]] || dir=$root/$dir
if nice make --no-print-directory -C "$root" fuzz-build >"$log" 2>&1; then
	t_pass "build the fuzzers (clang, libFuzzer, ASan+UBSan): $(tr '\n' ' ' <"$dir/fuzzers.txt")"
	while IFS= read -r fuzzer; do
		[[ -n $fuzzer ]] || continue
		t_check "$fuzzer: committed inputs, then ${seconds}s" \
			"$root/tests/fuzz/run-fuzz.sh" "$dir" "$seconds" "$fuzzer"
	done <"$dir/fuzzers.txt"
else
	t_fail "build the fuzzers (clang, libFuzzer, ASan+UBSan)" "$(tail -n 5 "$log")"
fi
rm -f "$log"
t_summary
