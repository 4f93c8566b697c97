#!/usr/bin/env bash
# The kernel matrix (make kernels, scripts/kernels.sh): the trace module's
# tracepoint backend on Debian's five kernel lines, each downloaded once
# into the cache, built with its distribution's compiler and kbuild (W=1,
# warnings as errors), built by DKMS in its distribution's root, booted
# unmodified in QEMU once (two guests at a time) where the accuracy
# workloads, a restricted session, a flight-recorder snapshot and two
# concurrent sessions run. Every cell of the table is a check here, and
# every result line of the guests and of the accuracy checker too; a figure
# a kernel cannot give is the checker's "skip - ...: differs by design",
# never a pass. The table is printed, and README.md's support table must
# show the same cells. LTT_SKIP_VM=1 skips the suite; LTT_MATRIX_LINES
# restricts it to some lines; LTT_MATRIX_OUT=DIR with LTT_MATRIX_ARGS=--table
# judges the results an earlier `scripts/kernels.sh --out DIR` left,
# without running anything.
# run-suites: alone
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
source tests/lib/sh-test.sh
source tests/lib/vm-host.sh
build=$vm_build
res=${LTT_MATRIX_OUT:-$build/test-results/kernels}
vm_suite_skip_if_requested "kernel matrix suite"
echo "# kernel matrix suite (Debian's kernels and roots: downloaded on first use)"

lines=${LTT_MATRIX_LINES:-$(scripts/stock-kernel.sh --lines | tr '\n' ' ')}
t0=$SECONDS
# shellcheck disable=SC2086 # LTT_MATRIX_ARGS: options, split
scripts/kernels.sh --out "$res" --lines "$lines" ${LTT_MATRIX_ARGS:-} >"$res.log" 2>&1
echo "# scripts/kernels.sh took $((SECONDS - t0)) s ($(tr '\n' ' ' <"$res/seconds" 2>/dev/null))"
sed 's/^/       /' "$res/table.txt" 2>/dev/null
t_check "matrix: the table was printed" test -s "$res/table.txt"

for l in $lines; do
	d=$res/$l
	rel=$(cat "$d/release" 2>/dev/null || echo '?')
	# Each cell.
	while read -r col st detail; do
		case $st in
		pass) t_pass "$l ($rel): $col${detail:+ ($detail)}" ;;
		skip) t_skip "$l ($rel): $col" "$detail" ;;
		*) t_fail "$l ($rel): $col" "$detail" ;;
		esac
	done <"$d/cells"
	# What the cells sum up: every result line of the guest and of the
	# accuracy checker.
	[[ -f $d/run/results.txt ]] && vm_import "$d/run/results.txt" "$l: "
	[[ -f $d/accuracy.txt ]] && vm_import "$d/accuracy.txt" "$l: "
done

# README.md's support table is this table: the same cells per line as the
# Markdown table kernels.sh wrote (the release column aside, since a newer
# ABI of a line may have been tested).
row_cells() { # FILE LINE: the statuses of FILE's table row for LINE
	sed -n "s/^| $2 | [^|]* |\(.*\)|\$/\1/p" "$1" | tr -d ' ' | tr '|' ' '
}
for l in $lines; do
	want=$(row_cells "$res/table.md" "$l")
	# shellcheck disable=SC2016 # eval expands it
	t_check "README.md's support table shows $l as the matrix did (${want:-no row})" \
		eval '[[ -n $want && $(row_cells README.md "$l") == "$want" ]]'
done
t_summary
