#!/usr/bin/env bash
# Application events in the QEMU guest (tests/user/vm-guest.sh) on the
# patched kernel, beside the kernel's: ltt-user-load logs 10 000 events
# (seq:i64 name:str value:f64) through libltt-user while tracedaemon
# traces, ltt-mark adds a marker and asks for a snapshot; the host then
# checks the trace with ltt-user-check (every event, in order, with its
# values; the user streams' framing; kernel blocks too). One vCPU under
# -icount (shift=0: one instruction per virtual ns), so the costs per event
# the guest notes (disabled and enabled paths) count instructions, not the
# host's load. Then the same guest on two vCPUs with the fallback clock
# (tests/user/vm-guest-fallback.sh): two threads log 10 000 events between
# getppid() calls, and ltt-user-bracket checks each event's place among
# the kernel's and notes the cross-clock error it measured.
# The kernel is not built here: not in the cache, a skip.
# LTT_SKIP_VM=1 skips the suite.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo" || exit 1
source tests/lib/sh-test.sh
source tests/lib/vm-host.sh
vm_suite_skip_if_requested "user events in the VM"

build=$vm_build
[[ $build == /* ]] || build=$repo/$build
if ! vm_need "$build/bin/tracedaemon" "$build/bin/ltt-mark" "$build/bin/ltt-user-load" \
	"$build/bin/ltt-user-check" "$build/bin/ltt-user-bracket"; then
	t_fail "user events: programs built" "run make BUILD=$build first"
	t_summary
	exit 1
fi
out=$build/test-results/user-vm
log=$out.log
rm -rf "$out"
mkdir -p "$out"
rc=0
vm_kernel ltt --no-build >"$log" 2>&1 || rc=$?
((rc == 0)) && { vm_module ltt >>"$log" 2>&1 || rc=$?; }
if ((rc == 0)); then
	vm_bins=("$build/bin/tracedaemon" "$build/bin/ltt-mark" "$build/bin/ltt-user-load")
	# One vCPU: TCG offers no invariant TSC, so the trace clock that user
	# events share is the one CPU's TSC (the module's clock=tsc).
	vm_qemu=(--smp 1 --timeout 900 --mem 1G --qemu-arg -icount --qemu-arg shift=0)
	vm_boot "$out" tests/user/vm-guest.sh >>"$log" 2>&1
	rc=$?
fi
if vm_report "$rc" "$log" "$out" "user events in the guest"; then
	pid=$(sed -n 's/^load_pid=//p' "$out/facts.txt" 2>/dev/null)
	if [[ -f $out/user.trace && -n $pid ]]; then
		"$build/bin/ltt-user-check" "$out/user.trace" "$pid" >"$out/check.txt" 2>&1
		vm_import <(sed -E 's/^(ok|FAIL) - /\1 - trace: /' "$out/check.txt")
		[[ $(tail -n 1 "$out/check.txt") =~ ^[0-9]+\ passed,\ [0-9]+\ failed$ ]] ||
			t_fail "ltt-user-check reported its totals" "$(tail -n 3 "$out/check.txt")"
		# The events sit among the loader's own system calls in time order:
		# it waits for the daemon's drain between batches (ltt_user_flush
		# sleeps), so traceanalyze -d, which merges user streams with the
		# CPUs by time, shows system calls of its pid between its first and
		# its last event.
		read -r nload nsys < <("$build/bin/traceanalyze" -d "$out/user.trace" 2>/dev/null |
			awk -v pid="$pid" '$6 != pid { next }
				$2 == "User" && $8 == "load" { if (!first) first = NR; last = NR; n++; next }
				$2 == "Syscall" && $3 == "entry" { at[++k] = NR }
				END { c = 0; for (i = 1; i <= k; i++) if (at[i] > first && at[i] < last) c++
				      print n + 0, c }')
		if [[ $nload == 10000 && ${nsys:-0} -gt 0 ]]; then
			t_pass "traceanalyze -d: the 10000 load events, with $nsys of the loader's system calls among them"
		else
			t_fail "traceanalyze -d: the 10000 load events among the loader's system calls" \
				"load events ${nload:-none}, system calls between the first and the last ${nsys:-none}"
		fi
	else
		t_fail "the guest brought back user.trace and the loader's pid" "$(ls "$out")"
	fi
fi

# The same on two vCPUs with the module's default clock: the kernel finds
# the TSCs unsynchronized, the trace's clock is the fallback
# (the kernel's CLOCK_MONOTONIC), and application events carry CLOCK_MONOTONIC
# (tests/user/vm-guest-fallback.sh). No -icount: the kernel's own choice
# of clocks, as on a virtual machine (its own TSC calibration too); the
# costs are host time.
fb=$build/test-results/user-vm-fallback
rm -rf "$fb"
mkdir -p "$fb"
if ((rc == 0)); then
	vm_qemu=(--smp 2 --timeout 900 --mem 1G)
	vm_boot "$fb" tests/user/vm-guest-fallback.sh >>"$fb.log" 2>&1
	rc=$?
fi
if vm_report "$rc" "$fb.log" "$fb" "user events in the 2-vCPU fallback-clock guest" "fallback: "; then
	pid=$(sed -n 's/^load_pid=//p' "$fb/facts.txt" 2>/dev/null)
	if [[ -f $fb/user.trace && -n $pid ]]; then
		# The daemon's measured bound: the kernel clock's largest move
		# against CLOCK_MONOTONIC between two of its clock pairs.
		bound=$(sed -n 's/.*the kernel.s clock moved at most \([0-9]*\) ns.*/\1/p' "$fb/td.log")
		if [[ -n $bound ]]; then t_pass "fallback: the daemon states its placement bound: $bound ns"
		else t_fail "fallback: the daemon states its placement bound" "$(grep 'user events' "$fb/td.log")"; fi
		"$build/bin/ltt-user-bracket" "$fb/user.trace" "$pid" "${bound:-0}" >"$fb/bracket.txt" 2>&1
		vm_import <(sed -E 's/^(ok|FAIL) - /\1 - fallback trace: /' "$fb/bracket.txt")
		[[ $(tail -n 1 "$fb/bracket.txt") =~ ^[0-9]+\ passed,\ [0-9]+\ failed$ ]] ||
			t_fail "ltt-user-bracket reported its totals" "$(tail -n 3 "$fb/bracket.txt")"
		# The report says which clock the application events were stamped
		# with: both of the loader's threads read CLOCK_MONOTONIC.
		clock=$("$build/bin/traceanalyze" "$fb/user.trace" 2>/dev/null | sed -n 's/^App clock: *//p')
		# shellcheck disable=SC2016 # eval expands it
		t_check "fallback: the report names the user streams' clock (${clock:-no App clock line})" \
			eval '[[ $clock == "CLOCK_MONOTONIC in "[1-9]*" user streams, placed on the kernel clock"* ]]'
		read -r mono streams < <("$build/bin/traceanalyze" --json "$fb/user.trace" 2>/dev/null |
			python3 -c 'import json,sys; t=json.load(sys.stdin)["trace"]; print(t["user_monotonic_streams"], t["user_streams"])')
		# shellcheck disable=SC2016 # eval expands it
		t_check "fallback: --json counts every user stream as CLOCK_MONOTONIC (${mono:-?} of ${streams:-?})" \
			eval '[[ -n $mono && $mono -gt 0 && $mono == "$streams" ]]'
	else
		t_fail "the fallback guest brought back user.trace and the loader's pid" "$(ls "$fb")"
	fi
fi
t_summary
