#!/usr/bin/env bash
# Run every test suite under tests/suites/ (or those named in $SUITES, as
# globs on the file name) and print the totals as the last line:
#   N passed, N failed
# A suite is an executable that prints what it likes and ends its stdout with
# "N passed, N failed" (optionally ", N skipped"). A suite that exits non-zero
# without such a line counts as one failure; skipped tests are never counted
# as passed. Exit status: 0 when nothing failed.
#
# LTT_SUITE_JOBS suites run at once (default 2): a QEMU guest under TCG
# keeps one core busy, so two suites keep both cores of the 2-core machine
# working. Each suite's output goes to $results/NAME.log and is printed
# whole when the suite ends; the summary lists the suites in order. The
# suites that took longest in the last run start first (their times are
# kept in $results/times; a new build directory takes tests/suite-times),
# so that a long suite does not start last.
# A suite whose file has the line "# run-suites: alone" runs with no other
# (its tests measure time or keep up with a producer, and a guest beside
# them would make them flaky). What suites share is locked where it is
# built: the module's build
# directory (module/build.sh), the sanitizer builds
# (tests/lib/sanitizer-build.sh), ltt_modtest (mk/module.mk).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
results=${LTT_RESULTS_DIR:-${BUILD:-build}/test-results}
mkdir -p "$results"
results=$(cd "$results" && pwd)
jobs=${LTT_SUITE_JOBS:-2}
if ! [[ $jobs =~ ^[1-9][0-9]*$ ]]; then
	echo "run-suites.sh: LTT_SUITE_JOBS must be a positive number, not '$jobs'" >&2
	exit 2
fi

selected=()
for suite in "$here"/suites/*; do
	[[ -x $suite ]] || continue
	name=$(basename "$suite")
	if [[ -n ${SUITES:-} ]]; then
		sel=0
		for pat in $SUITES; do [[ $name == $pat* ]] && sel=1; done
		((sel)) || continue
	fi
	selected+=("$name")
done

# The order to start them in: the suites that run alone first (one that
# came up later would hold a free lane until the running ones ended), then
# longest first by the last run's times (a suite never timed counts as
# long: it may be new), ties in file order.
alone() { grep -qx '# run-suites: alone' "$here/suites/$1"; }
declare -A last=()
times=$results/times
[[ -f $times ]] || times=$here/suite-times # seconds measured on the 2-core machine
if [[ -f $times ]]; then
	while read -r n s; do
		[[ $s =~ ^[0-9]+$ ]] && last[$n]=$s
	done <"$times"
fi
mapfile -t queue < <(
	i=0
	for n in "${selected[@]}"; do
		a=1
		alone "$n" && a=0
		printf '%s %s %s %s\n' "$a" "${last[$n]:-100000}" "$i" "$n"
		i=$((i + 1))
	done | sort -k1,1n -k2,2nr -k3,3n | cut -d' ' -f4
)

# The kernels the selected suites boot, built before any suite starts. A
# suite names them in a line "# run-suites: kernels VARIANT..." (ltt,
# debug) and never builds one itself: it skips a kernel not in the cache.
# On a cold machine a suite started beside the build would otherwise skip
# the kernel it could not find yet.
if [[ ${LTT_SKIP_VM:-} != 1 ]]; then
	declare -A need=()
	for n in "${selected[@]}"; do
		while read -r -a vs; do
			for v in "${vs[@]}"; do need[$v]=1; done
		done < <(sed -n 's/^# run-suites: kernels //p' "$here/suites/$n")
	done
	for v in ltt debug; do
		[[ -n ${need[$v]:-} ]] || continue
		[[ $v == ltt && -n ${KERNELDIR:-} ]] && continue
		flag=()
		[[ $v == debug ]] && flag=(--debug)
		t0=$SECONDS
		if "$here/../scripts/build-kernel.sh" "${flag[@]}" >"$results/kernel-$v.log" 2>&1; then
			echo "=== kernel $v ready ($((SECONDS - t0)) s)"
		else
			echo "=== kernel $v did not build ($results/kernel-$v.log): the suites booting it will say so"
		fi
	done
fi

declare -A took=() rcs=()
start() { # NAME: run it in the background, its log and status in $results
	local name=$1
	(
		t0=$SECONDS
		"$here/suites/$name" >"$results/$name.log" 2>&1
		echo "$? $((SECONDS - t0))" >"$results/$name.status"
	) &
}

finished() { # NAME: print its log, remember its status and time
	local name=$1 rc s
	read -r rc s <"$results/$name.status" 2>/dev/null || { rc=1 s=0; }
	rcs[$name]=$rc took[$name]=$s
	echo "=== suite $name ($((s / 60)) min $((s % 60)) s)"
	cat "$results/$name.log"
}

declare -A running=()
next=0 exclusive=0
while ((next < ${#queue[@]} || ${#running[@]} > 0)); do
	while ((next < ${#queue[@]} && ${#running[@]} < jobs && !exclusive)); do
		name=${queue[next]}
		if alone "$name"; then
			((${#running[@]} == 0)) || break
			exclusive=1
		fi
		next=$((next + 1))
		rm -f "$results/$name.status"
		start "$name"
		running[$!]=$name
	done
	done_pid=
	wait -n -p done_pid "${!running[@]}"
	[[ -n $done_pid && -n ${running[$done_pid]:-} ]] || continue
	finished "${running[$done_pid]}"
	alone "${running[$done_pid]}" && exclusive=0
	unset "running[$done_pid]"
done

total_pass=0 total_fail=0 total_skip=0
summary=()
for name in "${selected[@]}"; do
	log="$results/$name.log"
	rc=${rcs[$name]:-1}
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
	t=${took[$name]:-0}
	summary+=("$(printf '%-28s %5d passed, %3d failed, %3d skipped  %3d:%02d' "$name" "$p" "$f" "$s" $((t / 60)) $((t % 60)))")
done

# This run's times, for the next run's order (suites not run keep theirs).
for name in "${selected[@]}"; do last[$name]=${took[$name]:-0}; done
for name in "${!last[@]}"; do echo "$name ${last[$name]}"; done | sort >"$results/times.tmp" &&
	mv "$results/times.tmp" "$results/times"

echo
echo "=== summary ($jobs at a time)"
printf '%s\n' "${summary[@]}"
((total_skip)) && echo "skipped (not counted as passed): $total_skip"
echo "suites took $((SECONDS / 60)) min $((SECONDS % 60)) s"
echo "$total_pass passed, $total_fail failed"
((total_fail == 0))
