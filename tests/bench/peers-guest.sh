#!/bin/sh
# shellcheck disable=SC2086,SC2119 # $cmd is a command line of plain words; ltt_load_first is called without arguments
# The guest side of make bench-peers (scripts/bench-peers.sh), in the
# layout of tests/lib/vm-guest.sh plus LTTng 2.13 staged by the host
# (lttng, lttng-sessiond, lttng-consumerd and their libraries under /usr
# and /lib, the lttng-modules under /lib/modules/$(uname -r)/extra with a
# modules.dep). Runs RUNS times each workload (getppid: peers-bench
# getppid ITERS; mixed: tests/bench/peers-mixed.sh) for each tracer, in
# this order: none (no tracer module), ltt_idle (ltt_tracer.ko loaded, no
# trace), ltt (tracedaemon), ftrace (tracefs), lttng (lttng-sessiond).
# Every traced run is a session of its own, started before and stopped
# after the timed run. Writes to /out:
#   runs.txt      one line per run: "run WORKLOAD TRACER I ns=N" and for
#                 the tracers "bytes=N" (ltt: the .trace file; ftrace: the
#                 pages read from the per-CPU trace_pipe_raw; lttng: the
#                 stream files, without metadata and index), ftrace also
#                 "events=N lost=N" (per_cpu/cpuN/stats: entries before
#                 the read; overrun + commit overrun + dropped events),
#                 lttng "lost=N" (lttng list: discarded events)
#   traces/       the ltt and lttng traces of every run but the first of
#                 each series, for the host to count their events
#   results.txt   "FAIL - ..." lines when a tracer could not be set up
# usage: peers-guest.sh RUNS ITERS FTRACE_KB LTT_BUFFER LTTNG_SUBBUF LTTNG_NSUBBUF LTT_CLOCK
# shellcheck source=tests/lib/vm-guest.sh
. /opt/ltt/lib/vm-guest.sh
set -u
[ $# -eq 7 ] || { echo "usage: peers-guest.sh RUNS ITERS FTRACE_KB LTT_BUFFER LTTNG_SUBBUF LTTNG_NSUBBUF LTT_CLOCK" >&2; exit 2; }
runs=$1 iters=$2 ftrace_kb=$3 ltt_buf=$4 subbuf=$5 nsubbuf=$6 ltt_clock=$7
R=$out/runs.txt
TR=$out/traces
T=/sys/kernel/tracing
mkdir -p "$TR"
: >"$R"

# The command of one timed run of WORKLOAD (it prints "ns N"), split into
# words where it runs.
workload_cmd() {
	case $1 in
	getppid) echo "peers-bench getppid $iters" ;;
	mixed) echo "peers-bench time sh $LTT/bench/peers-mixed.sh" ;;
	esac
}
# ns_of FILE: the N of the "ns N" line in FILE.
ns_of() { sed -n 's/^ns //p' "$1"; }

# series TRACER FN: FN DIR for I in 1..RUNS and both workloads, with the
# run's command in $cmd; FN prints the run's fields ("ns=N ..."), or
# nothing when the run failed. DIR is a fresh directory for the run's
# files; it is kept in traces/ for every run but the first.
series() {
	for wl in getppid mixed; do
		i=1
		while [ "$i" -le "$runs" ]; do
			d=$TR/$1-$wl-$i
			rm -rf "$d"
			mkdir -p "$d"
			cmd=$(workload_cmd "$wl")
			fields=$($2 "$d")
			case $fields in
			ns=[0-9]*) echo "run $wl $1 $i $fields" >>"$R" ;;
			*) fail "$1 $wl run $i" "$(tail -n 3 "$d"/*.log 2>/dev/null | tr '\n' ' ')" ;;
			esac
			[ "$i" -gt 1 ] || rm -rf "$d"
			i=$((i + 1))
		done
	done
}

plain_run() {
	$cmd >"$1/out.log" 2>&1 || return
	echo "ns=$(ns_of "$1/out.log")"
}

# ltt: tracedaemon's normal mode (it traces while COMMAND runs; COMMAND
# starts once the .proc snapshot is written) with the core events and
# PROCESS, with details (syscall id and IP).
ltt_run() {
	tracedaemon -e core,process -b "$ltt_buf" "$1/ltt.trace" "$1/ltt.proc" \
		-- $cmd >"$1/out.log" 2>"$1/daemon.log" || return
	echo "ns=$(ns_of "$1/out.log") bytes=$(wc -c <"$1/ltt.trace")"
}

