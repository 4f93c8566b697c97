#!/usr/bin/env bash
# run-fuzz.sh FUZZER SECONDS: first replays every committed trace (good and
# bad) as a regression corpus, then fuzzes for SECONDS starting from them.
# An input that runs over 10 s (a hang) or takes over 1 GB of RSS fails the
# run as a crash does.
# New interesting inputs go to a scratch corpus next to the fuzzer, never
# into tests/data. Crashing inputs are saved there as crash-* files.
set -euo pipefail
fuzzer=$1 seconds=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(dirname "$fuzzer")/work
mkdir -p "$work/corpus" "$work/artifacts"
# tests/fuzz/corpus holds crafted inputs (tests/tools/craft-trace.py:
# a block whose length is near 4 GiB, the head of a block whose record
# offsets wrap; the power-cut tails are in tests/data/bad) and inputs the
# fuzzer found, minimised and named after what they broke.
seeds=("$root"/tests/data/*.trace "$root"/tests/data/bad/*.trace "$root"/tests/fuzz/corpus/*)
log=$work/last.log
echo "replaying ${#seeds[@]} committed traces"
if ! "$fuzzer" -runs=0 -artifact_prefix="$work/artifacts/" "${seeds[@]}" >"$log" 2>&1; then
	tail -n 30 "$log"
	exit 1
fi
echo "fuzzing for ${seconds}s"
rc=0
"$fuzzer" -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=1024 \
	-print_final_stats=1 -artifact_prefix="$work/artifacts/" \
	"$work/corpus" "$root/tests/data" "$root/tests/data/bad" "$root/tests/fuzz/corpus" \
	>"$log" 2>&1 || rc=$?
grep -E '^(Done|stat::number_of_executed_units|stat::peak_rss_mb)' "$log" || true
if ((rc != 0)); then
	grep -E -A30 '^==[0-9]+==ERROR|deadly signal|Test unit written' "$log" | head -n 40
	exit 1
fi
