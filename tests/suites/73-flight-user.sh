#!/usr/bin/env bash
# Application events in the flight recorder, in the QEMU guest
# (tests/daemon/flight-user-guest.sh) on the patched kernel: -b 16K, about
# 20 s of ltt-user-load and system calls, ltt-mark "before snapshot" then
# SIGUSR1 (snapshot 1), ltt-mark --snapshot (snapshot 2). Here on the host:
# each snapshot reads without a warning, holds no more than the kernel's
# buffers plus the same budget of user blocks (ncpus x 2 x -b each) and a
# block or two per user stream, and holds user events; the last user event
# of snapshot 1 is the marker. Then --trigger-event ltt_mark: ltt-mark
# makes a snapshot whose last user event is its marker. One vCPU (the
# module's clock=tsc: the TSC is the clock user events carry); then again
# on two vCPUs with the module's default clock, the fallback
# (CLOCK_MONOTONIC), where user events carry CLOCK_MONOTONIC. The kernel is
# not built here: not in the cache, a skip. LTT_SKIP_VM=1 skips the suite.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo" || exit 1
source tests/lib/sh-test.sh
source tests/lib/vm-host.sh
vm_suite_skip_if_requested "flight recorder user events suite"

build=$vm_build
[[ $build == /* ]] || build=$repo/$build
ta=$build/bin/traceanalyze
if ! vm_need "$build/bin/tracedaemon" "$ta" "$build/bin/ltt-mark" "$build/bin/ltt-user-load"; then
	t_fail "flight recorder user events: programs built" "run make BUILD=$build first"
	t_summary
	exit 1
fi
out=$build/test-results/flight-user
log=$out.log
rm -rf "$out"
mkdir -p "$out"
rc=0
vm_kernel ltt --no-build >"$log" 2>&1 || rc=$?
((rc == 0)) && { vm_module ltt >>"$log" 2>&1 || rc=$?; }
ready=$rc
if ((rc == 0)); then
	vm_bins=("$build/bin/tracedaemon" "$build/bin/ltt-mark" "$build/bin/ltt-user-load")
	vm_qemu=(--smp 1 --timeout 600 --mem 1G)
	vm_boot "$out" tests/daemon/flight-user-guest.sh >>"$log" 2>&1
	rc=$?
fi
# check_run STATUS LOG OUT NAME PREFIX: the host's checks of one guest
# run, each check's name prefixed by PREFIX.
check_run() {
	local rc=$1 log=$2 out=$3 p=$5 n tr pr name events streams size bound last ncpus buf
	vm_report "$rc" "$log" "$out" "$4" "$p" && [[ -f $out/results.txt ]] || return 0
	fact() { sed -n "s/^$1=//p" "$out/facts.txt" 2>/dev/null | tail -n 1; }
	ncpus=$(fact ncpus) buf=$(fact buffer)
	for n in 1 2; do
		tr=$out/fr-$n.trace pr=$out/fr-$n.proc name="snapshot $n"
		if ! timeout 300 "$ta" -s "$tr" "$pr" >"$out/fr-$n.s" 2>"$out/fr-$n.err" ||
			grep -qi warning "$out/fr-$n.err"; then
			t_fail "$p$name reads without a warning" "$(head -n 3 "$out/fr-$n.err")"
			continue
		fi
		t_pass "$p$name reads without a warning"
		timeout 300 "$ta" -d "$tr" "$pr" >"$out/fr-$n.dump" 2>/dev/null
		# User events, DECLAREs left out; user streams (one block each at
		# most for the declarations and the end) in the user stream lines.
		grep -E '^u[0-9]+ +User event ' "$out/fr-$n.dump" | grep -v ' DECLARE ' >"$out/fr-$n.user"
		events=$(wc -l <"$out/fr-$n.user")
		streams=$(grep -Eo '^u[0-9]+ ' "$out/fr-$n.dump" | sort -u | wc -l)
		# ltt-user-load's events take 44 bytes: the 32 KiB kept hold some 700.
		if ((events > 300)); then t_pass "$p$name holds $events user events of $streams streams"
		else t_fail "$p$name holds user events" "$events user events"; fi
		size=$(stat -c %s "$tr") bound=$((2 * ncpus * 2 * buf + 320 + streams * 4096))
		if ((size <= bound)); then
			t_pass "$p$name: $size bytes <= 2 x $ncpus CPUs x 2 x $buf + header + $streams streams' ends"
		else
			t_fail "$p$name: size bounded by twice the buffers" "$size > $bound"
		fi
		if ((n == 1)); then
			last=$(tail -n 1 "$out/fr-$n.user")
			if [[ $last == *' ltt_mark text="before snapshot"' ]]; then
				t_pass "$p$name: its last user event is the marker logged before SIGUSR1"
			else
				t_fail "$p$name: its last user event is the marker" "last: $last"
			fi
		fi
	done
	# --trigger-event ltt_mark: the snapshot ends with the marker.
	tr=$out/ev-1.trace
	if [[ -f $tr ]] && timeout 300 "$ta" -d "$tr" "$out/ev-1.proc" >"$out/ev-1.dump" 2>"$out/ev-1.err" &&
		! grep -qi warning "$out/ev-1.err"; then
		last=$(grep -E '^u[0-9]+ +User event ' "$out/ev-1.dump" | grep -v ' DECLARE ' | tail -n 1)
		if [[ $last == *' ltt_mark text="the trigger"' ]]; then
			t_pass "$p--trigger-event: the snapshot's last user event is the one that made it"
		else
			t_fail "$p--trigger-event: the snapshot's last user event is the one that made it" "last: $last"
		fi
	else
		t_fail "$p--trigger-event: its snapshot reads without a warning" "$(head -n 3 "$out/ev-1.err" 2>/dev/null)"
	fi
}

check_run "$rc" "$log" "$out" "flight recorder with user events" ""

# The same on two vCPUs with the module's default clock: the TSCs are
# found unsynchronized, the trace's clock is the fallback (CLOCK_MONOTONIC)
# and application events carry CLOCK_MONOTONIC.
fb=$build/test-results/flight-user-fallback
rm -rf "$fb"
mkdir -p "$fb"
rc=$ready
if ((rc == 0)); then
	vm_qemu=(--smp 2 --timeout 600 --mem 1G)
	vm_boot "$fb" tests/daemon/flight-user-guest.sh fallback >>"$fb.log" 2>&1
	rc=$?
fi
check_run "$rc" "$fb.log" "$fb" "flight recorder with user events, 2 vCPUs, fallback clock" "fallback: "
t_summary