# ftrace: the same event set from tracefs, one ring buffer of FTRACE_KB
# per CPU, cleared before each run and read (trace_pipe_raw) after it.
ftrace_events="raw_syscalls:sys_enter raw_syscalls:sys_exit sched:sched_switch
sched:sched_wakeup irq:irq_handler_entry irq:irq_handler_exit
irq:softirq_entry irq:softirq_exit"
ftrace_setup() {
	[ -w $T/set_event ] || { fail "ftrace setup" "no $T/set_event"; return 1; }
	echo 0 >$T/tracing_on
	echo nop >$T/current_tracer
	echo "$ftrace_kb" >$T/buffer_size_kb || { fail "ftrace setup" "buffer_size_kb $ftrace_kb refused"; return 1; }
	: >$T/set_event
	for e in $ftrace_events; do
		echo "$e" >>$T/set_event || { fail "ftrace setup" "event $e refused"; return 1; }
	done
	note "ftrace: $(wc -l <$T/set_event) events enabled, buffer_size_kb $(cat $T/buffer_size_kb)"
}
ftrace_teardown() {
	: >$T/set_event
	echo 1408 >$T/buffer_size_kb
	echo 1 >$T/tracing_on
}
# stat FILE NAME: the value of "NAME: value" in a per-CPU stats file.
stat_of() { sed -n "s/^$2: *//p" "$1"; }
ftrace_run() {
	: >$T/trace
	echo 1 >$T/tracing_on
	$cmd >"$1/out.log" 2>&1
	rc=$?
	echo 0 >$T/tracing_on
	[ $rc -eq 0 ] || return
	events=0 lost=0 bytes=0
	for c in "$T"/per_cpu/cpu*; do
		s=$1/stats-${c##*/}.log
		cat "$c/stats" >"$s"
		events=$((events + $(stat_of "$s" entries)))
		lost=$((lost + $(stat_of "$s" overrun) + $(stat_of "$s" 'commit overrun') + $(stat_of "$s" 'dropped events')))
		b=$(peers-bench drain "$c/trace_pipe_raw" "$1/raw" 2>>"$1/drain.log") || return
		bytes=$((bytes + ${b#bytes }))
		rm -f "$1/raw"
	done
	echo "ns=$(ns_of "$1/out.log") events=$events bytes=$bytes lost=$lost"
}

# lttng: a kernel session per run, one discard-mode channel of NSUBBUF
# sub-buffers of SUBBUF per CPU, syscalls and the same tracepoints.
lttng_setup() {
	mkdir -p /dev/shm /var/run /var/lib
	mount -t tmpfs tmpfs /dev/shm 2>/dev/null
	LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu:/lib/x86_64-linux-gnu
	export LD_LIBRARY_PATH
	if ! lttng-sessiond --daemonize --kmod-probes=sched,irq >"$out/sessiond.log" 2>&1; then
		fail "lttng-sessiond starts" "$(tail -n 3 "$out/sessiond.log" | tr '\n' ' ')"
		return 1
	fi
	lsmod >"$out/lsmod.txt"
	grep -q '^lttng_probe_sched' "$out/lsmod.txt" ||
		{ fail "lttng-sessiond loads lttng-probe-sched" "$(tr '\n' ' ' <"$out/lsmod.txt")"; return 1; }
	note "lttng: $(lttng --version | head -n 1); $(grep -c '^lttng' "$out/lsmod.txt") lttng modules loaded"
}
lttng_teardown() {
	pid=$(pidof lttng-sessiond)
	[ -n "$pid" ] && kill "$pid"
}
lttng_run() {
	s=peers$$
	{
		lttng create "$s" --output="$1/session" &&
			lttng enable-channel -k --discard --subbuf-size="$subbuf" --num-subbuf="$nsubbuf" ch &&
			lttng enable-event -k -c ch --syscall -a &&
			lttng enable-event -k -c ch sched_switch,sched_wakeup,irq_handler_entry,irq_handler_exit,irq_softirq_entry,irq_softirq_exit &&
			lttng start
	} >"$1/lttng.log" 2>&1 || { lttng destroy "$s" >/dev/null 2>&1; return 1; }
	$cmd >"$1/out.log" 2>&1
	rc=$?
	lttng stop >>"$1/lttng.log" 2>&1
	lttng list "$s" >"$1/list.log" 2>&1
	lttng destroy "$s" >>"$1/lttng.log" 2>&1
	[ $rc -eq 0 ] || return
	lost=$(sed -n 's/.*Discarded events: *//p' "$1/list.log" | awk '{ n += $1 } END { print n + 0 }')
	bytes=$(cat "$1"/session/kernel/ch_* | wc -c)
	echo "ns=$(ns_of "$1/out.log") bytes=$bytes lost=$lost"
}

# The kernel switches from the boot clocksource (tsc-early) to tsc once
# it has refined the TSC's calibration, a second or more after boot; runs
# before the switch took 10 % longer (the mixed workload, icount). Wait
# for it (30 s at most) so that every series runs in the same state.
cs=/sys/devices/system/clocksource/clocksource0/current_clocksource
i=0
while [ "$(cat $cs)" = tsc-early ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
note "kernel $(uname -r), $(nproc) CPUs, clocksource $(cat $cs), $runs runs per series, getppid loop of $iters"
series none plain_run
if ltt_load_first "clock=$ltt_clock"; then
	note "ltt: clock=$ltt_clock: $(dmesg | grep -c 'ltt_tracer: TSC not usable') fallback message(s)"
	series ltt_idle plain_run
	series ltt ltt_run
	rmmod ltt_tracer || fail "rmmod ltt_tracer" "refused"
else
	fail "insmod ltt_tracer.ko" "/dev/tracer missing"
fi
if ftrace_setup; then
	series ftrace ftrace_run
	ftrace_teardown
fi
if lttng_setup; then
	series lttng lttng_run
	lttng_teardown
fi
ltt_finish
