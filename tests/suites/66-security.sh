#!/usr/bin/env bash
# run-suites: kernels ltt debug
# The trace module against an ordinary user (uid 1000), in the QEMU guest
# (tests/security/module-security-guest.sh), on the patched kernel and on
# Debian's stock kernel (the tracepoint backend): with the default
# parameters uid 1000 cannot open /dev/tracer; with restricted sessions
# turned on (unprivileged=1) a setuid-root helper, a root process with
# euid 1000 and a non-dumpable process leave no record in its session
# (nor does a schedchange, wakeup or signal name the non-dumpable one),
# TEST_EMIT and LOCK are refused, START/STOP is rate-limited, buffers
# count against RLIMIT_MEMLOCK, its user events stay out of root's
# session, opens from other pid or user namespaces are refused, its
# STOP's grace period and its tracing first hold nothing of root's back,
# and with CPU 1 isolated (isolcpus=domain; nohz_full too where the
# kernel has NO_HZ_FULL) its heartbeats, snapshots and VARS mask changes
# leave that CPU alone; a mask change's CONFIG record claims only a mask
# in force when an attach fails (the test module ltt_test.ko's fault_attach).
# Runs on the patched, the debug (KASAN, lockdep) and the stock kernel
# (LTT_SECURITY_KERNELS chooses). The namespace and cgroup checks are
# skips "by design" where the kernel is built without them (the patched
# kernels) and must run on the stock kernel. A kernel console with a
# warning fails the run. A kernel not in the cache is skipped, not built
# here.
# LTT_SKIP_VM=1 skips the suite.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo" || exit 1
source tests/lib/sh-test.sh
source tests/lib/vm-host.sh
vm_suite_skip_if_requested "security suite"

build=$vm_build
mkdir -p "$build/security"
make -s BUILD="$build" module-test >&2 || t_fail "security: ltt_modtest builds"
t_check "security: the setuid helper builds (static)" \
	gcc -static -O2 -Wall -Wextra -Werror -o "$build/security/module-suid" \
	tests/security/module-suid.c

for variant in ${LTT_SECURITY_KERNELS:-ltt debug stock}; do
	out=$build/test-results/security-$variant
	log=$out.log
	rm -rf "$out"
	mkdir -p "$out"
	rc=0
	vm_kernel "$variant" --no-build >"$log" 2>&1 || rc=$?
	((rc == 0)) && { vm_module "$variant" >>"$log" 2>&1 || rc=$?; }
	if ((rc == 0)); then
		vm_bins=("$build/module/ltt_modtest" "$build/security/module-suid")
		# CPU 1 isolated: isolcpus=nohz needs NO_HZ_FULL (Debian's
		# kernels have it; the patched ones do not, and refuse the whole
		# isolcpus= option then).
		isolate="isolcpus=domain,1"
		grep -qs '^CONFIG_NO_HZ_FULL=y' "$vm_kdir/.config" &&
			isolate="isolcpus=nohz,domain,1 nohz_full=1"
		# What the namespace and cgroup checks need and the kernel's
		# configuration leaves out (the patched kernels: tinyconfig
		# plus guest.config, without them by design) is a skip there;
		# the stock kernel has them all, so there they must run.
		absent=
		for opt in PID_NS USER_NS MEMCG; do
			grep -qs "^CONFIG_$opt=y" "$vm_kdir/.config" || absent+="$opt,"
		done
		if [[ $variant == stock ]]; then
			if [[ -z $absent ]]; then
				t_pass "[$variant] the kernel has PID_NS, USER_NS and MEMCG: the namespace and cgroup checks run"
			else
				t_fail "[$variant] the kernel has PID_NS, USER_NS and MEMCG" "missing: ${absent%,}"
			fi
		fi
		vm_qemu=(--timeout 900 --mem 1G --smp 2 --append "$isolate")
		# One word: qemu-run.sh joins the guest command's arguments.
		vm_boot "$out" tests/security/module-security-guest.sh "${absent%,}" >>"$log" 2>&1
		rc=$?
	fi
	vm_report "$rc" "$log" "$out" "[$variant] security run" "[$variant] " || continue
done
t_summary
