#!/bin/sh
# Runs inside the QEMU guest for the kernel-state variables suite
# (tests/suites/62-vars.sh), as `vars-guest.sh check` or `vars-guest.sh
# bench` (the latter under -icount, one vCPU).
#
# check: traces wl_vars (tests/workloads/wl_vars.c: openat of /etc/passwd,
# read, write, close, getrusage, mount and umount of a tmpfs, then two
# children appending to one file) with tracedaemon -V selecting the
# system-call arguments and a few variables and -e ALL,MOUNT,LOCK, and
# again with -e ALL,MOUNT (no LOCK); then two tracedaemons at once, one
# with -V pid,uid, the other with -V args,ppid,minflt, while wl_vars runs
# once more. The traces and the workload's own readings (its pid, ppid,
# uid, minflt) go to /out; the host checks them.
#
# bench: the getppid() loop while system calls are traced with 0, 1 and 4
# variables selected (ltt_modtest vars), in instructions (-icount), into
# /out/bench.txt.
# shellcheck source=tests/lib/vm-guest.sh
. /opt/ltt/lib/vm-guest.sh
set -u
mode=${1:-check}
W=$LTT/workloads
O=$out

ltt_load_first || { echo "guest: /dev/tracer not created" >&2; exit 1; }
ok "insmod ltt_tracer.ko"

if [ "$mode" = bench ]; then
	base=$(ltt_modtest vars 0) || fail "vars bench: no variables" "ltt_modtest vars 0 failed"
	one=$(ltt_modtest vars 0x2) || fail "vars bench: pid" "ltt_modtest vars 0x2 failed"
	# pid, ppid, uid, minflt: bits 1, 2, 14, 15
	four=$(ltt_modtest vars 0xc006) || fail "vars bench: 4 variables" "ltt_modtest vars 0xc006 failed"
	args=$(ltt_modtest vars 0x1) || fail "vars bench: args" "ltt_modtest vars 0x1 failed"
	echo "getppid loop, traced (syscall entry+exit), instructions per call: no variables $base, pid $one, pid+ppid+uid+minflt $four, args $args" >"$O/bench.txt"
	note "$(cat "$O/bench.txt")"
	ok "vars bench ran"
	rmmod ltt_tracer
	ltt_finish
	exit 0
fi

# The workload reads 100 bytes of /etc/passwd: make sure it has them.
if [ ! -f /etc/passwd ] || [ "$(wc -c </etc/passwd)" -lt 100 ]; then
	mkdir -p /etc
	{
		echo "root:x:0:0:root:/root:/bin/sh"
		echo "daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin"
		echo "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin"
	} >>/etc/passwd
fi
mkdir -p /tmp/wlmnt

# run NAME EVENTS VARS: trace wl_vars with tracedaemon -e EVENTS -V VARS.
run() {
	rm -f /tmp/wl_vars.dat
	tracedaemon -q -e "$2" -V "$3" -T "$O/$1.trace" "$O/$1.proc" -- \
		"$W/wl_vars" /tmp/wlmnt /tmp/wl_vars.dat 3 4000 >"$O/$1.out" 2>"$O/$1.err"
	echo $? >"$O/$1.status"
}
run vars ALL,MOUNT,LOCK args,pid,ppid,uid,minflt
run nolock ALL,MOUNT pid
# Two sessions at once with different variables: two tracedaemons trace
# the whole system, wl_vars runs while both trace, then SIGINT stops both
# (a fixed duration could end before a slow debug guest ran the workload;
# -t only bounds a hung run).
for s in a b; do rm -f "$O/two$s.trace" "$O/two$s.proc"; done
tracedaemon -q -ts120 -e syscall,sched -V pid,uid "$O/twoa.trace" "$O/twoa.proc" \
	>"$O/twoa.out" 2>&1 &
two_a=$!
tracedaemon -q -ts120 -e syscall,sched -V args,ppid,minflt "$O/twob.trace" "$O/twob.proc" \
	>"$O/twob.out" 2>&1 &
two_b=$!
# Each .proc is renamed into place once its session traces (slow on the
# debug kernel: a fixed sleep is not enough there).
i=0
while { [ ! -f "$O/twoa.proc" ] || [ ! -f "$O/twob.proc" ]; } && [ $i -lt 600 ]; do
	sleep 0.1
	i=$((i + 1))
done
rm -f /tmp/wl_vars.dat
"$W/wl_vars" /tmp/wlmnt /tmp/wl_vars.dat 3 4000 >"$O/two.out" 2>&1
kill -INT $two_a $two_b
wait $two_a
echo $? >"$O/twoa.status"
wait $two_b
echo $? >"$O/twob.status"
chk "two tracedaemons with different -V at once: both exit 0" \
	test "$(cat "$O/twoa.status") $(cat "$O/twob.status")" = "0 0"
chk "wl_vars under tracedaemon -V: exit status 0" test "$(cat "$O/vars.status")" = 0
chk "wl_vars without LOCK: exit status 0" test "$(cat "$O/nolock.status")" = 0
rmmod ltt_tracer
chk "rmmod ltt_tracer after the variables runs" test ! -c /dev/tracer
ltt_finish
echo "guest: done"
