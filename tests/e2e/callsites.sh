#!/usr/bin/env bash
# usage: tests/e2e/callsites.sh VARIANT   (ltt, debug or stock)
# The call-site test in the QEMU guest, sourced-free: boots the VARIANT
# kernel (the patched one and its debug build use the facility, stock the
# tracepoints), traces the wl_callsites builds (tests/e2e/callsites-guest.sh)
# and checks on the host what traceanalyze --callsites names
# (tests/e2e/check_callsites.py). Prints the checks and
# "N passed, N failed"; suites 90 (ltt, debug) and 95 (stock) run it.
set -uo pipefail
cd "$(dirname "$0")/../.."
source tests/lib/sh-test.sh
source tests/lib/vm-host.sh
variant=${1:?usage: $0 ltt|debug|stock}
build=$vm_build
[[ $build == /* ]] || build=$PWD/$build
res=$build/test-results/callsites-$variant
wl=$build/workloads

vm_kernel "$variant"
if ! t_check "callsites ($variant): kernel available" test -n "$vm_kdir"; then
	t_summary; exit 1
fi
vm_module "$variant"
if ! t_check "callsites ($variant): trace module builds" test -f "$vm_ko"; then
	t_summary; exit 1
fi
vm_need "$build/bin/tracedaemon" "$build/bin/traceanalyze" "$wl/wl_callsites-dyn" || {
	t_fail "callsites ($variant): programs built" "run make BUILD=$vm_build"
	t_summary; exit 1
}

# The programs at their host path, so the host reads the same files; the
# dynamic ones with the libraries and loader they name.
vm_qemu=(--timeout 600 --mem 512M)
for v in static static-pie dyn dyn-nopie stripped; do
	vm_qemu+=(--add "$wl/wl_callsites-$v:$wl/")
done
for lib in $(ldd "$wl/wl_callsites-dyn" | grep -o '/[^ ]*'); do
	vm_qemu+=(--add "$(readlink -f "$lib"):$lib")
done
vm_bins=("$build/bin/tracedaemon")
[[ $variant == debug ]] && vm_qemu+=(--mem 1G)

rm -rf "$res"
mkdir -p "$res"
vm_boot "$res" tests/e2e/callsites-guest.sh "$wl" >"$res/guest.log" 2>&1
vm_verdict $? "callsites ($variant): guest run" "$res/guest.log" "$res/console.log"
python3 tests/e2e/check_callsites.py "$res" "$build/bin/traceanalyze" "$wl" >"$res/checks.txt"
vm_import "$res/checks.txt" "($variant) "
t_summary
