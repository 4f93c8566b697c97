#!/usr/bin/env bash
# The call-site test in the QEMU guest: boots a kernel, traces the
# wl_callsites builds (tests/e2e/callsites-guest.sh) and checks on the host
# what traceanalyze --callsites names (tests/e2e/check_callsites.py).
#
# Sourced by suites 90 (the patched kernel and its debug build: the
# facility) and 95 (Debian's kernel: the tracepoints), which call
# `callsites_e2e VARIANT` among their own checks; run directly
# (`tests/e2e/callsites.sh ltt|debug|stock`) it prints its checks and
# "N passed, N failed". Uses tests/lib/vm-host.sh and sh-test.sh, and
# changes vm_qemu, vm_bins and vm_workloads.

# callsites_e2e VARIANT: the checks for kernel VARIANT (ltt, debug, stock).
callsites_e2e() {
	local variant=$1 build=$vm_build res wl v lib
	[[ $build == /* ]] || build=$PWD/$build
	res=$build/test-results/callsites-$variant
	wl=$build/workloads
	vm_kernel "$variant" || true
	if ! t_check "callsites ($variant): kernel available" test -n "$vm_kdir" -a -e "$vm_kdir"; then
		return
	fi
	vm_module "$variant" || true
	if ! t_check "callsites ($variant): trace module builds" test -f "$vm_ko"; then
		return
	fi
	if ! vm_need "$build/bin/tracedaemon" "$build/bin/traceanalyze" "$wl/wl_callsites-dyn"; then
		t_fail "callsites ($variant): programs built" "run make BUILD=$vm_build"
		return
	fi
	# The programs at one path in the guest and on the host, so the host
	# reads the same files: a copy under /var/tmp, since the guest mounts
	# a tmpfs over /tmp (where a checkout, and so $wl, may lie). The
	# dynamic ones go with the libraries and loader they name.
	local stage
	stage=$(mktemp -d /var/tmp/ltt-callsites.XXXXXX) || {
		t_fail "callsites ($variant): programs staged" "mktemp under /var/tmp failed"
		return
	}
	vm_qemu=(--timeout 600 --mem 1G)
	for v in static static-pie dyn dyn-nopie stripped; do
		cp -p "$wl/wl_callsites-$v" "$stage/"
		vm_qemu+=(--add "$stage/wl_callsites-$v:$stage/")
	done
	for lib in $(ldd "$wl/wl_callsites-dyn" | grep -o '/[^ ]*'); do
		vm_qemu+=(--add "$(readlink -f "$lib"):$lib")
	done
	vm_bins=("$build/bin/tracedaemon") vm_workloads=0
	rm -rf "$res"
	mkdir -p "$res"
	vm_boot "$res" tests/e2e/callsites-guest.sh "$stage" >"$res/guest.log" 2>&1
	vm_verdict $? "callsites ($variant): guest run" "$res/guest.log" "$res/console.log"
	python3 tests/e2e/check_callsites.py "$res" "$build/bin/traceanalyze" "$stage" >"$res/checks.txt"
	rm -rf "$stage"
	vm_import "$res/checks.txt" "($variant) "
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
	set -uo pipefail
	cd "$(dirname "$0")/../.." || exit 1
	source tests/lib/sh-test.sh
	source tests/lib/vm-host.sh
	callsites_e2e "${1:?usage: $0 ltt|debug|debug-tp|stock}"
	t_summary
fi
