#!/bin/sh
# Runs inside the QEMU guest for the variables suite (tests/suites/62-vars.sh)
# as its `control` run: masks changed while tracing.
#
# tracedaemon --control FIFO traces the whole system; three wl_syscalls runs
# (tests/workloads/wl_syscalls.c: exactly N getpid calls in a forked child)
# make 100, 200 and 300 calls; between the first and the second the script
# writes "events -SYSCALL" to the FIFO, between the second and the third
# "events +SYSCALL", and a bad line that must be reported and ignored. The
# trace goes to /out; the host (tests/module/check_control.py) checks that
# the system calls of the second run are missing and the others complete,
# that the trace has the two CONFIG records, and what traceanalyze says.
# shellcheck source=tests/lib/vm-guest.sh
. /opt/ltt/lib/vm-guest.sh
set -u
W=$LTT/workloads
O=$out
ctl=/tmp/ltt.ctl

ltt_load_first || { echo "guest: /dev/tracer not created" >&2; exit 1; }
ok "insmod ltt_tracer.ko"
mkdir -p /tmp/wlc

tracedaemon -q -ts120 --control "$ctl" "$O/control.trace" "$O/control.proc" \
	>"$O/control.out" 2>"$O/control.err" &
td=$!
i=0
while [ ! -p "$ctl" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
chk "tracedaemon --control creates the FIFO" test -p "$ctl"
chk "the FIFO is mode 0600" test "$(stat -c %a "$ctl")" = 600
# The .proc is renamed into place once tracing runs (slow on the debug
# kernel: a fixed sleep is not enough there).
i=0
while [ ! -f "$O/control.proc" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
# The daemon applies a line as soon as it reads it; one second is ample for
# the ioctl (a grace period) even under TCG.
"$W/wl_syscalls" 100 64 /tmp/wlc >"$O/run1.out" 2>&1
echo "events -SYSCALL" >"$ctl"
echo "bogus line" >"$ctl"
sleep 1
"$W/wl_syscalls" 200 64 /tmp/wlc >"$O/run2.out" 2>&1
echo "events +SYSCALL" >"$ctl"
sleep 1
"$W/wl_syscalls" 300 64 /tmp/wlc >"$O/run3.out" 2>&1
sleep 0.5
kill -INT $td
wait $td
echo $? >"$O/control.status"
chk "tracedaemon --control: exit status 0" test "$(cat "$O/control.status")" = 0
chk "the bad control line is reported by name" grep -q "control line 'bogus line'" "$O/control.err"
chk "the FIFO is removed at exit" test ! -e "$ctl"
rmmod ltt_tracer
chk "rmmod ltt_tracer after the control run" test ! -c /dev/tracer
ltt_finish
echo "guest: done"
