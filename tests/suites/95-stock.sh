#!/usr/bin/env bash
# The trace module on Debian's unmodified kernel: the stock kernel needs no
# build (scripts/stock-kernel.sh downloads and unpacks the image, installs
# the headers when missing), the module is built against its headers and
# records the kernel's tracepoints. The guest runs the end-to-end accuracy
# workload (tests/e2e/guest.sh --stock) and tests/e2e/check_accuracy.py
# --stock holds the traces against the same independent measurements as
# suite 90, plus explicit checks of the kernel release and of the events
# each kind of figure needs. LTT_SKIP_VM=1 skips the suite.
set -uo pipefail
cd "$(dirname "$0")/../.."
source tests/lib/sh-test.sh
source tests/lib/vm-host.sh
build=$vm_build
out=$build/test-results/stock
vm_suite_skip_if_requested "stock kernel suite"
echo "# stock kernel suite (Debian's kernel: downloaded and unpacked on first use)"

vm_kernel stock
rc=$?
if ((rc == VM_SKIP)); then
	t_skip "stock: kernel available" "scripts/stock-kernel.sh missing"
	t_summary
	exit
fi
if ! t_check "stock: kernel image unpacked in the cache" test "$rc" = 0 -a -f "$vm_kimage" ||
	! t_check "stock: kernel headers installed ($vm_kdir)" test -f "$vm_kdir/Makefile"; then
	t_summary
	exit 1
fi
release=$(basename "$vm_kmods")
t_check "stock: the release is Debian's ($release), not the patched kernel's" \
	eval '[[ $release =~ ^6\.1\.0-[0-9]+-amd64$ ]]'

vm_module stock
if ! t_check "stock: trace module builds against the stock headers" test -f "$vm_ko"; then
	t_summary
	exit 1
fi
t_check "stock: the module's vermagic names $release" \
	eval '[[ $(modinfo -F vermagic "$vm_ko") == "$release "* ]]'

# The console verdict on what a stock run prints: the unsigned,
# out-of-tree module's taint messages are no kernel problem, a warning
# after them still is.
rm -rf "$out"
mkdir -p "$out"
printf '%s\n' "[    5.2] ltt_tracer: loading out-of-tree module taints kernel." \
	"[    5.2] ltt_tracer: module verification failed: signature and/or required key missing - tainting kernel" \
	>"$out/taint.log"
t_check "stock: console verdict passes the module's taint messages" \
	scripts/qemu-run.sh --check-console "$out/taint.log"
{ cat "$out/taint.log"; echo "[    6.0] WARNING: CPU: 0 PID: 1 at kernel/x.c:1 f+0x1/0x2"; } >"$out/warn.log"
t_run_expect "stock: console verdict still fails a warning after them" 200 'kernel problem' \
	scripts/qemu-run.sh --check-console "$out/warn.log"

# strace is a dynamic binary: bring its libraries along (as suite 90).
vm_qemu=(--timeout 900 --mem 1G --disk 64M --add /usr/bin/strace:/usr/bin/)
for lib in $(ldd /usr/bin/strace | grep -o '/[^ ]*'); do
	vm_qemu+=(--add "$(readlink -f "$lib"):$lib")
done
vm_bins=("$build/bin/tracedaemon") vm_workloads=1
vm_boot "$out/run" tests/e2e/guest.sh --stock >"$out/guest.log" 2>&1
rc=$?
vm_report "$rc" "$out/guest.log" "$out/run" "stock: guest run"
t_check "stock: the console shows the module loaded (its taint message)" \
	grep -q 'ltt_tracer: .*taint' "$out/run/console.log"

python3 tests/e2e/check_accuracy.py --stock "$release" "$out/run" "$build" >"$out/accuracy.txt" 2>&1
vm_import "$out/accuracy.txt"
if ! [[ $(tail -n 1 "$out/accuracy.txt") =~ ^[0-9]+\ passed,\ [0-9]+\ failed(,\ [0-9]+\ skipped)?$ ]]; then
	t_fail "stock: accuracy checker reported its totals" "$(tail -n 5 "$out/accuracy.txt")"
fi
t_summary
