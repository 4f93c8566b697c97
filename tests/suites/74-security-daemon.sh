#!/usr/bin/env bash
# What uid 1000 can do to root's tracedaemon, in the QEMU guest on the
# patched kernel (tests/security/daemon-attacks.sh, run by
# tests/security/daemon-attacks-guest.sh): a snapshot flood, a planted
# snapshot name, an fd flood, a stream flood, a sparse memfd, a semaphore
# eventfd, a planted control FIFO; each must be held. The same script runs
# as root on a host where the module is loaded. The kernel is not built
# here: not in the cache, a skip. LTT_SKIP_VM=1 skips the suite.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo" || exit 1
source tests/lib/sh-test.sh
source tests/lib/vm-host.sh
vm_suite_skip_if_requested "daemon security suite"

build=$vm_build
[[ $build == /* ]] || build=$repo/$build
if ! vm_need "$build/bin/tracedaemon" "$build/bin/ltt-mark" "$build/bin/ltt-attack"; then
	t_fail "daemon attacks: programs built" "run make BUILD=$build first"
	t_summary
	exit 1
fi
out=$build/test-results/security-daemon
log=$out.log
rm -rf "$out"
mkdir -p "$out"
rc=0
vm_kernel ltt --no-build >"$log" 2>&1 || rc=$?
((rc == 0)) && { vm_module ltt >>"$log" 2>&1 || rc=$?; }
if ((rc == 0)); then
	vm_bins=("$build/bin/tracedaemon" "$build/bin/ltt-mark" "$build/bin/ltt-attack"
		tests/security/daemon-attacks.sh)
	vm_qemu=(--smp 1 --timeout 900 --mem 1G)
	vm_boot "$out" tests/security/daemon-attacks-guest.sh >>"$log" 2>&1
	rc=$?
fi
vm_report "$rc" "$log" "$out" "daemon attacks from uid 1000"
t_summary
