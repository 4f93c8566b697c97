#!/usr/bin/env bash
# usage: tests/module/run-stock.sh [--out DIR]
# The trace module on an unmodified distribution kernel (its tracepoint
# backend): Debian 12's linux-image-6.1.0-56-amd64, whose headers
# (linux-headers-6.1.0-56-amd64) the module is built against. Unpacks the
# kernel package (apt-get download, once, into $BUILD/stock), boots it in
# QEMU with the kernel's virtio modules, tracedaemon and ltt_modtest, runs
# tests/module/stock-guest.sh inside and checks the workload's trace here
# with traceanalyze. Prints "ok - ..." / "FAIL - ..." lines; DIR (default
# $BUILD/module/vm-stock) gets the guest's /out. Exit status: 0 when every
# check passed, 1 when one failed, scripts/qemu-run.sh's status when the
# guest run failed, 205 when the kernel package or headers are missing.
set -uo pipefail
source "$(dirname "$0")/../lib/vm-host.sh"
cd "$vm_repo" || exit 203
out=
while (($#)); do
	case $1 in
	--out) out=$2; shift ;;
	*) echo "run-stock.sh: unknown argument '$1'" >&2; exit 203 ;;
	esac
	shift
done
rel=6.1.0-56-amd64
out=${out:-$vm_build/module/vm-stock}
stock=$vm_build/stock
vm_kdir=/lib/modules/$rel/build
[[ -f $vm_kdir/Makefile ]] || { echo "run-stock.sh: no headers in $vm_kdir (linux-headers-$rel)" >&2; exit $VM_SKIP; }
if [[ ! -f $stock/root/boot/vmlinuz-$rel ]]; then
	mkdir -p "$stock"
	(cd "$stock" && apt-get download "linux-image-$rel" >&2 && dpkg-deb -x linux-image-"$rel"_*.deb root) ||
		{ echo "run-stock.sh: cannot unpack linux-image-$rel" >&2; exit $VM_SKIP; }
fi
vm_module stock || exit
make -s BUILD="$vm_build" module-test >&2 || exit 203
vm_need "$vm_build/bin/tracedaemon" "$vm_build/bin/traceanalyze" || exit
kmod=$stock/kmod
mkdir -p "$kmod"
for m in virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci virtio_blk; do
	f=$(find "$stock/root/lib/modules/$rel" -name "$m.ko*" | head -n 1)
	[[ -n $f ]] || { echo "run-stock.sh: $m.ko not in the kernel package" >&2; exit $VM_SKIP; }
	cp "$f" "$kmod/"
done
rm -rf "$out"
mkdir -p "$out"
scripts/qemu-run.sh --kernel "$stock/root/boot/vmlinuz-$rel" --out "$out" --smp 2 --mem 1G \
	--timeout 1200 --add "$vm_ko:/opt/ltt/" --add tests/lib/vm-guest.sh:/opt/ltt/lib/ \
	--add tests/module/stock-guest.sh:/opt/ltt/ --add "$kmod:/opt/ltt/kmod" \
	--add "$vm_build/bin/tracedaemon:/opt/ltt/bin/" \
	--add "$vm_build/module/ltt_modtest:/opt/ltt/bin/" \
	-- sh /opt/ltt/stock-guest.sh
rc=$?
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
