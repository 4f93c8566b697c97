#!/bin/sh
# Runs inside the QEMU guest for the latency witness suite
# (tests/suites/82-latency-witness.sh), on the patched and the stock
# kernel. Two workloads whose answers are known by construction, traced by
# tracedaemon while ftrace measures the same run; the host checks them
# (tests/latency/check_witness.py):
#   tick   wl_tick: one thread woken by a periodic timer while CPU hogs
#          compete. ftrace records sched_waking, sched_switch and the
#          hrtimer expiries (their "now" is the kernel's own time of the
#          waking interrupt).
#   chain  wl_chain: three processes pass a token through pipes and only
#          the first sleeps; the last one's critical path must lead to the
#          first one's timer through the middle one.
# The layout is tests/lib/vm-guest.sh's.
# shellcheck source=tests/lib/vm-guest.sh
. /opt/ltt/lib/vm-guest.sh
set -u
W=$LTT/workloads
T=/sys/kernel/tracing
[ -d $T/events ] || mount -t tracefs nodev $T 2>/dev/null

if ! ltt_load_first; then
	exit 1
fi
ok "insmod ltt_tracer.ko"
uname -r >"$out/uname.txt"

# session_start NAME: tracedaemon traces everything into NAME.trace/.proc;
# returns once it traces. session_stop NAME: SIGINT, and its status.
session_start() {
	tracedaemon -q "$out/$1.trace" "$out/$1.proc" >"$out/$1.daemon.log" 2>&1 &
	td=$!
	i=0
	while [ ! -s "$out/$1.proc" ] && [ $i -lt 1200 ]; do sleep 0.1; i=$((i + 1)); done
}
session_stop() {
	kill -INT $td
	wait $td
	echo $? >"$out/$1.daemon.status"
}

# run NAME COMMAND...: COMMAND with its output in NAME.out, its status in
# NAME.status.
run() {
	name=$1
	shift
	"$@" >"$out/$name.out" 2>&1
	echo $? >"$out/$name.status"
}

# 1. tick: 300 periods of 10 ms against two hogs on the two vCPUs. The
# session starts first: on the stock kernel its tracepoint probes then run
# before ftrace's on the same tracepoints: each of ltt's times is taken
# before ftrace's for the same event.
session_start tick
echo 0 >$T/tracing_on
echo >$T/trace
echo 8192 >$T/buffer_size_kb
# ftrace's default clock, "local", is each CPU's own sched_clock(): in this
# guest the kernel finds the vCPUs' TSCs unsynchronized, and a wakeup on
# one vCPU and the run on the other then differ by the TSCs' skew (2.5 ms
# and more seen). "mono" is one clocksource for every CPU, as ltt's.
echo mono >$T/trace_clock
cat $T/trace_clock >"$out/tick.trace_clock"
# The witness is ftrace's raw sched_waking/sched_switch pairs, and the
# hrtimer expiries, whose "now" is the kernel's own ktime_get() at the
# interrupt that wakes wl_tick. Not the wakeup_latency recipe of
# histogram.rst: its hist triggers switch the buffer to absolute time
# stamps, and in this guest (Debian's 6.1.0-56) those stood 32 to 44 ms
# off the hrtimers' "now", wandering by 12 ms within one run, so that the
# recipe's tail was wrong by milliseconds; without triggers ftrace's
# wakings lie 10 us to 4.2 ms after "now", ltt's 7 us to 4.2 ms.
echo 1 >$T/events/sched/sched_waking/enable
echo 1 >$T/events/sched/sched_switch/enable
echo 1 >$T/events/timer/hrtimer_expire_entry/enable
echo 1 >$T/tracing_on
run tick "$W/wl_tick" 300 10 2
echo 0 >$T/tracing_on
cat $T/trace >"$out/tick.ftrace"
cat $T/per_cpu/cpu*/stats >"$out/tick.ftrace.stats"
echo 0 >$T/events/enable
echo >$T/trace
echo local >$T/trace_clock
session_stop tick
chk "tick: wl_tick exits 0" [ "$(cat "$out/tick.status")" = 0 ]

# 2. chain: 30 rounds of a 50 ms sleep in the first of three processes
# (under TCG a round's pipe hops take about 1 ms).
session_start chain
run chain "$W/wl_chain" 30 50
session_stop chain
chk "chain: wl_chain exits 0" [ "$(cat "$out/chain.status")" = 0 ]
ltt_finish
