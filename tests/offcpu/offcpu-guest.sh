#!/bin/sh
# Runs inside the QEMU guest for the off-CPU suite (tests/suites/69-offcpu.sh),
# on the patched kernel and on Debian's stock kernel. Leaves in /out for the
# host (tests/offcpu/check_offcpu.py):
#   off.trace/.proc/.kallsyms  tracedaemon -S -- wl_offcpu /dev/vdb: a task
#                   that blocks in a pipe read, a nanosleep and an fsync of
#                   the scratch disk
#   wl.txt          the workload's pid and each call's wall time
#   ftrace.txt      the kernel's own stack at each of the workload's
#                   blocking switches, taken in the same run by ftrace's
#                   stacktrace trigger on sched_switch
#   small.trace/.proc  the same with scheduling, process, file-system and
#                   MAP events only (traceview's flame-graph fixture)
#   user.trace/.proc  the same workload under a restricted session of uid
#                   1000 (unprivileged=1): user stacks only
# The layout is tests/lib/vm-guest.sh's.
# shellcheck source=tests/lib/vm-guest.sh
. /opt/ltt/lib/vm-guest.sh
set -u
W=$LTT/workloads
T=/sys/kernel/tracing

if ! ltt_load_first unprivileged=1; then
	fail "insmod ltt_tracer.ko unprivileged=1" "no /dev/tracer"
	ltt_finish
	exit 1
fi
ok "insmod ltt_tracer.ko unprivileged=1"

# The witness: the kernel's stack at every switch of the workload out
# blocked (S or D; a preempted task shows as R+, prev_state 0x100).
[ -d $T/events ] || mount -t tracefs nodev $T 2>/dev/null
ftrace=0
if [ -w $T/events/sched/sched_switch/trigger ]; then
	echo 0 >$T/tracing_on
	echo 4096 >$T/buffer_size_kb
	echo >$T/trace
	echo 'prev_comm == "wl_offcpu"' >$T/events/sched/sched_switch/filter
	echo 1 >$T/events/sched/sched_switch/enable
	if echo 'stacktrace if prev_comm == "wl_offcpu" && prev_state & 3' \
		>$T/events/sched/sched_switch/trigger; then
		ftrace=1
		echo 1 >$T/tracing_on
	else
		skip "ftrace stacktrace trigger on sched_switch" "the trigger is refused"
	fi
else
	skip "ftrace stacktrace trigger on sched_switch" "no tracefs"
fi

tracedaemon -q -S "$out/off.trace" "$out/off.proc" -- "$W/wl_offcpu" /dev/vdb \
	>"$out/wl.txt" 2>"$out/off.log"
echo $? >"$out/off.status"

if [ $ftrace = 1 ]; then
	echo 0 >$T/tracing_on
	echo '!stacktrace if prev_comm == "wl_offcpu" && prev_state & 3' \
		>$T/events/sched/sched_switch/trigger
	echo 0 >$T/events/sched/sched_switch/enable
	cat $T/trace >"$out/ftrace.txt"
fi

# A small trace of the same for traceview's flame graph (tests/gui/data).
tracedaemon -q -S -e SCHED,PROCESS,FS,MAP "$out/small.trace" "$out/small.proc" -- \
	"$W/wl_offcpu" /dev/vdb >/dev/null 2>"$out/small.log"

# A restricted session of uid 1000: the workload fsyncs a file of its own.
dir=/tmp/offcpu
mkdir -p $dir
chmod 0777 $dir
su -s /bin/sh user -c "touch $dir/dev; exec tracedaemon -q -S $dir/user.trace $dir/user.proc -- \
	$W/wl_offcpu $dir/dev" >"$out/user.wl.txt" 2>"$out/user.log"
echo $? >"$out/user.status"
cp $dir/user.trace $dir/user.proc "$out/" 2>/dev/null
ltt_finish
