#!/bin/sh
# Runs inside the QEMU guest (busybox sh, as root) with the trace module
# and ltt_modtest in the layout of tests/lib/vm-guest.sh. Writes to /out:
#   results.txt  the result lines (tests/lib/vm-guest.sh), "# ..." notes
#   bench.txt    the benchmark figures (mode bench)
#   dmesg.txt    the kernel log at the end
# usage: guest.sh check|unload|bench|idle [CYCLES]
#   check   every functional check (run it on 2 vCPUs), that the event
#           path can be neither function-traced nor kprobed, and CYCLES
#           (default 300) START/STOP cycles with a syscall load on every
#           CPU; the module stays loaded at the end
#   unload  CYCLES/3 START/STOP cycles under load, rmmod under load,
#           reload, the other clocks (suite 60 runs it on 1 vCPU; `check`
#           has the START/STOP text patching on 2)
#   bench   the benchmark
#   idle    what the loaded module costs while no trace runs: the getppid()
#           loop before insmod, then loaded and idle, tracing, stopped and
#           closed (ltt_modtest idle; run the guest with -icount for
#           reproducible figures); the figures also go to bench.txt
# shellcheck source=tests/lib/vm-guest.sh
. /opt/ltt/lib/vm-guest.sh
mode=${1:-check}
cycles=${2:-300}
mt=ltt_modtest

# The benchmark's baseline: the syscall loop before the module is loaded.
case $mode in
bench | idle) base=$("$mt" syscalls "${BENCH_REPS:-7}") ;;
esac
# Restricted sessions on: the checks open sessions as uid 1000 too
# (tests/security/ checks the default, root only).
ltt_load_first unprivileged=1
ok "insmod ltt_tracer.ko"
chk "/dev/tracer created" test -c /dev/tracer
# Test mode (TEST_EMIT) is the test module's: not there before it is
# loaded.
if [ "$mode" = check ]; then
	"$mt" one no-test-module >>"$res" 2>&1
fi
chk "insmod ltt_test.ko" ltt_test_load

if [ "$mode" = bench ]; then
	LTT_BASELINE_NS=$base "$mt" bench "${BENCH_REPS:-7}" >"$out/bench.txt" 2>&1
	echo "exit $?" >>"$out/bench.txt"
	ltt_finish
	exit 0
fi
if [ "$mode" = idle ]; then
	LTT_BASELINE_NS=$base "$mt" idle "${BENCH_REPS:-7}" >"$out/idle.txt" 2>&1
	grep -v '^idle: ' "$out/idle.txt" >>"$res"
	grep '^idle: ' "$out/idle.txt" >"$out/bench.txt"
	ltt_finish
	exit 0
fi

# The event path can be neither function-traced nor kprobed (it would
# re-enter the writer in the middle of a record); other module functions can,
# which shows the checks could fail.
hotpath="ltt_callback ltt_task_match ltt_log_event ltt_write_slow ltt_open_block
ltt_callback_filtered ltt_callback_context ltt_callback_many ltt_restrict
ltt_task_owned ltt_block_pid ltt_trace_task_pid ltt_log_chan ltt_log_extra
ltt_exit_trigger ltt_close_block ltt_fold_nmi_lost ltt_drop ltt_log_heartbeat
ltt_heartbeat_fn"
check_untraceable() {
	tr=/sys/kernel/tracing
	if [ ! -r $tr/available_filter_functions ] || [ ! -w $tr/kprobe_events ]; then
		fail "event path not traceable" "no function tracer or kprobe events in this kernel"
		return
	fi
	if grep -q '^ltt_ioctl \[ltt_tracer\]' $tr/available_filter_functions; then
		ok "function tracer sees the module (ltt_ioctl)"
	else
		fail "function tracer sees the module" "ltt_ioctl not in available_filter_functions"
	fi
	traced=
	for f in $hotpath; do
		grep -q "^$f \[ltt_tracer\]" $tr/available_filter_functions && traced="$traced $f"
	done
	if [ -z "$traced" ]; then ok "event path not function-traceable"
	else fail "event path not function-traceable" "traceable:$traced"; fi
	if echo 'p:ltt_probe_ok ltt_tracer:ltt_ioctl' >>$tr/kprobe_events 2>/dev/null; then
		ok "kprobe on ltt_ioctl accepted"
		echo '-:ltt_probe_ok' >>$tr/kprobe_events
	else
		fail "kprobe on ltt_ioctl accepted" "refused"
	fi
	probed=
	for f in $hotpath; do
		if echo "p:ltt_probe_$f ltt_tracer:$f" >>$tr/kprobe_events 2>/dev/null; then
			probed="$probed $f"
			echo "-:ltt_probe_$f" >>$tr/kprobe_events
		fi
	done
	if [ -z "$probed" ]; then ok "event path refuses kprobes"
	else fail "event path refuses kprobes" "probed:$probed"; fi
}

