#!/usr/bin/env bash
# The trace module in the QEMU guest, on the patched kernel and on the debug
# kernel (lockdep, KASAN, ...): every ioctl, filters, test-mode counts and
# order, lost accounting, SIGIO/poll/read, a reader killed mid-trace,
# unload under load; and the fault suite (tests/module/faults.sh: rmmod
# under load, the daemon SIGKILLed, ioctl fuzzing, CPU hotplug, a full
# disk). The guest program reports one line per check; each
# becomes a check here, prefixed by the kernel variant. A console with a
# kernel warning fails the run (scripts/qemu-run.sh exits 200).
# A kernel variant not yet in the cache is skipped, not built here (run
# `make kernel kernel-debug`, or the kernel suite, first).
# LTT_SKIP_VM=1 skips the suite (no QEMU on the machine).
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
source "$repo/tests/lib/sh-test.sh"
cd "$repo" || exit 1
build=${BUILD:-build}

if [[ -n ${LTT_SKIP_VM:-} ]]; then
	t_skip "module suite" "LTT_SKIP_VM is set"
	t_summary
	exit
fi

mkdir -p "$build/module"
# Each kernel variant: the functional checks on 2 vCPUs, then the
# load/unload checks on 1 vCPU (multi-threaded TCG mishandles the kernel text
# patching that registering with the facility does; module/README.md).
for run in ltt:check:2 ltt:unload:1 ltt:faults:2 debug:check:2 debug:unload:1 debug:faults:2; do
	IFS=: read -r variant mode smp <<<"$run"
	flag=()
	[[ $variant == debug ]] && flag=(--debug)
	out=$build/module/vm-$mode-$variant
	log=$build/module/$mode-$variant.log
	tests/module/run-vm.sh "$mode" "${flag[@]}" --smp "$smp" --no-build --out "$out" >"$log" 2>&1
	rc=$?
	if ((rc == 205)); then
		t_skip "[$variant] module in the VM ($mode)" "$(tail -n 1 "$log")"
		continue
	fi
	if [[ -f $out/results.txt ]]; then
		while IFS= read -r line; do
			case $line in
			"ok - "*) t_pass "[$variant/$mode] ${line#ok - }" ;;
			"FAIL - "*) rest=${line#FAIL - }; t_fail "[$variant/$mode] ${rest%%: *}" "${rest#*: }" ;;
			"skip - "*) rest=${line#skip - }; t_skip "[$variant/$mode] ${rest%%: *}" "${rest#*: }" ;;
			"# "*) echo "       $line" ;;
			esac
		done <"$out/results.txt"
	fi
	case $rc in
	0) t_pass "[$variant] $mode run finished, kernel console clean" ;;
	200) t_fail "[$variant] $mode run: kernel console clean" \
		"$(grep -E 'WARNING|BUG|lockdep|KASAN|circular|stall|sleeping|Oops|int3:' "$out/console.log" 2>/dev/null | head -n 5)" ;;
	*) t_fail "[$variant] $mode run (status $rc)" "$(tail -n 5 "$log")" ;;
	esac
done
t_summary
