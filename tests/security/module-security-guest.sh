#!/bin/sh
# Runs inside the QEMU guest (busybox sh, as root; tests/suites/66-security.sh
# boots it on the patched kernel and on Debian's stock kernel) in the layout
# of tests/lib/vm-guest.sh, with ltt_modtest and module-suid in
# /opt/ltt/bin. The attacks of an ordinary user (uid 1000) on the trace
# module, each reported as a result line:
#   - with the module's default parameters: /dev/tracer is 0600, uid 1000
#     cannot open it, not even when the node is made 0666;
#   - with unprivileged=1 (restricted sessions on): a setuid-root helper,
#     a root process with euid 1000 and a non-dumpable process of uid 1000
#     leave no record in uid 1000's session, and no schedchange, wakeup
#     or signal there names the non-dumpable one; TEST_EMIT and LOCK are
#     refused, START/STOP is rate-limited, buffers count against the
#     locked-memory limit, uid 1000's user events stay out of root's
#     session, opens from another pid or user namespace are refused;
#     uid 1000's STOP does not hold root back during its grace period,
#     nor its tracing root's syscall IP policy; a mask change's CONFIG
#     record claims only a mask in force, its attach failing or not;
#     with CPUs isolated (the suite boots with CPU 1 isolated) its
#     heartbeats, snapshot IPIs and VARS mask changes leave them alone.
# usage: module-security-guest.sh [ABSENT]: ABSENT lists the kernel
# options of the checks the kernel's configuration lacks by design
# ("PID_NS,USER_NS,MEMCG"): those checks are skips that say so; on a
# kernel that has them they must run.
# Writes /out/results.txt and /out/dmesg.txt.
# shellcheck source=tests/lib/vm-guest.sh
. /opt/ltt/lib/vm-guest.sh
mt=$LTT/bin/ltt_modtest
LTT_KCONFIG_ABSENT=${1:-}
export LTT_KCONFIG_ABSENT

# The setuid helper, and a root-only /etc/shadow for it to open.
helper=/opt/ltt/ltt-suid
cp "$LTT/bin/module-suid" "$helper" && chown 0:0 "$helper" && chmod 4755 "$helper"
chk "setuid-root helper installed (mode 4755)" test -u "$helper"
[ -f /etc/shadow ] || echo 'root:*:19000:0:99999:7:::' >/etc/shadow
chown 0:0 /etc/shadow && chmod 600 /etc/shadow

ltt_load_first || { fail "/dev/tracer" "not created"; ltt_finish; exit 1; }
ok "insmod ltt_tracer.ko (default parameters)"
"$mt" security default >>"$res" 2>&1

rmmod ltt_tracer
if ltt_load unprivileged=1; then
	ok "insmod ltt_tracer.ko unprivileged=1"
	# Fault injection (fault_attach) is the test module's.
	chk "insmod ltt_test.ko" ltt_test_load
	chk "/dev/tracer is 0666 with unprivileged=1" sh -c 'ls -l /dev/tracer | grep -q "^crw-rw-rw-"'
	"$mt" security attacks "$helper" >>"$res" 2>&1
	# Booted with CPU 1 isolated (isolcpus=, nohz_full= where the kernel
	# has it): uid 1000's heartbeats and snapshot IPIs stay off it.
	"$mt" security isolated >>"$res" 2>&1
else
	fail "insmod ltt_tracer.ko unprivileged=1" "refused"
fi
ltt_finish