# Every START registers the callback with the facility (or the probes with
# the tracepoints) and every STOP unregisters it, which patches the
# kernel's hook sites while the other CPU runs through them: CYCLES cycles
# with a syscall load on every CPU.
toggle_under_load() {
	loads=
	for _ in $(seq "$(nproc)"); do
		"$mt" load 1000000000 &
		loads="$loads $!"
	done
	t0=$(date +%s)
	LTT_TEST_PREFIX="$(nproc) CPUs loaded: $cycles " "$mt" toggle "$cycles" >>"$res" 2>&1
	note "$cycles START/STOP cycles under load took $(($(date +%s) - t0)) s"
	# shellcheck disable=SC2086 # a list of pids
	kill -KILL $loads
	# shellcheck disable=SC2086
	wait $loads 2>/dev/null
}

if [ "$mode" = check ]; then
	check_untraceable
	"$mt" check >>"$res" 2>&1
	toggle_under_load
	ltt_finish
	exit 0
fi

# Unload while tracing under load: a syscall-heavy load, a reader holding a
# trace of every event.
"$mt" load 1000000000 &
load1=$!
"$mt" load 1000000000 &
load2=$!
# START/STOP cycles while the load makes syscalls.
"$mt" toggle $((cycles / 3)) >>"$res" 2>&1
"$mt" hold >"$out/hold.txt" 2>&1 &
holder=$!
chk "trace held under load" wait_for "$out/hold.txt" holding
sleep 1
chk "rmmod ltt_test while a trace is open" rmmod ltt_test
if rmmod ltt_tracer 2>/dev/null; then
	fail "rmmod refused while /dev/tracer is open" "rmmod succeeded"
else
	ok "rmmod refused while /dev/tracer is open"
fi
kill -KILL $holder
wait $holder 2>/dev/null
chk "rmmod right after the tracing reader is killed, load running" rmmod ltt_tracer
chk "insmod again" insmod "$ko"
ltt_wait_dev
"$mt" hold >"$out/hold2.txt" 2>&1 &
holder=$!
chk "new trace after reload" wait_for "$out/hold2.txt" holding
kill -TERM $holder
wait $holder 2>/dev/null
kill -KILL $load1 $load2
wait $load1 $load2 2>/dev/null
chk "rmmod after the load stops" rmmod ltt_tracer

# The other clocks: the TSC forced (whatever its flags say), and CLOCK_MONOTONIC
# with no periodic heartbeat, where a 5 s gap overflows a 32-bit delta.
if insmod "$ko" clock=tsc && ltt_test_load; then
	ok "insmod clock=tsc"
	LTT_TEST_PREFIX="clock=tsc: " "$mt" quick >>"$res" 2>&1
	chk "rmmod (clock=tsc)" sh -c 'rmmod ltt_test && rmmod ltt_tracer'
else
	fail "insmod clock=tsc" "refused"
fi
if insmod "$ko" clock=local heartbeat_ms=0; then
	ok "insmod clock=local heartbeat_ms=0"
	"$mt" gap >>"$res" 2>&1
	chk "rmmod (heartbeat_ms=0)" rmmod ltt_tracer
else
	fail "insmod clock=local heartbeat_ms=0" "refused"
fi
ltt_finish
exit 0
