#!/usr/bin/env bash
# Run every test suite under tests/suites/ (or those named in $SUITES, as
# globs on the file name) and print the totals as the last line:
#   N passed, N failed
# A suite is an executable that prints what it likes and ends its stdout with
# "N passed, N failed" (optionally ", N skipped"). A suite that exits non-zero
# without such a line counts as one failure; skipped tests are never counted
# as passed. Exit status: 0 when nothing failed.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
results=${LTT_RESULTS_DIR:-${BUILD:-build}/test-results}
mkdir -p "$results"

total_pass=0 total_fail=0 total_skip=0
summary=()
for suite in "$here"/suites/*; do
	[[ -x $suite ]] || continue
	name=$(basename "$suite")
	if [[ -n ${SUITES:-} ]]; then
		sel=0
		for pat in $SUITES; do [[ $name == $pat* ]] && sel=1; done
		((sel)) || continue
	fi
	echo "=== suite $name"
	log="$results/$name.log"
	started=$SECONDS
	"$suite" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	took=$((SECONDS - started))
	line=$(grep -E '^([A-Za-z-]+: )?[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' "$log" | tail -n 1)
	p=0 f=0 s=0
	if [[ -n $line ]]; then
		p=$(sed -E 's/^([A-Za-z-]+: )?([0-9]+) passed.*/\2/' <<<"$line")
		f=$(sed -E 's/.* ([0-9]+) failed.*/\1/' <<<"$line")
		[[ $line == *skipped ]] && s=$(sed -E 's/.* ([0-9]+) skipped$/\1/' <<<"$line")
	fi
	if ((rc != 0 && f == 0)); then
		echo "suite $name exited with status $rc without reporting a failure: counted as 1 failed"
		f=1
	fi
	total_pass=$((total_pass + p)) total_fail=$((total_fail + f)) total_skip=$((total_skip + s))
	summary+=("$(printf '%-28s %5d passed, %3d failed, %3d skipped  %3d:%02d' "$name" "$p" "$f" "$s" $((took / 60)) $((took % 60)))")
done

echo
echo "=== summary"
printf '%s\n' "${summary[@]}"
((total_skip)) && echo "skipped (not counted as passed): $total_skip"
echo "suites took $((SECONDS / 60)) min $((SECONDS % 60)) s"
echo "$total_pass passed, $total_fail failed"
((total_fail == 0))
