#!/usr/bin/env bash
# End-to-end accuracy: boot the patched kernel in QEMU, trace workloads with
# known behaviour (tests/e2e/guest.sh), and hold traceanalyze's figures
# against independent measurements (tests/e2e/check_accuracy.py, whose
# result lines become this suite's checks). The kernel and the module are
# built on first use (cached after); the run goes through
# tests/lib/vm-host.sh. LTT_SKIP_VM=1 skips the suite (no QEMU on the
# machine).
set -uo pipefail
cd "$(dirname "$0")/../.."
source tests/lib/sh-test.sh
source tests/lib/vm-host.sh
build=$vm_build
out=$build/test-results/e2e
vm_suite_skip_if_requested "e2e accuracy suite"
echo "# e2e accuracy suite (kernel and module build on first use; cached after)"

vm_kernel ltt
if ! t_check "e2e: patched kernel available" test -f "$vm_kdir/arch/x86/boot/bzImage"; then
	t_summary; exit 1
fi
vm_module ltt
if ! t_check "e2e: trace module builds" test -f "$vm_ko"; then
	t_summary; exit 1
fi

# strace is a dynamic binary: bring its libraries along.
vm_qemu=(--timeout 1200 --mem 1G --disk 64M --add /usr/bin/strace:/usr/bin/)
# (resolved: the initramfs copies symlinks as symlinks)
for lib in $(ldd /usr/bin/strace | grep -o '/[^ ]*'); do
	vm_qemu+=(--add "$(readlink -f "$lib"):$lib")
done
vm_bins=("$build/bin/tracedaemon") vm_workloads=1

rm -rf "$out"
mkdir -p "$out"
vm_boot "$out" tests/e2e/guest.sh >"$out/guest.log" 2>&1
rc=$?
vm_verdict "$rc" "e2e: guest run" "$out/guest.log" "$out/console.log"

python3 tests/e2e/check_accuracy.py "$out" "$build" >"$out/accuracy.txt"
vm_import "$out/accuracy.txt"
if ! [[ $(tail -n 1 "$out/accuracy.txt") =~ ^[0-9]+\ passed,\ [0-9]+\ failed$ ]]; then
	t_fail "e2e: accuracy checker reported its totals" "$(tail -n 5 "$out/accuracy.txt")"
fi

# Call sites named by traceanalyze --callsites, on the patched kernel and
# its debug build (lockdep, KASAN: the console must stay clean).
source tests/e2e/callsites.sh
callsites_e2e ltt
callsites_e2e debug
t_summary
