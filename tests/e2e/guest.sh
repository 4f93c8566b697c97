#!/bin/sh
# Runs inside the QEMU guest for the accuracy suite (tests/suites/90-e2e.sh).
# Each scenario traces the whole system while one workload with known
# behaviour runs, and leaves SCENARIO.trace/.proc plus the independent
# measurements (the workload's own /proc readings, strace -c, ftrace) in /out.
# The host checks them (tests/e2e/check_accuracy.py). The layout is that of
# tests/lib/vm-guest.sh (tracedaemon in /opt/ltt/bin, workloads in
# /opt/ltt/workloads). With --stock (tests/suites/95-stock.sh, Debian's
# unmodified kernel) it also records uname -r in /out/uname.txt and reports
# the module's load as a result line.
# shellcheck source=tests/lib/vm-guest.sh
. /opt/ltt/lib/vm-guest.sh
set -u
W=$LTT/workloads
O=$out
T=/sys/kernel/tracing

stock=0
if [ "${1:-}" = --stock ]; then
	stock=1
	uname -r >"$O/uname.txt"
fi

if ! ltt_load_first; then
	[ $stock = 1 ] && fail "stock: ltt_tracer.ko loads and /dev/tracer appears" "no /dev/tracer 5 s after insmod"
	echo "guest: /dev/tracer not created" >&2
	exit 1
fi
[ $stock = 1 ] && ok "stock: ltt_tracer.ko loads and /dev/tracer appears"

# scenario NAME COMMAND...: trace everything while COMMAND runs. With
# QUIET=1 the command's output is not redirected: a redirect makes the
# shell's child open, dup2 and close before the exec, and those system calls
# belong to the same PID as the workload's (correctly: it is one process).
scenario() {
	name=$1
	shift
	tracedaemon -q "$O/$name.trace" "$O/$name.proc" >"$O/$name.daemon.log" 2>&1 &
	daemon=$!
	# The daemon has started tracing when it writes the .proc file (its
	# snapshot follows START): on a slow or busy emulation that can take
	# longer than a second, and a workload run before it is not traced.
	i=0
	while [ ! -s "$O/$name.proc" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	sleep 1
	if [ "${QUIET:-0}" = 1 ]; then
		"$@"
	else
		"$@" >"$O/$name.out" 2>&1
	fi
	echo $? >"$O/$name.status"
	sleep 0.3
	kill -INT $daemon
	wait $daemon
	echo $? >"$O/$name.daemon.status"
}

ftrace_on() {
	echo 0 >$T/tracing_on
	echo >$T/trace
	echo 8192 >$T/buffer_size_kb
	echo 1 >$T/events/sched/sched_switch/enable
	echo 1 >$T/events/sched/sched_waking/enable
	echo 1 >$T/events/raw_syscalls/sys_enter/enable
	echo 1 >$T/tracing_on
}
ftrace_off() { # ftrace_off FILE
	echo 0 >$T/tracing_on
	cat $T/trace >"$1"
	cat $T/per_cpu/cpu*/stats >"$1.stats"
	echo 0 >$T/events/enable
}

# 1. exact syscall counts and bytes, with ftrace's counters over the same run
ftrace_on
QUIET=1
scenario syscalls $W/wl_syscalls 200 512 /tmp
QUIET=0
ftrace_off "$O/syscalls.ftrace"
# the same program under strace -c
/usr/bin/strace -f -c -o "$O/syscalls.strace" "$W/wl_syscalls" 200 512 /tmp
# 2. a fork tree of known shape, with exec
scenario forktree $W/wl_forktree 2 3 $W/wl_leaf
# 3. CPU-bound: compared with the process's own schedstat and stat
scenario cpu "$W/wl_cpu" 2 "$O/cpu.json"
# 4. sleeping in nanosleep: 20 x 25 ms
scenario sleep $W/wl_sleep 20 25
# 5. O_DIRECT reads from the virtio scratch disk: I/O wait
scenario odirect $W/wl_odirect /dev/vdb 300
# 6. pipe ping-pong: wakeups and scheduling changes, with ftrace beside
ftrace_on
scenario pingpong $W/wl_pingpong 1000
ftrace_off "$O/pingpong.ftrace"
# 7. traceanalyze --follow beside a running tracedaemon (when the host
# brought traceanalyze: tests/suites/90-e2e.sh compares its last report
# with the finished file's). Small module buffers and a short flush
# interval make the trace grow in many steps.
if [ -x $LTT/bin/traceanalyze ] && cd "$O"; then
	tracedaemon -q -b 16K --flush-interval 200ms follow.trace follow.proc \
		>follow.daemon.log 2>&1 &
	daemon=$!
	traceanalyze --follow --interval 0.2 --timeout 60 follow.trace follow.proc \
		>follow.out 2>follow.err &
	follower=$!
	sleep 1
	$W/wl_syscalls 2000 512 /tmp >/dev/null 2>&1
	sleep 1
	kill -INT $daemon
	wait $daemon
	wait $follower
	echo $? >follow.status
	cd /
fi
rmmod ltt_tracer
ltt_finish
echo "guest: done"
