#!/usr/bin/env bash
# run-fuzz.sh BUILDDIR SECONDS: builds tracedaemon's libFuzzer targets
# (user_event_fuzzer, control_line_fuzzer) in BUILDDIR, a clang build
# directory of their own (configured once: -DLTT_FUZZ=ON, ASan+UBSan), then
# runs each for SECONDS from its committed seeds (tests/daemon/fuzz/corpus/)
# and a scratch corpus under BUILDDIR/fuzz-work. A crash, a hang over 10 s
# or 1 GB of RSS fails the run; the input is kept there as crash-*.
# Exit 0: both ran clean; 1: a finding or a build failure; 77: no clang.
set -uo pipefail
dir=$1 seconds=$2
root=$(cd "$(dirname "$0")/../../.." && pwd)
if ! command -v clang++ >/dev/null; then
	echo "clang++ is not installed"
	exit 77
fi
mkdir -p "$dir"
log=$dir/fuzz-build.log
if [[ ! -f $dir/build.ninja ]]; then
	if ! CC=clang CXX=clang++ cmake -S "$root" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
		-DLTT_SANITIZE=address,undefined -DLTT_FUZZ=ON >"$log" 2>&1; then
		tail -n 5 "$log"
		exit 1
	fi
fi
if ! nice cmake --build "$dir" -j2 --target user_event_fuzzer control_line_fuzzer >"$log" 2>&1; then
	grep -m5 -E 'error|Error' "$log"
	exit 1
fi
rc=0
for fuzzer in user_event_fuzzer control_line_fuzzer; do
	work=$dir/fuzz-work/$fuzzer
	mkdir -p "$work/corpus" "$work/artifacts"
	seeds=()
	[[ $fuzzer == control_line_fuzzer ]] && seeds=("$root/tests/daemon/fuzz/corpus/control")
	echo "$fuzzer: ${seconds}s"
	if ! "$dir/bin/$fuzzer" -max_total_time="$seconds" -max_len=8192 -timeout=10 \
		-rss_limit_mb=1024 -print_final_stats=1 -artifact_prefix="$work/artifacts/" \
		"$work/corpus" "${seeds[@]}" >"$work/last.log" 2>&1; then
		grep -E -A30 '^==[0-9]+==ERROR|deadly signal|Test unit written' "$work/last.log" | head -n 40
		rc=1
	fi
	grep -E '^(Done|stat::number_of_executed_units)' "$work/last.log" || true
done
exit $rc
