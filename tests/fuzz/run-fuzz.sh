#!/usr/bin/env bash
# run-fuzz.sh BUILDDIR SECONDS [FUZZER]: runs each libltt fuzzer that
# BUILDDIR (the clang build of `make fuzz-build`) lists in fuzzers.txt, or
# only FUZZER: first it replays
# its committed seeds as a regression corpus, then fuzzes for SECONDS
# starting from them. An input that runs over 10 s (a hang) or takes over
# 1 GB of RSS fails the run as a crash does.
# The seeds of each fuzzer:
#   trace_reader_fuzzer  tests/data/*.trace, tests/data/bad/*.trace and
#                        tests/fuzz/corpus/ (crafted inputs,
#                        tests/tools/craft-trace.py: a block whose length
#                        is near 4 GiB, the head of a block whose record
#                        offsets wrap; and inputs the fuzzer found,
#                        minimised and named after what they broke)
#   NAME_fuzzer          tests/fuzz/corpus-NAME/ (proc_file: with
#                        tests/data/*.proc)
# New interesting inputs go to a scratch corpus under BUILDDIR/fuzz-work,
# never into the source tree. Crashing inputs are saved there as crash-*
# files.
set -euo pipefail
dir=$1 seconds=$2 only=${3:-}
root=$(cd "$(dirname "$0")/../.." && pwd)
list=$dir/fuzzers.txt
[[ -s $list ]] || { echo "run-fuzz.sh: no fuzzers listed in $list (make fuzz-build)"; exit 1; }
rc=0
while IFS= read -r fuzzer; do
	[[ -n $fuzzer && ( -z $only || $fuzzer == "$only" ) ]] || continue
	name=${fuzzer%_fuzzer}
	work=$dir/fuzz-work/$name
	mkdir -p "$work/corpus" "$work/artifacts"
	case $name in
	trace_reader)
		seeds=("$root"/tests/data/*.trace "$root"/tests/data/bad/*.trace "$root"/tests/fuzz/corpus/*)
		dirs=("$root/tests/data" "$root/tests/data/bad" "$root/tests/fuzz/corpus") ;;
	*)
		seeds=() dirs=()
		[[ $name == proc_file ]] && seeds=("$root"/tests/data/*.proc)
		if [[ -d $root/tests/fuzz/corpus-$name ]]; then
			seeds+=("$root/tests/fuzz/corpus-$name"/*)
			dirs=("$root/tests/fuzz/corpus-$name")
		fi ;;
	esac
	log=$work/last.log
	echo "$fuzzer: replaying ${#seeds[@]} committed inputs"
	if ((${#seeds[@]})) &&
		! "$dir/bin/$fuzzer" -runs=0 -artifact_prefix="$work/artifacts/" "${seeds[@]}" >"$log" 2>&1; then
		tail -n 30 "$log"
		rc=1
		continue
	fi
	# The replayed .proc seeds lead the mutation too (a corpus takes
	# directories only: they are copied into the scratch corpus).
	[[ $name == proc_file ]] && { cp -n "$root"/tests/data/*.proc "$work/corpus/" 2>/dev/null || true; }
	echo "$fuzzer: fuzzing for ${seconds}s"
	frc=0
	"$dir/bin/$fuzzer" -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=1024 \
		-print_final_stats=1 -artifact_prefix="$work/artifacts/" \
		"$work/corpus" "${dirs[@]}" >"$log" 2>&1 || frc=$?
	grep -E '^(Done|stat::number_of_executed_units|stat::peak_rss_mb)' "$log" || true
	if ((frc != 0)); then
		grep -E -A30 '^==[0-9]+==ERROR|deadly signal|Test unit written|^[a-z].*differently' "$log" | head -n 40
		rc=1
	fi
done <"$list"
exit $rc
