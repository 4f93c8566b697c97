#!/usr/bin/env bash
# usage: tests/module/run-stock.sh [--idle] [--out DIR]
# The trace module on an unmodified distribution kernel (its tracepoint
# backend): Debian 12's own kernel (tests/lib/vm-host.sh's variant stock),
# whose headers the module is built against. Boots it in QEMU with
# tracedaemon and ltt_modtest, runs tests/module/stock-guest.sh inside and
# checks the workload's trace here with traceanalyze. Prints "ok - ..." and
# "FAIL - ..." lines; DIR (default $BUILD/module/vm-stock) gets the guest's
# /out. Exit status: 0 when every check passed, 1 when one failed,
# scripts/qemu-run.sh's status when the guest run failed, 205 when the
# stock kernel cannot be had. --idle instead measures the getppid() loop
# without the module, loaded idle, tracing, after STOP and after close in a
# guest run with -icount (1 vCPU; the figures repeat from run to run) and
# prints them.
set -uo pipefail
source "$(dirname "$0")/../lib/vm-host.sh"
cd "$vm_repo" || exit 203
out= mode=check
while (($#)); do
	case $1 in
	--idle) mode=idle ;;
	--out) out=$2; shift ;;
	*) echo "run-stock.sh: unknown argument '$1'" >&2; exit 203 ;;
	esac
	shift
done
out=${out:-$vm_build/module/vm-stock$([[ $mode == idle ]] && echo -idle)}
vm_kernel stock || exit
vm_module stock || exit
make -s BUILD="$vm_build" module-test >&2 || exit 203
vm_bins=("$vm_build/bin/tracedaemon" "$vm_build/module/ltt_modtest")
vm_need "${vm_bins[@]}" "$vm_build/bin/traceanalyze" || exit
vm_qemu=(--smp 2 --mem 1G --timeout 1200)
[[ $mode == idle ]] && vm_qemu=(--smp 1 --mem 1G --timeout 1200 --qemu-arg -icount --qemu-arg shift=0)
rm -rf "$out"
mkdir -p "$out"
vm_boot "$out" tests/module/stock-guest.sh "$mode"
rc=$?
if [[ $mode == idle ]]; then
	cat "$out/results.txt" "$out/bench.txt" 2>/dev/null
	exit "$rc"
fi
failed=0
check() { # NAME CONDITION-STATUS [WHY]
	if [[ $2 == 0 ]]; then echo "ok - $1"; else echo "FAIL - $1${3:+: $3}"; failed=1; fi
}
[[ -f $out/results.txt ]] && grep -E '^(ok|FAIL|skip) - |^# ' "$out/results.txt"
grep -q '^FAIL' "$out/results.txt" 2>/dev/null && failed=1
check "guest run finished, kernel console clean" "$rc" "status $rc"
if [[ -f $out/w.trace ]]; then
	ta=$vm_build/bin/traceanalyze
	"$ta" --json "$out/w.trace" "$out/w.proc" >"$out/w.json" 2>"$out/w.err"
	check "traceanalyze reads the trace" $? "$(tail -n 2 "$out/w.err")"
	"$ta" -d "$out/w.trace" "$out/w.proc" >"$out/w.dump" 2>>"$out/w.err"
	has() { grep -Eq -- "$2" "$out/$1"; echo $?; }
	check "the trace says backend tracepoints" "$(has w.json '"backend": "tracepoints"')"
	check "0 events lost" "$(has w.json '"lost_events": 0[,}]')"
	check "syscall entries with user IPs" "$(has w.dump 'SYSCALL : [a-z_0-9]+; IP : 0x[0-9a-f]{6,}')"
	check "syscall exits with return values" "$(has w.dump 'RET : ')"
	check "schedchanges" "$(has w.dump 'Sched change.*IN : ')"
	check "interrupts" "$(has w.dump 'IRQ entry .*IRQ : ')"
	check "forks" "$(has w.dump 'FORK PID : [0-9]+; FLAGS')"
	check "execs with names" "$(has w.dump 'EXEC : /')"
	check "exits" "$(has w.dump 'EXIT PID : [0-9]+; CODE')"
	check "file opens with names" "$(has w.dump 'OPEN : /tmp/ltt-stock.txt; FD : [0-9]')"
else
	check "the workload's trace came back" 1
fi
((rc)) && exit "$rc"
exit $failed
