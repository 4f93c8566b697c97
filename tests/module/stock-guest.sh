#!/bin/sh
# Runs inside the QEMU guest booted on an unmodified distribution kernel,
# where the trace module uses its tracepoint backend (module/ltt_tp.c), in
# the layout of tests/lib/vm-guest.sh (tracedaemon and ltt_modtest in
# /opt/ltt/bin; the kernel's virtio modules are loaded by the init).
# Writes to /out:
#   results.txt   the result lines
#   w.trace w.proc w.log   a workload traced by tracedaemon (checked on
#                 the host: tests/module/run-stock.sh)
#   dmesg.txt     the kernel log at the end
# usage: stock-guest.sh [check|idle]; idle: the getppid() loop before
# insmod, loaded idle, tracing, after STOP and after close (ltt_modtest
# idle, 7 runs) into /out/bench.txt, for a guest run with -icount.
# shellcheck source=tests/lib/vm-guest.sh
. /opt/ltt/lib/vm-guest.sh
mt=$LTT/bin/ltt_modtest
td=$LTT/bin/tracedaemon

if [ "${1:-check}" = idle ]; then
	base=$("$mt" syscalls 7)
	ltt_load_first
	LTT_BASELINE_NS=$base "$mt" idle 7 >"$out/idle.txt" 2>&1
	grep -v '^idle: ' "$out/idle.txt" >>"$res"
	grep '^idle: ' "$out/idle.txt" >"$out/bench.txt"
	ltt_finish
	exit 0
fi

# Restricted sessions on: ltt_modtest check opens sessions as uid 1000
# too (tests/security/ checks the default, root only).
ltt_load_first unprivileged=1 || { fail "/dev/tracer" "not created"; ltt_finish; exit 1; }
ok "ltt_tracer.ko loads on $(uname -r)"
# Test mode (TEST_EMIT, which ltt_modtest check uses) is the test module's.
chk "ltt_test.ko loads on $(uname -r)" ltt_test_load
dmesg | grep -q "kernel has no tracepoint" &&
	note "$(dmesg | grep 'kernel has no tracepoint' | tr '\n' ' ')"
cd "$out" || exit 1

# The event path (the probes and what they call) can be neither
# function-traced nor kprobed, as on the patched kernel (tests/module/
# guest.sh); ltt_ioctl can, which shows the check could fail.
tr=/sys/kernel/tracing
hotpath="ltt_callback ltt_task_match ltt_log ltt_write_slow ltt_tp_sys_enter
ltt_tp_sys_exit ltt_sys_derive_entry ltt_sys_derive_exit ltt_user_name
ltt_tp_sched_switch ltt_tp_page_fault ltt_tp_irq_entry ltt_tp_vector_entry
ltt_tp_fork ltt_tp_waking ltt_tp_hrtimer_expire ltt_tp_page_alloc"
if grep -q '^ltt_ioctl \[ltt_tracer\]' $tr/available_filter_functions; then
	traced= probed=
	for f in $hotpath; do
		grep -q "^$f \[ltt_tracer\]" $tr/available_filter_functions && traced="$traced $f"
		if echo "p:ltt_probe_$f ltt_tracer:$f" >>$tr/kprobe_events 2>/dev/null; then
			probed="$probed $f"
			echo "-:ltt_probe_$f" >>$tr/kprobe_events
		fi
	done
	if [ -z "$traced" ]; then ok "probes not function-traceable"
	else fail "probes not function-traceable" "traceable:$traced"; fi
	if [ -z "$probed" ]; then ok "probes refuse kprobes"
	else fail "probes refuse kprobes" "probed:$probed"; fi
else
	fail "function tracer sees the module" "ltt_ioctl not in available_filter_functions"
fi

# 0. The module's own functional checks (ltt_modtest check, as suite 60
#    runs them on the patched kernel): ioctls, filters, the syscall IP
#    policy, lost-event accounting, the version 2 records of a getppid()
#    loop, all through this backend.
LTT_TEST_PREFIX="stock: " "$mt" check >>"$res" 2>&1

# 1. A workload traced by tracedaemon: processes, files, a pipe, signals.
# shellcheck disable=SC2016 # the inner shell expands these
"$td" w.trace w.proc -- sh -c '
	i=0
	while [ $i -lt 20 ]; do
		cat /proc/version >/dev/null
		ls / >/dev/null
		echo $i >/tmp/ltt-stock.txt
		i=$((i + 1))
	done
	sleep 0.3 & kill -TERM $!; wait
	dd if=/dev/zero bs=4k count=64 2>/dev/null | cat >/dev/null
' >w.log 2>&1
rc=$?
if [ $rc = 0 ]; then ok "tracedaemon traces a workload"; else
	fail "tracedaemon traces a workload" "status $rc: $(tail -n 3 w.log | tr '\n' ' ')"
fi

# 2. START/STOP 50 times while a syscall load runs on every CPU: every
#    cycle registers and unregisters the probes (patches the tracepoints'
#    static keys) under running CPUs.
n=$(grep -c ^processor /proc/cpuinfo)
pids=
for _ in $(seq "$n"); do "$mt" load 1000000000 & pids="$pids $!"; done
LTT_TEST_PREFIX="$n CPUs loaded: " "$mt" toggle 50 >>"$res" 2>&1
# shellcheck disable=SC2086 # a list of pids
kill $pids 2>/dev/null
wait 2>/dev/null

# 3. Unload: the probes are gone, nothing of the module runs any more.
chk "rmmod ltt_test" rmmod ltt_test
chk "rmmod ltt_tracer" rmmod ltt_tracer
ltt_finish
