#!/usr/bin/env bash
# What uid 1000 can do to root's tracedaemon, in the QEMU guest on the
# patched kernel (tests/security/daemon-attacks.sh, run by
# tests/security/daemon-attacks-guest.sh): a snapshot flood, a planted
# snapshot name, an fd flood, a stream flood, a sparse memfd, a semaphore
# eventfd, a planted control FIFO; each must be held. The same script runs
# as root on a host where the module is loaded. The kernel is not built
# here: not in the cache, a skip. LTT_SKIP_VM=1 skips the guest part.
# On the host (root, FUSE): a FUSE file whose flush is never answered,
# passed to the user-event server (ltt-user-server-host, the daemon's own
# server without the module): the server still serves and stops.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo" || exit 1
source tests/lib/sh-test.sh
source tests/lib/vm-host.sh

build=$vm_build
[[ $build == /* ]] || build=$repo/$build
if ! vm_need "$build/bin/tracedaemon" "$build/bin/ltt-mark" "$build/bin/ltt-attack" \
	"$build/bin/ltt-user-server-host"; then
	t_fail "daemon attacks: programs built" "run make BUILD=$build first"
	t_summary
	exit 1
fi

# The FUSE attack on the host (the guest kernels have no FUSE).
host=$build/test-results/security-daemon-host.txt
mkdir -p "$build/test-results"
if [[ $(id -u) != 0 ]]; then
	t_skip "[host] a FUSE fd whose flush never answers" "not root"
else
	ONLY=fuse DEV=/nonexistent SERVER=$build/bin/ltt-user-server-host TD=$build/bin/tracedaemon \
		MARK=$build/bin/ltt-mark ATTACK=$build/bin/ltt-attack \
		tests/security/daemon-attacks.sh >"$host" 2>&1
	rc=$?
	grep -qE '^(ok|FAIL|skip) - ' "$host" || t_fail "[host] FUSE attack ran" "status $rc: $(tail -n 3 "$host")"
	vm_import "$host" "[host] "
fi

vm_suite_skip_if_requested "daemon security suite (guest)"
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
